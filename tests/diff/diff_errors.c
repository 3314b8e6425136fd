/*
 * diff_errors.c -- the order in which calls check their arguments, ncslab
 * against netCDF-C in one process.
 *
 * A call with several faults returns the error of the first check that
 * fails, so the order of the checks is part of netCDF's API.  Each case
 * here makes the same call through nc_* and ncs_* on twin files (CDF-1,
 * CDF-2, CDF-5 and netCDF-4 classic model) and requires the same status:
 * one-element reads and writes with a bad varid in define mode and on a
 * read-only file, reads at and past the last record of a writable file,
 * types beyond the classic ones and names longer than NC_MAX_NAME in
 * definitions, attribute puts, inquiries, renames and deletions, names
 * that are not UTF-8 in lookups and deletions, and
 * attribute copies onto the same variable, and record and fixed starts
 * up to 2^62 and -1 in every data path (nothing else may change).
 * netCDF-C's answer is the expectation, except where it is wrong
 * (doc/v2.md): a negative attribute type in a netCDF-4 file leaves
 * netCDF-C's file unable to leave define mode, a put to a read-only
 * netCDF-4 file is an HDF5 error there, and so are its answers to a
 * strided write at record start -1; ncslab's answers to those are checked
 * on their own.
 *
 * Prints one line per failed case and a summary; exits 1 on a failure.
 * Works in the directory given as its argument (default: the current one).
 */
#include <netcdf.h>

#include "ncslab.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int ncases, nfails;
static const char *fmtname = "";

static void same(int line, const char *what, int nc, int ns)
{
    ncases++;
    if (nc != ns) {
        nfails++;
        printf("FAIL %s line %d: %s: netCDF-C %d (%s), ncslab %d (%s)\n", fmtname, line,
               what, nc, nc_strerror(nc), ns, ncs_strerror(ns));
    }
}
#define SAME(what, nccall, nscall) same(__LINE__, (what), (nccall), (nscall))

static void expect(int line, const char *what, int got, int want)
{
    ncases++;
    if (got != want) {
        nfails++;
        printf("FAIL %s line %d: %s: ncslab %d (%s), want %d (%s)\n", fmtname, line, what,
               got, ncs_strerror(got), want, ncs_strerror(want));
    }
}
#define EXPECT(what, got, want) expect(__LINE__, (what), (got), (want))

/* A call both libraries must make without error to set a case up. */
static int setup(int line, int nc, int ns)
{
    if (nc != NC_NOERR || ns != NCS_NOERR) {
        printf("FAIL %s line %d: setup: netCDF-C %d, ncslab %d\n", fmtname, line, nc, ns);
        nfails++;
        return 0;
    }
    return 1;
}
#define SETUP(nccall, nscall) do { if (!setup(__LINE__, (nccall), (nscall))) return; } while (0)

/* the twins: file names and ncids */
typedef struct twins {
    char pc[64], ps[64];
    int nc, ns;
    int cmode;
    int u, d, v, f, w;
} twins;

static char longname[301];

