/*
 * v3prog.c -- a program written against netCDF's v3 C API, as most netCDF
 * code since 1997 is.  It builds unchanged against netCDF-C or ncslab:
 *
 *     cc v3prog.c $(pkg-config --cflags --libs netcdf)         # netCDF-C
 *     cc v3prog.c $(pkg-config --cflags --libs ncslab-netcdf)  # ncslab
 *
 * It writes a small gridded time series (a record dimension, a packed
 * short variable with scale_factor and _FillValue, a float coordinate, a
 * text variable, global attributes) in the format its second argument
 * names, with whole, sub-box, strided and mapped puts in other C types
 * than the variables', reads it back in other types again, checks every
 * value, and exits 0 on success.
 *
 * Usage: v3prog FILE [classic|64bit|cdf5|netcdf4]   (default classic)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netcdf.h>

#define NT 4
#define NY 3
#define NX 5

#define CHECK(call)                                                          \
    do {                                                                     \
        int status_ = (call);                                                \
        if (status_ != NC_NOERR) {                                           \
            fprintf(stderr, "v3prog: line %d: %s: %s\n", __LINE__, #call,    \
                    nc_strerror(status_));                                   \
            exit(1);                                                         \
        }                                                                    \
    } while (0)

static int fail(const char *what, long at)
{
    fprintf(stderr, "v3prog: wrong value: %s at %ld\n", what, at);
    return 1;
}

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : "v3prog.nc";
    const char *kind = argc > 2 ? argv[2] : "classic";
    int cmode = NC_CLOBBER, ncid, dims[3], t_id, temp_id, lat_id, name_id, sdim;
    if (strcmp(kind, "64bit") == 0)
        cmode |= NC_64BIT_OFFSET;
    else if (strcmp(kind, "cdf5") == 0)
        cmode |= NC_64BIT_DATA;
    else if (strcmp(kind, "netcdf4") == 0)
        cmode |= NC_NETCDF4 | NC_CLASSIC_MODEL;

    /* define */
    CHECK(nc_create(path, cmode, &ncid));
    CHECK(nc_def_dim(ncid, "time", NC_UNLIMITED, &dims[0]));
    CHECK(nc_def_dim(ncid, "lat", NY, &dims[1]));
    CHECK(nc_def_dim(ncid, "lon", NX, &dims[2]));
    CHECK(nc_def_dim(ncid, "strlen", 8, &sdim));
    CHECK(nc_def_var(ncid, "time", NC_DOUBLE, 1, dims, &t_id));
    CHECK(nc_def_var(ncid, "lat", NC_FLOAT, 1, &dims[1], &lat_id));
    CHECK(nc_def_var(ncid, "temp", NC_SHORT, 3, dims, &temp_id));
    CHECK(nc_def_var(ncid, "station", NC_CHAR, 1, &sdim, &name_id));
    CHECK(nc_put_att_text(ncid, NC_GLOBAL, "title", 14, "v3prog example"));
    CHECK(nc_put_att_int(ncid, NC_GLOBAL, "version", NC_INT, 1, (int[]){ 3 }));
    CHECK(nc_put_att_text(ncid, t_id, "units", 22, "hours since 2000-01-01"));
    CHECK(nc_put_att_float(ncid, temp_id, "scale_factor", NC_FLOAT, 1, (float[]){ 0.01f }));
    CHECK(nc_put_att_short(ncid, temp_id, "_FillValue", NC_SHORT, 1, (short[]){ -999 }));
    if (cmode & NC_NETCDF4)
        CHECK(nc_def_var_deflate(ncid, temp_id, 1, 1, 4));
    CHECK(nc_enddef(ncid));

    /* write: a whole coordinate from doubles, a text variable, records
     * one at a time from ints, a sub-box from doubles, a strided put and a
     * transposing mapped put */
    double lat[NY] = { -30.5, 0.0, 30.5 };
    CHECK(nc_put_var_double(ncid, lat_id, lat));
    CHECK(nc_put_var_text(ncid, name_id, "ALERT-1 "));
    for (size_t t = 0; t < NT; t++) {
        int plane[NY][NX];
        for (int y = 0; y < NY; y++)
            for (int x = 0; x < NX; x++)
                plane[y][x] = (int)(1000 * t + 100 * y + x);
        CHECK(nc_put_var1_double(ncid, t_id, &t, (double[]){ 6.0 * (double)t }));
        CHECK(nc_put_vara_int(ncid, temp_id, (size_t[]){ t, 0, 0 },
                              (size_t[]){ 1, NY, NX }, &plane[0][0]));
    }
    double box[2][2] = { { -1, -2 }, { -3, -4 } };
    CHECK(nc_put_vara_double(ncid, temp_id, (size_t[]){ 1, 1, 2 }, (size_t[]){ 1, 2, 2 },
                             &box[0][0]));
    long every_other[3] = { 7, 8, 9 };
    CHECK(nc_put_vars_long(ncid, temp_id, (size_t[]){ 2, 0, 0 }, (size_t[]){ 1, 1, 3 },
                           (ptrdiff_t[]){ 1, 1, 2 }, every_other));
    /* column x of record 3, given as a row-major [NX][NY] array */
    float trans[NX][NY];
    for (int x = 0; x < NX; x++)
        for (int y = 0; y < NY; y++)
            trans[x][y] = (float)(-(10 * x + y));
    CHECK(nc_put_varm_float(ncid, temp_id, (size_t[]){ 3, 0, 0 }, (size_t[]){ 1, NY, NX },
                            NULL, (ptrdiff_t[]){ 0, 1, NY }, &trans[0][0]));
    CHECK(nc_close(ncid));

    /* read back */
    int nd, nv, ng, unlim, format, fails = 0;
    size_t nrec, len;
    char title[32] = "";
    CHECK(nc_open(path, NC_NOWRITE, &ncid));
    CHECK(nc_inq(ncid, &nd, &nv, &ng, &unlim));
    CHECK(nc_inq_format(ncid, &format));
    CHECK(nc_inq_dimlen(ncid, unlim, &nrec));
    CHECK(nc_inq_attlen(ncid, NC_GLOBAL, "title", &len));
    CHECK(nc_get_att_text(ncid, NC_GLOBAL, "title", title));
    if (nd != 4 || nv != 4 || ng != 2 || nrec != NT || len != 14 || strncmp(title, "v3prog", 6))
        fails += fail("header", 0);
    CHECK(nc_inq_varid(ncid, "temp", &temp_id));
    double all[NT][NY][NX];
    CHECK(nc_get_var_double(ncid, temp_id, &all[0][0][0]));
    for (int t = 0; t < NT; t++)
        for (int y = 0; y < NY; y++)
            for (int x = 0; x < NX; x++) {
                double want = 1000 * t + 100 * y + x;
                if (t == 1 && y >= 1 && x >= 2 && x < 4)
                    want = box[y - 1][x - 2];
                if (t == 2 && y == 0 && x % 2 == 0)
                    want = (double)every_other[x / 2];
                if (t == 3)
                    want = trans[x][y];
                if (all[t][y][x] != want)
                    fails += fail("temp", ((long)t * NY + y) * NX + x);
            }
    unsigned char ub;
    if (nc_get_var1_uchar(ncid, temp_id, (size_t[]){ 1, 0, 0 }, &ub) != NC_ERANGE)
        fails += fail("NC_ERANGE of 1000 into unsigned char", 0);
    short fill;
    float scale;
    CHECK(nc_get_att_short(ncid, temp_id, "_FillValue", &fill));
    CHECK(nc_get_att_float(ncid, temp_id, "scale_factor", &scale));
    if (fill != -999 || scale != 0.01f)
        fails += fail("attributes", 0);
    char station[9] = "";
    CHECK(nc_inq_varid(ncid, "station", &name_id));
    CHECK(nc_get_var_text(ncid, name_id, station));
    if (strcmp(station, "ALERT-1 ") != 0)
        fails += fail("station", 0);
    CHECK(nc_close(ncid));
    if (fails == 0)
        printf("v3prog: %s (format %d): %d records, every value read back\n", path, format,
               (int)nrec);
    return fails ? 1 : 0;
}
