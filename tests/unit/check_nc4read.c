/*
 * check_nc4read.c -- lib/store/nc4: netCDF-4 files read without HDF5
 * answer every call exactly as the HDF5 store answers it.
 *
 * Each file is opened read-only twice in this process: once with
 * NCSLAB_NC4READ=0 (the HDF5 store, finding chunks through HDF5's own
 * calls: NCSLAB_CHUNK_ADDR=0) and once as any program opens it (the
 * store of lib/store/nc4, or the HDF5 store where that one declines); the
 * test knows which files the new store must serve and which it must
 * decline, and then compares, call by call: the format, dimensions,
 * variables, every attribute's type, length and bytes, the virtual
 * attributes (_NCProperties, _SuperblockVersion, _IsNetcdf4), each
 * variable's fill mode and value, storage, filters, byte order,
 * quantization and the chunk index walk; every variable read whole in its
 * own type and as double (values and statuses, NCS_ERANGE included),
 * random strided slabs (records past a dataset's extent among them), a
 * transposing map, and random single elements through ncs_get1.
 *
 * The files:
 *   - written by ncslab: every type, chunked with each filter (shuffle,
 *     deflate, zstd, Fletcher-32), contiguous, big-endian, text, scalars
 *     written and not, _FillValue and no-fill variables never written,
 *     record variables of different lengths, a coordinate variable, a
 *     variable named like a dimension it does not use, quantization, many
 *     attributes (dense storage); the classic model and the netCDF-4
 *     format; and a file killed in a commit, seen through its journal;
 *   - written by netCDF-C: its contiguous default, compact storage,
 *     dimensions without variables, dense attributes; strings, groups and
 *     a second unlimited dimension must be declined;
 *   - written by HDF5 itself as other writers do: dimension scales without
 *     netCDF's bookkeeping, no creation order (HDF5's 1.0 format, version-1
 *     headers), a user block, contiguous storage never allocated with and
 *     without a fill value, a fill time of never; HDF5's latest format
 *     (other chunk indexes) and untracked dense attributes must be declined;
 *   - each ncslab file again with bytes damaged at random (seeded): never
 *     a crash, and where both stores read a value they read the same.
 *
 *   check_nc4read [SEED]
 *   check_nc4read --reference FILE OUT   (the damage rounds' reference
 *                                         reader, run by the test itself)
 */
#include "config.h"

#include <hdf5.h>
#include <hdf5_hl.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#ifdef HAVE_NETCDF
#include <netcdf.h>
#endif

#include "ncslab.h"
#include "api.h"
#include "nc4.h"

static int failures;
static char dir[] = "/tmp/check_nc4read.XXXXXX";
static const char *current;
static unsigned long long rng_state;

static void fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "FAIL %s: ", current);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    failures++;
}

#define EXPECT(cond, ...)            \
    do {                             \
        if (!(cond))                 \
            fail(__VA_ARGS__);       \
    } while (0)

#define OK(call)                                                                  \
    do {                                                                          \
        int s_ = (call);                                                          \
        if (s_ != NCS_NOERR) {                                                    \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,         \
                    ncs_strerror(s_));                                            \
            exit(99);                                                             \
        }                                                                         \
    } while (0)

#define H5OK(call)                                                                \
    do {                                                                          \
        if ((call) < 0) {                                                         \
            fprintf(stderr, "%s:%d: %s failed\n", __FILE__, __LINE__, #call);     \
            exit(99);                                                             \
        }                                                                         \
    } while (0)

static uint64_t rnd(void)
{
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return rng_state >> 33;
}

static uint64_t below(uint64_t n)
{
    return n ? rnd() % n : 0;
}

static void path_of(char *out, size_t n, const char *name)
{
    snprintf(out, n, "%s/%s", dir, name);
}

/* ---- which store serves a file ------------------------------------------------------ */

static int by_nc4(int ncid)
{
    ncs_file *f = ncsi_file_get(ncid);
    return f != NULL && f->store == &ncsi_nc4_store;
}

/* Opens path read-only through the HDF5 store (*ref) and as any program
 * does (*got); returns both statuses in st[]. */
static void open_both(const char *path, int *ref, int *got, int st[2])
{
    setenv("NCSLAB_NC4READ", "0", 1);
    st[0] = ncs_open(path, NCS_NOWRITE, ref);
    unsetenv("NCSLAB_NC4READ");
    st[1] = ncs_open(path, NCS_NOWRITE, got);
}

/* ---- comparing two open files ---------------------------------------------------------- */

static size_t type_size(int t)
{
    size_t s = 0;
    ncs_inq_type_size(t, &s);
    return s;
}

static void cmp_atts(int a, int b, int varid, int natts, const char *owner)
{
    for (int i = 0; i < natts; i++) {
        char na[NCS_MAX_NAME + 1], nb[NCS_MAX_NAME + 1];
        int ta, tb;
        size_t la, lb;
        unsigned char *va, *vb;
        OK(ncs_inq_attname(a, varid, i, na));
        EXPECT(ncs_inq_attname(b, varid, i, nb) == NCS_NOERR && strcmp(na, nb) == 0,
               "%s attribute %d: %s against %s", owner, i, na, nb);
        OK(ncs_inq_att(a, varid, na, &ta, &la));
        if (ncs_inq_att(b, varid, na, &tb, &lb) != NCS_NOERR || ta != tb || la != lb) {
            fail("%s attribute %s: type or length differ", owner, na);
            continue;
        }
        va = malloc(la * type_size(ta) + 1);
        vb = malloc(la * type_size(ta) + 1);
        OK(ncs_get_att(a, varid, na, ta, va));
        OK(ncs_get_att(b, varid, na, ta, vb));
        EXPECT(memcmp(va, vb, la * type_size(ta)) == 0, "%s attribute %s: values differ",
               owner, na);
        free(va);
        free(vb);
    }
}

static void cmp_virtual(int a, int b)
{
    static const char *const names[] = { "_NCProperties", "_SuperblockVersion", "_IsNetcdf4" };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        int ta = -1, tb = -1, sa, sb;
        size_t la = 0, lb = 0;
        sa = ncs_inq_att(a, NCS_GLOBAL, names[i], &ta, &la);
        sb = ncs_inq_att(b, NCS_GLOBAL, names[i], &tb, &lb);
        EXPECT(sa == sb && ta == tb && la == lb, "%s: %d/%d type %d/%d length %zu/%zu",
               names[i], sa, sb, ta, tb, la, lb);
        if (sa == NCS_NOERR && sa == sb && ta == tb && la == lb) {
            unsigned char *va = malloc(la * type_size(ta) + 1), *vb = malloc(la * type_size(ta) + 1);
            OK(ncs_get_att(a, NCS_GLOBAL, names[i], ta, va));
            OK(ncs_get_att(b, NCS_GLOBAL, names[i], tb, vb));
            EXPECT(memcmp(va, vb, la * type_size(ta)) == 0, "%s: values differ", names[i]);
            free(va);
            free(vb);
        }
    }
}

