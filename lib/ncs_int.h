/*
 * ncs_int.h -- internal interfaces of libncslab.
 *
 * The library is layered; each layer meets the next through a small table of
 * function pointers or a narrow set of ncsi_ functions declared here:
 *
 *   api_*.c        public ncs_ entry points: handle lookup, mode and argument
 *                  checks (the only place caller input is validated)
 *   model.c        the core model: dimensions, variables, attributes, names
 *   slab.c         the hyperslab engine: (start,count,stride,imap) -> runs
 *   convert.c      external (big-endian) <-> memory type conversion
 *   classic*.c     storage back end for CDF-1/2/5 files
 *   journal.c      its rollback journal for redefinitions (journal.h)
 *   pagecache.c    write-back block cache over a byte-I/O object
 *   io_posix.c     byte I/O on a file descriptor
 *
 * Symbols with external linkage that are not public start with ncsi_.
 * Below the API layer, facts already checked there are stated with assert;
 * bytes read from a file are never asserted on, they get real checks.
 */
#ifndef NCS_INT_H
#define NCS_INT_H

#include "config.h"
#include "ncslab.h"

#include <assert.h>
#include <stdint.h>
#include <stddef.h>

/* ---- errors -------------------------------------------------------------
 * NCS_ERR(code) makes an internal error.  In debug builds it records where
 * the error was first made (retrievable with ncsi_last_error_site), which
 * turns "returned -51" into a file and line. */
#ifdef NCS_DEBUG
int ncsi_error_at(int code, const char *file, int line);
#define NCS_ERR(code) ncsi_error_at((code), __FILE__, __LINE__)
#else
#define NCS_ERR(code) (code)
#endif
const char *ncsi_last_error_site(void);

/* Fast paths (single-element reads, same-type copies) can be switched off,
 * so that the tests run the general code too.  Debug builds start with them
 * off; NCSLAB_FASTPATH=0/1 in the environment overrides at first open. */
extern int ncsi_fastpath;
void ncsi_fastpath_init(void);


/* ---- memory -----------------------------------------------------------------
 * Every allocation of the library goes through these, so the fault-injection
 * tests can make the Nth one fail (ncsi_fault_alloc). */
void *ncsi_malloc(size_t n);
void *ncsi_calloc(size_t n, size_t size);
void *ncsi_realloc(void *p, size_t n);
char *ncsi_strdup(const char *s);
/* Fault injection (tests only): the countdown-th allocation from now
 * fails (0: none). */
void ncsi_fault_alloc(long countdown);

/* ---- checked arithmetic ------------------------------------------------- */
static inline int ncsi_mul_u64(uint64_t a, uint64_t b, uint64_t *r)
{
    return __builtin_mul_overflow(a, b, r);
}
static inline int ncsi_add_u64(uint64_t a, uint64_t b, uint64_t *r)
{
    return __builtin_add_overflow(a, b, r);
}
#define NCS_RNDUP(x, a) ((((x) + (a) - 1) / (a)) * (a))

/* ---- types -------------------------------------------------------------- */
#define NCSI_NTYPES 12           /* NCS_NAT .. NCS_UINT64 */
/* A big-endian (file order) unsigned integer of N bits in host order, and
 * back: ncsi_be16, ncsi_be32, ncsi_be64. */
#ifdef WORDS_BIGENDIAN
#define NCSI_DEF_BE(N)                                                         \
    static inline uint##N##_t ncsi_be##N(uint##N##_t v) { return v; }
#else
#define NCSI_DEF_BE(N)                                                         \
    static inline uint##N##_t ncsi_be##N(uint##N##_t v) { return __builtin_bswap##N(v); }
#endif
NCSI_DEF_BE(16)
NCSI_DEF_BE(32)
NCSI_DEF_BE(64)

/* External (and native) size of one element, 0 for an invalid type. */
static inline size_t ncsi_type_size(int type)
{
    static const unsigned char sz[NCSI_NTYPES] = {0, 1, 1, 2, 4, 4, 8, 1, 2, 4, 8, 8};
    return (type > 0 && type < NCSI_NTYPES) ? sz[type] : 0;
}
/* 1 for a type valid in the given classic version (1, 2 or 5). */
int ncsi_type_ok(int type, int version);

