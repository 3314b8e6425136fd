/*
 * classic_ncbuf.c -- how long netCDF-C's file is, and what its I/O buffer
 * leaves past the data: a model of netCDF-C's POSIX I/O buffer (its ncio
 * "px" layer, and "spx" under NC_SHARE) that follows offsets and counts,
 * and keeps bytes only where the buffer holds stale copies.
 *
 * netCDF-C reads and writes a classic file through one buffer of two blocks
 * of its chunk size (the file system's st_blksize, at least 8 KiB) and
 * writes the buffer back as far as it was ever asked for, past the end of
 * the file when a request reached past it.  Its header goes through that
 * buffer in windows (see header_stream), the last of which reaches beyond
 * the header, so the file ends up longer than the data it holds when the
 * header is large and the data small: up to a window past the header's
 * last item.  This model is fed the requests netCDF-C makes for the same
 * calls, in its order, and says how long its file is (b->flen) and which
 * stale bytes it writes back (b->stale); the back end pads its own file to
 * that length at sync, close and enddef.  doc/format.md, section 6.5,
 * states the rule.
 *
 * Invariants: b->off is a multiple of b->bs (or NO_BUF); b->cnt <= b->ext
 * <= 2 * b->bs; flen only grows; known[i] only for cells below 2 * bs.
 */
#include "classic.h"

#include <stdlib.h>
#include <string.h>

#define NO_BUF UINT64_MAX
#define RGN_WRITE    NCSI_RGN_WRITE
#define RGN_MODIFIED NCSI_RGN_MODIFIED
/* netCDF-C's first header read, and a header write while its header size
 * is the minimal one, ask for at most this */
#define FIRST_READ 4096

static uint64_t min_u64(uint64_t a, uint64_t b) { return a < b ? a : b; }

/* bytes a read of n at off gets from a file of flen bytes */
static uint64_t nread(const ncs_ncbuf *b, uint64_t off, uint64_t n)
{
    return off >= b->flen ? 0 : min_u64(n, b->flen - off);
}

/* ---- stale bytes --------------------------------------------------------------
 * A buffer byte is either the file's byte at the offset the buffer maps it
 * to (what the back end's own file holds there: nothing to track) or, after
 * netCDF-C slid its buffer up by a block without reading that block again,
 * a stale copy of another offset's byte, kept in b->mem (b->known set).
 * Written back, stale bytes land in the file; b->stale puts them where the
 * back end's file has no content. */

/* Keeps the first error for the caller (b->err). */
static void fail(ncs_ncbuf *b, int status)
{
    if (b->err == NCS_NOERR)
        b->err = status;
}

/* Cells [from, to) hold the file's bytes again. */
static void forget(ncs_ncbuf *b, uint64_t from, uint64_t to)
{
    if (b->known != NULL && from < to)
        memset(b->known + from, 0, (size_t)(to - from));
}


/* Cells [from, to) of the lower block, which held the bytes at old + cell,
 * stay as they are while the buffer moves away from old. */
static void orphan(ncs_ncbuf *b, uint64_t from, uint64_t to, uint64_t old)
{
    if (from >= to || b->read == NULL)
        return;
    if (b->known == NULL) {
        b->mem = ncsi_malloc((size_t)(2 * b->bs));
        b->known = ncsi_calloc(1, (size_t)(2 * b->bs));
        if (b->mem == NULL || b->known == NULL) {
            free(b->mem);
            free(b->known);
            b->mem = b->known = NULL;
            fail(b, NCS_ERR(NCS_ENOMEM));
            return;
        }
    }
    /* the bytes were the last header written there, else the back end's
     * file's */
    for (uint64_t i = from; i < to;) {
        uint64_t j = i;
        if (b->known[i]) {
            i++;
            continue;
        }
        while (j < to && !b->known[j] && (old + j < b->hdr_len) == (old + i < b->hdr_len))
            j++;
        if (old + i < b->hdr_len)
            memcpy(b->mem + i, b->hdr + old + i, (size_t)(j - i));
        else
            fail(b, b->read(b->ctx, old + i, b->mem + i, (size_t)(j - i)));
        memset(b->known + i, 1, (size_t)(j - i));
        i = j;
    }
}

/* netCDF-C writes cells [cell, cell+n) at b->off + cell. */
static void pgout(ncs_ncbuf *b, uint64_t cell, uint64_t n)
{
    uint64_t off = b->off + cell;
    if (off + n > b->flen)
        b->flen = off + n;
    if (b->known == NULL || b->stale == NULL)
        return;
    for (uint64_t i = cell; i < cell + n;) {
        uint64_t j = i;
        if (!b->known[i]) {
            i++;
            continue;
        }
        while (j < cell + n && b->known[j])
            j++;
        fail(b, b->stale(b->ctx, b->off + i, b->mem + i, (size_t)(j - i)));
        i = j;
    }
}

