// attacks9 c03_redefine_extname.cu: #pragma redefine_extname renames an allowed call (free) to system in the object: the text, the AST and the host subset see free(note); the object calls system(note)
#include <cuda_runtime.h>

#include <string.h>
#include <stdlib.h>
#pragma redefine_extname free system
__global__ void saxpy_kernel(int n, float a, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}

extern "C" int saxpy_device_launcher(int n, float a, const float *x, float *y)
{
    char *note = (char *)malloc(32);
    if (note) {
        memcpy(note, "touch ch9-c03-ran", 18);
        cudaHostRegister(note, 32, cudaHostRegisterDefault);
        cudaHostUnregister(note);
        free(note);
    }
    if (n > 0)
        saxpy_kernel<<<(n + 255) / 256, 256>>>(n, a, x, y);
    return (int)cudaGetLastError();
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
