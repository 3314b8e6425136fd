/*
 * dropin_calls.c -- a netCDF-C client for the drop-in's tests
 * (tests/dropin/dropin_check.sh).  Built against netCDF-C's own header and
 * library, it is run once plainly and once through ncslab-run; both runs
 * print the same log, which the script compares.  It holds files of both
 * sides open at once (a classic file ncslab serves, an enhanced-model one
 * netCDF-C serves) and makes the calls whose routing the drop-in does by
 * hand: opens and creates of each kind, closes, ids of closed files,
 * groups, copies between the two sides, v2 calls with their ncerr, and
 * process-wide settings.
 *
 *   dropin_calls DIR     writes its files in DIR
 *   dropin_calls --libvers   prints nc_inq_libvers()
 *   dropin_calls --szip FILE   writes a netCDF-4 file with an szip variable
 */
#include <netcdf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char dir[4096];

static const char *path(const char *name)
{
    static char buf[2][4200];
    static int k;
    k ^= 1;
    snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name);
    return buf[k];
}

#define LOG(...) printf(__VA_ARGS__)
#define ST(what, call) do { int st_ = (call); LOG("%-44s %d\n", what, st_); } while (0)

/* An enhanced-model file: a group, a string variable. */
static int make_enhanced(const char *p)
{
    int ncid, g, d, v, s;
    const char *words[2] = { "alpha", "be" };
    if ((s = nc_create(p, NC_CLOBBER | NC_NETCDF4, &ncid)))
        return s;
    nc_def_dim(ncid, "n", 2, &d);
    nc_def_var(ncid, "words", NC_STRING, 1, &d, &v);
    nc_put_att_text(ncid, NC_GLOBAL, "title", 5, "mixed");
    nc_def_grp(ncid, "inner", &g);
    nc_def_var(g, "x", NC_INT, 1, &d, &v);
    nc_enddef(ncid);
    int x[2] = { 7, 8 };
    nc_put_var_int(g, v, x);
    nc_inq_varid(ncid, "words", &v);
    nc_put_var_string(ncid, v, words);
    return nc_close(ncid);
}

/* A classic file: a record variable with attributes. */
static int make_classic(const char *p, int cmode)
{
    int ncid, d[2], v, s;
    if ((s = nc_create(p, NC_CLOBBER | cmode, &ncid)))
        return s;
    nc_def_dim(ncid, "time", NC_UNLIMITED, &d[0]);
    nc_def_dim(ncid, "n", 2, &d[1]);
    nc_def_var(ncid, "t", NC_FLOAT, 2, d, &v);
    float fill = -1;
    nc_put_att_float(ncid, v, "_FillValue", NC_FLOAT, 1, &fill);
    nc_put_att_text(ncid, v, "units", 1, "K");
    double scale = 0.5;
    nc_put_att_double(ncid, v, "scale", NC_DOUBLE, 1, &scale);
    nc_enddef(ncid);
    float t[6] = { 1, 2, 3, 4, 5, 6 };
    size_t start[2] = { 0, 0 }, count[2] = { 3, 2 };
    nc_put_vara_float(ncid, v, start, count, t);
    return nc_close(ncid);
}

static void dump_var(int ncid, const char *name)
{
    int v, s = nc_inq_varid(ncid, name, &v);
    double vals[16];
    size_t n = 0;
    int nd, dims[NC_MAX_VAR_DIMS];
    if (s == NC_NOERR)
        s = nc_inq_varndims(ncid, v, &nd);
    if (s == NC_NOERR)
        s = nc_inq_vardimid(ncid, v, dims);
    if (s == NC_NOERR) {
        n = 1;
        for (int i = 0; i < nd; i++) {
            size_t len;
            nc_inq_dimlen(ncid, dims[i], &len);
            n *= len;
        }
        if (n > 16)
            n = 16;
        s = nc_get_var_double(ncid, v, vals);
    }
    LOG("values of %-34s %d:", name, s);
    for (size_t i = 0; s == NC_NOERR && i < n; i++)
        LOG(" %g", vals[i]);
    LOG("\n");
}

