/*
 * nc4_meta.c -- netCDF-4 metadata in HDF5: reading a file's model, and
 * writing the model as the objects and attributes netCDF-4 readers expect
 * (the layout is described in hdf5_store.h).
 *
 * Only the classic data model is represented: one group, the classic
 * types, fixed-size text and numeric attributes.  A file using netCDF-4's
 * enhanced model (groups, user-defined types, strings) is refused with
 * NCS_ENOTBUILT rather than half read: a valid file this library has no
 * support for, as netCDF-C answers for a netCDF-4 file when built without
 * it.  HDF5 types netCDF has no type for stay NCS_EBADTYPE.
 */
#include "hdf5_store.h"

#include <hdf5_hl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DIM_ONLY_PREFIX "This is a netCDF dimension but not a netCDF variable."
/* The link-name prefix of a variable named like a dimension it is not the
 * coordinate variable of: the dimension's scale holds the plain name. */
#define NON_COORD_PREFIX "_nc4_non_coord_"

/* Attributes that carry netCDF-4, dimension-scale or xarray/NCZarr
 * bookkeeping, which netCDF-C 4.9 does not show as netCDF attributes (on
 * any object).  The _Quantize* attributes are not among them: netCDF-C
 * reports them like any other. */
static int reserved_att(const char *name)
{
    static const char *const names[] = {
        "CLASS", "NAME", "REFERENCE_LIST", "DIMENSION_LIST", "_Netcdf4Coordinates",
        "_Netcdf4Dimid", "_nc3_strict", "_NCProperties", "_SuperblockVersion",
        "_IsNetcdf4", "_Format", "_ARRAY_DIMENSIONS", "_Codecs",
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(name, names[i]) == 0)
            return 1;
    return 0;
}

/* ---- types ------------------------------------------------------------------ */

hid_t ncsi_nc4_h5type(int xtype)
{
    switch (xtype) {
    case NCS_BYTE:   return H5T_NATIVE_SCHAR;
    case NCS_CHAR:   return H5T_NATIVE_UCHAR;   /* stored as a 1-byte string */
    case NCS_SHORT:  return H5T_NATIVE_SHORT;
    case NCS_INT:    return H5T_NATIVE_INT;
    case NCS_FLOAT:  return H5T_NATIVE_FLOAT;
    case NCS_DOUBLE: return H5T_NATIVE_DOUBLE;
    case NCS_UBYTE:  return H5T_NATIVE_UCHAR;
    case NCS_USHORT: return H5T_NATIVE_USHORT;
    case NCS_UINT:   return H5T_NATIVE_UINT;
    case NCS_INT64:  return H5T_NATIVE_LLONG;
    case NCS_UINT64: return H5T_NATIVE_ULLONG;
    default:         return -1;
    }
}

/* The netCDF type of an HDF5 type; *swap says whether its byte order is
 * not the machine's.  0 when it has none. */
static int nc_type_of(hid_t t, int *swap)
{
    H5T_class_t cls = H5Tget_class(t);
    size_t size = H5Tget_size(t);
    H5T_order_t order;
    *swap = 0;
    if (cls == H5T_STRING) {
        if (H5Tis_variable_str(t) > 0 || size != 1)
            return 0;
        return NCS_CHAR;
    }
    order = H5Tget_order(t);
#ifdef WORDS_BIGENDIAN
    *swap = size > 1 && order == H5T_ORDER_LE;
#else
    *swap = size > 1 && order == H5T_ORDER_BE;
#endif
    if (cls == H5T_INTEGER) {
        int sgn = H5Tget_sign(t) == H5T_SGN_2;
        switch (size) {
        case 1: return sgn ? NCS_BYTE : NCS_UBYTE;
        case 2: return sgn ? NCS_SHORT : NCS_USHORT;
        case 4: return sgn ? NCS_INT : NCS_UINT;
        case 8: return sgn ? NCS_INT64 : NCS_UINT64;
        default: return 0;
        }
    }
    if (cls == H5T_FLOAT)
        return size == 4 ? NCS_FLOAT : size == 8 ? NCS_DOUBLE : 0;
    return 0;
}

/* The status for an HDF5 type that is not a classic one: the enhanced
 * model's strings (variable-length, or fixed-length of more than one
 * byte, netCDF-C's NC_STRING) and user-defined types (compound, enum,
 * variable-length, opaque) are NCS_ENOTBUILT, anything else NCS_EBADTYPE. */
static int not_classic(hid_t t)
{
    switch (H5Tget_class(t)) {
    case H5T_STRING:
    case H5T_COMPOUND:
    case H5T_ENUM:
    case H5T_VLEN:
    case H5T_OPAQUE:
        return NCS_ERR(NCS_ENOTBUILT);
    default:
        return NCS_ERR(NCS_EBADTYPE);
    }
}

/* A fixed-size ASCII string type of n bytes, NUL-terminated padding, as
 * netCDF-4 stores text. */
static hid_t text_type(size_t n)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    if (t < 0)
        return -1;
    if (H5Tset_size(t, n ? n : 1) < 0 || H5Tset_strpad(t, H5T_STR_NULLTERM) < 0 ||
        H5Tset_cset(t, H5T_CSET_ASCII) < 0) {
        H5Tclose(t);
        return -1;
    }
    return t;
}

/* ---- files ------------------------------------------------------------------- */

static int nc4_initialised;

int ncsi_nc4_init(void)
{
    if (!nc4_initialised) {
        if (H5open() < 0)
            return NCS_ERR(NCS_EHDFERR);
        /* failures are reported as status codes, not printed */
        H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
        nc4_initialised = 1;
    }
    return NCS_NOERR;
}

/* HDF5's metadata cache grows to 32 MiB by default, and each chunk index
 * node it keeps costs about twice its size in the file: a row-major read of
 * 10,800 chunks left 4 MiB of nodes behind (0.4 MiB with this limit).
 * ncslab looks a chunk up only when its own cache misses, so a small
 * metadata cache costs little time: the nodes are re-read from the page
 * cache, and neither that scan nor writing its file got slower. */
#define META_CACHE ((size_t)128 << 10)

static int small_metadata_cache(hid_t fapl)
{
    H5AC_cache_config_t mdc;
    memset(&mdc, 0, sizeof mdc);
    mdc.version = H5AC__CURR_CACHE_CONFIG_VERSION;
    if (H5Pget_mdc_config(fapl, &mdc) < 0)
        return -1;
    mdc.set_initial_size = 1;
    mdc.initial_size = META_CACHE;
    mdc.max_size = META_CACHE;
    mdc.min_size = META_CACHE / 2;
    return H5Pset_mdc_config(fapl, &mdc) < 0 ? -1 : 0;
}

static hid_t file_access_plist(void)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (fapl < 0)
        return -1;
    /* readable by HDF5 1.8, as netCDF-C writes its files; the weak close
     * degree is netCDF-C's too.  HDF5 shares one open file between ncslab's
     * handles of it (the driver compares files); netCDF-C's handles, with
     * HDF5's default driver, have their own */
    if (H5Pset_libver_bounds(fapl, H5F_LIBVER_EARLIEST, H5F_LIBVER_V18) < 0 ||
        H5Pset_fclose_degree(fapl, H5F_CLOSE_WEAK) < 0 ||
        /* through the journal, so that a crash leaves a committed state */
        ncsi_h5j_driver() < 0 || H5Pset_driver(fapl, ncsi_h5j_driver(), NULL) < 0 ||
        small_metadata_cache(fapl) < 0) {
        H5Pclose(fapl);
        return -1;
    }
    return fapl;
}

