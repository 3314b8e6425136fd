/*
 * v3shim.c -- the native signatures of tests/v3/v3shim.h, each answered by
 * the v3 calls a netCDF-C program would make.
 *
 * Linked into the v3 differential tests from an archive whose netCDF names
 * (these calls' and the v3 layer's own) are renamed ncsv3_* by objcopy, so
 * netCDF-C's nc_* in the same program are untouched (tests/v3/v3.am).
 *
 * A request picks its v3 family from what it passes, as a program would:
 * no start, count, stride or map is nc_{get,put}_var_T; a map is _varm,
 * a stride _vars, else _vara; one element is _var1.  The memory type picks
 * the C type; the two spellings of some (uchar/ubyte, longlong/long on
 * LP64) take turns, so both are driven.
 */
#include <stddef.h>

/* ncslab.h through the renaming declares the v3s_* functions below */
#include "v3shim.h"
#include "ncslab.h"
#include "ncslab/netcdf.h"
#include "ncslab/netcdf_filter.h"

static unsigned turn;

const char *v3s_strerror(int status) { return nc_strerror(status); }
int v3s_set_default_format(int format, int *oldp) { return nc_set_default_format(format, oldp); }
int v3s_create(const char *path, int cmode, int *ncidp) { return nc_create(path, cmode, ncidp); }
int v3s_open(const char *path, int mode, int *ncidp) { return nc_open(path, mode, ncidp); }
int v3s_redef(int ncid) { return nc_redef(ncid); }
int v3s_enddef(int ncid) { return nc_enddef(ncid); }
int v3s__enddef(int ncid, size_t h, size_t va, size_t vm, size_t ra) { return nc__enddef(ncid, h, va, vm, ra); }
int v3s_sync(int ncid) { return nc_sync(ncid); }
int v3s_abort(int ncid) { return nc_abort(ncid); }
int v3s_close(int ncid) { return nc_close(ncid); }
int v3s_set_fill(int ncid, int mode, int *oldp) { return nc_set_fill(ncid, mode, oldp); }
int v3s_inq(int ncid, int *nd, int *nv, int *na, int *u) { return nc_inq(ncid, nd, nv, na, u); }
int v3s_inq_ndims(int ncid, int *n) { return nc_inq_ndims(ncid, n); }
int v3s_inq_nvars(int ncid, int *n) { return nc_inq_nvars(ncid, n); }
int v3s_inq_natts(int ncid, int *n) { return nc_inq_natts(ncid, n); }
int v3s_inq_unlimdim(int ncid, int *u) { return nc_inq_unlimdim(ncid, u); }
int v3s_inq_format(int ncid, int *f) { return nc_inq_format(ncid, f); }
int v3s_def_dim(int ncid, const char *name, size_t len, int *idp) { return nc_def_dim(ncid, name, len, idp); }
int v3s_inq_dimid(int ncid, const char *name, int *idp) { return nc_inq_dimid(ncid, name, idp); }
int v3s_inq_dim(int ncid, int id, char *name, size_t *lenp) { return nc_inq_dim(ncid, id, name, lenp); }
int v3s_inq_dimname(int ncid, int id, char *name) { return nc_inq_dimname(ncid, id, name); }
int v3s_inq_dimlen(int ncid, int id, size_t *lenp) { return nc_inq_dimlen(ncid, id, lenp); }
int v3s_rename_dim(int ncid, int id, const char *name) { return nc_rename_dim(ncid, id, name); }
int v3s_def_var(int ncid, const char *name, int xtype, int ndims, const int *dimids, int *varidp)
{
    return nc_def_var(ncid, name, xtype, ndims, dimids, varidp);
}
int v3s_inq_varid(int ncid, const char *name, int *varidp) { return nc_inq_varid(ncid, name, varidp); }
int v3s_inq_var(int ncid, int varid, char *name, int *xtypep, int *ndimsp, int *dimids, int *nattsp)
{
    return nc_inq_var(ncid, varid, name, xtypep, ndimsp, dimids, nattsp);
}
int v3s_inq_varname(int ncid, int varid, char *name) { return nc_inq_varname(ncid, varid, name); }
int v3s_inq_vartype(int ncid, int varid, int *xtypep) { return nc_inq_vartype(ncid, varid, xtypep); }
int v3s_inq_varndims(int ncid, int varid, int *ndimsp) { return nc_inq_varndims(ncid, varid, ndimsp); }
int v3s_inq_vardimid(int ncid, int varid, int *dimids) { return nc_inq_vardimid(ncid, varid, dimids); }
int v3s_inq_varnatts(int ncid, int varid, int *nattsp) { return nc_inq_varnatts(ncid, varid, nattsp); }
int v3s_rename_var(int ncid, int varid, const char *name) { return nc_rename_var(ncid, varid, name); }
int v3s_inq_att(int ncid, int varid, const char *name, int *xtypep, size_t *lenp)
{
    return nc_inq_att(ncid, varid, name, xtypep, lenp);
}
int v3s_inq_attid(int ncid, int varid, const char *name, int *idp) { return nc_inq_attid(ncid, varid, name, idp); }
int v3s_inq_atttype(int ncid, int varid, const char *name, int *xtypep) { return nc_inq_atttype(ncid, varid, name, xtypep); }
int v3s_inq_attlen(int ncid, int varid, const char *name, size_t *lenp) { return nc_inq_attlen(ncid, varid, name, lenp); }
int v3s_inq_attname(int ncid, int varid, int num, char *name) { return nc_inq_attname(ncid, varid, num, name); }
int v3s_rename_att(int ncid, int varid, const char *name, const char *newname)
{
    return nc_rename_att(ncid, varid, name, newname);
}
int v3s_del_att(int ncid, int varid, const char *name) { return nc_del_att(ncid, varid, name); }
int v3s_copy_att(int in, int vin, const char *name, int out, int vout) { return nc_copy_att(in, vin, name, out, vout); }
int v3s_def_var_chunking(int ncid, int varid, int storage, const size_t *cs)
{
    return nc_def_var_chunking(ncid, varid, storage, cs);
}
int v3s_inq_var_chunking(int ncid, int varid, int *storagep, size_t *cs)
{
    return nc_inq_var_chunking(ncid, varid, storagep, cs);
}
int v3s_def_var_deflate(int ncid, int varid, int shuffle, int deflate, int level)
{
    return nc_def_var_deflate(ncid, varid, shuffle, deflate, level);
}
int v3s_inq_var_deflate(int ncid, int varid, int *shufflep, int *deflatep, int *levelp)
{
    return nc_inq_var_deflate(ncid, varid, shufflep, deflatep, levelp);
}
int v3s_def_var_fletcher32(int ncid, int varid, int on) { return nc_def_var_fletcher32(ncid, varid, on); }
int v3s_inq_var_fletcher32(int ncid, int varid, int *onp) { return nc_inq_var_fletcher32(ncid, varid, onp); }

