/* Dependences and parallel loops of a model (ch_tr_deps_compute), all computed by isl.
 *
 * Per array (dependences through different arrays never interact, so this is exact and keeps
 * the array of every dependence): flow = isl dataflow from must/may writes to reads (value-based:
 * a must-write in between kills the older source); anti = from reads to the next writes, with
 * must-writes as kills; output = from writes to the next writes. All under the original 2d+1
 * schedule.
 *
 * A loop at depth d (counter at schedule dimension 2d-1) carries a dependence between two of
 * its statements when, mapped through the schedule, source and sink are equal on the dimensions
 * before it and differ on it. A local scalar is private to a loop (its anti and output
 * dependences carried by the loop are dropped) when every read of it in the loop takes its
 * value from a write in the same iteration: every flow dependence into the loop's reads of it
 * comes from the same iteration, none of those reads can see a value from before the body (no
 * source), and no value written in the loop is read after it.
 *
 * An array is private to a loop the same way, when in addition its whole life lies in the loop
 * (no statement outside the loop touches it). Each iteration may then work on a copy of its
 * own; the array's final contents are what the last iteration that writes it leaves, so a
 * parameter (live after the body) is private only when that iteration writes every element
 * that any iteration writes (the copy of that iteration is then the whole result), and the
 * loops around it count up (the last iteration is the greatest counters). Where an array read
 * in a loop misses only the last conditions (or only because its values are read after the
 * loop) and its dependences keep the loop sequential, the loop says why (not_private), so that
 * a plan tells the reader what stops it. */
#include <stdlib.h>
#include <string.h>

#include <isl/aff.h>
#include <isl/flow.h>
#include <isl/map.h>
#include <isl/set.h>
#include <isl/space.h>
#include <isl/union_map.h>
#include <isl/union_set.h>

#include "ch/translate.h"

const char *ch_tr_dep_kind_name(ch_tr_dep_kind k)
{
    return k == CH_TR_FLOW ? "flow" : k == CH_TR_ANTI ? "anti" : "output";
}

typedef struct split_ctx {
    const ch_tr_model *m;
    ch_tr_deps *d;
    ch_tr_dep_kind kind;
    size_t array;
} split_ctx;

static size_t stmt_named(const ch_tr_model *m, const char *name)
{
    for (size_t i = 0; i < m->n_stmts; i++)
        if (name && strcmp(m->stmts[i].name, name) == 0)
            return i;
    return (size_t)-1;
}

static isl_stat add_dep(isl_map *rel, void *user)
{
    split_ctx *x = user;
    ch_tr_deps *d = x->d;
    d->deps = ch_xrealloc(d->deps, (d->n_deps + 1) * sizeof *d->deps);
    ch_tr_dep *dep = &d->deps[d->n_deps++];
    dep->kind = x->kind;
    dep->array = x->array;
    dep->src = stmt_named(x->m, isl_map_get_tuple_name(rel, isl_dim_in));
    dep->sink = stmt_named(x->m, isl_map_get_tuple_name(rel, isl_dim_out));
    dep->rel = isl_map_coalesce(rel);
    return isl_stat_ok;
}

static int dep_cmp(const void *a, const void *b)
{
    const ch_tr_dep *x = a, *y = b;
    if (x->kind != y->kind)
        return x->kind < y->kind ? -1 : 1;
    if (x->array != y->array)
        return x->array < y->array ? -1 : 1;
    if (x->src != y->src)
        return x->src < y->src ? -1 : 1;
    return x->sink < y->sink ? -1 : x->sink > y->sink;
}

/* isl dataflow for one array: sinks, must and may sources, kills; returns the may dependences
 * and, when no_source is not NULL, the sinks that may have no source. */
static isl_union_map *flow_of(const ch_tr_model *m, isl_union_map *sink, isl_union_map *must,
                              isl_union_map *may, isl_union_map *kill, isl_union_map **no_source)
{
    isl_union_access_info *acc = isl_union_access_info_from_sink(sink);
    acc = isl_union_access_info_set_must_source(acc, must);
    acc = isl_union_access_info_set_may_source(acc, may);
    if (kill)
        acc = isl_union_access_info_set_kill(acc, kill);
    acc = isl_union_access_info_set_schedule_map(acc, isl_union_map_copy(m->schedule));
    isl_union_flow *f = isl_union_access_info_compute_flow(acc);
    isl_union_map *dep = isl_union_flow_get_may_dependence(f);
    if (no_source)
        *no_source = isl_union_flow_get_may_no_source(f);
    isl_union_flow_free(f);
    return dep;
}