int ncsi_nc4_create(const char *path, int cmode, hid_t *fidp)
{
    hid_t fcpl = -1, fapl = -1, fid = -1;
    unsigned order = H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED;
    int status = ncsi_nc4_init();
    if (status != NCS_NOERR)
        return status;
    if (cmode & NCS_NOCLOBBER) {
        FILE *probe = fopen(path, "r");
        if (probe != NULL) {
            fclose(probe);
            return NCS_ERR(NCS_EEXIST);
        }
    }
    fcpl = H5Pcreate(H5P_FILE_CREATE);
    fapl = file_access_plist();
    if (fcpl < 0 || fapl < 0 || H5Pset_link_creation_order(fcpl, order) < 0 ||
        H5Pset_attr_creation_order(fcpl, order) < 0) {
        status = NCS_ERR(NCS_EHDFERR);
        goto done;
    }
    fid = H5Fcreate(path, (cmode & NCS_NOCLOBBER) ? H5F_ACC_EXCL : H5F_ACC_TRUNC, fcpl, fapl);
    if (fid < 0) {
        status = NCS_ERR(NCS_EHDFERR);
        goto done;
    }
    *fidp = fid;
done:
    if (fcpl >= 0)
        H5Pclose(fcpl);
    if (fapl >= 0)
        H5Pclose(fapl);
    return status;
}

int ncsi_nc4_open(const char *path, int write, hid_t *fidp)
{
    hid_t fapl, fid;
    int status = ncsi_nc4_init();
    if (status != NCS_NOERR)
        return status;
    fapl = file_access_plist();
    if (fapl < 0)
        return NCS_ERR(NCS_EHDFERR);
    fid = H5Fopen(path, write ? H5F_ACC_RDWR : H5F_ACC_RDONLY, fapl);
    H5Pclose(fapl);
    if (fid < 0)
        return NCS_ERR(NCS_ENOTNC);
    *fidp = fid;
    return NCS_NOERR;
}

/* ---- attributes -------------------------------------------------------------- */

/* Writes a as a new attribute of obj, or with in_place into obj's existing
 * attribute of its name, type and length. */
static int write_att(hid_t obj, const ncs_att *a, int in_place)
{
    hid_t t = -1, space = -1, attr = -1;
    size_t n = (size_t)a->nelems, esz = ncsi_type_size(a->type);
    void *native = NULL;
    int status = NCS_NOERR;

    if (a->type == NCS_CHAR) {
        t = text_type(n);
        space = n ? H5Screate(H5S_SCALAR) : H5Screate(H5S_NULL);
    } else {
        hsize_t dim = n;
        t = H5Tcopy(ncsi_nc4_h5type(a->type));
        space = n ? H5Screate_simple(1, &dim, NULL) : H5Screate(H5S_NULL);
    }
    if (t < 0 || space < 0) {
        status = NCS_ERR(NCS_EHDFERR);
        goto done;
    }
    attr = in_place ? H5Aopen(obj, a->name, H5P_DEFAULT)
                    : H5Acreate2(obj, a->name, t, space, H5P_DEFAULT, H5P_DEFAULT);
    if (attr < 0) {
        status = NCS_ERR(NCS_EHDFERR);
        goto done;
    }
    if (n > 0) {
        native = ncsi_malloc(n * esz);
        if (native == NULL) {
            status = NCS_ERR(NCS_ENOMEM);
            goto done;
        }
        ncsi_decode(a->type, a->xval, n, a->type, native, 1, 5);
        if (H5Awrite(attr, t, native) < 0)
            status = NCS_ERR(NCS_EHDFERR);
    }
done:
    free(native);
    if (attr >= 0)
        H5Aclose(attr);
    if (space >= 0)
        H5Sclose(space);
    if (t >= 0)
        H5Tclose(t);
    return status;
}

typedef struct att_walk {
    ncs_attlist *list;
    int status;
} att_walk;

/* Reads one attribute into the walk's list. */
static herr_t read_att_cb(hid_t obj, const char *name, const H5A_info_t *info, void *data)
{
    att_walk *w = data;
    hid_t attr = -1, t = -1, space = -1;
    ncs_att a;
    hssize_t npoints;
    int type, swap, status = NCS_NOERR;
    size_t esz;
    (void)info;

    if (reserved_att(name))
        return 0;
    memset(&a, 0, sizeof a);
    attr = H5Aopen(obj, name, H5P_DEFAULT);
    if (attr < 0 || (t = H5Aget_type(attr)) < 0 || (space = H5Aget_space(attr)) < 0) {
        status = NCS_ERR(NCS_EHDFERR);
        goto done;
    }
    npoints = H5Sget_select_npoints(space);
    if (H5Sget_simple_extent_type(space) == H5S_NULL)
        npoints = 0;
    if (npoints < 0) {
        status = NCS_ERR(NCS_EHDFERR);
        goto done;
    }
    if (H5Tget_class(t) == H5T_STRING) {
        size_t size = H5Tget_size(t);
        if (H5Tis_variable_str(t) > 0) {
            status = not_classic(t);
            goto done;
        }
        type = NCS_CHAR;
        a.nelems = npoints ? (uint64_t)npoints * size : 0;
    } else {
        type = nc_type_of(t, &swap);
        if (type == 0 || type == NCS_CHAR) {
            status = not_classic(t);
            goto done;
        }
        a.nelems = (uint64_t)npoints;
    }
    a.type = type;
    esz = ncsi_type_size(type);
    a.name = ncsi_strdup(name);
    a.xval = ncsi_malloc(a.nelems ? (size_t)a.nelems * esz : 1);
    if (a.name == NULL || a.xval == NULL) {
        status = NCS_ERR(NCS_ENOMEM);
        goto done;
    }
    if (a.nelems > 0) {
        void *native = ncsi_malloc((size_t)a.nelems * esz);
        hid_t mt = type == NCS_CHAR ? H5Tcopy(t) : H5Tcopy(ncsi_nc4_h5type(type));
        if (native == NULL || mt < 0 || H5Aread(attr, mt, native) < 0)
            status = native == NULL ? NCS_ERR(NCS_ENOMEM) : NCS_ERR(NCS_EHDFERR);
        else
            ncsi_encode(type, a.xval, (size_t)a.nelems, type, native, 1, 5);
        if (mt >= 0)
            H5Tclose(mt);
        free(native);
    }
    if (status == NCS_NOERR)
        status = ncsi_attlist_put(w->list, &a);
done:
    if (status != NCS_NOERR)
        ncsi_att_free(&a);
    if (space >= 0)
        H5Sclose(space);
    if (t >= 0)
        H5Tclose(t);
    if (attr >= 0)
        H5Aclose(attr);
    w->status = status;
    return status == NCS_NOERR ? 0 : -1;
}

static int read_atts(hid_t obj, ncs_attlist *list)
{
    att_walk w = { list, NCS_NOERR };
    hsize_t idx = 0;
    /* creation order where the file tracks it, else by name */
    if (H5Aiterate2(obj, H5_INDEX_CRT_ORDER, H5_ITER_INC, &idx, read_att_cb, &w) < 0) {
        if (w.status != NCS_NOERR)
            return w.status;
        ncsi_attlist_free(list);
        idx = 0;
        if (H5Aiterate2(obj, H5_INDEX_NAME, H5_ITER_INC, &idx, read_att_cb, &w) < 0)
            return w.status != NCS_NOERR ? w.status : NCS_ERR(NCS_EHDFERR);
    }
    for (int i = 0; i < list->n; i++)
        list->a[i].in_file = 1;
    return NCS_NOERR;
}

static herr_t collect_names_cb(hid_t obj, const char *name, const H5A_info_t *info, void *data)
{
    ncs_attlist *l = data;
    ncs_att a;
    (void)obj;
    (void)info;
    if (reserved_att(name))
        return 0;
    memset(&a, 0, sizeof a);
    a.name = ncsi_strdup(name);
    a.xval = ncsi_malloc(1);
    if (a.name == NULL || a.xval == NULL || ncsi_attlist_put(l, &a) != NCS_NOERR) {
        ncsi_att_free(&a);
        return -1;
    }
    return 0;
}

