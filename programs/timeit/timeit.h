/*
 * timeit.h -- shared declarations of the timeit harness.
 *
 * timeit reruns the 1992 netCDF hyperslab timing suite (nctest/timeit.c of
 * netCDF 2) against several engines in one process and compares them.  An
 * engine is a library reached through the netCDF version-2 calls (ncslab,
 * netCDF-C) or the in-memory floor, together with a storage layout
 * (contiguous CDF-1/2/5, chunked with a chunk shape, resident array).
 *
 * The libraries meet the harness only through ti_lib, a table of function
 * pointers: netCDF-C's <netcdf.h> and ncslab's v2 header declare the same
 * names, so each library lives in a translation unit of its own
 * (engine_netcdf.c, engine_ncslab.c, engine_memory.c).
 *
 * Conventions: every ti_lib call returns a netCDF status (0, or an NC_E*
 * code, or a positive errno value); memory buffers hold the variable's own
 * type, as v2 has no conversion (NC_LONG data are 4-byte ints).
 */
#ifndef TIMEIT_H
#define TIMEIT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define TI_MAX_DIMS 8           /* ranks the suite accepts */
#define TI_MAX_TYPES 6          /* byte char short long float double */
#define TI_NOT_BUILT (-128)     /* NC_ENOTBUILT */

/* ---- layouts ------------------------------------------------------------ */
enum { TI_CONTIGUOUS, TI_CHUNKED, TI_RESIDENT };

typedef struct {
    int kind;                   /* TI_CONTIGUOUS, TI_CHUNKED, TI_RESIDENT */
    int format;                 /* contiguous: 1, 2 or 5 (CDF-1/2/5) */
    int rank;                   /* chunked: number of chunk sizes */
    size_t chunks[TI_MAX_DIMS]; /* chunked: chunk shape */
    int deflate;                /* chunked: deflate level, 0 for none */
    char label[96];             /* "cdf1", "chunks 1x20x30x40", ... */
} ti_layout;

/* ---- libraries ---------------------------------------------------------- */
typedef struct ti_lib {
    const char *name;           /* "ncslab", "netCDF-C", "memory" */
    /* Creates path in define mode with the layout's format.  ENOTBUILT (or
     * another status) means the library cannot make this layout. */
    int (*create)(const char *path, const ti_layout *layout, int *ncidp);
    /* Opens read-only; NULL when the library keeps nothing on disk. */
    int (*open)(const char *path, int *ncidp);
    int (*def_dim)(int ncid, const char *name, long len, int *dimidp);
    /* Defines a variable and applies the layout's storage settings. */
    int (*def_var)(int ncid, const char *name, int type, int ndims,
                   const int *dimids, const ti_layout *layout, int *varidp);
    int (*inq_varid)(int ncid, const char *name, int *varidp);
    int (*enddef)(int ncid);
    int (*get)(int ncid, int varid, const long *start, const long *count, void *buf);
    int (*put)(int ncid, int varid, const long *start, const long *count,
               const void *buf);
    int (*get1)(int ncid, int varid, const long *index, void *value);
    /* The strided and mapped gets of v2, ncvargets and ncvargetg: imap in
     * bytes, as v2 has it; ndims and elsize serve a library that wants
     * the map in elements.  NULL when the library has no such call. */
    int (*gets)(int ncid, int varid, const long *start, const long *count, const long *stride,
                void *buf);
    int (*getg)(int ncid, int varid, int ndims, const long *start, const long *count,
                const long *stride, const long *imap, size_t elsize, void *buf);
    /* The scan's inner loop: cells 0..ncols-1 of row `row` of a 2-D short
     * variable into out, one get1 call per cell.  It lives next to the
     * library's calls, so the loop costs what the same loop in a program
     * costs, without the harness's calls through this table per cell. */
    int (*get1_row)(int ncid, int varid, long row, long ncols, short *out);
    /* Hands the library's buffered writes to the operating system
     * (ncsync); NULL when the library keeps nothing on disk. */
    int (*sync)(int ncid);
    /* 1 when sync also makes them durable (an fdatasync of its own):
     * a put+sync batch then makes no fdatasync after it. */
    int sync_durable;
    int (*close)(int ncid);
    const char *(*strerror)(int status);
} ti_lib;

extern const ti_lib ti_lib_ncslab;        /* ncslab through its v2 calls */
extern const ti_lib ti_lib_ncslab_native; /* ncslab through ncs_get/ncs_put */
extern const ti_lib ti_lib_netcdf;        /* netCDF-C through its v2 calls */
extern const ti_lib ti_lib_ncslab_v3;     /* ncslab through its v3 calls */
extern const ti_lib ti_lib_netcdf_v3;     /* netCDF-C through its v3 calls */
extern const ti_lib ti_lib_memory;        /* gather/scatter on resident arrays */
extern const ti_lib ti_lib_plain;         /* the scan's reference: a plain loop */
/* Peers built when configure found them (doc/timeit.md): PnetCDF on the
 * classic file, and a second netCDF-C loaded into its own namespace.
 * Each is started once, by main, before anything is timed or forked.  TI_PNETCDF and TI_NETCDF2 are NULL when not built. */