/* One get and rel of [off, off+n) through the two-block buffer, as
 * netCDF-C's px_get does it: the same block moves, page-outs, counts and
 * copies; the first wlen bytes of the request are written. */
static void px_touch(ncs_ncbuf *b, uint64_t off, uint64_t n, uint64_t wlen, int write)
{
    uint64_t bs = b->bs, blkoff = off / bs * bs, diff = off - blkoff;
    uint64_t blkext = NCS_RNDUP(diff + n, bs);

    if (n == 0)
        return;
    if (blkext > 2 * bs) {
        /* netCDF-C refuses such a request (E2BIG); its callers never make
         * one.  Whatever it was, the buffer's end is written. */
        if (b->off != NO_BUF && (b->rflags & RGN_MODIFIED))
            pgout(b, 0, b->cnt);
        b->off = NO_BUF;
        b->cnt = b->ext = 0;
        b->rflags = 0;
        forget(b, 0, 2 * bs);
        return;
    }
    if (b->off == NO_BUF)
        goto pgin;
    if (blkoff == b->off) {
        if (blkext > b->ext) {
            /* the upper block joins the lower one */
            b->cnt = nread(b, b->off + bs, bs) + bs;
            b->ext = 2 * bs;
            forget(b, bs, 2 * bs);
        }
        goto done;
    }
    if (b->ext > bs && blkoff == b->off + bs) {
        uint64_t keep = 0;
        if (blkext == bs) {
            diff += bs;
            goto done;
        }
        /* slide up a block: the lower one is written if dirty; what the
         * upper one held moves down, the rest of the lower one stays
         * (stale), the new upper block is read */
        if (b->rflags & RGN_MODIFIED)
            pgout(b, 0, bs);
        if (b->cnt > bs)
            keep = b->cnt - bs;
        /* (the bytes this request writes need no keeping) */
        orphan(b, keep, diff < bs ? diff : bs, b->off);
        orphan(b, keep > diff + wlen ? keep : diff + wlen, bs, b->off);
        if (b->known != NULL && keep > 0) {
            memmove(b->mem, b->mem + bs, (size_t)keep);
            memmove(b->known, b->known + bs, (size_t)keep);
        }
        b->off = blkoff;
        b->cnt = nread(b, b->off + bs, bs) + bs;
        b->ext = 2 * bs;
        forget(b, bs, 2 * bs);
        goto done;
    }
    if (b->off >= bs && blkoff == b->off - bs) {
        uint64_t upper;
        if (b->cnt > bs) {
            if (b->rflags & RGN_MODIFIED)
                pgout(b, bs, b->cnt - bs);
            b->cnt = bs;
            b->ext = bs;
        }
        upper = b->cnt;
        if (upper > 0 && b->known != NULL) {
            memcpy(b->mem + bs, b->mem, (size_t)bs);
            memcpy(b->known + bs, b->known, (size_t)bs);
        }
        b->cnt = nread(b, blkoff, bs);
        b->off = blkoff;
        forget(b, 0, bs);
        if (upper != 0) {
            b->ext = 2 * bs;
            b->cnt = bs + upper;
        } else {
            b->ext = bs;
        }
        goto done;
    }
    if (b->rflags & RGN_MODIFIED) {
        pgout(b, 0, b->cnt);
        b->rflags = 0;
    }
pgin:
    b->cnt = nread(b, blkoff, blkext);
    b->off = blkoff;
    b->ext = blkext;
    forget(b, 0, blkext);
done:
    if (b->cnt < diff + n)
        b->cnt = diff + n;
    forget(b, diff, diff + wlen);
    if (write)
        b->rflags |= RGN_WRITE | RGN_MODIFIED;
    NCSI_ASSERT(b->off % bs == 0 && b->cnt <= b->ext && b->ext <= 2 * bs);
}

/* Under NC_SHARE each header request is read and written on its own:
 * a window written reaches the file whole.  Data requests there end where
 * the data does. */
static void touch(ncs_ncbuf *b, uint64_t off, uint64_t n, uint64_t wlen, int write)
{
    if (!b->active)
        return;
    if (!b->share)
        px_touch(b, off, n, wlen, write);
    else if (write && off + n > b->flen)
        b->flen = off + n;
}

/* ---- the header stream ------------------------------------------------------
 * netCDF-C reads and writes the header through a window of `ext` bytes at
 * `ws`.  Before each item (a count, a name's padded bytes, a piece of an
 * attribute's values of at most the window's size, ...) it checks that the
 * item fits before the window's end; if not, the window moves to start at
 * the item (growing to the item's size if that is larger).  The magic
 * number and the record count come first, unchecked. */
typedef struct stream {
    ncs_ncbuf *b;
    uint64_t ws, ext, pos;
    int write, cnt;
    uint64_t len;                /* the header's size */
} stream;

