/*
 * api_file.c -- public entry points for files: create, open, define mode,
 * sync, close, fill mode and file-level inquiry; and the table of open
 * files behind the integer ncids.
 *
 * Every check of caller input for these calls happens here, in netCDF-C's
 * order, so a bad call returns netCDF-C's error code.
 */
#include "api.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- the table of open files ----------------------------------------------
 * ncid = slot << 16, as netCDF-C numbers its files, so legacy programs that
 * print or compare ncids see familiar values.  Lookups take no lock: a slot
 * is written only by the thread that opens or closes that file. */
#define MAX_OPEN NCSI_MAX_OPEN
#define ID_SHIFT NCSI_ID_SHIFT

ncs_file *ncsi_open_files[NCSI_MAX_OPEN];
#define open_files ncsi_open_files
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static int default_format = NCS_FORMAT_CLASSIC;

int ncsi_file_register(ncs_file *f)
{
    int status = NCS_ENFILE;
    pthread_mutex_lock(&table_lock);
    for (int i = 1; i < MAX_OPEN; i++) {
        if (open_files[i] == NULL) {
            open_files[i] = f;
            f->ncid = i << ID_SHIFT;
            status = NCS_NOERR;
            break;
        }
    }
    pthread_mutex_unlock(&table_lock);
    return status == NCS_NOERR ? status : NCS_ERR(status);
}

void ncsi_file_modes(ncs_file *f)
{
    ncsi_memo_clear(&f->memo);
    f->nfast = (ncsi_fastpath && NCSI_STORE_HAS(f, get1) &&
                !(f->flags & (NCSI_F_INDEF | NCSI_F_SHARE))) ? f->model.nvars : 0;
}

void ncsi_file_unregister(ncs_file *f)
{
    pthread_mutex_lock(&table_lock);
    open_files[f->ncid >> ID_SHIFT] = NULL;
    pthread_mutex_unlock(&table_lock);
}

static void file_free(ncs_file *f)
{
    ncsi_model_free(&f->model);
    if (f->old != NULL) {
        ncsi_model_free(f->old);
        free(f->old);
    }
    free(f->path);
    free(f);
}

static ncs_file *file_new(const char *path)
{
    ncs_file *f = ncsi_calloc(1, sizeof *f);
    if (f == NULL)
        return NULL;
    f->model.unlimdim = -1;
    ncsi_memo_clear(&f->memo);
    f->path = ncsi_strdup(path);
    if (f->path == NULL) {
        free(f);
        return NULL;
    }
    return f;
}

/* ---- library ----------------------------------------------------------------- */

const char *ncs_inq_libvers(void)
{
    return NCS_VERSION " of " __DATE__ " " __TIME__;
}

int ncs_set_default_format(int format, int *old_formatp)
{
    /* the old format is reported even when the new one is refused, as
     * netCDF-C does */
    if (old_formatp != NULL)
        *old_formatp = default_format;
    if (format < NCS_FORMAT_CLASSIC || format > NCS_FORMAT_64BIT_DATA)
        return NCS_ERR(NCS_EINVAL);
    default_format = format;
    return NCS_NOERR;
}

/* The format flags the default format stands for, added to a cmode that
 * names no format (none of NCS_CLASSIC_MODEL, NCS_NETCDF4,
 * NCS_64BIT_OFFSET, NCS_64BIT_DATA: NCS_CLASSIC_MODEL alone is CDF-1,
 * whatever the default, as in netCDF-C). */
static int default_format_flags(int cmode)
{
    if (cmode & (NCS_CLASSIC_MODEL | NCS_NETCDF4 | NCS_64BIT_OFFSET | NCS_64BIT_DATA))
        return 0;
    switch (default_format) {
    case NCS_FORMAT_64BIT_OFFSET:    return NCS_64BIT_OFFSET;
    case NCS_FORMAT_64BIT_DATA:      return NCS_64BIT_DATA;
    case NCS_FORMAT_NETCDF4:         return NCS_NETCDF4;
    case NCS_FORMAT_NETCDF4_CLASSIC: return NCS_NETCDF4 | NCS_CLASSIC_MODEL;
    default:                         return 0;
    }
}

int ncs_inq_type_size(int xtype, size_t *sizep)
{
    size_t sz = ncsi_type_size(xtype);
    if (sz == 0)
        return NCS_ERR(NCS_EBADTYPE);
    if (sizep != NULL)
        *sizep = sz;
    return NCS_NOERR;
}

