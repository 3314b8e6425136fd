/*
 * api_chunk.c -- public entry points for chunked storage settings, the
 * shared chunk cache, and the storage as the file records it (filter ids,
 * the chunk index) for validators.
 *
 * Storage settings belong to the back end: a back end without chunks (the
 * classic one) leaves def_storage NULL, and every setting call on such a
 * file fails with NCS_ENOTNC4, as netCDF-C answers for classic files;
 * inquiries report contiguous, unfiltered storage.
 */
#include "api.h"

#include <string.h>

static int storage_target(int ncid, int varid, int define, ncs_file **fp)
{
    ncs_file *f = ncsi_file_get(ncid);
    if (f == NULL)
        return NCS_ERR(NCS_EBADID);
    if (define && !NCSI_STORE_HAS(f, def_storage))
        return NCS_ERR(NCS_ENOTNC4);
    /* netCDF-C refuses a read-only file before it looks at the variable */
    if (define && !(f->flags & NCSI_F_WRITE))
        return NCS_ERR(NCS_EPERM);
    if (varid < 0 || varid >= f->model.nvars)
        return NCS_ERR(NCS_ENOTVAR);
    /* define-mode rules are the back end's (NCS_ELATEDEF comes first) */
    *fp = f;
    return NCS_NOERR;
}

/* The target of a storage call and the variable's present settings. */
static int storage_of(int ncid, int varid, int define, ncs_file **fp, ncs_storage *st)
{
    int status = storage_target(ncid, varid, define, fp);
    if (status == NCS_NOERR)
        status = ncsi_store_inq_storage(*fp, varid, st);
    return status;
}

/* Read-modify-write of one variable's settings. */
#define UPDATE_STORAGE(ncid, varid, st, change)              \
    do {                                                     \
        ncs_file *f_;                                        \
        int s_ = storage_of((ncid), (varid), 1, &f_, &(st)); \
        if (s_ != NCS_NOERR)                                 \
            return s_;                                       \
        change;                                              \
        return ncsi_store_def_storage(f_, (varid), &(st));   \
    } while (0)

int ncs_def_var_chunking(int ncid, int varid, int storage, const size_t *chunksizes)
{
    ncs_storage st;
    if (storage != NCS_CHUNKED && storage != NCS_CONTIGUOUS)
        return NCS_ERR(NCS_EINVAL);
    UPDATE_STORAGE(ncid, varid, st, {
        st.contiguous = storage == NCS_CONTIGUOUS;
        /* NULL chunksizes: the shape set before, else the default; a
         * first size of 0 asks for the default too (netCDF-C's rule, which
         * nccopy relies on), once the sizes given pass the store's checks
         * (the zeros among them are not looked at) */
        if (!st.contiguous && chunksizes != NULL) {
            const ncs_var *v_ = &f_->model.vars[varid];
            st.chunks_set = 1;
            for (int d = 0; d < v_->ndims; d++)
                st.chunks[d] = chunksizes[d];
            if (v_->ndims > 0 && chunksizes[0] == 0) {
                for (int d = 0; d < v_->ndims; d++)
                    st.chunks[d] = chunksizes[d] ? chunksizes[d] : 1;
                st.chunks_set = NCSI_CHUNKS_CHECK_ONLY;
            }
        }
    });
}

int ncs_def_var_deflate(int ncid, int varid, int shuffle, int deflate, int level)
{
    ncs_storage st;
    if (deflate && (level < 0 || level > 9))
        return NCS_ERR(NCS_EINVAL);
    UPDATE_STORAGE(ncid, varid, st, {
        st.shuffle = shuffle != 0;
        st.deflate_level = deflate ? level : 0;
    });
}

int ncs_def_var_zstd(int ncid, int varid, int level)
{
    ncs_storage st;
    if (level < 0 || level > 22)
        return NCS_ERR(NCS_EINVAL);
    UPDATE_STORAGE(ncid, varid, st, { st.zstd_level = level; });
}

int ncs_def_var_fletcher32(int ncid, int varid, int fletcher32)
{
    ncs_storage st;
    UPDATE_STORAGE(ncid, varid, st, { st.fletcher32 = fletcher32 != 0; });
}

