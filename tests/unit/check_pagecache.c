/*
 * check_pagecache.c -- lib/io/pagecache.c against a plain array of the
 * file's bytes (white-box: it links the convenience library).
 *
 *   - random reads, writes, spans, row loads, wants, flushes, moves and
 *     size changes on caches of several page sizes and slot counts: every
 *     byte read is the model's, and after a flush the file is the model;
 *   - the buffers of closed caches are reused: file after file of its own
 *     byte pattern, opened, read sparsely and closed in turn, never shows
 *     another file's bytes, and reads past the end are zeros;
 *   - ncsi_pc_want loads what a run straddling two cold pages lacks in one
 *     transfer (counted through a wrapping byte-I/O object), reads nothing
 *     when the pages already hold it or the run does not cross, and passes
 *     a failing transfer's status on;
 *   - ncsi_pc_prefetch tells the byte-I/O object of ranges the cache does
 *     not hold, and not of those it does; through the API (the classic
 *     back end opening files with a counting opener), a cold get of a
 *     point from each of 10 records announces 10 ranges, the same get warm
 *     none, and one within a record none.
 * A failure prints the seed and the step; the seed can be given as argv[1].
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io.h"
#include "ncslab.h"

static unsigned long long rng_state;
static uint64_t rng(void)
{
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return rng_state >> 17;
}

static int failures;
#define CHECK(cond, ...)                                                     \
    do {                                                                     \
        if (!(cond)) {                                                       \
            fprintf(stderr, "check_pagecache:%d: ", __LINE__);               \
            fprintf(stderr, __VA_ARGS__);                                    \
            fprintf(stderr, "\n");                                           \
            failures++;                                                      \
        }                                                                    \
    } while (0)

#define NCS_OK_CHECK(call)                                                   \
    do {                                                                     \
        int s_ = (call);                                                     \
        CHECK(s_ == NCS_NOERR, "%s: %s", #call, ncs_strerror(s_));           \
    } while (0)

/* ---- a byte-I/O object over another that counts transfers and can fail */
typedef struct counting_io {
    ncs_io base;
    ncs_io *inner;
    int reads, readvs, writes, willneeds;
    uint64_t willneed_bytes;
    int fail_reads;          /* reads and readvs fail with EIO while set */
} counting_io;

static int ct_read(ncs_io *io, uint64_t off, void *buf, size_t n, size_t *got)
{
    counting_io *c = (counting_io *)io;
    c->reads++;
    if (c->fail_reads)
        return EIO;
    return ncsi_io_read(c->inner, off, buf, n, got);
}

static int ct_readv(ncs_io *io, uint64_t off, const struct iovec *v, int cnt, size_t *got)
{
    counting_io *c = (counting_io *)io;
    c->readvs++;
    if (c->fail_reads)
        return EIO;
    return ncsi_io_readv(c->inner, off, v, cnt, got);
}

static void ct_willneed(ncs_io *io, uint64_t off, uint64_t n)
{
    counting_io *c = (counting_io *)io;
    (void)off;
    c->willneeds++;
    c->willneed_bytes += n;
}

static int ct_write(ncs_io *io, uint64_t off, const void *buf, size_t n)
{
    counting_io *c = (counting_io *)io;
    c->writes++;
    return ncsi_io_write(c->inner, off, buf, n);
}

static int ct_size(ncs_io *io, uint64_t *s) { return ncsi_io_size(((counting_io *)io)->inner, s); }
static int ct_set_size(ncs_io *io, uint64_t s)
{
    return ncsi_io_set_size(((counting_io *)io)->inner, s);
}
static int ct_sync(ncs_io *io) { return ncsi_io_sync(((counting_io *)io)->inner); }
static int ct_lock(ncs_io *io, int on) { return ncsi_io_lock(((counting_io *)io)->inner, on); }
static int ct_close(ncs_io *io)
{
    counting_io *c = (counting_io *)io;
    int status = ncsi_io_close(c->inner);
    free(c);
    return status;
}

static const ncs_io_methods counting_methods = {
    .read = ct_read,
    .readv = ct_readv,
    .willneed = ct_willneed,
    .write = ct_write,
    .size = ct_size,
    .set_size = ct_set_size,
    .sync = ct_sync,
    .lock = ct_lock,
    .close = ct_close,
};

