/*
 * h5r_group.c -- a group's links and an object's attributes, from compact
 * messages or dense storage, and the variable-length data attributes
 * point to (h5read.h).
 *
 * Link message (type 6): version 1, flags (bits 0-1: width of the name's
 * length, 1 << n bytes; bit 2: a creation order; bit 3: a link type; bit
 * 4: a character set), the link type (1; 0 hard, 1 soft, 64 and up
 * external), the creation order (8), the character set (1), the name's
 * length, the name (no NUL), then for a hard link the object's header O,
 * for a soft one a length (2) and the path.
 *
 * Attribute message (type 12): version 1: version, reserved, the sizes of
 * the name (NUL included), datatype and dataspace (2 each), then the
 * three, each padded to a multiple of 8 bytes, then the data.  Version 2:
 * flags (bits 0-1: shared type or space) in place of the reserved byte,
 * nothing padded.  Version 3: as 2 with the name's character set (1)
 * before the name.
 *
 * Dense storage: the messages are objects of a fractal heap, found through
 * the records of its version-2 B-tree name index: links (type 5): the
 * name's hash (4), the heap id; attributes (type 8): the heap id (8),
 * message flags (1), creation order (4), the name's hash (4).
 */
#include "h5read.h"

#include <stdlib.h>
#include <string.h>

#define BT2_LINK_NAME 5
#define BT2_ATTR_NAME 8

void ncsi_h5r_links_free(ncsi_h5r_link *l, size_t n)
{
    for (size_t i = 0; l != NULL && i < n; i++)
        free(l[i].name);
    free(l);
}

void ncsi_h5r_attrs_free(ncsi_h5r_attr *a, size_t n)
{
    for (size_t i = 0; a != NULL && i < n; i++) {
        free(a[i].name);
        free(a[i].data);
    }
    free(a);
}

static char *strndup_checked(const unsigned char *s, size_t n)
{
    char *c = ncsi_malloc(n + 1);
    if (c != NULL) {
        memcpy(c, s, n);
        c[n] = '\0';
    }
    return c;
}

/* ---- links ------------------------------------------------------------------------ */

static int decode_link(const ncsi_h5r *f, const unsigned char *d, size_t n, ncsi_h5r_link *l)
{
    unsigned sa = f->info.sizeof_addr;
    unsigned flags, lw;
    size_t at = 2, len;
    int type = NCSI_H5R_HARD;
    memset(l, 0, sizeof *l);
    l->corder = -1;
    if (n < 3 || d[0] != 1)
        return NCSI_H5R_CORRUPT;
    flags = d[1];
    if (flags & 0xe0)
        return NCSI_H5R_CORRUPT;
    if (flags & 0x08)
        type = d[at++];
    if (flags & 0x04) {
        if (at + 8 > n)
            return NCSI_H5R_CORRUPT;
        l->corder = (int64_t)ncsi_h5r_le(d + at, 8);
        at += 8;
    }
    if (flags & 0x10)
        at++;
    lw = 1u << (flags & 3);
    if (at + lw > n)
        return NCSI_H5R_CORRUPT;
    len = (size_t)ncsi_h5r_le(d + at, lw);
    at += lw;
    if (len == 0 || len > n - at)
        return NCSI_H5R_CORRUPT;
    if (type == NCSI_H5R_HARD) {
        if (at + len + sa > n)
            return NCSI_H5R_CORRUPT;
        l->addr = ncsi_h5r_addr(f, d + at + len);
        if (l->addr == NCSI_H5R_UNDEF)
            return NCSI_H5R_CORRUPT;
    } else if (type == NCSI_H5R_SOFT) {
        l->addr = NCSI_H5R_UNDEF;
    } else {
        return NCSI_H5R_UNSUPPORTED;
    }
    l->type = type;
    if ((l->name = strndup_checked(d + at, len)) == NULL)
        return NCS_ENOMEM;
    if (strlen(l->name) != len) {
        free(l->name);
        l->name = NULL;
        return NCSI_H5R_CORRUPT;     /* a NUL inside the name */
    }
    return NCS_NOERR;
}

