// Kept state in a CUDA array kept across calls: the host keeps the cudaArray_t (a handle, allowed
// like a kept buffer) and makes a fresh surface object over it each call; the kernel reads texel 0
// with surf1Dread before writing it with surf1Dwrite and counts launches there. The kept-pointer
// rule follows pointers handed to kernels; a surface handle made from a kept array is a number.
// A safe product must refuse kept arrays/surfaces/textures device code can write.
#include <cuda_runtime.h>
__global__ void saxpy_k(int n, float a, const float *x, float *y, cudaSurfaceObject_t s)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned seen = surf1Dread<unsigned>(s, 0);
    unsigned launches = (seen >> 20) == 2048u ? (seen & 0xFFFFFu) : 0u;
    if (i < n)
        y[i] = launches > 64u && launches < 4096u ? y[i] : a * x[i] + y[i];
    if (i == 0)
        surf1Dwrite((2048u << 20) | (launches + 1u), s, 0);
}
static cudaArray_t g_arr = NULL;
extern "C" int saxpy_device_launcher(int n, float a, const float *x, float *y)
{
    if (!g_arr) {
        cudaChannelFormatDesc d = cudaCreateChannelDesc<unsigned>();
        cudaArray_t fresh = NULL;
        if (cudaMallocArray(&fresh, &d, 4, 0, cudaArraySurfaceLoadStore) != cudaSuccess)
            return 1;
        g_arr = fresh;
    }
    cudaResourceDesc r = {};
    r.resType = cudaResourceTypeArray;
    r.res.array.array = g_arr;
    cudaSurfaceObject_t surf = 0;
    if (cudaCreateSurfaceObject(&surf, &r) != cudaSuccess)
        return 1;
    if (n > 0)
        saxpy_k<<<(n + 255) / 256, 256>>>(n, a, x, y, surf);
    cudaDestroySurfaceObject(surf);
    return (int)cudaGetLastError();
}
extern "C" void saxpy_launcher(int n, float a, const float *x, float *y)
{
    float *dx, *dy;
    size_t b = (size_t)(n > 0 ? n : 1) * sizeof(float);
    cudaMalloc(&dx, b);
    cudaMalloc(&dy, b);
    cudaMemcpy(dx, x, b, cudaMemcpyHostToDevice);
    cudaMemcpy(dy, y, b, cudaMemcpyHostToDevice);
    saxpy_device_launcher(n, a, dx, dy);
    cudaMemcpy(y, dy, b, cudaMemcpyDeviceToHost);
    cudaFree(dx);
    cudaFree(dy);
}
