/*
 * scan_main.c -- the main of every scan benchmark engine (scan_engine.h):
 *
 *   ENGINE LAYOUT write  FILE ROWSxCOLS   prints "write SECONDS BYTES"
 *   ENGINE LAYOUT scan   FILE ROWSxCOLS   prints "scan LOOP_S CPU_S TOTAL_S SUM PEAK_KIB"
 *   ENGINE LAYOUT verify FILE ROWSxCOLS   prints "verify ok", having
 *                                         compared every cell with the terrain
 *
 * LOOP_S times the row-major loop alone (CPU_S is its CPU time, what the
 * rate would be with a core to itself), TOTAL_S the open, the loop and
 * the close.  PEAK_KIB is the process's VmHWM at the end: the high-water
 * mark of this program's own address space (getrusage's ru_maxrss would
 * also count the process it was forked from before the exec).  A failure
 * prints one line on stderr and exits 1; bad arguments exit 2.
 */
#include "scan_engine.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static double clock_s(clockid_t id)
{
    struct timespec t;
    clock_gettime(id, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static double now(void)
{
    return clock_s(CLOCK_MONOTONIC);
}

static long peak_kib(void)
{
    char line[256];
    long kib = -1;
    FILE *f = fopen("/proc/self/status", "r");
    if (f == NULL)
        return -1;
    while (fgets(line, sizeof line, f) != NULL)
        if (strncmp(line, "VmHWM:", 6) == 0) {
            kib = strtol(line + 6, NULL, 10);
            break;
        }
    fclose(f);
    return kib;
}

static int usage(const char *argv0)
{
    fprintf(stderr, "usage: %s LAYOUT write|scan|verify FILE ROWSxCOLS\n", argv0);
    return 2;
}

static int failed(const char *what, int status)
{
    fprintf(stderr, "%s: %s (status %d)\n", what, scan_strerror(status), status);
    return 1;
}

/* Every cell, row by row, against the terrain. */
static int verify(scan_handle *h, const ti_terrain *t)
{
    int status = 0;
    short *row = malloc(sizeof(short) * (size_t)t->cols);
    short *want = malloc(sizeof(short) * (size_t)t->cols);
    if (row == NULL || want == NULL) {
        fprintf(stderr, "verify: out of memory\n");
        status = 1;
    }
    for (long r = 0; r < t->rows && status == 0; r++) {
        if ((status = scan_row(h, r, t->cols, row)) != 0) {
            status = failed("read", status);
            break;
        }
        ti_terrain_row(t, r, want);
        for (long c = 0; c < t->cols; c++)
            if (row[c] != want[c]) {
                fprintf(stderr, "verify: read %d at (%ld,%ld), expected %d\n", row[c], r, c,
                        want[c]);
                status = 1;
                break;
            }
    }
    free(row);
    free(want);
    return status;
}

int main(int argc, char **argv)
{
    ti_terrain t;
    scan_handle *h;
    long rows, cols;
    char *end;
    int status, rc = 0;
    double t0, t1, t2, c1, c2;
    int64_t sum = 0;

    if (argc != 5 || !scan_layout_ok(argv[1]))
        return usage(argv[0]);
    rows = strtol(argv[4], &end, 10);
    if (end == argv[4] || (*end != 'x' && *end != 'X'))
        return usage(argv[0]);
    cols = strtol(end + 1, &end, 10);
    /* GVRS indexes cells with int; the grids of the benchmark stay below */
    if (*end != '\0' || rows < 2 || cols < 2 || rows > (1L << 20) || cols > (1L << 20))
        return usage(argv[0]);
    /* a scan leaves the terrain alone, so its peak is the library's */
    t.a1 = NULL;
    if (strcmp(argv[2], "scan") != 0 && ti_terrain_init(&t, rows, cols) != 0) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    if (strcmp(argv[2], "write") == 0) {
        struct stat st;
        t0 = now();
        if ((status = scan_write(argv[1], argv[3], &t)) != 0)
            rc = failed("write", status);
        else
            printf("write %.6f %lld\n", now() - t0,
                   stat(argv[3], &st) == 0 ? (long long)st.st_size : 0LL);
    } else if (strcmp(argv[2], "scan") == 0 || strcmp(argv[2], "verify") == 0) {
        int scan = argv[2][0] == 's';
        t0 = now();
        if ((status = scan_open(argv[1], argv[3], rows, cols, &h)) != 0) {
            rc = failed("open", status);
        } else {
            t1 = now();
            c1 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
            if (scan && (status = scan_loop(h, rows, cols, &sum)) != 0)
                rc = failed("read", status);
            else if (!scan)
                rc = verify(h, &t);
            t2 = now();
            c2 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
            if ((status = scan_close(h)) != 0 && rc == 0)
                rc = failed("close", status);
            if (rc == 0 && scan)
                printf("scan %.6f %.6f %.6f %lld %ld\n", t2 - t1, c2 - c1, now() - t0,
                       (long long)sum, peak_kib());
            else if (rc == 0)
                printf("verify ok\n");
        }
    } else {
        rc = usage(argv[0]);
    }
    ti_terrain_free(&t);
    return rc;
}
