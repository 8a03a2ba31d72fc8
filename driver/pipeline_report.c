/* The pipeline's report.json (issue 18): what the pipeline knows when it stores an entry, handed
 * to src/report's writer. Kept out of pipeline.c so that the session that stores entries calls
 * it in one line per outcome (verified, pending, failed: after the evolution; unsupported:
 * with the refusal). */
#include <stdlib.h>
#include <string.h>

#include "ch/report.h"
#include "pipeline.h"

void ch_pipeline_put_report(ch_build *b, ch_cache_txn *t, const ch_entry *e, const ch_checklist *c,
                            const ch_evolution *ev, const char *status, const ch_outcome *out,
                            const char *refusal)
{
    ch_strbuf hashed;
    ch_strbuf_init(&hashed);
    char key[33];
    ch_cache_key_text(e, b->archs.items, key, &hashed);
    const char *agent = ch_cache_txn_get_meta(t, "agent");
    ch_report_facts f = {
        .entry = e,
        .key = key,
        .hashed = hashed.data,
        .status = status,
        .agent = agent ? agent : (b->agent ? b->agent->ops->name : NULL),
        .model = ch_cache_txn_get_meta(t, "model"),
        .checklist = c,
        .ev = ev,
        .gpu_min_size = out->kernel_src ? out->gpu_min_size : -1,
        .reason = refusal           ? refusal
                  : out->kernel_src ? NULL
                                    : out->reason,
    };
    cJSON *report = ch_report_entry_json(&f);
    char *json = cJSON_Print(report);
    ch_error err;
    if (ch_cache_put(t, "report.json", json, strlen(json), &err) != 0)
        ch_driver_warn("%s: report.json not stored: %s", e->name, err.msg);
    free(json);
    cJSON_Delete(report);
    ch_strbuf_free(&hashed);
}
