/* A test author's reference is the oracle every kernel is judged against and, for a spec-only
 * entry, the host path linked into the user's program. A wrong one is wrong in both places,
 * and verification cannot see it: kernels are compared with it. attacks6/15 is the sharp case,
 * a reference right on random inputs and wrong when the first elements are equal, which every
 * test passes and a user's array of ones does not.
 *
 * Where ch-cc can read the spec itself (agent/spec: a formula in the words, or a catalog
 * operation), that reading is a second reference, written without the model. The test
 * author's must agree with it on the inputs the verifier uses, random and structured alike
 * (the shapes a trigger on the data hides behind); a disagreement refuses the test author's
 * reference, which is then neither oracle nor host path. The reading is not taken in its
 * place: where the two differ, the words may be ambiguous and the reading may be the wrong one,
 * and the user is told both.
 *
 * What the reference computes may also depend on where it runs rather than on its inputs: on
 * where its buffers lie (attacks7 #14, `y == x + n`: one malloc split in two, as users' programs
 * do, while every test allocates each buffer alone) or on the floating-point environment
 * (attacks7 #30: nothing computed when subnormals flush to zero, as in any program linked with
 * -ffast-math). Both are compared too. And a reference right everywhere may still be far too
 * slow to be a host path (attacks7 #31: quadratic where the spec is linear, unnoticed at the
 * test sizes): it is timed against the reading at the tune size. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ch/fsutil.h"
#include "ch/proc.h"
#include "ch/sandbox.h"
#include "ch/scaffold.h"
#include "ch/verify.h"
#include "reference_agree.h"

/* One comparison: the inputs' shape and how each program runs (a mode of the generated main,
 * reference.c's gen_main: NULL for the plain run). */
typedef struct agree_case {
    ch_data_shape shape;
    const char *mode;         /* the reference's run */
    const char *reading_mode; /* the reading's: on the same layout, in the default environment */
    int flushed;              /* a difference below the smallest normal number is no difference */
    const char *words;        /* the inputs, for the message */
    const char *hint;         /* what the reference may not do, for the message, or NULL */
    const char *fails; /* why the reference is refused when it fails where the reading does not;
                          NULL: any failure is one. Where both fail, nothing is compared */
    int loud_ok;       /* a reference that fails is not refused (it stops the program, which a
                          user sees); one that returns must agree */
    int alias;         /* compared only where the reading gives on one buffer what it gives on
                          two equal ones: where the spec's result depends on the aliasing, an
                          order of the loops is no error */
    int at_values;     /* floating inputs drawn at the reference's constants (put_values) */
    int empty;         /* every size 0 (where the checklist's extents do not allow it, inputs
                          cannot be made and nothing is compared) */
} agree_case;

/* The literals the reference compares with (ch_magic_values). */
typedef struct agree_values {
    double v[CH_MAGIC_MAX_CONSTS];
    size_t n;
} agree_values;

