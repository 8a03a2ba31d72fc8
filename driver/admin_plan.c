/* --harness-plan [--harness-entry=NAME] [options] FILE: what the builtin translator makes of
 * each entry's body (ch_session_plan writes the text; the golden PolyBench plans of the tests are
 * this output). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ch/pipeline.h"
#include "driver.h"

int ch_admin_plan(ch_driver *d)
{
    ch_error err;
    ch_error_clear(&err);
    const ch_input *in = ch_admin_source(d);
    if (!in) {
        ch_error_set(&err, "--harness-plan needs a source file");
        ch_driver_report(&err);
        return 1;
    }
    int present;
    const char *name = ch_admin_option(d, "entry", &present);
    ch_strbuf out;
    ch_strbuf_init(&out);
    ch_session s;
    ch_driver_session_open(d, &s);
    int rc = ch_session_plan(&s, in->path, in->lang, name, &out, &err);
    ch_driver_session_close(&s);
    if (rc != 0)
        ch_driver_report(&err);
    else if (out.data)
        ch_driver_print(stdout, "%s", out.data);
    ch_strbuf_free(&out);
    return rc == 0 ? 0 : 1;
}
