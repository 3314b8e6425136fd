/*
 * cold.c -- cold reads: each get shape of the suite, and a point time
 * series across many records, read with none of the file in the
 * operating system's cache, on every file engine.
 *
 * A cold call is one request made by a reader that has just opened the
 * file, with the file's pages gone from the system's cache:
 *
 *   close the engine's handle; drop the file's cached pages
 *   (posix_fadvise POSIX_FADV_DONTNEED on the harness's own descriptor;
 *   the files are written and fdatasync'ed at setup, so no page is dirty
 *   and every page can go); open the file and look the variable up; drop
 *   the pages again, since the open read the header; check with mincore()
 *   that no page of the file is resident; then time the one get, noting
 *   /proc/self/io around it; check the values outside the timing.
 *
 * So no call finds what an earlier call brought in, either in the
 * system's cache or in the library's own (its pages, its chunk cache):
 * each call pays what a cold reader pays, and a batch of calls would
 * amortise exactly that, so there are none.  What the open left in the
 * library's memory (the header, and whatever it read along with it) is
 * the reader's to use, as it would be in a program.
 *
 * Bytes per call come from /proc/self/io: rchar, the bytes the read
 * system calls returned (what the library asked for), and read_bytes,
 * what the block device delivered (with the kernel's readahead).  Our own
 * read of /proc/self/io is counted in rchar and taken off.  The calls of
 * all engines alternate, A B C C B A ..., and the median is reported.
 */
#include "suite.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define COLD_CALLS 7            /* cold calls per engine and request */
#define COLD_MAX (TI_MAX_TESTS / 3 + 1)

typedef struct {
    const ti_lib *lib;
    ti_layout layout;
    char label[128];
    char path[2][1024];         /* the suite's file, the time series' file */
    int fd[2];
    int reference;
} cold_engine;

typedef struct {
    int file;                   /* 0: the suite's variables, 1: the series */
    long start[TI_MAX_DIMS], count[TI_MAX_DIMS];
    char shape[80];
} cold_test;

typedef struct {
    double usec, rchar, dev;    /* medians per call */
} cold_result;

typedef struct {
    long long rchar, dev;
} io_counts;

static int proc_io = -1;

static io_counts read_io(long long *ownp)
{
    char text[512];
    io_counts c = { -1, -1 };
    ssize_t n = pread(proc_io, text, sizeof text - 1, 0);
    if (n <= 0)
        ti_die("cannot read /proc/self/io: %s", strerror(errno));
    text[n] = '\0';
    *ownp = n;
    for (char *p = text; p != NULL && *p; p = strchr(p, '\n'), p = p ? p + 1 : p) {
        if (strncmp(p, "rchar:", 6) == 0)
            c.rchar = strtoll(p + 6, NULL, 10);
        else if (strncmp(p, "read_bytes:", 11) == 0)
            c.dev = strtoll(p + 11, NULL, 10);
    }
    if (c.rchar < 0 || c.dev < 0)
        ti_die("/proc/self/io has no rchar or read_bytes");
    return c;
}

/* Pages of the file that are in the system's cache. */
static long resident_pages(int fd)
{
    struct stat st;
    long psz = sysconf(_SC_PAGESIZE), n = 0;
    size_t np;
    unsigned char *vec;
    void *map;
    if (fstat(fd, &st) != 0 || st.st_size == 0)
        return 0;
    np = ((size_t)st.st_size + (size_t)psz - 1) / (size_t)psz;
    map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
    vec = malloc(np);
    if (map == MAP_FAILED || vec == NULL || mincore(map, (size_t)st.st_size, vec) != 0)
        ti_die("mincore: %s", strerror(errno));
    for (size_t i = 0; i < np; i++)
        n += vec[i] & 1;
    munmap(map, (size_t)st.st_size);
    free(vec);
    return n;
}

static void drop_pages(int fd)
{
    int err = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    if (err != 0)
        ti_die("posix_fadvise(DONTNEED): %s", strerror(err));
}

static void lib_die(const cold_engine *e, const char *what, int status)
{
    ti_die("%s: %s: %s (status %d)", e->label, what, e->lib->strerror(status), status);
}

/* Writes file f of the engine: the variables of o, record by record, then
 * makes it durable so that every page can be dropped.  0, or -1 when the
 * library cannot make the layout. */
