/* The new order and its kernels (ch_tr_plan_build): schedule -> legality -> mapping -> scalars.
 *
 * Schedule: isl's scheduler over the dependences (validity, proximity and coincidence, outer
 * coincidence first, as PPCG asks it), or the C body's own loop structure as a schedule tree.
 * Either way the result is checked here against every dependence before it is used: a
 * schedule that orders some dependence's sink before its source is refused, whoever made it.
 *
 * Dependences through a local scalar that is private to a loop (deps.c) are limited to pairs
 * in the same iteration of the deepest such loop both ends share: each iteration then behaves
 * as if it had its own copy, which is what lets `t = 0; for k: t += ...; C[i][j] = t;` run
 * one (i, j) per thread. Whether a thread's own variable really gives each iteration its copy
 * depends on the final schedule, so it is checked afterwards (scalar_fits_threads). When isl's
 * order breaks a private scalar's live range, the body's own order is tried (its loops keep
 * the live range together); a scalar that still does not fit is planned again without the
 * limit, and then lives in device memory. A private array (deps.c) is limited the same way
 * and, when it fits the threads, each thread gets a copy of it (cuda.c), except the last
 * iteration, which works on the array itself; one that does not fit stays one array, with all
 * its dependences.
 *
 * Mapping walks the schedule tree from the root. A band whose outer member carries no
 * dependence (checked here, not taken from the scheduler's flags) becomes a kernel, with its
 * first one or two such members spread over threads. A band that carries a dependence but has
 * parallelism below becomes a host loop around the kernels below it (time steps, the pivot of
 * an elimination). A subtree without any parallelism becomes a kernel run by one thread, so
 * that the data stays on the device. */
#include <assert.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <isl/aff.h>
#include <isl/ctx.h>
#include <isl/id.h>
#include <isl/map.h>
#include <isl/options.h>
#include <isl/schedule.h>
#include <isl/schedule_node.h>
#include <isl/set.h>
#include <isl/space.h>
#include <isl/union_map.h>
#include <isl/union_set.h>
#include <isl/val.h>

#include "ch/translate.h"

/* Bound on isl's work in the scheduler (its "operations"): a body whose scheduling problem is
 * larger falls back to the original order instead of stalling a build. */
#define SCHEDULER_MAX_OPERATIONS 4000000UL

const char *ch_tr_strategy_name(ch_tr_strategy s)
{
    return s == CH_TR_ISL_SCHEDULE ? "isl scheduler" : "original loop order";
}

typedef struct planner {
    const ch_tr_model *m;
    const ch_tr_deps *d;
    ch_tr_plan *p;
    unsigned char *limited;  /* per array: scalar dependences limited to private iterations */
    unsigned char *touch;    /* [stmt * n_arrays + array]: the statement accesses the array */
    isl_union_map *validity; /* every dependence, limited as above */
    int flags;               /* CH_TR_PARALLEL_SUMS */
} planner;

/* --- dependences --- */

static int in_loop(const ch_tr_model *m, size_t s, size_t loop)
{
    for (size_t i = 0; i < m->stmts[s].n_loops; i++)
        if (m->stmts[s].loops[i] == loop)
            return 1;
    return 0;
}

/* The deepest loop around both statements to which scalar a is private, or -1. */
static size_t shared_private_loop(const planner *pl, size_t s, size_t t, size_t a)
{
    const ch_tr_model *m = pl->m;
    size_t best = (size_t)-1;
    for (size_t l = 0; l < m->n_loops; l++) {
        if (!in_loop(m, s, l) || !in_loop(m, t, l))
            continue;
        for (size_t i = 0; i < pl->d->loops[l].n_privates; i++)
            if (pl->d->loops[l].privates[i] == a &&
                (best == (size_t)-1 || m->loops[l].depth > m->loops[best].depth))
                best = l;
    }
    return best;
}

/* rel restricted to pairs that agree on their first `depth` loop counters. */
static isl_map *same_iteration(isl_map *rel, size_t depth)
{
    for (size_t t = 0; t < depth; t++)
        rel = isl_map_equate(rel, isl_dim_in, (int)t, isl_dim_out, (int)t);
    return rel;
}

static isl_union_map *validity_of(const planner *pl)
{
    const ch_tr_model *m = pl->m;
    isl_union_map *u = isl_union_map_empty(isl_space_params_alloc(m->ctx, 0));
    for (size_t i = 0; i < pl->d->n_deps; i++) {
        const ch_tr_dep *dep = &pl->d->deps[i];
        isl_map *rel = isl_map_copy(dep->rel);
        if (pl->limited[dep->array]) {
            size_t l = shared_private_loop(pl, dep->src, dep->sink, dep->array);
            if (l != (size_t)-1)
                rel = same_iteration(rel, m->loops[l].depth);
        }
        u = isl_union_map_union(u, isl_union_map_from_map(rel));
    }
    return isl_union_map_coalesce(u);
}

/* --- schedules --- */

/* The partial schedule "counter at depth" of the given statements (its negation for a loop
 * that counts down, so that the values run in the loop's order). */
static isl_multi_union_pw_aff *counter_schedule(const ch_tr_model *m, const size_t *stmts, size_t n,
                                                size_t depth)
{
    isl_union_pw_aff *u = NULL;
    for (size_t i = 0; i < n; i++) {
        isl_set *dom = m->stmts[stmts[i]].domain;
        isl_aff *aff = isl_aff_var_on_domain(isl_local_space_from_space(isl_set_get_space(dom)),
                                             isl_dim_set, (unsigned)depth);
        if (m->loops[m->stmts[stmts[i]].loops[depth]].down)
            aff = isl_aff_neg(aff);
        isl_pw_aff *pa = isl_pw_aff_intersect_domain(isl_pw_aff_from_aff(aff), isl_set_copy(dom));
        isl_union_pw_aff *one = isl_union_pw_aff_from_pw_aff(pa);
        u = u ? isl_union_pw_aff_union_add(u, one) : one;
    }
    return isl_multi_union_pw_aff_from_union_pw_aff(u);
}