/* Whether obj's attribute name has a's type and length, so that a's value
 * can be written into it. */
static int same_shape(hid_t obj, const char *name, const ncs_att *a)
{
    hid_t attr = H5Aopen(obj, name, H5P_DEFAULT), t = -1, space = -1;
    int same = 0, swap;
    if (attr >= 0 && (t = H5Aget_type(attr)) >= 0 && (space = H5Aget_space(attr)) >= 0) {
        int null = H5Sget_simple_extent_type(space) == H5S_NULL;
        hssize_t np = null ? 0 : H5Sget_simple_extent_npoints(space);
        if (a->type == NCS_CHAR)
            same = H5Tget_class(t) == H5T_STRING && H5Tis_variable_str(t) == 0 &&
                   (a->nelems == 0 ? null : np == 1 && H5Tget_size(t) == a->nelems);
        else
            same = nc_type_of(t, &swap) == a->type && np >= 0 && (uint64_t)np == a->nelems;
    }
    if (space >= 0)
        H5Sclose(space);
    if (t >= 0)
        H5Tclose(t);
    if (attr >= 0)
        H5Aclose(attr);
    return same;
}

/* Brings obj's netCDF attributes in line with the list, in netCDF-C's file
 * order: an attribute already in the file keeps its place when rewritten
 * with its type and length; one that is new, renamed, deleted and added
 * again, or rewritten with another type or length is created anew, after
 * the others (readers list attributes by creation order, so after a
 * reopen it comes last, as in netCDF-C's files). */
static int rewrite_atts(hid_t obj, ncs_attlist *list)
{
    ncs_attlist old = { 0, 0, NULL };
    hsize_t idx = 0;
    int status = NCS_NOERR;
    if (H5Aiterate2(obj, H5_INDEX_NAME, H5_ITER_INC, &idx, collect_names_cb, &old) < 0)
        status = NCS_ERR(NCS_EHDFERR);
    for (int i = 0; i < old.n && status == NCS_NOERR; i++) {
        int k = ncsi_find_att(list, old.a[i].name);
        if (k >= 0 && list->a[k].in_file && same_shape(obj, old.a[i].name, &list->a[k]))
            continue;
        if (k >= 0)
            list->a[k].in_file = 0;
        if (H5Adelete(obj, old.a[i].name) < 0)
            status = NCS_ERR(NCS_EHDFERR);
    }
    for (int i = 0; i < list->n && status == NCS_NOERR; i++) {
        /* in the file still, after the deletions above: in place */
        int keep = list->a[i].in_file && ncsi_find_att(&old, list->a[i].name) >= 0;
        status = write_att(obj, &list->a[i], keep);
        if (status == NCS_NOERR)
            list->a[i].in_file = 1;
    }
    ncsi_attlist_free(&old);
    return status;
}

static int write_int_att(hid_t obj, const char *name, int ndims, const int *vals)
{
    hid_t space, attr;
    hsize_t dim = (hsize_t)ndims;
    int status = NCS_NOERR;
    if (H5Aexists(obj, name) > 0)
        H5Adelete(obj, name);
    space = ndims < 0 ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &dim, NULL);
    if (space < 0)
        return NCS_ERR(NCS_EHDFERR);
    attr = H5Acreate2(obj, name, H5T_NATIVE_INT, space, H5P_DEFAULT, H5P_DEFAULT);
    if (attr < 0 || H5Awrite(attr, H5T_NATIVE_INT, vals) < 0)
        status = NCS_ERR(NCS_EHDFERR);
    if (attr >= 0)
        H5Aclose(attr);
    H5Sclose(space);
    return status;
}

static int read_int_att(hid_t obj, const char *name, int max, int *vals, int *n)
{
    hid_t attr, space;
    hssize_t np;
    int status = NCS_NOERR;
    if (H5Aexists(obj, name) <= 0)
        return NCS_ERR(NCS_ENOTATT);
    attr = H5Aopen(obj, name, H5P_DEFAULT);
    if (attr < 0)
        return NCS_ERR(NCS_EHDFERR);
    space = H5Aget_space(attr);
    np = space >= 0 ? H5Sget_simple_extent_npoints(space) : -1;
    if (np < 1 || np > max || H5Aread(attr, H5T_NATIVE_INT, vals) < 0)
        status = NCS_ERR(NCS_ENOTNC);
    *n = (int)np;
    if (space >= 0)
        H5Sclose(space);
    H5Aclose(attr);
    return status;
}

static int write_text_att(hid_t obj, const char *name, const char *text)
{
    ncs_att a;
    a.name = (char *)name;
    a.namelen = 0;
    a.type = NCS_CHAR;
    a.nelems = strlen(text);
    a.xval = (void *)text;
    if (H5Aexists(obj, name) > 0)
        H5Adelete(obj, name);
    return write_att(obj, &a, 0);
}

/* ---- reading a file ------------------------------------------------------------- */

typedef struct dsinfo {
    char *name;
    hid_t ds;
    int owned;               /* ds now belongs to a variable */
    int is_scale, dim_only, dimid;
    int fileid;              /* a scale's dimid as netCDF-C numbers it */
    haddr_t addr;
    int rank;
    /* rank elements each, one allocation (a file may hold thousands of
     * datasets, nearly all of low rank) */
    hsize_t *dims, *maxdims;
} dsinfo;

typedef struct ds_walk {
    dsinfo *list;
    int n, cap;
    int status;
    int ndims;
    int dense;               /* every fileid is the dimid */
} ds_walk;

/* Whether an attribute holds exactly one element (scalar or extent 1). */
static int att_one_element(hid_t attr)
{
    hid_t space = H5Aget_space(attr);
    hssize_t n;
    if (space < 0)
        return 0;
    n = H5Sget_simple_extent_npoints(space);
    H5Sclose(space);
    return n == 1;
}

static int text_att_value(hid_t obj, const char *name, char *buf, size_t cap)
{
    hid_t attr, t, mt;
    size_t size;
    int ok = 0;
    if (H5Aexists(obj, name) <= 0)
        return 0;
    attr = H5Aopen(obj, name, H5P_DEFAULT);
    if (attr < 0)
        return 0;
    t = H5Aget_type(attr);
    /* one fixed-length string only: an array of them would not fit in buf */
    if (t >= 0 && H5Tget_class(t) == H5T_STRING && H5Tis_variable_str(t) <= 0 &&
        (size = H5Tget_size(t)) < cap && att_one_element(attr)) {
        mt = H5Tcopy(t);
        memset(buf, 0, cap);
        ok = mt >= 0 && H5Aread(attr, mt, buf) >= 0;
        if (mt >= 0)
            H5Tclose(mt);
    }
    if (t >= 0)
        H5Tclose(t);
    H5Aclose(attr);
    return ok;
}

