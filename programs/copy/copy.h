/*
 * copy.h -- what the parts of ncslab-copy share: the parsed command line,
 * the storage chosen for each output variable, and the three stages
 * (define the output, copy the data, verify it).
 *
 * The program sees only the public API (include/ncslab.h).  Every stage
 * prints its own messages to stderr, prefixed with the program name, and
 * returns 0 or -1; main() owns the files and removes the temporary output
 * on any failure.
 */
#ifndef NCSLAB_COPY_H
#define NCSLAB_COPY_H

#include <stddef.h>

#include "ncslab.h"

#define COPY_PROG "ncslab-copy"

/* -c name/len: one dimension's chunk length for every variable using it. */
typedef struct {
    char *name;
    size_t len;          /* 0: the dimension's whole length */
    int inactive;        /* replaced by a later -c dim/len (only checked) */
} copy_dimspec;

/* -c var:n1,...,nk (contiguous when none are given, or var:contiguous). */
typedef struct {
    char *name;
    int contiguous;
    int n;
    size_t *sizes;
} copy_varspec;

typedef struct {
    int kind;             /* NCS_FORMAT_*, 0: from the input and the options */
    int deflate;          /* -1: as the input; 0-9 */
    int shuffle;          /* -s given */
    int zstd;             /* -1: as the input; 0-22 */
    int fletcher32;       /* --fletcher32 given */
    int no_filters;       /* -F none: no filter on any variable */
    int all_contiguous;   /* -c / */
    int fix_unlimited;    /* -u: the record dimension becomes fixed-size */
    size_t cache;         /* -h: chunk cache bytes, 0: a quarter of memory */
    const char *dimspec;  /* the -c dim/len (or /) argument in force */
    size_t min_chunk;     /* -M: fixed-size variables with smaller chunks
                             are contiguous (nccopy's 8192) */
    size_t memory;        /* budget in bytes */
    int verify;
    int quiet;
    int sync;             /* fsync the output before it takes its name */
    copy_dimspec *dims;
    int ndims;
    copy_varspec *vars;
    int nvars;
} copy_opts;

/* The storage of one output variable (netCDF-4 output only). */
typedef struct {
    int contiguous;
    size_t chunks[NCS_MAX_VAR_DIMS];
    int chunked_set;      /* chunks[] chosen here, else the library's default */
    int shuffle;
    int deflate;          /* level, 0: none */
    int zstd;             /* level, 0: none */
    int fletcher32;
} copy_storage;

/* The output kind the options and the input imply; -1 with a message when
 * they contradict each other. */
int copy_output_kind(const copy_opts *o, int in_format);

/* Defines in `out` (fresh, in define mode) every dimension, variable and
 * attribute of `in`, with the storage chosen for each variable stored in
 * st[varid] (st has one entry per input variable), and leaves define
 * mode. */
int copy_define(int in, int out, int out_kind, const copy_opts *o,
                copy_storage *st);

/* Copies every value of every variable in slabs of at most `budget`
 * bytes; `progress` draws a bar on stderr. */
int copy_data(int in, int out, const copy_storage *st, int out_chunked,
              size_t budget, int progress);

/* Compares the file `out` with `in`: dimensions, variables, attributes,
 * every value, and (netCDF-4 output) the storage in st[]; with
 * fix_unlimited the output's record dimension may be a fixed-size one. */
int copy_verify(int in, int out, const copy_storage *st, int out_chunked,
                int fix_unlimited, size_t budget, int progress);

/* Message helpers: "ncslab-copy: <what>: <ncs_strerror(status)>". */
void copy_fail(int status, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void copy_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* NCSLAB_COPY_H */
