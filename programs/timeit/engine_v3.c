/*
 * engine_v3.c -- a library driven through the netCDF v3 calls, as a v3
 * program drives it: nc_create, nc_def_var, and the typed data calls of
 * each variable's own type (nc_get_vara_float for a float variable, ...).
 *
 * Written once against the netCDF API and compiled twice, with TI_V3_LIB
 * naming the table it defines: against netCDF-C's <netcdf.h>
 * (engine_v3_netcdf.c, ti_lib_netcdf_v3) and against ncslab's
 * ncslab/netcdf.h, as part of an archive whose netCDF names objcopy
 * renames ncsv3_* (programs/timeit/timeit.am, ti_lib_ncslab_v3), so both
 * libraries' v3 calls live in the one program.  The pair measures what
 * the v3 layer of each library costs, beside the v2 engines.
 *
 * The harness passes long starts and counts; each call converts them to
 * the v3 arrays, the same code on both sides.  The rank and type of each
 * variable are kept here when it is defined or looked up, so a data call
 * makes no inquiry.
 */
#include "timeit.h"

#include <string.h>

/* ---- what is known of each variable ------------------------------------------ */
#define V3_FILES 16
#define V3_VARS 64
static struct { int ncid, ndims, type; } vars[V3_FILES][V3_VARS];

static void remember(int ncid, int varid)
{
    int ndims, type;
    if (varid < 0 || varid >= V3_VARS || nc_inq_varndims(ncid, varid, &ndims) != NC_NOERR ||
        nc_inq_vartype(ncid, varid, &type) != NC_NOERR)
        return;
    vars[(ncid >> 16) % V3_FILES][varid].ncid = ncid;
    vars[(ncid >> 16) % V3_FILES][varid].ndims = ndims;
    vars[(ncid >> 16) % V3_FILES][varid].type = type;
}

/* The rank and type of a variable, or -1 when it was never seen. */
static int known(int ncid, int varid, int *typep)
{
    if (varid < 0 || varid >= V3_VARS || vars[(ncid >> 16) % V3_FILES][varid].ncid != ncid)
        return -1;
    *typep = vars[(ncid >> 16) % V3_FILES][varid].type;
    return vars[(ncid >> 16) % V3_FILES][varid].ndims;
}

static void sizes(const long *in, size_t *out, int n)
{
    for (int d = 0; d < n; d++)
        out[d] = (size_t)in[d];
}

/* ---- files and definitions -------------------------------------------------- */

static int v3_cmode(const ti_layout *layout)
{
    if (layout->kind == TI_CHUNKED)
        return NC_NETCDF4 | NC_CLASSIC_MODEL | NC_CLOBBER;
    return layout->format == 5 ? NC_64BIT_DATA | NC_CLOBBER
         : layout->format == 2 ? NC_64BIT_OFFSET | NC_CLOBBER : NC_CLOBBER;
}

static int e_create(const char *path, const ti_layout *layout, int *ncidp)
{
    return nc_create(path, v3_cmode(layout), ncidp);
}

static int e_open(const char *path, int *ncidp)
{
    return nc_open(path, NC_NOWRITE, ncidp);
}

static int e_def_dim(int ncid, const char *name, long len, int *dimidp)
{
    return nc_def_dim(ncid, name, (size_t)len, dimidp);
}

static int e_def_var(int ncid, const char *name, int type, int ndims, const int *dimids,
                     const ti_layout *layout, int *varidp)
{
    int status = nc_def_var(ncid, name, (nc_type)type, ndims, dimids, varidp);
    if (status == NC_NOERR && layout->kind == TI_CHUNKED)
        status = nc_def_var_chunking(ncid, *varidp, NC_CHUNKED, layout->chunks);
    if (status == NC_NOERR && layout->kind == TI_CHUNKED && layout->deflate > 0)
        status = nc_def_var_deflate(ncid, *varidp, 0, 1, layout->deflate);
    if (status == NC_NOERR)
        remember(ncid, *varidp);
    return status;
}

static int e_inq_varid(int ncid, const char *name, int *varidp)
{
    int status = nc_inq_varid(ncid, name, varidp);
    if (status == NC_NOERR)
        remember(ncid, *varidp);
    return status;
}

static int e_enddef(int ncid) { return nc_enddef(ncid); }
static int e_close(int ncid) { return nc_close(ncid); }
static int e_sync(int ncid) { return nc_sync(ncid); }

