/*
 * chunked.c -- the chunked storage back end: netCDF-4/HDF5 files in the
 * classic data model, with ncslab's own slab-to-chunk mapping and chunk
 * cache on top of HDF5's direct chunk I/O.
 *
 * Data path: a request is split by the variable's chunk grid
 * (ncsi_slab_chunks); each chunk comes from the shared cache, decoded and in
 * native byte order, and the part of the request inside it moves as runs
 * (ncsi_slab_runs) with type conversion.  A missing chunk (never written,
 * or beyond the dataset's extent) is made of fill values.  Chunks move
 * between cache and file as stored bytes: ncslab runs the filter pipeline
 * (filters.c) and HDF5 only places them (H5Dread_chunk/H5Dwrite_chunk).
 *
 * Contiguous and compact datasets of rank > 0 use the same cache in
 * blocks (virtual chunks moved with HDF5 selections, see block_shape) for
 * requests under BYPASS_BYTES.  Larger requests on them, and datasets
 * whose filters ncslab cannot run itself, and scalars, go through HDF5's
 * own selection read and write instead, with the same results.
 *
 * The record dimension is dimension 0; growing the record count extends
 * the dataset written to, as netCDF-C does; reads past a dataset's own
 * extent (but within the record count) return fill values.
 *
 * Commits (ncs_sync, ncs_enddef, ncs_close): every dirty chunk, then the
 * metadata, then H5Fflush, then the file driver's commit (nc4_journal.c),
 * which makes all of it the file's state at once.  A process killed at any
 * point leaves the state of the last commit, whose extents cover only
 * chunks already in the file.
 */
#include "hdf5_store.h"

#include <assert.h>
#include <hdf5_hl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static chunked *CS(ncs_file *f)
{
    return (chunked *)f->state;
}

/* ---- per-variable state --------------------------------------------------------- */

/* How many arrays of ndims elements a cvar carries in dimv[]. */
#define CVAR_ARRAYS 9

cvar *ncsi_cvar_new(chunked *cs, int varid, int ndims)
{
    cvar *v;
    size_t n = (size_t)ndims;
    assert(ndims >= 0 && ndims <= NCS_MAX_VAR_DIMS);
    if (varid >= cs->capvars) {
        int cap = cs->capvars ? cs->capvars * 2 : 8;
        cvar **nv;
        while (cap <= varid)
            cap *= 2;
        nv = ncsi_realloc(cs->vars, (size_t)cap * sizeof *nv);
        if (nv == NULL)
            return NULL;
        memset(nv + cs->capvars, 0, (size_t)(cap - cs->capvars) * sizeof *nv);
        cs->vars = nv;
        cs->capvars = cap;
    }
    v = ncsi_calloc(1, sizeof *v + CVAR_ARRAYS * n * sizeof v->dimv[0]);
    if (v == NULL)
        return NULL;
    v->stchunks = v->dimv;
    v->chunk = v->dimv + n;
    v->cdsz = v->dimv + 2 * n;
    v->estride = v->dimv + 3 * n;
    v->grid = v->dimv + 4 * n;
    v->vshape = v->dimv + 5 * n;
    v->plo = v->dimv + 6 * n;
    v->pext = v->dimv + 7 * n;
    v->lim = v->dimv + 8 * n;
    v->cs = cs;
    v->varid = varid;
    v->ndims = ndims;
    v->dset = -1;
    v->scale_dim = -1;
    cs->vars[varid] = v;
    if (varid >= cs->nvars)
        cs->nvars = varid + 1;
    return v;
}

static void cvar_free(cvar *v)
{
    if (v == NULL)
        return;
    free(v->h5name);
    free(v);
}

/* Default chunk shape: netCDF-C 4.9's, so that both libraries' files of the
 * same calls have the same layout and inquiries agree (doc/chunking.md).
 * A chunk is one record deep and aims at DEFAULT_CHUNK_BYTES (the chunk
 * size netCDF-C is built with): each fixed dimension is cut by the same
 * factor, the nth root of target / record bytes, and never beyond its
 * length.  A variable of the record dimension alone gets UNLIM_1D_BYTES /
 * element size elements per chunk.  A chunk of 4 GiB or more (which HDF5
 * refuses) is halved along every dimension until it fits, and each cut is
 * then evened out, so the last chunk along a dimension is as full as the
 * others allow.  The arithmetic is netCDF-C's to the rounding: the element
 * count is accumulated in single precision there, and here. */
#define DEFAULT_CHUNK_BYTES 16777216.0
#define UNLIM_1D_BYTES      4096u

void ncsi_default_chunks(const ncs_model *m, const ncs_var *v, uint64_t *chunks)
{
    size_t esz = ncsi_type_size(v->type);
    float nvalues = 1;
    int nfixed = 0;
    double bytes;
    (void)m;
    for (int d = 0; d < v->ndims; d++) {
        chunks[d] = v->isrec && d == 0 ? 1 : 0;
        if (chunks[d] == 0) {
            nvalues *= (float)v->shape[d];
            nfixed++;
        }
    }
    if (v->ndims == 1 && v->isrec)
        chunks[0] = UNLIM_1D_BYTES / esz;
    for (int d = 0; d < v->ndims; d++) {
        double cut;
        uint64_t n;
        if (chunks[d] != 0)
            continue;
        cut = pow(DEFAULT_CHUNK_BYTES / ((double)nvalues * (double)esz), 1.0 / nfixed);
        cut = cut * (double)v->shape[d] - 0.5;
        n = cut < 1.0 ? 0 : cut >= (double)v->shape[d] ? v->shape[d] : (uint64_t)cut;
        chunks[d] = n ? n : 1;
    }
    for (;;) {
        bytes = (double)esz;
        for (int d = 0; d < v->ndims; d++)
            bytes *= (double)chunks[d];
        if (bytes <= (double)UINT32_MAX)
            break;
        for (int d = 0; d < v->ndims; d++)
            chunks[d] = chunks[d] > 1 ? chunks[d] / 2 : 1;
    }
    /* the record dimension counts as empty here, as in netCDF-C */
    for (int d = v->isrec ? 1 : 0; d < v->ndims; d++) {
        uint64_t n = (v->shape[d] + chunks[d] - 1) / chunks[d];
        if (n > 0)
            chunks[d] -= (n * chunks[d] - v->shape[d]) / n;
    }
}

