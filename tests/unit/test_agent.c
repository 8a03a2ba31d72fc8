/* The openai and anthropic agents against a local fake model server (tests/fakes/fake_llm.py):
 * request shape per protocol, the three jobs end to end, isolation of the kernel author, retries
 * and every failure message, the feedback retry, the token budget, redacted transcripts and the
 * configuration chain. No network: the server listens on a loopback port chosen per test. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ch/agent.h"
#include "ch/config.h"
#include "ch/fsutil.h"
#include "ch/llm.h"
#include "ch/strbuf.h"

#define KEY "sk-test-S3CRET-KEY-0123456789"

/* ---- the fake server ---- */

typedef struct fake {
    pid_t pid;
    int port;
    char *dir;
    char *record;
    char url[64]; /* http://127.0.0.1:PORT/v1 */
} fake;

static fake fake_start(const char *script)
{
    fake f = {0};
    ch_error err;
    f.dir = ch_make_temp_dir("agent-test", &err);
    cr_assert(f.dir, "%s", err.msg);
    char *spath = ch_path_join(f.dir, "script.json");
    char *pfile = ch_path_join(f.dir, "port");
    f.record = ch_path_join(f.dir, "requests.jsonl");
    cr_assert_eq(ch_write_file_atomic(spath, script, strlen(script), 0, &err), 0);
    const char *src = getenv("CH_CC_SRC");
    char *py = ch_xasprintf("%s/tests/fakes/fake_llm.py", src && *src ? src : ".");
    f.pid = fork();
    cr_assert(f.pid >= 0);
    if (f.pid == 0) {
        freopen("/dev/null", "w", stdout);
        execlp("python3", "python3", py, "--script", spath, "--record", f.record, "--port-file",
               pfile, (char *)NULL);
        _exit(127);
    }
    for (int i = 0; i < 500 && !ch_file_exists(pfile); i++)
        usleep(10000);
    char *text = NULL;
    cr_assert_eq(ch_read_file(pfile, &text, NULL, &err), 0, "fake server did not start");
    f.port = atoi(text);
    snprintf(f.url, sizeof f.url, "http://127.0.0.1:%d/v1", f.port);
    free(text);
    free(py);
    free(spath);
    free(pfile);
    return f;
}

static void fake_stop(fake *f)
{
    if (f->pid > 0) {
        kill(f->pid, SIGTERM);
        waitpid(f->pid, NULL, 0);
        f->pid = 0;
    }
    ch_error err;
    ch_remove_tree(f->dir, &err);
    free(f->dir);
    free(f->record);
}

/* The recorded requests as a JSON array (caller deletes). */
static cJSON *recorded(const fake *f)
{
    cJSON *all = cJSON_CreateArray();
    char *text = NULL;
    ch_error err;
    if (ch_read_file(f->record, &text, NULL, &err) != 0)
        return all;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        cJSON *j = cJSON_Parse(line);
        cr_assert(j, "bad record line");
        cJSON_AddItemToArray(all, j);
    }
    free(text);
    return all;
}

static const char *jstr(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* The request body of record i, printed (caller frees). */
static char *body_text(const cJSON *recs, int i)
{
    return cJSON_PrintUnformatted(
        cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(recs, i), "body"));
}

/* ---- configuration ---- */

static ch_config cfg_for(const char *provider, const fake *f, const char *const *extra)
{
    ch_config cfg;
    ch_error err;
    cr_assert_eq(ch_config_load(&cfg, "/", &err), 0, "%s", err.msg);
    const char *base[] = {"provider",
                          provider,
                          "model",
                          "test-model",
                          "api_base",
                          f ? f->url : "http://127.0.0.1:1/v1",
                          "api_key",
                          KEY,
                          "retries",
                          "2",
                          "retry_backoff",
                          "0.01",
                          "request_timeout",
                          "5",
                          NULL};
    for (size_t i = 0; base[i]; i += 2)
        cr_assert_eq(ch_config_set(&cfg, base[i], base[i + 1], CH_CFG_CMDLINE, &err), 0);
    for (size_t i = 0; extra && extra[i]; i += 2)
        cr_assert_eq(ch_config_set(&cfg, extra[i], extra[i + 1], CH_CFG_CMDLINE, &err), 0, "%s",
                     err.msg);
    return cfg;
}

static ch_agent *open_agent(const ch_config *cfg)
{
    ch_agent *ag = NULL;
    ch_error err;
    ch_agent_hw hw = {0};
    snprintf(hw.arch, sizeof hw.arch, "sm_90");
    snprintf(hw.name, sizeof hw.name, "NVIDIA H200");
    hw.sm_count = 132;
    hw.l2_bytes = 50L << 20;
    hw.smem_per_block = 48L << 10;
    cr_assert_eq(ch_agent_open(cfg, NULL, &hw, &ag, &err), 0, "%s", err.msg);
    return ag;
}

/* ---- a sample entry and replies ---- */

static ch_param saxpy_params[] = {
    {.name = "n", .type = "int", .role = CH_ROLE_SCALAR, .elem = CH_T_INT},
    {.name = "a", .type = "float", .role = CH_ROLE_SCALAR, .elem = CH_T_FLOAT},
    {.name = "x",
     .type = "const float *",
     .role = CH_ROLE_POINTER,
     .elem = CH_T_FLOAT,
     .is_const = 1,
     .dir = CH_DIR_IN,
     .extent = "n"},
    {.name = "y",
     .type = "float *",
     .role = CH_ROLE_POINTER,
     .elem = CH_T_FLOAT,
     .dir = CH_DIR_INOUT,
     .extent = "n"},
};

static ch_entry saxpy_entry(void)
{
    ch_entry e = {0};
    e.name = "saxpy";
    e.kind = CH_KIND_SPEC_DECL;
    e.spec = "y[i] = a*x[i] + y[i] for every i below n";
    e.clauses_text = "";
    e.signature = "void saxpy(int n, float a, const float *x, float *y)";
    e.params = saxpy_params;
    e.n_params = 4;
    return e;
}

