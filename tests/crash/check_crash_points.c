/*
 * check_crash_points.c -- SIGKILL a process while it appends records; the file it
 * leaves must open and hold every record its record count covers.
 *
 * For each layout (classic CDF-1, CDF-1 with NCS_SHARE, CDF-5, and chunked
 * NCS_NETCDF4|NCS_CLASSIC_MODEL, plain and with shuffle+deflate) the parent
 * repeats, NCS_CRASH_KILLS times (default 120):
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
 * The verdicts are counted by kind and printed; the test fails on any.
 *
 * A second case, "points", replaces the clock by the fault-injecting byte
 * I/O: every write and size change of a shorter writer is in turn the
 * moment of death (see "crash points" below).
 *
 * Usage: check_crash_points [layout...] (cdf1, cdf1-share, cdf5, chunked,
 * chunked-deflate); no arguments runs the SIGKILLs for the chunked layouts
 * (check_crash runs them for the classic ones) and the crash points for all
 * five.  CK_RUN_CASE=sigkill or =points runs one case.
 * A file that fails verification is kept as crash-fail-<layout>-<n>.nc
 * (crash-fail-<layout>-<kind>-<n>.nc for a crash point).  What the test
 * promises and its measured results: doc/reliability.md.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"
#include "io_fault.h"
#include "crash_util.h"

static const crash_layout layouts[] = {
    { "cdf1", 0, 0, 0 },
    { "cdf1-share", NCS_SHARE, 0, 0 },
    { "cdf5", NCS_64BIT_DATA, 0, 0 },
    { "chunked", NCS_NETCDF4 | NCS_CLASSIC_MODEL, 0, 0 },
    /* B's chunk changes size at every sync, so HDF5 frees its old space,
     * which the committed state still uses, and may reuse it at once */
    { "chunked-deflate", NCS_NETCDF4 | NCS_CLASSIC_MODEL, 0, 1 },
};
#define NLAYOUTS ((int)(sizeof layouts / sizeof layouts[0]))

static void make_file(const char *path, const crash_layout *l)
{
    crash_make_file(path, l->cmode, l->deflate, 0);
}

/* Checks the file a killed writer left; *fill_tail counts the records of
 * B's last block still holding fill. */
static int check_file(const char *path, uint64_t synced, size_t *nrecp, int *fill_tail,
                      char *msg, size_t msz)
{
    int nc, s, verdict;

    *fill_tail = 0;
    s = ncs_open(path, NCS_NOWRITE, &nc);
    if (s != NCS_NOERR) {
        snprintf(msg, msz, "open: %d (%s)", s, ncs_strerror(s));
        return CV_OPEN_FAILED;
    }
    *nrecp = crash_numrecs(nc);
    verdict = crash_check_records(nc, *nrecp, synced, MAXREC, fill_tail, msg, msz);
    ncs_close(nc);
    return verdict;
}

/* check_file for the SIGKILLs: no journal of a redefinition to count. */
static int kill_check(const char *path, const crash_layout *l, uint64_t synced, size_t *nrecp,
                      int *fill_tail, int *hot, char *msg, size_t msz)
{
    (void)l;
    *hot = 0;
    return check_file(path, synced, nrecp, fill_tail, msg, msz);
}

static const crash_ops ops = { make_file, crash_writer, kill_check, CV_NRECORDS };

/* ---- crash points -----------------------------------------------------------
 * The SIGKILLs (crash_kills) land where the clock puts them.  Here every
 * write (torn at the page boundary nearest its middle, as a killed process's
 * write ends; not at all when it lies within a page) and every change of the
 * file's size made by a shorter writer is in turn the moment of death: the
 * fault-injecting byte I/O (tests/support/io_fault.c, which both back ends open their
 * files through) fails the Nth operation of the kind and, at that moment,
 * copies the file -- what a process killed then leaves behind.  Each copy
 * must pass check_file against the last sync completed before the fault,
 * and again after it was opened for writing and closed (which applies what
 * a chunked file's journal holds, h5_driver.c). */
#define POINT_RECS 150      /* 5 syncs; more chunks than one B-tree node holds */

static int point_fd = -1;
static char point_snap[240];

/* Copies a file with system calls only. */
static void copy_file(const char *from, const char *to)
{
    char b[8192];
    ssize_t k;
    int in = open(from, O_RDONLY), out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    while (in >= 0 && out >= 0 && (k = read(in, b, sizeof b)) > 0)
        if (write(out, b, (size_t)k) != k)
            break;
    if (in >= 0)
        close(in);
    if (out >= 0)
        close(out);
}

static void point_fire(void *arg, const char *path)
{
    uint64_t synced = crash_synced_now;
    (void)arg;
    copy_file(path, point_snap);
    if (write(point_fd, &synced, sizeof synced) != (ssize_t)sizeof synced)
        _exit(13);
}

/* Runs the short writer in a child, the nth operation of kind failing (0:
 * none, counting only).  Returns 1 when the fault fired, with the synced
 * count of that moment; for nth 0, counts[] gets the operations of each
 * kind. */
