/*
 * classic_fast.c -- the fast paths of the classic back end: a table of
 * where each variable's elements are (cl->fast), and the plain requests
 * served from it straight from the cached pages, without the hyperslab
 * engine or a copy through scratch: ncs_get1, small vara gets and puts,
 * views.  With them, the kernels that decode and encode runs in the cached
 * pages, which the general path (classic_data.c) uses as well.
 *
 * A request a fast path cannot serve as the general path would (out of
 * the data, cut short, too many groups of dimensions) returns
 * NCSI_DECLINED, and the general path answers it, errors included.
 * cl->fast[0 .. nfast) describes the current layout and record count:
 * rebuilt after each layout, its record bounds set at each change of the
 * count; a variable at or past nfast takes the general path.
 */
#include "classic.h"

#include <stdlib.h>
#include <string.h>

/* ---- decoding and encoding in the cached pages -------------------------- */

/* How many of the n elements from off, gap bytes apart, lie with all their
 * bytes inside the page off is in (0 when the first straddles a page). */
static uint64_t in_page(uint64_t off, uint64_t n, uint64_t gap, size_t xsz)
{
    uint64_t room = PAGE_SIZE - off % PAGE_SIZE, k;
    if (room < xsz)
        return 0;
    k = (room - xsz) / gap + 1;
    return k < n ? k : n;
}

/* n elements gap bytes apart from off (elements of xsz bytes), decoded by
 * dec into mem, mstep memory elements of msz bytes apart, straight from
 * the cached pages: the elements whole in a page in one call, no copy of
 * the bytes between them; an element across two pages through an 8-byte
 * buffer.  Sets *bad when an element is out of range.  (A fast path: the
 * general code of get_run reads covering spans into the scratch buffer.) */
int ncsi_cl_decode_paged(ncs_pc *pc, uint64_t off, uint64_t n, uint64_t gap, size_t xsz,
                         ncsi_conv_fn dec, unsigned char *mem, ptrdiff_t mstep, size_t msz,
                         int *bad)
{
    ptrdiff_t step = (ptrdiff_t)(gap / xsz), mgap = mstep * (ptrdiff_t)msz;
    while (n > 0) {
        uint64_t k = in_page(off, n, gap, xsz);
        const unsigned char *p;
        unsigned char one[8];
        int status = NCS_NOERR;
        if (k > 0) {
            size_t in = (size_t)(off % PAGE_SIZE);
            if ((p = ncsi_pc_page_rows(pc, off, xsz, k, gap, &status)) == NULL)
                return status;
            p += in;
        } else {
            k = 1;
            if ((status = ncsi_pc_read(pc, off, one, xsz)) != NCS_NOERR)
                return status;
            p = one;
        }
        *bad |= dec(p, step, mem, mstep, (size_t)k) != 0;
        n -= k;
        off += k * gap;
        mem += (ptrdiff_t)k * mgap;
    }
    return NCS_NOERR;
}

/* Copies n bytes: the decoder of a 1-byte type into itself, whose loop
 * the compiler does not turn into memcpy.  Short rows are copied 8 bytes
 * at a time: glibc's memcpy took 11 ns for each 40-byte row of a 10x20x1x40
 * byte get (rows 1200 bytes apart), this loop 2.5 ns. */
static int copy_bytes(const void *src, ptrdiff_t sstep, void *dst, ptrdiff_t dstep, size_t n)
{
    const unsigned char *s = src;
    unsigned char *d = dst;
    (void)sstep, (void)dstep;
    if (n > 128) {
        memcpy(dst, src, n);
        return 0;
    }
    for (; n >= 8; n -= 8, s += 8, d += 8) {
        uint64_t t;
        memcpy(&t, s, 8);
        memcpy(d, &t, 8);
    }
    while (n--)
        *d++ = *s++;
    return 0;
}

/* The loop that decodes xtype into memtype, runs xstep file elements and
 * mstep memory elements apart: copy_bytes where that is a copy of bytes. */
ncsi_conv_fn ncsi_cl_run_decoder(int xtype, int memtype, int version, ptrdiff_t xstep,
                                 ptrdiff_t mstep)
{
    ncsi_conv_fn dec = ncsi_decoder(xtype, memtype, version);
    if (xstep == 1 && mstep == 1 && ncsi_type_size(xtype) == 1 &&
        ncsi_type_size(memtype) == 1 && dec == ncsi_decoder(xtype, xtype, version))
        return copy_bytes;
    return dec;
}

