/*
 * check_redef.c -- redefinition of a file that already holds data.
 *
 * A file with fixed and record data is reopened for definition, given new
 * dimensions, variables (fixed and record), attributes and longer names,
 * and closed again; every old value must be intact at its new offset and
 * every new variable filled.  Each sequence runs with ncs_enddef and with
 * ncs__enddef alignment arguments (h_minfree, v_align, v_minfree, r_align),
 * and, when netCDF-C is available, the same calls through nc_enddef /
 * nc__enddef must give a byte-identical file.  ncs_abort after ncs_redef
 * must leave the file as it was.
 */
#include "testutil.h"

#define PROG "redef"

typedef struct align {
    int custom;                  /* 0: ncs_enddef */
    size_t h_minfree, v_align, v_minfree, r_align;
} align;

typedef struct redef_case {
    const char *name;
    align first, second;
    int reopen;                  /* close and reopen between the phases */
} redef_case;

static const redef_case cases[] = {
    {"default", {0, 0, 0, 0, 0}, {0, 0, 0, 0, 0}, 0},
    {"default reopened", {0, 0, 0, 0, 0}, {0, 0, 0, 0, 0}, 1},
    {"h_minfree room", {1, 2000, 4, 0, 4}, {0, 0, 0, 0, 0}, 1},
    {"v_align r_align", {1, 0, 512, 0, 1024}, {1, 0, 512, 0, 1024}, 0},
    {"v_minfree", {1, 100, 4, 3000, 4}, {1, 0, 8, 64, 4}, 1},
    {"all odd", {1, 37, 100, 13, 200}, {1, 300, 64, 5, 8}, 0},
    {"shrink then grow", {1, 4096, 4096, 4096, 4096}, {1, 0, 4, 0, 4}, 1},
};
#define NCASES ((int)TU_NELEMS(cases))

/* Variable ids are assigned in definition order, the same in both
 * libraries: a=0 b=1 c=2 r=3 s=4 rc=5, then n=6 nr=7. */
enum { VA, VB, VC, VR, VS, VRC, VN, VNR };
#define NRECS 3

static int do_enddef(const tu_api *api, int ncid, const align *al)
{
    if (!al->custom)
        return api->enddef(ncid);
    return api->enddef_(ncid, al->h_minfree, al->v_align, al->v_minfree,
                        al->r_align);
}

static void phase1(const tu_api *api, const tu_format *f, const char *path,
                   const align *al, int *ncidp)
{
    int ncid, t, x, y, v, d2[2];
    size_t r;
    int a[3] = {10, 11, 12};
    double b[6] = {0.5, 1.5, 2.5, 100.5, 101.5, 102.5};
    char title[] = "redef test";
    TU_API_OK(api, api->create(path, NCS_CLOBBER | f->cmode, &ncid));
    TU_API_OK(api, api->def_dim(ncid, "t", NCS_UNLIMITED, &t));
    TU_API_OK(api, api->def_dim(ncid, "x", 3, &x));
    TU_API_OK(api, api->def_dim(ncid, "y", 2, &y));
    TU_API_OK(api, api->def_var(ncid, "a", NCS_INT, 1, &x, &v));
    d2[0] = y;
    d2[1] = x;
    TU_API_OK(api, api->def_var(ncid, "b", NCS_DOUBLE, 2, d2, &v));
    TU_API_OK(api, api->def_var(ncid, "c", NCS_CHAR, 1, &x, &v));
    d2[0] = t;
    d2[1] = x;
    TU_API_OK(api, api->def_var(ncid, "r", NCS_SHORT, 2, d2, &v));
    TU_API_OK(api, api->def_var(ncid, "s", NCS_FLOAT, 1, &t, &v));
    d2[1] = y;
    TU_API_OK(api, api->def_var(ncid, "rc", NCS_CHAR, 2, d2, &v));
    TU_API_OK(api, api->put_att(ncid, NCS_GLOBAL, "title", NCS_CHAR,
                                strlen(title), title));
    TU_API_OK(api, do_enddef(api, ncid, al));
    TU_API_OK(api, api->put(ncid, VA, (size_t[]){0}, (size_t[]){3}, a));
    TU_API_OK(api, api->put(ncid, VB, (size_t[]){0, 0}, (size_t[]){2, 3}, b));
    TU_API_OK(api, api->put(ncid, VC, (size_t[]){0}, (size_t[]){3}, "xyz"));
    for (r = 0; r < NRECS; r++) {
        short rv[3] = {(short)(1000 * r), (short)(1000 * r + 1),
                       (short)(1000 * r + 2)};
        float sv = (float)r + 0.25f;
        char cv[2] = {(char)('A' + 2 * r), (char)('B' + 2 * r)};
        TU_API_OK(api, api->put(ncid, VR, (size_t[]){r, 0}, (size_t[]){1, 3}, rv));
        TU_API_OK(api, api->put(ncid, VS, (size_t[]){r}, (size_t[]){1}, &sv));
        TU_API_OK(api, api->put(ncid, VRC, (size_t[]){r, 0}, (size_t[]){1, 2}, cv));
    }
    *ncidp = ncid;
}

