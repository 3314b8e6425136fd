/*
 * classic_header.c -- the classic-format header codec (grammar in classic.h).
 *
 * Decoding treats the file as hostile: every count is checked against the
 * bytes left in the file before anything is allocated, so the memory used
 * is bounded by a small multiple of the file size; every offset and size is
 * computed with overflow checks; malformed input yields NCS_ENOTNC, or the
 * error the same fault gets from a definition call (NCS_EBADNAME,
 * NCS_EBADDIM, NCS_EUNLIMPOS, NCS_EVARSIZE), always made (or passed on)
 * through NCSI_CORRUPT, so that a debug build names the rule the file broke.
 * Each rejection also names, for ncs_inq_open_diag, the part of the header
 * and the byte offset of the field at fault (ncsi_diag_fault), and what
 * the decoder lets pass as netCDF-C does (non-zero padding, a vsize that
 * disagrees with the shape) is noted there (ncsi_diag_note).
 */
#include "classic.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- sizes -------------------------------------------------------------- */

static uint64_t cnt_size(int version)  { return version == 5 ? 8 : 4; }
static uint64_t off_size(int version)  { return version == 1 ? 4 : 8; }

static uint64_t name_len(const char *name, uint32_t namelen, int version)
{
    return cnt_size(version) + NCS_RNDUP((uint64_t)ncsi_name_xlen(name, namelen), 4);
}

static uint64_t attlist_len(const ncs_attlist *l, int version)
{
    uint64_t n = 4 + cnt_size(version);
    for (int i = 0; i < l->n; i++) {
        const ncs_att *a = &l->a[i];
        n += name_len(a->name, a->namelen, version) + 4 + cnt_size(version) +
             NCS_RNDUP(a->nelems * ncsi_type_size(a->type), 4);
    }
    return n;
}

uint64_t ncsi_hdr_len(const ncs_model *m, int version)
{
    uint64_t c = cnt_size(version);
    uint64_t n = 4 + c;                       /* magic, numrecs */
    n += 4 + c;                               /* dim_list */
    for (int i = 0; i < m->ndims; i++)
        n += name_len(m->dims[i].name, m->dims[i].namelen, version) + c;
    n += attlist_len(&m->gatts, version);
    n += 4 + c;                               /* var_list */
    for (int i = 0; i < m->nvars; i++) {
        const ncs_var *v = &m->vars[i];
        n += name_len(v->name, v->namelen, version) + c + (uint64_t)v->ndims * c +
             attlist_len(&v->atts, version) + 4 + c + off_size(version);
    }
    return n;
}

/* ---- encoding -------------------------------------------------------------- */

typedef struct wbuf {
    unsigned char *p;
    int version;
} wbuf;

static void put_u32(wbuf *w, uint32_t v)
{
    w->p[0] = (unsigned char)(v >> 24);
    w->p[1] = (unsigned char)(v >> 16);
    w->p[2] = (unsigned char)(v >> 8);
    w->p[3] = (unsigned char)v;
    w->p += 4;
}

static void put_u64(wbuf *w, uint64_t v)
{
    put_u32(w, (uint32_t)(v >> 32));
    put_u32(w, (uint32_t)v);
}

static void put_cnt(wbuf *w, uint64_t v)
{
    if (w->version == 5)
        put_u64(w, v);
    else
        put_u32(w, (uint32_t)v);
}

static void put_bytes(wbuf *w, const void *src, uint64_t n)
{
    uint64_t padded = NCS_RNDUP(n, 4);
    memcpy(w->p, src, (size_t)n);
    memset(w->p + n, 0, (size_t)(padded - n));
    w->p += padded;
}

static void put_name(wbuf *w, const char *name, uint32_t namelen)
{
    size_t n = strlen(name), x = ncsi_name_xlen(name, namelen);
    put_cnt(w, x);
    memcpy(w->p, name, n);
    memset(w->p + n, 0, NCS_RNDUP(x, 4) - n);
    w->p += NCS_RNDUP(x, 4);
}

