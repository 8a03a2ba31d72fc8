/* The configuration chain: defaults < ~/.config/ch-cc/config < .ch-cc.conf < CH_CC_* <
 * --harness-*. The table below is the single list of settings; the README's configuration
 * section and --harness-config are generated from the same rows. */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <sys/stat.h>

#include "ch/config.h"
#include "ch/fsutil.h"
#include "ch/strbuf.h"

const ch_setting_def ch_settings[] = {
    /* user_only (last column): runs a command or sends a secret; see config.h */
    {"nvcc", "CH_CC_NVCC", "the real nvcc (default: nvcc on PATH, else /usr/local/cuda/bin/nvcc)",
     0, 1},
    {"host_cc", "CH_CC_HOST_CC", "the real C compiler for .c files and links (default: cc)", 0, 1},
    {"host_cxx", "CH_CC_HOST_CXX", "the real C++ compiler for .cpp files (default: c++)", 0, 1},
    /* user-only too: entries in the cache are linked as verified, so a repository that named
     * its own directory would ship "verified" kernels nobody verified */
    {"cache_dir", "CH_CC_CACHE_DIR", "kernel cache directory", 0, 1},
    {"max_size", "CH_CC_MAX_SIZE", "cache size limit, K/M/G suffixes", 0, 0},
    {"lock_timeout", "CH_CC_LOCK_TIMEOUT",
     "seconds to wait for another build generating a kernel, then build without the cache", 0, 0},
    {"remote", "CH_CC_REMOTE",
     "shared remote stores (space or comma separated): http(s)://host:port/path/, "
     "redis://host:port[/db], file:///dir",
     0, 1},
    {"remote_token", "CH_CC_REMOTE_TOKEN",
     "bearer token (http) or password (redis) for the remote stores", 1, 1},
    {"remote_only_read", "CH_CC_REMOTE_ONLY_READ", "never write to the remote store", 0, 0},
    {"remote_timeout", "CH_CC_REMOTE_TIMEOUT", "seconds per remote request", 0, 0},
    {"remote_max_size", "CH_CC_REMOTE_MAX_SIZE",
     "largest remote entry accepted, K/M/G suffixes (a larger response is aborted: a miss)", 0, 0},
    {"sign_key", "CH_CC_SIGN_KEY",
     "secret key file signing entries written to the remote (ch-cc --harness-keygen=DIR)", 1, 1},
    {"trusted_keys", "CH_CC_TRUSTED_KEYS",
     "public keys (hex, comma-separated) or a file of them: remote entries must be signed by one",
     0, 1},
    {"provider", "CH_CC_PROVIDER", "who proposes kernels: builtin, openai, anthropic, none", 0, 0},
    {"model", "CH_CC_MODEL", "model name for openai/anthropic", 0, 0},
    {"api_base", "CH_CC_API_BASE", "provider endpoint base URL", 0, 1},
    {"api_key", "CH_CC_API_KEY", "provider key (else OPENAI_API_KEY / ANTHROPIC_API_KEY)", 1, 1},
    {"temperature", "CH_CC_TEMPERATURE", "sampling temperature", 0, 0},
    {"max_tokens", "CH_CC_MAX_TOKENS", "most tokens in one model reply", 0, 0},
    {"max_tokens_per_entry", "CH_CC_MAX_TOKENS_PER_ENTRY", "token budget for one entry (0: none)",
     0, 0},
    {"request_timeout", "CH_CC_REQUEST_TIMEOUT", "seconds for one model request", 0, 0},
    {"retries", "CH_CC_RETRIES", "retries of a model request on 429/5xx/connection errors", 0, 0},
    {"retry_backoff", "CH_CC_RETRY_BACKOFF",
     "seconds before the first retry of a model request (doubles each retry, plus jitter)", 0, 0},
    {"runner", "CH_CC_RUNNER",
     "command prefix for running verification programs (ssh host, srun ...)", 0, 1},
    {"arch", "CH_CC_ARCH", "GPU architecture for kernels when the build names none (sm_90 ...)", 0,
     0},
    {"jobs", "CH_CC_JOBS", "parallel candidate compiles (default: the core count)", 0, 0},
    {"offline", "CH_CC_OFFLINE", "cache only: never ask an agent", 0, 0},
    {"budget", "CH_CC_BUDGET", "evolution rounds per kernel", 0, 0},
    {"time", "CH_CC_TIME", "wall-time limit of one kernel's evolution, seconds", 0, 0},
    {"on_fail", "CH_CC_ON_FAIL", "when no kernel verifies: fallback (host path) or error", 0, 0},
    {"keep", "CH_CC_KEEP", "keep verification directories", 0, 0},
    {"log", "CH_CC_LOG", "directory for agent transcripts (keys redacted)", 0, 0},
    {"quiet", "CH_CC_QUIET", "no progress lines", 0, 0},
    {"report_dir", "CH_CC_REPORT_DIR",
     "write the HTML report page of each annotated file there after building it", 0, 0},
    {NULL, NULL, NULL, 0, 0},
};

