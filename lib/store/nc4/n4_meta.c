/*
 * n4_meta.c -- a netCDF-4 file's model read from its own bytes
 * (store/h5read): the datasets of the root group as variables and
 * dimension scales, their attributes, the dimension ids netCDF-C gives
 * them, and each variable's storage.  The layout is described in nc4.h.
 *
 * The reading follows the HDF5 store's (lib/store/hdf5/h5_meta_read.c)
 * step by step, so that a file reads the same through either store; what
 * that store would refuse, or read through HDF5's own conversions, this
 * one declines (NCSI_DECLINED) and leaves to it: groups and named types,
 * strings and user-defined types, types of unusual precision, filters
 * ncslab does not run, external storage, a creation order HDF5 would not
 * iterate by, and every structure store/h5read finds damaged or does not
 * read.  Declining costs the HDF5 store's open, never a different answer.
 */
#include "nc4.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* One dataset of the root group, as its header and attributes say. */
typedef struct dsinfo {
    char *name;
    ncsi_h5r_obj *o;
    ncsi_h5r_attr *atts;         /* all of them, bookkeeping included */
    size_t natts;
    ncsi_nc4_scale sc;           /* whether a scale; its dimid, as netCDF-C
                                    numbers it */
    int dim_only;
    int rank;
} dsinfo;

typedef struct ds_walk {
    ncsi_h5r *h;
    dsinfo *list;
    int n;
    int ndims;
    int dense;                   /* every fileid is the dimid */
} ds_walk;

/* ---- types ------------------------------------------------------------------- */

/* The netCDF type of a stored type (0: none the classic model has, or one
 * HDF5 would convert in ways this reader does not), and whether its bytes
 * are in the other order than the machine's. */
static int type_of(const ncsi_h5r_type *t, int *swap)
{
    uint32_t bits = t->size * 8;
    *swap = 0;
    if (t->cls == NCSI_H5R_STRING)
        return t->size == 1 ? NCS_CHAR : 0;
    if ((t->cls != NCSI_H5R_FIXED && t->cls != NCSI_H5R_FLOAT) || t->precision != bits ||
        t->offset != 0)
        return 0;
#ifdef WORDS_BIGENDIAN
    *swap = t->size > 1 && !t->big_endian;
#else
    *swap = t->size > 1 && t->big_endian;
#endif
    if (t->cls == NCSI_H5R_FIXED) {
        switch (t->size) {
        case 1: return t->is_signed ? NCS_BYTE : NCS_UBYTE;
        case 2: return t->is_signed ? NCS_SHORT : NCS_USHORT;
        case 4: return t->is_signed ? NCS_INT : NCS_UINT;
        case 8: return t->is_signed ? NCS_INT64 : NCS_UINT64;
        default: return 0;
        }
    }
    return t->size == 4 ? NCS_FLOAT : t->size == 8 ? NCS_DOUBLE : 0;
}

/* ---- attributes ---------------------------------------------------------------- */

/* An object's attributes in the order HDF5 iterates them by creation
 * order for netCDF-C: the order kept where it is tracked, else the order
 * of the header's messages (HDF5 numbers untracked attributes so); dense
 * storage is read only where the creation order is tracked and indexed. */
static int object_atts(ncsi_h5r *h, const ncsi_h5r_obj *o, ncsi_h5r_attr **ap, size_t *np)
{
    int status;
    if (o->attr_heap != NCSI_H5R_UNDEF && o->attrs_corder && !o->attrs_cindexed)
        return NCSI_DECLINED;
    status = ncsi_h5r_attrs(h, o, ap, np);
    if (status != NCS_NOERR)
        return status == NCS_ENOMEM ? NCS_ERR(NCS_ENOMEM) : NCSI_DECLINED;
    return NCS_NOERR;
}

static const ncsi_h5r_attr *find_att(const ncsi_h5r_attr *a, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(a[i].name, name) == 0)
            return &a[i];
    return NULL;
}

/* One netCDF attribute from a stored one: text from a fixed-length string
 * (its bytes as stored), numbers in netCDF's external form. */
