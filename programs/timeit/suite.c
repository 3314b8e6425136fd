/*
 * suite.c -- the 4-D timing suite of 1992, run on every engine at once.
 *
 * For each variable (one per type, shape rec x d1 x d2 x ...): a put of the
 * whole variable, then a get and a put of each access shape, and each put
 * again with a sync per batch ("put+sync": the put's data reaches the
 * disk inside the timing, amortised over a batch that writes as many
 * bytes as the whole variable, the same for every engine), the shapes
 * generated from the rank (the point, the vectors, the planes, the cubes,
 * ... every proper subset of the dimensions taken whole, the other
 * dimensions at their middle index).
 *
 * Each test runs on all available engines in turn, A B C A B C ...: after a
 * first, checked call and a calibration of the batch size per engine,
 * TI_BATCHES rounds each time one batch per engine, so drift of the
 * machine hits every engine alike.  The reported time is the median batch
 * divided by its calls.  A get's buffer is poisoned and checked on the
 * first call and compared again after the last batch; a put is read back
 * and checked after its batches.  A wrong value or a failing call ends the
 * run with an error, never with a number.
 */
#include "suite.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int ti_engine_available(const ti_engine *e)
{
    return e->why[0] == '\0';
}

/* ---- engines ----------------------------------------------------------------- */

static ti_engine *add_engine(ti_suite *s, const ti_lib *lib, int kind, const size_t *chunks)
{
    const ti_options *o = s->o;
    ti_engine *e;
    if (s->nengines == TI_MAX_ENGINES)
        ti_die("too many engines");
    e = &s->engines[s->nengines];
    memset(e, 0, sizeof *e);
    e->lib = lib;
    ti_layout_init(&e->layout, kind, o->format, o->ndims, chunks);
    e->ncid = -1;
    e->fd = -1;
    ti_engine_name(e->label, sizeof e->label, lib->name, e->layout.label);
    snprintf(e->path, sizeof e->path, "%s/e%02d.nc", o->dir, s->nengines);
    e->reference = lib == &ti_lib_netcdf && kind == TI_CONTIGUOUS;
    s->nengines++;
    return e;
}

/* Creates the engine's file with one record variable per type.  A library
 * that answers NC_ENOTBUILT lacks the layout: the engine is marked not
 * available.  Any other failure ends the run. */
static void setup_engine(ti_suite *s, ti_engine *e)
{
    const ti_options *o = s->o;
    int status;
    const char *step = "create";
    status = e->lib->create(e->path, &e->layout, &e->ncid);
    if (status == 0)
        status = ti_define_vars(e->lib, e->ncid, o, &e->layout, e->varids, &step);
    if (status == TI_NOT_BUILT) {
        snprintf(e->why, sizeof e->why, "%s: %s (status %d)", step, e->lib->strerror(status),
                 status);
        if (e->ncid >= 0)
            e->lib->close(e->ncid);
        unlink(e->path);
        e->ncid = -1;
        return;
    }
    if (status != 0)
        ti_die("%s: %s: %s (status %d)", e->label, step, e->lib->strerror(status), status);
    if (e->layout.kind != TI_RESIDENT && (e->fd = open(e->path, O_RDONLY)) < 0)
        ti_die("%s: cannot open %s: %s", e->label, e->path, strerror(errno));
}

