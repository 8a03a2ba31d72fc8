/* The body IR: a small, language-neutral tree of a harness function's C body.
 *
 * The scanner builds it from the libclang AST (macros already expanded, implicit casts folded
 * into the expression's type), so that later stages never need libclang again: extent and
 * direction inference (scan), the reference snippet (checklist), and the builtin C-to-CUDA
 * translator (agent) all read this tree. Anything the scanner does not model becomes
 * CH_IR_OPAQUE with its source text kept, and consumers refuse it with its location.
 *
 * Ownership: a node owns its text and its children; ch_ir_free frees a whole tree. */
#ifndef CH_IR_H
#define CH_IR_H

#include <stddef.h>

#include "ch/strbuf.h"
#include "ch/types.h"

typedef enum ch_ir_kind {
    /* statements */
    CH_IR_BLOCK, /* { kids... } */
    CH_IR_FOR,   /* kids: [0] init (stmt or NULL), [1] cond or NULL, [2] inc or NULL, [3] body */
    CH_IR_WHILE, /* kids: [0] cond, [1] body */
    CH_IR_DO,    /* kids: [0] body, [1] cond */
    CH_IR_IF,    /* kids: [0] cond, [1] then, [2] else or NULL */
    CH_IR_DECL,  /* local variable: text = name, ctype = declared type, kids: [0] init or NULL */
    CH_IR_EXPR_STMT, /* kids: [0] expression */
    CH_IR_RETURN,    /* kids: [0] value or NULL */
    CH_IR_BREAK,
    CH_IR_CONTINUE,
    CH_IR_NULL_STMT, /* ; */
    /* expressions; every expression node has `type` (CH_T_UNKNOWN for pointers) */
    CH_IR_INT_LIT,   /* text = spelling as written ("10", "0x1fu"), ival = value */
    CH_IR_FLOAT_LIT, /* text = spelling as written ("1.0f"), fval = value */
    CH_IR_VAR,       /* text = name; param_index >= 0 for parameters, -1 for locals */
    CH_IR_INDEX,     /* a[i] / A[i][j]: kids: [0] base (VAR or INDEX), [1] index */
    CH_IR_BINARY,    /* text = operator ("+", "<", "&&", ","), kids: [0] lhs, [1] rhs */
    CH_IR_UNARY,     /* text = operator ("-", "!", "~", "++", "--", "*", "&"), postfix flag */
    CH_IR_ASSIGN,    /* text = "=", "+=", "-=", "*=", ...; kids: [0] lhs, [1] rhs */
    CH_IR_CALL,      /* text = callee name; kids: arguments */
    CH_IR_CAST,      /* ctype = target type (explicit casts only); kids: [0] operand */
    CH_IR_COND,      /* c ? a : b; kids: [0] c, [1] a, [2] b */
    CH_IR_OPAQUE     /* not modelled: text = source text */
} ch_ir_kind;

typedef struct ch_ir {
    ch_ir_kind kind;
    unsigned line, col;  /* expansion location in the user's file */
    char *text;          /* see kinds above; may be NULL */
    char *ctype;         /* DECL, CAST: canonical C type spelling */
    ch_scalar type;      /* expression value type when scalar */
    int postfix;         /* UNARY: x++ rather than ++x */
    int param_index;     /* VAR: index of the parameter, or -1 */
    long long ival;      /* INT_LIT */
    double fval;         /* FLOAT_LIT */
    struct ch_ir **kids; /* owned */
    size_t nkids;
} ch_ir;

ch_ir *ch_ir_new(ch_ir_kind kind, unsigned line, unsigned col);
/* Appends a child (which may be NULL for an absent FOR part); the parent takes ownership. */
void ch_ir_add(ch_ir *parent, ch_ir *kid);
void ch_ir_free(ch_ir *ir);
ch_ir *ch_ir_clone(const ch_ir *ir);
/* The first node of kind `kind` whose text is `text` in a pre-order walk of ir, or NULL
 * (a declaration by its name, a call by its callee). */
const ch_ir *ch_ir_find(const ch_ir *ir, ch_ir_kind kind, const char *text);
/* Whether ir is the variable name itself (not an expression reading it: ch_ir_find with
 * CH_IR_VAR answers that); 0 for NULL. */
int ch_ir_is_var(const ch_ir *ir, const char *name);
/* The counter a `for` statement starts by setting: `for (int i = start; ...)` or
 * `for (i = start; ...)` with i a local; 0, or -1 (*name, *start NULL) for any other init. */
int ch_ir_for_init(const ch_ir *f, const char **name, const ch_ir **start);

/* C precedence levels, higher binds tighter: what the printers (this one and the builtin
 * agent's CUDA printer) parenthesise by. */
enum {
    CH_PREC_COMMA = 1,
    CH_PREC_ASSIGN,
    CH_PREC_COND,
    CH_PREC_LOR,
    CH_PREC_LAND,
    CH_PREC_BOR,
    CH_PREC_BXOR,
    CH_PREC_BAND,
    CH_PREC_EQ,
    CH_PREC_REL,
    CH_PREC_SHIFT,
    CH_PREC_ADD,
    CH_PREC_MUL,
    CH_PREC_UNARY,
    CH_PREC_POSTFIX,
    CH_PREC_PRIMARY
};
/* The precedence of an expression node (CH_PREC_PRIMARY for leaves and statements). */
int ch_ir_prec(const ch_ir *e);

/* Prints the tree back as C (expressions fully parenthesised only where needed for
 * precedence), indented by `indent` levels of 4 spaces. `rename` (may be NULL) maps a
 * variable name to the text printed instead (for kernel index substitution). */
typedef const char *(*ch_ir_rename_fn)(const char *name, void *ctx);
void ch_ir_print(ch_strbuf *out, const ch_ir *ir, int indent, ch_ir_rename_fn rename, void *ctx);

/* One-line structural dump used by tests and the cache key ("(for (decl i ...) ...)"). */
void ch_ir_dump(ch_strbuf *out, const ch_ir *ir);
/* Whether a and b are the same expression (equal dumps). */
int ch_ir_same(const ch_ir *a, const ch_ir *b);

#endif
