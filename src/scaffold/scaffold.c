/* Scaffold generation (paper Fig. 4): the self-contained CUDA program that runs one candidate
 * launcher on inputs read from typed binary files and writes every buffer back, plus its timing
 * mode. The same buffer-file code is emitted into the reference program (src/verify/reference.c),
 * so both sides of a comparison read and write identical files. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ch/scaffold.h"
#include "scaffold_internal.h"

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

/* "RET NAME_SUFFIX(<params>)" with the launcher's parameter list. */
static char *proto_named(const ch_checklist *c, const char *ret, const char *suffix)
{
    ch_strbuf sb;
    ch_strbuf_init(&sb);
    ch_strbuf_addf(&sb, "%s %s_%s(", ret, c->name, suffix);
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

char *ch_scaffold_launcher_proto(const ch_checklist *c)
{
    return proto_named(c, "void", "launcher");
}

char *ch_scaffold_device_proto(const ch_checklist *c)
{
    return proto_named(c, "int", "device_launcher");
}

void ch_scaffold_candidate_includes(ch_strbuf *out)
{
    ch_strbuf_adds(out, "#include <cuda_runtime.h>\n#include <pthread.h>\n#include <stdio.h>\n"
                        "#include <stdlib.h>\n#include <string.h>\n#include <time.h>\n");
}

void ch_scaffold_signatures(const ch_checklist *c, ch_strbuf *out)
{
    ch_scaffold_candidate_includes(out);
    char *proto = ch_scaffold_launcher_proto(c);
    ch_strbuf_addf(out,
                   "/* Forced in front of the candidate by the verifier (nvcc -include): the "
                   "entry points\n * the scaffold links against, so that a definition with "
                   "another signature is a\n * compile error here rather than a wrong call "
                   "at run time. */\nextern \"C\" %s;\n",
                   proto);
    free(proto);
    if (!c->device) {
        char *dproto = ch_scaffold_device_proto(c);
        ch_strbuf_addf(out, "extern \"C\" %s;\n", dproto);
        free(dproto);
    }
}

void ch_scaffold_stable_code(ch_strbuf *out)
{
    ch_strbuf_adds(
        out,
        "/* When to stop timing: after max_n samples; after CH_TIME_BUDGET_MS of timed calls\n"
        " * once one sample is taken, even below min_n (a slow call must not hold the GPU\n"
        " * alone for min_n of them: every other build waits meanwhile); never before min_n\n"
        " * otherwise; else once the last CH_STABLE_K samples lie within CH_STABLE_TOL of\n"
        " * their median ((max - min) <= tol * median), so the median of all samples no\n"
        " * longer moves. Returns 0 to go on, else why it stopped: 1 stable, 2 max_n\n"
        " * reached, 3 time budget spent (4, hopeless, is time mode's own: ch_hopeless).\n"
        " * Valid C and C++.\n"
        " * The whole call (ch_call_stable) copies through PCIe and host memory, whose speed\n"
        " * varies by several percent from call to call: within 2% its samples rarely settle,\n"
        " * so its loop ran to max_n (100 calls, over a second with the GPU held alone, every\n"
        " * other build waiting), for a time whose uses (the dispatcher's size choice, a\n"
        " * ranking without resident kernels) need it within 5%: its window is that wide and\n"
        " * its budget CH_CALL_BUDGET_MS. */\n"
        "#define CH_STABLE_K        5\n"
        "#define CH_STABLE_TOL      0.02\n"
        "#define CH_TIME_BUDGET_MS  3000.0\n"
        "#define CH_CALL_STABLE_TOL 0.05\n"
        "#define CH_CALL_BUDGET_MS  400.0\n"
        "/* time mode's leak check: a growth of the device memory held this large, twice */\n"
        "#define CH_LEAK_MIN_BYTES  (8LL << 20)\n"
        "\n"
        "static inline int ch_stable_within(const double *ms, int n, int min_n, int max_n, double "
        "spent_ms,\n"
        "                                   double tol, double budget_ms)\n"
        "{\n"
        "    if (n >= max_n)\n"
        "        return 2;\n"
        "    if (n < 1)\n"
        "        return 0;\n"
        "    if (spent_ms >= budget_ms)\n"
        "        return 3;\n"
        "    if (n < min_n || n < CH_STABLE_K)\n"
        "        return 0;\n"
        "    double w[CH_STABLE_K];\n"
        "    for (int i = 0; i < CH_STABLE_K; i++) {\n"
        "        /* insertion sort of the window */\n"
        "        double v = ms[n - CH_STABLE_K + i];\n"
        "        int j = i;\n"
        "        for (; j > 0 && w[j - 1] > v; j--)\n"
        "            w[j] = w[j - 1];\n"
        "        w[j] = v;\n"
        "    }\n"
        "    double med = w[CH_STABLE_K / 2];\n"
        "    return med > 0 && w[CH_STABLE_K - 1] - w[0] <= tol * med ? 1 : 0;\n"
        "}\n"
        "\n"
        "static inline int ch_stable(const double *ms, int n, int min_n, int max_n, double "
        "spent_ms)\n"
        "{\n"
        "    return ch_stable_within(ms, n, min_n, max_n, spent_ms, CH_STABLE_TOL, "
        "CH_TIME_BUDGET_MS);\n"
        "}\n"
        "\n"
        "static inline int ch_call_stable(const double *ms, int n, int min_n, int max_n, double "
        "spent_ms)\n"
        "{\n"
        "    return ch_stable_within(ms, n, min_n, max_n, spent_ms, CH_CALL_STABLE_TOL,\n"
        "                            CH_CALL_BUDGET_MS);\n"
        "}\n"
        "\n"
        "static const char *ch_stop_name(int why)\n"
        "{\n"
        "    return why == 1   ? \"stable\"\n"
        "           : why == 2 ? \"max\"\n"
        "           : why == 3 ? \"budget\"\n"
        "           : why == 4 ? \"hopeless\"\n"
        "                      : \"?\";\n"
        "}\n"
        "\n"
        "/* Whether the first timed sample ms of a loop (n samples taken, this one included)\n"
        " * says the candidate cannot win: over bound_ms (0: no bound), the verifier's\n"
        " * \"cannot win\" time for the whole call. Only the first sample counts: a candidate\n"
        " * under the bound is timed as it would be without one. */\n"
        "static int ch_hopeless(double ms, int n, double bound_ms)\n"
        "{\n"
        "    return bound_ms > 0 && n == 1 && ms > bound_ms;\n"
        "}\n");
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

void ch_scaffold_add_extent(ch_strbuf *out, const char *e)
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
        ch_scaffold_add_extent(o, p->extent ? p->extent : "1");
        ch_strbuf_addf(o, "), \"%s\");\n", p->name);
    }
}

