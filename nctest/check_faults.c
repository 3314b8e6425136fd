/*
 * check_faults.c -- every read, write, sync, set_size, size and allocation
 * of a scripted session fails in turn; the library must report it and the
 * file must keep what was committed before the fault.
 *
 * The script (classic CDF-1, CDF-2, CDF-5; small records and, for CDF-1,
 * records larger than a cache page): create, define, enddef, write a fixed
 * variable and records, sync, append, redef adding a fixed and a record
 * variable and a long attribute (the data moves), enddef, write the new
 * variables, append, sync, append, close, reopen for writing, append, sync,
 * read everything, close, reopen read-only, read everything, close.
 *
 * A counting run finds how many operations of each kind the script makes;
 * then for every N (up to NCS_FAULT_MAXN, default unbounded; past it a
 * sample seeded by NCS_FAULT_SEED, printed) the Nth operation fails.  Each
 * run happens in a child process, so a crash is a finding, not the end of
 * the test.  In each run:
 *   - the first failing call must return an error (an NCS_E* code or an
 *     errno value); no successful get may return a wrong value;
 *   - a copy of the file taken at the moment of the fault (what a process
 *     killed then would leave) must open and hold exactly what the last
 *     successful ncs_sync or ncs_close committed;
 *   - the fault removed (or, for a sticky fault, still active), ncs_close
 *     is called; the file must then hold the committed content, and, when
 *     that close succeeded, every value whose put succeeded too;
 *   - anything else in the file (records or variables written after the
 *     commit) reads as the value written or the fill value, nothing else;
 *   - no memory is left allocated once the file is closed.
 * Values encode variable, record and index: code*10^7 + rec*10^5 + i.
 *
 * The "truncated" case cuts a complete file at every length: opening it
 * read-only and reading every variable must give the exact values or an
 * error, never fill values in place of the missing bytes.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ncslab.h"
#include "ncs_int.h"
#include "io_fault.h"

#define NVARS   5           /* F, R, T, then G, S added after redef */
#define MAXREC  13          /* records the script writes */
#define PAGE    (64 * 1024) /* classic.c's cache page */

static const char *const vname[NVARS] = { "F", "R", "T", "G", "S" };
static const int vrec[NVARS] = { 0, 1, 1, 0, 1 };
static const int vxdim[NVARS] = { 1, 1, 0, 1, 1 };   /* has the x dimension */
static const int vtype[NVARS] = { NCS_INT, NCS_INT, NCS_DOUBLE, NCS_DOUBLE, NCS_INT };

static double value(int v, size_t rec, size_t i)
{
    return (v + 1) * 1e7 + (double)rec * 1e5 + (double)i;
}

static double fill_of(int v)
{
    return vtype[v] == NCS_INT ? (double)NCS_FILL_INT : NCS_FILL_DOUBLE;
}

/* What a file must hold: which values must be exact; the rest may be the
 * value written or the fill value. */
typedef struct expect {
    int valid;                      /* the file must open */
    size_t nrec_min;                /* numrecs at least */
    unsigned char ok[NVARS][MAXREC]; /* [v][0] for fixed variables */
} expect;

/* One run of the script. */
typedef struct run {
    const char *path;
    int cmode;
    size_t nx;
    int ncid;                       /* -1: not open */
    expect cur;                     /* every put that succeeded */
    expect committed;               /* as of the last sync or close */
    int status;                     /* first error */
    int line;                       /* where */
    char what[96];
    char wrong[200];                /* a successful get with wrong data */
    double *buf;
} run;

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

/* ---- verification -------------------------------------------------------- */

/* Verdicts of verify, worst last. */
#define V_OK      0
#define V_EXTRA   1     /* uncommitted content neither written value nor fill,
                           or a record within numrecs unreadable */
#define V_LOST    2     /* committed content gone or wrong */

static int verdict(int *worst, int v, char *msg, size_t msz, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static int verdict(int *worst, int v, char *msg, size_t msz, const char *fmt, ...)
{
    if (v > *worst) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, msz, fmt, ap);
        va_end(ap);
        *worst = v;
    }
    return v;
}

/* Checks path against e; returns a V_* verdict, the worst finding in msg.
 * Committed values must read back exactly; anything else the file holds
 * (a record within numrecs, a variable defined after the commit) must read
 * as the value written or the fill value.  A fixed variable nothing
 * committed may also fail to read (the header describing it may be in the
 * file before its data; the read then reports it). */
