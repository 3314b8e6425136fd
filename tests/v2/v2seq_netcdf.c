/*
 * v2seq_netcdf.c -- netCDF-C's v2 calls as a v2lib table (tests/v2/v2seq.h).
 * The only file of diff_v2seq that calls netCDF-C's v2 names.
 */
#include "v2seq.h"

#include <netcdf.h>

const v2lib v2seq_netcdf = { "netCDF-C", V2SEQ_CALLS };
