/* The conversation layer of the model-backed agents: the three jobs (checklist, test author,
 * kernel author) as separate conversations built from the embedded prompt templates, one
 * feedback retry for an unusable reply, usage accounting, the per-entry token budget and the
 * redacted transcripts.
 *
 * Isolation holds by construction: every job starts a fresh conversation from its own inputs
 * only. The kernel author's messages are made from the checklist (without the test sizes), the
 * hardware, the parent candidate and its feedback -- never from a reference, test data or seeds,
 * which this layer is never handed for that job; the test author gets the checklist only. */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ch/fsutil.h"
#include "ch/llm.h"
#include "ch/scaffold.h"
#include "ch/types.h"

/* ---- conversations ---- */

static void conv_init(ch_llm_conv *c, const char *system)
{
    memset(c, 0, sizeof *c);
    c->system = system ? ch_xstrdup(system) : NULL;
}

static void conv_add(ch_llm_conv *c, const char *role, char *content_owned)
{
    if (c->n == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 4;
        c->msgs = ch_xrealloc(c->msgs, c->cap * sizeof *c->msgs);
    }
    c->msgs[c->n].role = role;
    c->msgs[c->n].content = content_owned;
    c->n++;
}

static void conv_free(ch_llm_conv *c)
{
    for (size_t i = 0; i < c->n; i++)
        free(c->msgs[i].content);
    free(c->msgs);
    free(c->system);
    memset(c, 0, sizeof *c);
}

/* ---- budget ---- */

long ch_llm_entry_tokens(const ch_llm *llm, const char *entry)
{
    for (size_t i = 0; i < llm->n_spent; i++)
        if (strcmp(llm->spent[i].entry, entry) == 0)
            return llm->spent[i].tokens;
    return 0;
}

static void spend(ch_llm *llm, const char *entry, long tokens)
{
    for (size_t i = 0; i < llm->n_spent; i++)
        if (strcmp(llm->spent[i].entry, entry) == 0) {
            llm->spent[i].tokens += tokens;
            return;
        }
    llm->spent = ch_xrealloc(llm->spent, (llm->n_spent + 1) * sizeof *llm->spent);
    llm->spent[llm->n_spent].entry = ch_xstrdup(entry);
    llm->spent[llm->n_spent].tokens = tokens;
    llm->n_spent++;
}

/* ---- transcripts ---- */

/* One file per request: what was sent (headers with credentials replaced), what came back, and
 * how it ended. The whole text is redacted once more against the key before it is written. */
static void write_transcript(ch_llm *llm, const char *job, const char *entry,
                             const ch_strvec *headers, const char *request, const ch_http_reply *r,
                             const char *error)
{
    if (!llm->log_dir)
        return;
    cJSON *t = cJSON_CreateObject();
    cJSON_AddStringToObject(t, "provider", llm->proto->name);
    cJSON_AddStringToObject(t, "job", job);
    cJSON_AddStringToObject(t, "entry", entry);
    cJSON_AddStringToObject(t, "url", llm->url);
    cJSON *hs = cJSON_AddArrayToObject(t, "request_headers");
    for (size_t i = 0; i < headers->len; i++) {
        const char *h = headers->items[i];
        const char *colon = strchr(h, ':');
        size_t nlen = colon ? (size_t)(colon - h) : strlen(h);
        int cred = (nlen == 13 && strncasecmp(h, "authorization", 13) == 0) ||
                   (nlen == 9 && strncasecmp(h, "x-api-key", 9) == 0) ||
                   (nlen == 7 && strncasecmp(h, "api-key", 7) == 0);
        char *line = cred ? ch_xasprintf("%.*s: [REDACTED]", (int)nlen, h) : ch_xstrdup(h);
        cJSON_AddItemToArray(hs, cJSON_CreateString(line));
        free(line);
    }
    cJSON *req = cJSON_Parse(request);
    cJSON_AddItemToObject(t, "request", req ? req : cJSON_CreateString(request));
    cJSON_AddNumberToObject(t, "status", (double)r->status);
    cJSON_AddNumberToObject(t, "attempts", r->attempts);
    cJSON *rep = cJSON_ParseWithLength(r->body.data, r->body.len);
    cJSON_AddItemToObject(t, "reply", rep ? rep : cJSON_CreateString(r->body.data));
    if (error)
        cJSON_AddStringToObject(t, "error", error);
    char *text = cJSON_Print(t);
    cJSON_Delete(t);
    char *safe = ch_redact(text, llm->key);
    free(text);
    char *name = ch_xasprintf("%s/%04u-%ld-%s-%s.json", llm->log_dir, ++llm->log_seq,
                              (long)getpid(), entry, job);
    for (char *p = name + strlen(llm->log_dir) + 1; *p; p++)
        if (!isalnum((unsigned char)*p) && *p != '-' && *p != '_' && *p != '.')
            *p = '_';
    ch_error ignored;
    /* A transcript that cannot be written does not fail the build: it is a debugging aid. */
    (void)ch_write_file_atomic(name, safe, strlen(safe), 0, &ignored);
    free(name);
    free(safe);
}

