/*
 * rewrite_work.c -- the writer and the check rewrite_work.h describes.
 */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "testutil.h"
#include "rewrite_work.h"

int rw_value(int r, size_t y, size_t x)
{
    return r * 10000000 + (int)y * 10000 + (int)x;
}

int rw_row_round(int k, size_t y)
{
    return y < CY ? k : k - (k % 2 == 0 && k > 0);
}

int rw_put_rows(int nc, int r, size_t nrows)
{
    static int buf[NY * NXR];
    size_t st[2] = { 0, 0 }, ct[2] = { nrows, NXR };
    for (size_t y = 0; y < nrows; y++)
        for (size_t x = 0; x < NXR; x++)
            buf[y * NXR + x] = rw_value(r, y, x);
    return ncs_put(nc, 0, st, ct, NULL, NULL, NCS_INT, buf);
}

void rw_make_file(const char *path)
{
    int nc, d[2], v;
    size_t ch[2] = { CY, NXR };
    NCS_OK(ncs_create(path, NCS_NETCDF4 | NCS_CLASSIC_MODEL | NCS_CLOBBER, &nc));
    NCS_OK(ncs_def_dim(nc, "y", NY, &d[0]));
    NCS_OK(ncs_def_dim(nc, "x", NXR, &d[1]));
    NCS_OK(ncs_def_var(nc, "C", NCS_INT, 2, d, &v));
    NCS_OK(ncs_def_var_chunking(nc, v, NCS_CHUNKED, ch));
    NCS_OK(ncs_enddef(nc));
    NCS_OK(rw_put_rows(nc, 0, NY));
    NCS_OK(ncs_close(nc));
}

/* "" when the file holds exactly the state of one commit k >= synced
 * (*kp), else what is wrong. */
const char *rw_check_state(const char *path, int synced, int *kp, char *msg, size_t msz)
{
    static int buf[NY * NXR];
    size_t st[2] = { 0, 0 }, ct[2] = { NY, NXR };
    int nc, s = ncs_open(path, NCS_NOWRITE, &nc), k;
    if (s != NCS_NOERR) {
        snprintf(msg, msz, "open: %s", ncs_strerror(s));
        return msg;
    }
    s = ncs_get(nc, 0, st, ct, NULL, NULL, NCS_INT, buf);
    ncs_close(nc);
    if (s != NCS_NOERR) {
        snprintf(msg, msz, "get: %s", ncs_strerror(s));
        return msg;
    }
    k = buf[0] / 10000000;
    *kp = k;
    if (k < synced || k > ROUNDS) {
        snprintf(msg, msz, "state of round %d, round %d was synced", k, synced);
        return msg;
    }
    for (size_t y = 0; y < NY; y++)
        for (size_t x = 0; x < NXR; x++)
            if (buf[y * NXR + x] != rw_value(rw_row_round(k, y), y, x)) {
                snprintf(msg, msz, "C[%zu][%zu] = %d, state of round %d has %d", y, x,
                         buf[y * NXR + x], k, rw_value(rw_row_round(k, y), y, x));
                return msg;
            }
    return "";
}
