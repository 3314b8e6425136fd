/*
 * check_chunked.c -- the chunked back end beyond the hyperslab matrix: the
 * shared chunk cache, record growth, storage settings and their errors,
 * the default chunk shapes, memory use while streaming, and the chunk
 * index and filter ids as the file records them (ncs_inq_var_chunks).
 *
 * Cache tests observe the cache through ncs_inq_cache_stats (hits, misses,
 * evictions, decoded bytes loaded and written back) and through the file:
 * what was written must read back after close and reopen, whatever the
 * budget (1 byte to 64 MiB), and a chunk nobody wrote reads as fill values.
 * Stats are process-wide; Check runs every test in its own process, and
 * each test resets them before it counts.
 *
 * Values encode coordinates: element (i, j) of a variable holds
 * 1 + 1000*i + j plus 100000 per generation, so a misplaced element or a
 * lost write-back names where it came from.
 *
 * Error codes are those netCDF-C 4.9.0 returns for the same calls on
 * NC_NETCDF4|NC_CLASSIC_MODEL and classic files (diff_nc4 compares them
 * live); record-bound codes must equal the classic back end's.
 */
#include "config.h"
#include "testutil.h"

#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <hdf5.h>
#ifdef HAVE_VALGRIND_VALGRIND_H
#include <valgrind/valgrind.h>
#else
#define RUNNING_ON_VALGRIND 0
#endif

#define PROG "chunked"
#define NC4 (NCS_NETCDF4 | NCS_CLASSIC_MODEL)

static int val2(size_t i, size_t j, int gen)
{
    return 1 + 1000 * (int)i + (int)j + 100000 * gen;
}

/* ---- a 2-D fixed variable with small chunks ----------------------------- */
#define NI 40
#define NJ 50
#define CI 7
#define CJ 9
#define CHUNK_BYTES (CI * CJ * 4)
#define NCHUNKS (((NI + CI - 1) / CI) * ((NJ + CJ - 1) / CJ))

static int make_grid(const char *path, int *varidp)
{
    int ncid, d[2];
    size_t ch[2] = {CI, CJ};
    NCS_OK(ncs_create(path, NCS_CLOBBER | NC4, &ncid));
    NCS_OK(ncs_def_dim(ncid, "i", NI, &d[0]));
    NCS_OK(ncs_def_dim(ncid, "j", NJ, &d[1]));
    NCS_OK(ncs_def_var(ncid, "v", NCS_INT, 2, d, varidp));
    NCS_OK(ncs_def_var_chunking(ncid, *varidp, NCS_CHUNKED, ch));
    NCS_OK(ncs_enddef(ncid));
    return ncid;
}

/* Writes generation gen column by column: every put touches a chunk of
 * each chunk row, partially, so chunks are loaded, dirtied and (with a
 * small budget) evicted many times before they are complete. */
static void write_columns(int ncid, int varid, int gen)
{
    int col[NI];
    for (size_t j = 0; j < NJ; j++) {
        size_t st[2] = {0, j}, ct[2] = {NI, 1};
        for (size_t i = 0; i < NI; i++)
            col[i] = val2(i, j, gen);
        NCS_OK(ncs_put(ncid, varid, st, ct, NULL, NULL, NCS_INT, col));
    }
}

/* Reads the whole variable row by row and checks generation gen (or the
 * default fill where gen < 0). */
static void check_rows(int ncid, int varid, int gen, const char *when)
{
    int row[NJ];
    for (size_t i = 0; i < NI; i++) {
        size_t st[2] = {i, 0}, ct[2] = {1, NJ};
        NCS_OK(ncs_get(ncid, varid, st, ct, NULL, NULL, NCS_INT, row));
        for (size_t j = 0; j < NJ; j++) {
            int want = gen < 0 ? NCS_FILL_INT : val2(i, j, gen);
            TU_EXPECT(row[j] == want, "%s: v[%zu][%zu] = %d, expected %d",
                          when, i, j, row[j], want);
        }
    }
}

typedef struct stats {
    unsigned long long hits, misses, evictions, rd, wr;
} stats;

static stats get_stats(void)
{
    stats s;
    NCS_OK(ncs_inq_cache_stats(&s.hits, &s.misses, &s.evictions, &s.rd, &s.wr));
    return s;
}

/* ---- budgets --------------------------------------------------------------- */

static const size_t budgets[] = {
    1, 100, CHUNK_BYTES - 1, CHUNK_BYTES, 3 * CHUNK_BYTES, 1u << 20, 64u << 20};

/* One element through the cache itself.  ncs_get1 may be served from the
 * variable's pinned chunk without a cache lookup (the one-element fast
 * path, on in release builds), which the counters do not see and which
 * keeps that chunk from being evicted; these tests count lookups. */
static int get_one(int ncid, int varid, const size_t *idx, int *x)
{
    static const size_t one[2] = {1, 1};
    return ncs_get(ncid, varid, idx, one, NULL, NULL, NCS_INT, x);
}

/* Whatever the budget, data written reads back before and after a close;
 * a budget below the working set evicts and writes back, one above it
 * writes nothing before sync. */
START_TEST(test_budgets)
{
    size_t budget = budgets[_i], got = 0;
    char path[256], what[32];
    int ncid, varid;
    stats s;
    snprintf(what, sizeof what, "budget%d", _i);
    tu_path(path, sizeof path, PROG, what);
    NCS_OK(ncs_set_chunk_cache(budget));
    NCS_OK(ncs_get_chunk_cache(&got));
    ck_assert_uint_eq(got, budget);
    ncid = make_grid(path, &varid);
    ncs_reset_cache_stats();
    check_rows(ncid, varid, -1, "fresh");
    write_columns(ncid, varid, 0);
    s = get_stats();
    if (budget < (size_t)NCHUNKS * CHUNK_BYTES) {
        ck_assert_msg(s.evictions > 0, "budget %zu: no evictions", budget);
        ck_assert_msg(s.wr > 0, "budget %zu: dirty chunks evicted without write-back",
                      budget);
    } else {
        ck_assert_msg(s.evictions == 0, "budget %zu: %llu evictions", budget, s.evictions);
        ck_assert_msg(s.wr == 0, "budget %zu: %llu bytes written before sync "
                      "(the cache is write-back)", budget, s.wr);
    }
    check_rows(ncid, varid, 0, "before close");
    write_columns(ncid, varid, 1);
    NCS_OK(ncs_close(ncid));
    NCS_OK(ncs_open(path, NCS_NOWRITE, &ncid));
    check_rows(ncid, varid, 1, "after reopen");
    NCS_OK(ncs_close(ncid));
    unlink(path);
}
END_TEST

/* Exact counters with a budget of two chunks: a partially written chunk
 * that falls off the LRU end is written back at once, before any sync, and
 * the file has it after a reopen. */
START_TEST(test_dirty_eviction)
{
    char path[256];
    int ncid, varid, x;
    size_t idx[2];
    stats s;
    tu_path(path, sizeof path, PROG, "dirty");
    NCS_OK(ncs_set_chunk_cache(2 * CHUNK_BYTES));
    ncid = make_grid(path, &varid);
    ncs_reset_cache_stats();
    /* one element in each of chunks (0,0), (0,1), (0,2) */
    for (size_t c = 0; c < 3; c++) {
        idx[0] = 1;
        idx[1] = c * CJ + 2;
        x = val2(idx[0], idx[1], 0);
        NCS_OK(ncs_put1(ncid, varid, idx, NCS_INT, &x));
    }
    s = get_stats();
    ck_assert_uint_eq(s.misses, 3);
    ck_assert_uint_eq(s.hits, 0);
    ck_assert_uint_eq(s.evictions, 1);
    ck_assert_msg(s.wr == CHUNK_BYTES,
                  "evicting the dirty chunk (0,0) wrote %llu bytes, expected %d",
                  s.wr, CHUNK_BYTES);
    /* (0,0) is gone; (0,1) and (0,2) are cached */
    idx[1] = CJ + 2;
    NCS_OK(get_one(ncid, varid, idx, &x));
    ck_assert_int_eq(x, val2(1, CJ + 2, 0));
    s = get_stats();
    ck_assert_uint_eq(s.hits, 1);
    idx[1] = 2;
    NCS_OK(get_one(ncid, varid, idx, &x));
    ck_assert_int_eq(x, val2(1, 2, 0));
    s = get_stats();
    ck_assert_uint_eq(s.misses, 4);
    ck_assert_uint_eq(s.evictions, 2);    /* (0,2), dirty */
    ck_assert_uint_eq(s.wr, 2 * CHUNK_BYTES);
    /* sync writes the one dirty chunk left; a second sync nothing */
    NCS_OK(ncs_sync(ncid));
    s = get_stats();
    ck_assert_uint_eq(s.wr, 3 * CHUNK_BYTES);
    NCS_OK(ncs_sync(ncid));
    ck_assert_uint_eq(get_stats().wr, 3 * CHUNK_BYTES);
    NCS_OK(ncs_close(ncid));
    ck_assert_uint_eq(get_stats().wr, 3 * CHUNK_BYTES);

    NCS_OK(ncs_open(path, NCS_NOWRITE, &ncid));
    for (size_t i = 0; i < NI; i++)
        for (size_t j = 0; j < NJ; j++) {
            int want = (i == 1 && j % CJ == 2 && j < 3 * CJ) ? val2(i, j, 0) : NCS_FILL_INT;
            idx[0] = i;
            idx[1] = j;
            NCS_OK(ncs_get1(ncid, varid, idx, NCS_INT, &x));
            ck_assert_msg(x == want, "after reopen v[%zu][%zu] = %d, expected %d", i, j,
                          x, want);
        }
    NCS_OK(ncs_close(ncid));
    unlink(path);
}
END_TEST

/* A deflated variable written one whole chunk a put (as nccopy writes
 * record by record), the budget eight chunks: with a pool of two threads
 * the first eviction writes back the oldest dirty chunks together (so
 * that their encoding runs on both), with one thread only the chunk
 * evicted; either way no chunk is written twice and all read back.  _i is
 * the pool's size. */