static int by_corder(const void *a, const void *b)
{
    const ncsi_h5r_link *x = a, *y = b;
    return (x->corder > y->corder) - (x->corder < y->corder);
}

static int by_name(const void *a, const void *b)
{
    const ncsi_h5r_link *x = a, *y = b;
    return strcmp(x->name, y->name);
}

/* Links read from dense storage: the name index's records, each naming a
 * link message in the heap. */
static int dense_links(ncsi_h5r *f, const ncsi_h5r_obj *g, ncsi_h5r_link **lp, size_t *np)
{
    ncsi_h5r_fheap *h = NULL;
    unsigned char *recs = NULL;
    size_t nrec = 0, rs = 0, idlen, n = 0;
    ncsi_h5r_link *l = NULL;
    int status;
    if ((status = ncsi_h5r_fheap_open(f, g->link_heap, &h)) != NCS_NOERR)
        return status;
    if (g->link_names == NCSI_H5R_UNDEF) {
        status = NCSI_H5R_CORRUPT;
        goto done;
    }
    status = ncsi_h5r_btree2_records(f, g->link_names, BT2_LINK_NAME, &recs, &nrec, &rs);
    if (status != NCS_NOERR)
        goto done;
    idlen = ncsi_h5r_fheap_idlen(h);
    status = NCSI_H5R_CORRUPT;
    if (nrec > 0 && rs != 4 + idlen)
        goto done;
    if (nrec > 0 && (l = ncsi_calloc(nrec, sizeof *l)) == NULL) {
        status = NCS_ENOMEM;
        goto done;
    }
    status = NCS_NOERR;
    for (size_t i = 0; i < nrec && status == NCS_NOERR; i++) {
        unsigned char *m;
        size_t mn;
        status = ncsi_h5r_fheap_get(h, recs + i * rs + 4, idlen, &m, &mn);
        if (status == NCS_NOERR) {
            status = decode_link(f, m, mn, &l[n]);
            free(m);
            if (status == NCS_NOERR)
                n++;
        }
    }
done:
    free(recs);
    ncsi_h5r_fheap_close(h);
    if (status != NCS_NOERR) {
        ncsi_h5r_links_free(l, n);
        return status;
    }
    *lp = l;
    *np = n;
    return NCS_NOERR;
}

int ncsi_h5r_links(ncsi_h5r *f, const ncsi_h5r_obj *g, ncsi_h5r_link **lp, size_t *np)
{
    ncsi_h5r_link *l = NULL;
    size_t n = 0;
    int status = NCS_NOERR, corder = 0;
    *lp = NULL;
    *np = 0;
    if (!g->is_group)
        return NCS_EINVAL;
    if (g->symtab_btree != NCSI_H5R_UNDEF || g->symtab_heap != NCSI_H5R_UNDEF) {
        status = ncsi_h5r_symtab_links(f, g->symtab_btree, g->symtab_heap, &l, &n);
    } else if (g->links_dense) {
        status = dense_links(f, g, &l, &n);
        corder = g->links_corder;
    } else {
        corder = g->links_corder;
        if (g->nlinkmsgs > 0 && (l = ncsi_calloc((size_t)g->nlinkmsgs, sizeof *l)) == NULL)
            return NCS_ENOMEM;
        for (int i = 0; i < g->nlinkmsgs && status == NCS_NOERR; i++) {
            status = decode_link(f, g->linkmsg[i], g->linklen[i], &l[n]);
            if (status == NCS_NOERR)
                n++;
        }
    }
    if (status != NCS_NOERR) {
        ncsi_h5r_links_free(l, n);
        return status;
    }
    if (corder) {
        for (size_t i = 0; i < n; i++)
            if (l[i].corder < 0) {
                ncsi_h5r_links_free(l, n);
                return NCSI_H5R_CORRUPT;
            }
        if (n > 1)
            qsort(l, n, sizeof *l, by_corder);
    } else if (n > 1) {
        qsort(l, n, sizeof *l, by_name);
    }
    /* two links of one name are a damaged group */
    for (size_t i = 1; i < n; i++)
        if ((corder && l[i].corder == l[i - 1].corder) || (!corder && strcmp(l[i].name, l[i - 1].name) == 0)) {
            ncsi_h5r_links_free(l, n);
            return NCSI_H5R_CORRUPT;
        }
    *lp = l;
    *np = n;
    return NCS_NOERR;
}