/* ---- one request ---- */

/* Sends the conversation; on success *text is the reply (caller frees) and *cut says whether
 * it stopped at the token limit. Transport and protocol failures are final (no feedback). */
static int request(ch_agent *ag, const char *job, const char *entry, const ch_llm_conv *conv,
                   char **text, int *cut, ch_error *err)
{
    ch_llm *llm = ag->impl;
    long max_tokens = llm->max_tokens;
    if (llm->budget > 0) {
        long used = ch_llm_entry_tokens(llm, entry);
        if (used >= llm->budget)
            return ch_error_set(err,
                                "token budget of entry '%s' spent: %ld of %ld tokens used "
                                "(max_tokens_per_entry); stopping before the %s request",
                                entry, used, llm->budget, job);
        if (llm->budget - used < max_tokens)
            max_tokens = llm->budget - used;
    }
    cJSON *body = llm->proto->body(llm, conv, max_tokens);
    char *json = cJSON_PrintUnformatted(body);
    cJSON_Delete(body);
    ch_strvec headers;
    ch_strvec_init(&headers);
    llm->proto->headers(&headers, llm->key);

    ch_http_reply r;
    ch_http_reply_init(&r);
    int rc =
        ch_http_post_json(&llm->http, llm->url, (const char *const *)headers.items, json, &r, err);
    ag->usage.requests += r.attempts;
    ag->usage.retries += r.attempts > 0 ? r.attempts - 1 : 0;
    if (rc == 0) {
        cJSON *reply = cJSON_ParseWithLength(r.body.data, r.body.len);
        if (!reply) {
            rc = ch_error_set(err, "malformed JSON in the reply from %s (%zu bytes, HTTP %ld)",
                              llm->url, r.body.len, r.status);
        } else {
            ch_strbuf sb;
            ch_strbuf_init(&sb);
            long in = -1, out = -1;
            rc = llm->proto->parse(reply, &sb, &in, &out, cut, err);
            if (rc != 0)
                ch_error_prefix(err, "unexpected reply from %s", llm->url);
            /* Servers that report no usage are charged an estimate (4 bytes a token). */
            if (in < 0)
                in = (long)(strlen(json) / 4);
            if (out < 0)
                out = (long)(sb.len / 4);
            ag->usage.prompt_tokens += in;
            ag->usage.completion_tokens += out;
            spend(llm, entry, in + out);
            cJSON_Delete(reply);
            if (rc == 0)
                *text = ch_strbuf_detach(&sb);
            ch_strbuf_free(&sb);
        }
    }
    write_transcript(llm, job, entry, &headers, json, &r, rc ? err->msg : NULL);
    ch_http_reply_free(&r);
    ch_strvec_free(&headers);
    free(json);
    return rc;
}

/* ---- a job: request, check, one feedback retry ---- */

/* Checks a reply; 0 when usable (the job's result stored through ctx), else -1 with the reason
 * in err (which becomes the retry's feedback). */
typedef int (*accept_fn)(const char *reply, void *ctx, ch_error *err);

