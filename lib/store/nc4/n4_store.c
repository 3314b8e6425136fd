/*
 * n4_store.c -- the store methods of netCDF-4 files read without HDF5
 * (nc4.h): opened read-only, the model read from the file's bytes
 * (n4_meta.c), the data through the chunk cache (n4_data.c and the chunk
 * folder's data path), one-element reads from pinned chunks.
 *
 * It takes a file only where it answers as the HDF5 store would (nc4.h);
 * its open declines everything else, and the registry then hands the file
 * to the HDF5 store.  NCSLAB_NC4READ=0 in the environment, or the fast
 * paths turned off (NCSLAB_FASTPATH=0), make it decline every file, so
 * that the same file can be read either way; NCSLAB_NC4READ=only makes
 * what it declines fail instead (NCS_ENOTBUILT), so that reading a file
 * never loads HDF5.
 *
 * Why: HDF5 (with the libraries Debian's HDF5 links: libcurl, OpenSSL,
 * GnuTLS, ...) is about 9 MiB of a reading program's memory, and its one
 * global lock makes threads take turns ("Row-major scan against GVRS C"
 * and "Threads" in doc/performance.md).
 */
#include "nc4.h"

#include <stdlib.h>
#include <string.h>

static n4file *NF(ncs_file *f)
{
    return (n4file *)f->state;
}

/* How many arrays of ndims elements an n4var carries in dimv[]. */
#define VAR_ARRAYS 9

n4var *ncsi_n4_var_new(n4file *nf, int varid, int ndims)
{
    n4var *v;
    size_t n = (size_t)ndims;
    NCSI_ASSERT(ndims >= 0 && ndims <= NCS_MAX_VAR_DIMS);
    NCSI_ASSERT(varid == nf->nvars);
    if ((varid & (varid - 1)) == 0) {
        /* the list doubles at each power of two */
        n4var **nv = ncsi_realloc(nf->vars, (size_t)(varid ? 2 * varid : 1) * sizeof *nv);
        if (nv == NULL)
            return NULL;
        nf->vars = nv;
    }
    v = ncsi_calloc(1, sizeof *v + VAR_ARRAYS * n * sizeof v->dimv[0]);
    if (v == NULL)
        return NULL;
    v->extent = v->dimv;
    ncsi_chunk_arrays(&v->ck, v->dimv + n, n);
    v->ck.ops = &ncsi_n4_chunk_ops;
    v->ck.ndims = ndims;
    v->ck.loads_seen = UINT64_MAX;   /* the first get asks the cache */
    v->nf = nf;
    v->varid = varid;
    v->addr = UINT64_MAX;
    nf->vars[nf->nvars++] = v;
    return v;
}

void ncsi_n4_var_free(n4var *v)
{
    if (v == NULL)
        return;
    ncsi_h5r_chunks_free(v->index);
    ncsi_chunk_free_pins(&v->ck);
    free(v);
}

/* One page of a journal, kept. */
static int journal_page(void *arg, uint64_t no, const unsigned char *data)
{
    n4file *nf = arg;
    n4page *p;
    if ((nf->npages & (nf->npages - 1)) == 0) {
        n4page **np = ncsi_realloc(nf->pages, (nf->npages ? 2 * nf->npages : 1) * sizeof *np);
        if (np == NULL)
            return NCS_ERR(NCS_ENOMEM);
        nf->pages = np;
    }
    if ((p = ncsi_malloc(sizeof *p)) == NULL)
        return NCS_ERR(NCS_ENOMEM);
    p->no = no;
    memcpy(p->data, data, NCSI_NC4_JPAGE);
    nf->pages[nf->npages++] = p;
    return NCS_NOERR;
}

static int by_page(const void *a, const void *b)
{
    uint64_t x = (*(n4page *const *)a)->no, y = (*(n4page *const *)b)->no;
    return (x > y) - (x < y);
}

static void drop_pages(n4file *nf)
{
    for (size_t i = 0; i < nf->npages; i++)
        free(nf->pages[i]);
    free(nf->pages);
    nf->pages = NULL;
    nf->npages = 0;
}

/* The file as its last commit left it: a journal a writer killed in a
 * commit left at its end is seen through, as the HDF5 store's driver sees
 * it in a read-only open (its pages over the file's bytes, its final
 * size); an incomplete one is none. */
static int read_journal(n4file *nf)
{
    uint64_t final = 0;
    int found = 0;
    int status = ncsi_nc4_journal_read(nf->io, nf->psize, &final, &found, journal_page, nf);
    if (status == NCS_NOERR && found && nf->npages > 1) {
        qsort(nf->pages, nf->npages, sizeof *nf->pages, by_page);
        for (size_t i = 1; i < nf->npages; i++)
            found &= nf->pages[i]->no != nf->pages[i - 1]->no;
    }
    if (status != NCS_NOERR || !found)
        drop_pages(nf);
    nf->eof = status == NCS_NOERR && found ? final : nf->psize;
    return status;
}

