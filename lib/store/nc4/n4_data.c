/*
 * n4_data.c -- a netCDF-4 file's element data read from its bytes: the
 * loads of the chunk cache (ncsi_n4_chunk_ops: a chunk found through the
 * dataset's chunk index and decoded by ncslab's filters, or a block of a
 * contiguous or compact dataset), the read-ahead hints and reads past the
 * cache of a large or cold get, scalars, and the walk of a chunk index
 * for validators.
 *
 * What is never written reads as the HDF5 store gives it: a chunk the
 * index does not hold (or beyond the dataset's extent) as the variable's
 * fill value; contiguous storage never allocated as HDF5's fill value
 * where its fill time gives one (have_ualloc), else the variable's.
 *
 * Loads run outside the chunk cache's lock, on the file's thread or the
 * decoding pool's (chunk_data.c); every read here is a positioned read,
 * and an index is opened once under the file's lock, so loads of one
 * file's chunks run on several threads at once.
 */
#include "nc4.h"

#include <stdlib.h>
#include <string.h>

static n4var *var_of(void *owner)
{
    return (n4var *)(void *)((char *)owner - offsetof(n4var, ck));
}

/* The journal's pages over [off, off + n) of buf. */
static void overlay(const n4file *nf, uint64_t off, unsigned char *buf, size_t n)
{
    uint64_t end = off + n, first = off / NCSI_NC4_JPAGE;
    size_t lo = 0, hi = nf->npages;
    /* the first page at or after off's */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (nf->pages[mid]->no < first)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t i = lo; i < nf->npages && nf->pages[i]->no * NCSI_NC4_JPAGE < end; i++) {
        const n4page *p = nf->pages[i];
        uint64_t a = p->no * NCSI_NC4_JPAGE, b = a + NCSI_NC4_JPAGE;
        uint64_t from = a > off ? a : off, to = b < end ? b : end;
        memcpy(buf + (from - off), p->data + (from - a), (size_t)(to - from));
    }
}

/* n bytes at absolute offset off as the last commit left them: the bytes
 * of the file (zeros past its end, as the HDF5 store's driver reads them),
 * with a killed commit's journal over them. */
static int read_bytes(const n4file *nf, uint64_t off, void *buf, size_t n)
{
    size_t got = 0;
    int status;
    if (n == 0)
        return NCS_NOERR;
    if (off > INT64_MAX || n > INT64_MAX - off)
        return NCSI_CORRUPT(NCS_EHDFERR);
    status = ncsi_io_read(nf->io, off, buf, n, &got);
    if (status != NCS_NOERR)
        return status;
    if (got < n)
        memset((unsigned char *)buf + got, 0, n - got);
    if (nf->npages > 0)
        overlay(nf, off, buf, n);
    return NCS_NOERR;
}

int ncsi_n4_read_at(void *ctx, uint64_t off, void *buf, size_t n)
{
    return read_bytes(ctx, off, buf, n) == NCS_NOERR ? 0 : -1;
}

/* An h5read status as a netCDF one. */
static int h5r_status(int s)
{
    if (s == NCS_NOERR || s == NCS_ENOMEM)
        return s == NCS_NOERR ? s : NCS_ERR(s);
    return NCSI_CORRUPT(NCS_EHDFERR);
}

/* ---- chunked storage ----------------------------------------------------------------- */

/* v's chunk index, opened the first time it is needed (v is chunked). */
static int index_of(n4var *v, ncsi_h5r_chunks **cp)
{
    int s = __atomic_load_n(&v->index_state, __ATOMIC_ACQUIRE);
    if (s == 0) {
        n4file *nf = v->nf;
        pthread_mutex_lock(&nf->lock);
        if (v->index_state == 0) {
            int status = ncsi_h5r_chunks_open(nf->h, &v->lay, v->ck.ndims, v->extent, &v->index);
            v->index_status = h5r_status(status);
            __atomic_store_n(&v->index_state, status == NCS_NOERR ? 1 : -1, __ATOMIC_RELEASE);
        }
        s = v->index_state;
        pthread_mutex_unlock(&nf->lock);
    }
    *cp = v->index;
    return s > 0 ? NCS_NOERR : v->index_status;
}

/* Where chunk idx is: *found 0 when the file stores none there. */
static int chunk_entry(n4var *v, uint64_t idx, ncsi_h5r_chunk *e, int *found)
{
    ncsi_h5r_chunks *c;
    int status = index_of(v, &c);
    *found = 0;
    if (status != NCS_NOERR)
        return status;
    return h5r_status(ncsi_h5r_chunks_find(c, idx, e, found));
}

