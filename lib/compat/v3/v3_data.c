/*
 * v3_data.c -- the v3 data calls: {get,put}_{var,var1,vara,vars,varm},
 * untyped and for every C type.
 *
 * What netCDF-C's dispatch layer does before its format code, done here
 * the same way so the same error wins:
 *   - nc_get_var/nc_put_var ask the variable's rank and shape first (so a
 *     bad varid is NC_ENOTVAR before any mode check), then move the whole
 *     variable, the record dimension at its current length;
 *   - a NULL start (of a variable with dimensions) is NC_EINVALCOORDS and
 *     a NULL count means the whole shape, not "to the end": both after the
 *     rank is asked, as is a NULL stride of the strided and mapped calls;
 *   - every other check is the native call's.
 */
#include "config.h"
#include "v3.h"

#include <stddef.h>

/* Replaces NULL start/count as netCDF-C's dispatch does, for a variable
 * of ndims dimensions.  shape receives its shape when *countp is NULL. */
static int v3_nulls(int ncid, int varid, int ndims, const size_t *start,
                    const size_t **countp, size_t *shape)
{
    int dimids[NC_MAX_VAR_DIMS], status;
    if (start == NULL && ndims > 0)
        return NC_EINVALCOORDS;
    if (*countp == NULL) {
        status = ncs_inq_vardimid(ncid, varid, dimids);
        for (int d = 0; status == NC_NOERR && d < ndims; d++)
            status = ncs_inq_dimlen(ncid, dimids[d], &shape[d]);
        if (status != NC_NOERR)
            return status;
        *countp = shape;
    }
    return NC_NOERR;
}

static int v3_var(int put, int ncid, int varid, int memtype, void *buf)
{
    int ndims, status = ncs_inq_varndims(ncid, varid, &ndims);
    if (status != NC_NOERR)
        return status;
    return put ? ncs_put(ncid, varid, NULL, NULL, NULL, NULL, memtype, buf)
               : ncs_get(ncid, varid, NULL, NULL, NULL, NULL, memtype, buf);
}

static int v3_var1(int put, int ncid, int varid, const size_t *index,
                   int memtype, void *buf)
{
    if (index == NULL) {
        int ndims, status = ncs_inq_varndims(ncid, varid, &ndims);
        if (status != NC_NOERR)
            return status;
        if (ndims > 0)
            return NC_EINVALCOORDS;
    }
    return put ? ncs_put1(ncid, varid, index, memtype, buf)
               : ncs_get1(ncid, varid, index, memtype, buf);
}

/* Whether the variable's values are quantized by BitGroom, which treats
 * the values of a request differently by the parity of their index. */
static int bitgroom(int ncid, int varid)
{
    int mode;
    return ncs_inq_var_quantize(ncid, varid, &mode, NULL) == NC_NOERR &&
           mode == NC_QUANTIZE_BITGROOM;
}

/* A mapped put as netCDF-C's dispatch layer makes it: one plain put per
 * element, or per row where the innermost stride and map are 1 (so that
 * BitGroom's parities are its).  The first error other than NC_ERANGE
 * stops it; NC_ERANGE is returned at the end. */
static int varm_pieces(int ncid, int varid, int ndims, const size_t *start,
                       const size_t *count, const ptrdiff_t *stride, const ptrdiff_t *imap,
                       int memtype, const void *buf)
{
    size_t at[NC_MAX_VAR_DIMS], one[NC_MAX_VAR_DIMS], idx[NC_MAX_VAR_DIMS] = { 0 };
    int last = ndims - 1, status = NC_NOERR, rows, msz = (int)nctypelen(memtype);
    for (int d = 0; d < ndims; d++) {
        if (count[d] == 0)
            return ncs_put(ncid, varid, start, count, stride, imap, memtype, buf);
        one[d] = 1;
    }
    rows = stride[last] == 1 && imap[last] == 1;
    if (rows)
        one[last] = count[last];
    if (memtype == NC_NAT) {
        nc_type xtype;
        status = ncs_inq_vartype(ncid, varid, &xtype);
        if (status != NC_NOERR)
            return status;
        msz = (int)nctypelen(xtype);
    }
    if (msz <= 0)
        return ncs_put(ncid, varid, start, count, stride, imap, memtype, buf);
    for (;;) {
        ptrdiff_t off = 0;
        for (int d = 0; d < ndims; d++) {
            at[d] = start[d] + idx[d] * (size_t)stride[d];
            off += (ptrdiff_t)idx[d] * imap[d];
        }
        int s = ncs_put(ncid, varid, at, one, NULL, NULL, memtype,
                        (const char *)buf + off * msz);
        if (s != NC_NOERR && s != NC_ERANGE)
            return s;
        if (s == NC_ERANGE)
            status = s;
        int d = rows ? last - 1 : last;
        for (; d >= 0 && ++idx[d] == count[d]; d--)
            idx[d] = 0;
        if (d < 0)
            return status;
    }
}

