/* Model-backed agents (openai, anthropic): the pieces they share, below the ch_agent interface.
 *
 * Layers, bottom up: an HTTP POST with retries (http.c), reply text helpers -- fenced-block
 * extraction and {{placeholder}} templates (extract.c) --, a provider-neutral conversation layer
 * that runs the three jobs, keeps usage and the per-entry token budget and writes redacted
 * transcripts (jobs.c), and per protocol a small table that builds request bodies and parses
 * replies (openai.c, anthropic.c). Only src/agent and its tests include this header.
 *
 * Ownership: a ch_llm is the `impl` of a ch_agent, created by ch_llm_open and freed by the
 * agent's close op; it owns its strings (the key included, which it never writes anywhere). */
#ifndef CH_LLM_H
#define CH_LLM_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "ch/embed.h"
#include "ch/agent.h"
#include "ch/error.h"
#include "ch/strbuf.h"

/* ---- HTTP (http.c) ---- */

typedef struct ch_http_opts {
    long connect_timeout_ms; /* 0: 10 s */
    long timeout_ms;         /* whole request, 0: none */
    int retries;             /* extra attempts after the first on retryable failures */
    long backoff_ms;         /* delay before the first retry; doubles each time, plus jitter */
    long max_retry_after_s;  /* a Retry-After above this fails at once (0: 300) */
    const char *secret;      /* never copied into an error message (may be NULL) */
    const char *key_hint;    /* for 401/403: where the key comes from ("CH_CC_API_KEY or ...") */
    const char *model;       /* for 404 */
    unsigned *rng;           /* jitter state for rand_r; owned by the caller */
} ch_http_opts;

typedef struct ch_http_reply {
    long status;     /* last HTTP status, 0 when no response came */
    ch_strbuf body;  /* last response body (owned; ch_http_reply_free) */
    int attempts;    /* requests sent, retries included */
    double waited_s; /* total backoff sleep */
} ch_http_reply;

void ch_http_reply_init(ch_http_reply *r);
void ch_http_reply_free(ch_http_reply *r);

/* POSTs body (JSON) to url with the extra headers ("Name: value", NULL-terminated). Retries
 * connection errors, truncated bodies, 429 (waiting at least Retry-After) and 5xx with
 * exponential backoff and jitter; other statuses fail at once. Returns 0 on a 2xx reply, else -1
 * with a one-line message in err (never containing opts->secret). */
int ch_http_post_json(const ch_http_opts *opts, const char *url, const char *const *headers,
                      const char *body, ch_http_reply *reply, ch_error *err);

/* Copies s with every occurrence of secret replaced by "[REDACTED]" (caller frees). */
char *ch_redact(const char *s, const char *secret);

/* ---- reply text (extract.c) ---- */

typedef struct ch_code_block {
    char *lang; /* info string's first word, lower case ("" when none) */
    char *text; /* the block's contents, ending with '\n' */
    int closed; /* 0: the reply ended inside the block (truncated) */
} ch_code_block;

/* Every fenced block (``` or ~~~, any indentation up to 3 spaces) of a reply, in order.
 * Returns the count; *out is malloc'd (ch_code_blocks_free). */
size_t ch_code_blocks(const char *text, ch_code_block **out);
void ch_code_blocks_free(ch_code_block *b, size_t n);

/* The CUDA source of a kernel-author reply: the block (```cuda/cu/cpp/c++/c or untagged) that
 * defines `launcher` (NAME_launcher; when no block mentions it, one that defines NAME itself),
 * joined with the other CUDA blocks when the reply split the file; a reply that is pure code
 * without fences is taken whole. NULL with err when none is usable. */
char *ch_extract_cuda(const char *reply, const char *launcher, ch_error *err);
/* The C reference of a test-author reply (```c block that defines `function`). */
char *ch_extract_c(const char *reply, const char *function, ch_error *err);
/* The JSON object of a reply: a ```json block, else the outermost {...}; parsed by cJSON. */
cJSON *ch_extract_json(const char *reply, ch_error *err);
/* "Design: ..." line of a reply (trimmed, at most 80 bytes), or NULL. */
char *ch_extract_design(const char *reply);

/* An embedded prompt file by name ("kernel_author.md"), or NULL. */
const char *ch_prompt(const char *name);

/* ---- conversations and jobs (jobs.c) ---- */

typedef struct ch_llm_msg {
    const char *role; /* "user" or "assistant" (static strings) */
    char *content;    /* owned */
} ch_llm_msg;

typedef struct ch_llm_conv {
    char *system; /* owned, may be NULL */
    ch_llm_msg *msgs;
    size_t n, cap;
} ch_llm_conv;

typedef struct ch_llm ch_llm;

/* One protocol: URL path, auth headers, body, reply parsing. */
typedef struct ch_llm_proto {
    const char *name;         /* "openai" */
    const char *key_env;      /* "OPENAI_API_KEY" */
    const char *default_base; /* "https://api.openai.com/v1" */
    const char *path;         /* "/chat/completions" */
    /* Adds the protocol's headers; key may be NULL (local servers need none). */
    void (*headers)(ch_strvec *h, const char *key);
    /* The request body for a conversation, asking for at most max_tokens (caller deletes). */
    cJSON *(*body)(const ch_llm *llm, const ch_llm_conv *c, long max_tokens);
    /* A 2xx reply: its text, token usage (-1 when absent) and whether it was cut at the token
     * limit. -1 with err when the reply is not the protocol's shape. */
    int (*parse)(const cJSON *reply, ch_strbuf *text, long *prompt_tokens, long *completion_tokens,
                 int *cut, ch_error *err);
} ch_llm_proto;

typedef struct ch_llm_budget_row {
    char *entry;
    long tokens;
} ch_llm_budget_row;

struct ch_llm {
    ch_agent_ops ops; /* the agent's ops, named after the protocol */
    const ch_llm_proto *proto;
    char *url; /* base + proto->path */
    char *model;
    char *key; /* NULL when none; never logged */
    double temperature;
    long max_tokens;
    long budget; /* tokens per entry, 0: none */
    ch_http_opts http;
    char *log_dir; /* NULL: no transcripts */
    unsigned log_seq;
    unsigned rng;
    ch_llm_budget_row *spent; /* tokens used per entry name */
    size_t n_spent;
};

/* Sets up ag (ops, impl) for protocol p from ag->cfg: model (required), base URL, key, numeric
 * settings, transcript directory. */
int ch_llm_open(ch_agent *ag, const ch_llm_proto *p, ch_error *err);

/* Tokens used so far for an entry (by name). */
long ch_llm_entry_tokens(const ch_llm *llm, const char *entry);

/* Key and base URL lookup (agent.c). The key: the "api_key" setting (CH_CC_API_KEY), else the
 * provider's own variable; NULL when neither is set. Caller frees both. */
char *ch_agent_api_key(const ch_config *cfg, const char *key_env);
char *ch_agent_api_base(const ch_config *cfg, const char *default_base);

#endif
