/*
 * strided.c -- strided and mapped reads on the suite's classic 4-D record
 * file, against netCDF-C on the same file and against a plain read of the
 * block each request covers.
 *
 * One classic file with the suite's variables (one per type, shape
 * rec x d1 x d2 x ...) is written once and opened read-only by every
 * engine, so both libraries read the very same bytes.  For each type and
 * each access shape S of the suite with at least two dimensions taken
 * whole (the planes, the cubes and the whole variable of a 4-D variable;
 * the other dimensions at their middle index), each engine makes:
 *
 *   ncvargets   count ceil(S/2), stride 2 in every dimension;
 *   ncvarget    of the block that request covers, (ceil(S/2)-1)*2+1
 *               (skipped when that is S itself);
 *   ncvargetg   count S, a map (in bytes, as v2 has it) that transposes
 *               the last two dimensions in memory;
 *   ncvarget    of S, the block the map covers.
 *
 * Every call of every engine for one (type, shape) is timed in one
 * interleaved set (timing.c), so the ratios within a row come from the
 * same minutes.  The buffer of each call is poisoned and checked element
 * by element on the first call and compared again after the timed
 * batches: each value encodes its coordinates (values.c), and a wrong one
 * ends the run naming the coordinates.
 *
 * ncslab is reached through its v2 ncvargets/ncvargetg (compiled into the
 * harness with prefixed names, as for the suite), which call ncs_get with
 * the stride and the element map; --engines ...,native adds those ncs_get
 * calls directly.  netCDF-C's ncvargets/ncvargetg call nc_get_vars and
 * nc_get_varm.
 */
#include "suite.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { OP_GETS, OP_COVER_S, OP_GETG, OP_COVER_G, NOPS };

#define ST_MAX_ENGINES 5        /* ncslab, native, netCDF-C and two peers */

static const char *const op_names[NOPS] = {
    "ncvargets", "ncvarget-cover", "ncvargetg", "ncvarget-cover",
};

typedef struct {
    const ti_lib *lib;
    char label[128];
    int ncid;
    int varids[TI_MAX_TYPES];
    long long file_size;
} st_engine;

/* One request: what it asks for, and the values it must bring. */
typedef struct {
    int op;
    long start[TI_MAX_DIMS], count[TI_MAX_DIMS], stride[TI_MAX_DIMS];
    long imap[TI_MAX_DIMS];     /* bytes (ncvargetg) */
    long emap[TI_MAX_DIMS];     /* the same in elements */
    int strided, mapped;
    size_t nelems;
    void *want;
    char shape[96];             /* for the CSV: "5x10x1x1 stride 2" */
} st_request;

/* One engine making one request, as a timed thing. */
typedef struct {
    const st_engine *e;
    const st_request *q;
    int varid, type, ndims;
    size_t elsize;
    void *buf;
} st_run;

/* The expected buffer of a request: element i (an index per dimension)
 * is the value at coordinates start + i*stride, stored at memory element
 * sum(i * emap). */
static void expect(int type, size_t elsize, int nd, const long *dims, const st_request *q,
                   unsigned char *out)
{
    long idx[TI_MAX_DIMS] = { 0 };
    for (size_t k = 0; k < q->nelems; k++) {
        uint64_t code = 0;
        long pos = 0;
        for (int d = 0; d < nd; d++) {
            code = code * (uint64_t)dims[d] + (uint64_t)(q->start[d] + idx[d] * q->stride[d]);
            pos += idx[d] * q->emap[d];
        }
        ti_value(type, code, out + (size_t)pos * elsize);
        for (int d = nd - 1; d >= 0; d--) {
            if (++idx[d] < q->count[d])
                break;
            idx[d] = 0;
        }
    }
}

