/*
 * v3shim.h -- the native calls of the differential harnesses, served by
 * the v3 API (tests/v3/v3shim.c).
 *
 * tests/diff/diff_classic.c and diff_errors.c compare ncslab's native API
 * with netCDF-C.  Built with `-include v3shim.h`, every native call they
 * make becomes a v3s_* call with the native signature (the renaming also
 * applies to ncslab.h's declarations, which so declare the v3s_* ones),
 * and v3shim.c answers each through the nc_* call a v3 program would
 * make.  So the same harness checks the v3 layer against netCDF-C: the
 * return codes, the values and the bytes of the files.
 */
#ifndef V3SHIM_H
#define V3SHIM_H
#define ncs__enddef v3s__enddef
#define ncs_abort v3s_abort
#define ncs_close v3s_close
#define ncs_copy_att v3s_copy_att
#define ncs_create v3s_create
#define ncs_def_dim v3s_def_dim
#define ncs_def_var v3s_def_var
#define ncs_del_att v3s_del_att
#define ncs_enddef v3s_enddef
#define ncs_get v3s_get
#define ncs_get1 v3s_get1
#define ncs_get_att v3s_get_att
#define ncs_inq v3s_inq
#define ncs_inq_att v3s_inq_att
#define ncs_inq_attid v3s_inq_attid
#define ncs_inq_attlen v3s_inq_attlen
#define ncs_inq_attname v3s_inq_attname
#define ncs_inq_atttype v3s_inq_atttype
#define ncs_inq_dim v3s_inq_dim
#define ncs_inq_dimid v3s_inq_dimid
#define ncs_inq_dimlen v3s_inq_dimlen
#define ncs_inq_dimname v3s_inq_dimname
#define ncs_inq_format v3s_inq_format
#define ncs_inq_natts v3s_inq_natts
#define ncs_inq_ndims v3s_inq_ndims
#define ncs_inq_nvars v3s_inq_nvars
#define ncs_inq_unlimdim v3s_inq_unlimdim
#define ncs_inq_var v3s_inq_var
#define ncs_inq_vardimid v3s_inq_vardimid
#define ncs_inq_varid v3s_inq_varid
#define ncs_inq_varname v3s_inq_varname
#define ncs_inq_varnatts v3s_inq_varnatts
#define ncs_inq_varndims v3s_inq_varndims
#define ncs_inq_vartype v3s_inq_vartype
#define ncs_open v3s_open
#define ncs_put v3s_put
#define ncs_put1 v3s_put1
#define ncs_put_att v3s_put_att
#define ncs_redef v3s_redef
#define ncs_rename_att v3s_rename_att
#define ncs_rename_dim v3s_rename_dim
#define ncs_rename_var v3s_rename_var
#define ncs_set_default_format v3s_set_default_format
#define ncs_set_fill v3s_set_fill
#define ncs_strerror v3s_strerror
#define ncs_sync v3s_sync
#define ncs_def_var_chunking v3s_def_var_chunking
#define ncs_inq_var_chunking v3s_inq_var_chunking
#define ncs_def_var_deflate v3s_def_var_deflate
#define ncs_inq_var_deflate v3s_inq_var_deflate
#define ncs_def_var_fletcher32 v3s_def_var_fletcher32
#define ncs_inq_var_fletcher32 v3s_inq_var_fletcher32
#define ncs_def_var_zstd v3s_def_var_zstd
#define ncs_inq_var_zstd v3s_inq_var_zstd
#define ncs_def_var_endian v3s_def_var_endian
#define ncs_inq_var_endian v3s_inq_var_endian
#define ncs_def_var_quantize v3s_def_var_quantize
#define ncs_inq_var_quantize v3s_inq_var_quantize
#endif
