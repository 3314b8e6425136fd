/*
 * h5_store.c -- the chunked storage back end's store methods: netCDF-4/HDF5
 * files in the classic data model, with ncslab's own slab-to-chunk mapping
 * and chunk cache on top of HDF5's direct chunk I/O.
 *
 * Data path: the walk of a request over the variable's chunks in the cache
 * is the chunk folder's (chunk_data.c, one ncs_chunkvar in each cvar);
 * h5_data.c loads and stores the chunks for it, and moves what ncslab
 * does not move itself through HDF5's selections.
 *
 * Contiguous and compact datasets of rank > 0 use the same cache in
 * blocks (virtual chunks moved with HDF5 selections, ncsi_nc4_block_shape) for
 * requests under BYPASS_BYTES.  Larger requests on them, and datasets
 * whose filters ncslab cannot run itself, and scalars, go through HDF5's
 * own selection read and write instead (ncsi_h5_fallback), with the same
 * results.
 *
 * The record dimension is dimension 0; growing the record count extends
 * the dataset written to, as netCDF-C does; reads past a dataset's own
 * extent (but within the record count) return fill values.
 *
 * Commits (ncs_sync, ncs_enddef, ncs_close): every dirty chunk, then the
 * metadata, then H5Fflush, then the file driver's commit (h5_driver.c),
 * which makes all of it the file's state at once.  A process killed at any
 * point leaves the state of the last commit, whose extents cover only
 * chunks already in the file.
 */
#include "hdf5_store.h"

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
    NCSI_ASSERT(ndims >= 0 && ndims <= NCS_MAX_VAR_DIMS);
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
    ncsi_chunk_arrays(&v->ck, v->dimv + n, n);
    v->ck.ops = &ncsi_h5_chunk_ops;
    v->ck.ndims = ndims;
    v->cs = cs;
    v->varid = varid;
    v->dset = -1;
    v->scale_dim = -1;
    v->ohdr = HADDR_UNDEF;
    v->ck.loads_seen = UINT64_MAX;   /* the first get asks the cache */
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
    ncsi_h5_ctab_free(v->ctab);
    ncsi_chunk_free_pins(&v->ck);
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

/* Requests of BYPASS_BYTES or more on a contiguous variable go to HDF5
 * directly (after the variable's dirty blocks are written), where one
 * selection read beats many block copies. */
#define BYPASS_BYTES (4u * NCSI_NC4_BLOCK_BYTES)

/* Builds the filter pipeline from the settings: shuffle, then deflate or
 * zstd, then Fletcher-32 over the stored bytes. */
static void build_pipeline(cvar *v)
{
    ncs_chunkvar *ck = &v->ck;
    ck->nf = 0;
    if (v->st.shuffle)
        ck->pipe[ck->nf++] = (ncs_filter){ NCSI_FILTER_SHUFFLE, 0 };
    if (v->st.deflate_level > 0)
        ck->pipe[ck->nf++] = (ncs_filter){ NCSI_FILTER_DEFLATE, (unsigned)v->st.deflate_level };
    if (v->st.zstd_level > 0)
        ck->pipe[ck->nf++] = (ncs_filter){ NCSI_FILTER_ZSTD, (unsigned)v->st.zstd_level };
    if (v->st.fletcher32)
        ck->pipe[ck->nf++] = (ncs_filter){ NCSI_FILTER_FLETCHER32, 0 };
}

int ncsi_cvar_setup(cvar *cv, const ncs_model *m)
{
    const ncs_var *v = &m->vars[cv->varid];
    ncs_chunkvar *ck = &cv->ck;
    uint64_t chunk[NCS_MAX_VAR_DIMS];

    if (v->ndims == 0)
        cv->st.contiguous = 1;
    if (cv->dset < 0) {
        /* a variable of this define mode: settings become the layout */
        if (!cv->st.contiguous && !cv->st.chunks_set)
            ncsi_default_chunks(m, v, cv->stchunks);
        build_pipeline(cv);
        cv->direct = !cv->st.contiguous;
    }
    cv->blocked = ncsi_fastpath && cv->st.contiguous && v->ndims > 0 && !v->isrec;
    if (cv->blocked) {
        cv->direct = 1;
        ck->nf = 0;
        ncsi_nc4_block_shape(v, ncsi_type_size(v->type), chunk);
    } else {
        for (int d = 0; d < v->ndims; d++)
            chunk[d] = cv->st.contiguous ? (v->shape[d] ? v->shape[d] : 1) : cv->stchunks[d];
    }
    return ncsi_nc4_chunkvar(ck, v, chunk, cv->direct, cv->zero_fill);
}

/* ---- store methods ---------------------------------------------------------------------- */