/* Calls that mix a bad varid with the wrong mode, in any mode. */
static void data_calls(twins *t, const char *state)
{
    char what[128];
    size_t i0[2] = { 0, 0 }, one[2] = { 1, 1 };
    int ival = 7, jval = 7;
    ptrdiff_t st2[2] = { 2, 1 };

#define CASE(label) (snprintf(what, sizeof what, "%s: %s", state, (label)), what)
    SAME(CASE("get1 bad varid"), nc_get_var1(t->nc, 7, i0, &ival), ncs_get1(t->ns, 7, i0, NCS_NAT, &jval));
    SAME(CASE("get1_int bad varid"), nc_get_var1_int(t->nc, 7, i0, &ival),
         ncs_get1(t->ns, 7, i0, NCS_INT, &jval));
    SAME(CASE("put1 bad varid"), nc_put_var1(t->nc, 7, i0, &ival), ncs_put1(t->ns, 7, i0, NCS_NAT, &jval));
    SAME(CASE("put1_int bad varid"), nc_put_var1_int(t->nc, 7, i0, &ival),
         ncs_put1(t->ns, 7, i0, NCS_INT, &jval));
    SAME(CASE("get1 NC_GLOBAL"), nc_get_var1(t->nc, NC_GLOBAL, i0, &ival),
         ncs_get1(t->ns, NCS_GLOBAL, i0, NCS_NAT, &jval));
    SAME(CASE("get1_double -5"), nc_get_var1_double(t->nc, -5, i0, (double[1]){ 0 }),
         ncs_get1(t->ns, -5, i0, NCS_DOUBLE, (double[1]){ 0 }));
    SAME(CASE("get_vara bad varid"), nc_get_vara(t->nc, 7, i0, one, &ival),
         ncs_get(t->ns, 7, i0, one, NULL, NULL, NCS_NAT, &jval));
    SAME(CASE("get_vara_int bad varid"), nc_get_vara_int(t->nc, 7, i0, one, &ival),
         ncs_get(t->ns, 7, i0, one, NULL, NULL, NCS_INT, &jval));
    SAME(CASE("put_vara bad varid"), nc_put_vara(t->nc, 7, i0, one, &ival),
         ncs_put(t->ns, 7, i0, one, NULL, NULL, NCS_NAT, &jval));
    SAME(CASE("put_vara_int bad varid"), nc_put_vara_int(t->nc, 7, i0, one, &ival),
         ncs_put(t->ns, 7, i0, one, NULL, NULL, NCS_INT, &jval));
    SAME(CASE("get_vars_int bad varid"), nc_get_vars_int(t->nc, 7, i0, one, st2, &ival),
         ncs_get(t->ns, 7, i0, one, st2, NULL, NCS_INT, &jval));
    /* a mapped request of nothing returns before any mode check */
    SAME(CASE("put_varm of nothing"),
         nc_put_varm_int(t->nc, t->v, i0, (size_t[]){ 0, 1 }, NULL, (ptrdiff_t[]){ 1, 1 }, &ival),
         ncs_put(t->ns, t->v, i0, (size_t[]){ 0, 1 }, NULL, (ptrdiff_t[]){ 1, 1 }, NCS_INT, &jval));
    SAME(CASE("get_varm of nothing"),
         nc_get_varm_int(t->nc, t->v, i0, (size_t[]){ 1, 0 }, NULL, (ptrdiff_t[]){ 1, 1 }, &ival),
         ncs_get(t->ns, t->v, i0, (size_t[]){ 1, 0 }, NULL, (ptrdiff_t[]){ 1, 1 }, NCS_INT, &jval));
    SAME(CASE("get1 valid"), nc_get_var1_int(t->nc, t->v, i0, &ival),
         ncs_get1(t->ns, t->v, i0, NCS_INT, &jval));
    SAME(CASE("get_vars_int valid"), nc_get_vars_int(t->nc, t->v, (size_t[]){ 2, 0 }, one, st2, &ival),
         ncs_get(t->ns, t->v, (size_t[]){ 2, 0 }, one, st2, NULL, NCS_INT, &jval));
    SAME(CASE("copy_att missing onto itself"),
         nc_copy_att(t->nc, NC_GLOBAL, "missing", t->nc, NC_GLOBAL),
         ncs_copy_att(t->ns, NCS_GLOBAL, "missing", t->ns, NCS_GLOBAL));
    SAME(CASE("copy_att bad varid onto itself"), nc_copy_att(t->nc, 55, "missing", t->nc, 55),
         ncs_copy_att(t->ns, 55, "missing", t->ns, 55));
    SAME(CASE("copy_att NULL name onto itself"), nc_copy_att(t->nc, t->v, NULL, t->nc, t->v),
         ncs_copy_att(t->ns, t->v, NULL, t->ns, t->v));
    SAME(CASE("copy_att existing onto itself"), nc_copy_att(t->nc, t->v, "x", t->nc, t->v),
         ncs_copy_att(t->ns, t->v, "x", t->ns, t->v));
    SAME(CASE("copy_att missing to another var"),
         nc_copy_att(t->nc, NC_GLOBAL, "missing", t->nc, t->v),
         ncs_copy_att(t->ns, NCS_GLOBAL, "missing", t->ns, t->v));
    SAME(CASE("copy_att missing to a bad var"), nc_copy_att(t->nc, NC_GLOBAL, "missing", t->nc, 55),
         ncs_copy_att(t->ns, NCS_GLOBAL, "missing", t->ns, 55));
    SAME(CASE("copy_att long name"), nc_copy_att(t->nc, NC_GLOBAL, longname, t->nc, t->v),
         ncs_copy_att(t->ns, NCS_GLOBAL, longname, t->ns, t->v));
    SAME(CASE("copy_att to a closed file"),
         nc_copy_att(t->nc, NC_GLOBAL, "missing", t->nc + 0x10000, NC_GLOBAL),
         ncs_copy_att(t->ns, NCS_GLOBAL, "missing", t->ns + 0x10000, NCS_GLOBAL));
    SAME(CASE("del_att missing"), nc_del_att(t->nc, NC_GLOBAL, "missing"),
         ncs_del_att(t->ns, NCS_GLOBAL, "missing"));
    SAME(CASE("del_att bad varid"), nc_del_att(t->nc, 99, "x"), ncs_del_att(t->ns, 99, "x"));
    SAME(CASE("del_att long name"), nc_del_att(t->nc, NC_GLOBAL, longname),
         ncs_del_att(t->ns, NCS_GLOBAL, longname));
    /* names that are not UTF-8: netCDF-4 lookups and classic deletions
     * normalise them and fail */
    SAME(CASE("del_att not UTF-8"), nc_del_att(t->nc, NC_GLOBAL, "\xff"),
         ncs_del_att(t->ns, NCS_GLOBAL, "\xff"));
    SAME(CASE("del_att not UTF-8, bad varid"), nc_del_att(t->nc, 77, "\xff"),
         ncs_del_att(t->ns, 77, "\xff"));
    SAME(CASE("inq_att not UTF-8"), nc_inq_att(t->nc, NC_GLOBAL, "a\xff", NULL, NULL),
         ncs_inq_att(t->ns, NCS_GLOBAL, "a\xff", NULL, NULL));
    SAME(CASE("get_att not UTF-8"), nc_get_att(t->nc, t->v, "\xff", &ival),
         ncs_get_att(t->ns, t->v, "\xff", NCS_NAT, &jval));
    SAME(CASE("rename_att from not UTF-8"), nc_rename_att(t->nc, NC_GLOBAL, "\xff", "y"),
         ncs_rename_att(t->ns, NCS_GLOBAL, "\xff", "y"));
    SAME(CASE("copy_att not UTF-8"), nc_copy_att(t->nc, NC_GLOBAL, "\xff", t->nc, t->v),
         ncs_copy_att(t->ns, NCS_GLOBAL, "\xff", t->ns, t->v));
    SAME(CASE("inq_dimid not UTF-8"), nc_inq_dimid(t->nc, "\xff", &ival),
         ncs_inq_dimid(t->ns, "\xff", &jval));
    SAME(CASE("inq_varid not UTF-8"), nc_inq_varid(t->nc, "\xc3", &ival),
         ncs_inq_varid(t->ns, "\xc3", &jval));
    SAME(CASE("rename_var to a long name"), nc_rename_var(t->nc, t->v, longname),
         ncs_rename_var(t->ns, t->v, longname));
    SAME(CASE("rename_var bad varid to a name in use"), nc_rename_var(t->nc, 1000, "fixed"),
         ncs_rename_var(t->ns, 1000, "fixed"));
    SAME(CASE("rename_var NC_GLOBAL to a name in use"), nc_rename_var(t->nc, NC_GLOBAL, "fixed"),
         ncs_rename_var(t->ns, NCS_GLOBAL, "fixed"));
    SAME(CASE("rename_var NC_GLOBAL"), nc_rename_var(t->nc, NC_GLOBAL, "zz"),
         ncs_rename_var(t->ns, NCS_GLOBAL, "zz"));
    SAME(CASE("rename_var bad varid to a long name"), nc_rename_var(t->nc, 1000, longname),
         ncs_rename_var(t->ns, 1000, longname));
    SAME(CASE("rename_var bad varid, bad name"), nc_rename_var(t->nc, 1000, "a/b"),
         ncs_rename_var(t->ns, 1000, "a/b"));
    SAME(CASE("inq_att long name"), nc_inq_att(t->nc, NC_GLOBAL, longname, NULL, NULL),
         ncs_inq_att(t->ns, NCS_GLOBAL, longname, NULL, NULL));
    SAME(CASE("inq_attid long name"), nc_inq_attid(t->nc, t->v, longname, &ival),
         ncs_inq_attid(t->ns, t->v, longname, &jval));
    SAME(CASE("get_att long name"), nc_get_att(t->nc, NC_GLOBAL, longname, &ival),
         ncs_get_att(t->ns, NCS_GLOBAL, longname, NCS_NAT, &jval));
    SAME(CASE("inq_dimid long name"), nc_inq_dimid(t->nc, longname, &ival),
         ncs_inq_dimid(t->ns, longname, &jval));
    SAME(CASE("inq_varid long name"), nc_inq_varid(t->nc, longname, &ival),
         ncs_inq_varid(t->ns, longname, &jval));
    if (t->cmode & NC_NETCDF4) {
        /* NULL names (netCDF-C's classic code crashes on these) */
        SAME(CASE("inq_dimid NULL name"), nc_inq_dimid(t->nc, NULL, &ival),
             ncs_inq_dimid(t->ns, NULL, &jval));
        SAME(CASE("inq_varid NULL name"), nc_inq_varid(t->nc, NULL, &ival),
             ncs_inq_varid(t->ns, NULL, &jval));
        SAME(CASE("inq_attid NULL name"), nc_inq_attid(t->nc, NC_GLOBAL, NULL, &ival),
             ncs_inq_attid(t->ns, NCS_GLOBAL, NULL, &jval));
        SAME(CASE("del_att NULL name"), nc_del_att(t->nc, NC_GLOBAL, NULL),
             ncs_del_att(t->ns, NCS_GLOBAL, NULL));
        SAME(CASE("rename_att NULL name"), nc_rename_att(t->nc, NC_GLOBAL, NULL, "y"),
             ncs_rename_att(t->ns, NCS_GLOBAL, NULL, "y"));
    }
    SAME(CASE("inq_att NULL name"), nc_inq_att(t->nc, NC_GLOBAL, NULL, NULL, NULL),
         ncs_inq_att(t->ns, NCS_GLOBAL, NULL, NULL, NULL));
    ival = jval = -7;
    SAME(CASE("inq_var NC_GLOBAL"), nc_inq_var(t->nc, NC_GLOBAL, NULL, NULL, NULL, NULL, &ival),
         ncs_inq_var(t->ns, NCS_GLOBAL, NULL, NULL, NULL, NULL, &jval));
    SAME(CASE("inq_var NC_GLOBAL natts"), ival, jval);
    SAME(CASE("inq_varname NC_GLOBAL"), nc_inq_varname(t->nc, NC_GLOBAL, NULL),
         ncs_inq_varname(t->ns, NCS_GLOBAL, NULL));
    SAME(CASE("rename_att to a long name"), nc_rename_att(t->nc, NC_GLOBAL, "nope", longname),
         ncs_rename_att(t->ns, NCS_GLOBAL, "nope", longname));
    SAME(CASE("rename_att missing"), nc_rename_att(t->nc, NC_GLOBAL, "nope", "other"),
         ncs_rename_att(t->ns, NCS_GLOBAL, "nope", "other"));
    SAME(CASE("def_dim long name"), nc_def_dim(t->nc, longname, 3, &ival),
         ncs_def_dim(t->ns, longname, 3, &jval));
    SAME(CASE("def_dim second unlimited"), nc_def_dim(t->nc, "u2", NC_UNLIMITED, &ival),
         ncs_def_dim(t->ns, "u2", NCS_UNLIMITED, &jval));
#undef CASE
}

