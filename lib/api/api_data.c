/*
 * api_data.c -- public entry points for data: ncs_get, ncs_put and their
 * one-element forms (but ncs_get1's fast path, in api_get1.c).
 *
 * All validation of a request happens here; the hyperslab engine and the
 * back ends below receive a slab that is known to lie inside the variable
 * (or, for puts, inside it once the record dimension has grown).
 *
 * netCDF-C checks a request differently depending on which of its calls
 * made it: vara (no stride, no map), vars (stride) or varm (map).  The
 * error codes differ in corner cases (reading past the last record of a
 * writable file is NC_EEDGE through vara, for instance), and legacy
 * programs see them, so the three orders are reproduced here.  A strided
 * request whose count fits but whose stride steps past the end transfers
 * the elements that exist and then fails, as netCDF-C's element-wise
 * fallback does.
 */
#include "api.h"

#include <stdlib.h>
#include <string.h>

enum { PATH_VARA, PATH_VARS, PATH_VARM };

typedef struct request {
    ncs_file *f;
    ncs_var *v;
    int memtype;
    int put;
} request;

/* A data call in define mode: NCS_EINDEFINE, but in a netCDF-4 file not
 * marked classic-model, where netCDF-C leaves define mode for it, the
 * enddef (and its status). */
static int indef_check(ncs_file *f)
{
    if (!(f->flags & NCSI_F_INDEF))
        return NCS_NOERR;
    if (f->version == 4 && (f->flags & NCSI_F_NC4))
        return ncs_enddef(f->ncid);
    return NCS_ERR(NCS_EINDEFINE);
}

/* Finds the file and variable and settles the memory type.  The order of
 * the checks is netCDF-C's, which depends on the call and the back end:
 *   - a classic file's vara path (one-element calls included) checks the
 *     mode first and answers NCS_EGLOBAL for NCS_GLOBAL, but a vara call
 *     with no memory type (nc_get_vara) first asks the variable's type, so
 *     a bad varid is NCS_ENOTVAR before the mode;
 *   - its strided and mapped paths start by inquiring the variable (so
 *     NCS_ENOTVAR) and meet the mode checks only when they transfer;
 *   - a netCDF-4 file finds the variable first (NCS_ENOTVAR, NCS_GLOBAL
 *     included), then the conversion (NCS_ECHAR) and then the mode, on its
 *     vara and vars paths (a file not marked classic-model leaves define
 *     mode instead, as netCDF-C's does for a data call), but
 *     a write to a read-only file fails only once the coordinates and
 *     edges have been checked (netCDF-C has no check of its own there: HDF5
 *     refuses the write, doc/v2.md bug 5); its
 *     mapped path is netCDF-C's generic one, which meets the mode only
 *     when it transfers (so a mapped write of nothing to a read-only file
 *     returns 0).
 * one: a one-element call (ncs_get1, ncs_put1). */
static int lookup(int ncid, int varid, int memtype, int put, int path, int one,
                  request *r)
{
    ncs_file *f = ncsi_file_get(ncid);
    int nc4;
    if (f == NULL)
        return NCS_ERR(NCS_EBADID);
    r->f = f;
    r->put = put;
    nc4 = f->version == 4;
    if ((nc4 || (memtype == NCS_NAT && !one)) && (varid < 0 || varid >= f->model.nvars))
        return NCS_ERR(NCS_ENOTVAR);
    if (path == PATH_VARA && !nc4) {
        if (put && !(f->flags & NCSI_F_WRITE))
            return NCS_ERR(NCS_EPERM);
        if (f->flags & NCSI_F_INDEF)
            return NCS_ERR(NCS_EINDEFINE);
        if (varid == NCS_GLOBAL)
            return NCS_ERR(NCS_EGLOBAL);
    }
    if (varid < 0 || varid >= f->model.nvars)
        return NCS_ERR(NCS_ENOTVAR);
    r->v = &f->model.vars[varid];
    if (memtype == NCS_NAT)
        memtype = r->v->type;
    /* netCDF-C's netCDF-4 code checks text against numbers, then the mode,
     * and meets a memory type it has no conversion for only after that */
    if (nc4 && (path == PATH_VARA || path == PATH_VARS)) {
        int status;
        if ((memtype == NCS_CHAR) != (r->v->type == NCS_CHAR))
            return NCS_ERR(NCS_ECHAR);
        status = indef_check(f);
        if (status != NCS_NOERR)
            return status;
    }
    if (ncsi_type_size(memtype) == 0)
        return NCS_ERR(NCS_EBADTYPE);
    if ((memtype == NCS_CHAR) != (r->v->type == NCS_CHAR))
        return NCS_ERR(NCS_ECHAR);
    r->memtype = memtype;
    return NCS_NOERR;
}

static int mode_check(const request *r)
{
    if (r->put && !(r->f->flags & NCSI_F_WRITE))
        return NCS_ERR(NCS_EPERM);
    return indef_check(r->f);
}

/* In a read-only shared file another process may have added records.  A
 * record count that cannot be re-read fails the request with that error,
 * as netCDF-C's coordinate check fails when its re-read of numrecs does:
 * going on with the old count would report a bad edge or coordinate for
 * what is an I/O error. */
static int maybe_refresh(request *r, const size_t *start, const size_t *count)
{
    ncs_file *f = r->f;
    if (r->v->isrec && !(f->flags & NCSI_F_WRITE) && (f->flags & NCSI_F_SHARE) &&
        start[0] + (count ? count[0] : 1) > f->model.numrecs)
        return ncsi_store_refresh(f);
    return NCS_NOERR;
}

/* Length of dimension d of the request's variable as a bound: the record
 * count for reads, unbounded for writes of the record dimension. */
static uint64_t dim_bound(const request *r, int d, int *unbounded)
{
    *unbounded = 0;
    if (d == 0 && r->v->isrec) {
        if (r->put)
            *unbounded = 1;
        return r->f->model.numrecs;
    }
    return r->v->shape[d];
}

