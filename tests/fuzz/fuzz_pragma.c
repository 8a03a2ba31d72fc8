/* libFuzzer target for the pragma grammar and the pragma finder/blanker (pure, no libclang):
 * any bytes must give either a parse or a located error, never a crash, leak or overread, and
 * blanking must keep the length and every newline. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ch/scan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    ch_pragma p;
    ch_error err;
    if (ch_pragma_parse(text, size, "fuzz.c", 1, 16, &p, &err) == 0)
        ch_pragma_free(&p);
    else if (!err.located)
        abort();
    if (ch_pragma_parse_clauses(text, size, "fuzz.c", 1, 1, &p, &err) == 0)
        ch_pragma_free(&p);
    char *b = ch_scan_blank(text, size);
    for (size_t i = 0; i < size; i++)
        if ((text[i] == '\n') != (b[i] == '\n'))
            abort();
    free(b);
    ch_pragma_loc *locs;
    size_t n;
    ch_pragma_find(text, size, &locs, &n);
    for (size_t i = 0; i < n; i++)
        if (locs[i].body_offset > locs[i].end_offset || locs[i].end_offset > size)
            abort();
    free(locs);
    return 0;
}
