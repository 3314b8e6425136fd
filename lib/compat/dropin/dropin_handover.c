/*
 * dropin_handover.c -- netCDF-4 files of the enhanced model's format
 * written by ncslab until the writer asks for the enhanced model, then
 * by netCDF-C (dropin.h, doc/dropin.md).
 *
 * A create with NC_NETCDF4 and without NC_CLASSIC_MODEL, and an open for
 * writing of a netCDF-4 file that ncslab reads (so one with classic
 * content only), are served by ncslab, which writes such files as
 * netCDF-C does while they hold classic-model content.  The writer may go
 * further: a group, a string, a user type, a second unlimited dimension,
 * an unsigned type.  ncslab answers those with an error netCDF-C does not
 * give for the format (ncsd_hands_over), and the file is then handed to
 * netCDF-C, the program's ncid unchanged, and the call made again there.
 * How depends on the define mode, so that netCDF-C ends up with the file
 * in the state it would have had serving it from the start:
 *
 * - In the create's define mode (the only define mode ncslab keeps such a
 *   file in, below), nothing is in the file yet: netCDF-C makes the
 *   variables' datasets only when the definitions end, and until then
 *   takes storage settings for them.  The definitions are read from
 *   ncslab, the file aborted there (which deletes it) and created again
 *   by netCDF-C with the same mode, and the definitions replayed in id
 *   order: dimensions, variables with the storage settings the program
 *   made (noted as it made them, so that defaults stay defaults), the
 *   attributes.  The ids are then the same.
 * - In data mode, everything defined is in the file, for netCDF-C as for
 *   ncslab: the file is closed in ncslab and opened for writing in
 *   netCDF-C.
 *
 * - In define mode again (after nc_redef, or a definition in data mode,
 *   for which ncslab enters define mode as netCDF-C does by itself for
 *   the format): as in data mode, ncslab's close ending it, and netCDF-C
 *   put in define mode (nc_redef) if the program had asked for it.
 *   netCDF-C then holds the variables defined since as made, which a
 *   storage setting for one of them after the hand-over finds (its
 *   NC_ELATEDEF), and keeps those definitions on an nc_abort: where a
 *   program defining a group or string in a define mode would part ways
 *   with netCDF-C serving it from the start.
 */
#include "config.h"
#include "dropin.h"
#include "ncslab.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ncsd_hands_over(int status)
{
    switch (status) {
    case NC_ENOTBUILT:       /* groups, user types */
    case NC_ESTRICTNC3:      /* strings, the unsigned and 64-bit types */
    case NC_EUNLIMIT:        /* a second unlimited dimension */
    case NC_ENOTINDEFINE:    /* netCDF-C enters define mode by itself */
    case NC_EINDEFINE:
    case NC_ENOFILTER:       /* netCDF-C may have the plugin */
        return 1;
    default:
        return 0;
    }
}

void ncsd_note_setting(int ncid, int varid, int kind)
{
    struct ncsd_writer *w = ncsd_writer(ncid);
    if (w == NULL || varid < 0)
        return;
    if (varid >= w->nsettings) {
        int n = varid + 16;
        unsigned char *s = realloc(w->settings, (size_t)n);
        if (s == NULL) {
            w->lost = 1;    /* a replay could not be faithful: the file is closed instead */
            return;
        }
        memset(s + w->nsettings, 0, (size_t)(n - w->nsettings));
        w->settings = s;
        w->nsettings = n;
    }
    w->settings[varid] |= (unsigned char)kind;
}

/* ---- replaying the definitions of the create's define mode ---- */

/* Every attribute of variable varid (NC_GLOBAL too) of ncslab's file
 * ours, put in netCDF-C's file theirs in the same order. */
static int replay_atts(int ours, int theirs, int varid)
{
    int natts, status = varid == NC_GLOBAL ? ncsv3_nc_inq_natts(ours, &natts)
                                           : ncsv3_nc_inq_varnatts(ours, varid, &natts);
    for (int a = 0; status == NC_NOERR && a < natts; a++) {
        char name[NC_MAX_NAME + 1];
        nc_type type;
        size_t len, size;
        void *values = NULL;
        if ((status = ncsv3_nc_inq_attname(ours, varid, a, name)) != NC_NOERR ||
            (status = ncsv3_nc_inq_att(ours, varid, name, &type, &len)) != NC_NOERR ||
            (status = ncsv3_nc_inq_type(ours, type, NULL, &size)) != NC_NOERR)
            break;
        values = malloc(len * size > 0 ? len * size : 1);
        if (values == NULL)
            return NC_ENOMEM;
        status = ncsv3_nc_get_att(ours, varid, name, values);
        if (status == NC_NOERR)
            status = ncsd_real.nc_put_att(theirs, varid, name, type, len, values);
        free(values);
    }
    return status;
}

