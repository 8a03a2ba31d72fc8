/* The argument model (ch/args.h): recognises the nvcc and cc options that change what ch-cc
 * must do, and passes every other option through untouched. The option table lists each
 * option's value form so that a separate value is never mistaken for an input file. */
#include <stdlib.h>
#include <string.h>

#include "ch/args.h"
#include "ch/fsutil.h"

enum arity {
    FLAG,      /* no value */
    SEP,       /* value in the next argument, or after '=' for --long / -name= forms */
    JOINED,    /* value joined (-Ifoo) or in the next argument (-I foo) */
    JOINED_EQ, /* value only joined or after '=' (-std=c11, -O2) */
};

enum opt_id {
    O_PASS = 0,
    O_C,
    O_E,
    O_S,
    O_FSYNTAX,
    O_M,
    O_MM,
    O_MD,
    O_MMD,
    O_MF,
    O_MT,
    O_MQ,
    O_MP,
    O_O,
    O_X,
    O_I,
    O_ISYSTEM,
    O_D,
    O_U,
    O_INCLUDE,
    O_STD,
    O_OPT,
    O_G,
    O_ARCH,
    O_GENCODE,
    O_CODE,
    O_RDC,
    O_XCOMPILER,
    O_XLINKER,
    O_CCBIN,
    O_OPTF,
    O_V,
    O_DRYRUN,
    O_VERSION,
    O_LIB,
    O_CODEGEN, /* passed on, but changes generated code */
};

struct opt {
    const char *name;
    enum arity arity;
    enum opt_id id;
    int nvcc_only;
};

