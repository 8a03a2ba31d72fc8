/* --harness-plan's text (ch_session_plan): what the builtin translator makes of each entry's
 * body, as text a reader can check by hand: the statements and their iteration domains, every
 * loop with what it carries (or "parallel") and its private scalars, and the plan of each
 * schedule strategy (kernels, how many dimensions go to threads, where scalars live), or the
 * located reason it refuses. The golden PolyBench plans of the tests are this text. */
#include <stdlib.h>
#include <string.h>

#include "ch/pipeline.h"
#include "ch/translate.h"

static void plan_entry(const ch_entry *e, ch_strbuf *out)
{
    ch_error err;
    ch_error_clear(&err);
    ch_strbuf_addf(out, "== %s (%s:%u)\n", e->name, e->file, e->line);
    ch_tr_model *m = NULL;
    ch_tr_deps *d = NULL;
    if (ch_tr_model_build(e, &m, &err) != 0 || ch_tr_deps_compute(m, &d, &err) != 0) {
        ch_strbuf_addf(out, "refused: %s\n", err.msg);
        ch_tr_model_free(m);
        return;
    }
    ch_tr_print(out, m, d, CH_TR_PRINT_STMTS | CH_TR_PRINT_LOOPS);
    const ch_tr_strategy strategies[] = {CH_TR_ISL_SCHEDULE, CH_TR_ORIGINAL, CH_TR_ISL_SCHEDULE,
                                         CH_TR_ORIGINAL};
    for (size_t i = 0; i < sizeof strategies / sizeof *strategies; i++) {
        ch_tr_plan *p = NULL;
        /* the third plan: isl's order with parallel sums, shown when it has one; the fourth:
         * the C order with a warp per row, shown when some kernel has one */
        int flags = i == 2 ? CH_TR_PARALLEL_SUMS : i == 3 ? CH_TR_WARP_ROWS : 0;
        if (ch_tr_plan_build(m, d, strategies[i], flags, &p, &err) != 0) {
            if (flags)
                continue;
            ch_strbuf_addf(out, "strategy: %s\nrefused: %s\n", ch_tr_strategy_name(strategies[i]),
                           err.msg);
            continue;
        }
        int sums = 0; /* what the flag is shown for (every plan runs exact reductions) */
        for (size_t k = 0; k < p->n_kernels; k++)
            sums |= flags == CH_TR_WARP_ROWS ? p->kernels[k].warp_rows
                                             : p->kernels[k].reduction != (size_t)-1;
        if (!flags || sums)
            ch_tr_plan_print(out, p);
        ch_tr_plan_free(p);
    }
    ch_tr_deps_free(d);
    ch_tr_model_free(m);
}

int ch_session_plan(const ch_session *s, const char *path, ch_lang lang, const char *name,
                    ch_strbuf *out, ch_error *err)
{
    ch_entry_list l;
    ch_entry_list_init(&l);
    const ch_entry *first = NULL;
    if (ch_session_scan_named(s, path, lang, name, 0, &l, &first, err) != 0) {
        ch_entry_list_free(&l);
        return -1;
    }
    for (size_t i = 0; i < l.len; i++)
        if (!name || !*name || strcmp(l.items[i].name, name) == 0)
            plan_entry(&l.items[i], out);
    ch_entry_list_free(&l);
    return 0;
}