START_TEST(test_encoded_batch)
{
    char path[256], what[32];
    int ncid, varid, block[CI * CJ];
    unsigned long long first = 0;
    stats s;
    snprintf(what, sizeof what, "encoded%d", _i);
    tu_path(path, sizeof path, PROG, what);
    NCS_OK(ncs_set_decode_threads(_i));
    NCS_OK(ncs_set_chunk_cache(8 * CHUNK_BYTES));
    {
        int d[2];
        size_t ch[2] = {CI, CJ};
        NCS_OK(ncs_create(path, NCS_CLOBBER | NC4, &ncid));
        NCS_OK(ncs_def_dim(ncid, "i", NI, &d[0]));
        NCS_OK(ncs_def_dim(ncid, "j", NJ, &d[1]));
        NCS_OK(ncs_def_var(ncid, "v", NCS_INT, 2, d, &varid));
        NCS_OK(ncs_def_var_chunking(ncid, varid, NCS_CHUNKED, ch));
        NCS_OK(ncs_def_var_deflate(ncid, varid, 0, 1, 1));
        NCS_OK(ncs_enddef(ncid));
    }
    ncs_reset_cache_stats();
    for (size_t i0 = 0; i0 < NI; i0 += CI)
        for (size_t j0 = 0; j0 < NJ; j0 += CJ) {
            size_t st[2] = {i0, j0};
            size_t ct[2] = {NI - i0 < CI ? NI - i0 : CI, NJ - j0 < CJ ? NJ - j0 : CJ};
            for (size_t i = 0; i < ct[0]; i++)
                for (size_t j = 0; j < ct[1]; j++)
                    block[i * ct[1] + j] = val2(i0 + i, j0 + j, 0);
            NCS_OK(ncs_put(ncid, varid, st, ct, NULL, NULL, NCS_INT, block));
            s = get_stats();
            if (first == 0 && s.evictions > 0)
                first = s.wr;
        }
    if (_i == 1)
        ck_assert_msg(first == CHUNK_BYTES, "one thread: the first eviction wrote %llu bytes",
                      first);
    else
        ck_assert_msg(first >= 2 * CHUNK_BYTES,
                      "two threads: the first eviction wrote %llu bytes, one chunk", first);
    NCS_OK(ncs_close(ncid));
    s = get_stats();
    ck_assert_msg(s.wr == (unsigned long long)NCHUNKS * CHUNK_BYTES,
                  "%llu bytes written for %d chunks of %d", s.wr, NCHUNKS, CHUNK_BYTES);
    NCS_OK(ncs_open(path, NCS_NOWRITE, &ncid));
    check_rows(ncid, varid, 0, "after reopen");
    NCS_OK(ncs_close(ncid));
    unlink(path);
}
END_TEST

/* A budget smaller than one chunk: each chunk is cached alone, the next one
 * evicts it, and shrinking the budget under dirty chunks writes them. */
START_TEST(test_budget_below_chunk)
{
    char path[256];
    int ncid, varid, x;
    size_t a[2] = {0, 0}, b[2] = {CI, 0}, got;
    stats s;
    tu_path(path, sizeof path, PROG, "tiny");
    NCS_IS(ncs_set_chunk_cache(0), NCS_EINVAL);
    NCS_OK(ncs_set_chunk_cache(1));
    NCS_OK(ncs_get_chunk_cache(&got));
    ck_assert_uint_eq(got, 1);
    ncid = make_grid(path, &varid);
    ncs_reset_cache_stats();
    NCS_OK(get_one(ncid, varid, a, &x));       /* miss */
    ck_assert_int_eq(x, NCS_FILL_INT);
    NCS_OK(get_one(ncid, varid, a, &x));       /* hit: kept alone */
    NCS_OK(get_one(ncid, varid, b, &x));       /* miss, evicts a */
    NCS_OK(get_one(ncid, varid, a, &x));       /* miss, evicts b */
    s = get_stats();
    ck_assert_uint_eq(s.hits, 1);
    ck_assert_uint_eq(s.misses, 3);
    ck_assert_uint_eq(s.evictions, 2);
    ck_assert_uint_eq(s.wr, 0);
    x = 17;
    NCS_OK(ncs_put1(ncid, varid, a, NCS_INT, &x));       /* hit, dirty */
    x = 18;
    NCS_OK(ncs_put1(ncid, varid, b, NCS_INT, &x));       /* evicts a: written */
    ck_assert_uint_eq(get_stats().wr, CHUNK_BYTES);
    /* growing then shrinking the budget writes b back */
    NCS_OK(ncs_set_chunk_cache(1u << 20));
    write_columns(ncid, varid, 0);
    ck_assert_uint_eq(get_stats().wr, CHUNK_BYTES);
    NCS_OK(ncs_set_chunk_cache(1));
    ck_assert_msg(get_stats().wr >= (unsigned long long)NCHUNKS * CHUNK_BYTES,
                  "shrinking the budget wrote %llu bytes of %d dirty chunks",
                  get_stats().wr, NCHUNKS * CHUNK_BYTES);
    check_rows(ncid, varid, 0, "after shrinking");
    NCS_OK(ncs_close(ncid));
    NCS_OK(ncs_open(path, NCS_NOWRITE, &ncid));
    check_rows(ncid, varid, 0, "after reopen");
    NCS_OK(ncs_close(ncid));
    unlink(path);
}
END_TEST

/* ---- many files ------------------------------------------------------------- */
#define NFILES 64
#define MREC 6
#define MLEN 10

static int mval(int file, size_t rec, size_t k)
{
    return file * 10000 + (int)rec * 100 + (int)k;
}

/* 64 chunked files open at once sharing a 4 KiB budget: writes interleaved
 * across files evict each other's dirty chunks; every file reads back,
 * open and after all are reopened together. */
START_TEST(test_many_files)
{
    char path[NFILES][256];
    int ncid[NFILES], varid[NFILES];
    size_t ch[2] = {2, 5}, n;
    NCS_OK(ncs_set_chunk_cache(4096));
    for (int f = 0; f < NFILES; f++) {
        int d[2];
        char what[32];
        snprintf(what, sizeof what, "many%02d", f);
        tu_path(path[f], sizeof path[f], PROG, what);
        NCS_OK(ncs_create(path[f], NCS_CLOBBER | NC4, &ncid[f]));
        NCS_OK(ncs_def_dim(ncid[f], "t", NCS_UNLIMITED, &d[0]));
        NCS_OK(ncs_def_dim(ncid[f], "k", MLEN, &d[1]));
        NCS_OK(ncs_def_var(ncid[f], "v", NCS_INT, 2, d, &varid[f]));
        NCS_OK(ncs_def_var_chunking(ncid[f], varid[f], NCS_CHUNKED, ch));
        NCS_OK(ncs_enddef(ncid[f]));
    }
    ncs_reset_cache_stats();
    for (size_t r = 0; r < MREC; r++)
        for (int f = 0; f < NFILES; f++) {
            int rec[MLEN];
            size_t st[2] = {r, 0}, ct[2] = {1, MLEN};
            for (size_t k = 0; k < MLEN; k++)
                rec[k] = mval(f, r, k);
            NCS_OK(ncs_put(ncid[f], varid[f], st, ct, NULL, NULL, NCS_INT, rec));
        }
    ck_assert_msg(get_stats().evictions > 0, "64 files in 4 KiB: no evictions");
    for (int pass = 0; pass < 2; pass++) {
        for (int f = 0; f < NFILES; f++) {
            int all[MREC * MLEN];
            NCS_OK(ncs_inq_dimlen(ncid[f], 0, &n));
            ck_assert_uint_eq(n, MREC);
            NCS_OK(ncs_get(ncid[f], varid[f], NULL, NULL, NULL, NULL, NCS_INT, all));
            for (size_t r = 0; r < MREC; r++)
                for (size_t k = 0; k < MLEN; k++)
                    TU_EXPECT(all[r * MLEN + k] == mval(f, r, k),
                                  "pass %d file %d v[%zu][%zu] = %d, expected %d", pass,
                                  f, r, k, all[r * MLEN + k], mval(f, r, k));
        }
        for (int f = 0; f < NFILES; f++)
            NCS_OK(ncs_close(ncid[f]));
        if (pass == 0)
            for (int f = 0; f < NFILES; f++)
                NCS_OK(ncs_open(path[f], NCS_NOWRITE, &ncid[f]));
    }
    for (int f = 0; f < NFILES; f++)
        unlink(path[f]);
}
END_TEST

/* Counters for whole-chunk writes (no load), partial writes (load), hits,
 * and write-back only of dirty chunks. */
START_TEST(test_stats)
{
    char path[256];
    int ncid, varid, blk[CI * CJ], x = 5;
    size_t st[2] = {0, 0}, ct[2] = {CI, CJ}, p[2] = {CI, 1};
    stats s;
    tu_path(path, sizeof path, PROG, "stats");
    NCS_OK(ncs_set_chunk_cache(16u << 20));
    ncid = make_grid(path, &varid);
    for (int k = 0; k < CI * CJ; k++)
        blk[k] = k;
    ncs_reset_cache_stats();
    NCS_OK(ncs_put(ncid, varid, st, ct, NULL, NULL, NCS_INT, blk));   /* whole chunk */
    s = get_stats();
    ck_assert_uint_eq(s.misses, 1);
    ck_assert_msg(s.rd == 0, "a whole-chunk write loaded %llu bytes", s.rd);
    NCS_OK(ncs_put1(ncid, varid, p, NCS_INT, &x));                    /* partial */
    s = get_stats();
    ck_assert_uint_eq(s.misses, 2);
    ck_assert_uint_eq(s.rd, CHUNK_BYTES);
    NCS_OK(ncs_get1(ncid, varid, p, NCS_INT, &x));
    NCS_OK(ncs_get(ncid, varid, st, ct, NULL, NULL, NCS_INT, blk));
    s = get_stats();
    ck_assert_uint_eq(s.hits, 2);
    ck_assert_uint_eq(s.misses, 2);
    ck_assert_uint_eq(s.wr, 0);
    for (int k = 0; k < CI * CJ; k++)
        TU_EXPECT(blk[k] == k, "blk[%d] = %d", k, blk[k]);
    NCS_OK(ncs_sync(ncid));
    ck_assert_uint_eq(get_stats().wr, 2 * CHUNK_BYTES);
    /* reads do not dirty */
    NCS_OK(ncs_get(ncid, varid, NULL, NULL, NULL, NULL, NCS_INT,
                   (int[NI * NJ]){0}));
    NCS_OK(ncs_close(ncid));
    s = get_stats();
    ck_assert_uint_eq(s.wr, 2 * CHUNK_BYTES);
    ck_assert_uint_eq(s.evictions, 0);
    unlink(path);
}
END_TEST

/* A new file holding one float variable v of ni x nj, chunks ch (and
 * shuffle and deflate level 1 if asked), in data mode. */
static int make_float2d(const char *path, size_t ni, size_t nj, const size_t *ch, int deflate,
                        int *varidp)
{
    int ncid, d[2];
    NCS_OK(ncs_create(path, NCS_CLOBBER | NC4, &ncid));
    NCS_OK(ncs_def_dim(ncid, "i", ni, &d[0]));
    NCS_OK(ncs_def_dim(ncid, "j", nj, &d[1]));
    NCS_OK(ncs_def_var(ncid, "v", NCS_FLOAT, 2, d, varidp));
    NCS_OK(ncs_def_var_chunking(ncid, *varidp, NCS_CHUNKED, ch));
    if (deflate)
        NCS_OK(ncs_def_var_deflate(ncid, *varidp, 1, 1, 1));
    NCS_OK(ncs_enddef(ncid));
    return ncid;
}