/* Do the n statements (of one loop group) all sit inside one and the same loop at depth? */
static int share_loop(const ch_tr_model *m, const size_t *stmts, size_t n, size_t depth)
{
    for (size_t i = 0; i < n; i++) {
        const ch_tr_stmt *s = &m->stmts[stmts[i]];
        if (s->n_loops <= depth || s->loops[depth] != m->stmts[stmts[0]].loops[depth])
            return 0;
    }
    return 1;
}

/* The C body's loop structure as a schedule tree: statements at one depth in textual order;
 * perfectly nested loops (nothing between them) one band over their statements, so that the
 * mapping can put two of them on threads, each other loop a one-member band. stmts are in
 * textual order. */
static isl_schedule *original_tree(const ch_tr_model *m, const size_t *stmts, size_t n,
                                   size_t depth)
{
    isl_schedule *result = NULL;
    for (size_t i = 0; i < n;) {
        const ch_tr_stmt *s = &m->stmts[stmts[i]];
        size_t j = i + 1;
        while (j < n && m->stmts[stmts[j]].pos[2 * depth] == s->pos[2 * depth])
            j++;
        isl_schedule *child;
        if (s->n_loops == depth) {
            child = isl_schedule_from_domain(isl_union_set_from_set(isl_set_copy(s->domain)));
        } else {
            size_t below = depth + 1;
            while (share_loop(m, stmts + i, j - i, below))
                below++;
            isl_multi_union_pw_aff *band = counter_schedule(m, stmts + i, j - i, depth);
            for (size_t d = depth + 1; d < below; d++)
                band = isl_multi_union_pw_aff_flat_range_product(
                    band, counter_schedule(m, stmts + i, j - i, d));
            child = original_tree(m, stmts + i, j - i, below);
            child = isl_schedule_insert_partial_schedule(child, band);
        }
        result = result ? isl_schedule_sequence(result, child) : child;
        i = j;
    }
    return result;
}

static isl_schedule *isl_scheduled(const planner *pl)
{
    isl_ctx *ctx = pl->m->ctx;
    isl_schedule_constraints *sc =
        isl_schedule_constraints_on_domain(isl_union_set_copy(pl->m->domain));
    sc = isl_schedule_constraints_set_validity(sc, isl_union_map_copy(pl->validity));
    sc = isl_schedule_constraints_set_coincidence(sc, isl_union_map_copy(pl->validity));
    sc = isl_schedule_constraints_set_proximity(sc, isl_union_map_copy(pl->validity));
    isl_options_set_schedule_outer_coincidence(ctx, 1);
    isl_ctx_set_max_operations(ctx, SCHEDULER_MAX_OPERATIONS);
    isl_ctx_reset_operations(ctx);
    isl_schedule *s = isl_schedule_constraints_compute_schedule(sc);
    isl_ctx_set_max_operations(ctx, 0);
    if (!s)
        isl_ctx_reset_error(ctx);
    return s;
}

/* The schedule as one relation into a common space: shorter schedules padded with zeros. */
static isl_union_map *flat_schedule(isl_schedule *s)
{
    isl_union_map *u = isl_schedule_get_map(s);
    isl_map_list *maps = isl_union_map_get_map_list(u);
    isl_size n = isl_map_list_size(maps);
    isl_size width = 0;
    for (int i = 0; i < n; i++) {
        isl_map *m = isl_map_list_get_at(maps, i);
        isl_size w = isl_map_dim(m, isl_dim_out);
        width = w > width ? w : width;
        isl_map_free(m);
    }
    isl_union_map *flat = isl_union_map_empty(isl_union_map_get_space(u));
    for (int i = 0; i < n; i++) {
        isl_map *m = isl_map_list_get_at(maps, i);
        isl_size w = isl_map_dim(m, isl_dim_out);
        m = isl_map_add_dims(m, isl_dim_out, (unsigned)(width - w));
        for (isl_size k = w; k < width; k++)
            m = isl_map_fix_si(m, isl_dim_out, (unsigned)k, 0);
        m = isl_map_reset_tuple_id(m, isl_dim_out);
        flat = isl_union_map_union(flat, isl_union_map_from_map(m));
    }
    isl_map_list_free(maps);
    isl_union_map_free(u);
    return flat;
}

/* Does the schedule run the source of every pair in rel before its sink? */
static int ordered(isl_union_map *flat, isl_union_map *rel)
{
    isl_union_map *before =
        isl_union_map_lex_lt_union_map(isl_union_map_copy(flat), isl_union_map_copy(flat));
    isl_bool ok = isl_union_map_is_subset(rel, before);
    isl_union_map_free(before);
    return ok == isl_bool_true;
}

/* --- mapping --- */

static isl_union_map *eq_at(isl_union_map *rel, isl_multi_union_pw_aff *key)
{
    if (isl_multi_union_pw_aff_dim(key, isl_dim_set) == 0) {
        isl_multi_union_pw_aff_free(key);
        return rel;
    }
    return isl_union_map_eq_at_multi_union_pw_aff(rel, key);
}

/* Does band member q of node carry no dependence, once the outer bands and the members before
 * q are fixed? */
static int member_parallel(const planner *pl, isl_schedule_node *node, int q)
{
    isl_union_set *dom = isl_schedule_node_get_domain(node);
    isl_union_map *rel = isl_union_map_copy(pl->validity);
    rel = isl_union_map_intersect_domain(rel, isl_union_set_copy(dom));
    rel = isl_union_map_intersect_range(rel, dom);
    rel = eq_at(rel, isl_schedule_node_get_prefix_schedule_multi_union_pw_aff(node));
    isl_multi_union_pw_aff *part = isl_schedule_node_band_get_partial_schedule(node);
    for (int t = 0; t < q; t++)
        rel = eq_at(rel, isl_multi_union_pw_aff_from_union_pw_aff(
                             isl_multi_union_pw_aff_get_union_pw_aff(part, t)));
    isl_union_map *same = eq_at(
        isl_union_map_copy(rel),
        isl_multi_union_pw_aff_from_union_pw_aff(isl_multi_union_pw_aff_get_union_pw_aff(part, q)));
    isl_multi_union_pw_aff_free(part);
    isl_bool ok = isl_union_map_is_subset(rel, same);
    isl_union_map_free(rel);
    isl_union_map_free(same);
    return ok == isl_bool_true;
}

