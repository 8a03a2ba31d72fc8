/* The builtin agent's answer to performance feedback on real bodies (a 5-point stencil, an SGEMM,
 * a softmax): evolution is played by the test with scripted kernel times, a bowl around a known
 * shape, and the request carries the parent's figures (ch_kernel_perf) as src/evolve gives them.
 * The agent walks from the best design of the first round along that design's axes, reaches the
 * known shape, stops at the plateau with its reason, and never proposes the same code twice; every
 * neighbour names its shape in its header and compiles with nvcc -Werror all-warnings (where nvcc
 * is installed). Whether they are correct at odd sizes needs a GPU (tests/gpu, the lead's run). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "scan_helpers.h"

#include "ch/agent.h"
#include "ch/agent_walk.h"
#include "ch/checklist.h"
#include "ch/evolve.h"
#include "ch/fsutil.h"
#include "ch/proc.h"
#include "ch/report.h"

static const char *nvcc_path(void)
{
    static char found[4096];
    if (ch_file_exists("/usr/local/cuda/bin/nvcc"))
        return "/usr/local/cuda/bin/nvcc";
    const char *path = getenv("PATH");
    for (const char *d = path; d && *d;) {
        size_t n = strcspn(d, ":");
        snprintf(found, sizeof found, "%.*s/nvcc", (int)n, d);
        if (n && ch_file_exists(found))
            return found;
        d += n + (d[n] == ':');
    }
    return NULL;
}

/* nvcc -arch=sm_90 -Werror all-warnings -c on src; asserts success. */
static void nvcc_compiles(const char *src, const char *tag)
{
    const char *nvcc = nvcc_path();
    if (!nvcc)
        return;
    ch_error err = {0};
    char *dir = ch_make_temp_dir("walk", &err);
    cr_assert(dir, "%s", err.msg);
    char *cu = ch_xasprintf("%s/%s.cu", dir, tag);
    char *obj = ch_xasprintf("%s/%s.o", dir, tag);
    cr_assert_eq(ch_write_file_atomic(cu, src, strlen(src), 0, &err), 0, "%s", err.msg);
    char *argv[] = {(char *)nvcc, "-arch=sm_90", "-Werror", "all-warnings", "-c", cu,
                    "-o",         obj,           NULL};
    ch_strbuf out;
    ch_strbuf_init(&out);
    int rc = ch_proc_capture(argv, &out, &err);
    cr_assert_eq(rc, 0, "nvcc failed on %s (rc %d): %s\n%s", tag, rc, err.msg, out.data);
    ch_strbuf_free(&out);
    ch_remove_tree(dir, &err);
    free(cu);
    free(obj);
    free(dir);
}

static ch_entry_list scan_one(const char *text)
{
    ch_entry_list l;
    ch_error err;
    cr_assert_eq(scan_text("t.c", text, CH_LANG_C, &l, &err), 0, "scan failed: %s", err.msg);
    cr_assert_eq(l.len, 1);
    return l;
}

static ch_agent *open_agent(void)
{
    ch_agent *ag = ch_xcalloc(1, sizeof *ag);
    ch_error err = {0};
    cr_assert_eq(ch_agent_builtin_open(ag, &err), 0);
    ag->hw.sm_count = 132;
    ag->hw.max_threads_per_block = 1024;
    ag->hw.smem_per_block = 48 * 1024;
    return ag;
}

static void close_agent(ch_agent *ag)
{
    ag->ops->close(ag);
    free(ag);
}

/* ---- evolution played with scripted times ------------------------------------------------- */

typedef struct cand {
    char *src, *design;
    double ms;
} cand;

typedef struct script {
    const char *start_mark; /* the first-round design the walk starts from ("variant 15:") */
    bi_shape start;         /* its shape (its header names only the variant) */
    bi_shape opt;           /* the fastest shape */
    double weight[BI_AX_COUNT_];
} script;

/* The scripted time of a candidate: other first-round designs are slow (100 ms); the start and
 * the walk's neighbours sit on a bowl in log2 of each axis around opt. */
