/* Arg-reductions (src/translate/argred.c, argred_cuda.c): a maximum or minimum together with its
 * index plans as a parallel kernel with the tie rule of the C comparison, for int and floating
 * values, strict and non-strict comparisons, the index the counter or an affine expression of
 * it; bodies that only look like one keep the planner's one-thread plan. */
#include <cjson/cJSON.h>

#include "ch/checklist.h"
#include "ch/proc.h"
#include "ch/translate.h"
#include "ch/verify.h"
#include "scan_helpers.h"

typedef struct built {
    ch_entry_list l;
    ch_tr_model *m;
    ch_tr_deps *d;
    ch_tr_plan *p[2]; /* per strategy, NULL where the planner refused */
} built;

/* The model and both strategies' plans of "#pragma harness CLAUSES\nBODY". */
static void build(const char *clauses, const char *body, built *b)
{
    ch_error err;
    char *text = ch_xasprintf("#pragma harness %s\n%s", clauses, body);
    cr_assert_eq(scan_text("t.c", text, CH_LANG_C, &b->l, &err), 0, "scan failed: %s", err.msg);
    free(text);
    cr_assert_eq(b->l.len, 1);
    cr_assert_eq(ch_tr_model_build(&b->l.items[0], &b->m, &err), 0, "model: %s", err.msg);
    cr_assert_eq(ch_tr_deps_compute(b->m, &b->d, &err), 0, "deps: %s", err.msg);
    for (int s = CH_TR_ISL_SCHEDULE; s <= CH_TR_ORIGINAL; s++)
        if (ch_tr_plan_build(b->m, b->d, (ch_tr_strategy)s, 0, &b->p[s], &err) != 0)
            b->p[s] = NULL;
}

static void unbuild(built *b)
{
    for (int s = 0; s < 2; s++)
        ch_tr_plan_free(b->p[s]);
    ch_tr_deps_free(b->d);
    ch_tr_model_free(b->m);
    ch_entry_list_free(&b->l);
}

static char *plan_text(const ch_tr_plan *p)
{
    ch_strbuf s;
    ch_strbuf_init(&s);
    ch_tr_plan_print(&s, p);
    return ch_strbuf_detach(&s);
}

/* The verifier's stage 0 accepts src as a candidate of e: the generated host code stays in the
 * subset candidates are held to (its scratch once viewed a long long * as an int *, and every
 * argmax candidate was refused before it ran). */
static void expect_static_pass(const ch_entry *e, const char *src)
{
    ch_checklist c;
    ch_error err;
    cr_assert_eq(ch_checklist_derive(e, &c, &err), 0, "%s", err.msg);
    ch_strbuf msg;
    ch_strbuf_init(&msg);
    cJSON *details = NULL;
    cr_expect_eq(ch_static_check(&c, src, &msg, &details), 0, "static check: %s\nin:\n%s",
                 msg.data ? msg.data : "", src);
    cJSON_Delete(details);
    ch_strbuf_free(&msg);
    ch_checklist_free(&c);
}

/* Both strategies plan the body as an arg-reduction whose kernel line is `kernel`, and the CUDA
 * holds each of `lines` (NULL-terminated). */
static void expect_argred(const char *clauses, const char *body, const char *kernel,
                          const char *const *lines)
{
    built b = {0};
    build(clauses, body, &b);
    for (int s = 0; s < 2; s++) {
        cr_assert_not_null(b.p[s], "strategy %d refused", s);
        char *t = plan_text(b.p[s]);
        cr_expect_not_null(b.p[s]->argred, "not an arg-reduction:\n%s", t);
        cr_expect_not_null(strstr(t, kernel), "plan:\n%s\nwant: %s", t, kernel);
        free(t);
    }
    ch_tr_cuda_opts o = {.block1 = 256, .block2_x = 32, .block2_y = 8, .grid_cap = 1024};
    char *src = ch_tr_cuda(b.p[CH_TR_ORIGINAL], &o);
    for (size_t i = 0; lines[i]; i++)
        cr_expect_not_null(strstr(src, lines[i]), "missing: %s\nin:\n%s", lines[i], src);
    /* two kernels, the second one block, and no loop left on one thread */
    cr_expect_null(strstr(src, "__launch_bounds__(1)"), "a one-thread kernel:\n%s", src);
    cr_expect_not_null(strstr(src, "_k1<<<1, 256>>>("));
    expect_static_pass(&b.l.items[0], src);
    free(src);
    unbuild(&b);
}

/* Both strategies keep a plan that is not an arg-reduction (or refuse the body). */
static void expect_not_argred(const char *clauses, const char *body)
{
    built b = {0};
    build(clauses, body, &b);
    for (int s = 0; s < 2; s++) {
        if (!b.p[s])
            continue;
        char *t = plan_text(b.p[s]);
        cr_expect_null(b.p[s]->argred, "an arg-reduction:\n%s", t);
        cr_expect_null(strstr(t, "arg-"), "plan:\n%s", t);
        free(t);
    }
    unbuild(&b);
}

#define XR "extent(x : n, r : 1)"

