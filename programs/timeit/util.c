/*
 * util.c -- clock, memory high-water mark, progress line and the error exit.
 *
 * The progress line is drawn only when stderr is a terminal and the run has
 * lasted more than two seconds, so logs and `make check` stay clean.
 */
#include "timeit.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

double ti_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

double ti_cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* A "Vm...:" line of /proc/self/status, in bytes; 0 if unknown. */
static size_t vm_status(const char *key)
{
    char line[256];
    size_t kib = 0, n = strlen(key);
    FILE *f = fopen("/proc/self/status", "r");
    if (f == NULL)
        return 0;
    while (fgets(line, sizeof line, f) != NULL)
        if (strncmp(line, key, n) == 0)
            kib = (size_t)strtoull(line + n, NULL, 10);
    fclose(f);
    return kib * 1024;
}

size_t ti_peak_rss(void)
{
    return vm_status("VmHWM:");
}

size_t ti_rss(void)
{
    return vm_status("VmRSS:");
}

static double progress_t0 = -1;
static int progress_shown;

void ti_progress(const char *fmt, ...)
{
    va_list ap;
    double now = ti_now();
    if (progress_t0 < 0)
        progress_t0 = now;
    if (!isatty(2) || now - progress_t0 < 2.0)
        return;
    fprintf(stderr, "\r\033[K[%4.0fs] ", now - progress_t0);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fflush(stderr);
    progress_shown = 1;
}

void ti_progress_done(void)
{
    if (progress_shown)
        fputs("\r\033[K", stderr);
    progress_shown = 0;
}

void ti_die(const char *fmt, ...)
{
    va_list ap;
    ti_progress_done();
    fflush(stdout);
    fputs("ncslab-timeit: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(1);
}

void ti_engine_name(char *out, size_t outlen, const char *lib, const char *layout)
{
    snprintf(out, outlen, "%.31s %.95s", lib, layout);
}

void ti_layout_init(ti_layout *l, int kind, int format, int rank, const size_t *chunks)
{
    memset(l, 0, sizeof *l);
    l->kind = kind;
    l->format = format;
    if (kind == TI_CHUNKED) {
        char shape[64];
        l->rank = rank;
        memcpy(l->chunks, chunks, sizeof l->chunks);
        ti_chunk_str(rank, chunks, shape, sizeof shape);
        snprintf(l->label, sizeof l->label, "chunks %s", shape);
    } else {
        snprintf(l->label, sizeof l->label,
                 kind == TI_CONTIGUOUS ? "cdf%d" : kind == TI_RESIDENT ? "resident" : "raw",
                 format);
    }
}

int ti_define_vars(const ti_lib *lib, int ncid, const ti_options *o, const ti_layout *layout,
                   int *varids, const char **stepp)
{
    int dimids[TI_MAX_DIMS], varid, status = 0;
    const char *step = "def_dim";
    for (int d = 0; d < o->ndims && status == 0; d++) {
        char name[16];
        snprintf(name, sizeof name, d == 0 ? "rec" : "d%d", d);
        status = lib->def_dim(ncid, name, d == 0 ? 0 : o->dims[d], &dimids[d]);
    }
    for (int t = 0; t < o->ntypes && status == 0; t++) {
        char name[32];
        snprintf(name, sizeof name, "%s_var", o->types[t]->name);
        step = "def_var";
        status = lib->def_var(ncid, name, o->types[t]->type, o->ndims, dimids, layout,
                              varids != NULL ? &varids[t] : &varid);
    }
    if (status == 0) {
        step = "enddef";
        status = lib->enddef(ncid);
    }
    if (stepp != NULL)
        *stepp = step;
    return status;
}
