/* engine_v3_netcdf.c -- engine_v3.c against netCDF-C's v3 calls. */
#include <netcdf.h>
#define TI_V3_LIB ti_lib_netcdf_v3
#define TI_V3_NAME "netCDF-C v3"
#define TI_V3_DURABLE 0   /* nc_sync hands its buffer to the system */
#include "engine_v3.c"
