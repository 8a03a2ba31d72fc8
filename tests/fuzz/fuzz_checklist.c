/* libFuzzer target for checklist JSON (src/checklist/json.c, validate.c): any text must give a
 * valid checklist or an error message, never a crash or a leak; an accepted checklist must
 * serialise and read back. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ch/checklist.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    memcpy(text, data, size);
    text[size] = '\0';
    ch_checklist c;
    ch_error err;
    if (ch_checklist_from_json(text, &c, &err) == 0) {
        if (ch_checklist_validate(&c, &err) != 0)
            abort(); /* from_json accepted what validate refuses */
        char *json = ch_checklist_to_json(&c);
        ch_checklist back;
        if (ch_checklist_from_json(json, &back, &err) != 0)
            abort(); /* what we write we must read */
        ch_checklist_free(&back);
        free(json);
        ch_checklist_free(&c);
    } else if (!err.msg[0]) {
        abort();
    }
    free(text);
    return 0;
}