/* A run of n elements gap bytes apart from off (elements of xsz bytes)
 * whose span is at most a page, from mem (mstep memory elements apart),
 * encoded into the cached pages: into one page, or into two with the
 * element across the boundary (if any) through an 8-byte buffer.  Sets
 * *bad when an element is out of range. */
int ncsi_cl_encode_span(ncs_file *f, uint64_t off, uint64_t n, uint64_t gap, size_t xsz,
                        int xtype, int memtype, const unsigned char *mem, ptrdiff_t mstep,
                        int *bad)
{
    ncs_pc *pc = CL(f)->pc;
    uint64_t in = off % PAGE_SIZE, span = (n - 1) * gap + xsz;
    ptrdiff_t step = (ptrdiff_t)(gap / xsz), mgap = mstep * (ptrdiff_t)ncsi_type_size(memtype);
    uint64_t e = in + span <= PAGE_SIZE ? n : in_page(off, n, gap, xsz);
    unsigned char *p, one[8];
    int status;
    if (e > 0) {
        if ((p = ncsi_pc_span(pc, off, (size_t)((e - 1) * gap + xsz), 1, &status)) == NULL)
            return status;
        *bad |= ncsi_encode_strided(xtype, p, step, (size_t)e, memtype, mem, mstep,
                                    f->version) != 0;
    }
    if (e < n && in + e * gap < PAGE_SIZE) {
        *bad |= ncsi_encode_strided(xtype, one, 1, 1, memtype, mem + (ptrdiff_t)e * mgap, 1,
                                    f->version) != 0;
        if ((status = ncsi_pc_write(pc, off + e * gap, one, xsz)) != NCS_NOERR)
            return status;
        e++;
    }
    if (e < n) {
        if ((p = ncsi_pc_span(pc, off + e * gap, (size_t)((n - e - 1) * gap + xsz), 1,
                              &status)) == NULL)
            return status;
        *bad |= ncsi_encode_strided(xtype, p, step, (size_t)(n - e), memtype,
                                    mem + (ptrdiff_t)e * mgap, mstep, f->version) != 0;
    }
    return NCS_NOERR;
}

/* ---- where each element is ---------------------------------------------- */

/* Rebuilds the fast-path table after the layout or the record count
 * changed. */
int ncsi_cl_fast_rebuild(ncs_file *f)
{
    classic *cl = (classic *)f->state;
    const ncs_model *m = &f->model;
    size_t total = 0, used = 0;
    free(cl->fast);
    free(cl->fastmem);
    cl->fast = NULL;
    cl->fastmem = NULL;
    cl->nfast = 0;
    for (int i = 0; i < m->nvars; i++)
        total += 2 * (size_t)m->vars[i].ndims;
    cl->fast = ncsi_calloc((size_t)m->nvars + 1, sizeof *cl->fast);
    cl->fastmem = ncsi_malloc((total ? total : 1) * sizeof *cl->fastmem);
    if (cl->fast == NULL || cl->fastmem == NULL)
        return NCS_ERR(NCS_ENOMEM);
    for (int i = 0; i < m->nvars; i++) {
        const ncs_var *v = &m->vars[i];
        fastvar *fv = &cl->fast[i];
        fv->begin = v->begin;
        fv->nd = v->ndims;
        fv->xsz = (int)v->xsz;
        fv->type = v->type;
        fv->dec_self = ncsi_cl_run_decoder(v->type, v->type, f->version, 1, 1);
        fv->dec_strided = ncsi_cl_run_decoder(v->type, v->type, f->version, 2, 1);
        fv->rows_self = ncsi_row_decoder(v->type, v->type, f->version);
        fv->lim = cl->fastmem + used;
        fv->bstride = cl->fastmem + used + v->ndims;
        used += 2 * (size_t)v->ndims;
        for (int d = 0; d < v->ndims; d++) {
            fv->lim[d] = (d == 0 && v->isrec) ? m->numrecs : v->shape[d];
            fv->bstride[d] = (d == 0 && v->isrec) ? cl->lay.recsize
                           : (d + 1 < v->ndims ? v->dsizes[d + 1] : 1) * v->xsz;
        }
    }
    cl->nfast = m->nvars;
    return NCS_NOERR;
}

