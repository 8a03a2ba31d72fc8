/* If-conversion: see ifconv.h for what and why. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ch/strbuf.h"
#include "ifconv.h"

/* The variable an assignment or increment n writes (the base of an element, the pointer of a
 * dereference), or a declaration's name; NULL for anything else. */
static const char *written_base(const ch_ir *n)
{
    const ch_ir *t = NULL;
    if (n->kind == CH_IR_ASSIGN)
        t = n->kids[0];
    else if (n->kind == CH_IR_UNARY && (strcmp(n->text, "++") == 0 || strcmp(n->text, "--") == 0))
        t = n->kids[0];
    else if (n->kind == CH_IR_DECL)
        return n->text;
    while (t && (t->kind == CH_IR_INDEX || (t->kind == CH_IR_UNARY && strcmp(t->text, "*") == 0)))
        t = t->kids[0];
    return t && t->kind == CH_IR_VAR ? t->text : NULL;
}

static int writes_one_of(const ch_ir *n, const ch_ir *cond)
{
    if (!n)
        return 0;
    const char *w = written_base(n);
    if (w && ch_ir_find(cond, CH_IR_VAR, w))
        return 1;
    for (size_t i = 0; i < n->nkids; i++)
        if (writes_one_of(n->kids[i], cond))
            return 1;
    return 0;
}

/* Does a branch of `if` statement s assign a variable its condition reads? */
static int changes_what_it_reads(const ch_ir *s)
{
    for (size_t i = 1; i < s->nkids; i++)
        if (writes_one_of(s->kids[i], s->kids[0]))
            return 1;
    return 0;
}

/* A name for the next condition variable that the body does not use yet. */
static char *fresh_name(const ch_ir *body, unsigned *next)
{
    for (;;) {
        char *name = ch_xasprintf("ch_if%u", ++*next);
        if (!ch_ir_find(body, CH_IR_VAR, name) && !ch_ir_find(body, CH_IR_DECL, name))
            return name;
        free(name);
    }
}

/* `if (c) A else B` -> `{ int ch_ifN = (c); if (ch_ifN) A else B }`, in place of *slot. */
static void convert(ch_ir **slot, const ch_ir *body, unsigned *next)
{
    ch_ir *s = *slot;
    ch_ir *block = ch_ir_new(CH_IR_BLOCK, s->line, s->col);
    ch_ir *decl = ch_ir_new(CH_IR_DECL, s->line, s->col);
    decl->text = fresh_name(body, next);
    decl->ctype = ch_xstrdup("int");
    decl->type = CH_T_INT;
    ch_ir_add(decl, s->kids[0]);
    ch_ir *var = ch_ir_new(CH_IR_VAR, s->line, s->col);
    var->text = ch_xstrdup(decl->text);
    var->type = CH_T_INT;
    var->param_index = -1;
    s->kids[0] = var;
    ch_ir_add(block, decl);
    ch_ir_add(block, s);
    *slot = block;
}

/* Converts, innermost first, every `if` under n that needs it; the number converted. */
static size_t convert_all(ch_ir *n, const ch_ir *body, unsigned *next)
{
    size_t done = 0;
    for (size_t i = 0; n && i < n->nkids; i++) {
        if (!n->kids[i])
            continue;
        done += convert_all(n->kids[i], body, next);
        if (n->kids[i]->kind == CH_IR_IF && changes_what_it_reads(n->kids[i])) {
            convert(&n->kids[i], body, next);
            done++;
        }
    }
    return done;
}

ch_entry *ch_tr_if_convert(const ch_entry *e)
{
    if (!e->body)
        return NULL;
    ch_ir *body = ch_ir_clone(e->body);
    unsigned next = 0;
    if (convert_all(body, e->body, &next) == 0) {
        ch_ir_free(body);
        return NULL;
    }
    ch_entry *c = ch_xmalloc(sizeof *c);
    *c = *e;
    c->body = body;
    return c;
}

void ch_tr_if_converted_free(ch_entry *c)
{
    if (!c)
        return;
    ch_ir_free(c->body);
    free(c);
}
