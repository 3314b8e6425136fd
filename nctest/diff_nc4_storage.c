/*
 * diff_nc4_storage.c -- ncslab against netCDF-C on what netCDF-4 files
 * from the wild hold beyond ncslab's own layout, both libraries linked into
 * this one process.
 *
 *  layouts     netCDF-C's contiguous (its default for fixed-size variables),
 *              compact and chunked datasets, little- and big-endian: the
 *              storage inquiry, every value read whole, strided, mapped and
 *              one by one, then written by ncslab and read back by netCDF-C
 *  large       a contiguous dataset of 5 GiB (sparse: mostly unwritten, no
 *              fill), as `nccopy -k nc7` makes of a large classic file, read
 *              and written by ncslab on both sides of 4 GiB; and one that
 *              ncslab creates, read by netCDF-C.  Skipped where the file
 *              system does not keep the unwritten part sparse.
 *
 * Files live in a temporary directory that is removed when every test
 * passed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <check.h>
#include <netcdf.h>

#include "ncslab.h"

#define NC4 (NC_NETCDF4 | NC_CLASSIC_MODEL)

static char tmpdir[256];

static void path_of(char *out, size_t n, const char *what)
{
    snprintf(out, n, "%s/%s.nc", tmpdir, what);
}

#define NC_OK(call)                                                             \
    do {                                                                        \
        int s_ = (call);                                                        \
        ck_assert_msg(s_ == NC_NOERR, "%s -> %d (%s)", #call, s_, nc_strerror(s_)); \
    } while (0)
#define NS_OK(call)                                                             \
    do {                                                                        \
        int s_ = (call);                                                        \
        ck_assert_msg(s_ == NCS_NOERR, "%s -> %d (%s)", #call, s_, ncs_strerror(s_)); \
    } while (0)

/* ---- layouts ---------------------------------------------------------------------- */

enum { NX = 6, NY = 7 };

typedef struct layout {
    const char *name;
    int xtype;
    int storage;                 /* NC_CHUNKED, NC_CONTIGUOUS or NC_COMPACT */
    int big_endian;
} layout;

static const layout layouts[] = {
    {"contig_short", NC_SHORT, NC_CONTIGUOUS, 0},
    {"contig_double_be", NC_DOUBLE, NC_CONTIGUOUS, 1},
    {"compact_int", NC_INT, NC_COMPACT, 0},
    {"compact_float_be", NC_FLOAT, NC_COMPACT, 1},
    {"chunked_int", NC_INT, NC_CHUNKED, 0},
    {"contig_text", NC_CHAR, NC_CONTIGUOUS, 0},
};
#define NLAYOUTS ((int)(sizeof layouts / sizeof layouts[0]))

/* The value of element (i, j) of variable k, as an int every type holds. */
static int value_at(int k, int i, int j)
{
    return 'A' + k + i * NY + j;
}

/* netCDF-C's file: one 2-D variable per layout, plus a contiguous scalar. */
static void make_layouts(const char *path)
{
    int nc, d[2], v, sc;
    size_t ch[2] = {4, 3};
    NC_OK(nc_create(path, NC_CLOBBER | NC4, &nc));
    NC_OK(nc_def_dim(nc, "x", NX, &d[0]));
    NC_OK(nc_def_dim(nc, "y", NY, &d[1]));
    for (int k = 0; k < NLAYOUTS; k++) {
        NC_OK(nc_def_var(nc, layouts[k].name, layouts[k].xtype, 2, d, &v));
        NC_OK(nc_def_var_chunking(nc, v, layouts[k].storage,
                                  layouts[k].storage == NC_CHUNKED ? ch : NULL));
        if (layouts[k].big_endian)
            NC_OK(nc_def_var_endian(nc, v, NC_ENDIAN_BIG));
    }
    NC_OK(nc_def_var(nc, "scalar", NC_DOUBLE, 0, NULL, &sc));
    NC_OK(nc_enddef(nc));
    for (int k = 0; k < NLAYOUTS; k++) {
        int vals[NX * NY];
        char text[NX * NY];
        for (int i = 0; i < NX; i++)
            for (int j = 0; j < NY; j++)
                vals[i * NY + j] = text[i * NY + j] = (char)value_at(k, i, j);
        if (layouts[k].xtype == NC_CHAR)
            NC_OK(nc_put_var_text(nc, k, text));
        else
            NC_OK(nc_put_var_int(nc, k, vals));
    }
    {
        double x = 2.75;
        NC_OK(nc_put_var_double(nc, sc, &x));
    }
    NC_OK(nc_close(nc));
}

