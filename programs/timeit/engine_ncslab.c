/*
 * engine_ncslab.c -- ncslab, through the calls a v2 program reaches.
 *
 * Compiled with -DNCS_V2_PREFIX=ncsv2_, as is the archive of ncslab's v2
 * sources linked into ncslab-timeit (programs/timeit/timeit.am): every v2
 * name below (nccreate, ncvarget, ncerr, ...) becomes ncsv2_nccreate and
 * so on, so ncslab's v2 layer and netCDF-C's live side by side in one
 * program.
 * The v2 ncid is the native ncid, so the chunk shape is set with the native
 * ncs_def_var_chunking, as a v2 program would have to.
 *
 * ti_lib_ncslab_native calls ncs_get/ncs_put directly; comparing it with
 * ti_lib_ncslab measures the v2 layer's own cost.  Its strided and mapped
 * gets are the ncs_get calls that the v2 ncvargets and ncvargetg make.
 *
 * The chunk calls are weak references: a libncslab without the chunked
 * back end may not define them, and timeit then reports the chunked
 * engine as not available instead of failing to link or start.
 */
#include "timeit.h"

#include "ncslab.h"
#include "v2_names.h"
#include "ncslab/netcdf.h"

#pragma weak ncs_def_var_chunking
#pragma weak ncs_def_var_deflate
#pragma weak ncs_set_chunk_cache
#pragma weak ncs_get_chunk_cache
#pragma weak ncs_set_decode_threads
#pragma weak ncs_get_decode_threads

#define V2(call) ((call) == -1 ? (ncerr != NC_NOERR ? ncerr : NC_EINTERNAL) : NC_NOERR)

static int cmode_of(const ti_layout *layout)
{
    if (layout->kind == TI_CHUNKED)
        return NC_NETCDF4 | NC_CLASSIC_MODEL | NC_CLOBBER;
    return layout->format == 5 ? NC_64BIT_DATA | NC_CLOBBER
         : layout->format == 2 ? NC_64BIT_OFFSET | NC_CLOBBER : NC_CLOBBER;
}

/* Storage settings of a chunked layout, through the native calls. */
static int def_storage(int ncid, int varid, const ti_layout *layout)
{
    int status;
    if (layout->kind != TI_CHUNKED)
        return NCS_NOERR;
    if (ncs_def_var_chunking == NULL || (layout->deflate > 0 && ncs_def_var_deflate == NULL))
        return NCS_ENOTBUILT;
    status = ncs_def_var_chunking(ncid, varid, NCS_CHUNKED, layout->chunks);
    if (status == NCS_NOERR && layout->deflate > 0)
        status = ncs_def_var_deflate(ncid, varid, 0, 1, layout->deflate);
    return status;
}

/* ---- v2 calls ------------------------------------------------------------ */

static int v_create(const char *path, const ti_layout *layout, int *ncidp)
{
    ncopts = 0;
    *ncidp = nccreate(path, cmode_of(layout));
    return V2(*ncidp);
}

static int v_open(const char *path, int *ncidp)
{
    ncopts = 0;
    *ncidp = ncopen(path, NC_NOWRITE);
    return V2(*ncidp);
}

static int v_def_dim(int ncid, const char *name, long len, int *dimidp)
{
    *dimidp = ncdimdef(ncid, name, len);
    return V2(*dimidp);
}

static int v_def_var(int ncid, const char *name, int type, int ndims, const int *dimids,
                     const ti_layout *layout, int *varidp)
{
    int status = V2(*varidp = ncvardef(ncid, name, (nc_type)type, ndims, dimids));
    return status == NC_NOERR ? def_storage(ncid, *varidp, layout) : status;
}

static int v_inq_varid(int ncid, const char *name, int *varidp)
{
    return V2(*varidp = ncvarid(ncid, name));
}

static int v_enddef(int ncid) { return V2(ncendef(ncid)); }
static int v_close(int ncid) { return V2(ncclose(ncid)); }
static int v_sync(int ncid) { return V2(ncsync(ncid)); }

static int v_get(int ncid, int varid, const long *start, const long *count, void *buf)
{
    return V2(ncvarget(ncid, varid, start, count, buf));
}

static int v_put(int ncid, int varid, const long *start, const long *count, const void *buf)
{
    return V2(ncvarput(ncid, varid, start, count, buf));
}

static int v_get1(int ncid, int varid, const long *index, void *value)
{
    return V2(ncvarget1(ncid, varid, index, value));
}

static int v_gets(int ncid, int varid, const long *start, const long *count, const long *stride,
                  void *buf)
{
    return V2(ncvargets(ncid, varid, start, count, stride, buf));
}

static int v_getg(int ncid, int varid, int ndims, const long *start, const long *count,
                  const long *stride, const long *imap, size_t elsize, void *buf)
{
    (void)ndims, (void)elsize;
    return V2(ncvargetg(ncid, varid, start, count, stride, imap, buf));
}

static int v_get1_row(int ncid, int varid, long row, long ncols, short *out)
{
    long idx[2] = { row, 0 };
    for (long c = 0; c < ncols; c++) {
        idx[1] = c;
        if (ncvarget1(ncid, varid, idx, &out[c]) == -1)
            return ncerr != NC_NOERR ? ncerr : NC_EINTERNAL;
    }
    return NC_NOERR;
}