static void check(const st_run *r, const char *when)
{
    const st_request *q = r->q;
    const unsigned char *got = r->buf, *want = q->want;
    long idx[TI_MAX_DIMS] = { 0 };
    if (memcmp(got, want, q->nelems * r->elsize) == 0)
        return;
    for (size_t k = 0; k < q->nelems; k++) {
        long pos = 0;
        for (int d = 0; d < r->ndims; d++)
            pos += idx[d] * q->emap[d];
        if (memcmp(got + (size_t)pos * r->elsize, want + (size_t)pos * r->elsize, r->elsize)) {
            char coords[128] = "", *p = coords;
            for (int d = 0; d < r->ndims; d++)
                p += snprintf(p, sizeof coords - (size_t)(p - coords), "%s%ld", d ? "," : "",
                              q->start[d] + idx[d] * q->stride[d]);
            ti_die("strided: %s: %s_var: %s %s returned wrong data (%s): the element at (%s), "
                   "memory element %ld (first byte read 0x%02x, expected 0x%02x)", r->e->label,
                   ti_type_by_code(r->type)->name, op_names[q->op], q->shape, when, coords, pos,
                   got[(size_t)pos * r->elsize], want[(size_t)pos * r->elsize]);
        }
        for (int d = r->ndims - 1; d >= 0; d--) {
            if (++idx[d] < q->count[d])
                break;
            idx[d] = 0;
        }
    }
}

static int call(const st_run *r)
{
    const ti_lib *lib = r->e->lib;
    const st_request *q = r->q;
    if (q->mapped)
        return lib->getg(r->e->ncid, r->varid, r->ndims, q->start, q->count,
                         q->strided ? q->stride : NULL, q->imap, r->elsize, r->buf);
    if (q->strided)
        return lib->gets(r->e->ncid, r->varid, q->start, q->count, q->stride, r->buf);
    return lib->get(r->e->ncid, r->varid, q->start, q->count, r->buf);
}

static double batch(void *ctx, long n)
{
    const st_run *r = ctx;
    int status = 0;
    double t0 = ti_now();
    for (long i = 0; i < n && status == 0; i++)
        status = call(r);
    t0 = ti_now() - t0;
    if (status != 0)
        ti_die("strided: %s: %s %s: %s (status %d)", r->e->label, op_names[r->q->op],
               r->q->shape, r->e->lib->strerror(status), status);
    return t0;
}

/* Writes the suite's file: one record variable per type, every value. */
static void write_file(const ti_lib *lib, const ti_options *o, const char *path)
{
    int ncid, status;
    ti_layout layout = { .kind = TI_CONTIGUOUS, .format = o->format };
    void *buf = malloc(ti_nelems(o->ndims, o->dims) * 8);
    long start[TI_MAX_DIMS] = { 0 };
    if (buf == NULL)
        ti_die("out of memory");
    status = lib->create(path, &layout, &ncid);
    if (status == 0)
        status = ti_define_vars(lib, ncid, o, &layout, NULL, NULL);
    for (int t = 0; t < o->ntypes && status == 0; t++) {
        ti_fill_slab(o->types[t]->type, o->ndims, o->dims, start, o->dims, buf);
        status = lib->put(ncid, t, start, o->dims, buf);
    }
    if (status == 0)
        status = lib->close(ncid);
    if (status != 0)
        ti_die("strided: writing %s with %s: %s (status %d)", path, lib->name,
               lib->strerror(status), status);
    free(buf);
}

static void open_engine(st_engine *e, const ti_options *o, const char *path)
{
    struct stat st;
    int status = e->lib->open(path, &e->ncid);
    for (int t = 0; t < o->ntypes && status == 0; t++) {
        char name[32];
        snprintf(name, sizeof name, "%s_var", o->types[t]->name);
        status = e->lib->inq_varid(e->ncid, name, &e->varids[t]);
    }
    if (status != 0)
        ti_die("strided: %s: opening %s: %s (status %d)", e->label, path,
               e->lib->strerror(status), status);
    e->file_size = stat(path, &st) == 0 ? (long long)st.st_size : 0;
}

/* The shapes: every subset of at least two dimensions (or all of them, for
 * rank 1) taken whole, the others at their middle index; by subset size,
 * then in the suite's order. */