static void put_attlist(wbuf *w, const ncs_attlist *l)
{
    if (l->n == 0) {
        put_u32(w, 0);
        put_cnt(w, 0);
        return;
    }
    put_u32(w, NCSI_TAG_ATT);
    put_cnt(w, (uint64_t)l->n);
    for (int i = 0; i < l->n; i++) {
        const ncs_att *a = &l->a[i];
        put_name(w, a->name, a->namelen);
        put_u32(w, (uint32_t)a->type);
        put_cnt(w, a->nelems);
        put_bytes(w, a->xval, a->nelems * ncsi_type_size(a->type));
    }
}

void ncsi_hdr_encode(const ncs_model *m, int version, unsigned char *buf)
{
    wbuf w = { buf, version };
    NCSI_ASSERT(version == 1 || version == 2 || version == 5);
    w.p[0] = 'C';
    w.p[1] = 'D';
    w.p[2] = 'F';
    w.p[3] = (unsigned char)version;
    w.p += 4;
    put_cnt(&w, m->numrecs);
    if (m->ndims == 0) {
        put_u32(&w, 0);
        put_cnt(&w, 0);
    } else {
        put_u32(&w, NCSI_TAG_DIM);
        put_cnt(&w, (uint64_t)m->ndims);
        for (int i = 0; i < m->ndims; i++) {
            put_name(&w, m->dims[i].name, m->dims[i].namelen);
            put_cnt(&w, m->dims[i].len);
        }
    }
    put_attlist(&w, &m->gatts);
    if (m->nvars == 0) {
        put_u32(&w, 0);
        put_cnt(&w, 0);
    } else {
        put_u32(&w, NCSI_TAG_VAR);
        put_cnt(&w, (uint64_t)m->nvars);
        for (int i = 0; i < m->nvars; i++) {
            const ncs_var *v = &m->vars[i];
            put_name(&w, v->name, v->namelen);
            put_cnt(&w, (uint64_t)v->ndims);
            for (int d = 0; d < v->ndims; d++)
                put_cnt(&w, (uint64_t)v->dimids[d]);
            put_attlist(&w, &v->atts);
            put_u32(&w, (uint32_t)v->type);
            if (version == 5)
                put_u64(&w, v->len);
            else
                put_u32(&w, v->len > UINT32_MAX ? UINT32_MAX : (uint32_t)v->len);
            if (version == 1)
                put_u32(&w, (uint32_t)v->begin);
            else
                put_u64(&w, v->begin);
        }
    }
    NCSI_ASSERT((uint64_t)(w.p - buf) == ncsi_hdr_len(m, version));
}

/* ---- decoding -------------------------------------------------------------- */

/* A cursor over the file's leading bytes, read on demand in growing blocks. */
typedef struct rbuf {
    ncs_io *io;
    uint64_t fsize;        /* bytes in the file */
    unsigned char *buf;
    uint64_t have;         /* bytes of the file in buf */
    uint64_t pos;          /* cursor */
    uint64_t field;        /* where the last field read begins */
    int version;
    /* The part being read, for diagnoses (put into words only when one is
     * made, so that a good header costs no formatting): kind, its index
     * in its list (-1: none), its name once read, and the variable whose
     * attributes are read (NULL: global ones, or no attribute). */
    const char *kind;
    int64_t index;
    const char *name, *var;
} rbuf;

static void part(rbuf *r, const char *kind, int64_t index, const char *var)
{
    r->kind = kind;
    r->index = index;
    r->name = NULL;
    r->var = var;
}

/* The part in words: 'attribute "units" of variable "t"'. */
static void describe(const rbuf *r, char *buf, size_t len)
{
    int n;
    if (r->name != NULL)
        n = snprintf(buf, len, "%s \"%s\"", r->kind, r->name);
    else if (r->index >= 0)
        n = snprintf(buf, len, "%s %lld", r->kind, (long long)r->index);
    else
        n = snprintf(buf, len, "%s", r->kind);
    if (r->var != NULL && n >= 0 && (size_t)n < len)
        snprintf(buf + n, len - (size_t)n, " of variable \"%s\"", r->var);
}

/* Records the diagnosis of a rejection at offset at: the part, then why.
 * BAD makes the rejection itself at the caller's line. */
