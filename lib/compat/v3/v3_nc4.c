/*
 * v3_nc4.c -- the netCDF-4 calls of the v3 API on classic-model files:
 * storage and filters of a variable, the chunk caches, and the group and
 * type calls of the enhanced model.
 *
 * Storage calls on a classic file answer NC_ENOTNC4, as netCDF-C's classic
 * dispatch does (the native API answers the same).  A classic-model file,
 * of either layout, is one root group holding the atomic types: the group
 * and type inquiries answer for that, and the calls that would define
 * groups or user-defined types answer as netCDF-C does for such a file:
 * NC_ENOTNC4 in a classic one, NC_ESTRICTNC3 in a netCDF-4 file marked
 * classic-model.  In a netCDF-4 file not so marked netCDF-C would define
 * them; ncslab does not represent the enhanced model and answers
 * NC_ENOTBUILT (doc/v3.md).
 */
#include "config.h"
#include "v3.h"
#include "ncslab/netcdf_filter.h"

#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What defining an enhanced-model object in ncid answers. */
static int enhanced_def(int ncid)
{
    int format, status = ncs_inq_format(ncid, &format);
    if (status != NC_NOERR)
        return status;
    switch (format) {
    case NC_FORMAT_NETCDF4_CLASSIC: return NC_ESTRICTNC3;
    case NC_FORMAT_NETCDF4: return NC_ENOTBUILT;
    default: return NC_ENOTNC4;
    }
}

/* What asking about a user-defined type answers: there are none. */
static int enhanced_inq(int ncid)
{
    int nc4 = v3i_is_nc4(ncid);
    if (nc4 < 0)
        return nc4;
    return nc4 ? NC_EBADTYPE : NC_ENOTNC4;
}

/* netCDF-4 only: a status for a classic file or a bad id, else 0 (the
 * native call checks the rest, a read-only file before the varid). */
static int nc4_file(int ncid)
{
    int nc4 = v3i_is_nc4(ncid);
    if (nc4 < 0)
        return nc4;
    return nc4 ? NC_NOERR : NC_ENOTNC4;
}

/* netCDF-4 only: a status for a classic file or a bad id/varid, else 0. */
static int nc4_var(int ncid, int varid)
{
    int ndims, status = nc4_file(ncid);
    return status != NC_NOERR ? status : ncs_inq_varndims(ncid, varid, &ndims);
}

/* ---- storage and filters --------------------------------------------------- */

int nc_def_var_chunking(int ncid, int varid, int storage,
                        const size_t *chunksizesp)
{
    return ncs_def_var_chunking(ncid, varid, storage, chunksizesp);
}

int nc_inq_var_chunking(int ncid, int varid, int *storagep, size_t *chunksizesp)
{
    return ncs_inq_var_chunking(ncid, varid, storagep, chunksizesp);
}

int nc_def_var_deflate(int ncid, int varid, int shuffle, int deflate,
                       int deflate_level)
{
    return ncs_def_var_deflate(ncid, varid, shuffle, deflate, deflate_level);
}

int nc_inq_var_deflate(int ncid, int varid, int *shufflep, int *deflatep,
                       int *deflate_levelp)
{
    int status = ncs_inq_var_deflate(ncid, varid, shufflep, deflatep, deflate_levelp);
    /* netCDF-C asks a classic file's (empty) filter list for deflate before
     * it looks at the varid: no deflate, level 0, then NC_ENOTVAR */
    if (status == NC_ENOTVAR && v3i_is_nc4(ncid) == 0) {
        if (deflatep != NULL)
            *deflatep = 0;
        if (deflate_levelp != NULL)
            *deflate_levelp = 0;
    }
    return status;
}

int nc_def_var_fletcher32(int ncid, int varid, int fletcher32)
{
    return ncs_def_var_fletcher32(ncid, varid, fletcher32);
}

int nc_inq_var_fletcher32(int ncid, int varid, int *fletcher32p)
{
    return ncs_inq_var_fletcher32(ncid, varid, fletcher32p);
}

/* Whether a variable's storage can still be set: the native call with
 * the setting it already has says (NC_ELATEDEF once the variable is laid
 * out, NC_ENOTINDEFINE in data mode). */
static int storage_settable(int ncid, int varid)
{
    int on, status = ncs_inq_var_fletcher32(ncid, varid, &on);
    if (status == NC_NOERR)
        status = ncs_def_var_fletcher32(ncid, varid, on);
    return status;
}

/* ---- byte order ------------------------------------------------------------
 * The native calls: the order is the dataset's in the file, the inquiry
 * what was set or what the file has.  Every variable is laid out once
 * define mode ends, so netCDF-C's answer there is NC_ELATEDEF. */
int nc_def_var_endian(int ncid, int varid, int endian)
{
    int status = nc4_file(ncid);
    if (status == NC_NOERR)
        status = ncs_def_var_endian(ncid, varid, endian);
    return status == NC_ENOTINDEFINE ? NC_ELATEDEF : status;
}

int nc_inq_var_endian(int ncid, int varid, int *endianp)
{
    int status = nc4_var(ncid, varid);
    if (status == NC_NOERR)
        status = ncs_inq_var_endian(ncid, varid, endianp);
    return status;
}

/* HDF5's filter ids, as netCDF-C numbers them. */
#define FILTER_DEFLATE 1
#define FILTER_SHUFFLE 2
#define FILTER_FLETCHER32 3
#define FILTER_ZSTD 32015
#define FILTER_SZIP 4
/* szip's options a caller sets (chip, entropy coding, nearest neighbour):
 * netCDF-C reports the mask HDF5 stores with only these */
#define SZIP_USER_MASKS (2 | 4 | 32)

/* netCDF-C's order: the variable, then (netCDF-4) define mode, whether
 * the variable is laid out, a scalar, the filter. */