static herr_t ds_cb(hid_t group, const char *name, const H5L_info_t *info, void *data)
{
    ds_walk *w = data;
    H5O_info_t oi;
    dsinfo *d;
    hid_t space;
    char buf[128];
    (void)info;
    /* only what the link leads to: the full information would also walk
     * each dataset's chunk index, which reading the metadata does not need
     * (a damaged index then fails the reads that use it, not the open) */
    if (H5Oget_info_by_name2(group, name, &oi, H5O_INFO_BASIC, H5P_DEFAULT) < 0) {
        w->status = NCS_ERR(NCS_EHDFERR);
        return -1;
    }
    if (oi.type != H5O_TYPE_DATASET) {
        /* groups and named types are outside the classic model */
        w->status = NCS_ERR(NCS_ENOTBUILT);
        return -1;
    }
    if (w->n == w->cap) {
        int cap = w->cap ? w->cap * 2 : 16;
        dsinfo *nl = ncsi_realloc(w->list, (size_t)cap * sizeof *nl);
        if (nl == NULL) {
            w->status = NCS_ERR(NCS_ENOMEM);
            return -1;
        }
        w->list = nl;
        w->cap = cap;
    }
    d = &w->list[w->n];
    memset(d, 0, sizeof *d);
    d->dimid = -1;
    d->addr = oi.addr;
    d->name = ncsi_strdup(name);
    d->ds = H5Dopen2(group, name, H5P_DEFAULT);
    if (d->name == NULL || d->ds < 0) {
        free(d->name);
        if (d->ds >= 0)
            H5Dclose(d->ds);
        w->status = d->name == NULL ? NCS_ERR(NCS_ENOMEM) : NCS_ERR(NCS_EHDFERR);
        return -1;
    }
    w->n++;
    space = H5Dget_space(d->ds);
    d->rank = space >= 0 ? H5Sget_simple_extent_ndims(space) : -1;
    if (d->rank < 0 || d->rank > NCS_MAX_VAR_DIMS) {
        if (space >= 0)
            H5Sclose(space);
        w->status = NCS_ERR(NCS_ENOTNC);
        return -1;
    }
    d->dims = ncsi_malloc(2 * (size_t)(d->rank ? d->rank : 1) * sizeof *d->dims);
    if (d->dims == NULL) {
        H5Sclose(space);
        w->status = NCS_ERR(NCS_ENOMEM);
        return -1;
    }
    d->maxdims = d->dims + d->rank;
    H5Sget_simple_extent_dims(space, d->dims, d->maxdims);
    H5Sclose(space);
    d->is_scale = text_att_value(d->ds, "CLASS", buf, sizeof buf) &&
                  strcmp(buf, "DIMENSION_SCALE") == 0;
    if (d->is_scale && text_att_value(d->ds, "NAME", buf, sizeof buf) &&
        strncmp(buf, DIM_ONLY_PREFIX, strlen(DIM_ONLY_PREFIX)) == 0)
        d->dim_only = 1;
    if (d->is_scale) {
        int id, n;
        /* a negative one is no number, as in netCDF-C */
        if (read_int_att(d->ds, "_Netcdf4Dimid", 1, &id, &n) == NCS_NOERR && id >= 0)
            d->dimid = id;
    }
    return 0;
}

/* Storage settings and pipeline of an existing dataset. */
static int read_storage(cvar *cv)
{
    hid_t dcpl = H5Dget_create_plist(cv->dset);
    int status = NCS_NOERR, nf, after_fletcher32 = 0;
    if (dcpl < 0)
        return NCS_ERR(NCS_EHDFERR);
    memset(&cv->st, 0, sizeof cv->st);
    cv->nf = 0;
    cv->direct = 0;
    if (H5Pget_layout(dcpl) == H5D_CHUNKED) {
        hsize_t ch[NCS_MAX_VAR_DIMS];
        if (H5Pget_chunk(dcpl, cv->ndims, ch) != cv->ndims) {
            status = NCS_ERR(NCS_ENOTNC);
            goto done;
        }
        for (int d = 0; d < cv->ndims; d++) {
            if (ch[d] == 0) {
                status = NCS_ERR(NCS_ENOTNC);
                goto done;
            }
            cv->stchunks[d] = ch[d];
        }
        cv->st.chunks_set = 1;
        cv->direct = 1;
    } else {
        /* contiguous, compact (and virtual) datasets go through HDF5's
         * selection I/O: nothing to cache, whatever their size */
        cv->st.contiguous = 1;
        cv->st.compact = H5Pget_layout(dcpl) == H5D_COMPACT;
    }
    nf = H5Pget_nfilters(dcpl);
    if (nf < 0 || nf > NCSI_MAX_FILTERS) {
        cv->direct = 0;
        nf = nf < 0 ? 0 : nf;
    }
    for (int i = 0; i < nf && i < NCSI_MAX_FILTERS; i++) {
        unsigned flags, cd[8] = { 0 }, config;
        size_t ncd = 8;
        char fname[64];
        H5Z_filter_t id = H5Pget_filter2(dcpl, (unsigned)i, &flags, &ncd, cd, sizeof fname,
                                         fname, &config);
        if (id < 0) {
            status = NCS_ERR(NCS_EHDFERR);
            goto done;
        }
        cv->pipe[i].id = (unsigned)id;
        cv->pipe[i].level = ncd > 0 ? cd[0] : 0;
        if (!ncsi_filter_known((unsigned)id))
            cv->direct = 0;
        /* HDF5 1.10 reads out of bounds on a pipeline where a filter
         * ncslab cannot run itself (N-bit, scale-offset...) follows
         * Fletcher-32, so such a variable cannot go to HDF5's read path;
         * netCDF-C's pipelines (Fletcher-32, shuffle, deflate or zstd)
         * ncslab decodes itself. */
        if (after_fletcher32 && !ncsi_filter_known((unsigned)id)) {
            status = NCS_ERR(NCS_EFILTER);
            goto done;
        }
        if (id == NCSI_FILTER_SHUFFLE)
            cv->st.shuffle = 1;
        else if (id == NCSI_FILTER_DEFLATE)
            cv->st.deflate_level = (int)cv->pipe[i].level;
        else if (id == NCSI_FILTER_ZSTD)
            cv->st.zstd_level = (int)cv->pipe[i].level;
        else if (id == NCSI_FILTER_FLETCHER32)
            cv->st.fletcher32 = after_fletcher32 = 1;
    }
    cv->nf = nf < NCSI_MAX_FILTERS ? nf : NCSI_MAX_FILTERS;
done:
    H5Pclose(dcpl);
    return status;
}

/* The dimid of the dimension netCDF-C numbers id (the numbers
 * _Netcdf4Coordinates holds); -1 when there is none. */
static int dim_by_fileid(const ds_walk *w, int id)
{
    if (w->dense)
        return id >= 0 && id < w->ndims ? id : -1;
    for (int i = 0; i < w->n; i++)
        if (w->list[i].is_scale && w->list[i].fileid == id)
            return w->list[i].dimid;
    return -1;
}

typedef struct scale_find {
    const ds_walk *w;
    int found;               /* index into w->list; -1: none */
} scale_find;

/* Finds an attached scale among the walk's scales by object address. */
static herr_t scale_find_cb(hid_t dset, unsigned dim, hid_t scale, void *data)
{
    scale_find *s = data;
    H5O_info_t oi;
    (void)dset;
    (void)dim;
    if (H5Oget_info2(scale, &oi, H5O_INFO_BASIC) < 0)
        return -1;
    for (int i = 0; i < s->w->n; i++) {
        if (s->w->list[i].is_scale && s->w->list[i].addr == oi.addr) {
            s->found = i;
            return 1;
        }
    }
    return 0;
}

/* Which dimension each axis of a variable uses: its _Netcdf4Coordinates
 * when they name dimensions of the file (a scale's own first); else a dimension scale's first
 * axis is its own dimension and every other axis the first scale its
 * DIMENSION_LIST names.  Only the variable's own references are followed,
 * as netCDF-C does: a scale's REFERENCE_LIST may hold null or dangling
 * entries that other writers left behind. */
