/*
 * par.c -- the entry points of ncslab_par.h: parallel create and open,
 * and the access mode of variables.  A parallel file is an entry of the
 * API layer's table like any other, served by the parallel classic back
 * end (lib/store/mpi) or, for a netCDF-4 file opened for reading, by the
 * chunked back end on each process on its own.  Every other call on it
 * is an ordinary ncs_ call.
 */
#include "par.h"

#include <string.h>

/* The store the registry chose for an existing file, or the error: a
 * classic file is served by the parallel back end; a netCDF-4 one is read
 * by each process through the registry's own (without the communicator),
 * and written by none. */
static int pick(int status, const ncs_store_methods **storep, const void **argp, int write)
{
    if (status != NCS_NOERR)
        return status;
    if (strcmp((*storep)->name, "classic") == 0) {
        *storep = &ncsi_mpi_store;
        return NCS_NOERR;
    }
    if (write)
        return NCS_ERR(NCS_EPERM);
    *argp = NULL;
    return NCS_NOERR;
}

static int pick_read(int status, const ncs_store_methods **storep, const void **argp)
{
    return pick(status, storep, argp, 0);
}

static int pick_write(int status, const ncs_store_methods **storep, const void **argp)
{
    return pick(status, storep, argp, 1);
}

/* MPI must be running, and the communicator one. */
static int check_mpi(MPI_Comm comm)
{
    int up = 0, down = 0;
    MPI_Initialized(&up);
    MPI_Finalized(&down);
    if (!up || down || comm == MPI_COMM_NULL)
        return NCS_ERR(NCS_EINVAL);
    return NCS_NOERR;
}

static void mark(int status, const int *ncidp)
{
    if (status == NCS_NOERR) {
        ncs_file *f = ncsi_file_get(*ncidp);
        if (f != NULL)
            f->flags |= NCSI_F_PAR;
    }
}

int ncs_create_par(const char *path, int cmode, MPI_Comm comm, MPI_Info info, int *ncidp)
{
    ncsi_par_args a;
    int status = check_mpi(comm);
    if (status != NCS_NOERR)
        return status;
    /* no private scratch copies of a shared file */
    if (cmode & NCS_DISKLESS)
        return NCS_ERR(NCS_EINVAL);
    a.comm = comm;
    a.info = info;
    status = ncsi_file_create_with(path, cmode, &ncsi_mpi_store, &a, ncidp);
    mark(status, ncidp);
    return status;
}

int ncs_open_par(const char *path, int mode, MPI_Comm comm, MPI_Info info, int *ncidp)
{
    ncsi_par_args a;
    int status = check_mpi(comm);
    if (status != NCS_NOERR)
        return status;
    if (mode & NCS_DISKLESS)
        return NCS_ERR(NCS_EINVAL);
    a.comm = comm;
    a.info = info;
    status = ncsi_file_open_with(path, mode, (mode & NCS_WRITE) ? pick_write : pick_read, &a,
                                 ncidp);
    mark(status, ncidp);
    return status;
}

/* The open parallel file of ncid and whether the parallel back end
 * serves it (else a netCDF-4 file each process reads alone). */
static int par_file(int ncid, int varid, ncs_file **fp, int *mpi)
{
    ncs_file *f = ncsi_file_get(ncid);
    if (f == NULL)
        return NCS_ERR(NCS_EBADID);
    if (!(f->flags & NCSI_F_PAR))
        return NCS_ERR(NCS_ENOPAR);
    if (varid != NCS_GLOBAL && (varid < 0 || varid >= f->model.nvars))
        return NCS_ERR(NCS_ENOTVAR);
    *fp = f;
    *mpi = f->store == &ncsi_mpi_store;
    return NCS_NOERR;
}

int ncs_var_par_access(int ncid, int varid, int access)
{
    ncs_file *f;
    int mpi, status = par_file(ncid, varid, &f, &mpi);
    if (status != NCS_NOERR)
        return status;
    if (access != NCS_INDEPENDENT && access != NCS_COLLECTIVE)
        return NCS_ERR(NCS_EINVAL);
    /* (each process reads a netCDF-4 file on its own in either mode) */
    return mpi ? ncsi_mpi_set_access(f, varid, access) : NCS_NOERR;
}

int ncs_inq_var_par_access(int ncid, int varid, int *accessp, MPI_Comm *commp)
{
    ncs_file *f;
    int mpi, status = par_file(ncid, varid, &f, &mpi);
    if (status != NCS_NOERR)
        return status;
    if (accessp != NULL)
        *accessp = mpi ? ncsi_mpi_access(MS(f), varid) : NCS_INDEPENDENT;
    if (commp != NULL)
        *commp = mpi ? MS(f)->comm : MPI_COMM_SELF;
    return NCS_NOERR;
}
