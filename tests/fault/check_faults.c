/*
 * check_faults.c -- every read, write, sync, set_size, size and allocation
 * of a scripted session fails in turn; the library must report it and the
 * file must keep what was committed before the fault.
 *
 * The script is fault_script.c's.  This program runs it on CDF-1, CDF-2
 * and CDF-5 with small records; built as check_faults_big (FAULT_BIG), on
 * CDF-1 with records of 68 KB, which bypass the page cache.  Each is a test
 * of its own, so that one failing cannot hide a regression of the other.
 *
 * A counting run finds how many operations of each kind the script makes;
 * then for every N (up to NCS_FAULT_MAXN, default unbounded; past it a
 * sample seeded by NCS_FAULT_SEED, printed) the Nth operation fails.  Each
 * run happens in a child process, so a crash is a finding, not the end of
 * the test.  In each run:
 *   - the first failing call must return an error (an NCS_E* code or an
 *     errno value); no successful get may return a wrong value;
 *   - a copy of the file and of its journal taken at the moment of the
 *     fault (what a process killed then would leave) must open, rolling
 *     the journal back if there is one, and hold exactly what the last
 *     successful ncs_sync or ncs_close committed;
 *   - the fault removed (or, for a sticky fault, still active), ncs_close
 *     is called; the file must then hold the committed content, and, when
 *     that close succeeded, every value whose put succeeded too;
 *   - anything else in the file (records or variables written after the
 *     commit) reads as the value written or the fill value, nothing else;
 *   - no memory is left allocated once the file is closed: the heap in
 *     use is compared before and after; under valgrind, which checks
 *     leaks itself, a child's errors show in its exit status; under
 *     AddressSanitizer, LeakSanitizer is asked.
 */
#include <check.h>
#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#if defined __has_include
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#endif
#endif
#ifndef RUNNING_ON_VALGRIND
#define RUNNING_ON_VALGRIND 0
#endif
/* Under AddressSanitizer mallinfo2 reports nothing, and a child's _exit
 * runs no leak check: LeakSanitizer is asked at the end of each run. */
#if defined __SANITIZE_ADDRESS__
#define FAULT_ASAN 1
#elif defined __has_feature
#if __has_feature(address_sanitizer)
#define FAULT_ASAN 1
#endif
#endif
#ifdef FAULT_ASAN
#include <sanitizer/lsan_interface.h>
#endif

#include "testutil.h"
#include "io.h"
#include "alloc_fault.h"
#include "io_fault.h"
#include "fault_script.h"

#ifndef FAULT_BIG
#define FAULT_BIG 0
#endif

/* ---- results, carried from the child to the parent ---------------------- */
typedef struct result {
    int fired;          /* the fault happened */
    int status, line;   /* first failing call */
    char what[96];
    int close_status;
    int crashed;        /* set by the parent: signal number */
    int swallowed;      /* fault fired, script still succeeded */
    int wrong_get;
    int snap_bad, final_bad, leak;    /* V_* verdicts; leak 0/1 */
    char msg[300];
} result;

#define KIND_ALLOC NCSI_FAULT_NKINDS     /* allocation, through ncsi_fault_alloc */
static const char *const kind_name[] = { "read", "write", "sync", "set_size", "size", "alloc" };

typedef struct mode {
    int kind;
    int sticky, torn;
    int status;
} mode;

static char snap_path[300];
static const char *run_path;    /* the data file of the run under way */
static int snap_taken;
static int keep_files;      /* NCS_FAULT_ONLY: leave the files for a look */
static int heap_checked;    /* leaks are counted here (not under valgrind) */

/* The fault may hit the journal or the directory as well as the data
 * file: the copy is of the data file and its journal whichever it was. */
static void on_fire(void *arg, const char *path)
{
    (void)arg;
    (void)path;
    fs_copy_with_journal(run_path, snap_path);
    snap_taken = 1;
}

/* Bytes the heap has handed out.  Exact only with glibc's per-thread cache
 * off (freed blocks in it count as in use): main re-executes the program
 * with GLIBC_TUNABLES=glibc.malloc.tcache_count=0. */
