/*
 * h5read.h -- the HDF5 file format read from a file's own bytes, without
 * the HDF5 library: the superblock, object headers and their messages,
 * the links of a group and the attributes of an object (compact and dense
 * storage), and the heaps they live in.  It knows nothing of netCDF: the
 * stores above it map what it reads onto the data model.
 *
 * Why: a read-only open of a netCDF-4 file needs only what netCDF-4's
 * writers put in it, and reading that here keeps HDF5 (and the libraries
 * Debian's HDF5 links: libcurl, OpenSSL, GnuTLS, ...) out of a program that
 * only reads, and out of the locks of its threads ("Row-major scan against
 * GVRS C" and "Threads" in doc/performance.md).
 *
 * What is read (the HDF5 file format specification, version 3.0): the
 * superblock of versions 0 to 3; object headers of versions 1 and 2 with
 * their continuation blocks; groups of both kinds: a symbol table (version
 * 1 B-tree of type 0, symbol nodes, local heap) and links, compact (link
 * messages) or dense (a fractal heap and its version-2 B-tree name index);
 * attributes, compact (attribute messages of versions 1 to 3) or dense (a
 * fractal heap and its version-2 B-tree name index); the datatype,
 * dataspace, fill value, data layout (versions 3 and 4) and filter
 * pipeline messages; the global heap, where variable-length data live.
 * Checksums (Jenkins' lookup3) of the structures that carry them are
 * verified.
 *
 * What is not (NCSI_H5R_UNSUPPORTED, so that a caller can hand the file to
 * HDF5 itself): shared messages, external links, huge objects of a
 * fractal heap, filtered fractal heaps, data layouts before version 3,
 * virtual datasets.
 *
 * Trust: every address, count and size comes from the file, so each is
 * checked against the bytes left in the file before anything is read or
 * allocated; a structure that breaks the format's rules (a wrong
 * signature, a checksum that does not match, a count that does not fit
 * its block, a tree that loops or is deeper than it says) is
 * NCSI_H5R_CORRUPT, never a crash.  Limits keep a hostile file's work
 * bounded: NCSI_H5R_MAX_BLOCKS header blocks an object, tree depths of at
 * most 32, and a group or attribute list no longer than its heap can hold.
 *
 * Addresses are relative to the superblock's base address, as the file
 * records them; the reader adds the base when it reads.  The structures
 * returned are owned by the caller and freed with the matching _free.
 */
#ifndef NCSI_H5READ_H
#define NCSI_H5READ_H

#include "common.h"

#include <stddef.h>
#include <stdint.h>

/* Statuses (besides NCS_NOERR and NCS_ENOMEM): the file uses a part of the
 * format this reader does not read, or breaks the format's rules.  Both
 * are NCS_EHDFERR to a caller that maps them onto netCDF's codes. */
#define NCSI_H5R_UNSUPPORTED (-1001)
#define NCSI_H5R_CORRUPT     (-1002)

#define NCSI_H5R_UNDEF UINT64_MAX   /* the undefined address */
#define NCSI_H5R_MAX_RANK 32
#define NCSI_H5R_MAX_BLOCKS 64      /* header blocks of one object */

/* Reads n bytes at absolute offset off into buf: 0, or nonzero when they
 * cannot be read. */
typedef int (*ncsi_h5r_read_fn)(void *ctx, uint64_t off, void *buf, size_t n);

typedef struct ncsi_h5r ncsi_h5r;

/* Opens the HDF5 file whose bytes read() reads (eof bytes in all): finds
 * the superblock (at 0, 512, 1024, ... below eof) and reads it.
 * Errors: NCS_ENOTNC (no HDF5 signature), NCSI_H5R_CORRUPT,
 * NCSI_H5R_UNSUPPORTED, NCS_ENOMEM. */
int ncsi_h5r_open(ncsi_h5r_read_fn read, void *ctx, uint64_t eof, ncsi_h5r **fp);
void ncsi_h5r_close(ncsi_h5r *f);

