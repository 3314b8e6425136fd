/*
 * h5r_file.c -- the file (its superblock), checked reads, HDF5's checksum,
 * and object headers with the messages this reader decodes (h5read.h).
 *
 * Superblock, versions 0 and 1 (sizes in bytes; O an address of
 * sizeof_addr bytes, L a length of sizeof_size):
 *     0  signature \211HDF\r\n\032\n     8  version
 *     9  free-space, root symbol table, reserved, shared header versions
 *    13  sizeof_addr   14 sizeof_size   15 reserved
 *    16  group leaf K (2), group internal K (2), consistency flags (4)
 *    24  version 1 only: indexed storage K (2), reserved (2)
 *     .  base address O, free-space address O, end of file O, driver O,
 *        the root group's symbol table entry: name offset O, object
 *        header O, cache type (4), reserved (4), scratch (16)
 * Versions 2 and 3:
 *     8  version   9 sizeof_addr   10 sizeof_size   11 flags
 *    12  base O, superblock extension O, end of file O, root object
 *        header O, checksum (4) of all before it
 * HDF5 takes the base address to be the superblock's own position when
 * the two differ (a user block written by a tool that left the base at
 * 0), so the field says nothing the position does not: this reader uses
 * the position.
 *
 * Object header, version 1: version 1, reserved, messages (2), reference
 * count (4), size of the first block (4), 4 bytes of padding; then
 * messages of type (2), size (2), flags (1), reserved (3), body.
 * Version 2: "OHDR", version 2, flags, times (16, flags bit 5), attribute
 * phase change values (4, bit 4), size of the first block (1 << (flags &
 * 3) bytes); messages of type (1), size (2), flags (1), creation order (2,
 * flags bit 2), body; a checksum of everything before it ends the block.
 * Continuation blocks (message 16: address O, length L) hold messages
 * (version 2: between "OCHK" and a checksum).
 */
#include "h5read.h"

#include <stdlib.h>
#include <string.h>

#define OH_MAX_BYTES (1u << 20)   /* bytes in one header block */

/* message types */
#define MSG_NIL      0x00
#define MSG_SPACE    0x01
#define MSG_LINFO    0x02
#define MSG_TYPE     0x03
#define MSG_FILL_OLD 0x04
#define MSG_FILL     0x05
#define MSG_LINK     0x06
#define MSG_EFL      0x07
#define MSG_LAYOUT   0x08
#define MSG_PLINE    0x0b
#define MSG_ATTR     0x0c
#define MSG_CONT     0x10
#define MSG_SYMTAB   0x11
#define MSG_AINFO    0x15

#define MSGFLAG_SHARED 0x02

