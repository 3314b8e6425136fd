/*
 * diff_util.h -- helpers for the differential tests that drive ncslab and
 * netCDF-C with the same calls in one process (tests/diff/diff_classic.c).
 *
 * What lives here is everything that is not a test: a seeded PRNG, the
 * per-type value helpers (values are handled as long double, which holds
 * every integer of every netCDF type exactly on the x86-64 and aarch64
 * targets we test on), the mapping of one "request kind" onto the typed
 * netCDF-C function family and onto ncs_put/ncs_get, and a byte compare of
 * two files that reports the first differing offset with context.
 *
 * Type codes are netCDF's; ncslab's NCS_* codes are numerically equal, so
 * one int names a type for both libraries.
 */
#ifndef DIFF_UTIL_H
#define DIFF_UTIL_H

#include <stddef.h>
#include <stdint.h>

/* ---- PRNG (splitmix64: tiny, seedable, good enough for test shapes) ---- */
typedef struct drng {
    uint64_t s;
} drng;

void drng_seed(drng *r, uint64_t seed);
uint64_t drng_next(drng *r);
/* Uniform in [0, n); n == 0 gives 0. */
unsigned drng_below(drng *r, unsigned n);
/* 1 with probability pct percent. */
int drng_chance(drng *r, unsigned pct);

/* ---- types -------------------------------------------------------------- */
#define DT_NTYPES 12 /* NAT .. UINT64 */

size_t dt_size(int type);               /* 0 for NAT or an invalid code */
const char *dt_name(int type);          /* "byte", "nat", ... */
int dt_is_float(int type);
/* Type range as long double; char is treated as 0..255. */
long double dt_min(int type);
long double dt_max(int type);
/* 1 when v is representable in type without range error (netCDF's rule:
 * floats only need |v| <= the largest finite value). */
int dt_fits(int type, long double v);
/* Store v (which must fit) as one element of type at p, and load back. */
void dt_store(int type, void *p, long double v);
long double dt_load(int type, const void *p);
/* Prints one element of type at p into buf (for messages). */
void dt_format(int type, const void *p, char *buf, size_t n);

/* ---- request kinds -------------------------------------------------------
 * One data request as netCDF-C spells it.  DK_VAR is nc_put_var_T (whole
 * variable), DK_VAR1 nc_put_var1_T (start is the index), DK_VARA adds count,
 * DK_VARS stride, DK_VARM imap.  memtype NC_NAT selects the untyped
 * functions (nc_put_vara, ...), which use the variable's own type. */
enum { DK_VAR, DK_VAR1, DK_VARA, DK_VARS, DK_VARM, DK_NKINDS };
const char *dk_name(int kind);

int dnc_put(int ncid, int varid, int kind, const size_t *start,
            const size_t *count, const ptrdiff_t *stride,
            const ptrdiff_t *imap, int memtype, const void *buf);
int dnc_get(int ncid, int varid, int kind, const size_t *start,
            const size_t *count, const ptrdiff_t *stride,
            const ptrdiff_t *imap, int memtype, void *buf);
/* The same request through ncs_put/ncs_put1 (NULL start/count/stride/imap
 * where netCDF-C's function of that kind has no such argument). */
int dns_put(int ncid, int varid, int kind, const size_t *start,
            const size_t *count, const ptrdiff_t *stride,
            const ptrdiff_t *imap, int memtype, const void *buf);
int dns_get(int ncid, int varid, int kind, const size_t *start,
            const size_t *count, const ptrdiff_t *stride,
            const ptrdiff_t *imap, int memtype, void *buf);

/* Attributes: nc_put_att_T / nc_put_att_text / nc_put_att (memtype NAT).
 * memtype NC_CHAR requires xtype NC_CHAR (netCDF-C has no other spelling). */
int dnc_put_att(int ncid, int varid, const char *name, int xtype, size_t len,
                int memtype, const void *op);
int dnc_get_att(int ncid, int varid, const char *name, int memtype, void *ip);

/* ---- files -------------------------------------------------------------- */
/* Compares two files byte for byte.  Returns 0 when identical, 1 when they
 * differ (msg then holds the sizes, the first differing offset and a hex
 * context of both files), -1 when one cannot be read (msg says why), 2 when
 * they differ only in bytes of no header and no variable where b (ncslab)
 * has zeros: netCDF-C's stale buffer write-backs (doc/format.md, "Known
 * differences"; msg says how many). */
int dfile_cmp(const char *a, const char *b, char *msg, size_t msgsz);
/* dfile_cmp for the files of a pair: bytes of elements p never wrote
 * (dp_undefined) that ncslab left zero also count as a note (2). */
struct dpair;
int dfile_cmp_pair(const struct dpair *p, char *msg, size_t msgsz);
/* Whether the classic file at path is shorter than its header implies
 * (*size its length, *need the length the header implies). */
int dfile_short(const char *path, size_t *size, uint64_t *need);


/* ---- the pair under test ---------------------------------------------------
 * One file open in each library, created or opened with the same calls.
 * The schema model is always re-read from netCDF-C (dp_load_model), never
 * tracked by hand.  A return-code mismatch on a call that changes a file
 * marks the pair dead: the files have diverged and the caller stops. */