/* Blocks of a contiguous variable in the cache: whole trailing dimensions
 * while they fit BLOCK_BYTES, then as many indices of the next one as fit
 * (at least one), so each block is one run of bytes in the file and a miss
 * reads at most about BLOCK_BYTES.  Requests of BYPASS_BYTES or more go to
 * HDF5 directly (after the variable's dirty blocks are written), where
 * one selection read beats many block copies. */
#define BLOCK_BYTES  (64u * 1024u)
#define BYPASS_BYTES (4u * BLOCK_BYTES)

static void block_shape(const ncs_var *v, size_t esz, uint64_t *chunk)
{
    uint64_t inner = esz;
    int d;
    for (d = 0; d < v->ndims; d++)
        chunk[d] = 1;
    for (d = v->ndims - 1; d >= 0; d--) {
        if (v->shape[d] <= BLOCK_BYTES / inner) {
            chunk[d] = v->shape[d] ? v->shape[d] : 1;
            inner *= chunk[d];
        } else {
            chunk[d] = BLOCK_BYTES / inner ? BLOCK_BYTES / inner : 1;
            break;
        }
    }
}

/* Builds the filter pipeline from the settings: shuffle, then deflate or
 * zstd, then Fletcher-32 over the stored bytes. */
static void build_pipeline(cvar *v)
{
    v->nf = 0;
    if (v->st.shuffle)
        v->pipe[v->nf++] = (ncs_filter){ NCSI_FILTER_SHUFFLE, 0 };
    if (v->st.deflate_level > 0)
        v->pipe[v->nf++] = (ncs_filter){ NCSI_FILTER_DEFLATE, (unsigned)v->st.deflate_level };
    if (v->st.zstd_level > 0)
        v->pipe[v->nf++] = (ncs_filter){ NCSI_FILTER_ZSTD, (unsigned)v->st.zstd_level };
    if (v->st.fletcher32)
        v->pipe[v->nf++] = (ncs_filter){ NCSI_FILTER_FLETCHER32, 0 };
}

int ncsi_cvar_setup(cvar *cv, const ncs_model *m)
{
    const ncs_var *v = &m->vars[cv->varid];
    int i;
    unsigned char be[8];
    uint64_t elems = 1;

    assert(cv->ndims == v->ndims);
    cv->esz = ncsi_type_size(v->type);
    if (v->ndims == 0)
        cv->st.contiguous = 1;
    if (cv->dset < 0) {
        /* a variable of this define mode: settings become the layout */
        if (!cv->st.contiguous && !cv->st.chunks_set)
            ncsi_default_chunks(m, v, cv->stchunks);
        build_pipeline(cv);
        cv->direct = !cv->st.contiguous;
    }
    cv->xtype = v->type;
    cv->blocked = ncsi_fastpath && cv->st.contiguous && v->ndims > 0 && !v->isrec;
    if (cv->blocked) {
        cv->direct = 1;
        cv->nf = 0;
        block_shape(v, cv->esz, cv->chunk);
    }
    for (int d = 0; d < v->ndims; d++) {
        cv->vshape[d] = v->shape[d];
        if (!cv->blocked)
            cv->chunk[d] = cv->st.contiguous ? (v->shape[d] ? v->shape[d] : 1) : cv->stchunks[d];
        if (cv->chunk[d] == 0)
            return NCS_ERR(NCS_EBADCHUNK);
        cv->grid[d] = v->shape[d] ? (v->shape[d] + cv->chunk[d] - 1) / cv->chunk[d] : 0;
    }
    /* cdsz[d]: elements of a chunk in dimensions d.. (as ncs_var.dsizes);
     * estride[d]: elements between neighbours along d */
    for (int d = v->ndims - 1; d >= 0; d--) {
        cv->estride[d] = elems;
        if (ncsi_mul_u64(elems, cv->chunk[d], &elems))
            return NCS_ERR(NCS_EBADCHUNK);
        cv->cdsz[d] = elems;
    }
    /* only chunks ncslab moves itself are bounded (HDF5 chunks are under
     * 4 GiB); a contiguous dataset of any size goes through HDF5 */
    if (cv->direct && (elems > SIZE_MAX / cv->esz || elems * cv->esz > ((size_t)1 << 32)))
        return NCS_ERR(NCS_EBADCHUNK);
    cv->chunk_bytes = cv->direct ? (size_t)elems * cv->esz : 0;
    i = ncsi_find_att(&v->atts, "_FillValue");
    if (i >= 0 && v->atts.a[i].type == v->type && v->atts.a[i].nelems == 1)
        memcpy(be, v->atts.a[i].xval, cv->esz);
    else
        ncsi_default_fill(v->type, be, 1);
    ncsi_decode(v->type, be, 1, v->type, cv->fill, 1, 5);
    return NCS_NOERR;
}

/* ---- moving chunks --------------------------------------------------------------- */

static void fill_chunk(const cvar *v, unsigned char *buf, size_t size)
{
    for (size_t i = 0; i + v->esz <= size; i += v->esz)
        memcpy(buf + i, v->fill, v->esz);
}

static void swap_bytes(unsigned char *p, size_t size, size_t esz)
{
    if (esz < 2)
        return;
    for (size_t i = 0; i + esz <= size; i += esz)
        for (size_t a = 0, b = esz - 1; a < b; a++, b--) {
            unsigned char t = p[i + a];
            p[i + a] = p[i + b];
            p[i + b] = t;
        }
}

/* Element offsets of chunk idx's first element. */
static void chunk_offset(const cvar *v, uint64_t idx, hsize_t *off)
{
    for (int d = v->ndims - 1; d >= 0; d--) {
        uint64_t c;
        if (d == 0) {
            c = idx;
        } else {
            c = idx % v->grid[d];
            idx /= v->grid[d];
        }
        off[d] = c * v->chunk[d];
    }
}