/* ---- create and open ------------------------------------------------------------ */

int ncs_create(const char *path, int cmode, int *ncidp)
{
    return ncsi_file_create_with(path, cmode, NULL, NULL, ncidp);
}

int ncsi_file_create_with(const char *path, int cmode, const ncs_store_methods *store,
                          const void *arg, int *ncidp)
{
    const int known = NCS_WRITE | NCS_NOCLOBBER | NCS_64BIT_DATA | NCS_CLASSIC_MODEL |
                      NCS_64BIT_OFFSET | NCS_SHARE | NCS_NETCDF4 | NCS_DISKLESS |
                      0x0400 /* NC_LOCK */;
    ncs_file *f;
    int status;

    ncsi_fastpath_init();
    if (path == NULL || ncidp == NULL || *path == '\0')
        return NCS_ERR(NCS_EINVAL);
    if (cmode & ~known)
        return NCS_ERR(NCS_EINVAL);
    if (((cmode & NCS_64BIT_OFFSET) != 0) + ((cmode & NCS_64BIT_DATA) != 0) +
        ((cmode & NCS_NETCDF4) != 0) > 1)
        return NCS_ERR(NCS_EINVAL);

    cmode |= default_format_flags(cmode);
    f = file_new(path);
    if (f == NULL)
        return NCS_ERR(NCS_ENOMEM);
    f->version = (cmode & NCS_64BIT_DATA) ? 5 : (cmode & NCS_64BIT_OFFSET) ? 2 : 1;
    f->flags = NCSI_F_WRITE | NCSI_F_INDEF | NCSI_F_CREATED;
    if (cmode & NCS_SHARE)
        f->flags |= NCSI_F_SHARE;
    f->store = store != NULL ? store : ncsi_store_for_create(cmode);
    f->open_arg = arg;
    status = ncsi_store_create(f, path, cmode);
    f->open_arg = NULL;
    if (status != NCS_NOERR) {
        file_free(f);
        return status;
    }
    status = ncsi_file_register(f);
    if (status != NCS_NOERR) {
        ncsi_store_close(f, 1);
        unlink(path);
        file_free(f);
        return status;
    }
    ncsi_file_modes(f);
    *ncidp = f->ncid;
    return NCS_NOERR;
}

static int open_file(const char *path, int mode, ncsi_store_picker pick, const void *arg,
                     int *ncidp)
{
    ncs_file *f;
    int status;

    if (path == NULL || ncidp == NULL || *path == '\0')
        return NCS_ERR(NCS_EINVAL);
    f = file_new(path);
    if (f == NULL)
        return NCS_ERR(NCS_ENOMEM);
    if (mode & NCS_WRITE)
        f->flags |= NCSI_F_WRITE;
    if (mode & NCS_SHARE)
        f->flags |= NCSI_F_SHARE;
    status = ncsi_store_for_open(path, mode, NULL, &f->store);
    if (pick != NULL)
        status = pick(status, &f->store, &arg);
    if (status != NCS_NOERR) {
        file_free(f);
        return status;
    }
    f->open_arg = arg;
    status = ncsi_store_open(f, path, mode);
    /* a back end that reads only some of the files it claims passes the
     * others on */
    while (status == NCSI_DECLINED) {
        status = ncsi_store_for_open(path, mode, f->store, &f->store);
        if (status == NCS_NOERR)
            status = ncsi_store_open(f, path, mode);
    }
    f->open_arg = NULL;
    if (status != NCS_NOERR) {
        file_free(f);
        return status;
    }
    status = ncsi_file_register(f);
    if (status != NCS_NOERR) {
        ncsi_store_close(f, 1);
        file_free(f);
        return status;
    }
    ncsi_file_modes(f);
    *ncidp = f->ncid;
    return NCS_NOERR;
}

int ncs_open(const char *path, int mode, int *ncidp)
{
    int status;
    ncsi_fastpath_init();
    ncsi_diag_reset();
    status = open_file(path, mode, NULL, NULL, ncidp);
    ncsi_diag_done(status);
    return status;
}

int ncsi_file_open_with(const char *path, int mode, ncsi_store_picker pick, const void *arg,
                        int *ncidp)
{
    int status;
    ncsi_fastpath_init();
    ncsi_diag_reset();
    status = open_file(path, mode, pick, arg, ncidp);
    ncsi_diag_done(status);
    return status;
}

int ncs_inq_open_diag(int index, long long *offsetp, char *what, size_t len)
{
    return ncsi_diag_get(index, offsetp, what, len);
}

