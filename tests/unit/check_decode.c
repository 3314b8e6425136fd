/*
 * check_decode.c -- chunk loads that read the file at the addresses HDF5's
 * chunk index gave (remembered per chunk) and the decoding pool that loads
 * the compressed chunks of one large read on several threads.
 *
 *   rewrite   a compressed chunk read (so its address is remembered),
 *             rewritten with values that no longer compress (HDF5 moves
 *             it), evicted and read again gives the new values; so does
 *             the file after a close, read-only
 *   pool      whole-variable, strided and converting reads of deflate +
 *             shuffle and Fletcher-32 variables, each from a cold cache,
 *             give the values their coordinates encode with pools of 1,
 *             2 and 4 threads
 *   encode    with a pool of several threads, a put spanning several
 *             compressed chunks writes the chunks it covers whole before
 *             it returns (encoded on the pool: the cache's bytes written
 *             count them), a put covering chunks in part leaves them to
 *             the close; with one thread neither writes; every file
 *             reads back the values their coordinates encode
 *   badchunk  a chunk whose Fletcher-32 no longer matches fails a read
 *             through the pool with the error of the serial read, and
 *             reads that avoid it still succeed
 *   api       ncs_set_decode_threads(0) is NCS_EINVAL; the count set is
 *             the count read back
 *   fork      a child forked the moment a read through the pool returns
 *             (its workers maybe still waking) reads through the pool
 *             too, and ends: FORK_ROUNDS times, none hung (a child
 *             that inherited the pool's lock held by a worker thread,
 *             which the child does not have, waited for it forever)
 *
 * Exit status 0 when all hold, 1 otherwise.
 */
#include "ncslab.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define NR 40
#define NC 60
#define CR 10
#define CC 10

static int nfail;
static char path[64];

#define CHECK(call)                                                              \
    do {                                                                         \
        int st_ = (call);                                                        \
        if (st_ != NCS_NOERR) {                                                  \
            fprintf(stderr, "%s:%d: %s -> %d (%s)\n", __FILE__, __LINE__, #call, \
                    st_, ncs_strerror(st_));                                     \
            return 1;                                                            \
        }                                                                        \
    } while (0)

static void failed(const char *what, long a, long b)
{
    fprintf(stderr, "check_decode: %s (%ld, %ld)\n", what, a, b);
    nfail++;
}

/* The value at (i, j): its coordinates. */
static int expect(size_t i, size_t j)
{
    return (int)(1000000 + i * 1000 + j);
}

/* Values that deflate cannot shrink: a chunk of them is stored larger. */
static int noise(size_t i, size_t j)
{
    uint32_t h = (uint32_t)(i * 7919u + j) * 2654435761u;
    h ^= h >> 15;
    return (int)(h * 2246822519u);
}

/* Variables "z" (deflate 1 + shuffle) and "f" (Fletcher-32), int(NR, NC),
 * chunks CR x CC, holding expect(). */
static int make_file(void)
{
    int ncid, dims[2], vz, vf;
    size_t ch[2] = { CR, CC };
    int *buf = malloc(sizeof(int) * NR * NC);
    if (buf == NULL)
        return 1;
    for (size_t i = 0; i < NR; i++)
        for (size_t j = 0; j < NC; j++)
            buf[i * NC + j] = expect(i, j);
    CHECK(ncs_create(path, NCS_NETCDF4 | NCS_CLASSIC_MODEL | NCS_CLOBBER, &ncid));
    CHECK(ncs_def_dim(ncid, "r", NR, &dims[0]));
    CHECK(ncs_def_dim(ncid, "c", NC, &dims[1]));
    CHECK(ncs_def_var(ncid, "z", NCS_INT, 2, dims, &vz));
    CHECK(ncs_def_var(ncid, "f", NCS_INT, 2, dims, &vf));
    CHECK(ncs_def_var_chunking(ncid, vz, NCS_CHUNKED, ch));
    CHECK(ncs_def_var_chunking(ncid, vf, NCS_CHUNKED, ch));
    CHECK(ncs_def_var_deflate(ncid, vz, 1, 1, 1));
    CHECK(ncs_def_var_fletcher32(ncid, vf, 1));
    CHECK(ncs_enddef(ncid));
    CHECK(ncs_put(ncid, vz, NULL, NULL, NULL, NULL, NCS_INT, buf));
    CHECK(ncs_put(ncid, vf, NULL, NULL, NULL, NULL, NCS_INT, buf));
    CHECK(ncs_close(ncid));
    free(buf);
    return 0;
}

/* Reads all of varid and compares it with want(i, j), except the block of
 * chunk (0, 0), which holds alt(i, j) when alt is not NULL. */
