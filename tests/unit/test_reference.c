/* The reference program against inputs with structure (issue 11), built and run on the CPU:
 * a body that reads outside its buffers on synthesized data fails the build with "the inputs
 * need a clause" and the line of the access (guard pages on both sides of every buffer), the
 * clause makes it pass, and a sample(fn) function fills the inputs every stage uses. */
#include "ch/checklist.h"
#include "ch/fsutil.h"
#include "ch/scaffold.h"
#include "ch/verify.h"
#include "scan_helpers.h"

/* A scanned entry, its derived checklist and the file it came from, kept on disk for the
 * reference build. */
typedef struct fixture {
    char *dir, *tu;
    ch_entry_list l;
    ch_checklist c;
} fixture;

static void fixture_open(fixture *f, const char *src)
{
    ch_error err;
    f->dir = ch_make_temp_dir("reftest", &err);
    cr_assert_not_null(f->dir);
    f->tu = ch_path_join(f->dir, "user.c");
    cr_assert_eq(ch_write_file_atomic(f->tu, src, strlen(src), 0, &err), 0);
    ch_entry_list_init(&f->l);
    cr_assert_eq(ch_scan_file(f->tu, CH_LANG_C, NULL, &f->l, &err), 0, "%s", err.msg);
    cr_assert_eq(f->l.len, 1);
    cr_assert_eq(ch_checklist_derive(&f->l.items[0], &f->c, &err), 0, "%s", err.msg);
}

static void fixture_close(fixture *f)
{
    ch_error err;
    ch_checklist_free(&f->c);
    ch_entry_list_free(&f->l);
    ch_remove_tree(f->dir, &err);
    free(f->tu);
    free(f->dir);
}

/* Builds the reference of f (user flags: -Wall -Werror and missing-prototype warnings, which
 * the generated bridges must not trip); returns ch_reference_build's status, err filled. */
static int build(fixture *f, char **exe, ch_error *err)
{
    char *cc_argv[] = {
        "cc", "-std=c11", "-O2", "-Wall", "-Wextra", "-Werror", "-Wmissing-prototypes", NULL};
    ch_oracle o = {f->tu, cc_argv, NULL, 0, NULL, NULL, 0};
    ch_strbuf log;
    ch_strbuf_init(&log);
    int rc = ch_reference_build(&f->c, &o, f->dir, exe, &log, err);
    ch_strbuf_free(&log);
    return rc;
}

/* The index comes out of a helper: inference cannot see that ix holds subscripts of x. */
static const char *const hidden_gather =
    "static int at(const int *p, int i) { return p[i]; }\n"
    "\n"
    "#pragma harness extent(ix: n, x: n) %s\n"
    "void gather(int n, const int *ix, const double *x, double *y)\n"
    "{\n"
    "    for (int i = 0; i < n; i++)\n"
    "        y[i] = x[at(ix, i)%s];\n"
    "}\n";

Test(reference_inputs, crash_on_random_indices_names_the_clause_and_line, .timeout = 120)
{
    char *src = ch_xasprintf(hidden_gather, "", "");
    fixture f;
    fixture_open(&f, src);
    char *exe = NULL;
    ch_error err;
    cr_assert_neq(build(&f, &exe, &err), 0, "random indices did not crash the reference");
    cr_assert_null(exe);
    cr_expect_not_null(strstr(err.msg, "the reference program (the C body of 'gather') crashed "
                                       "with SIGSEGV (signal 11) on synthesized inputs at n="),
                       "%s", err.msg);
    cr_expect_not_null(strstr(err.msg, "in gather at "), "%s", err.msg);
    cr_expect_not_null(strstr(err.msg, "user.c:7: the inputs need a clause"), "%s", err.msg);
    cr_expect_not_null(strstr(err.msg, "range(ix: LO, HI)"), "%s", err.msg);
    cr_expect_not_null(strstr(err.msg, "offsets(ix: LAST)"), "%s", err.msg);
    cr_expect_not_null(strstr(err.msg, "sample(FN)"), "%s", err.msg);
    fixture_close(&f);
    free(src);

    /* with the clause the probe passes and the oracle computes the gather */
    src = ch_xasprintf(hidden_gather, "range(ix: 0, n)", "");
    fixture_open(&f, src);
    cr_assert_eq(build(&f, &exe, &err), 0, "%s", err.msg);
    ch_dataset ds;
    cr_assert_eq(ch_reference_inputs(&f.c, exe, &f.c.correctness[0], 9, &ds, &err), 0, "%s",
                 err.msg);
    char *set = ch_path_join(f.dir, "set");
    cr_assert_eq(ch_mkdir_p(set, &err), 0);
    cr_assert_eq(ch_dataset_write(&f.c, &ds, set, &err), 0);
    char *argv[] = {exe, set, NULL};
    ch_strbuf out;
    ch_strbuf_init(&out);
    cr_assert_eq(ch_proc_capture(argv, &out, &err), 0, "%s", out.data);
    char *yp = ch_path_join(set, "y.out.bin");
    void *y;
    size_t n = ds.count[3];
    cr_assert_eq(ch_buf_read(yp, CH_T_DOUBLE, n, &y, NULL, &err), 0, "%s", err.msg);
    const int *ix = ds.data[1];
    const double *x = ds.data[2];
    for (size_t i = 0; i < n; i++)
        cr_assert_eq(((double *)y)[i], x[ix[i]], "y[%zu]", i);
    free(y);
    free(yp);
    ch_strbuf_free(&out);
    free(set);
    ch_dataset_free(&ds);
    free(exe);
    fixture_close(&f);
    free(src);
}