#define CHECKLIST_JSON                                                                             \
    "{\"name\":\"saxpy\",\"kind\":\"spec-decl\",\"signature\":\"void saxpy(int n, float a, "       \
    "const float *x, float *y)\",\"description\":\"y[i] = a*x[i] + y[i] for 0 <= i < n\","         \
    "\"reference\":\"for i in 0..n-1: y[i] = a*x[i] + y[i]\",\"params\":["                         \
    "{\"name\":\"n\",\"type\":\"int\",\"role\":\"scalar\",\"elem\":\"int\",\"direction\":"         \
    "null,\"extent\":null,\"range\":null,\"index_of\":null,\"index_hi\":null,"                     \
    "\"rtol\":null,\"atol\":null},"                                                                \
    "{\"name\":\"a\",\"type\":\"float\",\"role\":\"scalar\",\"elem\":\"float\",\"direction\":"     \
    "null,\"extent\":null,\"range\":[-2,2],\"index_of\":null,\"index_hi\":null,"                   \
    "\"rtol\":null,\"atol\":null},"                                                                \
    "{\"name\":\"x\",\"type\":\"const float *\",\"role\":\"pointer\",\"elem\":\"float\","          \
    "\"direction\":\"in\",\"extent\":\"n\",\"range\":[-1,1],\"index_of\":null,\"index_hi\":null,"  \
    "\"rtol\":null,\"atol\":null},"                                                                \
    "{\"name\":\"y\",\"type\":\"float *\",\"role\":\"pointer\",\"elem\":\"float\",\"direction\":"  \
    "\"inout\",\"extent\":\"n\",\"range\":[-1,1],\"index_of\":null,\"index_hi\":null,"             \
    "\"rtol\":1e-5,\"atol\":1e-6}],\"sizes\":{\"smoke\":[{\"n\":1},{\"n\":2},{\"n\":3}],"          \
    "\"correctness\":[{\"n\":1000003},{\"n\":4097}],\"tune\":{\"n\":16777216}},"                   \
    "\"device\":false,\"budget\":null}"

/* Replies as JSON string literals for scripts. */
#define R_CHECKLIST "Here is the checklist:\\n```json\\n" CHECKLIST_JSON_ESC "\\n```\\nDone."
#define R_REFERENCE                                                                                \
    "```c\\n#include <stddef.h>\\n/* REF_MARKER_7781 */\\nvoid saxpy_reference(int n, float a, "   \
    "const float *x, float *y)\\n{\\n    for (int i = 0; i < n; i++)\\n        y[i] = a * x[i] + " \
    "y[i];\\n}\\n```"
#define R_KERNEL                                                                                   \
    "Design: 1d grid, 256 threads\\n\\nSome prose first.\\n```cuda\\n#include "                    \
    "<cuda_runtime.h>\\n__global__ void saxpy_k(int n, float a, const float *x, float *y)\\n{\\n"  \
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\\n    if (i < n) y[i] = a * x[i] + "       \
    "y[i];\\n}\\nextern \\\"C\\\" void saxpy_launcher(int n, float a, const float *x, float "      \
    "*y)\\n{\\n    /* CANDIDATE_MARKER_4242 */\\n    saxpy_k<<<(n + 255) / 256, 256>>>(n, a, x, "  \
    "y);\\n}\\n```\\nThat is all."

/* CHECKLIST_JSON escaped for embedding in a JSON string: built at run time. */
#define CHECKLIST_JSON_ESC "@CHECKLIST@"

/* Builds a script from a template in which @CHECKLIST@ stands for the escaped checklist. */
static char *script(const char *tmpl)
{
    cJSON *s = cJSON_CreateString(CHECKLIST_JSON);
    char *q = cJSON_PrintUnformatted(s);
    cJSON_Delete(s);
    q[strlen(q) - 1] = '\0'; /* without the quotes */
    const char *vars[] = {"CK", q + 1, NULL};
    ch_strbuf sb;
    ch_strbuf_init(&sb);
    for (const char *p = tmpl; *p; p++)
        if (strncmp(p, "@CHECKLIST@", 11) == 0) {
            ch_strbuf_adds(&sb, "{{CK}}");
            p += 10;
        } else {
            ch_strbuf_addc(&sb, *p);
        }
    char *res = ch_template_fill(sb.data, vars);
    ch_strbuf_free(&sb);
    free(q);
    return res;
}

static fake start(const char *tmpl)
{
    char *s = script(tmpl);
    fake f = fake_start(s);
    free(s);
    return f;
}

