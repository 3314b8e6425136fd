/*
 * nc4.h -- netCDF-4 without HDF5: what netCDF-4 files hold by netCDF-C's
 * conventions, shared by both stores of such files (n4_conv.c), and the
 * store that reads them from their own bytes (n4_store.c, n4_meta.c,
 * n4_data.c), so that a program reading netCDF-4 files never loads HDF5.
 *
 * The layout netCDF-C (and ncslab's HDF5 store, lib/store/hdf5) write,
 * in the classic data model:
 *   /                 root group; attributes: _NCProperties (text),
 *                     _nc3_strict (int 1: the classic model; absent in a
 *                     netCDF-4 file not marked so), then the global
 *                     attributes in creation order
 *   /<var>            one dataset per variable, in varid order; its
 *                     attributes in creation order; DIMENSION_LIST
 *                     references its dimension scales; _Netcdf4Coordinates
 *                     (int[ndims], the dimids) on variables with
 *                     dimensions.  A variable named like a dimension it is
 *                     not the coordinate variable of is
 *                     /_nc4_non_coord_<var>.
 *   /<dim>            a dimension scale (CLASS "DIMENSION_SCALE") per
 *                     dimension: the coordinate variable's dataset, else a
 *                     dataset of the dimension's length whose NAME reads
 *                     "This is a netCDF dimension but not a netCDF
 *                     variable.%10d"; _Netcdf4Dimid (int) gives its dimid
 *
 * The store here (ncsi_nc4_store) serves files opened read-only, and
 * only those it reads the way the HDF5 store would: for everything else
 * (a file open for writing, a group, a type or a filter outside the
 * classic model, a part of the HDF5 format store/h5read does not read, a
 * file HDF5 might judge otherwise) its open declines (NCSI_DECLINED) and
 * the registry gives the file to the HDF5 store, which answers as before.
 */
#ifndef NCSI_NC4_H
#define NCSI_NC4_H

#include "store.h"
#include "chunk.h"
#include "io.h"

/* ---- netCDF-4's conventions (n4_conv.c) --------------------------------------- */

/* The NAME attribute of a dimension's own dataset (no coordinate
 * variable) starts so. */
#define NCSI_DIM_ONLY_PREFIX "This is a netCDF dimension but not a netCDF variable."
/* The link-name prefix of a variable named like a dimension it is not the
 * coordinate variable of: the dimension's scale holds the plain name. */
#define NCSI_NON_COORD_PREFIX "_nc4_non_coord_"

/* Whether an attribute of this name is netCDF-4's (or a dimension scale's,
 * or another writer's) bookkeeping rather than a netCDF attribute. */
int ncsi_nc4_reserved_att(const char *name);
/* A dataset of the root group as netCDF-C numbers dimensions: whether it
 * is a dimension scale, its dimid (read: its _Netcdf4Dimid, -1 where it
 * has none; numbered: the dimid) and the number netCDF-C gives it. */
typedef struct ncsi_nc4_scale {
    int is_scale;
    int dimid;
    int fileid;
} ncsi_nc4_scale;
/* Numbers the scales of the n datasets whose ncsi_nc4_scale is at first,
 * first + stride, ... (bytes), as netCDF-C does: a scale's _Netcdf4Dimid,
 * else one past the highest number given so far, in the datasets' order;
 * where those numbers leave gaps among the ndims scales, the dimids keep
 * their order.  *dense: every number is the dimid.  Errors:
 * NCS_ENOTNC (two scales of one number, or numbers past INT_MAX),
 * NCS_ENOMEM. */
int ncsi_nc4_number_dims(ncsi_nc4_scale *first, size_t stride, int n, int ndims, int *dense);
/* The dimid of the dimension netCDF-C numbers id (the numbers
 * _Netcdf4Coordinates holds) among the same datasets; -1 when none. */
int ncsi_nc4_dim_by_fileid(const ncsi_nc4_scale *first, size_t stride, int n, int ndims,
                           int dense, int id);
