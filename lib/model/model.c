/*
 * model.c -- the core model of a file: dimensions, variables, attributes.
 *
 * The model is what the classic data model says a file is, independent of
 * storage: back ends fill it on open and lay it out on enddef.  Names follow
 * netCDF's rules (ncsi_check_name); lookups are by exact byte comparison.
 *
 * Invariants: dimids of every variable are valid indices into dims; only
 * dimension 0 of a variable may be the unlimited one; every attribute's xval
 * holds nelems * type_size bytes in external byte order.
 *
 * Every change to the model is made here (the mutations of model.h), so
 * that the arrays grow in one way (ncsi_model_reserve) and a new entry is
 * filled in one place, whoever adds it.
 */
#include "model.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* Length of the UTF-8 sequence starting at s, or 0 when it is malformed
 * (overlong forms, surrogates and code points past U+10FFFF included). */
static size_t utf8_seq(const unsigned char *s)
{
    unsigned c = s[0];
    size_t n;
    uint32_t cp;
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF) { n = 2; cp = c & 0x1F; }
    else if (c >= 0xE0 && c <= 0xEF) { n = 3; cp = c & 0x0F; }
    else if (c >= 0xF0 && c <= 0xF4) { n = 4; cp = c & 0x07; }
    else return 0;
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3F);
    }
    if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
        (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return n;
}

/* netCDF's naming rules: non-empty valid UTF-8, no '/', first character a
 * letter, digit, '_' or multi-byte character, no ASCII control characters
 * or DEL, no trailing space, at most NCS_MAX_NAME bytes. */
int ncsi_check_name(const char *name)
{
    const unsigned char *s = (const unsigned char *)name;
    size_t i = 0, len;
    if (name == NULL || *name == '\0')
        return NCS_ERR(NCS_EBADNAME);
    len = strlen(name);
    if (s[0] < 0x80 && !(s[0] == '_' || (s[0] >= 'a' && s[0] <= 'z') ||
                         (s[0] >= 'A' && s[0] <= 'Z') || (s[0] >= '0' && s[0] <= '9')))
        return NCS_ERR(NCS_EBADNAME);
    while (i < len) {
        size_t k = utf8_seq(s + i);
        if (k == 0 || i + k > len)
            return NCS_ERR(NCS_EBADNAME);
        if (k == 1 && (s[i] < 0x20 || s[i] == 0x7F || s[i] == '/'))
            return NCS_ERR(NCS_EBADNAME);
        i += k;
    }
    if (s[len - 1] == ' ')
        return NCS_ERR(NCS_EBADNAME);
    if (len > NCS_MAX_NAME)
        return NCS_ERR(NCS_EMAXNAME);
    return NCS_NOERR;
}

size_t ncsi_name_xlen(const char *name, uint32_t namelen)
{
    size_t n = strlen(name);
    return namelen > n ? namelen : n;
}

int ncsi_model_reserve(void *arrp, int *cap, size_t need, size_t esz)
{
    void *p;
    size_t nb;
    if (need <= (size_t)*cap)
        return NCS_NOERR;
    if (need > INT_MAX || __builtin_mul_overflow(need, esz, &nb))
        return NCS_ERR(NCS_ENOMEM);
    /* arrp points at a pointer of any object type: moved through memcpy,
     * so no caller needs a cast to void ** */
    memcpy(&p, arrp, sizeof p);
    p = ncsi_realloc(p, nb);
    if (p == NULL)
        return NCS_ERR(NCS_ENOMEM);
    memset((unsigned char *)p + (size_t)*cap * esz, 0, nb - (size_t)*cap * esz);
    memcpy(arrp, &p, sizeof p);
    *cap = (int)need;
    return NCS_NOERR;
}

/* Room for an element after the n of *arrp: capacities double (from
 * first), so that appending n elements one at a time copies O(n). */
static int room_for_one(void *arrp, int n, int *cap, size_t esz, int first)
{
    if (n < *cap)
        return NCS_NOERR;
    return ncsi_model_reserve(arrp, cap, *cap ? 2 * (size_t)*cap : (size_t)first, esz);
}

