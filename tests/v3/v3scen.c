/*
 * v3scen.c -- scenarios of the v3 API that the native differential
 * harnesses do not reach: what netCDF-C's dispatch layer decides (NULL
 * arrays, the modes nc_inq_format_extended reports, size hints), and the
 * calls of the enhanced model, storage and groups on every format.
 *
 * Included by v3side_netcdf.c and v3side_ncslab.c after their netcdf.h,
 * with SIDE naming the table this file defines.  Only the netCDF API is
 * used, so each side runs the very same calls.  A line of the log is
 * "label: status values...".
 */
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "v3scen.h"

#define LOG(...) v3log_printf(log, __VA_ARGS__)
#define NFORMATS 5

static const int formats[NFORMATS] = {
    0, NC_64BIT_OFFSET, NC_64BIT_DATA, NC_NETCDF4 | NC_CLASSIC_MODEL, NC_NETCDF4
};

static void path_of(v3log *log, char *buf, size_t n, const char *name)
{
    snprintf(buf, n, "%s/%s", log->dir, name);
}

/* ---- modes and formats ------------------------------------------------------ */

static void scen_modes(v3log *log)
{
    static const int cmodes[] = {
        NC_CLOBBER, NC_64BIT_OFFSET, NC_64BIT_DATA, NC_NETCDF4 | NC_CLASSIC_MODEL,
        NC_NETCDF4, NC_CLASSIC_MODEL, NC_SHARE | NC_64BIT_OFFSET, NC_NOCLOBBER,
        NC_NETCDF4 | NC_NOATTCREORD, NC_NETCDF4 | NC_NODIMSCALE_ATTACH, 0x10000,
        NC_MPIIO, NC_PERSIST, NC_64BIT_OFFSET | NC_64BIT_DATA,
        NC_NETCDF4 | NC_64BIT_DATA, NC_NETCDF4 | NC_64BIT_OFFSET, NC_LOCK,
        NC_WRITE, NC_CLASSIC_MODEL | NC_64BIT_DATA
    };
    static const int omodes[] = {
        NC_NOWRITE, NC_WRITE, NC_SHARE, NC_WRITE | NC_SHARE, NC_NETCDF4,
        NC_64BIT_DATA, NC_64BIT_OFFSET, NC_NOCLOBBER, 0x10000, NC_CLASSIC_MODEL,
        NC_NETCDF4 | NC_CLASSIC_MODEL
    };
    char path[512];
    for (size_t i = 0; i < sizeof cmodes / sizeof *cmodes; i++) {
        int ncid = -1, f = -1, x = -1, m = -1, rc;
        char name[32];
        snprintf(name, sizeof name, "modes%zu.nc", i);
        path_of(log, path, sizeof path, name);
        remove(path);
        rc = nc_create(path, cmodes[i], &ncid);
        LOG("create %#x: %d", cmodes[i], rc);
        if (rc != NC_NOERR)
            continue;
        { int r1_ = nc_inq_format(ncid, &f); LOG("  inq_format: %d %d", r1_, f); }
        { int r1_ = nc_inq_format_extended(ncid, &x, &m); LOG("  inq_format_extended: %d %d %#x", r1_, x, m); }
        LOG("  close: %d", nc_close(ncid));
        for (size_t j = 0; j < sizeof omodes / sizeof *omodes; j++) {
            rc = nc_open(path, omodes[j], &ncid);
            LOG("  open %#x: %d", omodes[j], rc);
            if (rc != NC_NOERR)
                continue;
            x = m = f = -1;
            { int r1_ = nc_inq_format(ncid, &f); LOG("    inq_format: %d %d", r1_, f); }
            { int r1_ = nc_inq_format_extended(ncid, &x, &m); LOG("    inq_format_extended: %d %d %#x", r1_, x, m); }
            LOG("    close: %d", nc_close(ncid));
        }
    }
    int ncid;
    LOG("open NULL path: %d", nc_open(NULL, 0, &ncid));
    LOG("open empty path: %d", nc_open("", 0, &ncid));
    path_of(log, path, sizeof path, "missing.nc");
    LOG("open missing: %d", nc_open(path, 0, &ncid));
    LOG("inq_format_extended bad id: %d", nc_inq_format_extended(12345, NULL, NULL));
    LOG("inq_format_extended NULLs: %d", nc_inq_format_extended(-1, NULL, NULL));
}

static void scen_path(v3log *log)
{
    char path[512], got[600];
    size_t len = 0, dlen = strlen(log->dir);
    int ncid;
    for (int k = 0; k < NFORMATS; k++) {
        char name[32];
        snprintf(name, sizeof name, "path%d.nc", k);
        path_of(log, path, sizeof path, name);
        { int r2_ = nc_create(path, formats[k] | NC_CLOBBER, &ncid); LOG("create %#x: %d", formats[k], r2_); }
        { int r1_ = nc_inq_path(ncid, &len, NULL); LOG("  inq_path len: %d %zu", r1_, len - dlen); }
        got[0] = 0;
        int rc = nc_inq_path(ncid, NULL, got);
        LOG("  inq_path: %d %s", rc, strncmp(got, log->dir, dlen) == 0 ? got + dlen : got);
        LOG("  close: %d", nc_close(ncid));
        LOG("  inq_path closed: %d", nc_inq_path(ncid, &len, NULL));
    }
}

static void scen_hints(v3log *log)
{
    static const size_t hints[] = { 0, 1, 100, 255, 256, 300, 5000, 8192, 65536,
                                    1000001 };
    char path[512];
    for (int k = 0; k < NFORMATS; k++) {
        for (size_t i = 0; i < sizeof hints / sizeof *hints; i++) {
            int ncid;
            size_t h = hints[i];
            snprintf(path, sizeof path, "%s/hint%d.nc", log->dir, k);
            int rc = nc__create(path, formats[k] | NC_CLOBBER, 0, &h, &ncid);
            LOG("nc__create %#x hint %zu: %d %zu", formats[k], hints[i], rc, h);
            if (rc == NC_NOERR)
                nc_close(ncid);
            h = hints[i];
            rc = nc__open(path, NC_NOWRITE, &h, &ncid);
            LOG("nc__open hint %zu: %d %zu", hints[i], rc, h);
            if (rc == NC_NOERR)
                nc_close(ncid);
        }
        LOG("nc__open NULL hint: %d", nc__open(path, 0, NULL, &(int){ 0 }));
    }
}

/* ---- NULL arrays and the order of checks ---------------------------------------- */

static void log_ints(v3log *log, const char *what, int rc, const int *v, int n)
{
    char buf[512];
    size_t o = 0;
    buf[0] = 0;
    for (int i = 0; i < n && o < sizeof buf - 16; i++)
        o += (size_t)snprintf(buf + o, sizeof buf - o, " %d", v[i]);
    LOG("%s: %d%s", what, rc, rc == NC_NOERR || rc == NC_ERANGE ? buf : "");
}

static void null_calls(v3log *log, int ncid, const char *mode)
{
    /* v: rec x 3 ints (2 records), s: scalar, w: 4 fixed; 99 a bad varid */
    int v, s, w, buf[16];
    size_t st[2] = { 0, 1 }, ct[2] = { 2, 2 }, one[2] = { 1, 1 };
    ptrdiff_t sd[2] = { 1, 1 }, mp[2] = { 2, 1 };
    char what[128];
    nc_inq_varid(ncid, "v", &v);
    nc_inq_varid(ncid, "s", &s);
    nc_inq_varid(ncid, "w", &w);
    int ids[] = { v, s, w, 99 };
    for (int k = 0; k < 4; k++) {
        int id = ids[k];
#define TRY(label, call)                                                     \
    do {                                                                     \
        memset(buf, 0x5a, sizeof buf);                                       \
        snprintf(what, sizeof what, "%s var %d " label, mode, k);            \
        log_ints(log, what, (call), buf, 6);                                 \
    } while (0)
        TRY("get_vara NULL start", nc_get_vara_int(ncid, id, NULL, ct, buf));
        TRY("get_vara NULL count", nc_get_vara_int(ncid, id, st, NULL, buf));
        TRY("get_vara NULL both", nc_get_vara_int(ncid, id, NULL, NULL, buf));
        TRY("get_vara untyped NULL count", nc_get_vara(ncid, id, st, NULL, buf));
        TRY("get_vars NULL stride", nc_get_vars_int(ncid, id, st, ct, NULL, buf));
        TRY("get_vars NULL count", nc_get_vars_int(ncid, id, st, NULL, sd, buf));
        TRY("get_varm NULL stride", nc_get_varm_int(ncid, id, st, ct, NULL, mp, buf));
        TRY("get_varm NULL map", nc_get_varm_int(ncid, id, st, ct, sd, NULL, buf));
        TRY("get_varm NULL all", nc_get_varm_int(ncid, id, NULL, NULL, NULL, NULL, buf));
        TRY("get_var1 NULL", nc_get_var1_int(ncid, id, NULL, buf));
        TRY("get_var1 untyped NULL", nc_get_var1(ncid, id, NULL, buf));
        TRY("get_var", nc_get_var_int(ncid, id, buf));
        TRY("get_var_text", nc_get_var_text(ncid, id, (char *)buf));
        TRY("get_var1 one", nc_get_var1_int(ncid, id, one, buf));
        TRY("put_vara NULL start", nc_put_vara_int(ncid, id, NULL, ct, (int[16]){ 1, 2, 3, 4 }));
        TRY("put_vara NULL count", nc_put_vara_int(ncid, id, st, NULL, (int[16]){ 5, 6, 7, 8 }));
        TRY("put_vars NULL stride", nc_put_vars_int(ncid, id, st, ct, NULL, (int[16]){ 9, 8, 7, 6 }));
        TRY("put_varm NULL stride", nc_put_varm_int(ncid, id, st, ct, NULL, mp, (int[16]){ 3, 3, 4, 4 }));
        TRY("put_var1 NULL", nc_put_var1_int(ncid, id, NULL, (int[1]){ 42 }));
        TRY("put_var", nc_put_var_int(ncid, id, (int[16]){ 11, 12, 13, 14, 15, 16, 17 }));
        TRY("get_var after", nc_get_var_int(ncid, id, buf));
        TRY("put_var_string", nc_put_var_string(ncid, id, (const char *[]){ "a", "b" }));
        TRY("get_vara_string", nc_get_vara_string(ncid, id, st, ct, (char **)buf));
#undef TRY
    }
}

