/*
 * check_crash_rewrite.c -- a writer that rewrites the chunks of a chunked
 * file in place, killed at each of its writes and size changes in turn:
 * the file it leaves must hold exactly the state of one commit, never an
 * older one than its last completed sync.
 *
 * check_crash_points' writer appends, so its commits journal metadata
 * pages only (new chunks go past the committed state).  Here every commit
 * journals chunks (the driver keeps each page of a chunk rewritten in
 * place until the commit, lib/store/hdf5/h5_driver.c), and the commits
 * alternate between large and small, so the space a journal leaves past
 * the state is used again by the next journal, and cut when it is more
 * than the driver's slack longer than it.
 *
 * The file: C(y=NY, x=NXR) int, chunks of CY rows (20 chunks of 256 KiB),
 * written whole with round 0's values and closed.  The writer opens it
 * and for round r = 1..ROUNDS rewrites every row (r odd) or the first
 * chunk's rows (r even) with value(r, y, x) = r*10^7 + y*10^4 + x, calls
 * ncs_sync, and closes after the last round.  The state of commit k is
 * therefore: rows of the first chunk hold round k, the others the last
 * odd round <= k (0 for k = 0).
 *
 * As check_crash_points' "points", the fault-injecting byte I/O
 * (tests/support/io_fault.c) makes the Nth write (torn at the 4 KiB
 * boundary nearest its middle, as a killed process's write ends) or the
 * Nth size change fail, for every N, and copies the file at that moment.
 * Each copy must open read-only and hold exactly the state of one round k
 * with k >= the last round whose sync completed before the fault, and hold
 * it again after it was opened for writing and closed (which applies a
 * journal left pending).  The counting run (no fault) checks besides that
 * the file's size on disk repeats from the fourth round on (a commit of
 * the same pages as two rounds before neither extends nor truncates the
 * file; the first commit after the open journals a page more) and that the closed file is as long as it was before the writer
 * opened it (nothing left past the state).  doc/reliability.md has the
 * results.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"
#include "rewrite_work.h"
#include "io_fault.h"



static off_t file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? st.st_size : -1;
}

/* The last round whose ncs_sync returned 0 (the fault hook reads it). */
static int synced_now;

/* The rounds, then the close; 0 or the failing step's exit code.  With
 * sizes, the file's size on disk after each round's sync. */
static int rewrite(const char *path, off_t *sizes)
{
    int nc;
    if (ncs_open(path, NCS_WRITE, &nc) != NCS_NOERR)
        return 0;                /* the fault fired in the open */
    for (int r = 1; r <= ROUNDS; r++) {
        if (rw_put_rows(nc, r, r % 2 ? NY : CY) != NCS_NOERR || ncs_sync(nc) != NCS_NOERR) {
            ncs_abort(nc);
            return 0;            /* the fault fired: the copy is made */
        }
        synced_now = r;
        if (sizes != NULL)
            sizes[r] = file_size(path);
    }
    ncs_close(nc);
    return 0;
}


/* 1 when the file ends with the trailer of a journal (h5_driver.c's
 * format), which the copy's checks then read through and apply. */
static int journal_pending(const char *path)
{
    char t[8] = "";
    int fd = open(path, O_RDONLY);
    off_t size = file_size(path);
    int got = fd >= 0 && size >= 40 && pread(fd, t, 8, size - 40) == 8;
    if (fd >= 0)
        close(fd);
    return got && memcmp(t, "NCSJRNL", 7) == 0;
}

static int point_fd = -1;
static char point_snap[240];

static void copy_file(const char *from, const char *to)
{
    char b[65536];
    ssize_t n;
    int in = open(from, O_RDONLY), out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    while (in >= 0 && out >= 0 && (n = read(in, b, sizeof b)) > 0)
        if (write(out, b, (size_t)n) != n)
            break;
    if (in >= 0)
        close(in);
    if (out >= 0)
        close(out);
}

static void point_fire(void *arg, const char *path)
{
    int synced = synced_now;
    (void)arg;
    copy_file(path, point_snap);
    if (write(point_fd, &synced, sizeof synced) != (ssize_t)sizeof synced)
        _exit(13);
}

/* Runs the writer in a child with the nth operation of kind failing (0:
 * none; then counts[] gets the operations of each kind and sizes[] the
 * sizes after each round).  Returns 1 when the fault fired, with the
 * round synced at that moment. */
