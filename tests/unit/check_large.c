/*
 * check_large.c -- offsets past 4 GiB, in sparse files.
 *
 * In nofill mode only the elements a test writes reach the disk, so files
 * of several GiB stay a few blocks on disk and the tests take milliseconds.
 * Covered: a fixed variable placed after huge ones (CDF-2: after two 3 GB
 * variables; CDF-5: after one of 5 GB, whose dimension itself needs 64
 * bits), record variables whose records lie past 4 GiB, and NCS_EVARSIZE
 * where the format cannot hold the layout (CDF-1 offsets, a CDF-2 non-last
 * variable over 4 GiB).  When netCDF-C is available it reads the ncslab
 * files too, which checks the header offsets independently.
 */
#include <sys/stat.h>

#include "testutil.h"

#define PROG "large"

/* At most this much real disk per file. */
#define MAX_DISK (64u << 20)

static void check_sparse(const char *path, unsigned long long min_size)
{
    struct stat sb;
    ck_assert_int_eq(stat(path, &sb), 0);
    ck_assert_msg((unsigned long long)sb.st_size >= min_size,
                  "%s is %lld bytes, expected at least %llu", path,
                  (long long)sb.st_size, min_size);
    ck_assert_msg((unsigned long long)sb.st_blocks * 512 <= MAX_DISK,
                  "%s uses %lld bytes of disk: not sparse", path,
                  (long long)sb.st_blocks * 512);
}

/* _i: 0 CDF-2, 1 CDF-5. */
START_TEST(test_fixed_after_huge)
{
    const tu_format *f = &tu_formats[1 + _i];
    const size_t big = f->cdf5 ? 5000000000UL : 3000000000UL;
    char path[256];
    int ncid, x, n, a, b = -1, c, old, i;
    signed char one;
    int cv[4] = {-7, 70000, 3, 2147483647}, got[4];
    size_t idx, st = 0, ct = 4;
    tu_path(path, sizeof path, PROG, f->cdf5 ? "fixed5" : "fixed2");
    NCS_OK(ncs_create(path, NCS_CLOBBER | f->cmode, &ncid));
    NCS_OK(ncs_set_fill(ncid, NCS_NOFILL, &old));
    NCS_OK(ncs_def_dim(ncid, "x", big, &x));
    NCS_OK(ncs_def_dim(ncid, "n", 4, &n));
    NCS_OK(ncs_def_var(ncid, "a", NCS_BYTE, 1, &x, &a));
    if (!f->cdf5)
        NCS_OK(ncs_def_var(ncid, "b", NCS_BYTE, 1, &x, &b));
    NCS_OK(ncs_def_var(ncid, "c", NCS_INT, 1, &n, &c));
    NCS_OK(ncs_enddef(ncid));
    for (i = 0; i < 2; i++) {
        idx = i ? big - 1 : 0;
        one = (signed char)(i ? -2 : 1);
        NCS_OK(ncs_put1(ncid, a, &idx, NCS_BYTE, &one));
        if (b >= 0) {
            one = (signed char)(i ? -4 : 3);
            NCS_OK(ncs_put1(ncid, b, &idx, NCS_BYTE, &one));
        }
    }
    NCS_OK(ncs_put(ncid, c, &st, &ct, NULL, NULL, NCS_INT, cv));
    NCS_OK(ncs_close(ncid));
    check_sparse(path, (unsigned long long)big * (f->cdf5 ? 1 : 2) + 16);

    NCS_OK(ncs_open(path, NCS_NOWRITE, &ncid));
    NCS_OK(ncs_get(ncid, c, &st, &ct, NULL, NULL, NCS_INT, got));
    ck_assert_mem_eq(got, cv, sizeof cv);
    idx = big - 1;
    NCS_OK(ncs_get1(ncid, a, &idx, NCS_BYTE, &one));
    ck_assert_int_eq(one, -2);
    if (b >= 0) {
        NCS_OK(ncs_get1(ncid, b, &idx, NCS_BYTE, &one));
        ck_assert_int_eq(one, -4);
        idx = 0;
        NCS_OK(ncs_get1(ncid, b, &idx, NCS_BYTE, &one));
        ck_assert_int_eq(one, 3);
    }
    {   /* a strided read across the huge variable (netCDF-C refuses
         * strides of 2^31 - 1 or more, so stay below) */
        signed char three[3] = {5, 5, 5};
        const size_t step = 1400000000UL;
        size_t s0 = big - 1 - 2 * step, c3 = 3;
        ptrdiff_t sd = (ptrdiff_t)step;
        NCS_OK(ncs_get(ncid, a, &s0, &c3, &sd, NULL, NCS_BYTE, three));
        ck_assert_int_eq(three[0], 0);           /* holes read as zeros */
        ck_assert_int_eq(three[1], 0);
        ck_assert_int_eq(three[2], -2);
    }
    NCS_OK(ncs_close(ncid));
#ifdef HAVE_NETCDF
    {
        int nc, vc, va;
        signed char sc;
        ck_assert_int_eq(nc_open(path, NC_NOWRITE, &nc), NC_NOERR);
        ck_assert_int_eq(nc_inq_varid(nc, "c", &vc), NC_NOERR);
        memset(got, 0, sizeof got);
        ck_assert_int_eq(nc_get_var_int(nc, vc, got), NC_NOERR);
        ck_assert_mem_eq(got, cv, sizeof cv);
        ck_assert_int_eq(nc_inq_varid(nc, f->cdf5 ? "a" : "b", &va), NC_NOERR);
        idx = big - 1;
        ck_assert_int_eq(nc_get_var1_schar(nc, va, &idx, &sc), NC_NOERR);
        ck_assert_int_eq(sc, f->cdf5 ? -2 : -4);
        ck_assert_int_eq(nc_close(nc), NC_NOERR);
    }
#endif
    unlink(path);
}
END_TEST

