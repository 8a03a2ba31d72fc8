/* Reading a report.json back: the outcome in one sentence (the page's and explain's first
 * line), --harness-explain's text, and key lookup by prefix. Reports written before
 * report_format 2 hold only "status" and "evolution": every field is optional here. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ch/report.h"

static const cJSON *item(const cJSON *o, const char *name)
{
    return o ? cJSON_GetObjectItemCaseSensitive(o, name) : NULL;
}

static const char *text(const cJSON *o, const char *name)
{
    const cJSON *v = item(o, name);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* text(o, name), or dflt when absent */
static const char *text_or(const cJSON *o, const char *name, const char *dflt)
{
    const char *v = text(o, name);
    return v ? v : dflt;
}

static double number(const cJSON *o, const char *name)
{
    const cJSON *v = item(o, name);
    return cJSON_IsNumber(v) ? v->valuedouble : -1;
}

char *ch_report_outcome_sentence(const cJSON *report, const char *status)
{
    const char *st = text_or(report, "status", status);
    const cJSON *ev = item(report, "evolution");
    int tried = cJSON_GetArraySize(item(ev, "candidates"));
    const cJSON *timing = item(item(report, "winner"), "timing");
    const char *why = text(item(report, "reason"), "text");
    if (!st)
        return ch_xstrdup("Not in the kernel cache: no build has made this entry yet.");
    /* the name of CH_STATUS_UNRECORDED (ch/pipeline.h's status table, a layer above this one):
     * an entry present without a status meta */
    if (strcmp(st, "unknown") == 0)
        return ch_xstrdup("In the kernel cache, without a recorded status (written by an older "
                          "ch-cc or another tool).");
    const char *host_only = text(item(report, "dispatch"), "host_reason");
    if (strcmp(st, "verified") == 0 && host_only)
        return ch_xasprintf("A verified GPU kernel (%d candidate%s tried) that is not linked: %s; "
                            "the host path is linked.",
                            tried, tried == 1 ? "" : "s", host_only);
    if (strcmp(st, "verified") == 0) {
        double call = number(timing, "launcher_ms"), host = number(timing, "host_ms");
        if (call > 0 && host > 0)
            return ch_xasprintf("A verified GPU kernel (%d candidate%s tried): %.3f ms per call "
                                "against %.3f ms on the host path (%.1fx).",
                                tried, tried == 1 ? "" : "s", call, host, host / call);
        return ch_xasprintf("A verified GPU kernel (%d candidate%s tried).", tried,
                            tried == 1 ? "" : "s");
    }
    if (strcmp(st, "pending") == 0)
        return ch_xasprintf("Pending: %d candidate%s compiled and wait for a build on a machine "
                            "with a GPU to be tested; the host path is linked until then.",
                            tried, tried == 1 ? "" : "s");
    if (strcmp(st, "unsupported") == 0)
        return ch_xasprintf("Refused: the agent could not make a kernel for this entry (%s); "
                            "the host path is linked.",
                            why ? why : "no reason recorded");
    return ch_xasprintf("Failed: no candidate passed verification (%d tried%s%s); the host path "
                        "is linked.",
                        tried, why ? ": " : "", why ? why : "");
}

char *ch_report_reason_text(const cJSON *reason)
{
    const char *file = text(reason, "file"), *why = text_or(reason, "text", "");
    if (!reason)
        return NULL;
    if (!file || number(reason, "line") <= 0)
        return ch_xstrdup(why);
    return ch_xasprintf("%s:%d:%d: %s", file, (int)number(reason, "line"),
                        (int)number(reason, "col"), why);
}

static void line(ch_strbuf *out, const char *label, const char *value)
{
    ch_strbuf_addf(out, "%-13s %s\n", label, value && *value ? value : "-");
}

