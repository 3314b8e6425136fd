/*
 * fault_script.c -- the scripted session of the fault-injection tests and
 * the check of what a file holds (see fault_script.h).
 */
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ncslab.h"
#include "journal.h"
#include "fault_script.h"

const char *const fs_vname[NVARS] = { "F", "R", "T", "G", "S" };
const int fs_vrec[NVARS] = { 0, 1, 1, 0, 1 };
const int fs_vxdim[NVARS] = { 1, 1, 0, 1, 1 };
static const int vtype[NVARS] = { NCS_INT, NCS_INT, NCS_DOUBLE, NCS_DOUBLE, NCS_INT };

double fs_value(int v, size_t rec, size_t i)
{
    return (v + 1) * 1e7 + (double)rec * 1e5 + (double)i;
}

static double fill_of(int v)
{
    return vtype[v] == NCS_INT ? (double)NCS_FILL_INT : NCS_FILL_DOUBLE;
}

/* ---- verification -------------------------------------------------------- */
static int verdict(int *worst, int v, char *msg, size_t msz, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static int verdict(int *worst, int v, char *msg, size_t msz, const char *fmt, ...)
{
    if (v > *worst) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, msz, fmt, ap);
        va_end(ap);
        *worst = v;
    }
    return v;
}

int fs_verify(const char *path, const expect *e, size_t nx, char *msg, size_t msz)
{
    int ncid, status, nrec_dim = -1, worst = V_OK;
    size_t nrec = 0;
    double *b = malloc(nx * sizeof *b);

    status = ncs_open(path, NCS_NOWRITE, &ncid);
    if (status != NCS_NOERR) {
        if (e->valid)
            verdict(&worst, V_LOST, msg, msz, "open: %d (%s)", status, ncs_strerror(status));
        free(b);
        return worst;
    }
    if (ncs_inq_dimid(ncid, "rec", &nrec_dim) == NCS_NOERR)
        ncs_inq_dimlen(ncid, nrec_dim, &nrec);
    if (e->valid && nrec < e->nrec_min)
        verdict(&worst, V_LOST, msg, msz, "numrecs %zu < committed %zu", nrec, e->nrec_min);
    if (nrec > MAXREC) {
        verdict(&worst, V_EXTRA, msg, msz, "numrecs %zu > records ever written", nrec);
        nrec = MAXREC;
    }
    for (int v = 0; v < NVARS; v++) {
        int varid, need = 0;
        size_t per = fs_vxdim[v] ? nx : 1, nr = fs_vrec[v] ? nrec : 1;
        for (size_t r = 0; r < MAXREC; r++)
            need |= e->ok[v][r];
        if (ncs_inq_varid(ncid, fs_vname[v], &varid) != NCS_NOERR) {
            if (need)
                verdict(&worst, V_LOST, msg, msz, "variable %s missing", fs_vname[v]);
            continue;
        }
        for (size_t r = 0; r < nr; r++) {
            size_t start[2] = { r, 0 }, count[2] = { 1, per };
            int must = e->ok[v][r];
            if (!fs_vrec[v]) {
                start[0] = 0;
                count[0] = per;
            }
            status = ncs_get(ncid, varid, start, count, NULL, NULL, NCS_DOUBLE, b);
            if (status != NCS_NOERR) {
                if (must || fs_vrec[v])
                    verdict(&worst, must ? V_LOST : V_EXTRA, msg, msz,
                            "get %s record %zu of %zu: %d (%s)", fs_vname[v], r, nrec, status,
                            ncs_strerror(status));
                continue;
            }
            for (size_t i = 0; i < per; i++) {
                double got = b[i], want = fs_value(v, fs_vrec[v] ? r : 0, i);
                if (got == want || (!must && got == fill_of(v)))
                    continue;
                verdict(&worst, must ? V_LOST : V_EXTRA, msg, msz,
                        "%s[%zu][%zu] = %.17g, want %.17g%s (numrecs %zu)", fs_vname[v], r, i,
                        got, want, must ? " (committed)" : " or fill", nrec);
                break;
            }
        }
    }
    free(b);
    ncs_close(ncid);
    return worst;
}

/* ---- the script ------------------------------------------------------------ */

