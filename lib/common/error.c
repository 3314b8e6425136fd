/*
 * error.c -- status codes: their messages, the origin of internal errors.
 *
 * Status codes are netCDF's: 0 is success, negative values are NCS_E*,
 * positive values are errno numbers from the system.
 */
#include "common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef NCS_DEBUG
static _Thread_local const char *err_file, *corrupt_file;
static _Thread_local int err_line, corrupt_line;
static _Thread_local char err_site[256], corrupt_site[256];

void ncsi_error_note(const char *file, int line)
{
    err_file = file;
    err_line = line;
}

void ncsi_corrupt_note(const char *file, int line)
{
    corrupt_file = file;
    corrupt_line = line;
}

static const char *site(const char *file, int line, char *buf, size_t n)
{
    if (file == NULL)
        return "";
    snprintf(buf, n, "%s:%d", file, line);
    return buf;
}

const char *ncsi_last_error_site(void)
{
    return site(err_file, err_line, err_site, sizeof err_site);
}

const char *ncsi_last_corrupt_site(void)
{
    return site(corrupt_file, corrupt_line, corrupt_site, sizeof corrupt_site);
}
#else
const char *ncsi_last_error_site(void)
{
    return "";
}

const char *ncsi_last_corrupt_site(void)
{
    return "";
}
#endif

/* netCDF's codes that ncslab itself never returns, under netCDF's names:
 * the v2 layer passes whatever a legacy program asks about to ncs_strerror. */
enum {
    NCSI_ESTS = -52,
    NCSI_EAXISTYPE = -65,
    NCSI_EDAP = -66,
    NCSI_ECURL = -67,
    NCSI_ENODATA = -69,
    NCSI_EDAPSVC = -70,
    NCSI_EDAS = -71,
    NCSI_EDDS = -72,
    NCSI_EDATADDS = -73,
    NCSI_EDAPURL = -74,
    NCSI_EDAPCONSTRAINT = -75,
    NCSI_ETRANSLATION = -76,
    NCSI_EACCESS = -77,
    NCSI_EAUTH = -78,
    NCSI_ECANTREMOVE = -91,
    NCSI_EPNETCDF = -93,
    NCSI_ECANTREAD = -102,
    NCSI_ECANTWRITE = -103,
    NCSI_ECANTCREATE = -104,
    NCSI_EFILEMETA = -105,
    NCSI_EDIMMETA = -106,
    NCSI_EVARMETA = -108,
    NCSI_ENOCOMPOUND = -109,
    NCSI_EATTEXISTS = -110,
    NCSI_ENOTNC3 = -113,
    NCSI_EPARINIT = -115,
    NCSI_EBADGRPID = -116,
    NCSI_EBADTYPID = -117,
    NCSI_ETYPDEFINED = -118,
    NCSI_EBADFIELD = -119,
    NCSI_EBADCLASS = -120,
    NCSI_EMAPTYPE = -121,
    NCSI_EDIMSCALE = -124,
    NCSI_ENOGRP = -125,
    NCSI_ESTORAGE = -126,
    NCSI_EDISKLESS = -129,
    NCSI_ECANTEXTEND = -130,
    NCSI_EMPI = -131,
    NCSI_ERCFILE = -133,
    NCSI_ENULLPAD = -134,
    NCSI_EINMEMORY = -135,
    NCSI_ENCZARR = -137,
    NCSI_ES3 = -138,
    NCSI_EEMPTY = -139,
    NCSI_EOBJECT = -140,
    NCSI_ENOOBJECT = -141,
    NCSI_EPLUGIN = -142,
};

/* The message of each status, as netCDF reports it: legacy programs print
 * these (the v2 layer's "routine: message" lines), so they are part of the
 * interface and must read the same.  Indexed by the negated code; a gap
 * is a code netCDF has no message for. */