/* The budget is a ceiling: the cache starts at a 4 MiB target and grows
 * only by chunks it evicted and then missed again.  A float variable of two
 * rows of 96 chunks of 64 x 256 (64 KiB each, 6 MiB a chunk row), read row
 * by row with the default 16 MiB budget: row 0 loads 96 chunks and keeps
 * 64 (4 MiB), row 1 misses the 32 evicted ones, which grows the target to
 * the 96 chunks of a row; rows 2-63 hit; row 64 loads the second chunk row,
 * each chunk in place of one of the first.  A cache that filled its budget
 * would miss 192 times and never evict. */
#define AD_CI 64
#define AD_CJ 256
#define AD_NI (2 * AD_CI)
#define AD_NJ (96 * AD_CJ)
START_TEST(test_adaptive_target)
{
    char path[256];
    int ncid, v;
    size_t ch[2] = {AD_CI, AD_CJ};
    static float row[AD_NJ];
    stats s;
    tu_path(path, sizeof path, PROG, "adaptive");
    NCS_OK(ncs_set_chunk_cache(16u << 20));
    ncid = make_float2d(path, AD_NI, AD_NJ, ch, 0, &v);
    for (size_t i = 0; i < AD_NI; i++) {
        size_t st[2] = {i, 0}, ct[2] = {1, AD_NJ};
        for (size_t j = 0; j < AD_NJ; j++)
            row[j] = (float)(i * 7 + j % 1000);
        NCS_OK(ncs_put(ncid, v, st, ct, NULL, NULL, NCS_FLOAT, row));
    }
    NCS_OK(ncs_close(ncid));
    NCS_OK(ncs_open(path, NCS_NOWRITE, &ncid));
    ncs_reset_cache_stats();
    for (size_t i = 0; i < AD_NI; i++) {
        size_t st[2] = {i, 0}, ct[2] = {1, AD_NJ};
        NCS_OK(ncs_get(ncid, v, st, ct, NULL, NULL, NCS_FLOAT, row));
        for (size_t j = 0; j < AD_NJ; j++)
            TU_EXPECT(row[j] == (float)(i * 7 + j % 1000), "v[%zu][%zu] = %g", i, j,
                          (double)row[j]);
        if (i == 1) {
            s = get_stats();
            ck_assert_uint_eq(s.misses, 96 + 32);
            ck_assert_uint_eq(s.evictions, 32);
        }
    }
    s = get_stats();
    ck_assert_uint_eq(s.misses, 96 + 32 + 96);
    ck_assert_uint_eq(s.evictions, 32 + 96);
    ck_assert_uint_eq(s.hits + s.misses, (unsigned long long)AD_NI * 96);
    NCS_OK(ncs_close(ncid));
    /* closed, the cache is empty and its target back at 4 MiB: the same
     * pass evicts the same chunks again */
    NCS_OK(ncs_open(path, NCS_NOWRITE, &ncid));
    ncs_reset_cache_stats();
    for (size_t i = 0; i < 2; i++) {
        size_t st[2] = {i, 0}, ct[2] = {1, AD_NJ};
        NCS_OK(ncs_get(ncid, v, st, ct, NULL, NULL, NCS_FLOAT, row));
    }
    s = get_stats();
    ck_assert_uint_eq(s.misses, 96 + 32);
    ck_assert_uint_eq(s.evictions, 32);
    NCS_OK(ncs_close(ncid));
    /* a budget below the floor is the target: nothing stays for row 1
     * (opened for writing, so that the chunks go through the cache) */
    NCS_OK(ncs_set_chunk_cache(2u << 20));
    NCS_OK(ncs_open(path, NCS_WRITE, &ncid));
    ncs_reset_cache_stats();
    for (size_t i = 0; i < 2; i++) {
        size_t st[2] = {i, 0}, ct[2] = {1, AD_NJ};
        NCS_OK(ncs_get(ncid, v, st, ct, NULL, NULL, NCS_FLOAT, row));
    }
    s = get_stats();
    ck_assert_uint_eq(s.misses, 2 * 96);
    NCS_OK(ncs_close(ncid));
    /* read-only, a row's 96 chunks are more than the whole budget holds:
     * each chunk's part of the row is read past the cache */
    NCS_OK(ncs_open(path, NCS_NOWRITE, &ncid));
    ncs_reset_cache_stats();
    for (size_t i = 0; i < 2; i++) {
        size_t st[2] = {i, 0}, ct[2] = {1, AD_NJ};
        NCS_OK(ncs_get(ncid, v, st, ct, NULL, NULL, NCS_FLOAT, row));
        for (size_t j = 0; j < AD_NJ; j++)
            TU_EXPECT(row[j] == (float)(i * 7 + j % 1000), "v[%zu][%zu] = %g", i, j,
                      (double)row[j]);
    }
    s = get_stats();
    ck_assert_uint_eq(s.misses, 0);
    NCS_OK(ncs_close(ncid));
    unlink(path);
}
END_TEST

/* ---- never-written chunks ------------------------------------------------------ */

/* Chunks nobody wrote read as the fill value (default or _FillValue), take
 * no space in the file, and stay so after reopen. */
START_TEST(test_fill_chunks)
{
    char path[256];
    int ncid, d[2], v, w, buf[NI * NJ];
    short sf = -7, sb[NI * NJ];
    size_t ch[2] = {CI, CJ}, idx[2] = {NI - 1, NJ - 1};
    tu_path(path, sizeof path, PROG, "fill");
    NCS_OK(ncs_create(path, NCS_CLOBBER | NC4, &ncid));
    NCS_OK(ncs_def_dim(ncid, "i", NI, &d[0]));
    NCS_OK(ncs_def_dim(ncid, "j", NJ, &d[1]));
    NCS_OK(ncs_def_var(ncid, "v", NCS_INT, 2, d, &v));
    NCS_OK(ncs_def_var(ncid, "w", NCS_SHORT, 2, d, &w));
    NCS_OK(ncs_def_var_chunking(ncid, v, NCS_CHUNKED, ch));
    NCS_OK(ncs_def_var_chunking(ncid, w, NCS_CHUNKED, ch));
    NCS_OK(ncs_def_var_deflate(ncid, w, 1, 1, 1));
    NCS_OK(ncs_put_att(ncid, w, "_FillValue", NCS_SHORT, 1, NCS_SHORT, &sf));
    NCS_OK(ncs_enddef(ncid));
    sf = 3;
    NCS_OK(ncs_put1(ncid, w, idx, NCS_SHORT, &sf));     /* the last (edge) chunk */
    NCS_OK(ncs_close(ncid));
    NCS_OK(ncs_open(path, NCS_NOWRITE, &ncid));
    NCS_OK(ncs_get(ncid, v, NULL, NULL, NULL, NULL, NCS_INT, buf));
    NCS_OK(ncs_get(ncid, w, NULL, NULL, NULL, NULL, NCS_SHORT, sb));
    for (int k = 0; k < NI * NJ; k++) {
        TU_EXPECT(buf[k] == NCS_FILL_INT, "v[%d] = %d", k, buf[k]);
        TU_EXPECT(sb[k] == (k == NI * NJ - 1 ? 3 : -7), "w[%d] = %d", k, sb[k]);
    }
    NCS_OK(ncs_close(ncid));
    {
        /* only the one chunk of w is allocated */
        hid_t fid = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT), ds;
        ck_assert(fid >= 0);
        ds = H5Dopen2(fid, "v", H5P_DEFAULT);
        ck_assert(ds >= 0);
        ck_assert_uint_eq(H5Dget_storage_size(ds), 0);
        H5Dclose(ds);
        ds = H5Dopen2(fid, "w", H5P_DEFAULT);
        ck_assert(ds >= 0);
        ck_assert_msg(H5Dget_storage_size(ds) > 0 &&
                      H5Dget_storage_size(ds) <= CI * CJ * 2 + 64,
                      "w has %llu bytes stored for one chunk",
                      (unsigned long long)H5Dget_storage_size(ds));
        H5Dclose(ds);
        H5Fclose(fid);
    }
    unlink(path);
}
END_TEST

/* ---- records ------------------------------------------------------------------------ */

static hsize_t dataset_extent0(const char *path, const char *name)
{
    hid_t fid = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT), ds, sp;
    hsize_t dims[8] = {0};
    ck_assert_msg(fid >= 0, "HDF5 cannot open %s", path);
    ds = H5Dopen2(fid, name, H5P_DEFAULT);
    ck_assert_msg(ds >= 0, "no dataset %s", name);
    sp = H5Dget_space(ds);
    H5Sget_simple_extent_dims(sp, dims, NULL);
    H5Sclose(sp);
    H5Dclose(ds);
    H5Fclose(fid);
    return dims[0];
}

/* Appending records one at a time (chunks 3 records deep) grows the record
 * count and the dataset; a second record variable written less far reads
 * fill values up to the record count, before and after reopen. */
START_TEST(test_record_append)
{
    char path[256];
    int ncid, d[2], a, b, row[5], all[12 * 5];
    size_t ch[2] = {3, 2}, n;
    tu_path(path, sizeof path, PROG, "append");
    NCS_OK(ncs_create(path, NCS_CLOBBER | NC4, &ncid));
    NCS_OK(ncs_def_dim(ncid, "t", NCS_UNLIMITED, &d[0]));
    NCS_OK(ncs_def_dim(ncid, "k", 5, &d[1]));
    NCS_OK(ncs_def_var(ncid, "a", NCS_INT, 2, d, &a));
    NCS_OK(ncs_def_var(ncid, "b", NCS_INT, 2, d, &b));
    NCS_OK(ncs_def_var_chunking(ncid, a, NCS_CHUNKED, ch));
    NCS_OK(ncs_enddef(ncid));
    for (size_t r = 0; r < 10; r++) {
        size_t st[2] = {r, 0}, ct[2] = {1, 5};
        for (size_t k = 0; k < 5; k++)
            row[k] = val2(r, k, 0);
        NCS_OK(ncs_put(ncid, a, st, ct, NULL, NULL, NCS_INT, row));
        if (r < 4)
            NCS_OK(ncs_put(ncid, b, st, ct, NULL, NULL, NCS_INT, row));
        NCS_OK(ncs_inq_dimlen(ncid, d[0], &n));
        ck_assert_uint_eq(n, r + 1);
    }
    /* a strided put past the end grows to its last element's record */
    {
        size_t st[2] = {10, 0}, ct[2] = {1, 5};
        ptrdiff_t sd[2] = {3, 1};
        for (size_t k = 0; k < 5; k++)
            row[k] = val2(11, k, 0);
        st[0] = 11;
        NCS_OK(ncs_put(ncid, a, st, ct, sd, NULL, NCS_INT, row));
        NCS_OK(ncs_inq_dimlen(ncid, d[0], &n));
        ck_assert_uint_eq(n, 12);
    }
    for (int pass = 0; pass < 2; pass++) {
        NCS_OK(ncs_get(ncid, a, NULL, NULL, NULL, NULL, NCS_INT, all));
        for (size_t r = 0; r < 12; r++)
            for (size_t k = 0; k < 5; k++) {
                int want = r == 10 ? NCS_FILL_INT : val2(r, k, 0);
                ck_assert_msg(all[r * 5 + k] == want, "pass %d a[%zu][%zu] = %d, expected %d",
                              pass, r, k, all[r * 5 + k], want);
            }
        NCS_OK(ncs_get(ncid, b, NULL, NULL, NULL, NULL, NCS_INT, all));
        for (size_t r = 0; r < 12; r++)
            for (size_t k = 0; k < 5; k++) {
                int want = r < 4 ? val2(r, k, 0) : NCS_FILL_INT;
                ck_assert_msg(all[r * 5 + k] == want, "pass %d b[%zu][%zu] = %d, expected %d",
                              pass, r, k, all[r * 5 + k], want);
            }
        NCS_OK(ncs_close(ncid));
        if (pass == 0) {
            ck_assert_uint_eq(dataset_extent0(path, "a"), 12);
            NCS_OK(ncs_open(path, NCS_NOWRITE, &ncid));
            NCS_OK(ncs_inq_dimlen(ncid, d[0], &n));
            ck_assert_uint_eq(n, 12);
        }
    }
    unlink(path);
}
END_TEST

