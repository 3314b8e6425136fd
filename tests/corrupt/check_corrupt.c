/*
 * check_corrupt.c -- ncs_open on malformed, truncated and hostile files.
 *
 * Three test cases:
 *   manifest  tests/corrupt/files/MANIFEST is well formed and lists
 *             exactly the files in the directory;
 *   corpus    every listed file is opened read-only in a forked child under
 *             an address-space limit (baseline + NCS_CORRUPT_MEM_MB, default
 *             128 MiB: the files are a few KiB, so that is room for the
 *             library's cache and this test's 4 MiB read buffer, and far
 *             below what a trusted hostile count would ask for) and a 20 s
 *             alarm; when the open succeeds the child
 *             reads every element of every variable (large variables in
 *             bounded pieces plus their last element).  The result must match
 *             the MANIFEST's expected column; a signal, a hang or NC_ENOMEM
 *             (a huge allocation refused by the limit) always fails;
 *   fuzz      seeded random byte and field mutations of the corpus's valid_*
 *             files (NCS_FUZZ_SEED, NCS_FUZZ_ITERS; the seed is printed).
 *             Each must open with 0 or an NC_E* code of a known set, without
 *             a crash, a hang or NC_ENOMEM, and so must the reads that follow
 *             a successful open.  A failing input is saved in the current
 *             directory as corrupt-fuzz-SEED-ITER.nc.
 *
 * Expected column (see the MANIFEST's head): NC_E* names joined by '|';
 * @read admits a successful open provided some read of the data then fails,
 * so a truncated file is never silently read as fill values.
 *
 * `check_corrupt FILE...` skips the suite and prints what ncs_open and the
 * reads return for each FILE (to replay a saved fuzz input).
 */
#include "ncslab.h"

#include <check.h>
#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef NCS_CORRUPT_DIR
#define NCS_CORRUPT_DIR "tests/corrupt/files"
#endif

#define MIN_CASES 30
#define CHILD_ALARM 20

/* ---- error names ----------------------------------------------------------- */
static const struct {
    const char *name;
    int code;
} codes[] = {
    {"NC_NOERR", NCS_NOERR},       {"NC_EBADID", NCS_EBADID},
    {"NC_ENFILE", NCS_ENFILE},     {"NC_EEXIST", NCS_EEXIST},
    {"NC_EINVAL", NCS_EINVAL},     {"NC_EPERM", NCS_EPERM},
    {"NC_ENOTINDEFINE", NCS_ENOTINDEFINE}, {"NC_EINDEFINE", NCS_EINDEFINE},
    {"NC_EINVALCOORDS", NCS_EINVALCOORDS}, {"NC_EMAXDIMS", NCS_EMAXDIMS},
    {"NC_ENAMEINUSE", NCS_ENAMEINUSE}, {"NC_ENOTATT", NCS_ENOTATT},
    {"NC_EMAXATTS", NCS_EMAXATTS}, {"NC_EBADTYPE", NCS_EBADTYPE},
    {"NC_EBADDIM", NCS_EBADDIM},   {"NC_EUNLIMPOS", NCS_EUNLIMPOS},
    {"NC_EMAXVARS", NCS_EMAXVARS}, {"NC_ENOTVAR", NCS_ENOTVAR},
    {"NC_EGLOBAL", NCS_EGLOBAL},   {"NC_ENOTNC", NCS_ENOTNC},
    {"NC_EMAXNAME", NCS_EMAXNAME}, {"NC_EUNLIMIT", NCS_EUNLIMIT},
    {"NC_ENORECVARS", NCS_ENORECVARS}, {"NC_ECHAR", NCS_ECHAR},
    {"NC_EEDGE", NCS_EEDGE},       {"NC_ESTRIDE", NCS_ESTRIDE},
    {"NC_EBADNAME", NCS_EBADNAME}, {"NC_ERANGE", NCS_ERANGE},
    {"NC_ENOMEM", NCS_ENOMEM},     {"NC_EVARSIZE", NCS_EVARSIZE},
    {"NC_EDIMSIZE", NCS_EDIMSIZE}, {"NC_ETRUNC", NCS_ETRUNC},
    {"NC_EIO", NCS_EIO},           {"NC_ENOTFOUND", NCS_ENOTFOUND},
    {"NC_EINTERNAL", NCS_EINTERNAL}, {"NC_EHDFERR", NCS_EHDFERR},
    {"NC_ENOTBUILT", NCS_ENOTBUILT}, {"NC_EFILTER", NCS_EFILTER},
    {"NC_ENOFILTER", NCS_ENOFILTER},
};
#define NCODES (sizeof codes / sizeof codes[0])