static double scripted_ms(const script *s, const char *src, bi_shape *shape)
{
    const char *mark = strstr(src, "ch-cc shape: ");
    if (mark)
        cr_assert_eq(bi_shape_parse(mark + strlen("ch-cc shape: "), shape), 0, "%s", mark);
    else if (strstr(src, s->start_mark))
        *shape = s->start;
    else
        return 100;
    double t = 1;
    bi_shape a = *shape, o = s->opt;
    for (int x = 0; x < BI_AX_COUNT_; x++) {
        int va = *bi_shape_axis(&a, (bi_axis)x), vo = *bi_shape_axis(&o, (bi_axis)x);
        double d = (va > 0 ? log2(va) : 5) - (vo > 0 ? log2(vo) : 5);
        t += s->weight[x] * d * d;
    }
    return t;
}

typedef struct played {
    cand c[24];
    int n;
    int best;
    char stop[sizeof(ch_error){0}.msg];
} played;

/* Round 0: `first` designs (fresh after the first); rounds 1..: the fastest as the parent, its
 * figures in the request, until the agent has nothing new. */
static void play(ch_agent *ag, const ch_entry *e, const script *s, int first, played *p)
{
    memset(p, 0, sizeof *p);
    p->best = -1;
    for (int round = 0; p->n < 24; round++) {
        ch_kernel_request req = {.entry = e, .round = round};
        ch_kernel_perf perf = {.fraction = 0.5, .registers = 40, .smem_bytes = 0};
        char *feedback = NULL;
        if (round < first) {
            req.fresh_design = round > 0;
        } else {
            const cand *b = &p->c[p->best];
            perf.ms = b->ms;
            feedback = ch_xasprintf("The candidate is correct (stages 0-4 passed).\nKernel time "
                                    "%.4f ms at the tune size.\n",
                                    b->ms);
            req.feedback = feedback;
            req.parent_source = b->src;
            req.perf = &perf;
        }
        ch_error err = {0};
        char *src = NULL, *design = NULL;
        int rc = ag->ops->kernel(ag, &req, &src, &design, &err);
        free(feedback);
        cr_assert_geq(rc, 0, "kernel job failed: %s", err.msg);
        if (rc == 1) {
            snprintf(p->stop, sizeof p->stop, "%s", err.msg);
            return;
        }
        bi_shape shape;
        cand *c = &p->c[p->n];
        c->src = src;
        c->design = design;
        c->ms = scripted_ms(s, src, &shape);
        for (int j = 0; j < p->n; j++)
            cr_assert(bi_code_hash(p->c[j].src) != bi_code_hash(src),
                      "candidate %d (%s) has the code of candidate %d (%s)", p->n, design, j,
                      p->c[j].design);
        if (p->best < 0 || c->ms < p->c[p->best].ms)
            p->best = p->n;
        p->n++;
    }
    cr_assert_fail("the walk did not stop");
}

static void played_free(played *p)
{
    for (int i = 0; i < p->n; i++) {
        free(p->c[i].src);
        free(p->c[i].design);
    }
}

/* Every neighbour the walk proposed compiles, and names its shape. */
static void walk_compiles(const played *p, const char *tag)
{
    for (int i = 0; i < p->n; i++) {
        if (!strstr(p->c[i].design, "(walk)"))
            continue;
        cr_assert(strstr(p->c[i].src, "ch-cc shape: "), "%s", p->c[i].design);
        char *name = ch_xasprintf("%s_%d", tag, i);
        nvcc_compiles(p->c[i].src, name);
        free(name);
    }
}

static int walked(const played *p)
{
    int n = 0;
    for (int i = 0; i < p->n; i++)
        n += strstr(p->c[i].design, "(walk)") != NULL;
    return n;
}

/* ---- the whole loop: src/evolve with the builtin agent and a scripted verifier ------------ */

typedef struct loop_ctx {
    ch_agent *ag;
    const script *s;
    double floor_ms; /* the DRAM floor: fraction = floor_ms / kernel_ms */
} loop_ctx;