static counting_io *open_counting(const char *path, int flags)
{
    counting_io *c = calloc(1, sizeof *c);
    if (c == NULL || ncsi_io_posix_open(path, flags, &c->inner) != NCS_NOERR) {
        fprintf(stderr, "check_pagecache: cannot open %s\n", path);
        exit(1);
    }
    c->base.m = &counting_methods;
    c->base.blksize = c->inner->blksize;
    return c;
}

/* A file of n bytes, byte i = (i * 131 + salt) & 0xff, and the same bytes
 * in model. */
static void make_file(const char *path, uint64_t n, unsigned salt, unsigned char *model)
{
    FILE *fp = fopen(path, "wb");
    if (fp == NULL) {
        perror(path);
        exit(1);
    }
    for (uint64_t i = 0; i < n; i++) {
        model[i] = (unsigned char)((i * 131 + salt) & 0xff);
        fputc(model[i], fp);
    }
    fclose(fp);
}

/* ---- random operations against the model -------------------------- */
#define MAXFILE (1u << 20)

static void random_ops(const char *path, size_t psize, int npages, int steps)
{
    static unsigned char model[2 * MAXFILE], buf[2 * MAXFILE];
    uint64_t len = rng() % (MAXFILE / 2) + 1, mlen;
    counting_io *c;
    ncs_pc *pc;
    int status;
    make_file(path, len, (unsigned)rng(), model);
    memset(model + len, 0, sizeof model - len);
    mlen = len;
    c = open_counting(path, NCSI_IO_WRITE);
    status = ncsi_pc_new(&c->base, psize, npages, &pc);
    CHECK(status == NCS_NOERR, "ncsi_pc_new: %d", status);
    for (int step = 0; step < steps && failures == 0; step++) {
        uint64_t r = rng() % 100, off = rng() % (mlen + psize), n;
        int st = NCS_NOERR;
        /* mostly short requests around page boundaries */
        if (rng() % 2)
            off = (off / psize) * psize + psize - 1 - rng() % 64;
        n = rng() % 3 == 0 ? rng() % (3 * psize) + 1 : rng() % 256 + 1;
        if (off + n > MAXFILE)
            continue;
        if (r < 35) {
            st = ncsi_pc_read(pc, off, buf, (size_t)n);
            CHECK(st == NCS_NOERR && memcmp(buf, model + off, (size_t)n) == 0,
                  "step %d: read %llu+%llu (status %d)", step, (unsigned long long)off,
                  (unsigned long long)n, st);
        } else if (r < 55) {
            st = ncsi_pc_want(pc, off, n);
            CHECK(st == NCS_NOERR, "step %d: want: %d", step, st);
            st = ncsi_pc_read(pc, off, buf, (size_t)n);
            CHECK(st == NCS_NOERR && memcmp(buf, model + off, (size_t)n) == 0,
                  "step %d: read after want %llu+%llu", step, (unsigned long long)off,
                  (unsigned long long)n);
        } else if (r < 70) {
            /* rows: len bytes each, gap apart, as far as the page holds */
            uint64_t in = off % psize, rl = rng() % 64 + 1, gap = rl + rng() % 512, k;
            const unsigned char *p;
            if (in + rl > psize)
                continue;
            k = (psize - in - rl) / gap + 1;
            p = ncsi_pc_page_rows(pc, off, (size_t)rl, k + rng() % 3, gap, &st);
            CHECK(p != NULL, "step %d: page_rows: %d", step, st);
            if (p == NULL)
                break;
            for (uint64_t j = 0; j < k; j++) {
                uint64_t o = off + j * gap;
                /* only bytes inside the file are promised */
                uint64_t e = o + rl < mlen ? o + rl : mlen;
                if (o < e)
                    CHECK(memcmp(p + in + j * gap, model + o, (size_t)(e - o)) == 0,
                          "step %d: row %llu of %llu+%llu gap %llu", step,
                          (unsigned long long)j, (unsigned long long)off,
                          (unsigned long long)rl, (unsigned long long)gap);
            }
        } else if (r < 88) {
            for (uint64_t i = 0; i < n; i++)
                buf[i] = (unsigned char)rng();
            st = ncsi_pc_write(pc, off, buf, (size_t)n);
            CHECK(st == NCS_NOERR, "step %d: write: %d", step, st);
            memcpy(model + off, buf, (size_t)n);
            if (off + n > mlen)
                mlen = off + n;
        } else if (r < 92) {
            unsigned char *p;
            if (off % psize + n > psize)
                continue;
            p = ncsi_pc_span(pc, off, (size_t)n, 0, &st);
            if (off + n <= mlen)
                CHECK(p != NULL && memcmp(p, model + off, (size_t)n) == 0,
                      "step %d: span %llu+%llu", step, (unsigned long long)off,
                      (unsigned long long)n);
        } else if (r < 96) {
            st = ncsi_pc_flush(pc);
            CHECK(st == NCS_NOERR, "step %d: flush: %d", step, st);
        } else {
            st = ncsi_pc_invalidate(pc);
            CHECK(st == NCS_NOERR, "step %d: invalidate: %d", step, st);
        }
    }
    status = ncsi_pc_flush(pc);
    CHECK(status == NCS_NOERR, "final flush: %d", status);
    ncsi_pc_free(pc);
    ncsi_io_close(&c->base);
    {
        /* the file is the model, up to what was written */
        FILE *fp = fopen(path, "rb");
        size_t got = fp != NULL ? fread(buf, 1, (size_t)mlen + 1, fp) : 0;
        if (fp != NULL)
            fclose(fp);
        CHECK(got == mlen && memcmp(buf, model, (size_t)mlen) == 0,
              "file after flush: %zu bytes, model %llu", got, (unsigned long long)mlen);
    }
}

