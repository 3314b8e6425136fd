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
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"
#include "crash_util.h"

#define R0          60      /* records before the redefinitions */
#define REDEFS      16      /* redefinitions of the redef writer */
#define REDEF_RECS  3       /* records it appends after each */
#define JOURNAL     "-ncsjournal"

static const crash_layout layouts[] = {
    { "cdf1", 0, 0, 0 },
    { "cdf1-share", NCS_SHARE, 0, 0 },
    { "cdf5", NCS_64BIT_DATA, 0, 0 },
    { "redef-cdf1", 0, 1, 0 },
    { "redef-cdf5", NCS_64BIT_DATA, 1, 0 },
    { "chunked", NCS_NETCDF4 | NCS_CLASSIC_MODEL, 0, 0 },
};
#define NLAYOUTS ((int)(sizeof layouts / sizeof layouts[0]))
#define NCLASSIC 5          /* the layouts run by default, first in the table */

static void make_file(const char *path, const crash_layout *l)
{
    char j[240];
    crash_make_file(path, l->cmode & ~NCS_SHARE, 0, l->redef ? R0 : 0);
    snprintf(j, sizeof j, "%s%s", path, JOURNAL);
    ck_assert(access(j, F_OK) != 0);
}

/* Reports done to the parent, or exits. */
static void report(int fd, uint64_t done)
{
    if (write(fd, &done, sizeof done) != (ssize_t)sizeof done)
        _exit(13);
}

/* The redef writer: never returns.  Reports the number of redefinitions
 * synced, and REDEFS+1 once it has closed the file. */
static void redef_writer(const char *path, int fd)
{
    static double g[NX];
    static char att[64];
    int nc, d[2], v;
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
            g[i] = crash_value(10 + k, 0, i);
        if (ncs_put(nc, v, &zero, &n, NULL, NULL, NCS_DOUBLE, g) != NCS_NOERR ||
            crash_put_block(nc, R0 + (size_t)k * REDEF_RECS, REDEF_RECS) != NCS_NOERR)
            _exit(11);
        if (ncs_sync(nc) != NCS_NOERR)
            _exit(12);
        report(fd, (uint64_t)k + 1);
    }
    if (ncs_close(nc) != NCS_NOERR)
        _exit(14);
    report(fd, REDEFS + 1);
    _exit(0);
}

/* The writer: never returns.  Reports each synced record count (or for
 * the redef layouts redefinition count), and one more than all once it
 * has closed the file. */
static void writer(const char *path, const crash_layout *l, int fd)
{
    if (l->redef)
        redef_writer(path, fd);
    crash_writer(path, l, fd);
}

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
                return CV_VAR_LOST;
            }
            continue;
        }
        s = ncs_get(nc, v, &zero, &n, NULL, NULL, NCS_DOUBLE, g);
        for (size_t i = 0; i < NX; i++) {
            int fill = g[i] == NCS_FILL_INT && (uint64_t)k >= synced;
            if (s == NCS_NOERR && (g[i] == crash_value(10 + k, 0, i) || fill))
                continue;
            snprintf(msg, msz, "%s[%zu] = %.17g (status %d), want %.17g (%llu synced)", name, i,
                     g[i], s, crash_value(10 + k, 0, i), (unsigned long long)synced);
            return (uint64_t)k < synced ? CV_VAR_LOST : CV_VAR_BAD;
        }
    }
    return CV_OK;
}

/* Checks the file a killed writer left (synced: records, or for the redef
 * layouts redefinitions); *fill_tail counts the records of B's last block
 * still holding fill, *hot whether a journal was there to roll back. */
static int check_file(const char *path, const crash_layout *l, uint64_t synced, size_t *nrecp,
                      int *fill_tail, int *hot, char *msg, size_t msz)
{
    int nc, s, verdict = CV_OK, left;
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
        return CV_OPEN_FAILED;
    }
    left = access(j, F_OK) == 0;
    if (l->redef)
        verdict = check_redef_vars(nc, redefs, msg, msz);
    *nrecp = crash_numrecs(nc);
    if (verdict == CV_OK)
        verdict = crash_check_records(nc, *nrecp, synced, maxrec, fill_tail, msg, msz);
    ncs_close(nc);
    if (verdict == CV_OK && left) {
        snprintf(msg, msz, "%s still there", j);
        verdict = CV_JOURNAL_LEFT;
    }
    return verdict;
}

static const crash_ops ops = { make_file, writer, check_file, CV_N };

static const crash_layout *selected[8];
static int nselected;

START_TEST(crash)
{
    const crash_layout *l = selected[_i];
    const char *unkilled = NULL;    /* the appending writer's */
    char what[120];
    int bad;
    if (l->redef) {
        snprintf(what, sizeof what, "makes %d redefinitions (%d records moved at the first, "
                 "%d at the last)", REDEFS, R0, R0 + (REDEFS - 1) * REDEF_RECS);
        unkilled = what;
    }
    bad = crash_kills(l, &ops, l->redef ? REDEFS : MAXREC, unkilled);
    ck_assert_msg(bad == 0, "%s: %d of the kills left a bad file", l->name, bad);
}
END_TEST

int main(int argc, char **argv)
{
    Suite *s = suite_create("crash");
    TCase *tc = tcase_create("sigkill");

    nselected = crash_select(argc, argv, layouts, NLAYOUTS, NCLASSIC, selected, 8);
    if (nselected < 0)
        return 2;
    crash_seed();
    tcase_set_timeout(tc, 300);
    tcase_add_loop_test(tc, crash, 0, nselected);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
