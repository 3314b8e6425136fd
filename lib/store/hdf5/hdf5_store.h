/*
 * hdf5_store.h -- shared by the HDF5 back end's files: h5_store.c (the
 * store methods), h5_data.c (element data in and out of HDF5), h5_index.c
 * (the filter ids and chunk index as the file records them), h5_meta.c,
 * h5_meta_read.c and h5_meta_write.c (netCDF-4 metadata in HDF5) and
 * h5_driver.c (the HDF5 file driver).  The data path between the chunk
 * cache and memory is the chunk folder's (chunk_data.c).
 *
 * A chunked file is an HDF5 file laid out as netCDF-4 in the classic data
 * model, so netCDF-C and ncdump read it:
 *   /                 root group; attributes: _NCProperties (string),
 *                     _nc3_strict (int 1: the classic model; absent in a
 *                     netCDF-4 file not marked so), then the global
 *                     attributes in creation order
 *   /<var>            one dataset per variable, created in varid order;
 *                     attributes in creation order; DIMENSION_LIST
 *                     references its dimension scales; _Netcdf4Coordinates
 *                     (int[ndims], the dimids) on every variable with
 *                     dimensions.  A variable named like a dimension it is
 *                     not the coordinate variable of is
 *                     /_nc4_non_coord_<var>.
 *   /<dim>            a dimension scale per dimension: the coordinate
 *                     variable's dataset when there is one (the variable
 *                     of its name whose first dimension it is, of any
 *                     rank; no scales attached to it), else a
 *                     float dataset of the dimension's length whose NAME
 *                     reads "This is a netCDF dimension but not a netCDF
 *                     variable.%10d"; _Netcdf4Dimid (int) gives its dimid
 * Links and attributes are created with creation order tracked, which is
 * how readers recover varids and attribute order.
 *
 * Element data are stored in native (little-endian here) order, chunked,
 * through ncslab's own filter pipeline and HDF5's direct chunk I/O.
 */
#ifndef NCS_CHUNKED_H
#define NCS_CHUNKED_H

#include "store.h"
#include "chunk.h"
#include "nc4.h"
#include "io.h"
#include <hdf5.h>
#include <hdf5_hl.h>
#include "h5_load.h"

typedef struct chunked chunked;

/* A variable's storage settings (the scalars of ncs_storage; its chunk
 * shape is cvar.stchunks). */
typedef struct cvar_settings {
    int contiguous;
    int compact;
    int chunks_set;
    int shuffle;
    int deflate_level;
    int zstd_level;
    int fletcher32;
    int endian;
    int quantize, nsd;
} cvar_settings;

/* The arrays of a cvar hold ndims elements each and live in the same
 * allocation as the cvar: a file may hold thousands of variables, nearly
 * all of low rank, and NCS_MAX_VAR_DIMS-sized arrays would cost tens of
 * kilobytes each of them. */
typedef struct cvar {
    ncs_chunkvar ck;             /* geometry, fill, filters, pin; its address
                                    is the variable's owner in the cache */
    chunked *cs;
    int varid;
    hid_t dset;                  /* -1 until the dataset exists */
    char *h5name;                /* its link name in the file */
    cvar_settings st;            /* settings (stchunks final after enddef) */
    uint64_t *stchunks;          /* chunk shape chosen, defaulted or read */
    int direct;                  /* chunks move through ncslab's pipeline */
    uint64_t extent0;            /* dataset extent along dimension 0 */
    int attached;                /* dimension scales attached */
    int scale_dim;               /* the dimension whose scale the dataset is
                                    in the file; -1: none */
    int allocated;               /* contiguous or compact, storage allocated */
    /* contiguous or compact data moved through the cache in blocks of
     * ck.chunk[] (virtual chunks: rows of at most NCSI_NC4_BLOCK_BYTES, read and
     * written with HDF5 selections), so small requests are served from
     * memory */
    int blocked;
    /* read from a file whose dataset has HDF5's default fill value (no
     * fill value of its own) and a fill time other than "never": what was
     * never written reads as zeros, as HDF5 gives netCDF-C */
    int zero_fill;
    /* where the chunks are, read by h5_chunkaddr.c from the file's bytes
     * (read-only files): ohdr the dataset's object header address
     * (HADDR_UNDEF: unknown), ctab the table once ctab_state says ready */
    haddr_t ohdr;
    struct ncsi_ctab *ctab;
    int ctab_state;
    uint64_t dimv[];             /* storage of the arrays of the cvar and ck */
} cvar;

