/*
 * crash_util.c -- what the crash tests share (see crash_util.h): the
 * appending writer, the check of its records, and the SIGKILL loop.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"
#include "crash_util.h"
#include "api.h"

/* B elements of the last block found torn at a 4 KiB boundary (see
 * torn_at_page), since crash_kills last reset it. */
static int torn_tails;

/* 1 when B[r] of the classic file open as nc holds got where want was
 * being written over the fill value, and the write was torn where a killed
 * process's write can end: the element straddles a 4 KiB boundary of the
 * file, its bytes before the boundary are want's and those after it the
 * fill value's (Linux stops a write at a page when a fatal signal is
 * pending; doc/reliability.md). */
static void be_bytes(double x, unsigned char *out)
{
    uint64_t u;
    memcpy(&u, &x, 8);
    u = ncsi_be64(u);
    memcpy(out, &u, 8);
}

static int torn_at_page(int nc, size_t r, double got, double want)
{
    const ncs_file *f = ncsi_file_get(nc);
    unsigned char g[8], w[8], fill[8];
    uint64_t recsize = 0, off, cut;
    size_t k;
    if (f == NULL || f->version == 4 || f->model.nvars < 2)
        return 0;
    for (int v = 0; v < f->model.nvars; v++)
        if (f->model.vars[v].isrec)
            recsize += f->model.vars[v].len;
    off = f->model.vars[1].begin + (uint64_t)r * recsize;
    cut = (off / 4096 + 1) * 4096;
    if (cut >= off + 8)
        return 0;
    be_bytes(got, g);
    be_bytes(want, w);
    be_bytes(NCS_FILL_DOUBLE, fill);
    k = (size_t)(cut - off);
    return memcmp(g, w, k) == 0 && memcmp(g + k, fill + k, 8 - k) == 0;
}

const char *const crash_verdict_name[CV_N] = {
    "ok", "open failed", "numrecs below a completed sync", "synced record not intact",
    "unsynced record within numrecs not intact", "record within numrecs unreadable",
    "numrecs past records written", "variable of a synced redefinition lost or wrong",
    "variable of an unsynced redefinition neither values nor fill",
    "journal left after the open",
};

double crash_value(int var, size_t rec, size_t i)
{
    return var * 1e7 + (double)rec * 1e3 + (double)i;
}

static unsigned long long rng_state;

void crash_seed(void)
{
    rng_state = tu_env_ull("NCS_CRASH_SEED", (unsigned long long)time(NULL) ^ (unsigned)getpid());
    printf("check_crash: NCS_CRASH_SEED=%llu\n", rng_state);
    fflush(stdout);
}

double crash_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int crash_put_block(int nc, size_t r, size_t n)
{
    static double a[BLOCK * NX], b[BLOCK];
    size_t st[2] = { r, 0 }, ct[2] = { n, NX };
    int s;
    for (size_t k = 0; k < n; k++) {
        for (size_t i = 0; i < NX; i++)
            a[k * NX + i] = crash_value(1, r + k, i);
        b[k] = crash_value(2, r + k, 0);
    }
    s = ncs_put(nc, 0, st, ct, NULL, NULL, NCS_DOUBLE, a);
    return s != NCS_NOERR ? s : ncs_put(nc, 1, st, ct, NULL, NULL, NCS_DOUBLE, b);
}

void crash_make_file(const char *path, int cmode, int deflate, size_t nrec)
{
    int nc, d[2], v;
    int s = ncs_create(path, cmode | NCS_CLOBBER, &nc);
    ck_assert_msg(s == NCS_NOERR, "create %s: %s", path, ncs_strerror(s));
    ck_assert(ncs_def_dim(nc, "rec", NCS_UNLIMITED, &d[0]) == NCS_NOERR);
    ck_assert(ncs_def_dim(nc, "x", NX, &d[1]) == NCS_NOERR);
    ck_assert(ncs_def_var(nc, "A", NCS_INT, 2, d, &v) == NCS_NOERR);
    if (deflate)
        ck_assert(ncs_def_var_deflate(nc, v, 1, 1, 1) == NCS_NOERR);
    ck_assert(ncs_def_var(nc, "B", NCS_DOUBLE, 1, d, &v) == NCS_NOERR);
    if (deflate)
        ck_assert(ncs_def_var_deflate(nc, v, 1, 1, 1) == NCS_NOERR);
    ck_assert(ncs_enddef(nc) == NCS_NOERR);
    for (size_t r = 0; r < nrec; r += BLOCK)
        ck_assert(crash_put_block(nc, r, BLOCK) == NCS_NOERR);
    ck_assert(ncs_close(nc) == NCS_NOERR);
}

uint64_t crash_synced_now;

