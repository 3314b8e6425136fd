/*
 * classic_data.c -- the general get and put of a classic variable: the
 * blocks and runs the hyperslab engine makes of any validated slab
 * (strides, maps, conversions), read from and written to the page cache
 * through the scratch buffer or, with the fast path on, in the cached
 * pages themselves (classic_fast.c's kernels).  A put past the last record
 * fills the records it adds first (classic_redef.c).
 *
 * Every run lies inside its variable's data: the API layer checked the
 * slab.  In a file open read-only, a run past the end of the file means
 * the file was cut short, and the get says so (NCS_ETRUNC).
 */
#include "classic.h"

#include <string.h>

typedef struct xfer {
    ncs_file *f;
    classic *cl;
    const ncs_var *v;
    int memtype;
    size_t msz;
    unsigned char *buf;
    int erange;
    uint64_t lo, hi;             /* the bytes the blocks so far reach */
} xfer;

/* Notes the bytes from a block's first row at off to the end of its last,
 * for note_xfer. */
static void xfer_reach(xfer *x, uint64_t off, const ncs_block *b, uint64_t rgap, uint64_t span)
{
    uint64_t end = off + (b->rows - 1) * rgap + span;
    if (off < x->lo)
        x->lo = off;
    if (end > x->hi)
        x->hi = end;
}

static uint64_t run_offset(const xfer *x, uint64_t rec, uint64_t elem)
{
    return x->v->begin + rec * x->cl->lay.recsize + elem * x->v->xsz;
}

/* Runs whose bytes span at most this much go through the cached pages
 * in place; longer ones bypass the cache rather than evict it. */
#define IN_PAGE_MAX (32 * (uint64_t)PAGE_SIZE)

static int get_run(void *ctx, uint64_t rec, uint64_t elem, uint64_t n,
                   uint64_t fstep, ptrdiff_t moff, ptrdiff_t mstep)
{
    xfer *x = ctx;
    const ncs_var *v = x->v;
    size_t xsz = v->xsz;
    uint64_t off = run_offset(x, rec, elem);
    unsigned char *mem = x->buf + moff * (ptrdiff_t)x->msz;
    uint64_t gap = fstep * xsz;              /* bytes between run elements */
    int status = NCS_NOERR;

    /* A read-only file shorter than the data its header describes was cut
     * short: report it rather than make up values.  (netCDF-C reads zeros
     * there, and itself leaves a nofill file short of its last record's
     * end when its close-time size falls below the record variables after
     * a redefinition: doc/format.md.  Those reads fail here too.) */
    if (!(x->f->flags & NCSI_F_WRITE) &&
        off + (n - 1) * gap + xsz > ncsi_pc_logical_size(x->cl->pc))
        return NCSI_CORRUPT(NCS_ETRUNC);

    /* page by page, decoding straight from the cached pages (fast path: the
     * general code below copies through the scratch buffer) */
    if (ncsi_fastpath && (fstep > 1 || (n - 1) * gap + xsz <= IN_PAGE_MAX)) {
        /* the elements in the next page, in one read with this one's
         * where they miss across a boundary */
        if (gap < PAGE_SIZE &&
            (status = ncsi_pc_want(x->cl->pc, off, (n - 1) * gap + xsz)) != NCS_NOERR)
            return status;
        return ncsi_cl_decode_paged(x->cl->pc, off, n, gap, xsz,
                                    ncsi_cl_run_decoder(v->type, x->memtype, x->f->version,
                                                        (ptrdiff_t)fstep, mstep),
                                    mem, mstep, x->msz, &x->erange);
    }
    if (!ncsi_fastpath && fstep == 1 && n * xsz <= PAGE_SIZE) {
        const unsigned char *p = ncsi_pc_span(x->cl->pc, off, (size_t)(n * xsz), 0, &status);
        if (p != NULL) {
            if (ncsi_decode(v->type, p, (size_t)n, x->memtype, mem, mstep, x->f->version))
                x->erange = 1;
            return NCS_NOERR;
        }
        if (status != NCS_NOERR)
            return status;
    }
    if (gap <= 4096) {
        /* read covering spans, as many elements as the scratch holds */
        uint64_t per = (SCRATCH_CAP - xsz) / gap + 1;
        while (n > 0) {
            uint64_t k = n < per ? n : per;
            size_t span = (size_t)((k - 1) * gap + xsz);
            status = ncsi_pc_read(x->cl->pc, off, x->cl->scratch, span);
            if (status != NCS_NOERR)
                return status;
            if (ncsi_decode_strided(v->type, x->cl->scratch, (ptrdiff_t)fstep, (size_t)k,
                                    x->memtype, mem, mstep, x->f->version))
                x->erange = 1;
            n -= k;
            off += k * gap;
            mem += (ptrdiff_t)k * mstep * (ptrdiff_t)x->msz;
        }
        return NCS_NOERR;
    }
    for (uint64_t i = 0; i < n; i++) {
        unsigned char e[8];
        status = ncsi_pc_read(x->cl->pc, off + i * gap, e, xsz);
        if (status != NCS_NOERR)
            return status;
        if (ncsi_decode(v->type, e, 1, x->memtype, mem + (ptrdiff_t)i * mstep * (ptrdiff_t)x->msz,
                        1, x->f->version))
            x->erange = 1;
    }
    return NCS_NOERR;
}

