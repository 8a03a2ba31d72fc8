/* The GPU this build can verify on: whether a CUDA device is present and what it is.
 *
 * Read through the CUDA driver library (libcuda.so.1, loaded with dlopen), so that ch-cc links
 * no CUDA library and starts as fast on machines without one; a machine without the driver or
 * without a device simply has no GPU. */
#ifndef CH_GPU_H
#define CH_GPU_H

typedef struct ch_gpu_info {
    int present;         /* a CUDA device is usable */
    char name[96];       /* "NVIDIA H200" */
    char arch[16];       /* "sm_90" */
    int sm_count;        /* multiprocessors */
    long l2_bytes;       /* L2 cache size */
    long smem_per_block; /* shared memory per block, bytes */
    int max_threads_per_block;
    char why[160]; /* when not present: why ("no CUDA driver (libcuda.so.1)", ...) */
} ch_gpu_info;

/* Probes device 0 (the one CUDA_VISIBLE_DEVICES leaves first). Never fails: info->present says
 * whether a device is usable and info->why why not. */
void ch_gpu_probe(ch_gpu_info *info);

#endif
