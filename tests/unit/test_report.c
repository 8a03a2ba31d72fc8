/* Reports a user reads (issue 18): report.json of a verified, a pending, a failed and a refused
 * entry built from scanned entries and hand-made evolutions (no GPU), the HTML page (sections,
 * SVG plots, escaping of hostile specs and kernels), the highlighter, the explain text and key
 * lookup by prefix. */
#include "ch/checklist.h"
#include "ch/report.h"
#include "scan_helpers.h"

static const char saxpy_src[] =
    "#pragma harness \"y[i] = a*x[i] + y[i] </script><img src=x onerror=alert(1)>\"\n"
    "void saxpy(int n, float a, const float *x, float *y)\n"
    "{\n"
    "    for (int i = 0; i < n; i++)\n"
    "        y[i] = a * x[i] + y[i];\n"
    "}\n";

static const char kernel_src[] = "#include <cuda_runtime.h>\n"
                                 "// </pre><script>alert(1)</script>\n"
                                 "__global__ void k(int n, float *y) { y[0] = 1.5f; }\n"
                                 "extern \"C\" int saxpy_device_launcher(int n, float a, "
                                 "const float *x, float *y) { return 0; }\n";

typedef struct fixture {
    ch_entry_list l;
    ch_checklist c;
    ch_evolution ev;
} fixture;

/* A candidate of round r: correct with a time (ms >= 0), pending (ms == -2: passed what could
 * run) or failed at stage `stage` (ms == -1). */
static void add_candidate(ch_evolution *ev, int r, double ms, int stage)
{
    ch_candidate *c = &ev->cands[ev->n];
    memset(c, 0, sizeof *c);
    c->id = (int)ev->n++;
    c->parent = -1;
    c->round = r;
    c->dup_of = -1;
    c->source = ch_xstrdup(kernel_src);
    c->design = ch_xasprintf("design %d", c->id);
    snprintf(c->hash, sizeof c->hash, "%016x", c->id);
    ch_verify_report_init(&c->report);
    c->report.stage = stage;
    for (int s = 0; s <= stage && s < CH_STAGE_COUNT_; s++)
        c->report.status[s] = s == stage && ms == -1 ? CH_ST_FAIL : CH_ST_PASS;
    c->report.passed = ms != -1;
    c->report.correct = ms >= 0;
    if (ms == -1)
        c->report.message = ch_xstrdup("wrong result at y[3]");
    if (ms >= 0) {
        c->report.launcher_ms = ms;
        c->report.host_ms = 4.0;
        c->report.floor_ms = ms / 2;
        c->report.fraction = 0.5;
    }
}

static void fixture_open(fixture *f, int n, const double *ms, const int *rounds)
{
    ch_error err;
    cr_assert_eq(scan_text("saxpy.c", saxpy_src, CH_LANG_C, &f->l, &err), 0, "%s", err.msg);
    memset(&f->c, 0, sizeof f->c);
    cr_assert_eq(ch_checklist_derive(&f->l.items[0], &f->c, &err), 0, "%s", err.msg);
    memset(&f->ev, 0, sizeof f->ev);
    f->ev.cands = ch_xcalloc((size_t)n + 1, sizeof *f->ev.cands);
    f->ev.cap = (size_t)n + 1;
    f->ev.best = -1;
    for (int i = 0; i < n; i++) {
        add_candidate(&f->ev, rounds[i], ms[i], ms[i] >= 0 ? CH_STAGE_PERF : CH_STAGE_CORRECT);
        if (ms[i] >= 0 && (f->ev.best < 0 || ms[i] < f->ev.cands[f->ev.best].report.launcher_ms))
            f->ev.best = i;
    }
    f->ev.stop_reason = "budget";
}

static void fixture_close(fixture *f)
{
    ch_evolution_free(&f->ev);
    ch_checklist_free(&f->c);
    ch_entry_list_free(&f->l);
}

static const ch_emit_cold measured_cold = {8192, 5000000, 250, 1e-6};