/* The storage settings the program made for variable v (kinds, a set of
 * NCSD_SET_*), as ncslab holds them, made again in netCDF-C. */
static int replay_settings(int ours, int theirs, int v, int kinds, nc_type type)
{
    int status = NC_NOERR;
    if (kinds & NCSD_SET_CHUNKING) {
        int storage;
        size_t sizes[NC_MAX_VAR_DIMS];
        status = ncsv3_nc_inq_var_chunking(ours, v, &storage, sizes);
        if (status == NC_NOERR)
            status = ncsd_real.nc_def_var_chunking(theirs, v, storage, sizes);
    }
    if (status == NC_NOERR && (kinds & NCSD_SET_FILTER)) {
        size_t n = 0, nparams;
        unsigned ids[NCS_MAX_FILTERS], params[32];
        status = ncsv3_nc_inq_var_filter_ids(ours, v, &n, ids);
        for (size_t i = 0; status == NC_NOERR && i < n; i++) {
            if (ids[i] == 1 || ids[i] == 2 || ids[i] == 3)
                continue;   /* deflate, shuffle, Fletcher-32: their own calls below */
            status = ncsv3_nc_inq_var_filter_info(ours, v, ids[i], &nparams, NULL);
            if (status == NC_NOERR && nparams > sizeof params / sizeof params[0])
                status = NC_ENOMEM;
            if (status == NC_NOERR)
                status = ncsv3_nc_inq_var_filter_info(ours, v, ids[i], &nparams, params);
            if (status == NC_NOERR)
                status = ncsd_real.nc_def_var_filter(theirs, v, ids[i], nparams, params);
        }
    }
    if (status == NC_NOERR && (kinds & NCSD_SET_DEFLATE)) {
        int shuffle, deflate, level;
        status = ncsv3_nc_inq_var_deflate(ours, v, &shuffle, &deflate, &level);
        if (status == NC_NOERR)
            status = ncsd_real.nc_def_var_deflate(theirs, v, shuffle, deflate, level);
    }
    if (status == NC_NOERR && (kinds & NCSD_SET_FLETCHER32)) {
        int on;
        status = ncsv3_nc_inq_var_fletcher32(ours, v, &on);
        if (status == NC_NOERR)
            status = ncsd_real.nc_def_var_fletcher32(theirs, v, on);
    }
    if (status == NC_NOERR && (kinds & NCSD_SET_ENDIAN)) {
        int endian;
        status = ncsv3_nc_inq_var_endian(ours, v, &endian);
        if (status == NC_NOERR)
            status = ncsd_real.nc_def_var_endian(theirs, v, endian);
    }
    if (status == NC_NOERR && (kinds & NCSD_SET_QUANTIZE)) {
        int mode, nsd;
        status = ncsv3_nc_inq_var_quantize(ours, v, &mode, &nsd);
        if (status == NC_NOERR)
            status = ncsd_real.nc_def_var_quantize(theirs, v, mode, nsd);
    }
    if (status == NC_NOERR && (kinds & NCSD_SET_FILL)) {
        int nofill;
        size_t size;
        unsigned char value[16];        /* the widest atomic type is 8 bytes */
        status = ncsv3_nc_inq_type(ours, type, NULL, &size);
        if (status == NC_NOERR && size > sizeof value)
            status = NC_EBADTYPE;
        if (status == NC_NOERR)
            status = ncsv3_nc_inq_var_fill(ours, v, &nofill, value);
        if (status == NC_NOERR)
            status = ncsd_real.nc_def_var_fill(theirs, v, nofill, nofill ? NULL : value);
    }
    return status;
}

/* The definitions of ncslab's file ours made in netCDF-C's new file
 * theirs: dimensions, variables and attributes in id order. */
static int replay(int ours, int theirs, const struct ncsd_writer *w)
{
    int ndims, nvars, nunlim, unlim[NC_MAX_DIMS], id, status;

    if ((status = ncsv3_nc_inq(ours, &ndims, &nvars, NULL, NULL)) != NC_NOERR ||
        (status = ncsv3_nc_inq_unlimdims(ours, &nunlim, unlim)) != NC_NOERR)
        return status;
    for (int d = 0; d < ndims; d++) {
        char name[NC_MAX_NAME + 1];
        size_t len;
        int unlimited = 0;
        for (int i = 0; i < nunlim; i++)
            unlimited |= unlim[i] == d;
        if ((status = ncsv3_nc_inq_dim(ours, d, name, &len)) != NC_NOERR ||
            (status = ncsd_real.nc_def_dim(theirs, name, unlimited ? NC_UNLIMITED : len,
                                           &id)) != NC_NOERR)
            return status;
        if (id != d)
            return NC_EBADDIM;
    }
    if ((status = replay_atts(ours, theirs, NC_GLOBAL)) != NC_NOERR)
        return status;
    for (int v = 0; v < nvars; v++) {
        char name[NC_MAX_NAME + 1];
        nc_type type;
        int nd, dimids[NC_MAX_VAR_DIMS];
        if ((status = ncsv3_nc_inq_var(ours, v, name, &type, &nd, dimids, NULL)) != NC_NOERR ||
            (status = ncsd_real.nc_def_var(theirs, name, type, nd, dimids, &id)) != NC_NOERR)
            return status;
        if (id != v)
            return NC_ENOTVAR;
        if ((status = replay_settings(ours, theirs, v, v < w->nsettings ? w->settings[v] : 0,
                                      type)) != NC_NOERR ||
            (status = replay_atts(ours, theirs, v)) != NC_NOERR)
            return status;
    }
    return NC_NOERR;
}