static void scen_nulls(v3log *log)
{
    char path[512];
    for (int k = 0; k < NFORMATS; k++) {
        int ncid, d[2], v, s, w;
        snprintf(path, sizeof path, "%s/nulls%d.nc", log->dir, k);
        LOG("format %#x", formats[k]);
        if (nc_create(path, formats[k] | NC_CLOBBER, &ncid) != NC_NOERR)
            continue;
        nc_def_dim(ncid, "rec", NC_UNLIMITED, &d[0]);
        nc_def_dim(ncid, "x", 3, &d[1]);
        nc_def_var(ncid, "v", NC_INT, 2, d, &v);
        nc_def_var(ncid, "s", NC_INT, 0, NULL, &s);
        nc_def_var(ncid, "w", NC_INT, 1, &d[1], &w);
        null_calls(log, ncid, "define");
        LOG("enddef: %d", nc_enddef(ncid));
        LOG("put 2 records: %d", nc_put_vara_int(ncid, v, (size_t[]){ 0, 0 }, (size_t[]){ 2, 3 },
                                                  (int[]){ 1, 2, 3, 4, 5, 6 }));
        null_calls(log, ncid, "data");
        LOG("close: %d", nc_close(ncid));
        if (nc_open(path, NC_NOWRITE, &ncid) == NC_NOERR) {
            null_calls(log, ncid, "readonly");
            LOG("close: %d", nc_close(ncid));
        }
    }
}

/* ---- groups, types, user-defined types -------------------------------------------- */

/* nc_dump_data of every atomic type, at the ends of its range, and of
 * types that are not atomic. */
static void dump_data(v3log *log, int ncid)
{
    static const signed char b[] = { -128, 0, 127 };
    static const unsigned char ub[] = { 0, 255 };
    static const short sh[] = { -32768, 7 };
    static const unsigned short us[] = { 65535 };
    static const int in[] = { INT_MIN, -2, 300 };
    static const unsigned ui[] = { 4294967295u, 3 };
    static const long long ll[] = { LLONG_MIN, 5 };
    static const unsigned long long ull[] = { ULLONG_MAX };
    static const float f[] = { 1e30f, -0.0f, 1.2345678f, -3e-39f };
    static const double d[] = { 1e300, 1e-300, 123456789.123456789, -0.5 };
    static const char t[] = { 'a', 0, '\'', ' ' };
    static char longstr[301];
    const char *str[] = { NULL, "q\"r", "", longstr };
    static const struct { nc_type type; const void *mem; size_t n; } cases[] = {
        { NC_BYTE, b, 3 }, { NC_UBYTE, ub, 2 }, { NC_SHORT, sh, 2 }, { NC_USHORT, us, 1 },
        { NC_INT, in, 3 }, { NC_UINT, ui, 2 }, { NC_INT64, ll, 2 }, { NC_UINT64, ull, 1 },
        { NC_FLOAT, f, 4 }, { NC_DOUBLE, d, 4 }, { NC_CHAR, t, 4 }, { NC_INT, in, 0 },
        { NC_NAT, in, 1 }, { -3, in, 1 }, { NC_STRING + 1, in, 1 }, { 31, in, 1 },
        { 32, in, 1 }, { 40, in, 1 }
    };
    char sentinel[] = "untouched", *buf;
    memset(longstr, 'a', sizeof longstr - 1);
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        buf = sentinel;
        int r = nc_dump_data(ncid, cases[i].type, (void *)cases[i].mem, cases[i].n, &buf);
        LOG("dump_data %d %zu: %d [%s]", cases[i].type, cases[i].n, r, buf);
        if (buf != sentinel)
            free(buf);
    }
    buf = sentinel;
    { int r1_ = nc_dump_data(ncid, NC_STRING, (void *)str, 4, &buf); LOG("dump_data string: %d [%s]", r1_, buf); }
    if (buf != sentinel)
        free(buf);
    LOG("dump_data no buffer: %d", nc_dump_data(ncid, NC_INT, (void *)in, 1, NULL));
    LOG("dump_data no buffer 13: %d", nc_dump_data(ncid, NC_STRING + 1, (void *)in, 1, NULL));
    buf = sentinel;
    { int r1_ = nc_dump_data(ncid, NC_INT, NULL, 1, &buf); LOG("dump_data no memory: %d [%s]", r1_, buf); }
    { int r1_ = nc_dump_data(ncid, 32, (void *)in, 0, &buf); LOG("dump_data 32 none: %d [%s]", r1_, buf); }
    buf = sentinel;
    { int r1_ = nc_dump_data(ncid + 9999, NC_INT, (void *)in, 1, &buf); LOG("dump_data bad ncid: %d [%s]", r1_, buf); }
    if (buf != sentinel)
        free(buf);
    LOG("dump_data bad ncid 32: %d", nc_dump_data(ncid + 9999, 32, (void *)in, 1, &buf));
}