/* { [x0..] -> [y0..] : x_t = y_t for t < k, and x_k < y_k (lt) or x_k = y_k (!lt) } */
static isl_map *prefix_map(const ch_tr_model *m, size_t k, int lt)
{
    ch_strbuf sb;
    ch_strbuf_init(&sb);
    ch_strbuf_adds(&sb, "{ [");
    for (size_t i = 0; i < m->sched_dims; i++)
        ch_strbuf_addf(&sb, "%sx%zu", i ? ", " : "", i);
    ch_strbuf_adds(&sb, "] -> [");
    for (size_t i = 0; i < m->sched_dims; i++)
        ch_strbuf_addf(&sb, "%sy%zu", i ? ", " : "", i);
    ch_strbuf_adds(&sb, "] : ");
    for (size_t i = 0; i <= k; i++)
        ch_strbuf_addf(&sb, "%sx%zu %s y%zu", i ? " and " : "", i, i == k && lt ? "<" : "=", i);
    ch_strbuf_adds(&sb, " }");
    isl_map *r = isl_map_read_from_str(m->ctx, sb.data);
    ch_strbuf_free(&sb);
    return r;
}

/* The dependence as a relation between schedule points. */
static isl_map *sched_image(const ch_tr_model *m, const ch_tr_dep *dep)
{
    isl_map *r =
        isl_map_apply_domain(isl_map_copy(dep->rel), isl_map_copy(m->stmts[dep->src].schedule));
    return isl_map_apply_range(r, isl_map_copy(m->stmts[dep->sink].schedule));
}

static int in_loop(const ch_tr_model *m, size_t s, size_t loop)
{
    for (size_t i = 0; i < m->stmts[s].n_loops; i++)
        if (m->stmts[s].loops[i] == loop)
            return 1;
    return 0;
}

/* Is image (a schedule relation) inside `prefix`? */
static int within(isl_map *image, isl_map *prefix)
{
    isl_bool sub = isl_map_is_subset(image, prefix);
    isl_map_free(image);
    return sub == isl_bool_true;
}

static int meets(isl_map *image, isl_map *prefix)
{
    image = isl_map_intersect(image, isl_map_copy(prefix));
    isl_bool empty = isl_map_is_empty(image);
    isl_map_free(image);
    return empty == isl_bool_false;
}

static isl_union_set *loop_domain(const ch_tr_model *m, size_t loop)
{
    isl_union_set *u = isl_union_set_empty(isl_space_params_alloc(m->ctx, 0));
    for (size_t s = 0; s < m->n_stmts; s++)
        if (in_loop(m, s, loop))
            u = isl_union_set_union(u, isl_union_set_from_set(isl_set_copy(m->stmts[s].domain)));
    return u;
}

/* Does statement s read (reads) or write (!reads) array a? */
static int touches(const ch_tr_model *m, size_t s, size_t a, int reads, int writes)
{
    isl_union_map *acc = isl_union_map_empty(isl_space_params_alloc(m->ctx, 0));
    if (reads)
        acc = isl_union_map_union(acc, isl_union_map_copy(m->arrays[a].reads));
    if (writes) {
        acc = isl_union_map_union(acc, isl_union_map_copy(m->arrays[a].must_writes));
        acc = isl_union_map_union(acc, isl_union_map_copy(m->arrays[a].may_writes));
    }
    acc = isl_union_map_intersect_domain(acc,
                                         isl_union_set_from_set(isl_set_copy(m->stmts[s].domain)));
    isl_bool empty = isl_union_map_is_empty(acc);
    isl_union_map_free(acc);
    return empty == isl_bool_false;
}

/* See the comment at the top: may loop `l` keep its own copy of local scalar a? When the only
 * obstacle is that a value written in the loop is read after it, *why says so (static text for
 * the plan). */