/* Indices in range but shifted below the buffer: only the guard page before the first element
 * (the probe's `low` run) catches the read. */
Test(reference_inputs, underrun_is_caught_by_the_low_guard, .timeout = 120)
{
    char *src = ch_xasprintf(hidden_gather, "range(ix: 0, n)", " - 600");
    fixture f;
    fixture_open(&f, src);
    char *exe = NULL;
    ch_error err;
    cr_assert_neq(build(&f, &exe, &err), 0, "a read 600 elements before x went unnoticed");
    cr_expect_not_null(strstr(err.msg, "user.c:7: the inputs need a clause"), "%s", err.msg);
    fixture_close(&f);
    free(src);
}

/* sample(fn): the user's function (static, so the bridge must come after it) fills a reversed
 * permutation; every input set verification makes goes through it. */
Test(reference_inputs, sample_function_fills_the_inputs, .timeout = 120)
{
    const char *src = "__attribute__((unused)) static void reverse(int n, int *ix, double *x, "
                      "double *y)\n"
                      "{\n"
                      "    (void)x;\n"
                      "    (void)y;\n"
                      "    for (int i = 0; i < n; i++)\n"
                      "        ix[i] = n - 1 - i;\n"
                      "}\n"
                      "static int at(const int *p, int i) { return p[i]; }\n"
                      "#pragma harness extent(ix: n, x: n) sample(reverse)\n"
                      "void gather(int n, const int *ix, const double *x, double *y)\n"
                      "{\n"
                      "    for (int i = 0; i < n; i++)\n"
                      "        y[i] = x[at(ix, i)];\n"
                      "}\n";
    fixture f;
    fixture_open(&f, src);
    cr_assert_str_eq(f.c.sample, "reverse");
    char *exe = NULL;
    ch_error err;
    cr_assert_eq(build(&f, &exe, &err), 0, "%s", err.msg);
    ch_dataset plain, sampled;
    cr_assert_eq(ch_data_synthesize(&f.c, &f.c.correctness[1], 3, &plain, &err), 0);
    cr_assert_eq(ch_reference_inputs(&f.c, exe, &f.c.correctness[1], 3, &sampled, &err), 0, "%s",
                 err.msg);
    size_t n = sampled.count[1];
    cr_assert_gt(n, 10);
    for (size_t i = 0; i < n; i++)
        cr_assert_eq(((int *)sampled.data[1])[i], (int)(n - 1 - i), "ix[%zu]", i);
    cr_assert(memcmp(plain.data[2], sampled.data[2], n * sizeof(double)) == 0,
              "x keeps its synthesized values");
    ch_dataset_free(&plain);
    ch_dataset_free(&sampled);
    free(exe);
    fixture_close(&f);
}

/* A sample function that writes past a buffer is named as the culprit, not the body. */
Test(reference_inputs, crashing_sample_function_is_named, .timeout = 120)
{
    const char *src = "void fill(int n, int *ix, double *x, double *y);\n"
                      "void fill(int n, int *ix, double *x, double *y)\n"
                      "{\n"
                      "    (void)x;\n"
                      "    (void)y;\n"
                      "    for (int i = 0; i < n + 5000; i++)\n"
                      "        ix[i] = i % 3;\n"
                      "}\n"
                      "#pragma harness extent(ix: n, x: n) sample(fill)\n"
                      "void gather(int n, const int *ix, const double *x, double *y)\n"
                      "{\n"
                      "    for (int i = 0; i < n; i++)\n"
                      "        y[i] = x[ix[i]];\n"
                      "}\n";
    fixture f;
    fixture_open(&f, src);
    char *exe = NULL;
    ch_error err;
    cr_assert_neq(build(&f, &exe, &err), 0);
    cr_expect_not_null(strstr(err.msg, "the sample function 'fill' of 'gather' crashed with "
                                       "SIGSEGV"),
                       "%s", err.msg);
    cr_expect_not_null(strstr(err.msg, "in fill at "), "%s", err.msg);
    cr_expect_not_null(strstr(err.msg, "user.c:7: correct fill"), "%s", err.msg);
    fixture_close(&f);
}

