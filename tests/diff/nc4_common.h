/*
 * nc4_common.h -- what the netCDF-4 differential tests (diff_nc4,
 * diff_nc4_coords, diff_nc4_storage, diff_nc4_defaults) share: both
 * libraries behind one table, status checks that name the failing call,
 * the output of a tool run on a file, and the scratch folder and Check
 * runner every program's main has.
 *
 * Each program keeps its own scratch folder "<program>.<pid>" in the build
 * directory: the suite's cases write their files there and remove them
 * when they pass, so the folder is empty, and removed, after a clean run;
 * after a failure it keeps the files of the failed cases to look at.
 */
#ifndef NC4_COMMON_H
#define NC4_COMMON_H

#include <stddef.h>

#include <check.h>
#include <netcdf.h>

#include "ncslab.h"

#define NC4 (NC_NETCDF4 | NC_CLASSIC_MODEL)

/* A netCDF-C call (NC_OK) or an ncslab call (NS_OK) that must succeed;
 * the message names the call and its status. */
#define NC_OK(call)                                                             \
    do {                                                                        \
        int s_ = (call);                                                        \
        ck_assert_msg(s_ == NC_NOERR, "%s -> %d (%s)", #call, s_, nc_strerror(s_)); \
    } while (0)
#define NS_OK(call)                                                             \
    do {                                                                        \
        int s_ = (call);                                                        \
        ck_assert_msg(s_ == NCS_NOERR, "%s -> %d (%s)", #call, s_, ncs_strerror(s_)); \
    } while (0)

/* The calls the programs make through either library, with netCDF-C's
 * arguments: ncslab's memory types are the data's own (NCS_NAT), and
 * put_var_int writes a whole variable from ints. */
typedef struct nc4lib {
    const char *name;
    int (*create)(const char *path, int cmode, int *ncidp);
    int (*open)(const char *path, int mode, int *ncidp);
    int (*def_dim)(int ncid, const char *name, size_t len, int *idp);
    int (*def_var)(int ncid, const char *name, int xtype, int ndims, const int *dimids,
                   int *varidp);
    int (*def_var_chunking)(int ncid, int varid, int storage, const size_t *chunks);
    int (*inq_var_chunking)(int ncid, int varid, int *storagep, size_t *chunks);
    int (*def_var_deflate)(int ncid, int varid, int shuffle, int deflate, int level);
    int (*def_var_fletcher32)(int ncid, int varid, int on);
    int (*def_var_zstd)(int ncid, int varid, int level);
    int (*put_att)(int ncid, int varid, const char *name, int xtype, size_t len,
                   const void *op);
    int (*put_vars)(int ncid, int varid, const size_t *start, const size_t *count,
                    const ptrdiff_t *stride, const void *op);
    int (*get_vars)(int ncid, int varid, const size_t *start, const size_t *count,
                    const ptrdiff_t *stride, void *ip);
    int (*put_var_int)(int ncid, int varid, const int *op);
    int (*rename_var)(int ncid, int varid, const char *name);
    int (*rename_att)(int ncid, int varid, const char *name, const char *newname);
    int (*del_att)(int ncid, int varid, const char *name);
    int (*redef)(int ncid);
    int (*enddef)(int ncid);
    int (*sync)(int ncid);
    int (*close)(int ncid);
} nc4lib;

extern const nc4lib nc4_netcdf;   /* name "netCDF-C" */
extern const nc4lib nc4_ncslab;   /* name "ncslab" */

/* Runs cmd through the shell and returns all it wrote to stdout,
 * malloc'd and NUL-terminated, its wait status in *status; NULL (status
 * untouched) when the shell could not be started. */
char *nc4_run(const char *cmd, int *status);

/* Makes the scratch folder "<prog>.<pid>" into dir[n]; 0, or -1 after
 * saying why on stderr. */
int nc4_make_tmpdir(char *dir, size_t n, const char *prog);

/* Runs the suite; when every test passed removes dir, after its
 * subfolders subdirs (a NULL-terminated list of names, or NULL), and
 * otherwise says where the failed cases' files are.  Returns main's exit
 * status. */
int nc4_run_suite(Suite *s, const char *prog, const char *dir, const char *const *subdirs);

#endif