static int loop_propose(void *ctx, const ch_kernel_request *req, char **src, char **design,
                        ch_error *err)
{
    loop_ctx *x = ctx;
    return x->ag->ops->kernel(x->ag, req, src, design, err);
}

/* Stages 0-1 pass; ptxas reports 40 registers and no spill. */
static int loop_build(void *ctx, ch_candidate *c, ch_error *err)
{
    (void)ctx;
    (void)err;
    ch_verify_report_init(&c->report);
    c->report.status[CH_STAGE_STATIC] = c->report.status[CH_STAGE_COMPILE] = CH_ST_PASS;
    c->report.stage = CH_STAGE_COMPILE;
    c->report.passed = 1;
    cJSON *compile = cJSON_AddObjectToObject(c->report.details, "compile");
    cJSON_AddItemToObject(compile, "resources",
                          cJSON_Parse("[{\"function\": \"k0\", \"registers\": 40}]"));
    return 0;
}

/* Correct, its kernels timed on device-resident data at the scripted time. */
static int loop_test(void *ctx, ch_candidate *c, ch_error *err)
{
    loop_ctx *x = ctx;
    (void)err;
    for (int st = CH_STAGE_SMOKE; st <= CH_STAGE_PERF; st++)
        c->report.status[st] = CH_ST_PASS;
    c->report.stage = CH_STAGE_PERF;
    c->report.correct = 1;
    bi_shape shape;
    c->report.kernel_ms = scripted_ms(x->s, c->source, &shape);
    c->report.launcher_ms = c->report.kernel_ms + 5;
    c->report.kernel_resident = 1;
    c->report.floor_ms = c->report.dram_floor_ms = x->floor_ms;
    c->report.fraction = x->floor_ms / c->report.kernel_ms;
    c->report.message = ch_xstrdup("passed stages 0-5");
    return 0;
}

/* The stencil through ch_evolve_run as a build with a GPU runs it (budget 8, two designs in the
 * first round): the walk's neighbours in rounds 2.., the best at the known shape, the loop ended
 * by the agent's plateau, and report.json's curve and candidates showing the walk. */
