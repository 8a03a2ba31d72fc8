/* Direct mode's steps (ch/direct_mode.h): the key of a command, serving and recording its
 * manifest. The thin binary links this file: it uses the base, the cache's manifests and
 * statistics, nothing that needs libclang or libcurl. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ch/cache.h"
#include "ch/direct_mode.h"
#include "ch/fsutil.h"
#include "ch/manifest.h"
#include "ch/output.h"
#include "ch/proc.h"

extern char **environ;

/* Settings that never change an object: where things go, how long to wait, secrets. A
 * manifest keeps the report page, which report_dir only places. */
static const char *const unkeyed_settings[] = {
    "cache_dir",       "max_size", "lock_timeout",  "remote_token", "api_key",
    "remote_timeout",  "quiet",    "log",           "keep",         "jobs",
    "request_timeout", "retries",  "retry_backoff", "report_dir",   NULL};

/* Environment the preprocessor or the GPU choice reads. */
static const char *const keyed_env[] = {
    "CPATH",         "C_INCLUDE_PATH",    "CPLUS_INCLUDE_PATH",   "GCC_EXEC_PREFIX",
    "COMPILER_PATH", "SOURCE_DATE_EPOCH", "CUDA_VISIBLE_DEVICES", NULL};

static int is_unkeyed(const char *key)
{
    for (size_t i = 0; unkeyed_settings[i]; i++)
        if (strcmp(unkeyed_settings[i], key) == 0)
            return 1;
    return 0;
}

