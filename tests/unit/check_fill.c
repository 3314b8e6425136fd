/*
 * check_fill.c -- records, zero counts and fill values.
 *
 * Covers: ncs_set_fill return values; zero counts (success, nothing
 * transferred, start may equal the length); reading past the number of
 * records, with the codes netCDF-C 4.9.0 returns (they differ between
 * writable and read-only files, and between the strided and unstrided
 * paths); writing past the last record, which adds records and fills the
 * skipped ones with the default fill or the _FillValue attribute; nofill
 * mode; _FillValue of the wrong type or length; ncs_sync re-reading the
 * record count of a read-only file.  The fill and nofill sequences are also
 * run through netCDF-C and the files compared byte for byte.
 */
#include "testutil.h"

#define PROG "fill"

/* A per-type _FillValue that is not the default (char: 'F'). */
static long long custom_fill(int t)
{
    return t == NCS_CHAR ? 'F' : 11 + t;
}

START_TEST(test_set_fill)
{
    char path[256];
    int ncid, old = -1, x, v;
    tu_path(path, sizeof path, PROG, "setfill");
    NCS_OK(ncs_create(path, NCS_CLOBBER, &ncid));
    NCS_OK(ncs_set_fill(ncid, NCS_NOFILL, &old));
    ck_assert_int_eq(old, NCS_FILL);
    NCS_OK(ncs_set_fill(ncid, NCS_NOFILL, &old));
    ck_assert_int_eq(old, NCS_NOFILL);
    NCS_OK(ncs_set_fill(ncid, NCS_FILL, &old));
    ck_assert_int_eq(old, NCS_NOFILL);
    old = -1;
    NCS_IS(ncs_set_fill(ncid, 5, &old), NCS_EINVAL);
    NCS_IS(ncs_set_fill(ncid, -1, &old), NCS_EINVAL);
    NCS_OK(ncs_set_fill(ncid, NCS_FILL, NULL));
    NCS_IS(ncs_set_fill(ncid + 1000, NCS_FILL, &old), NCS_EBADID);
    NCS_OK(ncs_def_dim(ncid, "x", 2, &x));
    NCS_OK(ncs_def_var(ncid, "v", NCS_INT, 1, &x, &v));
    NCS_OK(ncs_enddef(ncid));
    /* allowed in data mode too */
    NCS_OK(ncs_set_fill(ncid, NCS_NOFILL, &old));
    ck_assert_int_eq(old, NCS_FILL);
    NCS_OK(ncs_set_fill(ncid, NCS_FILL, &old));
    ck_assert_int_eq(old, NCS_NOFILL);
    NCS_OK(ncs_close(ncid));
    NCS_OK(ncs_open(path, NCS_NOWRITE, &ncid));
    NCS_IS(ncs_set_fill(ncid, NCS_NOFILL, &old), NCS_EPERM);
    NCS_OK(ncs_close(ncid));
    NCS_OK(ncs_open(path, NCS_WRITE, &ncid));
    NCS_OK(ncs_set_fill(ncid, NCS_NOFILL, &old));
    ck_assert_int_eq(old, NCS_FILL);  /* the mode is not stored in the file */
    NCS_OK(ncs_close(ncid));
    unlink(path);
}
END_TEST

/* A file with record variable r(t, x=3) int holding nrec records of
 * 100*rec + x, and fixed v(x). */
static void make_rec_file(const char *path, size_t nrec, int *ncidp, int *rp,
                          int *vp)
{
    int dims[2], ncid;
    size_t r, st[2] = {0, 0}, ct[2] = {1, 3};
    NCS_OK(ncs_create(path, NCS_CLOBBER, &ncid));
    NCS_OK(ncs_def_dim(ncid, "t", NCS_UNLIMITED, &dims[0]));
    NCS_OK(ncs_def_dim(ncid, "x", 3, &dims[1]));
    NCS_OK(ncs_def_var(ncid, "r", NCS_INT, 2, dims, rp));
    NCS_OK(ncs_def_var(ncid, "v", NCS_INT, 1, &dims[1], vp));
    NCS_OK(ncs_enddef(ncid));
    for (r = 0; r < nrec; r++) {
        int b[3] = {(int)(100 * r), (int)(100 * r + 1), (int)(100 * r + 2)};
        st[0] = r;
        NCS_OK(ncs_put(ncid, *rp, st, ct, NULL, NULL, NCS_INT, b));
    }
    *ncidp = ncid;
}

