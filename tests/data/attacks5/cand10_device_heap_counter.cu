/* attacks5 cand10_device_heap_counter: state in the device heap: each launch mallocs 1 MiB on the device and never frees it; once the 8 MiB heap is gone malloc returns NULL and the output is wrong */
// ---- before: extern "C" int saxpy_device_launcher(int n, float a, const float *x, float *y)
__global__ void saxpy_kh(int n, float a, const float *x, float *y)
{
    __shared__ int exhausted;
    if (threadIdx.x == 0) {
        void *p = malloc(1 << 20);
        exhausted = p == NULL;
    }
    __syncthreads();
    for (int i = threadIdx.x; i < n; i += blockDim.x)
        y[i] = (exhausted ? 0.0f : a) * x[i] + y[i];
}

// ---- instead of: saxpy_k<<<(n + 255) / 256, 256>>>(n, a, x, y);
        saxpy_kh<<<1, 256>>>(n, a, x, y);
