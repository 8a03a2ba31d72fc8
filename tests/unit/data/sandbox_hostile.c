/* A hostile verification program for test_sandbox: argv[1] names the attack; it prints
 * "ESCAPED" and exits 0 when the attack worked, exits 3 when it was refused. "benign" is the
 * control: it does what a real candidate does (read its input, write its output); "exit N" and
 * "abort" end as a real program may. "unix PATH" connects to a listening AF_UNIX socket. */
#include <arpa/inet.h>
#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

static int escaped(void)
{
    puts("ESCAPED");
    return 0;
}

static int read_file(const char *path)
{
    char buf[64];
    int fd = open(path, O_RDONLY);
    if (fd < 0 || read(fd, buf, sizeof buf) <= 0)
        return 3;
    return escaped();
}

static int write_file(const char *path)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || write(fd, "owned\n", 6) != 6)
        return 3;
    close(fd);
    return escaped();
}

static int connect_local(const char *port)
{
    int s = socket(AF_INET, SOCK_STREAM, 0);
    if (s < 0)
        return 3;
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_port = htons((unsigned short)atoi(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(s, (struct sockaddr *)&a, sizeof a) != 0)
        return 3;
    return escaped();
}

/* a listening AF_UNIX socket outside the sandbox (another program's: MPS, D-Bus, an agent) */
static int connect_unix(const char *path)
{
    int s = socket(AF_UNIX, SOCK_STREAM, 0);
    if (s < 0)
        return 3;
    struct sockaddr_un a;
    memset(&a, 0, sizeof a);
    a.sun_family = AF_UNIX;
    strncpy(a.sun_path, path, sizeof a.sun_path - 1);
    if (connect(s, (struct sockaddr *)&a, sizeof a) != 0)
        return 3;
    return escaped();
}

static int spawn_shell(void)
{
    pid_t pid = fork();
    if (pid == 0)
        _exit(0);
    if (pid > 0) {
        waitpid(pid, NULL, 0);
        return escaped();
    }
    if (system("exit 0") == 0)
        return escaped();
    char *argv[] = {"sh", "-c", "echo ESCAPED", NULL};
    execv("/bin/sh", argv);
    return 3;
}

static int trace(void)
{
    if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) == 0)
        return escaped();
    return 3;
}

static int show_env(void)
{
    extern char **environ;
    for (char **e = environ; *e; e++)
        puts(*e);
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "NoNewPrivs:", 11) == 0 || strncmp(line, "Seccomp:", 8) == 0)
            fputs(line, stdout);
    if (f)
        fclose(f);
    return 0;
}

/* kill(PID, 0) succeeds only when PID is a process this one can see and signal */
static int signal_pid(const char *pid)
{
    if (kill((pid_t)atoi(pid), 0) == 0)
        return escaped();
    return 3;
}

/* Escaped when /proc shows the outside process PID, or more processes than this one and its
 * namespace's init. */
static int list_proc(const char *pid)
{
    char own[64];
    snprintf(own, sizeof own, "/proc/%s", pid);
    if (access(own, F_OK) == 0)
        return escaped();
    DIR *d = opendir("/proc");
    if (!d)
        return 3;
    int n = 0;
    for (struct dirent *de; (de = readdir(d));)
        n += isdigit((unsigned char)de->d_name[0]) != 0;
    closedir(d);
    printf("processes %d\n", n);
    return n > 2 ? escaped() : 3;
}

static void *thread_body(void *arg)
{
    return arg;
}

/* what CUDA does at startup: threads (clone with CLONE_THREAD) must stay allowed */
static int threads(void)
{
    pthread_t t[4];
    for (int i = 0; i < 4; i++)
        if (pthread_create(&t[i], NULL, thread_body, NULL) != 0)
            return 6;
    for (int i = 0; i < 4; i++)
        pthread_join(t[i], NULL);
    return 0;
}

static int benign(const char *in)
{
    char buf[64] = {0};
    int fd = open(in, O_RDONLY);
    if (fd < 0 || read(fd, buf, sizeof buf - 1) <= 0)
        return 4;
    close(fd);
    return write_file("out.bin") == 0 ? 0 : 5;
}

/* The gate of a timing run (ch_proc_opts.gate): announces it is ready, then waits for one byte
 * on stdin and says what it got; not an attack. */
static int gate(void)
{
    printf("before\nch-ready\n");
    fflush(stdout);
    int c = fgetc(stdin);
    printf(c == EOF ? "go=EOF\n" : "go=%c\n", c);
    return 0;
}

/* a timing run: the gate, the timed part's end line, then a slow exit (freeing a tune size's
 * memory) during which the verifier should no longer hold the GPU */
static int timed(void)
{
    gate();
    printf("ch-time: done\n");
    fflush(stdout);
    struct timespec slow_exit = {1, 500 * 1000 * 1000};
    nanosleep(&slow_exit, NULL);
    return 0;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "", *arg = argc > 2 ? argv[2] : "";
    if (strcmp(mode, "read") == 0)
        return read_file(arg);
    if (strcmp(mode, "write") == 0)
        return write_file(arg);
    if (strcmp(mode, "connect") == 0)
        return connect_local(arg);
    if (strcmp(mode, "unix") == 0)
        return connect_unix(arg);
    if (strcmp(mode, "spawn") == 0)
        return spawn_shell();
    if (strcmp(mode, "ptrace") == 0)
        return trace();
    if (strcmp(mode, "env") == 0)
        return show_env();
    if (strcmp(mode, "threads") == 0)
        return threads();
    if (strcmp(mode, "sleep") == 0) /* not an attack: a run that lasts ARG ms */
        return usleep((useconds_t)atoi(arg) * 1000) == 0 ? 0 : 4;
    if (strcmp(mode, "gate") == 0)
        return gate();
    if (strcmp(mode, "timed") == 0)
        return timed();
    if (strcmp(mode, "benign") == 0)
        return benign(arg);
    if (strcmp(mode, "signal") == 0)
        return signal_pid(arg);
    if (strcmp(mode, "proc") == 0)
        return list_proc(arg);
    if (strcmp(mode, "exit") == 0)
        return atoi(arg);
    if (strcmp(mode, "abort") == 0)
        abort();
    return 2;
}