/* The record count changed: update the fast path's bounds. */
void ncsi_cl_fast_numrecs(ncs_file *f)
{
    classic *cl = (classic *)f->state;
    for (int i = 0; i < cl->nfast; i++)
        if (f->model.vars[i].isrec)
            cl->fast[i].lim[0] = f->model.numrecs;
}

/* ---- plain requests ----------------------------------------------------- */

/* The plain requests the fast paths take: inside the data, in C order in
 * memory, and once the dimensions that are contiguous in the file merge,
 * at most FAST_GROUPS of them with a count above one, the innermost (the
 * run) no longer than a page. */
#define FAST_GROUPS 4

typedef struct fastreq {
    uint64_t off;                    /* first byte */
    uint64_t span;                   /* bytes a run covers */
    uint64_t n[FAST_GROUPS];         /* counts, innermost (the run) first */
    uint64_t gap[FAST_GROUPS];       /* bytes between consecutive indices */
    ptrdiff_t step;                  /* file elements between run elements */
    int ng;
} fastreq;

/* Fills q for a request on fv, or returns NCSI_DECLINED. */
static int fast_plan(const fastvar *fv, const size_t *start, const size_t *count, fastreq *q)
{
    uint64_t xsz = (uint64_t)fv->xsz;
    int ng = 0;
    q->off = fv->begin;
    q->n[0] = 1;
    q->gap[0] = xsz;
    for (int d = fv->nd - 1; d >= 0; d--) {
        if (count[d] == 0 || start[d] >= fv->lim[d] || count[d] > fv->lim[d] - start[d])
            return NCSI_DECLINED;
        q->off += start[d] * fv->bstride[d];
        if (count[d] == 1)
            continue;
        if (ng > 0 && q->n[ng - 1] * q->gap[ng - 1] == fv->bstride[d] &&
            (ng > 1 || (q->n[0] * count[d] - 1) * q->gap[0] + xsz <= PAGE_SIZE)) {
            q->n[ng - 1] *= count[d];        /* contiguous with the group inside */
            continue;
        }
        if (ng == FAST_GROUPS)
            return NCSI_DECLINED;
        q->n[ng] = count[d];
        q->gap[ng] = fv->bstride[d];
        ng++;
    }
    if (ng == 0)
        ng = 1;
    if (q->gap[0] != xsz && (q->n[0] - 1) * q->gap[0] + xsz > PAGE_SIZE) {
        /* a strided run longer than a page (one element per record, say):
         * runs of one element, the strided group the rows */
        if (ng == FAST_GROUPS)
            return NCSI_DECLINED;
        memmove(q->n + 1, q->n, (size_t)ng * sizeof q->n[0]);
        memmove(q->gap + 1, q->gap, (size_t)ng * sizeof q->gap[0]);
        q->n[0] = 1;
        q->gap[0] = xsz;
        ng++;
    }
    if (q->gap[0] % xsz != 0)
        return NCSI_DECLINED;                /* record steps need not be whole elements */
    q->ng = ng;
    q->step = (ptrdiff_t)(q->gap[0] / xsz);
    q->span = (q->n[0] - 1) * q->gap[0] + xsz;
    return q->span <= PAGE_SIZE ? NCS_NOERR : NCSI_DECLINED;
}

/* The offset past the last byte q touches. */
static uint64_t fast_end(const fastreq *q)
{
    uint64_t end = q->off + q->span;
    for (int g = 1; g < q->ng; g++)
        end += (q->n[g] - 1) * q->gap[g];
    return end;
}

/* The span of a fast-path request (fast_plan took only nonempty ones). */
static int note_fast(classic *cl, const fastreq *q, int write)
{
    if (!cl->nb.active)
        return NCS_NOERR;
    return note_span(cl, q->off, fast_end(q) - q->off, write);
}

/* Moves to the next index of groups g0 and up (the runs: g0 = 1; the
 * rows of group 1 as well: g0 = 2), its offset in *off; 0 when there is
 * none. */
static int fast_next(const fastreq *q, int g0, uint64_t *idx, uint64_t *off)
{
    for (int g = g0; g < q->ng; g++) {
        if (++idx[g] < q->n[g]) {
            *off += q->gap[g];
            return 1;
        }
        *off -= (idx[g] - 1) * q->gap[g];
        idx[g] = 0;
    }
    return 0;
}

/* Whether count asks for one element of fv. */
static int one_element(const fastvar *fv, const size_t *count)
{
    for (int d = 0; d < fv->nd; d++)
        if (count[d] != 1)
            return 0;
    return 1;
}

