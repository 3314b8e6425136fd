/*
 * scan_memory.c -- the floor of the scan benchmark (scan_engine.h): the
 * grid as one resident row-major array, read by a plain loop that sums
 * it, with no library at all.  Its "file" is built in scan_open (counted
 * in the total time, not in the loop); scan_write writes nothing.
 */
#include "scan_engine.h"

#include <stdlib.h>
#include <string.h>

#define E_NOMEM (-61) /* NC_ENOMEM */

struct scan_handle {
    long cols;
    short *cells;
};

int scan_layout_ok(const char *layout)
{
    return strcmp(layout, "array") == 0;
}

int scan_write(const char *layout, const char *path, const ti_terrain *t)
{
    return 0;
}

int scan_open(const char *layout, const char *path, long rows, long cols, scan_handle **hp)
{
    ti_terrain t;
    scan_handle *h = malloc(sizeof *h);
    if (h == NULL || ti_terrain_init(&t, rows, cols) != 0) {
        free(h);
        return E_NOMEM;
    }
    h->cols = cols;
    h->cells = malloc(sizeof(short) * (size_t)rows * (size_t)cols);
    if (h->cells == NULL) {
        ti_terrain_free(&t);
        free(h);
        return E_NOMEM;
    }
    for (long r = 0; r < rows; r++)
        ti_terrain_row(&t, r, h->cells + (size_t)r * (size_t)cols);
    ti_terrain_free(&t);
    *hp = h;
    return 0;
}

int scan_loop(scan_handle *h, long rows, long cols, int64_t *sump)
{
    int64_t sum = 0;
    for (long r = 0; r < rows; r++)
        for (long c = 0; c < cols; c++)
            sum += h->cells[(size_t)r * (size_t)cols + (size_t)c];
    *sump = sum;
    return 0;
}

int scan_row(scan_handle *h, long r, long cols, short *out)
{
    memcpy(out, h->cells + (size_t)r * (size_t)h->cols, sizeof(short) * (size_t)cols);
    return 0;
}

int scan_close(scan_handle *h)
{
    free(h->cells);
    free(h);
    return 0;
}

const char *scan_strerror(int status)
{
    return status == E_NOMEM ? "out of memory" : "memory engine error";
}