/* The call of the launcher with buffer expressions `<name><suffix>`. */
static void emit_call_of(ch_strbuf *o, const ch_checklist *c, const char *lhs, const char *fn,
                         const char *suffix, const char *idx, const char *indent)
{
    ch_strbuf_addf(o, "%s%s%s_%s(", indent, lhs, c->name, fn);
    for (size_t i = 0; i < c->n_params; i++) {
        const ch_ck_param *p = &c->params[i];
        ch_strbuf_addf(o, "%s%s", i ? ", " : "", p->name);
        if (is_buf(p))
            ch_strbuf_addf(o, "%s%s", suffix, idx);
    }
    ch_strbuf_adds(o, ");\n");
}

static void emit_call(ch_strbuf *o, const ch_checklist *c, const char *suffix, const char *idx,
                      const char *indent)
{
    emit_call_of(o, c, "", "launcher", suffix, idx, indent);
}

/* NSETS copies of every buffer for time mode, named `<P><suffix>[s]`, filled from P_in: in
 * device memory (cudaMalloc + copy) or host memory. Out-only buffers hold P_in's zeros. */
static void emit_time_sets(ch_strbuf *o, const ch_checklist *c, const char *suffix, int on_device,
                           const char *indent)
{
    for (size_t i = 0; i < c->n_params; i++) {
        const ch_ck_param *p = &c->params[i];
        if (!is_buf(p))
            continue;
        const char *t = ctype(p->elem, 1), *nm = p->name;
        ch_strbuf_addf(o, "%sstd::vector<%s *> %s%s(nsets);\n", indent, t, nm, suffix);
        ch_strbuf_addf(o, "%sfor (int ch_s = 0; ch_s < nsets; ch_s++) {\n", indent);
        if (on_device)
            ch_strbuf_addf(o,
                           "%s    CH_CHECK(cudaMalloc((void **)&%s%s[ch_s], %s_bytes));\n"
                           "%s    CH_CHECK(cudaMemcpy(%s%s[ch_s], %s_in, %s_bytes, "
                           "cudaMemcpyHostToDevice));\n",
                           indent, nm, suffix, nm, indent, nm, suffix, nm, nm);
        else
            ch_strbuf_addf(o,
                           "%s    %s%s[ch_s] = (%s *)malloc(%s_bytes);\n"
                           "%s    if (!%s%s[ch_s]) {\n"
                           "%s        fprintf(stderr, \"ch-scaffold: out of host memory\\n\");\n"
                           "%s        return 2;\n"
                           "%s    }\n"
                           "%s    memcpy(%s%s[ch_s], %s_in, %s_bytes);\n",
                           indent, nm, suffix, t, nm, indent, nm, suffix, indent, indent, indent,
                           indent, nm, suffix, nm, nm);
        ch_strbuf_addf(o, "%s}\n", indent);
    }
}

static void emit_free_sets(ch_strbuf *o, const ch_checklist *c, const char *suffix, int on_device,
                           const char *indent)
{
    for (size_t i = 0; i < c->n_params; i++) {
        const ch_ck_param *p = &c->params[i];
        if (!is_buf(p))
            continue;
        ch_strbuf_addf(o, "%sfor (int ch_s = 0; ch_s < nsets; ch_s++)\n", indent);
        if (on_device)
            ch_strbuf_addf(o, "%s    CH_CHECK(cudaFree(%s%s[ch_s]));\n", indent, p->name, suffix);
        else
            ch_strbuf_addf(o, "%s    free(%s%s[ch_s]);\n", indent, p->name, suffix);
    }
}

/* The check of a device launcher's return value (int ch_rc, in a loop body of time or run mode):
 * a CUDA error it returns ends the program with status 3. */
static void emit_device_launcher_rc(ch_strbuf *o, const ch_checklist *c)
{
    ch_strbuf_addf(o,
                   "            if (ch_rc != 0) {\n"
                   "                fprintf(stderr, \"ch-scaffold: %s_device_launcher returned %%d "
                   "(%%s)\\n\", ch_rc,\n"
                   "                        cudaGetErrorString((cudaError_t)ch_rc));\n"
                   "                return 3;\n"
                   "            }\n",
                   c->name);
}

/* Run mode, host-pointer entries whose candidate defines NAME_device_launcher: the same inputs
 * through the device launcher, in device buffers of its own (the same ones for every set, as
 * the launcher's), its buffers written to DIR/s/P.dev.out.bin and judged like the launcher's:
 * the kernels that time mode times alone are checked, not only the whole call. */
