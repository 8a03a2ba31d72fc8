/* Internals shared by the files of src/verify. */
#ifndef CH_VERIFY_INTERNAL_H
#define CH_VERIFY_INTERNAL_H

#include "ch/error.h"
#include "ch/verify.h"

/* Measured copy bandwidths of one device (GB/s = 1e9 bytes/s). */
typedef struct ch_calib {
    char name[128];
    long l2_bytes;
    double d2d_gbs;          /* DRAM: read + write bytes of a device-to-device copy */
    double h2d_gbs, d2h_gbs; /* pinned host memory */
    /* fp32 peak (GFLOP/s: SMs x FP32 lanes per SM x 2 x clock), -1 unknown (an older cached
     * calibration) */
    double fp32_gflops;
} ch_calib;

/* Calibrates (or reads the cached calibration); *cache_line is the raw line (caller frees). */
int ch_calibrate(const char *nvcc, const char *arch, const char *runner, const char *cache_dir,
                 const char *work_dir, ch_calib *out, char **cache_line, ch_error *err);

#endif
