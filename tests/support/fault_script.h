/*
 * fault_script.h -- the scripted classic session of the fault-injection
 * tests (check_faults, check_truncated) and what its files must hold.
 *
 * The script (classic CDF-1, CDF-2, CDF-5; small records or, with nx past
 * a cache page, records that bypass the page cache): create, define,
 * enddef, write a fixed variable and records, sync, append, redef adding a
 * fixed and a record variable and a long attribute (the data moves),
 * enddef, write the new variables, append, sync, append, close, reopen for
 * writing, append, sync, read everything, close, reopen read-only, read
 * everything, close.  Values encode variable, record and index:
 * code*10^7 + rec*10^5 + i.
 *
 * The script records, as it goes, every put that succeeded (run.cur) and
 * what the last successful ncs_sync or ncs_close committed
 * (run.committed); fs_verify checks a file against such an expectation.
 */
#ifndef NCSLAB_FAULT_SCRIPT_H
#define NCSLAB_FAULT_SCRIPT_H

#include <stddef.h>

#define NVARS   5           /* F, R, T, then G, S added after redef */
#define MAXREC  13          /* records the script writes */
#define PAGE    (64 * 1024) /* classic.c's cache page */

extern const char *const fs_vname[NVARS];
extern const int fs_vrec[NVARS];
extern const int fs_vxdim[NVARS];      /* has the x dimension */

/* The value the script writes at (rec, i) of variable v. */
double fs_value(int v, size_t rec, size_t i);

/* What a file must hold: which values must be exact; the rest may be the
 * value written or the fill value. */
typedef struct expect {
    int valid;                      /* the file must open */
    size_t nrec_min;                /* numrecs at least */
    unsigned char ok[NVARS][MAXREC]; /* [v][0] for fixed variables */
} expect;

/* One run of the script. */
typedef struct run {
    const char *path;
    int cmode;
    size_t nx;
    int ncid;                       /* -1: not open */
    expect cur;                     /* every put that succeeded */
    expect committed;               /* as of the last sync or close */
    int status;                     /* first error */
    int line;                       /* where */
    char what[96];
    char wrong[200];                /* a successful get with wrong data */
    double *buf;                    /* nx values */
} run;

/* Runs the script on r (path, cmode, nx, buf set, ncid -1, the rest
 * zero); stops at the first failing call and returns its status (also in
 * r->status, with r->line and r->what).  r->ncid is the file still open
 * then, or -1. */
int fs_script(run *r);

/* Verdicts of fs_verify, worst last. */
#define V_OK      0
#define V_EXTRA   1     /* uncommitted content neither written value nor fill,
                           or a record within numrecs unreadable */
#define V_LOST    2     /* committed content gone or wrong */

/* Checks the file at path against e; returns a V_* verdict, the worst
 * finding in msg.  Committed values must read back exactly; anything else
 * the file holds (a record within numrecs, a variable defined after the
 * commit) must read as the value written or the fill value.  A fixed
 * variable nothing committed may also fail to read (the header describing
 * it may be in the file before its data; the read then reports it). */
int fs_verify(const char *path, const expect *e, size_t nx, char *msg, size_t msz);

/* Copies a file with system calls only (no allocation); a missing source
 * makes no copy (and removes an old one). */
void fs_copy_file(const char *from, const char *to);

/* The data file path and its journal (path + NCSI_JOURNAL_SUFFIX), as a
 * process killed at this moment would leave them, copied to the file
 * 'to' and its journal. */
void fs_copy_with_journal(const char *path, const char *to);

/* Removes path and its journal. */
void fs_remove_with_journal(const char *path);

#endif /* NCSLAB_FAULT_SCRIPT_H */