/* The cvar whose ck is the cache owner o. */
static inline cvar *ncsi_cvar_of(void *o)
{
    return (cvar *)(void *)((char *)o - offsetof(cvar, ck));
}

struct chunked {
    hid_t fid;
    void *journal;               /* the file's driver handle (h5_driver.c) */
    int nvars, capvars;
    cvar **vars;                 /* parallel to the model's variables */
    int ndimds;
    hid_t *dimds;                /* dimension-only datasets, -1 where none */
    char **dimnames;             /* their link names */
    int meta_dirty;              /* attributes or names to rewrite */
    int nofill;                  /* NCS_NOFILL when the layout was made */
    int strict;                  /* classic-model file: _nc3_strict */
    int version;
    /* for h5_chunkaddr.c, once h5r_state is 1: the file's structure read
     * from its bytes (store/h5read), and the address addresses count
     * from (h5r_state: 0 not asked, -1 unreadable) */
    int h5r_state;
    ncsi_h5r *h5r;
    uint64_t base;
};


/* ---- h5_chunkaddr.c --------------------------------------------------------
 * A read-only file's chunk index read from the file's own bytes, as
 * lookups need its nodes. */
/* A chunk's place in the grid, the absolute address and size of its
 * stored bytes, and its filter mask (store/h5read's entry). */
typedef ncsi_h5r_chunk ncsi_caddr;
typedef struct ncsi_ctab ncsi_ctab;
/* Sets *tp to cv's index, NULL when there is none to have (a writable
 * file, an index other than a version-1 B-tree, a header this reader does
 * not know): HDF5's own calls then find each chunk.  NCS_EHDFERR (and *tp
 * NULL) when the index's root is damaged. */
int ncsi_h5_ctab(cvar *cv, const ncsi_ctab **tp);
/* Looks up chunk idx: *found 0 when the file stores none, else 1 with *e
 * its entry.  NCS_EHDFERR when a node on the way is damaged. */
int ncsi_h5_ctab_find(const ncsi_ctab *t, uint64_t idx, ncsi_caddr *e, int *found);
void ncsi_h5_ctab_free(ncsi_ctab *t);

/* ---- h5_meta.c ------------------------------------------------------------ */
int  ncsi_nc4_create(const char *path, int cmode, hid_t *fidp);
int  ncsi_nc4_open(const char *path, int write, hid_t *fidp);
/* HDF5 file type of an external type, in native order. */
hid_t ncsi_nc4_h5type(int xtype);
void ncsi_nc4_close_objects(chunked *cs);
/* The netCDF type of an HDF5 type; *swap says whether its byte order is
 * not the machine's.  0 when it has none. */
int  ncsi_h5_type_of(hid_t t, int *swap);
/* A fixed-size ASCII string type of n bytes, NUL-terminated padding, as
 * netCDF-4 stores text (-1: failed). */
hid_t ncsi_h5_text_type(size_t n);
/* The int attribute name of obj, of 1 to max elements, into vals (*n of
 * them): NCS_ENOTATT when absent, NCS_ENOTNC when not such an attribute. */
int  ncsi_h5_read_int_att(hid_t obj, const char *name, int max, int *vals, int *n);
/* The machine's byte order as an NCS_ENDIAN_* setting. */
#ifdef WORDS_BIGENDIAN
#define NCSI_HOST_ENDIAN NCS_ENDIAN_BIG
#else
#define NCSI_HOST_ENDIAN NCS_ENDIAN_LITTLE
#endif
/* Sets the attribute ncsi_nc4_quantize_name(mode), one int nsd, in list (replaced in place or
 * appended, as netCDF-C puts it).  Errors: NCS_ENOMEM. */
int  ncsi_nc4_quantize_att(ncs_attlist *list, int mode, int nsd);

/* ---- h5_meta_read.c ------------------------------------------------------- */
/* Reads the model and the per-variable storage of an open file. */
int  ncsi_nc4_read(chunked *cs, ncs_model *m);
/* The store's provenance slot (store.h): _NCProperties, the superblock
 * version, netCDF-C's _IsNetcdf4 guess. */
