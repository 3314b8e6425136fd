/*
 * ncslab/netcdf_meta.h -- what this netCDF library provides, in the macros
 * of netCDF-C's netcdf_meta.h: the netCDF-C API release ncslab serves
 * (4.9.0) and, for each feature, whether ncslab has it.
 */
#ifndef NETCDF_META_H
#define NETCDF_META_H

#define NC_VERSION_MAJOR 4
#define NC_VERSION_MINOR 9
#define NC_VERSION_PATCH 0
#define NC_VERSION_NOTE  ""
#define NC_VERSION       "4.9.0"

#define NC_HAS_NC2          1 /* the v2 API */
#define NC_HAS_NC4          1 /* netCDF-4 files (classic data model) */
#define NC_HAS_HDF4         0
#define NC_HAS_HDF5         1
#define NC_HAS_SZIP         0
#define NC_HAS_SZIP_WRITE   0
#define NC_HAS_DAP2         0
#define NC_HAS_DAP4         0
#define NC_HAS_BYTERANGE    0
#define NC_HAS_DISKLESS     1 /* classic formats */
#define NC_HAS_MMAP         0
#define NC_HAS_JNA          0
#define NC_HAS_PNETCDF      0
#define NC_HAS_PARALLEL4    0
#define NC_HAS_PARALLEL     0
#define NC_HAS_CDF5         1
#define NC_HAS_ERANGE_FILL  1
#define NC_RELAX_COORD_BOUND 1
#define NC_DISPATCH_VERSION 5
#define NC_HAS_PAR_FILTERS  0
#define NC_HAS_NCZARR       0
#define NC_HAS_MULTIFILTERS 1
#define NC_HAS_LOGGING      0
#define NC_HAS_QUANTIZE     1
#define NC_HAS_ZSTD         1
#define NC_HAS_BENCHMARKS   0

#endif /* NETCDF_META_H */
