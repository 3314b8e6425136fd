/*
 * check_api.c -- invalid calls, names, status messages and attributes.
 *
 * Every expected code below is what netCDF-C 4.9.0 returns for the same
 * call (probed with nc_* calls; where netCDF-C crashes on a NULL pointer,
 * the code is the one ncslab.h documents).
 */
#include "testutil.h"

#define PROG "api"

/* A small file in define mode: t(unlimited), x(3); v int(t,x), c char(x). */
static int setup(const char *path, int cmode, int *t, int *x, int *v, int *c)
{
    int ncid, d2[2];
    NCS_OK(ncs_create(path, NCS_CLOBBER | cmode, &ncid));
    NCS_OK(ncs_def_dim(ncid, "t", NCS_UNLIMITED, t));
    NCS_OK(ncs_def_dim(ncid, "x", 3, x));
    d2[0] = *t;
    d2[1] = *x;
    NCS_OK(ncs_def_var(ncid, "v", NCS_INT, 2, d2, v));
    NCS_OK(ncs_def_var(ncid, "c", NCS_CHAR, 1, x, c));
    return ncid;
}

START_TEST(test_bad_ids)
{
    char path[256], name[NCS_MAX_NAME + 1];
    int ncid, t, x, v, c, i, buf[8] = {0};
    size_t len, idx[2] = {0, 0};
    tu_path(path, sizeof path, PROG, "ids");
    ncid = setup(path, 0, &t, &x, &v, &c);
    /* bad ncid */
    NCS_IS(ncs_inq(ncid + 1000, &i, NULL, NULL, NULL), NCS_EBADID);
    NCS_IS(ncs_inq(-1, &i, NULL, NULL, NULL), NCS_EBADID);
    NCS_IS(ncs_def_dim(ncid + 1000, "zz", 4, &i), NCS_EBADID);
    NCS_IS(ncs_def_dim(-1, "zz", 4, &i), NCS_EBADID);
    NCS_IS(ncs_inq_format(ncid + 1000, &i), NCS_EBADID);
    NCS_IS(ncs_get1(ncid + 1000, v, idx, NCS_INT, buf), NCS_EBADID);
    NCS_IS(ncs_redef(ncid + 1000), NCS_EBADID);
    NCS_IS(ncs_enddef(ncid + 1000), NCS_EBADID);
    NCS_IS(ncs_sync(ncid + 1000), NCS_EBADID);
    NCS_IS(ncs_close(ncid + 1000), NCS_EBADID);
    NCS_IS(ncs_abort(ncid + 1000), NCS_EBADID);
    /* bad dimid */
    NCS_IS(ncs_inq_dimlen(ncid, 99, &len), NCS_EBADDIM);
    NCS_IS(ncs_inq_dimlen(ncid, -1, &len), NCS_EBADDIM);
    NCS_IS(ncs_inq_dim(ncid, 2, name, &len), NCS_EBADDIM);
    NCS_IS(ncs_inq_dimname(ncid, 99, name), NCS_EBADDIM);
    NCS_IS(ncs_rename_dim(ncid, 99, "q"), NCS_EBADDIM);
    NCS_IS(ncs_inq_dimid(ncid, "nope", &i), NCS_EBADDIM);
    NCS_IS(ncs_def_var(ncid, "bd", NCS_INT, 2, (int[]){t, 77}, &i), NCS_EBADDIM);
    NCS_IS(ncs_def_var(ncid, "bd", NCS_INT, 2, (int[]){t, -1}, &i), NCS_EBADDIM);
    /* bad varid: ENOTVAR (NCS_GLOBAL: see test_global_varid) */
    NCS_IS(ncs_inq_var(ncid, 99, name, NULL, NULL, NULL, NULL), NCS_ENOTVAR);
    NCS_IS(ncs_inq_var(ncid, -1, name, NULL, NULL, NULL, NULL), NCS_ENOTVAR);
    NCS_IS(ncs_inq_varname(ncid, 2, name), NCS_ENOTVAR);
    NCS_IS(ncs_inq_vartype(ncid, 99, &i), NCS_ENOTVAR);
    NCS_IS(ncs_inq_varid(ncid, "nope", &i), NCS_ENOTVAR);
    NCS_IS(ncs_rename_var(ncid, 99, "q"), NCS_ENOTVAR);
    NCS_IS(ncs_put_att(ncid, 77, "g", NCS_INT, 1, NCS_INT, buf), NCS_ENOTVAR);
    NCS_IS(ncs_get_att(ncid, 77, "g", NCS_INT, buf), NCS_ENOTVAR);
    NCS_IS(ncs_inq_att(ncid, 9, "g", NULL, NULL), NCS_ENOTVAR);
    NCS_IS(ncs_inq_attname(ncid, 9, 0, name), NCS_ENOTVAR);
    NCS_IS(ncs_del_att(ncid, 9, "g"), NCS_ENOTVAR);
    NCS_IS(ncs_copy_att(ncid, 9, "g", ncid, NCS_GLOBAL), NCS_ENOTVAR);
    NCS_OK(ncs_enddef(ncid));
    NCS_IS(ncs_get1(ncid, 99, idx, NCS_INT, buf), NCS_ENOTVAR);
    NCS_IS(ncs_put1(ncid, 99, idx, NCS_INT, buf), NCS_ENOTVAR);
    NCS_IS(ncs_get(ncid, 99, NULL, NULL, NULL, NULL, NCS_INT, buf), NCS_ENOTVAR);
    NCS_OK(ncs_close(ncid));
    /* a closed ncid is no longer valid */
    NCS_IS(ncs_get1(ncid, v, idx, NCS_INT, buf), NCS_EBADID);
    NCS_IS(ncs_close(ncid), NCS_EBADID);
    unlink(path);
}
END_TEST