static int var_dimids(const dsinfo *d, const ds_walk *w, int *dimids)
{
    int n, ax, coords[NCS_MAX_VAR_DIMS];
    if (d->rank == 0)
        return NCS_NOERR;
    if (read_int_att(d->ds, "_Netcdf4Coordinates", NCS_MAX_VAR_DIMS, coords, &n) == NCS_NOERR &&
        n == d->rank) {
        for (ax = 0; ax < d->rank; ax++) {
            dimids[ax] = dim_by_fileid(w, coords[ax]);
            /* a scale is the coordinate variable of its first axis */
            if (dimids[ax] < 0 || (ax == 0 && d->is_scale && dimids[0] != d->dimid))
                break;
        }
        if (ax == d->rank)
            return NCS_NOERR;
    }
    for (ax = 0; ax < d->rank; ax++) {
        scale_find s = { w, -1 };
        if (ax == 0 && d->is_scale) {
            dimids[0] = d->dimid;
            continue;
        }
        if (H5DSiterate_scales(d->ds, (unsigned)ax, NULL, scale_find_cb, &s) < 0 || s.found < 0)
            return NCS_ERR(NCS_ENOTNC);
        dimids[ax] = w->list[s.found].dimid;
    }
    return NCS_NOERR;
}

/* A variable's name from its link name. */
static const char *var_name(const char *h5name)
{
    size_t n = strlen(NON_COORD_PREFIX);
    if (strncmp(h5name, NON_COORD_PREFIX, n) == 0 && h5name[n] != '\0')
        return h5name + n;
    return h5name;
}

static int by_fileid(const void *a, const void *b)
{
    const dsinfo *x = *(const dsinfo *const *)a, *y = *(const dsinfo *const *)b;
    return (x->fileid > y->fileid) - (x->fileid < y->fileid);
}

/* Numbers the scales as netCDF-C does: a scale's _Netcdf4Dimid, else one
 * past the highest number given so far, in the walk's order.  Where those
 * numbers leave gaps (scales of other writers lack _Netcdf4Dimid, and a
 * dimension added later has one), the dimids keep their order. */
static int number_dims(ds_walk *w)
{
    long long next = 0;
    dsinfo **order;
    int k = 0, dup = 0;
    w->dense = 1;
    for (int i = 0; i < w->n; i++) {
        dsinfo *d = &w->list[i];
        if (!d->is_scale)
            continue;
        if (d->dimid < 0) {
            if (next > INT_MAX)
                return NCS_ERR(NCS_ENOTNC);
            d->fileid = (int)next++;
        } else {
            d->fileid = d->dimid;
            if (d->fileid >= next)
                next = (long long)d->fileid + 1;
        }
        if (d->fileid >= w->ndims)
            w->dense = 0;
    }
    if (w->dense) {
        for (int i = 0; i < w->n; i++)
            w->list[i].dimid = w->list[i].is_scale ? w->list[i].fileid : -1;
        return NCS_NOERR;
    }
    order = ncsi_malloc((size_t)w->ndims * sizeof *order);
    if (order == NULL)
        return NCS_ERR(NCS_ENOMEM);
    for (int i = 0; i < w->n; i++)
        if (w->list[i].is_scale)
            order[k++] = &w->list[i];
    qsort(order, (size_t)k, sizeof *order, by_fileid);
    for (int i = 0; i < k; i++) {
        order[i]->dimid = i;
        if (i > 0 && order[i]->fileid == order[i - 1]->fileid)
            dup = 1;
    }
    free(order);
    return dup ? NCS_ERR(NCS_ENOTNC) : NCS_NOERR;
}

int ncsi_nc4_read(chunked *cs, ncs_model *m)
{
    ds_walk w = { NULL, 0, 0, NCS_NOERR, 0, 0 };
    hsize_t idx = 0;
    int ndims = 0, status = NCS_NOERR;

    memset(m, 0, sizeof *m);
    m->unlimdim = -1;
    if (H5Literate(cs->fid, H5_INDEX_CRT_ORDER, H5_ITER_INC, &idx, ds_cb, &w) < 0) {
        if (w.status != NCS_NOERR) {
            status = w.status;
            goto done;
        }
        for (int i = 0; i < w.n; i++) {
            free(w.list[i].name);
            free(w.list[i].dims);
            H5Dclose(w.list[i].ds);
        }
        free(w.list);
        memset(&w, 0, sizeof w);
        idx = 0;
        if (H5Literate(cs->fid, H5_INDEX_NAME, H5_ITER_INC, &idx, ds_cb, &w) < 0) {
            status = w.status != NCS_NOERR ? w.status : NCS_ERR(NCS_EHDFERR);
            goto done;
        }
    }

    /* dimensions: every scale */
    for (int i = 0; i < w.n; i++)
        if (w.list[i].is_scale)
            ndims++;
    w.ndims = ndims;
    status = number_dims(&w);
    if (status != NCS_NOERR)
        goto done;
    if (ndims > 0) {
        status = ncsi_model_reserve(&m->dims, &m->capdims, (size_t)ndims, sizeof *m->dims);
        cs->dimds = ncsi_malloc((size_t)ndims * sizeof *cs->dimds);
        cs->dimnames = ncsi_calloc((size_t)ndims, sizeof *cs->dimnames);
        if (status != NCS_NOERR || cs->dimds == NULL || cs->dimnames == NULL) {
            status = NCS_ERR(NCS_ENOMEM);
            goto done;
        }
        /* counted at once, so that names set before a failure are freed */
        m->ndims = ndims;
        for (int i = 0; i < ndims; i++)
            cs->dimds[i] = -1;
        cs->ndimds = ndims;
    }
    {
        for (int i = 0; i < w.n; i++) {
            dsinfo *d = &w.list[i];
            int id = d->dimid;
            if (!d->is_scale)
                continue;
            /* a scale of several axes is a coordinate variable of its
             * first: CF's char station(station, strlen) */
            if (m->dims[id].name != NULL || d->rank < 1) {
                status = NCS_ERR(NCS_ENOTNC);
                goto done;
            }
            m->dims[id].name = ncsi_strdup(d->name);
            cs->dimnames[id] = ncsi_strdup(d->name);
            if (m->dims[id].name == NULL || cs->dimnames[id] == NULL) {
                status = NCS_ERR(NCS_ENOMEM);
                goto done;
            }
            if (d->maxdims[0] == H5S_UNLIMITED) {
                /* a second unlimited dimension: the enhanced model */
                if (m->unlimdim >= 0) {
                    status = NCS_ERR(NCS_ENOTBUILT);
                    goto done;
                }
                m->unlimdim = id;
                m->dims[id].len = 0;
                if (d->dims[0] > m->numrecs)
                    m->numrecs = d->dims[0];
            } else {
                /* a dimension-only dataset's length is its extent */
                m->dims[id].len = d->dims[0];
                if (d->dims[0] == 0) {
                    status = NCS_ERR(NCS_ENOTNC);
                    goto done;
                }
            }
        }
    }

    /* variables: the other datasets, in creation order */
    for (int i = 0; i < w.n; i++) {
        dsinfo *d = &w.list[i];
        ncs_var *v;
        cvar *cv;
        hid_t t;
        int dimids[NCS_MAX_VAR_DIMS], swap;
        if (d->dim_only)
            continue;
        v = ncsi_model_push_var(m);
        if (v == NULL) {
            status = NCS_ERR(NCS_ENOMEM);
            goto done;
        }
        /* a scale's name is its dimension's, prefix or not */
        v->name = ncsi_strdup(d->is_scale ? d->name : var_name(d->name));
        if (v->name == NULL || ncsi_var_alloc(v, d->rank) != NCS_NOERR) {
            status = NCS_ERR(NCS_ENOMEM);
            goto done;
        }
        t = H5Dget_type(d->ds);
        v->type = t >= 0 ? nc_type_of(t, &swap) : 0;
        if (v->type == 0)
            status = t >= 0 ? not_classic(t) : NCS_ERR(NCS_EHDFERR);
        if (t >= 0)
            H5Tclose(t);
        if (v->type == 0)
            goto done;
        status = var_dimids(d, &w, dimids);
        if (status != NCS_NOERR)
            goto done;
        for (int ax = 0; ax < d->rank; ax++) {
            if (dimids[ax] < 0 || dimids[ax] >= ndims) {
                status = NCS_ERR(NCS_ENOTNC);
                goto done;
            }
            v->dimids[ax] = dimids[ax];
        }
        status = ncsi_var_shape(m, v);
        /* the unlimited dimension after the first axis: the enhanced model */
        if (status == NCS_EUNLIMPOS)
            status = NCS_ERR(NCS_ENOTBUILT);
        if (status != NCS_NOERR)
            goto done;
        for (int ax = 0; ax < d->rank; ax++) {
            int unl = v->shape[ax] == 0;
            if ((!unl && d->dims[ax] != v->shape[ax]) ||
                (unl && d->maxdims[ax] != H5S_UNLIMITED)) {
                status = NCS_ERR(NCS_ENOTNC);
                goto done;
            }
        }
        status = read_atts(d->ds, &v->atts);
        if (status != NCS_NOERR)
            goto done;
        cv = ncsi_cvar_new(cs, m->nvars - 1, v->ndims);
        if (cv == NULL) {
            status = NCS_ERR(NCS_ENOMEM);
            goto done;
        }
        /* the dataset stays in the list too: later variables may look
         * for it among the dimension scales */
        cv->dset = d->ds;
        cv->scale_dim = d->is_scale ? d->dimid : -1;
        d->owned = 1;
        cv->h5name = ncsi_strdup(d->name);
        cv->swap = swap;
        cv->extent0 = v->ndims > 0 ? d->dims[0] : 1;
        if (v->isrec && d->dims[0] > m->numrecs)
            m->numrecs = d->dims[0];
        if (cv->h5name == NULL) {
            status = NCS_ERR(NCS_ENOMEM);
            goto done;
        }
        status = read_storage(cv);
        if (status != NCS_NOERR)
            goto done;
    }
    /* the dimension-only scales stay open, for later attachments */
    for (int i = 0; i < w.n; i++) {
        if (w.list[i].dim_only) {
            cs->dimds[w.list[i].dimid] = w.list[i].ds;
            w.list[i].ds = -1;
        }
    }
    status = read_atts(cs->fid, &m->gatts);
done:
    for (int i = 0; i < w.n; i++) {
        free(w.list[i].name);
        free(w.list[i].dims);
        if (w.list[i].ds >= 0 && !w.list[i].owned)
            H5Dclose(w.list[i].ds);
    }
    free(w.list);
    return status;
}

