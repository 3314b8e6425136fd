/*
 * dropin_extra.c -- the names installed clients import from netCDF-C's
 * library beyond its netcdf.h (doc/dropin.md lists them and who uses
 * them): netCDF-Fortran's helpers, netcdf_aux.h, and netCDF-C internals
 * that ncdump, nccopy and ncgen call (lists, URIs, paths, logging, the
 * calendar of ncdump -t).
 *
 * The ones taking an ncid route on it like any other call; on an ncslab
 * file they are served here, from the v3 calls they are versions of.
 * The others have no file and go to netCDF-C.  Without netCDF-C they
 * answer what its library gives for a feature not built: NC_ENOTBUILT,
 * or the failure value of the function (NULL, 0); strlcat is plain
 * string code and is served here always (Debian 12's C library has
 * none).
 */
#include "config.h"
#include "dropin.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Calls netCDF-C's function of the same name with args, or evaluates to
 * absent when netCDF-C or the function is missing. */
#define FORWARD(type, name, absent, params, args)      \
    type name params;                                  \
    type name params                                   \
    {                                                  \
        type (*real_) params = (type (*) params)ncsd_sym(#name); \
        return real_ ? real_ args : absent;            \
    }
#define FORWARD_VOID(name, params, args)               \
    void name params;                                  \
    void name params                                   \
    {                                                  \
        void (*real_) params = (void (*) params)ncsd_sym(#name); \
        if (real_)                                     \
            real_ args;                                \
    }

/* ---- netCDF-Fortran's int helpers and the parallel calls ---- */

int nc_def_var_chunking_ints(int ncid, int varid, int contiguous, int *chunksizesp);
int nc_inq_var_chunking_ints(int ncid, int varid, int *contiguousp, int *chunksizesp);
int nc_set_chunk_cache_ints(int size, int nelems, int preemption);
int nc_get_chunk_cache_ints(int *sizep, int *nelemsp, int *preemptionp);
int nc_set_var_chunk_cache_ints(int ncid, int varid, int size, int nelems, int preemption);
int nc_get_var_chunk_cache_ints(int ncid, int varid, int *sizep, int *nelemsp,
                                int *preemptionp);
int nc_var_par_access(int ncid, int varid, int par_access);
int nc_create_par_fortran(const char *path, int cmode, int comm, int info, int *ncidp);
int nc_open_par_fortran(const char *path, int mode, int comm, int info, int *ncidp);

#define MEBIBYTE ((size_t)1 << 20)

/* The netCDF-C function name with an ncid first, for the drop-in id's file. */
#define ROUTED(name, proto_args, ncslab_call, real_args)                 \
    int real, side = ncsd_route(ncid, &real);                           \
    if (side == NCSD_NCSLAB) {                                          \
        int status_ = ncslab_call;                                      \
        if (status_ == NC_NOERR ||                                      \
            ncsd_recover(ncid, status_, &real) != NCSD_NETCDF)          \
            return status_;                                             \
        side = NCSD_NETCDF;     /* handed over (dropin_handover.c) */   \
    }                                                                   \
    if (side == NCSD_NETCDF) {                                          \
        int (*f) proto_args = (int (*) proto_args)ncsd_sym(name);       \
        return f ? f real_args : NC_ENOTBUILT;                          \
    }                                                                   \
    return NC_EBADID

static int ncslab_def_chunking_ints(int ncid, int varid, int contiguous, const int *sizes)
{
    int ndims, status = ncsv3_nc_inq_varndims(ncid, varid, &ndims);
    size_t cs[NC_MAX_VAR_DIMS];
    if (status != NC_NOERR)
        return status;
    for (int i = 0; i < ndims && sizes != NULL; i++)
        cs[i] = sizes[i] < 0 ? 0 : (size_t)sizes[i];
    return ncsv3_nc_def_var_chunking(ncid, varid, contiguous, sizes ? cs : NULL);
}

/* status, a chunking set on an ncslab file, noted for netCDF-C's taking
 * it over (dropin_handover.c) */
static int noted_chunking(int ncid, int varid, int status)
{
    if (status == NC_NOERR && ncsd_writer(ncid) != NULL)
        ncsd_note_setting(ncid, varid, NCSD_SET_CHUNKING);
    return status;
}

int nc_def_var_chunking_ints(int ncid, int varid, int contiguous, int *chunksizesp)
{
    ROUTED("nc_def_var_chunking_ints", (int, int, int, int *),
           noted_chunking(ncid, varid,
                          ncslab_def_chunking_ints(real, varid, contiguous, chunksizesp)),
           (real, varid, contiguous, chunksizesp));
}

static int ncslab_inq_chunking_ints(int ncid, int varid, int *storagep, int *sizes)
{
    size_t cs[NC_MAX_VAR_DIMS];
    int ndims, storage, status = ncsv3_nc_inq_varndims(ncid, varid, &ndims);
    if (status != NC_NOERR)
        return status;
    status = ncsv3_nc_inq_var_chunking(ncid, varid, &storage, cs);
    if (status != NC_NOERR)
        return status;
    if (storagep != NULL)
        *storagep = storage;
    if (sizes != NULL && storage == NC_CHUNKED)
        for (int i = 0; i < ndims; i++) {
            sizes[i] = (int)cs[i];
            if (cs[i] > NC_MAX_INT)
                status = NC_ERANGE;
        }
    return status;
}

int nc_inq_var_chunking_ints(int ncid, int varid, int *contiguousp, int *chunksizesp)
{
    ROUTED("nc_inq_var_chunking_ints", (int, int, int *, int *),
           ncslab_inq_chunking_ints(real, varid, contiguousp, chunksizesp),
           (real, varid, contiguousp, chunksizesp));
}

/* The process-wide cache, in bytes and percent, as netCDF-C's are. */
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
    if (sizep)
        *sizep = (int)size;
    if (nelemsp)
        *nelemsp = (int)nelems;
    if (preemptionp)
        *preemptionp = (int)(preemption * 100);
    return NC_NOERR;
}

/* A variable's cache, in MiB and percent; a negative value keeps netCDF-C's
 * default for that setting. */
static int ncslab_set_var_cache_ints(int ncid, int varid, int size, int nelems, int preemption)
{
    size_t real_size = 16 * MEBIBYTE, real_nelems = 4133;
    float real_preemption = 0.75f;
    if (size >= 0)
        real_size = (size_t)size * MEBIBYTE;
    if (nelems >= 0)
        real_nelems = (size_t)nelems;
    if (preemption >= 0)
        real_preemption = (float)(preemption / 100.);
    return ncsv3_nc_set_var_chunk_cache(ncid, varid, real_size, real_nelems, real_preemption);
}

int nc_set_var_chunk_cache_ints(int ncid, int varid, int size, int nelems, int preemption)
{
    ROUTED("nc_set_var_chunk_cache_ints", (int, int, int, int, int),
           ncslab_set_var_cache_ints(real, varid, size, nelems, preemption),
           (real, varid, size, nelems, preemption));
}

static int ncslab_get_var_cache_ints(int ncid, int varid, int *sizep, int *nelemsp,
                                     int *preemptionp)
{
    size_t size, nelems;
    float preemption;
    int status = ncsv3_nc_get_var_chunk_cache(ncid, varid, &size, &nelems, &preemption);
    if (status != NC_NOERR)
        return status;
    if (sizep)
        *sizep = (int)(size / MEBIBYTE);
    if (nelemsp)
        *nelemsp = (int)nelems;
    if (preemptionp)
        *preemptionp = (int)(preemption * 100);
    return NC_NOERR;
}

int nc_get_var_chunk_cache_ints(int ncid, int varid, int *sizep, int *nelemsp,
                                int *preemptionp)
{
    ROUTED("nc_get_var_chunk_cache_ints", (int, int, int *, int *, int *),
           ncslab_get_var_cache_ints(real, varid, sizep, nelemsp, preemptionp),
           (real, varid, sizep, nelemsp, preemptionp));
}

/* A serial netCDF-C answers NC_ENOPAR; so does ncslab, which has no
 * parallel driver yet. */
int nc_var_par_access(int ncid, int varid, int par_access)
{
    (void)varid; (void)par_access;
    ROUTED("nc_var_par_access", (int, int, int), NC_ENOPAR, (real, varid, par_access));
}

static int par_open(const char *name, const char *path, int mode, int comm, int info,
                    int *ncidp)
{
    int (*f)(const char *, int, int, int, int *) =
        (int (*)(const char *, int, int, int, int *))ncsd_sym(name);
    int real, status;
    if (f == NULL)
        return NC_ENOPAR;
    status = f(path, mode, comm, info, &real);
    if (status == NC_NOERR) {
        status = ncsd_bind(NCSD_NETCDF, real, ncidp);
        if (status != NC_NOERR)
            ncsd_real.nc_abort(real);
    }
    return status;
}

int nc_create_par_fortran(const char *path, int cmode, int comm, int info, int *ncidp)
{
    return par_open("nc_create_par_fortran", path, cmode, comm, info, ncidp);
}

int nc_open_par_fortran(const char *path, int mode, int comm, int info, int *ncidp)
{
    return par_open("nc_open_par_fortran", path, mode, comm, info, ncidp);
}

/* ---- netcdf_aux.h ---- */

int ncaux_reclaim_data(int ncid, int xtype, void *memory, size_t count);
int ncaux_reclaim_data_all(int ncid, int xtype, void *memory, size_t count);
int ncaux_type_alignment(int xtype, int ncid, size_t *alignp);
int ncaux_begin_compound(int ncid, const char *name, int alignmode, void **tag);

/* Atomic values own no memory, except strings (which ncslab never hands
 * out, but a program may have made). */
static int ncslab_reclaim(int ncid, int xtype, void *memory, size_t count, int all)
{
    nc_type type = (nc_type)xtype;
    int status = ncsv3_nc_inq_type(ncid, type, NULL, NULL);
    if (status != NC_NOERR)
        return status;
    if (type == NC_STRING && memory != NULL)
        for (size_t i = 0; i < count; i++)
            free(((char **)memory)[i]);
    if (all)
        free(memory);
    return NC_NOERR;
}

int ncaux_reclaim_data(int ncid, int xtype, void *memory, size_t count)
{
    ROUTED("ncaux_reclaim_data", (int, int, void *, size_t),
           ncslab_reclaim(real, xtype, memory, count, 0), (real, xtype, memory, count));
}

int ncaux_reclaim_data_all(int ncid, int xtype, void *memory, size_t count)
{
    ROUTED("ncaux_reclaim_data_all", (int, int, void *, size_t),
           ncslab_reclaim(real, xtype, memory, count, 1), (real, xtype, memory, count));
}

/* The C alignment of an atomic type; ncslab files have no others. */
static int ncslab_alignment(int ncid, int xtype, size_t *alignp)
{
    size_t size;
    int status = ncsv3_nc_inq_type(ncid, (nc_type)xtype, NULL, &size);
    if (status != NC_NOERR)
        return status;
    if (alignp != NULL)
        *alignp = xtype == NC_STRING ? _Alignof(char *) : size;
    return NC_NOERR;
}

int ncaux_type_alignment(int xtype, int ncid, size_t *alignp)
{
    int real, side = ncsd_route(ncid, &real);
    if (side == NCSD_NCSLAB)
        return ncslab_alignment(real, xtype, alignp);
    int (*f)(int, int, size_t *) = (int (*)(int, int, size_t *))ncsd_sym("ncaux_type_alignment");
    if (f == NULL)
        return NC_ENOTBUILT;
    return f(xtype, side == NCSD_NETCDF ? real : ncid, alignp);
}

/* A compound in an ncslab file: what defining one answers there. */
static int ncslab_begin_compound(int ncid, const char *name)
{
    nc_type type;
    return ncsv3_nc_def_compound(ncid, 1, name, &type);
}

int ncaux_begin_compound(int ncid, const char *name, int alignmode, void **tag)
{
    ROUTED("ncaux_begin_compound", (int, const char *, int, void **),
           ncslab_begin_compound(real, name), (real, name, alignmode, tag));
}

FORWARD(int, ncaux_end_compound, NC_ENOTBUILT, (void *tag, nc_type *xtypeid), (tag, xtypeid))
FORWARD(int, ncaux_abort_compound, NC_ENOTBUILT, (void *tag), (tag))
FORWARD(int, ncaux_add_field, NC_ENOTBUILT,
        (void *tag, const char *name, nc_type field_type, int ndims, const int *dimsizes),
        (tag, name, field_type, ndims, dimsizes))
FORWARD(int, ncaux_class_alignment, NC_ENOTBUILT, (int ncclass, size_t *alignp),
        (ncclass, alignp))
FORWARD(int, ncaux_h5filterspec_parse, NC_ENOTBUILT,
        (const char *txt, unsigned int *idp, size_t *nparamsp, unsigned int **paramsp),
        (txt, idp, nparamsp, paramsp))
FORWARD(int, ncaux_h5filterspec_parselist, NC_ENOTBUILT,
        (const char *txt0, int *formatp, size_t *nspecsp, void ***vectorp),
        (txt0, formatp, nspecsp, vectorp))
FORWARD(int, ncaux_h5filterspec_parse_parameter, NC_ENOTBUILT,
        (const char *txt, size_t *nuiparamsp, unsigned int *uiparams),
        (txt, nuiparamsp, uiparams))
FORWARD_VOID(ncaux_h5filterspec_free, (void *f), (f))
FORWARD_VOID(ncaux_h5filterspec_fix8, (unsigned char *mem, int decode), (mem, decode))
FORWARD(int, ncaux_readfile, NC_ENOTBUILT, (const char *filename, size_t *sizep, void **content),
        (filename, sizep, content))
FORWARD(int, ncaux_writefile, NC_ENOTBUILT, (const char *filename, size_t size, void *content),
        (filename, size, content))

/* ---- netCDF-C internals the netcdf-bin programs call ---- */

FORWARD(void *, nclistnew, NULL, (void), ())
FORWARD(int, nclistfree, 0, (void *l), (l))
FORWARD(int, nclistpush, 0, (void *l, const void *elem), (l, elem))
FORWARD(void *, nclistremove, NULL, (void *l, size_t i), (l, i))
FORWARD(int, ncuriparse, NC_EURL, (const char *s, void **uri), (s, uri))
FORWARD_VOID(ncurifree, (void *uri), (uri))
FORWARD(char *, ncuribuild, NULL, (void *uri, const char *prefix, const char *suffix, int flags),
        (uri, prefix, suffix, flags))
FORWARD(int, ncuriappendfragmentkey, NC_EURL, (void *uri, const char *key, const char *value),
        (uri, key, value))
FORWARD(int, ncsetlogging, 0, (int tf), (tf))
FORWARD(int, nc__testurl, 0, (const char *path, char **basenamep), (path, basenamep))
FORWARD(int, nc_utf8_to_utf16, NC_ENOTBUILT,
        (const unsigned char *s8, unsigned short **utf16p, size_t *lenp), (s8, utf16p, lenp))
FORWARD(int, cdSetErrOpts, 0, (int opts), (opts))
FORWARD(int, cdParseRelunits, 1, (int timetype, char *relunits, void *unit, void *base_comptime),
        (timetype, relunits, unit, base_comptime))
FORWARD_VOID(cdRel2Iso, (int timetype, char *relunits, int separator, double reltime,
                         char *chartime), (timetype, relunits, separator, reltime, chartime))
FORWARD_VOID(cdChar2Comp, (int timetype, char *chartime, void *comptime),
             (timetype, chartime, comptime))
FORWARD_VOID(Cdh2e, (void *htime, double *etime), (htime, etime))

int NCpathcanonical(const char *srcpath, char **canonp);
char *NC_shellUnescape(const char *esc);
void nclog(int tag, const char *fmt, ...);
size_t strlcat(char *dst, const char *src, size_t size);

/* A copy of a path as it is, when netCDF-C is not there to canonicalise it. */
int NCpathcanonical(const char *srcpath, char **canonp)
{
    int (*f)(const char *, char **) = (int (*)(const char *, char **))ncsd_sym("NCpathcanonical");
    if (f != NULL)
        return f(srcpath, canonp);
    if (srcpath == NULL || canonp == NULL)
        return NC_EINVAL;
    *canonp = strdup(srcpath);
    return *canonp ? NC_NOERR : NC_ENOMEM;
}

/* A copy with every backslash escape undone. */
char *NC_shellUnescape(const char *esc)
{
    char *(*f)(const char *) = (char *(*)(const char *))ncsd_sym("NC_shellUnescape");
    if (f != NULL)
        return f(esc);
    if (esc == NULL)
        return NULL;
    char *s = malloc(strlen(esc) + 1), *d = s;
    if (s == NULL)
        return NULL;
    for (; *esc; esc++) {
        if (*esc == '\\' && esc[1] != '\0')
            esc++;
        *d++ = *esc;
    }
    *d = '\0';
    return s;
}

void nclog(int tag, const char *fmt, ...)
{
    int (*f)(int, const char *, va_list) =
        (int (*)(int, const char *, va_list))ncsd_sym("ncvlog");
    if (f == NULL)
        return;
    va_list ap;
    va_start(ap, fmt);
    f(tag, fmt, ap);
    va_end(ap);
}

/* BSD's strlcat: appends src to dst of size bytes, always terminated
 * when there is room; the length it tried to make. */
size_t strlcat(char *dst, const char *src, size_t size)
{
    size_t dlen = strnlen(dst, size), slen = strlen(src);
    if (dlen == size)
        return size + slen;
    size_t n = slen < size - dlen - 1 ? slen : size - dlen - 1;
    memcpy(dst + dlen, src, n);
    dst[dlen + n] = '\0';
    return dlen + slen;
}