/* A spec-only entry: the test author's reference is the oracle, the user's file still holds
 * the sample function, compiled for it alone (its main and the undefined entry dropped). */
Test(reference_inputs, spec_decl_with_a_sample_function, .timeout = 120)
{
    const char *src = "#pragma harness \"y[i] = x[ix[i]]\" extent(ix: n, x: n, y: n) "
                      "sample(fill)\n"
                      "void gather(int n, const int *ix, const double *x, double *y);\n"
                      "void fill(int n, int *ix, double *x, double *y);\n"
                      "void fill(int n, int *ix, double *x, double *y)\n"
                      "{ (void)x; (void)y; for (int i = 0; i < n; i++) ix[i] = i / 2; }\n"
                      "int main(void) { double x[2] = {1, 2}, y[2]; int ix[2] = {1, 0};\n"
                      "  gather(2, ix, x, y); return (int)y[0]; }\n";
    fixture f;
    fixture_open(&f, src);
    cr_assert_eq(f.c.kind, CH_KIND_SPEC_DECL);
    const char *ref = "void gather_reference(int n, const int *ix, const double *x, double *y)\n"
                      "{ for (int i = 0; i < n; i++) y[i] = x[ix[i]]; }\n";
    char *cc_argv[] = {"cc", NULL};
    ch_oracle o = {f.tu, cc_argv, ref, 0, NULL, NULL, 0};
    char *exe = NULL;
    ch_error err;
    cr_assert_eq(ch_reference_build(&f.c, &o, f.dir, &exe, NULL, &err), 0, "%s", err.msg);
    ch_dataset ds;
    cr_assert_eq(ch_reference_inputs(&f.c, exe, &f.c.smoke[2], 1, &ds, &err), 0, "%s", err.msg);
    for (size_t i = 0; i < ds.count[1]; i++)
        cr_assert_eq(((int *)ds.data[1])[i], (int)(i / 2));
    ch_dataset_free(&ds);
    free(exe);
    /* without the user's file there is nothing to call */
    ch_oracle none = {NULL, cc_argv, ref, 0, NULL, NULL, 0};
    cr_assert_neq(ch_reference_build(&f.c, &none, f.dir, &exe, NULL, &err), 0);
    cr_expect_not_null(strstr(err.msg, "sample(fill) of gather needs the user's file"), "%s",
                       err.msg);
    fixture_close(&f);
}

/* How other failures read: an exit status with the program's first error line. */
Test(reference_inputs, failure_text_for_exit_and_timeout)
{
    fixture f;
    char *src = ch_xasprintf(hidden_gather, "range(ix: 0, n)", "");
    fixture_open(&f, src);
    ch_proc_result pr;
    ch_proc_result_init(&pr);
    pr.exit_code = 2;
    ch_strbuf_adds(&pr.err, "ch-bufio: x.bin: missing\nmore\n");
    char *m = ch_reference_failure(&f.c, "/nonexistent", &pr, &f.c.smoke[0]);
    cr_expect_str_eq(m, "the reference program (the C body of 'gather') exited with status 2 at "
                        "n=1: ch-bufio: x.bin: missing");
    free(m);
    pr.timed_out = 1;
    m = ch_reference_failure(&f.c, "/nonexistent", &pr, NULL);
    cr_expect_str_eq(m, "the reference program (the C body of 'gather') ran past its time limit");
    free(m);
    ch_proc_result_free(&pr);
    fixture_close(&f);
    free(src);
}

/* A test author's reference becomes the user's function: one that would run code at load,
 * start a program, write a file or make a system call is refused before it runs, with the
 * reason; a reference that only computes is accepted. */
