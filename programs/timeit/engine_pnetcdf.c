/*
 * engine_pnetcdf.c -- PnetCDF, a peer on the classic file (CDF-1/2/5),
 * run as one process.
 *
 * This is the only file that includes <pnetcdf.h>.  PnetCDF needs MPI: a
 * program started without mpirun becomes a singleton MPI job of one
 * process when it calls MPI_Init (Open MPI needs no launcher for that,
 * nor OMPI_ALLOW_RUN_AS_ROOT, which only mpirun checks).  MPI_Init takes
 * about a second and a half, so ti_pnetcdf_start does it once, in main,
 * before anything is timed or forked: the scan's children inherit the
 * initialised library and leave through _exit, so only the harness
 * itself finalizes, at exit.
 *
 * Every file is opened on MPI_COMM_SELF, and the data calls are the
 * blocking collective ones (the _all suffix): a file is in collective data
 * mode after enddef or open, and a one-process program that wants no
 * mode switches (ncmpi_begin_indep_data) uses these, as PnetCDF's own
 * examples do.  The fill mode is PnetCDF's default, NC_NOFILL (netCDF-C's
 * is NC_FILL); the suite writes every value before it reads any.
 *
 * v2 buffers hold the variable's own type, so each call names the MPI
 * type that matches the variable's; the type and rank of a variable are
 * cached when it is defined or looked up, as a program knows its
 * variables without asking.
 */
#include "timeit.h"

#include <pnetcdf.h>
#include <stdlib.h>

static int started;

static void finish(void)
{
    MPI_Finalize();
}

void ti_pnetcdf_start(void)
{
    if (started)
        return;
    started = 1;
    if (MPI_Init(NULL, NULL) != MPI_SUCCESS)
        ti_die("pnetcdf: MPI_Init failed");
    /* a failing ncmpi call returns its status; MPI itself should too */
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    atexit(finish);
}

/* ---- variable types ---------------------------------------------------- */

#define NCACHE 64

typedef struct {
    int ncid, varid, ndims;
    MPI_Datatype type;
} pn_var;

static pn_var cache[NCACHE];
static int ncached, last;

static MPI_Datatype mpi_type(nc_type type)
{
    switch (type) {
    case NC_BYTE: return MPI_SIGNED_CHAR;
    case NC_CHAR: return MPI_CHAR;
    case NC_SHORT: return MPI_SHORT;
    case NC_INT: return MPI_INT;
    case NC_FLOAT: return MPI_FLOAT;
    case NC_DOUBLE: return MPI_DOUBLE;
    default: return MPI_DATATYPE_NULL;
    }
}

static void remember(int ncid, int varid)
{
    nc_type type;
    int i, ndims;
    if (ncmpi_inq_vartype(ncid, varid, &type) != NC_NOERR ||
        ncmpi_inq_varndims(ncid, varid, &ndims) != NC_NOERR || ndims > TI_MAX_DIMS)
        return;
    for (i = 0; i < ncached; i++)
        if (cache[i].ncid == ncid && cache[i].varid == varid)
            break;
    if (i == ncached) {
        if (ncached == NCACHE)
            ti_die("pnetcdf: more than %d variables open", NCACHE);
        ncached++;
    }
    cache[i].ncid = ncid;
    cache[i].varid = varid;
    cache[i].ndims = ndims;
    cache[i].type = mpi_type(type);
}

static void forget(int ncid)
{
    for (int i = 0; i < ncached; i++)
        if (cache[i].ncid == ncid)
            cache[i--] = cache[--ncached];
    last = 0;
}

/* NULL for a variable not defined or looked up here: an error, not a
 * guess. */
static const pn_var *var(int ncid, int varid)
{
    if (last < ncached && cache[last].ncid == ncid && cache[last].varid == varid)
        return &cache[last];
    for (int i = 0; i < ncached; i++)
        if (cache[i].ncid == ncid && cache[i].varid == varid)
            return &cache[last = i];
    return NULL;
}

/* ---- calls ------------------------------------------------------------------ */

/* v2's long vectors as PnetCDF's MPI_Offset ones, and the values they
 * span; ndims is at most TI_MAX_DIMS, as the suite defines them. */
static MPI_Offset offsets(int ndims, const long *v, MPI_Offset *out)
{
    MPI_Offset n = 1;
    for (int d = 0; d < ndims; d++)
        n *= out[d] = v[d];
    return n;
}

static int e_create(const char *path, const ti_layout *layout, int *ncidp)
{
    int cmode = NC_CLOBBER;
    *ncidp = -1;
    if (layout->kind != TI_CONTIGUOUS)
        return NC_ENOTBUILT;
    if (layout->format == 2)
        cmode |= NC_64BIT_OFFSET;
    else if (layout->format == 5)
        cmode |= NC_64BIT_DATA;
    ti_pnetcdf_start();
    return ncmpi_create(MPI_COMM_SELF, path, cmode, MPI_INFO_NULL, ncidp);
}

