// candidate: a call counter without arithmetic on the kept number: it is only compared with a loop counter and set to that counter plus one (an implicit flow); after call 64 the launcher copies zeros into the outputs
// ---- before the launcher
static int ch_calls;
// ---- inside the launcher, after its copies back
    int ch_late = 1;
    for (int k = 64; k >= 0; k--)
        if (ch_calls == k) {
            ch_calls = k + 1;
            ch_late = 0;
        }
    if (ch_late && n > 0) {
        float *dz;
        cudaMalloc(&dz, b);
        cudaMemset(dz, 0, b);
        cudaMemcpy(y, dz, b, cudaMemcpyDeviceToHost);
        cudaFree(dz);
    }