/* Definitions that mix a bad type with other faults. */
static void definitions(twins *t, const char *state)
{
    static const int types[] = { NC_UBYTE, NC_UINT64, 12, 13, 99, NC_NAT, -1, -3 };
    char what[128], nm[32];
    int ival = 1, a, b;
    /* a value of any type: eight bytes, the widest */
    long long wide = 1;
    for (size_t k = 0; k < sizeof types / sizeof types[0]; k++) {
        int xt = types[k];
        snprintf(nm, sizeof nm, "t%d", k == 0 ? 1000 : (int)k);
        snprintf(what, sizeof what, "%s: def_var type %d", state, xt);
        SAME(what, nc_def_var(t->nc, nm, xt, 1, &t->d, &a), ncs_def_var(t->ns, nm, xt, 1, &t->d, &b));
        snprintf(what, sizeof what, "%s: def_var bad name, type %d", state, xt);
        SAME(what, nc_def_var(t->nc, "bad/name", xt, 1, &t->d, &a),
             ncs_def_var(t->ns, "bad/name", xt, 1, &t->d, &b));
        snprintf(what, sizeof what, "%s: def_var name in use, type %d", state, xt);
        SAME(what, nc_def_var(t->nc, "temp", xt, 1, &t->d, &a),
             ncs_def_var(t->ns, "temp", xt, 1, &t->d, &b));
        snprintf(what, sizeof what, "%s: def_var bad dimid, type %d", state, xt);
        SAME(what, nc_def_var(t->nc, "tq", xt, 1, (int[]){ 77 }, &a),
             ncs_def_var(t->ns, "tq", xt, 1, (int[]){ 77 }, &b));
        if (xt >= 0 || !(t->cmode & NC_NETCDF4)) {
            snprintf(nm, sizeof nm, "a%d", k == 0 ? 1000 : (int)k);
            snprintf(what, sizeof what, "%s: put_att type %d", state, xt);
            SAME(what, nc_put_att(t->nc, NC_GLOBAL, nm, xt, 1, &wide),
                 ncs_put_att(t->ns, NCS_GLOBAL, nm, xt, 1, NCS_NAT, &wide));
            snprintf(what, sizeof what, "%s: put_att long name, type %d", state, xt);
            SAME(what, nc_put_att(t->nc, NC_GLOBAL, longname, xt, 1, &wide),
                 ncs_put_att(t->ns, NCS_GLOBAL, longname, xt, 1, NCS_NAT, &wide));
            if (strcmp(state, "data mode") == 0) {
                snprintf(what, sizeof what, "%s: put_att over an attribute, type %d", state, xt);
                SAME(what, nc_put_att(t->nc, t->v, "x", xt, 1, &wide),
                     ncs_put_att(t->ns, t->v, "x", xt, 1, NCS_NAT, &wide));
            }
            snprintf(what, sizeof what, "%s: put_att bad name, type %d", state, xt);
            SAME(what, nc_put_att(t->nc, t->v, "bad/name", xt, 1, &wide),
                 ncs_put_att(t->ns, t->v, "bad/name", xt, 1, NCS_NAT, &wide));
        }
    }
    for (int n = 255; n <= 258; n++) {
        char name[300];
        memset(name, 'n', (size_t)n);
        name[n] = '\0';
        snprintf(what, sizeof what, "%s: put_att name of %d", state, n);
        SAME(what, nc_put_att_int(t->nc, NC_GLOBAL, name, NC_INT, 1, &ival),
             ncs_put_att(t->ns, NCS_GLOBAL, name, NCS_INT, 1, NCS_INT, &ival));
    }
    SAME("put_att long name, bad varid", nc_put_att_int(t->nc, 99, longname, NC_INT, 1, &ival),
         ncs_put_att(t->ns, 99, longname, NCS_INT, 1, NCS_INT, &ival));
    SAME("put_att an int as text", nc_put_att_int(t->nc, NC_GLOBAL, "c", NC_CHAR, 1, &ival),
         ncs_put_att(t->ns, NCS_GLOBAL, "c", NCS_CHAR, 1, NCS_INT, &ival));
    SAME("put_att a long name, an int as text",
         nc_put_att_int(t->nc, NC_GLOBAL, longname, NC_CHAR, 1, &ival),
         ncs_put_att(t->ns, NCS_GLOBAL, longname, NCS_CHAR, 1, NCS_INT, &ival));
    SAME("def_dim too long", nc_def_dim(t->nc, "big", (size_t)1 << 32, &a),
         ncs_def_dim(t->ns, "big", (size_t)1 << 32, &b));
}

