/*
 * check_get1memo.c -- the get1 memo (lib/store/store.h): after a one-element
 * read a back end served itself, ncs_get1 reads the elements of a box of
 * indices straight from the back end's memory (a classic file's cached page,
 * a chunked variable's pinned chunk).  White-box: after every ncs_get1 of
 * scans in several orders, over variables of rank 0 to 5 and of 1, 2, 4 and
 * 8 bytes, in a classic and a chunked file, each new box is read whole
 * through ncsi_memo_get1 and compared with the values, which encode their
 * coordinates; a classic box must lie inside the page cache's window.  A
 * call that must fail or convert, with the memo filled, gives what the
 * general path gives (through ncs_get1 and ncs_get1_long, whose long index
 * reads the same boxes; each box is read through the armed readers too); what must empty the memo does (a put, a slab get,
 * sync, redef); none is kept with the fast paths off or in a shared file.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api.h"
#include "classic.h"

#define NY 300          /* g: NY x NX shorts, more than one 64 KiB page */
#define NX 150
#define NR 3            /* t: NR records of TY x TX ints */
#define TY 9
#define TX 11
#define NH 5            /* h: rank 5, past NCSI_MEMO_DIMS */

static int failures;

#define CHECK(cond, ...)                                                       \
    do {                                                                       \
        if (!(cond)) {                                                         \
            fprintf(stderr, "%s:%d: %s: ", __FILE__, __LINE__, #cond);          \
            fprintf(stderr, __VA_ARGS__);                                      \
            fputc('\n', stderr);                                               \
            if (++failures > 20)                                               \
                exit(1);                                                       \
        }                                                                      \
    } while (0)

#define OK(call)                                                               \
    do {                                                                       \
        int s_ = (call);                                                       \
        if (s_ != NCS_NOERR) {                                                 \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,      \
                    ncs_strerror(s_));                                         \
            exit(1);                                                           \
        }                                                                      \
    } while (0)

enum { V_G, V_T, V_B, V_D, V_S, V_H, NV };
static const int vtype[NV] = { NCS_SHORT, NCS_INT, NCS_BYTE, NCS_DOUBLE, NCS_INT, NCS_SHORT };
static const int vrank[NV] = { 2, 3, 2, 1, 0, 5 };
static const size_t hdim = 3;

static size_t shape_of(int v, int d)
{
    switch (v) {
    case V_G: return d == 0 ? NY : NX;
    case V_T: return d == 0 ? NR : d == 1 ? TY : TX;
    case V_B: return d == 0 ? 40 : 70;
    case V_D: return 1000;
    case V_H: return hdim;
    default: return 1;
    }
}

/* The value of v at index: its coordinates. */
static double value(int v, const size_t *ix)
{
    switch (v) {
    case V_G: return (double)ix[0] * 100 + (double)ix[1] - 16000;
    case V_T: return (double)ix[0] * 100000 + (double)ix[1] * 100 + (double)ix[2];
    case V_B: return (double)((ix[0] * 7 + ix[1]) % 200) - 100;
    case V_D: return (double)ix[0] * 0.5 - 3;
    case V_S: return 424242;
    default: {
        double x = 0;
        for (int d = 0; d < NH; d++)
            x = x * 10 + (double)ix[d];
        return x;
    }
    }
}

static size_t nelems(int v)
{
    size_t n = 1;
    for (int d = 0; d < vrank[v]; d++)
        n *= shape_of(v, d);
    return n;
}

/* Element k of v in row-major order (col: column-major; perm: a stride
 * coprime with the size, a scattered order). */
static void index_of(int v, size_t k, int order, size_t *ix)
{
    size_t n = nelems(v);
    if (order == 2)
        k = (k * 7919) % n;
    if (order == 1) {
        for (int d = 0; d < vrank[v]; d++) {
            ix[d] = k % shape_of(v, d);
            k /= shape_of(v, d);
        }
        return;
    }
    for (int d = vrank[v] - 1; d >= 0; d--) {
        ix[d] = k % shape_of(v, d);
        k /= shape_of(v, d);
    }
}

static double as_double(int type, const void *p)
{
    switch (type) {
    case NCS_BYTE: return *(const signed char *)p;
    case NCS_SHORT: return *(const short *)p;
    case NCS_INT: return *(const int *)p;
    default: return *(const double *)p;
    }
}