/* Order matters only for JOINED prefixes: longer names first where one prefixes another. */
static const struct opt opts[] = {
    {"-c", FLAG, O_C, 0},
    {"--compile", FLAG, O_C, 1},
    {"-E", FLAG, O_E, 0},
    {"--preprocess", FLAG, O_E, 1},
    {"-S", FLAG, O_S, 0},
    {"-fsyntax-only", FLAG, O_FSYNTAX, 0},
    {"-M", FLAG, O_M, 0},
    {"--generate-dependencies", FLAG, O_M, 1},
    {"-MM", FLAG, O_MM, 0},
    {"--generate-nonsystem-dependencies", FLAG, O_MM, 1},
    {"-MD", FLAG, O_MD, 0},
    {"--generate-dependencies-with-compile", FLAG, O_MD, 1},
    {"-MMD", FLAG, O_MMD, 0},
    {"--generate-nonsystem-dependencies-with-compile", FLAG, O_MMD, 1},
    {"-MP", FLAG, O_MP, 0},
    {"--generate-dependency-targets", FLAG, O_MP, 1},
    {"-MF", JOINED, O_MF, 0},
    {"--dependency-output", SEP, O_MF, 1},
    {"-MT", JOINED, O_MT, 0},
    {"--dependency-target-name", SEP, O_MT, 1},
    {"-MQ", JOINED, O_MQ, 0},
    {"-o", JOINED, O_O, 0},
    {"--output-file", SEP, O_O, 1},
    {"-x", JOINED, O_X, 0},
    {"--x", SEP, O_X, 1},
    {"-isystem", JOINED, O_ISYSTEM, 0},
    {"--system-include", SEP, O_ISYSTEM, 1},
    {"-include", SEP, O_INCLUDE, 0},
    {"--pre-include", SEP, O_INCLUDE, 1},
    {"-I", JOINED, O_I, 0},
    {"--include-path", SEP, O_I, 1},
    {"-D", JOINED, O_D, 0},
    {"--define-macro", SEP, O_D, 1},
    {"-U", JOINED, O_U, 0},
    {"--undefine-macro", SEP, O_U, 1},
    {"-std", JOINED_EQ, O_STD, 0},
    {"--std", SEP, O_STD, 1},
    {"-O", JOINED_EQ, O_OPT, 0},
    {"--optimize", SEP, O_OPT, 1},
    {"-g", FLAG, O_G, 0},
    {"--debug", FLAG, O_G, 1},
    {"-arch", SEP, O_ARCH, 1},
    {"--gpu-architecture", SEP, O_ARCH, 1},
    {"-gencode", SEP, O_GENCODE, 1},
    {"--generate-code", SEP, O_GENCODE, 1},
    {"-code", SEP, O_CODE, 1},
    {"--gpu-code", SEP, O_CODE, 1},
    {"-rdc", SEP, O_RDC, 1},
    {"--relocatable-device-code", SEP, O_RDC, 1},
    {"-dc", FLAG, O_CODEGEN, 1},
    {"--device-c", FLAG, O_CODEGEN, 1},
    {"-Xcompiler", SEP, O_XCOMPILER, 1},
    {"--compiler-options", SEP, O_XCOMPILER, 1},
    {"-Xlinker", SEP, O_XLINKER, 0},
    {"--linker-options", SEP, O_XLINKER, 1},
    {"-ccbin", SEP, O_CCBIN, 1},
    {"--compiler-bindir", SEP, O_CCBIN, 1},
    {"--options-file", SEP, O_OPTF, 1},
    {"-optf", SEP, O_OPTF, 1},
    {"-v", FLAG, O_V, 0},
    {"--verbose", FLAG, O_V, 1},
    {"--dryrun", FLAG, O_DRYRUN, 1},
    {"-dryrun", FLAG, O_DRYRUN, 1},
    {"--version", FLAG, O_VERSION, 0},
    /* nvcc's -V, but also autoconf's probe of a C compiler: not a sign of nvcc */
    {"-V", FLAG, O_VERSION, 0},
    {"-l", JOINED, O_LIB, 0},
    {"--library", SEP, O_LIB, 1},
    {"-use_fast_math", FLAG, O_CODEGEN, 1},
    {"--use_fast_math", FLAG, O_CODEGEN, 1},
    {"-G", FLAG, O_CODEGEN, 1},
    {"--device-debug", FLAG, O_CODEGEN, 1},
    {"-lineinfo", FLAG, O_CODEGEN, 1},
    {"-maxrregcount", SEP, O_CODEGEN, 1},
    {"--maxrregcount", SEP, O_CODEGEN, 1},
    {"-ftz", JOINED_EQ, O_CODEGEN, 1},
    {"-prec-div", JOINED_EQ, O_CODEGEN, 1},
    {"-prec-sqrt", JOINED_EQ, O_CODEGEN, 1},
    {"-fmad", JOINED_EQ, O_CODEGEN, 1},
    {"-Xptxas", SEP, O_CODEGEN, 1},
    {"--ptxas-options", SEP, O_CODEGEN, 1},
    /* Pass-through options whose value is a separate argument. */
    {"-Xnvlink", SEP, O_PASS, 1},
    {"--nvlink-options", SEP, O_PASS, 1},
    {"-Xarchive", SEP, O_PASS, 1},
    {"-Xfatbin", SEP, O_PASS, 1},
    {"--keep-dir", SEP, O_PASS, 1},
    {"-keep-dir", SEP, O_PASS, 1},
    {"-odir", SEP, O_PASS, 1},
    {"--output-directory", SEP, O_PASS, 1},
    {"-t", SEP, O_PASS, 1},
    {"--threads", SEP, O_PASS, 1},
    {"-split-compile", SEP, O_PASS, 1},
    {"-time", SEP, O_PASS, 1},
    {"--run-args", SEP, O_PASS, 1},
    {"-diag-suppress", SEP, O_PASS, 1},
    {"--diag-suppress", SEP, O_PASS, 1},
    {"-default-stream", SEP, O_PASS, 1},
    {"--default-stream", SEP, O_PASS, 1},
    {"-target-dir", SEP, O_PASS, 1},
    {"-idirafter", SEP, O_PASS, 0},
    {"-iprefix", SEP, O_PASS, 0},
    {"-iwithprefix", SEP, O_PASS, 0},
    {"-iwithprefixbefore", SEP, O_PASS, 0},
    {"-isysroot", SEP, O_PASS, 0},
    {"-imultilib", SEP, O_PASS, 0},
    {"-imacros", SEP, O_PASS, 0},
    {"-iquote", SEP, O_PASS, 0},
    {"-MJ", SEP, O_PASS, 0},
    {"-Xassembler", SEP, O_PASS, 0},
    {"-Xpreprocessor", SEP, O_PASS, 0},
    {"-T", SEP, O_PASS, 0},
    {"-u", SEP, O_PASS, 0},
    {"-z", SEP, O_PASS, 0},
    {"-aux-info", SEP, O_PASS, 0},
    {"-wrapper", SEP, O_PASS, 0},
    {"--param", SEP, O_PASS, 0},
    {"-dumpbase", SEP, O_PASS, 0},
    {"-dumpdir", SEP, O_PASS, 0},
    {NULL, FLAG, O_PASS, 0},
};

