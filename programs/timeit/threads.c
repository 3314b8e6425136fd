/*
 * threads.c -- the threads test: N threads, each with its own handle of
 * one file, read disjoint bands of rows of a 2-D short grid, against one
 * thread reading all of it, in one interleaved run.
 *
 * Three files, written by ncslab: classic (CDF-1/2/5 as --format), chunked
 * uncompressed and chunked deflate (level 1), with --scan-chunks.  Two
 * workloads: "get1", the row-major scan of scan.c (one get1 call per cell,
 * ti_lib.get1_row) over each thread's band of rows; and "slab", each band
 * read by calls of one chunk row of rows (a whole row of chunks per call).
 * Bands are whole chunk rows, so no two threads decode the same chunk.
 *
 * The configurations timed against each other, a pass (the whole grid)
 * each, TI_BATCHES rounds in alternating order, the median pass reported:
 *   netCDF-C, one thread: the reference.  netCDF-C is not thread-safe (its
 *     handles share unlocked global state, and Debian builds it so), so it
 *     runs on one thread only; N threads of it would need one lock around
 *     every call, which is one thread again.
 *   ncslab, one thread, then N threads, with the decoding pool off
 *     (ncs_set_decode_threads(1)), so the speed-up is the threads' own;
 *   ncslab, one thread with the decoding pool of the library's default
 *     size: for the slab reads of the deflate file, what one thread's large
 *     reads gain from it (get1 reads one chunk at a time and never uses it).
 * Every pass opens its handles before the clock starts and closes them
 * after it stops, so every pass reads and decodes every chunk (closing a
 * file drops its chunks from the cache).  The first round is not timed:
 * each thread compares every value it read with the grid's function; in
 * the timed rounds each thread sums its values, and the sum of the sums
 * must be the grid's.
 */
#include "timeit.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>

#define NC_SHORT 3

/* The grid: smooth, separable, so that deflate works as on terrain. */
typedef struct {
    long rows, cols;
    double *a1, *a2, *b1, *b2;
} grid;

static void grid_init(grid *g, long rows, long cols)
{
    g->rows = rows;
    g->cols = cols;
    g->a1 = malloc(sizeof(double) * (size_t)(2 * rows + 2 * cols));
    if (g->a1 == NULL)
        ti_die("out of memory");
    g->a2 = g->a1 + rows, g->b1 = g->a2 + rows, g->b2 = g->b1 + cols;
    for (long r = 0; r < rows; r++) {
        g->a1[r] = 2500 * sin(M_PI * ((double)r + 0.5) / (double)rows);
        g->a2[r] = 700 * cos(9 * M_PI * (double)r / (double)rows);
    }
    for (long c = 0; c < cols; c++) {
        g->b1[c] = cos(2 * M_PI * (double)c / (double)cols);
        g->b2[c] = sin(13 * M_PI * (double)c / (double)cols + 1);
    }
}

static short grid_value(const grid *g, long r, long c)
{
    return (short)lrint(g->a1[r] * g->b1[c] + g->a2[r] * g->b2[c]);
}

/* One thread's share of a pass. */
typedef struct {
    const ti_lib *lib;
    const grid *g;
    int ncid, varid;
    long r0, r1;                /* its rows */
    long step;                  /* slab: rows per call; 0: get1 */
    int reps;                   /* passes over the band */
    int check;                  /* compare every value */
    long long sum;
    int status;                 /* 0, a library status, or -1: wrong value */
    long bad_r, bad_c;
} share;

static void *read_share(void *arg)
{
    share *s = arg;
    /* the loop's state in locals, written back at the end: the shares of
     * the threads lie side by side, and a field written in the loop
     * would make the threads take each other's cache lines */
    const ti_lib *lib = s->lib;
    const grid *g = s->g;
    long step = s->step > 0 ? s->step : 1, cols = g->cols, r0 = s->r0, r1 = s->r1;
    int ncid = s->ncid, varid = s->varid, check = s->check, status = 0;
    long long sum = 0;
    short *buf = malloc(sizeof(short) * (size_t)step * (size_t)cols);
    if (buf == NULL)
        ti_die("out of memory");
    for (int rep = 0; rep < s->reps && status == 0; rep++)
    for (long r = r0; r < r1 && status == 0; r += step) {
        long n = step < r1 - r ? step : r1 - r;
        if (s->step == 0) {
            status = lib->get1_row(ncid, varid, r, cols, buf);
        } else {
            long start[2] = { r, 0 }, count[2] = { n, cols };
            status = lib->get(ncid, varid, start, count, buf);
        }
        for (long i = 0; i < n * cols && status == 0; i++) {
            sum += buf[i];
            if (check && buf[i] != grid_value(g, r + i / cols, i % cols)) {
                status = -1;
                s->bad_r = r + i / cols, s->bad_c = i % cols;
            }
        }
    }
    s->sum = sum;
    s->status = status;
    free(buf);
    return NULL;
}