static cJSON *report_of(fixture *f, const char *status, const char *reason, int with_ev)
{
    ch_report_facts facts = {
        .cold = with_ev ? &measured_cold : NULL,
        .entry = &f->l.items[0],
        .key = "0123456789abcdef0123456789abcdef",
        .hashed = "format 17:ch-cc-entry-key 1\n",
        .status = status,
        .agent = "openai",
        .model = "test-model",
        .checklist = &f->c,
        .ev = with_ev ? &f->ev : NULL,
        .gpu_min_size = strcmp(status, "verified") == 0 ? 4096 : -1,
        .reason = reason,
    };
    return ch_report_entry_json(&facts);
}

static const char *str(const cJSON *o, const char *path)
{
    char buf[128];
    snprintf(buf, sizeof buf, "%s", path);
    const cJSON *it = o;
    for (char *tok = strtok(buf, "."); tok && it; tok = strtok(NULL, "."))
        it = cJSON_GetObjectItemCaseSensitive(it, tok);
    return cJSON_IsString(it) ? it->valuestring : NULL;
}

static double num(const cJSON *o, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
    return cJSON_IsNumber(v) ? v->valuedouble : -99;
}

Test(report_json, verified_entry_has_every_part)
{
    fixture f;
    const double ms[] = {-1, 2.0, 1.0};
    const int rounds[] = {0, 0, 1};
    fixture_open(&f, 3, ms, rounds);
    cJSON *r = report_of(&f, "verified", NULL, 1);
    cr_assert_str_eq(str(r, "status"), "verified");
    cr_assert_str_eq(str(r, "name"), "saxpy");
    cr_assert_str_eq(str(r, "kind"), "spec-def");
    cr_assert_not_null(strstr(str(r, "spec"), "</script>"), "the spec is kept as written");
    cr_assert_not_null(strstr(str(r, "signature"), "saxpy(int n"));
    cr_assert_str_eq(str(r, "key"), "0123456789abcdef0123456789abcdef");
    cr_assert_not_null(strstr(str(r, "hashed"), "ch-cc-entry-key"));
    cr_assert_str_eq(str(r, "agent"), "openai");
    cr_assert_str_eq(str(r, "model"), "test-model");
    cr_assert_str_eq(str(r, "provenance.reference_by"), "the user");
    cr_assert_str_eq(str(r, "checklist.name"), "saxpy");
    const cJSON *cands =
        cJSON_GetObjectItem(cJSON_GetObjectItemCaseSensitive(r, "evolution"), "candidates");
    cr_assert_eq(cJSON_GetArraySize(cands), 3);
    const cJSON *stages = cJSON_GetObjectItem(cJSON_GetArrayItem(cands, 0), "stages");
    cr_assert_eq(cJSON_GetArraySize(stages), CH_STAGE_COUNT_, "every candidate has its stages");
    cr_assert_str_eq(str(cJSON_GetArrayItem(stages, CH_STAGE_CORRECT), "status"), "fail");
    /* round 1: one wrong, one at 2 ms; round 2: 1 ms */
    const cJSON *curve = cJSON_GetObjectItem(r, "curve");
    cr_assert_eq(cJSON_GetArraySize(curve), 2);
    cr_assert_float_eq(num(cJSON_GetArrayItem(curve, 0), "best_ms"), 2.0, 1e-9);
    cr_assert_float_eq(num(cJSON_GetArrayItem(curve, 0), "incorrect"), 1, 1e-9);
    cr_assert_float_eq(num(cJSON_GetArrayItem(curve, 1), "best_ms"), 1.0, 1e-9);
    cr_assert_float_eq(num(cJSON_GetArrayItem(curve, 1), "fraction_of_floor"), 0.5, 1e-9);
    const cJSON *w = cJSON_GetObjectItem(r, "winner");
    cr_assert_float_eq(num(w, "candidate"), 2, 1e-9);
    cr_assert_str_eq(str(w, "variant"), "design 2");
    cr_assert_str_eq(str(w, "source"), kernel_src);
    cr_assert_str_eq(str(w, "precision"), "native");
    cr_assert_float_eq(num(cJSON_GetObjectItem(w, "timing"), "launcher_ms"), 1.0, 1e-9);
    cr_assert_float_eq(num(cJSON_GetObjectItem(r, "dispatch"), "gpu_min_size"), 4096, 1e-9);
    /* a process's first calls (issue 14) */
    const cJSON *first = cJSON_GetObjectItem(cJSON_GetObjectItem(r, "dispatch"), "first_calls");
    cr_assert_float_eq(num(first, "gpu_min_size_buffers"), 8192, 1e-9);
    cr_assert_float_eq(num(first, "gpu_min_size_cold"), 5000000, 1e-9);
    cr_assert_float_eq(num(first, "device_setup_ms"), 250, 1e-9);
    ch_strbuf cold_text;
    ch_strbuf_init(&cold_text);
    ch_report_explain_text(r, "0123", "verified", NULL, &cold_text);
    cr_assert_not_null(strstr(cold_text.data, "first calls: from 8192 while its device buffers "
                                              "are to be allocated, from 5000000 while the "
                                              "device is not set up (set-up 250.0 ms)"),
                       "%s", cold_text.data);
    ch_strbuf_free(&cold_text);
    cr_assert_null(cJSON_GetObjectItem(r, "reason"));
    cr_assert_not_null(strstr(str(r, "summary"), "4.0x"), "%s", str(r, "summary"));
    cr_assert_str_eq(str(r, "dispatch.path"), "gpu");
    cr_assert_null(str(r, "dispatch.host_reason"));
    cJSON_Delete(r);
    fixture_close(&f);
}

