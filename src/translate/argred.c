/* Arg-reductions: recognising a body that computes a maximum (or minimum) together with its index.
 *
 * `m = x[0]; at = 0; for (i = 1; i < n; i++) if (x[i] > m) { m = x[i]; at = i; } *r = at;`
 * carries two dependences through m and at that are neither a sum nor a plain min/max: the
 * planner (schedule.c) leaves such a loop to one thread, which takes seconds on a GPU. The pair
 * (value, index) is still a reduction: with E(i) totally preordered by the comparison, the C
 * loop's result is the best element, ties broken by the loop order (the first index for `>` and
 * `<`, which only replace on a strictly better value, the last for `>=` and `<=`), and the
 * initial (m, at) counts as an element before every iteration. That combine is associative, so
 * threads may reduce ranges of the loop in any grouping (argred_cuda.c prints it).
 *
 * Recognition is by the body's shape, whole, and nothing else is accepted: assignments of m and
 * at before the loop, the loop whose body is exactly the conditional update (as if-conversion
 * (ifconv.c) writes it: `int ch_ifN = (cond); if (ch_ifN) { m = E; at = IDX; }`), then stores of
 * m or at into parameters. E, IDX and the initial values read only parameters, literals and the
 * counter, so nothing else can carry a dependence across iterations. Any other shape (the index
 * updated without the value, a third scalar in the branch, a comparison against something
 * other than m) keeps the planner's plan. */
#include <stdlib.h>
#include <string.h>

#include "ch/cexpr.h"
#include "ch/translate.h"

/* Statements of a block, nested blocks flattened (C scoping does not matter here: a name
 * declared in a nested block and used after it would not compile). */
static void flatten(const ch_ir *s, const ch_ir ***out, size_t *n, size_t *cap)
{
    if (s && s->kind == CH_IR_BLOCK) {
        for (size_t i = 0; i < s->nkids; i++)
            flatten(s->kids[i], out, n, cap);
        return;
    }
    if (!s || s->kind == CH_IR_NULL_STMT)
        return;
    if (*n == *cap) {
        *cap = *cap ? 2 * *cap : 8;
        *out = ch_xrealloc(*out, *cap * sizeof **out);
    }
    (*out)[(*n)++] = s;
}

/* An expression without side effects that reads only parameters, literals and (when counter is
 * set) that counter: evaluating it in a kernel gives what the C body gets. */
static int pure(const ch_ir *x, const char *counter)
{
    if (!x)
        return 0;
    switch (x->kind) {
    case CH_IR_INT_LIT:
    case CH_IR_FLOAT_LIT:
        return 1;
    case CH_IR_VAR:
        return x->param_index >= 0 || (counter && strcmp(x->text, counter) == 0);
    case CH_IR_INDEX:
    case CH_IR_CAST:
    case CH_IR_COND:
        break;
    case CH_IR_BINARY:
        if (strcmp(x->text, ",") == 0)
            return 0;
        break;
    case CH_IR_UNARY:
        if (strcmp(x->text, "++") == 0 || strcmp(x->text, "--") == 0 || strcmp(x->text, "&") == 0)
            return 0;
        break;
    default:
        return 0;
    }
    for (size_t i = 0; i < x->nkids; i++)
        if (!pure(x->kids[i], counter))
            return 0;
    return 1;
}

/* `name = value` as an expression statement: value, else NULL. */
static const ch_ir *assigns(const ch_ir *s, const char *name)
{
    if (!s || s->kind != CH_IR_EXPR_STMT || s->kids[0]->kind != CH_IR_ASSIGN ||
        strcmp(s->kids[0]->text, "=") != 0 || !ch_ir_is_var(s->kids[0]->kids[0], name))
        return NULL;
    return s->kids[0]->kids[1];
}

/* The element types whose comparisons and shuffles the printed kernels handle. */
static int value_type_ok(ch_scalar t)
{
    return t == CH_T_INT || t == CH_T_UINT || t == CH_T_LONG || t == CH_T_ULONG ||
           t == CH_T_LLONG || t == CH_T_ULLONG || t == CH_T_FLOAT || t == CH_T_DOUBLE;
}