/* ---- byte I/O ------------------------------------------------------------
 * A byte-I/O object reads and writes bytes at offsets.  read returns the
 * number of bytes actually present (short at end of file).  lock takes
 * (on != 0) or drops an exclusive advisory lock on the whole file without
 * waiting: EWOULDBLOCK when another object, of this process or another,
 * holds it; close drops it too. */
typedef struct ncs_io ncs_io;
typedef struct ncs_io_methods {
    int (*read)(ncs_io *io, uint64_t off, void *buf, size_t n, size_t *got);
    int (*write)(ncs_io *io, uint64_t off, const void *buf, size_t n);
    int (*size)(ncs_io *io, uint64_t *sizep);
    int (*set_size)(ncs_io *io, uint64_t size);   /* extend or truncate */
    int (*sync)(ncs_io *io);
    int (*lock)(ncs_io *io, int on);
    int (*close)(ncs_io *io);                     /* frees io */
} ncs_io_methods;
struct ncs_io {
    const ncs_io_methods *m;
    size_t blksize;      /* preferred transfer size, at least 8 KiB */
};
#define NCSI_IO_WRITE  1
#define NCSI_IO_CREATE 2
#define NCSI_IO_EXCL   4
int ncsi_io_posix_open(const char *path, int flags, ncs_io **iop);
/* How the classic back end opens files: ncsi_io_posix_open, unless a test
 * has put a fault-injecting wrapper in its place. */
typedef int (*ncs_io_opener)(const char *path, int flags, ncs_io **iop);
extern ncs_io_opener ncsi_io_open;

static inline int ncsi_io_read(ncs_io *io, uint64_t off, void *b, size_t n, size_t *got)
{ return io->m->read(io, off, b, n, got); }
static inline int ncsi_io_write(ncs_io *io, uint64_t off, const void *b, size_t n)
{ return io->m->write(io, off, b, n); }
static inline int ncsi_io_size(ncs_io *io, uint64_t *s) { return io->m->size(io, s); }
static inline int ncsi_io_set_size(ncs_io *io, uint64_t s) { return io->m->set_size(io, s); }
static inline int ncsi_io_sync(ncs_io *io) { return io->m->sync(io); }
static inline int ncsi_io_lock(ncs_io *io, int on) { return io->m->lock(io, on); }
static inline int ncsi_io_close(ncs_io *io) { return io->m->close(io); }

/* ---- page cache ----------------------------------------------------------
 * A write-back cache of fixed-size pages over one ncs_io.  Reads past the end
 * of the file return zeros (the bytes a sparse file would hold).  Requests of
 * at least a page bypass the cache (after flushing what they overlap). */
typedef struct ncs_pc ncs_pc;
/* The most recently used page, readable without a call: [lo, hi) of the
 * file is at base.  Kept first in struct ncs_pc. */
typedef struct ncs_pc_window {
    uint64_t lo, hi;
    unsigned char *base;
} ncs_pc_window;
static inline const unsigned char *ncsi_pc_peek(const ncs_pc *pc, uint64_t off, size_t n)
{
    const ncs_pc_window *w = (const ncs_pc_window *)pc;
    return (off >= w->lo && off + n <= w->hi) ? w->base + (off - w->lo) : NULL;
}
int  ncsi_pc_new(ncs_io *io, size_t page_size, int npages, ncs_pc **pcp);
void ncsi_pc_free(ncs_pc *pc);                  /* drops dirty data */
int  ncsi_pc_read(ncs_pc *pc, uint64_t off, void *buf, size_t n);
int  ncsi_pc_write(ncs_pc *pc, uint64_t off, const void *buf, size_t n);
/* Writes to the file now, updating cached copies; for the header and
 * numrecs, which must reach the file after the data they describe. */
int  ncsi_pc_write_through(ncs_pc *pc, uint64_t off, const void *buf, size_t n);
size_t ncsi_pc_page_size(const ncs_pc *pc);
/* Pointer to n bytes at off inside one cached page, or NULL when the range
 * crosses a page or is not cached-able; for_write marks the page dirty. */
unsigned char *ncsi_pc_span(ncs_pc *pc, uint64_t off, size_t n, int for_write, int *status);
/* The start of cached page pno, for reading, or NULL with *status set; its
 * bytes past the logical size are not the file's (check before reading). */
