/*
 * v3_file.c -- the v3 file calls: create, open, define mode, close,
 * deletion, and the file inquiries the native API has no call of its own
 * for (nc_inq_path, nc_inq_format_extended, nc_inq_unlimdims).
 *
 * netCDF-C accepts mode bits it does not act on (a parallel flag in a
 * serial build, bits no flag names) and reports the mode a file was
 * created or opened with through nc_inq_format_extended; the native API
 * refuses bits it does not know.  So the mode is filtered here and kept
 * beside the ncid.
 */
#include "config.h"
#include "v3.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- the mode of each open file -------------------------------------------
 * Indexed by the ncid's slot (ncid >> 16, the native numbering); the ncid
 * itself is kept to tell a record from a stale one of a reused slot.
 * nvars is how many variables an opened file had when it was opened (0
 * for a created one): netCDF-C describes those from what the file
 * records, the others from what was defined (v3i_var_opened). */
typedef struct { int ncid, mode, nvars; } v3_mode;
static v3_mode *modes;
static size_t nmodes;
static pthread_mutex_t modes_lock = PTHREAD_MUTEX_INITIALIZER;

void v3i_mode_set(int ncid, int mode, int opened)
{
    size_t slot = (size_t)ncid >> 16;
    int nvars = 0;
    if (opened && ncs_inq_nvars(ncid, &nvars) != NC_NOERR)
        nvars = 0;
    v3i_var_caches_drop(ncid);   /* a file the slot held before, closed through v2 */
    pthread_mutex_lock(&modes_lock);
    if (slot >= nmodes) {
        size_t n = slot + 64;
        v3_mode *m = realloc(modes, n * sizeof *m);
        if (m != NULL) {
            memset(m + nmodes, 0, (n - nmodes) * sizeof *m);
            modes = m;
            nmodes = n;
        }
    }
    if (slot < nmodes) {
        modes[slot].ncid = ncid;
        modes[slot].mode = mode;
        modes[slot].nvars = nvars;
    }
    pthread_mutex_unlock(&modes_lock);
}

void v3i_mode_drop(int ncid)
{
    size_t slot = (size_t)ncid >> 16;
    v3i_var_caches_drop(ncid);
    pthread_mutex_lock(&modes_lock);
    if (slot < nmodes && modes[slot].ncid == ncid)
        modes[slot].ncid = 0;
    pthread_mutex_unlock(&modes_lock);
}

/* The mode recorded for ncid, or -1 when there is none (a file opened
 * through the v2 calls). */
static int recorded_mode(int ncid)
{
    size_t slot = (size_t)ncid >> 16;
    int mode = -1;
    pthread_mutex_lock(&modes_lock);
    if (slot < nmodes && modes[slot].ncid == ncid)
        mode = modes[slot].mode;
    pthread_mutex_unlock(&modes_lock);
    return mode;
}

int v3i_var_opened(int ncid, int varid)
{
    size_t slot = (size_t)ncid >> 16;
    int opened = 0;
    pthread_mutex_lock(&modes_lock);
    if (slot < nmodes && modes[slot].ncid == ncid)
        opened = varid >= 0 && varid < modes[slot].nvars;
    pthread_mutex_unlock(&modes_lock);
    return opened;
}

/* The format's own flags, as netCDF-C adds them to the mode of a file. */
static int format_flags(int format)
{
    switch (format) {
    case NC_FORMAT_64BIT_OFFSET: return NC_64BIT_OFFSET;
    case NC_FORMAT_64BIT_DATA: return NC_64BIT_DATA;
    case NC_FORMAT_NETCDF4: return NC_NETCDF4;
    case NC_FORMAT_NETCDF4_CLASSIC: return NC_NETCDF4 | NC_CLASSIC_MODEL;
    default: return 0;
    }
}

int v3i_is_nc4(int ncid)
{
    int format, status = ncs_inq_format(ncid, &format);
    if (status != NC_NOERR)
        return status;
    return format == NC_FORMAT_NETCDF4 || format == NC_FORMAT_NETCDF4_CLASSIC;
}

/* ---- create and open ------------------------------------------------------ */

/* The bits the native calls act on; netCDF-C ignores the others that
 * name no in-memory file, and so does this layer. */
#define NATIVE_MODE (NC_WRITE | NC_NOCLOBBER | NC_64BIT_DATA | NC_CLASSIC_MODEL | \
                     NC_64BIT_OFFSET | NC_LOCK | NC_SHARE | NC_NETCDF4)
#define MEMORY_MODE (NC_DISKLESS | NC_INMEMORY | NC_MMAP)

int nc_create(const char *path, int cmode, int *ncidp)
{
    int ncid, format, status;

    if (cmode & (NC_UDF0 | NC_UDF1))
        return NC_ENOTBUILT;   /* no user-defined format is registered */
    if (cmode & MEMORY_MODE)
        status = v3i_mem_create(path, cmode, cmode & NATIVE_MODE, &ncid);
    else
        status = ncs_create(path, cmode & NATIVE_MODE, &ncid);
    if (status != NC_NOERR)
        return status;
    if (ncs_inq_format(ncid, &format) == NC_NOERR)
        v3i_mode_set(ncid, cmode | format_flags(format), 0);
    /* netCDF-C creates the file even without somewhere to put its id */
    if (ncidp != NULL)
        *ncidp = ncid;
    return NC_NOERR;
}

