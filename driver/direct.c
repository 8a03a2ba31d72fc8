/* Direct mode (ccache's idea, for ch-cc): a warm rebuild of an annotated file is served by the
 * thin binary from a manifest, without libclang, nvcc or the real compiler.
 *
 * The key covers what decides the object besides file contents: ch-cc's own binary (path,
 * size, mtime: a rebuilt ch-cc misses), the working directory, the source path, every
 * argument as expanded, the real compiler and nvcc (resolved path, size, mtime), the settings
 * that change outcomes, the environment the preprocessor reads, and the GPUs the driver lists.
 * The manifest then lists every file the preprocessor read, with content hashes, learnt at
 * record time from the real compiler's own `-M` (the compiler that made the object, with the
 * user's include paths and its built-in headers: libclang's inclusions would be another
 * compiler's view, and ask for an API change in the scan layer); it costs one preprocess, on
 * a miss only. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ch/cache.h"
#include "ch/fsutil.h"
#include "ch/manifest.h"
#include "ch/output.h"
#include "ch/proc.h"
#include "direct.h"

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

char *ch_direct_depfile(const ch_args *a, const char *user_obj)
{
    return a->dep_mf ? ch_xstrdup(a->dep_mf) : ch_path_with_suffix(user_obj, ".d");
}

char *ch_direct_object(const ch_args *a, const ch_input *in)
{
    return a->output ? ch_xstrdup(a->output) : ch_path_with_suffix(ch_path_base(in->path), ".o");
}

long ch_direct_input(const ch_driver *d, const int *annotated)
{
    const ch_args *a = &d->args;
    if (!a->compile_only || a->syntax_only || a->assemble_only || a->n_inputs != 1 ||
        !annotated[0] || d->launcher || d->personality == CH_REAL_NVCC ||
        strcmp(a->inputs[0].path, "-") == 0 || !*ch_config_get(&d->cfg, "cache_dir"))
        return -1;
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

/* ch-cc-full: this process when it is the full binary, else the one next to the thin one. */
static char *full_binary_path(void)
{
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n > 0) {
        self[n] = '\0';
        if (strcmp(ch_path_base(self), "ch-cc-full") == 0)
            return ch_xstrdup(self);
    }
    /* the thin binary's "bin/../libexec/..." and the full one's own path must key alike */
    char *full = ch_driver_full_binary();
    char *real = full ? realpath(full, NULL) : NULL;
    free(full);
    return real;
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

static int command_key(const ch_driver *d, const ch_input *in, char key[33])
{
    ch_strvec parts;
    ch_strvec_init(&parts);
    ch_strvec_push(&parts, "ch-cc direct " CH_CC_VERSION);
    char *full = full_binary_path();
    push_tool(&parts, "self", full);
    free(full);
    char *cwd = getcwd(NULL, 0);
    if (!cwd) {
        ch_strvec_free(&parts);
        return -1;
    }
    ch_strvec_push_owned(&parts, ch_xasprintf("cwd=%s", cwd));
    free(cwd);
    ch_strvec_push_owned(&parts, ch_xasprintf("source=%s", in->path));
    ch_error err;
    char *compiler = ch_driver_compiler(d, &err);
    char *nvcc = ch_real_compiler(d, CH_REAL_NVCC, &err);
    push_tool(&parts, "compiler", compiler);
    push_tool(&parts, "nvcc", nvcc);
    free(compiler);
    free(nvcc);
    for (size_t i = 0; i < d->cfg.n; i++)
        if (!is_unkeyed(ch_settings[i].key))
            ch_strvec_push_owned(&parts,
                                 ch_xasprintf("set %s=%s", ch_settings[i].key, d->cfg.values[i]));
    for (size_t i = 0; keyed_env[i]; i++) {
        const char *v = getenv(keyed_env[i]);
        ch_strvec_push_owned(&parts,
                             ch_xasprintf("env %s=%s%s", keyed_env[i], v ? "1" : "0", v ? v : ""));
    }
    push_gpus(&parts);
    ch_strvec_push(&parts, "args");
    ch_strvec_pushv(&parts, &d->args.expanded);
    ch_manifest_key(parts.items, parts.len, key);
    ch_strvec_free(&parts);
    return 0;
}

static void count(const ch_driver *d, int hit)
{
    ch_cache_stats delta;
    memset(&delta, 0, sizeof delta);
    if (hit)
        delta.direct_hits = 1;
    else
        delta.direct_misses = 1;
    ch_error err;
    size_t damaged = 0;
    const char *dir = ch_config_get(&d->cfg, "cache_dir");
    /* best effort: a read-only cache still serves hits, uncounted */
    ch_cache_stats_add_at(dir, &delta, &damaged, &err);
    if (damaged)
        ch_driver_warn("cache statistics file %s/stats was damaged (%zu unreadable lines); "
                       "rebuilt from the readable counters",
                       dir, damaged);
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
        ch_output_abort(&o);
        return -1;
    }
    return ch_output_commit(&o, err);
}

/* The report page of a served build into dir, as the full build writes it after the object;
 * a failure is a warning, as there. */
static void write_page(const char *dir, const ch_manifest_hit *hit)
{
    ch_error err;
    char *path = ch_path_join(dir, hit->page_name);
    if (ch_mkdir_p(dir, &err) != 0 || write_output(path, hit->page, hit->page_len, &err) != 0)
        ch_driver_warn("the report page was not written: %s", err.msg);
    free(path);
}