const unsigned char *ncsi_pc_page(ncs_pc *pc, uint64_t pno, int *status);
/* memmove within the file; *donep (if not NULL) gets the bytes moved, at
 * the end of the range when to > from, at its start otherwise. */
int  ncsi_pc_move(ncs_pc *pc, uint64_t to, uint64_t from, uint64_t n, uint64_t *donep);
int  ncsi_pc_flush(ncs_pc *pc);                 /* write dirty pages */
int  ncsi_pc_invalidate(ncs_pc *pc);            /* flush, then forget */
/* Forgets every page, dirty ones included, without writing; the file is
 * now size bytes long (a rollback has put its old bytes back). */
void ncsi_pc_discard(ncs_pc *pc, uint64_t size);
uint64_t ncsi_pc_logical_size(ncs_pc *pc);       /* max(file size, writes) */

/* ---- conversion ---------------------------------------------------------
 * Decode n external (big-endian) elements of xtype at src into memory type
 * mtype at dst, dst elements dstep apart (in elements).  Returns NCS_NOERR or
 * NCS_ERANGE (all elements are still converted).  Encode is the reverse. */
int ncsi_decode(int xtype, const void *src, size_t n, int mtype, void *dst,
                ptrdiff_t dstep, int version);
int ncsi_encode(int xtype, void *dst, size_t n, int mtype, const void *src,
                ptrdiff_t sstep, int version);
/* As above, external elements xstep elements apart (xstep >= 1). */
int ncsi_decode_strided(int xtype, const void *src, ptrdiff_t xstep, size_t n,
                        int mtype, void *dst, ptrdiff_t dstep, int version);
int ncsi_encode_strided(int xtype, void *dst, ptrdiff_t xstep, size_t n,
                        int mtype, const void *src, ptrdiff_t sstep, int version);
/* The loop ncsi_decode_strided runs for (xtype, mtype) in a file of that
 * version, for a caller that decodes many runs of one request: fn(src,
 * xstep, dst, dstep, n) returns non-zero when some element was out of
 * range (NCS_ERANGE). */
typedef int (*ncsi_conv_fn)(const void *src, ptrdiff_t sstep, void *dst, ptrdiff_t dstep,
                            size_t n);
ncsi_conv_fn ncsi_decoder(int xtype, int mtype, int version);
/* Where decoding xtype into mtype is a byte swap of 2-, 4- or 8-byte
 * elements (the same type, on a little-endian host): fn(src, sgap, dst,
 * dgap, n, rows) decodes rows of n contiguous elements, sgap and dgap
 * bytes apart.  NULL otherwise. */
typedef void (*ncsi_rows_fn)(const unsigned char *src, ptrdiff_t sgap, unsigned char *dst,
                             ptrdiff_t dgap, size_t n, size_t rows);
ncsi_rows_fn ncsi_row_decoder(int xtype, int mtype, int version);
/* Native to native: n elements of stype, sstep apart, to dtype, dstep apart,
 * with the same range rules. */
int ncsi_convert(int stype, const void *src, ptrdiff_t sstep, size_t n,
                 int dtype, void *dst, ptrdiff_t dstep, int version);
/* Writes n copies of the default fill value of xtype, big-endian, at dst. */
void ncsi_default_fill(int xtype, void *dst, size_t n);

/* ---- core model ----------------------------------------------------------- */
/* Every name carries namelen, its length in the header when that differs
 * from strlen(name) (else 0).  netCDF-C renames in data mode keep the old
 * length and pad the new name with NUL bytes; files must be identical, and
 * such files must be read, so the length is kept apart from the string. */
typedef struct ncs_att {
    char *name;
    uint32_t namelen;
    int type;
    uint64_t nelems;
    void *xval;          /* external (big-endian) bytes, nelems*size */
    int in_file;         /* chunked back end: in the file under this name since
                            it was written or read (a rewrite of the same name
                            keeps it; a rename or a new attribute clears it) */
} ncs_att;

typedef struct ncs_attlist {
    int n, cap;
    ncs_att *a;
} ncs_attlist;

typedef struct ncs_dim {
    char *name;
    uint32_t namelen;
    uint64_t len;        /* 0: the unlimited dimension */
} ncs_dim;

