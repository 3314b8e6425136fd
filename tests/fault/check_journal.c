/*
 * check_journal.c -- the rollback journal of classic redefinitions
 * (lib/store/classic/journal.c): what it holds, when it exists, recovery at open and its
 * lock.
 *
 * A "crash at write N" runs the redefinition in a child process whose Nth
 * write (counted by the fault-injecting byte-I/O back end over the data
 * file, the journal and the directory) stops the process on the spot, to
 * be SIGKILLed by the parent: the files are exactly what a process killed
 * at that moment leaves.  For every N the parent then opens the file,
 * which must roll a hot journal back, and checks every value.
 *
 * Cases:
 *   crash_every_write   CDF-1/2/5 file with fixed and record data; a
 *                       redefinition adding variables and a long attribute
 *                       (everything moves), crashed at each of its writes
 *                       (whole or torn) or syncs; the file holds either the
 *                       old or the new layout, with every value, and no
 *                       journal after the open
 *   journal_contents    what is journaled: only the header when nothing
 *                       moves; no journal at all for an uncommitted file
 *                       (created and never synced) or after ncs_create;
 *                       zero blocks of a sparse variable as ZERO records
 *   past_4gib           CDF-5 records beyond 5 GiB (a sparse file) moved
 *                       under the journal, crashed at each write
 *   partial_journal     a journal cut short or damaged is deleted at open,
 *                       the file untouched
 *   journal_format      a journal written by hand from the byte table of
 *                       doc/reliability.md is rolled back; one with a range
 *                       past the old size or an unknown tag is deleted
 *   crash_in_recovery   the rollback at open crashed at each of its writes:
 *                       the next open rolls back again
 *   lock                a redefinition and a recovery both refuse (EBUSY)
 *                       while another handle holds the file's lock
 *   create_removes      ncs_create over a file deletes its stale journal
 *   long_name           a file name with no room for the journal's suffix:
 *                       redefined without a journal
 *   readonly            a hot journal on a file that cannot be opened for
 *                       writing: NCS_EPERM (skipped as root)
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <zlib.h>

#include "ncslab.h"
#include "io.h"
#include "io_fault.h"
#include "journal.h"

#define NX   17000         /* values per record of A: 68 KB, past a cache page */
#define NREC 6

#define OK(call)                                                            \
    do {                                                                    \
        int s_ = (call);                                                    \
        ck_assert_msg(s_ == NCS_NOERR, "%s -> %d (%s)", #call, s_,          \
                      ncs_strerror(s_));                                    \
    } while (0)

static char path[300], jpath[320];

static void set_paths(const char *name)
{
    snprintf(path, sizeof path, "ut_journal_%s_%ld.nc", name, (long)getpid());
    snprintf(jpath, sizeof jpath, "%s%s", path, NCSI_JOURNAL_SUFFIX);
}

static void remove_files(void)
{
    unlink(path);
    unlink(jpath);
}

static int exists(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0;
}

static off_t file_size(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 ? st.st_size : -1;
}

static double value(int var, size_t rec, size_t i)
{
    return var * 1e6 + (double)rec * 1e3 + (double)i;
}

/* The file the redefinitions start from: F(x) int, A(rec, x) int,
 * B(rec) double, NREC records, closed (so committed). */
static void make_base(int cmode)
{
    static double a[NREC * NX];
    double b[NREC];
    int nc, d[2], v;
    size_t st[2] = { 0, 0 }, ct[2] = { NREC, NX };
    OK(ncs_create(path, cmode | NCS_CLOBBER, &nc));
    OK(ncs_def_dim(nc, "rec", NCS_UNLIMITED, &d[0]));
    OK(ncs_def_dim(nc, "x", NX, &d[1]));
    OK(ncs_def_var(nc, "F", NCS_INT, 1, &d[1], &v));
    OK(ncs_def_var(nc, "A", NCS_INT, 2, d, &v));
    OK(ncs_def_var(nc, "B", NCS_DOUBLE, 1, d, &v));
    OK(ncs_enddef(nc));
    for (size_t r = 0; r < NREC; r++) {
        for (size_t i = 0; i < NX; i++)
            a[r * NX + i] = value(2, r, i);
        b[r] = value(3, r, 0);
    }
    for (size_t i = 0; i < NX; i++)
        a[i] = value(1, 0, i);
    OK(ncs_put(nc, 0, st, &ct[1], NULL, NULL, NCS_DOUBLE, a));
    for (size_t i = 0; i < NX; i++)
        a[i] = value(2, 0, i);
    OK(ncs_put(nc, 1, st, ct, NULL, NULL, NCS_DOUBLE, a));
    OK(ncs_put(nc, 2, st, ct, NULL, NULL, NCS_DOUBLE, b));
    OK(ncs_close(nc));
}