static int write_file(cold_engine *e, const ti_options *o, int f)
{
    int ncid, varids[TI_MAX_TYPES], status;
    const char *step = "create";
    long start[TI_MAX_DIMS] = { 0 }, count[TI_MAX_DIMS];
    size_t recbytes = ti_nelems(o->ndims - 1, o->dims + 1) * 8;
    void *buf = malloc(recbytes ? recbytes : 1);
    if (buf == NULL)
        ti_die("out of memory");
    status = e->lib->create(e->path[f], &e->layout, &ncid);
    if (status == 0)
        status = ti_define_vars(e->lib, ncid, o, &e->layout, varids, &step);
    if (status == TI_NOT_BUILT) {
        printf("note: cold: engine \"%s\" is not available: %s: %s\n", e->label, step,
               e->lib->strerror(status));
        free(buf);
        unlink(e->path[f]);
        return -1;
    }
    if (status != 0)
        lib_die(e, step, status);
    memcpy(count, o->dims, sizeof count);
    count[0] = 1;
    for (long r = 0; r < o->dims[0]; r++) {
        start[0] = r;
        for (int t = 0; t < o->ntypes; t++) {
            ti_fill_slab(o->types[t]->type, o->ndims, o->dims, start, count, buf);
            if ((status = e->lib->put(ncid, varids[t], start, count, buf)) != 0)
                lib_die(e, "ncvarput", status);
        }
    }
    if ((status = e->lib->close(ncid)) != 0)
        lib_die(e, "close", status);
    free(buf);
    if ((e->fd[f] = open(e->path[f], O_RDONLY)) < 0 || fdatasync(e->fd[f]) != 0)
        ti_die("%s: %s: %s", e->label, e->path[f], strerror(errno));
    return 0;
}

static void add_engine(cold_engine *es, int *n, const ti_options *o, const ti_lib *lib,
                       int kind, const size_t *chunks)
{
    cold_engine *e = &es[*n];
    memset(e, 0, sizeof *e);
    e->lib = lib;
    ti_layout_init(&e->layout, kind, o->format, o->ndims, chunks);
    ti_engine_name(e->label, sizeof e->label, lib->name, e->layout.label);
    e->reference = lib == &ti_lib_netcdf && kind == TI_CONTIGUOUS;
    for (int f = 0; f < 2; f++) {
        snprintf(e->path[f], sizeof e->path[f], "%s/cold%02d%s.nc", o->dir, *n,
                 f ? "-series" : "");
        e->fd[f] = -1;
    }
    (*n)++;
}

typedef struct {
    long usec_calls;
    double *usec, *rchar, *dev;
    long bad_drops;             /* calls that found pages of the file resident */
} cold_samples;

/* One cold call of test k on engine e, for the variable of type t. */
static void cold_call(const cold_engine *e, const ti_options *series, const ti_options *o,
                      const cold_test *test, int t, void *buf, double *usec, double *rchar,
                      double *dev, long *bad)
{
    const ti_options *fo = test->file ? series : o;
    int fd = e->fd[test->file], ncid, varid, status;
    char name[32], msg[256];
    long long own0, own1;
    size_t bytes = ti_nelems(fo->ndims, test->count) * o->types[t]->size;
    drop_pages(fd);
    if ((status = e->lib->open(e->path[test->file], &ncid)) != 0)
        lib_die(e, "open", status);
    snprintf(name, sizeof name, "%s_var", o->types[t]->name);
    if ((status = e->lib->inq_varid(ncid, name, &varid)) != 0)
        lib_die(e, "ncvarid", status);
    /* pages still under the kernel's readahead may outlive one drop */
    for (int i = 0; i < 5 && (drop_pages(fd), resident_pages(fd) != 0); i++)
        usleep(1000);
    if (resident_pages(fd) != 0)
        (*bad)++;
    memset(buf, 0xA5, bytes);
    io_counts c0 = read_io(&own0);
    double t0 = ti_now();
    status = e->lib->get(ncid, varid, test->start, test->count, buf);
    double t1 = ti_now();
    io_counts c1 = read_io(&own1);
    if (status != 0)
        lib_die(e, "ncvarget", status);
    if (ti_check_slab(o->types[t]->type, fo->ndims, fo->dims, test->start, test->count, buf, msg,
                      sizeof msg))
        ti_die("%s: %s_var: cold ncvarget %s returned wrong data: %s", e->label,
               o->types[t]->name, test->shape, msg);
    if ((status = e->lib->close(ncid)) != 0)
        lib_die(e, "close", status);
    *usec = (t1 - t0) * 1e6;
    *rchar = (double)(c1.rchar - c0.rchar - own0);
    *dev = (double)(c1.dev - c0.dev);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return v[n / 2];
}

