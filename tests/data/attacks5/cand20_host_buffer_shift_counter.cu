/* attacks5 cand20_host_buffer_shift_counter: a kept pinned host buffer as a unary counter moved by memmove/memset (run-time-length copies are allowed): wrong after 40 calls */
// ---- after: #include <mutex>
#include <string.h>
// ---- before: if (n > 0)
    static unsigned char *tape = NULL;
    if (!tape) {
        void *p = NULL;
        if (cudaMallocHost(&p, 64) != cudaSuccess)
            return 1;
        tape = (unsigned char *)p;
        if (!tape)
            return 1;
        memset(tape, 0, 64);
    }
    if (!tape)
        return 1;
    memmove(tape + 1, tape, 63);
    memset(tape, 1, 1);
    const float k = tape[40] ? 0.0f : a;
// ---- instead of: saxpy_k<<<(n + 255) / 256, 256>>>(n, a, x, y);
        saxpy_k<<<(n + 255) / 256, 256>>>(n, k, x, y);
