/* Analysis for the builtin C-to-CUDA translator: canonical for nests, affine subscripts and the
 * dependence test that decides, for every top-level loop of a harness body, whether it becomes a
 * kernel (parallel), a host loop of launches (it carries a dependence but its body is parallel
 * nests), or a located refusal naming what could not be translated or proved.
 *
 * How parallelism is proved. For a loop L with variable v, every name bound inside L (v, inner
 * loop counters, locals declared in the body, and the scalars private to L's iterations, below)
 * is "varying"; everything else (scalar parameters, top-level constants, enclosing host loop
 * counters) is invariant. Each subscript of a parameter array is turned into an affine form
 * sum(c_k * syms_k * var_k) + invariant terms, where syms are invariant factors compared by
 * their printed text. L is parallel when, for every array X that L writes,
 *   - each write's subscripts F determine v: flat subscripts are v alone (c*v + ...), or a
 *     two-term mixed radix u + K*w where u's loop runs within [0, K) (the `a[i*m + j]` of
 *     row-major code); C99 array subscripts `A[i][j]` have a dimension that is c*v + invariant;
 *   - every other access of X (reads and writes) has the same forms as the write, or agrees
 *     with it in a dimension that is c*v + invariant, so an iteration only ever touches
 *     elements that no other iteration touches;
 *   - scalars written in L are private to the iteration: declared inside L, or declared
 *     outside (C89 style) but assigned before any read in every iteration and dead after L.
 * Distinct pointer parameters are assumed not to alias (as the C body's callers already must for
 * restrict-style code); a write through a subscript that is not affine, a read of another
 * iteration's element, or a write to an outer scalar whose value crosses iterations (a
 * reduction) is a dependence.
 *
 * Loops are normalised by canonical() (first value, bound, direction, constant step), so count-
 * down loops and strided loops map to threads like any other; a loop that carries a dependence
 * runs on the host in its C order. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ch/agent_builtin.h"

/* ---- small name sets (borrowed strings) ---- */

typedef struct names {
    const char **v;
    size_t n, cap;
} names;

static void names_add(names *s, const char *name)
{
    if (!name)
        return;
    for (size_t i = 0; i < s->n; i++)
        if (strcmp(s->v[i], name) == 0)
            return;
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 8;
        s->v = ch_xrealloc(s->v, s->cap * sizeof *s->v);
    }
    s->v[s->n++] = name;
}

static int names_has(const names *s, const char *name)
{
    if (!name)
        return 0;
    for (size_t i = 0; i < s->n; i++)
        if (strcmp(s->v[i], name) == 0)
            return 1;
    return 0;
}

static void names_free(names *s)
{
    free(s->v);
    memset(s, 0, sizeof *s);
}

/* ---- analysis context ---- */

typedef struct actx {
    const ch_entry *e;
    bi_program *p;
    ch_error *err;
    bi_loop hosts[16]; /* the host loops around the nest being analysed */
    size_t nhosts;
    names mutable_; /* scalar names assigned anywhere in the body */
    int launched;   /* a kernel step exists already */
    names outer;    /* counters of mapped loops around the loop being analysed (2-D inner) */
} actx;

static const ch_param *var_param(const actx *c, const ch_ir *v)
{
    if (v->kind != CH_IR_VAR || v->param_index < 0 || (size_t)v->param_index >= c->e->n_params)
        return NULL;
    return &c->e->params[v->param_index];
}

static int is_uniform(const actx *c, const char *name)
{
    for (size_t i = 0; i < c->p->n_uniforms; i++)
        if (strcmp(c->p->uniforms[i]->text, name) == 0)
            return 1;
    return 0;
}

static int is_host_var(const actx *c, const char *name)
{
    for (size_t i = 0; i < c->nhosts; i++)
        if (strcmp(c->hosts[i].var, name) == 0)
            return 1;
    return 0;
}

static void collect_writes(const ch_ir *s, names *w)
{
    if (!s)
        return;
    if (s->kind == CH_IR_ASSIGN && s->kids[0] && s->kids[0]->kind == CH_IR_VAR)
        names_add(w, s->kids[0]->text);
    if (s->kind == CH_IR_UNARY && s->text && (!strcmp(s->text, "++") || !strcmp(s->text, "--")) &&
        s->kids[0] && s->kids[0]->kind == CH_IR_VAR)
        names_add(w, s->kids[0]->text);
    for (size_t i = 0; i < s->nkids; i++)
        collect_writes(s->kids[i], w);
}

/* An expression the launcher can evaluate: literals, scalar parameters, top-level constants and
 * host loop counters combined by pure operators. */
static int host_evaluable(const actx *c, const ch_ir *e)
{
    if (!e)
        return 1;
    switch (e->kind) {
    case CH_IR_INT_LIT:
    case CH_IR_FLOAT_LIT:
        return 1;
    case CH_IR_VAR: {
        const ch_param *p = var_param(c, e);
        if (p)
            return p->role == CH_ROLE_SCALAR && !names_has(&c->mutable_, e->text);
        return is_uniform(c, e->text) || is_host_var(c, e->text);
    }
    case CH_IR_UNARY:
        if (e->text && strchr("*&", e->text[0]) && e->text[1] == '\0')
            return 0;
        if (e->text && (!strcmp(e->text, "++") || !strcmp(e->text, "--")))
            return 0;
        break;
    case CH_IR_CALL:
        if (!e->text || !ch_cx_callable(c->e, e->text))
            return 0;
        break;
    case CH_IR_BINARY:
    case CH_IR_CAST:
    case CH_IR_COND:
        break;
    default:
        return 0;
    }
    for (size_t i = 0; i < e->nkids; i++)
        if (!host_evaluable(c, e->kids[i]))
            return 0;
    return 1;
}

/* ---- canonical loops ---- */

static const char *decl_type_of(const ch_entry *e, const char *name, const bi_program *p)
{
    if (p)
        for (size_t i = 0; i < p->n_counters; i++)
            if (strcmp(p->counters[i]->text, name) == 0)
                return p->counters[i]->ctype;
    return NULL;
}

/* The value of an integer constant expression as the IR keeps it (a literal, maybe negated or
 * cast to an integer type); 0 when it is not one. */
static int const_int(const ch_ir *x, long long *v)
{
    if (!x)
        return 0;
    if (x->kind == CH_IR_INT_LIT) {
        *v = x->ival;
        return 1;
    }
    if (x->kind == CH_IR_UNARY && x->text && !strcmp(x->text, "-") && const_int(x->kids[0], v)) {
        *v = -*v;
        return 1;
    }
    if (x->kind == CH_IR_CAST && ch_scalar_is_integer(ch_scalar_parse(x->ctype ? x->ctype : "")))
        return const_int(x->kids[0], v);
    return 0;
}

/* How the increment `inc` moves the counter `v`: +c or -c; 0 when it is not a constant step. */
static long long step_of(const ch_ir *inc, const char *v)
{
    long long c;
    if (!inc)
        return 0;
    if (inc->kind == CH_IR_UNARY && inc->text && ch_ir_is_var(inc->kids[0], v)) {
        if (!strcmp(inc->text, "++"))
            return 1;
        if (!strcmp(inc->text, "--"))
            return -1;
        return 0;
    }
    if (inc->kind != CH_IR_ASSIGN || !inc->text || !ch_ir_is_var(inc->kids[0], v))
        return 0;
    const ch_ir *r = inc->kids[1];
    if (!strcmp(inc->text, "+=") && const_int(r, &c))
        return c;
    if (!strcmp(inc->text, "-=") && const_int(r, &c))
        return -c;
    if (strcmp(inc->text, "=") != 0 || !r || r->kind != CH_IR_BINARY || !r->text)
        return 0;
    if (!strcmp(r->text, "+") && ch_ir_is_var(r->kids[0], v) && const_int(r->kids[1], &c))
        return c;
    if (!strcmp(r->text, "+") && ch_ir_is_var(r->kids[1], v) && const_int(r->kids[0], &c))
        return c;
    if (!strcmp(r->text, "-") && ch_ir_is_var(r->kids[0], v) && const_int(r->kids[1], &c))
        return -c;
    return 0;
}