static const char *code_name(int code)
{
    static char other[8][32];
    static int slot;
    for (size_t i = 0; i < NCODES; i++)
        if (codes[i].code == code)
            return codes[i].name;
    char *p = other[slot++ % 8];
    snprintf(p, sizeof other[0], code > 0 ? "errno %d" : "code %d", code);
    return p;
}

/* 0 and the code for a known name, -1 for an unknown one. */
static int code_of(const char *name, int *code)
{
    for (size_t i = 0; i < NCODES; i++)
        if (strcmp(codes[i].name, name) == 0) {
            *code = codes[i].code;
            return 0;
        }
    return -1;
}

/* What a hostile header may legitimately make ncs_open (or a later read)
 * return.  NC_ENOMEM and NC_EINVAL are deliberately absent: a header must be
 * judged against the file size before anything is allocated, and it is not
 * an invalid argument. */
static const int fuzz_ok_open[] = {
    NCS_NOERR, NCS_ENOTNC, NCS_ETRUNC, NCS_EVARSIZE, NCS_EBADTYPE,
    NCS_EBADDIM, NCS_EUNLIMPOS, NCS_EUNLIMIT, NCS_ENAMEINUSE, NCS_EBADNAME,
    NCS_EMAXNAME, NCS_EMAXDIMS, NCS_EMAXVARS, NCS_EMAXATTS, NCS_EDIMSIZE,
};
static const int fuzz_ok_read[] = {
    NCS_NOERR, NCS_ETRUNC, NCS_ENOTNC, NCS_EIO, NCS_EVARSIZE,
};

static int in_set(int code, const int *set, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (set[i] == code)
            return 1;
    return 0;
}

/* ---- the child: open, read everything, report -------------------------- */
typedef struct outcome {
    int exited;        /* 1: child reported; 0: killed or silent */
    int sig;           /* terminating signal, 0 if none */
    int open_rc;
    int read_rc;       /* first failing read, 0 if all succeeded */
    int nvars;
    char where[96];    /* which read failed */
} outcome;

static uint64_t vm_size(void)
{
    unsigned long pages = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f) {
        if (fscanf(f, "%lu", &pages) != 1)
            pages = 0;
        fclose(f);
    }
    return (uint64_t)pages * (uint64_t)sysconf(_SC_PAGESIZE);
}

static void limit_memory(void)
{
    const char *e = getenv("NCS_CORRUPT_MEM_MB");
    uint64_t mb = e ? strtoull(e, NULL, 10) : 128;
    uint64_t base = vm_size();
    if (base == 0)
        base = 256u << 20;   /* no /proc: a generous guess */
    struct rlimit r;
    r.rlim_cur = r.rlim_max = (rlim_t)(base + (mb << 20));
    setrlimit(RLIMIT_AS, &r);
}

#define PIECE_BYTES (4u << 20)

/* Reads variable v of ncid: in pieces of at most PIECE_BYTES along the
 * slowest dimension when that is enough, otherwise the first element and
 * the last.  Returns the first failure. */