/* Records past 4 GiB: record size about 2 GB, four records. */
START_TEST(test_records_past_4g)
{
    const tu_format *f = &tu_formats[1 + _i];
    const size_t ylen = 2000000000UL;
    char path[256];
    int ncid, t, y, z, r, s, d2[2];
    size_t n, st[2], ct[2], idx[2];
    int sv[4] = {31, -32, 33, -34}, got[4];
    signed char one = 99, back = 0;
    tu_path(path, sizeof path, PROG, f->cdf5 ? "rec5" : "rec2");
    NCS_OK(ncs_create(path, NCS_CLOBBER | f->cmode, &ncid));
    NCS_OK(ncs_set_fill(ncid, NCS_NOFILL, NULL));
    NCS_OK(ncs_def_dim(ncid, "t", NCS_UNLIMITED, &t));
    NCS_OK(ncs_def_dim(ncid, "y", ylen, &y));
    NCS_OK(ncs_def_dim(ncid, "z", 4, &z));
    d2[0] = t;
    d2[1] = y;
    NCS_OK(ncs_def_var(ncid, "r", NCS_BYTE, 2, d2, &r));
    d2[1] = z;
    NCS_OK(ncs_def_var(ncid, "s", NCS_INT, 2, d2, &s));
    NCS_OK(ncs_enddef(ncid));
    st[0] = 3; st[1] = 0; ct[0] = 1; ct[1] = 4;
    NCS_OK(ncs_put(ncid, s, st, ct, NULL, NULL, NCS_INT, sv));
    idx[0] = 2;
    idx[1] = ylen - 1;
    NCS_OK(ncs_put1(ncid, r, idx, NCS_BYTE, &one));
    NCS_OK(ncs_inq_dimlen(ncid, t, &n));
    ck_assert_uint_eq(n, 4);
    NCS_OK(ncs_close(ncid));
    check_sparse(path, 3ULL * (ylen + 16));

    NCS_OK(ncs_open(path, NCS_NOWRITE, &ncid));
    NCS_OK(ncs_inq_dimlen(ncid, t, &n));
    ck_assert_uint_eq(n, 4);
    NCS_OK(ncs_get(ncid, s, st, ct, NULL, NULL, NCS_INT, got));
    ck_assert_mem_eq(got, sv, sizeof sv);
    NCS_OK(ncs_get1(ncid, r, idx, NCS_BYTE, &back));
    ck_assert_int_eq(back, 99);
    NCS_OK(ncs_close(ncid));
#ifdef HAVE_NETCDF
    {
        int nc;
        size_t nrec;
        ck_assert_int_eq(nc_open(path, NC_NOWRITE, &nc), NC_NOERR);
        ck_assert_int_eq(nc_inq_dimlen(nc, t, &nrec), NC_NOERR);
        ck_assert_uint_eq(nrec, 4);
        memset(got, 0, sizeof got);
        ck_assert_int_eq(nc_get_vara_int(nc, s, st, ct, got), NC_NOERR);
        ck_assert_mem_eq(got, sv, sizeof sv);
        back = 0;
        ck_assert_int_eq(nc_get_var1_schar(nc, r, idx, &back), NC_NOERR);
        ck_assert_int_eq(back, 99);
        ck_assert_int_eq(nc_close(nc), NC_NOERR);
    }
#endif
    unlink(path);
}
END_TEST