/* The chunk index walk, as a list. */
typedef struct clist {
    int ndims;
    size_t n, cap;
    unsigned long long *e;       /* origin[0..4], mask, offset, size each */
} clist;

static int collect(void *arg, const size_t *origin, unsigned mask, unsigned long long offset,
                   unsigned long long size)
{
    clist *l = arg;
    if (l->n + 8 > l->cap) {
        l->cap = l->cap ? 2 * l->cap : 64;
        l->e = realloc(l->e, l->cap * sizeof *l->e);
    }
    for (int d = 0; d < 5; d++)
        l->e[l->n++] = d < l->ndims ? origin[d] : 0;
    l->e[l->n++] = mask;
    l->e[l->n++] = offset;
    l->e[l->n++] = size;
    return 0;
}

static void cmp_storage(int a, int b, int v, int ndims, const char *name)
{
    size_t ca[NCS_MAX_VAR_DIMS] = { 0 }, cb[NCS_MAX_VAR_DIMS] = { 0 };
    size_t ea[NCS_MAX_VAR_DIMS] = { 0 }, eb[NCS_MAX_VAR_DIMS] = { 0 };
    int sa, sb, x[3], y[3], na = 0, nb = 0;
    unsigned ia[NCS_MAX_FILTERS], ib[NCS_MAX_FILTERS];
    unsigned char fa[8] = { 0 }, fb[8] = { 0 };
    clist la = { ndims, 0, 0, NULL }, lb = { ndims, 0, 0, NULL };

    OK(ncs_inq_var_chunking(a, v, &sa, ca));
    OK(ncs_inq_var_chunking(b, v, &sb, cb));
    EXPECT(sa == sb && memcmp(ca, cb, sizeof ca) == 0, "%s: storage %d/%d", name, sa, sb);
    OK(ncs_inq_var_deflate(a, v, &x[0], &x[1], &x[2]));
    OK(ncs_inq_var_deflate(b, v, &y[0], &y[1], &y[2]));
    EXPECT(memcmp(x, y, sizeof x) == 0, "%s: deflate", name);
    OK(ncs_inq_var_zstd(a, v, &x[0]));
    OK(ncs_inq_var_zstd(b, v, &y[0]));
    EXPECT(x[0] == y[0], "%s: zstd %d/%d", name, x[0], y[0]);
    OK(ncs_inq_var_fletcher32(a, v, &x[0]));
    OK(ncs_inq_var_fletcher32(b, v, &y[0]));
    EXPECT(x[0] == y[0], "%s: fletcher32", name);
    OK(ncs_inq_var_endian(a, v, &x[0]));
    OK(ncs_inq_var_endian(b, v, &y[0]));
    EXPECT(x[0] == y[0], "%s: endian %d/%d", name, x[0], y[0]);
    OK(ncs_inq_var_quantize(a, v, &x[0], &x[1]));
    OK(ncs_inq_var_quantize(b, v, &y[0], &y[1]));
    EXPECT(x[0] == y[0] && x[1] == y[1], "%s: quantize", name);
    OK(ncs_inq_var_filter_ids(a, v, &na, ia));
    OK(ncs_inq_var_filter_ids(b, v, &nb, ib));
    EXPECT(na == nb && memcmp(ia, ib, (size_t)na * sizeof *ia) == 0, "%s: filters", name);
    x[0] = ncs_inq_var_fill(a, v, &x[1], fa);
    y[0] = ncs_inq_var_fill(b, v, &y[1], fb);
    EXPECT(x[0] == y[0] && x[1] == y[1] && memcmp(fa, fb, sizeof fa) == 0, "%s: fill", name);
    x[0] = ncs_inq_var_chunks(a, v, ea, collect, &la);
    y[0] = ncs_inq_var_chunks(b, v, eb, collect, &lb);
    EXPECT(x[0] == y[0] && memcmp(ea, eb, (size_t)ndims * sizeof *ea) == 0 && la.n == lb.n &&
               (la.n == 0 || memcmp(la.e, lb.e, la.n * sizeof *la.e) == 0),
           "%s: chunk walk %d/%d, %zu/%zu entries", name, x[0], y[0], la.n / 8, lb.n / 8);
    if (getenv("CHECK_NC4READ_VERBOSE") != NULL)
        for (size_t i = 0; i < la.n && i < lb.n; i++)
            if (la.e[i] != lb.e[i])
                fprintf(stderr, "  entry %zu field %zu: %llu against %llu\n", i / 8, i % 8,
                        la.e[i], lb.e[i]);
    free(la.e);
    free(lb.e);
}

/* One get through both files: statuses and bytes equal. */
static void cmp_get(int a, int b, int v, const size_t *start, const size_t *count,
                    const ptrdiff_t *stride, const ptrdiff_t *imap, int memtype, size_t n,
                    const char *what)
{
    size_t bytes = (n ? n : 1) * type_size(memtype);
    unsigned char *ba = malloc(bytes), *bb = malloc(bytes);
    int sa, sb;
    memset(ba, 0x5a, bytes);
    memset(bb, 0x5a, bytes);
    sa = ncs_get(a, v, start, count, stride, imap, memtype, ba);
    sb = ncs_get(b, v, start, count, stride, imap, memtype, bb);
    EXPECT(sa == sb, "%s: status %d (%s) against %d (%s)", what, sa, ncs_strerror(sa), sb,
           ncs_strerror(sb));
    if (sa == sb && (sa == NCS_NOERR || sa == NCS_ERANGE))
        EXPECT(memcmp(ba, bb, bytes) == 0, "%s: values differ", what);
    free(ba);
    free(bb);
}

