/*
 * diff_nc4.c -- differential tests of ncslab's chunked back end against
 * netCDF-C on netCDF-4 files in the classic data model (NC_NETCDF4 |
 * NC_CLASSIC_MODEL), both libraries linked into this one process.
 *
 *  random    seeded random call sequences (dimensions with the unlimited
 *            one, coordinate variables, every classic type at ranks 0-3,
 *            explicit chunk shapes, deflate/shuffle/Fletcher-32 and zstd
 *            where netCDF-C has it, byte order and quantization with
 *            every mode, in range and out, attributes with _FillValue,
 *            record growth, redef adding variables, storage calls made
 *            too late, the files closed and opened again, puts and gets
 *            of every family in float, double and int memory on float
 *            and double variables, infinities and NaN among the values)
 *            go through both libraries; every return code and every
 *            inquiry's answer must be equal, `ncdump` of the two files
 *            must be equal (its first line, which names the file, aside),
 *            each file must read the same through both libraries, and
 *            each library must see the storage, byte order and
 *            quantization of both files as netCDF-C sees its own.  The
 *            cases where netCDF-C 4.9.0 is wrong (doc/v3.md) are not
 *            drawn; half the sequences quantize, and their netCDF-C file
 *            is not marked classic-model, as there netCDF-C cannot lay
 *            out a quantized variable.
 *  written   netCDF-C writes files with every filter combination and
 *            big-endian data; ncslab reads every value netCDF-C reads,
 *            then writes into them, and netCDF-C reads those writes.
 *  scales    HDF5 sees valid dimension scales in ncslab's files (h5dump -A
 *            and the H5DS calls).
 *  foreign   a filter ncslab does not implement (HDF5's built-in N-bit and
 *            scale-offset, and szip when HDF5 can encode it): reads and
 *            writes go through HDF5's own path and give netCDF-C's values.
 *  codes     the storage calls' return codes, call for call.
 *
 * Seeds: NCSLAB_SEED=N runs that one seed; otherwise a fixed list plus one
 * time-based seed, each printed first.  CK_RUN_CASE=random (Check's own
 * switch) runs the random sequences alone, for sweeps of seeds by hand;
 * NCSLAB_DIFF_TRACE=1 prints every data call.  Files live in a temporary
 * directory that is removed when every test passed.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <check.h>
#include <hdf5.h>
#include <hdf5_hl.h>
#include <netcdf.h>
#include <netcdf_filter.h>

#include "diff_util.h"
#include "nc4_common.h"

#ifndef NCDUMP_PROG
#define NCDUMP_PROG "ncdump"
#endif

static char tmpdir[256];
static uint64_t seeds[8];
static int nseeds;
static int zstd_ok;              /* netCDF-C can write and read zstd */
static int trace;                /* NCSLAB_DIFF_TRACE=1: print every data call */

static void trace_call(const char *what, int rank, const size_t *start, const size_t *count,
                       const ptrdiff_t *stride, int rc_nc, int rc_ns)
{
    if (!trace)
        return;
    printf("    %s start", what);
    for (int k = 0; k < rank; k++)
        printf(" %zu", start[k]);
    printf(" count");
    for (int k = 0; k < rank; k++)
        printf(" %zu", count[k]);
    if (stride != NULL) {
        printf(" stride");
        for (int k = 0; k < rank; k++)
            printf(" %td", stride[k]);
    }
    printf(" -> %d / %d\n", rc_nc, rc_ns);
}

static void tmp_path(char *out, size_t n, const char *what, int lib, int k)
{
    snprintf(out, n, "%s/%s_%d_%s.nc", tmpdir, what, k, lib ? "ncslab" : "netcdf");
}

static const nc4lib *const libs[2] = {&nc4_netcdf, &nc4_ncslab};

/* Both libraries make the same call; the codes must agree. */
#define BOTH(fails, what, call_nc, call_ns)                                          \
    do {                                                                             \
        int a_ = (call_nc), b_ = (call_ns);                                          \
        if (a_ != b_) {                                                              \
            printf("  MISMATCH %s: netCDF-C %d (%s), ncslab %d (%s)\n", (what), a_,  \
                   nc_strerror(a_), b_, ncs_strerror(b_));                           \
            (fails)++;                                                               \
        }                                                                            \
    } while (0)

/* ---- ncdump ------------------------------------------------------------------ */

/* The output of ncdump opts path without its first line, malloc'd; NULL
 * when ncdump failed (its status in *status). */
static char *ncdump_text(const char *opts, const char *path, int *status)
{
    char cmd[1024], *buf, *nl;
    snprintf(cmd, sizeof cmd, "%s %s '%s' 2>&1", NCDUMP_PROG, opts, path);
    buf = nc4_run(cmd, status);
    if (buf == NULL)
        return NULL;
    nl = strchr(buf, '\n');
    if (nl != NULL)
        memmove(buf, nl + 1, strlen(nl + 1) + 1);
    return buf;
}

/* Compares ncdump of the two files; prints the first differing line. */
static int same_dump(const char *opts, const char *a, const char *b)
{
    int sa = 0, sb = 0, line = 1;
    char *ta = ncdump_text(opts, a, &sa), *tb = ncdump_text(opts, b, &sb);
    const char *pa, *pb;
    int ok = ta != NULL && tb != NULL && sa == 0 && sb == 0 && strcmp(ta, tb) == 0;
    if (!ok) {
        printf("  ncdump %s differs (status %d / %d):\n", opts, sa, sb);
        if (ta != NULL && tb != NULL) {
            for (pa = ta, pb = tb; *pa && *pa == *pb; pa++, pb++)
                if (*pa == '\n')
                    line++;
            while (pa > ta && pa[-1] != '\n')
                pa--, pb--;
            printf("    line %d netCDF-C: %.*s\n", line + 1, (int)strcspn(pa, "\n"), pa);
            printf("    line %d ncslab:   %.*s\n", line + 1, (int)strcspn(pb, "\n"), pb);
        }
    }
    free(ta);
    free(tb);
    return ok;
}

/* ---- values --------------------------------------------------------------------- */
static const int ctypes[] = {NC_BYTE, NC_CHAR, NC_SHORT, NC_INT, NC_FLOAT, NC_DOUBLE};

/* Element lin of variable v in generation g, valid in type t. */
static long double gval(int t, int v, size_t lin, int g)
{
    long x = (long)(lin * 7 + (size_t)v * 13 + (size_t)g * 31);
    switch (t) {
    case NC_CHAR: return 'a' + x % 26;
    case NC_BYTE: return x % 200 - 100;
    case NC_SHORT: return x % 30000 - 15000;
    case NC_INT: return x * 1001 - 500000;
    case NC_FLOAT: return (long double)(x % 100000) / 4 - 1000;
    default: return (long double)x / 8 - 12345.5;
    }
}

/* ---- random sequences ------------------------------------------------------------- */
#define RMAXD 5
#define RMAXV 10
#define RMAXR 3

typedef struct rschema {
    int ndims, unlim;            /* unlim: dimid of the record dim or -1 */
    size_t dimlen[RMAXD];
    int nvars;
    int vtype[RMAXV], vrank[RMAXV], vdims[RMAXV][RMAXR];
    int vexplicit[RMAXV];        /* storage chosen by the sequence */
    int vendian[RMAXV];          /* the last nc_def_var_endian both accepted */
    int vquant[RMAXV];           /* the quantize mode in force */
    int vfill[RMAXV];            /* has a _FillValue attribute */
    int vreopened[RMAXV];        /* laid out before the files were reopened */
    int nc_classic;              /* netCDF-C's file is marked classic-model */
    int reopened;                /* the files were opened again */
} rschema;

/* Current length of dimension d, from netCDF-C. */
static size_t cur_len(int nc, int d)
{
    size_t n = 0;
    nc_inq_dimlen(nc, d, &n);
    return n;
}

/* ---- quantization and byte order ------------------------------------------------ */

/* netCDF-C's largest nsd of a mode for type t: decimal digits for BitGroom
 * and granular BitRound, significand bits for BitRound (a type that cannot
 * be quantized gets double's, so that its calls still vary). */
static int q_max(int t, int mode)
{
    if (mode == NC_QUANTIZE_BITROUND)
        return t == NC_FLOAT ? NC_QUANTIZE_MAX_FLOAT_NSB : NC_QUANTIZE_MAX_DOUBLE_NSB;
    return t == NC_FLOAT ? NC_QUANTIZE_MAX_FLOAT_NSD : NC_QUANTIZE_MAX_DOUBLE_NSD;
}

/* Whether nc_def_var_quantize(mode, nsd) on a new variable of type t
 * succeeds and turns quantization on. */
static int q_takes(int t, int mode, int nsd)
{
    return (mode == NC_QUANTIZE_BITGROOM || mode == NC_QUANTIZE_GRANULARBR ||
            mode == NC_QUANTIZE_BITROUND) &&
           (t == NC_FLOAT || t == NC_DOUBLE) && nsd >= 1 && nsd <= q_max(t, mode);
}

/* Both libraries' answers on variable v's quantization, byte order and
 * number of attributes: equal codes, and equal answers where both worked. */