static void NCSI_PRINTF(3, 4) fault(const rbuf *r, uint64_t at, const char *fmt, ...)
{
    char where[2 * NCS_MAX_NAME + 64], why[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    describe(r, where, sizeof where);
    ncsi_diag_fault(at, "%s: %s", where, why);
}

/* Notes an irregularity let pass at offset at, in the same words. */
static void NCSI_PRINTF(3, 4) note(const rbuf *r, uint64_t at, const char *fmt, ...)
{
    char where[2 * NCS_MAX_NAME + 64], why[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    describe(r, where, sizeof where);
    ncsi_diag_note(at, "%s: %s", where, why);
}
#define BAD(r, at, code, ...) (fault((r), (at), __VA_ARGS__), NCSI_CORRUPT(code))

/* The first non-zero byte in the padding [from, to) of the cursor's
 * buffer, or NCSI_DIAG_NOWHERE. */
static uint64_t nonzero_pad(const rbuf *r, uint64_t from, uint64_t to)
{
    for (uint64_t i = from; i < to; i++)
        if (r->buf[i] != 0)
            return i;
    return NCSI_DIAG_NOWHERE;
}

/* Makes n more bytes available at pos.  Past the end of the file the header
 * is malformed: NCS_ENOTNC. */
static int need(rbuf *r, uint64_t n)
{
    uint64_t want, cap;
    unsigned char *nb;
    size_t got;
    int status;
    if (n > r->fsize || r->pos > r->fsize - n)
        return BAD(r, r->pos, NCS_ENOTNC,
                   "the file ends inside the header (%llu bytes wanted at byte %llu, "
                   "file size %llu)", (unsigned long long)n,
                   (unsigned long long)r->pos, (unsigned long long)r->fsize);
    if (r->pos + n <= r->have)
        return NCS_NOERR;
    want = r->pos + n;
    cap = r->have ? r->have * 2 : 8192;
    if (cap < want)
        cap = want;
    if (cap > r->fsize)
        cap = r->fsize;
    if (cap > SIZE_MAX)
        return NCS_ERR(NCS_ENOMEM);
    nb = ncsi_realloc(r->buf, (size_t)cap);
    if (nb == NULL)
        return NCS_ERR(NCS_ENOMEM);
    r->buf = nb;
    status = ncsi_io_read(r->io, r->have, r->buf + r->have, (size_t)(cap - r->have), &got);
    if (status != NCS_NOERR)
        return status;
    if (got < cap - r->have)
        return NCS_ERR(NCS_ENOTNC);  /* the file shrank under us */
    r->have = cap;
    NCSI_ASSERT(r->pos + n <= r->have && r->have <= r->fsize);
    return NCS_NOERR;
}

static uint64_t left(const rbuf *r)
{
    return r->fsize - r->pos;
}

static int get_u32(rbuf *r, uint32_t *v)
{
    int status = need(r, 4);
    const unsigned char *p;
    if (status != NCS_NOERR)
        return status;
    p = r->buf + r->pos;
    *v = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
    r->field = r->pos;
    r->pos += 4;
    return NCS_NOERR;
}

static int get_u64(rbuf *r, uint64_t *v)
{
    uint32_t hi = 0, lo = 0;
    int status = get_u32(r, &hi);
    if (status == NCS_NOERR)
        status = get_u32(r, &lo);
    *v = (uint64_t)hi << 32 | lo;
    if (status == NCS_NOERR)
        r->field -= 4;        /* the field began with hi */
    return status;
}

/* A count: NON_NEG, so CDF-5's 64-bit counts may not have the sign bit. */
static int get_cnt(rbuf *r, uint64_t *v)
{
    if (r->version == 5) {
        int status = get_u64(r, v);
        if (status == NCS_NOERR && *v > (uint64_t)INT64_MAX)
            return BAD(r, r->field, NCS_ENOTNC, "count %llu has the sign bit set",
                       (unsigned long long)*v);
        return status;
    } else {
        uint32_t u = 0;
        int status = get_u32(r, &u);
        *v = u;
        return status;
    }
}

/* Reads a name: 1..NCS_MAX_NAME bytes, possibly followed by NUL bytes up to
 * its stored length (netCDF-C's data-mode renames leave such names). */
static int get_name(rbuf *r, char **out, uint32_t *namelen)
{
    uint64_t n, padded, at;
    const unsigned char *nul;
    char *s;
    int status = get_cnt(r, &n);
    if (status != NCS_NOERR)
        return status;
    if (n == 0 || n > NCS_MAX_NAME)
        return BAD(r, r->field, NCS_ENOTNC, "name length %llu (1 to %d allowed)",
                   (unsigned long long)n, NCS_MAX_NAME);
    padded = NCS_RNDUP(n, 4);
    status = need(r, padded);
    if (status != NCS_NOERR)
        return status;
    nul = memchr(r->buf + r->pos, 0, (size_t)n);
    *namelen = 0;
    if (nul != NULL) {
        uint64_t len = (uint64_t)(nul - (r->buf + r->pos));
        if (len == 0)
            return BAD(r, r->pos, NCS_ENOTNC, "empty name");
        for (uint64_t i = len; i < n; i++)
            if (r->buf[r->pos + i] != 0)
                return BAD(r, r->pos + i, NCS_ENOTNC, "a NUL byte inside the name");
        *namelen = (uint32_t)n;
        n = len;
    }
    s = ncsi_malloc((size_t)n + 1);
    if (s == NULL)
        return NCS_ERR(NCS_ENOMEM);
    memcpy(s, r->buf + r->pos, (size_t)n);
    s[n] = '\0';
    /* a name no netCDF call could have made */
    status = ncsi_check_name(s);
    if (status != NCS_NOERR) {
        free(s);
        return BAD(r, r->pos, status, "the name breaks netCDF's naming rules");
    }
    at = nonzero_pad(r, r->pos + (*namelen ? *namelen : n), r->pos + padded);
    if (at != NCSI_DIAG_NOWHERE)
        note(r, at, "the padding of the name \"%s\" holds non-zero bytes", s);
    r->pos += padded;
    *out = s;
    return NCS_NOERR;
}

/* Reads a list header: tag and count; ABSENT yields count 0.  Each element
 * of the list takes at least minsz bytes, which bounds the count. */
static int get_list(rbuf *r, uint32_t tag, uint64_t minsz, uint64_t *count)
{
    uint32_t t;
    int status = get_u32(r, &t);
    if (status == NCS_NOERR)
        status = get_cnt(r, count);
    if (status != NCS_NOERR)
        return status;
    if (t == 0) {
        if (*count != 0)
            return BAD(r, r->field, NCS_ENOTNC, "an ABSENT list with a count of %llu",
                       (unsigned long long)*count);
        return NCS_NOERR;
    }
    if (t != tag)
        return BAD(r, r->pos - cnt_size(r->version) - 4, NCS_ENOTNC,
                   "list tag 0x%08x (0x%08x or 0 expected)", (unsigned)t, (unsigned)tag);
    if (*count > left(r) / minsz || *count > INT32_MAX)
        return BAD(r, r->field, NCS_ENOTNC,
                   "a count of %llu, more than the %llu bytes left can hold",
                   (unsigned long long)*count, (unsigned long long)left(r));
    return NCS_NOERR;
}

/* ---- duplicate names ------------------------------------------------------
 * A set of the names read so far in one list, so that a header of n names
 * is checked in O(n) rather than by a scan per name.  Its size is bound by
 * the list's count, which the header's length bounds. */
typedef struct name_set {
    const char **slot;
    size_t mask;
} name_set;

static int names_init(name_set *ns, uint64_t n)
{
    size_t cap = 8;
    while (cap < 2 * n)
        cap *= 2;
    ns->mask = cap - 1;
    ns->slot = ncsi_calloc(cap, sizeof *ns->slot);
    return ns->slot != NULL ? NCS_NOERR : NCS_ERR(NCS_ENOMEM);
}

/* Adds name; 1 when it was there already. */
static int names_seen(name_set *ns, const char *name)
{
    uint64_t h = 14695981039346656037ULL;           /* FNV-1a */
    for (const unsigned char *p = (const unsigned char *)name; *p; p++)
        h = (h ^ *p) * 1099511628211ULL;
    for (size_t i = (size_t)h & ns->mask;; i = (i + 1) & ns->mask) {
        if (ns->slot[i] == NULL) {
            ns->slot[i] = name;
            return 0;
        }
        if (strcmp(ns->slot[i], name) == 0)
            return 1;
    }
}

static void names_free(name_set *ns)
{
    free(ns->slot);
    ns->slot = NULL;
}

/* Attribute i of list l (l->n counts it once its name is read). */
static int get_att(rbuf *r, ncs_attlist *l, uint64_t i, name_set *seen,
                   const char *var)
{
    ncs_att *a = &l->a[i];
    uint32_t type;
    uint64_t nelems, nbytes, at;
    int status;
    part(r, var == NULL ? "global attribute" : "attribute", (int64_t)i, var);
    status = get_name(r, &a->name, &a->namelen);
    if (status != NCS_NOERR)
        return status;
    l->n = (int)i + 1;
    r->name = a->name;
    if (names_seen(seen, a->name))
        return BAD(r, r->field, NCS_ENOTNC, "a second attribute of this name");
    status = get_u32(r, &type);
    at = r->field;
    if (status == NCS_NOERR)
        status = get_cnt(r, &nelems);
    if (status != NCS_NOERR)
        return status;
    if (!ncsi_type_ok((int)type, r->version))
        return BAD(r, at, NCS_ENOTNC, "type %u is not a type of CDF-%d", (unsigned)type,
                   r->version);
    a->type = (int)type;
    NCSI_ASSERT(ncsi_type_size(a->type) > 0);     /* every valid type has a size */
    if (nelems > left(r) / ncsi_type_size(a->type))
        return BAD(r, r->field, NCS_ENOTNC,
                   "%llu values, more than the %llu bytes left can hold",
                   (unsigned long long)nelems, (unsigned long long)left(r));
    nbytes = nelems * ncsi_type_size(a->type);
    status = need(r, NCS_RNDUP(nbytes, 4));
    if (status != NCS_NOERR)
        return status;
    at = nonzero_pad(r, r->pos + nbytes, r->pos + NCS_RNDUP(nbytes, 4));
    if (at != NCSI_DIAG_NOWHERE)
        note(r, at, "the padding of the values holds non-zero bytes");
    a->nelems = nelems;
    a->xval = ncsi_malloc(nbytes ? (size_t)nbytes : 1);
    if (a->xval == NULL)
        return NCS_ERR(NCS_ENOMEM);
    memcpy(a->xval, r->buf + r->pos, (size_t)nbytes);
    r->pos += NCS_RNDUP(nbytes, 4);
    return NCS_NOERR;
}

/* The attributes of variable var (NULL: the global ones). */
static int get_attlist(rbuf *r, ncs_attlist *l, const char *var)
{
    uint64_t c = cnt_size(r->version), n;
    name_set seen;
    part(r, var == NULL ? "global attribute list" : "attribute list", -1, var);
    /* smallest attribute: a 4-byte name, type, count, no values */
    int status = get_list(r, NCSI_TAG_ATT, c + 4 + 4 + c, &n);
    if (status != NCS_NOERR)
        return status;
    if (n == 0)
        return NCS_NOERR;
    if (ncsi_model_reserve(&l->a, &l->cap, (size_t)n, sizeof *l->a) != NCS_NOERR)
        return NCS_ERR(NCS_ENOMEM);
    status = names_init(&seen, n);
    for (uint64_t i = 0; i < n && status == NCS_NOERR; i++)
        status = get_att(r, l, i, &seen, var);
    names_free(&seen);
    return status;
}

uint64_t ncsi_recsize(const ncs_model *m)
{
    uint64_t recsize = 0;
    const ncs_var *last = NULL;
    int nrec = 0;
    for (int i = 0; i < m->nvars; i++) {
        if (!m->vars[i].isrec)
            continue;
        recsize += m->vars[i].len;
        last = &m->vars[i];
        nrec++;
    }
    /* One record variable: records are packed, without padding. */
    if (nrec == 1)
        recsize = last->dsizes[0] * last->xsz;
    return recsize;
}

/* Computes the layout a header implies and checks it: in definition order,
 * fixed-size variables start at or after the header and each after the end
 * (vsize) of the previous one; record variables likewise from begin_rec,
 * which lies after the fixed-size data.  Nothing is read from the data
 * section: a file shorter than its data is found by the reads that reach
 * past its end.  A header read from a file (from_file) that breaks these
 * rules is a malformed file; one a redefinition would write is refused with
 * the same code, but is no corruption. */
#define LAYOUT_ERR(from_file, at, ...)                                         \
    ((from_file) ? (ncsi_diag_fault((at), __VA_ARGS__), NCSI_CORRUPT(NCS_ENOTNC))  \
                 : NCS_ERR(NCS_ENOTNC))
#define ULL(x) ((unsigned long long)(x))
static int check_layout(const ncs_model *m, ncs_layout *lay, int from_file)
{
    uint64_t prev, end;
    const ncs_var *pv = NULL;     /* the variable whose data ends at prev */
    int nfixed = 0, nrec = 0;

    lay->recsize = ncsi_recsize(m);
    lay->begin_var = lay->begin_rec = lay->xsz;
    prev = lay->xsz;
    for (int i = 0; i < m->nvars; i++) {
        const ncs_var *v = &m->vars[i];
        if (v->isrec)
            continue;
        if (v->begin < prev && pv == NULL)
            return LAYOUT_ERR(from_file, v->begin, "variable \"%s\": begin %llu lies "
                              "inside the header (which ends at %llu)", v->name,
                              ULL(v->begin), ULL(prev));
        if (v->begin < prev)
            return LAYOUT_ERR(from_file, v->begin, "variable \"%s\": begin %llu lies "
                              "inside the data of variable \"%s\" (which ends at %llu)",
                              v->name, ULL(v->begin), pv->name, ULL(prev));
        if (ncsi_add_u64(v->begin, v->len, &end))
            return LAYOUT_ERR(from_file, NCSI_DIAG_NOWHERE, "variable \"%s\": begin "
                              "%llu plus its size %llu is past 2^64", v->name,
                              ULL(v->begin), ULL(v->len));
        if (nfixed++ == 0)
            lay->begin_var = v->begin;
        prev = end;
        pv = v;
    }
    lay->begin_rec = prev;
    for (int i = 0; i < m->nvars; i++) {
        const ncs_var *v = &m->vars[i];
        if (!v->isrec)
            continue;
        if (nrec++ == 0) {
            if (v->begin < lay->begin_rec)
                return LAYOUT_ERR(from_file, v->begin, "record variable \"%s\": begin "
                                  "%llu lies inside the %s (which ends at %llu)", v->name,
                                  ULL(v->begin), pv ? "fixed-size data" : "header",
                                  ULL(lay->begin_rec));
            lay->begin_rec = v->begin;
        } else if (v->begin < prev) {
            return LAYOUT_ERR(from_file, v->begin, "record variable \"%s\": begin %llu "
                              "lies inside the data of record variable \"%s\" (which "
                              "ends at %llu)", v->name, ULL(v->begin), pv->name,
                              ULL(prev));
        }
        if (ncsi_add_u64(v->begin, v->len, &prev))
            return LAYOUT_ERR(from_file, NCSI_DIAG_NOWHERE, "record variable \"%s\": "
                              "begin %llu plus its size %llu is past 2^64", v->name,
                              ULL(v->begin), ULL(v->len));
        pv = v;
        /* within one record */
        if (nrec > 1 && prev - lay->begin_rec > lay->recsize)
            return LAYOUT_ERR(from_file, v->begin, "record variable \"%s\": its data "
                              "ends %llu bytes into the record, past the record size "
                              "%llu", v->name, ULL(prev - lay->begin_rec),
                              ULL(lay->recsize));
    }
    if (nfixed == 0)
        lay->begin_var = lay->begin_rec;
    if (nrec > 0 && m->numrecs > 0) {
        uint64_t r;
        if (ncsi_mul_u64(m->numrecs, lay->recsize, &r) || ncsi_add_u64(r, lay->begin_rec, &r))
            return LAYOUT_ERR(from_file, 4, "numrecs %llu records of %llu bytes from "
                              "byte %llu reach past 2^64", ULL(m->numrecs),
                              ULL(lay->recsize), ULL(lay->begin_rec));
    }
    return NCS_NOERR;
}

int ncsi_hdr_check_layout(const ncs_model *m, ncs_layout *lay)
{
    return check_layout(m, lay, 0);
}

int ncsi_hdr_decode(ncs_io *io, uint64_t fsize, ncs_pc *pc, ncs_model *m, int *version,
                    ncs_layout *lay)
{
    rbuf r = { io, fsize, NULL, 0, 0, 0, 0, "magic", -1, NULL, NULL };
    uint64_t n, c, numrecs;
    name_set seen = { NULL, 0 };
    int status, streaming = 0;

    memset(m, 0, sizeof *m);
    m->unlimdim = -1;
    status = need(&r, 4);
    if (status != NCS_NOERR)
        goto done;
    if (memcmp(r.buf, "CDF", 3) != 0) {
        status = BAD(&r, 0, NCS_ENOTNC, "not \"CDF\": not a netCDF classic file");
        goto done;
    }
    if (!ncsi_cl_magic(r.buf)) {
        status = BAD(&r, 3, NCS_ENOTNC, "version byte %u (1, 2 or 5 expected)", r.buf[3]);
        goto done;
    }
    r.version = *version = r.buf[3];
    r.pos = 4;
    c = cnt_size(r.version);
    part(&r, "numrecs", -1, NULL);
    if (r.version == 5) {
        status = get_u64(&r, &numrecs);
        if (status == NCS_NOERR && numrecs == UINT64_MAX)
            streaming = 1;
        else if (status == NCS_NOERR && numrecs > (uint64_t)INT64_MAX)
            status = BAD(&r, 4, NCS_ENOTNC, "%llu has the sign bit set", ULL(numrecs));
    } else {
        uint32_t u = 0;
        status = get_u32(&r, &u);
        numrecs = u;
        streaming = (u == UINT32_MAX);
    }
    if (status != NCS_NOERR)
        goto done;

    /* dimensions: each at least a 4-byte name and a length */
    part(&r, "dimension list", -1, NULL);
    status = get_list(&r, NCSI_TAG_DIM, c + 4 + c, &n);
    if (status != NCS_NOERR)
        goto done;
    status = ncsi_model_reserve(&m->dims, &m->capdims, (size_t)n, sizeof *m->dims);
    if (status != NCS_NOERR)
        goto done;
    status = names_init(&seen, n);
    if (status != NCS_NOERR)
        goto done;
    for (uint64_t i = 0; i < n; i++) {
        ncs_dim *d = &m->dims[i];
        uint64_t at;
        part(&r, "dimension", (int64_t)i, NULL);
        status = get_name(&r, &d->name, &d->namelen);
        at = r.field;
        if (status != NCS_NOERR)
            goto done;
        m->ndims = (int)i + 1;
        r.name = d->name;
        status = get_cnt(&r, &d->len);
        if (status != NCS_NOERR)
            goto done;
        if (names_seen(&seen, d->name)) {
            status = BAD(&r, at, NCS_ENOTNC, "a second dimension of this name");
            goto done;
        }
        if (d->len == 0) {
            if (m->unlimdim >= 0) {
                status = BAD(&r, r.field, NCS_ENOTNC, "a second unlimited dimension "
                             "(length 0; the first is \"%s\")", m->dims[m->unlimdim].name);
                goto done;
            }
            m->unlimdim = (int)i;
        }
    }

    status = get_attlist(&r, &m->gatts, NULL);
    if (status != NCS_NOERR)
        goto done;

    /* variables: at least a name, ndims, ABSENT attributes, type, vsize,
     * begin */
    part(&r, "variable list", -1, NULL);
    status = get_list(&r, NCSI_TAG_VAR, c + 4 + c + 4 + c + 4 + c + off_size(r.version), &n);
    if (status != NCS_NOERR)
        goto done;
    status = ncsi_model_reserve(&m->vars, &m->capvars, (size_t)n, sizeof *m->vars);
    if (status != NCS_NOERR)
        goto done;
    names_free(&seen);
    status = names_init(&seen, n);
    if (status != NCS_NOERR)
        goto done;
    for (uint64_t i = 0; i < n; i++) {
        ncs_var *v = &m->vars[i];
        uint64_t nd, vsize, at;
        uint32_t type;
        part(&r, "variable", (int64_t)i, NULL);
        status = get_name(&r, &v->name, &v->namelen);
        at = r.field;
        if (status != NCS_NOERR)
            goto done;
        m->nvars = (int)i + 1;
        r.name = v->name;
        if (names_seen(&seen, v->name)) {
            status = BAD(&r, at, NCS_ENOTNC, "a second variable of this name");
            goto done;
        }
        status = get_cnt(&r, &nd);
        if (status != NCS_NOERR)
            goto done;
        if (nd > NCS_MAX_VAR_DIMS || nd > left(&r) / c) {
            status = BAD(&r, r.field, NCS_ENOTNC, "%llu dimensions (%s)", ULL(nd),
                         nd > NCS_MAX_VAR_DIMS ? "at most 1024 allowed"
                                               : "more than the bytes left can hold");
            goto done;
        }
        status = ncsi_var_alloc(v, (int)nd);
        if (status != NCS_NOERR)
            goto done;
        for (uint64_t d = 0; d < nd; d++) {
            uint64_t id;
            status = get_cnt(&r, &id);
            if (status != NCS_NOERR)
                goto done;
            if (id >= (uint64_t)m->ndims) {
                status = BAD(&r, r.field, NCS_EBADDIM, "dimension id %llu, not one of "
                             "the %d dimensions", ULL(id), m->ndims);
                goto done;
            }
            v->dimids[d] = (int)id;
        }
        status = get_attlist(&r, &v->atts, v->name);
        part(&r, "variable", (int64_t)i, NULL);
        r.name = v->name;
        if (status == NCS_NOERR)
            status = get_u32(&r, &type);
        if (status != NCS_NOERR)
            goto done;
        if (!ncsi_type_ok((int)type, r.version)) {
            status = BAD(&r, r.field, NCS_ENOTNC, "type %u is not a type of CDF-%d",
                         (unsigned)type, r.version);
            goto done;
        }
        v->type = (int)type;
        if (r.version == 5)
            status = get_u64(&r, &vsize);
        else {
            uint32_t u = 0;
            status = get_u32(&r, &u);
            vsize = u;
        }
        at = r.field;
        if (status != NCS_NOERR)
            goto done;
        if (r.version == 1) {
            uint32_t u = 0;
            status = get_u32(&r, &u);
            v->begin = u;
        } else {
            status = get_u64(&r, &v->begin);
        }
        if (status != NCS_NOERR)
            goto done;
        /* vsize is redundant: recomputed from the shape, as netCDF does
         * (EUNLIMPOS, EVARSIZE as for a definition) */
        status = ncsi_var_shape(m, v);
        if (status != NCS_NOERR) {
            status = BAD(&r, NCSI_DIAG_NOWHERE, status, "%s",
                         status == NCS_EUNLIMPOS ? "the record dimension is not its first"
                                                 : "its size in bytes is past 2^64");
            goto done;
        }
        if (vsize != (r.version == 5 || v->len < UINT32_MAX ? v->len : UINT32_MAX))
            note(&r, at, "vsize %llu, where the shape gives %llu", ULL(vsize), ULL(v->len));
    }
    lay->xsz = r.pos;
    m->numrecs = streaming ? 0 : numrecs;
    status = check_layout(m, lay, 1);
    if (status == NCS_NOERR && streaming && lay->recsize > 0 && fsize > lay->begin_rec)
        /* streaming: the record count is whatever the file holds */
        m->numrecs = (fsize - lay->begin_rec) / lay->recsize;
done:
    if (status == NCS_NOERR && pc != NULL)
        status = ncsi_pc_seed(pc, r.buf, r.have, fsize);
    names_free(&seen);
    free(r.buf);
    if (status != NCS_NOERR)
        ncsi_model_free(m);
    return status;
}
