/* The anthropic provider: the messages API (x-api-key and anthropic-version headers, the system
 * prompt as a top-level field, text content blocks in the reply). The jobs are shared (jobs.c). */
#include <math.h>
#include <string.h>

#include "ch/llm.h"

#define ANTHROPIC_VERSION "2023-06-01"

static void anthropic_headers(ch_strvec *h, const char *key)
{
    if (key)
        ch_strvec_push_owned(h, ch_xasprintf("x-api-key: %s", key));
    ch_strvec_push(h, "anthropic-version: " ANTHROPIC_VERSION);
}

static cJSON *anthropic_body(const ch_llm *llm, const ch_llm_conv *c, long max_tokens)
{
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "model", llm->model);
    cJSON_AddNumberToObject(j, "max_tokens", (double)max_tokens);
    if (c->system)
        cJSON_AddStringToObject(j, "system", c->system);
    cJSON *msgs = cJSON_AddArrayToObject(j, "messages");
    for (size_t i = 0; i < c->n; i++) {
        cJSON *m = cJSON_CreateObject();
        cJSON_AddStringToObject(m, "role", c->msgs[i].role);
        cJSON_AddStringToObject(m, "content", c->msgs[i].content);
        cJSON_AddItemToArray(msgs, m);
    }
    if (!isnan(llm->temperature))
        cJSON_AddNumberToObject(j, "temperature", llm->temperature);
    return j;
}

static int anthropic_parse(const cJSON *r, ch_strbuf *text, long *in, long *out, int *cut,
                           ch_error *err)
{
    const cJSON *content = cJSON_GetObjectItemCaseSensitive(r, "content");
    if (!cJSON_IsArray(content))
        return ch_error_set(err, "no content array");
    int any = 0;
    const cJSON *block;
    cJSON_ArrayForEach(block, content)
    {
        const cJSON *type = cJSON_GetObjectItemCaseSensitive(block, "type");
        const cJSON *t = cJSON_GetObjectItemCaseSensitive(block, "text");
        if (cJSON_IsString(type) && strcmp(type->valuestring, "text") == 0 && cJSON_IsString(t)) {
            ch_strbuf_adds(text, t->valuestring);
            any = 1;
        }
    }
    if (!any)
        return ch_error_set(err, "no text content block");
    const cJSON *stop = cJSON_GetObjectItemCaseSensitive(r, "stop_reason");
    *cut = cJSON_IsString(stop) && strcmp(stop->valuestring, "max_tokens") == 0;
    const cJSON *u = cJSON_GetObjectItemCaseSensitive(r, "usage");
    const cJSON *it = u ? cJSON_GetObjectItemCaseSensitive(u, "input_tokens") : NULL;
    const cJSON *ot = u ? cJSON_GetObjectItemCaseSensitive(u, "output_tokens") : NULL;
    if (cJSON_IsNumber(it))
        *in = (long)it->valuedouble;
    if (cJSON_IsNumber(ot))
        *out = (long)ot->valuedouble;
    return 0;
}

static const ch_llm_proto anthropic_proto = {
    "anthropic",     "ANTHROPIC_API_KEY", "https://api.anthropic.com/v1",
    "/messages",     anthropic_headers,   anthropic_body,
    anthropic_parse,
};

int ch_agent_anthropic_open(ch_agent *ag, ch_error *err)
{
    return ch_llm_open(ag, &anthropic_proto, err);
}
