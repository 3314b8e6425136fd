/*
 * diff_nc4_defaults.c -- ncslab against netCDF-C on what a netCDF-4 file
 * gets when the caller does not say: the storage of new variables and the
 * attributes a reader is shown.  Both libraries are linked into this one
 * process.
 *
 *  storage     for variables of many shapes and types, each followed by
 *              a sequence of storage calls (filters, contiguous, chunked
 *              with and without sizes, in every order that matters): each
 *              call's code, then the storage and chunk sizes each library
 *              reports after every call, after enddef and after a reopen;
 *              and netCDF-C's reading of ncslab's file against netCDF-C's
 *              reading of its own
 *  later       a record variable defined in a reopened file that already
 *              has records (the record count does not enter its chunks;
 *              netCDF-C's does where it knows the count: ncslab's alone)
 *  hidden      which attributes of a file each library shows, on the root
 *              group and on a variable, when the file holds attributes
 *              named like netCDF-C's, HDF5's and xarray's bookkeeping
 *
 * Files live in a temporary directory that is removed when every test
 * passed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>
#include <hdf5.h>
#include <netcdf.h>

#include "nc4_common.h"

static char tmpdir[256];

static void path_of(char *out, size_t n, const char *what, int k)
{
    snprintf(out, n, "%s/%s%d.nc", tmpdir, what, k);
}

/* ---- storage ---------------------------------------------------------------------- */

enum { OP_END, OP_DEFLATE, OP_FLETCHER, OP_CONTIG, OP_CHUNKED, OP_CHUNKED_NULL };

typedef struct op {
    int kind;
    int shuffle, deflate, level;         /* OP_DEFLATE; OP_FLETCHER: deflate */
    size_t chunks[5];                    /* OP_CHUNKED */
} op;

typedef struct scase {
    int xtype;
    int ndims;
    size_t len[5];                       /* 0: the record dimension */
    op ops[4];
} scase;

#define DEFLATE(s, d, l) {OP_DEFLATE, s, d, l, {0}}
#define FLETCHER         {OP_FLETCHER, 0, 1, 0, {0}}
#define CONTIG           {OP_CONTIG, 0, 0, 0, {0}}
#define CHUNKED_NULL     {OP_CHUNKED_NULL, 0, 0, 0, {0}}