/* NCS_GLOBAL as a variable: netCDF-C says EGLOBAL for renaming and data
 * access, ENOTVAR for inquiry. */
START_TEST(test_global_varid)
{
    char path[256], name[NCS_MAX_NAME + 1];
    int ncid, t, x, v, c, buf[4];
    size_t idx[2] = {0, 0};
    tu_path(path, sizeof path, PROG, "global");
    ncid = setup(path, 0, &t, &x, &v, &c);
    NCS_IS(ncs_inq_var(ncid, NCS_GLOBAL, name, NULL, NULL, NULL, NULL),
           NCS_ENOTVAR);
    NCS_IS(ncs_rename_var(ncid, NCS_GLOBAL, "q"), NCS_EGLOBAL);
    NCS_OK(ncs_enddef(ncid));
    NCS_IS(ncs_get1(ncid, NCS_GLOBAL, idx, NCS_INT, buf), NCS_EGLOBAL);
    NCS_OK(ncs_close(ncid));
    unlink(path);
}
END_TEST

START_TEST(test_modes)
{
    char path[256];
    int ncid, t, x, v, c, i, old, buf[8] = {1, 2, 3};
    size_t idx[2] = {0, 0};
    tu_path(path, sizeof path, PROG, "modes");
    ncid = setup(path, 0, &t, &x, &v, &c);
    /* data calls in define mode */
    NCS_IS(ncs_get(ncid, v, NULL, NULL, NULL, NULL, NCS_INT, buf), NCS_EINDEFINE);
    NCS_IS(ncs_put1(ncid, v, idx, NCS_INT, buf), NCS_EINDEFINE);
    NCS_IS(ncs_get1(ncid, v, idx, NCS_INT, buf), NCS_EINDEFINE);
    NCS_IS(ncs_sync(ncid), NCS_EINDEFINE);
    NCS_IS(ncs_redef(ncid), NCS_EINDEFINE);
    NCS_OK(ncs_put_att(ncid, NCS_GLOBAL, "g", NCS_INT, 3, NCS_INT, buf));
    NCS_OK(ncs_put_att(ncid, NCS_GLOBAL, "txt", NCS_CHAR, 3, NCS_CHAR, "abc"));
    NCS_OK(ncs_enddef(ncid));
    /* define calls in data mode */
    NCS_IS(ncs_enddef(ncid), NCS_ENOTINDEFINE);
    NCS_IS(ncs_def_dim(ncid, "y", 3, &i), NCS_ENOTINDEFINE);
    NCS_IS(ncs_def_var(ncid, "y", NCS_INT, 0, NULL, &i), NCS_ENOTINDEFINE);
    NCS_IS(ncs_put_att(ncid, NCS_GLOBAL, "new", NCS_INT, 1, NCS_INT, buf),
           NCS_ENOTINDEFINE);
    NCS_IS(ncs_del_att(ncid, NCS_GLOBAL, "g"), NCS_ENOTINDEFINE);
    /* renames in data mode: not longer */
    NCS_IS(ncs_rename_dim(ncid, x, "xlonger"), NCS_ENOTINDEFINE);
    NCS_OK(ncs_rename_dim(ncid, x, "z"));
    NCS_IS(ncs_rename_var(ncid, v, "vlonger"), NCS_ENOTINDEFINE);
    NCS_OK(ncs_rename_var(ncid, v, "w"));
    NCS_IS(ncs_rename_att(ncid, NCS_GLOBAL, "txt", "txtlonger"), NCS_ENOTINDEFINE);
    NCS_OK(ncs_rename_att(ncid, NCS_GLOBAL, "txt", "tx"));
    NCS_OK(ncs_put1(ncid, v, idx, NCS_INT, buf));
    NCS_OK(ncs_sync(ncid));
    NCS_OK(ncs_close(ncid));
    /* read-only */
    NCS_OK(ncs_open(path, NCS_NOWRITE, &ncid));
    NCS_IS(ncs_put1(ncid, v, idx, NCS_INT, buf), NCS_EPERM);
    NCS_IS(ncs_put(ncid, v, NULL, NULL, NULL, NULL, NCS_INT, buf), NCS_EPERM);
    NCS_IS(ncs_redef(ncid), NCS_EPERM);
    NCS_IS(ncs_set_fill(ncid, NCS_FILL, &old), NCS_EPERM);
    NCS_IS(ncs_put_att(ncid, NCS_GLOBAL, "g", NCS_INT, 1, NCS_INT, buf), NCS_EPERM);
    NCS_IS(ncs_rename_att(ncid, NCS_GLOBAL, "g", "h"), NCS_EPERM);
    NCS_IS(ncs_rename_var(ncid, v, "q"), NCS_EPERM);
    NCS_IS(ncs_rename_dim(ncid, x, "q"), NCS_EPERM);
    /* netCDF-C checks the mode before the permission for these */
    NCS_IS(ncs_def_dim(ncid, "q", 3, &i), NCS_ENOTINDEFINE);
    NCS_IS(ncs_del_att(ncid, NCS_GLOBAL, "g"), NCS_ENOTINDEFINE);
    NCS_IS(ncs_enddef(ncid), NCS_ENOTINDEFINE);
    NCS_OK(ncs_sync(ncid));
    NCS_OK(ncs_get1(ncid, v, idx, NCS_INT, buf));
    ck_assert_int_eq(buf[0], 1);
    NCS_OK(ncs_close(ncid));
    unlink(path);
}
END_TEST

