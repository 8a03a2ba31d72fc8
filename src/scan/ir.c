/* Body IR nodes (ch/ir.h): construction and lifetime. Printing lives in ir_print.c. */
#include <stdlib.h>
#include <string.h>

#include "ch/ir.h"

ch_ir *ch_ir_new(ch_ir_kind kind, unsigned line, unsigned col)
{
    ch_ir *ir = ch_xcalloc(1, sizeof *ir);
    ir->kind = kind;
    ir->line = line;
    ir->col = col;
    ir->param_index = -1;
    return ir;
}

void ch_ir_add(ch_ir *parent, ch_ir *kid)
{
    parent->kids = ch_xrealloc(parent->kids, (parent->nkids + 1) * sizeof *parent->kids);
    parent->kids[parent->nkids++] = kid;
}

void ch_ir_free(ch_ir *ir)
{
    if (!ir)
        return;
    for (size_t i = 0; i < ir->nkids; i++)
        ch_ir_free(ir->kids[i]);
    free(ir->kids);
    free(ir->text);
    free(ir->ctype);
    free(ir);
}

ch_ir *ch_ir_clone(const ch_ir *ir)
{
    if (!ir)
        return NULL;
    ch_ir *c = ch_ir_new(ir->kind, ir->line, ir->col);
    c->text = ir->text ? ch_xstrdup(ir->text) : NULL;
    c->ctype = ir->ctype ? ch_xstrdup(ir->ctype) : NULL;
    c->type = ir->type;
    c->postfix = ir->postfix;
    c->param_index = ir->param_index;
    c->ival = ir->ival;
    c->fval = ir->fval;
    for (size_t i = 0; i < ir->nkids; i++)
        ch_ir_add(c, ch_ir_clone(ir->kids[i]));
    return c;
}

const ch_ir *ch_ir_find(const ch_ir *ir, ch_ir_kind kind, const char *text)
{
    if (!ir)
        return NULL;
    if (ir->kind == kind && ir->text && strcmp(ir->text, text) == 0)
        return ir;
    for (size_t i = 0; i < ir->nkids; i++) {
        const ch_ir *hit = ch_ir_find(ir->kids[i], kind, text);
        if (hit)
            return hit;
    }
    return NULL;
}

int ch_ir_is_var(const ch_ir *ir, const char *name)
{
    return ir && ir->kind == CH_IR_VAR && ir->text && strcmp(ir->text, name) == 0;
}

int ch_ir_for_init(const ch_ir *f, const char **name, const ch_ir **start)
{
    const ch_ir *init = f && f->kind == CH_IR_FOR && f->nkids > 0 ? f->kids[0] : NULL;
    *name = NULL;
    *start = NULL;
    if (init && init->kind == CH_IR_DECL && init->nkids == 1 && init->kids[0]) {
        *name = init->text;
        *start = init->kids[0];
    } else if (init && init->kind == CH_IR_EXPR_STMT && init->nkids == 1 &&
               init->kids[0]->kind == CH_IR_ASSIGN && strcmp(init->kids[0]->text, "=") == 0 &&
               init->kids[0]->kids[0]->kind == CH_IR_VAR &&
               init->kids[0]->kids[0]->param_index < 0) {
        *name = init->kids[0]->kids[0]->text;
        *start = init->kids[0]->kids[1];
    }
    return *name ? 0 : -1;
}

int ch_ir_same(const ch_ir *a, const ch_ir *b)
{
    ch_strbuf x, y;
    ch_strbuf_init(&x);
    ch_strbuf_init(&y);
    ch_ir_dump(&x, a);
    ch_ir_dump(&y, b);
    int eq = strcmp(x.data, y.data) == 0;
    ch_strbuf_free(&x);
    ch_strbuf_free(&y);
    return eq;
}