/* The offset of element index of fv, or UINT64_MAX when it is out of
 * bounds. */
static uint64_t point_offset(const fastvar *fv, const size_t *index)
{
    uint64_t off = fv->begin;
    for (int d = 0; d < fv->nd; d++) {
        if (index[d] >= fv->lim[d])
            return UINT64_MAX;
        off += index[d] * fv->bstride[d];
    }
    return off;
}

/* One element of xsz bytes at p, decoded in its own type into buf. */
#define DECODE_ONE(T, BE)                                                      \
    do {                                                                       \
        T u_;                                                                  \
        memcpy(&u_, p, sizeof u_);                                             \
        u_ = BE(u_);                                                           \
        memcpy(buf, &u_, sizeof u_);                                           \
    } while (0)

static inline void decode_one(const unsigned char *p, int xsz, void *buf)
{
    switch (xsz) {
    case 1: *(unsigned char *)buf = *p; break;
    case 2: DECODE_ONE(uint16_t, ncsi_be16); break;
    case 4: DECODE_ONE(uint32_t, ncsi_be32); break;
    default: DECODE_ONE(uint64_t, ncsi_be64); break;
    }
}

/* A plain get of one element in the variable's own type, from its cached
 * page; NCSI_DECLINED where the general path must say why not. */
static int get_point(ncs_file *f, const fastvar *fv, const size_t *index, void *buf)
{
    classic *cl = (classic *)f->state;
    const unsigned char *p;
    uint64_t off = point_offset(fv, index), in = off % PAGE_SIZE;
    int status;
    if (off == UINT64_MAX || in + (uint64_t)fv->xsz > PAGE_SIZE)
        return NCSI_DECLINED;                /* out of bounds, or across two pages */
    if (!(f->flags & NCSI_F_WRITE) && off + (uint64_t)fv->xsz > ncsi_pc_logical_size(cl->pc))
        return NCSI_DECLINED;                /* cut short */
    p = ncsi_pc_page_rows(cl->pc, off, fv->xsz, 1, 0, &status);
    if (p == NULL)
        return NCSI_DECLINED;
    if (cl->nb.active && !ncsi_ncbuf_read_quiet(&cl->nb, off, (uint64_t)fv->xsz) &&
        (status = note_data(cl, off, off, fv->xsz, 0)) != NCS_NOERR)
        return status;
    decode_one(p + in, fv->xsz, buf);
    return NCS_NOERR;
}

/* A request that finds its first page cold and whose rows lie apart, a
 * page or more between them, would wait for the device once a row, one
 * read after another (a point from each of 1,000 records: 1,000 waits).
 * Each stretch of rows less than a page apart is announced first
 * (ncsi_pc_prefetch), so that the system has their reads in flight
 * together; one stretch is left to the kernel's readahead. */
#define PREFETCH_MAX 4096        /* stretches announced, at most */

static __attribute__((noinline)) void prefetch_rows(ncs_pc *pc, const fastreq *q)
{
    uint64_t idx[FAST_GROUPS] = {0}, off = q->off, lo = q->off, hi = q->off + q->span;
    int n = 0;
    while (fast_next(q, 1, idx, &off)) {
        if (off < hi)
            return;                 /* not in file order: left as it is */
        if (off - hi < PAGE_SIZE) {
            hi = off + q->span;     /* the same stretch */
            continue;
        }
        ncsi_pc_prefetch(pc, lo, hi - lo);
        if (++n >= PREFETCH_MAX)
            return;
        lo = off;
        hi = off + q->span;
    }
    if (n > 0)
        ncsi_pc_prefetch(pc, lo, hi - lo);
}

/* Rows up to this many bytes that only need their bytes swapped are
 * decoded all in one call (ncsi_row_decoder): a 10x20x1x40 short get, 200
 * rows of 80 bytes, 0.58 -> 0.34 us; longer rows keep the decoder's
 * unrolled loop. */
#define SHORT_ROW 512