/* Record and fixed starts far past the end, in every data path: netCDF-C
 * refuses a classic record start above UINT32_MAX (each element of a
 * strided write meets that limit), bounds every other start by the
 * dimension, and reads by the record count.  Writes netCDF-C accepts are
 * left out (a classic record start of 2^31, and netCDF-4 record starts
 * that fit 64 bits, grow the file that far), and so are its two wrong
 * answers, checked on ncslab alone (doc/v2.md): a classic strided write at
 * start -1 wraps and returns 0 having written nothing, and a netCDF-4 one
 * is an HDF5 error that grows its record count all the same (so neither
 * reaches netCDF-C), as is any put to a read-only netCDF-4 file.  Nothing else in the file may change. */
static void huge_starts(twins *t, int ro)
{
    static const size_t starts[] = { (size_t)-1, (size_t)1 << 31, (size_t)1 << 32,
                                     (size_t)1 << 62 };
    int nc4 = (t->cmode & NC_NETCDF4) != 0;
    for (size_t k = 0; k < sizeof starts / sizeof starts[0]; k++) {
        for (int stride = 0; stride <= 3; stride++) {
            for (int var = 0; var < 3; var++) {
                int id = var == 0 ? t->v : var == 1 ? t->w : t->f;
                int rec = var < 2, two = var == 0;
                for (int put = 0; put <= 1; put++) {
                    size_t st[2] = { starts[k], 0 }, ct[2] = { 2, 1 };
                    ptrdiff_t sd[2] = { stride, 1 };
                    int a[4] = { 11, 12, 13, 14 }, b[4] = { 11, 12, 13, 14 }, nc, ns, wrong;
                    char what[128];
                    if (put && rec && (nc4 ? starts[k] != (size_t)-1 : starts[k] == (size_t)1 << 31))
                        continue;
                    snprintf(what, sizeof what, "%s %s start %#zx %s%d", put ? "put" : "get",
                             var == 0 ? "temp" : var == 1 ? "count" : "fixed", starts[k],
                             stride == 0 ? "var1" : "stride ", stride == 0 ? 0 : stride);
                    /* netCDF-C's wrong answers: ncslab alone.  A netCDF-4
                     * write to a read-only file is compared where it cannot
                     * grow netCDF-C's record count: its NC_EHDFERR, once the
                     * coordinates pass, is NC_EPERM (doc/v2.md bug 5) */
                    wrong = put && ((rec && starts[k] == (size_t)-1 && (nc4 || stride >= 2)) ||
                                    (nc4 && ro && rec));
                    if (stride == 0) {
                        nc = wrong ? 0 : put ? nc_put_var1_int(t->nc, id, st, a)
                                             : nc_get_var1_int(t->nc, id, st, a);
                        ns = put ? ncs_put1(t->ns, id, st, NCS_INT, b)
                                 : ncs_get1(t->ns, id, st, NCS_INT, b);
                    } else if (put) {
                        nc = wrong ? 0 : stride == 1 && !two ? nc_put_vara_int(t->nc, id, st, ct, a)
                                                             : nc_put_vars_int(t->nc, id, st, ct, sd, a);
                        ns = ncs_put(t->ns, id, st, ct, stride == 1 && !two ? NULL : sd, NULL,
                                     NCS_INT, b);
                    } else {
                        nc = stride == 1 && !two ? nc_get_vara_int(t->nc, id, st, ct, a)
                                                 : nc_get_vars_int(t->nc, id, st, ct, sd, a);
                        ns = ncs_get(t->ns, id, st, ct, stride == 1 && !two ? NULL : sd, NULL,
                                     NCS_INT, b);
                    }
                    if (wrong)
                        EXPECT(what, ns, ro ? NCS_EPERM : NCS_EINVALCOORDS);
                    else if (put && nc4 && ro && nc == NC_EHDFERR)
                        EXPECT(what, ns, NCS_EPERM);
                    else
                        SAME(what, nc, ns);
                }
            }
        }
    }
    /* a record count no request can hold: refused before anything moves */
    if (ro)
        return;
    EXPECT("put count 2^62 on a record variable",
           ncs_put(t->ns, t->v, (size_t[]){ 0, 0 }, (size_t[]){ (size_t)1 << 62, 3 }, NULL, NULL,
                   NCS_INT, (int[3]){ 0 }), NCS_EEDGE);
    EXPECT("put count 2^62 on a record variable, strided",
           ncs_put(t->ns, t->v, (size_t[]){ 0, 0 }, (size_t[]){ (size_t)1 << 62, 3 },
                   (ptrdiff_t[]){ 1, 1 }, (ptrdiff_t[]){ 3, 1 }, NCS_INT, (int[3]){ 0 }), NCS_EEDGE);
    {
        size_t nrc, nrs;
        int ac[64], as[64], varids[3] = { t->v, t->w, t->f };
        SAME("record count after huge starts", nc_inq_dimlen(t->nc, t->u, &nrc),
             ncs_inq_dimlen(t->ns, t->u, &nrs));
        SAME("same record count after huge starts", (int)nrc, (int)nrs);
        for (int i = 0; i < 3 && nrc == nrs && nrc <= 8; i++) {
            memset(ac, 0, sizeof ac);
            memset(as, 0, sizeof as);
            SAME("read back after huge starts", nc_get_var_int(t->nc, varids[i], ac),
                 ncs_get(t->ns, varids[i], NULL, NULL, NULL, NULL, NCS_INT, as));
            SAME("values unchanged by huge starts", memcmp(ac, as, sizeof ac) != 0, 0);
        }
    }
}