static ch_checklist sample_checklist(void)
{
    ch_checklist c;
    ch_error err;
    cr_assert_eq(ch_checklist_from_json(CHECKLIST_JSON, &c, &err), 0, "%s", err.msg);
    return c;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- the three jobs, per provider ---- */

static void three_jobs(const char *provider)
{
    fake f = start("{\"steps\":[{\"reply\":\"" R_CHECKLIST "\",\"usage\":[100,50]},"
                   "{\"reply\":\"" R_REFERENCE "\",\"usage\":[80,40]},"
                   "{\"reply\":\"" R_KERNEL "\",\"usage\":[120,60]}]}");
    const char *extra[] = {"temperature", "0.3", "max_tokens", "1234", NULL};
    ch_config cfg = cfg_for(provider, &f, extra);
    ch_agent *ag = open_agent(&cfg);
    cr_assert_str_eq(ag->ops->name, provider);
    ch_error err;
    ch_entry e = saxpy_entry();

    ch_checklist c;
    cr_assert_eq(ag->ops->checklist(ag, &e, &c, &err), 0, "%s", err.msg);
    cr_assert_str_eq(c.name, "saxpy");
    cr_assert_eq(c.n_params, 4);
    cr_assert_str_eq(c.params[3].name, "y");
    cr_assert_eq(c.params[3].dir, CH_DIR_INOUT);

    char *ref = NULL;
    cr_assert_eq(ag->ops->test_author(ag, &c, &ref, &err), 0, "%s", err.msg);
    cr_assert(strstr(ref, "void saxpy_reference(int n"));
    cr_assert_null(strstr(ref, "```"));

    ch_kernel_request kr = {.checklist = &c, .entry = &e};
    char *cu = NULL, *design = NULL;
    cr_assert_eq(ag->ops->kernel(ag, &kr, &cu, &design, &err), 0, "%s", err.msg);
    cr_assert(strstr(cu, "extern \"C\" void saxpy_launcher(int n"));
    cr_assert(strstr(cu, "__global__ void saxpy_k"));
    cr_assert_null(strstr(cu, "prose"));
    cr_assert_null(strstr(cu, "```"));
    cr_assert_str_eq(design, "1d grid, 256 threads");

    cr_assert_eq(ag->usage.requests, 3);
    cr_assert_eq(ag->usage.retries, 0);
    cr_assert_eq(ag->usage.prompt_tokens, 300);
    cr_assert_eq(ag->usage.completion_tokens, 150);
    cr_assert_eq(ch_llm_entry_tokens(ag->impl, "saxpy"), 450);

    cJSON *recs = recorded(&f);
    cr_assert_eq(cJSON_GetArraySize(recs), 3);
    for (int i = 0; i < 3; i++) {
        const cJSON *r = cJSON_GetArrayItem(recs, i);
        const cJSON *h = cJSON_GetObjectItemCaseSensitive(r, "headers");
        const cJSON *b = cJSON_GetObjectItemCaseSensitive(r, "body");
        cr_assert_str_eq(jstr(b, "model"), "test-model");
        cr_assert_float_eq(cJSON_GetObjectItem(b, "temperature")->valuedouble, 0.3, 1e-9);
        cr_assert_eq(cJSON_GetObjectItem(b, "max_tokens")->valueint, 1234);
        cr_assert_str_eq(jstr(h, "content-type"), "application/json");
        const cJSON *msgs = cJSON_GetObjectItem(b, "messages");
        char *all = body_text(recs, i);
        cr_assert_null(strstr(all, "{{"), "unfilled placeholder in request %d", i);
        free(all);
        if (strcmp(provider, "openai") == 0) {
            cr_assert_str_eq(jstr(r, "path"), "/v1/chat/completions");
            cr_assert_str_eq(jstr(h, "authorization"), "Bearer " KEY);
            cr_assert_null(jstr(h, "x-api-key"));
            cr_assert_eq(cJSON_GetArraySize(msgs), 2);
            cr_assert_str_eq(jstr(cJSON_GetArrayItem(msgs, 0), "role"), "system");
            cr_assert_str_eq(jstr(cJSON_GetArrayItem(msgs, 1), "role"), "user");
        } else {
            cr_assert_str_eq(jstr(r, "path"), "/v1/messages");
            cr_assert_str_eq(jstr(h, "x-api-key"), KEY);
            cr_assert_str_eq(jstr(h, "anthropic-version"), "2023-06-01");
            cr_assert_null(jstr(h, "authorization"));
            cr_assert(strstr(jstr(b, "system"), "ch-cc"));
            cr_assert_eq(cJSON_GetArraySize(msgs), 1);
            cr_assert_str_eq(jstr(cJSON_GetArrayItem(msgs, 0), "role"), "user");
        }
    }
    /* Each job states its task: the kernel author gets the contract and the hardware. */
    char *k = body_text(recs, 2);
    cr_assert(strstr(k, "extern \\\"C\\\" void saxpy_launcher(int n, float a, const float *x, "
                        "float *y)"));
    cr_assert(strstr(k, "sm_90 (NVIDIA H200), 132 SMs, 50 MiB L2, 48 KiB shared memory"));
    cr_assert(strstr(k, "tune size: n = 16777216"));
    free(k);
    char *t = body_text(recs, 1);
    cr_assert(strstr(t, "void saxpy_reference(int n, float a, const float *x, float *y)"));
    free(t);
    cJSON_Delete(recs);

    free(ref);
    free(cu);
    free(design);
    ch_checklist_free(&c);
    ch_agent_close(ag);
    ch_config_free(&cfg);
    fake_stop(&f);
}

Test(agent, openai_completes_three_jobs)
{
    three_jobs("openai");
}
Test(agent, anthropic_completes_three_jobs)
{
    three_jobs("anthropic");
}

/* ---- isolation ---- */

Test(agent, kernel_author_never_sees_reference_or_test_data)
{
    fake f = start("{\"steps\":[{\"reply\":\"" R_KERNEL "\"},{\"reply\":\"" R_REFERENCE "\"},"
                   "{\"reply\":\"" R_KERNEL "\"},{\"reply\":\"" R_KERNEL "\"}]}");
    ch_config cfg = cfg_for("openai", &f, NULL);
    ch_agent *ag = open_agent(&cfg);
    ch_checklist c = sample_checklist();
    ch_error err;
    char *cu = NULL, *ref = NULL, *design = NULL;
    ch_kernel_request kr = {.checklist = &c};
    /* A first candidate, then the reference, then two evolution rounds with feedback. */
    cr_assert_eq(ag->ops->kernel(ag, &kr, &cu, &design, &err), 0, "%s", err.msg);
    cr_assert_eq(ag->ops->test_author(ag, &c, &ref, &err), 0, "%s", err.msg);
    cr_assert(strstr(ref, "REF_MARKER_7781"));
    kr.parent_source = cu;
    kr.feedback = "stage 3 (correctness): y[17] differs at n = 33";
    kr.round = 1;
    char *cu2 = NULL;
    cr_assert_eq(ag->ops->kernel(ag, &kr, &cu2, NULL, &err), 0, "%s", err.msg);
    kr.fresh_design = 1;
    kr.round = 2;
    char *cu3 = NULL;
    cr_assert_eq(ag->ops->kernel(ag, &kr, &cu3, NULL, &err), 0, "%s", err.msg);

    cJSON *recs = recorded(&f);
    cr_assert_eq(cJSON_GetArraySize(recs), 4);
    const int kernel_reqs[] = {0, 2, 3};
    for (int k = 0; k < 3; k++) {
        char *b = body_text(recs, kernel_reqs[k]);
        cr_assert_null(strstr(b, "REF_MARKER_7781"), "reference reached the kernel author");
        cr_assert_null(strstr(b, "saxpy_reference"));
        cr_assert_null(strstr(b, "1000003"), "test sizes reached the kernel author");
        cr_assert_null(strstr(b, "4097"));
        cr_assert_null(strstr(b, "seed"));
        free(b);
    }
    /* The feedback round carries parent and feedback as a turn; the fresh design does not. */
    char *b2 = body_text(recs, 2);
    cr_assert(strstr(b2, "CANDIDATE_MARKER_4242"));
    cr_assert(strstr(b2, "y[17] differs at n = 33"));
    free(b2);
    const cJSON *msgs2 =
        cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetArrayItem(recs, 2), "body"), "messages");
    cr_assert_eq(cJSON_GetArraySize(msgs2), 4);
    cr_assert_str_eq(jstr(cJSON_GetArrayItem(msgs2, 2), "role"), "assistant");
    char *b3 = body_text(recs, 3);
    cr_assert_null(strstr(b3, "CANDIDATE_MARKER_4242"));
    cr_assert(strstr(b3, "different from the earlier candidates"));
    free(b3);
    /* The test author sees the test sizes but never a candidate. */
    char *t = body_text(recs, 1);
    cr_assert(strstr(t, "1000003"));
    cr_assert_null(strstr(t, "CANDIDATE_MARKER_4242"));
    cr_assert_null(strstr(t, "saxpy_launcher"));
    free(t);
    cJSON_Delete(recs);
    free(cu);
    free(cu2);
    free(cu3);
    free(ref);
    free(design);
    ch_checklist_free(&c);
    ch_agent_close(ag);
    ch_config_free(&cfg);
    fake_stop(&f);
}