static int to_att(const ncsi_h5r_attr *ra, ncs_att *a)
{
    int type, swap;
    size_t esz;
    memset(a, 0, sizeof *a);
    if (ra->type.cls == NCSI_H5R_STRING) {
        type = NCS_CHAR;
        if (ra->nelems > SIZE_MAX / ra->type.size)
            return NCSI_DECLINED;
        a->nelems = ra->nelems * ra->type.size;
    } else {
        type = type_of(&ra->type, &swap);
        if (type == 0 || type == NCS_CHAR)
            return NCSI_DECLINED;
        a->nelems = ra->nelems;
    }
    esz = ncsi_type_size(type);
    if (ra->size != (size_t)a->nelems * (type == NCS_CHAR ? 1 : esz))
        return NCSI_DECLINED;
    a->type = type;
    a->name = ncsi_strdup(ra->name);
    a->xval = ncsi_malloc(a->nelems ? (size_t)a->nelems * esz : 1);
    if (a->name == NULL || a->xval == NULL) {
        ncsi_att_free(a);
        return NCS_ERR(NCS_ENOMEM);
    }
    memcpy(a->xval, ra->data, ra->size);
    /* external form is big-endian */
    if (type != NCS_CHAR && esz > 1 && !ra->type.big_endian)
        ncsi_chunk_swap(a->xval, ra->size, esz);
    return NCS_NOERR;
}

/* The netCDF attributes among an object's, into list. */
static int read_atts(const ncsi_h5r_attr *ra, size_t n, ncs_attlist *list)
{
    for (size_t i = 0; i < n; i++) {
        ncs_att a;
        int status;
        if (ncsi_nc4_reserved_att(ra[i].name))
            continue;
        status = to_att(&ra[i], &a);
        if (status == NCS_NOERR && (status = ncsi_attlist_put(list, &a)) != NCS_NOERR)
            ncsi_att_free(&a);
        if (status != NCS_NOERR)
            return status;
    }
    for (int i = 0; i < list->n; i++)
        list->a[i].in_file = 1;
    return NCS_NOERR;
}

/* The int attribute name of 1 to max elements, into vals (*n of them):
 * NCS_ENOTATT when absent, NCS_ENOTNC when not such an attribute (as
 * the HDF5 store reads it), NCSI_DECLINED for integers HDF5 would convert
 * in ways not done here (floats, values beyond an int). */
static int int_att(const dsinfo *d, const char *name, int max, int *vals, int *n)
{
    const ncsi_h5r_attr *a = find_att(d->atts, d->natts, name);
    int type, swap;
    size_t esz;
    if (a == NULL)
        return NCS_ENOTATT;
    if (a->nelems < 1 || a->nelems > (uint64_t)max)
        return NCS_ENOTNC;
    type = type_of(&a->type, &swap);
    if (type == 0 || type == NCS_CHAR || type == NCS_FLOAT || type == NCS_DOUBLE ||
        a->size != a->nelems * a->type.size)
        return NCSI_DECLINED;
    esz = a->type.size;
    for (uint64_t i = 0; i < a->nelems; i++) {
        const unsigned char *p = a->data + i * esz;
        uint64_t u = 0;
        long long x;
        for (size_t k = 0; k < esz; k++)
            u |= (uint64_t)p[a->type.big_endian ? k : esz - 1 - k] << (8 * (esz - 1 - k));
        if (a->type.is_signed) {
            /* sign-extend */
            uint64_t sign = (uint64_t)1 << (8 * esz - 1);
            x = (long long)((u ^ sign) - sign);
        } else {
            if (u > (uint64_t)INT_MAX)
                return NCSI_DECLINED;
            x = (long long)u;
        }
        if (x < INT_MIN || x > INT_MAX)
            return NCSI_DECLINED;
        vals[i] = (int)x;
    }
    *n = (int)a->nelems;
    return NCS_NOERR;
}

/* A fixed-length string attribute of one element shorter than cap, as
 * text in buf (NUL-terminated): 1, else 0. */
static int text_att(const dsinfo *d, const char *name, char *buf, size_t cap)
{
    const ncsi_h5r_attr *a = find_att(d->atts, d->natts, name);
    if (a == NULL || a->type.cls != NCSI_H5R_STRING || a->type.size >= cap || a->nelems != 1 ||
        a->size != a->type.size)
        return 0;
    memset(buf, 0, cap);
    memcpy(buf, a->data, a->size);
    return 1;
}

/* ---- the datasets of the root group ----------------------------------------------- */

static void ds_free(dsinfo *d)
{
    free(d->name);
    ncsi_h5r_obj_free(d->o);
    ncsi_h5r_attrs_free(d->atts, d->natts);
}