/* netCDF-C's vara checks: every coordinate, then every edge. */
static int check_vara(const request *r, const size_t *start, const size_t *count)
{
    const ncs_var *v = r->v;
    int ro = !(r->f->flags & NCSI_F_WRITE);
    uint64_t numrecs = r->f->model.numrecs;
    for (int d = 0; d < v->ndims; d++) {
        if (d == 0 && v->isrec) {
            /* netCDF-C's sanity limit, in every format */
            if (start[0] > UINT32_MAX)
                return NCS_ERR(NCS_EINVALCOORDS);
            if (ro && start[0] > numrecs)
                return NCS_ERR(NCS_EINVALCOORDS);
            continue;
        }
        if (start[d] > v->shape[d])
            return NCS_ERR(NCS_EINVALCOORDS);
    }
    for (int d = 0; d < v->ndims; d++) {
        if (d == 0 && v->isrec) {
            if (ro && start[0] == numrecs && count[0] > 0)
                return NCS_ERR(NCS_EINVALCOORDS);
            continue;
        }
        if (start[d] == v->shape[d] && count[d] > 0)
            return NCS_ERR(NCS_EINVALCOORDS);
        if (count[d] > v->shape[d] - start[d])
            return NCS_ERR(NCS_EEDGE);
    }
    if (v->isrec && !r->put && (start[0] > numrecs || count[0] > numrecs - start[0]))
        return NCS_ERR(NCS_EEDGE);
    return NCS_NOERR;
}

/* netCDF-C refuses strides that are not positive or reach 2^31-1. */
static int bad_stride(ptrdiff_t s)
{
    return s <= 0 || s >= INT32_MAX;
}

/* netCDF-C's netCDF-4 checks of a request, strided or not: every stride,
 * then each dimension in turn, its start inside (or at the end with
 * nothing to move) and its last index inside; nothing moves when one is
 * not.  A write does not check the record dimension, which grows, nor the
 * last index when it moves nothing at all. */
static int check_nc4(const request *r, const size_t *start, const size_t *count,
                     const ptrdiff_t *stride)
{
    const ncs_var *v = r->v;
    int empty = 0;
    for (int d = 0; d < v->ndims; d++) {
        if (stride != NULL && bad_stride(stride[d]))
            return NCS_ERR(NCS_ESTRIDE);
        empty |= count[d] == 0;
    }
    for (int d = 0; d < v->ndims; d++) {
        int unb;
        uint64_t len = dim_bound(r, d, &unb), last;
        uint64_t st = stride != NULL ? (uint64_t)stride[d] : 1;
        if (unb)
            continue;
        if (start[d] > len || (start[d] == len && count[d] > 0))
            return NCS_ERR(NCS_EINVALCOORDS);
        if (count[d] > 0 && !(r->put && empty) &&
            (ncsi_mul_u64(st, count[d] - 1, &last) || ncsi_add_u64(last, start[d], &last) ||
             last >= len))
            return NCS_ERR(NCS_EEDGE);
    }
    return NCS_NOERR;
}

static int all_ones(const ptrdiff_t *stride, int nd)
{
    for (int d = 0; d < nd; d++)
        if (stride[d] != 1)
            return 0;
    return 1;
}

/* netCDF-C's vars checks, dimension by dimension: coordinates then the
 * stride of each dimension.  Reads bound the record dimension by the
 * record count; writes do not check it. */
static int check_vars(const request *r, const size_t *start, const size_t *count,
                      const ptrdiff_t *stride)
{
    for (int d = 0; d < r->v->ndims; d++) {
        int unb;
        uint64_t len = dim_bound(r, d, &unb);
        if (!unb) {
            if (start[d] > len)
                return NCS_ERR(NCS_EINVALCOORDS);
            if (start[d] == len && count[d] > 0)
                return NCS_ERR(NCS_EINVALCOORDS);
            if (count[d] > len - start[d])
                return NCS_ERR(NCS_EEDGE);
        }
        if (bad_stride(stride[d]))
            return NCS_ERR(NCS_ESTRIDE);
    }
    return NCS_NOERR;
}

/* netCDF-C's varm checks: strides first, then coordinates, from the last
 * dimension to the first for reads and from the first for writes (which
 * skip the record dimension). */
static int check_varm(const request *r, const size_t *start, const size_t *count,
                      const ptrdiff_t *stride)
{
    int nd = r->v->ndims;
    if (stride != NULL)
        for (int d = 0; d < nd; d++)
            if (stride[d] == 0 || (size_t)stride[d] >= INT32_MAX)
                return NCS_ERR(NCS_ESTRIDE);
    for (int i = 0; i < nd; i++) {
        int d = r->put ? i : nd - 1 - i, unb;
        uint64_t len = dim_bound(r, d, &unb);
        if (unb)
            continue;
        if (start[d] > len || (start[d] == len && count[d] > 0))
            return NCS_ERR(NCS_EINVALCOORDS);
        if (count[d] > len - start[d])
            return NCS_ERR(NCS_EEDGE);
    }
    return NCS_NOERR;
}

static int any_zero(const size_t *count, int nd)
{
    for (int d = 0; d < nd; d++)
        if (count[d] == 0)
            return 1;
    return 0;
}

/* The largest record count a put may make: what the header can hold, and
 * for netCDF-4 what an HDF5 extent can be. */
static uint64_t max_records(const ncs_file *f)
{
    return f->version == 5 || f->version == 4 ? (uint64_t)INT64_MAX : UINT32_MAX - 1;
}

/* A strided or mapped put on a record variable whose record start is out
 * of reach: netCDF-C's classic code writes such a request element by
 * element, and each element past its sanity limit (UINT32_MAX, in every
 * classic format) is NCS_EINVALCOORDS once the mode has been checked.  A
 * start so large that the request wraps past 2^64 is the same error here
 * (netCDF-C returns 0 for it without writing; netCDF-4 fails in HDF5:
 * doc/v2.md). */
