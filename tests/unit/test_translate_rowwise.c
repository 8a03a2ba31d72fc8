/* A block per row (src/translate/rowwise.c): row-wise nests (softmax, layer norm, RMS norm, row
 * sums) in the C order, planned a warp per row (CH_TR_WARP_ROWS) and printed with
 * ch_tr_cuda_opts.block_rows, as the builtin's variant 11 asks. For softmax, layer norm and a
 * row sum the kernel and its launch equal the golden files tests/golden/rowwise/NAME.cu byte for
 * byte (a reader can check them: each loop over a row strided over the block, each reduction a
 * warp-shuffle and shared-memory block reduction handed to every thread, a barrier after each
 * loop over the row); nests of other shapes are not printed so (negative tests). nvcc compiles
 * the whole candidates in tests/integration/rowwise.t.
 *
 * CH_GOLDEN_UPDATE=1 rewrites the golden files from the current output (review the diff). */
#include "ch/fsutil.h"
#include "ch/translate.h"
#include "scan_helpers.h"

/* The CUDA of the body in the C order with a warp per row where the plan allows it, printed
 * under o (malloc'd). Paths of the temporary source read "t.c". */
static char *translate_rows(const char *clauses, const char *body, const ch_tr_cuda_opts *o)
{
    ch_entry_list l;
    ch_error err;
    char *text = ch_xasprintf("#pragma harness %s\n%s", clauses, body);
    cr_assert_eq(scan_text("t.c", text, CH_LANG_C, &l, &err), 0, "scan failed: %s", err.msg);
    free(text);
    cr_assert_eq(l.len, 1);
    ch_tr_model *m = NULL;
    ch_tr_deps *d = NULL;
    ch_tr_plan *p = NULL;
    cr_assert_eq(ch_tr_model_build(&l.items[0], &m, &err), 0, "model: %s", err.msg);
    cr_assert_eq(ch_tr_deps_compute(m, &d, &err), 0, "deps: %s", err.msg);
    cr_assert_eq(ch_tr_plan_build(m, d, CH_TR_ORIGINAL, CH_TR_WARP_ROWS, &p, &err), 0, "plan: %s",
                 err.msg);
    char *src = ch_tr_cuda(p, o);
    ch_strbuf rel;
    ch_strbuf_init(&rel);
    const char *file = l.items[0].file;
    for (const char *at = src, *hit; *at; at = hit + strlen(file)) {
        hit = strstr(at, file);
        if (!hit) {
            ch_strbuf_adds(&rel, at);
            break;
        }
        ch_strbuf_add(&rel, at, (size_t)(hit - at));
        ch_strbuf_adds(&rel, "t.c");
    }
    free(src);
    ch_tr_plan_free(p);
    ch_tr_deps_free(d);
    ch_tr_model_free(m);
    ch_entry_list_free(&l);
    return ch_strbuf_detach(&rel);
}

/* The body printed a block per row when block_rows, with 16 values of a row a thread in
 * registers when regs (variant 12); how many kernels went a block per row, or kept their rows
 * in registers when regs. */
static char *rowwise_cuda(const char *clauses, const char *body, int block_rows, int regs,
                          int *counted)
{
    *counted = 0;
    ch_tr_cuda_opts o = {.block1 = 256,
                         .block2_x = 32,
                         .block2_y = 8,
                         .grid_cap = 2147483647LL,
                         .block_rows = block_rows,
                         .n_block_rows = regs ? NULL : counted,
                         .row_regs = regs ? 16 : 0,
                         .n_row_regs = regs ? counted : NULL};
    return translate_rows(clauses, body, &o);
}

static char *rows_cuda(const char *clauses, const char *body, int block_rows, int *n_block_rows)
{
    return rowwise_cuda(clauses, body, block_rows, 0, n_block_rows);
}

static char *regs_cuda(const char *clauses, const char *body, int block_rows, int *n_row_regs)
{
    return rowwise_cuda(clauses, body, block_rows, 1, n_row_regs);
}