static int read_var(int ncid, int v, char *where, size_t wsize)
{
    int ndims, xtype, st;
    int dimids[NCS_MAX_VAR_DIMS];
    size_t shape[NCS_MAX_VAR_DIMS], start[NCS_MAX_VAR_DIMS],
           count[NCS_MAX_VAR_DIMS];
    size_t esize;

    /* ndims first: a library that let a hostile rank through must not make
     * this test overrun its own dimids array. */
    if ((st = ncs_inq_varndims(ncid, v, &ndims)) != 0) {
        snprintf(where, wsize, "inq var %d", v);
        return st;
    }
    if (ndims < 0 || ndims > NCS_MAX_VAR_DIMS) {
        snprintf(where, wsize, "var %d: ndims %d", v, ndims);
        return NCS_EINTERNAL;
    }
    if ((st = ncs_inq_var(ncid, v, NULL, &xtype, NULL, dimids, NULL)) != 0 ||
        (st = ncs_inq_type_size(xtype, &esize)) != 0) {
        snprintf(where, wsize, "inq var %d", v);
        return st;
    }
    uint64_t inner = 1;     /* elements below dimension 0 */
    int empty = 0;
    for (int d = 0; d < ndims; d++) {
        if ((st = ncs_inq_dimlen(ncid, dimids[d], &shape[d])) != 0) {
            snprintf(where, wsize, "var %d: dimlen", v);
            return st;
        }
        if (shape[d] == 0)
            empty = 1;
        if (d > 0 && __builtin_mul_overflow(inner, (uint64_t)shape[d], &inner))
            inner = UINT64_MAX;
    }
    if (empty)
        return 0;

    uint64_t inner_bytes = inner > UINT64_MAX / esize ? UINT64_MAX : inner * esize;
    if (ndims == 0 || inner_bytes <= PIECE_BYTES) {
        size_t rows = ndims ? shape[0] : 1;
        uint64_t step = inner_bytes ? PIECE_BYTES / inner_bytes : 1;
        if (step == 0)
            step = 1;
        /* Cap the work on a huge record count: pieces up to 64 MiB, then
         * the last piece, which is where a truncated file ends. */
        size_t maxrows = (size_t)(step * 16);
        void *buf = malloc(PIECE_BYTES > inner_bytes ? PIECE_BYTES : inner_bytes);
        if (!buf)
            return NCS_EINTERNAL;
        for (int d = 1; d < ndims; d++) {
            start[d] = 0;
            count[d] = shape[d];
        }
        st = 0;
        for (size_t r = 0; r < rows && st == 0; r += (size_t)step) {
            if (r >= maxrows && r + step < rows)
                r = rows - (size_t)step;      /* jump to the last piece */
            if (ndims) {
                start[0] = r;
                count[0] = rows - r < step ? rows - r : (size_t)step;
            }
            st = ncs_get(ncid, v, ndims ? start : NULL, ndims ? count : NULL,
                         NULL, NULL, NCS_NAT, buf);
            if (st)
                snprintf(where, wsize, "var %d rows %zu..", v, r);
        }
        free(buf);
        return st;
    }
    /* A variable too large to read: its first and last elements. */
    unsigned char one[8];
    for (int d = 0; d < ndims; d++)
        start[d] = 0;
    if ((st = ncs_get1(ncid, v, start, NCS_NAT, one)) != 0) {
        snprintf(where, wsize, "var %d first element", v);
        return st;
    }
    for (int d = 0; d < ndims; d++)
        start[d] = shape[d] - 1;
    if ((st = ncs_get1(ncid, v, start, NCS_NAT, one)) != 0)
        snprintf(where, wsize, "var %d last element", v);
    return st;
}

static void child_run(const char *path, int fd)
{
    outcome o;
    int ncid;
    memset(&o, 0, sizeof o);
    o.exited = 1;
    limit_memory();
    alarm(CHILD_ALARM);
    o.open_rc = ncs_open(path, NCS_NOWRITE, &ncid);
    if (o.open_rc == 0) {
        if (ncs_inq_nvars(ncid, &o.nvars) != 0)
            o.nvars = 0;
        for (int v = 0; v < o.nvars; v++) {
            int st = read_var(ncid, v, o.where, sizeof o.where);
            if (st != 0 && o.read_rc == 0)
                o.read_rc = st;
        }
        ncs_close(ncid);
    }
    ssize_t w = write(fd, &o, sizeof o);
    _exit(w == (ssize_t)sizeof o ? 0 : 3);
}