int nc_def_var_filter(int ncid, int varid, unsigned int id, size_t nparams,
                      const unsigned int *parms)
{
    int shuffle, deflate, level, ndims;
    int status = nc4_var(ncid, varid);
    if (status != NC_NOERR)
        return status;
    /* in data mode netCDF-C answers with the code of the opposite */
    int indef;
    status = ncs_inq_indef(ncid, &indef);
    if (status == NC_NOERR && !indef)
        return NC_EINDEFINE;
    status = storage_settable(ncid, varid);
    if (status != NC_NOERR)
        return status;
    status = ncs_inq_varndims(ncid, varid, &ndims);
    if (status != NC_NOERR)
        return status;
    if (ndims == 0)
        return NC_EINVAL;
    if (nparams > 0 && parms == NULL)
        return NC_EINVAL;
    switch (id) {
    case FILTER_DEFLATE:
        if (nparams != 1)
            return NC_EINVAL;
        status = ncs_inq_var_deflate(ncid, varid, &shuffle, &deflate, &level);
        if (status != NC_NOERR)
            return status;
        return ncs_def_var_deflate(ncid, varid, shuffle, 1, (int)parms[0]);
    case FILTER_SHUFFLE:
        status = ncs_inq_var_deflate(ncid, varid, &shuffle, &deflate, &level);
        if (status != NC_NOERR)
            return status;
        return ncs_def_var_deflate(ncid, varid, 1, deflate, level);
    case FILTER_FLETCHER32:
        return ncs_def_var_fletcher32(ncid, varid, 1);
    case FILTER_ZSTD:
        if (nparams != 1)
            return NC_EINVAL;
        return ncs_def_var_zstd(ncid, varid, (int)parms[0]);
    default:
        return NC_ENOFILTER;
    }
}

/* One filter of a variable as netCDF-C describes it: its id and its
 * parameters (known: 0 for a filter with more parameters than
 * NCS_MAX_FILTER_PARAMS, which are not reported). */
typedef struct {
    unsigned int id;
    int known;
    size_t nparams;
    unsigned int params[NCS_MAX_FILTER_PARAMS];
} v3_filter;

static void copy_params(const v3_filter *f, size_t *nparams, unsigned int *params)
{
    if (nparams != NULL)
        *nparams = f->nparams;
    if (params != NULL && f->nparams > 0)
        memcpy(params, f->params, f->nparams * sizeof *params);
}

static int filters(int ncid, int varid, v3_filter *f, size_t *np);

/* The first filter of the variable (filters() below); id 0, and *nparams
 * left as it was, when there is none.  A classic file has none, whatever
 * the varid, as netCDF-C answers. */
int nc_inq_var_filter(int ncid, int varid, unsigned int *idp, size_t *nparams,
                      unsigned int *params)
{
    v3_filter f[NCS_MAX_FILTERS];
    size_t n = 0;
    int nc4 = v3i_is_nc4(ncid);
    if (nc4 < 0)
        return nc4;
    if (nc4) {
        int status = filters(ncid, varid, f, &n);
        if (status != NC_NOERR)
            return status;
    }
    if (idp != NULL)
        *idp = n ? f[0].id : 0;
    if (n > 0 && f[0].known)
        copy_params(&f[0], nparams, params);
    return NC_NOERR;
}

/* szip is not among ncslab's filters. */
int nc_def_var_szip(int ncid, int varid, int options_mask, int pixels_per_block)
{
    int status = nc4_var(ncid, varid);
    (void)options_mask;
    (void)pixels_per_block;
    return status != NC_NOERR ? status : NC_ENOFILTER;
}

/* netCDF-C asks its filter list for szip, empty in a classic file (so
 * the varid is not looked at there): the options and pixels per block of
 * a variable the file had with szip when it was opened, else 0 and 0. */
int nc_inq_var_szip(int ncid, int varid, int *options_maskp,
                    int *pixels_per_blockp)
{
    v3_filter f[NCS_MAX_FILTERS];
    size_t n = 0;
    int mask = 0, ppb = 0, nc4 = v3i_is_nc4(ncid);
    if (nc4 < 0)
        return nc4;
    if (nc4) {
        int status = filters(ncid, varid, f, &n);
        if (status != NC_NOERR)
            return status;
    }
    for (size_t i = 0; i < n; i++) {
        if (f[i].id == FILTER_SZIP && f[i].known && f[i].nparams == 2) {
            mask = (int)f[i].params[0];
            ppb = (int)f[i].params[1];
            break;
        }
    }
    if (options_maskp != NULL)
        *options_maskp = mask;
    if (pixels_per_blockp != NULL)
        *pixels_per_blockp = ppb;
    return NC_NOERR;
}

/* Quantization: netCDF-4 only (NC_ENOTNC4 in classic files, before any
 * other check, as netCDF-C's classic dispatch answers). */
int nc_def_var_quantize(int ncid, int varid, int quantize_mode, int nsd)
{
    int status = nc4_file(ncid);
    if (status == NC_NOERR)
        status = ncs_def_var_quantize(ncid, varid, quantize_mode, nsd);
    return status == NC_ENOTINDEFINE ? NC_ELATEDEF : status;
}

int nc_inq_var_quantize(int ncid, int varid, int *quantize_modep, int *nsdp)
{
    int status = nc4_var(ncid, varid);
    if (status == NC_NOERR)
        status = ncs_inq_var_quantize(ncid, varid, quantize_modep, nsdp);
    return status;
}

/* ---- chunk caches ------------------------------------------------------------
 * ncslab has one cache of decoded chunks for every open file (its budget is
 * the size here); the number of slots and the preemption are HDF5's
 * parameters, kept and reported but not used. */
static size_t cache_nelems = 4133;
static float cache_preemption = 0.75f;

int nc_set_chunk_cache(size_t size, size_t nelems, float preemption)
{
    if (preemption < 0 || preemption > 1)
        return NC_EINVAL;
    int status = ncs_set_chunk_cache(size);
    if (status != NC_NOERR)
        return status;
    cache_nelems = nelems;
    cache_preemption = preemption;
    return NC_NOERR;
}

int nc_get_chunk_cache(size_t *sizep, size_t *nelemsp, float *preemptionp)
{
    if (sizep != NULL)
        ncs_get_chunk_cache(sizep);
    if (nelemsp != NULL)
        *nelemsp = cache_nelems;
    if (preemptionp != NULL)
        *preemptionp = cache_preemption;
    return NC_NOERR;
}

