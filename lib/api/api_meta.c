/*
 * api_meta.c -- public entry points for dimensions, variables and
 * attributes: definition, inquiry, renaming.
 *
 * Checks run in netCDF-C's order so that a call with several faults
 * returns the error netCDF-C returns.  In data mode, names may be changed
 * and attributes rewritten only when the header does not grow, so no data
 * has to move; the header is then rewritten at the next sync or close.
 */
#include "api.h"

#include <stdlib.h>
#include <string.h>

/* The NFC form of a caller's name: netCDF stores and compares names
 * normalised.  A name that is not UTF-8 stays as given, to fail the name
 * check (or match nothing) where netCDF-C would. */
static int nfc_name(const char *name, char **out)
{
    int status;
    *out = NULL;
    if (name == NULL)
        return NCS_NOERR;
    status = ncsi_nfc(name, out);
    if (status == NCS_EBADNAME) {
        *out = ncsi_strdup(name);
        status = *out != NULL ? NCS_NOERR : NCS_ERR(NCS_ENOMEM);
    }
    return status;
}

static int get_file(int ncid, ncs_file **fp)
{
    *fp = ncsi_file_get(ncid);
    return *fp == NULL ? NCS_ERR(NCS_EBADID) : NCS_NOERR;
}

/* 0 when name is not UTF-8 (which NFC cannot normalise). */
static int valid_utf8(const char *name)
{
    char *t;
    int status;
    for (const unsigned char *c = (const unsigned char *)name; *c < 0x80; c++)
        if (*c == '\0')
            return 1;
    status = ncsi_nfc(name, &t);
    free(t);
    return status != NCS_EBADNAME;
}

/* netCDF-C's netCDF-4 code normalises a name before looking it up: a name
 * too long to normalise is NCS_EMAXNAME there, one that is not UTF-8
 * NCS_EBADNAME; its classic code just finds nothing.  (A NULL name is
 * NCS_EINVAL to the netCDF-4 code's dimension and variable lookups; its
 * classic code crashes, and ncslab answers NCS_EBADNAME there.) */
static int lookup_name_check(const ncs_file *f, const char *name)
{
    if (f->version != 4)
        return NCS_NOERR;
    if (strlen(name) > NCS_MAX_NAME)
        return NCS_ERR(NCS_EMAXNAME);
    return valid_utf8(name) ? NCS_NOERR : NCS_ERR(NCS_EBADNAME);
}

static void copy_name(char *dst, const char *src)
{
    if (dst != NULL)
        strcpy(dst, src);
}

/* ---- dimensions ------------------------------------------------------------ */

static int def_dim_nfc(int ncid, const char *name, size_t len, int *dimidp)
{
    ncs_file *f;
    ncs_model *m;
    uint64_t max;
    int status = get_file(ncid, &f);
    if (status != NCS_NOERR)
        return status;
    m = &f->model;
    /* netCDF-C's netCDF-4 code asks for write permission and a free
     * unlimited dimension first, and allows lengths up to 2^32-1 */
    if (f->version == 4) {
        if (!(f->flags & NCSI_F_WRITE))
            return NCS_ERR(NCS_EPERM);
        if (len == NCS_UNLIMITED && m->unlimdim >= 0)
            return NCS_ERR(NCS_EUNLIMIT);
    }
    if (!(f->flags & NCSI_F_INDEF))
        return NCS_ERR(NCS_ENOTINDEFINE);
    status = ncsi_check_name(name);
    if (status != NCS_NOERR)
        return status;
    max = f->version == 4   ? UINT32_MAX
          : f->version == 5 ? UINT64_MAX - 3
          : f->version == 2 ? (uint64_t)UINT32_MAX - 3
                            : (uint64_t)INT32_MAX - 3;
    if ((uint64_t)len > max)
        return NCS_ERR(NCS_EDIMSIZE);
    if (len == NCS_UNLIMITED && m->unlimdim >= 0)
        return NCS_ERR(NCS_EUNLIMIT);
    if (m->ndims >= NCS_MAX_DIMS)
        return NCS_ERR(NCS_EMAXDIMS);
    if (ncsi_find_dim(m, name) >= 0)
        return NCS_ERR(NCS_ENAMEINUSE);
    return ncsi_model_add_dim(m, name, len, dimidp);
}

static int inq_dimid_nfc(int ncid, const char *name, int *dimidp)
{
    ncs_file *f;
    int id, status = get_file(ncid, &f);
    if (status != NCS_NOERR)
        return status;
    if (name == NULL)
        return f->version == 4 ? NCS_ERR(NCS_EINVAL) : NCS_ERR(NCS_EBADNAME);
    status = lookup_name_check(f, name);
    if (status != NCS_NOERR)
        return status;
    id = ncsi_find_dim(&f->model, name);
    if (id < 0)
        return NCS_ERR(NCS_EBADDIM);
    if (dimidp != NULL)
        *dimidp = id;
    return NCS_NOERR;
}

int ncs_inq_dim(int ncid, int dimid, char *name, size_t *lenp)
{
    ncs_file *f;
    const ncs_dim *d;
    int status = get_file(ncid, &f);
    if (status != NCS_NOERR)
        return status;
    if (dimid < 0 || dimid >= f->model.ndims)
        return NCS_ERR(NCS_EBADDIM);
    d = &f->model.dims[dimid];
    copy_name(name, d->name);
    if (lenp != NULL)
        *lenp = (size_t)(d->len == 0 ? f->model.numrecs : d->len);
    return NCS_NOERR;
}

int ncs_inq_dimname(int ncid, int dimid, char *name)
{
    return ncs_inq_dim(ncid, dimid, name, NULL);
}

