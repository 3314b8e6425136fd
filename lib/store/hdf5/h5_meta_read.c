/*
 * h5_meta_read.c -- reading a netCDF-4 file's model from HDF5: the
 * datasets of the root group as variables and dimension scales, their
 * attributes, the dimension ids netCDF-C gives them, and each variable's
 * storage (layout, chunks, filters).
 *
 * Only the classic data model is represented: one group, the classic
 * types, fixed-size text and numeric attributes.  A file using netCDF-4's
 * enhanced model (groups, user-defined types, strings) is refused with
 * NCS_ENOTBUILT rather than half read: a valid file this library has no
 * support for, as netCDF-C answers for a netCDF-4 file when built without
 * it.  HDF5 types netCDF has no type for stay NCS_EBADTYPE.  What HDF5
 * gives that no netCDF-4 writer makes is rejected through NCSI_CORRUPT.
 */
#include "hdf5_store.h"

#include <hdf5_hl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

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
        return NCSI_CORRUPT(NCS_EBADTYPE);
    }
}

/* ---- attributes ---------------------------------------------------------------- */

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

    if (ncsi_nc4_reserved_att(name))
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
        type = ncsi_h5_type_of(t, &swap);
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

/* ---- reading a file ------------------------------------------------------------- */

typedef struct dsinfo {
    char *name;
    hid_t ds;
    int owned;               /* ds now belongs to a variable */
    ncsi_nc4_scale sc;       /* whether a scale; its dimid, as netCDF-C
                                numbers it */
    int dim_only;
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
    int ok = 0;
    if (H5Aexists(obj, name) <= 0)
        return 0;
    attr = H5Aopen(obj, name, H5P_DEFAULT);
    if (attr < 0)
        return 0;
    t = H5Aget_type(attr);
    /* one fixed-length string only: an array of them would not fit in buf */
    if (t >= 0 && H5Tget_class(t) == H5T_STRING && H5Tis_variable_str(t) <= 0 &&
        H5Tget_size(t) < cap && att_one_element(attr)) {
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
    d->sc.dimid = -1;
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
        w->status = NCSI_CORRUPT(NCS_ENOTNC);
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
    d->sc.is_scale = text_att_value(d->ds, "CLASS", buf, sizeof buf) &&
                  strcmp(buf, "DIMENSION_SCALE") == 0;
    if (d->sc.is_scale && text_att_value(d->ds, "NAME", buf, sizeof buf) &&
        strncmp(buf, NCSI_DIM_ONLY_PREFIX, strlen(NCSI_DIM_ONLY_PREFIX)) == 0)
        d->dim_only = 1;
    if (d->sc.is_scale) {
        int id, n;
        /* a negative one is no number, as in netCDF-C */
        if (ncsi_h5_read_int_att(d->ds, "_Netcdf4Dimid", 1, &id, &n) == NCS_NOERR && id >= 0)
            d->sc.dimid = id;
    }
    return 0;
}

/* Storage settings and pipeline of an existing dataset, and its fill
 * mode: off when the dataset has no fill value, as netCDF-C reads it. */
static int read_storage(cvar *cv, int *nofillp)
{
    hid_t dcpl = H5Dget_create_plist(cv->dset);
    int status = NCS_NOERR, nf, after_fletcher32 = 0;
    H5D_fill_value_t defined;
    if (dcpl < 0)
        return NCS_ERR(NCS_EHDFERR);
    /* netCDF-C's reading: a dataset without a fill value of its own is
     * not filled (HDF5's own never-fill time, which netCDF-C writes too,
     * does not decide it) */
    *nofillp = H5Pfill_value_defined(dcpl, &defined) >= 0 &&
               defined != H5D_FILL_VALUE_USER_DEFINED;
    /* and what it reads where nothing was written: HDF5's default fill
     * value, zeros, unless the fill time is "never" (netCDF-C's NC_NOFILL
     * files; HDF5 then leaves the reader's buffer as it was, and ncslab
     * gives the netCDF default fill value) */
    {
        H5D_fill_time_t when;
        cv->zero_fill = *nofillp && defined == H5D_FILL_VALUE_DEFAULT &&
                        H5Pget_fill_time(dcpl, &when) >= 0 && when != H5D_FILL_TIME_NEVER;
    }
    memset(&cv->st, 0, sizeof cv->st);
    cv->ck.nf = 0;
    cv->direct = 0;
    if (H5Pget_layout(dcpl) == H5D_CHUNKED) {
        hsize_t ch[NCS_MAX_VAR_DIMS];
        if (H5Pget_chunk(dcpl, cv->ck.ndims, ch) != cv->ck.ndims) {
            status = NCSI_CORRUPT(NCS_ENOTNC);
            goto done;
        }
        for (int d = 0; d < cv->ck.ndims; d++) {
            if (ch[d] == 0) {
                status = NCSI_CORRUPT(NCS_ENOTNC);
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
        cv->ck.pipe[i].id = (unsigned)id;
        cv->ck.pipe[i].level = ncd > 0 ? cd[0] : 0;
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
            cv->st.deflate_level = (int)cv->ck.pipe[i].level;
        else if (id == NCSI_FILTER_ZSTD)
            cv->st.zstd_level = (int)cv->ck.pipe[i].level;
        else if (id == NCSI_FILTER_FLETCHER32)
            cv->st.fletcher32 = after_fletcher32 = 1;
    }
    cv->ck.nf = nf < NCSI_MAX_FILTERS ? nf : NCSI_MAX_FILTERS;
done:
    H5Pclose(dcpl);
    return status;
}

/* The dimid of the dimension netCDF-C numbers id; -1 when none. */
static int dim_by_fileid(const ds_walk *w, int id)
{
    return w->n == 0 ? -1
                     : ncsi_nc4_dim_by_fileid(&w->list[0].sc, sizeof w->list[0], w->n, w->ndims,
                                              w->dense, id);
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
        if (s->w->list[i].sc.is_scale && s->w->list[i].addr == oi.addr) {
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
    if (ncsi_h5_read_int_att(d->ds, "_Netcdf4Coordinates", NCS_MAX_VAR_DIMS, coords, &n) == NCS_NOERR &&
        n == d->rank) {
        for (ax = 0; ax < d->rank; ax++) {
            dimids[ax] = dim_by_fileid(w, coords[ax]);
            /* a scale is the coordinate variable of its first axis */
            if (dimids[ax] < 0 || (ax == 0 && d->sc.is_scale && dimids[0] != d->sc.dimid))
                break;
        }
        if (ax == d->rank)
            return NCS_NOERR;
    }
    for (ax = 0; ax < d->rank; ax++) {
        scale_find s = { w, -1 };
        if (ax == 0 && d->sc.is_scale) {
            dimids[0] = d->sc.dimid;
            continue;
        }
        if (H5DSiterate_scales(d->ds, (unsigned)ax, NULL, scale_find_cb, &s) < 0 || s.found < 0)
            return NCSI_CORRUPT(NCS_ENOTNC);
        dimids[ax] = w->list[s.found].sc.dimid;
    }
    return NCS_NOERR;
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
        if (w.list[i].sc.is_scale)
            ndims++;
    w.ndims = ndims;
    status = w.n == 0 ? NCS_NOERR
                      : ncsi_nc4_number_dims(&w.list[0].sc, sizeof w.list[0], w.n, ndims,
                                             &w.dense);
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
            int id = d->sc.dimid;
            if (!d->sc.is_scale)
                continue;
            /* a scale of several axes is a coordinate variable of its
             * first: CF's char station(station, strlen) */
            if (m->dims[id].name != NULL || d->rank < 1) {
                status = NCSI_CORRUPT(NCS_ENOTNC);
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
                    status = NCSI_CORRUPT(NCS_ENOTNC);
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
        H5T_order_t order = H5T_ORDER_NONE;
        if (d->dim_only)
            continue;
        v = ncsi_model_push_var(m);
        if (v == NULL) {
            status = NCS_ERR(NCS_ENOMEM);
            goto done;
        }
        /* a scale's name is its dimension's, prefix or not */
        v->name = ncsi_strdup(d->sc.is_scale ? d->name : ncsi_nc4_var_name(d->name));
        if (v->name == NULL || ncsi_var_alloc(v, d->rank) != NCS_NOERR) {
            status = NCS_ERR(NCS_ENOMEM);
            goto done;
        }
        t = H5Dget_type(d->ds);
        v->type = t >= 0 ? ncsi_h5_type_of(t, &swap) : 0;
        if (v->type != 0 && v->type != NCS_CHAR)
            order = H5Tget_order(t);
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
                status = NCSI_CORRUPT(NCS_ENOTNC);
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
                status = NCSI_CORRUPT(NCS_ENOTNC);
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
        cv->ohdr = d->addr;
        cv->scale_dim = d->sc.is_scale ? d->sc.dimid : -1;
        d->owned = 1;
        cv->h5name = ncsi_strdup(d->name);
        cv->ck.swap = swap;
        cv->extent0 = v->ndims > 0 ? d->dims[0] : 1;
        if (v->isrec && d->dims[0] > m->numrecs)
            m->numrecs = d->dims[0];
        if (cv->h5name == NULL) {
            status = NCS_ERR(NCS_ENOMEM);
            goto done;
        }
        status = read_storage(cv, &v->nofill);
        if (status != NCS_NOERR)
            goto done;
        /* the file's byte order, as netCDF-C answers it: the order HDF5
         * records, one-byte types included (their data never swaps);
         * text has none (NCS_ENDIAN_NATIVE); and the quantization its
         * attribute records, which later writes apply again */
        cv->st.endian = order == H5T_ORDER_BE   ? NCS_ENDIAN_BIG
                        : order == H5T_ORDER_LE ? NCS_ENDIAN_LITTLE
                                                : NCS_ENDIAN_NATIVE;
        if (v->type == NCS_FLOAT || v->type == NCS_DOUBLE)
            ncsi_nc4_quantize_of(&v->atts, &cv->st.quantize, &cv->st.nsd);
        v->quantize = cv->st.quantize;
        v->nsd = cv->st.nsd;
    }
    /* the dimension-only scales stay open, for later attachments */
    for (int i = 0; i < w.n; i++) {
        if (w.list[i].dim_only) {
            cs->dimds[w.list[i].sc.dimid] = w.list[i].ds;
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

/* ---- what netCDF-C tells of the file's origin --------------------------------- */

/* Counts the attributes of a dataset that are netCDF-4's or a dimension
 * scale's bookkeeping. */
static herr_t count_marks_cb(hid_t obj, const char *name, const H5A_info_t *info, void *data)
{
    (void)obj;
    (void)info;
    if (ncsi_nc4_reserved_att(name))
        ++*(int *)data;
    return 0;
}

/* For each dataset of the root group: its marks, and one for a dataset
 * named phony_dim (netCDF-C's own walk; the classic model has no other
 * groups). */
static herr_t count_ds_marks_cb(hid_t group, const char *name, const H5L_info_t *info,
                                void *data)
{
    H5O_info_t oi;
    hsize_t idx = 0;
    (void)info;
    if (H5Oget_info_by_name2(group, name, &oi, H5O_INFO_BASIC, H5P_DEFAULT) < 0 ||
        oi.type != H5O_TYPE_DATASET)
        return 0;
    if (strcmp(name, "phony_dim") == 0)
        ++*(int *)data;
    hid_t ds = H5Dopen2(group, name, H5P_DEFAULT);
    if (ds < 0)
        return 0;
    H5Aiterate2(ds, H5_INDEX_NAME, H5_ITER_INC, &idx, count_marks_cb, data);
    H5Dclose(ds);
    return 0;
}

int ncsi_nc4_provenance(chunked *cs, char **props, int *superblock, int *isnetcdf4)
{
    H5F_info2_t fi;
    int marks = 0;
    hsize_t idx = 0;

    *props = NULL;
    if (H5Fget_info2(cs->fid, &fi) < 0)
        return NCS_ERR(NCS_EHDFERR);
    *superblock = (int)fi.super.version;
    /* netCDF-C's test: a classic-model mark answers 0 (sic), otherwise at
     * least two bookkeeping attributes on datasets answer 1 */
    if (H5Aexists(cs->fid, "_nc3_strict") > 0) {
        *isnetcdf4 = 0;
    } else {
        H5Literate(cs->fid, H5_INDEX_NAME, H5_ITER_INC, &idx, count_ds_marks_cb, &marks);
        *isnetcdf4 = marks >= 2;
    }
    if (H5Aexists(cs->fid, "_NCProperties") <= 0)
        return NCS_NOERR;
    hid_t attr = H5Aopen(cs->fid, "_NCProperties", H5P_DEFAULT), t = -1, mt = -1;
    int status = NCS_NOERR;
    if (attr < 0 || (t = H5Aget_type(attr)) < 0 || H5Tget_class(t) != H5T_STRING ||
        H5Tis_variable_str(t) > 0) {
        status = attr < 0 || t < 0 ? NCS_ERR(NCS_EHDFERR) : NCS_NOERR;  /* not text: none */
    } else {
        size_t size = H5Tget_size(t);
        char *text = ncsi_malloc(size + 1);
        if (text == NULL)
            status = NCS_ERR(NCS_ENOMEM);
        else if ((mt = H5Tcopy(t)) < 0 || H5Aread(attr, mt, text) < 0) {
            free(text);
            status = NCS_ERR(NCS_EHDFERR);
        } else {
            text[size] = '\0';
            *props = text;
        }
    }
    if (mt >= 0)
        H5Tclose(mt);
    if (t >= 0)
        H5Tclose(t);
    if (attr >= 0)
        H5Aclose(attr);
    return status;
}
