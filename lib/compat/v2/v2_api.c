/*
 * v2_api.c -- netCDF's version-2 calls on top of the native ncs_ API.
 *
 * Each call maps its arguments onto one ncs_ call and reports a failure
 * through nc_advise (v2_advise.c), returning -1.  What a call returns on
 * success differs from call to call, as in netCDF-C (ncinquire the ncid,
 * ncattinq 1, ncsetfill the previous mode, ...).  There is no type
 * conversion: buffers hold the variable's own type (NC_LONG data are
 * 4-byte ints); indices and counts are long.
 *
 * Quirks of netCDF-C's v2 layer that are reproduced, because legacy
 * programs and their test suites observe them (each has a test in
 * tests/v2/v2conform.c):
 *   - ncvarget1 names itself "ncdimid" in its error message;
 *   - ncvargetg/ncvarputg with a map return the raw status (not -1) and
 *     neither set ncerr nor print when the variable cannot be inquired;
 *   - ncvargetg/ncvarputg maps are in bytes and are divided by the element
 *     size with integer division;
 *   - ncdiminq and ncattinq pass lengths through an int;
 *   - ncrecinq returns NC_ENOMEM (not -1) when its scratch allocation fails;
 *   - ncrecinq, ncrecget and ncrecput succeed, doing nothing, in a file
 *     without a record dimension.
 * netCDF-C's ncrecget/ncrecput leave the start index of dimensions beyond
 * the number of record variables uninitialised; here they are 0, which is
 * what such a call means.
 */
#include "config.h"
#include "ncslab.h"
#include "v2_names.h"
#include "ncslab/netcdf.h"

#include <stdlib.h>
#include <string.h>

#if SIZEOF_LONG != SIZEOF_SIZE_T
#error "the v2 layer passes long index arrays as size_t arrays"
#endif

/* ncvarget1 is called once an element and ends in ncs_get1_long: where the
 * compiler can, that jump goes through the GOT entry, without a PLT stub's
 * second one. */
#if defined(__has_attribute)
#if __has_attribute(noplt)
extern __typeof__(ncs_get1_long) ncs_get1_long __attribute__((noplt));
#endif
#endif

/* ---- helpers ------------------------------------------------------------- */

/* Reports a failed call and returns -1; a 0 status passes through. */
#define V2_FAIL(routine, status, ...) \
    do { nc_advise((routine), (status), __VA_ARGS__); return -1; } while (0)

/* netCDF-C's handling of NULL start and count arrays in the v3 calls the
 * v2 calls reach: a NULL start is an error for a non-scalar variable, a
 * NULL count means the variable's whole shape. */
static int fill_nulls(int ncid, int varid, const long **start, const long **count,
                      long *shape)
{
    int ndims, dimids[NCS_MAX_VAR_DIMS], status;
    if (*start != NULL && *count != NULL)
        return NCS_NOERR;
    status = ncs_inq_varndims(ncid, varid, &ndims);
    if (status != NCS_NOERR)
        return status;
    if (*start == NULL && ndims > 0)
        return NCS_EINVALCOORDS;
    if (*count == NULL) {
        status = ncs_inq_vardimid(ncid, varid, dimids);
        for (int d = 0; d < ndims && status == NCS_NOERR; d++) {
            size_t len;
            status = ncs_inq_dimlen(ncid, dimids[d], &len);
            shape[d] = (long)len;
        }
        if (status != NCS_NOERR)
            return status;
        *count = shape;
    }
    return NCS_NOERR;
}

static int v2_get(int ncid, int varid, const long *start, const long *count,
                  const long *stride, const ptrdiff_t *imap, void *value)
{
    long shape[NCS_MAX_VAR_DIMS];
    int status = fill_nulls(ncid, varid, &start, &count, shape);
    if (status != NCS_NOERR)
        return status;
    return ncs_get(ncid, varid, (const size_t *)start, (const size_t *)count,
                   (const ptrdiff_t *)stride, imap, NCS_NAT, value);
}

static int v2_put(int ncid, int varid, const long *start, const long *count,
                  const long *stride, const ptrdiff_t *imap, const void *value)
{
    long shape[NCS_MAX_VAR_DIMS];
    int status = fill_nulls(ncid, varid, &start, &count, shape);
    if (status != NCS_NOERR)
        return status;
    return ncs_put(ncid, varid, (const size_t *)start, (const size_t *)count,
                   (const ptrdiff_t *)stride, imap, NCS_NAT, value);
}

/* ---- files -------------------------------------------------------------------- */