static const agree_case cases[] = {
    {.shape = CH_DATA_RANDOM, .words = "random inputs"},
    {.shape = CH_DATA_UNIFORM, .words = "inputs where every buffer holds one value"},
    {.shape = CH_DATA_EQUAL, .words = "inputs where buffers of one type and length are equal"},
    {.shape = CH_DATA_WIDE, .words = "random inputs from 33 times the checklist's ranges"},
    /* adjacent, not overlapping: a reference right for separate buffers is right here */
    {.shape = CH_DATA_RANDOM,
     .mode = "carved",
     .reading_mode = "carved",
     .words = "random inputs in buffers carved from one allocation, adjacent in parameter order",
     .hint = "a reference's result may not depend on where its buffers lie"},
    {.shape = CH_DATA_RANDOM,
     .mode = "carved-rev",
     .reading_mode = "carved-rev",
     .words = "random inputs in buffers carved from one allocation, adjacent in reverse "
              "parameter order",
     .hint = "a reference's result may not depend on where its buffers lie"},
    /* the reading runs in the default environment: a program's flushing changes a result by
     * less than the smallest normal number, and the tolerance is raised to that */
    {.shape = CH_DATA_RANDOM,
     .mode = "ftz",
     .flushed = 1,
     .words = "random inputs with subnormals flushed to zero (FTZ/DAZ, as in a program linked "
              "with -ffast-math)",
     .hint = "a reference may not depend on the floating-point environment"},
    /* attacks8 #25: the reading runs in the default mode, and the tolerance (ulps of every
     * operation, as another summation order) already covers what the mode changes */
    {.shape = CH_DATA_RANDOM,
     .mode = "round-up",
     .words = "random inputs rounded upward (FE_UPWARD)",
     .hint = "a reference may not depend on the rounding mode"},
    {.shape = CH_DATA_RANDOM,
     .mode = "round-down",
     .words = "random inputs rounded downward (FE_DOWNWARD)",
     .hint = "a reference may not depend on the rounding mode"},
    {.shape = CH_DATA_RANDOM,
     .mode = "round-zero",
     .words = "random inputs rounded toward zero (FE_TOWARDZERO)",
     .hint = "a reference may not depend on the rounding mode"},
    /* attacks8 #35: a program that traps (a debug build) dies where the spec's own arithmetic
     * raises nothing; where the reading traps too, the spec does and nothing is compared */
    {.shape = CH_DATA_RANDOM,
     .mode = "trap",
     .reading_mode = "trap",
     .words = "random inputs with floating-point traps enabled (FE_DIVBYZERO, FE_INVALID, "
              "FE_OVERFLOW)",
     .hint = "a reference may raise only the exceptions the spec's own formula raises",
     .fails = "it raises a floating-point exception on inputs the reading computes without one"},
    /* attacks8 #28: NaN as a missing value, Inf from an overflow upstream; compare matches
     * them in kind */
    {.shape = CH_DATA_NONFINITE,
     .words = "random inputs holding NaN and Inf at random positions",
     .hint = "a reference must carry NaN and Inf as the spec's formula does"},
    /* attacks8 #48: a trigger on a value beyond any multiple of the range the checklist (which
     * the model writes too) gives; compared only where the reference compares with literals */
    {.shape = CH_DATA_RANDOM,
     .at_values = 1,
     .words = "random inputs where floating values sit at the literals the reference compares "
              "with, their negatives and next to them",
     .hint = "a reference may not single out input values the spec does not"},
};

#define STR_(x)   #x
#define STR(x)    STR_(x)
#define STACK_KIB STR(CH_REF_SMALL_STACK_KIB)

/* Compared once, at the smallest correctness size (the sizes, all 0, for the empty call):
 * - attacks8 #30: the empty call, where C callers pass NULL for a buffer of no element; a
 *   reference touching one crashes the user's program;
 * - #27: the caller passes an input and an output in one array;
 * - #33: a call on a thread's small stack;
 * - #32: every allocation fails. */
static const agree_case once_cases[] = {
    {.shape = CH_DATA_RANDOM,
     .mode = "empty",
     .reading_mode = "empty",
     .empty = 1,
     .words = "an empty call (every size 0, NULL for every buffer of no element)",
     .hint = "a reference may not touch a buffer of no element",
     .fails = "it crashes on an empty call"},
    {.shape = CH_DATA_EQUAL,
     .mode = "alias",
     .reading_mode = "alias",
     .alias = 1,
     .words = "inputs where an input and an output of one type and length are one array (the "
              "prototype does not declare them restrict, so a C caller may pass one array for "
              "both)",
     .hint = "a reference must give the spec's result when the caller passes one array as an "
             "input and an output, where the spec's own result does not depend on it"},
    {.shape = CH_DATA_RANDOM,
     .mode = "small-stack",
     .reading_mode = "small-stack",
     .words = "random inputs on a stack of " STACK_KIB " KiB (a thread's in many programs)",
     .hint = "a reference may not keep large arrays on the stack: a program calls it from threads",
     .fails = "it overflows a " STACK_KIB " KiB stack"},
    {.shape = CH_DATA_RANDOM,
     .mode = "nomem",
     .loud_ok = 1,
     .words = "random inputs with every allocation of the reference failing (a program short of "
              "memory)",
     .hint = "a reference that cannot allocate may not return as if it had computed: compute "
             "without the memory where the spec needs none"},
};