static size_t settings_count(void)
{
    size_t n = 0;
    while (ch_settings[n].key)
        n++;
    return n;
}

static int setting_index(const char *key)
{
    char norm[64];
    size_t i = 0;
    for (; key[i] && i + 1 < sizeof norm; i++)
        norm[i] = key[i] == '-' ? '_' : (char)tolower((unsigned char)key[i]);
    norm[i] = '\0';
    for (size_t k = 0; ch_settings[k].key; k++)
        if (strcmp(ch_settings[k].key, norm) == 0)
            return (int)k;
    return -1;
}

static char *default_cache_dir(void)
{
    const char *xdg = getenv("XDG_CACHE_HOME");
    if (xdg && *xdg)
        return ch_path_join(xdg, "ch-cc");
    const char *home = getenv("HOME");
    return ch_xasprintf("%s/.cache/ch-cc", home && *home ? home : "/tmp");
}

static const struct {
    const char *key;
    const char *value;
} fixed_defaults[] = {
    {"host_cc", "cc"},
    {"host_cxx", "c++"},
    {"max_size", "5G"},
    {"lock_timeout", "30"},
    {"remote_only_read", "0"},
    {"remote_timeout", "10"},
    {"remote_max_size", "256M"},
    {"provider", "builtin"},
    {"temperature", "0.2"},
    {"max_tokens", "8192"},
    {"max_tokens_per_entry", "0"},
    {"request_timeout", "120"},
    {"retries", "4"},
    {"retry_backoff", "1"},
    {"offline", "0"},
    {"budget", "8"},
    {"time", "600"},
    {"on_fail", "fallback"},
    {"keep", "0"},
    {"quiet", "0"},
};

static void set_value(ch_config *cfg, int i, const char *value, ch_cfg_source src, const char *file)
{
    free(cfg->values[i]);
    free(cfg->src_file[i]);
    cfg->values[i] = ch_xstrdup(value);
    cfg->src[i] = src;
    cfg->src_file[i] = file ? ch_xstrdup(file) : NULL;
}

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    char *e = s + strlen(s);
    while (e > s && isspace((unsigned char)e[-1]))
        *--e = '\0';
    return s;
}

/* A project file came with the tree being built: a setting that would send the user's key
 * somewhere or run a command is not taken from it (a cloned repository must not redirect
 * OPENAI_API_KEY). Recorded once per file and setting for the driver to print. */
/* w (owned) into the config's warnings unless an equal one is there already. */
static void warn_once(ch_config *cfg, char *w)
{
    for (size_t k = 0; k < cfg->warnings.len; k++)
        if (strcmp(cfg->warnings.items[k], w) == 0) {
            free(w);
            return;
        }
    ch_strvec_push_owned(&cfg->warnings, w);
}

static void untrusted_setting(ch_config *cfg, const char *path, int i)
{
    char *w = ch_xasprintf("%s: ignoring setting '%s': a project .ch-cc.conf may not set what "
                           "sends a secret, runs a command or decides which kernels are "
                           "trusted; set it in your own "
                           "~/.config/ch-cc/config, the environment (%s) or with --harness-%s",
                           path, ch_settings[i].key, ch_settings[i].env, ch_settings[i].key);
    warn_once(cfg, w);
}

/* Settings a project file may only lower below what is in effect (the default or the user's own
 * file): each is what a build costs the user in money (model rounds and tokens), time or
 * machine. A cloned repository's budget = 1e18 would spend the user's key without end. */
static const char *const project_lower_only[] = {
    "budget", "time",         "max_tokens",     "retries",         "request_timeout",
    "jobs",   "lock_timeout", "remote_timeout", "remote_max_size", NULL};

