/*
 * slab.c -- the hyperslab engine.
 *
 * Turns one validated request (start, count, stride, imap) on a variable of
 * a given shape into runs: sequences of elements equally spaced both in the
 * variable and in memory.  It knows nothing about storage; a back end maps
 * each run to bytes (the classic back end to file offsets, the chunked one
 * to chunks).
 *
 * Dimensions with a count of 1 drop out; adjacent dimensions whose steps
 * chain (outer step == inner count * inner step, in the variable and in
 * memory alike) merge, so a whole contiguous block is one run however many
 * dimensions it spans.  The record dimension is never merged: consecutive
 * records are not adjacent in a file.
 *
 * ncsi_slab_blocks hands the runs over two dimensions at a time (a block of
 * rows), so a back end moves a block in one loop instead of one call per
 * run; a request of one run per record makes the records the rows.
 * ncsi_slab_runs is the same walk, one run at a time.
 */
#include "engine.h"

#include <stdlib.h>
#include <string.h>

int ncsi_slab_init(ncs_slab *s, int ndims)
{
    uint64_t *a = s->inl;
    s->heap = NULL;
    s->ndims = ndims;
    if (ndims > NCSI_SLAB_INLINE) {
        a = s->heap = ncsi_malloc(4 * (size_t)ndims * sizeof *a);
        if (a == NULL)
            return NCS_ERR(NCS_ENOMEM);
    }
    s->start = a;
    s->count = a + ndims;
    s->stride = a + 2 * (size_t)ndims;
    s->imap = (ptrdiff_t *)(a + 3 * (size_t)ndims);
    return NCS_NOERR;
}

void ncsi_slab_release(ncs_slab *s)
{
    free(s->heap);
    s->heap = NULL;
}

int ncsi_slab_copy(ncs_slab *dst, const ncs_slab *src)
{
    int nd = src->ndims, status = ncsi_slab_init(dst, nd);
    if (status != NCS_NOERR)
        return status;
    dst->isrec = src->isrec;
    dst->nelems = src->nelems;
    dst->recs_needed = src->recs_needed;
    for (int d = 0; d < nd; d++) {
        dst->start[d] = src->start[d];
        dst->count[d] = src->count[d];
        dst->stride[d] = src->stride[d];
        dst->imap[d] = src->imap[d];
    }
    return NCS_NOERR;
}

typedef struct sdim {
    uint64_t count;
    uint64_t fstep;        /* variable elements between consecutive indices */
    ptrdiff_t mstep;       /* memory elements between consecutive indices */
} sdim;