/* Reads every link of the root group: each must be a hard link to a
 * dataset (a group or a named type is outside the classic model, which
 * the HDF5 store answers). */
static int read_datasets(ds_walk *w)
{
    ncsi_h5r_info info;
    ncsi_h5r_obj *root = NULL;
    ncsi_h5r_link *links = NULL;
    size_t nlinks = 0;
    int status;

    ncsi_h5r_info_of(w->h, &info);
    status = ncsi_h5r_obj_read(w->h, info.root, &root);
    if (status == NCS_NOERR && !root->is_group)
        status = NCSI_DECLINED;
    if (status == NCS_NOERR && root->links_dense && root->links_corder && !root->links_cindexed)
        status = NCSI_DECLINED;
    if (status == NCS_NOERR)
        status = ncsi_h5r_links(w->h, root, &links, &nlinks);
    ncsi_h5r_obj_free(root);
    if (status != NCS_NOERR)
        return status == NCS_ENOMEM ? NCS_ERR(NCS_ENOMEM) : NCSI_DECLINED;
    if (nlinks > (size_t)INT_MAX / 2) {
        status = NCSI_DECLINED;
        goto done;
    }
    w->list = ncsi_calloc(nlinks ? nlinks : 1, sizeof *w->list);
    if (w->list == NULL) {
        status = NCS_ERR(NCS_ENOMEM);
        goto done;
    }
    for (size_t i = 0; i < nlinks; i++) {
        dsinfo *d = &w->list[w->n];
        char buf[128];
        int id, n;
        if (links[i].type != NCSI_H5R_HARD) {
            status = NCSI_DECLINED;
            goto done;
        }
        d->sc.dimid = -1;
        w->n++;
        d->name = ncsi_strdup(links[i].name);
        if (d->name == NULL) {
            status = NCS_ERR(NCS_ENOMEM);
            goto done;
        }
        status = ncsi_h5r_obj_read(w->h, links[i].addr, &d->o);
        if (status != NCS_NOERR) {
            status = status == NCS_ENOMEM ? NCS_ERR(NCS_ENOMEM) : NCSI_DECLINED;
            goto done;
        }
        /* a dataset: a type, a simple or scalar space and a layout */
        if (d->o->is_group || !d->o->has_type || !d->o->has_space || !d->o->has_layout ||
            d->o->space.kind == NCSI_H5R_NULL || d->o->space.rank > NCS_MAX_VAR_DIMS) {
            status = NCSI_DECLINED;
            goto done;
        }
        d->rank = d->o->space.rank;
        if ((status = object_atts(w->h, d->o, &d->atts, &d->natts)) != NCS_NOERR)
            goto done;
        d->sc.is_scale = text_att(d, "CLASS", buf, sizeof buf) &&
                      strcmp(buf, "DIMENSION_SCALE") == 0;
        if (d->sc.is_scale && text_att(d, "NAME", buf, sizeof buf) &&
            strncmp(buf, NCSI_DIM_ONLY_PREFIX, strlen(NCSI_DIM_ONLY_PREFIX)) == 0)
            d->dim_only = 1;
        if (d->sc.is_scale) {
            status = int_att(d, "_Netcdf4Dimid", 1, &id, &n);
            if (status == NCSI_DECLINED)
                goto done;
            /* a negative one is no number, as in netCDF-C */
            if (status == NCS_NOERR && id >= 0)
                d->sc.dimid = id;
            status = NCS_NOERR;
        }
    }
done:
    ncsi_h5r_links_free(links, nlinks);
    return status;
}

/* The dimid of the dimension netCDF-C numbers id; -1 when none. */
static int dim_by_fileid(const ds_walk *w, int id)
{
    return w->n == 0 ? -1
                     : ncsi_nc4_dim_by_fileid(&w->list[0].sc, sizeof w->list[0], w->n, w->ndims,
                                              w->dense, id);
}

/* The dataset at relative address addr, or -1. */
static int dataset_at(const ds_walk *w, uint64_t addr)
{
    for (int i = 0; i < w->n; i++)
        if (w->list[i].o->addr == addr)
            return i;
    return -1;
}

/* The first dimension scale of the root group that axis ax's entry of
 * DIMENSION_LIST references: its index in the walk, or NCSI_DECLINED
 * where HDF5's walk of the references would fail or find none. */