static const char *v_strerror(int status) { return nc_strerror(status); }

const ti_lib ti_lib_ncslab = {
    .name = "ncslab",
    .create = v_create,
    .open = v_open,
    .def_dim = v_def_dim,
    .def_var = v_def_var,
    .inq_varid = v_inq_varid,
    .enddef = v_enddef,
    .get = v_get,
    .put = v_put,
    .get1 = v_get1,
    .gets = v_gets,
    .getg = v_getg,
    .get1_row = v_get1_row,
    .sync = v_sync,
    .sync_durable = 1,   /* ncs_sync: fdatasync, or a journaled commit */
    .close = v_close,
    .strerror = v_strerror,
};

/* ---- native calls ---------------------------------------------------------- */

static int n_create(const char *path, const ti_layout *layout, int *ncidp)
{
    return ncs_create(path, cmode_of(layout), ncidp);
}

static int n_open(const char *path, int *ncidp)
{
    return ncs_open(path, NCS_NOWRITE, ncidp);
}

static int n_def_dim(int ncid, const char *name, long len, int *dimidp)
{
    return ncs_def_dim(ncid, name, (size_t)len, dimidp);
}

static int n_def_var(int ncid, const char *name, int type, int ndims, const int *dimids,
                     const ti_layout *layout, int *varidp)
{
    int status = ncs_def_var(ncid, name, type, ndims, dimids, varidp);
    return status == NCS_NOERR ? def_storage(ncid, *varidp, layout) : status;
}

static int n_inq_varid(int ncid, const char *name, int *varidp)
{
    return ncs_inq_varid(ncid, name, varidp);
}

static int n_enddef(int ncid) { return ncs_enddef(ncid); }
static int n_close(int ncid) { return ncs_close(ncid); }
static int n_sync(int ncid) { return ncs_sync(ncid); }

/* The v2 layer passes long arrays as size_t arrays; so may we (both are
 * the same width on every platform ncslab's v2 layer builds on). */
_Static_assert(sizeof(long) == sizeof(size_t), "long and size_t differ");

static int n_get(int ncid, int varid, const long *start, const long *count, void *buf)
{
    return ncs_get(ncid, varid, (const size_t *)start, (const size_t *)count, NULL, NULL,
                   NCS_NAT, buf);
}

static int n_put(int ncid, int varid, const long *start, const long *count, const void *buf)
{
    return ncs_put(ncid, varid, (const size_t *)start, (const size_t *)count, NULL, NULL,
                   NCS_NAT, buf);
}

static int n_get1(int ncid, int varid, const long *index, void *value)
{
    return ncs_get1(ncid, varid, (const size_t *)index, NCS_NAT, value);
}

static int n_gets(int ncid, int varid, const long *start, const long *count, const long *stride,
                  void *buf)
{
    return ncs_get(ncid, varid, (const size_t *)start, (const size_t *)count,
                   (const ptrdiff_t *)stride, NULL, NCS_NAT, buf);
}

/* The element map that ncslab's v2 ncvargetg makes from the byte map. */
static int n_getg(int ncid, int varid, int ndims, const long *start, const long *count,
                  const long *stride, const long *imap, size_t elsize, void *buf)
{
    ptrdiff_t map[TI_MAX_DIMS];
    for (int d = 0; d < ndims; d++)
        map[d] = imap[d] / (long)elsize;
    return ncs_get(ncid, varid, (const size_t *)start, (const size_t *)count,
                   (const ptrdiff_t *)stride, map, NCS_NAT, buf);
}

static int n_get1_row(int ncid, int varid, long row, long ncols, short *out)
{
    size_t idx[2] = { (size_t)row, 0 };
    int status = NCS_NOERR;
    for (long c = 0; c < ncols && status == NCS_NOERR; c++) {
        idx[1] = (size_t)c;
        status = ncs_get1(ncid, varid, idx, NCS_NAT, &out[c]);
    }
    return status;
}

const ti_lib ti_lib_ncslab_native = {
    .name = "ncslab-native",
    .create = n_create,
    .open = n_open,
    .def_dim = n_def_dim,
    .def_var = n_def_var,
    .inq_varid = n_inq_varid,
    .enddef = n_enddef,
    .get = n_get,
    .put = n_put,
    .get1 = n_get1,
    .gets = n_gets,
    .getg = n_getg,
    .get1_row = n_get1_row,
    .sync = n_sync,
    .sync_durable = 1,
    .close = n_close,
    .strerror = ncs_strerror,
};

size_t ti_ncslab_chunk_cache(size_t bytes)
{
    size_t now = 0;
    if (ncs_set_chunk_cache == NULL || ncs_get_chunk_cache == NULL)
        return 0;
    if (bytes > 0)
        ncs_set_chunk_cache(bytes);
    ncs_get_chunk_cache(&now);
    return now;
}

size_t ti_ncslab_decode_threads(size_t n)
{
    int now = 1;
    if (ncs_set_decode_threads == NULL || ncs_get_decode_threads == NULL)
        return 1;
    if (n > 0)
        ncs_set_decode_threads((int)n);
    ncs_get_decode_threads(&now);
    return (size_t)now;
}

const char *ti_ncslab_version(void)
{
    return ncs_inq_libvers();
}
