/*
 * check_refresh.c -- a read of a classic file opened NCS_NOWRITE|NCS_SHARE
 * that reaches past the record count it knows re-reads the count from the
 * file (another process may have added records).  When that re-read fails
 * the read fails with the I/O error, as netCDF-C's does, rather than going
 * on with the old count and reporting a bad coordinate; when it succeeds the
 * new records are read.  The failure comes from tests/support/io_fault.c.
 */
#include <errno.h>

#include "testutil.h"
#include "io_fault.h"

#define NX 3

static char path[64];

/* A file with NREC records of rec(rec, x), element [r][i] = 10 r + i. */
static void make_file(int cmode, size_t nrec)
{
    int ncid, dims[2], varid;
    ck_assert_int_eq(ncs_create(path, cmode | NCS_CLOBBER, &ncid), NCS_NOERR);
    ck_assert_int_eq(ncs_def_dim(ncid, "rec", NCS_UNLIMITED, &dims[0]), NCS_NOERR);
    ck_assert_int_eq(ncs_def_dim(ncid, "x", NX, &dims[1]), NCS_NOERR);
    ck_assert_int_eq(ncs_def_var(ncid, "v", NCS_INT, 2, dims, &varid), NCS_NOERR);
    ck_assert_int_eq(ncs_enddef(ncid), NCS_NOERR);
    for (size_t r = 0; r < nrec; r++) {
        int row[NX];
        size_t start[2] = { r, 0 }, count[2] = { 1, NX };
        for (int i = 0; i < NX; i++)
            row[i] = (int)(10 * r) + i;
        ck_assert_int_eq(ncs_put(ncid, varid, start, count, NULL, NULL, NCS_INT, row),
                         NCS_NOERR);
    }
    ck_assert_int_eq(ncs_close(ncid), NCS_NOERR);
}

static const int cmodes[] = { 0, NCS_64BIT_OFFSET, NCS_64BIT_DATA };

START_TEST(refresh_fails)
{
    int ncid, row[NX] = { -1, -1, -1 };
    size_t start[2] = { 3, 0 }, count[2] = { 1, NX }, len;
    snprintf(path, sizeof path, "ut_refresh_%ld_%d.nc", (long)getpid(), _i);
    make_file(cmodes[_i], 2);
    ck_assert_int_eq(ncsi_fault_io_install(NCSI_FAULT_READ, 0, 0), NCS_NOERR);
    ck_assert_int_eq(ncs_open(path, NCS_NOWRITE | NCS_SHARE, &ncid), NCS_NOERR);
    /* record 3 lies past the 2 known, so the count is re-read first: the
     * first read from now on is that one */
    ck_assert_int_eq(ncsi_fault_io_install(NCSI_FAULT_READ, 1, EIO), NCS_NOERR);
    ck_assert_int_eq(ncs_get(ncid, 0, start, count, NULL, NULL, NCS_INT, row), EIO);
    ck_assert(ncsi_fault_io_fired());
    ncsi_fault_io_remove();
    ck_assert_int_eq(row[0], -1);
    /* once the file reads again, the same request gets the old answer */
    ck_assert_int_eq(ncs_get(ncid, 0, start, count, NULL, NULL, NCS_INT, row),
                     NCS_EINVALCOORDS);
    ck_assert_int_eq(ncs_inq_dimlen(ncid, 0, &len), NCS_NOERR);
    ck_assert_uint_eq(len, 2);
    ck_assert_int_eq(ncs_close(ncid), NCS_NOERR);
    ck_assert_int_eq(unlink(path), 0);
}
END_TEST

START_TEST(refresh_sees_new_records)
{
    int reader, writer, row[NX];
    size_t start[2] = { 2, 0 }, count[2] = { 1, NX }, len;
    snprintf(path, sizeof path, "ut_refresh_%ld_%d.nc", (long)getpid(), _i);
    make_file(cmodes[_i] | NCS_SHARE, 2);
    ck_assert_int_eq(ncs_open(path, NCS_NOWRITE | NCS_SHARE, &reader), NCS_NOERR);
    ck_assert_int_eq(ncs_open(path, NCS_WRITE | NCS_SHARE, &writer), NCS_NOERR);
    for (int i = 0; i < NX; i++)
        row[i] = 20 + i;
    ck_assert_int_eq(ncs_put(writer, 0, start, count, NULL, NULL, NCS_INT, row), NCS_NOERR);
    ck_assert_int_eq(ncs_sync(writer), NCS_NOERR);
    for (int i = 0; i < NX; i++)
        row[i] = -1;
    ck_assert_int_eq(ncs_get(reader, 0, start, count, NULL, NULL, NCS_INT, row), NCS_NOERR);
    for (int i = 0; i < NX; i++)
        ck_assert_int_eq(row[i], 20 + i);
    ck_assert_int_eq(ncs_inq_dimlen(reader, 0, &len), NCS_NOERR);
    ck_assert_uint_eq(len, 3);
    ck_assert_int_eq(ncs_close(writer), NCS_NOERR);
    ck_assert_int_eq(ncs_close(reader), NCS_NOERR);
    ck_assert_int_eq(unlink(path), 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("refresh");
    TCase *tc = tcase_create("refresh");
    tcase_add_loop_test(tc, refresh_fails, 0, 3);
    tcase_add_loop_test(tc, refresh_sees_new_records, 0, 3);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
