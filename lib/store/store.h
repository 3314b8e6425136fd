/*
 * store.h -- the store table: what every storage back end does, the open
 * file they serve (ncs_file), one-line wrappers with the defaults of the
 * optional slots, and the registry that picks a back end for a file
 * (store.c).  Stores may use io, engine, model and store/chunk; nothing
 * below the API layer includes api.h.
 */
#ifndef NCSI_STORE_H
#define NCSI_STORE_H

#include "common.h"
#include "model.h"
#include "engine.h"
#include "io.h"

#include <string.h>

/* The classic back end's cache pages, whose boundaries a view's pieces
 * may cross (the API layer sizes its pieces by them). */
#define NCSI_CLASSIC_PAGE (64 * 1024)

/* Storage settings of one variable (chunked back end). */
typedef struct ncs_storage {
    int contiguous;                     /* not chunked: contiguous or compact */
    int compact;                        /* the data in the object header */
    int chunks_set;                     /* chunks[] chosen by the caller, or
                                         * NCSI_CHUNKS_CHECK_ONLY */
    uint64_t chunks[NCS_MAX_VAR_DIMS];
    int shuffle;
    int deflate_level;                  /* 0: none */
    int zstd_level;                     /* 0: none */
    int fletcher32;
    int endian;                         /* NCS_ENDIAN_*, as set or read */
    int quantize, nsd;                  /* NCS_QUANTIZE_*; digits or bits */
} ncs_storage;

/* chunks_set of a def_storage: check chunks[] as the caller's shape, then
 * keep the default shape (what netCDF-C does with a first size of 0). */
#define NCSI_CHUNKS_CHECK_ONLY 2


/* ---- files and back ends --------------------------------------------------- */
typedef struct ncs_file ncs_file;

/* What every storage back end does.  The API layer has validated ids, modes
 * and the slab before any of these is called, and calls them only through
 * the one-line wrappers below the table (ncsi_store_<slot>), which hold
 * the one default of each optional slot.
 *
 * A slot a back end has no use for is NULL, never a stand-in.  The fast
 * paths (get1, get_vara, view, put_vara) are absent where the general path
 * is the only one: absent, they decline (NCSI_DECLINED), and
 * NCSI_STORE_HAS says beforehand whether a back end has one.  The storage
 * settings are absent in back ends without choices: def_storage then
 * fails with NCS_ENOTNC4, and inq_storage reports contiguous storage.  The
 * upkeep slots (flush, refresh, reload), absent, mean that the back end
 * keeps nothing that could be stale or unwritten there, so the call
 * succeeds doing nothing. */
/* A posted nonblocking request (ncs_iget, ncs_iput): a validated slab of
 * one variable, its memory, and the status it has so far (a strided
 * request clipped at the end of the data fails after moving what
 * exists). */
typedef struct ncsi_req {
    int id;
    int varid;
    int put;
    int memtype;
    void *buf;
    int status;
    int empty;             /* nothing to move (and no records to add) */
    int taken;             /* listed by the wait under way */
    ncs_slab slab;
} ncsi_req;