int ncsi_cl_get_vara(ncs_file *f, int varid, const size_t *start, const size_t *count,
                     int memtype, void *buf)
{
    classic *cl = (classic *)f->state;
    fastreq q;
    uint64_t idx[FAST_GROUPS] = {0}, off, n1, gap1, span;
    size_t msz = ncsi_type_size(memtype), n0, rowbytes;
    unsigned char *mem = buf;
    ncsi_conv_fn dec;
    ncsi_rows_fn swap_rows;
    int erange = 0, status;
    if (varid >= cl->nfast)
        return NCSI_DECLINED;
    if (memtype == cl->fast[varid].type && one_element(&cl->fast[varid], count))
        return get_point(f, &cl->fast[varid], start, buf);   /* an ncvarget of a point */
    if (fast_plan(&cl->fast[varid], start, count, &q) != NCS_NOERR)
        return NCSI_DECLINED;
    if (!(f->flags & NCSI_F_WRITE) && fast_end(&q) > ncsi_pc_logical_size(cl->pc))
        return NCSI_DECLINED;                /* cut short: the general path says so */
    if (q.ng > 1 && q.gap[q.ng - 1] >= PAGE_SIZE && !ncsi_pc_holds(cl->pc, q.off))
        prefetch_rows(cl->pc, &q);      /* rows a page or more apart, cold */
    status = note_fast(cl, &q, 0);
    if (status != NCS_NOERR)
        return status;
    if (memtype == cl->fast[varid].type && q.step == 1) {
        dec = cl->fast[varid].dec_self;
        swap_rows = cl->fast[varid].rows_self;
    } else if (memtype == cl->fast[varid].type) {
        dec = cl->fast[varid].dec_strided;  /* any step: the same decoder */
        swap_rows = NULL;
    } else {
        dec = ncsi_cl_run_decoder(cl->fast[varid].type, memtype, f->version, q.step, 1);
        swap_rows = q.step == 1 ? ncsi_row_decoder(cl->fast[varid].type, memtype, f->version)
                                : NULL;
    }
    /* the rows of group 1 (the runs) go page by page: each page is found
     * once for all the rows inside it */
    n0 = (size_t)q.n[0];
    rowbytes = n0 * msz;
    span = q.span;
    n1 = q.ng > 1 ? q.n[1] : 1;
    gap1 = q.ng > 1 ? q.gap[1] : 0;
    off = q.off;
    do {
        uint64_t o = off, i = 0;
        while (i < n1) {
            uint64_t in = o % PAGE_SIZE, k;
            const unsigned char *p;
            if (in + span > PAGE_SIZE) {
                /* the run straddles two pages: they load in one read,
                 * with the rows that follow in the next one */
                uint64_t ext = gap1 < PAGE_SIZE ? (n1 - i - 1) * gap1 + span : span;
                if ((status = ncsi_pc_want(cl->pc, o, ext)) != NCS_NOERR)
                    return status;
                status = ncsi_cl_decode_paged(cl->pc, o, n0, q.gap[0],
                                              (size_t)cl->fast[varid].xsz, dec, mem, 1, msz,
                                              &erange);
                if (status != NCS_NOERR)
                    return status;
                mem += rowbytes;
                o += gap1;
                i++;
                continue;
            }
            p = ncsi_pc_page_rows(cl->pc, o, (size_t)span, n1 - i, gap1, &status);
            if (p == NULL)
                return status;
            p += in;
            /* rows i.. that lie in this page (no division where one does) */
            k = gap1 == 0 || gap1 >= PAGE_SIZE ? 1 : in_page(o, n1 - i, gap1, (size_t)span);
            if (dec == copy_bytes) {
                /* inlined: rows of bytes are short, each a call otherwise */
                for (uint64_t j = 0; j < k; j++, p += gap1, mem += rowbytes)
                    copy_bytes(p, 1, mem, 1, n0);
            } else if (swap_rows != NULL && k > 1 && rowbytes <= SHORT_ROW) {
                swap_rows(p, (ptrdiff_t)gap1, mem, (ptrdiff_t)rowbytes, n0, (size_t)k);
                mem += k * rowbytes;
            } else {
                for (uint64_t j = 0; j < k; j++, p += gap1, mem += rowbytes)
                    erange |= dec(p, q.step, mem, 1, n0) != 0;
            }
            o += k * gap1;
            i += k;
        }
    } while (fast_next(&q, 2, idx, &off));
    return erange ? NCS_ERANGE : NCS_NOERR;
}

/* The elements of a plain get inside the data, in pieces along pd, each in
 * one cached page or copied into scratch.  The pages stay cached while the
 * others load: each is the most recently used, and a view touches fewer
 * than NPAGES (two a piece at most). */