int ncs_inq_dimlen(int ncid, int dimid, size_t *lenp)
{
    return ncs_inq_dim(ncid, dimid, NULL, lenp);
}

/* Replaces *slot by a copy of name.  In data mode the name must fit the
 * header length of the old one, which it keeps (padded with NUL bytes, as
 * netCDF-C writes it), and the header is marked for rewriting. */
/* grow: a data-mode rename may lengthen the name (netCDF-C's netCDF-4
 * dimensions, which it renames in HDF5 in any mode). */
static int set_name(ncs_file *f, char **slot, uint32_t *namelen, const char *name, int grow)
{
    /* (a netCDF-4 name has no header slot: netCDF-C compares with the
     * name's own length) */
    size_t xlen = f->version == 4 ? strlen(*slot) : ncsi_name_xlen(*slot, *namelen);
    int indef = (f->flags & NCSI_F_INDEF) != 0, status;
    if (!indef && !grow && strlen(name) > xlen)
        return NCS_ERR(NCS_ENOTINDEFINE);
    if (strlen(name) > xlen)
        xlen = strlen(name);
    if (indef)
        return ncsi_model_rename(slot, namelen, name, 0);
    {
        /* in data mode the old name comes back when the header cannot be
         * rewritten (a parallel file's processes disagreeing, an I/O
         * error): the model stays what the file holds */
        char *was = *slot;
        uint32_t waslen = *namelen;
        *slot = NULL;
        status = ncsi_model_rename(slot, namelen, name,
                                   f->version == 4 ? 0 : (uint32_t)xlen);
        if (status == NCS_NOERR)
            status = ncsi_store_write_header(f);
        if (status != NCS_NOERR) {
            free(*slot);
            *slot = was;
            *namelen = waslen;
            return status;
        }
        free(was);
    }
    return NCS_NOERR;
}

static int rename_dim_nfc(int ncid, int dimid, const char *name)
{
    ncs_file *f;
    int status = get_file(ncid, &f);
    if (status != NCS_NOERR)
        return status;
    if (!(f->flags & NCSI_F_WRITE))
        return NCS_ERR(NCS_EPERM);
    status = ncsi_check_name(name);
    if (status != NCS_NOERR)
        return status;
    /* netCDF-C's netCDF-4 code finds the dimension before the name's use */
    if (f->version == 4 && (dimid < 0 || dimid >= f->model.ndims))
        return NCS_ERR(NCS_EBADDIM);
    if (ncsi_find_dim(&f->model, name) >= 0)
        return NCS_ERR(NCS_ENAMEINUSE);
    if (dimid < 0 || dimid >= f->model.ndims)
        return NCS_ERR(NCS_EBADDIM);
    return set_name(f, &f->model.dims[dimid].name, &f->model.dims[dimid].namelen, name,
                    f->version == 4);
}

/* ---- variables ---------------------------------------------------------------- */

static int def_var_nfc(int ncid, const char *name, int xtype, int ndims,
                const int *dimidsp, int *varidp)
{
    ncs_file *f;
    ncs_model *m;
    int status = get_file(ncid, &f);
    if (status != NCS_NOERR)
        return status;
    if (!(f->flags & NCSI_F_INDEF))
        return NCS_ERR(NCS_ENOTINDEFINE);
    status = ncsi_check_name(name);
    if (status != NCS_NOERR)
        return status;
    /* netCDF-C's netCDF-4 code refuses the types beyond the classic ones
     * as outside the classic model, and fails on a negative one only once
     * the dimensions have been checked */
    if (f->version == 4 && xtype == NCS_NAT)
        return NCS_ERR(NCS_EBADTYPE);
    if (f->version == 4 && xtype > NCS_DOUBLE)
        return NCS_ERR(NCS_ESTRICTNC3);
    if (f->version != 4 && !ncsi_type_ok(xtype, f->version))
        return NCS_ERR(NCS_EBADTYPE);
    if (ndims < 0)
        return NCS_ERR(NCS_EINVAL);
    if (ndims > NCS_MAX_VAR_DIMS)
        return NCS_ERR(NCS_EMAXDIMS);
    if (ndims > 0 && dimidsp == NULL)
        return NCS_ERR(NCS_EINVAL);
    m = &f->model;
    if (m->nvars >= NCS_MAX_VARS)
        return NCS_ERR(NCS_EMAXVARS);
    if (ncsi_find_var(m, name) >= 0)
        return NCS_ERR(NCS_ENAMEINUSE);
    if (xtype < 0) {
        for (int d = 0; d < ndims; d++)
            if (dimidsp[d] < 0 || dimidsp[d] >= m->ndims)
                return NCS_ERR(NCS_EBADDIM);
        return NCS_ERR(NCS_EINVAL);
    }

    status = ncsi_model_add_var(m, name, xtype, ndims, dimidsp, varidp);
    /* the new variable takes the file's fill mode, as in netCDF-C, whose
     * netCDF-4 code keeps the mode's own value (NCS_NOFILL) and reports it */
    if (status == NCS_NOERR && (f->flags & NCSI_F_NOFILL))
        m->vars[m->nvars - 1].nofill = f->version == 4 ? NCS_NOFILL : 1;
    return status;
}

static int inq_varid_nfc(int ncid, const char *name, int *varidp)
{
    ncs_file *f;
    int id, status = get_file(ncid, &f);
    if (status != NCS_NOERR)
        return status;
    if (name == NULL)
        return f->version == 4 ? NCS_ERR(NCS_EINVAL) : NCS_ERR(NCS_EBADNAME);
    status = lookup_name_check(f, name);
    if (status != NCS_NOERR)
        return status;
    id = ncsi_find_var(&f->model, name);
    if (id < 0)
        return NCS_ERR(NCS_ENOTVAR);
    if (varidp != NULL)
        *varidp = id;
    return NCS_NOERR;
}

