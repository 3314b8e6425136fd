/*
 * check_req.c -- nonblocking requests in one process (ncs_iget, ncs_iput,
 * ncs_wait_all, ncs_cancel, ncs_inq_nreqs) on every classic format and on
 * netCDF-4 classic-model files.
 *
 * Covers: a wait carries out every request as the blocking call would
 * (values written and read back compared with ncs_get of the same
 * boxes, strides and maps included, conversions); puts before gets in
 * one wait; records added by a posted put; a request refused at posting
 * returns the blocking call's error and posts nothing; statuses of
 * strided requests clipped at the end of the data are the blocking
 * call's; unknown, repeated and already-completed ids are
 * NCS_EINVAL_REQUEST and leave every request pending; ncs_cancel moves
 * nothing; ncs_close with requests pending returns NCS_EPENDING and the
 * file keeps what was written before.
 */
#include "testutil.h"

#define PROG "req"
#define NY 6
#define NX 8

static const int fmt_cmode[] = { 0, NCS_64BIT_OFFSET, NCS_64BIT_DATA,
                                 NCS_NETCDF4 | NCS_CLASSIC_MODEL };
#define NFMT ((int)TU_NELEMS(fmt_cmode))

/* A file with a fixed int variable "a" (NY x NX) and a record double
 * variable "r" (time x NX). */
static void make(const char *path, int cmode, int *ncidp, int *a, int *r)
{
    int ncid, d[3];
    NCS_OK(ncs_create(path, NCS_CLOBBER | cmode, &ncid));
    NCS_OK(ncs_def_dim(ncid, "time", NCS_UNLIMITED, &d[0]));
    NCS_OK(ncs_def_dim(ncid, "y", NY, &d[1]));
    NCS_OK(ncs_def_dim(ncid, "x", NX, &d[2]));
    NCS_OK(ncs_def_var(ncid, "a", NCS_INT, 2, d + 1, a));
    d[1] = d[2];
    NCS_OK(ncs_def_var(ncid, "r", NCS_DOUBLE, 2, d, r));
    NCS_OK(ncs_enddef(ncid));
    *ncidp = ncid;
}