static void write_file(const char *path, int cmode)
{
    int ncid, dims[8], varid[NV];
    OK(ncs_create(path, cmode, &ncid));
    OK(ncs_def_dim(ncid, "y", NY, &dims[0]));
    OK(ncs_def_dim(ncid, "x", NX, &dims[1]));
    OK(ncs_def_dim(ncid, "rec", NCS_UNLIMITED, &dims[2]));
    OK(ncs_def_dim(ncid, "ty", TY, &dims[3]));
    OK(ncs_def_dim(ncid, "tx", TX, &dims[4]));
    OK(ncs_def_dim(ncid, "by", 40, &dims[5]));
    OK(ncs_def_dim(ncid, "bx", 70, &dims[6]));
    OK(ncs_def_dim(ncid, "dx", 1000, &dims[7]));
    int hd;
    OK(ncs_def_dim(ncid, "h", hdim, &hd));
    int gd[2] = { dims[0], dims[1] }, td[3] = { dims[2], dims[3], dims[4] };
    int bd[2] = { dims[5], dims[6] }, hdims[NH] = { hd, hd, hd, hd, hd };
    OK(ncs_def_var(ncid, "g", NCS_SHORT, 2, gd, &varid[V_G]));
    OK(ncs_def_var(ncid, "t", NCS_INT, 3, td, &varid[V_T]));
    OK(ncs_def_var(ncid, "b", NCS_BYTE, 2, bd, &varid[V_B]));
    OK(ncs_def_var(ncid, "d", NCS_DOUBLE, 1, &dims[7], &varid[V_D]));
    OK(ncs_def_var(ncid, "s", NCS_INT, 0, NULL, &varid[V_S]));
    OK(ncs_def_var(ncid, "h", NCS_SHORT, NH, hdims, &varid[V_H]));
    if (cmode & NCS_NETCDF4) {
        const size_t gc[2] = { 13, 17 }, tc[3] = { 1, 4, 5 }, bc[2] = { 6, 6 };
        OK(ncs_def_var_chunking(ncid, varid[V_G], NCS_CHUNKED, gc));
        OK(ncs_def_var_chunking(ncid, varid[V_T], NCS_CHUNKED, tc));
        OK(ncs_def_var_chunking(ncid, varid[V_B], NCS_CHUNKED, bc));
    }
    OK(ncs_enddef(ncid));
    for (int v = 0; v < NV; v++) {
        size_t ix[NH];
        for (size_t k = 0; k < nelems(v); k++) {
            double x;
            index_of(v, k, 0, ix);
            x = value(v, ix);
            OK(ncs_put1(ncid, v, ix, NCS_DOUBLE, &x));
        }
    }
    OK(ncs_close(ncid));
}

/* The memo's box, read whole, holds v's values; a classic one lies inside
 * the page window. */
static void check_box(const ncs_file *f, int v, const char *what)
{
    const ncs_get1_memo *m = &f->memo;
    size_t ix[NCSI_MEMO_DIMS] = {0}, n = 1, esz = (size_t)(m->kind < 0 ? -m->kind : m->kind);
    long lix[NCSI_MEMO_DIMS] = {0};
    unsigned char buf[8], rbuf[8];
    CHECK(m->ncid == f->ncid && m->read != NULL && m->read_long != NULL,
          "%s: memo armed for ncid %d, not %d", what, m->ncid, f->ncid);
    CHECK(m->nd == vrank[v] && m->type == vtype[v], "%s: memo of rank %d type %d", what,
          m->nd, m->type);
    for (int d = 0; d < m->nd; d++) {
        CHECK(m->ext[d] > 0 && m->lo[d] + m->ext[d] <= shape_of(v, d),
              "%s: box [%llu, +%llu) of dimension %d", what, (unsigned long long)m->lo[d],
              (unsigned long long)m->ext[d], d);
        n *= m->ext[d];
    }
    if (f->version != 4) {
        const ncs_pc_window *w = (const ncs_pc_window *)((classic *)f->state)->pc;
        uint64_t last = 0;
        for (int d = 0; d < m->nd; d++)
            last += (m->ext[d] - 1) * m->bstride[d];
        CHECK(m->base >= w->base && m->base + last + (size_t)(m->kind < 0 ? -m->kind : m->kind)
              <= w->base + (w->hi - w->lo), "%s: box outside the page window", what);
    }
    for (size_t k = 0; k < n; k++) {
        size_t r = k;
        for (int d = m->nd - 1; d >= 0; d--) {
            ix[d] = m->lo[d] + r % m->ext[d];
            r /= m->ext[d];
        }
        if (!ncsi_memo_get1(m, ix, buf)) {
            CHECK(0, "%s: element %zu of the box refused", what, k);
            return;
        }
        CHECK(as_double(vtype[v], buf) == value(v, ix), "%s: box element %zu: %g, not %g", what,
              k, as_double(vtype[v], buf), value(v, ix));
        /* the armed readers (api_get1.c) give the reference's bytes */
        memset(rbuf, 0xa5, sizeof rbuf);
        CHECK(m->read(m->ncid, v, ix, NCS_NAT, rbuf, m) == NCS_NOERR &&
              !memcmp(rbuf, buf, esz), "%s: reader of box element %zu", what, k);
        for (int d = 0; d < m->nd; d++)
            lix[d] = (long)ix[d];
        memset(rbuf, 0xa5, sizeof rbuf);
        CHECK(m->read_long(m->ncid, v, lix, NULL, rbuf, m) == NCS_NOERR &&
              !memcmp(rbuf, buf, esz), "%s: long reader of box element %zu", what, k);
    }
    /* just outside, on each side of each dimension, it refuses */
    for (int d = 0; d < m->nd; d++) {
        for (int side = 0; side < 2; side++) {
            for (int e = 0; e < m->nd; e++)
                ix[e] = m->lo[e];
            ix[d] = side ? m->lo[d] + m->ext[d] : m->lo[d] - 1;
            CHECK(!ncsi_memo_get1(m, ix, buf), "%s: took an index outside its box", what);
        }
    }
}