/* The redefinition: a fixed variable G, a record variable S and a long
 * attribute, so the header grows and every byte of data moves. */
static int redefine(int nc)
{
    static char hist[2000];
    int d[2], v, s;
    memset(hist, 'h', sizeof hist);
    if ((s = ncs_redef(nc)) != NCS_NOERR)
        return s;
    ncs_inq_dimid(nc, "rec", &d[0]);
    ncs_inq_dimid(nc, "x", &d[1]);
    if ((s = ncs_def_var(nc, "G", NCS_DOUBLE, 1, &d[1], &v)) != NCS_NOERR ||
        (s = ncs_def_var(nc, "S", NCS_SHORT, 2, d, &v)) != NCS_NOERR ||
        (s = ncs_put_att(nc, NCS_GLOBAL, "history", NCS_CHAR, sizeof hist, NCS_CHAR, hist)))
        return s;
    return ncs_enddef(nc);
}

/* The first of n values at got that differs from want(k) (k from 0), or
 * -1; one assertion per array, not per value (Check's assertions cost a
 * system call each). */
static long first_wrong(const double *got, size_t n, double (*want)(size_t k))
{
    for (size_t k = 0; k < n; k++)
        if (got[k] != want(k))
            return (long)k;
    return -1;
}

static double want_f(size_t k) { return value(1, 0, k); }
static double want_a(size_t k) { return value(2, k / NX, k % NX); }
static double want_b(size_t k) { return value(3, k, 0); }
static double want_g(size_t k) { (void)k; return NCS_FILL_DOUBLE; }
static double want_s(size_t k) { (void)k; return NCS_FILL_SHORT; }

/* Checks the file after a crash: it opens; F, A, B hold every value; G
 * and S, when there, hold fill values.  Returns 1 for the new layout. */
static int check_base(void)
{
    static double a[NREC * NX];
    double b[NREC];
    int nc, v, s, nvars;
    long k;
    size_t st[2] = { 0, 0 }, ct[2] = { NREC, NX }, nrec;
    s = ncs_open(path, NCS_NOWRITE, &nc);
    ck_assert_msg(s == NCS_NOERR, "open after crash: %d (%s)", s, ncs_strerror(s));
    OK(ncs_inq_nvars(nc, &nvars));
    OK(ncs_inq_dimlen(nc, 0, &nrec));
    ck_assert_msg(nrec == NREC, "numrecs %zu", nrec);
    OK(ncs_get(nc, 0, st, &ct[1], NULL, NULL, NCS_DOUBLE, a));
    k = first_wrong(a, NX, want_f);
    ck_assert_msg(k < 0, "F[%ld] = %g", k, a[k < 0 ? 0 : k]);
    OK(ncs_get(nc, 1, st, ct, NULL, NULL, NCS_DOUBLE, a));
    k = first_wrong(a, NREC * NX, want_a);
    ck_assert_msg(k < 0, "A[%ld][%ld] = %g", k / NX, k % NX, a[k < 0 ? 0 : k]);
    OK(ncs_get(nc, 2, st, ct, NULL, NULL, NCS_DOUBLE, b));
    k = first_wrong(b, NREC, want_b);
    ck_assert_msg(k < 0, "B[%ld] = %g", k, b[k < 0 ? 0 : k]);
    ck_assert_msg(nvars == 3 || nvars == 5, "%d variables", nvars);
    if (nvars == 5) {
        OK(ncs_inq_varid(nc, "G", &v));
        OK(ncs_get(nc, v, st, &ct[1], NULL, NULL, NCS_DOUBLE, a));
        k = first_wrong(a, NX, want_g);
        ck_assert_msg(k < 0, "G[%ld] = %g", k, a[k < 0 ? 0 : k]);
        OK(ncs_inq_varid(nc, "S", &v));
        OK(ncs_get(nc, v, st, ct, NULL, NULL, NCS_DOUBLE, a));
        k = first_wrong(a, NREC * NX, want_s);
        ck_assert_msg(k < 0, "S[%ld] = %g", k, a[k < 0 ? 0 : k]);
    }
    OK(ncs_close(nc));
    ck_assert_msg(!exists(jpath), "journal still there after the open");
    return nvars == 5;
}