static int make_shapes(const ti_options *o, long (*start)[TI_MAX_DIMS], long (*count)[TI_MAX_DIMS],
                       int max)
{
    int n = o->ndims, ns = 0, kmin = n < 2 ? n : 2;
    for (int k = kmin; k <= n; k++)
        for (unsigned m = (1u << n) - 1; m > 0; m--) {
            int bits = __builtin_popcount(m);
            if (bits != k || ns == max)
                continue;
            for (int d = 0; d < n; d++) {
                int whole = (m >> (n - 1 - d)) & 1;
                start[ns][d] = whole ? 0 : o->dims[d] / 2;
                count[ns][d] = whole ? o->dims[d] : 1;
            }
            ns++;
        }
    return ns;
}

/* The requests for one shape and type, want buffers made. */
static int make_requests(const ti_options *o, int t, const long *start, const long *count,
                         st_request *q)
{
    int nd = o->ndims, nq = 0, cover_same = 1;
    size_t sz = o->types[t]->size;
    char s[64];
    for (int op = 0; op < NOPS; op++) {
        st_request *r = &q[nq];
        memset(r, 0, sizeof *r);
        r->op = op;
        for (int d = 0; d < nd; d++) {
            long half = (count[d] + 1) / 2;
            r->start[d] = start[d];
            r->stride[d] = op == OP_GETS ? 2 : 1;
            r->count[d] = op == OP_GETS ? half : op == OP_COVER_S ? (half - 1) * 2 + 1 : count[d];
            if (op == OP_COVER_S && r->count[d] != count[d])
                cover_same = 0;
        }
        if (op == OP_COVER_S && cover_same)
            continue;
        r->strided = op == OP_GETS;
        r->mapped = op == OP_GETG;
        /* natural order in memory; the map swaps the last two dimensions */
        for (long d = nd - 1, step = 1; d >= 0; d--) {
            r->emap[d] = step;
            step *= r->count[d];
        }
        if (r->mapped && nd >= 2) {
            r->emap[nd - 1] = r->count[nd - 2];
            r->emap[nd - 2] = 1;
        }
        for (int d = 0; d < nd; d++)
            r->imap[d] = r->emap[d] * (long)sz;
        r->nelems = ti_nelems(nd, r->count);
        r->want = malloc(r->nelems * sz + 1);
        if (r->want == NULL)
            ti_die("out of memory");
        expect(o->types[t]->type, sz, nd, o->dims, r, r->want);
        ti_shape_str(nd, r->count, s, sizeof s);
        snprintf(r->shape, sizeof r->shape, "%s%s", s,
                 r->strided ? " stride 2" : r->mapped ? " transposed" : "");
        nq++;
    }
    return nq;
}

/* The request of an op among q, or NULL (a skipped cover: then the plain
 * get of S, which is the same block). */
static const st_request *find_op(const st_request *q, int nq, int op)
{
    for (int i = 0; i < nq; i++)
        if (q[i].op == op)
            return &q[i];
    return op == OP_COVER_S ? find_op(q, nq, OP_COVER_G) : NULL;
}

typedef struct {
    double sum_log, min, max;
    int n;
    char min_at[96], max_at[96];
} st_stat;

static void stat_add(st_stat *s, double v, const char *at)
{
    if (isnan(v) || v <= 0)
        return;
    if (s->n == 0 || v < s->min)
        s->min = v, snprintf(s->min_at, sizeof s->min_at, "%s", at);
    if (s->n == 0 || v > s->max)
        s->max = v, snprintf(s->max_at, sizeof s->max_at, "%s", at);
    s->sum_log += log(v);
    s->n++;
}

static void stat_print(const char *what, const st_stat *s)
{
    if (s->n == 0)
        return;
    printf("  %-44s geomean %7.2f, min %7.2f (%s), max %7.2f (%s)\n", what,
           exp(s->sum_log / s->n), s->min, s->min_at, s->max, s->max_at);
}

