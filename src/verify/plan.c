/* What verification runs for one entry, chosen from the entry's own sizes and byte counts
 * rather than fixed: how many input sets each correctness size gets, which sizes are too large
 * to be worth a reference run when smaller ones exist, where the sanitizer runs, how much device
 * memory a functional test needs, and how often the performance stage repeats. Pure functions
 * of the checklist (and the calibrated bandwidth), so the choices are unit-tested. */
#include <stdlib.h>
#include <string.h>

#include "ch/verify.h"

/* (such a size is never skipped) */
double ch_verify_set_bytes(const ch_checklist *c, const ch_ck_size *sz)
{
    double total = 0;
    for (size_t i = 0; i < c->n_params; i++) {
        const ch_ck_param *p = &c->params[i];
        if (p->role == CH_ROLE_SCALAR)
            continue;
        long long n = 0;
        ch_error err;
        if (!p->extent || ch_checklist_eval(p->extent, sz, &n, &err) != 0 || n < 0)
            return -1;
        total += (double)n * (double)ch_scalar_size(p->elem);
    }
    return total;
}

int ch_verify_plan_make(const ch_checklist *c, ch_verify_plan *p)
{
    memset(p, 0, sizeof *p);
    p->n_correct = c->n_correctness;
    p->correct_sets = ch_xcalloc(p->n_correct ? p->n_correct : 1, sizeof *p->correct_sets);
    p->correct_bytes = ch_xcalloc(p->n_correct ? p->n_correct : 1, sizeof *p->correct_bytes);
    size_t smallest = 0;
    for (size_t k = 0; k < p->n_correct; k++) {
        p->correct_bytes[k] = ch_verify_set_bytes(c, &c->correctness[k]);
        if (p->correct_bytes[k] < p->correct_bytes[smallest])
            smallest = k;
    }
    double largest_run = 0;
    for (size_t k = 0; k < p->n_correct; k++) {
        double b = p->correct_bytes[k];
        /* the smallest size always runs, with two sets: the cached-output check needs only one
         * size, and a size whose bytes are unknown is kept as the checklist says */
        if (k != smallest && b > CH_PLAN_MAX_BYTES)
            p->correct_sets[k] = 0;
        else if (k != smallest && b > CH_PLAN_TWO_SETS_BYTES)
            p->correct_sets[k] = 1;
        else
            p->correct_sets[k] = 2;
        if (p->correct_sets[k] && b > largest_run)
            largest_run = b;
    }
    /* the sanitizer is 10-100x slower: the largest size under its cap that still spans several
     * blocks, else the smallest correctness size, else the last smoke size */
    p->sanitize = p->n_correct ? (int)smallest : c->n_smoke ? -1 : -2;
    for (size_t k = 0; k < p->n_correct; k++) {
        double b = p->correct_bytes[k];
        if (b >= 0 && b <= CH_PLAN_SANITIZE_BYTES && b > p->correct_bytes[p->sanitize])
            p->sanitize = (int)k;
    }
    for (size_t k = 0; k < c->n_smoke; k++) {
        double b = ch_verify_set_bytes(c, &c->smoke[k]);
        if (b > largest_run)
            largest_run = b;
    }
    p->device_bytes = 2 * largest_run;
    return 0;
}

void ch_verify_plan_free(ch_verify_plan *p)
{
    free(p->correct_sets);
    free(p->correct_bytes);
    memset(p, 0, sizeof *p);
}

void ch_verify_tune_bytes(const ch_checklist *c, const size_t *count, ch_verify_bytes *b)
{
    memset(b, 0, sizeof *b);
    for (size_t i = 0; i < c->n_params; i++) {
        const ch_ck_param *p = &c->params[i];
        if (p->role == CH_ROLE_SCALAR)
            continue;
        double n = (double)count[i] * (double)ch_scalar_size(p->elem);
        int read = p->dir != CH_DIR_OUT, written = p->dir != CH_DIR_IN;
        b->set += n;
        b->in += read ? n : 0;
        b->out += written ? n : 0;
        b->out_only += p->dir == CH_DIR_OUT ? n : 0;
        /* the launcher copies a written-only inout buffer in (its untouched elements must come
         * back as they were), but no kernel needs to read it */
        b->kernel +=
            (read && !(p->dir == CH_DIR_INOUT && p->written_only) ? n : 0) + (written ? n : 0);
    }
}

void ch_verify_perf_counts(double set_bytes_, double dram_gbs, int *warmup, int *min_repeats,
                           int *max_repeats)
{
    /* the kernel's least time: reading and writing the set once at DRAM speed */
    double gbs = dram_gbs > 0 ? dram_gbs : 3000;
    double est_ms = set_bytes_ > 0 ? set_bytes_ / (gbs * 1e6) : 0.01;
    if (est_ms < 0.01)
        est_ms = 0.01;
    /* short calls: more samples are cheap and their noise is larger; long calls settle fast
     * (the scaffold also stops once the median is stable or 3 s of calls are spent) */
    *warmup = est_ms >= 20 ? 1 : est_ms >= 2 ? 2 : 3;
    *min_repeats = 5;
    double max = 1000.0 / est_ms;
    *max_repeats = max > 100 ? 100 : max < 10 ? 10 : (int)max;
}

double ch_verify_hopeless_bound(double host_ms, double best_call_ms, int *against_host)
{
    int host = host_ms > 0 && (best_call_ms <= 0 || host_ms <= best_call_ms);
    double base = host ? host_ms : best_call_ms > 0 ? best_call_ms : 0;
    if (against_host)
        *against_host = host;
    return CH_VERIFY_HOPELESS_FACTOR * base;
}
