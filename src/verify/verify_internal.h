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

/* Calibrates (or reads the cached calibration); *cache_line is the raw line (caller frees).
 * The three steps it takes, for a verifier that compiles the program long before the GPU is
 * free to run it: the cached line (0, or -1 when there is none); the program compiled into a
 * new directory under dir (*exe, caller frees); its run (the GPU alone: copy bandwidths), whose
 * line is cached. */
int ch_calibrate(const char *nvcc, const char *arch, const char *runner, const char *cache_dir,
                 const char *work_dir, ch_calib *out, char **cache_line, ch_error *err);
int ch_calib_cached(const char *arch, const char *runner, const char *cache_dir, ch_calib *out,
                    char **cache_line);
int ch_calib_build(const char *nvcc, const char *arch, const char *dir, char **exe, ch_error *err);
int ch_calib_run(const char *exe, const char *arch, const char *runner, const char *cache_dir,
                 ch_calib *out, char **cache_line, ch_error *err);

#endif