/* The comparison `a op b` written the other way round: `b mirror(op) a`. */
static const char *mirrored(const char *op)
{
    if (!strcmp(op, "<"))
        return ">";
    if (!strcmp(op, ">"))
        return "<";
    if (!strcmp(op, "<="))
        return ">=";
    if (!strcmp(op, ">="))
        return "<=";
    return op;
}

static int canonical(const ch_entry *e, const bi_program *p, const ch_ir *f, bi_loop *out,
                     ch_error *err)
{
    memset(out, 0, sizeof *out);
    out->node = f;
    if (f->kind != CH_IR_FOR || f->nkids < 4)
        return ch_error_at(err, e->file, f->line, f->col, "not a for loop");
    const ch_ir *init = f->kids[0], *cond = f->kids[1], *inc = f->kids[2];
    out->body = f->kids[3];
    if (init && init->kind == CH_IR_DECL && init->nkids && init->kids[0]) {
        out->var = init->text;
        out->ctype = init->ctype;
        out->first = init->kids[0];
    } else if (init && init->kind == CH_IR_EXPR_STMT && init->kids[0]->kind == CH_IR_ASSIGN &&
               strcmp(init->kids[0]->text, "=") == 0 && init->kids[0]->kids[0]->kind == CH_IR_VAR &&
               init->kids[0]->kids[0]->param_index < 0) {
        out->var = init->kids[0]->kids[0]->text;
        out->first = init->kids[0]->kids[1];
        out->ctype = decl_type_of(e, out->var, p);
        if (!out->ctype) {
            ch_scalar t = ch_cx_local_type(e, out->var);
            out->ctype = t != CH_T_UNKNOWN ? ch_scalar_name(t) : "int";
        }
    } else {
        return ch_error_at(err, e->file, f->line, f->col,
                           "this loop is not a canonical counted loop: it must start as "
                           "`for (int i = lo; ...` or `for (i = lo; ...`");
    }
    const char *v = out->var;
    ch_scalar vt = ch_cx_local_type(e, v);
    if (out->ctype && ch_scalar_parse(out->ctype) != CH_T_UNKNOWN)
        vt = ch_scalar_parse(out->ctype);
    if (vt != CH_T_UNKNOWN && !ch_scalar_is_integer(vt))
        return ch_error_at(err, e->file, f->line, f->col,
                           "the counter '%s' of this loop is not an integer", v);
    /* the condition, turned so that the counter is on the left: `n > i` reads `i < n` */
    const char *rel = NULL;
    if (cond && cond->kind == CH_IR_BINARY && cond->text && cond->nkids == 2) {
        if (ch_ir_is_var(cond->kids[0], v)) {
            rel = cond->text;
            out->bound = cond->kids[1];
        } else if (ch_ir_is_var(cond->kids[1], v)) {
            rel = mirrored(cond->text);
            out->bound = cond->kids[0];
        }
    }
    int up = rel && (!strcmp(rel, "<") || !strcmp(rel, "<="));
    int down = rel && (!strcmp(rel, ">") || !strcmp(rel, ">="));
    if (!up && !down)
        return ch_error_at(err, e->file, f->line, f->col,
                           "this loop's condition does not compare its counter '%s' with a bound "
                           "(`%s < hi`, `%s <= hi`, `%s > lo` or `%s >= lo`)",
                           v, v, v, v, v);
    out->inclusive = rel[1] == '=';
    out->down = down;
    if (ch_ir_find(out->bound, CH_IR_VAR, v))
        return ch_error_at(err, e->file, f->line, f->col,
                           "the bound of this loop depends on its counter '%s'", v);
    long long step = step_of(inc, v);
    if (step == 0)
        return ch_error_at(err, e->file, f->line, f->col,
                           "this loop does not step its counter '%s' by a constant (`%s++`, "
                           "`%s--`, `%s += 2`, `%s -= 2`, `%s = %s + 1`, ...)",
                           v, v, v, v, v, v, v);
    if ((step > 0) != up)
        return ch_error_at(err, e->file, f->line, f->col,
                           "this loop %s its counter '%s' but its condition `%s %s ...` bounds it "
                           "from %s: it never ends or never runs",
                           step > 0 ? "increases" : "decreases", v, v, rel, up ? "above" : "below");
    out->step = step > 0 ? step : -step;
    return 0;
}

int bi_loop_canonical(const ch_entry *e, const ch_ir *f, bi_loop *out, ch_error *err)
{
    return canonical(e, NULL, f, out, err);
}

/* ---- affine forms ---- */

typedef struct aterm {
    long long c;
    const char *var; /* varying loop counter, or NULL for an invariant term */
    char *syms;      /* invariant factors, sorted, joined by '\1'; "" for none (owned) */
} aterm;

typedef struct aform {
    aterm *t;
    size_t n;
} aform;

static void af_free(aform *f)
{
    for (size_t i = 0; i < f->n; i++)
        free(f->t[i].syms);
    free(f->t);
    f->t = NULL;
    f->n = 0;
}

static int str_eq0(const char *a, const char *b)
{
    if (!a || !b)
        return a == b;
    return strcmp(a, b) == 0;
}