static int run_job(ch_agent *ag, const char *job, const char *entry, ch_llm_conv *conv,
                   const char *task, accept_fn accept, void *ctx, ch_error *err)
{
    for (int attempt = 0;; attempt++) {
        char *reply = NULL;
        int cut = 0;
        if (request(ag, job, entry, conv, &reply, &cut, err) != 0)
            return ch_error_prefix(err, "%s for '%s'", job, entry);
        ch_error why;
        ch_error_clear(&why);
        if (accept(reply, ctx, &why) == 0) {
            free(reply);
            return 0;
        }
        if (cut)
            ch_error_prefix(&why, "the reply stopped at the token limit; be shorter");
        if (attempt == 1) {
            free(reply);
            return ch_error_set(err, "%s for '%s': the model's reply was unusable twice: %s", job,
                                entry, why.msg);
        }
        const char *vars[] = {"what", "reply", "feedback", why.msg, "task", task, NULL};
        conv_add(conv, "assistant", reply);
        conv_add(conv, "user", ch_template_fill(ch_prompt("feedback.md"), vars));
    }
}

/* ---- rendering inputs for prompts ---- */

static void render_range(ch_strbuf *sb, const ch_ck_param *p)
{
    if (p->lo != 0 || p->hi != 0)
        ch_strbuf_addf(sb, ", values in [%g, %g]", p->lo, p->hi);
}

/* The checklist as people read it. with_sizes: include the smoke and correctness sizes (the
 * test author's view); the kernel author sees only the tune size. */
static void render_checklist(ch_strbuf *sb, const ch_checklist *c, int with_sizes)
{
    ch_strbuf_addf(sb, "name: %s\nsignature: %s\n", c->name, c->signature ? c->signature : "");
    if (c->description)
        ch_strbuf_addf(sb, "description: %s\n", c->description);
    ch_strbuf_adds(sb, "parameters:\n");
    for (size_t i = 0; i < c->n_params; i++) {
        const ch_ck_param *p = &c->params[i];
        ch_strbuf_addf(sb, "  - %s: %s", p->name, p->type ? p->type : "");
        if (p->role == CH_ROLE_SCALAR) {
            ch_strbuf_adds(sb, ", scalar");
        } else {
            ch_strbuf_addf(sb, ", %s, %s, %s elements", ch_role_name(p->role), ch_dir_name(p->dir),
                           p->extent ? p->extent : "?");
        }
        render_range(sb, p);
        if (p->index_hi)
            ch_strbuf_addf(sb, ", index values in [%s, %s)%s%s", p->index_lo ? p->index_lo : "0",
                           p->index_hi, p->index_of ? ", subscripts of " : "",
                           p->index_of ? p->index_of : "");
        if (p->index_hi && p->perm)
            ch_strbuf_adds(sb, ", pairwise distinct (a permutation: no two iterations write "
                               "one element)");
        if (p->offsets_hi)
            ch_strbuf_addf(sb, ", offsets: non-decreasing from 0 to %s", p->offsets_hi);
        if ((p->dir == CH_DIR_OUT || p->dir == CH_DIR_INOUT) && (p->rtol > 0 || p->atol > 0))
            ch_strbuf_addf(sb, ", tolerance rtol %g atol %g", p->rtol, p->atol);
        ch_strbuf_addc(sb, '\n');
    }
    if (c->reference && *c->reference)
        ch_strbuf_addf(sb, "reference semantics:\n```\n%s%s```\n", c->reference,
                       c->reference[strlen(c->reference) - 1] == '\n' ? "" : "\n");
    struct {
        const char *label;
        const ch_ck_size *s;
        size_t n;
    } sets[] = {{"smoke sizes", c->smoke, c->n_smoke},
                {"correctness sizes", c->correctness, c->n_correctness},
                {"tune size", &c->tune, 1}};
    for (size_t k = with_sizes ? 0 : 2; k < 3; k++) {
        if (sets[k].n == 0 || sets[k].s[0].n == 0)
            continue;
        ch_strbuf_addf(sb, "%s:", sets[k].label);
        for (size_t j = 0; j < sets[k].n; j++) {
            ch_strbuf_adds(sb, j ? "; " : " ");
            for (size_t v = 0; v < sets[k].s[j].n; v++)
                ch_strbuf_addf(sb, "%s%s = %lld", v ? ", " : "", sets[k].s[j].names[v],
                               sets[k].s[j].values[v]);
        }
        ch_strbuf_addc(sb, '\n');
    }
    ch_strbuf_addf(sb, "pointers: %s\n",
                   c->device ? "device pointers (the caller owns device memory; no copies)"
                             : "host pointers (the launcher allocates, copies in, launches and "
                               "copies back)");
}