/* ---- define mode ----------------------------------------------------------------- */

int ncs_redef(int ncid)
{
    ncs_file *f = ncsi_file_get(ncid);
    int status;
    if (f == NULL)
        return NCS_ERR(NCS_EBADID);
    if (!(f->flags & NCSI_F_WRITE))
        return NCS_ERR(NCS_EPERM);
    if (f->flags & NCSI_F_INDEF)
        return NCS_ERR(NCS_EINDEFINE);
    if (f->flags & (NCSI_F_SHARE | NCSI_F_PAR)) {
        /* another process may have changed the header, as netCDF-C
         * assumes for shared files (a parallel file's processes agree
         * on the record count here) */
        status = ncsi_store_reload(f);
        if (status != NCS_NOERR)
            return status;
    }
    f->old = ncsi_malloc(sizeof *f->old);
    if (f->old == NULL)
        return NCS_ERR(NCS_ENOMEM);
    status = ncsi_model_copy(&f->model, f->old);
    if (status != NCS_NOERR) {
        free(f->old);
        f->old = NULL;
        return status;
    }
    f->flags |= NCSI_F_INDEF;
    ncsi_file_modes(f);
    return NCS_NOERR;
}

static int do_enddef(ncs_file *f, size_t h_minfree, size_t v_align,
                     size_t v_minfree, size_t r_align)
{
    int status = ncsi_store_enddef(f, h_minfree, v_align, v_minfree, r_align);
    if (status != NCS_NOERR)
        return status;
    if (f->old != NULL) {
        ncsi_model_free(f->old);
        free(f->old);
        f->old = NULL;
    }
    f->flags &= ~(NCSI_F_INDEF | NCSI_F_CREATED);
    ncsi_file_modes(f);
    return NCS_NOERR;
}

int ncs__enddef(int ncid, size_t h_minfree, size_t v_align, size_t v_minfree,
                size_t r_align)
{
    ncs_file *f = ncsi_file_get(ncid);
    if (f == NULL)
        return NCS_ERR(NCS_EBADID);
    if (!(f->flags & NCSI_F_INDEF))
        return NCS_ERR(NCS_ENOTINDEFINE);
    return do_enddef(f, h_minfree, v_align, v_minfree, r_align);
}

int ncs_enddef(int ncid)
{
    return ncs__enddef(ncid, 0, NCSI_ALIGN_DEFAULT, 0, NCSI_ALIGN_DEFAULT);
}

int ncs_sync(int ncid)
{
    ncs_file *f = ncsi_file_get(ncid);
    if (f == NULL)
        return NCS_ERR(NCS_EBADID);
    if (f->flags & NCSI_F_INDEF)
        return NCS_ERR(NCS_EINDEFINE);
    return ncsi_store_sync(f);
}

static int release(ncs_file *f, int abort)
{
    int pending = f->nreqs > 0;
    int status = ncsi_store_close(f, abort);
    ncsi_reqs_drop(f);
    if (status == NCS_NOERR && pending && !abort)
        status = NCS_ERR(NCS_EPENDING);
    ncsi_file_unregister(f);
    file_free(f);
    return status;
}

int ncs_abort(int ncid)
{
    ncs_file *f = ncsi_file_get(ncid);
    if (f == NULL)
        return NCS_ERR(NCS_EBADID);
    if (f->flags & NCSI_F_CREATED) {
        char *path = ncsi_strdup(f->path);
        int status = release(f, 1);
        if (path != NULL) {
            unlink(path);
            free(path);
        }
        return status;
    }
    if (f->flags & NCSI_F_INDEF) {
        /* back to the model before ncs_redef, which keeps the data-mode
         * changes made before it (a header still to write: HDIRTY) */
        ncsi_model_free(&f->model);
        f->model = *f->old;
        free(f->old);
        f->old = NULL;
        f->flags &= ~NCSI_F_INDEF;
    }
    /* in data mode (as after the restore) netCDF-C syncs and closes,
     * without extending a nofill file to the length its header implies */
    return release(f, 1);
}

int ncs_close(int ncid)
{
    ncs_file *f = ncsi_file_get(ncid);
    if (f == NULL)
        return NCS_ERR(NCS_EBADID);
    if (f->flags & NCSI_F_INDEF) {
        int status = do_enddef(f, 0, NCSI_ALIGN_DEFAULT, 0, NCSI_ALIGN_DEFAULT);
        if (status != NCS_NOERR) {
            ncs_abort(ncid);
            return status;
        }
    }
    return release(f, 0);
}

