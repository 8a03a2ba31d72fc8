/* libFuzzer target for model reply extraction (src/agent/extract.c): any reply text must give
 * code blocks, a payload or an error message the retry can show, never a crash or a leak. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "ch/llm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *reply = malloc(size + 1);
    memcpy(reply, data, size);
    reply[size] = '\0';
    ch_code_block *blocks;
    size_t n = ch_code_blocks(reply, &blocks);
    ch_code_blocks_free(blocks, n);
    ch_error err;
    free(ch_extract_cuda(reply, "launch_kernel", &err));
    free(ch_extract_c(reply, "reference", &err));
    cJSON *j = ch_extract_json(reply, &err);
    cJSON_Delete(j);
    free(ch_extract_design(reply));
    free(reply);
    return 0;
}
