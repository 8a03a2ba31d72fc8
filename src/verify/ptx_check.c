/* The device-code check: a candidate's device code judged as compiled, from the PTX nvcc made of
 * it in stage 1 (the PTX its object's machine code comes from), not from its text. The text
 * checks (source_guard.c) stay the fast first filter, but libraries and macros hide the source
 * spelling: libcu++'s cuda::std::chrono::system_clock::now() reads %globaltimer inside a header,
 * cuda::ptx::get_sreg_globaltimer() names it inside a longer identifier, asm("mov.u64 %0,
 * %%global" "timer;") splits it over two literals, and `template <typename T> __device__ T
 * tally;` is a mutable global the static-state rule does not see (issue 15). In PTX each is one
 * instruction or one `.global` line.
 *
 * Refused: reading a special register whose value depends on the time, the GPU or the launch
 * history (a result that depends on them is right while verified and wrong later or elsewhere);
 * `trap`, `brkpt` and calls of `__assertfail` (a kernel that traps or fails an assertion leaves
 * a sticky error that breaks every later CUDA call of the user's program); a module-scope
 * `.global` variable's address reaching a store, an atomic, a call or another variable's
 * initializer (state kept across launches; loads from tables are fine); `.local` memory and
 * registers inline assembly declares and reads before writing (what an earlier kernel left
 * there: the hardening gives C locals an initialiser, not these). `.const` variables
 * device code cannot write; the object check refuses the host calls that could
 * (cudaMemcpyToSymbol*, cudaGetSymbolAddress). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ch/strbuf.h"
#include "ch/verify.h"

/* Special registers a candidate's result must not depend on. Those of the launch's own
 * geometry (%tid, %ntid, %ctaid, %nctaid, %laneid, %lanemask_*, %cluster*, %dynamic_smem_size:
 * what the launcher chose) are fine: CUB and cooperative groups read them. */
static const struct {
    const char *name; /* exact, or a prefix when it ends in '*' */
    const char *what;
} sregs[] = {
    {"globaltimer*", "the time"},
    {"clock*", "a clock"},
    {"gridid", "a launch counter (it grows with every launch)"},
    {"current_graph_exec", "the launch history"},
    {"smid", "which SM runs it"},
    {"nsmid", "how many SMs the GPU has"},
    {"warpid", "which warp slot of an SM runs it"},
    {"nwarpid", "how many warp slots an SM has"},
    {"total_smem_size", "the GPU's shared memory size"},
    {"aggr_smem_size", "the GPU's shared memory size"},
    {"reserved_smem_offset*", "the driver's shared memory layout"},
    {"pm*", "a performance counter"},
    {"envreg*", "the driver's environment registers"},
};

#define N_SREGS (sizeof sregs / sizeof *sregs)

/* What reading %name tells (the rule's reason), or NULL when it may be read. */
static const char *sreg_reason(const char *name, size_t n)
{
    for (size_t i = 0; i < N_SREGS; i++) {
        size_t k = strlen(sregs[i].name);
        int prefix = sregs[i].name[k - 1] == '*';
        if (prefix ? n >= k - 1 && memcmp(name, sregs[i].name, k - 1) == 0
                   : n == k && memcmp(name, sregs[i].name, k) == 0)
            return sregs[i].what;
    }
    return NULL;
}

static int name_char(char c)
{
    return isalnum((unsigned char)c) || c == '_' || c == '$';
}

/* The length of the PTX word at p (letters, digits, _ $ and the '.' of %tid.x). */
static size_t word_len(const char *p)
{
    size_t n = 0;
    while (p[n] && (name_char(p[n]) || p[n] == '.'))
        n++;
    return n;
}

static int starts_word(const char *p, const char *w)
{
    size_t n = strlen(w);
    return strncmp(p, w, n) == 0 && !name_char(p[n]);
}

/* ---- sets of names ------------------------------------------------------------------------- */

typedef struct names {
    char **v;
    size_t n;
} names;

static void names_add(names *s, const char *p, size_t n)
{
    s->v = ch_xrealloc(s->v, (s->n + 1) * sizeof *s->v);
    s->v[s->n++] = ch_xstrndup(p, n);
}

static void names_clear(names *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->v[i]);
    free(s->v);
    s->v = NULL;
    s->n = 0;
}

static int names_has(const names *s, const char *p, size_t n)
{
    for (size_t i = 0; i < s->n; i++)
        if (strlen(s->v[i]) == n && memcmp(s->v[i], p, n) == 0)
            return 1;
    return 0;
}

