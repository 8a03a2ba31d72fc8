/* The spec reader's door (include/ch/spec_reader.h): the formula reading first (the user's own
 * words are exact), then the catalog; the reference file both produce. */
#include <stdlib.h>
#include <string.h>

#include "ch/spec_reader.h"
#include "spec.h"

/* The signature with the function called NAME_reference, as the harness links references. */
static char *reference_signature(const ch_entry *e)
{
    char *call = ch_xasprintf("%s(", e->name);
    const char *at = strstr(e->signature, call);
    char *sig = at ? ch_xasprintf("%.*s%s_reference%s", (int)(at - e->signature), e->signature,
                                  e->name, at + strlen(e->name))
                   : ch_xstrdup(e->signature);
    free(call);
    return sig;
}

static char *reference_file(const ch_entry *e, const char *how, const char *body)
{
    char *sig = reference_signature(e);
    char *text = ch_xasprintf("#include <math.h>\n#include <stddef.h>\n\n"
                              "/* " SPEC_READER_MARK " from \"%s\".\n"
                              " * Reading: %s */\n%s\n%s",
                              e->spec ? e->spec : "", how, sig, body);
    free(sig);
    return text;
}

int ch_spec_read(const ch_entry *e, ch_spec_reading *out, ch_error *err)
{
    memset(out, 0, sizeof *out);
    if (!e->spec || !e->spec[0])
        return ch_error_at(err, e->file, e->line, e->col,
                           "%s: there is no spec to read; write what it computes in the "
                           "pragma's string or give it a body",
                           e->name);
    if (strstr(e->spec, "*/"))
        return ch_error_at(err, e->file, e->line, e->col,
                           "%s: the spec cannot contain */ (it is quoted in the reference)",
                           e->name);
    int rc = spec_read_formula(e, &out->body, &out->how, err);
    if (rc != 0) {
        /* no formula, or words around an `=` that are not one ("C = A times B"): the
         * operation's name may still say it; the formula's complaint stays when it does not */
        ch_error catalog_err;
        ch_error_clear(&catalog_err);
        int formula_rc = rc;
        rc = spec_read_catalog(e, &out->body, &out->how, &catalog_err);
        if (rc != 0 && formula_rc > 0)
            *err = catalog_err;
    }
    if (rc != 0) {
        ch_spec_reading_free(out);
        return -1;
    }
    out->reference = reference_file(e, out->how, out->body);
    return 0;
}

void ch_spec_reading_free(ch_spec_reading *r)
{
    free(r->how);
    free(r->body);
    free(r->reference);
    memset(r, 0, sizeof *r);
}