int nccreate(const char *path, int cmode)
{
    int ncid, status = ncs_create(path, cmode, &ncid);
    if (status != NCS_NOERR)
        V2_FAIL("nccreate", status, "filename \"%s\"", path);
    return ncid;
}

int ncopen(const char *path, int mode)
{
    int ncid, status = ncs_open(path, mode, &ncid);
    if (status != NCS_NOERR)
        V2_FAIL("ncopen", status, "filename \"%s\"", path);
    return ncid;
}

int ncsetfill(int ncid, int fillmode)
{
    int old = -1, status = ncs_set_fill(ncid, fillmode, &old);
    if (status != NCS_NOERR)
        V2_FAIL("ncsetfill", status, "ncid %d", ncid);
    return old;
}

int ncredef(int ncid)
{
    int status = ncs_redef(ncid);
    if (status != NCS_NOERR)
        V2_FAIL("ncredef", status, "ncid %d", ncid);
    return 0;
}

int ncendef(int ncid)
{
    int status = ncs_enddef(ncid);
    if (status != NCS_NOERR)
        V2_FAIL("ncendef", status, "ncid %d", ncid);
    return 0;
}

int ncsync(int ncid)
{
    int status = ncs_sync(ncid);
    if (status != NCS_NOERR)
        V2_FAIL("ncsync", status, "ncid %d", ncid);
    return 0;
}

int ncabort(int ncid)
{
    int status = ncs_abort(ncid);
    if (status != NCS_NOERR)
        V2_FAIL("ncabort", status, "ncid %d", ncid);
    return 0;
}

int ncclose(int ncid)
{
    int status = ncs_close(ncid);
    if (status != NCS_NOERR)
        V2_FAIL("ncclose", status, "ncid %d", ncid);
    return 0;
}

int ncinquire(int ncid, int *ndimsp, int *nvarsp, int *nattsp, int *unlimdimp)
{
    int nd, nv, na, status = ncs_inq(ncid, &nd, &nv, &na, unlimdimp);
    if (status != NCS_NOERR)
        V2_FAIL("ncinquire", status, "ncid %d", ncid);
    if (ndimsp != NULL)
        *ndimsp = nd;
    if (nvarsp != NULL)
        *nvarsp = nv;
    if (nattsp != NULL)
        *nattsp = na;
    return ncid;
}

/* ---- dimensions ------------------------------------------------------------------ */

int ncdimdef(int ncid, const char *name, long len)
{
    int dimid, status;
    if (len < 0)
        V2_FAIL("ncdimdef", NCS_EDIMSIZE, "ncid %d", ncid);
    status = ncs_def_dim(ncid, name, (size_t)len, &dimid);
    if (status != NCS_NOERR)
        V2_FAIL("ncdimdef", status, "ncid %d", ncid);
    return dimid;
}

int ncdimid(int ncid, const char *name)
{
    int dimid, status = ncs_inq_dimid(ncid, name, &dimid);
    if (status != NCS_NOERR)
        V2_FAIL("ncdimid", status, "ncid %d", ncid);
    return dimid;
}

int ncdiminq(int ncid, int dimid, char *name, long *lenp)
{
    size_t len;
    int status = ncs_inq_dim(ncid, dimid, name, &len);
    if (status != NCS_NOERR)
        V2_FAIL("ncdiminq", status, "ncid %d", ncid);
    if (lenp != NULL)
        *lenp = (int)len;
    return dimid;
}

int ncdimrename(int ncid, int dimid, const char *name)
{
    int status = ncs_rename_dim(ncid, dimid, name);
    if (status != NCS_NOERR)
        V2_FAIL("ncdimrename", status, "ncid %d", ncid);
    return dimid;
}

/* ---- variables ----------------------------------------------------------------------- */

int ncvardef(int ncid, const char *name, nc_type xtype, int ndims, const int *dimidsp)
{
    int varid = -1, status = ncs_def_var(ncid, name, xtype, ndims, dimidsp, &varid);
    if (status != NCS_NOERR)
        V2_FAIL("ncvardef", status, "ncid %d", ncid);
    return varid;
}

int ncvarid(int ncid, const char *name)
{
    int varid = -1, status = ncs_inq_varid(ncid, name, &varid);
    if (status != NCS_NOERR)
        V2_FAIL("ncvarid", status, "ncid %d", ncid);
    return varid;
}

int ncvarinq(int ncid, int varid, char *name, nc_type *xtypep, int *ndimsp,
             int *dimidsp, int *nattsp)
{
    /* a netCDF-4 file answers NC_GLOBAL with its attributes alone */
    int nd = 0, na, status = ncs_inq_var(ncid, varid, name, xtypep, &nd, dimidsp, &na);
    if (status != NCS_NOERR)
        V2_FAIL("ncvarinq", status, "ncid %d", ncid);
    if (ndimsp != NULL)
        *ndimsp = nd;
    if (nattsp != NULL)
        *nattsp = na;
    return varid;
}