#ifdef TI_HAVE_PNETCDF
extern const ti_lib ti_lib_pnetcdf;
#define TI_PNETCDF (&ti_lib_pnetcdf)
#define TI_E_PNETCDF_BUILT TI_E_PNETCDF
void ti_pnetcdf_start(void);
const char *ti_pnetcdf_version(void);
#else
#define TI_PNETCDF ((const ti_lib *)0)
#define TI_E_PNETCDF_BUILT 0
#endif
#ifdef TI_NETCDF2_LIB
extern const ti_lib ti_lib_netcdf2;
#define TI_NETCDF2 (&ti_lib_netcdf2)
#define TI_E_NETCDF2_BUILT (TI_E_NETCDF2 | TI_E_NETCDF24)
void ti_netcdf2_start(void);
/* the loaded release's version, or why it could not be loaded */
const char *ti_netcdf2_version(void);
#else
#define TI_NETCDF2 ((const ti_lib *)0)
#define TI_E_NETCDF2_BUILT 0
#endif
/* netCDF-C's version string, and its default chunk shape for a variable
 * (0 on success); used to name the "default" layout honestly. */
const char *ti_netcdf_version(void);
int ti_netcdf_default_chunks(int ndims, const long *dims, int type, size_t *chunks);
const char *ti_ncslab_version(void);
/* Sets ncslab's chunk cache budget when bytes > 0; returns the budget in
 * force (0 without the chunked back end). */
size_t ti_ncslab_chunk_cache(size_t bytes);
/* Sets the size of ncslab's decoding pool when n > 0; returns the size in
 * force (1 without one). */
size_t ti_ncslab_decode_threads(size_t n);

/* ---- types and values ----------------------------------------------------
 * The value of an element encodes its coordinates: the row-major linear
 * index of the element in its variable, exactly for long and double,
 * modulo 2^24 for float, hashed into the type's width for byte, char and
 * short (so a misplaced element is still caught). */
typedef struct {
    int type;                   /* NC_BYTE .. NC_DOUBLE */
    const char *name;           /* "byte", ... "double" */
    size_t size;
} ti_type;

const ti_type *ti_type_by_name(const char *name);
const ti_type *ti_type_by_code(int type);
/* Writes the expected values of the slab (start, count) of a variable of
 * shape dims into buf, in row-major order. */
void ti_fill_slab(int type, int ndims, const long *dims, const long *start,
                  const long *count, void *buf);
/* Compares buf with the expected values; returns 0 when equal, otherwise
 * describes the first bad element in msg. */
int ti_check_slab(int type, int ndims, const long *dims, const long *start,
                  const long *count, const void *buf, char *msg, size_t msglen);
/* The value of one element, as bytes of the type, for get1 checks. */
void ti_value(int type, uint64_t code, void *out);

size_t ti_nelems(int ndims, const long *count);

/* ---- timing --------------------------------------------------------------- */
double ti_now(void);            /* CLOCK_MONOTONIC seconds */
double ti_cpu_now(void);        /* CPU seconds of this process */

#define TI_BATCHES 5            /* timed rounds; the median is reported */

/* One thing being timed against others: batch(ctx, n) makes n calls and
 * returns the seconds they took (a failed call ends the run there). */
typedef struct {
    double (*batch)(void *ctx, long n);
    void *ctx;
    long calls;                 /* the batch size: 0 to calibrate it */
    double usec;                /* set: median batch, microseconds per call */
} ti_timed;

/* Calibrates each batch size to min_time / TI_BATCHES seconds, then times
 * TI_BATCHES rounds of one batch of each, alternating the order, and
 * sets calls and usec (timing.c).  The caller makes and checks a first
 * call of each before. */
void ti_time_interleaved(ti_timed *t, int n, double min_time);
/* Peak resident set of this process in bytes (VmHWM), 0 if unknown. */
size_t ti_peak_rss(void);
size_t ti_rss(void);            /* resident set now (VmRSS), 0 if unknown */
/* Progress line on stderr when stderr is a terminal and the run has been
 * going for a while; ti_progress_done erases it. */
