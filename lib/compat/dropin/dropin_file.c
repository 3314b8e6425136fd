/*
 * dropin_file.c -- the drop-in's calls that do more than route one ncid
 * (dropin.h): who serves a file at its open or create, the calls that
 * return ids or take two, and the calls without an id.
 *
 * Who serves a file (NCSLAB_DROPIN unset or "auto"; doc/dropin.md):
 * - ncslab opens every file it can read: CDF-1, CDF-2, CDF-5 and netCDF-4
 *   files of the classic data model, also those not marked classic-model.
 * - ncslab creates the classic formats and netCDF-4 files of both models.
 *   A netCDF-4 file not marked classic-model that ncslab writes (created,
 *   or opened for writing) is handed to netCDF-C when the writer asks for
 *   what only netCDF-C represents (groups, strings, user types, ...:
 *   dropin_handover.c).  The v2 API's ncopen and nccreate of such files
 *   still go to netCDF-C: v2 calls report errors by printing and exiting,
 *   before the drop-in could hand the file over.
 * - what ncslab answers NC_ENOTNC (not a format it reads: HDF4, plain
 *   HDF5, a user format) or NC_ENOTBUILT (a feature it lacks: groups,
 *   strings, user types, a URL) goes to netCDF-C, and so does a netCDF-4
 *   file with a filter ncslab does not run (szip, a plugin's).
 * NCSLAB_DROPIN=ncslab serves everything by ncslab (and never loads
 * netCDF-C), NCSLAB_DROPIN=netcdf everything by netCDF-C.  Without
 * netCDF-C, ncslab's own answer stands.
 */
#include "config.h"
#include "dropin.h"
#include "ncslab/netcdf_meta.h"
#include "ncslab.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef NCSD_NETCDF_C
#define NCSD_NETCDF_C ""
#endif

/* Settings netCDF-C keeps for the process, remembered until it loads. */
static struct {
    int format_set, format;
    int cache_set; size_t cache_size, cache_nelems; float cache_preemption;
    int align_set, align_threshold, align_alignment;
    int log_set, log_level;
} pending;

/* The default format of creates, as ncslab's nc_set_default_format keeps it. */
static int default_format = NC_FORMAT_CLASSIC;

void ncsd_replay(void)
{
    int old;
    if (pending.format_set && ncsd_real.nc_set_default_format)
        ncsd_real.nc_set_default_format(pending.format, &old);
    if (pending.cache_set && ncsd_real.nc_set_chunk_cache)
        ncsd_real.nc_set_chunk_cache(pending.cache_size, pending.cache_nelems,
                                     pending.cache_preemption);
    if (pending.align_set && ncsd_real.nc_set_alignment)
        ncsd_real.nc_set_alignment(pending.align_threshold, pending.align_alignment);
    if (pending.log_set && ncsd_real.nc_set_log_level)
        ncsd_real.nc_set_log_level(pending.log_level);
}

/* Gives the file a drop-in id, or closes it again if there is none. */
static int bind(int side, int status, int real, int *ncidp)
{
    if (status != NC_NOERR)
        return status;
    status = ncsd_bind(side, real, ncidp);
    if (status != NC_NOERR) {
        if (side == NCSD_NCSLAB)
            ncsv3_nc_abort(real);
        else
            ncsd_real.nc_abort(real);
    }
    return status;
}

/* A URL, that only netCDF-C opens: scheme "://" ... */
static int is_url(const char *path)
{
    if (path == NULL)
        return 0;
    const char *p = path;
    while ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
           (*p >= '0' && *p <= '9') || *p == '+' || *p == '-' || *p == '.')
        p++;
    return p > path && strncmp(p, "://", 3) == 0;
}

/* Whether path starts like an HDF5 file (its signature at byte 0, or
 * after a user block of 512, 1024, 2048 ... bytes). */