static int in_names(const char *const *names, const char *key)
{
    for (size_t i = 0; names[i]; i++)
        if (strcmp(names[i], key) == 0)
            return 1;
    return 0;
}

/* value as a number for comparing against another; sizes keep their K/M/G/T suffix. 0 when it
 * does not parse (the setting's own reader reports it later). */
static int comparable(const char *value, double *out)
{
    char *end;
    double d = strtod(value, &end);
    if (end == value || !isfinite(d))
        return 0;
    static const char units[] = "KMGT";
    const char *u = *end ? strchr(units, toupper((unsigned char)*end)) : NULL;
    for (const char *k = units; u && k <= u; k++)
        d *= 1024.0;
    *out = d;
    return u || !*end;
}

static int is_true(const char *v)
{
    return strcasecmp(v, "1") == 0 || strcasecmp(v, "yes") == 0 || strcasecmp(v, "true") == 0 ||
           strcasecmp(v, "on") == 0;
}

/* A path a project file may name for files ch-cc writes: inside the project (relative, no ..). */
/* Whether v names a place inside the project whose .ch-cc.conf is at conf: relative, no "..",
 * and no link on the way that exists now (a link committed to the repository would lead the
 * reports or the log outside it, attacks5 cfg02). */
static int inside_project(const char *conf, const char *v)
{
    if (!*v || v[0] == '/' || v[0] == '~')
        return 0;
    for (const char *p = v; (p = strstr(p, "..")) != NULL; p += 2)
        if ((p == v || p[-1] == '/') && (p[2] == '\0' || p[2] == '/'))
            return 0;
    char *dir = ch_path_dir(conf);
    int inside = 1;
    for (const char *end = v; inside && end;) {
        end = strchr(end + 1, '/');
        char *prefix = ch_xasprintf("%s/%.*s", dir, (int)(end ? end - v : (long)strlen(v)), v);
        struct stat sb;
        inside = lstat(prefix, &sb) != 0 || !S_ISLNK(sb.st_mode);
        free(prefix);
    }
    free(dir);
    return inside;
}

/* Why a project file may not set key = value over what is in effect, or NULL: it may make a
 * build cheaper or stricter, never dearer or looser than the user chose. */
static const char *project_refusal(const ch_config *cfg, const char *conf, int i, const char *value)
{
    const char *key = ch_settings[i].key, *now = cfg->values[i] ? cfg->values[i] : "";
    double want, have;
    /* jobs unset: the core count */
    if (strcmp(key, "jobs") == 0 && !*now)
        have = (double)sysconf(_SC_NPROCESSORS_ONLN);
    else if (!comparable(now, &have))
        have = INFINITY;
    if (in_names(project_lower_only, key)) {
        /* a number not above what is in effect, and one that is a limit when read: 0 (or
         * less) means no limit or the default for most of them, and nan, inf or a negative
         * wait compare as lower but are none */
        int zero_ok = strcmp(key, "retries") == 0 || strcmp(key, "lock_timeout") == 0;
        if (have < 0 || (have == 0 && !zero_ok))
            have = INFINITY;
        return !comparable(value, &want) || want < 0 || (want == 0 && !zero_ok) || want > have
                   ? "a project .ch-cc.conf may only lower what a build costs (rounds, time, "
                     "tokens, retries, jobs, waits) below what is in effect, to a finite limit"
                   : NULL;
    }
    if (strcmp(key, "max_tokens_per_entry") == 0) /* 0: no limit */
        return !comparable(value, &want) || want < 0 ||
                       (want > have ? have != 0 : want == 0 && have != 0)
                   ? "a project .ch-cc.conf may only lower what a build costs (rounds, time, "
                     "tokens, retries, jobs, waits) below what is in effect"
                   : NULL;
    if (strcmp(key, "provider") == 0 || strcmp(key, "model") == 0)
        return strcmp(value, now) == 0 ||
                       (strcmp(key, "provider") == 0 &&
                        (strcmp(value, "builtin") == 0 || strcmp(value, "none") == 0))
                   ? NULL
                   : "a project .ch-cc.conf may not choose a model provider or model, which send "
                     "the sources to a service and bill the user's key";
    if (strcmp(key, "offline") == 0 || strcmp(key, "remote_only_read") == 0)
        return is_true(value) || !is_true(now)
                   ? NULL
                   : "a project .ch-cc.conf may not turn off what the user turned on";
    /* a failed verification must stay an error where the user asked for one, and be said:
     * a repository that chose fallback and quiet would link the host path without a word */
    if (strcmp(key, "on_fail") == 0)
        return strcmp(now, "error") != 0 || strcmp(value, "error") == 0
                   ? NULL
                   : "a project .ch-cc.conf may make on_fail only stricter (error stays error)";
    if (strcmp(key, "quiet") == 0)
        return is_true(value) == is_true(now)
                   ? NULL
                   : "a project .ch-cc.conf may not change what ch-cc tells the user";
    /* kept directories are never swept: a repository's keep = 1 filled TMPDIR with every
     * build's verification directories, about 12.5 MB an entry, for good (attacks9 #33) */
    if (strcmp(key, "keep") == 0)
        return !is_true(value) || is_true(now)
                   ? NULL
                   : "a project .ch-cc.conf may not keep verification directories (they stay "
                     "in TMPDIR for good)";
    if (strcmp(key, "max_size") == 0)
        return "the cache is the user's, shared by every project (0 would empty it)";
    if (strcmp(key, "log") == 0 || strcmp(key, "report_dir") == 0)
        return inside_project(conf, value)
                   ? NULL
                   : "a project .ch-cc.conf may only name a directory inside the project "
                     "(relative, without .., through no link)";
    return NULL;
}

