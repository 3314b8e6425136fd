/* v3side_ncslab.c -- tests/v3/v3scen.c against ncslab's v3 layer, its
 * names renamed ncsv3_* (v3_rename.h, made from the export list, matching
 * the objcopy renaming of tests/v3/libv3ren.a). */
#include "v3_rename.h"
#include "ncslab/netcdf.h"
#include "ncslab/netcdf_mem.h"
#include "ncslab/netcdf_filter.h"
#define SIDE v3side_ncslab
#include "v3scen.c"