void ti_suite_engines(ti_suite *s, const ti_options *o)
{
    memset(s, 0, sizeof *s);
    s->o = o;
    s->reference = -1;
    if (o->engines & TI_E_NCSLAB)
        add_engine(s, &ti_lib_ncslab, TI_CONTIGUOUS, NULL);
    if (o->engines & TI_E_NATIVE)
        add_engine(s, &ti_lib_ncslab_native, TI_CONTIGUOUS, NULL);
    if (o->engines & TI_E_V3)
        add_engine(s, &ti_lib_ncslab_v3, TI_CONTIGUOUS, NULL);
    if (o->layouts) {
        if (o->engines & TI_E_NETCDF)
            add_engine(s, &ti_lib_netcdf, TI_CONTIGUOUS, NULL);
        if (o->engines & TI_E_NETCDFV3)
            add_engine(s, &ti_lib_netcdf_v3, TI_CONTIGUOUS, NULL);
        if (o->engines & TI_E_PNETCDF)
            add_engine(s, TI_PNETCDF, TI_CONTIGUOUS, NULL);
        if (o->engines & TI_E_NETCDF2)
            add_engine(s, TI_NETCDF2, TI_CONTIGUOUS, NULL);
        if (o->engines & TI_E_MEMORY)
            add_engine(s, &ti_lib_memory, TI_RESIDENT, NULL);
        for (int c = 0; c < o->nlayouts; c++) {
            if (o->engines & TI_E_NCSCHUNK)
                add_engine(s, &ti_lib_ncslab, TI_CHUNKED, o->layoutshapes[c]);
            if (o->engines & TI_E_NETCDF4)
                add_engine(s, &ti_lib_netcdf, TI_CHUNKED, o->layoutshapes[c]);
            if (o->engines & TI_E_NETCDF24)
                add_engine(s, TI_NETCDF2, TI_CHUNKED, o->layoutshapes[c]);
        }
    } else {
        for (int c = 0; c < o->nchunkshapes && (o->engines & TI_E_NCSCHUNK); c++)
            add_engine(s, &ti_lib_ncslab, TI_CHUNKED, o->chunkshapes[c]);
        if (o->engines & TI_E_NETCDF)
            add_engine(s, &ti_lib_netcdf, TI_CONTIGUOUS, NULL);
        if (o->engines & TI_E_NETCDFV3)
            add_engine(s, &ti_lib_netcdf_v3, TI_CONTIGUOUS, NULL);
        if (o->engines & TI_E_PNETCDF)
            add_engine(s, TI_PNETCDF, TI_CONTIGUOUS, NULL);
        if (o->engines & TI_E_NETCDF2)
            add_engine(s, TI_NETCDF2, TI_CONTIGUOUS, NULL);
        for (int c = 0; c < o->nchunkshapes && (o->engines & TI_E_NETCDF4); c++)
            add_engine(s, &ti_lib_netcdf, TI_CHUNKED, o->chunkshapes[c]);
        for (int c = 0; c < o->nchunkshapes && (o->engines & TI_E_NETCDF24); c++)
            add_engine(s, TI_NETCDF2, TI_CHUNKED, o->chunkshapes[c]);
        if (o->engines & TI_E_MEMORY)
            add_engine(s, &ti_lib_memory, TI_RESIDENT, NULL);
    }
    for (int e = 0; e < s->nengines; e++) {
        setup_engine(s, &s->engines[e]);
        if (s->engines[e].reference)
            s->reference = e;
        if (!ti_engine_available(&s->engines[e]))
            printf("note: engine \"%s\" is not available: %s; its column shows n/a\n",
                   s->engines[e].label, s->engines[e].why);
    }
}

/* ---- tests ----------------------------------------------------------------- */

static const char *shape_name(int k)
{
    static const char *names[] = { "point", "vector", "plane", "cube" };
    return k < 4 ? names[k] : "hyperslab";
}

/* The whole-variable put, then a get and a put of every proper subset of
 * the dimensions, by subset size and then lexicographically (the order of
 * the 1992 output); then the puts again, with a sync. */
