/* Unit tests of elementwise-map recognition (src/checklist/map.c) on bodies scanned from real C:
 * what the runtime may cut into chunks, and the near misses where a chunk would compute
 * something else (the counter or the size read as a value, a neighbour, state carried between
 * elements, buffers of another length). */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "ch/checklist.h"
#include "scan_helpers.h"

/* The map size of the one entry in src, or NULL; "!" when scanning failed. */
static char *map_of(const char *src)
{
    ch_entry_list l;
    ch_error err = {0};
    if (scan_text("m.c", src, CH_LANG_C, &l, &err) != 0 || l.len != 1) {
        cr_log_error("%s", err.msg);
        return ch_xstrdup("!");
    }
    const char *size = ch_checklist_map_size(&l.items[0]);
    char *out = size ? ch_xstrdup(size) : NULL;
    ch_checklist c;
    cr_assert_eq(ch_checklist_derive(&l.items[0], &c, &err), 0, "%s", err.msg);
    cr_assert((out == NULL) == (c.map == NULL) && (!out || strcmp(out, c.map) == 0),
              "derive keeps the same answer");
    ch_checklist_free(&c);
    ch_entry_list_free(&l);
    return out;
}

static void expect_map(const char *src, const char *size)
{
    char *got = map_of(src);
    cr_expect(got && strcmp(got, size) == 0, "want a map over %s, got %s:\n%s", size,
              got ? got : "none", src);
    free(got);
}

static void expect_not_map(const char *src)
{
    char *got = map_of(src);
    cr_expect_null(got, "not a map, got one over %s:\n%s", got, src);
    free(got);
}

Test(map, elementwise_bodies_are_maps)
{
    expect_map("#pragma harness\n"
               "void saxpy(int n, float a, const float *x, float *y)\n"
               "{\n    for (int i = 0; i < n; i++)\n        y[i] = a * x[i] + y[i];\n}\n",
               "n");
    /* locals inside the body, a condition, a library call, ++i, long size, two outputs */
    expect_map("#include <math.h>\n#pragma harness\n"
               "void f(long m, float lo, const float *x, float *y, double *z)\n{\n"
               "    for (long k = 0; k < m; ++k) {\n"
               "        float v = x[k] > lo ? x[k] : lo;\n"
               "        if (v > 1.0f)\n            v = sqrtf(v);\n"
               "        y[k] = v;\n        z[k] += (double)v * 2.0;\n    }\n}\n",
               "m");
    /* the counter declared before the loop, i += 1 */
    expect_map("#pragma harness\nvoid g(int n, const int *a, int *b)\n{\n    int i;\n"
               "    for (i = 0; i < n; i += 1)\n        b[i] = a[i] & 7;\n}\n",
               "n");
}

Test(map, near_misses_are_not)
{
    /* the counter as a value: a chunk would see its own i */
    expect_not_map("#pragma harness\nvoid f(int n, float *y)\n"
                   "{\n    for (int i = 0; i < n; i++)\n        y[i] = (float)i;\n}\n");
    /* the size as a value */
    expect_not_map("#pragma harness\nvoid f(int n, const float *x, float *y)\n"
                   "{\n    for (int i = 0; i < n; i++)\n        y[i] = x[i] / n;\n}\n");
    /* a neighbour */
    expect_not_map("#pragma harness\nvoid f(int n, const float *x, float *y)\n"
                   "{\n    for (int i = 0; i < n - 1; i++)\n        y[i] = x[i + 1];\n}\n");
    expect_not_map(
        "#pragma harness extent(x: n + 1, y: n)\nvoid f(int n, const float *x, float *y)\n"
        "{\n    for (int i = 0; i < n; i++)\n        y[i] = x[i + 1] - x[i];\n}\n");
    /* state carried from one element to the next */
    expect_not_map("#pragma harness\nvoid f(int n, const float *x, float *y)\n"
                   "{\n    float s = 0;\n    for (int i = 0; i < n; i++) {\n"
                   "        s += x[i];\n        y[i] = s;\n    }\n}\n");
    /* a reduction into a scalar output */
    expect_not_map("#pragma harness extent(x: n, s: 1)\nvoid f(int n, const float *x, float *s)\n"
                   "{\n    for (int i = 0; i < n; i++)\n        s[0] += x[i];\n}\n");
    /* a buffer of another length */
    expect_not_map("#pragma harness extent(x: 2 * n, y: n)\n"
                   "void f(int n, const float *x, float *y)\n"
                   "{\n    for (int i = 0; i < n; i++)\n        y[i] = x[2 * i];\n}\n");
    /* two loops, a loop starting elsewhere, a nest */
    expect_not_map("#pragma harness\nvoid f(int n, float *y)\n{\n"
                   "    for (int i = 0; i < n; i++)\n        y[i] = 1;\n"
                   "    for (int i = 0; i < n; i++)\n        y[i] *= 2;\n}\n");
    expect_not_map("#pragma harness\nvoid f(int n, const float *x, float *y)\n"
                   "{\n    for (int i = 1; i < n; i++)\n        y[i] = x[i];\n}\n");
    expect_not_map("#pragma harness\nvoid f(int n, const float *x, float *y)\n{\n"
                   "    for (int i = 0; i < n; i++)\n        for (int j = 0; j < n; j++)\n"
                   "            y[i * n + j] = x[i * n + j];\n}\n");
    /* a buffer handed to a call */
    expect_not_map("void h(const float *p, float *q, int i);\n"
                   "#pragma harness extent(x: n, y: n)\n"
                   "void f(int n, const float *x, float *y)\n"
                   "{\n    for (int i = 0; i < n; i++)\n        h(x, y, 0);\n}\n");
}
