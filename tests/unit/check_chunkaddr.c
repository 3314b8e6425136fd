/*
 * check_chunkaddr.c -- lib/store/hdf5/h5_chunkaddr.c, the chunk index read
 * from a read-only file's own bytes, against HDF5's own listing of the
 * same chunks (white-box: it links the convenience library).
 *
 *   - files ncslab writes (a 1-D variable of 4,000 stored chunks among
 *     6,000 places, a B-tree of three levels; a record variable with edge
 *     chunks and zstd; deflate with shuffle) and one HDF5 writes with
 *     version-1 object headers behind a 512-byte user block: every
 *     variable has an index, and looking up every place of its chunk grid
 *     finds exactly the chunks, addresses, sizes and filter masks
 *     H5Dget_chunk_info lists, in the same order, and nothing past it;
 *   - every value read through the table is the value read through HDF5's
 *     own chunk calls (a writable copy, which has no table);
 *   - a file opened for writing has no index;
 *   - HDF5's latest format (superblock 3, other chunk indexes) opens
 *     read-only and reads through HDF5; a never-written dataset without a
 *     fill value of its own reads as zeros, HDF5's default, as netCDF-C
 *     reads it;
 *   - cold gets of many more chunks than the cache holds read only each
 *     chunk's part, past the cache, and announce the parts or chunks that
 *     lie apart (a point from each of 200 records: 200 hints, no chunk
 *     loaded, a few bytes a record read); gets of chunks that fit go
 *     through the cache, and a get inside one chunk announces nothing;
 *   - files whose chunk index nodes have random bytes overwritten: opening
 *     and reading every value never crashes (the sanitizer builds run this
 *     too), every chunk found lies inside the file, and a damaged node is
 *     NCS_EHDFERR.
 * A failure prints the seed; the seed can be given as argv[1].
 */
#define NCSI_H5_NO_REDIRECT 1

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "api.h"
#include "hdf5_store.h"
#include "ncslab.h"

static int failures;
#define CHECK(cond, ...)                                                     \
    do {                                                                     \
        if (!(cond)) {                                                       \
            fprintf(stderr, "check_chunkaddr:%d: ", __LINE__);               \
            fprintf(stderr, __VA_ARGS__);                                    \
            fprintf(stderr, "\n");                                           \
            failures++;                                                      \
        }                                                                    \
    } while (0)
