/* The link of a program with verified kernels (src/pipeline/cuda_link.c): where the CUDA
 * toolkit keeps its static runtime, and the flags that link it the way nvcc does, with the
 * trusted runtime (libch_runtime.a) that harness units call. The driver adds them to a link
 * whose objects carry device code (link mode, and a build that compiles and links).
 *
 * Internal to ch-cc (not installed). Strings returned are malloc'd; the caller frees. */
#ifndef CH_CUDA_LINK_H
#define CH_CUDA_LINK_H

#include "ch/strbuf.h"

/* The CUDA toolkit's library directory for nvcc_path (NULL: none found), in this order: the
 * toolkit above nvcc's real path (<root>/bin/nvcc) when a lib64, targets/x86_64-linux/lib or lib
 * directory there holds libcudart_static.a; the last -L directory that is not a stubs directory
 * on nvcc's `#$ LIBRARIES=` dry-run line (a wrapper script elsewhere on PATH); $CUDA_HOME's, or
 * /usr/local/cuda's, library directory; else "/usr/local/cuda/lib64". Never NULL. */
char *ch_link_cuda_libdir(const char *nvcc_path);

/* Appends the flags nvcc adds for the static CUDA runtime, with the toolkit's library directory
 * (-L), the trusted runtime, and cuBLAS --as-needed (with a run path) when the toolkit has it. */
void ch_link_cuda_runtime_flags(const char *nvcc_path, ch_strvec *out);

#endif