static int privatisable(const ch_tr_model *m, const ch_tr_deps *d, size_t l, size_t a,
                        isl_union_map *no_source, isl_map *same_iter, const char **why)
{
    int written = 0, after = 0;
    *why = NULL;
    for (size_t s = 0; s < m->n_stmts; s++)
        written |= in_loop(m, s, l) && touches(m, s, a, 0, 1);
    if (!written)
        return 0;
    for (size_t i = 0; i < d->n_deps; i++) {
        const ch_tr_dep *dep = &d->deps[i];
        if (dep->kind != CH_TR_FLOW || dep->array != a)
            continue;
        int src_in = in_loop(m, dep->src, l), sink_in = in_loop(m, dep->sink, l);
        if (sink_in && (!src_in || !within(sched_image(m, dep), same_iter)))
            return 0;
        after |= src_in && !sink_in;
    }
    isl_union_map *exposed =
        isl_union_map_intersect_domain(isl_union_map_copy(no_source), loop_domain(m, l));
    isl_bool empty = isl_union_map_is_empty(exposed);
    isl_union_map_free(exposed);
    if (empty == isl_bool_true && after)
        *why = "its values are read after the loop";
    return empty == isl_bool_true && !after;
}

/* { [the counters of loop l and the loops around it] -> element } of the writes of array a by
 * the statements in l: the must-writes, or all writes (may). */
static isl_union_map *writes_by_iteration(const ch_tr_model *m, size_t l, size_t a, int may)
{
    const ch_tr_array *A = &m->arrays[a];
    unsigned depth = (unsigned)m->loops[l].depth;
    isl_union_map *w = isl_union_map_copy(A->must_writes);
    if (may)
        w = isl_union_map_union(w, isl_union_map_copy(A->may_writes));
    isl_union_map *u = isl_union_map_empty(isl_union_map_get_space(w));
    for (size_t s = 0; s < m->n_stmts; s++) {
        if (!in_loop(m, s, l))
            continue;
        isl_union_map *one = isl_union_map_intersect_domain(
            isl_union_map_copy(w), isl_union_set_from_set(isl_set_copy(m->stmts[s].domain)));
        if (isl_union_map_is_empty(one) == isl_bool_true) {
            isl_union_map_free(one);
            continue;
        }
        isl_map *rel = isl_map_from_union_map(one);
        rel = isl_map_project_out(rel, isl_dim_in, depth, (unsigned)m->stmts[s].n_loops - depth);
        rel = isl_map_reset_tuple_id(rel, isl_dim_in);
        u = isl_union_map_union(u, isl_union_map_from_map(rel));
    }
    isl_union_map_free(w);
    return u;
}

/* The rest of the comment at the top, for array a already privatisable to loop l: NULL when
 * a may be private to l (*last then holds l's last iteration that writes a, owned by the
 * caller), else why not (static text for the plan), or "" when a's life is not inside l. */
static const char *array_refusal(const ch_tr_model *m, size_t l, size_t a, isl_pw_multi_aff **last)
{
    *last = NULL;
    for (size_t s = 0; s < m->n_stmts; s++)
        if (!in_loop(m, s, l) && touches(m, s, a, 1, 1))
            return "";
    for (size_t x = l; x != (size_t)-1; x = m->loops[x].parent)
        if (m->loops[x].down)
            return "a loop around it counts down";
    isl_union_map *all = writes_by_iteration(m, l, a, 1);
    isl_union_map *must = writes_by_iteration(m, l, a, 0);
    isl_set *iters = isl_set_from_union_set(isl_union_map_domain(isl_union_map_copy(all)));
    *last = isl_set_lexmax_pw_multi_aff(iters);
    isl_union_set *at_last =
        isl_union_set_from_set(isl_set_from_pw_multi_aff(isl_pw_multi_aff_copy(*last)));
    isl_union_set *left = isl_union_set_apply(at_last, must);
    isl_union_set *written = isl_union_map_range(all);
    int whole = isl_union_set_is_subset(written, left) == isl_bool_true;
    isl_union_set_free(left);
    isl_union_set_free(written);
    if (whole || m->arrays[a].decl)
        return NULL; /* a local array is not live after the body: any copy will do */
    isl_pw_multi_aff_free(*last);
    *last = NULL;
    return "live after the body, and the last iteration does not write every element that "
           "the others write";
}

/* The dependences loop l carries (into p->carried), but for the anti and output dependences
 * through its privates. */
static void collect_carried(const ch_tr_model *m, const ch_tr_deps *d, size_t l, ch_tr_loop_par *p,
                            isl_map *carried)
{
    p->n_carried = 0;
    for (size_t i = 0; i < d->n_deps; i++) {
        const ch_tr_dep *dep = &d->deps[i];
        if (!in_loop(m, dep->src, l) || !in_loop(m, dep->sink, l))
            continue;
        int private = 0;
        for (size_t j = 0; j < p->n_privates; j++)
        private |= p->privates[j] == dep->array && dep->kind != CH_TR_FLOW;
        if (private || !meets(sched_image(m, dep), carried))
            continue;
        p->carried = ch_xrealloc(p->carried, (p->n_carried + 1) * sizeof *p->carried);
        p->carried[p->n_carried++] = i;
    }
}

