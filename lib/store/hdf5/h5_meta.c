/*
 * h5_meta.c -- what reading and writing netCDF-4 metadata in HDF5 share
 * (h5_meta_read.c, h5_meta_write.c): the classic types as HDF5 types and
 * back, the quantization attribute, opening and creating
 * files with the journal's driver, and closing a file's objects.  The
 * layout is described in hdf5_store.h.
 */
#include "hdf5_store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ncsi_nc4_quantize_att(ncs_attlist *list, int mode, int nsd)
{
    ncs_att a;
    uint32_t be = ncsi_be32((uint32_t)nsd);
    int status = ncsi_att_new(&a, ncsi_nc4_quantize_name(mode), NCS_INT, 1);
    if (status != NCS_NOERR)
        return status;
    memcpy(a.xval, &be, sizeof be);
    status = ncsi_attlist_put(list, &a);
    if (status != NCS_NOERR)
        ncsi_att_free(&a);
    return status;
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
int ncsi_h5_type_of(hid_t t, int *swap)
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

/* A fixed-size ASCII string type of n bytes, NUL-terminated padding, as
 * netCDF-4 stores text. */
hid_t ncsi_h5_text_type(size_t n)
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
    /* the file format of HDF5 1.8, as netCDF-C 4.9 writes with HDF5 1.10.2
     * or later (its low bound; superblock version 2): readable by HDF5
     * 1.8; the weak close degree is netCDF-C's too.  HDF5 shares one open file between ncslab's
     * handles of it (the driver compares files); netCDF-C's handles, with
     * HDF5's default driver, have their own */
    if (H5Pset_libver_bounds(fapl, H5F_LIBVER_V18, H5F_LIBVER_V18) < 0 ||
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
    /* reading, any format HDF5 reads (a high bound below a file's
     * superblock version refuses the file; netCDF-C opens them): reading
     * creates no object, so the bounds lay out nothing */
    if (!write && H5Pset_libver_bounds(fapl, H5F_LIBVER_V18, H5F_LIBVER_LATEST) < 0) {
        H5Pclose(fapl);
        return NCS_ERR(NCS_EHDFERR);
    }
    fid = H5Fopen(path, write ? H5F_ACC_RDWR : H5F_ACC_RDONLY, fapl);
    H5Pclose(fapl);
    if (fid < 0)
        return NCS_ERR(NCS_ENOTNC);
    *fidp = fid;
    return NCS_NOERR;
}

/* ---- attributes of the library's own ---------------------------------------- */

int ncsi_h5_read_int_att(hid_t obj, const char *name, int max, int *vals, int *n)
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
        status = NCSI_CORRUPT(NCS_ENOTNC);
    *n = (int)np;
    if (space >= 0)
        H5Sclose(space);
    H5Aclose(attr);
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