static int run_point(const char *path, int kind, unsigned long long nth, int *synced,
                     unsigned long long *counts, off_t *sizes)
{
    int fd[2], wst, fired = 0;
    pid_t pid;
    rw_make_file(path);
    pid = tu_fork_pipe(fd);
    if (pid == 0) {
        ncsi_fault_plan p;
        off_t sz[ROUNDS + 1] = { 0 };
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
        code = rewrite(path, nth == 0 ? sz : NULL);
        if (nth == 0) {
            unsigned long long c[NCSI_FAULT_NKINDS];
            for (int k = 0; k < NCSI_FAULT_NKINDS; k++)
                c[k] = ncsi_fault_io_count(k);
            if (write(fd[1], c, sizeof c) != (ssize_t)sizeof c ||
                write(fd[1], sz, sizeof sz) != (ssize_t)sizeof sz)
                code = 13;
        }
        _exit(code);
    }
    if (nth == 0) {
        ck_assert(read(fd[0], counts, NCSI_FAULT_NKINDS * sizeof *counts) ==
                  (ssize_t)(NCSI_FAULT_NKINDS * sizeof *counts));
        ck_assert(read(fd[0], sizes, (ROUNDS + 1) * sizeof *sizes) ==
                  (ssize_t)((ROUNDS + 1) * sizeof *sizes));
    } else {
        fired = read(fd[0], synced, sizeof *synced) == (ssize_t)sizeof *synced;
    }
    close(fd[0]);
    waitpid(pid, &wst, 0);
    ck_assert_msg(WIFEXITED(wst) && WEXITSTATUS(wst) == 0, "writer failed (%d)",
                  WIFEXITED(wst) ? WEXITSTATUS(wst) : -1);
    return fired;
}

START_TEST(points)
{
    static const int kinds[] = { NCSI_FAULT_WRITE, NCSI_FAULT_SET_SIZE };
    static const char *const kind_name[] = { "write", "set_size" };
    unsigned long long counts[NCSI_FAULT_NKINDS];
    off_t sizes[ROUNDS + 1], made;
    int npoints = 0, bad = 0, pending = 0, seen[ROUNDS + 1] = { 0 };
    char path[200], msg[300];
    const char *why;

    snprintf(path, sizeof path, "ut_crash_rewrite_%ld.nc", (long)getpid());
    snprintf(point_snap, sizeof point_snap, "ut_crash_rewrite_%ld.snap.nc", (long)getpid());

    /* the counting run: no fault */
    rw_make_file(path);
    made = file_size(path);
    run_point(path, NCSI_FAULT_WRITE, 0, NULL, counts, sizes);
    for (int r = 1; r <= ROUNDS; r++)
        printf("rewrite: size after round %d's sync: %lld\n", r, (long long)sizes[r]);
    for (int r = 4; r <= ROUNDS; r++)
        ck_assert_msg(sizes[r] == sizes[r - 2], "file size after round %d %lld, after round %d %lld",
                      r, (long long)sizes[r], r - 2, (long long)sizes[r - 2]);
    ck_assert_msg(file_size(path) == made, "closed file %lld bytes, %lld before the rewrites",
                  (long long)file_size(path), (long long)made);
    why = rw_check_state(path, ROUNDS, &(int){ 0 }, msg, sizeof msg);
    ck_assert_msg(*why == '\0', "after the rewrites: %s", why);

    for (int kk = 0; kk < 2; kk++) {
        for (unsigned long long n = 1; n <= counts[kinds[kk]]; n++) {
            int synced = 0, k = -1, k2 = -1, nc;
            unlink(point_snap);
            if (!run_point(path, kinds[kk], n, &synced, counts, sizes))
                continue;
            npoints++;
            pending += journal_pending(point_snap);
            why = rw_check_state(point_snap, synced, &k, msg, sizeof msg);
            if (*why == '\0') {
                /* repaired for good by an open for writing */
                int s = ncs_open(point_snap, NCS_WRITE, &nc);
                if (s == NCS_NOERR)
                    s = ncs_close(nc);
                if (s != NCS_NOERR) {
                    snprintf(msg, sizeof msg, "reopen for writing: %s", ncs_strerror(s));
                    why = msg;
                } else {
                    why = rw_check_state(point_snap, synced, &k2, msg, sizeof msg);
                    if (*why == '\0' && k2 != k) {
                        snprintf(msg, sizeof msg, "round %d after reopening, %d before", k2, k);
                        why = msg;
                    }
                }
            }
            if (*why != '\0') {
                char keep[240];
                snprintf(keep, sizeof keep, "crash-fail-rewrite-%s-%llu.nc", kind_name[kk], n);
                rename(point_snap, keep);
                if (bad++ < 10)
                    printf("  FAIL %s %llu of %llu: %s (kept as %s)\n", kind_name[kk], n,
                           counts[kinds[kk]], why, keep);
            } else {
                seen[k]++;
            }
        }
    }
    unlink(point_snap);
    unlink(path);
    printf("rewrite: crash points: %d (%llu writes, torn; %llu size changes), %d bad; "
           "%d with a complete journal not yet applied; states:",
           npoints, counts[NCSI_FAULT_WRITE], counts[NCSI_FAULT_SET_SIZE], bad, pending);
    for (int r = 0; r <= ROUNDS; r++)
        printf(" round %d %d%s", r, seen[r], r < ROUNDS ? "," : "\n");
    fflush(stdout);
    ck_assert_msg(bad == 0, "%d of the crash points left a bad file", bad);
    /* every commit was crashed in: each state turned up */
    for (int r = 0; r <= ROUNDS; r++)
        ck_assert_msg(seen[r] > 0, "no crash point left the state of round %d", r);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("crash_rewrite");
    TCase *tc = tcase_create("points");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, points);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
