/*
 * v2diff.c -- the netCDF-3 inquiry calls of the v2 library, and the order
 * in which v2 calls check their arguments, differentially.
 *
 * Built twice (tests/v2/v2.am), against ncslab's <netcdf.h> and
 * libncslab_v2 and against netCDF-C's, from the same source;
 * tests/v2/v2diff_check.sh runs both in each format and requires the same
 * stdout and stderr, line for line.  Nothing here states an expected
 * value: netCDF-C's output is the expectation.  Every call prints its
 * status (for v2 calls: the return value and ncerr, with NC_VERBOSE on so
 * the messages are compared too) and what it returned through its
 * pointers.  No ncid or pointer is printed, so the output is the same
 * wherever it runs.
 *
 * Usage: v2diff DIR FORMAT   (FORMAT 1, 2, 5: CDF-1/2/5; 4: netCDF-4
 * classic model).  Works in DIR.
 *
 * Calls netCDF-C gets wrong (doc/v2.md) are left out: in a netCDF-4 file,
 * ncattput with a negative type, which leaves the file unable to leave
 * define mode, and ncvarput1 on a read-only file, which is an HDF5 error
 * there; in a classic file, the inquiries that crash netCDF-C (a NULL
 * name to nc_inq_dimid, nc_inq_varid or nc_inq_attid, a NULL output of
 * nc_inq_varid or of nc_inq_attname).
 */
#include <netcdf.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int fmt;

