/* Real C in: parameters declared the way people (and PolyBench) write them, and the two scan
 * results that real bodies got wrong. Each test scans a whole file through libclang and
 * compares the printed types, the signature and the "param:direction:extent" summary, which
 * later stages (reference program, scaffold, launcher, checklist) print from. */
#include "ch/cache.h"
#include "scan_helpers.h"

static ch_entry scan_one(const char *src, ch_entry_list *l)
{
    ch_error err;
    cr_assert_eq(scan_text("t.c", src, CH_LANG_C, l, &err), 0, "scan failed: %s", err.msg);
    cr_assert_eq(l->len, 1);
    return l->items[0];
}

/* PolyBench's own macros (utilities/polybench.h), in both of its prototype styles. */
#define PB_MACROS                                                                                  \
    "#ifdef POLYBENCH_USE_C99_PROTO\n"                                                             \
    "# define POLYBENCH_2D(var, dim1, dim2, ddim1, ddim2) var[ddim1][ddim2]\n"                     \
    "# define POLYBENCH_1D(var, dim1, ddim1) var[ddim1]\n"                                         \
    "#else\n"                                                                                      \
    "# define POLYBENCH_2D(var, dim1, dim2, ddim1, ddim2) var[dim1][dim2]\n"                       \
    "# define POLYBENCH_1D(var, dim1, ddim1) var[dim1]\n"                                          \
    "#endif\n"                                                                                     \
    "#define NI 20\n#define NJ 25\n#define DATA_TYPE double\n#define SCALAR_VAL(x) x\n"            \
    "#define _PB_NI NI\n#define _PB_NJ NJ\n"

#define PB_KERNEL                                                                                  \
    "#pragma harness\n"                                                                            \
    "static\nvoid kernel_scale(int ni, int nj, DATA_TYPE alpha,\n"                                 \
    "                  DATA_TYPE POLYBENCH_2D(C, NI, NJ, ni, nj),\n"                               \
    "                  DATA_TYPE POLYBENCH_1D(x, NJ, nj))\n"                                       \
    "{\n  int i, j;\n#pragma scop\n"                                                               \
    "  for (i = 0; i < _PB_NI; i++)\n    for (j = 0; j < _PB_NJ; j++)\n"                           \
    "      C[i][j] = SCALAR_VAL(2.0) * alpha * x[j];\n#pragma endscop\n}\n"

Test(declarators, polybench_macros_fixed_sizes)
{
    ch_entry_list l;
    ch_entry e = scan_one(PB_MACROS PB_KERNEL, &l);
    cr_expect_str_eq(e.signature, "void kernel_scale(int ni, int nj, double alpha, double "
                                  "C[20][25], double x[25])");
    cr_expect_eq(e.params[3].role, CH_ROLE_ARRAY);
    cr_expect_eq(e.params[3].ndims, 2);
    cr_expect_str_eq(e.params[3].dims[0], "20");
    cr_expect_str_eq(e.params[3].dims[1], "25");
    cr_expect(e.is_static);
    /* the extent of a fixed-size array parameter is its declared size; C is written whole */
    char *got = summary(&e);
    cr_expect_str_eq(got, "C:out:500 x:in:25");
    free(got);
    ch_entry_list_free(&l);
}

Test(declarators, polybench_macros_c99_proto)
{
    ch_entry_list l;
    ch_entry e = scan_one("#define POLYBENCH_USE_C99_PROTO\n" PB_MACROS PB_KERNEL, &l);
    cr_expect_str_eq(e.signature, "void kernel_scale(int ni, int nj, double alpha, double "
                                  "C[ni][nj], double x[nj])");
    char *got = summary(&e);
    /* the loops run to the fixed NI x NJ while the arrays are ni x nj: C is not provably
     * written whole for every ni, nj, so it comes back unchanged where the body leaves it */
    cr_expect_str_eq(got, "C:inout:ni*nj x:in:nj");
    free(got);
    ch_entry_list_free(&l);
}

Test(declarators, typedefs_qualifiers_in_any_position)
{
    ch_entry_list l;
    ch_entry e = scan_one("typedef float real;\ntypedef real vec[8];\n"
                          "#pragma harness\n"
                          "void f(int n, real const *restrict a, const real *const b, "
                          "double A[restrict const n], const vec v, real *out)\n"
                          "{ for (int i = 0; i < n; i++) out[i] = a[i] + b[i] + (real)A[i] + v[i "
                          "% 8]; }\n",
                          &l);
    cr_expect_str_eq(e.params[1].type, "const float *restrict");
    cr_expect_str_eq(e.params[2].type, "const float *");
    cr_expect_eq(e.params[3].role, CH_ROLE_ARRAY);
    cr_expect_str_eq(e.params[3].dims[0], "n");
    cr_expect_eq(e.params[4].role, CH_ROLE_ARRAY);
    cr_expect(e.params[4].is_const);
    cr_expect_str_eq(e.params[4].dims[0], "8");
    cr_expect_str_eq(e.signature, "void f(int n, const float *restrict a, const float *b, double "
                                  "A[n], const float v[8], float *out)");
    ch_entry_list_free(&l);
}