/* ---- the reader ------------------------------------------------------------------------------ */

typedef struct insn {
    char *text; /* the instruction, predicate and label gone */
    long line;  /* the candidate's line (0: unknown) */
} insn;

typedef struct reader {
    const char *unit;        /* the candidate's file name, as .file paths end */
    unsigned char cand[256]; /* .file numbers naming the candidate */
    names globals;           /* module-scope .global variables */
    char func[160];          /* the function being read */
    long line;               /* the candidate's line the last .loc names (0: unknown) */
    int depth;               /* brace depth: 0 at module scope */
    int pending, body, data; /* a function header read; inside its body; in a data block */
    insn *code;              /* the body's instructions, judged at its end */
    size_t n_code;
    names asm_regs;    /* registers a nested block (inline assembly) declares */
    names asm_written; /* those of them written so far */
    ch_strbuf *msg;    /* the first finding */
    ch_strbuf later;   /* the first address finding: shown when nothing else is found (an assert's
                        * message strings reach its call: the assert is the finding to show) */
} reader;

static void finding(reader *r, ch_strbuf *to, long line, const char *fmt, const char *a,
                    const char *b)
{
    if (to->len)
        return;
    if (line > 0)
        ch_strbuf_addf(to, "line %ld: ", line);
    if (r->func[0])
        ch_strbuf_addf(to, "the device code of '%s' ", r->func);
    else
        ch_strbuf_adds(to, "a module-scope initializer ");
    ch_strbuf_addf(to, fmt, a, b);
}

/* `.file N "path"`: N names the candidate when path's last component is its name. */
static void on_file(reader *r, const char *s)
{
    char *end;
    long n = strtol(s + 5, &end, 10);
    const char *q = strchr(end, '"');
    if (n <= 0 || n >= (long)sizeof r->cand || !q)
        return;
    q++;
    size_t len = strcspn(q, "\"");
    const char *base = q;
    for (const char *p = q; p < q + len; p++)
        if (*p == '/')
            base = p + 1;
    r->cand[n] =
        (size_t)(q + len - base) == strlen(r->unit) && memcmp(base, r->unit, strlen(r->unit)) == 0;
}

static int candidate_file(const reader *r, long f)
{
    return f > 0 && f < (long)sizeof r->cand && r->cand[f];
}

/* `.loc F L C[, function_name X, inlined_at F2 L2 C2]`: the candidate's line, the inlined
 * call site's when the code comes from a header. */
static void on_loc(reader *r, const char *s)
{
    char *end;
    long f = strtol(s + 4, &end, 10), l = strtol(end, NULL, 10);
    const char *in = strstr(s, "inlined_at");
    if (candidate_file(r, f)) {
        r->line = l;
    } else if (in) {
        f = strtol(in + 10, &end, 10);
        if (candidate_file(r, f))
            r->line = strtol(end, NULL, 10);
    }
}

/* The function a `.entry`/`.func` header names: the word before its '(' (after a return
 * parameter list), shown unmangled when it is a plain _Z<len><name>. */
static void on_function(reader *r, const char *s)
{
    const char *p = s + word_len(s);
    p += strspn(p, " \t\n");
    if (*p == '(') { /* .func (.param .b32 ret) name( */
        const char *c = strchr(p, ')');
        p = c ? c + 1 : p + strlen(p);
        p += strspn(p, " \t\n");
    }
    size_t n = 0;
    while (p[n] && name_char(p[n]))
        n++;
    if (n > 2 && p[0] == '_' && p[1] == 'Z' && isdigit((unsigned char)p[2])) {
        char *e;
        unsigned long k = strtoul(p + 2, &e, 10);
        if (k > 0 && k <= n - (size_t)(e - p))
            p = e, n = k;
    }
    snprintf(r->func, sizeof r->func, "%.*s", (int)n, p);
    r->pending = 1;
}

/* A module-scope declaration: a .global variable's name is remembered. */
static void on_module_decl(reader *r, const char *s)
{
    while (starts_word(s, ".visible") || starts_word(s, ".weak") || starts_word(s, ".extern") ||
           starts_word(s, ".common"))
        s += word_len(s), s += strspn(s, " \t\n");
    if (!starts_word(s, ".global") || strstr(s, ".texref") || strstr(s, ".surfref") ||
        strstr(s, ".samplerref"))
        return;
    const char *name = NULL;
    size_t nl = 0;
    for (const char *p = s; *p && *p != '[' && *p != '=';) { /* the last plain word */
        size_t n = word_len(p);
        if (n && *p != '.' && !isdigit((unsigned char)*p))
            name = p, nl = n;
        p += n ? n : 1;
    }
    if (name)
        names_add(&r->globals, name, nl);
}

