/*
 * chunkpool.c -- the decoding pool: a few threads that load (read and
 * decode) the compressed chunks of one large read at once, on several
 * cores (chunk_data.c hands them out).
 *
 * The pool has `want` workers in all, the calling thread counting as one:
 * want - 1 threads, started on the first job that can use them and never
 * stopped (they sleep on `work` between jobs).  `want` comes from
 * NCSLAB_DECODE_THREADS when set (1: no pool, today's serial reads), else
 * the online processors, and ncs_set_decode_threads changes it.  One job
 * runs at a time: a caller that finds the pool busy runs its items itself,
 * so no thread ever waits for another's job and nothing is queued.
 *
 * Invariants (under `lock`; `want` is read and written atomically
 * instead): job is the running job or NULL; a thread
 * takes item job->next only while job->next < job->n, so every item runs
 * exactly once; job->active counts the workers inside the job; the caller
 * clears job only when it has taken the last item and job->active is 0,
 * so no worker touches a job after its caller returned.
 *
 * fork: a worker may hold `lock` at any moment (waking late from a job
 * that has ended, or between two items), and a child of fork has no
 * workers, so it would wait for that lock forever.  The fork handlers
 * take the lock before the fork, so no worker holds it then, and give the
 * child a pool of its own: no job, fresh condition variables (the
 * parent's workers were waiting on the old ones), and no workers.  The
 * child of a parent that had workers never starts any (a process forked
 * from a threaded one should not start threads before it execs); its
 * callers run every item themselves.
 */
#include "chunk.h"

#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

typedef struct job {
    void (*fn)(void *arg, size_t i);
    void *arg;
    size_t n, next;
    int active, maxactive;
} job;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t work = PTHREAD_COND_INITIALIZER;
static pthread_cond_t idle = PTHREAD_COND_INITIALIZER;
static job *current;
static int want;                 /* 0 until configured */
static int started;              /* worker threads running */
static int forkable;             /* the fork handlers are registered */

#define MAX_WORKERS 64

static pthread_once_t once = PTHREAD_ONCE_INIT;

static void before_fork(void)
{
    pthread_mutex_lock(&lock);
}

static void after_fork_parent(void)
{
    pthread_mutex_unlock(&lock);
}

static void after_fork_child(void)
{
    if (started > 0)
        forkable = 0;            /* the child of a threaded parent stays serial */
    started = 0;
    current = NULL;
    pthread_cond_init(&work, NULL);
    pthread_cond_init(&idle, NULL);
    pthread_mutex_unlock(&lock);
}

/* Once, before any worker exists: every path that starts one comes here
 * first. */
static void configure(void)
{
    const char *e = getenv("NCSLAB_DECODE_THREADS");
    long n = e != NULL ? strtol(e, NULL, 10) : sysconf(_SC_NPROCESSORS_ONLN);
    /* without the handlers no worker is ever started */
    forkable = pthread_atfork(before_fork, after_fork_parent, after_fork_child) == 0;
    __atomic_store_n(&want, n < 1 ? 1 : n > MAX_WORKERS ? MAX_WORKERS : (int)n,
                     __ATOMIC_RELAXED);
}

/* want, read without the lock: every get of a compressed variable asks */
static int configured(void)
{
    int n = __atomic_load_n(&want, __ATOMIC_RELAXED);
    if (n == 0) {
        pthread_once(&once, configure);
        n = __atomic_load_n(&want, __ATOMIC_RELAXED);
    }
    return n;
}

static void *worker(void *unused)
{
    (void)unused;
    pthread_mutex_lock(&lock);
    for (;;) {
        job *j = current;
        if (j == NULL || j->next >= j->n || j->active >= j->maxactive) {
            pthread_cond_wait(&work, &lock);
            continue;
        }
        j->active++;
        while (j->next < j->n) {
            size_t i = j->next++;
            pthread_mutex_unlock(&lock);
            j->fn(j->arg, i);
            pthread_mutex_lock(&lock);
        }
        if (--j->active == 0)
            pthread_cond_signal(&idle);
    }
    return NULL;
}

int ncsi_pool_set(int n)
{
    if (n < 1)
        return NCS_ERR(NCS_EINVAL);
    pthread_once(&once, configure);
    __atomic_store_n(&want, n > MAX_WORKERS ? MAX_WORKERS : n, __ATOMIC_RELAXED);
    return NCS_NOERR;
}

int ncsi_pool_size(void)
{
    return configured();
}

void ncsi_pool_run(void (*fn)(void *arg, size_t i), void *arg, size_t n)
{
    job j = { fn, arg, n, 0, 0, 0 };
    int w = configured();
    pthread_mutex_lock(&lock);
    if (n < 2 || w < 2 || current != NULL) {
        pthread_mutex_unlock(&lock);
        for (size_t i = 0; i < n; i++)
            fn(arg, i);
        return;
    }
    while (forkable && started < w - 1) {
        pthread_t t;
        if (pthread_create(&t, NULL, worker, NULL) != 0)
            break;               /* fewer workers: the caller does more */
        pthread_detach(t);
        started++;
    }
    j.maxactive = w - 1;
    current = &j;
    pthread_cond_broadcast(&work);
    while (j.next < j.n) {
        size_t i = j.next++;
        pthread_mutex_unlock(&lock);
        fn(arg, i);
        pthread_mutex_lock(&lock);
    }
    while (j.active > 0)
        pthread_cond_wait(&idle, &lock);
    current = NULL;
    pthread_mutex_unlock(&lock);
}