int ncsi_slab_blocks(const ncs_slab *s, const uint64_t *dsizes, ncs_block_fn fn,
                     void *ctx)
{
    sdim dim_inl[NCSI_SLAB_INLINE], *dim = dim_inl;
    uint64_t idx_inl[NCSI_SLAB_INLINE], *idx = idx_inl;
    int nd = s->ndims, first = s->isrec ? 1 : 0, k = 0, status = NCS_NOERR;
    uint64_t base = 0, nrec;
    ncs_block b;

    if (s->nelems == 0)
        return NCS_NOERR;
    b.rec = 0, b.elem = 0, b.n = 1, b.fstep = 1, b.rows = 1, b.rrec = 0, b.rfstep = 1;
    b.moff = 0, b.mstep = 1, b.rmstep = 0;
    if (nd == 0)
        return fn(ctx, &b);
    if (nd > NCSI_SLAB_INLINE) {
        dim = ncsi_malloc((size_t)nd * sizeof *dim);
        idx = ncsi_malloc((size_t)nd * sizeof *idx);
        if (dim == NULL || idx == NULL) {
            free(dim);
            free(idx);
            return NCS_ERR(NCS_ENOMEM);
        }
    }

    for (int d = first; d < nd; d++) {
        uint64_t unit = d + 1 < nd ? dsizes[d + 1] : 1;
        base += s->start[d] * unit;
        if (s->count[d] == 1)
            continue;
        if (k > 0 && dim[k - 1].fstep == s->count[d] * s->stride[d] * unit &&
            dim[k - 1].mstep == (ptrdiff_t)s->count[d] * s->imap[d]) {
            dim[k - 1].count *= s->count[d];
            dim[k - 1].fstep = s->stride[d] * unit;
            dim[k - 1].mstep = s->imap[d];
            continue;
        }
        dim[k].count = s->count[d];
        dim[k].fstep = s->stride[d] * unit;
        dim[k].mstep = s->imap[d];
        k++;
    }
    /* the last merged dimension is the run, the one before it the rows;
     * dims 0..k-1 left are the odometer */
    if (k > 0) {
        k--;
        b.n = dim[k].count;
        b.fstep = dim[k].fstep;
        b.mstep = dim[k].mstep;
    }
    if (k > 0) {
        k--;
        b.rows = dim[k].count;
        b.rfstep = dim[k].fstep;
        b.rmstep = dim[k].mstep;
    }
    nrec = s->isrec ? s->count[0] : 1;
    if (nrec > 1 && b.rows == 1) {
        /* one run per record: the records are the rows */
        b.rows = nrec;
        b.rrec = s->stride[0];
        b.rfstep = 0;
        b.rmstep = s->imap[0];
        nrec = 1;
    }
    for (uint64_t r = 0; r < nrec; r++) {
        b.rec = s->isrec ? s->start[0] + r * s->stride[0] : 0;
        b.elem = base;
        b.moff = s->isrec ? (ptrdiff_t)r * s->imap[0] : 0;
        for (int j = 0; j < k; j++)
            idx[j] = 0;
        for (;;) {
            int j;
            status = fn(ctx, &b);
            if (status != NCS_NOERR)
                goto done;
            for (j = k - 1; j >= 0; j--) {
                if (++idx[j] < dim[j].count) {
                    b.elem += dim[j].fstep;
                    b.moff += dim[j].mstep;
                    break;
                }
                b.elem -= (idx[j] - 1) * dim[j].fstep;
                b.moff -= (ptrdiff_t)(idx[j] - 1) * dim[j].mstep;
                idx[j] = 0;
            }
            if (j < 0)
                break;
        }
    }
done:
    if (dim != dim_inl) {
        free(dim);
        free(idx);
    }
    return status;
}

typedef struct rows_ctx {
    ncs_run_fn run;
    void *ctx;
} rows_ctx;

static int rows_as_runs(void *ctx, const ncs_block *b)
{
    const rows_ctx *rc = ctx;
    for (uint64_t i = 0; i < b->rows; i++) {
        int status = rc->run(rc->ctx, b->rec + i * b->rrec, b->elem + i * b->rfstep, b->n, b->fstep,
                             b->moff + (ptrdiff_t)i * b->rmstep, b->mstep);
        if (status != NCS_NOERR)
            return status;
    }
    return NCS_NOERR;
}

int ncsi_slab_runs(const ncs_slab *s, const uint64_t *dsizes, ncs_run_fn run,
                   void *ctx)
{
    rows_ctx rc = { run, ctx };
    return ncsi_slab_blocks(s, dsizes, rows_as_runs, &rc);
}

/* ---- slab x chunk grid -----------------------------------------------------
 * For each dimension the request's indices start + i*stride (i < count) fall
 * into chunks in runs of consecutive i; a segment is one such run.  Every
 * combination of one segment per dimension is one chunk's part of the
 * request, handed to fn as a slab local to that chunk. */
typedef struct seg {
    uint64_t c;            /* chunk coordinate */
    uint64_t i0, n;        /* first i and how many */
} seg;