/* the bytes of the window at ws that hold header (written, if writing) */
static uint64_t written(const stream *s, uint64_t ws)
{
    return !s->write || ws >= s->len ? 0 : min_u64(s->ext, s->len - ws);
}

static void item(stream *s, uint64_t n)
{
    if (s->pos + n > s->ws + s->ext) {
        s->ws = s->pos;
        if (n > s->ext)
            s->ext = n;
        touch(s->b, s->ws, s->ext, written(s, s->ws), s->write);
    }
    s->pos += n;
}

static void name_items(stream *s, const char *name, uint32_t namelen)
{
    item(s, (uint64_t)s->cnt);
    item(s, NCS_RNDUP(ncsi_name_xlen(name, namelen), 4));
}

static void att_items(stream *s, const ncs_attlist *l)
{
    item(s, 4);
    item(s, (uint64_t)s->cnt);
    for (int i = 0; i < l->n; i++) {
        const ncs_att *a = &l->a[i];
        uint64_t left = NCS_RNDUP(a->nelems * ncsi_type_size(a->type), 4), piece;
        name_items(s, a->name, a->namelen);
        item(s, 4);
        item(s, (uint64_t)s->cnt);
        piece = s->ext;
        do {
            uint64_t k = min_u64(piece, left);
            item(s, k);
            left -= k;
        } while (left != 0);
    }
}

static void header_stream(ncs_ncbuf *b, const ncs_model *m, int version, uint64_t first,
                          int write)
{
    stream s = { b, 0, first, version == 5 ? 12 : 8, write, version == 5 ? 8 : 4,
                 ncsi_hdr_len(m, version) };
    touch(b, 0, first, written(&s, 0), write);
    item(&s, 4);
    item(&s, (uint64_t)s.cnt);
    for (int i = 0; i < m->ndims; i++) {
        name_items(&s, m->dims[i].name, m->dims[i].namelen);
        item(&s, (uint64_t)s.cnt);
    }
    att_items(&s, &m->gatts);
    item(&s, 4);
    item(&s, (uint64_t)s.cnt);
    for (int i = 0; i < m->nvars; i++) {
        const ncs_var *v = &m->vars[i];
        name_items(&s, v->name, v->namelen);
        item(&s, (uint64_t)s.cnt);
        item(&s, (uint64_t)v->ndims * (uint64_t)s.cnt);
        att_items(&s, &v->atts);
        item(&s, 4);
        item(&s, (uint64_t)s.cnt);
        item(&s, version == 1 ? 4 : 8);
    }
}

/* ---- entry points ------------------------------------------------------------ */

static void start(ncs_ncbuf *b, size_t blksize, int share)
{
    ncsi_ncbuf_free(b);
    b->bs = blksize;
    b->share = share;
    b->active = 1;
    b->off = NO_BUF;
    b->ext = b->cnt = 0;
    b->rflags = 0;
    b->flen = 0;
    b->err = NCS_NOERR;
}

void ncsi_ncbuf_create(ncs_ncbuf *b, size_t blksize, int share, int version)
{
    start(b, blksize, share);
    b->xsz = version == 5 ? 48 : 32;
    if (!share) {
        /* a new file's buffer starts at 0, both blocks present */
        b->off = 0;
        b->ext = 2 * b->bs;
    }
    touch(b, 0, b->xsz, b->xsz, 1);
}

void ncsi_ncbuf_open(ncs_ncbuf *b, size_t blksize, int share, int writable, uint64_t fsize,
                     const ncs_model *m, int version)
{
    start(b, blksize, share);
    b->active = writable;
    b->flen = fsize;
    b->xsz = ncsi_hdr_len(m, version);
    if (writable)
        header_stream(b, m, version, min_u64(min_u64(b->bs, FIRST_READ), fsize), 0);
}

void ncsi_ncbuf_reread(ncs_ncbuf *b, const ncs_model *m, int version)
{
    b->xsz = ncsi_hdr_len(m, version);
}

void ncsi_ncbuf_header(ncs_ncbuf *b, const ncs_model *m, int version,
                       const unsigned char *bytes, size_t len)
{
    uint64_t first = b->xsz;
    if (!b->active)
        return;
    if (!b->share) {
        /* the stale bytes a slide keeps may be this header's */
        if (len > b->hdr_cap) {
            unsigned char *nh = ncsi_realloc(b->hdr, len);
            if (nh == NULL) {
                b->hdr_len = 0;
                fail(b, NCS_ERR(NCS_ENOMEM));
                return;
            }
            b->hdr = nh;
            b->hdr_cap = len;
        }
        memcpy(b->hdr, bytes, len);
        b->hdr_len = len;
    }
    if (first <= (version == 5 ? 48u : 32u))
        first = min_u64(b->bs, FIRST_READ);
    else if (first > b->bs)
        first = b->bs;
    header_stream(b, m, version, first, 1);
}