static void cmp_data(int a, int b, int v, int type, int ndims, const size_t *len,
                     const char *name)
{
    size_t start[NCS_MAX_VAR_DIMS], count[NCS_MAX_VAR_DIMS], n = 1;
    ptrdiff_t stride[NCS_MAX_VAR_DIMS], imap[NCS_MAX_VAR_DIMS];
    char what[512];
    for (int d = 0; d < ndims; d++) {
        start[d] = 0;
        count[d] = len[d];
        n *= len[d];
    }
    if (n > 4000000)
        return;
    snprintf(what, sizeof what, "%.200s whole", name);
    cmp_get(a, b, v, start, count, NULL, NULL, type, n, what);
    if (type != NCS_CHAR) {
        snprintf(what, sizeof what, "%.200s whole as double", name);
        cmp_get(a, b, v, start, count, NULL, NULL, NCS_DOUBLE, n, what);
        snprintf(what, sizeof what, "%.200s whole as short", name);
        cmp_get(a, b, v, start, count, NULL, NULL, NCS_SHORT, n, what);
    }
    if (n == 0 || ndims == 0)
        return;
    for (int round = 0; round < 12; round++) {
        size_t m = 1;
        for (int d = 0; d < ndims; d++) {
            /* one past the end at times: the errors must agree too */
            size_t lim = len[d] + (round == 11);
            start[d] = (size_t)below(lim);
            stride[d] = (ptrdiff_t)(1 + below(3));
            count[d] = lim > start[d] ? (size_t)(1 + below((lim - start[d] + (size_t)stride[d] - 1) / (size_t)stride[d])) : 0;
            m *= count[d];
        }
        snprintf(what, sizeof what, "%.200s slab %d", name, round);
        cmp_get(a, b, v, start, count, stride, NULL, type == NCS_CHAR ? NCS_CHAR : NCS_FLOAT, m,
                what);
    }
    if (ndims >= 2) {
        /* the last two dimensions transposed */
        size_t m = 1;
        for (int d = 0; d < ndims; d++) {
            start[d] = 0;
            count[d] = len[d] < 5 ? len[d] : 5;
            m *= count[d];
        }
        {
            ptrdiff_t step = 1;
            imap[ndims - 2] = 1;
            imap[ndims - 1] = (ptrdiff_t)count[ndims - 2];
            step = (ptrdiff_t)(count[ndims - 2] * count[ndims - 1]);
            for (int d = ndims - 3; d >= 0; d--) {
                imap[d] = step;
                step *= (ptrdiff_t)count[d];
            }
        }
        snprintf(what, sizeof what, "%.200s mapped", name);
        cmp_get(a, b, v, start, count, NULL, imap, type, m, what);
    }
    for (int k = 0; k < 40; k++) {
        unsigned char ea[8] = { 0 }, eb[8] = { 0 };
        int sa, sb;
        for (int d = 0; d < ndims; d++)
            start[d] = (size_t)below(len[d]);
        sa = ncs_get1(a, v, start, type, ea);
        sb = ncs_get1(b, v, start, type, eb);
        EXPECT(sa == sb && memcmp(ea, eb, sizeof ea) == 0, "%s get1: %d/%d", name, sa, sb);
    }
}

/* Compares what the two open files answer. */
static void cmp_files(int a, int b)
{
    int nd[2], nv[2], ng[2], ul[2], fm[2];
    OK(ncs_inq(a, &nd[0], &nv[0], &ng[0], &ul[0]));
    OK(ncs_inq(b, &nd[1], &nv[1], &ng[1], &ul[1]));
    OK(ncs_inq_format(a, &fm[0]));
    OK(ncs_inq_format(b, &fm[1]));
    if (nd[0] != nd[1] || nv[0] != nv[1] || ng[0] != ng[1] || ul[0] != ul[1] ||
        fm[0] != fm[1]) {
        fail("inq: %d/%d dims %d/%d vars %d/%d atts %d/%d unlimited %d/%d format", nd[0],
             nd[1], nv[0], nv[1], ng[0], ng[1], ul[0], ul[1], fm[0], fm[1]);
        return;
    }
    for (int d = 0; d < nd[0]; d++) {
        char na[NCS_MAX_NAME + 1], nb[NCS_MAX_NAME + 1];
        size_t la, lb;
        OK(ncs_inq_dim(a, d, na, &la));
        OK(ncs_inq_dim(b, d, nb, &lb));
        EXPECT(strcmp(na, nb) == 0 && la == lb, "dimension %d: %s %zu against %s %zu", d, na,
               la, nb, lb);
    }
    cmp_atts(a, b, NCS_GLOBAL, ng[0], "global");
    cmp_virtual(a, b);
    for (int v = 0; v < nv[0]; v++) {
        char na[NCS_MAX_NAME + 1], nb[NCS_MAX_NAME + 1];
        int ta, tb, ka, kb, da[NCS_MAX_VAR_DIMS], db[NCS_MAX_VAR_DIMS], aa, ab;
        size_t len[NCS_MAX_VAR_DIMS];
        OK(ncs_inq_var(a, v, na, &ta, &ka, da, &aa));
        OK(ncs_inq_var(b, v, nb, &tb, &kb, db, &ab));
        if (strcmp(na, nb) != 0 || ta != tb || ka != kb || aa != ab ||
            memcmp(da, db, (size_t)ka * sizeof *da) != 0) {
            fail("variable %d: %s against %s", v, na, nb);
            continue;
        }
        cmp_atts(a, b, v, aa, na);
        cmp_storage(a, b, v, ka, na);
        for (int d = 0; d < ka; d++)
            OK(ncs_inq_dimlen(a, da[d], &len[d]));
        cmp_data(a, b, v, ta, ka, len, na);
    }
}

/* Checks one file: opened both ways with the same status, served by the
 * new store when want_nc4 (declined to the HDF5 store when 0; either when
 * -1), and answering the same. */
static void check_file(const char *path, int want_nc4)
{
    int a = -1, b = -1, st[2];
    current = path;
    open_both(path, &a, &b, st);
    EXPECT(st[0] == st[1], "open: %d (%s) against %d (%s)", st[0], ncs_strerror(st[0]), st[1],
           ncs_strerror(st[1]));
    if (st[0] == NCS_NOERR && st[1] == NCS_NOERR) {
        EXPECT(!by_nc4(a), "NCSLAB_NC4READ=0 did not send the file to HDF5");
        if (want_nc4 >= 0)
            EXPECT(by_nc4(b) == want_nc4, "served by %s, expected %s",
                   by_nc4(b) ? "nc4read" : "the HDF5 store", want_nc4 ? "nc4read" : "HDF5");
        cmp_files(a, b);
    } else if (want_nc4 > 0) {
        fail("not opened");
    }
    if (st[0] == NCS_NOERR)
        ncs_close(a);
    if (st[1] == NCS_NOERR)
        ncs_close(b);
}

/* ---- files ncslab writes -------------------------------------------------------------------- */

enum { NT = 5, NY = 7, NX = 9 };

static void fill_put(int ncid, int varid, int type, size_t n, const size_t *start,
                     const size_t *count)
{
    double *v = malloc((n ? n : 1) * sizeof *v);
    for (size_t i = 0; i < n; i++)
        v[i] = (double)(i % 200) - 50 + (type == NCS_FLOAT || type == NCS_DOUBLE ? 0.25 : 0);
    if (type == NCS_CHAR) {
        char *c = malloc(n ? n : 1);
        for (size_t i = 0; i < n; i++)
            c[i] = (char)('a' + i % 26);
        OK(ncs_put(ncid, varid, start, count, NULL, NULL, NCS_CHAR, c));
        free(c);
    } else {
        int s = ncs_put(ncid, varid, start, count, NULL, NULL, NCS_DOUBLE, v);
        if (s != NCS_NOERR && s != NCS_ERANGE)
            OK(s);
    }
    free(v);
}