static int looks_hdf5(const char *path)
{
    static const unsigned char sig[8] = { 0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n' };
    unsigned char b[8];
    int hdf5 = 0;
    FILE *f = path != NULL ? fopen(path, "rb") : NULL;
    if (f == NULL)
        return 0;
    for (long at = 0; !hdf5 && at <= 1L << 20; at = at ? at * 2 : 512)
        hdf5 = fseek(f, at, SEEK_SET) == 0 && fread(b, 1, 8, f) == 8 && memcmp(b, sig, 8) == 0;
    fclose(f);
    return hdf5;
}

/* Whether ncslab runs every filter of every variable of its file real:
 * a file with another (szip, a plugin's) is one netCDF-C may read, with
 * HDF5's filter, and ncslab cannot. */
static int runs_filters(int real)
{
    int nvars, n, format;
    unsigned ids[NCS_MAX_FILTERS];
    if (ncsv3_nc_inq_format(real, &format) != NC_NOERR ||
        (format != NC_FORMAT_NETCDF4 && format != NC_FORMAT_NETCDF4_CLASSIC))
        return 1;
    if (ncs_inq_nvars(real, &nvars) != NCS_NOERR)
        return 1;
    for (int v = 0; v < nvars; v++) {
        if (ncs_inq_var_filter_ids(real, v, &n, ids) != NCS_NOERR)
            continue;
        for (int i = 0; i < n; i++)
            if (ids[i] != 1 && ids[i] != 2 && ids[i] != 3 && ids[i] != 32015)
                return 0;
    }
    return 1;
}

/* Whether ncslab's answer status sends an open to netCDF-C. */
static int not_ncslabs(int status)
{
    return status == NC_ENOTNC || status == NC_ENOTBUILT;
}

/* One open, by either side: the arguments of the widest form. */
struct open_args {
    const char *path; int mode; size_t *hint;    /* nc__open */
    int mem; size_t size; void *memory;          /* nc_open_mem */
    NC_memio *memio;                             /* nc_open_memio */
    int v2;                                      /* ncopen */
};

/* NCSLAB_DROPIN_TRACE: who serves an open or create. */
static int traced(const char *call, const char *path, int side, int status, int *ncidp)
{
    if (ncsd_tracing)
        ncsd_tracef("%s(%s) %s -> %d (id %d)\n", call, path ? path : "(null)",
                    side == NCSD_NETCDF ? "netCDF-C" : "ncslab", status,
                    status == NC_NOERR && ncidp ? *ncidp : -1);
    return status;
}

/* Notes the writer of the netCDF-4 file of drop-in id ncid, which netCDF-C
 * may have to take over (dropin_handover.c): the modes to open it with,
 * or create it with again. */
static int note_writer(int status, int ncid, const char *path, int mode, int cmode)
{
    struct ncsd_writer *w;
    if (status != NC_NOERR)
        return status;
    w = calloc(1, sizeof *w);
    if (w != NULL && (w->path = strdup(path)) != NULL) {
        w->mode = mode;
        w->cmode = cmode;
        ncsd_note_writer(ncid, w);
    } else {
        /* without a note the file stays ncslab's, which answers the
         * enhanced model's calls with NC_ENOTBUILT */
        free(w);
    }
    return status;
}

static int open_ncslab(const struct open_args *a, int *real)
{
    if (a->memio != NULL)
        return ncsv3_nc_open_memio(a->path, a->mode, a->memio, real);
    if (a->mem)
        return ncsv3_nc_open_mem(a->path, a->mode, a->size, a->memory, real);
    return ncsv3_nc__open(a->path, a->mode, a->hint, real);
}

static int open_netcdf(const struct open_args *a, int *real)
{
    if (!ncsd_netcdf())
        return NC_ENOTBUILT;
    if (a->memio != NULL)
        return ncsd_real.nc_open_memio ? ncsd_real.nc_open_memio(a->path, a->mode, a->memio, real)
                                       : NC_ENOTBUILT;
    if (a->mem)
        return ncsd_real.nc_open_mem ? ncsd_real.nc_open_mem(a->path, a->mode, a->size,
                                                             a->memory, real)
                                     : NC_ENOTBUILT;
    return ncsd_real.nc__open(a->path, a->mode, a->hint, real);
}

static int bind_netcdf(const struct open_args *a, int *ncidp)
{
    int real = -1, status = open_netcdf(a, &real);
    return traced("open", a->path, NCSD_NETCDF, bind(NCSD_NETCDF, status, real, ncidp), ncidp);
}

static int open_any(const struct open_args *a, int *ncidp)
{
    int real = -1, status, format = -1, nc4_writer = 0;
    int policy = ncsd_policy();

    if (ncidp == NULL)      /* both libraries answer this before the path */
        return a->memio || a->mem ? ncsv3_nc_open_mem(a->path, a->mode, a->size, a->memory, NULL)
                                  : ncsv3_nc__open(a->path, a->mode, a->hint, NULL);
    if (policy == NCSD_ONLY_NETCDF || (policy == NCSD_AUTO && is_url(a->path) && ncsd_netcdf()))
        return bind_netcdf(a, ncidp);
    if (policy == NCSD_AUTO && (a->mode & NC_WRITE) && !a->mem && looks_hdf5(a->path)) {
        /* a netCDF-4 file opened for writing: asked read-only first, so
         * that a file netCDF-C is to serve is not opened for writing twice */
        status = ncsv3_nc_open(a->path, NC_NOWRITE, &real);
        if (status == NC_NOERR) {
            if (ncsv3_nc_inq_format(real, &format) != NC_NOERR)
                format = -1;
            ncsv3_nc_close(real);
            nc4_writer = format == NC_FORMAT_NETCDF4;
            if (nc4_writer && a->v2 && ncsd_netcdf())
                return bind_netcdf(a, ncidp);
        } else if (not_ncslabs(status) && ncsd_netcdf()) {
            return bind_netcdf(a, ncidp);
        }
    }
    status = open_ncslab(a, &real);
    if (policy == NCSD_ONLY_NCSLAB)
        return traced("open", a->path, NCSD_NCSLAB, bind(NCSD_NCSLAB, status, real, ncidp), ncidp);
    if (not_ncslabs(status) && ncsd_netcdf())
        return bind_netcdf(a, ncidp);
    if (status == NC_NOERR && !runs_filters(real) && ncsd_netcdf()) {
        ncsv3_nc_close(real);
        return bind_netcdf(a, ncidp);
    }
    status = bind(NCSD_NCSLAB, status, real, ncidp);
    if (nc4_writer && status == NC_NOERR)   /* *ncidp is set only then */
        note_writer(status, *ncidp, a->path, a->mode, 0);   /* never in define mode here */
    return traced("open", a->path, NCSD_NCSLAB, status, ncidp);
}

int nc__open(const char *path, int mode, size_t *chunksizehintp, int *ncidp)
{
    struct open_args a = { path, mode, chunksizehintp, 0, 0, NULL, NULL, 0 };
    return open_any(&a, ncidp);
}

int nc_open(const char *path, int mode, int *ncidp)
{
    return nc__open(path, mode, NULL, ncidp);
}

int nc__open_mp(const char *path, int mode, int basepe, size_t *chunksizehintp, int *ncidp)
{
    if (basepe != 0)
        return ncsv3_nc__open_mp(path, mode, basepe, chunksizehintp, ncidp);
    return nc__open(path, mode, chunksizehintp, ncidp);
}

int nc_open_mem(const char *path, int mode, size_t size, void *memory, int *ncidp)
{
    struct open_args a = { path, mode, NULL, 1, size, memory, NULL, 0 };
    return open_any(&a, ncidp);
}

int nc_open_memio(const char *path, int mode, NC_memio *params, int *ncidp)
{
    struct open_args a = { path, mode, NULL, 1, 0, NULL, params, 0 };
    if (params == NULL)
        return ncsv3_nc_open_memio(path, mode, params, ncidp);
    return open_any(&a, ncidp);
}

/* Whether a create of cmode makes a netCDF-4 file of the enhanced model. */
static int enhanced(int cmode)
{
    if (cmode & NC_NETCDF4)
        return !(cmode & NC_CLASSIC_MODEL);
    if (cmode & (NC_64BIT_OFFSET | NC_64BIT_DATA | NC_CLASSIC_MODEL))
        return 0;
    return default_format == NC_FORMAT_NETCDF4;
}

/* One create, by either side. */
struct create_args {
    const char *path; int cmode; size_t initialsz; size_t *hint; int mem;
    int v2;         /* nccreate */
};

/* Whether an enhanced-model create is served by ncslab, netCDF-C taking
 * the file over if the writer goes beyond classic content: a file on
 * disk (not in memory, not diskless), created through the v3 API. */
static int handed_later(const struct create_args *a)
{
    return !a->mem && !a->v2 && a->path != NULL && !is_url(a->path) &&
           !(a->cmode & (NC_DISKLESS | NC_INMEMORY | NC_UDF0 | NC_UDF1));
}

static int create_any(const struct create_args *a, int *ncidp)
{
    int real = -1, status;
    int policy = ncsd_policy();
    int nc4_writer = policy == NCSD_AUTO && enhanced(a->cmode) && ncidp != NULL &&
                     handed_later(a);
    int side = policy == NCSD_ONLY_NETCDF ? NCSD_NETCDF
             : policy == NCSD_ONLY_NCSLAB || nc4_writer ? NCSD_NCSLAB
             : ((enhanced(a->cmode) || (a->cmode & (NC_UDF0 | NC_UDF1))) && ncidp != NULL &&
                ncsd_netcdf()) ? NCSD_NETCDF : NCSD_NCSLAB;

    if (side == NCSD_NETCDF) {
        if (!ncsd_netcdf())
            return NC_ENOTBUILT;
        status = a->mem ? (ncsd_real.nc_create_mem
                           ? ncsd_real.nc_create_mem(a->path, a->cmode, a->initialsz, &real)
                           : NC_ENOTBUILT)
                        : ncsd_real.nc__create(a->path, a->cmode, a->initialsz, a->hint, &real);
    } else {
        status = a->mem ? ncsv3_nc_create_mem(a->path, a->cmode, a->initialsz,
                                              ncidp ? &real : NULL)
                        : ncsv3_nc__create(a->path, a->cmode, a->initialsz, a->hint,
                                           ncidp ? &real : NULL);
    }
    status = bind(side, status, real, ncidp);
    if (nc4_writer && status == NC_NOERR)   /* *ncidp is set only then */
        note_writer(status, *ncidp, a->path, NC_WRITE | (a->cmode & NC_SHARE), a->cmode);
    return traced("create", a->path, side, status, ncidp);
}

int nc__create(const char *path, int cmode, size_t initialsz, size_t *chunksizehintp,
               int *ncidp)
{
    struct create_args a = { path, cmode, initialsz, chunksizehintp, 0, 0 };
    return create_any(&a, ncidp);
}

int nc_create(const char *path, int cmode, int *ncidp)
{
    return nc__create(path, cmode, 0, NULL, ncidp);
}

int nc__create_mp(const char *path, int cmode, size_t initialsz, int basepe,
                  size_t *chunksizehintp, int *ncidp)
{
    if (basepe != 0)
        return ncsv3_nc__create_mp(path, cmode, initialsz, basepe, chunksizehintp, ncidp);
    return nc__create(path, cmode, initialsz, chunksizehintp, ncidp);
}

int nc_create_mem(const char *path, int mode, size_t initialsize, int *ncidp)
{
    struct create_args a = { path, mode, initialsize, NULL, 1, 0 };
    return create_any(&a, ncidp);
}

/* v2: ncopen and nccreate return the id, or -1 with ncerr set. */
int ncopen(const char *path, int mode)
{
    struct open_args a = { path, mode, NULL, 0, 0, NULL, NULL, 1 };
    int ncid, status = open_any(&a, &ncid);
    if (status != NC_NOERR) {
        nc_advise("ncopen", status, "filename \"%s\"", path ? path : "");
        return -1;
    }
    return ncid;
}

int nccreate(const char *path, int cmode)
{
    struct create_args a = { path, cmode, 0, NULL, 0, 1 };
    int ncid, status = create_any(&a, &ncid);
    if (status != NC_NOERR) {
        nc_advise("nccreate", status, "filename \"%s\"", path ? path : "");
        return -1;
    }
    return ncid;
}

/* After a close or an abort on side: the id is forgotten once the side no
 * longer knows it (netCDF-C frees it even on some failed closes). */
static int closed(int ncid, int side, int real, int status)
{
    int format;
    if (status == NC_NOERR ||
        (side == NCSD_NCSLAB ? ncsv3_nc_inq_format(real, &format)
                             : ncsd_real.nc_inq_format(real, &format)) == NC_EBADID)
        ncsd_unbind(ncid);
    return status;
}

int nc_close(int ncid)
{
    int real, side = ncsd_route(ncid, &real);
    if (side == NCSD_NCSLAB)
        return closed(ncid, side, real, ncsv3_nc_close(real));
    if (side == NCSD_NETCDF)
        return closed(ncid, side, real, ncsd_real.nc_close(real));
    return NC_EBADID;
}

int nc_abort(int ncid)
{
    int real, side = ncsd_route(ncid, &real);
    const struct ncsd_writer *w = ncsd_writer(ncid);
    if (side == NCSD_NCSLAB)
        return closed(ncid, side, real, ncsv3_nc_abort(real));
    if (side == NCSD_NETCDF && w != NULL && w->made_as != NULL)
        return closed(ncid, side, real, ncsd_abort_renamed(w, real));
    if (side == NCSD_NETCDF)
        return closed(ncid, side, real, ncsd_real.nc_abort(real));
    return NC_EBADID;
}

int nc_close_memio(int ncid, NC_memio *memio)
{
    int real, side = ncsd_route(ncid, &real);
    if (side == NCSD_NCSLAB)
        return closed(ncid, side, real, ncsv3_nc_close_memio(real, memio));
    if (side == NCSD_NETCDF)
        return closed(ncid, side, real, ncsd_real.nc_close_memio
                                        ? ncsd_real.nc_close_memio(real, memio)
                                        : NC_ENOTBUILT);
    return NC_EBADID;
}

int ncclose(int ncid)
{
    int real, side = ncsd_route(ncid, &real), status;
    if (side == NCSD_NETCDF) {
        ncsd_v2_enter();
        status = ncsd_v2_leave(ncsd_real.ncclose(real));
        closed(ncid, side, real, status == -1 ? ncerr : NC_NOERR);
        return status;
    }
    status = ncsv3_ncclose(real);
    if (side == NCSD_NCSLAB)
        closed(ncid, side, real, status == -1 ? ncerr : NC_NOERR);
    return status;
}

int ncabort(int ncid)
{
    int real, side = ncsd_route(ncid, &real), status;
    if (side == NCSD_NETCDF) {
        ncsd_v2_enter();
        status = ncsd_v2_leave(ncsd_real.ncabort(real));
        closed(ncid, side, real, status == -1 ? ncerr : NC_NOERR);
        return status;
    }
    status = ncsv3_ncabort(real);
    if (side == NCSD_NCSLAB)
        closed(ncid, side, real, status == -1 ? ncerr : NC_NOERR);
    return status;
}

int nc_delete(const char *path)
{
    int status = ncsv3_nc_delete(path);
    if (not_ncslabs(status) && ncsd_policy() != NCSD_ONLY_NCSLAB && ncsd_netcdf())
        status = ncsd_real.nc_delete(path);
    return status;
}

int nc_delete_mp(const char *path, int basepe)
{
    return basepe != 0 ? ncsv3_nc_delete_mp(path, basepe) : nc_delete(path);
}

/* ---- calls that return an ncid of the same file ---- */

#define SAME_FILE_CALL(call_ncslab, call_netcdf, out)                    \
    int real, status, side = ncsd_route(ncid, &real);                   \
    if (side == NCSD_NCSLAB) {                                          \
        status = call_ncslab;                                           \
        if (status != NC_NOERR &&                                       \
            ncsd_recover(ncid, status, &real) == NCSD_NETCDF)           \
            status = call_netcdf;                                       \
    } else if (side == NCSD_NETCDF)                                     \
        status = call_netcdf;                                           \
    else                                                                \
        return NC_EBADID;                                               \
    if (status == NC_NOERR && (out) != NULL)                            \
        *(out) = ncsd_same_file(ncid, *(out));                          \
    return status

int nc_inq_ncid(int ncid, const char *name, int *grp_ncid)
{
    SAME_FILE_CALL(ncsv3_nc_inq_ncid(real, name, grp_ncid),
                   ncsd_real.nc_inq_ncid(real, name, grp_ncid), grp_ncid);
}

int nc_inq_grp_parent(int ncid, int *parent_ncid)
{
    SAME_FILE_CALL(ncsv3_nc_inq_grp_parent(real, parent_ncid),
                   ncsd_real.nc_inq_grp_parent(real, parent_ncid), parent_ncid);
}

int nc_inq_grp_ncid(int ncid, const char *grp_name, int *grp_ncid)
{
    SAME_FILE_CALL(ncsv3_nc_inq_grp_ncid(real, grp_name, grp_ncid),
                   ncsd_real.nc_inq_grp_ncid(real, grp_name, grp_ncid), grp_ncid);
}

int nc_inq_grp_full_ncid(int ncid, const char *full_name, int *grp_ncid)
{
    SAME_FILE_CALL(ncsv3_nc_inq_grp_full_ncid(real, full_name, grp_ncid),
                   ncsd_real.nc_inq_grp_full_ncid(real, full_name, grp_ncid), grp_ncid);
}

int nc_def_grp(int parent_ncid, const char *name, int *new_ncid)
{
    int ncid = parent_ncid;
    SAME_FILE_CALL(ncsv3_nc_def_grp(real, name, new_ncid),
                   ncsd_real.nc_def_grp(real, name, new_ncid), new_ncid);
}

int nc_inq_grps(int ncid, int *numgrps, int *ncids)
{
    int real, status, side = ncsd_route(ncid, &real), n = 0;
    if (side == NCSD_NCSLAB)
        status = ncsv3_nc_inq_grps(real, &n, ncids);
    else if (side == NCSD_NETCDF)
        status = ncsd_real.nc_inq_grps(real, &n, ncids);
    else
        return NC_EBADID;
    if (status == NC_NOERR) {
        if (ncids != NULL)
            for (int i = 0; i < n; i++)
                ncids[i] = ncsd_same_file(ncid, ncids[i]);
        if (numgrps != NULL)
            *numgrps = n;
    }
    return status;
}

/* ---- calls with two ncids ---- */

/* Copies attribute name of (in, varin) to (out, varout) when the two are
 * served by different sides: through its values, as netCDF-C's own
 * nc_copy_att does between files of different formats. */
static int copy_att_across(int in, int varin, const char *name, int out, int varout)
{
    nc_type type;
    size_t len, size;
    int status = nc_inq_att(in, varin, name, &type, &len);
    if (status != NC_NOERR)
        return status;
    if (type == NC_CHAR) {
        char *text = malloc(len ? len : 1);
        if (text == NULL)
            return NC_ENOMEM;
        status = nc_get_att_text(in, varin, name, text);
        if (status == NC_NOERR)
            status = nc_put_att_text(out, varout, name, len, text);
        free(text);
        return status;
    }
    if (type == NC_STRING) {          /* netCDF-C's strings: ncslab answers the put */
        char **strings = calloc(len ? len : 1, sizeof *strings);
        if (strings == NULL)
            return NC_ENOMEM;
        status = nc_get_att(in, varin, name, strings);
        if (status == NC_NOERR) {
            status = nc_put_att(out, varout, name, type, len, strings);
            nc_free_string(len, strings);
        }
        free(strings);
        return status;
    }
    if (type < NC_BYTE || type > NC_STRING)
        return NC_EBADTYPE;           /* a user type: ncslab has none */
    status = nc_inq_type(in, type, NULL, &size);
    if (status != NC_NOERR)
        return status;
    void *values = calloc(len ? len : 1, size);
    if (values == NULL)
        return NC_ENOMEM;
    status = nc_get_att(in, varin, name, values);
    if (status == NC_NOERR)
        status = nc_put_att(out, varout, name, type, len, values);
    free(values);
    return status;
}

int nc_copy_att(int ncid_in, int varid_in, const char *name, int ncid_out, int varid_out)
{
    int in, out;
    int side_in = ncsd_route(ncid_in, &in), side_out = ncsd_route(ncid_out, &out);
    if (side_in == NCSD_NONE || side_out == NCSD_NONE)
        return NC_EBADID;
    if (side_in == side_out && side_in == NCSD_NETCDF)
        return ncsd_real.nc_copy_att(in, varid_in, name, out, varid_out);
    if (side_in == side_out) {
        int status = ncsv3_nc_copy_att(in, varid_in, name, out, varid_out);
        /* the output handed to netCDF-C: a copy across the sides */
        if (status == NC_NOERR || ncsd_recover(ncid_out, status, &out) != NCSD_NETCDF)
            return status;
    }
    return copy_att_across(ncid_in, varid_in, name, ncid_out, varid_out);
}

int ncattcopy(int ncid_in, int varid_in, const char *name, int ncid_out, int varid_out)
{
    int status = nc_copy_att(ncid_in, varid_in, name, ncid_out, varid_out);
    if (status != NC_NOERR) {
        nc_advise("ncattcopy", status, "%s", name ? name : "");
        return -1;
    }
    return 0;
}

/* nc_copy_var between the sides: the definition, the attributes, then the
 * values one outermost index at a time, as netCDF-C copies between files
 * of different formats (the dimensions must exist in the output by name). */
static int copy_var_across(int in, int varid, int out)
{
    char name[NC_MAX_NAME + 1], dname[NC_MAX_NAME + 1];
    nc_type type;
    int ndims, natts, dimids[NC_MAX_VAR_DIMS], odims[NC_MAX_VAR_DIMS], ovar, status;
    size_t len[NC_MAX_VAR_DIMS], size, n = 1;

    status = nc_inq_var(in, varid, name, &type, &ndims, dimids, &natts);
    if (status != NC_NOERR)
        return status;
    for (int i = 0; i < ndims; i++) {
        if ((status = nc_inq_dim(in, dimids[i], dname, &len[i])) != NC_NOERR ||
            (status = nc_inq_dimid(out, dname, &odims[i])) != NC_NOERR)
            return status;
    }
    if ((status = nc_def_var(out, name, type, ndims, odims, &ovar)) != NC_NOERR)
        return status;
    for (int a = 0; a < natts; a++) {
        char aname[NC_MAX_NAME + 1];
        if ((status = nc_inq_attname(in, varid, a, aname)) != NC_NOERR ||
            (status = nc_copy_att(in, varid, aname, out, ovar)) != NC_NOERR)
            return status;
    }
    if ((status = nc_enddef(out)) != NC_NOERR && status != NC_ENOTINDEFINE)
        return status;
    if ((status = nc_inq_type(in, type, NULL, &size)) != NC_NOERR)
        return status;
    for (int i = 1; i < ndims; i++)
        n *= len[i];
    size_t start[NC_MAX_VAR_DIMS] = { 0 }, count[NC_MAX_VAR_DIMS];
    for (int i = 0; i < ndims; i++)
        count[i] = len[i];
    if (ndims > 0)
        count[0] = 1;
    void *buf = malloc(n * size > 0 ? n * size : 1);
    if (buf == NULL)
        return NC_ENOMEM;
    size_t outer = ndims > 0 ? len[0] : 1;
    for (size_t r = 0; r < outer && status == NC_NOERR; r++) {
        start[0] = r;
        status = nc_get_vara(in, varid, start, count, buf);
        if (status == NC_NOERR)
            status = nc_put_vara(out, ovar, start, count, buf);
    }
    free(buf);
    return status == NC_ENOTINDEFINE ? NC_NOERR : status;
}

int nc_copy_var(int ncid_in, int varid, int ncid_out)
{
    int in, out;
    int side_in = ncsd_route(ncid_in, &in), side_out = ncsd_route(ncid_out, &out);
    if (side_in == NCSD_NONE || side_out == NCSD_NONE)
        return NC_EBADID;
    if (side_in == side_out && side_in == NCSD_NETCDF)
        return ncsd_real.nc_copy_var(in, varid, out);
    if (side_in == side_out) {
        int status = ncsv3_nc_copy_var(in, varid, out);
        if (status == NC_NOERR || ncsd_recover(ncid_out, status, &out) != NCSD_NETCDF)
            return status;
    }
    return copy_var_across(ncid_in, varid, ncid_out);
}

int nc_inq_type_equal(int ncid1, nc_type typeid1, int ncid2, nc_type typeid2, int *equal)
{
    int r1, r2;
    int s1 = ncsd_route(ncid1, &r1), s2 = ncsd_route(ncid2, &r2);
    if (s1 == NCSD_NONE || s2 == NCSD_NONE)
        return NC_EBADID;
    if (s1 == s2)
        return s1 == NCSD_NCSLAB ? ncsv3_nc_inq_type_equal(r1, typeid1, r2, typeid2, equal)
                                 : ncsd_real.nc_inq_type_equal(r1, typeid1, r2, typeid2, equal);
    /* Across the sides only atomic types can be equal: ncslab has no others. */
    if (typeid1 <= NC_NAT || typeid1 > NC_STRING || typeid2 <= NC_NAT || typeid2 > NC_STRING)
        return NC_EBADTYPE;
    if (equal != NULL)
        *equal = typeid1 == typeid2;
    return NC_NOERR;
}

/* ---- calls without an id ---- */

const char *nc_inq_libvers(void)
{
    static char text[160];
    if (text[0] == '\0')
        snprintf(text, sizeof text, "%s of ncslab %s (libnetcdf.so.19 drop-in; %s)",
                 NC_VERSION, PACKAGE_VERSION,
                 ncsd_policy() == NCSD_ONLY_NCSLAB || *NCSD_NETCDF_C == '\0'
                 ? "nothing forwarded" : "other files through netCDF-C");
    return text;
}

const char *nc_strerror(int ncerr1)
{
    /* netCDF-C's own words where it is there: programs print them. */
    if (ncsd_policy() != NCSD_ONLY_NCSLAB && ncsd_netcdf() && ncsd_real.nc_strerror)
        return ncsd_real.nc_strerror(ncerr1);
    return ncsv3_nc_strerror(ncerr1);
}

int nc_set_default_format(int format, int *old_formatp)
{
    int status = ncsv3_nc_set_default_format(format, old_formatp);
    if (status == NC_NOERR) {
        default_format = format;
        pending.format_set = 1;
        pending.format = format;
        int old;
        if (ncsd_real.nc_set_default_format)
            ncsd_real.nc_set_default_format(format, &old);
    }
    return status;
}

int nc_set_chunk_cache(size_t size, size_t nelems, float preemption)
{
    int status = ncsv3_nc_set_chunk_cache(size, nelems, preemption);
    if (status == NC_NOERR) {
        pending.cache_set = 1;
        pending.cache_size = size;
        pending.cache_nelems = nelems;
        pending.cache_preemption = preemption;
        if (ncsd_real.nc_set_chunk_cache)
            ncsd_real.nc_set_chunk_cache(size, nelems, preemption);
    }
    return status;
}

int nc_get_chunk_cache(size_t *sizep, size_t *nelemsp, float *preemptionp)
{
    return ncsv3_nc_get_chunk_cache(sizep, nelemsp, preemptionp);
}

int nc_set_alignment(int threshold, int alignment)
{
    int status = ncsv3_nc_set_alignment(threshold, alignment);
    if (status == NC_NOERR) {
        pending.align_set = 1;
        pending.align_threshold = threshold;
        pending.align_alignment = alignment;
        if (ncsd_real.nc_set_alignment)
            ncsd_real.nc_set_alignment(threshold, alignment);
    }
    return status;
}

int nc_get_alignment(int *thresholdp, int *alignmentp)
{
    return ncsv3_nc_get_alignment(thresholdp, alignmentp);
}

int nc_set_log_level(int new_level)
{
    pending.log_set = 1;
    pending.log_level = new_level;
    if (ncsd_real.nc_set_log_level)
        ncsd_real.nc_set_log_level(new_level);
    return ncsv3_nc_set_log_level(new_level);
}

int nc_initialize(void)
{
    return ncsv3_nc_initialize();
}

int nc_finalize(void)
{
    if (ncsd_real.nc_finalize)
        ncsd_real.nc_finalize();
    return ncsv3_nc_finalize();
}

int nc_def_user_format(int mode_flag, NC_Dispatch *dispatch_table, char *magic_number)
{
    if (ncsd_policy() != NCSD_ONLY_NCSLAB && ncsd_netcdf() && ncsd_real.nc_def_user_format)
        return ncsd_real.nc_def_user_format(mode_flag, dispatch_table, magic_number);
    return ncsv3_nc_def_user_format(mode_flag, dispatch_table, magic_number);
}

int nc_inq_user_format(int mode_flag, NC_Dispatch **dispatch_table, char *magic_number)
{
    if (ncsd_policy() != NCSD_ONLY_NCSLAB && ncsd_netcdf() && ncsd_real.nc_inq_user_format)
        return ncsd_real.nc_inq_user_format(mode_flag, dispatch_table, magic_number);
    return ncsv3_nc_inq_user_format(mode_flag, dispatch_table, magic_number);
}

/* Only netCDF-C's reads hand out vlens and strings. */
int nc_free_vlen(nc_vlen_t *vl)
{
    return ncsd_real.nc_free_vlen ? ncsd_real.nc_free_vlen(vl) : ncsv3_nc_free_vlen(vl);
}

int nc_free_vlens(size_t len, nc_vlen_t vlens[])
{
    return ncsd_real.nc_free_vlens ? ncsd_real.nc_free_vlens(len, vlens)
                                   : ncsv3_nc_free_vlens(len, vlens);
}

int nc_free_string(size_t len, char **data)
{
    return ncsd_real.nc_free_string ? ncsd_real.nc_free_string(len, data)
                                    : ncsv3_nc_free_string(len, data);
}

int nctypelen(nc_type datatype)
{
    return ncsv3_nctypelen(datatype);
}

void nc_advise(const char *routine_name, int err, const char *fmt, ...)
{
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt ? fmt : "", ap);
    va_end(ap);
    ncsv3_nc_advise(routine_name, err, "%s", text);
}

/* v2's ncinquire answers the file's id: the drop-in's, not the side's. */
int ncinquire(int ncid, int *ndimsp, int *nvarsp, int *nattsp, int *recdimp)
{
    int real, status, side = ncsd_route(ncid, &real);
    if (side == NCSD_NETCDF) {
        ncsd_v2_enter();
        status = ncsd_v2_leave(ncsd_real.ncinquire(real, ndimsp, nvarsp, nattsp, recdimp));
    } else {
        status = ncsv3_ncinquire(real, ndimsp, nvarsp, nattsp, recdimp);
    }
    return status == -1 ? -1 : ncid;
}
