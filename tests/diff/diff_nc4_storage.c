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
 *  renames     varids after variables are renamed (data and define mode,
 *              names passed around, in the creating session and reopened)
 *  att_order   attribute order in the file after rewrites of each kind in
 *              each state, on variables and globals
 *  formats     every default format with every format flag (codes, old
 *              default, the format each library reports for each file); a
 *              netCDF-4 file not marked classic-model stays so
 *  enhanced    files with groups, strings, user-defined types, two
 *              unlimited dimensions or one not first are refused with
 *              NCS_ENOTBUILT
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

#include "nc4_common.h"

static char tmpdir[256];

static void path_of(char *out, size_t n, const char *what)
{
    snprintf(out, n, "%s/%s.nc", tmpdir, what);
}

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

/* ---- orders after renames and rewrites -------------------------------------------------
 * A scenario makes the same calls through either library (nc4lib)
 * on its own file; then each file is described by each library: varids,
 * names, every variable's first value, attribute names in order with their
 * type and length.  All four descriptions must be equal. */

/* The codes of a scenario's calls, to compare the two libraries' runs. */
typedef struct run {
    const nc4lib *L;
    int codes[64];
    int n;
} run;

static int rec(run *r, int code)
{
    if (r->n < (int)(sizeof r->codes / sizeof r->codes[0]))
        r->codes[r->n++] = code;
    return code;
}

/* One description line per variable (and one for the globals). */
static void describe_atts(char *out, size_t cap, int nc, int varid, int lib_ns_side)
{
    int natts = 0;
    size_t used = strlen(out);
    if (lib_ns_side)
        ncs_inq_varnatts(nc, varid, &natts);
    else
        nc_inq_varnatts(nc, varid, &natts);
    for (int a = 0; a < natts && used < cap; a++) {
        char name[NC_MAX_NAME + 1] = "";
        int type = 0;
        size_t len = 0;
        if (lib_ns_side) {
            ncs_inq_attname(nc, varid, a, name);
            ncs_inq_att(nc, varid, name, &type, &len);
        } else {
            nc_inq_attname(nc, varid, a, name);
            nc_inq_att(nc, varid, name, &type, &len);
        }
        used += (size_t)snprintf(out + used, cap - used, " %s:%d[%zu]", name, type, len);
    }
}

static void describe_open(int nc, int lib_ns_side, char *out, size_t cap)
{
    int nvars = 0;
    size_t used;
    out[0] = '\0';
    if (lib_ns_side)
        ncs_inq_nvars(nc, &nvars);
    else
        nc_inq_nvars(nc, &nvars);
    for (int v = 0; v < nvars; v++) {
        char name[NC_MAX_NAME + 1] = "";
        int first = -1;
        size_t zero[1] = {0};
        if (lib_ns_side) {
            ncs_inq_varname(nc, v, name);
            ncs_get1(nc, v, zero, NCS_INT, &first);
        } else {
            nc_inq_varname(nc, v, name);
            nc_get_var1_int(nc, v, zero, &first);
        }
        used = strlen(out);
        snprintf(out + used, cap - used, "var %d %s = %d:", v, name, first);
        describe_atts(out, cap, nc, v, lib_ns_side);
        used = strlen(out);
        snprintf(out + used, cap - used, "\n");
    }
    used = strlen(out);
    snprintf(out + used, cap - used, "global:");
    describe_atts(out, cap, nc, NC_GLOBAL, lib_ns_side);
}

static void describe(const char *path, int lib_ns_side, char *out, size_t cap)
{
    int nc, s = lib_ns_side ? ncs_open(path, NCS_NOWRITE, &nc) : nc_open(path, NC_NOWRITE, &nc);
    if (s != 0) {
        snprintf(out, cap, "open: %d", s);
        return;
    }
    describe_open(nc, lib_ns_side, out, cap);
    if (lib_ns_side)
        ncs_close(nc);
    else
        nc_close(nc);
}

/* A scenario's calls, through r's library; returns the file, still open. */
typedef int (*scenario_fn)(run *r, const char *path, int arg);