int ncvarrename(int ncid, int varid, const char *name)
{
    int status = ncs_rename_var(ncid, varid, name);
    if (status != NCS_NOERR)
        V2_FAIL("ncvarrename", status, "ncid %d", ncid);
    return varid;
}

int nctypelen(nc_type type)
{
    size_t sz;
    /* NC_STRING (12): netCDF-C built with netCDF-4 answers the size of a
     * string pointer */
    if (type == 12)
        return (int)sizeof(char *);
    if (ncs_inq_type_size(type, &sz) != NCS_NOERR)
        return -1;
    return (int)sz;
}

/* ---- data ------------------------------------------------------------------------------ */

/* A NULL index is an error for a non-scalar variable.  Its test inline,
 * the rest (and its NCS_MAX_VAR_DIMS-long scratch) out of line: ncvarget1
 * is called once an element and would otherwise pay for the large stack
 * frame every time. */
static __attribute__((noinline)) int check_null_index(int ncid, int varid)
{
    const long *start = NULL, *count = NULL;
    long shape[NCS_MAX_VAR_DIMS];
    return fill_nulls(ncid, varid, &start, &count, shape);
}

static inline int check_index(int ncid, int varid, const long *indexp)
{
    return indexp != NULL ? NCS_NOERR : check_null_index(ncid, varid);
}

/* ncvarget1's failure, ncs_get1_long's ncs_get1_failure: out of line for
 * the same reason, and so that ncvarget1 ends in its call. */
static __attribute__((noinline)) int get1_failed(int ncid, int varid, int status)
{
    /* netCDF-C's ncvarget1 reports itself as "ncdimid" */
    V2_FAIL("ncdimid", status, "ncid %d", ncid);
}

/* ncvarget1 of a NULL index. */
static __attribute__((noinline)) int get1_null_index(int ncid, int varid, void *ip)
{
    int status = check_null_index(ncid, varid);
    if (status == NCS_NOERR)
        status = ncs_get1(ncid, varid, NULL, NCS_NAT, ip);
    return status == NCS_NOERR ? 0 : get1_failed(ncid, varid, status);
}

int ncvarput1(int ncid, int varid, const long *indexp, const void *op)
{
    int status = check_index(ncid, varid, indexp);
    if (status == NCS_NOERR)
        status = ncs_put1(ncid, varid, (const size_t *)indexp, NCS_NAT, op);
    if (status != NCS_NOERR)
        V2_FAIL("ncvarput1", status, "ncid %d", ncid);
    return 0;
}

/* A tail call: ncs_get1_long returns NCS_NOERR (0, what ncvarget1
 * returns on success) or get1_failed's -1. */
int ncvarget1(int ncid, int varid, const long *indexp, void *ip)
{
    if (indexp == NULL)
        return get1_null_index(ncid, varid, ip);
    return ncs_get1_long(ncid, varid, indexp, get1_failed, ip);
}

int ncvarput(int ncid, int varid, const long *startp, const long *countp,
             const void *op)
{
    int status = v2_put(ncid, varid, startp, countp, NULL, NULL, op);
    if (status != NCS_NOERR)
        V2_FAIL("ncvarput", status, "ncid %d", ncid);
    return 0;
}

int ncvarget(int ncid, int varid, const long *startp, const long *countp, void *ip)
{
    int status = v2_get(ncid, varid, startp, countp, NULL, NULL, ip);
    if (status != NCS_NOERR)
        V2_FAIL("ncvarget", status, "ncid %d; varid %d", ncid, varid);
    return 0;
}

int ncvarputs(int ncid, int varid, const long *startp, const long *countp,
              const long *stridep, const void *op)
{
    int status;
    if (stridep == NULL)
        return ncvarput(ncid, varid, startp, countp, op);
    status = v2_put(ncid, varid, startp, countp, stridep, NULL, op);
    if (status != NCS_NOERR)
        V2_FAIL("ncvarputs", status, "ncid %d", ncid);
    return 0;
}

int ncvargets(int ncid, int varid, const long *startp, const long *countp,
              const long *stridep, void *ip)
{
    int status;
    if (stridep == NULL)
        return ncvarget(ncid, varid, startp, countp, ip);
    status = v2_get(ncid, varid, startp, countp, stridep, NULL, ip);
    if (status != NCS_NOERR)
        V2_FAIL("ncvargets", status, "ncid %d", ncid);
    return 0;
}

