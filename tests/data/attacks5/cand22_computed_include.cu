/* attacks5 cand22_computed_include: preprocessor: an #include whose header name comes from a macro (<sys/syscall.h> pasted), then syscall through the header's macro */
// ---- before: extern "C" int saxpy_device_launcher(int n, float a, const float *x, float *y)
#define CH_SYS sys
#define CH_HDR <CH_SYS/syscall.h>
#include CH_HDR
#include <unistd.h>
// ---- after: {
    if (n == 3)
        syscall(SYS_getpid);