START_TEST(test_files)
{
    char path[256], path2[256];
    int ncid, ncid2, fmt, old;
    tu_path(path, sizeof path, PROG, "files");
    tu_path(path2, sizeof path2, PROG, "files_missing");
    NCS_OK(ncs_create(path, NCS_CLOBBER, &ncid));
    NCS_OK(ncs_inq_format(ncid, &fmt));
    ck_assert_int_eq(fmt, NCS_FORMAT_CLASSIC);
    NCS_OK(ncs_close(ncid));
    NCS_IS(ncs_create(path, NCS_NOCLOBBER, &ncid), NCS_EEXIST);
    NCS_IS(ncs_create(path, NCS_64BIT_OFFSET | NCS_64BIT_DATA, &ncid), NCS_EINVAL);
    NCS_IS(ncs_create(NULL, NCS_CLOBBER, &ncid), NCS_EINVAL);
    NCS_IS(ncs_create(path, NCS_CLOBBER, NULL), NCS_EINVAL);
    unlink(path2);
    NCS_IS(ncs_open(path2, NCS_NOWRITE, &ncid), 2 /* ENOENT */);
    /* a file that is not netCDF */
    {
        FILE *fp = fopen(path2, "wb");
        ck_assert(fp != NULL);
        fputs("this is not a netCDF file at all, just some text\n", fp);
        fclose(fp);
        NCS_IS(ncs_open(path2, NCS_NOWRITE, &ncid), NCS_ENOTNC);
        unlink(path2);
    }
    /* default format */
    NCS_OK(ncs_set_default_format(NCS_FORMAT_64BIT_DATA, &old));
    ck_assert_int_eq(old, NCS_FORMAT_CLASSIC);
    NCS_IS(ncs_set_default_format(99, &old), NCS_EINVAL);
    NCS_OK(ncs_create(path, NCS_CLOBBER, &ncid));
    NCS_OK(ncs_inq_format(ncid, &fmt));
    ck_assert_int_eq(fmt, NCS_FORMAT_64BIT_DATA);
    NCS_OK(ncs_close(ncid));
    NCS_OK(ncs_set_default_format(NCS_FORMAT_64BIT_OFFSET, &old));
    ck_assert_int_eq(old, NCS_FORMAT_64BIT_DATA);
    NCS_OK(ncs_create(path, NCS_CLOBBER, &ncid));
    NCS_OK(ncs_inq_format(ncid, &fmt));
    ck_assert_int_eq(fmt, NCS_FORMAT_64BIT_OFFSET);
    NCS_OK(ncs_close(ncid));
    NCS_OK(ncs_set_default_format(NCS_FORMAT_CLASSIC, NULL));
    /* two handles on one file are distinct */
    NCS_OK(ncs_open(path, NCS_NOWRITE, &ncid));
    NCS_OK(ncs_open(path, NCS_NOWRITE, &ncid2));
    ck_assert_int_ne(ncid, ncid2);
    NCS_OK(ncs_close(ncid));
    NCS_OK(ncs_inq_format(ncid2, &fmt));
    NCS_OK(ncs_close(ncid2));
    unlink(path);
}
END_TEST

/* ncs_inq_open_diag: the fault of a refused open, with its offset; the
 * irregularities of a good one; the bounds of its arguments. */
START_TEST(test_open_diag)
{
    char path[256], what[64];
    long long off = 0;
    int ncid, dim;
    FILE *fp;
    tu_path(path, sizeof path, PROG, "diag");
    NCS_OK(ncs_create(path, NCS_CLOBBER, &ncid));
    NCS_OK(ncs_def_dim(ncid, "x", 3, &dim));
    NCS_OK(ncs_close(ncid));
    NCS_OK(ncs_open(path, NCS_NOWRITE, &ncid));
    strcpy(what, "stale");
    NCS_OK(ncs_inq_open_diag(0, &off, what, sizeof what));
    ck_assert_int_eq(off, -1);
    ck_assert_str_eq(what, "");
    NCS_IS(ncs_inq_open_diag(1, &off, what, sizeof what), NCS_EINVAL);
    NCS_IS(ncs_inq_open_diag(-1, &off, what, sizeof what), NCS_EINVAL);
    NCS_IS(ncs_inq_open_diag(0, &off, NULL, 4), NCS_EINVAL);
    NCS_OK(ncs_inq_open_diag(0, NULL, NULL, 0));
    NCS_OK(ncs_close(ncid));
    /* the name "x" is at byte 20 (magic, numrecs, tag, count, length),
     * its padding at 21..23 */
    fp = fopen(path, "r+b");
    ck_assert(fp != NULL);
    ck_assert_int_eq(fseek(fp, 22, SEEK_SET), 0);
    ck_assert_int_eq(fputc('z', fp), 'z');
    ck_assert_int_eq(fclose(fp), 0);
    NCS_OK(ncs_open(path, NCS_NOWRITE, &ncid));
    NCS_OK(ncs_inq_open_diag(0, &off, what, sizeof what));
    ck_assert_str_eq(what, "");
    NCS_OK(ncs_inq_open_diag(1, &off, what, sizeof what));
    ck_assert_int_eq(off, 22);
    ck_assert(strstr(what, "padding of the name \"x\"") != NULL);
    NCS_IS(ncs_inq_open_diag(2, &off, what, sizeof what), NCS_EINVAL);
    NCS_OK(ncs_close(ncid));
    /* a version byte 3: the fault, at byte 3; a short buffer is cut */
    fp = fopen(path, "r+b");
    ck_assert(fp != NULL);
    ck_assert_int_eq(fseek(fp, 3, SEEK_SET), 0);
    ck_assert_int_eq(fputc(3, fp), 3);
    ck_assert_int_eq(fclose(fp), 0);
    NCS_IS(ncs_open(path, NCS_NOWRITE, &ncid), NCS_ENOTNC);
    NCS_IS(ncs_inq_open_diag(0, &off, what, sizeof what), NCS_ENOTNC);
    ck_assert_int_eq(off, 3);
    ck_assert(strstr(what, "version byte 3") != NULL);
    NCS_IS(ncs_inq_open_diag(0, &off, what, 5), NCS_ENOTNC);
    ck_assert_int_eq(strlen(what), 4);
    NCS_IS(ncs_inq_open_diag(1, &off, what, sizeof what), NCS_EINVAL);
    /* the next open starts afresh */
    NCS_IS(ncs_open("", NCS_NOWRITE, &ncid), NCS_EINVAL);
    NCS_IS(ncs_inq_open_diag(0, &off, what, sizeof what), NCS_EINVAL);
    ck_assert_int_eq(off, -1);
    ck_assert_str_eq(what, "");
    unlink(path);
}
END_TEST