void ti_progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void ti_progress_done(void);
/* Dies with a message: the harness's one error exit. */
void ti_die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/* ---- output helpers ------------------------------------------------------- */
/* "10x20x1x1" */
void ti_shape_str(int n, const long *v, char *out, size_t outlen);
void ti_chunk_str(int n, const size_t *v, char *out, size_t outlen);
/* "<lib> <layout>", the name of an engine (out: at least 128 bytes) */
void ti_engine_name(char *out, size_t outlen, const char *lib, const char *layout);
/* A layout of kind (TI_CONTIGUOUS, TI_CHUNKED with rank chunk sizes,
 * TI_RESIDENT, or anything else for a raw file) and its label: "cdf1",
 * "chunks 1x20x30x40", "resident", "raw". */
void ti_layout_init(ti_layout *l, int kind, int format, int rank, const size_t *chunks);

/* ---- chart ----------------------------------------------------------------- */
/* A grouped bar chart, stacked panels sharing one legend: in each panel,
 * groups along x (at most maxgroups), one bar per series in each group,
 * height on a log scale.  values[series * ngroups + group]; NaN or <= 0 is
 * a missing bar, and a series with no bar at all is marked n/a in the
 * legend.  colors: one "#rrggbb" per series, or NULL for a palette. */
typedef struct ti_svg ti_svg;
ti_svg *ti_svg_open(const char *path, const char *title, int npanels, int maxgroups,
                    int nseries, const char *const *series, const char *const *colors);
void ti_svg_panel(ti_svg *s, const char *title, const char *axis, int ngroups,
                  const char *const *groups, const double *values);
/* Writes the file; 0 on success, -1 (errno set) on failure. */
int ti_svg_close(ti_svg *s);

/* ---- scenarios ------------------------------------------------------------- */
typedef struct ti_options ti_options;
/* Defines the suite's dimensions (the first the record dimension) and one
 * variable per type, "<type>_var", in ncid, then ends the definitions;
 * the variable ids go to varids (may be NULL).  Returns the library's
 * status; *stepp (may be NULL) names the call that failed. */
int ti_define_vars(const ti_lib *lib, int ncid, const ti_options *o, const ti_layout *layout,
                   int *varids, const char **stepp);
int ti_run_scan(const ti_options *o, FILE *csv);
int ti_run_append(const ti_options *o, FILE *csv);
int ti_run_strided(const ti_options *o, FILE *csv);
int ti_run_cold(const ti_options *o, FILE *csv);
int ti_run_threads(const ti_options *o, FILE *csv);

struct ti_options {
    int ndims;
    long dims[TI_MAX_DIMS];
    int ntypes;
    const ti_type *types[TI_MAX_TYPES];
    double min_time;
    int format;                 /* 1, 2, 5 */
    int nchunkshapes;
    size_t chunkshapes[8][TI_MAX_DIMS];
    unsigned engines;           /* TI_E_* bits, within TI_E_BUILT */
    const char *dir;            /* scratch directory (made by main) */
    const char *csv, *svg;
    const char *table_type;
    int layouts;                /* --layouts sweep */
    int nlayouts;
    size_t layoutshapes[32][TI_MAX_DIMS];
    int quiet;                  /* only the tables */
    int suite;                  /* run the 4-D suite */
    int scan;
    long scan_rows, scan_cols;
    size_t scan_chunks[2];
    double scan_budget;
    size_t scan_cache;          /* ncslab's chunk cache budget, 0: default */
    int append;
    long append_records;
    int nblocks;
    long blocks[16];
    int append_repeat;          /* runs per engine and block size */
    int strided;
    int cold;                   /* --cold */
    long cold_records;          /* records of the cold time series */
    int threads;                /* --threads N; 0: not run */
    long threads_rows, threads_cols;
};

#define TI_E_NCSLAB   0x01      /* ncslab contiguous */
#define TI_E_NCSCHUNK 0x02      /* ncslab chunked */
#define TI_E_NETCDF   0x04      /* netCDF-C classic */
#define TI_E_NETCDF4  0x08      /* netCDF-C netCDF-4 */
#define TI_E_MEMORY   0x10      /* in-memory floor */
#define TI_E_NATIVE   0x20      /* ncslab contiguous through ncs_ calls */
#define TI_E_DEFAULT  0x1f
#define TI_E_PNETCDF  0x40      /* PnetCDF classic */
#define TI_E_NETCDF2  0x80      /* the second netCDF-C, classic */
#define TI_E_NETCDF24 0x100     /* the second netCDF-C, netCDF-4 */
#define TI_E_V3       0x200     /* ncslab contiguous through its v3 calls */
#define TI_E_NETCDFV3 0x400     /* netCDF-C contiguous through its v3 calls */
/* the engines of this build */
#define TI_E_BUILT (TI_E_DEFAULT | TI_E_NATIVE | TI_E_V3 | TI_E_NETCDFV3 | \
                    TI_E_PNETCDF_BUILT | TI_E_NETCDF2_BUILT)

#endif /* TIMEIT_H */