static const unsigned char signature[8] = { 0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n' };

/* ---- reading ----------------------------------------------------------------- */

uint64_t ncsi_h5r_addr(const ncsi_h5r *f, const unsigned char *p)
{
    unsigned n = f->info.sizeof_addr;
    for (unsigned i = 0; i < n; i++)
        if (p[i] != 0xff)
            return ncsi_h5r_le(p, n);
    return NCSI_H5R_UNDEF;
}

int ncsi_h5r_inside(const ncsi_h5r *f, uint64_t a, uint64_t n)
{
    uint64_t size = f->eof - f->info.base;
    return a != NCSI_H5R_UNDEF && a <= size && n <= size - a;
}

int ncsi_h5r_pread(const ncsi_h5r *f, uint64_t a, void *buf, size_t n)
{
    if (!ncsi_h5r_inside(f, a, n))
        return NCSI_H5R_CORRUPT;
    if (n > 0 && f->read(f->ctx, f->info.base + a, buf, n) != 0)
        return NCSI_H5R_CORRUPT;
    return NCS_NOERR;
}

int ncsi_h5r_load(const ncsi_h5r *f, uint64_t a, size_t n, unsigned char **bufp)
{
    unsigned char *b;
    int status;
    *bufp = NULL;
    if (!ncsi_h5r_inside(f, a, n))
        return NCSI_H5R_CORRUPT;
    if ((b = ncsi_malloc(n ? n : 1)) == NULL)
        return NCS_ENOMEM;
    if ((status = ncsi_h5r_pread(f, a, b, n)) != NCS_NOERR) {
        free(b);
        return status;
    }
    *bufp = b;
    return NCS_NOERR;
}

/* ---- lookup3 (Bob Jenkins, public domain), little-endian byte order ---------- */

#define ROT(x, k) (((x) << (k)) | ((x) >> (32 - (k))))

uint32_t ncsi_h5r_checksum(const unsigned char *k, size_t n)
{
    uint32_t a, b, c;
    a = b = c = 0xdeadbeefu + (uint32_t)n;
    while (n > 12) {
        a += (uint32_t)ncsi_h5r_le(k, 4);
        b += (uint32_t)ncsi_h5r_le(k + 4, 4);
        c += (uint32_t)ncsi_h5r_le(k + 8, 4);
        a -= c, a ^= ROT(c, 4), c += b;
        b -= a, b ^= ROT(a, 6), a += c;
        c -= b, c ^= ROT(b, 8), b += a;
        a -= c, a ^= ROT(c, 16), c += b;
        b -= a, b ^= ROT(a, 19), a += c;
        c -= b, c ^= ROT(b, 4), b += a;
        n -= 12;
        k += 12;
    }
    if (n == 0)
        return c;
    {
        unsigned char tail[12] = { 0 };
        memcpy(tail, k, n);
        a += (uint32_t)ncsi_h5r_le(tail, 4);
        b += (uint32_t)ncsi_h5r_le(tail + 4, 4);
        c += (uint32_t)ncsi_h5r_le(tail + 8, 4);
    }
    c ^= b, c -= ROT(b, 14);
    a ^= c, a -= ROT(c, 11);
    b ^= a, b -= ROT(a, 25);
    c ^= b, c -= ROT(b, 16);
    a ^= c, a -= ROT(c, 4);
    b ^= a, b -= ROT(a, 14);
    c ^= b, c -= ROT(b, 24);
    return c;
}

int ncsi_h5r_checksum_ok(const unsigned char *p, size_t n)
{
    return ncsi_h5r_checksum(p, n) == (uint32_t)ncsi_h5r_le(p + n, 4);
}

/* ---- the superblock ---------------------------------------------------------- */

static int sizes_ok(unsigned sa, unsigned sl)
{
    return (sa == 2 || sa == 4 || sa == 8) && (sl == 2 || sl == 4 || sl == 8);
}

int ncsi_h5r_open(ncsi_h5r_read_fn read, void *ctx, uint64_t eof, ncsi_h5r **fp)
{
    unsigned char sb[160];
    uint64_t at = 0, root, eoa;
    ncsi_h5r *f;
    unsigned sa, sl, v;
    *fp = NULL;
    /* the superblock: at 0, 512, 1024, 2048, ... */
    for (;;) {
        if (at > eof || eof - at < sizeof signature)
            return NCS_ENOTNC;
        if (read(ctx, at, sb, sizeof signature) != 0)
            return NCS_ENOTNC;
        if (memcmp(sb, signature, sizeof signature) == 0)
            break;
        at = at == 0 ? 512 : at * 2;
    }
    {
        size_t n = eof - at < sizeof sb ? (size_t)(eof - at) : sizeof sb;
        if (n < 24 || read(ctx, at, sb, n) != 0)
            return NCSI_H5R_CORRUPT;
        memset(sb + n, 0, sizeof sb - n);
        v = sb[8];
        if (v <= 1) {
            size_t p = v == 0 ? 24 : 28;
            sa = sb[13], sl = sb[14];
            if (!sizes_ok(sa, sl) || p + 4 * sa + 2 * sa + 24 > n)
                return NCSI_H5R_CORRUPT;
            /* base, free space, eof, driver; then the root's entry:
             * name offset, object header */
            eoa = ncsi_h5r_le(sb + p + 2 * sa, sa);
            root = ncsi_h5r_le(sb + p + 5 * sa, sa);
        } else if (v <= 3) {
            sa = sb[9], sl = sb[10];
            if (!sizes_ok(sa, sl) || 12 + 4 * (size_t)sa + 4 > n)
                return NCSI_H5R_CORRUPT;
            if (!ncsi_h5r_checksum_ok(sb, 12 + 4 * (size_t)sa))
                return NCSI_H5R_CORRUPT;
            eoa = ncsi_h5r_le(sb + 12 + 2 * (size_t)sa, sa);
            root = ncsi_h5r_le(sb + 12 + 3 * (size_t)sa, sa);
        } else {
            return NCSI_H5R_UNSUPPORTED;
        }
    }
    if ((f = ncsi_calloc(1, sizeof *f)) == NULL)
        return NCS_ENOMEM;
    f->read = read;
    f->ctx = ctx;
    f->eof = eof;
    f->info.superblock = (int)v;
    f->info.sizeof_addr = sa;
    f->info.sizeof_size = sl;
    f->info.base = at;       /* what the base address field means */
    f->info.root = root;
    f->info.eoa = eoa;
    if (!ncsi_h5r_inside(f, root, 16)) {
        free(f);
        return NCSI_H5R_CORRUPT;
    }
    *fp = f;
    return NCS_NOERR;
}

void ncsi_h5r_close(ncsi_h5r *f)
{
    free(f);
}

void ncsi_h5r_info_of(const ncsi_h5r *f, ncsi_h5r_info *info)
{
    *info = f->info;
}

uint64_t ncsi_h5r_ref_addr(const ncsi_h5r *f, const unsigned char *ref)
{
    return ncsi_h5r_addr(f, ref);
}

int ncsi_h5r_space_elements(const ncsi_h5r_space *s, uint64_t *n)
{
    uint64_t e = 1;
    if (s->kind == NCSI_H5R_NULL) {
        *n = 0;
        return NCS_NOERR;
    }
    for (int i = 0; i < s->rank; i++)
        if (ncsi_mul_u64(e, s->dims[i], &e))
            return NCSI_H5R_CORRUPT;
    *n = e;
    return NCS_NOERR;
}

/* ---- message decoders ---------------------------------------------------------- */

/* Datatype: class and version (1), class bits (3), size (4), properties:
 * fixed point and float: bit offset (2), precision (2), ...; vlen: its base
 * type, a datatype message. */
int ncsi_h5r_decode_type(const ncsi_h5r *f, const unsigned char *p, size_t n, ncsi_h5r_type *t)
{
    unsigned bits;
    (void)f;
    memset(t, 0, sizeof *t);
    if (n < 8)
        return NCSI_H5R_CORRUPT;
    t->cls = p[0] & 0x0f;
    if ((p[0] >> 4) < 1 || (p[0] >> 4) > 4)
        return NCSI_H5R_CORRUPT;
    bits = (unsigned)ncsi_h5r_le(p + 1, 3);
    t->size = (uint32_t)ncsi_h5r_le(p + 4, 4);
    switch (t->cls) {
    case NCSI_H5R_FIXED:
    case NCSI_H5R_FLOAT:
        if (n < 12)
            return NCSI_H5R_CORRUPT;
        t->big_endian = bits & 1;
        if (t->cls == NCSI_H5R_FIXED)
            t->is_signed = (bits >> 3) & 1;
        else if (bits & 0x40)
            return NCSI_H5R_UNSUPPORTED;     /* VAX order */
        t->offset = (unsigned)ncsi_h5r_le(p + 8, 2);
        t->precision = (unsigned)ncsi_h5r_le(p + 10, 2);
        break;
    case NCSI_H5R_STRING:
        t->pad = (int)(bits & 0x0f);
        t->cset = (int)((bits >> 4) & 0x0f);
        break;
    case NCSI_H5R_REF:
        t->ref_type = (int)(bits & 0x0f);
        break;
    case NCSI_H5R_VLEN: {
        ncsi_h5r_type base;
        int status;
        t->vlen_string = (bits & 0x0f) == 1;
        t->pad = (int)((bits >> 4) & 0x0f);
        t->cset = (int)((bits >> 8) & 0x0f);
        /* the base type must be one that does not nest */
        if ((status = ncsi_h5r_decode_type(f, p + 8, n - 8, &base)) != NCS_NOERR)
            return status;
        if (base.cls == NCSI_H5R_VLEN)
            return NCSI_H5R_UNSUPPORTED;
        t->base_cls = base.cls;
        t->base_size = base.size;
        break;
    }
    default:
        if (t->cls > 10)
            return NCSI_H5R_CORRUPT;
        break;                   /* other classes: class and size only */
    }
    if (t->size == 0)
        return NCSI_H5R_CORRUPT;
    return NCS_NOERR;
}

/* Dataspace: version 1: version, rank, flags, 5 reserved bytes; version 2:
 * version, rank, flags, kind; then rank dimensions (L), and as many
 * maximums when flags bit 0 is set. */
int ncsi_h5r_decode_space(const ncsi_h5r *f, const unsigned char *p, size_t n, ncsi_h5r_space *s)
{
    unsigned sl = f->info.sizeof_size;
    size_t at;
    int v;
    memset(s, 0, sizeof *s);
    if (n < 4)
        return NCSI_H5R_CORRUPT;
    v = p[0];
    s->rank = p[1];
    s->has_max = p[2] & 1;
    if (v == 1) {
        at = 8;
        s->kind = s->rank == 0 ? NCSI_H5R_SCALAR : NCSI_H5R_SIMPLE;
    } else if (v == 2) {
        at = 4;
        s->kind = p[3];
        if (s->kind > NCSI_H5R_NULL)
            return NCSI_H5R_CORRUPT;
        if (s->kind != NCSI_H5R_SIMPLE && s->rank != 0)
            return NCSI_H5R_CORRUPT;
    } else {
        return NCSI_H5R_CORRUPT;
    }
    if (s->rank > NCSI_H5R_MAX_RANK)
        return NCSI_H5R_CORRUPT;
    if (at + (size_t)s->rank * sl * (s->has_max ? 2u : 1u) > n)
        return NCSI_H5R_CORRUPT;
    for (int i = 0; i < s->rank; i++) {
        s->dims[i] = ncsi_h5r_le(p + at + (size_t)i * sl, sl);
        if (s->has_max) {
            const unsigned char *m = p + at + ((size_t)s->rank + (size_t)i) * sl;
            int all = 1;
            for (unsigned b = 0; b < sl; b++)
                all &= m[b] == 0xff;
            s->maxdims[i] = all ? UINT64_MAX : ncsi_h5r_le(m, sl);
        } else {
            s->maxdims[i] = s->dims[i];
        }
    }
    return NCS_NOERR;
}

/* Fill value: versions 1 and 2: version, allocation time, fill time,
 * defined (1), then (version 1 always, version 2 when defined) size (4)
 * and value; defined with size 0 is the library's default.  Version 3:
 * version, flags (allocation time bits 0-1, fill time 2-3, undefined bit
 * 4, defined bit 5), size and value when defined. */
static int decode_fill(const unsigned char *p, size_t n, ncsi_h5r_fill *fl)
{
    size_t at;
    int has_value;
    free(fl->value);
    memset(fl, 0, sizeof *fl);
    if (n < 2)
        return NCSI_H5R_CORRUPT;
    if (p[0] == 1 || p[0] == 2) {
        if (n < 4)
            return NCSI_H5R_CORRUPT;
        fl->alloc_time = p[1];
        fl->fill_time = p[2];
        has_value = p[0] == 1 || p[3] != 0;
        fl->state = p[3] ? NCSI_H5R_FILL_DEFAULT : NCSI_H5R_FILL_UNDEF;
        at = 4;
    } else if (p[0] == 3) {
        fl->alloc_time = p[1] & 3;
        fl->fill_time = (p[1] >> 2) & 3;
        if ((p[1] & 0x30) == 0x30)
            return NCSI_H5R_CORRUPT;
        has_value = (p[1] & 0x20) != 0;
        fl->state = (p[1] & 0x10) ? NCSI_H5R_FILL_UNDEF : NCSI_H5R_FILL_DEFAULT;
        at = 2;
    } else {
        return NCSI_H5R_CORRUPT;
    }
    if (has_value) {
        if (at + 4 > n)
            return NCSI_H5R_CORRUPT;
        fl->size = (uint32_t)ncsi_h5r_le(p + at, 4);
        if (fl->size > n - at - 4)
            return NCSI_H5R_CORRUPT;
        if (fl->size > 0) {
            if ((fl->value = ncsi_malloc(fl->size)) == NULL)
                return NCS_ENOMEM;
            memcpy(fl->value, p + at + 4, fl->size);
            fl->state = NCSI_H5R_FILL_USER;
        } else if (p[0] == 1) {
            fl->state = NCSI_H5R_FILL_DEFAULT;
        }
    }
    return NCS_NOERR;
}

/* The old fill value message: size (4), value. */
static int decode_fill_old(const unsigned char *p, size_t n, ncsi_h5r_fill *fl)
{
    uint32_t size;
    if (n < 4)
        return NCSI_H5R_CORRUPT;
    size = (uint32_t)ncsi_h5r_le(p, 4);
    if (size > n - 4)
        return NCSI_H5R_CORRUPT;
    free(fl->value);
    memset(fl, 0, sizeof *fl);
    fl->state = size > 0 ? NCSI_H5R_FILL_USER : NCSI_H5R_FILL_DEFAULT;
    fl->size = size;
    if (size > 0) {
        if ((fl->value = ncsi_malloc(size)) == NULL)
            return NCS_ENOMEM;
        memcpy(fl->value, p + 4, size);
    }
    return NCS_NOERR;
}

/* Data layout, versions 3 and 4: version, class; compact: size (2), data;
 * contiguous: address O, size L; chunked, version 3: rank + 1 (1), index
 * address O, chunk sizes (4 each, rank + 1 of them, the last the element
 * size); version 4: flags, rank + 1, the sizes' width (1), the sizes, the
 * index type (1), its parameters, the index address O. */
static int decode_layout(const ncsi_h5r *f, const unsigned char *p, size_t n, uint64_t body_at,
                         ncsi_h5r_layout *l)
{
    unsigned sa = f->info.sizeof_addr, sl = f->info.sizeof_size;
    size_t at = 2;
    memset(l, 0, sizeof *l);
    if (n < 2)
        return NCSI_H5R_CORRUPT;
    l->version = p[0];
    if (l->version < 3)
        return NCSI_H5R_UNSUPPORTED;
    if (l->version > 4)
        return NCSI_H5R_CORRUPT;
    l->cls = p[1];
    l->addr = NCSI_H5R_UNDEF;
    switch (l->cls) {
    case NCSI_H5R_COMPACT:
        if (n < 4)
            return NCSI_H5R_CORRUPT;
        l->size = ncsi_h5r_le(p + 2, 2);
        if (l->size > n - 4)
            return NCSI_H5R_CORRUPT;
        l->compact_at = f->info.base + body_at + 4;
        return NCS_NOERR;
    case NCSI_H5R_CONTIGUOUS:
        if (n < 2 + (size_t)sa + sl)
            return NCSI_H5R_CORRUPT;
        l->addr = ncsi_h5r_addr(f, p + 2);
        l->size = ncsi_h5r_le(p + 2 + sa, sl);
        return NCS_NOERR;
    case NCSI_H5R_CHUNKED:
        break;
    case 3:
        return NCSI_H5R_UNSUPPORTED;   /* virtual */
    default:
        return NCSI_H5R_CORRUPT;
    }
    if (l->version == 3) {
        unsigned nd;
        if (n < 3)
            return NCSI_H5R_CORRUPT;
        nd = p[2];
        if (nd < 1 || nd - 1 > NCSI_H5R_MAX_RANK || n < 3 + (size_t)sa + 4 * (size_t)nd)
            return NCSI_H5R_CORRUPT;
        l->ndims = (int)nd - 1;
        l->addr = ncsi_h5r_addr(f, p + 3);
        for (unsigned i = 0; i < nd; i++) {
            uint64_t v = ncsi_h5r_le(p + 3 + sa + 4 * (size_t)i, 4);
            if (v == 0)
                return NCSI_H5R_CORRUPT;
            if (i + 1 < nd)
                l->chunk[i] = v;
            else
                l->elem_size = (uint32_t)v;
        }
        return NCS_NOERR;
    }
    {
        unsigned nd, w;
        if (n < 5)
            return NCSI_H5R_CORRUPT;
        l->flags = p[2];
        nd = p[3];
        w = p[4];
        at = 5;
        if (nd < 1 || nd - 1 > NCSI_H5R_MAX_RANK || w < 1 || w > 8 ||
            n < at + (size_t)nd * w + 1)
            return NCSI_H5R_CORRUPT;
        l->ndims = (int)nd - 1;
        for (unsigned i = 0; i < nd; i++) {
            uint64_t v = ncsi_h5r_le(p + at + (size_t)i * w, w);
            if (v == 0 || v > UINT32_MAX)
                return NCSI_H5R_CORRUPT;
            if (i + 1 < nd)
                l->chunk[i] = v;
            else
                l->elem_size = (uint32_t)v;
        }
        at += (size_t)nd * w;
        l->index = p[at++];
        switch (l->index) {
        case 1: at += (l->flags & 2) ? (size_t)sl + 4 : 0; break;
        case 2: break;
        case 3: at += 1; break;
        case 4: at += 5; break;
        case 5: at += 6; break;
        default: return NCSI_H5R_CORRUPT;
        }
        if (at + sa > n)
            return NCSI_H5R_CORRUPT;
        l->addr = ncsi_h5r_addr(f, p + at);
    }
    return NCS_NOERR;
}

/* Filter pipeline: version 1: version, count, 6 reserved; each filter:
 * id (2), name length (2, a multiple of 8), flags (2), values (2), the
 * name, the values (4 each), 4 bytes of padding after an odd count.
 * Version 2: version, count; each: id (2), name length (2, ids >= 256
 * only), flags (2), values (2), the name unpadded, the values. */
static int decode_pline(const unsigned char *p, size_t n, ncsi_h5r_obj *o)
{
    size_t at;
    int v, count;
    if (n < 2)
        return NCSI_H5R_CORRUPT;
    v = p[0];
    count = p[1];
    if ((v != 1 && v != 2) || count > 32)
        return NCSI_H5R_CORRUPT;
    at = v == 1 ? 8 : 2;
    o->nfilters = 0;
    for (int i = 0; i < count; i++) {
        ncsi_h5r_filter *fi = &o->filters[i];
        size_t namelen = 0;
        unsigned nv;
        if (at + 2 > n)
            return NCSI_H5R_CORRUPT;
        fi->id = (unsigned)ncsi_h5r_le(p + at, 2);
        at += 2;
        if (v == 1 || fi->id >= 256) {
            if (at + 2 > n)
                return NCSI_H5R_CORRUPT;
            namelen = (size_t)ncsi_h5r_le(p + at, 2);
            at += 2;
        }
        if (at + 4 > n)
            return NCSI_H5R_CORRUPT;
        fi->flags = (unsigned)ncsi_h5r_le(p + at, 2);
        nv = (unsigned)ncsi_h5r_le(p + at + 2, 2);
        at += 4;
        if (namelen > n - at)
            return NCSI_H5R_CORRUPT;
        at += namelen;
        if ((size_t)nv * 4 > n - at)
            return NCSI_H5R_CORRUPT;
        fi->nvalues = nv;
        for (unsigned k = 0; k < nv && k < 16; k++)
            fi->values[k] = (unsigned)ncsi_h5r_le(p + at + 4 * (size_t)k, 4);
        at += 4 * (size_t)nv;
        if (v == 1 && (nv & 1))
            at += 4;
        if (at > n)
            return NCSI_H5R_CORRUPT;
        o->nfilters = i + 1;
    }
    return NCS_NOERR;
}

/* ---- object headers ---------------------------------------------------------- */

typedef struct ohwalk {
    ncsi_h5r *f;
    ncsi_h5r_obj *o;
    int v2, corder;
    uint64_t addr[NCSI_H5R_MAX_BLOCKS], len[NCSI_H5R_MAX_BLOCKS];
    int nblocks;
    size_t caplink, capattr;
} ohwalk;

static int push_block(ohwalk *w, uint64_t a, uint64_t n)
{
    if (w->nblocks == NCSI_H5R_MAX_BLOCKS || n > OH_MAX_BYTES || !ncsi_h5r_inside(w->f, a, n))
        return NCSI_H5R_CORRUPT;
    for (int i = 0; i < w->nblocks; i++)
        if (w->addr[i] == a)
            return NCSI_H5R_CORRUPT;    /* a continuation loop */
    w->addr[w->nblocks] = a;
    w->len[w->nblocks++] = n;
    return NCS_NOERR;
}

/* Keeps a copy of a message body in a growing list. */
static int keep(unsigned char ***list, size_t **lens, int64_t **corders, int *count, size_t *cap,
                const unsigned char *d, size_t size, int64_t corder)
{
    unsigned char *copy;
    if ((size_t)*count == *cap) {
        size_t nc = *cap ? 2 * *cap : 8;
        unsigned char **l = ncsi_realloc(*list, nc * sizeof *l);
        size_t *s;
        if (l == NULL)
            return NCS_ENOMEM;
        *list = l;
        if ((s = ncsi_realloc(*lens, nc * sizeof *s)) == NULL)
            return NCS_ENOMEM;
        *lens = s;
        if (corders != NULL) {
            int64_t *c = ncsi_realloc(*corders, nc * sizeof *c);
            if (c == NULL)
                return NCS_ENOMEM;
            *corders = c;
        }
        *cap = nc;
    }
    if ((copy = ncsi_malloc(size ? size : 1)) == NULL)
        return NCS_ENOMEM;
    memcpy(copy, d, size);
    (*list)[*count] = copy;
    (*lens)[*count] = size;
    if (corders != NULL)
        (*corders)[*count] = corder;
    (*count)++;
    return NCS_NOERR;
}

static int message(ohwalk *w, unsigned type, unsigned flags, const unsigned char *d, size_t size,
                   uint64_t body_at, int64_t corder)
{
    ncsi_h5r *f = w->f;
    ncsi_h5r_obj *o = w->o;
    unsigned sa = f->info.sizeof_addr, sl = f->info.sizeof_size;
    int status = NCS_NOERR;
    if ((flags & MSGFLAG_SHARED) && type != MSG_NIL && type != MSG_CONT)
        return NCSI_H5R_UNSUPPORTED;
    switch (type) {
    case MSG_CONT:
        if (size < (size_t)sa + sl)
            return NCSI_H5R_CORRUPT;
        return push_block(w, ncsi_h5r_addr(f, d), ncsi_h5r_le(d + sa, sl));
    case MSG_SPACE:
        o->has_space = 1;
        return ncsi_h5r_decode_space(f, d, size, &o->space);
    case MSG_TYPE:
        o->has_type = 1;
        return ncsi_h5r_decode_type(f, d, size, &o->type);
    case MSG_FILL:
        o->has_fill = 2;
        return decode_fill(d, size, &o->fill);
    case MSG_FILL_OLD:
        if (o->has_fill == 2)
            return NCS_NOERR;    /* the new message rules */
        o->has_fill = 1;
        return decode_fill_old(d, size, &o->fill);
    case MSG_LAYOUT:
        o->has_layout = 1;
        return decode_layout(f, d, size, body_at, &o->layout);
    case MSG_PLINE:
        o->has_filters = 1;
        return decode_pline(d, size, o);
    case MSG_EFL:
        return NCSI_H5R_UNSUPPORTED;
    case MSG_LINFO: {
        size_t at = 2;
        if (size < 2 || d[0] != 0)
            return NCSI_H5R_CORRUPT;
        o->is_group = 1;
        o->links_corder = d[1] & 1;
        o->links_cindexed = (d[1] & 2) != 0;
        at += (d[1] & 1) ? 8 : 0;
        if (at + 2 * (size_t)sa > size)
            return NCSI_H5R_CORRUPT;
        o->link_heap = ncsi_h5r_addr(f, d + at);
        o->link_names = ncsi_h5r_addr(f, d + at + sa);
        o->links_dense = o->link_heap != NCSI_H5R_UNDEF;
        return NCS_NOERR;
    }
    case MSG_SYMTAB:
        if (size < 2 * (size_t)sa)
            return NCSI_H5R_CORRUPT;
        o->is_group = 1;
        o->symtab_btree = ncsi_h5r_addr(f, d);
        o->symtab_heap = ncsi_h5r_addr(f, d + sa);
        return NCS_NOERR;
    case MSG_AINFO: {
        size_t at = 2;
        if (size < 2 || d[0] != 0)
            return NCSI_H5R_CORRUPT;
        o->attrs_corder |= d[1] & 1;
        o->attrs_cindexed = (d[1] & 2) != 0;
        at += (d[1] & 1) ? 2 : 0;
        if (at + 2 * (size_t)sa > size)
            return NCSI_H5R_CORRUPT;
        o->attr_heap = ncsi_h5r_addr(f, d + at);
        o->attr_names = ncsi_h5r_addr(f, d + at + sa);
        return NCS_NOERR;
    }
    case MSG_LINK:
        status = keep(&o->linkmsg, &o->linklen, NULL, &o->nlinkmsgs, &w->caplink, d, size, -1);
        break;
    case MSG_ATTR:
        status = keep(&o->attrmsg, &o->attrlen, &o->attrcorder, &o->nattrmsgs, &w->capattr, d,
                      size, corder);
        break;
    default:
        break;
    }
    return status;
}

/* The messages of one block, [p, end), which starts at relative address at. */
static int messages(ohwalk *w, const unsigned char *p, const unsigned char *end, uint64_t at)
{
    size_t hdr = w->v2 ? 4u + (w->corder ? 2u : 0u) : 8u;
    const unsigned char *start = p;
    while ((size_t)(end - p) >= hdr) {
        unsigned type = w->v2 ? p[0] : (unsigned)ncsi_h5r_le(p, 2);
        size_t size = (size_t)ncsi_h5r_le(p + (w->v2 ? 1 : 2), 2);
        unsigned flags = w->v2 ? p[3] : p[4];
        int64_t corder = w->v2 && w->corder ? (int64_t)ncsi_h5r_le(p + 4, 2) : -1;
        const unsigned char *d = p + hdr;
        int status;
        if (size > (size_t)(end - d))
            return NCSI_H5R_CORRUPT;
        status = message(w, type, flags, d, size, at + (uint64_t)(d - start), corder);
        if (status != NCS_NOERR)
            return status;
        p = d + size;
    }
    return NCS_NOERR;
}

void ncsi_h5r_obj_free(ncsi_h5r_obj *o)
{
    if (o == NULL)
        return;
    for (int i = 0; i < o->nlinkmsgs; i++)
        free(o->linkmsg[i]);
    for (int i = 0; i < o->nattrmsgs; i++)
        free(o->attrmsg[i]);
    free(o->linkmsg);
    free(o->linklen);
    free(o->attrmsg);
    free(o->attrlen);
    free(o->attrcorder);
    free(o->fill.value);
    free(o);
}

int ncsi_h5r_obj_read(ncsi_h5r *f, uint64_t addr, ncsi_h5r_obj **op)
{
    unsigned char pre[48], *blk = NULL;
    ohwalk w;
    ncsi_h5r_obj *o;
    uint64_t left;
    size_t have;
    int status;
    *op = NULL;
    if (!ncsi_h5r_inside(f, addr, 16))
        return NCSI_H5R_CORRUPT;
    left = f->eof - f->info.base - addr;
    have = left < sizeof pre ? (size_t)left : sizeof pre;
    if ((status = ncsi_h5r_pread(f, addr, pre, have)) != NCS_NOERR)
        return status;
    if ((o = ncsi_calloc(1, sizeof *o)) == NULL)
        return NCS_ENOMEM;
    memset(&w, 0, sizeof w);
    w.f = f;
    w.o = o;
    o->addr = addr;
    o->link_heap = o->link_names = o->attr_heap = o->attr_names = NCSI_H5R_UNDEF;
    o->symtab_btree = o->symtab_heap = NCSI_H5R_UNDEF;
    status = NCSI_H5R_CORRUPT;
    if (memcmp(pre, "OHDR", 4) == 0) {
        unsigned flags = pre[5];
        size_t p = 6, wd = (size_t)1 << (flags & 3);
        uint64_t n0;
        if (pre[4] != 2)
            goto done;
        w.v2 = 1;
        w.corder = (flags & 0x04) != 0;
        o->attrs_corder = w.corder;
        o->version = 2;
        p += (flags & 0x20) ? 16 : 0;
        p += (flags & 0x10) ? 4 : 0;
        if (p + wd > have)
            goto done;
        n0 = ncsi_h5r_le(pre + p, (unsigned)wd);
        /* the first block: prefix, messages and checksum, read whole */
        if (n0 > OH_MAX_BYTES)
            goto done;
        status = ncsi_h5r_load(f, addr, p + wd + (size_t)n0 + 4, &blk);
        if (status != NCS_NOERR)
            goto done;
        status = NCSI_H5R_CORRUPT;
        if (!ncsi_h5r_checksum_ok(blk, p + wd + (size_t)n0))
            goto done;
        status = messages(&w, blk + p + wd, blk + p + wd + n0, addr + p + wd);
        if (status != NCS_NOERR)
            goto done;
    } else if (pre[0] == 1) {
        o->version = 1;
        if ((status = push_block(&w, addr + 16, ncsi_h5r_le(pre + 8, 4))) != NCS_NOERR)
            goto done;
    } else {
        goto done;
    }
    for (int i = 0; i < w.nblocks; i++) {
        size_t n = (size_t)w.len[i];
        const unsigned char *p, *end;
        free(blk);
        blk = NULL;
        if ((status = ncsi_h5r_load(f, w.addr[i], n, &blk)) != NCS_NOERR)
            goto done;
        status = NCSI_H5R_CORRUPT;
        p = blk;
        end = blk + n;
        if (w.v2) {
            if (n < 8 || memcmp(blk, "OCHK", 4) != 0 || !ncsi_h5r_checksum_ok(blk, n - 4))
                goto done;
            p += 4;
            end -= 4;
        }
        if ((status = messages(&w, p, end, w.addr[i] + (uint64_t)(p - blk))) != NCS_NOERR)
            goto done;
    }
    /* what the messages say together */
    status = NCSI_H5R_CORRUPT;
    if (o->has_layout && o->layout.cls == NCSI_H5R_CHUNKED && o->has_space &&
        o->layout.ndims != o->space.rank)
        goto done;
    status = NCS_NOERR;
done:
    free(blk);
    if (status != NCS_NOERR)
        ncsi_h5r_obj_free(o);
    else
        *op = o;
    return status;
}