/* The storage inquiry of both libraries, variable by variable. */
static void compare_storage(int nc, int ns, int nvars)
{
    for (int k = 0; k < nvars; k++) {
        int st_nc = -1, st_ns = -2;
        size_t c_nc[2] = {0, 0}, c_ns[2] = {0, 0};
        NC_OK(nc_inq_var_chunking(nc, k, &st_nc, c_nc));
        NS_OK(ncs_inq_var_chunking(ns, k, &st_ns, c_ns));
        ck_assert_msg(st_nc == st_ns, "variable %d: storage netCDF-C %d, ncslab %d", k, st_nc,
                      st_ns);
        if (st_nc == NC_CHUNKED)
            ck_assert_msg(c_nc[0] == c_ns[0] && c_nc[1] == c_ns[1],
                          "variable %d: chunks %zux%zu / %zux%zu", k, c_nc[0], c_nc[1], c_ns[0],
                          c_ns[1]);
    }
}

/* Every way of reading variable k must give netCDF-C's values. */
static void compare_values(int nc, int ns, int k)
{
    int memtype = layouts[k].xtype == NC_CHAR ? NC_CHAR : NC_INT;
    int a[NX * NY], b[NX * NY];
    char ta[NX * NY], tb[NX * NY];
    size_t start[2] = {1, 2}, count[2] = {3, 2}, idx[2];
    ptrdiff_t stride[2] = {2, 3}, imap[2] = {1, 3};
    void *pa = memtype == NC_CHAR ? (void *)ta : (void *)a;
    void *pb = memtype == NC_CHAR ? (void *)tb : (void *)b;
    size_t esz = memtype == NC_CHAR ? 1 : sizeof(int);

    memset(a, 0, sizeof a), memset(b, 1, sizeof b), memset(ta, 0, sizeof ta),
        memset(tb, 1, sizeof tb);
    NC_OK(memtype == NC_CHAR ? nc_get_var_text(nc, k, ta) : nc_get_var_int(nc, k, a));
    NS_OK(ncs_get(ns, k, NULL, NULL, NULL, NULL, memtype, pb));
    ck_assert_msg(memcmp(pa, pb, NX * NY * esz) == 0, "%s: whole variable", layouts[k].name);
    for (int i = 0; i < NX * NY && memtype != NC_CHAR; i++)
        ck_assert_int_eq(a[i], value_at(k, i / NY, i % NY));

    memset(b, 1, sizeof b), memset(tb, 1, sizeof tb);
    NC_OK(memtype == NC_CHAR ? nc_get_vars_text(nc, k, start, count, stride, ta)
                             : nc_get_vars_int(nc, k, start, count, stride, a));
    NS_OK(ncs_get(ns, k, start, count, stride, NULL, memtype, pb));
    ck_assert_msg(memcmp(pa, pb, 6 * esz) == 0, "%s: strided", layouts[k].name);

    memset(b, 1, sizeof b), memset(tb, 1, sizeof tb);
    NC_OK(memtype == NC_CHAR ? nc_get_varm_text(nc, k, start, count, stride, imap, ta)
                             : nc_get_varm_int(nc, k, start, count, stride, imap, a));
    NS_OK(ncs_get(ns, k, start, count, stride, imap, memtype, pb));
    ck_assert_msg(memcmp(pa, pb, 6 * esz) == 0, "%s: mapped", layouts[k].name);

    for (idx[0] = 0; idx[0] < NX; idx[0]++)
        for (idx[1] = 0; idx[1] < NY; idx[1]++) {
            /* the output not used stays equal, the other starts apart */
            int x = 0, y = memtype == NC_CHAR ? 0 : 1;
            char tx = 0, ty = memtype == NC_CHAR ? 1 : 0;
            NC_OK(memtype == NC_CHAR ? nc_get_var1_text(nc, k, idx, &tx)
                                     : nc_get_var1_int(nc, k, idx, &x));
            NS_OK(ncs_get1(ns, k, idx, memtype, memtype == NC_CHAR ? (void *)&ty : (void *)&y));
            ck_assert_msg(x == y && tx == ty, "%s[%zu][%zu]", layouts[k].name, idx[0], idx[1]);
        }
}