static void make_ncslab(const char *path, int cmode, int many_atts)
{
    int ncid, t, y, x, s, v[32], nv = 0, dims[3];
    size_t chunks[3];
    OK(ncs_create(path, cmode | NCS_CLOBBER, &ncid));
    OK(ncs_def_dim(ncid, "time", NCS_UNLIMITED, &t));
    OK(ncs_def_dim(ncid, "y", NY, &y));
    OK(ncs_def_dim(ncid, "x", NX, &x));
    OK(ncs_def_dim(ncid, "s", 3, &s));
    /* every type, chunked by record */
    for (int type = NCS_BYTE; type <= NCS_DOUBLE; type++) {
        char name[32];
        snprintf(name, sizeof name, "rec_%d", type);
        dims[0] = t, dims[1] = y, dims[2] = x;
        OK(ncs_def_var(ncid, name, type, 3, dims, &v[nv]));
        nv++;
    }
    dims[0] = t, dims[1] = y, dims[2] = x;
    OK(ncs_def_var(ncid, "deflated", NCS_INT, 3, dims, &v[nv]));
    OK(ncs_def_var_deflate(ncid, v[nv], 1, 1, 3));
    nv++;
    OK(ncs_def_var(ncid, "zstd", NCS_DOUBLE, 2, dims + 1, &v[nv]));
    OK(ncs_def_var_zstd(ncid, v[nv], 4));
    chunks[0] = 4, chunks[1] = 4;
    OK(ncs_def_var_chunking(ncid, v[nv], NCS_CHUNKED, chunks));
    nv++;
    dims[0] = t, dims[1] = x;
    OK(ncs_def_var(ncid, "checked", NCS_SHORT, 2, dims, &v[nv]));
    OK(ncs_def_var_fletcher32(ncid, v[nv], 1));
    nv++;
    OK(ncs_def_var(ncid, "contig", NCS_SHORT, 2, (int[]){ y, x }, &v[nv]));
    OK(ncs_def_var_chunking(ncid, v[nv], NCS_CONTIGUOUS, NULL));
    nv++;
    OK(ncs_def_var(ncid, "big", NCS_DOUBLE, 2, (int[]){ y, x }, &v[nv]));
    OK(ncs_def_var_endian(ncid, v[nv], NCS_ENDIAN_BIG));
    nv++;
    OK(ncs_def_var(ncid, "text", NCS_CHAR, 2, (int[]){ t, s }, &v[nv]));
    nv++;
    OK(ncs_def_var(ncid, "scalar", NCS_DOUBLE, 0, NULL, &v[nv]));
    nv++;
    OK(ncs_def_var(ncid, "x", NCS_FLOAT, 1, &x, &v[nv]));
    nv++;
    /* named like a dimension it does not use */
    OK(ncs_def_var(ncid, "y", NCS_INT, 1, &x, &v[nv]));
    nv++;
    OK(ncs_def_var(ncid, "quant", NCS_FLOAT, 2, (int[]){ y, x }, &v[nv]));
    OK(ncs_def_var_quantize(ncid, v[nv], NCS_QUANTIZE_BITGROOM, 3));
    nv++;
    /* never written: a fill value, no fill, a scalar, contiguous */
    {
        int w;
        short fv = -7;
        OK(ncs_def_var(ncid, "unwritten_fill", NCS_SHORT, 2, (int[]){ t, x }, &w));
        OK(ncs_put_att(ncid, w, "_FillValue", NCS_SHORT, 1, NCS_SHORT, &fv));
        OK(ncs_def_var(ncid, "unwritten_nofill", NCS_FLOAT, 2, (int[]){ y, x }, &w));
        OK(ncs_def_var_fill(ncid, w, 1, NULL));
        OK(ncs_def_var(ncid, "unwritten_scalar", NCS_INT, 0, NULL, &w));
        OK(ncs_def_var(ncid, "unwritten_contig", NCS_DOUBLE, 2, (int[]){ y, x }, &w));
        OK(ncs_def_var_chunking(ncid, w, NCS_CONTIGUOUS, NULL));
        OK(ncs_def_var(ncid, "short_rec", NCS_INT, 2, (int[]){ t, x }, &w));
        /* chunks stored here and there: lookups of places without one */
        OK(ncs_def_var(ncid, "sparse", NCS_INT, 3, (int[]){ t, y, x }, &w));
        OK(ncs_def_var_chunking(ncid, w, NCS_CHUNKED, (size_t[]){ 1, 2, 3 }));
    }
    {
        const char *title = "nc4read test";
        double d[3] = { 1.5, -2, 1e300 };
        OK(ncs_put_att(ncid, NCS_GLOBAL, "title", NCS_CHAR, strlen(title), NCS_CHAR, title));
        OK(ncs_put_att(ncid, NCS_GLOBAL, "doubles", NCS_DOUBLE, 3, NCS_DOUBLE, d));
        for (int i = 0; i < many_atts; i++) {
            char name[32];
            int val = i * 3 - 10;
            snprintf(name, sizeof name, "att_%03d", 97 - i);
            OK(ncs_put_att(ncid, i % 2 ? NCS_GLOBAL : v[0], name,
                           i % 6 == 1 ? NCS_SHORT : NCS_BYTE + i % 6, 1, NCS_INT, &val));
        }
    }
    OK(ncs_enddef(ncid));
    for (int i = 0; i < nv; i++) {
        int nd, dd[NCS_MAX_VAR_DIMS], type;
        size_t start[3] = { 0, 0, 0 }, count[3], n = 1;
        OK(ncs_inq_var(ncid, v[i], NULL, &type, &nd, dd, NULL));
        for (int d = 0; d < nd; d++) {
            OK(ncs_inq_dimlen(ncid, dd[d], &count[d]));
            if (dd[d] == t)
                count[d] = NT;
            n *= count[d];
        }
        fill_put(ncid, v[i], type, n, start, count);
    }
    {
        int w;
        size_t start[2] = { 0, 0 }, count[2] = { 2, NX };
        OK(ncs_inq_varid(ncid, "short_rec", &w));
        fill_put(ncid, w, NCS_INT, 2 * NX, start, count);
        OK(ncs_inq_varid(ncid, "sparse", &w));
        for (size_t k = 0; k < 6; k++) {
            size_t st3[3] = { k % NT, (k * 3) % NY, (k * 5) % NX }, ct3[3] = { 1, 1, 1 };
            fill_put(ncid, w, NCS_INT, 1, st3, ct3);
        }
    }
    OK(ncs_close(ncid));
}