static size_t heap_in_use(void)
{
    struct mallinfo2 mi = mallinfo2();
    return mi.uordblks;
}

/* Runs the script once with the nth operation of kind failing, in this
 * process; fills res.  nth 0: no fault. */
static void one_run(const char *path, int cmode, size_t nx, const mode *md,
                    unsigned long long nth, result *res)
{
    run r;
    expect snap_e;
    int status;
    size_t heap0;

    /* the page buffers earlier runs left: each run allocates its own, as
     * the counting run did */
    ncsi_pc_pool_drain();
    heap0 = heap_in_use();
    memset(&r, 0, sizeof r);
    memset(res, 0, sizeof *res);
    r.path = path;
    r.cmode = cmode;
    r.nx = nx;
    r.ncid = -1;
    r.buf = malloc(nx * sizeof *r.buf);
    snprintf(snap_path, sizeof snap_path, "%s.snap", path);
    fs_remove_with_journal(path);
    fs_remove_with_journal(snap_path);
    run_path = path;
    snap_taken = 0;

    if (md->kind == KIND_ALLOC) {
        /* the wrapper's own allocations, as in the counting run */
        ncsi_fault_io_install(NCSI_FAULT_READ, 0, 0);
        ncsi_fault_alloc((long)nth);
    } else {
        ncsi_fault_plan p;
        memset(&p, 0, sizeof p);
        p.kind = md->kind;
        p.nth = nth;
        p.status = md->status;
        p.sticky = md->sticky;
        p.torn = md->torn;
        p.on_fire = on_fire;
        ncsi_fault_io_install_plan(&p);
    }
    status = fs_script(&r);
    snap_e = r.committed;
    if (md->kind == KIND_ALLOC) {
        ncsi_fault_alloc(0);
        if (status != NCS_NOERR) {
            fs_copy_with_journal(path, snap_path);
            snap_taken = 1;
        }
        /* the script is deterministic: the nth allocation (nth at most the
         * count of a fault-free run) did happen */
        res->fired = 1;
    } else {
        res->fired = ncsi_fault_io_fired();
        if (!md->sticky)
            ncsi_fault_io_remove();
    }
    res->status = status;
    res->line = r.line;
    snprintf(res->what, sizeof res->what, "%s", r.what);
    if (r.wrong[0] != '\0') {
        res->wrong_get = 1;
        snprintf(res->msg, sizeof res->msg, "%s", r.wrong);
    }
    if (status == NCS_NOERR && res->fired) {
        res->swallowed = 1;
    }
    /* recovery: close what is open */
    if (r.ncid >= 0)
        res->close_status = ncs_close(r.ncid);
    ncsi_fault_io_remove();

    if (snap_taken && status != NCS_NOERR && res->msg[0] == '\0') {
        char m[250] = "";
        res->snap_bad = fs_verify(snap_path, &snap_e, nx, m, sizeof m);
        if (res->snap_bad) {
            snprintf(res->msg, sizeof res->msg, "at the fault: %s", m);
        }
    }
    if (status != NCS_NOERR && res->msg[0] == '\0') {
        char m[250] = "";
        expect fe = r.committed;
        if (r.ncid >= 0 && res->close_status == NCS_NOERR) {
            fe = r.cur;
            fe.valid = 1;
        }
        res->final_bad = fs_verify(path, &fe, nx, m, sizeof m);
        if (res->final_bad) {
            snprintf(res->msg, sizeof res->msg, "after close (%d): %s", res->close_status, m);
        }
    }
    free(r.buf);
#ifdef FAULT_ASAN
    if (__lsan_do_recoverable_leak_check()) {
        res->leak = 1;
        if (res->msg[0] == '\0')
            snprintf(res->msg, sizeof res->msg, "LeakSanitizer found a leak (on stderr)");
    }
#endif
    ncsi_pc_pool_drain();
    if (heap_checked && heap_in_use() != heap0) {
        res->leak = 1;
        if (res->msg[0] == '\0')
            snprintf(res->msg, sizeof res->msg, "%zd bytes still allocated",
                     (ssize_t)(heap_in_use() - heap0));
    }
    if (!keep_files) {
        fs_remove_with_journal(path);
        fs_remove_with_journal(snap_path);
    }
}