int ncsi_cl_view(ncs_file *f, int varid, const size_t *start, const size_t *count, int pd,
                 const unsigned char **from, int *apart, ptrdiff_t *bstep, int *swap,
                 unsigned char *scratch, size_t nscratch)
{
    classic *cl = (classic *)f->state;
    const fastvar *fv;
    uint64_t off, last, end, n, step;
    size_t used = 0;
    int status;
    if (varid >= cl->nfast || cl->fast[varid].nd < 1 || pd >= cl->fast[varid].nd)
        return NCSI_DECLINED;
    fv = &cl->fast[varid];
    off = fv->begin;
    last = (uint64_t)fv->xsz - 1;            /* a piece's last byte */
    for (int d = 0; d < fv->nd; d++) {
        if (count[d] == 0 || start[d] >= fv->lim[d] || count[d] > fv->lim[d] - start[d])
            return NCSI_DECLINED;
        off += start[d] * fv->bstride[d];
        if (d != pd)
            last += (count[d] - 1) * fv->bstride[d];
        bstep[d] = (ptrdiff_t)fv->bstride[d];
    }
    n = pd >= 0 ? count[pd] : 1;
    step = pd >= 0 ? fv->bstride[pd] : 0;
    if (n > NCSI_VIEW_MAX)
        return NCSI_DECLINED;
    end = off + (n - 1) * step + last;
    if (!(f->flags & NCSI_F_WRITE) && end >= ncsi_pc_logical_size(cl->pc))
        return NCSI_DECLINED;                /* cut short: the general path says so */
    if (cl->nb.active && (status = note_data(cl, off, end, 1, 0)) != NCS_NOERR)
        return status;
#ifdef WORDS_BIGENDIAN
    *swap = 0;
#else
    *swap = fv->xsz > 1;
#endif
    *apart = off / PAGE_SIZE != end / PAGE_SIZE;
    if (!*apart) {
        /* all in one page, the pieces their step apart */
        const unsigned char *p = ncsi_pc_page_rows(cl->pc, off, (size_t)(end - off) + 1, 1, 0,
                                                   &status);
        if (p == NULL)
            return NCSI_DECLINED;
        from[0] = p + off % PAGE_SIZE;
        return NCS_NOERR;
    }
    /* each piece may hold a page and its copy across pages load two */
    ncsi_pc_reserve(cl->pc, 2 * (int)n + 1);
    for (uint64_t i = 0, pno = UINT64_MAX; i < n; i++, off += step) {
        const unsigned char *p;
        if (off / PAGE_SIZE == pno && (off + last) / PAGE_SIZE == pno) {
            from[i] = from[i - 1] + step;      /* in the page of the one before */
            continue;
        }
        if (off / PAGE_SIZE != (off + last) / PAGE_SIZE) {
            /* across pages: a copy */
            if ((uint64_t)(nscratch - used) <= last)
                return NCSI_DECLINED;            /* no room */
            if (ncsi_pc_read(cl->pc, off, scratch + used, (size_t)last + 1) != NCS_NOERR)
                return NCSI_DECLINED;
            from[i] = scratch + used;
            used += (size_t)last + 1;
            continue;                            /* the next piece is past pno */
        }
        p = ncsi_pc_page(cl->pc, off / PAGE_SIZE, &status);   /* whole: the next pieces */
        if (p == NULL)
            return NCSI_DECLINED;
        from[i] = p + off % PAGE_SIZE;
        pno = off / PAGE_SIZE;
    }
    return NCS_NOERR;
}

/* The same for a put inside the records that exist (no fill, no new record
 * count): each run encoded into its cached page. */
#define RUN_PAST_CACHE (4 * (uint64_t)PAGE_SIZE)