static int check_all(int ncid, int varid, int (*alt)(size_t, size_t), const char *what)
{
    int *buf = malloc(sizeof(int) * NR * NC), st;
    if (buf == NULL)
        return 1;
    st = ncs_get(ncid, varid, NULL, NULL, NULL, NULL, NCS_INT, buf);
    if (st != NCS_NOERR) {
        fprintf(stderr, "check_decode: %s: ncs_get -> %s\n", what, ncs_strerror(st));
        nfail++;
        free(buf);
        return 1;
    }
    for (size_t i = 0; i < NR; i++)
        for (size_t j = 0; j < NC; j++) {
            int want = alt != NULL && i < CR && j < CC ? alt(i, j) : expect(i, j);
            if (buf[i * NC + j] != want) {
                failed(what, (long)i, (long)j);
                free(buf);
                return 1;
            }
        }
    free(buf);
    return 0;
}

static int test_rewrite(void)
{
    int ncid, vz, blk[CR * CC];
    size_t start[2] = { 0, 0 }, count[2] = { CR, CC };
    size_t budget;
    CHECK(ncs_get_chunk_cache(&budget));
    /* two chunks' worth: reading the variable evicts chunk (0, 0) */
    CHECK(ncs_set_chunk_cache(2 * CR * CC * sizeof(int)));
    CHECK(ncs_open(path, NCS_WRITE, &ncid));
    CHECK(ncs_inq_varid(ncid, "z", &vz));
    if (check_all(ncid, vz, NULL, "rewrite: first read") != 0)
        return 1;
    for (size_t i = 0; i < CR; i++)
        for (size_t j = 0; j < CC; j++)
            blk[i * CC + j] = noise(i, j);
    CHECK(ncs_put(ncid, vz, start, count, NULL, NULL, NCS_INT, blk));
    /* the first read writes chunk (0, 0) back when it evicts it; the
     * second loads it again from where it now is */
    check_all(ncid, vz, noise, "rewrite: read after the rewrite");
    check_all(ncid, vz, noise, "rewrite: second read after the rewrite");
    CHECK(ncs_close(ncid));
    CHECK(ncs_open(path, NCS_NOWRITE, &ncid));
    check_all(ncid, vz, noise, "rewrite: read-only, after close");
    CHECK(ncs_close(ncid));
    /* back to what make_file wrote, for the tests after */
    CHECK(ncs_open(path, NCS_WRITE, &ncid));
    for (size_t i = 0; i < CR; i++)
        for (size_t j = 0; j < CC; j++)
            blk[i * CC + j] = expect(i, j);
    CHECK(ncs_put(ncid, vz, start, count, NULL, NULL, NCS_INT, blk));
    CHECK(ncs_close(ncid));
    CHECK(ncs_set_chunk_cache(budget));
    return 0;
}

/* A strided read of doubles across the chunks of varid, checked. */
static int check_strided(int ncid, int varid, const char *what)
{
    size_t start[2] = { 1, 2 }, count[2] = { 13, 19 };
    ptrdiff_t stride[2] = { 3, 3 };
    double buf[13 * 19];
    int st = ncs_get(ncid, varid, start, count, stride, NULL, NCS_DOUBLE, buf);
    if (st != NCS_NOERR) {
        fprintf(stderr, "check_decode: %s: strided ncs_get -> %s\n", what, ncs_strerror(st));
        nfail++;
        return 1;
    }
    for (size_t a = 0; a < count[0]; a++)
        for (size_t b = 0; b < count[1]; b++)
            if (buf[a * count[1] + b] != expect(1 + 3 * a, 2 + 3 * b)) {
                failed(what, (long)a, (long)b);
                return 1;
            }
    return 0;
}

static int test_pool(void)
{
    static const int sizes[] = { 1, 2, 4 };
    static const char *const names[] = { "z", "f" };
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
        for (int v = 0; v < 2; v++) {
            int ncid, varid;
            char what[64];
            CHECK(ncs_set_decode_threads(sizes[k]));
            snprintf(what, sizeof what, "pool of %d, %s", sizes[k], names[v]);
            /* each read from a cold cache: reopened */
            CHECK(ncs_open(path, NCS_NOWRITE, &ncid));
            CHECK(ncs_inq_varid(ncid, names[v], &varid));
            check_all(ncid, varid, NULL, what);
            CHECK(ncs_close(ncid));
            CHECK(ncs_open(path, NCS_NOWRITE, &ncid));
            CHECK(ncs_inq_varid(ncid, names[v], &varid));
            check_strided(ncid, varid, what);
            CHECK(ncs_close(ncid));
        }
    return 0;
}

/* The whole of "z" and "f" of a new file written with a pool of n
 * threads, then rows 1-3 again (in part of the first row of chunks);
 * *whole and *part are the decoded bytes the cache wrote by the end of
 * each put. */