typedef struct ncsi_h5r_info {
    int superblock;              /* its version, 0 to 3 */
    unsigned sizeof_addr, sizeof_size;
    uint64_t base;               /* absolute address addresses count from */
    uint64_t root;               /* the root group's object header */
    uint64_t eoa;                /* the end of the file the superblock
                                    records, an absolute offset (HDF5
                                    refuses a file shorter than that) */
} ncsi_h5r_info;
void ncsi_h5r_info_of(const ncsi_h5r *f, ncsi_h5r_info *info);

/* ---- datatypes and dataspaces ---------------------------------------------- */

#define NCSI_H5R_FIXED   0
#define NCSI_H5R_FLOAT   1
#define NCSI_H5R_STRING  3
#define NCSI_H5R_REF     7
#define NCSI_H5R_VLEN    9

typedef struct ncsi_h5r_type {
    int cls;                     /* the class, as the file numbers it (0-10) */
    uint32_t size;               /* bytes of one element */
    int big_endian;              /* fixed point and floating point */
    int is_signed;               /* fixed point */
    unsigned precision, offset;  /* fixed and floating point: bits */
    int pad, cset;               /* string: padding (0 NUL-terminated, 1
                                    NUL-padded, 2 space-padded), charset */
    int ref_type;                /* reference: 0 object, 1 region */
    int vlen_string;             /* vlen: 1 string, 0 sequence */
    int base_cls;                /* vlen: the class of its base type */
    uint32_t base_size;          /* and its size */
} ncsi_h5r_type;

#define NCSI_H5R_SCALAR 0
#define NCSI_H5R_SIMPLE 1
#define NCSI_H5R_NULL   2

typedef struct ncsi_h5r_space {
    int kind;                    /* NCSI_H5R_SCALAR, _SIMPLE or _NULL */
    int rank;
    uint64_t dims[NCSI_H5R_MAX_RANK];
    int has_max;
    uint64_t maxdims[NCSI_H5R_MAX_RANK];   /* UINT64_MAX: unlimited */
} ncsi_h5r_space;

/* Elements of a dataspace: 1 for scalar, 0 for null; *n, or
 * NCSI_H5R_CORRUPT when the product overflows. */
int ncsi_h5r_space_elements(const ncsi_h5r_space *s, uint64_t *n);

/* ---- objects ------------------------------------------------------------------ */

typedef struct ncsi_h5r_filter {
    unsigned id;
    unsigned flags;              /* bit 0: optional */
    unsigned nvalues;
    unsigned values[16];         /* the first 16 of its client data */
} ncsi_h5r_filter;

#define NCSI_H5R_COMPACT    0
#define NCSI_H5R_CONTIGUOUS 1
#define NCSI_H5R_CHUNKED    2

typedef struct ncsi_h5r_layout {
    int version;                 /* 3 or 4 */
    int cls;                     /* NCSI_H5R_COMPACT, _CONTIGUOUS, _CHUNKED */
    uint64_t addr;               /* contiguous: the data; chunked: the index */
    uint64_t size;               /* contiguous: bytes; compact: bytes */
    uint64_t compact_at;         /* compact: absolute offset of the data */
    int ndims;                   /* chunked: the dataset's rank */
    uint64_t chunk[NCSI_H5R_MAX_RANK];   /* chunked: the chunk shape */
    uint32_t elem_size;          /* chunked: the element size it records */
    int index;                   /* chunked, version 4: the index type
                                    (1 single chunk, 2 implicit, 3 fixed
                                    array, 4 extensible array, 5 version-2
                                    B-tree); version 3: 0 (version-1 B-tree) */
    unsigned flags;              /* chunked, version 4: the layout flags */
} ncsi_h5r_layout;

#define NCSI_H5R_FILL_UNDEF   0  /* no fill value defined */
#define NCSI_H5R_FILL_DEFAULT 1  /* the library's default (zeros) */
#define NCSI_H5R_FILL_USER    2  /* one given: value[] */

