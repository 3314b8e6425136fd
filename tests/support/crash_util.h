/*
 * crash_util.h -- what the crash tests (check_crash, check_crash_points)
 * share: the file a writer appends records to, the writer, the check of the
 * records a killed writer left, and the SIGKILL loop with its summary.
 *
 * The file has record variables A(rec, x) int and B(rec) double; the
 * writer appends blocks of BLOCK records (A for the block, then B) and,
 * after every SYNC_EVERY records, calls ncs_sync and reports the record
 * count once that returned 0.  Values encode variable, record and index:
 * var*10^7 + rec*10^3 + i.
 */
#ifndef NCSLAB_CRASH_UTIL_H
#define NCSLAB_CRASH_UTIL_H

#include <check.h>
#include <stddef.h>
#include <stdint.h>

#define NX          700     /* A's record: 2800 bytes */
#define BLOCK       3       /* records per put */
#define SYNC_EVERY  30      /* records between syncs */
#define MAXREC      1200    /* the writer stops (and closes) here */

typedef struct crash_layout {
    const char *name;
    int cmode;
    int redef;              /* check_crash: the writer redefines the file */
    int deflate;            /* chunked: shuffle + deflate on both variables */
} crash_layout;

/* Kinds of verdict on a file a writer left.  The first CV_NRECORDS judge
 * the records; the rest only check_crash's redefinitions give. */
enum {
    CV_OK, CV_OPEN_FAILED, CV_SYNCED_LOST, CV_SYNCED_BAD, CV_BAD_RECORD, CV_UNREADABLE,
    CV_TOO_MANY, CV_VAR_LOST, CV_VAR_BAD, CV_JOURNAL_LEFT, CV_N
};
#define CV_NRECORDS (CV_TOO_MANY + 1)
extern const char *const crash_verdict_name[CV_N];

double crash_value(int var, size_t rec, size_t i);
double crash_now(void);

/* Sets the delays' PRNG from NCS_CRASH_SEED (default: time and pid) and
 * prints the seed, so that a failing run can be replayed. */
void crash_seed(void);

/* Creates path with A and B (deflated when deflate), the first nrec
 * records written (nrec a multiple of BLOCK), and closes it. */
void crash_make_file(const char *path, int cmode, int deflate, size_t nrec);
/* Puts A and B of records [r, r + n) (n <= BLOCK). */
int crash_put_block(int nc, size_t r, size_t n);

/* The record count the last completed ncs_sync of crash_write_records
 * covered (check_crash_points reads it at the moment of a fault). */
extern uint64_t crash_synced_now;
/* Opens path with omode, appends maxrec records and closes; reports each
 * synced record count to fd (when >= 0), and MAXREC+1 once it has closed
 * the file.  Returns 0, or the exit code of the step that failed. */
int crash_write_records(const char *path, int omode, int fd, size_t maxrec);
/* The killed writer of a layout that appends: never returns. */
void crash_writer(const char *path, const crash_layout *l, int fd);

/* The record count of the file open as nc. */
size_t crash_numrecs(int nc);
/* Checks the nrec records of the file open as nc against synced (what the
 * writer reported synced) and maxrec (what it writes in all); *fill_tail
 * counts the records of B's last block still holding fill.  Returns a
 * verdict, msg saying what was wrong. */
int crash_check_records(int nc, size_t nrec, uint64_t synced, size_t maxrec, int *fill_tail,
                        char *msg, size_t msz);

/* Prints counts[0..n) as " name count, ..." and a newline. */
void crash_print_verdicts(const int *counts, int n);

/* What a program's SIGKILLs do with a layout. */
typedef struct crash_ops {
    /* Creates the file the writer starts from. */
    void (*make_file)(const char *path, const crash_layout *l);
    /* Never returns; reports on fd what it synced, more than the total
     * crash_kills is given once it has closed the file. */
    void (*writer)(const char *path, const crash_layout *l, int fd);
    /* A verdict on the file a killed writer left (*hot: a journal was
     * there to roll back). */
    int (*check_file)(const char *path, const crash_layout *l, uint64_t synced, size_t *nrecp,
                      int *fill_tail, int *hot, char *msg, size_t msz);
    int nverdicts;          /* the verdicts counted and printed */
} crash_ops;

/* Runs the SIGKILLs of one layout (NCS_CRASH_KILLS, NCS_CRASH_MAXDELAY_US):
 * total is what the writer reports synced when done, unkilled what it does
 * unkilled (for the calibration line; NULL: appends MAXREC records).
 * Returns the number of bad outcomes. */
int crash_kills(const crash_layout *l, const crash_ops *ops, uint64_t total,
                const char *unkilled);

/* The layouts named by argv[1..] (at most max), or without arguments the
 * first ndefault of the table; -1, after printing the usage, when an
 * argument names none. */
int crash_select(int argc, char **argv, const crash_layout *layouts, int nlayouts, int ndefault,
                 const crash_layout **selected, int max);

#endif
