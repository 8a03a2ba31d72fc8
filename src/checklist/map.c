/* Checklist, elementwise maps: whether an entry's body computes element i of its outputs from
 * element i of its buffers alone, for i over [0, n).
 *
 * Why it matters: the trusted runtime can then cut a host-pointer call into chunks and overlap
 * the copies in, the kernels and the copies out (ch_rt_call_map_v1): chunk [lo, hi) is the
 * verified kernel called with n = hi - lo on pointers offset by lo. That is the entry's own
 * meaning only when nothing in the body sees i or n other than through the subscripts, so the
 * test below is on the user's C body (trusted), never on a candidate or an agent's checklist,
 * and it is strict: anything it does not recognise is not a map, which only costs speed.
 *
 * Accepted: `for (int i = 0; i < n; i++) BODY` (or `i += 1`, `++i`, a counter declared before
 * the loop) as the whole body, n a scalar parameter, where BODY
 *   - subscripts buffers only as `p[i]` (one dimension, exactly the counter),
 *   - reads neither i nor n in any other way (a chunk sees its own i and n),
 *   - assigns only `p[i]` and locals declared inside BODY (no state carried between elements),
 *   - has no loops, jumps or returns, and calls only functions that take no buffer,
 * and every buffer parameter is a pointer of extent exactly n. */
#include <stdlib.h>
#include <string.h>

#include "ch/checklist.h"

typedef struct map_walk {
    const ch_entry *e;
    const char *counter;
    const char *size; /* the size parameter's name */
    ch_strvec locals; /* locals declared inside the loop body */
} map_walk;

static int is_local(const map_walk *w, const char *name)
{
    for (size_t i = 0; i < w->locals.len; i++)
        if (strcmp(w->locals.items[i], name) == 0)
            return 1;
    return 0;
}

static const ch_param *param_of(const map_walk *w, const ch_ir *var)
{
    if (var->kind != CH_IR_VAR || var->param_index < 0 ||
        (size_t)var->param_index >= w->e->n_params)
        return NULL;
    return &w->e->params[var->param_index];
}

static int helper_is_pure(const map_walk *w, const char *name)
{
    for (size_t i = 0; i < w->e->n_helpers; i++)
        if (strcmp(w->e->helpers[i].name, name) == 0)
            return w->e->helpers[i].device_ok;
    return 1; /* a library function: checked through its arguments */
}

static int expr_ok(map_walk *w, const ch_ir *x);

/* `p[i]` with p a buffer parameter */
static int element_ok(map_walk *w, const ch_ir *x)
{
    const ch_param *p = param_of(w, x->kids[0]);
    return p && p->role == CH_ROLE_POINTER && ch_ir_is_var(x->kids[1], w->counter);
}

/* What may be assigned: an element `p[i]` or a local of the loop body. */
static int target_ok(map_walk *w, const ch_ir *x)
{
    if (x->kind == CH_IR_INDEX)
        return element_ok(w, x);
    return x->kind == CH_IR_VAR && x->param_index < 0 && is_local(w, x->text);
}

static int var_ok(map_walk *w, const ch_ir *x)
{
    if (strcmp(x->text, w->counter) == 0)
        return 0; /* i as a value: a chunk would see its own */
    const ch_param *p = param_of(w, x);
    if (p)
        return p->role == CH_ROLE_SCALAR && strcmp(p->name, w->size) != 0;
    return is_local(w, x->text);
}

static int kids_ok(map_walk *w, const ch_ir *x)
{
    for (size_t i = 0; i < x->nkids; i++)
        if (x->kids[i] && !expr_ok(w, x->kids[i]))
            return 0;
    return 1;
}

static int expr_ok(map_walk *w, const ch_ir *x)
{
    switch (x->kind) {
    case CH_IR_INT_LIT:
    case CH_IR_FLOAT_LIT:
        return 1;
    case CH_IR_VAR:
        return var_ok(w, x);
    case CH_IR_INDEX:
        return element_ok(w, x);
    case CH_IR_ASSIGN:
        return target_ok(w, x->kids[0]) && (strcmp(x->text, "=") == 0 || expr_ok(w, x->kids[0])) &&
               expr_ok(w, x->kids[1]);
    case CH_IR_UNARY:
        if (strcmp(x->text, "*") == 0 || strcmp(x->text, "&") == 0)
            return 0; /* addresses: pointer arithmetic the subscripts do not show */
        if (strcmp(x->text, "++") == 0 || strcmp(x->text, "--") == 0)
            return target_ok(w, x->kids[0]) && expr_ok(w, x->kids[0]);
        return kids_ok(w, x);
    case CH_IR_CALL:
        return helper_is_pure(w, x->text) && kids_ok(w, x);
    case CH_IR_BINARY:
    case CH_IR_CAST:
    case CH_IR_COND:
        return kids_ok(w, x);
    default:
        return 0;
    }
}

