/* {{HEADER}}
 *
 * cuBLAS translation of {{NAME}} ({{FILE}}:{{LINE}}) by the ch-cc translator: the body is a
 * GEMM, {{C}} = alpha * {{A}} {{OPA_TEXT}} * {{B}} {{OPB_TEXT}} + beta * {{C}} with
 * alpha = {{ALPHA}}, beta = {{BETA}}, row-major ({{M}} x {{N}}, sums of {{K}} terms). cuBLAS is column-major: a row-major matrix is the
 * transpose of the same memory read column-major, so C^T = op(B)^T op(A)^T is one GEMM with
 * the operands swapped and the same leading dimensions.
 *
 * ch-cc library: cublas
 * ch-cc precision: {{PRECISION}}
 */
#include <cuda_runtime.h>
#include <cublas_v2.h>
#include <limits.h>
#include <stddef.h>
#include <mutex>

/* One handle, created by the first call and kept: creating one costs milliseconds (it sets up
 * the library's context on the device), far more than a GEMM of the sizes tests use, so a
 * handle per call would be what the timing measures. The mutex makes the first creation safe
 * from several threads; cuBLAS allows one handle to be used from several host threads as long
 * as its settings do not change, and these calls change none. The handle belongs to the device
 * that was current at creation. */
static cublasHandle_t {{NAME}}_blas(void)
{
    static std::mutex ch_lock;
    static cublasHandle_t ch_handle = NULL;
    std::lock_guard<std::mutex> ch_guard(ch_lock);
    if (!ch_handle && cublasCreate(&ch_handle) != CUBLAS_STATUS_SUCCESS)
        ch_handle = NULL;
    return ch_handle;
}

/* NAME_device_launcher on device-resident buffers: one cuBLAS call. A size beyond cuBLAS's int
 * range or a cuBLAS failure is reported as a CUDA error (cuBLAS has its own status codes). */
extern "C" int {{NAME}}_device_launcher({{PARAMS}})
{
    const long long ch_m = {{M}}, ch_n = {{N}}, ch_k = {{K}};
    const long long ch_lda = {{LDA}}, ch_ldb = {{LDB}}, ch_ldc = {{LDC}};
    if (ch_m <= 0 || ch_n <= 0)
        return 0;
    if (ch_m > INT_MAX || ch_n > INT_MAX || ch_k > INT_MAX || ch_lda > INT_MAX ||
        ch_ldb > INT_MAX || ch_ldc > INT_MAX)
        return (int)cudaErrorInvalidValue;
    cublasHandle_t ch_h = {{NAME}}_blas();
    if (!ch_h)
        return (int)cudaErrorInitializationError;
    const {{T}} ch_alpha = ({{T}})({{ALPHA}}), ch_beta = ({{T}})({{BETA}});
    cublasStatus_t ch_st = cublasGemmEx(
        ch_h, {{OPB}}, {{OPA}}, (int)ch_n, (int)ch_m, (int)(ch_k > 0 ? ch_k : 0), &ch_alpha,
        (const {{T}} *){{B}}, {{DT}}, (int)ch_ldb, (const {{T}} *){{A}}, {{DT}}, (int)ch_lda,
        &ch_beta, ({{T}} *){{C}}, {{DT}}, (int)ch_ldc, {{COMPUTE}}, CUBLAS_GEMM_DEFAULT);
    if (ch_st != CUBLAS_STATUS_SUCCESS)
        return (int)cudaErrorUnknown;
    return (int)cudaGetLastError();
}

{{HOST_LAUNCHER}}