/* Runs a scenario through both libraries, case arg_nc through netCDF-C
 * and arg_ns through ncslab: equal codes (or, for different cases, every
 * ncslab call succeeding), equal views of the open files, and each file
 * read the same by both libraries after close. */
static void run_scenario(const char *what, scenario_fn fn, int arg_nc, int arg_ns)
{
    char path[2][512], live[2][4096], desc[4][4096];
    static const char *const reader[4] = {"netCDF-C reading netCDF-C's file",
                                          "netCDF-C reading ncslab's file",
                                          "ncslab reading ncslab's file",
                                          "ncslab reading netCDF-C's file"};
    run runs[2] = {{&nc4_netcdf, {0}, 0}, {&nc4_ncslab, {0}, 0}};
    for (int l = 0; l < 2; l++) {
        int nc;
        snprintf(path[l], sizeof path[l], "%s/%s_%d_%s.nc", tmpdir, what, l ? arg_ns : arg_nc,
                 l ? "ncslab" : "netcdf");
        nc = fn(&runs[l], path[l], l ? arg_ns : arg_nc);
        describe_open(nc, l, live[l], sizeof live[l]);
        rec(&runs[l], runs[l].L->close(nc));
    }
    if (arg_nc == arg_ns) {
        ck_assert_msg(runs[0].n == runs[1].n, "%s %d: call counts", what, arg_ns);
        for (int i = 0; i < runs[0].n; i++)
            ck_assert_msg(runs[0].codes[i] == runs[1].codes[i],
                          "%s %d: call %d: netCDF-C %d, ncslab %d", what, arg_ns, i,
                          runs[0].codes[i], runs[1].codes[i]);
    } else {
        for (int i = 0; i < runs[1].n; i++)
            ck_assert_msg(runs[1].codes[i] == 0, "%s %d: call %d: ncslab %d", what, arg_ns, i,
                          runs[1].codes[i]);
    }
    ck_assert_msg(strcmp(live[0], live[1]) == 0, "%s %d: open files differ:\n%s\n--\n%s", what,
                  arg_ns, live[0], live[1]);
    for (int k = 0; k < 4; k++)
        describe(k == 0 || k == 3 ? path[0] : path[1], k >= 2, desc[k], sizeof desc[k]);
    for (int k = 1; k < 4; k++)
        ck_assert_msg(strcmp(desc[0], desc[k]) == 0, "%s %d: %s:\n%s\n%s:\n%s", what, arg_ns,
                      reader[0], desc[0], reader[k], desc[k]);
    unlink(path[0]);
    unlink(path[1]);
}

/* Four variables (values 10, 20, 30, 40; the third the coordinate
 * variable of its dimension) written; then, with reopen, closed and
 * opened for writing. */
static int four_vars(run *r, const char *path, int reopen)
{
    const nc4lib *L = r->L;
    static const char *const names[4] = {"aa", "bb", "x", "dd"};
    int nc, d, v;
    rec(r, L->create(path, NC_CLOBBER | NC4, &nc));
    rec(r, L->def_dim(nc, "x", 3, &d));
    for (int i = 0; i < 4; i++)
        rec(r, L->def_var(nc, names[i], NC_INT, 1, &d, &v));
    rec(r, L->enddef(nc));
    for (int i = 0; i < 4; i++) {
        int vals[3] = {10 * (i + 1), 1, 2};
        rec(r, L->put_var_int(nc, i, vals));
    }
    if (reopen) {
        rec(r, L->close(nc));
        rec(r, L->open(path, NC_WRITE, &nc));
    }
    return nc;
}

/* Renames of variables: in data mode (names no longer), in define mode,
 * with names passed around among them, with a sync between; cases 5.. as
 * 0.. in a file reopened for them. */