static void scen_groups(v3log *log)
{
    char path[512], name[NC_MAX_NAME + 1];
    for (int k = 0; k < NFORMATS; k++) {
        int ncid, n = -1, g = -1, ids[8] = { -1, -1, -1 }, eq = -1;
        size_t len = 0, size = 0;
        nc_type t = -1;
        snprintf(path, sizeof path, "%s/groups%d.nc", log->dir, k);
        LOG("format %#x", formats[k]);
        if (nc_create(path, formats[k] | NC_CLOBBER, &ncid) != NC_NOERR)
            continue;
        int d, v;
        nc_def_dim(ncid, "rec", NC_UNLIMITED, &d);
        nc_def_var(ncid, "v", NC_SHORT, 1, &d, &v);
        for (int pass = 0; pass < 2; pass++) {
            LOG("pass %d", pass);
            { int r1_ = nc_inq_grps(ncid, &n, ids); LOG("inq_grps: %d %d", r1_, n); }
            strcpy(name, "?");
            { int r1_ = nc_inq_grpname(ncid, name); LOG("inq_grpname: %d %s", r1_, name); }
            strcpy(name, "?");
            { int r1_ = nc_inq_grpname_full(ncid, &len, name); LOG("inq_grpname_full: %d %zu %s", r1_, len, name); }
            { int r1_ = nc_inq_grpname_len(ncid, &len); LOG("inq_grpname_len: %d %zu", r1_, len); }
            LOG("inq_grp_parent: %d", nc_inq_grp_parent(ncid, &g));
            g = -1;
            { int r1_ = nc_inq_ncid(ncid, "x", &g); LOG("inq_ncid x: %d %d", r1_, g == ncid); }
            g = -1;
            { int r1_ = nc_inq_grp_ncid(ncid, "x", &g); LOG("inq_grp_ncid x: %d %d", r1_, g == ncid); }
            g = -1;
            { int r1_ = nc_inq_grp_full_ncid(ncid, "/", &g); LOG("inq_grp_full_ncid /: %d %d", r1_, g == ncid); }
            LOG("inq_grp_full_ncid /x: %d", nc_inq_grp_full_ncid(ncid, "/x", &g));
            n = -1;
            { int r1_ = nc_inq_varids(ncid, &n, ids); LOG("inq_varids: %d %d %d", r1_, n, ids[0]); }
            n = -1;
            { int r1_ = nc_inq_dimids(ncid, &n, ids, 0); LOG("inq_dimids: %d %d %d", r1_, n, ids[0]); }
            n = -1;
            { int r1_ = nc_inq_typeids(ncid, &n, ids); LOG("inq_typeids: %d %d", r1_, n); }
            n = -1;
            { int r1_ = nc_inq_unlimdims(ncid, &n, ids); LOG("inq_unlimdims: %d %d %d", r1_, n, ids[0]); }
            for (int x = -1; x <= 17; x++) {
                strcpy(name, "?");
                size = 0;
                { int r2_ = nc_inq_type(ncid, x, name, &size); LOG("inq_type %d: %d %s %zu", x, r2_, name,
                    x == NC_STRING ? (size_t)0 : size); }
            }
            static const char *const tn[] = { "byte", "char", "short", "int", "float",
                                              "double", "ubyte", "ushort", "uint", "int64",
                                              "uint64", "string", "long", "nat", "" };
            for (size_t i = 0; i < sizeof tn / sizeof *tn; i++) {
                t = -1;
                { int r2_ = nc_inq_typeid(ncid, tn[i], &t); LOG("inq_typeid %s: %d %d", tn[i], r2_, t); }
            }
            { int r1_ = nc_inq_type_equal(ncid, NC_INT, ncid, NC_INT, &eq); LOG("inq_type_equal: %d %d", r1_, eq); }
            { int r1_ = nc_inq_type_equal(ncid, NC_INT, ncid, NC_SHORT, &eq); LOG("inq_type_equal diff: %d %d", r1_, eq); }
            LOG("inq_user_type: %d", nc_inq_user_type(ncid, NC_INT, name, &size, &t, &len, &n));
            LOG("inq_user_type 32: %d", nc_inq_user_type(ncid, 32, name, &size, &t, &len, &n));
            if (pass == 0)
                dump_data(log, ncid);
            /* ncslab serves the classic data model: what these define in a
             * netCDF-4 file not marked classic-model, netCDF-C alone can
             * (doc/v3.md); in every other format both must refuse it */
            if (formats[k] == NC_NETCDF4) {
                LOG("enhanced model: not compared");
            } else {
                LOG("def_grp: %d", nc_def_grp(ncid, "g", &g));
                LOG("rename_grp: %d", nc_rename_grp(ncid, "r"));
                LOG("def_compound: %d", nc_def_compound(ncid, 8, "c", &t));
                LOG("def_vlen: %d", nc_def_vlen(ncid, "vl", NC_INT, &t));
                LOG("def_enum: %d", nc_def_enum(ncid, NC_INT, "e", &t));
                LOG("def_opaque: %d", nc_def_opaque(ncid, 4, "o", &t));
                LOG("inq_compound 32: %d", nc_inq_compound(ncid, 32, name, &size, &len));
                LOG("inq_vlen 32: %d", nc_inq_vlen(ncid, 32, name, &size, &t));
                LOG("inq_enum 32: %d", nc_inq_enum(ncid, 32, name, &t, &size, &len));
                LOG("inq_opaque 32: %d", nc_inq_opaque(ncid, 32, name, &size));
                static const nc_type uts[] = { -1, NC_INT, NC_STRING + 1, 32 };
                for (size_t u = 0; u < sizeof uts / sizeof *uts; u++) {
                    nc_type ut = uts[u];
                    int fid = -1, nd = -1, dsz[2] = { -1, -1 }, ival = 5;
                    size_t off = 0;
                    nc_vlen_t vl = { 0, NULL };
                    LOG("type %d", ut);
                    LOG("insert_compound: %d", nc_insert_compound(ncid, ut, "f", 0, NC_INT));
                    LOG("insert_array_compound: %d", nc_insert_array_compound(ncid, ut, "a", 4, NC_INT,
                        1, (const int[]){ 2 }));
                    LOG("insert_enum: %d", nc_insert_enum(ncid, ut, "m", &ival));
                    LOG("inq_compound_name: %d", nc_inq_compound_name(ncid, ut, name));
                    LOG("inq_compound_size: %d", nc_inq_compound_size(ncid, ut, &size));
                    LOG("inq_compound_nfields: %d", nc_inq_compound_nfields(ncid, ut, &len));
                    LOG("inq_compound_field: %d", nc_inq_compound_field(ncid, ut, 0, name, &off, &t, &nd, dsz));
                    LOG("inq_compound_fieldname: %d", nc_inq_compound_fieldname(ncid, ut, 0, name));
                    LOG("inq_compound_fieldindex: %d", nc_inq_compound_fieldindex(ncid, ut, "f", &fid));
                    LOG("inq_compound_fieldoffset: %d", nc_inq_compound_fieldoffset(ncid, ut, 0, &off));
                    LOG("inq_compound_fieldtype: %d", nc_inq_compound_fieldtype(ncid, ut, 0, &t));
                    LOG("inq_compound_fieldndims: %d", nc_inq_compound_fieldndims(ncid, ut, 0, &nd));
                    LOG("inq_compound_fielddim_sizes: %d", nc_inq_compound_fielddim_sizes(ncid, ut, 0, dsz));
                    LOG("inq_enum_member: %d", nc_inq_enum_member(ncid, ut, 0, name, &ival));
                    LOG("inq_enum_ident: %d", nc_inq_enum_ident(ncid, ut, 1, name));
                    LOG("put_vlen_element: %d", nc_put_vlen_element(ncid, ut, &vl, 1, &ival));
                    LOG("get_vlen_element: %d", nc_get_vlen_element(ncid, ut, &vl, &size, &ival));
                }
                LOG("put_att_string: %d", nc_put_att_string(ncid, NC_GLOBAL, "s", 1, (const char *[]){ "x" }));
                LOG("def_var string: %d", nc_def_var(ncid, "str", NC_STRING, 0, NULL, &n));
                {
                    char *sv[4] = { NULL, NULL, NULL, NULL };
                    nc_put_att_short(ncid, NC_GLOBAL, "h", NC_SHORT, 1, (const short[]){ 3 });
                    LOG("get_att_string short: %d", nc_get_att_string(ncid, NC_GLOBAL, "h", sv));
                    LOG("get_att_string none: %d", nc_get_att_string(ncid, NC_GLOBAL, "none", sv));
                }
            }
            LOG("inq_base_pe: %d", nc_inq_base_pe(ncid, &n));
            LOG("set_base_pe: %d", nc_set_base_pe(ncid, 0));
            if (pass == 0)
                LOG("enddef: %d", nc_enddef(ncid));
        }
        LOG("close: %d", nc_close(ncid));
        LOG("inq_grps closed: %d", nc_inq_grps(ncid, &n, NULL));
        LOG("inq_type closed: %d", nc_inq_type(ncid, NC_INT, name, &size));
    }
}

/* ---- storage calls on every format --------------------------------------------- */

static void storage_calls(v3log *log, int ncid, int v, const char *when)
{
    int a = -9, b = -9, c = -9;
    size_t cs[2] = { 0, 0 }, sz = 0, ne = 0;
    unsigned id = 99, params[4] = { 0 };
    size_t np = 99;
    float pr = -1;
    { int r2_ = nc_def_var_chunking(ncid, v, NC_CHUNKED, (size_t[]){ 1, 3 }); LOG("%s def_var_chunking: %d", when, r2_); }
    { int r2_ = nc_inq_var_chunking(ncid, v, &a, cs); LOG("%s inq_var_chunking: %d %d %zu %zu", when, r2_, a, cs[0], cs[1]); }
    { int r2_ = nc_def_var_deflate(ncid, v, 1, 1, 3); LOG("%s def_var_deflate: %d", when, r2_); }
    { int r2_ = nc_inq_var_deflate(ncid, v, &a, &b, &c); LOG("%s inq_var_deflate: %d %d %d %d", when, r2_, a, b, c); }
    { int r2_ = nc_def_var_fletcher32(ncid, v, 1); LOG("%s def_var_fletcher32: %d", when, r2_); }
    { int r2_ = nc_inq_var_fletcher32(ncid, v, &a); LOG("%s inq_var_fletcher32: %d %d", when, r2_, a); }
    { int r2_ = nc_def_var_endian(ncid, v, NC_ENDIAN_LITTLE); LOG("%s def_var_endian little: %d", when, r2_); }
    { int r2_ = nc_def_var_endian(ncid, v, 7); LOG("%s def_var_endian 7: %d", when, r2_); }
    a = -9;
    { int r2_ = nc_inq_var_endian(ncid, v, &a); LOG("%s inq_var_endian: %d %d", when, r2_, a); }
    { int r2_ = nc_def_var_filter(ncid, v, 1, 1, (unsigned[]){ 5 }); LOG("%s def_var_filter deflate: %d", when, r2_); }
    { int r2_ = nc_def_var_filter(ncid, v, 999, 0, NULL); LOG("%s def_var_filter 999: %d", when, r2_); }
    { int r2_ = nc_inq_var_filter(ncid, v, &id, &np, params); LOG("%s inq_var_filter: %d %u %zu %u", when, r2_, id, np,
        params[0]); }
    a = b = -9;
    { int r2_ = nc_inq_var_szip(ncid, v, &a, &b); LOG("%s inq_var_szip: %d %d %d", when, r2_, a, b); }
    a = b = -9;
    { int r2_ = nc_inq_var_quantize(ncid, v, &a, &b); LOG("%s inq_var_quantize: %d %d %d", when, r2_, a, b); }
    { int r2_ = nc_set_var_chunk_cache(ncid, v, 1 << 20, 101, 0.5f); LOG("%s set_var_chunk_cache: %d", when, r2_); }
    { int r2_ = nc_set_var_chunk_cache(ncid, v, 1 << 20, 101, 1.5f); LOG("%s set_var_chunk_cache bad: %d", when, r2_); }
    { int r2_ = nc_get_var_chunk_cache(ncid, v, &sz, &ne, &pr); LOG("%s get_var_chunk_cache: %d %zu %zu %.2f", when, r2_, sz, ne, pr); }
    { int r2_ = nc_inq_var_chunking(ncid, 77, &a, cs); int r3_ = nc_inq_var_deflate(ncid, 77, &a, &b, &c); int r4_ = nc_def_var_deflate(ncid, 77, 0, 1, 1); LOG("%s storage bad varid: %d %d %d", when, r2_, r3_, r4_); }
}