static void check_numerics(const int *ids, int v, const char *when, int *fails)
{
    int m[2] = {-9, -9}, n[2] = {-9, -9}, e[2] = {-9, -9}, na[2] = {-9, -9}, a, b;
    char what[96];
    snprintf(what, sizeof what, "inq_var_quantize v%d %s", v, when);
    a = nc_inq_var_quantize(ids[0], v, &m[0], &n[0]);
    b = ncs_inq_var_quantize(ids[1], v, &m[1], &n[1]);
    BOTH(*fails, what, a, b);
    if (a == 0 && b == 0 && (m[0] != m[1] || n[0] != n[1])) {
        printf("  MISMATCH %s: netCDF-C mode %d nsd %d, ncslab mode %d nsd %d\n", what, m[0],
               n[0], m[1], n[1]);
        (*fails)++;
    }
    snprintf(what, sizeof what, "inq_var_endian v%d %s", v, when);
    a = nc_inq_var_endian(ids[0], v, &e[0]);
    b = ncs_inq_var_endian(ids[1], v, &e[1]);
    BOTH(*fails, what, a, b);
    if (a == 0 && b == 0 && e[0] != e[1]) {
        printf("  MISMATCH %s: netCDF-C %d, ncslab %d\n", what, e[0], e[1]);
        (*fails)++;
    }
    snprintf(what, sizeof what, "inq_varnatts v%d %s", v, when);
    a = nc_inq_varnatts(ids[0], v, &na[0]);
    b = ncs_inq_varnatts(ids[1], v, &na[1]);
    BOTH(*fails, what, a, b);
    if (a == 0 && b == 0 && na[0] != na[1]) {
        printf("  MISMATCH %s: netCDF-C %d, ncslab %d\n", what, na[0], na[1]);
        (*fails)++;
    }
}

/* One nc_def_var_endian of variable v (v == nvars: a varid that does not
 * exist) through both libraries: the three orders, and 7, which both keep. */
static void random_endian(drng *r, rschema *s, const int *ids, int v, int *fails)
{
    static const int orders[] = {NC_ENDIAN_NATIVE, NC_ENDIAN_LITTLE, NC_ENDIAN_BIG};
    unsigned k = drng_below(r, 10);
    int e = k < 9 ? orders[k / 3] : 7, a, b;
    char what[64];
    snprintf(what, sizeof what, "def_var_endian v%d %d", v, e);
    a = nc_def_var_endian(ids[0], v, e);
    b = ncs_def_var_endian(ids[1], v, e);
    BOTH(*fails, what, a, b);
    if (a == 0 && b == 0 && v < s->nvars)
        s->vendian[v] = e;
    check_numerics(ids, v, "after def_var_endian", fails);
}

/* One nc_def_var_quantize of variable v through both libraries: every
 * mode, nsd across its range, now and then an nsd or a mode out of range.
 * fresh: v is defined in this define mode and not yet laid out. */
static void random_quantize(drng *r, rschema *s, const int *ids, int v, int fresh, int *fails)
{
    int t = v < s->nvars ? s->vtype[v] : NC_FLOAT, mode, nsd, a, b;
    unsigned k = drng_below(r, 20);
    char what[64];
    mode = k < 2 ? NC_NOQUANTIZE
         : k < 7 ? NC_QUANTIZE_BITGROOM
         : k < 12 ? NC_QUANTIZE_GRANULARBR
         : k < 18 ? NC_QUANTIZE_BITROUND
         : k == 18 ? 4 : -1;
    nsd = 1 + (int)drng_below(r, (unsigned)q_max(t, mode));
    if (drng_chance(r, 10))
        nsd = drng_chance(r, 50) ? (int)drng_below(r, 2) - 1 : q_max(t, mode) + 1;
    /* netCDF-C 4.9.0's BitGroom and granular BitRound at 7 digits of a
     * float destroy values (doc/v3.md, "Where netCDF-C is wrong") */
    if (t == NC_FLOAT && (mode == NC_QUANTIZE_BITGROOM || mode == NC_QUANTIZE_GRANULARBR) &&
        nsd == NC_QUANTIZE_MAX_FLOAT_NSD)
        nsd--;
    /* netCDF-C 4.9.0 fails the enddef of a classic-model file that lays
     * out a quantized variable with NC_ENOTINDEFINE (doc/v3.md, "Where
     * netCDF-C is wrong"); only sequences whose netCDF-C file is not
     * marked classic-model quantize */
    if (fresh && s->nc_classic && q_takes(t, mode, nsd))
        mode = NC_NOQUANTIZE;
    snprintf(what, sizeof what, "def_var_quantize v%d mode %d nsd %d", v, mode, nsd);
    a = nc_def_var_quantize(ids[0], v, mode, nsd);
    b = ncs_def_var_quantize(ids[1], v, mode, nsd);
    BOTH(*fails, what, a, b);
    if (a == 0 && b == 0 && v < s->nvars)
        s->vquant[v] = mode;
    check_numerics(ids, v, "after def_var_quantize", fails);
}

/* The byte order and the quantization of a new variable v, sometimes
 * twice (the second call replaces the first). */
static void random_numerics(drng *r, rschema *s, const int *ids, int v, int *fails)
{
    int t = s->vtype[v];
    for (unsigned n = 1 + drng_chance(r, 20); n > 0; n--) {
        if (drng_chance(r, 30))
            random_endian(r, s, ids, v, fails);
        if (drng_chance(r, t == NC_FLOAT || t == NC_DOUBLE ? 75 : 8))
            random_quantize(r, s, ids, v, 1, fails);
    }
}

/* Defines one random variable in both files (a coordinate variable when
 * coord names a dimension); returns its varid or -1. */
static int def_random_var(drng *r, rschema *s, const int *ids, const char *coord,
                          int *fails)
{
    int v = s->nvars, rank = 0, t = ctypes[drng_below(r, 6)], dims[RMAXR];
    int id[2] = {-1, -2}, fixed[RMAXD], nfixed = 0, early, room;
    char name[32];
    if (coord != NULL) {
        if (ncs_inq_dimid(ids[1], coord, &dims[0]) != 0)
            return -1;
        rank = 1;
        if (t == NC_CHAR)
            t = NC_INT;
        snprintf(name, sizeof name, "%s", coord);
    } else {
        /* the record dimension only first, then distinct fixed ones */
        unsigned want = drng_below(r, RMAXR + 1);
        for (int d = 0; d < s->ndims; d++)
            if (d != s->unlim)
                fixed[nfixed++] = d;
        if (want > 0 && s->unlim >= 0 && drng_chance(r, 60))
            dims[rank++] = s->unlim;
        while ((unsigned)rank < want && nfixed > 0) {
            unsigned j = drng_below(r, (unsigned)nfixed);
            dims[rank++] = fixed[j];
            fixed[j] = fixed[--nfixed];
        }
        snprintf(name, sizeof name, "v%d", v);
    }
    BOTH(*fails, "def_var", nc_def_var(ids[0], name, t, rank, dims, &id[0]),
         ncs_def_var(ids[1], name, t, rank, dims, &id[1]));
    if (id[0] != id[1] || id[0] != v)
        return -1;
    s->vtype[v] = t;
    s->vrank[v] = rank;
    memcpy(s->vdims[v], dims, sizeof dims);
    s->nvars++;

    /* byte order and quantization before the storage calls or after */
    early = drng_chance(r, 50);
    if (early)
        random_numerics(r, s, ids, v, fails);
    /* storage */
    if (rank > 0 && drng_chance(r, 60)) {
        size_t ch[RMAXR];
        for (int k = 0; k < rank; k++) {
            size_t len = dims[k] == s->unlim ? 4 : s->dimlen[dims[k]];
            ch[k] = 1 + drng_below(r, (unsigned)len);
        }
        BOTH(*fails, "def_var_chunking", nc_def_var_chunking(ids[0], v, NC_CHUNKED, ch),
             ncs_def_var_chunking(ids[1], v, NCS_CHUNKED, ch));
        s->vexplicit[v] = 1;
    } else if (rank > 0 && dims[0] != s->unlim && drng_chance(r, 20)) {
        BOTH(*fails, "def_var_chunking contiguous",
             nc_def_var_chunking(ids[0], v, NC_CONTIGUOUS, NULL),
             ncs_def_var_chunking(ids[1], v, NCS_CONTIGUOUS, NULL));
        s->vexplicit[v] = 1;
        if (!early)
            random_numerics(r, s, ids, v, fails);
        return v;
    }
    if (rank > 0) {
        unsigned f = drng_below(r, 5);
        if (f == 4 && !zstd_ok)
            f = 0;
        if (f != 0)
            s->vexplicit[v] = 1;   /* filters make a variable chunked */
        if (f == 1 || f == 3) {
            int sh = (int)drng_below(r, 2), lv = 1 + (int)drng_below(r, 9);
            BOTH(*fails, "def_var_deflate", nc_def_var_deflate(ids[0], v, sh, 1, lv),
                 ncs_def_var_deflate(ids[1], v, sh, 1, lv));
        }
        if (f == 2 || f == 3)
            BOTH(*fails, "def_var_fletcher32", nc_def_var_fletcher32(ids[0], v, 1),
                 ncs_def_var_fletcher32(ids[1], v, 1));
        if (f == 4 && zstd_ok) {
            int lv = 1 + (int)drng_below(r, 9);
            BOTH(*fails, "def_var_zstd", nc_def_var_zstandard(ids[0], v, lv),
                 ncs_def_var_zstd(ids[1], v, lv));
        }
    }
    if (!early)
        random_numerics(r, s, ids, v, fails);
    /* attributes, sometimes a _FillValue.  netCDF-C 4.9.0 does not keep
     * the order of the attributes of a variable defined after a reopen
     * (doc/v3.md, "Where netCDF-C is wrong"): such a variable has one
     * attribute at most, its quantization's included */
    room = !s->reopened ? 99 : s->vquant[v] != NC_NOQUANTIZE ? 0 : 1;
    if (room > 0 && drng_chance(r, 30) && t != NC_CHAR) {
        unsigned char fv[8];
        dt_store(t, fv, gval(t, v, 999, 7));
        int a = nc_put_att(ids[0], v, "_FillValue", t, 1, fv);
        int b = nc4_ncslab.put_att(ids[1], v, "_FillValue", t, 1, fv);
        BOTH(*fails, "put_att _FillValue", a, b);
        s->vfill[v] = a == 0 && b == 0;
        room--;
    }
    for (unsigned a = drng_below(r, 3); a > 0 && room-- > 0; a--) {
        int at = ctypes[drng_below(r, 6)];
        size_t len = 1 + drng_below(r, 4);
        unsigned char buf[64];
        char an[16];
        for (size_t k = 0; k < len; k++)
            dt_store(at, buf + k * dt_size(at), gval(at, v, k, (int)a));
        snprintf(an, sizeof an, "att%u", a);
        BOTH(*fails, "put_att", nc_put_att(ids[0], v, an, at, len, buf),
             nc4_ncslab.put_att(ids[1], v, an, at, len, buf));
    }
    return v;
}

