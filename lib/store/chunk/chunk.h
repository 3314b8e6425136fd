/*
 * chunk.h -- what any chunked store shares, HDF5 or not: the chunk filter
 * pipeline (filters.c), the chunk cache (chunkcache.c) and the data path
 * between the cache and the caller's memory (chunk_data.c).  Depends on
 * common and the engine only.
 */
#ifndef NCSI_CHUNK_H
#define NCSI_CHUNK_H

#include "common.h"
#include "engine.h"

#include <string.h>

/* ---- chunk filters (filters.c) ----------------------------------------------- */
#define NCSI_FILTER_DEFLATE    1u
#define NCSI_FILTER_SHUFFLE    2u
#define NCSI_FILTER_FLETCHER32 3u
#define NCSI_FILTER_ZSTD       32015u
#define NCSI_MAX_FILTERS       8
typedef struct ncs_filter {
    unsigned id;
    unsigned level;      /* deflate or zstd level */
} ncs_filter;
int ncsi_filter_known(unsigned id);
uint32_t ncsi_fletcher32(const unsigned char *p, size_t n);
int ncsi_filters_encode(const ncs_filter *pipe, int nf, size_t esz,
                        const unsigned char *raw, size_t n,
                        unsigned char **out, size_t *outn);
int ncsi_filters_decode(const ncs_filter *pipe, int nf, unsigned mask, size_t esz,
                        const unsigned char *stored, size_t sn,
                        unsigned char *raw, size_t n);

/* ---- chunk cache (chunkcache.c) -------------------------------------------------
 * Owners (one per chunked variable) supply load and store callbacks; load
 * fills a whole decoded chunk (fill values where nothing is stored).
 * encode and write are optional, both or neither: encode turns a decoded
 * chunk into the bytes stored (*out a new buffer the cache frees, or NULL
 * when buf itself is stored, *outn their length), touching nothing but
 * its arguments and the owner's fixed description, so that the cache may
 * run it on the pool's threads for several chunks at once; write stores
 * those bytes as chunk idx.  Without them the cache calls store, which
 * does both, one chunk at a time. */
typedef struct ncs_chunk_want {
    uint64_t idx, off, n;
} ncs_chunk_want;
typedef struct ncs_chunk_ops {
    int (*load)(void *owner, uint64_t idx, unsigned char *buf, size_t size);
    int (*store)(void *owner, uint64_t idx, const unsigned char *buf, size_t size);
    int (*encode)(void *owner, const unsigned char *buf, size_t size,
                  unsigned char **out, size_t *outn);
    int (*write)(void *owner, uint64_t idx, const unsigned char *data, size_t n);
    /* optional (NULL: nothing): the chunks of w[0..n), none in the cache,
     * will be loaded soon in that order (or, where w[i].n > 0, bytes
     * [off, off + n) of the decoded form read by read_part); the store
     * may start reading them (a hint) */
    void (*willneed)(void *owner, const struct ncs_chunk_want *w, size_t n);
    /* optional (NULL: never): reads bytes [off, off + n) of chunk idx's
     * decoded form (off and n whole elements) into buf from the file,
     * past the cache, setting *done; *done 0 when it cannot (the chunk is
     * filtered, or the store does not know where it is): load it then */
    int (*read_part)(void *owner, uint64_t idx, uint64_t off, unsigned char *buf, size_t n,
                     int *done);
} ncs_chunk_ops;
typedef struct ncs_cache_counters {
    unsigned long long hits, misses, evictions, bytes_read, bytes_written;
} ncs_cache_counters;
#define NCSI_CACHE_READ      0   /* load if absent */
#define NCSI_CACHE_WRITE     1   /* load if absent, mark dirty */
#define NCSI_CACHE_OVERWRITE 2   /* caller overwrites all: no load; dirty */
/* Or'd with NCSI_CACHE_WRITE or NCSI_CACHE_OVERWRITE: the chunk's encoding
 * costs (filters), so that evicting it writes back the oldest such dirty
 * chunks with it, encoded at once on the pool's threads (chunkcache.c). */
#define NCSI_CACHE_ENCODED   4
/* Finds or loads chunk idx of owner and holds it (*ref) until
 * ncsi_cache_release(*ref): a held entry is neither evicted nor written
 * back by another thread, so *out stays valid while the caller copies. */
int  ncsi_cache_get(void *owner, const ncs_chunk_ops *ops, uint64_t idx, size_t size,
                    int mode, unsigned char **out, void **ref);
