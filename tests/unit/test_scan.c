/* The libclang scan on real files: canonical parameter types, kinds, array parameters, the
 * attribute form against the pragma form, .cu files including cuda_runtime.h, the body IR and
 * its token stream, and the located error of every bad annotation. */
#include <unistd.h>

#include "scan_helpers.h"

static ch_entry_list scan_ok(const char *name, const char *src, ch_lang lang)
{
    ch_entry_list l;
    ch_error err;
    cr_assert_eq(scan_text(name, src, lang, &l, &err), 0, "%s", err.msg);
    return l;
}

Test(scan, types_typedefs_restrict)
{
    ch_entry_list l =
        scan_ok("t.c",
                "#include <stddef.h>\ntypedef float real;\ntypedef const real creal;\n"
                "#pragma harness \"copy\" extent(x: n, y: n)\n"
                "void cp(size_t n, const int k, creal *restrict x, real *y);\n",
                CH_LANG_C);
    cr_assert_eq(l.len, 1);
    ch_entry *e = &l.items[0];
    cr_expect_str_eq(e->name, "cp");
    cr_expect_eq(e->kind, CH_KIND_SPEC_DECL);
    cr_expect_str_eq(e->params[0].type, "unsigned long");
    cr_expect_str_eq(e->params[1].type, "int");
    cr_expect_str_eq(e->params[2].type, "const float *restrict");
    cr_expect(e->params[2].is_const && e->params[2].is_restrict);
    cr_expect_eq(e->params[2].elem, CH_T_FLOAT);
    cr_expect_str_eq(e->params[3].type, "float *");
    /* a declaration alone: a non-const buffer may be read too (in place) */
    cr_expect_eq(e->params[3].dir, CH_DIR_INOUT);
    cr_expect_str_eq(e->signature,
                     "void cp(unsigned long n, int k, const float *restrict x, float *y)");
    cr_expect_eq(e->line, 4);
    cr_expect_eq(e->col, 1);
    cr_expect_eq(e->fn_line, 5);
    cr_expect_null(e->body);
    ch_entry_list_free(&l);
}

Test(scan, kinds_and_body_fields)
{
    const char *src = "#pragma harness \"a\" \"b\\tc\"\n"
                      "void sd(int n, float *x) { for (int i = 0; i < n; i++) x[i] = 1.0f; }\n"
                      "#pragma harness\n"
                      "void cd(int n, float *x) { for (int i = 0; i < n; i++) x[i] += 2; }\n";
    ch_entry_list l = scan_ok("t.c", src, CH_LANG_C);
    cr_assert_eq(l.len, 2);
    cr_expect_eq(l.items[0].kind, CH_KIND_SPEC_DEF);
    cr_expect_str_eq(l.items[0].spec, "ab\tc");
    cr_expect_eq(l.items[1].kind, CH_KIND_C_DEF);
    cr_expect_null(l.items[1].spec);
    ch_entry *e = &l.items[1];
    cr_expect_eq(src[e->body_begin], '{');
    cr_expect_eq(src[e->body_end - 1], '}');
    cr_expect_eq(strncmp(src + e->name_offset, "cd(", 3), 0);
    ch_strbuf sb;
    ch_strbuf_init(&sb);
    ch_ir_dump(&sb, e->body);
    cr_expect_str_eq(sb.data,
                     "(block (for (decl \"int\" i 0) (< i n) (post++ i) (expr (+= ([] x i) "
                     "2))))");
    ch_strbuf_reset(&sb);
    ch_ir_print(&sb, e->body, 0, NULL, NULL);
    cr_expect_str_eq(sb.data, "{\n    for (int i = 0; i < n; i++)\n        x[i] += 2;\n}\n");
    cr_expect_str_eq(e->body_tokens, "{ for ( int i = 0 ; i < n ; i ++ ) x [ i ] += 2 ; }");
    ch_strbuf_free(&sb);
    ch_entry_list_free(&l);
}