static void scen_storage(v3log *log)
{
    char path[512];
    for (int k = 0; k < NFORMATS; k++) {
        int ncid, d[2], v, s;
        snprintf(path, sizeof path, "%s/storage%d.nc", log->dir, k);
        LOG("format %#x", formats[k]);
        if (nc_create(path, formats[k] | NC_CLOBBER, &ncid) != NC_NOERR)
            continue;
        nc_def_dim(ncid, "rec", NC_UNLIMITED, &d[0]);
        nc_def_dim(ncid, "x", 3, &d[1]);
        nc_def_var(ncid, "v", NC_FLOAT, 2, d, &v);
        nc_def_var(ncid, "s", NC_FLOAT, 0, NULL, &s);
        storage_calls(log, ncid, v, "define");
        storage_calls(log, ncid, s, "scalar");
        LOG("enddef: %d", nc_enddef(ncid));
        storage_calls(log, ncid, v, "data");
        LOG("redef: %d", nc_redef(ncid));
        storage_calls(log, ncid, v, "redef");
        LOG("close: %d", nc_close(ncid));
    }
}

/* ---- the filter inquiries --------------------------------------------------------
 * netCDF-C lists the filters of a variable defined in this session from
 * its own list, and those of a variable the file had when it was opened
 * from what HDF5 recorded: then in the file's order, with the parameters
 * HDF5 stored (shuffle's element size among them).  zstd and szip are
 * left out here: Debian's netCDF-C has no zstd, and ncslab no szip
 * (doc/v3.md).  ncslab lays out Fletcher-32 after the other filters,
 * netCDF-C before them (doc/chunking.md), so variables with both are
 * asked about after a reopen only in netCDF-C's file ("foreign" below);
 * skip has a bit set for each variable not asked about. */

static void log_filters(v3log *log, int ncid, int nvars, const char *when, unsigned skip)
{
    static const unsigned fids[] = { 1, 2, 3, 4, 999 };
    for (int v = -1; v <= nvars; v++) {
        if (v >= 0 && (skip >> v) & 1)
            continue;
        unsigned ids[8] = { 0 }, id = 99, p[4] = { 0 };
        size_t n = 99, np = 99;
        int rc = nc_inq_var_filter_ids(ncid, v, &n, ids);
        LOG("%s var %d filter_ids: %d %zu %u %u %u %u", when, v, rc, n, ids[0], ids[1], ids[2],
            ids[3]);
        rc = nc_inq_var_filter_ids(ncid, v, &n, NULL);
        LOG("%s var %d filter_ids count: %d %zu", when, v, rc, n);
        rc = nc_inq_var_filter(ncid, v, &id, &np, p);
        LOG("%s var %d filter: %d %u %zu %u", when, v, rc, id, np, p[0]);
        for (size_t i = 0; i < sizeof fids / sizeof *fids; i++) {
            np = 99;
            p[0] = 0;
            rc = nc_inq_var_filter_info(ncid, v, fids[i], &np, p);
            LOG("%s var %d filter_info %u: %d %zu %u", when, v, fids[i], rc, np, p[0]);
        }
        int a = -9, b = -9, c = -9;
        rc = nc_inq_var_deflate(ncid, v, &a, &b, &c);
        LOG("%s var %d deflate: %d %d %d %d", when, v, rc, a, b, c);
        a = b = -9;
        rc = nc_inq_var_szip(ncid, v, &a, &b);
        LOG("%s var %d szip: %d %d %d", when, v, rc, a, b);
    }
    for (unsigned f = 1; f <= 3; f++)
        LOG("%s filter_avail %u: %d", when, f, nc_inq_filter_avail(ncid, f));
    LOG("%s filter_avail 999: %d", when, nc_inq_filter_avail(ncid, 999));
}

#define F32_AND_MORE ((1u << 4) | (1u << 5))   /* v4 and v5 of scen_filters */

static void scen_filters(v3log *log)
{
    static const int types[] = { NC_INT, NC_SHORT, NC_DOUBLE, NC_BYTE, NC_FLOAT, NC_INT,
                                 NC_FLOAT, NC_INT };
    char path[512];
    for (int k = 0; k < NFORMATS; k++) {
        int ncid, d[2], v[8], w;
        snprintf(path, sizeof path, "%s/filters%d.nc", log->dir, k);
        LOG("format %#x", formats[k]);
        if (nc_create(path, formats[k] | NC_CLOBBER, &ncid) != NC_NOERR)
            continue;
        nc_def_dim(ncid, "t", NC_UNLIMITED, &d[0]);
        nc_def_dim(ncid, "x", 6, &d[1]);
        for (int i = 0; i < 8; i++) {
            char name[8];
            snprintf(name, sizeof name, "v%d", i);
            nc_def_var(ncid, name, types[i], i == 7 ? 0 : i == 6 ? 2 : 1, i == 6 ? d : &d[1],
                       &v[i]);
        }
        LOG("v0 shuffle deflate: %d", nc_def_var_deflate(ncid, v[0], 1, 1, 3));
        LOG("v1 deflate: %d", nc_def_var_deflate(ncid, v[1], 0, 1, 5));
        LOG("v2 fletcher32: %d", nc_def_var_fletcher32(ncid, v[2], 1));
        LOG("v3 shuffle: %d", nc_def_var_deflate(ncid, v[3], 1, 0, 0));
        LOG("v4 deflate: %d", nc_def_var_filter(ncid, v[4], 1, 1, (unsigned[]){ 2 }));
        LOG("v4 fletcher32: %d", nc_def_var_fletcher32(ncid, v[4], 1));
        LOG("v4 shuffle: %d", nc_def_var_filter(ncid, v[4], 2, 0, NULL));
        LOG("v5 fletcher32: %d", nc_def_var_filter(ncid, v[5], 3, 0, NULL));
        LOG("v5 shuffle: %d", nc_def_var_deflate(ncid, v[5], 1, 0, 0));
        LOG("v6 shuffle deflate: %d", nc_def_var_deflate(ncid, v[6], 1, 1, 9));
        log_filters(log, ncid, 8, "define", 0);
        LOG("enddef: %d", nc_enddef(ncid));
        log_filters(log, ncid, 8, "data", 0);
        int vals[6] = { 1, -2, 3, -4, 5, -6 };
        for (int i = 0; i < 6; i++)
            nc_put_var_int(ncid, v[i], vals);
        LOG("close: %d", nc_close(ncid));
        LOG("open: %d", nc_open(path, NC_NOWRITE, &ncid));
        log_filters(log, ncid, 8, "reopened", F32_AND_MORE);
        LOG("close: %d", nc_close(ncid));
        LOG("open write: %d", nc_open(path, NC_WRITE, &ncid));
        LOG("redef: %d", nc_redef(ncid));
        LOG("def_var w: %d", nc_def_var(ncid, "w", NC_SHORT, 1, &d[1], &w));
        LOG("w shuffle deflate: %d", nc_def_var_deflate(ncid, w, 1, 1, 1));
        log_filters(log, ncid, 9, "added", F32_AND_MORE);
        LOG("enddef: %d", nc_enddef(ncid));
        log_filters(log, ncid, 9, "added data", F32_AND_MORE);
        LOG("close: %d", nc_close(ncid));
        LOG("open: %d", nc_open(path, NC_NOWRITE, &ncid));
        log_filters(log, ncid, 9, "reopened again", F32_AND_MORE);
        LOG("close: %d", nc_close(ncid));
    }
}

/* A file netCDF-C wrote, read through each library: filters in netCDF-C's
 * order with Fletcher-32 first, and filters ncslab does not run (szip,
 * N-bit, scale-offset), whose ids and parameters, as the file records them, are listed
 * and whose data read back.  (Fletcher-32 before
 * szip would make ncslab refuse the file: HDF5 1.10 reads past a buffer
 * there, lib/store/hdf5/h5_meta_read.c.)  The reference side
 * runs first and writes the file (V3SCEN_REFERENCE); the other reads it. */
