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
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ncslab.h"
#include "io_fault.h"

#define NX          700     /* A's record: 2800 bytes */
#define BLOCK       3       /* records per put */
#define SYNC_EVERY  30      /* records between syncs */
#define MAXREC      1200    /* the writer stops (and closes) here */

typedef struct layout {
    const char *name;
    int cmode;
    int deflate;            /* chunked: shuffle + deflate on both variables */
} layout;

static const layout layouts[] = {
    { "cdf1", 0, 0 },
    { "cdf1-share", NCS_SHARE, 0 },
    { "cdf5", NCS_64BIT_DATA, 0 },
    { "chunked", NCS_NETCDF4 | NCS_CLASSIC_MODEL, 0 },
    /* B's chunk changes size at every sync, so HDF5 frees its old space,
     * which the committed state still uses, and may reuse it at once */
    { "chunked-deflate", NCS_NETCDF4 | NCS_CLASSIC_MODEL, 1 },
};

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

static void make_file(const char *path, const layout *l)
{
    int nc, d[2], v;
    int s = ncs_create(path, l->cmode | NCS_CLOBBER, &nc);
    ck_assert_msg(s == NCS_NOERR, "create %s: %s", path, ncs_strerror(s));
    ck_assert(ncs_def_dim(nc, "rec", NCS_UNLIMITED, &d[0]) == NCS_NOERR);
    ck_assert(ncs_def_dim(nc, "x", NX, &d[1]) == NCS_NOERR);
    ck_assert(ncs_def_var(nc, "A", NCS_INT, 2, d, &v) == NCS_NOERR);
    if (l->deflate)
        ck_assert(ncs_def_var_deflate(nc, v, 1, 1, 1) == NCS_NOERR);
    ck_assert(ncs_def_var(nc, "B", NCS_DOUBLE, 1, d, &v) == NCS_NOERR);
    if (l->deflate)
        ck_assert(ncs_def_var_deflate(nc, v, 1, 1, 1) == NCS_NOERR);
    ck_assert(ncs_enddef(nc) == NCS_NOERR);
    ck_assert(ncs_close(nc) == NCS_NOERR);
}

/* Records the last completed ncs_sync covered (the crash points read it
 * at the moment of a fault). */
static uint64_t synced_now;

/* The writer's script: appends maxrec records and closes; reports each
 * synced record count to fd (when >= 0), and MAXREC+1 once it has closed
 * the file.  Returns 0, or the exit code of the step that failed. */
static int write_records(const char *path, const layout *l, int fd, size_t maxrec)
{
    static double a[BLOCK * NX], b[BLOCK];
    int nc, s;
    uint64_t done;
    s = ncs_open(path, NCS_WRITE | (l->cmode & NCS_SHARE), &nc);
    if (s != NCS_NOERR)
        return 10;
    for (size_t r = 0; r < maxrec; r += BLOCK) {
        size_t st[2] = { r, 0 }, ct[2] = { BLOCK, NX };
        for (size_t k = 0; k < BLOCK; k++) {
            for (size_t i = 0; i < NX; i++)
                a[k * NX + i] = value(1, r + k, i);
            b[k] = value(2, r + k, 0);
        }
        if (ncs_put(nc, 0, st, ct, NULL, NULL, NCS_DOUBLE, a) != NCS_NOERR ||
            ncs_put(nc, 1, st, ct, NULL, NULL, NCS_DOUBLE, b) != NCS_NOERR)
            return 11;
        if ((r + BLOCK) % SYNC_EVERY == 0) {
            if (ncs_sync(nc) != NCS_NOERR)
                return 12;
            done = synced_now = r + BLOCK;
            if (fd >= 0 && write(fd, &done, sizeof done) != (ssize_t)sizeof done)
                return 13;
        }
    }
    if (ncs_close(nc) != NCS_NOERR)
        return 14;
    done = synced_now = MAXREC + 1;
    if (fd >= 0 && write(fd, &done, sizeof done) != (ssize_t)sizeof done)
        return 13;
    return 0;
}

/* The killed writer: never returns. */
static void writer(const char *path, const layout *l, int fd, size_t maxrec)
{
    _exit(write_records(path, l, fd, maxrec));
}

/* Kinds of verdict. */
enum { OK, OPEN_FAILED, SYNCED_LOST, SYNCED_BAD, BAD_RECORD, UNREADABLE, TOO_MANY, NVERDICTS };
static const char *const verdict_name[NVERDICTS] = {
    "ok", "open failed", "numrecs below a completed sync", "synced record not intact",
    "unsynced record within numrecs not intact", "record within numrecs unreadable",
    "numrecs past records written",
};

/* Checks the file a killed writer left; *fill_tail counts the records of
 * B's last block still holding fill. */
