/* A test author's reference must not read memory that nothing wrote (attacks6/16). Such a
 * reference is right in every run verification makes and wrong later: a word of a malloc'd
 * block that an earlier call left behind is a counter across calls that no static rule sees
 * (the allocator keeps it, not the reference), and stack garbage differs between the oracle's
 * process and the user's. Its outputs depend on what the allocator or the stack held before,
 * so it is neither an oracle nor a host path.
 *
 * clang's MemorySanitizer tracks exactly that: every byte's "was written" bit, and a report
 * when an unwritten one decides a branch, an address or a library call. The reference and the
 * generated main are plain C on libc, which MemorySanitizer intercepts, so the whole program
 * is instrumented and a report is the reference's own. A reference with a sample function
 * links the user's file, compiled without it, and is not checked here. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ch/fsutil.h"
#include "ch/proc.h"
#include "ch/sandbox.h"
#include "ch/verify.h"
#include "reference_msan.h"

/* The compiler of the check: clang, which carries MemorySanitizer (gcc has none). */
#define MSAN_CC "clang"

/* Where the report's first frame is, "in FN at ref_impl.c:LINE" by addr2line (the run has no
 * symboliser: it may not start programs), else "". Frames read "#0 0x... (EXE+0xOFFSET)".
 * Caller frees. */
static char *report_place(const char *text, const char *exe)
{
    const char *f = strstr(text, "#0 ");
    const char *at = f ? strstr(f, "+0x") : NULL;
    const char *eol = f ? strchr(f, '\n') : NULL;
    if (!at || (eol && at > eol))
        return ch_xstrdup("");
    unsigned long long off = strtoull(at + 1, NULL, 16);
    char addr[32];
    snprintf(addr, sizeof addr, "0x%llx", off);
    char *argv[] = {"addr2line", "-f", "-e", (char *)exe, addr, NULL};
    ch_strbuf out;
    ch_strbuf_init(&out);
    ch_error err;
    char *place = NULL;
    if (ch_proc_capture(argv, &out, &err) == 0 && out.data) {
        size_t fl = strcspn(out.data, "\n");
        const char *where = out.data[fl] ? out.data + fl + 1 : "";
        size_t wl = strcspn(where, " \n");
        const char *base = memrchr(where, '/', wl);
        base = base ? base + 1 : where;
        if (fl && where[0] != '?')
            place =
                ch_xasprintf(" in %.*s at %.*s", (int)fl, out.data, (int)(where + wl - base), base);
    }
    ch_strbuf_free(&out);
    return place ? place : ch_xstrdup("");
}

/* A check that cannot run is said, never skipped silently: once per process on stderr. */
static void say_unchecked_once(void)
{
    static atomic_int said;
    if (atomic_exchange(&said, 1))
        return;
    fprintf(stderr, "ch-cc: warning: model-written references are not checked for reads of "
                    "unwritten memory: '" MSAN_CC " -fsanitize=memory' cannot build here (install "
                    "clang and its compiler-rt, Debian 'clang libclang-rt-dev')\n");
}

static int build(const char *main_c, const char *impl_c, const char *box, const char *exe,
                 ch_strbuf *log)
{
    char *argv[] = {MSAN_CC,
                    "-fsanitize=memory",
                    "-fno-omit-frame-pointer",
                    "-O1",
                    "-g",
                    "-std=gnu11",
                    "-w",
                    "-o",
                    (char *)exe,
                    (char *)main_c,
                    (char *)impl_c,
                    "-lm",
                    NULL};
    ch_sandbox_opts so;
    ch_sandbox_opts_compiler(&so, box, 300);
    ch_proc_result r;
    ch_proc_result_init(&r);
    ch_error err;
    int rc = ch_sandbox_run(&so, argv, &r, &err);
    if (rc == 0 && r.exit_code != 0)
        rc = -1;
    if (rc != 0) {
        say_unchecked_once();
        if (log)
            ch_strbuf_addf(log,
                           "reference: not checked for reads of unwritten memory (%s "
                           "-fsanitize=memory could not build it)\n%s",
                           MSAN_CC, r.out.data ? r.out.data : "");
    }
    ch_proc_result_free(&r);
    return rc;
}

int ch_reference_msan_check(const ch_checklist *c, const char *main_c, const char *impl_c,
                            const char *box, ch_strbuf *log, ch_error *err)
{
    if (c->sample || !c->n_smoke)
        return 0;
    char *exe = ch_path_join(box, "ref_msan");
    char *set = ch_path_join(box, "msan-set");
    int rc = 0;
    ch_error ignored;
    ch_dataset ds;
    if (build(main_c, impl_c, box, exe, log) != 0)
        goto done;
    if (ch_data_synthesize(c, &c->smoke[0], 0x5eedULL, &ds, &ignored) != 0)
        goto done; /* the probe reported what is wrong with the sizes */
    int written = ch_mkdir_p(set, &ignored) == 0 && ch_dataset_write(c, &ds, set, &ignored) == 0;
    ch_dataset_free(&ds);
    if (!written)
        goto done;
    ch_sandbox_opts so;
    ch_sandbox_opts_cpu(&so, set, 120);
    char *argv[] = {exe, set, NULL};
    /* no symboliser (it would be a program started inside the sandbox): report_place */
    static char *const options[] = {"MSAN_OPTIONS=symbolize=0", NULL};
    so.extra_env = options;
    ch_proc_result pr;
    ch_proc_result_init(&pr);
    if (ch_sandbox_run(&so, argv, &pr, &ignored) == 0 && pr.err.data &&
        strstr(pr.err.data, "MemorySanitizer: use-of-uninitialized-value")) {
        char *where = report_place(pr.err.data, exe);
        rc = ch_error_set(
            err,
            "reference: the test author's reference for %s is refused: it reads "
            "memory that nothing wrote (MemorySanitizer: a value never written decides "
            "what it computes%s), so its outputs "
            "depend on what an earlier call or the allocator left there",
            c->name, where);
        free(where);
        if (log)
            ch_strbuf_add(log, pr.err.data, pr.err.len);
    }
    ch_proc_result_free(&pr);
done:
    ch_remove_tree(set, &ignored);
    free(exe);
    free(set);
    return rc;
}