typedef struct {
    const ti_lib *lib;
    int nthreads;
    int pool;                   /* decoding pool size; 0: the default */
    char label[64];
    int reps;                   /* passes per sample */
    int skip;                   /* not run (too slow to be worth it) */
    double secs[TI_BATCHES], cpu[TI_BATCHES], waits[TI_BATCHES];
    double median, median_cpu, median_waits;  /* per pass */
} config;

typedef struct {
    const char *path;
    const grid *g;
    long step;                  /* 0: get1; else rows per slab call */
    long band_unit;             /* bands are multiples of this many rows */
    long long want_sum;
} pass_kind;

static long voluntary_switches(void)
{
    struct rusage ru;
    return getrusage(RUSAGE_SELF, &ru) == 0 ? ru.ru_nvcsw : 0;
}

/* One sample of configuration c: reps passes; returns their seconds
 * (reads only) and, in *cpu, the process's CPU seconds meanwhile, in
 * *waits its voluntary context switches (a thread that blocks on a lock
 * or on I/O makes one; a thread the machine's load preempts does not). */
static double run_sample(const config *c, const pass_kind *k, int reps, int check,
                         size_t pool_default, double *cpu, double *waits)
{
    share sh[64];
    pthread_t tid[64];
    int n = c->nthreads, status;
    long units = (k->g->rows + k->band_unit - 1) / k->band_unit, per;
    long long sum = 0;
    double t0, c0, t;
    long w0;
    ti_ncslab_decode_threads(c->pool > 0 ? (size_t)c->pool : pool_default);
    per = (units + n - 1) / n;
    for (int i = 0; i < n; i++) {
        sh[i] = (share){ c->lib, k->g, -1, -1, 0, 0, k->step, reps, check, 0, 0, 0, 0 };
        sh[i].r0 = (long)i * per * k->band_unit;
        sh[i].r1 = (long)(i + 1) * per * k->band_unit;
        if (sh[i].r0 > k->g->rows)
            sh[i].r0 = k->g->rows;
        if (sh[i].r1 > k->g->rows)
            sh[i].r1 = k->g->rows;
        if ((status = c->lib->open(k->path, &sh[i].ncid)) != 0 ||
            (status = c->lib->inq_varid(sh[i].ncid, "elevation", &sh[i].varid)) != 0)
            ti_die("%s: open %s: %s", c->label, k->path, c->lib->strerror(status));
    }
    w0 = voluntary_switches();
    c0 = ti_cpu_now();
    t0 = ti_now();
    if (n == 1) {
        read_share(&sh[0]);
    } else {
        for (int i = 0; i < n; i++)
            if (pthread_create(&tid[i], NULL, read_share, &sh[i]) != 0)
                ti_die("cannot start a thread");
        for (int i = 0; i < n; i++)
            pthread_join(tid[i], NULL);
    }
    t = ti_now() - t0;
    *cpu = ti_cpu_now() - c0;
    *waits = (double)(voluntary_switches() - w0);
    for (int i = 0; i < n; i++) {
        if (sh[i].status == -1)
            ti_die("%s: %s: wrong value at (%ld, %ld)", c->label, k->path, sh[i].bad_r,
                   sh[i].bad_c);
        if (sh[i].status != 0)
            ti_die("%s: %s: read: %s", c->label, k->path, c->lib->strerror(sh[i].status));
        sum += sh[i].sum;
        if ((status = c->lib->close(sh[i].ncid)) != 0)
            ti_die("%s: close: %s", c->label, c->lib->strerror(status));
    }
    if (sum != k->want_sum * reps)
        ti_die("%s: %s: values sum to %lld, not %lld", c->label, k->path, sum,
               k->want_sum * reps);
    return t;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void write_file(const char *path, const ti_layout *layout, const grid *g, long block)
{
    const ti_lib *lib = &ti_lib_ncslab_native;
    int ncid, dimids[2], varid, status;
    short *buf = malloc(sizeof(short) * (size_t)block * (size_t)g->cols);
    if (buf == NULL)
        ti_die("out of memory");
    if ((status = lib->create(path, layout, &ncid)) != 0 ||
        (status = lib->def_dim(ncid, "y", g->rows, &dimids[0])) != 0 ||
        (status = lib->def_dim(ncid, "x", g->cols, &dimids[1])) != 0 ||
        (status = lib->def_var(ncid, "elevation", NC_SHORT, 2, dimids, layout, &varid)) != 0 ||
        (status = lib->enddef(ncid)) != 0)
        ti_die("%s: define: %s", path, lib->strerror(status));
    for (long r = 0; r < g->rows; r += block) {
        long start[2] = { r, 0 }, count[2] = { block < g->rows - r ? block : g->rows - r,
                                              g->cols };
        for (long i = 0; i < count[0]; i++)
            for (long c = 0; c < g->cols; c++)
                buf[i * g->cols + c] = grid_value(g, r + i, c);
        if ((status = lib->put(ncid, varid, start, count, buf)) != 0)
            ti_die("%s: put: %s", path, lib->strerror(status));
    }
    if ((status = lib->close(ncid)) != 0)
        ti_die("%s: close: %s", path, lib->strerror(status));
    free(buf);
}

/* Times the configurations of one layout and workload; prints a line. */
static void time_kind(config *cf, int ncf, const pass_kind *k, const char *layout,
                      const char *read, double min_time, size_t pool_default, FILE *csv,
                      long long file_size)
{
    double cells = (double)k->g->rows * (double)k->g->cols, cpu, waits;
    char shape[64];
    /* the checked pass, untimed, also sizes the samples */
    for (int i = 0; i < ncf; i++) {
        double t;
        if (cf[i].skip)
            continue;
        t = run_sample(&cf[i], k, 1, 1, pool_default, &cpu, &waits);
        cf[i].reps = t >= min_time ? 1 : (int)(min_time / (t > 1e-6 ? t : 1e-6)) + 1;
    }
    for (int b = 0; b < TI_BATCHES; b++)
        for (int i = 0; i < ncf; i++) {
            int j = b % 2 ? ncf - 1 - i : i;
            if (cf[j].skip)
                continue;
            cf[j].secs[b] = run_sample(&cf[j], k, cf[j].reps, 0, pool_default, &cpu, &waits) /
                            cf[j].reps;
            cf[j].cpu[b] = cpu / cf[j].reps;
            cf[j].waits[b] = waits / cf[j].reps;
        }
    for (int i = 0; i < ncf; i++) {
        if (cf[i].skip)
            continue;
        qsort(cf[i].secs, TI_BATCHES, sizeof(double), cmp_double);
        qsort(cf[i].cpu, TI_BATCHES, sizeof(double), cmp_double);
        qsort(cf[i].waits, TI_BATCHES, sizeof(double), cmp_double);
        cf[i].median = cf[i].secs[TI_BATCHES / 2];
        cf[i].median_cpu = cf[i].cpu[TI_BATCHES / 2];
        cf[i].median_waits = cf[i].waits[TI_BATCHES / 2];
    }
    ti_progress_done();
    printf("%-26s %-4s", layout, read);
    if (cf[0].skip)
        printf(" %9s", "-");
    else
        printf(" %9.1f", cells / cf[0].median / 1e6);
    printf(" %9.1f %9.1f %7.2fx %7.2f %7.0f %9.1f %7.2fx\n", cells / cf[1].median / 1e6,
           cells / cf[2].median / 1e6, cf[1].median / cf[2].median,
           cf[2].median_cpu / cf[1].median_cpu, cf[2].median_waits,
           cells / cf[3].median / 1e6, cf[1].median / cf[3].median);
    ti_shape_str(2, (long[]){ k->g->rows, k->g->cols }, shape, sizeof shape);
    for (int i = 0; csv != NULL && i < ncf; i++) {
        char eng[128];
        if (cf[i].skip)
            continue;
        snprintf(eng, sizeof eng, "%s x%d%s", cf[i].lib->name, cf[i].nthreads,
                 cf[i].pool == 0 ? " pool" : "");
        fprintf(csv, "%s,%s,short,threads-%s,%s,%.6f,%.1f,%zu,,%lld,%zu\n", eng, layout, read,
                shape, cf[i].median / cells * 1e6, cells / cf[i].median, sizeof(short),
                file_size, ti_peak_rss());
    }
}

int ti_run_threads(const ti_options *o, FILE *csv)
{
    grid g;
    ti_layout layouts[3];
    char path[4200];
    long long want = 0;
    size_t pool_default = ti_ncslab_decode_threads(0), budget_was = ti_ncslab_chunk_cache(0);
    size_t crow = o->scan_chunks[0], budget;
    double min_time = o->min_time;
    char shape[64];

    /* bands of at least 4 chunk rows, and a chunk cache of 2 chunk rows a
     * thread: each pass decodes every chunk again, and the scan's working
     * set (a chunk row) stays cached */
    if (o->threads_rows / o->threads < 4 * (long)crow)
        ti_die("--threads %d: a band of %ld rows is less than 4 chunk rows (%zu)", o->threads,
               o->threads_rows / o->threads, 4 * crow);
    budget = 2 * (size_t)o->threads * crow * (size_t)o->threads_cols * sizeof(short);
    ti_ncslab_chunk_cache(o->scan_cache > 0 ? o->scan_cache : budget);
    grid_init(&g, o->threads_rows, o->threads_cols);
    for (long r = 0; r < g.rows; r++)
        for (long c = 0; c < g.cols; c++)
            want += grid_value(&g, r, c);
    memset(layouts, 0, sizeof layouts);
    layouts[0].kind = TI_CONTIGUOUS;
    layouts[0].format = o->format;
    snprintf(layouts[0].label, sizeof layouts[0].label, "cdf%d", o->format);
    for (int i = 1; i < 3; i++) {
        layouts[i].kind = TI_CHUNKED;
        layouts[i].rank = 2;
        layouts[i].chunks[0] = o->scan_chunks[0];
        layouts[i].chunks[1] = o->scan_chunks[1];
        layouts[i].deflate = i == 2;
        snprintf(layouts[i].label, sizeof layouts[i].label, "chunked %zux%zu%s",
                 o->scan_chunks[0], o->scan_chunks[1], i == 2 ? " deflate" : "");
    }
    ti_shape_str(2, (long[]){ g.rows, g.cols }, shape, sizeof shape);
    printf("\nthreads: %s shorts; ncslab with %d threads (a handle each, disjoint bands of "
           "whole chunk rows)\nagainst one, decoding pool off; chunk cache %zu KiB; median "
           "of %d interleaved samples of >= %g s; values checked\n",
           shape, o->threads, ti_ncslab_chunk_cache(0) >> 10, TI_BATCHES, min_time);
    printf("%-26s %-4s %9s %9s %9s %8s %7s %7s %9s %8s\n", "layout", "read", "netCDF-C",
           "ncslab", "ncslab", "speed-up", "CPU", "waits", "ncslab", "pool");
    printf("%-26s %-4s %9s %9s %9s %8s %7s %7s %9s %8s\n", "", "", "1 thread", "1 thread",
           "N threads", "N / 1", "N / 1", "N", "1 + pool", "gain");
    for (int li = 0; li < 3; li++) {
        struct stat st;
        snprintf(path, sizeof path, "%s/threads_%d.nc", o->dir, li);
        ti_progress("threads: writing %s", layouts[li].label);
        write_file(path, &layouts[li], &g, (long)crow);
        if (stat(path, &st) != 0)
            ti_die("%s: cannot stat", path);
        for (int w = 0; w < 2; w++) {
            config cf[4] = {
                { .lib = &ti_lib_netcdf, .nthreads = 1, .pool = 1,
                  .label = "netCDF-C 1 thread" },
                { .lib = &ti_lib_ncslab_native, .nthreads = 1, .pool = 1,
                  .label = "ncslab 1 thread" },
                { .lib = &ti_lib_ncslab_native, .nthreads = o->threads, .pool = 1,
                  .label = "ncslab N threads" },
                { .lib = &ti_lib_ncslab_native, .nthreads = 1, .pool = 0,
                  .label = "ncslab 1 thread + pool" },
            };
            pass_kind k = { path, &g, w == 0 ? 0 : (long)crow, (long)crow, want };
            /* netCDF-C's get1 on a chunked file goes through HDF5 per
             * call, at a small fraction of the others' rate: --scan has it */
            cf[0].skip = w == 0 && li > 0;
            ti_progress("threads: %s %s", layouts[li].label, w == 0 ? "get1" : "slab");
            time_kind(cf, 4, &k, layouts[li].label, w == 0 ? "get1" : "slab", min_time,
                      pool_default, csv, (long long)st.st_size);
        }
    }
    printf("(million cells per second, all threads together; N = %d; CPU N / 1: CPU "
           "seconds of the N threads over one thread's;\n waits N: voluntary context "
           "switches of a pass on N threads (blocking on a lock or I/O); pool: %zu "
           "threads)\n", o->threads, pool_default);
    ti_ncslab_decode_threads(pool_default);
    ti_ncslab_chunk_cache(budget_was);
    free(g.a1);
    return 0;
}