START_TEST(test_layouts)
{
    char path[512];
    int nc, ns;
    double x = 0;

    path_of(path, sizeof path, "layouts");
    make_layouts(path);
    NC_OK(nc_open(path, NC_NOWRITE, &nc));
    NS_OK(ncs_open(path, NCS_NOWRITE, &ns));
    compare_storage(nc, ns, NLAYOUTS + 1);
    for (int k = 0; k < NLAYOUTS; k++)
        compare_values(nc, ns, k);
    NS_OK(ncs_get(ns, NLAYOUTS, NULL, NULL, NULL, NULL, NCS_DOUBLE, &x));
    ck_assert(x == 2.75);
    NS_OK(ncs_close(ns));
    NC_OK(nc_close(nc));

    /* ncslab writes into every layout; netCDF-C reads what it wrote */
    NS_OK(ncs_open(path, NCS_WRITE, &ns));
    for (int k = 0; k < NLAYOUTS; k++) {
        size_t start[2] = {2, 1}, count[2] = {2, 3}, one[2] = {NX - 1, NY - 1};
        ptrdiff_t stride[2] = {3, 2};
        int vals[6] = {1, 2, 3, 4, 5, 6}, last = 99;
        char text[6] = {'a', 'b', 'c', 'd', 'e', 'f'}, tlast = 'z';
        int memtype = layouts[k].xtype == NC_CHAR ? NCS_CHAR : NCS_INT;
        NS_OK(ncs_put(ns, k, start, count, stride, NULL, memtype,
                      memtype == NCS_CHAR ? (void *)text : (void *)vals));
        NS_OK(ncs_put1(ns, k, one, memtype, memtype == NCS_CHAR ? (void *)&tlast : (void *)&last));
    }
    x = -1.5;
    NS_OK(ncs_put(ns, NLAYOUTS, NULL, NULL, NULL, NULL, NCS_DOUBLE, &x));
    NS_OK(ncs_close(ns));

    NC_OK(nc_open(path, NC_NOWRITE, &nc));
    for (int k = 0; k < NLAYOUTS; k++) {
        int vals[NX * NY];
        char text[NX * NY];
        if (layouts[k].xtype == NC_CHAR)
            NC_OK(nc_get_var_text(nc, k, text));
        for (int i = 0; i < NX * NY; i++)
            if (layouts[k].xtype == NC_CHAR)
                vals[i] = text[i];
        if (layouts[k].xtype != NC_CHAR)
            NC_OK(nc_get_var_int(nc, k, vals));
        for (int i = 0; i < NX; i++)
            for (int j = 0; j < NY; j++) {
                int want = value_at(k, i, j), got = vals[i * NY + j];
                if (i == NX - 1 && j == NY - 1)
                    want = layouts[k].xtype == NC_CHAR ? 'z' : 99;
                else if ((i == 2 || i == 5) && (j == 1 || j == 3 || j == 5))
                    want = (layouts[k].xtype == NC_CHAR ? 'a' : 1) + (i == 5) * 3 + (j - 1) / 2;
                ck_assert_msg(got == want, "%s[%d][%d] after ncslab's writes: %d, expected %d",
                              layouts[k].name, i, j, got, want);
            }
    }
    NC_OK(nc_get_var_double(nc, NLAYOUTS, &x));
    ck_assert(x == -1.5);
    NC_OK(nc_close(nc));
    unlink(path);
}
END_TEST

/* ---- large contiguous ------------------------------------------------------------- */

/* 1280 x 1 Mi floats: 5 GiB, element (1024, 0) the first past 4 GiB */
#define BIG_ROWS 1280
#define BIG_COLS ((size_t)1 << 20)

static int sparse_enough(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 && (unsigned long long)sb.st_blocks * 512 < (256ull << 20);
}

