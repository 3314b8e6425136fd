/*
 * classic.h -- shared by the classic back end's files (not the rest of the
 * library): the header codec, the model of netCDF-C's I/O buffer, the
 * state of an open file, and what each file of the back end offers the
 * others.
 *
 *   classic.c          an open file's life: create, open, sync, refresh,
 *                      reload, close; header and numrecs writes; the store
 *                      table
 *   classic_layout.c   begin offsets, recsize, sizes and their limits
 *   classic_header.c   the header codec (grammar below)
 *   classic_redef.c    enddef: data moves, fill values, the journaled
 *                      ranges, undo
 *   classic_data.c     the general get and put: runs and blocks
 *   classic_fast.c     the fast paths and the in-page decode/encode kernels
 *   classic_ncbuf.c    the model of netCDF-C's I/O buffer
 *   journal.c          the rollback journal of a redefinition
 *
 * Header grammar (netCDF classic format; all integers big-endian):
 *
 *   header    = magic numrecs dim_list gatt_list var_list
 *   magic     = 'C' 'D' 'F' version          version: 1, 2 or 5
 *   numrecs   = NON_NEG | 0xFFFFFFFF         4 bytes; 8 in CDF-5
 *   dim_list  = ABSENT | 0x0000000A nelems dim*
 *   gatt_list = att_list
 *   att_list  = ABSENT | 0x0000000C nelems attr*
 *   var_list  = ABSENT | 0x0000000B nelems var*
 *   ABSENT    = ZERO ZERO                    the second ZERO is 8 bytes in CDF-5
 *   nelems    = NON_NEG                      4 bytes; 8 in CDF-5
 *   name      = nelems bytes pad             pad: zero bytes to a multiple of 4
 *   dim       = name dim_length              dim_length 4 bytes (8 in CDF-5),
 *                                            0 for the record dimension
 *   attr      = name nc_type nelems values pad    nc_type: 4 bytes
 *   var       = name nelems dimid* att_list nc_type vsize begin
 *                 dimid: 4 bytes (8 in CDF-5); vsize: 4 bytes (8 in CDF-5),
 *                 0xFFFFFFFF when too large; begin: 4 bytes in CDF-1, 8 else
 *
 * Header entry      CDF-1  CDF-2  CDF-5
 *   numrecs           4      4      8
 *   list/name counts  4      4      8
 *   dim length        4      4      8
 *   dimid             4      4      8
 *   vsize             4      4      8
 *   begin             4      8      8
 */
#ifndef NCS_CLASSIC_H
#define NCS_CLASSIC_H

#include "store.h"
#include "io.h"
#include <string.h>

#define NCSI_TAG_DIM 0x0A
#define NCSI_TAG_VAR 0x0B
#define NCSI_TAG_ATT 0x0C

/* Layout of the data section, computed by classic_layout or from a header. */
typedef struct ncs_layout {
    uint64_t xsz;        /* header size in bytes */
    uint64_t begin_var;  /* first fixed-size variable (or begin_rec) */
    uint64_t begin_rec;  /* first record variable */
    uint64_t recsize;    /* bytes per record, all record variables */
} ncs_layout;

/* Size in bytes of the encoded header of m in the given version. */
uint64_t ncsi_hdr_len(const ncs_model *m, int version);

/* Encodes the header of m into buf (ncsi_hdr_len bytes). */
void ncsi_hdr_encode(const ncs_model *m, int version, unsigned char *buf);

/* Reads and validates a header from io, whose size is fsize.  Fills m (dims,
 * vars with begin and shape, attributes, numrecs), version and lay.
 * Errors: NCS_ENOTNC (not netCDF, or inconsistent), NCS_EBADNAME,
 * NCS_EBADDIM, NCS_EUNLIMPOS, NCS_EVARSIZE, NCS_ENOMEM, I/O errors. */
/* Checks the layout the variables' begins describe (lay->xsz set): each
 * variable after the previous one, records after the fixed data; fills in
 * begin_var, begin_rec and recsize.  NCS_ENOTNC when they overlap. */