static void render_hw(ch_strbuf *sb, const ch_agent_hw *hw)
{
    ch_strbuf_addf(sb, "%s",
                   hw->arch[0] ? hw->arch : "unknown architecture (assume sm_70 or newer)");
    if (hw->name[0])
        ch_strbuf_addf(sb, " (%s)", hw->name);
    if (hw->sm_count > 0)
        ch_strbuf_addf(sb, ", %d SMs", hw->sm_count);
    if (hw->l2_bytes > 0)
        ch_strbuf_addf(sb, ", %.0f MiB L2", (double)hw->l2_bytes / (1024.0 * 1024.0));
    if (hw->smem_per_block > 0)
        ch_strbuf_addf(sb, ", %ld KiB shared memory per block", hw->smem_per_block / 1024);
    if (hw->max_threads_per_block > 0)
        ch_strbuf_addf(sb, ", at most %d threads per block", hw->max_threads_per_block);
}

/* "void saxpy(int n, ...)" with name -> newname: "void saxpy_launcher(int n, ...)". */
static char *rename_signature(const char *signature, const char *name, const char *newname)
{
    size_t n = strlen(name);
    const char *p = signature ? strstr(signature, name) : NULL;
    while (p && ((p > signature && (isalnum((unsigned char)p[-1]) || p[-1] == '_')) ||
                 (p[n] != '(' && p[n] != ' ')))
        p = strstr(p + 1, name);
    if (!p)
        return ch_xasprintf("void %s(/* the entry's parameters */)", newname);
    return ch_xasprintf("%.*s%s%s", (int)(p - signature), signature, newname, p + n);
}

/* ---- the three jobs ---- */

typedef struct checklist_ctx {
    const ch_entry *e;
    ch_checklist *out;
} checklist_ctx;

static int accept_checklist(const char *reply, void *vctx, ch_error *err)
{
    checklist_ctx *ctx = vctx;
    cJSON *j = ch_extract_json(reply, err);
    if (!j)
        return -1;
    char *text = cJSON_Print(j);
    cJSON_Delete(j);
    ch_checklist c;
    memset(&c, 0, sizeof c);
    int rc = ch_checklist_from_json(text, &c, err);
    free(text);
    if (rc != 0) {
        ch_checklist_free(&c);
        return ch_error_prefix(err, "the checklist is invalid");
    }
    if (!c.name || strcmp(c.name, ctx->e->name) != 0) {
        rc = ch_error_set(err, "the checklist's \"name\" must be \"%s\"", ctx->e->name);
    } else if (c.n_params != ctx->e->n_params) {
        rc = ch_error_set(err, "the checklist has %zu params; the signature has %zu", c.n_params,
                          ctx->e->n_params);
    } else {
        for (size_t i = 0; i < c.n_params && rc == 0; i++)
            if (strcmp(c.params[i].name, ctx->e->params[i].name) != 0)
                rc = ch_error_set(err, "params[%zu] must be \"%s\" (signature order)", i,
                                  ctx->e->params[i].name);
    }
    /* what the user said about valid inputs (range, offsets, sample) wins over the model */
    if (rc == 0 && ch_checklist_apply_clauses(&c, ctx->e, err) != 0)
        rc = ch_error_prefix(err, "the checklist is invalid");
    if (rc != 0) {
        ch_checklist_free(&c);
        return -1;
    }
    *ctx->out = c;
    return 0;
}

