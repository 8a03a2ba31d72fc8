/* report.json of a cache entry: everything a user may ask about how an entry became what it is
 * (issue 18). Built once, when the pipeline stores the entry, from what it holds then: the
 * entry, the key and the stream it hashed, the agent, the checklist, the evolution and the
 * winner's measurements. Nothing secret is an input (ch/report.h), so none can leak out. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ch/emit.h"
#include "ch/report.h"
#include "ch/verify.h"

static void add_text(cJSON *o, const char *name, const char *v)
{
    if (v)
        cJSON_AddStringToObject(o, name, v);
    else
        cJSON_AddNullToObject(o, name);
}

static void add_ms(cJSON *o, const char *name, double v)
{
    if (v >= 0)
        cJSON_AddNumberToObject(o, name, v);
    else
        cJSON_AddNullToObject(o, name);
}

/* The time evolution ranks a candidate by (ch/evolve.h): kernel time on resident data, else
 * the whole call; -1 when not timed. */
static double rank_ms(const ch_candidate *c)
{
    return c->report.kernel_resident ? c->report.kernel_ms : c->report.launcher_ms;
}

/* Who wrote the oracle the kernels were judged against. */
static cJSON *provenance_json(const ch_report_facts *f)
{
    cJSON *p = cJSON_CreateObject();
    if (f->entry->kind == CH_KIND_SPEC_DECL) {
        cJSON_AddStringToObject(p, "oracle", "reference.c");
        char *who = ch_xasprintf("written from the checklist by the test author (agent %s%s%s), "
                                 "a conversation separate from the kernel author's",
                                 f->agent ? f->agent : "?", f->model && *f->model ? ", model " : "",
                                 f->model && *f->model ? f->model : "");
        cJSON_AddStringToObject(p, "reference_by", who);
        free(who);
    } else {
        cJSON_AddStringToObject(p, "oracle", "the function's own C body");
        cJSON_AddStringToObject(p, "reference_by", "the user");
    }
    cJSON_AddStringToObject(p, "checklist_by",
                            f->entry->has_body ? "derived from the C body"
                                               : "the agent, from the spec");
    return p;
}

/* The candidates of the evolution's history, each with its stages (status and seconds). */
static cJSON *evolution_json(const ch_evolution *ev)
{
    cJSON *hist = ch_evolution_json(ev);
    cJSON *cands = cJSON_GetObjectItemCaseSensitive(hist, "candidates");
    for (size_t i = 0; i < ev->n; i++) {
        cJSON *c = cJSON_GetArrayItem(cands, (int)i);
        char *text = ch_verify_report_json(&ev->cands[i].report);
        cJSON *full = cJSON_Parse(text);
        free(text);
        cJSON *stages = cJSON_DetachItemFromObject(full, "stages");
        if (c && stages)
            cJSON_AddItemToObject(c, "stages", stages);
        else
            cJSON_Delete(stages);
        cJSON_Delete(full);
    }
    return hist;
}

/* Round -> the best correct time so far and its floor fraction, with the round's correct,
 * incorrect and pending candidates (seeds count as round 1). */
static cJSON *curve_json(const ch_evolution *ev)
{
    cJSON *arr = cJSON_CreateArray();
    int last_round = 0;
    for (size_t i = 0; i < ev->n; i++)
        if (ev->cands[i].round > last_round)
            last_round = ev->cands[i].round;
    double best = -1, best_fraction = -1;
    for (int r = 0; r <= last_round && ev->n; r++) {
        int correct = 0, incorrect = 0, pending = 0;
        for (size_t i = 0; i < ev->n; i++) {
            const ch_candidate *c = &ev->cands[i];
            if ((c->round < 0 ? 0 : c->round) != r)
                continue;
            if (!c->report.correct) {
                /* passed every stage that could run here: waits for a GPU, not wrong */
                *(c->report.passed ? &pending : &incorrect) += 1;
                continue;
            }
            correct++;
            double t = rank_ms(c);
            if (t >= 0 && (best < 0 || t < best)) {
                best = t;
                best_fraction = c->report.fraction;
            }
        }
        cJSON *p = cJSON_CreateObject();
        cJSON_AddNumberToObject(p, "round", r + 1);
        cJSON_AddNumberToObject(p, "correct", correct);
        cJSON_AddNumberToObject(p, "incorrect", incorrect);
        cJSON_AddNumberToObject(p, "pending", pending);
        add_ms(p, "best_ms", best);
        add_ms(p, "fraction_of_floor", best_fraction);
        cJSON_AddItemToArray(arr, p);
    }
    return arr;
}

static cJSON *winner_json(const ch_report_facts *f, const cJSON *history)
{
    const ch_candidate *c = &f->ev->cands[f->ev->best];
    const ch_verify_report *r = &c->report;
    cJSON *w = cJSON_CreateObject();
    cJSON_AddNumberToObject(w, "candidate", c->id);
    add_text(w, "variant", c->design);
    const cJSON *cands = cJSON_GetObjectItemCaseSensitive(history, "candidates");
    const cJSON *prec =
        cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(cands, c->id), "precision");
    if (prec)
        cJSON_AddItemToObject(w, "precision", cJSON_Duplicate(prec, 1));
    const cJSON *res = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(r->details, "compile"), "resources");
    cJSON_AddItemToObject(w, "resources", res ? cJSON_Duplicate(res, 1) : cJSON_CreateNull());
    cJSON_AddItemToObject(w, "timing", ch_verify_timing_json(r));
    add_text(w, "source", c->source);
    return w;
}

/* The dispatcher's threshold and the curve it was read from (the host path and the whole call
 * at the sizes verification measured). */
