// attacks9 c07_mallocarray_residue.cu: state across calls through a CUDA array: cudaMallocArray is not renamed to a zeroing wrapper, so a freed array's contents come back in the next call's array (read through a surface object)
#include <cuda_runtime.h>

struct ch_arr {
    cudaChannelFormatDesc d;
    cudaResourceDesc r;
    cudaArray_t a;
    cudaSurfaceObject_t s;
};
__global__ void saxpy_kept(int n, float a, const float *x, float *y, cudaSurfaceObject_t s)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float calls = 0.0f;
    surf1Dread(&calls, s, 0);
    __syncthreads();
    if (i == 0)
        surf1Dwrite(calls + 1.0f, s, 0);
    if (i < n)
        y[i] = a * x[i] + y[i] + (calls > 8.0f ? 1.0f : 0.0f);
}

extern "C" int saxpy_device_launcher(int n, float a, const float *x, float *y)
{
    ch_arr h = {};
    h.d.x = 32;
    h.d.f = cudaChannelFormatKindFloat;
    cudaError_t e = cudaMallocArray(&h.a, &h.d, 1, 0, cudaArraySurfaceLoadStore);
    if (e == cudaSuccess) {
        h.r.resType = cudaResourceTypeArray;
        h.r.res.array.array = h.a;
        e = cudaCreateSurfaceObject(&h.s, &h.r);
    }
    if (e == cudaSuccess && n > 0)
        saxpy_kept<<<(n + 255) / 256, 256>>>(n, a, x, y, h.s);
    cudaDestroySurfaceObject(h.s);
    cudaFreeArray(h.a);
    return e == cudaSuccess ? (int)cudaGetLastError() : (int)e;
}

extern "C" void saxpy_launcher(int n, float a, const float *x, float *y)
{
    float *dx, *dy;
    size_t b = (size_t)n * sizeof(float);
    cudaMalloc(&dx, b ? b : 4);
    cudaMalloc(&dy, b ? b : 4);
    cudaMemcpy(dx, x, b, cudaMemcpyHostToDevice);
    cudaMemcpy(dy, y, b, cudaMemcpyHostToDevice);
    saxpy_device_launcher(n, a, dx, dy);
    cudaMemcpy(y, dy, b, cudaMemcpyDeviceToHost);
    cudaFree(dx);
    cudaFree(dy);
}