/* Drops the variables' chunks from the cache and frees the file's state. */
static int free_state(ncs_file *f)
{
    n4file *nf = NF(f);
    void **owners;
    int status = NCS_NOERR;
    if (nf == NULL)
        return NCS_NOERR;
    owners = ncsi_malloc((nf->nvars > 0 ? (size_t)nf->nvars : 1) * sizeof *owners);
    for (int i = 0; i < nf->nvars; i++) {
        ncsi_chunk_forget_pins(&nf->vars[i]->ck);
        if (owners != NULL)
            owners[i] = &nf->vars[i]->ck;
        else
            ncsi_cache_drop(&nf->vars[i]->ck, 0);   /* no memory for the list */
    }
    if (owners != NULL)
        status = ncsi_cache_drop_all(owners, (size_t)nf->nvars, 0);
    free(owners);
    for (int i = 0; i < nf->nvars; i++)
        ncsi_n4_var_free(nf->vars[i]);
    free(nf->vars);
    ncsi_h5r_close(nf->h);
    drop_pages(nf);
    if (nf->io != NULL)
        ncsi_io_close(nf->io);
    pthread_mutex_destroy(&nf->lock);
    free(nf);
    f->state = NULL;
    return status;
}

/* NCSLAB_NC4READ, read at each open (so that a test can read one file
 * both ways): "0" sends every file to the HDF5 store; "only" refuses
 * (NCS_ENOTBUILT) the files this store declines, so that reading never
 * loads HDF5. */
static int setting(void)
{
    const char *e = getenv("NCSLAB_NC4READ");
    if (e == NULL)
        return 1;
    return strcmp(e, "0") == 0 ? 0 : strcmp(e, "only") == 0 ? 2 : 1;
}

static int n4_open(ncs_file *f, const char *path, int mode)
{
    n4file *nf;
    ncsi_h5r_info info;
    int status, how = setting();

    NCSI_ASSERT(!(mode & NCS_WRITE));
    (void)mode;
    if (how == 0)
        return NCSI_DECLINED;
    if (!ncsi_fastpath)
        return how == 2 ? NCS_ERR(NCS_ENOTBUILT) : NCSI_DECLINED;
    nf = ncsi_calloc(1, sizeof *nf);
    if (nf == NULL)
        return NCS_ERR(NCS_ENOMEM);
    if (pthread_mutex_init(&nf->lock, NULL) != 0) {
        free(nf);
        return NCS_ERR(NCS_ENOMEM);
    }
    f->state = nf;
    status = ncsi_io_open(path, 0, &nf->io);
    if (status == NCS_NOERR)
        status = ncsi_io_size(nf->io, &nf->psize);
    if (status == NCS_NOERR)
        status = read_journal(nf);
    if (status != NCS_NOERR)
        goto fail;
    status = ncsi_h5r_open(ncsi_n4_read_at, nf, nf->eof, &nf->h);
    if (status != NCS_NOERR) {
        status = status == NCS_ENOMEM ? NCS_ERR(NCS_ENOMEM) : NCSI_DECLINED;
        goto fail;
    }
    /* HDF5 refuses a file shorter than its superblock says */
    ncsi_h5r_info_of(nf->h, &info);
    if (info.eoa > nf->eof) {
        status = NCSI_DECLINED;
        goto fail;
    }
    status = ncsi_n4_read_model(nf, &f->model);
    if (status != NCS_NOERR)
        goto fail;
    f->version = 4;
    if (!nf->strict)
        f->flags |= NCSI_F_NC4;
    return NCS_NOERR;
fail:
    ncsi_model_free(&f->model);
    memset(&f->model, 0, sizeof f->model);
    f->model.unlimdim = -1;
    free_state(f);
    return status == NCSI_DECLINED && how == 2 ? NCS_ERR(NCS_ENOTBUILT) : status;
}

static int n4_close(ncs_file *f, int abort)
{
    (void)abort;
    return free_state(f);
}

static int n4_get(ncs_file *f, int varid, const ncs_slab *s, int memtype, void *buf)
{
    n4var *v = NF(f)->vars[varid];
    if (v->ck.ndims == 0)
        return ncsi_n4_scalar_get(v, &f->model.vars[varid], s, memtype, buf);
    return ncsi_chunk_get(&v->ck, s, memtype, buf, f->version);
}

/* The get1 memo (store.h) of the pinned chunk, which stays put until
 * another call reaches this store. */
static void fill_memo(ncs_file *f, int varid, const ncs_chunkvar *ck)
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

/* Pins the chunk holding index and reads the element, or the general
 * path; out of line, so that the pinned case stays small. */