/* ---- retries and failures ---- */

/* Runs one kernel job against a script; returns its rc, err and the request count. */
static int kernel_once(const char *provider, const char *tmpl, const char *const *extra,
                       ch_error *err, int *requests, ch_agent_usage *usage)
{
    fake f = start(tmpl);
    ch_config cfg = cfg_for(provider, &f, extra);
    ch_agent *ag = open_agent(&cfg);
    ch_checklist c = sample_checklist();
    ch_kernel_request kr = {.checklist = &c};
    char *cu = NULL;
    int rc = ag->ops->kernel(ag, &kr, &cu, NULL, err);
    if (rc == 0)
        cr_assert(strstr(cu, "saxpy_launcher"));
    else
        cr_assert_null(cu);
    cJSON *recs = recorded(&f);
    *requests = cJSON_GetArraySize(recs);
    if (usage)
        *usage = ag->usage;
    cJSON_Delete(recs);
    free(cu);
    ch_checklist_free(&c);
    ch_agent_close(ag);
    ch_config_free(&cfg);
    fake_stop(&f);
    cr_assert_null(strstr(err->msg, KEY), "key in error: %s", err->msg);
    return rc;
}

Test(agent, retry_after_on_429_is_honoured)
{
    ch_error err;
    int n;
    ch_agent_usage u;
    double t0 = now_s();
    int rc = kernel_once("openai",
                         "{\"steps\":[{\"status\":429,\"headers\":{\"Retry-After\":\"1\"},"
                         "\"body\":{\"error\":{\"message\":\"slow down\"}}},"
                         "{\"reply\":\"" R_KERNEL "\"}]}",
                         NULL, &err, &n, &u);
    double dt = now_s() - t0;
    cr_assert_eq(rc, 0, "%s", err.msg);
    cr_assert_eq(n, 2);
    cr_assert_eq(u.requests, 2);
    cr_assert_eq(u.retries, 1);
    cr_assert(dt >= 0.95, "waited only %.2f s despite Retry-After: 1", dt);
}

Test(agent, quota_429_after_retries_is_one_clear_error)
{
    ch_error err;
    int n;
    int rc = kernel_once("anthropic",
                         "{\"default\":{\"status\":429,\"body\":{\"type\":\"error\",\"error\":{"
                         "\"type\":\"rate_limit_error\",\"message\":\"quota exhausted\"}}}}",
                         NULL, &err, &n, NULL);
    cr_assert_neq(rc, 0);
    cr_assert_eq(n, 3); /* retries = 2 */
    cr_assert(strstr(err.msg, "rate limit or quota exceeded (HTTP 429)"), "%s", err.msg);
    cr_assert(strstr(err.msg, "after 3 attempts"), "%s", err.msg);
    cr_assert(strstr(err.msg, "quota exhausted"), "%s", err.msg);
    cr_assert_null(strchr(err.msg, '\n'));
}

Test(agent, huge_retry_after_fails_at_once)
{
    ch_error err;
    int n;
    int rc = kernel_once("openai",
                         "{\"default\":{\"status\":429,\"headers\":{\"Retry-After\":\"86400\"},"
                         "\"body\":\"{}\"}}",
                         NULL, &err, &n, NULL);
    cr_assert_neq(rc, 0);
    cr_assert_eq(n, 1);
    cr_assert(strstr(err.msg, "wait 86400 s"), "%s", err.msg);
}

Test(agent, server_error_500_is_retried)
{
    ch_error err;
    int n;
    ch_agent_usage u;
    int rc = kernel_once("openai",
                         "{\"steps\":[{\"status\":500,\"body\":\"oops\"},{\"status\":503,"
                         "\"body\":\"busy\"},{\"reply\":\"" R_KERNEL "\"}]}",
                         NULL, &err, &n, &u);
    cr_assert_eq(rc, 0, "%s", err.msg);
    cr_assert_eq(n, 3);
    cr_assert_eq(u.retries, 2);
}