#define NRENAMES 5
static int renames(run *r, const char *path, int k)
{
    const nc4lib *L = r->L;
    int nc = four_vars(r, path, k >= NRENAMES);
    switch (k % NRENAMES) {
    case 0:
        rec(r, L->rename_var(nc, 0, "a"));
        break;
    case 1:
        rec(r, L->rename_var(nc, 3, "d"));
        rec(r, L->rename_var(nc, 1, "b"));
        break;
    case 2:
        rec(r, L->redef(nc));
        rec(r, L->rename_var(nc, 1, "longer"));
        rec(r, L->enddef(nc));
        break;
    case 3:
        rec(r, L->redef(nc));
        rec(r, L->rename_var(nc, 0, "t"));
        rec(r, L->rename_var(nc, 3, "aa"));
        rec(r, L->rename_var(nc, 0, "dd"));
        break;
    default:
        rec(r, L->rename_var(nc, 1, "b"));
        rec(r, L->sync(nc));
        rec(r, L->rename_var(nc, 0, "a"));
        break;
    }
    return nc;
}

START_TEST(test_renames)
{
    /* netCDF-C 4.9 damages the later variables' dimension lists when it
     * renames a variable of a reopened file (doc/chunking.md): there, its
     * file of the same calls without the reopen is the reference */
    run_scenario("rename", renames, _i % NRENAMES, _i);
}
END_TEST

/* Attributes a (int[2]), b (short), c (text[3]), d (int) on a variable or
 * the globals, then one change (op) in one state (mode): define mode of
 * the creating session, data mode after enddef, define mode after redef,
 * and the last two in a reopened file. */
#define NATT_OPS 10
#define NATT_MODES 5
static int att_order(run *r, const char *path, int k)
{
    const nc4lib *L = r->L;
    int op = k % NATT_OPS, mode = k / NATT_OPS % NATT_MODES, global = k / (NATT_OPS * NATT_MODES);
    int nc, d, v, id;
    const int two[2] = {1, 2}, other[2] = {3, 4}, one = 5, three[3] = {8, 9, 10};
    const short sh[2] = {6, 7};
    rec(r, L->create(path, NC_CLOBBER | NC4, &nc));
    rec(r, L->def_dim(nc, "x", 3, &d));
    rec(r, L->def_var(nc, "v", NC_INT, 1, &d, &v));
    id = global ? NC_GLOBAL : v;
    rec(r, L->put_att(nc, id, "a", NC_INT, 2, two));
    rec(r, L->put_att(nc, id, "b", NC_SHORT, 1, sh));
    rec(r, L->put_att(nc, id, "c", NC_CHAR, 3, "xyz"));
    rec(r, L->put_att(nc, id, "d", NC_INT, 1, &one));
    if (mode > 0)
        rec(r, L->enddef(nc));
    if (mode >= 3) {
        rec(r, L->close(nc));
        rec(r, L->open(path, NC_WRITE, &nc));
    }
    if (mode == 2 || mode == 4)
        rec(r, L->redef(nc));
    switch (op) {
    case 0: rec(r, L->put_att(nc, id, "a", NC_INT, 2, other)); break;
    case 1: rec(r, L->put_att(nc, id, "a", NC_INT, 1, other)); break;
    case 2: rec(r, L->put_att(nc, id, "a", NC_INT, 3, three)); break;
    case 3: rec(r, L->put_att(nc, id, "a", NC_SHORT, 2, sh)); break;
    case 4: rec(r, L->rename_att(nc, id, "a", "z")); break;
    case 5:
        rec(r, L->del_att(nc, id, "a"));
        rec(r, L->put_att(nc, id, "a", NC_INT, 2, other));
        break;
    case 6: rec(r, L->put_att(nc, id, "c", NC_CHAR, 3, "abc")); break;
    case 7: rec(r, L->put_att(nc, id, "c", NC_CHAR, 2, "ab")); break;
    case 8:
        rec(r, L->put_att(nc, id, "c", NC_CHAR, 2, "ab"));
        rec(r, L->put_att(nc, id, "a", NC_SHORT, 2, sh));
        break;
    default:
        rec(r, L->rename_att(nc, id, "a", "t"));
        rec(r, L->rename_att(nc, id, "b", "a"));
        break;
    }
    if (mode == 1 || mode == 3) {
        /* and a same-length rewrite after a sync: stays where it is */
        rec(r, L->sync(nc));
        rec(r, L->put_att(nc, id, "d", NC_INT, 1, two));
    }
    return nc;
}

START_TEST(test_att_order)
{
    run_scenario("att_order", att_order, _i, _i);
}
END_TEST

/* ---- formats ---------------------------------------------------------------------------- */