Test(declarators, pointer_to_array_has_unsized_outer_dimension)
{
    ch_entry_list l;
    ch_entry e = scan_one("#pragma harness\nvoid f(int n, int m, double (*A)[m])\n"
                          "{ for (int i = 0; i < n; i++) for (int j = 0; j < m; j++) A[i][j] = "
                          "0; }\n",
                          &l);
    cr_expect_eq(e.params[2].role, CH_ROLE_ARRAY);
    cr_assert_eq(e.params[2].ndims, 2);
    cr_expect_str_eq(e.params[2].dims[0], "");
    cr_expect_str_eq(e.params[2].dims[1], "m");
    cr_expect_str_eq(e.params[2].extent, "m*n");
    ch_entry_list_free(&l);
}

Test(declarators, macro_operands_keep_their_operators)
{
    ch_entry_list l;
    ch_entry e = scan_one("#define N 30\n#define _PB_N N\n#define SCALAR_VAL(x) x\n"
                          "#pragma harness\nvoid f(double A[N], double B[N])\n"
                          "{ int i;\n  for (i = 1; i < _PB_N - 1; i++)\n"
                          "    B[i] = SCALAR_VAL(0.5) * (A[i-1] + A[i+1]); }\n",
                          &l);
    /* no opaque construct: the printed body has the operators back */
    cr_expect(strstr(e.body_tokens, "i < 30 - 1") != NULL, "%s", e.body_tokens);
    cr_expect(strstr(e.body_tokens, "0.5 * ( A [ i - 1 ] + A [ i + 1 ] )") != NULL, "%s",
              e.body_tokens);
    ch_entry_list_free(&l);
}

/* ---- written on part of its elements: inout, not out ---- */

static void expect_summary(const char *src, const char *want)
{
    ch_entry_list l;
    ch_entry e = scan_one(src, &l);
    char *got = summary(&e);
    cr_expect_str_eq(got, want, "got %s for %s", got, src);
    free(got);
    ch_entry_list_free(&l);
}

Test(partial_writes, interior_of_a_2d_array)
{
    expect_summary("#pragma harness\nvoid f(int n, const double A[n][n], double B[n][n])\n"
                   "{ for (int i = 1; i < n - 1; i++) for (int j = 1; j < n - 1; j++)\n"
                   "    B[i][j] = A[i][j-1] + A[i][j+1]; }\n",
                   "A:in:n*n B:inout:n*n");
}

Test(partial_writes, triangle)
{
    expect_summary("#pragma harness\nvoid f(int n, double A[n][n])\n"
                   "{ for (int i = 0; i < n; i++) for (int j = 0; j <= i; j++) A[i][j] = 0; }\n",
                   "A:inout:n*n");
}

Test(partial_writes, every_other_element)
{
    expect_summary("#pragma harness\nvoid f(int n, float *y)\n"
                   "{ for (int i = 0; i < n; i++) y[2 * i] = 1.0f; }\n",
                   "y:inout:2*n-1");
}

Test(partial_writes, conditional_write)
{
    expect_summary("#pragma harness\nvoid f(int n, const float *x, float *y)\n"
                   "{ for (int i = 0; i < n; i++) if (x[i] > 0) y[i] = x[i]; }\n",
                   "x:in:n y:inout:n");
}

Test(partial_writes, inside_a_loop_that_may_not_run)
{
    expect_summary("#pragma harness\nvoid f(int n, int steps, const float *x, float *y)\n"
                   "{ for (int t = 0; t < steps; t++) for (int i = 0; i < n; i++) y[i] = x[i]; "
                   "}\n",
                   "x:in:n y:inout:n");
}

Test(partial_writes, after_an_early_return)
{
    expect_summary("#pragma harness\nvoid f(int n, float a, const float *x, float *y)\n"
                   "{ if (a == 0) return; for (int i = 0; i < n; i++) y[i] = a * x[i]; }\n",
                   "x:in:n y:inout:n");
}

Test(whole_writes, flat_row_major_and_reversed)
{
    expect_summary("#pragma harness\nvoid f(int n, int m, const float *x, const float *w, float "
                   "*y, float *z)\n"
                   "{ for (int i = 0; i < n; i++) for (int j = 0; j < m; j++) y[i * m + j] = "
                   "x[j * n + i];\n"
                   "  for (int i = n - 1; i >= 0; i--) z[n - 1 - i] = w[i]; }\n",
                   "x:in:m*n w:in:n y:out:m*n z:out:n");
}

Test(whole_writes, constant_time_loop_around_a_whole_write)
{
    expect_summary("#pragma harness\nvoid f(int n, const float *x, float *y)\n"
                   "{ for (int t = 0; t < 4; t++) for (int i = 0; i < n; i++) y[i] = x[i] * t; "
                   "}\n",
                   "x:in:n y:out:n");
}

/* ---- a pointer nothing bounds: the located extent() error, never a silent 1 ---- */