static const char *const messages[] = {
    [NCS_NOERR] = "No error",
    [-NCS_EBADID] = "NetCDF: Not a valid ID",
    [-NCS_ENFILE] = "NetCDF: Too many files open",
    [-NCS_EEXIST] = "NetCDF: File exists && NC_NOCLOBBER",
    [-NCS_EINVAL] = "NetCDF: Invalid argument",
    [-NCS_EPERM] = "NetCDF: Write to read only",
    [-NCS_ENOTINDEFINE] = "NetCDF: Operation not allowed in data mode",
    [-NCS_EINDEFINE] = "NetCDF: Operation not allowed in define mode",
    [-NCS_EINVALCOORDS] = "NetCDF: Index exceeds dimension bound",
    [-NCS_EMAXDIMS] = "NetCDF: NC_MAX_DIMS exceeded",
    [-NCS_ENAMEINUSE] = "NetCDF: String match to name in use",
    [-NCS_ENOTATT] = "NetCDF: Attribute not found",
    [-NCS_EMAXATTS] = "NetCDF: NC_MAX_ATTRS exceeded",
    [-NCS_EBADTYPE] = "NetCDF: Not a valid data type or _FillValue type mismatch",
    [-NCS_EBADDIM] = "NetCDF: Invalid dimension ID or name",
    [-NCS_EUNLIMPOS] = "NetCDF: NC_UNLIMITED in the wrong index",
    [-NCS_EMAXVARS] = "NetCDF: NC_MAX_VARS exceeded",
    [-NCS_ENOTVAR] = "NetCDF: Variable not found",
    [-NCS_EGLOBAL] = "NetCDF: Action prohibited on NC_GLOBAL varid",
    [-NCS_ENOTNC] = "NetCDF: Unknown file format",
    [-NCSI_ESTS] = "NetCDF: In Fortran, string too short",
    [-NCS_EMAXNAME] = "NetCDF: NC_MAX_NAME exceeded",
    [-NCS_EUNLIMIT] = "NetCDF: NC_UNLIMITED size already in use",
    [-NCS_ENORECVARS] = "NetCDF: nc_rec op when there are no record vars",
    [-NCS_ECHAR] = "NetCDF: Attempt to convert between text & numbers",
    [-NCS_EEDGE] = "NetCDF: Start+count exceeds dimension bound",
    [-NCS_ESTRIDE] = "NetCDF: Illegal stride",
    [-NCS_EBADNAME] = "NetCDF: Name contains illegal characters",
    [-NCS_ERANGE] = "NetCDF: Numeric conversion not representable",
    [-NCS_ENOMEM] = "NetCDF: Memory allocation (malloc) failure",
    [-NCS_EVARSIZE] = "NetCDF: One or more variable sizes violate format constraints",
    [-NCS_EDIMSIZE] = "NetCDF: Invalid dimension size",
    [-NCS_ETRUNC] = "NetCDF: File likely truncated or possibly corrupted",
    [-NCSI_EAXISTYPE] = "NetCDF: Illegal axis type",
    [-NCSI_EDAP] = "NetCDF: DAP failure",
    [-NCSI_ECURL] = "NetCDF: libcurl failure",
    [-NCS_EIO] = "NetCDF: I/O failure",
    [-NCSI_ENODATA] = "NetCDF: Variable has no data",
    [-NCSI_EDAPSVC] = "NetCDF: DAP server error",
    [-NCSI_EDAS] = "NetCDF: Malformed or inaccessible DAP DAS",
    [-NCSI_EDDS] = "NetCDF: Malformed or inaccessible DAP2 DDS or DAP4 DMR response",
    [-NCSI_EDATADDS] = "NetCDF: Malformed or inaccessible DAP2 DATADDS or DAP4 DAP response",
    [-NCSI_EDAPURL] = "NetCDF: Malformed URL",
    [-NCSI_EDAPCONSTRAINT] = "NetCDF: Malformed or unexpected Constraint",
    [-NCSI_ETRANSLATION] = "NetCDF: Untranslatable construct",
    [-NCSI_EACCESS] = "NetCDF: Access failure",
    [-NCSI_EAUTH] = "NetCDF: Authorization failure",
    [-NCS_ENOTFOUND] = "NetCDF: file not found",
    [-NCSI_ECANTREMOVE] = "NetCDF: cannot delete file",
    [-NCS_EINTERNAL] = "NetCDF: internal library error; Please contact Unidata support",
    [-NCSI_EPNETCDF] = "NetCDF: PnetCDF error",
    [-NCS_EHDFERR] = "NetCDF: HDF error",
    [-NCSI_ECANTREAD] = "NetCDF: Can't read file",
    [-NCSI_ECANTWRITE] = "NetCDF: Can't write file",
    [-NCSI_ECANTCREATE] = "NetCDF: Can't create file",
    [-NCSI_EFILEMETA] = "NetCDF: Can't add HDF5 file metadata",
    [-NCSI_EDIMMETA] = "NetCDF: Can't define dimensional metadata",
    [-NCSI_EATTMETA] = "NetCDF: Can't open HDF5 attribute",
    [-NCSI_EVARMETA] = "NetCDF: Problem with variable metadata.",
    [-NCSI_ENOCOMPOUND] = "NetCDF: Can't create HDF5 compound type",
    [-NCSI_EATTEXISTS] = "NetCDF: Attempt to create attribute that already exists",
    [-NCS_ENOTNC4] = "NetCDF: Attempting netcdf-4 operation on netcdf-3 file",
    [-NCS_ESTRICTNC3] = "NetCDF: Attempting netcdf-4 operation on strict nc3 netcdf-4 file",
    [-NCSI_ENOTNC3] = "NetCDF: Attempting netcdf-3 operation on netcdf-4 file",
    [-NCS_ENOPAR] = "NetCDF: Parallel operation on file opened for non-parallel access",
    [-NCSI_EPARINIT] = "NetCDF: Error initializing for parallel access",
    [-NCSI_EBADGRPID] = "NetCDF: Bad group ID",
    [-NCSI_EBADTYPID] = "NetCDF: Bad type ID",
    [-NCSI_ETYPDEFINED] = "NetCDF: Type has already been defined and may not be edited",
    [-NCSI_EBADFIELD] = "NetCDF: Bad field ID",
    [-NCSI_EBADCLASS] = "NetCDF: Bad class",
    [-NCSI_EMAPTYPE] = "NetCDF: Mapped access for atomic types only",
    [-NCS_ELATEFILL] = "NetCDF: Attempt to define fill value when data already exists.",
    [-NCS_ELATEDEF] = "NetCDF: Attempt to define var properties, like deflate, after enddef.",
    [-NCSI_EDIMSCALE] = "NetCDF: Problem with HDF5 dimscales.",
    [-NCSI_ENOGRP] = "NetCDF: No group found.",
    [-NCSI_ESTORAGE] = "NetCDF: Cannot specify both contiguous and chunking.",
    [-NCS_EBADCHUNK] = "NetCDF: Bad chunk sizes.",
    [-NCS_ENOTBUILT] =
        "NetCDF: Attempt to use feature that was not turned on when netCDF was built.",
    [-NCSI_EDISKLESS] = "NetCDF: Error in using diskless access",
    [-NCSI_ECANTEXTEND] =
        "NetCDF: Attempt to extend dataset during NC_INDEPENDENT I/O operation. "
        "Use nc_var_par_access to set mode NC_COLLECTIVE before extending variable.",
    [-NCSI_EMPI] = "NetCDF: MPI operation failed.",
    [-NCS_EFILTER] = "NetCDF: Filter error: bad id or parameters or duplicate filter",
    [-NCSI_ERCFILE] = "NetCDF: RC File Failure.",
    [-NCSI_ENULLPAD] = "NetCDF: File fails strict Null-Byte Header check.",
    [-NCSI_EINMEMORY] = "NetCDF: In-memory File operation failed.",
    [-NCS_ENOFILTER] = "NetCDF: Filter error: undefined filter encountered",
    [-NCSI_ENCZARR] = "NetCDF: NCZarr error",
    [-NCSI_ES3] = "NetCDF: AWS S3 error",
    [-NCSI_EEMPTY] = "NetCDF: Attempt to read empty NCZarr map key",
    [-NCSI_EOBJECT] = "NetCDF: Some object exists when it should not",
    [-NCSI_ENOOBJECT] = "NetCDF: Some object not found",
    [-NCSI_EPLUGIN] = "NetCDF: Unclassified failure in accessing a dynamically loaded plugin",
    [-NCS_EINVAL_REQUEST] = "Not the id of a pending nonblocking request",
    [-NCS_EPENDING] = "Nonblocking requests were still pending when the file was closed",
    [-NCS_EMULTIDEFINE] = "The processes of a parallel file disagree on its definitions "
                          "or on a collective call's arguments",
};

const char *ncs_strerror(int status)
{
    if (status > 0) {
        const char *s = strerror(status);
        return s != NULL ? s : "Unknown Error";
    }
    if (status > -(int)(sizeof messages / sizeof messages[0]) && messages[-status] != NULL)
        return messages[-status];
    return "Unknown Error";
}