static char *tokens_of(const char *src)
{
    ch_entry_list l = scan_ok("t.c", src, CH_LANG_C);
    cr_assert_eq(l.len, 1);
    char *t = ch_xstrdup(l.items[0].body_tokens);
    ch_entry_list_free(&l);
    return t;
}

Test(scan, body_tokens_follow_meaning_not_spelling)
{
    char *a = tokens_of("#define K 3\n#pragma harness\nvoid f(int n, float *x)\n{ for (int i = 0; "
                        "i < n; i++) x[i] = K * x[i]; }\n");
    char *b = tokens_of("#define K 3\n#pragma harness\nvoid f(int n, float *x) {\n  /* scale */\n"
                        "  for (int i=0;i<n;i++)\n    x[i] = K*x[i]; // by K\n}\n");
    char *c = tokens_of("#define K 4\n#pragma harness\nvoid f(int n, float *x)\n{ for (int i = 0; "
                        "i < n; i++) x[i] = K * x[i]; }\n");
    cr_expect_str_eq(a, b);
    cr_expect_str_neq(a, c);
    free(a);
    free(b);
    free(c);
}

Test(scan, ir_precedence_and_casts)
{
    ch_entry_list l = scan_ok("t.c",
                              "#include <math.h>\n#pragma harness\n"
                              "void f(int n, const double *a, double *b)\n"
                              "{ for (int i = 0; i < n; i++) { double t = (a[i] + 1) * 2;\n"
                              "  b[i] = i % 2 ? sqrt(t) : -(double)(i - 1) / (n - (i + 1)); } }\n",
                              CH_LANG_C);
    ch_strbuf sb;
    ch_strbuf_init(&sb);
    ch_ir_print(&sb, l.items[0].body, 0, NULL, NULL);
    cr_expect_str_eq(sb.data,
                     "{\n    for (int i = 0; i < n; i++) {\n        double t = (a[i] + 1) * "
                     "2;\n        b[i] = i % 2 ? sqrt(t) : -(double)(i - 1) / (n - (i "
                     "+ 1));\n    }\n}\n");
    ch_strbuf_free(&sb);
    ch_entry_list_free(&l);
}

static const char *rename_i(const char *name, void *ctx)
{
    return strcmp(name, "i") == 0 ? (const char *)ctx : NULL;
}

Test(scan, ir_print_rename)
{
    ch_entry_list l = scan_ok("t.c",
                              "#pragma harness\nvoid f(int n, float *x)\n"
                              "{ for (int i = 0; i < n; i++) x[i] = x[i] * 2; }\n",
                              CH_LANG_C);
    ch_strbuf sb;
    ch_strbuf_init(&sb);
    const ch_ir *stmt = l.items[0].body->kids[0]->kids[3];
    ch_ir_print(&sb, stmt, 0, rename_i, "tid");
    cr_expect_str_eq(sb.data, "x[tid] = x[tid] * 2;\n");
    ch_strbuf_free(&sb);
    ch_entry_list_free(&l);
}

/* ch_ir_is_var: the node is the variable; ch_ir_find(.., CH_IR_VAR, ..): the expression reads
 * it somewhere (the translators' and the builtin agent's one walk) */
Test(scan, ir_is_var_and_reads)
{
    ch_entry_list l = scan_ok("t.c",
                              "#pragma harness\nvoid f(int n, int m, float *x)\n"
                              "{ for (int i = 0; i < n; i++) x[i] = x[i] * 2; }\n",
                              CH_LANG_C);
    const ch_ir *loop = l.items[0].body->kids[0];
    const ch_ir *stmt = loop->kids[3]->kids[0]; /* x[i] = x[i] * 2 */
    const ch_ir *lhs = stmt->kids[0];           /* x[i] */
    cr_assert_eq(stmt->kind, CH_IR_ASSIGN);
    cr_expect(ch_ir_is_var(lhs->kids[1], "i"));
    cr_expect(!ch_ir_is_var(lhs->kids[1], "n"));
    cr_expect(!ch_ir_is_var(lhs, "i"), "x[i] reads i but is not i");
    cr_expect(!ch_ir_is_var(NULL, "i"));
    cr_expect(ch_ir_find(stmt, CH_IR_VAR, "i") != NULL);
    cr_expect(ch_ir_find(stmt->kids[1], CH_IR_VAR, "x") != NULL);
    cr_expect(ch_ir_find(stmt, CH_IR_VAR, "n") == NULL, "the statement does not read n");
    cr_expect(ch_ir_find(loop, CH_IR_VAR, "n") != NULL, "the loop's condition does");
    cr_expect(ch_ir_find(loop, CH_IR_VAR, "m") == NULL, "nothing reads m");
    ch_entry_list_free(&l);
}

