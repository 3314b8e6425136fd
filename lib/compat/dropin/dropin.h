/*
 * dropin.h -- the drop-in libnetcdf.so.19's own interface (issue 20,
 * doc/dropin.md): programs linked to netCDF-C's library run through
 * ncslab, and what ncslab does not serve goes to the real netCDF-C.
 *
 * The drop-in is ncslab's v2 and v3 layers compiled with their netCDF
 * names renamed ncsv3_* (dropin_rename.h), in front of which every
 * exported netCDF name routes the call: to ncslab, or to netCDF-C
 * loaded privately (dropin_real.c).  The two libraries number their
 * files independently, so the drop-in hands out ncids of its own
 * (dropin_ids.c): the high half names a slot of its table, which holds
 * the side and that side's own high half; the low half (netCDF-C's group
 * within the file) passes through unchanged.
 *
 * Like the other compat layers it uses only ncslab's public headers.
 */
#ifndef NCSD_DROPIN_H
#define NCSD_DROPIN_H

#include "dropin_gen.h"

/* The side a drop-in ncid belongs to. */
enum { NCSD_NONE = 0, NCSD_NCSLAB = 1, NCSD_NETCDF = 2 };

/* The side of drop-in ncid, and the id on that side in *real; NCSD_NONE
 * (and -1 in *real) for an id that names no open file. */
int ncsd_route(int ncid, int *real);

/* A new drop-in id for the file with id real on side; NC_ENFILE when the
 * table is full. */
int ncsd_bind(int side, int real, int *ncidp);

/* Forgets the file of drop-in id ncid (after its close or abort). */
void ncsd_unbind(int ncid);

/* The drop-in id of real, an id of the same file as drop-in id ncid
 * (a group of it). */
int ncsd_same_file(int ncid, int real);

/* netCDF-C's functions; NULL members until ncsd_netcdf() has loaded it,
 * and where it lacks one. */
extern struct ncsd_real ncsd_real;
void ncsd_real_load(struct ncsd_real *r, void *(*find)(const char *));

/* Loads netCDF-C (once); 1 when it is there, else 0. */
int ncsd_netcdf(void);

/* Applies to netCDF-C, as it loads, the process-wide settings made
 * before (dropin_file.c). */
void ncsd_replay(void);

/* One of netCDF-C's symbols other than the table's (NULL when absent). */
void *ncsd_sym(const char *name);

/* Which side serves what (NCSLAB_DROPIN): */
enum { NCSD_AUTO = 0, NCSD_ONLY_NCSLAB = 1, NCSD_ONLY_NETCDF = 2 };
int ncsd_policy(void);

/* Around a v2 call forwarded to netCDF-C: its ncopts set from the
 * program's before, the program's ncerr set from its after (v2 calls
 * report through these globals).  ncsd_v2_leave returns status. */
void ncsd_v2_enter(void);
int ncsd_v2_leave(int status);

/* What a forwarded v2 call answers when netCDF-C lacks the function. */
int ncsd_v2_absent(const char *routine);

/* NCSLAB_DROPIN_TRACE=1: every routed call, its ncid, side and answer on
 * standard error, for finding where a client and netCDF-C part ways. */
extern int ncsd_tracing;
void ncsd_trace(const char *call, int ncid, int side, int status);

#endif
