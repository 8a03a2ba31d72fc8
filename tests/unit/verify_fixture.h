/* Hand-built checklists for the verify/scaffold tests: fixed shapes (saxpy, gather with an index
 * array, a 2-D stencil with array parameters, an integer histogram) independent of derivation. */
#ifndef VERIFY_FIXTURE_H
#define VERIFY_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ch/checklist.h"
#include "ch/fsutil.h"
#include "ch/strbuf.h"

/* Builders: all strings owned by the checklist, freed by fx_free. */
/* saxpy's kernel and a host-pointer launcher that copies and launches it: the sound candidate
 * of the verifier tests (string literals, to be put together as each test needs) */
#define FX_SAXPY_KERNEL                                                                            \
    "#include <cuda_runtime.h>\n"                                                                  \
    "__global__ void k(int n, float a, const float *x, float *y)\n"                                \
    "{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = a * x[i] + y[i]; }\n"
#define FX_SAXPY_HOST_LAUNCHER                                                                     \
    "extern \"C\" void saxpy_launcher(int n, float a, const float *x, float *y)\n"                 \
    "{ float *dx, *dy; size_t b = n * sizeof(float); cudaMalloc(&dx, b); cudaMalloc(&dy, b);\n"    \
    "  cudaMemcpy(dx, x, b, cudaMemcpyHostToDevice); cudaMemcpy(dy, y, b, "                        \
    "cudaMemcpyHostToDevice);\n"                                                                   \
    "  k<<<(n + 255) / 256, 256>>>(n, a, dx, dy);\n"                                               \
    "  cudaMemcpy(y, dy, b, cudaMemcpyDeviceToHost); cudaFree(dx); cudaFree(dy); }\n"

static inline ch_ck_param fx_scalar(const char *name, ch_scalar t, double lo, double hi)
{
    ch_ck_param p = {0};
    p.name = ch_xstrdup(name);
    p.type = ch_xstrdup(ch_scalar_name(t));
    p.role = CH_ROLE_SCALAR;
    p.elem = t;
    p.lo = lo, p.hi = hi;
    return p;
}

static inline ch_ck_param fx_ptr(const char *name, const char *type, ch_scalar t, ch_dir d,
                                 const char *extent, double lo, double hi)
{
    ch_ck_param p = {0};
    p.name = ch_xstrdup(name);
    p.type = ch_xstrdup(type);
    p.role = strchr(type, '[') ? CH_ROLE_ARRAY : CH_ROLE_POINTER;
    p.elem = t;
    p.dir = d;
    p.extent = ch_xstrdup(extent);
    p.lo = lo, p.hi = hi;
    return p;
}

static inline ch_ck_size fx_size1(const char *n1, long long v1, const char *n2, long long v2)
{
    ch_ck_size s = {0};
    s.n = n2 ? 2 : 1;
    s.names = ch_xcalloc(2, sizeof(char *));
    s.values = ch_xcalloc(2, sizeof(long long));
    s.names[0] = ch_xstrdup(n1);
    s.values[0] = v1;
    if (n2) {
        s.names[1] = ch_xstrdup(n2);
        s.values[1] = v2;
    }
    return s;
}

static inline void fx_free_size(ch_ck_size *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->names[i]);
    free(s->names);
    free(s->values);
}

static inline void fx_free(ch_checklist *c)
{
    for (size_t i = 0; i < c->n_params; i++) {
        free(c->params[i].name);
        free(c->params[i].type);
        free(c->params[i].extent);
        free(c->params[i].index_of);
        free(c->params[i].index_hi);
    }
    free(c->params);
    for (size_t i = 0; i < c->n_smoke; i++)
        fx_free_size(&c->smoke[i]);
    for (size_t i = 0; i < c->n_correctness; i++)
        fx_free_size(&c->correctness[i]);
    free(c->smoke);
    free(c->correctness);
    fx_free_size(&c->tune);
    free(c->name);
    free(c->signature);
    memset(c, 0, sizeof *c);
}

static inline void fx_sizes_1d(ch_checklist *c, const char *n, long long tune)
{
    c->n_smoke = 3;
    c->smoke = ch_xcalloc(3, sizeof(ch_ck_size));
    for (int i = 0; i < 3; i++)
        c->smoke[i] = fx_size1(n, i + 1, NULL, 0);
    c->n_correctness = 3;
    c->correctness = ch_xcalloc(3, sizeof(ch_ck_size));
    c->correctness[0] = fx_size1(n, 1000, NULL, 0);
    c->correctness[1] = fx_size1(n, 4099, NULL, 0);
    c->correctness[2] = fx_size1(n, 100003, NULL, 0);
    c->tune = fx_size1(n, tune, NULL, 0);
}

/* void saxpy(int n, float a, const float *x, float *y): y = a*x + y */
static inline void fx_saxpy(ch_checklist *c, int device)
{
    memset(c, 0, sizeof *c);
    c->name = ch_xstrdup("saxpy");
    c->kind = CH_KIND_C_DEF;
    c->signature = ch_xstrdup("void saxpy(int n, float a, const float *x, float *y)");
    c->n_params = 4;
    c->params = ch_xcalloc(4, sizeof(ch_ck_param));
    c->params[0] = fx_scalar("n", CH_T_INT, 0, 0);
    c->params[1] = fx_scalar("a", CH_T_FLOAT, -2, 2);
    c->params[2] = fx_ptr("x", "const float *", CH_T_FLOAT, CH_DIR_IN, "n", -1, 1);
    c->params[3] = fx_ptr("y", "float *", CH_T_FLOAT, CH_DIR_INOUT, "n", -1, 1);
    c->device = device;
    fx_sizes_1d(c, "n", 1 << 26);
}

