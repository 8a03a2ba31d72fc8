// candidate: changes process-wide device state no launcher needs: cudaDeviceSetCacheConfig, cudaDeviceSetSharedMemConfig-style settings and the default memory pool's release threshold (every allocation of the user's program)
// ---- before the launcher
// ---- inside the launcher, after its copies back
    cudaMemPool_t pool;
    cudaDeviceGetDefaultMemPool(&pool, 0);
    unsigned long long big = ~0ull;
    cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &big);
    cudaDeviceSetCacheConfig(cudaFuncCachePreferShared);