static void emit_run_device_launcher(ch_strbuf *o, const ch_checklist *c)
{
    ch_strbuf_addf(o,
                   "        /* the device launcher on the same inputs (its own device buffers) */\n"
                   "        if (%s_device_launcher != NULL) {\n",
                   c->name);
    for (size_t i = 0; i < c->n_params; i++) {
        const ch_ck_param *p = &c->params[i];
        if (!is_buf(p))
            continue;
        const char *t = ctype(p->elem, 1), *nm = p->name;
        ch_strbuf_addf(o,
                       "            if (ch_s == 0)\n"
                       "                CH_CHECK(cudaMalloc((void **)&%s_dl, sizeof(%s) * (%s_n ? "
                       "%s_n : 1)));\n",
                       nm, t, nm, nm);
        if (is_input(p))
            ch_strbuf_addf(o,
                           "            ch_buf_read_into(ch_path(ch_pb, sizeof ch_pb, ch_sd, "
                           "\"%s\", \".bin\"), \"%s\", sizeof(%s), %s_h, %s_n);\n"
                           "            CH_CHECK(cudaMemcpy(%s_dl, %s_h, sizeof(%s) * %s_n, "
                           "cudaMemcpyHostToDevice));\n",
                           nm, ch_scalar_tag(p->elem), t, nm, nm, nm, nm, t, nm);
        else
            ch_strbuf_addf(o,
                           "            CH_CHECK(cudaMemset(%s_dl, 0x%02X, sizeof(%s) * %s_n));\n",
                           nm, poison_byte(p), t, nm);
    }
    ch_strbuf_adds(o, "            CH_CHECK(cudaDeviceSynchronize());\n");
    emit_call_of(o, c, "int ch_rc = ", "device_launcher", "_dl", "", "            ");
    ch_strbuf_adds(o, "            CH_CHECK(cudaDeviceSynchronize());\n");
    emit_device_launcher_rc(o, c);
    for (size_t i = 0; i < c->n_params; i++) {
        const ch_ck_param *p = &c->params[i];
        if (!is_buf(p))
            continue;
        ch_strbuf_addf(o,
                       "            CH_CHECK(cudaMemcpy(%s_snap, %s_dl, sizeof(*%s_dl) * %s_n, "
                       "cudaMemcpyDeviceToHost));\n"
                       "            ch_buf_write(ch_path(ch_pb, sizeof ch_pb, ch_sd, \"%s\", "
                       "\".dev.out.bin\"), \"%s\", sizeof(*%s_snap), %s_snap, %s_n);\n",
                       p->name, p->name, p->name, p->name, p->name, ch_scalar_tag(p->elem), p->name,
                       p->name, p->name);
    }
    ch_strbuf_adds(o, "        }\n");
}

/* Time mode's device-resident kernel timing (host-pointer entries whose candidate defines
 * NAME_device_launcher): the sets live on the device before the first call, so CUDA events
 * around each call measure the kernels alone. Prints "ch-kernel: kernel_ms=...". */
static void emit_time_device_launcher(ch_strbuf *o, const ch_checklist *c)
{
    ch_strbuf_addf(o,
                   "    /* Kernel time: %s_device_launcher on device-resident sets (no copies "
                   "inside the\n     * events), when the candidate defines it. */\n"
                   "    if (%s_device_launcher != NULL) {\n",
                   c->name, c->name);
    emit_time_sets(o, c, "_dev", 1, "        ");
    ch_strbuf_adds(o,
                   "        CH_CHECK(cudaDeviceSynchronize());\n"
                   "        std::vector<double> ch_kernel_ms;\n"
                   "        int ch_why = 0;\n"
                   "        double ch_begin = ch_now_ms();\n"
                   "        for (int ch_r = -warmup;; ch_r++) {\n"
                   "            /* warmup ends early once it spent the budget (a slow call) */\n"
                   "            if (ch_r < 0 && ch_now_ms() - ch_begin >= CH_TIME_BUDGET_MS)\n"
                   "                ch_r = 0;\n"
                   "            if (ch_r == 0)\n"
                   "                ch_begin = ch_now_ms();\n"
                   "            if (ch_r >= 0 && (ch_why = ch_stable(ch_kernel_ms.data(), "
                   "(int)ch_kernel_ms.size(),\n"
                   "                                                 min_repeats, max_repeats,\n"
                   "                                                 ch_now_ms() - ch_begin)) != "
                   "0)\n"
                   "                break;\n"
                   "            int ch_s = (ch_r + warmup) % nsets;\n"
                   "            CH_CHECK(cudaEventRecord(ch_start, 0));\n");
    emit_call_of(o, c, "int ch_rc = ", "device_launcher", "_dev", "[ch_s]", "            ");
    ch_strbuf_adds(o, "            CH_CHECK(cudaEventRecord(ch_stop, 0));\n"
                      "            CH_CHECK(cudaDeviceSynchronize());\n");
    emit_device_launcher_rc(o, c);
    ch_strbuf_adds(
        o, "            CH_CHECK(cudaGetLastError());\n"
           "            float ch_ms = 0;\n"
           "            CH_CHECK(cudaEventElapsedTime(&ch_ms, ch_start, ch_stop));\n"
           "            if (ch_r >= 0)\n"
           "                ch_kernel_ms.push_back(ch_ms);\n"
           "            /* the kernels alone over the bound: the whole call is slower still */\n"
           "            if (ch_r >= 0 && ch_hopeless(ch_ms, (int)ch_kernel_ms.size(), "
           "bound_ms)) {\n"
           "                ch_why = 4;\n"
           "                ch_kernels_hopeless = 1;\n"
           "                break;\n"
           "            }\n"
           "        }\n"
           "        printf(\"ch-kernel: kernel_ms=%.6f min_kernel_ms=%.6f repeats=%d "
           "stop=%s\\n\",\n"
           "               ch_median(ch_kernel_ms),\n"
           "               *std::min_element(ch_kernel_ms.begin(), ch_kernel_ms.end()),\n"
           "               (int)ch_kernel_ms.size(), ch_stop_name(ch_why));\n"
           "        if (ch_kernels_hopeless)\n"
           "            printf(\"ch-hopeless: loop=kernel sample_ms=%.6f "
           "bound_ms=%.6f\\n\",\n"
           "                   ch_kernel_ms[0], bound_ms);\n");
    emit_free_sets(o, c, "_dev", 1, "        ");
    ch_strbuf_adds(o, "    }\n");
}

/* The device memory this program holds, for time mode's leak check. The program is linked with
 * the allocation functions wrapped (ch_scaffold_link_args): every call of
 * them from the candidate's object, the scaffold and the runtime goes through these, which count
 * the bytes each live block holds. cudaMemGetInfo counts the whole device, so another process
 * (a parallel build on another cache, a user's job) allocating during the timed calls looked
 * like a leak of the candidate's and refused honest kernels (found on the H100, session 15).
 * ch_free_bytes is a large constant less the bytes held, so the check reads as before. */
static const char *const wrapped[] = {
    "cudaMalloc",      "cudaMallocManaged", "cudaMallocPitch", "cudaMalloc3D",
    "cudaMallocAsync", "cudaFree",          "cudaFreeAsync",   NULL};