/* nvcc's -Werror takes a kind list; gcc's is a flag. Only these values make it nvcc's. */
static int is_nvcc_werror_kind(const char *s)
{
    static const char *const kinds[] = {"all-warnings",
                                        "cross-execution-space-call",
                                        "reorder",
                                        "default-stream-launch",
                                        "missing-launch-bounds",
                                        "ext-lambda-captures-this",
                                        "deprecated-declarations",
                                        NULL};
    for (size_t i = 0; kinds[i]; i++)
        if (strncmp(s, kinds[i], strlen(kinds[i])) == 0)
            return 1;
    return 0;
}

ch_lang ch_lang_of_x(const char *x)
{
    if (strcmp(x, "c") == 0 || strcmp(x, "c-header") == 0 || strcmp(x, "cpp-output") == 0)
        return CH_LANG_C;
    if (strcmp(x, "c++") == 0 || strcmp(x, "c++-header") == 0 || strcmp(x, "c++-cpp-output") == 0)
        return CH_LANG_CXX;
    if (strcmp(x, "cu") == 0 || strcmp(x, "cuda") == 0)
        return CH_LANG_CU;
    if (strcmp(x, "assembler") == 0 || strcmp(x, "assembler-with-cpp") == 0)
        return CH_LANG_ASM;
    return CH_LANG_NONE; /* "none": back to suffixes */
}

ch_lang ch_lang_of_path(const char *path)
{
    static const struct {
        const char *ext;
        ch_lang lang;
    } exts[] = {
        {"c", CH_LANG_C},        {"i", CH_LANG_C},        {"h", CH_LANG_C},
        {"cc", CH_LANG_CXX},     {"cpp", CH_LANG_CXX},    {"cxx", CH_LANG_CXX},
        {"cp", CH_LANG_CXX},     {"c++", CH_LANG_CXX},    {"C", CH_LANG_CXX},
        {"ii", CH_LANG_CXX},     {"hpp", CH_LANG_CXX},    {"cu", CH_LANG_CU},
        {"s", CH_LANG_ASM},      {"S", CH_LANG_ASM},      {"sx", CH_LANG_ASM},
        {"o", CH_LANG_OBJECT},   {"a", CH_LANG_OBJECT},   {"so", CH_LANG_OBJECT},
        {"obj", CH_LANG_OBJECT}, {"lib", CH_LANG_OBJECT}, {"lo", CH_LANG_OBJECT},
    };
    const char *ext = ch_path_ext(path);
    for (size_t i = 0; i < sizeof exts / sizeof exts[0]; i++)
        if (strcmp(ext, exts[i].ext) == 0)
            return exts[i].lang;
    /* libfoo.so.1 */
    if (strstr(ch_path_base(path), ".so."))
        return CH_LANG_OBJECT;
    return CH_LANG_OTHER;
}

void ch_args_split(const char *text, ch_strvec *out)
{
    ch_strbuf cur;
    ch_strbuf_init(&cur);
    int in_word = 0;
    char quote = 0;
    for (const char *p = text; *p; p++) {
        char c = *p;
        if (quote) {
            if (c == quote)
                quote = 0;
            else if (c == '\\' && quote == '"' && (p[1] == '"' || p[1] == '\\'))
                ch_strbuf_addc(&cur, *++p);
            else
                ch_strbuf_addc(&cur, c);
            continue;
        }
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
            if (in_word) {
                ch_strvec_push(out, cur.data);
                ch_strbuf_reset(&cur);
                in_word = 0;
            }
            continue;
        }
        in_word = 1;
        if (c == '"' || c == '\'')
            quote = c;
        else if (c == '\\' && p[1])
            ch_strbuf_addc(&cur, *++p);
        else
            ch_strbuf_addc(&cur, c);
    }
    if (in_word)
        ch_strvec_push(out, cur.data);
    ch_strbuf_free(&cur);
}