/* What every instruction is checked for at once: traps, assertions, special registers. */
static void on_instruction(reader *r, const char *s)
{
    size_t on = word_len(s);
    if ((on == 4 && strncmp(s, "trap", 4) == 0) || (on == 5 && strncmp(s, "brkpt", 5) == 0))
        finding(r, r->msg, r->line,
                "has a '%s' instruction (__trap(), or a library's): a kernel that traps leaves a "
                "sticky error that breaks every later CUDA call of the program; return an error "
                "code from the launcher instead%s",
                on == 4 ? "trap" : "brkpt", "");
    for (const char *p = s + on; *p;) {
        size_t n = word_len(p + (*p == '%'));
        if (*p == '%' && n) {
            char *reg = ch_xstrndup(p + 1, n);
            const char *why = sreg_reason(reg, n);
            if (why)
                finding(r, r->msg, r->line,
                        "reads %%%s, which depends on %s: a kernel's result may depend only on its "
                        "inputs, not on when, where or after how many launches it runs (libcu++ "
                        "clocks and cuda::ptx::get_sreg_* read it too); remove it",
                        reg, why);
            free(reg);
            p += n + 1;
        } else if (n && name_char(*p)) {
            if (n == 12 && strncmp(p, "__assertfail", 12) == 0)
                finding(r, r->msg, r->line,
                        "calls %s (an assert()): a failed assertion leaves a sticky error that "
                        "breaks every later CUDA call of the program; remove the assert%s",
                        "__assertfail", "");
            p += n;
        } else {
            p++;
        }
    }
    if (r->body) {
        r->code = ch_xrealloc(r->code, (r->n_code + 1) * sizeof *r->code);
        r->code[r->n_code++] = (insn){ch_xstrdup(s), r->line};
    }
}

/* ---- where module-scope addresses go ------------------------------------------------------- */

static int opcode_is(const char *s, const char *const *prefixes)
{
    for (const char *const *p = prefixes; *p; p++)
        if (strncmp(s, *p, strlen(*p)) == 0)
            return 1;
    return 0;
}

/* The first tainted word (a .global variable, or a register of regs holding an address derived
 * from one, origin[k] naming it) in s[b, e) inside brackets (want_bracketed) or outside them;
 * NULL if none, else the word with *var the variable. */
static const char *tainted_word(const reader *r, const names *regs, const names *origin,
                                const char *s, size_t b, size_t e, int want_bracketed,
                                const char **var)
{
    int in = 0;
    for (size_t i = 0; i < b; i++)
        in = s[i] == '[' ? 1 : s[i] == ']' ? 0 : in;
    for (size_t i = b; i < e;) {
        if (s[i] == '[' || s[i] == ']') {
            in = s[i++] == '[';
            continue;
        }
        size_t n = word_len(s + i + (s[i] == '%'));
        if (!n || (s[i] != '%' && !name_char(s[i]))) {
            i++;
            continue;
        }
        n += s[i] == '%';
        if (in == want_bracketed && s[i] == '%') {
            for (size_t k = 0; k < regs->n; k++)
                if (strlen(regs->v[k]) == n && memcmp(regs->v[k], s + i, n) == 0)
                    return *var = origin->v[k], s + i;
        } else if (in == want_bracketed) {
            for (size_t k = 0; k < r->globals.n; k++)
                if (strlen(r->globals.v[k]) == n && memcmp(r->globals.v[k], s + i, n) == 0)
                    return *var = r->globals.v[k], s + i;
        }
        i += n;
    }
    return NULL;
}

/* The operands' start (after the opcode) and the end of the first operand. */
static void operands(const char *s, size_t *ops, size_t *first_end)
{
    *ops = word_len(s);
    size_t i = *ops;
    int nest = 0;
    for (; s[i]; i++) {
        if (s[i] == '[' || s[i] == '{' || s[i] == '(')
            nest++;
        else if (s[i] == ']' || s[i] == '}' || s[i] == ')')
            nest--;
        else if (s[i] == ',' && nest <= 0)
            break;
    }
    *first_end = i;
}