typedef struct ncs_var {
    char *name;
    uint32_t namelen;
    int type;
    int ndims;
    int *dimids;
    uint64_t *shape;     /* shape[0] == 0 for a record variable */
    uint64_t *dsizes;    /* dsizes[d]: elements in dims d..ndims-1, record dim counted as 1 */
    size_t xsz;          /* external element size */
    uint64_t len;        /* vsize: bytes (per record), rounded up to 4 */
    uint64_t begin;      /* file offset of the data (of record 0) */
    int isrec;
    ncs_attlist atts;
} ncs_var;

typedef struct ncs_model {
    int ndims, capdims;
    ncs_dim *dims;
    int nvars, capvars;
    ncs_var *vars;
    ncs_attlist gatts;
    int unlimdim;        /* -1 when none */
    uint64_t numrecs;
} ncs_model;

int  ncsi_check_name(const char *name);
/* NFC copy of the UTF-8 string in, malloc'd into *out (nfc.c).
 * Errors: NCS_EBADNAME (in is not valid UTF-8), NCS_ENOMEM. */
int  ncsi_nfc(const char *in, char **out);
/* The length of a name in the header (see ncs_att). */
size_t ncsi_name_xlen(const char *name, uint32_t namelen);
int  ncsi_model_copy(const ncs_model *src, ncs_model *dst);
void ncsi_model_free(ncs_model *m);
int  ncsi_find_dim(const ncs_model *m, const char *name);
int  ncsi_find_var(const ncs_model *m, const char *name);
int  ncsi_find_att(const ncs_attlist *l, const char *name);
ncs_attlist *ncsi_attlist(ncs_model *m, int varid);  /* NULL: bad varid */
/* Computes shape, dsizes, xsz and len of v from the model's dimensions.
 * Errors: NCS_EBADDIM, NCS_EUNLIMPOS, NCS_EVARSIZE (byte count overflows). */
int  ncsi_var_shape(const ncs_model *m, ncs_var *v);
void ncsi_att_free(ncs_att *a);
void ncsi_attlist_free(ncs_attlist *l);
int  ncsi_attlist_copy(const ncs_attlist *src, ncs_attlist *dst);
/* Replaces or appends; takes ownership of *a on success. */
int  ncsi_attlist_put(ncs_attlist *l, ncs_att *a);
void ncsi_attlist_del(ncs_attlist *l, int idx);

/* ---- hyperslab engine -----------------------------------------------------
 * A validated request, reduced to the dimensions that matter.  The engine
 * merges adjacent dimensions that are contiguous both in the variable and in
 * memory, then calls run() once per innermost run:
 *   rec    record index of the run (0 for fixed variables);
 *   elem   linear index of the run's first element within the record (the
 *          whole variable for fixed variables);
 *   n      elements in the run, fstep apart in the variable (in elements);
 *   moff   memory offset of the first element, in elements;
 *   mstep  memory distance between consecutive run elements, in elements.
 * run() returns NCS_NOERR or an error that stops the walk; range errors are
 * for the callback to remember, not to return. */
#define NCSI_SLAB_INLINE 16            /* ranks up to this need no allocation */
typedef struct ncs_slab {
    int ndims;
    int isrec;
    uint64_t *start;
    uint64_t *count;
    uint64_t *stride;
    ptrdiff_t *imap;                    /* memory map in elements */
    uint64_t nelems;                    /* product of counts */
    uint64_t recs_needed;               /* put: records the file must have */
    uint64_t *heap;                     /* the arrays, for larger ranks */
    uint64_t inl[4 * NCSI_SLAB_INLINE];
} ncs_slab;
/* Points the arrays of s at storage for ndims dimensions (inline, or
 * allocated for large ranks); ncsi_slab_release frees what was allocated.
 * A slab must not be copied by assignment: ncsi_slab_copy copies values. */
int  ncsi_slab_init(ncs_slab *s, int ndims);
void ncsi_slab_release(ncs_slab *s);
int  ncsi_slab_copy(ncs_slab *dst, const ncs_slab *src);

typedef int (*ncs_run_fn)(void *ctx, uint64_t rec, uint64_t elem, uint64_t n,
                          uint64_t fstep, ptrdiff_t moff, ptrdiff_t mstep);
/* dsizes as in ncs_var (record dimension counted as 1). */
int ncsi_slab_runs(const ncs_slab *s, const uint64_t *dsizes, ncs_run_fn run,
                   void *ctx);