/* Expands @file and --options-file/-optf into `out`, recursively (depth-limited). */
static int expand(ch_strvec *out, int argc, char *const *argv, int depth, ch_error *err)
{
    if (depth > 16)
        return ch_error_set(err, "response files nested more than 16 deep");
    for (int i = 0; i < argc; i++) {
        const char *s = argv[i];
        const char *file = NULL;
        if (s[0] == '@' && s[1])
            file = s + 1;
        else if (strcmp(s, "--options-file") == 0 || strcmp(s, "-optf") == 0) {
            if (i + 1 >= argc)
                return ch_error_set(err, "option '%s' needs a file name", s);
            file = argv[++i];
        } else if (strncmp(s, "--options-file=", 15) == 0)
            file = s + 15;
        else if (strncmp(s, "-optf=", 6) == 0)
            file = s + 6;
        if (!file) {
            ch_strvec_push(out, s);
            continue;
        }
        char *text;
        if (ch_read_file(file, &text, NULL, err) != 0)
            return ch_error_prefix(err, "cannot read response file");
        ch_strvec inner;
        ch_strvec_init(&inner);
        ch_args_split(text, &inner);
        free(text);
        int rc = expand(out, (int)inner.len, inner.items, depth + 1, err);
        ch_strvec_free(&inner);
        if (rc != 0)
            return rc;
    }
    return 0;
}

static const struct opt *match(const char *s, const char **joined)
{
    *joined = NULL;
    for (const struct opt *o = opts; o->name; o++)
        if (strcmp(s, o->name) == 0)
            return o;
    const struct opt *best = NULL;
    size_t best_len = 0;
    for (const struct opt *o = opts; o->name; o++) {
        size_t n = strlen(o->name);
        if (n <= best_len || strncmp(s, o->name, n) != 0 || o->arity == FLAG)
            continue;
        int eq_form = s[n] == '=';
        int joined_form = o->arity == JOINED || (o->arity == JOINED_EQ && o->id == O_OPT);
        if (eq_form || joined_form) {
            best = o;
            best_len = n;
            /* "-isystem=/p", "-arch=sm_90", "--std=c++17"; but "-DX=1" keeps its '='. */
            *joined = s + n + (eq_form && n > 2 ? 1 : 0);
        }
    }
    return best;
}

/* Records an architecture option whole, its spelling folded to nvcc's short form: what a
 * value means depends on the other options (driver/targets.c), so nothing is dropped here. */
static void add_arch(ch_args *a, int id, const char *value)
{
    const char *opt = id == O_ARCH ? "-arch" : id == O_CODE ? "-code" : "-gencode";
    ch_strvec_push_owned(&a->arch_opts, ch_xasprintf("%s=%s", opt, value));
}

static void add_input(ch_args *a, const char *path, ch_lang x_lang, size_t argi)
{
    a->inputs = ch_xrealloc(a->inputs, (a->n_inputs + 1) * sizeof *a->inputs);
    ch_input *in = &a->inputs[a->n_inputs++];
    in->path = ch_xstrdup(path);
    in->lang = x_lang != CH_LANG_NONE ? x_lang : ch_lang_of_path(path);
    if (strcmp(path, "-") == 0 && x_lang == CH_LANG_NONE)
        in->lang = CH_LANG_OTHER;
    in->argi = argi;
}