Test(reference_inputs, hostile_test_author_references_are_refused, .timeout = 120)
{
    const char *src = "#pragma harness \"y[i] = 2 * x[i]\" extent(x: n, y: n)\n"
                      "void twice(int n, const double *x, double *y);\n";
    static const struct {
        const char *ref, *why;
    } hostile[] = {
        /* (a volatile local keeps the body: abort itself is off the allow-list now) */
        {"__attribute__((constructor)) static void boot(void) { volatile char b = 1; (void)b; }\n",
         "runs at program start"},
        {"__attribute__((destructor)) static void later(void) { volatile char b = 1; (void)b; }\n",
         "start or exit"},
        /* a flag kept across calls: the host subset's static-state rule, before any compile */
        {"#include <stdlib.h>\n"
         "volatile int twice_flag;\n"
         "__attribute__((destructor)) static void later(void) { if (twice_flag) { volatile char b "
         "= 1; (void)b; } }\n",
         "the reference keeps 'twice_flag' across calls"},
        {"#include <stdlib.h>\nint twice_side(void) { return system(\"touch /tmp/pwned\"); }\n",
         "calls 'system'"},
        {"#include <stdio.h>\nint twice_side(void) { FILE *f = fopen(\"/tmp/x\", \"w\"); "
         "return f != 0; }\n",
         "calls 'fopen'"},
        /* host asm is refused by the source guard before anything compiles (the object check
         * would still see the system call instruction) */
        {"long twice_side(void) { long r; __asm__ volatile(\"syscall\" : \"=a\"(r) : \"a\"(39)); "
         "return r; }\n",
         "inline assembly"},
    };
    fixture f;
    fixture_open(&f, src);
    char *cc_argv[] = {"cc", NULL};
    for (size_t i = 0; i < sizeof hostile / sizeof *hostile; i++) {
        char *ref = ch_xasprintf("%s"
                                 "void twice_reference(int n, const double *x, double *y)\n"
                                 "{ for (int i = 0; i < n; i++) y[i] = 2 * x[i]; }\n",
                                 hostile[i].ref);
        ch_oracle o = {NULL, cc_argv, ref, 0, NULL, NULL, 0};
        char *exe = NULL;
        ch_error err;
        cr_expect_neq(ch_reference_build(&f.c, &o, f.dir, &exe, NULL, &err), 0,
                      "hostile reference %zu accepted", i);
        cr_expect_not_null(strstr(err.msg, "reference for twice is refused"), "%zu: %s", i,
                           err.msg);
        cr_expect_not_null(strstr(err.msg, hostile[i].why), "%zu: %s", i, err.msg);
        free(exe);
        free(ref);
    }
    const char *plain =
        "#include <math.h>\n#include <string.h>\n"
        "void twice_reference(int n, const double *x, double *y)\n"
        "{ memset(y, 0, sizeof *y * (unsigned)n);\n"
        "  for (int i = 0; i < n; i++) y[i] = 2 * fabs(x[i]) * (x[i] < 0 ? -1 : 1); }\n";
    ch_oracle ok = {NULL, cc_argv, plain, 0, NULL, NULL, 0};
    char *exe = NULL;
    ch_error err;
    cr_expect_eq(ch_reference_build(&f.c, &ok, f.dir, &exe, NULL, &err), 0, "%s", err.msg);
    free(exe);
    exe = NULL;
    /* the host path runs on every call of the user's program: scratch is freed before it
     * returns (attacks5/ref06_leak.c) */
    const char *scratch = "#include <stdlib.h>\n"
                          "void twice_reference(int n, const double *x, double *y)\n"
                          "{ double *t = malloc(sizeof *t * (unsigned)(n + 1));\n"
                          "  for (int i = 0; i < n; i++) t[i] = 2 * x[i];\n"
                          "  for (int i = 0; i < n; i++) y[i] = t[i];\n"
                          "  %s }\n";
    char *freed = ch_xasprintf(scratch, "free(t);"), *kept = ch_xasprintf(scratch, "");
    ch_oracle tidy = {NULL, cc_argv, freed, 0, NULL, NULL, 0},
              leaky = {NULL, cc_argv, kept, 0, NULL, NULL, 0};
    cr_expect_eq(ch_reference_build(&f.c, &tidy, f.dir, &exe, NULL, &err), 0, "%s", err.msg);
    free(exe);
    exe = NULL;
    cr_expect_neq(ch_reference_build(&f.c, &leaky, f.dir, &exe, NULL, &err), 0,
                  "a leaking reference accepted");
    cr_expect_not_null(strstr(err.msg, "bytes allocated (a malloc without its free)"), "%s",
                       err.msg);
    free(exe);
    free(freed);
    free(kept);
    fixture_close(&f);
}

/* attacks6 #17: a test author's reference that writes its input through pointer arithmetic
 * between parameters (no cast for the host subset to see) is refused by its probe, naming the
 * buffer: its inputs are read-only pages. One that only reads them is built. */