static int write_with(int n, const char *file, unsigned long long *whole,
                      unsigned long long *part)
{
    int ncid, dims[2], v[2], *buf = malloc(sizeof(int) * NR * NC);
    size_t ch[2] = { CR, CC }, start[2] = { 1, 0 }, count[2] = { 3, NC };
    unsigned long long w;
    if (buf == NULL)
        return 1;
    CHECK(ncs_set_decode_threads(n));
    CHECK(ncs_create(file, NCS_NETCDF4 | NCS_CLASSIC_MODEL | NCS_CLOBBER, &ncid));
    CHECK(ncs_def_dim(ncid, "r", NR, &dims[0]));
    CHECK(ncs_def_dim(ncid, "c", NC, &dims[1]));
    CHECK(ncs_def_var(ncid, "z", NCS_INT, 2, dims, &v[0]));
    CHECK(ncs_def_var(ncid, "f", NCS_INT, 2, dims, &v[1]));
    for (int k = 0; k < 2; k++)
        CHECK(ncs_def_var_chunking(ncid, v[k], NCS_CHUNKED, ch));
    CHECK(ncs_def_var_deflate(ncid, v[0], 1, 1, 1));
    CHECK(ncs_def_var_fletcher32(ncid, v[1], 1));
    CHECK(ncs_enddef(ncid));
    for (size_t i = 0; i < NR; i++)
        for (size_t j = 0; j < NC; j++)
            buf[i * NC + j] = expect(i, j);
    ncs_reset_cache_stats();
    for (int k = 0; k < 2; k++)
        CHECK(ncs_put(ncid, v[k], NULL, NULL, NULL, NULL, NCS_INT, buf));
    CHECK(ncs_inq_cache_stats(NULL, NULL, NULL, NULL, whole));
    ncs_reset_cache_stats();
    for (int k = 0; k < 2; k++)
        CHECK(ncs_put(ncid, v[k], start, count, NULL, NULL, NCS_INT, buf + NC));
    CHECK(ncs_inq_cache_stats(NULL, NULL, NULL, NULL, &w));
    *part = w;
    CHECK(ncs_close(ncid));
    free(buf);
    return 0;
}

static int test_encode(void)
{
    static const int sizes[] = { 1, 2, 4 };
    char file[80];
    snprintf(file, sizeof file, "encode_%ld.nc", (long)getpid());
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        unsigned long long whole = 0, part = 0, all = 2ull * NR * NC * sizeof(int);
        int ncid, varid;
        char what[64];
        if (write_with(sizes[k], file, &whole, &part) != 0)
            return 1;
        if (whole != (sizes[k] > 1 ? all : 0))
            failed("encode: bytes written by whole-chunk puts, pool size", (long)whole,
                   sizes[k]);
        if (part != 0)
            failed("encode: bytes written by partial puts, pool size", (long)part,
                   sizes[k]);
        for (int v = 0; v < 2; v++) {
            snprintf(what, sizeof what, "encode: written by a pool of %d, var %d",
                     sizes[k], v);
            CHECK(ncs_open(file, NCS_NOWRITE, &ncid));
            CHECK(ncs_inq_varid(ncid, v == 0 ? "z" : "f", &varid));
            check_all(ncid, varid, NULL, what);
            CHECK(ncs_close(ncid));
        }
    }
    unlink(file);
    return 0;
}

/* Flips a byte of chunk (2, 3) of "f" in the file: the stored chunk is
 * its raw ints, found by the bytes of its first row. */
static int corrupt_chunk(void)
{
    FILE *fp = fopen(path, "r+b");
    unsigned char pat[CC * 4], *file;
    long size, at = -1;
    if (fp == NULL || fseek(fp, 0, SEEK_END) != 0 || (size = ftell(fp)) <= 0)
        return 1;
    file = malloc((size_t)size);
    rewind(fp);
    if (file == NULL || fread(file, 1, (size_t)size, fp) != (size_t)size)
        return 1;
    for (int j = 0; j < CC; j++) {
        uint32_t x = (uint32_t)expect(2 * CR, 3 * CC + (size_t)j);
        for (int b = 0; b < 4; b++)
            pat[j * 4 + b] = (unsigned char)(x >> (8 * b));
    }
    /* "z" holds the same values, but shuffled and deflated: only "f"
     * stores them as they are */
    for (long i = 0; i + (long)sizeof pat <= size; i++)
        if (memcmp(file + i, pat, sizeof pat) == 0) {
            if (at >= 0)
                return 1;
            at = i;
        }
    if (at < 0)
        return 1;
    file[at + 5] ^= 0x40;
    if (fseek(fp, at + 5, SEEK_SET) != 0 || fputc(file[at + 5], fp) == EOF || fclose(fp) != 0)
        return 1;
    free(file);
    return 0;
}