static void fmt_kib(double bytes, char *out, size_t outlen)
{
    if (isnan(bytes))
        snprintf(out, outlen, "n/a");
    else if (bytes >= 10 * 1048576.0)
        snprintf(out, outlen, "%.0fM", bytes / 1048576);
    else
        snprintf(out, outlen, "%.0fK", bytes / 1024);
}

#define CCELL 20

static void report(const cold_engine *es, int ne, const cold_test *tests, int nt,
                   const cold_result *res, int ref, const ti_options *o, int t, FILE *csv)
{
    printf("\nCold reads: %s_var, each call after dropping the file's cached pages (median of "
           "%d calls):\nmicroseconds, ratio to netCDF-C classic, and KiB per call read by read "
           "calls (rchar) / from the device (read_bytes)\n\n%-22s", o->types[t]->name,
           COLD_CALLS, "ncvarget shape");
    for (int e = 0; e < ne; e++)
        printf(" %*s", 2 * CCELL - 1, es[e].label);
    putchar('\n');
    for (int k = 0; k < nt; k++) {
        printf("%-22s", tests[k].shape);
        for (int e = 0; e < ne; e++) {
            const cold_result *r = &res[(size_t)e * (size_t)nt + (size_t)k];
            char us[32], a[32], b[32], cell[128];
            ti_fmt_usec(r->usec, us, sizeof us);
            fmt_kib(r->rchar, a, sizeof a);
            fmt_kib(r->dev, b, sizeof b);
            if (isnan(r->usec))
                snprintf(cell, sizeof cell, "n/a");
            else if (ref >= 0)
                snprintf(cell, sizeof cell, "%s %5.2f %s/%s", us,
                         r->usec / res[(size_t)ref * (size_t)nt + (size_t)k].usec, a, b);
            else
                snprintf(cell, sizeof cell, "%s %s/%s", us, a, b);
            printf(" %*s", 2 * CCELL - 1, cell);
        }
        putchar('\n');
    }
    if (csv == NULL)
        return;
    for (int e = 0; e < ne; e++)
        for (int k = 0; k < nt; k++) {
            const cold_result *r = &res[(size_t)e * (size_t)nt + (size_t)k];
            double rr = ref >= 0 ? r->usec / res[(size_t)ref * (size_t)nt + (size_t)k].usec : 0;
            struct stat st;
            long long size = stat(es[e].path[tests[k].file], &st) == 0 ? (long long)st.st_size : 0;
            for (int which = 0; which < 2 && !isnan(r->usec); which++)
                fprintf(csv, "%s,%s,%s,%s,%s,%.3f,%.1f,%.0f,%.4f,%lld,\n", es[e].lib->name,
                        es[e].layout.label, o->types[t]->name,
                        which ? "cold-get-device" : "cold-get", tests[k].shape, r->usec,
                        1e6 / r->usec, which ? r->dev : r->rchar, isnan(rr) ? 0.0 : rr, size);
        }
}

