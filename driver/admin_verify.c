/* --harness-verify=CANDIDATE.cu [--harness-entry=NAME] [--harness-report=json] [options] FILE:
 * progressive verification of a hand-written kernel for an entry of FILE. Prints the report
 * (text by default, JSON with --harness-report=json); exit 0 only when stages 0-4 pass, 1 when
 * the candidate fails, 2 on usage or internal errors, 3 when stages 0-1 passed on a machine
 * without a GPU (nor CH_CC_RUNNER): the verdict is pending, as a build's candidates are. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ch/checklist.h"
#include "ch/entry.h"
#include "ch/fsutil.h"
#include "ch/pipeline.h"
#include "ch/verify.h"
#include "driver.h"

#define PENDING_MESSAGE "passed stages 0-1; stages 2-5 wait for a machine with a GPU"

/* pending: why the stages after the compile did not run (no GPU), else NULL. */
/* key: the entry's cache key for this command line (the build's), "" when unknown. */
static void print_text(const ch_verify_report *r, const char *pending, const char *key)
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
        printf("message: %s\n", r->message ? r->message : "");
        char *fb = ch_verify_feedback(r);
        fputs(fb, stdout);
        free(fb);
    }
    printf("seed: %016llx\n", (unsigned long long)r->seed);
    if (r->work_dir)
        printf("kept: %s\n", r->work_dir);
    printf("key: %s\n", key);
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
    ch_entry_list l;
    ch_entry_list_init(&l);
    ch_checklist c;
    memset(&c, 0, sizeof c);
    int status = 2;
    ch_verifier *v = NULL;
    const ch_entry *e = NULL;
    /* the build's session: the same targets, oracle (flags and -O), nvcc and cache */
    ch_session session;
    ch_driver_session_open(d, &session);
    char *gpu_lock = NULL;
    if (ch_session_scan_named(&session, in->path, in->lang, ch_admin_option(d, "entry", &(int){0}),
                              1, &l, &e, &err) != 0 ||
        ch_checklist_derive(e, &c, &err) != 0) {
        ch_driver_report(&err);
        goto done;
    }
    ch_verify_setup s;
    memset(&s, 0, sizeof s);
    s.checklist = &c;
    /* without a device the scaffold cannot run: the setup stops after the compile, as a build
     * does, rather than report the missing device as the candidate's failure at stage 2 */
    ch_session_verify_setup(&session, e, in->path, NULL, &s, &gpu_lock);
    int have_gpu = ch_session_gpu(&session)->have_gpu;
    /* the key the build stores this entry under for the same command line */
    char key[33] = "";
    ch_error key_err;
    if (ch_session_key(&session, e, key, &key_err) != 0)
        key[0] = '\0';
    if (c.kind == CH_KIND_SPEC_DECL) {
        ch_error_set(&err,
                     "--harness-verify of a spec-only entry (%s) needs a test author's "
                     "reference, which this command does not take yet",
                     c.name);
        ch_driver_report(&err);
        goto done;
    }
    int opened = ch_verifier_open(&s, &v, &err);
    if (opened != 0) {
        ch_driver_report(&err);
        goto done;
    }
    ch_verify_report r;
    if (ch_verifier_run(v, src, &r, &err) != 0) {
        ch_driver_report(&err);
    } else {
        const char *pending = !have_gpu && r.passed ? session.gpu.why : NULL;
        if (json) {
            char *j = ch_verify_report_json(&r);
            cJSON *o = cJSON_Parse(j);
            if (o) {
                if (pending) {
                    cJSON_ReplaceItemInObject(o, "verdict", cJSON_CreateString("pending"));
                    cJSON_ReplaceItemInObject(o, "message", cJSON_CreateString(PENDING_MESSAGE));
                    cJSON_AddStringToObject(o, "pending", pending);
                }
                cJSON_AddStringToObject(o, "key", key);
                free(j);
                j = cJSON_Print(o);
                cJSON_Delete(o);
            }
            puts(j);
            free(j);
        } else {
            print_text(&r, pending, key);
        }
        status = pending ? 3 : r.correct ? 0 : 1;
    }
    ch_verify_report_free(&r);
    ch_verifier_close(v);
done:
    free(gpu_lock);
    ch_driver_session_close(&session);
    ch_checklist_free(&c);
    ch_entry_list_free(&l);
    free(src);
    return status;
}
