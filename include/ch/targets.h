/* Internal: the target GPU architectures of a command's kernels (src/pipeline/targets.c). One rule
 * for the build, --harness-list, --harness-args and --harness-verify: the architectures are
 * part of an entry's cache key, so every command must compute the same key for the same command
 * line. Pure (no printing, no driver state), so unit tests link it. */
#ifndef CH_TARGETS_H
#define CH_TARGETS_H

#include "ch/error.h"
#include "ch/strbuf.h"

/* The architecture of this machine's GPU ("sm_90"), or NULL when it has none. ch_targets calls
 * it at most once, and only when the rule needs the GPU: a build probes lazily (cuInit costs a
 * warm rebuild hundreds of milliseconds). */
typedef const char *(*ch_gpu_arch_fn)(void *ctx);

/* Appends the real architectures kernels are built and keyed for ("sm_80", "sm_90a") to out.
 * arch_opts are the command's options as ch_args records them ("-arch=V", "-code=V",
 * "-gencode=V"); nvcc's meaning:
 *   -arch=sm_NN                      sm_NN
 *   -arch=compute_NN                 sm_NN, the real architecture of that virtual one
 *   -arch=V -code=C,...              the codes only (V then names the virtual architecture)
 *   -gencode arch=A,code=C           the codes; code=[C1,C2] and code="C1,C2" list several
 *   a code sm_MM / compute_MM / lto_MM   sm_MM
 *   -arch=native / all / all-major   the GPU's architecture when there is one
 * When the options name none: cfg_arch (the `arch` setting, CH_CC_ARCH; the same values,
 * comma-separated), else the GPU's architecture, else sm_90. Duplicates are removed and the
 * list is sorted by number (sm_80 < sm_86 < sm_90 < sm_100), so the order of options does not
 * change it and the first, which verification compiles for, is the oldest target. Never
 * empty. Returns 0; -1 with *warn set when cfg_arch was used and holds a value that is no
 * architecture (it is skipped and the rule goes on). */
int ch_targets(const ch_strvec *arch_opts, const char *cfg_arch, ch_gpu_arch_fn gpu_arch, void *ctx,
               ch_strvec *out, ch_error *warn);

#endif