static const scase scases[] = {
    /* netCDF-C's defaults: fixed-size variables contiguous, record
     * variables chunked, one record deep */
    {NC_FLOAT, 4, {10, 20, 30, 40}, {{0}}},
    {NC_FLOAT, 4, {0, 20, 30, 40}, {{0}}},
    {NC_DOUBLE, 1, {0}, {{0}}},
    {NC_BYTE, 1, {0}, {{0}}},
    {NC_SHORT, 1, {0}, {{0}}},
    {NC_FLOAT, 2, {0, 7}, {{0}}},
    {NC_CHAR, 2, {0, 80}, {{0}}},
    {NC_FLOAT, 3, {0, 1000, 2000}, {{0}}},
    {NC_DOUBLE, 3, {0, 100000, 7}, {{0}}},
    {NC_INT, 3, {0, 3000, 3000}, {{0}}},
    {NC_BYTE, 2, {0, 100000000}, {{0}}},
    {NC_DOUBLE, 5, {0, 3, 50, 70, 90}, {{0}}},
    /* a filter makes a fixed-size variable chunked, default sizes */
    {NC_FLOAT, 2, {1000, 2000}, {DEFLATE(0, 1, 1)}},
    {NC_DOUBLE, 2, {3000, 3000}, {DEFLATE(1, 1, 4)}},
    {NC_SHORT, 3, {100000, 7, 3}, {FLETCHER}},
    {NC_DOUBLE, 1, {100000}, {DEFLATE(1, 0, 0)}},
    {NC_SHORT, 5, {7, 5, 3, 2, 11}, {FLETCHER}},
    {NC_FLOAT, 4, {10, 20, 30, 40}, {DEFLATE(1, 0, 0)}},
    {NC_FLOAT, 4, {0, 20, 30, 40}, {DEFLATE(0, 1, 2)}},
    /* contiguous with a filter: NC_EINVAL, in either order */
    {NC_FLOAT, 4, {10, 20, 30, 40}, {DEFLATE(0, 1, 1), CONTIG}},
    {NC_FLOAT, 4, {10, 20, 30, 40}, {FLETCHER, CONTIG}},
    {NC_FLOAT, 4, {10, 20, 30, 40}, {CONTIG, DEFLATE(0, 1, 1)}},
    {NC_FLOAT, 4, {10, 20, 30, 40}, {CONTIG, FLETCHER, CONTIG}},
    /* chunked without sizes: the sizes set before, else the default */
    {NC_FLOAT, 4, {10, 20, 30, 40}, {CHUNKED_NULL}},
    {NC_FLOAT, 4, {10, 20, 30, 40}, {{OP_CHUNKED, 0, 0, 0, {1, 2, 3, 4}}, CONTIG}},
    {NC_FLOAT, 4, {10, 20, 30, 40}, {{OP_CHUNKED, 0, 0, 0, {1, 2, 3, 4}}, CHUNKED_NULL}},
    {NC_FLOAT, 4, {10, 20, 30, 40},
     {{OP_CHUNKED, 0, 0, 0, {1, 2, 3, 4}}, CONTIG, CHUNKED_NULL}},
    {NC_FLOAT, 4, {10, 20, 30, 40},
     {{OP_CHUNKED, 0, 0, 0, {1, 2, 3, 4}}, CONTIG, DEFLATE(0, 1, 1)}},
    {NC_FLOAT, 4, {10, 20, 30, 40}, {CHUNKED_NULL, CONTIG}},
    /* a record variable cannot be contiguous */
    {NC_FLOAT, 4, {0, 20, 30, 40}, {CONTIG}},
    {NC_DOUBLE, 1, {0}, {CONTIG, CHUNKED_NULL}},
    /* a scalar is contiguous, and takes neither chunks nor filters */
    {NC_INT, 0, {0}, {CHUNKED_NULL, CONTIG, DEFLATE(0, 1, 1)}},
    {NC_INT, 0, {0}, {FLETCHER}},
};
#define NSCASES ((int)(sizeof scases / sizeof scases[0]))

static int apply(const nc4lib *s, int id, int v, const op *o)
{
    switch (o->kind) {
    case OP_DEFLATE:  return s->def_var_deflate(id, v, o->shuffle, o->deflate, o->level);
    case OP_FLETCHER: return s->def_var_fletcher32(id, v, o->deflate);
    case OP_CONTIG:   return s->def_var_chunking(id, v, NC_CONTIGUOUS, NULL);
    case OP_CHUNKED:  return s->def_var_chunking(id, v, NC_CHUNKED, o->chunks);
    default:          return s->def_var_chunking(id, v, NC_CHUNKED, NULL);
    }
}

/* The storage netCDF-C reports (a) and ncslab (b) must be the same, and so
 * must the chunk sizes of a chunked variable. */
static void same_storage(const char *when, int k, int nd, int ra, int sa, const size_t *ca,
                         int rb, int sb, const size_t *cb)
{
    ck_assert_msg(ra == NC_NOERR && rb == NCS_NOERR, "case %d, %s: inquiry -> %d, %d", k, when,
                  ra, rb);
    ck_assert_msg(sa == sb, "case %d, %s: storage netCDF-C %d, ncslab %d", k, when, sa, sb);
    if (sa == NC_CHUNKED)
        for (int d = 0; d < nd; d++)
            ck_assert_msg(ca[d] == cb[d], "case %d, %s: chunks[%d] netCDF-C %zu, ncslab %zu", k,
                          when, d, ca[d], cb[d]);
}

static void compare_now(const char *when, int k, int nd, int nc, int ns, int v)
{
    size_t ca[5] = {0}, cb[5] = {0};
    int sa = -1, sb = -2;
    int ra = nc_inq_var_chunking(nc, v, &sa, ca);
    int rb = ncs_inq_var_chunking(ns, v, &sb, cb);
    same_storage(when, k, nd, ra, sa, ca, rb, sb, cb);
}

/* Creates the case's file through one library; returns the ncid in
 * define mode, the variable's id in *v. */
