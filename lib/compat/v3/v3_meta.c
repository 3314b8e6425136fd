/*
 * v3_meta.c -- the v3 define-mode calls: dimensions, variables and
 * attributes, typed and untyped, and nc_copy_var.
 *
 * The native calls take a memory type where netCDF-C has one function per
 * C type; everything else, down to the order of the checks, is the native
 * call's (include/ncslab.h).
 */
#include "config.h"
#include "v3.h"

#include <stdlib.h>
#include <string.h>

int nc_def_dim(int ncid, const char *name, size_t len, int *idp)
{
    return ncs_def_dim(ncid, name, len, idp);
}

int nc_rename_dim(int ncid, int dimid, const char *name)
{
    return ncs_rename_dim(ncid, dimid, name);
}

int nc_def_var(int ncid, const char *name, nc_type xtype, int ndims,
               const int *dimidsp, int *varidp)
{
    return ncs_def_var(ncid, name, xtype, ndims, dimidsp, varidp);
}

int nc_rename_var(int ncid, int varid, const char *name)
{
    return ncs_rename_var(ncid, varid, name);
}

int nc_def_var_fill(int ncid, int varid, int no_fill, const void *fill_value)
{
    return ncs_def_var_fill(ncid, varid, no_fill, fill_value);
}

int nc_inq_var_fill(int ncid, int varid, int *no_fill, void *fill_valuep)
{
    return ncs_inq_var_fill(ncid, varid, no_fill, fill_valuep);
}

/* ---- attributes ------------------------------------------------------------ */

int nc_put_att(int ncid, int varid, const char *name, nc_type xtype,
               size_t len, const void *op)
{
    return ncs_put_att(ncid, varid, name, xtype, len, NCS_NAT, op);
}

int nc_get_att(int ncid, int varid, const char *name, void *ip)
{
    return ncs_get_att(ncid, varid, name, NCS_NAT, ip);
}

int nc_put_att_text(int ncid, int varid, const char *name, size_t len,
                    const char *op)
{
    return ncs_put_att(ncid, varid, name, NC_CHAR, len, NC_CHAR, op);
}

int nc_get_att_text(int ncid, int varid, const char *name, char *ip)
{
    return ncs_get_att(ncid, varid, name, NC_CHAR, ip);
}

/* Strings are of the enhanced model: the native calls refuse the type as
 * netCDF-C's classic model does. */
int nc_put_att_string(int ncid, int varid, const char *name, size_t len,
                      const char **op)
{
    return ncs_put_att(ncid, varid, name, NC_STRING, len, NC_STRING, op);
}

int nc_get_att_string(int ncid, int varid, const char *name, char **ip)
{
    return ncs_get_att(ncid, varid, name, NC_STRING, ip);
}

#define V3_ATT(T, CT, MT)                                                      \
    int nc_put_att_##T(int ncid, int varid, const char *name, nc_type xtype,  \
                       size_t len, const CT *op)                               \
    {                                                                          \
        return ncs_put_att(ncid, varid, name, xtype, len, MT, op);             \
    }                                                                          \
    int nc_get_att_##T(int ncid, int varid, const char *name, CT *ip)          \
    {                                                                          \
        return ncs_get_att(ncid, varid, name, MT, ip);                         \
    }

V3_ATT(uchar, unsigned char, NC_UBYTE)
V3_ATT(schar, signed char, NC_BYTE)
V3_ATT(short, short, NC_SHORT)
V3_ATT(int, int, NC_INT)
V3_ATT(long, long, V3_LONG_TYPE)
V3_ATT(float, float, NC_FLOAT)
V3_ATT(double, double, NC_DOUBLE)
V3_ATT(ubyte, unsigned char, NC_UBYTE)
V3_ATT(ushort, unsigned short, NC_USHORT)
V3_ATT(uint, unsigned int, NC_UINT)
V3_ATT(longlong, long long, NC_INT64)
V3_ATT(ulonglong, unsigned long long, NC_UINT64)