static void scen_foreign(v3log *log)
{
    char path[512];
    int ncid, nvars = -1;
    snprintf(path, sizeof path, "%s/../netcdf/foreign.nc4", log->dir);
#ifdef V3SCEN_REFERENCE
    {
        int d, v[7], vals[24];
        unsigned nbit = 5, szip = 4, sz[2] = { 32, 8 };
        for (int i = 0; i < 24; i++)
            vals[i] = i * 37 - 400;
        nc_create(path, NC_NETCDF4 | NC_CLASSIC_MODEL | NC_CLOBBER, &ncid);
        nc_def_dim(ncid, "x", 24, &d);
        for (int i = 0; i < 7; i++) {
            char name[8];
            snprintf(name, sizeof name, "f%d", i);
            nc_def_var(ncid, name, i == 1 ? NC_SHORT : NC_INT, 1, &d, &v[i]);
        }
        nc_def_var_deflate(ncid, v[0], 1, 1, 4);
        nc_def_var_fletcher32(ncid, v[0], 1);
        nc_def_var_fletcher32(ncid, v[1], 1);
        nc_def_var_deflate(ncid, v[1], 1, 0, 0);
        nc_def_var_filter(ncid, v[2], nbit, 0, NULL);
        nc_def_var_filter(ncid, v[3], szip, 2, sz);
        nc_def_var_deflate(ncid, v[4], 1, 0, 0);
        nc_def_var_filter(ncid, v[4], szip, 2, sz);
        nc_def_var_deflate(ncid, v[5], 0, 1, 1);
        /* scale-offset, integers, minimum bits: 20 values in the file */
        nc_def_var_filter(ncid, v[6], 6, 2, (const unsigned[]){ 2, 0 });
        nc_enddef(ncid);
        for (int i = 0; i < 7; i++)
            nc_put_var_int(ncid, v[i], vals);
        nc_close(ncid);
    }
#endif
    LOG("open: %d", nc_open(path, NC_NOWRITE, &ncid));
    LOG("inq_nvars: %d %d", nc_inq_nvars(ncid, &nvars), nvars);
    for (int v = -1; v <= nvars; v++) {
        unsigned ids[8] = { 0 }, id = 99;
        size_t n = 99, np = 99;
        int a = -9, b = -9, c, vals[24] = { 0 };
        int rc = nc_inq_var_filter_ids(ncid, v, &n, ids);
        LOG("var %d filter_ids: %d %zu %u %u %u %u", v, rc, n, ids[0], ids[1], ids[2], ids[3]);
        unsigned fp[32] = { 0 };
        rc = nc_inq_var_filter(ncid, v, &id, &np, fp);
        LOG("var %d filter: %d %u %zu %u %u %u %u", v, rc, id, np, fp[0], fp[1], fp[2], fp[3]);
        for (unsigned f = 1; f <= 6; f++) {
            np = 99;
            memset(fp, 0, sizeof fp);
            rc = nc_inq_var_filter_info(ncid, v, f, &np, NULL);
            if (rc == NC_NOERR && np <= 32)
                rc = nc_inq_var_filter_info(ncid, v, f, &np, fp);
            LOG("var %d filter_info %u: %d %zu", v, f, rc, np);
            for (size_t k = 0; rc == NC_NOERR && k < np && k < 32; k++)
                LOG("  param %zu: %u", k, fp[k]);
        }
        a = b = -9;
        rc = nc_inq_var_szip(ncid, v, &a, &b);
        LOG("var %d szip: %d %d %d", v, rc, a, b);
        c = -9;
        rc = nc_inq_var_deflate(ncid, v, &a, &b, &c);
        LOG("var %d deflate: %d %d %d %d", v, rc, a, b, c);
        rc = nc_inq_var_fletcher32(ncid, v, &a);
        LOG("var %d fletcher32: %d %d", v, rc, a);
        rc = nc_get_var_int(ncid, v, vals);
        LOG("var %d get: %d %d %d %d", v, rc, vals[0], vals[11], vals[23]);
    }
    LOG("close: %d", nc_close(ncid));
}

/* ---- nc_copy_var and nc_delete ------------------------------------------------- */

static void scen_copy(v3log *log)
{
    char in[512], out[512];
    for (int k = 0; k < 3; k++) {
        int a, b, d[2], v, w, o[2];
        snprintf(in, sizeof in, "%s/copyin%d.nc", log->dir, k);
        snprintf(out, sizeof out, "%s/copyout%d.nc", log->dir, k);
        LOG("format %#x", formats[k]);
        nc_create(in, formats[k] | NC_CLOBBER, &a);
        nc_def_dim(a, "t", NC_UNLIMITED, &d[0]);
        nc_def_dim(a, "x", 5, &d[1]);
        nc_def_var(a, "v", NC_SHORT, 2, d, &v);
        nc_def_var(a, "w", NC_DOUBLE, 1, &d[1], &w);
        nc_put_att_text(a, v, "units", 1, "m");
        nc_put_att_double(a, w, "scale", NC_FLOAT, 1, (double[]){ 0.5 });
        nc_enddef(a);
        short sv[20];
        for (int i = 0; i < 20; i++)
            sv[i] = (short)(i * 7 - 30);
        nc_put_vara_short(a, v, (size_t[]){ 0, 0 }, (size_t[]){ 4, 5 }, sv);
        nc_put_var_double(a, w, (double[]){ 1.5, 2.5, 3.5, 4.5, 5.5 });
        nc_create(out, formats[k] | NC_CLOBBER, &b);
        LOG("copy_var no dims: %d", nc_copy_var(a, v, b));
        nc_def_dim(b, "t", NC_UNLIMITED, &o[0]);
        nc_def_dim(b, "x", 5, &o[1]);
        LOG("copy_var v: %d", nc_copy_var(a, v, b));
        LOG("copy_var w in data mode: %d", nc_copy_var(a, w, b));
        LOG("redef: %d", nc_redef(b));
        LOG("copy_var w: %d", nc_copy_var(a, w, b));
        LOG("copy_var bad varid: %d", nc_copy_var(a, 9, b));
        LOG("copy_var again: %d", nc_copy_var(a, w, b));
        { int r1_ = nc_close(a); int r2_ = nc_close(b); LOG("close: %d %d", r1_, r2_); }
    }
    char bad[512];
    snprintf(bad, sizeof bad, "%s/notnc.txt", log->dir);
    FILE *fp = fopen(bad, "w");
    if (fp != NULL) {
        fputs("not a netCDF file\n", fp);
        fclose(fp);
    }
    LOG("delete not netCDF: %d", nc_delete(bad));
    LOG("delete copyin0: %d", nc_delete(in));
    LOG("delete again: %d", nc_delete(in));
    LOG("delete_mp pe 1: %d", nc_delete_mp(out, 1));
}

/* ---- per-variable fill mode ------------------------------------------------ */

static void log_fill(v3log *log, int ncid, int varid, const char *when)
{
    int nofill = -1;
    unsigned char v[8];
    memset(v, 0xa5, sizeof v);
    int rc = nc_inq_var_fill(ncid, varid, &nofill, v);
    LOG("%s inq_var_fill %d: %d %d %02x%02x%02x%02x%02x%02x%02x%02x", when, varid, rc, nofill,
        v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]);
}

static void scen_fill(v3log *log)
{
    char path[512];
    for (int k = 0; k < NFORMATS; k++) {
        for (int filemode = 0; filemode < 2; filemode++) {
            int ncid, d[2], a, b, c, e, old, rc;
            snprintf(path, sizeof path, "%s/fill%d_%d.nc", log->dir, k, filemode);
            LOG("format %#x file mode %s", formats[k], filemode ? "nofill" : "fill");
            if (nc_create(path, formats[k] | NC_CLOBBER, &ncid) != NC_NOERR)
                continue;
            if (filemode) {
                rc = nc_set_fill(ncid, NC_NOFILL, &old);
                LOG("set_fill: %d %d", rc, old);
            }
            nc_def_dim(ncid, "rec", NC_UNLIMITED, &d[0]);
            nc_def_dim(ncid, "x", 6, &d[1]);
            nc_def_var(ncid, "a", NC_SHORT, 1, &d[1], &a);
            nc_def_var(ncid, "b", NC_INT, 2, d, &b);
            nc_def_var(ncid, "c", NC_DOUBLE, 1, &d[1], &c);
            nc_def_var(ncid, "e", NC_BYTE, 2, d, &e);
            log_fill(log, ncid, a, "new");
            rc = nc_def_var_fill(ncid, a, 1, NULL);
            LOG("def_var_fill a off: %d", rc);
            rc = nc_def_var_fill(ncid, c, 0, (double[]){ -1.5 });
            LOG("def_var_fill c on, -1.5: %d", rc);
            rc = nc_def_var_fill(ncid, b, 0, NULL);
            LOG("def_var_fill b on: %d", rc);
            rc = nc_def_var_fill(ncid, e, 1, (signed char[]){ 3 });
            LOG("def_var_fill e off with a value: %d", rc);
            rc = nc_def_var_fill(ncid, NC_GLOBAL, 0, NULL);
            LOG("def_var_fill global: %d", rc);
            rc = nc_def_var_fill(ncid, 9, 0, NULL);
            LOG("def_var_fill bad varid: %d", rc);
            rc = nc_inq_var_fill(ncid, 9, NULL, NULL);
            LOG("inq_var_fill bad varid: %d", rc);
            rc = nc_inq_var_fill(ncid, NC_GLOBAL, NULL, NULL);
            LOG("inq_var_fill global: %d", rc);
            for (int v = 0; v < 4; v++)
                log_fill(log, ncid, v, "define");
            rc = nc_enddef(ncid);
            LOG("enddef: %d", rc);
            rc = nc_put_vara_int(ncid, b, (size_t[]){ 2, 0 }, (size_t[]){ 1, 6 },
                                 (int[]){ 1, 2, 3, 4, 5, 6 });
            LOG("put record 2 of b: %d", rc);
            rc = nc_def_var_fill(ncid, a, 0, NULL);
            LOG("def_var_fill in data mode: %d", rc);
            for (int v = 0; v < 4; v++)
                log_fill(log, ncid, v, "data");
            rc = nc_redef(ncid);
            LOG("redef: %d", rc);
            int f;
            nc_def_var(ncid, "f", NC_FLOAT, 2, d, &f);
            rc = nc_def_var_fill(ncid, f, 0, (float[]){ 7.25f });
            LOG("def_var_fill new f: %d", rc);
            rc = nc_def_var_fill(ncid, b, 1, NULL);
            LOG("def_var_fill old b: %d", rc);
            rc = nc_set_fill(ncid, filemode ? NC_FILL : NC_NOFILL, &old);
            LOG("set_fill flip: %d %d", rc, old);
            for (int v = 0; v < 5; v++)
                log_fill(log, ncid, v, "redef");
            rc = nc_enddef(ncid);
            LOG("enddef: %d", rc);
            rc = nc_close(ncid);
            LOG("close: %d", rc);
            if (nc_open(path, NC_NOWRITE, &ncid) == NC_NOERR) {
                for (int v = 0; v < 5; v++)
                    log_fill(log, ncid, v, "reopened");
                int vals[18];
                memset(vals, 0, sizeof vals);
                rc = nc_get_vara_int(ncid, b, (size_t[]){ 0, 0 }, (size_t[]){ 3, 6 }, vals);
                LOG("b read: %d %d %d %d", rc, vals[0], vals[6], vals[12]);
                nc_close(ncid);
            }
        }
    }
}

