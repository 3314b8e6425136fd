/*
 * scan.c -- the GVRS row-major test: a rows x cols grid of shorts
 * (synthetic smooth terrain, 10800 x 21600 like ETOPO1 by default), every
 * cell read by one get1 call, row by row, on each engine.
 *
 * Each engine works in forked children, so that its peak memory is its
 * own: one child writes the file, a second opens it and scans (the memory
 * floor builds its array and scans in one child).  The scanning child
 * notes its resident set when it starts (what it shares with the harness)
 * and resets its high-water mark, so the peak reported is the scan's.
 * The time of a row counts only its get1 calls, made by the engine's own
 * loop (ti_lib.get1_row: the loop a program would write, with no call
 * through the harness's table per cell); the total adds the open and the
 * close.  After each row the values are compared with the terrain
 * function, outside the timing, and a wrong value fails the run.  With
 * --scan-budget an engine stops at the end of the row that crosses the
 * budget, and the report says how many rows it read.  With the memory
 * engine comes its reference, "plain-loop": the same resident array read
 * by a bare loop over each row, which the floor must keep up with.
 */
#include "timeit.h"
#include "terrain.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define NC_SHORT 3

typedef struct {
    const ti_lib *lib;
    ti_layout layout;
    char label[128];
} scan_engine;

/* What a child reports back through its pipe. */
typedef struct {
    int status;                 /* 0, or a netCDF status / -1 for a wrong value */
    char msg[256];
    double seconds;             /* write: whole write; scan: get1 calls only */
    double total;               /* scan: open + get1 calls + close */
    double cpu;                 /* scan: CPU time of the get1 calls */
    long rows;                  /* rows scanned */
    long long file_size;
    size_t base_rss;            /* resident set when the child started */
    size_t peak_rss;            /* high-water mark since then */
} scan_result;

static void fail(scan_result *res, const ti_lib *lib, const char *what, int status)
{
    res->status = status;
    snprintf(res->msg, sizeof res->msg, "%s: %s (status %d)", what, lib->strerror(status), status);
}

/* Creates the grid variable and writes it in blocks of chunk rows. */
static int write_grid(const scan_engine *e, const char *path, const ti_terrain *t, size_t block,
                      int *ncidp, int *varidp, scan_result *res)
{
    const ti_lib *lib = e->lib;
    int dimids[2], status;
    long start[2] = { 0, 0 }, count[2] = { 0, t->cols };
    short *buf = malloc(sizeof(short) * block * (size_t)t->cols);
    if (buf == NULL)
        ti_die("out of memory");
    if ((status = lib->create(path, &e->layout, ncidp)) != 0)
        return fail(res, lib, "create", status), status;
    if ((status = lib->def_dim(*ncidp, "y", t->rows, &dimids[0])) != 0 ||
        (status = lib->def_dim(*ncidp, "x", t->cols, &dimids[1])) != 0 ||
        (status = lib->def_var(*ncidp, "elevation", NC_SHORT, 2, dimids, &e->layout, varidp)) != 0 ||
        (status = lib->enddef(*ncidp)) != 0)
        return fail(res, lib, "define", status), status;
    for (long r = 0; r < t->rows; r += count[0]) {
        count[0] = (long)block < t->rows - r ? (long)block : t->rows - r;
        for (long i = 0; i < count[0]; i++)
            ti_terrain_row(t, r + i, buf + (size_t)i * (size_t)t->cols);
        start[0] = r;
        if ((status = lib->put(*ncidp, *varidp, start, count, buf)) != 0)
            return fail(res, lib, "ncvarput", status), status;
    }
    free(buf);
    return 0;
}