/* Every element of every variable by ncs_get1, in three orders; each new
 * box checked whole.  Returns how many boxes there were. */
static long scan(int ncid, const char *path)
{
    const ncs_file *f = ncsi_file_get(ncid);
    long boxes = 0;
    for (int v = 0; v < NV; v++) {
        for (int order = 0; order < 3; order++) {
            uint64_t seen_lo[NCSI_MEMO_DIMS] = {0};
            const unsigned char *seen_base = NULL;
            size_t ix[NH];
            char what[128];
            for (size_t k = 0; k < nelems(v); k++) {
                unsigned char buf[8];
                index_of(v, k, order, ix);
                long lix[NH];
                for (int d = 0; d < vrank[v]; d++)
                    lix[d] = (long)ix[d];
                OK(ncs_get1_long(ncid, v, lix, NULL, buf));
                CHECK(as_double(vtype[v], buf) == value(v, ix),
                      "%s var %d order %d element %zu, long index", path, v, order, k);
                OK(ncs_get1(ncid, v, ix, NCS_NAT, buf));
                CHECK(as_double(vtype[v], buf) == value(v, ix), "%s var %d order %d element %zu",
                      path, v, order, k);
                if (vrank[v] > NCSI_MEMO_DIMS) {
                    CHECK(f->memo.key != v, "a memo of rank %d", vrank[v]);
                    continue;
                }
                if (f->memo.key == NCSI_MEMO_EMPTY)
                    continue;     /* a read the back end did not serve itself */
                CHECK(f->memo.key == v, "%s: memo of variable %lld after a read of %d", path,
                      (long long)f->memo.key, v);
                if (f->memo.base == seen_base && !memcmp(seen_lo, f->memo.lo, sizeof seen_lo))
                    continue;
                seen_base = f->memo.base;
                memcpy(seen_lo, f->memo.lo, sizeof seen_lo);
                snprintf(what, sizeof what, "%s var %d order %d element %zu", path, v, order, k);
                check_box(f, v, what);
                boxes++;
            }
        }
    }
    return boxes;
}

/* ncs_get1_long's failure function for check_calls: notes its call. */
#define FAILED 4242
static int failed_ncid, failed_varid, failed_status;
static int record_failure(int ncid, int varid, int status)
{
    failed_ncid = ncid;
    failed_varid = varid;
    failed_status = status;
    return FAILED;
}

/* A call that must fail or convert gives what the general path gives
 * (a handle opened with the fast paths off), with the memo filled for the
 * variable it names. */
