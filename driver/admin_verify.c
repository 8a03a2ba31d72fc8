/* --harness-verify=CANDIDATE.cu [--harness-entry=NAME] [--harness-report=json] [options] FILE:
 * progressive verification of a hand-written kernel for an entry of FILE. Prints the report
 * (text by default, JSON with --harness-report=json); exit 0 only when stages 0-4 pass, 1 when
 * the candidate fails, 2 on usage or internal errors, 3 when stages 0-1 passed on a machine
 * without a GPU (nor CH_CC_RUNNER): the verdict is pending, as a build's candidates are. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "ch/fsutil.h"
#include "ch/pipeline.h"
#include "ch/verify.h"
#include "driver.h"

#define PENDING_MESSAGE "passed stages 0-1; stages 2-5 wait for a machine with a GPU"

/* pending: why the stages after the compile did not run (no GPU), else NULL. */
/* key: the entry's cache key for this command line (the build's), "" when unknown. */
static void print_text(const ch_verify_report *r, const char *pending, const char *key,
                       const char *not_linked)
{
    printf("verdict: %s\n", pending ? "pending" : r->correct ? "correct" : "incorrect");
    for (int s = 0; s < CH_STAGE_COUNT_; s++) {
        static const char *const st[] = {"-", "pass", "FAIL", "skipped"};
        if (r->status[s] == CH_ST_NOT_RUN && pending)
            printf("  stage %d %-12s pending  (needs a GPU: %s)\n", s, ch_stage_name(s), pending);
        if (r->status[s] == CH_ST_NOT_RUN)
            continue;
        printf("  stage %d %-12s %-8s %.2f s\n", s, ch_stage_name(s), st[r->status[s]],
               r->seconds[s]);
    }
    if (pending) {
        /* the verifier's message and feedback would call the stop a failure */
        printf("message: %s\n", PENDING_MESSAGE);
    } else {
        /* the compiler's and the checks' messages quote the candidate */
        ch_driver_print(stdout, "message: %s\n", r->message ? r->message : "");
        char *fb = ch_verify_feedback(r);
        ch_driver_print(stdout, "%s", fb);
        free(fb);
    }
    if (not_linked)
        printf("linked: never (%s)\n", not_linked);
    printf("seed: %016llx\n", (unsigned long long)r->seed);
    if (r->work_dir)
        printf("kept: %s\n", r->work_dir);
    printf("key: %s\n", key);
}

/* The report as JSON, with the pending verdict and the key the text shows. */
static void print_json(const ch_verify_report *r, const char *pending, const char *key,
                       const char *not_linked)
{
    char *j = ch_verify_report_json(r);
    cJSON *o = cJSON_Parse(j);
    if (o) {
        if (pending) {
            cJSON_ReplaceItemInObject(o, "verdict", cJSON_CreateString("pending"));
            cJSON_ReplaceItemInObject(o, "message", cJSON_CreateString(PENDING_MESSAGE));
            cJSON_AddStringToObject(o, "pending", pending);
        }
        cJSON_AddStringToObject(o, "key", key);
        if (not_linked)
            cJSON_AddStringToObject(o, "not_linked", not_linked);
        free(j);
        j = cJSON_Print(o);
        cJSON_Delete(o);
    }
    puts(j);
    free(j);
}

int ch_admin_verify(ch_driver *d, const char *candidate, const char *form)
{
    ch_error err;
    ch_error_clear(&err);
    const char *report = ch_admin_option(d, "report", &(int){0});
    int json = (form && strcmp(form, "json") == 0) || (report && strcmp(report, "json") == 0);
    if (!candidate || !*candidate) {
        fprintf(stderr, "ch-cc: error: usage: ch-cc --harness-verify=CANDIDATE.cu "
                        "[--harness-entry=NAME] [--harness-report=json] [options] FILE\n");
        return 2;
    }
    const ch_input *in = ch_admin_source(d);
    if (!in) {
        fprintf(stderr, "ch-cc: error: --harness-verify needs the source FILE of the entry\n");
        return 2;
    }
    char *src = NULL;
    if (ch_read_file(candidate, &src, NULL, &err) != 0) {
        ch_driver_report(&err);
        return 2;
    }
    /* the build's session: the same targets, oracle (flags and -O), nvcc and cache */
    ch_session session;
    ch_driver_session_open(d, &session);
    ch_judgement j;
    int status = 2;
    if (ch_session_judge(&session, in->path, in->lang, ch_admin_option(d, "entry", &(int){0}), src,
                         &j, &err) != 0) {
        ch_driver_report(&err);
    } else {
        if (json)
            print_json(&j.report, j.pending, j.key, j.not_linked);
        else
            print_text(&j.report, j.pending, j.key, j.not_linked);
        status = j.pending ? 3 : j.report.correct ? 0 : 1;
    }
    ch_judgement_free(&j);
    ch_driver_session_close(&session);
    free(src);
    return status;
}