void ch_scaffold_link_args(ch_strvec *argv)
{
    for (size_t i = 0; wrapped[i]; i++) {
        ch_strvec_push(argv, "-Xlinker");
        ch_strvec_push_owned(argv, ch_xasprintf("--wrap=%s", wrapped[i]));
    }
}

static void emit_held_code(ch_strbuf *o)
{
    ch_strbuf_adds(
        o,
        "/* Device memory held through the allocation functions, which the link wraps. */\n"
        "#include <mutex>\n#include <unordered_map>\n"
        "static std::mutex ch_held_lock;\n"
        "static std::unordered_map<void *, long long> *ch_held_blocks;\n"
        "static long long ch_held_bytes;\n"
        "static void ch_held_add(cudaError_t e, void *p, long long n)\n{\n"
        "    if (e != cudaSuccess || !p)\n        return;\n"
        "    std::lock_guard<std::mutex> g(ch_held_lock);\n"
        "    if (!ch_held_blocks)\n"
        "        ch_held_blocks = new std::unordered_map<void *, long long>();\n"
        "    (*ch_held_blocks)[p] = n;\n    ch_held_bytes += n;\n}\n"
        "static void ch_held_drop(cudaError_t e, void *p)\n{\n"
        "    std::lock_guard<std::mutex> g(ch_held_lock);\n"
        "    if (e != cudaSuccess || !p || !ch_held_blocks)\n        return;\n"
        "    auto it = ch_held_blocks->find(p);\n"
        "    if (it != ch_held_blocks->end()) {\n"
        "        ch_held_bytes -= it->second;\n        ch_held_blocks->erase(it);\n    }\n}\n"
        "extern \"C\" {\n"
        "cudaError_t __real_cudaMalloc(void **, size_t);\n"
        "cudaError_t __wrap_cudaMalloc(void **p, size_t n)\n{\n"
        "    cudaError_t e = __real_cudaMalloc(p, n);\n"
        "    ch_held_add(e, p ? *p : 0, (long long)n);\n    return e;\n}\n"
        "cudaError_t __real_cudaMallocManaged(void **, size_t, unsigned);\n"
        "cudaError_t __wrap_cudaMallocManaged(void **p, size_t n, unsigned f)\n{\n"
        "    cudaError_t e = __real_cudaMallocManaged(p, n, f);\n"
        "    ch_held_add(e, p ? *p : 0, (long long)n);\n    return e;\n}\n"
        "cudaError_t __real_cudaMallocPitch(void **, size_t *, size_t, size_t);\n"
        "cudaError_t __wrap_cudaMallocPitch(void **p, size_t *pitch, size_t w, size_t h)\n{\n"
        "    cudaError_t e = __real_cudaMallocPitch(p, pitch, w, h);\n"
        "    ch_held_add(e, p ? *p : 0, pitch ? (long long)(*pitch * h) : 0);\n    return e;\n}\n"
        "cudaError_t __real_cudaMalloc3D(cudaPitchedPtr *, cudaExtent);\n"
        "cudaError_t __wrap_cudaMalloc3D(cudaPitchedPtr *pp, cudaExtent x)\n{\n"
        "    cudaError_t e = __real_cudaMalloc3D(pp, x);\n"
        "    ch_held_add(e, pp ? pp->ptr : 0,\n"
        "                pp ? (long long)(pp->pitch * x.height * x.depth) : 0);\n"
        "    return e;\n}\n"
        "cudaError_t __real_cudaMallocAsync(void **, size_t, cudaStream_t);\n"
        "cudaError_t __wrap_cudaMallocAsync(void **p, size_t n, cudaStream_t s)\n{\n"
        "    cudaError_t e = __real_cudaMallocAsync(p, n, s);\n"
        "    ch_held_add(e, p ? *p : 0, (long long)n);\n    return e;\n}\n"
        "cudaError_t __real_cudaFree(void *);\n"
        "cudaError_t __wrap_cudaFree(void *p)\n{\n"
        "    cudaError_t e = __real_cudaFree(p);\n    ch_held_drop(e, p);\n    return e;\n}\n"
        "cudaError_t __real_cudaFreeAsync(void *, cudaStream_t);\n"
        "cudaError_t __wrap_cudaFreeAsync(void *p, cudaStream_t s)\n{\n"
        "    cudaError_t e = __real_cudaFreeAsync(p, s);\n    ch_held_drop(e, p);\n"
        "    return e;\n}\n"
        "}\n\n"
        "/* A large constant less the device memory held: what the leak check compares. */\n"
        "static long long ch_free_bytes(void)\n{\n"
        "    std::lock_guard<std::mutex> g(ch_held_lock);\n"
        "    return (1LL << 60) - ch_held_bytes;\n}\n\n");
}

/* Time mode's leak check, after the timed calls (attacks6/28: a launcher that never frees its
 * scratch passes every test, and a program calling it in a loop runs the device out of memory).
 * The device memory the program holds after the timed calls against the warmup's (ch_free_bytes,
 * emit_held_code): a growth of CH_LEAK_MIN_BYTES or more is checked again over as many calls,
 * and the second growth confirms it ("ch-leak:" line): a block a call keeps for the next one
 * grows once. Small leaks a call are let through: this catches the leaks that end programs. */
static void emit_time_leak_check(ch_strbuf *o, const ch_checklist *c, const char *whole)
{
    ch_strbuf_adds(o, "    CH_CHECK(cudaDeviceSynchronize());\n"
                      "    long long ch_free1 = ch_free_bytes();\n"
                      "    int ch_calls = (int)ch_wall_ms.size();\n"
                      "    if (ch_calls >= 2 && ch_free0 >= 0 && ch_free1 >= 0 &&\n"
                      "        ch_free0 - ch_free1 >= CH_LEAK_MIN_BYTES) {\n"
                      "        for (int ch_r = 0; ch_r < ch_calls; ch_r++) {\n"
                      "            int ch_s = ch_r % nsets;\n");
    emit_call_of(o, c, "", whole, "_set", "[ch_s]", "            ");
    ch_strbuf_adds(o, "        }\n"
                      "        CH_CHECK(cudaDeviceSynchronize());\n"
                      "        long long ch_free2 = ch_free_bytes();\n"
                      "        if (ch_free2 >= 0 && ch_free1 - ch_free2 >= CH_LEAK_MIN_BYTES)\n"
                      "            printf(\"ch-leak: calls=%d lost_bytes=%lld\\n\", 2 * ch_calls,\n"
                      "                   ch_free0 - ch_free2);\n"
                      "    }\n");
}