static size_t parallel_sum(const planner *pl, isl_schedule_node *node, int *each);
static int scan_of(const planner *pl, isl_schedule_node *node, size_t *upd, size_t *store,
                   int *exclusive);

static int has_parallel(const planner *pl, isl_schedule_node *node)
{
    int found = 0;
    if (isl_schedule_node_get_type(node) == isl_schedule_node_band) {
        isl_size n = isl_schedule_node_band_n_member(node);
        for (int q = 0; q < n && !found; q++)
            found = member_parallel(pl, node, q);
        int each;
        size_t upd, store;
        if (!found)
            found = parallel_sum(pl, node, &each) != (size_t)-1 ||
                    scan_of(pl, node, &upd, &store, &each) == 0;
    }
    isl_size kids = isl_schedule_node_n_children(node);
    for (int i = 0; i < kids && !found; i++) {
        isl_schedule_node *c = isl_schedule_node_get_child(node, i);
        found = has_parallel(pl, c);
        isl_schedule_node_free(c);
    }
    return found;
}

/* The number of values set's dimension q takes, over its parameters. */
static isl_pw_aff *extent_of(isl_set *set, int q)
{
    isl_pw_aff *max = isl_set_dim_max(isl_set_copy(set), q);
    isl_pw_aff *min = isl_set_dim_min(isl_set_copy(set), q);
    isl_pw_aff *ext = isl_pw_aff_sub(max, min);
    ext = isl_pw_aff_add_constant_val(ext, isl_val_one(isl_set_get_ctx(set)));
    return isl_pw_aff_coalesce(ext);
}

/* Puts a kernel mark above node (a band split to its n_mapped parallel members, or any
 * subtree for n_mapped 0) and records the kernel. */
static isl_schedule_node *add_kernel(planner *pl, isl_schedule_node *node, int n_mapped)
{
    ch_tr_plan *p = pl->p;
    isl_ctx *ctx = pl->m->ctx;
    p->kernels = ch_xrealloc(p->kernels, (p->n_kernels + 1) * sizeof *p->kernels);
    ch_tr_kernel *k = &p->kernels[p->n_kernels];
    memset(k, 0, sizeof *k);
    k->reduction = (size_t)-1;
    k->scan_store = (size_t)-1;
    isl_size depth = isl_schedule_node_get_schedule_depth(node);
    k->depth = (size_t)depth;
    k->n_mapped = n_mapped;
    k->domain = isl_schedule_node_get_domain(node);
    isl_multi_union_pw_aff *key = isl_schedule_node_get_prefix_schedule_multi_union_pw_aff(node);
    if (n_mapped) {
        isl_multi_union_pw_aff *part = isl_schedule_node_band_get_partial_schedule(node);
        key = depth ? isl_multi_union_pw_aff_flat_range_product(key, part)
                    : (isl_multi_union_pw_aff_free(key), part);
        isl_union_set *pts = isl_union_set_apply(
            isl_union_set_copy(k->domain),
            isl_union_map_from_multi_union_pw_aff(isl_multi_union_pw_aff_copy(key)));
        isl_set *set = isl_set_from_union_set(pts);
        for (isl_size t = 0; t < depth; t++) {
            char name[32];
            snprintf(name, sizeof name, "c%d", (int)t);
            set = isl_set_set_dim_id(set, isl_dim_set, (unsigned)t, isl_id_alloc(ctx, name, NULL));
        }
        isl_size np = isl_set_dim(set, isl_dim_param);
        set = isl_set_move_dims(set, isl_dim_param, (unsigned)np, isl_dim_set, 0, (unsigned)depth);
        for (int q = 0; q < n_mapped; q++)
            k->extent[q] = extent_of(set, q);
        isl_set_free(set);
    }
    k->thread_key = key;
    isl_id *id = isl_id_alloc(ctx, "kernel", (void *)(uintptr_t)(p->n_kernels + 1));
    p->n_kernels++;
    return isl_schedule_node_insert_mark(node, id);
}

static isl_schedule_node *map_node(planner *pl, isl_schedule_node *node);

/* The statements node runs (up to max of them, in textual order); how many there are. */
static size_t stmts_below(const planner *pl, isl_schedule_node *node, size_t *out, size_t max)
{
    const ch_tr_model *m = pl->m;
    isl_union_set *dom = isl_schedule_node_get_domain(node);
    size_t n = 0;
    for (size_t s = 0; s < m->n_stmts; s++) {
        isl_union_set *one = isl_union_set_from_set(isl_set_copy(m->stmts[s].domain));
        if (isl_union_set_is_subset(one, dom) == isl_bool_true) {
            if (n < max)
                out[n] = s;
            n++;
        }
        isl_union_set_free(one);
    }
    isl_union_set_free(dom);
    return n;
}

/* The one statement below node when it is a sum `X += e` (-=, X++, X--) into an element type
 * atomicAdd takes (a floating one only under a tol() clause); else -1. Its dependences below node
 * are then all through X (reduction_op: e does not read X), so its instances may run on different
 * threads if their contributions are added atomically. *each: the element is not the same for every
 * instance under one value of the outer dimensions (a histogram), so each instance adds atomically;
 * else threads keep partial sums. */