int ncsi_hdr_check_layout(const ncs_model *m, ncs_layout *lay);
/* Whether the 4 bytes at m are a classic magic number: "CDF" and a
 * version byte of 1, 2 or 5. */
static inline int ncsi_cl_magic(const unsigned char *m)
{
    return memcmp(m, "CDF", 3) == 0 && (m[3] == 1 || m[3] == 2 || m[3] == 5);
}
/* Decodes the header of the file in io (fsize bytes long) into m, its
 * version and layout.  The file's leading bytes it read are handed to pc
 * (NULL: none), which then has them without reading them again. */
int ncsi_hdr_decode(ncs_io *io, uint64_t fsize, ncs_pc *pc, ncs_model *m, int *version,
                    ncs_layout *lay);

/* recsize from the record variables' lengths, with the single-record-
 * variable packing rule. */
uint64_t ncsi_recsize(const ncs_model *m);

/* A model of netCDF-C's I/O buffer for one file (classic_ncbuf.c): fed the
 * requests netCDF-C makes for the calls made, in its order, it says how long
 * netCDF-C's file is (flen), which its buffered header writes leave longer
 * than the data, and hands over (stale) the bytes its buffer writes back
 * that are copies of other offsets.  Requests on a file opened read-only
 * change nothing.  Zero it before the first create or open. */
typedef struct ncs_ncbuf {
    uint64_t bs;         /* netCDF-C's chunk size: the file's st_blksize, >= 8 KiB */
    uint64_t off;        /* buffer start (a multiple of bs), or UINT64_MAX: none */
    uint64_t ext, cnt;   /* bytes the buffer covers; bytes it writes back */
    uint64_t flen;       /* netCDF-C's file length */
    uint64_t xsz;        /* netCDF-C's header size: set at open and at layout */
    int rflags;
    int share;           /* NC_SHARE: no buffer, each request on its own */
    int active;
    /* stale bytes: mem[i] where known[i] (2 * bs each, made when needed);
     * the last header written; how to read the back end's file and where
     * to put the stale bytes netCDF-C writes back */
    unsigned char *mem, *known;
    unsigned char *hdr;
    size_t hdr_len, hdr_cap;
    void *ctx;
    int (*read)(void *ctx, uint64_t off, unsigned char *buf, size_t n);
    int (*stale)(void *ctx, uint64_t off, const unsigned char *bytes, size_t n);
    int err;             /* the first failure of those, or of an allocation:
                            the caller's to take and clear */
} ncs_ncbuf;

void ncsi_ncbuf_create(ncs_ncbuf *b, size_t blksize, int share, int version);
/* After the header of a file of fsize bytes was decoded into m. */
void ncsi_ncbuf_open(ncs_ncbuf *b, size_t blksize, int share, int writable, uint64_t fsize,
                     const ncs_model *m, int version);
void ncsi_ncbuf_reread(ncs_ncbuf *b, const ncs_model *m, int version);
/* The requests of a header write (m's header), of a numrecs write, of
 * n bytes of data or fill at off, of a move of n bytes. */
void ncsi_ncbuf_header(ncs_ncbuf *b, const ncs_model *m, int version,
                       const unsigned char *bytes, size_t len);
void ncsi_ncbuf_numrecs(ncs_ncbuf *b, int version);
void ncsi_ncbuf_span(ncs_ncbuf *b, uint64_t off, uint64_t n, int write);

#define NCSI_RGN_WRITE    1
#define NCSI_RGN_MODIFIED 2

/* ncsi_ncbuf_span of a request inside the window the buffer covers (at
 * most its two blocks), when no stale bytes are held (most data requests
 * of a data-mode loop): netCDF-C serves each of its pieces where its
 * buffer is, none reaching past the window, so only the count and the
 * flags change.  0 when the request is not of that kind
 * (the caller then makes the call); a buffer that is absent (off is
 * UINT64_MAX) never holds a request. */
/* 1 when a read of n <= bs bytes at off changes nothing: the buffer holds
 * it and has counted it (cnt can pass ext after a move down a block, so
 * both bound it).  An absent buffer holds nothing. */