static int ch_get(ncs_file *f, int varid, const ncs_slab *s, int memtype, void *buf)
{
    chunked *cs = CS(f);
    cvar *cv = cs->vars[varid];
    const ncs_var *v = &f->model.vars[varid];
    int status;
    if (cv->blocked && s->nelems * cv->ck.esz >= BYPASS_BYTES) {
        status = ncsi_cache_flush(&cv->ck);
        return status != NCS_NOERR ? status : ncsi_h5_fallback(f, cv, v, s, memtype, buf, 0);
    }
    if (!cv->direct)
        return ncsi_h5_fallback(f, cv, v, s, memtype, buf, 0);
    return ncsi_chunk_get(&cv->ck, s, memtype, buf, f->version);
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
            cv->ck.lim[d] = (d == 0 && v->isrec) ? f->model.numrecs : v->shape[d];
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
    const ncs_var *v = &f->model.vars[varid];
    int status = NCS_NOERR;
    /* netCDF-4 files grow only by data actually written (netCDF-C's
     * netCDF-4 code, unlike its classic one, ignores empty writes) */
    if (s->nelems == 0)
        return NCS_NOERR;
    if (v->isrec && s->recs_needed > cv->extent0)
        status = grow_records(f, cv, v, s->recs_needed);
    if (status != NCS_NOERR)
        return status;
    if (cv->blocked && s->nelems * cv->ck.esz >= BYPASS_BYTES) {
        /* cached blocks would hide what HDF5 writes now */
        status = ncsi_cache_flush(&cv->ck);
        if (status == NCS_NOERR) {
            ncsi_chunk_forget_pins(&cv->ck);
            status = ncsi_cache_drop(&cv->ck, 0);
        }
        return status != NCS_NOERR ? status : ncsi_h5_fallback(f, cv, v, s, memtype, (unsigned char *)buf, 1);
    }
    if (!cv->direct)
        return ncsi_h5_fallback(f, cv, v, s, memtype, (unsigned char *)buf, 1);
    status = ncsi_chunk_put(&cv->ck, s, memtype, buf, f->version);
    if ((status == NCS_NOERR || status == NCS_ERANGE) && (f->flags & NCSI_F_SHARE)) {
        int s2 = ncsi_cache_flush(&cv->ck);
        if (s2 != NCS_NOERR)
            status = s2;
    }
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
    int nd;
    if (varid >= cs->nvars || (cv = cs->vars[varid]) == NULL || !cv->direct ||
        (nd = cv->ck.ndims) == 0)
        return ncsi_get1_general(f, varid, index, buf);
    for (int d = 0; d < nd; d++)
        if (index[d] >= cv->ck.lim[d])
            return ncsi_get1_general(f, varid, index, buf);
    return ncsi_chunk_pin_get1(&cv->ck, index, buf);
}

/* The get1 memo (store.h) of the pinned chunk, which stays put until
 * another call reaches this store. */
static void ch_fill_memo(ncs_file *f, int varid, const ncs_chunkvar *ck)
{
    ncs_get1_memo *m = &f->memo;
    if (ck->pptr == NULL || ck->ndims > NCSI_MEMO_DIMS)
        return;
    for (int d = 0; d < ck->ndims; d++) {
        m->lo[d] = ck->plo[d];
        m->ext[d] = ck->pext[d];
        m->bstride[d] = ck->estride[d] * ck->esz;
    }
    ncsi_memo_set(m, varid, ck->type, ck->ndims, (int)ck->esz, 0, ck->pptr);
}

/* One element in the variable's own type from its pinned chunk (a pin
 * exists only for a direct variable of rank > 0), else the slow way. */
static int ch_get1(ncs_file *f, int varid, const size_t *index, void *buf)
{
    chunked *cs = CS(f);
    const cvar *cv;
    int status = NCS_NOERR;
    if ((unsigned)varid >= (unsigned)cs->nvars || (cv = cs->vars[varid]) == NULL)
        return ch_get1_slow(f, varid, index, buf);
    if (!ncsi_chunk_get1_pinned(&cv->ck, index, buf))
        status = ch_get1_slow(f, varid, index, buf);
    if (status == NCS_NOERR && cv->direct)
        ch_fill_memo(f, varid, &cv->ck);
    return status;
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
    ncsi_h5r_close(cs->h5r);
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
            status = ncsi_cache_flush(&cs->vars[i]->ck);
    return status;
}