START_TEST(test_wait_matches_blocking)
{
    char path[256];
    int ncid, a, r, req[8], st[8], n = 0, npend = -1;
    int row[NX], box[3 * 4], strided[3 * 2];
    double rec[2 * NX];
    int back_row[NX], back_box[4 * 3], back_str[3 * 2], whole[NY * NX], want[NY * NX];
    double back_rec[2 * NX];
    size_t s0[2] = { 1, 0 }, c0[2] = { 1, NX };
    size_t s1[2] = { 2, 2 }, c1[2] = { 3, 4 };
    size_t s2[2] = { 0, 1 }, c2[2] = { 3, 2 };
    ptrdiff_t str2[2] = { 2, 6 }, map1[2] = { 1, 3 };      /* box, transposed in memory */
    size_t s3[2] = { 0, 0 }, c3[2] = { 2, NX };

    tu_path(path, sizeof path, PROG, "match");
    make(path, fmt_cmode[_i], &ncid, &a, &r);
    for (int i = 0; i < NX; i++)
        row[i] = 100 + i;
    for (int i = 0; i < 12; i++)
        box[i] = 200 + i;
    for (int i = 0; i < 6; i++)
        strided[i] = 300 + i;
    for (int i = 0; i < 2 * NX; i++)
        rec[i] = 0.5 * i;
    NCS_OK(ncs_iput(ncid, a, s0, c0, NULL, NULL, NCS_INT, row, &req[n++]));
    NCS_OK(ncs_iput(ncid, a, s1, c1, NULL, map1, NCS_INT, box, &req[n++]));
    NCS_OK(ncs_iput(ncid, a, s2, c2, str2, NULL, NCS_INT, strided, &req[n++]));
    NCS_OK(ncs_iput(ncid, r, s3, c3, NULL, NULL, NCS_DOUBLE, rec, &req[n++]));
    /* gets posted before the puts' wait still read what the puts wrote */
    NCS_OK(ncs_iget(ncid, a, s1, c1, NULL, map1, NCS_INT, back_box, &req[n++]));
    NCS_OK(ncs_inq_nreqs(ncid, &npend));
    ck_assert_int_eq(npend, 5);
    for (int i = 0; i < n; i++)
        ck_assert_int_gt(req[i], 0);
    /* nothing moved yet: the record variable has no records */
    {
        size_t nrec = 99;
        int dimid;
        NCS_OK(ncs_inq_dimid(ncid, "time", &dimid));
        NCS_OK(ncs_inq_dimlen(ncid, dimid, &nrec));
        ck_assert_uint_eq(nrec, 0);
    }
    NCS_OK(ncs_wait_all(ncid, n, req, st));
    for (int i = 0; i < n; i++) {
        ck_assert_int_eq(st[i], NCS_NOERR);
        ck_assert_int_eq(req[i], NCS_REQ_NULL);
    }
    NCS_OK(ncs_inq_nreqs(ncid, &npend));
    ck_assert_int_eq(npend, 0);
    ck_assert_mem_eq(back_box, box, sizeof box);
    /* what the blocking calls read */
    for (int i = 0; i < NY * NX; i++)
        want[i] = NCS_FILL_INT;
    for (int x = 0; x < NX; x++)
        want[1 * NX + x] = row[x];
    for (int y = 0; y < 3; y++)
        for (int x = 0; x < 4; x++)
            want[(2 + y) * NX + 2 + x] = box[y * 1 + x * 3];
    for (int y = 0; y < 3; y++)
        for (int x = 0; x < 2; x++)
            want[(0 + 2 * y) * NX + 1 + 6 * x] = strided[y * 2 + x];
    NCS_OK(ncs_get(ncid, a, NULL, NULL, NULL, NULL, NCS_INT, whole));
    ck_assert_mem_eq(whole, want, sizeof want);
    /* reads of every kind in one wait, NCS_REQ_ALL */
    NCS_OK(ncs_iget(ncid, a, s0, c0, NULL, NULL, NCS_INT, back_row, &req[0]));
    NCS_OK(ncs_iget(ncid, a, s2, c2, str2, NULL, NCS_INT, back_str, &req[1]));
    NCS_OK(ncs_iget(ncid, r, s3, c3, NULL, NULL, NCS_DOUBLE, back_rec, &req[2]));
    NCS_OK(ncs_wait_all(ncid, NCS_REQ_ALL, NULL, NULL));
    ck_assert_mem_eq(back_row, row, sizeof row);
    ck_assert_mem_eq(back_str, strided, sizeof strided);
    ck_assert_mem_eq(back_rec, rec, sizeof rec);
    NCS_OK(ncs_close(ncid));
    unlink(path);
}
END_TEST