static void apply(ch_args *a, const struct opt *o, const char *value, ch_lang *x_lang)
{
    if (o->nvcc_only)
        a->nvcc_only = 1;
    switch (o->id) {
    case O_C:
        a->compile_only = 1;
        break;
    case O_E:
        a->preprocess_only = 1;
        break;
    case O_S:
        a->assemble_only = 1;
        break;
    case O_FSYNTAX:
        a->syntax_only = 1;
        break;
    case O_M:
        a->dep_only = 1;
        break;
    case O_MM:
        a->dep_only = a->dep_mmd = 1;
        break;
    case O_MD:
        a->dep_md = 1;
        break;
    case O_MMD:
        a->dep_md = a->dep_mmd = 1;
        break;
    case O_MF:
        free(a->dep_mf);
        a->dep_mf = ch_xstrdup(value);
        break;
    case O_MT:
    case O_MQ:
        ch_strvec_push(&a->dep_targets, value);
        break;
    case O_MP:
        a->dep_mp = 1;
        break;
    case O_O:
        free(a->output);
        a->output = ch_xstrdup(value);
        break;
    case O_X:
        *x_lang = ch_lang_of_x(value);
        if (*x_lang == CH_LANG_CU)
            a->has_x_cu = 1;
        break;
    case O_I:
        ch_strvec_push(&a->includes, value);
        ch_strvec_push_owned(&a->scan_args, ch_xasprintf("-I%s", value));
        break;
    case O_ISYSTEM:
        ch_strvec_push(&a->isystem, value);
        ch_strvec_push(&a->scan_args, "-isystem");
        ch_strvec_push(&a->scan_args, value);
        break;
    case O_D:
        ch_strvec_push(&a->defines, value);
        ch_strvec_push_owned(&a->scan_args, ch_xasprintf("-D%s", value));
        break;
    case O_U:
        ch_strvec_push(&a->undefs, value);
        ch_strvec_push_owned(&a->scan_args, ch_xasprintf("-U%s", value));
        break;
    case O_INCLUDE:
        ch_strvec_push(&a->pre_includes, value);
        ch_strvec_push(&a->scan_args, "-include");
        ch_strvec_push(&a->scan_args, value);
        break;
    case O_STD:
        free(a->std);
        a->std = ch_xstrdup(value);
        break;
    case O_OPT:
        free(a->opt);
        a->opt = ch_xstrdup(value);
        ch_strvec_push_owned(&a->codegen, ch_xasprintf("-O%s", value));
        break;
    case O_G:
        a->debug = 1;
        break;
    case O_ARCH:
    case O_GENCODE:
    case O_CODE:
        add_arch(a, o->id, value);
        ch_strvec_push_owned(&a->codegen, ch_xasprintf("%s=%s", o->name, value));
        break;
    case O_RDC:
        a->rdc = strcmp(value, "true") == 0;
        break;
    case O_XCOMPILER:
    case O_XLINKER: {
        ch_strvec *dst = o->id == O_XCOMPILER ? &a->xcompiler : &a->xlinker;
        char *copy = ch_xstrdup(value);
        for (char *tok = strtok(copy, ","); tok; tok = strtok(NULL, ","))
            ch_strvec_push(dst, tok);
        free(copy);
        break;
    }
    case O_CCBIN:
        free(a->ccbin);
        a->ccbin = ch_xstrdup(value);
        break;
    case O_V:
        a->verbose = 1;
        break;
    case O_DRYRUN:
        a->dryrun = 1;
        break;
    case O_VERSION:
        a->version = 1;
        break;
    case O_CODEGEN:
        ch_strvec_push_owned(&a->codegen,
                             value ? ch_xasprintf("%s=%s", o->name, value) : ch_xstrdup(o->name));
        break;
    case O_LIB:
    case O_PASS:
    case O_OPTF:
        break;
    }
}

/* Parses one list (the command line or an NVCC_*_FLAGS string). record_inputs: 0 for the
 * environment lists, which nvcc reads itself. */
static int parse_list(ch_args *a, const ch_strvec *list, int record_inputs, ch_error *err)
{
    ch_lang x_lang = CH_LANG_NONE;
    for (size_t i = 0; i < list->len; i++) {
        const char *s = list->items[i];
        if (s[0] != '-' || strcmp(s, "-") == 0) {
            if (record_inputs)
                add_input(a, s, x_lang, i);
            continue;
        }
        if (strcmp(s, "-Werror") == 0 || strcmp(s, "--Werror") == 0) {
            if (i + 1 < list->len && is_nvcc_werror_kind(list->items[i + 1])) {
                a->nvcc_only = 1;
                i++;
            }
            continue;
        }
        const char *joined;
        const struct opt *o = match(s, &joined);
        if (!o)
            continue; /* unknown options are passed on unchanged */
        const char *value = NULL;
        size_t start = i;
        if (o->arity != FLAG) {
            if (joined && (*joined || o->arity == JOINED_EQ))
                value = joined;
            else if (o->arity == JOINED_EQ)
                value = "";
            else if (i + 1 < list->len)
                value = list->items[++i];
            else
                return ch_error_set(err, "option '%s' needs a value", s);
        }
        apply(a, o, value, &x_lang);
        if (o->id == O_O && record_inputs) {
            a->output_argi = start;
            a->output_nargs = i - start + 1;
        }
    }
    return 0;
}