/* Whether netCDF-C 4.9.0 would write variable v byte-swapped: a
 * big-endian one (of more than one byte) of a file opened again, written
 * from any memory type (doc/v3.md, "Where netCDF-C is wrong"). */
static int swapped_by_netcdf(const rschema *s, int v)
{
    return s->vreopened[v] && s->vendian[v] == NC_ENDIAN_BIG && dt_size(s->vtype[v]) > 1;
}

/* One random put (vara or vars) through both libraries. */
static void random_put(drng *r, const rschema *s, const int *ids, int *fails)
{
    int v = (int)drng_below(r, (unsigned)s->nvars), rank = s->vrank[v], t = s->vtype[v];
    size_t start[RMAXR], count[RMAXR], n = 1;
    ptrdiff_t stride[RMAXR];
    int strided = drng_chance(r, 30);
    unsigned char *buf;
    char what[128];
    if (swapped_by_netcdf(s, v))
        return;
    for (int k = 0; k < rank; k++) {
        int d = s->vdims[v][k];
        size_t len = d == s->unlim ? cur_len(ids[0], d) + 3 : s->dimlen[d];
        stride[k] = strided ? 1 + (ptrdiff_t)drng_below(r, 3) : 1;
        start[k] = drng_below(r, (unsigned)len);
        count[k] = 1 + drng_below(r, (unsigned)((len - start[k] + (size_t)stride[k] - 1) /
                                                (size_t)stride[k]));
        if (d == s->unlim && drng_chance(r, 5))
            count[k] = 0;
        n *= count[k];
    }
    buf = malloc(n * 8 + 8);
    ck_assert(buf != NULL);
    for (size_t k = 0; k < n; k++)
        dt_store(t, buf + k * dt_size(t), gval(t, v, k, (int)drng_below(r, 4)));
    snprintf(what, sizeof what, "put v%d (%s rank %d%s)", v, dt_name(t), rank,
             strided ? ", strided" : "");
    {
        int ra = nc_put_vars(ids[0], v, start, count, strided ? stride : NULL, buf);
        int rb = ncs_put(ids[1], v, start, count, strided ? stride : NULL, NULL, NCS_NAT, buf);
        trace_call(what, rank, start, count, strided ? stride : NULL, ra, rb);
        BOTH(*fails, what, ra, rb);
    }
    free(buf);
}

/* One random get (vara or vars, possibly at or past the record count)
 * through both libraries: equal codes, and equal values when it worked. */
static void random_get(drng *r, const rschema *s, const int *ids, int *fails)
{
    int v = (int)drng_below(r, (unsigned)s->nvars), rank = s->vrank[v], t = s->vtype[v];
    size_t start[RMAXR], count[RMAXR], n = 1;
    ptrdiff_t stride[RMAXR];
    int strided = drng_chance(r, 30), ra, rb;
    unsigned char *a, *b;
    char what[128];
    for (int k = 0; k < rank; k++) {
        int d = s->vdims[v][k];
        size_t len = d == s->unlim ? cur_len(ids[0], d) + 2 : s->dimlen[d];
        stride[k] = strided ? 1 + (ptrdiff_t)drng_below(r, 3) : 1;
        start[k] = drng_below(r, (unsigned)len);
        count[k] = drng_below(r, (unsigned)(len - start[k] + 1));
        if (d != s->unlim && count[k] == 0)
            count[k] = 1;
        if (strided && count[k] > 0)
            count[k] = (count[k] + (size_t)stride[k] - 1) / (size_t)stride[k];
        n *= count[k];
    }
    a = malloc(n * 8 + 8);
    b = malloc(n * 8 + 8);
    ck_assert(a != NULL && b != NULL);
    memset(a, 0xcd, n * 8 + 8);
    memset(b, 0xcd, n * 8 + 8);
    ra = nc_get_vars(ids[0], v, start, count, strided ? stride : NULL, a);
    rb = ncs_get(ids[1], v, start, count, strided ? stride : NULL, NULL, NCS_NAT, b);
    snprintf(what, sizeof what, "get v%d (%s rank %d%s)", v, dt_name(t), rank,
             strided ? ", strided" : "");
    trace_call(what, rank, start, count, strided ? stride : NULL, ra, rb);
    if (rank > 0 && s->vdims[v][0] == s->unlim) {
        /* past the record count ncslab answers as classic files do
         * (check_chunked compares that); netCDF-C's netCDF-4 code differs */
        size_t nrec = cur_len(ids[0], s->unlim);
        size_t last = count[0] ? start[0] + (count[0] - 1) * (size_t)stride[0] + 1 : start[0];
        if (last > nrec || start[0] >= nrec)
            ra = rb;
    }
    BOTH(*fails, what, ra, rb);
    /* netCDF-C 4.9.0's strided reads past a variable's own extent are all
     * fill values (see compare_reads); only unstrided values are compared */
    if (ra == 0 && rb == 0 && !strided && memcmp(a, b, n * dt_size(t)) != 0) {
        printf("  MISMATCH %s: values differ\n", what);
        (*fails)++;
    }
    free(a);
    free(b);
}

/* ---- typed requests on float and double variables ------------------------------ */

/* The fill value of float or double variable v (values equal to it are
 * written as given, unquantized). */
static double fill_of(const rschema *s, int v)
{
    if (s->vfill[v])
        return (double)gval(s->vtype[v], v, 999, 7);
    return s->vtype[v] == NC_FLOAT ? NC_FILL_FLOAT : NC_FILL_DOUBLE;
}

/* One value to write to float or double variable v: many significant bits
 * over a spread of magnitudes, with zeros of both signs, the fill value,
 * subnormals, values past float's range, infinities and NaN. */
static double qval(drng *r, const rschema *s, int v)
{
    int t = s->vtype[v];
    unsigned c = drng_below(r, 48);
    double m;
    switch (c) {
    case 0: return 0.0;
    case 1: return -0.0;
    case 2: case 3: return fill_of(s, v);
    case 4: return t == NC_FLOAT ? 1.5e-40 : 2.5e-310;
    case 5: return t == NC_FLOAT ? -3.0e38 : 1.0e300;
    default: break;
    }
    /* netCDF-C 4.9.0's granular BitRound turns infinities and NaN into
     * zeros (doc/v3.md, "Where netCDF-C is wrong") */
    if (c < 9 && s->vquant[v] != NC_QUANTIZE_GRANULARBR)
        return c == 6 ? INFINITY : c == 7 ? -INFINITY : NAN;
    m = (double)(drng_next(r) >> 11) / 9007199254740992.0 + 0.5;
    return (drng_chance(r, 50) ? -m : m) * ldexp(1.0, (int)drng_below(r, 80) - 40);
}

/* Element k of a buffer of memory type mt holding x (int: a random int;
 * float: x, or float's largest where x is finite past its range). */
static void qstore(drng *r, int mt, unsigned char *buf, size_t k, double x)
{
    if (mt == NC_INT) {
        int i = (int)drng_below(r, 4000001) - 2000000;
        memcpy(buf + k * 4, &i, 4);
    } else if (mt == NC_FLOAT) {
        float f = isfinite(x) && fabs(x) > 3.4e38 ? (float)copysign(3.4e38, x) : (float)x;
        memcpy(buf + k * 4, &f, 4);
    } else {
        memcpy(buf + k * 8, &x, 8);
    }
}

/* A request of kind (DK_*) on variable v: start, count, stride and imap
 * (natural or transposed); puts reach up to 3 records past the count, gets
 * stay within it.  Returns the number of elements. */
static size_t random_slab(drng *r, const rschema *s, const int *ids, int v, int kind, int put,
                          size_t *start, size_t *count, ptrdiff_t *stride, ptrdiff_t *imap)
{
    int rank = s->vrank[v], fortran = drng_chance(r, 50);
    size_t n = 1;
    for (int k = 0; k < rank; k++) {
        int d = s->vdims[v][k];
        size_t len = d == s->unlim ? cur_len(ids[0], d) + (put ? 3 : 0) : s->dimlen[d];
        stride[k] = kind >= DK_VARS ? 1 + (ptrdiff_t)drng_below(r, 3) : 1;
        if (kind == DK_VAR) {
            start[k] = 0;
            count[k] = d == s->unlim ? cur_len(ids[0], d) : len;
        } else {
            start[k] = drng_below(r, (unsigned)len);
            count[k] = kind == DK_VAR1 ? 1
                     : 1 + drng_below(r, (unsigned)((len - start[k] + (size_t)stride[k] - 1) /
                                                    (size_t)stride[k]));
        }
        n *= count[k];
    }
    for (int k = 0; k < rank; k++) {
        /* C order of the counts, or the transpose (the first index fastest) */
        ptrdiff_t step = 1;
        if (fortran)
            for (int j = 0; j < k; j++)
                step *= (ptrdiff_t)count[j];
        else
            for (int j = k + 1; j < rank; j++)
                step *= (ptrdiff_t)count[j];
        imap[k] = step;
    }
    return n;
}

static const int qmemtypes[] = {NC_NAT, NC_FLOAT, NC_DOUBLE, NC_INT};

/* A float or double variable for a typed request, quantized ones three
 * times as often; -1 when there is none. */