Test(builtin_walk, evolution_loop_walks_and_stops_at_the_plateau)
{
    ch_entry_list l = scan_one("#pragma harness extent(a: n * m, b: n * m)\n"
                               "void st(int n, int m, const float *a, float *b)\n"
                               "{\n"
                               "    for (int i = 1; i < n - 1; i++)\n"
                               "        for (int j = 1; j < m - 1; j++)\n"
                               "            b[i * m + j] = 0.2f * (a[i * m + j] + a[(i - 1) * m "
                               "+ j] + a[(i + 1) * m + j] + a[i * m + j - 1] + a[i * m + j + "
                               "1]);\n"
                               "}\n");
    script s = {.start_mark = "ch-cc translator variant 15:",
                .start = {.block1 = 256, .bx = 32, .by = 4, .rows = 4},
                .opt = {.block1 = 256, .bx = 32, .by = 4, .rows = 8}};
    s.weight[BI_AX_ROWS] = 0.3;
    s.weight[BI_AX_BX] = s.weight[BI_AX_BY] = 0.2;
    ch_checklist ck;
    memset(&ck, 0, sizeof ck);
    ch_error err = {0};
    cr_assert_eq(ch_checklist_derive(&l.items[0], &ck, &err), 0, "%s", err.msg);
    loop_ctx x = {.ag = open_agent(), .s = &s, .floor_ms = 0.5};
    ch_evolve_ops ops = {
        .ctx = &x, .propose = loop_propose, .build = loop_build, .test = loop_test};
    ch_evolve_opts o = {.budget = 8, .width = 2, .jobs = 1, .max_stage = CH_STAGE_PERF};
    ch_evolution ev;
    cr_assert_eq(ch_evolve_run(&o, &ops, &ck, &l.items[0], NULL, 0, &ev, &err), 0, "%s", err.msg);
    cr_assert_str_eq(ev.stop_reason, "agent has nothing new");
    cr_assert(ev.agent_note && strstr(ev.agent_note, "stopped (plateau)"), "%s",
              ev.agent_note ? ev.agent_note : "no note");
    cr_assert_eq(ev.n, 5, "two designs, then rows 8, rows 16 and a taller block");
    cr_assert_eq(ev.best, 2);
    cr_assert_str_eq(ev.cands[2].design,
                     "translator v15 (walk): rows up from 4 to 8; block1=256 block2=32x4 waves=0 "
                     "rows=8 tile=0x0x0 threads=0x0 row_block=0");
    cr_assert_eq(ev.cands[2].parent, 1, "the walk starts from the best design of round 1");
    cr_assert_eq(ev.cands[3].parent, 2, "and moves on from the neighbour that gained");
    ch_report_facts facts = {.entry = &l.items[0],
                             .key = "0123456789abcdef0123456789abcdef",
                             .status = "verified",
                             .agent = "builtin",
                             .checklist = &ck,
                             .ev = &ev,
                             .gpu_min_size = 0};
    cJSON *r = ch_report_entry_json(&facts);
    const cJSON *curve = cJSON_GetObjectItem(r, "curve");
    cr_assert_eq(cJSON_GetArraySize(curve), 4, "rounds 1 (two designs) to 4");
    double want[] = {scripted_ms(&s, ev.cands[1].source, &(bi_shape){0}), 1.0, 1.0, 1.0};
    for (int i = 0; i < 4; i++) {
        const cJSON *p = cJSON_GetArrayItem(curve, i);
        cr_assert_float_eq(cJSON_GetObjectItem(p, "best_ms")->valuedouble, want[i], 1e-9,
                           "round %d", i + 1);
        cr_assert_float_eq(cJSON_GetObjectItem(p, "fraction_of_floor")->valuedouble, 0.5 / want[i],
                           1e-9);
    }
    const cJSON *cands = cJSON_GetObjectItem(cJSON_GetObjectItem(r, "evolution"), "candidates");
    cr_assert(cJSON_IsNull(cJSON_GetObjectItem(cJSON_GetArrayItem(cands, 1), "shape")));
    cr_assert_str_eq(cJSON_GetObjectItem(cJSON_GetArrayItem(cands, 3), "shape")->valuestring,
                     "block1=256 block2=32x4 waves=0 rows=16 tile=0x0x0 threads=0x0 row_block=0");
    cr_assert_str_eq(
        cJSON_GetObjectItem(cJSON_GetObjectItem(r, "evolution"), "agent_note")->valuestring,
        ev.agent_note);
    cJSON_Delete(r);
    ch_evolution_free(&ev);
    ch_checklist_free(&ck);
    close_agent(x.ag);
    ch_entry_list_free(&l);
}

/* ---- bodies ------------------------------------------------------------------------------- */

/* A 5-point stencil: the first round's designs are the exact schedule and 4 rows and a float4
 * of columns a thread (the fixed list's order); the walk moves the rows from 4 to 8 and stops. */