/* Naming rules (netCDF-C's NC_check_name), for dims, vars and atts. */
START_TEST(test_names)
{
    static const struct {
        const char *name;
        int want;
    } names[] = {
        {"", NCS_EBADNAME}, {"1abc", 0}, {"_abc", 0}, {".abc", NCS_EBADNAME},
        {"-abc", NCS_EBADNAME}, {"+abc", NCS_EBADNAME}, {"@abc", NCS_EBADNAME},
        {"a.b-c+d@e", 0}, {"a/b", NCS_EBADNAME}, {"/ab", NCS_EBADNAME},
        {"ab ", NCS_EBADNAME}, {"a b", 0}, {" ab", NCS_EBADNAME},
        {"a\tb", NCS_EBADNAME}, {"a\x7f", NCS_EBADNAME}, {"a\x01", NCS_EBADNAME},
        {"\xc3\xa9t\xc3\xa9", 0}, {"a\xff", NCS_EBADNAME}, {"a\xc3", NCS_EBADNAME},
        {"a!#$%^&*()", 0},
    };
    char path[256], n256[NCS_MAX_NAME + 2], n257[NCS_MAX_NAME + 2], nm[32];
    int ncid, i, id, x, one = 1;
    tu_path(path, sizeof path, PROG, "names");
    NCS_OK(ncs_create(path, NCS_CLOBBER, &ncid));
    NCS_OK(ncs_def_dim(ncid, "x", 3, &x));
    for (i = 0; i < (int)TU_NELEMS(names); i++) {
        int s;
        s = ncs_def_dim(ncid, names[i].name, 2, &id);
        ck_assert_msg(s == names[i].want, "def_dim \"%s\": %d, expected %d",
                      names[i].name, s, names[i].want);
        s = ncs_def_var(ncid, names[i].name, NCS_INT, 1, &x, &id);
        ck_assert_msg(s == names[i].want, "def_var \"%s\": %d, expected %d",
                      names[i].name, s, names[i].want);
        s = ncs_put_att(ncid, NCS_GLOBAL, names[i].name, NCS_INT, 1, NCS_INT, &one);
        ck_assert_msg(s == names[i].want, "put_att \"%s\": %d, expected %d",
                      names[i].name, s, names[i].want);
    }
    memset(n256, 'b', NCS_MAX_NAME);
    n256[NCS_MAX_NAME] = 0;
    memset(n257, 'a', NCS_MAX_NAME + 1);
    n257[NCS_MAX_NAME + 1] = 0;
    NCS_IS(ncs_def_dim(ncid, n257, 4, &id), NCS_EMAXNAME);
    NCS_IS(ncs_def_var(ncid, n257, NCS_INT, 0, NULL, &id), NCS_EMAXNAME);
    NCS_IS(ncs_put_att(ncid, NCS_GLOBAL, n257, NCS_INT, 1, NCS_INT, &one), NCS_EMAXNAME);
    NCS_IS(ncs_rename_dim(ncid, x, n257), NCS_EMAXNAME);
    NCS_OK(ncs_def_dim(ncid, n256, 4, &id));
    {
        char back[NCS_MAX_NAME + 1];
        NCS_OK(ncs_inq_dimname(ncid, id, back));
        ck_assert_str_eq(back, n256);
    }
    /* names in use */
    NCS_IS(ncs_def_dim(ncid, "x", 4, &id), NCS_ENAMEINUSE);
    NCS_OK(ncs_def_var(ncid, "v", NCS_INT, 1, &x, &id));
    NCS_IS(ncs_def_var(ncid, "v", NCS_INT, 1, &x, &id), NCS_ENAMEINUSE);
    NCS_OK(ncs_def_var(ncid, "x", NCS_INT, 1, &x, &id));  /* separate spaces */
    NCS_IS(ncs_rename_dim(ncid, x, n256), NCS_ENAMEINUSE);
    NCS_IS(ncs_rename_dim(ncid, x, "x"), NCS_ENAMEINUSE);
    NCS_IS(ncs_rename_var(ncid, id, "v"), NCS_ENAMEINUSE);
    NCS_IS(ncs_rename_var(ncid, id, "a/b"), NCS_EBADNAME);
    NCS_OK(ncs_put_att(ncid, NCS_GLOBAL, "g", NCS_INT, 1, NCS_INT, &one));
    NCS_OK(ncs_put_att(ncid, NCS_GLOBAL, "h", NCS_INT, 1, NCS_INT, &one));
    NCS_IS(ncs_rename_att(ncid, NCS_GLOBAL, "g", "h"), NCS_ENAMEINUSE);
    NCS_IS(ncs_rename_att(ncid, NCS_GLOBAL, "g", "g"), NCS_ENAMEINUSE);
    NCS_IS(ncs_rename_att(ncid, NCS_GLOBAL, "g", "a/b"), NCS_EBADNAME);
    NCS_IS(ncs_rename_att(ncid, NCS_GLOBAL, "nope", "zz"), NCS_ENOTATT);
    for (i = 0; i < 3; i++) {          /* lookups of valid odd names */
        snprintf(nm, sizeof nm, "%s", names[i == 0 ? 1 : i == 1 ? 7 : 16].name);
        NCS_OK(ncs_inq_dimid(ncid, nm, &id));
        NCS_OK(ncs_inq_varid(ncid, nm, &id));
    }
    NCS_OK(ncs_close(ncid));
    unlink(path);
}
END_TEST