/* A skeleton checklist from the scanned signature, for the model to complete. */
static char *checklist_skeleton(const ch_entry *e)
{
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "name", e->name);
    cJSON_AddStringToObject(j, "kind", ch_kind_name(e->kind));
    cJSON_AddStringToObject(j, "signature", e->signature ? e->signature : "");
    cJSON_AddStringToObject(j, "description", "...");
    cJSON_AddStringToObject(j, "reference", "...");
    cJSON *ps = cJSON_AddArrayToObject(j, "params");
    for (size_t i = 0; i < e->n_params; i++) {
        const ch_param *p = &e->params[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", p->name);
        cJSON_AddStringToObject(o, "type", p->type);
        cJSON_AddStringToObject(o, "role", ch_role_name(p->role));
        cJSON_AddStringToObject(o, "elem", ch_scalar_name(p->elem));
        cJSON_AddStringToObject(o, "direction", ch_dir_name(p->dir));
        if (p->extent)
            cJSON_AddStringToObject(o, "extent", p->extent);
        else
            cJSON_AddNullToObject(o, "extent");
        /* what the pragma's range() and offsets() say is given, not asked */
        if (p->index_hi || p->offsets_hi) {
            cJSON_AddNullToObject(o, "range");
            if (p->index_lo)
                cJSON_AddStringToObject(o, "index_lo", p->index_lo);
            if (p->index_hi)
                cJSON_AddStringToObject(o, "index_hi", p->index_hi);
            if (p->offsets_hi)
                cJSON_AddStringToObject(o, "offsets_hi", p->offsets_hi);
            if (p->is_perm)
                cJSON_AddTrueToObject(o, "perm");
        } else {
            cJSON *r = cJSON_AddArrayToObject(o, "range");
            cJSON_AddItemToArray(r, cJSON_CreateNumber(p->has_range ? p->lo : 0));
            cJSON_AddItemToArray(r, cJSON_CreateNumber(p->has_range ? p->hi : 0));
        }
        cJSON_AddItemToArray(ps, o);
    }
    cJSON *sz = cJSON_AddObjectToObject(j, "sizes");
    cJSON_AddArrayToObject(sz, "smoke");
    cJSON_AddArrayToObject(sz, "correctness");
    cJSON_AddObjectToObject(sz, "tune");
    cJSON_AddBoolToObject(j, "device", e->clauses.device);
    cJSON_AddNullToObject(j, "budget");
    if (e->clauses.sample)
        cJSON_AddStringToObject(j, "sample", e->clauses.sample);
    else
        cJSON_AddNullToObject(j, "sample");
    char *s = cJSON_Print(j);
    cJSON_Delete(j);
    return s;
}

static int job_checklist(ch_agent *ag, const ch_entry *e, ch_checklist *out, ch_error *err)
{
    char *skeleton = checklist_skeleton(e);
    const char *vars[] = {
        "name",      e->name,
        "signature", e->signature ? e->signature : "",
        "spec",      e->spec ? e->spec : "(none: the C body is the specification)",
        "clauses",   e->clauses_text && *e->clauses_text ? e->clauses_text : "(none)",
        "body",      e->has_body && e->body_tokens ? e->body_tokens : "(declaration only)",
        "skeleton",  skeleton,
        NULL};
    ch_llm_conv conv;
    conv_init(&conv, ch_prompt("system.md"));
    conv_add(&conv, "user", ch_template_fill(ch_prompt("checklist.md"), vars));
    free(skeleton);
    memset(out, 0, sizeof *out);
    checklist_ctx ctx = {e, out};
    int rc = run_job(ag, "checklist", e->name, &conv,
                     "Reply with the complete checklist in one ```json block.", accept_checklist,
                     &ctx, err);
    conv_free(&conv);
    return rc;
}

typedef struct code_ctx {
    const char *fn;
    char *src;
    char *design;
} code_ctx;

static int accept_reference(const char *reply, void *vctx, ch_error *err)
{
    code_ctx *ctx = vctx;
    ctx->src = ch_extract_c(reply, ctx->fn, err);
    return ctx->src ? 0 : -1;
}

static int job_test_author(ch_agent *ag, const ch_checklist *c, char **reference_c, ch_error *err)
{
    *reference_c = NULL;
    ch_strbuf ck;
    ch_strbuf_init(&ck);
    render_checklist(&ck, c, 1);
    char *fn = ch_xasprintf("%s_reference", c->name);
    char *sig = rename_signature(c->signature, c->name, fn);
    const char *vars[] = {"name", c->name,     "reference", fn,  "signature",
                          sig,    "checklist", ck.data,     NULL};
    ch_llm_conv conv;
    conv_init(&conv, ch_prompt("system.md"));
    conv_add(&conv, "user", ch_template_fill(ch_prompt("test_author.md"), vars));
    code_ctx ctx = {fn, NULL, NULL};
    int rc =
        run_job(ag, "test_author", c->name, &conv,
                "Reply with the complete C file in one ```c block.", accept_reference, &ctx, err);
    if (rc == 0)
        *reference_c = ctx.src;
    conv_free(&conv);
    free(sig);
    free(fn);
    ch_strbuf_free(&ck);
    return rc;
}