/* Keeps only the scalars among p's privates: a copy of an array per iteration costs memory
 * and copies, worth it only where it makes the loop parallel. */
static void drop_private_arrays(const ch_tr_model *m, ch_tr_loop_par *p)
{
    size_t n = 0;
    for (size_t j = 0; j < p->n_privates; j++)
        if (m->arrays[p->privates[j]].is_scalar)
            p->privates[n++] = p->privates[j];
    p->n_privates = n;
}

/* Does p carry a dependence through array a? */
static int carries_on(const ch_tr_deps *d, const ch_tr_loop_par *p, size_t a)
{
    for (size_t i = 0; i < p->n_carried; i++)
        if (d->deps[p->carried[i]].array == a)
            return 1;
    return 0;
}

/* Does a statement of loop l read array a? */
static int read_in_loop(const ch_tr_model *m, size_t l, size_t a)
{
    for (size_t s = 0; s < m->n_stmts; s++)
        if (in_loop(m, s, l) && touches(m, s, a, 1, 0))
            return 1;
    return 0;
}

static void analyse_loop(const ch_tr_model *m, ch_tr_deps *d, size_t l, isl_union_map **no_source)
{
    ch_tr_loop_par *p = &d->loops[l];
    size_t k = 2 * m->loops[l].depth - 1;
    isl_map *carried = prefix_map(m, k, 1), *same = prefix_map(m, k, 0);
    int arrays = 0;
    for (size_t a = 0; a < m->n_arrays; a++) {
        const char *why = NULL;
        if (!privatisable(m, d, l, a, no_source[a], same, &why)) {
            if (why && !m->arrays[a].is_scalar && !p->not_private) {
                p->not_private = why;
                p->not_private_array = a;
            }
            continue;
        }
        if (!m->arrays[a].is_scalar) {
            isl_pw_multi_aff *last = NULL;
            why = array_refusal(m, l, a, &last);
            isl_pw_multi_aff_free(last);
            /* an array the loop only writes has its output dependences as the whole story */
            if (why && *why && !p->not_private && read_in_loop(m, l, a)) {
                p->not_private = why;
                p->not_private_array = a;
            }
            if (why)
                continue;
            arrays = 1;
        }
        p->privates = ch_xrealloc(p->privates, (p->n_privates + 1) * sizeof *p->privates);
        p->privates[p->n_privates++] = a;
    }
    collect_carried(m, d, l, p, carried);
    if (p->n_carried && arrays) {
        drop_private_arrays(m, p);
        collect_carried(m, d, l, p, carried);
    }
    /* the refusal matters only where the array's dependences keep the loop sequential */
    if (p->not_private && (!p->n_carried || !carries_on(d, p, p->not_private_array)))
        p->not_private = NULL;
    isl_map_free(carried);
    isl_map_free(same);
    p->parallel = p->n_carried == 0;
    if (p->parallel)
        return;
    /* a reduction: every carried dependence joins instances of one statement `X op= e` through
     * X's array, and no other statement of the loop touches that array */
    const ch_tr_dep *first = &d->deps[p->carried[0]];
    size_t s = first->src, a = first->array;
    if (m->stmts[s].red_array != a)
        return;
    for (size_t i = 0; i < p->n_carried; i++) {
        const ch_tr_dep *dep = &d->deps[p->carried[i]];
        if (dep->src != s || dep->sink != s || dep->array != a)
            return;
    }
    for (size_t t = 0; t < m->n_stmts; t++)
        if (t != s && in_loop(m, t, l) && touches(m, t, a, 1, 1))
            return;
    p->reduction = 1;
    p->red_array = a;
    p->red_op = m->stmts[s].red_op;
}

