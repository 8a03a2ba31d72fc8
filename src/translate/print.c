/* The text summary of a model and its dependences (ch_tr_print): what golden tests compare and
 * what refusals and reports quote. One item a line, in a fixed order (statements, loops in
 * textual order, dependences sorted by kind, array, source, sink), so that the text depends
 * only on the input. Relations are printed by isl, in the model's own names. */
#include <stdlib.h>
#include <string.h>

#include <isl/map.h>
#include <isl/set.h>

#include "ch/translate.h"

static void print_loop(ch_strbuf *out, const ch_tr_model *m, const ch_tr_deps *d, size_t l)
{
    const ch_tr_loop *L = &m->loops[l];
    const ch_tr_loop_par *p = &d->loops[l];
    ch_strbuf_addf(out, "loop %s at %u:%u: ", L->counter, L->line, L->col);
    if (p->parallel) {
        ch_strbuf_adds(out, "parallel");
    } else {
        /* one item per (array, source, sink), listing the kinds it carries: "flow/anti" */
        ch_strbuf_adds(out, "carries ");
        char *done = ch_xcalloc(p->n_carried, 1);
        for (size_t i = 0; i < p->n_carried; i++) {
            if (done[i])
                continue;
            const ch_tr_dep *x = &d->deps[p->carried[i]];
            if (i)
                ch_strbuf_adds(out, ", ");
            for (size_t j = i, first = 1; j < p->n_carried; j++) {
                const ch_tr_dep *y = &d->deps[p->carried[j]];
                if (done[j] || y->array != x->array || y->src != x->src || y->sink != x->sink)
                    continue;
                done[j] = 1;
                ch_strbuf_addf(out, "%s%s", first ? "" : "/", ch_tr_dep_kind_name(y->kind));
                first = 0;
            }
            ch_strbuf_addf(out, " %s -> %s on %s", m->stmts[x->src].name, m->stmts[x->sink].name,
                           m->arrays[x->array].name);
        }
        free(done);
        if (p->reduction)
            ch_strbuf_addf(out, " (reduction on %s (%s))", m->arrays[p->red_array].name, p->red_op);
    }
    for (size_t i = 0; i < p->n_privates; i++)
        ch_strbuf_addf(out, "%s%s%s", i ? ", " : " (private ",
                       m->arrays[p->privates[i]].is_scalar ? "" : "array ",
                       m->arrays[p->privates[i]].name);
    ch_strbuf_adds(out, p->n_privates ? ")" : "");
    if (p->not_private)
        ch_strbuf_addf(out, " (array %s not private: %s)", m->arrays[p->not_private_array].name,
                       p->not_private);
    ch_strbuf_addc(out, '\n');
}

void ch_tr_print(ch_strbuf *out, const ch_tr_model *m, const ch_tr_deps *d, int what)
{
    if (what & CH_TR_PRINT_STMTS)
        for (size_t i = 0; i < m->n_stmts; i++) {
            const ch_tr_stmt *s = &m->stmts[i];
            char *dom = isl_set_to_str(s->domain);
            ch_strbuf_addf(out, "%s at %u:%u%s: %s\n  %s\n", s->name, s->line, s->col,
                           s->may ? " (may)" : "", s->text, dom);
            free(dom);
        }
    if (what & CH_TR_PRINT_STMTS)
        for (size_t i = 0; i < m->n_arrays; i++)
            if (m->arrays[i].shape)
                ch_strbuf_addf(out, "array %s: flattened, subscripts split as %s%s\n",
                               m->arrays[i].name, m->arrays[i].name, m->arrays[i].shape);
    if ((what & CH_TR_PRINT_LOOPS) && d)
        for (size_t l = 0; l < m->n_loops; l++)
            print_loop(out, m, d, l);
    if ((what & CH_TR_PRINT_DEPS) && d)
        for (size_t i = 0; i < d->n_deps; i++) {
            const ch_tr_dep *x = &d->deps[i];
            char *rel = isl_map_to_str(x->rel);
            ch_strbuf_addf(out, "%s %s -> %s on %s: %s\n", ch_tr_dep_kind_name(x->kind),
                           m->stmts[x->src].name, m->stmts[x->sink].name, m->arrays[x->array].name,
                           rel);
            free(rel);
        }
}
