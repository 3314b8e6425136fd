/*
 * scan_ncs.c -- the scan benchmark's engine for ncslab's native API
 * (scan_engine.h): one ncs_get1 per cell, in the variable's own type.
 *
 * Layouts: "classic" (CDF-1: the 466 MB of the full grid fit its 2 GiB
 * limit on a variable), "chunked" (netCDF-4 classic model, 120 x 180
 * chunks, or the grid's size where it is smaller, as GVRS's tiles) and
 * "deflate" (the same chunks, deflate level 1).  The file is written in
 * blocks of one chunk row, through ncs_put.
 */
#include "scan_engine.h"

#include <ncslab.h>

#include <stdlib.h>
#include <string.h>

#define TILE_ROWS 120
#define TILE_COLS 180

struct scan_handle {
    int ncid, varid;
};

int scan_layout_ok(const char *layout)
{
    return strcmp(layout, "classic") == 0 || strcmp(layout, "chunked") == 0 ||
           strcmp(layout, "deflate") == 0;
}

int scan_write(const char *layout, const char *path, const ti_terrain *t)
{
    int chunked = strcmp(layout, "classic") != 0;
    int ncid = -1, varid, dimids[2], status;
    size_t chunks[2], start[2] = { 0, 0 }, count[2];
    short *buf;

    chunks[0] = t->rows < TILE_ROWS ? (size_t)t->rows : TILE_ROWS;
    chunks[1] = t->cols < TILE_COLS ? (size_t)t->cols : TILE_COLS;
    buf = malloc(sizeof(short) * chunks[0] * (size_t)t->cols);
    if (buf == NULL)
        return NCS_ENOMEM;
    status = ncs_create(path, NCS_CLOBBER | (chunked ? NCS_NETCDF4 | NCS_CLASSIC_MODEL : 0), &ncid);
    if (status == NCS_NOERR)
        status = ncs_def_dim(ncid, "y", (size_t)t->rows, &dimids[0]);
    if (status == NCS_NOERR)
        status = ncs_def_dim(ncid, "x", (size_t)t->cols, &dimids[1]);
    if (status == NCS_NOERR)
        status = ncs_def_var(ncid, "elevation", NCS_SHORT, 2, dimids, &varid);
    if (status == NCS_NOERR && chunked)
        status = ncs_def_var_chunking(ncid, varid, NCS_CHUNKED, chunks);
    if (status == NCS_NOERR && strcmp(layout, "deflate") == 0)
        status = ncs_def_var_deflate(ncid, varid, 0, 1, 1);
    if (status == NCS_NOERR)
        status = ncs_enddef(ncid);
    count[1] = (size_t)t->cols;
    for (long r = 0; r < t->rows && status == NCS_NOERR; r += (long)count[0]) {
        count[0] = t->rows - r < (long)chunks[0] ? (size_t)(t->rows - r) : chunks[0];
        for (size_t i = 0; i < count[0]; i++)
            ti_terrain_row(t, r + (long)i, buf + i * (size_t)t->cols);
        start[0] = (size_t)r;
        status = ncs_put(ncid, varid, start, count, NULL, NULL, NCS_SHORT, buf);
    }
    if (ncid >= 0) {
        int cstatus = ncs_close(ncid);
        if (status == NCS_NOERR)
            status = cstatus;
    }
    free(buf);
    return status;
}

int scan_open(const char *layout, const char *path, long rows, long cols, scan_handle **hp)
{
    scan_handle *h = malloc(sizeof *h);
    int status;
    if (h == NULL)
        return NCS_ENOMEM;
    status = ncs_open(path, NCS_NOWRITE, &h->ncid);
    if (status == NCS_NOERR && (status = ncs_inq_varid(h->ncid, "elevation", &h->varid)) != 0)
        ncs_close(h->ncid);
    if (status != NCS_NOERR) {
        free(h);
        return status;
    }
    *hp = h;
    return NCS_NOERR;
}

int scan_loop(scan_handle *h, long rows, long cols, int64_t *sump)
{
    size_t idx[2];
    int64_t sum = 0;
    short v;
    int status;
    for (long r = 0; r < rows; r++) {
        idx[0] = (size_t)r;
        for (long c = 0; c < cols; c++) {
            idx[1] = (size_t)c;
            if ((status = ncs_get1(h->ncid, h->varid, idx, NCS_SHORT, &v)) != NCS_NOERR)
                return status;
            sum += v;
        }
    }
    *sump = sum;
    return NCS_NOERR;
}

int scan_row(scan_handle *h, long r, long cols, short *out)
{
    size_t idx[2] = { (size_t)r, 0 };
    int status = NCS_NOERR;
    for (long c = 0; c < cols && status == NCS_NOERR; c++) {
        idx[1] = (size_t)c;
        status = ncs_get1(h->ncid, h->varid, idx, NCS_SHORT, &out[c]);
    }
    return status;
}

int scan_close(scan_handle *h)
{
    int status = ncs_close(h->ncid);
    free(h);
    return status;
}

const char *scan_strerror(int status)
{
    return ncs_strerror(status);
}