static inline int ncsi_ncbuf_read_quiet(const ncs_ncbuf *b, uint64_t off, uint64_t n)
{
    uint64_t end = off + n;
    return off >= b->off && end <= b->off + b->cnt && end <= b->off + b->ext;
}

static inline int ncsi_ncbuf_inside(ncs_ncbuf *b, uint64_t off, uint64_t n, int write)
{
    uint64_t end = off + n;
    if (b->share || !b->active)
        return 1;
    if (b->known != NULL || off < b->off || end > b->off + b->ext)
        return 0;
    if (end - b->off > b->cnt)
        b->cnt = end - b->off;
    if (write)
        b->rflags |= NCSI_RGN_WRITE | NCSI_RGN_MODIFIED;
    return 1;
}
void ncsi_ncbuf_move(ncs_ncbuf *b, uint64_t to, uint64_t from, uint64_t n);
/* netCDF-C's buffer sync (nc_sync, the end of nc_enddef); its close of a
 * file whose header implies calcsize bytes. */
void ncsi_ncbuf_sync(ncs_ncbuf *b);
void ncsi_ncbuf_close(ncs_ncbuf *b, uint64_t calcsize);
void ncsi_ncbuf_free(ncs_ncbuf *b);


/* ---- an open file's state ----------------------------------------------- */

#define PAGE_SIZE   NCSI_CLASSIC_PAGE
#define NPAGES      128      /* at most 8 MiB of pages per file; the cache grows
                                 * to it only as its misses ask (pagecache.c) */
_Static_assert(2 * NCSI_VIEW_MAX < NPAGES, "a view's pages stay cached");
#define SCRATCH_CAP (256 * 1024)

/* Where each element of a variable is, for the one-element fast path:
 * byte offset = begin + sum(index[d] * bstride[d]), index[d] < lim[d]
 * (lim[0] of a record variable is the record count). */
typedef struct fastvar {
    uint64_t begin;
    uint64_t *lim;
    uint64_t *bstride;
    int nd;
    int xsz;
    int type;
    /* into the variable's own type, contiguous runs: the decoder and the
     * decoder of rows (NULL where it is not a byte swap) */
    ncsi_conv_fn dec_self;
    ncsi_conv_fn dec_strided;  /* into its own type, file elements apart */
    ncsi_rows_fn rows_self;
} fastvar;

typedef struct classic {
    ncs_io *io;
    ncs_pc *pc;
    ncs_layout lay;
    unsigned char *scratch;   /* SCRATCH_CAP bytes, for conversions */
    fastvar *fast;            /* one per variable, after layout */
    int nfast;
    uint64_t *fastmem;
    /* the moves of an enddef under way without a journal, to undo them if
     * it fails (log_moves) */
    struct move { uint64_t to, from, n; } *moves;
    size_t nmoves, capmoves;
    /* Where the last failed enddef of this define session placed the fixed
     * and record data.  netCDF-C keeps those offsets in its model after
     * a refused layout, and its next attempt starts from them; so does
     * this, or the next enddef's layout (the file) would differ. */
    int has_hint;
    uint64_t hint_begin_var, hint_begin_rec;
    int log_moves;
    int private_copy;         /* a private copy (NCS_DISKLESS): never
                                 committed, so never journaled */
    int committed;            /* the file holds content a sync or close
                                 committed (it was opened, or synced since
                                 ncs_create): redefinitions are journaled */
    int broken;               /* a failed enddef could not be undone, or
                                 committed without a durable commit: the
                                 status; nothing more is written, a journal
                                 left waits for the next open */
    ncs_ncbuf nb;             /* netCDF-C's I/O buffer for the same calls:
                                 the length (and stale bytes) its file has,
                                 given to this one at sync, close, enddef */
    int nb_quiet;             /* an enddef has told nb of its header */
} classic;

static inline classic *CL(ncs_file *f)
{
    return (classic *)f->state;
}

/* What went wrong in cl->nb's last calls (a read or write of this file's,
 * an allocation), cleared. */