static void scan_grid(const scan_engine *e, int ncid, int varid, const ti_terrain *t,
                      double budget, scan_result *res)
{
    const ti_lib *lib = e->lib;
    short *row = malloc(sizeof(short) * (size_t)t->cols);
    short *want = malloc(sizeof(short) * (size_t)t->cols);
    double start = ti_now();
    if (row == NULL || want == NULL)
        ti_die("out of memory");
    res->seconds = 0;
    for (long r = 0; r < t->rows; r++) {
        double t0 = ti_now(), c0 = ti_cpu_now();
        int status = lib->get1_row(ncid, varid, r, t->cols, row);
        res->seconds += ti_now() - t0;
        res->cpu += ti_cpu_now() - c0;
        if (status != 0) {
            fail(res, lib, "ncvarget1", status);
            break;
        }
        ti_terrain_row(t, r, want);
        if (memcmp(row, want, sizeof(short) * (size_t)t->cols) != 0) {
            long c = 0;
            while (row[c] == want[c])
                c++;
            res->status = -1;
            snprintf(res->msg, sizeof res->msg, "ncvarget1 read %d at (%ld,%ld), expected %d",
                     row[c], r, c, want[c]);
            break;
        }
        res->rows = r + 1;
        if (budget > 0 && ti_now() - start > budget)
            break;
    }
    free(row);
    free(want);
}

/* Runs fn in a child and collects its result. */
static scan_result in_child(void (*fn)(const scan_engine *, const char *, const ti_terrain *,
                                       const ti_options *, scan_result *),
                            const scan_engine *e, const char *path, const ti_terrain *t,
                            const ti_options *o)
{
    scan_result res;
    int fds[2], wstatus;
    pid_t pid;
    memset(&res, 0, sizeof res);
    fflush(stdout);
    fflush(stderr);
    if (pipe(fds) != 0 || (pid = fork()) < 0)
        ti_die("cannot fork: %m");
    if (pid == 0) {
        FILE *f;
        close(fds[0]);
        res.base_rss = ti_rss();
        /* 5: reset the high-water mark to the current resident set */
        if ((f = fopen("/proc/self/clear_refs", "w")) != NULL) {
            fputs("5", f);
            fclose(f);
        }
        fn(e, path, t, o, &res);
        res.peak_rss = ti_peak_rss();
        if (write(fds[1], &res, sizeof res) != (ssize_t)sizeof res)
            _exit(3);
        _exit(0);
    }
    close(fds[1]);
    if (read(fds[0], &res, sizeof res) != (ssize_t)sizeof res) {
        res.status = -1;
        snprintf(res.msg, sizeof res.msg, "the child process died");
    }
    close(fds[0]);
    waitpid(pid, &wstatus, 0);
    return res;
}

static void child_write(const scan_engine *e, const char *path, const ti_terrain *t,
                        const ti_options *o, scan_result *res)
{
    int ncid, varid, status;
    double t0 = ti_now();
    struct stat st;
    if (write_grid(e, path, t, o->scan_chunks[0], &ncid, &varid, res) != 0)
        return;
    if ((status = e->lib->close(ncid)) != 0)
        return fail(res, e->lib, "close", status);
    res->seconds = ti_now() - t0;
    if (stat(path, &st) == 0)
        res->file_size = (long long)st.st_size;
}

static void child_scan(const scan_engine *e, const char *path, const ti_terrain *t,
                       const ti_options *o, scan_result *res)
{
    int ncid, varid, status;
    double t0 = ti_now(), t1;
    if (o->scan_cache > 0 && (e->lib == &ti_lib_ncslab || e->lib == &ti_lib_ncslab_native))
        ti_ncslab_chunk_cache(o->scan_cache);
    if (e->lib->open == NULL) {
        /* the memory floor: build the array here, then scan it */
        if (write_grid(e, path, t, o->scan_chunks[0], &ncid, &varid, res) != 0)
            return;
        res->file_size = (long long)t->rows * t->cols * 2;
    } else {
        if ((status = e->lib->open(path, &ncid)) != 0)
            return fail(res, e->lib, "open", status);
        if ((status = e->lib->inq_varid(ncid, "elevation", &varid)) != 0)
            return fail(res, e->lib, "ncvarid", status);
    }
    t1 = ti_now();
    scan_grid(e, ncid, varid, t, o->scan_budget, res);
    res->total = t1 - t0 + res->seconds;
    t1 = ti_now();
    if (res->status == 0 && (status = e->lib->close(ncid)) != 0)
        fail(res, e->lib, "close", status);
    res->total += ti_now() - t1;
}

