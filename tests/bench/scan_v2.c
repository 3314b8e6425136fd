/*
 * scan_v2.c -- the scan benchmark's engine for ncslab's netCDF v2 API
 * (libncslab_v2, scan_engine.h): one ncvarget1 per cell, as a legacy
 * program reads a grid.
 *
 * Layouts: "classic" (CDF-1) and "chunked" (netCDF-4 classic model, 120 x
 * 180 chunks).  v2 has no call for a chunk shape; the v2 ncid is the
 * native one, so the writer sets it with ncs_def_var_chunking, as a v2
 * program would have to.  Errors: ncopts is 0 (no printing, no exit), and
 * a call that returns -1 leaves its status in ncerr.
 */
#include "scan_engine.h"

#include <ncslab.h>
#include <ncslab/netcdf.h>

#include <stdlib.h>
#include <string.h>

#define TILE_ROWS 120
#define TILE_COLS 180
#define V2(call) ((call) == -1 ? (ncerr != NC_NOERR ? ncerr : NC_EINTERNAL) : NC_NOERR)

struct scan_handle {
    int ncid, varid;
};

int scan_layout_ok(const char *layout)
{
    return strcmp(layout, "classic") == 0 || strcmp(layout, "chunked") == 0;
}

int scan_write(const char *layout, const char *path, const ti_terrain *t)
{
    int chunked = strcmp(layout, "chunked") == 0;
    int ncid, varid = -1, dimids[2], status;
    size_t chunks[2];
    long start[2] = { 0, 0 }, count[2];
    short *buf;

    ncopts = 0;
    chunks[0] = t->rows < TILE_ROWS ? (size_t)t->rows : TILE_ROWS;
    chunks[1] = t->cols < TILE_COLS ? (size_t)t->cols : TILE_COLS;
    buf = malloc(sizeof(short) * chunks[0] * (size_t)t->cols);
    if (buf == NULL)
        return NC_ENOMEM;
    ncid = nccreate(path, NC_CLOBBER | (chunked ? NC_NETCDF4 | NC_CLASSIC_MODEL : 0));
    if ((status = V2(ncid)) == NC_NOERR &&
        (status = V2(dimids[0] = ncdimdef(ncid, "y", t->rows))) == NC_NOERR &&
        (status = V2(dimids[1] = ncdimdef(ncid, "x", t->cols))) == NC_NOERR)
        status = V2(varid = ncvardef(ncid, "elevation", NC_SHORT, 2, dimids));
    if (status == NC_NOERR && chunked)
        status = ncs_def_var_chunking(ncid, varid, NCS_CHUNKED, chunks);
    if (status == NC_NOERR)
        status = V2(ncendef(ncid));
    count[1] = t->cols;
    for (long r = 0; r < t->rows && status == NC_NOERR; r += count[0]) {
        count[0] = t->rows - r < (long)chunks[0] ? t->rows - r : (long)chunks[0];
        for (long i = 0; i < count[0]; i++)
            ti_terrain_row(t, r + i, buf + (size_t)i * (size_t)t->cols);
        start[0] = r;
        status = V2(ncvarput(ncid, varid, start, count, buf));
    }
    if (ncid != -1) {
        int cstatus = V2(ncclose(ncid));
        if (status == NC_NOERR)
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
        return NC_ENOMEM;
    ncopts = 0;
    if ((status = V2(h->ncid = ncopen(path, NC_NOWRITE))) == NC_NOERR &&
        (status = V2(h->varid = ncvarid(h->ncid, "elevation"))) != NC_NOERR)
        ncclose(h->ncid);
    if (status != NC_NOERR) {
        free(h);
        return status;
    }
    *hp = h;
    return NC_NOERR;
}

int scan_loop(scan_handle *h, long rows, long cols, int64_t *sump)
{
    long idx[2];
    int64_t sum = 0;
    short v;
    for (long r = 0; r < rows; r++) {
        idx[0] = r;
        for (long c = 0; c < cols; c++) {
            idx[1] = c;
            if (ncvarget1(h->ncid, h->varid, idx, &v) == -1)
                return ncerr != NC_NOERR ? ncerr : NC_EINTERNAL;
            sum += v;
        }
    }
    *sump = sum;
    return NC_NOERR;
}

int scan_row(scan_handle *h, long r, long cols, short *out)
{
    long idx[2] = { r, 0 };
    for (long c = 0; c < cols; c++) {
        idx[1] = c;
        if (ncvarget1(h->ncid, h->varid, idx, &out[c]) == -1)
            return ncerr != NC_NOERR ? ncerr : NC_EINTERNAL;
    }
    return NC_NOERR;
}

int scan_close(scan_handle *h)
{
    int status = V2(ncclose(h->ncid));
    free(h);
    return status;
}

const char *scan_strerror(int status)
{
    return nc_strerror(status);
}