/* A body's instructions, until no more registers are found to hold a .global's address
 * (loops put uses before definitions): loading through such an address is fine; any other
 * instruction with memory operands (a store, an atomic, a call's parameters) that names one is
 * a finding; arithmetic and moves pass the address on to their destination registers. */
static void judge_addresses(reader *r)
{
    static const char *const loads[] = {"ld.", "ldu.", "prefetch", "isspacep", NULL};
    static const char *const memory[] = {"st.",  "st ",      "atom",      "red.",
                                         "call", "cp.",      "mbarrier",  "multimem",
                                         "wmma", "stmatrix", "tensormap", NULL};
    names regs = {0}, origin = {0};
    for (int changed = 1; changed && !r->later.len;) {
        changed = 0;
        for (size_t k = 0; k < r->n_code && !r->later.len; k++) {
            const char *s = r->code[k].text;
            size_t ops, first, end = strlen(s);
            const char *var = NULL;
            operands(s, &ops, &first);
            if (opcode_is(s, loads))
                continue; /* what is loaded is data, not the address */
            const char *w = tainted_word(r, &regs, &origin, s, ops, end, 1, &var);
            if (!w && opcode_is(s, memory))
                w = tainted_word(r, &regs, &origin, s, ops, end, 0, &var);
            if (w) {
                char *op = ch_xstrndup(s, ops);
                finding(r, &r->later, r->code[k].line,
                        "writes, or hands on the address of, the __device__ variable '%s' (%s): "
                        "state kept across launches; use __constant__ for tables, __shared__ for "
                        "a block's scratch, device memory the launcher allocates for the rest",
                        var, op);
                free(op);
                continue;
            }
            if (!tainted_word(r, &regs, &origin, s, first, end, 0, &var))
                continue;
            for (const char *p = s + ops; p < s + first; p++) { /* the destination's registers */
                size_t m = *p == '%' ? word_len(p + 1) + 1 : 0;
                if (m > 1 && !names_has(&regs, p, m)) {
                    names_add(&regs, p, m);
                    names_add(&origin, var, strlen(var));
                    changed = 1;
                }
                p += m ? m - 1 : 0;
            }
        }
    }
    names_clear(&regs);
    names_clear(&origin);
}

/* ---- what inline assembly declares ---------------------------------------------------------- */

/* Local and register memory are not cleared between launches: the hardening gives every C local
 * an initialiser, but inline assembly declares its own (attacks8 #07, #45). nvcc's own PTX has
 * one .local array per function, __local_depot<N>, which its locals live in; and its nested
 * blocks (call sequences) declare registers they write before reading. */
static void on_local_decl(reader *r, const char *s)
{
    const char *depot = strstr(s, "__local_depot");
    if (!depot)
        finding(r, r->msg, r->line,
                "declares %s memory in inline assembly (%s): nothing clears it between "
                "launches, so it holds what an earlier kernel left; use a C local, which starts "
                "written",
                ".local", s);
}

/* nvcc's own declarations at a body's start: one range of %-names, `.reg .b32 %r<12>;` (an
 * inline assembly's at the body's level names its registers otherwise). */
static int nvcc_regs(const char *s)
{
    const char *p = s + word_len(s);
    p += strspn(p, " 	");
    p += word_len(p); /* the type */
    p += strspn(p, " 	");
    if (*p != '%')
        return 0;
    p += 1 + word_len(p + 1);
    return *p == '<' && strspn(p + 1, "0123456789") > 0;
}

/* `.reg .TYPE a, b<4>;` of inline assembly: its names (a range as its prefix and '<'). */
static void on_asm_regs(reader *r, const char *s)
{
    for (const char *p = s + word_len(s); *p;) {
        p += strspn(p, " 	,");
        size_t n = word_len(p + (*p == '%')) + (*p == '%');
        if (*p == '.' || n == 0) {
            p += n ? n : 1;
            continue;
        }
        names_add(&r->asm_regs, p, p[n] == '<' ? n + 1 : n);
        p += n;
        p += strcspn(p, ",");
    }
}

