/*
 * io_fault.h -- a fault-injecting byte-I/O back end, for tests.
 *
 * ncsi_fault_io_open wraps ncsi_io_posix_open: every operation goes to the
 * POSIX object underneath, and is counted by kind.  A plan names one kind
 * and an ordinal N; the Nth operation of that kind (counted over every file
 * opened through the wrapper since the plan was installed) fails with the
 * plan's status instead of reaching the file.  A failing write may first
 * write the first half of its bytes (a torn write); a sticky plan fails every
 * later operation of the kind as well (a full disk stays full).
 *
 * Installing a plan points ncsi_io_open (the opener of both back ends: the
 * classic one directly, the chunked one through its HDF5 file driver,
 * nc4_journal.c) at the wrapper; removing it restores ncsi_io_posix_open.
 *
 * The state is process-wide and unlocked: tests install a plan, run a
 * single-threaded script, read the counters and remove the plan.
 */
#ifndef NCS_IO_FAULT_H
#define NCS_IO_FAULT_H

#include "io.h"

/* Operation kinds, as indices into the counters. */
#define NCSI_FAULT_READ     0
#define NCSI_FAULT_WRITE    1
#define NCSI_FAULT_SYNC     2
#define NCSI_FAULT_SET_SIZE 3
#define NCSI_FAULT_SIZE     4
#define NCSI_FAULT_NKINDS   5

typedef struct ncsi_fault_plan {
    int kind;                  /* NCSI_FAULT_* */
    unsigned long long nth;    /* 1-based ordinal of the failing operation;
                                  0: count only, fail nothing */
    int status;                /* returned by the failing operation: an errno
                                  value (ENOSPC, EIO) or an NCS_E* code;
                                  0 means EIO */
    int sticky;                /* operations of the kind after the Nth fail too */
    int torn;                  /* a failing write of n bytes first writes its
                                  first n/2 bytes (none when n < 2) */
    size_t tear_at;            /* with torn, when not 0: the prefix ends instead
                                  at the multiple of tear_at (a page of the
                                  operating system's cache) inside the write
                                  nearest its middle, none when there is no
                                  such boundary -- how a write is cut short by
                                  the death of its process */
    /* Called once when the plan first fires, after any torn prefix reached
     * the file and before the error is returned: path is the file's name.
     * A crash test copies the file here to see what a process killed at
     * that moment would leave behind.  May be NULL. */
    void (*on_fire)(void *arg, const char *path);
    void *arg;
} ncsi_fault_plan;

/* Installs plan (copied) and resets the counters.  Files already open
 * through the wrapper keep counting under the new plan.
 * Errors: NCS_EINVAL (NULL plan or a bad kind). */
int ncsi_fault_io_install_plan(const ncsi_fault_plan *plan);

/* Shorthand: the nth operation of kind fails with status, once, untorn. */
int ncsi_fault_io_install(int kind, unsigned long long nth, int status);

/* Stops failing operations, restores ncsi_io_open to the POSIX opener and
 * resets the counters and the fired flag.  Files still open through the
 * wrapper keep working, without faults. */
void ncsi_fault_io_remove(void);

/* Operations of kind counted since the last install or remove (the failing
 * ones included); 0 for a bad kind. */
unsigned long long ncsi_fault_io_count(int kind);

/* 1 once the installed plan has failed an operation. */
int ncsi_fault_io_fired(void);

/* The wrapper's opener (what install puts in ncsi_io_open).  Errors: those
 * of ncsi_io_posix_open, NCS_ENOMEM. */
int ncsi_fault_io_open(const char *path, int flags, ncs_io **iop);

#endif /* NCS_IO_FAULT_H */