void ti_suite_tests(ti_suite *s)
{
    const ti_options *o = s->o;
    int n = o->ndims, nshapes = 0;
    ti_test shapes[TI_MAX_TESTS];
    ti_test *w = &s->tests[0];
    memset(w, 0, sizeof *w);
    w->op = TI_PUT;
    memcpy(w->count, o->dims, sizeof w->count);
    ti_shape_str(n, o->dims, w->shape, sizeof w->shape);
    snprintf(w->label, sizeof w->label, "%zu values", ti_nelems(n, o->dims));
    for (int k = 0; k < n; k++) {
        int c[TI_MAX_DIMS];
        for (int i = 0; i < k; i++)
            c[i] = i;
        for (;;) {
            ti_test *t = &shapes[nshapes++];
            memset(t, 0, sizeof *t);
            for (int d = 0; d < n; d++) {
                t->count[d] = 1;
                t->start[d] = o->dims[d] / 2;
            }
            for (int i = 0; i < k; i++) {
                t->count[c[i]] = o->dims[c[i]];
                t->start[c[i]] = 0;
            }
            ti_shape_str(n, t->count, t->shape, sizeof t->shape);
            if (k == 0)
                snprintf(t->label, sizeof t->label, "1 point");
            else
                snprintf(t->label, sizeof t->label, "%s %s", t->shape, shape_name(k));
            /* next combination */
            int i = k - 1;
            while (i >= 0 && c[i] == n - k + i)
                i--;
            if (i < 0)
                break;
            c[i]++;
            for (int j = i + 1; j < k; j++)
                c[j] = c[j - 1] + 1;
        }
    }
    s->ntests = 2 + 3 * nshapes;
    for (int i = 0; i < nshapes; i++) {
        s->tests[1 + i] = shapes[i];
        s->tests[1 + i].op = TI_GET;
        s->tests[1 + nshapes + i] = shapes[i];
        s->tests[1 + nshapes + i].op = TI_PUT;
        s->tests[2 + 2 * nshapes + i] = shapes[i];
        s->tests[2 + 2 * nshapes + i].op = TI_PUTSYNC;
    }
    s->tests[1 + 2 * nshapes] = *w;
    s->tests[1 + 2 * nshapes].op = TI_PUTSYNC;
}

/* ---- timing ---------------------------------------------------------------- */

typedef struct {
    ti_engine *e;
    int varid;
    const ti_test *test;
    void *buf;                  /* the engine's own buffer */
    const void *want;           /* the values written, and expected back */
} ti_run;

static void call_failed(const ti_run *r, int status)
{
    static const char *calls[] = { "ncvarget", "ncvarput", "ncvarput+ncsync" };
    ti_die("%s: %s %s: %s (status %d)", r->e->label, calls[r->test->op], r->test->label,
           r->e->lib->strerror(status), status);
}

/* Seconds for n calls of the test on one engine.  A put+sync batch ends
 * with the data on the disk: the library's sync, and an fdatasync of the
 * file after a sync that only hands its buffers to the system
 * (netCDF-C's nc_sync).  ncs_sync is durable by itself; an fdatasync
 * after it found nothing to write but still flushed the disk's cache, a
 * third of a small batch's time here (sync_durable). */
static double time_batch(const ti_run *r, long n)
{
    const ti_lib *lib = r->e->lib;
    int ncid = r->e->ncid, varid = r->varid, status = 0;
    const long *start = r->test->start, *count = r->test->count;
    double t0 = ti_now();
    if (r->test->op == TI_GET) {
        for (long i = 0; i < n && status == 0; i++)
            status = lib->get(ncid, varid, start, count, r->buf);
    } else {
        for (long i = 0; i < n && status == 0; i++)
            status = lib->put(ncid, varid, start, count, r->want);
        if (status == 0 && r->test->op == TI_PUTSYNC) {
            status = lib->sync(ncid);
            if (status == 0 && !lib->sync_durable && fdatasync(r->e->fd) != 0)
                status = errno;
        }
    }
    double t = ti_now() - t0;
    if (status != 0)
        call_failed(r, status);
    return t;
}

static void check_get(const ti_suite *s, const ti_run *r, int t, const char *when)
{
    const ti_options *o = s->o;
    char msg[256];
    if (ti_check_slab(o->types[t]->type, o->ndims, o->dims, r->test->start, r->test->count,
                      r->buf, msg, sizeof msg))
        ti_die("%s: %s_var: ncvarget %s returned wrong data (%s): %s", r->e->label,
               o->types[t]->name, r->test->label, when, msg);
}

/* Reads the slab back, into a poisoned buffer, and checks it. */
static void check_readback(const ti_suite *s, ti_run *r, int t, size_t bytes)
{
    int status;
    memset(r->buf, 0xA5, bytes);
    status = r->e->lib->get(r->e->ncid, r->varid, r->test->start, r->test->count, r->buf);
    if (status != 0)
        call_failed(r, status);
    check_get(s, r, t, "reading back what ncvarput wrote");
}

static double timed_batch(void *ctx, long n)
{
    return time_batch(ctx, n);
}