static int scale_of_axis(const ds_walk *w, const dsinfo *d, int ax, int *found)
{
    const ncsi_h5r_attr *a = find_att(d->atts, d->natts, "DIMENSION_LIST");
    ncsi_h5r_info info;
    unsigned char *refs = NULL;
    uint64_t n = 0;
    int status;
    ncsi_h5r_info_of(w->h, &info);
    *found = -1;
    if (a == NULL || a->type.cls != NCSI_H5R_VLEN || a->type.vlen_string ||
        a->type.base_cls != NCSI_H5R_REF || a->type.base_size != info.sizeof_addr ||
        a->nelems != (uint64_t)d->rank)
        return NCSI_DECLINED;
    status = ncsi_h5r_vlen(w->h, a, (uint64_t)ax, &refs, &n);
    if (status != NCS_NOERR)
        return status == NCS_ENOMEM ? NCS_ERR(NCS_ENOMEM) : NCSI_DECLINED;
    status = NCSI_DECLINED;
    for (uint64_t i = 0; i < n; i++) {
        int k = dataset_at(w, ncsi_h5r_ref_addr(w->h, refs + i * info.sizeof_addr));
        /* a reference elsewhere: HDF5 follows it, which is not done here */
        if (k < 0)
            break;
        if (w->list[k].sc.is_scale) {
            *found = k;
            status = NCS_NOERR;
            break;
        }
    }
    free(refs);
    return status;
}

/* Which dimension each axis of a variable uses: its _Netcdf4Coordinates
 * when they name dimensions of the file (a scale's own first); else a
 * dimension scale's first axis is its own dimension and every other axis
 * the first scale its DIMENSION_LIST names. */
static int var_dimids(const dsinfo *d, const ds_walk *w, int *dimids)
{
    int n, ax, status, coords[NCS_MAX_VAR_DIMS];
    if (d->rank == 0)
        return NCS_NOERR;
    status = int_att(d, "_Netcdf4Coordinates", NCS_MAX_VAR_DIMS, coords, &n);
    if (status == NCSI_DECLINED)
        return status;
    if (status == NCS_NOERR && n == d->rank) {
        for (ax = 0; ax < d->rank; ax++) {
            dimids[ax] = dim_by_fileid(w, coords[ax]);
            if (dimids[ax] < 0 || (ax == 0 && d->sc.is_scale && dimids[0] != d->sc.dimid))
                break;
        }
        if (ax == d->rank)
            return NCS_NOERR;
    }
    for (ax = 0; ax < d->rank; ax++) {
        int k;
        if (ax == 0 && d->sc.is_scale) {
            dimids[0] = d->sc.dimid;
            continue;
        }
        if ((status = scale_of_axis(w, d, ax, &k)) != NCS_NOERR)
            return status;
        dimids[ax] = w->list[k].sc.dimid;
    }
    return NCS_NOERR;
}

/* ---- a variable's storage ------------------------------------------------------------ */

#define FILL_TIME_NEVER 1

/* The storage of v's dataset d, its fill mode, and its description for
 * the chunk cache. */