static size_t parallel_sum(const planner *pl, isl_schedule_node *node, int *each)
{
    const ch_tr_model *m = pl->m;
    size_t found = (size_t)-1;
    if (stmts_below(pl, node, &found, 1) != 1 || m->stmts[found].red_array == (size_t)-1 ||
        m->stmts[found].ir->kind != CH_IR_EXPR_STMT)
        return (size_t)-1;
    const ch_tr_stmt *S = &m->stmts[found];
    const ch_ir *x = S->ir->kids[0];
    int sum = strcmp(S->red_op, "+") == 0;
    int extremum = strcmp(S->red_op, "min") == 0 || strcmp(S->red_op, "max") == 0;
    int bitwise = strchr("&|^", S->red_op[0]) && S->red_op[1] == '\0';
    if (!(sum && (x->kind == CH_IR_ASSIGN || x->kind == CH_IR_UNARY)) &&
        !(extremum && x->kind == CH_IR_ASSIGN && x->kids[1]->kind == CH_IR_CALL) &&
        !(bitwise && x->kind == CH_IR_ASSIGN))
        return (size_t)-1;
    ch_scalar t = ch_tr_array_elem(m, S->red_array);
    if (bitwise && !ch_scalar_is_integer(t))
        return (size_t)-1;
    if (t != CH_T_FLOAT && t != CH_T_DOUBLE && t != CH_T_INT && t != CH_T_UINT && t != CH_T_LONG &&
        t != CH_T_ULONG && t != CH_T_LLONG && t != CH_T_ULLONG)
        return (size_t)-1; /* no atomic for it */
    /* threads add floating terms in another order, which rounds differently: only when the
     * plan asks for it (CH_TR_PARALLEL_SUMS) and the entry states the tolerance it accepts
     * (tol(...)), as -fassociative-math lets gcc. Integer sums (wrapping, as the atomics do)
     * and bitwise reductions, a minimum or a maximum are the same value in any order, so
     * every plan runs them in parallel: nothing is gained by one thread. */
    if (sum && (t == CH_T_FLOAT || t == CH_T_DOUBLE) &&
        !((pl->flags & CH_TR_PARALLEL_SUMS) && m->entry->clauses.has_tol))
        return (size_t)-1;
    isl_union_map *w =
        isl_union_map_intersect_domain(isl_union_map_copy(m->arrays[S->red_array].must_writes),
                                       isl_union_set_from_set(isl_set_copy(S->domain)));
    *each = 1;
    if (isl_union_map_is_empty(w) == isl_bool_true) { /* a may-write: elements unknown */
        isl_union_map_free(w);
        return found;
    }
    /* pairs of instances with the same outer dimensions write the same element */
    isl_union_map *back = isl_union_map_reverse(isl_union_map_copy(w));
    isl_union_map *same_elem = isl_union_map_apply_range(w, back);
    isl_union_map *pairs =
        isl_union_map_from_domain_and_range(isl_union_set_from_set(isl_set_copy(S->domain)),
                                            isl_union_set_from_set(isl_set_copy(S->domain)));
    pairs = eq_at(pairs, isl_schedule_node_get_prefix_schedule_multi_union_pw_aff(node));
    *each = isl_union_map_is_subset(pairs, same_elem) != isl_bool_true;
    isl_union_map_free(pairs);
    isl_union_map_free(same_elem);
    return found;
}

/* Does any statement other than a and b read array x? */
static int read_elsewhere(const ch_tr_model *m, size_t x, size_t a, size_t b)
{
    int found = 0;
    for (size_t s = 0; s < m->n_stmts && !found; s++) {
        if (s == a || s == b)
            continue;
        isl_union_map *r = isl_union_map_intersect_domain(
            isl_union_map_copy(m->arrays[x].reads),
            isl_union_set_from_set(isl_set_copy(m->stmts[s].domain)));
        found = isl_union_map_is_empty(r) != isl_bool_true;
        isl_union_map_free(r);
    }
    return found;
}

/* A one-dimensional domain without holes: lo <= i <= hi, no stride. */
static int dense_interval(isl_set *dom)
{
    isl_set *hull = isl_set_from_basic_set(isl_set_simple_hull(isl_set_copy(dom)));
    int dense = isl_set_is_equal(dom, hull) == isl_bool_true;
    isl_set_free(hull);
    return dense;
}

/* A prefix sum at the outermost level: node's loop runs exactly `acc += e` (U) and `y[i] = acc`
 * (W), i its counter running over an interval, acc a local scalar that nothing else reads
 * (its final value is not needed), e not reading y, of acc's type (or a narrower integer), and
 * exact in any order (integers: every plan) or under a tol() clause (floating: only plans with
 * CH_TR_PARALLEL_SUMS). Then *upd = U, *store = W,
 * *exclusive when W comes first (y[i] takes acc before the update); returns 0, else -1. The
 * dependences the loop carries are all through acc (e reads neither acc nor y), which the scan
 * honours by construction. */