/* Runs one_run in a child; a crash becomes res->crashed. */
static void forked_run(const char *path, int cmode, size_t nx, const mode *md,
                       unsigned long long nth, result *res)
{
    int fd[2], wst;
    pid_t pid;
    pid = tu_fork_pipe(fd);
    if (pid == 0) {
        one_run(path, cmode, nx, md, nth, res);
        if (write(fd[1], res, sizeof *res) != (ssize_t)sizeof *res)
            _exit(3);
        _exit(0);
    }
    memset(res, 0, sizeof *res);
    if (read(fd[0], res, sizeof *res) != (ssize_t)sizeof *res)
        res->crashed = -1;
    close(fd[0]);
    waitpid(pid, &wst, 0);
    if (WIFSIGNALED(wst)) {
        res->crashed = WTERMSIG(wst);
        fs_remove_with_journal(path);
    } else if (WEXITSTATUS(wst) != 0 && res->crashed == 0) {
        /* under valgrind, its error exit code: a leak or a bad access
         * in the child */
        res->leak = 1;
        snprintf(res->msg, sizeof res->msg, "the child exited with status %d%s",
                 WEXITSTATUS(wst), heap_checked ? "" : " (valgrind found errors: see its log)");
    }
}

/* ---- drivers --------------------------------------------------------------------- */

/* Operations of each kind in a fault-free run (allocations counted by
 * draining a large countdown). */
static void count_ops(const char *path, int cmode, size_t nx, unsigned long long *n)
{
    mode md = { 0, 0, 0, EIO };
    result res;
    const long big = 1L << 22;
    long left = 0;
    run r;

    ncsi_fault_io_install(NCSI_FAULT_READ, 0, 0);
    ncsi_pc_pool_drain();
    memset(&r, 0, sizeof r);
    r.path = path;
    r.cmode = cmode;
    r.nx = nx;
    r.ncid = -1;
    r.buf = malloc(nx * sizeof *r.buf);
    ncsi_fault_alloc(big);
    if (fs_script(&r) != NCS_NOERR) {
        /* not ck_assert: NCS_FAULT_ONLY runs outside the Check runner */
        fprintf(stderr, "fault-free script: %s -> %d (%s)\n", r.what, r.status,
                ncs_strerror(r.status));
        exit(EXIT_FAILURE);
    }
    for (;;) {
        void *p = ncsi_malloc(1);
        left++;
        if (p == NULL)
            break;
        free(p);
    }
    ncsi_fault_alloc(0);
    if (r.wrong[0] != '\0') {
        fprintf(stderr, "fault-free script: %s\n", r.wrong);
        exit(EXIT_FAILURE);
    }
    for (int k = 0; k < NCSI_FAULT_NKINDS; k++)
        n[k] = ncsi_fault_io_count(k);
    n[KIND_ALLOC] = (unsigned long long)(big - left);
    ncsi_fault_io_remove();
    free(r.buf);
    fs_remove_with_journal(path);
    (void)md;
    (void)res;
}

static unsigned long long rng_state;

/* What can go wrong in a run, worst first. */
#define NCATS 8
static const char *const cat_name[NCATS] = {
    "CRASH", "error swallowed", "wrong data from a get",
    "COMMITTED DATA LOST at the fault", "COMMITTED DATA LOST after close",
    "uncommitted garbage at the fault", "uncommitted garbage after close", "leak",
};
static const char *const cat_short[NCATS] = {
    "crash", "swallowed", "wrong-get", "lost@fault", "lost@close", "extra@fault",
    "extra@close", "leak",
};

