/* The openai provider: the chat-completions protocol, spoken by the hosted API and by local
 * servers (vLLM, llama.cpp server, Ollama's /v1 route). Only the request body, the auth header
 * and the reply's shape live here; the jobs are shared (jobs.c). */
#include <math.h>
#include <string.h>

#include "ch/llm.h"

static void openai_headers(ch_strvec *h, const char *key)
{
    if (key)
        ch_strvec_push_owned(h, ch_xasprintf("Authorization: Bearer %s", key));
}

static cJSON *openai_body(const ch_llm *llm, const ch_llm_conv *c, long max_tokens)
{
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "model", llm->model);
    cJSON *msgs = cJSON_AddArrayToObject(j, "messages");
    if (c->system) {
        cJSON *m = cJSON_CreateObject();
        cJSON_AddStringToObject(m, "role", "system");
        cJSON_AddStringToObject(m, "content", c->system);
        cJSON_AddItemToArray(msgs, m);
    }
    for (size_t i = 0; i < c->n; i++) {
        cJSON *m = cJSON_CreateObject();
        cJSON_AddStringToObject(m, "role", c->msgs[i].role);
        cJSON_AddStringToObject(m, "content", c->msgs[i].content);
        cJSON_AddItemToArray(msgs, m);
    }
    if (!isnan(llm->temperature))
        cJSON_AddNumberToObject(j, "temperature", llm->temperature);
    /* The hosted API wants max_completion_tokens (its reasoning models reject max_tokens);
     * compatible servers (vLLM, llama.cpp, Ollama) know max_tokens. */
    int hosted = strstr(llm->url, "://api.openai.com/") != NULL;
    cJSON_AddNumberToObject(j, hosted ? "max_completion_tokens" : "max_tokens", (double)max_tokens);
    cJSON_AddBoolToObject(j, "stream", 0);
    return j;
}

static int openai_parse(const cJSON *r, ch_strbuf *text, long *in, long *out, int *cut,
                        ch_error *err)
{
    const cJSON *choices = cJSON_GetObjectItemCaseSensitive(r, "choices");
    const cJSON *first = cJSON_IsArray(choices) ? cJSON_GetArrayItem(choices, 0) : NULL;
    const cJSON *msg = first ? cJSON_GetObjectItemCaseSensitive(first, "message") : NULL;
    const cJSON *content = msg ? cJSON_GetObjectItemCaseSensitive(msg, "content") : NULL;
    if (!cJSON_IsString(content))
        return ch_error_set(err, "no choices[0].message.content string");
    ch_strbuf_adds(text, content->valuestring);
    const cJSON *fin = cJSON_GetObjectItemCaseSensitive(first, "finish_reason");
    *cut = cJSON_IsString(fin) && strcmp(fin->valuestring, "length") == 0;
    const cJSON *u = cJSON_GetObjectItemCaseSensitive(r, "usage");
    const cJSON *pt = u ? cJSON_GetObjectItemCaseSensitive(u, "prompt_tokens") : NULL;
    const cJSON *ct = u ? cJSON_GetObjectItemCaseSensitive(u, "completion_tokens") : NULL;
    if (cJSON_IsNumber(pt))
        *in = (long)pt->valuedouble;
    if (cJSON_IsNumber(ct))
        *out = (long)ct->valuedouble;
    return 0;
}

static const ch_llm_proto openai_proto = {
    "openai",    "OPENAI_API_KEY", "https://api.openai.com/v1", "/chat/completions", openai_headers,
    openai_body, openai_parse,
};

int ch_agent_openai_open(ch_agent *ag, ch_error *err)
{
    return ch_llm_open(ag, &openai_proto, err);
}