int nc_copy_att(int ncid_in, int varid_in, const char *name, int ncid_out,
                int varid_out)
{
    return ncs_copy_att(ncid_in, varid_in, name, ncid_out, varid_out);
}

int nc_rename_att(int ncid, int varid, const char *name, const char *newname)
{
    return ncs_rename_att(ncid, varid, name, newname);
}

int nc_del_att(int ncid, int varid, const char *name)
{
    return ncs_del_att(ncid, varid, name);
}

/* ---- nc_copy_var ------------------------------------------------------------
 * As netCDF-C's: the output's dimensions are found by name; the output
 * goes back to define mode if it is not in it, gets the variable and its
 * attributes, leaves define mode (whatever that answers) and is synced;
 * then the values are copied one index of the first dimension at a time
 * (the whole of a scalar), in the variable's own type, stopping at the
 * first failure, whose code is returned. */
int nc_copy_var(int ncid_in, int varid, int ncid_out)
{
    char name[NC_MAX_NAME + 1], dname[NC_MAX_NAME + 1];
    int xtype, ndims, natts, ovarid, in_format, out_format, status;
    int dimids[NC_MAX_VAR_DIMS], odimids[NC_MAX_VAR_DIMS];
    size_t shape[NC_MAX_VAR_DIMS], start[NC_MAX_VAR_DIMS] = {0},
           count[NC_MAX_VAR_DIMS], esz, row = 1;

    status = ncs_inq_var(ncid_in, varid, name, &xtype, &ndims, dimids, &natts);
    if (status != NC_NOERR)
        return status;
    for (int d = 0; d < ndims; d++) {
        status = ncs_inq_dimname(ncid_in, dimids[d], dname);
        if (status == NC_NOERR)
            status = ncs_inq_dimid(ncid_out, dname, &odimids[d]);
        if (status != NC_NOERR)
            return status;
    }
    status = ncs_inq_format(ncid_in, &in_format);
    if (status == NC_NOERR)
        status = ncs_inq_format(ncid_out, &out_format);
    if (status != NC_NOERR)
        return status;
    if (out_format != NC_FORMAT_NETCDF4 && out_format != NC_FORMAT_NETCDF4_CLASSIC &&
        in_format == NC_FORMAT_NETCDF4 && xtype > NC_DOUBLE)
        return NC_ENOTNC4;
    status = ncs_inq_type_size(xtype, &esz);
    if (status != NC_NOERR)
        return status;
    status = ncs_redef(ncid_out);
    if (status != NC_NOERR && status != NC_EINDEFINE)
        return status;
    status = ncs_def_var(ncid_out, name, xtype, ndims, odimids, &ovarid);
    if (status != NC_NOERR)
        return status;
    for (int a = 0; a < natts; a++) {
        char aname[NC_MAX_NAME + 1];
        status = ncs_inq_attname(ncid_in, varid, a, aname);
        if (status == NC_NOERR)
            status = ncs_copy_att(ncid_in, varid, aname, ncid_out, ovarid);
        if (status != NC_NOERR)
            return status;
    }
    (void)ncs_enddef(ncid_out);
    (void)ncs_sync(ncid_out);

    for (int d = 0; d < ndims; d++) {
        status = ncs_inq_dimlen(ncid_in, dimids[d], &shape[d]);
        if (status != NC_NOERR)
            return status;
        count[d] = d ? shape[d] : 1;
        if (d)
            row *= shape[d];
    }
    if (ndims > 0 && shape[0] == 0)
        return NC_NOERR;
    void *buf = malloc(row * esz > 0 ? row * esz : 1);
    if (buf == NULL)
        return NC_ENOMEM;
    size_t n = ndims > 0 ? shape[0] : 1;
    for (size_t i = 0; status == NC_NOERR && i < n; i++) {
        start[0] = i;
        status = ncs_get(ncid_in, varid, start, count, NULL, NULL, NCS_NAT, buf);
        if (status == NC_NOERR)
            status = ncs_put(ncid_out, ovarid, start, count, NULL, NULL, NCS_NAT, buf);
    }
    free(buf);
    return status;
}