/* The codes for reads at and past numrecs, as netCDF-C 4.9.0 gives them. */
static void probe_past(int ncid, int r, int readonly)
{
    size_t n, st[2], ct[2];
    ptrdiff_t sd[2] = {2, 1}, im[2] = {1, 1};
    int b[16];
    int past = readonly ? NCS_EINVALCOORDS : NCS_EEDGE;
    NCS_OK(ncs_inq_dimlen(ncid, 0, &n));
    ck_assert_uint_eq(n, 2);
    st[1] = 0;
    ct[1] = 1;
    st[0] = n; ct[0] = 1;       /* first record past the end */
    NCS_IS(ncs_get(ncid, r, st, ct, NULL, NULL, NCS_INT, b), past);
    st[0] = n + 1; ct[0] = 1;
    NCS_IS(ncs_get(ncid, r, st, ct, NULL, NULL, NCS_INT, b), past);
    st[0] = n; ct[0] = 0;       /* zero count at numrecs: fine */
    b[0] = 12345;
    NCS_OK(ncs_get(ncid, r, st, ct, NULL, NULL, NCS_INT, b));
    ck_assert_int_eq(b[0], 12345);
    st[0] = n + 1; ct[0] = 0;   /* zero count past numrecs */
    NCS_IS(ncs_get(ncid, r, st, ct, NULL, NULL, NCS_INT, b), past);
    st[0] = n - 1; ct[0] = 2;   /* starts inside, runs past */
    NCS_IS(ncs_get(ncid, r, st, ct, NULL, NULL, NCS_INT, b), NCS_EEDGE);
    st[0] = n;
    NCS_IS(ncs_get1(ncid, r, st, NCS_INT, b), past);
    st[0] = n + 1;
    NCS_IS(ncs_get1(ncid, r, st, NCS_INT, b), past);
    /* the strided path checks against numrecs in both modes */
    st[0] = n - 1; ct[0] = 2;
    NCS_IS(ncs_get(ncid, r, st, ct, sd, NULL, NCS_INT, b), NCS_EEDGE);
    st[0] = n; ct[0] = 1;
    NCS_IS(ncs_get(ncid, r, st, ct, sd, NULL, NCS_INT, b), NCS_EINVALCOORDS);
    NCS_IS(ncs_get(ncid, r, st, ct, sd, im, NCS_INT, b), NCS_EINVALCOORDS);
    /* NULL count reads exactly numrecs records */
    memset(b, 0, sizeof b);
    NCS_OK(ncs_get(ncid, r, NULL, NULL, NULL, NULL, NCS_INT, b));
    ck_assert_int_eq(b[0], 0);
    ck_assert_int_eq(b[5], 102);
}

START_TEST(test_read_past_numrecs)
{
    char path[256];
    int ncid, r, v;
    tu_path(path, sizeof path, PROG, "pastrecs");
    make_rec_file(path, 2, &ncid, &r, &v);
    probe_past(ncid, r, 0);
    NCS_OK(ncs_close(ncid));
    NCS_OK(ncs_open(path, NCS_NOWRITE, &ncid));
    probe_past(ncid, r, 1);
    NCS_OK(ncs_close(ncid));
    NCS_OK(ncs_open(path, NCS_WRITE, &ncid));
    probe_past(ncid, r, 0);
    NCS_OK(ncs_close(ncid));
    unlink(path);
}
END_TEST

START_TEST(test_zero_counts)
{
    char path[256];
    int ncid, r, v, b[4] = {7, 7, 7, 7};
    size_t st[2] = {2, 3}, ct[2] = {0, 0}, n;
    ptrdiff_t sd[2] = {4, 9};
    tu_path(path, sizeof path, PROG, "zero");
    make_rec_file(path, 2, &ncid, &r, &v);
    /* start may equal the length of every dimension; buffer untouched;
     * a NULL buffer is fine for an empty request */
    NCS_OK(ncs_get(ncid, r, st, ct, NULL, NULL, NCS_INT, b));
    NCS_OK(ncs_get(ncid, r, st, ct, sd, NULL, NCS_INT, b));
    NCS_OK(ncs_get(ncid, r, st, ct, NULL, NULL, NCS_INT, NULL));
    NCS_OK(ncs_put(ncid, r, st, ct, NULL, NULL, NCS_INT, b));
    NCS_OK(ncs_put(ncid, r, st, ct, NULL, NULL, NCS_INT, NULL));
    NCS_OK(ncs_put(ncid, r, st, ct, sd, NULL, NCS_DOUBLE, NULL));
    ct[0] = 1;                        /* one zero count is enough */
    st[0] = 0;
    NCS_OK(ncs_get(ncid, r, st, ct, NULL, NULL, NCS_INT, b));
    ck_assert(b[0] == 7 && b[1] == 7 && b[2] == 7 && b[3] == 7);
    ct[1] = 0;
    st[1] = 4;
    NCS_IS(ncs_put(ncid, v, st + 1, ct + 1, NULL, NULL, NCS_INT, b),
           NCS_EINVALCOORDS);
    st[1] = 3;
    NCS_OK(ncs_put(ncid, v, st + 1, ct + 1, NULL, NULL, NCS_INT, b));
    NCS_OK(ncs_get(ncid, v, st + 1, ct + 1, NULL, NULL, NCS_INT, b));
    ck_assert(b[0] == 7 && b[1] == 7 && b[2] == 7 && b[3] == 7);
    NCS_OK(ncs_inq_dimlen(ncid, 0, &n));
    ck_assert_uint_eq(n, 2);
    NCS_OK(ncs_close(ncid));
    unlink(path);
}
END_TEST