/* ---- data: the typed call of the variable's own type ------------------------------- */

#define BY_TYPE(type, call_of)                                                   \
    switch (type) {                                                              \
    case NC_BYTE: return call_of(schar, signed char);                            \
    case NC_CHAR: return call_of(text, char);                                    \
    case NC_SHORT: return call_of(short, short);                                 \
    case NC_INT: return call_of(int, int);                                       \
    case NC_FLOAT: return call_of(float, float);                                 \
    case NC_DOUBLE: return call_of(double, double);                              \
    default: return NC_EBADTYPE;                                                 \
    }

static int e_get(int ncid, int varid, const long *start, const long *count, void *buf)
{
    size_t st[TI_MAX_DIMS], ct[TI_MAX_DIMS];
    int type, n = known(ncid, varid, &type);
    if (n < 0)
        return NC_ENOTVAR;
    sizes(start, st, n);
    sizes(count, ct, n);
#define GETA(T, CT) nc_get_vara_##T(ncid, varid, st, ct, (CT *)buf)
    BY_TYPE(type, GETA)
}

static int e_put(int ncid, int varid, const long *start, const long *count, const void *buf)
{
    size_t st[TI_MAX_DIMS], ct[TI_MAX_DIMS];
    int type, n = known(ncid, varid, &type);
    if (n < 0)
        return NC_ENOTVAR;
    sizes(start, st, n);
    sizes(count, ct, n);
#define PUTA(T, CT) nc_put_vara_##T(ncid, varid, st, ct, (const CT *)buf)
    BY_TYPE(type, PUTA)
}

static int e_get1(int ncid, int varid, const long *index, void *value)
{
    size_t ix[TI_MAX_DIMS];
    int type, n = known(ncid, varid, &type);
    if (n < 0)
        return NC_ENOTVAR;
    sizes(index, ix, n);
#define GET1(T, CT) nc_get_var1_##T(ncid, varid, ix, (CT *)value)
    BY_TYPE(type, GET1)
}

static int e_gets(int ncid, int varid, const long *start, const long *count, const long *stride,
                  void *buf)
{
    size_t st[TI_MAX_DIMS], ct[TI_MAX_DIMS];
    ptrdiff_t sd[TI_MAX_DIMS];
    int type, n = known(ncid, varid, &type);
    if (n < 0)
        return NC_ENOTVAR;
    sizes(start, st, n);
    sizes(count, ct, n);
    for (int d = 0; d < n; d++)
        sd[d] = stride[d];
#define GETS(T, CT) nc_get_vars_##T(ncid, varid, st, ct, sd, (CT *)buf)
    BY_TYPE(type, GETS)
}

/* The harness's map is v2's, in bytes; v3's counts elements. */
static int e_getg(int ncid, int varid, int ndims, const long *start, const long *count,
                  const long *stride, const long *imap, size_t elsize, void *buf)
{
    size_t st[TI_MAX_DIMS], ct[TI_MAX_DIMS];
    ptrdiff_t sd[TI_MAX_DIMS], mp[TI_MAX_DIMS];
    int type, n = known(ncid, varid, &type);
    (void)ndims;
    if (n < 0)
        return NC_ENOTVAR;
    sizes(start, st, n);
    sizes(count, ct, n);
    for (int d = 0; d < n; d++) {
        sd[d] = stride[d];
        mp[d] = imap[d] / (long)elsize;
    }
#define GETM(T, CT) nc_get_varm_##T(ncid, varid, st, ct, sd, mp, (CT *)buf)
    BY_TYPE(type, GETM)
}

static int e_get1_row(int ncid, int varid, long row, long ncols, short *out)
{
    size_t idx[2] = { (size_t)row, 0 };
    for (long c = 0; c < ncols; c++) {
        idx[1] = (size_t)c;
        int status = nc_get_var1_short(ncid, varid, idx, &out[c]);
        if (status != NC_NOERR)
            return status;
    }
    return NC_NOERR;
}

static const char *e_strerror(int status) { return nc_strerror(status); }

const ti_lib TI_V3_LIB = {
    .name = TI_V3_NAME,
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
    .sync_durable = TI_V3_DURABLE,
    .close = e_close,
    .strerror = e_strerror,
};