#define OK(call)                                                             \
    do {                                                                     \
        int s_ = (call);                                                     \
        CHECK(s_ == NCS_NOERR, "%s: %s", #call, ncs_strerror(s_));           \
    } while (0)

static unsigned long long rng_state;
static uint64_t rng(void)
{
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return rng_state >> 17;
}

static char dir[] = "/tmp/check_chunkaddr.XXXXXX";

/* ---- the files -------------------------------------------------------------------- */

static void make_ncslab(const char *path)
{
    int id, z, t, y, x, v;
    int dims[3];
    size_t ck1 = 1, ck3[3] = { 2, 3, 4 }, ck2[2] = { 4, 4 };
    OK(ncs_create(path, NCS_NETCDF4 | NCS_CLASSIC_MODEL | NCS_CLOBBER, &id));
    OK(ncs_def_dim(id, "z", 6000, &z));
    OK(ncs_def_dim(id, "t", NCS_UNLIMITED, &t));
    OK(ncs_def_dim(id, "y", 7, &y));
    OK(ncs_def_dim(id, "x", 9, &x));
    OK(ncs_def_var(id, "s", NCS_SHORT, 1, &z, &v));
    OK(ncs_def_var_chunking(id, v, NCS_CHUNKED, &ck1));
    dims[0] = t, dims[1] = y, dims[2] = x;
    OK(ncs_def_var(id, "b", NCS_FLOAT, 3, dims, &v));
    OK(ncs_def_var_chunking(id, v, NCS_CHUNKED, ck3));
    OK(ncs_def_var_zstd(id, v, 3));
    dims[0] = y, dims[1] = x;
    OK(ncs_def_var(id, "c", NCS_DOUBLE, 2, dims, &v));
    OK(ncs_def_var_chunking(id, v, NCS_CHUNKED, ck2));
    OK(ncs_def_var_deflate(id, v, 1, 1, 2));
    OK(ncs_enddef(id));
    for (size_t i = 0; i < 6000; i++) {
        short val = (short)(i * 7);
        if (i % 3 != 1)
            OK(ncs_put1(id, 0, &i, NCS_SHORT, &val));
    }
    {
        float b[5 * 7 * 9];
        double c[7 * 9];
        size_t st[3] = { 0, 0, 0 }, cn[3] = { 5, 7, 9 };
        for (int i = 0; i < 5 * 7 * 9; i++)
            b[i] = (float)i * 0.5f;
        for (int i = 0; i < 7 * 9; i++)
            c[i] = i * 1.25;
        OK(ncs_put(id, 1, st, cn, NULL, NULL, NCS_FLOAT, b));
        OK(ncs_put(id, 2, st, cn + 1, NULL, NULL, NCS_DOUBLE, c));
    }
    OK(ncs_close(id));
}

/* Dimension scales and a deflated variable, as HDF5 writes them with the
 * earliest format (version-1 object headers), behind a user block. */
static void make_hdf5(const char *path, int latest)
{
    hid_t fcpl = H5Pcreate(H5P_FILE_CREATE), fapl = H5Pcreate(H5P_FILE_ACCESS), f;
    hsize_t d[2] = { 100, 90 }, mx[2] = { H5S_UNLIMITED, 90 }, c[2] = { 7, 9 }, c1 = 10;
    hid_t sy, sx, s, p1, p, y, x, ds;
    float *buf = malloc(100 * 90 * sizeof *buf);
    H5Pset_userblock(fcpl, 512);
    H5Pset_libver_bounds(fapl, latest ? H5F_LIBVER_LATEST : H5F_LIBVER_EARLIEST,
                         H5F_LIBVER_LATEST);
    f = H5Fcreate(path, H5F_ACC_TRUNC, fcpl, fapl);
    sy = H5Screate_simple(1, d, mx);
    sx = H5Screate_simple(1, d + 1, NULL);
    p1 = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(p1, 1, &c1);
    y = H5Dcreate2(f, "y", H5T_NATIVE_INT, sy, H5P_DEFAULT, p1, H5P_DEFAULT);
    x = H5Dcreate2(f, "x", H5T_NATIVE_INT, sx, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5DSset_scale(y, "y");
    H5DSset_scale(x, "x");
    s = H5Screate_simple(2, d, mx);
    p = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(p, 2, c);
    H5Pset_deflate(p, 1);
    ds = H5Dcreate2(f, "v", H5T_NATIVE_FLOAT, s, H5P_DEFAULT, p, H5P_DEFAULT);
    H5DSattach_scale(ds, y, 0);
    H5DSattach_scale(ds, x, 1);
    for (int i = 0; i < 100 * 90; i++)
        buf[i] = (float)(i % 1000);
    CHECK(buf != NULL && H5Dwrite(ds, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0,
          "H5Dwrite");
    H5Dclose(ds);
    H5Dclose(x);
    H5Dclose(y);
    H5Pclose(p);
    H5Pclose(p1);
    H5Sclose(s);
    H5Sclose(sx);
    H5Sclose(sy);
    H5Fclose(f);
    H5Pclose(fapl);
    H5Pclose(fcpl);
    free(buf);
}

static unsigned char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    unsigned char *b;
    long len;
    if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (len = ftell(f)) < 0) {
        if (f)
            fclose(f);
        return NULL;
    }
    rewind(f);
    b = malloc((size_t)len);
    *n = b != NULL ? fread(b, 1, (size_t)len, f) : 0;
    fclose(f);
    return b;
}

static void copy_file(const char *src, const char *dst)
{
    size_t n = 0;
    unsigned char *b = slurp(src, &n);
    FILE *f = fopen(dst, "wb");
    CHECK(b != NULL && f != NULL && fwrite(b, 1, n, f) == n, "copy %s", src);
    if (f)
        fclose(f);
    free(b);
}

/* ---- HDF5's listing ---------------------------------------------------------------- */

typedef struct listing {
    size_t n;
    ncsi_caddr *e;               /* addr relative, as HDF5 gives it */
    double *values;
    size_t nvalues;
} listing;

static void list_hdf5(const char *path, const char *name, const cvar *cv, listing *l)
{
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT), d, sp;
    hsize_t n = 0, npts;
    memset(l, 0, sizeof *l);
    d = H5Dopen2(f, name, H5P_DEFAULT);
    sp = H5Dget_space(d);
    CHECK(H5Dget_num_chunks(d, sp, &n) >= 0, "H5Dget_num_chunks %s", name);
    l->e = calloc(n ? n : 1, sizeof *l->e);
    for (hsize_t i = 0; i < n; i++) {
        hsize_t off[NCS_MAX_VAR_DIMS + 1], size;
        haddr_t addr;
        unsigned mask;
        uint64_t idx = 0;
        CHECK(H5Dget_chunk_info(d, sp, i, off, &mask, &addr, &size) >= 0, "chunk info");
        for (int k = 0; k < cv->ck.ndims; k++) {
            uint64_t c = off[k] / cv->ck.chunk[k];
            idx = k == 0 ? c : idx * cv->ck.grid[k] + c;
        }
        l->e[i] = (ncsi_caddr){ idx, addr, (uint32_t)size, mask };
    }
    l->n = (size_t)n;
    npts = (hsize_t)H5Sget_simple_extent_npoints(sp);
    l->nvalues = (size_t)npts;
    H5Sclose(sp);
    H5Dclose(d);
    H5Fclose(f);
}

