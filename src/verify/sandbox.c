/* The sandbox candidate and reference programs run in: a given fresh directory as working
 * directory, HOME and TMPDIR; an environment reduced to what a CUDA program needs; resource and
 * wall-time limits with the process group killed; a new network namespace when allowed. */
#include <stdlib.h>
#include <string.h>

#include "ch/sandbox.h"

extern char **environ;

static int keep_var(const char *kv)
{
    static const char *const exact[] = {"PATH=", "LD_LIBRARY_PATH=", NULL};
    for (size_t i = 0; exact[i]; i++)
        if (strncmp(kv, exact[i], strlen(exact[i])) == 0)
            return 1;
    /* CUDA_VISIBLE_DEVICES, CUDA_HOME, NVIDIA_VISIBLE_DEVICES, ... (never keys) */
    return strncmp(kv, "CUDA_", 5) == 0 || strncmp(kv, "NVIDIA_", 7) == 0;
}

void ch_sandbox_env(const char *dir, char *const *extra_env, ch_strvec *out)
{
    ch_strvec_init(out);
    for (char **e = environ; e && *e; e++)
        if (keep_var(*e))
            ch_strvec_push(out, *e);
    ch_strvec_push_owned(out, ch_xasprintf("HOME=%s", dir));
    ch_strvec_push_owned(out, ch_xasprintf("TMPDIR=%s", dir));
    ch_strvec_push(out, "LC_ALL=C");
    for (char *const *e = extra_env; e && *e; e++)
        ch_strvec_push(out, *e);
}

int ch_sandbox_run(const ch_sandbox_opts *o, char *const *argv, ch_proc_result *res, ch_error *err)
{
    ch_strvec env, args;
    ch_sandbox_env(o->dir, o->extra_env, &env);
    ch_strvec_init(&args);
    /* the runner prefix, split at blanks ("srun --gres=gpu:1") */
    if (o->runner && *o->runner) {
        const char *p = o->runner;
        while (*p) {
            while (*p == ' ' || *p == '\t')
                p++;
            const char *q = p;
            while (*q && *q != ' ' && *q != '\t')
                q++;
            if (q > p)
                ch_strvec_push_owned(&args, ch_xstrndup(p, (size_t)(q - p)));
            p = q;
        }
    }
    for (char *const *a = argv; *a; a++)
        ch_strvec_push(&args, *a);
    ch_proc_opts po;
    memset(&po, 0, sizeof po);
    po.cwd = o->dir;
    po.envp = env.items;
    po.capture_stdout = 1;
    po.capture_stderr = 1;
    po.stdin_path = "/dev/null";
    po.wall_seconds = o->wall_seconds > 0 ? o->wall_seconds : 60;
    po.cpu_seconds = o->cpu_seconds > 0 ? o->cpu_seconds : 120;
    po.file_size_bytes = o->file_size_bytes > 0 ? o->file_size_bytes : 4L << 30;
    po.open_files = o->open_files > 0 ? o->open_files : 256;
    po.new_process_group = 1;
    po.new_network_ns = !o->allow_network;
    po.capture_limit = 1 << 20;
    int rc = ch_proc_run(args.items, &po, res, err);
    ch_strvec_free(&args);
    ch_strvec_free(&env);
    return rc;
}