/* A copy of src killed in the middle of a commit: the journal of the
 * commit is complete at the end of the file, its pages not yet applied.
 * Made by hand from a file and its next state: the journal holds every
 * page of the next state that differs. */
static int copy_file(const char *from, const char *to, unsigned char **bytes, size_t *n)
{
    FILE *f = fopen(from, "rb");
    long len;
    if (f == NULL)
        return -1;
    fseek(f, 0, SEEK_END);
    len = ftell(f);
    fseek(f, 0, SEEK_SET);
    *bytes = malloc((size_t)len + 1);
    *n = fread(*bytes, 1, (size_t)len, f);
    fclose(f);
    if (to != NULL) {
        f = fopen(to, "wb");
        fwrite(*bytes, 1, *n, f);
        fclose(f);
    }
    return 0;
}

static void put_u64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static void make_journaled(const char *before, const char *after, const char *out)
{
    unsigned char *a, *b, trailer[NCSI_NC4_JTRAILER], *rec = malloc(NCSI_NC4_JRECORD);
    size_t na, nb;
    uint64_t J, npages = 0, final;
    uLong crc = crc32(0L, Z_NULL, 0);
    FILE *f;
    copy_file(before, NULL, &a, &na);
    copy_file(after, NULL, &b, &nb);
    final = nb;
    J = (na > nb ? na : nb);
    J = (J + NCSI_NC4_JPAGE - 1) / NCSI_NC4_JPAGE * NCSI_NC4_JPAGE;
    f = fopen(out, "wb");
    fwrite(a, 1, na, f);
    /* zeros up to J, then the records of the pages that differ */
    for (size_t i = na; i < J; i++)
        fputc(0, f);
    for (uint64_t p = 0; p * NCSI_NC4_JPAGE < nb; p++) {
        size_t off = (size_t)(p * NCSI_NC4_JPAGE);
        memset(rec, 0, NCSI_NC4_JRECORD);
        put_u64(rec, p);
        memcpy(rec + 8, b + off, nb - off < NCSI_NC4_JPAGE ? nb - off : NCSI_NC4_JPAGE);
        if (off < na && memcmp(rec + 8, a + off, (na - off < NCSI_NC4_JPAGE ? na - off : NCSI_NC4_JPAGE)) == 0 &&
            na - off >= NCSI_NC4_JPAGE)
            continue;
        fwrite(rec, 1, NCSI_NC4_JRECORD, f);
        crc = crc32(crc, rec, NCSI_NC4_JRECORD);
        npages++;
    }
    memcpy(trailer, "NCSJRNL1", 8);
    put_u64(trailer + 8, npages);
    put_u64(trailer + 16, final);
    put_u64(trailer + 24, J);
    crc = crc32(crc, trailer, 32);
    memset(trailer + 32, 0, 8);
    for (int i = 0; i < 4; i++)
        trailer[32 + i] = (unsigned char)(crc >> (8 * i));
    fwrite(trailer, 1, NCSI_NC4_JTRAILER, f);
    fclose(f);
    free(a);
    free(b);
    free(rec);
}

/* ---- files HDF5 writes as other writers do ------------------------------------------- */

static hid_t h5_file(const char *path, H5F_libver_t lo, int userblock)
{
    hid_t fcpl = H5Pcreate(H5P_FILE_CREATE), fapl = H5Pcreate(H5P_FILE_ACCESS), f;
    if (userblock)
        H5OK(H5Pset_userblock(fcpl, 512));
    H5OK(H5Pset_libver_bounds(fapl, lo, H5F_LIBVER_LATEST));
    f = H5Fcreate(path, H5F_ACC_TRUNC, fcpl, fapl);
    H5OK(f);
    H5Pclose(fcpl);
    H5Pclose(fapl);
    return f;
}

static void h5_text_att(hid_t obj, const char *name, const char *text)
{
    hid_t t = H5Tcopy(H5T_C_S1), sp = H5Screate(H5S_SCALAR), a;
    H5Tset_size(t, strlen(text) + 1);
    a = H5Acreate2(obj, name, t, sp, H5P_DEFAULT, H5P_DEFAULT);
    H5OK(H5Awrite(a, t, text));
    H5Aclose(a);
    H5Sclose(sp);
    H5Tclose(t);
}

static void h5_int_att(hid_t obj, const char *name, hid_t ftype, int n)
{
    hsize_t dim = (hsize_t)n;
    hid_t sp = H5Screate_simple(1, &dim, NULL), a;
    int vals[64];
    for (int i = 0; i < n; i++)
        vals[i] = 3 * i - 5;
    a = H5Acreate2(obj, name, ftype, sp, H5P_DEFAULT, H5P_DEFAULT);
    H5OK(H5Awrite(a, H5T_NATIVE_INT, vals));
    H5Aclose(a);
    H5Sclose(sp);
}

/* Dimension scales y, x and (time, unlimited), variables over them in
 * several layouts, attributes in a non-alphabetical order. */