int ch_tr_deps_compute(const ch_tr_model *m, ch_tr_deps **out, ch_error *err)
{
    ch_tr_deps *d = ch_xcalloc(1, sizeof *d);
    isl_union_map **no_source = ch_xcalloc(m->n_arrays ? m->n_arrays : 1, sizeof *no_source);
    d->flow = isl_union_map_empty(isl_space_params_alloc(m->ctx, 0));
    d->anti = isl_union_map_empty(isl_space_params_alloc(m->ctx, 0));
    d->output = isl_union_map_empty(isl_space_params_alloc(m->ctx, 0));
    int rc = 0;
    for (size_t a = 0; a < m->n_arrays && rc == 0; a++) {
        const ch_tr_array *A = &m->arrays[a];
        isl_union_map *writes = isl_union_map_union(isl_union_map_copy(A->must_writes),
                                                    isl_union_map_copy(A->may_writes));
        isl_union_map *dep[3];
        dep[CH_TR_FLOW] =
            flow_of(m, isl_union_map_copy(A->reads), isl_union_map_copy(A->must_writes),
                    isl_union_map_copy(A->may_writes), NULL, &no_source[a]);
        dep[CH_TR_ANTI] = flow_of(
            m, isl_union_map_copy(writes), isl_union_map_empty(isl_space_params_alloc(m->ctx, 0)),
            isl_union_map_copy(A->reads), isl_union_map_copy(A->must_writes), NULL);
        dep[CH_TR_OUTPUT] = flow_of(m, writes, isl_union_map_copy(A->must_writes),
                                    isl_union_map_copy(A->may_writes), NULL, NULL);
        for (int k = 0; k < 3; k++) {
            if (!dep[k] || (k == CH_TR_FLOW && !no_source[a])) {
                rc = ch_error_set(err, "isl failed to compute the dependences of %s",
                                  m->entry->name);
                isl_union_map_free(dep[k]);
                continue;
            }
            split_ctx x = {m, d, (ch_tr_dep_kind)k, a};
            isl_union_map_foreach_map(dep[k], add_dep, &x);
            isl_union_map **all = k == CH_TR_FLOW   ? &d->flow
                                  : k == CH_TR_ANTI ? &d->anti
                                                    : &d->output;
            *all = isl_union_map_union(*all, dep[k]);
        }
    }
    if (rc == 0) {
        if (d->n_deps)
            qsort(d->deps, d->n_deps, sizeof *d->deps, dep_cmp);
        d->loops = ch_xcalloc(m->n_loops ? m->n_loops : 1, sizeof *d->loops);
        for (size_t l = 0; l < m->n_loops; l++)
            analyse_loop(m, d, l, no_source);
        d->expand_loop = ch_xcalloc(m->n_arrays ? m->n_arrays : 1, sizeof *d->expand_loop);
        for (size_t a = 0; a < m->n_arrays; a++) {
            d->expand_loop[a] = (size_t)-1;
            for (size_t l = 0; l < m->n_loops; l++)
                for (size_t i = 0; i < d->loops[l].n_privates; i++)
                    if (d->loops[l].privates[i] == a &&
                        (d->expand_loop[a] == (size_t)-1 ||
                         m->loops[l].depth > m->loops[d->expand_loop[a]].depth))
                        d->expand_loop[a] = l;
        }
        d->last = ch_xcalloc(m->n_arrays ? m->n_arrays : 1, sizeof *d->last);
        d->n_arrays = m->n_arrays;
        for (size_t a = 0; a < m->n_arrays; a++)
            if (!m->arrays[a].is_scalar && d->expand_loop[a] != (size_t)-1)
                array_refusal(m, d->expand_loop[a], a, &d->last[a]);
    }
    for (size_t a = 0; a < m->n_arrays; a++)
        isl_union_map_free(no_source[a]);
    free(no_source);
    if (rc != 0) {
        ch_tr_deps_free(d);
        *out = NULL;
        return -1;
    }
    d->n_loops = m->n_loops;
    *out = d;
    return 0;
}

void ch_tr_deps_free(ch_tr_deps *d)
{
    if (!d)
        return;
    for (size_t i = 0; i < d->n_deps; i++)
        isl_map_free(d->deps[i].rel);
    free(d->deps);
    if (d->loops)
        for (size_t l = 0; l < d->n_loops; l++) {
            free(d->loops[l].carried);
            free(d->loops[l].privates);
        }
    free(d->loops);
    free(d->expand_loop);
    if (d->last)
        for (size_t a = 0; a < d->n_arrays; a++)
            isl_pw_multi_aff_free(d->last[a]);
    free(d->last);
    isl_union_map_free(d->flow);
    isl_union_map_free(d->anti);
    isl_union_map_free(d->output);
    free(d);
}