/* The kernels and the device launcher of a candidate: from the first kernel's comment to the
 * end of NAME_device_launcher (malloc'd). */
static char *kernels_part(const char *src)
{
    const char *from = strstr(src, "/* Kernel 0 runs");
    const char *launcher = strstr(src, "_device_launcher(");
    cr_assert(from && launcher && launcher > from, "%s", src);
    const char *end = strstr(launcher, "\n}\n");
    cr_assert(end, "%s", src);
    return ch_xstrndup(from, (size_t)(end + 3 - from));
}

static void expect_golden(const char *name, const char *src)
{
    char *part = kernels_part(src);
    const char *dir = getenv("CH_CC_SRC") ? getenv("CH_CC_SRC") : ".";
    char *path = ch_xasprintf("%s/tests/golden/rowwise/%s.cu", dir, name);
    ch_error err;
    if (getenv("CH_GOLDEN_UPDATE"))
        cr_assert_eq(ch_write_file_atomic(path, part, strlen(part), 0, &err), 0, "%s", err.msg);
    char *want = NULL;
    size_t n = 0;
    cr_assert_eq(ch_read_file(path, &want, &n, &err), 0, "%s", err.msg);
    cr_expect_str_eq(part, want, "%s differs; got:\n%s", path, part);
    free(want);
    free(path);
    free(part);
}

static void expect_has(const char *src, const char *line)
{
    cr_expect(strstr(src, line), "missing \"%s\" in:\n%s", line, src);
}

static int count_of(const char *src, const char *what)
{
    int n = 0;
    for (const char *at = strstr(src, what); at; at = strstr(at + 1, what))
        n++;
    return n;
}

static const char *softmax = "void softmax(int m, int n, const float *x, float *y)\n{\n"
                             "    for (int r = 0; r < m; r++) {\n"
                             "        float mx = x[r * n];\n"
                             "        for (int j = 1; j < n; j++)\n"
                             "            mx = fmaxf(mx, x[r * n + j]);\n"
                             "        float s = 0;\n"
                             "        for (int j = 0; j < n; j++) {\n"
                             "            y[r * n + j] = expf(x[r * n + j] - mx);\n"
                             "            s += y[r * n + j];\n"
                             "        }\n"
                             "        for (int j = 0; j < n; j++)\n"
                             "            y[r * n + j] /= s;\n"
                             "    }\n}\n";

/* Softmax: one block per row (blockIdx.x, grid-stride over the rows), three loops over the row
 * strided by blockDim.x from threadIdx.x; the max starts on every thread from x[r][0] (max is
 * exact in any order), the sum only on thread 0 (the others start from 0); each is combined
 * over the block and read back from shared memory by every thread before the next loop uses
 * it; a barrier after each loop; a grid of one block per row. */
Test(translate_rowwise, softmax)
{
    int n = 0;
    char *src = rows_cuda("extent(x: m * n, y: m * n) tol(1e-5)", softmax, 1, &n);
    cr_expect_eq(n, 1, "%s", src);
    expect_has(src, "const long long ch_g0 = blockIdx.x;");
    expect_has(src, "const long long ch_n0 = gridDim.x;");
    expect_has(src, "for (long long c1 = 1 + ch_lane; (c1 < n); c1 += blockDim.x) {");
    expect_has(src, "/* max: each thread may start from mx's value */");
    expect_has(src, "if (ch_lane != 0) /* thread 0 keeps the start value */\n            s = 0;");
    expect_has(src, "mx = fmaxf(mx, __shfl_down_sync(0xffffffffu, mx, ch_o));");
    expect_has(src, "s += __shfl_down_sync(0xffffffffu, s, ch_o);");
    expect_has(src, "mx = ch_part[32];");
    expect_has(src, "s = ch_part[32];");
    expect_has(src, "ch_grid(softmax_blocks(ch_e0, 1, 2147483647LL))");
    cr_expect_eq(count_of(src, "__shared__ float ch_part[33];"), 2, "%s", src);
    /* after each of the three loops, and twice inside each of the two reductions */
    cr_expect_eq(count_of(src, "__syncthreads();"), 3 + 2 * 2, "%s", src);
    cr_expect(!strstr(src, "__syncwarp"), "%s", src);
    expect_golden("softmax", src);
    free(src);

    /* the same plan printed a warp per row (variant 4) is not counted */
    src = rows_cuda("extent(x: m * n, y: m * n) tol(1e-5)", softmax, 0, &n);
    cr_expect_eq(n, 0, "%s", src);
    expect_has(src, ">> 5;");
    cr_expect(!strstr(src, "ch_part"), "%s", src);
    free(src);
}