START_TEST(test_def_errors)
{
    char path[256];
    int ncid, t, x, v, c, i, dims[2], d;
    int big[NCS_MAX_VAR_DIMS + 1];
    tu_path(path, sizeof path, PROG, "defs");
    ncid = setup(path, 0, &t, &x, &v, &c);
    NCS_IS(ncs_def_dim(ncid, "t2", NCS_UNLIMITED, &d), NCS_EUNLIMIT);
    dims[0] = x;
    dims[1] = t;
    NCS_IS(ncs_def_var(ncid, "u", NCS_INT, 2, dims, &i), NCS_EUNLIMPOS);
    dims[0] = t;
    NCS_IS(ncs_def_var(ncid, "tt", NCS_INT, 2, dims, &i), NCS_EUNLIMPOS);
    dims[1] = x;
    for (d = NCS_UBYTE; d <= NCS_UINT64; d++)
        NCS_IS(ncs_def_var(ncid, "u5", d, 2, dims, &i), NCS_EBADTYPE);
    NCS_IS(ncs_def_var(ncid, "u", 12, 2, dims, &i), NCS_EBADTYPE);
    NCS_IS(ncs_def_var(ncid, "u", NCS_NAT, 2, dims, &i), NCS_EBADTYPE);
    NCS_IS(ncs_def_var(ncid, "u", -1, 2, dims, &i), NCS_EBADTYPE);
    NCS_IS(ncs_def_var(ncid, "u", NCS_INT, -1, dims, &i), NCS_EINVAL);
    for (i = 0; i <= NCS_MAX_VAR_DIMS; i++)
        big[i] = x;
    NCS_IS(ncs_def_var(ncid, "u", NCS_INT, NCS_MAX_VAR_DIMS + 1, big, &i),
           NCS_EMAXDIMS);
    /* CDF-5 types in attributes of CDF-1 files */
    NCS_IS(ncs_put_att(ncid, NCS_GLOBAL, "a5", NCS_UBYTE, 1, NCS_INT, &i), NCS_EBADTYPE);
    NCS_IS(ncs_put_att(ncid, NCS_GLOBAL, "a5", NCS_INT64, 1, NCS_INT, &i), NCS_EBADTYPE);
    NCS_IS(ncs_put_att(ncid, NCS_GLOBAL, "a5", 44, 1, NCS_INT, &i), NCS_EBADTYPE);
    NCS_OK(ncs_abort(ncid));
    /* ... and CDF-2 */
    ncid = setup(path, NCS_64BIT_OFFSET, &t, &x, &v, &c);
    NCS_IS(ncs_def_var(ncid, "u5", NCS_UBYTE, 1, &x, &i), NCS_EBADTYPE);
    NCS_IS(ncs_def_var(ncid, "u5", NCS_UINT64, 1, &x, &i), NCS_EBADTYPE);
    NCS_IS(ncs_put_att(ncid, NCS_GLOBAL, "a5", NCS_USHORT, 1, NCS_INT, &i), NCS_EBADTYPE);
    NCS_OK(ncs_abort(ncid));
    /* CDF-5 takes them */
    ncid = setup(path, NCS_64BIT_DATA, &t, &x, &v, &c);
    for (d = NCS_UBYTE; d <= NCS_UINT64; d++) {
        char nm[16];
        snprintf(nm, sizeof nm, "u%d", d);
        NCS_OK(ncs_def_var(ncid, nm, d, 2, dims, &i));
    }
    NCS_IS(ncs_def_var(ncid, "str", 12, 1, &x, &i), NCS_EBADTYPE);
    NCS_OK(ncs_close(ncid));
    unlink(path);
}
END_TEST