Test(scan, array_params)
{
    ch_entry_list l = scan_ok("t.c",
                              "#pragma harness\nvoid f(int n, int m, const double A[n][m], double "
                              "B[static n][m + 1])\n{ for (int i = 0; i < n; i++) for (int j = 0; "
                              "j < m; j++) B[i][j] = A[i][j]; }\n",
                              CH_LANG_C);
    ch_entry *e = &l.items[0];
    cr_expect_eq(e->params[2].role, CH_ROLE_ARRAY);
    cr_expect_str_eq(e->params[2].type, "const double [n][m]");
    cr_expect_eq(e->params[2].ndims, 2);
    cr_expect_str_eq(e->params[3].dims[1], "m+1");
    cr_expect_str_eq(e->params[3].extent, "m*n+n");
    cr_expect_str_eq(e->signature, "void f(int n, int m, const double A[n][m], double B[n][m+1])");
    ch_entry_list_free(&l);
}

static const char *const pragma_src =
    "#include <harness.h>\n"
    "#pragma harness \"add two\" extent(a: n) tune(n = 1<<20) tol(1e-4)\n"
    "void add(int n, const float *a, float *c) { for (int i = 0; i < n; i++) c[i] = a[i] + 2; }\n";
static const char *const attr_src =
    "#include <harness.h>\n"
    "#define CLAUSES \"extent(a: n)   tune(n = 1<<20) tol(1e-4)\"\n"
    "HARNESS(\"add two\", CLAUSES)\n"
    "void add(int n, const float *a, float *c) { for (int i = 0; i < n; i++) c[i] = a[i] + 2; }\n";

Test(scan, attribute_form_equals_pragma_form)
{
    ch_entry_list p = scan_ok("t.c", pragma_src, CH_LANG_C);
    ch_entry_list a = scan_ok("t.c", attr_src, CH_LANG_C);
    cr_assert_eq(p.len, 1);
    cr_assert_eq(a.len, 1);
    ch_entry *x = &p.items[0], *y = &a.items[0];
    cr_expect_str_eq(x->spec, y->spec);
    cr_expect_str_eq(x->clauses_text, y->clauses_text);
    cr_expect_str_eq(x->signature, y->signature);
    cr_expect_str_eq(x->body_tokens, y->body_tokens);
    cr_expect_eq(x->kind, y->kind);
    cr_expect(y->clauses.has_tol && y->clauses.tol == x->clauses.tol);
    cr_expect_eq(y->line, 3);
    for (size_t i = 0; i < x->n_params; i++) {
        cr_expect_str_eq(x->params[i].type, y->params[i].type);
        cr_expect_eq(x->params[i].dir, y->params[i].dir);
        if (x->params[i].extent)
            cr_expect_str_eq(x->params[i].extent, y->params[i].extent);
    }
    ch_entry_list_free(&p);
    ch_entry_list_free(&a);
}