/* Layer norm: the mean's sum, then the variance's sum of squares (which reads the mean: the
 * first reduction's result must reach every thread), then the elementwise write with the
 * row's gain and bias; y[r][j] is written by every thread's share, never by thread 0 alone. */
Test(translate_rowwise, layer_norm)
{
    int n = 0;
    char *src = rows_cuda(
        "extent(x: m * n, g: n, b: n, y: m * n) tol(1e-4)",
        "void layernorm(int m, int n, const float *x, const float *g, const float *b, float *y)\n"
        "{\n"
        "    for (int r = 0; r < m; r++) {\n"
        "        float mean = 0;\n"
        "        for (int j = 0; j < n; j++)\n"
        "            mean += x[r * n + j];\n"
        "        mean = mean / n;\n"
        "        float var = 0;\n"
        "        for (int j = 0; j < n; j++)\n"
        "            var += (x[r * n + j] - mean) * (x[r * n + j] - mean);\n"
        "        float inv = 1.0f / sqrtf(var / n + 1e-5f);\n"
        "        for (int j = 0; j < n; j++)\n"
        "            y[r * n + j] = (x[r * n + j] - mean) * inv * g[j] + b[j];\n"
        "    }\n}\n",
        1, &n);
    cr_expect_eq(n, 1, "%s", src);
    cr_expect_eq(count_of(src, "__shared__ float ch_part[33];"), 2, "%s", src);
    expect_has(src, "mean = ch_part[32];");
    expect_has(src, "var = ch_part[32];");
    /* the mean is divided after the block's sum, on every thread */
    const char *sum = strstr(src, "mean = ch_part[32];");
    const char *div = strstr(src, "mean = mean / n;");
    cr_expect(sum && div && sum < div, "%s", src);
    cr_expect(!strstr(src, "if (ch_lane == 0)"), "%s", src);
    expect_golden("layernorm", src);
    free(src);
}

/* A row sum: one reduction, then thread 0 alone stores out[r], followed by a barrier (the next
 * row's loop does not read out, but every statement that one thread writes is followed by one:
 * the shape is the same for all). */
Test(translate_rowwise, row_sum)
{
    int n = 0;
    char *src = rows_cuda("extent(a: m * n, out: m) tol(1e-5)",
                          "void rowsum(int m, int n, const float *a, float *out)\n{\n"
                          "    for (int i = 0; i < m; i++) {\n"
                          "        float s = 0;\n"
                          "        for (int j = 0; j < n; j++)\n"
                          "            s += a[i * n + j];\n"
                          "        out[i] = s;\n"
                          "    }\n}\n",
                          1, &n);
    cr_expect_eq(n, 1, "%s", src);
    expect_has(src, "if (ch_lane == 0) {\n                out[i] = s;");
    expect_golden("rowsum", src);
    free(src);
}

/* An integer row sum (no tol() needed: integer sums are exact in any order), a float row min
 * (exact) and a double RMS norm: the shared copies of each type, the identity of each sum, and
 * for the min the warps' count padded with warp 0's value. */