static int late_record_start(const request *r, const ncs_slab *s)
{
    uint64_t last;
    if (!r->put || !r->v->isrec || s->nelems == 0)
        return NCS_NOERR;
    if ((r->f->version != 4 && s->start[0] > UINT32_MAX) ||
        ncsi_mul_u64(s->count[0] - 1, s->stride[0], &last) ||
        ncsi_add_u64(last, s->start[0], &last) || last >= (uint64_t)INT64_MAX)
        return NCS_ERR(NCS_EINVALCOORDS);
    return NCS_NOERR;
}

/* Builds the slab, clipping strided extents that step past a bound; returns
 * the error such a clip implies (0 when nothing was clipped). */
static int build_slab(const request *r, int path, const size_t *start,
                      const size_t *count, const ptrdiff_t *stride,
                      const ptrdiff_t *imap, ncs_slab *s, int *clip_err)
{
    const ncs_var *v = r->v;
    int nd = v->ndims;
    uint64_t nelems = 1, nelems_all = 1, natural = 1;
    int rec_only = 1, clipped = 0, wide = 0;

    int status = ncsi_slab_init(s, nd);
    *clip_err = NCS_NOERR;
    if (status != NCS_NOERR)
        return status;
    s->isrec = v->isrec;
    for (int d = nd - 1; d >= 0; d--) {
        int unb;
        uint64_t len = dim_bound(r, d, &unb);
        uint64_t st = stride != NULL ? (uint64_t)stride[d] : 1;
        uint64_t c = count[d];
        s->start[d] = start[d];
        s->stride[d] = st;
        if (!unb && c > 0 && st > 1 && start[d] + (c - 1) * st >= len) {
            /* elements that exist: indices start + i*st < len */
            c = (len - start[d] + st - 1) / st;
            clipped = 1;
            if (!(d == 0 && v->isrec))
                rec_only = 0;
        }
        s->count[d] = c;
        s->imap[d] = imap != NULL ? imap[d] : (ptrdiff_t)natural;
        /* only a record count is unchecked so far; a request of more
         * elements than memory can address is too long an edge */
        wide |= ncsi_mul_u64(natural, count[d], &natural) || natural > (uint64_t)PTRDIFF_MAX;
        nelems *= c;
        nelems_all *= count[d];
    }
    if (wide && !any_zero(count, nd))
        return NCS_ERR(NCS_EEDGE);
    s->nelems = nd == 0 ? 1 : nelems;
    /* Records a put needs.  netCDF-C's vara path grows the record count to
     * start + count even when nothing is written (a zero count); its
     * strided and mapped paths return early instead. */
    s->recs_needed = 0;
    if (r->put && v->isrec) {
        /* the record count must stay within what the header can hold */
        uint64_t max = max_records(r->f);
        uint64_t last;
        if (path == PATH_VARA && r->f->version == 4 && any_zero(count, nd)) {
            /* netCDF-4 files grow only by data written: an empty write
             * neither grows nor checks the record start */
        } else if (path == PATH_VARA) {
            /* (a classic start past its limit was refused already) */
            if (start[0] > max)
                return NCS_ERR(NCS_EINVALCOORDS);
            if (count[0] > max - start[0])
                return NCS_ERR(NCS_EEDGE);
            s->recs_needed = start[0] + count[0];
        } else if (s->nelems > 0 && late_record_start(r, s) == NCS_NOERR) {
            if (ncsi_mul_u64(s->count[0] - 1, s->stride[0], &last) || start[0] > max ||
                last >= max - start[0])
                return NCS_ERR(NCS_EEDGE);
            s->recs_needed = start[0] + last + 1;
        }
    }
    *clip_err = NCS_NOERR;
    if (clipped && nelems_all > 0) {
        int ro = !(r->f->flags & NCSI_F_WRITE);
        /* (netCDF-C's netCDF-4 code: past the records is a coordinate
         * error in any mode) */
        *clip_err = (rec_only && !ro && r->f->version != 4) ? NCS_ERR(NCS_EEDGE)
                                                           : NCS_ERR(NCS_EINVALCOORDS);
    }
    return NCS_NOERR;
}

/* The memory span of the request must be addressable: the sum of
 * |imap[d]| * (count[d]-1) elements, in bytes, must fit a ptrdiff_t. */
static int check_memory(const ncs_slab *s, size_t msz)
{
    uint64_t span = 0;
    for (int d = 0; d < s->ndims; d++) {
        uint64_t m = (uint64_t)(s->imap[d] < 0 ? -(s->imap[d] + 1) + 1 : s->imap[d]), t;
        if (s->count[d] == 0)
            return NCS_NOERR;
        if (ncsi_mul_u64(m, s->count[d] - 1, &t) || ncsi_add_u64(span, t, &span))
            return NCS_ERR(NCS_EINVAL);
    }
    if (ncsi_mul_u64(span + 1, msz, &span) || span > (uint64_t)PTRDIFF_MAX)
        return NCS_ERR(NCS_EINVAL);
    return NCS_NOERR;
}

/* Mapped gets (a map that is not the natural order) are the engine's
 * (ncsi_get_mapped); the store supplies each piece, through its plain
 * path and its view.  A fast path, off with NCSLAB_FASTPATH=0: the general
 * path hands the map to the store, which moves the elements run by run. */
typedef struct mapped_ctx {
    ncs_file *f;
    int varid;
    int memtype;
} mapped_ctx;

static int mapped_read(void *ctx, const ncs_slab *p, const size_t *pst, const size_t *pct,
                       void *dense)
{
    const mapped_ctx *c = ctx;
    int status = NCSI_DECLINED;
    if (pst != NULL)
        status = ncsi_store_get_vara(c->f, c->varid, pst, pct, c->memtype, dense);
    if (status == NCSI_DECLINED)
        status = ncsi_store_get(c->f, c->varid, p, c->memtype, dense);
    return status;
}