#define NCSI_CLAIM_LAST 1
#define NCSI_CLAIM_SURE 2
typedef struct ncs_store_methods {
    const char *name;
    /* Registry: whether this back end reads the existing file open in io
     * (size bytes long), judged by its signature: *claims = NCSI_CLAIM_SURE
     * (the file is this back end's: no other is asked), NCSI_CLAIM_LAST
     * (this back end's unless another is sure) or 0; returns NCS_NOERR or
     * the error of reading io.  The classic back end is sure of a file
     * that starts with a classic magic number, as netCDF-C is, and claims
     * the files no other back end is sure of: its decoder says NCS_ENOTNC
     * to what is no netCDF file. */
    int (*probe)(ncs_io *io, uint64_t size, int *claims);
    /* Registry: 1 when this back end creates files of this cmode. */
    int (*creates)(int cmode);
    /* Opens an existing file; fills f->model.  A back end that reads only
     * some of the files its probe claims may decline the others
     * (NCSI_DECLINED, f->model and f->state left empty): the registry then
     * gives the file to the next back end that claims it. */
    int (*open)(ncs_file *f, const char *path, int mode);
    int (*create)(ncs_file *f, const char *path, int cmode);
    /* Lays out and commits the model after define mode.  f->old holds the
     * model before ncs_redef (NULL after create). */
    int (*enddef)(ncs_file *f, size_t h_minfree, size_t v_align,
                  size_t v_minfree, size_t r_align);
    int (*get)(ncs_file *f, int varid, const ncs_slab *s, int memtype, void *buf);
    /* Optional: one element in the variable's own type, read directly when
     * the case is the simple one, else through ncsi_get1_general (which
     * also reports every error).  Called only in data mode, with a valid
     * varid and non-NULL index and buf. */
    int (*get1)(ncs_file *f, int varid, const size_t *index, void *buf);
    /* Optional: a plain (vara) get of the common small kind, read directly,
     * or NCSI_DECLINED for the general path (which reports every error);
     * buf may have been written then.  Called under get1's conditions,
     * with non-NULL start and count and a memtype lookup would accept. */
    int (*get_vara)(ncs_file *f, int varid, const size_t *start, const size_t *count,
                    int memtype, void *buf);
    /* Optional: where the elements of a plain get (start, count inside
     * the data, count > 0) lie, as the file holds them, in the back end's
     * cache, in pieces: one for each index i of dimension pd (count[pd] at
     * most NCSI_VIEW_MAX), or the whole slab where pd is -1.  from[i]
     * points to the first element of piece i, or, where *apart is 0, the
     * pieces lie their step apart and only from[0] is set; bstep[d] is
     * the byte step between the indices of dimension d (for pd, as the
     * file has them), and *swap says whether each element is
     * byte-reversed against the host's order.  A piece that is not in one
     * piece of the cache is copied, as the file holds it, into scratch
     * (nscratch bytes for all of them).  NCSI_DECLINED where the elements
     * cannot be had so (or on any error): the caller then reads them
     * another way.  The pointers are good until the next call on f or use
     * of scratch.  Called under get_vara's conditions. */
    int (*view)(ncs_file *f, int varid, const size_t *start, const size_t *count, int pd,
                const unsigned char **from, int *apart, ptrdiff_t *bstep, int *swap,
                unsigned char *scratch, size_t nscratch);
    /* Optional: the same for a put (in a file open for writing; the back
     * end declines what would add records).  A put it declines after
     * writing part of it is done again in whole by the general path. */
    int (*put_vara)(ncs_file *f, int varid, const size_t *start, const size_t *count,
                    int memtype, const void *buf);
    int (*put)(ncs_file *f, int varid, const ncs_slab *s, int memtype, const void *buf);
    /* Writes the header only when no layout change is needed (data mode
     * attribute and rename updates). */
    int (*write_header)(ncs_file *f);
    int (*sync)(ncs_file *f);
    /* Upkeep: writes buffered data, then a changed header or record
     * count, without forcing them to stable storage (what netCDF-C does
     * when the fill mode goes back to NC_FILL). */
    int (*flush)(ncs_file *f);
    /* Upkeep: re-reads numrecs in a shared read-only file. */
    int (*refresh)(ncs_file *f);
    /* Upkeep: re-reads the whole header (after flushing what is
     * buffered), in ncs_redef of a shared file; in ncs_redef of a
     * parallel file, agrees on what the processes wrote (collective). */
    int (*reload)(ncs_file *f);
    /* Storage settings of a variable; NULL in back ends without choices. */
    int (*def_storage)(ncs_file *f, int varid, const ncs_storage *st);
    int (*inq_storage)(ncs_file *f, int varid, ncs_storage *st);
    /* Optional: what netCDF-C answers for three global attributes of a
     * netCDF-4 file that no attribute list holds: the file's _NCProperties
     * text (*props, which the caller frees; NULL when the file has none),
     * its HDF5 superblock version, and netCDF-C's guess whether netCDF-4
     * wrote it (_IsNetcdf4).  Absent: the file has none of them
     * (NCS_ENOTATT). */
    int (*provenance)(ncs_file *f, char **props, int *superblock, int *isnetcdf4);
    /* Optional, for validators: the filter pipeline as the file records
     * it (*n ids, room for NCS_MAX_FILTERS), and the walk of a variable's
     * chunk index (ncs_inq_var_chunks; in data mode, visit non-NULL);
     * absent in back ends without chunks: no filters, no chunks, and the
     * extent is the variable's shape. */
    int (*inq_filters)(ncs_file *f, int varid, int *n, unsigned *ids);
    /* Optional, with inq_filters: the parameters the file records for the
     * first filter id of the pipeline (*n of them, the first
     * NCS_MAX_FILTER_PARAMS in params); absent: NCS_ENOFILTER. */
    int (*inq_filter_params)(ncs_file *f, int varid, unsigned id, size_t *n,
                             unsigned *params);
    int (*chunk_index)(ncs_file *f, int varid, size_t *extent, ncs_chunk_visitor *visit,
                       void *arg);
    int (*close)(ncs_file *f, int abort);
    /* Optional, in a store whose data calls are collective (the parallel
     * one): a get (put != 0: a put) of variable varid that ended with
     * status without reaching the get or put slot (its request was
     * refused, or it moves nothing) takes part in the collective all the
     * same, moving nothing; returns the status the caller gets (status
     * itself, or another process's error where status is NCS_NOERR).
     * varid may be any int. */
    int (*skip)(ncs_file *f, int varid, int put, int status);
    /* Optional: carries out n posted requests (none empty) at once, puts
     * first, each one's outcome in status[i] (the request's own status
     * folded in); returns NCS_NOERR or an error of the whole (in a
     * collective store, every process calls it, n = 0 included).
     * Absent: the API layer carries them out one by one. */
    int (*batch)(ncs_file *f, ncsi_req *const *reqs, int n, int *status);
    /* enddef takes NCSI_ALIGN_DEFAULT for v_align and r_align as its own
     * defaults (else the wrapper makes them netCDF-C's, 1). */
    int align_defaults;
    /* Opens files for reading only: the registry does not offer it a file
     * opened with NCS_WRITE. */
    int read_only;
} ncs_store_methods;

