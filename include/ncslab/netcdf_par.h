/*
 * netcdf_par.h -- netCDF-C's parallel calls for classic-format files,
 * served by ncslab's parallel library through MPI-IO
 * (libncslab_netcdf_par, pkg-config module ncslab-netcdf-par; the
 * declarations and values are netCDF-C 4.9's).  As in a netCDF-C built
 * with PnetCDF: files are created and laid out as PnetCDF does (nofill),
 * data calls start in independent mode, and nc_var_par_access changes
 * the mode of every variable of the file whatever varid it is given.
 * netCDF-4 files: nc_create_par answers NC_ENOTBUILT (no parallel HDF5),
 * nc_open_par opens them for reading, each process on its own.
 */
#ifndef NETCDF_PAR_H
#define NETCDF_PAR_H 1

#include <mpi.h>

#define NC_INDEPENDENT 0
#define NC_COLLECTIVE 1

#if defined(__cplusplus)
extern "C" {
#endif

int nc_create_par(const char *path, int cmode, MPI_Comm comm, MPI_Info info, int *ncidp);
int nc_open_par(const char *path, int mode, MPI_Comm comm, MPI_Info info, int *ncidp);
int nc_var_par_access(int ncid, int varid, int par_access);
int nc_create_par_fortran(const char *path, int cmode, int comm, int info, int *ncidp);
int nc_open_par_fortran(const char *path, int mode, int comm, int info, int *ncidp);

#if defined(__cplusplus)
}
#endif

#endif /* NETCDF_PAR_H */
