/* Configuration: every setting of ch-cc, where it came from, and how to read it.
 *
 * Precedence (DESIGN §6): command line --harness-KEY=VALUE > environment CH_CC_KEY >
 * .ch-cc.conf (searched upward from the working directory) > ~/.config/ch-cc/config > default.
 * Conf files hold `key = value` lines; '#' starts a comment; keys may use '-' or '_'.
 *
 * Trust: a .ch-cc.conf comes with the tree being built (a cloned repository), so it may not set
 * what sends a secret, runs a command or decides which kernels are trusted (user_only rows: the
 * API key's endpoint, the runner, the remote store and its token, the compilers, the cache
 * directory). Those come only from the user's own config file,
 * the environment or the command line; a project file that sets one is ignored for that setting
 * with one warning (ch_config.warnings) naming the file and the setting.
 *
 * The parsed configuration is the one piece of process-wide state the project allows: the
 * driver loads it once and passes a const pointer to every stage that needs a setting. */
#ifndef CH_CONFIG_H
#define CH_CONFIG_H

#include <stdio.h>

#include "ch/error.h"
#include "ch/strbuf.h"

typedef enum ch_cfg_source {
    CH_CFG_DEFAULT = 0,
    CH_CFG_USER_FILE,
    CH_CFG_PROJECT_FILE,
    CH_CFG_ENV,
    CH_CFG_CMDLINE
} ch_cfg_source;

typedef struct ch_setting_def {
    const char *key;  /* "cache_dir" */
    const char *env;  /* "CH_CC_CACHE_DIR" */
    const char *help; /* one line for --harness-config and the README */
    int secret;       /* printed redacted */
    int user_only;    /* sends a secret, runs a command or names trusted kernels: never taken
                       * from a .ch-cc.conf */
} ch_setting_def;

/* The table of known settings, terminated by a {NULL} row. */
extern const ch_setting_def ch_settings[];

typedef struct ch_config {
    size_t n;
    char **values; /* values[i] for ch_settings[i]; never NULL after load ("" unset) */
    ch_cfg_source *src;
    char **src_file; /* the conf file a value came from, else NULL */
    /* one line per user_only setting a .ch-cc.conf tried to set, for the driver to print;
     * owned by the config, freed by ch_config_free */
    ch_strvec warnings;
} ch_config;

/* Loads defaults, conf files and environment. Command-line values are applied afterwards with
 * ch_config_set(..., CH_CFG_CMDLINE). cwd: where the upward search for .ch-cc.conf starts
 * (NULL: the process's working directory). On an error (a file that does not parse) nothing is
 * left to free. */
int ch_config_load(ch_config *cfg, const char *cwd, ch_error *err);
/* Frees what the config holds; calling it again, or after a failed load, does nothing. */
void ch_config_free(ch_config *cfg);
/* Sets key (with '-' or '_') from a given source; -1 with err for an unknown key. */
int ch_config_set(ch_config *cfg, const char *key, const char *value, ch_cfg_source src,
                  ch_error *err);
/* The value ("" when unset); aborts on an unknown key, which is a programming error. */
const char *ch_config_get(const ch_config *cfg, const char *key);
/* Typed reads; on a malformed value -1 with err naming the setting and its source. */
int ch_config_long(const ch_config *cfg, const char *key, long *out, ch_error *err);
int ch_config_double(const ch_config *cfg, const char *key, double *out, ch_error *err);
int ch_config_bool(const ch_config *cfg, const char *key, int *out, ch_error *err);
/* Size with optional K/M/G/T suffix (powers of 1024). */
int ch_config_size(const ch_config *cfg, const char *key, unsigned long long *out, ch_error *err);
/* Aligned text, one setting per line, secrets redacted, with its source. */
void ch_config_print(const ch_config *cfg, ch_strbuf *out);
/* Where the value came from: "default", "environment (CH_CC_X)", "/path/.ch-cc.conf", ... */
void ch_config_describe_source(const ch_config *cfg, const char *key, ch_strbuf *out);

#endif