/* The settings nc_set_var_chunk_cache made, which nc_get_var_chunk_cache
 * reports as netCDF-C does (a variable without: the file-wide ones), until
 * the file is closed (v3i_var_caches_drop). */
typedef struct {
    int ncid, varid;
    size_t size, nelems;
    float preemption;
} v3_var_cache;
static v3_var_cache *var_caches;
static size_t nvar_caches, cap_var_caches;
static pthread_mutex_t var_caches_lock = PTHREAD_MUTEX_INITIALIZER;

void v3i_var_caches_drop(int ncid)
{
    pthread_mutex_lock(&var_caches_lock);
    for (size_t i = 0; i < nvar_caches;) {
        if (var_caches[i].ncid == ncid)
            var_caches[i] = var_caches[--nvar_caches];
        else
            i++;
    }
    pthread_mutex_unlock(&var_caches_lock);
}

int nc_set_var_chunk_cache(int ncid, int varid, size_t size, size_t nelems,
                           float preemption)
{
    int status = nc4_var(ncid, varid);
    size_t i;
    if (status != NC_NOERR)
        return status;
    if (preemption < 0 || preemption > 1)
        return NC_EINVAL;
    pthread_mutex_lock(&var_caches_lock);
    for (i = 0; i < nvar_caches; i++)
        if (var_caches[i].ncid == ncid && var_caches[i].varid == varid)
            break;
    if (i == nvar_caches && nvar_caches == cap_var_caches) {
        size_t n = cap_var_caches ? 2 * cap_var_caches : 16;
        v3_var_cache *t = realloc(var_caches, n * sizeof *t);
        if (t == NULL)
            status = NC_ENOMEM;
        else {
            var_caches = t;
            cap_var_caches = n;
        }
    }
    if (status == NC_NOERR) {
        if (i == nvar_caches)
            nvar_caches++;
        var_caches[i] = (v3_var_cache){ ncid, varid, size, nelems, preemption };
    }
    pthread_mutex_unlock(&var_caches_lock);
    return status;
}

int nc_get_var_chunk_cache(int ncid, int varid, size_t *sizep, size_t *nelemsp,
                           float *preemptionp)
{
    int status = nc4_var(ncid, varid), found = 0;
    v3_var_cache c = { 0 };
    if (status != NC_NOERR)
        return status;
    pthread_mutex_lock(&var_caches_lock);
    for (size_t i = 0; i < nvar_caches && !found; i++) {
        if (var_caches[i].ncid == ncid && var_caches[i].varid == varid) {
            c = var_caches[i];
            found = 1;
        }
    }
    pthread_mutex_unlock(&var_caches_lock);
    if (!found)
        return nc_get_chunk_cache(sizep, nelemsp, preemptionp);
    if (sizep != NULL)
        *sizep = c.size;
    if (nelemsp != NULL)
        *nelemsp = c.nelems;
    if (preemptionp != NULL)
        *preemptionp = c.preemption;
    return NC_NOERR;
}

/* ---- netCDF-Fortran's helpers ----------------------------------------------
 * Not in netcdf.h, but exported by netCDF-C's library and imported by
 * netCDF-Fortran's: the chunking and chunk-cache calls with int arguments
 * (sizes of a variable's cache in MiB, preemptions in percent), which
 * netCDF-C serves from its netCDF-4 internals only (a classic file's ncid
 * is NC_EBADID there), and the parallel calls, which a serial netCDF-C
 * answers with NC_ENOPAR.  Where netCDF-C 4.9.0 crashes (a NULL array
 * to nc_def_var_chunking_ints) or never writes its outputs
 * (nc_inq_var_chunking_ints), these do what the size_t calls do
 * (doc/v3.md). */

#define MEBIBYTE ((size_t)1 << 20)

/* NC_EBADID for a classic file, as netCDF-C's netCDF-4 lookup answers. */
static int ints_file(int ncid)
{
    int nc4 = v3i_is_nc4(ncid);
    if (nc4 < 0)
        return nc4;
    return nc4 ? NC_NOERR : NC_EBADID;
}

int nc_def_var_chunking_ints(int ncid, int varid, int contiguous, int *chunksizesp)
{
    size_t cs[NC_MAX_VAR_DIMS];
    int ndims, status = ints_file(ncid);
    if (status == NC_NOERR)
        status = ncs_inq_varndims(ncid, varid, &ndims);
    if (status != NC_NOERR)
        return status;
    for (int i = 0; chunksizesp != NULL && i < ndims; i++)
        cs[i] = (size_t)(long)chunksizesp[i];  /* a negative size: NC_EBADCHUNK */
    return nc_def_var_chunking(ncid, varid, contiguous, chunksizesp != NULL ? cs : NULL);
}

int nc_inq_var_chunking_ints(int ncid, int varid, int *contiguousp, int *chunksizesp)
{
    size_t cs[NC_MAX_VAR_DIMS];
    int ndims, storage, status = ints_file(ncid);
    if (status == NC_NOERR)
        status = ncs_inq_varndims(ncid, varid, &ndims);
    if (status == NC_NOERR)
        status = nc_inq_var_chunking(ncid, varid, &storage, cs);
    if (status != NC_NOERR)
        return status;
    if (contiguousp != NULL)
        *contiguousp = storage;
    for (int i = 0; chunksizesp != NULL && storage == NC_CHUNKED && i < ndims; i++) {
        chunksizesp[i] = (int)cs[i];
        if (cs[i] > NC_MAX_INT)
            status = NC_ERANGE;
    }
    return status;
}

int nc_set_chunk_cache_ints(int size, int nelems, int preemption)
{
    if (size <= 0 || nelems <= 0 || preemption < 0 || preemption > 100)
        return NC_EINVAL;
    return nc_set_chunk_cache((size_t)size, (size_t)nelems, (float)preemption / 100);
}

int nc_get_chunk_cache_ints(int *sizep, int *nelemsp, int *preemptionp)
{
    size_t size, nelems;
    float preemption;
    int status = nc_get_chunk_cache(&size, &nelems, &preemption);
    if (status != NC_NOERR)
        return status;
    if (sizep != NULL)
        *sizep = (int)size;
    if (nelemsp != NULL)
        *nelemsp = (int)nelems;
    if (preemptionp != NULL)
        *preemptionp = (int)(preemption * 100);
    return NC_NOERR;
}