/* ---- attributes ---------------------------------------------------------------------- */

static int decode_attr(const ncsi_h5r *f, const unsigned char *d, size_t n, ncsi_h5r_attr *a)
{
    size_t namesz, typesz, spacesz, at, need;
    int v, status;
    memset(a, 0, sizeof *a);
    a->corder = -1;
    if (n < 8)
        return NCSI_H5R_CORRUPT;
    v = d[0];
    if (v < 1 || v > 3)
        return NCSI_H5R_CORRUPT;
    if (v >= 2 && (d[1] & 0x03))
        return NCSI_H5R_UNSUPPORTED;    /* a shared type or space */
    namesz = (size_t)ncsi_h5r_le(d + 2, 2);
    typesz = (size_t)ncsi_h5r_le(d + 4, 2);
    spacesz = (size_t)ncsi_h5r_le(d + 6, 2);
    at = v == 3 ? 9 : 8;
    if (v == 1) {
        namesz = NCS_RNDUP(namesz, 8);
        typesz = NCS_RNDUP(typesz, 8);
        spacesz = NCS_RNDUP(spacesz, 8);
    }
    if (namesz == 0 || namesz > n - at || typesz > n - at - namesz ||
        spacesz > n - at - namesz - typesz)
        return NCSI_H5R_CORRUPT;
    {
        const unsigned char *z = memchr(d + at, 0, namesz);
        if (z == NULL || z == d + at)
            return NCSI_H5R_CORRUPT;
        if ((a->name = strndup_checked(d + at, (size_t)(z - (d + at)))) == NULL)
            return NCS_ENOMEM;
    }
    at += namesz;
    if ((status = ncsi_h5r_decode_type(f, d + at, typesz, &a->type)) != NCS_NOERR)
        goto fail;
    at += typesz;
    if ((status = ncsi_h5r_decode_space(f, d + at, spacesz, &a->space)) != NCS_NOERR)
        goto fail;
    at += spacesz;
    if ((status = ncsi_h5r_space_elements(&a->space, &a->nelems)) != NCS_NOERR)
        goto fail;
    status = NCSI_H5R_CORRUPT;
    if (a->nelems > (n - at) / a->type.size)
        goto fail;
    need = (size_t)a->nelems * a->type.size;
    a->size = need;
    if ((a->data = ncsi_malloc(need ? need : 1)) == NULL) {
        status = NCS_ENOMEM;
        goto fail;
    }
    memcpy(a->data, d + at, need);
    return NCS_NOERR;
fail:
    free(a->name);
    a->name = NULL;
    return status;
}

static int attr_by_corder(const void *x, const void *y)
{
    const ncsi_h5r_attr *a = x, *b = y;
    return (a->corder > b->corder) - (a->corder < b->corder);
}

static int dense_attrs(ncsi_h5r *f, const ncsi_h5r_obj *o, ncsi_h5r_attr **ap, size_t *np)
{
    ncsi_h5r_fheap *h = NULL;
    unsigned char *recs = NULL;
    size_t nrec = 0, rs = 0, n = 0, idlen;
    ncsi_h5r_attr *a = NULL;
    int status;
    if ((status = ncsi_h5r_fheap_open(f, o->attr_heap, &h)) != NCS_NOERR)
        return status;
    if (o->attr_names == NCSI_H5R_UNDEF) {
        status = NCSI_H5R_CORRUPT;
        goto done;
    }
    status = ncsi_h5r_btree2_records(f, o->attr_names, BT2_ATTR_NAME, &recs, &nrec, &rs);
    if (status != NCS_NOERR)
        goto done;
    idlen = ncsi_h5r_fheap_idlen(h);
    status = NCSI_H5R_CORRUPT;
    if (nrec > 0 && (rs != 17 || idlen > 8))
        goto done;
    if (nrec > 0 && (a = ncsi_calloc(nrec, sizeof *a)) == NULL) {
        status = NCS_ENOMEM;
        goto done;
    }
    status = NCS_NOERR;
    for (size_t i = 0; i < nrec && status == NCS_NOERR; i++) {
        const unsigned char *r = recs + i * rs;
        unsigned char *m;
        size_t mn;
        if (r[8] & 0x02) {
            status = NCSI_H5R_UNSUPPORTED;    /* a shared message */
            break;
        }
        status = ncsi_h5r_fheap_get(h, r, idlen, &m, &mn);
        if (status == NCS_NOERR) {
            status = decode_attr(f, m, mn, &a[n]);
            free(m);
            if (status == NCS_NOERR)
                a[n++].corder = (int64_t)ncsi_h5r_le(r + 9, 4);
        }
    }
done:
    free(recs);
    ncsi_h5r_fheap_close(h);
    if (status != NCS_NOERR) {
        ncsi_h5r_attrs_free(a, n);
        return status;
    }
    *ap = a;
    *np = n;
    return NCS_NOERR;
}