int v3s_def_var_zstd(int ncid, int varid, int level)
{
    /* level 0 removes the filter natively; netCDF has no call for that */
    return level == 0 ? ncs_def_var_zstd(ncid, varid, 0) : nc_def_var_zstandard(ncid, varid, level);
}
int v3s_inq_var_zstd(int ncid, int varid, int *levelp)
{
    int has = 0, level = 0, status = nc_inq_var_zstandard(ncid, varid, &has, &level);
    if (status == NC_NOERR && levelp != NULL)
        *levelp = has ? level : 0;
    return status;
}

int v3s_def_var_endian(int ncid, int varid, int endian) { return nc_def_var_endian(ncid, varid, endian); }
int v3s_inq_var_endian(int ncid, int varid, int *endianp) { return nc_inq_var_endian(ncid, varid, endianp); }
int v3s_def_var_quantize(int ncid, int varid, int mode, int nsd)
{
    return nc_def_var_quantize(ncid, varid, mode, nsd);
}
int v3s_inq_var_quantize(int ncid, int varid, int *modep, int *nsdp)
{
    return nc_inq_var_quantize(ncid, varid, modep, nsdp);
}

/* ---- attributes by memory type ---------------------------------------------- */

int v3s_put_att(int ncid, int varid, const char *name, int xtype, size_t len, int memtype,
                const void *op)
{
    switch (memtype) {
    case NC_NAT: return nc_put_att(ncid, varid, name, xtype, len, op);
    case NC_CHAR: /* as the harness's netCDF-C side: a text attribute */
        return nc_put_att_text(ncid, varid, name, len, op);
    case NC_BYTE: return nc_put_att_schar(ncid, varid, name, xtype, len, op);
    case NC_UBYTE:
        return (turn++ & 1) ? nc_put_att_uchar(ncid, varid, name, xtype, len, op)
                            : nc_put_att_ubyte(ncid, varid, name, xtype, len, op);
    case NC_SHORT: return nc_put_att_short(ncid, varid, name, xtype, len, op);
    case NC_INT: return nc_put_att_int(ncid, varid, name, xtype, len, op);
    case NC_FLOAT: return nc_put_att_float(ncid, varid, name, xtype, len, op);
    case NC_DOUBLE: return nc_put_att_double(ncid, varid, name, xtype, len, op);
    case NC_USHORT: return nc_put_att_ushort(ncid, varid, name, xtype, len, op);
    case NC_UINT: return nc_put_att_uint(ncid, varid, name, xtype, len, op);
    case NC_INT64:
        if (sizeof(long) == 8 && (turn++ & 1))
            return nc_put_att_long(ncid, varid, name, xtype, len, op);
        return nc_put_att_longlong(ncid, varid, name, xtype, len, op);
    case NC_UINT64: return nc_put_att_ulonglong(ncid, varid, name, xtype, len, op);
    default: return NC_EBADTYPE;
    }
}