/* ---- in-memory and diskless files ---------------------------------------------- */

/* FNV-1a of a block, to log the bytes of a file in memory. */
static unsigned long long fnv(const void *p, size_t n)
{
    const unsigned char *b = p;
    unsigned long long h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 1099511628211ULL;
    return h;
}

static void small_file(v3log *log, int ncid)
{
    int d[2], v, rc;
    nc_def_dim(ncid, "t", NC_UNLIMITED, &d[0]);
    nc_def_dim(ncid, "x", 3, &d[1]);
    nc_def_var(ncid, "v", NC_INT, 2, d, &v);
    nc_put_att_text(ncid, NC_GLOBAL, "title", 3, "mem");
    rc = nc_enddef(ncid);
    LOG("enddef: %d", rc);
    rc = nc_put_vara_int(ncid, v, (size_t[]){ 0, 0 }, (size_t[]){ 2, 3 }, (int[]){ 1, 2, 3, 4, 5, 6 });
    LOG("put: %d", rc);
}

static void read_back(v3log *log, int ncid, const char *what)
{
    int v = -1, vals[6] = { 0 }, rc;
    size_t len = 0;
    char path[512] = "";
    rc = nc_inq_varid(ncid, "v", &v);
    LOG("%s inq_varid: %d", what, rc);
    rc = nc_get_var_int(ncid, v, vals);
    LOG("%s get: %d %d %d %d", what, rc, vals[0], vals[3], vals[5]);
    rc = nc_inq_path(ncid, &len, NULL);
    if (rc == NC_NOERR && len < sizeof path)
        nc_inq_path(ncid, NULL, path);
    LOG("%s inq_path: %d %s", what, rc, strrchr(path, '/') ? strrchr(path, '/') + 1 : path);
    rc = nc_put_var1_int(ncid, v, (size_t[]){ 0, 0 }, (int[]){ 9 });
    LOG("%s put read-only: %d", what, rc);
}

static void scen_memory(v3log *log)
{
    char path[512];
    for (int k = 0; k < 4; k++) {
        int ncid, rc, x = -1, m = -1;
        NC_memio mio = { 0, NULL, 0 };
        /* HDF5 files of the two libraries differ in their bytes: for a
         * netCDF-4 file only what reads back is compared */
        int bytes = k < 3;
        LOG("format %#x", formats[k]);
        snprintf(path, sizeof path, "%s/mem%d.nc", log->dir, k);
        rc = nc_create_mem(path, formats[k], 0, &ncid);
        LOG("create_mem: %d", rc);
        if (rc != NC_NOERR)
            continue;
        rc = nc_inq_format_extended(ncid, &x, &m);
        LOG("inq_format_extended: %d %d %#x", rc, x, m);
        small_file(log, ncid);
        rc = nc_close_memio(ncid, &mio);
        LOG("close_memio: %d %zu %016llx %d", rc, bytes ? mio.size : 0,
            mio.memory && bytes ? fnv(mio.memory, mio.size) : 0ULL, mio.flags);
        LOG("no file on disk: %d", access(path, F_OK) != 0);
        if (rc != NC_NOERR || mio.memory == NULL)
            continue;
        rc = nc_open_mem(path, NC_NOWRITE, mio.size, mio.memory, &ncid);
        LOG("open_mem: %d", rc);
        if (rc == NC_NOERR) {
            read_back(log, ncid, "open_mem");
            NC_memio back = { 0, NULL, 0 };
            rc = nc_close_memio(ncid, &back);
            LOG("close_memio of open_mem: %d %d %d %d", rc, back.memory == mio.memory,
                back.size == mio.size, back.flags);
        }
        NC_memio in = { mio.size, mio.memory, NC_MEMIO_LOCKED };
        rc = nc_open_memio(path, NC_NOWRITE, &in, &ncid);
        LOG("open_memio: %d", rc);
        if (rc == NC_NOERR) {
            read_back(log, ncid, "open_memio");
            rc = nc_close(ncid);
            LOG("close: %d", rc);
        }
        LOG("open_mem NULL memory: %d", nc_open_mem(path, 0, 100, NULL, &ncid));
        LOG("open_mem size 2: %d", nc_open_mem(path, 0, 2, mio.memory, &ncid));
        LOG("open_mem NC_WRITE: %d", nc_open_mem(path, NC_WRITE, mio.size, mio.memory, &ncid));
        LOG("create_mem NC_MMAP: %d", nc_create_mem(path, NC_MMAP, 0, &ncid));
        free(mio.memory);

        /* diskless, kept at close and not */
        snprintf(path, sizeof path, "%s/diskless%d.nc", log->dir, k);
        remove(path);
        rc = nc_create(path, formats[k] | NC_DISKLESS | NC_PERSIST, &ncid);
        LOG("create diskless persist: %d", rc);
        if (rc == NC_NOERR) {
            small_file(log, ncid);
            LOG("no file before close: %d", access(path, F_OK) != 0);
            rc = nc_close(ncid);
            LOG("close: %d, file now: %d", rc, access(path, F_OK) == 0);
        }
        rc = nc_create(path, formats[k] | NC_DISKLESS | NC_PERSIST | NC_NOCLOBBER, &ncid);
        LOG("create diskless persist noclobber over it: %d", rc);
        if (rc == NC_NOERR) {
            small_file(log, ncid);
            rc = nc_close(ncid);
            LOG("close: %d", rc);
        }
        rc = nc_open(path, NC_NOWRITE | NC_DISKLESS, &ncid);
        LOG("open diskless: %d", rc);
        if (rc == NC_NOERR) {
            read_back(log, ncid, "diskless");
            rc = nc_close(ncid);
            LOG("close: %d", rc);
        }
        /* nc_open with NC_INMEMORY and no block crashes netCDF-C 4.9.0
         * (doc/v3.md), so it is not called here */
        /* written in memory: a value changed and a variable added (a
         * redefinition), kept or not */
        for (int keep = 0; keep < 2; keep++) {
            rc = nc_open(path, NC_WRITE | NC_DISKLESS | (keep ? NC_PERSIST : 0), &ncid);
            LOG("open diskless write%s: %d", keep ? " persist" : "", rc);
            if (rc != NC_NOERR)
                continue;
            int v, w, dx;
            nc_inq_varid(ncid, "v", &v);
            rc = nc_put_var1_int(ncid, v, (size_t[]){ 1, 1 }, (int[]){ 50 + keep });
            LOG("put: %d", rc);
            rc = nc_redef(ncid);
            LOG("redef: %d", rc);
            nc_inq_dimid(ncid, "x", &dx);
            rc = nc_def_var(ncid, "w", NC_SHORT, 1, &dx, &w);
            LOG("def_var: %d", rc);
            rc = nc_put_att_text(ncid, NC_GLOBAL, "history", 7, "redef'd");
            LOG("put_att: %d", rc);
            rc = nc_enddef(ncid);
            LOG("enddef: %d", rc);
            rc = nc_put_var_short(ncid, w, (short[]){ 7, 8, 9 });
            LOG("put w: %d", rc);
            rc = nc_close(ncid);
            LOG("close: %d", rc);
            rc = nc_open(path, NC_NOWRITE, &ncid);
            int nv = -1, val = -1;
            nc_inq_nvars(ncid, &nv);
            nc_get_var1_int(ncid, v, (size_t[]){ 1, 1 }, &val);
            LOG("on disk now: %d %d vars, v[1][1] %d", rc, nv, val);
            nc_close(ncid);
        }
        FILE *fp = fopen(path, "rb");
        static unsigned char disk[1 << 16];
        size_t dn = fp ? fread(disk, 1, sizeof disk, fp) : 0;
        if (fp)
            fclose(fp);
        void *owned = malloc(dn ? dn : 1);
        memcpy(owned, disk, dn);
        NC_memio wio = { dn, owned, 0 };
        rc = nc_open_memio(path, NC_WRITE, &wio, &ncid);
        LOG("open_memio write: %d", rc);
        if (rc == NC_NOERR) {
            int v;
            nc_inq_varid(ncid, "v", &v);
            rc = nc_put_var1_int(ncid, v, (size_t[]){ 0, 2 }, (int[]){ -3 });
            LOG("put: %d", rc);
            NC_memio out = { 0, NULL, 0 };
            rc = nc_close_memio(ncid, &out);
            LOG("close_memio: %d %zu %016llx", rc, bytes ? out.size : 0,
                out.memory && bytes ? fnv(out.memory, out.size) : 0ULL);
            if (!bytes && out.memory != NULL) {
                int again, vv, val = -1;
                rc = nc_open_mem(path, NC_NOWRITE, out.size, out.memory, &again);
                nc_inq_varid(again, "v", &vv);
                nc_get_var1_int(again, vv, (size_t[]){ 0, 2 }, &val);
                LOG("its bytes read back: %d %d", rc, val);
                nc_close(again);
            }
            free(out.memory);
        } else {
            free(owned);
        }
        NC_memio lio = { dn, disk, NC_MEMIO_LOCKED };
        rc = nc_open_memio(path, NC_NOWRITE, &lio, &ncid);
        LOG("open_memio locked read: %d", rc);
        if (rc == NC_NOERR)
            nc_close(ncid);
        char gone[512];
        snprintf(gone, sizeof gone, "%s/gone%d.nc", log->dir, k);
        rc = nc_create(gone, formats[k] | NC_DISKLESS, &ncid);
        LOG("create diskless: %d", rc);
        if (rc == NC_NOERR) {
            small_file(log, ncid);
            rc = nc_close(ncid);
            LOG("close: %d, no file: %d", rc, access(gone, F_OK) != 0);
        }
    }
}