/* Memory type for HDF5 reads and writes of elements of type xtype. */
static hid_t memory_type_of(int xtype)
{
    hid_t t;
    if (xtype != NCS_CHAR)
        return H5Tcopy(ncsi_nc4_h5type(xtype));
    t = H5Tcopy(H5T_C_S1);
    if (t >= 0)
        H5Tset_size(t, 1);
    return t;
}

/* Reads or writes block idx of a blocked variable: the part inside the
 * variable, with HDF5 converting byte order; a read fills the rest, and
 * all of a block of a dataset with no storage yet (where HDF5 would leave
 * the buffer as it is under the fill time "never"). */
static int block_io(cvar *v, uint64_t idx, unsigned char *buf, size_t size, int put)
{
    hsize_t off[NCS_MAX_VAR_DIMS], cnt[NCS_MAX_VAR_DIMS], dims[NCS_MAX_VAR_DIMS];
    hsize_t zero[NCS_MAX_VAR_DIMS] = {0};
    hid_t fspace = -1, mspace = -1, mtype = -1;
    H5D_space_status_t alloc;
    int edge = 0, status = NCS_NOERR;

    chunk_offset(v, idx, off);
    for (int d = 0; d < v->ndims; d++) {
        dims[d] = v->chunk[d];
        cnt[d] = v->vshape[d] - off[d] < v->chunk[d] ? v->vshape[d] - off[d] : v->chunk[d];
        if (cnt[d] < dims[d])
            edge = 1;
    }
    if (!put && !v->allocated &&
        H5Dget_space_status(v->dset, &alloc) >= 0 && alloc == H5D_SPACE_STATUS_ALLOCATED)
        v->allocated = 1;
    if (!put && (edge || !v->allocated))
        fill_chunk(v, buf, size);
    fspace = H5Dget_space(v->dset);
    mspace = H5Screate_simple(v->ndims, dims, NULL);
    mtype = memory_type_of(v->xtype);
    if (fspace < 0 || mspace < 0 || mtype < 0 ||
        H5Sselect_hyperslab(fspace, H5S_SELECT_SET, off, NULL, cnt, NULL) < 0 ||
        (edge && H5Sselect_hyperslab(mspace, H5S_SELECT_SET, zero, NULL, cnt, NULL) < 0) ||
        (put ? H5Dwrite(v->dset, mtype, mspace, fspace, H5P_DEFAULT, buf)
             : H5Dread(v->dset, mtype, mspace, fspace, H5P_DEFAULT, buf)) < 0)
        status = NCS_ERR(NCS_EHDFERR);
    if (mtype >= 0)
        H5Tclose(mtype);
    if (mspace >= 0)
        H5Sclose(mspace);
    if (fspace >= 0)
        H5Sclose(fspace);
    return status;
}

static int chunk_load(void *owner, uint64_t idx, unsigned char *buf, size_t size)
{
    cvar *v = owner;
    hsize_t off[NCS_MAX_VAR_DIMS], nbytes = 0;
    uint32_t mask = 0;
    unsigned char *stored;
    int status = NCS_NOERR;

    if (v->blocked && v->dset >= 0)
        return block_io(v, idx, buf, size, 0);
    chunk_offset(v, idx, off);
    if (v->dset < 0 || (v->ndims > 0 && off[0] >= v->extent0) ||
        H5Dget_chunk_storage_size(v->dset, off, &nbytes) < 0 || nbytes == 0) {
        fill_chunk(v, buf, size);
        return NCS_NOERR;
    }
    if (v->nf == 0) {
        if (nbytes != size)
            return NCS_ERR(NCS_EHDFERR);
        if (H5Dread_chunk(v->dset, H5P_DEFAULT, off, &mask, buf) < 0)
            return NCS_ERR(NCS_EHDFERR);
    } else {
        stored = ncsi_malloc((size_t)nbytes);
        if (stored == NULL)
            return NCS_ERR(NCS_ENOMEM);
        if (H5Dread_chunk(v->dset, H5P_DEFAULT, off, &mask, stored) < 0)
            status = NCS_ERR(NCS_EHDFERR);
        else
            status = ncsi_filters_decode(v->pipe, v->nf, mask, v->esz, stored,
                                         (size_t)nbytes, buf, size);
        free(stored);
        if (status != NCS_NOERR)
            return status;
    }
    if (v->swap)
        swap_bytes(buf, size, v->esz);
    return NCS_NOERR;
}

static int chunk_store(void *owner, uint64_t idx, const unsigned char *buf, size_t size)
{
    cvar *v = owner;
    hsize_t off[NCS_MAX_VAR_DIMS];
    unsigned char *tmp = NULL, *out = NULL;
    const unsigned char *data = buf;
    size_t n = size;
    int status = NCS_NOERR;

    if (v->blocked)
        return block_io(v, idx, (unsigned char *)buf, size, 1);
    chunk_offset(v, idx, off);
    if (v->swap) {
        tmp = ncsi_malloc(size);
        if (tmp == NULL)
            return NCS_ERR(NCS_ENOMEM);
        memcpy(tmp, buf, size);
        swap_bytes(tmp, size, v->esz);
        data = tmp;
    }
    if (v->nf > 0) {
        status = ncsi_filters_encode(v->pipe, v->nf, v->esz, data, size, &out, &n);
        data = out;
    }
    if (status == NCS_NOERR && H5Dwrite_chunk(v->dset, H5P_DEFAULT, 0, off, n, data) < 0)
        status = NCS_ERR(NCS_EHDFERR);
    free(out);
    free(tmp);
    return status;
}

static const ncs_chunk_ops chunk_ops = {
    .load = chunk_load,
    .store = chunk_store,
};

/* ---- the data path ------------------------------------------------------------------ */

typedef struct cx {
    ncs_file *f;
    cvar *cv;
    const ncs_var *v;
    int memtype;
    size_t msz;
    unsigned char *buf;
    unsigned char *chunkp;
    ptrdiff_t mbase;
    int put;
    int erange;
} cx;