/* A list of reads at and past the record count, with the status
 * netCDF-C's netCDF-4 code gives each, writable and read-only
 * (tests/diff/diff_errors.c compares such reads with netCDF-C itself).  It
 * differs from its classic code's: at and past the record count a writable
 * file answers NCS_EINVALCOORDS too (classic: NCS_EEDGE), and a strided
 * read that steps past the end fails before reading anything (classic
 * reads the elements that exist).  Where the read succeeds, the chunked
 * back end must read what the classic one reads. */
typedef struct rq {
    const char *what;
    int kind;                    /* 0 get, 1 get1, 2 strided, 3 mapped */
    size_t start[2], count[2];
    ptrdiff_t stride[2];
    int rw, ro;                  /* the status, writable and read-only */
} rq;

static const rq past_reqs[] = {
    {"last record", 0, {2, 0}, {1, 4}, {1, 1}, 0, 0},
    {"first past", 0, {3, 0}, {1, 4}, {1, 1}, NCS_EINVALCOORDS, NCS_EINVALCOORDS},
    {"zero count at end", 0, {3, 0}, {0, 4}, {1, 1}, 0, 0},
    {"zero count past end", 0, {4, 0}, {0, 4}, {1, 1}, NCS_EINVALCOORDS, NCS_EINVALCOORDS},
    {"straddling", 0, {2, 0}, {2, 4}, {1, 1}, NCS_EEDGE, NCS_EEDGE},
    {"far past", 0, {9, 0}, {1, 1}, {1, 1}, NCS_EINVALCOORDS, NCS_EINVALCOORDS},
    {"get1 at end", 1, {3, 0}, {1, 1}, {1, 1}, NCS_EINVALCOORDS, NCS_EINVALCOORDS},
    {"get1 past", 1, {5, 2}, {1, 1}, {1, 1}, NCS_EINVALCOORDS, NCS_EINVALCOORDS},
    {"stride stepping past", 2, {1, 0}, {2, 4}, {2, 1}, NCS_EEDGE, NCS_EEDGE},
    {"stride inside", 2, {0, 0}, {2, 4}, {2, 1}, 0, 0},
    {"stride start past", 2, {4, 0}, {1, 4}, {2, 1}, NCS_EINVALCOORDS, NCS_EINVALCOORDS},
    {"mapped past", 3, {2, 0}, {2, 4}, {1, 1}, NCS_EEDGE, NCS_EEDGE},
    {"mapped at end", 3, {3, 0}, {1, 4}, {1, 1}, NCS_EINVALCOORDS, NCS_EINVALCOORDS},
};

static int do_req(int ncid, int varid, const rq *q, int *buf)
{
    ptrdiff_t im[2] = {4, 1};
    switch (q->kind) {
    case 0: return ncs_get(ncid, varid, q->start, q->count, NULL, NULL, NCS_INT, buf);
    case 1: return ncs_get1(ncid, varid, q->start, NCS_INT, buf);
    case 2: return ncs_get(ncid, varid, q->start, q->count, q->stride, NULL, NCS_INT, buf);
    default: return ncs_get(ncid, varid, q->start, q->count, q->stride, im, NCS_INT, buf);
    }
}

static int make_rec3(const char *path, int cmode, int *varidp)
{
    int ncid, d[2];
    int data[3 * 4];
    size_t st[2] = {0, 0}, ct[2] = {3, 4};
    for (int k = 0; k < 12; k++)
        data[k] = k + 1;
    NCS_OK(ncs_create(path, NCS_CLOBBER | cmode, &ncid));
    NCS_OK(ncs_def_dim(ncid, "t", NCS_UNLIMITED, &d[0]));
    NCS_OK(ncs_def_dim(ncid, "k", 4, &d[1]));
    NCS_OK(ncs_def_var(ncid, "r", NCS_INT, 2, d, varidp));
    NCS_OK(ncs_enddef(ncid));
    NCS_OK(ncs_put(ncid, *varidp, st, ct, NULL, NULL, NCS_INT, data));
    return ncid;
}

START_TEST(test_past_numrecs)
{
    char pc[256], pn[256];
    int nc_c, nc_n, vc, vn;
    tu_path(pc, sizeof pc, PROG, "past_classic");
    tu_path(pn, sizeof pn, PROG, "past_nc4");
    nc_c = make_rec3(pc, 0, &vc);
    nc_n = make_rec3(pn, NC4, &vn);
    for (int ro = 0; ro < 2; ro++) {
        for (size_t i = 0; i < TU_NELEMS(past_reqs); i++) {
            int bc[16], bn[16], untouched[16];
            int sc, sn, want = ro ? past_reqs[i].ro : past_reqs[i].rw;
            memset(bc, 0x11, sizeof bc);
            memset(bn, 0x11, sizeof bn);
            memset(untouched, 0x11, sizeof untouched);
            sc = do_req(nc_c, vc, &past_reqs[i], bc);
            sn = do_req(nc_n, vn, &past_reqs[i], bn);
            ck_assert_msg(sn == want, "%s, %s: chunked %d (%s), netCDF-4 answers %d (%s)",
                          past_reqs[i].what, ro ? "read-only" : "writable", sn,
                          ncs_strerror(sn), want, ncs_strerror(want));
            if (want == NCS_NOERR)
                ck_assert_msg(sc == NCS_NOERR && memcmp(bc, bn, sizeof bc) == 0,
                              "%s, %s: not what the classic back end reads",
                              past_reqs[i].what, ro ? "read-only" : "writable");
            else
                ck_assert_msg(memcmp(bn, untouched, sizeof bn) == 0,
                              "%s, %s: memory written by a failed read",
                              past_reqs[i].what, ro ? "read-only" : "writable");
        }
        NCS_OK(ncs_close(nc_c));
        NCS_OK(ncs_close(nc_n));
        NCS_OK(ncs_open(pc, NCS_NOWRITE, &nc_c));
        NCS_OK(ncs_open(pn, NCS_NOWRITE, &nc_n));
    }
    NCS_OK(ncs_close(nc_c));
    NCS_OK(ncs_close(nc_n));
    /* a write past the end fills the skipped records in both */
    nc_c = make_rec3(pc, 0, &vc);
    nc_n = make_rec3(pn, NC4, &vn);
    {
        size_t idx[2] = {5, 1}, n1, n2;
        int x = 99, bc[6 * 4], bn[6 * 4];
        NCS_OK(ncs_put1(nc_c, vc, idx, NCS_INT, &x));
        NCS_OK(ncs_put1(nc_n, vn, idx, NCS_INT, &x));
        NCS_OK(ncs_inq_dimlen(nc_c, 0, &n1));
        NCS_OK(ncs_inq_dimlen(nc_n, 0, &n2));
        ck_assert_uint_eq(n1, 6);
        ck_assert_uint_eq(n2, 6);
        NCS_OK(ncs_get(nc_c, vc, NULL, NULL, NULL, NULL, NCS_INT, bc));
        NCS_OK(ncs_get(nc_n, vn, NULL, NULL, NULL, NULL, NCS_INT, bn));
        for (int k = 0; k < 24; k++)
            ck_assert_msg(bc[k] == bn[k], "element %d: chunked %d, classic %d", k, bn[k],
                          bc[k]);
    }
    NCS_OK(ncs_close(nc_c));
    NCS_OK(ncs_close(nc_n));
    unlink(pc);
    unlink(pn);
}
END_TEST

/* 1-D variables next to coordinate variables and dimension-only scales
 * (found through DIMENSION_LIST alone) survive a close and reopen. */
START_TEST(test_reopen_1d)
{
    char path[256];
    int ncid, dx, dt, dy, vx, vy, vt, vs, vq, x;
    size_t n;
    tu_path(path, sizeof path, PROG, "reopen1d");
    NCS_OK(ncs_create(path, NCS_CLOBBER | NC4, &ncid));
    NCS_OK(ncs_def_dim(ncid, "x", 3, &dx));
    NCS_OK(ncs_def_dim(ncid, "time", NCS_UNLIMITED, &dt));
    NCS_OK(ncs_def_dim(ncid, "y", 4, &dy));
    NCS_OK(ncs_def_var(ncid, "x", NCS_FLOAT, 1, &dx, &vx));     /* coordinate */
    NCS_OK(ncs_def_var(ncid, "on_x", NCS_INT, 1, &dx, &vy));    /* 1-D on it */
    NCS_OK(ncs_def_var(ncid, "time", NCS_DOUBLE, 1, &dt, &vt)); /* record coordinate */
    NCS_OK(ncs_def_var(ncid, "series", NCS_INT, 1, &dt, &vs));
    NCS_OK(ncs_def_var(ncid, "on_y", NCS_SHORT, 1, &dy, &vq)); /* dimension-only */
    NCS_OK(ncs_enddef(ncid));
    x = 42;
    NCS_OK(ncs_put1(ncid, vy, (size_t[1]){2}, NCS_INT, &x));
    NCS_OK(ncs_put1(ncid, vs, (size_t[1]){1}, NCS_INT, &x));
    NCS_OK(ncs_put1(ncid, vq, (size_t[1]){3}, NCS_INT, &x));
    NCS_OK(ncs_close(ncid));
    NCS_OK(ncs_open(path, NCS_NOWRITE, &ncid));
    NCS_OK(ncs_inq_dimlen(ncid, dt, &n));
    ck_assert_uint_eq(n, 2);
    x = 0;
    NCS_OK(ncs_get1(ncid, vy, (size_t[1]){2}, NCS_INT, &x));
    ck_assert_int_eq(x, 42);
    NCS_OK(ncs_get1(ncid, vs, (size_t[1]){1}, NCS_INT, &x));
    ck_assert_int_eq(x, 42);
    NCS_OK(ncs_get1(ncid, vq, (size_t[1]){3}, NCS_INT, &x));
    ck_assert_int_eq(x, 42);
    NCS_OK(ncs_close(ncid));
    unlink(path);
}
END_TEST