/* A negative setting is HDF5's default: every byte and slot it likes,
 * and netCDF-C's preemption (0.75). */
int nc_set_var_chunk_cache_ints(int ncid, int varid, int size, int nelems, int preemption)
{
    size_t real_size = (size_t)-1, real_nelems = (size_t)-1;
    float real_preemption = 0.75f;
    if (preemption > 100)
        return NC_EINVAL;
    int status = ints_file(ncid);
    if (status != NC_NOERR)
        return status;
    if (size >= 0)
        real_size = (size_t)size * MEBIBYTE;
    if (nelems >= 0)
        real_nelems = (size_t)nelems;
    if (preemption >= 0)
        real_preemption = (float)(preemption / 100.);
    return nc_set_var_chunk_cache(ncid, varid, real_size, real_nelems, real_preemption);
}

int nc_get_var_chunk_cache_ints(int ncid, int varid, int *sizep, int *nelemsp,
                                int *preemptionp)
{
    size_t size, nelems;
    float preemption;
    int status = ints_file(ncid);
    if (status == NC_NOERR)
        status = nc_get_var_chunk_cache(ncid, varid, &size, &nelems, &preemption);
    if (status != NC_NOERR)
        return status;
    if (sizep != NULL)
        *sizep = (int)(size / MEBIBYTE);
    if (nelemsp != NULL)
        *nelemsp = (int)nelems;
    if (preemptionp != NULL)
        *preemptionp = (int)(preemption * 100);
    return NC_NOERR;
}

/* The parallel calls of a serial netCDF-C (MPI_Comm and MPI_Info are ints
 * there).  libncslab_netcdf_par defines the real ones (v3_par.c), which
 * take the place of these weak definitions. */
int nc_create_par(const char *path, int cmode, int comm, int info, int *ncidp);
int nc_open_par(const char *path, int mode, int comm, int info, int *ncidp);
__attribute__((weak)) int nc_create_par(const char *path, int cmode, int comm, int info,
                                        int *ncidp)
{
    (void)path, (void)cmode, (void)comm, (void)info, (void)ncidp;
    return NC_ENOPAR;
}

__attribute__((weak)) int nc_open_par(const char *path, int mode, int comm, int info,
                                      int *ncidp)
{
    (void)path, (void)mode, (void)comm, (void)info, (void)ncidp;
    return NC_ENOPAR;
}

__attribute__((weak)) int nc_var_par_access(int ncid, int varid, int par_access)
{
    (void)ncid, (void)varid, (void)par_access;
    return NC_ENOPAR;
}

__attribute__((weak)) int nc_create_par_fortran(const char *path, int cmode, int comm,
                                                int info, int *ncidp)
{
    (void)path, (void)cmode, (void)comm, (void)info, (void)ncidp;
    return NC_ENOPAR;
}

__attribute__((weak)) int nc_open_par_fortran(const char *path, int mode, int comm, int info,
                                              int *ncidp)
{
    (void)path, (void)mode, (void)comm, (void)info, (void)ncidp;
    return NC_ENOPAR;
}

/* The length of the UTF-8 sequence at s, or 0 if it is not one. */
static int utf8_len(const unsigned char *s)
{
    int n = s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 ? 2 : 0;
    if (s[0] >= 0xf8)
        return 0;
    for (int i = 1; i < n; i++)
        if ((s[i] & 0xc0) != 0x80)
            return 0;
    return n;
}

/* Whether name may name a group, as netCDF-C checks a name it looks up:
 * NC_EBADNAME (empty, a '/', a first character other than a letter, a
 * digit, '_' or a UTF-8 one, a control character, trailing white space,
 * bad UTF-8), NC_EMAXNAME (longer than NC_MAX_NAME), or NC_NOERR. */
static int group_name(const char *name)
{
    const unsigned char *p = (const unsigned char *)name;
    if (*p == '\0' || strchr(name, '/') != NULL)
        return NC_EBADNAME;
    if (*p < 0x80 && !(isalnum(*p) || *p == '_'))
        return NC_EBADNAME;
    while (*p != '\0') {
        int n = *p < 0x80 ? 1 : utf8_len(p);
        if (n == 0 || (n == 1 && (*p < ' ' || *p == 0x7f)))
            return NC_EBADNAME;
        p += n;
        if (p - (const unsigned char *)name > NC_MAX_NAME)
            return NC_EMAXNAME;
    }
    if (p[-1] < 0x80 && isspace(p[-1]))
        return NC_EBADNAME;
    return NC_NOERR;
}

/* ---- groups: the root one only ----------------------------------------------- */

int nc_inq_ncid(int ncid, const char *name, int *grp_ncid)
{
    int nc4 = v3i_is_nc4(ncid);
    if (nc4 < 0)
        return nc4;
    if (!nc4) {  /* netCDF-C's classic code answers with the file itself */
        if (grp_ncid != NULL)
            *grp_ncid = ncid;
        return NC_NOERR;
    }
    if (name == NULL) {  /* netCDF-C's short cut: the root group */
        if (grp_ncid != NULL)
            *grp_ncid = ncid;
        return NC_NOERR;
    }
    int status = group_name(name);
    return status != NC_NOERR ? status : NC_ENOGRP;
}

int nc_inq_grp_ncid(int ncid, const char *grp_name, int *grp_ncid)
{
    return nc_inq_ncid(ncid, grp_name, grp_ncid);
}

int nc_inq_grps(int ncid, int *numgrps, int *ncids)
{
    int format, status = ncs_inq_format(ncid, &format);
    (void)ncids;
    if (status != NC_NOERR)
        return status;
    if (numgrps != NULL)
        *numgrps = 0;
    return NC_NOERR;
}

int nc_inq_grpname(int ncid, char *name)
{
    int format, status = ncs_inq_format(ncid, &format);
    if (status != NC_NOERR)
        return status;
    if (name != NULL)
        strcpy(name, "/");
    return NC_NOERR;
}