Test(scan, cu_file_with_cuda_runtime)
{
    ch_entry_list l = scan_ok("k.cu",
                              "#include <cuda_runtime.h>\n"
                              "__global__ void other(float *x) { x[threadIdx.x] = 0; }\n"
                              "__device__ float twice(float v) { return 2 * v; }\n"
                              "#pragma harness \"scale\" extent(x: n)\n"
                              "void scale(int n, float *x);\n"
                              "#pragma harness\n"
                              "void add(int n, const float *__restrict__ a, float *c)\n"
                              "{ for (int i = 0; i < n; i++) c[i] = a[i] * 3.0f; }\n",
                              CH_LANG_CU);
    cr_assert_eq(l.len, 2);
    cr_expect_str_eq(l.items[0].name, "scale");
    cr_expect_eq(l.items[1].kind, CH_KIND_C_DEF);
    cr_expect_str_eq(l.items[1].params[1].type, "const float *restrict");
    cr_expect_str_eq(l.items[1].params[2].extent, "n");
    cr_expect_eq(l.items[1].line, 6);
    ch_entry_list_free(&l);
}

Test(scan, plain_file_has_no_entries)
{
    ch_entry_list l = scan_ok("t.c", "int main(void) { return 0; }\n", CH_LANG_C);
    cr_expect_eq(l.len, 0);
}

/* A compile reads its file once: ch_scan_text parses the text it is given as the file's
 * contents (libclang's unsaved file; the preprocessed copy made from it too). The path here
 * does not exist, yet its directory's header is found by a quoted include, and the macro the
 * header defines is expanded in the body (the preprocessed copy's work). */
Test(scan, text_is_parsed_without_reading_the_path)
{
    ch_error err;
    char *dir = ch_make_temp_dir("scan-text", &err);
    cr_assert(dir, "%s", err.msg);
    char *hdr = ch_path_join(dir, "score.h");
    const char h[] = "#define max_score(s1, s2) ((s1 >= s2) ? s1 : s2)\n";
    cr_assert_eq(ch_write_file_atomic(hdr, h, strlen(h), 0, &err), 0);
    char *path = ch_path_join(dir, "never_written.c");
    const char text[] = "#include \"score.h\"\n"
                        "#pragma harness\nvoid f(int n, const int *a, int *b)\n{\n"
                        "  for (int i = 0; i < n; i++)\n"
                        "    b[i] = max_score(a[i], 0);\n}\n";
    ch_entry_list l;
    ch_entry_list_init(&l);
    cr_assert_eq(ch_scan_text(path, text, strlen(text), NULL, 0, CH_LANG_C, NULL, &l, &err), 0,
                 "%s", err.msg);
    cr_assert_eq(access(path, F_OK), -1, "the scan wrote nothing at the path");
    cr_assert_eq(l.len, 1);
    cr_expect_str_eq(l.items[0].name, "f");
    /* places are the user's lines, from the expanded copy too */
    cr_assert(l.items[0].body && l.items[0].body->nkids >= 1);
    cr_expect_eq(l.items[0].body->kids[0]->line, 5);
    cr_expect(strstr(l.items[0].body_tokens, "a [ i ] >= 0 ? a [ i ] : 0") != NULL, "%s",
              l.items[0].body_tokens);
    ch_entry_list_free(&l);

    /* a file on disk that says otherwise is not what is scanned */
    const char other[] = "int g(void) { return 0; }\n";
    cr_assert_eq(ch_write_file_atomic(path, other, strlen(other), 0, &err), 0);
    ch_entry_list_init(&l);
    cr_assert_eq(ch_scan_text(path, text, strlen(text), NULL, 0, CH_LANG_C, NULL, &l, &err), 0,
                 "%s", err.msg);
    cr_assert_eq(l.len, 1);
    cr_expect_str_eq(l.items[0].name, "f");
    cr_expect(strstr(l.items[0].body_tokens, "max_score") == NULL, "%s", l.items[0].body_tokens);
    ch_entry_list_free(&l);
    ch_remove_tree(dir, &err);
    free(path);
    free(hdr);
    free(dir);
}

Test(scan, blank_keeps_length_and_lines)
{
    const char *src = "int a;\n#pragma harness \"x\" \\\n  extent(p: n)\nvoid f(void);\n";
    char *b = ch_scan_blank(src, strlen(src));
    cr_expect_eq(strlen(b), strlen(src));
    cr_expect_str_eq(b, "int a;\n                     \n              \nvoid f(void);\n");
    free(b);
}