/* ---- buffers of closed caches -------------------------------------- */
static void reuse(const char *path)
{
    static unsigned char model[MAXFILE], buf[4096];
    for (int f = 0; f < 12 && failures == 0; f++) {
        uint64_t len = 65536 * (rng() % 6) + rng() % 65536 + 1;
        counting_io *c;
        ncs_pc *pc;
        make_file(path, len, 17u * (unsigned)f + 1, model);
        c = open_counting(path, 0);
        if (ncsi_pc_new(&c->base, 65536, 16, &pc) != NCS_NOERR) {
            CHECK(0, "ncsi_pc_new");
            break;
        }
        for (int i = 0; i < 200; i++) {
            uint64_t off = rng() % (len + 8192), n = rng() % 64 + 1;
            int st = ncsi_pc_read(pc, off, buf, (size_t)n);
            CHECK(st == NCS_NOERR, "file %d: read %d", f, st);
            for (uint64_t k = 0; k < n; k++) {
                unsigned char want = off + k < len ? model[off + k] : 0;
                if (buf[k] != want) {
                    CHECK(0, "file %d: byte %llu is %u, not %u", f,
                          (unsigned long long)(off + k), buf[k], want);
                    break;
                }
            }
        }
        ncsi_pc_free(pc);
        ncsi_io_close(&c->base);
    }
}