int nc_inq_grpname_full(int ncid, size_t *lenp, char *full_name)
{
    int status = nc_inq_grpname(ncid, full_name);
    if (status == NC_NOERR && lenp != NULL)
        *lenp = 1;
    return status;
}

int nc_inq_grpname_len(int ncid, size_t *lenp)
{
    return nc_inq_grpname_full(ncid, lenp, NULL);
}

int nc_inq_grp_parent(int ncid, int *parent_ncid)
{
    int format, status = ncs_inq_format(ncid, &format);
    (void)parent_ncid;
    return status != NC_NOERR ? status : NC_ENOGRP;
}

/* A classic file has no group to find, not even "/", in netCDF-C. */
int nc_inq_grp_full_ncid(int ncid, const char *full_name, int *grp_ncid)
{
    int nc4 = v3i_is_nc4(ncid);
    if (nc4 < 0)
        return nc4;
    if (!nc4)
        return NC_ENOGRP;
    if (full_name == NULL)
        return NC_EINVAL;
    for (const char *p = full_name; *p; p++)
        if (*p != '/')
            return NC_ENOGRP;
    if (grp_ncid != NULL)
        *grp_ncid = ncid;
    return NC_NOERR;
}

int nc_inq_varids(int ncid, int *nvars, int *varids)
{
    int n, status = ncs_inq_nvars(ncid, &n);
    if (status != NC_NOERR)
        return status;
    if (nvars != NULL)
        *nvars = n;
    for (int i = 0; varids != NULL && i < n; i++)
        varids[i] = i;
    return NC_NOERR;
}

int nc_inq_dimids(int ncid, int *ndims, int *dimids, int include_parents)
{
    int n, status = ncs_inq_ndims(ncid, &n);
    (void)include_parents;
    if (status != NC_NOERR)
        return status;
    if (ndims != NULL)
        *ndims = n;
    for (int i = 0; dimids != NULL && i < n; i++)
        dimids[i] = i;
    return NC_NOERR;
}

int nc_def_grp(int parent_ncid, const char *name, int *new_ncid)
{
    (void)name;
    (void)new_ncid;
    return enhanced_def(parent_ncid);
}

/* The only group is the root one, which netCDF-4 files cannot rename. */
int nc_rename_grp(int grpid, const char *name)
{
    int nc4 = v3i_is_nc4(grpid);
    (void)name;
    if (nc4 < 0)
        return nc4;
    return nc4 ? NC_EBADGRPID : NC_ENOTNC4;
}

/* ---- types: the atomic ones only ---------------------------------------------- */

static const char *const atomic_names[] = {
    NULL, "byte", "char", "short", "int", "float", "double",
    "ubyte", "ushort", "uint", "int64", "uint64", "string"
};

int nc_inq_typeids(int ncid, int *ntypes, int *typeids)
{
    int format, status = ncs_inq_format(ncid, &format);
    (void)typeids;
    if (status != NC_NOERR)
        return status;
    if (ntypes != NULL)
        *ntypes = 0;
    return NC_NOERR;
}

/* Atomic types are answered for any ncid, as netCDF-C does "for
 * compatibility"; there are no others. */
int nc_inq_type(int ncid, nc_type xtype, char *name, size_t *size)
{
    (void)ncid;
    if (xtype <= NC_NAT || xtype > NC_STRING)
        return NC_EBADTYPE;
    if (name != NULL)
        strcpy(name, atomic_names[xtype]);
    if (size != NULL) {
        if (xtype == NC_STRING)
            *size = sizeof(char *);
        else
            ncs_inq_type_size(xtype, size);
    }
    return NC_NOERR;
}

/* A classic file knows the names of the six classic types only (not even
 * the CDF-5 ones); a netCDF-4 file those of every atomic type, and "none"
 * for NC_NAT. */
int nc_inq_typeid(int ncid, const char *name, nc_type *typeidp)
{
    int nc4 = v3i_is_nc4(ncid);
    if (nc4 < 0)
        return nc4;
    if (name == NULL)
        return NC_EINVAL;
    int last = nc4 ? NC_STRING : NC_DOUBLE;
    for (int t = NC_NAT; t <= last; t++) {
        if (strcmp(name, t == NC_NAT ? (nc4 ? "none" : "") : atomic_names[t]) == 0 &&
            (t != NC_NAT || nc4)) {
            if (typeidp != NULL)
                *typeidp = t;
            return NC_NOERR;
        }
    }
    if (!nc4)
        return NC_ENOTNC4;
    const char *slash = strchr(name, '/');
    if (slash != NULL && (name[0] != '/' || strrchr(name, '/') == name))
        return NC_EINVAL;
    return NC_EBADTYPE;
}

int nc_inq_type_equal(int ncid1, nc_type typeid1, int ncid2, nc_type typeid2,
                      int *equal)
{
    int format, status = ncs_inq_format(ncid1, &format);
    if (status == NC_NOERR)
        status = ncs_inq_format(ncid2, &format);
    if (status != NC_NOERR)
        return status;
    if (typeid1 <= NC_NAT || typeid2 <= NC_NAT)
        return NC_EINVAL;
    if (typeid1 > NC_STRING || typeid2 > NC_STRING)
        return NC_EBADTYPE;
    if (equal != NULL)
        *equal = typeid1 == typeid2;
    return NC_NOERR;
}

int nc_inq_user_type(int ncid, nc_type xtype, char *name, size_t *size,
                     nc_type *base_nc_typep, size_t *nfieldsp, int *classp)
{
    (void)xtype, (void)name, (void)size, (void)base_nc_typep, (void)nfieldsp,
        (void)classp;
    return enhanced_inq(ncid);
}

/* ---- user-defined types: none can be defined -------------------------------------- */

/* netCDF-C looks the type up before it inserts a field or member into it,
 * and to find a field by name: NC_EINVAL for a negative id, NC_EBADTYPE
 * for an atomic one, NC_EBADTYPID past them. */