static int put_run(void *ctx, uint64_t rec, uint64_t elem, uint64_t n,
                   uint64_t fstep, ptrdiff_t moff, ptrdiff_t mstep)
{
    xfer *x = ctx;
    const ncs_var *v = x->v;
    size_t xsz = v->xsz;
    uint64_t off = run_offset(x, rec, elem);
    const unsigned char *mem = x->buf + moff * (ptrdiff_t)x->msz;
    uint64_t gap = fstep * xsz;
    int status = NCS_NOERR;

    /* encoding straight into the cached pages; the bytes between strided
     * elements are the page's, read from the file.  A run longer than a
     * page goes to the file directly, as without the fast path (it needs no
     * read of the pages it covers). */
    if (ncsi_fastpath && (n - 1) * gap + xsz <= PAGE_SIZE)
        return ncsi_cl_encode_span(x->f, off, n, gap, xsz, v->type, x->memtype, mem, mstep,
                                   &x->erange);
    if (!ncsi_fastpath && fstep == 1 && n * xsz <= PAGE_SIZE) {
        unsigned char *p = ncsi_pc_span(x->cl->pc, off, (size_t)(n * xsz), 1, &status);
        if (p != NULL) {
            if (ncsi_encode(v->type, p, (size_t)n, x->memtype, mem, mstep, x->f->version))
                x->erange = 1;
            return NCS_NOERR;
        }
        if (status != NCS_NOERR)
            return status;
    }
    if (fstep == 1 || gap <= 4096) {
        uint64_t per = (SCRATCH_CAP - xsz) / gap + 1;
        while (n > 0) {
            uint64_t k = n < per ? n : per;
            size_t span = (size_t)((k - 1) * gap + xsz);
            if (fstep != 1) {
                /* keep the bytes between the elements */
                status = ncsi_pc_read(x->cl->pc, off, x->cl->scratch, span);
                if (status != NCS_NOERR)
                    return status;
            }
            if (ncsi_encode_strided(v->type, x->cl->scratch, (ptrdiff_t)fstep, (size_t)k,
                                    x->memtype, mem, mstep, x->f->version))
                x->erange = 1;
            status = ncsi_pc_write(x->cl->pc, off, x->cl->scratch, span);
            if (status != NCS_NOERR)
                return status;
            n -= k;
            off += k * gap;
            mem += (ptrdiff_t)k * mstep * (ptrdiff_t)x->msz;
        }
        return NCS_NOERR;
    }
    for (uint64_t i = 0; i < n; i++) {
        unsigned char e[8];
        if (ncsi_encode(v->type, e, 1, x->memtype, mem + (ptrdiff_t)i * mstep * (ptrdiff_t)x->msz,
                        1, x->f->version))
            x->erange = 1;
        status = ncsi_pc_write(x->cl->pc, off + i * gap, e, xsz);
        if (status != NCS_NOERR)
            return status;
    }
    return NCS_NOERR;
}