/* A variable's name from its dataset's link name. */
const char *ncsi_nc4_var_name(const char *link);
/* The attribute netCDF-C names a quantization mode after (NULL for none). */
const char *ncsi_nc4_quantize_name(int mode);
/* The quantization an opened variable's attributes record: *modep
 * NCS_NOQUANTIZE when none, as netCDF-C reads it (the first of the
 * BitGroom, GranularBR and BitRound names present, its first value). */
void ncsi_nc4_quantize_of(const ncs_attlist *list, int *modep, int *nsdp);

/* Blocks of a contiguous variable in a chunk cache: whole trailing
 * dimensions while they fit NCSI_NC4_BLOCK_BYTES, then as many indices of
 * the next one as fit (at least one), so each block is one run of bytes in
 * the file and a miss reads at most about NCSI_NC4_BLOCK_BYTES. */
#define NCSI_NC4_BLOCK_BYTES (64u * 1024u)
void ncsi_nc4_block_shape(const ncs_var *v, size_t esz, uint64_t *chunk);

/* Fills ck's description of variable v: type, element size, shape, the
 * chunk shape chunk[] (v->ndims values, none 0) and the grid and strides
 * it gives, the chunk's bytes when direct (ncslab moves the chunks: they
 * are bounded), and the fill value (v's _FillValue, else zeros where
 * zero_fill, else netCDF's default).  Errors: NCS_EBADCHUNK (a chunk too
 * large to move, or a product that overflows). */
int ncsi_nc4_chunkvar(ncs_chunkvar *ck, const ncs_var *v, const uint64_t *chunk, int direct,
                      int zero_fill);

/* The probe of both stores: HDF5 files start with \211HDF\r\n\032\n at
 * offset 0 or at 512, 1024, 2048, ... (after a user block). */
int ncsi_nc4_probe(ncs_io *io, uint64_t size, int *claims);

/* The commit journal of ncslab's netCDF-4 files, which the HDF5 store's
 * file driver writes past the end of the file's state (its rules are in
 * lib/store/hdf5/h5_driver.c, its byte table in doc/reliability.md): a
 * reader sees the file of a complete journal's final size, the journal's
 * pages of NCSI_NC4_JPAGE bytes over its bytes.  Version 2 ("NCSJRNL2",
 * the pages, their numbers, a trailer with a 64-bit checksum) is written;
 * version 1 ("NCSJRNL1", records of a number and a page, crc32) is read. */
#define NCSI_NC4_JPAGE    4096u
#define NCSI_NC4_JRECORD  (8u + NCSI_NC4_JPAGE)   /* a version-1 record */
#define NCSI_NC4_JTRAILER 40u
/* Called for each page of a complete journal: NCS_NOERR, an error, or 1
 * when page no was given before (the journal is then no journal). */
typedef int (*ncsi_nc4_jpage_fn)(void *arg, uint64_t no, const unsigned char *data);
/* Whether the psize bytes of io end with a complete journal (*found), and
 * then the size it gives the file (*final) and each of its pages, given to
 * page() (when *found ends up 0, the caller drops the pages it was
 * given).  Errors: reading io, NCS_ENOMEM, and page()'s. */
int ncsi_nc4_journal_read(ncs_io *io, uint64_t psize, uint64_t *final, int *found,
                          ncsi_nc4_jpage_fn page, void *arg);
/* Version 2's checksum: one multiply a 64-bit word (little-endian) in
 * eight chains, then a final mix; bytes are added 8 at a time. */
#define NCSI_NC4_JLANES 8
typedef struct ncsi_nc4_jsum {
    uint64_t lane[NCSI_NC4_JLANES];
    uint64_t words;
} ncsi_nc4_jsum;
void ncsi_nc4_jsum_init(ncsi_nc4_jsum *s);
void ncsi_nc4_jsum_add(ncsi_nc4_jsum *s, const unsigned char *p, size_t n);
uint64_t ncsi_nc4_jsum_end(const ncsi_nc4_jsum *s);
/* Bytes of a version-2 journal's index, padding and trailer for n pages. */
uint64_t ncsi_nc4_jindex_bytes(uint64_t n);