static int type_lookup(int ncid, nc_type xtype)
{
    int nc4 = v3i_is_nc4(ncid);
    if (nc4 <= 0)
        return nc4 < 0 ? nc4 : NC_ENOTNC4;
    if (xtype < 0)
        return NC_EINVAL;
    return xtype <= NC_STRING ? NC_EBADTYPE : NC_EBADTYPID;
}

#define DEF_CALL(decl) decl { return enhanced_def(ncid); }
#define INQ_CALL(decl) decl { return enhanced_inq(ncid); }
#define TYPE_CALL(decl) decl { return type_lookup(ncid, xtype); }
#if defined(__GNUC__)
#pragma GCC diagnostic ignored "-Wunused-parameter"
#endif

DEF_CALL(int nc_def_compound(int ncid, size_t size, const char *name, nc_type *typeidp))
TYPE_CALL(int nc_insert_compound(int ncid, nc_type xtype, const char *name,
                                size_t offset, nc_type field_typeid))
TYPE_CALL(int nc_insert_array_compound(int ncid, nc_type xtype, const char *name,
                                      size_t offset, nc_type field_typeid,
                                      int ndims, const int *dim_sizes))
DEF_CALL(int nc_def_vlen(int ncid, const char *name, nc_type base_typeid,
                         nc_type *xtypep))
DEF_CALL(int nc_def_enum(int ncid, nc_type base_typeid, const char *name,
                         nc_type *typeidp))
TYPE_CALL(int nc_insert_enum(int ncid, nc_type xtype, const char *name,
                            const void *value))
DEF_CALL(int nc_def_opaque(int ncid, size_t size, const char *name, nc_type *xtypep))
INQ_CALL(int nc_inq_compound(int ncid, nc_type xtype, char *name, size_t *sizep,
                             size_t *nfieldsp))
INQ_CALL(int nc_inq_compound_name(int ncid, nc_type xtype, char *name))
INQ_CALL(int nc_inq_compound_size(int ncid, nc_type xtype, size_t *sizep))
INQ_CALL(int nc_inq_compound_nfields(int ncid, nc_type xtype, size_t *nfieldsp))
INQ_CALL(int nc_inq_compound_field(int ncid, nc_type xtype, int fieldid, char *name,
                                   size_t *offsetp, nc_type *field_typeidp,
                                   int *ndimsp, int *dim_sizesp))
INQ_CALL(int nc_inq_compound_fieldname(int ncid, nc_type xtype, int fieldid,
                                       char *name))
TYPE_CALL(int nc_inq_compound_fieldindex(int ncid, nc_type xtype, const char *name,
                                        int *fieldidp))
INQ_CALL(int nc_inq_compound_fieldoffset(int ncid, nc_type xtype, int fieldid,
                                         size_t *offsetp))
INQ_CALL(int nc_inq_compound_fieldtype(int ncid, nc_type xtype, int fieldid,
                                       nc_type *field_typeidp))
INQ_CALL(int nc_inq_compound_fieldndims(int ncid, nc_type xtype, int fieldid,
                                        int *ndimsp))
INQ_CALL(int nc_inq_compound_fielddim_sizes(int ncid, nc_type xtype, int fieldid,
                                            int *dim_sizes))
INQ_CALL(int nc_inq_vlen(int ncid, nc_type xtype, char *name, size_t *datum_sizep,
                         nc_type *base_nc_typep))
INQ_CALL(int nc_inq_enum(int ncid, nc_type xtype, char *name, nc_type *base_nc_typep,
                         size_t *base_sizep, size_t *num_membersp))
INQ_CALL(int nc_inq_enum_member(int ncid, nc_type xtype, int idx, char *name,
                                void *value))
INQ_CALL(int nc_inq_enum_ident(int ncid, nc_type xtype, long long value,
                               char *identifier))
INQ_CALL(int nc_inq_opaque(int ncid, nc_type xtype, char *name, size_t *sizep))
INQ_CALL(int nc_put_vlen_element(int ncid, int typeid1, void *vlen_element,
                                 size_t len, const void *data))
INQ_CALL(int nc_get_vlen_element(int ncid, int typeid1, const void *vlen_element,
                                 size_t *len, void *data))

/* ---- memory of values ------------------------------------------------------------
 * These need no file: vlens and strings are freed, atomic values copied. */

int nc_free_vlen(nc_vlen_t *vl)
{
    if (vl != NULL)
        free(vl->p);
    return NC_NOERR;
}

int nc_free_vlens(size_t len, nc_vlen_t vlens[])
{
    for (size_t i = 0; i < len; i++)
        free(vlens[i].p);
    return NC_NOERR;
}

int nc_free_string(size_t len, char **data)
{
    for (size_t i = 0; data != NULL && i < len; i++)
        free(data[i]);
    return NC_NOERR;
}

static int atomic_size(int ncid, nc_type xtype, size_t *sizep)
{
    int format, status = ncs_inq_format(ncid, &format);
    if (status != NC_NOERR)
        return status;
    if (xtype <= NC_NAT)
        return NC_EBADTYPE;
    if (xtype > NC_STRING)
        return enhanced_inq(ncid);
    *sizep = 0;
    return xtype == NC_STRING ? NC_NOERR : ncs_inq_type_size(xtype, sizep);
}

int nc_reclaim_data(int ncid, nc_type xtypeid, void *memory, size_t count)
{
    size_t size;
    int status = atomic_size(ncid, xtypeid, &size);
    if (status != NC_NOERR)
        return status;
    if (xtypeid == NC_STRING && memory != NULL)
        nc_free_string(count, memory);
    return NC_NOERR;
}

int nc_reclaim_data_all(int ncid, nc_type xtypeid, void *memory, size_t count)
{
    int status = nc_reclaim_data(ncid, xtypeid, memory, count);
    if (status == NC_NOERR)
        free(memory);
    return status;
}