static int chunk_load(n4var *v, uint64_t idx, unsigned char *buf, size_t size)
{
    ncsi_h5r_chunk e;
    unsigned char *stored;
    int found, status = chunk_entry(v, idx, &e, &found);
    if (status != NCS_NOERR)
        return status;
    if (!found) {
        ncsi_chunk_fill(&v->ck, buf, size);
        return NCS_NOERR;
    }
    if (v->ck.nf == 0) {
        if (e.size != size)
            return NCSI_CORRUPT(NCS_EHDFERR);
        status = read_bytes(v->nf, e.addr, buf, size);
    } else {
        stored = ncsi_malloc(e.size);
        if (stored == NULL)
            return NCS_ERR(NCS_ENOMEM);
        status = read_bytes(v->nf, e.addr, stored, e.size);
        if (status == NCS_NOERR)
            status = ncsi_filters_decode(v->ck.pipe, v->ck.nf, e.mask, v->ck.esz, stored, e.size,
                                         buf, size);
        free(stored);
    }
    if (status == NCS_NOERR && v->ck.swap)
        ncsi_chunk_swap(buf, size, v->ck.esz);
    return status;
}

/* ---- contiguous storage, in blocks ----------------------------------------------------
 * A block spans whole trailing dimensions (ncsi_nc4_block_shape), so its
 * elements are one run of the file from its first element; at the end of
 * the data the block is cut short. */

/* The byte offset of block idx's first element in the data, and how many
 * bytes of the data are left from there. */
static void block_span(const n4var *v, uint64_t idx, uint64_t *at, uint64_t *left)
{
    uint64_t off[NCS_MAX_VAR_DIMS], lin = 0;
    ncsi_chunk_origin(&v->ck, idx, off);
    for (int d = 0; d < v->ck.ndims; d++)
        lin = lin * v->ck.shape[d] + off[d];
    *at = lin * v->ck.esz;
    *left = v->size - *at;
}

/* Fills size bytes of never-allocated storage. */
static void unallocated_fill(const n4var *v, unsigned char *buf, size_t size)
{
    if (!v->have_ualloc) {
        ncsi_chunk_fill(&v->ck, buf, size);
        return;
    }
    for (size_t i = 0; i + v->ck.esz <= size; i += v->ck.esz)
        memcpy(buf + i, v->ualloc_fill, v->ck.esz);
}

/* Bytes [off, off + n) of block idx's decoded form. */
static int block_part(n4var *v, uint64_t idx, uint64_t off, unsigned char *buf, size_t n)
{
    uint64_t at, left;
    size_t have;
    int status;
    if (v->addr == UINT64_MAX) {
        unallocated_fill(v, buf, n);
        return NCS_NOERR;
    }
    block_span(v, idx, &at, &left);
    have = off >= left ? 0 : (left - off < n ? (size_t)(left - off) : n);
    status = read_bytes(v->nf, v->addr + at + off, buf, have);
    if (status == NCS_NOERR && v->ck.swap)
        ncsi_chunk_swap(buf, have, v->ck.esz);
    if (have < n)
        ncsi_chunk_fill(&v->ck, buf + have, n - have);
    return status;
}

static int ops_load(void *owner, uint64_t idx, unsigned char *buf, size_t size)
{
    n4var *v = var_of(owner);
    __atomic_add_fetch(&v->ck.loads, 1, __ATOMIC_RELAXED);
    if (v->storage == N4_CONTIGUOUS)
        return block_part(v, idx, 0, buf, size);
    return chunk_load(v, idx, buf, size);
}

/* The file is open for reading only: nothing is ever stored. */
static int ops_store(void *owner, uint64_t idx, const unsigned char *buf, size_t size)
{
    (void)owner;
    (void)idx;
    (void)buf;
    (void)size;
    return NCS_ERR(NCS_EPERM);
}

static void hint(void *arg, uint64_t off, uint64_t n)
{
    ncs_io *io = arg;
    io->m->willneed(io, off, n);
}

/* The read-ahead hints of a cold get (chunk_data.c): each chunk's stored
 * bytes (or the span read_part will read), in runs (ncsi_chunk_hint_runs);
 * none where a journal's pages stand over the file's bytes. */
