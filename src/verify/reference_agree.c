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
 * and the user is told both. */
#include <stdlib.h>
#include <string.h>

#include "ch/fsutil.h"
#include "ch/proc.h"
#include "ch/sandbox.h"
#include "ch/scaffold.h"
#include "ch/verify.h"
#include "reference_agree.h"

static const ch_data_shape shapes[] = {CH_DATA_RANDOM, CH_DATA_UNIFORM, CH_DATA_EQUAL,
                                       CH_DATA_WIDE};
static const char *const shape_words[] = {"random inputs",
                                          "inputs where every buffer holds one value",
                                          "inputs where buffers of one type and length are equal",
                                          "random inputs from 33 times the checklist's ranges"};

/* Runs `exe set` in the sandbox; NULL when it exited 0, else what went wrong. */
static char *run_one(const char *exe, const char *set)
{
    ch_sandbox_opts so;
    ch_sandbox_opts_cpu(&so, set, 60);
    char *argv[] = {(char *)exe, (char *)set, NULL};
    ch_proc_result pr;
    ch_proc_result_init(&pr);
    ch_error e;
    char *why = NULL;
    if (ch_sandbox_run(&so, argv, &pr, &e) != 0)
        why = ch_xstrdup(e.msg);
    else if (pr.timed_out || pr.signaled || pr.exit_code != 0)
        why = ch_xasprintf("it stopped with status %d", pr.exit_code);
    ch_proc_result_free(&pr);
    return why;
}

/* The first output on which a and b (two runs' directories) differ beyond the checklist's
 * tolerances, as text; NULL when they agree. */
static char *first_difference(const ch_checklist *c, const ch_dataset *ds, const char *a,
                              const char *b)
{
    char *diff = NULL;
    for (size_t i = 0; i < c->n_params && !diff; i++) {
        const ch_ck_param *p = &c->params[i];
        if (p->role == CH_ROLE_SCALAR || p->dir == CH_DIR_IN)
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
            ch_compare(p->elem, got, want, ds->count[i], p->rtol, p->rtol > 0 ? p->atol : -1, &r);
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

/* One size and shape: both programs on the same inputs. NULL when they agree, else why. */
static char *compare_at(const ch_checklist *c, const char *exe, const char *reading_exe,
                        const char *dir, const ch_ck_size *size, uint64_t seed, ch_data_shape shape)
{
    ch_dataset ds;
    ch_error e;
    if (ch_data_synthesize_shaped(c, size, seed, shape, &ds, &e) != 0)
        return NULL; /* the probe has said what is wrong with the sizes */
    char *a = ch_path_join(dir, "agree-ref"), *b = ch_path_join(dir, "agree-reading");
    char *why = NULL;
    if (ch_mkdir_p(a, &e) != 0 || ch_mkdir_p(b, &e) != 0 || ch_dataset_write(c, &ds, a, &e) != 0 ||
        ch_dataset_write(c, &ds, b, &e) != 0)
        why = ch_xstrdup(e.msg);
    char *ra = why ? NULL : run_one(exe, a);
    char *rb = why || ra ? NULL : run_one(reading_exe, b);
    if ((ra || rb) && shape != CH_DATA_WIDE) {
        why = ch_xasprintf("the %s program failed: %s", ra ? "reference" : "reading", ra ? ra : rb);
    } else if (ra || rb) {
        /* off the range a body may fail where the spec does not hold (an index drawn from a
         * value): such inputs compare nothing */
    } else if (!why) {
        why = first_difference(c, &ds, a, b);
    }
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
    *n_extra = ch_magic_sizes(c, &consts, AGREE_MAX_BYTES, extra, CH_MAGIC_MAX_SIZES);
    for (size_t j = 0; j < *n_extra; j++)
        at[n++] = &extra[j];
    return n;
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
    int rc = 0;
    for (size_t k = 0; k < n && rc == 0; k++)
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0] && rc == 0; s++) {
            char *why = compare_at(c, exe, reading_exe, dir, at[k], 0xa9eeULL + k, shapes[s]);
            if (!why)
                continue;
            char *size = ch_ck_size_text(at[k]);
            rc = ch_error_set(err,
                              "reference: the test author's reference for %s is refused: it "
                              "disagrees with ch-cc's own reading of the spec (%s) on %s at "
                              "%s: %s; if the reading is the wrong one, write the spec so "
                              "that it says what you mean",
                              c->name, how ? how : "builtin reader", shape_words[s], size, why);
            free(size);
            free(why);
        }
    for (size_t j = 0; j < n_extra; j++)
        ch_ck_size_free(&extra[j]);
    free(at);
    return rc;
}