static int accept_kernel(const char *reply, void *vctx, ch_error *err)
{
    code_ctx *ctx = vctx;
    ctx->src = ch_extract_cuda(reply, ctx->fn, err);
    if (!ctx->src)
        return -1;
    ctx->design = ch_extract_design(reply);
    return 0;
}

static int job_kernel(ch_agent *ag, const ch_kernel_request *req, char **cuda_src, char **design,
                      ch_error *err)
{
    *cuda_src = NULL;
    if (design)
        *design = NULL;
    const ch_checklist *c = req->checklist;
    if (!c || !c->name)
        return ch_error_set(err, "kernel author: no checklist given");
    ch_strbuf ck, hw;
    ch_strbuf_init(&ck);
    ch_strbuf_init(&hw);
    render_checklist(&ck, c, 0);
    render_hw(&hw, &ag->hw);
    char *launcher = ch_agent_launcher_name(c->name);
    char *plain = rename_signature(c->signature, c->name, launcher);
    char *sig = ch_xasprintf("extern \"C\" %s", plain);
    free(plain);
    char *dproto = ch_scaffold_device_proto(c);
    char *dsig = ch_xasprintf("extern \"C\" %s", dproto);
    free(dproto);
    char round[16];
    snprintf(round, sizeof round, "%d", req->round);
    const char *vars[] = {"name",
                          c->name,
                          "launcher",
                          launcher,
                          "launcher_signature",
                          sig,
                          "device_launcher_signature",
                          dsig,
                          "checklist",
                          ck.data,
                          "hardware",
                          hw.data,
                          "round",
                          round,
                          NULL};
    ch_llm_conv conv;
    conv_init(&conv, ch_prompt("system.md"));
    ch_strbuf first;
    ch_strbuf_init(&first);
    char *task = ch_template_fill(ch_prompt("kernel_author.md"), vars);
    ch_strbuf_adds(&first, task);
    free(task);
    const char *again = "Reply with one line `Design: <a few words>` and then the complete "
                        "corrected CUDA file in one ```cuda block.";
    int with_parent = req->parent_source && !req->fresh_design;
    if (req->fresh_design)
        ch_strbuf_adds(&first, "\nPropose a design different from the earlier candidates: "
                               "another mapping of threads to work, tiling or memory strategy.\n");
    if (req->feedback && !with_parent) {
        const char *fv[] = {"what", "earlier candidate", "feedback", req->feedback, "task", "",
                            NULL};
        char *fb = ch_template_fill(ch_prompt("feedback.md"), fv);
        ch_strbuf_addf(&first, "\n%s", fb);
        free(fb);
    }
    conv_add(&conv, "user", ch_strbuf_detach(&first));
    if (with_parent) {
        conv_add(&conv, "assistant", ch_xasprintf("```cuda\n%s\n```", req->parent_source));
        const char *fv[] = {
            "what", "candidate", "feedback", req->feedback ? req->feedback : "(no report)",
            "task", again,       NULL};
        conv_add(&conv, "user", ch_template_fill(ch_prompt("feedback.md"), fv));
    }
    code_ctx ctx = {launcher, NULL, NULL};
    int rc = run_job(ag, "kernel", c->name, &conv, again, accept_kernel, &ctx, err);
    if (rc == 0) {
        *cuda_src = ctx.src;
        if (design)
            *design = ctx.design;
        else
            free(ctx.design);
    }
    conv_free(&conv);
    free(sig);
    free(dsig);
    free(launcher);
    ch_strbuf_free(&ck);
    ch_strbuf_free(&hw);
    ch_strbuf_free(&first);
    return rc;
}