/* The loop's body: the conditional update. Fills a's value, index, elem, at_of, max, last. */
static int match_update(const ch_ir *body, ch_tr_argred *a)
{
    const ch_ir **st = NULL;
    size_t n = 0, cap = 0;
    flatten(body, &st, &n, &cap);
    const ch_ir *cond = NULL, *then = NULL;
    if (n == 2 && st[0]->kind == CH_IR_DECL && st[0]->nkids == 1 && st[1]->kind == CH_IR_IF &&
        (st[1]->nkids < 3 || !st[1]->kids[2]) && ch_ir_is_var(st[1]->kids[0], st[0]->text)) {
        cond = st[0]->kids[0]; /* if-converted */
        then = st[1]->kids[1];
    } else if (n == 1 && st[0]->kind == CH_IR_IF && (st[0]->nkids < 3 || !st[0]->kids[2])) {
        cond = st[0]->kids[0];
        then = st[0]->kids[1];
    }
    free(st);
    if (!cond || cond->kind != CH_IR_BINARY)
        return 0;
    st = NULL;
    n = cap = 0;
    flatten(then, &st, &n, &cap);
    int ok = n == 2;
    const ch_ir *u[2] = {NULL, NULL};
    for (size_t i = 0; ok && i < 2; i++) {
        ok = st[i]->kind == CH_IR_EXPR_STMT && st[i]->kids[0]->kind == CH_IR_ASSIGN &&
             strcmp(st[i]->kids[0]->text, "=") == 0 && st[i]->kids[0]->kids[0]->kind == CH_IR_VAR &&
             st[i]->kids[0]->kids[0]->param_index < 0;
        if (ok)
            u[i] = st[i]->kids[0];
    }
    free(st);
    if (!ok || strcmp(u[0]->kids[0]->text, u[1]->kids[0]->text) == 0)
        return 0;
    /* which assignment is the value's: the one whose name the condition compares with */
    const char *op = cond->text;
    int rev = -1; /* 0: E op m, 1: m op E */
    size_t vi = 0;
    for (size_t i = 0; i < 2 && rev < 0; i++) {
        if (ch_ir_is_var(cond->kids[1], u[i]->kids[0]->text) &&
            ch_ir_same(cond->kids[0], u[i]->kids[1]))
            rev = 0, vi = i;
        else if (ch_ir_is_var(cond->kids[0], u[i]->kids[0]->text) &&
                 ch_ir_same(cond->kids[1], u[i]->kids[1]))
            rev = 1, vi = i;
    }
    if (rev < 0)
        return 0;
    int gt = strcmp(op, ">") == 0, ge = strcmp(op, ">=") == 0;
    int lt = strcmp(op, "<") == 0, le = strcmp(op, "<=") == 0;
    if (!(gt || ge || lt || le))
        return 0;
    a->max = (gt || ge) != rev;
    a->last = ge || le;
    a->value = u[vi]->kids[0]->text;
    a->index = u[1 - vi]->kids[0]->text;
    a->elem = u[vi]->kids[1];
    a->at_of = u[1 - vi]->kids[1];
    return pure(a->elem, a->counter) && pure(a->at_of, a->counter) &&
           ch_ir_find(a->elem, CH_IR_VAR, a->counter) && ch_scalar_is_integer(a->at_of->type);
}

/* The canonical loop: `for (T i = start; i < bound (or <=); i++ / ++i / i += 1)`. */
static int match_loop(const ch_ir *f, ch_tr_argred *a)
{
    const ch_ir *start;
    if (f->kind != CH_IR_FOR || !f->kids[0] || f->kids[0]->kind != CH_IR_DECL ||
        ch_ir_for_init(f, &a->counter, &start) != 0 || !pure(start, NULL))
        return 0;
    a->start = start;
    a->counter_type = f->kids[0]->ctype;
    const ch_ir *c = f->kids[1], *inc = f->kids[2];
    if (!c || c->kind != CH_IR_BINARY || !ch_ir_is_var(c->kids[0], a->counter) ||
        !(strcmp(c->text, "<") == 0 || strcmp(c->text, "<=") == 0) || !pure(c->kids[1], NULL))
        return 0;
    a->bound = c->kids[1];
    a->inclusive = c->text[1] == '=';
    int step = inc && inc->kind == CH_IR_UNARY && strcmp(inc->text, "++") == 0 &&
               ch_ir_is_var(inc->kids[0], a->counter);
    step |= inc && inc->kind == CH_IR_ASSIGN && strcmp(inc->text, "+=") == 0 &&
            ch_ir_is_var(inc->kids[0], a->counter) && inc->kids[1]->kind == CH_IR_INT_LIT &&
            inc->kids[1]->ival == 1;
    return step && match_update(f->kids[3], a);
}

