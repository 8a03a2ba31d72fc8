/* Link mode helpers (driver-internal). */
#ifndef CH_DRIVER_LINK_H
#define CH_DRIVER_LINK_H

#include "ch/args.h"
#include "ch/cuda_link.h"
#include "ch/strbuf.h"

/* nvcc places device code in this section; harness objects carry it too. */
#define CH_LINK_DEVICE_SECTION ".nvFatBinSegment"

/* What emitted harness units reference (weakly) when they move data through the trusted runtime. */
#define CH_LINK_RUNTIME_SYMBOL "ch_rt_call_v1"

/* Nonzero when the command links (no -c/-E/-S) and an object input carries device code or
 * calls the trusted runtime. */
int ch_link_needs_cuda_runtime(const ch_args *a);
/* Nonzero when the command links and an object input calls the trusted runtime
 * (libch_runtime.a): what the nvcc personality, which adds the CUDA runtime itself, must add. */
int ch_link_needs_ch_runtime(const ch_args *a);

#endif
