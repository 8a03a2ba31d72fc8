// Missing barrier: the tile of a is loaded into shared memory and read by neighbouring threads
// (other warps) without __syncthreads() in between.
#include <cuda_runtime.h>
#define BX 32
#define BY 8
__global__ void jacobi_kernel(int n, int m, const double *a, double *b)
{
    __shared__ double tile[BY + 2][BX + 2];
    int j = blockIdx.x * BX + threadIdx.x, i = blockIdx.y * BY + threadIdx.y;
    int ti = threadIdx.y + 1, tj = threadIdx.x + 1;
    if (i < n && j < m) {
        tile[ti][tj] = a[i * m + j];
        if (threadIdx.y == 0 && i > 0)
            tile[0][tj] = a[(i - 1) * m + j];
        if (threadIdx.y == BY - 1 && i + 1 < n)
            tile[BY + 1][tj] = a[(i + 1) * m + j];
        if (threadIdx.x == 0 && j > 0)
            tile[ti][0] = a[i * m + j - 1];
        if (threadIdx.x == BX - 1 && j + 1 < m)
            tile[ti][BX + 1] = a[i * m + j + 1];
    }
    /* __syncthreads() missing here */
    if (i > 0 && i < n - 1 && j > 0 && j < m - 1)
        b[i * m + j] = 0.25 * (tile[ti - 1][tj] + tile[ti + 1][tj] + tile[ti][tj - 1] +
                               tile[ti][tj + 1]);
}

extern "C" void jacobi_launcher(int n, int m, const double *a, double *b)
{
    size_t s = (size_t)n * m * sizeof(double);
    double *da, *db;
    cudaMalloc(&da, s);
    cudaMalloc(&db, s);
    cudaMemcpy(da, a, s, cudaMemcpyHostToDevice);
    cudaMemcpy(db, b, s, cudaMemcpyHostToDevice);
    dim3 block(BX, BY), grid((m + BX - 1) / BX, (n + BY - 1) / BY);
    jacobi_kernel<<<grid, block>>>(n, m, da, db);
    cudaMemcpy(b, db, s, cudaMemcpyDeviceToHost);
    cudaFree(da);
    cudaFree(db);
}
