/* Emit, the shared-memory scrub between calls of a verified candidate.
 *
 * Shared memory is not cleared between launches: a block reads what an earlier kernel on its SM
 * left there, state that no variable holds and no check of the text or the compiled code sees
 * in general (tests/data/attacks7/01: a block counts earlier launches in a marked word of
 * __shared__ memory read before it is written, and stops computing after 64). Verification
 * runs a candidate a few times per process; a user's program may call it thousands of times.
 * So the unit of a candidate whose code names shared memory zeroes it before every call of
 * its launcher: one block per SM, each with the most dynamic shared memory a block may have,
 * which the SM can hold only one of at a time, so that on an idle device every SM's shared
 * memory is written; what one call leaves is then gone before the next, and a count of calls
 * never starts. Within one call the candidate sees the same as in verification. (Locals are
 * the hardening's: ch/harden.h.) */
#include <string.h>

#include "emit_internal.h"

int ch_emit_needs_scrub(const char *kernel_src)
{
    /* any mention: __shared__, `.shared` in inline PTX, and the note the hardening appends
     * (src/verify/harden.c) where the parse finds shared memory or inline assembly that the
     * text hides (a line splice, token pasting, string literals joined) */
    return strstr(kernel_src, "shared") != NULL;
}

void ch_emit_scrub(const ch_entry *e, ch_strbuf *out)
{
    const char *n = e->name;
    ch_strbuf_addf(
        out,
        "\n/* ---- shared memory scrub (src/emit/scrub.c) ---- */\n"
        "/* Shared memory is not cleared between launches: before each call of the candidate's\n"
        " * launcher, one block per SM with the most shared memory a block may have writes zeros\n"
        " * over it, so no call finds what an earlier one left. */\n"
        "__global__ void __launch_bounds__(1024) ch_%s_scrub_k(unsigned ch_words)\n{\n"
        "    extern __shared__ uint4 ch_%s_scrub_smem[];\n"
        "    for (unsigned i = threadIdx.x; i < ch_words; i += blockDim.x)\n"
        "        ch_%s_scrub_smem[i] = make_uint4(0u, 0u, 0u, 0u);\n}\n\n"
        "static pthread_once_t ch_%s_scrub_once = PTHREAD_ONCE_INIT;\n"
        "static int ch_%s_scrub_bytes, ch_%s_scrub_sms;\n\n"
        "static void ch_%s_scrub_setup(void)\n{\n"
        "    int dev = 0, bytes = 0, sms = 0;\n"
        "    if (cudaGetDevice(&dev) != cudaSuccess ||\n"
        "        cudaDeviceGetAttribute(&bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev) !=\n"
        "            cudaSuccess ||\n"
        "        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess "
        "||\n"
        "        cudaFuncSetAttribute(ch_%s_scrub_k, cudaFuncAttributeMaxDynamicSharedMemorySize,\n"
        "                             bytes) != cudaSuccess) {\n"
        "        cudaGetLastError();\n"
        "        return; /* no scrub, no GPU path: ch_%s_scrub fails every call */\n"
        "    }\n"
        "    ch_%s_scrub_bytes = bytes / 16 * 16;\n"
        "    ch_%s_scrub_sms = sms;\n}\n\n"
        "/* 0 when the scrub is queued before the launcher's kernels (same stream); else a CUDA\n"
        " * error, and the call takes the host path */\n"
        "static int ch_%s_scrub(void)\n{\n"
        "    pthread_once(&ch_%s_scrub_once, ch_%s_scrub_setup);\n"
        "    if (!ch_%s_scrub_bytes)\n        return (int)cudaErrorNotSupported;\n"
        "    ch_%s_scrub_k<<<ch_%s_scrub_sms, 1024, (size_t)ch_%s_scrub_bytes>>>(\n"
        "        (unsigned)ch_%s_scrub_bytes / 16u);\n"
        "    cudaError_t ch_e = cudaGetLastError();\n"
        "    /* done before the launcher's kernels start, whatever stream they use (one of\n"
        "     * their own, non-blocking, is not ordered after the legacy stream) */\n"
        "    if (ch_e == cudaSuccess)\n"
        "        ch_e = cudaStreamSynchronize(cudaStreamLegacy);\n"
        "    return (int)ch_e;\n}\n",
        n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n);
}