static int verify(const char *path, const expect *e, size_t nx, char *msg, size_t msz)
{
    int ncid, status, nrec_dim = -1, worst = V_OK;
    size_t nrec = 0;
    double *b = malloc(nx * sizeof *b);

    status = ncs_open(path, NCS_NOWRITE, &ncid);
    if (status != NCS_NOERR) {
        if (e->valid)
            verdict(&worst, V_LOST, msg, msz, "open: %d (%s)", status, ncs_strerror(status));
        free(b);
        return worst;
    }
    if (ncs_inq_dimid(ncid, "rec", &nrec_dim) == NCS_NOERR)
        ncs_inq_dimlen(ncid, nrec_dim, &nrec);
    if (e->valid && nrec < e->nrec_min)
        verdict(&worst, V_LOST, msg, msz, "numrecs %zu < committed %zu", nrec, e->nrec_min);
    if (nrec > MAXREC) {
        verdict(&worst, V_EXTRA, msg, msz, "numrecs %zu > records ever written", nrec);
        nrec = MAXREC;
    }
    for (int v = 0; v < NVARS; v++) {
        int varid, need = 0;
        size_t per = vxdim[v] ? nx : 1, nr = vrec[v] ? nrec : 1;
        for (size_t r = 0; r < MAXREC; r++)
            need |= e->ok[v][r];
        if (ncs_inq_varid(ncid, vname[v], &varid) != NCS_NOERR) {
            if (need)
                verdict(&worst, V_LOST, msg, msz, "variable %s missing", vname[v]);
            continue;
        }
        for (size_t r = 0; r < nr; r++) {
            size_t start[2] = { r, 0 }, count[2] = { 1, per };
            int must = e->ok[v][r];
            if (!vrec[v]) {
                start[0] = 0;
                count[0] = per;
            }
            status = ncs_get(ncid, varid, start, count, NULL, NULL, NCS_DOUBLE, b);
            if (status != NCS_NOERR) {
                if (must || vrec[v])
                    verdict(&worst, must ? V_LOST : V_EXTRA, msg, msz,
                            "get %s record %zu of %zu: %d (%s)", vname[v], r, nrec, status,
                            ncs_strerror(status));
                continue;
            }
            for (size_t i = 0; i < per; i++) {
                double got = b[i], want = value(v, vrec[v] ? r : 0, i);
                if (got == want || (!must && got == fill_of(v)))
                    continue;
                verdict(&worst, must ? V_LOST : V_EXTRA, msg, msz,
                        "%s[%zu][%zu] = %.17g, want %.17g%s (numrecs %zu)", vname[v], r, i,
                        got, want, must ? " (committed)" : " or fill", nrec);
                break;
            }
        }
    }
    free(b);
    ncs_close(ncid);
    return worst;
}

/* ---- the script ------------------------------------------------------------ */

