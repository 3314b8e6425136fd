/* engine_v3_ncslab.c -- engine_v3.c against ncslab's v3 calls; built into
 * programs/timeit/libncsv3.a, whose netCDF names are renamed ncsv3_*
 * (timeit.am), so they do not meet netCDF-C's in the program. */
#include "ncslab/netcdf.h"
#define TI_V3_LIB ti_lib_ncslab_v3
#define TI_V3_NAME "ncslab v3"
#define TI_V3_DURABLE 1   /* nc_sync is ncs_sync */
#include "engine_v3.c"
