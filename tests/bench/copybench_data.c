/*
 * copybench_data.c -- the input files of scripts/copybench, and the value
 * check of its outputs, both through netCDF-C (the reference reader, so
 * neither the converter under test nor its rivals judge themselves).
 *
 *   copybench_data make FILE NREC NLAT NLON
 *       writes a CDF-1 file: coordinates lat(lat), lon(lon), time(time),
 *       a fixed field topo(lat, lon) and two record fields temp and pres
 *       (time, lat, lon), all float.  The fields are smooth (a few waves
 *       drifting with time) plus noise of about 1% of their range from a
 *       fixed-seed generator, so deflate does real work and every run
 *       writes the same bytes.
 *   copybench_data cmp A B
 *       compares every variable of A and B: names, types, shapes and every
 *       value, byte for byte; prints the first difference and exits 1.
 *
 * Exit status 0 on success, 1 on a difference, 2 on a usage or netCDF
 * error (with the message).
 */
#include <math.h>
#include <netcdf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(call)                                                            \
    do {                                                                       \
        int status_ = (call);                                                  \
        if (status_ != NC_NOERR) {                                             \
            fprintf(stderr, "copybench_data: %s: %s\n", #call,                 \
                    nc_strerror(status_));                                     \
            exit(2);                                                           \
        }                                                                      \
    } while (0)

static uint64_t rng = 0x9E3779B97F4A7C15u;

/* uniform in [-1, 1) */
static float noise(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (float)((double)(rng >> 11) / (double)(1ull << 52) - 1.0);
}

static void field(float *out, size_t nlat, size_t nlon, double t, double base,
                  double amp)
{
    for (size_t i = 0; i < nlat; i++) {
        double la = (double)i / (double)nlat * M_PI;
        for (size_t j = 0; j < nlon; j++) {
            double lo = (double)j / (double)nlon * 2.0 * M_PI;
            double v = base + amp * (sin(la) * cos(lo + 0.05 * t) +
                                     0.3 * sin(3.0 * la + 0.02 * t) * sin(2.0 * lo));
            out[i * nlon + j] = (float)(v + 0.01 * amp * noise());
        }
    }
}

static size_t parse_size(const char *s)
{
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end != '\0' || v == 0 || v > 1000000) {
        fprintf(stderr, "copybench_data: '%s' is not a length in 1..1000000\n", s);
        exit(2);
    }
    return (size_t)v;
}

static int make(const char *path, size_t nrec, size_t nlat, size_t nlon)
{
    int nc, dlat, dlon, dtime, vlat, vlon, vtime, vtopo, vtemp, vpres;
    int d3[3];
    float *buf = malloc(nlat * nlon * sizeof *buf);
    if (buf == NULL) {
        fprintf(stderr, "copybench_data: out of memory\n");
        return 2;
    }
    CHECK(nc_create(path, NC_CLOBBER, &nc));
    CHECK(nc_set_fill(nc, NC_NOFILL, NULL));
    CHECK(nc_def_dim(nc, "time", NC_UNLIMITED, &dtime));
    CHECK(nc_def_dim(nc, "lat", nlat, &dlat));
    CHECK(nc_def_dim(nc, "lon", nlon, &dlon));
    CHECK(nc_def_var(nc, "time", NC_DOUBLE, 1, &dtime, &vtime));
    CHECK(nc_def_var(nc, "lat", NC_FLOAT, 1, &dlat, &vlat));
    CHECK(nc_def_var(nc, "lon", NC_FLOAT, 1, &dlon, &vlon));
    d3[0] = dlat;
    d3[1] = dlon;
    CHECK(nc_def_var(nc, "topo", NC_FLOAT, 2, d3, &vtopo));
    d3[0] = dtime;
    d3[1] = dlat;
    d3[2] = dlon;
    CHECK(nc_def_var(nc, "temp", NC_FLOAT, 3, d3, &vtemp));
    CHECK(nc_def_var(nc, "pres", NC_FLOAT, 3, d3, &vpres));
    CHECK(nc_put_att_text(nc, vtemp, "units", 1, "K"));
    CHECK(nc_put_att_text(nc, vpres, "units", 3, "hPa"));
    CHECK(nc_put_att_text(nc, NC_GLOBAL, "title", 24, "scripts/copybench input"));
    CHECK(nc_enddef(nc));
    for (size_t i = 0; i < nlat; i++)
        buf[i] = (float)(-90.0 + 180.0 * ((double)i + 0.5) / (double)nlat);
    CHECK(nc_put_var_float(nc, vlat, buf));
    for (size_t j = 0; j < nlon; j++)
        buf[j] = (float)(360.0 * (double)j / (double)nlon);
    CHECK(nc_put_var_float(nc, vlon, buf));
    field(buf, nlat, nlon, 0.0, 500.0, 400.0);
    CHECK(nc_put_var_float(nc, vtopo, buf));
    for (size_t r = 0; r < nrec; r++) {
        size_t start[3] = {r, 0, 0}, count[3] = {1, nlat, nlon};
        double t = (double)r;
        CHECK(nc_put_var1_double(nc, vtime, start, &t));
        field(buf, nlat, nlon, t, 280.0, 20.0);
        CHECK(nc_put_vara_float(nc, vtemp, start, count, buf));
        field(buf, nlat, nlon, 2.0 * t, 1000.0, 30.0);
        CHECK(nc_put_vara_float(nc, vpres, start, count, buf));
    }
    CHECK(nc_close(nc));
    free(buf);
    return 0;
}