/* The asm_regs entry the word at p (n bytes) names, or -1. */
static long asm_reg(const reader *r, const char *p, size_t n)
{
    for (size_t k = 0; k < r->asm_regs.n; k++) {
        const char *v = r->asm_regs.v[k];
        size_t m = strlen(v);
        if (m && v[m - 1] == '<' ? n >= m && memcmp(v, p, m - 1) == 0 &&
                                       strspn(p + m - 1, "0123456789") == n - (m - 1)
                                 : m == n && memcmp(v, p, n) == 0)
            return (long)k;
    }
    return -1;
}

/* The declared registers s[b, e) names: written when write is set and they stand outside
 * brackets; else read, a finding when not written before. */
static void asm_uses(reader *r, const char *s, size_t b, size_t e, int write)
{
    int in = 0;
    for (size_t i = b; i < e;) {
        if (s[i] == '[' || s[i] == ']') {
            in = s[i++] == '[';
            continue;
        }
        size_t n = word_len(s + i + (s[i] == '%')) + (s[i] == '%');
        if (n == 0 || (s[i] != '%' && !name_char(s[i]))) {
            i++;
            continue;
        }
        if (asm_reg(r, s + i, n) >= 0) {
            char *w = ch_xstrndup(s + i, n);
            if (write && !in)
                names_add(&r->asm_written, w, n);
            else if (!names_has(&r->asm_written, w, n))
                finding(r, r->msg, r->line,
                        "reads the register '%s' its inline assembly declares before writing it "
                        "(%s): a register holds what earlier code left in it; write it first",
                        w, s);
            free(w);
        }
        i += n;
    }
}

/* An instruction in a nested block (s with its guard): its reads, then its destination. */
static void on_asm_insn(reader *r, const char *s)
{
    /* a store's first operand is where it stores (bracketed, read), a reduction's too; every
     * other instruction's first operand is what it writes (bar.red, setp p|q, vectors {a, b}) */
    static const char *const no_dest[] = {"st.", "st ", "red.", NULL};
    if (!r->asm_regs.n)
        return;
    if (*s == '@') { /* the guard is read */
        size_t g = strcspn(s, " 	");
        asm_uses(r, s, 1 + (s[1] == '!'), g, 0);
        s += g + strspn(s + g, " 	");
    }
    size_t ops, first;
    operands(s, &ops, &first);
    int dest = !opcode_is(s, no_dest);
    asm_uses(r, s, dest ? first : ops, strlen(s), 0);
    if (dest)
        asm_uses(r, s, ops, first, 1);
}

static void end_body(reader *r)
{
    judge_addresses(r);
    names_clear(&r->asm_regs);
    names_clear(&r->asm_written);
    for (size_t k = 0; k < r->n_code; k++)
        free(r->code[k].text);
    free(r->code);
    r->code = NULL;
    r->n_code = 0;
    r->func[0] = '\0';
    r->body = 0;
}

/* One statement: blanks and newlines as spaces, the terminator gone. */
static void on_statement(reader *r, char *s)
{
    s += strspn(s, " \t\n\r");
    char *colon =
        s + strspn(s, "$_.abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789");
    if (*colon == ':' && colon > s && *s != '.') /* a label before an instruction */
        s = colon + 1 + strspn(colon + 1, " \t\n\r");
    if (!*s)
        return;
    if (r->data) { /* a .section's bytes or a variable's initializer */
        if (!r->func[0])
            for (const char *p = s; *p;) {
                size_t n = word_len(p);
                if (n && name_char(*p) && names_has(&r->globals, p, n)) {
                    char *v = ch_xstrndup(p, n);
                    finding(r, &r->later, 0, "holds the address of the __device__ variable '%s'%s",
                            v, "");
                    free(v);
                }
                p += n ? n : 1;
            }
        return;
    }
    if (r->body && starts_word(s, ".local"))
        on_local_decl(r, s);
    else if (r->body && starts_word(s, ".reg") && (r->depth > 1 || !nvcc_regs(s)))
        on_asm_regs(r, s);
    else if (r->body && *s != '.')
        on_asm_insn(r, s);
    const char *f = strstr(s, ".entry");
    f = f ? f : strstr(s, ".func");
    if (f && r->depth == 0)
        on_function(r, f);
    else if (r->depth == 0)
        on_module_decl(r, s);
    else if (*s == '@') /* a guard predicate */
        on_instruction(r, s + strcspn(s, " \t\n") + strspn(s + strcspn(s, " \t\n"), " \t\n"));
    else if (*s != '.')
        on_instruction(r, s);
}