/* ---- crashes at a chosen write -------------------------------------------- */

/* The child's end at the fault: it tells the parent through the pipe
 * whether the moment was the one asked for, and waits for the parent's
 * SIGKILL: a real crash, from outside (no exit handler runs, and valgrind
 * checks nothing in a process stopped in the middle of a call). */
static int crash_pipe = -1;

static void crash_now(char moment)
{
    if (write(crash_pipe, &moment, 1) != 1)
        _exit(6);
    for (;;)
        pause();
}

static void die(void *arg, const char *p)
{
    (void)arg;
    (void)p;
    crash_now('y');
}

/* Crashes only at a write to the data file while its journal exists. */
static void die_hot(void *arg, const char *p)
{
    (void)arg;
    crash_now(strcmp(p, path) == 0 && exists(jpath) ? 'y' : 'n');
}

/* Where a crash happens: the nth operation of a kind (NCSI_FAULT_WRITE
 * or NCSI_FAULT_SYNC), a torn write leaving half its bytes. */
typedef struct when {
    const char *name;
    int kind, torn;
} when;

static const when at_write = { "write", NCSI_FAULT_WRITE, 0 };

/* Runs fn in a child that the nth operation of w kills there (with hot,
 * only when it is a write to the data file under a journal); returns 1
 * when the crash happened, 0 when fn finished first (n past its
 * operations), -1 when the nth write was not one hot waits for. */
static int crash_at(int (*fn)(void), const when *w, unsigned long long n, int hot)
{
    int wst, fd[2];
    char moment = 0;
    pid_t pid;
    ck_assert(pipe(fd) == 0);
    pid = fork();
    ck_assert(pid >= 0);
    if (pid == 0) {
        ncsi_fault_plan p;
        int s;
        close(fd[0]);
        crash_pipe = fd[1];
        memset(&p, 0, sizeof p);
        p.kind = w->kind;
        p.torn = w->torn;
        p.nth = n;
        p.on_fire = hot ? die_hot : die;
        ncsi_fault_io_install_plan(&p);
        s = fn();
        _exit(s == NCS_NOERR ? 3 : 4);
    }
    close(fd[1]);
    if (read(fd[0], &moment, 1) == 1)
        kill(pid, SIGKILL);
    else
        moment = 0;             /* it went on to its end */
    waitpid(pid, &wst, 0);
    close(fd[0]);
    if (WIFSIGNALED(wst)) {
        ck_assert_msg(WTERMSIG(wst) == SIGKILL && moment != 0, "child died of signal %d",
                      WTERMSIG(wst));
        return moment == 'y' ? 1 : -1;
    }
    ck_assert_msg(WEXITSTATUS(wst) == 3, "child exit status %d (4: its calls failed without "
                  "a fault; under valgrind, 1: valgrind found errors)", WEXITSTATUS(wst));
    return 0;
}

static int crash_at_write(int (*fn)(void), unsigned long long n)
{
    return crash_at(fn, &at_write, n, 0);
}

static int open_and_redefine(void)
{
    int nc, s = ncs_open(path, NCS_WRITE, &nc);
    if (s == NCS_NOERR)
        s = redefine(nc);
    if (s == NCS_NOERR)
        s = ncs_close(nc);
    return s;
}

static const struct crash_case {
    const char *format;
    int cmode;
    when w;
} crash_cases[] = {
    { "cdf1", 0, { "write", NCSI_FAULT_WRITE, 0 } },
    { "cdf2", NCS_64BIT_OFFSET, { "write", NCSI_FAULT_WRITE, 0 } },
    { "cdf5", NCS_64BIT_DATA, { "write", NCSI_FAULT_WRITE, 0 } },
    { "cdf1", 0, { "torn write", NCSI_FAULT_WRITE, 1 } },
    { "cdf1", 0, { "sync", NCSI_FAULT_SYNC, 0 } },
};