static int run_in_chunk(void *ctx, uint64_t rec, uint64_t elem, uint64_t n,
                        uint64_t fstep, ptrdiff_t moff, ptrdiff_t mstep)
{
    cx *x = ctx;
    unsigned char *cp = x->chunkp + elem * x->cv->esz;
    unsigned char *mp = x->buf + (x->mbase + moff) * (ptrdiff_t)x->msz;
    int r;
    (void)rec;
    if (x->put)
        r = ncsi_convert(x->memtype, mp, mstep, (size_t)n, x->v->type, cp,
                         (ptrdiff_t)fstep, x->f->version);
    else
        r = ncsi_convert(x->v->type, cp, (ptrdiff_t)fstep, (size_t)n, x->memtype, mp,
                         mstep, x->f->version);
    if (r == NCS_ERANGE)
        x->erange = 1;
    return NCS_NOERR;
}

/* A block of a chunk's part, row by row (chunks hold no records). */
static int block_in_chunk(void *ctx, const ncs_block *b)
{
    cx *x = ctx;
    size_t esz = x->cv->esz;
    const unsigned char *cp = x->chunkp + b->elem * esz;
    unsigned char *mp = x->buf + (x->mbase + b->moff) * (ptrdiff_t)x->msz;
    ptrdiff_t crow = (ptrdiff_t)(b->rfstep * esz), mrow = b->rmstep * (ptrdiff_t)x->msz;
    assert(b->rrec == 0);
    if (x->memtype == x->v->type && b->fstep == 1 && b->mstep == 1) {
        /* chunks are native: rows are plain copies */
        size_t len = (size_t)b->n * esz;
        for (uint64_t i = 0; i < b->rows; i++, cp += crow, mp += mrow) {
            if (x->put)
                memcpy((unsigned char *)cp, mp, len);
            else
                memcpy(mp, cp, len);
        }
        return NCS_NOERR;
    }
    for (uint64_t i = 0; i < b->rows; i++, cp += crow, mp += mrow) {
        int r;
        if (x->put)
            r = ncsi_convert(x->memtype, mp, b->mstep, (size_t)b->n, x->v->type,
                             (unsigned char *)cp, (ptrdiff_t)b->fstep, x->f->version);
        else
            r = ncsi_convert(x->v->type, cp, (ptrdiff_t)b->fstep, (size_t)b->n, x->memtype, mp,
                             b->mstep, x->f->version);
        if (r == NCS_ERANGE)
            x->erange = 1;
    }
    return NCS_NOERR;
}

static int chunk_part(void *ctx, const uint64_t *ccoord, const ncs_slab *sub, ptrdiff_t moff)
{
    cx *x = ctx;
    cvar *cv = x->cv;
    uint64_t idx = 0;
    int mode = NCSI_CACHE_READ, whole = 1, edge = 0, status;
    void *ref;

    for (int d = 0; d < cv->ndims; d++) {
        uint64_t valid = cv->chunk[d];
        if (d > 0 || !x->v->isrec) {
            idx = idx * cv->grid[d] + ccoord[d];
            if ((ccoord[d] + 1) * cv->chunk[d] > x->v->shape[d]) {
                valid = x->v->shape[d] - ccoord[d] * cv->chunk[d];
                edge = 1;
            }
        } else {
            idx = ccoord[0];
        }
        if (!(sub->start[d] == 0 && sub->stride[d] == 1 && sub->count[d] == valid))
            whole = 0;
    }
    if (x->put)
        mode = whole ? NCSI_CACHE_OVERWRITE : NCSI_CACHE_WRITE;
    status = ncsi_cache_get(cv, &chunk_ops, idx, cv->chunk_bytes, mode, &x->chunkp, &ref);
    if (status != NCS_NOERR)
        return status;
    if (mode == NCSI_CACHE_OVERWRITE && edge)
        fill_chunk(cv, x->chunkp, cv->chunk_bytes);   /* the part past the edge */
    x->mbase = moff;
    status = ncsi_slab_blocks(sub, cv->cdsz, block_in_chunk, x);
    ncsi_cache_release(ref);
    return status;
}

/* ---- HDF5's own path, for layouts ncslab does not move itself ------------------------ */

/* Memory type for HDF5 reads and writes of v's elements. */
static hid_t memory_type(const ncs_var *v)
{
    return memory_type_of(v->type);
}

/* Reads or writes the selection start/count/stride of the dataset to or
 * from the dense buffer tmp. */
static int h5_transfer(cvar *cv, int ndims, const hsize_t *start, const hsize_t *count,
                       const hsize_t *stride, hid_t mtype, unsigned char *tmp, int put)
{
    hid_t fspace = H5Dget_space(cv->dset), mspace;
    hsize_t n = 1;
    int status = NCS_NOERR;
    if (fspace < 0)
        return NCS_ERR(NCS_EHDFERR);
    for (int d = 0; d < ndims; d++)
        n *= count[d];
    if (ndims > 0 && H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, stride, count, NULL) < 0) {
        H5Sclose(fspace);
        return NCS_ERR(NCS_EHDFERR);
    }
    mspace = ndims > 0 ? H5Screate_simple(1, &n, NULL) : H5Screate(H5S_SCALAR);
    if (mspace < 0)
        status = NCS_ERR(NCS_EHDFERR);
    else if (put ? H5Dwrite(cv->dset, mtype, mspace, fspace, H5P_DEFAULT, tmp) < 0
                 : H5Dread(cv->dset, mtype, mspace, fspace, H5P_DEFAULT, tmp) < 0)
        status = NCS_ERR(NCS_EHDFERR);
    if (mspace >= 0)
        H5Sclose(mspace);
    H5Sclose(fspace);
    return status;
}

/* A request in the variable's own type and natural order: HDF5 moves the
 * caller's buffer itself (a contiguous dataset's rows are one read), with
 * no copy through a buffer of the request's size. */