static int scan_of(const planner *pl, isl_schedule_node *node, size_t *upd, size_t *store,
                   int *exclusive)
{
    const ch_tr_model *m = pl->m;
    size_t s[2];
    if (isl_schedule_node_get_schedule_depth(node) != 0 || stmts_below(pl, node, s, 2) != 2)
        return -1;
    for (int u = 0; u < 2; u++) {
        const ch_tr_stmt *U = &m->stmts[s[u]], *W = &m->stmts[s[1 - u]];
        if (U->red_array == (size_t)-1 || strcmp(U->red_op, "+") != 0 ||
            !m->arrays[U->red_array].is_scalar || U->n_loops != 1 || W->n_loops != 1 ||
            U->loops[0] != W->loops[0] || m->loops[U->loops[0]].down || U->may || W->may ||
            U->n_guards || W->n_guards || U->ir->kind != CH_IR_EXPR_STMT ||
            W->ir->kind != CH_IR_EXPR_STMT)
            continue;
        const ch_ir *ua = U->ir->kids[0], *wa = W->ir->kids[0];
        if (ua->kind != CH_IR_ASSIGN || strcmp(ua->text, "+=") != 0 || wa->kind != CH_IR_ASSIGN ||
            strcmp(wa->text, "=") != 0)
            continue;
        const ch_ir *y = wa->kids[0], *v = wa->kids[1], *e = ua->kids[1];
        const char *acc = m->arrays[U->red_array].name;
        const char *counter = m->loops[U->loops[0]].counter;
        if (y->kind != CH_IR_INDEX || y->nkids != 2 || y->kids[0]->kind != CH_IR_VAR ||
            y->kids[1]->kind != CH_IR_VAR || strcmp(y->kids[1]->text, counter) != 0 ||
            v->kind != CH_IR_VAR || strcmp(v->text, acc) != 0 ||
            ch_ir_find(e, CH_IR_VAR, y->kids[0]->text))
            continue;
        const ch_param *yp = ch_entry_param(m->entry, y->kids[0]->text);
        ch_scalar t = ch_tr_array_elem(m, U->red_array);
        if (!yp || yp->role == CH_ROLE_SCALAR || yp->elem != t ||
            ch_scalar_size(t) < 4) /* warp shuffles move 32 and 64-bit values */
            continue;
        int exact = ch_scalar_is_integer(t) && ch_scalar_is_integer(e->type) &&
                    ch_scalar_size(e->type) <= ch_scalar_size(t);
        int floating = (t == CH_T_FLOAT || t == CH_T_DOUBLE) && e->type == t;
        if (!(exact ||
              (floating && (pl->flags & CH_TR_PARALLEL_SUMS) && m->entry->clauses.has_tol)))
            continue;
        if (read_elsewhere(m, U->red_array, s[0], s[1]) || !dense_interval(U->domain))
            continue;
        *upd = s[u];
        *store = s[1 - u];
        *exclusive = s[1 - u] < s[u]; /* textual order is the order inside an iteration */
        return 0;
    }
    return -1;
}

static isl_schedule_node *map_children(planner *pl, isl_schedule_node *node)
{
    isl_size n = isl_schedule_node_n_children(node);
    for (int i = 0; i < n; i++) {
        node = isl_schedule_node_child(node, i);
        node = map_node(pl, node);
        node = isl_schedule_node_parent(node);
    }
    return node;
}

static isl_schedule_node *map_node(planner *pl, isl_schedule_node *node)
{
    switch (isl_schedule_node_get_type(node)) {
    case isl_schedule_node_band: {
        isl_size n = isl_schedule_node_band_n_member(node);
        int par = 0;
        while (par < n && par < 2 && member_parallel(pl, node, par))
            par++;
        if (par > 0) {
            if (par < n)
                node = isl_schedule_node_band_split(node, par);
            return add_kernel(pl, node, par);
        }
        size_t upd, store;
        int exclusive;
        if (scan_of(pl, node, &upd, &store, &exclusive) == 0) {
            if (n > 1)
                node = isl_schedule_node_band_split(node, 1);
            node = add_kernel(pl, node, 1);
            ch_tr_kernel *k = &pl->p->kernels[pl->p->n_kernels - 1];
            k->reduction = upd;
            k->scan_store = store;
            k->scan_exclusive = exclusive;
            return node;
        }
        int each = 0;
        size_t sum = parallel_sum(pl, node, &each);
        if (sum != (size_t)-1) {
            if (n > 1)
                node = isl_schedule_node_band_split(node, 1);
            node = add_kernel(pl, node, 1);
            pl->p->kernels[pl->p->n_kernels - 1].reduction = sum;
            pl->p->kernels[pl->p->n_kernels - 1].atomic_each = each;
            return node;
        }
        if (!has_parallel(pl, node))
            return add_kernel(pl, node, 0);
        /* the outer member carries a dependence: a host loop around what lies below */
        if (n > 1)
            node = isl_schedule_node_band_split(node, 1);
        return map_children(pl, node);
    }
    case isl_schedule_node_sequence:
    case isl_schedule_node_set:
        if (!has_parallel(pl, node))
            return add_kernel(pl, node, 0);
        return map_children(pl, node);
    case isl_schedule_node_leaf:
        return add_kernel(pl, node, 0);
    case isl_schedule_node_domain:
    case isl_schedule_node_filter:
    case isl_schedule_node_context:
    case isl_schedule_node_guard:
    case isl_schedule_node_expansion:
    case isl_schedule_node_extension:
        return map_children(pl, node);
    default:
        return node;
    }
}

/* --- scalars --- */

/* Every pair of accesses to one element of array a (a scalar's one) of which one writes, in
 * the C body's order (memory-based: not only the last writer before each access). */
static isl_union_map *conflicts(const planner *pl, size_t a)
{
    const ch_tr_array *A = &pl->m->arrays[a];
    isl_union_map *w =
        isl_union_map_union(isl_union_map_copy(A->must_writes), isl_union_map_copy(A->may_writes));
    isl_union_map *all = isl_union_map_union(isl_union_map_copy(w), isl_union_map_copy(A->reads));
    isl_union_map *from_writes = isl_union_map_apply_range(
        isl_union_map_copy(w), isl_union_map_reverse(isl_union_map_copy(all)));
    isl_union_map *to_writes = isl_union_map_apply_range(all, isl_union_map_reverse(w));
    isl_union_map *pairs = isl_union_map_union(from_writes, to_writes);
    isl_union_map *before = isl_union_map_lex_lt_union_map(isl_union_map_copy(pl->m->schedule),
                                                           isl_union_map_copy(pl->m->schedule));
    return isl_union_map_intersect(pairs, before);
}

/* The kernel that runs statement s. */
static size_t kernel_of_stmt(const planner *pl, size_t s)
{
    isl_union_set *dom = isl_union_set_from_set(isl_set_copy(pl->m->stmts[s].domain));
    size_t found = (size_t)-1;
    for (size_t k = 0; k < pl->p->n_kernels && found == (size_t)-1; k++)
        if (isl_union_set_is_subset(dom, pl->p->kernels[k].domain) == isl_bool_true)
            found = k;
    isl_union_set_free(dom);
    assert(found != (size_t)-1); /* the kernels partition the statements */
    return found;
}