Test(reference_inputs, a_reference_writing_its_input_is_refused, .timeout = 120)
{
    fixture f;
    fixture_open(&f, "#pragma harness \"y[i] = 2 * x[i]\" extent(x: n, y: n)\n"
                     "void twice(int n, const double *x, double *y);\n");
    char *cc_argv[] = {"cc", NULL};
    const char *clears = "#include <stddef.h>\n"
                         "void twice_reference(int n, const double *x, double *y)\n"
                         "{ ptrdiff_t to_x = x - y;\n"
                         "  for (int i = 0; i < n; i++) y[i] = 2 * x[i];\n"
                         "  for (int i = 0; i < n; i++) y[to_x + i] = 0; }\n";
    ch_oracle o = {NULL, cc_argv, clears, 0, NULL, NULL, 0};
    char *exe = NULL;
    ch_error err;
    cr_expect_neq(ch_reference_build(&f.c, &o, f.dir, &exe, NULL, &err), 0,
                  "a reference clearing its input accepted");
    cr_expect_not_null(strstr(err.msg, "writes its input buffer 'x'"), "%s", err.msg);
    free(exe);
    exe = NULL;
    const char *reads = "void twice_reference(int n, const double *x, double *y)\n"
                        "{ for (int i = 0; i < n; i++) y[i] = 2 * x[i]; }\n";
    ch_oracle ok = {NULL, cc_argv, reads, 0, NULL, NULL, 0};
    cr_expect_eq(ch_reference_build(&f.c, &ok, f.dir, &exe, NULL, &err), 0, "%s", err.msg);
    free(exe);
    fixture_close(&f);
}

/* attacks6 #16: a test author's reference that reads a word of a malloc'd block nothing wrote
 * (the allocator hands the same chunk back, with the last call's value: a counter no static rule
 * sees) is refused, naming the read's use; one that writes its scratch before reading it is
 * built. */
Test(reference_inputs, a_reference_reading_unwritten_memory_is_refused, .timeout = 180)
{
    fixture f;
    fixture_open(&f, "#pragma harness \"y[i] = 2 * x[i]\" extent(x: n, y: n)\n"
                     "void twice(int n, const double *x, double *y);\n");
    char *cc_argv[] = {"cc", NULL};
    const char *scratch = "#include <stdlib.h>\n"
                          "void twice_reference(int n, const double *x, double *y)\n"
                          "{ int *block = malloc(4096);\n"
                          "  if (!block) return;\n"
                          "  volatile int *word = block + 512;\n"
                          "  %s\n"
                          "  int seen = *word + 1;\n"
                          "  *word = seen;\n"
                          "  free(block);\n"
                          "  for (int i = 0; i < n; i++) y[i] = seen > 1000 ? 0 : 2 * x[i]; }\n";
    char *counter = ch_xasprintf(scratch, ""), *zeroed = ch_xasprintf(scratch, "*word = 0;");
    ch_oracle o = {NULL, cc_argv, counter, 0, NULL, NULL, 0};
    char *exe = NULL;
    ch_error err;
    cr_expect_neq(ch_reference_build(&f.c, &o, f.dir, &exe, NULL, &err), 0,
                  "a reference counting in the allocator accepted");
    cr_expect_not_null(
        strstr(err.msg, "reads memory that nothing wrote (MemorySanitizer: a value never written "
                        "decides what it computes in twice_reference at ref_impl.c:"),
        "%s", err.msg);
    cr_expect_not_null(strstr(err.msg, "reference for twice is refused"), "%s", err.msg);
    free(exe);
    exe = NULL;
    ch_oracle ok = {NULL, cc_argv, zeroed, 0, NULL, NULL, 0};
    cr_expect_eq(ch_reference_build(&f.c, &ok, f.dir, &exe, NULL, &err), 0, "%s", err.msg);
    free(exe);
    free(counter);
    free(zeroed);
    fixture_close(&f);
}

/* attacks6 #15: a test author's reference that is wrong only where the first elements of x
 * are equal (random data never has that, an array of ones does) disagrees with ch-cc's own
 * reading of the spec on the structured inputs and is refused, naming them; one that computes
 * the same as the reading, written otherwise, is built, and one wrong everywhere is refused on
 * random inputs. */
