/* The cleanup module at an exit: a normal exit keeps what is still registered (marked, so that no
 * sweep takes it), an exit from inside a foreign library's signal handler (NVRTC's front end
 * exits with status 4 on SIGINT) removes it as a signal would. Each case runs in a child
 * process, since the module's handlers and registrations are the process's. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ch/cleanup.h"
#include "ch/fsutil.h"
#include "ch/strbuf.h"

/* In a child with TMPDIR = base: installs the handlers, makes (and so registers) a temp
 * directory, writes its path to the pipe and exits with 4, inside a foreign call or not.
 * Returns the directory's path (caller frees) and the child's exit status in *status. */
static char *child_dir(const char *base, int in_foreign, int *status)
{
    int fds[2];
    cr_assert_eq(pipe(fds), 0);
    pid_t pid = fork();
    cr_assert_neq(pid, -1);
    if (pid == 0) {
        close(fds[0]);
        setenv("TMPDIR", base, 1);
        ch_cleanup_install();
        ch_error err;
        char *dir = ch_make_temp_dir("t", &err);
        if (!dir)
            _exit(90);
        if (write(fds[1], dir, strlen(dir)) != (ssize_t)strlen(dir))
            _exit(91);
        close(fds[1]);
        free(dir);
        if (in_foreign)
            ch_cleanup_foreign_begin();
        exit(4); /* as NVRTC's handler does; atexit handlers run */
    }
    close(fds[1]);
    char buf[1024] = {0};
    ssize_t n = read(fds[0], buf, sizeof buf - 1);
    close(fds[0]);
    cr_assert(waitpid(pid, status, 0) == pid);
    cr_assert(n > 0, "the child made no directory (status %d)", *status);
    return ch_xstrdup(buf);
}

Test(cleanup, an_exit_inside_a_foreign_call_removes_what_is_registered)
{
    ch_error err;
    char *base = ch_make_temp_dir("cleanup-test", &err);
    cr_assert_not_null(base, "%s", err.msg);
    int status = 0;

    /* ch-cc's own exit: the directory stays, marked as kept on purpose */
    char *kept = child_dir(base, 0, &status);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 4);
    char *mark = ch_path_join(kept, ".ch-cc-kept");
    cr_expect(ch_file_exists(mark), "a normal exit marks %s as kept", kept);

    /* an exit from inside NVRTC's handler: removed, as on a signal */
    char *gone = child_dir(base, 1, &status);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 4);
    cr_expect_not(ch_is_dir(gone), "%s outlived an exit inside a foreign call", gone);

    ch_remove_tree(base, &err);
    free(mark);
    free(kept);
    free(gone);
    free(base);
}