/* ---- writing the model --------------------------------------------------------------- */

/* The coordinate variable of dimension d, as netCDF-C decides it: the
 * variable of its name whose first dimension it is, of any rank (CF's
 * char station(station, strlen) is one).  Its dataset is d's scale. */
static int coord_var(const ncs_model *m, int d)
{
    int i = ncsi_find_var(m, m->dims[d].name);
    if (i >= 0 && m->vars[i].ndims > 0 && m->vars[i].dimids[0] == d)
        return i;
    return -1;
}

/* coord_var(m, dimids[0]) == varid, without the search: names are unique */
static int is_coord(const ncs_model *m, int varid)
{
    const ncs_var *v = &m->vars[varid];
    return v->ndims > 0 && strcmp(v->name, m->dims[v->dimids[0]].name) == 0;
}

#define H5NAME_MAX (NCS_MAX_NAME + 1)

/* The link name of a variable: its name, prefixed when a dimension of
 * that name has another scale (as netCDF-C stores time_bnds-style and
 * scalar coordinates); buf holds H5NAME_MAX bytes.  NULL when the
 * prefixed name is longer than a name may be: netCDF-C reads no more of
 * a link name, and refuses such a variable (NC_EMAXNAME). */
static const char *h5_name(const ncs_model *m, int varid, char *buf)
{
    const char *name = m->vars[varid].name;
    if (is_coord(m, varid) || ncsi_find_dim(m, name) < 0)
        return name;
    if (strlen(NON_COORD_PREFIX) + strlen(name) > NCS_MAX_NAME)
        return NULL;
    snprintf(buf, H5NAME_MAX, "%s%s", NON_COORD_PREFIX, name);
    return buf;
}

static hid_t scale_of(const chunked *cs, const ncs_model *m, int d)
{
    int cv = coord_var(m, d);
    if (cv >= 0)
        return cs->vars[cv]->dset;
    return cs->dimds[d];
}

