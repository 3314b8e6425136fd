/* The input of gen.sh: ncslab's netCDF headers, preprocessed. */
#include "ncslab/netcdf.h"
#include "ncslab/netcdf_mem.h"
#include "ncslab/netcdf_filter.h"