/* Opens path in a child and reports what happened. */
static outcome probe(const char *path)
{
    outcome o;
    int p[2];
    memset(&o, 0, sizeof o);
    if (pipe(p) != 0) {
        o.sig = -1;
        return o;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        close(p[0]);
        child_run(path, p[1]);
    }
    close(p[1]);
    if (pid < 0) {
        close(p[0]);
        o.sig = -1;
        return o;
    }
    outcome got;
    ssize_t n, total = 0;
    while (total < (ssize_t)sizeof got &&
           (n = read(p[0], (char *)&got + total, sizeof got - (size_t)total)) > 0)
        total += n;
    close(p[0]);
    int ws = 0;
    while (waitpid(pid, &ws, 0) < 0 && errno == EINTR)
        ;
    if (total == (ssize_t)sizeof got)
        o = got;
    if (WIFSIGNALED(ws)) {
        o.exited = 0;
        o.sig = WTERMSIG(ws);
    }
    return o;
}

static void describe(const outcome *o, char *s, size_t n)
{
    if (o->sig == SIGALRM)
        snprintf(s, n, "hang (no answer in %d s)", CHILD_ALARM);
    else if (o->sig > 0)
        snprintf(s, n, "signal %d (%s)", o->sig, strsignal(o->sig));
    else if (!o->exited)
        snprintf(s, n, "child failed without a report");
    else if (o->open_rc != 0)
        snprintf(s, n, "%s", code_name(o->open_rc));
    else if (o->read_rc != 0)
        snprintf(s, n, "NC_NOERR, then %s reading %s", code_name(o->read_rc),
                 o->where);
    else
        snprintf(s, n, "NC_NOERR, %d variables read without error", o->nvars);
}

/* ---- the manifest ----------------------------------------------------------- */
typedef struct entry {
    char name[64];
    char expect[128];
    char netcdfc[64];
    char desc[160];
    int codes[8];
    int ncodes;
    int at_read;       /* @read admitted */
} entry;

static entry *entries;
static int nentries;
static char corpus_dir[1024];
static char manifest_error[1400];

static void load_manifest(void)
{
    char path[1100], line[512];
    snprintf(path, sizeof path, "%s/MANIFEST", corpus_dir);
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(manifest_error, sizeof manifest_error, "cannot open %s: %s",
                 path, strerror(errno));
        return;
    }
    int lineno = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        if (line[0] == '#' || line[0] == '\n')
            continue;
        entry e;
        int pos = 0;
        memset(&e, 0, sizeof e);
        if (sscanf(line, "%63s %127s %63s %n", e.name, e.expect, e.netcdfc,
                   &pos) < 3 || pos == 0) {
            snprintf(manifest_error, sizeof manifest_error,
                     "MANIFEST line %d malformed", lineno);
            break;
        }
        snprintf(e.desc, sizeof e.desc, "%s", line + pos);
        e.desc[strcspn(e.desc, "\n")] = 0;
        char tmp[128], *save = NULL;
        snprintf(tmp, sizeof tmp, "%s", e.expect);
        for (char *t = strtok_r(tmp, "|", &save); t; t = strtok_r(NULL, "|", &save)) {
            if (strcmp(t, "@read") == 0)
                e.at_read = 1;
            else if (e.ncodes < 8 && code_of(t, &e.codes[e.ncodes]) == 0)
                e.ncodes++;
            else {
                snprintf(manifest_error, sizeof manifest_error,
                         "MANIFEST line %d: bad expected token %s", lineno, t);
                break;
            }
        }
        if (manifest_error[0])
            break;
        entries = realloc(entries, sizeof *entries * (size_t)(nentries + 1));
        if (!entries)
            abort();
        entries[nentries++] = e;
    }
    fclose(f);
}

static int listed(const char *name)
{
    for (int i = 0; i < nentries; i++)
        if (strcmp(entries[i].name, name) == 0)
            return 1;
    return 0;
}