/* ---- the store that reads netCDF-4 files without HDF5 ------------------------- */
extern const ncs_store_methods ncsi_nc4_store;

/* ---- between the store's files: n4_store.c (the store methods), n4_meta.c
 * (the model from the file's objects), n4_data.c (loading chunks and
 * blocks, scalars, the chunk index walk) ---- */
#include "h5read.h"

#include <pthread.h>

typedef struct n4file n4file;

/* Where a variable's elements are. */
#define N4_CHUNKED    0          /* chunks, found through the chunk index */
#define N4_CONTIGUOUS 1          /* one run of bytes (or none allocated) */

/* One variable.  Its arrays (ndims elements each) live in the same
 * allocation, after it. */
typedef struct n4var {
    ncs_chunkvar ck;             /* geometry, fill, filters, pins; its
                                    address is the variable's owner in the
                                    chunk cache */
    n4file *nf;
    int varid;
    int storage;                 /* N4_CHUNKED or N4_CONTIGUOUS */
    ncs_storage st;              /* the settings inquiries report */
    int nids;                    /* the pipeline as the file records it: */
    unsigned ids[NCSI_MAX_FILTERS];
    unsigned char nparams[NCSI_MAX_FILTERS];   /* 0 or 1, the level in ck.pipe */
    /* contiguous and compact storage: the absolute address of the bytes
     * (UINT64_MAX: never allocated) and their count */
    uint64_t addr, size;
    /* contiguous and compact storage never allocated read as HDF5 gives
     * them: ualloc_fill holds the element (native order) when have_ualloc */
    int have_ualloc;
    unsigned char ualloc_fill[8];
    /* chunked storage: the layout, the dataset's extent, and its index,
     * opened on the first load (index_state: 0 not yet, 1 open, -1 none
     * or damaged; published with release stores under the file's lock) */
    ncsi_h5r_layout lay;
    uint64_t *extent;
    ncsi_h5r_chunks *index;
    int index_state;
    int index_status;            /* the error of opening it, when -1 */
    uint64_t dimv[];
} n4var;

/* A page of a killed commit's journal, seen over the file's bytes. */
typedef struct n4page {
    uint64_t no;
    unsigned char data[NCSI_NC4_JPAGE];
} n4page;

struct n4file {
    ncs_io *io;
    uint64_t psize;              /* the file's size on disk */
    uint64_t eof;                /* its size as its last commit left it */
    n4page **pages;              /* a journal's pages, by number */
    size_t npages;
    ncsi_h5r *h;                 /* the file's structure */
    int nvars;
    n4var **vars;                /* parallel to the model's variables */
    int strict;                  /* classic-model file: _nc3_strict */
    pthread_mutex_t lock;        /* held while an index is opened */
};

/* The file's bytes for h5read (ctx: the n4file). */
int ncsi_n4_read_at(void *ctx, uint64_t off, void *buf, size_t n);

/* n4_meta.c: reads the model and each variable's storage; NCSI_DECLINED
 * where the file is not one this store reads as the HDF5 store would. */
int ncsi_n4_read_model(n4file *nf, ncs_model *m);
/* The store's provenance slot. */
int ncsi_n4_provenance(n4file *nf, char **props, int *superblock, int *isnetcdf4);
/* A new variable of rank ndims in nf's list at varid. */
n4var *ncsi_n4_var_new(n4file *nf, int varid, int ndims);
void ncsi_n4_var_free(n4var *v);

/* n4_data.c */
extern const ncs_chunk_ops ncsi_n4_chunk_ops;
/* A get of a variable of rank 0. */
int ncsi_n4_scalar_get(n4var *v, const ncs_var *var, const ncs_slab *s, int memtype, void *buf);
/* The walk of ncs_inq_var_chunks over a chunked variable's index. */
int ncsi_n4_chunk_index(n4var *v, size_t *extent, ncs_chunk_visitor *visit, void *arg);

#endif
