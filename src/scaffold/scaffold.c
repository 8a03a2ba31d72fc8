/* Scaffold generation (paper Fig. 4): the self-contained CUDA program that runs one candidate
 * launcher on inputs read from typed binary files and writes every buffer back, plus its timing
 * mode. The same buffer-file code is emitted into the reference program (src/verify/reference.c),
 * so both sides of a comparison read and write identical files. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ch/scaffold.h"

/* C spelling of an element type; C++ has no _Bool. */
static const char *ctype(ch_scalar t, int cxx)
{
    if (t == CH_T_BOOL)
        return cxx ? "bool" : "_Bool";
    return ch_scalar_name(t);
}

char *ch_scaffold_param_type(const ch_ck_param *p)
{
    if (p->role == CH_ROLE_SCALAR)
        return ch_xstrdup(ctype(p->elem, 1));
    int is_const = p->dir == CH_DIR_IN && p->type && strstr(p->type, "const") != NULL;
    return ch_xasprintf("%s%s *", is_const ? "const " : "", ctype(p->elem, 1));
}

char *ch_scaffold_launcher_proto(const ch_checklist *c)
{
    ch_strbuf sb;
    ch_strbuf_init(&sb);
    ch_strbuf_addf(&sb, "void %s_launcher(", c->name);
    for (size_t i = 0; i < c->n_params; i++) {
        char *t = ch_scaffold_param_type(&c->params[i]);
        size_t tl = strlen(t);
        ch_strbuf_addf(&sb, "%s%s%s%s", i ? ", " : "", t, tl && t[tl - 1] == '*' ? "" : " ",
                       c->params[i].name);
        free(t);
    }
    ch_strbuf_adds(&sb, ")");
    return ch_strbuf_detach(&sb);
}

uint64_t ch_buf_checksum(const void *data, size_t n)
{
    const unsigned char *p = data;
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 1099511628211ULL;
    }
    return h;
}