int ti_run_strided(const ti_options *o, FILE *csv)
{
    st_engine engines[ST_MAX_ENGINES];
    long starts[TI_MAX_TESTS][TI_MAX_DIMS], counts[TI_MAX_TESTS][TI_MAX_DIMS];
    int ne = 0, ref = -1, nshapes;
    size_t maxbytes = ti_nelems(o->ndims, o->dims) * 8;
    char path[4096], dimstr[64];
    double t0 = ti_now();
    /* per ncslab engine and op (gets, getg): speed-up and x cover */
    st_stat speed[ST_MAX_ENGINES][2], cover[ST_MAX_ENGINES][2];

    memset(speed, 0, sizeof speed);
    memset(cover, 0, sizeof cover);
    if (o->engines & TI_E_NCSLAB)
        engines[ne++].lib = &ti_lib_ncslab;
    if (o->engines & TI_E_NATIVE)
        engines[ne++].lib = &ti_lib_ncslab_native;
    if (o->engines & TI_E_NETCDF) {
        ref = ne;
        engines[ne++].lib = &ti_lib_netcdf;
    }
    if (o->engines & TI_E_PNETCDF)
        engines[ne++].lib = TI_PNETCDF;
    if (o->engines & TI_E_NETCDF2)
        engines[ne++].lib = TI_NETCDF2;
    if (ne == 0) {
        printf("\nstrided: no contiguous engine selected (ncslab, native, netcdf); skipped\n");
        return 0;
    }
    snprintf(path, sizeof path, "%s/strided.nc", o->dir);
    write_file(engines[0].lib, o, path);
    for (int i = 0; i < ne; i++) {
        char layout[16];
        snprintf(layout, sizeof layout, "cdf%d", o->format);
        ti_engine_name(engines[i].label, sizeof engines[i].label, engines[i].lib->name, layout);
        open_engine(&engines[i], o, path);
    }
    nshapes = make_shapes(o, starts, counts, TI_MAX_TESTS);

    ti_shape_str(o->ndims, o->dims, dimstr, sizeof dimstr);
    printf("\nstrided: ncvargets with stride 2 in every dimension and ncvargetg with a map "
           "transposing the\n         last two dimensions, against ncvarget of the block each "
           "covers; variables %s,\n         one classic file (CDF-%d, written by %s) opened "
           "read-only by every engine;\n         microseconds per call, median of interleaved "
           "batches, min-time %g s\n", dimstr, o->format, engines[0].lib->name, o->min_time);
    for (int t = 0; t < o->ntypes; t++) {
        const ti_type *ty = o->types[t];
        printf("\n%s_var%*s%-44s  %s\n", ty->name, (int)(12 - strlen(ty->name)), "",
               "ncvargets, stride 2", "ncvargetg, last two dimensions transposed");
        printf("%-17s %-14s %9s %9s %8s %9s %7s  %9s %9s %8s %9s %7s\n", "shape", "engine",
               "strided", "netCDF-C", "speed-up", "cover", "x cover", "mapped", "netCDF-C",
               "speed-up", "cover", "x cover");
        for (int k = 0; k < nshapes; k++) {
            st_request q[NOPS];
            st_run runs[ST_MAX_ENGINES * NOPS];
            ti_timed timed[ST_MAX_ENGINES * NOPS];
            double usec[ST_MAX_ENGINES][NOPS];
            int nq = make_requests(o, t, starts[k], counts[k], q), nr = 0;
            char shape[64];
            ti_shape_str(o->ndims, counts[k], shape, sizeof shape);
            ti_progress("strided: %s_var %s", ty->name, shape);
            for (int i = 0; i < ne; i++)
                for (int j = 0; j < nq; j++) {
                    st_run *r = &runs[nr];
                    r->e = &engines[i];
                    r->q = &q[j];
                    r->varid = engines[i].varids[t];
                    r->type = ty->type;
                    r->ndims = o->ndims;
                    r->elsize = ty->size;
                    if ((r->buf = malloc(maxbytes)) == NULL)
                        ti_die("out of memory");
                    memset(r->buf, 0xA5, q[j].nelems * ty->size);
                    batch(r, 1);
                    check(r, "first call");
                    timed[nr].batch = batch;
                    timed[nr].ctx = r;
                    timed[nr].calls = 0;
                    nr++;
                }
            ti_time_interleaved(timed, nr, o->min_time);
            for (int i = 0; i < nr; i++) {
                check(&runs[i], "after the timed calls");
                usec[(int)(runs[i].e - engines)][runs[i].q->op] = timed[i].usec;
            }
            for (int i = 0; i < ne; i++) {
                int c = find_op(q, nq, OP_COVER_S)->op;
                usec[i][OP_COVER_S] = usec[i][c];
            }
            for (int i = 0; i < ne; i++) {
                char gs[16] = "n/a", gg[16] = "n/a", at[96];
                double sp_s = NAN, sp_g = NAN, xc_s, xc_g;
                char us[6][32];
                if (i == ref)
                    continue;
                if (ref >= 0) {
                    sp_s = usec[ref][OP_GETS] / usec[i][OP_GETS];
                    sp_g = usec[ref][OP_GETG] / usec[i][OP_GETG];
                    snprintf(gs, sizeof gs, "%.1fx", sp_s);
                    snprintf(gg, sizeof gg, "%.1fx", sp_g);
                }
                xc_s = usec[i][OP_GETS] / usec[i][OP_COVER_S];
                xc_g = usec[i][OP_GETG] / usec[i][OP_COVER_G];
                ti_fmt_usec(usec[i][OP_GETS], us[0], sizeof us[0]);
                ti_fmt_usec(ref >= 0 ? usec[ref][OP_GETS] : NAN, us[1], sizeof us[1]);
                ti_fmt_usec(usec[i][OP_COVER_S], us[2], sizeof us[2]);
                ti_fmt_usec(usec[i][OP_GETG], us[3], sizeof us[3]);
                ti_fmt_usec(ref >= 0 ? usec[ref][OP_GETG] : NAN, us[4], sizeof us[4]);
                ti_fmt_usec(usec[i][OP_COVER_G], us[5], sizeof us[5]);
                printf("%-17s %-14s %9s %9s %8s %9s %7.2f  %9s %9s %8s %9s %7.2f\n", shape,
                       engines[i].lib->name, us[0], us[1], gs, us[2], xc_s, us[3], us[4], gg,
                       us[5], xc_g);
                snprintf(at, sizeof at, "%s %s", ty->name, shape);
                stat_add(&speed[i][0], sp_s, at);
                stat_add(&speed[i][1], sp_g, at);
                stat_add(&cover[i][0], xc_s, at);
                stat_add(&cover[i][1], xc_g, at);
            }
            if (csv)
                for (int i = 0; i < nr; i++) {
                    const st_run *r = &runs[i];
                    int e = (int)(r->e - engines);
                    double u = usec[e][r->q->op];
                    char rr[16] = "n/a";
                    if (ref >= 0)
                        snprintf(rr, sizeof rr, "%.4f", u / usec[ref][r->q->op]);
                    fprintf(csv, "%s,cdf%d,%s,%s,%s,%.3f,%.1f,%zu,%s,%lld,\n", r->e->lib->name,
                            o->format, ty->name, op_names[r->q->op], r->q->shape, u, 1e6 / u,
                            r->q->nelems * ty->size, rr, r->e->file_size);
                }
            for (int i = 0; i < nr; i++)
                free(runs[i].buf);
            for (int j = 0; j < nq; j++)
                free(q[j].want);
        }
    }
    ti_progress_done();
    printf("\nstrided: speed-up = netCDF-C's time over the engine's; x cover = the engine's "
           "time over its\n         ncvarget of the covering block (below 1: cheaper than "
           "reading the block)\n");
    for (int i = 0; i < ne; i++) {
        if (i == ref)
            continue;
        printf("%s, over %d types x %d shapes:\n", engines[i].label, o->ntypes, nshapes);
        stat_print("ncvargets speed-up over netCDF-C", &speed[i][0]);
        stat_print("ncvargets x cover", &cover[i][0]);
        stat_print("ncvargetg speed-up over netCDF-C", &speed[i][1]);
        stat_print("ncvargetg x cover", &cover[i][1]);
    }
    for (int i = 0; i < ne; i++)
        engines[i].lib->close(engines[i].ncid);
    unlink(path);
    printf("strided: done in %.1f s\n", ti_now() - t0);
    return 0;
}