/* ---- one transfer for a straddling run ----------------------------- */
static void want(const char *path)
{
    static unsigned char model[4 * 65536], buf[65536];
    counting_io *c;
    ncs_pc *pc;
    int st;
    make_file(path, sizeof model, 99, model);
    c = open_counting(path, 0);
    if (ncsi_pc_new(&c->base, 65536, 16, &pc) != NCS_NOERR) {
        CHECK(0, "ncsi_pc_new");
        return;
    }
    /* a run from 1000 bytes before page 1's end into page 2 */
    st = ncsi_pc_want(pc, 2 * 65536 - 1000, 3000);
    CHECK(st == NCS_NOERR && c->readvs == 1 && c->reads == 0,
          "want of a straddling run: status %d, %d readv, %d read", st, c->readvs, c->reads);
    st = ncsi_pc_read(pc, 2 * 65536 - 1000, buf, 3000);
    CHECK(st == NCS_NOERR && memcmp(buf, model + 2 * 65536 - 1000, 3000) == 0,
          "read after want");
    CHECK(c->readvs == 1 && c->reads == 0, "the read after want read again: %d, %d",
          c->readvs, c->reads);
    /* held already: nothing more */
    st = ncsi_pc_want(pc, 2 * 65536 - 900, 2000);
    CHECK(st == NCS_NOERR && c->readvs == 1 && c->reads == 0, "want of held bytes read");
    /* inside one page: nothing */
    st = ncsi_pc_want(pc, 3 * 65536 + 10, 100);
    CHECK(st == NCS_NOERR && c->readvs == 1 && c->reads == 0, "want inside a page read");
    /* a straddling read without want: one transfer too */
    st = ncsi_pc_read(pc, 3 * 65536 - 10, buf, 20);
    CHECK(st == NCS_NOERR && memcmp(buf, model + 3 * 65536 - 10, 20) == 0 &&
              c->readvs == 2 && c->reads == 0,
          "straddling read: status %d, %d readv, %d read", st, c->readvs, c->reads);
    /* past the end of the file: zeros */
    st = ncsi_pc_read(pc, 4 * 65536 - 100, buf, 300);
    CHECK(st == NCS_NOERR && memcmp(buf, model + 4 * 65536 - 100, 100) == 0 &&
              buf[100] == 0 && buf[299] == 0,
          "straddling read past the end");
    /* a failing transfer's status comes back, and nothing is marked loaded */
    c->fail_reads = 1;
    st = ncsi_pc_want(pc, 65536 - 10, 20);
    CHECK(st == EIO, "failing want: %d", st);
    st = ncsi_pc_read(pc, 65536 - 10, buf, 20);
    CHECK(st == EIO, "failing read after a failed want: %d", st);
    c->fail_reads = 0;
    st = ncsi_pc_read(pc, 65536 - 10, buf, 20);
    CHECK(st == NCS_NOERR && memcmp(buf, model + 65536 - 10, 20) == 0,
          "read after the failure");
    ncsi_pc_free(pc);
    ncsi_io_close(&c->base);
}

/* ---- prefetch ------------------------------------------------------ */
static counting_io *last_opened;

static int counting_opener(const char *path, int flags, ncs_io **iop)
{
    last_opened = open_counting(path, flags);
    *iop = &last_opened->base;
    return NCS_NOERR;
}

