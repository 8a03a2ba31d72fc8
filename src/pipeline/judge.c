/* --harness-verify's step (ch_session_judge): a hand-written candidate judged for an entry as the
 * build would judge the agent's, with the build's verifier setup (the oracle compiled with the
 * user's flags and -O, the session's targets, nvcc, runner and runtime library). */
#include <stdlib.h>
#include <string.h>

#include "ch/checklist.h"
#include "ch/emit.h"
#include "ch/pipeline.h"

int ch_session_judge(ch_session *s, const char *path, ch_lang lang, const char *name,
                     const char *candidate_src, ch_judgement *out, ch_error *err)
{
    memset(out, 0, sizeof *out);
    ch_verify_report_init(&out->report);
    ch_entry_list l;
    ch_entry_list_init(&l);
    ch_checklist c;
    memset(&c, 0, sizeof c);
    const ch_entry *e = NULL;
    ch_verifier *v = NULL;
    char *gpu_lock = NULL;
    int rc = ch_session_scan_named(s, path, lang, name, 1, &l, &e, err);
    if (rc == 0)
        rc = ch_checklist_derive(e, &c, err);
    if (rc == 0 && c.kind == CH_KIND_SPEC_DECL)
        rc = ch_error_set(err,
                          "--harness-verify of a spec-only entry (%s) needs a test author's "
                          "reference, which this command does not take yet",
                          c.name);
    if (rc == 0) {
        /* the key the build stores this entry under for the same command line */
        ch_error key_err;
        if (ch_session_key(s, e, out->key, &key_err) != 0)
            out->key[0] = '\0';
        ch_verify_setup vs;
        memset(&vs, 0, sizeof vs);
        vs.checklist = &c;
        /* without a device the scaffold cannot run: the setup stops after the compile, as a
         * build does, rather than report the missing device as the candidate's failure */
        ch_session_verify_setup(s, e, path, NULL, &vs, &gpu_lock);
        rc = ch_verifier_open(&vs, &v, err);
    }
    if (rc == 0) {
        ch_verify_report_free(&out->report);
        rc = ch_verifier_run(v, candidate_src, &out->report, err);
    }
    if (rc == 0 && !ch_session_gpu(s)->have_gpu && out->report.passed)
        out->pending = s->gpu.why;
    if (rc == 0)
        out->not_linked = ch_emit_gpu_refusal(e, candidate_src);
    ch_verifier_close(v);
    free(gpu_lock);
    ch_checklist_free(&c);
    ch_entry_list_free(&l);
    return rc == 0 ? 0 : -1;
}

void ch_judgement_free(ch_judgement *j)
{
    ch_verify_report_free(&j->report);
    free(j->not_linked);
    j->not_linked = NULL;
}
