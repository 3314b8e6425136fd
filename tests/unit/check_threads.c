/*
 * check_threads.c -- concurrent readers: several threads, each with its own
 * handles of the same classic file and the same chunked file, read random
 * hyperslabs and compare every value with the one its coordinates encode.
 *
 * What ncslab promises (include/ncslab.h, doc/reliability.md):
 * distinct ncids may be used from distinct threads at once; opening and
 * closing are safe from any thread.  This test holds it to that for
 * readers, which share the process-wide state underneath: the table of
 * open files, HDF5, and the chunk cache shared by every chunked file.  The
 * chunk cache is set smaller than the data the threads read
 * (NCS_THREADS_CACHE bytes, default 8 KiB: a few dozen chunks), so chunks are evicted by one
 * thread while others read theirs.
 *
 * Each thread also closes and reopens its handles now and then, so opens
 * and closes run concurrently with reads.
 *
 * Environment: NCS_THREADS_SEED (default: time; printed), NCS_THREADS_N
 * threads (default 4), NCS_THREADS_ITERS reads per thread (default 1000).
 * Exit status 0 when every value matched, 1 otherwise; 77 (skip) never.
 * Built and run by make check; scripts/sanitize tsan runs it under
 * ThreadSanitizer.
 */
#include "ncslab.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define NX 24      /* records (fixed length 24 in the fixed variable) */
#define NY 20
#define NZ 16

static char classic_path[64], chunked_path[64];
static int nfail;
static pthread_mutex_t fail_lock = PTHREAD_MUTEX_INITIALIZER;

#define CHECK(call)                                                              \
    do {                                                                         \
        int st_ = (call);                                                        \
        if (st_ != NCS_NOERR) {                                                  \
            fprintf(stderr, "%s:%d: %s -> %d (%s)\n", __FILE__, __LINE__, #call, \
                    st_, ncs_strerror(st_));                                     \
            return 1;                                                            \
        }                                                                        \
    } while (0)

/* The value at (i, j, k): its coordinates, readable in a failure message. */
static int expect(size_t i, size_t j, size_t k)
{
    return (int)(i * 10000 + j * 100 + k);
}

/* Variables: "fix" int(x, y, z) fixed; "rec" double(t, y, z) with NX
 * records; "flt" float(y, z). */
static int make_file(const char *path, int cmode)
{
    int ncid, dt, dx, dy, dz, vfix, vrec, vflt, dims[3];
    int *ibuf = malloc(sizeof(int) * NX * NY * NZ);
    double *dbuf = malloc(sizeof(double) * NX * NY * NZ);
    float fbuf[NY * NZ];
    if (ibuf == NULL || dbuf == NULL)
        return 1;
    for (size_t i = 0; i < NX; i++)
        for (size_t j = 0; j < NY; j++)
            for (size_t k = 0; k < NZ; k++) {
                ibuf[(i * NY + j) * NZ + k] = expect(i, j, k);
                dbuf[(i * NY + j) * NZ + k] = expect(i, j, k) + 0.5;
                if (i == 0)
                    fbuf[j * NZ + k] = (float)expect(0, j, k);
            }
    CHECK(ncs_create(path, cmode | NCS_CLOBBER, &ncid));
    CHECK(ncs_def_dim(ncid, "t", NCS_UNLIMITED, &dt));
    CHECK(ncs_def_dim(ncid, "x", NX, &dx));
    CHECK(ncs_def_dim(ncid, "y", NY, &dy));
    CHECK(ncs_def_dim(ncid, "z", NZ, &dz));
    dims[0] = dx, dims[1] = dy, dims[2] = dz;
    CHECK(ncs_def_var(ncid, "fix", NCS_INT, 3, dims, &vfix));
    dims[0] = dt;
    CHECK(ncs_def_var(ncid, "rec", NCS_DOUBLE, 3, dims, &vrec));
    CHECK(ncs_def_var(ncid, "flt", NCS_FLOAT, 2, dims + 1, &vflt));
    if (cmode & NCS_NETCDF4) {
        /* small chunks: many of them, so the cache works */
        size_t ch[3] = { 3, 5, 4 };
        CHECK(ncs_def_var_chunking(ncid, vfix, NCS_CHUNKED, ch));
        CHECK(ncs_def_var_chunking(ncid, vrec, NCS_CHUNKED, ch));
        CHECK(ncs_def_var_deflate(ncid, vrec, 1, 1, 1));
        CHECK(ncs_def_var_fletcher32(ncid, vfix, 1));
    }
    CHECK(ncs_enddef(ncid));
    CHECK(ncs_put(ncid, vfix, NULL, NULL, NULL, NULL, NCS_INT, ibuf));
    {
        size_t start[3] = { 0, 0, 0 }, count[3] = { NX, NY, NZ };
        CHECK(ncs_put(ncid, vrec, start, count, NULL, NULL, NCS_DOUBLE, dbuf));
    }
    CHECK(ncs_put(ncid, vflt, NULL, NULL, NULL, NULL, NCS_FLOAT, fbuf));
    CHECK(ncs_close(ncid));
    free(ibuf);
    free(dbuf);
    return 0;
}

typedef struct job {
    int id;
    unsigned seed;
    int iters;
    long reads;
    int ids[2];        /* classic, chunked */
} job;

static void fail(const job *j, const char *what, int st)
{
    pthread_mutex_lock(&fail_lock);
    nfail++;
    fprintf(stderr, "thread %d (seed %u): %s: %d (%s)\n", j->id, j->seed, what, st,
            ncs_strerror(st));
    pthread_mutex_unlock(&fail_lock);
}

