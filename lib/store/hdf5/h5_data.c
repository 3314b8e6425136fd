/*
 * h5_data.c -- the HDF5 back end's element data in and out of HDF5: the
 * loads and stores of the chunk cache (ncsi_h5_chunk_ops: whole chunks
 * through HDF5's direct chunk I/O and ncslab's own filter pipeline, or the
 * blocks of a contiguous dataset through selections), and HDF5's own
 * selection read and write for what ncslab does not move itself
 * (ncsi_h5_fallback).
 *
 * A chunk the file does not hold (never written, or beyond the dataset's
 * extent) loads as fill values, and so does whatever HDF5 would leave
 * untouched (storage never allocated under the fill time "never"): a read
 * never returns bytes that were not written or filled.  Chunk loads run
 * outside the chunk cache's lock, on the file's thread or the decoding
 * pool's (chunk_data.c): HDF5 reads a chunk's bytes under its own lock,
 * and the filters decode them after it is released.
 */
#include "hdf5_store.h"

#include <stdlib.h>
#include <string.h>

/* ---- moving chunks --------------------------------------------------------------- */

/* HDF5 offsets of chunk idx's first element. */
static void chunk_offset(const cvar *v, uint64_t idx, hsize_t *off)
{
    uint64_t o[NCS_MAX_VAR_DIMS];
    ncsi_chunk_origin(&v->ck, idx, o);
    for (int d = 0; d < v->ck.ndims; d++)
        off[d] = o[d];
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
    for (int d = 0; d < v->ck.ndims; d++) {
        dims[d] = v->ck.chunk[d];
        cnt[d] = v->ck.shape[d] - off[d] < v->ck.chunk[d] ? v->ck.shape[d] - off[d] : v->ck.chunk[d];
        if (cnt[d] < dims[d])
            edge = 1;
    }
    if (!put && !v->allocated &&
        H5Dget_space_status(v->dset, &alloc) >= 0 && alloc == H5D_SPACE_STATUS_ALLOCATED)
        v->allocated = 1;
    if (!put && (edge || !v->allocated))
        ncsi_chunk_fill(&v->ck, buf, size);
    fspace = H5Dget_space(v->dset);
    mspace = H5Screate_simple(v->ck.ndims, dims, NULL);
    mtype = memory_type_of(v->ck.type);
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

/* Where a read-only file's index says chunk idx is: *found 0 when it has
 * no index for v (then v->ck.unlocated is set), or when the chunk is not
 * stored. */
static int chunk_entry(cvar *v, uint64_t idx, ncsi_caddr *e, int *found)
{
    const ncsi_ctab *t;
    int status;
    *found = 0;
    if (v->blocked || v->dset < 0) {
        __atomic_store_n(&v->ck.unlocated, 1, __ATOMIC_RELAXED);
        return NCS_NOERR;
    }
    status = ncsi_h5_ctab(v, &t);
    if (status != NCS_NOERR || t == NULL)
        return status;
    return ncsi_h5_ctab_find(t, idx, e, found);
}

/* Loads a chunk of a read-only file from where its table entry e says
 * (NULL: none stored), outside HDF5. */
static int load_at(cvar *v, const ncsi_caddr *e, unsigned char *buf, size_t size)
{
    unsigned char *stored;
    int status;
    if (e == NULL) {
        ncsi_chunk_fill(&v->ck, buf, size);
        return NCS_NOERR;
    }
    if (v->ck.nf == 0) {
        if (e->size != size)
            return NCS_ERR(NCS_EHDFERR);
        status = ncsi_h5j_pread(v->cs->journal, e->addr, buf, size);
    } else {
        stored = ncsi_malloc(e->size);
        if (stored == NULL)
            return NCS_ERR(NCS_ENOMEM);
        status = ncsi_h5j_pread(v->cs->journal, e->addr, stored, e->size);
        if (status == NCS_NOERR)
            status = ncsi_filters_decode(v->ck.pipe, v->ck.nf, e->mask, v->ck.esz, stored,
                                         e->size, buf, size);
        free(stored);
    }
    if (status == NCS_NOERR && v->ck.swap)
        ncsi_chunk_swap(buf, size, v->ck.esz);
    return status;
}

static int chunk_load(void *owner, uint64_t idx, unsigned char *buf, size_t size)
{
    cvar *v = ncsi_cvar_of(owner);
    hsize_t off[NCS_MAX_VAR_DIMS], nbytes = 0;
    uint32_t mask = 0;
    unsigned char *stored;
    ncsi_caddr e;
    int found, status = NCS_NOERR;

    __atomic_add_fetch(&v->ck.loads, 1, __ATOMIC_RELAXED);
    if (v->blocked && v->dset >= 0)
        return block_io(v, idx, buf, size, 0);
    if (v->dset >= 0) {
        status = chunk_entry(v, idx, &e, &found);
        if (status != NCS_NOERR)
            return status;
        if (!__atomic_load_n(&v->ck.unlocated, __ATOMIC_RELAXED))
            return load_at(v, found ? &e : NULL, buf, size);
    }
    chunk_offset(v, idx, off);
    if (v->dset < 0 || (v->ck.ndims > 0 && off[0] >= v->extent0) ||
        H5Dget_chunk_storage_size(v->dset, off, &nbytes) < 0 || nbytes == 0) {
        ncsi_chunk_fill(&v->ck, buf, size);
        return NCS_NOERR;
    }
    if (v->ck.nf == 0) {
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
            status = ncsi_filters_decode(v->ck.pipe, v->ck.nf, mask, v->ck.esz, stored,
                                         (size_t)nbytes, buf, size);
        free(stored);
        if (status != NCS_NOERR)
            return status;
    }
    if (v->ck.swap)
        ncsi_chunk_swap(buf, size, v->ck.esz);
    return NCS_NOERR;
}

/* The bytes stored for a decoded chunk: byte-swapped to the file's order
 * and through the filters; *out NULL when they are buf's own (always for a
 * blocked variable: block_io hands HDF5 the native elements).  Reads only
 * the variable's fixed description, so chunks encode on several threads. */
static int chunk_encode(void *owner, const unsigned char *buf, size_t size,
                        unsigned char **out, size_t *outn)
{
    cvar *v = ncsi_cvar_of(owner);
    unsigned char *tmp = NULL;
    const unsigned char *data = buf;
    int status = NCS_NOERR;

    *out = NULL;
    *outn = size;
    if (v->blocked)
        return NCS_NOERR;
    if (v->ck.swap) {
        tmp = ncsi_malloc(size);
        if (tmp == NULL)
            return NCS_ERR(NCS_ENOMEM);
        memcpy(tmp, buf, size);
        ncsi_chunk_swap(tmp, size, v->ck.esz);
        data = tmp;
    }
    if (v->ck.nf > 0) {
        status = ncsi_filters_encode(v->ck.pipe, v->ck.nf, v->ck.esz, data, size, out, outn);
        free(tmp);
    } else {
        *out = tmp;
    }
    return status;
}

static int chunk_write(void *owner, uint64_t idx, const unsigned char *data, size_t n)
{
    cvar *v = ncsi_cvar_of(owner);
    hsize_t off[NCS_MAX_VAR_DIMS];
    if (v->blocked)
        return block_io(v, idx, (unsigned char *)data, n, 1);
    chunk_offset(v, idx, off);
    if (H5Dwrite_chunk(v->dset, H5P_DEFAULT, 0, off, n, data) < 0)
        return NCS_ERR(NCS_EHDFERR);
    return NCS_NOERR;
}

static int chunk_store(void *owner, uint64_t idx, const unsigned char *buf, size_t size)
{
    unsigned char *out = NULL;
    size_t n;
    int status = chunk_encode(owner, buf, size, &out, &n);
    if (status == NCS_NOERR)
        status = chunk_write(owner, idx, out != NULL ? out : buf, n);
    free(out);
    return status;
}

static void hint(void *arg, uint64_t off, uint64_t n)
{
    ncsi_h5j_willneed(arg, off, n);
}

/* The read-ahead hints of a cold get (chunk_data.c): each chunk's stored
 * bytes (or the span read_part will read), in runs (ncsi_chunk_hint_runs). */
static void chunk_willneed(void *owner, const ncs_chunk_want *w, size_t n)
{
    cvar *v = ncsi_cvar_of(owner);
    uint64_t *lo, *hi;
    size_t k = 0;
    lo = ncsi_malloc(2 * n * sizeof *lo);
    if (lo == NULL)
        return;
    hi = lo + n;
    for (size_t i = 0; i < n; i++) {
        ncsi_caddr e;
        int found;
        uint64_t off = w[i].off, len = w[i].n;
        if (chunk_entry(v, w[i].idx, &e, &found) != NCS_NOERR || !found)
            continue;
        if (len == 0 || v->ck.nf != 0) {
            off = 0;
            len = e.size;
        } else if (off > e.size || len > e.size - off) {
            continue;
        }
        lo[k] = e.addr + off;
        hi[k++] = e.addr + off + len;
    }
    ncsi_chunk_hint_runs(lo, hi, k, hint, v->cs->journal);
    free(lo);
}

static int chunk_read_part(void *owner, uint64_t idx, uint64_t off, unsigned char *buf,
                           size_t n, int *done)
{
    cvar *v = ncsi_cvar_of(owner);
    ncsi_caddr e;
    int found, status;
    *done = 0;
    if (v->ck.nf != 0)
        return NCS_NOERR;
    status = chunk_entry(v, idx, &e, &found);
    if (status != NCS_NOERR || __atomic_load_n(&v->ck.unlocated, __ATOMIC_RELAXED))
        return status;
    *done = 1;
    if (!found) {
        ncsi_chunk_fill(&v->ck, buf, n);
        return NCS_NOERR;
    }
    if (e.size != v->ck.chunk_bytes || off > e.size || n > e.size - off)
        return NCS_ERR(NCS_EHDFERR);
    status = ncsi_h5j_pread(v->cs->journal, e.addr + off, buf, n);
    if (status == NCS_NOERR && v->ck.swap)
        ncsi_chunk_swap(buf, n, v->ck.esz);
    return status;
}

const ncs_chunk_ops ncsi_h5_chunk_ops = {
    .load = chunk_load,
    .store = chunk_store,
    .encode = chunk_encode,
    .write = chunk_write,
    .willneed = chunk_willneed,
    .read_part = chunk_read_part,
};

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
            ncsi_chunk_fill(&cv->ck, buf, (size_t)n * cv->ck.esz);
    }
    status = h5_transfer(cv, v->ndims, start, count, stride, mtype, buf, put);
    H5Tclose(mtype);
    return status;
}