START_TEST(crash_every_write)
{
    const struct crash_case *c = &crash_cases[_i];
    int hot = 0, old = 0, new = 0;
    unsigned long long n;
    set_paths("crash");
    for (n = 1;; n++) {
        int crashed, had_journal;
        make_base(c->cmode);
        crashed = crash_at(open_and_redefine, &c->w, n, 0);
        had_journal = exists(jpath);
        if (check_base())
            new++;
        else
            old++;
        hot += had_journal;
        if (!crashed)
            break;
    }
    printf("crash at every %s, %s: %llu crashes; then %d files in the old layout, %d in the "
           "new, %d with a journal\n", c->w.name, c->format, n - 1, old, new, hot);
    ck_assert_msg(hot > 0 && old > 1 && new >= 1, "the crashes did not land in the enddef");
    remove_files();
}
END_TEST

/* ---- what is journaled ------------------------------------------------------------------ */

static off_t seen_journal;      /* largest journal size at a write to the data file */
static int writes_with_journal;

static void measure(void *arg, const char *p)
{
    off_t sz = file_size(jpath);
    (void)arg;
    if (strcmp(p, path) == 0 && sz >= 0) {
        writes_with_journal++;
        if (sz > seen_journal)
            seen_journal = sz;
    }
}

/* Runs fn once for every N with the Nth write failing (fn must cope),
 * looking at the journal at each failing write of the data file. */
static void observe(int (*fn)(void), void (*prepare)(void))
{
    seen_journal = 0;
    writes_with_journal = 0;
    for (unsigned long long n = 1;; n++) {
        ncsi_fault_plan p;
        int fired;
        prepare();
        memset(&p, 0, sizeof p);
        p.kind = NCSI_FAULT_WRITE;
        p.nth = n;
        p.on_fire = measure;
        ncsi_fault_io_install_plan(&p);
        fn();
        fired = ncsi_fault_io_fired();
        ncsi_fault_io_remove();
        ck_assert_msg(!exists(jpath), "a journal left after a failed redefinition");
        if (!fired)
            break;
    }
}

static void prepare_roomy(void)
{
    int nc, d, v;
    OK(ncs_create(path, NCS_CLOBBER, &nc));
    OK(ncs_def_dim(nc, "x", 100000, &d));
    OK(ncs_def_var(nc, "V", NCS_INT, 1, &d, &v));
    /* room for the header to grow without moving V */
    OK(ncs__enddef(nc, 4096, 4, 0, 4));
    OK(ncs_close(nc));
}

static int header_only(void)
{
    int nc, s = ncs_open(path, NCS_WRITE, &nc);
    if (s != NCS_NOERR)
        return s;
    s = ncs_redef(nc);
    if (s == NCS_NOERR)
        s = ncs_put_att(nc, NCS_GLOBAL, "title", NCS_CHAR, 50, NCS_CHAR,
                        "a title that makes the header grow in its room....");
    if (s == NCS_NOERR)
        s = ncs_enddef(nc);
    if (s != NCS_NOERR)
        ncs_abort(nc);
    else
        s = ncs_close(nc);
    return s;
}

static void prepare_uncommitted(void)
{
}

static int uncommitted(void)
{
    int nc, d, v, s;
    int vals[1000] = { 0 };
    size_t st = 0, ct = 1000;
    s = ncs_create(path, NCS_CLOBBER, &nc);
    if (s != NCS_NOERR)
        return s;
    if ((s = ncs_def_dim(nc, "x", 1000, &d)) == NCS_NOERR &&
        (s = ncs_def_var(nc, "V", NCS_INT, 1, &d, &v)) == NCS_NOERR &&
        (s = ncs_enddef(nc)) == NCS_NOERR &&
        (s = ncs_put(nc, v, &st, &ct, NULL, NULL, NCS_INT, vals)) == NCS_NOERR &&
        (s = ncs_redef(nc)) == NCS_NOERR &&
        (s = ncs_def_var(nc, "W", NCS_INT, 1, &d, &v)) == NCS_NOERR &&
        (s = ncs_put_att(nc, NCS_GLOBAL, "a", NCS_CHAR, 5, NCS_CHAR, "grows")) == NCS_NOERR)
        s = ncs_enddef(nc);
    if (s != NCS_NOERR)
        ncs_abort(nc);
    else
        s = ncs_close(nc);
    return s;
}