static void phase2(const tu_api *api, const char *path, const align *al,
                   int reopen, int *ncidp)
{
    int ncid = *ncidp, z, v, d2[2];
    char hist[301];
    int units[2] = {1, 2};
    double nfill = -1.5;
    if (reopen) {
        TU_API_OK(api, api->close(ncid));
        TU_API_OK(api, api->open(path, NCS_WRITE, &ncid));
    }
    memset(hist, 'h', 300);
    hist[300] = 0;
    TU_API_OK(api, api->redef(ncid));
    TU_API_OK(api, api->def_dim(ncid, "z", 4, &z));
    TU_API_OK(api, api->def_var(ncid, "n", NCS_DOUBLE, 1, &z, &v));
    TU_API_OK(api, api->put_att(ncid, v, "_FillValue", NCS_DOUBLE, 1, &nfill));
    d2[0] = 0;                   /* t */
    d2[1] = z;
    TU_API_OK(api, api->def_var(ncid, "nr", NCS_INT, 2, d2, &v));
    TU_API_OK(api, api->put_att(ncid, NCS_GLOBAL, "history", NCS_CHAR, 300, hist));
    TU_API_OK(api, api->put_att(ncid, VA, "units", NCS_INT, 2, units));
    TU_API_OK(api, api->rename_var(ncid, VA, "a_renamed_with_a_much_longer_name"));
    TU_API_OK(api, api->rename_dim(ncid, 1, "x_dimension_with_a_longer_name"));
    TU_API_OK(api, api->del_att(ncid, NCS_GLOBAL, "title"));
    TU_API_OK(api, do_enddef(api, ncid, al));
    *ncidp = ncid;
}

/* Every old value in place, every new variable filled. */
static void verify(int ncid)
{
    int a[3], nr[NRECS * 4], i, vid;
    double b[6], n[4];
    short r[NRECS * 3];
    float s[NRECS];
    char c[3], rc[NRECS * 2], name[NCS_MAX_NAME + 1];
    size_t len;
    NCS_OK(ncs_inq_varid(ncid, "a_renamed_with_a_much_longer_name", &vid));
    ck_assert_int_eq(vid, VA);
    NCS_OK(ncs_inq_dimname(ncid, 1, name));
    ck_assert_str_eq(name, "x_dimension_with_a_longer_name");
    NCS_OK(ncs_inq_attlen(ncid, NCS_GLOBAL, "history", &len));
    ck_assert_uint_eq(len, 300);
    NCS_IS(ncs_inq_attlen(ncid, NCS_GLOBAL, "title", &len), NCS_ENOTATT);
    NCS_OK(ncs_inq_dimlen(ncid, 0, &len));
    ck_assert_uint_eq(len, NRECS);
    NCS_OK(ncs_get(ncid, VA, NULL, NULL, NULL, NULL, NCS_INT, a));
    for (i = 0; i < 3; i++)
        ck_assert_int_eq(a[i], 10 + i);
    NCS_OK(ncs_get(ncid, VB, NULL, NULL, NULL, NULL, NCS_DOUBLE, b));
    for (i = 0; i < 6; i++)
        ck_assert_msg(b[i] == (i / 3) * 100 + i % 3 + 0.5, "b[%d] = %g", i, b[i]);
    NCS_OK(ncs_get(ncid, VC, NULL, NULL, NULL, NULL, NCS_CHAR, c));
    ck_assert_mem_eq(c, "xyz", 3);
    NCS_OK(ncs_get(ncid, VR, NULL, NULL, NULL, NULL, NCS_SHORT, r));
    for (i = 0; i < NRECS * 3; i++)
        ck_assert_msg(r[i] == (i / 3) * 1000 + i % 3, "r[%d][%d] = %d",
                      i / 3, i % 3, r[i]);
    NCS_OK(ncs_get(ncid, VS, NULL, NULL, NULL, NULL, NCS_FLOAT, s));
    for (i = 0; i < NRECS; i++)
        ck_assert_msg(s[i] == (float)i + 0.25f, "s[%d] = %g", i, s[i]);
    NCS_OK(ncs_get(ncid, VRC, NULL, NULL, NULL, NULL, NCS_CHAR, rc));
    for (i = 0; i < NRECS * 2; i++)
        ck_assert_msg(rc[i] == 'A' + i, "rc[%d][%d] = %d", i / 2, i % 2, rc[i]);
    NCS_OK(ncs_get(ncid, VN, NULL, NULL, NULL, NULL, NCS_DOUBLE, n));
    for (i = 0; i < 4; i++)
        ck_assert_msg(n[i] == -1.5, "n[%d] = %g, expected its _FillValue", i, n[i]);
    NCS_OK(ncs_get(ncid, VNR, NULL, NULL, NULL, NULL, NCS_INT, nr));
    for (i = 0; i < NRECS * 4; i++)
        ck_assert_msg(nr[i] == NCS_FILL_INT, "nr[%d][%d] = %d, expected fill",
                      i / 4, i % 4, nr[i]);
}

