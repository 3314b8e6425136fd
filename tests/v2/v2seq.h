/*
 * v2seq.h -- the v2 API of one library as a table, for tests/v2/diff_v2seq.c.
 *
 * netCDF-C's v2 calls and ncslab's (lib/v2, compiled with
 * -DNCS_V2_PREFIX=ncsv2_) share their names, so no file can see both
 * declarations.  v2seq_netcdf.c and v2seq_ncslab.c each fill one table;
 * the test drives both through the same code.  Types and constants are
 * netCDF's; the two headers agree on every value the test uses.
 */
#ifndef V2SEQ_H
#define V2SEQ_H

#include <stddef.h>

typedef struct v2lib {
    const char *name;
    int *ncerr, *ncopts;
    int (*nccreate)(const char *path, int cmode);
    int (*ncopen)(const char *path, int mode);
    int (*ncsetfill)(int ncid, int fillmode);
    int (*ncredef)(int ncid);
    int (*ncendef)(int ncid);
    int (*ncsync)(int ncid);
    int (*ncabort)(int ncid);
    int (*ncclose)(int ncid);
    int (*ncinquire)(int ncid, int *ndims, int *nvars, int *natts, int *unlimdim);
    int (*ncdimdef)(int ncid, const char *name, long len);
    int (*ncdimid)(int ncid, const char *name);
    int (*ncdiminq)(int ncid, int dimid, char *name, long *lenp);
    int (*ncdimrename)(int ncid, int dimid, const char *name);
    int (*ncattput)(int ncid, int varid, const char *name, int xtype, int len,
                    const void *op);
    int (*ncattinq)(int ncid, int varid, const char *name, int *xtypep, int *lenp);
    int (*ncattget)(int ncid, int varid, const char *name, void *ip);
    int (*ncattcopy)(int ncid_in, int varid_in, const char *name, int ncid_out,
                     int varid_out);
    int (*ncattname)(int ncid, int varid, int attnum, char *name);
    int (*ncattrename)(int ncid, int varid, const char *name, const char *newname);
    int (*ncattdel)(int ncid, int varid, const char *name);
    int (*ncvardef)(int ncid, const char *name, int xtype, int ndims,
                    const int *dimids);
    int (*ncvarid)(int ncid, const char *name);
    int (*ncvarinq)(int ncid, int varid, char *name, int *xtypep, int *ndimsp,
                    int *dimids, int *nattsp);
    int (*ncvarput1)(int ncid, int varid, const long *index, const void *op);
    int (*ncvarget1)(int ncid, int varid, const long *index, void *ip);
    int (*ncvarput)(int ncid, int varid, const long *start, const long *count,
                    const void *op);
    int (*ncvarget)(int ncid, int varid, const long *start, const long *count,
                    void *ip);
    int (*ncvarputs)(int ncid, int varid, const long *start, const long *count,
                     const long *stride, const void *op);
    int (*ncvargets)(int ncid, int varid, const long *start, const long *count,
                     const long *stride, void *ip);
    int (*ncvarputg)(int ncid, int varid, const long *start, const long *count,
                     const long *stride, const long *imap, const void *op);
    int (*ncvargetg)(int ncid, int varid, const long *start, const long *count,
                     const long *stride, const long *imap, void *ip);
    int (*ncvarrename)(int ncid, int varid, const char *name);
    int (*ncrecinq)(int ncid, int *nrecvars, int *recvarids, long *recsizes);
    int (*ncrecget)(int ncid, long recnum, void **datap);
    int (*ncrecput)(int ncid, long recnum, void *const *datap);
    int (*nctypelen)(int type);
} v2lib;

/* The initialiser of a v2lib after its name, in the fields' order: each
 * library's file expands it where the v2 names are that library's (the
 * names are rescanned, so v2_names.h's prefix applies). */
#define V2SEQ_CALLS                                                            \
    &ncerr, &ncopts,                                                           \
    nccreate, ncopen, ncsetfill, ncredef, ncendef, ncsync, ncabort, ncclose,   \
    ncinquire, ncdimdef, ncdimid, ncdiminq, ncdimrename,                       \
    ncattput, ncattinq, ncattget, ncattcopy, ncattname, ncattrename, ncattdel, \
    ncvardef, ncvarid, ncvarinq, ncvarput1, ncvarget1, ncvarput, ncvarget,     \
    ncvarputs, ncvargets, ncvarputg, ncvargetg, ncvarrename,                   \
    ncrecinq, ncrecget, ncrecput, nctypelen

extern const v2lib v2seq_netcdf;
extern const v2lib v2seq_ncslab;

#endif /* V2SEQ_H */