/* Places of cv's chunk grid. */
static uint64_t places(const cvar *cv)
{
    uint64_t n = (cv->extent0 + cv->ck.chunk[0] - 1) / cv->ck.chunk[0];
    for (int d = 1; d < cv->ck.ndims; d++)
        n *= cv->ck.grid[d];
    return n;
}

/* Whether cv is stored in chunks (not contiguous or compact). */
static int chunked_var(const cvar *cv)
{
    return cv != NULL && !cv->blocked && !cv->st.contiguous && !cv->st.compact;
}

static cvar *cvar_of(int ncid, int varid)
{
    ncs_file *f = ncsi_file_get(ncid);
    chunked *cs = f != NULL ? f->state : NULL;
    return cs != NULL && varid < cs->nvars ? cs->vars[varid] : NULL;
}

/* Reads every value of varid as doubles. */
static int read_all(int ncid, int varid, double *out, size_t n)
{
    int ndims, dimids[NCS_MAX_VAR_DIMS];
    size_t start[NCS_MAX_VAR_DIMS] = { 0 }, count[NCS_MAX_VAR_DIMS], total = 1;
    int s = ncs_inq_var(ncid, varid, NULL, NULL, &ndims, dimids, NULL);
    for (int d = 0; s == NCS_NOERR && d < ndims; d++) {
        s = ncs_inq_dimlen(ncid, dimids[d], &count[d]);
        total *= count[d];
    }
    if (s != NCS_NOERR)
        return s;
    if (total != n)
        return NCS_EEDGE;
    return ncs_get(ncid, varid, start, count, NULL, NULL, NCS_DOUBLE, out);
}

/* Reads every value of varid, whatever it returns. */
static int read_any(int ncid, int varid)
{
    int ndims, dimids[NCS_MAX_VAR_DIMS], s;
    size_t total = 1, len;
    double *v;
    s = ncs_inq_var(ncid, varid, NULL, NULL, &ndims, dimids, NULL);
    for (int d = 0; s == NCS_NOERR && d < ndims; d++) {
        s = ncs_inq_dimlen(ncid, dimids[d], &len);
        total *= len;
    }
    if (s != NCS_NOERR || total > 1000000)
        return s;
    v = malloc((total ? total : 1) * sizeof *v);
    s = v != NULL ? read_all(ncid, varid, v, total) : NCS_ENOMEM;
    free(v);
    return s;
}

static const char *const names[] = { "s", "b", "c", "v", "x", "y" };

/* Every chunked variable of path: its table is HDF5's listing, and the
 * values read through it are HDF5's. */