/* Issue 15: the winner copies the caller's data itself (no NAME_device_launcher), so a user's
 * program keeps the host path; report.json and the explain text say so and why. */
Test(report_json, winner_without_a_device_launcher_is_not_linked)
{
    fixture f;
    const double ms[] = {1.0};
    const int rounds[] = {0};
    fixture_open(&f, 1, ms, rounds);
    free(f.ev.cands[0].source);
    f.ev.cands[0].source = ch_xstrdup("__global__ void k(int n, float *y) { y[0] = 1.5f; }\n"
                                      "extern \"C\" void saxpy_launcher(int n, float a, "
                                      "const float *x, float *y) { }\n");
    cJSON *r = report_of(&f, "verified", NULL, 1);
    cr_assert_str_eq(str(r, "dispatch.path"), "host");
    const char *why = str(r, "dispatch.host_reason");
    cr_assert(why && strstr(why, "the candidate copies the caller's data itself (no "
                                 "saxpy_device_launcher); ch-cc links only kernels whose data "
                                 "the trusted runtime moves"),
              "%s", why ? why : "(none)");
    cr_assert_not_null(strstr(str(r, "summary"), "that is not linked: the candidate copies"), "%s",
                       str(r, "summary"));
    ch_strbuf text;
    ch_strbuf_init(&text);
    ch_report_explain_text(r, "0123", "verified", NULL, &text);
    cr_assert_not_null(strstr(text.data, "dispatch      the host path at every size: the "
                                         "candidate copies the caller's data itself"),
                       "%s", text.data);
    cr_assert_null(strstr(text.data, "the GPU from"), "%s", text.data);
    ch_strbuf_free(&text);
    cJSON_Delete(r);
    fixture_close(&f);
}