/* p (count and imap set, start and count also in pst and pct) placed into
 * buf from the store's view of it, in pieces along the dimension outside
 * its planes (scratch for those across two pages of the cache);
 * NCSI_DECLINED where there is none.  Only for memtype the variable's own
 * type (msz bytes). */
static int place_view(ncs_file *f, int varid, const size_t *pst, const size_t *pct,
                      const ncs_slab *p, size_t msz, void *buf, unsigned char *scratch,
                      size_t nscratch)
{
    ncsi_view v;
    int pd = ncsi_slab_pieces_dim(p);
    if ((pd >= 0 && pct[pd] > NCSI_VIEW_MAX) ||
        ncsi_store_view(f, varid, pst, pct, pd, v.from, &v.apart, v.bstep, &v.swap, scratch,
                       nscratch) != NCS_NOERR)
        return NCSI_DECLINED;
    return ncsi_place_viewed(p, pd, &v, buf, msz);
}

static int mapped_place_view(void *ctx, const ncs_slab *p, const size_t *pst,
                             const size_t *pct, void *buf, unsigned char *scratch,
                             size_t nscratch)
{
    const mapped_ctx *c = ctx;
    return place_view(c->f, c->varid, pst, pct, p, ncsi_type_size(c->memtype), buf, scratch,
                      nscratch);
}

/* What the engine needs of f's store: pieces read plainly where the store
 * has a plain path for the variable, and seen through its view where it
 * has one and memtype is the variable's own type.  Not inlined: in
 * transfer, its structures grew the frame of every get (1.4 more
 * instructions a get1 through the general path). */
__attribute__((noinline)) static int get_mapped(ncs_file *f, int varid, const ncs_slab *s,
                                                int memtype, void *buf)
{
    mapped_ctx c = { f, varid, memtype };
    ncsi_mapped_src src;
    src.ctx = &c;
    src.read = mapped_read;
    src.plain = NCSI_STORE_HAS(f, get_vara) && (unsigned)varid < (unsigned)f->nfast;
    src.place_view = NCSI_STORE_HAS(f, view) && memtype == f->model.vars[varid].type
                         ? mapped_place_view
                         : NULL;
    src.page = NCSI_CLASSIC_PAGE;
    return ncsi_get_mapped(s, ncsi_type_size(memtype), &src, buf);
}

/* A put to a variable that quantizes its values (netCDF-4): the request's
 * elements gathered in request order and converted to the variable's type,
 * as netCDF-C converts a request before it writes, quantized there, and
 * written densely.  NCS_ERANGE, from the conversion, once all is written. */
static int quantized_put(ncs_file *f, int varid, const ncs_slab *s, int memtype,
                         const void *buf)
{
    const ncs_var *v = &f->model.vars[varid];
    int nd = s->ndims, last = nd - 1, range = 0, status;
    size_t esz = ncsi_type_size(v->type), msz = ncsi_type_size(memtype);
    size_t row = nd > 0 ? (size_t)s->count[last] : 1, k = 0;
    uint64_t idx[NCS_MAX_VAR_DIMS] = { 0 };
    unsigned char fill[8], be[8];
    ncs_slab dense;
    unsigned char *tmp;
    int a = ncsi_find_att(&v->atts, "_FillValue");

    /* only float and double variables quantize (ncs_def_var_quantize) */
    NCSI_ASSERT(v->type == NCS_FLOAT || v->type == NCS_DOUBLE);
    if (esz != 4 && esz != 8)
        return NCS_ERR(NCS_EBADTYPE);
    /* the value left alone: _FillValue, else the type's default */
    if (a >= 0 && v->atts.a[a].type == v->type && v->atts.a[a].nelems == 1)
        memcpy(be, v->atts.a[a].xval, esz);
    else
        ncsi_default_fill(v->type, be, 1);
    status = ncsi_decode(v->type, be, 1, v->type, fill, 1, f->version);
    if (status != NCS_NOERR)
        return status;
    if (s->nelems > SIZE_MAX / esz)
        return NCS_ERR(NCS_ENOMEM);
    memset(&dense, 0, sizeof dense);
    tmp = ncsi_malloc(s->nelems * esz > 0 ? (size_t)s->nelems * esz : 1);
    if (tmp == NULL)
        return NCS_ERR(NCS_ENOMEM);
    for (uint64_t done = 0; done < s->nelems; done += row) {
        ptrdiff_t off = 0;
        for (int d = 0; d < last; d++)
            off += (ptrdiff_t)idx[d] * s->imap[d];
        if (ncsi_convert(memtype, (const unsigned char *)buf + off * (ptrdiff_t)msz,
                         nd > 0 ? s->imap[last] : 1, row, v->type, tmp + k * esz, 1,
                         f->version) == NCS_ERANGE)
            range = 1;
        k += row;
        for (int d = last - 1; d >= 0 && ++idx[d] == s->count[d]; d--)
            idx[d] = 0;
    }
    ncsi_quantize(v->type, tmp, (size_t)s->nelems, v->quantize, v->nsd, fill);
    status = ncsi_slab_copy(&dense, s);
    if (status == NCS_NOERR) {
        ptrdiff_t step = 1;
        for (int d = last; d >= 0; d--) {
            dense.imap[d] = step;
            step *= (ptrdiff_t)s->count[d];
        }
        status = ncsi_store_put(f, varid, &dense, v->type, tmp);
    }
    ncsi_slab_release(&dense);
    free(tmp);
    if (status == NCS_NOERR && range)
        status = NCS_ERR(NCS_ERANGE);
    return status;
}

/* A request that passed every check, posted for a later ncs_wait_all
 * instead of carried out (ncs_iget, ncs_iput): its slab and memory. */
static int defer_req(ncsi_req *q, const request *r, int varid, const ncs_slab *s, void *buf,
                     int clip_err)
{
    int status = ncsi_slab_copy(&q->slab, s);
    if (status != NCS_NOERR)
        return status;
    q->varid = varid;
    q->put = r->put;
    q->memtype = r->memtype;
    q->buf = buf;
    q->status = clip_err;
    q->empty = 0;
    return NCS_NOERR;
}

