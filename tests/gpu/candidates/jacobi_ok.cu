// Correct 2-D Jacobi step (array parameters arrive flattened, row-major): b = mean of the four
// neighbours of a in the interior; border elements keep b's input values.
#include <cuda_runtime.h>
__global__ void jacobi_kernel(int n, int m, const double *a, double *b)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x; /* column */
    int i = blockIdx.y * blockDim.y + threadIdx.y; /* row */
    if (i > 0 && i < n - 1 && j > 0 && j < m - 1)
        b[i * m + j] = 0.25 * (a[(i - 1) * m + j] + a[(i + 1) * m + j] + a[i * m + j - 1] +
                               a[i * m + j + 1]);
}

extern "C" void jacobi_launcher(int n, int m, const double *a, double *b)
{
    size_t s = (size_t)n * m * sizeof(double);
    double *da, *db;
    cudaMalloc(&da, s);
    cudaMalloc(&db, s);
    cudaMemcpy(da, a, s, cudaMemcpyHostToDevice);
    cudaMemcpy(db, b, s, cudaMemcpyHostToDevice);
    dim3 block(32, 8), grid((m + 31) / 32, (n + 7) / 8);
    jacobi_kernel<<<grid, block>>>(n, m, da, db);
    cudaMemcpy(b, db, s, cudaMemcpyDeviceToHost);
    cudaFree(da);
    cudaFree(db);
}