START_TEST(test_errors)
{
    char path[256];
    int ncid, a, r, req = 0, req2 = 0, st[3] = { 1, 1, 1 }, npend = -1, vals[NX] = { 0 };
    int bad[2];
    size_t s0[2] = { 0, 0 }, c0[2] = { 1, NX }, sbad[2] = { NY, 0 }, cbig[2] = { 1, NX + 1 };
    ptrdiff_t str[2] = { 1, 3 };
    size_t sclip[2] = { 0, 0 }, cclip[2] = { 1, 4 };   /* x 0, 3, 6, 9: past NX */

    tu_path(path, sizeof path, PROG, "errors");
    make(path, fmt_cmode[_i], &ncid, &a, &r);
    /* refused at posting with the blocking call's code, nothing posted */
    {
        int want = ncs_put(ncid, a, sbad, c0, NULL, NULL, NCS_INT, vals);
        ck_assert_int_ne(want, NCS_NOERR);
        NCS_IS(ncs_iput(ncid, a, sbad, c0, NULL, NULL, NCS_INT, vals, &req), want);
    }
    NCS_IS(ncs_iget(ncid, a, s0, cbig, NULL, NULL, NCS_INT, vals, &req), NCS_EEDGE);
    NCS_IS(ncs_iget(ncid, 99, s0, c0, NULL, NULL, NCS_INT, vals, &req), NCS_ENOTVAR);
    NCS_IS(ncs_iget(ncid, a, s0, c0, NULL, NULL, NCS_INT, vals, NULL), NCS_EINVAL);
    NCS_IS(ncs_iget(ncid + 4096, a, s0, c0, NULL, NULL, NCS_INT, vals, &req), NCS_EBADID);
    NCS_OK(ncs_inq_nreqs(ncid, &npend));
    ck_assert_int_eq(npend, 0);

    /* unknown and repeated ids: nothing done, everything still pending */
    for (int i = 0; i < NX; i++)
        vals[i] = i + 1;
    NCS_OK(ncs_iput(ncid, a, s0, c0, NULL, NULL, NCS_INT, vals, &req));
    bad[0] = req;
    bad[1] = req + 1000;
    NCS_IS(ncs_wait_all(ncid, 2, bad, st), NCS_EINVAL_REQUEST);
    bad[1] = req;
    NCS_IS(ncs_wait_all(ncid, 2, bad, st), NCS_EINVAL_REQUEST);
    NCS_OK(ncs_inq_nreqs(ncid, &npend));
    ck_assert_int_eq(npend, 1);
    ck_assert_int_eq(bad[0], req);

    /* cancel: nothing written */
    NCS_OK(ncs_cancel(ncid, 1, &req, st));
    ck_assert_int_eq(req, NCS_REQ_NULL);
    NCS_OK(ncs_inq_nreqs(ncid, &npend));
    ck_assert_int_eq(npend, 0);
    {
        int got[NX];
        NCS_OK(ncs_get(ncid, a, s0, c0, NULL, NULL, NCS_INT, got));
        for (int i = 0; i < NX; i++)
            ck_assert_int_eq(got[i], NCS_FILL_INT);
    }
    /* a completed id is no longer pending */
    NCS_OK(ncs_iput(ncid, a, s0, c0, NULL, NULL, NCS_INT, vals, &req));
    req2 = req;
    NCS_OK(ncs_wait_all(ncid, 1, &req, st));
    NCS_IS(ncs_wait_all(ncid, 1, &req2, st), NCS_EINVAL_REQUEST);

    /* a strided get clipped at the end: the blocking call's status, in
     * statuses and as the wait's */
    {
        int got[4] = { 0 }, blocking[4] = { 0 };
        int want = ncs_get(ncid, a, sclip, cclip, str, NULL, NCS_INT, blocking);
        ck_assert_int_ne(want, NCS_NOERR);
        int posted = ncs_iget(ncid, a, sclip, cclip, str, NULL, NCS_INT, got, &req);
        if (posted != NCS_NOERR) {
            /* refused before anything moves (netCDF-4), as the blocking call */
            ck_assert_int_eq(posted, want);
        } else {
            /* moved what exists, then failed (classic) */
            NCS_IS(ncs_wait_all(ncid, 1, &req, st), want);
            ck_assert_int_eq(st[0], want);
            ck_assert_mem_eq(got, blocking, sizeof got);
        }
    }

    /* close with a request pending: NCS_EPENDING, earlier data kept */
    NCS_OK(ncs_iput(ncid, r, s0, c0, NULL, NULL, NCS_INT, vals, &req));
    NCS_IS(ncs_close(ncid), NCS_EPENDING);
    NCS_OK(ncs_open(path, NCS_NOWRITE, &ncid));
    {
        int got[NX], dimid;
        size_t nrec = 99;
        NCS_OK(ncs_get(ncid, a, s0, c0, NULL, NULL, NCS_INT, got));
        ck_assert_mem_eq(got, vals, sizeof got);
        NCS_OK(ncs_inq_dimid(ncid, "time", &dimid));
        NCS_OK(ncs_inq_dimlen(ncid, dimid, &nrec));
        ck_assert_uint_eq(nrec, 0);
    }
    NCS_OK(ncs_close(ncid));
    unlink(path);
}
END_TEST

static Suite *req_suite(void)
{
    Suite *s = suite_create("req");
    TCase *tc = tcase_create("requests");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, test_wait_matches_blocking, 0, NFMT);
    tcase_add_loop_test(tc, test_errors, 0, NFMT);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return tu_run(req_suite());
}