static __attribute__((noinline)) int get1_slow(ncs_file *f, int varid, const size_t *index,
                                               void *buf)
{
    n4var *v = NF(f)->vars[varid];
    if (v->ck.ndims == 0)
        return ncsi_get1_general(f, varid, index, buf);
    for (int d = 0; d < v->ck.ndims; d++)
        if (index[d] >= v->ck.lim[d])
            return ncsi_get1_general(f, varid, index, buf);
    return ncsi_chunk_pin_get1(&v->ck, index, buf);
}

static int n4_get1(ncs_file *f, int varid, const size_t *index, void *buf)
{
    const n4var *v = NF(f)->vars[varid];
    int status = NCS_NOERR;
    if (!ncsi_chunk_get1_pinned(&v->ck, index, buf))
        status = get1_slow(f, varid, index, buf);
    if (status == NCS_NOERR && v->ck.ndims > 0)
        fill_memo(f, varid, &v->ck);
    return status;
}

/* Every variable of an opened file was laid out when it was written. */
static int n4_def_storage(ncs_file *f, int varid, const ncs_storage *st)
{
    (void)f;
    (void)varid;
    (void)st;
    return NCS_ERR(NCS_ELATEDEF);
}

static int n4_inq_storage(ncs_file *f, int varid, ncs_storage *st)
{
    *st = NF(f)->vars[varid]->st;
    if (f->model.vars[varid].ndims == 0)
        st->contiguous = 1;
    return NCS_NOERR;
}

static int n4_inq_filters(ncs_file *f, int varid, int *n, unsigned *ids)
{
    const n4var *v = NF(f)->vars[varid];
    *n = v->nids;
    memcpy(ids, v->ids, (size_t)v->nids * sizeof *ids);
    return NCS_NOERR;
}

static int n4_inq_filter_params(ncs_file *f, int varid, unsigned id, size_t *n,
                                unsigned *params)
{
    const n4var *v = NF(f)->vars[varid];
    for (int i = 0; i < v->nids; i++) {
        if (v->ids[i] == id) {
            *n = v->nparams[i];
            if (*n > 0)
                params[0] = (unsigned)v->ck.pipe[i].level;
            return NCS_NOERR;
        }
    }
    return NCS_ERR(NCS_ENOFILTER);
}

static int n4_chunk_index(ncs_file *f, int varid, size_t *extent, ncs_chunk_visitor *visit,
                          void *arg)
{
    n4var *v = NF(f)->vars[varid];
    const ncs_var *var = &f->model.vars[varid];
    if (v->storage != N4_CHUNKED) {
        for (int d = 0; d < var->ndims; d++)
            extent[d] = (size_t)var->shape[d];
        return NCS_NOERR;
    }
    return ncsi_n4_chunk_index(v, extent, visit, arg);
}

static int n4_provenance(ncs_file *f, char **props, int *superblock, int *isnetcdf4)
{
    return ncsi_n4_provenance(NF(f), props, superblock, isnetcdf4);
}

/* Nothing is ever buffered for writing: a sync of a file open for reading
 * has nothing to do. */
static int n4_sync(ncs_file *f)
{
    (void)f;
    return NCS_NOERR;
}

/* The slots that write: the file is open for reading only, which the API
 * layer checks before any of them is called, and this store creates no
 * files (n4_creates), so they are never reached. */
static int n4_put(ncs_file *f, int varid, const ncs_slab *s, int memtype, const void *buf)
{
    (void)f;
    (void)varid;
    (void)s;
    (void)memtype;
    (void)buf;
    return NCS_ERR(NCS_EPERM);
}

static int n4_write_header(ncs_file *f)
{
    (void)f;
    return NCS_ERR(NCS_EPERM);
}

static int n4_enddef(ncs_file *f, size_t h_minfree, size_t v_align, size_t v_minfree,
                     size_t r_align)
{
    (void)f;
    (void)h_minfree;
    (void)v_align;
    (void)v_minfree;
    (void)r_align;
    return NCS_ERR(NCS_EPERM);
}

static int n4_create(ncs_file *f, const char *path, int cmode)
{
    (void)f;
    (void)path;
    (void)cmode;
    return NCS_ERR(NCS_EPERM);
}

static int n4_creates(int cmode)
{
    (void)cmode;
    return 0;
}

const ncs_store_methods ncsi_nc4_store = {
    .name = "nc4read",
    .probe = ncsi_nc4_probe,
    .creates = n4_creates,
    .open = n4_open,
    .create = n4_create,
    .enddef = n4_enddef,
    .get = n4_get,
    .get1 = n4_get1,
    .put = n4_put,
    .write_header = n4_write_header,
    .sync = n4_sync,
    .close = n4_close,
    .def_storage = n4_def_storage,
    .inq_storage = n4_inq_storage,
    .provenance = n4_provenance,
    .inq_filters = n4_inq_filters,
    .inq_filter_params = n4_inq_filter_params,
    .chunk_index = n4_chunk_index,
    .read_only = 1,
};