Test(translate_rowwise, types)
{
    int n = 0;
    char *src = rows_cuda("extent(a: m * n, out: m)",
                          "void introw(int m, int n, const int *a, int *out)\n{\n"
                          "    for (int i = 0; i < m; i++) {\n"
                          "        int v = 0;\n"
                          "        for (int j = 0; j < n; j++)\n"
                          "            v += a[i * n + j];\n"
                          "        out[i] = v;\n"
                          "    }\n}\n",
                          1, &n);
    cr_expect_eq(n, 1, "%s", src);
    expect_has(src, "__shared__ int ch_part[33];");
    expect_has(src, "v = threadIdx.x < (blockDim.x >> 5) ? ch_part[threadIdx.x] : (int)0;");
    free(src);

    src = rows_cuda("extent(a: m * n, out: m)",
                    "void rowmin(int m, int n, const float *a, float *out)\n{\n"
                    "    for (int i = 0; i < m; i++) {\n"
                    "        float v = a[i * n];\n"
                    "        for (int j = 1; j < n; j++)\n"
                    "            v = fminf(v, a[i * n + j]);\n"
                    "        out[i] = v;\n"
                    "    }\n}\n",
                    1, &n);
    cr_expect_eq(n, 1, "%s", src);
    expect_has(src, "v = fminf(v, __shfl_down_sync(0xffffffffu, v, ch_o));");
    expect_has(src, "v = ch_part[threadIdx.x < (blockDim.x >> 5) ? threadIdx.x : 0];");
    free(src);

    src = rows_cuda("extent(x: m * n, y: m * n) tol(1e-9)",
                    "void rmsnorm(int m, int n, const double *x, double *y)\n{\n"
                    "    for (int i = 0; i < m; i++) {\n"
                    "        double ss = 0;\n"
                    "        for (int j = 0; j < n; j++)\n"
                    "            ss += x[i * n + j] * x[i * n + j];\n"
                    "        double k = 1.0 / sqrt(ss / n + 1e-6);\n"
                    "        for (int j = 0; j < n; j++)\n"
                    "            y[i * n + j] = x[i * n + j] * k;\n"
                    "    }\n}\n",
                    1, &n);
    cr_expect_eq(n, 1, "%s", src);
    expect_has(src, "__shared__ double ch_part[33];");
    expect_has(src, "ss = threadIdx.x < (blockDim.x >> 5) ? ch_part[threadIdx.x] : (double)0;");
    free(src);
}

/* Nests that must not go a block per row: a float sum without tol() (reordering it would
 * change the result's rounding), a sum into an array element rather than a local scalar, rows
 * that depend on the previous row, and a plain 2-D elementwise nest (no loop over a row below
 * a mapped one): each keeps its ordinary mapping, and no kernel is counted. */
Test(translate_rowwise, refused)
{
    static const char *const bodies[][2] = {
        {"extent(a: m * n, out: m)",
         "void f(int m, int n, const float *a, float *out)\n{\n"
         "    for (int i = 0; i < m; i++) {\n        float s = 0;\n"
         "        for (int j = 0; j < n; j++)\n            s += a[i * n + j];\n"
         "        out[i] = s;\n    }\n}\n"},
        {"extent(a: m * n, out: m) tol(1e-5)",
         "void f(int m, int n, const float *a, float *out)\n{\n"
         "    for (int i = 0; i < m; i++) {\n        out[i] = 0;\n"
         "        for (int j = 0; j < n; j++)\n            out[i] += a[i * n + j];\n"
         "    }\n}\n"},
        {"extent(a: m * n) tol(1e-5)",
         "void f(int m, int n, float *a)\n{\n"
         "    for (int i = 1; i < m; i++) {\n        float s = 0;\n"
         "        for (int j = 0; j < n; j++)\n            s += a[(i - 1) * n + j];\n"
         "        for (int j = 0; j < n; j++)\n            a[i * n + j] += s;\n    }\n}\n"},
        {"extent(a: m * n, b: m * n)",
         "void f(int m, int n, const float *a, float *b)\n{\n"
         "    for (int i = 0; i < m; i++)\n        for (int j = 0; j < n; j++)\n"
         "            b[i * n + j] = 2.0f * a[i * n + j];\n}\n"},
    };
    for (size_t i = 0; i < sizeof bodies / sizeof *bodies; i++) {
        int n = -1;
        char *src = rows_cuda(bodies[i][0], bodies[i][1], 1, &n);
        cr_expect_eq(n, 0, "body %zu:\n%s", i, src);
        cr_expect(!strstr(src, "ch_part") && !strstr(src, "__syncthreads"), "body %zu:\n%s", i,
                  src);
        free(src);
    }
}