static int inq_var(int ncid, int varid, char *name, int *xtypep, int *ndimsp,
                   int *dimidsp, int *nattsp)
{
    ncs_file *f;
    const ncs_var *v;
    int status = get_file(ncid, &f);
    if (status != NCS_NOERR)
        return status;
    if (varid < 0 || varid >= f->model.nvars)
        return NCS_ERR(NCS_ENOTVAR);
    v = &f->model.vars[varid];
    copy_name(name, v->name);
    if (xtypep != NULL)
        *xtypep = v->type;
    if (ndimsp != NULL)
        *ndimsp = v->ndims;
    if (dimidsp != NULL && v->ndims > 0)
        memcpy(dimidsp, v->dimids, (size_t)v->ndims * sizeof(int));
    if (nattsp != NULL)
        *nattsp = v->atts.n;
    return NCS_NOERR;
}

int ncs_inq_var(int ncid, int varid, char *name, int *xtypep, int *ndimsp,
                int *dimidsp, int *nattsp)
{
    ncs_file *f = ncsi_file_get(ncid);
    if (f != NULL && f->version == 4 && varid == NCS_GLOBAL) {
        /* netCDF-C's netCDF-4 code answers the number of global
         * attributes and leaves the other outputs alone (its single
         * inquiries, ncs_inq_varname and the rest, refuse NCS_GLOBAL) */
        if (nattsp != NULL)
            *nattsp = f->model.gatts.n;
        return NCS_NOERR;
    }
    return inq_var(ncid, varid, name, xtypep, ndimsp, dimidsp, nattsp);
}

int ncs_inq_varname(int ncid, int varid, char *name)
{
    return inq_var(ncid, varid, name, NULL, NULL, NULL, NULL);
}

int ncs_inq_vartype(int ncid, int varid, int *xtypep)
{
    return inq_var(ncid, varid, NULL, xtypep, NULL, NULL, NULL);
}

int ncs_inq_varndims(int ncid, int varid, int *ndimsp)
{
    return inq_var(ncid, varid, NULL, NULL, ndimsp, NULL, NULL);
}

int ncs_inq_vardimid(int ncid, int varid, int *dimidsp)
{
    return inq_var(ncid, varid, NULL, NULL, NULL, dimidsp, NULL);
}

int ncs_inq_varnatts(int ncid, int varid, int *nattsp)
{
    if (varid == NCS_GLOBAL)
        return ncs_inq_natts(ncid, nattsp);
    return inq_var(ncid, varid, NULL, NULL, NULL, NULL, nattsp);
}

static int rename_var_nfc(int ncid, int varid, const char *name)
{
    ncs_file *f;
    int status = get_file(ncid, &f);
    if (status != NCS_NOERR)
        return status;
    /* netCDF-C's netCDF-4 code asks about the length of the name before
     * the permission, and about the variable (NCS_GLOBAL included) before
     * the name's use; its classic code the other way round */
    if (f->version == 4 && name != NULL && strlen(name) > NCS_MAX_NAME)
        return NCS_ERR(NCS_EMAXNAME);
    if (!(f->flags & NCSI_F_WRITE))
        return NCS_ERR(NCS_EPERM);
    status = ncsi_check_name(name);
    if (status != NCS_NOERR)
        return status;
    if (f->version == 4 && (varid < 0 || varid >= f->model.nvars))
        return NCS_ERR(NCS_ENOTVAR);
    if (ncsi_find_var(&f->model, name) >= 0)
        return NCS_ERR(NCS_ENAMEINUSE);
    if (varid == NCS_GLOBAL)
        return NCS_ERR(NCS_EGLOBAL);
    if (varid < 0 || varid >= f->model.nvars)
        return NCS_ERR(NCS_ENOTVAR);
    return set_name(f, &f->model.vars[varid].name, &f->model.vars[varid].namelen, name, 0);
}

/* ---- attributes ---------------------------------------------------------------- */

static int find_att(int ncid, int varid, const char *name, ncs_file **fp,
                    ncs_attlist **lp, int *idx)
{
    int status;
    *idx = -1;
    status = get_file(ncid, fp);
    if (status != NCS_NOERR)
        return status;
    *lp = ncsi_attlist(&(*fp)->model, varid);
    if (*lp == NULL)
        return NCS_ERR(NCS_ENOTVAR);
    if (name == NULL)
        return NCS_ERR(NCS_EBADNAME);
    status = lookup_name_check(*fp, name);
    if (status != NCS_NOERR)
        return status;
    *idx = ncsi_find_att(*lp, name);
    if (*idx < 0)
        return NCS_ERR(NCS_ENOTATT);
    return NCS_NOERR;
}

/* Whether a data-mode rewrite of attribute idx (-1: a new one) to nbytes
 * needs define mode: classic files compare the padded sizes, as the header
 * holds them; netCDF-4 files the sizes themselves, as netCDF-C does. */
static int put_att_grows(const ncs_file *f, const ncs_attlist *l, int idx, size_t nbytes)
{
    size_t old;
    if (f->flags & NCSI_F_INDEF)
        return 0;
    if (idx < 0)
        return 1;
    old = (size_t)l->a[idx].nelems * ncsi_type_size(l->a[idx].type);
    if (f->version == 4)
        return nbytes > old;
    return NCS_RNDUP(nbytes, 4) > NCS_RNDUP(old, 4);
}