void ncsi_cache_release(void *ref);
/* As ncsi_cache_get in read mode, and pins the entry (unpinning the entry
 * old_idx of the same owner when have_old): the pointer stays valid until
 * unpinned or dropped.  *crowded (when not NULL) says whether the pinned
 * entries of all owners now hold more than 3/4 of the budget: the caller
 * should then unpin some of its own. */
int  ncsi_cache_pin(void *owner, const ncs_chunk_ops *ops, uint64_t idx, size_t size,
                    int have_old, uint64_t old_idx, unsigned char **out, int *crowded);
/* Unpins the entries idx[0..n) of owner (those not pinned: nothing). */
void ncsi_cache_unpin(void *owner, const uint64_t *idx, size_t n);
/* Whether chunk idx of owner is in the cache (or being loaded). */
int  ncsi_cache_has(void *owner, uint64_t idx);
int  ncsi_cache_flush(void *owner);
/* Writes back chunks idx[0..n) of owner that are cached, dirty and held by
 * no one, encoding them at once on the pool's threads when the store has
 * the encode slot; they stay cached, clean.  The first error is returned
 * (that chunk and those after it stay dirty). */
int  ncsi_cache_write_back(void *owner, const uint64_t *idx, size_t n);
int  ncsi_cache_drop(void *owner, int writeback);
/* ncsi_cache_drop of each of owners[0..n), in that order, in one pass */
int  ncsi_cache_drop_all(void *const *owners, size_t n, int writeback);
int  ncsi_cache_set_budget(size_t bytes);
size_t ncsi_cache_budget(void);
size_t ncsi_cache_used(void);
void ncsi_cache_counters(ncs_cache_counters *c);
void ncsi_cache_reset_counters(void);

/* ---- the decoding pool (chunkpool.c) ----------------------------------------------
 * Runs fn(arg, i) for each i in [0, n) on the pool's threads and the
 * caller's, returning when all are done; serially when the pool has one
 * thread or is busy.  ncsi_pool_set makes it n threads (NCS_EINVAL below
 * 1); ncsi_pool_size says how many. */
void ncsi_pool_run(void (*fn)(void *arg, size_t i), void *arg, size_t n);
int  ncsi_pool_set(int n);
int  ncsi_pool_size(void);

/* ---- a chunked variable's data path (chunk_data.c) ------------------------------
 * A pin slot of the one-element path: chunk idx, pinned in the cache, at
 * ptr (NULL: the slot is empty). */
typedef struct ncs_pinslot {
    uint64_t idx;
    unsigned char *ptr;
} ncs_pinslot;

/* A store keeps one ncs_chunkvar per chunked variable: its geometry, fill
 * value and filters, and its pinned chunks.  Its address is the variable's
 * owner in the cache; ops load and store a chunk's decoded bytes (which the
 * store moves to and from its file, running pipe[]).  Chunks hold elements
 * of type in native byte order (swap: the file has them the other way).
 * The arrays hold ndims elements each; they belong to the store. */
typedef struct ncs_chunkvar {
    const ncs_chunk_ops *ops;
    int ndims;
    int type;                    /* external type of the elements */
    int isrec;                   /* dimension 0 is the record dimension */
    size_t esz;
    size_t chunk_bytes;
    unsigned char fill[8];       /* native fill value */
    ncs_filter pipe[NCSI_MAX_FILTERS];
    int nf;
    int swap;
    uint64_t *shape;             /* the variable's (dimension 0 of a record
                                    variable: unused) */
    uint64_t *chunk;
    uint64_t *cdsz;              /* elements of a chunk in dims d.. */
    uint64_t *estride;           /* element stride of dim d in a chunk */
    uint64_t *grid;              /* chunks along each dimension (dim 0 of a
                                    record variable: unbounded, unused) */
    int unlocated;               /* set by the store when it cannot say where
                                    this variable's chunks are: willneed and
                                    read_part would do nothing */
    uint64_t loads;              /* chunks the store has loaded (its load
                                    slot adds one, on any thread) */
    uint64_t loads_seen;         /* loads when a get last found its first
                                    chunk cached (chunk_data.c) */
    /* one-element fast path: the pinned chunk pidx, whose first element is
     * at plo[], at pptr (NULL: none); lim[] bounds each index (the record
     * count for dimension 0 of a record variable); pext[d] is how many
     * indices from plo[d] both the chunk and lim[d] hold, when pinned (lim
     * only grows, so a stale pext only sends a call the slow way) */
    unsigned char *pptr;
    uint64_t pidx;
    uint64_t *plo;
    uint64_t *pext;
    uint64_t *lim;
    /* the chunks the one-element path keeps pinned, pptr's among them:
     * chunk idx in slot idx % npin (npin 0: none yet), so that a row-major
     * walk across a row of chunks finds each again without the cache
     * (chunk_data.c, "Pin slots"); slots is pin1 or allocated */
    ncs_pinslot *slots;
    unsigned npin;
    ncs_pinslot pin1;
} ncs_chunkvar;