/* Writes every dirty chunk, then the metadata, then makes that the file's
 * committed state (h5_driver.c): chunks first, so that no committed
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
    for (int i = 0; i < f->model.nvars && status == NCS_NOERR; i++) {
        if (cs->vars[i]->dset >= 0)
            continue;
        status = ncsi_cvar_setup(cs->vars[i], &f->model);
        /* netCDF-C records a quantization as an attribute of the variable
         * when it creates the dataset, after those defined before */
        if (status == NCS_NOERR && cs->vars[i]->st.quantize != NCS_NOQUANTIZE)
            status = ncsi_nc4_quantize_att(&f->model.vars[i].atts, cs->vars[i]->st.quantize,
                                           cs->vars[i]->st.nsd);
    }
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
        ncsi_chunk_forget_pins(&cs->vars[i]->ck);
        if (owners != NULL)
            owners[n++] = &cs->vars[i]->ck;
        else if ((s2 = ncsi_cache_drop(&cs->vars[i]->ck, keep)) != NCS_NOERR && status == NCS_NOERR)
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
    if (f->flags & NCSI_F_WRITE)
        ncsi_h5j_closing(cs->journal);
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
        /* the record dimension's current length bounds nothing, as in
         * netCDF-C */
        for (int d = 0; d < v->ndims; d++) {
            if (next.chunks[d] == 0 ||
                (!(v->isrec && d == 0) && v->shape[d] != 0 && next.chunks[d] > v->shape[d]) ||
                ncsi_mul_u64(bytes, next.chunks[d], &bytes))
                return NCS_ERR(NCS_EBADCHUNK);
        }
        if (bytes > UINT32_MAX)       /* HDF5 chunks are under 4 GiB */
            return NCS_ERR(NCS_EBADCHUNK);
        if (next.chunks_set == NCSI_CHUNKS_CHECK_ONLY)
            next.chunks_set = 0;
    }
    cv = cs->vars[varid];
    cv->st = (cvar_settings){ next.contiguous, next.compact, next.chunks_set, next.shuffle,
                              next.deflate_level, next.zstd_level, next.fletcher32,
                              next.endian, next.quantize, next.nsd };
    f->model.vars[varid].quantize = next.quantize;
    f->model.vars[varid].nsd = next.nsd;
    memcpy(cv->stchunks, next.chunks, (size_t)cv->ck.ndims * sizeof *cv->stchunks);
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
    st->endian = cv->st.endian;
    st->quantize = cv->st.quantize;
    st->nsd = cv->st.nsd;
    memcpy(st->chunks, cv->stchunks, (size_t)cv->ck.ndims * sizeof *cv->stchunks);
    memset(st->chunks + cv->ck.ndims, 0,
           (size_t)(NCS_MAX_VAR_DIMS - cv->ck.ndims) * sizeof *st->chunks);
    if (!st->contiguous && !st->chunks_set && cv->dset < 0) {
        /* not laid out yet: report the default shape it will get */
        ncsi_default_chunks(&f->model, &f->model.vars[varid], st->chunks);
    }
    if (f->model.vars[varid].ndims == 0)
        st->contiguous = 1;
    return NCS_NOERR;
}

static int ch_inq_filters(ncs_file *f, int varid, int *n, unsigned *ids)
{
    int status = ensure_cvars(f);
    return status != NCS_NOERR ? status : ncsi_h5_filter_ids(CS(f)->vars[varid], n, ids);
}

static int ch_inq_filter_params(ncs_file *f, int varid, unsigned id, size_t *n,
                                unsigned *params)
{
    int status = ensure_cvars(f);
    return status != NCS_NOERR ? status
                               : ncsi_h5_filter_params(CS(f)->vars[varid], id, n, params);
}

/* A variable not stored in chunks has no index; chunks the cache holds
 * dirty are written first, so that the walk sees what the variable holds. */
static int ch_chunk_index(ncs_file *f, int varid, size_t *extent, ncs_chunk_visitor *visit,
                          void *arg)
{
    const ncs_var *v = &f->model.vars[varid];
    cvar *cv;
    int status = ensure_cvars(f);
    if (status != NCS_NOERR)
        return status;
    cv = CS(f)->vars[varid];
    if (cv->dset < 0 || cv->st.contiguous || v->ndims == 0) {
        for (int d = 0; d < v->ndims; d++)
            extent[d] = (size_t)(v->isrec && d == 0 ? cv->extent0 : v->shape[d]);
        return NCS_NOERR;
    }
    if ((f->flags & NCSI_F_WRITE) && (status = ncsi_cache_flush(&cv->ck)) != NCS_NOERR)
        return status;
    return ncsi_h5_chunk_index(cv, extent, visit, arg);
}

/* NCS_NETCDF4 selects chunked storage.  ncslab speaks only the classic data
 * model, but, as netCDF-C, marks the file classic-model only with
 * NCS_CLASSIC_MODEL (ch_create reads cmode). */
static int ch_creates(int cmode)
{
    return (cmode & NCS_NETCDF4) != 0;
}

static int ch_provenance(ncs_file *f, char **props, int *superblock, int *isnetcdf4)
{
    return ncsi_nc4_provenance(CS(f), props, superblock, isnetcdf4);
}

const ncs_store_methods ncsi_chunked_store = {
    .name = "chunked",
    .probe = ncsi_nc4_probe,
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
    .provenance = ch_provenance,
    .inq_filters = ch_inq_filters,
    .inq_filter_params = ch_inq_filter_params,
    .chunk_index = ch_chunk_index,
};
