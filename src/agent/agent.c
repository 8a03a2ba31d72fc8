/* The agent front door: picks the provider named by the configuration (builtin, openai,
 * anthropic), and holds what every model-backed provider looks up the same way: the API key
 * chain and the endpoint base URL. */
#include <curl/curl.h>
#include <stdlib.h>
#include <string.h>

#include "ch/agent.h"
#include "ch/llm.h"
#include "ch/strbuf.h"

char *ch_agent_launcher_name(const char *entry_name)
{
    return ch_xasprintf("%s_launcher", entry_name);
}

char *ch_agent_api_key(const ch_config *cfg, const char *key_env)
{
    const char *k = ch_config_get(cfg, "api_key");
    if ((!k || !*k) && key_env)
        k = getenv(key_env);
    return k && *k ? ch_xstrdup(k) : NULL;
}

char *ch_agent_api_base(const ch_config *cfg, const char *default_base)
{
    const char *b = ch_config_get(cfg, "api_base");
    char *base = ch_xstrdup(b && *b ? b : default_base);
    size_t n = strlen(base);
    while (n > 0 && base[n - 1] == '/')
        base[--n] = '\0';
    return base;
}

int ch_agent_open(const ch_config *cfg, const char *provider, const ch_agent_hw *hw, ch_agent **out,
                  ch_error *err)
{
    *out = NULL;
    const char *name = provider && *provider ? provider : ch_config_get(cfg, "provider");
    if (!name || !*name)
        name = "builtin";
    int (*open)(ch_agent *, ch_error *) = NULL;
    if (strcmp(name, "builtin") == 0) {
        open = ch_agent_builtin_open;
    } else if (strcmp(name, "openai") == 0) {
        open = ch_agent_openai_open;
    } else if (strcmp(name, "anthropic") == 0) {
        open = ch_agent_anthropic_open;
    } else if (strcmp(name, "none") == 0) {
        return ch_error_set(err, "no agent configured (provider = none): kernels come only from "
                                 "the cache; set CH_CC_PROVIDER to builtin, openai or anthropic");
    } else {
        return ch_error_set(err,
                            "unknown provider '%s' (CH_CC_PROVIDER): use builtin, openai, "
                            "anthropic or none",
                            name);
    }
    if (open != ch_agent_builtin_open) {
        /* libcurl's global setup is not thread-safe before 7.84 and must precede any easy
         * handle; doing it here, once per process (curl counts the calls), keeps it out of
         * every request path. It is the only process-wide state the agents touch. */
        if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
            return ch_error_set(err, "cannot initialise libcurl");
    }
    ch_agent *ag = ch_xcalloc(1, sizeof *ag);
    ag->cfg = cfg;
    if (hw)
        ag->hw = *hw;
    if (!ag->hw.arch[0]) {
        const char *arch = ch_config_get(cfg, "arch");
        snprintf(ag->hw.arch, sizeof ag->hw.arch, "%s", arch ? arch : "");
    }
    if (open(ag, err) != 0) {
        if (ag->ops && ag->ops->close)
            ag->ops->close(ag);
        free(ag);
        return ch_error_prefix(err, "%s agent", name);
    }
    *out = ag;
    return 0;
}

void ch_agent_close(ch_agent *ag)
{
    if (!ag)
        return;
    if (ag->ops && ag->ops->close)
        ag->ops->close(ag);
    free(ag);
}
