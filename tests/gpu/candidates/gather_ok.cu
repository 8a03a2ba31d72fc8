// Correct gather (spec-decl entry): out[i] = src[idx[i]].
#include <cuda_runtime.h>
__global__ void gather_kernel(int n, const double *src, const int *idx, double *out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = __ldg(&src[idx[i]]);
}

extern "C" void gather_launcher(int n, int m, const double *src, const int *idx, double *out)
{
    double *ds, *dout;
    int *di;
    cudaMalloc(&ds, (size_t)m * sizeof(double));
    cudaMalloc(&di, (size_t)n * sizeof(int));
    cudaMalloc(&dout, (size_t)n * sizeof(double));
    cudaMemcpy(ds, src, (size_t)m * sizeof(double), cudaMemcpyHostToDevice);
    cudaMemcpy(di, idx, (size_t)n * sizeof(int), cudaMemcpyHostToDevice);
    gather_kernel<<<(n + 127) / 128, 128>>>(n, ds, di, dout);
    cudaMemcpy(out, dout, (size_t)n * sizeof(double), cudaMemcpyDeviceToHost);
    cudaFree(ds);
    cudaFree(di);
    cudaFree(dout);
}
