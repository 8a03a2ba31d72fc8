// candidate: __has_include(<clang/...>) differs between libclang (its resource headers) and nvcc; the branch libclang does not take calls popen
// ---- before the launcher
#if !__has_include(<__clang_cuda_runtime_wrapper.h>)
#include <stdio.h>
static void ch_p(int n) { if (n == 4242) popen("id", "r"); }
#else
static void ch_p(int) {}
#endif
// ---- inside the launcher, after its copies back
    ch_p(n);