/* Points ck's eight arrays of ndims elements (chunk, cdsz, estride, grid,
 * shape, plo, pext, lim) at v, which holds 8 * ndims. */
void ncsi_chunk_arrays(ncs_chunkvar *ck, uint64_t *v, size_t ndims);
/* Read-ahead hints of a cold get (the stores' willneed slot): the byte
 * ranges [lo[i], hi[i]) of k chunks in the order they will be read,
 * grouped into runs that follow one another in the file; each run of at
 * most NCSI_HINT_RUN bytes is given to hint(arg, offset, n), a longer one
 * left to the kernel's own read-ahead, which a sequential read meets and a
 * hint over part of such a run disturbs (measured: ten adjacent 96 KB
 * chunks read cold in 0.80-0.85x netCDF-C's time without hints,
 * 1.04-1.42x with hints over all of them or the first 128-512 KiB; four
 * adjacent 40 KB chunks 0.46-0.52x with the hint, 0.80x without;
 * doc/performance.md, "Cold reads"). */
#define NCSI_HINT_RUN (256u << 10)
void ncsi_chunk_hint_runs(const uint64_t *lo, const uint64_t *hi, size_t k,
                          void (*hint)(void *arg, uint64_t off, uint64_t n), void *arg);

/* Moves the validated slab s between buf (elements of memtype) and the
 * chunks of ck in the cache, converting as in a file of that version.
 * Returns NCS_NOERR, NCS_ERANGE (everything moved; some value out of
 * range) or the error of a chunk's load. */
int  ncsi_chunk_get(ncs_chunkvar *ck, const ncs_slab *s, int memtype, void *buf,
                    int version);
int  ncsi_chunk_put(ncs_chunkvar *ck, const ncs_slab *s, int memtype, const void *buf,
                    int version);
/* Converts between buf and dense, which holds the request of the slab
 * dense (dense dimension sizes dsz) in the variable's type; sets *erange
 * when some value was out of range. */
int  ncsi_chunk_dense(const ncs_chunkvar *ck, const ncs_slab *dense, const uint64_t *dsz,
                      unsigned char *tmp, int memtype, void *buf, int put, int version,
                      int *erange);
/* Fill values over the whole elements of buf's size bytes. */
void ncsi_chunk_fill(const ncs_chunkvar *ck, unsigned char *buf, size_t size);
/* Reverses the bytes of each esz-byte element of p. */
void ncsi_chunk_swap(unsigned char *p, size_t size, size_t esz);
/* Element coordinates of chunk idx's first element. */
void ncsi_chunk_origin(const ncs_chunkvar *ck, uint64_t idx, uint64_t *off);
/* One element of index (inside lim[], ndims > 0) in the variable's own
 * type: pins the chunk holding it (unpinning another when its slot is
 * taken, or when the cache is crowded). */
int  ncsi_chunk_pin_get1(ncs_chunkvar *ck, const size_t *index, void *buf);
/* Forgets ck's pins without telling the cache (its entries are about to be
 * dropped), clearing pptr; the slots stay allocated. */
void ncsi_chunk_forget_pins(ncs_chunkvar *ck);
/* Frees what ck's pins allocated (after ncsi_chunk_forget_pins or a drop). */
void ncsi_chunk_free_pins(ncs_chunkvar *ck);

/* The element of index from the pinned chunk: 1 when it is there (copied
 * to buf), 0 when the caller must go the slow way.  Inline: it is all a
 * one-element read costs when it hits. */
static inline int ncsi_chunk_get1_pinned(const ncs_chunkvar *ck, const size_t *index,
                                         void *buf)
{
    const unsigned char *e;
    uint64_t elem = 0;
    if (ck->pptr == NULL)
        return 0;
    for (int d = 0; d < ck->ndims; d++) {
        uint64_t rel = index[d] - ck->plo[d];    /* wraps when below */
        if (rel >= ck->pext[d])
            return 0;
        elem += rel * ck->estride[d];
    }
    e = ck->pptr + elem * ck->esz;
    /* fixed-size copies: no call for a few bytes */
    switch (ck->esz) {
    case 1: memcpy(buf, e, 1); break;
    case 2: memcpy(buf, e, 2); break;
    case 4: memcpy(buf, e, 4); break;
    default: memcpy(buf, e, 8); break;
    }
    return 1;
}

#endif /* NCSI_CHUNK_H */
