/* The yardsticks bench/speed.sh measures in the same run as the micros, one "key value" line
 * each (nvcc -O3 baselines.cu -lcublas):
 *
 *   copy_floor_gbs       cudaMemcpy device to device of 256 MiB, counting read + write
 *   sgemm_tflops         cuBLAS SGEMM 4096^3 in the default math mode (no TF32)
 *   sgemm_tf32_tflops    the same with TF32 tensor cores (only for an entry whose tol() admits
 *                        TF32 and whose winner used it)
 *   dgemm_tflops         cuBLAS DGEMM 4096^3
 *   h2d_pinned_gbs, d2h_pinned_gbs, h2d_pageable_gbs, d2h_pageable_gbs
 *                        256 MiB one way (what a whole call's copies cost)
 *
 * Each figure is the median of 20 timed repetitions (CUDA events) after one untimed warm-up.
 * Without a device it prints "skipped: no GPU" and exits 0. */
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace
{

const int kReps = 20;
const size_t kCopyBytes = size_t(256) << 20;
const int kGemmN = 4096;

// Exits on the first CUDA or cuBLAS error, naming the call; a baseline that failed must not
// print a number.
void check(cudaError_t e, const char *what)
{
    if (e != cudaSuccess) {
        std::fprintf(stderr, "baselines: %s: %s\n", what, cudaGetErrorString(e));
        std::exit(1);
    }
}

void check_blas(cublasStatus_t s, const char *what)
{
    if (s != CUBLAS_STATUS_SUCCESS) {
        std::fprintf(stderr, "baselines: %s: cuBLAS status %d\n", what, int(s));
        std::exit(1);
    }
}

// Median milliseconds of kReps runs of op, timed with events on the default stream.
template <typename Op> double median_ms(Op op)
{
    op(); // warm-up: first-touch, cuBLAS heuristics, clocks
    check(cudaDeviceSynchronize(), "warm-up");
    cudaEvent_t a, b;
    check(cudaEventCreate(&a), "cudaEventCreate");
    check(cudaEventCreate(&b), "cudaEventCreate");
    std::vector<double> t;
    for (int i = 0; i < kReps; i++) {
        check(cudaEventRecord(a), "cudaEventRecord");
        op();
        check(cudaEventRecord(b), "cudaEventRecord");
        check(cudaEventSynchronize(b), "cudaEventSynchronize");
        float ms = 0;
        check(cudaEventElapsedTime(&ms, a, b), "cudaEventElapsedTime");
        t.push_back(ms);
    }
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    std::sort(t.begin(), t.end());
    return (t[(kReps - 1) / 2] + t[kReps / 2]) / 2;
}

double gbs(double bytes, double ms)
{
    return bytes / (ms * 1e6);
}

void copies()
{
    void *d0, *d1, *pinned;
    check(cudaMalloc(&d0, kCopyBytes), "cudaMalloc");
    check(cudaMalloc(&d1, kCopyBytes), "cudaMalloc");
    check(cudaMemset(d0, 1, kCopyBytes), "cudaMemset");
    check(cudaMallocHost(&pinned, kCopyBytes), "cudaMallocHost");
    std::memset(pinned, 1, kCopyBytes);
    void *pageable = std::malloc(kCopyBytes);
    if (!pageable) {
        std::fprintf(stderr, "baselines: out of host memory\n");
        std::exit(1);
    }
    std::memset(pageable, 1, kCopyBytes); // touched, as a program's buffers are
    double ms = median_ms(
        [&] { check(cudaMemcpy(d1, d0, kCopyBytes, cudaMemcpyDeviceToDevice), "cudaMemcpy D2D"); });
    std::printf("copy_floor_gbs %.1f\n", gbs(2.0 * kCopyBytes, ms));
    struct {
        const char *key;
        void *dst;
        const void *src;
        cudaMemcpyKind kind;
    } one_way[] = {
        {"h2d_pinned_gbs", d0, pinned, cudaMemcpyHostToDevice},
        {"d2h_pinned_gbs", pinned, d0, cudaMemcpyDeviceToHost},
        {"h2d_pageable_gbs", d0, pageable, cudaMemcpyHostToDevice},
        {"d2h_pageable_gbs", pageable, d0, cudaMemcpyDeviceToHost},
    };
    for (auto &c : one_way) {
        ms = median_ms([&] { check(cudaMemcpy(c.dst, c.src, kCopyBytes, c.kind), c.key); });
        std::printf("%s %.1f\n", c.key, gbs(kCopyBytes, ms));
    }
    std::free(pageable);
    cudaFreeHost(pinned);
    cudaFree(d0);
    cudaFree(d1);
}

// Row-major C = alpha*A*B + beta*C is column-major C^T = alpha*B^T*A^T + beta*C^T: the
// operands swap, no transposition.
template <typename T> double gemm_tflops(cublasHandle_t h, cublasMath_t mode)
{
    const int n = kGemmN;
    const size_t bytes = size_t(n) * n * sizeof(T);
    T *a, *b, *c;
    check(cudaMalloc(&a, bytes), "cudaMalloc");
    check(cudaMalloc(&b, bytes), "cudaMalloc");
    check(cudaMalloc(&c, bytes), "cudaMalloc");
    std::vector<T> host(size_t(n) * n);
    for (size_t i = 0; i < host.size(); i++)
        host[i] = T((i * 2654435761u) % 1000) / T(1000) - T(0.5);
    check(cudaMemcpy(a, host.data(), bytes, cudaMemcpyHostToDevice), "cudaMemcpy");
    check(cudaMemcpy(b, host.data(), bytes, cudaMemcpyHostToDevice), "cudaMemcpy");
    check(cudaMemcpy(c, host.data(), bytes, cudaMemcpyHostToDevice), "cudaMemcpy");
    check_blas(cublasSetMathMode(h, mode), "cublasSetMathMode");
    const T alpha = T(1.5), beta = T(0.5);
    double ms = median_ms([&] {
        cublasStatus_t s;
        if constexpr (sizeof(T) == 4)
            s = cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha, b, n, a, n, &beta, c, n);
        else
            s = cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha, b, n, a, n, &beta, c, n);
        check_blas(s, "cublas gemm");
    });
    cudaFree(a);
    cudaFree(b);
    cudaFree(c);
    return 2.0 * n * n * double(n) / (ms * 1e9);
}

} // namespace

int main()
{
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        std::printf("skipped: no GPU\n");
        return 0;
    }
    cudaDeviceProp prop;
    check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
    std::printf("device %s\n", prop.name);
    copies();
    cublasHandle_t h;
    check_blas(cublasCreate(&h), "cublasCreate");
    std::printf("sgemm_tflops %.2f\n", gemm_tflops<float>(h, CUBLAS_DEFAULT_MATH));
    std::printf("sgemm_tf32_tflops %.2f\n", gemm_tflops<float>(h, CUBLAS_TF32_TENSOR_OP_MATH));
    std::printf("dgemm_tflops %.2f\n", gemm_tflops<double>(h, CUBLAS_DEFAULT_MATH));
    cublasDestroy(h);
    return 0;
}