/* ---- library-wide settings -------------------------------------------------------- */

static void scen_settings(v3log *log)
{
    size_t sz = 0, ne = 0;
    float pr = -1;
    int old = -1, t = -9, a = -9;
    { int r1_ = nc_get_chunk_cache(&sz, &ne, &pr); LOG("get_chunk_cache: %d %zu %.2f", r1_, ne, pr); }
    LOG("set_chunk_cache: %d", nc_set_chunk_cache(32 << 20, 1009, 0.5f));
    { int r1_ = nc_get_chunk_cache(&sz, &ne, &pr); LOG("get_chunk_cache: %d %zu %zu %.2f", r1_, sz, ne, pr); }
    LOG("set_chunk_cache bad: %d", nc_set_chunk_cache(32 << 20, 1009, 2.0f));
    LOG("set_chunk_cache back: %d", nc_set_chunk_cache(16 << 20, 4133, 0.75f));
    { int r1_ = nc_set_default_format(NC_FORMAT_NETCDF4, &old); LOG("set_default_format 4: %d %d", r1_, old); }
    { int r1_ = nc_set_default_format(9, &old); LOG("set_default_format 9: %d %d", r1_, old); }
    { int r1_ = nc_set_default_format(NC_FORMAT_CLASSIC, &old); LOG("set_default_format 1: %d %d", r1_, old); }
    LOG("set_log_level: %d", nc_set_log_level(NC_TURN_OFF_LOGGING));
    { int r1_ = nc_get_alignment(&t, &a); LOG("get_alignment: %d %d %d", r1_, t, a); }
    LOG("inq_libvers non-empty: %d", nc_inq_libvers()[0] != 0);
    LOG("strerror ENOTNC4 non-empty: %d", nc_strerror(NC_ENOTNC4)[0] != 0);
    nc_vlen_t vl = { 3, malloc(12) };
    LOG("free_vlen: %d", nc_free_vlen(&vl));
    char *strs[2] = { malloc(4), malloc(5) };
    LOG("free_string: %d", nc_free_string(2, strs));
}

/* The text of every status code: programs print them, so they are part of
 * the interface.  netCDF-C names -1 to NC4_LAST_ERROR with gaps, passes
 * positive codes to the system's strerror and says "Unknown Error" for the
 * rest, ncslab's own codes past netCDF's among them (-212, -236, -250). */
static void scen_strerror(v3log *log)
{
    static const int far[] = { INT_MIN, INT_MIN + 1, -100000, -32768, 32768, 100000,
                               INT_MAX - 1, INT_MAX };
    for (int code = -1100; code <= 200; code++) {
        const char *s = nc_strerror(code);
        LOG("strerror %d: %s", code, s != NULL ? s : "(null)");
    }
    for (size_t i = 0; i < sizeof far / sizeof *far; i++) {
        const char *s = nc_strerror(far[i]);
        LOG("strerror %d: %s", far[i], s != NULL ? s : "(null)");
    }
}

/* ---- quantization and byte order (netCDF-4) --------------------------------- */

/* n test values: a spread of magnitudes and signs, with zeros, the fill
 * value and subnormals among them (no infinities or NaNs: see doc/v3.md,
 * "Where netCDF-C is wrong", for those). */
static void q_values(double *v, int n, unsigned seed)
{
    for (int i = 0; i < n; i++) {
        seed = seed * 1103515245u + 12345u;
        double m = (double)(seed >> 8) / (double)(1u << 24);
        int e = (int)((seed >> 3) % 61) - 30;
        v[i] = ((seed & 1) ? -m : m) * ldexp(1.0, e);
    }
    v[0] = 0;
    v[3] = NC_FILL_FLOAT;
    v[5] = 1e-40;      /* a float subnormal */
    v[7] = 1.0;
    v[8] = 123456.789;
}

static void q_log_bits(v3log *log, const char *what, int rc, const void *p, int xtype, int n)
{
    char buf[2048];
    size_t o = 0;
    for (int i = 0; i < n && o + 20 < sizeof buf; i++) {
        if (xtype == NC_FLOAT) {
            unsigned u;
            memcpy(&u, (const float *)p + i, 4);
            o += (size_t)snprintf(buf + o, sizeof buf - o, " %08x", u);
        } else {
            unsigned long long u;
            memcpy(&u, (const double *)p + i, 8);
            o += (size_t)snprintf(buf + o, sizeof buf - o, " %016llx", u);
        }
    }
    buf[o] = 0;
    LOG("%s: %d%s", what, rc, buf);
}