static void on_brace(reader *r, char c, const char *stmt_before)
{
    if (c == '{') {
        if (r->depth == 0) {
            r->body = r->pending && !strchr(stmt_before, '=') && !r->data;
            r->data = !r->body;
            r->pending = 0;
            if (r->data && strstr(stmt_before, ".section"))
                r->func[0] = '\1'; /* debug bytes: no findings */
        }
        r->depth++;
        return;
    }
    if (r->depth == 2) { /* a nested block's registers end with it */
        names_clear(&r->asm_regs);
        names_clear(&r->asm_written);
    }
    if (r->depth > 0 && --r->depth == 0) {
        if (r->body)
            end_body(r);
        r->data = 0;
        r->func[0] = '\0';
    }
}

/* Comments blanked in place (their line breaks kept, so .loc lines still count); string
 * literals kept. */
static void strip_comments(char *t)
{
    for (char *p = t; *p;) {
        char *next = (char *)ch_c_skip_noncode(p);
        if (next == p) {
            p++;
        } else if (*p == '/') {
            for (; p < next; p++)
                if (*p != '\n')
                    *p = ' ';
        } else {
            p = next;
        }
    }
}

/* A directive that ends at its line's end (no ';'), or a label alone on its line. */
static int line_statement(const char *s, size_t n)
{
    static const char *const words[] = {".version", ".target", ".address_size", ".loc", ".file",
                                        ".section", NULL};
    for (const char *const *w = words; *w; w++)
        if (starts_word(s, *w))
            return 1;
    while (n && isspace((unsigned char)s[n - 1]))
        n--;
    return n && s[n - 1] == ':';
}

/* The .file table first: nvcc writes it after the code its .loc lines locate. */
static void read_files(reader *r, const char *t)
{
    for (const char *l = t; l && *l;) {
        l += strspn(l, " \t");
        if (starts_word(l, ".file"))
            on_file(r, l);
        l = strchr(l, '\n');
        l = l ? l + 1 : NULL;
    }
}

int ch_ptx_check(const char *ptx, const char *unit, ch_strbuf *msg)
{
    reader r;
    memset(&r, 0, sizeof r);
    r.unit = unit;
    r.msg = msg;
    ch_strbuf_init(&r.later);
    ch_strbuf_reset(msg);
    char *t = ch_xstrdup(ptx);
    strip_comments(t);
    read_files(&r, t);
    ch_strbuf stmt;
    ch_strbuf_init(&stmt);
    int nest = 0;
    for (char *l = t; l && *l && !msg->len;) {
        char *e = strchr(l, '\n');
        if (e)
            *e = '\0';
        const char *s = l + strspn(l, " \t\r");
        if (stmt.len == 0 && line_statement(s, strlen(s))) {
            if (starts_word(s, ".loc"))
                on_loc(&r, s);
            else if (starts_word(s, ".section"))
                ch_strbuf_adds(&stmt, s); /* its '{' follows */
            else if (!starts_word(s, ".file") && s[0] != '.')
                on_statement(&r, (char *)s); /* a label */
        } else {
            for (const char *p = s; *p && !msg->len; p++) {
                /* braces inside an instruction (vector operands) are its own */
                int blank = strspn(stmt.data ? stmt.data : "", " \t") == stmt.len;
                if ((*p == '{' || *p == '}') && r.depth > 0 && !r.data && (!blank || nest)) {
                    nest += *p == '{' ? 1 : -1;
                    ch_strbuf_addc(&stmt, *p);
                } else if (*p == ';' || *p == '{' || *p == '}') {
                    ch_strbuf_addc(&stmt, '\0');
                    on_statement(&r, stmt.data);
                    if (*p != ';')
                        on_brace(&r, *p, stmt.data);
                    else if (r.depth == 0)
                        r.pending = 0; /* a prototype, not a definition */
                    ch_strbuf_reset(&stmt);
                    nest = 0;
                } else {
                    ch_strbuf_addc(&stmt, *p);
                }
            }
            if (stmt.len)
                ch_strbuf_addc(&stmt, ' ');
        }
        l = e ? e + 1 : NULL;
    }
    if (r.body)
        end_body(&r);
    if (!msg->len && r.later.len)
        ch_strbuf_add(msg, r.later.data, r.later.len);
    ch_strbuf_free(&stmt);
    ch_strbuf_free(&r.later);
    names_clear(&r.globals);
    names_clear(&r.asm_regs);
    names_clear(&r.asm_written);
    free(t);
    return msg->len ? 1 : 0;
}