static void make_h5(const char *path, H5F_libver_t lo, int userblock, int dense_atts,
                    int corder)
{
    hid_t f = h5_file(path, lo, userblock), g = f, sp, dc, d, y, x, tm;
    hsize_t dims[3] = { 4, NY, NX }, maxd[3] = { H5S_UNLIMITED, NY, NX }, ch[3] = { 2, 4, 4 };
    float buf[4 * NY * NX];
    for (int i = 0; i < 4 * NY * NX; i++)
        buf[i] = (float)i * 0.5f;
    if (corder) {
        hid_t gcpl = H5Pcreate(H5P_GROUP_CREATE);
        H5Pset_link_creation_order(gcpl, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED);
        H5Pset_attr_creation_order(gcpl, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED);
        H5Pclose(gcpl);
    }
    /* scales */
    sp = H5Screate_simple(1, &dims[1], NULL);
    y = H5Dcreate2(g, "y", H5T_IEEE_F64LE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Sclose(sp);
    sp = H5Screate_simple(1, &dims[2], NULL);
    x = H5Dcreate2(g, "x", H5T_STD_I32BE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Sclose(sp);
    sp = H5Screate_simple(1, &dims[0], &maxd[0]);
    dc = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dc, 1, ch);
    tm = H5Dcreate2(g, "time", H5T_IEEE_F32LE, sp, H5P_DEFAULT, dc, H5P_DEFAULT);
    H5Pclose(dc);
    H5Sclose(sp);
    H5OK(H5Dwrite(tm, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf));
    H5OK(H5Dwrite(x, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf));
    H5OK(H5DSset_scale(y, "y"));
    H5OK(H5DSset_scale(x, "x"));
    H5OK(H5DSset_scale(tm, "time"));
    /* a chunked record variable with deflate, big-endian */
    sp = H5Screate_simple(3, dims, maxd);
    dc = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dc, 3, ch);
    H5Pset_shuffle(dc);
    H5Pset_deflate(dc, 2);
    d = H5Dcreate2(g, "temp", H5T_IEEE_F32BE, sp, H5P_DEFAULT, dc, H5P_DEFAULT);
    H5OK(H5Dwrite(d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf));
    H5DSattach_scale(d, tm, 0);
    H5DSattach_scale(d, y, 1);
    H5DSattach_scale(d, x, 2);
    h5_text_att(d, "units", "K");
    h5_text_att(d, "long_name", "temperature");
    h5_int_att(d, "valid", H5T_STD_I16LE, 2);
    if (dense_atts)
        for (int i = 0; i < 12; i++) {
            char name[16];
            snprintf(name, sizeof name, "z%02d", 11 - i);
            h5_int_att(d, name, H5T_STD_I32LE, 1 + i % 3);
        }
    H5Dclose(d);
    H5Pclose(dc);
    /* contiguous, written; contiguous never written with a fill value;
     * one with the fill time never; compact */
    {
        hsize_t d2[2] = { NY, NX };
        hid_t s2 = H5Screate_simple(2, d2, NULL);
        int fillv = 42;
        d = H5Dcreate2(g, "contig", H5T_STD_I16LE, s2, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        H5OK(H5Dwrite(d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf));
        H5DSattach_scale(d, y, 0);
        H5DSattach_scale(d, x, 1);
        H5Dclose(d);
        dc = H5Pcreate(H5P_DATASET_CREATE);
        H5Pset_fill_value(dc, H5T_NATIVE_INT, &fillv);
        H5Pset_alloc_time(dc, H5D_ALLOC_TIME_LATE);
        d = H5Dcreate2(g, "never_filled", H5T_STD_I32LE, s2, H5P_DEFAULT, dc, H5P_DEFAULT);
        H5DSattach_scale(d, y, 0);
        H5DSattach_scale(d, x, 1);
        H5Dclose(d);
        H5Pclose(dc);
        dc = H5Pcreate(H5P_DATASET_CREATE);
        H5Pset_fill_time(dc, H5D_FILL_TIME_NEVER);
        H5Pset_alloc_time(dc, H5D_ALLOC_TIME_LATE);
        d = H5Dcreate2(g, "never_time", H5T_IEEE_F64LE, s2, H5P_DEFAULT, dc, H5P_DEFAULT);
        H5DSattach_scale(d, y, 0);
        H5DSattach_scale(d, x, 1);
        H5Dclose(d);
        H5Pclose(dc);
        dc = H5Pcreate(H5P_DATASET_CREATE);
        H5Pset_layout(dc, H5D_COMPACT);
        d = H5Dcreate2(g, "compact", H5T_STD_U8LE, s2, H5P_DEFAULT, dc, H5P_DEFAULT);
        H5OK(H5Dwrite(d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf));
        H5DSattach_scale(d, y, 0);
        H5DSattach_scale(d, x, 1);
        H5Dclose(d);
        H5Pclose(dc);
        H5Sclose(s2);
    }
    /* a scalar */
    {
        hid_t s0 = H5Screate(H5S_SCALAR);
        double pi = 3.25;
        d = H5Dcreate2(g, "scalar", H5T_IEEE_F64BE, s0, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        H5OK(H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, &pi));
        H5Dclose(d);
        H5Sclose(s0);
    }
    h5_text_att(f, "title", "written by HDF5");
    h5_text_att(f, "Conventions", "CF-1.8");
    H5Sclose(sp);
    H5Dclose(y);
    H5Dclose(x);
    H5Dclose(tm);
    H5Fclose(f);
}

#ifdef HAVE_NETCDF
/* ---- files netCDF-C writes -------------------------------------------------------------- */

#define NCOK(call)                                                                \
    do {                                                                          \
        int s_ = (call);                                                          \
        if (s_ != NC_NOERR) {                                                     \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,         \
                    nc_strerror(s_));                                             \
            exit(99);                                                             \
        }                                                                         \
    } while (0)

static void make_netcdf(const char *path, int cmode, int extra)
{
    int ncid, t, y, x, v;
    float buf[NT * NY * NX];
    for (int i = 0; i < NT * NY * NX; i++)
        buf[i] = (float)i - 100.5f;
    NCOK(nc_create(path, cmode | NC_CLOBBER, &ncid));
    NCOK(nc_def_dim(ncid, "time", NC_UNLIMITED, &t));
    NCOK(nc_def_dim(ncid, "y", NY, &y));
    NCOK(nc_def_dim(ncid, "x", NX, &x));
    NCOK(nc_def_var(ncid, "contig", NC_FLOAT, 2, (int[]){ y, x }, &v));
    NCOK(nc_def_var(ncid, "compact", NC_SHORT, 1, &x, &v));
    NCOK(nc_def_var_chunking(ncid, v, NC_COMPACT, NULL));
    NCOK(nc_def_var(ncid, "rec", NC_DOUBLE, 3, (int[]){ t, y, x }, &v));
    NCOK(nc_def_var_deflate(ncid, v, 1, 1, 1));
    NCOK(nc_def_var(ncid, "rec_short", NC_INT, 2, (int[]){ t, x }, &v));
    NCOK(nc_def_var(ncid, "big", NC_INT, 2, (int[]){ y, x }, &v));
    NCOK(nc_def_var_endian(ncid, v, NC_ENDIAN_BIG));
    NCOK(nc_def_var(ncid, "nofill", NC_FLOAT, 2, (int[]){ y, x }, &v));
    NCOK(nc_def_var_fill(ncid, v, 1, NULL));
    NCOK(nc_def_var(ncid, "unwritten", NC_DOUBLE, 2, (int[]){ y, x }, &v));
    NCOK(nc_def_var(ncid, "scalar", NC_INT, 0, NULL, &v));
    for (int i = 0; i < 14; i++) {
        char name[16];
        snprintf(name, sizeof name, "g%02d", 13 - i);
        NCOK(nc_put_att_float(ncid, NC_GLOBAL, name, NC_FLOAT, 1 + i % 4, buf));
    }
    if (!(cmode & NC_CLASSIC_MODEL)) {
        long long big[2] = { -5, 1LL << 40 };
        NCOK(nc_def_var(ncid, "ubytes", NC_UBYTE, 2, (int[]){ t, x }, &v));
        NCOK(nc_def_var(ncid, "u64", NC_UINT64, 2, (int[]){ y, x }, &v));
        NCOK(nc_def_var_endian(ncid, v, NC_ENDIAN_BIG));
        NCOK(nc_def_var(ncid, "i64", NC_INT64, 1, &x, &v));
        NCOK(nc_put_att_longlong(ncid, v, "range", NC_INT64, 2, big));
        { long long u2[2] = { 5, 60000 }; NCOK(nc_put_att_longlong(ncid, NC_GLOBAL, "uatt", NC_USHORT, 2, u2)); }
    }
    if (extra == 1) {
        const char *s = "a string";
        NCOK(nc_put_att_string(ncid, NC_GLOBAL, "str", 1, &s));
    } else if (extra == 2) {
        int g;
        NCOK(nc_def_grp(ncid, "sub", &g));
    } else if (extra == 3) {
        int t2;
        NCOK(nc_def_dim(ncid, "time2", NC_UNLIMITED, &t2));
        NCOK(nc_def_var(ncid, "rec2", NC_INT, 1, &t2, &v));
    }
    NCOK(nc_enddef(ncid));
    {
        size_t st[3] = { 0, 0, 0 }, ct[3] = { NT, NY, NX };
        int vid;
        NCOK(nc_inq_varid(ncid, "contig", &vid));
        NCOK(nc_put_var_float(ncid, vid, buf));
        NCOK(nc_inq_varid(ncid, "compact", &vid));
        NCOK(nc_put_var_float(ncid, vid, buf));
        NCOK(nc_inq_varid(ncid, "rec", &vid));
        NCOK(nc_put_vara_float(ncid, vid, st, ct, buf));
        ct[0] = 2;
        ct[1] = NX;
        NCOK(nc_inq_varid(ncid, "rec_short", &vid));
        NCOK(nc_put_vara_float(ncid, vid, st, ct, buf));
        NCOK(nc_inq_varid(ncid, "big", &vid));
        NCOK(nc_put_var_float(ncid, vid, buf));
        NCOK(nc_inq_varid(ncid, "scalar", &vid));
        NCOK(nc_put_var_float(ncid, vid, buf + 3));
        if (!(cmode & NC_CLASSIC_MODEL)) {
            unsigned long long u[NY * NX];
            for (int i = 0; i < NY * NX; i++)
                u[i] = (unsigned long long)i * 977;
            NCOK(nc_inq_varid(ncid, "u64", &vid));
            NCOK(nc_put_var_ulonglong(ncid, vid, u));
            NCOK(nc_inq_varid(ncid, "ubytes", &vid));
            ct[0] = 3;
            for (int i = 0; i < NY * NX; i++)
                u[i] %= 256;
            NCOK(nc_put_vara_ulonglong(ncid, vid, st, ct, u));
        }
    }
    NCOK(nc_close(ncid));
}
#endif