int ncs_inq_var_chunking(int ncid, int varid, int *storagep, size_t *chunksizes)
{
    ncs_file *f = NULL;
    ncs_storage st;
    int status = storage_of(ncid, varid, 0, &f, &st);
    if (status != NCS_NOERR)
        return status;
    if (storagep != NULL)
        *storagep = st.compact ? NCS_COMPACT : st.contiguous ? NCS_CONTIGUOUS : NCS_CHUNKED;
    if (chunksizes != NULL && !st.contiguous)
        for (int d = 0; d < f->model.vars[varid].ndims; d++)
            chunksizes[d] = (size_t)st.chunks[d];
    return NCS_NOERR;
}

int ncs_inq_var_deflate(int ncid, int varid, int *shufflep, int *deflatep, int *levelp)
{
    ncs_file *f = NULL;
    ncs_storage st;
    int status = storage_of(ncid, varid, 0, &f, &st);
    if (status != NCS_NOERR)
        return status;
    if (shufflep != NULL)
        *shufflep = st.shuffle;
    if (deflatep != NULL)
        *deflatep = st.deflate_level > 0;
    if (levelp != NULL)
        *levelp = st.deflate_level > 0 ? st.deflate_level : 0;
    return NCS_NOERR;
}

int ncs_inq_var_zstd(int ncid, int varid, int *levelp)
{
    ncs_file *f = NULL;
    ncs_storage st;
    int status = storage_of(ncid, varid, 0, &f, &st);
    if (status == NCS_NOERR && levelp != NULL)
        *levelp = st.zstd_level;
    return status;
}

int ncs_inq_var_fletcher32(int ncid, int varid, int *fletcher32p)
{
    ncs_file *f = NULL;
    ncs_storage st;
    int status = storage_of(ncid, varid, 0, &f, &st);
    if (status == NCS_NOERR && fletcher32p != NULL)
        *fletcher32p = st.fletcher32;
    return status;
}

/* ---- the shared chunk cache ---------------------------------------------- */

int ncs_set_chunk_cache(size_t bytes)
{
    if (bytes == 0)
        return NCS_ERR(NCS_EINVAL);
    return ncsi_cache_set_budget(bytes);
}

int ncs_get_chunk_cache(size_t *bytesp)
{
    if (bytesp != NULL)
        *bytesp = ncsi_cache_budget();
    return NCS_NOERR;
}

int ncs_inq_cache_stats(unsigned long long *hitsp, unsigned long long *missesp,
                        unsigned long long *evictionsp, unsigned long long *bytes_readp,
                        unsigned long long *bytes_writtenp)
{
    ncs_cache_counters c;
    ncsi_cache_counters(&c);
    if (hitsp != NULL)
        *hitsp = c.hits;
    if (missesp != NULL)
        *missesp = c.misses;
    if (evictionsp != NULL)
        *evictionsp = c.evictions;
    if (bytes_readp != NULL)
        *bytes_readp = c.bytes_read;
    if (bytes_writtenp != NULL)
        *bytes_writtenp = c.bytes_written;
    return NCS_NOERR;
}

void ncs_reset_cache_stats(void)
{
    ncsi_cache_reset_counters();
}

/* ---- the decoding pool ---------------------------------------------------- */

int ncs_set_decode_threads(int n)
{
    return ncsi_pool_set(n);
}

int ncs_get_decode_threads(int *np)
{
    if (np != NULL)
        *np = ncsi_pool_size();
    return NCS_NOERR;
}

/* ---- byte order and quantization ----------------------------------------- */

/* The settings of a variable that may still take new ones: the store's
 * definition of what it has answers NCS_ELATEDEF or NCS_ENOTINDEFINE
 * first, as netCDF-C checks lateness before the values. */
static int settable(int ncid, int varid, ncs_file **fp, ncs_storage *st)
{
    int status = storage_of(ncid, varid, 1, fp, st);
    if (status == NCS_NOERR)
        status = ncsi_store_def_storage(*fp, varid, st);
    return status;
}

int ncs_def_var_endian(int ncid, int varid, int endian)
{
    ncs_file *f = NULL;
    ncs_storage st;
    int status = settable(ncid, varid, &f, &st);
    if (status != NCS_NOERR)
        return status;
    if (f->model.vars[varid].type == NCS_CHAR)
        return NCS_ERR(NCS_EINVAL);
    st.endian = endian;
    return ncsi_store_def_storage(f, varid, &st);
}