/* Runs every kind and mode over one format; returns the number of bad runs. */
static int fault_matrix(const char *label, int cmode, size_t nx)
{
    static const mode modes[] = {
        { NCSI_FAULT_READ, 0, 0, EIO },      { NCSI_FAULT_READ, 1, 0, EIO },
        { NCSI_FAULT_WRITE, 0, 0, ENOSPC },  { NCSI_FAULT_WRITE, 0, 1, EIO },
        { NCSI_FAULT_WRITE, 1, 0, ENOSPC },  { NCSI_FAULT_SYNC, 0, 0, EIO },
        { NCSI_FAULT_SYNC, 1, 0, EIO },      { NCSI_FAULT_SET_SIZE, 0, 0, ENOSPC },
        { NCSI_FAULT_SIZE, 0, 0, EIO },      { KIND_ALLOC, 0, 0, NCS_ENOMEM },
    };
    unsigned long long n[NCSI_FAULT_NKINDS + 1];
    unsigned long long maxn = tu_env_ull("NCS_FAULT_MAXN", 0);
    char path[200];
    int bad_total = 0, shown = 0;

    snprintf(path, sizeof path, "ut_faults_%s_%ld.nc", label, (long)getpid());
    count_ops(path, cmode, nx, n);
    printf("%s: script makes %llu reads, %llu writes, %llu syncs, %llu set_size, "
           "%llu size, %llu allocations\n", label, n[0], n[1], n[2], n[3], n[4], n[5]);
    /* before the children: valgrind's exit flushes their copies of stdout */
    fflush(stdout);
    for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++) {
        const mode *md = &modes[m];
        unsigned long long count = n[md->kind], runs = 0, fired = 0;
        int errors[NCATS] = { 0 }, bad = 0, other_code = 0;
        for (unsigned long long nth = 1; nth <= count; nth++) {
            result res;
            if (maxn != 0 && nth > maxn && tu_rng(&rng_state) % (count - maxn) >= 100)
                continue;   /* past the bound: a sample of about 100 */
            forked_run(path, cmode, nx, md, nth, &res);
            runs++;
            fired += res.fired;
            if (res.fired && res.status != NCS_NOERR && res.status != md->status)
                other_code++;
            {
                int cat = res.crashed ? 0 : res.swallowed ? 1 : res.wrong_get ? 2
                        : res.snap_bad == V_LOST ? 3 : res.final_bad == V_LOST ? 4
                        : res.snap_bad ? 5 : res.final_bad ? 6 : res.leak ? 7 : -1;
                if (cat < 0)
                    continue;
                errors[cat]++;
                bad++;
                if (shown++ < 60)
                    printf("  FAIL %s %s%s%s N=%llu: %s; failing call line %d %s -> %d (%s); "
                           "close %d; %s\n", label, kind_name[md->kind],
                           md->sticky ? " sticky" : "", md->torn ? " torn" : "", nth,
                           cat_name[cat], res.line, res.what, res.status,
                           ncs_strerror(res.status), res.close_status,
                           res.crashed ? (res.crashed > 0 ? strsignal(res.crashed) : "no result")
                           : res.msg);
                fflush(stdout);
            }
        }
        printf("%s %-8s%-7s%-5s runs %4llu fired %4llu other-code %3d |", label,
               kind_name[md->kind], md->sticky ? " sticky" : "", md->torn ? " torn" : "",
               runs, fired, other_code);
        for (int c = 0; c < NCATS; c++)
            printf(" %s %d", cat_short[c], errors[c]);
        printf("\n");
        fflush(stdout);
        bad_total += bad;
    }
    return bad_total;
}

#if FAULT_BIG
START_TEST(faults_cdf1_big)
{
    /* records of 68 KB: puts bypass the page cache */
    int bad = fault_matrix("cdf1big", 0, PAGE / 4 + 616);
    ck_assert_msg(bad == 0, "%d faulted runs went wrong (see the log)", bad);
}
END_TEST
#else
START_TEST(faults_cdf1)
{
    int bad = fault_matrix("cdf1", 0, 5);
    ck_assert_msg(bad == 0, "%d faulted runs went wrong (see the log)", bad);
}
END_TEST

START_TEST(faults_cdf2)
{
    int bad = fault_matrix("cdf2", NCS_64BIT_OFFSET, 5);
    ck_assert_msg(bad == 0, "%d faulted runs went wrong (see the log)", bad);
}
END_TEST

START_TEST(faults_cdf5)
{
    int bad = fault_matrix("cdf5", NCS_64BIT_DATA, 5);
    ck_assert_msg(bad == 0, "%d faulted runs went wrong (see the log)", bad);
}
END_TEST
#endif