int ch_direct_serve(ch_driver *d, size_t input, int *status)
{
    const ch_args *a = &d->args;
    const ch_input *in = &a->inputs[input];
    char key[33];
    if (command_key(d, in, key) != 0)
        return 0;
    ch_manifest_hit hit;
    const char *why = NULL;
    if (!ch_manifest_lookup(ch_config_get(&d->cfg, "cache_dir"), key, &hit, &why)) {
        count(d, 0);
        return 0;
    }
    const char *report_dir = ch_config_get(&d->cfg, "report_dir");
    int wants_page = report_dir && *report_dir;
    if (wants_page && !hit.page) { /* recorded without a page: the full path writes one */
        ch_manifest_hit_free(&hit);
        count(d, 0);
        return 0;
    }
    char *obj = ch_direct_object(a, in);
    ch_error err;
    int rc = 0;
    /* the dep file first, so that make never sees an object older than its dep file */
    if (a->dep_md) {
        char *dep = ch_direct_depfile(a, obj);
        rc = hit.dep_len ? write_output(dep, hit.dep, hit.dep_len, &err) : -1;
        free(dep);
    }
    if (rc == 0)
        rc = write_output(obj, hit.obj, hit.obj_len, &err);
    free(obj);
    if (rc == 0 && wants_page)
        write_page(report_dir, &hit);
    ch_manifest_hit_free(&hit);
    if (rc != 0) /* not written: the full path builds it, and says what is wrong */
        return 0;
    count(d, 1);
    *status = 0;
    return 1;
}

/* The real compiler's arguments for listing the files it reads: the user's, without outputs,
 * inputs and dependency options, plus -M. */
static void deps_argv(const ch_driver *d, const ch_input *in, char *compiler, ch_strvec *argv)
{
    const ch_args *a = &d->args;
    static const char *const alone[] = {"-c", "-MD", "-MMD", "-MP", "-M", "-MM", "-MG", NULL};
    static const char *const with_value[] = {"-MF", "-MT", "-MQ", NULL};
    ch_strvec_push_owned(argv, compiler);
    for (size_t i = 0; i < a->expanded.len; i++) {
        const char *s = a->expanded.items[i];
        int skip = a->output_nargs && i >= a->output_argi && i < a->output_argi + a->output_nargs;
        for (size_t k = 0; k < a->n_inputs; k++)
            skip |= a->inputs[k].argi == i;
        for (size_t k = 0; alone[k]; k++)
            skip |= strcmp(s, alone[k]) == 0;
        for (size_t k = 0; with_value[k]; k++) {
            if (strcmp(s, with_value[k]) == 0) {
                i++;
                skip = 1;
            } else if (strncmp(s, with_value[k], 3) == 0) {
                skip = 1;
            }
        }
        skip |= strncmp(s, "-Wp,-M", 6) == 0;
        if (!skip)
            ch_strvec_push(argv, s);
    }
    ch_strvec_push(argv, "-M");
    ch_strvec_push(argv, "-MT");
    ch_strvec_push(argv, "x");
    ch_strvec_push(argv, in->path);
}

/* Splits make's "x: a b \\\n c" into paths ("\\ " is a space in a name). */
static void parse_deps(const char *text, ch_strvec *files)
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

void ch_direct_record(ch_driver *d, size_t input, const char *user_obj, long long started,
                      const char *page, const char *page_name)
{
    const ch_args *a = &d->args;
    const ch_input *in = &a->inputs[input];
    char key[33];
    ch_error err;
    char *compiler = ch_driver_compiler(d, &err);
    if (!compiler || command_key(d, in, key) != 0) {
        free(compiler);
        return;
    }
    ch_strvec argv, files;
    ch_strvec_init(&argv);
    ch_strvec_init(&files);
    deps_argv(d, in, compiler, &argv);
    ch_proc_opts opts = {0};
    opts.capture_stdout = 1;
    opts.capture_stderr = 1;
    opts.stdin_path = "/dev/null";
    ch_proc_result res;
    ch_proc_result_init(&res);
    char *obj = NULL, *dep = NULL, *dep_path = NULL;
    size_t obj_len = 0, dep_len = 0;
    int ok = ch_proc_run(argv.items, &opts, &res, &err) == 0 && res.exit_code == 0;
    if (ok)
        parse_deps(res.out.data, &files);
    /* only an object in a regular file is kept (-o /dev/null: nothing to serve later) */
    struct stat st;
    ok = ok && files.len > 0 && stat(user_obj, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
         ch_read_file(user_obj, &obj, &obj_len, &err) == 0;
    if (ok && a->dep_md) {
        dep_path = ch_direct_depfile(a, user_obj);
        ok = ch_read_file(dep_path, &dep, &dep_len, &err) == 0;
    }
    if (ok) {
        ch_manifest_record r = {.files = files.items,
                                .n_files = files.len,
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
        ch_manifest_write(ch_config_get(&d->cfg, "cache_dir"), key, &r, &why, &err);
    }
    free(obj);
    free(dep);
    free(dep_path);
    ch_proc_result_free(&res);
    ch_strvec_free(&argv);
    ch_strvec_free(&files);
}
