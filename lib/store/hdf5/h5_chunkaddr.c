/*
 * h5_chunkaddr.c -- where a read-only file's chunks are, read from the
 * file's own bytes once a variable (store/h5read: the dataset's object
 * header for its layout, the chunk index of h5r_chunks.c), so that
 * loading a chunk is one read at its address (ncsi_h5j_pread) on any
 * thread, outside HDF5 and its global lock, and a request that needs many
 * chunks can announce them all.  The store of lib/store/nc4 reads most
 * read-only files without HDF5 at all; this serves the ones it declines
 * and those read through HDF5 on purpose (NCSLAB_NC4READ=0).
 *
 * Why not HDF5: version 1.10 answers "where is this chunk" by walking the
 * whole chunk index (H5Dget_chunk_info_by_coord; H5Dchunk_iter is 1.14's),
 * and reads a chunk's bytes (H5Dread_chunk) under its one lock, so two
 * threads loading chunks take turns ("Threads" in doc/performance.md).
 * HDF5's own direct chunk read also trusts the index: in 1.10.8 it writes
 * past the caller's buffer when a damaged entry claims more bytes than
 * the chunk holds (found by check_chunkaddr); h5r_chunks.c checks each
 * node as it reads it, and a damaged one fails the loads that reach it
 * with NCS_EHDFERR.
 *
 * Only read-only files: a writable file's index changes under HDF5's
 * metadata cache.  What the reader does not know (an object header or a
 * layout of another version, an index of layout version 4) means no
 * index: HDF5 then reads the file as before.  Indexes are opened under
 * one process-wide mutex, once each, and published with release/acquire,
 * so lookups of what is loaded take no lock.
 */
#include "hdf5_store.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define CTAB_UNKNOWN 0
#define CTAB_READY   1
#define CTAB_NONE    (-1)
#define CTAB_BROKEN  (-2)

static pthread_mutex_t build_lock = PTHREAD_MUTEX_INITIALIZER;

struct ncsi_ctab {
    ncsi_h5r_chunks *c;
};

/* The file's bytes for h5read, through the driver (ctx: its handle). */
static int read_at(void *ctx, uint64_t off, void *buf, size_t n)
{
    return ncsi_h5j_pread(ctx, off, buf, n) == NCS_NOERR ? 0 : -1;
}

/* The file's structure, read once (under build_lock): NULL when it
 * cannot be. */
static ncsi_h5r *file_of(chunked *cs)
{
    ncsi_h5r_info info;
    if (cs->h5r_state != 0)
        return cs->h5r;
    cs->h5r_state = -1;
    if (ncsi_h5r_open(read_at, cs->journal, ncsi_h5j_eof(cs->journal), &cs->h5r) != NCS_NOERR)
        return NULL;
    ncsi_h5r_info_of(cs->h5r, &info);
    cs->base = info.base;
    cs->h5r_state = 1;
    return cs->h5r;
}

/* Builds cv's index, its root read: NULL when there is none to have,
 * *broken set when the index is damaged. */
static ncsi_ctab *build(cvar *cv, int *broken)
{
    const ncs_chunkvar *ck = &cv->ck;
    ncsi_h5r_obj *o = NULL;
    ncsi_h5r *h;
    ncsi_ctab *t = NULL;
    uint64_t ext[NCS_MAX_VAR_DIMS];
    int status;

    if (cv->dset < 0 || cv->blocked || ck->ndims < 1 || cv->ohdr == HADDR_UNDEF ||
        !ncsi_h5j_readonly(cv->cs->journal) || (h = file_of(cv->cs)) == NULL ||
        ncsi_h5r_obj_read(h, cv->ohdr, &o) != NCS_NOERR)
        return NULL;
    /* the layout HDF5 read: chunked, the variable's chunk and element */
    if (!o->has_layout || o->layout.cls != NCSI_H5R_CHUNKED || o->layout.version != 3 ||
        o->layout.ndims != ck->ndims || o->layout.elem_size != ck->esz)
        goto done;
    for (int d = 0; d < ck->ndims; d++) {
        if (o->layout.chunk[d] != ck->chunk[d])
            goto done;
        ext[d] = d == 0 ? cv->extent0 : ck->shape[d];
    }
    if ((t = ncsi_calloc(1, sizeof *t)) == NULL)
        goto done;
    status = ncsi_h5r_chunks_open(h, &o->layout, ck->ndims, ext, &t->c);
    if (status != NCS_NOERR) {
        free(t);
        t = NULL;
        *broken = status == NCSI_H5R_CORRUPT;
    }
done:
    ncsi_h5r_obj_free(o);
    return t;
}

static int disabled(void)
{
    static int state = -1;
    int s = __atomic_load_n(&state, __ATOMIC_RELAXED);
    if (s < 0) {
        const char *e = getenv("NCSLAB_CHUNK_ADDR");
        s = e != NULL && strcmp(e, "0") == 0;
        __atomic_store_n(&state, s, __ATOMIC_RELAXED);
    }
    return s;
}

int ncsi_h5_ctab(cvar *cv, const ncsi_ctab **tp)
{
    int s = __atomic_load_n(&cv->ctab_state, __ATOMIC_ACQUIRE);
    if (s == CTAB_UNKNOWN) {
        pthread_mutex_lock(&build_lock);
        if (cv->ctab_state == CTAB_UNKNOWN) {
            int broken = 0;
            cv->ctab = disabled() ? NULL : build(cv, &broken);
            s = cv->ctab != NULL ? CTAB_READY : broken ? CTAB_BROKEN : CTAB_NONE;
            if (s != CTAB_READY)
                __atomic_store_n(&cv->ck.unlocated, 1, __ATOMIC_RELAXED);
            __atomic_store_n(&cv->ctab_state, s, __ATOMIC_RELEASE);
        }
        s = cv->ctab_state;
        pthread_mutex_unlock(&build_lock);
    }
    *tp = s == CTAB_READY ? cv->ctab : NULL;
    return s == CTAB_BROKEN ? NCSI_CORRUPT(NCS_EHDFERR) : NCS_NOERR;
}

int ncsi_h5_ctab_find(const ncsi_ctab *t, uint64_t idx, ncsi_caddr *e, int *found)
{
    int status = ncsi_h5r_chunks_find(t->c, idx, e, found);
    if (status == NCS_ENOMEM)
        return NCS_ERR(NCS_ENOMEM);
    return status == NCS_NOERR ? status : NCSI_CORRUPT(NCS_EHDFERR);
}

void ncsi_h5_ctab_free(ncsi_ctab *t)
{
    if (t == NULL)
        return;
    ncsi_h5r_chunks_free(t->c);
    free(t);
}