/* The block size netCDF-C's classic I/O reports through the size hints:
 * the file system's, at least 8 KiB; a hint the caller gives within
 * 256 bytes to 2^31 is kept, rounded up to 8 bytes. */
static void size_hint(const char *path, size_t *hintp)
{
    struct stat st;
    size_t bs = 8192;
    if (hintp == NULL)
        return;
    if (*hintp >= 256 && *hintp <= ((size_t)1 << 31)) {
        *hintp = (*hintp + 7) & ~(size_t)7;
        return;
    }
    if (stat(path, &st) == 0 && st.st_blksize > 8192)
        bs = (size_t)st.st_blksize;
    *hintp = bs;
}

int nc__create(const char *path, int cmode, size_t initialsz,
               size_t *chunksizehintp, int *ncidp)
{
    int ncid, status;
    (void)initialsz; /* netCDF-C sizes nothing by it either for these formats */
    status = nc_create(path, cmode, &ncid);
    if (status != NC_NOERR)
        return status;
    if (v3i_is_nc4(ncid) == 0)
        size_hint(path, chunksizehintp);
    if (ncidp != NULL)
        *ncidp = ncid;
    return NC_NOERR;
}

int nc__create_mp(const char *path, int cmode, size_t initialsz, int basepe,
                  size_t *chunksizehintp, int *ncidp)
{
    if (basepe != 0)
        return NC_EINVAL;
    return nc__create(path, cmode, initialsz, chunksizehintp, ncidp);
}

int nc_open(const char *path, int mode, int *ncidp)
{
    int ncid, format, status;

    if (path != NULL && *path == '\0')
        return NC_EDAPURL;     /* netCDF-C takes an empty path for a URL */
    if (mode & (NC_UDF0 | NC_UDF1))
        return NC_ENOTBUILT;
    if (mode & MEMORY_MODE)
        status = v3i_mem_open(path, mode, &ncid);
    else
        status = ncs_open(path, mode & NATIVE_MODE, &ncid);
    if (status != NC_NOERR)
        return status;
    if (ncs_inq_format(ncid, &format) == NC_NOERR) {
        int fl = format_flags(format);
        if (fl & NC_NETCDF4)
            mode |= NC_NETCDF4;  /* netCDF-C does not add NC_CLASSIC_MODEL */
        else
            mode = (mode & ~NC_NETCDF4) | fl;
        v3i_mode_set(ncid, mode, 1);
    }
    /* Without ncidp netCDF-C opens the file all the same and keeps it open,
     * out of reach: so does ncslab, so that later ids are netCDF-C's. */
    if (ncidp != NULL)
        *ncidp = ncid;
    return NC_NOERR;
}

int nc__open(const char *path, int mode, size_t *chunksizehintp, int *ncidp)
{
    int ncid, status;
    status = nc_open(path, mode, &ncid);
    if (status != NC_NOERR)
        return status;
    if (v3i_is_nc4(ncid) == 0)
        size_hint(path, chunksizehintp);
    if (ncidp != NULL)
        *ncidp = ncid;
    return NC_NOERR;
}

int nc__open_mp(const char *path, int mode, int basepe, size_t *chunksizehintp,
                int *ncidp)
{
    if (basepe != 0)
        return NC_EINVAL;
    return nc__open(path, mode, chunksizehintp, ncidp);
}

/* ---- define mode, sync, close ------------------------------------------------ */

int nc_redef(int ncid)
{
    return ncs_redef(ncid);
}

int nc_enddef(int ncid)
{
    return ncs_enddef(ncid);
}

int nc__enddef(int ncid, size_t h_minfree, size_t v_align, size_t v_minfree,
               size_t r_align)
{
    return ncs__enddef(ncid, h_minfree, v_align, v_minfree, r_align);
}

int nc_sync(int ncid)
{
    return ncs_sync(ncid);
}

int nc_abort(int ncid)
{
    int status = v3i_mem_path(ncid) != NULL ? v3i_mem_close(ncid, NULL) : ncs_abort(ncid);
    if (status != NC_EBADID) {
        v3i_mode_drop(ncid);
    }
    return status;
}

int nc_close(int ncid)
{
    int status = v3i_mem_close(ncid, NULL);
    if (status != NC_EBADID) {
        v3i_mode_drop(ncid);
    }
    return status;
}

int nc_set_fill(int ncid, int fillmode, int *old_modep)
{
    return ncs_set_fill(ncid, fillmode, old_modep);
}

/* ---- file inquiries ------------------------------------------------------------ */

int nc_inq_path(int ncid, size_t *pathlen, char *path)
{
    const char *name = v3i_mem_path(ncid);
    if (name == NULL)
        return ncs_inq_path(ncid, pathlen, path);
    if (pathlen != NULL)
        *pathlen = strlen(name);
    if (path != NULL)
        strcpy(path, name);
    return NC_NOERR;
}

