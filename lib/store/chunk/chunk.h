/*
 * chunk.h -- what any chunked store shares, HDF5 or not: the chunk filter
 * pipeline (filters.c) and the chunk cache (chunkcache.c).  Depends on
 * common only.
 */
#ifndef NCSI_CHUNK_H
#define NCSI_CHUNK_H

#include "common.h"

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
 * fills a whole decoded chunk (fill values where nothing is stored). */
typedef struct ncs_chunk_ops {
    int (*load)(void *owner, uint64_t idx, unsigned char *buf, size_t size);
    int (*store)(void *owner, uint64_t idx, const unsigned char *buf, size_t size);
} ncs_chunk_ops;
typedef struct ncs_cache_counters {
    unsigned long long hits, misses, evictions, bytes_read, bytes_written;
} ncs_cache_counters;
#define NCSI_CACHE_READ      0   /* load if absent */
#define NCSI_CACHE_WRITE     1   /* load if absent, mark dirty */
#define NCSI_CACHE_OVERWRITE 2   /* caller overwrites all: no load; dirty */
/* Finds or loads chunk idx of owner and holds it (*ref) until
 * ncsi_cache_release(*ref): a held entry is neither evicted nor written
 * back by another thread, so *out stays valid while the caller copies. */
int  ncsi_cache_get(void *owner, const ncs_chunk_ops *ops, uint64_t idx, size_t size,
                    int mode, unsigned char **out, void **ref);
void ncsi_cache_release(void *ref);
/* As ncsi_cache_get in read mode, and pins the entry (unpinning the entry
 * old_idx of the same owner when have_old): the pointer stays valid until
 * unpinned or dropped. */
int  ncsi_cache_pin(void *owner, const ncs_chunk_ops *ops, uint64_t idx, size_t size,
                    int have_old, uint64_t old_idx, unsigned char **out);
void ncsi_cache_unpin(void *owner, uint64_t idx);
int  ncsi_cache_flush(void *owner);
int  ncsi_cache_drop(void *owner, int writeback);
/* ncsi_cache_drop of each of owners[0..n), in that order, in one pass */
int  ncsi_cache_drop_all(void *const *owners, size_t n, int writeback);
int  ncsi_cache_set_budget(size_t bytes);
size_t ncsi_cache_budget(void);
size_t ncsi_cache_used(void);
void ncsi_cache_counters(ncs_cache_counters *c);
void ncsi_cache_reset_counters(void);

#endif /* NCSI_CHUNK_H */