static void llm_close(ch_agent *ag)
{
    ch_llm *llm = ag->impl;
    if (!llm)
        return;
    free(llm->url);
    free(llm->model);
    if (llm->key) {
        memset(llm->key, 0, strlen(llm->key));
        free(llm->key);
    }
    free(llm->log_dir);
    for (size_t i = 0; i < llm->n_spent; i++)
        free(llm->spent[i].entry);
    free(llm->spent);
    free(llm);
    ag->impl = NULL;
    ag->ops = NULL;
}

static int setting_long(const ch_config *cfg, const char *key, long *out, ch_error *err)
{
    const char *v = ch_config_get(cfg, key);
    if (!v || !*v)
        return 0; /* keep the caller's default */
    return ch_config_long(cfg, key, out, err);
}

static int setting_double(const ch_config *cfg, const char *key, double *out, ch_error *err)
{
    const char *v = ch_config_get(cfg, key);
    if (!v || !*v)
        return 0;
    return ch_config_double(cfg, key, out, err);
}

int ch_llm_open(ch_agent *ag, const ch_llm_proto *p, ch_error *err)
{
    const ch_config *cfg = ag->cfg;
    const char *model = ch_config_get(cfg, "model");
    if (!model || !*model)
        return ch_error_set(err,
                            "no model set: set CH_CC_MODEL (or model = ... in .ch-cc.conf) "
                            "to the model's name, e.g. the one your %s server serves",
                            p->name);
    ch_llm *llm = ch_xcalloc(1, sizeof *llm);
    ag->impl = llm;
    llm->ops = (ch_agent_ops){p->name, job_checklist, job_test_author, job_kernel, llm_close};
    ag->ops = &llm->ops;
    llm->proto = p;
    llm->model = ch_xstrdup(model);
    llm->key = ch_agent_api_key(cfg, p->key_env);
    char *base = ch_agent_api_base(cfg, p->default_base);
    llm->url = ch_xasprintf("%s%s", base, p->path);
    free(base);
    if (strncmp(llm->url, "http://", 7) != 0 && strncmp(llm->url, "https://", 8) != 0)
        return ch_error_set(err, "api_base must start with http:// or https:// (got '%s')",
                            llm->url);

    llm->temperature = 0.2;
    llm->max_tokens = 8192;
    double timeout = 120, backoff = 1;
    long retries = 4;
    const char *temp = ch_config_get(cfg, "temperature");
    if (temp && strcmp(temp, "default") == 0)
        llm->temperature = NAN; /* omitted: models that accept only their own */
    else if (setting_double(cfg, "temperature", &llm->temperature, err) != 0)
        return -1;
    if (setting_long(cfg, "max_tokens", &llm->max_tokens, err) != 0 ||
        setting_long(cfg, "max_tokens_per_entry", &llm->budget, err) != 0 ||
        setting_double(cfg, "request_timeout", &timeout, err) != 0 ||
        setting_long(cfg, "retries", &retries, err) != 0 ||
        setting_double(cfg, "retry_backoff", &backoff, err) != 0)
        return -1;
    if (llm->max_tokens <= 0)
        return ch_error_set(err, "max_tokens must be positive (got %ld)", llm->max_tokens);
    if (retries < 0 || retries > 100)
        return ch_error_set(err, "retries must be between 0 and 100 (got %ld)", retries);
    llm->http.timeout_ms = timeout > 0 ? (long)(timeout * 1000) : 0;
    llm->http.connect_timeout_ms = timeout > 0 && timeout < 10 ? llm->http.timeout_ms : 10000;
    llm->http.retries = (int)retries;
    llm->http.backoff_ms = backoff > 0 ? (long)(backoff * 1000) : 0;
    llm->http.secret = llm->key;
    llm->http.key_hint = p->key_env && strcmp(p->key_env, "ANTHROPIC_API_KEY") == 0
                             ? "CH_CC_API_KEY or ANTHROPIC_API_KEY"
                             : "CH_CC_API_KEY or OPENAI_API_KEY";
    llm->http.model = llm->model;
    llm->rng = (unsigned)getpid() ^ (unsigned)(size_t)llm;
    llm->http.rng = &llm->rng;

    const char *log = ch_config_get(cfg, "log");
    if (log && *log) {
        if (ch_mkdir_p(log, err) != 0)
            return ch_error_prefix(err, "transcript directory (log)");
        llm->log_dir = ch_xstrdup(log);
    }
    return 0;
}
