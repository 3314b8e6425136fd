/*
 * demo.c -- a tour of the native ncslab API.
 *
 * Writes a small netCDF classic file, closes it, opens it again read-only
 * and reads hyperslabs back: the whole of each variable, a strided slab of
 * the record variable and a transposed copy of a fixed variable through an
 * index map.  Every value encodes its own coordinates, so a value read into
 * the wrong place names the place it came from.  Prints a short report and
 * exits 1 on the first API error or on any mismatch.
 *
 * Usage: demo [path [format]]   (default path ncslab_demo.nc; format 1, 2
 *                                or 5 for CDF-1, CDF-2 or CDF-5)
 *
 * The file holds
 *   dimensions: time = UNLIMITED, lat = 6, lon = 8
 *   variables:  double time(time)           record coordinate
 *               float  lat(lat), lon(lon)   fixed coordinates
 *               short  elev(lat, lon)       fixed, 100*lat_index + lon_index
 *               int    temp(time, lat, lon) record, 10000*(t+1) + 100*y + x
 *   attributes: title, Conventions (global); units on every variable;
 *               _FillValue and valid_range on temp.
 */
#include <ncslab.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NREC 4
#define NLAT 6
#define NLON 8

/* The value the file holds at each coordinate. */
static int temp_at(size_t t, size_t y, size_t x)
{
    return (int)(10000 * (t + 1) + 100 * y + x);
}
static short elev_at(size_t y, size_t x)
{
    return (short)(100 * y + x);
}

static int failures;

/* Stops at the first API error: a demo has nothing sensible to do next. */
#define CHECK(call)                                                          \
    do {                                                                     \
        int check_status_ = (call);                                          \
        if (check_status_ != NCS_NOERR) {                                    \
            fprintf(stderr, "demo: %s:%d: %s\n  -> %s (status %d)\n",        \
                    __FILE__, __LINE__, #call,                               \
                    ncs_strerror(check_status_), check_status_);             \
            exit(1);                                                         \
        }                                                                    \
    } while (0)

/* Counts a mismatch and reports the first few. */
static void expect_int(const char *what, long long got, long long want)
{
    if (got == want)
        return;
    if (failures < 10)
        fprintf(stderr, "demo: MISMATCH %s: got %lld, want %lld\n", what, got,
                want);
    failures++;
}

static const char *format_name(int format)
{
    switch (format) {
    case NCS_FORMAT_CLASSIC:      return "CDF-1 (classic)";
    case NCS_FORMAT_64BIT_OFFSET: return "CDF-2 (64-bit offset)";
    case NCS_FORMAT_64BIT_DATA:   return "CDF-5 (64-bit data)";
    case NCS_FORMAT_NETCDF4:      return "netCDF-4";
    case NCS_FORMAT_NETCDF4_CLASSIC: return "netCDF-4 classic model";
    default:                      return "unknown";
    }
}