static int check_file(const char *path, uint64_t synced, size_t *nrecp, int *fill_tail,
                      char *msg, size_t msz)
{
    static double a[NX];
    int nc, s, dimid, verdict = OK;
    size_t nrec = 0;

    *fill_tail = 0;
    s = ncs_open(path, NCS_NOWRITE, &nc);
    if (s != NCS_NOERR) {
        snprintf(msg, msz, "open: %d (%s)", s, ncs_strerror(s));
        return OPEN_FAILED;
    }
    ncs_inq_dimid(nc, "rec", &dimid);
    ncs_inq_dimlen(nc, dimid, &nrec);
    *nrecp = nrec;
    if (nrec < synced) {
        snprintf(msg, msz, "numrecs %zu < synced %llu", nrec, (unsigned long long)synced);
        verdict = SYNCED_LOST;
    } else if (nrec > MAXREC) {
        snprintf(msg, msz, "numrecs %zu", nrec);
        verdict = TOO_MANY;
    }
    for (size_t r = 0; r < nrec && r < MAXREC && verdict == OK; r++) {
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
    return verdict;
}

/* Runs the kills for one layout; returns the number of bad outcomes. */
static int crash_layout(const layout *l)
{
    unsigned long long kills = env_ull("NCS_CRASH_KILLS", 120);
    unsigned long long maxdelay = env_ull("NCS_CRASH_MAXDELAY_US", 100000);
    int counts[NVERDICTS] = { 0 }, bad = 0, mid = 0, before_sync = 0, fill_tails = 0;
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
            writer(path, l, fd[1], MAXREC);
        }
        close(fd[1]);
        waitpid(pid, &wst, 0);
        close(fd[0]);
        full = now() - t1;
        ck_assert_msg(WIFEXITED(wst) && WEXITSTATUS(wst) == 0, "%s: writer failed", l->name);
        if (full * 1e6 < (double)maxdelay)
            maxdelay = (unsigned long long)(full * 1e6);
        printf("%s: an unkilled writer appends %d records in %.3f s\n", l->name, MAXREC, full);
    }
    for (unsigned long long k = 0; k < kills; k++) {
        unsigned long long delay = maxdelay ? rng() % (maxdelay + 1) : 0;
        uint64_t synced = 0, v;
        int fd[2], wst, verdict, fill_tail = 0;
        size_t nrec = 0;
        char msg[300] = "";
        pid_t pid;

        make_file(path, l);
        ck_assert(pipe(fd) == 0);
        pid = fork();
        ck_assert(pid >= 0);
        if (pid == 0) {
            close(fd[0]);
            writer(path, l, fd[1], MAXREC);
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
        if (synced <= MAXREC)
            mid++;
        if (synced == 0)
            before_sync++;
        if (synced > MAXREC)
            synced = MAXREC;
        verdict = check_file(path, synced, &nrec, &fill_tail, msg, sizeof msg);
        counts[verdict]++;
        nrec_sum += nrec;
        fill_tails += fill_tail != 0;
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
    printf("%s: %llu kills in %.1f s (delay 0-%llu us), %d mid-append (%d before the first "
           "sync), mean numrecs %.0f, B fill in the last block %d times |", l->name, kills,
           now() - t0, maxdelay, mid, before_sync, kills ? (double)nrec_sum / kills : 0.0,
           fill_tails);
    for (int i = 0; i < NVERDICTS; i++)
        printf(" %s %d%s", verdict_name[i], counts[i], i + 1 < NVERDICTS ? "," : "\n");
    fflush(stdout);
    return bad;
}

/* ---- crash points -----------------------------------------------------------
 * The kills above land where the clock puts them.  Here every write (torn at
 * the page boundary nearest its middle, as a killed process's write ends;
 * not at all when it lies within a page) and every change of the file's size
 * made by a shorter writer is in turn the moment of death: the
 * fault-injecting byte I/O (lib/io_fault.c, which both back ends open their
 * files through) fails the Nth operation of the kind and, at that moment,
 * copies the file -- what a process killed then leaves behind.  Each copy
 * must pass check_file against the last sync completed before the fault,
 * and again after it was opened for writing and closed (which applies what
 * a chunked file's journal holds, nc4_journal.c). */
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
    uint64_t synced = synced_now;
    (void)arg;
    copy_file(path, point_snap);
    if (write(point_fd, &synced, sizeof synced) != (ssize_t)sizeof synced)
        _exit(13);
}

/* Runs the short writer in a child, the nth operation of kind failing (0:
 * none, counting only).  Returns 1 when the fault fired, with the synced
 * count of that moment; for nth 0, counts[] gets the operations of each
 * kind. */