void ncsi_att_free(ncs_att *a)
{
    free(a->name);
    free(a->xval);
    a->name = NULL;
    a->xval = NULL;
}

void ncsi_attlist_free(ncs_attlist *l)
{
    for (int i = 0; i < l->n; i++)
        ncsi_att_free(&l->a[i]);
    free(l->a);
    l->a = NULL;
    l->n = l->cap = 0;
}

static int att_copy(const ncs_att *src, ncs_att *dst)
{
    size_t nb = (size_t)src->nelems * ncsi_type_size(src->type);
    dst->name = ncsi_strdup(src->name);
    dst->namelen = src->namelen;
    dst->type = src->type;
    dst->nelems = src->nelems;
    dst->in_file = src->in_file;
    dst->xval = ncsi_malloc(nb ? nb : 1);
    if (dst->name == NULL || dst->xval == NULL) {
        ncsi_att_free(dst);
        return NCS_ERR(NCS_ENOMEM);
    }
    memcpy(dst->xval, src->xval, nb);
    return NCS_NOERR;
}

int ncsi_attlist_copy(const ncs_attlist *src, ncs_attlist *dst)
{
    dst->n = dst->cap = 0;
    dst->a = NULL;
    if (src->n == 0)
        return NCS_NOERR;
    dst->a = ncsi_calloc((size_t)src->n, sizeof *dst->a);
    if (dst->a == NULL)
        return NCS_ERR(NCS_ENOMEM);
    dst->cap = src->n;
    for (int i = 0; i < src->n; i++) {
        int status = att_copy(&src->a[i], &dst->a[i]);
        if (status != NCS_NOERR) {
            ncsi_attlist_free(dst);
            return status;
        }
        dst->n = i + 1;
    }
    return NCS_NOERR;
}

int ncsi_find_att(const ncs_attlist *l, const char *name)
{
    for (int i = 0; i < l->n; i++)
        if (strcmp(l->a[i].name, name) == 0)
            return i;
    return -1;
}

int ncsi_attlist_put(ncs_attlist *l, ncs_att *a)
{
    int i = ncsi_find_att(l, a->name);
    if (i >= 0) {
        int in_file = l->a[i].in_file;
        ncsi_att_free(&l->a[i]);
        l->a[i] = *a;
        l->a[i].in_file = in_file;
        return NCS_NOERR;
    }
    a->in_file = 0;
    if (room_for_one(&l->a, l->n, &l->cap, sizeof *l->a, 4) != NCS_NOERR)
        return NCS_ERR(NCS_ENOMEM);
    l->a[l->n++] = *a;
    return NCS_NOERR;
}

void ncsi_attlist_del(ncs_attlist *l, int idx)
{
    NCSI_ASSERT(idx >= 0 && idx < l->n);
    ncsi_att_free(&l->a[idx]);
    memmove(&l->a[idx], &l->a[idx + 1], (size_t)(l->n - idx - 1) * sizeof *l->a);
    l->n--;
}

ncs_attlist *ncsi_attlist(ncs_model *m, int varid)
{
    if (varid == NCS_GLOBAL)
        return &m->gatts;
    if (varid < 0 || varid >= m->nvars)
        return NULL;
    return &m->vars[varid].atts;
}

int ncsi_find_dim(const ncs_model *m, const char *name)
{
    for (int i = 0; i < m->ndims; i++)
        if (strcmp(m->dims[i].name, name) == 0)
            return i;
    return -1;
}

int ncsi_find_var(const ncs_model *m, const char *name)
{
    for (int i = 0; i < m->nvars; i++)
        if (strcmp(m->vars[i].name, name) == 0)
            return i;
    return -1;
}

static void var_free(ncs_var *v)
{
    free(v->name);
    free(v->dimids);
    free(v->shape);
    free(v->dsizes);
    ncsi_attlist_free(&v->atts);
}