Test(agent, persistent_500_names_status_and_attempts)
{
    ch_error err;
    int n;
    int rc = kernel_once("openai", "{\"default\":{\"status\":502,\"body\":\"bad gateway\"}}", NULL,
                         &err, &n, NULL);
    cr_assert_neq(rc, 0);
    cr_assert_eq(n, 3);
    cr_assert(strstr(err.msg, "model server error (HTTP 502)"), "%s", err.msg);
    cr_assert(strstr(err.msg, "after 3 attempts"), "%s", err.msg);
}

Test(agent, connection_reset_is_retried)
{
    ch_error err;
    int n;
    int rc = kernel_once("openai",
                         "{\"steps\":[{\"close\":true},{\"raw\":\"HTTP/1.1 200 OK\\r\\nConte\"},"
                         "{\"reply\":\"" R_KERNEL "\"}]}",
                         NULL, &err, &n, NULL);
    cr_assert_eq(rc, 0, "%s", err.msg);
    cr_assert_eq(n, 3);
}

Test(agent, no_retry_on_400)
{
    ch_error err;
    int n;
    int rc = kernel_once("openai",
                         "{\"default\":{\"status\":400,\"body\":{\"error\":{\"message\":\"bad "
                         "max_tokens\"}}}}",
                         NULL, &err, &n, NULL);
    cr_assert_neq(rc, 0);
    cr_assert_eq(n, 1);
    cr_assert(strstr(err.msg, "refused the request (HTTP 400)"), "%s", err.msg);
    cr_assert(strstr(err.msg, "bad max_tokens"), "%s", err.msg);
}

Test(agent, bad_key_is_named_and_never_echoed)
{
    ch_error err;
    int n;
    int rc = kernel_once("openai",
                         "{\"default\":{\"status\":401,\"body\":{\"error\":{\"message\":"
                         "\"Incorrect API key provided: " KEY "\"}}}}",
                         NULL, &err, &n, NULL);
    cr_assert_neq(rc, 0);
    cr_assert_eq(n, 1);
    cr_assert(strstr(err.msg, "rejected the API key (HTTP 401)"), "%s", err.msg);
    cr_assert(strstr(err.msg, "OPENAI_API_KEY"), "%s", err.msg);
    cr_assert(strstr(err.msg, "[REDACTED]"), "%s", err.msg);
}

Test(agent, unknown_model_404)
{
    ch_error err;
    int n;
    int rc = kernel_once("anthropic",
                         "{\"default\":{\"status\":404,\"body\":{\"type\":\"error\",\"error\":{"
                         "\"type\":\"not_found_error\",\"message\":\"model: test-model\"}}}}",
                         NULL, &err, &n, NULL);
    cr_assert_neq(rc, 0);
    cr_assert(strstr(err.msg, "unknown model 'test-model'"), "%s", err.msg);
}

Test(agent, timeout_is_one_clear_error)
{
    ch_error err;
    int n;
    const char *extra[] = {"request_timeout", "0.5", "retries", "0", NULL};
    double t0 = now_s();
    int rc = kernel_once("openai", "{\"default\":{\"delay\":3,\"reply\":\"late\"}}", extra, &err,
                         &n, NULL);
    cr_assert_neq(rc, 0);
    cr_assert(now_s() - t0 < 2.5);
    cr_assert(strstr(err.msg, "timed out after"), "%s", err.msg);
    cr_assert(strstr(err.msg, "request_timeout"), "%s", err.msg);
}

Test(agent, truncated_body_after_retries)
{
    ch_error err;
    int n;
    int rc = kernel_once("openai", "{\"default\":{\"truncate\":20,\"reply\":\"x\"}}", NULL, &err,
                         &n, NULL);
    cr_assert_neq(rc, 0);
    cr_assert_eq(n, 3);
    cr_assert(strstr(err.msg, "truncated reply"), "%s", err.msg);
}

Test(agent, malformed_json_reply)
{
    ch_error err;
    int n;
    int rc = kernel_once("openai", "{\"default\":{\"body\":\"{\\\"choices\\\": [\"}}", NULL, &err,
                         &n, NULL);
    cr_assert_neq(rc, 0);
    cr_assert_eq(n, 1);
    cr_assert(strstr(err.msg, "malformed JSON in the reply"), "%s", err.msg);
}

Test(agent, wrong_reply_shape)
{
    ch_error err;
    int n;
    int rc =
        kernel_once("anthropic", "{\"default\":{\"body\":{\"choices\":[]}}}", NULL, &err, &n, NULL);
    cr_assert_neq(rc, 0);
    cr_assert(strstr(err.msg, "unexpected reply"), "%s", err.msg);
    cr_assert(strstr(err.msg, "no content array"), "%s", err.msg);
}

Test(agent, server_down)
{
    ch_error err;
    /* A port nobody listens on: start a server, note its port, stop it. */
    fake f = start("{\"steps\":[]}");
    char url[64];
    snprintf(url, sizeof url, "%s", f.url);
    fake_stop(&f);
    const char *extra[] = {"api_base", url, NULL};
    ch_config cfg = cfg_for("openai", NULL, extra);
    ch_agent *ag = open_agent(&cfg);
    ch_checklist c = sample_checklist();
    ch_kernel_request kr = {.checklist = &c};
    char *cu = NULL;
    cr_assert_neq(ag->ops->kernel(ag, &kr, &cu, NULL, &err), 0);
    cr_assert(strstr(err.msg, "cannot connect to the model server"), "%s", err.msg);
    cr_assert(strstr(err.msg, "after 3 attempts"), "%s", err.msg);
    cr_assert_eq(ag->usage.requests, 3);
    ch_checklist_free(&c);
    ch_agent_close(ag);
    ch_config_free(&cfg);
}

/* ---- unusable replies: one retry with feedback ---- */

