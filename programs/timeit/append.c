/*
 * append.c -- streaming record appends, in blocks of N records, swept over
 * N, as the bulk-load reports of the seeds do, against a plain write(2) of
 * the same bytes in the same run.
 *
 * One run creates a file with one record variable per selected type (the
 * suite's shape without its first dimension, per record), appends R
 * records in blocks of N (each block: one ncvarput per variable) and
 * closes.  The time counts the create, the puts and the close; making the
 * block's values does not count.  The write(2) baseline writes the same
 * record bytes in the classic layout's order (the records one after the
 * other, each holding every variable's slice), one write per block.
 * Every file is read back and checked after its run.  Each engine and
 * block size runs --append-repeat times, the repeats of a block size one
 * after the other with the engines in alternating order, and the median
 * run is reported, so the ratios to write(2) compare runs made in the same
 * seconds.  Before each run the file systems are synced (outside the
 * timing), so no run pays for writing back the previous one's file; none
 * waits for its own data to reach the disk either (no fsync).
 */
#include "timeit.h"

#include <errno.h>
#include <math.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct {
    const ti_lib *lib;          /* NULL: the write(2) baseline */
    ti_layout layout;
    char label[128];
    char why[256];              /* not available */
} app_engine;

static size_t record_bytes(const ti_options *o, int t)
{
    return ti_nelems(o->ndims - 1, o->dims + 1) * o->types[t]->size;
}

static void lib_fail(const app_engine *e, const char *what, int status)
{
    ti_die("append: %s: %s: %s (status %d)", e->label, what, e->lib->strerror(status), status);
}

/* Reads every record back and checks it. */
static void verify(const app_engine *e, const ti_options *o, int ncid, const int *varids)
{
    long step = 64, dims[TI_MAX_DIMS];
    memcpy(dims, o->dims, sizeof dims);
    dims[0] = o->append_records;
    for (int t = 0; t < o->ntypes; t++) {
        void *buf = malloc(record_bytes(o, t) * (size_t)step);
        if (buf == NULL)
            ti_die("out of memory");
        for (long r = 0; r < o->append_records; r += step) {
            long start[TI_MAX_DIMS] = { r }, count[TI_MAX_DIMS];
            char msg[256];
            int status;
            memcpy(count, dims, sizeof count);
            count[0] = step < o->append_records - r ? step : o->append_records - r;
            status = e->lib->get(ncid, varids[t], start, count, buf);
            if (status != 0)
                lib_fail(e, "reading back", status);
            if (ti_check_slab(o->types[t]->type, o->ndims, dims, start, count, buf, msg, sizeof msg))
                ti_die("append: %s: %s_var read back wrong: %s", e->label, o->types[t]->name, msg);
        }
        free(buf);
    }
}

/* Wall-clock and CPU seconds of the timed parts of a run. */
typedef struct {
    double wall, cpu;
    double w0, c0;
} watch;

static void watch_start(watch *w)
{
    w->w0 = ti_now();
    w->c0 = ti_cpu_now();
}

static void watch_stop(watch *w)
{
    w->wall += ti_now() - w->w0;
    w->cpu += ti_cpu_now() - w->c0;
}

/* One run, timed into *w; returns 0, or -1 when the engine is not
 * available. */
static int run_lib(app_engine *e, const ti_options *o, long block, const char *path,
                   void **bufs, watch *w)
{
    const ti_lib *lib = e->lib;
    int ncid, varids[TI_MAX_TYPES], status;
    long dims[TI_MAX_DIMS];
    memcpy(dims, o->dims, sizeof dims);
    dims[0] = o->append_records;
    watch_start(w);
    status = lib->create(path, &e->layout, &ncid);
    if (status == 0)
        status = ti_define_vars(lib, ncid, o, &e->layout, varids, NULL);
    if (status == TI_NOT_BUILT) {
        snprintf(e->why, sizeof e->why, "%s (status %d)", lib->strerror(status), status);
        unlink(path);
        return -1;
    }
    if (status != 0)
        lib_fail(e, "define", status);
    watch_stop(w);
    for (long r = 0; r < o->append_records; r += block) {
        long start[TI_MAX_DIMS] = { r }, count[TI_MAX_DIMS];
        memcpy(count, dims, sizeof count);
        count[0] = block < o->append_records - r ? block : o->append_records - r;
        for (int t = 0; t < o->ntypes; t++)
            ti_fill_slab(o->types[t]->type, o->ndims, dims, start, count, bufs[t]);
        watch_start(w);
        for (int t = 0; t < o->ntypes; t++)
            if ((status = lib->put(ncid, varids[t], start, count, bufs[t])) != 0)
                lib_fail(e, "ncvarput", status);
        watch_stop(w);
    }
    if (lib->open == NULL)
        verify(e, o, ncid, varids);
    watch_start(w);
    if ((status = lib->close(ncid)) != 0)
        lib_fail(e, "close", status);
    watch_stop(w);
    if (lib->open == NULL)
        return 0;
    if ((status = lib->open(path, &ncid)) != 0)
        lib_fail(e, "reopen", status);
    for (int t = 0; t < o->ntypes; t++) {
        char name[32];
        snprintf(name, sizeof name, "%s_var", o->types[t]->name);
        if ((status = lib->inq_varid(ncid, name, &varids[t])) != 0)
            lib_fail(e, "ncvarid", status);
    }
    verify(e, o, ncid, varids);
    lib->close(ncid);
    return 0;
}