static int run_point(const char *path, const crash_layout *l, int kind, unsigned long long nth,
                     uint64_t *synced, unsigned long long *counts)
{
    int fd[2], wst, fired = 0;
    pid_t pid;
    make_file(path, l);
    pid = tu_fork_pipe(fd);
    if (pid == 0) {
        ncsi_fault_plan p;
        int code;
        memset(&p, 0, sizeof p);
        p.kind = kind;
        p.nth = nth;
        p.status = EIO;
        p.torn = kind == NCSI_FAULT_WRITE;
        p.tear_at = 4096;
        p.on_fire = point_fire;
        point_fd = fd[1];
        ncsi_fault_io_install_plan(&p);
        code = crash_write_records(path, NCS_WRITE | (l->cmode & NCS_SHARE), -1, POINT_RECS);
        if (nth == 0) {
            unsigned long long c[NCSI_FAULT_NKINDS];
            for (int k = 0; k < NCSI_FAULT_NKINDS; k++)
                c[k] = ncsi_fault_io_count(k);
            if (write(fd[1], c, sizeof c) != (ssize_t)sizeof c)
                code = 13;
        }
        _exit(nth == 0 ? code : 0);
    }
    if (nth == 0) {
        ck_assert(read(fd[0], counts, NCSI_FAULT_NKINDS * sizeof *counts) ==
                  (ssize_t)(NCSI_FAULT_NKINDS * sizeof *counts));
    } else {
        fired = read(fd[0], synced, sizeof *synced) == (ssize_t)sizeof *synced;
    }
    close(fd[0]);
    waitpid(pid, &wst, 0);
    ck_assert_msg(WIFEXITED(wst) && WEXITSTATUS(wst) == 0, "%s: crash-point writer failed (%d)",
                  l->name, WIFEXITED(wst) ? WEXITSTATUS(wst) : -1);
    return fired;
}

/* Every crash point of one layout; returns the number of bad copies. */
static int crash_points(const crash_layout *l)
{
    static const int kinds[] = { NCSI_FAULT_WRITE, NCSI_FAULT_SET_SIZE };
    static const char *const kind_name[] = { "write", "set_size" };
    unsigned long long counts[NCSI_FAULT_NKINDS];
    int verdicts[CV_NRECORDS] = { 0 }, bad = 0, points = 0;
    double t0 = crash_now();
    char path[200];

    snprintf(path, sizeof path, "ut_crash_%s_%ld.nc", l->name, (long)getpid());
    snprintf(point_snap, sizeof point_snap, "ut_crash_%s_%ld.snap.nc", l->name, (long)getpid());
    run_point(path, l, NCSI_FAULT_WRITE, 0, NULL, counts);
    for (int k = 0; k < 2; k++) {
        for (unsigned long long n = 1; n <= counts[kinds[k]]; n++) {
            uint64_t synced = 0;
            size_t nrec;
            int fill_tail, verdict;
            char msg[300] = "";
            unlink(point_snap);
            if (!run_point(path, l, kinds[k], n, &synced, counts))
                continue;
            points++;
            if (synced > MAXREC)
                synced = POINT_RECS;
            verdict = check_file(point_snap, synced, &nrec, &fill_tail, msg, sizeof msg);
            if (verdict == CV_OK) {
                /* opened for writing, the file is repaired for good (a
                 * chunked file's pending journal applied), and stays so */
                size_t nrec2 = 0;
                int nc, s = ncs_open(point_snap, NCS_WRITE, &nc);
                if (s == NCS_NOERR)
                    s = ncs_close(nc);
                if (s != NCS_NOERR) {
                    snprintf(msg, sizeof msg, "reopen for writing: %d (%s)", s, ncs_strerror(s));
                    verdict = CV_OPEN_FAILED;
                } else {
                    verdict = check_file(point_snap, synced, &nrec2, &fill_tail, msg, sizeof msg);
                    if (verdict == CV_OK && nrec2 != nrec) {
                        snprintf(msg, sizeof msg, "numrecs %zu after reopening, %zu before", nrec2,
                                 nrec);
                        verdict = CV_BAD_RECORD;
                    }
                }
            }
            verdicts[verdict]++;
            if (verdict != CV_OK) {
                char keep[240];
                snprintf(keep, sizeof keep, "crash-fail-%s-%s-%llu.nc", l->name, kind_name[k], n);
                rename(point_snap, keep);
                if (bad++ < 10)
                    printf("  FAIL %s %s %llu of %llu: %s: %s (kept as %s)\n", l->name,
                           kind_name[k], n, counts[kinds[k]], crash_verdict_name[verdict], msg,
                           keep);
            }
        }
    }
    unlink(point_snap);
    unlink(path);
    printf("%s: crash points: %d (%llu writes, torn; %llu size changes) in %.1f s |", l->name,
           points, counts[NCSI_FAULT_WRITE], counts[NCSI_FAULT_SET_SIZE], crash_now() - t0);
    crash_print_verdicts(verdicts, CV_NRECORDS);
    fflush(stdout);
    return bad;
}

static const crash_layout *selected[8], *killed[8];
static int nselected, nkill;

START_TEST(crash)
{
    const crash_layout *l = killed[_i];
    int bad = crash_kills(l, &ops, MAXREC, NULL);
    ck_assert_msg(bad == 0, "%s: %d of the kills left a bad file", l->name, bad);
}
END_TEST

START_TEST(points)
{
    const crash_layout *l = selected[_i];
    int bad = crash_points(l);
    ck_assert_msg(bad == 0, "%s: %d of the crash points left a bad file", l->name, bad);
}
END_TEST

int main(int argc, char **argv)
{
    Suite *s = suite_create("crash");
    TCase *tc = tcase_create("sigkill");

    nselected = crash_select(argc, argv, layouts, NLAYOUTS, NLAYOUTS, selected, 8);
    if (nselected < 0)
        return 2;
    /* Without arguments the SIGKILLs run for the chunked layout only:
     * check_crash runs them for the classic ones. */
    nkill = 0;
    for (int i = 0; i < nselected; i++)
        if (argc > 1 || strncmp(selected[i]->name, "chunked", 7) == 0)
            killed[nkill++] = selected[i];
    crash_seed();
    tcase_set_timeout(tc, 300);
    tcase_add_loop_test(tc, crash, 0, nkill);
    suite_add_tcase(s, tc);
    tc = tcase_create("points");
    tcase_set_timeout(tc, 300);
    tcase_add_loop_test(tc, points, 0, nselected);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