/* A v2 call: its return value and ncerr. */
#define V2(expr) do { int r_; ncerr = 0; fflush(stdout); r_ = (expr); fflush(stderr); \
        printf("%-64s -> %d ncerr %d\n", #expr, r_, ncerr); } while (0)
/* A netCDF-3 call: its status; ncerr must stay untouched. */
#define V3(expr) do { int r_; ncerr = 0; r_ = (expr); \
        printf("%-64s -> %d%s", #expr, r_, ncerr != 0 ? " (ncerr set!)" : ""); } while (0)

static void show_int(const char *what, int v) { printf(" %s=%d", what, v); }
static void end(void) { putchar('\n'); }

/* Every inquiry about the file, with valid and invalid arguments. */
static void inquire(int ncid, const char *state)
{
    int nd = -7, nv = -7, na = -7, ud = -7, f = -7, id = -7, t = -7, n = -7;
    int dimids[NC_MAX_VAR_DIMS];
    size_t len = 777;
    char name[NC_MAX_NAME + 1];
    char longname[400];
    memset(longname, 'a', 300);
    longname[300] = '\0';

    printf("-- inquiries, %s\n", state);
    V3(nc_inq(ncid, &nd, &nv, &na, &ud)); show_int("ndims", nd); show_int("nvars", nv);
    show_int("natts", na); show_int("unlimdim", ud); end();
    V3(nc_inq(ncid, NULL, NULL, NULL, NULL)); end();
    V3(nc_inq(-1, &nd, NULL, NULL, NULL)); end();
    V3(nc_inq(ncid + 0x10000, &nd, NULL, NULL, NULL)); end();
    V3(nc_inq_ndims(ncid, &nd)); show_int("ndims", nd); end();
    V3(nc_inq_ndims(ncid, NULL)); end();
    V3(nc_inq_ndims(12345, &nd)); end();
    V3(nc_inq_nvars(ncid, &nv)); show_int("nvars", nv); end();
    V3(nc_inq_nvars(-1, &nv)); end();
    V3(nc_inq_natts(ncid, &na)); show_int("natts", na); end();
    V3(nc_inq_natts(-1, &na)); end();
    V3(nc_inq_unlimdim(ncid, &ud)); show_int("unlimdim", ud); end();
    V3(nc_inq_unlimdim(ncid, NULL)); end();
    V3(nc_inq_unlimdim(-1, &ud)); end();
    V3(nc_inq_format(ncid, &f)); show_int("format", f); end();
    V3(nc_inq_format(-1, &f)); end();

    for (int d = -1; d <= nd; d++) {
        len = 777;
        strcpy(name, "?");
        V3(nc_inq_dim(ncid, d, name, &len)); printf(" name=%s len=%zu\n", name, len);
        len = 777;
        V3(nc_inq_dimlen(ncid, d, &len)); printf(" len=%zu\n", len);
        strcpy(name, "?");
        V3(nc_inq_dimname(ncid, d, name)); printf(" name=%s\n", name);
    }
    V3(nc_inq_dim(ncid, 0, NULL, NULL)); end();
    V3(nc_inq_dim(ncid, 1000, NULL, NULL)); end();
    V3(nc_inq_dim(-1, 0, name, &len)); end();
    V3(nc_inq_dimname(ncid, 0, NULL)); end();
    V3(nc_inq_dimlen(ncid, 0, NULL)); end();
    V3(nc_inq_dimid(ncid, "time", &id)); show_int("id", id); end();
    V3(nc_inq_dimid(ncid, "lat", &id)); show_int("id", id); end();
    V3(nc_inq_dimid(ncid, "lat", NULL)); end();
    V3(nc_inq_dimid(ncid, "nope", &id)); end();
    V3(nc_inq_dimid(ncid, "", &id)); end();
    V3(nc_inq_dimid(ncid, longname, &id)); end();
    V3(nc_inq_dimid(-1, "lat", &id)); end();

    for (int v = -2; v <= nv; v++) {
        t = n = nd = na = -7;
        strcpy(name, "?");
        memset(dimids, 0xff, sizeof dimids);
        V3(nc_inq_var(ncid, v, name, &t, &nd, dimids, &na));
        printf(" name=%s type=%d ndims=%d natts=%d dimids", name, t, nd, na);
        for (int d = 0; d < nd && d < 4; d++)
            printf(" %d", dimids[d]);
        end();
        strcpy(name, "?");
        V3(nc_inq_varname(ncid, v, name)); printf(" name=%s\n", name);
        t = -7;
        V3(nc_inq_vartype(ncid, v, &t)); show_int("type", t); end();
        n = -7;
        V3(nc_inq_varndims(ncid, v, &n)); show_int("ndims", n); end();
        dimids[0] = -7;
        V3(nc_inq_vardimid(ncid, v, dimids)); show_int("dimid0", dimids[0]); end();
        n = -7;
        V3(nc_inq_varnatts(ncid, v, &n)); show_int("natts", n); end();
    }
    V3(nc_inq_var(ncid, 0, NULL, NULL, NULL, NULL, NULL)); end();
    V3(nc_inq_vartype(ncid, 0, NULL)); end();
    V3(nc_inq_vartype(-1, 0, &t)); end();
    V3(nc_inq_varndims(ncid, 0, NULL)); end();
    V3(nc_inq_vardimid(ncid, 0, NULL)); end();
    V3(nc_inq_varnatts(ncid, 0, NULL)); end();
    V3(nc_inq_varname(ncid, 0, NULL)); end();
    V3(nc_inq_varid(ncid, "temp", &id)); show_int("id", id); end();
    V3(nc_inq_varid(ncid, "nope", &id)); end();
    V3(nc_inq_varid(ncid, "", &id)); end();
    V3(nc_inq_varid(ncid, longname, &id)); end();
    V3(nc_inq_varid(-1, "temp", &id)); end();

    for (int v = -1; v < 2; v++) {
        V3(nc_inq_varnatts(ncid, v, &na)); show_int("natts", na); end();
        for (int a = -1; a <= na; a++) {
            strcpy(name, "?");
            V3(nc_inq_attname(ncid, v, a, name)); printf(" name=%s\n", name);
            if (strcmp(name, "?") == 0)
                continue;
            t = -7;
            len = 777;
            V3(nc_inq_att(ncid, v, name, &t, &len)); printf(" type=%d len=%zu\n", t, len);
            id = -7;
            V3(nc_inq_attid(ncid, v, name, &id)); show_int("id", id); end();
            t = -7;
            V3(nc_inq_atttype(ncid, v, name, &t)); show_int("type", t); end();
            len = 777;
            V3(nc_inq_attlen(ncid, v, name, &len)); printf(" len=%zu\n", len);
            V3(nc_inq_att(ncid, v, name, NULL, NULL)); end();
            V3(nc_inq_attid(ncid, v, name, NULL)); end();
        }
    }
    V3(nc_inq_attname(ncid, 99, 0, name)); end();
    V3(nc_inq_attname(-1, NC_GLOBAL, 0, name)); end();
    V3(nc_inq_att(ncid, NC_GLOBAL, "nope", &t, &len)); end();
    V3(nc_inq_att(ncid, 99, "title", &t, &len)); end();
    V3(nc_inq_att(ncid, NC_GLOBAL, longname, &t, &len)); end();
    V3(nc_inq_att(ncid, NC_GLOBAL, "", &t, &len)); end();
    V3(nc_inq_att(-1, NC_GLOBAL, "title", &t, &len)); end();
    V3(nc_inq_attid(ncid, NC_GLOBAL, "nope", &id)); end();
    V3(nc_inq_attid(ncid, 99, "title", &id)); end();
    V3(nc_inq_attid(ncid, NC_GLOBAL, longname, &id)); end();
    V3(nc_inq_atttype(ncid, NC_GLOBAL, "nope", &t)); end();
    V3(nc_inq_atttype(ncid, 99, "title", &t)); end();
    V3(nc_inq_attlen(ncid, NC_GLOBAL, "nope", &len)); end();
    V3(nc_inq_attlen(ncid, NC_GLOBAL, longname, &len)); end();
    V3(nc_inq_attlen(-1, NC_GLOBAL, "title", &len)); end();
    V3(nc_inq_att(ncid, NC_GLOBAL, NULL, &t, &len)); end();
    V3(nc_inq_atttype(ncid, NC_GLOBAL, NULL, &t)); end();
    V3(nc_inq_attlen(ncid, NC_GLOBAL, NULL, &len)); end();
    if (fmt == 4) {
        /* netCDF-C's classic code crashes on these */
        V3(nc_inq_dimid(ncid, NULL, &id)); end();
        V3(nc_inq_varid(ncid, NULL, &id)); end();
        V3(nc_inq_attid(ncid, NC_GLOBAL, NULL, &id)); end();
    }
}

/* The v2 calls whose checks come in an order that can be seen: a bad id
 * next to the wrong mode, a bad type next to a bad name, a read at or
 * past the last record, a copy of an attribute onto itself. */
static void precedence(int ncid, int u, int d, int v, int w, const char *state)
{
    int val = 1, buf[16] = { 0 };
    void *dp[4] = { buf, buf, buf, buf };
    char longname[400];
    memset(longname, 'x', 300);
    longname[300] = '\0';

    printf("-- v2 precedence, %s\n", state);
    V2(ncvarget1(ncid, 7, (long[]){ 0, 0 }, buf));
    V2(ncvarput1(ncid, 7, (long[]){ 0, 0 }, buf));
    V2(ncvarget1(ncid, -1, (long[]){ 0, 0 }, buf));
    V2(ncvarget1(ncid, v, (long[]){ 0, 0 }, buf));
    V2(ncvarget(ncid, 7, (long[]){ 0, 0 }, (long[]){ 1, 1 }, buf));
    V2(ncvarput(ncid, 7, (long[]){ 0, 0 }, (long[]){ 1, 1 }, buf));
    V2(ncvargets(ncid, 7, (long[]){ 0, 0 }, (long[]){ 1, 1 }, (long[]){ 1, 1 }, buf));
    V2(ncvarget1(ncid, v, (long[]){ 1, 0 }, buf));
    V2(ncvarget1(ncid, v, (long[]){ 2, 0 }, buf));
    V2(ncvarget1(ncid, v, (long[]){ 3, 0 }, buf));
    V2(ncvarget1(ncid, v, (long[]){ 0, 3 }, buf));
    V2(ncvarget(ncid, v, (long[]){ 2, 0 }, (long[]){ 1, 1 }, buf));
    V2(ncvarget(ncid, v, (long[]){ 2, 0 }, (long[]){ 0, 1 }, buf));
    V2(ncvarget(ncid, v, (long[]){ 3, 0 }, (long[]){ 1, 1 }, buf));
    V2(ncvarget(ncid, v, (long[]){ 3, 0 }, (long[]){ 0, 1 }, buf));
    V2(ncvarget(ncid, v, (long[]){ 1, 0 }, (long[]){ 2, 1 }, buf));
    V2(ncvarget(ncid, v, (long[]){ 0, 3 }, (long[]){ 1, 1 }, buf));
    V2(ncvarget(ncid, v, (long[]){ 0, 2 }, (long[]){ 1, 2 }, buf));
    V2(ncvarget(ncid, w, (long[]){ 2 }, (long[]){ 1 }, buf));
    V2(ncvargets(ncid, v, (long[]){ 2, 0 }, (long[]){ 1, 1 }, (long[]){ 2, 1 }, buf));
    V2(ncvargets(ncid, v, (long[]){ 0, 0 }, (long[]){ 2, 1 }, (long[]){ 2, 1 }, buf));
    V2(ncrecget(ncid, 1, dp));
    V2(ncrecget(ncid, 2, dp));
    V2(ncrecget(ncid, 3, dp));
    V2(ncattdel(ncid, NC_GLOBAL, "missing"));
    V2(ncattdel(ncid, 99, "x"));
    V2(ncattdel(ncid, NC_GLOBAL, longname));
    V2(ncattcopy(ncid, NC_GLOBAL, "missing", ncid, NC_GLOBAL));
    V2(ncattcopy(ncid, 55, "missing", ncid, 55));
    V2(ncattcopy(ncid, NC_GLOBAL, NULL, ncid, NC_GLOBAL));
    V2(ncattcopy(ncid, v, "x", ncid, v));
    V2(ncattcopy(ncid, NC_GLOBAL, "missing", ncid, v));
    V2(ncattcopy(ncid, NC_GLOBAL, "missing", ncid, 55));
    V2(ncattcopy(ncid, NC_GLOBAL, longname, ncid, v));
    V2(ncattcopy(ncid, NC_GLOBAL, "missing", ncid + 0x10000, NC_GLOBAL));
    V2(ncattget(ncid, NC_GLOBAL, longname, buf));
    V2(ncattinq(ncid, NC_GLOBAL, longname, NULL, NULL));
    V2(ncattrename(ncid, NC_GLOBAL, "nope", longname));
    V2(ncattput(ncid, NC_GLOBAL, "a7", NC_UBYTE, 1, &val));
    V2(ncattput(ncid, NC_GLOBAL, "a12", 12, 1, &val));
    V2(ncattput(ncid, NC_GLOBAL, "a99", 99, 1, &val));
    V2(ncattput(ncid, NC_GLOBAL, "a0", NC_NAT, 1, &val));
    V2(ncattput(ncid, NC_GLOBAL, longname, NC_INT, 1, &val));
    V2(ncattput(ncid, NC_GLOBAL, longname, 99, 1, &val));
    V2(ncattput(ncid, 99, longname, NC_INT, 1, &val));
    V2(ncvardef(ncid, "t7", NC_UBYTE, 1, &d));
    V2(ncvardef(ncid, "t12", 12, 1, &d));
    V2(ncvardef(ncid, "t99", 99, 1, &d));
    V2(ncvardef(ncid, "tm1", -1, 1, &d));
    V2(ncvardef(ncid, "t0", NC_NAT, 1, &d));
    V2(ncvardef(ncid, "bad/name", 99, 1, &d));
    V2(ncvardef(ncid, longname, 99, 1, &d));
    V2(ncvardef(ncid, "temp", 99, 1, &d));
    V2(ncvardef(ncid, "tm2", -1, 1, (int[]){ 77 }));
    V2(ncdimdef(ncid, longname, 3));
    (void)u;
}

int main(int argc, char **argv)
{
    int ncid, u, d, v, w, c, val = 5;
    int cmode;
    const char *path = "v2diff.nc";

    if (argc != 3 || strlen(argv[2]) != 1 || strchr("1245", argv[2][0]) == NULL) {
        fprintf(stderr, "usage: %s DIR 1|2|4|5\n", argv[0]);
        return 2;
    }
    if (chdir(argv[1]) != 0) {
        perror(argv[1]);
        return 2;
    }
    fmt = atoi(argv[2]);
    cmode = fmt == 1 ? 0 : fmt == 2 ? NC_64BIT_OFFSET : fmt == 5 ? NC_64BIT_DATA
                                                     : NC_NETCDF4 | NC_CLASSIC_MODEL;
    ncopts = NC_VERBOSE;
    printf("v2diff, format %d\n", fmt);
    for (int code = -145; code <= 5; code++)
        printf("nc_strerror(%d) = %s\n", code, nc_strerror(code));

    ncid = nccreate(path, NC_CLOBBER | cmode);
    if (ncid < 0)
        return 1;
    u = ncdimdef(ncid, "time", NC_UNLIMITED);
    d = ncdimdef(ncid, "lat", 3);
    ncdimdef(ncid, "lon", 2);
    v = ncvardef(ncid, "temp", NC_INT, 2, (int[]){ u, d });
    w = ncvardef(ncid, "count", NC_SHORT, 1, &u);
    c = ncvardef(ncid, "label", NC_CHAR, 1, &d);
    ncvardef(ncid, "scalar", NC_DOUBLE, 0, NULL);
    ncattput(ncid, NC_GLOBAL, "title", NC_CHAR, 5, "hello");
    ncattput(ncid, NC_GLOBAL, "version", NC_INT, 1, &val);
    ncattput(ncid, v, "x", NC_INT, 1, &val);
    ncattput(ncid, v, "units", NC_CHAR, 1, "K");
    ncattput(ncid, v, "valid_range", NC_DOUBLE, 2, (double[]){ -1, 1 });
    ncattput(ncid, c, "empty", NC_CHAR, 0, "");
    inquire(ncid, "define mode");
    precedence(ncid, u, d, v, w, "define mode");
    V2(ncendef(ncid));
    V2(ncvarput(ncid, v, (long[]){ 1, 0 }, (long[]){ 1, 3 }, (int[]){ 1, 2, 3 }));
    V2(ncvarput(ncid, w, (long[]){ 0 }, (long[]){ 2 }, (short[]){ 4, 5 }));
    inquire(ncid, "data mode, 2 records");
    precedence(ncid, u, d, v, w, "data mode");
    V2(ncclose(ncid));

    ncid = ncopen(path, NC_NOWRITE);
    inquire(ncid, "read-only");
    precedence(ncid, u, d, v, w, "read-only");
    V2(ncvarput1(ncid, 7, (long[]){ 0, 0 }, &val));
    if (fmt != 4)
        V2(ncvarput1(ncid, v, (long[]){ 0, 0 }, &val));
    V2(ncattput(ncid, v, "x", NC_INT, 1, &val));
    V2(ncattrename(ncid, v, "x", "y"));
    V2(ncclose(ncid));

    ncid = ncopen(path, NC_WRITE);
    V2(ncredef(ncid));
    precedence(ncid, u, d, v, w, "redefined");
    V2(ncattput(ncid, NC_GLOBAL, "added", NC_SHORT, 1, (short[]){ 9 }));
    V2(ncdimdef(ncid, "extra", 4));
    V2(ncattdel(ncid, v, "units"));
    inquire(ncid, "redefined, changed");
    V2(ncclose(ncid));
    inquire(ncid, "closed");
    return 0;
}