/* void gather(int n, int m, const double *src, const int *idx, double *out):
 * out[i] = src[idx[i]], idx in [0, m) */
static inline void fx_gather(ch_checklist *c)
{
    memset(c, 0, sizeof *c);
    c->name = ch_xstrdup("gather");
    c->kind = CH_KIND_SPEC_DECL;
    c->n_params = 5;
    c->params = ch_xcalloc(5, sizeof(ch_ck_param));
    c->params[0] = fx_scalar("n", CH_T_INT, 0, 0);
    c->params[1] = fx_scalar("m", CH_T_INT, 0, 0);
    c->params[2] = fx_ptr("src", "const double *", CH_T_DOUBLE, CH_DIR_IN, "m", -10, 10);
    c->params[3] = fx_ptr("idx", "const int *", CH_T_INT, CH_DIR_IN, "n", 0, 0);
    c->params[3].index_of = ch_xstrdup("src");
    c->params[3].index_hi = ch_xstrdup("m");
    c->params[4] = fx_ptr("out", "double *", CH_T_DOUBLE, CH_DIR_OUT, "n", 0, 0);
    c->n_smoke = 1;
    c->smoke = ch_xcalloc(1, sizeof(ch_ck_size));
    c->smoke[0] = fx_size1("n", 3, "m", 2);
    c->n_correctness = 1;
    c->correctness = ch_xcalloc(1, sizeof(ch_ck_size));
    c->correctness[0] = fx_size1("n", 1001, "m", 77);
    c->tune = fx_size1("n", 1 << 24, "m", 1 << 20);
}

/* void jacobi(int n, int m, const double a[n][m], double b[n][m]) (array params) */
static inline void fx_jacobi(ch_checklist *c)
{
    memset(c, 0, sizeof *c);
    c->name = ch_xstrdup("jacobi");
    c->kind = CH_KIND_C_DEF;
    c->n_params = 4;
    c->params = ch_xcalloc(4, sizeof(ch_ck_param));
    c->params[0] = fx_scalar("n", CH_T_INT, 0, 0);
    c->params[1] = fx_scalar("m", CH_T_INT, 0, 0);
    c->params[2] = fx_ptr("a", "const double [n][m]", CH_T_DOUBLE, CH_DIR_IN, "n*m", -1, 1);
    c->params[3] = fx_ptr("b", "double [n][m]", CH_T_DOUBLE, CH_DIR_INOUT, "n*m", -1, 1);
    c->n_smoke = 3;
    c->smoke = ch_xcalloc(3, sizeof(ch_ck_size));
    for (int i = 0; i < 3; i++)
        c->smoke[i] = fx_size1("n", i + 1, "m", i + 1);
    c->n_correctness = 2;
    c->correctness = ch_xcalloc(2, sizeof(ch_ck_size));
    c->correctness[0] = fx_size1("n", 37, "m", 53);
    c->correctness[1] = fx_size1("n", 301, "m", 203);
    c->tune = fx_size1("n", 4096, "m", 4096);
}

/* void histo(int n, const unsigned char *v, unsigned int *h): integers, exact */
static inline void fx_histo(ch_checklist *c, int device)
{
    memset(c, 0, sizeof *c);
    c->name = ch_xstrdup("histo");
    c->kind = CH_KIND_C_DEF;
    c->n_params = 3;
    c->params = ch_xcalloc(3, sizeof(ch_ck_param));
    c->params[0] = fx_scalar("n", CH_T_INT, 0, 0);
    c->params[1] = fx_ptr("v", "const unsigned char *", CH_T_UCHAR, CH_DIR_IN, "n", 0, 255);
    c->params[2] = fx_ptr("h", "unsigned int *", CH_T_UINT, CH_DIR_OUT, "256", 0, 0);
    c->device = device;
    fx_sizes_1d(c, "n", 1 << 26);
}

/* Builds tests/unit/data/fake_cudart.c (a CUDA runtime without a GPU: host memory, wall-clock
 * events, traces in the working directory) into DIR/libfakecudart.a; returns its path (caller
 * frees) or NULL when it cannot be built. Programs link it with nvcc -cudart=none. */
static inline char *fx_fake_cudart(const char *dir)
{
    const char *src = getenv("CH_CC_SRC") ? getenv("CH_CC_SRC") : ".";
    const char *cuda = ch_file_exists("/usr/local/cuda/include") ? "/usr/local/cuda" : "/usr";
    char *lib = ch_path_join(dir, "libfakecudart.a");
    char *cmd = ch_xasprintf("cc -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Werror -I'%s/include' "
                             "-c -o '%s/fake_cudart.o' '%s/tests/unit/data/fake_cudart.c' && "
                             "ar rcs '%s' '%s/fake_cudart.o'",
                             cuda, dir, src, lib, dir);
    int rc = system(cmd);
    free(cmd);
    if (rc != 0) {
        free(lib);
        return NULL;
    }
    return lib;
}

#endif