/* Every status has a distinct, non-empty message; unknown codes too. */
START_TEST(test_strerror)
{
    static const int codes[] = {
        NCS_NOERR, NCS_EBADID, NCS_ENFILE, NCS_EEXIST, NCS_EINVAL, NCS_EPERM,
        NCS_ENOTINDEFINE, NCS_EINDEFINE, NCS_EINVALCOORDS, NCS_EMAXDIMS,
        NCS_ENAMEINUSE, NCS_ENOTATT, NCS_EMAXATTS, NCS_EBADTYPE, NCS_EBADDIM,
        NCS_EUNLIMPOS, NCS_EMAXVARS, NCS_ENOTVAR, NCS_EGLOBAL, NCS_ENOTNC,
        NCS_EMAXNAME, NCS_EUNLIMIT, NCS_ENORECVARS, NCS_ECHAR, NCS_EEDGE,
        NCS_ESTRIDE, NCS_EBADNAME, NCS_ERANGE, NCS_ENOMEM, NCS_EVARSIZE,
        NCS_EDIMSIZE, NCS_ETRUNC, NCS_EIO, NCS_ENOTFOUND, NCS_EINTERNAL,
        NCS_EHDFERR, NCS_ENOTBUILT, NCS_EFILTER, NCS_ENOFILTER};
    size_t i, j;
    const char *v;
    for (i = 0; i < TU_NELEMS(codes); i++) {
        const char *m = ncs_strerror(codes[i]);
        ck_assert_msg(m != NULL && m[0] != 0, "no message for %d", codes[i]);
        for (j = 0; j < i; j++)
            ck_assert_msg(strcmp(m, ncs_strerror(codes[j])) != 0,
                          "codes %d and %d share the message \"%s\"",
                          codes[i], codes[j], m);
    }
    ck_assert_ptr_nonnull(ncs_strerror(-999));
    ck_assert_ptr_nonnull(ncs_strerror(-52));
    ck_assert_ptr_nonnull(ncs_strerror(2));          /* errno: ENOENT */
    ck_assert_ptr_nonnull(ncs_strerror(100000));
    v = ncs_inq_libvers();
    ck_assert_ptr_nonnull(v);
    ck_assert_msg(strncmp(v, NCS_VERSION, strlen(NCS_VERSION)) == 0,
                  "ncs_inq_libvers() = \"%s\"", v);
    {
        size_t sz;
        int t;
        for (t = NCS_BYTE; t <= NCS_UINT64; t++) {
            NCS_OK(ncs_inq_type_size(t, &sz));
            ck_assert_uint_eq(sz, tu_size(t));
        }
        NCS_IS(ncs_inq_type_size(0, &sz), NCS_EBADTYPE);
        NCS_IS(ncs_inq_type_size(12, &sz), NCS_EBADTYPE);
    }
}
END_TEST

/* ---- attributes ---------------------------------------------------------- */