START_TEST(test_large_contiguous)
{
    char path[512];
    int nc, ns, d[2], v, st = -1;
    const size_t at[4][2] = {{0, 0}, {1023, BIG_COLS - 1}, {1024, 0}, {BIG_ROWS - 1, BIG_COLS - 1}};
    float x, y;

    path_of(path, sizeof path, "large_netcdf");
    NC_OK(nc_create(path, NC_CLOBBER | NC4, &nc));
    NC_OK(nc_def_dim(nc, "x", BIG_ROWS, &d[0]));
    NC_OK(nc_def_dim(nc, "y", BIG_COLS, &d[1]));
    NC_OK(nc_def_var(nc, "v", NC_FLOAT, 2, d, &v));
    NC_OK(nc_def_var_fill(nc, v, NC_NOFILL, NULL));
    NC_OK(nc_enddef(nc));
    for (int i = 0; i < 4; i++) {
        x = 0.5f + (float)i;
        NC_OK(nc_put_var1_float(nc, v, at[i], &x));
    }
    NC_OK(nc_close(nc));
    if (!sparse_enough(path)) {
        unlink(path);
        printf("diff_nc4_storage: no sparse files here; large contiguous case skipped\n");
        return;
    }

    NS_OK(ncs_open(path, NCS_WRITE, &ns));
    NS_OK(ncs_inq_var_chunking(ns, 0, &st, NULL));
    ck_assert_int_eq(st, NCS_CONTIGUOUS);
    for (int i = 0; i < 4; i++) {
        NS_OK(ncs_get1(ns, 0, at[i], NCS_FLOAT, &y));
        ck_assert_msg(y == 0.5f + (float)i, "element %d: %g", i, y);
    }
    {
        /* a run across the 4 GiB offset */
        size_t start[2] = {1023, BIG_COLS - 3}, count[2] = {2, 3};
        float row[6];
        NS_OK(ncs_get(ns, 0, start, count, NULL, NULL, NCS_FLOAT, row));
        ck_assert(row[2] == 1.5f);
        count[0] = 1;
        start[0] = 1024;
        start[1] = 0;
        NS_OK(ncs_get(ns, 0, start, count, NULL, NULL, NCS_FLOAT, row));
        ck_assert(row[0] == 2.5f);
    }
    for (int i = 0; i < 4; i++) {
        size_t p[2] = {at[i][0], at[i][1] ? at[i][1] - 1 : 1};
        x = -10.0f - (float)i;
        NS_OK(ncs_put1(ns, 0, p, NCS_FLOAT, &x));
    }
    NS_OK(ncs_close(ns));
    NC_OK(nc_open(path, NC_NOWRITE, &nc));
    for (int i = 0; i < 4; i++) {
        size_t p[2] = {at[i][0], at[i][1] ? at[i][1] - 1 : 1};
        NC_OK(nc_get_var1_float(nc, 0, p, &y));
        ck_assert_msg(y == -10.0f - (float)i, "netCDF-C reads ncslab's element %d: %g", i, y);
        NC_OK(nc_get_var1_float(nc, 0, at[i], &y));
        ck_assert(y == 0.5f + (float)i);
    }
    NC_OK(nc_close(nc));
    unlink(path);

    /* ncslab's own: contiguous by request, in no-fill mode (or HDF5 would
     * write 5 GiB of fill values at the first write) */
    path_of(path, sizeof path, "large_ncslab");
    NS_OK(ncs_create(path, NCS_CLOBBER | NCS_NETCDF4 | NCS_CLASSIC_MODEL, &ns));
    NS_OK(ncs_set_fill(ns, NCS_NOFILL, NULL));
    NS_OK(ncs_def_dim(ns, "x", BIG_ROWS, &d[0]));
    NS_OK(ncs_def_dim(ns, "y", BIG_COLS, &d[1]));
    NS_OK(ncs_def_var(ns, "v", NCS_FLOAT, 2, d, &v));
    NS_OK(ncs_def_var_chunking(ns, v, NCS_CONTIGUOUS, NULL));
    NS_OK(ncs_enddef(ns));
    for (int i = 0; i < 4; i++) {
        x = 7.0f + (float)i;
        NS_OK(ncs_put1(ns, v, at[i], NCS_FLOAT, &x));
    }
    NS_OK(ncs_close(ns));
    ck_assert_msg(sparse_enough(path), "ncslab wrote the unwritten part of a no-fill variable");
    NC_OK(nc_open(path, NC_NOWRITE, &nc));
    NC_OK(nc_inq_var_chunking(nc, 0, &st, NULL));
    ck_assert_int_eq(st, NC_CONTIGUOUS);
    for (int i = 0; i < 4; i++) {
        NC_OK(nc_get_var1_float(nc, 0, at[i], &y));
        ck_assert(y == 7.0f + (float)i);
    }
    NC_OK(nc_close(nc));
    unlink(path);
}
END_TEST

/* ---- main ----------------------------------------------------------------------------- */

static Suite *storage_suite(void)
{
    Suite *s = suite_create("diff_nc4_storage");
    TCase *tc = tcase_create("storage");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_layouts);
    tcase_add_test(tc, test_large_contiguous);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr;
    int nfail;

    setvbuf(stdout, NULL, _IOLBF, 0);     /* test processes fork */
    snprintf(tmpdir, sizeof tmpdir, "diff_nc4_storage.%ld", (long)getpid());
    if (mkdir(tmpdir, 0700) != 0) {
        perror(tmpdir);
        return 99;
    }
    sr = srunner_create(storage_suite());
    srunner_run_all(sr, CK_NORMAL);
    nfail = srunner_ntests_failed(sr);
    srunner_free(sr);
    if (nfail == 0)
        rmdir(tmpdir);
    else
        printf("diff_nc4_storage: files of failed cases kept in %s\n", tmpdir);
    return nfail == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