/* The baseline: the same record bytes, one write(2) per block. */
static int run_write(const ti_options *o, long block, const char *path, unsigned char *buf,
                     watch *w)
{
    size_t recsize = 0;
    long dims[TI_MAX_DIMS];
    int fd;
    struct stat st;
    memcpy(dims, o->dims, sizeof dims);
    dims[0] = o->append_records;
    for (int t = 0; t < o->ntypes; t++)
        recsize += record_bytes(o, t);
    watch_start(w);
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        ti_die("append: write(2): %s: %s", path, strerror(errno));
    watch_stop(w);
    for (long r = 0; r < o->append_records; r += block) {
        long n = block < o->append_records - r ? block : o->append_records - r;
        size_t pos = 0;
        for (long i = 0; i < n; i++)
            for (int t = 0; t < o->ntypes; t++) {
                long start[TI_MAX_DIMS] = { r + i }, count[TI_MAX_DIMS];
                memcpy(count, dims, sizeof count);
                count[0] = 1;
                ti_fill_slab(o->types[t]->type, o->ndims, dims, start, count, buf + pos);
                pos += record_bytes(o, t);
            }
        watch_start(w);
        for (size_t done = 0; done < pos;) {
            ssize_t k = write(fd, buf + done, pos - done);
            if (k < 0 && errno != EINTR)
                ti_die("append: write(2): %s", strerror(errno));
            done += k > 0 ? (size_t)k : 0;
        }
        watch_stop(w);
    }
    watch_start(w);
    if (close(fd) != 0)
        ti_die("append: close(2): %s", strerror(errno));
    watch_stop(w);
    if (stat(path, &st) != 0 || (size_t)st.st_size != recsize * (size_t)o->append_records)
        ti_die("append: write(2) baseline file has the wrong size");
    return 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static int add(app_engine *v, int n, const ti_lib *lib, int kind, const ti_options *o)
{
    app_engine *e = &v[n];
    memset(e, 0, sizeof *e);
    e->lib = lib;
    ti_layout_init(&e->layout, kind, o->format, o->ndims, o->chunkshapes[0]);
    ti_engine_name(e->label, sizeof e->label, lib ? lib->name : "write(2)", e->layout.label);
    return n + 1;
}

int ti_run_append(const ti_options *o, FILE *csv)
{
    app_engine engines[12];
    double secs[16][12], cpu[16][12], rep[16][12][100], repc[16][12][100];
    size_t recsize = 0, maxblock = 0;
    void *bufs[TI_MAX_TYPES];
    unsigned char *raw;
    int n = 0, ref = -1, base;
    char types[64] = "", shape[64];
    double t0 = ti_now();

    for (int t = 0; t < o->ntypes; t++) {
        recsize += record_bytes(o, t);
        snprintf(types + strlen(types), sizeof types - strlen(types), "%s%s", t ? "+" : "",
                 o->types[t]->name);
    }
    for (int b = 0; b < o->nblocks; b++)
        maxblock = (size_t)o->blocks[b] > maxblock ? (size_t)o->blocks[b] : maxblock;
    if (o->engines & TI_E_NCSLAB)
        n = add(engines, n, &ti_lib_ncslab, TI_CONTIGUOUS, o);
    if (o->engines & TI_E_NATIVE)
        n = add(engines, n, &ti_lib_ncslab_native, TI_CONTIGUOUS, o);
    if (o->engines & TI_E_NCSCHUNK)
        n = add(engines, n, &ti_lib_ncslab, TI_CHUNKED, o);
    if (o->engines & TI_E_NETCDF) {
        ref = n;
        n = add(engines, n, &ti_lib_netcdf, TI_CONTIGUOUS, o);
    }
    if (o->engines & TI_E_NETCDF4)
        n = add(engines, n, &ti_lib_netcdf, TI_CHUNKED, o);
    if (o->engines & TI_E_PNETCDF)
        n = add(engines, n, TI_PNETCDF, TI_CONTIGUOUS, o);
    if (o->engines & TI_E_NETCDF2)
        n = add(engines, n, TI_NETCDF2, TI_CONTIGUOUS, o);
    if (o->engines & TI_E_NETCDF24)
        n = add(engines, n, TI_NETCDF2, TI_CHUNKED, o);
    if (o->engines & TI_E_MEMORY)
        n = add(engines, n, &ti_lib_memory, TI_RESIDENT, o);
    base = n;
    n = add(engines, n, NULL, -1, o);

    for (int t = 0; t < o->ntypes; t++)
        if ((bufs[t] = malloc(record_bytes(o, t) * maxblock)) == NULL)
            ti_die("out of memory");
    if ((raw = malloc(recsize * maxblock)) == NULL)
        ti_die("out of memory");
    /* for each block size, the engines one after the other, forwards then
     * backwards, append_repeat times; then the median */
    for (int b = 0; b < o->nblocks; b++) {
        for (int k = 0; k < o->append_repeat; k++)
            for (int j = 0; j < n; j++) {
                int i = k % 2 ? n - 1 - j : j;
                char path[4096];
                snprintf(path, sizeof path, "%s/append%d.nc", o->dir, i);
                ti_progress("append: blocks of %ld: %s (run %d of %d)", o->blocks[b],
                            engines[i].label, k + 1, o->append_repeat);
                /* the previous run's dirty pages go to disk now, not
                 * during this run */
                sync();
                watch w = { 0, 0, 0, 0 };
                int status = engines[i].why[0] ? -1
                           : engines[i].lib == NULL ? run_write(o, o->blocks[b], path, raw, &w)
                           : run_lib(&engines[i], o, o->blocks[b], path, bufs, &w);
                rep[b][i][k] = status == 0 ? w.wall : -1;
                repc[b][i][k] = status == 0 ? w.cpu : -1;
                unlink(path);
            }
        for (int i = 0; i < n; i++) {
            qsort(rep[b][i], (size_t)o->append_repeat, sizeof rep[b][i][0], cmp_double);
            qsort(repc[b][i], (size_t)o->append_repeat, sizeof repc[b][i][0], cmp_double);
            secs[b][i] = rep[b][i][o->append_repeat / 2];
            cpu[b][i] = repc[b][i][o->append_repeat / 2];
        }
    }
    ti_progress_done();

    ti_shape_str(o->ndims - 1, o->dims + 1, shape, sizeof shape);
    printf("\nappend: %ld records of %s (%s, %zu bytes a record), in blocks of N records;\n"
           "        time from create to close, median of %d runs; ratios are time over write(2)'s "
           "and over\n        netCDF-C classic's; cpu: the process's CPU seconds (user + "
           "system) over the same spans\n\n", o->append_records, shape, types, recsize,
           o->append_repeat);
    printf("%6s  %-28s %9s %12s %9s %10s %7s %10s %10s\n", "N", "engine layout", "seconds",
           "records/s", "MB/s", "x write(2)", "cpu s", "cpu x w(2)", "x netCDF-C");
    for (int b = 0; b < o->nblocks; b++) {
        for (int i = 0; i < n; i++) {
            double s = secs[b][i], mb = (double)recsize * (double)o->append_records / 1e6;
            char rref[16] = "n/a";
            if (s < 0) {
                printf("%6ld  %-28s n/a: not available (%s)\n", o->blocks[b], engines[i].label,
                       engines[i].why);
                continue;
            }
            if (ref >= 0 && secs[b][ref] > 0)
                snprintf(rref, sizeof rref, "%.2f", s / secs[b][ref]);
            printf("%6ld  %-28s %9.3f %12.0f %9.1f %10.2f %7.3f %10.2f %10s\n", o->blocks[b],
                   engines[i].label, s, (double)o->append_records / s, mb / s, s / secs[b][base],
                   cpu[b][i], cpu[b][base] > 0 ? cpu[b][i] / cpu[b][base] : NAN, rref);
            if (csv) {
                double blocks = (double)((o->append_records + o->blocks[b] - 1) / o->blocks[b]);
                for (int c = 0; c < 2; c++) {
                    double t = c ? cpu[b][i] : s;
                    fprintf(csv, "%s,%s,%s,%s,block %ld,%.3f,%.1f,%zu,%s,%lld,\n",
                            engines[i].lib ? engines[i].lib->name : "write(2)",
                            engines[i].layout.label, types, c ? "append-cpu" : "append",
                            o->blocks[b], t * 1e6 / blocks, blocks / t,
                            recsize * (size_t)o->blocks[b], c ? "n/a" : rref,
                            (long long)(recsize * (size_t)o->append_records));
                }
            }
        }
    }
    printf("append: done in %.1f s\n", ti_now() - t0);
    for (int t = 0; t < o->ntypes; t++)
        free(bufs[t]);
    free(raw);
    return 0;
}