/* 1 when s->imap is the natural (dense, row-major) order of s->count, on
 * the dimensions whose count exceeds 1. */
int ncsi_slab_natural_map(const ncs_slab *s);
/* Places the s->nelems elements of esz bytes of the slab from from into
 * buf at the element map s->imap (transposing 2-D planes in tiles where
 * the map makes an outer dimension contiguous).  Dimension d of from is
 * fstep[d] elements apart; fstep NULL: from holds the slab densely, in
 * natural order.  swap: from holds each element byte-reversed. */
int ncsi_slab_place(const ncs_slab *s, const void *from, const ptrdiff_t *fstep, int swap,
                    void *buf, size_t esz);
/* The same with the elements of index i of dimension pd from froms[i]
 * (fstep[pd] unused); NCSI_DECLINED, with nothing placed, where pd is a
 * dimension that a plane's transpose or a row's copy walks (it cannot jump
 * between pieces there). */
int ncsi_slab_place_pieces(const ncs_slab *s, int pd, const unsigned char *const *froms,
                           const ptrdiff_t *fstep, int swap, void *buf, size_t esz);
/* The dimension a view's pieces had best follow: the innermost of count
 * over 1 outside the two innermost such (outside a plane); -1 if none. */
int ncsi_slab_pieces_dim(const ncs_slab *s);
/* The most pieces a store's view gives (its from array's length). */
#define NCSI_VIEW_MAX 32
/* The classic back end's cache pages, whose boundaries a view's pieces
 * may cross (the API layer sizes its pieces by them). */
#define NCSI_CLASSIC_PAGE (64 * 1024)

/* A block: rows runs, the first of n elements fstep apart from variable
 * element elem of record rec (to memory element moff, mstep apart), each
 * next one rrec records, rfstep variable elements and rmstep memory
 * elements further (rows are records when a request reads one run per
 * record).  The variable steps are positive or zero; rows >= 1. */
typedef struct ncs_block {
    uint64_t rec, elem, n, fstep, rows, rrec, rfstep;
    ptrdiff_t moff, mstep, rmstep;
} ncs_block;
typedef int (*ncs_block_fn)(void *ctx, const ncs_block *b);
/* The runs of ncsi_slab_runs, two dimensions at a time, so that a back end
 * can move a whole block in one tight loop. */
int ncsi_slab_blocks(const ncs_slab *s, const uint64_t *dsizes, ncs_block_fn fn,
                     void *ctx);

/* ---- vector clones --------------------------------------------------------
 * x86-64's baseline (SSE2) lacks byte shuffles and three-operand vector
 * instructions: a function marked NCSI_VEC_CLONES is also compiled for AVX2
 * and the loader picks the version the processor runs (an ifunc).
 * Elsewhere, under ThreadSanitizer, or with -DNCSI_NO_CLONES, one version. */
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define NCSI_NO_CLONES 1        /* ThreadSanitizer's instrumented resolvers run
                                   at load time before its runtime is up */
#endif
#endif
#if defined(__SANITIZE_THREAD__) && !defined(NCSI_NO_CLONES)
#define NCSI_NO_CLONES 1
#endif
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && \
    !defined(NCSI_NO_CLONES) && defined(HAVE_TARGET_CLONES)
#define NCSI_VEC_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define NCSI_VEC_CLONES
#endif

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

/* Storage settings of one variable (chunked back end). */
typedef struct ncs_storage {
    int contiguous;                     /* not chunked: contiguous or compact */
    int compact;                        /* the data in the object header */
    int chunks_set;                     /* chunks[] chosen by the caller */
    uint64_t chunks[NCS_MAX_VAR_DIMS];
    int shuffle;
    int deflate_level;                  /* 0: none */
    int zstd_level;                     /* 0: none */
    int fletcher32;
} ncs_storage;

/* Splits a validated slab by a chunk grid (chunk[d] elements along
 * dimension d): fn gets each touched chunk's coordinates, the part of the
 * request inside it as a slab local to the chunk (isrec 0, same strides and
 * map), and the memory offset, in elements, of that part's first element. */
typedef int (*ncs_chunk_fn)(void *ctx, const uint64_t *ccoord, const ncs_slab *sub,
                            ptrdiff_t moff);