/* ---- storage settings ------------------------------------------------------------ */

static void expect_settings(int ncid, int varid, int storage, const size_t *chunks, int nd,
                            int shuffle, int level, int zstd, int fl, const char *when)
{
    int s = -1, sh = -1, de = -1, lv = -1, z = -1, f = -1;
    size_t got[4] = {0};
    NCS_OK(ncs_inq_var_chunking(ncid, varid, &s, got));
    ck_assert_msg(s == storage, "%s: storage %d, expected %d", when, s, storage);
    for (int d = 0; d < nd && storage == NCS_CHUNKED; d++)
        ck_assert_msg(got[d] == chunks[d], "%s: chunk %d is %zu, expected %zu", when, d,
                      got[d], chunks[d]);
    NCS_OK(ncs_inq_var_deflate(ncid, varid, &sh, &de, &lv));
    NCS_OK(ncs_inq_var_zstd(ncid, varid, &z));
    NCS_OK(ncs_inq_var_fletcher32(ncid, varid, &f));
    ck_assert_msg(sh == shuffle && de == (level > 0) && lv == level && z == zstd && f == fl,
                  "%s: shuffle %d deflate %d level %d zstd %d fletcher32 %d, expected "
                  "%d %d %d %d %d", when, sh, de, lv, z, f, shuffle, level > 0, level, zstd,
                  fl);
}

/* Settings read back the same before enddef, after it and after reopen;
 * the default shape reported before enddef is the one the file gets; a
 * contiguous variable works (through HDF5's own path). */
START_TEST(test_settings_roundtrip)
{
    char path[256];
    int ncid, d[3], va, vb, vc, vd, ve;
    size_t ca[3] = {2, 3, 5}, cb[2] = {4, 7}, dflt[3] = {0}, dflt2[3] = {0}, one[2] = {1, 1};
    int data[6 * 7], back[6 * 7];
    tu_path(path, sizeof path, PROG, "settings");
    NCS_OK(ncs_create(path, NCS_CLOBBER | NC4, &ncid));
    NCS_OK(ncs_def_dim(ncid, "t", NCS_UNLIMITED, &d[0]));
    NCS_OK(ncs_def_dim(ncid, "y", 6, &d[1]));
    NCS_OK(ncs_def_dim(ncid, "x", 7, &d[2]));
    NCS_OK(ncs_def_var(ncid, "a", NCS_FLOAT, 3, d, &va));
    NCS_OK(ncs_def_var(ncid, "b", NCS_SHORT, 2, &d[1], &vb));
    NCS_OK(ncs_def_var(ncid, "c", NCS_DOUBLE, 3, d, &vc));
    NCS_OK(ncs_def_var(ncid, "d", NCS_INT, 2, &d[1], &vd));
    NCS_OK(ncs_def_var(ncid, "e", NCS_BYTE, 2, &d[1], &ve));
    NCS_OK(ncs_def_var_chunking(ncid, va, NCS_CHUNKED, ca));
    NCS_OK(ncs_def_var_deflate(ncid, va, 1, 1, 4));
    NCS_OK(ncs_def_var_fletcher32(ncid, va, 1));
    NCS_OK(ncs_def_var_chunking(ncid, vb, NCS_CHUNKED, cb));
    NCS_OK(ncs_def_var_zstd(ncid, vb, 7));
    NCS_OK(ncs_def_var_deflate(ncid, vb, 1, 0, 0));
    NCS_OK(ncs_def_var_chunking(ncid, vd, NCS_CONTIGUOUS, NULL));
    NCS_OK(ncs_def_var_zstd(ncid, ve, 3));
    NCS_OK(ncs_def_var_zstd(ncid, ve, 0));              /* removed again */
    NCS_OK(ncs_def_var_chunking(ncid, ve, NCS_CHUNKED, one));
    NCS_OK(ncs_inq_var_chunking(ncid, vc, NULL, dflt));
    for (int k = 0; k < 3; k++)
        ck_assert_msg(dflt[k] > 0, "default chunk %d is 0 before enddef", k);
    for (int pass = 0; pass < 3; pass++) {
        const char *when = pass == 0 ? "before enddef" : pass == 1 ? "after enddef" : "after reopen";
        expect_settings(ncid, va, NCS_CHUNKED, ca, 3, 1, 4, 0, 1, when);
        expect_settings(ncid, vb, NCS_CHUNKED, cb, 2, 1, 0, 7, 0, when);
        expect_settings(ncid, vc, NCS_CHUNKED, dflt, 3, 0, 0, 0, 0, when);
        expect_settings(ncid, vd, NCS_CONTIGUOUS, NULL, 2, 0, 0, 0, 0, when);
        expect_settings(ncid, ve, NCS_CHUNKED, one, 2, 0, 0, 0, 0, when);
        NCS_OK(ncs_inq_var_chunking(ncid, vc, NULL, dflt2));
        ck_assert(memcmp(dflt, dflt2, sizeof dflt) == 0);
        if (pass == 0) {
            NCS_OK(ncs_enddef(ncid));
            for (int k = 0; k < 42; k++)
                data[k] = k * 3 - 20;
            NCS_OK(ncs_put(ncid, vd, NULL, NULL, NULL, NULL, NCS_INT, data));
            NCS_OK(ncs_put(ncid, vb, NULL, NULL, NULL, NULL, NCS_INT, data));
        } else if (pass == 1) {
            NCS_OK(ncs_close(ncid));
            NCS_OK(ncs_open(path, NCS_WRITE, &ncid));
        }
        NCS_OK(ncs_get(ncid, vd, NULL, NULL, NULL, NULL, NCS_INT, back));
        ck_assert_mem_eq(back, data, sizeof data);
        NCS_OK(ncs_get(ncid, vb, NULL, NULL, NULL, NULL, NCS_INT, back));
        ck_assert_mem_eq(back, data, sizeof data);
    }
    {
        /* a strided write and read of the contiguous variable */
        size_t st[2] = {1, 0}, ct[2] = {3, 3};
        ptrdiff_t sd[2] = {2, 3};
        int nine[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9}, got[9];
        NCS_OK(ncs_put(ncid, vd, st, ct, sd, NULL, NCS_INT, nine));
        NCS_OK(ncs_get(ncid, vd, st, ct, sd, NULL, NCS_INT, got));
        ck_assert_mem_eq(got, nine, sizeof nine);
        NCS_OK(ncs_get(ncid, vd, NULL, NULL, NULL, NULL, NCS_INT, back));
        ck_assert_int_eq(back[1 * 7 + 0], 1);
        ck_assert_int_eq(back[5 * 7 + 6], 9);
        ck_assert_int_eq(back[3 * 7 + 3], 5);
        ck_assert_int_eq(back[0], data[0]);
    }
    NCS_OK(ncs_close(ncid));
    unlink(path);
}
END_TEST