static int pick_float_var(drng *r, const rschema *s)
{
    int cand[3 * RMAXV], nc = 0;
    for (int v = 0; v < s->nvars; v++)
        if (s->vtype[v] == NC_FLOAT || s->vtype[v] == NC_DOUBLE)
            for (int k = s->vquant[v] ? 3 : 1; k > 0; k--)
                cand[nc++] = v;
    return nc ? cand[drng_below(r, (unsigned)nc)] : -1;
}

/* One put of any family (var, var1, vara, vars, varm) from float, double,
 * int or the variable's own memory type to a float or double variable,
 * through both libraries. */
static void random_put_typed(drng *r, const rschema *s, const int *ids, int *fails)
{
    int v = pick_float_var(r, s), kind, mt, t, ra, rb;
    size_t start[RMAXR], count[RMAXR], n;
    ptrdiff_t stride[RMAXR], imap[RMAXR];
    unsigned char *buf;
    char what[128];
    if (v < 0)
        return;
    t = s->vtype[v];
    kind = (int)drng_below(r, DK_NKINDS);
    mt = qmemtypes[drng_below(r, 4)];
    if (swapped_by_netcdf(s, v))
        return;
#ifndef V3SHIM_H
    /* the native API quantizes a mapped request as one, BitGroom's
     * alternation following each value's index in it (doc/chunking.md);
     * netCDF-C's dispatch layer puts a mapped request in pieces, each
     * starting the alternation again.  The v3 layer makes netCDF-C's
     * pieces (lib/compat/v3/v3_data.c) and diff_v3_nc4 compares them;
     * here the slab goes through the strided call */
    if (kind == DK_VARM && s->vquant[v] == NC_QUANTIZE_BITGROOM)
        kind = DK_VARS;
#endif
    n = random_slab(r, s, ids, v, kind, 1, start, count, stride, imap);
    buf = malloc(n * 8 + 8);
    ck_assert(buf != NULL);
    for (size_t k = 0; k < n; k++)
        qstore(r, mt == NC_NAT ? t : mt, buf, k, qval(r, s, v));
    snprintf(what, sizeof what, "put %s v%d (%s rank %d quantize %d) from %s", dk_name(kind), v,
             dt_name(t), s->vrank[v], s->vquant[v], dt_name(mt));
    ra = dnc_put(ids[0], v, kind, start, count, stride, imap, mt, buf);
    rb = dns_put(ids[1], v, kind, start, count, stride, imap, mt, buf);
    trace_call(what, s->vrank[v], start, count, kind >= DK_VARS ? stride : NULL, ra, rb);
    BOTH(*fails, what, ra, rb);
    free(buf);
}

/* One get of any family into float, double, int or the variable's own
 * memory type from a float or double variable, within the records there
 * are: equal codes, and equal values where both worked and nothing was
 * strided (see random_get). */
static void random_get_typed(drng *r, const rschema *s, const int *ids, int *fails)
{
    int v = pick_float_var(r, s), kind, mt, ra, rb, strided = 0;
    size_t start[RMAXR], count[RMAXR], n, sz;
    ptrdiff_t stride[RMAXR], imap[RMAXR];
    unsigned char *a, *b;
    char what[128];
    if (v < 0 || (s->vrank[v] > 0 && s->vdims[v][0] == s->unlim && cur_len(ids[0], s->unlim) == 0))
        return;
    kind = (int)drng_below(r, DK_NKINDS);
    mt = qmemtypes[drng_below(r, 4)];
    /* netCDF-C 4.9.0 quantizes again what it reads from a quantized
     * variable into another memory type, integers as if they were doubles
     * (doc/v3.md, "Where netCDF-C is wrong") */
    if (s->vquant[v] != NC_NOQUANTIZE && mt != s->vtype[v])
        mt = NC_NAT;
    sz = dt_size(mt == NC_NAT ? s->vtype[v] : mt);
    n = random_slab(r, s, ids, v, kind, 0, start, count, stride, imap);
    for (int k = 0; k < s->vrank[v]; k++)
        strided |= stride[k] != 1;
    a = malloc(n * 8 + 8);
    b = malloc(n * 8 + 8);
    ck_assert(a != NULL && b != NULL);
    memset(a, 0xcd, n * 8 + 8);
    memset(b, 0xcd, n * 8 + 8);
    ra = dnc_get(ids[0], v, kind, start, count, stride, imap, mt, a);
    rb = dns_get(ids[1], v, kind, start, count, stride, imap, mt, b);
    snprintf(what, sizeof what, "get %s v%d (%s rank %d quantize %d) into %s", dk_name(kind), v,
             dt_name(s->vtype[v]), s->vrank[v], s->vquant[v], dt_name(mt));
    trace_call(what, s->vrank[v], start, count, kind >= DK_VARS ? stride : NULL, ra, rb);
    BOTH(*fails, what, ra, rb);
    if ((ra == 0 || ra == NC_ERANGE) && ra == rb && !strided && memcmp(a, b, n * sz) != 0) {
        size_t k = 0;
        char va[64], vb[64];
        while (k < n && memcmp(a + k * sz, b + k * sz, sz) == 0)
            k++;
        dt_format(mt == NC_NAT ? s->vtype[v] : mt, a + k * sz, va, sizeof va);
        dt_format(mt == NC_NAT ? s->vtype[v] : mt, b + k * sz, vb, sizeof vb);
        printf("  MISMATCH %s: element %zu of %zu: netCDF-C %s, ncslab %s\n", what, k, n, va,
               vb);
        (*fails)++;
    }
    free(a);
    free(b);
}

/* Byte order or quantization asked for a variable already laid out (or a
 * varid that does not exist): both libraries refuse it alike. */
static void late_numerics(drng *r, rschema *s, const int *ids, int *fails)
{
    int v = (int)drng_below(r, (unsigned)s->nvars + 1);
    if (drng_chance(r, 50))
        random_endian(r, s, ids, v, fails);
    else
        random_quantize(r, s, ids, v, 0, fails);
}

/* What one library answers on a variable's quantization and byte order:
 * the two codes, mode, nsd and order. */
typedef struct numerics {
    int rq, re, mode, nsd, order;
} numerics;

/* Every variable of a file, whole, as read by netCDF-C (lib 0) or ncslab
 * (lib 1): malloc'd buffers in out[v], status in rc[v], quantization and
 * byte order in num[v]; the file is open in one library at a time. */
static int read_all(const char *path, int use_ns, unsigned char **out, int *rc, size_t *nbytes,
                    numerics *num)
{
    int id, nvars = 0, s;
    s = use_ns ? ncs_open(path, NCS_NOWRITE, &id) : nc_open(path, NC_NOWRITE, &id);
    if (s != 0)
        return s;
    if (use_ns)
        ncs_inq_nvars(id, &nvars);
    else
        nc_inq_nvars(id, &nvars);
    for (int v = 0; v < nvars && v < RMAXV; v++) {
        int t = 0, nd = 0, dims[NC_MAX_VAR_DIMS];
        size_t n = 1, cnt[NC_MAX_VAR_DIMS];
        if (use_ns)
            ncs_inq_var(id, v, NULL, &t, &nd, dims, NULL);
        else
            nc_inq_var(id, v, NULL, &t, &nd, dims, NULL);
        for (int k = 0; k < nd; k++) {
            if (use_ns)
                ncs_inq_dimlen(id, dims[k], &cnt[k]);
            else
                nc_inq_dimlen(id, dims[k], &cnt[k]);
            n *= cnt[k];
        }
        nbytes[v] = n * dt_size(t);
        out[v] = malloc(n * 8 + 8);
        ck_assert(out[v] != NULL);
        memset(out[v], 0xee, n * 8 + 8);
        rc[v] = use_ns ? ncs_get(id, v, NULL, cnt, NULL, NULL, NCS_NAT, out[v])
                    : nc_get_vara(id, v, (size_t[NC_MAX_VAR_DIMS]){0}, cnt, out[v]);
        num[v].mode = num[v].nsd = num[v].order = -9;
        num[v].rq = use_ns ? ncs_inq_var_quantize(id, v, &num[v].mode, &num[v].nsd)
                           : nc_inq_var_quantize(id, v, &num[v].mode, &num[v].nsd);
        num[v].re = use_ns ? ncs_inq_var_endian(id, v, &num[v].order)
                           : nc_inq_var_endian(id, v, &num[v].order);
    }
    if (use_ns)
        ncs_close(id);
    else
        nc_close(id);
    return 0;
}

/* Reads both files with both libraries and compares every variable's
 * bytes, quantization and byte order with netCDF-C's reading of its own
 * file; checks that netCDF-C sees the same storage settings in both
 * files. */