typedef struct ncsi_h5r_fill {
    int state;                   /* NCSI_H5R_FILL_* */
    int alloc_time, fill_time;   /* as the message records them */
    uint32_t size;
    unsigned char *value;        /* size bytes, or NULL */
} ncsi_h5r_fill;

/* What an object header says, decoded from its messages.  The has_ flags
 * say which messages it held. */
typedef struct ncsi_h5r_obj {
    uint64_t addr;               /* the header's address */
    int version;                 /* 1 or 2 */
    int has_type, has_space, has_layout, has_fill, has_filters;
    ncsi_h5r_type type;
    ncsi_h5r_space space;
    ncsi_h5r_layout layout;
    ncsi_h5r_fill fill;
    int nfilters;
    ncsi_h5r_filter filters[32];
    /* a group: new style (link info message) or old (symbol table) */
    int is_group;
    int links_dense, links_corder;   /* links: dense; creation order kept */
    int links_cindexed;              /* and indexed (a name index of dense
                                        links is always there) */
    uint64_t link_heap, link_names;  /* dense: the fractal heap and B-tree */
    uint64_t symtab_btree, symtab_heap;  /* old style */
    int nlinkmsgs;               /* compact link messages */
    /* attributes: dense when attr_heap is defined */
    int attrs_corder;
    int attrs_cindexed;          /* the attribute info message says the
                                    creation order is indexed too */
    uint64_t attr_heap, attr_names;
    int nattrmsgs;               /* compact attribute messages */
    /* the bodies of the compact link and attribute messages, in the
     * header's order, with their creation orders (-1: not recorded) */
    unsigned char **linkmsg, **attrmsg;
    size_t *linklen, *attrlen;
    int64_t *attrcorder;
} ncsi_h5r_obj;

/* Reads the object header at address addr (relative to the base).
 * Errors: NCSI_H5R_CORRUPT, NCSI_H5R_UNSUPPORTED (a shared message, a
 * header of another version, a layout before version 3), NCS_ENOMEM. */
int ncsi_h5r_obj_read(ncsi_h5r *f, uint64_t addr, ncsi_h5r_obj **op);
void ncsi_h5r_obj_free(ncsi_h5r_obj *o);

/* ---- links -------------------------------------------------------------------- */

#define NCSI_H5R_HARD 0
#define NCSI_H5R_SOFT 1

typedef struct ncsi_h5r_link {
    char *name;                  /* NUL-terminated */
    int type;                    /* NCSI_H5R_HARD or _SOFT (others are
                                    NCSI_H5R_UNSUPPORTED) */
    uint64_t addr;               /* hard: the object's header */
    int64_t corder;              /* its creation order; -1: not recorded */
} ncsi_h5r_link;

/* The links of group g: in creation order when the group records it,
 * else by name (byte order, as HDF5 lists them by name).
 * Errors: NCS_EINVAL (g is no group), NCSI_H5R_CORRUPT,
 * NCSI_H5R_UNSUPPORTED, NCS_ENOMEM. */
int ncsi_h5r_links(ncsi_h5r *f, const ncsi_h5r_obj *g, ncsi_h5r_link **lp, size_t *np);
void ncsi_h5r_links_free(ncsi_h5r_link *l, size_t n);

/* ---- attributes --------------------------------------------------------------- */

typedef struct ncsi_h5r_attr {
    char *name;                  /* NUL-terminated */
    ncsi_h5r_type type;
    ncsi_h5r_space space;
    uint64_t nelems;
    unsigned char *data;         /* nelems * type.size bytes as stored (a
                                    vlen element: its length and a global
                                    heap id, ncsi_h5r_vlen) */
    size_t size;
    int64_t corder;              /* -1: not recorded */
} ncsi_h5r_attr;