/* v_align and r_align of an enddef with no alignment asked for (ncs_enddef,
 * the enddef of ncs_close): netCDF-C's, 1, in every store but one that sets
 * align_defaults. */
#define NCSI_ALIGN_DEFAULT ((size_t)-2)


#define NCSI_F_WRITE   0x01
#define NCSI_F_INDEF   0x02
#define NCSI_F_CREATED 0x04   /* still in the define mode of ncs_create */
#define NCSI_F_NOFILL  0x08
#define NCSI_F_SHARE   0x10
#define NCSI_F_HDIRTY  0x20   /* header differs from the file */
#define NCSI_F_NDIRTY  0x40   /* numrecs differs from the file */
#define NCSI_F_NC4     0x80   /* netCDF-4 file not marked classic-model
                                 (no _nc3_strict): NCS_FORMAT_NETCDF4 */
#define NCSI_F_PAR     0x100  /* opened through ncslab_par.h (lib/par) */

/* The get1 memo: a box of indices of one variable whose elements sit at
 * fixed addresses in memory the back end holds (a cached page, a pinned
 * chunk), so that ncs_get1 reads an element inside it with a few compares
 * and no call into the back end: the element of index is at
 *     base + sum((index[d] - lo[d]) * bstride[d]),  index[d] - lo[d] < ext[d],
 * its bytes as kind says.  A back end's get1 fills it (ncsi_memo_set)
 * after a read it served itself; the API layer then arms it
 * (api_get1.c): it picks the readers for the memo's rank, strides and
 * kind, and only then sets key, so a memo nobody armed is never used.
 * It stays valid only while no other call reaches the back end, so every
 * store wrapper but get1's clears it first, as do mode changes
 * (ncsi_file_modes).  Empty, its key matches no varid (an int). */
#define NCSI_MEMO_DIMS 4
#define NCSI_MEMO_EMPTY INT64_MIN
enum { NCSI_MEMO_2S = -2, NCSI_MEMO_4S = -4, NCSI_MEMO_8S = -8 };
typedef struct ncs_get1_memo ncs_get1_memo;
/* An armed memo's readers: ncs_get1's and ncs_get1_long's hit paths,
 * called with the entry's own arguments and the memo; an index outside
 * the box goes on to the entry's general path (api_get1.c). */