/* The checks of a put to a classic file, in netCDF-C's order. */
static int put_att_check_classic(ncs_file *f, int varid, const char *name, int xtype,
                                 size_t len, int memtype, const void *op,
                                 ncs_attlist **lp, int *idx)
{
    ncs_attlist *l;
    if (!(f->flags & NCSI_F_WRITE))
        return NCS_ERR(NCS_EPERM);
    l = *lp = ncsi_attlist(&f->model, varid);
    if (l == NULL)
        return NCS_ERR(NCS_ENOTVAR);
    if (name == NULL)
        return NCS_ERR(NCS_EBADNAME);
    if (!ncsi_type_ok(xtype, f->version))
        return NCS_ERR(NCS_EBADTYPE);
    if (ncsi_type_size(memtype) == 0)
        return NCS_ERR(NCS_EBADTYPE);
    if ((memtype == NCS_CHAR) != (xtype == NCS_CHAR))
        return NCS_ERR(NCS_ECHAR);
    if (len > INT32_MAX)
        return NCS_ERR(NCS_EINVAL);
    if (len != 0 && op == NULL)
        return NCS_ERR(NCS_EINVAL);
    *idx = ncsi_find_att(l, name);
    if (put_att_grows(f, l, *idx, len * ncsi_type_size(xtype)))
        return NCS_ERR(NCS_ENOTINDEFINE);
    if (*idx < 0 && l->n >= NCS_MAX_ATTRS)
        return NCS_ERR(NCS_EMAXATTS);
    return ncsi_check_name(name);
}

/* The checks of a put to a netCDF-4 file, in the order of netCDF-C's
 * netCDF-4 code: the name and the mode before the type, and a type beyond
 * the classic ones NCS_ESTRICTNC3 (a negative one NCS_EINVAL). */
static int put_att_check_nc4(ncs_file *f, int varid, const char *name, int xtype,
                             size_t len, int memtype, const void *op,
                             ncs_attlist **lp, int *idx)
{
    ncs_attlist *l;
    int status;
    l = *lp = ncsi_attlist(&f->model, varid);
    if (l == NULL)
        return NCS_ERR(NCS_ENOTVAR);
    if (len > INT32_MAX)
        return NCS_ERR(NCS_EINVAL);
    if (name == NULL || strlen(name) > NCS_MAX_NAME)
        return NCS_ERR(NCS_EBADNAME);
    if (len != 0 && op == NULL)
        return NCS_ERR(NCS_EINVAL);
    if (!(f->flags & NCSI_F_WRITE))
        return NCS_ERR(NCS_EPERM);
    status = ncsi_check_name(name);
    if (status != NCS_NOERR)
        return status;
    *idx = ncsi_find_att(l, name);
    /* a type of no known size is a change netCDF-C's data mode cannot
     * make in place (unless there are no values), before it asks whether
     * the type is one at all */
    if (put_att_grows(f, l, *idx, len * ncsi_type_size(xtype)) ||
        (!(f->flags & NCSI_F_INDEF) && ncsi_type_size(xtype) == 0 && len > 0))
        return NCS_ERR(NCS_ENOTINDEFINE);
    /* netCDF-C's netCDF-4 code sets a fill value only on a variable no
     * enddef has created yet, even in a later define mode */
    if (varid != NCS_GLOBAL && strcmp(name, "_FillValue") == 0 &&
        (!(f->flags & NCSI_F_INDEF) || (f->old != NULL && varid < f->old->nvars)))
        return NCS_ERR(NCS_ELATEFILL);
    if (xtype == NCS_NAT)
        return NCS_ERR(NCS_EBADTYPE);
    if (xtype != memtype && (xtype == NCS_CHAR || memtype == NCS_CHAR))
        return NCS_ERR(NCS_ECHAR);
    if (xtype > NCS_DOUBLE)
        return NCS_ERR(NCS_ESTRICTNC3);
    if (xtype < 0)
        return NCS_ERR(NCS_EINVAL);
    if (ncsi_type_size(memtype) == 0)
        return NCS_ERR(NCS_EBADTYPE);
    if (*idx < 0 && l->n >= NCS_MAX_ATTRS)
        return NCS_ERR(NCS_EMAXATTS);
    return NCS_NOERR;
}

static int put_att_nfc(int ncid, int varid, const char *name, int xtype, size_t len,
                int memtype, const void *op)
{
    ncs_file *f;
    ncs_attlist *l = NULL;
    ncs_att a;
    int idx = -1, status = get_file(ncid, &f), conv;
    if (status != NCS_NOERR)
        return status;
    if (memtype == NCS_NAT)
        memtype = xtype;
    status = f->version == 4
                 ? put_att_check_nc4(f, varid, name, xtype, len, memtype, op, &l, &idx)
                 : put_att_check_classic(f, varid, name, xtype, len, memtype, op, &l, &idx);
    if (status != NCS_NOERR)
        return status;
    status = ncsi_att_new(&a, name, xtype, len);
    if (status != NCS_NOERR)
        return status;
    /* a data-mode rewrite keeps the old name as the header has it */
    a.namelen = (idx >= 0 && !(f->flags & NCSI_F_INDEF)) ? l->a[idx].namelen : 0;
    conv = len ? ncsi_encode(xtype, a.xval, len, memtype, op, 1, f->version) : NCS_NOERR;
    if (!(f->flags & NCSI_F_INDEF) && idx >= 0) {
        /* a data-mode rewrite: the old value comes back when the header
         * cannot be rewritten (a parallel file's processes disagreeing,
         * an I/O error), so the model stays what the file holds */
        ncs_att was = l->a[idx];
        a.in_file = was.in_file;
        l->a[idx] = a;
        status = ncsi_store_write_header(f);
        if (status != NCS_NOERR) {
            l->a[idx] = was;
            ncsi_att_free(&a);
            return status;
        }
        ncsi_att_free(&was);
        return conv;
    }
    status = ncsi_attlist_put(l, &a);
    if (status != NCS_NOERR) {
        ncsi_att_free(&a);
        return status;
    }
    if (!(f->flags & NCSI_F_INDEF)) {
        status = ncsi_store_write_header(f);
        if (status != NCS_NOERR)
            return status;
    }
    return conv;
}