/* The fill sequence: record and fixed variables of every type of the format,
 * half with a _FillValue; one record written past the end twice. */
typedef struct fill_layout {
    int ncid;
    int nvars;
    int rec[12], fix[12], rec_att[12], fix_att[12];
    int w;                       /* the variable that is written */
} fill_layout;

static void fill_define(const tu_api *api, const tu_format *f,
                        const char *path, int nofill, fill_layout *L)
{
    int t, dims[2];
    char name[32];
    TU_API_OK(api, api->create(path, NCS_CLOBBER | f->cmode, &L->ncid));
    if (nofill)
        TU_API_OK(api, api->set_fill(L->ncid, NCS_NOFILL, NULL));
    TU_API_OK(api, api->def_dim(L->ncid, "t", NCS_UNLIMITED, &dims[0]));
    TU_API_OK(api, api->def_dim(L->ncid, "x", 3, &dims[1]));
    for (t = NCS_BYTE; t <= tu_last_type(f); t++) {
        unsigned char fv[8];
        tu_store(t, fv, 0, custom_fill(t));
        snprintf(name, sizeof name, "r_%s", tu_type_name(t));
        TU_API_OK(api, api->def_var(L->ncid, name, t, 2, dims, &L->rec[t]));
        snprintf(name, sizeof name, "ra_%s", tu_type_name(t));
        TU_API_OK(api, api->def_var(L->ncid, name, t, 2, dims, &L->rec_att[t]));
        TU_API_OK(api, api->put_att(L->ncid, L->rec_att[t], "_FillValue", t, 1, fv));
        snprintf(name, sizeof name, "f_%s", tu_type_name(t));
        TU_API_OK(api, api->def_var(L->ncid, name, t, 1, &dims[1], &L->fix[t]));
        snprintf(name, sizeof name, "fa_%s", tu_type_name(t));
        TU_API_OK(api, api->def_var(L->ncid, name, t, 1, &dims[1], &L->fix_att[t]));
        TU_API_OK(api, api->put_att(L->ncid, L->fix_att[t], "_FillValue", t, 1, fv));
    }
    TU_API_OK(api, api->def_var(L->ncid, "w", NCS_SHORT, 2, dims, &L->w));
    TU_API_OK(api, api->enddef(L->ncid));
}

static void fill_write(const tu_api *api, fill_layout *L, size_t rec)
{
    short b[3] = {(short)(10 * rec), (short)(10 * rec + 1), (short)(10 * rec + 2)};
    size_t st[2] = {rec, 0}, ct[2] = {1, 3};
    TU_API_OK(api, api->put(L->ncid, L->w, st, ct, b));
}

/* Checks every element of a variable of type t holds fill (custom or
 * default) over nrec records (0: fixed of length 3). */
static void expect_filled(int ncid, int varid, int t, size_t nrec, int custom)
{
    unsigned char b[8 * 64];
    size_t i, n = nrec ? 3 * nrec : 3;
    char name[NCS_MAX_NAME + 1];
    NCS_OK(ncs_inq_varname(ncid, varid, name));
    NCS_OK(ncs_get(ncid, varid, NULL, NULL, NULL, NULL, NCS_NAT, b));
    for (i = 0; i < n; i++) {
        if (custom)
            ck_assert_msg(tu_load(t, b, (ptrdiff_t)i) == custom_fill(t),
                          "%s[%zu] = %lld, expected _FillValue %lld", name, i,
                          tu_load(t, b, (ptrdiff_t)i), custom_fill(t));
        else
            ck_assert_msg(tu_is_default_fill(t, b, (ptrdiff_t)i),
                          "%s[%zu] = %lld, expected the default fill", name,
                          i, tu_load(t, b, (ptrdiff_t)i));
    }
}