int crash_write_records(const char *path, int omode, int fd, size_t maxrec)
{
    int nc;
    uint64_t done;
    if (ncs_open(path, omode, &nc) != NCS_NOERR)
        return 10;
    for (size_t r = 0; r < maxrec; r += BLOCK) {
        if (crash_put_block(nc, r, BLOCK) != NCS_NOERR)
            return 11;
        if ((r + BLOCK) % SYNC_EVERY == 0) {
            if (ncs_sync(nc) != NCS_NOERR)
                return 12;
            done = crash_synced_now = r + BLOCK;
            if (fd >= 0 && write(fd, &done, sizeof done) != (ssize_t)sizeof done)
                return 13;
        }
    }
    if (ncs_close(nc) != NCS_NOERR)
        return 14;
    done = crash_synced_now = MAXREC + 1;
    if (fd >= 0 && write(fd, &done, sizeof done) != (ssize_t)sizeof done)
        return 13;
    return 0;
}

void crash_writer(const char *path, const crash_layout *l, int fd)
{
    _exit(crash_write_records(path, NCS_WRITE | (l->cmode & NCS_SHARE), fd, MAXREC));
}

size_t crash_numrecs(int nc)
{
    int dimid;
    size_t nrec = 0;
    ncs_inq_dimid(nc, "rec", &dimid);
    ncs_inq_dimlen(nc, dimid, &nrec);
    return nrec;
}

int crash_check_records(int nc, size_t nrec, uint64_t synced, size_t maxrec, int *fill_tail,
                        char *msg, size_t msz)
{
    static double a[NX];
    int s, verdict = CV_OK;

    *fill_tail = 0;
    if (nrec < synced) {
        snprintf(msg, msz, "numrecs %zu < synced %llu", nrec, (unsigned long long)synced);
        verdict = CV_SYNCED_LOST;
    } else if (nrec > maxrec) {
        snprintf(msg, msz, "numrecs %zu", nrec);
        verdict = CV_TOO_MANY;
    }
    for (size_t r = 0; r < nrec && r < maxrec && verdict == CV_OK; r++) {
        size_t st[2] = { r, 0 }, ct[2] = { 1, NX };
        double bv;
        s = ncs_get(nc, 0, st, ct, NULL, NULL, NCS_DOUBLE, a);
        if (s == NCS_NOERR)
            s = ncs_get(nc, 1, st, ct, NULL, NULL, NCS_DOUBLE, &bv);
        if (s != NCS_NOERR) {
            snprintf(msg, msz, "record %zu of %zu (synced %llu): %d (%s)", r, nrec,
                     (unsigned long long)synced, s, ncs_strerror(s));
            verdict = CV_UNREADABLE;
            break;
        }
        for (size_t i = 0; i < NX; i++)
            if (a[i] != crash_value(1, r, i)) {
                snprintf(msg, msz, "A[%zu][%zu] = %.17g, want %.17g (numrecs %zu, synced %llu)",
                         r, i, a[i], crash_value(1, r, i), nrec, (unsigned long long)synced);
                verdict = r < synced ? CV_SYNCED_BAD : CV_BAD_RECORD;
                break;
            }
        if (verdict == CV_OK && bv != crash_value(2, r, 0)) {
            /* B of the last block may still hold fill: A's put alone makes
             * those records exist (a state a live writer could leave) */
            if (bv == NCS_FILL_DOUBLE && r + BLOCK >= nrec && r >= synced) {
                ++*fill_tail;
            } else if (r + BLOCK >= nrec && r >= synced &&
                       torn_at_page(nc, r, bv, crash_value(2, r, 0))) {
                /* ... or be torn at a page by the kill in B's write */
                torn_tails++;
            } else {
                snprintf(msg, msz, "B[%zu] = %.17g, want %.17g (numrecs %zu, synced %llu)", r,
                         bv, crash_value(2, r, 0), nrec, (unsigned long long)synced);
                verdict = r < synced ? CV_SYNCED_BAD : CV_BAD_RECORD;
            }
        }
    }
    return verdict;
}

void crash_print_verdicts(const int *counts, int n)
{
    for (int i = 0; i < n; i++)
        printf(" %s %d%s", crash_verdict_name[i], counts[i], i + 1 < n ? "," : "\n");
}

/* Forks ops->writer on the file at path; returns its pid, *rfd the read end
 * of the pipe it reports on. */
static pid_t start_writer(const char *path, const crash_layout *l, const crash_ops *ops,
                          int *rfd)
{
    int fd[2];
    pid_t pid;
    pid = tu_fork_pipe(fd);
    if (pid == 0)
        ops->writer(path, l, fd[1]);
    *rfd = fd[0];
    return pid;
}