/* Every default format with every format flag: the codes, the old default
 * and the format of the file made, through both libraries; each library
 * reads the other's file as the same format. */
START_TEST(test_formats)
{
    static const int cmodes[] = {0, NC_CLASSIC_MODEL, NC_NETCDF4, NC4, NC_64BIT_OFFSET,
                                 NC_64BIT_DATA, NC_64BIT_OFFSET | NC_CLASSIC_MODEL};
    char path[2][512];
    int old[2], rc[2];
    for (int def = -1; def <= 6; def++) {
        old[0] = old[1] = -5;
        rc[0] = nc_set_default_format(def, &old[0]);
        rc[1] = ncs_set_default_format(def, &old[1]);
        ck_assert_msg(rc[0] == rc[1] && old[0] == old[1],
                      "set_default_format(%d): netCDF-C %d old %d, ncslab %d old %d", def, rc[0],
                      old[0], rc[1], old[1]);
        if (rc[0] != 0)
            continue;
        for (int c = 0; c < (int)(sizeof cmodes / sizeof cmodes[0]); c++) {
            int nc, ns, fmt[4] = {-1, -2, -3, -4};
            path_of(path[0], sizeof path[0], "format_netcdf");
            path_of(path[1], sizeof path[1], "format_ncslab");
            NC_OK(nc_create(path[0], NC_CLOBBER | cmodes[c], &nc));
            NS_OK(ncs_create(path[1], NCS_CLOBBER | cmodes[c], &ns));
            NC_OK(nc_inq_format(nc, &fmt[0]));
            NS_OK(ncs_inq_format(ns, &fmt[1]));
            NC_OK(nc_close(nc));
            NS_OK(ncs_close(ns));
            NC_OK(nc_open(path[1], NC_NOWRITE, &nc));
            NC_OK(nc_inq_format(nc, &fmt[2]));
            NC_OK(nc_close(nc));
            NS_OK(ncs_open(path[0], NCS_NOWRITE, &ns));
            NS_OK(ncs_inq_format(ns, &fmt[3]));
            NS_OK(ncs_close(ns));
            ck_assert_msg(fmt[0] == fmt[1] && fmt[0] == fmt[2] && fmt[0] == fmt[3],
                          "default %d, cmode %#x: netCDF-C's file %d, ncslab's %d; netCDF-C "
                          "reads ncslab's as %d, ncslab netCDF-C's as %d",
                          def, cmodes[c], fmt[0], fmt[1], fmt[2], fmt[3]);
            unlink(path[0]);
            unlink(path[1]);
        }
    }
    nc_set_default_format(NC_FORMAT_CLASSIC, NULL);
    ncs_set_default_format(NCS_FORMAT_CLASSIC, NULL);
}
END_TEST

/* A netCDF-4 file not marked classic-model stays so when ncslab changes it. */
START_TEST(test_format_kept)
{
    char path[512];
    int nc, ns, d, v, fmt = -1, one = 1;
    path_of(path, sizeof path, "format_kept");
    NC_OK(nc_create(path, NC_CLOBBER | NC_NETCDF4, &nc));
    NC_OK(nc_def_dim(nc, "x", 2, &d));
    NC_OK(nc_def_var(nc, "v", NC_INT, 1, &d, &v));
    NC_OK(nc_close(nc));
    NS_OK(ncs_open(path, NCS_WRITE, &ns));
    NS_OK(ncs_redef(ns));
    NS_OK(ncs_put_att(ns, NCS_GLOBAL, "added", NCS_INT, 1, NCS_INT, &one));
    NS_OK(ncs_def_var(ns, "w", NCS_INT, 1, &d, &v));
    NS_OK(ncs_close(ns));
    NC_OK(nc_open(path, NC_NOWRITE, &nc));
    NC_OK(nc_inq_format(nc, &fmt));
    ck_assert_int_eq(fmt, NC_FORMAT_NETCDF4);
    NC_OK(nc_close(nc));
    NS_OK(ncs_open(path, NCS_NOWRITE, &ns));
    NS_OK(ncs_inq_format(ns, &fmt));
    ck_assert_int_eq(fmt, NCS_FORMAT_NETCDF4);
    NS_OK(ncs_close(ns));
    unlink(path);
}
END_TEST

