/*
 * v3_par.c -- netCDF-C's parallel calls (ncslab/netcdf_par.h) over
 * ncslab_par.h, built only into libncslab_netcdf_par.  netCDF-C serves a
 * classic-format file in parallel through PnetCDF: the file is PnetCDF's
 * (which ncslab's parallel back end writes byte for byte), data calls
 * start independent, and the access mode is the file's, not a
 * variable's (PnetCDF has no other).  What it checks before it reaches
 * PnetCDF is checked here in its order.
 */
#include "v3.h"

#include <ncslab_par.h>
#include "ncslab/netcdf_par.h"

/* The mode bits netCDF-C's PnetCDF dispatch accepts (the MPI-IO flags
 * are deprecated and ignored). */
#define LEGAL_CREATE (NC_WRITE | NC_NOCLOBBER | NC_64BIT_OFFSET | NC_CLASSIC_MODEL | \
                      NC_SHARE | NC_LOCK | NC_64BIT_DATA | NC_MPIIO | NC_MPIPOSIX)
#define LEGAL_OPEN LEGAL_CREATE
/* what the native calls take of them */
#define NATIVE (NC_WRITE | NC_NOCLOBBER | NC_64BIT_OFFSET | NC_CLASSIC_MODEL | NC_64BIT_DATA)

static int begin(int status, int ncid, int mode, int *ncidp)
{
    if (status != NC_NOERR)
        return status;
    status = ncs_var_par_access(ncid, NCS_GLOBAL, NCS_INDEPENDENT);
    if (status != NC_NOERR) {
        ncs_close(ncid);
        return status;
    }
    v3i_mode_set(ncid, mode | V3I_MODE_PAR, 0);
    if (ncidp != NULL)
        *ncidp = ncid;
    return NC_NOERR;
}

int nc_create_par(const char *path, int cmode, MPI_Comm comm, MPI_Info info, int *ncidp)
{
    int ncid = 0, status;
    /* no parallel HDF5 here: as a netCDF-C built with PnetCDF alone */
    if (cmode & NC_NETCDF4)
        return NC_ENOTBUILT;
    if (cmode & (NC_DISKLESS | NC_INMEMORY | NC_MMAP))
        return NC_EINVAL;
    if (cmode & ~LEGAL_CREATE)
        return NC_EINVAL;
    status = ncs_create_par(path, cmode & NATIVE, comm, info, &ncid);
    return begin(status, ncid, cmode, ncidp);
}

int nc_open_par(const char *path, int mode, MPI_Comm comm, MPI_Info info, int *ncidp)
{
    int ncid = 0, status;
    if (mode & (NC_DISKLESS | NC_INMEMORY | NC_MMAP))
        return NC_EINVAL;
    if (mode & ~LEGAL_OPEN)
        return NC_EINVAL;
    status = ncs_open_par(path, mode & NATIVE, comm, info, &ncid);
    return begin(status, ncid, mode, ncidp);
}

int nc_var_par_access(int ncid, int varid, int par_access)
{
    int status = ncs_inq_var_par_access(ncid, NCS_GLOBAL, NULL, NULL);
    (void)varid;   /* the file's mode whatever varid names (netCDF-C over PnetCDF) */
    if (status == NC_ENOPAR)
        /* a file opened serially: netCDF-C's classic code ignores the
         * call, its netCDF-4 code refuses it */
        return v3i_is_nc4(ncid) == 1 ? NC_ENOPAR : NC_NOERR;
    if (status != NC_NOERR)
        return status;
    if (par_access != NC_INDEPENDENT && par_access != NC_COLLECTIVE)
        return NC_EINVAL;
    return ncs_var_par_access(ncid, NCS_GLOBAL, par_access);
}

int nc_create_par_fortran(const char *path, int cmode, int comm, int info, int *ncidp)
{
    return nc_create_par(path, cmode, MPI_Comm_f2c(comm), MPI_Info_f2c(info), ncidp);
}

int nc_open_par_fortran(const char *path, int mode, int comm, int info, int *ncidp)
{
    return nc_open_par(path, mode, MPI_Comm_f2c(comm), MPI_Info_f2c(info), ncidp);
}