static void af_add(aform *f, long long c, const char *var, const char *syms)
{
    for (size_t i = 0; i < f->n; i++)
        if (str_eq0(f->t[i].var, var) && strcmp(f->t[i].syms, syms) == 0) {
            f->t[i].c += c;
            return;
        }
    f->t = ch_xrealloc(f->t, (f->n + 1) * sizeof *f->t);
    f->t[f->n].c = c;
    f->t[f->n].var = var;
    f->t[f->n].syms = ch_xstrdup(syms);
    f->n++;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The product of two sorted factor lists. */
static char *sym_mul(const char *a, const char *b)
{
    char *all = ch_xasprintf("%s%s%s", a, (*a && *b) ? "\1" : "", b);
    if (!*all)
        return all;
    size_t n = 1;
    for (char *p = all; *p; p++)
        n += *p == '\1';
    char **parts = ch_xmalloc(n * sizeof *parts);
    size_t k = 0;
    for (char *tok = all;;) {
        char *sep = strchr(tok, '\1');
        parts[k++] = tok;
        if (!sep)
            break;
        *sep = '\0';
        tok = sep + 1;
    }
    qsort(parts, k, sizeof *parts, cmp_str);
    ch_strbuf sb;
    ch_strbuf_init(&sb);
    for (size_t i = 0; i < k; i++) {
        if (i)
            ch_strbuf_addc(&sb, '\1');
        ch_strbuf_adds(&sb, parts[i]);
    }
    free(parts);
    free(all);
    return ch_strbuf_detach(&sb);
}

static int af_has_var(const aform *f)
{
    for (size_t i = 0; i < f->n; i++)
        if (f->t[i].var && f->t[i].c)
            return 1;
    return 0;
}

static int cmp_term(const void *a, const void *b)
{
    const aterm *x = a, *y = b;
    int r = strcmp(x->var ? x->var : "", y->var ? y->var : "");
    return r ? r : strcmp(x->syms, y->syms);
}

static void af_normalise(aform *f)
{
    size_t k = 0;
    for (size_t i = 0; i < f->n; i++) {
        if (f->t[i].c == 0) {
            free(f->t[i].syms);
            continue;
        }
        f->t[k++] = f->t[i];
    }
    f->n = k;
    qsort(f->t, f->n, sizeof *f->t, cmp_term);
}

static int af_equal(const aform *a, const aform *b)
{
    if (a->n != b->n)
        return 0;
    for (size_t i = 0; i < a->n; i++)
        if (a->t[i].c != b->t[i].c || !str_eq0(a->t[i].var, b->t[i].var) ||
            strcmp(a->t[i].syms, b->t[i].syms) != 0)
            return 0;
    return 1;
}

/* ---- per-loop dependence analysis ---- */

typedef struct access {
    const ch_ir *node; /* the outermost INDEX */
    const ch_ir *base; /* the parameter VAR */
    const ch_ir *subs[8];
    size_t nsubs; /* outermost subscript first */
    int write, compound;
} access;

/* Why a scalar declared outside a loop and assigned in it cannot be private to its iterations. */
typedef struct fate {
    const char *name;
    enum { FATE_EXPOSED, FATE_LIVE_AFTER, FATE_NOT_LOCAL } kind;
    const ch_ir *at; /* EXPOSED: the read before any assignment; LIVE_AFTER: the read after L */
} fate;

typedef struct lstate {
    actx *c;
    const bi_loop *L;
    names inner;    /* names bound inside L (and L's counter) */
    names loopvars; /* counters of L and of loops inside it */
    names written;  /* scalar names assigned inside L */
    names privates; /* scalars declared outside L that each iteration owns (also in inner) */
    fate *fates;    /* why the other scalars declared outside L and assigned in it are not */
    size_t nfates;
    bi_loop loops[32];
    size_t nloops;
    access *acc;
    size_t nacc;
    int dep; /* a dependence was found; its reason is in why */
    int scalar_red;
    ch_error why;
} lstate;

static void ls_free(lstate *ls)
{
    names_free(&ls->inner);
    names_free(&ls->loopvars);
    names_free(&ls->written);
    names_free(&ls->privates);
    free(ls->fates);
    free(ls->acc);
}

/* ---- scalars declared outside a loop (C89 style) ----
 *
 * `double t; ... for (i...) { t = 0; for (k...) t += ...; c[i] = t; }` is the same program as
 * one that declares t inside the loop when two things hold: every iteration assigns t before
 * it reads it (t is "killed" at the top of the iteration on every path), and nothing reads the
 * value the loop leaves in t. Then each thread gets its own t. The walks below decide the first
 * by a must-assign pass in evaluation order (branches join by "assigned on both"; a loop body
 * may run zero times, so what it assigns does not count after it) and the second by looking for
 * a read that the loop's exit can reach before another assignment. Both err on the side of a
 * read: an answer they cannot give makes the loop keep its refusal. */

/* Finds a read of `v` in e that no assignment before it (in this walk) covers; *killed says
 * whether v is assigned on every path so far and is updated. Returns 1 with *at the read. */
static int exp_expr(const ch_ir *e, const char *v, int *killed, const ch_ir **at)
{
    if (!e)
        return 0;
    switch (e->kind) {
    case CH_IR_VAR:
        if (!*killed && e->text && strcmp(e->text, v) == 0) {
            *at = e;
            return 1;
        }
        return 0;
    case CH_IR_ASSIGN:
        if (ch_ir_is_var(e->kids[0], v)) {
            /* `v op= x` reads v first; `v = x` reads only x, then v is set */
            if (strcmp(e->text, "=") != 0 && !*killed) {
                *at = e->kids[0];
                return 1;
            }
            if (exp_expr(e->kids[1], v, killed, at))
                return 1;
            *killed = 1;
            return 0;
        }
        break;
    case CH_IR_UNARY:
        if (ch_ir_is_var(e->kids[0], v) && e->text &&
            (!strcmp(e->text, "++") || !strcmp(e->text, "--") || !strcmp(e->text, "&"))) {
            if (!*killed || e->text[0] == '&') {
                *at = e->kids[0];
                return 1;
            }
            return 0;
        }
        break;
    case CH_IR_BINARY:
        if (e->text && (!strcmp(e->text, "&&") || !strcmp(e->text, "||"))) {
            /* the right side may not run: what it assigns is not certain */
            int k = *killed;
            return exp_expr(e->kids[0], v, killed, at) || exp_expr(e->kids[1], v, &k, at);
        }
        break;
    case CH_IR_COND: {
        if (exp_expr(e->kids[0], v, killed, at))
            return 1;
        int k1 = *killed, k2 = *killed;
        if (exp_expr(e->kids[1], v, &k1, at) || exp_expr(e->kids[2], v, &k2, at))
            return 1;
        *killed = k1 && k2;
        return 0;
    }
    default:
        break;
    }
    for (size_t i = 0; i < e->nkids; i++)
        if (exp_expr(e->kids[i], v, killed, at))
            return 1;
    return 0;
}

static int exp_stmt(const ch_ir *s, const char *v, int *killed, const ch_ir **at)
{
    if (!s)
        return 0;
    switch (s->kind) {
    case CH_IR_BLOCK: {
        /* a declaration of the same name starts another variable, whose uses up to the end of
         * the block are not v's; v's state comes back after it */
        int shadowed = 0, outer = 0;
        for (size_t i = 0; i < s->nkids; i++) {
            const ch_ir *k = s->kids[i];
            if (!shadowed && k && k->kind == CH_IR_DECL && k->text && !strcmp(k->text, v)) {
                if (k->nkids && exp_expr(k->kids[0], v, killed, at))
                    return 1;
                shadowed = 1;
                outer = *killed;
                *killed = 1;
                continue;
            }
            if (exp_stmt(k, v, killed, at))
                return 1;
        }
        if (shadowed)
            *killed = outer;
        return 0;
    }
    case CH_IR_DECL:
        return s->nkids && exp_expr(s->kids[0], v, killed, at);
    case CH_IR_IF: {
        if (exp_expr(s->kids[0], v, killed, at))
            return 1;
        int k1 = *killed, k2 = *killed;
        if (exp_stmt(s->kids[1], v, &k1, at) || (s->nkids > 2 && exp_stmt(s->kids[2], v, &k2, at)))
            return 1;
        *killed = k1 && k2;
        return 0;
    }
    case CH_IR_FOR: {
        /* init and the first test always run; the body and the step may not, and a `continue`
         * reaches the step past the body's assignments: both start from the state before it */
        const ch_ir *init = s->kids[0];
        if (exp_stmt(init, v, killed, at))
            return 1;
        if (init && init->kind == CH_IR_DECL && init->text && !strcmp(init->text, v))
            return 0; /* the loop's own counter of that name: none of its uses are v's */
        if (exp_expr(s->kids[1], v, killed, at))
            return 1;
        int kb = *killed, ki = *killed;
        return exp_stmt(s->kids[3], v, &kb, at) || exp_expr(s->kids[2], v, &ki, at);
    }
    case CH_IR_WHILE: {
        if (exp_expr(s->kids[0], v, killed, at))
            return 1;
        int k = *killed;
        return exp_stmt(s->kids[1], v, &k, at);
    }
    case CH_IR_DO: {
        /* treated like a while loop: a `continue` reaches the test past the body */
        int kb = *killed, kc = *killed;
        return exp_stmt(s->kids[0], v, &kb, at) || exp_expr(s->kids[1], v, &kc, at);
    }
    default:
        for (size_t i = 0; i < s->nkids; i++)
            if (exp_expr(s->kids[i], v, killed, at))
                return 1;
        return 0;
    }
}

static int contains(const ch_ir *s, const ch_ir *x)
{
    if (!s)
        return 0;
    if (s == x)
        return 1;
    for (size_t i = 0; i < s->nkids; i++)
        if (contains(s->kids[i], x))
            return 1;
    return 0;
}

static int is_loop(const ch_ir *s)
{
    return s && (s->kind == CH_IR_FOR || s->kind == CH_IR_WHILE || s->kind == CH_IR_DO);
}

/* Looks for a read of v that the exit of L reaches before v is assigned again: in what follows
 * L, and anywhere in the loops around L (their next iteration runs their body again). A loop
 * that does not contain L is read with the must-assign walk from its start; other statements
 * one by one. *after: L has been passed. Returns 1 with *at the read. */
static int live_walk(const ch_ir *s, const ch_ir *L, const char *v, int *after, int around,
                     const ch_ir **at)
{
    if (!s)
        return 0;
    if (s == L) {
        *after = 1;
        return 0;
    }
    int k = 0;
    if (!contains(s, L))
        return (*after || around) && exp_stmt(s, v, &k, at);
    switch (s->kind) {
    case CH_IR_BLOCK:
        for (size_t i = 0; i < s->nkids; i++)
            if (live_walk(s->kids[i], L, v, after, around, at))
                return 1;
        return 0;
    case CH_IR_FOR:
        /* the test and the step run again after L; the init does not */
        if (exp_expr(s->kids[1], v, &k, at) || exp_expr(s->kids[2], v, &k, at))
            return 1;
        return live_walk(s->kids[3], L, v, after, 1, at);
    case CH_IR_WHILE:
        if (exp_expr(s->kids[0], v, &k, at))
            return 1;
        return live_walk(s->kids[1], L, v, after, 1, at);
    case CH_IR_DO:
        if (exp_expr(s->kids[1], v, &k, at))
            return 1;
        return live_walk(s->kids[0], L, v, after, 1, at);
    case CH_IR_IF:
        if (around && exp_expr(s->kids[0], v, &k, at))
            return 1;
        for (size_t i = 1; i < s->nkids; i++)
            if (live_walk(s->kids[i], L, v, after, around, at))
                return 1;
        return 0;
    default:
        return 0;
    }
}

/* A top-level declaration of `name`: the function's own local, outside any loop. */
static const ch_ir *top_decl(const ch_ir *s, const char *name)
{
    if (!s || is_loop(s))
        return NULL;
    if (s->kind == CH_IR_DECL && s->text && strcmp(s->text, name) == 0)
        return s;
    for (size_t i = 0; i < s->nkids; i++) {
        const ch_ir *d = top_decl(s->kids[i], name);
        if (d)
            return d;
    }
    return NULL;
}

/* Sorts the scalars L assigns but does not declare: private ones join inner (each iteration,
 * hence each thread, has its own), the others keep a fate that scalar_write reports. */
static void classify_scalars(lstate *ls)
{
    const actx *c = ls->c;
    for (size_t i = 0; i < ls->written.n; i++) {
        const char *v = ls->written.v[i];
        if (names_has(&ls->inner, v) || ch_entry_param(c->e, v) || is_host_var(c, v) ||
            names_has(&c->outer, v))
            continue; /* declared in L, or refused (parameters, enclosing counters) as written */
        fate f = {v, FATE_NOT_LOCAL, NULL}; /* no declaration: a global, which outlives the call */
        int killed = 0, after = 0;
        if (top_decl(c->e->body, v)) {
            if (exp_stmt(ls->L->body, v, &killed, &f.at)) {
                f.kind = FATE_EXPOSED;
            } else if (live_walk(c->e->body, ls->L->node, v, &after, 0, &f.at)) {
                f.kind = FATE_LIVE_AFTER;
            } else {
                names_add(&ls->inner, v);
                names_add(&ls->privates, v);
                continue;
            }
        }
        ls->fates = ch_xrealloc(ls->fates, (ls->nfates + 1) * sizeof *ls->fates);
        ls->fates[ls->nfates++] = f;
    }
}

static void set_dep(lstate *ls, int scalar, const ch_ir *at, const char *fmt, const char *a,
                    const char *b)
{
    if (ls->dep)
        return;
    ls->dep = 1;
    ls->scalar_red = scalar;
    char msg[1024];
    snprintf(msg, sizeof msg, fmt, a ? a : "", b ? b : "");
    const ch_ir *L = ls->L->node;
    if (at && at != L)
        ch_error_at(&ls->why, ls->c->e->file, L->line, L->col, "%s (at %u:%u)", msg, at->line,
                    at->col);
    else
        ch_error_at(&ls->why, ls->c->e->file, L->line, L->col, "%s", msg);
}

static int hard(lstate *ls, const ch_ir *at, const char *fmt, const char *a)
{
    return ch_error_at(ls->c->err, ls->c->e->file, at->line, at->col, fmt, a ? a : "");
}

static char *expr_text(const actx *c, const ch_ir *e)
{
    ch_strbuf sb;
    ch_strbuf_init(&sb);
    ch_cx em = {.entry = c->e, .out = &sb};
    ch_cx_expr(&em, e);
    return ch_strbuf_detach(&sb);
}

static void prepass(lstate *ls, const ch_ir *s)
{
    if (!s)
        return;
    if (s->kind == CH_IR_DECL)
        names_add(&ls->inner, s->text);
    if (s->kind == CH_IR_FOR) {
        const ch_ir *init = s->kids[0];
        const char *v = NULL;
        /* a counter declared by its loop is bound inside L (the DECL adds it); one declared
         * outside L is a scalar L assigns, private when every iteration sets it first */
        if (init && init->kind == CH_IR_DECL)
            v = init->text;
        else if (init && init->kind == CH_IR_EXPR_STMT && init->kids[0]->kind == CH_IR_ASSIGN &&
                 init->kids[0]->kids[0]->kind == CH_IR_VAR &&
                 init->kids[0]->kids[0]->param_index < 0)
            v = init->kids[0]->kids[0]->text;
        if (v)
            names_add(&ls->loopvars, v);
        bi_loop l;
        ch_error scratch;
        if (ls->nloops < 32 && canonical(ls->c->e, ls->c->p, s, &l, &scratch) == 0)
            ls->loops[ls->nloops++] = l;
    }
    for (size_t i = 0; i < s->nkids; i++)
        prepass(ls, s->kids[i]);
}

static int invariant(const lstate *ls, const ch_ir *e)
{
    if (!e)
        return 1;
    switch (e->kind) {
    case CH_IR_INT_LIT:
    case CH_IR_FLOAT_LIT:
        return 1;
    case CH_IR_VAR:
        return !names_has(&ls->inner, e->text);
    case CH_IR_BINARY:
    case CH_IR_CAST:
    case CH_IR_COND:
        break;
    case CH_IR_UNARY:
        if (!strcmp(e->text, "-") || !strcmp(e->text, "+") || !strcmp(e->text, "~") ||
            !strcmp(e->text, "!"))
            break;
        return 0;
    case CH_IR_CALL:
        if (e->text && ch_cx_callable(ls->c->e, e->text))
            break;
        return 0;
    default:
        return 0;
    }
    for (size_t i = 0; i < e->nkids; i++)
        if (!invariant(ls, e->kids[i]))
            return 0;
    return 1;
}

/* The affine form of an integer subscript; -1 when it is not affine in the loop counters. */
static int aff(const lstate *ls, const ch_ir *e, aform *out)
{
    memset(out, 0, sizeof *out);
    if (!e)
        return -1;
    switch (e->kind) {
    case CH_IR_INT_LIT:
        af_add(out, e->ival, NULL, "");
        return 0;
    case CH_IR_VAR:
        if (names_has(&ls->loopvars, e->text)) {
            af_add(out, 1, e->text, "");
            return 0;
        }
        if (names_has(&ls->inner, e->text))
            return -1; /* a private scalar: its value is not known here */
        af_add(out, 1, NULL, e->text);
        return 0;
    case CH_IR_CAST:
        if (ch_scalar_is_integer(ch_scalar_parse(e->ctype ? e->ctype : "")))
            return aff(ls, e->kids[0], out);
        break;
    case CH_IR_UNARY:
        if (!strcmp(e->text, "+"))
            return aff(ls, e->kids[0], out);
        if (!strcmp(e->text, "-")) {
            if (aff(ls, e->kids[0], out) != 0)
                return -1;
            for (size_t i = 0; i < out->n; i++)
                out->t[i].c = -out->t[i].c;
            return 0;
        }
        break;
    case CH_IR_BINARY: {
        const char *op = e->text;
        if (!strcmp(op, "+") || !strcmp(op, "-") || !strcmp(op, "*")) {
            aform a, b;
            if (aff(ls, e->kids[0], &a) != 0)
                return -1;
            if (aff(ls, e->kids[1], &b) != 0) {
                af_free(&a);
                return -1;
            }
            int rc = 0;
            if (op[0] == '*') {
                if (af_has_var(&a) && af_has_var(&b)) {
                    rc = -1;
                } else {
                    for (size_t i = 0; i < a.n; i++)
                        for (size_t j = 0; j < b.n; j++) {
                            char *s = sym_mul(a.t[i].syms, b.t[j].syms);
                            af_add(out, a.t[i].c * b.t[j].c, a.t[i].var ? a.t[i].var : b.t[j].var,
                                   s);
                            free(s);
                        }
                }
            } else {
                long long sign = op[0] == '-' ? -1 : 1;
                for (size_t i = 0; i < a.n; i++)
                    af_add(out, a.t[i].c, a.t[i].var, a.t[i].syms);
                for (size_t j = 0; j < b.n; j++)
                    af_add(out, sign * b.t[j].c, b.t[j].var, b.t[j].syms);
            }
            af_free(&a);
            af_free(&b);
            if (rc)
                af_free(out);
            else
                af_normalise(out);
            return rc;
        }
        break;
    }
    default:
        break;
    }
    if (invariant(ls, e)) {
        /* an invariant we do not decompose (n / 2, min(n, m)): one symbol, by its text */
        char *t = expr_text(ls->c, e);
        for (char *q = t; *q; q++)
            if (*q == '\1')
                *q = ' ';
        af_add(out, 1, NULL, t);
        free(t);
        return 0;
    }
    return -1;
}

static int walk_expr(lstate *ls, const ch_ir *e);

static int record_access(lstate *ls, const ch_ir *e, int write, int compound)
{
    access a = {.node = e, .write = write, .compound = compound};
    const ch_ir *b = e;
    const ch_ir *rev[8];
    size_t n = 0;
    while (b->kind == CH_IR_INDEX) {
        if (n == 8)
            return hard(ls, e, "subscripts nested deeper than 8 are not translated%s", "");
        rev[n++] = b->kids[1];
        if (walk_expr(ls, b->kids[1]) != 0)
            return -1;
        b = b->kids[0];
    }
    if (b->kind != CH_IR_VAR)
        return hard(ls, e, "only subscripts of named arrays are translated%s", "");
    for (size_t i = 0; i < n; i++)
        a.subs[i] = rev[n - 1 - i];
    a.nsubs = n;
    a.base = b;
    const ch_param *p = var_param(ls->c, b);
    if (!p) {
        if (names_has(&ls->inner, b->text))
            return 0; /* a private local array */
        return hard(ls, b,
                    "the local array '%s' is declared outside the loop nest; the builtin agent "
                    "only translates arrays that are parameters or declared inside the loop",
                    b->text);
    }
    if (p->role == CH_ROLE_SCALAR)
        return hard(ls, b, "'%s' is subscripted but is not an array parameter", b->text);
    if ((p->role == CH_ROLE_ARRAY && p->ndims > 1 && n != p->ndims) ||
        (p->role != CH_ROLE_ARRAY && n != 1) ||
        (p->role == CH_ROLE_ARRAY && p->ndims <= 1 && n != 1))
        return hard(ls, e,
                    "'%s' is used with a partial or extra subscript; the builtin agent translates "
                    "element accesses only",
                    b->text);
    ls->acc = ch_xrealloc(ls->acc, (ls->nacc + 1) * sizeof *ls->acc);
    ls->acc[ls->nacc++] = a;
    return 0;
}

static int scalar_write(lstate *ls, const ch_ir *assign, const ch_ir *v, int compound,
                        const ch_ir *rhs)
{
    if (var_param(ls->c, v))
        return hard(ls, v,
                    "the parameter '%s' is assigned; the builtin agent needs scalar parameters "
                    "unchanged",
                    v->text);
    if (strcmp(v->text, ls->L->var) == 0)
        return hard(ls, v, "the loop counter '%s' is modified inside its loop", v->text);
    if (names_has(&ls->inner, v->text))
        return 0;
    const fate *f = NULL;
    for (size_t i = 0; i < ls->nfates; i++)
        if (strcmp(ls->fates[i].name, v->text) == 0)
            f = &ls->fates[i];
    if (f && f->kind == FATE_EXPOSED && (compound || ch_ir_find(rhs, CH_IR_VAR, v->text))) {
        set_dep(ls, 1, assign,
                "this loop carries a reduction into '%s'; reductions come in a later version",
                v->text, NULL);
        return 0;
    }
    char msg[512];
    if (!f)
        snprintf(msg, sizeof msg,
                 "this loop assigns '%s' (at %u:%u), the counter of an enclosing loop", v->text,
                 assign->line, assign->col);
    else if (f->kind == FATE_EXPOSED)
        snprintf(msg, sizeof msg,
                 "this loop carries the scalar '%s' from one iteration to the next: its read at "
                 "%u:%u can see the value of an earlier iteration (not every path through the "
                 "iteration assigns it first; assignment at %u:%u)",
                 v->text, f->at->line, f->at->col, assign->line, assign->col);
    else if (f->kind == FATE_LIVE_AFTER)
        snprintf(msg, sizeof msg,
                 "this loop assigns the scalar '%s' (at %u:%u) and the function reads it after "
                 "the loop (at %u:%u): that needs the value of the last iteration, and parallel "
                 "iterations each keep their own",
                 v->text, assign->line, assign->col, f->at->line, f->at->col);
    else
        snprintf(msg, sizeof msg,
                 "this loop assigns '%s' (at %u:%u), which is not declared in the function: its "
                 "value outlives the call, so iterations cannot each keep their own",
                 v->text, assign->line, assign->col);
    set_dep(ls, 1, NULL, "%s%s", msg, "");
    return 0;
}

static int walk_expr(lstate *ls, const ch_ir *e)
{
    if (!e)
        return 0;
    switch (e->kind) {
    case CH_IR_INT_LIT:
    case CH_IR_FLOAT_LIT:
        return 0;
    case CH_IR_VAR: {
        const ch_param *p = var_param(ls->c, e);
        if (p) {
            if (p->role != CH_ROLE_SCALAR)
                return hard(ls, e,
                            "the pointer '%s' is used other than by subscript; the builtin agent "
                            "translates element accesses `p[...]` only",
                            e->text);
            return 0;
        }
        if (names_has(&ls->inner, e->text) || is_uniform(ls->c, e->text) ||
            is_host_var(ls->c, e->text) || names_has(&ls->written, e->text) ||
            names_has(&ls->c->outer, e->text))
            return 0;
        return hard(ls, e,
                    "the loop reads '%s', a local whose value is computed outside the loop nest; "
                    "the builtin agent only passes parameters and constants to kernels",
                    e->text);
    }
    case CH_IR_INDEX:
        return record_access(ls, e, 0, 0);
    case CH_IR_ASSIGN: {
        const ch_ir *lhs = e->kids[0];
        int compound = strcmp(e->text, "=") != 0;
        int rc;
        if (lhs->kind == CH_IR_VAR)
            rc = scalar_write(ls, e, lhs, compound, e->kids[1]);
        else if (lhs->kind == CH_IR_INDEX)
            rc = record_access(ls, lhs, 1, compound);
        else
            rc = hard(ls, lhs, "assignment through a pointer expression is not translated%s", "");
        if (rc)
            return rc;
        return walk_expr(ls, e->kids[1]);
    }
    case CH_IR_UNARY: {
        const char *op = e->text;
        if (!strcmp(op, "++") || !strcmp(op, "--")) {
            const ch_ir *k = e->kids[0];
            if (k->kind == CH_IR_VAR)
                return scalar_write(ls, e, k, 1, NULL);
            if (k->kind == CH_IR_INDEX)
                return record_access(ls, k, 1, 1);
            return hard(ls, e, "increment of a pointer expression is not translated%s", "");
        }
        if (!strcmp(op, "*") || !strcmp(op, "&"))
            return hard(ls, e,
                        "the pointer operation '%s' is not translated; use subscripts `p[i]`", op);
        return walk_expr(ls, e->kids[0]);
    }
    case CH_IR_CALL:
        if (!e->text || !ch_cx_callable(ls->c->e, e->text))
            return hard(ls, e,
                        "the call to '%s' is not translated; the builtin agent knows the math.h "
                        "functions and the file's own pure scalar functions (scalar parameters "
                        "and result, no globals, no static locals) whose definitions it sees",
                        e->text ? e->text : "?");
        break;
    case CH_IR_CAST:
        if (e->ctype && strchr(e->ctype, '*'))
            return hard(ls, e, "the pointer cast to '%s' is not translated", e->ctype);
        break;
    case CH_IR_BINARY:
    case CH_IR_COND:
        break;
    case CH_IR_OPAQUE:
    default:
        return hard(ls, e, "the construct `%s` is not translated by the builtin agent",
                    e->text ? e->text : "?");
    }
    for (size_t i = 0; i < e->nkids; i++)
        if (walk_expr(ls, e->kids[i]) != 0)
            return -1;
    return 0;
}

static int walk_stmt(lstate *ls, const ch_ir *s, int depth)
{
    if (!s)
        return 0;
    switch (s->kind) {
    case CH_IR_BLOCK:
        for (size_t i = 0; i < s->nkids; i++)
            if (walk_stmt(ls, s->kids[i], depth) != 0)
                return -1;
        return 0;
    case CH_IR_NULL_STMT:
        return 0;
    case CH_IR_DECL:
        if (s->ctype && strchr(s->ctype, '*'))
            return hard(ls, s,
                        "the local pointer '%s' is not translated; subscript the parameter "
                        "directly",
                        s->text);
        return s->nkids ? walk_expr(ls, s->kids[0]) : 0;
    case CH_IR_EXPR_STMT:
        return walk_expr(ls, s->kids[0]);
    case CH_IR_IF:
        for (size_t i = 0; i < s->nkids; i++) {
            int rc = i == 0 ? walk_expr(ls, s->kids[0]) : walk_stmt(ls, s->kids[i], depth);
            if (rc)
                return -1;
        }
        return 0;
    case CH_IR_FOR:
        if (s->kids[0] && walk_stmt(ls, s->kids[0], depth + 1) != 0)
            return -1;
        if (walk_expr(ls, s->kids[1]) || walk_expr(ls, s->kids[2]))
            return -1;
        return walk_stmt(ls, s->kids[3], depth + 1);
    case CH_IR_WHILE:
        return walk_expr(ls, s->kids[0]) || walk_stmt(ls, s->kids[1], depth + 1) ? -1 : 0;
    case CH_IR_DO:
        return walk_stmt(ls, s->kids[0], depth + 1) || walk_expr(ls, s->kids[1]) ? -1 : 0;
    case CH_IR_BREAK:
    case CH_IR_CONTINUE:
        if (depth == 0)
            return hard(ls, s, "`%s` directly inside a loop mapped to threads is not translated",
                        s->kind == CH_IR_BREAK ? "break" : "continue");
        return 0;
    case CH_IR_RETURN:
        return hard(ls, s, "`return` inside a loop nest is not translated%s", "");
    default:
        return hard(ls, s, "the statement `%s` is not translated by the builtin agent",
                    s->text ? s->text : "?");
    }
}

static const bi_loop *ls_loop(const lstate *ls, const char *var)
{
    for (size_t i = 0; i < ls->nloops; i++)
        if (strcmp(ls->loops[i].var, var) == 0)
            return &ls->loops[i];
    return NULL;
}

/* Flat subscript: does F = ... determine L's counter (see the comment at the top)? */
static int flat_injective(const lstate *ls, const aform *f)
{
    const aterm *vt[8];
    size_t n = 0;
    int has_v = 0;
    for (size_t i = 0; i < f->n; i++)
        if (f->t[i].var) {
            if (n == 8)
                return 0;
            vt[n++] = &f->t[i];
            has_v |= strcmp(f->t[i].var, ls->L->var) == 0;
        }
    if (!has_v)
        return 0;
    if (n == 1)
        return 1;
    if (n != 2)
        return 0;
    for (int u = 0; u < 2; u++) {
        const aterm *unit = vt[u], *other = vt[1 - u];
        if (unit->c != 1 || unit->syms[0])
            continue;
        const bi_loop *ul = ls_loop(ls, unit->var);
        if (!ul)
            continue;
        /* u's values lie in [lo + lo_add, hi + hi_add): a count-down loop runs from its first
         * value down to just above (or at) its bound */
        const ch_ir *lo_e = ul->down ? ul->bound : ul->first;
        const ch_ir *hi_e = ul->down ? ul->first : ul->bound;
        long long lo_add = ul->down && !ul->inclusive ? 1 : 0;
        long long hi_add = ul->down || ul->inclusive ? 1 : 0;
        aform lo, hi;
        if (aff(ls, lo_e, &lo) != 0)
            continue;
        int lo_ok =
            lo.n == 0 || (lo.n == 1 && !lo.t[0].var && !lo.t[0].syms[0] && lo.t[0].c + lo_add >= 0);
        af_free(&lo);
        if (!lo_ok || aff(ls, hi_e, &hi) != 0)
            continue;
        /* hi + hi_add - K must be a constant <= 0 */
        af_add(&hi, -other->c, NULL, other->syms);
        af_normalise(&hi);
        long long d = hi_add;
        int ok = 1;
        for (size_t i = 0; i < hi.n; i++) {
            if (hi.t[i].var || hi.t[i].syms[0])
                ok = 0;
            else
                d += hi.t[i].c;
        }
        af_free(&hi);
        if (ok && d <= 0)
            return 1;
    }
    return 0;
}

/* Whether F's only varying term is L's counter: then F tells iterations of L apart, whatever
 * invariant terms it has. */
static int only_v(const lstate *ls, const aform *f)
{
    int has_v = 0;
    for (size_t i = 0; i < f->n; i++)
        if (f->t[i].var) {
            if (strcmp(f->t[i].var, ls->L->var) != 0)
                return 0;
            has_v = 1;
        }
    return has_v;
}

/* C99 subscripts: the element determines L's counter when one dimension is c*v + invariant
 * (`A[i][k]`, `A[k][i]`, the diagonal `A[i][i]`); the other dimensions may vary with inner
 * loops, whose iterations run in the same thread. */
static int multi_injective(const lstate *ls, const aform *f, size_t nd)
{
    for (size_t d = 0; d < nd; d++)
        if (only_v(ls, &f[d]))
            return 1;
    return 0;
}

static void sub_text(const lstate *ls, const access *a, char *buf, size_t n)
{
    char *t = expr_text(ls->c, a->node);
    snprintf(buf, n, "%s", t);
    free(t);
}

static void check_arrays(lstate *ls)
{
    for (size_t i = 0; i < ls->nacc && !ls->dep; i++) {
        const access *w = &ls->acc[i];
        if (!w->write)
            continue;
        const char *x = w->base->text;
        char wt[256], at[256];
        sub_text(ls, w, wt, sizeof wt);
        aform wf[8];
        size_t nd = w->nsubs;
        int bad = 0;
        for (size_t d = 0; d < nd; d++)
            if (aff(ls, w->subs[d], &wf[d]) != 0) {
                for (size_t k = 0; k < d; k++)
                    af_free(&wf[k]);
                bad = 1;
                break;
            }
        if (bad) {
            set_dep(ls, 0, w->node,
                    "cannot prove this loop parallel: the subscript of %s is not affine in the "
                    "loop counters%s",
                    wt, "");
            return;
        }
        int injective = nd == 1 ? flat_injective(ls, &wf[0]) : multi_injective(ls, wf, nd);
        if (!injective) {
            int vfree = 1;
            for (size_t d = 0; d < nd; d++)
                for (size_t k = 0; k < wf[d].n; k++)
                    if (wf[d].t[k].var && strcmp(wf[d].t[k].var, ls->L->var) == 0)
                        vfree = 0;
            int reads = w->compound;
            for (size_t j = 0; j < ls->nacc; j++)
                if (!ls->acc[j].write && strcmp(ls->acc[j].base->text, x) == 0)
                    reads = 1;
            if (vfree && reads)
                set_dep(ls, 0, w->node,
                        "this loop carries a reduction into '%s'; reductions come in a later "
                        "version%s",
                        x, "");
            else if (vfree)
                set_dep(ls, 0, w->node,
                        "every iteration of this loop writes the same elements of '%s' (%s "
                        "does not depend on the loop counter)",
                        x, wt);
            else
                set_dep(ls, 0, w->node,
                        "cannot prove that iterations of this loop write distinct elements "
                        "of '%s' (%s)",
                        x, wt);
        }
        /* Every other access of X must touch only elements this iteration owns: the same
         * subscripts as w (which determine the counter), or subscripts that agree with w's in a
         * dimension that is c*v + invariant (`C[k][j]` and `C[i][j]` in a loop over j: another
         * iteration is another column). Pairs of writes are checked once. */
        for (size_t j = 0; j < ls->nacc && !ls->dep; j++) {
            const access *a = &ls->acc[j];
            if (a == w || strcmp(a->base->text, x) != 0 || (a->write && j < i))
                continue;
            int same = a->nsubs == nd, apart = 0;
            for (size_t d = 0; d < nd && a->nsubs == nd; d++) {
                aform af;
                if (aff(ls, a->subs[d], &af) != 0) {
                    same = apart = 0;
                    break;
                }
                int eq = af_equal(&af, &wf[d]);
                same = same && eq;
                apart = apart || (eq && only_v(ls, &af));
                af_free(&af);
            }
            if (!same && !apart) {
                sub_text(ls, a, at, sizeof at);
                set_dep(ls, 0, a->node,
                        "this loop carries a dependence: %s touches an element that another "
                        "iteration writes through %s",
                        at, wt);
            }
        }
        for (size_t d = 0; d < nd; d++)
            af_free(&wf[d]);
    }
}

/* 0: L is parallel; 1: it carries a dependence (reason in ls->why); -1: not translatable. */
static int analyse_loop(actx *c, const bi_loop *L, lstate *ls)
{
    memset(ls, 0, sizeof *ls);
    ls->c = c;
    ls->L = L;
    names_add(&ls->inner, L->var);
    names_add(&ls->loopvars, L->var);
    ls->loops[ls->nloops++] = *L;
    prepass(ls, L->body);
    collect_writes(L->body, &ls->written);
    classify_scalars(ls);
    if (walk_stmt(ls, L->body, 0) != 0)
        return -1;
    check_arrays(ls);
    return ls->dep ? 1 : 0;
}

/* ---- top level: nests, host loops, launcher statements ---- */

static bi_step *add_step(bi_program *p, bi_step_kind kind, const ch_ir *node, size_t depth)
{
    p->steps = ch_xrealloc(p->steps, (p->n_steps + 1) * sizeof *p->steps);
    bi_step *s = &p->steps[p->n_steps++];
    memset(s, 0, sizeof *s);
    s->kind = kind;
    s->node = node;
    s->depth = depth;
    return s;
}

static const ch_ir *single_stmt(const ch_ir *s)
{
    while (s && s->kind == CH_IR_BLOCK) {
        const ch_ir *only = NULL;
        size_t n = 0;
        for (size_t i = 0; i < s->nkids; i++)
            if (s->kids[i] && s->kids[i]->kind != CH_IR_NULL_STMT) {
                only = s->kids[i];
                n++;
            }
        if (n != 1)
            return NULL;
        s = only;
    }
    return s;
}

/* Picks the counter that is the unit-stride subscript of the first write. */
static const char *unit_stride_var(const lstate *ls, const char *a, const char *b)
{
    for (size_t i = 0; i < ls->nacc; i++) {
        const access *w = &ls->acc[i];
        if (!w->write)
            continue;
        aform f;
        if (aff(ls, w->subs[w->nsubs - 1], &f) != 0)
            continue;
        const char *unit = NULL;
        for (size_t k = 0; k < f.n; k++)
            if (f.t[k].var && f.t[k].c == 1 && !f.t[k].syms[0] &&
                (!strcmp(f.t[k].var, a) || !strcmp(f.t[k].var, b)))
                unit = f.t[k].var;
        af_free(&f);
        if (unit)
            return unit;
    }
    return NULL;
}

/* Whether every use of the counter v in s is inside a loop that starts by assigning it
 * (`for (k = 0; ...`): then that loop can declare it (`for (int k = 0; ...`). */
static int confined_to_loops(const ch_ir *s, const char *v)
{
    if (!s)
        return 1;
    if (s->kind == CH_IR_FOR && s->kids[0] && s->kids[0]->kind == CH_IR_EXPR_STMT) {
        const ch_ir *a = s->kids[0]->kids[0];
        if (a->kind == CH_IR_ASSIGN && strcmp(a->text, "=") == 0 && ch_ir_is_var(a->kids[0], v) &&
            !ch_ir_find(a->kids[1], CH_IR_VAR, v))
            return 1;
    }
    if (s->kind == CH_IR_VAR && s->text && strcmp(s->text, v) == 0)
        return 0;
    for (size_t i = 0; i < s->nkids; i++)
        if (!confined_to_loops(s->kids[i], v))
            return 0;
    return 1;
}

/* The declarations a thread makes for the scalars private to its iteration (see bi_nest). */
static void thread_privates(actx *c, bi_nest *n, const names *privates)
{
    for (size_t i = 0; i < privates->n; i++) {
        const char *v = privates->v[i];
        const ch_ir *d = top_decl(c->e->body, v);
        if (!d || !ch_ir_find(n->body, CH_IR_VAR, v))
            continue;
        if (decl_type_of(c->e, v, c->p) && confined_to_loops(n->body, v))
            continue; /* a counter its loops declare */
        n->privates = ch_xrealloc(n->privates, (n->n_privates + 1) * sizeof *n->privates);
        n->privates[n->n_privates++] = d;
    }
}

static int add_nest(actx *c, const bi_loop *L, const lstate *ls, size_t depth)
{
    bi_program *p = c->p;
    bi_nest n;
    memset(&n, 0, sizeof n);
    n.dims = 1;
    n.x = *L;
    n.body = L->body;
    n.host_first = p->n_host_loops;
    n.host_depth = c->nhosts;
    /* A perfectly nested, rectangular, parallel inner loop makes a 2-D grid. */
    const ch_ir *in = single_stmt(L->body);
    bi_loop I;
    ch_error scratch;
    if (in && in->kind == CH_IR_FOR && canonical(c->e, p, in, &I, &scratch) == 0 &&
        host_evaluable(c, I.first) && host_evaluable(c, I.bound)) {
        lstate ils;
        size_t nouter = c->outer.n;
        names_add(&c->outer, L->var);
        int r = analyse_loop(c, &I, &ils);
        c->outer.n = nouter;
        if (r == 0) {
            const char *ux = unit_stride_var(&ils, L->var, I.var);
            n.dims = 2;
            n.body = I.body;
            thread_privates(c, &n, &ils.privates);
            if (ux && strcmp(ux, L->var) == 0) {
                n.x = *L;
                n.y = I;
                n.outer_is_x = 1;
            } else {
                n.x = I;
                n.y = *L;
                n.outer_is_x = 0;
            }
        }
        ls_free(&ils);
        if (r < 0)
            return -1;
    }
    if (n.dims == 1)
        thread_privates(c, &n, &ls->privates);
    p->host_loops = ch_xrealloc(p->host_loops, (p->n_host_loops + c->nhosts + 1) * sizeof(bi_loop));
    for (size_t i = 0; i < c->nhosts; i++)
        p->host_loops[p->n_host_loops++] = c->hosts[i];
    p->nests = ch_xrealloc(p->nests, (p->n_nests + 1) * sizeof *p->nests);
    p->nests[p->n_nests] = n;
    bi_step *s = add_step(p, BI_STEP_KERNEL, L->node, depth);
    s->nest = p->n_nests++;
    c->launched = 1;
    return 0;
}

static int process_for(actx *c, const ch_ir *f, size_t depth)
{
    bi_loop L;
    if (canonical(c->e, c->p, f, &L, c->err) != 0)
        return -1;
    if (!host_evaluable(c, L.first) || !host_evaluable(c, L.bound))
        return ch_error_at(c->err, c->e->file, f->line, f->col,
                           "the bounds of this loop must be computed from scalar parameters, "
                           "constants and outer loop counters");
    lstate ls;
    int r = analyse_loop(c, &L, &ls);
    if (r < 0) {
        ls_free(&ls);
        return -1;
    }
    if (r == 0) {
        r = add_nest(c, &L, &ls, depth);
        ls_free(&ls);
        return r;
    }
    /* It carries a dependence: a host loop of launches when its body is loop nests only. */
    const ch_ir *body = L.body;
    int all_fors = !ls.scalar_red && c->nhosts < 16;
    size_t nfor = 0;
    if (body && body->kind == CH_IR_BLOCK) {
        for (size_t i = 0; i < body->nkids && all_fors; i++) {
            const ch_ir *k = body->kids[i];
            if (k && k->kind == CH_IR_FOR)
                nfor++;
            else if (k && k->kind != CH_IR_NULL_STMT)
                all_fors = 0;
        }
    } else if (body && body->kind == CH_IR_FOR) {
        nfor = 1;
    } else {
        all_fors = 0;
    }
    if (!all_fors || nfor == 0) {
        *c->err = ls.why;
        ls_free(&ls);
        return -1;
    }
    ls_free(&ls);
    size_t at = c->p->n_steps;
    bi_step *hs = add_step(c->p, BI_STEP_HOST_LOOP, f, depth);
    hs->loop = L;
    hs->first = at + 1;
    c->hosts[c->nhosts++] = L;
    int rc = 0;
    if (body->kind == CH_IR_FOR) {
        rc = process_for(c, body, depth + 1);
    } else {
        for (size_t i = 0; i < body->nkids && rc == 0; i++)
            if (body->kids[i] && body->kids[i]->kind == CH_IR_FOR)
                rc = process_for(c, body->kids[i], depth + 1);
    }
    c->nhosts--;
    c->p->steps[at].count = c->p->n_steps - at - 1;
    return rc;
}

static int is_return_only(const ch_ir *s)
{
    s = single_stmt(s);
    return s && s->kind == CH_IR_RETURN && (s->nkids == 0 || !s->kids[0]);
}

static int process_top(actx *c, const ch_ir *s, int last)
{
    const ch_entry *e = c->e;
    bi_program *p = c->p;
    switch (s->kind) {
    case CH_IR_NULL_STMT:
        return 0;
    case CH_IR_BLOCK:
        for (size_t i = 0; i < s->nkids; i++)
            if (process_top(c, s->kids[i], last && i + 1 == s->nkids) != 0)
                return -1;
        return 0;
    case CH_IR_FOR:
        return process_for(c, s, 0);
    case CH_IR_DECL: {
        ch_scalar t = ch_cx_local_type(e, s->text);
        int has_init = s->nkids && s->kids[0];
        if (names_has(&c->mutable_, s->text)) {
            if (!has_init && ch_scalar_is_integer(t)) {
                p->counters = ch_xrealloc(p->counters, (p->n_counters + 1) * sizeof *p->counters);
                p->counters[p->n_counters++] = s;
            }
            return 0; /* a loop counter or an accumulator: its uses decide */
        }
        if (!has_init)
            return 0; /* never assigned: unused */
        if (t == CH_T_UNKNOWN)
            return ch_error_at(c->err, e->file, s->line, s->col,
                               "the local '%s' is not a scalar; the builtin agent translates "
                               "scalar locals and parameter arrays only",
                               s->text);
        if (!host_evaluable(c, s->kids[0]))
            return ch_error_at(c->err, e->file, s->line, s->col,
                               "the local '%s' is initialised from data; the builtin agent only "
                               "computes constants of scalar parameters outside loops",
                               s->text);
        p->uniforms = ch_xrealloc(p->uniforms, (p->n_uniforms + 1) * sizeof *p->uniforms);
        p->uniforms[p->n_uniforms++] = s;
        add_step(p, BI_STEP_UNIFORM, s, 0);
        return 0;
    }
    case CH_IR_IF:
        if (!c->launched && (s->nkids < 3 || !s->kids[2]) && is_return_only(s->kids[1]) &&
            host_evaluable(c, s->kids[0])) {
            add_step(p, BI_STEP_EARLY_RET, s, 0);
            return 0;
        }
        break;
    case CH_IR_RETURN:
        if (last && (s->nkids == 0 || !s->kids[0]))
            return 0;
        break;
    case CH_IR_WHILE:
    case CH_IR_DO:
        return ch_error_at(c->err, e->file, s->line, s->col,
                           "this %s loop is not translated: the builtin agent maps canonical "
                           "counted `for` loops only",
                           s->kind == CH_IR_WHILE ? "while" : "do-while");
    default:
        break;
    }
    return ch_error_at(c->err, e->file, s->line, s->col,
                       "this statement runs outside any loop nest; the builtin agent translates "
                       "loop nests (and leading `if (...) return;` checks) only");
}

int bi_analyse(const ch_entry *e, bi_program *out, ch_error *err)
{
    memset(out, 0, sizeof *out);
    out->entry = e;
    if (!e->body)
        return ch_error_set(err, "%s has no body to translate", e->name);
    for (size_t i = 0; i < e->n_params; i++) {
        const ch_param *p = &e->params[i];
        if (p->role != CH_ROLE_SCALAR && !p->extent && !(p->role == CH_ROLE_ARRAY && p->ndims))
            return ch_error_at(err, e->file, e->fn_line, e->fn_col,
                               "the extent of '%s' is unknown; add extent(%s: ...) to the pragma",
                               p->name, p->name);
        if (p->elem == CH_T_UNKNOWN || p->elem == CH_T_VOID)
            return ch_error_at(err, e->file, e->fn_line, e->fn_col,
                               "the parameter '%s' has a type the builtin agent does not "
                               "translate",
                               p->name);
    }
    actx c;
    memset(&c, 0, sizeof c);
    c.e = e;
    c.p = out;
    c.err = err;
    collect_writes(e->body, &c.mutable_);
    int rc = process_top(&c, e->body, 1);
    if (rc == 0 && out->n_nests == 0)
        rc = ch_error_at(err, e->file, e->body_line ? e->body_line : e->fn_line,
                         e->body_col ? e->body_col : e->fn_col,
                         "found no loop to map to the GPU in '%s'", e->name);
    names_free(&c.mutable_);
    names_free(&c.outer);
    if (rc)
        bi_program_free(out);
    return rc;
}

void bi_program_free(bi_program *p)
{
    for (size_t i = 0; i < p->n_nests; i++)
        free(p->nests[i].privates);
    free(p->steps);
    free(p->nests);
    free(p->host_loops);
    free(p->uniforms);
    free(p->counters);
    memset(p, 0, sizeof *p);
}
