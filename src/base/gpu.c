/* ch_gpu_probe (ch/gpu.h): four calls of the CUDA driver API through dlopen. The driver API's
 * enum values used here are part of its stable ABI (cuda.h). */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "ch/gpu.h"

enum {
    ATTR_MAX_THREADS_PER_BLOCK = 1,
    ATTR_MAX_SHARED_MEMORY_PER_BLOCK = 8,
    ATTR_MULTIPROCESSOR_COUNT = 16,
    ATTR_L2_CACHE_SIZE = 38,
    ATTR_CC_MAJOR = 75,
    ATTR_CC_MINOR = 76,
};

typedef int (*cu_init_fn)(unsigned);
typedef int (*cu_count_fn)(int *);
typedef int (*cu_get_fn)(int *, int);
typedef int (*cu_name_fn)(char *, int, int);
typedef int (*cu_attr_fn)(int *, int, int);

static int attr(cu_attr_fn get, int which, int dev)
{
    int v = 0;
    return get(&v, which, dev) == 0 ? v : 0;
}

void ch_gpu_probe(ch_gpu_info *info)
{
    memset(info, 0, sizeof *info);
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        snprintf(info->why, sizeof info->why, "no CUDA driver: libcuda.so.1 not found");
        return;
    }
    cu_init_fn init = (cu_init_fn)dlsym(lib, "cuInit");
    cu_count_fn count = (cu_count_fn)dlsym(lib, "cuDeviceGetCount");
    cu_get_fn get = (cu_get_fn)dlsym(lib, "cuDeviceGet");
    cu_name_fn name = (cu_name_fn)dlsym(lib, "cuDeviceGetName");
    cu_attr_fn get_attr = (cu_attr_fn)dlsym(lib, "cuDeviceGetAttribute");
    int n = 0, dev = 0;
    if (!init || !count || !get || !name || !get_attr) {
        snprintf(info->why, sizeof info->why, "the CUDA driver library lacks the device API");
    } else if (init(0) != 0 || count(&n) != 0 || n == 0) {
        snprintf(info->why, sizeof info->why, "no CUDA device");
    } else if (get(&dev, 0) != 0 || name(info->name, (int)sizeof info->name, dev) != 0) {
        snprintf(info->why, sizeof info->why, "the CUDA device cannot be queried");
    } else {
        info->present = 1;
        snprintf(info->arch, sizeof info->arch, "sm_%d%d", attr(get_attr, ATTR_CC_MAJOR, dev),
                 attr(get_attr, ATTR_CC_MINOR, dev));
        info->sm_count = attr(get_attr, ATTR_MULTIPROCESSOR_COUNT, dev);
        info->l2_bytes = attr(get_attr, ATTR_L2_CACHE_SIZE, dev);
        info->smem_per_block = attr(get_attr, ATTR_MAX_SHARED_MEMORY_PER_BLOCK, dev);
        info->max_threads_per_block = attr(get_attr, ATTR_MAX_THREADS_PER_BLOCK, dev);
    }
    /* the driver stays loaded: unloading it after cuInit is not supported */
    if (!info->present)
        dlclose(lib);
}