/* Loop index: format * NCASES + case. */
START_TEST(test_redef_grow)
{
    const tu_format *f = &tu_formats[_i / NCASES];
    const redef_case *rc = &cases[_i % NCASES];
    char path[256], path2[256], what[64];
    int ncid;
    snprintf(what, sizeof what, "grow%d", _i);
    tu_path(path, sizeof path, PROG, what);
    phase1(&tu_ncslab, f, path, &rc->first, &ncid);
    phase2(&tu_ncslab, path, &rc->second, rc->reopen, &ncid);
    verify(ncid);
    NCS_OK(ncs_close(ncid));
    NCS_OK(ncs_open(path, NCS_NOWRITE, &ncid));
    verify(ncid);
    NCS_OK(ncs_close(ncid));
#ifdef HAVE_NETCDF
    snprintf(what, sizeof what, "grow%d_nc", _i);
    tu_path(path2, sizeof path2, PROG, what);
    phase1(&tu_netcdf, f, path2, &rc->first, &ncid);
    phase2(&tu_netcdf, path2, &rc->second, rc->reopen, &ncid);
    TU_API_OK(&tu_netcdf, nc_close(ncid));
    tu_same_bytes(path, path2);
    unlink(path2);
#else
    (void)path2;
#endif
    unlink(path);
}
END_TEST

/* ncs__enddef on a fresh file: the byte layout must follow the arguments.
 * Without netCDF-C the layout is checked from the arithmetic of the classic
 * format: the first fixed variable begins at a multiple of v_align at least
 * h_minfree past the header, so the file is at least that long. */
START_TEST(test_enddef_align_fresh)
{
    static const align al[] = {
        {1, 0, 4, 0, 4}, {1, 1000, 4, 0, 4}, {1, 0, 4096, 0, 4},
        {1, 0, 4, 0, 8192}, {1, 10, 300, 7, 100}, {1, 0, 1, 0, 1},
    };
    const tu_format *f = &tu_formats[_i % TU_NFORMATS];
    const align *a = &al[_i / TU_NFORMATS];
    char path[256], path2[256], what[64];
    int ncid;
    size_t len;
    unsigned char *bytes;
    snprintf(what, sizeof what, "align%d", _i);
    tu_path(path, sizeof path, PROG, what);
    phase1(&tu_ncslab, f, path, a, &ncid);
    NCS_OK(ncs_close(ncid));
    bytes = tu_slurp(path, &len);
    /* header (< 400 bytes) + h_minfree, rounded to v_align, + data */
    ck_assert_msg(len >= a->h_minfree + 12 + 48 + 1,
                  "file of %zu bytes ignores h_minfree %zu", len, a->h_minfree);
    if (a->v_align > 4)
        ck_assert_msg(len > a->v_align, "file of %zu bytes ignores v_align %zu",
                      len, a->v_align);
    free(bytes);
#ifdef HAVE_NETCDF
    snprintf(what, sizeof what, "align%d_nc", _i);
    tu_path(path2, sizeof path2, PROG, what);
    phase1(&tu_netcdf, f, path2, a, &ncid);
    TU_API_OK(&tu_netcdf, nc_close(ncid));
    tu_same_bytes(path, path2);
    unlink(path2);
#else
    (void)path2;
#endif
    unlink(path);
}
END_TEST