/* kind: VARA, VARS or VARM, the call the program made. */
enum { VARA, VARS, VARM };

static int v3_varm(int put, int kind, int ncid, int varid,
                   const size_t *start, const size_t *count,
                   const ptrdiff_t *stride, const ptrdiff_t *imap, int memtype,
                   void *buf)
{
    size_t shape[NC_MAX_VAR_DIMS];
    ptrdiff_t ones[NC_MAX_VAR_DIMS], natural[NC_MAX_VAR_DIMS];
    int ndims = 0, status;
    if (start == NULL || count == NULL ||
        (kind != VARA && (stride == NULL || imap == NULL))) {
        status = ncs_inq_varndims(ncid, varid, &ndims);
        if (status != NC_NOERR)
            return status;
    }
    if (start == NULL || count == NULL || (kind != VARA && stride == NULL)) {
        status = v3_nulls(ncid, varid, ndims, start, &count, shape);
        if (status != NC_NOERR)
            return status;
    }
    /* netCDF-C's strided call with no stride is its strided call with
     * strides of one (its checks are in that call's order) */
    if (kind != VARA && stride == NULL) {
        for (int d = 0; d < ndims; d++)
            ones[d] = 1;
        stride = ones;
    }
    /* its mapped call with no map is the plain call when every stride is
     * one, else the mapped one with the natural map */
    if (kind == VARM && imap == NULL) {
        int unit = 1;
        for (int d = 0; d < ndims; d++)
            unit &= stride[d] == 1;
        if (unit) {
            stride = NULL;
        } else {
            ptrdiff_t step = 1;
            for (int d = ndims - 1; d >= 0; d--) {
                natural[d] = step;
                step *= (ptrdiff_t)count[d];
            }
            imap = natural;
        }
    }
    if (put && kind == VARM && imap != NULL && bitgroom(ncid, varid)) {
        /* the rank is not asked above when every array was given */
        if (ndims == 0 && (status = ncs_inq_varndims(ncid, varid, &ndims)) != NC_NOERR)
            return status;
        if (ndims > 0)
            return varm_pieces(ncid, varid, ndims, start, count, stride, imap, memtype, buf);
    }
    return put ? ncs_put(ncid, varid, start, count, stride, imap, memtype, buf)
               : ncs_get(ncid, varid, start, count, stride, imap, memtype, buf);
}

/* ---- the untyped calls ------------------------------------------------------ */

int nc_put_var(int ncid, int varid, const void *op)
{
    return v3_var(1, ncid, varid, NCS_NAT, (void *)op);
}

int nc_get_var(int ncid, int varid, void *ip)
{
    return v3_var(0, ncid, varid, NCS_NAT, ip);
}

int nc_put_var1(int ncid, int varid, const size_t *indexp, const void *op)
{
    return v3_var1(1, ncid, varid, indexp, NCS_NAT, (void *)op);
}

int nc_get_var1(int ncid, int varid, const size_t *indexp, void *ip)
{
    return v3_var1(0, ncid, varid, indexp, NCS_NAT, ip);
}

int nc_put_vara(int ncid, int varid, const size_t *startp,
                const size_t *countp, const void *op)
{
    return v3_varm(1, VARA, ncid, varid, startp, countp, NULL, NULL, NCS_NAT,
                   (void *)op);
}

int nc_get_vara(int ncid, int varid, const size_t *startp,
                const size_t *countp, void *ip)
{
    return v3_varm(0, VARA, ncid, varid, startp, countp, NULL, NULL, NCS_NAT, ip);
}

int nc_put_vars(int ncid, int varid, const size_t *startp,
                const size_t *countp, const ptrdiff_t *stridep,
                const void *op)
{
    return v3_varm(1, VARS, ncid, varid, startp, countp, stridep, NULL, NCS_NAT,
                   (void *)op);
}

int nc_get_vars(int ncid, int varid, const size_t *startp,
                const size_t *countp, const ptrdiff_t *stridep, void *ip)
{
    return v3_varm(0, VARS, ncid, varid, startp, countp, stridep, NULL, NCS_NAT,
                   ip);
}