/* The create's define mode: the definitions replayed into a new netCDF-C
 * file; ncslab's is aborted, which deletes it.  If netCDF-C's file then
 * cannot take the program's name, no side holds the file of drop-in id
 * ncid any more. */
static int hand_over_defined(int ncid, int ours, struct ncsd_writer *w, int fill,
                             int *theirs)
{
    int status, old;
    /* the new file cannot be made while ncslab's is there; its
     * definitions are read before its abort, from a second file of the
     * same definitions made by netCDF-C under a temporary name, so that
     * a failure leaves ncslab's file as it was */
    size_t n = strlen(w->path);
    char *tmp = malloc(n + 32);
    if (tmp == NULL)
        return NC_ENOMEM;
    snprintf(tmp, n + 32, "%s.ncslab-handover", w->path);
    status = ncsd_real.nc_create(tmp, (w->cmode & ~NC_NOCLOBBER) | NC_CLOBBER, theirs);
    if (status == NC_NOERR) {
        status = replay(ours, *theirs, w);
        if (status == NC_NOERR && fill != NC_FILL)
            status = ncsd_real.nc_set_fill(*theirs, fill, &old);
        if (status != NC_NOERR) {
            ncsd_real.nc_abort(*theirs);
            remove(tmp);
        }
    }
    if (status == NC_NOERR) {
        /* netCDF-C's file, in its create's define mode, takes the
         * program's name: nothing is written in it until the definitions
         * end, so renaming it under netCDF-C is safe */
        ncsv3_nc_abort(ours);
        if (rename(tmp, w->path) != 0) {
            ncsd_real.nc_abort(*theirs);
            remove(tmp);
            ncsd_rebind(ncid, NCSD_NCSLAB, NCSD_LOST);
            status = NC_EPERM;
        }
    }
    if (status == NC_NOERR)
        w->made_as = tmp;       /* netCDF-C's name of it, for nc_abort */
    else
        free(tmp);
    return status;
}

int ncsd_abort_renamed(const struct ncsd_writer *w, int real)
{
    /* netCDF-C deletes the file it made, by its name, if it is still in
     * its create's define mode */
    int moved = rename(w->path, w->made_as) == 0;
    int status = ncsd_real.nc_abort(real);
    if (moved && rename(w->made_as, w->path) != 0 && errno != ENOENT)
        status = NC_EPERM;
    return status;
}

/* Data mode: everything is in the file; closed in ncslab, opened in
 * netCDF-C.  If netCDF-C cannot open it, ncslab opens it again. */
static int hand_over_written(int ncid, int ours, const struct ncsd_writer *w, int fill,
                             int *theirs)
{
    int status = ncsv3_nc_close(ours), old;
    if (status != NC_NOERR && ncsv3_nc_inq_format(ours, &old) != NC_EBADID) {
        ncsv3_nc_enddef(ours);          /* still open: back in data mode */
        if (fill != NC_FILL)
            ncsv3_nc_set_fill(ours, fill, &old);
        return status;
    }
    if (status == NC_NOERR)
        status = ncsd_real.nc_open(w->path, w->mode, theirs);
    if (status == NC_NOERR) {
        if (fill != NC_FILL)
            ncsd_real.nc_set_fill(*theirs, fill, &old);
        return NC_NOERR;
    }
    if (ncsv3_nc_open(w->path, w->mode, &ours) == NC_NOERR) {
        if (fill != NC_FILL)
            ncsv3_nc_set_fill(ours, fill, &old);
        ncsd_rebind(ncid, NCSD_NCSLAB, ours);
    } else {
        ncsd_rebind(ncid, NCSD_NCSLAB, NCSD_LOST);
    }
    return status;
}

/* Whether ncslab's file ours, of a writer, is in define mode (in which
 * nc_redef answers NC_EINDEFINE); 0 when it is not, the file then in
 * define mode (which the close of hand_over_written ends), -1 when
 * nc_redef fails otherwise. */
static int in_define_mode(int ours)
{
    int status = ncsv3_nc_redef(ours);
    return status == NC_EINDEFINE ? 1 : status == NC_NOERR ? 0 : -1;
}