#define STEP(call)                                                          \
    do {                                                                    \
        int s_ = (call);                                                    \
        if (s_ != NCS_NOERR) {                                              \
            r->status = s_;                                                 \
            r->line = __LINE__;                                             \
            snprintf(r->what, sizeof r->what, "%s", #call);                 \
            return s_;                                                      \
        }                                                                   \
    } while (0)

static int put_var(run *r, int v, size_t rec)
{
    size_t start[2] = { rec, 0 }, count[2], per = fs_vxdim[v] ? r->nx : 1;
    for (size_t i = 0; i < per; i++)
        r->buf[i] = fs_value(v, rec, i);
    if (fs_vrec[v]) {
        count[0] = 1;
        count[1] = per;
    } else {
        start[0] = 0;
        count[0] = per;
    }
    return ncs_put(r->ncid, v, start, count, NULL, NULL, NCS_DOUBLE, r->buf);
}

/* Puts and records success in r->cur. */
static int put(run *r, int v, size_t rec)
{
    int s = put_var(r, v, rec);
    if (s == NCS_NOERR) {
        r->cur.ok[v][fs_vrec[v] ? rec : 0] = 1;
        if (fs_vrec[v] && rec + 1 > r->cur.nrec_min)
            r->cur.nrec_min = rec + 1;
    }
    return s;
}

static int get_check(run *r, int v, size_t nrec)
{
    size_t start[2] = { 0, 0 }, count[2], per = fs_vxdim[v] ? r->nx : 1, nr = fs_vrec[v] ? nrec : 1;
    double *b = malloc((nr * per + 1) * sizeof *b);
    int s;
    count[0] = fs_vrec[v] ? nrec : per;
    count[1] = per;
    s = ncs_get(r->ncid, v, start, count, NULL, NULL, NCS_DOUBLE, b);
    for (size_t k = 0; s == NCS_NOERR && k < nr * per && r->wrong[0] == '\0'; k++) {
        double want = fs_value(v, fs_vrec[v] ? k / per : 0, k % per);
        if (b[k] != want)
            snprintf(r->wrong, sizeof r->wrong, "get %s elem %zu = %.17g, want %.17g",
                     fs_vname[v], k, b[k], want);
    }
    free(b);
    return s;
}

static void commit(run *r)
{
    r->committed = r->cur;
    r->committed.valid = 1;
}

int fs_script(run *r)
{
    int dims[2], vid, ncid;
    static char history[600];
    size_t len;
    memset(history, 'h', sizeof history - 1);

    STEP(ncs_create(r->path, r->cmode | NCS_CLOBBER, &ncid));
    r->ncid = ncid;
    STEP(ncs_def_dim(ncid, "rec", NCS_UNLIMITED, &dims[0]));
    STEP(ncs_def_dim(ncid, "x", r->nx, &dims[1]));
    STEP(ncs_def_var(ncid, "F", NCS_INT, 1, &dims[1], &vid));
    STEP(ncs_def_var(ncid, "R", NCS_INT, 2, dims, &vid));
    STEP(ncs_def_var(ncid, "T", NCS_DOUBLE, 1, dims, &vid));
    STEP(ncs_put_att(ncid, NCS_GLOBAL, "title", NCS_CHAR, 5, NCS_CHAR, "fault"));
    STEP(ncs_enddef(ncid));
    STEP(put(r, 0, 0));
    for (size_t rec = 0; rec < 4; rec++) {
        STEP(put(r, 1, rec));
        STEP(put(r, 2, rec));
    }
    STEP(ncs_sync(ncid));
    commit(r);
    for (size_t rec = 4; rec < 6; rec++) {
        STEP(put(r, 1, rec));
        STEP(put(r, 2, rec));
    }
    STEP(ncs_redef(ncid));
    STEP(ncs_def_var(ncid, "G", NCS_DOUBLE, 1, &dims[1], &vid));
    STEP(ncs_def_var(ncid, "S", NCS_INT, 2, dims, &vid));
    STEP(ncs_put_att(ncid, NCS_GLOBAL, "history", NCS_CHAR, sizeof history - 1, NCS_CHAR,
                     history));
    STEP(ncs_enddef(ncid));
    STEP(put(r, 3, 0));
    for (size_t rec = 0; rec < 6; rec++)
        STEP(put(r, 4, rec));
    for (size_t rec = 6; rec < 9; rec++) {
        STEP(put(r, 1, rec));
        STEP(put(r, 2, rec));
        STEP(put(r, 4, rec));
    }
    STEP(ncs_sync(ncid));
    commit(r);
    for (size_t rec = 9; rec < 11; rec++) {
        STEP(put(r, 1, rec));
        STEP(put(r, 2, rec));
        STEP(put(r, 4, rec));
    }
    r->ncid = -1;
    STEP(ncs_close(ncid));
    commit(r);

    STEP(ncs_open(r->path, NCS_WRITE, &ncid));
    r->ncid = ncid;
    for (size_t rec = 11; rec < MAXREC; rec++) {
        STEP(put(r, 1, rec));
        STEP(put(r, 2, rec));
        STEP(put(r, 4, rec));
    }
    STEP(ncs_sync(ncid));
    commit(r);
    for (int v = 0; v < NVARS; v++)
        STEP(get_check(r, v, MAXREC));
    r->ncid = -1;
    STEP(ncs_close(ncid));
    commit(r);

    STEP(ncs_open(r->path, NCS_NOWRITE, &ncid));
    r->ncid = ncid;
    STEP(ncs_inq_dimlen(ncid, dims[0], &len));
    if (len != MAXREC)
        snprintf(r->wrong, sizeof r->wrong, "numrecs %zu after reopen", len);
    for (int v = 0; v < NVARS; v++)
        STEP(get_check(r, v, MAXREC));
    r->ncid = -1;
    STEP(ncs_close(ncid));
    return NCS_NOERR;
}

/* ---- copies ------------------------------------------------------------------ */

void fs_copy_file(const char *from, const char *to)
{
    char b[8192];
    ssize_t k;
    int in = open(from, O_RDONLY), out;
    if (in < 0) {
        unlink(to);
        return;
    }
    out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    while (in >= 0 && out >= 0 && (k = read(in, b, sizeof b)) > 0)
        if (write(out, b, (size_t)k) != k)
            break;
    if (in >= 0)
        close(in);
    if (out >= 0)
        close(out);
}

void fs_copy_with_journal(const char *path, const char *to)
{
    char jfrom[400], jto[400];
    snprintf(jfrom, sizeof jfrom, "%s%s", path, NCSI_JOURNAL_SUFFIX);
    snprintf(jto, sizeof jto, "%s%s", to, NCSI_JOURNAL_SUFFIX);
    fs_copy_file(path, to);
    fs_copy_file(jfrom, jto);
}

void fs_remove_with_journal(const char *path)
{
    char j[400];
    snprintf(j, sizeof j, "%s%s", path, NCSI_JOURNAL_SUFFIX);
    unlink(path);
    unlink(j);
}