int  ncsi_nc4_provenance(chunked *cs, char **props, int *superblock, int *isnetcdf4);

/* ---- h5_meta_write.c ------------------------------------------------------ */
/* Brings the file's metadata in line with the model: creates missing
 * datasets and dimension scales, renames, rewrites the attributes (and
 * marks them in_file). */
int  ncsi_nc4_write(chunked *cs, ncs_model *m);

/* ---- h5_driver.c: the virtual file driver chunked files are opened with --
 * Writes that would change what the last commit left in the file wait in
 * memory until the next commit, which applies them atomically through a
 * journal (see the file's comment). */
/* The driver's id, registered with HDF5 on first use (negative: failed). */
hid_t ncsi_h5j_driver(void);
/* The driver handle of an open file, for the calls below. */
void *ncsi_h5j_handle(hid_t fid);
/* Makes everything HDF5 has written so far the file's committed state; to
 * be called after H5Fflush succeeded.  With durable, the data are on
 * stable storage when it returns (fdatasync).  Returns NCS_NOERR, NCS_ENOMEM
 * or an errno value; on failure the writes stay pending, and the file
 * holds the previous commit's state, or this one's when the failure came
 * after its journal was complete. */
int  ncsi_h5j_commit(void *handle, int durable);
/* From now on nothing reaches the file: what HDF5 writes while it closes
 * the file after the last commit stays in memory, and the file keeps its
 * size; called just before H5Fclose. */
void ncsi_h5j_closing(void *handle);
/* How many bytes of chunks rewritten in place (pages the committed state
 * holds) the driver keeps in memory until the next commit; past that, raw
 * data go to the file directly.  0 until set. */
void ncsi_h5j_limit(void *handle, size_t bytes);
/* For a file opened read-only: whether it is; its size as HDF5 sees it;
 * n bytes at (absolute) address addr as HDF5 would read them, on any
 * thread without HDF5's lock; a hint that n bytes at addr will be read. */
int  ncsi_h5j_readonly(void *handle);
uint64_t ncsi_h5j_eof(void *handle);
int  ncsi_h5j_pread(void *handle, uint64_t addr, void *buf, size_t n);
void ncsi_h5j_willneed(void *handle, uint64_t addr, uint64_t n);

/* ---- h5_data.c ------------------------------------------------------------ */
/* The loads and stores of a cvar's chunks in the cache (owner: &cvar.ck). */
extern const ncs_chunk_ops ncsi_h5_chunk_ops;
/* Moves the validated slab s of v between buf (memtype elements) and the
 * dataset with HDF5's own selections: for what the cache does not hold. */
int  ncsi_h5_fallback(ncs_file *f, cvar *cv, const ncs_var *v, const ncs_slab *s,
                      int memtype, unsigned char *buf, int put);

/* ---- h5_index.c: the storage as the file records it (validators) ------- */
/* The dataset's filter ids, in HDF5's order (room for NCS_MAX_FILTERS);
 * none before the dataset exists. */
int  ncsi_h5_filter_ids(const cvar *cv, int *n, unsigned *ids);
/* The client data of the dataset's first filter id: *n values, the first
 * NCS_MAX_FILTER_PARAMS in params; NCS_ENOFILTER without one. */
int  ncsi_h5_filter_params(const cvar *cv, unsigned id, size_t *n, unsigned *params);
/* The walk of a chunked dataset's chunk index (ncs_inq_var_chunks): extent
 * the dataset's shape; NCS_ENOTBUILT with HDF5 headers before 1.10.5. */
int  ncsi_h5_chunk_index(cvar *cv, size_t *extent, ncs_chunk_visitor *visit, void *arg);

/* ---- h5_store.c ----------------------------------------------------------- */
/* A cvar for variable varid of rank ndims (NULL: out of memory). */
cvar *ncsi_cvar_new(chunked *cs, int varid, int ndims);
/* Chunk shape, grid and fill of v from its settings and the model. */
int  ncsi_cvar_setup(cvar *v, const ncs_model *m);
/* The default chunk shape of a variable (doc/chunking.md). */
void ncsi_default_chunks(const ncs_model *m, const ncs_var *v, uint64_t *chunks);

#endif /* NCS_CHUNKED_H */