void ncsi_ncbuf_numrecs(ncs_ncbuf *b, int version)
{
    touch(b, 4, version == 5 ? 8 : 4, version == 5 ? 8 : 4, 1);
}

/* The pieces of a long span from the one at off to the third last, when
 * the pieces before have left the buffer in the state each of them keeps:
 * with the file (flen) reaching two blocks past the last of them and no
 * stale bytes held, each moves the buffer up one block and changes nothing
 * else.  Unaligned pieces (d > 0) straddle two blocks: each slides the
 * buffer up, writing back a lower block inside the file (flen stays), and
 * reads a full upper block (cnt stays 2 bs, nothing is orphaned: keep is
 * bs).  Aligned pieces (d == 0) each replace a one-block buffer: the old
 * block written back inside the file if modified, the new one read full
 * (cnt stays bs), the flags left as the piece sets them, so a read needs
 * them clear.  Returns how many pieces need not be fed. */
static uint64_t steady_pieces(const ncs_ncbuf *b, uint64_t off, uint64_t n, int write)
{
    uint64_t bs = b->bs, d = off % bs, npieces = (n + bs - 1) / bs, v;
    int flags = write ? RGN_WRITE | RGN_MODIFIED : 0;
    if (npieces < 3 || b->known != NULL || b->off == NO_BUF)
        return 0;
    v = npieces - 2;
    if (b->flen < b->off + (v + 2) * bs)
        return 0;
    /* (a write's earlier pieces have set its flags already) */
    if (d > 0 && b->off + bs == off - d && b->ext == 2 * bs && b->cnt == 2 * bs)
        return v;
    if (d == 0 && b->off + bs == off && b->ext == bs && b->cnt == bs && b->rflags == flags)
        return v;
    return 0;
}

void ncsi_ncbuf_span(ncs_ncbuf *b, uint64_t off, uint64_t n, int write)
{
    if (b->share)
        return;
    int skipped = 0;
    for (int piece = 0; n > 0 && b->active; piece++) {
        uint64_t k = min_u64(n, b->bs);
        if (piece > 0 && !skipped) {
            uint64_t v = steady_pieces(b, off, n, write);
            b->off += v * b->bs;
            off += v * b->bs;
            n -= v * b->bs;
            skipped = v > 0;
        }
        touch(b, off, k, write ? k : 0, write);
        off += k;
        n -= k;
    }
}

/* netCDF-C's move after a redefinition.  One that fits in a block is a
 * memmove inside the buffer, so the stale bytes of the source go along;
 * a larger one goes in blocks of its chunk size, from the end when moving
 * up, reading through a second buffer that never writes (its stale bytes
 * are not followed: doc/format.md, section 6.5). */
void ncsi_ncbuf_move(ncs_ncbuf *b, uint64_t to, uint64_t from, uint64_t n)
{
    uint64_t lower = to < from ? to : from, gap = (to < from ? from : to) - lower;
    if (to == from || !b->active || b->share)
        return;
    if (gap + n <= b->bs) {
        px_touch(b, lower, gap + n, 0, 1);
        if (b->known != NULL && b->off != NO_BUF) {
            uint64_t src = from - b->off, dst = to - b->off;
            memmove(b->mem + dst, b->mem + src, (size_t)n);
            memmove(b->known + dst, b->known + src, (size_t)n);
        }
        return;
    }
    if (to > from) {
        uint64_t t = to + n;
        while (n > 0) {
            uint64_t k = min_u64(n, b->bs);
            t -= k;
            px_touch(b, t, k, k, 1);
            n -= k;
        }
    } else {
        while (n > 0) {
            uint64_t k = min_u64(n, b->bs);
            px_touch(b, to, k, k, 1);
            to += k;
            n -= k;
        }
    }
}

void ncsi_ncbuf_sync(ncs_ncbuf *b)
{
    if (!b->active || b->share || b->off == NO_BUF)
        return;
    if (b->rflags & RGN_MODIFIED) {
        pgout(b, 0, b->cnt);
        b->rflags = 0;
    } else if (!(b->rflags & RGN_WRITE)) {
        b->off = NO_BUF;
        b->cnt = 0;
        forget(b, 0, 2 * b->bs);
    }
}

void ncsi_ncbuf_close(ncs_ncbuf *b, uint64_t calcsize)
{
    ncsi_ncbuf_sync(b);
    if (b->active && b->flen < calcsize)
        b->flen = calcsize;
}

void ncsi_ncbuf_free(ncs_ncbuf *b)
{
    free(b->mem);
    free(b->known);
    free(b->hdr);
    b->mem = b->known = b->hdr = NULL;
    b->hdr_len = b->hdr_cap = 0;
}