void ch_scaffold_bufio_code(ch_strbuf *out)
{
    ch_strbuf_adds(
        out,
        "/* Buffer files: a 32-byte header (magic, element type tag, element count, FNV-1a 64\n"
        " * checksum of the payload) followed by the elements. Every read validates all four. */\n"
        "typedef struct ch_buf_header {\n"
        "    char magic[8];\n"
        "    char tag[8];\n"
        "    uint64_t count;\n"
        "    uint64_t checksum;\n"
        "} ch_buf_header;\n"
        "\n"
        "static uint64_t ch_fnv1a(const void *data, size_t n)\n"
        "{\n"
        "    const unsigned char *p = (const unsigned char *)data;\n"
        "    uint64_t h = 1469598103934665603ULL;\n"
        "    for (size_t i = 0; i < n; i++) {\n"
        "        h ^= p[i];\n"
        "        h *= 1099511628211ULL;\n"
        "    }\n"
        "    return h;\n"
        "}\n"
        "\n"
        "/* Reads PATH into dst (count elements of size bytes); exits 2 on any mismatch. */\n"
        "static void ch_buf_read_into(const char *path, const char *tag, size_t size, void *dst,\n"
        "                             size_t count)\n"
        "{\n"
        "    FILE *f = fopen(path, \"rb\");\n"
        "    ch_buf_header h;\n"
        "    if (!f || fread(&h, sizeof h, 1, f) != 1) {\n"
        "        fprintf(stderr, \"ch-scaffold: cannot read %s\\n\", path);\n"
        "        exit(2);\n"
        "    }\n"
        "    if (memcmp(h.magic, \"" CH_BUF_MAGIC "\", 8) != 0 || strncmp(h.tag, tag, 8) != 0 ||\n"
        "        h.count != (uint64_t)count) {\n"
        "        fprintf(stderr, \"ch-scaffold: %s: expected %zu elements of %s, found %llu of "
        "%.8s\\n\",\n"
        "                path, count, tag, (unsigned long long)h.count, h.tag);\n"
        "        exit(2);\n"
        "    }\n"
        "    if (count && fread(dst, size, count, f) != count) {\n"
        "        fprintf(stderr, \"ch-scaffold: %s: truncated\\n\", path);\n"
        "        exit(2);\n"
        "    }\n"
        "    fclose(f);\n"
        "    if (ch_fnv1a(dst, size * count) != h.checksum) {\n"
        "        fprintf(stderr, \"ch-scaffold: %s: checksum mismatch\\n\", path);\n"
        "        exit(2);\n"
        "    }\n"
        "}\n"
        "\n"
        "/* Writes count elements of size bytes with their header; exits 4 on failure. */\n"
        "static void ch_buf_write(const char *path, const char *tag, size_t size, const void "
        "*src,\n"
        "                         size_t count)\n"
        "{\n"
        "    ch_buf_header h;\n"
        "    memset(&h, 0, sizeof h);\n"
        "    memcpy(h.magic, \"" CH_BUF_MAGIC "\", 8);\n"
        "    strncpy(h.tag, tag, sizeof h.tag - 1);\n"
        "    h.count = count;\n"
        "    h.checksum = ch_fnv1a(src, size * count);\n"
        "    FILE *f = fopen(path, \"wb\");\n"
        "    if (!f || fwrite(&h, sizeof h, 1, f) != 1 ||\n"
        "        (count && fwrite(src, size, count, f) != count) || fclose(f) != 0) {\n"
        "        fprintf(stderr, \"ch-scaffold: cannot write %s\\n\", path);\n"
        "        exit(4);\n"
        "    }\n"
        "}\n"
        "\n"
        "/* DIR/NAME.bin, DIR/NAME.out.bin */\n"
        "static const char *ch_path(char *buf, size_t cap, const char *dir, const char *name,\n"
        "                           const char *suffix)\n"
        "{\n"
        "    snprintf(buf, cap, \"%s/%s%s\", dir, name, suffix);\n"
        "    return buf;\n"
        "}\n"
        "\n"
        "/* An element count from an extent expression; negative counts are bad inputs. */\n"
        "static size_t ch_count(long long v, const char *name)\n"
        "{\n"
        "    if (v < 0) {\n"
        "        fprintf(stderr, \"ch-scaffold: extent of %s is negative (%lld)\\n\", name, v);\n"
        "        exit(2);\n"
        "    }\n"
        "    return (size_t)v;\n"
        "}\n"
        "\n"
        "static long long ch_min(long long a, long long b)\n"
        "{\n"
        "    return a < b ? a : b;\n"
        "}\n"
        "\n"
        "static long long ch_max(long long a, long long b)\n"
        "{\n"
        "    return a > b ? a : b;\n"
        "}\n");
}

/* Copies an extent expression, renaming min( / max( to the scaffold's helpers. */
static void add_extent(ch_strbuf *out, const char *e)
{
    for (const char *p = e; *p;) {
        int ident_start =
            p == e || !(p[-1] == '_' || (p[-1] >= 'a' && p[-1] <= 'z') ||
                        (p[-1] >= 'A' && p[-1] <= 'Z') || (p[-1] >= '0' && p[-1] <= '9'));
        if (ident_start && (strncmp(p, "min", 3) == 0 || strncmp(p, "max", 3) == 0)) {
            const char *q = p + 3;
            while (*q == ' ')
                q++;
            if (*q == '(') {
                ch_strbuf_adds(out, "ch_");
                ch_strbuf_add(out, p, 3);
                p += 3;
                continue;
            }
        }
        ch_strbuf_addc(out, *p++);
    }
}

static int is_buf(const ch_ck_param *p)
{
    return p->role != CH_ROLE_SCALAR;
}

static int is_input(const ch_ck_param *p)
{
    return p->dir == CH_DIR_IN || p->dir == CH_DIR_INOUT;
}

/* Integer outputs are poisoned with 0xA5 bytes, floating ones with 0xFF bytes (a NaN). */
static int poison_byte(const ch_ck_param *p)
{
    return ch_scalar_is_float(p->elem) ? 0xFF : 0xA5;
}