static int add(scan_engine *v, int n, const ti_lib *lib, int kind, const ti_options *o,
               int deflate)
{
    scan_engine *e = &v[n];
    memset(e, 0, sizeof *e);
    e->lib = lib;
    e->layout.kind = kind;
    e->layout.format = o->format;
    if (kind == TI_CHUNKED) {
        e->layout.rank = 2;
        e->layout.chunks[0] = o->scan_chunks[0];
        e->layout.chunks[1] = o->scan_chunks[1];
        e->layout.deflate = deflate;
        snprintf(e->layout.label, sizeof e->layout.label, "chunks %zux%zu%s",
                 o->scan_chunks[0], o->scan_chunks[1], deflate ? " deflate 1" : "");
    } else {
        snprintf(e->layout.label, sizeof e->layout.label,
                 kind == TI_CONTIGUOUS ? "cdf%d" : "resident", o->format);
    }
    ti_engine_name(e->label, sizeof e->label, lib->name, e->layout.label);
    return n + 1;
}

int ti_run_scan(const ti_options *o, FILE *csv)
{
    scan_engine engines[16];
    scan_result res[16], w[16];
    ti_terrain t;
    int n = 0, ref = -1, failed = 0;
    double t0 = ti_now();

    if (o->scan_chunks[0] > (size_t)o->scan_rows || o->scan_chunks[1] > (size_t)o->scan_cols)
        ti_die("--scan-chunks larger than the grid");
    if (o->engines & TI_E_NCSLAB)
        n = add(engines, n, &ti_lib_ncslab, TI_CONTIGUOUS, o, 0);
    if (o->engines & TI_E_NATIVE)
        n = add(engines, n, &ti_lib_ncslab_native, TI_CONTIGUOUS, o, 0);
    if (o->engines & TI_E_NCSCHUNK) {
        n = add(engines, n, &ti_lib_ncslab, TI_CHUNKED, o, 0);
        n = add(engines, n, &ti_lib_ncslab, TI_CHUNKED, o, 1);
    }
    if ((o->engines & TI_E_NCSCHUNK) && (o->engines & TI_E_NATIVE)) {
        n = add(engines, n, &ti_lib_ncslab_native, TI_CHUNKED, o, 0);
        n = add(engines, n, &ti_lib_ncslab_native, TI_CHUNKED, o, 1);
    }
    if (o->engines & TI_E_NETCDF) {
        ref = n;
        n = add(engines, n, &ti_lib_netcdf, TI_CONTIGUOUS, o, 0);
    }
    if (o->engines & TI_E_NETCDF4) {
        n = add(engines, n, &ti_lib_netcdf, TI_CHUNKED, o, 0);
        n = add(engines, n, &ti_lib_netcdf, TI_CHUNKED, o, 1);
    }
    if (o->engines & TI_E_PNETCDF)
        n = add(engines, n, TI_PNETCDF, TI_CONTIGUOUS, o, 0);
    if (o->engines & TI_E_NETCDF2)
        n = add(engines, n, TI_NETCDF2, TI_CONTIGUOUS, o, 0);
    if (o->engines & TI_E_NETCDF24) {
        n = add(engines, n, TI_NETCDF2, TI_CHUNKED, o, 0);
        n = add(engines, n, TI_NETCDF2, TI_CHUNKED, o, 1);
    }
    if (o->engines & TI_E_MEMORY) {
        n = add(engines, n, &ti_lib_memory, TI_RESIDENT, o, 0);
        n = add(engines, n, &ti_lib_plain, TI_RESIDENT, o, 0);
    }

    if (ti_terrain_init(&t, o->scan_rows, o->scan_cols) != 0)
        ti_die("out of memory");
    printf("\nscan: %ld x %ld short grid (synthetic terrain), every cell by one get1 call "
           "(ncvarget1; ncs_get1 for ncslab-native), row by row%s\n", o->scan_rows, o->scan_cols,
           o->scan_budget > 0 ? "" : " (no time budget)");
    if (o->scan_budget > 0)
        printf("      an engine stops at the first row end after %g s (--scan-budget)\n",
               o->scan_budget);
    if (o->engines & TI_E_NCSCHUNK)
        printf("      ncslab's chunk cache: %.1f MiB (%s)\n",
               (double)(o->scan_cache ? o->scan_cache : ti_ncslab_chunk_cache(0)) / 1048576.0,
               o->scan_cache ? "--scan-cache" : "the library's default");
    for (int i = 0; i < n; i++) {
        char path[4096];
        memset(&w[i], 0, sizeof w[i]);
        snprintf(path, sizeof path, "%s/scan%d.nc", o->dir, i);
        ti_progress("scan: %s: writing", engines[i].label);
        if (engines[i].lib->open != NULL)
            w[i] = in_child(child_write, &engines[i], path, &t, o);
        res[i] = w[i];
        if (w[i].status == 0) {
            ti_progress("scan: %s: reading", engines[i].label);
            res[i] = in_child(child_scan, &engines[i], path, &t, o);
            if (engines[i].lib->open != NULL)
                res[i].file_size = w[i].file_size;
        }
        unlink(path);
    }
    ti_progress_done();
    if (ref >= 0 && (res[ref].status != 0 || res[ref].rows == 0))
        ref = -1;
    printf("\n%-40s %8s %7s %11s %7s %9s %6s %7s %7s %8s %8s\n", "engine layout", "file MiB",
           "write s", "cells read", "scan s", "M reads/s", "ratio", "cpu M/s", "total s",
           "peak MiB", "base MiB");
    for (int i = 0; i < n; i++) {
        double cells = (double)res[i].rows * (double)o->scan_cols, usec;
        char ratio[16] = "n/a";
        if (res[i].status == TI_NOT_BUILT) {
            printf("%-40s n/a: not available (%s)\n", engines[i].label, res[i].msg);
            continue;
        }
        if (res[i].status != 0) {
            printf("%-40s FAILED: %s\n", engines[i].label, res[i].msg);
            failed = 1;
            continue;
        }
        usec = res[i].seconds * 1e6 / cells;
        if (ref >= 0)
            snprintf(ratio, sizeof ratio, "%.2f", usec / (res[ref].seconds * 1e6 /
                     ((double)res[ref].rows * (double)o->scan_cols)));
        printf("%-40s %8.1f %7.2f %11.0f %7.2f %9.2f %6s %7.2f %7.2f %8.1f %8.1f%s\n",
               engines[i].label, (double)res[i].file_size / 1048576.0, w[i].seconds, cells,
               res[i].seconds, cells / res[i].seconds / 1e6, ratio,
               res[i].cpu > 0 ? cells / res[i].cpu / 1e6 : NAN, res[i].total,
               (double)res[i].peak_rss / 1048576.0, (double)res[i].base_rss / 1048576.0,
               res[i].rows < o->scan_rows ? "  (partial: budget)" : "");
        if (csv) {
            fprintf(csv, "%s,%s,short,get1-scan,%ldx%ld,%.4f,%.1f,2,%s,%lld,%zu\n",
                    engines[i].lib->name, engines[i].layout.label, res[i].rows, o->scan_cols,
                    usec, 1e6 / usec, ratio, res[i].file_size, res[i].peak_rss);
            fprintf(csv, "%s,%s,short,scan-open-to-close,%ldx%ld,%.1f,%.4f,%.0f,n/a,%lld,%zu\n",
                    engines[i].lib->name, engines[i].layout.label, res[i].rows, o->scan_cols,
                    res[i].total * 1e6, 1 / res[i].total, cells * 2, res[i].file_size,
                    res[i].peak_rss);
        }
    }
    printf("scan s: the get1 calls only; ratio: time per read over netCDF-C classic's (below 1 is "
           "faster);\ncpu M/s: reads per second of the scanning process's CPU time (what the "
           "rate would be\nwith a core to itself); total s: open, every get1, close; peak MiB: "
           "high-water mark of\nthe scanning process since it started (it was forked holding "
           "base MiB)\nscan: done in %.1f s\n", ti_now() - t0);
    ti_terrain_free(&t);
    return failed;
}