/* Error codes of the storage calls, as netCDF-C 4.9.0 returns them. */
START_TEST(test_settings_errors)
{
    char path[256], pc[256];
    int ncid, d[4], vs, vr, vf, vb, vc, vg, cl, cv;
    size_t ch[2] = {1, 1}, zero[2] = {0, 1}, six = 6, big[2] = {70000, 70000}, got[2];
    int storage = -1, sh = -1, de = -1, lv = -1, fl = -1;
    tu_path(path, sizeof path, PROG, "errors");
    tu_path(pc, sizeof pc, PROG, "errors_classic");

    /* classic files: every setting is NCS_ENOTNC4; inquiries say contiguous */
    NCS_OK(ncs_create(pc, NCS_CLOBBER, &cl));
    NCS_OK(ncs_def_dim(cl, "d", 5, &d[0]));
    NCS_OK(ncs_def_var(cl, "v", NCS_INT, 1, d, &cv));
    NCS_IS(ncs_def_var_chunking(cl, cv, NCS_CHUNKED, ch), NCS_ENOTNC4);
    NCS_IS(ncs_def_var_chunking(cl, cv, NCS_CONTIGUOUS, NULL), NCS_ENOTNC4);
    NCS_IS(ncs_def_var_deflate(cl, cv, 0, 1, 1), NCS_ENOTNC4);
    NCS_IS(ncs_def_var_fletcher32(cl, cv, 1), NCS_ENOTNC4);
    NCS_IS(ncs_def_var_zstd(cl, cv, 1), NCS_ENOTNC4);
    NCS_OK(ncs_inq_var_chunking(cl, cv, &storage, got));
    ck_assert_int_eq(storage, NCS_CONTIGUOUS);
    NCS_OK(ncs_inq_var_deflate(cl, cv, &sh, &de, &lv));
    ck_assert(sh == 0 && de == 0 && lv == 0);
    NCS_OK(ncs_inq_var_fletcher32(cl, cv, &fl));
    ck_assert_int_eq(fl, 0);
    NCS_OK(ncs_close(cl));
    unlink(pc);

    NCS_OK(ncs_create(path, NCS_CLOBBER | NC4, &ncid));
    NCS_OK(ncs_def_dim(ncid, "t", NCS_UNLIMITED, &d[0]));
    NCS_OK(ncs_def_dim(ncid, "d", 5, &d[1]));
    NCS_OK(ncs_def_dim(ncid, "b0", 70000, &d[2]));
    NCS_OK(ncs_def_dim(ncid, "b1", 70000, &d[3]));
    NCS_OK(ncs_def_var(ncid, "s", NCS_INT, 0, NULL, &vs));
    NCS_OK(ncs_def_var(ncid, "r", NCS_INT, 2, d, &vr));
    NCS_OK(ncs_def_var(ncid, "f", NCS_INT, 1, &d[1], &vf));
    NCS_OK(ncs_def_var(ncid, "big", NCS_INT, 2, &d[2], &vb));
    NCS_OK(ncs_def_var(ncid, "c", NCS_INT, 1, &d[1], &vc));
    /* scalars: contiguous only, no filters */
    NCS_IS(ncs_def_var_chunking(ncid, vs, NCS_CHUNKED, ch), NCS_EINVAL);
    NCS_OK(ncs_def_var_chunking(ncid, vs, NCS_CONTIGUOUS, NULL));
    NCS_IS(ncs_def_var_deflate(ncid, vs, 1, 1, 5), NCS_EINVAL);
    NCS_IS(ncs_def_var_fletcher32(ncid, vs, 1), NCS_EINVAL);
    /* a record variable cannot be contiguous (HDF5 cannot extend it) */
    NCS_IS(ncs_def_var_chunking(ncid, vr, NCS_CONTIGUOUS, NULL), NCS_EINVAL);
    /* chunk sizes: the record dimension takes any positive size */
    NCS_OK(ncs_def_var_chunking(ncid, vr, NCS_CHUNKED, (size_t[2]){8, 1}));
    /* a first size of 0: the default shape, as netCDF-C takes it */
    NCS_OK(ncs_def_var_chunking(ncid, vr, NCS_CHUNKED, zero));
    NCS_OK(ncs_inq_var_chunking(ncid, vr, &storage, got));
    ck_assert_int_eq(storage, NCS_CHUNKED);
    ck_assert_uint_eq(got[0], 1);          /* one record deep, by default */
    /* ... but a 0 after a size is no shape */
    NCS_IS(ncs_def_var_chunking(ncid, vr, NCS_CHUNKED, (size_t[2]){8, 0}), NCS_EBADCHUNK);
    NCS_IS(ncs_def_var_chunking(ncid, vf, NCS_CHUNKED, &six), NCS_EBADCHUNK);
    NCS_IS(ncs_def_var_chunking(ncid, vb, NCS_CHUNKED, big), NCS_EBADCHUNK); /* >= 4 GiB */
    /* no sizes: the default shape, as in netCDF-C */
    NCS_OK(ncs_def_var_chunking(ncid, vf, NCS_CHUNKED, NULL));
    NCS_OK(ncs_inq_var_chunking(ncid, vf, &storage, got));
    ck_assert_int_eq(storage, NCS_CHUNKED);
    ck_assert_uint_eq(got[0], 5);
    NCS_IS(ncs_def_var_chunking(ncid, vf, 7, ch), NCS_EINVAL);
    NCS_IS(ncs_def_var_deflate(ncid, vf, 0, 1, 10), NCS_EINVAL);
    NCS_IS(ncs_def_var_deflate(ncid, vf, 0, 1, -1), NCS_EINVAL);
    NCS_IS(ncs_def_var_zstd(ncid, vf, 23), NCS_EINVAL);
    NCS_IS(ncs_def_var_zstd(ncid, vf, -1), NCS_EINVAL);
    /* a filter on a contiguous variable makes it chunked (netCDF-C) */
    NCS_OK(ncs_def_var_chunking(ncid, vc, NCS_CONTIGUOUS, NULL));
    NCS_OK(ncs_def_var_deflate(ncid, vc, 1, 1, 3));
    NCS_OK(ncs_inq_var_chunking(ncid, vc, &storage, got));
    ck_assert_int_eq(storage, NCS_CHUNKED);
    ck_assert_uint_gt(got[0], 0);
    /* bad ids */
    NCS_IS(ncs_def_var_fletcher32(ncid, 99, 1), NCS_ENOTVAR);
    NCS_IS(ncs_def_var_chunking(ncid, NCS_GLOBAL, NCS_CHUNKED, ch), NCS_ENOTVAR);
    NCS_IS(ncs_inq_var_chunking(ncid, 99, &storage, got), NCS_ENOTVAR);
    NCS_IS(ncs_def_var_fletcher32(ncid + 12345, vf, 1), NCS_EBADID);
    NCS_OK(ncs_enddef(ncid));
    /* after the variable exists in the file: too late, in data mode too */
    NCS_IS(ncs_def_var_chunking(ncid, vf, NCS_CHUNKED, ch), NCS_ELATEDEF);
    NCS_IS(ncs_def_var_deflate(ncid, vf, 0, 1, 1), NCS_ELATEDEF);
    NCS_OK(ncs_redef(ncid));
    NCS_IS(ncs_def_var_chunking(ncid, vf, NCS_CHUNKED, ch), NCS_ELATEDEF);
    NCS_IS(ncs_def_var_deflate(ncid, vf, 0, 1, 1), NCS_ELATEDEF);
    NCS_IS(ncs_def_var_fletcher32(ncid, vf, 1), NCS_ELATEDEF);
    NCS_IS(ncs_def_var_zstd(ncid, vf, 1), NCS_ELATEDEF);
    /* a variable new in this define mode still takes settings */
    NCS_OK(ncs_def_var(ncid, "g", NCS_INT, 1, &d[1], &vg));
    NCS_OK(ncs_def_var_chunking(ncid, vg, NCS_CHUNKED, ch));
    NCS_OK(ncs_enddef(ncid));
    NCS_OK(ncs_inq_var_chunking(ncid, vg, &storage, got));
    ck_assert_int_eq(storage, NCS_CHUNKED);
    ck_assert_uint_eq(got[0], 1);
    NCS_OK(ncs_close(ncid));
    unlink(path);
}
END_TEST

/* ---- contiguous variables in cached blocks ------------------------------------------ */

/* Whether the library's fast paths are on, as lib/api/api_file.c decides. */
static int fastpath_on(void)
{
    const char *e = getenv("NCSLAB_FASTPATH");
    if (e != NULL && (e[0] == '0' || e[0] == '1'))
        return e[0] == '1';
#ifdef NCS_DEBUG
    return 0;
#else
    return 1;
#endif
}

/* A fixed-size variable is contiguous by default; small reads of it are
 * served from blocks in the chunk cache (one miss per block, then hits),
 * and writes of every size, small (through the blocks) and large (through
 * HDF5, past the blocks cached), read back right, before and after a
 * reopen. */
START_TEST(test_contiguous_blocks)
{
    enum { A = 10, B = 20, C = 30, D = 40, N = A * B * C * D };
    char path[256];
    int ncid, dims[4], v, storage = -1;
    size_t lens[4] = {A, B, C, D}, start[4], one[4] = {1, 1, 1, 1};
    unsigned long long hits, misses, ev, br, bw;
    unsigned seed = 12345;
    float *all = malloc(N * sizeof *all), x;
    ck_assert(all != NULL);
    for (int i = 0; i < N; i++)
        all[i] = (float)i;
    tu_path(path, sizeof path, PROG, "blocks");
    NCS_OK(ncs_create(path, NCS_CLOBBER | NC4, &ncid));
    for (int d = 0; d < 4; d++) {
        char name[4] = {(char)('a' + d), 0};
        NCS_OK(ncs_def_dim(ncid, name, lens[d], &dims[d]));
    }
    NCS_OK(ncs_def_var(ncid, "v", NCS_FLOAT, 4, dims, &v));
    NCS_OK(ncs_enddef(ncid));
    NCS_OK(ncs_inq_var_chunking(ncid, v, &storage, NULL));
    ck_assert_int_eq(storage, NCS_CONTIGUOUS);
    NCS_OK(ncs_put(ncid, v, NULL, NULL, NULL, NULL, NCS_FLOAT, all));
    for (int pass = 0; pass < 2; pass++) {
        ncs_reset_cache_stats();
        for (int k = 0; k < 1000; k++) {
            size_t lin = 0;
            seed = seed * 1103515245u + 12345u;
            start[0] = (seed >> 8) % A;
            start[1] = (seed >> 12) % B;
            start[2] = (seed >> 17) % C;
            start[3] = (seed >> 22) % D;
            for (int d = 0; d < 4; d++)
                lin = lin * lens[d] + start[d];
            NCS_OK(ncs_get(ncid, v, start, one, NULL, NULL, NCS_FLOAT, &x));
            ck_assert_msg(x == all[lin], "pass %d: element %zu reads %g", pass, lin, x);
            if (k % 100 == 0) {
                /* a small write through the blocks */
                all[lin] = -(float)k - 1;
                NCS_OK(ncs_put(ncid, v, start, one, NULL, NULL, NCS_FLOAT, &all[lin]));
            }
        }
        NCS_OK(ncs_inq_cache_stats(&hits, &misses, &ev, &br, &bw));
        if (fastpath_on())
            ck_assert_msg(misses <= (unsigned long long)(A * 2) && hits >= 900,
                          "pass %d: %llu hits, %llu misses for 1000 one-element reads", pass,
                          hits, misses);
        else
            ck_assert_msg(hits + misses == 0, "the cache took %llu lookups", hits + misses);
        /* a large write goes past the cached blocks; reads see it */
        for (int i = 0; i < N; i++)
            all[i] = all[i] * 2 + 1;
        NCS_OK(ncs_put(ncid, v, NULL, NULL, NULL, NULL, NCS_FLOAT, all));
        if (pass == 0) {
            NCS_OK(ncs_close(ncid));
            NCS_OK(ncs_open(path, NCS_WRITE, &ncid));
        }
    }
    NCS_OK(ncs_close(ncid));
    NCS_OK(ncs_open(path, NCS_NOWRITE, &ncid));
    {
        float *back = malloc(N * sizeof *back);
        ck_assert(back != NULL);
        NCS_OK(ncs_get(ncid, v, NULL, NULL, NULL, NULL, NCS_FLOAT, back));
        ck_assert(memcmp(back, all, N * sizeof *back) == 0);
        free(back);
    }
    NCS_OK(ncs_close(ncid));
    free(all);
    unlink(path);
}
END_TEST

/* ---- the one-element path's pins ------------------------------------------------- */

/* A row-major ncs_get1 scan through handle ncid, checking generation gen;
 * returns the cache lookups it made. */
static unsigned long long scan_get1(int ncid, int varid, int gen, const char *when)
{
    stats a = get_stats(), b;
    for (size_t i = 0; i < NI; i++)
        for (size_t j = 0; j < NJ; j++) {
            size_t idx[2] = {i, j};
            int x = 0;
            NCS_OK(ncs_get1(ncid, varid, idx, NCS_INT, &x));
            TU_EXPECT(x == val2(i, j, gen), "%s: v[%zu][%zu] = %d, expected %d", when, i, j,
                      x, val2(i, j, gen));
        }
    b = get_stats();
    return b.hits + b.misses - a.hits - a.misses;
}

/* ncs_get1 keeps a row of chunks pinned (chunk_data.c, "Pin slots"): a
 * row-major scan asks the cache once per chunk, not once per chunk per
 * row of elements; puts reach the pinned chunks; with a budget too small
 * for the pins of two handles they let chunks go and every value still
 * reads right, and a budget below one chunk still works. */