Test(scan_errors, unknown_clause)
{
    expect_scan_error(
        "#pragma harness frob(x)\nvoid f(int n, float *x);\n",
        "t.c:1:17: error: unknown harness clause 'frob'; expected extent, in, out, inout, "
        "tune, tol, device, budget, range, offsets, perm or sample");
}

Test(scan_errors, malformed)
{
    expect_scan_error(
        "#pragma harness \"spec\n",
        "t.c:1:17: error: unterminated string in #pragma harness; close the spec with \"");
}

Test(scan_errors, clause_names_no_parameter)
{
    expect_scan_error(
        "#pragma harness \"s\" in(z)\nvoid f(int n, float *x);\n",
        "t.c:1:24: error: 'z' in in() names no pointer or array parameter of 'f'; use one "
        "of: x");
}

Test(scan_errors, tune_names_no_scalar)
{
    expect_scan_error(
        "#pragma harness \"s\" tune(x = 4)\nvoid f(int n, float *x);\n",
        "t.c:1:26: error: 'x' in tune() names no scalar parameter of 'f'; use one of: n");
}

Test(scan_errors, not_followed_by_function)
{
    expect_scan_error(
        "#pragma harness \"s\"\nint table[4];\nvoid f(int n, float *x);\n",
        "t.c:1:1: error: #pragma harness is not followed by a function; put it directly "
        "before the function's declaration or definition");
}

Test(scan_errors, pragma_at_end)
{
    expect_scan_error(
        "void f(int n, float *x);\n  #pragma harness\n",
        "t.c:2:3: error: #pragma harness is not followed by a function; put it directly "
        "before the function's declaration or definition");
}

Test(scan_errors, unsupported_parameter)
{
    expect_scan_error(
        "struct s { int a; };\n#pragma harness \"s\"\nvoid f(int n, struct s *p);\n",
        "t.c:3:25: error: unsupported type 'struct s *' of harness parameter 'p'; use a "
        "scalar (int, long, size_t, float, double, ...), a pointer to one, or a C99 array "
        "such as double A[n][m]");
}

Test(scan_errors, pointer_to_pointer)
{
    expect_scan_error(
        "#pragma harness \"s\"\nvoid f(int n, float **p);\n",
        "t.c:2:23: error: unsupported type 'float **' of harness parameter 'p'; use a "
        "scalar (int, long, size_t, float, double, ...), a pointer to one, or a C99 array "
        "such as double A[n][m]");
}

Test(scan_errors, extent_not_inferable)
{
    expect_scan_error(
        "#pragma harness\nvoid f(int n, float *x) { while (n--) *x++ = 0; }\n",
        "t.c:2:40: error: cannot infer the extent of 'x' in 'f': nothing bounds this use "
        "of it (a sentinel loop or a moving pointer); add extent(x: <number of "
        "elements>) to the #pragma harness at 1:1");
}

Test(scan_errors, spec_decl_without_spec)
{
    expect_scan_error(
        "#pragma harness extent(x: n)\nvoid f(int n, float *x);\n",
        "t.c:1:1: error: bare #pragma harness on the declaration of 'f': there is no body "
        "to translate; add a spec (#pragma harness \"what it computes\") or a "
        "definition");
}

Test(scan_errors, two_pragmas)
{
    expect_scan_error(
        "#pragma harness \"a\"\n#pragma harness \"b\"\nvoid f(int n, float *x);\n",
        "t.c:2:1: error: second harness annotation on 'f'; merge the clauses into one "
        "#pragma harness");
}

Test(scan_errors, non_void_return)
{
    expect_scan_error(
        "#pragma harness \"s\"\nint f(int n, float *x);\n",
        "t.c:1:1: error: harness function 'f' returns 'int'; it must return void (write "
        "results through an out pointer)");
}
