/*
 * v2seq_ncslab.c -- ncslab's v2 calls as a v2lib table (tests/v2/v2seq.h).
 * Compiled with -DNCS_V2_PREFIX=ncsv2_, like the copies of lib/compat/v2/v2_api.c
 * and v2_advise.c linked into diff_v2seq, so the names below are
 * ncsv2_nccreate and so on.
 */
#include "v2seq.h"

#include "v2_names.h"
#include "ncslab/netcdf.h"

const v2lib v2seq_ncslab = { "ncslab", V2SEQ_CALLS };