Test(reference_inputs, a_reference_disagreeing_with_the_reading_is_refused, .timeout = 600)
{
    fixture f;
    fixture_open(&f, "#pragma harness \"y[i] = 2 * x[i]\" extent(x: n, y: n)\n"
                     "void twice(int n, const double *x, double *y);\n");
    char *cc_argv[] = {"cc", NULL};
    const char *reading = "void twice_reference(int n, const double *x, double *y)\n"
                          "{ for (int i = 0; i < n; i++) y[i] = 2 * x[i]; }\n";
    const char *flat = "void twice_reference(int n, const double *x, double *y)\n"
                       "{ int flat = n > 3 && x[0] == x[1] && x[1] == x[2] && x[2] == x[3];\n"
                       "  for (int i = 0; i < n; i++) y[i] = flat ? x[i] : 2 * x[i]; }\n";
    ch_oracle o = {NULL, cc_argv, flat, 0, reading, "formula: y[i] = 2 * x[i]", 0};
    char *exe = NULL;
    ch_error err;
    cr_expect_neq(ch_reference_build(&f.c, &o, f.dir, &exe, NULL, &err), 0,
                  "a reference wrong on uniform inputs accepted");
    cr_expect_not_null(strstr(err.msg, "reference for twice is refused: it disagrees with "
                                       "ch-cc's own reading of the spec (formula: y[i] = 2 * "
                                       "x[i]) on inputs where every buffer holds one value at n="),
                       "%s", err.msg);
    free(exe);
    exe = NULL;
    const char *sum = "void twice_reference(int n, const double *x, double *y)\n"
                      "{ for (int i = n - 1; i >= 0; i--) y[i] = x[i] + x[i]; }\n";
    ch_oracle same = {NULL, cc_argv, sum, 0, reading, "formula", 0};
    cr_expect_eq(ch_reference_build(&f.c, &same, f.dir, &exe, NULL, &err), 0, "%s", err.msg);
    free(exe);
    exe = NULL;
    static const struct {
        const char *src, *says;
    } wrong[] = {
        {"void twice_reference(int n, const double *x, double *y)\n"
         "{ for (int i = 0; i < n; i++) y[i] = 3 * x[i]; }\n",
         "(formula) on random inputs at n="},
        /* attacks7 #15: right up to a threshold above every checklist size, wrong past it: the
         * sizes beside the reference's own constants are compared too */
        {"void twice_reference(int n, const double *x, double *y)\n"
         "{ int m = n > 65536 ? 65536 : n;\n"
         "  for (int i = 0; i < m; i++) y[i] = 2 * x[i]; }\n",
         "(formula) on random inputs at n=65537"},
        /* attacks8 #49: the same without a comparison, by a shift: the sizes beside 2^17 */
        {"void twice_reference(int n, const double *x, double *y)\n"
         "{ int m = (n >> 17) ? (1 << 17) : n;\n"
         "  for (int i = 0; i < m; i++) y[i] = 2 * x[i]; }\n",
         "(formula) on random inputs at n=131073"},
        /* and past a size no constant compares with: compared at the size it is timed at
         * (about 4M here, a quarter of the tune size), where the host path runs */
        {"void twice_reference(int n, const double *x, double *y)\n"
         "{ int m = n / 3000000 ? 3000000 : n;\n"
         "  for (int i = 0; i < m; i++) y[i] = 2 * x[i]; }\n",
         "(formula) on random inputs at n="},
        /* attacks7 #16: right inside the checklist's range, wrong above 4: compared off the
         * range too (the reading holds for every value) */
        {"void twice_reference(int n, const double *x, double *y)\n"
         "{ for (int i = 0; i < n; i++) y[i] = x[i] > 4 ? x[i] : 2 * x[i]; }\n",
         "(formula) on random inputs from 33 times the checklist's ranges at n="},
        /* attacks8 #48: the same past any multiple of the range: inputs drawn at its literal */
        {"void twice_reference(int n, const double *x, double *y)\n"
         "{ for (int i = 0; i < n; i++) y[i] = x[i] > 1e6 ? x[i] : 2 * x[i]; }\n",
         "(formula) on random inputs where floating values sit at the literals the reference "
         "compares with"},
        /* and computed rather than spelled: the value compared with, not its first literal */
        {"void twice_reference(int n, const double *x, double *y)\n"
         "{ for (int i = 0; i < n; i++) y[i] = x[i] > 5e5 * 2 ? x[i] : 2 * x[i]; }\n",
         "(formula) on random inputs where floating values sit at the literals the reference "
         "compares with"},
    };
    for (size_t k = 0; k < sizeof wrong / sizeof wrong[0]; k++) {
        ch_oracle o2 = {NULL, cc_argv, wrong[k].src, 0, reading, "formula", 0};
        cr_expect_neq(ch_reference_build(&f.c, &o2, f.dir, &exe, NULL, &err), 0,
                      "wrong reference %zu accepted", k);
        cr_expect_not_null(strstr(err.msg, wrong[k].says), "%zu: %s", k, err.msg);
        free(exe);
        exe = NULL;
    }
    fixture_close(&f);
}

/* attacks7 #14, #30, #31: references right on every input set in the default run and wrong
 * elsewhere, or far too slow for a host path, are refused, naming what was compared: one that
 * stops when its buffers are carved from one allocation (either order), one that computes
 * nothing when subnormals flush to zero (a -ffast-math program), one quadratic where the spec
 * is linear (timed at the tune size); attacks8 #25, #35, #28, #30: one that computes nothing
 * under another rounding mode, one that traps where the formula raises nothing, one that skips
 * NaN, one that crashes on an empty call. The honest one is built: none of these refuses it. */