int ncsi_h5_fallback(ncs_file *f, cvar *cv, const ncs_var *v, const ncs_slab *s,
                     int memtype, unsigned char *buf, int put)
{
    hsize_t start[NCS_MAX_VAR_DIMS], count[NCS_MAX_VAR_DIMS], stride[NCS_MAX_VAR_DIMS];
    uint64_t dsz[NCS_MAX_VAR_DIMS], n = 1, per_rec = 1;
    ncs_slab dense;
    unsigned char *tmp;
    hid_t mtype;
    int status = NCS_NOERR, erange = 0;

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
    tmp = ncsi_malloc((size_t)(n ? n : 1) * cv->ck.esz);
    /* HDF5 leaves the buffer as it is where nothing was ever allocated and
     * the dataset's fill time is "never": fill values then, as the direct
     * chunk path gives, never stale heap bytes */
    if (tmp != NULL && !put)
        ncsi_chunk_fill(&cv->ck, tmp, (size_t)(n ? n : 1) * cv->ck.esz);
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
    if (put) {
        status = ncsi_chunk_dense(&cv->ck, &dense, dsz, tmp, memtype, buf, 1, f->version,
                                  &erange);
        if (status == NCS_NOERR)
            status = h5_transfer(cv, v->ndims, start, count, stride, mtype, tmp, 1);
    } else if (v->isrec && s->start[0] + (s->count[0] - 1) * s->stride[0] >= cv->extent0) {
        /* records past this dataset's extent are fill values */
        for (uint64_t i = 0; i < s->count[0] && status == NCS_NOERR; i++) {
            uint64_t rec = s->start[0] + i * s->stride[0];
            unsigned char *part = tmp + i * per_rec * cv->ck.esz;
            if (rec >= cv->extent0) {
                ncsi_chunk_fill(&cv->ck, part, (size_t)per_rec * cv->ck.esz);
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
        status = ncsi_chunk_dense(&cv->ck, &dense, dsz, tmp, memtype, buf, 0, f->version,
                                  &erange);
    if (status == NCS_NOERR && erange)
        status = NCS_ERANGE;
    ncsi_slab_release(&dense);
    H5Tclose(mtype);
    free(tmp);
    return status;
}