Test(report_json, pending_entry_counts_waiting_candidates)
{
    fixture f;
    const double ms[] = {-2, -2};
    const int rounds[] = {0, 0};
    fixture_open(&f, 2, ms, rounds);
    cJSON *r = report_of(&f, "pending", "nothing can be verified here (no GPU)", 1);
    const cJSON *p = cJSON_GetArrayItem(cJSON_GetObjectItem(r, "curve"), 0);
    cr_assert_float_eq(num(p, "pending"), 2, 1e-9);
    cr_assert_float_eq(num(p, "incorrect"), 0, 1e-9);
    cr_assert_null(cJSON_GetObjectItem(r, "winner"));
    cr_assert_str_eq(str(r, "reason.file"), f.l.items[0].file);
    cr_assert_float_eq(num(cJSON_GetObjectItem(r, "reason"), "line"), 1, 1e-9);
    cr_assert_not_null(strstr(str(r, "summary"), "Pending: 2 candidates"));
    cJSON_Delete(r);
    fixture_close(&f);
}

Test(report_json, failed_and_refused_entries_say_why_and_where)
{
    fixture f;
    const double ms[] = {-1};
    const int rounds[] = {0};
    fixture_open(&f, 1, ms, rounds);
    cJSON *failed = report_of(&f, "failed", "no candidate passed verification", 1);
    cr_assert_not_null(strstr(str(failed, "summary"), "Failed: no candidate passed"));
    char *located =
        ch_xasprintf("%s:4:9: saxpy calls 'g', which this file does not define", f.l.items[0].file);
    cJSON *refused = report_of(&f, "unsupported", located, 0);
    cr_assert_str_eq(str(refused, "reason.text"),
                     "saxpy calls 'g', which this file does not define");
    cr_assert_float_eq(num(cJSON_GetObjectItem(refused, "reason"), "line"), 4, 1e-9);
    cr_assert_float_eq(num(cJSON_GetObjectItem(refused, "reason"), "col"), 9, 1e-9);
    cr_assert_null(cJSON_GetObjectItem(refused, "evolution"));
    cr_assert_not_null(strstr(str(refused, "summary"), "Refused"));
    ch_strbuf text;
    ch_strbuf_init(&text);
    ch_report_explain_text(refused, "0123", "unsupported", NULL, &text);
    cr_assert_not_null(strstr(text.data, ":4:9: saxpy calls 'g'"), "%s", text.data);
    ch_strbuf_free(&text);
    free(located);
    cJSON_Delete(failed);
    cJSON_Delete(refused);
    fixture_close(&f);
}

/* The walk's stop, in the agent's words, shows under the candidates; each candidate's shape is in
 * the JSON (the text shows its design, which names the shape). */
Test(report_json, agent_note_and_shape)
{
    fixture f;
    const double ms[] = {2.0, 1.0};
    const int rounds[] = {0, 1};
    fixture_open(&f, 2, ms, rounds);
    free(f.ev.cands[1].source);
    f.ev.cands[1].source = ch_xstrdup("/* ch-cc translator variant 7: isl scheduler\n * ch-cc "
                                      "shape: block1=256 block2=32x4 rows=8\n */\n");
    f.ev.stop_reason = "agent has nothing new";
    f.ev.agent_note = ch_xstrdup("saxpy: the walk along translator v7's shape stopped (plateau)");
    cJSON *r = report_of(&f, "verified", NULL, 1);
    const cJSON *cands =
        cJSON_GetObjectItem(cJSON_GetObjectItemCaseSensitive(r, "evolution"), "candidates");
    cr_assert(cJSON_IsNull(cJSON_GetObjectItem(cJSON_GetArrayItem(cands, 0), "shape")));
    cr_assert_str_eq(str(cJSON_GetArrayItem(cands, 1), "shape"), "block1=256 block2=32x4 rows=8");
    ch_strbuf text;
    ch_strbuf_init(&text);
    ch_report_explain_text(r, "0123", "verified", NULL, &text);
    cr_assert_not_null(strstr(text.data, "(stopped: agent has nothing new)\n  saxpy: the walk "
                                         "along translator v7's shape stopped (plateau)\n"),
                       "%s", text.data);
    ch_strbuf_free(&text);
    cJSON_Delete(r);
    fixture_close(&f);
}

