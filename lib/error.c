/*
 * error.c -- status codes: messages, and the origin of internal errors.
 *
 * Status codes are netCDF's: 0 is success, negative values are NCS_E*,
 * positive values are errno numbers from the system.
 */
#include "ncs_int.h"

#include <stdio.h>
#include <string.h>

#ifdef NCS_DEBUG
static _Thread_local const char *err_file;
static _Thread_local int err_line;
static _Thread_local char err_site[256];

int ncsi_error_at(int code, const char *file, int line)
{
    err_file = file;
    err_line = line;
    return code;
}

const char *ncsi_last_error_site(void)
{
    if (err_file == NULL)
        return "";
    snprintf(err_site, sizeof err_site, "%s:%d", err_file, err_line);
    return err_site;
}
#else
const char *ncsi_last_error_site(void)
{
    return "";
}
#endif

const char *ncs_strerror(int status)
{
    if (status > 0) {
        const char *s = strerror(status);
        return s != NULL ? s : "Unknown system error";
    }
    switch (status) {
    case NCS_NOERR:        return "No error";
    case -1:               return "NetCDF2 error";
    case NCS_EBADID:       return "NetCDF: Not a valid ID";
    case NCS_ENFILE:       return "NetCDF: Too many files open";
    case NCS_EEXIST:       return "NetCDF: File exists && NC_NOCLOBBER";
    case NCS_EINVAL:       return "NetCDF: Invalid argument";
    case NCS_EPERM:        return "NetCDF: Write to read only";
    case NCS_ENOTINDEFINE: return "NetCDF: Operation not allowed in data mode";
    case NCS_EINDEFINE:    return "NetCDF: Operation not allowed in define mode";
    case NCS_EINVALCOORDS: return "NetCDF: Index exceeds dimension bound";
    case NCS_EMAXDIMS:     return "NetCDF: NC_MAX_DIMS exceeded";
    case NCS_ENAMEINUSE:   return "NetCDF: String match to name in use";
    case NCS_ENOTATT:      return "NetCDF: Attribute not found";
    case NCS_EMAXATTS:     return "NetCDF: NC_MAX_ATTRS exceeded";
    case NCS_EBADTYPE:     return "NetCDF: Not a valid data type or _FillValue type mismatch";
    case NCS_EBADDIM:      return "NetCDF: Invalid dimension ID or name";
    case NCS_EUNLIMPOS:    return "NetCDF: NC_UNLIMITED in the wrong index";
    case NCS_EMAXVARS:     return "NetCDF: NC_MAX_VARS exceeded";
    case NCS_ENOTVAR:      return "NetCDF: Variable not found";
    case NCS_EGLOBAL:      return "NetCDF: Action prohibited on NC_GLOBAL varid";
    case NCS_ENOTNC:       return "NetCDF: Unknown file format";
    case -52:              return "NetCDF: In Fortran, string too short";
    case NCS_EMAXNAME:     return "NetCDF: Name too long";
    case NCS_EUNLIMIT:     return "NetCDF: NC_UNLIMITED size already in use";
    case NCS_ENORECVARS:   return "NetCDF: nc_rec op when there are no record vars";
    case NCS_ECHAR:        return "NetCDF: Attempt to convert between text & numbers";
    case NCS_EEDGE:        return "NetCDF: Start+count exceeds dimension bound";
    case NCS_ESTRIDE:      return "NetCDF: Illegal stride";
    case NCS_EBADNAME:     return "NetCDF: Name contains illegal characters";
    case NCS_ERANGE:       return "NetCDF: Numeric conversion not representable";
    case NCS_ENOMEM:       return "NetCDF: Memory allocation (malloc) failure";
    case NCS_EVARSIZE:     return "NetCDF: One or more variable sizes violate format constraints";
    case NCS_EDIMSIZE:     return "NetCDF: Invalid dimension size";
    case NCS_ETRUNC:       return "NetCDF: File likely truncated or possibly corrupted";
    case NCS_EIO:          return "NetCDF: I/O failure";
    case NCS_ENOTFOUND:    return "NetCDF: file not found";
    case NCS_EINTERNAL:    return "NetCDF: Internal library error; Please contact support";
    case NCS_EHDFERR:      return "NetCDF: HDF error";
    case NCS_ENOTBUILT:    return "NetCDF: Attempt to use feature that was not turned on when netCDF was built.";
    case NCS_EFILTER:      return "NetCDF: Filter error: bad id or parameters or duplicate filter";
    case NCS_ENOFILTER:    return "NetCDF: Filter error: undefined filter encountered";
    default:               return "Unknown Error";
    }
}
