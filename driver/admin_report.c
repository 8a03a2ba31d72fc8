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
    if (rc == 0)
        fputs(out.data, stdout);
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
    ch_entry_list l;
    ch_entry_list_init(&l);
    ch_strvec texts, names;
    ch_strvec_init(&texts);
    ch_strvec_init(&names);
    /* the build's session: its scan arguments and target rule give the build's keys */
    ch_session session;
    ch_driver_session_open(d, &session);
    int rc = 0;
    for (size_t i = 0; i < d->args.n_inputs && rc == 0; i++) {
        const ch_input *in = &d->args.inputs[i];
        size_t before = l.len;
        char *text = NULL;
        size_t len = 0;
        rc = ch_read_file(in->path, &text, &len, &err);
        /* the file is read once: the scan parses the text the page quotes */
        ch_scan_source src = {text, len, NULL, 0};
        if (rc == 0)
            rc = ch_session_scan(&session, in->path, in->lang, &src, &l, &err);
        for (size_t k = before; rc == 0 && k < l.len; k++)
            ch_strvec_push(&texts, text);
        free(text);
        ch_strvec_push(&names, in->path);
    }
    if (rc == 0 && d->args.n_inputs == 0)
        rc = ch_error_set(&err, "--harness-report needs the annotated source files: "
                                "--harness-report[=DIR] [options] FILE...");
    if (rc == 0 && !session.cache)
        ch_driver_warn("the kernel cache cannot be opened (%s): every entry shows as absent",
                       session.cache_err.msg);
    char *path = NULL;
    if (rc == 0) {
        ch_strbuf joined;
        ch_strbuf_init(&joined);
        for (size_t i = 0; i < names.len; i++)
            ch_strbuf_addf(&joined, "%s%s", i ? " " : "", names.items[i]);
        ch_page_opts page = {&l, texts.items, dir && *dir ? dir : "ch-cc-report", joined.data};
        rc = ch_session_page(&session, &page, &path, NULL, &err);
        ch_strbuf_free(&joined);
    }
    ch_driver_session_close(&session);
    if (rc == 0)
        printf("report: %s (%zu entr%s)\n", path, l.len, l.len == 1 ? "y" : "ies");
    else
        ch_driver_report(&err);
    free(path);
    ch_strvec_free(&texts);
    ch_strvec_free(&names);
    ch_entry_list_free(&l);
    return rc == 0 ? 0 : 1;
}