/* Can scalar a be a variable of each thread of the kernels that use it (private array a a copy
 * per thread)? Every value read
 * comes from a write on the same thread of the same kernel (its flow dependences stay on one
 * thread), and the accesses of one thread that conflict keep their order. Then, between the
 * write a read takes its value from and the read, no other write of that thread intervenes:
 * one before the write or after the read in the C body's order still is. */
static int scalar_fits_threads(const planner *pl, size_t a, isl_union_map *flat)
{
    for (size_t i = 0; i < pl->d->n_deps; i++) {
        const ch_tr_dep *dep = &pl->d->deps[i];
        if (dep->array != a || dep->kind != CH_TR_FLOW)
            continue;
        size_t k = kernel_of_stmt(pl, dep->src);
        if (kernel_of_stmt(pl, dep->sink) != k)
            return 0;
        isl_union_map *rel = isl_union_map_from_map(isl_map_copy(dep->rel));
        isl_union_map *same = eq_at(isl_union_map_copy(rel),
                                    isl_multi_union_pw_aff_copy(pl->p->kernels[k].thread_key));
        isl_bool ok = isl_union_map_is_subset(rel, same);
        isl_union_map_free(rel);
        isl_union_map_free(same);
        if (ok != isl_bool_true)
            return 0;
    }
    isl_union_map *c = conflicts(pl, a);
    int ok = 1;
    for (size_t k = 0; k < pl->p->n_kernels && ok; k++) {
        const ch_tr_kernel *K = &pl->p->kernels[k];
        isl_union_map *ck =
            isl_union_map_intersect_domain(isl_union_map_copy(c), isl_union_set_copy(K->domain));
        ck = isl_union_map_intersect_range(ck, isl_union_set_copy(K->domain));
        ck = eq_at(ck, isl_multi_union_pw_aff_copy(K->thread_key));
        ok = ordered(flat, ck);
        isl_union_map_free(ck);
    }
    isl_union_map_free(c);
    return ok;
}

/* Decides every scalar's and private array's storage; 1 when a limited one does not fit a
 * thread (planned again unlimited), 0 when done. */
static int place_scalars(planner *pl)
{
    const ch_tr_model *m = pl->m;
    ch_tr_plan *p = pl->p;
    isl_union_map *flat = flat_schedule(p->schedule);
    int again = 0;
    for (size_t a = 0; a < m->n_arrays; a++) {
        int scalar = m->arrays[a].is_scalar;
        if (!scalar && !pl->limited[a])
            continue;
        if (scalar_fits_threads(pl, a, flat)) {
            p->storage[a] = scalar ? CH_TR_THREAD_LOCAL : CH_TR_THREAD_COPY;
        } else if (pl->limited[a]) {
            /* isl's order split the scalar's live range: the C body's own order keeps it (its
             * loops are unchanged), so try that before giving the scalar up */
            if (p->strategy == CH_TR_ISL_SCHEDULE)
                p->strategy = CH_TR_ORIGINAL;
            else
                pl->limited[a] = 0;
            again = 1;
            break;
        } else {
            p->storage[a] = CH_TR_DEVICE; /* a scalar: arrays are limited until here */
        }
    }
    isl_union_map_free(flat);
    return again;
}

/* --- the plan --- */

static void clear_plan(ch_tr_plan *p)
{
    for (size_t k = 0; k < p->n_kernels; k++) {
        isl_union_set_free(p->kernels[k].domain);
        isl_multi_union_pw_aff_free(p->kernels[k].thread_key);
        isl_pw_aff_free(p->kernels[k].extent[0]);
        isl_pw_aff_free(p->kernels[k].extent[1]);
    }
    free(p->kernels);
    p->kernels = NULL;
    p->n_kernels = 0;
    isl_schedule_free(p->schedule);
    p->schedule = NULL;
}

static void fill_touch(planner *pl)
{
    const ch_tr_model *m = pl->m;
    for (size_t a = 0; a < m->n_arrays; a++) {
        const ch_tr_array *A = &m->arrays[a];
        isl_union_map *acc =
            isl_union_map_union(isl_union_map_copy(A->reads), isl_union_map_copy(A->must_writes));
        acc = isl_union_map_union(acc, isl_union_map_copy(A->may_writes));
        isl_union_set *who = isl_union_map_domain(acc);
        for (size_t s = 0; s < m->n_stmts; s++) {
            isl_union_set *one = isl_union_set_from_set(isl_set_copy(m->stmts[s].domain));
            one = isl_union_set_intersect(one, isl_union_set_copy(who));
            pl->touch[s * m->n_arrays + a] = isl_union_set_is_empty(one) == isl_bool_false;
            isl_union_set_free(one);
        }
        isl_union_set_free(who);
    }
}

/* One attempt: schedule, check, map. 0, or -1 with err set. */
static int plan_once(planner *pl, ch_error *err)
{
    const ch_tr_model *m = pl->m;
    ch_tr_plan *p = pl->p;
    isl_union_map_free(pl->validity);
    pl->validity = validity_of(pl);
    isl_schedule *s = NULL;
    if (p->strategy == CH_TR_ISL_SCHEDULE) {
        s = isl_scheduled(pl);
        if (!s)
            return ch_error_set(err,
                                "cannot translate %s: isl's scheduler found no schedule within "
                                "its operation bound",
                                m->entry->name);
    } else {
        size_t *all = ch_xcalloc(m->n_stmts ? m->n_stmts : 1, sizeof *all);
        for (size_t i = 0; i < m->n_stmts; i++)
            all[i] = i;
        s = original_tree(m, all, m->n_stmts, 0);
        free(all);
    }
    if (!s)
        return ch_error_set(err, "cannot translate %s: isl could not build a schedule",
                            m->entry->name);
    isl_union_map *flat = flat_schedule(s);
    int legal = ordered(flat, pl->validity);
    isl_union_map_free(flat);
    if (!legal) {
        isl_schedule_free(s);
        return ch_error_set(err,
                            "cannot translate %s: the %s's schedule breaks a dependence (refused)",
                            m->entry->name, ch_tr_strategy_name(p->strategy));
    }
    isl_schedule_node *root = isl_schedule_get_root(s);
    isl_schedule_free(s);
    root = map_node(pl, root);
    p->schedule = isl_schedule_node_get_schedule(root);
    isl_schedule_node_free(root);
    return p->schedule ? 0
                       : ch_error_set(err, "cannot translate %s: isl failed to map the schedule",
                                      m->entry->name);
}

