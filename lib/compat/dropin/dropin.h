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

/* Moves the file of drop-in id ncid to side, where its id is real; the
 * drop-in id stays (dropin_handover.c).  NCSD_LOST as real: a file no
 * side holds any more, which answers NC_EBADID until it is closed. */
void ncsd_rebind(int ncid, int side, int real);
#define NCSD_LOST 0x7fff0000

/* A netCDF-4 file of the enhanced model's format that ncslab serves for
 * writing, and netCDF-C takes over when the writer asks for what ncslab
 * does not do (dropin_handover.c). */
struct ncsd_writer {
    char *path;                 /* as the program named it */
    int mode;                   /* nc_open's mode for opening it again */
    int cmode;                  /* the create's mode, for creating it again */
    unsigned char *settings;    /* by varid: the NCSD_SET_* the program made */
    int nsettings;
    int lost;                   /* a setting could not be noted */
    char *made_as;              /* handed over in define mode: netCDF-C's name */
    int redefined;              /* ncslab has put it in define mode again
                                   (after its create's, if created) */
};
enum {
    NCSD_SET_CHUNKING = 1, NCSD_SET_DEFLATE = 2, NCSD_SET_FLETCHER32 = 4,
    NCSD_SET_ENDIAN = 8, NCSD_SET_FILL = 16, NCSD_SET_FILTER = 32, NCSD_SET_QUANTIZE = 64
};

/* Attaches w (malloc'd, its members too; the slot owns them from here)
 * to the file of drop-in id ncid; ncsd_unbind frees them. */
void ncsd_note_writer(int ncid, struct ncsd_writer *w);

/* The writer noted for the file of drop-in id ncid, or NULL. */
struct ncsd_writer *ncsd_writer(int ncid);

/* Notes that the program made a storage setting (kind, an NCSD_SET_*) of
 * variable varid of the writer of drop-in id ncid. */
void ncsd_note_setting(int ncid, int varid, int kind);

/* Whether ncslab's answer status, on a file with a writer noted, is one
 * netCDF-C would not give for a netCDF-4 file of the enhanced model: the
 * calls of that model (groups, strings, user types, a second unlimited
 * dimension, the unsigned types), the define mode that netCDF-C enters by
 * itself for such files, a filter it may have. */
int ncsd_hands_over(int status);

/* Hands the file of drop-in id ncid, served by ncslab with a writer noted,
 * to netCDF-C, in the state netCDF-C would have it in; 1 and the id in
 * netCDF-C in *real when done; 0 when it cannot be (no writer noted, no
 * netCDF-C, a failure), the file then still ncslab's. */
int ncsd_hand_over(int ncid, int *real);

/* After ncslab answered status for drop-in id ncid: NCSD_NETCDF when the
 * file was handed to netCDF-C, whose id is then in *real, to ask again;
 * NCSD_NCSLAB when ncslab's answer stands. */
int ncsd_recover(int ncid, int status, int *real);

/* As ncsd_recover, for the generated wrappers, which can ask ncslab
 * again: NCSD_AGAIN when status was NC_ENOTINDEFINE (NC_EINDEFINE) and
 * ncslab has put the file in define mode (data mode), as netCDF-C does by
 * itself for the format. */
int ncsd_recover_again(int ncid, int status, int *real);
#define NCSD_AGAIN 3

/* nc_abort of a file handed over in define mode (w->made_as set), whose
 * id in netCDF-C is real: under the name netCDF-C made it with, so that
 * it deletes it as it would have. */
int ncsd_abort_renamed(const struct ncsd_writer *w, int real);

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
 * standard error (=/PATH: into the file PATH), for finding where a client
 * and netCDF-C part ways; and who serves each open and create, and each
 * hand-over. */
extern int ncsd_tracing;
void ncsd_trace(const char *call, int ncid, int side, int status);
/* One line of the trace, printf-style, after "ncslab drop-in: ". */
void ncsd_tracef(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
