/* Runtime, host threads (rt.h): the workers that fill and drain staging chunks beside the
 * caller. A run is a job of parts on the caller's stack; workers and the caller claim parts
 * under the pool's lock until none is left, so a run finishes even when no worker exists (none
 * could be started, or a forked child whose workers stayed in the parent). Workers block every
 * signal, so the program's handlers run on its own threads. */
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "rt.h"

struct ch_rt_job {
    void (*fn)(void *arg, int part);
    void *arg;
    int parts, claimed, finished;
    struct ch_rt_job *next;
};

void ch_rt_pool_init(ch_rt_pool *p)
{
    memset(p, 0, sizeof *p);
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->work, NULL);
    pthread_cond_init(&p->done, NULL);
    p->pid = getpid();
}

/* A job with a part left to claim, or NULL. Called with the lock held. */
static ch_rt_job *claimable(ch_rt_pool *p)
{
    for (ch_rt_job *j = p->jobs; j; j = j->next)
        if (j->claimed < j->parts)
            return j;
    return NULL;
}

/* Runs one claimed part of j with the lock released; called and returns with it held. */
static void run_part(ch_rt_pool *p, ch_rt_job *j)
{
    int part = j->claimed++;
    pthread_mutex_unlock(&p->lock);
    j->fn(j->arg, part);
    pthread_mutex_lock(&p->lock);
    if (++j->finished == j->parts)
        pthread_cond_broadcast(&p->done);
}

static void *worker(void *arg)
{
    ch_rt_pool *p = arg;
    pthread_mutex_lock(&p->lock);
    for (;;) {
        ch_rt_job *j;
        while (!p->stop && !(j = claimable(p)))
            pthread_cond_wait(&p->work, &p->lock);
        if (p->stop)
            break;
        run_part(p, j);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

/* Starts workers until want exist (or one cannot be started). Called with the lock held. */
static void start_workers(ch_rt_pool *p, int want)
{
    if (p->pid != getpid()) { /* a fork child: the workers are the parent's */
        p->workers = 0;
        p->pid = getpid();
    }
    if (want > CH_RT_MAX_THREADS)
        want = CH_RT_MAX_THREADS;
    if (p->workers >= want || p->stop)
        return;
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old); /* the workers inherit it */
    while (p->workers < want) {
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setstacksize(&attr, 256 * 1024);
        int rc = pthread_create(&p->ids[p->workers], &attr, worker, p);
        pthread_attr_destroy(&attr);
        if (rc != 0)
            break;
        p->workers++;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}

void ch_rt_pool_run(ch_rt_pool *p, int parts, void (*fn)(void *arg, int part), void *arg)
{
    if (parts <= 1) {
        if (parts == 1)
            fn(arg, 0);
        return;
    }
    ch_rt_job j = {fn, arg, parts, 0, 0, NULL};
    pthread_mutex_lock(&p->lock);
    start_workers(p, parts - 1);
    j.next = p->jobs;
    p->jobs = &j;
    pthread_cond_broadcast(&p->work);
    while (j.claimed < j.parts)
        run_part(p, &j);
    while (j.finished < j.parts)
        pthread_cond_wait(&p->done, &p->lock);
    for (ch_rt_job **q = &p->jobs; *q; q = &(*q)->next)
        if (*q == &j) {
            *q = j.next;
            break;
        }
    pthread_mutex_unlock(&p->lock);
}

void ch_rt_pool_stop(ch_rt_pool *p)
{
    pthread_mutex_lock(&p->lock);
    p->stop = 1;
    pthread_cond_broadcast(&p->work);
    pthread_mutex_unlock(&p->lock);
}

void ch_rt_pool_destroy(ch_rt_pool *p)
{
    ch_rt_pool_stop(p);
    if (p->pid == getpid())
        for (int i = 0; i < p->workers; i++)
            pthread_join(p->ids[i], NULL);
    p->workers = 0;
    pthread_cond_destroy(&p->work);
    pthread_cond_destroy(&p->done);
    pthread_mutex_destroy(&p->lock);
}

void ch_rt_pool_fork_prepare(ch_rt_pool *p)
{
    pthread_mutex_lock(&p->lock);
}

void ch_rt_pool_fork_parent(ch_rt_pool *p)
{
    pthread_mutex_unlock(&p->lock);
}

void ch_rt_pool_fork_child(ch_rt_pool *p)
{
    /* only the forking thread exists here: the jobs in the list belonged to other threads,
     * the workers stayed in the parent, and the locks are re-made rather than unlocked */
    p->jobs = NULL;
    p->workers = 0;
    p->pid = getpid();
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->work, NULL);
    pthread_cond_init(&p->done, NULL);
}