static void project_setting_refused(ch_config *cfg, const char *path, int i, const char *why)
{
    char *w = ch_xasprintf("%s: ignoring setting '%s': %s; set it in your own "
                           "~/.config/ch-cc/config, the environment (%s) or with --harness-%s",
                           path, ch_settings[i].key, why, ch_settings[i].env, ch_settings[i].key);
    warn_once(cfg, w);
}

static int load_file(ch_config *cfg, const char *path, ch_cfg_source src, ch_error *err)
{
    char *text;
    if (ch_read_file(path, &text, NULL, err) != 0)
        return -1;
    int rc = 0;
    unsigned lineno = 0;
    for (char *line = text, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        lineno++;
        char *hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        char *s = trim(line);
        if (!*s)
            continue;
        char *eq = strchr(s, '=');
        if (!eq) {
            rc = ch_error_at(err, path, lineno, 1, "expected 'key = value'");
            break;
        }
        *eq = '\0';
        char *key = trim(s), *value = trim(eq + 1);
        size_t vl = strlen(value);
        if (vl >= 2 && value[0] == '"' && value[vl - 1] == '"') {
            value[vl - 1] = '\0';
            value++;
        }
        int i = setting_index(key);
        if (i < 0) {
            rc = ch_error_at(err, path, lineno, 1,
                             "unknown setting '%s' (see ch-cc --harness-config for the list)", key);
            break;
        }
        if (src == CH_CFG_PROJECT_FILE && ch_settings[i].user_only) {
            untrusted_setting(cfg, path, i);
            continue;
        }
        const char *refused =
            src == CH_CFG_PROJECT_FILE ? project_refusal(cfg, path, i, value) : NULL;
        if (refused) {
            project_setting_refused(cfg, path, i, refused);
            continue;
        }
        set_value(cfg, i, value, src, path);
    }
    free(text);
    return rc;
}

/* A project file is read only when it is a regular file of a config's size: a repository's
 * .ch-cc.conf can be a link to /dev/zero (read forever) or a FIFO (a read that never returns).
 * Anything else is skipped with a warning, as a build must not hang on it. And only when the
 * user (or root) owns it: the search walks up past the project, so another user who can write
 * a directory above it (/tmp, a shared checkout's parent) could otherwise choose the settings
 * of everyone building below (attacks7 #19; git's safe.directory rule, CVE-2022-24765). */
#define MAX_PROJECT_CONF (1u << 20)
static int project_file_readable(ch_config *cfg, const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > (off_t)MAX_PROJECT_CONF) {
        ch_strvec_push_owned(&cfg->warnings,
                             ch_xasprintf("%s: ignored: not a regular file of at most %u KiB", path,
                                          MAX_PROJECT_CONF >> 10));
        return 0;
    }
    if (st.st_uid != geteuid() && st.st_uid != 0) {
        ch_strvec_push_owned(&cfg->warnings,
                             ch_xasprintf("%s: ignored: owned by user %u, not by you (a "
                                          "project file another user placed could choose your "
                                          "settings)",
                                          path, (unsigned)st.st_uid));
        return 0;
    }
    return 1;
}