START_TEST(test_manifest)
{
    ck_assert_msg(manifest_error[0] == 0, "%s", manifest_error);
    ck_assert_msg(nentries >= MIN_CASES, "only %d cases in the MANIFEST",
                  nentries);
    for (int i = 0; i < nentries; i++)
        for (int j = 0; j < i; j++)
            ck_assert_msg(strcmp(entries[i].name, entries[j].name) != 0,
                          "%s listed twice", entries[i].name);
    for (int i = 0; i < nentries; i++) {
        char path[1200];
        struct stat sb;
        snprintf(path, sizeof path, "%s/%s", corpus_dir, entries[i].name);
        ck_assert_msg(stat(path, &sb) == 0, "%s listed but missing", path);
    }
    DIR *d = opendir(corpus_dir);
    ck_assert_msg(d != NULL, "cannot open %s", corpus_dir);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.' || strcmp(e->d_name, "MANIFEST") == 0)
            continue;
        ck_assert_msg(listed(e->d_name), "%s/%s is not in the MANIFEST",
                      corpus_dir, e->d_name);
    }
    closedir(d);
}
END_TEST

/* Whether outcome o is what entry e expects; fills why otherwise. */
static int judge(const entry *e, const outcome *o, char *why, size_t n)
{
    char got[256];
    describe(o, got, sizeof got);
    if (!o->exited || o->sig) {
        snprintf(why, n, "%s: expected %s, got %s", e->name, e->expect, got);
        return 0;
    }
    int ok;
    if (o->open_rc != 0) {
        ok = 0;
        for (int i = 0; i < e->ncodes; i++)
            ok |= e->codes[i] == o->open_rc && o->open_rc != 0;
    } else {
        int want_noerr = 0;
        for (int i = 0; i < e->ncodes; i++)
            want_noerr |= e->codes[i] == 0;
        if (want_noerr)
            ok = o->read_rc == 0;
        else if (e->at_read)
            ok = o->read_rc != 0 && o->read_rc != NCS_ENOMEM;
        else
            ok = 0;
    }
    if (o->open_rc == NCS_ENOMEM || o->read_rc == NCS_ENOMEM)
        ok = 0;
    if (!ok) {
        if (o->open_rc == 0 && e->at_read && o->read_rc == 0)
            snprintf(why, n, "%s: expected %s, got %s (the missing data read "
                     "as if present)", e->name, e->expect, got);
        else
            snprintf(why, n, "%s: expected %s, got %s", e->name, e->expect, got);
    }
    return ok;
}

START_TEST(test_corpus_file)
{
    ck_assert_msg(_i < nentries, "no entry %d", _i);
    const entry *e = &entries[_i];
    char path[1200], why[512];
    snprintf(path, sizeof path, "%s/%s", corpus_dir, e->name);
    outcome o = probe(path);
    ck_assert_msg(o.sig != -1, "%s: cannot fork", e->name);
    ck_assert_msg(judge(e, &o, why, sizeof why), "%s", why);
}
END_TEST

/* ---- fuzzing ---------------------------------------------------------------- */
static uint64_t rng_state;

static uint64_t rnd(void)   /* splitmix64 */
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static uint64_t rnd_below(uint64_t n) { return n ? rnd() % n : 0; }

typedef struct seedfile {
    unsigned char *b;
    size_t n;
    char name[64];
} seedfile;

static int load_file(const char *path, seedfile *s)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    s->b = NULL;
    s->n = 0;
    unsigned char chunk[4096];
    size_t got;
    while ((got = fread(chunk, 1, sizeof chunk, f)) > 0) {
        s->b = realloc(s->b, s->n + got);
        if (!s->b)
            abort();
        memcpy(s->b + s->n, chunk, got);
        s->n += got;
    }
    fclose(f);
    return 0;
}

static void store_be(unsigned char *p, uint64_t v, int width)
{
    for (int i = width - 1; i >= 0; i--, v >>= 8)
        p[i] = (unsigned char)v;
}