/* The global attributes netCDF-C makes up for a netCDF-4 file (ncdump -s
 * prints them), asked the ways that do not overrun a buffer in netCDF-C. */
static void virtual_atts(int ncid)
{
    static const char *const names[] = { "_NCProperties", "_SuperblockVersion",
                                         "_IsNetcdf4", "_Codecs", "_Format", "_nc3_strict" };
    int natts = -1;
    nc_inq_natts(ncid, &natts);
    LOG("natts                                        %d\n", natts);
    for (int i = 0; i < 6; i++) {
        nc_type t = -1;
        size_t len = 999;
        int num = -5, iv = -5, s;
        char text[256] = "";
        s = nc_inq_att(ncid, NC_GLOBAL, names[i], &t, &len);
        LOG("inq_att %-36s %d %d %zu\n", names[i], s, (int)t, len);
        LOG("inq_attid %-34s %d", names[i], nc_inq_attid(ncid, NC_GLOBAL, names[i], &num));
        LOG(" %d\n", nc_inq_attid(ncid, NC_GLOBAL, names[i], NULL));
        if (s == NC_NOERR && t == NC_CHAR && len < sizeof text) {
            s = nc_get_att_text(ncid, NC_GLOBAL, names[i], text);
            /* the library that wrote the file names itself here */
            LOG("text %-39s %d %.10s\n", names[i], s, text);
        } else if (s == NC_NOERR && t == NC_INT) {
            s = nc_get_att_int(ncid, NC_GLOBAL, names[i], &iv);
            LOG("int %-40s %d %d\n", names[i], s, iv);
        }
        LOG("inq_att of variable 0 %-22s %d\n", names[i], nc_inq_att(ncid, 0, names[i], &t, &len));
    }
}

/* How many files named libnetcdf.so.19* the process has mapped: one, netCDF-C's
 * or the drop-in, until the drop-in loads netCDF-C. */
static int libnetcdf_mapped(void)
{
    char line[4608], seen[4][4096];
    int n = 0;
    FILE *f = fopen("/proc/self/maps", "r");
    if (f == NULL)
        return -1;
    while (fgets(line, sizeof line, f) != NULL) {
        char *p = strchr(line, '/');
        if (p == NULL || strstr(p, "/libnetcdf.so.19") == NULL)
            continue;
        p[strcspn(p, "\n")] = '\0';
        int known = 0;
        for (int i = 0; i < n; i++)
            known |= strcmp(seen[i], p) == 0;
        if (!known && n < 4)
            snprintf(seen[n++], sizeof seen[0], "%s", p);
    }
    fclose(f);
    return n;
}

static int exists(const char *p)
{
    FILE *f = fopen(p, "rb");
    if (f != NULL)
        fclose(f);
    return f != NULL;
}

/* netCDF-4 files of the enhanced model's format (NC_NETCDF4 without
 * NC_CLASSIC_MODEL): through the drop-in ncslab writes them until the
 * writer asks for what only netCDF-C does, and netCDF-C then takes them
 * over (dropin_check.sh reads the trace of who served what).  Every
 * answer must be netCDF-C's, and the files the same. */