/* Byte maps to element maps.  Returns the status of inquiring the
 * variable, which the callers hand back raw. */
static int element_map(int ncid, int varid, const long *map, ptrdiff_t *imap)
{
    int ndims, type, status = ncs_inq_varndims(ncid, varid, &ndims);
    size_t sz;
    if (status != NCS_NOERR)
        return status;
    status = ncs_inq_vartype(ncid, varid, &type);
    if (status != NCS_NOERR)
        return status;
    ncs_inq_type_size(type, &sz);
    for (int d = 0; d < ndims; d++)
        imap[d] = (ptrdiff_t)(map[d] / (long)sz);
    return NCS_NOERR;
}

int ncvarputg(int ncid, int varid, const long *startp, const long *countp,
              const long *stridep, const long *imapp, const void *op)
{
    ptrdiff_t imap[NCS_MAX_VAR_DIMS];
    int status;
    if (imapp == NULL)
        return ncvarputs(ncid, varid, startp, countp, stridep, op);
    status = element_map(ncid, varid, imapp, imap);
    if (status != NCS_NOERR)
        return status;
    status = v2_put(ncid, varid, startp, countp, stridep, imap, op);
    if (status != NCS_NOERR)
        V2_FAIL("ncvarputg", status, "ncid %d", ncid);
    return 0;
}

int ncvargetg(int ncid, int varid, const long *startp, const long *countp,
              const long *stridep, const long *imapp, void *ip)
{
    ptrdiff_t imap[NCS_MAX_VAR_DIMS];
    int status;
    if (imapp == NULL)
        return ncvargets(ncid, varid, startp, countp, stridep, ip);
    status = element_map(ncid, varid, imapp, imap);
    if (status != NCS_NOERR)
        return status;
    status = v2_get(ncid, varid, startp, countp, stridep, imap, ip);
    if (status != NCS_NOERR)
        V2_FAIL("ncvargetg", status, "ncid %d", ncid);
    return 0;
}

/* ---- records ------------------------------------------------------------------------------- */

/* The record variables, in varid order. */
static int record_vars(int ncid, int *nrec, int *varids)
{
    int nvars, unlim, status = ncs_inq_nvars(ncid, &nvars);
    if (status == NCS_NOERR)
        status = ncs_inq_unlimdim(ncid, &unlim);
    *nrec = 0;
    if (status != NCS_NOERR || unlim == -1)
        return status;
    for (int v = 0; v < nvars; v++) {
        int ndims, dimids[NCS_MAX_VAR_DIMS];
        status = ncs_inq_var(ncid, v, NULL, NULL, &ndims, dimids, NULL);
        if (status != NCS_NOERR)
            return status;
        if (ndims > 0 && dimids[0] == unlim)
            varids[(*nrec)++] = v;
    }
    return NCS_NOERR;
}

/* Bytes of one record of varid: element size times the other dimensions. */
static int record_size(int ncid, int varid, size_t *sizep)
{
    int ndims, type, dimids[NCS_MAX_VAR_DIMS];
    size_t size;
    int status = ncs_inq_var(ncid, varid, NULL, &type, &ndims, dimids, NULL);
    if (status != NCS_NOERR)
        return status;
    ncs_inq_type_size(type, &size);
    /* computed in an int, as netCDF-C does (wrapping, without the
     * undefined behaviour) */
    int isize = (int)size;
    for (int d = 1; d < ndims; d++) {
        size_t len;
        status = ncs_inq_dimlen(ncid, dimids[d], &len);
        if (status != NCS_NOERR)
            return status;
        isize = (int)((unsigned)isize * (unsigned)(int)len);
    }
    *sizep = (size_t)isize;
    return NCS_NOERR;
}

int ncrecinq(int ncid, int *nrecvarsp, int *recvaridsp, long *recsizesp)
{
    int *ids = malloc(sizeof(int) * NCS_MAX_VARS);
    int nrec = 0, status;
    if (ids == NULL)
        return NCS_ENOMEM;
    status = record_vars(ncid, &nrec, ids);
    for (int i = 0; i < nrec && status == NCS_NOERR; i++) {
        size_t sz;
        if (recvaridsp != NULL)
            recvaridsp[i] = ids[i];
        status = record_size(ncid, ids[i], &sz);
        if (status == NCS_NOERR && recsizesp != NULL)
            recsizesp[i] = (long)sz;
    }
    free(ids);
    if (status != NCS_NOERR)
        V2_FAIL("ncrecinq", status, "ncid %d", ncid);
    if (nrecvarsp != NULL)
        *nrecvarsp = nrec;
    return nrec;
}