/* netCDF-C answers four global attribute names of a netCDF-4 file that no
 * attribute list holds (none is counted in natts): _NCProperties, the
 * text the file carries; _SuperblockVersion, its HDF5 superblock version;
 * _IsNetcdf4, its guess whether netCDF-4 wrote the file; and _Codecs,
 * which it answers with success and nothing (the store's provenance
 * slot).  Unlike netCDF-C, which ignores the memory type asked for (it
 * stores an int for the numbers and copies the text, with a NUL past its
 * length, into whatever buffer it is given), the numbers are converted to
 * the type asked for and the text is given only as text, without the
 * NUL (doc/v3.md). */
enum { V_NONE, V_PROPS, V_SUPERBLOCK, V_ISNC4, V_CODECS };

typedef struct virtual_att {
    int kind;
    char *props;            /* V_PROPS: the text (NULL: the file has none) */
    unsigned char xval[4];  /* V_SUPERBLOCK, V_ISNC4: the number, as an NCS_INT */
} virtual_att;

/* Which virtual attribute name is in f at varid, after the checks of
 * find_att but the lookup (V_NONE: none; a status < 0 on failure). */
static int find_virtual(int ncid, int varid, const char *name, ncs_file **fp,
                        virtual_att *v)
{
    static const char *const names[] = { "_NCProperties", "_SuperblockVersion",
                                         "_IsNetcdf4", "_Codecs" };
    ncs_attlist *l;
    int idx, status = find_att(ncid, varid, name, fp, &l, &idx);
    int superblock = 0, isnc4 = 0, number;

    memset(v, 0, sizeof *v);
    if (status != NCS_ENOTATT || (*fp)->version != 4 || varid != NCS_GLOBAL)
        return status;
    for (int i = 0; i < 4; i++)
        if (strcmp(name, names[i]) == 0)
            v->kind = V_PROPS + i;
    if (v->kind == V_NONE || v->kind == V_CODECS)
        return v->kind;
    status = ncsi_store_provenance(*fp, &v->props, &superblock, &isnc4);
    if (status != NCS_NOERR)
        return status;
    if (v->kind == V_PROPS && v->props == NULL)
        return NCS_ERR(NCS_ENOTATT);
    number = v->kind == V_SUPERBLOCK ? superblock : isnc4;
    ncsi_encode(NCS_INT, v->xval, 1, NCS_INT, &number, 1, (*fp)->version);
    return v->kind;
}

static int get_att_virtual(const ncs_file *f, virtual_att *v, int memtype, void *ip)
{
    int status = NCS_NOERR;
    if (v->kind == V_PROPS) {
        if (memtype != NCS_NAT && memtype != NCS_CHAR)
            status = NCS_ERR(NCS_ECHAR);
        else if (ip == NULL)
            status = NCS_ERR(NCS_EINVAL);
        else
            memcpy(ip, v->props, strlen(v->props));
    } else if (v->kind != V_CODECS) {
        if (memtype == NCS_NAT)
            memtype = NCS_INT;
        if (ncsi_type_size(memtype) == 0)
            status = NCS_ERR(NCS_EBADTYPE);
        else if (memtype == NCS_CHAR)
            status = NCS_ERR(NCS_ECHAR);
        else if (ip == NULL)
            status = NCS_ERR(NCS_EINVAL);
        else
            status = ncsi_decode(NCS_INT, v->xval, 1, memtype, ip, 1, f->version);
    }
    free(v->props);
    return status;
}

static int get_att_nfc(int ncid, int varid, const char *name, int memtype, void *ip)
{
    ncs_file *f;
    ncs_attlist *l;
    const ncs_att *a;
    virtual_att v;
    int idx, status = find_virtual(ncid, varid, name, &f, &v);
    if (status > 0)
        return get_att_virtual(f, &v, memtype, ip);
    status = find_att(ncid, varid, name, &f, &l, &idx);
    if (status != NCS_NOERR)
        return status;
    a = &l->a[idx];
    if (a->nelems == 0)
        return NCS_NOERR;
    if (memtype == NCS_NAT)
        memtype = a->type;
    if (ncsi_type_size(memtype) == 0)
        return NCS_ERR(NCS_EBADTYPE);
    if ((memtype == NCS_CHAR) != (a->type == NCS_CHAR))
        return NCS_ERR(NCS_ECHAR);
    if (ip == NULL)
        return NCS_ERR(NCS_EINVAL);
    return ncsi_decode(a->type, a->xval, (size_t)a->nelems, memtype, ip, 1, f->version);
}