static int fallback_in_place(cvar *cv, const ncs_var *v, const hsize_t *start,
                             const hsize_t *count, const hsize_t *stride, unsigned char *buf,
                             int put)
{
    H5D_space_status_t alloc;
    hid_t mtype = memory_type(v);
    int status;
    if (mtype < 0)
        return NCS_ERR(NCS_EHDFERR);
    if (!put) {
        uint64_t n = 1;
        for (int d = 0; d < v->ndims; d++)
            n *= count[d];
        /* where nothing is allocated and the fill time is "never", HDF5
         * leaves the buffer as it is: fill values, as elsewhere (storage
         * not chunked, once allocated, stays so; chunks come with growth) */
        if (cv->allocated ||
            (H5Dget_space_status(cv->dset, &alloc) >= 0 && alloc == H5D_SPACE_STATUS_ALLOCATED))
            cv->allocated = cv->st.contiguous;
        else
            fill_chunk(cv, buf, (size_t)n * cv->esz);
    }
    status = h5_transfer(cv, v->ndims, start, count, stride, mtype, buf, put);
    H5Tclose(mtype);
    return status;
}

static int fallback(ncs_file *f, cvar *cv, const ncs_var *v, const ncs_slab *s,
                    int memtype, unsigned char *buf, int put)
{
    hsize_t start[NCS_MAX_VAR_DIMS], count[NCS_MAX_VAR_DIMS], stride[NCS_MAX_VAR_DIMS];
    uint64_t dsz[NCS_MAX_VAR_DIMS], n = 1, per_rec = 1;
    ncs_slab dense;
    unsigned char *tmp;
    hid_t mtype;
    cx x;
    int status = NCS_NOERR;

    for (int d = 0; d < v->ndims; d++) {
        start[d] = s->start[d];
        count[d] = s->count[d];
        stride[d] = s->stride[d];
    }
    if (memtype == v->type && ncsi_slab_natural_map(s) &&
        (put || !v->isrec || s->start[0] + (s->count[0] - 1) * s->stride[0] < cv->extent0))
        return fallback_in_place(cv, v, start, count, stride, buf, put);
    for (int d = v->ndims - 1; d >= 0; d--) {
        n *= s->count[d];
        dsz[d] = n;
        if (d > 0)
            per_rec *= s->count[d];
    }
    tmp = ncsi_malloc((size_t)(n ? n : 1) * cv->esz);
    /* HDF5 leaves the buffer as it is where nothing was ever allocated and
     * the dataset's fill time is "never": fill values then, as the direct
     * chunk path gives, never stale heap bytes */
    if (tmp != NULL && !put)
        fill_chunk(cv, tmp, (size_t)(n ? n : 1) * cv->esz);
    mtype = memory_type(v);
    if (tmp == NULL || mtype < 0) {
        free(tmp);
        if (mtype >= 0)
            H5Tclose(mtype);
        return tmp == NULL ? NCS_ERR(NCS_ENOMEM) : NCS_ERR(NCS_EHDFERR);
    }
    /* the request as a dense array of the variable's type, natural order */
    status = ncsi_slab_copy(&dense, s);
    if (status != NCS_NOERR) {
        free(tmp);
        H5Tclose(mtype);
        return status;
    }
    dense.isrec = 0;
    for (int d = 0; d < v->ndims; d++) {
        dense.start[d] = 0;
        dense.stride[d] = 1;
    }
    memset(&x, 0, sizeof x);
    x.f = f;
    x.cv = cv;
    x.v = v;
    x.memtype = memtype;
    x.msz = ncsi_type_size(memtype);
    x.buf = buf;
    x.chunkp = tmp;
    x.put = put;

    if (put) {
        status = ncsi_slab_runs(&dense, dsz, run_in_chunk, &x);
        if (status == NCS_NOERR)
            status = h5_transfer(cv, v->ndims, start, count, stride, mtype, tmp, 1);
    } else if (v->isrec && s->start[0] + (s->count[0] - 1) * s->stride[0] >= cv->extent0) {
        /* records past this dataset's extent are fill values */
        for (uint64_t i = 0; i < s->count[0] && status == NCS_NOERR; i++) {
            uint64_t rec = s->start[0] + i * s->stride[0];
            unsigned char *part = tmp + i * per_rec * cv->esz;
            if (rec >= cv->extent0) {
                fill_chunk(cv, part, (size_t)per_rec * cv->esz);
                continue;
            }
            start[0] = rec;
            count[0] = 1;
            status = h5_transfer(cv, v->ndims, start, count, stride, mtype, part, 0);
        }
    } else {
        status = h5_transfer(cv, v->ndims, start, count, stride, mtype, tmp, 0);
    }
    if (status == NCS_NOERR && !put)
        status = ncsi_slab_runs(&dense, dsz, run_in_chunk, &x);
    if (status == NCS_NOERR && x.erange)
        status = NCS_ERANGE;
    ncsi_slab_release(&dense);
    H5Tclose(mtype);
    free(tmp);
    return status;
}

/* ---- store methods ---------------------------------------------------------------------- */

static int ch_get(ncs_file *f, int varid, const ncs_slab *s, int memtype, void *buf)
{
    chunked *cs = CS(f);
    cvar *cv = cs->vars[varid];
    cx x = { f, cv, &f->model.vars[varid], memtype, ncsi_type_size(memtype), buf, NULL, 0, 0, 0 };
    int status;
    if (cv->blocked && s->nelems * cv->esz >= BYPASS_BYTES) {
        status = ncsi_cache_flush(cv);
        return status != NCS_NOERR ? status : fallback(f, cv, x.v, s, memtype, buf, 0);
    }
    if (!cv->direct)
        return fallback(f, cv, x.v, s, memtype, buf, 0);
    status = ncsi_slab_chunks(s, cv->chunk, chunk_part, &x);
    if (status == NCS_NOERR && x.erange)
        status = NCS_ERANGE;
    return status;
}

/* The index bounds of every variable, after the record count changed. */
static void update_limits(ncs_file *f)
{
    chunked *cs = CS(f);
    for (int i = 0; i < cs->nvars && i < f->model.nvars; i++) {
        const ncs_var *v = &f->model.vars[i];
        cvar *cv = cs->vars[i];
        if (cv == NULL)
            continue;
        for (int d = 0; d < v->ndims; d++)
            cv->lim[d] = (d == 0 && v->isrec) ? f->model.numrecs : v->shape[d];
    }
}