static void write_file(const char *path, int cmode)
{
    int ncid, dim_time, dim_lat, dim_lon;
    int v_time, v_lat, v_lon, v_elev, v_temp;
    int dims[3];
    static const int valid_range[2] = { 0, 1000000 };
    const int fill = -1;
    float lat[NLAT], lon[NLON];
    short elev[NLAT][NLON];
    int temp[NLAT][NLON];
    size_t y, x, t;

    CHECK(ncs_create(path, cmode | NCS_CLOBBER, &ncid));

    CHECK(ncs_def_dim(ncid, "time", NCS_UNLIMITED, &dim_time));
    CHECK(ncs_def_dim(ncid, "lat", NLAT, &dim_lat));
    CHECK(ncs_def_dim(ncid, "lon", NLON, &dim_lon));

    CHECK(ncs_def_var(ncid, "time", NCS_DOUBLE, 1, &dim_time, &v_time));
    CHECK(ncs_def_var(ncid, "lat", NCS_FLOAT, 1, &dim_lat, &v_lat));
    CHECK(ncs_def_var(ncid, "lon", NCS_FLOAT, 1, &dim_lon, &v_lon));
    dims[0] = dim_lat;
    dims[1] = dim_lon;
    CHECK(ncs_def_var(ncid, "elev", NCS_SHORT, 2, dims, &v_elev));
    dims[0] = dim_time;
    dims[1] = dim_lat;
    dims[2] = dim_lon;
    CHECK(ncs_def_var(ncid, "temp", NCS_INT, 3, dims, &v_temp));

    /* Text attributes are NCS_CHAR with memtype NCS_CHAR; the length is in
     * bytes and does not include a terminating NUL. */
    CHECK(ncs_put_att(ncid, NCS_GLOBAL, "title", NCS_CHAR,
                      strlen("ncslab demo"), NCS_CHAR, "ncslab demo"));
    CHECK(ncs_put_att(ncid, NCS_GLOBAL, "Conventions", NCS_CHAR,
                      strlen("CF-1.8"), NCS_CHAR, "CF-1.8"));
    CHECK(ncs_put_att(ncid, v_time, "units", NCS_CHAR,
                      strlen("days since 1992-01-01"), NCS_CHAR,
                      "days since 1992-01-01"));
    CHECK(ncs_put_att(ncid, v_lat, "units", NCS_CHAR, strlen("degrees_north"),
                      NCS_CHAR, "degrees_north"));
    CHECK(ncs_put_att(ncid, v_lon, "units", NCS_CHAR, strlen("degrees_east"),
                      NCS_CHAR, "degrees_east"));
    CHECK(ncs_put_att(ncid, v_elev, "units", NCS_CHAR, 1, NCS_CHAR, "m"));
    CHECK(ncs_put_att(ncid, v_temp, "units", NCS_CHAR, strlen("code"),
                      NCS_CHAR, "code"));
    CHECK(ncs_put_att(ncid, v_temp, "_FillValue", NCS_INT, 1, NCS_INT, &fill));
    CHECK(ncs_put_att(ncid, v_temp, "valid_range", NCS_INT, 2, NCS_INT,
                      valid_range));

    CHECK(ncs_enddef(ncid));

    /* Fixed variables: each written whole in one call (NULL start and
     * count: the whole variable). */
    for (y = 0; y < NLAT; y++)
        lat[y] = -50.0f + 20.0f * (float)y;
    for (x = 0; x < NLON; x++)
        lon[x] = 22.5f * (float)x;
    for (y = 0; y < NLAT; y++)
        for (x = 0; x < NLON; x++)
            elev[y][x] = elev_at(y, x);
    CHECK(ncs_put(ncid, v_lat, NULL, NULL, NULL, NULL, NCS_FLOAT, lat));
    CHECK(ncs_put(ncid, v_lon, NULL, NULL, NULL, NULL, NCS_FLOAT, lon));
    CHECK(ncs_put(ncid, v_elev, NULL, NULL, NULL, NULL, NCS_SHORT, elev));

    /* Record variables: one record at a time; writing record t adds it.
     * The time coordinate is stored as double from int memory. */
    for (t = 0; t < NREC; t++) {
        size_t start[3] = { t, 0, 0 }, count[3] = { 1, NLAT, NLON };
        int day = (int)(t * 7);

        for (y = 0; y < NLAT; y++)
            for (x = 0; x < NLON; x++)
                temp[y][x] = temp_at(t, y, x);
        CHECK(ncs_put(ncid, v_temp, start, count, NULL, NULL, NCS_INT, temp));
        CHECK(ncs_put1(ncid, v_time, &t, NCS_INT, &day));
    }

    CHECK(ncs_close(ncid));
}