static int run_point(const char *path, const layout *l, int kind, unsigned long long nth,
                     uint64_t *synced, unsigned long long *counts)
{
    int fd[2], wst, fired = 0;
    pid_t pid;
    make_file(path, l);
    ck_assert(pipe(fd) == 0);
    pid = fork();
    ck_assert(pid >= 0);
    if (pid == 0) {
        ncsi_fault_plan p;
        int code;
        close(fd[0]);
        memset(&p, 0, sizeof p);
        p.kind = kind;
        p.nth = nth;
        p.status = EIO;
        p.torn = kind == NCSI_FAULT_WRITE;
        p.tear_at = 4096;
        p.on_fire = point_fire;
        point_fd = fd[1];
        ncsi_fault_io_install_plan(&p);
        code = write_records(path, l, -1, POINT_RECS);
        if (nth == 0) {
            unsigned long long c[NCSI_FAULT_NKINDS];
            for (int k = 0; k < NCSI_FAULT_NKINDS; k++)
                c[k] = ncsi_fault_io_count(k);
            if (write(fd[1], c, sizeof c) != (ssize_t)sizeof c)
                code = 13;
        }
        _exit(nth == 0 ? code : 0);
    }
    close(fd[1]);
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
static int crash_points(const layout *l)
{
    static const int kinds[] = { NCSI_FAULT_WRITE, NCSI_FAULT_SET_SIZE };
    static const char *const kind_name[] = { "write", "set_size" };
    unsigned long long counts[NCSI_FAULT_NKINDS];
    int verdicts[NVERDICTS] = { 0 }, bad = 0, points = 0;
    double t0 = now();
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
            if (verdict == OK) {
                /* opened for writing, the file is repaired for good (a
                 * chunked file's pending journal applied), and stays so */
                size_t nrec2 = 0;
                int nc, s = ncs_open(point_snap, NCS_WRITE, &nc);
                if (s == NCS_NOERR)
                    s = ncs_close(nc);
                if (s != NCS_NOERR) {
                    snprintf(msg, sizeof msg, "reopen for writing: %d (%s)", s, ncs_strerror(s));
                    verdict = OPEN_FAILED;
                } else {
                    verdict = check_file(point_snap, synced, &nrec2, &fill_tail, msg, sizeof msg);
                    if (verdict == OK && nrec2 != nrec) {
                        snprintf(msg, sizeof msg, "numrecs %zu after reopening, %zu before", nrec2,
                                 nrec);
                        verdict = BAD_RECORD;
                    }
                }
            }
            verdicts[verdict]++;
            if (verdict != OK) {
                char keep[240];
                snprintf(keep, sizeof keep, "crash-fail-%s-%s-%llu.nc", l->name, kind_name[k], n);
                rename(point_snap, keep);
                if (bad++ < 10)
                    printf("  FAIL %s %s %llu of %llu: %s: %s (kept as %s)\n", l->name,
                           kind_name[k], n, counts[kinds[k]], verdict_name[verdict], msg, keep);
            }
        }
    }
    unlink(point_snap);
    unlink(path);
    printf("%s: crash points: %d (%llu writes, torn; %llu size changes) in %.1f s |", l->name,
           points, counts[NCSI_FAULT_WRITE], counts[NCSI_FAULT_SET_SIZE], now() - t0);
    for (int i = 0; i < NVERDICTS; i++)
        printf(" %s %d%s", verdict_name[i], verdicts[i], i + 1 < NVERDICTS ? "," : "\n");
    fflush(stdout);
    return bad;
}

static const layout *selected[8], *killed[8];
static int nselected, nkill;

START_TEST(crash)
{
    const layout *l = killed[_i];
    int bad = crash_layout(l);
    ck_assert_msg(bad == 0, "%s: %d of the kills left a bad file", l->name, bad);
}
END_TEST

START_TEST(points)
{
    const layout *l = selected[_i];
    int bad = crash_points(l);
    ck_assert_msg(bad == 0, "%s: %d of the crash points left a bad file", l->name, bad);
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
        fprintf(stderr, "usage: %s [cdf1|cdf1-share|cdf5|chunked|chunked-deflate]...\n",
                argv[0]);
        return 2;
    }
    if (nselected == 0)
        for (size_t j = 0; j < sizeof layouts / sizeof layouts[0]; j++)
            selected[nselected++] = &layouts[j];
    /* Without arguments the SIGKILLs run for the chunked layout only:
     * check_crash runs them for the classic ones. */
    nkill = 0;
    for (int i = 0; i < nselected; i++)
        if (argc > 1 || strncmp(selected[i]->name, "chunked", 7) == 0)
            killed[nkill++] = selected[i];
    rng_state = env_ull("NCS_CRASH_SEED", (unsigned long long)time(NULL) ^ (unsigned)getpid());
    printf("check_crash: NCS_CRASH_SEED=%llu\n", rng_state);
    fflush(stdout);
    tcase_set_timeout(tc, 300);
    tcase_add_loop_test(tc, crash, 0, nkill);
    suite_add_tcase(s, tc);
    tc = tcase_create("points");
    tcase_set_timeout(tc, 300);
    tcase_add_loop_test(tc, points, 0, nselected);
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    nfail = srunner_ntests_failed(sr);
    srunner_free(sr);
    return nfail == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