/* NCS_FAULT_ONLY="format kind N [sticky] [torn]" (format cdf1, cdf2, cdf5 or
 * cdf1big; kind as printed) runs that one case in this process, for a
 * debugger; the file is kept as ut_faults_only.nc. */
static int run_only(const char *spec)
{
    char fmt[16], kind[16], opt1[16] = "", opt2[16] = "";
    unsigned long long nth;
    mode md = { -1, 0, 0, EIO };
    result res;
    int cmode;
    size_t nx = 5;
    if (sscanf(spec, "%15s %15s %llu %15s %15s", fmt, kind, &nth, opt1, opt2) < 3)
        return 2;
    cmode = strncmp(fmt, "cdf2", 4) == 0 ? NCS_64BIT_OFFSET
          : strncmp(fmt, "cdf5", 4) == 0 ? NCS_64BIT_DATA : 0;
    if (strcmp(fmt, "cdf1big") == 0)
        nx = PAGE / 4 + 616;
    for (int k = 0; k <= KIND_ALLOC; k++)
        if (strcmp(kind, kind_name[k]) == 0)
            md.kind = k;
    if (md.kind < 0)
        return 2;
    md.status = md.kind == KIND_ALLOC ? NCS_ENOMEM : md.kind == NCSI_FAULT_WRITE ? ENOSPC : EIO;
    md.sticky = strcmp(opt1, "sticky") == 0 || strcmp(opt2, "sticky") == 0;
    md.torn = strcmp(opt1, "torn") == 0 || strcmp(opt2, "torn") == 0;
    keep_files = 1;
    {
        /* as in the matrix: a counting run first (one-time allocations) */
        unsigned long long n[NCSI_FAULT_NKINDS + 1];
        count_ops("ut_faults_only.nc", cmode, nx, n);
    }
    one_run("ut_faults_only.nc", cmode, nx, &md, nth, &res);
    printf("%s %s N=%llu: failing call line %d %s -> %d (%s); close %d; crash/swallowed/"
           "wrong-get/bad-at-fault/bad-after-close/leak %d/%d/%d/%d/%d/%d; %s\n", fmt, kind,
           nth, res.line, res.what, res.status, ncs_strerror(res.status), res.close_status,
           res.crashed, res.swallowed, res.wrong_get, res.snap_bad, res.final_bad, res.leak,
           res.msg);
    return 0;
}

int main(int argc, char **argv)
{
    const char *tun = getenv("GLIBC_TUNABLES");
    Suite *s;
    TCase *tc;
    SRunner *sr;
    int nfail;

    (void)argc;
    /* Heap accounting needs glibc's per-thread cache off: re-execute with
     * it off.  Under valgrind, whose allocator is its own (and which
     * checks leaks itself), neither. */
    heap_checked = !RUNNING_ON_VALGRIND;
    if (heap_checked && (tun == NULL || strstr(tun, "tcache_count=0") == NULL)) {
        setenv("GLIBC_TUNABLES", "glibc.malloc.tcache_count=0", 1);
        execv("/proc/self/exe", argv);
        /* no re-execution: leaks may be misreported, go on */
    }
    if (getenv("NCS_FAULT_ONLY") != NULL)
        return run_only(getenv("NCS_FAULT_ONLY"));
    s = suite_create("faults");
    tc = tcase_create("io_and_alloc");
    rng_state = tu_env_ull("NCS_FAULT_SEED", (unsigned long long)time(NULL));
    printf("check_faults: NCS_FAULT_SEED=%llu NCS_FAULT_MAXN=%llu (0: every N)%s\n",
           rng_state, tu_env_ull("NCS_FAULT_MAXN", 0),
           heap_checked ? "" : "; under valgrind: leaks left to it");
    fflush(stdout);
    tcase_set_timeout(tc, 600);
#if FAULT_BIG
    tcase_add_test(tc, faults_cdf1_big);
#else
    tcase_add_test(tc, faults_cdf1);
    tcase_add_test(tc, faults_cdf2);
    tcase_add_test(tc, faults_cdf5);
#endif
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    nfail = srunner_ntests_failed(sr);
    srunner_free(sr);
    return nfail == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