Test(unbounded, sentinel_loop)
{
    expect_scan_error("#pragma harness\nvoid len(const char *s, int *out)\n"
                      "{ int i = 0; while (s[i] != 0) i++; out[0] = i; }\n",
                      "t.c:3:23: error: cannot infer the extent of 's' in 'len': nothing "
                      "bounds this use of it (a sentinel loop or a moving pointer); add "
                      "extent(s: <number of elements>) to the #pragma harness at 1:1");
}

Test(unbounded, pointer_walked_until_a_value)
{
    expect_scan_error("#pragma harness\nvoid count(const char *s, int *out)\n"
                      "{ int n = 0; for (; *s; s++) n++; out[0] = n; }\n",
                      "t.c:3:25: error: cannot infer the extent of 's' in 'count': nothing "
                      "bounds this use of it (a sentinel loop or a moving pointer); add "
                      "extent(s: <number of elements>) to the #pragma harness at 1:1");
}

/* ---- macros the IR cannot see through ---- */

Test(opaque_macros, buffers_inside_are_bounded_and_may_be_written)
{
    /* the operators of BUMP are in its definition: the statement is opaque to the IR, yet its
     * subscripts bound y, and y may be written there, so it is inout (never a build error) */
    expect_summary("#define BUMP(p, i) ((p)[i] += 1, 0)\n"
                   "#pragma harness\nvoid f(int n, float *y)\n"
                   "{ for (int i = 0; i < n; i++) BUMP(y, i); }\n",
                   "y:inout:n");
}

Test(opaque_macros, a_whole_write_of_an_opaque_value_is_out)
{
    expect_summary("#define CLAMP(x) ((x) < 0 ? 0 : (x))\n"
                   "#pragma harness\nvoid f(int n, const double *a, double *b)\n"
                   "{ for (int i = 0; i < n; i++) b[i] = CLAMP(a[i] - 1.0); }\n",
                   "a:in:n b:out:n");
}

/* ---- helpers the body calls ---- */

#define HELPERS_SRC(HALF)                                                                          \
    "#include <math.h>\ntypedef double real;\n#define SQ(x) ((x)*(x))\n"                           \
    "static inline real sq(real v) { return SQ(v) * " HALF "; }\n"                                 \
    "static real mix(real a, real b) { real t = sq(a); return t * b + fmax(a, b); }\n"             \
    "int counter;\nstatic double bump(double v) { counter++; return v; }\n"                        \
    "#pragma harness\nvoid f(int n, const double *a, double *b)\n"                                 \
    "{ for (int i = 0; i < n; i++) b[i] = mix(a[i], 2.0) + bump(a[i]); }\n"

Test(helpers, collected_callees_first_with_typedefs_and_purity)
{
    ch_entry_list l;
    ch_entry e = scan_one(HELPERS_SRC("0.5"), &l);
    cr_assert_eq(e.n_helpers, 3);
    cr_expect_str_eq(e.helpers[0].name, "sq");
    cr_expect_str_eq(e.helpers[1].name, "mix");
    cr_expect_str_eq(e.helpers[2].name, "bump");
    /* printed from the AST: the macro is expanded, the typedef it names comes along */
    cr_expect(strstr(e.helpers[0].source, "typedef double real;") != NULL);
    cr_expect(strstr(e.helpers[0].source, "((v) * (v)) * 0.5") != NULL, "%s", e.helpers[0].source);
    cr_expect(e.helpers[0].device_ok && e.helpers[1].device_ok);
    cr_expect(!e.helpers[2].device_ok, "bump writes a global: not a device function");
    ch_entry_list_free(&l);
}

Test(helpers, a_changed_helper_changes_the_entry_key)
{
    ch_entry_list l1, l2;
    ch_entry a = scan_one(HELPERS_SRC("0.5"), &l1);
    ch_entry b = scan_one(HELPERS_SRC("0.25"), &l2);
    cr_expect_str_eq(a.body_tokens, b.body_tokens, "the body itself is the same");
    char *archs[] = {"sm_90", NULL};
    char ka[33], kb[33];
    cr_assert_eq(ch_cache_key(&a, archs, ka), 0);
    cr_assert_eq(ch_cache_key(&b, archs, kb), 0);
    cr_expect_str_neq(ka, kb);
    ch_entry_list_free(&l1);
    ch_entry_list_free(&l2);
}

Test(opaque_macros, operators_inside_a_macro_definition_come_from_the_expanded_file)
{
    ch_entry_list l;
    ch_entry e = scan_one("#define max_score(s1, s2) ((s1 >= s2) ? s1 : s2)\n"
                          "#pragma harness\nvoid f(int n, const int *a, int *b)\n{\n"
                          "  for (int i = 0; i < n; i++)\n"
                          "    b[i] = max_score(a[i], 0);\n}\n",
                          &l);
    cr_expect(strstr(e.body_tokens, "a [ i ] >= 0 ? a [ i ] : 0") != NULL, "%s", e.body_tokens);
    cr_expect(strstr(e.body_tokens, "max_score") == NULL, "%s", e.body_tokens);
    /* places are still the user's lines */
    cr_assert(e.body->nkids >= 1);
    cr_expect_eq(e.body->kids[0]->kind, CH_IR_FOR);
    cr_expect_eq(e.body->kids[0]->line, 5);
    ch_entry_list_free(&l);
}
