/*
 * tools/scaling.c -- what two threads get from this machine, without
 * ncslab: the same work on 1 and on 2 threads (each thread its own data),
 * as the speed-up of 2 threads over 1, for the kinds of work the
 * threads test of timeit does (doc/performance.md, "Threads"):
 *
 *   alu       an integer loop in registers (no memory), one dependent chain
 *   alu-ilp   the same with 4 independent chains (what a core's spare
 *             execution units are for: shared with a sibling thread when
 *             the two vCPUs are one core's hyperthreads on the host)
 *   copy-l2   memcpy of 256 KiB within a thread's own buffers (cache)
 *   copy-big  memcpy of 64 MiB (memory bandwidth)
 *   sum-big   a read-only pass summing 64 MiB of shorts (memory bandwidth)
 *
 *   cc -O2 -pthread -o scaling tools/scaling.c && ./scaling [ROUNDS]
 *
 * Each kind runs ROUNDS times (default 5) alternating 1 and 2 threads;
 * the medians are reported.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { ALU, ALU_ILP, COPY_L2, COPY_BIG, SUM_BIG, NKINDS };
static const char *names[NKINDS] = { "alu", "alu-ilp", "copy-l2", "copy-big", "sum-big" };

typedef struct job {
    int kind;
    unsigned char *a, *b;
    size_t n;
    long reps;
    uint64_t out;
} job;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void *work(void *arg)
{
    job *j = arg;
    uint64_t acc = 0;
    switch (j->kind) {
    case ALU: {
        uint64_t x = 88172645463325252ull;
        for (long i = 0; i < j->reps; i++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            acc += x;
        }
        break;
    }
    case ALU_ILP: {
        uint64_t x[4] = { 88172645463325252ull, 1, 2, 3 };
        for (long i = 0; i < j->reps; i++)
            for (int k = 0; k < 4; k++) {
                x[k] ^= x[k] << 13;
                x[k] ^= x[k] >> 7;
                x[k] ^= x[k] << 17;
                acc += x[k];
            }
        break;
    }
    case COPY_L2:
    case COPY_BIG:
        for (long r = 0; r < j->reps; r++) {
            memcpy(j->b, j->a, j->n);
            acc += j->b[r % j->n];
            __asm__ volatile("" ::: "memory");
        }
        break;
    case SUM_BIG: {
        const short *s = (const short *)j->a;
        for (long r = 0; r < j->reps; r++)
            for (size_t i = 0; i < j->n / sizeof *s; i++)
                acc += (uint64_t)s[i];
        break;
    }
    }
    j->out = acc;
    return NULL;
}

/* Seconds for nt threads each doing the kind's work once. */
static double run(int kind, int nt, job *jobs)
{
    pthread_t th[2];
    double t0 = now();
    for (int i = 0; i < nt; i++)
        pthread_create(&th[i], NULL, work, &jobs[i]);
    for (int i = 0; i < nt; i++)
        pthread_join(th[i], NULL);
    (void)kind;
    return now() - t0;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 5;
    if (rounds < 1 || rounds > 99)
        rounds = 5;
    printf("%-10s %12s %12s %10s\n", "work", "1 thread s", "2 threads s", "speed-up");
    for (int kind = 0; kind < NKINDS; kind++) {
        job jobs[2];
        double t1[99], t2[99];
        size_t n = kind == COPY_L2 ? (size_t)256 << 10 : (size_t)64 << 20;
        long reps = kind == ALU ? 400000000L : kind == ALU_ILP ? 100000000L : kind == COPY_L2 ? 40000L : kind == COPY_BIG ? 8 : 8;
        for (int i = 0; i < 2; i++) {
            jobs[i].kind = kind;
            jobs[i].n = n;
            jobs[i].reps = reps;
            jobs[i].a = kind <= ALU_ILP ? NULL : malloc(n);
            jobs[i].b = kind <= ALU_ILP ? NULL : malloc(n);
            if (kind > ALU_ILP) {
                if (jobs[i].a == NULL || jobs[i].b == NULL) {
                    fprintf(stderr, "scaling: out of memory\n");
                    return 1;
                }
                memset(jobs[i].a, 1 + i, n);
                memset(jobs[i].b, 0, n);
            }
        }
        for (int r = 0; r < rounds; r++) {
            /* the same total work: one thread does both jobs in turn */
            double a = run(kind, 1, &jobs[0]);
            a += run(kind, 1, &jobs[1]);
            t1[r] = a;
            t2[r] = run(kind, 2, jobs);
        }
        qsort(t1, (size_t)rounds, sizeof t1[0], cmp);
        qsort(t2, (size_t)rounds, sizeof t2[0], cmp);
        printf("%-10s %12.3f %12.3f %9.2fx\n", names[kind], t1[rounds / 2], t2[rounds / 2],
               t1[rounds / 2] / t2[rounds / 2]);
        for (int i = 0; i < 2; i++) {
            free(jobs[i].a);
            free(jobs[i].b);
        }
    }
    return 0;
}