int crash_kills(const crash_layout *l, const crash_ops *ops, uint64_t total,
                const char *unkilled)
{
    unsigned long long kills = tu_env_ull("NCS_CRASH_KILLS", 120);
    unsigned long long maxdelay = tu_env_ull("NCS_CRASH_MAXDELAY_US", 100000);
    int counts[CV_N] = { 0 }, bad = 0, mid = 0, before_sync = 0, fill_tails = 0, hots = 0;
    size_t nrec_sum = 0;
    double t0 = crash_now();
    char path[200];

    snprintf(path, sizeof path, "ut_crash_%s_%ld.nc", l->name, (long)getpid());
    torn_tails = 0;
    {
        /* calibration: an unkilled writer's whole run bounds the delay, so
         * the kills land while it writes */
        int fd, wst;
        double t1, full;
        pid_t pid;
        ops->make_file(path, l);
        t1 = crash_now();
        pid = start_writer(path, l, ops, &fd);
        waitpid(pid, &wst, 0);
        close(fd);
        full = crash_now() - t1;
        ck_assert_msg(WIFEXITED(wst) && WEXITSTATUS(wst) == 0, "%s: writer failed", l->name);
        if (full * 1e6 < (double)maxdelay)
            maxdelay = (unsigned long long)(full * 1e6);
        if (unkilled != NULL)
            printf("%s: an unkilled writer %s in %.3f s\n", l->name, unkilled, full);
        else
            printf("%s: an unkilled writer appends %d records in %.3f s\n", l->name, MAXREC,
                   full);
    }
    for (unsigned long long k = 0; k < kills; k++) {
        unsigned long long delay = maxdelay ? tu_rng(&rng_state) % (maxdelay + 1) : 0;
        uint64_t synced = 0, v;
        int fd, wst, verdict, fill_tail = 0, hot = 0;
        size_t nrec = 0;
        char msg[300] = "";
        pid_t pid;

        ops->make_file(path, l);
        pid = start_writer(path, l, ops, &fd);
        usleep((useconds_t)delay);
        kill(pid, SIGKILL);
        waitpid(pid, &wst, 0);
        while (read(fd, &v, sizeof v) == (ssize_t)sizeof v)
            synced = v;
        close(fd);
        if (WIFEXITED(wst) && WEXITSTATUS(wst) != 0)
            ck_abort_msg("%s: writer failed with exit code %d", l->name, WEXITSTATUS(wst));
        if (synced <= total)
            mid++;
        if (synced == 0)
            before_sync++;
        if (synced > total)
            synced = total;
        verdict = ops->check_file(path, l, synced, &nrec, &fill_tail, &hot, msg, sizeof msg);
        counts[verdict]++;
        nrec_sum += nrec;
        fill_tails += fill_tail != 0;
        hots += hot;
        if (verdict != CV_OK) {
            char keep[240];
            snprintf(keep, sizeof keep, "crash-fail-%s-%llu.nc", l->name, k);
            rename(path, keep);
            if (bad++ < 10)
                printf("  FAIL %s kill %llu after %llu us: %s: %s (kept as %s)\n", l->name, k,
                       delay, crash_verdict_name[verdict], msg, keep);
        }
    }
    unlink(path);
    printf("%s: %llu kills in %.1f s (delay 0-%llu us), %d mid-%s (%d before the first "
           "sync), mean numrecs %.0f, B fill in the last block %d times", l->name, kills,
           crash_now() - t0, maxdelay, mid, l->redef ? "redefinitions" : "append", before_sync,
           kills ? (double)nrec_sum / kills : 0.0, fill_tails);
    printf(", B torn at a 4 KiB boundary in the last block %d times", torn_tails);
    if (l->redef)
        printf(", journal rolled back at the open %d times", hots);
    printf(" |");
    crash_print_verdicts(counts, ops->nverdicts);
    fflush(stdout);
    return bad;
}

int crash_select(int argc, char **argv, const crash_layout *layouts, int nlayouts, int ndefault,
                 const crash_layout **selected, int max)
{
    int n = 0;
    for (int i = 1; i < argc && n < max; i++)
        for (int j = 0; j < nlayouts; j++)
            if (strcmp(argv[i], layouts[j].name) == 0)
                selected[n++] = &layouts[j];
    if (argc > 1 && n != argc - 1) {
        fprintf(stderr, "usage: %s [", argv[0]);
        for (int j = 0; j < nlayouts; j++)
            fprintf(stderr, "%s%s", layouts[j].name, j + 1 < nlayouts ? "|" : "]...\n");
        return -1;
    }
    if (n == 0)
        for (int j = 0; j < ndefault; j++)
            selected[n++] = &layouts[j];
    return n;
}