/* ---- damage ------------------------------------------------------------------------------ */

/* What one store read of each variable of a damaged file: status and
 * values as double. */
typedef struct readout {
    int nvars;
    int status[64];
    size_t n[64];
    double *v[64];
} readout;

static void read_all(int ncid, readout *r)
{
    memset(r, 0, sizeof *r);
    if (ncs_inq_nvars(ncid, &r->nvars) != NCS_NOERR || r->nvars > 64)
        r->nvars = 0;
    for (int v = 0; v < r->nvars; v++) {
        size_t start[NCS_MAX_VAR_DIMS] = { 0 }, count[NCS_MAX_VAR_DIMS], m = 1;
        int nd = 0, dd[NCS_MAX_VAR_DIMS];
        r->status[v] = ncs_inq_var(ncid, v, NULL, NULL, &nd, dd, NULL);
        for (int d = 0; d < nd && r->status[v] == NCS_NOERR; d++) {
            r->status[v] = ncs_inq_dimlen(ncid, dd[d], &count[d]);
            m *= count[d];
        }
        if (r->status[v] != NCS_NOERR || m > 1000000) {
            r->status[v] = NCS_EINVAL;
            continue;
        }
        r->n[v] = m;
        r->v[v] = calloc(m + 1, sizeof(double));
        r->status[v] = ncs_get(ncid, v, start, count, NULL, NULL, NCS_DOUBLE, r->v[v]);
    }
}

static void readout_free(readout *r)
{
    for (int v = 0; v < r->nvars; v++)
        free(r->v[v]);
}

/* A readout to a file and back (the reference reader's answer). */
static int readout_save(const char *path, const readout *r)
{
    FILE *f = fopen(path, "wb");
    int ok = f != NULL && fwrite(&r->nvars, sizeof r->nvars, 1, f) == 1;
    for (int v = 0; ok && v < r->nvars; v++)
        ok = fwrite(&r->status[v], sizeof r->status[v], 1, f) == 1 &&
             fwrite(&r->n[v], sizeof r->n[v], 1, f) == 1 &&
             (r->v[v] == NULL || fwrite(r->v[v], sizeof(double), r->n[v], f) == r->n[v]);
    if (f != NULL && fclose(f) != 0)
        ok = 0;
    return ok ? 0 : -1;
}

static int readout_load(const char *path, readout *r)
{
    FILE *f = fopen(path, "rb");
    int ok = f != NULL && fread(&r->nvars, sizeof r->nvars, 1, f) == 1 && r->nvars >= 0 &&
             r->nvars <= 64;
    memset(r->v, 0, sizeof r->v);
    for (int v = 0; ok && v < r->nvars; v++) {
        ok = fread(&r->status[v], sizeof r->status[v], 1, f) == 1 &&
             fread(&r->n[v], sizeof r->n[v], 1, f) == 1 && r->n[v] <= 1000000;
        if (ok && (r->v[v] = calloc(r->n[v] + 1, sizeof(double))) != NULL)
            ok = fread(r->v[v], sizeof(double), r->n[v], f) == r->n[v];
    }
    if (f != NULL)
        fclose(f);
    if (!ok) {
        readout_free(r);
        r->nvars = 0;
    }
    return ok ? 0 : -1;
}

/* Each round flips bytes of a copy of src at random places and reads the
 * copy as a program does: nothing crashes.  Where the new store served it,
 * this program, run again (--reference), reads it through the HDF5 store
 * (which HDF5 1.10 can crash on some damaged files: such rounds are
 * counted, not failed), and whatever both read must be equal. */