static int test_badchunk(void)
{
    int st[2], ncid, vf, *buf = malloc(sizeof(int) * NR * NC);
    size_t start[2] = { 0, 0 }, count[2] = { 2 * CR, NC };
    if (buf == NULL)
        return 1;
    if (corrupt_chunk() != 0) {
        fprintf(stderr, "check_decode: cannot find chunk (2, 3) of f in %s\n", path);
        nfail++;
        return 1;
    }
    for (int k = 0; k < 2; k++) {
        CHECK(ncs_set_decode_threads(k == 0 ? 1 : 4));
        CHECK(ncs_open(path, NCS_NOWRITE, &ncid));
        CHECK(ncs_inq_varid(ncid, "f", &vf));
        st[k] = ncs_get(ncid, vf, NULL, NULL, NULL, NULL, NCS_INT, buf);
        CHECK(ncs_close(ncid));
        /* the rows above the bad chunk read as they should */
        CHECK(ncs_open(path, NCS_NOWRITE, &ncid));
        CHECK(ncs_inq_varid(ncid, "f", &vf));
        CHECK(ncs_get(ncid, vf, start, count, NULL, NULL, NCS_INT, buf));
        for (size_t i = 0; i < 2 * CR; i++)
            for (size_t j = 0; j < NC; j++)
                if (buf[i * NC + j] != expect(i, j)) {
                    failed("badchunk: rows above", (long)i, (long)j);
                    i = 2 * CR;
                    break;
                }
        CHECK(ncs_close(ncid));
    }
    if (st[0] == NCS_NOERR)
        failed("badchunk: the serial read of a bad chunk succeeded", 0, 0);
    if (st[1] != st[0]) {
        fprintf(stderr, "check_decode: badchunk: pooled read -> %d, serial -> %d\n", st[1],
                st[0]);
        nfail++;
    }
    free(buf);
    return 0;
}

static int test_api(void)
{
    int n = 0;
    if (ncs_set_decode_threads(0) != NCS_EINVAL || ncs_set_decode_threads(-3) != NCS_EINVAL)
        failed("api: a count below 1 is not NCS_EINVAL", 0, 0);
    CHECK(ncs_set_decode_threads(3));
    CHECK(ncs_get_decode_threads(&n));
    if (n != 3)
        failed("api: count read back", n, 3);
    return 0;
}

#define FORK_ROUNDS 300

/* The child's part: the whole of "z" again, through the pool. */
static int fork_child(void)
{
    int ncid, varid;
    CHECK(ncs_open(path, NCS_NOWRITE, &ncid));
    CHECK(ncs_inq_varid(ncid, "z", &varid));
    check_all(ncid, varid, NULL, "fork: child");
    CHECK(ncs_close(ncid));
    return nfail != 0;
}

/* 0 when the child ended well within 20 s; a child still running then is
 * killed. */
static int wait_child(pid_t pid, int round)
{
    struct timespec nap = { 0, 1000000 };
    int wst = 0;
    for (int t = 0; t < 20000; t++) {
        pid_t r = waitpid(pid, &wst, WNOHANG);
        if (r == pid) {
            if (!WIFEXITED(wst) || WEXITSTATUS(wst) != 0)
                failed("fork: the child failed", round, WIFEXITED(wst) ? WEXITSTATUS(wst) : -1);
            return 0;
        }
        if (r < 0) {
            failed("fork: waitpid", round, errno);
            return 1;
        }
        nanosleep(&nap, NULL);
    }
    kill(pid, SIGKILL);
    waitpid(pid, &wst, 0);
    failed("fork: the child hung (round, rounds)", round, FORK_ROUNDS);
    return 1;
}

static int test_fork(void)
{
    CHECK(ncs_set_decode_threads(4));
    for (int round = 0; round < FORK_ROUNDS; round++) {
        int ncid, varid, *buf = malloc(sizeof(int) * NR * NC), st;
        pid_t pid;
        if (buf == NULL)
            return 1;
        CHECK(ncs_open(path, NCS_NOWRITE, &ncid));
        CHECK(ncs_inq_varid(ncid, "z", &varid));
        st = ncs_get(ncid, varid, NULL, NULL, NULL, NULL, NCS_INT, buf);
        pid = fork();
        if (pid == 0)
            _exit(fork_child());
        free(buf);
        CHECK(st);
        CHECK(ncs_close(ncid));
        if (pid < 0) {
            failed("fork: fork", round, errno);
            return 1;
        }
        if (wait_child(pid, round) != 0)
            return 1;
    }
    return 0;
}

int main(void)
{
    snprintf(path, sizeof path, "decode_%ld.nc", (long)getpid());
    if (make_file() != 0 || test_api() != 0 || test_rewrite() != 0 || test_pool() != 0 ||
        test_encode() != 0 || test_badchunk() != 0 || test_fork() != 0)
        nfail++;
    printf("check_decode: %d failures\n", nfail);
    if (nfail == 0)
        unlink(path);
    return nfail == 0 ? 0 : 1;
}