#define SPARSE_N (1024 * 1024)        /* 4 MiB of int, mostly holes */

static void prepare_sparse(void)
{
    int nc, d, v, one = 7;
    size_t at[3] = { 0, SPARSE_N / 2, SPARSE_N - 1 };
    OK(ncs_create(path, NCS_CLOBBER | NCS_64BIT_DATA, &nc));
    OK(ncs_set_fill(nc, NCS_NOFILL, NULL));
    OK(ncs_def_dim(nc, "x", SPARSE_N, &d));
    OK(ncs_def_var(nc, "V", NCS_INT, 1, &d, &v));
    OK(ncs_enddef(nc));
    for (int k = 0; k < 3; k++)
        OK(ncs_put1(nc, v, &at[k], NCS_INT, &one));
    OK(ncs_close(nc));
}

/* The header grows and V, 4 MiB of which three values are not zero,
 * moves. */
static int sparse_move(void)
{
    return header_only();
}

START_TEST(journal_contents)
{
    set_paths("contents");
    observe(header_only, prepare_roomy);
    printf("header-only redefinition: journal of %lld bytes at most, seen at %d writes\n",
           (long long)seen_journal, writes_with_journal);
    /* magic and size, one record of the old header (under 200 bytes), CRC */
    ck_assert_msg(writes_with_journal > 0 && seen_journal > 0 && seen_journal < 16 + 20 + 200 + 4,
                  "header-only journal: %lld bytes", (long long)seen_journal);

    observe(uncommitted, prepare_uncommitted);
    ck_assert_msg(writes_with_journal == 0,
                  "a journal for a file created and never synced (%d writes)",
                  writes_with_journal);

    observe(sparse_move, prepare_sparse);
    printf("4 MiB sparse variable moved: journal of %lld bytes at most, seen at %d writes\n",
           (long long)seen_journal, writes_with_journal);
    /* the header, and around each of the three values one 4 KiB block
     * (two for the last, whose block the file's end may cut), the rest
     * ZERO records, one per run */
    ck_assert_msg(writes_with_journal > 0 && seen_journal < 5 * 4096 + 16 * 20,
                  "sparse journal: %lld bytes", (long long)seen_journal);
    {
        /* and the data came through */
        int nc, v, got;
        size_t at[4] = { 0, SPARSE_N / 2, SPARSE_N - 1, 12345 };
        OK(ncs_open(path, NCS_NOWRITE, &nc));
        OK(ncs_inq_varid(nc, "V", &v));
        for (int k = 0; k < 4; k++) {
            OK(ncs_get1(nc, v, &at[k], NCS_INT, &got));
            ck_assert_int_eq(got, k < 3 ? 7 : 0);
        }
        OK(ncs_close(nc));
    }
    remove_files();
}
END_TEST

/* ---- records past 4 GiB ----------------------------------------------------------------- */

#define BIG_N ((size_t)5 << 28)     /* 5 GiB of int: never written, a hole */

static void make_big(void)
{
    int nc, d[3], v;
    short s[4 * 10];
    size_t st[2] = { 0, 0 }, ct[2] = { 4, 10 };
    for (int k = 0; k < 40; k++)
        s[k] = (short)(k + 1);
    OK(ncs_create(path, NCS_CLOBBER | NCS_64BIT_DATA, &nc));
    OK(ncs_set_fill(nc, NCS_NOFILL, NULL));
    OK(ncs_def_dim(nc, "rec", NCS_UNLIMITED, &d[0]));
    OK(ncs_def_dim(nc, "big", BIG_N, &d[1]));
    OK(ncs_def_dim(nc, "x", 10, &d[2]));
    OK(ncs_def_var(nc, "H", NCS_INT, 1, &d[1], &v));
    d[1] = d[2];
    OK(ncs_def_var(nc, "R", NCS_SHORT, 2, d, &v));
    /* room for the header: H stays where it is */
    OK(ncs__enddef(nc, 1024, 4, 0, 4));
    OK(ncs_put(nc, v, st, ct, NULL, NULL, NCS_SHORT, s));
    OK(ncs_close(nc));
}