static void candidates_text(const cJSON *ev, ch_strbuf *out)
{
    const cJSON *c;
    const cJSON *cands = item(ev, "candidates");
    if (cJSON_GetArraySize(cands) == 0)
        return;
    ch_strbuf_addf(out, "candidates    (stopped: %s)\n", text_or(ev, "stop_reason", "-"));
    if (text(ev, "agent_note")) /* why the agent had nothing new: the walk's plateau */
        ch_strbuf_addf(out, "  %s\n", text(ev, "agent_note"));
    cJSON_ArrayForEach(c, cands)
    {
        double ms = number(c, "rank_ms");
        char time[32] = "";
        if (ms >= 0)
            snprintf(time, sizeof time, " %.4f ms", ms);
        ch_strbuf_addf(out, "  #%-3d round %-3d %-10s %-12s %s%s%s%s\n", (int)number(c, "id") + 1,
                       (int)number(c, "round") + 1, text_or(c, "verdict", "-"),
                       text_or(c, "stage", "-"), text_or(c, "design", ""), time,
                       text(c, "message") && *text(c, "message") ? ": " : "",
                       text_or(c, "message", ""));
    }
}

static void dispatch_text(const cJSON *d, ch_strbuf *out)
{
    const char *host_only = text(d, "host_reason");
    if (host_only) {
        ch_strbuf_addf(out, "%-13s the host path at every size: %s\n", "dispatch", host_only);
        return;
    }
    double min = number(d, "gpu_min_size");
    if (min < 0)
        return;
    ch_strbuf_addf(out, "%-13s the GPU from %s = %.0f up, the host path below\n", "dispatch",
                   text_or(d, "size", "size"), min);
    const cJSON *first = item(d, "first_calls");
    if (first)
        ch_strbuf_addf(out,
                       "  first calls: from %.0f while its device buffers are to be allocated, "
                       "from %.0f while the device is not set up (set-up %.1f ms)\n",
                       number(first, "gpu_min_size_buffers"), number(first, "gpu_min_size_cold"),
                       number(first, "device_setup_ms"));
    const cJSON *p;
    cJSON_ArrayForEach(p, item(d, "curve"))
        ch_strbuf_addf(out, "  size %-12.0f host %.4f ms  gpu call %.4f ms\n", number(p, "size"),
                       number(p, "host_ms"), number(p, "call_ms"));
}

void ch_report_explain_text(const cJSON *report, const char *key, const char *status,
                            const char *created, ch_strbuf *out)
{
    const cJSON *src = item(report, "source");
    char where[512] = "";
    if (text(src, "file"))
        snprintf(where, sizeof where, "%s:%d", text(src, "file"), (int)number(src, "line"));
    char *sentence = ch_report_outcome_sentence(report, status);
    line(out, "key", key);
    line(out, "name", text(report, "name"));
    line(out, "kind", text(report, "kind"));
    line(out, "source", where);
    line(out, "spec", text(report, "spec"));
    line(out, "signature", text(report, "signature"));
    line(out, "status", text_or(report, "status", status));
    line(out, "outcome", sentence);
    free(sentence);
    if (text(report, "summary")) /* the verification line of entries from before report_format 2 */
        line(out, "verification", text(report, "summary"));
    char *why = ch_report_reason_text(item(report, "reason"));
    line(out, "reason", why);
    free(why);
    const cJSON *fell = item(report, "host_fallback"); /* the kernel lost at the object step */
    if (fell) {
        char *at = ch_xasprintf("host path linked (%s): %s", text_or(fell, "class", "-"),
                                text_or(fell, "reason", "-"));
        line(out, "linked", at);
        free(at);
    }
    line(out, "agent", text(report, "agent"));
    line(out, "model", text(report, "model"));
    line(out, "oracle", text(item(report, "provenance"), "reference_by"));
    line(out, "created", created);
    const cJSON *w = item(report, "winner");
    if (w) {
        const cJSON *t = item(w, "timing");
        char buf[160];
        snprintf(
            buf, sizeof buf, "candidate %d (%s): call %.4f ms, kernel %.4f ms, %.0f%% of floor",
            (int)number(w, "candidate") + 1, text_or(w, "variant", "-"), number(t, "launcher_ms"),
            number(t, "kernel_ms"), 100 * number(t, "fraction_of_floor"));
        line(out, "winner", buf);
    }
    dispatch_text(item(report, "dispatch"), out);
    candidates_text(item(report, "evolution"), out);
}

size_t ch_report_match_prefix(char *const *keys, size_t n, const char *prefix, const char **match)
{
    size_t count = 0, plen = strlen(prefix);
    *match = NULL;
    for (size_t i = 0; i < n; i++) {
        if (strncmp(keys[i], prefix, plen) != 0)
            continue;
        if (!*match)
            *match = keys[i];
        count++;
    }
    return count;
}
