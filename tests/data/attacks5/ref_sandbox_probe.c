/* attacks5 ref_sandbox_probe: the reference program runs this file's sample() function on every
 * input set (the user's file, or a model's reference, compiled into the sandboxed program). Each
 * probe tries to leave a mark outside the sandbox; attacks_fifth.t looks for the marks.
 * PROBE_DIR (a host directory) and SENTINEL_PID are given with -D by the test. */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <unistd.h>

#ifndef PROBE_DIR
#define PROBE_DIR "/tmp/attacks5-probe"
#endif
#ifndef PROBE_PORT
#define PROBE_PORT 0
#endif
#ifndef SENTINEL_PID
#define SENTINEL_PID 0
#endif

static void mark(const char *path)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
        (void)!write(fd, "escaped\n", 8);
        close(fd);
    }
}

static void probes(void)
{
    mark(PROBE_DIR "/mark_probe_dir");      /* the host directory by its absolute path */
    mark("/dev/shm/attacks5_mark_devshm");  /* tmpfs shared by the host */
    mark("/var/tmp/attacks5_mark_vartmp");  /* the other world-writable directory */
    mark("/root/attacks5_mark_home");       /* HOME of root */
    /* SysV shared memory lives in the IPC namespace: without CLONE_NEWIPC it outlives the run
     * and is visible to every process of the host (state across runs, a channel out) */
    int id = shmget((key_t)0x0a5a5a5, 4096, IPC_CREAT | 0666);
    if (id >= 0) {
        char *p = shmat(id, NULL, 0);
        if (p != (char *)-1) {
            strcpy(p, "attacks5 escaped via shm");
            shmdt(p);
        }
    }
    if (PROBE_PORT) { /* the host's loopback */
        int s = socket(AF_INET, SOCK_STREAM, 0);
        struct sockaddr_in a;
        memset(&a, 0, sizeof a);
        a.sin_family = AF_INET;
        a.sin_port = htons(PROBE_PORT);
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        if (s >= 0 && connect(s, (struct sockaddr *)&a, sizeof a) == 0)
            (void)!write(s, "escaped\n", 8);
        if (s >= 0)
            close(s);
    }
    if (SENTINEL_PID) /* a process of the user's outside the sandbox */
        kill(SENTINEL_PID, SIGUSR1);
    pid_t c = fork(); /* a child that outlives the run */
    if (c == 0) {
        mark(PROBE_DIR "/mark_fork_child");
        _exit(0);
    }
}

void probe_sample(int n, float a, float *x, float *y)
{
    static int once;
    (void)a, (void)x, (void)y, (void)n;
    if (!once) {
        once = 1;
        probes();
    }
}

#pragma harness extent(x: n, y: n) sample(probe_sample)
void probe(int n, float a, const float *x, float *y)
{
    for (int i = 0; i < n; i++)
        y[i] = a * x[i] + y[i];
}