/* Row i of block b through the general run code. */
static int row_get(xfer *x, const ncs_block *b, uint64_t i)
{
    return get_run(x, b->rec + i * b->rrec, b->elem + i * b->rfstep, b->n, b->fstep,
                   b->moff + (ptrdiff_t)i * b->rmstep, b->mstep);
}

static int row_put(xfer *x, const ncs_block *b, uint64_t i)
{
    return put_run(x, b->rec + i * b->rrec, b->elem + i * b->rfstep, b->n, b->fstep,
                   b->moff + (ptrdiff_t)i * b->rmstep, b->mstep);
}

/* A block row by row.  Fast path: rows that lie inside one cached page are
 * decoded from it directly, the page found once for all the rows in it;
 * others (and everything without the fast path) go through get_run. */
static int get_block(void *ctx, const ncs_block *b)
{
    xfer *x = ctx;
    size_t xsz = x->v->xsz;
    uint64_t gap = b->fstep * xsz, rgap = b->rfstep * xsz + b->rrec * x->cl->lay.recsize;
    uint64_t span = (b->n - 1) * gap + xsz, off = run_offset(x, b->rec, b->elem);
    uint64_t lo = 1, hi = 0;                 /* the page at hand: [lo, hi) */
    const unsigned char *page = NULL;
    unsigned char *mem = x->buf + b->moff * (ptrdiff_t)x->msz;
    ptrdiff_t rmem = b->rmstep * (ptrdiff_t)x->msz;
    int status;

    xfer_reach(x, off, b, rgap, span);
    if (!ncsi_fastpath || b->rows == 1 || span > PAGE_SIZE ||
        (!(x->f->flags & NCSI_F_WRITE) &&
         off + (b->rows - 1) * rgap + span > ncsi_pc_logical_size(x->cl->pc)))
        goto rows;
    for (uint64_t i = 0; i < b->rows; i++, off += rgap, mem += rmem) {
        if (off < lo || off + span > hi) {
            if (off % PAGE_SIZE + span > PAGE_SIZE) {
                /* the row straddles two pages */
                status = row_get(x, b, i);
                if (status != NCS_NOERR)
                    return status;
                lo = 1, hi = 0;
                continue;
            }
            /* inside one page, whole: the next rows are read from it too;
             * only an I/O error gives no pointer */
            page = ncsi_pc_page(x->cl->pc, off / PAGE_SIZE, &status);
            if (page == NULL)
                return status;
            lo = off - off % PAGE_SIZE;
            hi = lo + PAGE_SIZE;
        }
        if (ncsi_decode_strided(x->v->type, page + (off - lo), (ptrdiff_t)b->fstep,
                                (size_t)b->n, x->memtype, mem, b->mstep, x->f->version))
            x->erange = 1;
    }
    return NCS_NOERR;
rows:
    for (uint64_t i = 0; i < b->rows; i++) {
        status = row_get(x, b, i);
        if (status != NCS_NOERR)
            return status;
    }
    return NCS_NOERR;
}

/* A block row by row, each row encoded into its cached page when the page
 * holds it whole (fast path), else through put_run. */
static int put_block(void *ctx, const ncs_block *b)
{
    xfer *x = ctx;
    size_t xsz = x->v->xsz;
    uint64_t gap = b->fstep * xsz, rgap = b->rfstep * xsz + b->rrec * x->cl->lay.recsize;
    uint64_t span = (b->n - 1) * gap + xsz, off = run_offset(x, b->rec, b->elem);
    const unsigned char *mem = x->buf + b->moff * (ptrdiff_t)x->msz;
    ptrdiff_t rmem = b->rmstep * (ptrdiff_t)x->msz;
    int status = NCS_NOERR;

    xfer_reach(x, off, b, rgap, span);
    for (uint64_t i = 0; i < b->rows; i++, off += rgap, mem += rmem) {
        unsigned char *p = NULL;
        if (ncsi_fastpath && span <= PAGE_SIZE && off % PAGE_SIZE + span <= PAGE_SIZE) {
            p = ncsi_pc_span(x->cl->pc, off, (size_t)span, 1, &status);
            if (status != NCS_NOERR)
                return status;
        }
        if (p != NULL) {
            if (ncsi_encode_strided(x->v->type, p, (ptrdiff_t)b->fstep, (size_t)b->n,
                                    x->memtype, mem, b->mstep, x->f->version))
                x->erange = 1;
            continue;
        }
        status = row_put(x, b, i);
        if (status != NCS_NOERR)
            return status;
    }
    return NCS_NOERR;
}

