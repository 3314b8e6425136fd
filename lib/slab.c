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
 */
#include "ncs_int.h"

#include <stdlib.h>

typedef struct sdim {
    uint64_t count;
    uint64_t fstep;        /* variable elements between consecutive indices */
    ptrdiff_t mstep;       /* memory elements between consecutive indices */
} sdim;

int ncsi_slab_runs(const ncs_slab *s, const uint64_t *dsizes, ncs_run_fn run,
                   void *ctx)
{
    sdim dim[NCS_MAX_VAR_DIMS];
    uint64_t idx[NCS_MAX_VAR_DIMS];
    int nd = s->ndims, first = s->isrec ? 1 : 0, k = 0;
    uint64_t base = 0, nrec, n, fstep;
    ptrdiff_t mstep;

    if (s->nelems == 0)
        return NCS_NOERR;
    if (nd == 0)
        return run(ctx, 0, 0, 1, 1, 0, 1);

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
    if (k == 0) {
        n = 1;
        fstep = 1;
        mstep = 1;
    } else {
        k--;
        n = dim[k].count;
        fstep = dim[k].fstep;
        mstep = dim[k].mstep;
    }
    /* dims 0..k-1 are the odometer; dim k (if any) is the run */
    nrec = s->isrec ? s->count[0] : 1;
    for (uint64_t r = 0; r < nrec; r++) {
        uint64_t rec = s->isrec ? s->start[0] + r * s->stride[0] : 0;
        ptrdiff_t mbase = s->isrec ? (ptrdiff_t)r * s->imap[0] : 0;
        uint64_t elem = base;
        ptrdiff_t moff = mbase;
        for (int j = 0; j < k; j++)
            idx[j] = 0;
        for (;;) {
            int status = run(ctx, rec, elem, n, fstep, moff, mstep);
            int j;
            if (status != NCS_NOERR)
                return status;
            for (j = k - 1; j >= 0; j--) {
                if (++idx[j] < dim[j].count) {
                    elem += dim[j].fstep;
                    moff += dim[j].mstep;
                    break;
                }
                elem -= (idx[j] - 1) * dim[j].fstep;
                moff -= (ptrdiff_t)(idx[j] - 1) * dim[j].mstep;
                idx[j] = 0;
            }
            if (j < 0)
                break;
        }
    }
    return NCS_NOERR;
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
    seg *segs = local, *dseg[NCS_MAX_VAR_DIMS];
    uint64_t nseg[NCS_MAX_VAR_DIMS], pos[NCS_MAX_VAR_DIMS], ccoord[NCS_MAX_VAR_DIMS];
    uint64_t total = 0;
    ncs_slab sub;
    int nd = s->ndims, status = NCS_NOERR;

    if (s->nelems == 0)
        return NCS_NOERR;
    if (nd == 0) {
        sub = *s;
        sub.isrec = 0;
        ccoord[0] = 0;
        return fn(ctx, ccoord, &sub, 0);
    }
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
        if (segs == NULL)
            return NCS_ERR(NCS_ENOMEM);
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
    sub = *s;
    sub.isrec = 0;
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
    if (segs != local)
        free(segs);
    return status;
}