static int add_recvar(void)
{
    int nc, d[2], v, s = ncs_open(path, NCS_WRITE, &nc);
    if (s != NCS_NOERR)
        return s;
    ncs_inq_dimid(nc, "rec", &d[0]);
    ncs_inq_dimid(nc, "x", &d[1]);
    if ((s = ncs_redef(nc)) == NCS_NOERR && (s = ncs_def_var(nc, "Q", NCS_INT, 2, d, &v)) == 0)
        s = ncs_enddef(nc);
    if (s == NCS_NOERR)
        s = ncs_close(nc);
    return s;
}

START_TEST(past_4gib)
{
    int old = 0, new = 0, hot = 0;
    unsigned long long n;
    set_paths("big");
    for (n = 1;; n++) {
        int crashed, nc, v, nvars;
        short s[40];
        size_t st[2] = { 0, 0 }, ct[2] = { 4, 10 };
        make_big();
        crashed = crash_at_write(add_recvar, n);
        hot += exists(jpath);
        OK(ncs_open(path, NCS_NOWRITE, &nc));
        OK(ncs_inq_nvars(nc, &nvars));
        OK(ncs_inq_varid(nc, "R", &v));
        OK(ncs_get(nc, v, st, ct, NULL, NULL, NCS_SHORT, s));
        for (int k = 0; k < 40; k++)
            ck_assert_msg(s[k] == k + 1, "R[%d] = %d after a crash at write %llu", k, s[k], n);
        OK(ncs_close(nc));
        ck_assert(!exists(jpath));
        if (nvars == 3)
            new++;
        else
            old++;
        if (!crashed)
            break;
    }
    printf("records past 5 GiB: %llu writes; %d old, %d new, %d with a journal; file size "
           "%lld\n", n - 1, old, new, hot, (long long)file_size(path));
    ck_assert(hot > 0);
    remove_files();
}
END_TEST

/* ---- damaged journals ------------------------------------------------------------------- */

/* Leaves a hot journal: a child crashed at its first write to the data
 * file once the journal was made. */
static void make_hot(void)
{
    for (unsigned long long n = 1;; n++) {
        int c;
        make_base(0);
        c = crash_at(open_and_redefine, &at_write, n, 1);
        ck_assert_msg(c != 0, "no write to the data file under a journal");
        if (c == 1)
            return;
    }
}

/* Writes the first keep bytes of from to to. */
static void copy_prefix(const char *from, const char *to, off_t keep)
{
    int in = open(from, O_RDONLY), out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    char b[4096];
    ssize_t k;
    ck_assert(in >= 0 && out >= 0);
    while (keep > 0 && (k = read(in, b, keep < 4096 ? (size_t)keep : 4096)) > 0) {
        ck_assert(write(out, b, (size_t)k) == k);
        keep -= k;
    }
    close(in);
    close(out);
}

START_TEST(partial_journal)
{
    char full[340];
    off_t size;
    unsigned char c;
    int fd, lengths = 0;
    set_paths("partial");
    snprintf(full, sizeof full, "%s.full", jpath);
    /* cut short: at any length, deleted and not used (the data file the
     * crash left is untouched) */
    make_hot();
    size = file_size(jpath);
    ck_assert(rename(jpath, full) == 0);
    for (off_t keep = 0; keep < size; keep += 1 + keep / 4, lengths++) {
        copy_prefix(full, jpath, keep);
        ck_assert_msg(!check_base(), "cut at %lld: new layout", (long long)keep);
    }
    /* the whole of it is hot */
    ck_assert(rename(full, jpath) == 0);
    ck_assert(!check_base());
    /* one byte damaged in the middle: deleted as well */
    make_hot();
    fd = open(jpath, O_RDWR);
    ck_assert(fd >= 0);
    ck_assert(pread(fd, &c, 1, size / 2) == 1);
    c ^= 0x40;
    ck_assert(pwrite(fd, &c, 1, size / 2) == 1);
    close(fd);
    ck_assert(!check_base());
    printf("partial journals: %d lengths of %lld bytes, and a damaged byte, deleted\n",
           lengths, (long long)size);
    remove_files();
}
END_TEST

/* Writes a journal for path by hand, as doc/reliability.md's table
 * describes it: old_size, then records (tag, off, len, bytes), then the
 * CRC of everything before it.  A record of tag "ZERO" has no bytes. */
typedef struct hand_rec {
    const char *tag;
    uint64_t off, len;
    const char *bytes;
} hand_rec;