int nc_copy_data(int ncid, nc_type xtypeid, const void *memory, size_t count,
                 void *copy)
{
    size_t size;
    int status = atomic_size(ncid, xtypeid, &size);
    if (status != NC_NOERR)
        return status;
    if (count == 0)
        return NC_NOERR;
    if (memory == NULL || copy == NULL)
        return NC_EINVAL;
    if (xtypeid != NC_STRING) {
        memcpy(copy, memory, size * count);
        return NC_NOERR;
    }
    char *const *src = memory;
    char **dst = copy;
    for (size_t i = 0; i < count; i++) {
        dst[i] = NULL;
        if (src[i] != NULL && (dst[i] = strdup(src[i])) == NULL) {
            nc_free_string(i, dst);
            return NC_ENOMEM;
        }
    }
    return NC_NOERR;
}

int nc_copy_data_all(int ncid, nc_type xtypeid, const void *memory, size_t count,
                     void **copyp)
{
    size_t size;
    int status = atomic_size(ncid, xtypeid, &size);
    if (status != NC_NOERR)
        return status;
    if (copyp == NULL)
        return NC_EINVAL;
    if (xtypeid == NC_STRING)
        size = sizeof(char *);
    void *copy = count ? calloc(count, size) : NULL;
    if (count && copy == NULL)
        return NC_ENOMEM;
    status = nc_copy_data(ncid, xtypeid, memory, count, copy);
    if (status != NC_NOERR) {
        free(copy);
        return status;
    }
    *copyp = copy;
    return NC_NOERR;
}

/* netCDF-C's print of values: each as printf prints its C type (floats
 * with %f, NC_UINT as a signed int, text and strings quoted, a NULL string
 * as ""), separated by blanks; a number or a character takes at most 127
 * characters, as netCDF-C formats each into a buffer of 128.  In netCDF-C's
 * order: NC_EINVAL for no type or no memory, success with *bufp untouched
 * for no values, then *bufp is NULL until the print is done; the file is
 * looked at only for a user-defined type. */
int nc_dump_data(int ncid, nc_type xtypeid, void *memory, size_t count, char **bufp)
{
    char one[128], *out = NULL;
    size_t len = 0, cap = 0, size = 0;
    if (xtypeid <= NC_NAT || (memory == NULL && count > 0))
        return NC_EINVAL;
    if (count == 0)
        return NC_NOERR;
    if (bufp != NULL)
        *bufp = NULL;
    if (xtypeid > NC_STRING)
        return xtypeid < NC_FIRSTUSERTYPEID ? NC_EBADTYPE : enhanced_inq(ncid);
    if (bufp == NULL)
        return NC_NOERR;
    if (xtypeid == NC_STRING)
        size = sizeof(char *);
    else
        ncs_inq_type_size(xtypeid, &size);
    for (size_t i = 0; i < count; i++) {
        const void *p = (const char *)memory + i * size;
        const char *text = one;
        switch (xtypeid) {
        case NC_BYTE: snprintf(one, sizeof one, "%d", *(const signed char *)p); break;
        case NC_CHAR: snprintf(one, sizeof one, "'%c'", *(const char *)p); break;
        case NC_SHORT: snprintf(one, sizeof one, "%d", *(const short *)p); break;
        case NC_INT: snprintf(one, sizeof one, "%d", *(const int *)p); break;
        case NC_FLOAT: snprintf(one, sizeof one, "%f", *(const float *)p); break;
        case NC_DOUBLE: snprintf(one, sizeof one, "%f", *(const double *)p); break;
        case NC_UBYTE: snprintf(one, sizeof one, "%u", *(const unsigned char *)p); break;
        case NC_USHORT: snprintf(one, sizeof one, "%u", *(const unsigned short *)p); break;
        case NC_UINT: snprintf(one, sizeof one, "%d", (int)*(const unsigned int *)p); break;
        case NC_INT64: snprintf(one, sizeof one, "%lld", *(const long long *)p); break;
        case NC_UINT64: snprintf(one, sizeof one, "%llu", *(const unsigned long long *)p); break;
        default:
            text = *(char *const *)p != NULL ? *(char *const *)p : "";
            break;
        }
        size_t n = strlen(text) + (xtypeid == NC_STRING ? 2 : 0) + (i > 0);
        if (len + n + 1 > cap) {
            size_t want = cap ? cap : 64;
            while (want < len + n + 1)
                want *= 2;
            char *grown = realloc(out, want);
            if (grown == NULL) {
                free(out);
                return NC_ENOMEM;
            }
            out = grown;
            cap = want;
        }
        len += (size_t)sprintf(out + len, xtypeid == NC_STRING ? "%s\"%s\"" : "%s%s",
                               i > 0 ? " " : "", text);
    }
    *bufp = out;
    return NC_NOERR;
}

/* ---- netcdf_filter.h ------------------------------------------------------------
 * As a netCDF-C built with zstd answers (Debian's is built without it, and
 * there the zstd calls do nothing). */

/* The variable's filters as netCDF-C lists them, in the order they are
 * applied.  For a variable the file had when it was opened, netCDF-C reads
 * them from the file: those the file records, in its order, filters
 * ncslab does not run (szip, N-bit, plugins) included, shuffle with the
 * element size HDF5 records as its parameter.  For one defined since,
 * netCDF-C answers from its own list: those set, in the order it lays
 * them out (Fletcher-32, shuffle, then the compressor; ncslab's files put
 * Fletcher-32 last, doc/chunking.md), shuffle without a parameter.
 * Deflate's and zstd's parameter is the level; Fletcher-32 has none. */