typedef int ncsi_memo_reader(int ncid, int varid, const size_t *index, int memtype, void *buf,
                             const ncs_get1_memo *m);
typedef int ncsi_memo_reader_long(int ncid, int varid, const long *index,
                                  ncs_get1_failure *fail, void *buf, const ncs_get1_memo *m);
struct ncs_get1_memo {
    int64_t key;                     /* the varid once armed, or NCSI_MEMO_EMPTY */
    ncsi_memo_reader *read;          /* set with key */
    ncsi_memo_reader_long *read_long;
    int type;                        /* the variable's type */
    int nd;                          /* 0..NCSI_MEMO_DIMS */
    int kind;                        /* 1, 2, 4, 8 (bytes of a native
                                        element) or NCSI_MEMO_<n>S */
    int ncid;                        /* the file's, set with key */
    int64_t filled;                  /* the varid ncsi_memo_set gave, to arm */
    const unsigned char *base;
    uint64_t lo[NCSI_MEMO_DIMS], ext[NCSI_MEMO_DIMS], bstride[NCSI_MEMO_DIMS];
};

static inline void ncsi_memo_clear(ncs_get1_memo *m) { m->key = NCSI_MEMO_EMPTY; }

/* Makes m ready to serve variable varid of type type, rank nd (at most
 * NCSI_MEMO_DIMS), elements of esz bytes (swap: big-endian ones) at base,
 * once lo, ext and bstride are set and the API layer has armed it. */
static inline void ncsi_memo_set(ncs_get1_memo *m, int varid, int type, int nd, int esz,
                                 int swap, const unsigned char *base)
{
    NCSI_ASSERT(nd >= 0 && nd <= NCSI_MEMO_DIMS);
    NCSI_ASSERT(esz == 1 || esz == 2 || esz == 4 || esz == 8);
    m->filled = varid;
    m->type = type;
    m->nd = nd;
    m->kind = swap && esz > 1 ? -esz : esz;
    m->base = base;
}

/* The element of index from the memo: 1 when it is inside the box (copied
 * to buf), 0 when the back end must be asked.  The plain reference the
 * armed readers (api_get1.c) are tested against (check_get1memo). */
static inline int ncsi_memo_get1(const ncs_get1_memo *m, const size_t *index, void *buf)
{
    const unsigned char *p = m->base;
    if (m->nd == 2) {
        uint64_t r0 = index[0] - m->lo[0], r1 = index[1] - m->lo[1];   /* wrap when below */
        if (r0 >= m->ext[0] || r1 >= m->ext[1])
            return 0;
        p += r0 * m->bstride[0] + r1 * m->bstride[1];
    } else {
        for (int d = m->nd; d-- > 0;) {
            uint64_t rel = index[d] - m->lo[d];
            if (rel >= m->ext[d])
                return 0;
            p += rel * m->bstride[d];
        }
    }
    if (m->kind < 0) {                           /* a classic file's */
        if (m->kind == NCSI_MEMO_2S) {
            uint16_t u;
            memcpy(&u, p, 2);
            u = ncsi_be16(u);
            memcpy(buf, &u, 2);
        } else if (m->kind == NCSI_MEMO_4S) {
            uint32_t u;
            memcpy(&u, p, 4);
            u = ncsi_be32(u);
            memcpy(buf, &u, 4);
        } else {
            uint64_t u;
            memcpy(&u, p, 8);
            u = ncsi_be64(u);
            memcpy(buf, &u, 8);
        }
    } else if (m->kind == 2) {
        memcpy(buf, p, 2);
    } else if (m->kind == 4) {
        memcpy(buf, p, 4);
    } else if (m->kind == 8) {
        memcpy(buf, p, 8);
    } else {
        memcpy(buf, p, 1);
    }
    return 1;
}