int ncs_set_fill(int ncid, int fillmode, int *old_modep)
{
    ncs_file *f = ncsi_file_get(ncid);
    int old;
    if (f == NULL)
        return NCS_ERR(NCS_EBADID);
    if (!(f->flags & NCSI_F_WRITE))
        return NCS_ERR(NCS_EPERM);
    old = (f->flags & NCSI_F_NOFILL) ? NCS_NOFILL : NCS_FILL;
    if (fillmode == NCS_NOFILL) {
        f->flags |= NCSI_F_NOFILL;
    } else if (fillmode == NCS_FILL) {
        /* Back to fill mode in data mode: as netCDF-C, the header (or the
         * record count) changed since the last write reaches the file now.
         * Not in define mode, where netCDF-C would write a header whose
         * layout enddef has not made yet. */
        if (old == NCS_NOFILL && !(f->flags & NCSI_F_INDEF)) {
            int status = ncsi_store_flush(f);
            if (status != NCS_NOERR)
                return status;
        }
        f->flags &= ~NCSI_F_NOFILL;
    } else {
        return NCS_ERR(NCS_EINVAL);
    }
    /* in a classic file every variable takes the file's mode (each may
     * then be set apart with ncs_def_var_fill), as in netCDF-C, whose
     * netCDF-4 code gives the mode to variables defined later only */
    for (int i = 0; f->version != 4 && i < f->model.nvars; i++)
        f->model.vars[i].nofill = fillmode == NCS_NOFILL;
    if (old_modep != NULL)
        *old_modep = old;
    return NCS_NOERR;
}

/* ---- inquiry ------------------------------------------------------------------------ */

int ncs_inq(int ncid, int *ndimsp, int *nvarsp, int *nattsp, int *unlimdimidp)
{
    ncs_file *f = ncsi_file_get(ncid);
    if (f == NULL)
        return NCS_ERR(NCS_EBADID);
    if (ndimsp != NULL)
        *ndimsp = f->model.ndims;
    if (nvarsp != NULL)
        *nvarsp = f->model.nvars;
    if (nattsp != NULL)
        *nattsp = f->model.gatts.n;
    if (unlimdimidp != NULL)
        *unlimdimidp = f->model.unlimdim;
    return NCS_NOERR;
}

int ncs_inq_ndims(int ncid, int *ndimsp)
{
    return ncs_inq(ncid, ndimsp, NULL, NULL, NULL);
}

int ncs_inq_nvars(int ncid, int *nvarsp)
{
    return ncs_inq(ncid, NULL, nvarsp, NULL, NULL);
}

int ncs_inq_natts(int ncid, int *nattsp)
{
    return ncs_inq(ncid, NULL, NULL, nattsp, NULL);
}

int ncs_inq_unlimdim(int ncid, int *unlimdimidp)
{
    return ncs_inq(ncid, NULL, NULL, NULL, unlimdimidp);
}

int ncs_inq_format(int ncid, int *formatp)
{
    ncs_file *f = ncsi_file_get(ncid);
    if (f == NULL)
        return NCS_ERR(NCS_EBADID);
    if (formatp != NULL)
        *formatp = f->version == 1 ? NCS_FORMAT_CLASSIC
                 : f->version == 2 ? NCS_FORMAT_64BIT_OFFSET
                 : f->version == 5 ? NCS_FORMAT_64BIT_DATA
                 : (f->flags & NCSI_F_NC4) ? NCS_FORMAT_NETCDF4 : NCS_FORMAT_NETCDF4_CLASSIC;
    return NCS_NOERR;
}

int ncs_inq_path(int ncid, size_t *pathlenp, char *path)
{
    ncs_file *f = ncsi_file_get(ncid);
    if (f == NULL)
        return NCS_ERR(NCS_EBADID);
    size_t len = strlen(f->path);
    if (pathlenp != NULL)
        *pathlenp = len;
    if (path != NULL)
        memcpy(path, f->path, len + 1);
    return NCS_NOERR;
}

int ncs_inq_indef(int ncid, int *indefp)
{
    ncs_file *f = ncsi_file_get(ncid);
    if (f == NULL)
        return NCS_ERR(NCS_EBADID);
    if (indefp != NULL)
        *indefp = (f->flags & NCSI_F_INDEF) != 0;
    return NCS_NOERR;
}
