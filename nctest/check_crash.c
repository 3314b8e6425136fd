/*
 * check_crash.c -- SIGKILL a process while it appends records, or while it
 * redefines the file; the file it leaves must open and hold every record
 * its record count covers, and everything a completed sync committed.
 *
 * For each layout (classic CDF-1, CDF-1 with NCS_SHARE, CDF-5, and chunked
 * NCS_NETCDF4|NCS_CLASSIC_MODEL) the parent repeats, NCS_CRASH_KILLS times
 * (default 120):
 *   1. create the file: record variables A(rec, x) int and B(rec) double,
 *      no records, closed;
 *   2. fork a writer that opens it for writing and appends blocks of BLOCK
 *      records: puts A for the block, then B; after every SYNC_EVERY
 *      records it calls ncs_sync and, once that returned 0, writes the
 *      record count to a pipe;
 *   3. after a random delay SIGKILL the writer: uniform in [0, D] with D
 *      the smaller of NCS_CRASH_MAXDELAY_US (default 100000) and the time
 *      an unkilled writer takes (measured first); seeded by NCS_CRASH_SEED,
 *      printed;
 *   4. open the file read-only, which must succeed, and check:
 *        numrecs >= the last count the writer reported (a completed sync
 *        is never undone);
 *        every record below numrecs is intact: A[r][i] and B[r] hold the
 *        values written (value = var*10^7 + r*10^3 + i), because the
 *        record count must never reach the file before the data it
 *        counts.  The one exception: B of the last block may still hold
 *        the fill value, since A's put alone makes those records exist
 *        (a file in a state a live writer could have left, not garbage);
 *        its uses are counted and printed.
 * The redef layouts (redef-cdf1, redef-cdf5) start from R0 records and a
 * writer that, REDEFS times: redefines the file adding a fixed variable
 * Vk(x) and a global attribute (the header grows: every byte of data moves,
 * under the journal), writes Vk and REDEF_RECS more records, syncs and
 * reports the number of redefinitions synced.  After the kill the open
 * rolls back any journal left (counted and printed) and, besides the
 * record checks above, every Vk of a synced redefinition must hold its
 * values, any later one its values or fill values, and no journal may be
 * left.
 * The verdicts are counted by kind and printed; the test fails on any.
 *
 * Usage: check_crash [layout...]; no arguments runs the classic layouts.
 * The chunked layout is run by its own test (check_crash chunked)
 * because HDF5, underneath, gives its own guarantees; see doc/reliability.md.
 * A file that fails verification is kept as crash-fail-<layout>-<n>.nc.
 */
#include <check.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ncslab.h"

#define NX          700     /* A's record: 2800 bytes */
#define BLOCK       3       /* records per put */
#define SYNC_EVERY  30      /* records between syncs */
#define MAXREC      1200    /* the writer stops (and closes) here */
#define R0          60      /* records before the redefinitions */
#define REDEFS      16      /* redefinitions of the redef writer */
#define REDEF_RECS  3       /* records it appends after each */
#define JOURNAL     "-ncsjournal"

typedef struct layout {
    const char *name;
    int cmode;
    int redef;              /* the writer redefines the file */
} layout;

static const layout layouts[] = {
    { "cdf1", 0, 0 },
    { "cdf1-share", NCS_SHARE, 0 },
    { "cdf5", NCS_64BIT_DATA, 0 },
    { "redef-cdf1", 0, 1 },
    { "redef-cdf5", NCS_64BIT_DATA, 1 },
    { "chunked", NCS_NETCDF4 | NCS_CLASSIC_MODEL, 0 },
};
#define NCLASSIC 5          /* the layouts run by default, first in the table */

static double value(int var, size_t rec, size_t i)
{
    return var * 1e7 + (double)rec * 1e3 + (double)i;
}

static unsigned long long env_ull(const char *name, unsigned long long dflt)
{
    const char *e = getenv(name);
    return e != NULL && *e != '\0' ? strtoull(e, NULL, 10) : dflt;
}