/* Time mode's device set-up, before the gate: the CUDA context (and, for host-pointer entries,
 * the runtime's probe and staging) is made while the GPU is shared, so the exclusive hold
 * covers only the timed calls; a context creation costs 0.3 s alone and many times that when
 * builds run at once (the driver serialises them). Host-pointer entries measure it (issue 14:
 * the device's set-up alone, as the dispatcher's first call pays it) for the "ch-cold:" line. */
static void emit_time_setup(ch_strbuf *o, int dev)
{
    if (dev) {
        ch_strbuf_adds(o, "    /* the CUDA context, made before the gate (errors show at the "
                          "first checked call) */\n"
                          "    cudaFree(0);\n"
                          "    cudaGetLastError();\n");
        return;
    }
    ch_strbuf_adds(o, "    /* the device's set-up alone, before the gate */\n"
                      "    double ch_cold_t0 = ch_now_ms();\n"
                      "    ch_device_setup();\n"
                      "    double ch_setup_ms = ch_now_ms() - ch_cold_t0;\n");
}

/* Time mode's first call (host-pointer entries, issue 14): what a process's first call pays
 * besides a warm one, measured before anything else in the process calls the entry. The
 * device's set-up alone was measured before the gate (emit_time_setup); here the first whole
 * call on set 0 (the entry's device buffers, its module, its stream). Prints "ch-cold:
 * setup_ms=... first_call_ms=..."; the verifier subtracts the warm median from the first
 * call. */
static void emit_time_first_call(ch_strbuf *o, const ch_checklist *c)
{
    ch_strbuf_adds(o, "    /* The first whole call in this process. */\n"
                      "    ch_cold_t0 = ch_now_ms();\n");
    emit_call_of(o, c, "", "ch_whole_call", "_set", "[0]", "    ");
    ch_strbuf_adds(o, "    CH_CHECK(cudaDeviceSynchronize());\n"
                      "    double ch_first_call_ms = ch_now_ms() - ch_cold_t0;\n"
                      "    printf(\"ch-cold: setup_ms=%.6f first_call_ms=%.6f\\n\", ch_setup_ms,\n"
                      "           ch_first_call_ms);\n");
}

/* After the timing (host-pointer entries with a device launcher): both entry points once more
 * on fresh copies of DIR/0; their outputs must agree (exit 5 otherwise), so a device launcher
 * that stops working when called repeatedly cannot win on time. The tolerance is loose (ten
 * times the entry's, against the largest magnitude): two code paths of one candidate. */
static void emit_time_agreement(ch_strbuf *o, const ch_checklist *c)
{
    ch_strbuf_addf(o,
                   "    /* the device launcher still computes what the launcher does (kernels\n"
                   "     * over the bound cannot win on time: not worth two more calls) */\n"
                   "    if (!ch_kernels_hopeless && %s_device_launcher != NULL) {\n",
                   c->name);
    for (size_t i = 0; i < c->n_params; i++) {
        const ch_ck_param *p = &c->params[i];
        if (!is_buf(p))
            continue;
        const char *t = ctype(p->elem, 1), *nm = p->name;
        ch_strbuf_addf(
            o,
            "        %s *%s_a = (%s *)malloc(%s_bytes), *%s_c = (%s *)malloc(%s_bytes);\n"
            "        %s *%s_b = NULL;\n"
            "        if (!%s_a || !%s_c) {\n"
            "            fprintf(stderr, \"ch-scaffold: out of host memory\\n\");\n"
            "            return 2;\n"
            "        }\n"
            "        memcpy(%s_a, %s_in, %s_bytes);\n"
            "        CH_CHECK(cudaMalloc((void **)&%s_b, %s_bytes));\n"
            "        CH_CHECK(cudaMemcpy(%s_b, %s_in, %s_bytes, cudaMemcpyHostToDevice));\n",
            t, nm, t, nm, nm, t, nm, t, nm, nm, nm, nm, nm, nm, nm, nm, nm, nm, nm);
    }
    emit_call(o, c, "_a", "", "        ");
    ch_strbuf_adds(o, "        CH_CHECK(cudaDeviceSynchronize());\n");
    emit_call_of(o, c, "int ch_rc = ", "device_launcher", "_b", "", "        ");
    ch_strbuf_addf(
        o,
        "        CH_CHECK(cudaDeviceSynchronize());\n"
        "        if (ch_rc != 0) {\n"
        "            fprintf(stderr, \"ch-scaffold: %s_device_launcher returned %%d\\n\", "
        "ch_rc);\n"
        "            return 3;\n"
        "        }\n",
        c->name);
    for (size_t i = 0; i < c->n_params; i++) {
        const ch_ck_param *p = &c->params[i];
        if (!is_buf(p))
            continue;
        const char *nm = p->name;
        if (p->dir != CH_DIR_IN) {
            double tol = ch_scalar_is_float(p->elem) ? 10 * (p->rtol > 0 ? p->rtol : 1e-3) : 0;
            ch_strbuf_addf(
                o,
                "        CH_CHECK(cudaMemcpy(%s_c, %s_b, %s_bytes, "
                "cudaMemcpyDeviceToHost));\n"
                "        if (size_t ch_at = ch_disagree(%s_c, %s_a, ch_count_%s, %.9g)) {\n"
                "            fprintf(stderr, \"ch-scaffold: after timing, "
                "%s_device_launcher and %s_launcher disagree on %s[%%zu] (%%g vs "
                "%%g)\\n\",\n"
                "                    ch_at - 1, (double)%s_c[ch_at - 1], "
                "(double)%s_a[ch_at - 1]);\n"
                "            return 5;\n"
                "        }\n",
                nm, nm, nm, nm, nm, nm, tol, c->name, c->name, nm, nm, nm);
        }
        ch_strbuf_addf(
            o, "        free(%s_a);\n        free(%s_c);\n        CH_CHECK(cudaFree(%s_b));\n", nm,
            nm, nm);
    }
    ch_strbuf_adds(o, "    }\n");
}