/* defer: post the request there (q->empty stays 1 when it has nothing to
 * move) instead of carrying it out. */
static int transfer_checked(int ncid, int varid, const size_t *start, const size_t *count,
                            const ptrdiff_t *stride, const ptrdiff_t *imap, int memtype,
                            void *buf, int put, int one, ncsi_req *defer)
{
    static const size_t zeros[NCS_MAX_VAR_DIMS];
    size_t full_inl[NCSI_SLAB_INLINE], *full = full_inl;
    ncs_slab s;
    request r = { 0 };
    int path, status, clip_err, have_slab = 0;

    path = imap != NULL ? PATH_VARM : stride != NULL ? PATH_VARS : PATH_VARA;
    status = lookup(ncid, varid, memtype, put, path, one, &r);
    if (status != NCS_NOERR)
        return status;
    if (path != PATH_VARA && r.v->ndims == 0) {
        /* a scalar goes straight to netCDF-C's vara path */
        status = mode_check(&r);
        if (status != NCS_NOERR)
            return status;
    }
    if (start == NULL)
        start = zeros;
    if (r.v->ndims > 0) {
        status = maybe_refresh(&r, start, count);
        if (status != NCS_NOERR)
            return status;
    }
    if (count == NULL) {
        if (r.v->ndims > NCSI_SLAB_INLINE) {
            full = ncsi_malloc((size_t)r.v->ndims * sizeof *full);
            if (full == NULL)
                return NCS_ERR(NCS_ENOMEM);
        }
        for (int d = 0; d < r.v->ndims; d++) {
            uint64_t len = (d == 0 && r.v->isrec) ? r.f->model.numrecs : r.v->shape[d];
            full[d] = start[d] < len ? (size_t)(len - start[d]) : 0;
        }
        count = full;
    }
    if (r.v->ndims == 0) {
        status = NCS_NOERR;
        if (r.f->version == 4 && path == PATH_VARA)
            status = mode_check(&r);
    } else if (r.f->version == 4 && path != PATH_VARM) {
        status = check_nc4(&r, start, count, stride);
        if (status == NCS_NOERR && !put && any_zero(count, r.v->ndims))
            goto done;
        if (status == NCS_NOERR)
            status = mode_check(&r);
    } else if (path == PATH_VARA) {
        status = check_vara(&r, start, count);
    } else if (path == PATH_VARS) {
        status = check_vars(&r, start, count, stride);
        if (status != NCS_NOERR)
            goto done;
        /* A read of nothing ends here; a unit stride is netCDF-C's vara
         * path from now on, for writes even when nothing is written. */
        if (!put && any_zero(count, r.v->ndims))
            goto done;
        if (all_ones(stride, r.v->ndims)) {
            path = PATH_VARA;
            stride = NULL;
            status = mode_check(&r);
            if (status == NCS_NOERR)
                status = check_vara(&r, start, count);
        }
    } else {
        status = check_varm(&r, start, count, stride);
        if (status == NCS_NOERR && any_zero(count, r.v->ndims))
            goto done;
    }
    if (status != NCS_NOERR)
        goto done;
    status = build_slab(&r, path, start, count, stride, imap, &s, &clip_err);
    if (status != NCS_NOERR)
        goto done;
    have_slab = 1;
    if (s.nelems == 0) {
        if (defer != NULL && s.recs_needed > r.f->model.numrecs) {
            status = defer_req(defer, &r, varid, &s, buf, clip_err);
            goto done;
        }
        if (s.recs_needed > r.f->model.numrecs)
            status = ncsi_store_put(r.f, varid, &s, r.memtype, buf);
        if (status == NCS_NOERR)
            status = clip_err;
        goto done;
    }
    if (path != PATH_VARA) {
        /* a netCDF-4 write to a read-only file fails in HDF5 only after
         * netCDF-C has walked the whole request */
        if (put && r.f->version == 4 && clip_err != NCS_NOERR && !(r.f->flags & NCSI_F_WRITE)) {
            status = clip_err;
            goto done;
        }
        status = mode_check(&r);
        if (status == NCS_NOERR)
            status = late_record_start(&r, &s);
        if (status != NCS_NOERR)
            goto done;
    }
    if (buf == NULL) {
        status = NCS_ERR(NCS_EINVAL);
        goto done;
    }
    if (imap != NULL) {
        status = check_memory(&s, ncsi_type_size(r.memtype));
        if (status != NCS_NOERR)
            goto done;
    }
    if (defer != NULL) {
        status = defer_req(defer, &r, varid, &s, buf, clip_err);
        goto done;
    }
    if (put && r.v->quantize != NCS_NOQUANTIZE)
        status = quantized_put(r.f, varid, &s, r.memtype, buf);
    else if (put)
        status = ncsi_store_put(r.f, varid, &s, r.memtype, buf);
    else if (imap != NULL && ncsi_fastpath && !NCSI_STORE_HAS(r.f, skip) &&
             !ncsi_slab_natural_map(&s))
        /* (in pieces: a collective store takes a request in one call) */
        status = get_mapped(r.f, varid, &s, r.memtype, buf);
    else
        status = ncsi_store_get(r.f, varid, &s, r.memtype, buf);
    if (clip_err != NCS_NOERR && (status == NCS_NOERR || status == NCS_ERANGE))
        status = clip_err;
done:
    if (have_slab)
        ncsi_slab_release(&s);
    if (full != full_inl)
        free(full);
    return status;
}

/* A data call through the general path.  In a store whose data calls are
 * collective (the parallel one), a call that reached neither its get nor
 * its put slot, refused or moving nothing, still takes part in the
 * collective (the store's skip), so that the other processes do not wait
 * for it and all of them learn of a refusal. */