/* Hands over the file of drop-in id ncid, ncslab's file ours, in define
 * mode or not (indef). */
static int hand_over(int ncid, int ours, int indef, int *real)
{
    int theirs = -1, status, fill = NC_FILL;
    struct ncsd_writer *w = ncsd_writer(ncid);
    int replayed = indef && !w->lost && !w->redefined;
    const char *how = replayed ? "define mode" : indef ? "redefine mode" : "data mode";

    if (ncsv3_nc_set_fill(ours, NC_FILL, &fill) != NC_NOERR)
        fill = NC_FILL;
    if (replayed) {
        status = hand_over_defined(ncid, ours, w, fill, &theirs);
        if (status != NC_NOERR) {
            int old;
            if (fill != NC_FILL)
                ncsv3_nc_set_fill(ours, fill, &old);
        }
    } else {
        status = hand_over_written(ncid, ours, w, fill, &theirs);
        /* the program's define mode, which ncslab's close ended */
        if (status == NC_NOERR && indef && ncsd_real.nc_redef(theirs) != NC_NOERR)
            status = NC_NOERR;      /* netCDF-C enters it by itself where needed */
    }
    if (ncsd_tracing)
        ncsd_tracef("hand-over of %d (%s, %s) to netCDF-C -> %d\n", ncid, w->path, how,
                    status);
    if (status != NC_NOERR)
        return 0;
    ncsd_rebind(ncid, NCSD_NETCDF, theirs);
    ncsd_route(ncid, real);
    return 1;
}

int ncsd_hand_over(int ncid, int *real)
{
    int ours, indef;
    if (ncsd_route(ncid, &ours) != NCSD_NCSLAB || ncsd_writer(ncid) == NULL ||
        ncsd_policy() != NCSD_AUTO || !ncsd_netcdf() || (indef = in_define_mode(ours)) < 0)
        return 0;
    return hand_over(ncid, ours, indef, real);
}

int ncsd_recover(int ncid, int status, int *real)
{
    if (!ncsd_hands_over(status) || ncsd_writer(ncid) == NULL)
        return NCSD_NCSLAB;
    return ncsd_hand_over(ncid, real) ? NCSD_NETCDF : NCSD_NCSLAB;
}

int ncsd_recover_again(int ncid, int status, int *real)
{
    struct ncsd_writer *w = ncsd_writer(ncid);
    int ours;
    if (w == NULL || ncsd_route(ncid, &ours) != NCSD_NCSLAB)
        return NCSD_NCSLAB;
    if (status == NC_ENOTINDEFINE && ncsv3_nc_redef(ours) == NC_NOERR) {
        w->redefined = 1;
        *real = ours;
        return NCSD_AGAIN;
    }
    /* a call netCDF-C makes in data mode, which it enters by itself
     * (nc_sync in define mode) */
    if (status == NC_EINDEFINE && ncsv3_nc_enddef(ours) == NC_NOERR) {
        *real = ours;
        return NCSD_AGAIN;
    }
    return ncsd_recover(ncid, status, real);
}

/* nc_redef of a writer: in its create's define mode, netCDF-C's answer
 * for the format (success); in data mode ncslab's, noted (above). */
int nc_redef(int ncid)
{
    int real, status, side = ncsd_route(ncid, &real);
    switch (side) {
    case NCSD_NCSLAB:
        status = ncsv3_nc_redef(real);
        if (ncsd_writer(ncid) == NULL)
            break;
        if (status == NC_EINDEFINE)
            status = NC_NOERR;
        else if (status == NC_NOERR)
            ncsd_writer(ncid)->redefined = 1;
        break;
    case NCSD_NETCDF:
        status = ncsd_real.nc_redef(real);
        break;
    default:
        status = NC_EBADID;
    }
    if (ncsd_tracing)
        ncsd_trace("nc_redef", ncid, side, status);
    return status;
}

/* The path as the program named it: a file handed over in define mode was
 * made by netCDF-C under another name. */
int nc_inq_path(int ncid, size_t *pathlen, char *path)
{
    int real, status, side = ncsd_route(ncid, &real);
    const struct ncsd_writer *w = ncsd_writer(ncid);
    switch (side) {
    case NCSD_NCSLAB:
        status = ncsv3_nc_inq_path(real, pathlen, path);
        break;
    case NCSD_NETCDF:
        if (w != NULL) {
            status = NC_NOERR;
            if (pathlen != NULL)
                *pathlen = strlen(w->path);
            if (path != NULL)
                strcpy(path, w->path);
            break;
        }
        status = ncsd_real.nc_inq_path(real, pathlen, path);
        break;
    default:
        status = NC_EBADID;
    }
    if (ncsd_tracing)
        ncsd_trace("nc_inq_path", ncid, side, status);
    return status;
}