/* Runs `exe set [mode]` in the sandbox (seconds of wall time; CPU time a second more, so that
 * the wall limit is what stops it), pr filled; -1 with err when it could not be started. */
static int run_mode(const char *exe, const char *set, const char *mode, double seconds,
                    ch_proc_result *pr, ch_error *err)
{
    ch_sandbox_opts so;
    ch_sandbox_opts_cpu(&so, set, seconds);
    so.cpu_seconds = (long)ceil(seconds) + 1;
    char *argv[] = {(char *)exe, (char *)set, (char *)mode, NULL};
    ch_proc_result_init(pr);
    return ch_sandbox_run(&so, argv, pr, err);
}

/* Runs `exe set [mode]` in the sandbox; NULL when it exited 0, else what went wrong. */
static char *run_one(const char *exe, const char *set, const char *mode)
{
    ch_proc_result pr;
    ch_error e;
    char *why = NULL;
    if (run_mode(exe, set, mode, 60, &pr, &e) != 0)
        why = ch_xstrdup(e.msg);
    else if (pr.timed_out || pr.signaled || pr.exit_code != 0)
        why = ch_xasprintf("it stopped with status %d", pr.exit_code);
    ch_proc_result_free(&pr);
    return why;
}

/* The absolute tolerance p is compared with (as ch_compare takes it); flushed: at least the
 * smallest normal number of its type, what flushing subnormals to zero may change. */
static double atol_for(const ch_ck_param *p, int flushed)
{
    double atol = p->rtol > 0 ? p->atol : -1;
    if (flushed && atol > 0 && (p->elem == CH_T_FLOAT || p->elem == CH_T_DOUBLE))
        atol = fmax(atol, p->elem == CH_T_FLOAT ? FLT_MIN : DBL_MIN);
    return atol;
}

/* The first buffer on which a and b (two runs' directories) differ beyond the checklist's
 * tolerances, as text; NULL when they agree. Inputs are compared too: in the carved layouts
 * they are not read-only, and a reference may not write them. */
static char *first_difference(const ch_checklist *c, const ch_dataset *ds, const char *a,
                              const char *b, int flushed)
{
    char *diff = NULL;
    for (size_t i = 0; i < c->n_params && !diff; i++) {
        const ch_ck_param *p = &c->params[i];
        if (p->role == CH_ROLE_SCALAR)
            continue;
        char *pa = ch_xasprintf("%s/%s.out.bin", a, p->name);
        char *pb = ch_xasprintf("%s/%s.out.bin", b, p->name);
        void *got = NULL, *want = NULL;
        ch_error e;
        if (ch_buf_read(pa, p->elem, ds->count[i], &got, NULL, &e) != 0 ||
            ch_buf_read(pb, p->elem, ds->count[i], &want, NULL, &e) != 0) {
            diff = ch_xasprintf("output %s unreadable: %s", p->name, e.msg);
        } else {
            ch_cmp_result r;
            ch_compare(p->elem, got, want, ds->count[i], p->rtol, atol_for(p, flushed), &r);
            if (!r.ok && r.n_first)
                diff = ch_xasprintf("%s[%zu] is %.9g where the reading gives %.9g", p->name,
                                    r.first[0].index, r.first[0].got, r.first[0].expected);
            else if (!r.ok)
                diff = ch_xasprintf("%s differs from the reading's (relative L2 %.3g)", p->name,
                                    r.rel_l2);
        }
        free(got);
        free(want);
        free(pa);
        free(pb);
    }
    return diff;
}

/* Why the reference is refused when a program failed (ra, rb: the reference's and the
 * reading's failures, or NULL), or NULL when nothing is refused (and nothing compared). */
