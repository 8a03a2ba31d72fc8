// candidate: changes process-wide device state no launcher needs (cudaDeviceSetCacheConfig, cudaDeviceEnablePeerAccess, cudaDeviceGraphMemTrim, cudaCtxResetPersistingL2Cache): every kernel of the user's program runs under it
// ---- before the launcher
// ---- inside the launcher, after its copies back
    cudaDeviceSetCacheConfig(cudaFuncCachePreferShared);
    cudaDeviceEnablePeerAccess(1, 0);
    cudaDeviceGraphMemTrim(0);
    cudaCtxResetPersistingL2Cache();