Test(agent, missing_code_block_gets_one_feedback_retry_then_fails)
{
    fake f = start("{\"default\":{\"reply\":\"I would write a kernel with 256 threads.\"}}");
    ch_config cfg = cfg_for("openai", &f, NULL);
    ch_agent *ag = open_agent(&cfg);
    ch_checklist c = sample_checklist();
    ch_kernel_request kr = {.checklist = &c};
    char *cu = NULL;
    ch_error err;
    cr_assert_neq(ag->ops->kernel(ag, &kr, &cu, NULL, &err), 0);
    cr_assert(strstr(err.msg, "unusable twice"), "%s", err.msg);
    cr_assert(strstr(err.msg, "no ```cuda code block"), "%s", err.msg);
    cJSON *recs = recorded(&f);
    cr_assert_eq(cJSON_GetArraySize(recs), 2);
    const cJSON *msgs =
        cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetArrayItem(recs, 1), "body"), "messages");
    cr_assert_eq(cJSON_GetArraySize(msgs), 4);
    cr_assert_str_eq(jstr(cJSON_GetArrayItem(msgs, 2), "role"), "assistant");
    cr_assert(strstr(jstr(cJSON_GetArrayItem(msgs, 2), "content"), "256 threads"));
    const char *fb = jstr(cJSON_GetArrayItem(msgs, 3), "content");
    cr_assert(strstr(fb, "no ```cuda code block"), "%s", fb);
    cr_assert(strstr(fb, "```cuda block"), "%s", fb);
    cJSON_Delete(recs);
    ch_checklist_free(&c);
    ch_agent_close(ag);
    ch_config_free(&cfg);
    fake_stop(&f);
}

Test(agent, invalid_checklist_feedback_then_success)
{
    fake f = start("{\"steps\":[{\"reply\":\"```json\\n{\\\"name\\\": \\\"saxpy\\\"}\\n```\"},"
                   "{\"reply\":\"" R_CHECKLIST "\"}]}");
    ch_config cfg = cfg_for("anthropic", &f, NULL);
    ch_agent *ag = open_agent(&cfg);
    ch_entry e = saxpy_entry();
    ch_checklist c;
    ch_error err;
    cr_assert_eq(ag->ops->checklist(ag, &e, &c, &err), 0, "%s", err.msg);
    cr_assert_str_eq(c.name, "saxpy");
    cJSON *recs = recorded(&f);
    cr_assert_eq(cJSON_GetArraySize(recs), 2);
    const cJSON *msgs =
        cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetArrayItem(recs, 1), "body"), "messages");
    cr_assert_eq(cJSON_GetArraySize(msgs), 3);
    cr_assert(strstr(jstr(cJSON_GetArrayItem(msgs, 2), "content"), "the checklist is invalid"));
    cJSON_Delete(recs);
    ch_checklist_free(&c);
    ch_agent_close(ag);
    ch_config_free(&cfg);
    fake_stop(&f);
}

/* What the pragma's range() and sample() clauses say is shown in the skeleton the model
 * completes and kept over whatever the reply says (x in [-1, 1] there, no sample). */
Test(agent, checklist_keeps_the_pragmas_input_clauses)
{
    fake f = start("{\"default\":{\"reply\":\"" R_CHECKLIST "\"}}");
    ch_config cfg = cfg_for("openai", &f, NULL);
    ch_agent *ag = open_agent(&cfg);
    ch_entry e = saxpy_entry();
    ch_param params[4];
    memcpy(params, saxpy_params, sizeof params);
    params[2].values_explicit = 1;
    params[2].has_range = 1;
    params[2].lo = -3;
    params[2].hi = 3;
    e.params = params;
    e.clauses.sample = "fill_saxpy";
    ch_checklist c;
    ch_error err;
    cr_assert_eq(ag->ops->checklist(ag, &e, &c, &err), 0, "%s", err.msg);
    cr_expect_eq(c.params[2].lo, -3);
    cr_expect_eq(c.params[2].hi, 3);
    cr_expect_eq(c.params[3].lo, -1, "a parameter without a clause keeps the model's range");
    cr_expect_str_eq(c.sample, "fill_saxpy");
    cJSON *recs = recorded(&f);
    char *body = body_text(recs, 0);
    cr_expect(strstr(body, "fill_saxpy"), "the skeleton names the sample function");
    cr_expect(strstr(body, "-3"), "the skeleton holds the clause's range");
    free(body);
    cJSON_Delete(recs);
    ch_checklist_free(&c);
    ch_agent_close(ag);
    ch_config_free(&cfg);
    fake_stop(&f);
}

Test(agent, checklist_must_match_the_signature)
{
    fake f = start("{\"default\":{\"reply\":\"" R_CHECKLIST "\"}}");
    ch_config cfg = cfg_for("openai", &f, NULL);
    ch_agent *ag = open_agent(&cfg);
    ch_entry e = saxpy_entry();
    e.name = "daxpy";
    ch_checklist c;
    ch_error err;
    cr_assert_neq(ag->ops->checklist(ag, &e, &c, &err), 0);
    cr_assert(strstr(err.msg, "\"name\" must be \"daxpy\""), "%s", err.msg);
    ch_agent_close(ag);
    ch_config_free(&cfg);
    fake_stop(&f);
}

Test(agent, reply_cut_at_token_limit_is_explained)
{
    fake f = start("{\"default\":{\"reply\":\"```cuda\\n__global__ void k(\",\"finish\":"
                   "\"length\"}}");
    ch_config cfg = cfg_for("openai", &f, NULL);
    ch_agent *ag = open_agent(&cfg);
    ch_checklist c = sample_checklist();
    ch_kernel_request kr = {.checklist = &c};
    char *cu = NULL;
    ch_error err;
    cr_assert_neq(ag->ops->kernel(ag, &kr, &cu, NULL, &err), 0);
    cr_assert(strstr(err.msg, "token limit"), "%s", err.msg);
    cr_assert(strstr(err.msg, "ends inside a code block"), "%s", err.msg);
    ch_checklist_free(&c);
    ch_agent_close(ag);
    ch_config_free(&cfg);
    fake_stop(&f);
}