/* One record of every record variable whose slot in datap is not NULL. */
static int rec_transfer(int ncid, long recnum, void *const *datap, int put)
{
    int ids[NCS_MAX_VARS];
    int nrec, status = record_vars(ncid, &nrec, ids);
    if (status != NCS_NOERR)
        return status;
    for (int i = 0; i < nrec; i++) {
        size_t start[NCS_MAX_VAR_DIMS] = { (size_t)recnum };
        size_t count[NCS_MAX_VAR_DIMS];
        int ndims, dimids[NCS_MAX_VAR_DIMS];
        if (datap[i] == NULL)
            continue;
        status = ncs_inq_var(ncid, ids[i], NULL, NULL, &ndims, dimids, NULL);
        for (int d = 1; d < ndims && status == NCS_NOERR; d++)
            status = ncs_inq_dimlen(ncid, dimids[d], &count[d]);
        if (status != NCS_NOERR)
            return status;
        count[0] = 1;
        status = put ? ncs_put(ncid, ids[i], start, count, NULL, NULL, NCS_NAT, datap[i])
                     : ncs_get(ncid, ids[i], start, count, NULL, NULL, NCS_NAT, datap[i]);
        if (status != NCS_NOERR)
            return status;
    }
    return NCS_NOERR;
}

int ncrecget(int ncid, long recnum, void **datap)
{
    int status = rec_transfer(ncid, recnum, datap, 0);
    if (status != NCS_NOERR)
        V2_FAIL("ncrecget", status, "ncid %d", ncid);
    return 0;
}

int ncrecput(int ncid, long recnum, void *const *datap)
{
    int status = rec_transfer(ncid, recnum, datap, 1);
    if (status != NCS_NOERR)
        V2_FAIL("ncrecput", status, "ncid %d", ncid);
    return 0;
}

/* ---- attributes --------------------------------------------------------------------------- */

int ncattput(int ncid, int varid, const char *name, nc_type xtype, int len,
             const void *op)
{
    int status = ncs_put_att(ncid, varid, name, xtype, (size_t)(long)len, NCS_NAT, op);
    if (status != NCS_NOERR)
        V2_FAIL("ncattput", status, "ncid %d", ncid);
    return 0;
}

int ncattinq(int ncid, int varid, const char *name, nc_type *xtypep, int *lenp)
{
    size_t len;
    int status = ncs_inq_att(ncid, varid, name, xtypep, &len);
    if (status != NCS_NOERR)
        V2_FAIL("ncattinq", status, "ncid %d; varid %d; attname \"%s\"", ncid, varid, name);
    if (lenp != NULL)
        *lenp = (int)len;
    return 1;
}

int ncattget(int ncid, int varid, const char *name, void *ip)
{
    int status = ncs_get_att(ncid, varid, name, NCS_NAT, ip);
    if (status != NCS_NOERR)
        V2_FAIL("ncattget", status, "ncid %d", ncid);
    return 1;
}

int ncattcopy(int ncid_in, int varid_in, const char *name, int ncid_out, int varid_out)
{
    int status = ncs_copy_att(ncid_in, varid_in, name, ncid_out, varid_out);
    if (status != NCS_NOERR)
        V2_FAIL("ncattcopy", status, "%s", name);
    return 0;
}

int ncattname(int ncid, int varid, int attnum, char *name)
{
    int status = ncs_inq_attname(ncid, varid, attnum, name);
    if (status != NCS_NOERR)
        V2_FAIL("ncattname", status, "ncid %d", ncid);
    return attnum;
}

int ncattrename(int ncid, int varid, const char *name, const char *newname)
{
    int status = ncs_rename_att(ncid, varid, name, newname);
    if (status != NCS_NOERR)
        V2_FAIL("ncattrename", status, "ncid %d", ncid);
    return 1;
}

int ncattdel(int ncid, int varid, const char *name)
{
    int status = ncs_del_att(ncid, varid, name);
    if (status != NCS_NOERR)
        V2_FAIL("ncattdel", status, "ncid %d", ncid);
    return 1;
}

/* ---- newer calls ---------------------------------------------------------------------------- */

/* netCDF-C's words: programs print them.  It names no code past
 * NC4_LAST_ERROR, so the native codes beyond it (nonblocking requests,
 * the processes of a parallel file) read "Unknown Error" here, as there. */
const char *nc_strerror(int err)
{
    if (err < NC4_LAST_ERROR)
        return "Unknown Error";
    return ncs_strerror(err);
}

const char *nc_inq_libvers(void)
{
    return ncs_inq_libvers();
}

int nc_set_default_format(int format, int *old_formatp)
{
    return ncs_set_default_format(format, old_formatp);
}