static char *find_project_conf(const char *cwd)
{
    char buf[4096];
    if (!cwd) {
        if (!getcwd(buf, sizeof buf))
            return NULL;
        cwd = buf;
    }
    char *dir = ch_xstrdup(cwd);
    for (;;) {
        char *cand = ch_path_join(dir, ".ch-cc.conf");
        if (ch_file_exists(cand)) {
            free(dir);
            return cand;
        }
        free(cand);
        if (strcmp(dir, "/") == 0 || strcmp(dir, ".") == 0)
            break;
        char *up = ch_path_dir(dir);
        free(dir);
        dir = up;
    }
    free(dir);
    return NULL;
}

int ch_config_load(ch_config *cfg, const char *cwd, ch_error *err)
{
    cfg->n = settings_count();
    cfg->values = ch_xcalloc(cfg->n, sizeof *cfg->values);
    cfg->src = ch_xcalloc(cfg->n, sizeof *cfg->src);
    cfg->src_file = ch_xcalloc(cfg->n, sizeof *cfg->src_file);
    ch_strvec_init(&cfg->warnings);
    for (size_t i = 0; i < cfg->n; i++)
        cfg->values[i] = ch_xstrdup("");
    for (size_t i = 0; i < sizeof fixed_defaults / sizeof fixed_defaults[0]; i++)
        set_value(cfg, setting_index(fixed_defaults[i].key), fixed_defaults[i].value,
                  CH_CFG_DEFAULT, NULL);
    char *cache = default_cache_dir();
    set_value(cfg, setting_index("cache_dir"), cache, CH_CFG_DEFAULT, NULL);
    free(cache);

    const char *home = getenv("HOME");
    const char *xdg_config = getenv("XDG_CONFIG_HOME");
    char *user = NULL;
    if (xdg_config && *xdg_config)
        user = ch_xasprintf("%s/ch-cc/config", xdg_config);
    else if (home && *home)
        user = ch_xasprintf("%s/.config/ch-cc/config", home);
    int rc = user && ch_file_exists(user) ? load_file(cfg, user, CH_CFG_USER_FILE, err) : 0;
    free(user);
    char *project = rc == 0 ? find_project_conf(cwd) : NULL;
    if (project && project_file_readable(cfg, project))
        rc = load_file(cfg, project, CH_CFG_PROJECT_FILE, err);
    free(project);
    /* a file that does not parse: nothing is left for the caller to free */
    if (rc != 0) {
        ch_config_free(cfg);
        return -1;
    }
    for (size_t i = 0; i < cfg->n; i++) {
        const char *v = getenv(ch_settings[i].env);
        if (v)
            set_value(cfg, (int)i, v, CH_CFG_ENV, NULL);
    }
    return 0;
}

void ch_config_free(ch_config *cfg)
{
    for (size_t i = 0; i < cfg->n; i++) {
        free(cfg->values[i]);
        free(cfg->src_file[i]);
    }
    free(cfg->values);
    free(cfg->src);
    free(cfg->src_file);
    ch_strvec_free(&cfg->warnings);
    cfg->values = NULL;
    cfg->src = NULL;
    cfg->src_file = NULL;
    cfg->n = 0;
}

int ch_config_set(ch_config *cfg, const char *key, const char *value, ch_cfg_source src,
                  ch_error *err)
{
    int i = setting_index(key);
    if (i < 0)
        return ch_error_set(err, "unknown setting '%s' (see ch-cc --harness-config)", key);
    set_value(cfg, i, value, src, NULL);
    return 0;
}

const char *ch_config_get(const ch_config *cfg, const char *key)
{
    int i = setting_index(key);
    if (i < 0 || (size_t)i >= cfg->n)
        abort();
    return cfg->values[i];
}

void ch_config_describe_source(const ch_config *cfg, const char *key, ch_strbuf *out)
{
    int i = setting_index(key);
    switch (cfg->src[i]) {
    case CH_CFG_DEFAULT:
        ch_strbuf_adds(out, "default");
        break;
    case CH_CFG_USER_FILE:
    case CH_CFG_PROJECT_FILE:
        ch_strbuf_adds(out, cfg->src_file[i]);
        break;
    case CH_CFG_ENV:
        ch_strbuf_addf(out, "environment (%s)", ch_settings[i].env);
        break;
    case CH_CFG_CMDLINE:
        ch_strbuf_addf(out, "command line (--harness-%s)", ch_settings[i].key);
        break;
    }
}