/* The first maximum: `>` never replaces an equal value, so ties go to the smaller index. */
Test(translate_argred, int_max_first)
{
    const char *lines[] = {"return !h || v > w || (v == w && i < j);",
                           "if (ch_h && ch_v > m) {",
                           "        at = i;",
                           "    *r = at;",
                           "const int ch_e = x[i];",
                           NULL};
    expect_argred(XR,
                  "void f(int n, const int *x, int *r)\n{\n    int m = x[0], at = 0;\n"
                  "    for (int i = 1; i < n; i++)\n        if (x[i] > m) {\n"
                  "            m = x[i];\n            at = i;\n        }\n    *r = at;\n}\n",
                  "kernel 0: an arg-maximum on threads (m, at; ties to the first index)", lines);
}

/* `>=` takes an equal value again: the last maximum; the pair's order is the index's reverse
 * on ties, and the initial pair loses a tie to any element. The update order (index first)
 * does not matter. */
Test(translate_argred, int_max_last)
{
    const char *lines[] = {"return !h || v > w || (v == w && i > j);", "if (ch_h && ch_v >= m) {",
                           NULL};
    expect_argred(XR,
                  "void f(int n, const int *x, int *r)\n{\n    int m = x[0];\n    int at = 0;\n"
                  "    for (int i = 1; i < n; i++)\n        if (x[i] >= m) {\n"
                  "            at = i;\n            m = x[i];\n        }\n    *r = at;\n}\n",
                  "kernel 0: an arg-maximum on threads (m, at; ties to the last index)", lines);
}

/* A float argmin from x[lo], the loop after it, the index an affine expression of the counter:
 * NaN elements are skipped (the C comparison is false for them). */
Test(translate_argred, float_min_affine_index)
{
    const char *lines[] = {"return !h || v < w || (v == w && i < j);",
                           "if (ch_e != ch_e)",
                           "const float ch_e = x[i];",
                           "        at = 2 * i + 1;",
                           "float m = x[lo];",
                           "int at = 2 * lo + 1;",
                           "(long long)(lo + 1)",
                           NULL};
    expect_argred("extent(x : n, r : 1)",
                  "void f(int n, int lo, const float *x, int *r)\n{\n    float m = x[lo];\n"
                  "    int at = 2 * lo + 1;\n    for (int i = lo + 1; i < n; i++)\n"
                  "        if (x[i] < m) {\n            m = x[i];\n            at = 2 * i + 1;\n"
                  "        }\n    *r = at;\n}\n",
                  "kernel 0: an arg-minimum on threads (m, at; ties to the first index)", lines);
}

/* A double argmin written `m >= x[i]` (that is x[i] <= m: the last minimum) from a constant,
 * storing both the value and its index, the bound inclusive. */
Test(translate_argred, double_min_last_constant_start)
{
    const char *lines[] = {"return !h || v < w || (v == w && i > j);",
                           "if (ch_h && ch_v <= m) {",
                           "double m = 1.0e300;",
                           "*v = m;",
                           "(long long)(n - 1) + 1",
                           NULL};
    expect_argred("extent(x : n, v : 1, r : 1)",
                  "void f(int n, const double *x, double *v, long *r)\n{\n    double m = 1.0e300;\n"
                  "    long at = -1;\n    for (int i = 0; i <= n - 1; i++)\n"
                  "        if (m >= x[i]) {\n            m = x[i];\n            at = i;\n"
                  "        }\n    *v = m;\n    *r = at;\n}\n",
                  "kernel 0: an arg-minimum on threads (m, at; ties to the last index)", lines);
}

/* The index updated without the value: at is the last i with x[i] > x[0], not an argmax. */
Test(translate_argred, index_without_value)
{
    expect_not_argred(XR, "void f(int n, const int *x, int *r)\n{\n    int m = x[0], at = 0;\n"
                          "    for (int i = 1; i < n; i++)\n        if (x[i] > m)\n"
                          "            at = i;\n    *r = at;\n}\n");
}

/* A third scalar updated in the branch (how many times the maximum grew) depends on the order. */
Test(translate_argred, third_scalar)
{
    expect_not_argred(XR,
                      "void f(int n, const int *x, int *r)\n{\n    int m = x[0], at = 0, k = 0;\n"
                      "    for (int i = 1; i < n; i++)\n        if (x[i] > m) {\n"
                      "            m = x[i];\n            at = i;\n            k = k + 1;\n"
                      "        }\n    *r = at;\n}\n");
}

/* A comparison against something other than m (another array, another scalar). */
Test(translate_argred, other_comparison)
{
    expect_not_argred("extent(x : n, y : n, r : 1)",
                      "void f(int n, const int *x, const int *y, int *r)\n{\n"
                      "    int m = x[0], at = 0;\n    for (int i = 1; i < n; i++)\n"
                      "        if (x[i] > y[i]) {\n            m = x[i];\n            at = i;\n"
                      "        }\n    *r = at;\n}\n");
    expect_not_argred(XR, "void f(int n, const int *x, int *r)\n{\n    int m = x[0], at = 0;\n"
                          "    for (int i = 1; i < n; i++)\n        if (x[i] > at) {\n"
                          "            m = x[i];\n            at = i;\n        }\n"
                          "    *r = at;\n}\n");
}

/* The value kept is not the one compared: m = x[i] + 1 against x[i] > m. */
Test(translate_argred, other_value)
{
    expect_not_argred(XR, "void f(int n, const int *x, int *r)\n{\n    int m = x[0], at = 0;\n"
                          "    for (int i = 1; i < n; i++)\n        if (x[i] > m) {\n"
                          "            m = x[i] + 1;\n            at = i;\n        }\n"
                          "    *r = at;\n}\n");
}