static void prefetch(const char *path)
{
    static unsigned char model[4 * 65536], buf[4096];
    counting_io *c;
    ncs_pc *pc;
    int ncid, dims[2], var, st;
    float vals[10 * 3000], got[10];
    int fastpath;
    make_file(path, sizeof model, 5, model);
    c = open_counting(path, 0);
    if (ncsi_pc_new(&c->base, 65536, 16, &pc) != NCS_NOERR) {
        CHECK(0, "ncsi_pc_new");
        return;
    }
    ncsi_pc_prefetch(pc, 70000, 100);
    CHECK(c->willneeds == 1 && c->willneed_bytes == 4096, "prefetch of a cold range: %d, %llu",
          c->willneeds, (unsigned long long)c->willneed_bytes);
    st = ncsi_pc_read(pc, 70000, buf, 100);
    CHECK(st == NCS_NOERR && memcmp(buf, model + 70000, 100) == 0, "read");
    ncsi_pc_prefetch(pc, 70000, 100);
    CHECK(c->willneeds == 1, "prefetch of a held range told the system");
    ncsi_pc_free(pc);
    ncsi_io_close(&c->base);

    /* through the API: records of 12,000 bytes, a point from each */
    for (int i = 0; i < 10 * 3000; i++)
        vals[i] = (float)i;
    NCS_OK_CHECK(ncs_create(path, NCS_CLOBBER, &ncid));
    NCS_OK_CHECK(ncs_def_dim(ncid, "t", NCS_UNLIMITED, &dims[0]));
    NCS_OK_CHECK(ncs_def_dim(ncid, "x", 3000, &dims[1]));
    NCS_OK_CHECK(ncs_def_var(ncid, "v", NCS_FLOAT, 2, dims, &var));
    NCS_OK_CHECK(ncs_enddef(ncid));
    {
        size_t start[2] = { 0, 0 }, count[2] = { 10, 3000 };
        NCS_OK_CHECK(ncs_put(ncid, var, start, count, NULL, NULL, NCS_FLOAT, vals));
    }
    NCS_OK_CHECK(ncs_close(ncid));
    fastpath = ncsi_fastpath;           /* as the first open left it */
    ncsi_fastpath = 1;
    ncsi_io_open = counting_opener;
    NCS_OK_CHECK(ncs_open(path, NCS_NOWRITE, &ncid));
    {
        size_t start[2] = { 0, 2000 }, count[2] = { 10, 1 };
        int before = last_opened->willneeds;
        NCS_OK_CHECK(ncs_get(ncid, var, start, count, NULL, NULL, NCS_FLOAT, got));
        for (int r = 0; r < 10; r++)
            CHECK(got[r] == vals[r * 3000 + 2000], "record %d: %g", r, (double)got[r]);
        /* records 12,000 bytes apart: less than a page, one stretch */
        CHECK(last_opened->willneeds == before, "a get within a page's stretch: %d ranges",
              last_opened->willneeds - before);
    }
    NCS_OK_CHECK(ncs_close(ncid));
    ncsi_io_open = ncsi_io_posix_open;

    /* records 96,000 bytes apart */
    NCS_OK_CHECK(ncs_create(path, NCS_CLOBBER, &ncid));
    NCS_OK_CHECK(ncs_def_dim(ncid, "t", NCS_UNLIMITED, &dims[0]));
    NCS_OK_CHECK(ncs_def_dim(ncid, "x", 24000, &dims[1]));
    NCS_OK_CHECK(ncs_def_var(ncid, "v", NCS_FLOAT, 2, dims, &var));
    NCS_OK_CHECK(ncs_enddef(ncid));
    for (size_t r = 0; r < 10; r++) {
        size_t start[2] = { r, 0 }, count[2] = { 1, 3000 };
        for (int k = 0; k < 8; k++) {
            start[1] = (size_t)k * 3000;
            NCS_OK_CHECK(ncs_put(ncid, var, start, count, NULL, NULL, NCS_FLOAT, vals + r * 3000));
        }
    }
    NCS_OK_CHECK(ncs_close(ncid));
    /* the hints are the fast path's: on here, whatever the build or
     * NCSLAB_FASTPATH says (the first open has read those) */
    ncsi_fastpath = 1;
    ncsi_io_open = counting_opener;
    NCS_OK_CHECK(ncs_open(path, NCS_NOWRITE, &ncid));
    {
        /* past the header's blocks, which the open left cached */
        size_t start[2] = { 0, 5000 }, count[2] = { 10, 1 };
        int before = last_opened->willneeds;
        NCS_OK_CHECK(ncs_get(ncid, var, start, count, NULL, NULL, NCS_FLOAT, got));
        for (int r = 0; r < 10; r++)
            CHECK(got[r] == vals[r * 3000 + 2000], "record %d: %g", r, (double)got[r]);
        CHECK(last_opened->willneeds - before == 10, "a cold get of 10 records: %d ranges",
              last_opened->willneeds - before);
        before = last_opened->willneeds;
        NCS_OK_CHECK(ncs_get(ncid, var, start, count, NULL, NULL, NCS_FLOAT, got));
        CHECK(last_opened->willneeds == before, "the same get warm: %d ranges",
              last_opened->willneeds - before);
    }
    NCS_OK_CHECK(ncs_close(ncid));
    ncsi_io_open = ncsi_io_posix_open;
    ncsi_fastpath = fastpath;
}

int main(int argc, char **argv)
{
    char path[] = "ut_pagecache_XXXXXX";
    unsigned long long seed = argc > 1 ? strtoull(argv[1], NULL, 0) : 20261204ull;
    int fd = mkstemp(path);
    if (fd < 0) {
        perror("mkstemp");
        return 1;
    }
    close(fd);
    rng_state = seed;
    want(path);
    reuse(path);
    prefetch(path);
    for (int round = 0; round < 40 && failures == 0; round++) {
        static const size_t psizes[] = { 4096, 8192, 65536, 65536 };
        size_t psize = psizes[rng() % 4];
        int npages = (int)(rng() % 20) + 1;
        random_ops(path, psize, npages, 2000);
        if (failures)
            fprintf(stderr, "check_pagecache: seed %llu, round %d (page %zu, %d pages)\n",
                    seed, round, psize, npages);
    }
    unlink(path);
    if (failures == 0)
        printf("check_pagecache: all checks passed (seed %llu)\n", seed);
    return failures != 0;
}
