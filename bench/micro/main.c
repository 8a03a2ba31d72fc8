/* Driver of the microbenchmarks (bench/speed.sh): times one micro's call as a program makes it
 * (host pointers in and out, whatever path a harness dispatcher takes, copies included) and
 * prints one line per micro for the script to read. The same driver links the gcc -O3 build
 * of the micro sources (the one-core baseline) and the ch-cc build (the harness).
 *
 *   micro [-small] NAME... | all   per micro: NAME first_ms median_ms reps bytes flops sum scale
 *   micro -sizes                   per micro: NAME dim=value ... (the pragmas' tune() values)
 *
 * first_ms is the first call (for a harness build it includes the device set-up); median_ms
 * the median of the calls after it, repeated up to 20 times while MICRO_SECONDS (default 2)
 * last, or the first call's time when that alone took longer. sum and scale are taken after
 * the first call on freshly initialised data, so two builds can be compared: sum is the output
 * weighted by (1 + index mod 97), so that a transposed or shifted output changes it, and scale
 * the same sum of magnitudes (the comparison's yardstick). bytes is the least traffic a kernel
 * needs (each input read once, each output written once), flops the floating-point operations
 * of a GEMM (2 ni nj nk; 0 for the memory-bound micros). -small runs every micro at odd sizes
 * that are not multiples of any tile, for the check that needs no GPU. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "micro.h"

/* What one micro does, at the sizes d[] (the order of its tune() clause). */
typedef struct ops {
    void (*setup)(const long *d); /* allocates buf[] and fills the inputs */
    void (*call)(const long *d);  /* one call of the function */
    void (*result)(const long *d, double *sum, double *scale);
    double (*bytes)(const long *d);
    double (*flops)(const long *d);
} ops;

typedef struct micro {
    const char *name;
    const char *dim[3]; /* the parameters tune() names, in the pragma's order */
    long full[3];       /* the tune() sizes */
    long small[3];      /* odd sizes for the check without a GPU */
    const ops *op;
} micro;

/* The buffers of the micro being run; setup allocates them, main frees them. */
static void *buf[3];

static void *alloc(size_t count, size_t size)
{
    void *p = calloc(count, size);
    if (!p) {
        fprintf(stderr, "micro: out of memory allocating %zu x %zu bytes\n", count, size);
        exit(2);
    }
    return p;
}

/* A fixed LCG, so every build and every run sees the same inputs. */
static unsigned seed;

static double rnd(void)
{
    seed = seed * 1103515245u + 12345u;
    return (double)((seed >> 8) & 0xffff) / 65536.0;
}

static float *floats(long count, double lo, double hi)
{
    float *p = alloc((size_t)count, sizeof *p);
    for (long i = 0; i < count; i++)
        p[i] = (float)(lo + (hi - lo) * rnd());
    return p;
}

static double *doubles(long count, double lo, double hi)
{
    double *p = alloc((size_t)count, sizeof *p);
    for (long i = 0; i < count; i++)
        p[i] = lo + (hi - lo) * rnd();
    return p;
}

static void weigh(double v, long i, double *sum, double *scale)
{
    double w = 1 + i % 97;
    *sum += w * v;
    *scale += w * fabs(v);
}

static void result_floats(const float *p, long count, double *sum, double *scale)
{
    for (long i = 0; i < count; i++)
        weigh(p[i], i, sum, scale);
}

static double no_flops(const long *d)
{
    (void)d;
    return 0;
}

/* ---- 1-D: copy, saxpy, dot (d[0] = n) ----------------------------------------------------- */

static void setup_two(const long *d)
{
    buf[0] = floats(d[0], 0, 1);
    buf[1] = floats(d[0], 0, 1);
}

static void call_copy(const long *d)
{
    copy((int)d[0], buf[0], buf[1]);
}

static void call_saxpy(const long *d)
{
    saxpy((int)d[0], 2.5f, buf[0], buf[1]);
}

static void result_second(const long *d, double *sum, double *scale)
{
    result_floats(buf[1], d[0], sum, scale);
}

static double bytes_copy(const long *d)
{
    return 8.0 * d[0];
}