int v3s_get_att(int ncid, int varid, const char *name, int memtype, void *ip)
{
    switch (memtype) {
    case NC_NAT: return nc_get_att(ncid, varid, name, ip);
    case NC_CHAR: return nc_get_att_text(ncid, varid, name, ip);
    case NC_BYTE: return nc_get_att_schar(ncid, varid, name, ip);
    case NC_UBYTE:
        return (turn++ & 1) ? nc_get_att_uchar(ncid, varid, name, ip)
                            : nc_get_att_ubyte(ncid, varid, name, ip);
    case NC_SHORT: return nc_get_att_short(ncid, varid, name, ip);
    case NC_INT: return nc_get_att_int(ncid, varid, name, ip);
    case NC_FLOAT: return nc_get_att_float(ncid, varid, name, ip);
    case NC_DOUBLE: return nc_get_att_double(ncid, varid, name, ip);
    case NC_USHORT: return nc_get_att_ushort(ncid, varid, name, ip);
    case NC_UINT: return nc_get_att_uint(ncid, varid, name, ip);
    case NC_INT64:
        if (sizeof(long) == 8 && (turn++ & 1))
            return nc_get_att_long(ncid, varid, name, ip);
        return nc_get_att_longlong(ncid, varid, name, ip);
    case NC_UINT64: return nc_get_att_ulonglong(ncid, varid, name, ip);
    default: return NC_EBADTYPE;
    }
}

/* ---- data by family and memory type --------------------------------------------- */

enum { K_VAR, K_VARA, K_VARS, K_VARM };

#define FAMILY(op, T, CT, CONST)                                                 \
    switch (kind) {                                                              \
    case K_VAR: return nc_##op##_var_##T(ncid, varid, (CONST CT *)buf);          \
    case K_VARA: return nc_##op##_vara_##T(ncid, varid, start, count,            \
                                           (CONST CT *)buf);                     \
    case K_VARS: return nc_##op##_vars_##T(ncid, varid, start, count, stride,    \
                                           (CONST CT *)buf);                     \
    default: return nc_##op##_varm_##T(ncid, varid, start, count, stride, imap,  \
                                       (CONST CT *)buf);                         \
    }

#define TYPES(op, CONST)                                                         \
    switch (memtype) {                                                           \
    case NC_CHAR: FAMILY(op, text, char, CONST)                                  \
    case NC_BYTE: FAMILY(op, schar, signed char, CONST)                          \
    case NC_UBYTE:                                                               \
        if (turn++ & 1) { FAMILY(op, uchar, unsigned char, CONST) }              \
        FAMILY(op, ubyte, unsigned char, CONST)                                  \
    case NC_SHORT: FAMILY(op, short, short, CONST)                               \
    case NC_INT: FAMILY(op, int, int, CONST)                                     \
    case NC_FLOAT: FAMILY(op, float, float, CONST)                               \
    case NC_DOUBLE: FAMILY(op, double, double, CONST)                            \
    case NC_USHORT: FAMILY(op, ushort, unsigned short, CONST)                    \
    case NC_UINT: FAMILY(op, uint, unsigned int, CONST)                          \
    case NC_INT64:                                                               \
        if (sizeof(long) == 8 && (turn++ & 1)) { FAMILY(op, long, long, CONST) } \
        FAMILY(op, longlong, long long, CONST)                                   \
    case NC_UINT64: FAMILY(op, ulonglong, unsigned long long, CONST)             \
    default: return NC_EBADTYPE;                                                 \
    }

static int pick(const size_t *start, const size_t *count, const ptrdiff_t *stride,
                const ptrdiff_t *imap)
{
    if (!start && !count && !stride && !imap)
        return K_VAR;
    return imap ? K_VARM : stride ? K_VARS : K_VARA;
}

/* The native API's NULL start (all zero) and NULL count (to the end of
 * each dimension), as a v3 program spells them: explicit arrays. */