static void damage(const char *src, int rounds)
{
    unsigned char *orig;
    size_t n;
    char path[512], out[512];
    int served = 0, declined = 0, refused = 0, hdf5_crashed = 0;
    path_of(path, sizeof path, "damaged.nc");
    path_of(out, sizeof out, "reference.out");
    copy_file(src, NULL, &orig, &n);
    for (int r = 0; r < rounds; r++) {
        FILE *f = fopen(path, "wb");
        unsigned char *b = malloc(n);
        int c = -1, st;
        memcpy(b, orig, n);
        for (int k = 1 + (int)below(4); k > 0; k--)
            b[below(n)] ^= (unsigned char)(1 + below(255));
        fwrite(b, 1, n, f);
        fclose(f);
        free(b);
        current = path;
        /* HDF5 never loads in this process for a damaged file */
        setenv("NCSLAB_NC4READ", "only", 1);
        st = ncs_open(path, NCS_NOWRITE, &c);
        unsetenv("NCSLAB_NC4READ");
        EXPECT(st != NCS_NOERR || by_nc4(c), "round %d: served through HDF5", r);
        if (st == NCS_NOERR) {
            readout mine;
            pid_t pid;
            int wst = 0;
            served++;
            read_all(c, &mine);
            fflush(NULL);
            /* a new program, not a fork of this one, whose other threads
             * (the decoding pool) may hold a lock at the fork */
            pid = fork();
            if (pid == 0) {
                execl("/proc/self/exe", "check_nc4read", "--reference", path, out, (char *)NULL);
                _exit(98);
            }
            if (pid > 0 && waitpid(pid, &wst, 0) == pid) {
                if (WIFEXITED(wst) && WEXITSTATUS(wst) == 0) {
                    readout ref;
                    if (readout_load(out, &ref) == 0) {
                        for (int v = 0; v < ref.nvars && v < mine.nvars; v++)
                            if ((ref.status[v] == NCS_NOERR || ref.status[v] == NCS_ERANGE) &&
                                ref.status[v] == mine.status[v] && ref.n[v] == mine.n[v] &&
                                memcmp(ref.v[v], mine.v[v], ref.n[v] * sizeof(double)) != 0) {
                                char kept[600];
                                snprintf(kept, sizeof kept, "%s.round%d", path, r);
                                fail("round %d: variable %d differs (the file kept as %s)", r, v,
                                     kept);
                                rename(path, kept);
                                break;
                            }
                        readout_free(&ref);
                    }
                } else if (WIFEXITED(wst) && WEXITSTATUS(wst) == 98) {
                    fail("round %d: the reference reader did not start", r);
                } else {
                    hdf5_crashed++;
                }
            }
            readout_free(&mine);
        } else if (st == NCS_ENOTBUILT) {
            declined++;
        } else {
            refused++;
        }
        if (st == NCS_NOERR)
            ncs_close(c);
    }
    free(orig);
    printf("check_nc4read: %s damaged %d times: %d read without HDF5 (HDF5 crashed on %d of "
           "them), %d declined to HDF5, %d refused\n", src, rounds, served, hdf5_crashed,
           declined, refused);
}

int main(int argc, char **argv)
{
    char p[512], q[512], r[512];
    unsigned long long seed;
    if (argc == 4 && strcmp(argv[1], "--reference") == 0) {
        /* the HDF5 store's reading of a damaged file, for damage() */
        readout ref;
        int ncid;
        setenv("NCSLAB_NC4READ", "0", 1);
        setenv("NCSLAB_CHUNK_ADDR", "0", 1);
        H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
        memset(&ref, 0, sizeof ref);
        if (ncs_open(argv[2], NCS_NOWRITE, &ncid) == NCS_NOERR)
            read_all(ncid, &ref);
        return readout_save(argv[3], &ref) == 0 ? 0 : 97;
    }
    seed = argc > 1 ? strtoull(argv[1], NULL, 10) : (unsigned long long)time(NULL);
    rng_state = seed;
    printf("check_nc4read: seed %llu (check_nc4read %llu replays it)\n", seed, seed);
    if (mkdtemp(dir) == NULL) {
        perror("mkdtemp");
        return 99;
    }
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    unsetenv("NCSLAB_NC4READ");
    /* the HDF5 store finds chunks through HDF5's own calls, not through
     * the index reader the new store shares with it: the reference is
     * then independent of the code under test */
    setenv("NCSLAB_CHUNK_ADDR", "0", 1);
    ncsi_fastpath_init();
    if (!ncsi_fastpath) {
        /* without the fast paths every file goes to HDF5: nothing to compare */
        printf("check_nc4read: the fast paths are off, and the store with them; skipped\n");
        rmdir(dir);
        return 77;
    }

    path_of(p, sizeof p, "ncslab_classic.nc");
    make_ncslab(p, NCS_NETCDF4 | NCS_CLASSIC_MODEL, 20);
    check_file(p, 1);
    path_of(q, sizeof q, "ncslab_nc4.nc");
    make_ncslab(q, NCS_NETCDF4, 3);
    check_file(q, 1);

    /* killed in a commit: the journal seen through */
    path_of(r, sizeof r, "journaled.nc");
    {
        char before[512];
        path_of(before, sizeof before, "before.nc");
        make_ncslab(before, NCS_NETCDF4 | NCS_CLASSIC_MODEL, 0);
        make_journaled(before, p, r);
        check_file(r, 1);
        unlink(before);
    }

    path_of(r, sizeof r, "h5_v18.nc");
    make_h5(r, H5F_LIBVER_V18, 0, 0, 0);
    check_file(r, 1);
    path_of(r, sizeof r, "h5_earliest_userblock.nc");
    make_h5(r, H5F_LIBVER_EARLIEST, 1, 1, 0);
    check_file(r, 1);
    /* untracked dense attributes: in the name index's order, as HDF5's */
    path_of(r, sizeof r, "h5_v18_dense.nc");
    make_h5(r, H5F_LIBVER_V18, 0, 1, 0);
    check_file(r, 1);
    /* the latest format: chunk indexes of layout version 4 */
    path_of(r, sizeof r, "h5_latest.nc");
    make_h5(r, H5F_LIBVER_LATEST, 0, 0, 0);
    check_file(r, 0);

#ifdef HAVE_NETCDF
    path_of(r, sizeof r, "netcdf_classic.nc");
    make_netcdf(r, NC_NETCDF4 | NC_CLASSIC_MODEL, 0);
    check_file(r, 1);
    path_of(r, sizeof r, "netcdf_nc4.nc");
    make_netcdf(r, NC_NETCDF4, 0);
    check_file(r, 1);
    path_of(r, sizeof r, "netcdf_string.nc");
    make_netcdf(r, NC_NETCDF4, 1);
    check_file(r, 0);
    path_of(r, sizeof r, "netcdf_group.nc");
    make_netcdf(r, NC_NETCDF4, 2);
    check_file(r, 0);
    path_of(r, sizeof r, "netcdf_unlim2.nc");
    make_netcdf(r, NC_NETCDF4, 3);
    check_file(r, 0);
#endif

    damage(p, 300);
    damage(q, 100);

    if (failures == 0) {
        char cmd[600];
        snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
        if (system(cmd) != 0)
            fprintf(stderr, "check_nc4read: could not remove %s\n", dir);
    } else {
        fprintf(stderr, "check_nc4read: %d failures (seed %llu; files kept in %s)\n", failures,
                seed, dir);
    }
    return failures != 0;
}