/* --- a warp per row --- */

/* How loop L's iterations may spread over the lanes of a warp: all independent, or a
 * reduction (+, min, max) into a local scalar that each thread keeps (every dependence L
 * carries is that reduction's); 0 for neither. */
static int lane_role_of(const planner *pl, size_t L)
{
    const ch_tr_loop_par *lp = &pl->d->loops[L];
    if (lp->parallel)
        return CH_TR_LANES_PARALLEL;
    if (!lp->reduction)
        return 0;
    const ch_tr_model *m = pl->m;
    size_t a = lp->red_array;
    ch_scalar t = ch_tr_array_elem(m, a);
    int sum = strcmp(lp->red_op, "+") == 0;
    if (!m->arrays[a].is_scalar || pl->p->storage[a] != CH_TR_THREAD_LOCAL ||
        ch_scalar_size(t) < 4 ||
        (!sum && strcmp(lp->red_op, "min") != 0 && strcmp(lp->red_op, "max") != 0) ||
        (sum && ch_scalar_is_float(t) && !m->entry->clauses.has_tol))
        return 0;
    return CH_TR_LANES_REDUCTION;
}

int ch_tr_kernel_copies(const ch_tr_plan *p, size_t k)
{
    for (size_t a = 0; a < p->m->n_arrays; a++)
        if (p->storage[a] == CH_TR_THREAD_COPY && p->uses[k * p->m->n_arrays + a])
            return 1;
    return 0;
}

/* Marks the kernels that run a warp per value of their one mapped dimension: each of their
 * statements one loop below that dimension or deeper sits in a loop the lanes can share, and
 * there is at least one such loop. The other statements run on every lane (those that write
 * memory on lane 0 only: cuda.c). */
static void mark_warp_rows(planner *pl)
{
    const ch_tr_model *m = pl->m;
    ch_tr_plan *p = pl->p;
    p->lane_role = ch_xcalloc(m->n_loops + 1, 1);
    p->lane_red = ch_xcalloc(m->n_loops + 1, sizeof *p->lane_red);
    p->lane_op = ch_xcalloc(m->n_loops + 1, sizeof *p->lane_op);
    if (!(pl->flags & CH_TR_WARP_ROWS) || p->strategy != CH_TR_ORIGINAL)
        return;
    for (size_t k = 0; k < p->n_kernels; k++) {
        ch_tr_kernel *K = &p->kernels[k];
        if (K->n_mapped != 1 || K->reduction != (size_t)-1 || ch_tr_kernel_copies(p, k))
            continue;
        int ok = 1, inner = 0;
        for (size_t s = 0; s < m->n_stmts && ok; s++) {
            const ch_tr_stmt *S = &m->stmts[s];
            if (kernel_of_stmt(pl, s) != k || S->n_loops <= K->depth + 1)
                continue;
            ok = lane_role_of(pl, S->loops[K->depth + 1]) != 0;
            inner = 1;
        }
        if (!ok || !inner)
            continue;
        K->warp_rows = 1;
        for (size_t s = 0; s < m->n_stmts; s++)
            if (kernel_of_stmt(pl, s) == k && m->stmts[s].n_loops > K->depth + 1) {
                size_t L = m->stmts[s].loops[K->depth + 1];
                p->lane_role[L] = (unsigned char)lane_role_of(pl, L);
                p->lane_red[L] = pl->d->loops[L].red_array;
                p->lane_op[L] = pl->d->loops[L].red_op;
            }
    }
}

/* A body whose one kernel runs on one thread because its loop carries an arg-reduction
 * (argred.c) runs it on threads instead: the pair (value, index) is combined by the rule of
 * the C comparison, exact in any grouping. */
static void mark_argred(ch_tr_plan *p)
{
    if (p->n_kernels != 1 || p->kernels[0].n_mapped != 0 || p->kernels[0].reduction != (size_t)-1)
        return;
    ch_tr_argred a;
    if (!ch_tr_argred_match(p->m, &a))
        return;
    p->argred = ch_xmalloc(sizeof *p->argred);
    *p->argred = a;
}

