/*
 * check_h5read.c -- lib/store/h5read, the HDF5 file format read from a
 * file's own bytes, against what the HDF5 library says of the same file
 * (white-box: it links the convenience library).
 *
 *   - files HDF5 writes: new-style groups with creation order tracked and
 *     indexed (netCDF-4's libver bounds earliest..v18, and v18..v18), a
 *     root of 300 datasets and a group of 1,200 hard and 20 soft links
 *     (dense links, v2 B-trees deeper than one node, fractal heaps with
 *     indirect blocks); old-style groups (libver earliest: superblock 0,
 *     version-1 headers, symbol tables of many nodes, one file behind a
 *     512-byte user block); the latest format (superblock 3, layout 4 and
 *     each chunk index); every atomic netCDF type in both byte orders and
 *     fixed-length strings of each padding; scalar, null and simple spaces
 *     with unlimited maxdims; compact, contiguous (allocated or not) and
 *     chunked layouts with deflate, shuffle and fletcher32; fill values
 *     user-defined, default and undefined; attributes compact and dense,
 *     scalar, 1-D, strings, variable-length strings, a 4,000-double one,
 *     DIMENSION_LIST (vlen of object references) and REFERENCE_LIST;
 *   - files netCDF-C writes (when available) and files ncslab writes;
 *   - for each: the superblock, then every group from the root down: its
 *     links (names, order, kinds, addresses, creation orders) against
 *     H5Literate; every object header (kind, version, datatype,
 *     dataspace, layout and its data's address and bytes, filters, fill
 *     value) against H5O/H5D/H5P; every attribute (names, order, type,
 *     space, raw bytes in the file's own type, vlen elements and the
 *     objects their references name) against H5Aiterate2 and H5Aread;
 *   - robustness: a few thousand seeded corruptions of each kind of file
 *     (single bytes, bits, runs) and copies cut at many lengths, opened and
 *     walked in memory: every call returns a documented status, whatever
 *     it returns stays inside the file, and everything is freed (run it
 *     under valgrind to see the last); object headers read at every
 *     address of an intact file.
 * The seed is printed; NCSLAB_SEED=N replays one.  A known bug of
 * HDF5 1.10 is stepped around: H5Dget_offset adds the user block's size
 * even to HADDR_UNDEF, so allocation is asked of H5Dget_space_status.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <hdf5.h>
#include <hdf5_hl.h>

#include "h5read.h"
#include "ncslab.h"
#ifdef HAVE_NETCDF
#include <netcdf.h>
#endif

/* ---- reporting ------------------------------------------------------------------ */

/* A differential test reports every difference it finds, not the first:
 * EXPECT counts and prints (the first few hundred), and each test asserts
 * at its end that there were none. */
static int mismatches;
static const char *current_file = "";
#define EXPECT(cond, ...)                                                    \
    do {                                                                     \
        if (!(cond)) {                                                       \
            if (mismatches++ < 300) {                                        \
                fprintf(stderr, "check_h5read:%d: %s: ", __LINE__,           \
                        current_file);                                       \
                fprintf(stderr, __VA_ARGS__);                                \
                fputc('\n', stderr);                                         \
            }                                                                \
        }                                                                    \
    } while (0)
#define H5OK(call) EXPECT((call) >= 0, "%s failed", #call)

static unsigned long long seed;
static uint64_t rng_state;
static uint64_t rng(void)
{
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return rng_state >> 17;
}

/* ---- reading the bytes ---------------------------------------------------------- */

typedef struct memfile {
    const unsigned char *b;
    uint64_t n;
} memfile;

static int mem_read(void *ctx, uint64_t off, void *buf, size_t n)
{
    const memfile *m = ctx;
    if (off > m->n || n > m->n - off)
        return 1;
    memcpy(buf, m->b + off, n);
    return 0;
}

static int fd_read(void *ctx, uint64_t off, void *buf, size_t n)
{
    int fd = *(const int *)ctx;
    size_t got = 0;
    while (got < n) {
        ssize_t r = pread(fd, (char *)buf + got, n - got, (off_t)(off + got));
        if (r <= 0)
            return 1;
        got += (size_t)r;
    }
    return 0;
}

static unsigned char *slurp(const char *path, uint64_t *np)
{
    FILE *fp = fopen(path, "rb");
    unsigned char *b;
    long n;
    ck_assert_msg(fp != NULL, "cannot open %s", path);
    fseek(fp, 0, SEEK_END);
    n = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    b = malloc((size_t)n + 1);
    ck_assert(b != NULL);
    ck_assert(fread(b, 1, (size_t)n, fp) == (size_t)n);
    fclose(fp);
    *np = (uint64_t)n;
    return b;
}

/* ---- the files: HDF5 directly ------------------------------------------------------ */

#define NTYPES 24
static const char *const type_names[NTYPES] = {
    "i8le", "i8be", "u8le", "u8be", "i16le", "i16be", "u16le", "u16be",
    "i32le", "i32be", "u32le", "u32be", "i64le", "i64be", "u64le", "u64be",
    "f32le", "f32be", "f64le", "f64be", "s7term", "s7null", "s7space", "s5utf8"
};

/* A new copy of type i of the table (closed by the caller). */
static hid_t type_at(int i)
{
    hid_t t;
    switch (i) {
    case 0: return H5Tcopy(H5T_STD_I8LE);
    case 1: return H5Tcopy(H5T_STD_I8BE);
    case 2: return H5Tcopy(H5T_STD_U8LE);
    case 3: return H5Tcopy(H5T_STD_U8BE);
    case 4: return H5Tcopy(H5T_STD_I16LE);
    case 5: return H5Tcopy(H5T_STD_I16BE);
    case 6: return H5Tcopy(H5T_STD_U16LE);
    case 7: return H5Tcopy(H5T_STD_U16BE);
    case 8: return H5Tcopy(H5T_STD_I32LE);
    case 9: return H5Tcopy(H5T_STD_I32BE);
    case 10: return H5Tcopy(H5T_STD_U32LE);
    case 11: return H5Tcopy(H5T_STD_U32BE);
    case 12: return H5Tcopy(H5T_STD_I64LE);
    case 13: return H5Tcopy(H5T_STD_I64BE);
    case 14: return H5Tcopy(H5T_STD_U64LE);
    case 15: return H5Tcopy(H5T_STD_U64BE);
    case 16: return H5Tcopy(H5T_IEEE_F32LE);
    case 17: return H5Tcopy(H5T_IEEE_F32BE);
    case 18: return H5Tcopy(H5T_IEEE_F64LE);
    case 19: return H5Tcopy(H5T_IEEE_F64BE);
    default:
        t = H5Tcopy(H5T_C_S1);
        H5Tset_size(t, i == 23 ? 5 : 7);
        H5Tset_strpad(t, i == 21 ? H5T_STR_NULLPAD : i == 22 ? H5T_STR_SPACEPAD
                                                             : H5T_STR_NULLTERM);
        if (i == 23)
            H5Tset_cset(t, H5T_CSET_UTF8);
        return t;
    }
}

/* Bytes that encode where they come from: object k, byte j. */
static void pattern(unsigned char *b, size_t n, unsigned k, int text)
{
    size_t j;
    for (j = 0; j < n; j++)
        b[j] = text ? (unsigned char)('a' + (k + j) % 26) : (unsigned char)(k * 31u + j * 7u + 1u);
}

static void write_all(hid_t d, hid_t t, size_t nbytes, unsigned k, int text)
{
    unsigned char *b = malloc(nbytes ? nbytes : 1);
    ck_assert(b != NULL);
    pattern(b, nbytes, k, text);
    H5OK(H5Dwrite(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, b));
    free(b);
}

static void put_attr(hid_t obj, const char *name, hid_t t, int rank, hsize_t n, unsigned k)
{
    hid_t s = rank == 0 ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &n, NULL);
    hid_t a = H5Acreate2(obj, name, t, s, H5P_DEFAULT, H5P_DEFAULT);
    size_t bytes = H5Tget_size(t) * (rank == 0 ? 1 : (size_t)n);
    unsigned char *b = malloc(bytes);
    ck_assert(b != NULL && a >= 0);
    pattern(b, bytes, k, H5Tget_class(t) == H5T_STRING);
    H5OK(H5Awrite(a, t, b));
    free(b);
    H5Aclose(a);
    H5Sclose(s);
}

static void put_vlen_strings(hid_t obj, const char *name, int rank, hsize_t n)
{
    static const char *const v[3] = { "a variable-length string", "", "third" };
    hid_t t = H5Tcopy(H5T_C_S1);
    hid_t s = rank == 0 ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &n, NULL);
    hid_t a;
    H5Tset_size(t, H5T_VARIABLE);
    a = H5Acreate2(obj, name, t, s, H5P_DEFAULT, H5P_DEFAULT);
    H5OK(H5Awrite(a, t, v));
    H5Aclose(a);
    H5Sclose(s);
    H5Tclose(t);
}

/* A dataset creation list that tracks (and indexes) attribute creation
 * order when corder is set. */
static hid_t dcpl_new(int corder)
{
    hid_t p = H5Pcreate(H5P_DATASET_CREATE);
    if (corder)
        H5Pset_attr_creation_order(p, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED);
    return p;
}

static hid_t gcpl_new(int corder)
{
    hid_t p = H5Pcreate(H5P_GROUP_CREATE);
    if (corder) {
        H5Pset_link_creation_order(p, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED);
        H5Pset_attr_creation_order(p, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED);
    }
    return p;
}

static hid_t file_new(const char *path, H5F_libver_t lo, H5F_libver_t hi, int corder,
                      hsize_t userblock)
{
    hid_t fcpl = H5Pcreate(H5P_FILE_CREATE), fapl = H5Pcreate(H5P_FILE_ACCESS), f;
    if (corder) {
        H5Pset_link_creation_order(fcpl, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED);
        H5Pset_attr_creation_order(fcpl, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED);
    }
    if (userblock)
        H5Pset_userblock(fcpl, userblock);
    H5Pset_libver_bounds(fapl, lo, hi);
    f = H5Fcreate(path, H5F_ACC_TRUNC, fcpl, fapl);
    ck_assert_msg(f >= 0, "H5Fcreate %s", path);
    H5Pclose(fcpl);
    H5Pclose(fapl);
    return f;
}

/* One dataset of each type of the table in g: 1-D, 5 elements, unlimited,
 * chunks of 2; fill values user-defined, default or undefined in turn. */