/* ---- budget ---- */

Test(agent, token_budget_stops_the_job)
{
    fake f = start("{\"default\":{\"reply\":\"no code here\",\"usage\":[40,30]}}");
    const char *extra[] = {"max_tokens_per_entry", "100", "max_tokens", "4096", NULL};
    ch_config cfg = cfg_for("openai", &f, extra);
    ch_agent *ag = open_agent(&cfg);
    ch_checklist c = sample_checklist();
    ch_kernel_request kr = {.checklist = &c};
    char *cu = NULL;
    ch_error err;
    /* First request (70 tokens), the feedback retry is capped at the 30 left (70 more), then
     * the budget is spent and the next job stops before sending anything. */
    cr_assert_neq(ag->ops->kernel(ag, &kr, &cu, NULL, &err), 0);
    cr_assert_neq(ag->ops->kernel(ag, &kr, &cu, NULL, &err), 0);
    cr_assert(strstr(err.msg, "token budget of entry 'saxpy' spent: 140 of 100"), "%s", err.msg);
    cJSON *recs = recorded(&f);
    cr_assert_eq(cJSON_GetArraySize(recs), 2);
    const cJSON *b0 = cJSON_GetObjectItem(cJSON_GetArrayItem(recs, 0), "body");
    const cJSON *b1 = cJSON_GetObjectItem(cJSON_GetArrayItem(recs, 1), "body");
    cr_assert_eq(cJSON_GetObjectItem(b0, "max_tokens")->valueint, 100);
    cr_assert_eq(cJSON_GetObjectItem(b1, "max_tokens")->valueint, 30);
    cJSON_Delete(recs);
    /* Another entry still has its own budget. */
    cr_assert_eq(ch_llm_entry_tokens(ag->impl, "other"), 0);
    ch_checklist_free(&c);
    ch_agent_close(ag);
    ch_config_free(&cfg);
    fake_stop(&f);
}

/* ---- transcripts ---- */

static void assert_no_key_in_dir(const char *dir, int *files)
{
    DIR *d = opendir(dir);
    cr_assert(d);
    struct dirent *de;
    while ((de = readdir(d))) {
        if (de->d_name[0] == '.')
            continue;
        char *p = ch_path_join(dir, de->d_name);
        char *text = NULL;
        ch_error err;
        cr_assert_eq(ch_read_file(p, &text, NULL, &err), 0);
        cr_assert_null(strstr(text, KEY), "key in %s", p);
        cr_assert_null(strstr(text, "S3CRET"), "key part in %s", p);
        cr_assert(strstr(text, "[REDACTED]"), "no redacted header in %s", p);
        (*files)++;
        free(text);
        free(p);
    }
    closedir(d);
}

static void transcripts(const char *provider)
{
    fake f = start("{\"steps\":[{\"reply\":\"" R_KERNEL " echo " KEY "\"},"
                   "{\"status\":401,\"body\":{\"error\":{\"message\":\"bad key " KEY "\"}}}]}");
    ch_error err;
    char *tmp = ch_make_temp_dir("agent-log", &err);
    char *log = ch_path_join(tmp, "transcripts");
    const char *extra[] = {"log", log, NULL};
    ch_config cfg = cfg_for(provider, &f, extra);
    ch_agent *ag = open_agent(&cfg);
    ch_checklist c = sample_checklist();
    ch_kernel_request kr = {.checklist = &c};
    char *cu = NULL;
    cr_assert_eq(ag->ops->kernel(ag, &kr, &cu, NULL, &err), 0, "%s", err.msg);
    free(cu);
    cu = NULL;
    cr_assert_neq(ag->ops->kernel(ag, &kr, &cu, NULL, &err), 0);
    cr_assert_null(strstr(err.msg, KEY));
    int files = 0;
    assert_no_key_in_dir(log, &files);
    cr_assert_eq(files, 2);
    ch_checklist_free(&c);
    ch_agent_close(ag);
    ch_config_free(&cfg);
    fake_stop(&f);
    ch_remove_tree(tmp, &err);
    free(log);
    free(tmp);
}

Test(agent, openai_transcripts_are_redacted)
{
    transcripts("openai");
}
Test(agent, anthropic_transcripts_are_redacted)
{
    transcripts("anthropic");
}

/* ---- the configuration chain ---- */