int nc_inq_format_extended(int ncid, int *formatp, int *modep)
{
    int format, status = ncs_inq_format(ncid, &format);
    if (status != NC_NOERR)
        return status;
    int mode = recorded_mode(ncid);
    if (mode == -1) /* opened through the v2 calls: the format's flags */
        mode = format_flags(format) & ~(format == NC_FORMAT_NETCDF4_CLASSIC ?
                                         NC_CLASSIC_MODEL : 0);
    if (formatp != NULL)
        *formatp = (mode != -1 && (mode & V3I_MODE_PAR) && !(format_flags(format) & NC_NETCDF4))
                       ? NC_FORMATX_PNETCDF
                   : (format_flags(format) & NC_NETCDF4) ? NC_FORMATX_NC_HDF5
                                                          : NC_FORMATX_NC3;
    if (modep != NULL)
        *modep = mode & ~V3I_MODE_PAR;
    return NC_NOERR;
}

int nc_inq_unlimdims(int ncid, int *nunlimdimsp, int *unlimdimidsp)
{
    int unlim, status = ncs_inq_unlimdim(ncid, &unlim);
    if (status != NC_NOERR)
        return status;
    if (nunlimdimsp != NULL)
        *nunlimdimsp = unlim >= 0;
    if (unlimdimidsp != NULL && unlim >= 0)
        unlimdimidsp[0] = unlim;
    return NC_NOERR;
}

/* netCDF-C opens the file first, so what is not a netCDF file stays. */
int nc_delete(const char *path)
{
    int ncid, status = ncs_open(path, NC_NOWRITE, &ncid);
    if (status != NC_NOERR)
        return status;
    status = ncs_close(ncid);
    if (status != NC_NOERR)
        return status;
    return unlink(path) == 0 ? NC_NOERR : errno;
}

int nc_delete_mp(const char *path, int basepe)
{
    if (basepe != 0)
        return NC_EINVAL;
    return nc_delete(path);
}

/* Processing elements of the Cray T3E: netCDF-C keeps the calls and does
 * nothing, in every format. */
int nc_set_base_pe(int ncid, int pe)
{
    int format;
    (void)pe;
    return ncs_inq_format(ncid, &format);
}

int nc_inq_base_pe(int ncid, int *pe)
{
    int format, status = ncs_inq_format(ncid, &format);
    if (status == NC_NOERR && pe != NULL)
        *pe = 0;
    return status;
}

/* A netCDF-4 file opened with NC_CLASSIC_MODEL reports itself classic
 * model, as netCDF-C's does (it takes the flag from the open mode). */
int nc_inq_format(int ncid, int *formatp)
{
    int format, status = ncs_inq_format(ncid, &format);
    if (status != NC_NOERR)
        return status;
    if (format == NC_FORMAT_NETCDF4) {
        int mode = recorded_mode(ncid);
        if (mode != -1 && (mode & NC_CLASSIC_MODEL))
            format = NC_FORMAT_NETCDF4_CLASSIC;
    }
    if (formatp != NULL)
        *formatp = format;
    return NC_NOERR;
}

/* ---- library-wide settings ------------------------------------------------------- */

int nc_initialize(void)
{
    return NC_NOERR;
}

int nc_finalize(void)
{
    return NC_NOERR;
}

/* netCDF-C built without logging, as Debian's, accepts every level. */
int nc_set_log_level(int new_level)
{
    (void)new_level;
    return NC_NOERR;
}

int nc_show_metadata(int ncid)
{
    int format;
    return ncs_inq_format(ncid, &format);
}

/* HDF5's alignment of new objects in netCDF-4 files: kept and reported;
 * ncslab's chunked back end places objects as HDF5 does by default. */
static int align_threshold, align_alignment;

int nc_set_alignment(int threshold, int alignment)
{
    align_threshold = threshold;
    align_alignment = alignment;
    return NC_NOERR;
}

int nc_get_alignment(int *thresholdp, int *alignmentp)
{
    if (thresholdp != NULL)
        *thresholdp = align_threshold;
    if (alignmentp != NULL)
        *alignmentp = align_alignment;
    return NC_NOERR;
}

/* User-defined formats dispatch to a table of another library's
 * functions; ncslab has no dispatch layer to plug one into. */
int nc_def_user_format(int mode_flag, NC_Dispatch *dispatch_table,
                       char *magic_number)
{
    (void)magic_number;
    if (mode_flag != NC_UDF0 && mode_flag != NC_UDF1)
        return NC_EINVAL;
    if (dispatch_table == NULL)
        return NC_EINVAL;
    return NC_ENOTBUILT;
}

int nc_inq_user_format(int mode_flag, NC_Dispatch **dispatch_table,
                       char *magic_number)
{
    if (mode_flag != NC_UDF0 && mode_flag != NC_UDF1)
        return NC_EINVAL;
    if (dispatch_table != NULL)
        *dispatch_table = NULL;
    if (magic_number != NULL)
        magic_number[0] = '\0';
    return NC_NOERR;
}