static size_t count(const char *hay, const char *needle)
{
    size_t n = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

Test(report_html, sections_plots_and_no_injection)
{
    fixture f;
    const double ms[] = {-1, 2.0, 1.0};
    const int rounds[] = {0, 0, 1};
    fixture_open(&f, 3, ms, rounds);
    cJSON *r = report_of(&f, "verified", NULL, 1);
    /* a dispatch curve of three sizes */
    cJSON *curve = cJSON_GetObjectItem(cJSON_GetObjectItem(r, "dispatch"), "curve");
    for (int i = 0; i < 3; i++) {
        cJSON *p = cJSON_CreateObject();
        cJSON_AddNumberToObject(p, "size", 1000.0 * (i + 1) * (i + 1));
        cJSON_AddNumberToObject(p, "host_ms", 0.5 * (i + 1));
        cJSON_AddNumberToObject(p, "call_ms", 0.8 + 0.1 * i);
        cJSON_AddItemToArray(curve, p);
    }
    cJSON *refused = report_of(&f, "unsupported", "the agent said <b>no</b>", 0);
    ch_report_section s[2] = {
        {"saxpy", "saxpy.c:1", "#pragma harness \"</script><img onerror=x>\"", "verified",
         "in the cache", r, NULL, NULL},
        {"<img src=x onerror=alert(1)>", "x.c:2", NULL, "pending", NULL, refused,
         "__global__ void k() {} /* <script>alert(1)</script> */", "<i>not verified</i>"},
    };
    char *html = ch_report_html("t <script>", s, 2);
    cr_assert_eq(count(html, "<section"), 2);
    cr_assert_eq(count(html, "class=\"plot-evolution\""), 1, "the verified entry's plot");
    cr_assert_eq(count(html, "class=\"plot-dispatch\""), 1);
    /* the dispatcher's three thresholds (warm 4096; a process's first calls: buffers 8192,
     * device not set up 5000000, past the measured sizes) are drawn, labelled and said */
    cr_assert_eq(count(html, "<line class=\"threshold warm\""), 1);
    cr_assert_eq(count(html, "<line class=\"threshold buffers\""), 1);
    cr_assert_eq(count(html, "<line class=\"threshold cold\""), 1);
    cr_assert_eq(count(html, "size 1000 .. 5000000 (log)"), 1, "the axis reaches the cold one");
    cr_assert_eq(count(html, "from size 8192 while its device buffers are to be allocated, from "
                             "size 5000000 while the device is not set up (its set-up: 250.0 "
                             "ms)."),
                 1, "%s", html);
    cr_assert_eq(count(html, "<polyline class=\"best\""), 1);
    cr_assert_eq(count(html, "<path class=\"bad\""), 1, "one incorrect candidate");
    cr_assert_eq(count(html, "<circle class=\"ok\""), 2, "two correct candidates");
    cr_assert_eq(count(html, "class=\"fill\" style=\"width:50.0%\""), 1, "half of the floor");
    cr_assert_eq(count(html, "<span class=\"tok-cuda\">__global__</span>"), 2,
                 "the winner's kernel and the pending one");
    cr_assert_eq(count(html, "<p class=\"kernel-note\">&lt;i&gt;not verified&lt;/i&gt;</p>"), 1,
                 "a kernel that is not the verified one says so");
    cr_assert_eq(count(html, "<script"), 0, "nothing from an entry becomes markup");
    cr_assert_eq(count(html, "<img"), 0);
    cr_assert_eq(count(html, "<b>"), 0);
    cr_assert_gt(count(html, "&lt;img src=x onerror=alert(1)&gt;"), 0);
    cr_assert_gt(count(html, "&lt;/script&gt;"), 0);
    cr_assert_eq(count(html, "{{"), 0, "every placeholder filled");
    cr_assert_eq(count(html, "Content-Security-Policy"), 1);
    free(html);
    cJSON_Delete(r);
    cJSON_Delete(refused);
    fixture_close(&f);
}

/* A cold threshold the GPU never reaches (the dispatcher's LLONG_MAX: the set-up is never paid
 * back by one call) is said, not drawn; a host path faster at every size says so. */
Test(report_html, unreachable_thresholds_are_said_not_drawn)
{
    cJSON *r = cJSON_Parse("{\"status\": \"verified\", \"dispatch\": {\"gpu_min_size\": 4096, "
                           "\"first_calls\": {\"gpu_min_size_buffers\": 8192, "
                           "\"gpu_min_size_cold\": 9223372036854775807}, \"curve\": ["
                           "{\"size\": 1000, \"host_ms\": 0.1, \"call_ms\": 0.3}, "
                           "{\"size\": 100000, \"host_ms\": 9, \"call_ms\": 0.5}]}}");
    cJSON *never = cJSON_Parse("{\"status\": \"verified\", \"dispatch\": "
                               "{\"gpu_min_size\": 9223372036854775807}}");
    cr_assert_not_null(r);
    cr_assert_not_null(never);
    ch_report_section s[2] = {{"a", "a.c:1", NULL, "verified", NULL, r, NULL, NULL},
                              {"b", "b.c:1", NULL, "verified", NULL, never, NULL, NULL}};
    char *html = ch_report_html("t", s, 2);
    cr_expect_eq(count(html, "<line class=\"threshold "), 2, "warm and buffers only");
    cr_expect_eq(count(html, "<line class=\"threshold cold\""), 0);
    cr_expect_eq(count(html, "size 1000 .. 100000 (log)"), 1, "the axis is the measured one");
    cr_expect_eq(count(html, "at no size while the device is not set up"), 1, "%s", html);
    cr_expect_eq(count(html, "The host path was measured faster at every size"), 1, "%s", html);
    cr_expect_eq(count(html, "9223372036854775807"), 0, "no sentinel reaches the page");
    free(html);
    cJSON_Delete(r);
    cJSON_Delete(never);
}

Test(report_html, absent_entry_has_a_section_too)
{
    ch_report_section s = {"f", "f.c:1", NULL, NULL, "not in the cache", NULL, NULL, NULL};
    char *html = ch_report_html("t", &s, 1);
    cr_assert_eq(count(html, "<section"), 1);
    cr_assert_gt(count(html, "Not in the kernel cache"), 0);
    free(html);
}

Test(report_html, highlighter_classes_and_escapes)
{
    ch_strbuf b;
    ch_strbuf_init(&b);
    ch_html_highlight(&b, "#include <x.h>\n/* a<b */ int f(\"<s>\") { return 0x1f; } // &\n");
    cr_assert_not_null(strstr(b.data, "<span class=\"tok-pp\">#include &lt;x.h&gt;</span>"), "%s",
                       b.data);
    cr_assert_not_null(strstr(b.data, "<span class=\"tok-com\">/* a&lt;b */</span>"));
    cr_assert_not_null(strstr(b.data, "<span class=\"tok-type\">int</span>"));
    cr_assert_not_null(strstr(b.data, "<span class=\"tok-str\">&quot;&lt;s&gt;&quot;</span>"));
    cr_assert_not_null(strstr(b.data, "<span class=\"tok-kw\">return</span>"));
    cr_assert_not_null(strstr(b.data, "<span class=\"tok-num\">0x1f</span>"));
    cr_assert_not_null(strstr(b.data, "<span class=\"tok-com\">// &amp;</span>"));
    ch_strbuf_free(&b);
}

Test(report_explain, key_prefix_lookup)
{
    char *keys[] = {"abc10000000000000000000000000000", "abc20000000000000000000000000000",
                    "def00000000000000000000000000000"};
    const char *m;
    cr_assert_eq(ch_report_match_prefix(keys, 3, "abc", &m), 2, "ambiguous");
    cr_assert_eq(ch_report_match_prefix(keys, 3, "abc2", &m), 1);
    cr_assert_str_eq(m, keys[1]);
    cr_assert_eq(ch_report_match_prefix(keys, 3, "0", &m), 0);
    cr_assert_null(m);
}
