/* v3side_netcdf.c -- tests/v3/v3scen.c against netCDF-C. */
#include <netcdf.h>
#include <netcdf_mem.h>
#define SIDE v3side_netcdf
#include "v3scen.c"