static void put_be(unsigned char *p, uint64_t v, int n)
{
    for (int i = 0; i < n; i++)
        p[i] = (unsigned char)(v >> (8 * (n - 1 - i)));
}

static void hand_journal(uint64_t old_size, const hand_rec *r, int n)
{
    unsigned char b[4096];
    size_t k = 0;
    FILE *fp = fopen(jpath, "wb");
    ck_assert(fp != NULL);
    memcpy(b, "NCSJRNL1", 8);
    put_be(b + 8, old_size, 8);
    k = 16;
    for (int i = 0; i < n; i++) {
        memcpy(b + k, r[i].tag, 4);
        put_be(b + k + 4, r[i].off, 8);
        put_be(b + k + 12, r[i].len, 8);
        k += 20;
        if (strcmp(r[i].tag, "ZERO") != 0) {
            memcpy(b + k, r[i].bytes, r[i].len);
            k += r[i].len;
        }
    }
    put_be(b + k, crc32(0L, b, (uInt)k), 4);
    k += 4;
    ck_assert(fwrite(b, 1, k, fp) == k);
    fclose(fp);
}

/* Reads the first n bytes of the data file. */
static void head_bytes(unsigned char *b, size_t n)
{
    FILE *fp = fopen(path, "rb");
    ck_assert(fp != NULL && fread(b, 1, n, fp) == n);
    fclose(fp);
}

START_TEST(journal_format)
{
    unsigned char before[64], after[64];
    off_t size;
    int nc;
    set_paths("format");
    make_base(0);
    size = file_size(path);
    head_bytes(before, sizeof before);
    /* what a writer would have journaled had it crashed after writing
     * "XXXX" over bytes 40-43 and "YYYY" over 4 zero bytes of the header
     * (the record dimension's length), and grown the file by 100 */
    {
        uint64_t z = 8;
        while (z + 4 <= 40 && memcmp(before + z, "\0\0\0\0", 4) != 0)
            z++;
        ck_assert(z + 4 <= 40);
        hand_rec r[2] = { { "ZERO", z, 4, NULL }, { "DATA", 40, 4, (const char *)before + 40 } };
        FILE *fp = fopen(path, "r+b");
        ck_assert(fp != NULL);
        fseek(fp, 40, SEEK_SET);
        fwrite("XXXX", 1, 4, fp);
        fseek(fp, (long)z, SEEK_SET);
        fwrite("YYYY", 1, 4, fp);
        fseek(fp, size + 99, SEEK_SET);
        fputc(1, fp);
        fclose(fp);
        hand_journal((uint64_t)size, r, 2);
    }
    OK(ncs_open(path, NCS_NOWRITE, &nc));
    OK(ncs_close(nc));
    ck_assert(!exists(jpath));
    ck_assert_int_eq((long)file_size(path), (long)size);
    head_bytes(after, sizeof after);
    ck_assert(memcmp(before, after, sizeof after) == 0);

    /* complete, CRC right, but a range past the old size or an unknown
     * tag: not a journal ncslab wrote; deleted, nothing applied */
    {
        hand_rec bad1[1] = { { "DATA", (uint64_t)size - 2, 4, "ZZZZ" } };
        hand_rec bad2[1] = { { "DATB", 0, 4, "ZZZZ" } };
        hand_journal((uint64_t)size, bad1, 1);
        OK(ncs_open(path, NCS_NOWRITE, &nc));
        OK(ncs_close(nc));
        ck_assert(!exists(jpath));
        hand_journal((uint64_t)size, bad2, 1);
        OK(ncs_open(path, NCS_NOWRITE, &nc));
        OK(ncs_close(nc));
        ck_assert(!exists(jpath));
        head_bytes(after, sizeof after);
        ck_assert(memcmp(before, after, sizeof after) == 0);
    }
    ck_assert(!check_base());
    remove_files();
}
END_TEST

/* A crash in the middle of a rollback at open: the next open does it. */
static int open_readonly(void)
{
    int nc, s = ncs_open(path, NCS_NOWRITE, &nc);
    if (s == NCS_NOERR)
        s = ncs_close(nc);
    return s;
}