static char *failed_why(const agree_case *ac, const char *ra, const char *rb)
{
    if (ac->loud_ok && !rb)
        return NULL;
    if (ac->fails)
        return ra && !rb ? ch_xasprintf("%s (%s)", ac->fails, ra) : NULL;
    /* off the range a body may fail where the spec does not hold (an index drawn from a
     * value), and so on NaN or Inf: such inputs compare nothing */
    if (ac->shape == CH_DATA_WIDE || ac->shape == CH_DATA_NONFINITE || ac->at_values)
        return NULL;
    return ch_xasprintf("the %s program failed: %s", ra ? "reference" : "reading", ra ? ra : rb);
}

/* Whether the reading's outputs in b (an alias run on ds) are what it gives on separate
 * buffers holding the same values (ds is CH_DATA_EQUAL's). */
static int reading_ignores_aliasing(const ch_checklist *c, const ch_dataset *ds,
                                    const char *reading_exe, const char *dir, const char *b)
{
    char *apart = ch_path_join(dir, "agree-reading-apart");
    ch_error e;
    int same = 0;
    if (ch_mkdir_p(apart, &e) == 0 && ch_dataset_write(c, ds, apart, &e) == 0) {
        char *r = run_one(reading_exe, apart, NULL);
        char *diff = r ? NULL : first_difference(c, ds, b, apart, 0);
        same = !r && !diff;
        free(r);
        free(diff);
    }
    ch_remove_tree(apart, &e);
    free(apart);
    return same;
}

/* Half the elements of every floating value buffer of ds (not an index or offsets array) set
 * at one of av's values: the value, its negative, or one of them a 1024th away (above and below
 * a threshold), drawn from seed. */
static void put_values(const ch_checklist *c, ch_dataset *ds, const agree_values *av, uint64_t seed)
{
    static const double beside[] = {1, 1 + 1.0 / 1024, 1 - 1.0 / 1024};
    uint64_t x = seed | 1;
    for (size_t i = 0; i < c->n_params; i++) {
        const ch_ck_param *p = &c->params[i];
        if (p->role == CH_ROLE_SCALAR || p->dir == CH_DIR_OUT || !ds->data[i] || p->index_of ||
            p->index_hi || p->offsets_hi || (p->elem != CH_T_FLOAT && p->elem != CH_T_DOUBLE))
            continue;
        for (size_t k = 0; k < ds->count[i]; k++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17; /* xorshift64 */
            if (x & 1)
                continue;
            double v = av->v[(x >> 8) % av->n] * beside[(x >> 24) % 3] * ((x >> 32) & 1 ? -1 : 1);
            if (p->elem == CH_T_FLOAT)
                ((float *)ds->data[i])[k] = (float)v;
            else
                ((double *)ds->data[i])[k] = v;
        }
    }
}

/* One size and case: both programs on the same inputs (av: the reference's literals, for a
 * case at_values). NULL when they agree, else why. */
static char *compare_at(const ch_checklist *c, const char *exe, const char *reading_exe,
                        const char *dir, const ch_ck_size *size, uint64_t seed,
                        const agree_case *ac, const agree_values *av)
{
    ch_dataset ds;
    ch_error e;
    if (ch_data_synthesize_shaped(c, size, seed, ac->shape, &ds, &e) != 0)
        return NULL; /* the probe has said what is wrong with the sizes */
    if (ac->at_values)
        put_values(c, &ds, av, seed);
    char *a = ch_path_join(dir, "agree-ref"), *b = ch_path_join(dir, "agree-reading");
    char *why = NULL;
    if (ch_mkdir_p(a, &e) != 0 || ch_mkdir_p(b, &e) != 0 || ch_dataset_write(c, &ds, a, &e) != 0 ||
        ch_dataset_write(c, &ds, b, &e) != 0)
        why = ch_xstrdup(e.msg);
    char *ra = why ? NULL : run_one(exe, a, ac->mode);
    /* the reading is run after a failure where its own failure decides (ac->fails) */
    char *rb = why || (ra && !ac->fails && !ac->loud_ok)
                   ? NULL
                   : run_one(reading_exe, b, ac->reading_mode);
    if (ra || rb)
        why = failed_why(ac, ra, rb);
    else if (!why && (!ac->alias || reading_ignores_aliasing(c, &ds, reading_exe, dir, b)))
        why = first_difference(c, &ds, a, b, ac->flushed);
    free(ra);
    free(rb);
    ch_remove_tree(a, &e);
    ch_remove_tree(b, &e);
    free(a);
    free(b);
    ch_dataset_free(&ds);
    return why;
}