void ch_scaffold_emit_inputs(ch_strbuf *o, const ch_checklist *c, const char *dirvar,
                             const char *indent, int cxx)
{
    for (size_t i = 0; i < c->n_params; i++) {
        const ch_ck_param *p = &c->params[i];
        if (is_buf(p))
            continue;
        ch_strbuf_addf(o, "%s%s %s;\n", indent, ctype(p->elem, cxx), p->name);
        ch_strbuf_addf(o,
                       "%sch_buf_read_into(ch_path(ch_pb, sizeof ch_pb, %s, \"%s\", \".bin\"), "
                       "\"%s\", sizeof %s, &%s, 1);\n",
                       indent, dirvar, p->name, ch_scalar_tag(p->elem), p->name, p->name);
    }
    for (size_t i = 0; i < c->n_params; i++) {
        const ch_ck_param *p = &c->params[i];
        if (!is_buf(p))
            continue;
        ch_strbuf_addf(o, "%sconst size_t ch_count_%s = ch_count((long long)(", indent, p->name);
        add_extent(o, p->extent ? p->extent : "1");
        ch_strbuf_addf(o, "), \"%s\");\n", p->name);
    }
}

/* The call of the launcher with buffer expressions `<name><suffix>`. */
static void emit_call(ch_strbuf *o, const ch_checklist *c, const char *suffix, const char *idx,
                      const char *indent)
{
    ch_strbuf_addf(o, "%s%s_launcher(", indent, c->name);
    for (size_t i = 0; i < c->n_params; i++) {
        const ch_ck_param *p = &c->params[i];
        ch_strbuf_addf(o, "%s%s", i ? ", " : "", p->name);
        if (is_buf(p))
            ch_strbuf_addf(o, "%s%s", suffix, idx);
    }
    ch_strbuf_adds(o, ");\n");
}

