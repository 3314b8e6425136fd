/*
 * legacy.c -- a program written against netCDF's version-2 API, as found in
 * old model and instrument codes.  It builds unchanged against netCDF-C or
 * against ncslab:
 *
 *     cc legacy.c $(pkg-config --cflags --libs netcdf)      # netCDF-C
 *     cc legacy.c $(pkg-config --cflags --libs ncslab-v2)   # ncslab
 *
 * It writes a small file of hourly station records (a record dimension,
 * NC_LONG and NC_FLOAT data, attributes), reads it back with ncrecget and
 * a byte-mapped ncvargetg, checks every value and exits 0 on success.
 *
 * Usage: legacy [FILE]      (default legacy.nc)
 */
#include <stdio.h>
#include <string.h>
#include <netcdf.h>

#define NSTATIONS 3
#define NHOURS 4

static int failures = 0;

static void expect(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "legacy: wrong %s\n", what);
        failures++;
    }
}

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : "legacy.nc";
    int ncid, timedim, stdim, dims[2];
    int idvar, tempvar, nrecvars, recvarids[2];
    long recsizes[2];
    long start[2], count[2], map[2];
    nclong ids[NSTATIONS] = { 101, 205, 342 };
    float temp[NSTATIONS], temp_t[NSTATIONS * NHOURS];
    nclong hour;
    void *rec[2];
    nc_type type;
    int len, h, s;
    char units[16];

    /* exit with a message on any error: the v2 default, spelt out */
    ncopts = NC_VERBOSE | NC_FATAL;

    ncid = nccreate(path, NC_CLOBBER);
    timedim = ncdimdef(ncid, "time", NC_UNLIMITED);
    stdim = ncdimdef(ncid, "station", (long)NSTATIONS);
    idvar = ncvardef(ncid, "station_id", NC_LONG, 1, &stdim);
    dims[0] = timedim;
    dims[1] = stdim;
    tempvar = ncvardef(ncid, "temp", NC_FLOAT, 2, dims);
    ncattput(ncid, tempvar, "units", NC_CHAR, 7, (void *)"celsius");
    ncattput(ncid, NC_GLOBAL, "source", NC_CHAR, 6, (void *)"legacy");
    ncendef(ncid);

    start[0] = 0;
    count[0] = NSTATIONS;
    ncvarput(ncid, idvar, start, count, (void *)ids);
    for (h = 0; h < NHOURS; h++) {
        for (s = 0; s < NSTATIONS; s++)
            temp[s] = (float)(10 * h + s);
        rec[0] = temp; /* the only record variable */
        ncrecput(ncid, (long)h, rec);
    }
    ncclose(ncid);

    /* read it back */
    ncid = ncopen(path, NC_NOWRITE);
    expect(ncrecinq(ncid, &nrecvars, recvarids, recsizes) == 1, "ncrecinq");
    expect(nrecvars == 1 && recvarids[0] == tempvar, "record variables");
    expect(recsizes[0] == NSTATIONS * 4, "record size");
    expect(ncattinq(ncid, tempvar, "units", &type, &len) == 1, "ncattinq");
    expect(type == NC_CHAR && len == 7, "units attribute");
    ncattget(ncid, tempvar, "units", units);
    expect(memcmp(units, "celsius", 7) == 0, "units");

    rec[0] = temp;
    ncrecget(ncid, 2L, rec);
    for (s = 0; s < NSTATIONS; s++)
        expect(temp[s] == (float)(20 + s), "record 2");

    /* the whole variable, transposed to [station][time]: maps are in bytes */
    start[0] = start[1] = 0;
    count[0] = NHOURS;
    count[1] = NSTATIONS;
    map[0] = (long)sizeof(float);
    map[1] = (long)(NHOURS * sizeof(float));
    ncvargetg(ncid, tempvar, start, count, NULL, map, (void *)temp_t);
    for (s = 0; s < NSTATIONS; s++)
        for (h = 0; h < NHOURS; h++)
            expect(temp_t[s * NHOURS + h] == (float)(10 * h + s), "transposed temp");

    /* an error, reported but not fatal */
    ncopts = NC_VERBOSE;
    start[0] = NHOURS;
    start[1] = 0;
    expect(ncvarget1(ncid, tempvar, start, &hour) == -1, "ncvarget1 past the end");
    expect(ncerr == NC_EINVALCOORDS, "ncerr");

    ncclose(ncid);
    if (failures == 0)
        printf("legacy: %s written and read back\n", path);
    return failures != 0;
}