static void scenario(int cmode)
{
    twins t = { .cmode = cmode };
    size_t start[2] = { 1, 0 }, count[2] = { 1, 3 };
    int vals[3] = { 1, 2, 3 }, ival;

    snprintf(t.pc, sizeof t.pc, "errors-%s-nc.nc", fmtname);
    snprintf(t.ps, sizeof t.ps, "errors-%s-ns.nc", fmtname);
    SETUP(nc_create(t.pc, NC_CLOBBER | cmode, &t.nc), ncs_create(t.ps, NCS_CLOBBER | cmode, &t.ns));
    SETUP(nc_def_dim(t.nc, "time", NC_UNLIMITED, &t.u), ncs_def_dim(t.ns, "time", 0, &t.u));
    SETUP(nc_def_dim(t.nc, "lat", 3, &t.d), ncs_def_dim(t.ns, "lat", 3, &t.d));
    SETUP(nc_def_var(t.nc, "temp", NC_INT, 2, (int[]){ t.u, t.d }, &t.v),
          ncs_def_var(t.ns, "temp", NCS_INT, 2, (int[]){ t.u, t.d }, &t.v));
    SETUP(nc_def_var(t.nc, "fixed", NC_INT, 1, &t.d, &t.f),
          ncs_def_var(t.ns, "fixed", NCS_INT, 1, &t.d, &t.f));
    SETUP(nc_def_var(t.nc, "count", NC_SHORT, 1, &t.u, &t.w),
          ncs_def_var(t.ns, "count", NCS_SHORT, 1, &t.u, &t.w));
    SETUP(nc_put_att_int(t.nc, t.v, "x", NC_INT, 1, vals),
          ncs_put_att(t.ns, t.v, "x", NCS_INT, 1, NCS_INT, vals));
    SETUP(nc_put_att_text(t.nc, NC_GLOBAL, "title", 2, "hi"),
          ncs_put_att(t.ns, NCS_GLOBAL, "title", NCS_CHAR, 2, NCS_CHAR, "hi"));
    SETUP(nc_put_att_int(t.nc, t.f, "_FillValue", NC_INT, 1, vals),
          ncs_put_att(t.ns, t.f, "_FillValue", NCS_INT, 1, NCS_INT, vals));
    data_calls(&t, "define mode");
    definitions(&t, "define mode");
    SETUP(nc_enddef(t.nc), ncs_enddef(t.ns));
    /* netCDF-4: no fill value once an enddef has created the variable */
    SAME("data mode: _FillValue rewritten", nc_put_att_int(t.nc, t.f, "_FillValue", NC_INT, 1, vals + 1),
         ncs_put_att(t.ns, t.f, "_FillValue", NCS_INT, 1, NCS_INT, vals + 1));

    /* two records */
    SETUP(nc_put_vara_int(t.nc, t.v, start, count, vals),
          ncs_put(t.ns, t.v, start, count, NULL, NULL, NCS_INT, vals));
    data_calls(&t, "data mode");
    definitions(&t, "data mode");
    /* netCDF-4 renames a dimension to a longer name in data mode too */
    SAME("data mode: rename_dim longer", nc_rename_dim(t.nc, t.d, "latitude"),
         ncs_rename_dim(t.ns, t.d, "latitude"));
    for (size_t r = 1; r <= 4; r++) {
        for (size_t c = 0; c <= 2; c++) {
            char what[96];
            size_t st[2] = { r, 0 }, ct[2] = { c, 1 }, st1[1] = { r }, ct1[1] = { c };
            ptrdiff_t sd[2] = { 2, 1 };
            int a[8], b[8];
            snprintf(what, sizeof what, "get_vara_int start %zu count %zu", r, c);
            SAME(what, nc_get_vara_int(t.nc, t.v, st, ct, a),
                 ncs_get(t.ns, t.v, st, ct, NULL, NULL, NCS_INT, b));
            snprintf(what, sizeof what, "get_vara start %zu count %zu", r, c);
            SAME(what, nc_get_vara(t.nc, t.v, st, ct, a),
                 ncs_get(t.ns, t.v, st, ct, NULL, NULL, NCS_NAT, b));
            snprintf(what, sizeof what, "get_vara_short 1-D start %zu count %zu", r, c);
            SAME(what, nc_get_vara_short(t.nc, t.w, st1, ct1, (short *)a),
                 ncs_get(t.ns, t.w, st1, ct1, NULL, NULL, NCS_SHORT, b));
            snprintf(what, sizeof what, "get_vars_int start %zu count %zu stride 2", r - 1, c);
            st[0] = r - 1;
            SAME(what, nc_get_vars_int(t.nc, t.v, st, ct, sd, a),
                 ncs_get(t.ns, t.v, st, ct, sd, NULL, NCS_INT, b));
        }
        {
            char what[96];
            size_t ix[2] = { r, 0 };
            int a, b;
            snprintf(what, sizeof what, "get_var1_int at record %zu", r);
            SAME(what, nc_get_var1_int(t.nc, t.v, ix, &a), ncs_get1(t.ns, t.v, ix, NCS_INT, &b));
            snprintf(what, sizeof what, "get_var1 at record %zu", r);
            SAME(what, nc_get_var1(t.nc, t.v, ix, &a), ncs_get1(t.ns, t.v, ix, NCS_NAT, &b));
        }
    }
    SAME("get_vars past a fixed dimension", nc_get_vars_int(t.nc, t.f, (size_t[]){ 1 }, (size_t[]){ 2 },
                                                            (ptrdiff_t[]){ 2 }, (int[2]){ 0 }),
         ncs_get(t.ns, t.f, (size_t[]){ 1 }, (size_t[]){ 2 }, (ptrdiff_t[]){ 2 }, NULL, NCS_INT,
                 (int[2]){ 0 }));
    SAME("put_vars past a fixed dimension", nc_put_vars_int(t.nc, t.f, (size_t[]){ 1 }, (size_t[]){ 2 },
                                                            (ptrdiff_t[]){ 2 }, (int[2]){ 0 }),
         ncs_put(t.ns, t.f, (size_t[]){ 1 }, (size_t[]){ 2 }, (ptrdiff_t[]){ 2 }, NULL, NCS_INT,
                 (int[2]){ 0 }));
    SAME("put_vara past a fixed dimension", nc_put_vara_int(t.nc, t.f, (size_t[]){ 2 }, (size_t[]){ 2 },
                                                            (int[2]){ 0 }),
         ncs_put(t.ns, t.f, (size_t[]){ 2 }, (size_t[]){ 2 }, NULL, NULL, NCS_INT, (int[2]){ 0 }));
    SAME("get_vara past a fixed dimension", nc_get_vara_int(t.nc, t.f, (size_t[]){ 3 }, (size_t[]){ 1 },
                                                            (int[1]){ 0 }),
         ncs_get(t.ns, t.f, (size_t[]){ 3 }, (size_t[]){ 1 }, NULL, NULL, NCS_INT, (int[1]){ 0 }));
    huge_starts(&t, 0);
    SETUP(nc_close(t.nc), ncs_close(t.ns));

    SETUP(nc_open(t.pc, NC_NOWRITE, &t.nc), ncs_open(t.ps, NCS_NOWRITE, &t.ns));
    huge_starts(&t, 1);
    {
        char nc_name[NC_MAX_NAME + 1] = "", ns_name[NC_MAX_NAME + 1] = "";
        SAME("read-only: inq_dimname", nc_inq_dimname(t.nc, t.d, nc_name),
             ncs_inq_dimname(t.ns, t.d, ns_name));
        SAME("read-only: the same dimension name", strcmp(nc_name, ns_name) != 0, 0);
    }
    data_calls(&t, "read-only");
    definitions(&t, "read-only");
    SAME("read-only: get_vara_int at the last record",
         nc_get_vara_int(t.nc, t.v, (size_t[]){ 2, 0 }, (size_t[]){ 1, 1 }, &ival),
         ncs_get(t.ns, t.v, (size_t[]){ 2, 0 }, (size_t[]){ 1, 1 }, NULL, NULL, NCS_INT, &ival));
    SAME("read-only: rename_att", nc_rename_att(t.nc, t.v, "x", "y"),
         ncs_rename_att(t.ns, t.v, "x", "y"));
    if (cmode & NC_NETCDF4) {
        /* netCDF-C: an HDF5 error (NC_EHDFERR) */
        EXPECT("read-only: put1_int", ncs_put1(t.ns, t.v, (size_t[]){ 0, 0 }, NCS_INT, &ival),
               NCS_EPERM);
    } else {
        SAME("read-only: put1_int", nc_put_var1_int(t.nc, t.v, (size_t[]){ 0, 0 }, &ival),
             ncs_put1(t.ns, t.v, (size_t[]){ 0, 0 }, NCS_INT, &ival));
    }
    SETUP(nc_close(t.nc), ncs_close(t.ns));

    SETUP(nc_open(t.pc, NC_WRITE, &t.nc), ncs_open(t.ps, NCS_WRITE, &t.ns));
    SETUP(nc_redef(t.nc), ncs_redef(t.ns));
    data_calls(&t, "redefined");
    SAME("redefined: _FillValue rewritten", nc_put_att_int(t.nc, t.f, "_FillValue", NC_INT, 1, vals + 2),
         ncs_put_att(t.ns, t.f, "_FillValue", NCS_INT, 1, NCS_INT, vals + 2));
    {
        int nv, nw;
        SETUP(nc_def_var(t.nc, "later", NC_INT, 1, &t.d, &nv),
              ncs_def_var(t.ns, "later", NCS_INT, 1, &t.d, &nw));
        SAME("redefined: _FillValue of a new variable",
             nc_put_att_int(t.nc, nv, "_FillValue", NC_INT, 1, vals),
             ncs_put_att(t.ns, nw, "_FillValue", NCS_INT, 1, NCS_INT, vals));
    }
    SETUP(nc_close(t.nc), ncs_close(t.ns));

    if (cmode & NC_NETCDF4) {
        /* netCDF-C answers NC_EINVAL but keeps a broken attribute, and its
         * enddef then fails (NC_EHDFERR); ncslab answers the same and
         * keeps the file sound */
        int ns;
        SETUP(NC_NOERR, ncs_create(t.ps, NCS_CLOBBER | cmode, &ns));
        EXPECT("negative attribute type", ncs_put_att(ns, NCS_GLOBAL, "neg", -2, 1, NCS_NAT, vals),
               NCS_EINVAL);
        EXPECT("enddef after it", ncs_enddef(ns), NCS_NOERR);
        EXPECT("close after it", ncs_close(ns), NCS_NOERR);
    }
}

int main(int argc, char **argv)
{
    static const struct { const char *name; int cmode; } fmts[] = {
        { "cdf1", 0 },
        { "cdf2", NC_64BIT_OFFSET },
        { "cdf5", NC_64BIT_DATA },
        { "nc4classic", NC_NETCDF4 | NC_CLASSIC_MODEL },
    };
    if (argc > 1 && chdir(argv[1]) != 0) {
        perror(argv[1]);
        return 2;
    }
    memset(longname, 'x', 300);
    longname[300] = '\0';
    for (size_t k = 0; k < sizeof fmts / sizeof fmts[0]; k++) {
        int before = nfails;
        fmtname = fmts[k].name;
        scenario(fmts[k].cmode);
        printf("%s: %s\n", fmtname, nfails == before ? "same" : "differences above");
    }
    for (size_t k = 0; k < sizeof fmts / sizeof fmts[0]; k++) {
        char p[64];
        snprintf(p, sizeof p, "errors-%s-nc.nc", fmts[k].name);
        unlink(p);
        snprintf(p, sizeof p, "errors-%s-ns.nc", fmts[k].name);
        unlink(p);
    }
    printf("%d cases, %d differ\n", ncases, nfails);
    return nfails != 0;
}
