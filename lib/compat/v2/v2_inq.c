/*
 * v2_inq.c -- the netCDF-3 inquiry calls that version-2 programs of the
 * late 1990s mix in (NCO's operators ask nc_inq_vartype, for instance).
 *
 * Each is the native inquiry of the same name: the native API already
 * answers with netCDF's status codes, in netCDF-C's order of checks, and
 * ignores NULL output pointers (where netCDF-C's classic code crashes on
 * two of them, doc/v2.md).  Unlike the v2 calls, these neither set ncerr
 * nor print: they return the status, as in netCDF-C.  nc_type and int are
 * the same type here, so the type outputs pass straight through.
 */
#include "config.h"
#include "ncslab.h"
#include "v2_names.h"
#include "ncslab/netcdf.h"

int nc_inq(int ncid, int *ndimsp, int *nvarsp, int *nattsp, int *unlimdimidp)
{
    return ncs_inq(ncid, ndimsp, nvarsp, nattsp, unlimdimidp);
}

int nc_inq_ndims(int ncid, int *ndimsp)
{
    return ncs_inq_ndims(ncid, ndimsp);
}

int nc_inq_nvars(int ncid, int *nvarsp)
{
    return ncs_inq_nvars(ncid, nvarsp);
}

int nc_inq_natts(int ncid, int *nattsp)
{
    return ncs_inq_natts(ncid, nattsp);
}

int nc_inq_unlimdim(int ncid, int *unlimdimidp)
{
    return ncs_inq_unlimdim(ncid, unlimdimidp);
}

/* libncslab_netcdf has its own, which knows the open mode (v3_file.c). */
#ifndef NCS_V3_LIBRARY
int nc_inq_format(int ncid, int *formatp)
{
    return ncs_inq_format(ncid, formatp);
}
#endif

int nc_inq_dim(int ncid, int dimid, char *name, size_t *lenp)
{
    return ncs_inq_dim(ncid, dimid, name, lenp);
}

int nc_inq_dimid(int ncid, const char *name, int *idp)
{
    return ncs_inq_dimid(ncid, name, idp);
}

int nc_inq_dimname(int ncid, int dimid, char *name)
{
    return ncs_inq_dimname(ncid, dimid, name);
}

int nc_inq_dimlen(int ncid, int dimid, size_t *lenp)
{
    return ncs_inq_dimlen(ncid, dimid, lenp);
}

int nc_inq_var(int ncid, int varid, char *name, nc_type *xtypep, int *ndimsp,
               int *dimidsp, int *nattsp)
{
    return ncs_inq_var(ncid, varid, name, xtypep, ndimsp, dimidsp, nattsp);
}

int nc_inq_varid(int ncid, const char *name, int *varidp)
{
    return ncs_inq_varid(ncid, name, varidp);
}

int nc_inq_varname(int ncid, int varid, char *name)
{
    return ncs_inq_varname(ncid, varid, name);
}

int nc_inq_vartype(int ncid, int varid, nc_type *xtypep)
{
    return ncs_inq_vartype(ncid, varid, xtypep);
}

int nc_inq_varndims(int ncid, int varid, int *ndimsp)
{
    return ncs_inq_varndims(ncid, varid, ndimsp);
}

int nc_inq_vardimid(int ncid, int varid, int *dimidsp)
{
    return ncs_inq_vardimid(ncid, varid, dimidsp);
}

int nc_inq_varnatts(int ncid, int varid, int *nattsp)
{
    return ncs_inq_varnatts(ncid, varid, nattsp);
}

int nc_inq_att(int ncid, int varid, const char *name, nc_type *xtypep, size_t *lenp)
{
    return ncs_inq_att(ncid, varid, name, xtypep, lenp);
}

int nc_inq_attid(int ncid, int varid, const char *name, int *idp)
{
    return ncs_inq_attid(ncid, varid, name, idp);
}

int nc_inq_atttype(int ncid, int varid, const char *name, nc_type *xtypep)
{
    return ncs_inq_atttype(ncid, varid, name, xtypep);
}

int nc_inq_attlen(int ncid, int varid, const char *name, size_t *lenp)
{
    return ncs_inq_attlen(ncid, varid, name, lenp);
}

int nc_inq_attname(int ncid, int varid, int attnum, char *name)
{
    return ncs_inq_attname(ncid, varid, attnum, name);
}