static const ch_ck_size *smallest_correctness(const ch_checklist *c)
{
    size_t best = 0;
    for (size_t k = 1; k < c->n_correctness; k++)
        if (ch_verify_set_bytes(c, &c->correctness[k]) <
            ch_verify_set_bytes(c, &c->correctness[best]))
            best = k;
    return &c->correctness[best];
}

/* The sizes the two are compared at: the smoke sizes (tiny, edge cases), the smallest
 * correctness size (where a trigger that needs a few elements, as attacks6/15's first four,
 * has them) and the sizes beside the constants the reference compares with (attacks7/15: a
 * reference that stops at n = 65536), up to AGREE_MAX_BYTES. Returns how many (*extra, *n_extra:
 * the latter ones, the caller frees them). */
#define AGREE_MAX_BYTES (64.0 * 1024 * 1024)

static size_t agree_sizes(const ch_checklist *c, const char *reference_c, const ch_ck_size **at,
                          ch_ck_size *extra, size_t *n_extra)
{
    size_t n = 0;
    for (size_t k = 0; k < c->n_smoke; k++)
        at[n++] = &c->smoke[k];
    if (c->n_correctness)
        at[n++] = smallest_correctness(c);
    ch_magic_consts consts = {0};
    ch_magic_harvest(reference_c, &consts);
    ch_magic_harvest_shifts(reference_c, &consts);
    *n_extra = ch_magic_sizes(c, &consts, AGREE_MAX_BYTES, extra, CH_MAGIC_MAX_SIZES);
    for (size_t j = 0; j < *n_extra; j++)
        at[n++] = &extra[j];
    return n;
}

/* The refusal for a disagreement of ac at size (the reason why) in err; -1. */
static int refuse(const ch_checklist *c, const char *how, const agree_case *ac,
                  const ch_ck_size *at, const char *why, ch_error *err)
{
    char *size = ch_ck_size_text(at);
    int rc = ch_error_set(err,
                          "reference: the test author's reference for %s is refused: it "
                          "disagrees with ch-cc's own reading of the spec (%s) on %s at "
                          "%s: %s; %s%sif the reading is the wrong one, write the spec so "
                          "that it says what you mean",
                          c->name, how ? how : "builtin reader", ac->words, size, why,
                          ac->hint ? ac->hint : "", ac->hint ? "; " : "");
    free(size);
    return rc;
}

/* The cost check (attacks7 #31). A reference worse than the spec by a power of n is at least n
 * times slower than the reading at the tune size (n is in the thousands or more there), where a
 * constant-factor difference (another loop order, cache misses, a double accumulator) stays well
 * under a hundredfold: it is refused past AGREE_SLOWER times the reading. Below AGREE_SLOW_MS a
 * call costs the user little and a time is mostly the machine's noise (another process's turn
 * on the CPU is milliseconds), so nothing faster is refused. Each time is the best of up to five
 * calls (gen_main's time mode), which leaves out a first call's page faults and a preemption. */
#define AGREE_SLOWER  100.0
#define AGREE_SLOW_MS 50.0
/* what the reading may take; slower, it is no yardstick and nothing is timed */
#define AGREE_READING_SECONDS 60.0

/* The size the two are timed at (out; the caller frees it): the tune size, where the host
 * path runs and costs most, with every size halved until its buffers fit in AGREE_MAX_BYTES (a
 * set for a GPU is larger than a check on the CPU should fill); without one, the largest
 * correctness size. 0 when there is none. */