/* Grows the record count and this variable's dataset to nrecs records. */
static int grow_records(ncs_file *f, cvar *cv, const ncs_var *v, uint64_t nrecs)
{
    if (nrecs > f->model.numrecs) {
        f->model.numrecs = nrecs;
        update_limits(f);
    }
    if (nrecs > cv->extent0) {
        hsize_t dims[NCS_MAX_VAR_DIMS];
        for (int d = 0; d < v->ndims; d++)
            dims[d] = v->shape[d];
        dims[0] = nrecs;
        if (H5Dset_extent(cv->dset, dims) < 0)
            return NCS_ERR(NCS_EHDFERR);
        cv->extent0 = nrecs;
    }
    return NCS_NOERR;
}

static int ch_put(ncs_file *f, int varid, const ncs_slab *s, int memtype, const void *buf)
{
    chunked *cs = CS(f);
    cvar *cv = cs->vars[varid];
    cx x = { f, cv, &f->model.vars[varid], memtype, ncsi_type_size(memtype),
             (unsigned char *)buf, NULL, 0, 1, 0 };
    int status = NCS_NOERR;
    /* netCDF-4 files grow only by data actually written (netCDF-C's
     * netCDF-4 code, unlike its classic one, ignores empty writes) */
    if (s->nelems == 0)
        return NCS_NOERR;
    if (x.v->isrec && s->recs_needed > cv->extent0)
        status = grow_records(f, cv, x.v, s->recs_needed);
    if (status != NCS_NOERR)
        return status;
    if (cv->blocked && s->nelems * cv->esz >= BYPASS_BYTES) {
        /* cached blocks would hide what HDF5 writes now */
        status = ncsi_cache_flush(cv);
        if (status == NCS_NOERR) {
            cv->pptr = NULL;
            status = ncsi_cache_drop(cv, 0);
        }
        return status != NCS_NOERR ? status : fallback(f, cv, x.v, s, memtype, (unsigned char *)buf, 1);
    }
    if (!cv->direct)
        return fallback(f, cv, x.v, s, memtype, (unsigned char *)buf, 1);
    status = ncsi_slab_chunks(s, cv->chunk, chunk_part, &x);
    if (status == NCS_NOERR && (f->flags & NCSI_F_SHARE))
        status = ncsi_cache_flush(cv);
    if (status == NCS_NOERR && x.erange)
        status = NCS_ERANGE;
    return status;
}

/* Moves the pin to the chunk holding index (in bounds: checked) and reads
 * the element; everything but the pinned case, kept out of line so that
 * the pinned case stays small. */
static __attribute__((noinline)) int ch_get1_slow(ncs_file *f, int varid, const size_t *index,
                                                  void *buf)
{
    chunked *cs = CS(f);
    cvar *cv;
    uint64_t elem = 0, idx = 0;
    unsigned char *p;
    int nd, status;
    if (varid >= cs->nvars || (cv = cs->vars[varid]) == NULL || !cv->direct ||
        (nd = cv->ndims) == 0)
        return ncsi_get1_general(f, varid, index, buf);
    for (int d = 0; d < nd; d++)
        if (index[d] >= cv->lim[d])
            return ncsi_get1_general(f, varid, index, buf);
    for (int d = 0; d < nd; d++) {
        uint64_t c = index[d] / cv->chunk[d];
        cv->plo[d] = c * cv->chunk[d];
        cv->pext[d] = cv->lim[d] - cv->plo[d] < cv->chunk[d] ? cv->lim[d] - cv->plo[d]
                                                              : cv->chunk[d];
        idx = (d == 0) ? c : idx * cv->grid[d] + c;
    }
    status = ncsi_cache_pin(cv, &chunk_ops, idx, cv->chunk_bytes, cv->pptr != NULL,
                            cv->pidx, &p);
    if (status != NCS_NOERR) {
        cv->pptr = NULL;
        return status;
    }
    cv->pptr = p;
    cv->pidx = idx;
    for (int d = 0; d < nd; d++)
        elem += (index[d] - cv->plo[d]) * cv->estride[d];
    memcpy(buf, cv->pptr + elem * cv->esz, cv->esz);
    return NCS_NOERR;
}

/* One element in the variable's own type from its pinned chunk (a pin
 * exists only for a direct variable of rank > 0), else the slow way. */
static int ch_get1(ncs_file *f, int varid, const size_t *index, void *buf)
{
    chunked *cs = CS(f);
    const cvar *cv;
    const unsigned char *e;
    uint64_t elem = 0;
    if ((unsigned)varid >= (unsigned)cs->nvars || (cv = cs->vars[varid]) == NULL ||
        cv->pptr == NULL)
        return ch_get1_slow(f, varid, index, buf);
    for (int d = 0; d < cv->ndims; d++) {
        uint64_t rel = index[d] - cv->plo[d];    /* wraps when below */
        if (rel >= cv->pext[d])
            return ch_get1_slow(f, varid, index, buf);
        elem += rel * cv->estride[d];
    }
    e = cv->pptr + elem * cv->esz;
    /* fixed-size copies: no call for a few bytes */
    switch (cv->esz) {
    case 1: memcpy(buf, e, 1); break;
    case 2: memcpy(buf, e, 2); break;
    case 4: memcpy(buf, e, 4); break;
    default: memcpy(buf, e, 8); break;
    }
    return NCS_NOERR;
}

static int ch_new_state(ncs_file *f, hid_t fid)
{
    chunked *cs;
    /* without the driver's handle nothing would ever be committed */
    void *journal = ncsi_h5j_handle(fid);
    if (journal == NULL)
        return NCS_ERR(NCS_EHDFERR);
    cs = ncsi_calloc(1, sizeof *cs);
    if (cs == NULL)
        return NCS_ERR(NCS_ENOMEM);
    cs->fid = fid;
    cs->journal = journal;
    ncsi_h5j_limit(journal, ncsi_cache_budget());
    cs->version = 4;
    f->state = cs;
    f->version = 4;
    return NCS_NOERR;
}