/* Applies one random mutation to b (length *n, capacity cap); describes it. */
static void mutate(unsigned char *b, size_t *n, char *what, size_t wsize)
{
    static const uint32_t v32[] = {
        0, 1, 2, 3, 4, 7, 0x0A, 0x0B, 0x0C, 0x7f, 0x80, 0xff, 0x100, 1024,
        1025, 8192, 0xffff, 0x7fffffff, 0x80000000u, 0xfffffffeu,
        0xffffffffu, 0x7ffffffcu,
    };
    static const uint64_t v64[] = {
        0, 1, 1ull << 31, 1ull << 32, 0xffffffffull, 1ull << 40, 1ull << 60,
        1ull << 62, 1ull << 63, UINT64_MAX, UINT64_MAX - 7,
        0x7fffffffffffffffull,
    };
    size_t len = *n;
    if (len == 0)
        return;
    switch (rnd_below(6)) {
    case 0: {
        size_t at = rnd_below(len);
        unsigned char v = (unsigned char)rnd();
        snprintf(what, wsize, "byte %zu = 0x%02x", at, v);
        b[at] = v;
        break;
    }
    case 1: {
        size_t at = rnd_below(len);
        int bit = (int)rnd_below(8);
        snprintf(what, wsize, "flip bit %d of byte %zu", bit, at);
        b[at] ^= (unsigned char)(1u << bit);
        break;
    }
    case 2:
    case 3: {
        if (len < 4)
            return;
        size_t at = rnd_below(len / 4) * 4;
        uint32_t v = rnd_below(4) == 0 ? (uint32_t)rnd()
                   : rnd_below(5) == 0 ? (uint32_t)(len + rnd_below(9) - 4)
                   : v32[rnd_below(sizeof v32 / sizeof v32[0])];
        snprintf(what, wsize, "word at %zu = 0x%08x", at, (unsigned)v);
        store_be(b + at, v, 4);
        break;
    }
    case 4: {
        if (len < 8)
            return;
        size_t at = rnd_below(len / 4 - 1) * 4;
        uint64_t v = v64[rnd_below(sizeof v64 / sizeof v64[0])];
        snprintf(what, wsize, "8 bytes at %zu = 0x%016llx", at,
                 (unsigned long long)v);
        store_be(b + at, v, 8);
        break;
    }
    default: {
        size_t to = rnd_below(len);
        snprintf(what, wsize, "truncate to %zu", to);
        *n = to;
        break;
    }
    }
}

static seedfile seeds[8];
static int nseeds;