int ch_tr_plan_build(const ch_tr_model *m, const ch_tr_deps *d, ch_tr_strategy strategy, int flags,
                     ch_tr_plan **out, ch_error *err)
{
    *out = NULL;
    if (m->n_stmts == 0)
        return ch_error_at(err, m->entry->file, m->entry->line, m->entry->col,
                           "cannot translate %s: its body writes nothing", m->entry->name);
    for (size_t s = 0; s < m->n_stmts; s++)
        if (m->stmts[s].unbounded)
            return ch_error_at(err, m->entry->file, m->stmts[s].line, m->stmts[s].col,
                               "cannot translate %s: this statement is inside a loop whose start "
                               "or bound is not an affine expression of the counters and integer "
                               "parameters",
                               m->entry->name);
    ch_tr_plan *p = ch_xcalloc(1, sizeof *p);
    p->m = m;
    p->strategy = strategy;
    p->flags = flags;
    size_t na = m->n_arrays ? m->n_arrays : 1;
    p->storage = ch_xcalloc(na, sizeof *p->storage);

    planner pl = {.m = m, .d = d, .p = p, .flags = flags};
    pl.limited = ch_xcalloc(na, 1);
    pl.touch = ch_xcalloc(m->n_stmts * na, 1);
    for (size_t a = 0; a < m->n_arrays; a++)
        pl.limited[a] = d->expand_loop[a] != (size_t)-1;
    fill_touch(&pl);
    int rc = 0;
    /* each round unlimits at least one scalar or array, so this ends */
    for (size_t round = 0; round <= m->n_arrays; round++) {
        clear_plan(p);
        for (size_t a = 0; a < m->n_arrays; a++)
            p->storage[a] = CH_TR_NOT_SCALAR;
        if ((rc = plan_once(&pl, err)) != 0 || !place_scalars(&pl))
            break;
    }
    if (rc == 0) {
        p->uses = ch_xcalloc(p->n_kernels * na + 1, 1);
        for (size_t s = 0; s < m->n_stmts; s++) {
            size_t k = kernel_of_stmt(&pl, s);
            for (size_t a = 0; a < m->n_arrays; a++)
                p->uses[k * na + a] |= pl.touch[s * na + a];
        }
        p->last = ch_xcalloc(na, sizeof *p->last);
        p->copy_loop = ch_xcalloc(na, sizeof *p->copy_loop);
        for (size_t a = 0; a < m->n_arrays; a++) {
            p->copy_loop[a] = (size_t)-1;
            if (p->storage[a] == CH_TR_THREAD_COPY) {
                p->last[a] = isl_pw_multi_aff_copy(d->last[a]);
                p->copy_loop[a] = d->expand_loop[a];
            }
        }
        mark_warp_rows(&pl);
        mark_argred(p);
    }
    isl_union_map_free(pl.validity);
    free(pl.limited);
    free(pl.touch);
    if (rc != 0) {
        ch_tr_plan_free(p);
        return -1;
    }
    *out = p;
    return 0;
}

void ch_tr_plan_free(ch_tr_plan *p)
{
    if (!p)
        return;
    clear_plan(p);
    free(p->storage);
    free(p->uses);
    free(p->lane_role);
    free(p->lane_red);
    free(p->lane_op);
    if (p->last)
        for (size_t a = 0; a < p->m->n_arrays; a++)
            isl_pw_multi_aff_free(p->last[a]);
    free(p->last);
    free(p->copy_loop);
    if (p->argred)
        ch_tr_argred_free(p->argred);
    free(p->argred);
    free(p);
}

void ch_tr_plan_print(ch_strbuf *out, const ch_tr_plan *p)
{
    const ch_tr_model *m = p->m;
    ch_strbuf_addf(out, "strategy: %s%s%s\n", ch_tr_strategy_name(p->strategy),
                   p->flags & CH_TR_PARALLEL_SUMS ? ", parallel sums" : "",
                   p->flags & CH_TR_WARP_ROWS ? ", a warp per row" : "");
    for (size_t k = 0; k < p->n_kernels; k++) {
        const ch_tr_kernel *K = &p->kernels[k];
        ch_strbuf_addf(out, "kernel %zu: ", k);
        if (K->scan_store != (size_t)-1) {
            ch_strbuf_addf(out, "an %s prefix sum on threads (%s, %s)",
                           K->scan_exclusive ? "exclusive" : "inclusive",
                           m->stmts[K->reduction].name, m->stmts[K->scan_store].name);
        } else if (K->reduction != (size_t)-1) {
            const char *op = m->stmts[K->reduction].red_op;
            ch_strbuf_addf(out, "%s on threads (%s, atomically)",
                           K->atomic_each           ? "updates"
                           : strcmp(op, "+") == 0   ? "a sum"
                           : strcmp(op, "max") == 0 ? "a maximum"
                           : strcmp(op, "min") == 0 ? "a minimum"
                           : strcmp(op, "&") == 0   ? "a bitwise and"
                           : strcmp(op, "|") == 0   ? "a bitwise or"
                                                    : "a bitwise xor",
                           m->stmts[K->reduction].name);
        } else if (p->argred) {
            ch_strbuf_addf(out,
                           "an arg-%s on threads (%s, %s; ties to the %s index), the blocks' "
                           "pairs combined by a second kernel",
                           p->argred->max ? "maximum" : "minimum", p->argred->value,
                           p->argred->index, p->argred->last ? "last" : "first");
        } else if (K->warp_rows)
            ch_strbuf_adds(out, "1 parallel dimension on warps, the loops below it on lanes");
        else if (K->n_mapped)
            ch_strbuf_addf(out, "%d parallel dimension%s on threads", K->n_mapped,
                           K->n_mapped > 1 ? "s" : "");
        else
            ch_strbuf_adds(out, "one thread");
        if (K->depth)
            ch_strbuf_addf(out, ", inside %zu host loop%s", K->depth, K->depth > 1 ? "s" : "");
        ch_strbuf_adds(out, ":");
        for (size_t s = 0; s < m->n_stmts; s++) {
            isl_union_set *one = isl_union_set_from_set(isl_set_copy(m->stmts[s].domain));
            if (isl_union_set_is_subset(one, K->domain) == isl_bool_true)
                ch_strbuf_addf(out, " %s", m->stmts[s].name);
            isl_union_set_free(one);
        }
        ch_strbuf_addc(out, '\n');
        if (K->n_mapped) {
            /* the host loops' and the threads' schedule dimensions, in the statements' terms */
            char *key = isl_multi_union_pw_aff_to_str(K->thread_key);
            ch_strbuf_addf(out, "  c0..c%zu: %s\n", K->depth + (size_t)K->n_mapped - 1, key);
            free(key);
        }
    }
    for (size_t a = 0; a < m->n_arrays; a++)
        if (p->storage[a] == CH_TR_THREAD_LOCAL)
            ch_strbuf_addf(out, "scalar %s: a variable of each thread\n", m->arrays[a].name);
        else if (p->storage[a] == CH_TR_DEVICE)
            ch_strbuf_addf(out, "scalar %s: in device memory\n", m->arrays[a].name);
        else if (p->storage[a] == CH_TR_THREAD_COPY)
            ch_strbuf_addf(out, "array %s: a copy per thread, the last iteration in %s itself\n",
                           m->arrays[a].name, m->arrays[a].name);
}