int ti_run_cold(const ti_options *o, FILE *csv)
{
    static cold_engine es[TI_MAX_ENGINES];
    static ti_suite s;
    static cold_test tests[COLD_MAX];
    ti_options series = *o;
    int ne = 0, nt = 0, ref = -1;
    long bad = 0;
    size_t maxbytes;
    void *buf;
    cold_result *res;

    if ((proc_io = open("/proc/self/io", O_RDONLY)) < 0) {
        printf("cold: skipped: /proc/self/io: %s\n", strerror(errno));
        return 0;
    }
    series.dims[0] = o->cold_records;
    if (o->engines & TI_E_NCSLAB)
        add_engine(es, &ne, o, &ti_lib_ncslab, TI_CONTIGUOUS, NULL);
    if (o->engines & TI_E_NATIVE)
        add_engine(es, &ne, o, &ti_lib_ncslab_native, TI_CONTIGUOUS, NULL);
    for (int c = 0; c < o->nchunkshapes && (o->engines & TI_E_NCSCHUNK); c++)
        add_engine(es, &ne, o, &ti_lib_ncslab, TI_CHUNKED, o->chunkshapes[c]);
    if (o->engines & TI_E_NETCDF)
        add_engine(es, &ne, o, &ti_lib_netcdf, TI_CONTIGUOUS, NULL);
    for (int c = 0; c < o->nchunkshapes && (o->engines & TI_E_NETCDF4); c++)
        add_engine(es, &ne, o, &ti_lib_netcdf, TI_CHUNKED, o->chunkshapes[c]);
    for (int e = 0; e < ne; e++) {
        ti_progress("cold: writing the files of %s", es[e].label);
        if (write_file(&es[e], o, 0) != 0 || write_file(&es[e], &series, 1) != 0) {
            memmove(&es[e], &es[e + 1], sizeof es[0] * (size_t)(ne - e - 1));
            ne--, e--;
        }
    }
    ti_progress_done();
    for (int e = 0; e < ne; e++)
        if (es[e].reference)
            ref = e;

    /* the suite's get shapes, then the series: one element of every record */
    s.o = o;
    ti_suite_tests(&s);
    for (int k = 0; k < s.ntests; k++)
        if (s.tests[k].op == TI_GET) {
            cold_test *c = &tests[nt++];
            c->file = 0;
            memcpy(c->start, s.tests[k].start, sizeof c->start);
            memcpy(c->count, s.tests[k].count, sizeof c->count);
            snprintf(c->shape, sizeof c->shape, "%s", s.tests[k].shape);
        }
    {
        cold_test *c = &tests[nt++];
        char shape[64];
        memset(c, 0, sizeof *c);
        c->file = 1;
        for (int d = 0; d < o->ndims; d++) {
            c->count[d] = d == 0 ? o->cold_records : 1;
            c->start[d] = d == 0 ? 0 : o->dims[d] / 2;
        }
        ti_shape_str(o->ndims, c->count, shape, sizeof shape);
        snprintf(c->shape, sizeof c->shape, "%s series", shape);
    }

    maxbytes = ti_nelems(o->ndims, o->dims) * 8;
    if (maxbytes < (size_t)o->cold_records * 8)
        maxbytes = (size_t)o->cold_records * 8;
    buf = malloc(maxbytes);
    res = malloc(sizeof *res * (size_t)(ne > 0 ? ne : 1) * (size_t)nt);
    if (buf == NULL || res == NULL)
        ti_die("out of memory");
    for (int t = 0; t < o->ntypes; t++) {
        for (int k = 0; k < nt; k++) {
            double us[TI_MAX_ENGINES][COLD_CALLS], rc[TI_MAX_ENGINES][COLD_CALLS],
                dv[TI_MAX_ENGINES][COLD_CALLS];
            ti_progress("cold: %s_var %s (%d of %d)", o->types[t]->name, tests[k].shape,
                        t * nt + k + 1, o->ntypes * nt);
            for (int i = 0; i < COLD_CALLS; i++)
                for (int j = 0; j < ne; j++) {
                    int e = i % 2 ? ne - 1 - j : j;
                    cold_call(&es[e], &series, o, &tests[k], t, buf, &us[e][i], &rc[e][i],
                              &dv[e][i], &bad);
                }
            for (int e = 0; e < ne; e++) {
                cold_result *r = &res[(size_t)e * (size_t)nt + (size_t)k];
                r->usec = median(us[e], COLD_CALLS);
                r->rchar = median(rc[e], COLD_CALLS);
                r->dev = median(dv[e], COLD_CALLS);
            }
        }
        ti_progress_done();
        report(es, ne, tests, nt, res, ref, o, t, csv);
    }
    printf("\ncold: %ld of %ld calls found pages of the file still cached after the drop%s\n",
           bad, (long)o->ntypes * nt * ne * COLD_CALLS,
           bad ? " (their bytes come partly from the cache)" : " (mincore)");
    for (int e = 0; e < ne; e++)
        for (int f = 0; f < 2; f++)
            if (es[e].fd[f] >= 0)
                close(es[e].fd[f]);
    close(proc_io);
    free(buf);
    free(res);
    return 0;
}