#define STEP(call)                                                          \
    do {                                                                    \
        int s_ = (call);                                                    \
        if (s_ != NCS_NOERR) {                                              \
            r->status = s_;                                                 \
            r->line = __LINE__;                                             \
            snprintf(r->what, sizeof r->what, "%s", #call);                 \
            return s_;                                                      \
        }                                                                   \
    } while (0)

static int put_var(run *r, int v, size_t rec)
{
    size_t start[2] = { rec, 0 }, count[2], per = vxdim[v] ? r->nx : 1;
    for (size_t i = 0; i < per; i++)
        r->buf[i] = value(v, rec, i);
    if (vrec[v]) {
        count[0] = 1;
        count[1] = per;
    } else {
        start[0] = 0;
        count[0] = per;
    }
    return ncs_put(r->ncid, v, start, count, NULL, NULL, NCS_DOUBLE, r->buf);
}

/* Puts and records success in r->cur. */
static int put(run *r, int v, size_t rec)
{
    int s = put_var(r, v, rec);
    if (s == NCS_NOERR) {
        r->cur.ok[v][vrec[v] ? rec : 0] = 1;
        if (vrec[v] && rec + 1 > r->cur.nrec_min)
            r->cur.nrec_min = rec + 1;
    }
    return s;
}

static int get_check(run *r, int v, size_t nrec)
{
    size_t start[2] = { 0, 0 }, count[2], per = vxdim[v] ? r->nx : 1, nr = vrec[v] ? nrec : 1;
    double *b = malloc((nr * per + 1) * sizeof *b);
    int s;
    count[0] = vrec[v] ? nrec : per;
    count[1] = per;
    s = ncs_get(r->ncid, v, start, count, NULL, NULL, NCS_DOUBLE, b);
    for (size_t k = 0; s == NCS_NOERR && k < nr * per && r->wrong[0] == '\0'; k++) {
        double want = value(v, vrec[v] ? k / per : 0, k % per);
        if (b[k] != want)
            snprintf(r->wrong, sizeof r->wrong, "get %s elem %zu = %.17g, want %.17g",
                     vname[v], k, b[k], want);
    }
    free(b);
    return s;
}

static void commit(run *r)
{
    r->committed = r->cur;
    r->committed.valid = 1;
}

static int script(run *r)
{
    int dims[2], vid, ncid;
    static char history[600];
    size_t len;
    memset(history, 'h', sizeof history - 1);

    STEP(ncs_create(r->path, r->cmode | NCS_CLOBBER, &ncid));
    r->ncid = ncid;
    STEP(ncs_def_dim(ncid, "rec", NCS_UNLIMITED, &dims[0]));
    STEP(ncs_def_dim(ncid, "x", r->nx, &dims[1]));
    STEP(ncs_def_var(ncid, "F", NCS_INT, 1, &dims[1], &vid));
    STEP(ncs_def_var(ncid, "R", NCS_INT, 2, dims, &vid));
    STEP(ncs_def_var(ncid, "T", NCS_DOUBLE, 1, dims, &vid));
    STEP(ncs_put_att(ncid, NCS_GLOBAL, "title", NCS_CHAR, 5, NCS_CHAR, "fault"));
    STEP(ncs_enddef(ncid));
    STEP(put(r, 0, 0));
    for (size_t rec = 0; rec < 4; rec++) {
        STEP(put(r, 1, rec));
        STEP(put(r, 2, rec));
    }
    STEP(ncs_sync(ncid));
    commit(r);
    for (size_t rec = 4; rec < 6; rec++) {
        STEP(put(r, 1, rec));
        STEP(put(r, 2, rec));
    }
    STEP(ncs_redef(ncid));
    STEP(ncs_def_var(ncid, "G", NCS_DOUBLE, 1, &dims[1], &vid));
    STEP(ncs_def_var(ncid, "S", NCS_INT, 2, dims, &vid));
    STEP(ncs_put_att(ncid, NCS_GLOBAL, "history", NCS_CHAR, sizeof history - 1, NCS_CHAR,
                     history));
    STEP(ncs_enddef(ncid));
    STEP(put(r, 3, 0));
    for (size_t rec = 0; rec < 6; rec++)
        STEP(put(r, 4, rec));
    for (size_t rec = 6; rec < 9; rec++) {
        STEP(put(r, 1, rec));
        STEP(put(r, 2, rec));
        STEP(put(r, 4, rec));
    }
    STEP(ncs_sync(ncid));
    commit(r);
    for (size_t rec = 9; rec < 11; rec++) {
        STEP(put(r, 1, rec));
        STEP(put(r, 2, rec));
        STEP(put(r, 4, rec));
    }
    r->ncid = -1;
    STEP(ncs_close(ncid));
    commit(r);

    STEP(ncs_open(r->path, NCS_WRITE, &ncid));
    r->ncid = ncid;
    for (size_t rec = 11; rec < MAXREC; rec++) {
        STEP(put(r, 1, rec));
        STEP(put(r, 2, rec));
        STEP(put(r, 4, rec));
    }
    STEP(ncs_sync(ncid));
    commit(r);
    for (int v = 0; v < NVARS; v++)
        STEP(get_check(r, v, MAXREC));
    r->ncid = -1;
    STEP(ncs_close(ncid));
    commit(r);

    STEP(ncs_open(r->path, NCS_NOWRITE, &ncid));
    r->ncid = ncid;
    STEP(ncs_inq_dimlen(ncid, dims[0], &len));
    if (len != MAXREC)
        snprintf(r->wrong, sizeof r->wrong, "numrecs %zu after reopen", len);
    for (int v = 0; v < NVARS; v++)
        STEP(get_check(r, v, MAXREC));
    r->ncid = -1;
    STEP(ncs_close(ncid));
    return NCS_NOERR;
}

/* ---- one faulted run ------------------------------------------------------- */

#define KIND_ALLOC NCSI_FAULT_NKINDS     /* allocation, through ncsi_fault_alloc */
static const char *const kind_name[] = { "read", "write", "sync", "set_size", "size", "alloc" };

typedef struct mode {
    int kind;
    int sticky, torn;
    int status;
} mode;

static char snap_path[300];
static int snap_taken;
static int keep_files;      /* NCS_FAULT_ONLY: leave the files for a look */

/* Copies a file with system calls only (no allocation). */
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

static void on_fire(void *arg, const char *path)
{
    (void)arg;
    copy_file(path, snap_path);
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

    heap0 = heap_in_use();
    memset(&r, 0, sizeof r);
    memset(res, 0, sizeof *res);
    r.path = path;
    r.cmode = cmode;
    r.nx = nx;
    r.ncid = -1;
    r.buf = malloc(nx * sizeof *r.buf);
    snprintf(snap_path, sizeof snap_path, "%s.snap", path);
    unlink(path);
    unlink(snap_path);
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
    status = script(&r);
    snap_e = r.committed;
    if (md->kind == KIND_ALLOC) {
        ncsi_fault_alloc(0);
        if (status != NCS_NOERR) {
            copy_file(path, snap_path);
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
        res->snap_bad = verify(snap_path, &snap_e, nx, m, sizeof m);
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
        res->final_bad = verify(path, &fe, nx, m, sizeof m);
        if (res->final_bad) {
            snprintf(res->msg, sizeof res->msg, "after close (%d): %s", res->close_status, m);
        }
    }
    free(r.buf);
    if (heap_in_use() != heap0) {
        res->leak = 1;
        if (res->msg[0] == '\0')
            snprintf(res->msg, sizeof res->msg, "%zd bytes still allocated",
                     (ssize_t)(heap_in_use() - heap0));
    }
    if (!keep_files) {
        unlink(path);
        unlink(snap_path);
    }
}

/* Runs one_run in a child; a crash becomes res->crashed. */
static void forked_run(const char *path, int cmode, size_t nx, const mode *md,
                       unsigned long long nth, result *res)
{
    int fd[2], wst;
    pid_t pid;
    ck_assert(pipe(fd) == 0);
    pid = fork();
    ck_assert(pid >= 0);
    if (pid == 0) {
        close(fd[0]);
        one_run(path, cmode, nx, md, nth, res);
        if (write(fd[1], res, sizeof *res) != (ssize_t)sizeof *res)
            _exit(3);
        _exit(0);
    }
    close(fd[1]);
    memset(res, 0, sizeof *res);
    if (read(fd[0], res, sizeof *res) != (ssize_t)sizeof *res)
        res->crashed = -1;
    close(fd[0]);
    waitpid(pid, &wst, 0);
    if (WIFSIGNALED(wst)) {
        res->crashed = WTERMSIG(wst);
        unlink(path);
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
    memset(&r, 0, sizeof r);
    r.path = path;
    r.cmode = cmode;
    r.nx = nx;
    r.ncid = -1;
    r.buf = malloc(nx * sizeof *r.buf);
    ncsi_fault_alloc(big);
    if (script(&r) != NCS_NOERR) {
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
    unlink(path);
    (void)md;
    (void)res;
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
    unsigned long long maxn = env_ull("NCS_FAULT_MAXN", 0);
    char path[200];
    int bad_total = 0, shown = 0;

    snprintf(path, sizeof path, "ut_faults_%s_%ld.nc", label, (long)getpid());
    count_ops(path, cmode, nx, n);
    printf("%s: script makes %llu reads, %llu writes, %llu syncs, %llu set_size, "
           "%llu size, %llu allocations\n", label, n[0], n[1], n[2], n[3], n[4], n[5]);
    for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++) {
        const mode *md = &modes[m];
        unsigned long long count = n[md->kind], runs = 0, fired = 0;
        int errors[NCATS] = { 0 }, bad = 0, other_code = 0;
        for (unsigned long long nth = 1; nth <= count; nth++) {
            result res;
            if (maxn != 0 && nth > maxn && rng() % (count - maxn) >= 100)
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

START_TEST(faults_cdf1_big)
{
    /* records of 68 KB: puts bypass the page cache */
    int bad = fault_matrix("cdf1big", 0, PAGE / 4 + 616);
    ck_assert_msg(bad == 0, "%d faulted runs went wrong (see the log)", bad);
}
END_TEST

/* ---- truncated files ------------------------------------------------------------------- */

static int truncated_one(const char *full, const char *cut, size_t keep, size_t nx,
                         char *msg, size_t msz)
{
    expect e;
    int ncid, status, bad = 0;
    memset(&e, 0, sizeof e);
    copy_file(full, cut);
    ck_assert(truncate(cut, (off_t)keep) == 0);
    status = ncs_open(cut, NCS_NOWRITE, &ncid);
    if (status != NCS_NOERR)
        return 0;               /* reported at open: fine */
    for (int v = 0; v < NVARS && !bad; v++) {
        size_t start[2] = { 0, 0 }, count[2] = { vrec[v] ? MAXREC : nx, nx };
        size_t per = vxdim[v] ? nx : 1, nr = vrec[v] ? MAXREC : 1;
        double b[MAXREC * 8];
        size_t nrec = 0;
        int dimid;
        if (ncs_inq_dimid(ncid, "rec", &dimid) == NCS_NOERR)
            ncs_inq_dimlen(ncid, dimid, &nrec);
        if (vrec[v]) {
            count[0] = nr = nrec < MAXREC ? nrec : MAXREC;
            if (nr == 0)
                continue;
        }
        status = ncs_get(ncid, v, start, count, NULL, NULL, NCS_DOUBLE, b);
        if (status != NCS_NOERR)
            continue;           /* reported at the read: fine */
        for (size_t k = 0; k < nr * per && !bad; k++) {
            double want = value(v, vrec[v] ? k / per : 0, k % per);
            if (b[k] != want) {
                snprintf(msg, msz, "cut at %zu: %s[%zu] = %.17g read silently, want %.17g",
                         keep, vname[v], k, b[k], want);
                bad = 1;
            }
        }
    }
    ncs_close(ncid);
    return bad;
}

START_TEST(truncated)
{
    static const int cmodes[] = { 0, NCS_64BIT_OFFSET, NCS_64BIT_DATA };
    for (size_t f = 0; f < 3; f++) {
        char full[200], cut[220], msg[300] = "";
        run r;
        size_t size;
        FILE *fp;
        int bad = 0, first_bad = -1;
        memset(&r, 0, sizeof r);
        snprintf(full, sizeof full, "ut_faults_trunc_%zu_%ld.nc", f, (long)getpid());
        snprintf(cut, sizeof cut, "%s.cut", full);
        r.path = full;
        r.cmode = cmodes[f];
        r.nx = 5;
        r.ncid = -1;
        r.buf = malloc(5 * sizeof *r.buf);
        ck_assert_msg(script(&r) == NCS_NOERR, "script: %s -> %d", r.what, r.status);
        free(r.buf);
        fp = fopen(full, "rb");
        ck_assert(fp != NULL);
        fseek(fp, 0, SEEK_END);
        size = (size_t)ftell(fp);
        fclose(fp);
        for (size_t keep = 0; keep < size; keep++) {
            char m[300];
            if (truncated_one(full, cut, keep, 5, m, sizeof m)) {
                if (bad++ == 0) {
                    first_bad = (int)keep;
                    snprintf(msg, sizeof msg, "%s", m);
                }
            }
        }
        printf("truncated %s: %zu lengths, %d read silently as other values%s%s\n",
               cmodes[f] == 0 ? "cdf1" : cmodes[f] == NCS_64BIT_OFFSET ? "cdf2" : "cdf5",
               size, bad, bad ? "; first: " : "", msg);
        unlink(full);
        unlink(cut);
        ck_assert_msg(bad == 0, "%d truncated lengths read wrong values (first cut at %d: %s)",
                      bad, first_bad, msg);
    }
}
END_TEST

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
    TCase *tc, *tt;
    SRunner *sr;
    int nfail;

    (void)argc;
    if (tun == NULL || strstr(tun, "tcache_count=0") == NULL) {
        setenv("GLIBC_TUNABLES", "glibc.malloc.tcache_count=0", 1);
        execv("/proc/self/exe", argv);
        /* no re-execution: leaks may be misreported, go on */
    }
    if (getenv("NCS_FAULT_ONLY") != NULL)
        return run_only(getenv("NCS_FAULT_ONLY"));
    s = suite_create("faults");
    tc = tcase_create("io_and_alloc");
    tt = tcase_create("truncated");
    rng_state = env_ull("NCS_FAULT_SEED", (unsigned long long)time(NULL));
    printf("check_faults: NCS_FAULT_SEED=%llu NCS_FAULT_MAXN=%llu (0: every N)\n",
           rng_state, env_ull("NCS_FAULT_MAXN", 0));
    fflush(stdout);
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, faults_cdf1);
    tcase_add_test(tc, faults_cdf2);
    tcase_add_test(tc, faults_cdf5);
    tcase_add_test(tc, faults_cdf1_big);
    suite_add_tcase(s, tc);
    tcase_set_timeout(tt, 120);
    tcase_add_test(tt, truncated);
    suite_add_tcase(s, tt);
    sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    nfail = srunner_ntests_failed(sr);
    srunner_free(sr);
    return nfail == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