int ch_args_parse(ch_args *a, int argc, char *const *argv, const char *env_prepend,
                  const char *env_append, ch_error *err)
{
    memset(a, 0, sizeof *a);
    ch_strvec_init(&a->orig);
    ch_strvec_init(&a->expanded);
    ch_strvec_init(&a->harness);
    ch_strvec_init(&a->dep_targets);
    ch_strvec_init(&a->includes);
    ch_strvec_init(&a->isystem);
    ch_strvec_init(&a->defines);
    ch_strvec_init(&a->undefs);
    ch_strvec_init(&a->pre_includes);
    ch_strvec_init(&a->scan_args);
    ch_strvec_init(&a->arch_opts);
    ch_strvec_init(&a->codegen);
    ch_strvec_init(&a->xcompiler);
    ch_strvec_init(&a->xlinker);
    for (int i = 0; i < argc; i++) {
        if (strncmp(argv[i], "--harness-", 10) == 0)
            ch_strvec_push(&a->harness, argv[i]);
        else
            ch_strvec_push(&a->orig, argv[i]);
    }
    if (expand(&a->expanded, (int)a->orig.len, a->orig.items, 0, err) != 0)
        return -1;
    /* --harness-* options may also come from response files. */
    ch_strvec kept;
    ch_strvec_init(&kept);
    for (size_t i = 0; i < a->expanded.len; i++) {
        if (strncmp(a->expanded.items[i], "--harness-", 10) == 0) {
            int seen = 0;
            for (size_t k = 0; k < a->harness.len; k++)
                seen |= strcmp(a->harness.items[k], a->expanded.items[i]) == 0;
            if (!seen)
                ch_strvec_push(&a->harness, a->expanded.items[i]);
        } else {
            ch_strvec_push(&kept, a->expanded.items[i]);
        }
    }
    ch_strvec_free(&a->expanded);
    a->expanded = kept;
    for (int pass = 0; pass < 2; pass++) {
        const char *env = pass == 0 ? env_prepend : env_append;
        if (!env || !*env)
            continue;
        ch_strvec list;
        ch_strvec_init(&list);
        ch_args_split(env, &list);
        int rc = parse_list(a, &list, 0, err);
        ch_strvec_free(&list);
        if (rc != 0)
            return ch_error_prefix(err, "in %s",
                                   pass == 0 ? "NVCC_PREPEND_FLAGS" : "NVCC_APPEND_FLAGS");
    }
    if (parse_list(a, &a->expanded, 1, err) != 0)
        return -1;
    if (a->std)
        ch_strvec_push_owned(&a->scan_args, ch_xasprintf("-std=%s", a->std));
    return 0;
}

void ch_args_free(ch_args *a)
{
    ch_strvec_free(&a->orig);
    ch_strvec_free(&a->expanded);
    ch_strvec_free(&a->harness);
    for (size_t i = 0; i < a->n_inputs; i++)
        free(a->inputs[i].path);
    free(a->inputs);
    free(a->output);
    free(a->dep_mf);
    ch_strvec_free(&a->dep_targets);
    ch_strvec_free(&a->includes);
    ch_strvec_free(&a->isystem);
    ch_strvec_free(&a->defines);
    ch_strvec_free(&a->undefs);
    ch_strvec_free(&a->pre_includes);
    ch_strvec_free(&a->scan_args);
    free(a->std);
    free(a->opt);
    ch_strvec_free(&a->arch_opts);
    ch_strvec_free(&a->codegen);
    ch_strvec_free(&a->xcompiler);
    ch_strvec_free(&a->xlinker);
    free(a->ccbin);
    memset(a, 0, sizeof *a);
}
