/*
 * suite.h -- the 4-D timing suite: engines, tests and results, shared by
 * suite.c (setup, scheduling, timing, checks) and report.c (the seed's
 * line format, the side-by-side and layouts tables, CSV, SVG).
 *
 * Invariants: results[e][t][k] is the median microseconds per call of test
 * k on the variable of type index t for engine e, or NaN when the engine
 * is not available; no number is stored before the data of that test was
 * checked.
 */
#ifndef TIMEIT_SUITE_H
#define TIMEIT_SUITE_H

#include "timeit.h"

#define TI_MAX_ENGINES 40
#define TI_MAX_TESTS 770        /* 2 + 3 * (2^TI_MAX_DIMS - 1) */

/* TI_PUTSYNC: puts, then the library's sync and an fdatasync of the file,
 * once per batch, so the time includes getting the data to the disk */
enum { TI_GET, TI_PUT, TI_PUTSYNC };

typedef struct {
    const ti_lib *lib;
    ti_layout layout;
    char label[128];            /* "ncslab cdf1", column and block title */
    char why[256];              /* why it is not available, "" if it is */
    int reference;              /* netCDF-C classic: the ratios' base */
    char path[1024];
    int fd;                     /* the harness's own descriptor, for fdatasync */
    int ncid;
    int varids[TI_MAX_TYPES];
    long long file_size;        /* bytes after close; resident bytes for memory */
} ti_engine;

typedef struct {
    int op;                     /* TI_GET or TI_PUT */
    long start[TI_MAX_DIMS], count[TI_MAX_DIMS];
    char label[64];             /* "10x20x1x1 plane", "240000 values" */
    char shape[64];             /* "10x20x1x1" */
} ti_test;

typedef struct {
    const ti_options *o;
    int nengines;
    ti_engine engines[TI_MAX_ENGINES];
    int reference;              /* index of netCDF-C classic, -1 if absent */
    int ntests;
    ti_test tests[TI_MAX_TESTS];
    double *usec;               /* [engine][type][test] */
    double seconds;             /* wall time of the run */
} ti_suite;

#define TI_USEC(s, e, t, k) ((s)->usec[((size_t)(e) * TI_MAX_TYPES + (t)) * (s)->ntests + (k)])

/* suite.c */
void ti_suite_engines(ti_suite *s, const ti_options *o);
void ti_suite_run(ti_suite *s);
/* Fills s->tests and s->ntests from s->o (ti_suite_run does it first). */
void ti_suite_tests(ti_suite *s);
int ti_engine_available(const ti_engine *e);

/* report.c */
void ti_report_block(const ti_suite *s, int t);
void ti_report_table(const ti_suite *s, FILE *out);
void ti_report_layouts(const ti_suite *s, FILE *out);
void ti_report_csv(const ti_suite *s, FILE *csv);
int ti_report_svg(const ti_suite *s, const char *path);
int ti_table_type(const ti_suite *s);
/* "1234.5" in at most 8 characters */
void ti_fmt_usec(double usec, char *out, size_t outlen);

#endif /* TIMEIT_SUITE_H */