static void cross_read(const char *pnc, const char *pns, const rschema *sc, int *fails)
{
    static const char *const who[4] = {"netCDF-C reading netCDF-C's file",
                                       "ncslab reading netCDF-C's file",
                                       "netCDF-C reading ncslab's file",
                                       "ncslab reading ncslab's file"};
    unsigned char *b[4][RMAXV] = {{0}};
    int rc[4][RMAXV], s;
    size_t nb[4][RMAXV];
    numerics num[4][RMAXV];
    for (int l = 0; l < 4; l++) {
        s = read_all(l < 2 ? pnc : pns, l % 2, b[l], rc[l], nb[l], num[l]);
        if (s != 0) {
            printf("  %s: open failed: %d (%s)\n", who[l], s, nc_strerror(s));
            (*fails)++;
            goto done;
        }
    }
    for (int v = 0; v < sc->nvars; v++)
        for (int l = 1; l < 4; l++)
            if (rc[l][v] != rc[0][v] || nb[l][v] != nb[0][v] ||
                memcmp(b[l][v], b[0][v], nb[0][v]) != 0) {
                size_t k = 0;
                while (k < nb[0][v] && b[l][v][k] == b[0][v][k])
                    k++;
                printf("  var %d: %s: status %d (reference %d), %zu bytes (reference %zu), "
                       "first differing byte %zu\n", v, who[l], rc[l][v], rc[0][v],
                       nb[l][v], nb[0][v], k);
                (*fails)++;
            }
    /* quantization and byte order: each library in each file answers as
     * netCDF-C does in its own */
    for (int v = 0; v < sc->nvars; v++)
        for (int l = 1; l < 4; l++) {
            const numerics *x = &num[l][v], *ref = &num[0][v];
            if (x->rq != ref->rq || x->re != ref->re || x->mode != ref->mode ||
                x->nsd != ref->nsd || x->order != ref->order) {
                printf("  var %d: %s: quantize %d mode %d nsd %d, endian %d order %d; "
                       "reference %d %d %d, %d %d\n", v, who[l], x->rq, x->mode, x->nsd,
                       x->re, x->order, ref->rq, ref->mode, ref->nsd, ref->re, ref->order);
                (*fails)++;
            }
        }
    {
        /* storage settings as netCDF-C sees them: filters always the
         * same; the storage kind where the sequence chose it (by default
         * netCDF-C makes fixed-size unfiltered variables contiguous,
         * ncslab chunks everything, doc/chunking.md) */
        int h[2], st[2], sh[2], de[2], lv[2], fl[2];
        size_t ch[2][NC_MAX_VAR_DIMS];
        ck_assert_int_eq(nc_open(pnc, NC_NOWRITE, &h[0]), 0);
        ck_assert_int_eq(nc_open(pns, NC_NOWRITE, &h[1]), 0);
        for (int v = 0; v < sc->nvars; v++) {
            for (int l = 0; l < 2; l++) {
                int r1 = nc_inq_var_chunking(h[l], v, &st[l], ch[l]);
                int r2 = nc_inq_var_deflate(h[l], v, &sh[l], &de[l], &lv[l]);
                int r3 = nc_inq_var_fletcher32(h[l], v, &fl[l]);
                if (r1 || r2 || r3) {
                    printf("  var %d: netCDF-C cannot inquire the storage in %s: %d %d %d\n",
                           v, l ? "ncslab's file" : "its own file", r1, r2, r3);
                    (*fails)++;
                }
            }
            if ((sc->vexplicit[v] && st[0] != st[1]) || sh[0] != sh[1] || de[0] != de[1] ||
                lv[0] != lv[1] || fl[0] != fl[1]) {
                printf("  var %d: netCDF-C sees storage %d/%d shuffle %d/%d deflate %d/%d "
                       "level %d/%d fletcher32 %d/%d (netCDF-C's file / ncslab's)\n", v,
                       st[0], st[1], sh[0], sh[1], de[0], de[1], lv[0], lv[1], fl[0], fl[1]);
                (*fails)++;
            }
        }
        nc_close(h[0]);
        nc_close(h[1]);
    }
done:
    for (int l = 0; l < 4; l++)
        for (int v = 0; v < RMAXV; v++)
            free(b[l][v]);
}

static int run_sequence(uint64_t seed, int iter)
{
    drng r;
    rschema s;
    int ids[2], fails = 0, ndims;
    char pnc[512], pns[512];
    drng_seed(&r, seed * 1000 + (uint64_t)iter);
    memset(&s, 0, sizeof s);
    {
        char what[64];
        snprintf(what, sizeof what, "random_s%llu", (unsigned long long)seed);
        tmp_path(pnc, sizeof pnc, what, 0, iter);
        tmp_path(pns, sizeof pns, what, 1, iter);
    }
    /* half the sequences quantize; netCDF-C's file is then not marked
     * classic-model (see random_quantize) */
    s.nc_classic = drng_chance(&r, 50);
    ck_assert_int_eq(nc_create(pnc, NC_CLOBBER | (s.nc_classic ? NC4 : NC_NETCDF4), &ids[0]), 0);
    ck_assert_int_eq(ncs_create(pns, NCS_CLOBBER | NCS_NETCDF4 | NCS_CLASSIC_MODEL, &ids[1]), 0);

    ndims = 1 + (int)drng_below(&r, RMAXD - 1);
    s.unlim = drng_chance(&r, 70) ? (int)drng_below(&r, (unsigned)ndims) : -1;
    for (int d = 0; d < ndims; d++) {
        char name[16];
        int id[2];
        s.dimlen[d] = d == s.unlim ? 0 : 1 + drng_below(&r, 7);
        snprintf(name, sizeof name, "d%d", d);
        BOTH(fails, "def_dim", nc_def_dim(ids[0], name, s.dimlen[d], &id[0]),
             ncs_def_dim(ids[1], name, s.dimlen[d], &id[1]));
    }
    s.ndims = ndims;
    for (unsigned a = drng_below(&r, 3); a > 0; a--) {
        char an[16];
        snprintf(an, sizeof an, "title%u", a);
        BOTH(fails, "put_att global", nc_put_att(ids[0], NC_GLOBAL, an, NC_CHAR, 5, "hello"),
             nc4_ncslab.put_att(ids[1], NCS_GLOBAL, an, NCS_CHAR, 5, "hello"));
    }
    for (unsigned nv = 1 + drng_below(&r, 5); nv > 0 && s.nvars < RMAXV; nv--) {
        char dn[16];
        snprintf(dn, sizeof dn, "d%u", drng_below(&r, (unsigned)ndims));
        int coord = drng_chance(&r, 25) && ncs_inq_varid(ids[1], dn, NULL) != 0;
        def_random_var(&r, &s, ids, coord ? dn : NULL, &fails);
    }
    BOTH(fails, "enddef", nc_enddef(ids[0]), ncs_enddef(ids[1]));
    for (unsigned op = 4 + drng_below(&r, 10); op > 0 && fails == 0; op--) {
        unsigned what = drng_below(&r, 30);
        if (s.nvars > 0 && what < 7) {
            random_put(&r, &s, ids, &fails);
        } else if (s.nvars > 0 && what < 13) {
            for (unsigned k = 1 + drng_below(&r, 3); k > 0 && fails == 0; k--)
                random_put_typed(&r, &s, ids, &fails);
        } else if (s.nvars > 0 && what < 18) {
            random_get(&r, &s, ids, &fails);
        } else if (s.nvars > 0 && what < 21) {
            random_get_typed(&r, &s, ids, &fails);
        } else if (s.nvars > 0 && what < 22) {
            check_numerics(ids, (int)drng_below(&r, (unsigned)s.nvars), "in data mode", &fails);
        } else if (s.nvars > 0 && what < 23) {
            late_numerics(&r, &s, ids, &fails);
        } else if (what < 25) {
            BOTH(fails, "sync", nc_sync(ids[0]), ncs_sync(ids[1]));
        } else if (what < 27) {
            /* the files closed and opened again: quantization and byte
             * order come back from them */
            BOTH(fails, "close to reopen", nc_close(ids[0]), ncs_close(ids[1]));
            BOTH(fails, "reopen", nc_open(pnc, NC_WRITE, &ids[0]),
                 ncs_open(pns, NCS_WRITE, &ids[1]));
            s.reopened = 1;
            for (int v = 0; v < s.nvars && fails == 0; v++) {
                s.vreopened[v] = 1;
                check_numerics(ids, v, "after reopen", &fails);
            }
        } else if (s.nvars < RMAXV) {
            BOTH(fails, "redef", nc_redef(ids[0]), ncs_redef(ids[1]));
            if (s.nvars > 0 && drng_chance(&r, 30))
                late_numerics(&r, &s, ids, &fails);
            def_random_var(&r, &s, ids, NULL, &fails);
            BOTH(fails, "enddef", nc_enddef(ids[0]), ncs_enddef(ids[1]));
        }
    }
    BOTH(fails, "close", nc_close(ids[0]), ncs_close(ids[1]));
    if (fails == 0 && !same_dump("", pnc, pns))
        fails++;
    if (fails == 0)
        cross_read(pnc, pns, &s, &fails);
    if (fails != 0)
        printf("  (seed %llu iteration %d: files %s and %s kept)\n", (unsigned long long)seed,
               iter, pnc, pns);
    else {
        unlink(pnc);
        unlink(pns);
    }
    return fails;
}

#define ITERS 25

START_TEST(test_random)
{
    int fails = 0, bad = 0;
    for (int it = 0; it < ITERS; it++) {
        int f = run_sequence(seeds[_i], it);
        fails += f;
        bad += f != 0;
    }
    ck_assert_msg(fails == 0, "seed %llu: %d of %d random sequences differ (see the log)",
                  (unsigned long long)seeds[_i], bad, ITERS);
}
END_TEST

/* ---- files netCDF-C writes --------------------------------------------------------- */
typedef struct pipeline {
    const char *what;
    int shuffle, deflate, fletcher32, zstd, bigendian;
} pipeline;

static const pipeline pipelines[] = {
    {"no filter", 0, 0, 0, 0, 0},
    {"deflate 1", 0, 1, 0, 0, 0},
    {"shuffle + deflate 9", 1, 9, 0, 0, 0},
    {"fletcher32", 0, 0, 1, 0, 0},
    {"shuffle + deflate 4 + fletcher32", 1, 4, 1, 0, 0},
    {"shuffle only", 1, 0, 0, 0, 0},
    {"zstd 3", 0, 0, 0, 3, 0},
    {"shuffle + zstd 5 + fletcher32", 1, 0, 1, 5, 0},
    {"big-endian", 0, 0, 0, 0, 1},
    {"big-endian, shuffle + deflate 2 + fletcher32", 1, 2, 1, 0, 1},
};

#define WI 7
#define WJ 9
#define WREC 5

/* Variables per type: f (WI x WJ, chunks 3 x 4), r (rec x WJ, chunks 2 x 5,
 * WREC records), d (WI x WJ, netCDF-C's default chunks), o (1-D, WJ).
 *
 * Reads variable v of the file whole (its own type) with netCDF-C, then
 * whole and strided across chunks (as double) with ncslab, the file open in
 * one library at a time; the strided values must be netCDF-C's whole-read
 * values at those indices.  (netCDF-C 4.9.0's own nc_get_vars returns only
 * fill values when a request reaches past a record variable's own extent,
 * so it is not the reference here.)  Returns the number of differences. */