static int stmt_ok(map_walk *w, const ch_ir *s)
{
    if (!s)
        return 1;
    switch (s->kind) {
    case CH_IR_BLOCK:
        for (size_t i = 0; i < s->nkids; i++)
            if (!stmt_ok(w, s->kids[i]))
                return 0;
        return 1;
    case CH_IR_DECL:
        if (s->nkids && s->kids[0] && !expr_ok(w, s->kids[0]))
            return 0;
        ch_strvec_push(&w->locals, s->text);
        return 1;
    case CH_IR_EXPR_STMT:
        return expr_ok(w, s->kids[0]);
    case CH_IR_IF:
        return expr_ok(w, s->kids[0]) && stmt_ok(w, s->kids[1]) &&
               (s->nkids < 3 || stmt_ok(w, s->kids[2]));
    case CH_IR_NULL_STMT:
        return 1;
    default:
        return 0; /* loops, jumps, returns, what the scanner did not model */
    }
}

/* `i++`, `++i`, `i += 1` */
static int steps_by_one(const ch_ir *inc, const char *counter)
{
    if (!inc)
        return 0;
    if (inc->kind == CH_IR_UNARY && strcmp(inc->text, "++") == 0)
        return ch_ir_is_var(inc->kids[0], counter);
    return inc->kind == CH_IR_ASSIGN && strcmp(inc->text, "+=") == 0 &&
           ch_ir_is_var(inc->kids[0], counter) && inc->kids[1]->kind == CH_IR_INT_LIT &&
           inc->kids[1]->ival == 1;
}

/* The loop `for (i = 0; i < n; i++)`: its counter, and n's parameter (an integer scalar). */
static const ch_param *canonical_loop(const ch_entry *e, const ch_ir *f, const char **counter)
{
    const ch_ir *start;
    if (ch_ir_for_init(f, counter, &start) != 0 || start->kind != CH_IR_INT_LIT ||
        start->ival != 0 || f->nkids < 4)
        return NULL;
    const ch_ir *cond = f->kids[1];
    if (!cond || cond->kind != CH_IR_BINARY || strcmp(cond->text, "<") != 0 ||
        !ch_ir_is_var(cond->kids[0], *counter) || !steps_by_one(f->kids[2], *counter))
        return NULL;
    const ch_ir *bound = cond->kids[1];
    if (bound->kind != CH_IR_VAR || bound->param_index < 0 ||
        (size_t)bound->param_index >= e->n_params)
        return NULL;
    const ch_param *n = &e->params[bound->param_index];
    if (n->role != CH_ROLE_SCALAR || !ch_scalar_is_integer(n->elem))
        return NULL;
    return n;
}

/* The body's only loop, allowing a declaration of its counter before it. */
static const ch_ir *only_loop(const ch_ir *body)
{
    const ch_ir *loop = NULL;
    for (size_t i = 0; body && i < body->nkids; i++) {
        const ch_ir *s = body->kids[i];
        if (!s || s->kind == CH_IR_NULL_STMT)
            continue;
        if (s->kind == CH_IR_DECL && (s->nkids == 0 || !s->kids[0]))
            continue; /* `int i;`, checked below to be the counter */
        if (s->kind == CH_IR_RETURN && s->nkids && !s->kids[0] && i + 1 == body->nkids)
            continue;
        if (s->kind != CH_IR_FOR || loop)
            return NULL;
        loop = s;
    }
    return loop;
}

static int decls_are_counter(const ch_ir *body, const char *counter)
{
    for (size_t i = 0; i < body->nkids; i++) {
        const ch_ir *s = body->kids[i];
        if (s && s->kind == CH_IR_DECL && strcmp(s->text, counter) != 0)
            return 0;
    }
    return 1;
}

static int buffers_are_n_long(const ch_entry *e, const char *size)
{
    size_t buffers = 0;
    for (size_t i = 0; i < e->n_params; i++) {
        const ch_param *p = &e->params[i];
        if (p->role == CH_ROLE_SCALAR)
            continue;
        if (p->role != CH_ROLE_POINTER || !p->extent || strcmp(p->extent, size) != 0)
            return 0;
        buffers++;
    }
    return buffers > 0;
}

const char *ch_checklist_map_size(const ch_entry *e)
{
    if (!e->has_body || !e->body || e->body->kind != CH_IR_BLOCK)
        return NULL;
    const ch_ir *loop = only_loop(e->body);
    const char *counter = NULL;
    const ch_param *n = loop ? canonical_loop(e, loop, &counter) : NULL;
    if (!n || !decls_are_counter(e->body, counter) || !buffers_are_n_long(e, n->name))
        return NULL;
    map_walk w = {e, counter, n->name, {0}};
    int ok = stmt_ok(&w, loop->kids[3]);
    ch_strvec_free(&w.locals);
    return ok ? n->name : NULL;
}

void ch_checklist_note_map(ch_checklist *c, const ch_entry *e)
{
    const char *size = ch_checklist_map_size(e);
    free(c->map);
    c->map = size ? ch_xstrdup(size) : NULL;
}