int ncsi_slab_chunks(const ncs_slab *s, const uint64_t *chunk, ncs_chunk_fn fn, void *ctx)
{
    seg local[256];
    seg *segs = local, *dseg_inl[NCSI_SLAB_INLINE], **dseg = dseg_inl;
    uint64_t arr_inl[3 * NCSI_SLAB_INLINE], *arr = arr_inl, *nseg, *pos, *ccoord;
    uint64_t total = 0;
    ncs_slab sub;
    int nd = s->ndims, status;

    if (s->nelems == 0)
        return NCS_NOERR;
    status = ncsi_slab_copy(&sub, s);
    if (status != NCS_NOERR)
        return status;
    sub.isrec = 0;
    if (nd == 0) {
        uint64_t origin = 0;
        status = fn(ctx, &origin, &sub, 0);
        ncsi_slab_release(&sub);
        return status;
    }
    /* the common small request: everything inside one chunk */
    if (nd <= NCSI_SLAB_INLINE) {
        int d;
        for (d = 0; d < nd; d++) {
            uint64_t c = s->start[d] / chunk[d];
            if ((s->start[d] + (s->count[d] - 1) * s->stride[d]) / chunk[d] != c)
                break;
            arr_inl[d] = c;
            sub.start[d] = s->start[d] - c * chunk[d];
        }
        if (d == nd) {
            status = fn(ctx, arr_inl, &sub, 0);
            ncsi_slab_release(&sub);
            return status;
        }
        for (d = 0; d < nd; d++)
            sub.start[d] = s->start[d];
    }
    if (nd > NCSI_SLAB_INLINE) {
        dseg = ncsi_malloc((size_t)nd * sizeof *dseg);
        arr = ncsi_malloc(3 * (size_t)nd * sizeof *arr);
        if (dseg == NULL || arr == NULL) {
            free(dseg);
            free(arr);
            ncsi_slab_release(&sub);
            return NCS_ERR(NCS_ENOMEM);
        }
    }
    nseg = arr;
    pos = arr + nd;
    ccoord = arr + 2 * (size_t)nd;
    /* a dimension has at most min(count, chunks spanned) segments */
    for (int d = 0; d < nd; d++) {
        uint64_t first = s->start[d] / chunk[d];
        uint64_t last = (s->start[d] + (s->count[d] - 1) * s->stride[d]) / chunk[d];
        uint64_t k = last - first + 1;
        nseg[d] = k < s->count[d] ? k : s->count[d];
        total += nseg[d];
    }
    if (total > sizeof local / sizeof local[0]) {
        segs = ncsi_malloc((size_t)total * sizeof *segs);
        if (segs == NULL) {
            status = NCS_ERR(NCS_ENOMEM);
            goto done;
        }
    }
    total = 0;
    for (int d = 0; d < nd; d++) {
        uint64_t i = 0, k = 0;
        dseg[d] = segs + total;
        while (i < s->count[d]) {
            uint64_t idx = s->start[d] + i * s->stride[d];
            uint64_t c = idx / chunk[d];
            uint64_t end = (c + 1) * chunk[d];         /* first index past the chunk */
            uint64_t n = (end - idx + s->stride[d] - 1) / s->stride[d];
            if (n > s->count[d] - i)
                n = s->count[d] - i;
            dseg[d][k].c = c;
            dseg[d][k].i0 = i;
            dseg[d][k].n = n;
            k++;
            i += n;
        }
        nseg[d] = k;
        total += k;
    }
    for (int d = 0; d < nd; d++)
        pos[d] = 0;
    for (;;) {
        ptrdiff_t moff = 0;
        int d;
        sub.nelems = 1;
        for (d = 0; d < nd; d++) {
            const seg *g = &dseg[d][pos[d]];
            ccoord[d] = g->c;
            sub.start[d] = s->start[d] + g->i0 * s->stride[d] - g->c * chunk[d];
            sub.count[d] = g->n;
            sub.nelems *= g->n;
            moff += (ptrdiff_t)g->i0 * s->imap[d];
        }
        status = fn(ctx, ccoord, &sub, moff);
        if (status != NCS_NOERR)
            break;
        for (d = nd - 1; d >= 0; d--) {
            if (++pos[d] < nseg[d])
                break;
            pos[d] = 0;
        }
        if (d < 0)
            break;
    }
done:
    if (segs != local)
        free(segs);
    if (dseg != dseg_inl) {
        free(dseg);
        free(arr);
    }
    ncsi_slab_release(&sub);
    return status;
}