START_TEST(test_get1_pins)
{
    char path[256];
    int ncid, ncid2, varid;
    unsigned long long n;
    tu_path(path, sizeof path, PROG, "pins");
    NCS_OK(ncs_set_chunk_cache(16u << 20));
    ncid = make_grid(path, &varid);
    write_columns(ncid, varid, 0);
    n = scan_get1(ncid, varid, 0, "writable, scan 1");
    if (fastpath_on())
        ck_assert_msg(n == NCHUNKS, "a get1 scan of %d chunks made %llu lookups", NCHUNKS, n);
    /* the pinned chunks are the cache's: a put writes into them */
    write_columns(ncid, varid, 1);
    n = scan_get1(ncid, varid, 1, "writable, after a put");
    if (fastpath_on())
        ck_assert_msg(n <= NCHUNKS, "a second scan made %llu lookups", n);
    NCS_OK(ncs_close(ncid));

    NCS_OK(ncs_open(path, NCS_NOWRITE, &ncid));
    NCS_OK(ncs_open(path, NCS_NOWRITE, &ncid2));
    n = scan_get1(ncid, varid, 1, "read-only");
    if (fastpath_on())
        ck_assert_msg(n == NCHUNKS, "a get1 scan of %d chunks made %llu lookups", NCHUNKS, n);
    /* room for 4 chunks' pins a variable (half the budget): a chunk row
     * of 6 shares slots; two handles' pins crowd the cache (beyond 3/4 of
     * it), and their variables give back pins */
    NCS_OK(ncs_set_chunk_cache(8 * CHUNK_BYTES));
    NCS_OK(ncs_close(ncid));
    NCS_OK(ncs_open(path, NCS_NOWRITE, &ncid));
    for (int round = 0; round < 2; round++) {
        n = scan_get1(ncid, varid, 1, "crowded, handle 1");
        ck_assert_msg(n >= NCHUNKS, "%llu lookups", n);
        scan_get1(ncid2, varid, 1, "crowded, handle 2");
    }
    /* the pins left room for other reads: a whole read evicts and loads */
    {
        stats a = get_stats(), b;
        check_rows(ncid, varid, 1, "crowded, rows");
        b = get_stats();
        ck_assert_msg(b.evictions > a.evictions, "no eviction in a read of %d chunks through "
                      "a cache of 8", NCHUNKS);
    }
    NCS_OK(ncs_close(ncid2));
    NCS_OK(ncs_set_chunk_cache(1));
    scan_get1(ncid, varid, 1, "budget of 1 byte");
    NCS_OK(ncs_close(ncid));
    NCS_OK(ncs_set_chunk_cache(16u << 20));
    unlink(path);
}
END_TEST

/* ---- default chunk shapes ---------------------------------------------------------- */

typedef struct shape_case {
    const char *what;
    int type;
    int rank;                    /* with the record dimension first */
    size_t dims[4];              /* dims[0] = records written */
} shape_case;

static const shape_case overhead_cases[] = {
    {"1992 benchmark, 10 records", NCS_FLOAT, 4, {10, 20, 30, 40}},
    {"1992 benchmark, 1 record", NCS_FLOAT, 4, {1, 20, 30, 40}},
    {"1992 benchmark, 3 records", NCS_FLOAT, 4, {3, 20, 30, 40}},
    {"rec x 1000 doubles, 2 records", NCS_DOUBLE, 2, {2, 1000}},
    {"rec x 100 floats, 3 records", NCS_FLOAT, 2, {3, 100}},
    {"rec x 180 x 360 shorts, 2 records", NCS_SHORT, 3, {2, 180, 360}},
    {"rec x 7 x 11 ints, 5 records", NCS_INT, 3, {5, 7, 11}},
};

/* The bytes HDF5 stores for a record variable with few records, in default
 * chunks, are at most 10% more than the data (doc/chunking.md). */
START_TEST(test_default_overhead)
{
    const shape_case *c = &overhead_cases[_i];
    char path[256];
    int ncid, d[4], v;
    size_t nel = 1, esz = tu_size(c->type), ch[4];
    void *buf;
    hsize_t stored;
    tu_path(path, sizeof path, PROG, "overhead");
    NCS_OK(ncs_create(path, NCS_CLOBBER | NC4, &ncid));
    for (int k = 0; k < c->rank; k++) {
        char name[8];
        snprintf(name, sizeof name, "d%d", k);
        NCS_OK(ncs_def_dim(ncid, name, k == 0 ? NCS_UNLIMITED : c->dims[k], &d[k]));
        nel *= c->dims[k];
    }
    NCS_OK(ncs_def_var(ncid, "v", c->type, c->rank, d, &v));
    NCS_OK(ncs_inq_var_chunking(ncid, v, NULL, ch));
    NCS_OK(ncs_enddef(ncid));
    buf = calloc(nel, esz);
    ck_assert(buf != NULL);
    NCS_OK(ncs_put(ncid, v, (size_t[4]){0}, c->dims, NULL, NULL, NCS_NAT, buf));
    NCS_OK(ncs_close(ncid));
    free(buf);
    {
        hid_t fid = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT), ds;
        ck_assert(fid >= 0);
        ds = H5Dopen2(fid, "v", H5P_DEFAULT);
        stored = H5Dget_storage_size(ds);
        H5Dclose(ds);
        H5Fclose(fid);
    }
    ck_assert_msg(stored * 10 <= nel * esz * 11,
                  "%s: default chunks %zu x %zu x %zu x %zu store %llu bytes for %zu "
                  "bytes of data (%.0f%% overhead, limit 10%%)", c->what, ch[0],
                  c->rank > 1 ? ch[1] : 0, c->rank > 2 ? ch[2] : 0,
                  c->rank > 3 ? ch[3] : 0, (unsigned long long)stored, nel * esz,
                  100.0 * ((double)stored / (double)(nel * esz) - 1));
    unlink(path);
}
END_TEST

/* ---- memory while streaming ----------------------------------------------------------- */

/* Peak resident set in KiB (VmHWM), or -1. */
static long peak_kib(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kib = -1;
    if (f == NULL)
        return -1;
    while (fgets(line, sizeof line, f) != NULL)
        if (sscanf(line, "VmHWM: %ld kB", &kib) == 1)
            break;
    fclose(f);
    return kib;
}

static long rss_kib(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kib = -1;
    if (f == NULL)
        return -1;
    while (fgets(line, sizeof line, f) != NULL)
        if (sscanf(line, "VmRSS: %ld kB", &kib) == 1)
            break;
    fclose(f);
    return kib;
}

/* Resets VmHWM to the current RSS (Linux 4.0+); 0 on success. */
static int reset_peak(void)
{
    FILE *f = fopen("/proc/self/clear_refs", "w");
    int ok;
    if (f == NULL)
        return -1;
    ok = fputs("5", f) >= 0;
    return fclose(f) == 0 && ok ? 0 : -1;
}

#define MEM_BUDGET (2u << 20)        /* 2 MiB of decoded chunks */
#define MEM_SLACK_KIB (6 * 1024)     /* HDF5 metadata, allocator, stdio */
/* Under AddressSanitizer every allocation carries shadow memory and freed
 * blocks wait in a quarantine (scripts/sanitize keeps it at 2 MiB): the
 * bound gets that much more room there, and stays a bound. */
#if defined(__SANITIZE_ADDRESS__)
#define SAN_SLACK_KIB 4096
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SAN_SLACK_KIB 4096
#endif
#endif
#ifndef SAN_SLACK_KIB
#define SAN_SLACK_KIB 0
#endif
#define MEM_NI 512                   /* 512 x 4096 floats = 8 MiB = 4 budgets */
#define MEM_NJ 4096

/* In a child process: stream-write, stream-rewrite (reopened, so every
 * chunk is rewritten in place) then stream-read a float variable four
 * times the cache budget, one row at a time (chunks of 64 x 256 floats,
 * 64 KiB, so each row touches 16 chunks and chunks are evicted before
 * they are complete); the peak resident set may not grow by more than the
 * budget plus a small constant.  Returns 0, or a failure code. */
static int stream_child(const char *path, int deflate, char *msg, size_t msgn)
{
    int ncid, v;
    size_t ch[2] = {64, 256};
    static float row[MEM_NJ];
    long base, peak;
    NCS_OK(ncs_set_chunk_cache(MEM_BUDGET));
    /* warm up the library and HDF5 with a small file first */
    ncid = make_float2d(path, MEM_NI, MEM_NJ, ch, deflate, &v);
    {
        size_t st[2] = {0, 0}, ct[2] = {1, MEM_NJ};
        NCS_OK(ncs_put(ncid, v, st, ct, NULL, NULL, NCS_FLOAT, row));
        NCS_OK(ncs_get(ncid, v, st, ct, NULL, NULL, NCS_FLOAT, row));
    }
    if (reset_peak() != 0)
        return 77;
    base = rss_kib();
    for (size_t i = 0; i < MEM_NI; i++) {
        size_t st[2] = {i, 0}, ct[2] = {1, MEM_NJ};
        for (size_t j = 0; j < MEM_NJ; j++)
            row[j] = (float)(i * 8 + j % 8);
        NCS_OK(ncs_put(ncid, v, st, ct, NULL, NULL, NCS_FLOAT, row));
    }
    NCS_OK(ncs_close(ncid));
    /* rewritten in place: chunks the file already holds, which the file
     * driver keeps back until the commit up to the budget (h5_driver.c) */
    NCS_OK(ncs_open(path, NCS_WRITE, &ncid));
    for (size_t i = 0; i < MEM_NI; i++) {
        size_t st[2] = {i, 0}, ct[2] = {1, MEM_NJ};
        for (size_t j = 0; j < MEM_NJ; j++)
            row[j] = (float)(i * 8 + j % 8 + 1);
        NCS_OK(ncs_put(ncid, v, st, ct, NULL, NULL, NCS_FLOAT, row));
    }
    NCS_OK(ncs_close(ncid));
    NCS_OK(ncs_open(path, NCS_NOWRITE, &ncid));
    for (size_t i = 0; i < MEM_NI; i++) {
        size_t st[2] = {i, 0}, ct[2] = {1, MEM_NJ};
        NCS_OK(ncs_get(ncid, v, st, ct, NULL, NULL, NCS_FLOAT, row));
        for (size_t j = 0; j < MEM_NJ; j++)
            if (row[j] != (float)(i * 8 + j % 8 + 1)) {
                snprintf(msg, msgn, "v[%zu][%zu] = %g", i, j, row[j]);
                return 2;
            }
    }
    NCS_OK(ncs_close(ncid));
    peak = peak_kib();
    snprintf(msg, msgn, "peak RSS grew by %ld KiB over %ld KiB (budget %u KiB, slack %d KiB)",
             peak - base, base, MEM_BUDGET / 1024, MEM_SLACK_KIB + SAN_SLACK_KIB);
    /* valgrind's allocator holds freed blocks back: the values were
     * checked, the bound cannot be */
    if (RUNNING_ON_VALGRIND)
        return 0;
    return peak - base <= (long)(MEM_BUDGET / 1024) + MEM_SLACK_KIB + SAN_SLACK_KIB ? 0 : 1;
}

START_TEST(test_memory_bound)
{
    char path[256];
    int fds[2], status = 0;
    char msg[256] = "";
    pid_t pid;
    tu_path(path, sizeof path, PROG, _i ? "memory_deflate" : "memory");
    pid = tu_fork_pipe(fds);
    if (pid == 0) {
        int rc;
        rc = stream_child(path, _i, msg, sizeof msg);
        if (write(fds[1], msg, strlen(msg) + 1) < 0)
            rc = 3;
        _exit(rc);
    }
    if (read(fds[0], msg, sizeof msg - 1) < 0)
        msg[0] = '\0';
    close(fds[0]);
    ck_assert(waitpid(pid, &status, 0) == pid);
    unlink(path);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 77)
        return;                    /* no /proc/self/clear_refs: cannot measure */
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
                  "streaming %s 8 MiB through a 2 MiB cache: %s (child status %d)",
                  _i ? "deflated" : "plain", msg, status);
}
END_TEST