static int native_nulls(int ncid, int varid, const size_t **startp, const size_t **countp,
                        size_t *zeros, size_t *rest)
{
    int ndims, dimids[NC_MAX_VAR_DIMS];
    if (*startp != NULL && *countp != NULL)
        return NC_NOERR;
    int status = nc_inq_varndims(ncid, varid, &ndims);
    if (status == NC_NOERR)
        status = nc_inq_vardimid(ncid, varid, dimids);
    if (status != NC_NOERR)
        return NC_NOERR; /* let the call itself report it */
    for (int d = 0; d < ndims; d++)
        zeros[d] = 0;
    if (*startp == NULL)
        *startp = zeros;
    if (*countp == NULL) {
        for (int d = 0; d < ndims; d++) {
            size_t len = 0;
            nc_inq_dimlen(ncid, dimids[d], &len);
            rest[d] = len > (*startp)[d] ? len - (*startp)[d] : 0;
        }
        *countp = rest;
    }
    return NC_NOERR;
}

int v3s_get(int ncid, int varid, const size_t *start, const size_t *count,
            const ptrdiff_t *stride, const ptrdiff_t *imap, int memtype, void *buf)
{
    int kind = pick(start, count, stride, imap);
    size_t zeros[NC_MAX_VAR_DIMS], rest[NC_MAX_VAR_DIMS];
    if (kind != K_VAR)
        native_nulls(ncid, varid, &start, &count, zeros, rest);
    if (memtype == NC_NAT) {
        switch (kind) {
        case K_VAR: return nc_get_var(ncid, varid, buf);
        case K_VARA: return nc_get_vara(ncid, varid, start, count, buf);
        case K_VARS: return nc_get_vars(ncid, varid, start, count, stride, buf);
        default: return nc_get_varm(ncid, varid, start, count, stride, imap, buf);
        }
    }
    TYPES(get, )
}

int v3s_put(int ncid, int varid, const size_t *start, const size_t *count,
            const ptrdiff_t *stride, const ptrdiff_t *imap, int memtype, const void *buf)
{
    int kind = pick(start, count, stride, imap);
    size_t zeros[NC_MAX_VAR_DIMS], rest[NC_MAX_VAR_DIMS];
    if (kind != K_VAR)
        native_nulls(ncid, varid, &start, &count, zeros, rest);
    if (memtype == NC_NAT) {
        switch (kind) {
        case K_VAR: return nc_put_var(ncid, varid, buf);
        case K_VARA: return nc_put_vara(ncid, varid, start, count, buf);
        case K_VARS: return nc_put_vars(ncid, varid, start, count, stride, buf);
        default: return nc_put_varm(ncid, varid, start, count, stride, imap, buf);
        }
    }
    TYPES(put, const)
}

#define ONE(op, T, CT, CONST) return nc_##op##_var1_##T(ncid, varid, index, (CONST CT *)buf);
#define ONE_TYPES(op, CONST)                                                     \
    switch (memtype) {                                                           \
    case NC_NAT: return nc_##op##_var1(ncid, varid, index, buf);                 \
    case NC_CHAR: ONE(op, text, char, CONST)                                     \
    case NC_BYTE: ONE(op, schar, signed char, CONST)                             \
    case NC_UBYTE:                                                               \
        if (turn++ & 1) { ONE(op, uchar, unsigned char, CONST) }                 \
        ONE(op, ubyte, unsigned char, CONST)                                     \
    case NC_SHORT: ONE(op, short, short, CONST)                                  \
    case NC_INT: ONE(op, int, int, CONST)                                        \
    case NC_FLOAT: ONE(op, float, float, CONST)                                  \
    case NC_DOUBLE: ONE(op, double, double, CONST)                               \
    case NC_USHORT: ONE(op, ushort, unsigned short, CONST)                       \
    case NC_UINT: ONE(op, uint, unsigned int, CONST)                             \
    case NC_INT64:                                                               \
        if (sizeof(long) == 8 && (turn++ & 1)) { ONE(op, long, long, CONST) }    \
        ONE(op, longlong, long long, CONST)                                      \
    case NC_UINT64: ONE(op, ulonglong, unsigned long long, CONST)                \
    default: return NC_EBADTYPE;                                                 \
    }

int v3s_get1(int ncid, int varid, const size_t *index, int memtype, void *buf)
{
    ONE_TYPES(get, )
}

int v3s_put1(int ncid, int varid, const size_t *index, int memtype, const void *buf)
{
    ONE_TYPES(put, const)
}