static double bytes_saxpy(const long *d)
{
    return 12.0 * d[0];
}

static void setup_dot(const long *d)
{
    setup_two(d);
    buf[2] = alloc(1, sizeof(double));
}

static void call_dot(const long *d)
{
    dot((int)d[0], buf[0], buf[1], buf[2]);
}

static void result_dot(const long *d, double *sum, double *scale)
{
    (void)d;
    weigh(*(double *)buf[2], 0, sum, scale);
}

/* ---- 2-D: softmax, transpose, stencil (d[0] = m rows, d[1] = n columns) -------------------- */

static void setup_softmax(const long *d)
{
    buf[0] = floats(d[0] * d[1], -8, 8);
    buf[1] = floats(d[0] * d[1], 0, 0);
}

static void call_softmax(const long *d)
{
    softmax((int)d[0], (int)d[1], buf[0], buf[1]);
}

static void setup_grid(const long *d)
{
    buf[0] = floats(d[0] * d[1], 0, 1);
    buf[1] = floats(d[0] * d[1], 0, 1);
}

static void call_transpose(const long *d)
{
    transpose((int)d[0], (int)d[1], buf[0], buf[1]);
}

static void call_stencil(const long *d)
{
    stencil((int)d[0], (int)d[1], buf[0], buf[1]);
}

static void result_grid(const long *d, double *sum, double *scale)
{
    result_floats(buf[1], d[0] * d[1], sum, scale);
}

static double bytes_grid(const long *d)
{
    return 8.0 * d[0] * d[1];
}

/* a read once, only b's interior written */
static double bytes_stencil(const long *d)
{
    return 4.0 * d[0] * d[1] + 4.0 * (d[0] - 2) * (d[1] - 2);
}

/* ---- GEMM: C = alpha*A*B + beta*C (d = ni, nj, nk) ----------------------------------------- */

static void setup_sgemm(const long *d)
{
    buf[0] = floats(d[0] * d[2], -1, 1);
    buf[1] = floats(d[2] * d[1], -1, 1);
    buf[2] = floats(d[0] * d[1], -1, 1);
}

static void call_sgemm(const long *d)
{
    sgemm((int)d[0], (int)d[1], (int)d[2], 1.5f, buf[0], buf[1], 0.5f, buf[2]);
}

static void result_sgemm(const long *d, double *sum, double *scale)
{
    result_floats(buf[2], d[0] * d[1], sum, scale);
}

static void setup_dgemm(const long *d)
{
    buf[0] = doubles(d[0] * d[2], -1, 1);
    buf[1] = doubles(d[2] * d[1], -1, 1);
    buf[2] = doubles(d[0] * d[1], -1, 1);
}

static void call_dgemm(const long *d)
{
    dgemm((int)d[0], (int)d[1], (int)d[2], 1.5, buf[0], buf[1], 0.5, buf[2]);
}

static void result_dgemm(const long *d, double *sum, double *scale)
{
    const double *c = buf[2];
    for (long i = 0; i < d[0] * d[1]; i++)
        weigh(c[i], i, sum, scale);
}

static double gemm_bytes(const long *d, double elem)
{
    return elem * ((double)d[0] * d[2] + (double)d[2] * d[1] + 2.0 * d[0] * d[1]);
}

static double bytes_sgemm(const long *d)
{
    return gemm_bytes(d, 4);
}

static double bytes_dgemm(const long *d)
{
    return gemm_bytes(d, 8);
}

static double flops_gemm(const long *d)
{
    return 2.0 * d[0] * d[1] * d[2];
}

static const ops copy_ops = {setup_two, call_copy, result_second, bytes_copy, no_flops};
static const ops saxpy_ops = {setup_two, call_saxpy, result_second, bytes_saxpy, no_flops};
static const ops dot_ops = {setup_dot, call_dot, result_dot, bytes_copy, no_flops};
static const ops softmax_ops = {setup_softmax, call_softmax, result_grid, bytes_grid, no_flops};
static const ops transpose_ops = {setup_grid, call_transpose, result_grid, bytes_grid, no_flops};
static const ops stencil_ops = {setup_grid, call_stencil, result_grid, bytes_stencil, no_flops};
static const ops sgemm_ops = {setup_sgemm, call_sgemm, result_sgemm, bytes_sgemm, flops_gemm};
static const ops dgemm_ops = {setup_dgemm, call_dgemm, result_dgemm, bytes_dgemm, flops_gemm};