static int compare_reads(const char *path, int v, const char *what)
{
    size_t cnt[2] = {1, 1}, n = 1, st[2] = {1, 1}, ct[2] = {0, 0};
    ptrdiff_t sd[2] = {2, 3};
    int nd, t, dims[2], fails = 0, id, r[2][2];
    unsigned char *a[2];
    double da[2][64];
    ck_assert_int_eq(nc_open(path, NC_NOWRITE, &id), 0);
    nc_inq_var(id, v, NULL, &t, &nd, dims, NULL);
    for (int k = 0; k < nd; k++) {
        nc_inq_dimlen(id, dims[k], &cnt[k]);
        n *= cnt[k];
    }
    if (nd == 2 && cnt[0] > 1) {
        ct[0] = cnt[0] / 2;
        ct[1] = (cnt[1] - 1 + 2) / 3;
    }
    for (int l = 0; l < 2; l++) {
        a[l] = calloc(n + 1, 8);
        ck_assert(a[l] != NULL);
        memset(da[l], 0, sizeof da[l]);
    }
    r[0][0] = nc_get_vara(id, v, (size_t[2]){0, 0}, cnt, a[0]);
    r[0][1] = 0;
    for (size_t i = 0; i < ct[0] && t != NC_CHAR; i++)
        for (size_t j = 0; j < ct[1]; j++) {
            size_t lin = (st[0] + i * (size_t)sd[0]) * cnt[1] + st[1] + j * (size_t)sd[1];
            da[0][i * ct[1] + j] = (double)dt_load(t, a[0] + lin * dt_size(t));
        }
    nc_close(id);
    {
        int s = ncs_open(path, NCS_NOWRITE, &id);
        ck_assert_msg(s == 0, "%s: ncslab cannot open netCDF-C's file %s: %d (%s)", what,
                      path, s, ncs_strerror(s));
    }
    r[1][0] = ncs_get(id, v, NULL, cnt, NULL, NULL, NCS_NAT, a[1]);
    r[1][1] = ct[0] && t != NC_CHAR ? ncs_get(id, v, st, ct, sd, NULL, NCS_DOUBLE, da[1]) : 0;
    ncs_close(id);
    if (r[0][0] != r[1][0] || memcmp(a[0], a[1], n * dt_size(t)) != 0) {
        size_t k = 0;
        while (k < n * dt_size(t) && a[0][k] == a[1][k])
            k++;
        printf("  %s: var %d (%s): netCDF-C %d, ncslab %d, first differing byte %zu of "
               "%zu\n", what, v, dt_name(t), r[0][0], r[1][0], k, n * dt_size(t));
        fails++;
    }
    if (r[0][1] != r[1][1] || memcmp(da[0], da[1], sizeof da[0]) != 0) {
        printf("  %s: var %d (%s) strided as double: netCDF-C %d, ncslab %d, values %s\n",
               what, v, dt_name(t), r[0][1], r[1][1],
               memcmp(da[0], da[1], sizeof da[0]) ? "differ" : "equal");
        fails++;
    }
    free(a[0]);
    free(a[1]);
    return fails;
}

START_TEST(test_netcdf_written)
{
    const pipeline *p = &pipelines[_i];
    char path[512];
    int nc, ns, d[3], fails = 0, nvars;
    if (p->zstd && !zstd_ok) {
        printf("diff_nc4: netCDF-C has no zstd filter here; '%s' skipped\n", p->what);
        return;
    }
    tmp_path(path, sizeof path, "written", 0, _i);
    ck_assert_int_eq(nc_create(path, NC_CLOBBER | NC4, &nc), 0);
    nc_def_dim(nc, "t", NC_UNLIMITED, &d[0]);
    nc_def_dim(nc, "i", WI, &d[1]);
    nc_def_dim(nc, "j", WJ, &d[2]);
    for (size_t k = 0; k < 6; k++) {
        int t = ctypes[k], v;
        char name[16];
        const char *kinds = "frdo";
        for (int kind = 0; kind < 4; kind++) {
            int vd[2] = {kind == 1 ? d[0] : d[1], d[2]};
            int rank = kind == 3 ? 1 : 2;
            snprintf(name, sizeof name, "%c_%s", kinds[kind], dt_name(t));
            ck_assert_int_eq(nc_def_var(nc, name, t, rank, kind == 3 ? &d[2] : vd, &v), 0);
            if (kind == 0)
                ck_assert_int_eq(nc_def_var_chunking(nc, v, NC_CHUNKED, (size_t[2]){3, 4}), 0);
            if (kind == 1)
                ck_assert_int_eq(nc_def_var_chunking(nc, v, NC_CHUNKED, (size_t[2]){2, 5}), 0);
            if (p->shuffle || p->deflate)
                ck_assert_int_eq(nc_def_var_deflate(nc, v, p->shuffle, p->deflate > 0,
                                                    p->deflate), 0);
            if (p->zstd)
                ck_assert_int_eq(nc_def_var_zstandard(nc, v, p->zstd), 0);
            if (p->fletcher32)
                ck_assert_int_eq(nc_def_var_fletcher32(nc, v, 1), 0);
            if (p->bigendian && dt_size(t) > 1)
                ck_assert_int_eq(nc_def_var_endian(nc, v, NC_ENDIAN_BIG), 0);
            if (kind == 2 && t != NC_CHAR) {
                unsigned char fv[8];
                dt_store(t, fv, gval(t, 0, 5, 9));
                ck_assert_int_eq(nc_put_att(nc, v, "_FillValue", t, 1, fv), 0);
            }
        }
    }
    ck_assert_int_eq(nc_enddef(nc), 0);
    nc_inq_nvars(nc, &nvars);
    for (int v = 0; v < nvars; v++) {
        int t, nd;
        size_t st[2] = {0, 0}, ct[2] = {WI, WJ}, n;
        unsigned char buf[WREC * WI * WJ * 8];
        nc_inq_vartype(nc, v, &t);
        nc_inq_varndims(nc, v, &nd);
        if (v % 4 == 1)
            ct[0] = WREC;
        if (nd == 1)
            ct[0] = WJ;
        if (v % 4 == 2)
            ct[0] = 3;           /* d: rows 3.. never written (fill) */
        n = nd == 1 ? ct[0] : ct[0] * ct[1];
        for (size_t k = 0; k < n; k++)
            dt_store(t, buf + k * dt_size(t), gval(t, v, k, 0));
        ck_assert_int_eq(nc_put_vara(nc, v, st, ct, buf), 0);
    }
    ck_assert_int_eq(nc_close(nc), 0);

    /* ncslab reads what netCDF-C reads, and the settings netCDF-C wrote */
    for (int v = 0; v < nvars; v++)
        fails += compare_reads(path, v, p->what);
    {
        int s = ncs_open(path, NCS_NOWRITE, &ns);
        ck_assert_msg(s == 0, "%s: ncslab cannot open netCDF-C's file: %d (%s)", p->what, s,
                      ncs_strerror(s));
    }
    for (int v = 0; v < nvars; v++) {
        int sh = -1, de = -1, lv = -1, fl = -1, z = -1;
        ncs_inq_var_deflate(ns, v, &sh, &de, &lv);
        ncs_inq_var_fletcher32(ns, v, &fl);
        ncs_inq_var_zstd(ns, v, &z);
        if (sh != p->shuffle || lv != p->deflate || fl != p->fletcher32 || z != p->zstd) {
            printf("  %s: var %d settings read as shuffle %d level %d fletcher32 %d "
                   "zstd %d\n", p->what, v, sh, lv, fl, z);
            fails++;
        }
    }
    ncs_close(ns);

    /* ncslab writes into netCDF-C's file; netCDF-C reads the writes */
    {
        int s = ncs_open(path, NCS_WRITE, &ns);
        ck_assert_msg(s == 0, "%s: ncslab cannot open netCDF-C's file for writing: %d", p->what, s);
    }
    for (int v = 0; v < nvars; v++) {
        int t, nd;
        size_t st[2] = {1, 2}, ct[2] = {2, 3};
        unsigned char buf[64];
        ncs_inq_vartype(ns, v, &t);
        ncs_inq_varndims(ns, v, &nd);
        if (v % 4 == 1)
            st[0] = WREC;        /* adds record WREC and WREC+1 */
        for (size_t k = 0; k < 6; k++)
            dt_store(t, buf + k * dt_size(t), gval(t, v, k, 5));
        if (nd == 1) {
            st[0] = 2;
            ct[0] = 6;
        }
        {
            int s = ncs_put(ns, v, st, ct, NULL, NULL, NCS_NAT, buf);
            if (s != 0) {
                printf("  %s: ncslab put into var %d: %d (%s)\n", p->what, v, s,
                       ncs_strerror(s));
                fails++;
            }
        }
    }
    ck_assert_int_eq(ncs_close(ns), 0);
    ck_assert_int_eq(nc_open(path, NC_NOWRITE, &nc), 0);
    {
        size_t nrec = 0;
        nc_inq_dimlen(nc, d[0], &nrec);
        if (nrec != WREC + 2) {
            printf("  %s: netCDF-C sees %zu records after ncslab's appends, expected %d\n",
                   p->what, nrec, WREC + 2);
            fails++;
        }
    }
    nc_close(nc);
    for (int v = 0; v < nvars; v++)
        fails += compare_reads(path, v, "after ncslab's writes");
    if (fails == 0)
        unlink(path);
    ck_assert_msg(fails == 0, "%s: %d differences between ncslab and netCDF-C", p->what,
                  fails);
}
END_TEST

/* ---- dimension scales ---------------------------------------------------------------- */