int ch_scaffold_generate(const ch_checklist *c, const char *candidate_path, ch_strbuf *o,
                         ch_error *err)
{
    if (!c->name || !*c->name)
        return ch_error_set(err, "scaffold: checklist has no name");
    for (size_t i = 0; i < c->n_params; i++) {
        const ch_ck_param *p = &c->params[i];
        if (p->elem == CH_T_UNKNOWN || p->elem == CH_T_VOID)
            return ch_error_set(err, "scaffold: parameter %s has no supported element type",
                                p->name);
        if (is_buf(p) && (!p->extent || !*p->extent))
            return ch_error_set(err, "scaffold: buffer %s has no extent", p->name);
        if (is_buf(p) && p->dir == CH_DIR_NONE)
            return ch_error_set(err, "scaffold: buffer %s has no direction", p->name);
    }
    int dev = c->device;
    char *proto = ch_scaffold_launcher_proto(c);
    ch_strbuf_addf(o,
                   "/* Verification scaffold for `%s`, generated by ch-cc (paper Fig. 4).\n"
                   " *\n"
                   " * Calling convention: %s.\n"
                   " * The candidate defines: extern \"C\" %s;\n"
                   " *\n"
                   " *   prog run  DIR NSETS                 one call per input set DIR/0 .. "
                   "DIR/NSETS-1,\n"
                   " *                                       all in the same buffers\n"
                   " *   prog time DIR NSETS WARMUP REPEATS  median launcher time over NSETS "
                   "rotated\n"
                   " *                                       copies of DIR/0\n"
                   " * Exit codes: 0 ok, 2 bad arguments or inputs, 3 CUDA error, 4 write "
                   "failure. */\n",
                   c->name,
                   dev ? "device pointers (the scaffold allocates and copies; the launcher only "
                         "launches)"
                       : "host pointers (the launcher allocates, copies and launches)",
                   proto);
    ch_strbuf_adds(o, "#include <stdint.h>\n#include <stdio.h>\n#include <stdlib.h>\n"
                      "#include <string.h>\n#include <time.h>\n\n#include <algorithm>\n"
                      "#include <vector>\n\n#include <cuda_runtime.h>\n\n");
    ch_strbuf_addf(o,
                   "/* ---- The candidate, inserted verbatim ---------------------------------- "
                   "*/\n#include \"%s\"\n\n"
                   "/* The launcher must have exactly this C signature. */\n"
                   "extern \"C\" %s;\n\n",
                   candidate_path, proto);
    free(proto);
    ch_strbuf_adds(o,
                   "/* ---- Scaffold ---------------------------------------------------------- "
                   "*/\n\n"
                   "/* Every CUDA call of the scaffold is checked; errors exit with status 3. */\n"
                   "#define CH_CHECK(call)                                                       "
                   "         \\\n"
                   "    do {                                                                    "
                   "          \\\n"
                   "        cudaError_t ch_e_ = (call);                                         "
                   "          \\\n"
                   "        if (ch_e_ != cudaSuccess) {                                         "
                   "          \\\n"
                   "            fprintf(stderr, \"ch-scaffold: %s failed: %s\\n\", #call,        "
                   "            \\\n"
                   "                    cudaGetErrorString(ch_e_));                            "
                   "           \\\n"
                   "            exit(3);                                                        "
                   "          \\\n"
                   "        }                                                                   "
                   "          \\\n"
                   "    } while (0)\n\n");
    ch_scaffold_bufio_code(o);
    ch_strbuf_adds(o, "\n/* Wall-clock milliseconds (monotonic). */\n"
                      "static double ch_now_ms(void)\n{\n    struct timespec ts;\n"
                      "    clock_gettime(CLOCK_MONOTONIC, &ts);\n"
                      "    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;\n}\n\n");

    /* ---- run mode ---- */
    ch_strbuf_addf(o,
                   "/* run mode: one launcher call per input set, every set in the same %s "
                   "buffers\n * (a candidate that caches outputs by address is caught). */\n",
                   dev ? "device" : "host");
    ch_strbuf_adds(o, "static int ch_run(const char *dir, int nsets)\n{\n    char ch_pb[4096];\n"
                      "    char ch_sd[4096];\n");
    for (size_t i = 0; i < c->n_params; i++) {
        const ch_ck_param *p = &c->params[i];
        if (!is_buf(p))
            continue;
        const char *t = ctype(p->elem, 1);
        ch_strbuf_addf(o,
                       "    %s *%s_h = NULL; /* host copy: what a host-pointer launcher gets */\n",
                       t, p->name);
        ch_strbuf_addf(o, "    %s *%s_snap = NULL; /* taken right after the launcher returns */\n",
                       t, p->name);
        if (dev)
            ch_strbuf_addf(o, "    %s *%s_d = NULL; /* device buffer the launcher gets */\n", t,
                           p->name);
        ch_strbuf_addf(o, "    size_t %s_n = 0;\n", p->name);
    }
    ch_strbuf_adds(o, "    for (int ch_s = 0; ch_s < nsets; ch_s++) {\n"
                      "        snprintf(ch_sd, sizeof ch_sd, \"%s/%d\", dir, ch_s);\n");
    ch_scaffold_emit_inputs(o, c, "ch_sd", "        ", 1);
    ch_strbuf_adds(o, "        /* the first set allocates; later sets reuse the same buffers */\n");
    for (size_t i = 0; i < c->n_params; i++) {
        const ch_ck_param *p = &c->params[i];
        if (!is_buf(p))
            continue;
        const char *t = ctype(p->elem, 1);
        const char *nm = p->name;
        ch_strbuf_addf(o,
                       "        if (ch_s == 0) {\n"
                       "            %s_n = ch_count_%s;\n"
                       "            %s_h = (%s *)malloc(sizeof(%s) * (%s_n ? %s_n : 1));\n"
                       "            %s_snap = (%s *)malloc(sizeof(%s) * (%s_n ? %s_n : 1));\n"
                       "            if (!%s_h || !%s_snap) {\n"
                       "                fprintf(stderr, \"ch-scaffold: out of host memory\\n\");\n"
                       "                return 2;\n"
                       "            }\n",
                       nm, nm, nm, t, t, nm, nm, nm, t, t, nm, nm, nm, nm);
        if (dev)
            ch_strbuf_addf(o,
                           "            CH_CHECK(cudaMalloc((void **)&%s_d, sizeof(%s) * (%s_n ? "
                           "%s_n : 1)));\n",
                           nm, t, nm, nm);
        ch_strbuf_addf(o,
                       "        } else if (%s_n != ch_count_%s) {\n"
                       "            fprintf(stderr, \"ch-scaffold: set %%d changes the size of "
                       "%s\\n\", ch_s);\n"
                       "            return 2;\n"
                       "        }\n",
                       nm, nm, nm);
        if (is_input(p))
            ch_strbuf_addf(o,
                           "        ch_buf_read_into(ch_path(ch_pb, sizeof ch_pb, ch_sd, \"%s\", "
                           "\".bin\"), \"%s\", sizeof(%s), %s_h, %s_n);\n",
                           nm, ch_scalar_tag(p->elem), t, nm, nm);
        else
            ch_strbuf_addf(o,
                           "        /* out: poisoned so that unwritten elements are caught */\n"
                           "        memset(%s_h, 0x%02X, sizeof(%s) * %s_n);\n",
                           nm, poison_byte(p), t, nm);
        if (dev) {
            if (is_input(p))
                ch_strbuf_addf(o,
                               "        CH_CHECK(cudaMemcpy(%s_d, %s_h, sizeof(%s) * %s_n, "
                               "cudaMemcpyHostToDevice));\n",
                               nm, nm, t, nm);
            else
                ch_strbuf_addf(o,
                               "        CH_CHECK(cudaMemset(%s_d, 0x%02X, sizeof(%s) * %s_n));\n",
                               nm, poison_byte(p), t, nm);
        }
    }
    if (dev)
        ch_strbuf_adds(o, "        CH_CHECK(cudaDeviceSynchronize());\n");
    emit_call(o, c, dev ? "_d" : "_h", "", "        ");
    ch_strbuf_adds(o, "        /* Snapshot before any synchronisation: work still running on "
                      "another stream\n         * when the launcher returns is a failure, not a "
                      "race the scaffold waits out. */\n");
    for (size_t i = 0; i < c->n_params; i++) {
        const ch_ck_param *p = &c->params[i];
        if (!is_buf(p))
            continue;
        if (dev)
            ch_strbuf_addf(o,
                           "        CH_CHECK(cudaMemcpy(%s_snap, %s_d, sizeof(*%s_d) * %s_n, "
                           "cudaMemcpyDeviceToHost));\n",
                           p->name, p->name, p->name, p->name);
        else
            ch_strbuf_addf(o, "        memcpy(%s_snap, %s_h, sizeof(*%s_h) * %s_n);\n", p->name,
                           p->name, p->name, p->name);
    }
    ch_strbuf_adds(o, "        /* errors are reported, the outputs above stay as returned */\n"
                      "        CH_CHECK(cudaGetLastError());\n"
                      "        CH_CHECK(cudaDeviceSynchronize());\n");
    for (size_t i = 0; i < c->n_params; i++) {
        const ch_ck_param *p = &c->params[i];
        if (!is_buf(p))
            continue;
        ch_strbuf_addf(o,
                       "        ch_buf_write(ch_path(ch_pb, sizeof ch_pb, ch_sd, \"%s\", "
                       "\".out.bin\"), \"%s\", sizeof(*%s_snap), %s_snap, %s_n);\n",
                       p->name, ch_scalar_tag(p->elem), p->name, p->name, p->name);
    }
    ch_strbuf_adds(o, "    }\n");
    for (size_t i = 0; i < c->n_params; i++) {
        const ch_ck_param *p = &c->params[i];
        if (!is_buf(p))
            continue;
        ch_strbuf_addf(o, "    free(%s_h);\n    free(%s_snap);\n", p->name, p->name);
        if (dev)
            ch_strbuf_addf(o, "    CH_CHECK(cudaFree(%s_d));\n", p->name);
    }
    ch_strbuf_adds(o, "    return 0;\n}\n\n");

    /* ---- time mode ---- */
    ch_strbuf_adds(o, "static double ch_median(std::vector<double> v)\n{\n"
                      "    std::sort(v.begin(), v.end());\n"
                      "    size_t n = v.size();\n"
                      "    return n == 0 ? 0.0 : (n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / "
                      "2]));\n}\n\n");
    ch_strbuf_addf(o,
                   "/* time mode: NSETS copies of the inputs in separate buffers, used in turn so "
                   "that\n * the data of one call is not in the L2 for the next; the launcher is "
                   "timed with\n * CUDA events on the default stream (%s) and with the wall clock "
                   "up to\n * a device synchronisation. */\n",
                   dev ? "the kernels it launches" : "copies and kernels");
    ch_strbuf_adds(o, "static int ch_time(const char *dir, int nsets, int warmup, int repeats)\n{\n"
                      "    char ch_pb[4096];\n    char ch_sd[4096];\n"
                      "    snprintf(ch_sd, sizeof ch_sd, \"%s/0\", dir);\n");
    ch_scaffold_emit_inputs(o, c, "ch_sd", "    ", 1);
    for (size_t i = 0; i < c->n_params; i++) {
        const ch_ck_param *p = &c->params[i];
        if (!is_buf(p))
            continue;
        const char *t = ctype(p->elem, 1);
        const char *nm = p->name;
        ch_strbuf_addf(o,
                       "    const size_t %s_bytes = sizeof(%s) * (ch_count_%s ? ch_count_%s : 1);\n"
                       "    %s *%s_in = (%s *)calloc(1, %s_bytes);\n"
                       "    std::vector<%s *> %s_set(nsets);\n"
                       "    if (!%s_in) {\n"
                       "        fprintf(stderr, \"ch-scaffold: out of host memory\\n\");\n"
                       "        return 2;\n"
                       "    }\n",
                       nm, t, nm, nm, t, nm, t, nm, t, nm, nm);
        if (is_input(p))
            ch_strbuf_addf(o,
                           "    ch_buf_read_into(ch_path(ch_pb, sizeof ch_pb, ch_sd, \"%s\", "
                           "\".bin\"), \"%s\", sizeof(%s), %s_in, ch_count_%s);\n",
                           nm, ch_scalar_tag(p->elem), t, nm, nm);
        ch_strbuf_addf(o, "    for (int ch_s = 0; ch_s < nsets; ch_s++) {\n");
        if (dev)
            ch_strbuf_addf(o,
                           "        CH_CHECK(cudaMalloc((void **)&%s_set[ch_s], %s_bytes));\n"
                           "        CH_CHECK(cudaMemcpy(%s_set[ch_s], %s_in, %s_bytes, "
                           "cudaMemcpyHostToDevice));\n",
                           nm, nm, nm, nm, nm);
        else
            ch_strbuf_addf(o,
                           "        %s_set[ch_s] = (%s *)malloc(%s_bytes);\n"
                           "        if (!%s_set[ch_s]) {\n"
                           "            fprintf(stderr, \"ch-scaffold: out of host memory\\n\");\n"
                           "            return 2;\n"
                           "        }\n"
                           "        memcpy(%s_set[ch_s], %s_in, %s_bytes);\n",
                           nm, t, nm, nm, nm, nm, nm);
        ch_strbuf_adds(o, "    }\n");
    }
    ch_strbuf_adds(o, "    CH_CHECK(cudaDeviceSynchronize());\n"
                      "    cudaEvent_t ch_start, ch_stop;\n"
                      "    CH_CHECK(cudaEventCreate(&ch_start));\n"
                      "    CH_CHECK(cudaEventCreate(&ch_stop));\n"
                      "    for (int ch_r = 0; ch_r < warmup; ch_r++) {\n"
                      "        int ch_s = ch_r % nsets;\n");
    emit_call(o, c, "_set", "[ch_s]", "        ");
    ch_strbuf_adds(o, "    }\n    CH_CHECK(cudaGetLastError());\n"
                      "    CH_CHECK(cudaDeviceSynchronize());\n"
                      "    std::vector<double> ch_event_ms, ch_wall_ms;\n"
                      "    for (int ch_r = 0; ch_r < repeats; ch_r++) {\n"
                      "        int ch_s = ch_r % nsets;\n"
                      "        double ch_t0 = ch_now_ms();\n"
                      "        CH_CHECK(cudaEventRecord(ch_start, 0));\n");
    emit_call(o, c, "_set", "[ch_s]", "        ");
    ch_strbuf_adds(o,
                   "        CH_CHECK(cudaEventRecord(ch_stop, 0));\n"
                   "        CH_CHECK(cudaDeviceSynchronize());\n"
                   "        double ch_t1 = ch_now_ms();\n"
                   "        float ch_ms = 0;\n"
                   "        CH_CHECK(cudaEventElapsedTime(&ch_ms, ch_start, ch_stop));\n"
                   "        ch_event_ms.push_back(ch_ms);\n"
                   "        ch_wall_ms.push_back(ch_t1 - ch_t0);\n"
                   "    }\n"
                   "    CH_CHECK(cudaGetLastError());\n"
                   "    printf(\"ch-time: event_ms=%.6f wall_ms=%.6f min_event_ms=%.6f "
                   "sets=%d repeats=%d\\n\",\n"
                   "           ch_median(ch_event_ms), ch_median(ch_wall_ms),\n"
                   "           ch_event_ms.empty() ? 0.0 : *std::min_element(ch_event_ms.begin(), "
                   "ch_event_ms.end()),\n"
                   "           nsets, repeats);\n");
    for (size_t i = 0; i < c->n_params; i++) {
        const ch_ck_param *p = &c->params[i];
        if (!is_buf(p))
            continue;
        if (dev)
            ch_strbuf_addf(o,
                           "    for (int ch_s = 0; ch_s < nsets; ch_s++)\n"
                           "        CH_CHECK(cudaFree(%s_set[ch_s]));\n",
                           p->name);
        else
            ch_strbuf_addf(o,
                           "    for (int ch_s = 0; ch_s < nsets; ch_s++)\n"
                           "        free(%s_set[ch_s]);\n",
                           p->name);
        ch_strbuf_addf(o, "    free(%s_in);\n", p->name);
    }
    ch_strbuf_adds(o, "    return 0;\n}\n\n");

    ch_strbuf_adds(o, "int main(int argc, char **argv)\n{\n"
                      "    if (argc >= 4 && strcmp(argv[1], \"run\") == 0) {\n"
                      "        int nsets = atoi(argv[3]);\n"
                      "        if (nsets < 1 || nsets > 64) {\n"
                      "            fprintf(stderr, \"ch-scaffold: NSETS must be 1..64\\n\");\n"
                      "            return 2;\n"
                      "        }\n"
                      "        return ch_run(argv[2], nsets);\n"
                      "    }\n"
                      "    if (argc >= 6 && strcmp(argv[1], \"time\") == 0) {\n"
                      "        int nsets = atoi(argv[3]), warmup = atoi(argv[4]), repeats = "
                      "atoi(argv[5]);\n"
                      "        if (nsets < 1 || nsets > 64 || warmup < 0 || repeats < 1) {\n"
                      "            fprintf(stderr, \"ch-scaffold: bad timing arguments\\n\");\n"
                      "            return 2;\n"
                      "        }\n"
                      "        return ch_time(argv[2], nsets, warmup, repeats);\n"
                      "    }\n"
                      "    fprintf(stderr, \"usage: %s run DIR NSETS | time DIR NSETS WARMUP "
                      "REPEATS\\n\", argv[0]);\n"
                      "    return 2;\n}\n");
    return 0;
}
