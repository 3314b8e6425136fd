/* v3side_netcdf.c -- tests/v3/v3scen.c against netCDF-C. */
#include <netcdf.h>
#include <netcdf_mem.h>
#include <netcdf_filter.h>
#define SIDE v3side_netcdf
#define V3SCEN_REFERENCE 1  /* runs first: writes the files both read */
#include "v3scen.c"