START_TEST(test_attributes)
{
    char path[256], path2[256], name[NCS_MAX_NAME + 1];
    int ncid, ncid2, t, x, v, c, xt, n, i, id;
    int ib[4] = {1, -2, 300, 4}, ig[4];
    double dg[4];
    short sg[4];
    size_t len;
    tu_path(path, sizeof path, PROG, "atts");
    tu_path(path2, sizeof path2, PROG, "atts2");
    ncid = setup(path, 0, &t, &x, &v, &c);
    NCS_OK(ncs_put_att(ncid, NCS_GLOBAL, "gi", NCS_INT, 4, NCS_INT, ib));
    NCS_OK(ncs_put_att(ncid, NCS_GLOBAL, "gt", NCS_CHAR, 5, NCS_CHAR, "hello"));
    NCS_OK(ncs_put_att(ncid, v, "vd", NCS_DOUBLE, 2, NCS_INT, ib));
    NCS_OK(ncs_put_att(ncid, v, "empty", NCS_INT, 0, NCS_INT, NULL));
    NCS_OK(ncs_put_att(ncid, v, "nat", NCS_SHORT, 2, NCS_NAT, (short[]){7, 8}));
    /* inquiry */
    NCS_OK(ncs_inq_att(ncid, NCS_GLOBAL, "gi", &xt, &len));
    ck_assert_int_eq(xt, NCS_INT);
    ck_assert_uint_eq(len, 4);
    NCS_OK(ncs_inq_atttype(ncid, v, "vd", &xt));
    ck_assert_int_eq(xt, NCS_DOUBLE);
    NCS_OK(ncs_inq_attlen(ncid, v, "empty", &len));
    ck_assert_uint_eq(len, 0);
    NCS_OK(ncs_inq_attid(ncid, v, "empty", &id));
    ck_assert_int_eq(id, 1);
    NCS_OK(ncs_inq_attname(ncid, v, 2, name));
    ck_assert_str_eq(name, "nat");
    NCS_OK(ncs_inq_varnatts(ncid, v, &n));
    ck_assert_int_eq(n, 3);
    NCS_OK(ncs_inq_natts(ncid, &n));
    ck_assert_int_eq(n, 2);
    NCS_IS(ncs_inq_attname(ncid, NCS_GLOBAL, 99, name), NCS_ENOTATT);
    NCS_IS(ncs_inq_attname(ncid, NCS_GLOBAL, -1, name), NCS_ENOTATT);
    NCS_IS(ncs_inq_attid(ncid, NCS_GLOBAL, "nope", &id), NCS_ENOTATT);
    NCS_IS(ncs_get_att(ncid, NCS_GLOBAL, "nope", NCS_INT, ig), NCS_ENOTATT);
    NCS_IS(ncs_del_att(ncid, NCS_GLOBAL, "nope"), NCS_ENOTATT);
    /* values and conversions */
    NCS_OK(ncs_get_att(ncid, NCS_GLOBAL, "gi", NCS_DOUBLE, dg));
    ck_assert(dg[0] == 1 && dg[1] == -2 && dg[2] == 300 && dg[3] == 4);
    NCS_IS(ncs_get_att(ncid, NCS_GLOBAL, "gi", NCS_BYTE, name), NCS_ERANGE);
    ck_assert(name[0] == 1 && name[1] == -2 && name[3] == 4);
    NCS_IS(ncs_get_att(ncid, NCS_GLOBAL, "gt", NCS_INT, ig), NCS_ECHAR);
    NCS_IS(ncs_get_att(ncid, NCS_GLOBAL, "gi", NCS_CHAR, name), NCS_ECHAR);
    NCS_IS(ncs_put_att(ncid, NCS_GLOBAL, "bad", NCS_CHAR, 2, NCS_INT, ib), NCS_ECHAR);
    NCS_IS(ncs_put_att(ncid, NCS_GLOBAL, "bad", NCS_INT, 2, NCS_CHAR, "ab"), NCS_ECHAR);
    NCS_OK(ncs_get_att(ncid, NCS_GLOBAL, "gt", NCS_NAT, name));
    ck_assert_mem_eq(name, "hello", 5);
    NCS_OK(ncs_get_att(ncid, v, "nat", NCS_NAT, sg));
    ck_assert(sg[0] == 7 && sg[1] == 8);
    /* out-of-range put: stored anyway, NCS_ERANGE */
    NCS_IS(ncs_put_att(ncid, NCS_GLOBAL, "gb", NCS_BYTE, 4, NCS_INT, ib), NCS_ERANGE);
    NCS_OK(ncs_inq_attlen(ncid, NCS_GLOBAL, "gb", &len));
    ck_assert_uint_eq(len, 4);
    NCS_IS(ncs_get_att(ncid, NCS_GLOBAL, "gb", NCS_INT, ig), NCS_NOERR);
    ck_assert(ig[0] == 1 && ig[1] == -2 && ig[3] == 4);
    /* invalid lengths and buffers */
    NCS_IS(ncs_put_att(ncid, NCS_GLOBAL, "g4", NCS_INT, 3, NCS_INT, NULL), NCS_EINVAL);
    NCS_IS(ncs_put_att(ncid, NCS_GLOBAL, "g7", NCS_INT, (size_t)-1, NCS_INT, ib),
           NCS_EINVAL);
    NCS_IS(ncs_put_att(ncid, NCS_GLOBAL, "g7", NCS_INT, (size_t)1 << 40, NCS_INT, ib),
           NCS_EINVAL);
    /* rename, delete: order of the rest is kept */
    NCS_OK(ncs_rename_att(ncid, v, "vd", "vd_renamed"));
    NCS_OK(ncs_inq_attid(ncid, v, "vd_renamed", &id));
    ck_assert_int_eq(id, 0);
    NCS_OK(ncs_del_att(ncid, v, "vd_renamed"));
    NCS_OK(ncs_inq_attname(ncid, v, 0, name));
    ck_assert_str_eq(name, "empty");
    NCS_OK(ncs_inq_attid(ncid, v, "nat", &id));
    ck_assert_int_eq(id, 1);
    /* copy, across files and within one */
    NCS_OK(ncs_enddef(ncid));
    NCS_OK(ncs_create(path2, NCS_CLOBBER | NCS_64BIT_DATA, &ncid2));
    NCS_OK(ncs_def_dim(ncid2, "x", 3, &i));
    NCS_OK(ncs_def_var(ncid2, "w", NCS_FLOAT, 1, &i, &i));
    NCS_OK(ncs_copy_att(ncid, NCS_GLOBAL, "gi", ncid2, i));
    NCS_OK(ncs_copy_att(ncid, NCS_GLOBAL, "gt", ncid2, NCS_GLOBAL));
    NCS_OK(ncs_copy_att(ncid, v, "nat", ncid2, NCS_GLOBAL));
    NCS_IS(ncs_copy_att(ncid, NCS_GLOBAL, "nope", ncid2, NCS_GLOBAL), NCS_ENOTATT);
    NCS_IS(ncs_copy_att(ncid, NCS_GLOBAL, "gi", ncid2 + 1000, NCS_GLOBAL), NCS_EBADID);
    NCS_IS(ncs_copy_att(ncid, NCS_GLOBAL, "gi", ncid2, 9), NCS_ENOTVAR);
    NCS_OK(ncs_enddef(ncid2));
    NCS_OK(ncs_inq_att(ncid2, i, "gi", &xt, &len));
    ck_assert_int_eq(xt, NCS_INT);
    ck_assert_uint_eq(len, 4);
    NCS_OK(ncs_get_att(ncid2, i, "gi", NCS_INT, ig));
    ck_assert_mem_eq(ig, ib, sizeof ib);
    NCS_OK(ncs_get_att(ncid2, NCS_GLOBAL, "gt", NCS_CHAR, name));
    ck_assert_mem_eq(name, "hello", 5);
    /* copying onto an existing attribute of the same size in data mode */
    NCS_OK(ncs_copy_att(ncid, NCS_GLOBAL, "gi", ncid2, i));
    /* copying a new one in data mode needs define mode */
    NCS_IS(ncs_copy_att(ncid, NCS_GLOBAL, "gb", ncid2, NCS_GLOBAL), NCS_ENOTINDEFINE);
    /* data-mode rewrites: same size or smaller allowed, larger refused */
    NCS_OK(ncs_put_att(ncid, NCS_GLOBAL, "gi", NCS_INT, 4, NCS_INT, (int[]){9, 8, 7, 6}));
    NCS_OK(ncs_put_att(ncid, NCS_GLOBAL, "gi", NCS_INT, 2, NCS_INT, ib));
    NCS_IS(ncs_put_att(ncid, NCS_GLOBAL, "gi", NCS_INT, 5, NCS_INT, ib), NCS_ENOTINDEFINE);
    NCS_OK(ncs_put_att(ncid, NCS_GLOBAL, "gi", NCS_SHORT, 4, NCS_INT, ib));
    NCS_IS(ncs_put_att(ncid, NCS_GLOBAL, "gi", NCS_SHORT, 7, NCS_INT, ib), NCS_ENOTINDEFINE);
    NCS_OK(ncs_put_att(ncid, NCS_GLOBAL, "gt", NCS_CHAR, 5, NCS_CHAR, "world"));
    NCS_IS(ncs_put_att(ncid, NCS_GLOBAL, "gt", NCS_CHAR, 9, NCS_CHAR, "world!!!!"),
           NCS_ENOTINDEFINE);
    NCS_OK(ncs_close(ncid2));
    NCS_OK(ncs_close(ncid));
    /* the data-mode rewrites reached the file */
    NCS_OK(ncs_open(path, NCS_NOWRITE, &ncid));
    NCS_OK(ncs_inq_att(ncid, NCS_GLOBAL, "gi", &xt, &len));
    ck_assert_int_eq(xt, NCS_SHORT);
    ck_assert_uint_eq(len, 4);
    NCS_OK(ncs_get_att(ncid, NCS_GLOBAL, "gi", NCS_SHORT, sg));
    ck_assert(sg[0] == 1 && sg[1] == -2 && sg[2] == 300 && sg[3] == 4);
    NCS_OK(ncs_get_att(ncid, NCS_GLOBAL, "gt", NCS_CHAR, name));
    ck_assert_mem_eq(name, "world", 5);
    NCS_OK(ncs_close(ncid));
    NCS_OK(ncs_open(path2, NCS_NOWRITE, &ncid2));
    NCS_OK(ncs_get_att(ncid2, NCS_GLOBAL, "nat", NCS_SHORT, sg));
    ck_assert(sg[0] == 7 && sg[1] == 8);
    NCS_OK(ncs_close(ncid2));
    unlink(path);
    unlink(path2);
}
END_TEST