/* The sizes here and the tune() clauses of the sources are the same numbers; the check
 * (tests/integration/bench_micro.t) compares them with ch-cc --harness-list. */
static const micro micros[] = {
    {"copy", {"n"}, {1L << 26}, {100003}, &copy_ops},
    {"saxpy", {"n"}, {1L << 26}, {100003}, &saxpy_ops},
    {"dot", {"n"}, {1L << 26}, {100003}, &dot_ops},
    {"softmax", {"m", "n"}, {16384, 4096}, {37, 1001}, &softmax_ops},
    {"transpose", {"m", "n"}, {8192, 8192}, {301, 257}, &transpose_ops},
    {"stencil", {"m", "n"}, {8192, 8192}, {301, 257}, &stencil_ops},
    {"sgemm", {"ni", "nj", "nk"}, {4096, 4096, 4096}, {67, 45, 53}, &sgemm_ops},
    {"dgemm", {"ni", "nj", "nk"}, {4096, 4096, 4096}, {67, 45, 53}, &dgemm_ops},
};
enum { N_MICROS = sizeof micros / sizeof *micros, MAX_REPS = 20 };

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void run(const micro *m, int small)
{
    const long *d = small ? m->small : m->full;
    const char *env = getenv("MICRO_SECONDS");
    double budget = (env ? atof(env) : 2.0) * 1e3;
    seed = 12345;
    m->op->setup(d);
    double t0 = now_ms();
    m->op->call(d);
    double first = now_ms() - t0, sum = 0, scale = 0;
    m->op->result(d, &sum, &scale);
    double times[MAX_REPS], start = now_ms();
    int reps = 0;
    while (reps < MAX_REPS && now_ms() - start + first < budget) {
        t0 = now_ms();
        m->op->call(d);
        times[reps++] = now_ms() - t0;
    }
    qsort(times, (size_t)reps, sizeof *times, cmp_double);
    double median =
        reps ? (reps % 2 ? times[reps / 2] : (times[reps / 2 - 1] + times[reps / 2]) / 2) : first;
    printf("%s %.4f %.4f %d %.17g %.17g %.17g %.17g\n", m->name, first, median, reps,
           m->op->bytes(d), m->op->flops(d), sum, scale);
    fflush(stdout);
    for (int i = 0; i < 3; i++) {
        free(buf[i]);
        buf[i] = NULL;
    }
}

static void print_sizes(void)
{
    for (int i = 0; i < N_MICROS; i++) {
        printf("%s", micros[i].name);
        for (int k = 0; k < 3 && micros[i].dim[k]; k++)
            printf(" %s=%ld", micros[i].dim[k], micros[i].full[k]);
        printf("\n");
    }
}

static const micro *find(const char *name)
{
    for (int i = 0; i < N_MICROS; i++)
        if (strcmp(micros[i].name, name) == 0)
            return &micros[i];
    return NULL;
}

int main(int argc, char **argv)
{
    int small = 0, ran = 0;
    for (int a = 1; a < argc; a++) {
        if (strcmp(argv[a], "-sizes") == 0) {
            print_sizes();
            ran = 1;
        } else if (strcmp(argv[a], "-small") == 0) {
            small = 1;
        } else if (strcmp(argv[a], "all") == 0) {
            for (int i = 0; i < N_MICROS; i++)
                run(&micros[i], small);
            ran = 1;
        } else if (find(argv[a])) {
            run(find(argv[a]), small);
            ran = 1;
        } else {
            fprintf(stderr, "micro: unknown micro '%s'; the micros are:", argv[a]);
            for (int i = 0; i < N_MICROS; i++)
                fprintf(stderr, " %s", micros[i].name);
            fprintf(stderr, " (or all, -small, -sizes)\n");
            return 2;
        }
    }
    if (!ran) {
        fprintf(stderr, "usage: micro [-small] NAME... | all; micro -sizes\n");
        return 2;
    }
    return 0;
}
