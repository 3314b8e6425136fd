/*
 * check.h -- what the parts of ncslab-check share: the report of one file
 * and the checks (the journal beside it, the open file's header and data).
 *
 * The program sees only the public API (include/ncslab.h).  Every finding
 * goes through check_error or check_warning, which print it on stdout
 * (nothing under -q) as "FILE: error at byte N: what" and count it; the
 * verdict of a file is made from the counts (ncslab_check.c).
 */
#ifndef NCSLAB_CHECK_H
#define NCSLAB_CHECK_H

#include <stddef.h>

#include "ncslab.h"

#define CHECK_PROG "ncslab-check"

/* Bytes of data one read of a variable moves at most: the buffer the
 * program allocates for a variable (the library's chunk cache apart). */
#define CHECK_SLAB_BYTES ((size_t)4 << 20)

typedef struct {
    const char *path;
    int quiet;              /* -q: print nothing */
    int verbose;            /* -v: say what was checked */
    int errors, warnings;
    unsigned long long fsize;
} check_file;

#if defined(__GNUC__)
#define CHECK_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define CHECK_PRINTF(f, a)
#endif

/* A defect (error) or a tolerated irregularity (warning) at byte offset
 * (-1: no one place). */
void check_error(check_file *c, long long offset, const char *fmt, ...) CHECK_PRINTF(3, 4);
void check_warning(check_file *c, long long offset, const char *fmt, ...) CHECK_PRINTF(3, 4);
/* A line of -v output. */
void check_info(check_file *c, const char *fmt, ...) CHECK_PRINTF(2, 3);

/* "[a,b,c]" of n values into buf (len bytes); returns buf (check_data.c). */
const char *check_index_str(const size_t *v, int n, char *buf, size_t len);

/* Looks for PATH-ncsjournal, the journal an interrupted redefinition
 * leaves (doc/reliability.md), and reports it as an error, saying whether
 * it is complete (the next ncs_open rolls the file back) or was cut short.
 * Returns 1 when there is one (the file must then not be opened: opening
 * applies the journal), 0 when there is none, -1 when it cannot be read
 * (reported as an error too). */
int check_journal(check_file *c);

/* For a file with an HDF5 superblock: reports an error when the file is
 * shorter than the end-of-file address the superblock records (HDF5 then
 * refuses to open it).  Returns 1 when it reported one, else 0
 * (check_super.c). */
int check_hdf5_truncation(check_file *c);

/* Every inquiry of the open file ncid and every value of every attribute
 * and variable read, variables slab by slab (chunk by chunk when
 * chunked), each failure reported with the variable's name and where. */
void check_contents(check_file *c, int ncid);

/* The chunk index and filter pipeline of every chunked variable of the
 * open file ncid, as the file records them (check_index.c): each finding
 * with the variable, the chunk's coordinates and its offset. */
void check_index(check_file *c, int ncid);

#endif /* NCSLAB_CHECK_H */
