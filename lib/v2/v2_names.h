/*
 * v2_names.h -- optional renaming of the v2 symbols.
 *
 * libncslab_v2 exports netCDF's own v2 names (nccreate, ncerr, ...).  A
 * program that must link netCDF-C too (the timeit harness, which compares
 * the two in one process) compiles the same v2 sources with
 * -DNCS_V2_PREFIX=prefix_, and every v2 symbol gets that prefix.
 */
#ifndef NCS_V2_NAMES_H
#define NCS_V2_NAMES_H
#ifdef NCS_V2_PREFIX
#define NCS_V2_CAT2(a, b) a##b
#define NCS_V2_CAT(a, b) NCS_V2_CAT2(a, b)
#define NCS_V2_NAME(x) NCS_V2_CAT(NCS_V2_PREFIX, x)
#define ncerr NCS_V2_NAME(ncerr)
#define ncopts NCS_V2_NAME(ncopts)
#define nc_advise NCS_V2_NAME(nc_advise)
#define nccreate NCS_V2_NAME(nccreate)
#define ncopen NCS_V2_NAME(ncopen)
#define ncsetfill NCS_V2_NAME(ncsetfill)
#define ncredef NCS_V2_NAME(ncredef)
#define ncendef NCS_V2_NAME(ncendef)
#define ncsync NCS_V2_NAME(ncsync)
#define ncabort NCS_V2_NAME(ncabort)
#define ncclose NCS_V2_NAME(ncclose)
#define ncinquire NCS_V2_NAME(ncinquire)
#define ncdimdef NCS_V2_NAME(ncdimdef)
#define ncdimid NCS_V2_NAME(ncdimid)
#define ncdiminq NCS_V2_NAME(ncdiminq)
#define ncdimrename NCS_V2_NAME(ncdimrename)
#define ncattput NCS_V2_NAME(ncattput)
#define ncattinq NCS_V2_NAME(ncattinq)
#define ncattget NCS_V2_NAME(ncattget)
#define ncattcopy NCS_V2_NAME(ncattcopy)
#define ncattname NCS_V2_NAME(ncattname)
#define ncattrename NCS_V2_NAME(ncattrename)
#define ncattdel NCS_V2_NAME(ncattdel)
#define ncvardef NCS_V2_NAME(ncvardef)
#define ncvarid NCS_V2_NAME(ncvarid)
#define ncvarinq NCS_V2_NAME(ncvarinq)
#define ncvarput1 NCS_V2_NAME(ncvarput1)
#define ncvarget1 NCS_V2_NAME(ncvarget1)
#define ncvarput NCS_V2_NAME(ncvarput)
#define ncvarget NCS_V2_NAME(ncvarget)
#define ncvarputs NCS_V2_NAME(ncvarputs)
#define ncvargets NCS_V2_NAME(ncvargets)
#define ncvarputg NCS_V2_NAME(ncvarputg)
#define ncvargetg NCS_V2_NAME(ncvargetg)
#define ncvarrename NCS_V2_NAME(ncvarrename)
#define ncrecinq NCS_V2_NAME(ncrecinq)
#define ncrecget NCS_V2_NAME(ncrecget)
#define ncrecput NCS_V2_NAME(ncrecput)
#define nctypelen NCS_V2_NAME(nctypelen)
#define nc_strerror NCS_V2_NAME(nc_strerror)
#define nc_inq_libvers NCS_V2_NAME(nc_inq_libvers)
#define nc_set_default_format NCS_V2_NAME(nc_set_default_format)
#endif
#endif /* NCS_V2_NAMES_H */