static int inq_att_nfc(int ncid, int varid, const char *name, int *xtypep, size_t *lenp)
{
    ncs_file *f;
    ncs_attlist *l;
    virtual_att v;
    int idx, status = find_virtual(ncid, varid, name, &f, &v);
    if (status > 0) {
        if (v.kind != V_CODECS && xtypep != NULL)
            *xtypep = v.kind == V_PROPS ? NCS_CHAR : NCS_INT;
        if (v.kind != V_CODECS && lenp != NULL)
            *lenp = v.kind == V_PROPS ? strlen(v.props) : 1;
        free(v.props);
        return NCS_NOERR;
    }
    status = find_att(ncid, varid, name, &f, &l, &idx);
    if (status != NCS_NOERR)
        return status;
    if (xtypep != NULL)
        *xtypep = l->a[idx].type;
    if (lenp != NULL)
        *lenp = (size_t)l->a[idx].nelems;
    return NCS_NOERR;
}

static int inq_attid_nfc(int ncid, int varid, const char *name, int *attnump)
{
    ncs_file *f;
    ncs_attlist *l;
    virtual_att v;
    int idx, status = find_virtual(ncid, varid, name, &f, &v);
    if (status > 0) {       /* no number: it is in no list */
        free(v.props);
        return attnump != NULL ? NCS_ERR(NCSI_EATTMETA) : NCS_NOERR;
    }
    status = find_att(ncid, varid, name, &f, &l, &idx);
    if (status == NCS_NOERR && attnump != NULL)
        *attnump = idx;
    return status;
}

int ncs_inq_atttype(int ncid, int varid, const char *name, int *xtypep)
{
    return ncs_inq_att(ncid, varid, name, xtypep, NULL);
}

int ncs_inq_attlen(int ncid, int varid, const char *name, size_t *lenp)
{
    return ncs_inq_att(ncid, varid, name, NULL, lenp);
}

int ncs_inq_attname(int ncid, int varid, int attnum, char *name)
{
    ncs_file *f;
    ncs_attlist *l;
    int status = get_file(ncid, &f);
    if (status != NCS_NOERR)
        return status;
    l = ncsi_attlist(&f->model, varid);
    if (l == NULL)
        return NCS_ERR(NCS_ENOTVAR);
    if (attnum < 0 || attnum >= l->n)
        return NCS_ERR(NCS_ENOTATT);
    copy_name(name, l->a[attnum].name);
    return NCS_NOERR;
}

/* netCDF-C's netCDF-4 order: both names present, the new one not too
 * long, write permission, the new name valid, the variable, the new name
 * free, the old one found. */
static int rename_att_nc4(ncs_file *f, int varid, const char *name, const char *newname)
{
    ncs_attlist *l;
    int idx, status;
    if (name == NULL || newname == NULL)
        return NCS_ERR(NCS_EINVAL);
    if (strlen(newname) > NCS_MAX_NAME)
        return NCS_ERR(NCS_EMAXNAME);
    if (!(f->flags & NCSI_F_WRITE))
        return NCS_ERR(NCS_EPERM);
    status = ncsi_check_name(newname);
    if (status != NCS_NOERR)
        return status;
    l = ncsi_attlist(&f->model, varid);
    if (l == NULL)
        return NCS_ERR(NCS_ENOTVAR);
    if (ncsi_find_att(l, newname) >= 0)
        return NCS_ERR(NCS_ENAMEINUSE);
    status = lookup_name_check(f, name);
    if (status != NCS_NOERR)
        return status;
    idx = ncsi_find_att(l, name);
    if (idx < 0)
        return NCS_ERR(NCS_ENOTATT);
    return set_name(f, &l->a[idx].name, &l->a[idx].namelen, newname, 0);
}

static int rename_att_nfc(int ncid, int varid, const char *name, const char *newname)
{
    ncs_file *f;
    ncs_attlist *l;
    int idx = -1, status = get_file(ncid, &f);
    if (status != NCS_NOERR)
        return status;
    if (f->version == 4)
        return rename_att_nc4(f, varid, name, newname);
    if (!(f->flags & NCSI_F_WRITE))
        return NCS_ERR(NCS_EPERM);
    l = ncsi_attlist(&f->model, varid);
    if (l == NULL)
        return NCS_ERR(NCS_ENOTVAR);
    status = ncsi_check_name(newname);
    if (status != NCS_NOERR)
        return status;
    if (name == NULL)
        return NCS_ERR(NCS_EBADNAME);
    idx = ncsi_find_att(l, name);
    if (idx < 0)
        return NCS_ERR(NCS_ENOTATT);
    if (ncsi_find_att(l, newname) >= 0)
        return NCS_ERR(NCS_ENAMEINUSE);
    {
        /* under its new name the attribute is new to a netCDF-4 file
         * (cleared first: a shared file writes it through at once) */
        int was = l->a[idx].in_file;
        l->a[idx].in_file = 0;
        status = set_name(f, &l->a[idx].name, &l->a[idx].namelen, newname, 0);
        if (status == NCS_ENOTINDEFINE || status == NCS_ENOMEM)
            l->a[idx].in_file = was;   /* refused before the rename */
        return status;
    }
}

static int del_att_nfc(int ncid, int varid, const char *name)
{
    ncs_file *f;
    ncs_attlist *l;
    int idx = -1, status = get_file(ncid, &f);
    if (status != NCS_NOERR)
        return status;
    /* netCDF-C's netCDF-4 code asks for a name and write permission
     * first; its classic code only for define mode, which a read-only
     * file never is */
    if (f->version == 4 && name == NULL)
        return NCS_ERR(NCS_EINVAL);
    if (f->version == 4 && !(f->flags & NCSI_F_WRITE))
        return NCS_ERR(NCS_EPERM);
    if (!(f->flags & NCSI_F_INDEF))
        return NCS_ERR(NCS_ENOTINDEFINE);
    l = ncsi_attlist(&f->model, varid);
    if (l == NULL)
        return NCS_ERR(NCS_ENOTVAR);
    /* the classic code normalises the name it deletes (the netCDF-4 code
     * only looks it up) */
    if (name == NULL || (f->version != 4 && !valid_utf8(name)))
        return NCS_ERR(NCS_EBADNAME);
    idx = ncsi_find_att(l, name);
    if (idx < 0)
        return NCS_ERR(NCS_ENOTATT);
    ncsi_attlist_del(l, idx);
    return NCS_NOERR;
}