static unsigned long long rng_state;
static unsigned long long rng(void)
{
    rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return rng_state >> 33;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Puts A and B of records [r, r + n) (n <= BLOCK). */
static int put_block(int nc, size_t r, size_t n)
{
    static double a[BLOCK * NX], b[BLOCK];
    size_t st[2] = { r, 0 }, ct[2] = { n, NX };
    int s;
    for (size_t k = 0; k < n; k++) {
        for (size_t i = 0; i < NX; i++)
            a[k * NX + i] = value(1, r + k, i);
        b[k] = value(2, r + k, 0);
    }
    s = ncs_put(nc, 0, st, ct, NULL, NULL, NCS_DOUBLE, a);
    return s != NCS_NOERR ? s : ncs_put(nc, 1, st, ct, NULL, NULL, NCS_DOUBLE, b);
}

static void make_file(const char *path, const layout *l)
{
    char j[240];
    int nc, d[2], v;
    int s = ncs_create(path, (l->cmode & ~NCS_SHARE) | NCS_CLOBBER, &nc);
    ck_assert_msg(s == NCS_NOERR, "create %s: %s", path, ncs_strerror(s));
    ck_assert(ncs_def_dim(nc, "rec", NCS_UNLIMITED, &d[0]) == NCS_NOERR);
    ck_assert(ncs_def_dim(nc, "x", NX, &d[1]) == NCS_NOERR);
    ck_assert(ncs_def_var(nc, "A", NCS_INT, 2, d, &v) == NCS_NOERR);
    ck_assert(ncs_def_var(nc, "B", NCS_DOUBLE, 1, d, &v) == NCS_NOERR);
    ck_assert(ncs_enddef(nc) == NCS_NOERR);
    for (size_t r = 0; l->redef && r < R0; r += BLOCK)
        ck_assert(put_block(nc, r, BLOCK) == NCS_NOERR);
    ck_assert(ncs_close(nc) == NCS_NOERR);
    snprintf(j, sizeof j, "%s%s", path, JOURNAL);
    ck_assert(access(j, F_OK) != 0);
}

/* The redef writer: never returns.  Reports the number of redefinitions
 * synced, and REDEFS+1 once it has closed the file. */
static void redef_writer(const char *path, int fd)
{
    static double g[NX];
    static char att[64];
    int nc, d[2], v;
    uint64_t done;
    memset(att, 'a', sizeof att);
    if (ncs_open(path, NCS_WRITE, &nc) != NCS_NOERR)
        _exit(10);
    ncs_inq_dimid(nc, "rec", &d[0]);
    ncs_inq_dimid(nc, "x", &d[1]);
    for (int k = 0; k < REDEFS; k++) {
        char name[16];
        size_t zero = 0, n = NX;
        snprintf(name, sizeof name, "V%d", k);
        if (ncs_redef(nc) != NCS_NOERR || ncs_def_var(nc, name, NCS_INT, 1, &d[1], &v) ||
            ncs_put_att(nc, NCS_GLOBAL, name, NCS_CHAR, sizeof att, NCS_CHAR, att) ||
            ncs_enddef(nc) != NCS_NOERR)
            _exit(11);
        for (size_t i = 0; i < NX; i++)
            g[i] = value(10 + k, 0, i);
        if (ncs_put(nc, v, &zero, &n, NULL, NULL, NCS_DOUBLE, g) != NCS_NOERR ||
            put_block(nc, R0 + (size_t)k * REDEF_RECS, REDEF_RECS) != NCS_NOERR)
            _exit(11);
        if (ncs_sync(nc) != NCS_NOERR)
            _exit(12);
        done = (uint64_t)k + 1;
        if (write(fd, &done, sizeof done) != (ssize_t)sizeof done)
            _exit(13);
    }
    if (ncs_close(nc) != NCS_NOERR)
        _exit(14);
    done = REDEFS + 1;
    if (write(fd, &done, sizeof done) != (ssize_t)sizeof done)
        _exit(13);
    _exit(0);
}

/* The writer: never returns.  Reports each synced record count, and
 * MAXREC+1 once it has closed the file. */
static void writer(const char *path, const layout *l, int fd)
{
    int nc, s;
    uint64_t done;
    if (l->redef)
        redef_writer(path, fd);
    s = ncs_open(path, NCS_WRITE | (l->cmode & NCS_SHARE), &nc);
    if (s != NCS_NOERR)
        _exit(10);
    for (size_t r = 0; r < MAXREC; r += BLOCK) {
        if (put_block(nc, r, BLOCK) != NCS_NOERR)
            _exit(11);
        if ((r + BLOCK) % SYNC_EVERY == 0) {
            if (ncs_sync(nc) != NCS_NOERR)
                _exit(12);
            done = r + BLOCK;
            if (write(fd, &done, sizeof done) != (ssize_t)sizeof done)
                _exit(13);
        }
    }
    if (ncs_close(nc) != NCS_NOERR)
        _exit(14);
    done = MAXREC + 1;
    if (write(fd, &done, sizeof done) != (ssize_t)sizeof done)
        _exit(13);
    _exit(0);
}

/* Kinds of verdict. */
enum { OK, OPEN_FAILED, SYNCED_LOST, SYNCED_BAD, BAD_RECORD, UNREADABLE, TOO_MANY, VAR_LOST,
       VAR_BAD, JOURNAL_LEFT, NVERDICTS };
static const char *const verdict_name[NVERDICTS] = {
    "ok", "open failed", "numrecs below a completed sync", "synced record not intact",
    "unsynced record within numrecs not intact", "record within numrecs unreadable",
    "numrecs past records written", "variable of a synced redefinition lost or wrong",
    "variable of an unsynced redefinition neither values nor fill",
    "journal left after the open",
};

/* The redef layouts: every Vk of the first 'synced' redefinitions holds
 * its values, any later Vk its values or fill values. */
static int check_redef_vars(int nc, uint64_t synced, char *msg, size_t msz)
{
    static double g[NX];
    for (int k = 0; k < REDEFS; k++) {
        char name[16];
        size_t zero = 0, n = NX;
        int v, s;
        snprintf(name, sizeof name, "V%d", k);
        if (ncs_inq_varid(nc, name, &v) != NCS_NOERR) {
            if ((uint64_t)k < synced) {
                snprintf(msg, msz, "%s missing (%llu synced)", name, (unsigned long long)synced);
                return VAR_LOST;
            }
            continue;
        }
        s = ncs_get(nc, v, &zero, &n, NULL, NULL, NCS_DOUBLE, g);
        for (size_t i = 0; i < NX; i++) {
            int fill = g[i] == NCS_FILL_INT && (uint64_t)k >= synced;
            if (s == NCS_NOERR && (g[i] == value(10 + k, 0, i) || fill))
                continue;
            snprintf(msg, msz, "%s[%zu] = %.17g (status %d), want %.17g (%llu synced)", name, i,
                     g[i], s, value(10 + k, 0, i), (unsigned long long)synced);
            return (uint64_t)k < synced ? VAR_LOST : VAR_BAD;
        }
    }
    return OK;
}

/* Checks the file a killed writer left (synced: records, or for the redef
 * layouts redefinitions); *fill_tail counts the records of B's last block
 * still holding fill, *hot whether a journal was there to roll back. */
static int check_file(const char *path, const layout *l, uint64_t synced, size_t *nrecp,
                      int *fill_tail, int *hot, char *msg, size_t msz)
{
    static double a[NX];
    int nc, s, dimid, verdict = OK, left;
    size_t nrec = 0;
    uint64_t redefs = synced;
    size_t maxrec = l->redef ? R0 + REDEFS * REDEF_RECS : MAXREC;
    char j[240];

    *fill_tail = 0;
    snprintf(j, sizeof j, "%s%s", path, JOURNAL);
    *hot = access(j, F_OK) == 0;
    if (l->redef)
        synced = R0 + redefs * REDEF_RECS;
    s = ncs_open(path, NCS_NOWRITE, &nc);
    if (s != NCS_NOERR) {
        snprintf(msg, msz, "open: %d (%s)", s, ncs_strerror(s));
        return OPEN_FAILED;
    }
    left = access(j, F_OK) == 0;
    if (l->redef)
        verdict = check_redef_vars(nc, redefs, msg, msz);
    ncs_inq_dimid(nc, "rec", &dimid);
    ncs_inq_dimlen(nc, dimid, &nrec);
    *nrecp = nrec;
    if (verdict == OK && nrec < synced) {
        snprintf(msg, msz, "numrecs %zu < synced %llu", nrec, (unsigned long long)synced);
        verdict = SYNCED_LOST;
    } else if (verdict == OK && nrec > maxrec) {
        snprintf(msg, msz, "numrecs %zu", nrec);
        verdict = TOO_MANY;
    }
    for (size_t r = 0; r < nrec && r < maxrec && verdict == OK; r++) {
        size_t st[2] = { r, 0 }, ct[2] = { 1, NX };
        double bv;
        s = ncs_get(nc, 0, st, ct, NULL, NULL, NCS_DOUBLE, a);
        if (s == NCS_NOERR)
            s = ncs_get(nc, 1, st, ct, NULL, NULL, NCS_DOUBLE, &bv);
        if (s != NCS_NOERR) {
            snprintf(msg, msz, "record %zu of %zu (synced %llu): %d (%s)", r, nrec,
                     (unsigned long long)synced, s, ncs_strerror(s));
            verdict = UNREADABLE;
            break;
        }
        for (size_t i = 0; i < NX; i++)
            if (a[i] != value(1, r, i)) {
                snprintf(msg, msz, "A[%zu][%zu] = %.17g, want %.17g (numrecs %zu, synced %llu)",
                         r, i, a[i], value(1, r, i), nrec, (unsigned long long)synced);
                verdict = r < synced ? SYNCED_BAD : BAD_RECORD;
                break;
            }
        if (verdict == OK && bv != value(2, r, 0)) {
            if (bv == NCS_FILL_DOUBLE && r + BLOCK >= nrec && r >= synced) {
                ++*fill_tail;
            } else {
                snprintf(msg, msz, "B[%zu] = %.17g, want %.17g (numrecs %zu, synced %llu)", r,
                         bv, value(2, r, 0), nrec, (unsigned long long)synced);
                verdict = r < synced ? SYNCED_BAD : BAD_RECORD;
            }
        }
    }
    ncs_close(nc);
    if (verdict == OK && left) {
        snprintf(msg, msz, "%s still there", j);
        verdict = JOURNAL_LEFT;
    }
    return verdict;
}

/* Runs the kills for one layout; returns the number of bad outcomes. */
static int crash_layout(const layout *l)
{
    unsigned long long kills = env_ull("NCS_CRASH_KILLS", 120);
    unsigned long long maxdelay = env_ull("NCS_CRASH_MAXDELAY_US", 100000);
    int counts[NVERDICTS] = { 0 }, bad = 0, mid = 0, before_sync = 0, fill_tails = 0, hots = 0;
    uint64_t total = l->redef ? REDEFS : MAXREC;   /* what the writer reports when done */
    size_t nrec_sum = 0;
    double t0 = now();
    char path[200];

    snprintf(path, sizeof path, "ut_crash_%s_%ld.nc", l->name, (long)getpid());
    {
        /* calibration: an unkilled writer's whole run bounds the delay, so
         * the kills land while it appends */
        int fd[2], wst;
        double t1, full;
        pid_t pid;
        make_file(path, l);
        ck_assert(pipe(fd) == 0);
        t1 = now();
        pid = fork();
        ck_assert(pid >= 0);
        if (pid == 0) {
            close(fd[0]);
            writer(path, l, fd[1]);
        }
        close(fd[1]);
        waitpid(pid, &wst, 0);
        close(fd[0]);
        full = now() - t1;
        ck_assert_msg(WIFEXITED(wst) && WEXITSTATUS(wst) == 0, "%s: writer failed", l->name);
        if (full * 1e6 < (double)maxdelay)
            maxdelay = (unsigned long long)(full * 1e6);
        if (l->redef)
            printf("%s: an unkilled writer makes %d redefinitions (%d records moved at the "
                   "first, %d at the last) in %.3f s\n", l->name, REDEFS, R0,
                   R0 + (REDEFS - 1) * REDEF_RECS, full);
        else
            printf("%s: an unkilled writer appends %d records in %.3f s\n", l->name, MAXREC,
                   full);
    }
    for (unsigned long long k = 0; k < kills; k++) {
        unsigned long long delay = maxdelay ? rng() % (maxdelay + 1) : 0;
        uint64_t synced = 0, v;
        int fd[2], wst, verdict, fill_tail = 0, hot = 0;
        size_t nrec = 0;
        char msg[300] = "";
        pid_t pid;

        make_file(path, l);
        ck_assert(pipe(fd) == 0);
        pid = fork();
        ck_assert(pid >= 0);
        if (pid == 0) {
            close(fd[0]);
            writer(path, l, fd[1]);
        }
        close(fd[1]);
        usleep((useconds_t)delay);
        kill(pid, SIGKILL);
        waitpid(pid, &wst, 0);
        while (read(fd[0], &v, sizeof v) == (ssize_t)sizeof v)
            synced = v;
        close(fd[0]);
        if (WIFEXITED(wst) && WEXITSTATUS(wst) != 0)
            ck_abort_msg("%s: writer failed with exit code %d", l->name, WEXITSTATUS(wst));
        if (synced <= total)
            mid++;
        if (synced == 0)
            before_sync++;
        if (synced > total)
            synced = total;
        verdict = check_file(path, l, synced, &nrec, &fill_tail, &hot, msg, sizeof msg);
        counts[verdict]++;
        nrec_sum += nrec;
        fill_tails += fill_tail != 0;
        hots += hot;
        if (verdict != OK) {
            char keep[240];
            snprintf(keep, sizeof keep, "crash-fail-%s-%llu.nc", l->name, k);
            rename(path, keep);
            if (bad++ < 10)
                printf("  FAIL %s kill %llu after %llu us: %s: %s (kept as %s)\n", l->name, k,
                       delay, verdict_name[verdict], msg, keep);
        }
    }
    unlink(path);
    printf("%s: %llu kills in %.1f s (delay 0-%llu us), %d mid-%s (%d before the first "
           "sync), mean numrecs %.0f, B fill in the last block %d times", l->name, kills,
           now() - t0, maxdelay, mid, l->redef ? "redefinitions" : "append", before_sync,
           kills ? (double)nrec_sum / kills : 0.0, fill_tails);
    if (l->redef)
        printf(", journal rolled back at the open %d times", hots);
    printf(" |");
    for (int i = 0; i < NVERDICTS; i++)
        printf(" %s %d%s", verdict_name[i], counts[i], i + 1 < NVERDICTS ? "," : "\n");
    fflush(stdout);
    return bad;
}

static const layout *selected[8];
static int nselected;

START_TEST(crash)
{
    const layout *l = selected[_i];
    int bad = crash_layout(l);
    ck_assert_msg(bad == 0, "%s: %d of the kills left a bad file", l->name, bad);
}
END_TEST

int main(int argc, char **argv)
{
    Suite *s = suite_create("crash");
    TCase *tc = tcase_create("sigkill");
    SRunner *sr;
    int nfail;

    for (int i = 1; i < argc && nselected < 8; i++)
        for (size_t j = 0; j < sizeof layouts / sizeof layouts[0]; j++)
            if (strcmp(argv[i], layouts[j].name) == 0)
                selected[nselected++] = &layouts[j];
    if (argc > 1 && nselected != argc - 1) {
        fprintf(stderr, "usage: %s [cdf1|cdf1-share|cdf5|redef-cdf1|redef-cdf5|chunked]...\n",
                argv[0]);
        return 2;
    }
    if (nselected == 0)
        for (int j = 0; j < NCLASSIC; j++)
            selected[nselected++] = &layouts[j];
    rng_state = env_ull("NCS_CRASH_SEED", (unsigned long long)time(NULL) ^ (unsigned)getpid());
    printf("check_crash: NCS_CRASH_SEED=%llu\n", rng_state);
    fflush(stdout);
    tcase_set_timeout(tc, 300);
    tcase_add_loop_test(tc, crash, 0, nselected);
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    nfail = srunner_ntests_failed(sr);
    srunner_free(sr);
    return nfail == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