static int timing_size(const ch_checklist *c, ch_ck_size *out)
{
    memset(out, 0, sizeof *out);
    const ch_ck_size *from = c->tune.n ? &c->tune : NULL;
    for (size_t k = 0; !c->tune.n && k < c->n_correctness; k++)
        if (!from || ch_verify_set_bytes(c, &c->correctness[k]) > ch_verify_set_bytes(c, from))
            from = &c->correctness[k];
    if (!from)
        return 0;
    ch_ck_size_copy(out, from);
    for (int k = 0; k < 64 && ch_verify_set_bytes(c, out) > AGREE_MAX_BYTES; k++)
        for (size_t i = 0; i < out->n; i++)
            out->values[i] = out->values[i] > 1 ? out->values[i] / 2 : out->values[i];
    return 1;
}

/* `exe set time`: the best of its calls in ms, or -1 when it did not print one; *late says
 * the wall limit (seconds) stopped it. */
static double time_one(const char *exe, const char *set, double seconds, int *late)
{
    static const char key[] = "ch-time: host_ms=";
    ch_proc_result pr;
    ch_error e;
    *late = 0;
    if (run_mode(exe, set, "time", seconds, &pr, &e) != 0)
        return -1;
    const char *t = !pr.timed_out && !pr.signaled && pr.exit_code == 0 && pr.out.data
                        ? strstr(pr.out.data, key)
                        : NULL;
    double ms = t ? atof(t + strlen(key)) : -1;
    *late = pr.timed_out;
    ch_proc_result_free(&pr);
    return ms;
}

/* Why the reference is too slow (read_ms: the reading's time; ref_ms: the reference's, or -1
 * when it printed none; late: the limit of `limit` seconds stopped it), or NULL when it is not. */
static char *too_slow(double read_ms, double ref_ms, double limit, int late)
{
    double bound_ms = fmax(AGREE_SLOWER * read_ms, AGREE_SLOW_MS);
    if (ref_ms > bound_ms)
        return ch_xasprintf("a call takes %.3g ms where the reading's takes %.3g ms", ref_ms,
                            read_ms);
    /* stopped by a limit above the bound: slower than the bound, however much */
    if (ref_ms < 0 && late && limit * 1e3 >= bound_ms)
        return ch_xasprintf("it did not finish in %.3g s where the reading's call takes %.3g ms",
                            limit, read_ms);
    if (ref_ms < 0 && !late)
        return ch_xstrdup("it failed when called again on the same inputs (timed)");
    return NULL;
}

/* The reference and the reading timed on the same inputs at timing_size. 0 when the reference
 * is not far slower (or nothing could be timed: the reading's own failure is not the test
 * author's); -1 with err when it is. */
static int time_against_reading(const ch_checklist *c, const char *exe, const char *reading_exe,
                                const char *how, const char *dir, ch_error *err)
{
    ch_ck_size size;
    ch_dataset ds;
    ch_error e;
    if (!timing_size(c, &size))
        return 0;
    if (ch_data_synthesize_shaped(c, &size, 0x71eeULL, CH_DATA_RANDOM, &ds, &e) != 0) {
        ch_ck_size_free(&size);
        return 0;
    }
    char *set = ch_path_join(dir, "agree-time");
    int late = 0, rc = 0;
    double read_ms = -1;
    if (ch_mkdir_p(set, &e) == 0 && ch_dataset_write(c, &ds, set, &e) == 0)
        read_ms = time_one(reading_exe, set, AGREE_READING_SECONDS, &late);
    if (read_ms >= 0) {
        double bound_ms = fmax(AGREE_SLOWER * read_ms, AGREE_SLOW_MS);
        /* five calls within the bound, the program's start and its inputs read fit, with
         * room for a busy machine: only a reference past the bound waits the limit out */
        double limit = fmin(fmax(10, 1 + 6 * bound_ms / 1e3), AGREE_READING_SECONDS);
        double ref_ms = time_one(exe, set, limit, &late);
        char *why = too_slow(read_ms, ref_ms, limit, late);
        char *words = why ? ch_ck_size_text(&size) : NULL;
        if (why)
            rc = ch_error_set(err,
                              "reference: the test author's reference for %s is refused: it is "
                              "far slower than ch-cc's own reading of the spec (%s) at %s: %s "
                              "(the best of up to 5 calls each; refused past %.0f times the "
                              "reading and %.0f ms); it would be the host path of the user's "
                              "program: give it the spec's cost, without loops the spec does "
                              "not need",
                              c->name, how ? how : "builtin reader", words, why, AGREE_SLOWER,
                              AGREE_SLOW_MS);
        free(words);
        free(why);
    }
    /* the host path runs at such sizes: compared there too, once, when its time is known to be
     * bounded (attacks8 #49, a reference that stops computing past a size no constant names) */
    char *differs = read_ms >= 0 && rc == 0
                        ? compare_at(c, exe, reading_exe, dir, &size, 0x71e1ULL, &cases[0], NULL)
                        : NULL;
    if (differs)
        rc = refuse(c, how, &cases[0], &size, differs, err);
    free(differs);
    ch_remove_tree(set, &e);
    free(set);
    ch_dataset_free(&ds);
    ch_ck_size_free(&size);
    return rc;
}

