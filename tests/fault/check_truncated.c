/*
 * check_truncated.c -- a complete classic file (fault_script.c's script, on
 * CDF-1, CDF-2 and CDF-5) cut at every length from 0 to its size minus
 * one: opening it read-only and reading every variable must give the exact
 * values or an error, never fill values or zeros in place of the missing
 * bytes.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ncslab.h"
#include "fault_script.h"

static int truncated_one(const char *full, const char *cut, size_t keep, size_t nx,
                         char *msg, size_t msz)
{
    int ncid, status, bad = 0;
    fs_copy_file(full, cut);
    ck_assert(truncate(cut, (off_t)keep) == 0);
    status = ncs_open(cut, NCS_NOWRITE, &ncid);
    if (status != NCS_NOERR)
        return 0;               /* reported at open: fine */
    for (int v = 0; v < NVARS && !bad; v++) {
        size_t start[2] = { 0, 0 }, count[2] = { fs_vrec[v] ? MAXREC : nx, nx };
        size_t per = fs_vxdim[v] ? nx : 1, nr = fs_vrec[v] ? MAXREC : 1;
        double b[MAXREC * 8];
        size_t nrec = 0;
        int dimid;
        if (ncs_inq_dimid(ncid, "rec", &dimid) == NCS_NOERR)
            ncs_inq_dimlen(ncid, dimid, &nrec);
        if (fs_vrec[v]) {
            count[0] = nr = nrec < MAXREC ? nrec : MAXREC;
            if (nr == 0)
                continue;
        }
        status = ncs_get(ncid, v, start, count, NULL, NULL, NCS_DOUBLE, b);
        if (status == NCS_NOERR)
            for (size_t k = 0; k < nr * per && !bad; k++) {
                double want = fs_value(v, fs_vrec[v] ? k / per : 0, k % per);
                if (b[k] != want) {
                    snprintf(msg, msz, "cut at %zu: %s[%zu] = %.17g read silently, want %.17g",
                             keep, fs_vname[v], k, b[k], want);
                    bad = 1;
                }
            }
        /* in the variable's own type with a map that reverses each row
         * (the path that places elements straight from the cached pages,
         * record by record) */
        if (nr * per > 1) {
            union { int i[MAXREC * 8]; double d[MAXREC * 8]; } m;
            size_t n = nr * per;
            int type, rank2 = fs_vrec[v] && fs_vxdim[v];
            ptrdiff_t imap[2] = { rank2 ? (ptrdiff_t)per : -1, -1 };
            size_t base = rank2 ? per - 1 : n - 1;
            ck_assert(ncs_inq_vartype(ncid, v, &type) == NCS_NOERR);
            status = ncs_get(ncid, v, start, count, NULL, imap, NCS_NAT,
                             type == NCS_INT ? (void *)&m.i[base] : (void *)&m.d[base]);
            if (status == NCS_NOERR)
                for (size_t k = 0; k < n && !bad; k++) {
                    size_t at = rank2 ? k / per * per + per - 1 - k % per : n - 1 - k;
                    double got = type == NCS_INT ? m.i[at] : m.d[at];
                    double want = fs_value(v, fs_vrec[v] ? k / per : 0, k % per);
                    if (got != want) {
                        snprintf(msg, msz, "cut at %zu: %s[%zu] = %.17g read silently "
                                 "through a map, want %.17g", keep, fs_vname[v], k, got, want);
                        bad = 1;
                    }
                }
        }
        /* and element by element in the variable's own type (the path of
         * an ncvarget of a point) */
        for (size_t k = 0; k < nr * per && !bad; k++) {
            size_t at[2], one[2] = { 1, 1 };
            int type;
            union { int i; double d; } e;
            double got;
            if (fs_vrec[v]) {
                at[0] = k / per;
                at[1] = k % per;
            } else {
                at[0] = k;
            }
            ck_assert(ncs_inq_vartype(ncid, v, &type) == NCS_NOERR);
            if (ncs_get(ncid, v, at, one, NULL, NULL, NCS_NAT, &e) != NCS_NOERR)
                continue;       /* reported at the read: fine */
            got = type == NCS_INT ? e.i : e.d;
            if (got != fs_value(v, fs_vrec[v] ? k / per : 0, k % per)) {
                snprintf(msg, msz, "cut at %zu: %s[%zu] = %.17g read silently as one element",
                         keep, fs_vname[v], k, got);
                bad = 1;
            }
        }
    }
    ncs_close(ncid);
    return bad;
}

START_TEST(truncated)
{
    static const int cmodes[] = { 0, NCS_64BIT_OFFSET, NCS_64BIT_DATA };
    for (size_t f = 0; f < 3; f++) {
        char full[200], cut[220], msg[300] = "";
        run r;
        size_t size;
        FILE *fp;
        int bad = 0, first_bad = -1;
        memset(&r, 0, sizeof r);
        snprintf(full, sizeof full, "ut_faults_trunc_%zu_%ld.nc", f, (long)getpid());
        snprintf(cut, sizeof cut, "%s.cut", full);
        r.path = full;
        r.cmode = cmodes[f];
        r.nx = 5;
        r.ncid = -1;
        r.buf = malloc(5 * sizeof *r.buf);
        ck_assert_msg(fs_script(&r) == NCS_NOERR, "script: %s -> %d", r.what, r.status);
        free(r.buf);
        fp = fopen(full, "rb");
        ck_assert(fp != NULL);
        fseek(fp, 0, SEEK_END);
        size = (size_t)ftell(fp);
        fclose(fp);
        for (size_t keep = 0; keep < size; keep++) {
            char m[300];
            if (truncated_one(full, cut, keep, 5, m, sizeof m)) {
                if (bad++ == 0) {
                    first_bad = (int)keep;
                    snprintf(msg, sizeof msg, "%s", m);
                }
            }
        }
        printf("truncated %s: %zu lengths, %d read silently as other values%s%s\n",
               cmodes[f] == 0 ? "cdf1" : cmodes[f] == NCS_64BIT_OFFSET ? "cdf2" : "cdf5",
               size, bad, bad ? "; first: " : "", msg);
        unlink(full);
        unlink(cut);
        ck_assert_msg(bad == 0, "%d truncated lengths read wrong values (first cut at %d: %s)",
                      bad, first_bad, msg);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("truncated");
    TCase *tc = tcase_create("truncated");
    SRunner *sr;
    int nfail;

    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, truncated);
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    nfail = srunner_ntests_failed(sr);
    srunner_free(sr);
    return nfail == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