/* The span of a general request, from what its blocks reached. */
static int note_xfer(const xfer *x, int varid, int write)
{
    if (!x->cl->nb.active || varid >= x->cl->nfast || x->hi == 0)
        return NCS_NOERR;
    return note_data(x->cl, x->lo, x->hi - x->v->xsz, (int)x->v->xsz, write);
}

int ncsi_cl_get(ncs_file *f, int varid, const ncs_slab *s, int memtype, void *buf)
{
    xfer x = { f, CL(f), &f->model.vars[varid], memtype, ncsi_type_size(memtype), buf, 0,
               UINT64_MAX, 0 };
    int status;
    if (f->flags & NCSI_F_SHARE) {
        /* another process may have written: read from the file */
        status = ncsi_pc_invalidate(x.cl->pc);
        if (status != NCS_NOERR)
            return status;
    }
    status = ncsi_slab_blocks(s, x.v->dsizes, get_block, &x);
    if (status == NCS_NOERR)
        status = note_xfer(&x, varid, 0);
    if (status == NCS_NOERR && x.erange)
        status = NCS_ERANGE;
    return status;
}

/* 1 when s writes every byte v has in records [from, to), padding
 * included (v has none, or its records are packed): filling them first
 * would only write what the put overwrites. */
static int covers_records(const ncs_file *f, const ncs_var *v, const ncs_slab *s,
                          uint64_t from, uint64_t to)
{
    if (!(ncsi_cl_count_recvars(&f->model) == 1 || v->len == v->dsizes[0] * v->xsz))
        return 0;
    if (s->stride[0] != 1 || s->start[0] > from || s->start[0] + s->count[0] < to)
        return 0;
    for (int d = 1; d < s->ndims; d++)
        if (s->start[d] != 0 || s->stride[d] != 1 || s->count[d] != v->shape[d])
            return 0;
    return 1;
}

int ncsi_cl_put(ncs_file *f, int varid, const ncs_slab *s, int memtype, const void *buf)
{
    xfer x = { f, CL(f), &f->model.vars[varid], memtype, ncsi_type_size(memtype),
               (unsigned char *)buf, 0, UINT64_MAX, 0 };
    int status = NCS_NOERR, skipped = 0;
    uint64_t old_numrecs = f->model.numrecs;
    int old_flags = f->flags;
    if (x.v->isrec) {
        uint64_t end = s->recs_needed;
        if (end > f->model.numrecs) {
            if (!(f->flags & NCSI_F_NOFILL)) {
                skipped = covers_records(f, x.v, s, f->model.numrecs, end) &&
                          ncsi_cl_rec_fills_ok(&f->model);
                status = ncsi_cl_fill_records(f, end, skipped ? varid : -1);
            }
            if (status != NCS_NOERR)
                return status;
            f->model.numrecs = end;
            f->flags |= NCSI_F_NDIRTY;
            ncsi_cl_fast_numrecs(f);
        }
    }
    status = ncsi_slab_blocks(s, x.v->dsizes, put_block, &x);
    if (status == NCS_NOERR || status == NCS_ERANGE) {
        int s2 = note_xfer(&x, varid, 1);
        if (s2 != NCS_NOERR)
            status = s2;
    }
    if (status != NCS_NOERR && status != NCS_ERANGE && skipped) {
        /* the new records hold neither this put's values nor fill: they
         * do not exist */
        f->model.numrecs = old_numrecs;
        f->flags = (f->flags & ~NCSI_F_NDIRTY) | (old_flags & NCSI_F_NDIRTY);
        ncsi_cl_fast_numrecs(f);
        return status;
    }
    if (status == NCS_NOERR && (f->flags & NCSI_F_SHARE))
        status = ncsi_cl_flush_shared(f);
    if (status == NCS_NOERR && x.erange)
        status = NCS_ERANGE;
    return status;
}