struct ncs_file {
    int ncid;
    int flags;
    int nfast;              /* varids below it may use store->get1 (0: none;
                               see ncsi_file_modes) */
    ncs_get1_memo memo;
    int version;            /* 1, 2, 5 classic; 4 chunked */
    ncs_model model;
    ncs_model *old;         /* model at ncs_redef, for layout moves and abort */
    const ncs_store_methods *store;
    void *state;            /* the back end's own */
    char *path;
    /* What the opener gave the store for its open or create (the parallel
     * store's communicator and hints), NULL for a serial open; read by
     * the store's open or create only. */
    const void *open_arg;
    uint64_t xfers;         /* calls of the get and put slots so far (a
                               collective store's skip is owed where a data
                               call made none) */
    ncsi_req **reqs;        /* pending nonblocking requests, in posting order */
    int nreqs, capreqs, next_req;
};

/* ---- the wrappers: every call of a slot goes through one of these ----
 * Each may move what the get1 memo points into (a page, a pin), so each
 * clears it first; get1's store sets it again from what it just read. */
#define NCSI_STORE_HAS(f, slot) ((f)->store->slot != NULL)

static inline int ncsi_store_open(ncs_file *f, const char *path, int mode)
{ ncsi_memo_clear(&f->memo); return f->store->open(f, path, mode); }
static inline int ncsi_store_create(ncs_file *f, const char *path, int cmode)
{ ncsi_memo_clear(&f->memo); return f->store->create(f, path, cmode); }
static inline int ncsi_store_enddef(ncs_file *f, size_t h_minfree, size_t v_align,
                                    size_t v_minfree, size_t r_align)
{
    ncsi_memo_clear(&f->memo);
    if (!f->store->align_defaults) {
        if (v_align == NCSI_ALIGN_DEFAULT)
            v_align = 1;
        if (r_align == NCSI_ALIGN_DEFAULT)
            r_align = 1;
    }
    return f->store->enddef(f, h_minfree, v_align, v_minfree, r_align);
}
static inline int ncsi_store_get(ncs_file *f, int varid, const ncs_slab *s, int memtype,
                                 void *buf)
{ ncsi_memo_clear(&f->memo); f->xfers++; return f->store->get(f, varid, s, memtype, buf); }
static inline int ncsi_store_put(ncs_file *f, int varid, const ncs_slab *s, int memtype,
                                 const void *buf)
{ ncsi_memo_clear(&f->memo); f->xfers++; return f->store->put(f, varid, s, memtype, buf); }
/* Called only for varids below f->nfast, which is 0 where the slot is
 * absent (ncsi_file_modes): no test on the hottest path. */