static int e_open(const char *path, int *ncidp)
{
    ti_pnetcdf_start();
    return ncmpi_open(MPI_COMM_SELF, path, NC_NOWRITE, MPI_INFO_NULL, ncidp);
}

static int e_def_dim(int ncid, const char *name, long len, int *dimidp)
{
    return ncmpi_def_dim(ncid, name, len, dimidp);
}

static int e_def_var(int ncid, const char *name, int type, int ndims, const int *dimids,
                     const ti_layout *layout, int *varidp)
{
    int status = ncmpi_def_var(ncid, name, (nc_type)type, ndims, dimids, varidp);
    (void)layout;
    if (status == NC_NOERR)
        remember(ncid, *varidp);
    return status;
}

static int e_inq_varid(int ncid, const char *name, int *varidp)
{
    int status = ncmpi_inq_varid(ncid, name, varidp);
    if (status == NC_NOERR)
        remember(ncid, *varidp);
    return status;
}

static int e_enddef(int ncid) { return ncmpi_enddef(ncid); }

static int e_close(int ncid)
{
    forget(ncid);
    return ncmpi_close(ncid);
}

static int e_get(int ncid, int varid, const long *start, const long *count, void *buf)
{
    MPI_Offset s[TI_MAX_DIMS], c[TI_MAX_DIMS];
    const pn_var *v = var(ncid, varid);
    if (v == NULL)
        return NC_ENOTVAR;
    offsets(v->ndims, start, s);
    return ncmpi_get_vara_all(ncid, varid, s, c, buf, offsets(v->ndims, count, c), v->type);
}

static int e_put(int ncid, int varid, const long *start, const long *count, const void *buf)
{
    MPI_Offset s[TI_MAX_DIMS], c[TI_MAX_DIMS];
    const pn_var *v = var(ncid, varid);
    if (v == NULL)
        return NC_ENOTVAR;
    offsets(v->ndims, start, s);
    return ncmpi_put_vara_all(ncid, varid, s, c, buf, offsets(v->ndims, count, c), v->type);
}

static int e_get1(int ncid, int varid, const long *index, void *value)
{
    MPI_Offset s[TI_MAX_DIMS];
    const pn_var *v = var(ncid, varid);
    if (v == NULL)
        return NC_ENOTVAR;
    offsets(v->ndims, index, s);
    return ncmpi_get_var1_all(ncid, varid, s, value, 1, v->type);
}

static int e_gets(int ncid, int varid, const long *start, const long *count, const long *stride,
                  void *buf)
{
    MPI_Offset s[TI_MAX_DIMS], c[TI_MAX_DIMS], st[TI_MAX_DIMS];
    const pn_var *v = var(ncid, varid);
    if (v == NULL)
        return NC_ENOTVAR;
    offsets(v->ndims, start, s);
    if (stride)
        offsets(v->ndims, stride, st);
    return ncmpi_get_vars_all(ncid, varid, s, c, stride ? st : NULL, buf,
                              offsets(v->ndims, count, c), v->type);
}

/* PnetCDF's map counts elements, v2's counts bytes.  A NULL stride or map
 * means the default, for both. */
static int e_getg(int ncid, int varid, int ndims, const long *start, const long *count,
                  const long *stride, const long *imap, size_t elsize, void *buf)
{
    MPI_Offset s[TI_MAX_DIMS], c[TI_MAX_DIMS], st[TI_MAX_DIMS], map[TI_MAX_DIMS];
    const pn_var *v = var(ncid, varid);
    if (v == NULL)
        return NC_ENOTVAR;
    offsets(ndims, start, s);
    if (stride)
        offsets(ndims, stride, st);
    for (int d = 0; imap && d < ndims; d++)
        map[d] = imap[d] / (long)elsize;
    return ncmpi_get_varm_all(ncid, varid, s, c, stride ? st : NULL, imap ? map : NULL, buf,
                              offsets(ndims, count, c), v->type);
}

/* The loop a PnetCDF program would write: the typed call, its own index. */
static int e_get1_row(int ncid, int varid, long row, long ncols, short *out)
{
    MPI_Offset idx[2] = { row, 0 };
    for (long c = 0; c < ncols; c++) {
        int status;
        idx[1] = c;
        if ((status = ncmpi_get_var1_short_all(ncid, varid, idx, &out[c])) != NC_NOERR)
            return status;
    }
    return NC_NOERR;
}

static const char *e_strerror(int status) { return ncmpi_strerror(status); }

const ti_lib ti_lib_pnetcdf = {
    .name = "PnetCDF",
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
    .close = e_close,
    .strerror = e_strerror,
};

const char *ti_pnetcdf_version(void)
{
    return ncmpi_inq_libvers();
}