/* Time mode: reads DIR/0 once, times the device launcher when there is one, then the whole
 * launcher call on NSETS rotated copies, each until ch_stable says the median is settled. */
/* The gate of time mode (ch_proc_opts.gate): the program has started, read its inputs, made
 * its host copies and set the device up (emit_time_setup), and no call of the entry has run
 * yet; the verifier takes the GPU alone when it reads CH_SCAFFOLD_READY and answers with one
 * byte on stdin, and perhaps a line with a fresher bound (ch_proc_opts.gate_reply). Only what
 * follows is timed, so only that needs the GPU to itself. stdio, not read(2): the candidate shares
 * this unit. */
static void emit_time_gate(ch_strbuf *o)
{
    ch_strbuf_adds(
        o, "    if (ch_wait_for_go() != 0)\n"
           "        return 2;\n"
           "    /* after the byte, the bound again as the verifier knows it now (candidates timed\n"
           "     * while this one waited for the GPU): the smaller holds */\n"
           "    char ch_reply[64];\n"
           "    if (fgets(ch_reply, sizeof ch_reply, stdin)) {\n"
           "        double ch_b = atof(ch_reply);\n"
           "        if (ch_b > 0 && (bound_ms <= 0 || ch_b < bound_ms))\n"
           "            bound_ms = ch_b;\n"
           "    }\n");
}