static int count_in(const char *text, const char *what)
{
    int n = 0;
    for (const char *p = strstr(text, what); p != NULL; p = strstr(p + 1, what))
        n++;
    return n;
}

START_TEST(test_scales)
{
    char path[512], cmd[1024];
    int ncid, d[3], v[4], status = 0;
    char *text;
    tmp_path(path, sizeof path, "scales", 1, 0);
    ck_assert_int_eq(ncs_create(path, NCS_CLOBBER | NCS_NETCDF4 | NCS_CLASSIC_MODEL, &ncid), 0);
    ncs_def_dim(ncid, "time", NCS_UNLIMITED, &d[0]);
    ncs_def_dim(ncid, "lat", 3, &d[1]);
    ncs_def_dim(ncid, "lon", 4, &d[2]);
    ck_assert_int_eq(ncs_def_var(ncid, "lat", NCS_FLOAT, 1, &d[1], &v[0]), 0);  /* coordinate */
    ck_assert_int_eq(ncs_def_var(ncid, "temp", NCS_FLOAT, 3, d, &v[1]), 0);
    ck_assert_int_eq(ncs_def_var(ncid, "mask", NCS_BYTE, 1, &d[2], &v[2]), 0);
    ck_assert_int_eq(ncs_def_var(ncid, "series", NCS_INT, 1, &d[0], &v[3]), 0);
    ck_assert_int_eq(ncs_enddef(ncid), 0);
    ck_assert_int_eq(ncs_put1(ncid, v[3], (size_t[1]){2}, NCS_INT, &(int){7}), 0);
    ck_assert_int_eq(ncs_close(ncid), 0);

    snprintf(cmd, sizeof cmd, "h5dump -A '%s' 2>&1", path);
    text = nc4_run(cmd, &status);
    ck_assert(text != NULL);
    if (status != 0 && strstr(text, "not found") != NULL) {
        printf("diff_nc4: no h5dump; the H5DS checks still run\n");
    } else {
        /* time, lon: dimension-only scales; lat: the coordinate variable */
        ck_assert_msg(count_in(text, "\"DIMENSION_SCALE\"") == 3,
                      "h5dump -A shows %d CLASS \"DIMENSION_SCALE\", expected 3",
                      count_in(text, "\"DIMENSION_SCALE\""));
        ck_assert_msg(count_in(text, "ATTRIBUTE \"DIMENSION_LIST\"") == 3,
                      "h5dump -A shows %d DIMENSION_LIST attributes, expected 3 "
                      "(temp, mask, series)", count_in(text, "ATTRIBUTE \"DIMENSION_LIST\""));
        ck_assert_msg(count_in(text, "ATTRIBUTE \"REFERENCE_LIST\"") == 3,
                      "h5dump -A shows %d REFERENCE_LIST attributes, expected 3",
                      count_in(text, "ATTRIBUTE \"REFERENCE_LIST\""));
    }
    free(text);
    {
        /* each axis of each variable has exactly its dimension's scale */
        static const char *const vars[] = {"temp", "mask", "series"};
        static const char *const axes[3][3] = {
            {"time", "lat", "lon"}, {"lon", NULL, NULL}, {"time", NULL, NULL}};
        hid_t fid = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
        ck_assert(fid >= 0);
        for (int i = 0; i < 3; i++) {
            hid_t ds = H5Dopen2(fid, vars[i], H5P_DEFAULT);
            ck_assert(ds >= 0);
            for (int ax = 0; ax < 3 && axes[i][ax] != NULL; ax++) {
                hid_t sc = H5Dopen2(fid, axes[i][ax], H5P_DEFAULT);
                ck_assert(sc >= 0);
                ck_assert_msg(H5DSis_scale(sc) > 0, "%s is not a dimension scale", axes[i][ax]);
                ck_assert_msg(H5DSget_num_scales(ds, (unsigned)ax) == 1,
                              "%s axis %d has %d scales", vars[i], ax,
                              H5DSget_num_scales(ds, (unsigned)ax));
                ck_assert_msg(H5DSis_attached(ds, sc, (unsigned)ax) > 0,
                              "%s axis %d is not attached to %s", vars[i], ax, axes[i][ax]);
                H5Dclose(sc);
            }
            H5Dclose(ds);
        }
        H5Fclose(fid);
    }
    {
        /* and netCDF-C agrees on the shapes */
        int nc, nd, dims[3], vid;
        size_t len;
        ck_assert_int_eq(nc_open(path, NC_NOWRITE, &nc), 0);
        ck_assert_int_eq(nc_inq_varid(nc, "temp", &vid), 0);
        nc_inq_var(nc, vid, NULL, NULL, &nd, dims, NULL);
        ck_assert_int_eq(nd, 3);
        nc_inq_dimlen(nc, dims[0], &len);
        ck_assert_uint_eq(len, 3);
        nc_close(nc);
    }
    unlink(path);
}
END_TEST

/* ---- a filter ncslab does not implement ---------------------------------------------- */

START_TEST(test_foreign_filter)
{
    char path[512];
    int nc, ns, d[3], vn, vs, vz = -1, vr, fails = 0;
    unsigned so[2] = {2 /* H5Z_SO_INT */, 0 /* minbits: automatic */};
    unsigned int cfg = 0;
    int szip = H5Zfilter_avail(H5Z_FILTER_SZIP) > 0 &&
               H5Zget_filter_info(H5Z_FILTER_SZIP, &cfg) >= 0 &&
               (cfg & H5Z_FILTER_CONFIG_ENCODE_ENABLED);
    int data[WI * WJ];
    short sdata[WREC * WJ];
    tmp_path(path, sizeof path, "foreign", 0, 0);
    ck_assert_int_eq(nc_create(path, NC_CLOBBER | NC4, &nc), 0);
    nc_def_dim(nc, "t", NC_UNLIMITED, &d[0]);
    nc_def_dim(nc, "i", WI, &d[1]);
    nc_def_dim(nc, "j", WJ, &d[2]);
    ck_assert_int_eq(nc_def_var(nc, "nbit", NC_INT, 2, &d[1], &vn), 0);
    ck_assert_int_eq(nc_def_var_chunking(nc, vn, NC_CHUNKED, (size_t[2]){3, 4}), 0);
    ck_assert_int_eq(nc_def_var_filter(nc, vn, H5Z_FILTER_NBIT, 0, NULL), 0);
    ck_assert_int_eq(nc_def_var(nc, "scaleoffset", NC_SHORT, 2, (int[2]){d[0], d[2]}, &vs), 0);
    ck_assert_int_eq(nc_def_var_chunking(nc, vs, NC_CHUNKED, (size_t[2]){2, 4}), 0);
    ck_assert_int_eq(nc_def_var_filter(nc, vs, H5Z_FILTER_SCALEOFFSET, 2, so), 0);
    ck_assert_int_eq(nc_def_var(nc, "rec_nbit", NC_INT, 2, (int[2]){d[0], d[2]}, &vr), 0);
    ck_assert_int_eq(nc_def_var_filter(nc, vr, H5Z_FILTER_NBIT, 0, NULL), 0);
    if (szip) {
        unsigned sz[2] = {H5_SZIP_NN_OPTION_MASK, 8};
        ck_assert_int_eq(nc_def_var(nc, "szip", NC_INT, 2, &d[1], &vz), 0);
        if (nc_def_var_filter(nc, vz, H5Z_FILTER_SZIP, 2, sz) != 0)
            vz = -1;
    }
    ck_assert_int_eq(nc_enddef(nc), 0);
    for (int k = 0; k < WI * WJ; k++)
        data[k] = k * 37 - 1000;
    for (int k = 0; k < WREC * WJ; k++)
        sdata[k] = (short)(k * 11 - 200);
    ck_assert_int_eq(nc_put_var_int(nc, vn, data), 0);
    ck_assert_int_eq(nc_put_vara_short(nc, vs, (size_t[2]){0, 0}, (size_t[2]){WREC, WJ}, sdata), 0);
    ck_assert_int_eq(nc_put_vara_int(nc, vr, (size_t[2]){0, 0}, (size_t[2]){2, WJ}, data), 0);
    if (vz >= 0)
        ck_assert_int_eq(nc_put_var_int(nc, vz, data), 0);
    ck_assert_int_eq(nc_close(nc), 0);

    for (int pass = 0; pass < 2; pass++) {
        const char *what = pass ? "after ncslab's writes" : "netCDF-C's data";
        int s;
        fails += compare_reads(path, vn, what);
        fails += compare_reads(path, vs, what);
        fails += compare_reads(path, vr, what);
        if (vz >= 0)
            fails += compare_reads(path, vz, what);
        {
            /* records past rec_nbit's own extent read as fill, in both */
            int a[WJ], b[WJ], ra, rb;
            ck_assert_int_eq(nc_open(path, NC_NOWRITE, &nc), 0);
            ra = nc_get_vara_int(nc, vr, (size_t[2]){3, 0}, (size_t[2]){1, WJ}, a);
            nc_close(nc);
            s = ncs_open(path, NCS_NOWRITE, &ns);
            ck_assert_msg(s == 0, "ncslab cannot open a file with N-bit/scale-offset: %d (%s)",
                          s, ncs_strerror(s));
            rb = ncs_get(ns, vr, (size_t[2]){3, 0}, (size_t[2]){1, WJ}, NULL, NULL, NCS_INT, b);
            ncs_close(ns);
            if (ra != rb || (ra == 0 && memcmp(a, b, sizeof a) != 0)) {
                printf("  %s: rec_nbit record 3: netCDF-C %d, ncslab %d, a[0] %d b[0] %d\n",
                       what, ra, rb, a[0], b[0]);
                fails++;
            }
        }
        if (pass == 0) {
            int x[6] = {5, 6, 7, 8, 9, 10};
            short y[6] = {-5, -6, -7, -8, -9, -10};
            ck_assert_int_eq(ncs_open(path, NCS_WRITE, &ns), 0);
            s = ncs_put(ns, vn, (size_t[2]){1, 2}, (size_t[2]){2, 3}, NULL, NULL, NCS_INT, x);
            ck_assert_msg(s == 0, "ncslab put through HDF5's path: %d (%s)", s, ncs_strerror(s));
            s = ncs_put(ns, vs, (size_t[2]){WREC, 1}, (size_t[2]){2, 3}, NULL, NULL, NCS_SHORT, y);
            ck_assert_msg(s == 0, "ncslab put appending records through HDF5's path: %d (%s)", s,
                          ncs_strerror(s));
            s = ncs_put(ns, vr, (size_t[2]){4, 1}, (size_t[2]){1, 3}, (ptrdiff_t[2]){1, 2}, NULL,
                        NCS_INT, x);
            ck_assert_msg(s == 0, "ncslab strided put through HDF5's path: %d (%s)", s,
                          ncs_strerror(s));
            ck_assert_int_eq(ncs_close(ns), 0);
        }
    }
    if (fails == 0)
        unlink(path);
    ck_assert_msg(fails == 0, "%d differences reading through HDF5's own path", fails);
}
END_TEST