static inline int ncsi_store_get1(ncs_file *f, int varid, const size_t *index, void *buf)
{
    NCSI_ASSERT(f->store->get1 != NULL);
    ncsi_memo_clear(&f->memo);
    return f->store->get1(f, varid, index, buf);
}
static inline int ncsi_store_get_vara(ncs_file *f, int varid, const size_t *start,
                                      const size_t *count, int memtype, void *buf)
{
    ncsi_memo_clear(&f->memo);
    return f->store->get_vara != NULL ? f->store->get_vara(f, varid, start, count, memtype, buf)
                                      : NCSI_DECLINED;
}
static inline int ncsi_store_view(ncs_file *f, int varid, const size_t *start,
                                  const size_t *count, int pd, const unsigned char **from,
                                  int *apart, ptrdiff_t *bstep, int *swap,
                                  unsigned char *scratch, size_t nscratch)
{
    ncsi_memo_clear(&f->memo);
    return f->store->view != NULL ? f->store->view(f, varid, start, count, pd, from, apart,
                                                   bstep, swap, scratch, nscratch)
                                  : NCSI_DECLINED;
}
static inline int ncsi_store_put_vara(ncs_file *f, int varid, const size_t *start,
                                      const size_t *count, int memtype, const void *buf)
{
    ncsi_memo_clear(&f->memo);
    return f->store->put_vara != NULL ? f->store->put_vara(f, varid, start, count, memtype, buf)
                                      : NCSI_DECLINED;
}
static inline int ncsi_store_write_header(ncs_file *f)
{ ncsi_memo_clear(&f->memo); return f->store->write_header(f); }
static inline int ncsi_store_sync(ncs_file *f)
{ ncsi_memo_clear(&f->memo); return f->store->sync(f); }
static inline int ncsi_store_flush(ncs_file *f)
{ ncsi_memo_clear(&f->memo); return f->store->flush != NULL ? f->store->flush(f) : NCS_NOERR; }
static inline int ncsi_store_refresh(ncs_file *f)
{ ncsi_memo_clear(&f->memo); return f->store->refresh != NULL ? f->store->refresh(f) : NCS_NOERR; }
static inline int ncsi_store_reload(ncs_file *f)
{ ncsi_memo_clear(&f->memo); return f->store->reload != NULL ? f->store->reload(f) : NCS_NOERR; }
static inline int ncsi_store_def_storage(ncs_file *f, int varid, const ncs_storage *st)
{
    ncsi_memo_clear(&f->memo);
    return f->store->def_storage != NULL ? f->store->def_storage(f, varid, st)
                                         : NCS_ERR(NCS_ENOTNC4);
}
/* *st is filled in whole: contiguous storage where the slot is absent. */
static inline int ncsi_store_inq_storage(ncs_file *f, int varid, ncs_storage *st)
{
    ncsi_memo_clear(&f->memo);
    memset(st, 0, sizeof *st);
    st->contiguous = 1;
    return f->store->inq_storage != NULL ? f->store->inq_storage(f, varid, st) : NCS_NOERR;
}
static inline int ncsi_store_provenance(ncs_file *f, char **props, int *superblock,
                                        int *isnetcdf4)
{
    *props = NULL;
    return f->store->provenance != NULL ? f->store->provenance(f, props, superblock, isnetcdf4)
                                        : NCS_ERR(NCS_ENOTATT);
}
static inline int ncsi_store_inq_filters(ncs_file *f, int varid, int *n, unsigned *ids)
{
    ncsi_memo_clear(&f->memo);
    *n = 0;
    return f->store->inq_filters != NULL ? f->store->inq_filters(f, varid, n, ids) : NCS_NOERR;
}
static inline int ncsi_store_inq_filter_params(ncs_file *f, int varid, unsigned id, size_t *n,
                                               unsigned *params)
{
    ncsi_memo_clear(&f->memo);
    *n = 0;
    return f->store->inq_filter_params != NULL
               ? f->store->inq_filter_params(f, varid, id, n, params)
               : NCS_ERR(NCS_ENOFILTER);
}
/* extent is filled in (ndims values) where the slot is absent too. */
static inline int ncsi_store_chunk_index(ncs_file *f, int varid, size_t *extent,
                                         ncs_chunk_visitor *visit, void *arg)
{
    const ncs_var *v = &f->model.vars[varid];
    ncsi_memo_clear(&f->memo);
    if (f->store->chunk_index != NULL)
        return f->store->chunk_index(f, varid, extent, visit, arg);
    for (int d = 0; d < v->ndims; d++)
        extent[d] = (size_t)(v->isrec && d == 0 ? f->model.numrecs : v->shape[d]);
    return NCS_NOERR;
}
static inline int ncsi_store_skip(ncs_file *f, int varid, int put, int status)
{ return f->store->skip != NULL ? f->store->skip(f, varid, put, status) : status; }
static inline int ncsi_store_batch(ncs_file *f, ncsi_req *const *reqs, int n, int *status)
{ ncsi_memo_clear(&f->memo); f->xfers++; return f->store->batch(f, reqs, n, status); }
static inline int ncsi_store_close(ncs_file *f, int abort)
{ ncsi_memo_clear(&f->memo); return f->store->close(f, abort); }

/* The registry (store.c): the back end that creates files of cmode (the
 * API layer has checked cmode: one always does), and the one that reads
 * the existing file at path opened with mode, the first in the registry's
 * order after `after` (NULL: the first of all) that claims it: the API
 * layer asks again, after the one it had, when that one's open declined
 * the file (errors: opening or reading it; NCS_ENOTNC when none claims
 * it).  A new back end is added there, with its probe and creates. */
const ncs_store_methods *ncsi_store_for_create(int cmode);
int ncsi_store_for_open(const char *path, int mode, const ncs_store_methods *after,
                        const ncs_store_methods **storep);

/* The general one-element read, which the API layer provides for back
 * ends' get1 fast paths to fall back on (the one call upward). */
int ncsi_get1_general(ncs_file *f, int varid, const size_t *index, void *buf);

#endif /* NCSI_STORE_H */