static void compare_file(const char *path, const char *copy, int nnames,
                         const char *const *which)
{
    int id, ref, nvars;
    copy_file(path, copy);
    OK(ncs_open(copy, NCS_WRITE, &ref));
    OK(ncs_open(path, NCS_NOWRITE, &id));
    OK(ncs_inq_nvars(id, &nvars));
    for (int varid = 0; varid < nvars; varid++) {
        char name[NCS_MAX_NAME + 1];
        cvar *cv = cvar_of(id, varid);
        const ncsi_ctab *t;
        listing l;
        int wanted = 0;
        OK(ncs_inq_varname(id, varid, name));
        for (int i = 0; i < nnames; i++)
            wanted |= strcmp(which[i], name) == 0;
        if (!wanted || !chunked_var(cv))
            continue;
        list_hdf5(path, cv->h5name, cv, &l);
        l.values = malloc((l.nvalues ? l.nvalues : 1) * sizeof *l.values);
        OK(read_all(ref, varid, l.values, l.nvalues));
        OK(ncsi_h5_ctab(cv, &t));
        CHECK(t != NULL, "%s %s: no table", path, name);
        if (t != NULL) {
            /* every place of the grid looked up: the chunks found are the
             * ones HDF5 lists, in the same order */
            uint64_t np = places(cv);
            size_t k = 0;
            for (uint64_t idx = 0; idx < np; idx++) {
                ncsi_caddr a;
                int found = 0;
                OK(ncsi_h5_ctab_find(t, idx, &a, &found));
                if (!found)
                    continue;
                if (k < l.n) {
                    const ncsi_caddr *b = &l.e[k];
                    CHECK(a.idx == b->idx && a.addr == b->addr + cv->cs->base &&
                              a.size == b->size && a.mask == b->mask,
                          "%s %s chunk %zu: idx %llu addr %llu size %u mask %u; HDF5 %llu "
                          "%llu %u %u",
                          path, name, k, (unsigned long long)a.idx,
                          (unsigned long long)a.addr, a.size, a.mask,
                          (unsigned long long)b->idx,
                          (unsigned long long)(b->addr + cv->cs->base), b->size, b->mask);
                }
                k++;
            }
            CHECK(k == l.n, "%s %s: %zu chunks found, HDF5 lists %zu", path, name, k, l.n);
            /* and nothing past the grid */
            {
                ncsi_caddr a;
                int found = 1;
                OK(ncsi_h5_ctab_find(t, np, &a, &found));
                CHECK(!found, "%s %s: a chunk past the grid", path, name);
            }
        }
        {
            double *got = malloc((l.nvalues ? l.nvalues : 1) * sizeof *got);
            OK(read_all(id, varid, got, l.nvalues));
            for (size_t i = 0; i < l.nvalues; i++)
                if (got[i] != l.values[i]) {
                    CHECK(0, "%s %s value %zu: %g, HDF5 %g", path, name, i, got[i],
                          l.values[i]);
                    break;
                }
            free(got);
        }
        free(l.e);
        free(l.values);
    }
    OK(ncs_close(id));
    OK(ncs_close(ref));
}

/* ---- damaged indexes ------------------------------------------------------------- */

/* Rounds of random damage to the chunk index nodes of src, written to dst;
 * refused counts damaged roots and lookups that met a damaged node. */