static void check_calls(const char *path)
{
    static const struct { int varid, memtype, nullix, nullbuf; size_t ix[2]; } c[] = {
        { -1, NCS_NAT, 0, 0, { 5, 5 } },       { NV + 3, NCS_NAT, 0, 0, { 5, 5 } },
        { V_G, NCS_INT, 0, 0, { 5, 5 } },      { V_G, NCS_DOUBLE, 0, 0, { 7, 9 } },
        { V_G, NCS_BYTE, 0, 0, { 5, 5 } },     { V_G, NCS_CHAR, 0, 0, { 5, 5 } },
        { V_G, 99, 0, 0, { 5, 5 } },           { V_G, NCS_NAT, 0, 0, { NY, 0 } },
        { V_G, NCS_NAT, 0, 0, { 0, NX } },     { V_G, NCS_NAT, 0, 0, { 5, (size_t)-1 } },
        { V_G, NCS_NAT, 1, 0, { 0, 0 } },      { V_G, NCS_NAT, 0, 1, { 5, 5 } },
        { V_T, NCS_NAT, 0, 0, { NR, 0 } },     { V_G, NCS_SHORT, 0, 0, { 6, 7 } },
    };
    int ncid, ref;
    const ncs_file *f;
    ncsi_fastpath = 0;
    OK(ncs_open(path, NCS_NOWRITE, &ref));
    ncsi_fastpath = 1;
    OK(ncs_open(path, NCS_NOWRITE, &ncid));
    f = ncsi_file_get(ncid);
    for (size_t k = 0; k < sizeof c / sizeof c[0]; k++) {
        size_t warm[3] = { 6, 6, 0 }, ix[3] = { c[k].ix[0], c[k].ix[1], 2 };
        double got = -1, want = -1;
        short w;
        int s1, s2;
        OK(ncs_get1(ncid, V_G, warm, NCS_NAT, &w));
        CHECK(f->memo.key == V_G, "%s: no memo after a get1", path);
        s1 = ncs_get1(ncid, c[k].varid, c[k].nullix ? NULL : ix, c[k].memtype,
                      c[k].nullbuf ? NULL : &got);
        s2 = ncs_get1(ref, c[k].varid, c[k].nullix ? NULL : ix, c[k].memtype,
                      c[k].nullbuf ? NULL : &want);
        CHECK(s1 == s2, "%s: case %zu: %d, the general path %d", path, k, s1, s2);
        CHECK(memcmp(&got, &want, sizeof got) == 0, "%s: case %zu: another value", path, k);
        if (c[k].memtype == NCS_NAT) {
            /* ncs_get1_long: the same status, through its failure function */
            long lix[3] = { (long)ix[0], (long)ix[1], (long)ix[2] };
            int s3;
            OK(ncs_get1(ncid, V_G, warm, NCS_NAT, &w));
            got = -1;
            failed_ncid = failed_varid = failed_status = 0;
            s3 = ncs_get1_long(ncid, c[k].varid, c[k].nullix ? NULL : lix, record_failure,
                               c[k].nullbuf ? NULL : &got);
            CHECK(s3 == (s2 == NCS_NOERR ? NCS_NOERR : FAILED),
                  "%s: case %zu: ncs_get1_long gave %d, the general path %d", path, k, s3, s2);
            CHECK(s2 == NCS_NOERR ? failed_status == 0
                                  : failed_ncid == ncid && failed_varid == c[k].varid &&
                                        failed_status == s2,
                  "%s: case %zu: failure function called with %d %d %d", path, k, failed_ncid,
                  failed_varid, failed_status);
            CHECK(memcmp(&got, &want, sizeof got) == 0, "%s: case %zu: another long value",
                  path, k);
            s3 = ncs_get1_long(ncid, c[k].varid, c[k].nullix ? NULL : lix, NULL,
                               c[k].nullbuf ? NULL : &got);
            CHECK(s3 == s2, "%s: case %zu: ncs_get1_long without failure function gave %d",
                  path, k, s3);
        }
    }
    OK(ncs_close(ncid));
    OK(ncs_close(ref));
}

/* What must empty the memo does (a classic file being written keeps none:
 * its reads are noted in the ncbuf). */