/* The attributes of object o in the order HDF5 iterates them by creation
 * order: the order kept where o records it, else the order of the
 * header's messages (compact storage) or of the name index (dense
 * storage: by the names' hash).
 * Errors: NCSI_H5R_CORRUPT, NCSI_H5R_UNSUPPORTED, NCS_ENOMEM. */
int ncsi_h5r_attrs(ncsi_h5r *f, const ncsi_h5r_obj *o, ncsi_h5r_attr **ap, size_t *np);
void ncsi_h5r_attrs_free(ncsi_h5r_attr *a, size_t n);

/* ---- variable-length data and references -------------------------------------- */

/* Element i of a vlen attribute's data: *np elements of its base type, in
 * *datap (malloc'ed, NULL when empty).  Errors: NCSI_H5R_CORRUPT (the
 * global heap object is missing or shorter than the length says),
 * NCS_EINVAL (a is not vlen, i out of range), NCS_ENOMEM. */
int ncsi_h5r_vlen(ncsi_h5r *f, const ncsi_h5r_attr *a, uint64_t i, unsigned char **datap,
                  uint64_t *np);

/* An object reference as stored (sizeof_addr bytes) as an address. */
uint64_t ncsi_h5r_ref_addr(const ncsi_h5r *f, const unsigned char *ref);

/* ---- where a chunked dataset's chunks are (h5r_chunks.c) -------------------------- */

/* A stored chunk: its place in the chunk grid (row-major over the grid of
 * the extent given at open), the absolute address and size of its stored
 * bytes, and the filters its pipeline skipped (a bit each). */
typedef struct ncsi_h5r_chunk {
    uint64_t idx;
    uint64_t addr;
    uint32_t size;
    uint32_t mask;
} ncsi_h5r_chunk;
typedef struct ncsi_h5r_chunks ncsi_h5r_chunks;
typedef int (*ncsi_h5r_chunk_visit)(void *arg, const ncsi_h5r_chunk *e);

/* Opens the chunk index of a dataset of the given rank whose layout
 * message is lay and whose extent is ext[], reading its root node.  f
 * must outlive it.  Errors: NCS_EINVAL (lay is not chunked, or of another
 * rank), NCSI_H5R_UNSUPPORTED (an index of layout version 4),
 * NCSI_H5R_CORRUPT (the root node is damaged), NCS_ENOMEM. */
int ncsi_h5r_chunks_open(const ncsi_h5r *f, const ncsi_h5r_layout *lay, int rank,
                         const uint64_t *ext, ncsi_h5r_chunks **cp);
void ncsi_h5r_chunks_free(ncsi_h5r_chunks *c);
/* Looks chunk idx up: *found 0 when the file stores none there, else 1
 * with *e its entry.  Safe on several threads at once.  Errors:
 * NCSI_H5R_CORRUPT (a node on the way is damaged), NCS_ENOMEM. */
int ncsi_h5r_chunks_find(ncsi_h5r_chunks *c, uint64_t idx, ncsi_h5r_chunk *e, int *found);
/* Calls visit for every stored chunk, by place; stops at the first
 * nonzero status visit returns and returns it.  Errors as _find. */
int ncsi_h5r_chunks_walk(ncsi_h5r_chunks *c, ncsi_h5r_chunk_visit visit, void *arg);
/* For validators: calls visit for every entry of the index's leaves,
 * depth first, as the file records it (an offset off the chunk grid
 * rounded down to it, the chunk's absolute address, or NCSI_H5R_UNDEF),
 * checking only what walking the tree needs; stops at the first nonzero
 * status visit returns and returns it.  Errors: NCS_EINVAL,
 * NCSI_H5R_UNSUPPORTED (an index of layout version 4), NCSI_H5R_CORRUPT
 * (a node that cannot be walked), NCS_ENOMEM. */
typedef int (*ncsi_h5r_entry_visit)(void *arg, const uint64_t *offset, uint32_t mask,
                                    uint64_t addr, uint32_t size);