void ncsi_model_free(ncs_model *m)
{
    for (int i = 0; i < m->ndims; i++)
        free(m->dims[i].name);
    free(m->dims);
    for (int i = 0; i < m->nvars; i++)
        var_free(&m->vars[i]);
    free(m->vars);
    ncsi_attlist_free(&m->gatts);
    memset(m, 0, sizeof *m);
    m->unlimdim = -1;
}

int ncsi_var_shape(const ncs_model *m, ncs_var *v)
{
    uint64_t product = 1;
    int nd = v->ndims;
    v->xsz = ncsi_type_size(v->type);
    v->isrec = 0;
    for (int d = 0; d < nd; d++) {
        int id = v->dimids[d];
        if (id < 0 || id >= m->ndims)
            return NCS_ERR(NCS_EBADDIM);
        v->shape[d] = m->dims[id].len;
        if (v->shape[d] == 0) {
            if (d != 0)
                return NCS_ERR(NCS_EUNLIMPOS);
            v->isrec = 1;
        }
    }
    for (int d = nd - 1; d >= 0; d--) {
        if (!(d == 0 && v->isrec) && ncsi_mul_u64(product, v->shape[d], &product))
            return NCS_ERR(NCS_EVARSIZE);
        v->dsizes[d] = product;
    }
    if (ncsi_mul_u64(product, v->xsz, &v->len) || v->len > UINT64_MAX - 3)
        return NCS_ERR(NCS_EVARSIZE);
    v->len = NCS_RNDUP(v->len, 4);
    return NCS_NOERR;
}

int ncsi_var_alloc(ncs_var *v, int ndims)
{
    size_t nd = ndims > 0 ? (size_t)ndims : 1;
    NCSI_ASSERT(ndims >= 0 && ndims <= NCS_MAX_VAR_DIMS);
    v->ndims = ndims;
    v->dimids = ncsi_malloc(nd * sizeof *v->dimids);
    v->shape = ncsi_malloc(nd * sizeof *v->shape);
    v->dsizes = ncsi_malloc(nd * sizeof *v->dsizes);
    if (v->dimids == NULL || v->shape == NULL || v->dsizes == NULL)
        return NCS_ERR(NCS_ENOMEM);
    return NCS_NOERR;
}

static int var_copy(const ncs_var *src, ncs_var *dst)
{
    size_t nd = (size_t)src->ndims;
    *dst = *src;
    dst->name = ncsi_strdup(src->name);
    memset(&dst->atts, 0, sizeof dst->atts);
    if (ncsi_var_alloc(dst, src->ndims) != NCS_NOERR || dst->name == NULL ||
        ncsi_attlist_copy(&src->atts, &dst->atts) != NCS_NOERR) {
        var_free(dst);
        return NCS_ERR(NCS_ENOMEM);
    }
    memcpy(dst->dimids, src->dimids, nd * sizeof(int));
    memcpy(dst->shape, src->shape, nd * sizeof(uint64_t));
    memcpy(dst->dsizes, src->dsizes, nd * sizeof(uint64_t));
    return NCS_NOERR;
}

int ncsi_model_copy(const ncs_model *src, ncs_model *dst)
{
    memset(dst, 0, sizeof *dst);
    dst->unlimdim = src->unlimdim;
    dst->numrecs = src->numrecs;
    if (src->ndims > 0) {
        dst->dims = ncsi_calloc((size_t)src->ndims, sizeof *dst->dims);
        if (dst->dims == NULL)
            goto nomem;
        dst->capdims = src->ndims;
        for (int i = 0; i < src->ndims; i++) {
            dst->dims[i].len = src->dims[i].len;
            dst->dims[i].namelen = src->dims[i].namelen;
            dst->dims[i].name = ncsi_strdup(src->dims[i].name);
            dst->ndims = i + 1;
            if (dst->dims[i].name == NULL)
                goto nomem;
        }
    }
    if (src->nvars > 0) {
        dst->vars = ncsi_calloc((size_t)src->nvars, sizeof *dst->vars);
        if (dst->vars == NULL)
            goto nomem;
        dst->capvars = src->nvars;
        for (int i = 0; i < src->nvars; i++) {
            if (var_copy(&src->vars[i], &dst->vars[i]) != NCS_NOERR)
                goto nomem;
            dst->nvars = i + 1;
        }
    }
    if (ncsi_attlist_copy(&src->gatts, &dst->gatts) != NCS_NOERR)
        goto nomem;
    return NCS_NOERR;
nomem:
    ncsi_model_free(dst);
    return NCS_ERR(NCS_ENOMEM);
}