static void check_upkeep(const char *path, int chunked)
{
    int ncid;
    const ncs_file *f;
    size_t ix[3] = { 5, 5, 0 }, start[2] = { 0, 0 }, count[2] = { 1, 1 };
    short s;
    int i;
    OK(ncs_open(path, NCS_WRITE, &ncid));
    f = ncsi_file_get(ncid);
    OK(ncs_get1(ncid, V_G, ix, NCS_NAT, &s));
    CHECK(f->memo.key == (chunked ? V_G : NCSI_MEMO_EMPTY), "%s: memo of %lld", path,
          (long long)f->memo.key);

    /* a put inside the box empties it, and the new value is read */
    ix[1] = 6;
    s = 1234;
    OK(ncs_put1(ncid, V_G, ix, NCS_NAT, &s));
    CHECK(f->memo.key == NCSI_MEMO_EMPTY, "%s: memo kept over a put", path);
    s = 0;
    OK(ncs_get1(ncid, V_G, ix, NCS_NAT, &s));
    CHECK(s == 1234, "%s: read %d after writing 1234", path, s);

    /* a new record: the record variable's reads see it */
    ix[0] = 1;
    ix[1] = 2;
    ix[2] = 3;
    OK(ncs_get1(ncid, V_T, ix, NCS_NAT, &i));
    ix[0] = NR;
    CHECK(ncs_get1(ncid, V_T, ix, NCS_NAT, &i) != NCS_NOERR, "%s: read past the records", path);
    i = -77;
    OK(ncs_put1(ncid, V_T, ix, NCS_NAT, &i));
    i = 0;
    OK(ncs_get1(ncid, V_T, ix, NCS_NAT, &i));
    CHECK(i == -77, "%s: new record read %d", path, i);

    /* a slab get, sync, redef and enddef each empty it */
    ix[0] = 3;
    ix[1] = 4;
    OK(ncs_get1(ncid, V_G, ix, NCS_NAT, &s));
    OK(ncs_get(ncid, V_B, start, count, NULL, NULL, NCS_NAT, &s));
    CHECK(f->memo.key == NCSI_MEMO_EMPTY, "%s: memo kept over a slab get", path);
    OK(ncs_get1(ncid, V_G, ix, NCS_NAT, &s));
    OK(ncs_sync(ncid));
    CHECK(f->memo.key == NCSI_MEMO_EMPTY, "%s: memo kept over sync", path);
    OK(ncs_get1(ncid, V_G, ix, NCS_NAT, &s));
    OK(ncs_redef(ncid));
    CHECK(f->memo.key == NCSI_MEMO_EMPTY, "%s: memo kept over redef", path);
    CHECK(ncs_get1(ncid, V_G, ix, NCS_NAT, &s) == NCS_EINDEFINE, "%s: get1 in define mode",
          path);
    OK(ncs_enddef(ncid));
    OK(ncs_get1(ncid, V_G, ix, NCS_NAT, &s));
    CHECK(s == value(V_G, ix), "%s: after enddef %d", path, s);
    OK(ncs_close(ncid));
}

/* With the fast paths off, or in a shared file, no memo. */
static void check_none(const char *path, int mode)
{
    int ncid;
    size_t ix[2] = { 3, 4 };
    short s;
    OK(ncs_open(path, mode, &ncid));
    OK(ncs_get1(ncid, V_G, ix, NCS_NAT, &s));
    OK(ncs_get1(ncid, V_G, ix, NCS_NAT, &s));
    CHECK(s == value(V_G, ix), "%s: read %d", path, s);
    CHECK(ncsi_file_get(ncid)->memo.key == NCSI_MEMO_EMPTY, "%s: a memo in mode %#x", path,
          mode);
    OK(ncs_close(ncid));
}

int main(void)
{
    static const struct { const char *path; int cmode; } files[] = {
        { "ut_memo_cdf1.nc", NCS_CLOBBER },
        { "ut_memo_cdf5.nc", NCS_CLOBBER | NCS_64BIT_DATA },
        { "ut_memo_nc4.nc", NCS_CLOBBER | NCS_NETCDF4 | NCS_CLASSIC_MODEL },
    };
    /* the environment's choice first, so that it cannot undo ours */
    ncsi_fastpath_init();
    for (size_t k = 0; k < sizeof files / sizeof files[0]; k++) {
        int ncid;
        long boxes;
        write_file(files[k].path, files[k].cmode);
        ncsi_fastpath = 1;
        OK(ncs_open(files[k].path, NCS_NOWRITE, &ncid));
        boxes = scan(ncid, files[k].path);
        OK(ncs_close(ncid));
        /* every scan of a variable of rank 0..4 makes at least one box */
        CHECK(boxes >= 3 * (NV - 1), "%s: %ld boxes", files[k].path, boxes);
        printf("%s: %ld boxes checked\n", files[k].path, boxes);
        check_calls(files[k].path);
        check_upkeep(files[k].path, (files[k].cmode & NCS_NETCDF4) != 0);
        check_none(files[k].path, NCS_NOWRITE | NCS_SHARE);
        ncsi_fastpath = 0;
        check_none(files[k].path, NCS_NOWRITE);
        if (failures == 0)
            unlink(files[k].path);
    }
    return failures != 0;
}