static int filters(int ncid, int varid, v3_filter *f, size_t *np)
{
    unsigned int ids[NCS_MAX_FILTERS];
    int shuffle, deflate, level, zlevel, f32, xtype, nids = 0;
    int opened = v3i_var_opened(ncid, varid);
    size_t size = 0;
    int status = ncs_inq_var_deflate(ncid, varid, &shuffle, &deflate, &level);
    if (status == NC_NOERR)
        status = ncs_inq_var_zstd(ncid, varid, &zlevel);
    if (status == NC_NOERR)
        status = ncs_inq_var_fletcher32(ncid, varid, &f32);
    if (status == NC_NOERR && opened)
        status = ncs_inq_var_filter_ids(ncid, varid, &nids, ids);
    if (status == NC_NOERR)
        status = ncs_inq_vartype(ncid, varid, &xtype);
    if (status == NC_NOERR)
        status = ncs_inq_type_size(xtype, &size);
    if (status != NC_NOERR)
        return status;
    if (!opened) {
        if (f32)
            ids[nids++] = FILTER_FLETCHER32;
        if (shuffle)
            ids[nids++] = FILTER_SHUFFLE;
        if (deflate)
            ids[nids++] = FILTER_DEFLATE;
        if (zlevel)
            ids[nids++] = FILTER_ZSTD;
    }
    for (int i = 0; i < nids; i++) {
        f[i].id = ids[i];
        f[i].known = 1;
        f[i].nparams = 0;
        switch (ids[i]) {
        case FILTER_DEFLATE:
            f[i].nparams = 1;
            f[i].params[0] = (unsigned int)level;
            break;
        case FILTER_ZSTD:
            f[i].nparams = 1;
            f[i].params[0] = (unsigned int)zlevel;
            break;
        case FILTER_SHUFFLE:
            if (opened) {
                f[i].nparams = 1;
                f[i].params[0] = (unsigned int)size;
            }
            break;
        case FILTER_FLETCHER32:
            break;
        default:
            /* a filter ncslab does not run, in a file opened: what the
             * file records, szip's four values as the two netCDF-C reports
             * (the options a caller sets, the pixels per block) */
            status = ncs_inq_var_filter_params(ncid, varid, ids[i], &f[i].nparams,
                                               f[i].params);
            if (status != NC_NOERR)
                return status;
            f[i].known = f[i].nparams <= NCS_MAX_FILTER_PARAMS;
            if (ids[i] == FILTER_SZIP && f[i].nparams == 4) {
                f[i].nparams = 2;
                f[i].params[0] &= SZIP_USER_MASKS;
            }
        }
    }
    *np = (size_t)nids;
    return NC_NOERR;
}

int nc_inq_var_filter_ids(int ncid, int varid, size_t *nfiltersp, unsigned int *ids)
{
    v3_filter f[NCS_MAX_FILTERS];
    size_t n;
    int nc4 = v3i_is_nc4(ncid);
    if (nc4 < 0)
        return nc4;
    if (!nc4) {
        if (nfiltersp != NULL)
            *nfiltersp = 0;
        return NC_NOERR;
    }
    int status = filters(ncid, varid, f, &n);
    if (status != NC_NOERR)
        return status;
    if (nfiltersp != NULL)
        *nfiltersp = n;
    for (size_t i = 0; ids != NULL && i < n; i++)
        ids[i] = f[i].id;
    return NC_NOERR;
}

/* A filter with more parameters than NCS_MAX_FILTER_PARAMS answers
 * NC_ENOFILTER, as one the variable lacks (doc/v3.md). */
int nc_inq_var_filter_info(int ncid, int varid, unsigned int fid, size_t *nparams,
                           unsigned int *params)
{
    v3_filter f[NCS_MAX_FILTERS];
    size_t n;
    int nc4 = v3i_is_nc4(ncid);
    if (nc4 < 0)
        return nc4;
    if (!nc4)
        return NC_ENOFILTER;
    int status = filters(ncid, varid, f, &n);
    if (status != NC_NOERR)
        return status;
    for (size_t i = 0; i < n; i++) {
        if (f[i].id != fid || !f[i].known)
            continue;
        copy_params(&f[i], nparams, params);
        return NC_NOERR;
    }
    return NC_ENOFILTER;
}

int nc_inq_filter_avail(int ncid, unsigned int id)
{
    int nc4 = v3i_is_nc4(ncid);
    if (nc4 < 0)
        return nc4;
    if (!nc4)
        return NC_ENOFILTER;
    return id == FILTER_DEFLATE || id == FILTER_SHUFFLE || id == FILTER_FLETCHER32 ||
                   id == FILTER_ZSTD ? NC_NOERR : NC_ENOFILTER;
}

int nc_def_var_zstandard(int ncid, int varid, int level)
{
    int status = nc_inq_filter_avail(ncid, FILTER_ZSTD);
    if (status != NC_NOERR)
        return status;
    if (level < -131072 || level > 22)
        return NC_EINVAL;
    unsigned int ulevel = (unsigned int)level;
    return nc_def_var_filter(ncid, varid, FILTER_ZSTD, 1, &ulevel);
}

int nc_inq_var_zstandard(int ncid, int varid, int *hasfilterp, int *levelp)
{
    size_t np;
    unsigned int level = 0;
    int has = 0, status = nc_inq_filter_avail(ncid, FILTER_ZSTD);
    if (status == NC_NOERR) {
        status = nc_inq_var_filter_info(ncid, varid, FILTER_ZSTD, &np, &level);
        if (status == NC_NOERR)
            has = 1;
        else if (status == NC_ENOFILTER)
            status = NC_NOERR;
    }
    if (levelp != NULL)
        *levelp = (int)level;
    if (hasfilterp != NULL)
        *hasfilterp = has;
    return status;
}

/* bzip2 and blosc are not among ncslab's filters. */
int nc_def_var_bzip2(int ncid, int varid, int level)
{
    (void)varid, (void)level;
    int status = nc_inq_filter_avail(ncid, 307);
    return status;
}

int nc_inq_var_bzip2(int ncid, int varid, int *hasfilterp, int *levelp)
{
    (void)varid, (void)levelp;
    int status = nc_inq_filter_avail(ncid, 307);
    if (hasfilterp != NULL)
        *hasfilterp = 0;
    return status;
}

int nc_def_var_blosc(int ncid, int varid, unsigned subcompressor, unsigned level,
                     unsigned blocksize, unsigned addshuffle)
{
    (void)varid, (void)subcompressor, (void)level, (void)blocksize, (void)addshuffle;
    return nc_inq_filter_avail(ncid, 32001);
}

int nc_inq_var_blosc(int ncid, int varid, int *hasfilterp, unsigned *subcompressorp,
                     unsigned *levelp, unsigned *blocksizep, unsigned *addshufflep)
{
    (void)varid, (void)subcompressorp, (void)levelp, (void)blocksizep, (void)addshufflep;
    int status = nc_inq_filter_avail(ncid, 32001);
    if (hasfilterp != NULL)
        *hasfilterp = 0;
    return status;
}