static void ch_free_state(ncs_file *f)
{
    chunked *cs = CS(f);
    if (cs == NULL)
        return;
    for (int i = 0; i < cs->nvars; i++)
        cvar_free(cs->vars[i]);
    free(cs->vars);
    for (int d = 0; d < cs->ndimds; d++)
        free(cs->dimnames[d]);
    free(cs->dimnames);
    free(cs->dimds);
    free(cs);
    f->state = NULL;
}

static int ch_create(ncs_file *f, const char *path, int cmode)
{
    hid_t fid;
    int status = ncsi_nc4_create(path, cmode, &fid);
    if (status != NCS_NOERR)
        return status;
    status = ch_new_state(f, fid);
    if (status != NCS_NOERR) {
        H5Fclose(fid);
        unlink(path);
        return status;
    }
    CS(f)->strict = (cmode & NCS_CLASSIC_MODEL) != 0;
    if (!CS(f)->strict)
        f->flags |= NCSI_F_NC4;
    return status;
}

static int ch_open(ncs_file *f, const char *path, int mode)
{
    hid_t fid;
    chunked *cs;
    int status = ncsi_nc4_open(path, (mode & NCS_WRITE) != 0, &fid);
    if (status != NCS_NOERR)
        return status;
    status = ch_new_state(f, fid);
    if (status != NCS_NOERR) {
        H5Fclose(fid);
        return status;
    }
    cs = CS(f);
    /* a file written without the classic model's mark keeps its format */
    cs->strict = H5Aexists(fid, "_nc3_strict") > 0;
    if (!cs->strict)
        f->flags |= NCSI_F_NC4;
    status = ncsi_nc4_read(cs, &f->model);
    for (int i = 0; i < f->model.nvars && status == NCS_NOERR; i++) {
        cs->vars[i]->attached = 1;
        status = ncsi_cvar_setup(cs->vars[i], &f->model);
    }
    if (status == NCS_NOERR)
        update_limits(f);
    if (status != NCS_NOERR) {
        ncsi_nc4_close_objects(cs);
        ncsi_model_free(&f->model);
        ch_free_state(f);
        H5Fclose(fid);
    }
    return status;
}

/* A cvar for every variable of the model (new ones get default settings). */
static int ensure_cvars(ncs_file *f)
{
    chunked *cs = CS(f);
    for (int i = 0; i < f->model.nvars; i++)
        if (i >= cs->nvars || cs->vars[i] == NULL) {
            /* a variable of this define mode: netCDF-C's default storage
             * is contiguous for fixed-size variables (a filter makes them
             * chunked), chunked for record variables */
            if (ncsi_cvar_new(cs, i, f->model.vars[i].ndims) == NULL)
                return NCS_ERR(NCS_ENOMEM);
            cs->vars[i]->st.contiguous = !f->model.vars[i].isrec;
        }
    return NCS_NOERR;
}

static int flush_data(ncs_file *f)
{
    chunked *cs = CS(f);
    int status = NCS_NOERR;
    for (int i = 0; i < cs->nvars && status == NCS_NOERR; i++)
        if (cs->vars[i] != NULL)
            status = ncsi_cache_flush(cs->vars[i]);
    return status;
}

/* Writes every dirty chunk, then the metadata, then makes that the file's
 * committed state (nc4_journal.c): chunks first, so that no committed
 * extent covers a chunk not in the file. */
static int commit(ncs_file *f, int durable)
{
    chunked *cs = CS(f);
    int status = flush_data(f);
    if (status == NCS_NOERR && cs->meta_dirty)
        status = ncsi_nc4_write(cs, &f->model);
    if (status == NCS_NOERR && H5Fflush(cs->fid, H5F_SCOPE_LOCAL) < 0)
        status = NCS_ERR(NCS_EHDFERR);
    if (status == NCS_NOERR)
        status = ncsi_h5j_commit(cs->journal, durable);
    /* chunks rewritten in place until the next commit: the cache's budget
     * again (asked here, outside HDF5: the driver runs under HDF5's lock) */
    ncsi_h5j_limit(cs->journal, ncsi_cache_budget());
    return status;
}

static int ch_enddef(ncs_file *f, size_t h_minfree, size_t v_align, size_t v_minfree,
                     size_t r_align)
{
    chunked *cs = CS(f);
    int status = ensure_cvars(f);
    (void)h_minfree;
    (void)v_align;
    (void)v_minfree;
    (void)r_align;
    cs->nofill = (f->flags & NCSI_F_NOFILL) != 0;
    for (int i = 0; i < f->model.nvars && status == NCS_NOERR; i++)
        if (cs->vars[i]->dset < 0)
            status = ncsi_cvar_setup(cs->vars[i], &f->model);
    if (status == NCS_NOERR)
        status = ncsi_nc4_write(cs, &f->model);
    if (status == NCS_NOERR)
        update_limits(f);
    /* the new layout is committed, as netCDF-C flushes at enddef: a file
     * created and killed afterwards opens, empty */
    if (status == NCS_NOERR)
        status = commit(f, 0);
    return status;
}

/* Data-mode header changes wait for the next sync or close, NC_SHARE or
 * not, as in netCDF-C (whose netCDF-4 code ignores NC_SHARE): written
 * together, attributes rewritten meanwhile are recreated in their list
 * order, which is the order a reader sees after a reopen. */
static int ch_write_header(ncs_file *f)
{
    CS(f)->meta_dirty = 1;
    return NCS_NOERR;
}

static int ch_sync(ncs_file *f)
{
    if (!(f->flags & NCSI_F_WRITE))
        return NCS_NOERR;
    return commit(f, 1);
}