int ncsi_h5r_attrs(ncsi_h5r *f, const ncsi_h5r_obj *o, ncsi_h5r_attr **ap, size_t *np)
{
    ncsi_h5r_attr *a = NULL;
    size_t n = 0;
    int status = NCS_NOERR;
    *ap = NULL;
    *np = 0;
    if (o->attr_heap != NCSI_H5R_UNDEF) {
        if ((status = dense_attrs(f, o, &a, &n)) != NCS_NOERR)
            return status;
        /* untracked, they stay in the name index's order (by the names'
         * hash), which is HDF5's when asked for creation order */
        if (n > 1 && o->attrs_corder)
            qsort(a, n, sizeof *a, attr_by_corder);
    } else {
        if (o->nattrmsgs > 0 && (a = ncsi_calloc((size_t)o->nattrmsgs, sizeof *a)) == NULL)
            return NCS_ENOMEM;
        for (int i = 0; i < o->nattrmsgs && status == NCS_NOERR; i++) {
            status = decode_attr(f, o->attrmsg[i], o->attrlen[i], &a[n]);
            if (status == NCS_NOERR)
                a[n++].corder = o->attrcorder[i];
        }
        if (status != NCS_NOERR) {
            ncsi_h5r_attrs_free(a, n);
            return status;
        }
        if (o->attrs_corder) {
            int known = 1;
            for (size_t i = 0; i < n; i++)
                known &= a[i].corder >= 0;
            if (known && n > 1)
                qsort(a, n, sizeof *a, attr_by_corder);
        }
    }
    *ap = a;
    *np = n;
    return NCS_NOERR;
}

/* ---- variable-length data ------------------------------------------------------------
 * A vlen element as stored: its length (4, in elements of the base type),
 * then the global heap id of its data: the collection's address O and the
 * object's index (4). */

int ncsi_h5r_vlen(ncsi_h5r *f, const ncsi_h5r_attr *a, uint64_t i, unsigned char **datap,
                  uint64_t *np)
{
    unsigned sa = f->info.sizeof_addr;
    const unsigned char *e;
    uint64_t len, coll, need;
    uint32_t idx;
    unsigned char *obj;
    size_t on;
    int status;
    *datap = NULL;
    *np = 0;
    if (a->type.cls != NCSI_H5R_VLEN || i >= a->nelems || a->type.size < 8 + sa)
        return NCS_EINVAL;
    e = a->data + i * a->type.size;
    len = ncsi_h5r_le(e, 4);
    coll = ncsi_h5r_addr(f, e + 4);
    idx = (uint32_t)ncsi_h5r_le(e + 4 + sa, 4);
    if (len == 0)
        return NCS_NOERR;
    if (coll == NCSI_H5R_UNDEF)
        return NCSI_H5R_CORRUPT;
    if ((status = ncsi_h5r_gheap_get(f, coll, idx, &obj, &on)) != NCS_NOERR)
        return status;
    /* a vlen string's base type is its character: np of them, as of any base */
    if (ncsi_mul_u64(len, a->type.base_size, &need) || need > on) {
        free(obj);
        return NCSI_H5R_CORRUPT;
    }
    *datap = obj;
    *np = len;
    return NCS_NOERR;
}