/* netCDF-C's order: the output file must exist; a copy onto the same
 * variable of the same file is then done, without looking at the input
 * (even when it names no attribute); into a netCDF-4 file the output
 * variable and name are asked about before the input. */
static int copy_att_nfc(int ncid_in, int varid_in, const char *name, int ncid_out,
                 int varid_out)
{
    ncs_file *f, *fo;
    ncs_attlist *l;
    const ncs_att *a;
    void *tmp;
    int idx, status = get_file(ncid_out, &fo);
    if (status != NCS_NOERR)
        return status;
    if (ncid_in == ncid_out && varid_in == varid_out)
        return NCS_NOERR;
    if (fo->version == 4) {
        status = find_att(ncid_out, varid_out, name, &fo, &l, &idx);
        if (status != NCS_NOERR && status != NCS_ENOTATT)
            return status;
    }
    status = find_att(ncid_in, varid_in, name, &f, &l, &idx);
    if (status != NCS_NOERR)
        return status;
    a = &l->a[idx];
    tmp = ncsi_malloc(a->nelems ? (size_t)a->nelems * ncsi_type_size(a->type) : 1);
    if (tmp == NULL)
        return NCS_ERR(NCS_ENOMEM);
    if (a->nelems)
        ncsi_decode(a->type, a->xval, (size_t)a->nelems, a->type, tmp, 1, f->version);
    status = ncs_put_att(ncid_out, varid_out, name, a->type, (size_t)a->nelems, a->type, tmp);
    free(tmp);
    return status;
}

/* ---- the public calls: names normalised, then the work above ------------ */

#define WITH_NFC(name, call)                              \
    do {                                                  \
        char *n_;                                         \
        int s_ = nfc_name((name), &n_);                   \
        if (s_ == NCS_NOERR)                              \
            s_ = (call);                                  \
        free(n_);                                         \
        return s_;                                        \
    } while (0)

/* A lookup: by the NFC form, then, if that is missing and differs, by the
 * name as given, so names stored unnormalised by another writer are still
 * found under the spelling ncs_inq_*name returns. */
#define FIND_NFC(name, missing, call)                     \
    do {                                                  \
        char *n_;                                         \
        int s_ = nfc_name((name), &n_);                   \
        if (s_ == NCS_NOERR)                              \
            s_ = (call);                                  \
        if (s_ == (missing) && n_ != NULL && strcmp(n_, (name)) != 0) { \
            free(n_);                                     \
            n_ = ncsi_strdup(name);                       \
            s_ = n_ != NULL ? (call) : NCS_ERR(NCS_ENOMEM); \
        }                                                 \
        free(n_);                                         \
        return s_;                                        \
    } while (0)

int ncs_def_dim(int ncid, const char *name, size_t len, int *dimidp)
{
    WITH_NFC(name, def_dim_nfc(ncid, n_, len, dimidp));
}

/* netCDF-C's netCDF-4 dimension lookup reads a name with a '/' as a group
 * path and the name in it: in the classic model only a path of slashes
 * names the root group; any other is NCS_EINVAL (before the name is
 * checked).  Sets *tail to the name to look up. */
static int nc4_dim_path(int ncid, const char *name, const char **tail)
{
    ncs_file *f = ncsi_file_get(ncid);
    const char *slash;
    *tail = name;
    if (f == NULL || f->version != 4 || name == NULL || (slash = strrchr(name, '/')) == NULL)
        return NCS_NOERR;
    for (const char *p = name; p < slash; p++)
        if (*p != '/')
            return NCS_ERR(NCS_EINVAL);
    if (slash == name || slash[1] == '\0')
        return NCS_ERR(NCS_EINVAL);
    *tail = slash + 1;
    return NCS_NOERR;
}

int ncs_inq_dimid(int ncid, const char *name, int *dimidp)
{
    const char *tail;
    int status = nc4_dim_path(ncid, name, &tail);
    if (status != NCS_NOERR)
        return status;
    FIND_NFC(tail, NCS_EBADDIM, inq_dimid_nfc(ncid, n_, dimidp));
}

int ncs_rename_dim(int ncid, int dimid, const char *name)
{
    WITH_NFC(name, rename_dim_nfc(ncid, dimid, n_));
}

int ncs_def_var(int ncid, const char *name, int xtype, int ndims,
                const int *dimidsp, int *varidp)
{
    WITH_NFC(name, def_var_nfc(ncid, n_, xtype, ndims, dimidsp, varidp));
}

int ncs_inq_varid(int ncid, const char *name, int *varidp)
{
    FIND_NFC(name, NCS_ENOTVAR, inq_varid_nfc(ncid, n_, varidp));
}

int ncs_rename_var(int ncid, int varid, const char *name)
{
    WITH_NFC(name, rename_var_nfc(ncid, varid, n_));
}

int ncs_put_att(int ncid, int varid, const char *name, int xtype, size_t len,
                int memtype, const void *op)
{
    WITH_NFC(name, put_att_nfc(ncid, varid, n_, xtype, len, memtype, op));
}

int ncs_get_att(int ncid, int varid, const char *name, int memtype, void *ip)
{
    FIND_NFC(name, NCS_ENOTATT, get_att_nfc(ncid, varid, n_, memtype, ip));
}