/* ---- the chunk index and the filter ids, as the file records them -------- */

typedef struct listed {
    int n, stop_after;
    size_t origin[NCHUNKS][2];
    unsigned mask[NCHUNKS];
    unsigned long long offset[NCHUNKS], size[NCHUNKS];
} listed;

static int list_chunk(void *arg, const size_t *origin, unsigned mask,
                      unsigned long long offset, unsigned long long size)
{
    listed *l = arg;
    ck_assert_int_lt(l->n, NCHUNKS);
    l->origin[l->n][0] = origin[0];
    l->origin[l->n][1] = origin[1];
    l->mask[l->n] = mask;
    l->offset[l->n] = offset;
    l->size[l->n] = size;
    l->n++;
    return l->n == l->stop_after ? 7 : 0;
}

/* Chunks written (still dirty in the cache, then after a reopen) are
 * listed, each once, on the grid, unfiltered at exactly the chunk's bytes,
 * inside the file and apart; the walk stops with its visitor's value; the
 * pipeline reads back in the order ncslab writes it; a classic file has
 * no filters and no index, its extent the shape. */
START_TEST(test_chunk_index)
{
    char path[256], cpath[256];
    int ncid, varid, vz, d[2], nf = -1, seen[NCHUNKS] = {0};
    unsigned ids[NCS_MAX_FILTERS], params[NCS_MAX_FILTER_PARAMS];
    size_t extent[2] = {0, 0}, ch[2] = {CI, CJ}, np = 0;
    int row[CI * NJ];
    listed l;
    struct stat st;
    tu_path(path, sizeof path, PROG, "index");
    ncid = make_grid(path, &varid);
    /* the first chunk row (rows 0..CI-1) written; the rest never */
    for (size_t k = 0; k < CI * NJ; k++)
        row[k] = (int)k;
    {
        size_t s0[2] = {0, 0}, c0[2] = {CI, NJ};
        NCS_OK(ncs_put(ncid, varid, s0, c0, NULL, NULL, NCS_INT, row));
    }
    memset(&l, 0, sizeof l);
    if (ncs_inq_var_chunks(ncid, varid, extent, list_chunk, &l) == NCS_ENOTBUILT) {
        /* built with HDF5 headers before 1.10.5: no chunk listing */
        printf("%s: this HDF5 cannot list chunks: ncs_inq_var_chunks not tested\n", PROG);
        NCS_OK(ncs_close(ncid));
        unlink(path);
        return;
    }
    memset(&l, 0, sizeof l);
    NCS_IS(ncs_inq_var_chunks(ncid, varid, extent, NULL, NULL), NCS_EINVAL);
    NCS_IS(ncs_inq_var_chunks(ncid, 5, extent, list_chunk, &l), NCS_ENOTVAR);
    NCS_IS(ncs_inq_var_chunks(ncid + 1000, varid, extent, list_chunk, &l), NCS_EBADID);
    NCS_OK(ncs_inq_var_chunks(ncid, varid, extent, list_chunk, &l));
    ck_assert_uint_eq(extent[0], NI);
    ck_assert_uint_eq(extent[1], NJ);
    ck_assert_int_eq(l.n, (NJ + CJ - 1) / CJ);
    NCS_OK(ncs_inq_var_filter_ids(ncid, varid, &nf, ids));
    ck_assert_int_eq(nf, 0);
    NCS_OK(ncs_close(ncid));

    NCS_OK(ncs_open(path, NCS_NOWRITE, &ncid));
    ck_assert_int_eq(stat(path, &st), 0);
    memset(&l, 0, sizeof l);
    NCS_OK(ncs_inq_var_chunks(ncid, varid, NULL, list_chunk, &l));
    ck_assert_int_eq(l.n, (NJ + CJ - 1) / CJ);
    for (int i = 0; i < l.n; i++) {
        size_t gj = l.origin[i][1] / CJ;
        ck_assert_uint_eq(l.origin[i][0], 0);
        ck_assert_uint_eq(l.origin[i][1] % CJ, 0);
        ck_assert_uint_lt(gj, (size_t)NCHUNKS);
        ck_assert_int_eq(seen[gj]++, 0);
        ck_assert_uint_eq(l.mask[i], 0);
        ck_assert_uint_eq(l.size[i], CHUNK_BYTES);
        ck_assert_uint_le(l.offset[i] + l.size[i], (unsigned long long)st.st_size);
        for (int k = 0; k < i; k++)
            ck_assert_msg(l.offset[k] + l.size[k] <= l.offset[i] ||
                          l.offset[i] + l.size[i] <= l.offset[k],
                          "chunks %d and %d overlap", k, i);
    }
    memset(&l, 0, sizeof l);
    l.stop_after = 2;
    NCS_IS(ncs_inq_var_chunks(ncid, varid, NULL, list_chunk, &l), 7);
    ck_assert_int_eq(l.n, 2);
    NCS_OK(ncs_close(ncid));

    /* the pipeline in the file's order; define mode refuses the walk */
    NCS_OK(ncs_create(path, NCS_CLOBBER | NC4, &ncid));
    NCS_OK(ncs_def_dim(ncid, "i", NI, &d[0]));
    NCS_OK(ncs_def_dim(ncid, "j", NJ, &d[1]));
    NCS_OK(ncs_def_var(ncid, "z", NCS_INT, 2, d, &vz));
    NCS_OK(ncs_def_var_chunking(ncid, vz, NCS_CHUNKED, ch));
    NCS_OK(ncs_def_var_deflate(ncid, vz, 1, 1, 2));
    NCS_OK(ncs_def_var_fletcher32(ncid, vz, 1));
    NCS_IS(ncs_inq_var_chunks(ncid, vz, extent, list_chunk, &l), NCS_EINDEFINE);
    /* not laid out yet: the file records no filter */
    NCS_IS(ncs_inq_var_filter_params(ncid, vz, 1, &np, params), NCS_ENOFILTER);
    NCS_OK(ncs_close(ncid));
    /* read-only, by the netCDF-4 reader and by HDF5 */
    for (int by_hdf5 = 0; by_hdf5 < 2; by_hdf5++) {
        if (by_hdf5)
            setenv("NCSLAB_NC4READ", "0", 1);
        NCS_OK(ncs_open(path, NCS_NOWRITE, &ncid));
        NCS_OK(ncs_inq_var_filter_ids(ncid, vz, &nf, ids));
        ck_assert_int_eq(nf, 3);
        ck_assert_uint_eq(ids[0], 2);
        ck_assert_uint_eq(ids[1], 1);
        ck_assert_uint_eq(ids[2], 3);
        /* each filter's parameters as HDF5 stored them: shuffle's element
         * size, deflate's level, none for Fletcher-32 */
        np = 99;
        NCS_OK(ncs_inq_var_filter_params(ncid, vz, 2, &np, params));
        ck_assert_uint_eq(np, 1);
        ck_assert_uint_eq(params[0], 4);
        NCS_OK(ncs_inq_var_filter_params(ncid, vz, 1, &np, NULL));
        ck_assert_uint_eq(np, 1);
        NCS_OK(ncs_inq_var_filter_params(ncid, vz, 1, NULL, params));
        ck_assert_uint_eq(params[0], 2);
        NCS_OK(ncs_inq_var_filter_params(ncid, vz, 3, &np, params));
        ck_assert_uint_eq(np, 0);
        NCS_IS(ncs_inq_var_filter_params(ncid, vz, 4, &np, params), NCS_ENOFILTER);
        NCS_IS(ncs_inq_var_filter_params(ncid, vz + 1, 1, &np, params), NCS_ENOTVAR);
        NCS_IS(ncs_inq_var_filter_params(ncid + 1000, vz, 1, &np, params), NCS_EBADID);
        memset(&l, 0, sizeof l);
        NCS_OK(ncs_inq_var_chunks(ncid, vz, NULL, list_chunk, &l));
        ck_assert_int_eq(l.n, 0);
        NCS_OK(ncs_close(ncid));
        unsetenv("NCSLAB_NC4READ");
    }

    /* a classic file: no filters, no index, the extent its shape */
    tu_path(cpath, sizeof cpath, PROG, "index_classic");
    NCS_OK(ncs_create(cpath, NCS_CLOBBER, &ncid));
    NCS_OK(ncs_def_dim(ncid, "t", NCS_UNLIMITED, &d[0]));
    NCS_OK(ncs_def_dim(ncid, "j", NJ, &d[1]));
    NCS_OK(ncs_def_var(ncid, "r", NCS_INT, 2, d, &varid));
    NCS_OK(ncs_enddef(ncid));
    {
        size_t s0[2] = {2, 0}, c0[2] = {1, NJ};
        NCS_OK(ncs_put(ncid, varid, s0, c0, NULL, NULL, NCS_INT, row));
    }
    memset(&l, 0, sizeof l);
    NCS_OK(ncs_inq_var_chunks(ncid, varid, extent, list_chunk, &l));
    ck_assert_int_eq(l.n, 0);
    ck_assert_uint_eq(extent[0], 3);
    ck_assert_uint_eq(extent[1], NJ);
    nf = -1;
    NCS_OK(ncs_inq_var_filter_ids(ncid, varid, &nf, NULL));
    ck_assert_int_eq(nf, 0);
    NCS_IS(ncs_inq_var_filter_params(ncid, varid, 1, &np, params), NCS_ENOFILTER);
    NCS_OK(ncs_close(ncid));
    unlink(cpath);
    unlink(path);
}
END_TEST

static Suite *chunked_suite(void)
{
    Suite *s = suite_create("chunked");
    TCase *tc = tcase_create("cache");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, test_budgets, 0, (int)TU_NELEMS(budgets));
    tcase_add_test(tc, test_dirty_eviction);
    tcase_add_loop_test(tc, test_encoded_batch, 1, 3);
    tcase_add_test(tc, test_budget_below_chunk);
    tcase_add_test(tc, test_many_files);
    tcase_add_test(tc, test_stats);
    tcase_add_test(tc, test_get1_pins);
    tcase_add_test(tc, test_adaptive_target);
    tcase_add_test(tc, test_fill_chunks);
    tcase_add_loop_test(tc, test_memory_bound, 0, 2);
    suite_add_tcase(s, tc);
    tc = tcase_create("records");
    tcase_add_test(tc, test_record_append);
    tcase_add_test(tc, test_past_numrecs);
    tcase_add_test(tc, test_reopen_1d);
    suite_add_tcase(s, tc);
    tc = tcase_create("settings");
    tcase_add_test(tc, test_settings_roundtrip);
    tcase_add_test(tc, test_settings_errors);
    tcase_add_loop_test(tc, test_default_overhead, 0, (int)TU_NELEMS(overhead_cases));
    tcase_add_test(tc, test_contiguous_blocks);
    tcase_add_test(tc, test_chunk_index);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return tu_run(chunked_suite());
}