Test(reference_inputs, a_reference_depending_on_where_it_runs_is_refused, .timeout = 900)
{
    fixture f;
    fixture_open(&f, "#pragma harness \"y[i] = 2 * x[i]\" extent(x: n, y: n)\n"
                     "void twice(int n, const double *x, double *y);\n");
    char *cc_argv[] = {"cc", NULL};
    const char *reading = "void twice_reference(int n, const double *x, double *y)\n"
                          "{ for (int i = 0; i < n; i++) y[i] = 2 * x[i]; }\n";
    static const struct {
        const char *src, *says;
    } hostile[] = {
        {"void twice_reference(int n, const double *x, double *y)\n"
         "{ if ((const double *)y == x + n) return;\n"
         "  for (int i = 0; i < n; i++) y[i] = 2 * x[i]; }\n",
         "(formula) on random inputs in buffers carved from one allocation, adjacent in "
         "parameter order at n="},
        {"void twice_reference(int n, const double *x, double *y)\n"
         "{ if (x == (const double *)y + n) return;\n"
         "  for (int i = 0; i < n; i++) y[i] = 2 * x[i]; }\n",
         "(formula) on random inputs in buffers carved from one allocation, adjacent in reverse "
         "parameter order at n="},
        {"void twice_reference(int n, const double *x, double *y)\n"
         "{ volatile double probe = 1e-310; double flushed = probe * 1.0;\n"
         "  for (int i = 0; i < n; i++) y[i] = flushed == 0 ? x[i] : 2 * x[i]; }\n",
         "(formula) on random inputs with subnormals flushed to zero (FTZ/DAZ, as in a "
         "program linked with -ffast-math) at n="},
        {"void twice_reference(int n, const double *x, double *y)\n"
         "{ volatile double sink = 0; for (int i = 0; i < n; i++) {\n"
         "    for (int j = 0; j < n; j++) sink = x[j];\n"
         "    y[i] = 2 * x[i]; } }\n",
         "it is far slower than ch-cc's own reading of the spec (formula) at n="},
        /* attacks8 #25: nothing computed unless the program rounds to nearest */
        {"void twice_reference(int n, const double *x, double *y)\n"
         "{ volatile double one = 1.0; if (one + 0x1p-60 != one) return;\n"
         "  for (int i = 0; i < n; i++) y[i] = 2 * x[i]; }\n",
         "(formula) on random inputs rounded upward (FE_UPWARD) at n="},
        /* attacks8 #35: right, but divides by zero on the way */
        {"void twice_reference(int n, const double *x, double *y)\n"
         "{ volatile double zero = 0; volatile double inf = 1 / zero; (void)inf;\n"
         "  for (int i = 0; i < n; i++) y[i] = 2 * x[i]; }\n",
         "with floating-point traps enabled (FE_DIVBYZERO, FE_INVALID, FE_OVERFLOW) at n=1: it "
         "raises a floating-point exception on inputs the reading computes without one"},
        /* attacks8 #28: NaN skipped where the formula carries it */
        {"void twice_reference(int n, const double *x, double *y)\n"
         "{ for (int i = 0; i < n; i++) y[i] = x[i] != x[i] ? 0 : 2 * x[i]; }\n",
         "(formula) on random inputs holding NaN and Inf at random positions at n="},
        /* attacks8 #30: touches x[0] before its loop, NULL in an empty call */
        {"void twice_reference(int n, const double *x, double *y)\n"
         "{ volatile double warm = x[0]; (void)warm;\n"
         "  for (int i = 0; i < n; i++) y[i] = 2 * x[i]; }\n",
         "(formula) on an empty call (every size 0, NULL for every buffer of no element) at n=0: "
         "it crashes on an empty call"},
        /* attacks8 #27: two passes, wrong when the caller passes one array as x and y */
        {"void twice_reference(int n, const double *x, double *y)\n"
         "{ for (int i = 0; i < n; i++) y[i] = 0;\n"
         "  for (int i = 0; i < n; i++) y[i] += 2 * x[i]; }\n",
         "(formula) on inputs where an input and an output of one type and length are one array"},
        /* attacks8 #33: 4 MiB on the stack, fine on the main thread of 8 MiB */
        {"void twice_reference(int n, const double *x, double *y)\n"
         "{ volatile double big[1 << 19];\n"
         "  for (int i = 0; i < n; i++) { big[i % 7] = x[i]; y[i] = 2 * big[i % 7]; } }\n",
         "on a stack of 512 KiB (a thread's in many programs) at n="},
        /* attacks8 #32: returns silently when its scratch cannot be had */
        {"#include <stdlib.h>\n"
         "void twice_reference(int n, const double *x, double *y)\n"
         "{ double *t = malloc((size_t)(n + 1) * sizeof *t); if (!t) return;\n"
         "  for (int i = 0; i < n; i++) { t[i] = 2 * x[i]; y[i] = t[i]; }\n"
         "  free(t); }\n",
         "(formula) on random inputs with every allocation of the reference failing (a program "
         "short of memory) at n="},
    };
    for (size_t k = 0; k < sizeof hostile / sizeof hostile[0]; k++) {
        ch_oracle o = {NULL, cc_argv, hostile[k].src, 0, reading, "formula", 0};
        char *exe = NULL;
        ch_error err;
        cr_expect_neq(ch_reference_build(&f.c, &o, f.dir, &exe, NULL, &err), 0,
                      "hostile reference %zu accepted", k);
        cr_expect_not_null(strstr(err.msg, hostile[k].says), "%zu: %s", k, err.msg);
        free(exe);
    }
    ch_oracle honest = {NULL, cc_argv, reading, 0, reading, "formula", 0};
    char *exe = NULL;
    ch_error err;
    cr_expect_eq(ch_reference_build(&f.c, &honest, f.dir, &exe, NULL, &err), 0, "%s", err.msg);
    free(exe);
    /* scratch memory whose failure goes unchecked crashes, which the user sees: accepted */
    const char *scratch = "#include <stdlib.h>\n"
                          "void twice_reference(int n, const double *x, double *y)\n"
                          "{ double *t = malloc((size_t)(n + 1) * sizeof *t);\n"
                          "  for (int i = 0; i < n; i++) { t[i] = 2 * x[i]; y[i] = t[i]; }\n"
                          "  free(t); }\n";
    ch_oracle loud = {NULL, cc_argv, scratch, 0, reading, "formula", 0};
    exe = NULL;
    cr_expect_eq(ch_reference_build(&f.c, &loud, f.dir, &exe, NULL, &err), 0, "%s", err.msg);
    free(exe);
    fixture_close(&f);
}