static cJSON *dispatch_json(const ch_report_facts *f)
{
    cJSON *d = cJSON_CreateObject();
    /* the path a user's program takes: a verified candidate that copies the caller's data
     * itself is not linked (issue 15), and the dispatcher runs the host path at every call */
    const ch_candidate *won = f->ev && f->ev->best >= 0 && f->ev->cands[f->ev->best].report.correct
                                  ? &f->ev->cands[f->ev->best]
                                  : NULL;
    char *refused = won ? ch_emit_gpu_refusal(f->entry, won->source) : NULL;
    if (won) {
        cJSON_AddStringToObject(d, "path", refused ? "host" : "gpu");
        if (refused)
            cJSON_AddStringToObject(d, "host_reason", refused);
    }
    free(refused);
    if (f->gpu_min_size >= 0)
        cJSON_AddNumberToObject(d, "gpu_min_size", (double)f->gpu_min_size);
    else
        cJSON_AddNullToObject(d, "gpu_min_size");
    /* a process's first calls (issue 14): while the entry's device buffers are to be allocated,
     * and while the device is not set up, from the costs measured in a fresh process */
    const ch_emit_cold *cold = f->cold;
    if (f->gpu_min_size >= 0 && cold && (cold->buffers_min_size || cold->device_min_size)) {
        cJSON *c = cJSON_AddObjectToObject(d, "first_calls");
        cJSON_AddNumberToObject(c, "gpu_min_size_buffers", (double)cold->buffers_min_size);
        cJSON_AddNumberToObject(c, "gpu_min_size_cold", (double)cold->device_min_size);
        add_ms(c, "device_setup_ms", cold->setup_ms);
        cJSON_AddNumberToObject(c, "first_use_ms_per_size", cold->first_use_ms_per);
    }
    char *plain = NULL, *c_expr = NULL;
    if (ch_emit_size_expr(f->entry, &plain, &c_expr) == 0 && plain)
        cJSON_AddStringToObject(d, "size", plain);
    cJSON *pts = cJSON_AddArrayToObject(d, "curve");
    const ch_verify_report *r =
        f->ev && f->ev->best >= 0 ? &f->ev->cands[f->ev->best].report : NULL;
    for (int k = 0; r && plain && k < r->n_curve && k < 4; k++) {
        long long at = 0;
        ch_error err;
        if (ch_checklist_eval(plain, r->curve_set[k], &at, &err) != 0)
            continue;
        cJSON *p = cJSON_CreateObject();
        cJSON_AddNumberToObject(p, "size", (double)at);
        add_ms(p, "host_ms", r->curve_host_ms[k]);
        add_ms(p, "call_ms", r->curve_call_ms[k]);
        cJSON_AddItemToArray(pts, p);
    }
    free(plain);
    free(c_expr);
    return d;
}

/* "file:line:col: text" split into its parts; an unlocated reason is placed at the pragma. */
static cJSON *reason_json(const ch_report_facts *f)
{
    cJSON *o = cJSON_CreateObject();
    const char *text = f->reason;
    unsigned line = f->entry->line, col = f->entry->col;
    size_t flen = strlen(f->entry->file);
    unsigned l = 0, c = 0;
    int used = 0;
    if (strncmp(text, f->entry->file, flen) == 0 &&
        sscanf(text + flen, ":%u:%u: %n", &l, &c, &used) == 2 && used > 0) {
        line = l;
        col = c;
        text += flen + (size_t)used;
    }
    cJSON_AddStringToObject(o, "text", text);
    cJSON_AddStringToObject(o, "file", f->entry->file);
    cJSON_AddNumberToObject(o, "line", line);
    cJSON_AddNumberToObject(o, "col", col);
    return o;
}

cJSON *ch_report_entry_json(const ch_report_facts *f)
{
    const ch_entry *e = f->entry;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "report_format", 2);
    cJSON_AddStringToObject(o, "status", f->status);
    cJSON_AddStringToObject(o, "name", e->name);
    cJSON_AddStringToObject(o, "kind", ch_kind_name(e->kind));
    add_text(o, "spec", e->spec);
    add_text(o, "clauses", e->clauses_text);
    add_text(o, "signature", e->signature);
    cJSON *at = cJSON_AddObjectToObject(o, "source");
    cJSON_AddStringToObject(at, "file", e->file);
    cJSON_AddNumberToObject(at, "line", e->line);
    cJSON_AddNumberToObject(at, "col", e->col);
    cJSON_AddStringToObject(o, "key", f->key);
    add_text(o, "hashed", f->hashed);
    add_text(o, "agent", f->agent);
    add_text(o, "model", f->model);
    cJSON_AddItemToObject(o, "provenance", provenance_json(f));
    if (f->checklist) {
        char *json = ch_checklist_to_json(f->checklist);
        cJSON *ck = cJSON_Parse(json);
        free(json);
        cJSON_AddItemToObject(o, "checklist", ck ? ck : cJSON_CreateNull());
    }
    cJSON *hist = f->ev ? evolution_json(f->ev) : NULL;
    if (hist) {
        cJSON_AddItemToObject(o, "evolution", hist);
        cJSON_AddItemToObject(o, "curve", curve_json(f->ev));
    }
    if (hist && f->ev->best >= 0 && f->ev->cands[f->ev->best].report.correct)
        cJSON_AddItemToObject(o, "winner", winner_json(f, hist));
    cJSON_AddItemToObject(o, "dispatch", dispatch_json(f));
    if (f->reason && *f->reason)
        cJSON_AddItemToObject(o, "reason", reason_json(f));
    char *summary = ch_report_outcome_sentence(o, f->status);
    cJSON_AddStringToObject(o, "summary", summary);
    free(summary);
    return o;
}