static void emit_time_mode(ch_strbuf *o, const ch_checklist *c)
{
    int dev = c->device;
    ch_strbuf_adds(o, "static double ch_median(std::vector<double> v)\n{\n"
                      "    std::sort(v.begin(), v.end());\n"
                      "    size_t n = v.size();\n"
                      "    return n == 0 ? 0.0 : (n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / "
                      "2]));\n}\n\n");
    ch_scaffold_stable_code(o);
    if (!dev)
        ch_strbuf_adds(
            o, "\n/* 1 + the first index where a and b differ by more than tol times the largest\n"
               " * finite magnitude of b (0: they agree); tol 0: exactly. Where b is NaN or\n"
               " * infinite, a must be the same in kind, as the correctness stage judges a\n"
               " * reference's own NaN and Inf: an entry whose inputs give NaN (the Cholesky\n"
               " * factor of a matrix that is not positive definite) still agrees with itself,\n"
               " * and a NaN where b is finite never agrees. */\n"
               "template <typename T>\n"
               "static size_t ch_disagree(const T *a, const T *b, size_t n, double tol)\n"
               "{\n"
               "    double scale = 0;\n"
               "    for (size_t i = 0; i < n; i++) {\n"
               "        double m = (double)b[i] < 0 ? -(double)b[i] : (double)b[i];\n"
               "        if (m - m == 0 && m > scale) /* finite: NaN and Inf give NaN */\n"
               "            scale = m;\n"
               "    }\n"
               "    for (size_t i = 0; i < n; i++) {\n"
               "        double x = (double)a[i], y = (double)b[i];\n"
               "        if (!(y - y == 0)) {\n"
               "            if (y == y ? x == y : x != x)\n"
               "                continue;\n"
               "            return i + 1;\n"
               "        }\n"
               "        double d = x - y;\n"
               "        if (!((d < 0 ? -d : d) <= tol * scale))\n"
               "            return i + 1;\n"
               "    }\n"
               "    return 0;\n"
               "}\n");
    if (!dev) {
        ch_strbuf_addc(o, '\n');
        ch_scaffold_runtime_call(o, c);
    }
    ch_strbuf_addf(
        o,
        "\n/* time mode: NSETS copies of the inputs in separate buffers, used in turn so that the\n"
        " * data of one call is not in the L2 for the next. %s\n"
        " * The launcher call is timed with CUDA events on the default stream (%s) and with the\n"
        " * wall clock up to a device synchronisation: that is the whole call. Each loop runs\n"
        " * WARMUP untimed calls, then between MIN and MAX timed ones (ch_stable). */\n",
        dev ? "Device-pointer convention: the launcher's events time its kernels."
            : "First, when the candidate has a device launcher, its\n"
              " * kernels alone on device-resident sets (\"ch-kernel:\" line).",
        dev ? "the kernels it launches" : "copies and kernels");
    ch_strbuf_adds(o,
                   "static int ch_time(const char *dir, int nsets, int warmup, int max_repeats,\n"
                   "                   int min_repeats, double bound_ms)\n{\n"
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
                       "    if (!%s_in) {\n"
                       "        fprintf(stderr, \"ch-scaffold: out of host memory\\n\");\n"
                       "        return 2;\n"
                       "    }\n",
                       nm, t, nm, nm, t, nm, t, nm, nm);
        if (is_input(p))
            ch_strbuf_addf(o,
                           "    ch_buf_read_into(ch_path(ch_pb, sizeof ch_pb, ch_sd, \"%s\", "
                           "\".bin\"), \"%s\", sizeof(%s), %s_in, ch_count_%s);\n",
                           nm, ch_scalar_tag(p->elem), t, nm, nm);
    }
    /* host memory: the sets exist before the first CUDA call, which is timed alone */
    if (!dev)
        emit_time_sets(o, c, "_set", 0, "    ");
    emit_time_setup(o, dev);
    emit_time_gate(o);
    if (!dev)
        emit_time_first_call(o, c);
    ch_strbuf_adds(o, "    cudaEvent_t ch_start, ch_stop;\n"
                      "    CH_CHECK(cudaEventCreate(&ch_start));\n"
                      "    CH_CHECK(cudaEventCreate(&ch_stop));\n"
                      "    /* the kernels' first sample was over the bound (ch_hopeless): nothing\n"
                      "     * more is timed */\n"
                      "    int ch_kernels_hopeless = 0;\n");
    if (!dev)
        emit_time_device_launcher(o, c);
    /* host-pointer entries: what the dispatcher runs (the runtime when the candidate has a
     * device launcher and libch_runtime.a is linked), so that its threshold comes from it */
    const char *whole = dev ? "launcher" : "ch_whole_call";
    ch_strbuf_addf(o,
                   "    /* The whole call, as the user's program makes it. */\n"
                   "    const char *ch_call_path = %s;\n",
                   dev ? "\"launcher\"" : "ch_rt_path() ? \"runtime\" : \"launcher\"");
    if (dev)
        emit_time_sets(o, c, "_set", 1, "    ");
    ch_strbuf_adds(o, "    CH_CHECK(cudaDeviceSynchronize());\n"
                      "    /* warmup, ended early once it spent the whole call's budget (a slow\n"
                      "     * call); none after hopeless kernels */\n"
                      "    double ch_warm0 = ch_now_ms();\n"
                      "    for (int ch_r = 0;\n"
                      "         !ch_kernels_hopeless && ch_r < warmup && ch_now_ms() - ch_warm0 < "
                      "CH_CALL_BUDGET_MS;\n"
                      "         ch_r++) {\n"
                      "        int ch_s = ch_r % nsets;\n");
    emit_call_of(o, c, "", whole, "_set", "[ch_s]", "        ");
    ch_strbuf_adds(o, "    }\n    CH_CHECK(cudaGetLastError());\n"
                      "    CH_CHECK(cudaDeviceSynchronize());\n"
                      "    /* the leak check's baseline: after the warmup, which grew every "
                      "buffer the\n     * calls keep */\n"
                      "    long long ch_free0 = ch_free_bytes();\n"
                      "    std::vector<double> ch_event_ms, ch_wall_ms;\n"
                      "    int ch_why = ch_kernels_hopeless ? 4 : 0;\n"
                      "    double ch_begin = ch_now_ms();\n"
                      "    for (int ch_r = 0;\n"
                      "         ch_why == 0 && (ch_why = ch_call_stable(ch_wall_ms.data(), "
                      "(int)ch_wall_ms.size(), min_repeats,\n"
                      "                                            max_repeats, ch_now_ms() - "
                      "ch_begin)) == 0;\n"
                      "         ch_r++) {\n"
                      "        int ch_s = ch_r % nsets;\n"
                      "        double ch_t0 = ch_now_ms();\n"
                      "        CH_CHECK(cudaEventRecord(ch_start, 0));\n");
    emit_call_of(o, c, "", whole, "_set", "[ch_s]", "        ");
    ch_strbuf_adds(
        o, "        CH_CHECK(cudaEventRecord(ch_stop, 0));\n"
           "        CH_CHECK(cudaDeviceSynchronize());\n"
           "        double ch_t1 = ch_now_ms();\n"
           "        float ch_ms = 0;\n"
           "        CH_CHECK(cudaEventElapsedTime(&ch_ms, ch_start, ch_stop));\n"
           "        ch_event_ms.push_back(ch_ms);\n"
           "        ch_wall_ms.push_back(ch_t1 - ch_t0);\n"
           "        if (ch_hopeless(ch_t1 - ch_t0, (int)ch_wall_ms.size(), bound_ms)) {\n"
           "            ch_why = 4;\n"
           "            printf(\"ch-hopeless: loop=call sample_ms=%.6f bound_ms=%.6f\\n\",\n"
           "                   ch_t1 - ch_t0, bound_ms);\n"
           "        }\n"
           "    }\n"
           "    CH_CHECK(cudaGetLastError());\n");
    emit_time_leak_check(o, c, whole);
    if (!dev)
        ch_strbuf_adds(o,
                       "    /* after hopeless kernels the process's first call is the whole call "
                       "timed\n     * (no events: wall clock for both) */\n"
                       "    if (ch_kernels_hopeless) {\n"
                       "        ch_event_ms.push_back(ch_first_call_ms);\n"
                       "        ch_wall_ms.push_back(ch_first_call_ms);\n"
                       "    }\n");
    ch_strbuf_adds(o, "    printf(\"ch-time: event_ms=%.6f wall_ms=%.6f min_event_ms=%.6f sets=%d "
                      "repeats=%d stop=%s call_path=%s\\n\",\n"
                      "           ch_median(ch_event_ms), ch_median(ch_wall_ms),\n"
                      "           *std::min_element(ch_event_ms.begin(), ch_event_ms.end()), "
                      "nsets,\n"
                      "           ch_kernels_hopeless ? 0 : (int)ch_wall_ms.size(), "
                      "ch_stop_name(ch_why), ch_call_path);\n"
                      "    /* the timed calls are over: the verifier lets the other builds have "
                      "the GPU\n     * while this process frees its sets and exits */\n"
                      "    fflush(stdout);\n");
    emit_free_sets(o, c, "_set", dev, "    ");
    if (!dev)
        emit_time_agreement(o, c);
    for (size_t i = 0; i < c->n_params; i++)
        if (is_buf(&c->params[i]))
            ch_strbuf_addf(o, "    free(%s_in);\n", c->params[i].name);
    ch_strbuf_adds(o, "    CH_CHECK(cudaEventDestroy(ch_start));\n"
                      "    CH_CHECK(cudaEventDestroy(ch_stop));\n"
                      "    return 0;\n}\n\n");
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
                   " *   prog run  DIR NSETS [DIR NSETS ...] per case in turn, one call per "
                   "input set\n"
                   " *                                       DIR/0 .. DIR/NSETS-1, all in the "
                   "same buffers\n"
                   " *                                       (\"ch-case: DIR\" as each "
                   "starts)\n"
                   " *   prog time DIR NSETS WARMUP REPEATS [MIN_REPEATS [BOUND_MS]]\n"
                   " *                                       median times over NSETS rotated "
                   "copies of\n"
                   " *                                       DIR/0: the kernels alone on "
                   "device-resident\n"
                   " *                                       data (when the candidate has a "
                   "device\n"
                   " *                                       launcher) and the whole call;"
                   " a first\n"
                   " *                                       sample over BOUND_MS ms ends both "
                   "(stop=hopeless)\n"
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
    if (candidate_path)
        ch_strbuf_addf(o,
                       "/* ---- The candidate, inserted verbatim ------------------------------ "
                       "*/\n#include \"%s\"\n\n",
                       candidate_path);
    else
        ch_strbuf_adds(o,
                       "/* ---- The candidate: a separate object (candidate.o), linked with this "
                       "one ---- */\n\n");
    ch_strbuf_addf(
        o, "/* The launcher must have exactly this C signature. */\nextern \"C\" %s;\n\n", proto);
    free(proto);
    if (!dev) {
        char *dproto = ch_scaffold_device_proto(c);
        ch_strbuf_addf(o,
                       "/* Its device-pointer entry point, when it has one (the device launcher "
                       "contract:\n * device buffers already holding the inputs, no copies, 0 or "
                       "the first CUDA error).\n * Weak: a candidate without it links and the "
                       "address is null; time mode then\n * times only the whole call. */\n"
                       "extern \"C\" %s __attribute__((weak));\n\n",
                       dproto);
        free(dproto);
    }
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
    emit_held_code(o);
    ch_strbuf_adds(o, "/* The gate of time mode and of grun: says " CH_SCAFFOLD_READY
                      " and waits for the verifier's\n * byte on stdin; 0, or 2 when stdin "
                      "ended without one. */\n"
                      "static int ch_wait_for_go(void)\n{\n"
                      "    printf(\"" CH_SCAFFOLD_READY "\\n\");\n"
                      "    fflush(stdout);\n"
                      "    if (fgetc(stdin) != EOF)\n        return 0;\n"
                      "    fprintf(stderr, \"ch-scaffold: the verifier gave no go on stdin\\n\");\n"
                      "    return 2;\n}\n\n");

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
        else
            ch_strbuf_addf(o,
                           "    %s *%s_dl = NULL; /* device buffer the device launcher gets */\n",
                           t, p->name);
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
    if (!dev)
        emit_run_device_launcher(o, c);
    ch_strbuf_adds(o, "    }\n");
    for (size_t i = 0; i < c->n_params; i++) {
        const ch_ck_param *p = &c->params[i];
        if (!is_buf(p))
            continue;
        ch_strbuf_addf(o, "    free(%s_h);\n    free(%s_snap);\n", p->name, p->name);
        if (dev)
            ch_strbuf_addf(o, "    CH_CHECK(cudaFree(%s_d));\n", p->name);
        else
            ch_strbuf_addf(o, "    if (%s_dl)\n        CH_CHECK(cudaFree(%s_dl));\n", p->name,
                           p->name);
    }
    if (!dev)
        ch_strbuf_addf(
            o, "    printf(\"ch-run: device_launcher=%%d\\n\", %s_device_launcher != NULL);\n",
            c->name);
    ch_strbuf_adds(o, "    return 0;\n}\n\n");

    /* ---- time mode ---- */
    emit_time_mode(o, c);

    ch_strbuf_adds(o, "int main(int argc, char **argv)\n{\n"
                      "    /* run mode: the cases (DIR NSETS pairs) in order in this one process, "
                      "so that\n"
                      "     * they pay for one CUDA context, not one each; each is named on stdout "
                      "(flushed)\n"
                      "     * before it starts, so that a crash or a hang is put down to the case "
                      "running */\n"
                      "    int ch_gated = argc >= 2 && strcmp(argv[1], \"grun\") == 0;\n"
                      "    if (argc >= 4 && argc % 2 == 0 && (ch_gated || strcmp(argv[1], "
                      "\"run\") == 0)) {\n"
                      "        /* grun: the CUDA context first (seconds under a sanitizer or "
                      "beside other\n"
                      "         * builds), then the verifier's go, so that its hold of the GPU "
                      "covers the\n"
                      "         * cases alone */\n"
                      "        if (ch_gated) {\n"
                      "            cudaFree(0);\n"
                      "            cudaGetLastError();\n"
                      "            if (ch_wait_for_go() != 0)\n"
                      "                return 2;\n"
                      "        }\n"
                      "        for (int ch_a = 3; ch_a < argc; ch_a += 2) {\n"
                      "            int nsets = atoi(argv[ch_a]);\n"
                      "            if (nsets < 1 || nsets > 64) {\n"
                      "                fprintf(stderr, \"ch-scaffold: NSETS must be 1..64\\n\");\n"
                      "                return 2;\n"
                      "            }\n"
                      "        }\n"
                      "        for (int ch_a = 2; ch_a < argc; ch_a += 2) {\n"
                      "            printf(\"" CH_SCAFFOLD_CASE " %s\\n\", argv[ch_a]);\n"
                      "            fflush(stdout);\n"
                      "            int ch_rc = ch_run(argv[ch_a], atoi(argv[ch_a + 1]));\n"
                      "            fflush(stdout);\n"
                      "            if (ch_rc != 0)\n"
                      "                return ch_rc;\n"
                      "        }\n"
                      "        return 0;\n"
                      "    }\n"
                      "    if (argc >= 6 && strcmp(argv[1], \"time\") == 0) {\n"
                      "        int nsets = atoi(argv[3]), warmup = atoi(argv[4]), repeats = "
                      "atoi(argv[5]);\n"
                      "        /* REPEATS is the most timed calls; MIN_REPEATS (default 5) the "
                      "fewest */\n"
                      "        int min_repeats = argc >= 7 ? atoi(argv[6]) : 5;\n"
                      "        /* BOUND_MS (0 or absent: none): a first sample over it ends the "
                      "timing (ch_hopeless) */\n"
                      "        double bound_ms = argc >= 8 ? atof(argv[7]) : 0;\n"
                      "        if (min_repeats > repeats)\n"
                      "            min_repeats = repeats;\n"
                      "        if (nsets < 1 || nsets > 64 || warmup < 0 || repeats < 1 || "
                      "min_repeats < 1 ||\n"
                      "            !(bound_ms >= 0)) {\n"
                      "            fprintf(stderr, \"ch-scaffold: bad timing arguments\\n\");\n"
                      "            return 2;\n"
                      "        }\n"
                      "        return ch_time(argv[2], nsets, warmup, repeats, min_repeats, "
                      "bound_ms);\n"
                      "    }\n"
                      "    fprintf(stderr, \"usage: %s run DIR NSETS [DIR NSETS ...] | time DIR "
                      "NSETS WARMUP REPEATS [MIN_REPEATS [BOUND_MS]]\\n\",\n"
                      "            argv[0]);\n"
                      "    return 2;\n}\n");
    return 0;
}