static void damaged(const char *src, const char *dst, int rounds)
{
    size_t n, nsig = 0, *sig;
    unsigned char *orig = slurp(src, &n), *b;
    CHECK(orig != NULL, "read %s", src);
    if (orig == NULL)
        return;
    sig = malloc(n / 4 * sizeof *sig + sizeof *sig);
    for (size_t i = 0; i + 4 <= n; i++)
        if (memcmp(orig + i, "TREE", 4) == 0 && i + 8 < n && orig[i + 4] == 1)
            sig[nsig++] = i;
    CHECK(nsig > 0, "%s: no chunk index node found", src);
    b = malloc(n);
    int opened = 0, built = 0, refused = 0;
    for (int r = 0; r < rounds && nsig > 0; r++) {
        FILE *f;
        int id, nvars = 0;
        memcpy(b, orig, n);
        for (int k = 1 + (int)(rng() % 4); k > 0; k--) {
            size_t at = sig[rng() % nsig] + 4 + rng() % 200;
            if (at < n)
                b[at] = (unsigned char)(rng() % 3 == 0 ? 0xff : rng());
        }
        f = fopen(dst, "wb");
        CHECK(f != NULL && fwrite(b, 1, n, f) == n, "write %s", dst);
        if (f)
            fclose(f);
        if (ncs_open(dst, NCS_NOWRITE, &id) != NCS_NOERR)
            continue;
        opened++;
        ncs_inq_nvars(id, &nvars);
        for (int varid = 0; varid < nvars; varid++) {
            cvar *cv = cvar_of(id, varid);
            const ncsi_ctab *t;
            if (!chunked_var(cv))
                continue;
            int st = ncsi_h5_ctab(cv, &t);
            CHECK(st == NCS_NOERR || (st == NCS_EHDFERR && t == NULL), "round %d: %d", r, st);
            built += t != NULL;
            refused += st == NCS_EHDFERR;
            for (uint64_t idx = 0, np = places(cv); t != NULL && idx < np; idx++) {
                ncsi_caddr a;
                int found = 0, fs = ncsi_h5_ctab_find(t, idx, &a, &found);
                CHECK(fs == NCS_NOERR || fs == NCS_EHDFERR, "round %d: find %d", r, fs);
                if (fs != NCS_NOERR) {
                    refused++;
                    break;
                }
                CHECK(!found || (a.idx == idx && a.size > 0 && a.addr + a.size <= (uint64_t)n),
                      "round %d: chunk %llu outside the file", r, (unsigned long long)idx);
            }
            (void)read_any(id, varid);
        }
        ncs_close(id);
    }
    printf("check_chunkaddr: %s damaged %d times: %d opened, %d indexes, %d refused\n",
           src, rounds, opened, built, refused);
    CHECK(refused > 0, "%s: no damage was ever refused", src);
    free(b);
    free(sig);
    free(orig);
}

/* ---- cold gets: announced chunks, parts read past the cache ------------------------
 * A byte-I/O object that counts what the driver reads and is told. */
typedef struct counting_io {
    ncs_io base;
    ncs_io *inner;
} counting_io;
static uint64_t read_bytes, willneeds;

static int ct_read(ncs_io *io, uint64_t off, void *buf, size_t n, size_t *got)
{
    read_bytes += n;
    return ncsi_io_read(((counting_io *)io)->inner, off, buf, n, got);
}
static void ct_willneed(ncs_io *io, uint64_t off, uint64_t n)
{
    (void)io, (void)off, (void)n;
    willneeds++;
}
static int ct_write(ncs_io *io, uint64_t off, const void *buf, size_t n)
{
    return ncsi_io_write(((counting_io *)io)->inner, off, buf, n);
}
static int ct_size(ncs_io *io, uint64_t *sz) { return ncsi_io_size(((counting_io *)io)->inner, sz); }
static int ct_set_size(ncs_io *io, uint64_t sz)
{
    return ncsi_io_set_size(((counting_io *)io)->inner, sz);
}
static int ct_sync(ncs_io *io) { return ncsi_io_sync(((counting_io *)io)->inner); }
static int ct_lock(ncs_io *io, int on) { return ncsi_io_lock(((counting_io *)io)->inner, on); }
static int ct_close(ncs_io *io)
{
    int status = ncsi_io_close(((counting_io *)io)->inner);
    free(io);
    return status;
}
static const ncs_io_methods counting_methods = {
    .read = ct_read, .willneed = ct_willneed, .write = ct_write, .size = ct_size,
    .set_size = ct_set_size, .sync = ct_sync, .lock = ct_lock, .close = ct_close,
};
static int counting_opener(const char *path, int flags, ncs_io **iop)
{
    counting_io *c = calloc(1, sizeof *c);
    int status;
    if (c == NULL)
        return NCS_ENOMEM;
    status = ncsi_io_posix_open(path, flags, &c->inner);
    if (status != NCS_NOERR) {
        free(c);
        return status;
    }
    c->base.m = &counting_methods;
    c->base.blksize = c->inner->blksize;
    *iop = &c->base;
    return NCS_NOERR;
}

#define PR 200                   /* records of 20 x 30 floats, a chunk each */
#define PY 20
#define PX 30