#define DP_MAXD 12          /* dimensions per file */
#define DP_MAXV 32          /* variables per file */
#define DP_MAXR 4           /* rank of the random variables */
#define DP_REC_LIN 64       /* record dimension length in linear indices */
#define DP_HIST 20          /* calls remembered per iteration */
#define DP_HISTLEN 320

typedef struct dpair {
    int nc, ns;                  /* netCDF-C and ncslab ncids */
    int open;
    int fmt;                     /* 1, 2 or 5 */
    int share;                   /* NC_SHARE or 0 */
    int writable;
    int only_nc;                 /* build a file with netCDF-C alone */
    int dead;                    /* return codes diverged on a write */
    int fails;
    drng r;
    const char *ctx;
    char path_nc[512], path_ns[512];
    /* model, re-read from netCDF-C */
    int ndims, nvars, recdim;
    size_t dimlen[DP_MAXD];
    int vtype[DP_MAXV], vndims[DP_MAXV], vdims[DP_MAXV][DP_MAXR + 1];
    /* last calls */
    char hist[DP_HIST][DP_HISTLEN];
    int nhist, hist_dumped;
    int hdirty;                  /* header changed in data mode, not synced */
    int close_refused;           /* both closes failed in define mode */
    int nofill;                  /* current fill mode is NC_NOFILL */
    /* Elements a put has written, one bit per linear index and variable.
     * Once a file has been in nofill mode, an element never written has
     * no defined content (netCDF-C's I/O layer leaves stale buffer bytes
     * there, ncslab zeros): such elements are compared only when ncslab's
     * bytes are not zero. */
    int ever_nofill;
    unsigned char *wmap[DP_MAXV];
    size_t wcap[DP_MAXV];        /* bytes of wmap[v] */
} dpair;

typedef struct dslab {
    int kind, rank;
    size_t start[DP_MAXR + 1], count[DP_MAXR + 1];
    ptrdiff_t stride[DP_MAXR + 1], imap[DP_MAXR + 1];
    int pass_stride;             /* VARM: stride array or NULL */
    size_t nel, span, base;      /* elements, memory span, first element */
} dslab;

/* Remembers one call for the report of a later mismatch (and prints it when
 * tracing is on). */
void dp_note(dpair *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Reports a mismatch with the pair's context and its recent calls. */
void dp_mismatch(dpair *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* 1 when the two return codes are equal; otherwise reports, and with fatal
 * set marks the pair dead. */
int dp_rc_eq(dpair *p, const char *what, int a, int b, int fatal);
void dp_set_trace(int on);
const char *dfmt_sizes(char *buf, size_t n, const size_t *v, int rank);
const char *dfmt_diffs(char *buf, size_t n, const ptrdiff_t *v, int rank);

void dp_load_model(dpair *p);
/* Current length of a dimension (the record count for the record one). */
size_t dp_cur_len(dpair *p, int dimid);
int dp_random_xtype(dpair *p);           /* any type of the pair's format */
int dp_random_numeric(dpair *p);         /* any numeric memory type */
int dp_pick_memtype(dpair *p, int ext);  /* a memory type for ext data */
/* Compares the record counts of the two files after a write. */
void dp_check_numrecs(dpair *p, const char *after);
/* Written-element bookkeeping (dpair.wmap): every element of s, or the
 * first n linear indices of v, has been written by a put. */
void dp_mark_slab(dpair *p, int v, const dslab *s);
void dp_mark_first(dpair *p, int v, size_t n);
/* 1 when element lin of v has no defined content: the file has been in
 * nofill mode and no put wrote it. */
int dp_undefined(const dpair *p, int v, size_t lin);
void dp_free_marks(dpair *p);

/* ---- values -------------------------------------------------------------
 * f(varid, lin) at magnitude scale 0..2, inside both ext's and mem's range;
 * dval_oor gives a value that fits mem but not ext, when one exists. */
long double dval_gen(int ext, int mem, int varid, size_t lin, int scale);
int dval_oor(int ext, int mem, size_t lin, long double *vp);

/* ---- slabs --------------------------------------------------------------- */
/* A valid random request on variable v (for a put, it may add records);
 * kind < 0 picks the kind at random. */
void dslab_gen(dpair *p, int v, int for_put, int kind, dslab *s);
const char *dslab_str(const dslab *s, char *buf, size_t n);
/* Element k (C order of count): memory offset in elements from the buffer
 * start (base included), linear index in the variable, coordinates. */
void dslab_elem(const dpair *p, int v, const dslab *s, size_t k, size_t *moff,
                size_t *lin, size_t *coord);
#define DSLAB_STRIDE(s) ((s)->kind == DK_VARM && !(s)->pass_stride ? NULL : (s)->stride)
int dslab_put_nc(dpair *p, int v, const dslab *s, int mem,
                 const unsigned char *buf, size_t msz);
int dslab_put_ns(dpair *p, int v, const dslab *s, int mem,
                 const unsigned char *buf, size_t msz);
/* The slab's elements read with the variable's own type, packed in C order,
 * from netCDF-C (lib_ns 0) or ncslab (1). */
int dslab_read_packed(dpair *p, int lib_ns, int v, const dslab *s, void *out);

#endif /* DIFF_UTIL_H */
