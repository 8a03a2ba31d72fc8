// candidate: calls cublasCreate/cublasDestroy without declaring the cuBLAS library line, hoping the library's symbols pass as CUDA runtime ones
// ---- before the launcher
#include <cublas_v2.h>
// ---- inside the launcher, after its copies back
    cublasHandle_t h; cublasCreate(&h); cublasDestroy(h);