/* once_cases at the smallest correctness size (the first smoke size without one); the alias
 * case only where the prototype has buffers to pass as one. 0 or -1 with err. */
static int once(const ch_checklist *c, const char *exe, const char *reading_exe, const char *how,
                const char *dir, ch_error *err)
{
    const ch_ck_size *at = c->n_correctness ? smallest_correctness(c)
                           : c->n_smoke     ? &c->smoke[0]
                                            : NULL;
    int *with = ch_xcalloc(c->n_params ? c->n_params : 1, sizeof *with);
    int pairs = ch_reference_alias_pairs(c, with) > 0;
    free(with);
    int rc = 0;
    for (size_t s = 0; at && rc == 0 && s < sizeof once_cases / sizeof once_cases[0]; s++) {
        const agree_case *ac = &once_cases[s];
        if (ac->alias && !pairs)
            continue;
        ch_ck_size size;
        ch_ck_size_copy(&size, at);
        for (size_t i = 0; ac->empty && i < size.n; i++)
            size.values[i] = 0;
        char *why = compare_at(c, exe, reading_exe, dir, &size, 0x0cee0ULL + s, ac, NULL);
        if (why)
            rc = refuse(c, how, ac, &size, why, err);
        free(why);
        ch_ck_size_free(&size);
    }
    return rc;
}

int ch_reference_agree(const ch_checklist *c, const char *exe, const char *reference_c,
                       const char *reading_exe, const char *how, const char *dir, ch_error *err)
{
    /* a sample function shapes the inputs: the two programs are not then given the same */
    if (c->sample)
        return 0;
    const ch_ck_size **at = ch_xcalloc(c->n_smoke + 1 + CH_MAGIC_MAX_SIZES, sizeof *at);
    ch_ck_size extra[CH_MAGIC_MAX_SIZES];
    size_t n_extra = 0, n = agree_sizes(c, reference_c, at, extra, &n_extra);
    agree_values av;
    av.n = ch_magic_values(reference_c, av.v, CH_MAGIC_MAX_CONSTS);
    int rc = 0;
    for (size_t k = 0; k < n && rc == 0; k++)
        for (size_t s = 0; s < sizeof cases / sizeof cases[0] && rc == 0; s++) {
            const agree_case *ac = &cases[s];
            if (ac->at_values && !av.n)
                continue;
            char *why = compare_at(c, exe, reading_exe, dir, at[k], 0xa9eeULL + k, ac, &av);
            if (!why)
                continue;
            rc = refuse(c, how, ac, at[k], why, err);
            free(why);
        }
    for (size_t j = 0; j < n_extra; j++)
        ch_ck_size_free(&extra[j]);
    free(at);
    if (rc == 0)
        rc = once(c, exe, reading_exe, how, dir, err);
    return rc ? rc : time_against_reading(c, exe, reading_exe, how, dir, err);
}