static int read_storage(n4var *nv, const dsinfo *d, ncs_var *v)
{
    const ncsi_h5r_obj *o = d->o;
    ncs_storage *st = &nv->st;
    int fill_state = o->has_fill ? o->fill.state : NCSI_H5R_FILL_DEFAULT;
    int fill_time = o->has_fill ? o->fill.fill_time : 2;
    int zero_fill, swap;
    uint64_t chunk[NCS_MAX_VAR_DIMS], elems = 1;
    size_t esz = ncsi_type_size(v->type);

    if (esz == 0)
        return NCSI_DECLINED;
    /* netCDF-C's reading: a dataset without a fill value of its own is
     * not filled; where nothing was written HDF5 gives zeros then, unless
     * the fill time is "never" (the netCDF default fill value then) */
    v->nofill = fill_state != NCSI_H5R_FILL_USER;
    zero_fill = v->nofill && fill_state == NCSI_H5R_FILL_DEFAULT && fill_time != FILL_TIME_NEVER;
    memset(st, 0, sizeof *st);
    type_of(&o->type, &swap);
    nv->ck.swap = swap;
    nv->ck.nf = 0;
    if (o->nfilters > NCSI_MAX_FILTERS || o->nfilters > NCS_MAX_FILTERS)
        return NCSI_DECLINED;
    for (int i = 0; i < o->nfilters; i++) {
        unsigned id = o->filters[i].id;
        /* the filters ncslab runs take one parameter at most */
        if (!ncsi_filter_known(id) || o->filters[i].nvalues > 1)
            return NCSI_DECLINED;
        nv->ids[i] = id;
        nv->nparams[i] = (unsigned char)o->filters[i].nvalues;
        nv->ck.pipe[i].id = id;
        nv->ck.pipe[i].level = o->filters[i].nvalues > 0 ? o->filters[i].values[0] : 0;
        if (id == NCSI_FILTER_SHUFFLE)
            st->shuffle = 1;
        else if (id == NCSI_FILTER_DEFLATE)
            st->deflate_level = (int)nv->ck.pipe[i].level;
        else if (id == NCSI_FILTER_ZSTD)
            st->zstd_level = (int)nv->ck.pipe[i].level;
        else if (id == NCSI_FILTER_FLETCHER32)
            st->fletcher32 = 1;
    }
    nv->nids = o->nfilters;
    for (int ax = 0; ax < v->ndims; ax++)
        if (ncsi_mul_u64(elems, d->o->space.dims[ax], &elems))
            return NCSI_DECLINED;
    if (o->layout.cls == NCSI_H5R_CHUNKED) {
        if (v->ndims == 0 || o->layout.version != 3)
            return NCSI_DECLINED;
        for (int ax = 0; ax < v->ndims; ax++)
            st->chunks[ax] = chunk[ax] = o->layout.chunk[ax];
        if (o->layout.elem_size != esz)
            return NCSI_DECLINED;
        st->chunks_set = 1;
        nv->storage = N4_CHUNKED;
        nv->ck.nf = o->nfilters;
        nv->lay = o->layout;
        for (int ax = 0; ax < v->ndims; ax++)
            nv->extent[ax] = o->space.dims[ax];
    } else {
        /* contiguous or compact: one run of bytes, no filters */
        if (o->nfilters > 0 || v->isrec)
            return NCSI_DECLINED;
        st->contiguous = 1;
        st->compact = o->layout.cls == NCSI_H5R_COMPACT;
        nv->storage = N4_CONTIGUOUS;
        if (st->compact) {
            nv->addr = o->layout.compact_at;
        } else {
            ncsi_h5r_info info;
            ncsi_h5r_info_of(nv->nf->h, &info);
            nv->addr = o->layout.addr == NCSI_H5R_UNDEF ? UINT64_MAX
                                                        : info.base + o->layout.addr;
        }
        nv->size = o->layout.size;
        if (nv->addr != UINT64_MAX && (elems > UINT64_MAX / esz || nv->size != elems * esz))
            return NCSI_DECLINED;
        /* never allocated: HDF5 writes its fill value where the fill time
         * allows one (zeros for the library's default), else leaves the
         * reader's buffer: the variable's fill value then */
        if (fill_time != FILL_TIME_NEVER && fill_state != NCSI_H5R_FILL_UNDEF) {
            nv->have_ualloc = 1;
            memset(nv->ualloc_fill, 0, sizeof nv->ualloc_fill);
            if (fill_state == NCSI_H5R_FILL_USER) {
                if (o->fill.size != esz)
                    return NCSI_DECLINED;
                memcpy(nv->ualloc_fill, o->fill.value, esz);
                if (swap)
                    ncsi_chunk_swap(nv->ualloc_fill, esz, esz);
            }
        }
        if (v->ndims > 0)
            ncsi_nc4_block_shape(v, esz, chunk);
    }
    /* the file's byte order, as netCDF-C answers it: the order recorded,
     * one-byte types included; text has none */
    st->endian = v->type == NCS_CHAR ? NCS_ENDIAN_NATIVE
                 : o->type.big_endian ? NCS_ENDIAN_BIG
                                      : NCS_ENDIAN_LITTLE;
    if (v->type == NCS_FLOAT || v->type == NCS_DOUBLE)
        ncsi_nc4_quantize_of(&v->atts, &st->quantize, &st->nsd);
    v->quantize = st->quantize;
    v->nsd = st->nsd;
    if (v->ndims == 0)
        return ncsi_nc4_chunkvar(&nv->ck, v, chunk, 0, zero_fill) == NCS_NOERR ? NCS_NOERR
                                                                             : NCSI_DECLINED;
    return ncsi_nc4_chunkvar(&nv->ck, v, chunk, 1, zero_fill) == NCS_NOERR ? NCS_NOERR
                                                                         : NCSI_DECLINED;
}

/* ---- the model ------------------------------------------------------------------------ */