static void run_fill(const tu_format *f, int nofill)
{
    char path[256], path2[256];
    fill_layout L;
    size_t n;
    int t;
    short wb[3 * 8];
    tu_path(path, sizeof path, PROG, nofill ? "nofill" : "fill");
    fill_define(&tu_ncslab, f, path, nofill, &L);
    if (!nofill)
        for (t = NCS_BYTE; t <= tu_last_type(f); t++) {
            expect_filled(L.ncid, L.fix[t], t, 0, 0);
            expect_filled(L.ncid, L.fix_att[t], t, 0, 1);
        }
    fill_write(&tu_ncslab, &L, 4);
    NCS_OK(ncs_inq_dimlen(L.ncid, 0, &n));
    ck_assert_uint_eq(n, 5);
    if (!nofill)
        for (t = NCS_BYTE; t <= tu_last_type(f); t++) {
            expect_filled(L.ncid, L.rec[t], t, 5, 0);
            expect_filled(L.ncid, L.rec_att[t], t, 5, 1);
        }
    fill_write(&tu_ncslab, &L, 7);
    NCS_OK(ncs_inq_dimlen(L.ncid, 0, &n));
    ck_assert_uint_eq(n, 8);
    NCS_OK(ncs_get(L.ncid, L.w, NULL, NULL, NULL, NULL, NCS_SHORT, wb));
    ck_assert_int_eq(wb[12], 40);
    ck_assert_int_eq(wb[14], 42);
    ck_assert_int_eq(wb[21], 70);
    ck_assert_int_eq(wb[23], 72);
    if (!nofill) {
        int r;
        for (r = 0; r < 8; r++)
            if (r != 4 && r != 7)
                ck_assert_msg(wb[3 * r] == NCS_FILL_SHORT &&
                              wb[3 * r + 2] == NCS_FILL_SHORT,
                              "record %d of w not filled", r);
    }
    NCS_OK(ncs_close(L.ncid));
    /* after a reopen, numrecs and the fill are still there */
    NCS_OK(ncs_open(path, NCS_NOWRITE, &L.ncid));
    NCS_OK(ncs_inq_dimlen(L.ncid, 0, &n));
    ck_assert_uint_eq(n, 8);
    if (!nofill)
        for (t = NCS_BYTE; t <= tu_last_type(f); t++) {
            expect_filled(L.ncid, L.rec[t], t, 8, 0);
            expect_filled(L.ncid, L.rec_att[t], t, 8, 1);
            expect_filled(L.ncid, L.fix_att[t], t, 0, 1);
        }
    NCS_OK(ncs_close(L.ncid));
#ifdef HAVE_NETCDF
    tu_path(path2, sizeof path2, PROG, nofill ? "nofill_nc" : "fill_nc");
    fill_define(&tu_netcdf, f, path2, nofill, &L);
    fill_write(&tu_netcdf, &L, 4);
    fill_write(&tu_netcdf, &L, 7);
    TU_API_OK(&tu_netcdf, nc_close(L.ncid));
    tu_same_bytes(path, path2);
    unlink(path2);
#else
    (void)path2;
#endif
    unlink(path);
}

START_TEST(test_fill_past_numrecs)
{
    run_fill(&tu_formats[_i], 0);
}
END_TEST

START_TEST(test_nofill_past_numrecs)
{
    run_fill(&tu_formats[_i], 1);
}
END_TEST

/* A single record variable of bytes: records are not padded to 4 bytes in
 * that case (the classic format's special case). */
START_TEST(test_single_byte_record_var)
{
    char path[256], path2[256];
    const tu_api *apis[2] = {&tu_ncslab, NULL};
    const char *paths[2] = {path, path2};
    int a, ncid, t, v, x;
    signed char b[5] = {1, 2, 3, 4, 5}, g[15];
    size_t st[2] = {2, 0}, ct[2] = {1, 5};
#ifdef HAVE_NETCDF
    apis[1] = &tu_netcdf;
#endif
    tu_path(path, sizeof path, PROG, "onebyte");
    tu_path(path2, sizeof path2, PROG, "onebyte_nc");
    for (a = 0; a < 2 && apis[a]; a++) {
        const tu_api *api = apis[a];
        int d2[2];
        TU_API_OK(api, api->create(paths[a], NCS_CLOBBER, &ncid));
        TU_API_OK(api, api->def_dim(ncid, "t", NCS_UNLIMITED, &t));
        TU_API_OK(api, api->def_dim(ncid, "x", 5, &x));
        d2[0] = t;
        d2[1] = x;
        TU_API_OK(api, api->def_var(ncid, "b", NCS_BYTE, 2, d2, &v));
        TU_API_OK(api, api->enddef(ncid));
        TU_API_OK(api, api->put(ncid, v, st, ct, b));
        TU_API_OK(api, api->close(ncid));
    }
    NCS_OK(ncs_open(path, NCS_NOWRITE, &ncid));
    NCS_OK(ncs_get(ncid, v, NULL, NULL, NULL, NULL, NCS_BYTE, g));
    ck_assert_int_eq(g[0], NCS_FILL_BYTE);
    ck_assert_int_eq(g[9], NCS_FILL_BYTE);
    ck_assert_int_eq(g[10], 1);
    ck_assert_int_eq(g[14], 5);
    NCS_OK(ncs_close(ncid));
    if (apis[1]) {
        tu_same_bytes(path, path2);
        unlink(path2);
    }
    unlink(path);
}
END_TEST