static int make_var(const nc4lib *s, const char *path, const scase *c, int *v)
{
    int id, dimids[5];
    ck_assert_int_eq(s->create(path, NC_CLOBBER | NC4, &id), 0);
    for (int d = 0; d < c->ndims; d++) {
        char name[8];
        snprintf(name, sizeof name, "d%d", d);
        ck_assert_int_eq(s->def_dim(id, name, c->len[d], &dimids[d]), 0);
    }
    ck_assert_int_eq(s->def_var(id, "v", c->xtype, c->ndims, dimids, v), 0);
    return id;
}

START_TEST(test_storage)
{
    const scase *c = &scases[_i];
    char pa[512], pb[512], when[64];
    int nc, ns, va, vb, rnc, rns, ra, rb, sa = -1, sb = -2;
    size_t ca[5] = {0}, cb[5] = {0};

    path_of(pa, sizeof pa, "storage_nc", _i);
    path_of(pb, sizeof pb, "storage_ns", _i);
    nc = make_var(&nc4_netcdf, pa, c, &va);
    ns = make_var(&nc4_ncslab, pb, c, &vb);
    compare_now("after def_var", _i, c->ndims, nc, ns, va);
    for (int i = 0; i < 4 && c->ops[i].kind != OP_END; i++) {
        ra = apply(&nc4_netcdf, nc, va, &c->ops[i]);
        rb = apply(&nc4_ncslab, ns, vb, &c->ops[i]);
        ck_assert_msg(ra == rb, "case %d, call %d: netCDF-C %d (%s), ncslab %d (%s)", _i, i, ra,
                      nc_strerror(ra), rb, ncs_strerror(rb));
        snprintf(when, sizeof when, "after call %d", i);
        compare_now(when, _i, c->ndims, nc, ns, va);
    }
    NC_OK(nc_enddef(nc));
    NS_OK(ncs_enddef(ns));
    compare_now("after enddef", _i, c->ndims, nc, ns, va);
    NC_OK(nc_close(nc));
    NS_OK(ncs_close(ns));

    /* each library's file as the other reads it, and as it reads its own */
    NC_OK(nc_open(pa, NC_NOWRITE, &nc));
    NS_OK(ncs_open(pb, NCS_NOWRITE, &ns));
    compare_now("reopened", _i, c->ndims, nc, ns, va);
    NC_OK(nc_open(pb, NC_NOWRITE, &rnc));
    NS_OK(ncs_open(pa, NCS_NOWRITE, &rns));
    ra = nc_inq_var_chunking(nc, va, &sa, ca);
    rb = nc_inq_var_chunking(rnc, va, &sb, cb);
    same_storage("netCDF-C reading ncslab's file", _i, c->ndims, ra, sa, ca, rb, sb, cb);
    compare_now("ncslab reading netCDF-C's file", _i, c->ndims, nc, rns, va);
    NC_OK(nc_close(nc));
    NC_OK(nc_close(rnc));
    NS_OK(ncs_close(ns));
    NS_OK(ncs_close(rns));
    unlink(pa);
    unlink(pb);
}
END_TEST

/* A record variable defined after records exist: netCDF-C's chunks do not
 * depend on the record count (nor on the reopen). */