int ncsi_cl_put_vara(ncs_file *f, int varid, const size_t *start, const size_t *count,
                     int memtype, const void *buf)
{
    classic *cl = (classic *)f->state;
    fastreq q;
    uint64_t idx[FAST_GROUPS] = {0}, off;
    size_t msz = ncsi_type_size(memtype);
    const unsigned char *mem = buf;
    int erange = 0, status;
    if (!(f->flags & NCSI_F_WRITE) || varid >= cl->nfast ||
        fast_plan(&cl->fast[varid], start, count, &q) != NCS_NOERR)
        return NCSI_DECLINED;
    /* Rows that join into one contiguous run of several pages go to the
     * general path, which encodes the run through the scratch buffer and
     * writes it past the cache: here each page would be read from the file
     * before its first row is encoded into it (a 300 MB CDF-1 to CDF-5
     * copy made 4,600 reads of 64 KiB from its own output). */
    if (q.ng > 1 && q.gap[0] == (uint64_t)cl->fast[varid].xsz && q.n[0] * q.gap[0] == q.gap[1] &&
        q.n[0] * q.n[1] * q.gap[0] >= RUN_PAST_CACHE)
        return NCSI_DECLINED;
    off = q.off;
    do {
        status = ncsi_cl_encode_span(f, off, q.n[0], q.gap[0], (size_t)cl->fast[varid].xsz,
                                     cl->fast[varid].type, memtype, mem, 1, &erange);
        if (status != NCS_NOERR)
            return status;
        mem += q.n[0] * msz;
    } while (fast_next(&q, 1, idx, &off));
    status = note_fast(cl, &q, 1);
    if (status != NCS_NOERR)
        return status;
    return erange ? NCS_ERANGE : NCS_NOERR;
}

/* How many steps of step bytes fit in room bytes, at most cap. */
static uint64_t steps_in(uint64_t room, uint64_t step, uint64_t cap)
{
    uint64_t n = step != 0 ? room / step : cap;
    return n < cap ? n : cap;
}

/* Fills the get1 memo (store.h) after index, at off, was read from the
 * page window w: the run of the last dimension's indices whose elements
 * the window holds, the other indices fixed, then widened over the
 * indices of the dimension before it whose same run the window holds
 * too, so that a row-major scan asks again once a row or a page and a
 * column-major one once a page.  Only while the ncbuf is inactive: its
 * reads must be noted. */
static void fill_memo(ncs_file *f, int varid, const fastvar *fv, const size_t *index,
                      uint64_t off, const ncs_pc_window *w)
{
    ncs_get1_memo *m = &f->memo;
    uint64_t xsz = (uint64_t)fv->xsz, first = off, end = off + xsz;
    int nd = fv->nd;
    if (nd > NCSI_MEMO_DIMS)
        return;
    NCSI_ASSERT(off >= w->lo && end <= w->hi);
    for (int d = 0; d < nd; d++) {
        m->lo[d] = index[d];
        m->ext[d] = 1;
        m->bstride[d] = fv->bstride[d];
    }
    for (int d = nd - 1; d >= 0 && d >= nd - 2; d--) {
        uint64_t bs = fv->bstride[d];
        uint64_t down = steps_in(first - w->lo, bs, index[d]);
        uint64_t up = steps_in(w->hi - end, bs, fv->lim[d] - 1 - index[d]);
        m->lo[d] = index[d] - down;
        m->ext[d] = down + up + 1;
        first -= down * bs;
        end += up * bs;
    }
    ncsi_memo_set(m, varid, fv->type, nd, fv->xsz, 1, w->base + (first - w->lo));
}

/* One element in the variable's own type from the most recently used
 * page, or through the general path. */
int ncsi_cl_get1(ncs_file *f, int varid, const size_t *index, void *buf)
{
    classic *cl = (classic *)f->state;
    const unsigned char *p;
    uint64_t off;
    if (varid >= cl->nfast)
        return ncsi_get1_general(f, varid, index, buf);
    off = point_offset(&cl->fast[varid], index);
    p = off == UINT64_MAX ? NULL : ncsi_pc_peek(cl->pc, off, (size_t)cl->fast[varid].xsz);
    if (p == NULL) {
        /* the general path caches the element's page: the memo from it */
        int status = ncsi_get1_general(f, varid, index, buf);
        if (status == NCS_NOERR && off != UINT64_MAX && !cl->nb.active &&
            ncsi_pc_peek(cl->pc, off, (size_t)cl->fast[varid].xsz) != NULL)
            fill_memo(f, varid, &cl->fast[varid], index, off, (const ncs_pc_window *)cl->pc);
        return status;
    }
    if (cl->nb.active) {
        if (!ncsi_ncbuf_read_quiet(&cl->nb, off, (uint64_t)cl->fast[varid].xsz)) {
            int status = note_data(cl, off, off, cl->fast[varid].xsz, 0);
            if (status != NCS_NOERR)
                return status;
        }
    } else {
        fill_memo(f, varid, &cl->fast[varid], index, off, (const ncs_pc_window *)cl->pc);
    }
    decode_one(p, cl->fast[varid].xsz, buf);
    return NCS_NOERR;
}