/* Compares variable v of a and b a record (or the whole variable) at a time. */
static int cmp_var(int a, int b, int v)
{
    char name[NC_MAX_NAME + 1], name2[NC_MAX_NAME + 1];
    int t1, t2, n1, n2, dims1[NC_MAX_VAR_DIMS], dims2[NC_MAX_VAR_DIMS];
    size_t len[NC_MAX_VAR_DIMS], len2, esz, per = 1, outer = 1;
    unsigned char *x, *y;
    int rc = 0;
    CHECK(nc_inq_var(a, v, name, &t1, &n1, dims1, NULL));
    CHECK(nc_inq_var(b, v, name2, &t2, &n2, dims2, NULL));
    if (strcmp(name, name2) != 0 || t1 != t2 || n1 != n2) {
        printf("variable %d: %s and %s differ in name, type or rank\n", v, name, name2);
        return 1;
    }
    for (int d = 0; d < n1; d++) {
        CHECK(nc_inq_dimlen(a, dims1[d], &len[d]));
        CHECK(nc_inq_dimlen(b, dims2[d], &len2));
        if (len[d] != len2) {
            printf("variable %s: dimension %d is %zu long, %zu in the other\n", name, d,
                   len[d], len2);
            return 1;
        }
        if (d == 0 && n1 > 1)
            outer = len[0];
        else
            per *= len[d];
    }
    CHECK(nc_inq_type(a, t1, NULL, &esz));
    x = malloc(per * esz + 1);
    y = malloc(per * esz + 1);
    if (x == NULL || y == NULL) {
        fprintf(stderr, "copybench_data: out of memory\n");
        exit(2);
    }
    for (size_t r = 0; r < outer && rc == 0; r++) {
        size_t start[NC_MAX_VAR_DIMS] = {0}, count[NC_MAX_VAR_DIMS];
        for (int d = 0; d < n1; d++)
            count[d] = len[d];
        if (n1 > 1) {
            start[0] = r;
            count[0] = 1;
        }
        if (per == 0)
            break;
        CHECK(nc_get_vara(a, v, start, count, x));
        CHECK(nc_get_vara(b, v, start, count, y));
        if (memcmp(x, y, per * esz) != 0) {
            size_t i = 0;
            while (memcmp(x + i * esz, y + i * esz, esz) == 0)
                i++;
            printf("variable %s differs: outer index %zu, element %zu of it\n", name, r, i);
            rc = 1;
        }
    }
    free(x);
    free(y);
    return rc;
}

static int cmp(const char *pa, const char *pb)
{
    int a, b, na, nb, rc = 0;
    CHECK(nc_open(pa, NC_NOWRITE, &a));
    CHECK(nc_open(pb, NC_NOWRITE, &b));
    CHECK(nc_inq_nvars(a, &na));
    CHECK(nc_inq_nvars(b, &nb));
    if (na != nb) {
        printf("%s has %d variables, %s %d\n", pa, na, pb, nb);
        rc = 1;
    }
    for (int v = 0; v < na && rc == 0; v++)
        rc = cmp_var(a, b, v);
    CHECK(nc_close(a));
    CHECK(nc_close(b));
    return rc;
}

int main(int argc, char **argv)
{
    if (argc == 6 && strcmp(argv[1], "make") == 0)
        return make(argv[2], parse_size(argv[3]), parse_size(argv[4]),
                     parse_size(argv[5]));
    if (argc == 4 && strcmp(argv[1], "cmp") == 0)
        return cmp(argv[2], argv[3]);
    fprintf(stderr, "usage: copybench_data make FILE NREC NLAT NLON\n"
                    "       copybench_data cmp A B\n");
    return 2;
}