static int create_dim_only(chunked *cs, const ncs_model *m, int d)
{
    const ncs_dim *dim = &m->dims[d];
    hsize_t len = dim->len, maxlen = dim->len, one = 1;
    hid_t space = -1, dcpl = -1, ds = -1;
    char label[128];
    int status = NCS_NOERR;
    if (dim->len == 0) {
        len = 0;
        maxlen = H5S_UNLIMITED;
    }
    space = H5Screate_simple(1, &len, &maxlen);
    dcpl = H5Pcreate(H5P_DATASET_CREATE);
    if (space < 0 || dcpl < 0 ||
        H5Pset_attr_creation_order(dcpl, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED) < 0 ||
        (dim->len == 0 && H5Pset_chunk(dcpl, 1, &one) < 0)) {
        status = NCS_ERR(NCS_EHDFERR);
        goto done;
    }
    ds = H5Dcreate2(cs->fid, dim->name, H5T_IEEE_F32BE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    if (ds < 0) {
        status = NCS_ERR(NCS_EHDFERR);
        goto done;
    }
    snprintf(label, sizeof label, "%s%10d", DIM_ONLY_PREFIX, (int)dim->len);
    if (H5DSset_scale(ds, label) < 0)
        status = NCS_ERR(NCS_EHDFERR);
    if (status == NCS_NOERR)
        status = write_int_att(ds, "_Netcdf4Dimid", -1, &d);
    cs->dimds[d] = ds;
    free(cs->dimnames[d]);
    cs->dimnames[d] = ncsi_strdup(dim->name);
    ds = -1;
done:
    if (ds >= 0)
        H5Dclose(ds);
    if (dcpl >= 0)
        H5Pclose(dcpl);
    if (space >= 0)
        H5Sclose(space);
    return status;
}

/* The dataset that is dimension d's scale in the file now; -1: none. */
static hid_t file_scale(const chunked *cs, int d)
{
    if (cs->dimds[d] >= 0)
        return cs->dimds[d];
    for (int i = 0; i < cs->nvars; i++)
        if (cs->vars[i]->scale_dim == d)
            return cs->vars[i]->dset;
    return -1;
}

/* Detaches variable j from the scales of all its axes, so that it is
 * attached afresh once every scale is in place. */
static int detach_all(chunked *cs, const ncs_model *m, int j)
{
    cvar *cv = cs->vars[j];
    if (!cv->attached || cv->scale_dim >= 0)
        return NCS_NOERR;
    for (int ax = 0; ax < m->vars[j].ndims; ax++) {
        hid_t scale = file_scale(cs, m->vars[j].dimids[ax]);
        if (scale >= 0 && H5DSis_attached(cv->dset, scale, (unsigned)ax) > 0 &&
            H5DSdetach_scale(cv->dset, scale, (unsigned)ax) < 0)
            return NCS_ERR(NCS_EHDFERR);
    }
    cv->attached = 0;
    return NCS_NOERR;
}

/* Detaches every variable that uses dimension d from its scales. */
static int detach_users(chunked *cs, const ncs_model *m, int d)
{
    int status = NCS_NOERR;
    for (int j = 0; j < m->nvars && status == NCS_NOERR; j++) {
        for (int ax = 0; ax < m->vars[j].ndims; ax++) {
            if (m->vars[j].dimids[ax] == d) {
                status = detach_all(cs, m, j);
                break;
            }
        }
    }
    return status;
}

/* Removes dimension d's dimension-only scale, whose name its coordinate
 * variable takes. */
static int drop_dim_only(chunked *cs, const ncs_model *m, int d)
{
    int status = detach_users(cs, m, d);
    H5Dclose(cs->dimds[d]);
    cs->dimds[d] = -1;
    if (status == NCS_NOERR && H5Ldelete(cs->fid, cs->dimnames[d], H5P_DEFAULT) < 0)
        status = NCS_ERR(NCS_EHDFERR);
    return status;
}

/* Makes variable i's dataset its first dimension's scale. */
static int make_scale(chunked *cs, const ncs_model *m, int i)
{
    cvar *cv = cs->vars[i];
    int d = m->vars[i].dimids[0];
    if (H5DSset_scale(cv->dset, m->vars[i].name) < 0)
        return NCS_ERR(NCS_EHDFERR);
    cv->scale_dim = d;
    return write_int_att(cv->dset, "_Netcdf4Dimid", -1, &d);
}

/* A renamed variable or dimension changes which variables are coordinate
 * variables.  One that stops being one sheds its scale (the variables
 * using it are reattached to the dimension's new scale); one that becomes
 * one takes its dimension's scale over from the dimension-only one. */
static int change_scales(chunked *cs, const ncs_model *m)
{
    static const char *const scale_atts[] = {"CLASS", "NAME", "REFERENCE_LIST", "_Netcdf4Dimid"};
    int status = NCS_NOERR;
    for (int i = 0; i < m->nvars && status == NCS_NOERR; i++) {
        cvar *cv = cs->vars[i];
        if (cv->dset < 0 || cv->scale_dim < 0 || is_coord(m, i))
            continue;
        status = detach_users(cs, m, cv->scale_dim);
        for (size_t k = 0; k < sizeof scale_atts / sizeof scale_atts[0] && status == NCS_NOERR; k++)
            if (H5Aexists(cv->dset, scale_atts[k]) > 0 && H5Adelete(cv->dset, scale_atts[k]) < 0)
                status = NCS_ERR(NCS_EHDFERR);
        cv->scale_dim = -1;
        cv->attached = 0;
    }
    for (int i = 0; i < m->nvars && status == NCS_NOERR; i++) {
        cvar *cv = cs->vars[i];
        int d;
        if (cv->dset < 0 || cv->scale_dim >= 0 || !is_coord(m, i))
            continue;
        d = m->vars[i].dimids[0];
        status = cs->dimds[d] >= 0 ? drop_dim_only(cs, m, d) : NCS_NOERR;
        if (status == NCS_NOERR)
            status = detach_all(cs, m, i);
        if (status == NCS_NOERR)
            status = make_scale(cs, m, i);
        cv->attached = 0;
    }
    return status;
}

static int create_var(chunked *cs, const ncs_model *m, int varid)
{
    const ncs_var *v = &m->vars[varid];
    cvar *cv = cs->vars[varid];
    hsize_t dims[NCS_MAX_VAR_DIMS], maxdims[NCS_MAX_VAR_DIMS], chunks[NCS_MAX_VAR_DIMS];
    hid_t space = -1, dcpl = -1, dapl = -1, ds = -1, ftype = -1;
    char h5name[H5NAME_MAX];
    int status = NCS_NOERR;

    for (int d = 0; d < v->ndims; d++) {
        dims[d] = v->shape[d];
        maxdims[d] = v->shape[d];
        if (v->shape[d] == 0)
            maxdims[d] = H5S_UNLIMITED;
        chunks[d] = cv->chunk[d];
    }
    space = v->ndims ? H5Screate_simple(v->ndims, dims, maxdims) : H5Screate(H5S_SCALAR);
    dcpl = H5Pcreate(H5P_DATASET_CREATE);
    dapl = H5Pcreate(H5P_DATASET_ACCESS);
    ftype = v->type == NCS_CHAR ? text_type(1) : H5Tcopy(ncsi_nc4_h5type(v->type));
    if (space < 0 || dcpl < 0 || dapl < 0 || ftype < 0 ||
        H5Pset_attr_creation_order(dcpl, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED) < 0 ||
        H5Pset_fill_value(dcpl, ftype, cv->fill) < 0 ||
        /* HDF5 would write the fill value over all of a contiguous
         * dataset at its first write, gigabytes perhaps (netCDF-C's no_fill) */
        (cs->nofill && cv->st.contiguous && v->ndims > 0 &&
         H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER) < 0) ||
        /* chunks come from ncslab's own cache, not HDF5's */
        H5Pset_chunk_cache(dapl, 0, 0, H5D_CHUNK_CACHE_W0_DEFAULT) < 0) {
        status = NCS_ERR(NCS_EHDFERR);
        goto done;
    }
    if (!cv->st.contiguous && v->ndims > 0) {
        if (H5Pset_chunk(dcpl, v->ndims, chunks) < 0) {
            status = NCS_ERR(NCS_EHDFERR);
            goto done;
        }
        for (int i = 0; i < cv->nf && status == NCS_NOERR; i++) {
            herr_t r = -1;
            switch (cv->pipe[i].id) {
            case NCSI_FILTER_SHUFFLE:    r = H5Pset_shuffle(dcpl); break;
            case NCSI_FILTER_DEFLATE:    r = H5Pset_deflate(dcpl, cv->pipe[i].level); break;
            case NCSI_FILTER_FLETCHER32: r = H5Pset_fletcher32(dcpl); break;
            case NCSI_FILTER_ZSTD: {
                unsigned cd = cv->pipe[i].level;
                r = H5Pset_filter(dcpl, NCSI_FILTER_ZSTD, H5Z_FLAG_OPTIONAL, 1, &cd);
                break;
            }
            default: break;
            }
            if (r < 0)
                status = NCS_ERR(NCS_EHDFERR);
        }
        if (status != NCS_NOERR)
            goto done;
    }
    if (h5_name(m, varid, h5name) == NULL) {
        status = NCS_ERR(NCS_EMAXNAME);
        goto done;
    }
    ds = H5Dcreate2(cs->fid, h5_name(m, varid, h5name), ftype, space, H5P_DEFAULT, dcpl, dapl);
    if (ds < 0) {
        status = NCS_ERR(NCS_EHDFERR);
        goto done;
    }
    cv->dset = ds;
    free(cv->h5name);
    cv->h5name = ncsi_strdup(h5_name(m, varid, h5name));
    cv->extent0 = v->ndims > 0 ? dims[0] : 1;
    if (cv->h5name == NULL)
        status = NCS_ERR(NCS_ENOMEM);
done:
    if (ftype >= 0)
        H5Tclose(ftype);
    if (dapl >= 0)
        H5Pclose(dapl);
    if (dcpl >= 0)
        H5Pclose(dcpl);
    if (space >= 0)
        H5Sclose(space);
    return status;
}

/* Gives the datasets of variables first.. the link names the model gives
 * them.  A moved link takes the next creation order, and readers number
 * variables by creation order, so every later variable is linked anew too,
 * in varid order, and the varids survive a reopen (netCDF-C re-links the
 * later ones the same way).  Pass 0 moves each link to a temporary name,
 * so that names swapped among the variables never collide; pass 1 gives
 * the final names, after the dimension-only scales have moved off the
 * names they free. */
/* A link name not in the file and not a netCDF name (a leading space),
 * for an object on its way to another name. */
static void temp_name(hid_t fid, const char *what, int i, char *out, size_t n)
{
    unsigned serial = 0;
    do
        snprintf(out, n, " ncslab %s %d.%u", what, i, serial++);
    while (H5Lexists(fid, out, H5P_DEFAULT) > 0);
}