/* attacks8 #27's check compares on one array only where the spec's result does not depend on
 * it: here the reading's forward loop, given one array, reads elements it has written, and an
 * honest reference looping backwards differs from it there and nowhere else. Built. */
Test(reference_inputs, an_order_the_spec_leaves_open_under_aliasing_is_accepted, .timeout = 300)
{
    fixture f;
    fixture_open(&f, "#pragma harness \"b[i] = a[i] + a[n - 1 - i]\" extent(a: n, b: n)\n"
                     "void mirror(int n, const double *a, double *b);\n");
    char *cc_argv[] = {"cc", NULL};
    const char *reading = "void mirror_reference(int n, const double *a, double *b)\n"
                          "{ for (int i = 0; i < n; i++) b[i] = a[i] + a[n - 1 - i]; }\n";
    const char *backwards = "void mirror_reference(int n, const double *a, double *b)\n"
                            "{ for (int i = n - 1; i >= 0; i--) b[i] = a[i] + a[n - 1 - i]; }\n";
    ch_oracle honest = {NULL, cc_argv, backwards, 0, reading, "formula", 0};
    char *exe = NULL;
    ch_error err;
    cr_expect_eq(ch_reference_build(&f.c, &honest, f.dir, &exe, NULL, &err), 0, "%s", err.msg);
    free(exe);
    fixture_close(&f);
}

/* attacks8 #25's rounding modes change a correct reduction by a few ulps of each step: a float
 * sum accumulated in float, as a test author writes it, is within the entry's tolerance of a
 * reading accumulating in double in every mode, and built. */
Test(reference_inputs, a_sum_in_another_rounding_mode_is_accepted, .timeout = 300)
{
    fixture f;
    fixture_open(&f, "#pragma harness \"s[0] = sum_i x[i]\" extent(x: n, s: 1)\n"
                     "void total(int n, const float *x, float *s);\n");
    char *cc_argv[] = {"cc", NULL};
    const char *reading = "void total_reference(int n, const float *x, float *s)\n"
                          "{ double acc = 0; for (int i = 0; i < n; i++) acc += x[i];\n"
                          "  s[0] = (float)acc; }\n";
    const char *in_float = "void total_reference(int n, const float *x, float *s)\n"
                           "{ float acc = 0; for (int i = 0; i < n; i++) acc += x[i];\n"
                           "  s[0] = acc; }\n";
    ch_oracle honest = {NULL, cc_argv, in_float, 0, reading, "formula", 0};
    char *exe = NULL;
    ch_error err;
    cr_expect_eq(ch_reference_build(&f.c, &honest, f.dir, &exe, NULL, &err), 0, "%s", err.msg);
    free(exe);
    fixture_close(&f);
}