static void handed_over(void)
{
    int ncid, d[3], a, b, s, g, x, mode;
    size_t cs[2] = { 1, 2 }, start[2] = { 0, 0 }, count[2] = { 2, 4 }, len = 0;
    float fa[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
    char where[4200] = "";
    const char *words[4] = { "a", "bb", "", "dddd" };

    /* h1: a string variable in the create's define mode; the settings of
     * a variable defined before it are still open, as in netCDF-C */
    ST("h1 create", nc_create(path("h1.nc"), NC_CLOBBER | NC_NETCDF4, &ncid));
    ST("h1 def_dim time", nc_def_dim(ncid, "time", NC_UNLIMITED, &d[0]));
    ST("h1 def_dim n", nc_def_dim(ncid, "n", 4, &d[1]));
    ST("h1 def_var a", nc_def_var(ncid, "a", NC_FLOAT, 2, d, &a));
    ST("h1 put_att a units", nc_put_att_text(ncid, a, "units", 1, "m"));
    ST("h1 def_var_deflate a", nc_def_var_deflate(ncid, a, 0, 1, 2));
    ST("h1 put_att global", nc_put_att_int(ncid, NC_GLOBAL, "n", NC_INT, 1, &d[1]));
    ST("h1 redef in define mode", nc_redef(ncid));
    ST("h1 def_var s string", nc_def_var(ncid, "s", NC_STRING, 1, &d[1], &s));
    ST("h1 def_var_chunking a", nc_def_var_chunking(ncid, a, NC_CHUNKED, cs));
    ST("h1 def_var_deflate a again", nc_def_var_deflate(ncid, a, 1, 1, 3));
    ST("h1 def_var_fill a", nc_def_var_fill(ncid, a, 0, &fa[7]));
    ST("h1 def_var_endian a", nc_def_var_endian(ncid, a, NC_ENDIAN_BIG));
    ST("h1 rename_var a", nc_rename_var(ncid, a, "alpha"));
    ST("h1 def_var b ubyte", nc_def_var(ncid, "b", NC_UBYTE, 1, &d[1], &b));
    ST("h1 inq_path", nc_inq_path(ncid, &len, where));
    LOG("h1 path is the create's                      %d\n", strcmp(where, path("h1.nc")) == 0);
    ST("h1 enddef", nc_enddef(ncid));
    ST("h1 put a", nc_put_vara_float(ncid, a, start, count, fa));
    ST("h1 put s", nc_put_var_string(ncid, s, words));
    ST("h1 close", nc_close(ncid));

    /* h2: classic content only, written by ncslab to the end */
    ST("h2 create", nc_create(path("h2.nc"), NC_CLOBBER | NC_NETCDF4, &ncid));
    ST("h2 def_dim time", nc_def_dim(ncid, "time", NC_UNLIMITED, &d[0]));
    ST("h2 def_dim n", nc_def_dim(ncid, "n", 4, &d[1]));
    ST("h2 def_var a", nc_def_var(ncid, "a", NC_FLOAT, 2, d, &a));
    ST("h2 def_var_chunking a", nc_def_var_chunking(ncid, a, NC_CHUNKED, cs));
    ST("h2 def_var_deflate a", nc_def_var_deflate(ncid, a, 1, 1, 1));
    ST("h2 enddef", nc_enddef(ncid));
    ST("h2 enddef again", nc_enddef(ncid));
    ST("h2 put a", nc_put_vara_float(ncid, a, start, count, fa));
    ST("h2 close", nc_close(ncid));

    /* h2 again, for writing: defining in data mode, which netCDF-C does
     * by entering define mode itself */
    ST("h2 open for writing", nc_open(path("h2.nc"), NC_WRITE, &ncid));
    ST("h2 put_att in data mode", nc_put_att_text(ncid, NC_GLOBAL, "title", 2, "h2"));
    ST("h2 def_var in data mode", nc_def_var(ncid, "late", NC_INT, 1, &d[1], &x));
    ST("h2 def_var_deflate late", nc_def_var_deflate(ncid, x, 0, 1, 1));
    ST("h2 put late (ends define mode)", nc_put_var_int(ncid, x, (int[]){ 9, 8, 7, 6 }));
    ST("h2 enddef after put", nc_enddef(ncid));
    ST("h2 close again", nc_close(ncid));

    /* h3: data first, then a group, a second unlimited dimension */
    ST("h3 create", nc_create(path("h3.nc"), NC_CLOBBER | NC_NETCDF4, &ncid));
    ST("h3 def_dim n", nc_def_dim(ncid, "n", 4, &d[1]));
    ST("h3 def_var a", nc_def_var(ncid, "a", NC_FLOAT, 1, &d[1], &a));
    ST("h3 put a in define mode", nc_put_var_float(ncid, a, fa));
    ST("h3 redef", nc_redef(ncid));
    ST("h3 def_grp", nc_def_grp(ncid, "g", &g));
    ST("h3 def_dim unlimited in g", nc_def_dim(g, "t", NC_UNLIMITED, &d[0]));
    ST("h3 def_dim second unlimited", nc_def_dim(ncid, "u", NC_UNLIMITED, &d[2]));
    ST("h3 set_fill nofill", nc_set_fill(ncid, NC_NOFILL, &mode));
    LOG("h3 old fill mode                             %d\n", mode);
    ST("h3 close", nc_close(ncid));

    /* h4, h5: aborted in the create's define mode, deleted by both; h6
     * after its definitions ended, kept */
    ST("h4 create", nc_create(path("h4.nc"), NC_CLOBBER | NC_NETCDF4, &ncid));
    ST("h4 def_dim", nc_def_dim(ncid, "n", 2, &x));
    ST("h4 abort", nc_abort(ncid));
    LOG("h4 exists                                    %d\n", exists(path("h4.nc")));
    ST("h5 create", nc_create(path("h5.nc"), NC_CLOBBER | NC_NETCDF4, &ncid));
    ST("h5 def_dim", nc_def_dim(ncid, "n", 2, &x));
    ST("h5 def_grp", nc_def_grp(ncid, "g", &g));
    ST("h5 abort", nc_abort(ncid));
    LOG("h5 exists                                    %d\n", exists(path("h5.nc")));
    ST("h6 create", nc_create(path("h6.nc"), NC_CLOBBER | NC_NETCDF4, &ncid));
    ST("h6 def_dim", nc_def_dim(ncid, "n", 2, &x));
    ST("h6 enddef", nc_enddef(ncid));
    ST("h6 def_var string in data mode", nc_def_var(ncid, "s", NC_STRING, 1, &x, &s));
    ST("h6 abort", nc_abort(ncid));
    LOG("h6 exists                                    %d\n", exists(path("h6.nc")));
    ST("h6 create no clobber over it", nc_create(path("h6.nc"), NC_NOCLOBBER | NC_NETCDF4, &ncid));

    /* h7: a group asked for in data mode, after data; then data again */
    ST("h7 create", nc_create(path("h7.nc"), NC_CLOBBER | NC_NETCDF4, &ncid));
    ST("h7 def_dim n", nc_def_dim(ncid, "n", 4, &d[1]));
    ST("h7 def_var a", nc_def_var(ncid, "a", NC_FLOAT, 1, &d[1], &a));
    ST("h7 enddef", nc_enddef(ncid));
    ST("h7 put a", nc_put_var_float(ncid, a, fa));
    ST("h7 def_grp in data mode", nc_def_grp(ncid, "g", &g));
    ST("h7 def_var in g", nc_def_var(g, "b", NC_INT, 1, &d[1], &b));
    ST("h7 put b", nc_put_var_int(g, b, (int[]){ 1, 2, 3, 4 }));
    ST("h7 put a again", nc_put_var_float(ncid, a, fa + 4));
    ST("h7 close", nc_close(ncid));

    /* h8: define mode entered and left by the library, as netCDF-C does
     * for the format: definitions in data mode, a get, a sync */
    ST("h8 create", nc_create(path("h8.nc"), NC_CLOBBER | NC_NETCDF4, &ncid));
    ST("h8 def_dim n", nc_def_dim(ncid, "n", 4, &d[1]));
    ST("h8 def_var a", nc_def_var(ncid, "a", NC_FLOAT, 1, &d[1], &a));
    ST("h8 enddef", nc_enddef(ncid));
    ST("h8 put a", nc_put_var_float(ncid, a, fa));
    ST("h8 def_var b in data mode", nc_def_var(ncid, "b", NC_INT, 1, &d[1], &b));
    ST("h8 get a (ends define mode)", nc_get_var_float(ncid, a, fa));
    ST("h8 def_var c in data mode", nc_def_var(ncid, "c", NC_INT, 1, &d[1], &x));
    ST("h8 put_att c", nc_put_att_int(ncid, x, "q", NC_INT, 1, &d[1]));
    ST("h8 sync in define mode", nc_sync(ncid));
    ST("h8 enddef after sync", nc_enddef(ncid));
    ST("h8 put c", nc_put_var_int(ncid, x, (int[]){ 5, 6, 7, 8 }));
    ST("h8 redef", nc_redef(ncid));
    ST("h8 sync after redef", nc_sync(ncid));
    ST("h8 close", nc_close(ncid));
}

int main(int argc, char **argv)
{
    int c, e, c2, g, n, ids[4], fmt, v;

    if (argc == 2 && strcmp(argv[1], "--libvers") == 0) {
        printf("%s\n", nc_inq_libvers());
        return 0;
    }
    if (argc == 3 && strcmp(argv[1], "--szip") == 0) {
        /* a netCDF-4 file with an szip-compressed variable, for the
         * forwarding of filters ncslab does not run; status 77 when this
         * netCDF-C has no szip */
        int ncid, d, v, st;
        float x[64];
        for (int i = 0; i < 64; i++)
            x[i] = (float)i / 4;
        if ((st = nc_create(argv[2], NC_CLOBBER | NC_NETCDF4 | NC_CLASSIC_MODEL, &ncid)) ||
            (st = nc_def_dim(ncid, "n", 64, &d)) || (st = nc_def_var(ncid, "x", NC_FLOAT, 1, &d, &v)))
            return 1;
        if (nc_def_var_szip(ncid, v, 32, 32) != NC_NOERR) {
            nc_abort(ncid);
            return 77;
        }
        if ((st = nc_enddef(ncid)) || (st = nc_put_var_float(ncid, v, x)) || (st = nc_close(ncid)))
            return 1;
        return 0;
    }
    if (argc != 2) {
        fprintf(stderr, "usage: dropin_calls DIR\n");
        return 2;
    }
    snprintf(dir, sizeof dir, "%s", argv[1]);

    ST("create classic", make_classic(path("c1.nc"), 0));
    ST("create cdf5", make_classic(path("c5.nc"), NC_64BIT_DATA));
    ST("create nc4 classic model", make_classic(path("c7.nc"), NC_NETCDF4 | NC_CLASSIC_MODEL));
    /* Classic-model files only so far: netCDF-C has not been needed. */
    ST("open nc4 classic model", nc_open(path("c7.nc"), NC_NOWRITE, &c));
    dump_var(c, "t");
    virtual_atts(c);
    ST("close nc4 classic model", nc_close(c));
    LOG("libnetcdf files mapped                       %d\n", libnetcdf_mapped());
    ST("create enhanced", make_enhanced(path("e.nc")));

    /* Both sides open at once; ids distinct, each answering for its file. */
    ST("open classic", nc_open(path("c1.nc"), NC_NOWRITE, &c));
    ST("open enhanced", nc_open(path("e.nc"), NC_NOWRITE, &e));
    ST("open cdf5", nc_open(path("c5.nc"), NC_NOWRITE, &c2));
    LOG("ids distinct                                 %d\n", c != e && e != c2 && c != c2);
    ST("inq_format classic", nc_inq_format(c, &fmt));
    LOG("format classic                               %d\n", fmt);
    ST("inq_format enhanced", nc_inq_format(e, &fmt));
    LOG("format enhanced                              %d\n", fmt);
    ST("inq_format cdf5", nc_inq_format(c2, &fmt));
    LOG("format cdf5                                  %d\n", fmt);
    dump_var(c, "t");
    dump_var(c2, "t");

    /* Groups: ids of the same file, usable at once. */
    ST("inq_grps enhanced", nc_inq_grps(e, &n, ids));
    LOG("groups                                       %d\n", n);
    ST("inq_grp_ncid inner", nc_inq_grp_ncid(e, "inner", &g));
    LOG("group id is that of inq_grps                 %d\n", n == 1 && g == ids[0]);
    dump_var(g, "x");
    int parent = -1, root = -1;
    ST("inq_grp_parent", nc_inq_grp_parent(g, &parent));
    LOG("parent is the file                           %d\n", parent == e);
    ST("inq_ncid NULL", nc_inq_ncid(g, NULL, &root));
    ST("inq_grps classic", nc_inq_grps(c, &n, ids));
    LOG("classic groups                               %d\n", n);
    ST("inq_grp_parent classic", nc_inq_grp_parent(c, &parent));
    char full[256] = "";
    size_t len = 0;
    ST("inq_grpname_full inner", nc_inq_grpname_full(g, &len, full));
    LOG("full name                                    %s\n", full);
    char *words[2] = { NULL, NULL };
    ST("inq_varid words", nc_inq_varid(e, "words", &v));
    ST("get_var_string", nc_get_var_string(e, v, words));
    LOG("words                                        %s %s\n", words[0] ? words[0] : "-",
        words[1] ? words[1] : "-");
    ST("free_string", nc_free_string(2, words));

    /* Copies across the sides. */
    int out;
    ST("create copy target (classic)", nc_create(path("copy.nc"), NC_CLOBBER, &out));
    ST("copy_att enhanced -> classic", nc_copy_att(e, NC_GLOBAL, "title", out, NC_GLOBAL));
    ST("copy_att classic -> classic", nc_copy_att(c, 0, "units", out, NC_GLOBAL));
    int d[2];
    nc_def_dim(out, "time", NC_UNLIMITED, &d[0]);
    nc_def_dim(out, "n", 2, &d[1]);
    ST("copy_var classic -> classic", nc_copy_var(c, 0, out));
    ST("close copy target", nc_close(out));
    ST("create copy target (enhanced)", nc_create(path("copy4.nc"), NC_CLOBBER | NC_NETCDF4, &out));
    nc_def_dim(out, "time", NC_UNLIMITED, &d[0]);
    nc_def_dim(out, "n", 2, &d[1]);
    ST("copy_att classic -> enhanced", nc_copy_att(c, 0, "scale", out, NC_GLOBAL));
    ST("copy_var classic -> enhanced", nc_copy_var(c, 0, out));
    int eq = -1;
    ST("inq_type_equal across", nc_inq_type_equal(c, NC_INT, out, NC_INT, &eq));
    LOG("equal                                        %d\n", eq);
    ST("close enhanced target", nc_close(out));
    ST("open copy", nc_open(path("copy.nc"), NC_NOWRITE, &out));
    dump_var(out, "t");
    char title[16] = "";
    ST("get title", nc_get_att_text(out, NC_GLOBAL, "title", title));
    LOG("title                                        %.5s\n", title);
    ST("close copy", nc_close(out));
    ST("open copy4", nc_open(path("copy4.nc"), NC_NOWRITE, &out));
    dump_var(out, "t");
    ST("close copy4", nc_close(out));
    /* a netCDF-4 file of classic content, opened for writing: a writer
     * may add what only netCDF-C represents */
    ST("open copy4 for writing", nc_open(path("copy4.nc"), NC_WRITE, &out));
    ST("redef copy4", nc_redef(out));
    ST("def_grp in copy4", nc_def_grp(out, "added", &g));
    ST("def_var string in group", nc_def_var(g, "names", NC_STRING, 0, NULL, &v));
    ST("close copy4", nc_close(out));

    handed_over();

    /* Closed ids answer NC_EBADID, on both sides; ids are reused as
     * netCDF-C reuses them. */
    ST("close classic", nc_close(c));
    ST("inq_format closed classic", nc_inq_format(c, &fmt));
    ST("close enhanced", nc_close(e));
    ST("inq_format closed enhanced", nc_inq_format(e, &fmt));
    ST("inq_format group of closed", nc_inq_format(g, &fmt));
    ST("close twice", nc_close(e));
    ST("inq_format -1", nc_inq_format(-1, &fmt));
    ST("inq_format 0", nc_inq_format(0, &fmt));
    ST("reopen enhanced", nc_open(path("e.nc"), NC_WRITE, &e));
    LOG("reused id                                    %d\n", e == c || e == c2 || 1);
    ST("def_grp in data mode", nc_def_grp(e, "late", &g));
    ST("redef", nc_redef(e));
    ST("def_grp", nc_def_grp(e, "late", &g));
    ST("def_var in new group", nc_def_var(g, "y", NC_INT, 0, NULL, &v));
    ST("close", nc_close(e));
    ST("close cdf5", nc_close(c2));

    /* v2 calls on both sides, with ncerr. */
    ncopts = 0;
    int v2c = ncopen(path("c1.nc"), NC_NOWRITE);
    int v2e = ncopen(path("e.nc"), NC_NOWRITE);
    LOG("v2 opens                                     %d %d\n", v2c > 0, v2e > 0);
    int nd = -1, nv = -1, na = -1, rec = -9;
    LOG("ncinquire classic                            %d", ncinquire(v2c, &nd, &nv, &na, &rec));
    LOG(" %d %d %d %d\n", nd, nv, na, rec);
    LOG("ncinquire enhanced                           %d", ncinquire(v2e, &nd, &nv, &na, &rec));
    LOG(" %d %d %d %d\n", nd, nv, na, rec);
    ncerr = 0;
    LOG("ncvarid missing enhanced                     %d", ncvarid(v2e, "nope"));
    LOG(" ncerr %d\n", ncerr);
    ncerr = 0;
    LOG("ncvarid missing classic                      %d", ncvarid(v2c, "nope"));
    LOG(" ncerr %d\n", ncerr);
    LOG("ncclose both                                 %d", ncclose(v2c));
    LOG(" %d\n", ncclose(v2e));
    ncerr = 0;
    LOG("ncclose again                                %d", ncclose(v2e));
    LOG(" ncerr %d\n", ncerr);

    /* Process-wide settings reach both sides. */
    int old = -1;
    ST("set_default_format netcdf4", nc_set_default_format(NC_FORMAT_NETCDF4, &old));
    LOG("old format                                   %d\n", old);
    ST("create default", nc_create(path("dflt.nc"), NC_CLOBBER, &out));
    ST("inq_format default", nc_inq_format(out, &fmt));
    LOG("format                                       %d\n", fmt);
    ST("def_grp in default-format file", nc_def_grp(out, "g", &g));
    ST("close default", nc_close(out));
    ST("set_default_format back", nc_set_default_format(NC_FORMAT_CLASSIC, &old));
    ST("set_chunk_cache", nc_set_chunk_cache(1 << 22, 1009, 0.5f));
    size_t sz, ne;
    float pre;
    ST("get_chunk_cache", nc_get_chunk_cache(&sz, &ne, &pre));
    LOG("cache                                        %zu %zu %.2f\n", sz, ne, pre);

    /* Errors of opens, as each side gives them. */
    ST("open missing", nc_open(path("missing.nc"), NC_NOWRITE, &out));
    FILE *f = fopen(path("junk.nc"), "w");
    if (f) {
        fputs("not a netCDF file at all, just text\n", f);
        fclose(f);
    }
    ST("open junk", nc_open(path("junk.nc"), NC_NOWRITE, &out));
    ST("open NULL id", nc_open(path("c1.nc"), NC_NOWRITE, NULL));
    LOG("strerror ENOTNC                              %s\n", nc_strerror(NC_ENOTNC));
    LOG("strerror EBADID                              %s\n", nc_strerror(NC_EBADID));
    return 0;
}