int ncs_inq_att(int ncid, int varid, const char *name, int *xtypep, size_t *lenp)
{
    FIND_NFC(name, NCS_ENOTATT, inq_att_nfc(ncid, varid, n_, xtypep, lenp));
}

int ncs_inq_attid(int ncid, int varid, const char *name, int *attnump)
{
    FIND_NFC(name, NCS_ENOTATT, inq_attid_nfc(ncid, varid, n_, attnump));
}

int ncs_del_att(int ncid, int varid, const char *name)
{
    FIND_NFC(name, NCS_ENOTATT, del_att_nfc(ncid, varid, n_));
}

int ncs_copy_att(int ncid_in, int varid_in, const char *name, int ncid_out,
                 int varid_out)
{
    FIND_NFC(name, NCS_ENOTATT, copy_att_nfc(ncid_in, varid_in, n_, ncid_out, varid_out));
}

int ncs_rename_att(int ncid, int varid, const char *name, const char *newname)
{
    char *old;
    int status = nfc_name(name, &old);
    if (status == NCS_NOERR) {
        char *n_;
        status = nfc_name(newname, &n_);
        if (status == NCS_NOERR)
            status = rename_att_nfc(ncid, varid, old, n_);
        free(n_);
    }
    free(old);
    return status;
}

/* ---- per-variable fill mode ----------------------------------------------------
 * netCDF's nc_def_var_fill: whether enddef fills a variable, and its
 * _FillValue.  The checks are netCDF-C's for each format: a classic file
 * wants write access and define mode before it looks at the variable; a
 * netCDF-4 file finds the variable, then refuses one already laid out
 * (NCS_ELATEDEF), and turning fill off there also removes _FillValue. */
static int laid_out(ncs_file *f, int varid)
{
    ncs_storage st;
    int status = ncsi_store_inq_storage(f, varid, &st);
    if (status == NCS_NOERR)
        status = ncsi_store_def_storage(f, varid, &st);
    return status;
}

int ncs_def_var_fill(int ncid, int varid, int no_fill, const void *fill_value)
{
    ncs_file *f = ncsi_file_get(ncid);
    int status;
    if (f == NULL)
        return NCS_ERR(NCS_EBADID);
    if (varid == NCS_GLOBAL)
        return NCS_ERR(NCS_EGLOBAL);
    if (!(f->flags & NCSI_F_WRITE))
        return NCS_ERR(NCS_EPERM);
    if (f->version != 4 && !(f->flags & NCSI_F_INDEF))
        return NCS_ERR(NCS_ENOTINDEFINE);
    if (varid < 0 || varid >= f->model.nvars)
        return NCS_ERR(NCS_ENOTVAR);
    if (f->version == 4) {
        status = laid_out(f, varid);
        if (status != NCS_NOERR)
            return status;
    }
    f->model.vars[varid].nofill = no_fill != 0;
    if (fill_value != NULL && !no_fill) {
        status = ncs_del_att(ncid, varid, "_FillValue");
        if (status != NCS_NOERR && status != NCS_ENOTATT)
            return status;
        return ncs_put_att(ncid, varid, "_FillValue", f->model.vars[varid].type, 1,
                           NCS_NAT, fill_value);
    }
    if (no_fill && f->version == 4) {
        status = ncs_del_att(ncid, varid, "_FillValue");
        if (status != NCS_NOERR && status != NCS_ENOTATT)
            return status;
    }
    return NCS_NOERR;
}

int ncs_inq_var_fill(int ncid, int varid, int *no_fillp, void *fill_valuep)
{
    ncs_file *f = ncsi_file_get(ncid);
    if (f == NULL)
        return NCS_ERR(NCS_EBADID);
    if (varid < 0 || varid >= f->model.nvars)
        return NCS_ERR(NCS_ENOTVAR);
    const ncs_var *v = &f->model.vars[varid];
    if (no_fillp != NULL)
        *no_fillp = v->nofill;
    /* netCDF-C's netCDF-4 code gives no value for a variable not filled */
    if (fill_valuep == NULL || (f->version == 4 && v->nofill))
        return NCS_NOERR;
    int status = ncs_get_att(ncid, varid, "_FillValue", NCS_NAT, fill_valuep);
    if (status != NCS_ENOTATT)
        return status;
    switch (v->type) {
    case NCS_BYTE: *(signed char *)fill_valuep = NCS_FILL_BYTE; break;
    case NCS_CHAR: *(char *)fill_valuep = NCS_FILL_CHAR; break;
    case NCS_SHORT: *(short *)fill_valuep = NCS_FILL_SHORT; break;
    case NCS_INT: *(int *)fill_valuep = NCS_FILL_INT; break;
    case NCS_FLOAT: *(float *)fill_valuep = NCS_FILL_FLOAT; break;
    case NCS_DOUBLE: *(double *)fill_valuep = NCS_FILL_DOUBLE; break;
    case NCS_UBYTE: *(unsigned char *)fill_valuep = NCS_FILL_UBYTE; break;
    case NCS_USHORT: *(unsigned short *)fill_valuep = NCS_FILL_USHORT; break;
    case NCS_UINT: *(unsigned int *)fill_valuep = NCS_FILL_UINT; break;
    case NCS_INT64: *(long long *)fill_valuep = NCS_FILL_INT64; break;
    case NCS_UINT64: *(unsigned long long *)fill_valuep = NCS_FILL_UINT64; break;
    default: return NCS_ERR(NCS_EBADTYPE);
    }
    return NCS_NOERR;
}
