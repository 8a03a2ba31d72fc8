// candidate: copies back 4 KiB more than y holds and starts 64 bytes before it (cudaMemcpy into the user's host memory around the output buffer)
// ---- before the launcher
// ---- inside the launcher, after its copies back
    float *dz;
    cudaMalloc(&dz, b + 8192);
    cudaMemcpy(y - 16, dz, b + 4096, cudaMemcpyDeviceToHost);
    cudaFree(dz);