/* ncs_abort in a redefinition discards it; the data stays. */
START_TEST(test_redef_abort)
{
    char path[256];
    int ncid, nd, nv, z, v;
    size_t len1, len2;
    unsigned char *before, *after;
    align dflt = {0, 0, 0, 0, 0};
    tu_path(path, sizeof path, PROG, "abort");
    phase1(&tu_ncslab, &tu_formats[0], path, &dflt, &ncid);
    NCS_OK(ncs_close(ncid));
    before = tu_slurp(path, &len1);
    NCS_OK(ncs_open(path, NCS_WRITE, &ncid));
    NCS_OK(ncs_redef(ncid));
    NCS_OK(ncs_def_dim(ncid, "z", 4, &z));
    NCS_OK(ncs_def_var(ncid, "n", NCS_DOUBLE, 1, &z, &v));
    NCS_OK(ncs_rename_var(ncid, VA, "a_renamed_with_a_much_longer_name"));
    NCS_OK(ncs_put_att(ncid, NCS_GLOBAL, "more", NCS_CHAR, 5, NCS_CHAR, "hello"));
    NCS_OK(ncs_abort(ncid));
    after = tu_slurp(path, &len2);
    ck_assert_uint_eq(len1, len2);
    ck_assert_mem_eq(before, after, len1);
    NCS_OK(ncs_open(path, NCS_NOWRITE, &ncid));
    NCS_OK(ncs_inq(ncid, &nd, &nv, NULL, NULL));
    ck_assert_int_eq(nd, 3);
    ck_assert_int_eq(nv, 6);
    NCS_IS(ncs_inq_varid(ncid, "n", &v), NCS_ENOTVAR);
    NCS_OK(ncs_inq_varid(ncid, "a", &v));
    NCS_OK(ncs_close(ncid));
    free(before);
    free(after);
    unlink(path);
}
END_TEST

/* Changes made in data mode before ncs_redef (here a rename) belong to the state the file returns to when the redefinition
 * is aborted: ncs_abort writes them (netCDF-C 4.9.0 drops them). */
START_TEST(test_redef_abort_keeps_datamode)
{
    char path[256], name[64];
    int ncid, v, z;
    align dflt = {0, 0, 0, 0, 0};
    tu_path(path, sizeof path, PROG, "abortdm");
    phase1(&tu_ncslab, &tu_formats[0], path, &dflt, &ncid);
    NCS_OK(ncs_close(ncid));
    NCS_OK(ncs_open(path, NCS_WRITE, &ncid));
    NCS_OK(ncs_rename_var(ncid, VA, "q"));
    NCS_OK(ncs_redef(ncid));
    NCS_OK(ncs_def_dim(ncid, "z", 4, &z));
    NCS_OK(ncs_def_var(ncid, "n", NCS_DOUBLE, 1, &z, &v));
    NCS_OK(ncs_abort(ncid));
    NCS_OK(ncs_open(path, NCS_NOWRITE, &ncid));
    NCS_OK(ncs_inq_varname(ncid, VA, name));
    ck_assert_str_eq(name, "q");
    NCS_IS(ncs_inq_varid(ncid, "n", &v), NCS_ENOTVAR);
    NCS_OK(ncs_close(ncid));
    unlink(path);
}
END_TEST

/* ncs_abort of a file still in its first define mode deletes it; of a file
 * created and ended, it keeps it. */
START_TEST(test_abort_create)
{
    char path[256];
    int ncid, x;
    tu_path(path, sizeof path, PROG, "abortcreate");
    NCS_OK(ncs_create(path, NCS_CLOBBER, &ncid));
    NCS_OK(ncs_def_dim(ncid, "x", 3, &x));
    NCS_OK(ncs_abort(ncid));
    ck_assert_msg(access(path, F_OK) != 0, "aborted new file still exists");
    NCS_OK(ncs_create(path, NCS_CLOBBER, &ncid));
    NCS_OK(ncs_enddef(ncid));
    NCS_OK(ncs_abort(ncid));
    ck_assert_msg(access(path, F_OK) == 0, "ended file was deleted by abort");
    unlink(path);
}
END_TEST

static Suite *redef_suite(void)
{
    Suite *s = suite_create("redef");
    TCase *tc = tcase_create("redef");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, test_redef_grow, 0, TU_NFORMATS * NCASES);
    tcase_add_loop_test(tc, test_enddef_align_fresh, 0, TU_NFORMATS * 6);
    tcase_add_test(tc, test_redef_abort);
    tcase_add_test(tc, test_abort_create);
    tcase_add_test(tc, test_redef_abort_keeps_datamode);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return tu_run(redef_suite());
}