static int relink_vars(chunked *cs, const ncs_model *m, int first, int pass)
{
    char tmp[64], h5name[H5NAME_MAX];
    for (int i = first; i < m->nvars; i++) {
        cvar *cv = cs->vars[i];
        const char *to;
        char *name;
        if (cv->dset < 0)
            continue;
        if (pass == 0) {
            temp_name(cs->fid, "relink", i, tmp, sizeof tmp);
            to = tmp;
        } else if ((to = h5_name(m, i, h5name)) == NULL) {
            return NCS_ERR(NCS_EMAXNAME);
        }
        if (H5Lmove(cs->fid, cv->h5name, cs->fid, to, H5P_DEFAULT, H5P_DEFAULT) < 0)
            return NCS_ERR(NCS_EHDFERR);
        name = ncsi_strdup(to);
        if (name == NULL)
            return NCS_ERR(NCS_ENOMEM);
        free(cv->h5name);
        cv->h5name = name;
    }
    return NCS_NOERR;
}

int ncsi_nc4_write(chunked *cs, ncs_model *m)
{
    int status = NCS_NOERR;
    char props[128];
    int one = 1, old_ndims = cs->ndimds, relink;
    char h5name[H5NAME_MAX];

    /* the file's own marks, once */
    if (H5Aexists(cs->fid, "_NCProperties") <= 0) {
        snprintf(props, sizeof props, "version=2,ncslab=%s,hdf5=%u.%u.%u", NCS_VERSION,
                 H5_VERS_MAJOR, H5_VERS_MINOR, H5_VERS_RELEASE);
        status = write_text_att(cs->fid, "_NCProperties", props);
        if (status == NCS_NOERR && cs->strict)
            status = write_int_att(cs->fid, "_nc3_strict", -1, &one);
        if (status != NCS_NOERR)
            return status;
    }

    /* room for dimensions added since the last write */
    if (cs->ndimds < m->ndims) {
        hid_t *nd = ncsi_realloc(cs->dimds, (size_t)m->ndims * sizeof *nd);
        char **nn;
        if (nd == NULL)
            return NCS_ERR(NCS_ENOMEM);
        cs->dimds = nd;
        nn = ncsi_realloc(cs->dimnames, (size_t)m->ndims * sizeof *nn);
        if (nn == NULL)
            return NCS_ERR(NCS_ENOMEM);
        cs->dimnames = nn;
        for (int d = cs->ndimds; d < m->ndims; d++) {
            cs->dimds[d] = -1;
            cs->dimnames[d] = NULL;
        }
        cs->ndimds = m->ndims;
    }

    /* the scales renames move, then the renames themselves: the first
     * variable whose link name changes and every later one move to
     * temporary names, the dimension-only scales to theirs, and the
     * variables to their final names (one may take a name a scale frees) */
    status = change_scales(cs, m);
    if (status != NCS_NOERR)
        return status;
    for (relink = 0; relink < m->nvars; relink++) {
        const cvar *cv = cs->vars[relink];
        const char *name = h5_name(m, relink, h5name);
        if (cv->dset >= 0 && (name == NULL || strcmp(cv->h5name, name) != 0))
            break;
    }
    if (relink < m->nvars && (status = relink_vars(cs, m, relink, 0)) != NCS_NOERR)
        return status;
    /* dimension-only scales: to temporary names first, so that names
     * passed among them (x to y, y to z) never collide, then to theirs */
    for (int pass = 0; pass < 2; pass++) {
        for (int d = 0; d < m->ndims; d++) {
            char tmp[64], *name;
            const char *to = m->dims[d].name;
            if (cs->dimds[d] < 0 || strcmp(cs->dimnames[d], m->dims[d].name) == 0)
                continue;
            if (pass == 0) {
                temp_name(cs->fid, "rename", d, tmp, sizeof tmp);
                to = tmp;
            }
            if (H5Lmove(cs->fid, cs->dimnames[d], cs->fid, to, H5P_DEFAULT, H5P_DEFAULT) < 0)
                return NCS_ERR(NCS_EHDFERR);
            name = ncsi_strdup(to);
            if (name == NULL)
                return NCS_ERR(NCS_ENOMEM);
            free(cs->dimnames[d]);
            cs->dimnames[d] = name;
        }
    }
    if (relink < m->nvars)
        status = relink_vars(cs, m, relink, 1);

    /* readers number the scales without _Netcdf4Dimid (h5py writes none)
     * after the highest _Netcdf4Dimid: once a new dimension has one, the
     * old ones need theirs to keep their dimids */
    for (int d = 0; old_ndims < m->ndims && d < old_ndims && status == NCS_NOERR; d++) {
        hid_t scale = scale_of(cs, m, d);
        int id, n;
        if (scale < 0)
            continue;
        if (read_int_att(scale, "_Netcdf4Dimid", 1, &id, &n) != NCS_NOERR || id != d)
            status = write_int_att(scale, "_Netcdf4Dimid", -1, &d);
    }

    /* dimension scales of dimensions without a coordinate variable */
    for (int d = 0; d < m->ndims && status == NCS_NOERR; d++)
        if (coord_var(m, d) < 0 && cs->dimds[d] < 0)
            status = create_dim_only(cs, m, d);

    /* new variables, in varid order */
    for (int i = 0; i < m->nvars && status == NCS_NOERR; i++) {
        int coord = is_coord(m, i);
        if (cs->vars[i]->dset >= 0)
            continue;
        /* a coordinate variable for a dimension that has a dimension-only
         * scale, which has its name: that scale goes first */
        if (coord && cs->dimds[m->vars[i].dimids[0]] >= 0)
            status = drop_dim_only(cs, m, m->vars[i].dimids[0]);
        if (status == NCS_NOERR)
            status = create_var(cs, m, i);
        if (status == NCS_NOERR && coord)
            status = make_scale(cs, m, i);
    }
    /* attachments and coordinates of the new variables */
    for (int i = 0; i < m->nvars && status == NCS_NOERR; i++) {
        const ncs_var *v = &m->vars[i];
        cvar *cv = cs->vars[i];
        int coord = is_coord(m, i);
        if (cv->attached)
            continue;
        /* a scale has no scales attached: HDF5 refuses, and netCDF-C
         * finds a coordinate variable's axes from _Netcdf4Coordinates */
        for (int ax = 0; ax < v->ndims && status == NCS_NOERR && !coord; ax++) {
            if (H5DSattach_scale(cv->dset, scale_of(cs, m, v->dimids[ax]), (unsigned)ax) < 0)
                status = NCS_ERR(NCS_EHDFERR);
        }
        /* on every variable with dimensions, as netCDF-C 4.9 writes it */
        if (status == NCS_NOERR && v->ndims > 0)
            status = write_int_att(cv->dset, "_Netcdf4Coordinates", v->ndims, v->dimids);
        cv->attached = 1;
    }

    /* every attribute, in the model's order */
    for (int i = 0; i < m->nvars && status == NCS_NOERR; i++)
        status = rewrite_atts(cs->vars[i]->dset, &m->vars[i].atts);
    if (status == NCS_NOERR)
        status = rewrite_atts(cs->fid, &m->gatts);
    if (status == NCS_NOERR)
        cs->meta_dirty = 0;
    return status;
}

void ncsi_nc4_close_objects(chunked *cs)
{
    for (int i = 0; i < cs->nvars; i++) {
        if (cs->vars[i]->dset >= 0)
            H5Dclose(cs->vars[i]->dset);
        cs->vars[i]->dset = -1;
    }
    for (int d = 0; d < cs->ndimds; d++) {
        if (cs->dimds[d] >= 0)
            H5Dclose(cs->dimds[d]);
        cs->dimds[d] = -1;
    }
}