static void run_test(ti_suite *s, int t, int k, void **bufs, void *want)
{
    const ti_options *o = s->o;
    const ti_test *test = &s->tests[k];
    size_t bytes = ti_nelems(o->ndims, test->count) * o->types[t]->size;
    ti_run runs[TI_MAX_ENGINES];
    ti_timed timed[TI_MAX_ENGINES];
    int nruns = 0;

    ti_fill_slab(o->types[t]->type, o->ndims, o->dims, test->start, test->count, want);
    for (int e = 0; e < s->nengines; e++) {
        ti_engine *eng = &s->engines[e];
        ti_run *r;
        TI_USEC(s, e, t, k) = NAN;
        if (!ti_engine_available(eng) || (test->op == TI_PUTSYNC && eng->lib->sync == NULL))
            continue;
        r = &runs[nruns];
        memset(r, 0, sizeof *r);
        r->e = eng;
        r->varid = eng->varids[t];
        r->test = test;
        r->buf = bufs[e];
        r->want = want;
        timed[nruns].batch = timed_batch;
        timed[nruns].ctx = r;
        /* put+sync: every engine puts a whole variable's worth in pieces of
         * the shape, then syncs once */
        timed[nruns].calls = test->op == TI_PUTSYNC
                                 ? (long)(ti_nelems(o->ndims, o->dims) / ti_nelems(o->ndims, test->count))
                                 : 0;
        nruns++;
        /* the first call, checked, outside the timing */
        if (test->op == TI_GET) {
            memset(r->buf, 0xA5, bytes);
            time_batch(r, 1);
            check_get(s, r, t, "first call");
        } else {
            time_batch(r, 1);
        }
    }
    ti_time_interleaved(timed, nruns, o->min_time);
    for (int i = 0; i < nruns; i++) {
        ti_run *r = &runs[i];
        if (test->op == TI_GET) {
            if (memcmp(r->buf, want, bytes) != 0)
                check_get(s, r, t, "after the timed calls");
        } else {
            check_readback(s, r, t, bytes);
        }
        TI_USEC(s, (int)(r->e - s->engines), t, k) = timed[i].usec;
    }
}

void ti_suite_run(ti_suite *s)
{
    const ti_options *o = s->o;
    size_t maxbytes = ti_nelems(o->ndims, o->dims) * 8;
    void *bufs[TI_MAX_ENGINES], *want = malloc(maxbytes);
    double t0 = ti_now();
    int done = 0;

    ti_suite_tests(s);
    s->usec = malloc(sizeof(double) * (size_t)s->nengines * TI_MAX_TYPES * (size_t)s->ntests);
    if (want == NULL || s->usec == NULL)
        ti_die("out of memory");
    for (int e = 0; e < s->nengines; e++)
        if ((bufs[e] = malloc(maxbytes)) == NULL)
            ti_die("out of memory");
    for (int t = 0; t < o->ntypes; t++) {
        for (int k = 0; k < s->ntests; k++) {
            ti_progress("%s_var: %s %s  (test %d of %d)", o->types[t]->name,
                        s->tests[k].op == TI_GET ? "ncvarget" : "ncvarput", s->tests[k].label,
                        ++done, o->ntypes * s->ntests);
            run_test(s, t, k, bufs, want);
        }
        ti_progress_done();
        if (!o->quiet)
            ti_report_block(s, t);
    }
    for (int e = 0; e < s->nengines; e++) {
        ti_engine *eng = &s->engines[e];
        struct stat st;
        free(bufs[e]);
        if (!ti_engine_available(eng))
            continue;
        int status = eng->lib->close(eng->ncid);
        if (eng->fd >= 0)
            close(eng->fd);
        if (status != 0)
            ti_die("%s: close: %s (status %d)", eng->label, eng->lib->strerror(status), status);
        if (eng->layout.kind == TI_RESIDENT) {
            eng->file_size = 0;
            for (int t = 0; t < o->ntypes; t++)
                eng->file_size += (long long)(ti_nelems(o->ndims, o->dims) * o->types[t]->size);
        } else if (stat(eng->path, &st) == 0) {
            eng->file_size = (long long)st.st_size;
        }
    }
    free(want);
    s->seconds = ti_now() - t0;
}
