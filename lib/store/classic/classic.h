/*
 * classic.h -- shared by the classic back end's files (not the rest of the
 * library): the header codec and the layout computation.
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
int ncsi_hdr_decode(ncs_io *io, uint64_t fsize, ncs_model *m, int *version,
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

/* ncsi_ncbuf_span of a request of at most a block inside the window the
 * buffer covers, when no stale bytes are held (most data requests of a
 * data-mode loop): netCDF-C serves it where its buffer is, so only the
 * count and the flags change.  0 when the request is not of that kind
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
    if (b->known != NULL || n > b->bs || off < b->off || end > b->off + b->ext)
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

#endif /* NCS_CLASSIC_H */