/* One random strided slab of one variable, read as int or double and
 * checked element by element. */
static int one_read(job *j, unsigned *rs, int ncid)
{
    int varid = (int)(rand_r(rs) % 3), nd = varid == 2 ? 2 : 3, st;
    size_t shape[3] = { NX, NY, NZ }, start[3], count[3], n = 1;
    ptrdiff_t stride[3];
    int use_double = rand_r(rs) & 1;
    static const int off[3] = { 0, 0, 1 };   /* flt has dims (y, z) */
    double *buf;
    for (int d = 0; d < nd; d++) {
        size_t len = shape[d + off[varid]];
        start[d] = (size_t)rand_r(rs) % len;
        stride[d] = 1 + rand_r(rs) % 3;
        count[d] = 1 + (size_t)rand_r(rs) % ((len - start[d] - 1) / (size_t)stride[d] + 1);
        n *= count[d];
    }
    buf = malloc(n * sizeof *buf);
    if (buf == NULL)
        return 1;
    st = ncs_get(ncid, varid, start, count, stride, NULL, use_double ? NCS_DOUBLE : NCS_INT, buf);
    if (st != NCS_NOERR) {
        fail(j, "ncs_get", st);
        free(buf);
        return 1;
    }
    for (size_t e = 0; e < n; e++) {
        size_t idx[3], r = e;
        double want, got;
        for (int d = nd - 1; d >= 0; d--) {
            idx[d] = start[d] + (r % count[d]) * (size_t)stride[d];
            r /= count[d];
        }
        if (varid == 2)
            want = expect(0, idx[0], idx[1]);
        else
            want = expect(idx[0], idx[1], idx[2]) + (varid == 1 && use_double ? 0.5 : 0);
        if (varid == 1 && !use_double)
            want = expect(idx[0], idx[1], idx[2]);   /* x.5 converts to x */
        got = use_double ? buf[e] : ((int *)buf)[e];
        if (got != want) {
            char msg[160];
            snprintf(msg, sizeof msg, "%s var %d element %zu: got %.1f, want %.1f",
                     ncid == j->ids[1] ? "chunked" : "classic", varid, e, got, want);
            fail(j, msg, 0);
            free(buf);
            return 1;
        }
    }
    j->reads++;
    free(buf);
    return 0;
}

static void *reader(void *arg)
{
    job *j = arg;
    unsigned rs = j->seed;
    int *ids = j->ids, st;
    const char *paths[2] = { classic_path, chunked_path };
    for (int f = 0; f < 2; f++)
        if ((st = ncs_open(paths[f], NCS_NOWRITE, &ids[f])) != NCS_NOERR) {
            fail(j, paths[f], st);
            return NULL;
        }
    for (int it = 0; it < j->iters; it++) {
        int f = (int)(rand_r(&rs) % 2);
        if (one_read(j, &rs, ids[f]) != 0)
            break;
        if (rand_r(&rs) % 64 == 0) {
            /* reopen: opens and closes race with the other threads' reads */
            if ((st = ncs_close(ids[f])) != NCS_NOERR ||
                (st = ncs_open(paths[f], NCS_NOWRITE, &ids[f])) != NCS_NOERR) {
                fail(j, "reopen", st);
                return NULL;
            }
        }
    }
    for (int f = 0; f < 2; f++)
        if ((st = ncs_close(ids[f])) != NCS_NOERR)
            fail(j, "ncs_close", st);
    return NULL;
}

static long env_long(const char *name, long dflt)
{
    const char *e = getenv(name);
    return e != NULL && *e != '\0' ? strtol(e, NULL, 10) : dflt;
}

int main(void)
{
    unsigned seed = (unsigned)env_long("NCS_THREADS_SEED", (long)time(NULL));
    int nthreads = (int)env_long("NCS_THREADS_N", 4);
    int iters = (int)env_long("NCS_THREADS_ITERS", 1000);
    size_t cache = (size_t)env_long("NCS_THREADS_CACHE", 8 * 1024);
    pthread_t tid[64];
    job jobs[64];
    long total = 0;

    if (nthreads < 1 || nthreads > 64)
        nthreads = 4;
    printf("check_threads: seed %u, %d threads, %d reads each, chunk cache %zu bytes\n",
           seed, nthreads, iters, cache);
    snprintf(classic_path, sizeof classic_path, "threads_%ld.nc", (long)getpid());
    snprintf(chunked_path, sizeof chunked_path, "threads_%ld_nc4.nc", (long)getpid());
    if (make_file(classic_path, NCS_64BIT_OFFSET) != 0 ||
        make_file(chunked_path, NCS_NETCDF4 | NCS_CLASSIC_MODEL) != 0)
        return 1;
    if (ncs_set_chunk_cache(cache) != NCS_NOERR)
        return 1;
    for (int t = 0; t < nthreads; t++) {
        jobs[t] = (job){ t, seed + (unsigned)t * 7919u, iters, 0, { 0, 0 } };
        if (pthread_create(&tid[t], NULL, reader, &jobs[t]) != 0) {
            perror("pthread_create");
            return 1;
        }
    }
    for (int t = 0; t < nthreads; t++) {
        pthread_join(tid[t], NULL);
        total += jobs[t].reads;
    }
    printf("check_threads: %ld reads checked, %d failures\n", total, nfail);
    if (nfail == 0) {
        unlink(classic_path);
        unlink(chunked_path);
    }
    return nfail == 0 ? 0 : 1;
}