/* --- rows in registers (src/translate/rowregs.c, variant 12) --- */

/* Softmax with its rows in registers: each loop over the row becomes 16 unrolled steps of
 * element ch_k * blockDim.x + t under the loop's own bounds (from 1 for the max), x is read
 * through its registers in both loops that read it (x[r][0] before them, outside any loop over
 * the row, from memory), y is written to registers (a plain write: no load), read back by the
 * sum, divided in place (an update: loaded first if it was not written) and stored once at the
 * row's end. Rows longer than 16 x blockDim.x take the block-per-row path (variant 11's loops),
 * chosen per row by a check of every loop's end. */
Test(translate_rowwise, softmax_in_registers)
{
    int n = 0;
    char *src = regs_cuda("extent(x: m * n, y: m * n) tol(1e-5)", softmax, 1, &n);
    cr_expect_eq(n, 1, "%s", src);
    expect_has(src, "ch_fits = !(c1 < n) && !(c1 < n) && !(c1 < n);");
    expect_has(src, "const long long c1 = (long long)16 * blockDim.x;");
    expect_has(src, "float ch_reg_x[16] = {0};\n            unsigned ch_have_x = 0u;\n");
    expect_has(src, "unsigned ch_have_y = 0u, ch_dirty_y = 0u;");
    expect_has(src, "const long long c1 = (long long)ch_k * blockDim.x + ch_lane;\n"
                    "                if (c1 >= 1 && (c1 < n)) {");
    expect_has(src, "mx = fmaxf(mx, ch_row_get(ch_reg_x, ch_have_x, ch_k, &x[r * n + j]));");
    expect_has(src, "ch_row_put(ch_reg_y, ch_have_y, ch_dirty_y, ch_k, &y[r * n + j], 0) = "
                    "expf(ch_row_get(ch_reg_x, ch_have_x, ch_k, &x[r * n + j]) - mx);");
    expect_has(src, "s += ch_row_get(ch_reg_y, ch_have_y, ch_k, &y[r * n + j]);");
    expect_has(src, "ch_row_put(ch_reg_y, ch_have_y, ch_dirty_y, ch_k, &y[r * n + j], 1) /= s;");
    expect_has(src, "if (ch_dirty_y >> ch_k & 1u) {");
    expect_has(src, "y[((int)c0) * n + ((int)c1)] = ch_reg_y[ch_k];");
    /* the fallback is the block-per-row kernel's loop */
    expect_has(src, "for (long long c1 = 1 + ch_lane; (c1 < n); c1 += blockDim.x) {");
    /* x[r][0], outside the loops over the row, from memory on both paths */
    cr_expect_eq(count_of(src, "const int r = (int)c0;\n                mx = x[r * n];"), 2, "%s",
                 src);
    cr_expect_eq(count_of(src, "#pragma unroll"), 4, "%s", src);
    /* the helpers once, the block's barriers on both paths */
    cr_expect_eq(count_of(src, "static __device__ __forceinline__ T ch_row_get("), 1, "%s", src);
    cr_expect_eq(count_of(src, "__syncthreads();"), 2 * (3 + 2 * 2), "%s", src);
    expect_golden("softmax_regs", src);
    free(src);

    /* a warp per row keeps no registers */
    src = regs_cuda("extent(x: m * n, y: m * n) tol(1e-5)", softmax, 0, &n);
    cr_expect_eq(n, 0, "%s", src);
    cr_expect(!strstr(src, "ch_row_"), "%s", src);
    free(src);
}

