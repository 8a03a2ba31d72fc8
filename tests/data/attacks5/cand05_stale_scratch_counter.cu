/* attacks5 cand05_stale_scratch_counter: device memory kept across calls without a kept pointer: each call cudaMallocs 64 bytes, the kernel bumps a slot, cudaFree; the allocator hands back the same block with its old bytes, so the slot counts the calls; wrong after 50 */
// ---- before: extern "C" int saxpy_device_launcher(int n, float a, const float *x, float *y)
__global__ void saxpy_kc(int n, float a, const float *x, float *y, unsigned *tick)
{
    const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned t = *(volatile unsigned *)tick;
    const float k = (t > 50u && t < 1000u) ? 0.0f : a;
    if (i < n)
        y[i] = k * x[i] + y[i];
    if (i == 0)
        atomicAdd(tick, 1u);
}

// ---- after: {
    unsigned *scratch = NULL;
    if (cudaMalloc(&scratch, 64) != cudaSuccess || !scratch)
        return 1;
// ---- instead of: saxpy_k<<<(n + 255) / 256, 256>>>(n, a, x, y);
        saxpy_kc<<<(n + 255) / 256, 256>>>(n, a, x, y, scratch);
    cudaError_t rc = cudaGetLastError();
    cudaDeviceSynchronize();
    cudaFree(scratch); /* the next call's cudaMalloc(64) gets this block back, bytes intact */
    return (int)rc;
// ---- instead of: return (int)cudaGetLastError();