int ncsi_slab_chunks(const ncs_slab *s, const uint64_t *chunk, ncs_chunk_fn fn, void *ctx);

/* ---- files and back ends --------------------------------------------------- */
typedef struct ncs_file ncs_file;

/* What every storage back end does.  The API layer has validated ids, modes
 * and the slab before any of these is called.
 *
 * A slot a back end has no use for is NULL, never a stand-in.  The fast
 * paths (get1, get_vara, view, put_vara) are absent where the general path
 * is the only one; the storage settings (def_storage, inq_storage) as
 * api_chunk.c says.  The upkeep slots (flush, refresh, reload) are called
 * only through ncsi_store_flush, ncsi_store_refresh and ncsi_store_reload
 * below, and their one default is this: an absent upkeep slot means the
 * back end keeps nothing that could be stale or unwritten there, so the
 * call succeeds doing nothing. */
typedef struct ncs_store_methods {
    const char *name;
    /* Opens an existing file; fills f->model.  */
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
     * buffered), in ncs_redef of a shared file. */
    int (*reload)(ncs_file *f);
    /* Storage settings of a variable; NULL in back ends without choices. */
    int (*def_storage)(ncs_file *f, int varid, const ncs_storage *st);
    int (*inq_storage)(ncs_file *f, int varid, ncs_storage *st);
    int (*close)(ncs_file *f, int abort);
} ncs_store_methods;

/* What a store's optional fast path returns for "take the general path". */
#define NCSI_DECLINED 1

extern const ncs_store_methods ncsi_classic_store;
extern const ncs_store_methods ncsi_chunked_store;

#define NCSI_F_WRITE   0x01
#define NCSI_F_INDEF   0x02
#define NCSI_F_CREATED 0x04   /* still in the define mode of ncs_create */
#define NCSI_F_NOFILL  0x08
#define NCSI_F_SHARE   0x10
#define NCSI_F_HDIRTY  0x20   /* header differs from the file */
#define NCSI_F_NDIRTY  0x40   /* numrecs differs from the file */
#define NCSI_F_NC4     0x80   /* netCDF-4 file not marked classic-model
                                 (no _nc3_strict): NCS_FORMAT_NETCDF4 */

struct ncs_file {
    int ncid;
    int flags;
    int nfast;              /* varids below it may use store->get1 (0: none;
                               see ncsi_file_modes) */
    int version;            /* 1, 2, 5 classic; 4 chunked */
    ncs_model model;
    ncs_model *old;         /* model at ncs_redef, for layout moves and abort */
    const ncs_store_methods *store;
    void *state;            /* the back end's own */
    char *path;
};

/* The upkeep slots with their default (see ncs_store_methods). */
static inline int ncsi_store_flush(ncs_file *f)
{
    return f->store->flush != NULL ? f->store->flush(f) : NCS_NOERR;
}
static inline int ncsi_store_refresh(ncs_file *f)
{
    return f->store->refresh != NULL ? f->store->refresh(f) : NCS_NOERR;
}
static inline int ncsi_store_reload(ncs_file *f)
{
    return f->store->reload != NULL ? f->store->reload(f) : NCS_NOERR;
}

int ncsi_file_register(ncs_file *f);          /* assigns f->ncid */
/* The general one-element read, for back ends' fast paths to fall back on. */
int ncsi_get1_general(ncs_file *f, int varid, const size_t *index, void *buf);
/* Recomputes what depends on the file's mode flags and variable count
 * (f->nfast). */
void ncsi_file_modes(ncs_file *f);
void ncsi_file_unregister(ncs_file *f);

/* The open file of an ncid, or NULL: ncid = slot << 16, as netCDF-C
 * numbers its files.  Inline, because every data call starts here. */
#define NCSI_MAX_OPEN 32768
#define NCSI_ID_SHIFT 16
extern ncs_file *ncsi_open_files[NCSI_MAX_OPEN];
static inline ncs_file *ncsi_file_get(int ncid)
{
    unsigned slot = (unsigned)ncid >> NCSI_ID_SHIFT;
    if (ncid <= 0 || (ncid & ((1 << NCSI_ID_SHIFT) - 1)) != 0 || slot >= NCSI_MAX_OPEN)
        return NULL;
    return ncsi_open_files[slot];
}

#endif /* NCS_INT_H */
