/*
 * v2_nc4default.c -- a v2 program that selects netCDF-4 the only way the
 * v2 API offers, nc_set_default_format, then creates a file with plain
 * nccreate: the file must be a netCDF-4 (HDF5) file that reads back.
 * Built against ncslab's v2 header and library only.
 *
 * Usage: v2_nc4default [DIR]      (files DIR/v2_nc4default_N.nc)
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <netcdf.h>

static int failures = 0;

static void expect(int ok, const char *what, int format)
{
    if (!ok) {
        fprintf(stderr, "v2_nc4default: format %d: %s\n", format, what);
        failures++;
    }
}

static int is_hdf5(const char *path)
{
    static const unsigned char sig[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};
    unsigned char buf[8];
    FILE *fp = fopen(path, "rb");
    size_t got = fp != NULL ? fread(buf, 1, 8, fp) : 0;
    if (fp != NULL)
        fclose(fp);
    return got == 8 && memcmp(buf, sig, 8) == 0;
}

int main(int argc, char **argv)
{
    static const int formats[2] = {NC_FORMAT_NETCDF4_CLASSIC, NC_FORMAT_NETCDF4};
    const char *dir = argc > 1 ? argv[1] : ".";
    int prev = NC_FORMAT_CLASSIC;

    ncopts = 0;          /* report, do not exit: the checks below say what failed */
    for (int i = 0; i < 2; i++) {
        char path[1024];
        int old = -1, ncid, dim, var, status;
        long idx = 2;
        nclong val = 1992, back = 0;
        snprintf(path, sizeof path, "%s/v2_nc4default_%d.nc", dir, i);
        status = nc_set_default_format(formats[i], &old);
        expect(status == NC_NOERR, "nc_set_default_format refused it", formats[i]);
        expect(old == prev, "nc_set_default_format's old format", formats[i]);
        prev = formats[i];
        ncid = nccreate(path, NC_CLOBBER);
        expect(ncid >= 0, "nccreate", formats[i]);
        if (ncid < 0)
            continue;
        dim = ncdimdef(ncid, "x", 4L);
        var = ncvardef(ncid, "v", NC_LONG, 1, &dim);
        expect(dim >= 0 && var >= 0 && ncendef(ncid) == 0, "definitions", formats[i]);
        expect(ncvarput1(ncid, var, &idx, &val) == 0, "ncvarput1", formats[i]);
        expect(ncclose(ncid) == 0, "ncclose", formats[i]);
        expect(is_hdf5(path), "the file is not a netCDF-4 (HDF5) file", formats[i]);
        ncid = ncopen(path, NC_NOWRITE);
        expect(ncid >= 0 && ncvarget1(ncid, 0, &idx, &back) == 0 && back == val, "reading back",
               formats[i]);
        if (ncid >= 0)
            ncclose(ncid);
        unlink(path);
    }
    nc_set_default_format(NC_FORMAT_CLASSIC, NULL);
    return failures == 0 ? 0 : 1;
}