static int transfer(int ncid, int varid, const size_t *start, const size_t *count,
                    const ptrdiff_t *stride, const ptrdiff_t *imap, int memtype,
                    void *buf, int put, int one)
{
    ncs_file *f = ncsi_file_get(ncid);
    uint64_t before;
    int status;
    if (f == NULL || !NCSI_STORE_HAS(f, skip))
        return transfer_checked(ncid, varid, start, count, stride, imap, memtype, buf, put,
                                one, NULL);
    before = f->xfers;
    status = transfer_checked(ncid, varid, start, count, stride, imap, memtype, buf, put, one,
                              NULL);
    if (f->xfers == before)
        status = ncsi_store_skip(f, varid, put, status);
    return status;
}

/* 1 when stride and imap (either may be NULL) ask for nothing but a plain
 * request of v: unit strides, and a map that is C order for count. */
static int plain_request(const ncs_var *v, const size_t *count, const ptrdiff_t *stride,
                         const ptrdiff_t *imap)
{
    ptrdiff_t natural = 1;
    if (stride == NULL && imap == NULL)
        return 1;
    for (int d = v->ndims - 1; d >= 0; d--) {
        if (stride != NULL && stride[d] != 1)
            return 0;
        if (imap != NULL && count[d] > 1 && imap[d] != natural)
            return 0;
        /* counts are not validated yet: one that overflows the map is no
         * plain request, and the general path says what is wrong */
        if (count[d] > 1 && (size_t)natural > (size_t)PTRDIFF_MAX / count[d])
            return 0;
        natural *= (ptrdiff_t)count[d];
    }
    return 1;
}

/* The file of a request the back end's fast paths may take (NULL: the
 * general path): non-NULL arrays, a fast variable, and a memory type the
 * general path would accept, resolved into *mtp.  Whether the strides and
 * map suit a fast path is the caller's to ask (plain_request). */
static ncs_file *fast_file(int ncid, int varid, const size_t *start, const size_t *count,
                           int memtype, const void *buf, int *mtp)
{
    ncs_file *f;
    int xt;
    if (start == NULL || count == NULL || buf == NULL)
        return NULL;
    f = ncsi_file_get(ncid);
    if (f == NULL || (unsigned)varid >= (unsigned)f->nfast)
        return NULL;
    xt = f->model.vars[varid].type;
    if (!(memtype == NCS_NAT || memtype == xt ||
          (memtype != NCS_CHAR && xt != NCS_CHAR && ncsi_type_size(memtype) != 0)))
        return NULL;
    *mtp = memtype == NCS_NAT ? xt : memtype;
    return f;
}

/* A small get with a map that is not the natural order (an ncvargetg of
 * a plane, transposed) on a file fast_file admitted, memtype resolved:
 * placed straight from the back end's view, or read densely by its fast
 * path into a stack buffer and placed from there, without the general
 * path's slab.  Only unit strides, maps that are not negative, at most
 * NCSI_MAPPED_DIMS dimensions and NCSI_MAPPED_SMALL bytes; NCSI_DECLINED for
 * anything else, and wherever the back end declines (every error). */
static int get_mapped_small(ncs_file *f, int varid, const size_t *start, const size_t *count,
                            const ptrdiff_t *stride, const ptrdiff_t *imap, int memtype,
                            void *buf)
{
    union { unsigned char b[NCSI_MAPPED_SMALL]; uint64_t align; } dense;
    int nd = f->model.vars[varid].ndims, status, placed;
    size_t msz = ncsi_type_size(memtype);
    uint64_t n = 1;
    ncs_slab p;
    if (nd < 1 || nd > NCSI_MAPPED_DIMS || !NCSI_STORE_HAS(f, get_vara))
        return NCSI_DECLINED;
    for (int d = 0; d < nd; d++) {
        if ((stride != NULL && stride[d] != 1) || count[d] == 0 ||
            count[d] > NCSI_MAPPED_SMALL ||
            (count[d] > 1 && (imap[d] < 0 || imap[d] > (ptrdiff_t)1 << 40)))
            return NCSI_DECLINED;
        n *= count[d];
        if (n * msz > NCSI_MAPPED_SMALL)
            return NCSI_DECLINED;
    }
    status = ncsi_slab_init(&p, nd);
    if (status != NCS_NOERR)
        return status;
    for (int d = 0; d < nd; d++) {
        p.count[d] = count[d];
        p.imap[d] = count[d] > 1 ? imap[d] : 0;
    }
    p.nelems = n;
    status = NCSI_DECLINED;
    if (NCSI_STORE_HAS(f, view) && memtype == f->model.vars[varid].type)
        status = place_view(f, varid, start, count, &p, msz, buf, dense.b, sizeof dense.b);
    if (status == NCSI_DECLINED) {
        status = ncsi_store_get_vara(f, varid, start, count, memtype, dense.b);
        if (status == NCS_NOERR || status == NCS_ERANGE) {
            placed = ncsi_slab_place(&p, dense.b, NULL, 0, buf, msz);
            if (placed != NCS_NOERR)
                status = placed;
        }
    }
    ncsi_slab_release(&p);
    return status;
}

int ncs_get(int ncid, int varid, const size_t *start, const size_t *count,
            const ptrdiff_t *stride, const ptrdiff_t *imap, int memtype, void *buf)
{
    /* the common small request straight to the back end, when it has a
     * fast path; everything else, and every error, through the general
     * path */
    int mt;
    ncs_file *f = fast_file(ncid, varid, start, count, memtype, buf, &mt);
    if (f != NULL) {
        int status = NCSI_DECLINED;
        if (plain_request(&f->model.vars[varid], count, stride, imap)) {
            if (NCSI_STORE_HAS(f, get_vara))
                status = ncsi_store_get_vara(f, varid, start, count, mt, buf);
        } else if (imap != NULL) {
            status = get_mapped_small(f, varid, start, count, stride, imap, mt, buf);
        }
        if (status != NCSI_DECLINED)
            return status;
    }
    return transfer(ncid, varid, start, count, stride, imap, memtype, buf, 0, 0);
}