static void make_types(hid_t g, int corder)
{
    int i;
    hsize_t d = 5, mx = H5S_UNLIMITED, c = 2;
    for (i = 0; i < NTYPES; i++) {
        hid_t t = type_at(i), p = dcpl_new(corder), s = H5Screate_simple(1, &d, &mx), ds;
        unsigned char fill[16];
        H5Pset_chunk(p, 1, &c);
        pattern(fill, sizeof fill, 200u + (unsigned)i, i >= 20);
        if (i % 3 == 0)
            H5Pset_fill_value(p, t, fill);
        else if (i % 3 == 2)
            H5Pset_fill_value(p, t, NULL);
        ds = H5Dcreate2(g, type_names[i], t, s, H5P_DEFAULT, p, H5P_DEFAULT);
        ck_assert(ds >= 0);
        if (i % 4 != 3)
            write_all(ds, t, 5 * H5Tget_size(t), (unsigned)i, i >= 20);
        put_attr(ds, "same_type", t, 1, 3, (unsigned)i + 50u);
        H5Dclose(ds);
        H5Sclose(s);
        H5Pclose(p);
        H5Tclose(t);
    }
}

static void make_layouts(hid_t g, int corder)
{
    hid_t s, p, d, t;
    hsize_t d2[2] = { 3, 5 }, d1 = 10, d6 = 6, f2[2] = { 6, 8 }, fm[2] = { H5S_UNLIMITED, 8 };
    hsize_t fc[2] = { 2, 4 };
    double dfill = -99.5;

    s = H5Screate_simple(2, d2, NULL);
    p = dcpl_new(corder);
    d = H5Dcreate2(g, "contig", H5T_STD_I32LE, s, H5P_DEFAULT, p, H5P_DEFAULT);
    write_all(d, H5T_STD_I32LE, 15 * 4, 1, 0);
    H5Dclose(d);
    H5Pclose(p);
    H5Sclose(s);

    s = H5Screate_simple(1, &d1, NULL);
    p = dcpl_new(corder);
    H5Pset_fill_value(p, H5T_NATIVE_DOUBLE, &dfill);
    d = H5Dcreate2(g, "contig_unalloc", H5T_IEEE_F64LE, s, H5P_DEFAULT, p, H5P_DEFAULT);
    H5Dclose(d);
    H5Pclose(p);
    p = dcpl_new(corder);
    H5Pset_alloc_time(p, H5D_ALLOC_TIME_EARLY);
    H5Pset_fill_time(p, H5D_FILL_TIME_NEVER);
    d = H5Dcreate2(g, "contig_early", H5T_STD_U16BE, s, H5P_DEFAULT, p, H5P_DEFAULT);
    H5Dclose(d);
    H5Pclose(p);
    H5Sclose(s);

    s = H5Screate_simple(1, &d6, NULL);
    p = dcpl_new(corder);
    H5Pset_layout(p, H5D_COMPACT);
    d = H5Dcreate2(g, "compact", H5T_IEEE_F32BE, s, H5P_DEFAULT, p, H5P_DEFAULT);
    write_all(d, H5T_IEEE_F32BE, 6 * 4, 2, 0);
    H5Dclose(d);
    H5Pclose(p);
    H5Sclose(s);

    s = H5Screate(H5S_SCALAR);
    p = dcpl_new(corder);
    d = H5Dcreate2(g, "scalar", H5T_IEEE_F64LE, s, H5P_DEFAULT, p, H5P_DEFAULT);
    write_all(d, H5T_IEEE_F64LE, 8, 3, 0);
    H5Dclose(d);
    H5Pclose(p);
    H5Sclose(s);

    s = H5Screate(H5S_NULL);
    d = H5Dcreate2(g, "null", H5T_STD_I32LE, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dclose(d);
    H5Sclose(s);

    s = H5Screate_simple(2, f2, fm);
    p = dcpl_new(corder);
    H5Pset_chunk(p, 2, fc);
    H5Pset_shuffle(p);
    H5Pset_deflate(p, 6);
    H5Pset_fletcher32(p);
    t = H5Tcopy(H5T_IEEE_F32LE);
    d = H5Dcreate2(g, "filtered", t, s, H5P_DEFAULT, p, H5P_DEFAULT);
    write_all(d, t, 48 * 4, 4, 0);
    H5Dclose(d);
    H5Tclose(t);
    H5Pclose(p);
    H5Sclose(s);
}

/* x and y dimension scales and v(y, x) with DIMENSION_LIST. */
static void make_dims(hid_t g, int corder)
{
    hsize_t dx = 4, dy = 3, dv[2] = { 3, 4 };
    hid_t sx = H5Screate_simple(1, &dx, NULL), sy = H5Screate_simple(1, &dy, NULL);
    hid_t sv = H5Screate_simple(2, dv, NULL), p = dcpl_new(corder);
    hid_t x = H5Dcreate2(g, "x", H5T_IEEE_F32LE, sx, H5P_DEFAULT, p, H5P_DEFAULT);
    hid_t y = H5Dcreate2(g, "y", H5T_IEEE_F32LE, sy, H5P_DEFAULT, p, H5P_DEFAULT);
    hid_t v = H5Dcreate2(g, "v", H5T_STD_I16LE, sv, H5P_DEFAULT, p, H5P_DEFAULT);
    H5OK(H5DSset_scale(x, "x"));
    H5OK(H5DSset_scale(y, "y"));
    H5OK(H5DSattach_scale(v, y, 0));
    H5OK(H5DSattach_scale(v, x, 1));
    H5OK(H5DSattach_scale(v, x, 0));
    write_all(v, H5T_STD_I16LE, 24, 5, 0);
    H5Dclose(v);
    H5Dclose(y);
    H5Dclose(x);
    H5Pclose(p);
    H5Sclose(sv);
    H5Sclose(sy);
    H5Sclose(sx);
}

/* attrs_many: 50 attributes (dense) whose names do not follow their
 * creation order, one of 500 doubles (a managed object of the heap, which
 * holds objects up to 4 KiB) and two variable-length strings; attrs_huge:
 * dense, with one of 3,000 doubles (a huge object of the heap, which the
 * reader need not read); attrs_big: a 4,000-double attribute among two
 * small ones (compact: messages hold up to 64 KiB). */
static void make_attrs(hid_t g, int corder)
{
    hsize_t one = 1;
    hid_t s = H5Screate_simple(1, &one, NULL), p = dcpl_new(corder), d, str;
    int a;
    char name[32];
    str = H5Tcopy(H5T_C_S1);
    H5Tset_size(str, 8);
    d = H5Dcreate2(g, "attrs_many", H5T_STD_I32LE, s, H5P_DEFAULT, p, H5P_DEFAULT);
    for (a = 0; a < 50; a++) {
        snprintf(name, sizeof name, "a%02d_%d", (a * 7) % 50, a);
        if (a == 17)
            put_attr(d, name, H5T_IEEE_F64LE, 1, 500, (unsigned)a);
        else if (a == 23)
            put_vlen_strings(d, name, 0, 1);
        else if (a == 31)
            put_vlen_strings(d, name, 1, 3);
        else if (a % 5 == 0)
            put_attr(d, name, H5T_STD_I32LE, 0, 1, (unsigned)a);
        else if (a % 5 == 1)
            put_attr(d, name, H5T_STD_I16BE, 1, 3, (unsigned)a);
        else if (a % 5 == 2)
            put_attr(d, name, H5T_IEEE_F64LE, 1, 4, (unsigned)a);
        else if (a % 5 == 3)
            put_attr(d, name, str, 0, 1, (unsigned)a);
        else
            put_attr(d, name, H5T_STD_U64BE, 1, 2, (unsigned)a);
    }
    H5Dclose(d);
    d = H5Dcreate2(g, "attrs_huge", H5T_STD_I32LE, s, H5P_DEFAULT, p, H5P_DEFAULT);
    for (a = 0; a < 10; a++) {
        snprintf(name, sizeof name, "h%d", a);
        put_attr(d, name, H5T_STD_I32BE, 0, 1, (unsigned)a);
    }
    put_attr(d, "h_huge", H5T_IEEE_F64LE, 1, 3000, 11);
    H5Dclose(d);
    d = H5Dcreate2(g, "attrs_big", H5T_STD_I32LE, s, H5P_DEFAULT, p, H5P_DEFAULT);
    put_attr(d, "small", H5T_STD_I8LE, 0, 1, 1);
    put_attr(d, "big", H5T_IEEE_F64LE, 1, 4000, 2);
    put_attr(d, "after", str, 1, 2, 3);
    H5Dclose(d);
    H5Tclose(str);
    H5Pclose(p);
    H5Sclose(s);
}

/* The main HDF5 file: a compact root of groups and datasets. */
static void gen_h5(const char *path, H5F_libver_t lo, H5F_libver_t hi)
{
    hid_t f = file_new(path, lo, hi, 1, 0), gp = gcpl_new(1), g, str;
    double range[2] = { -1.5, 2.5 };
    hsize_t two = 2;
    str = H5Tcopy(H5T_C_S1);
    H5Tset_size(str, 12);
    put_attr(f, "title", str, 0, 1, 1);
    put_attr(f, "version", H5T_STD_I32LE, 0, 1, 2);
    {
        hid_t s = H5Screate_simple(1, &two, NULL);
        hid_t a = H5Acreate2(f, "range", H5T_IEEE_F64LE, s, H5P_DEFAULT, H5P_DEFAULT);
        H5OK(H5Awrite(a, H5T_NATIVE_DOUBLE, range));
        H5Aclose(a);
        H5Sclose(s);
    }
    g = H5Gcreate2(f, "types", H5P_DEFAULT, gp, H5P_DEFAULT);
    make_types(g, 1);
    put_attr(g, "group_attr", str, 0, 1, 3);
    H5Gclose(g);
    g = H5Gcreate2(f, "layouts", H5P_DEFAULT, gp, H5P_DEFAULT);
    make_layouts(g, 1);
    H5Gclose(g);
    g = H5Gcreate2(f, "empty", H5P_DEFAULT, gp, H5P_DEFAULT);
    H5Gclose(g);
    make_dims(f, 1);
    make_attrs(f, 1);
    H5Tclose(str);
    H5Pclose(gp);
    H5Fclose(f);
}

/* The latest format: gen_h5's content and a dataset of each chunk index,
 * named ixN_ after the index type HDF5 chooses for it. */
static void gen_latest(const char *path)
{
    hid_t f, g, s, p, d;
    hsize_t d44[2] = { 4, 4 }, d88[2] = { 8, 8 }, c22[2] = { 2, 2 }, c44[2] = { 4, 4 };
    hsize_t m1[2] = { H5S_UNLIMITED, 8 }, m2[2] = { H5S_UNLIMITED, H5S_UNLIMITED };
    gen_h5(path, H5F_LIBVER_LATEST, H5F_LIBVER_LATEST);
    {
        hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
        H5Pset_libver_bounds(fapl, H5F_LIBVER_LATEST, H5F_LIBVER_LATEST);
        f = H5Fopen(path, H5F_ACC_RDWR, fapl);
        H5Pclose(fapl);
    }
    ck_assert(f >= 0);
    g = H5Gopen2(f, "layouts", H5P_DEFAULT);

    s = H5Screate_simple(2, d44, NULL);
    p = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(p, 2, c44);
    d = H5Dcreate2(g, "ix1_single", H5T_STD_I32LE, s, H5P_DEFAULT, p, H5P_DEFAULT);
    write_all(d, H5T_STD_I32LE, 64, 10, 0);
    H5Dclose(d);
    H5Pclose(p);
    H5Sclose(s);

    s = H5Screate_simple(2, d88, NULL);
    p = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(p, 2, c44);
    H5Pset_alloc_time(p, H5D_ALLOC_TIME_EARLY);
    d = H5Dcreate2(g, "ix2_implicit", H5T_STD_I32LE, s, H5P_DEFAULT, p, H5P_DEFAULT);
    H5Dclose(d);
    H5Pclose(p);
    p = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(p, 2, c22);
    H5Pset_deflate(p, 1);
    d = H5Dcreate2(g, "ix3_farray", H5T_STD_I32LE, s, H5P_DEFAULT, p, H5P_DEFAULT);
    write_all(d, H5T_STD_I32LE, 256, 11, 0);
    H5Dclose(d);
    H5Pclose(p);
    H5Sclose(s);

    s = H5Screate_simple(2, d88, m1);
    p = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(p, 2, c22);
    d = H5Dcreate2(g, "ix4_earray", H5T_IEEE_F64BE, s, H5P_DEFAULT, p, H5P_DEFAULT);
    write_all(d, H5T_IEEE_F64BE, 512, 12, 0);
    H5Dclose(d);
    H5Sclose(s);
    s = H5Screate_simple(2, d88, m2);
    d = H5Dcreate2(g, "ix5_bt2", H5T_IEEE_F64BE, s, H5P_DEFAULT, p, H5P_DEFAULT);
    write_all(d, H5T_IEEE_F64BE, 512, 13, 0);
    H5Dclose(d);
    H5Pclose(p);
    H5Sclose(s);
    H5Gclose(g);
    H5Fclose(f);
}

/* Many links: a root of 300 datasets (each with an attribute) and a group
 * of 1,200 long-named hard links to one of them and 20 soft links. */
static void gen_many(const char *path, int nvars, int nlinks)
{
    hid_t f = file_new(path, H5F_LIBVER_EARLIEST, H5F_LIBVER_V18, 1, 0);
    hid_t s = H5Screate(H5S_SCALAR), p = dcpl_new(1), gp = gcpl_new(1), g, d;
    char name[96];
    int i;
    for (i = 0; i < nvars; i++) {
        snprintf(name, sizeof name, "var_%03d", (i * 37) % nvars);
        d = H5Dcreate2(f, name, H5T_STD_I32LE, s, H5P_DEFAULT, p, H5P_DEFAULT);
        ck_assert(d >= 0);
        put_attr(d, "units", H5T_STD_I16LE, 0, 1, (unsigned)i);
        H5Dclose(d);
    }
    g = H5Gcreate2(f, "links", H5P_DEFAULT, gp, H5P_DEFAULT);
    for (i = 0; i < nlinks; i++) {
        snprintf(name, sizeof name, "a_rather_long_link_name_to_fill_heap_blocks_%05d",
                 (i * 7919) % nlinks);
        H5OK(H5Lcreate_hard(f, "var_000", g, name, H5P_DEFAULT, H5P_DEFAULT));
    }
    for (i = 0; i < 20; i++) {
        snprintf(name, sizeof name, "soft_%02d", i);
        H5OK(H5Lcreate_soft(i % 2 ? "/var_001" : "/nowhere", g, name, H5P_DEFAULT,
                            H5P_DEFAULT));
    }
    H5Gclose(g);
    H5Pclose(gp);
    H5Pclose(p);
    H5Sclose(s);
    H5Fclose(f);
}

/* Old-style groups (symbol tables), version-1 headers, no creation order;
 * with a user block when userblock is set. */
static void gen_old(const char *path, int nvars, int nlinks, hsize_t userblock)
{
    hid_t f = file_new(path, H5F_LIBVER_EARLIEST, H5F_LIBVER_EARLIEST, 0, userblock);
    hid_t s, g, d, t;
    hsize_t n = 3;
    char name[64];
    int i;
    s = H5Screate_simple(1, &n, NULL);
    for (i = 0; i < nvars; i++) {
        t = type_at(i % NTYPES);
        snprintf(name, sizeof name, "d%03d_%s", (i * 13) % nvars, type_names[i % NTYPES]);
        d = H5Dcreate2(f, name, t, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        ck_assert(d >= 0);
        write_all(d, t, 3 * H5Tget_size(t), (unsigned)i, i % NTYPES >= 20);
        if (i % 4 == 0)
            put_attr(d, "att", t, 1, 2, (unsigned)i);
        H5Dclose(d);
        H5Tclose(t);
    }
    H5Sclose(s);
    g = H5Gcreate2(f, "layouts", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    make_layouts(g, 0);
    H5Gclose(g);
    g = H5Gcreate2(f, "types", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    make_types(g, 0);
    H5Gclose(g);
    g = H5Gcreate2(f, "empty", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Gclose(g);
    make_dims(f, 0);
    if (nlinks > 0) {
        make_attrs(f, 0);
        g = H5Gcreate2(f, "deep", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        for (i = 0; i < nlinks; i++) {
            snprintf(name, sizeof name, "hard_%04d", (i * 7919) % nlinks);
            H5OK(H5Lcreate_hard(f, "x", g, name, H5P_DEFAULT, H5P_DEFAULT));
        }
        H5Gclose(g);
        g = H5Gcreate2(f, "soft", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        H5OK(H5Lcreate_hard(f, "y", g, "hard_y", H5P_DEFAULT, H5P_DEFAULT));
        H5OK(H5Lcreate_soft("/y", g, "soft_y", H5P_DEFAULT, H5P_DEFAULT));
        H5OK(H5Lcreate_soft("/nowhere", g, "soft_dangling", H5P_DEFAULT, H5P_DEFAULT));
        H5Gclose(g);
    }
    put_attr(f, "root_att", H5T_STD_I64BE, 1, 5, 9);
    H5Fclose(f);
}

/* ---- the files: netCDF-C and ncslab ---------------------------------------------- */

/* The writers' calls behind one table, so that both write the same file.
 * netCDF-C's and ncslab's type codes are equal. */
typedef struct writer {
    int (*create)(const char *, int, int *);
    int (*def_dim)(int, const char *, size_t, int *);
    int (*def_var)(int, const char *, int, int, const int *, int *);
    int (*put_att)(int, int, const char *, int, size_t, const void *);
    int (*deflate)(int, int, int, int, int);
    int (*fill)(int, int, int, const void *);
    int (*enddef)(int);
    int (*put)(int, int, const size_t *, const size_t *, const void *);
    int (*close)(int);
    int cmode;
} writer;

static int ncs_put_att_w(int id, int v, const char *name, int xt, size_t n, const void *op)
{
    return ncs_put_att(id, v, name, xt, n, NCS_NAT, op);
}
static int ncs_put_w(int id, int v, const size_t *st, const size_t *ct, const void *op)
{
    return ncs_put(id, v, st, ct, NULL, NULL, NCS_NAT, op);
}
static const writer ncs_writer = {
    ncs_create, ncs_def_dim, ncs_def_var, ncs_put_att_w, ncs_def_var_deflate,
    ncs_def_var_fill, ncs_enddef, ncs_put_w, ncs_close,
    NCS_NETCDF4 | NCS_CLASSIC_MODEL | NCS_CLOBBER
};
#ifdef HAVE_NETCDF
static int nc_def_var_w(int id, const char *name, int xt, int nd, const int *dims, int *vp)
{
    return nc_def_var(id, name, (nc_type)xt, nd, dims, vp);
}
static int nc_put_att_w(int id, int v, const char *name, int xt, size_t n, const void *op)
{
    return nc_put_att(id, v, name, (nc_type)xt, n, op);
}
static const writer nc_writer = {
    nc_create, nc_def_dim, nc_def_var_w, nc_put_att_w, nc_def_var_deflate,
    nc_def_var_fill, nc_enddef, nc_put_vara, nc_close,
    NC_NETCDF4 | NC_CLASSIC_MODEL | NC_CLOBBER
};
#endif

#define W(call) ck_assert_msg((call) == 0, "%s failed", #call)

/* time(unlimited), lat, lon, strlen; coordinates, a deflated record
 * variable, one with a fill value, a char one; with dense set, 12 more
 * variables, 12 global attributes and 10 on one variable. */
static void gen_nc(const writer *w, const char *path, int dense)
{
    int id, dt, dla, dlo, ds, vt, vla, vlo, vtemp, vrh, vname, dims[3], i;
    size_t st[3] = { 0, 0, 0 }, ct[3] = { 2, 3, 4 };
    double times[2] = { 0.5, 1.5 }, scale[3] = { 1, 2, 3 };
    float lats[3] = { -10, 0, 10 }, lons[4] = { 0, 90, 180, 270 }, temp[24];
    int rh[12], rhfill = -1;
    char names[15] = "abcdefghijklmno", att[32];
    short sv[3] = { 1, 2, 3 };
    W(w->create(path, w->cmode, &id));
    W(w->def_dim(id, "time", 0, &dt));
    W(w->def_dim(id, "lat", 3, &dla));
    W(w->def_dim(id, "lon", 4, &dlo));
    W(w->def_dim(id, "strlen", 5, &ds));
    W(w->def_var(id, "time", NCS_DOUBLE, 1, &dt, &vt));
    W(w->def_var(id, "lat", NCS_FLOAT, 1, &dla, &vla));
    W(w->def_var(id, "lon", NCS_FLOAT, 1, &dlo, &vlo));
    dims[0] = dt, dims[1] = dla, dims[2] = dlo;
    W(w->def_var(id, "temp", NCS_FLOAT, 3, dims, &vtemp));
    W(w->deflate(id, vtemp, 1, 1, 2));
    W(w->put_att(id, vtemp, "units", NCS_CHAR, 6, "kelvin"));
    W(w->def_var(id, "rh", NCS_INT, 2, dims + 1, &vrh));
    W(w->fill(id, vrh, 0, &rhfill));
    dims[0] = dla, dims[1] = ds;
    W(w->def_var(id, "name", NCS_CHAR, 2, dims, &vname));
    W(w->put_att(id, -1, "title", NCS_CHAR, 10, "h5read it"));
    W(w->put_att(id, -1, "scale", NCS_DOUBLE, 3, scale));
    if (dense) {
        for (i = 0; i < 12; i++) {
            int v;
            snprintf(att, sizeof att, "extra_%02d", 11 - i);
            W(w->def_var(id, att, NCS_SHORT, 1, &dla, &v));
            W(w->put_att(id, -1, att, NCS_SHORT, (size_t)(i % 3 + 1), sv));
        }
        for (i = 0; i < 10; i++) {
            snprintf(att, sizeof att, "att_%d", 9 - i);
            W(w->put_att(id, vrh, att, NCS_CHAR, (size_t)i + 1, "0123456789"));
        }
    }
    W(w->enddef(id));
    for (i = 0; i < 24; i++)
        temp[i] = (float)(i * 10);
    for (i = 0; i < 12; i++)
        rh[i] = i;
    W(w->put(id, vt, st, ct, times));
    W(w->put(id, vla, st, ct + 1, lats));
    W(w->put(id, vlo, st, ct + 2, lons));
    W(w->put(id, vtemp, st, ct, temp));
    W(w->put(id, vrh, st, ct + 1, rh));
    ct[1] = 5;
    W(w->put(id, vname, st, ct, names));
    W(w->close(id));
}

/* ---- comparing with HDF5 -------------------------------------------------------- */

typedef struct cmp {
    ncsi_h5r *f;
    ncsi_h5r_info info;
    int fd;
    hid_t fid;
    uint64_t *seen;          /* object headers compared */
    size_t nseen, capseen;
    int old_layout;          /* libver below v110: layout version 3 */
} cmp;

/* Adds a to the set (*v, *n of *cap): 1 when it was not in it. */
static int addr_add(uint64_t **v, size_t *n, size_t *cap, uint64_t a)
{
    size_t i;
    for (i = 0; i < *n; i++)
        if ((*v)[i] == a)
            return 0;
    if (*n == *cap) {
        *cap = *cap ? 2 * *cap : 64;
        *v = realloc(*v, *cap * sizeof **v);
        ck_assert(*v != NULL);
    }
    (*v)[(*n)++] = a;
    return 1;
}

static int seen_add(cmp *c, uint64_t a)
{
    return addr_add(&c->seen, &c->nseen, &c->capseen, a);
}

static void cmp_type(const cmp *c, hid_t t, const ncsi_h5r_type *r, const char *what)
{
    H5T_class_t cls = H5Tget_class(t);
    size_t size = H5Tget_size(t);
    unsigned vsize = 4 + c->info.sizeof_addr + 4;
    if (cls == H5T_STRING && H5Tis_variable_str(t) > 0) {
        EXPECT(r->cls == NCSI_H5R_VLEN && r->vlen_string == 1,
               "%s: vlen string: class %d vlen_string %d", what, r->cls, r->vlen_string);
        EXPECT(r->size == vsize, "%s: vlen string size %u, expected %u", what, r->size, vsize);
        EXPECT(r->cset == (int)H5Tget_cset(t), "%s: cset %d vs %d", what, r->cset,
               (int)H5Tget_cset(t));
        return;
    }
    EXPECT(r->cls == (int)cls, "%s: class %d, HDF5 %d", what, r->cls, (int)cls);
    if (cls != H5T_VLEN)
        EXPECT(r->size == size, "%s: size %u, HDF5 %zu", what, r->size, size);
    switch (cls) {
    case H5T_INTEGER:
    case H5T_FLOAT:
        EXPECT(r->big_endian == (H5Tget_order(t) == H5T_ORDER_BE), "%s: big_endian %d",
               what, r->big_endian);
        EXPECT(r->precision == H5Tget_precision(t), "%s: precision %u vs %zu", what,
               r->precision, H5Tget_precision(t));
        EXPECT(r->offset == (unsigned)H5Tget_offset(t), "%s: offset %u vs %d", what,
               r->offset, H5Tget_offset(t));
        if (cls == H5T_INTEGER)
            EXPECT(r->is_signed == (H5Tget_sign(t) == H5T_SGN_2), "%s: is_signed %d", what,
                   r->is_signed);
        break;
    case H5T_STRING:
        EXPECT(r->pad == (int)H5Tget_strpad(t), "%s: pad %d vs %d", what, r->pad,
               (int)H5Tget_strpad(t));
        EXPECT(r->cset == (int)H5Tget_cset(t), "%s: cset %d vs %d", what, r->cset,
               (int)H5Tget_cset(t));
        break;
    case H5T_REFERENCE:
        EXPECT(r->ref_type == (H5Tequal(t, H5T_STD_REF_OBJ) > 0 ? 0 : 1), "%s: ref_type %d",
               what, r->ref_type);
        break;
    case H5T_VLEN: {
        hid_t b = H5Tget_super(t);
        EXPECT(r->vlen_string == 0, "%s: vlen sequence read as a string", what);
        EXPECT(r->size == vsize, "%s: vlen size %u, expected %u", what, r->size, vsize);
        EXPECT(r->base_cls == (int)H5Tget_class(b), "%s: vlen base class %d vs %d", what,
               r->base_cls, (int)H5Tget_class(b));
        EXPECT(r->base_size == H5Tget_size(b), "%s: vlen base size %u vs %zu", what,
               r->base_size, H5Tget_size(b));
        H5Tclose(b);
        break;
    }
    default:
        break;
    }
}

static void cmp_space(hid_t s, const ncsi_h5r_space *r, const char *what)
{
    H5S_class_t k = H5Sget_simple_extent_type(s);
    hsize_t d[H5S_MAX_RANK], m[H5S_MAX_RANK];
    int rank = H5Sget_simple_extent_dims(s, d, m), i;
    EXPECT(r->kind == (int)k, "%s: space kind %d, HDF5 %d", what, r->kind, (int)k);
    if (k != H5S_SIMPLE)
        return;
    EXPECT(r->rank == rank, "%s: rank %d, HDF5 %d", what, r->rank, rank);
    for (i = 0; i < rank && i < r->rank; i++) {
        EXPECT(r->dims[i] == d[i], "%s: dims[%d] %" PRIu64 ", HDF5 %llu", what, i, r->dims[i],
               (unsigned long long)d[i]);
        EXPECT((r->has_max ? r->maxdims[i] : r->dims[i]) == m[i],
               "%s: maxdims[%d] %" PRIu64 " (has_max %d), HDF5 %llu", what, i, r->maxdims[i],
               r->has_max, (unsigned long long)m[i]);
    }
}

static void read_at(const cmp *c, uint64_t off, unsigned char *b, size_t n, const char *what)
{
    int fd = c->fd;
    EXPECT(fd_read(&fd, off, b, n) == 0, "%s: cannot read %zu bytes at %" PRIu64, what, n, off);
}

static void cmp_dataset(cmp *c, hid_t d, const ncsi_h5r_obj *o, const char *name)
{
    hid_t t = H5Dget_type(d), s = H5Dget_space(d), p = H5Dget_create_plist(d);
    H5D_layout_t lay = H5Pget_layout(p);
    hssize_t npts = H5Sget_simple_extent_npoints(s);
    size_t tsize = H5Tget_size(t), nbytes = (size_t)npts * tsize;
    int nf = H5Pget_nfilters(p), i;
    H5D_fill_value_t fst;
    H5D_alloc_time_t at;
    H5D_fill_time_t ft;
    unsigned char *h = NULL, *r = NULL;

    EXPECT(o->has_type && o->has_space && o->has_layout, "%s: type %d space %d layout %d",
           name, o->has_type, o->has_space, o->has_layout);
    cmp_type(c, t, &o->type, name);
    cmp_space(s, &o->space, name);

    EXPECT(o->layout.cls == (int)lay, "%s: layout class %d, HDF5 %d", name, o->layout.cls,
           (int)lay);
    EXPECT(o->layout.version == 3 || o->layout.version == 4, "%s: layout version %d", name,
           o->layout.version);
    if (c->old_layout)
        EXPECT(o->layout.version == 3, "%s: layout version %d in a pre-1.10 file", name,
               o->layout.version);
    if (lay == H5D_CHUNKED) {
        hsize_t ck[H5S_MAX_RANK];
        int rank = H5Pget_chunk(p, H5S_MAX_RANK, ck);
        EXPECT(o->layout.ndims == rank, "%s: chunk rank %d, HDF5 %d", name, o->layout.ndims,
               rank);
        for (i = 0; i < rank && i < o->layout.ndims; i++)
            EXPECT(o->layout.chunk[i] == ck[i], "%s: chunk[%d] %" PRIu64 ", HDF5 %llu", name, i,
                   o->layout.chunk[i], (unsigned long long)ck[i]);
        EXPECT(o->layout.elem_size == tsize, "%s: chunk element size %u, HDF5 %zu", name,
               o->layout.elem_size, tsize);
        if (o->layout.version == 3)
            EXPECT(o->layout.index == 0, "%s: layout 3 index %d", name, o->layout.index);
        if (name[0] == 'i' && name[1] == 'x')
            EXPECT(o->layout.index == name[2] - '0', "%s: chunk index %d", name,
                   o->layout.index);
    } else if (lay == H5D_CONTIGUOUS) {
        /* H5Dget_offset adds the base address even to HADDR_UNDEF */
        H5D_space_status_t alloc = H5D_SPACE_STATUS_ERROR;
        haddr_t off;
        H5OK(H5Dget_space_status(d, &alloc));
        off = alloc == H5D_SPACE_STATUS_NOT_ALLOCATED ? HADDR_UNDEF : H5Dget_offset(d);
        EXPECT(o->layout.size == nbytes, "%s: contiguous size %" PRIu64 ", expected %zu", name,
               o->layout.size, nbytes);
        if (off == HADDR_UNDEF)
            EXPECT(o->layout.addr == NCSI_H5R_UNDEF, "%s: unallocated data at %" PRIu64, name,
                   o->layout.addr);
        else
            EXPECT(o->layout.addr != NCSI_H5R_UNDEF && o->layout.addr + c->info.base == off,
                   "%s: data at %" PRIu64 " + base %" PRIu64 ", HDF5 %llu", name,
                   o->layout.addr, c->info.base, (unsigned long long)off);
        if (off != HADDR_UNDEF && nbytes > 0 && o->layout.addr == off - c->info.base) {
            h = malloc(nbytes);
            r = malloc(nbytes);
            H5OK(H5Dread(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, h));
            read_at(c, off, r, nbytes, name);
            EXPECT(memcmp(h, r, nbytes) == 0, "%s: contiguous bytes differ", name);
        }
    } else if (lay == H5D_COMPACT) {
        EXPECT(o->layout.size == nbytes, "%s: compact size %" PRIu64 ", expected %zu", name,
               o->layout.size, nbytes);
        if (o->layout.size == nbytes && nbytes > 0) {
            h = malloc(nbytes);
            r = malloc(nbytes);
            H5OK(H5Dread(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, h));
            read_at(c, o->layout.compact_at, r, nbytes, name);
            EXPECT(memcmp(h, r, nbytes) == 0, "%s: compact bytes at %" PRIu64 " differ", name,
                   o->layout.compact_at);
        }
    }
    free(h);
    free(r);

    EXPECT(o->nfilters == nf, "%s: %d filters, HDF5 %d", name, o->nfilters, nf);
    EXPECT(o->has_filters == (nf > 0), "%s: has_filters %d with %d filters", name,
           o->has_filters, nf);
    for (i = 0; i < nf && i < o->nfilters; i++) {
        unsigned flags = 0, cd[32], conf = 0, k;
        size_t ncd = 32;
        H5Z_filter_t id = H5Pget_filter2(p, (unsigned)i, &flags, &ncd, cd, 0, NULL, &conf);
        const ncsi_h5r_filter *rf = &o->filters[i];
        EXPECT(rf->id == (unsigned)id, "%s: filter %d id %u, HDF5 %d", name, i, rf->id, id);
        EXPECT(rf->flags == flags, "%s: filter %d flags %u, HDF5 %u", name, i, rf->flags, flags);
        EXPECT(rf->nvalues == ncd, "%s: filter %d has %u values, HDF5 %zu", name, i,
               rf->nvalues, ncd);
        for (k = 0; k < ncd && k < rf->nvalues && k < 16; k++)
            EXPECT(rf->values[k] == cd[k], "%s: filter %d value %u: %u, HDF5 %u", name, i, k,
                   rf->values[k], cd[k]);
    }

    H5OK(H5Pfill_value_defined(p, &fst));
    H5OK(H5Pget_alloc_time(p, &at));
    H5OK(H5Pget_fill_time(p, &ft));
    EXPECT(o->has_fill, "%s: no fill value message", name);
    EXPECT(o->fill.state == (int)fst, "%s: fill state %d, HDF5 %d", name, o->fill.state,
           (int)fst);
    EXPECT(o->fill.alloc_time == (int)at, "%s: alloc time %d, HDF5 %d", name,
           o->fill.alloc_time, (int)at);
    EXPECT(o->fill.fill_time == (int)ft, "%s: fill time %d, HDF5 %d", name, o->fill.fill_time,
           (int)ft);
    if (fst == H5D_FILL_VALUE_USER_DEFINED && H5Tget_class(t) != H5T_VLEN) {
        unsigned char *fv = calloc(1, tsize);
        H5OK(H5Pget_fill_value(p, t, fv));
        EXPECT(o->fill.size == tsize && o->fill.value != NULL, "%s: fill size %u, HDF5 %zu",
               name, o->fill.size, tsize);
        if (o->fill.size == tsize && o->fill.value)
            EXPECT(memcmp(o->fill.value, fv, tsize) == 0, "%s: fill bytes differ", name);
        free(fv);
    }
    H5Pclose(p);
    H5Sclose(s);
    H5Tclose(t);
}

typedef struct namelist {
    char **name;
    int64_t *corder;
    int *type;
    haddr_t *addr;
    size_t n, cap;
} namelist;

static void names_add(namelist *l, const char *name, int64_t corder, int type, haddr_t addr)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 16;
        l->name = realloc(l->name, l->cap * sizeof *l->name);
        l->corder = realloc(l->corder, l->cap * sizeof *l->corder);
        l->type = realloc(l->type, l->cap * sizeof *l->type);
        l->addr = realloc(l->addr, l->cap * sizeof *l->addr);
        ck_assert(l->name && l->corder && l->type && l->addr);
    }
    l->name[l->n] = strdup(name);
    l->corder[l->n] = corder;
    l->type[l->n] = type;
    l->addr[l->n] = addr;
    l->n++;
}

static void names_free(namelist *l)
{
    size_t i;
    for (i = 0; i < l->n; i++)
        free(l->name[i]);
    free(l->name);
    free(l->corder);
    free(l->type);
    free(l->addr);
}

static herr_t attr_cb(hid_t loc, const char *name, const H5A_info_t *ai, void *data)
{
    names_add(data, name, ai->corder_valid ? (int64_t)ai->corder : -1, 0, 0);
    return 0;
}

static herr_t link_cb(hid_t g, const char *name, const H5L_info_t *li, void *data)
{
    names_add(data, name, li->corder_valid ? (int64_t)li->corder : -1, (int)li->type,
              li->type == H5L_TYPE_HARD ? li->u.address : HADDR_UNDEF);
    return 0;
}

static void cmp_vlen(cmp *c, hid_t aid, const ncsi_h5r_attr *ra, const char *what)
{
    hid_t ft = H5Aget_type(aid), s = H5Aget_space(aid), mt;
    hssize_t n = H5Sget_simple_extent_npoints(s), i;
    unsigned char *data;
    uint64_t np;
    int st;
    if (H5Tget_class(ft) == H5T_STRING) {
        char **v = calloc((size_t)n + 1, sizeof *v);
        mt = H5Tcopy(H5T_C_S1);
        H5Tset_size(mt, H5T_VARIABLE);
        H5OK(H5Aread(aid, mt, v));
        for (i = 0; i < n; i++) {
            st = ncsi_h5r_vlen(c->f, ra, (uint64_t)i, &data, &np);
            EXPECT(st == NCS_NOERR, "%s: vlen %lld: %d", what, (long long)i, st);
            if (st == NCS_NOERR) {
                size_t len = v[i] ? strlen(v[i]) : 0;
                EXPECT(np == len && (len == 0 || memcmp(data, v[i], len) == 0),
                       "%s: vlen string %lld: %" PRIu64 " bytes, HDF5 \"%s\"", what,
                       (long long)i, np, v[i] ? v[i] : "");
                free(data);
            }
        }
        H5Dvlen_reclaim(mt, s, H5P_DEFAULT, v);
        free(v);
    } else {
        hvl_t *v = calloc((size_t)n + 1, sizeof *v);
        hid_t base = H5Tget_super(ft);
        int isref = H5Tget_class(base) == H5T_REFERENCE;
        mt = H5Tvlen_create(isref ? H5T_STD_REF_OBJ : base);
        H5OK(H5Aread(aid, mt, v));
        for (i = 0; i < n; i++) {
            st = ncsi_h5r_vlen(c->f, ra, (uint64_t)i, &data, &np);
            EXPECT(st == NCS_NOERR, "%s: vlen %lld: %d", what, (long long)i, st);
            if (st != NCS_NOERR)
                continue;
            EXPECT(np == v[i].len, "%s: vlen %lld: %" PRIu64 " elements, HDF5 %zu", what,
                   (long long)i, np, v[i].len);
            if (np == v[i].len && isref) {
                uint64_t j;
                for (j = 0; j < np; j++) {
                    uint64_t a = ncsi_h5r_ref_addr(c->f, data + j * c->info.sizeof_addr);
                    hobj_ref_t want = ((hobj_ref_t *)v[i].p)[j];
                    H5O_info_t oi;
                    hid_t obj;
                    EXPECT(a == want, "%s: vlen %lld ref %" PRIu64 ": %" PRIu64 ", HDF5 %llu",
                           what, (long long)i, j, a, (unsigned long long)want);
                    /* the reference names an object whose header is that address */
                    obj = H5Rdereference2(c->fid, H5P_DEFAULT, H5R_OBJECT, &want);
                    if (obj >= 0) {
                        H5OK(H5Oget_info2(obj, &oi, H5O_INFO_BASIC));
                        EXPECT(oi.addr == a, "%s: referenced object at %llu, read %" PRIu64,
                               what, (unsigned long long)oi.addr, a);
                        H5Oclose(obj);
                    }
                }
            } else if (np == v[i].len && np > 0) {
                EXPECT(memcmp(data, v[i].p, np * H5Tget_size(base)) == 0,
                       "%s: vlen %lld bytes differ", what, (long long)i);
            }
            free(data);
        }
        st = ncsi_h5r_vlen(c->f, ra, (uint64_t)n, &data, &np);
        EXPECT(st == NCS_EINVAL, "%s: vlen past the end: %d", what, st);
        H5Dvlen_reclaim(mt, s, H5P_DEFAULT, v);
        free(v);
        H5Tclose(base);
    }
    H5Tclose(mt);
    H5Sclose(s);
    H5Tclose(ft);
}

/* The attributes of obj (open in HDF5) against ncsi_h5r_attrs of o. */
static void cmp_attrs(cmp *c, hid_t obj, const ncsi_h5r_obj *o, const char *path)
{
    H5O_info_t oi;
    hid_t cpl;
    unsigned crt = 0;
    int tracked, dense, st;
    namelist hl = { 0 };
    hsize_t idx = 0;
    ncsi_h5r_attr *ra = NULL;
    size_t n = 0, i;
    char what[512];
    H5I_type_t it = H5Iget_type(obj);

    H5OK(H5Oget_info2(obj, &oi, H5O_INFO_BASIC | H5O_INFO_NUM_ATTRS | H5O_INFO_HDR));
    cpl = it == H5I_DATASET ? H5Dget_create_plist(obj) : H5Gget_create_plist(obj);
    H5OK(H5Pget_attr_creation_order(cpl, &crt));
    H5Pclose(cpl);
    tracked = (crt & H5P_CRT_ORDER_TRACKED) != 0;
    dense = oi.num_attrs > 0 && !(oi.hdr.mesg.present & ((uint64_t)1 << 0x0C));
    /* what HDF5 gives by creation order: the order kept where it is
     * tracked, else the header's (compact) or the name index's (dense) */
    H5OK(H5Aiterate2(obj, H5_INDEX_CRT_ORDER, H5_ITER_INC, &idx, attr_cb, &hl));

    EXPECT(o->attrs_corder == tracked, "%s: attrs_corder %d, HDF5 tracks %d", path,
           o->attrs_corder, tracked);
    EXPECT((o->attr_heap != NCSI_H5R_UNDEF) == dense, "%s: attr_heap %" PRIu64 ", HDF5 dense %d",
           path, o->attr_heap, dense);
    if (!dense)
        EXPECT((hsize_t)o->nattrmsgs == oi.num_attrs, "%s: %d attribute messages, HDF5 %llu",
               path, o->nattrmsgs, (unsigned long long)oi.num_attrs);

    st = ncsi_h5r_attrs(c->f, o, &ra, &n);
    if (st == NCSI_H5R_UNSUPPORTED && strstr(path, "attrs_huge") != NULL) {
        printf("check_h5read: %s: %s: huge heap object unsupported, as documented\n",
               current_file, path);
        goto cleanup;
    }
    EXPECT(st == NCS_NOERR, "%s: ncsi_h5r_attrs: %d", path, st);
    if (st != NCS_NOERR)
        goto cleanup;
    EXPECT(n == hl.n, "%s: %zu attributes, HDF5 %zu", path, n, hl.n);
    for (i = 0; i < n; i++) {
        const ncsi_h5r_attr *a = NULL;
        hid_t aid, t, s;
        hssize_t npts;
        if (i >= hl.n)
            break;
        if (tracked) {
            a = &ra[i];
            EXPECT(strcmp(a->name, hl.name[i]) == 0, "%s: attribute %zu is %s, HDF5 %s", path,
                   i, a->name, hl.name[i]);
            EXPECT(a->corder == hl.corder[i], "%s: attribute %s corder %" PRId64 ", HDF5 %" PRId64,
                   path, a->name, a->corder, hl.corder[i]);
        } else {
            a = &ra[i];
            EXPECT(strcmp(a->name, hl.name[i]) == 0, "%s: attribute %zu is %s, HDF5 %s", path,
                   i, a->name, hl.name[i]);
            EXPECT(a->corder == -1, "%s: attribute %s corder %" PRId64 " untracked", path,
                   a->name, a->corder);
        }
        snprintf(what, sizeof what, "%s@%s", path, hl.name[i]);
        aid = H5Aopen(obj, hl.name[i], H5P_DEFAULT);
        ck_assert(aid >= 0);
        t = H5Aget_type(aid);
        s = H5Aget_space(aid);
        npts = H5Sget_simple_extent_npoints(s);
        cmp_type(c, t, &a->type, what);
        cmp_space(s, &a->space, what);
        EXPECT(a->nelems == (uint64_t)npts, "%s: %" PRIu64 " elements, HDF5 %lld", what,
               a->nelems, (long long)npts);
        EXPECT(a->size == a->nelems * a->type.size, "%s: %zu bytes for %" PRIu64 " x %u", what,
               a->size, a->nelems, a->type.size);
        if (a->type.cls == NCSI_H5R_VLEN) {
            cmp_vlen(c, aid, a, what);
        } else {
            unsigned char *data;
            uint64_t np;
            size_t bytes = (size_t)npts * H5Tget_size(t);
            unsigned char *b = malloc(bytes + 1);
            H5OK(H5Aread(aid, t, b));
            EXPECT(a->size == bytes && (bytes == 0 || memcmp(a->data, b, bytes) == 0),
                   "%s: raw bytes differ (%zu read, %zu HDF5)", what, a->size, bytes);
            free(b);
            EXPECT(ncsi_h5r_vlen(c->f, a, 0, &data, &np) == NCS_EINVAL,
                   "%s: ncsi_h5r_vlen of a fixed-size attribute", what);
        }
        H5Sclose(s);
        H5Tclose(t);
        H5Aclose(aid);
    }
    ncsi_h5r_attrs_free(ra, n);
cleanup:
    names_free(&hl);
}

static void cmp_group(cmp *c, hid_t g, uint64_t addr, const char *path, int depth);

/* The object at addr, named path, open in HDF5 as obj. */
static void cmp_object(cmp *c, hid_t obj, uint64_t addr, const char *path, int depth)
{
    H5O_info_t oi;
    ncsi_h5r_obj *o = NULL;
    int st = ncsi_h5r_obj_read(c->f, addr, &o);
    EXPECT(st == NCS_NOERR, "%s: ncsi_h5r_obj_read(%" PRIu64 "): %d", path, addr, st);
    if (st != NCS_NOERR)
        return;
    H5OK(H5Oget_info2(obj, &oi, H5O_INFO_BASIC | H5O_INFO_HDR));
    EXPECT(o->addr == addr, "%s: header address %" PRIu64 " for %" PRIu64, path, o->addr, addr);
    EXPECT(o->version == (int)oi.hdr.version, "%s: header version %d, HDF5 %u", path,
           o->version, oi.hdr.version);
    EXPECT(o->is_group == (oi.type == H5O_TYPE_GROUP), "%s: is_group %d, HDF5 type %d", path,
           o->is_group, (int)oi.type);
    if (oi.type == H5O_TYPE_DATASET) {
        ncsi_h5r_link *l = NULL;
        size_t nl = 0;
        cmp_dataset(c, obj, o, path);
        EXPECT(ncsi_h5r_links(c->f, o, &l, &nl) == NCS_EINVAL, "%s: links of a dataset", path);
    }
    cmp_attrs(c, obj, o, path);
    if (oi.type == H5O_TYPE_GROUP && o->is_group)
        cmp_group(c, obj, addr, path, depth + 1);
    ncsi_h5r_obj_free(o);
}

static void cmp_group(cmp *c, hid_t g, uint64_t addr, const char *path, int depth)
{
    hid_t gcpl = H5Gget_create_plist(g);
    unsigned crt = 0;
    int tracked, st;
    H5G_info_t gi;
    namelist hl = { 0 };
    hsize_t idx = 0;
    ncsi_h5r_obj *o = NULL;
    ncsi_h5r_link *l = NULL;
    size_t n = 0, i;
    char sub[1024];

    H5OK(H5Pget_link_creation_order(gcpl, &crt));
    H5Pclose(gcpl);
    tracked = (crt & H5P_CRT_ORDER_TRACKED) != 0;
    H5OK(H5Gget_info(g, &gi));
    H5OK(H5Literate(g, tracked ? H5_INDEX_CRT_ORDER : H5_INDEX_NAME, H5_ITER_INC, &idx,
                    link_cb, &hl));
    st = ncsi_h5r_obj_read(c->f, addr, &o);
    EXPECT(st == NCS_NOERR, "%s: ncsi_h5r_obj_read: %d", path, st);
    if (st != NCS_NOERR)
        goto cleanup;
    EXPECT(o->links_corder == tracked, "%s: links_corder %d, HDF5 tracks %d", path,
           o->links_corder, tracked);
    if (gi.storage_type == H5G_STORAGE_TYPE_SYMBOL_TABLE)
        EXPECT(o->symtab_btree != NCSI_H5R_UNDEF && o->symtab_heap != NCSI_H5R_UNDEF,
               "%s: a symbol table group without its B-tree or heap", path);
    else if (gi.storage_type == H5G_STORAGE_TYPE_DENSE)
        EXPECT(o->links_dense, "%s: dense links not seen as dense", path);
    else
        EXPECT(!o->links_dense && (hsize_t)o->nlinkmsgs == gi.nlinks,
               "%s: compact group: dense %d, %d link messages, HDF5 %llu", path,
               o->links_dense, o->nlinkmsgs, (unsigned long long)gi.nlinks);
    st = ncsi_h5r_links(c->f, o, &l, &n);
    EXPECT(st == NCS_NOERR, "%s: ncsi_h5r_links: %d", path, st);
    if (st != NCS_NOERR) {
        /* the objects still get compared, at HDF5's addresses */
        for (i = 0; i < hl.n; i++) {
            hid_t obj;
            if (hl.type[i] != H5L_TYPE_HARD || !seen_add(c, hl.addr[i]) || depth > 8)
                continue;
            snprintf(sub, sizeof sub, "%s%s%s", path, strcmp(path, "/") ? "/" : "", hl.name[i]);
            obj = H5Oopen(g, hl.name[i], H5P_DEFAULT);
            ck_assert(obj >= 0);
            cmp_object(c, obj, hl.addr[i], sub, depth);
            H5Oclose(obj);
        }
        n = 0;
        goto cleanup;
    }
    EXPECT(n == hl.n, "%s: %zu links, HDF5 %zu", path, n, hl.n);
    for (i = 0; i < n && i < hl.n; i++) {
        H5O_info_t oi;
        hid_t obj;
        EXPECT(strcmp(l[i].name, hl.name[i]) == 0, "%s: link %zu is %s, HDF5 %s", path, i,
               l[i].name, hl.name[i]);
        EXPECT(l[i].type == hl.type[i], "%s/%s: link type %d, HDF5 %d", path, l[i].name,
               l[i].type, hl.type[i]);
        EXPECT(l[i].corder == hl.corder[i], "%s/%s: corder %" PRId64 ", HDF5 %" PRId64, path,
               l[i].name, l[i].corder, hl.corder[i]);
        if (hl.type[i] != H5L_TYPE_HARD || l[i].type != NCSI_H5R_HARD)
            continue;
        EXPECT(l[i].addr == hl.addr[i], "%s/%s: address %" PRIu64 ", H5Literate %llu", path,
               l[i].name, l[i].addr, (unsigned long long)hl.addr[i]);
        H5OK(H5Oget_info_by_name2(g, hl.name[i], &oi, H5O_INFO_BASIC, H5P_DEFAULT));
        EXPECT(l[i].addr == oi.addr, "%s/%s: address %" PRIu64 ", H5Oget_info %llu", path,
               l[i].name, l[i].addr, (unsigned long long)oi.addr);
        if (!seen_add(c, l[i].addr) || depth > 8)
            continue;
        snprintf(sub, sizeof sub, "%s%s%s", path, strcmp(path, "/") ? "/" : "", hl.name[i]);
        obj = H5Oopen(g, hl.name[i], H5P_DEFAULT);
        ck_assert(obj >= 0);
        cmp_object(c, obj, l[i].addr, sub, depth);
        H5Oclose(obj);
    }
cleanup:
    ncsi_h5r_links_free(l, n);
    ncsi_h5r_obj_free(o);
    names_free(&hl);
}

/* Compares the whole file at path; returns its superblock version. */
static int cmp_file(const char *path, int old_layout)
{
    cmp c = { 0 };
    struct stat sb;
    hid_t fcpl, root;
    H5F_info2_t fi;
    H5O_info_t oi;
    hsize_t ub = 0;
    size_t sa = 0, ss = 0;
    int st, before = mismatches;

    current_file = path;
    c.old_layout = old_layout;
    c.fd = open(path, O_RDONLY);
    ck_assert_msg(c.fd >= 0, "open %s", path);
    ck_assert(fstat(c.fd, &sb) == 0);
    st = ncsi_h5r_open(fd_read, &c.fd, (uint64_t)sb.st_size, &c.f);
    ck_assert_msg(st == NCS_NOERR, "%s: ncsi_h5r_open: %d", path, st);
    ncsi_h5r_info_of(c.f, &c.info);
    c.fid = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    ck_assert(c.fid >= 0);
    H5OK(H5Fget_info2(c.fid, &fi));
    fcpl = H5Fget_create_plist(c.fid);
    H5OK(H5Pget_userblock(fcpl, &ub));
    H5OK(H5Pget_sizes(fcpl, &sa, &ss));
    H5Pclose(fcpl);
    EXPECT(c.info.superblock == (int)fi.super.version, "superblock %d, HDF5 %u",
           c.info.superblock, fi.super.version);
    EXPECT(c.info.base == ub, "base %" PRIu64 ", user block %llu", c.info.base,
           (unsigned long long)ub);
    EXPECT(c.info.sizeof_addr == sa && c.info.sizeof_size == ss, "sizes %u/%u, HDF5 %zu/%zu",
           c.info.sizeof_addr, c.info.sizeof_size, sa, ss);
    root = H5Gopen2(c.fid, "/", H5P_DEFAULT);
    H5OK(H5Oget_info2(root, &oi, H5O_INFO_BASIC));
    EXPECT(c.info.root == oi.addr, "root at %" PRIu64 ", HDF5 %llu", c.info.root,
           (unsigned long long)oi.addr);
    seen_add(&c, c.info.root);
    cmp_object(&c, root, c.info.root, "/", 0);
    H5Gclose(root);
    H5Fclose(c.fid);
    ncsi_h5r_close(c.f);
    close(c.fd);
    free(c.seen);
    printf("check_h5read: %s: superblock %d, %zu objects, %d differences\n", path,
           c.info.superblock, c.nseen, mismatches - before);
    fflush(stdout);
    return c.info.superblock;
}

/* ---- the differential tests ----------------------------------------------------- */

static void finish(const char *path)
{
    ck_assert_msg(mismatches == 0, "%s: %d differences from HDF5 (see above)", path, mismatches);
    unlink(path);
}

START_TEST(test_h5_v18)
{
    const char *p = "ut_h5r_v18.nc";
    gen_h5(p, H5F_LIBVER_EARLIEST, H5F_LIBVER_V18);
    cmp_file(p, 1);
    finish(p);
}
END_TEST

START_TEST(test_h5_sb2)
{
    const char *p = "ut_h5r_sb2.nc";
    int sb;
    gen_h5(p, H5F_LIBVER_V18, H5F_LIBVER_V18);
    sb = cmp_file(p, 1);
    EXPECT(sb == 2, "superblock %d, expected 2", sb);
    finish(p);
}
END_TEST

START_TEST(test_h5_latest)
{
    const char *p = "ut_h5r_latest.nc";
    int sb;
    gen_latest(p);
    sb = cmp_file(p, 0);
    EXPECT(sb == 3, "superblock %d, expected 3", sb);
    finish(p);
}
END_TEST

START_TEST(test_h5_many)
{
    const char *p = "ut_h5r_many.nc";
    gen_many(p, 300, 1200);
    cmp_file(p, 1);
    finish(p);
}
END_TEST

START_TEST(test_h5_old)
{
    const char *p = "ut_h5r_old.nc";
    int sb;
    gen_old(p, 100, 600, 0);
    sb = cmp_file(p, 1);
    EXPECT(sb == 0, "superblock %d, expected 0", sb);
    finish(p);
}
END_TEST

START_TEST(test_h5_userblock)
{
    const char *p = "ut_h5r_userblock.nc";
    gen_old(p, 10, 0, 512);
    cmp_file(p, 1);
    finish(p);
}
END_TEST

START_TEST(test_ncslab)
{
    const char *p = _i ? "ut_h5r_ncs_dense.nc" : "ut_h5r_ncs.nc";
    gen_nc(&ncs_writer, p, _i);
    cmp_file(p, 1);
    finish(p);
}
END_TEST

#ifdef HAVE_NETCDF
START_TEST(test_netcdf)
{
    const char *p = _i ? "ut_h5r_nc_dense.nc" : "ut_h5r_nc.nc";
    gen_nc(&nc_writer, p, _i);
    cmp_file(p, 1);
    finish(p);
}
END_TEST
#endif

/* ---- calls on their own --------------------------------------------------------- */

START_TEST(test_open_errors)
{
    unsigned char b[4096];
    memfile m = { b, sizeof b };
    ncsi_h5r *f = NULL;
    static const unsigned char sig[8] = { 0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n' };
    int st;
    memset(b, 0, sizeof b);
    ck_assert_int_eq(ncsi_h5r_open(mem_read, &m, sizeof b, &f), NCS_ENOTNC);
    memcpy(b, "CDF\001", 4);
    ck_assert_int_eq(ncsi_h5r_open(mem_read, &m, sizeof b, &f), NCS_ENOTNC);
    m.n = 3;
    ck_assert_int_eq(ncsi_h5r_open(mem_read, &m, 3, &f), NCS_ENOTNC);
    ck_assert_int_eq(ncsi_h5r_open(mem_read, &m, 0, &f), NCS_ENOTNC);
    /* a signature followed by nothing that makes a superblock */
    m.n = sizeof b;
    memcpy(b + 512, sig, 8);
    b[520] = 9;
    st = ncsi_h5r_open(mem_read, &m, sizeof b, &f);
    ck_assert_msg(st == NCSI_H5R_UNSUPPORTED || st == NCSI_H5R_CORRUPT,
                  "superblock version 9: %d", st);
    /* a signature cut short by eof */
    st = ncsi_h5r_open(mem_read, &m, 516, &f);
    ck_assert_msg(st == NCS_ENOTNC || st == NCSI_H5R_CORRUPT, "cut signature: %d", st);
}
END_TEST

START_TEST(test_space_elements)
{
    ncsi_h5r_space s;
    uint64_t n = 7;
    memset(&s, 0, sizeof s);
    s.kind = NCSI_H5R_SCALAR;
    ck_assert_int_eq(ncsi_h5r_space_elements(&s, &n), NCS_NOERR);
    ck_assert_uint_eq(n, 1);
    s.kind = NCSI_H5R_NULL;
    ck_assert_int_eq(ncsi_h5r_space_elements(&s, &n), NCS_NOERR);
    ck_assert_uint_eq(n, 0);
    s.kind = NCSI_H5R_SIMPLE;
    s.rank = 3;
    s.dims[0] = 2, s.dims[1] = 3, s.dims[2] = 5;
    ck_assert_int_eq(ncsi_h5r_space_elements(&s, &n), NCS_NOERR);
    ck_assert_uint_eq(n, 30);
    s.dims[1] = 0;
    ck_assert_int_eq(ncsi_h5r_space_elements(&s, &n), NCS_NOERR);
    ck_assert_uint_eq(n, 0);
    s.rank = 2;
    s.dims[0] = UINT64_C(1) << 32, s.dims[1] = UINT64_C(1) << 32;
    ck_assert_int_eq(ncsi_h5r_space_elements(&s, &n), NCSI_H5R_CORRUPT);
    s.dims[1] = (UINT64_C(1) << 32) - 1;
    ck_assert_int_eq(ncsi_h5r_space_elements(&s, &n), NCS_NOERR);
    ck_assert_uint_eq(n, (UINT64_C(1) << 32) * ((UINT64_C(1) << 32) - 1));
}
END_TEST

/* HDF5's checksum is Jenkins' lookup3 hashlittle with initial value 0
 * (Bob Jenkins' own test vectors), and it signs superblock 2. */
START_TEST(test_checksum)
{
    static const char four[] = "Four score and seven years ago";
    const char *p = "ut_h5r_cksum.nc";
    unsigned char *b, buf[64];
    uint64_t n;
    hid_t f;
    ck_assert_uint_eq(ncsi_h5r_checksum((const unsigned char *)"", 0), 0xdeadbeefu);
    ck_assert_uint_eq(ncsi_h5r_checksum((const unsigned char *)four, 30), 0x17770551u);
    memcpy(buf, four, 30);
    memcpy(buf + 30, "\x51\x05\x77\x17", 4);
    ck_assert(ncsi_h5r_checksum_ok(buf, 30));
    buf[3] ^= 1;
    ck_assert(!ncsi_h5r_checksum_ok(buf, 30));
    f = file_new(p, H5F_LIBVER_V18, H5F_LIBVER_V18, 0, 0);
    H5Fclose(f);
    b = slurp(p, &n);
    ck_assert_uint_eq(b[8], 2);
    ck_assert(ncsi_h5r_checksum_ok(b, 12 + 4 * 8));
    free(b);
    unlink(p);
}
END_TEST

/* ---- robustness ----------------------------------------------------------------- */

typedef struct fuzz {
    ncsi_h5r *f;
    uint64_t eof;
    uint64_t *seen;
    size_t nseen, capseen;
    unsigned long calls, ok, bad;   /* calls made, NOERR, undocumented statuses */
    unsigned sink;                  /* the bytes returned, touched */
    const char *where;
} fuzz;

static void fz_status(fuzz *z, const char *call, int st, int einval_ok)
{
    z->calls++;
    if (st == NCS_NOERR) {
        z->ok++;
        return;
    }
    if (st == NCSI_H5R_CORRUPT || st == NCSI_H5R_UNSUPPORTED || st == NCS_ENOMEM ||
        (einval_ok && st == NCS_EINVAL))
        return;
    z->bad++;
    EXPECT(0, "%s: %s returned %d", z->where, call, st);
}

static void touch(fuzz *z, const void *p, size_t n)
{
    const unsigned char *b = p;
    size_t i;
    for (i = 0; i < n; i++)
        z->sink += b[i];
}

static int fz_seen(fuzz *z, uint64_t a)
{
    return !addr_add(&z->seen, &z->nseen, &z->capseen, a);
}

static void fz_type(fuzz *z, const ncsi_h5r_type *t)
{
    EXPECT(t->cls >= 0 && t->cls <= 10, "%s: type class %d", z->where, t->cls);
}

static void fz_space(fuzz *z, const ncsi_h5r_space *s)
{
    EXPECT(s->rank >= 0 && s->rank <= NCSI_H5R_MAX_RANK, "%s: rank %d", z->where, s->rank);
}

static void fz_object(fuzz *z, uint64_t addr, int depth);

static void fz_attrs(fuzz *z, const ncsi_h5r_obj *o, int depth)
{
    ncsi_h5r_attr *a = NULL;
    size_t n = 0, i;
    int st = ncsi_h5r_attrs(z->f, o, &a, &n);
    fz_status(z, "ncsi_h5r_attrs", st, 0);
    if (st != NCS_NOERR)
        return;
    for (i = 0; i < n; i++) {
        touch(z, a[i].name, strlen(a[i].name));
        fz_type(z, &a[i].type);
        fz_space(z, &a[i].space);
        EXPECT(a[i].size == a[i].nelems * a[i].type.size, "%s: attribute %s: %zu bytes for %" PRIu64
               " x %u", z->where, a[i].name, a[i].size, a[i].nelems, a[i].type.size);
        touch(z, a[i].data, a[i].size);
        if (a[i].type.cls == NCSI_H5R_VLEN) {
            uint64_t e;
            for (e = 0; e < a[i].nelems && e < 64; e++) {
                unsigned char *d = NULL;
                uint64_t np = 0, j;
                st = ncsi_h5r_vlen(z->f, &a[i], e, &d, &np);
                fz_status(z, "ncsi_h5r_vlen", st, 0);
                if (st != NCS_NOERR)
                    continue;
                touch(z, d, (size_t)(np * a[i].type.base_size));
                if (a[i].type.base_cls == NCSI_H5R_REF && a[i].type.base_size >= 1)
                    for (j = 0; j < np && j < 16; j++)
                        fz_object(z, ncsi_h5r_ref_addr(z->f, d + j * a[i].type.base_size),
                                  depth + 1);
                free(d);
            }
        }
    }
    ncsi_h5r_attrs_free(a, n);
}

static void fz_object(fuzz *z, uint64_t addr, int depth)
{
    ncsi_h5r_obj *o = NULL;
    int st, i;
    if (depth > 12 || z->nseen > 3000 || fz_seen(z, addr))
        return;
    st = ncsi_h5r_obj_read(z->f, addr, &o);
    fz_status(z, "ncsi_h5r_obj_read", st, 0);
    if (st != NCS_NOERR)
        return;
    EXPECT(o->version == 1 || o->version == 2, "%s: header version %d", z->where, o->version);
    if (o->has_type)
        fz_type(z, &o->type);
    if (o->has_space)
        fz_space(z, &o->space);
    EXPECT(o->nfilters >= 0 && o->nfilters <= 32, "%s: %d filters", z->where, o->nfilters);
    if (o->has_fill && o->fill.value)
        touch(z, o->fill.value, o->fill.size);
    if (o->has_layout && o->layout.cls == NCSI_H5R_COMPACT)
        EXPECT(o->layout.compact_at <= z->eof && o->layout.size <= z->eof - o->layout.compact_at,
               "%s: compact data %" PRIu64 "+%" PRIu64 " past eof %" PRIu64, z->where,
               o->layout.compact_at, o->layout.size, z->eof);
    if (o->has_layout && o->layout.cls == NCSI_H5R_CHUNKED)
        EXPECT(o->layout.ndims >= 0 && o->layout.ndims <= NCSI_H5R_MAX_RANK, "%s: chunk rank %d",
               z->where, o->layout.ndims);
    for (i = 0; i < o->nlinkmsgs; i++)
        touch(z, o->linkmsg[i], o->linklen[i]);
    for (i = 0; i < o->nattrmsgs; i++)
        touch(z, o->attrmsg[i], o->attrlen[i]);
    fz_attrs(z, o, depth);
    if (o->is_group) {
        ncsi_h5r_link *l = NULL;
        size_t n = 0, k;
        st = ncsi_h5r_links(z->f, o, &l, &n);
        fz_status(z, "ncsi_h5r_links", st, 0);
        if (st == NCS_NOERR) {
            for (k = 0; k < n; k++) {
                touch(z, l[k].name, strlen(l[k].name));
                if (l[k].type == NCSI_H5R_HARD)
                    fz_object(z, l[k].addr, depth + 1);
            }
            ncsi_h5r_links_free(l, n);
        }
    } else {
        ncsi_h5r_link *l = NULL;
        size_t n = 0;
        st = ncsi_h5r_links(z->f, o, &l, &n);
        EXPECT(st == NCS_EINVAL, "%s: links of a non-group: %d", z->where, st);
    }
    ncsi_h5r_obj_free(o);
}

/* Opens bytes b[0..n) and walks everything; returns whether it opened. */
static int fz_walk(fuzz *z, const unsigned char *b, uint64_t n)
{
    memfile m = { b, n };
    ncsi_h5r_info info;
    int st = ncsi_h5r_open(mem_read, &m, n, &z->f);
    z->calls++;
    if (st != NCS_NOERR) {
        if (st != NCS_ENOTNC && st != NCSI_H5R_CORRUPT && st != NCSI_H5R_UNSUPPORTED &&
            st != NCS_ENOMEM) {
            z->bad++;
            EXPECT(0, "%s: ncsi_h5r_open returned %d", z->where, st);
        }
        return 0;
    }
    z->eof = n;
    z->nseen = 0;
    ncsi_h5r_info_of(z->f, &info);
    EXPECT(info.superblock >= 0 && info.superblock <= 3, "%s: superblock %d", z->where,
           info.superblock);
    fz_object(z, info.root, 0);
    ncsi_h5r_close(z->f);
    z->f = NULL;
    return 1;
}

#define NFUZZ 6
static const char *const fuzz_names[NFUZZ] = { "v18", "old", "userblock", "latest",
                                                "ncslab", "many" };

static void gen_kind(int k, const char *p)
{
    switch (k) {
    case 0: gen_h5(p, H5F_LIBVER_EARLIEST, H5F_LIBVER_V18); break;
    case 1: gen_old(p, 30, 40, 0); break;
    case 2: gen_old(p, 10, 0, 512); break;
    case 3: gen_latest(p); break;
#ifdef HAVE_NETCDF
    case 4: gen_nc(&nc_writer, p, 1); break;
#else
    case 4: gen_nc(&ncs_writer, p, 1); break;
#endif
    default: gen_many(p, 40, 100); break;
    }
}

START_TEST(test_fuzz)
{
    char path[64], where[160];
    uint64_t n, it, opened = 0, iters = _i == 5 ? 300 : 700;
    unsigned char *orig, *b;
    fuzz z = { 0 };
    current_file = fuzz_names[_i];
    snprintf(path, sizeof path, "ut_h5r_fuzz_%s.nc", fuzz_names[_i]);
    gen_kind(_i, path);
    orig = slurp(path, &n);
    unlink(path);
    b = malloc(n);
    ck_assert(b != NULL);
    rng_state = seed ^ ((uint64_t)_i * 0x9E3779B97F4A7C15ull);
    z.where = where;

    snprintf(where, sizeof where, "%s intact", fuzz_names[_i]);
    ck_assert_msg(fz_walk(&z, orig, n), "%s: the intact file does not open", fuzz_names[_i]);
    for (it = 0; it < iters; it++) {
        uint64_t at, len = 1, j, base = _i == 2 ? 512 : 0;
        unsigned kind = (unsigned)(rng() % 5);
        memcpy(b, orig, n);
        at = rng() % 4 == 0 ? base + rng() % (n - base < 2048 ? n - base : 2048) : rng() % n;
        if (kind >= 2)
            len = 1 + rng() % (kind == 2 ? 16 : 8);
        for (j = 0; j < len && at + j < n; j++) {
            if (kind == 0 || kind == 2)
                b[at + j] = (unsigned char)rng();
            else if (kind == 1)
                b[at + j] ^= (unsigned char)(1u << (rng() % 8));
            else
                b[at + j] = kind == 3 ? 0xff : 0x00;
        }
        snprintf(where, sizeof where, "%s seed %llu iteration %" PRIu64 " (kind %u at %" PRIu64
                 " len %" PRIu64 ")", fuzz_names[_i], seed, it, kind, at, len);
        opened += (uint64_t)fz_walk(&z, b, n);
    }
    /* copies cut short */
    for (it = 0; it < 200; it++) {
        uint64_t cut = it < 64 ? it * 9 : (uint64_t)(rng() % n);
        snprintf(where, sizeof where, "%s cut at %" PRIu64, fuzz_names[_i], cut);
        fz_walk(&z, orig, cut);
    }
    printf("check_h5read: fuzz %s (%" PRIu64 " bytes, seed %llu): %" PRIu64
           " corruptions, %" PRIu64 " opened, %lu calls, %lu succeeded\n",
           fuzz_names[_i], n, seed, iters, opened, z.calls, z.ok);
    fflush(stdout);
    free(z.seen);
    free(b);
    free(orig);
    ck_assert_msg(mismatches == 0, "%s: %d failures (seed %llu; NCSLAB_SEED replays)",
                  fuzz_names[_i], mismatches, seed);
}
END_TEST

/* Object headers read at every address of intact files: anything but a
 * header is rejected with a documented status, never a crash. */
START_TEST(test_every_address)
{
    char path[64], where[96];
    uint64_t n, a, base;
    unsigned long headers = 0;
    unsigned char *orig;
    memfile m;
    ncsi_h5r_info info;
    fuzz z = { 0 };
    current_file = fuzz_names[_i];
    snprintf(path, sizeof path, "ut_h5r_addr_%s.nc", fuzz_names[_i]);
    gen_kind(_i, path);
    orig = slurp(path, &n);
    unlink(path);
    m.b = orig;
    m.n = n;
    ck_assert_int_eq(ncsi_h5r_open(mem_read, &m, n, &z.f), NCS_NOERR);
    ncsi_h5r_info_of(z.f, &info);
    base = info.base;
    z.eof = n;
    z.where = where;
    for (a = 0; a + base < n && a < 24576; a++) {
        ncsi_h5r_obj *o = NULL;
        int st = ncsi_h5r_obj_read(z.f, a, &o);
        snprintf(where, sizeof where, "%s object at %" PRIu64, fuzz_names[_i], a);
        fz_status(&z, "ncsi_h5r_obj_read", st, 0);
        if (st == NCS_NOERR) {
            headers++;
            z.nseen = 0;
            fz_attrs(&z, o, 0);
            ncsi_h5r_obj_free(o);
        }
    }
    {
        ncsi_h5r_obj *o = NULL;
        int st = ncsi_h5r_obj_read(z.f, NCSI_H5R_UNDEF, &o);
        EXPECT(st == NCSI_H5R_CORRUPT, "the undefined address: %d", st);
        st = ncsi_h5r_obj_read(z.f, n, &o);
        EXPECT(st == NCSI_H5R_CORRUPT, "the address of eof: %d", st);
    }
    printf("check_h5read: %s: %lu headers read at %" PRIu64 " addresses\n", fuzz_names[_i],
           headers, a);
    fflush(stdout);
    ncsi_h5r_close(z.f);
    free(z.seen);
    free(orig);
    ck_assert_msg(mismatches == 0, "%s: %d failures", fuzz_names[_i], mismatches);
}
END_TEST

/* Each test counts its own differences (also when Check does not fork). */
static void reset_count(void)
{
    mismatches = 0;
}

static Suite *h5read_suite(void)
{
    Suite *s = suite_create("h5read");
    TCase *tc = tcase_create("hdf5");
    tcase_set_timeout(tc, 120);
    tcase_add_checked_fixture(tc, reset_count, NULL);
    tcase_add_test(tc, test_open_errors);
    tcase_add_test(tc, test_space_elements);
    tcase_add_test(tc, test_checksum);
    tcase_add_test(tc, test_h5_v18);
    tcase_add_test(tc, test_h5_sb2);
    tcase_add_test(tc, test_h5_latest);
    tcase_add_test(tc, test_h5_many);
    tcase_add_test(tc, test_h5_old);
    tcase_add_test(tc, test_h5_userblock);
    suite_add_tcase(s, tc);

    tc = tcase_create("netcdf");
    tcase_set_timeout(tc, 120);
    tcase_add_checked_fixture(tc, reset_count, NULL);
    tcase_add_loop_test(tc, test_ncslab, 0, 2);
#ifdef HAVE_NETCDF
    tcase_add_loop_test(tc, test_netcdf, 0, 2);
#endif
    suite_add_tcase(s, tc);

    tc = tcase_create("robustness");
    tcase_set_timeout(tc, 300);
    tcase_add_checked_fixture(tc, reset_count, NULL);
    tcase_add_loop_test(tc, test_fuzz, 0, NFUZZ);
    tcase_add_loop_test(tc, test_every_address, 0, 3);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    const char *env = getenv("NCSLAB_SEED");
    SRunner *sr;
    int failed;
    seed = env ? strtoull(env, NULL, 10) : (unsigned long long)time(NULL);
    printf("check_h5read: seed %llu (NCSLAB_SEED=%llu replays it)\n", seed, seed);
    fflush(stdout);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    sr = srunner_create(h5read_suite());
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