static void scen_quantize(v3log *log)
{
    static const int modes[] = { NC_QUANTIZE_BITGROOM, NC_QUANTIZE_GRANULARBR,
                                 NC_QUANTIZE_BITROUND };
    char path[512], name[NC_MAX_NAME + 1];
    double vals[24];
    float fv[24];
    int ncid, dims[2], mode, nsd, n;
    q_values(vals, 24, 7);
    for (int i = 0; i < 24; i++)
        fv[i] = (float)vals[i];
    for (int k = 0; k < NFORMATS; k++) {
        path_of(log, path, sizeof path, "quantize.nc");
        LOG("format %#x", formats[k]);
        { int r1_ = nc_create(path, formats[k] | NC_CLOBBER, &ncid); LOG("create: %d", r1_); }
        nc_def_dim(ncid, "r", NC_UNLIMITED, &dims[0]);
        nc_def_dim(ncid, "c", 6, &dims[1]);
        int vi, vc, vf[8], nv = 0;
        nc_def_var(ncid, "i", NC_INT, 2, dims, &vi);
        nc_def_var(ncid, "t", NC_CHAR, 2, dims, &vc);
        LOG("quantize int: %d", nc_def_var_quantize(ncid, vi, NC_QUANTIZE_BITGROOM, 3));
        LOG("quantize int off: %d", nc_def_var_quantize(ncid, vi, NC_NOQUANTIZE, 99));
        LOG("quantize bad varid: %d", nc_def_var_quantize(ncid, 99, NC_QUANTIZE_BITGROOM, 3));
        LOG("inq quantize bad varid: %d", nc_inq_var_quantize(ncid, 99, &mode, &nsd));
        LOG("endian char: %d", nc_def_var_endian(ncid, vc, NC_ENDIAN_BIG));
        { int r1_ = nc_inq_var_endian(ncid, vi, &mode); LOG("inq endian new: %d %d", r1_, r1_ ? -1 : mode); }
        LOG("endian int big: %d", nc_def_var_endian(ncid, vi, NC_ENDIAN_BIG));
        { int r1_ = nc_inq_var_endian(ncid, vi, &mode); LOG("inq endian set: %d %d", r1_, r1_ ? -1 : mode); }
        for (int t = 0; t < 2; t++) {
            int xtype = t ? NC_DOUBLE : NC_FLOAT;
            for (int m = 0; m < 3; m++) {
                int max = modes[m] == NC_QUANTIZE_BITROUND ? (t ? 52 : 23) : (t ? 15 : 7);
                snprintf(name, sizeof name, "v%d_%d", t, m);
                nc_def_var(ncid, name, xtype, 2, dims, &vf[nv]);
                LOG("%s nsd 0: %d", name, nc_def_var_quantize(ncid, vf[nv], modes[m], 0));
                LOG("%s nsd max+1: %d", name, nc_def_var_quantize(ncid, vf[nv], modes[m], max + 1));
                LOG("%s mode 4: %d", name, nc_def_var_quantize(ncid, vf[nv], 4, 3));
                /* one digit count less than the top: the top of BitGroom on
                 * floats is where netCDF-C is wrong */
                nsd = modes[m] == NC_QUANTIZE_BITROUND ? 1 + m * 3 + t * 20 : (max > 7 ? 9 : 3);
                LOG("%s nsd %d: %d", name, nsd, nc_def_var_quantize(ncid, vf[nv], modes[m], nsd));
                { int r1_ = nc_inq_var_quantize(ncid, vf[nv], &mode, &n); LOG("%s inq: %d %d %d", name, r1_, r1_ ? -1 : mode, r1_ ? -1 : n); }
                if (m == 1)
                    LOG("%s endian big: %d", name, nc_def_var_endian(ncid, vf[nv], NC_ENDIAN_BIG));
                if (m == 2)
                    LOG("%s fill: %d", name, nc_put_att_double(ncid, vf[nv], "_FillValue", xtype, 1, &vals[9]));
                nv++;
            }
        }
        /* netCDF-C 4.9 fails the enddef of a classic-model file with a
         * quantized variable (doc/v3.md, "Where netCDF-C is wrong"): there
         * the settings are taken back, and only the checks compared */
        if (formats[k] == (NC_NETCDF4 | NC_CLASSIC_MODEL))
            for (int i = 0; i < nv; i++)
                LOG("quantize off %d: %d", i, nc_def_var_quantize(ncid, vf[i], NC_NOQUANTIZE, 0));
        { int r1_ = nc_inq_varnatts(ncid, vf[0], &n); LOG("natts before enddef: %d %d", r1_, n); }
        LOG("enddef: %d", nc_enddef(ncid));
        for (int i = 0; i < nv; i++) {
            int na = 0;
            nc_inq_varnatts(ncid, vf[i], &na);
            for (int a = 0; a < na; a++) {
                int iv = -1;
                nc_inq_attname(ncid, vf[i], a, name);
                { int r2_ = nc_get_att_int(ncid, vf[i], name, &iv); LOG("var %d att %d %s: %d %d", i, a, name, r2_, r2_ ? -1 : iv); }
            }
        }
        LOG("quantize after enddef: %d", nc_def_var_quantize(ncid, vf[0], NC_QUANTIZE_BITROUND, 3));
        LOG("endian after enddef: %d", nc_def_var_endian(ncid, vf[0], NC_ENDIAN_LITTLE));
        LOG("put int: %d", nc_put_vara_int(ncid, vi, (size_t[]){ 0, 0 }, (size_t[]){ 1, 6 },
                                            (int[]){ 1, -2, 3, 70000, 5, 6 }));
        for (int i = 0; i < nv; i++) {
            int xt = i >= 3 ? NC_DOUBLE : NC_FLOAT;
            /* a float and a double request, a strided one, a mapped one
             * (transposed), one element */
            LOG("put %d float: %d", i, nc_put_vara_float(ncid, vf[i], (size_t[]){ 0, 0 }, (size_t[]){ 2, 6 }, fv));
            LOG("put %d double: %d", i, nc_put_vara_double(ncid, vf[i], (size_t[]){ 2, 0 }, (size_t[]){ 1, 5 }, vals + 12));
            LOG("put %d strided: %d", i, nc_put_vars_double(ncid, vf[i], (size_t[]){ 3, 0 }, (size_t[]){ 2, 3 },
                                                         (ptrdiff_t[]){ 1, 2 }, vals + 5));
            LOG("put %d mapped: %d", i, nc_put_varm_double(ncid, vf[i], (size_t[]){ 5, 0 }, (size_t[]){ 2, 6 },
                                                        NULL, (ptrdiff_t[]){ 1, 2 }, vals + 1));
            LOG("put %d mapped rows: %d", i, nc_put_varm_double(ncid, vf[i], (size_t[]){ 7, 0 }, (size_t[]){ 2, 6 },
                                                             (ptrdiff_t[]){ 1, 1 }, (ptrdiff_t[]){ 6, 1 }, vals + 3));
            LOG("put %d one: %d", i, nc_put_var1_double(ncid, vf[i], (size_t[]){ 4, 5 }, vals + 8));
            (void)xt;
        }
        LOG("sync: %d", nc_sync(ncid));
        for (int pass = 0; pass < 2; pass++) {
            for (int i = 0; i < nv; i++) {
                int xt = i >= 3 ? NC_DOUBLE : NC_FLOAT;
                double out[54];
                float fout[54];
                int rc = xt == NC_FLOAT ? nc_get_vara_float(ncid, vf[i], (size_t[]){ 0, 0 }, (size_t[]){ 9, 6 }, fout)
                                        : nc_get_vara_double(ncid, vf[i], (size_t[]){ 0, 0 }, (size_t[]){ 9, 6 }, out);
                snprintf(name, sizeof name, "pass %d get %d", pass, i);
                q_log_bits(log, name, rc, xt == NC_FLOAT ? (void *)fout : (void *)out, xt, 54);
                { int r1_ = nc_inq_var_quantize(ncid, vf[i], &mode, &n); LOG("pass %d inq %d: %d %d %d", pass, i, r1_, r1_ ? -1 : mode, r1_ ? -1 : n); }
                { int r1_ = nc_inq_var_endian(ncid, vf[i], &mode); LOG("pass %d endian %d: %d %d", pass, i, r1_, r1_ ? -1 : mode); }
            }
            LOG("close: %d", nc_close(ncid));
            { int r1_ = nc_open(path, NC_WRITE, &ncid); LOG("reopen: %d", r1_); }
            /* not to the big-endian ones: netCDF-C 4.9 writes them
             * byte-swapped after a reopen (doc/v3.md) */
            if (pass == 0)
                for (int i = 0; i < nv; i++)
                    if (i % 3 != 1)
                        LOG("put %d again: %d", i, nc_put_vara_double(ncid, vf[i], (size_t[]){ 8, 0 }, (size_t[]){ 1, 6 }, vals + 16));
        }
        { int r1_ = nc_inq_var_endian(ncid, vi, &mode); LOG("inq endian int reopened: %d %d", r1_, r1_ ? -1 : mode); }
        { int iv[6] = { 0 }; int r1_ = nc_get_vara_int(ncid, vi, (size_t[]){ 0, 0 }, (size_t[]){ 1, 6 }, iv);
          LOG("get int: %d %d %d %d", r1_, iv[0], iv[1], iv[3]); }
        LOG("close: %d", nc_close(ncid));
        { int r1_ = nc_open(path, NC_NOWRITE, &ncid); LOG("open read-only: %d", r1_); }
        LOG("quantize read-only: %d", nc_def_var_quantize(ncid, 2, NC_QUANTIZE_BITROUND, 3));
        LOG("endian read-only: %d", nc_def_var_endian(ncid, 2, NC_ENDIAN_BIG));
        LOG("deflate read-only: %d", nc_def_var_deflate(ncid, 2, 1, 1, 1));
        LOG("chunking read-only: %d", nc_def_var_chunking(ncid, 2, NC_CHUNKED, NULL));
        LOG("fletcher32 read-only: %d", nc_def_var_fletcher32(ncid, 2, 1));
        LOG("filter read-only: %d", nc_def_var_filter(ncid, 2, 1, 1, (unsigned[]){ 1 }));
        LOG("var_fill read-only: %d", nc_def_var_fill(ncid, 2, 1, NULL));
        LOG("quantize read-only bad varid: %d", nc_def_var_quantize(ncid, 99, NC_QUANTIZE_BITROUND, 3));
        LOG("deflate read-only bad varid: %d", nc_def_var_deflate(ncid, 99, 1, 1, 1));
        LOG("close: %d", nc_close(ncid));
    }
}

static void (*const scenarios[])(v3log *) = {
    scen_modes, scen_path, scen_hints, scen_nulls, scen_groups, scen_storage, scen_copy,
    scen_fill, scen_memory, scen_settings, scen_quantize, scen_strerror,
    scen_filters, scen_foreign
};
static const char *const scenario_names[] = {
    "modes", "path", "hints", "nulls", "groups", "storage", "copy", "fill", "memory", "settings", "quantize",
    "strerror", "filters", "foreign"
};

#define V3SCEN_STR2(x) #x
#define V3SCEN_STR(x) V3SCEN_STR2(x)
const v3side SIDE = { V3SCEN_STR(SIDE), scenarios, scenario_names,
                      (int)(sizeof scenarios / sizeof *scenarios) };