START_TEST(crash_in_recovery)
{
    unsigned long long n;
    set_paths("recovery");
    for (n = 1;; n++) {
        int crashed;
        make_hot();
        crashed = crash_at_write(open_readonly, n);
        ck_assert(!check_base());
        if (!crashed)
            break;
    }
    printf("crash_in_recovery: %llu writes of a rollback, each crashed, rolled back again\n",
           n - 1);
    ck_assert(n > 1);
    remove_files();
}
END_TEST

/* ---- the lock ---------------------------------------------------------------------------------- */

START_TEST(lock)
{
    int nc, fd, s;
    set_paths("lock");
    make_base(0);
    OK(ncs_open(path, NCS_WRITE, &nc));
    fd = open(path, O_RDONLY);
    ck_assert(fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) == 0);
    /* another handle holds the lock: the redefinition waits for nothing */
    s = redefine(nc);
    ck_assert_msg(s == EBUSY, "enddef under another's lock: %d (%s)", s, ncs_strerror(s));
    ck_assert(!exists(jpath));
    flock(fd, LOCK_UN);
    OK(ncs_enddef(nc));
    OK(ncs_close(nc));
    ck_assert(check_base());

    /* a hot journal whose lock is held is a live writer's: left alone */
    make_hot();
    ck_assert(flock(fd, LOCK_EX | LOCK_NB) == 0);
    s = ncs_open(path, NCS_NOWRITE, &nc);
    ck_assert_msg(s == EBUSY, "open under a live writer's lock: %d (%s)", s, ncs_strerror(s));
    ck_assert(exists(jpath));
    flock(fd, LOCK_UN);
    close(fd);
    check_base();
    remove_files();
}
END_TEST

START_TEST(create_removes)
{
    int nc, nvars;
    set_paths("create");
    make_hot();
    OK(ncs_create(path, NCS_CLOBBER, &nc));
    ck_assert(!exists(jpath));
    OK(ncs_enddef(nc));
    OK(ncs_close(nc));
    OK(ncs_open(path, NCS_NOWRITE, &nc));
    OK(ncs_inq_nvars(nc, &nvars));
    ck_assert_int_eq(nvars, 0);
    OK(ncs_close(nc));
    remove_files();
}
END_TEST

/* A name with no room for the suffix (NAME_MAX 255): no journal can
 * exist, and redefinitions go on without one. */
START_TEST(long_name)
{
    char name[300];
    int n = snprintf(name, sizeof name, "ut_journal_%ld_", (long)getpid());
    memset(name + n, 'n', 250 - (size_t)n);
    strcpy(name + 250, ".nc");
    snprintf(path, sizeof path, "%s", name);
    snprintf(jpath, sizeof jpath, "%s%s", path, NCSI_JOURNAL_SUFFIX);
    make_base(NCS_64BIT_OFFSET);
    OK(open_and_redefine());
    ck_assert(check_base());
    remove_files();
}
END_TEST

START_TEST(readonly)
{
    int nc, s;
    set_paths("readonly");
    if (geteuid() == 0) {
        printf("readonly: skipped (root opens read-only files for writing)\n");
        return;
    }
    make_hot();
    ck_assert(chmod(path, 0444) == 0);
    s = ncs_open(path, NCS_NOWRITE, &nc);
    ck_assert_msg(s == NCS_EPERM, "open of a read-only file with a hot journal: %d (%s)", s,
                  ncs_strerror(s));
    ck_assert(exists(jpath));
    ck_assert(chmod(path, 0644) == 0);
    check_base();
    remove_files();
}
END_TEST

int main(void)
{
    Suite *s = suite_create("journal");
    TCase *tc = tcase_create("journal");
    SRunner *sr;
    int nfail;
    tcase_set_timeout(tc, 300);
    tcase_add_loop_test(tc, crash_every_write, 0,
                        (int)(sizeof crash_cases / sizeof crash_cases[0]));
    tcase_add_test(tc, journal_contents);
    tcase_add_test(tc, past_4gib);
    tcase_add_test(tc, partial_journal);
    tcase_add_test(tc, journal_format);
    tcase_add_test(tc, crash_in_recovery);
    tcase_add_test(tc, lock);
    tcase_add_test(tc, create_removes);
    tcase_add_test(tc, long_name);
    tcase_add_test(tc, readonly);
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    nfail = srunner_ntests_failed(sr);
    srunner_free(sr);
    return nfail == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