Test(builtin_walk, stencil_rows)
{
    ch_entry_list l = scan_one("#pragma harness extent(a: n * m, b: n * m)\n"
                               "void st(int n, int m, const float *a, float *b)\n"
                               "{\n"
                               "    for (int i = 1; i < n - 1; i++)\n"
                               "        for (int j = 1; j < m - 1; j++)\n"
                               "            b[i * m + j] = 0.2f * (a[i * m + j] + a[(i - 1) * m "
                               "+ j] + a[(i + 1) * m + j] + a[i * m + j - 1] + a[i * m + j + "
                               "1]);\n"
                               "}\n");
    script s = {.start_mark = "ch-cc translator variant 15:",
                .start = {.block1 = 256, .bx = 32, .by = 4, .rows = 4},
                .opt = {.block1 = 256, .bx = 32, .by = 4, .rows = 8}};
    s.weight[BI_AX_ROWS] = 0.3;
    s.weight[BI_AX_BX] = s.weight[BI_AX_BY] = 0.2;
    ch_agent *ag = open_agent();
    played p;
    play(ag, &l.items[0], &s, 2, &p);
    cr_assert_str_eq(p.c[0].design, "translator v0: isl scheduler");
    cr_assert_str_eq(p.c[1].design,
                     "translator v15: isl scheduler, rows and vector columns a thread");
    cr_assert_str_eq(p.c[2].design,
                     "translator v15 (walk): rows up from 4 to 8; block1=256 block2=32x4 waves=0 "
                     "rows=8 tile=0x0x0 threads=0x0 row_block=0");
    cr_assert(strstr(p.c[2].src, "each thread runs 8 consecutive values of c0"), "%s", p.c[2].src);
    cr_assert(strstr(p.c[2].src, ", 8 rows and 16 bytes of columns a thread in 2-D kernels "
                                 "(vector loads), 1-D blocks of 256 threads"));
    cr_assert_eq(p.best, 2, "the best is %s", p.c[p.best].design);
    cr_assert_eq(walked(&p), 3, "rows 8, then rows 16 and a taller block without a gain");
    cr_assert(strstr(p.stop, "plateau"), "%s", p.stop);
    walk_compiles(&p, "stencil");
    played_free(&p);
    close_agent(ag);
    ch_entry_list_free(&l);
}

/* SGEMM: the walk starts from the 64x64 tiles (their source asked for as the fixed list gives
 * them) and reaches 128x128, the larger tiles staying within 48 KiB and 64 outputs a thread. */
Test(builtin_walk, gemm_tiles)
{
    ch_entry_list l = scan_one("#pragma harness extent(A: n * n, B: n * n, C: n * n) tol(1e-3)\n"
                               "void mm(int n, const float *A, const float *B, float *C)\n"
                               "{\n"
                               "    for (int i = 0; i < n; i++)\n"
                               "        for (int j = 0; j < n; j++) {\n"
                               "            float s = 0;\n"
                               "            for (int k = 0; k < n; k++)\n"
                               "                s += A[i * n + k] * B[k * n + j];\n"
                               "            C[i * n + j] = s;\n"
                               "        }\n"
                               "}\n");
    script s = {
        .start_mark = "ch-cc translator variant 5:",
        .start =
            {.block1 = 256, .bx = 32, .by = 8, .tm = 64, .tn = 64, .tk = 16, .ty = 16, .tx = 16},
        .opt = {
            .block1 = 256, .bx = 32, .by = 8, .tm = 128, .tn = 128, .tk = 16, .ty = 16, .tx = 16}};
    s.weight[BI_AX_TM] = s.weight[BI_AX_TN] = 0.4;
    s.weight[BI_AX_TY] = s.weight[BI_AX_TX] = s.weight[BI_AX_TK] = 0.1;
    ch_agent *ag = open_agent();
    played p;
    /* the first round as wide as it takes to reach the tiles (after cuBLAS) */
    int first = 0;
    for (; first < 8; first++) {
        ch_kernel_request req = {.entry = &l.items[0], .round = first, .fresh_design = first > 0};
        char *src = NULL, *design = NULL;
        ch_error err = {0};
        cr_assert_eq(ag->ops->kernel(ag, &req, &src, &design, &err), 0, "%s", err.msg);
        int tiles = strstr(src, "ch-cc translator variant 5:") != NULL;
        free(src);
        free(design);
        if (tiles)
            break;
    }
    close_agent(ag);
    ag = open_agent();
    play(ag, &l.items[0], &s, first + 1, &p);
    cr_assert(strstr(p.c[p.best].src, "ch-cc shape: block1=256 block2=32x8 waves=0 rows=0 "
                                      "tile=128x128x16 threads=16x16 row_block=0"),
              "the best is %s", p.c[p.best].design);
    cr_assert(strstr(p.c[p.best].src, "each of its 16 x 16 threads keeps\n * 8 x 8 of them"));
    cr_assert(strstr(p.stop, "plateau"), "%s", p.stop);
    cr_assert_geq(walked(&p), 3);
    walk_compiles(&p, "gemm");
    played_free(&p);
    close_agent(ag);
    ch_entry_list_free(&l);
}

