/* --harness-explain NAME|KEY|PREFIX [FILE] and --harness-report[=DIR] [options] FILE...: what
 * each entry became, as text or as a static HTML page (src/pipeline/page.c keys the entries
 * and reads the cache, src/report renders). The page is also written after a build when the
 * report_dir setting names a directory (ch_admin_report_build). What the user names is
 * resolved by the library (ch/explain.h); this file chooses the file argument and prints. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ch/explain.h"
#include "ch/fsutil.h"
#include "ch/page.h"
#include "ch/pipeline.h"
#include "ch/report.h"
#include "driver.h"

/* ---- explain ---- */

int ch_admin_explain(ch_driver *d, const char *what)
{
    ch_error err;
    ch_error_clear(&err);
    const ch_input *file = NULL;
    for (size_t i = 0; i < d->args.n_inputs; i++) {
        const ch_input *in = &d->args.inputs[i];
        if (in->path != what &&
            (in->lang == CH_LANG_C || in->lang == CH_LANG_CU || in->lang == CH_LANG_CXX))
            file = in;
    }
    /* the build's session: the same scan arguments and target rule give the build's keys */
    ch_session s;
    ch_driver_session_open(d, &s);
    ch_explain_found found;
    ch_strbuf out;
    ch_strbuf_init(&out);
    int rc = ch_session_explain_find(&s, what, file ? file->path : NULL,
                                     file ? file->lang : CH_LANG_C, &found, &err);
    if (rc == 0 && found.older)
        ch_driver_warn("%zu older cache entr%s also named %s; showing the newest (give the "
                       "source file to choose: --harness-explain %s FILE)",
                       found.older, found.older == 1 ? "y is" : "ies are", what, what);
    if (rc == 0)
        rc = ch_session_explain_text(&s, found.key, &out, &err);
    if (rc == 0) /* the design lines, messages and reference are the model's */
        ch_driver_print(stdout, "%s", out.data);
    else
        ch_driver_report(&err);
    ch_strbuf_free(&out);
    ch_driver_session_close(&s);
    return rc == 0 ? 0 : 1;
}

/* ---- the page ---- */

int ch_admin_report(ch_driver *d, const char *dir)
{
    ch_error err;
    ch_error_clear(&err);
    if (d->args.n_inputs == 0) {
        ch_error_set(&err, "--harness-report needs the annotated source files: "
                           "--harness-report[=DIR] [options] FILE...");
        ch_driver_report(&err);
        return 1;
    }
    ch_page_file *files = ch_xcalloc(d->args.n_inputs, sizeof *files);
    for (size_t i = 0; i < d->args.n_inputs; i++)
        files[i] = (ch_page_file){d->args.inputs[i].path, d->args.inputs[i].lang};
    /* the build's session: its scan arguments and target rule give the build's keys */
    ch_session session;
    ch_driver_session_open(d, &session);
    if (!session.cache)
        ch_driver_warn("the kernel cache cannot be opened (%s): every entry shows as absent",
                       session.cache_err.msg);
    char *path = NULL;
    size_t entries = 0;
    int rc = ch_session_page_files(&session, files, d->args.n_inputs,
                                   dir && *dir ? dir : "ch-cc-report", &path, &entries, &err);
    ch_driver_session_close(&session);
    if (rc == 0)
        printf("report: %s (%zu entr%s)\n", path, entries, entries == 1 ? "y" : "ies");
    else
        ch_driver_report(&err);
    free(path);
    free(files);
    return rc == 0 ? 0 : 1;
}