/* ---- storage call codes --------------------------------------------------------------- */

/* Two files, one per library, with the same variables: s (scalar), r
 * (record), f and c (fixed 1-D); big (70000 x 70000) only when asked. */
static void codes_files(char path[2][512], int *id, const char *what, int with_big)
{
    for (int l = 0; l < 2; l++) {
        int d[4], v;
        tmp_path(path[l], 512, what, l, 0);
        ck_assert_int_eq(libs[l]->create(path[l], NC_CLOBBER | NC4, &id[l]), 0);
        libs[l]->def_dim(id[l], "t", NC_UNLIMITED, &d[0]);
        libs[l]->def_dim(id[l], "d", 5, &d[1]);
        libs[l]->def_var(id[l], "s", NC_INT, 0, NULL, &v);
        libs[l]->def_var(id[l], "r", NC_INT, 2, d, &v);
        libs[l]->def_var(id[l], "f", NC_INT, 1, &d[1], &v);
        libs[l]->def_var(id[l], "c", NC_INT, 1, &d[1], &v);
        if (with_big) {
            libs[l]->def_dim(id[l], "b0", 70000, &d[2]);
            libs[l]->def_dim(id[l], "b1", 70000, &d[3]);
            libs[l]->def_var(id[l], "big", NC_INT, 2, &d[2], &v);
        }
    }
}

#define CALL2(what, fn, ...)                                                     \
    BOTH(fails, what, libs[0]->fn(id[0], ##__VA_ARGS__), libs[1]->fn(id[1], ##__VA_ARGS__))

/* Storage calls in define mode, in data mode and after a redef; each group
 * on fresh files so one difference does not cascade. */
START_TEST(test_storage_codes)
{
    char path[2][512];
    int id[2], fails = 0;
    size_t ch[2] = {1, 1}, six = 6, big[2] = {70000, 70000}, over[2] = {8, 1};

    codes_files(path, id, "codes_define", 0);
    CALL2("chunk a scalar", def_var_chunking, 0, NC_CHUNKED, ch);
    CALL2("contiguous scalar", def_var_chunking, 0, NC_CONTIGUOUS, NULL);
    CALL2("deflate a scalar", def_var_deflate, 0, 1, 1, 5);
    CALL2("fletcher32 on a scalar", def_var_fletcher32, 0, 1);
    CALL2("contiguous record variable", def_var_chunking, 1, NC_CONTIGUOUS, NULL);
    CALL2("record chunk 8", def_var_chunking, 1, NC_CHUNKED, over);
    CALL2("chunk past the dimension", def_var_chunking, 2, NC_CHUNKED, &six);
    CALL2("deflate level 10", def_var_deflate, 2, 0, 1, 10);
    CALL2("deflate level -1", def_var_deflate, 2, 0, 1, -1);
    CALL2("contiguous, then", def_var_chunking, 3, NC_CONTIGUOUS, NULL);
    CALL2("deflate on a contiguous variable", def_var_deflate, 3, 1, 1, 3);
    CALL2("fletcher32 on a bad varid", def_var_fletcher32, 99, 1);
    CALL2("chunk NC_GLOBAL", def_var_chunking, NC_GLOBAL, NC_CHUNKED, ch);
    {
        int st[2] = {-1, -1};
        size_t c[2] = {0, 0};
        BOTH(fails, "inq_var_chunking of c", nc_inq_var_chunking(id[0], 3, &st[0], &c[0]),
             ncs_inq_var_chunking(id[1], 3, &st[1], &c[1]));
        if (st[0] != st[1]) {
            printf("  MISMATCH storage of c after deflate on a contiguous variable: "
                   "netCDF-C %d, ncslab %d\n", st[0], st[1]);
            fails++;
        }
    }
    CALL2("enddef", enddef);
    CALL2("close", close);
    unlink(path[0]);
    unlink(path[1]);

    codes_files(path, id, "codes_late", 0);
    CALL2("enddef", enddef);
    CALL2("chunk in data mode", def_var_chunking, 2, NC_CHUNKED, ch);
    CALL2("deflate in data mode", def_var_deflate, 2, 0, 1, 1);
    CALL2("redef", redef);
    CALL2("chunk after enddef", def_var_chunking, 2, NC_CHUNKED, ch);
    CALL2("deflate after enddef", def_var_deflate, 2, 0, 1, 1);
    CALL2("fletcher32 after enddef", def_var_fletcher32, 2, 1);
    CALL2("close", close);
    unlink(path[0]);
    unlink(path[1]);

    codes_files(path, id, "codes_big", 1);
    CALL2("chunk of 16 GiB", def_var_chunking, 4, NC_CHUNKED, big);
    CALL2("enddef", enddef);
    CALL2("close", close);
    for (int l = 0; l < 2; l++)
        unlink(path[l]);
    ck_assert_msg(fails == 0, "%d storage calls answer differently from netCDF-C", fails);
}
END_TEST
#undef CALL2

/* Both libraries may have the same file open in one process (netCDF-C
 * first, then ncslab, and the other way round). */
START_TEST(test_open_alongside)
{
    char path[512];
    int nc, ns, d, v, s, x = 3;
    tmp_path(path, sizeof path, "alongside", 0, 0);
    ck_assert_int_eq(nc_create(path, NC_CLOBBER | NC4, &nc), 0);
    nc_def_dim(nc, "d", 4, &d);
    nc_def_var(nc, "v", NC_INT, 1, &d, &v);
    nc_enddef(nc);
    nc_put_var1_int(nc, v, (size_t[1]){2}, &x);
    ck_assert_int_eq(nc_close(nc), 0);
    ck_assert_int_eq(nc_open(path, NC_NOWRITE, &nc), 0);
    s = ncs_open(path, NCS_NOWRITE, &ns);
    ck_assert_msg(s == 0, "ncs_open of a file netCDF-C has open: %d (%s)", s, ncs_strerror(s));
    x = 0;
    ck_assert_int_eq(ncs_get1(ns, v, (size_t[1]){2}, NCS_INT, &x), 0);
    ck_assert_int_eq(x, 3);
    ck_assert_int_eq(ncs_close(ns), 0);
    ck_assert_int_eq(nc_close(nc), 0);
    ck_assert_int_eq(ncs_open(path, NCS_NOWRITE, &ns), 0);
    s = nc_open(path, NC_NOWRITE, &nc);
    ck_assert_msg(s == 0, "nc_open of a file ncslab has open: %d (%s)", s, nc_strerror(s));
    nc_close(nc);
    ncs_close(ns);
    unlink(path);
}
END_TEST

/* ---- main ------------------------------------------------------------------------------- */

static Suite *nc4_suite(void)
{
    Suite *s = suite_create("diff_nc4");
    TCase *tc = tcase_create("random");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, test_random, 0, nseeds);
    suite_add_tcase(s, tc);
    tc = tcase_create("files");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, test_netcdf_written, 0, (int)(sizeof pipelines / sizeof pipelines[0]));
    tcase_add_test(tc, test_scales);
    tcase_add_test(tc, test_foreign_filter);
    tcase_add_test(tc, test_storage_codes);
    tcase_add_test(tc, test_open_alongside);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    const char *env = getenv("NCSLAB_SEED");
    int probe;
    char probe_path[512];

    setvbuf(stdout, NULL, _IOLBF, 0);     /* test processes fork */
    trace = getenv("NCSLAB_DIFF_TRACE") != NULL && atoi(getenv("NCSLAB_DIFF_TRACE")) > 0;
    if (nc4_make_tmpdir(tmpdir, sizeof tmpdir, "diff_nc4") != 0)
        return 99;
    if (env != NULL && *env) {
        seeds[nseeds++] = strtoull(env, NULL, 10);
    } else {
        seeds[nseeds++] = 1;
        seeds[nseeds++] = 2;
        seeds[nseeds++] = 1992;
        seeds[nseeds++] = (uint64_t)time(NULL);
    }
    printf("diff_nc4: seeds");
    for (int i = 0; i < nseeds; i++)
        printf(" %llu", (unsigned long long)seeds[i]);
    printf(" (reproduce one with NCSLAB_SEED=N)\n");

    /* can netCDF-C write zstd here? */
    snprintf(probe_path, sizeof probe_path, "%s/probe.nc", tmpdir);
    if (nc_create(probe_path, NC_CLOBBER | NC4, &probe) == 0) {
        zstd_ok = nc_inq_filter_avail(probe, 32015) == 0;
        nc_abort(probe);
    }
    unlink(probe_path);
    printf("diff_nc4: netCDF-C zstd filter %savailable\n", zstd_ok ? "" : "not ");

    return nc4_run_suite(nc4_suite(), "diff_nc4", tmpdir, NULL);
}
