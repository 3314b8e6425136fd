/*
 * h5_meta_write.c -- writing the model as the HDF5 objects and attributes
 * netCDF-4 readers expect (the layout is described in hdf5_store.h):
 * datasets for new variables, dimension scales and the datasets of
 * dimensions without a coordinate variable, renames, and the attributes,
 * rewritten in netCDF-C's file order.
 */
#include "hdf5_store.h"

#include <hdf5_hl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- attributes ---------------------------------------------------------------- */

/* Writes a as a new attribute of obj, or with in_place into obj's existing
 * attribute of its name, type and length. */
static int write_att(hid_t obj, const ncs_att *a, int in_place)
{
    hid_t t = -1, space = -1, attr = -1;
    size_t n = (size_t)a->nelems, esz = ncsi_type_size(a->type);
    void *native = NULL;
    int status = NCS_NOERR;

    if (a->type == NCS_CHAR) {
        t = ncsi_h5_text_type(n);
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

static herr_t collect_names_cb(hid_t obj, const char *name, const H5A_info_t *info, void *data)
{
    ncs_attlist *l = data;
    ncs_att a;
    (void)obj;
    (void)info;
    if (ncsi_nc4_reserved_att(name))
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
            same = ncsi_h5_type_of(t, &swap) == a->type && np >= 0 && (uint64_t)np == a->nelems;
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
    if (strlen(NCSI_NON_COORD_PREFIX) + strlen(name) > NCS_MAX_NAME)
        return NULL;
    snprintf(buf, H5NAME_MAX, "%s%s", NCSI_NON_COORD_PREFIX, name);
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
    snprintf(label, sizeof label, "%s%10d", NCSI_DIM_ONLY_PREFIX, (int)dim->len);
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
    int status = NCS_NOERR, other;

    for (int d = 0; d < v->ndims; d++) {
        dims[d] = v->shape[d];
        maxdims[d] = v->shape[d];
        if (v->shape[d] == 0)
            maxdims[d] = H5S_UNLIMITED;
        chunks[d] = cv->ck.chunk[d];
    }
    space = v->ndims ? H5Screate_simple(v->ndims, dims, maxdims) : H5Screate(H5S_SCALAR);
    dcpl = H5Pcreate(H5P_DATASET_CREATE);
    dapl = H5Pcreate(H5P_DATASET_ACCESS);
    ftype = v->type == NCS_CHAR ? ncsi_h5_text_type(1) : H5Tcopy(ncsi_nc4_h5type(v->type));
    /* the order asked for, where it is not the machine's: chunks are
     * swapped on their way to and from the file (the fill value is given
     * in the machine's order); a one-byte type records the order too, as
     * netCDF-C's do, with nothing to swap */
    other = v->type != NCS_CHAR &&
            (cv->st.endian == NCS_ENDIAN_LITTLE || cv->st.endian == NCS_ENDIAN_BIG) &&
            cv->st.endian != NCSI_HOST_ENDIAN;
    if (space < 0 || dcpl < 0 || dapl < 0 || ftype < 0 ||
        H5Pset_attr_creation_order(dcpl, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED) < 0 ||
        /* a variable not to be filled has no fill value, as netCDF-C
         * writes it and reads it back (no value: not filled) */
        (!v->nofill &&
         H5Pset_fill_value(dcpl, v->type == NCS_CHAR ? ftype : ncsi_nc4_h5type(v->type),
                           cv->ck.fill) < 0) ||
        (other && H5Tset_order(ftype, cv->st.endian == NCS_ENDIAN_BIG ? H5T_ORDER_BE
                                                                      : H5T_ORDER_LE) < 0) ||
        /* a variable not to be filled: HDF5 never writes fill values
         * (else it would over all of a contiguous dataset at its first
         * write, gigabytes perhaps), as netCDF-C marks its no_fill ones */
        (v->nofill &&
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
        for (int i = 0; i < cv->ck.nf && status == NCS_NOERR; i++) {
            herr_t r = -1;
            switch (cv->ck.pipe[i].id) {
            case NCSI_FILTER_SHUFFLE:    r = H5Pset_shuffle(dcpl); break;
            case NCSI_FILTER_DEFLATE:    r = H5Pset_deflate(dcpl, cv->ck.pipe[i].level); break;
            case NCSI_FILTER_FLETCHER32: r = H5Pset_fletcher32(dcpl); break;
            case NCSI_FILTER_ZSTD: {
                unsigned cd = cv->ck.pipe[i].level;
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
    cv->ck.swap = other && ncsi_type_size(v->type) > 1;
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
        snprintf(props, sizeof props, "version=2,ncslab=%s,hdf5=%d.%d.%d", NCS_VERSION,
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
        if (ncsi_h5_read_int_att(scale, "_Netcdf4Dimid", 1, &id, &n) != NCS_NOERR || id != d)
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