static void make_parts(const char *path)
{
    int id, dims[3], v;
    size_t ck[3] = { 1, PY, PX }, st[3] = { 0, 0, 0 }, cn[3] = { PR, PY, PX };
    float *b = malloc(PR * PY * PX * sizeof *b);
    OK(ncs_create(path, NCS_NETCDF4 | NCS_CLASSIC_MODEL | NCS_CLOBBER, &id));
    OK(ncs_def_dim(id, "t", NCS_UNLIMITED, &dims[0]));
    OK(ncs_def_dim(id, "y", PY, &dims[1]));
    OK(ncs_def_dim(id, "x", PX, &dims[2]));
    OK(ncs_def_var(id, "r", NCS_FLOAT, 3, dims, &v));
    OK(ncs_def_var_chunking(id, v, NCS_CHUNKED, ck));
    OK(ncs_enddef(id));
    for (int i = 0; i < PR * PY * PX; i++)
        b[i] = (float)i;
    OK(ncs_put(id, v, st, cn, NULL, NULL, NCS_FLOAT, b));
    OK(ncs_close(id));
    free(b);
}

/* One cold get of path (a fresh open, counting): its values checked
 * against value(t, y, x) = ((t * PY) + y) * PX + x. */
static void cold_get(const char *path, const size_t *st, const size_t *cn, const ptrdiff_t *sd,
                     uint64_t *bytes, uint64_t *hints, unsigned long long *loads)
{
    int id;
    size_t n = cn[0] * cn[1] * cn[2], k = 0;
    float *got = malloc(n * sizeof *got);
    ncs_cache_counters before, after;
    ncsi_io_open = counting_opener;
    OK(ncs_open(path, NCS_NOWRITE, &id));
    read_bytes = willneeds = 0;
    ncsi_cache_counters(&before);
    OK(ncs_get(id, 0, st, cn, sd, NULL, NCS_FLOAT, got));
    ncsi_cache_counters(&after);
    *bytes = read_bytes;
    *hints = willneeds;
    *loads = after.misses - before.misses;
    printf("check_chunkaddr: cold get %zux%zux%zu from (%zu,%zu,%zu) step (%td,%td,%td): "
           "%llu bytes read, %llu hints, %llu chunks loaded\n",
           cn[0], cn[1], cn[2], st[0], st[1], st[2], sd[0], sd[1], sd[2],
           (unsigned long long)*bytes, (unsigned long long)*hints, *loads);
    for (size_t t = 0; t < cn[0]; t++)
        for (size_t y = 0; y < cn[1]; y++)
            for (size_t x = 0; x < cn[2]; x++, k++) {
                size_t T = st[0] + t * (size_t)sd[0], Y = st[1] + y * (size_t)sd[1],
                       X = st[2] + x * (size_t)sd[2];
                float want = (float)((T * PY + Y) * PX + X);
                if (got[k] != want) {
                    CHECK(0, "cold get: value %zu is %g, not %g", k, got[k], want);
                    t = cn[0];
                    break;
                }
            }
    OK(ncs_close(id));
    ncsi_io_open = ncsi_io_posix_open;
    free(got);
}

static void parts(const char *path)
{
    size_t budget = ncsi_cache_budget();
    uint64_t bytes, hints;
    unsigned long long loads;
    make_parts(path);
    /* 64 KiB: 27 chunks of 2,400 bytes fit */
    ncsi_cache_set_budget(64u << 10);
    {
        /* a point from each record: 200 chunks, more than fit, read as
         * 200 parts of 4 bytes, each announced, none through the cache */
        size_t st[3] = { 0, 5, 7 }, cn[3] = { PR, 1, 1 };
        ptrdiff_t sd[3] = { 1, 1, 1 };
        cold_get(path, st, cn, sd, &bytes, &hints, &loads);
        CHECK(loads == 0, "series: %llu chunks loaded through the cache", loads);
        CHECK(hints == PR, "series: %llu hints, not %d", (unsigned long long)hints, PR);
        CHECK(bytes < PR * 64 + 64 * 1024, "series: %llu bytes read",
              (unsigned long long)bytes);
    }
    {
        /* every other record whole: 100 chunks apart from each other,
         * each announced whole and read past the cache */
        size_t st[3] = { 1, 0, 0 }, cn[3] = { PR / 2, PY, PX };
        ptrdiff_t sd[3] = { 2, 1, 1 };
        cold_get(path, st, cn, sd, &bytes, &hints, &loads);
        CHECK(loads == 0, "every other record: %llu chunks through the cache", loads);
        CHECK(hints == PR / 2, "every other record: %llu hints", (unsigned long long)hints);
    }
    {
        /* ten records: ten chunks, which fit, through the cache */
        size_t st[3] = { 3, 2, 2 }, cn[3] = { 10, 1, 1 };
        ptrdiff_t sd[3] = { 1, 1, 1 };
        cold_get(path, st, cn, sd, &bytes, &hints, &loads);
        CHECK(loads == 10, "ten records: %llu chunks loaded", loads);
    }
    {
        /* inside one chunk: nothing announced */
        size_t st[3] = { 7, 2, 2 }, cn[3] = { 1, 5, 5 };
        ptrdiff_t sd[3] = { 1, 1, 1 };
        cold_get(path, st, cn, sd, &bytes, &hints, &loads);
        CHECK(hints == 0 && loads == 1, "one chunk: %llu hints, %llu loads",
              (unsigned long long)hints, loads);
    }
    ncsi_cache_set_budget(budget);
}

