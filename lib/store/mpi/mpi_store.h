/*
 * mpi_store.h -- the parallel classic back end: CDF-1, CDF-2 and CDF-5
 * files read and written by every process of an MPI communicator at once
 * through MPI-IO (ncsi_mpi_store), as PnetCDF lays them out.  It shares
 * the classic back end's header codec and layout (classic.h) and has its
 * own life and data path:
 *
 *   mpi_store.c   open, create, enddef (the processes' agreement on the
 *                 definitions, data moved after a redefinition, fill),
 *                 header and record count, sync, close; the store table
 *   mpi_data.c    get, put and skip: a request's runs (the hyperslab
 *                 engine's) as an MPI file view, one collective or
 *                 independent MPI-IO call, the agreement of a collective
 *                 call on errors and the record count
 *   mpi_io.c      the byte-I/O table over an MPI file (the header codec
 *                 reads through it), MPI errors as status codes
 *
 * Only this folder and lib/par see <mpi.h>.
 */
#ifndef NCSI_MPI_STORE_H
#define NCSI_MPI_STORE_H

#include "classic.h"

#include <mpi.h>
#include <ncslab_par.h>   /* NCS_COLLECTIVE, NCS_INDEPENDENT */

/* What ncs_create_par and ncs_open_par give the store (f->open_arg). */
typedef struct ncsi_par_args {
    MPI_Comm comm;
    MPI_Info info;
} ncsi_par_args;

/* An open parallel file's state.  It starts with the classic back end's,
 * so that the codec and layout helpers of classic.h, which find the layout
 * and the byte I/O through CL(f), work on it; of that part only io and
 * lay (and the layout hint fields) are used. */
typedef struct mpist {
    classic cl;
    MPI_Comm comm;            /* the library's duplicate */
    MPI_Info info;            /* the caller's hints, copied (or MPI_INFO_NULL) */
    MPI_File fh;              /* opened on comm: collective calls */
    MPI_File ifh;             /* opened on MPI_COMM_SELF when first needed:
                                 independent transfers and rank 0's header */
    char *path;               /* for the independent handle */
    int rank, nprocs;
    int writable;
    int dflt_access;          /* NCS_COLLECTIVE or NCS_INDEPENDENT */
    unsigned char *access;    /* per variable; past naccess: dflt_access */
    int naccess;
    /* the layout hints of the MPI_Info (mpi_layout.c), 0 when unset */
    uint64_t h_hint, fx_hint, r_hint, hdr_pad;
    int cb_nodes_hint;        /* the hints name cb_nodes (mpi_data.c keeps
                                 to the caller's aggregators then) */
    uint64_t written_numrecs; /* the record count the file holds */
    int ioerr;                /* an MPI-IO failure of a collective data call
                                 this process returned alone; every process
                                 returns it at the next vote (mpi_store.c) */
    int fh_viewed;            /* a collective data call left its view on fh
                                 (the same on every process) */
    /* A collective put (get) whose processes' pieces do not interleave in
     * the file moves as independent calls, as ROMIO's "automatic"
     * collective buffering does, unless a process's hint romio_cb_write
     * (romio_cb_read) is "enable"; with more than NCSI_MPI_ALONE_MAX
     * processes (ext NULL), never. */
    int alone_put, alone_get; /* this process's hints allow it */
    uint64_t *ext;            /* NCSI_MPI_EXT words a process, exchanged */
} mpist;

#define NCSI_MPI_ALONE_MAX 4096
#define NCSI_MPI_EXT 5

/* The largest staging buffer the data path keeps between transfers. */
#define NCSI_MPI_STAGE_KEEP ((size_t)64 << 20)

/* mpi_layout.c: the hints read from ms->info; PnetCDF 1.12's layout of
 * f's variables (as ncsi_cl_layout, with the same arguments). */
void ncsi_mpi_read_hints(mpist *ms);
int ncsi_mpi_layout(ncs_file *f, const ncs_model *old, size_t h_minfree, size_t v_align,
                    size_t v_minfree, size_t r_align);

static inline mpist *MS(ncs_file *f)
{
    return (mpist *)f->state;
}

extern const ncs_store_methods ncsi_mpi_store;

#pragma GCC visibility push(hidden)

/* ---- mpi_io.c ---------------------------------------------------------- */

/* A byte-I/O object over fh (not closed with it): reads and writes at byte
 * offsets with the independent MPI-IO calls, the file view being the
 * default one.  blksize: what NCS_ALIGN_CHUNK means. */
int ncsi_mpi_io_new(MPI_File fh, size_t blksize, ncs_io **iop);
/* An MPI error code as a status: the errno or NCS_ code its class stands
 * for, else NCS_EIO. */
int ncsi_mpi_status(int mpierr);

/* ---- mpi_store.c ------------------------------------------------------- */

/* The access mode of variable varid (any int). */
static inline int ncsi_mpi_access(const mpist *ms, int varid)
{
    return varid >= 0 && varid < ms->naccess ? ms->access[varid] : ms->dflt_access;
}
/* Sets it (varid NCS_GLOBAL: every variable and the default), after the
 * processes agree on the record count. */
int ncsi_mpi_set_access(ncs_file *f, int varid, int access);
/* The independent handle, opened when first needed. */
int ncsi_mpi_indep(mpist *ms, MPI_File *fhp);
/* The processes' agreement on the record count: the largest of theirs
 * (collective). */
int ncsi_mpi_agree_numrecs(ncs_file *f);
/* Every process's status combined (its own when it failed, else the
 * lowest error of the others) and, when most is not NULL, the largest of
 * *most, in one MPI_Allreduce (collective). */
int ncsi_mpi_agree(const mpist *ms, int status, uint64_t *most);
/* A collective move's status, returned now and kept for the next
 * agreement of the record count or the definitions. */
int ncsi_mpi_moved(mpist *ms, int status);
/* The status rule of every agreement: this process's own when it failed,
 * else the lowest (most negative) error of the others, else the largest
 * errno. */
static inline int ncsi_mpi_combine(int mine, int64_t lowest, int64_t highest)
{
    if (mine != NCS_NOERR)
        return mine;
    return (int)(lowest < 0 ? lowest : highest);
}
/* Gives fh the bytes of the file as its view again, when a collective
 * data call left its own (collective). */
int ncsi_mpi_bytes_view(mpist *ms);

/* ---- mpi_data.c -------------------------------------------------------- */

int ncsi_mpi_get(ncs_file *f, int varid, const ncs_slab *s, int memtype, void *buf);
int ncsi_mpi_put(ncs_file *f, int varid, const ncs_slab *s, int memtype, const void *buf);
int ncsi_mpi_skip(ncs_file *f, int varid, int put, int status);
/* The store table's batch: a wait's puts, then its gets, each kind in one
 * collective call (collective). */
int ncsi_mpi_batch(ncs_file *f, ncsi_req *const *reqs, int n, int *status);
/* Writes n bytes at off from every process's share of [off, off + n) of
 * the pattern of psz bytes repeated (fill values), collectively. */
int ncsi_mpi_fill_range(ncs_file *f, uint64_t off, uint64_t n, const unsigned char *pat,
                        size_t psz);

#pragma GCC visibility pop

#endif /* NCSI_MPI_STORE_H */
