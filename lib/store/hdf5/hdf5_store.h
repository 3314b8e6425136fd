/*
 * hdf5_store.h -- shared by the chunked back end's files: chunked.c (the data
 * path and the store methods) and nc4_meta.c (netCDF-4 metadata in HDF5).
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
#include "io.h"
#include <hdf5.h>

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
} cvar_settings;

/* The arrays of a cvar hold ndims elements each and live in the same
 * allocation as the cvar: a file may hold thousands of variables, nearly
 * all of low rank, and NCS_MAX_VAR_DIMS-sized arrays would cost tens of
 * kilobytes each of them. */
typedef struct cvar {
    chunked *cs;
    int varid;
    hid_t dset;                  /* -1 until the dataset exists */
    char *h5name;                /* its link name in the file */
    cvar_settings st;            /* settings (stchunks final after enddef) */
    uint64_t *stchunks;          /* chunk shape chosen, defaulted or read */
    ncs_filter pipe[NCSI_MAX_FILTERS];
    int nf;
    int direct;                  /* chunks move through ncslab's pipeline */
    int swap;                    /* stored in the other byte order */
    int ndims;                   /* the model variable's; fixed at creation */
    uint64_t *chunk;
    uint64_t *cdsz;              /* elements of a chunk in dims d.. */
    uint64_t *estride;           /* element stride of dim d in a chunk */
    uint64_t *grid;              /* chunks along each dimension (dim 0 of a
                                    record variable: unbounded, unused) */
    size_t esz;
    size_t chunk_bytes;
    unsigned char fill[8];       /* native fill value */
    uint64_t extent0;            /* dataset extent along dimension 0 */
    int attached;                /* dimension scales attached */
    int scale_dim;               /* the dimension whose scale the dataset is
                                    in the file; -1: none */
    int allocated;               /* contiguous or compact, storage allocated */
    /* contiguous or compact data moved through the cache in blocks of
     * chunk[] (virtual chunks: rows of at most BLOCK_BYTES, read and
     * written with HDF5 selections), so small requests are served from
     * memory; vshape[] is the variable's shape, xtype its type */
    int blocked;
    int xtype;
    uint64_t *vshape;
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
    uint64_t dimv[];             /* storage of the arrays above */
} cvar;

struct chunked {
    hid_t fid;
    void *journal;               /* the file's driver handle (nc4_journal.c) */
    int nvars, capvars;
    cvar **vars;                 /* parallel to the model's variables */
    int ndimds;
    hid_t *dimds;                /* dimension-only datasets, -1 where none */
    char **dimnames;             /* their link names */
    int meta_dirty;              /* attributes or names to rewrite */
    int nofill;                  /* NCS_NOFILL when the layout was made */
    int strict;                  /* classic-model file: _nc3_strict */
    int version;
};

/* ---- nc4_meta.c ---------------------------------------------------------- */
int  ncsi_nc4_init(void);
int  ncsi_nc4_create(const char *path, int cmode, hid_t *fidp);
int  ncsi_nc4_open(const char *path, int write, hid_t *fidp);
/* Reads the model and the per-variable storage of an open file. */
int  ncsi_nc4_read(chunked *cs, ncs_model *m);
/* Brings the file's metadata in line with the model: creates missing
 * datasets and dimension scales, renames, rewrites the attributes (and
 * marks them in_file). */
int  ncsi_nc4_write(chunked *cs, ncs_model *m);
/* HDF5 file type of an external type, in native order. */
hid_t ncsi_nc4_h5type(int xtype);
void ncsi_nc4_close_objects(chunked *cs);

/* ---- nc4_journal.c: the virtual file driver chunked files are opened with --
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
 * or an errno value; on failure the previous commit still holds and the
 * writes stay pending. */
int  ncsi_h5j_commit(void *handle, int durable);
/* How many bytes of chunks rewritten in place (pages the committed state
 * holds) the driver keeps in memory until the next commit; past that, raw
 * data go to the file directly.  0 until set. */
void ncsi_h5j_limit(void *handle, size_t bytes);

/* ---- chunked.c ------------------------------------------------------------ */
/* A cvar for variable varid of rank ndims (NULL: out of memory). */
cvar *ncsi_cvar_new(chunked *cs, int varid, int ndims);
/* Chunk shape, grid and fill of v from its settings and the model. */
int  ncsi_cvar_setup(cvar *v, const ncs_model *m);
/* The default chunk shape of a variable (doc/chunking.md). */
void ncsi_default_chunks(const ncs_model *m, const ncs_var *v, uint64_t *chunks);

#endif /* NCS_CHUNKED_H */