static void read_file(const char *path)
{
    int ncid, format, ndims, nvars, natts, unlimdim;
    int v_time, v_elev, v_temp, xtype;
    char title[64];
    size_t len, nrec, y, x, t, i;
    int range[2];
    double days[NREC];
    short elev_t[NLON][NLAT];     /* elev transposed: [lon][lat] */
    char what[96];

    CHECK(ncs_open(path, NCS_NOWRITE, &ncid));
    CHECK(ncs_inq_format(ncid, &format));
    CHECK(ncs_inq(ncid, &ndims, &nvars, &natts, &unlimdim));
    CHECK(ncs_inq_dimlen(ncid, unlimdim, &nrec));
    printf("reopened %s: %s, %d dimensions, %d variables, %d global "
           "attributes, %zu records\n",
           path, format_name(format), ndims, nvars, natts, nrec);
    expect_int("ndims", ndims, 3);
    expect_int("nvars", nvars, 5);
    expect_int("global attributes", natts, 2);
    expect_int("records", (long long)nrec, NREC);

    /* Attributes come back with their type and length. */
    CHECK(ncs_inq_att(ncid, NCS_GLOBAL, "title", &xtype, &len));
    expect_int("title type", xtype, NCS_CHAR);
    if (len >= sizeof title)
        len = sizeof title - 1;
    CHECK(ncs_get_att(ncid, NCS_GLOBAL, "title", NCS_CHAR, title));
    title[len] = '\0';
    if (strcmp(title, "ncslab demo") != 0) {
        fprintf(stderr, "demo: MISMATCH title: got \"%s\"\n", title);
        failures++;
    }
    CHECK(ncs_inq_varid(ncid, "temp", &v_temp));
    CHECK(ncs_get_att(ncid, v_temp, "valid_range", NCS_INT, range));
    expect_int("valid_range[0]", range[0], 0);
    expect_int("valid_range[1]", range[1], 1000000);
    printf("  title = \"%s\", temp:valid_range = %d, %d\n", title, range[0],
           range[1]);

    /* The record coordinate, converted from the stored doubles. */
    CHECK(ncs_inq_varid(ncid, "time", &v_time));
    CHECK(ncs_get(ncid, v_time, NULL, NULL, NULL, NULL, NCS_DOUBLE, days));
    printf("  time =");
    for (t = 0; t < NREC; t++) {
        printf(" %g", days[t]);
        expect_int("time", (long long)days[t], (long long)(t * 7));
    }
    printf("\n");

    /* A strided slab of the record variable: every second record, every
     * second latitude from 1, every third longitude. */
    {
        const size_t start[3] = { 0, 1, 0 }, count[3] = { 2, 3, 3 };
        const ptrdiff_t stride[3] = { 2, 2, 3 };
        int slab[2][3][3];
        size_t k;

        CHECK(ncs_get(ncid, v_temp, start, count, stride, NULL, NCS_INT,
                      slab));
        printf("strided read temp[0:4:2][1:6:2][0:8:3] (start, count, "
               "stride):\n");
        for (t = 0; t < count[0]; t++) {
            printf("  t=%zu:", start[0] + t * (size_t)stride[0]);
            for (y = 0; y < count[1]; y++) {
                for (x = 0; x < count[2]; x++) {
                    size_t ft = start[0] + t * (size_t)stride[0];
                    size_t fy = start[1] + y * (size_t)stride[1];
                    size_t fx = start[2] + x * (size_t)stride[2];
                    printf(" %d", slab[t][y][x]);
                    snprintf(what, sizeof what, "temp[%zu][%zu][%zu]", ft, fy,
                             fx);
                    expect_int(what, slab[t][y][x], temp_at(ft, fy, fx));
                }
                if (y + 1 < count[1])
                    printf(" |");
            }
            printf("\n");
        }
        k = count[0] * count[1] * count[2];
        printf("  %zu values\n", k);
    }

    /* A transposing index map: element (y, x) of elev goes to memory
     * element x*NLAT + y, so the buffer holds elev with lon varying
     * slowest.  imap counts memory elements per step in each dimension. */
    {
        const ptrdiff_t imap[2] = { 1, NLAT };

        CHECK(ncs_inq_varid(ncid, "elev", &v_elev));
        CHECK(ncs_get(ncid, v_elev, NULL, NULL, NULL, imap, NCS_SHORT,
                      elev_t));
        for (x = 0; x < NLON; x++)
            for (y = 0; y < NLAT; y++) {
                snprintf(what, sizeof what, "elev[%zu][%zu] (transposed)", y,
                         x);
                expect_int(what, elev_t[x][y], elev_at(y, x));
            }
        printf("transposed read elev(lat,lon) with imap {1, %d} -> "
               "[lon][lat]:\n", NLAT);
        for (x = 0; x < 3; x++) {
            printf("  lon=%zu:", x);
            for (y = 0; y < NLAT; y++)
                printf(" %3d", elev_t[x][y]);
            printf("\n");
        }
        printf("  ... %d values\n", NLAT * NLON);
    }

    /* One element, converted to double. */
    {
        const size_t index[3] = { NREC - 1, NLAT - 1, NLON - 1 };
        double v;

        CHECK(ncs_get1(ncid, v_temp, index, NCS_DOUBLE, &v));
        expect_int("temp[last]", (long long)v,
                   temp_at(index[0], index[1], index[2]));
        printf("single element temp[%zu][%zu][%zu] as double = %g\n",
               index[0], index[1], index[2], v);
    }

    /* The whole record variable, every element checked. */
    {
        static int all[NREC][NLAT][NLON];

        CHECK(ncs_get(ncid, v_temp, NULL, NULL, NULL, NULL, NCS_INT, all));
        for (i = 0, t = 0; t < NREC; t++)
            for (y = 0; y < NLAT; y++)
                for (x = 0; x < NLON; x++, i++) {
                    snprintf(what, sizeof what, "temp[%zu][%zu][%zu]", t, y,
                             x);
                    expect_int(what, all[t][y][x], temp_at(t, y, x));
                }
        printf("whole read of temp: %zu values checked\n", i);
    }

    CHECK(ncs_close(ncid));
}

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : "ncslab_demo.nc";
    const char *fmt = argc > 2 ? argv[2] : "1";
    int cmode;

    if (argc > 3 || (strcmp(fmt, "1") != 0 && strcmp(fmt, "2") != 0 &&
                     strcmp(fmt, "5") != 0)) {
        fprintf(stderr, "usage: %s [path [1|2|5]]\n", argv[0]);
        return 2;
    }
    cmode = fmt[0] == '2' ? NCS_64BIT_OFFSET
          : fmt[0] == '5' ? NCS_64BIT_DATA : 0;

    printf("ncslab %s demo\n", ncs_inq_libvers());
    write_file(path, cmode);
    printf("wrote %s: time(UNLIMITED) x lat(%d) x lon(%d), %d records\n",
           path, NLAT, NLON, NREC);
    read_file(path);

    if (failures) {
        printf("demo: FAILED, %d mismatched values\n", failures);
        return 1;
    }
    printf("demo: OK, every value read back where it was written\n");
    return 0;
}