/* A statement after the loop: `*P = v` or `P[k] = v` (k pure), v being m or at. */
static int result_store(const ch_ir *s, const ch_tr_argred *a)
{
    if (s->kind != CH_IR_EXPR_STMT || s->kids[0]->kind != CH_IR_ASSIGN ||
        strcmp(s->kids[0]->text, "=") != 0)
        return 0;
    const ch_ir *lhs = s->kids[0]->kids[0], *rhs = s->kids[0]->kids[1];
    if (!ch_ir_is_var(rhs, a->value) && !ch_ir_is_var(rhs, a->index))
        return 0;
    int deref = lhs->kind == CH_IR_UNARY && strcmp(lhs->text, "*") == 0;
    if (!deref && !(lhs->kind == CH_IR_INDEX && pure(lhs->kids[1], NULL)))
        return 0;
    return lhs->kids[0]->kind == CH_IR_VAR && lhs->kids[0]->param_index >= 0;
}

/* Written pointers (the stores' targets) are read nowhere else: the kernels read the inputs
 * before the one thread that stores. */
static int stores_unread(const ch_tr_argred *a)
{
    for (size_t i = 0; i < a->n_after; i++) {
        const char *p = a->after[i]->kids[0]->kids[0]->kids[0]->text;
        if (ch_ir_find(a->elem, CH_IR_VAR, p) || ch_ir_find(a->vinit, CH_IR_VAR, p) ||
            ch_ir_find(a->iinit, CH_IR_VAR, p) || ch_ir_find(a->at_of, CH_IR_VAR, p) ||
            ch_ir_find(a->bound, CH_IR_VAR, p) || ch_ir_find(a->start, CH_IR_VAR, p))
            return 0;
    }
    return 1;
}

int ch_tr_argred_match(const ch_tr_model *m, ch_tr_argred *a)
{
    memset(a, 0, sizeof *a);
    const ch_ir **st = NULL;
    size_t n = 0, cap = 0, loop = (size_t)-1;
    flatten(m->entry->body, &st, &n, &cap);
    for (size_t i = 0; i < n; i++)
        if (st[i]->kind == CH_IR_FOR) {
            if (loop != (size_t)-1)
                loop = n; /* a second loop: not this shape */
            else
                loop = i;
        }
    int ok = loop < n && match_loop(st[loop], a);
    /* before the loop: the two scalars' declarations and assignments, nothing else */
    for (size_t i = 0; ok && i < loop; i++) {
        const ch_ir *s = st[i], *v = NULL;
        const char *name = NULL;
        if (s->kind == CH_IR_DECL) {
            name = s->text;
            v = s->nkids == 1 ? s->kids[0] : NULL;
        } else if ((v = assigns(s, a->value)))
            name = a->value;
        else if ((v = assigns(s, a->index)))
            name = a->index;
        ok = name && (strcmp(name, a->value) == 0 || strcmp(name, a->index) == 0) &&
             (!v || pure(v, NULL));
        if (ok && v && strcmp(name, a->value) == 0)
            a->vinit = v;
        else if (ok && v)
            a->iinit = v;
    }
    ok = ok && a->vinit && a->iinit;
    if (ok) {
        a->vtype = ch_cx_local_type(m->entry, a->value);
        a->itype = ch_cx_local_type(m->entry, a->index);
        /* the comparison and the assignment see E in m's own type: no conversion between */
        ok = value_type_ok(a->vtype) && a->elem->type == a->vtype && ch_scalar_is_integer(a->itype);
    }
    for (size_t i = loop + 1; ok && i < n; i++)
        ok = result_store(st[i], a);
    if (ok && loop + 1 < n) {
        a->n_after = n - loop - 1;
        a->after = ch_xcalloc(a->n_after, sizeof *a->after);
        memcpy(a->after, st + loop + 1, a->n_after * sizeof *a->after);
        ok = stores_unread(a);
    }
    free(st);
    if (!ok || a->n_after == 0) {
        ch_tr_argred_free(a);
        return 0;
    }
    return 1;
}

void ch_tr_argred_free(ch_tr_argred *a)
{
    free(a->after);
    memset(a, 0, sizeof *a);
}
