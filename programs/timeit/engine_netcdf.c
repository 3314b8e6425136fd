/*
 * engine_netcdf.c -- netCDF-C, the reference, driven through its version-2
 * calls as the 1992 timeit drove netCDF 2.
 *
 * This is the only file that calls the linked netCDF-C (engine_netcdf2.c
 * takes only prototypes from <netcdf.h>).  The v2 calls report failure by
 * returning -1 and setting ncerr; ncopts is cleared so that they neither
 * print nor exit, and each wrapper hands ncerr back as a status.  Chunk shape and deflate have no v2 calls; they are set with
 * nc_def_var_chunking and nc_def_var_deflate on the same ncid.
 */
#include "timeit.h"

#include <netcdf.h>

#define V2(call) ((call) == -1 ? (ncerr != NC_NOERR ? ncerr : NC_EINTERNAL) : NC_NOERR)

static int nc_cmode(const ti_layout *layout)
{
    if (layout->kind == TI_CHUNKED)
        return NC_NETCDF4 | NC_CLASSIC_MODEL | NC_CLOBBER;
    return layout->format == 5 ? NC_64BIT_DATA | NC_CLOBBER
         : layout->format == 2 ? NC_64BIT_OFFSET | NC_CLOBBER : NC_CLOBBER;
}

static int e_create(const char *path, const ti_layout *layout, int *ncidp)
{
    ncopts = 0;
    *ncidp = nccreate(path, nc_cmode(layout));
    return V2(*ncidp);
}

static int e_open(const char *path, int *ncidp)
{
    ncopts = 0;
    *ncidp = ncopen(path, NC_NOWRITE);
    return V2(*ncidp);
}

static int e_def_dim(int ncid, const char *name, long len, int *dimidp)
{
    *dimidp = ncdimdef(ncid, name, len);
    return V2(*dimidp);
}

static int e_def_var(int ncid, const char *name, int type, int ndims, const int *dimids,
                     const ti_layout *layout, int *varidp)
{
    int status = V2(*varidp = ncvardef(ncid, name, (nc_type)type, ndims, dimids));
    if (status == NC_NOERR && layout->kind == TI_CHUNKED)
        status = nc_def_var_chunking(ncid, *varidp, NC_CHUNKED, layout->chunks);
    if (status == NC_NOERR && layout->kind == TI_CHUNKED && layout->deflate > 0)
        status = nc_def_var_deflate(ncid, *varidp, 0, 1, layout->deflate);
    return status;
}

static int e_inq_varid(int ncid, const char *name, int *varidp)
{
    return V2(*varidp = ncvarid(ncid, name));
}

static int e_enddef(int ncid) { return V2(ncendef(ncid)); }
static int e_close(int ncid) { return V2(ncclose(ncid)); }
static int e_sync(int ncid) { return V2(ncsync(ncid)); }

static int e_get(int ncid, int varid, const long *start, const long *count, void *buf)
{
    return V2(ncvarget(ncid, varid, start, count, buf));
}

static int e_put(int ncid, int varid, const long *start, const long *count, const void *buf)
{
    return V2(ncvarput(ncid, varid, start, count, buf));
}

static int e_get1(int ncid, int varid, const long *index, void *value)
{
    return V2(ncvarget1(ncid, varid, index, value));
}

/* netCDF-C's ncvargets and ncvargetg call nc_get_vars and nc_get_varm
 * (the byte map divided by the element size). */
static int e_gets(int ncid, int varid, const long *start, const long *count, const long *stride,
                  void *buf)
{
    return V2(ncvargets(ncid, varid, start, count, stride, buf));
}

static int e_getg(int ncid, int varid, int ndims, const long *start, const long *count,
                  const long *stride, const long *imap, size_t elsize, void *buf)
{
    (void)ndims, (void)elsize;
    return V2(ncvargetg(ncid, varid, start, count, stride, imap, buf));
}

static int e_get1_row(int ncid, int varid, long row, long ncols, short *out)
{
    long idx[2] = { row, 0 };
    for (long c = 0; c < ncols; c++) {
        idx[1] = c;
        if (ncvarget1(ncid, varid, idx, &out[c]) == -1)
            return ncerr != NC_NOERR ? ncerr : NC_EINTERNAL;
    }
    return NC_NOERR;
}

static const char *e_strerror(int status) { return nc_strerror(status); }

const ti_lib ti_lib_netcdf = {
    .name = "netCDF-C",
    .create = e_create,
    .open = e_open,
    .def_dim = e_def_dim,
    .def_var = e_def_var,
    .inq_varid = e_inq_varid,
    .enddef = e_enddef,
    .get = e_get,
    .put = e_put,
    .get1 = e_get1,
    .gets = e_gets,
    .getg = e_getg,
    .get1_row = e_get1_row,
    .sync = e_sync,
    .close = e_close,
    .strerror = e_strerror,
};

const char *ti_netcdf_version(void)
{
    return nc_inq_libvers();
}

/* Asks netCDF-C which chunks it would choose, on a diskless scratch file. */
int ti_netcdf_default_chunks(int ndims, const long *dims, int type, size_t *chunks)
{
    int ncid, dimids[TI_MAX_DIMS], varid, storage, status;
    status = nc_create("timeit-probe.nc", NC_DISKLESS | NC_NETCDF4 | NC_CLASSIC_MODEL, &ncid);
    if (status != NC_NOERR)
        return status;
    for (int d = 0; d < ndims && status == NC_NOERR; d++) {
        char name[16];
        snprintf(name, sizeof name, "d%d", d);
        status = nc_def_dim(ncid, name, d == 0 ? NC_UNLIMITED : (size_t)dims[d], &dimids[d]);
    }
    if (status == NC_NOERR)
        status = nc_def_var(ncid, "v", (nc_type)type, ndims, dimids, &varid);
    if (status == NC_NOERR)
        status = nc_inq_var_chunking(ncid, varid, &storage, chunks);
    nc_abort(ncid);
    return status;
}