static void ops_willneed(void *owner, const ncs_chunk_want *w, size_t n)
{
    n4var *v = var_of(owner);
    uint64_t *lo, *hi;
    size_t k = 0;
    if (v->nf->io->m->willneed == NULL || v->nf->npages > 0 ||
        (lo = ncsi_malloc(2 * n * sizeof *lo)) == NULL)
        return;
    hi = lo + n;
    for (size_t i = 0; i < n; i++) {
        uint64_t off = w[i].off, len = w[i].n;
        if (v->storage == N4_CONTIGUOUS) {
            uint64_t at, left;
            if (v->addr == UINT64_MAX)
                continue;
            block_span(v, w[i].idx, &at, &left);
            if (len == 0)
                len = v->ck.chunk_bytes;
            if (off >= left)
                continue;
            if (len > left - off)
                len = left - off;
            lo[k] = v->addr + at + off;
        } else {
            ncsi_h5r_chunk e;
            int found;
            if (chunk_entry(v, w[i].idx, &e, &found) != NCS_NOERR || !found)
                continue;
            if (len == 0 || v->ck.nf != 0) {
                off = 0;
                len = e.size;
            } else if (off > e.size || len > e.size - off) {
                continue;
            }
            lo[k] = e.addr + off;
        }
        hi[k] = lo[k] + len;
        k++;
    }
    ncsi_chunk_hint_runs(lo, hi, k, hint, v->nf->io);
    free(lo);
}

static int ops_read_part(void *owner, uint64_t idx, uint64_t off, unsigned char *buf, size_t n,
                         int *done)
{
    n4var *v = var_of(owner);
    ncsi_h5r_chunk e;
    int found, status;
    *done = 0;
    if (v->storage == N4_CONTIGUOUS) {
        *done = 1;
        return block_part(v, idx, off, buf, n);
    }
    if (v->ck.nf != 0)
        return NCS_NOERR;
    status = chunk_entry(v, idx, &e, &found);
    if (status != NCS_NOERR)
        return status;
    *done = 1;
    if (!found) {
        ncsi_chunk_fill(&v->ck, buf, n);
        return NCS_NOERR;
    }
    if (e.size != v->ck.chunk_bytes || off > e.size || n > e.size - off)
        return NCSI_CORRUPT(NCS_EHDFERR);
    status = read_bytes(v->nf, e.addr + off, buf, n);
    if (status == NCS_NOERR && v->ck.swap)
        ncsi_chunk_swap(buf, n, v->ck.esz);
    return status;
}

const ncs_chunk_ops ncsi_n4_chunk_ops = {
    .load = ops_load,
    .store = ops_store,
    .willneed = ops_willneed,
    .read_part = ops_read_part,
};

/* ---- scalars ------------------------------------------------------------------------------ */

int ncsi_n4_scalar_get(n4var *v, const ncs_var *var, const ncs_slab *s, int memtype, void *buf)
{
    unsigned char elem[8];
    uint64_t dsz[1] = { 1 };
    ncs_slab dense;
    int status, erange = 0;
    NCSI_ASSERT(var->ndims == 0);
    if (v->addr == UINT64_MAX) {
        unallocated_fill(v, elem, v->ck.esz);
    } else {
        status = read_bytes(v->nf, v->addr, elem, v->ck.esz);
        if (status != NCS_NOERR)
            return status;
        if (v->ck.swap)
            ncsi_chunk_swap(elem, v->ck.esz, v->ck.esz);
    }
    if ((status = ncsi_slab_copy(&dense, s)) != NCS_NOERR)
        return status;
    dense.isrec = 0;
    status = ncsi_chunk_dense(&v->ck, &dense, dsz, elem, memtype, buf, 0, 4, &erange);
    ncsi_slab_release(&dense);
    return status == NCS_NOERR && erange ? NCS_ERANGE : status;
}

/* ---- the chunk index, for validators --------------------------------------------------------- */

typedef struct walk_arg {
    int ndims;
    ncs_chunk_visitor *visit;
    void *arg;
} walk_arg;

static int visit_one(void *arg, const uint64_t *offset, uint32_t mask, uint64_t addr,
                     uint32_t size)
{
    const walk_arg *w = arg;
    size_t origin[NCS_MAX_VAR_DIMS];
    for (int d = 0; d < w->ndims; d++)
        origin[d] = (size_t)offset[d];
    return w->visit(w->arg, origin, mask, (unsigned long long)addr, (unsigned long long)size);
}

int ncsi_n4_chunk_index(n4var *v, size_t *extent, ncs_chunk_visitor *visit, void *arg)
{
    walk_arg w = { v->ck.ndims, visit, arg };
    int status;
    for (int d = 0; d < v->ck.ndims; d++)
        extent[d] = (size_t)v->extent[d];
    status = ncsi_h5r_chunks_list(v->nf->h, &v->lay, v->ck.ndims, visit_one, &w);
    /* a visitor's own value passes through; the walk's errors are the
     * file's */
    if (status == NCSI_H5R_CORRUPT || status == NCSI_H5R_UNSUPPORTED)
        return NCSI_CORRUPT(NCS_EHDFERR);
    return status == NCS_ENOMEM ? NCS_ERR(NCS_ENOMEM) : status;
}