/* ---- the enhanced model ----------------------------------------------------------------- */

/* netCDF-C's files using netCDF-4 features outside the classic model are
 * refused with NCS_ENOTBUILT (a valid file this library cannot represent),
 * not NCS_ENOTNC (which says the file is broken). */
START_TEST(test_enhanced)
{
    static const char *const what[] = {"group", "string variable", "string attribute",
                                       "compound type", "enum type", "vlen type", "opaque type",
                                       "two unlimited dimensions",
                                       "a second, unused unlimited dimension",
                                       "the unlimited dimension not first"};
    char path[512];
    int nc, ns, d, v, g, t, s;
    path_of(path, sizeof path, "enhanced");
    NC_OK(nc_create(path, NC_CLOBBER | NC_NETCDF4, &nc));
    NC_OK(nc_def_dim(nc, "x", 2, &d));
    switch (_i) {
    case 0:
        NC_OK(nc_def_grp(nc, "sub", &g));
        NC_OK(nc_def_var(g, "v", NC_INT, 1, &d, &v));
        break;
    case 1:
        NC_OK(nc_def_var(nc, "v", NC_STRING, 1, &d, &v));
        break;
    case 2: {
        const char *text[1] = {"a string"};
        NC_OK(nc_def_var(nc, "v", NC_INT, 1, &d, &v));
        NC_OK(nc_put_att_string(nc, v, "s", 1, text));
        break;
    }
    case 3:
        NC_OK(nc_def_compound(nc, sizeof(int), "pair", &t));
        NC_OK(nc_insert_compound(nc, t, "i", 0, NC_INT));
        NC_OK(nc_def_var(nc, "v", t, 1, &d, &v));
        break;
    case 4: {
        int zero = 0;
        NC_OK(nc_def_enum(nc, NC_INT, "colour", &t));
        NC_OK(nc_insert_enum(nc, t, "red", &zero));
        NC_OK(nc_def_var(nc, "v", t, 1, &d, &v));
        break;
    }
    case 5:
        NC_OK(nc_def_vlen(nc, "ragged", NC_INT, &t));
        NC_OK(nc_def_var(nc, "v", t, 1, &d, &v));
        break;
    case 7:
    case 8: {
        int dims[2];
        NC_OK(nc_def_dim(nc, "t", NC_UNLIMITED, &dims[0]));
        NC_OK(nc_def_dim(nc, "u", NC_UNLIMITED, &dims[1]));
        NC_OK(nc_def_var(nc, "v", NC_INT, _i == 7 ? 2 : 1, dims, &v));
        break;
    }
    case 9: {
        int dims[2] = {d, -1};
        NC_OK(nc_def_dim(nc, "t", NC_UNLIMITED, &dims[1]));
        NC_OK(nc_def_var(nc, "v", NC_INT, 2, dims, &v));
        break;
    }
    case 6:
        NC_OK(nc_def_opaque(nc, 4, "blob", &t));
        NC_OK(nc_def_var(nc, "v", t, 1, &d, &v));
        break;
    }
    NC_OK(nc_close(nc));
    s = ncs_open(path, NCS_NOWRITE, &ns);
    if (s == NCS_NOERR)
        ncs_close(ns);
    ck_assert_msg(s == NCS_ENOTBUILT, "%s: ncs_open -> %d (%s), expected NCS_ENOTBUILT", what[_i],
                  s, ncs_strerror(s));
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
    tcase_add_loop_test(tc, test_renames, 0, 2 * NRENAMES);
    tcase_add_loop_test(tc, test_att_order, 0, 2 * NATT_OPS * NATT_MODES);
    tcase_add_test(tc, test_formats);
    tcase_add_test(tc, test_format_kept);
    tcase_add_loop_test(tc, test_enhanced, 0, 10);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);     /* test processes fork */
    if (nc4_make_tmpdir(tmpdir, sizeof tmpdir, "diff_nc4_storage") != 0)
        return 99;
    return nc4_run_suite(storage_suite(), "diff_nc4_storage", tmpdir, NULL);
}