/* ---- files other HDF5 writers make, as netCDF-C reads them ------------------------ */

/* The latest format (superblock version 3, newer chunk indexes): opened
 * read-only, through HDF5's own chunk calls; and in both files the scale
 * y, never written and without a fill value of its own, reads as HDF5's
 * default fill, zeros, as netCDF-C gives it. */
static void foreign(const char *early, const char *latest)
{
    const char *paths[2] = { early, latest };
    make_hdf5(latest, 1);
    for (int k = 0; k < 2; k++) {
        int id, vv, vy;
        static float v[100 * 90];
        int y[100];
        size_t st[2] = { 0, 0 }, cn[2] = { 100, 90 };
        int s = ncs_open(paths[k], NCS_NOWRITE, &id);
        CHECK(s == NCS_NOERR, "%s: open: %s", paths[k], ncs_strerror(s));
        if (s != NCS_NOERR)
            continue;
        OK(ncs_inq_varid(id, "v", &vv));
        OK(ncs_inq_varid(id, "y", &vy));
        OK(ncs_get(id, vv, st, cn, NULL, NULL, NCS_FLOAT, v));
        for (int i = 0; i < 100 * 90; i++)
            if (v[i] != (float)(i % 1000)) {
                CHECK(0, "%s: v[%d] = %g", paths[k], i, v[i]);
                break;
            }
        OK(ncs_get(id, vy, st, cn, NULL, NULL, NCS_INT, y));
        for (int i = 0; i < 100; i++)
            if (y[i] != 0) {
                CHECK(0, "%s: unwritten y[%d] = %d, not HDF5's fill 0", paths[k], i, y[i]);
                break;
            }
        OK(ncs_close(id));
    }
    unlink(latest);
}

int main(int argc, char **argv)
{
    char a[64], e[64], w[64];
    int id;
    unsigned long long seed =
        argc > 1 ? strtoull(argv[1], NULL, 10) : (unsigned long long)time(NULL);
    rng_state = seed;
    printf("check_chunkaddr: seed %llu\n", seed);
    /* the HDF5 store's own index: read-only opens must not go to the
     * store that reads netCDF-4 files without HDF5 */
    setenv("NCSLAB_NC4READ", "0", 1);
    if (mkdtemp(dir) == NULL) {
        perror("mkdtemp");
        return 1;
    }
    snprintf(a, sizeof a, "%s/a.nc", dir);
    snprintf(e, sizeof e, "%s/e.nc", dir);
    snprintf(w, sizeof w, "%s/w.nc", dir);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    make_ncslab(a);
    make_hdf5(e, 0);
    compare_file(a, w, 3, names);
    compare_file(e, w, 3, names + 3);

    /* a file open for writing has none */
    OK(ncs_open(a, NCS_WRITE, &id));
    {
        cvar *cv = cvar_of(id, 0);
        const ncsi_ctab *t = NULL;
        CHECK(cv != NULL && ncsi_h5_ctab(cv, &t) == NCS_NOERR && t == NULL,
              "a writable file has a table");
    }
    OK(ncs_close(id));

    parts(w);
    foreign(e, w);
    damaged(a, w, 150);
    damaged(e, w, 50);

    unlink(a);
    unlink(e);
    unlink(w);
    rmdir(dir);
    if (failures)
        fprintf(stderr, "check_chunkaddr: %d failures (seed %llu)\n", failures, seed);
    return failures ? 1 : 0;
}
