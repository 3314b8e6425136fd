/*
 * lazyh5_linked.c -- a program linked with HDF5 itself and with libncslab,
 * which loads HDF5 on first use (lib/store/hdf5/h5_load.c): both use the
 * one HDF5 of the process.  Built as a position-dependent executable
 * reading H5T_NATIVE_INT, so that the executable holds a copy of HDF5's
 * variable (a copy relocation) that HDF5 writes in place of its own: the
 * loader must find that copy, not the stale original in HDF5's library.
 *
 * ncslab creates a netCDF-4 file and writes values i * 10 + 1; the
 * program reads them back through HDF5 directly, then through ncslab.
 */
#include <hdf5.h>
#include <ncslab.h>
#include <stdio.h>

#define N 5

int main(void)
{
    const char *path = "lazyh5_linked.nc";
    int ncid, dim, varid, status, v[N], back[N], bad = 0;
    hid_t file, dset;
    /* read before ncslab has loaded anything: the copy is set up by now */
    hid_t native_int = H5T_NATIVE_INT;
    for (int i = 0; i < N; i++)
        v[i] = i * 10 + 1;
    status = ncs_create(path, NCS_NETCDF4 | NCS_CLASSIC_MODEL | NCS_CLOBBER, &ncid);
    if (status == NCS_NOERR)
        status = ncs_def_dim(ncid, "x", N, &dim);
    if (status == NCS_NOERR)
        status = ncs_def_var(ncid, "v", NCS_INT, 1, &dim, &varid);
    if (status == NCS_NOERR)
        status = ncs_enddef(ncid);
    if (status == NCS_NOERR)
        status = ncs_put(ncid, varid, NULL, NULL, NULL, NULL, NCS_INT, v);
    if (status == NCS_NOERR)
        status = ncs_close(ncid);
    if (status != NCS_NOERR) {
        fprintf(stderr, "FAIL: writing %s through ncslab: status %d\n", path, status);
        return 1;
    }
    file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    dset = file < 0 ? -1 : H5Dopen2(file, "v", H5P_DEFAULT);
    if (dset < 0 || H5Dread(dset, native_int, H5S_ALL, H5S_ALL, H5P_DEFAULT, back) < 0) {
        fprintf(stderr, "FAIL: reading %s through HDF5\n", path);
        return 1;
    }
    H5Dclose(dset);
    H5Fclose(file);
    for (int i = 0; i < N; i++)
        bad += back[i] != v[i];
    status = ncs_open(path, NCS_NOWRITE, &ncid);
    if (status == NCS_NOERR)
        status = ncs_get(ncid, 0, NULL, NULL, NULL, NULL, NCS_INT, back);
    if (status == NCS_NOERR)
        status = ncs_close(ncid);
    for (int i = 0; i < N; i++)
        bad += back[i] != v[i];
    if (status != NCS_NOERR || bad != 0) {
        fprintf(stderr, "FAIL: status %d, %d values differ\n", status, bad);
        return 1;
    }
    remove(path);
    return 0;
}