/* A softmax on a block per row (variant 11, after variant 12's row in registers): the walk moves
 * the block's threads (512 wins here), then tries 1024 and a warp per row, and stops. */
Test(builtin_walk, softmax_block)
{
    ch_entry_list l = scan_one("#include <math.h>\n"
                               "#pragma harness extent(x: m * n, y: m * n) tol(1e-5)\n"
                               "void sm(int m, int n, const float *x, float *y)\n"
                               "{\n"
                               "    for (int r = 0; r < m; r++) {\n"
                               "        float mx = x[r * n];\n"
                               "        for (int j = 1; j < n; j++)\n"
                               "            mx = fmaxf(mx, x[r * n + j]);\n"
                               "        float s = 0;\n"
                               "        for (int j = 0; j < n; j++)\n"
                               "            s += expf(x[r * n + j] - mx);\n"
                               "        for (int j = 0; j < n; j++)\n"
                               "            y[r * n + j] = expf(x[r * n + j] - mx) / s;\n"
                               "    }\n"
                               "}\n");
    script s = {.start_mark = "ch-cc translator variant 11:",
                .start = {.block1 = 256, .bx = 32, .by = 8, .row_block = 1},
                .opt = {.block1 = 512, .bx = 32, .by = 8, .row_block = 1}};
    s.weight[BI_AX_BLOCK1] = 0.3;
    s.weight[BI_AX_ROW_BLOCK] = 0.3;
    ch_agent *ag = open_agent();
    played p;
    play(ag, &l.items[0], &s, 3, &p);
    /* the row in registers (variant 12) comes before, and is not the scripted best here */
    cr_assert_str_eq(p.c[1].design, "translator v12: original loop order, rows in registers");
    cr_assert_str_eq(p.c[2].design, "translator v11: original loop order, a block per row");
    cr_assert_str_eq(p.c[p.best].design,
                     "translator v11 (walk): block1 up from 256 to 512; block1=512 block2=32x8 "
                     "waves=0 rows=0 tile=0x0x0 threads=0x0 row_block=1");
    cr_assert(strstr(p.c[p.best].src, "__launch_bounds__(512)"));
    cr_assert_eq(walked(&p), 3);
    cr_assert(strstr(p.c[5].design, "row_block down from 1 to 0"), "%s", p.c[5].design);
    cr_assert(strstr(p.c[5].src, "a warp per value of the mapped dimension"));
    cr_assert(strstr(p.stop, "plateau"), "%s", p.stop);
    walk_compiles(&p, "softmax");
    played_free(&p);
    close_agent(ag);
    ch_entry_list_free(&l);
}

/* Without figures (correctness feedback, or --harness-propose) the agent keeps to the fixed list:
 * no walk. */
Test(builtin_walk, no_figures_no_walk)
{
    ch_entry_list l = scan_one("#pragma harness extent(x: n, y: n)\n"
                               "void ax(int n, float a, const float *x, float *y)\n"
                               "{\n"
                               "    for (int i = 0; i < n; i++)\n"
                               "        y[i] = a * x[i] + y[i];\n"
                               "}\n");
    ch_agent *ag = open_agent();
    char *prev = NULL;
    for (int round = 0; round < 6; round++) {
        ch_kernel_request req = {.entry = &l.items[0],
                                 .round = round,
                                 .parent_source = prev,
                                 .feedback = prev ? "Verification failed at stage 3" : NULL};
        char *src = NULL, *design = NULL;
        ch_error err = {0};
        int rc = ag->ops->kernel(ag, &req, &src, &design, &err);
        cr_assert_geq(rc, 0, "%s", err.msg);
        if (rc == 1)
            break;
        cr_assert_null(strstr(design, "(walk)"), "%s", design);
        free(design);
        free(prev);
        prev = src;
    }
    free(prev);
    close_agent(ag);
    ch_entry_list_free(&l);
}