int ncsi_model_add_dim(ncs_model *m, const char *name, uint64_t len, int *dimidp)
{
    char *nm;
    NCSI_ASSERT(ncsi_find_dim(m, name) < 0 && m->ndims < NCS_MAX_DIMS);
    NCSI_ASSERT(len != 0 || m->unlimdim < 0);
    if (room_for_one(&m->dims, m->ndims, &m->capdims, sizeof *m->dims, 8) != NCS_NOERR)
        return NCS_ERR(NCS_ENOMEM);
    nm = ncsi_strdup(name);
    if (nm == NULL)
        return NCS_ERR(NCS_ENOMEM);
    m->dims[m->ndims].name = nm;
    m->dims[m->ndims].namelen = 0;
    m->dims[m->ndims].len = len;
    if (len == 0)
        m->unlimdim = m->ndims;
    if (dimidp != NULL)
        *dimidp = m->ndims;
    m->ndims++;
    return NCS_NOERR;
}

int ncsi_model_add_var(ncs_model *m, const char *name, int xtype, int ndims,
                       const int *dimids, int *varidp)
{
    ncs_var v;
    int status;
    NCSI_ASSERT(ncsi_find_var(m, name) < 0 && m->nvars < NCS_MAX_VARS);
    NCSI_ASSERT(ncsi_type_size(xtype) != 0 && (ndims == 0 || dimids != NULL));
    memset(&v, 0, sizeof v);
    v.type = xtype;
    v.name = ncsi_strdup(name);
    status = ncsi_var_alloc(&v, ndims);
    if (status == NCS_NOERR && v.name == NULL)
        status = NCS_ERR(NCS_ENOMEM);
    if (status != NCS_NOERR)
        goto fail;
    if (ndims > 0)
        memcpy(v.dimids, dimids, (size_t)ndims * sizeof *v.dimids);
    status = ncsi_var_shape(m, &v);
    if (status != NCS_NOERR)
        goto fail;
    status = room_for_one(&m->vars, m->nvars, &m->capvars, sizeof *m->vars, 8);
    if (status != NCS_NOERR)
        goto fail;
    m->vars[m->nvars] = v;
    if (varidp != NULL)
        *varidp = m->nvars;
    m->nvars++;
    return NCS_NOERR;
fail:
    var_free(&v);
    return status;
}

ncs_var *ncsi_model_push_var(ncs_model *m)
{
    if (room_for_one(&m->vars, m->nvars, &m->capvars, sizeof *m->vars, 8) != NCS_NOERR)
        return NULL;
    memset(&m->vars[m->nvars], 0, sizeof *m->vars);
    return &m->vars[m->nvars++];
}

int ncsi_att_new(ncs_att *a, const char *name, int xtype, uint64_t nelems)
{
    size_t nb = (size_t)nelems * ncsi_type_size(xtype);
    memset(a, 0, sizeof *a);
    a->name = ncsi_strdup(name);
    a->type = xtype;
    a->nelems = nelems;
    a->xval = ncsi_malloc(nb ? nb : 1);
    if (a->name == NULL || a->xval == NULL) {
        ncsi_att_free(a);
        return NCS_ERR(NCS_ENOMEM);
    }
    return NCS_NOERR;
}

int ncsi_model_rename(char **slot, uint32_t *namelenp, const char *name, uint32_t namelen)
{
    char *nm = ncsi_strdup(name);
    if (nm == NULL)
        return NCS_ERR(NCS_ENOMEM);
    free(*slot);
    *slot = nm;
    *namelenp = namelen;
    return NCS_NOERR;
}
