/*
 * error.c -- status codes (messages, the origin of internal errors) and the
 * library's allocation wrappers.
 *
 * Status codes are netCDF's: 0 is success, negative values are NCS_E*,
 * positive values are errno numbers from the system.
 */
#include "ncs_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- allocation, with a fault-injection countdown ---------------------- */
static long alloc_countdown;

void ncsi_fault_alloc(long countdown)
{
    alloc_countdown = countdown;
}

static int alloc_fails(void)
{
    return alloc_countdown > 0 && --alloc_countdown == 0;
}

void *ncsi_malloc(size_t n)
{
    return alloc_fails() ? NULL : malloc(n);
}

void *ncsi_calloc(size_t n, size_t size)
{
    return alloc_fails() ? NULL : calloc(n, size);
}

void *ncsi_realloc(void *p, size_t n)
{
    return alloc_fails() ? NULL : realloc(p, n);
}

char *ncsi_strdup(const char *s)
{
    return alloc_fails() ? NULL : strdup(s);
}

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

/* The message of each status, as netCDF reports it: legacy programs print
 * these (the v2 layer's "routine: message" lines), so they are part of the
 * interface and must read the same. */
static const struct {
    int code;
    const char *msg;
} messages[] = {
    { -142, "NetCDF: Unclassified failure in accessing a dynamically loaded plugin" },
    { -141, "NetCDF: Some object not found" },
    { -140, "NetCDF: Some object exists when it should not" },
    { -139, "NetCDF: Attempt to read empty NCZarr map key" },
    { -138, "NetCDF: AWS S3 error" },
    { -137, "NetCDF: NCZarr error" },
    { -136, "NetCDF: Filter error: undefined filter encountered" },
    { -135, "NetCDF: In-memory File operation failed." },
    { -134, "NetCDF: File fails strict Null-Byte Header check." },
    { -133, "NetCDF: RC File Failure." },
    { -132, "NetCDF: Filter error: bad id or parameters or duplicate filter" },
    { -131, "NetCDF: MPI operation failed." },
    { -130, "NetCDF: Attempt to extend dataset during NC_INDEPENDENT I/O operation. Use nc_var_par_access to set mode NC_COLLECTIVE before extending variable." },
    { -129, "NetCDF: Error in using diskless access" },
    { -128, "NetCDF: Attempt to use feature that was not turned on when netCDF was built." },
    { -127, "NetCDF: Bad chunk sizes." },
    { -126, "NetCDF: Cannot specify both contiguous and chunking." },
    { -125, "NetCDF: No group found." },
    { -124, "NetCDF: Problem with HDF5 dimscales." },
    { -123, "NetCDF: Attempt to define var properties, like deflate, after enddef." },
    { -122, "NetCDF: Attempt to define fill value when data already exists." },
    { -121, "NetCDF: Mapped access for atomic types only" },
    { -120, "NetCDF: Bad class" },
    { -119, "NetCDF: Bad field ID" },
    { -118, "NetCDF: Type has already been defined and may not be edited" },
    { -117, "NetCDF: Bad type ID" },
    { -116, "NetCDF: Bad group ID" },
    { -115, "NetCDF: Error initializing for parallel access" },
    { -114, "NetCDF: Parallel operation on file opened for non-parallel access" },
    { -113, "NetCDF: Attempting netcdf-3 operation on netcdf-4 file" },
    { -112, "NetCDF: Attempting netcdf-4 operation on strict nc3 netcdf-4 file" },
    { -111, "NetCDF: Attempting netcdf-4 operation on netcdf-3 file" },
    { -110, "NetCDF: Attempt to create attribute that already exists" },
    { -109, "NetCDF: Can't create HDF5 compound type" },
    { -108, "NetCDF: Problem with variable metadata." },
    { -107, "NetCDF: Can't open HDF5 attribute" },
    { -106, "NetCDF: Can't define dimensional metadata" },
    { -105, "NetCDF: Can't add HDF5 file metadata" },
    { -104, "NetCDF: Can't create file" },
    { -103, "NetCDF: Can't write file" },
    { -102, "NetCDF: Can't read file" },
    { -101, "NetCDF: HDF error" },
    { -93, "NetCDF: PnetCDF error" },
    { -92, "NetCDF: internal library error; Please contact Unidata support" },
    { -91, "NetCDF: cannot delete file" },
    { -90, "NetCDF: file not found" },
    { -78, "NetCDF: Authorization failure" },
    { -77, "NetCDF: Access failure" },
    { -76, "NetCDF: Untranslatable construct" },
    { -75, "NetCDF: Malformed or unexpected Constraint" },
    { -74, "NetCDF: Malformed URL" },
    { -73, "NetCDF: Malformed or inaccessible DAP2 DATADDS or DAP4 DAP response" },
    { -72, "NetCDF: Malformed or inaccessible DAP2 DDS or DAP4 DMR response" },
    { -71, "NetCDF: Malformed or inaccessible DAP DAS" },
    { -70, "NetCDF: DAP server error" },
    { -69, "NetCDF: Variable has no data" },
    { -68, "NetCDF: I/O failure" },
    { -67, "NetCDF: libcurl failure" },
    { -66, "NetCDF: DAP failure" },
    { -65, "NetCDF: Illegal axis type" },
    { -64, "NetCDF: File likely truncated or possibly corrupted" },
    { -63, "NetCDF: Invalid dimension size" },
    { -62, "NetCDF: One or more variable sizes violate format constraints" },
    { -61, "NetCDF: Memory allocation (malloc) failure" },
    { -60, "NetCDF: Numeric conversion not representable" },
    { -59, "NetCDF: Name contains illegal characters" },
    { -58, "NetCDF: Illegal stride" },
    { -57, "NetCDF: Start+count exceeds dimension bound" },
    { -56, "NetCDF: Attempt to convert between text & numbers" },
    { -55, "NetCDF: nc_rec op when there are no record vars" },
    { -54, "NetCDF: NC_UNLIMITED size already in use" },
    { -53, "NetCDF: NC_MAX_NAME exceeded" },
    { -52, "NetCDF: In Fortran, string too short" },
    { -51, "NetCDF: Unknown file format" },
    { -50, "NetCDF: Action prohibited on NC_GLOBAL varid" },
    { -49, "NetCDF: Variable not found" },
    { -48, "NetCDF: NC_MAX_VARS exceeded" },
    { -47, "NetCDF: NC_UNLIMITED in the wrong index" },
    { -46, "NetCDF: Invalid dimension ID or name" },
    { -45, "NetCDF: Not a valid data type or _FillValue type mismatch" },
    { -44, "NetCDF: NC_MAX_ATTRS exceeded" },
    { -43, "NetCDF: Attribute not found" },
    { -42, "NetCDF: String match to name in use" },
    { -41, "NetCDF: NC_MAX_DIMS exceeded" },
    { -40, "NetCDF: Index exceeds dimension bound" },
    { -39, "NetCDF: Operation not allowed in define mode" },
    { -38, "NetCDF: Operation not allowed in data mode" },
    { -37, "NetCDF: Write to read only" },
    { -36, "NetCDF: Invalid argument" },
    { -35, "NetCDF: File exists && NC_NOCLOBBER" },
    { -34, "NetCDF: Too many files open" },
    { -33, "NetCDF: Not a valid ID" },
    { 0, "No error" },
};

const char *ncs_strerror(int status)
{
    if (status > 0) {
        const char *s = strerror(status);
        return s != NULL ? s : "Unknown Error";
    }
    for (size_t i = 0; i < sizeof messages / sizeof messages[0]; i++)
        if (messages[i].code == status)
            return messages[i].msg;
    return "Unknown Error";
}