START_TEST(test_fuzz)
{
    const char *es = getenv("NCS_FUZZ_SEED");
    const char *ei = getenv("NCS_FUZZ_ITERS");
    uint64_t seed = es ? strtoull(es, NULL, 0)
                       : ((uint64_t)time(NULL) << 16) ^ (uint64_t)getpid();
    long iters = ei ? strtol(ei, NULL, 10) : 3000;
    printf("check_corrupt: fuzz seed %llu, %ld iterations "
           "(replay with NCS_FUZZ_SEED=%llu)\n",
           (unsigned long long)seed, iters, (unsigned long long)seed);
    fflush(stdout);

    ck_assert_msg(nseeds > 0, "no valid_*.nc files in %s", corpus_dir);

    char tmpl[] = "/tmp/ncs_corrupt_fuzz_XXXXXX";
    int tfd = mkstemp(tmpl);
    ck_assert_msg(tfd >= 0, "mkstemp: %s", strerror(errno));
    close(tfd);

    int failures = 0, opened = 0;
    char first_fail[1024] = "";
    for (long it = 0; it < iters; it++) {
        /* Each iteration has its own stream, so one can be replayed alone. */
        rng_state = seed ^ ((uint64_t)it * 0xd1342543de82ef95u);
        const seedfile *s = &seeds[rnd_below((uint64_t)nseeds)];
        unsigned char *b = malloc(s->n ? s->n : 1);
        ck_assert(b != NULL);
        memcpy(b, s->b, s->n);
        size_t n = s->n;
        char what[3][96];
        int nm = 1 + (rnd_below(4) == 0) + (rnd_below(8) == 0);
        for (int k = 0; k < nm; k++) {
            what[k][0] = 0;
            mutate(b, &n, what[k], sizeof what[k]);
        }
        FILE *f = fopen(tmpl, "wb");
        ck_assert_msg(f && (n == 0 || fwrite(b, 1, n, f) == n) && fclose(f) == 0,
                      "cannot write %s", tmpl);

        outcome o = probe(tmpl);
        ck_assert_msg(o.sig != -1, "cannot fork");
        int ok = o.exited && !o.sig &&
                 in_set(o.open_rc, fuzz_ok_open,
                        sizeof fuzz_ok_open / sizeof fuzz_ok_open[0]) &&
                 in_set(o.read_rc, fuzz_ok_read,
                        sizeof fuzz_ok_read / sizeof fuzz_ok_read[0]);
        opened += o.exited && o.open_rc == 0;
        if (!ok) {
            char got[256], saved[128];
            describe(&o, got, sizeof got);
            snprintf(saved, sizeof saved, "corrupt-fuzz-%llu-%ld.nc",
                     (unsigned long long)seed, it);
            FILE *sf = failures < 20 ? fopen(saved, "wb") : NULL;
            if (sf) {
                if (n)
                    fwrite(b, 1, n, sf);
                fclose(sf);
            }
            char line[1024];
            snprintf(line, sizeof line,
                     "iteration %ld (%s; %s%s%s%s%s): %s%s%s", it, s->name,
                     what[0], nm > 1 ? "; " : "", nm > 1 ? what[1] : "",
                     nm > 2 ? "; " : "", nm > 2 ? what[2] : "", got,
                     sf ? ", saved as " : "", sf ? saved : "");
            if (failures < 20)
                printf("check_corrupt: fuzz FAIL %s\n", line);
            if (!first_fail[0])
                snprintf(first_fail, sizeof first_fail, "%s", line);
            failures++;
        }
        free(b);
    }
    unlink(tmpl);
    printf("check_corrupt: fuzz seed %llu: %ld inputs, %d opened, %d failed\n",
           (unsigned long long)seed, iters, opened, failures);
    ck_assert_msg(failures == 0, "fuzz seed %llu: %d of %ld inputs failed; "
                  "first: %s", (unsigned long long)seed, failures, iters,
                  first_fail);
}
END_TEST

static void load_seeds(void)
{
    for (int i = 0; i < nentries && nseeds < 8; i++) {
        if (strncmp(entries[i].name, "valid_", 6) != 0)
            continue;
        char path[1200];
        snprintf(path, sizeof path, "%s/%s", corpus_dir, entries[i].name);
        if (load_file(path, &seeds[nseeds]) == 0) {
            snprintf(seeds[nseeds].name, sizeof seeds[0].name, "%s",
                     entries[i].name);
            nseeds++;
        }
    }
}

static Suite *corrupt_suite(void)
{
    Suite *s = suite_create("corrupt");
    TCase *tc = tcase_create("manifest");
    tcase_add_test(tc, test_manifest);
    suite_add_tcase(s, tc);

    tc = tcase_create("corpus");
    tcase_set_timeout(tc, CHILD_ALARM + 10);
    tcase_add_loop_test(tc, test_corpus_file, 0, nentries);
    suite_add_tcase(s, tc);

    tc = tcase_create("fuzz");
    tcase_set_timeout(tc, 1800);
    tcase_add_test(tc, test_fuzz);
    suite_add_tcase(s, tc);
    return s;
}

/* `check_corrupt FILE...`: report each file's outcome and exit. */
static int replay(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        char got[256];
        outcome o = probe(argv[i]);
        describe(&o, got, sizeof got);
        printf("%s: %s\n", argv[i], got);
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1)
        return replay(argc, argv);

    const char *dir = getenv("NCS_CORRUPT_DIR");
    snprintf(corpus_dir, sizeof corpus_dir, "%s", dir ? dir : NCS_CORRUPT_DIR);
    load_manifest();
    load_seeds();

    SRunner *sr = srunner_create(corrupt_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    free(entries);
    for (int i = 0; i < nseeds; i++)
        free(seeds[i].b);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
