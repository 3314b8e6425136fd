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