static int ch_close(ncs_file *f, int abort)
{
    chunked *cs = CS(f);
    int status = NCS_NOERR, s2;
    int keep = (f->flags & NCSI_F_WRITE) && !(abort && (f->flags & NCSI_F_CREATED));
    void **owners = ncsi_malloc((cs->nvars > 0 ? (size_t)cs->nvars : 1) * sizeof *owners);
    size_t n = 0;
    for (int i = 0; i < cs->nvars; i++) {
        if (cs->vars[i] == NULL)
            continue;
        cs->vars[i]->pptr = NULL;
        if (owners != NULL)
            owners[n++] = cs->vars[i];
        else if ((s2 = ncsi_cache_drop(cs->vars[i], keep)) != NCS_NOERR && status == NCS_NOERR)
            status = s2;    /* (no memory for the list: one by one) */
    }
    if (owners != NULL) {
        status = ncsi_cache_drop_all(owners, n, keep);
        free(owners);
    }
    /* an abort keeps what a close keeps, except a redefinition (the model
     * is back to its state at ncs_redef, data-mode changes included) */
    if (keep && cs->meta_dirty && status == NCS_NOERR)
        status = ncsi_nc4_write(cs, &f->model);
    /* committed here: what HDF5 writes while closing is not (the driver
     * discards it), so a failed close leaves the last committed state */
    if (keep && status == NCS_NOERR)
        status = commit(f, 0);
    ncsi_nc4_close_objects(cs);
    if (H5Fclose(cs->fid) < 0 && status == NCS_NOERR)
        status = NCS_ERR(NCS_EHDFERR);
    ch_free_state(f);
    return status;
}

static int ch_def_storage(ncs_file *f, int varid, const ncs_storage *st)
{
    chunked *cs = CS(f);
    const ncs_var *v = &f->model.vars[varid];
    ncs_storage next = *st;
    cvar *cv;
    int status = ensure_cvars(f);
    if (status != NCS_NOERR)
        return status;
    /* settings belong to the variable's creation, as in netCDF-C */
    if (cs->vars[varid]->dset >= 0)
        return NCS_ERR(NCS_ELATEDEF);
    if (!(f->flags & NCSI_F_INDEF))
        return NCS_ERR(NCS_ENOTINDEFINE);
    /* filters need chunks: a contiguous variable becomes chunked */
    if (next.contiguous && v->ndims > 0 &&
        (next.shuffle || next.deflate_level || next.zstd_level || next.fletcher32) &&
        !(st->contiguous && !cs->vars[varid]->st.contiguous))
        next.contiguous = 0;
    if (next.contiguous) {
        /* a record variable cannot be contiguous */
        if (v->isrec)
            return NCS_ERR(NCS_EINVAL);
        if (next.shuffle || next.deflate_level || next.zstd_level || next.fletcher32)
            return NCS_ERR(NCS_EINVAL);
    } else if (v->ndims == 0) {
        return NCS_ERR(NCS_EINVAL);      /* a scalar has no chunks */
    } else if (next.chunks_set) {
        uint64_t bytes = ncsi_type_size(v->type);
        for (int d = 0; d < v->ndims; d++) {
            if (next.chunks[d] == 0 || (v->shape[d] != 0 && next.chunks[d] > v->shape[d]) ||
                ncsi_mul_u64(bytes, next.chunks[d], &bytes))
                return NCS_ERR(NCS_EBADCHUNK);
        }
        if (bytes > UINT32_MAX)       /* HDF5 chunks are under 4 GiB */
            return NCS_ERR(NCS_EBADCHUNK);
    }
    cv = cs->vars[varid];
    cv->st = (cvar_settings){ next.contiguous, next.compact, next.chunks_set, next.shuffle,
                              next.deflate_level, next.zstd_level, next.fletcher32 };
    memcpy(cv->stchunks, next.chunks, (size_t)cv->ndims * sizeof *cv->stchunks);
    return NCS_NOERR;
}

static int ch_inq_storage(ncs_file *f, int varid, ncs_storage *st)
{
    chunked *cs = CS(f);
    int status = ensure_cvars(f);
    cvar *cv;
    if (status != NCS_NOERR)
        return status;
    cv = cs->vars[varid];
    st->contiguous = cv->st.contiguous;
    st->compact = cv->st.compact;
    st->chunks_set = cv->st.chunks_set;
    st->shuffle = cv->st.shuffle;
    st->deflate_level = cv->st.deflate_level;
    st->zstd_level = cv->st.zstd_level;
    st->fletcher32 = cv->st.fletcher32;
    memcpy(st->chunks, cv->stchunks, (size_t)cv->ndims * sizeof *cv->stchunks);
    memset(st->chunks + cv->ndims, 0,
           (size_t)(NCS_MAX_VAR_DIMS - cv->ndims) * sizeof *st->chunks);
    if (!st->contiguous && !st->chunks_set && cv->dset < 0) {
        /* not laid out yet: report the default shape it will get */
        ncsi_default_chunks(&f->model, &f->model.vars[varid], st->chunks);
    }
    if (f->model.vars[varid].ndims == 0)
        st->contiguous = 1;
    return NCS_NOERR;
}

/* HDF5 files (netCDF-4) start with \211HDF\r\n\032\n at offset 0 or at 512,
 * 1024, 2048, ... (after a user block). */
static int ch_probe(ncs_io *io, uint64_t size, int *claims)
{
    static const unsigned char sig[8] = { 0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n' };
    unsigned char buf[8];
    size_t got;
    for (uint64_t off = 0; off + 8 <= size; off = off ? off * 2 : 512) {
        int status = ncsi_io_read(io, off, buf, 8, &got);
        if (status != NCS_NOERR)
            return status;
        if (got == 8 && memcmp(buf, sig, 8) == 0) {
            *claims = 1;
            break;
        }
    }
    return NCS_NOERR;
}

/* NCS_NETCDF4 selects chunked storage.  ncslab speaks only the classic data
 * model, but, as netCDF-C, marks the file classic-model only with
 * NCS_CLASSIC_MODEL (ch_create reads cmode). */
static int ch_creates(int cmode)
{
    return (cmode & NCS_NETCDF4) != 0;
}

const ncs_store_methods ncsi_chunked_store = {
    .name = "chunked",
    .probe = ch_probe,
    .creates = ch_creates,
    .open = ch_open,
    .create = ch_create,
    .enddef = ch_enddef,
    .get = ch_get,
    .get1 = ch_get1,
    .put = ch_put,
    .write_header = ch_write_header,
    .sync = ch_sync,
    .close = ch_close,
    .def_storage = ch_def_storage,
    .inq_storage = ch_inq_storage,
};