/* A write of an element its own statement reads (y = y / s) is an update: the register is
 * loaded before the read finds it marked, whichever side the compiler evaluates first. */
Test(translate_rowwise, registers_read_before_write)
{
    int n = 0;
    char *src = regs_cuda("extent(y: m * n) tol(1e-5)",
                          "void f(int m, int n, float *y)\n{\n"
                          "    for (int i = 0; i < m; i++) {\n        float s = 0;\n"
                          "        for (int j = 0; j < n; j++)\n            s += y[i * n + j];\n"
                          "        for (int j = 0; j < n; j++)\n"
                          "            y[i * n + j] = y[i * n + j] / s;\n    }\n}\n",
                          1, &n);
    cr_expect_eq(n, 1, "%s", src);
    expect_has(src, "ch_row_put(ch_reg_y, ch_have_y, ch_dirty_y, ch_k, &y[i * n + j], 1) = "
                    "ch_row_get(ch_reg_y, ch_have_y, ch_k, &y[i * n + j]) / s;");
    free(src);
}

/* What stays out of registers: a written array that the loops over the row reach through two
 * spellings of the element (y[i * n + j], then y[n * i + j]: each access of an array in registers
 * must be the same, so that it is the thread's own element), an array read at a
 * neighbour of the element (x[i][j + 1], another thread's), and a kernel whose arrays are all
 * so (a column sum: a[j][i]) keeps none and is not counted. */
Test(translate_rowwise, registers_refused)
{
    int n = 0;
    char *src = regs_cuda("extent(x: m * n, y: m * n, out: m) tol(1e-5)",
                          "void f(int m, int n, const float *x, float *y, float *out)\n{\n"
                          "    for (int i = 0; i < m; i++) {\n        float s = 0;\n"
                          "        for (int j = 0; j < n; j++)\n"
                          "            y[i * n + j] = 2.0f * x[i * n + j];\n"
                          "        for (int j = 0; j < n; j++)\n            s += y[n * i + j];\n"
                          "        out[i] = s;\n    }\n}\n",
                          1, &n);
    cr_expect_eq(n, 1, "%s", src);
    expect_has(src, "float ch_reg_x[16] = {0};");
    expect_has(src, "s += y[n * i + j];");
    cr_expect(!strstr(src, "ch_reg_y"), "%s", src);
    free(src);

    src = regs_cuda("extent(x: m * n, out: m) tol(1e-5)",
                    "void f(int m, int n, const float *x, float *out)\n{\n"
                    "    for (int i = 0; i < m; i++) {\n        float s = 0;\n"
                    "        for (int j = 0; j < n - 1; j++)\n"
                    "            s += x[i * n + j] * x[i * n + j + 1];\n"
                    "        out[i] = s;\n    }\n}\n",
                    1, &n);
    cr_expect_eq(n, 0, "%s", src);
    cr_expect(!strstr(src, "ch_reg_x") && strstr(src, "ch_part"), "%s", src);
    free(src);

    src = regs_cuda("extent(a: m * n, out: m) tol(1e-5)",
                    "void f(int m, int n, const float *a, float *out)\n{\n"
                    "    for (int i = 0; i < n; i++) {\n        float s = 0;\n"
                    "        for (int j = 0; j < m; j++)\n            s += a[j * n + i];\n"
                    "        out[i] = s;\n    }\n}\n",
                    1, &n);
    cr_expect_eq(n, 0, "%s", src);
    cr_expect(!strstr(src, "ch_row_"), "%s", src);
    free(src);
}