/* CDF-5 attribute types round-trip with their full ranges. */
START_TEST(test_attributes_cdf5)
{
    char path[256];
    int ncid;
    unsigned long long u64[2] = {18446744073709551615ULL, 1}, u64g[2];
    long long i64[2] = {-9223372036854775807LL - 1, 5}, i64g[2];
    unsigned short us[2] = {65535, 0}, usg[2];
    tu_path(path, sizeof path, PROG, "atts5");
    NCS_OK(ncs_create(path, NCS_CLOBBER | NCS_64BIT_DATA, &ncid));
    NCS_OK(ncs_put_att(ncid, NCS_GLOBAL, "u64", NCS_UINT64, 2, NCS_UINT64, u64));
    NCS_OK(ncs_put_att(ncid, NCS_GLOBAL, "i64", NCS_INT64, 2, NCS_NAT, i64));
    NCS_OK(ncs_put_att(ncid, NCS_GLOBAL, "us", NCS_USHORT, 2, NCS_USHORT, us));
    NCS_IS(ncs_put_att(ncid, NCS_GLOBAL, "neg", NCS_UINT, 2, NCS_INT64, i64), NCS_ERANGE);
    NCS_OK(ncs_close(ncid));
    NCS_OK(ncs_open(path, NCS_NOWRITE, &ncid));
    NCS_OK(ncs_get_att(ncid, NCS_GLOBAL, "u64", NCS_UINT64, u64g));
    ck_assert(u64g[0] == u64[0] && u64g[1] == 1);
    NCS_OK(ncs_get_att(ncid, NCS_GLOBAL, "i64", NCS_INT64, i64g));
    ck_assert(i64g[0] == i64[0] && i64g[1] == 5);
    NCS_OK(ncs_get_att(ncid, NCS_GLOBAL, "us", NCS_NAT, usg));
    ck_assert(usg[0] == 65535 && usg[1] == 0);
    NCS_IS(ncs_get_att(ncid, NCS_GLOBAL, "u64", NCS_INT64, i64g), NCS_ERANGE);
    ck_assert_int_eq(i64g[1], 1);
    NCS_OK(ncs_close(ncid));
    unlink(path);
}
END_TEST

static Suite *api_suite(void)
{
    Suite *s = suite_create("api");
    TCase *tc = tcase_create("errors");
    tcase_add_test(tc, test_bad_ids);
    tcase_add_test(tc, test_global_varid);
    tcase_add_test(tc, test_modes);
    tcase_add_test(tc, test_files);
    tcase_add_test(tc, test_open_diag);
    tcase_add_test(tc, test_names);
    tcase_add_test(tc, test_def_errors);
    tcase_add_test(tc, test_strerror);
    suite_add_tcase(s, tc);
    tc = tcase_create("attributes");
    tcase_add_test(tc, test_attributes);
    tcase_add_test(tc, test_attributes_cdf5);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return tu_run(api_suite());
}