/* Layouts a format cannot hold: ncs_def_var accepts them, ncs_enddef says
 * NCS_EVARSIZE (as nc_enddef does). */
START_TEST(test_evarsize)
{
    static const struct {
        int fmt;                 /* index in tu_formats */
        int type_a;
        int want;
    } cases[] = {
        {0, NCS_INT, NCS_EVARSIZE},    /* 8 GB, then more: CDF-1 */
        {0, NCS_BYTE, NCS_EVARSIZE},   /* 2 + 1.5 GB: past CDF-1 offsets */
        {1, NCS_INT, NCS_EVARSIZE},    /* CDF-2: 8 GB non-last variable */
        {1, NCS_BYTE, NCS_NOERR},      /* CDF-2: 64-bit offsets */
        {2, NCS_INT, NCS_NOERR},       /* CDF-5: anything */
    };
    const tu_format *f = &tu_formats[cases[_i].fmt];
    char path[256];
    int ncid, x, y, a, b, c;
    tu_path(path, sizeof path, PROG, "evarsize");
    NCS_OK(ncs_create(path, NCS_CLOBBER | f->cmode, &ncid));
    NCS_OK(ncs_set_fill(ncid, NCS_NOFILL, NULL));
    NCS_OK(ncs_def_dim(ncid, "x", 2000000000UL, &x));
    NCS_OK(ncs_def_dim(ncid, "y", 1500000000UL, &y));
    NCS_OK(ncs_def_var(ncid, "a", cases[_i].type_a, 1, &x, &a));
    NCS_OK(ncs_def_var(ncid, "b", NCS_BYTE, 1, &y, &b));
    if (cases[_i].type_a == NCS_BYTE)
        NCS_OK(ncs_def_var(ncid, "c", NCS_BYTE, 1, &y, &c));
    NCS_IS(ncs_enddef(ncid), cases[_i].want);
    NCS_OK(ncs_abort(ncid));
    unlink(path);
}
END_TEST

/* Dimension lengths past what CDF-1 can say (NCS_EDIMSIZE). */
START_TEST(test_edimsize)
{
    char path[256];
    int ncid, d;
    tu_path(path, sizeof path, PROG, "edimsize");
    NCS_OK(ncs_create(path, NCS_CLOBBER, &ncid));
    NCS_IS(ncs_def_dim(ncid, "a", 2147483647UL, &d), NCS_EDIMSIZE);
    NCS_IS(ncs_def_dim(ncid, "b", 3000000000UL, &d), NCS_EDIMSIZE);
    NCS_IS(ncs_def_dim(ncid, "c", (size_t)-1, &d), NCS_EDIMSIZE);
    NCS_OK(ncs_def_dim(ncid, "d", 2000000000UL, &d));
    NCS_OK(ncs_abort(ncid));
    unlink(path);
}
END_TEST

static Suite *large_suite(void)
{
    Suite *s = suite_create("large");
    TCase *tc = tcase_create("large");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, test_fixed_after_huge, 0, 2);
    tcase_add_loop_test(tc, test_records_past_4g, 0, 2);
    tcase_add_loop_test(tc, test_evarsize, 0, 5);
    tcase_add_test(tc, test_edimsize);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return tu_run(large_suite());
}