static int read_dims(ds_walk *w, ncs_model *m)
{
    int ndims = 0, status;
    for (int i = 0; i < w->n; i++)
        ndims += w->list[i].sc.is_scale;
    w->ndims = ndims;
    if (w->n > 0 && (status = ncsi_nc4_number_dims(&w->list[0].sc, sizeof w->list[0], w->n,
                                                   ndims, &w->dense)) != NCS_NOERR)
        return status == NCS_ENOMEM ? status : NCSI_DECLINED;
    if (ndims == 0)
        return NCS_NOERR;
    if (ncsi_model_reserve(&m->dims, &m->capdims, (size_t)ndims, sizeof *m->dims) != NCS_NOERR)
        return NCS_ERR(NCS_ENOMEM);
    memset(m->dims, 0, (size_t)ndims * sizeof *m->dims);
    m->ndims = ndims;
    for (int i = 0; i < w->n; i++) {
        const dsinfo *d = &w->list[i];
        const ncsi_h5r_space *sp = &d->o->space;
        int id = d->sc.dimid;
        if (!d->sc.is_scale)
            continue;
        /* a scale of several axes is the coordinate variable of its
         * first: CF's char station(station, strlen) */
        if (m->dims[id].name != NULL || d->rank < 1)
            return NCSI_DECLINED;
        if ((m->dims[id].name = ncsi_strdup(d->name)) == NULL)
            return NCS_ERR(NCS_ENOMEM);
        if (sp->maxdims[0] == UINT64_MAX) {
            /* a second unlimited dimension: the enhanced model */
            if (m->unlimdim >= 0)
                return NCSI_DECLINED;
            m->unlimdim = id;
            m->dims[id].len = 0;
            if (sp->dims[0] > m->numrecs)
                m->numrecs = sp->dims[0];
        } else {
            m->dims[id].len = sp->dims[0];
            if (sp->dims[0] == 0)
                return NCSI_DECLINED;
        }
    }
    return NCS_NOERR;
}

static int read_var(n4file *nf, ds_walk *w, const dsinfo *d, ncs_model *m)
{
    const ncsi_h5r_space *sp = &d->o->space;
    ncs_var *v;
    n4var *nv;
    int dimids[NCS_MAX_VAR_DIMS], swap, status;

    v = ncsi_model_push_var(m);
    if (v == NULL)
        return NCS_ERR(NCS_ENOMEM);
    /* a scale's name is its dimension's, prefix or not */
    v->name = ncsi_strdup(d->sc.is_scale ? d->name : ncsi_nc4_var_name(d->name));
    if (v->name == NULL || ncsi_var_alloc(v, d->rank) != NCS_NOERR)
        return NCS_ERR(NCS_ENOMEM);
    if (d->o->type.cls == NCSI_H5R_STRING && d->o->type.size != 1)
        return NCSI_DECLINED;
    v->type = type_of(&d->o->type, &swap);
    if (v->type == 0)
        return NCSI_DECLINED;
    if ((status = var_dimids(d, w, dimids)) != NCS_NOERR)
        return status;
    for (int ax = 0; ax < d->rank; ax++) {
        if (dimids[ax] < 0 || dimids[ax] >= w->ndims)
            return NCSI_DECLINED;
        v->dimids[ax] = dimids[ax];
    }
    status = ncsi_var_shape(m, v);
    if (status == NCS_ENOMEM)
        return status;
    if (status != NCS_NOERR)
        return NCSI_DECLINED;
    for (int ax = 0; ax < d->rank; ax++) {
        int unl = v->shape[ax] == 0;
        if ((!unl && sp->dims[ax] != v->shape[ax]) || (unl && sp->maxdims[ax] != UINT64_MAX))
            return NCSI_DECLINED;
    }
    if ((status = read_atts(d->atts, d->natts, &v->atts)) != NCS_NOERR)
        return status;
    if (v->isrec && sp->dims[0] > m->numrecs)
        m->numrecs = sp->dims[0];
    nv = ncsi_n4_var_new(nf, m->nvars - 1, v->ndims);
    if (nv == NULL)
        return NCS_ERR(NCS_ENOMEM);
    return read_storage(nv, d, v);
}