int nc_put_varm(int ncid, int varid, const size_t *startp,
                const size_t *countp, const ptrdiff_t *stridep,
                const ptrdiff_t *imapp, const void *op)
{
    return v3_varm(1, VARM, ncid, varid, startp, countp, stridep, imapp, NCS_NAT,
                   (void *)op);
}

int nc_get_varm(int ncid, int varid, const size_t *startp,
                const size_t *countp, const ptrdiff_t *stridep,
                const ptrdiff_t *imapp, void *ip)
{
    return v3_varm(0, VARM, ncid, varid, startp, countp, stridep, imapp, NCS_NAT,
                   ip);
}

/* ---- the typed families -------------------------------------------------------
 * One set of ten functions per C type; MT is the native memory type. */
#define V3_TYPED(T, CT, MT)                                                     \
    int nc_put_var_##T(int ncid, int varid, const CT *op)                        \
    {                                                                            \
        return v3_var(1, ncid, varid, MT, (void *)op);                           \
    }                                                                            \
    int nc_get_var_##T(int ncid, int varid, CT *ip)                              \
    {                                                                            \
        return v3_var(0, ncid, varid, MT, ip);                                   \
    }                                                                            \
    int nc_put_var1_##T(int ncid, int varid, const size_t *indexp,               \
                        const CT *op)                                            \
    {                                                                            \
        return v3_var1(1, ncid, varid, indexp, MT, (void *)op);                  \
    }                                                                            \
    int nc_get_var1_##T(int ncid, int varid, const size_t *indexp, CT *ip)       \
    {                                                                            \
        return v3_var1(0, ncid, varid, indexp, MT, ip);                          \
    }                                                                            \
    int nc_put_vara_##T(int ncid, int varid, const size_t *startp,               \
                        const size_t *countp, const CT *op)                      \
    {                                                                            \
        return v3_varm(1, VARA, ncid, varid, startp, countp, NULL, NULL, MT,        \
                       (void *)op);                                              \
    }                                                                            \
    int nc_get_vara_##T(int ncid, int varid, const size_t *startp,               \
                        const size_t *countp, CT *ip)                            \
    {                                                                            \
        return v3_varm(0, VARA, ncid, varid, startp, countp, NULL, NULL, MT, ip);   \
    }                                                                            \
    int nc_put_vars_##T(int ncid, int varid, const size_t *startp,               \
                        const size_t *countp, const ptrdiff_t *stridep,          \
                        const CT *op)                                            \
    {                                                                            \
        return v3_varm(1, VARS, ncid, varid, startp, countp, stridep, NULL, MT,     \
                       (void *)op);                                              \
    }                                                                            \
    int nc_get_vars_##T(int ncid, int varid, const size_t *startp,               \
                        const size_t *countp, const ptrdiff_t *stridep, CT *ip)  \
    {                                                                            \
        return v3_varm(0, VARS, ncid, varid, startp, countp, stridep, NULL, MT, ip);\
    }                                                                            \
    int nc_put_varm_##T(int ncid, int varid, const size_t *startp,               \
                        const size_t *countp, const ptrdiff_t *stridep,          \
                        const ptrdiff_t *imapp, const CT *op)                    \
    {                                                                            \
        return v3_varm(1, VARM, ncid, varid, startp, countp, stridep, imapp, MT,    \
                       (void *)op);                                              \
    }                                                                            \
    int nc_get_varm_##T(int ncid, int varid, const size_t *startp,               \
                        const size_t *countp, const ptrdiff_t *stridep,          \
                        const ptrdiff_t *imapp, CT *ip)                          \
    {                                                                            \
        return v3_varm(0, VARM, ncid, varid, startp, countp, stridep, imapp, MT,    \
                       ip);                                                      \
    }

V3_TYPED(text, char, NC_CHAR)
V3_TYPED(uchar, unsigned char, NC_UBYTE)
V3_TYPED(schar, signed char, NC_BYTE)
V3_TYPED(short, short, NC_SHORT)
V3_TYPED(int, int, NC_INT)
V3_TYPED(long, long, V3_LONG_TYPE)
V3_TYPED(float, float, NC_FLOAT)
V3_TYPED(double, double, NC_DOUBLE)
V3_TYPED(ubyte, unsigned char, NC_UBYTE)
V3_TYPED(ushort, unsigned short, NC_USHORT)
V3_TYPED(uint, unsigned int, NC_UINT)
V3_TYPED(longlong, long long, NC_INT64)
V3_TYPED(ulonglong, unsigned long long, NC_UINT64)
/* Strings are of the enhanced model; the native calls refuse the type. */
V3_TYPED(string, char *, NC_STRING)