static inline int nb_take(classic *cl)
{
    int status = cl->nb.err;
    cl->nb.err = NCS_NOERR;
    return status;
}

/* What netCDF-C's buffer is asked for a data request: the bytes from its
 * first element to the end of its last.  netCDF-C asks for each run of the
 * request, in order, inside that span; where its buffer's length matters,
 * near a header whose windows reach past the data, the runs of the small
 * requests there cover the span. */
static inline int note_span(classic *cl, uint64_t lo, uint64_t n, int write)
{
    if (!ncsi_ncbuf_inside(&cl->nb, lo, n, write))
        ncsi_ncbuf_span(&cl->nb, lo, n, write);
    return nb_take(cl);
}

static inline int note_data(classic *cl, uint64_t lo, uint64_t last, int xsz, int write)
{
    return note_span(cl, lo, last + (uint64_t)xsz - lo, write);
}

/* What the files of the back end offer each other, hidden: the library
 * is built position-independent, where a function of default visibility
 * may be interposed, and the compiler would then use nothing it knows of
 * the callee for a call inside its own file (ncsi_cl_get_vara's loop,
 * which calls ncsi_cl_decode_paged and ncsi_cl_run_decoder, took more
 * instructions for that). */
#pragma GCC visibility push(hidden)

/* ---- layout (classic_layout.c) ------------------------------------------ */

/* The number of record variables of m. */
int ncsi_cl_count_recvars(const ncs_model *m);

/* NCS_EVARSIZE when a variable of m is larger than the format version (1,
 * 2 or 5) allows: in CDF-1 and CDF-2, only the last fixed-size variable,
 * or the last record variable, may pass the limit, and a fixed-size one
 * only in a file without record variables; in CDF-5, none.  Checked at
 * open and at each enddef. */
int ncsi_cl_check_vlens(const ncs_model *m, int version);

/* Lays out f->model in CL(f)->lay and the variables' begins, by netCDF-C's
 * rules and tuning (ncs__enddef's h_minfree, v_align, v_minfree, r_align;
 * NCS_ALIGN_CHUNK is the file's block size); after ncs_redef (old not
 * NULL), nothing starts before it did.  Starts from the hint of a refused
 * layout (cl->has_hint).  NCS_EVARSIZE when an offset would pass what the
 * version can hold: the caller puts the begins back. */
int ncsi_cl_layout(ncs_file *f, const ncs_model *old, size_t h_minfree,
                   size_t v_align, size_t v_minfree, size_t r_align);

/* The file size the header of f implies (what close makes the file at
 * least). */
uint64_t ncsi_cl_calc_size(const ncs_file *f);

/* ---- header and numrecs (classic.c) ------------------------------------- */

/* Writes the header of m (f->model, or f->old when an enddef is put back)
 * at the start of f, after the cached data; tells cl->nb of it unless the
 * enddef under way has (nb_quiet).  Clears NCSI_F_HDIRTY and NCSI_F_NDIRTY.
 * Errors: NCS_ENOMEM, those of cl->nb, I/O errors.  ncsi_cl_write_header
 * writes f->model's. */
int ncsi_cl_write_model_header(ncs_file *f, const ncs_model *m);
int ncsi_cl_write_header(ncs_file *f);

/* After a put to a shared file: the cached data, then numrecs if it
 * changed, reach the file.  Errors: I/O errors. */
int ncsi_cl_flush_shared(ncs_file *f);

/* Makes the file at least as long as netCDF-C's (cl->nb, when active,
 * says how long), with zeros at the end; first takes cl->nb's pending
 * error.  Errors: those of cl->nb, I/O errors. */
int ncsi_cl_pad_like_netcdf(classic *cl);

/* ---- enddef and fill (classic_redef.c) ---------------------------------- */

/* 1 when every record variable of m has a usable fill value (a _FillValue
 * of its own type and one element, or none). */
int ncsi_cl_rec_fills_ok(const ncs_model *m);