START_TEST(test_later)
{
    static const int types[] = {NC_DOUBLE, NC_BYTE, NC_FLOAT};
    char pa[512], pb[512];
    const nc4lib *sides[2] = {&nc4_netcdf, &nc4_ncslab};
    const char *paths[2] = {pa, pb};
    int ids[2], rec[2], v[2], w[2];
    double five[5] = {1, 2, 3, 4, 5};
    size_t start = 0, count = 5;

    path_of(pa, sizeof pa, "later_nc", _i);
    path_of(pb, sizeof pb, "later_ns", _i);
    for (int k = 0; k < 2; k++) {
        const nc4lib *s = sides[k];
        int d7;
        ck_assert_int_eq(s->create(paths[k], NC_CLOBBER | NC4, &ids[k]), 0);
        ck_assert_int_eq(s->def_dim(ids[k], "t", 0, &rec[k]), 0);
        ck_assert_int_eq(s->def_dim(ids[k], "x", 7, &d7), 0);
        ck_assert_int_eq(s->def_var(ids[k], "r", NC_DOUBLE, 1, &rec[k], &v[k]), 0);
        ck_assert_int_eq(s->enddef(ids[k]), 0);
    }
    NC_OK(nc_put_vara_double(ids[0], v[0], &start, &count, five));
    NS_OK(ncs_put(ids[1], v[1], &start, &count, NULL, NULL, NCS_DOUBLE, five));
    NC_OK(nc_close(ids[0]));
    NS_OK(ncs_close(ids[1]));
    NC_OK(nc_open(pa, NC_WRITE, &ids[0]));
    NS_OK(ncs_open(pb, NCS_WRITE, &ids[1]));
    NC_OK(nc_redef(ids[0]));
    NS_OK(ncs_redef(ids[1]));
    for (int k = 0; k < 2; k++) {
        int dims[2] = {rec[k], 1};
        ck_assert_int_eq(sides[k]->def_var(ids[k], "added", types[_i], _i == 2 ? 2 : 1, dims,
                                           &w[k]),
                         0);
    }
    compare_now("defined after 5 records", _i, _i == 2 ? 2 : 1, ids[0], ids[1], w[0]);
    NC_OK(nc_enddef(ids[0]));
    NS_OK(ncs_enddef(ids[1]));
    compare_now("after enddef", _i, _i == 2 ? 2 : 1, ids[0], ids[1], w[0]);
    NC_OK(nc_close(ids[0]));
    NS_OK(ncs_close(ids[1]));
    unlink(pa);
    unlink(pb);
}
END_TEST

/* Where netCDF-C 4.9.0 cuts a new 1-D record variable's chunks to the
 * record count it happens to know (a coordinate variable of the record
 * dimension in a reopened file, or an nc_inq_dimlen before; a netCDF-C
 * bug, doc/chunking.md), ncslab keeps the 4096 bytes' worth. */
START_TEST(test_later_kept)
{
    char path[512];
    int ns, t, c, r, a, storage = -1;
    double five[5] = {1, 2, 3, 4, 5};
    size_t start = 0, count = 5, len = 0, chunk = 0;

    path_of(path, sizeof path, "later_kept", 0);
    NS_OK(ncs_create(path, NCS_CLOBBER | NC4, &ns));
    NS_OK(ncs_def_dim(ns, "t", NCS_UNLIMITED, &t));
    NS_OK(ncs_def_var(ns, "t", NCS_DOUBLE, 1, &t, &c));
    NS_OK(ncs_def_var(ns, "r", NCS_DOUBLE, 1, &t, &r));
    NS_OK(ncs_enddef(ns));
    NS_OK(ncs_put(ns, c, &start, &count, NULL, NULL, NCS_DOUBLE, five));
    NS_OK(ncs_put(ns, r, &start, &count, NULL, NULL, NCS_DOUBLE, five));
    NS_OK(ncs_close(ns));
    NS_OK(ncs_open(path, NCS_WRITE, &ns));
    NS_OK(ncs_inq_dimlen(ns, t, &len));
    ck_assert_uint_eq(len, 5);
    NS_OK(ncs_redef(ns));
    NS_OK(ncs_def_var(ns, "a", NCS_DOUBLE, 1, &t, &a));
    NS_OK(ncs_enddef(ns));
    NS_OK(ncs_inq_var_chunking(ns, a, &storage, &chunk));
    ck_assert_int_eq(storage, NCS_CHUNKED);
    ck_assert_uint_eq(chunk, 512);
    NS_OK(ncs_close(ns));
    unlink(path);
}
END_TEST

/* ---- hidden attributes ------------------------------------------------------------ */

/* Names of the attributes a reader could take for bookkeeping; the test
 * adds each (an int) to the root group and to a variable through HDF5, and
 * both libraries must show the same ones, in the same order. */
static const char *const candidates[] = {
    "_Netcdf4Coordinates", "_Netcdf4Dimid", "_nc3_strict", "_NCProperties",
    "_SuperblockVersion", "_IsNetcdf4", "_Format", "_ARRAY_DIMENSIONS", "_Codecs",
    "_QuantizeBitGroomNumberOfSignificantDigits",
    "_QuantizeGranularBitRoundNumberOfSignificantDigits",
    "_QuantizeBitRoundNumberOfSignificantBits", "_nczarr_attr", "_Storage", "_ChunkSizes",
    "_Endianness", "_NoFill", "_Shuffle", "_DeflateLevel", "_Fletcher32", "_Filter",
    "_Unsigned", "CLASS_", "ordinary",
};
#define NCANDIDATES ((int)(sizeof candidates / sizeof candidates[0]))

