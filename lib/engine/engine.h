/*
 * engine.h -- the hyperslab engine: a validated (start, count, stride, map)
 * request as runs and blocks (slab.c), split by a chunk grid, placed in
 * memory (placement and transpose kernels, mapped gets: place.c), and the
 * type conversions between external and memory types (convert.c).  It
 * sees neither storage nor I/O: it depends on common only.
 */
#ifndef NCSI_ENGINE_H
#define NCSI_ENGINE_H

#include "common.h"

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
/* Quantizes n values of type (NCS_FLOAT or NCS_DOUBLE; others are left
 * alone), in the machine's order, the first of them the first of a request,
 * by mode (NCS_QUANTIZE_*) to nsd digits or bits, leaving those equal to
 * *fill (a value of type) as they are (quantize.c). */
void ncsi_quantize(int type, void *vals, size_t n, int mode, int nsd, const void *fill);

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
/* The same as ncsi_slab_place, one element at a time by its coordinates:
 * the plain scalar kernel that the tests compare the others with. */
int ncsi_slab_place_ref(const ncs_slab *s, const void *from, const ptrdiff_t *fstep, int swap,
                        void *buf, size_t esz);

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


/* Splits a validated slab by a chunk grid (chunk[d] elements along
 * dimension d): fn gets each touched chunk's coordinates, the part of the
 * request inside it as a slab local to the chunk (isrec 0, same strides and
 * map), and the memory offset, in elements, of that part's first element. */
typedef int (*ncs_chunk_fn)(void *ctx, const uint64_t *ccoord, const ncs_slab *sub,
                            ptrdiff_t moff);
int ncsi_slab_chunks(const ncs_slab *s, const uint64_t *chunk, ncs_chunk_fn fn, void *ctx);

/* ---- mapped gets (place.c) -------------------------------------------------
 * A get whose map is not the natural order, in pieces that the caller (who
 * knows the store) reads or shows, placed here into memory with the map.
 * Pieces are sub-slabs of the request with its strides and map. */
#define NCSI_MAPPED_DIMS 8             /* ranks up to this may read pieces plainly */
#define NCSI_MAPPED_SMALL 16384        /* bytes of a piece a view or the stack takes */
typedef struct ncsi_mapped_src {
    void *ctx;
    /* Reads piece p (p->imap its natural order) densely, in the request's
     * memory type, into dense.  pst and pct: p's start and count, given
     * (else NULL) where the request is plain: unit strides, rank at most
     * NCSI_MAPPED_DIMS and plain set.  Returns NCS_NOERR, NCS_ERANGE (all
     * of it read and converted) or an error, which ends the get. */
    int (*read)(void *ctx, const ncs_slab *p, const size_t *pst, const size_t *pct,
                void *dense);
    /* Places plain piece p (start and count also in pst and pct) into
     * buf, at p->imap, straight from the store's view of it (through
     * ncsi_place_viewed), with scratch of nscratch bytes for elements
     * across the store's pages.  Returns NCS_NOERR, NCSI_DECLINED where
     * the store has no such view (nothing placed), or an error, which
     * ends the get.  NULL: no views (only a request in the variable's own
     * type may have them). */
    int (*place_view)(void *ctx, const ncs_slab *p, const size_t *pst, const size_t *pct,
                      void *buf, unsigned char *scratch, size_t nscratch);
    int plain;                          /* pieces may be read plainly */
    size_t page;                        /* the view's page: pieces are sized so
                                           that their planes cross few */
} ncsi_mapped_src;
/* Gets the validated slab s (nelems > 0), of elements of msz bytes, into
 * buf with s->imap.  Returns NCS_NOERR, NCS_ERANGE (after all of it), an
 * error of src->read or src->place_view, or NCS_ENOMEM. */
int ncsi_get_mapped(const ncs_slab *s, size_t msz, const ncsi_mapped_src *src, void *buf);
/* What a store's view of a piece gives (the store table's view slot):
 * from, apart, bstep in bytes and swap. */
typedef struct ncsi_view {
    const unsigned char *from[NCSI_VIEW_MAX];
    ptrdiff_t bstep[NCSI_MAPPED_DIMS];
    int apart, swap;
} ncsi_view;
/* Places p (count and imap set, rank at most NCSI_MAPPED_DIMS) into buf
 * from the view v of it, asked for along dimension pd (v->bstep is turned
 * into elements here).  NCSI_DECLINED, with nothing placed, where the
 * steps are not whole elements or the pieces cannot be followed
 * (ncsi_slab_place_pieces). */
int ncsi_place_viewed(const ncs_slab *p, int pd, ncsi_view *v, void *buf, size_t msz);


#endif /* NCSI_ENGINE_H */