int ncs_put(int ncid, int varid, const size_t *start, const size_t *count,
            const ptrdiff_t *stride, const ptrdiff_t *imap, int memtype,
            const void *buf)
{
    int mt;
    ncs_file *f = fast_file(ncid, varid, start, count, memtype, buf, &mt);
    if (f != NULL && NCSI_STORE_HAS(f, put_vara) && !f->model.vars[varid].quantize &&
        plain_request(&f->model.vars[varid], count, stride, imap)) {
        int status = ncsi_store_put_vara(f, varid, start, count, mt, buf);
        if (status != NCSI_DECLINED)
            return status;
    }
    return transfer(ncid, varid, start, count, stride, imap, memtype, (void *)buf, 1, 0);
}

static const size_t ones[NCS_MAX_VAR_DIMS] = {
    [0 ... NCS_MAX_VAR_DIMS - 1] = 1
};

int ncsi_get1_general(ncs_file *f, int varid, const size_t *index, void *buf)
{
    return transfer(f->ncid, varid, index, ones, NULL, NULL, NCS_NAT, buf, 0, 1);
}

int ncsi_get1_checked(int ncid, int varid, const size_t *index, int memtype, void *buf)
{
    return transfer(ncid, varid, index, ones, NULL, NULL, memtype, buf, 0, 1);
}

int ncs_put1(int ncid, int varid, const size_t *index, int memtype, const void *buf)
{
    return transfer(ncid, varid, index, ones, NULL, NULL, memtype, (void *)buf, 1, 1);
}

/* ---- nonblocking requests ------------------------------------------------ */

static int post(int ncid, int varid, const size_t *start, const size_t *count,
                const ptrdiff_t *stride, const ptrdiff_t *imap, int memtype, void *buf,
                int put, int *reqp)
{
    ncs_file *f = ncsi_file_get(ncid);
    ncsi_req *q;
    int status;
    if (f == NULL)
        return NCS_ERR(NCS_EBADID);
    if (reqp == NULL)
        return NCS_ERR(NCS_EINVAL);
    if (f->nreqs == f->capreqs) {
        int ncap = f->capreqs ? 2 * f->capreqs : 16;
        ncsi_req **a;
        if (ncap > INT_MAX / 2)
            return NCS_ERR(NCS_ENOMEM);
        a = realloc(f->reqs, (size_t)ncap * sizeof *a);
        if (a == NULL)
            return NCS_ERR(NCS_ENOMEM);
        f->reqs = a;
        f->capreqs = ncap;
    }
    q = ncsi_calloc(1, sizeof *q);
    if (q == NULL)
        return NCS_ERR(NCS_ENOMEM);
    q->empty = 1;
    q->varid = varid;
    q->put = put;
    status = transfer_checked(ncid, varid, start, count, stride, imap, memtype, buf, put, 0, q);
    if (status != NCS_NOERR) {
        if (!q->empty)
            ncsi_slab_release(&q->slab);
        free(q);
        return status;
    }
    if (f->next_req <= 0 || f->next_req == INT_MAX)
        f->next_req = 1;
    q->id = f->next_req++;
    f->reqs[f->nreqs++] = q;
    *reqp = q->id;
    return NCS_NOERR;
}

int ncs_iget(int ncid, int varid, const size_t *start, const size_t *count,
             const ptrdiff_t *stride, const ptrdiff_t *imap, int memtype, void *buf, int *reqp)
{
    return post(ncid, varid, start, count, stride, imap, memtype, buf, 0, reqp);
}

int ncs_iput(int ncid, int varid, const size_t *start, const size_t *count,
             const ptrdiff_t *stride, const ptrdiff_t *imap, int memtype, const void *buf,
             int *reqp)
{
    return post(ncid, varid, start, count, stride, imap, memtype, (void *)buf, 1, reqp);
}

static void req_free(ncsi_req *q)
{
    if (!q->empty)
        ncsi_slab_release(&q->slab);
    free(q);
}

void ncsi_reqs_drop(ncs_file *f)
{
    for (int i = 0; i < f->nreqs; i++)
        req_free(f->reqs[i]);
    free(f->reqs);
    f->reqs = NULL;
    f->nreqs = f->capreqs = 0;
}

/* One posted request carried out as ncs_get or ncs_put would have. */
static int run_req(ncs_file *f, ncsi_req *q)
{
    int status;
    if (q->empty)
        return q->status;
    if (q->put && f->model.vars[q->varid].quantize != NCS_NOQUANTIZE)
        status = quantized_put(f, q->varid, &q->slab, q->memtype, q->buf);
    else if (q->put)
        status = ncsi_store_put(f, q->varid, &q->slab, q->memtype, q->buf);
    else if (ncsi_fastpath && !ncsi_slab_natural_map(&q->slab))
        status = get_mapped(f, q->varid, &q->slab, q->memtype, q->buf);
    else
        status = ncsi_store_get(f, q->varid, &q->slab, q->memtype, q->buf);
    if (q->status != NCS_NOERR && (status == NCS_NOERR || status == NCS_ERANGE))
        status = q->status;
    return status;
}

/* The pending requests listed (nreqs NCS_REQ_ALL: all of them), taken
 * off f's list into *outp (n of them, in the order listed; *slots: where
 * each was in reqs, -1 for all).  NCS_EINVAL_REQUEST for an id not
 * pending: nothing is taken then. */