Test(agent, provider_settings_come_from_the_environment)
{
    fake f = start("{\"default\":{\"reply\":\"" R_KERNEL "\"}}");
    setenv("CH_CC_PROVIDER", "anthropic", 1);
    setenv("CH_CC_MODEL", "env-model", 1);
    setenv("CH_CC_API_BASE", f.url, 1);
    setenv("CH_CC_RETRY_BACKOFF", "0.01", 1);
    unsetenv("CH_CC_API_KEY");
    setenv("ANTHROPIC_API_KEY", "ant-env-key-1234", 1);
    setenv("OPENAI_API_KEY", "oai-env-key-5678", 1);
    ch_config cfg;
    ch_error err;
    cr_assert_eq(ch_config_load(&cfg, "/", &err), 0);
    ch_agent *ag = open_agent(&cfg);
    cr_assert_str_eq(ag->ops->name, "anthropic");
    ch_checklist c = sample_checklist();
    ch_kernel_request kr = {.checklist = &c};
    char *cu = NULL;
    cr_assert_eq(ag->ops->kernel(ag, &kr, &cu, NULL, &err), 0, "%s", err.msg);
    free(cu);
    ch_agent_close(ag);

    /* The command line beats the environment; CH_CC_API_KEY beats the provider's variable. */
    cr_assert_eq(ch_config_set(&cfg, "provider", "openai", CH_CFG_CMDLINE, &err), 0);
    cr_assert_eq(ch_config_set(&cfg, "model", "cli-model", CH_CFG_CMDLINE, &err), 0);
    ag = open_agent(&cfg);
    cr_assert_str_eq(ag->ops->name, "openai");
    cr_assert_eq(ag->ops->kernel(ag, &kr, &cu, NULL, &err), 0, "%s", err.msg);
    free(cu);
    ch_agent_close(ag);
    cr_assert_eq(ch_config_set(&cfg, "api_key", "cc-key-9999", CH_CFG_CMDLINE, &err), 0);
    ag = open_agent(&cfg);
    cr_assert_eq(ag->ops->kernel(ag, &kr, &cu, NULL, &err), 0, "%s", err.msg);
    free(cu);
    ch_agent_close(ag);

    cJSON *recs = recorded(&f);
    cr_assert_eq(cJSON_GetArraySize(recs), 3);
    const cJSON *r0 = cJSON_GetArrayItem(recs, 0), *r1 = cJSON_GetArrayItem(recs, 1),
                *r2 = cJSON_GetArrayItem(recs, 2);
    cr_assert_str_eq(jstr(r0, "path"), "/v1/messages");
    cr_assert_str_eq(jstr(cJSON_GetObjectItem(r0, "body"), "model"), "env-model");
    cr_assert_str_eq(jstr(cJSON_GetObjectItem(r0, "headers"), "x-api-key"), "ant-env-key-1234");
    cr_assert_str_eq(jstr(r1, "path"), "/v1/chat/completions");
    cr_assert_str_eq(jstr(cJSON_GetObjectItem(r1, "body"), "model"), "cli-model");
    cr_assert_str_eq(jstr(cJSON_GetObjectItem(r1, "headers"), "authorization"),
                     "Bearer oai-env-key-5678");
    cr_assert_str_eq(jstr(cJSON_GetObjectItem(r2, "headers"), "authorization"),
                     "Bearer cc-key-9999");
    cJSON_Delete(recs);
    ch_checklist_free(&c);
    ch_config_free(&cfg);
    fake_stop(&f);
}

Test(agent, no_key_sends_no_auth_header_and_default_temperature_is_omitted)
{
    fake f = start("{\"default\":{\"reply\":\"" R_KERNEL "\"}}");
    unsetenv("OPENAI_API_KEY");
    const char *extra[] = {"api_key", "", "temperature", "default", NULL};
    ch_config cfg = cfg_for("openai", &f, extra);
    ch_agent *ag = open_agent(&cfg);
    ch_checklist c = sample_checklist();
    ch_kernel_request kr = {.checklist = &c};
    char *cu = NULL;
    ch_error err;
    cr_assert_eq(ag->ops->kernel(ag, &kr, &cu, NULL, &err), 0, "%s", err.msg);
    cJSON *recs = recorded(&f);
    cr_assert_null(
        jstr(cJSON_GetObjectItem(cJSON_GetArrayItem(recs, 0), "headers"), "authorization"));
    cJSON_Delete(recs);
    free(cu);
    ch_checklist_free(&c);
    ch_agent_close(ag);
    ch_config_free(&cfg);
    fake_stop(&f);
}

Test(agent, open_errors_are_clear)
{
    ch_config cfg = cfg_for("openai", NULL, NULL);
    ch_agent *ag = NULL;
    ch_error err;
    cr_assert_eq(ch_config_set(&cfg, "model", "", CH_CFG_CMDLINE, &err), 0);
    cr_assert_neq(ch_agent_open(&cfg, NULL, NULL, &ag, &err), 0);
    cr_assert_null(ag);
    cr_assert(strstr(err.msg, "no model set: set CH_CC_MODEL"), "%s", err.msg);
    cr_assert_neq(ch_agent_open(&cfg, "none", NULL, &ag, &err), 0);
    cr_assert(strstr(err.msg, "provider = none"), "%s", err.msg);
    cr_assert_neq(ch_agent_open(&cfg, "gpt", NULL, &ag, &err), 0);
    cr_assert(strstr(err.msg, "unknown provider 'gpt'"), "%s", err.msg);
    cr_assert_eq(ch_config_set(&cfg, "model", "m", CH_CFG_CMDLINE, &err), 0);
    cr_assert_eq(ch_config_set(&cfg, "api_base", "ftp://x", CH_CFG_CMDLINE, &err), 0);
    cr_assert_neq(ch_agent_open(&cfg, NULL, NULL, &ag, &err), 0);
    cr_assert(strstr(err.msg, "http:// or https://"), "%s", err.msg);
    cr_assert_eq(ch_config_set(&cfg, "api_base", "", CH_CFG_CMDLINE, &err), 0);
    cr_assert_eq(ch_config_set(&cfg, "retries", "many", CH_CFG_CMDLINE, &err), 0);
    cr_assert_neq(ch_agent_open(&cfg, NULL, NULL, &ag, &err), 0);
    cr_assert(strstr(err.msg, "retries"), "%s", err.msg);
    /* Defaults: the public endpoints, the hardware from CH_CC_ARCH. */
    cr_assert_eq(ch_config_set(&cfg, "retries", "1", CH_CFG_CMDLINE, &err), 0);
    cr_assert_eq(ch_config_set(&cfg, "arch", "sm_80", CH_CFG_CMDLINE, &err), 0);
    cr_assert_eq(ch_agent_open(&cfg, NULL, NULL, &ag, &err), 0, "%s", err.msg);
    cr_assert_str_eq(((ch_llm *)ag->impl)->url, "https://api.openai.com/v1/chat/completions");
    cr_assert_str_eq(ag->hw.arch, "sm_80");
    ch_agent_close(ag);
    cr_assert_eq(ch_agent_open(&cfg, "anthropic", NULL, &ag, &err), 0, "%s", err.msg);
    cr_assert_str_eq(((ch_llm *)ag->impl)->url, "https://api.anthropic.com/v1/messages");
    ch_agent_close(ag);
    ch_config_free(&cfg);
}

Test(agent, launcher_name)
{
    char *n = ch_agent_launcher_name("saxpy");
    cr_assert_str_eq(n, "saxpy_launcher");
    free(n);
}