int ncs_inq_var_endian(int ncid, int varid, int *endianp)
{
    ncs_file *f = NULL;
    ncs_storage st;
    int status = storage_of(ncid, varid, 0, &f, &st);
    if (status != NCS_NOERR)
        return status;
    if (endianp != NULL)
        *endianp = st.endian;
    return NCS_NOERR;
}

int ncs_def_var_quantize(int ncid, int varid, int mode, int nsd)
{
    ncs_file *f = NULL;
    ncs_storage st;
    int status = settable(ncid, varid, &f, &st), type, max;
    if (status != NCS_NOERR)
        return status;
    if (mode != NCS_NOQUANTIZE) {
        if (mode != NCS_QUANTIZE_BITGROOM && mode != NCS_QUANTIZE_GRANULARBR &&
            mode != NCS_QUANTIZE_BITROUND)
            return NCS_ERR(NCS_EINVAL);
        type = f->model.vars[varid].type;
        if (type != NCS_FLOAT && type != NCS_DOUBLE)
            return NCS_ERR(NCS_EINVAL);
        if (mode == NCS_QUANTIZE_BITROUND)
            max = type == NCS_FLOAT ? 23 : 52;   /* explicit significand bits */
        else
            max = type == NCS_FLOAT ? 7 : 15;    /* decimal digits they hold */
        if (nsd <= 0 || nsd > max)
            return NCS_ERR(NCS_EINVAL);
    }
    st.quantize = mode;
    st.nsd = mode == NCS_NOQUANTIZE ? 0 : nsd;
    return ncsi_store_def_storage(f, varid, &st);
}

int ncs_inq_var_quantize(int ncid, int varid, int *modep, int *nsdp)
{
    ncs_file *f = NULL;
    ncs_storage st;
    int status = storage_of(ncid, varid, 0, &f, &st);
    if (status != NCS_NOERR)
        return status;
    if (modep != NULL)
        *modep = st.quantize;
    if (nsdp != NULL)
        *nsdp = st.nsd;
    return NCS_NOERR;
}

/* ---- the storage as the file records it (validators) ---------------------- */

int ncs_inq_var_filter_ids(int ncid, int varid, int *nfiltersp, unsigned *ids)
{
    ncs_file *f = NULL;
    unsigned tmp[NCS_MAX_FILTERS];
    int n = 0, status = storage_target(ncid, varid, 0, &f);
    if (status == NCS_NOERR)
        status = ncsi_store_inq_filters(f, varid, &n, tmp);
    if (status != NCS_NOERR)
        return status;
    NCSI_ASSERT(n >= 0 && n <= NCS_MAX_FILTERS);
    if (nfiltersp != NULL)
        *nfiltersp = n;
    if (ids != NULL)
        memcpy(ids, tmp, (size_t)n * sizeof *ids);
    return NCS_NOERR;
}

int ncs_inq_var_filter_params(int ncid, int varid, unsigned id, size_t *nparamsp,
                              unsigned *params)
{
    ncs_file *f = NULL;
    unsigned tmp[NCS_MAX_FILTER_PARAMS];
    size_t n = 0;
    int status = storage_target(ncid, varid, 0, &f);
    if (status == NCS_NOERR)
        status = ncsi_store_inq_filter_params(f, varid, id, &n, tmp);
    if (status != NCS_NOERR)
        return status;
    if (nparamsp != NULL)
        *nparamsp = n;
    if (params != NULL)
        memcpy(params, tmp, (n < NCS_MAX_FILTER_PARAMS ? n : NCS_MAX_FILTER_PARAMS) * sizeof *params);
    return NCS_NOERR;
}

int ncs_inq_var_chunks(int ncid, int varid, size_t *extent, ncs_chunk_visitor *visit,
                       void *arg)
{
    ncs_file *f = NULL;
    size_t ext[NCS_MAX_VAR_DIMS];
    int status = storage_target(ncid, varid, 0, &f);
    if (status != NCS_NOERR)
        return status;
    if (f->flags & NCSI_F_INDEF)
        return NCS_ERR(NCS_EINDEFINE);
    if (visit == NULL)
        return NCS_ERR(NCS_EINVAL);
    /* the extent is filled in before the first visit, which may read it */
    return ncsi_store_chunk_index(f, varid, extent != NULL ? extent : ext, visit, arg);
}