static int take(ncs_file *f, int nreqs, int *reqs, ncsi_req ***outp, int *np, int **slotp)
{
    ncsi_req **out;
    int *slot, n = 0;
    *outp = NULL;
    *slotp = NULL;
    *np = 0;
    if (nreqs == NCS_REQ_ALL) {
        out = f->reqs;
        n = f->nreqs;
        slot = ncsi_malloc(((size_t)n + 1) * sizeof *slot);
        if (slot == NULL)
            return NCS_ERR(NCS_ENOMEM);
        for (int i = 0; i < n; i++)
            slot[i] = i;
        f->reqs = NULL;
        f->nreqs = f->capreqs = 0;
        *outp = out;
        *np = n;
        *slotp = slot;
        return NCS_NOERR;
    }
    if (nreqs < 0 || (nreqs > 0 && reqs == NULL))
        return NCS_ERR(NCS_EINVAL);
    out = ncsi_malloc(((size_t)nreqs + 1) * sizeof *out);
    slot = ncsi_malloc(((size_t)nreqs + 1) * sizeof *slot);
    if (out == NULL || slot == NULL) {
        free(out);
        free(slot);
        return NCS_ERR(NCS_ENOMEM);
    }
    for (int i = 0, next = 0; i < nreqs; i++) {
        int found = -1, lo = 0, hi = f->nreqs - 1;
        if (reqs[i] == NCS_REQ_NULL)
            continue;
        /* a list in posting order names the one after the last found */
        if (next < f->nreqs && f->reqs[next]->id == reqs[i])
            found = next;
        /* f->reqs is in posting order, so in increasing ids; after ids
         * wrapped, a linear search */
        while (found < 0 && lo <= hi) {
            int mid = lo + (hi - lo) / 2;
            if (f->reqs[mid]->id == reqs[i]) {
                found = mid;
                break;
            }
            if (f->reqs[mid]->id < reqs[i])
                lo = mid + 1;
            else
                hi = mid - 1;
        }
        for (int j = 0; j < f->nreqs && found < 0; j++)
            if (f->reqs[j]->id == reqs[i])
                found = j;
        if (found < 0 || f->reqs[found]->taken) {
            /* (a request listed twice is not pending the second time) */
            for (int k = 0; k < n; k++)
                out[k]->taken = 0;
            free(out);
            free(slot);
            return NCS_ERR(NCS_EINVAL_REQUEST);
        }
        out[n] = f->reqs[found];
        out[n]->taken = 1;
        slot[n++] = i;
        next = found + 1;
    }
    /* the rest, in their order */
    {
        int k = 0;
        for (int j = 0; j < f->nreqs; j++)
            if (!f->reqs[j]->taken)
                f->reqs[k++] = f->reqs[j];
        f->nreqs = k;
    }
    *outp = out;
    *np = n;
    *slotp = slot;
    return NCS_NOERR;
}

static int finish(int status, int nreqs, int *reqs, int *statuses, ncsi_req **q, int n,
                  const int *slot, const int *st)
{
    int first = NCS_NOERR;
    for (int i = 0; i < n; i++) {
        if (reqs != NULL && nreqs != NCS_REQ_ALL)
            reqs[slot[i]] = NCS_REQ_NULL;
        else if (reqs != NULL)
            reqs[i] = NCS_REQ_NULL;
        if (statuses != NULL)
            statuses[nreqs != NCS_REQ_ALL ? slot[i] : i] = st != NULL ? st[i] : NCS_NOERR;
        if (st != NULL && first == NCS_NOERR)
            first = st[i];
        req_free(q[i]);
    }
    return status != NCS_NOERR ? status : first;
}

int ncs_wait_all(int ncid, int nreqs, int *reqs, int *statuses)
{
    ncs_file *f = ncsi_file_get(ncid);
    ncsi_req **q = NULL, **live = NULL;
    int *slot = NULL, *st = NULL, *lst = NULL, n = 0, nlive = 0, status;
    if (f == NULL)
        return NCS_ERR(NCS_EBADID);
    status = take(f, nreqs, reqs, &q, &n, &slot);
    if (status == NCS_NOERR) {
        st = ncsi_calloc((size_t)n + 1, sizeof *st);
        live = ncsi_malloc(((size_t)n + 1) * sizeof *live);
        lst = ncsi_calloc((size_t)n + 1, sizeof *lst);
        if (st == NULL || live == NULL || lst == NULL)
            status = NCS_ERR(NCS_ENOMEM);
    }
    if (status == NCS_NOERR && (f->flags & NCSI_F_INDEF))
        status = NCS_ERR(NCS_EINDEFINE);
    if (!NCSI_STORE_HAS(f, batch)) {
        for (int pass = 0; status == NCS_NOERR && pass < 2; pass++)
            for (int i = 0; i < n; i++)
                if (q[i]->put == (pass == 0))
                    st[i] = run_req(f, q[i]);
    } else {
        /* every process of a collective store takes part, whatever went
         * wrong here (its requests then move nothing) */
        for (int i = 0; status == NCS_NOERR && i < n; i++) {
            if (q[i]->empty)
                st[i] = q[i]->status;
            else
                live[nlive++] = q[i];
        }
        int whole = ncsi_store_batch(f, live, status == NCS_NOERR ? nlive : 0, lst);
        for (int i = 0, k = 0; status == NCS_NOERR && i < n; i++)
            if (!q[i]->empty)
                st[i] = lst[k++];
        if (status == NCS_NOERR)
            status = whole;
    }
    status = finish(status, nreqs, reqs, statuses, q, n, slot, st);
    free(q);
    free(slot);
    free(st);
    free(lst);
    free(live);
    return status;
}

int ncs_cancel(int ncid, int nreqs, int *reqs, int *statuses)
{
    ncs_file *f = ncsi_file_get(ncid);
    ncsi_req **q = NULL;
    int *slot = NULL, n = 0, status;
    if (f == NULL)
        return NCS_ERR(NCS_EBADID);
    status = take(f, nreqs, reqs, &q, &n, &slot);
    if (status == NCS_NOERR)
        status = finish(NCS_NOERR, nreqs, reqs, statuses, q, n, slot, NULL);
    free(q);
    free(slot);
    return status;
}

int ncs_inq_nreqs(int ncid, int *npendingp)
{
    ncs_file *f = ncsi_file_get(ncid);
    if (f == NULL)
        return NCS_ERR(NCS_EBADID);
    if (npendingp != NULL)
        *npendingp = f->nreqs;
    return NCS_NOERR;
}