/* "PATH SIZE MTIME" of an executable, so a changed toolchain changes the key. */
static void push_tool(ch_strvec *parts, const char *what, const char *path)
{
    struct stat st;
    if (path && stat(path, &st) == 0)
        ch_strvec_push_owned(parts, ch_xasprintf("%s=%s %lld %lld.%09ld", what, path,
                                                 (long long)st.st_size,
                                                 (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec));
    else
        ch_strvec_push_owned(parts, ch_xasprintf("%s=none", what));
}

/* The GPUs the NVIDIA driver lists (names only: no device is opened). */
static void push_gpus(ch_strvec *parts)
{
    DIR *dir = opendir("/proc/driver/nvidia/gpus");
    ch_strbuf sb;
    ch_strbuf_init(&sb);
    ch_strbuf_adds(&sb, "gpus=");
    struct dirent *de;
    while (dir && (de = readdir(dir)))
        if (de->d_name[0] != '.')
            ch_strbuf_addf(&sb, "%s ", de->d_name);
    if (dir)
        closedir(dir);
    ch_strvec_push_owned(parts, ch_strbuf_detach(&sb));
}

/* trusted_keys as keys, not as a name: a value with a '/' is a file of keys (as ch_trust_parse
 * reads it), whose content joins the key, so a key removed from the file (revoked) misses
 * every manifest recorded while it was trusted (attacks7 #26). */
static void push_trusted_keys(ch_strvec *parts, const char *value)
{
    char hex[33];
    ch_error err;
    if (!strchr(value, '/'))
        return; /* the keys themselves: keyed with the other settings */
    if (ch_manifest_hash_file(value, hex, &err) == 0)
        ch_strvec_push_owned(parts, ch_xasprintf("trusted_keys content=%s", hex));
    else
        ch_strvec_push(parts, "trusted_keys content=unreadable");
}

int ch_direct_mode_key(const ch_direct_command *c, char key[33])
{
    char *cwd = getcwd(NULL, 0);
    if (!cwd)
        return -1;
    ch_strvec parts;
    ch_strvec_init(&parts);
    ch_strvec_push(&parts, "ch-cc direct " CH_CC_VERSION);
    push_tool(&parts, "self", c->self);
    ch_strvec_push_owned(&parts, ch_xasprintf("cwd=%s", cwd));
    free(cwd);
    ch_strvec_push_owned(&parts, ch_xasprintf("source=%s", c->source));
    push_tool(&parts, "compiler", c->compiler);
    push_tool(&parts, "nvcc", c->nvcc);
    for (size_t i = 0; i < c->cfg->n; i++)
        if (!is_unkeyed(ch_settings[i].key))
            ch_strvec_push_owned(&parts,
                                 ch_xasprintf("set %s=%s", ch_settings[i].key, c->cfg->values[i]));
    push_trusted_keys(&parts, ch_config_get(c->cfg, "trusted_keys"));
    for (size_t i = 0; keyed_env[i]; i++) {
        const char *v = getenv(keyed_env[i]);
        ch_strvec_push_owned(&parts,
                             ch_xasprintf("env %s=%s%s", keyed_env[i], v ? "1" : "0", v ? v : ""));
    }
    push_gpus(&parts);
    ch_strvec_push(&parts, "args");
    for (size_t i = 0; i < c->n_args; i++)
        ch_strvec_push(&parts, c->args[i]);
    ch_manifest_key(parts.items, parts.len, key);
    ch_strvec_free(&parts);
    return 0;
}

/* Adds a direct hit or miss to the statistics; best effort: a read-only cache still serves
 * hits, uncounted. */
static void count(const char *cache_dir, int hit, ch_strvec *warnings)
{
    ch_cache_stats delta;
    memset(&delta, 0, sizeof delta);
    if (hit)
        delta.direct_hits = 1;
    else
        delta.direct_misses = 1;
    ch_error err;
    size_t damaged = 0;
    ch_cache_stats_add_at(cache_dir, &delta, &damaged, &err);
    if (damaged)
        ch_strvec_push_owned(warnings,
                             ch_xasprintf("cache statistics file %s/stats was damaged (%zu "
                                          "unreadable lines); rebuilt from the readable counters",
                                          cache_dir, damaged));
}

/* Writes bytes to a user's output as the real compiler would: whole or not at all. */
static int write_output(const char *path, const char *data, size_t len, ch_error *err)
{
    ch_output o;
    if (ch_output_begin(&o, path, err) != 0)
        return -1;
    /* o.tmp is ours alone (reserved by ch_output_begin): plain writes, the rename is commit's */
    int fd = open(o.tmp, O_WRONLY | O_TRUNC | O_CLOEXEC);
    size_t done = 0;
    while (fd >= 0 && done < len) {
        ssize_t n = write(fd, data + done, len - done);
        if (n <= 0)
            break;
        done += (size_t)n;
    }
    if (fd < 0 || done < len || close(fd) != 0) {
        ch_error_set(err, "cannot write '%s': %s", o.tmp, strerror(errno));
        if (fd >= 0 && done < len)
            close(fd);
        ch_output_abort(&o);
        return -1;
    }
    return ch_output_commit(&o, err);
}

/* The report page of a served build into dir, as the full build writes it after the object;
 * a failure is a warning, as there. */
static void write_page(const char *dir, const ch_manifest_hit *hit, ch_strvec *warnings)
{
    ch_error err;
    char *path = ch_path_join(dir, hit->page_name);
    if (ch_mkdir_p(dir, &err) != 0 || write_output(path, hit->page, hit->page_len, &err) != 0)
        ch_strvec_push_owned(warnings,
                             ch_xasprintf("the report page was not written: %s", err.msg));
    free(path);
}

int ch_direct_mode_serve(const char *cache_dir, const char *key, const ch_direct_outputs *out,
                         ch_strvec *warnings)
{
    ch_manifest_hit hit;
    const char *why = NULL;
    if (!ch_manifest_lookup(cache_dir, key, &hit, &why)) {
        count(cache_dir, 0, warnings);
        return 0;
    }
    int wants_page = out->report_dir && *out->report_dir;
    if (wants_page && !hit.page) { /* recorded without a page: the full path writes one */
        ch_manifest_hit_free(&hit);
        count(cache_dir, 0, warnings);
        return 0;
    }
    ch_error err;
    int rc = 0;
    /* the dep file first, so that make never sees an object older than its dep file */
    if (out->dep)
        rc = hit.dep_len ? write_output(out->dep, hit.dep, hit.dep_len, &err) : -1;
    if (rc == 0)
        rc = write_output(out->obj, hit.obj, hit.obj_len, &err);
    if (rc == 0 && wants_page)
        write_page(out->report_dir, &hit, warnings);
    ch_manifest_hit_free(&hit);
    if (rc != 0) /* not written: the full path builds it, and says what is wrong */
        return 0;
    count(cache_dir, 1, warnings);
    return 1;
}

void ch_direct_mode_parse_deps(const char *text, ch_strvec *files)
{
    const char *p = strchr(text, ':');
    if (!p)
        return;
    p++;
    ch_strbuf name;
    ch_strbuf_init(&name);
    for (;; p++) {
        if (*p == '\\' && (p[1] == ' ' || p[1] == '#')) {
            ch_strbuf_addc(&name, *++p);
            continue;
        }
        if (*p == '\\' && p[1] == '\n') {
            p++;
        } else if (*p && *p != ' ' && *p != '\n' && *p != '\t') {
            ch_strbuf_addc(&name, *p);
            continue;
        }
        if (name.len) {
            ch_strvec_push(files, name.data);
            ch_strbuf_free(&name);
            ch_strbuf_init(&name);
        }
        if (!*p)
            break;
    }
    ch_strbuf_free(&name);
}

/* Files an argument names whose contents change the object but which -M never lists: a GCC
 * specs file, a plugin, a sanitizer's list, profile data (attacks7 #12). They join the
 * manifest's files, so a changed one is a miss as a changed header is. */
static const char *const file_options[] = {"-specs=",
                                           "--specs=",
                                           "-fplugin=",
                                           "-fprofile-use=",
                                           "-fsanitize-blacklist=",
                                           "-fsanitize-ignorelist=",
                                           "-fprofile-sample-use=",
                                           NULL};

static void add_named_files(char *const *argv, ch_strvec *files)
{
    for (size_t i = 0; argv[i]; i++)
        for (size_t k = 0; file_options[k]; k++) {
            size_t n = strlen(file_options[k]);
            struct stat st;
            if (strncmp(argv[i], file_options[k], n) == 0 && stat(argv[i] + n, &st) == 0 &&
                S_ISREG(st.st_mode))
                ch_strvec_push(files, argv[i] + n);
        }
}

/* Whether a listed file uses the assembler's .incbin: the file it pulls in is read by the
 * assembler, not the preprocessor, so -M does not list it and no manifest can check it
 * (attacks7 #11; ccache refuses such a file too). */
static const char *uses_incbin(const ch_strvec *files)
{
    for (size_t i = 0; i < files->len; i++) {
        char *text = NULL;
        ch_error ignored;
        if (ch_read_file(files->items[i], &text, NULL, &ignored) != 0)
            continue;
        int found = strstr(text, ".incbin") != NULL;
        free(text);
        if (found)
            return files->items[i];
    }
    return NULL;
}

/* The environment with LC_ALL=C: the `-v` report is read by its English words, which a
 * translated compiler would say otherwise (and a partly translated one only in part). */
static void c_locale_env(ch_strvec *env)
{
    for (char **e = environ; e && *e; e++)
        if (strncmp(*e, "LC_ALL=", 7) != 0)
            ch_strvec_push(env, *e);
    ch_strvec_push(env, "LC_ALL=C");
}

int ch_direct_mode_record(const char *cache_dir, const char *key, char *const *deps_argv,
                          const char *obj_path, const char *dep_path, const char *page,
                          const char *page_name, long long started, ch_error *err)
{
    ch_strvec files, probes, env;
    ch_strvec_init(&files);
    ch_strvec_init(&probes);
    ch_strvec_init(&env);
    c_locale_env(&env);
    ch_proc_opts opts = {0};
    opts.envp = env.items;
    opts.capture_stdout = 1;
    opts.capture_stderr = 1;
    opts.stdin_path = "/dev/null";
    ch_proc_result res;
    ch_proc_result_init(&res);
    char *obj = NULL, *dep = NULL;
    size_t obj_len = 0, dep_len = 0;
    int rc = ch_proc_run(deps_argv, &opts, &res, err);
    if (rc == 0 && res.exit_code != 0)
        rc = ch_error_set(err, "%s -M exited with status %d", deps_argv[0], res.exit_code);
    if (rc == 0)
        ch_direct_mode_parse_deps(res.out.data ? res.out.data : "", &files);
    if (rc == 0 && files.len == 0)
        rc = ch_error_set(err, "%s -M listed no file", deps_argv[0]);
    const char *incbin = rc == 0 ? uses_incbin(&files) : NULL;
    if (incbin)
        rc = ch_error_set(err, "not recorded: %s uses .incbin, whose file no manifest can check",
                          incbin);
    /* the include search as it stands: where a new header would shadow one read (#13) */
    if (rc == 0 &&
        ch_direct_search_probes(res.err.data ? res.err.data : "", &files, &probes, err) != 0)
        rc = ch_error_prefix(err, "not recorded");
    if (rc == 0)
        add_named_files(deps_argv, &files);
    /* only an object in a regular file is kept (-o /dev/null: nothing to serve later) */
    struct stat st;
    if (rc == 0 && (stat(obj_path, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size == 0))
        rc = ch_error_set(err, "%s is not an object in a regular file", obj_path);
    if (rc == 0)
        rc = ch_read_file(obj_path, &obj, &obj_len, err);
    if (rc == 0 && dep_path)
        rc = ch_read_file(dep_path, &dep, &dep_len, err);
    if (rc == 0) {
        ch_manifest_record r = {.files = files.items,
                                .n_files = files.len,
                                .probes = probes.items,
                                .n_probes = probes.len,
                                .dep = dep,
                                .dep_len = dep_len,
                                .obj = obj,
                                .obj_len = obj_len,
                                .started = started};
        /* a name the manifest cannot hold (a newline in it) is not recorded: a build that
         * asks for a page is then never served without one */
        if (page && page_name && !strchr(page_name, '\n')) {
            r.page = page;
            r.page_len = strlen(page);
            r.page_name = page_name;
        }
        const char *why = NULL;
        int written = ch_manifest_write(cache_dir, key, &r, &why, err);
        if (written == 0)
            rc = ch_error_set(err, "not recorded: %s", why ? why : "refused");
        else if (written < 0)
            rc = -1;
    }
    free(obj);
    free(dep);
    ch_proc_result_free(&res);
    ch_strvec_free(&files);
    ch_strvec_free(&probes);
    ch_strvec_free(&env);
    return rc;
}