/* _FillValue must have the variable's type and length 1: enddef says
 * NCS_EBADTYPE and stays in define mode. */
START_TEST(test_bad_fillvalue)
{
    char path[256];
    int ncid, x, v, i = 7;
    short s2[2] = {1, 2}, s = 9, got[3];
    tu_path(path, sizeof path, PROG, "badfill");
    NCS_OK(ncs_create(path, NCS_CLOBBER, &ncid));
    NCS_OK(ncs_def_dim(ncid, "x", 3, &x));
    NCS_OK(ncs_def_var(ncid, "v", NCS_SHORT, 1, &x, &v));
    NCS_OK(ncs_put_att(ncid, v, "_FillValue", NCS_INT, 1, NCS_INT, &i));
    NCS_IS(ncs_enddef(ncid), NCS_EBADTYPE);
    NCS_IS(ncs_redef(ncid), NCS_EINDEFINE);      /* still in define mode */
    NCS_OK(ncs_put_att(ncid, v, "_FillValue", NCS_SHORT, 2, NCS_SHORT, s2));
    NCS_IS(ncs_enddef(ncid), NCS_EBADTYPE);
    NCS_OK(ncs_put_att(ncid, v, "_FillValue", NCS_SHORT, 0, NCS_SHORT, NULL));
    NCS_IS(ncs_enddef(ncid), NCS_EBADTYPE);
    NCS_OK(ncs_put_att(ncid, v, "_FillValue", NCS_SHORT, 1, NCS_SHORT, &s));
    NCS_OK(ncs_enddef(ncid));
    NCS_OK(ncs_get(ncid, v, NULL, NULL, NULL, NULL, NCS_SHORT, got));
    ck_assert(got[0] == 9 && got[1] == 9 && got[2] == 9);
    NCS_OK(ncs_close(ncid));
    unlink(path);
}
END_TEST

/* A read-only handle sees records added through another handle after
 * ncs_sync. */
START_TEST(test_sync_numrecs)
{
    char path[256];
    int w, r, rv, v, b[3] = {1, 2, 3};
    size_t n, st[2] = {0, 0}, ct[2] = {1, 3};
    tu_path(path, sizeof path, PROG, "sync");
    make_rec_file(path, 1, &w, &rv, &v);
    NCS_OK(ncs_sync(w));
    NCS_OK(ncs_open(path, NCS_NOWRITE, &r));
    NCS_OK(ncs_inq_dimlen(r, 0, &n));
    ck_assert_uint_eq(n, 1);
    st[0] = 3;
    NCS_OK(ncs_put(w, rv, st, ct, NULL, NULL, NCS_INT, b));
    NCS_OK(ncs_sync(w));
    NCS_OK(ncs_sync(r));
    NCS_OK(ncs_inq_dimlen(r, 0, &n));
    ck_assert_uint_eq(n, 4);
    memset(b, 0, sizeof b);
    NCS_OK(ncs_get(r, rv, st, ct, NULL, NULL, NCS_INT, b));
    ck_assert(b[0] == 1 && b[1] == 2 && b[2] == 3);
    NCS_OK(ncs_close(r));
    NCS_OK(ncs_close(w));
    unlink(path);
}
END_TEST

static Suite *fill_suite(void)
{
    Suite *s = suite_create("fill");
    TCase *tc = tcase_create("records");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_set_fill);
    tcase_add_test(tc, test_read_past_numrecs);
    tcase_add_test(tc, test_zero_counts);
    tcase_add_loop_test(tc, test_fill_past_numrecs, 0, TU_NFORMATS);
    tcase_add_loop_test(tc, test_nofill_past_numrecs, 0, TU_NFORMATS);
    tcase_add_test(tc, test_single_byte_record_var);
    tcase_add_test(tc, test_bad_fillvalue);
    tcase_add_test(tc, test_sync_numrecs);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return tu_run(fill_suite());
}
