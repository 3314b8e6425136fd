/*
 * ncslab/netcdf_filter.h -- netCDF's filter calls and HDF5 filter ids,
 * served by libncslab_netcdf: the same names, values and prototypes as
 * netCDF-C 4.9's netcdf_filter.h.  ncslab's filters are deflate, shuffle,
 * Fletcher-32 and zstd; the others answer NC_ENOFILTER (doc/v3.md).
 */
#ifndef NETCDF_FILTER_H
#define NETCDF_FILTER_H 1

#include <stddef.h>

/* HDF5's ids of the filters netCDF knows. */
#define H5Z_FILTER_DEFLATE    1
#define H5Z_FILTER_SHUFFLE    2
#define H5Z_FILTER_FLETCHER32 3
#define H5Z_FILTER_SZIP       4
#define H5Z_FILTER_ZSTD       32015
#define H5Z_FILTER_BZIP2      307
#define H5Z_FILTER_BLOSC      32001

/* szip's option bits. */
#define H5_SZIP_ALLOW_K13_OPTION_MASK 1
#define H5_SZIP_CHIP_OPTION_MASK      2
#define H5_SZIP_EC_OPTION_MASK        4
#define H5_SZIP_LSB_OPTION_MASK       8
#define H5_SZIP_MSB_OPTION_MASK       16
#define H5_SZIP_NN_OPTION_MASK        32
#define H5_SZIP_MAX_PIXELS_PER_BLOCK  32
#define H5_SZIP_RAW_OPTION_MASK       128
#define H5_SZIP_ALL_MASKS (H5_SZIP_CHIP_OPTION_MASK | H5_SZIP_EC_OPTION_MASK | \
                           H5_SZIP_NN_OPTION_MASK)
#ifndef NC_SZIP_EC
#define NC_SZIP_EC 4
#endif
#ifndef NC_SZIP_NN
#define NC_SZIP_NN 32
#endif
#define NC_MAX_PIXELS_PER_BLOCK 32

#if defined(__cplusplus)
extern "C" {
#endif

int nc_def_var_filter(int ncid, int varid, unsigned int id, size_t nparams,
                      const unsigned int *parms);
int nc_inq_var_filter(int ncid, int varid, unsigned int *idp, size_t *nparams,
                      unsigned int *params);
/* The ids of the variable's filters, in the order they apply. */
int nc_inq_var_filter_ids(int ncid, int varid, size_t *nfiltersp, unsigned int *ids);
/* The parameters of the variable's filter id (NC_ENOFILTER: none such). */
int nc_inq_var_filter_info(int ncid, int varid, unsigned int id, size_t *nparams,
                           unsigned int *params);
/* NC_NOERR when filter id can be used, else NC_ENOFILTER. */
int nc_inq_filter_avail(int ncid, unsigned int id);
int nc_def_var_bzip2(int ncid, int varid, int level);
int nc_inq_var_bzip2(int ncid, int varid, int *hasfilterp, int *levelp);
int nc_def_var_zstandard(int ncid, int varid, int level);
int nc_inq_var_zstandard(int ncid, int varid, int *hasfilterp, int *levelp);
int nc_def_var_blosc(int ncid, int varid, unsigned subcompressor, unsigned level,
                     unsigned blocksize, unsigned addshuffle);
int nc_inq_var_blosc(int ncid, int varid, int *hasfilterp, unsigned *subcompressorp,
                     unsigned *levelp, unsigned *blocksizep, unsigned *addshufflep);

#if defined(__cplusplus)
}
#endif
#endif /* NETCDF_FILTER_H */