static int bad_value(const ch_config *cfg, const char *key, const char *what, ch_error *err)
{
    ch_strbuf where;
    ch_strbuf_init(&where);
    ch_config_describe_source(cfg, key, &where);
    ch_error_set(err, "setting '%s' = '%s' (from %s) is not %s", key, ch_config_get(cfg, key),
                 where.data, what);
    ch_strbuf_free(&where);
    return -1;
}

int ch_config_long(const ch_config *cfg, const char *key, long *out, ch_error *err)
{
    const char *v = ch_config_get(cfg, key);
    char *end;
    long n = strtol(v, &end, 10);
    if (!*v || *end)
        return bad_value(cfg, key, "an integer", err);
    *out = n;
    return 0;
}

int ch_config_double(const ch_config *cfg, const char *key, double *out, ch_error *err)
{
    const char *v = ch_config_get(cfg, key);
    char *end;
    double d = strtod(v, &end);
    if (!*v || *end)
        return bad_value(cfg, key, "a number", err);
    *out = d;
    return 0;
}

int ch_config_bool(const ch_config *cfg, const char *key, int *out, ch_error *err)
{
    const char *v = ch_config_get(cfg, key);
    static const char *const yes[] = {"1", "yes", "true", "on"};
    static const char *const no[] = {"", "0", "no", "false", "off"};
    for (size_t i = 0; i < 4; i++)
        if (strcasecmp(v, yes[i]) == 0) {
            *out = 1;
            return 0;
        }
    for (size_t i = 0; i < 5; i++)
        if (strcasecmp(v, no[i]) == 0) {
            *out = 0;
            return 0;
        }
    return bad_value(cfg, key, "a boolean (1/0, yes/no, true/false)", err);
}

int ch_config_size(const ch_config *cfg, const char *key, unsigned long long *out, ch_error *err)
{
    const char *v = ch_config_get(cfg, key);
    char *end;
    double d = strtod(v, &end);
    if (!*v || end == v || d < 0)
        return bad_value(cfg, key, "a size (e.g. 500M, 5G)", err);
    double mult = 1;
    switch (toupper((unsigned char)*end)) {
    case '\0':
        break;
    case 'K':
        mult = 1024.0;
        break;
    case 'M':
        mult = 1024.0 * 1024;
        break;
    case 'G':
        mult = 1024.0 * 1024 * 1024;
        break;
    case 'T':
        mult = 1024.0 * 1024 * 1024 * 1024;
        break;
    default:
        return bad_value(cfg, key, "a size (e.g. 500M, 5G)", err);
    }
    if (*end && end[1] && !(toupper((unsigned char)end[1]) == 'B' && !end[2]) &&
        !(toupper((unsigned char)end[1]) == 'I' && toupper((unsigned char)end[2]) == 'B' &&
          !end[3]))
        return bad_value(cfg, key, "a size (e.g. 500M, 5G)", err);
    /* 2^64: "1e30" and "nan" parse as doubles but name no byte count (and casting them is
     * undefined behaviour) */
    if (!isfinite(d) || d * mult >= 18446744073709551616.0)
        return bad_value(cfg, key, "a size below 16E (e.g. 500M, 5G)", err);
    *out = (unsigned long long)(d * mult);
    return 0;
}

void ch_config_print(const ch_config *cfg, ch_strbuf *out)
{
    size_t width = 0;
    for (size_t i = 0; i < cfg->n; i++)
        if (strlen(ch_settings[i].key) > width)
            width = strlen(ch_settings[i].key);
    for (size_t i = 0; i < cfg->n; i++) {
        const char *v = cfg->values[i];
        const char *shown = ch_settings[i].secret && *v ? "<redacted>" : v;
        ch_strbuf src;
        ch_strbuf_init(&src);
        ch_config_describe_source(cfg, ch_settings[i].key, &src);
        ch_strbuf_addf(out, "%-*s = %-28s  # %s\n", (int)width, ch_settings[i].key,
                       *shown ? shown : "(unset)", src.data);
        ch_strbuf_free(&src);
    }
}