static void add_h5_atts(hid_t obj)
{
    int seven = 7;
    hid_t space = H5Screate(H5S_SCALAR);
    ck_assert(space >= 0);
    for (int i = 0; i < NCANDIDATES; i++) {
        hid_t a;
        if (H5Aexists(obj, candidates[i]) > 0)
            continue;         /* the library's own: _NCProperties, _nc3_strict, ... */
        a = H5Acreate2(obj, candidates[i], H5T_NATIVE_INT, space, H5P_DEFAULT, H5P_DEFAULT);
        ck_assert_msg(a >= 0, "H5Acreate2 %s", candidates[i]);
        ck_assert(H5Awrite(a, H5T_NATIVE_INT, &seven) >= 0);
        H5Aclose(a);
    }
    H5Sclose(space);
}

START_TEST(test_hidden)
{
    char path[512];
    int nc, ns, d, v, na = -1, nb = -2;
    hid_t fid, ds, fapl;

    path_of(path, sizeof path, "hidden", _i);
    NC_OK(nc_create(path, NC_CLOBBER | (_i ? NC4 : NC_NETCDF4), &nc));
    NC_OK(nc_def_dim(nc, "x", 3, &d));
    NC_OK(nc_def_var(nc, "v", NC_INT, 1, &d, &v));
    NC_OK(nc_def_var(nc, "x", NC_INT, 1, &d, &v));
    NC_OK(nc_close(nc));
    fapl = H5Pcreate(H5P_FILE_ACCESS);
    ck_assert(fapl >= 0 && H5Pset_libver_bounds(fapl, H5F_LIBVER_EARLIEST, H5F_LIBVER_V18) >= 0);
    fid = H5Fopen(path, H5F_ACC_RDWR, fapl);
    H5Pclose(fapl);
    ck_assert(fid >= 0);
    add_h5_atts(fid);
    ds = H5Dopen2(fid, "v", H5P_DEFAULT);
    ck_assert(ds >= 0);
    add_h5_atts(ds);
    H5Dclose(ds);
    ds = H5Dopen2(fid, "x", H5P_DEFAULT);     /* a dimension scale */
    ck_assert(ds >= 0);
    add_h5_atts(ds);
    H5Dclose(ds);
    H5Fclose(fid);

    NC_OK(nc_open(path, NC_NOWRITE, &nc));
    NS_OK(ncs_open(path, NCS_NOWRITE, &ns));
    for (int varid = -1; varid < 2; varid++) {
        NC_OK(nc_inq_varnatts(nc, varid, &na));
        NS_OK(ncs_inq_varnatts(ns, varid, &nb));
        ck_assert_msg(na == nb, "variable %d: %d attributes in netCDF-C, %d in ncslab", varid, na,
                      nb);
        for (int i = 0; i < na; i++) {
            char a[NC_MAX_NAME + 1], b[NCS_MAX_NAME + 1];
            NC_OK(nc_inq_attname(nc, varid, i, a));
            NS_OK(ncs_inq_attname(ns, varid, i, b));
            ck_assert_msg(strcmp(a, b) == 0, "variable %d, attribute %d: netCDF-C %s, ncslab %s",
                          varid, i, a, b);
        }
    }
    NC_OK(nc_close(nc));
    NS_OK(ncs_close(ns));
    unlink(path);
}
END_TEST

/* ---- main ----------------------------------------------------------------------------- */

static Suite *defaults_suite(void)
{
    Suite *s = suite_create("diff_nc4_defaults");
    TCase *tc = tcase_create("defaults");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, test_storage, 0, NSCASES);
    tcase_add_loop_test(tc, test_later, 0, 3);
    tcase_add_test(tc, test_later_kept);
    tcase_add_loop_test(tc, test_hidden, 0, 2);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);     /* test processes fork */
    if (nc4_make_tmpdir(tmpdir, sizeof tmpdir, "diff_nc4_defaults") != 0)
        return 99;
    return nc4_run_suite(defaults_suite(), "diff_nc4_defaults", tmpdir, NULL);
}