int ncsi_h5r_chunks_list(const ncsi_h5r *f, const ncsi_h5r_layout *lay, int rank,
                         ncsi_h5r_entry_visit visit, void *arg);

/* ---- between the files of this folder ------------------------------------------
 * h5r_file.c: the file, checked reads, checksums, object headers and their
 * messages; h5r_heap.c: local, global and fractal heaps, version-1 group
 * B-trees and version-2 B-trees; h5r_group.c: links, attributes, vlen. */
struct ncsi_h5r {
    ncsi_h5r_read_fn read;
    void *ctx;
    uint64_t eof;                /* absolute */
    ncsi_h5r_info info;
};

/* The little-endian unsigned integer of n <= 8 bytes at p. */
static inline uint64_t ncsi_h5r_le(const unsigned char *p, unsigned n)
{
    uint64_t v = 0;
    while (n-- > 0)
        v = v << 8 | p[n];
    return v;
}
/* An address field of the file's size at p: NCSI_H5R_UNDEF when all ones. */
uint64_t ncsi_h5r_addr(const ncsi_h5r *f, const unsigned char *p);
/* Whether n bytes at relative address a lie inside the file. */
int ncsi_h5r_inside(const ncsi_h5r *f, uint64_t a, uint64_t n);
/* Reads n bytes at relative address a: NCSI_H5R_CORRUPT when they are not
 * all inside the file or cannot be read. */
int ncsi_h5r_pread(const ncsi_h5r *f, uint64_t a, void *buf, size_t n);
/* Reads n bytes at a into a new buffer (*bufp, freed by the caller). */
int ncsi_h5r_load(const ncsi_h5r *f, uint64_t a, size_t n, unsigned char **bufp);
/* Jenkins' lookup3 hash of n bytes, initial value 0: HDF5's checksum. */
uint32_t ncsi_h5r_checksum(const unsigned char *p, size_t n);
/* Whether the 4 bytes after the first n of p are their checksum. */
int ncsi_h5r_checksum_ok(const unsigned char *p, size_t n);
/* Decoders of one message body of n bytes. */
int ncsi_h5r_decode_type(const ncsi_h5r *f, const unsigned char *p, size_t n, ncsi_h5r_type *t);
int ncsi_h5r_decode_space(const ncsi_h5r *f, const unsigned char *p, size_t n,
                          ncsi_h5r_space *s);

/* A version-2 B-tree's records, all of them, in key order: *recsp holds
 * *np records of *recsizep bytes each (freed by the caller). */
int ncsi_h5r_btree2_records(const ncsi_h5r *f, uint64_t addr, int type, unsigned char **recsp,
                            size_t *np, size_t *recsizep);
/* A fractal heap, opened for reading objects by their heap ids. */
typedef struct ncsi_h5r_fheap ncsi_h5r_fheap;
int ncsi_h5r_fheap_open(const ncsi_h5r *f, uint64_t addr, ncsi_h5r_fheap **hp);
void ncsi_h5r_fheap_close(ncsi_h5r_fheap *h);
/* The heap id's length, and the object an id names: *np bytes at *objp
 * (malloc'ed). */
unsigned ncsi_h5r_fheap_idlen(const ncsi_h5r_fheap *h);
int ncsi_h5r_fheap_get(ncsi_h5r_fheap *h, const unsigned char *id, size_t idlen,
                       unsigned char **objp, size_t *np);
/* The links of an old-style group (symbol table): names and addresses in
 * the B-tree's order (by name). */
int ncsi_h5r_symtab_links(const ncsi_h5r *f, uint64_t btree, uint64_t heap,
                          ncsi_h5r_link **lp, size_t *np);
/* Object idx of the global heap collection at addr: *np bytes at *objp
 * (malloc'ed). */
int ncsi_h5r_gheap_get(const ncsi_h5r *f, uint64_t addr, uint32_t idx, unsigned char **objp,
                       size_t *np);

#endif