/* Writes the fill values of records [f->model.numrecs, nrecs) of every
 * record variable but skip (-1: none), in netCDF-C's order; the record
 * count is the caller's to change.  Errors: NCS_EBADTYPE (a _FillValue not
 * usable: the variables before it are filled), I/O errors. */
int ncsi_cl_fill_records(ncs_file *f, uint64_t nrecs, int skip);

/* The store table's enddef (store.h).  Errors: NCS_EVARSIZE, NCS_ENOTNC (a
 * layout whose variables would overlap: still in define mode),
 * NCS_EBADTYPE (a _FillValue not usable), NCS_ENOMEM, I/O and journal
 * errors, or the status of an earlier enddef that could not be put back. */
int ncsi_cl_enddef(ncs_file *f, size_t h_minfree, size_t v_align,
                   size_t v_minfree, size_t r_align);

/* ---- the general data path (classic_data.c) ----------------------------- */

/* The store table's get and put (store.h).  Errors: NCS_ERANGE (a value
 * out of range for its destination; the others are converted),
 * NCS_ETRUNC (a get past the end of a read-only file cut short), a put's
 * fill errors (ncsi_cl_fill_records), those of cl->nb, I/O errors. */
int ncsi_cl_get(ncs_file *f, int varid, const ncs_slab *s, int memtype, void *buf);
int ncsi_cl_put(ncs_file *f, int varid, const ncs_slab *s, int memtype, const void *buf);

/* ---- the fast paths (classic_fast.c) ------------------------------------ */

/* Rebuilds cl->fast after the layout changed.  NCS_ENOMEM: cl->nfast is 0
 * (every request takes the general path). */
int ncsi_cl_fast_rebuild(ncs_file *f);

/* The record count changed: sets the fast path's record bounds. */
void ncsi_cl_fast_numrecs(ncs_file *f);

/* The loop that decodes file elements of xtype into memtype, xstep file
 * and mstep memory elements apart (ncsi_decoder, or a byte copy where the
 * conversion is one). */
ncsi_conv_fn ncsi_cl_run_decoder(int xtype, int memtype, int version, ptrdiff_t xstep,
                                 ptrdiff_t mstep);

/* Decodes by dec the n elements of xsz bytes from off, gap bytes apart (a
 * multiple of xsz), into mem, mstep elements of msz bytes apart, from the
 * cached pages of pc; sets *bad when a value is out of range.  Errors: I/O
 * errors. */
int ncsi_cl_decode_paged(ncs_pc *pc, uint64_t off, uint64_t n, uint64_t gap, size_t xsz,
                         ncsi_conv_fn dec, unsigned char *mem, ptrdiff_t mstep, size_t msz,
                         int *bad);

/* Encodes n (> 0) elements of memtype from mem, mstep elements apart, as
 * xtype into the cached pages of f from off, gap bytes apart (a multiple
 * of xsz), their span ((n - 1) * gap + xsz) at most PAGE_SIZE; sets *bad
 * when a value is out of range.  Errors: I/O errors. */
int ncsi_cl_encode_span(ncs_file *f, uint64_t off, uint64_t n, uint64_t gap, size_t xsz,
                        int xtype, int memtype, const unsigned char *mem, ptrdiff_t mstep,
                        int *bad);

/* The store table's optional fast paths (store.h).  Where the general
 * path must answer, get_vara, view and put_vara return NCSI_DECLINED and
 * get1 returns what ncsi_get1_general does. */
int ncsi_cl_get1(ncs_file *f, int varid, const size_t *index, void *buf);
int ncsi_cl_get_vara(ncs_file *f, int varid, const size_t *start, const size_t *count,
                     int memtype, void *buf);
int ncsi_cl_view(ncs_file *f, int varid, const size_t *start, const size_t *count, int pd,
                 const unsigned char **from, int *apart, ptrdiff_t *bstep, int *swap,
                 unsigned char *scratch, size_t nscratch);
int ncsi_cl_put_vara(ncs_file *f, int varid, const size_t *start, const size_t *count,
                     int memtype, const void *buf);

#pragma GCC visibility pop

#endif /* NCS_CLASSIC_H */