int ncsi_n4_read_model(n4file *nf, ncs_model *m)
{
    ds_walk w;
    ncsi_h5r_obj *root = NULL;
    ncsi_h5r_attr *ga = NULL;
    ncsi_h5r_info info;
    size_t nga = 0;
    int status;

    memset(&w, 0, sizeof w);
    w.h = nf->h;
    memset(m, 0, sizeof *m);
    m->unlimdim = -1;
    if ((status = read_datasets(&w)) != NCS_NOERR)
        goto done;
    if ((status = read_dims(&w, m)) != NCS_NOERR)
        goto done;
    /* variables: the other datasets, in the walk's order */
    for (int i = 0; i < w.n && status == NCS_NOERR; i++)
        if (!w.list[i].dim_only)
            status = read_var(nf, &w, &w.list[i], m);
    if (status != NCS_NOERR)
        goto done;
    /* record variables whose dataset is shorter read fill values there:
     * the limits are the file's record count */
    for (int i = 0; i < m->nvars; i++) {
        const ncs_var *v = &m->vars[i];
        n4var *nv = nf->vars[i];
        for (int ax = 0; ax < v->ndims; ax++)
            nv->ck.lim[ax] = (ax == 0 && v->isrec) ? m->numrecs : v->shape[ax];
    }
    ncsi_h5r_info_of(nf->h, &info);
    status = ncsi_h5r_obj_read(nf->h, info.root, &root);
    if (status == NCS_NOERR)
        status = object_atts(nf->h, root, &ga, &nga);
    else
        status = status == NCS_ENOMEM ? NCS_ERR(NCS_ENOMEM) : NCSI_DECLINED;
    if (status == NCS_NOERR) {
        nf->strict = find_att(ga, nga, "_nc3_strict") != NULL;
        status = read_atts(ga, nga, &m->gatts);
    }
done:
    ncsi_h5r_attrs_free(ga, nga);
    ncsi_h5r_obj_free(root);
    for (int i = 0; i < w.n; i++)
        ds_free(&w.list[i]);
    free(w.list);
    return status;
}

/* ---- what netCDF-C tells of the file's origin --------------------------------- */

int ncsi_n4_provenance(n4file *nf, char **props, int *superblock, int *isnetcdf4)
{
    ds_walk w;
    ncsi_h5r_obj *root = NULL;
    ncsi_h5r_attr *ga = NULL;
    ncsi_h5r_info info;
    const ncsi_h5r_attr *a;
    size_t nga = 0;
    int status;

    *props = NULL;
    memset(&w, 0, sizeof w);
    w.h = nf->h;
    ncsi_h5r_info_of(nf->h, &info);
    *superblock = info.superblock;
    status = ncsi_h5r_obj_read(nf->h, info.root, &root);
    if (status == NCS_NOERR)
        status = object_atts(nf->h, root, &ga, &nga);
    if (status != NCS_NOERR) {
        status = NCS_ERR(status == NCS_ENOMEM ? NCS_ENOMEM : NCS_EHDFERR);
        goto done;
    }
    /* netCDF-C's test: a classic-model mark answers 0 (sic), otherwise at
     * least two bookkeeping attributes on datasets (or a dataset named
     * phony_dim) answer 1 */
    if (find_att(ga, nga, "_nc3_strict") != NULL) {
        *isnetcdf4 = 0;
    } else {
        int marks = 0;
        status = read_datasets(&w);
        if (status != NCS_NOERR) {
            status = NCS_ERR(status == NCS_ENOMEM ? NCS_ENOMEM : NCS_EHDFERR);
            goto done;
        }
        for (int i = 0; i < w.n; i++) {
            marks += strcmp(w.list[i].name, "phony_dim") == 0;
            for (size_t k = 0; k < w.list[i].natts; k++)
                marks += ncsi_nc4_reserved_att(w.list[i].atts[k].name);
        }
        *isnetcdf4 = marks >= 2;
    }
    a = find_att(ga, nga, "_NCProperties");
    if (a != NULL && a->type.cls == NCSI_H5R_STRING && a->nelems >= 1) {
        /* the text of its first element */
        size_t size = a->type.size;
        char *text = ncsi_malloc(size + 1);
        if (text == NULL) {
            status = NCS_ERR(NCS_ENOMEM);
            goto done;
        }
        memcpy(text, a->data, size);
        text[size] = '\0';
        *props = text;
    }
done:
    ncsi_h5r_attrs_free(ga, nga);
    ncsi_h5r_obj_free(root);
    for (int i = 0; i < w.n; i++)
        ds_free(&w.list[i]);
    free(w.list);
    return status;
}
