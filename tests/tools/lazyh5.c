/*
 * lazyh5.c -- HDF5 is loaded on the first use of a netCDF-4 file, not
 * before, and classic files work when it cannot be loaded at all.  Driven
 * by lazyh5_check.sh; links libncslab only (no HDF5) and uses the public
 * API only.
 *
 *   lazyh5 DIR create      a classic file written, closed, reopened, read:
 *                          HDF5 not mapped (/proc/self/maps); then a
 *                          netCDF-4 file DIR/nc4.nc created: HDF5 mapped
 *   lazyh5 DIR open        the classic file again, HDF5 not mapped; then
 *                          DIR/nc4.nc opened read-only and read: HDF5
 *                          still not mapped (ncslab reads it without
 *                          HDF5); then opened for writing: HDF5 mapped
 *   lazyh5 DIR unloadable  run where HDF5 cannot be loaded: creating
 *                          netCDF-4 files and opening them for writing
 *                          fail with NCS_ENOTBUILT (each time), reading
 *                          them works, and classic files still work,
 *                          before and after
 * With NCSLAB_NC4READ=0 or the fast paths off (NCSLAB_FASTPATH=0, the
 * default of debug builds), netCDF-4 files are read through HDF5 too: a read-only open then maps it, or fails where it
 * cannot be loaded.
 *   lazyh5 soname          prints the name the library loads HDF5 by
 *
 * Values encode their index: element (i, j) holds i * 100 + j.
 */
#include "config.h"

#include <ncslab.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NI 6
#define NJ 7

static int failures;

#define EXPECT(call, want)                                                          \
    do {                                                                            \
        int got_ = (call);                                                          \
        if (got_ != (want)) {                                                       \
            fprintf(stderr, "FAIL line %d: %s returned %d, expected %d\n", __LINE__, \
                    #call, got_, (want));                                           \
            failures++;                                                             \
        }                                                                           \
    } while (0)

/* Whether a line of /proc/self/maps names a file whose name contains key. */
static int mapped(const char *key)
{
    char line[4096];
    int found = 0;
    FILE *maps = fopen("/proc/self/maps", "r");
    if (maps == NULL) {
        perror("/proc/self/maps");
        exit(99);
    }
    while (!found && fgets(line, sizeof line, maps) != NULL)
        found = strstr(line, key) != NULL;
    fclose(maps);
    return found;
}

/* The SONAME up to ".so": the stem every file of that library shares. */
static void soname_stem(const char *soname, char *stem, size_t size)
{
    const char *end = strstr(soname, ".so");
    size_t n = end != NULL ? (size_t)(end - soname) : strlen(soname);
    if (n >= size)
        n = size - 1;
    memcpy(stem, soname, n);
    strcpy(stem + n, ".so");
}

static void write_values(int ncid, int varid)
{
    short v[NI][NJ];
    for (int i = 0; i < NI; i++)
        for (int j = 0; j < NJ; j++)
            v[i][j] = (short)(i * 100 + j);
    EXPECT(ncs_put(ncid, varid, NULL, NULL, NULL, NULL, NCS_SHORT, v), NCS_NOERR);
}

static void check_values(int ncid, int varid)
{
    for (size_t i = 0; i < NI; i++)
        for (size_t j = 0; j < NJ; j++) {
            size_t index[2] = { i, j };
            short got = -1;
            EXPECT(ncs_get1(ncid, varid, index, NCS_SHORT, &got), NCS_NOERR);
            if (got != (short)(i * 100 + j)) {
                fprintf(stderr, "FAIL: (%zu, %zu) holds %d\n", i, j, got);
                failures++;
            }
        }
}

/* Creates path (cmode) with one NI x NJ short variable and its values. */
static int make_file(const char *path, int cmode)
{
    int ncid, dims[2], varid, status = ncs_create(path, cmode | NCS_CLOBBER, &ncid);
    if (status != NCS_NOERR)
        return status;
    EXPECT(ncs_def_dim(ncid, "i", NI, &dims[0]), NCS_NOERR);
    EXPECT(ncs_def_dim(ncid, "j", NJ, &dims[1]), NCS_NOERR);
    EXPECT(ncs_def_var(ncid, "v", NCS_SHORT, 2, dims, &varid), NCS_NOERR);
    EXPECT(ncs_enddef(ncid), NCS_NOERR);
    write_values(ncid, varid);
    EXPECT(ncs_close(ncid), NCS_NOERR);
    return NCS_NOERR;
}

static int read_file(const char *path, int mode)
{
    int ncid, varid, status = ncs_open(path, mode, &ncid);
    if (status != NCS_NOERR)
        return status;
    EXPECT(ncs_inq_varid(ncid, "v", &varid), NCS_NOERR);
    check_values(ncid, varid);
    EXPECT(ncs_close(ncid), NCS_NOERR);
    return NCS_NOERR;
}

/* A classic file written and read back, then updated in place. */
static void classic_round_trip(const char *classic)
{
    int ncid, varid;
    size_t index[2] = { 1, 2 };
    short v = 102;
    EXPECT(make_file(classic, 0), NCS_NOERR);
    EXPECT(read_file(classic, NCS_NOWRITE), NCS_NOERR);
    EXPECT(ncs_open(classic, NCS_WRITE, &ncid), NCS_NOERR);
    EXPECT(ncs_inq_varid(ncid, "v", &varid), NCS_NOERR);
    EXPECT(ncs_put1(ncid, varid, index, NCS_SHORT, &v), NCS_NOERR);
    EXPECT(ncs_close(ncid), NCS_NOERR);
    EXPECT(read_file(classic, NCS_NOWRITE), NCS_NOERR);
}

static void expect_mapped(const char *stem, const char *hl_stem, int want, const char *when)
{
    int core = mapped(stem), hl = mapped(hl_stem);
    if (core != want || hl != want) {
        fprintf(stderr, "FAIL: %s, %s is %smapped and %s %smapped\n", when, stem,
                core ? "" : "not ", hl_stem, hl ? "" : "not ");
        failures++;
    }
}

/* Whether read-only netCDF-4 opens go to HDF5: asked for, or the fast
 * paths off (by the environment, or by default in a debug build). */
static int reads_through_hdf5(void)
{
    const char *a = getenv("NCSLAB_NC4READ"), *b = getenv("NCSLAB_FASTPATH");
#ifdef NCS_DEBUG
    int fast = 0;
#else
    int fast = 1;
#endif
    if (b != NULL && b[0] != '\0')
        fast = b[0] == '1';
    return (a != NULL && strcmp(a, "0") == 0) || !fast;
}

int main(int argc, char **argv)
{
    char classic[4096], nc4[4096], stem[256], hl_stem[256];
    int via_hdf5 = reads_through_hdf5();
    if (argc == 2 && strcmp(argv[1], "soname") == 0) {
        printf("%s\n", NCSI_HDF5_SONAME);
        return 0;
    }
    if (argc != 3) {
        fprintf(stderr, "usage: lazyh5 DIR create|open|unloadable, or lazyh5 soname\n");
        return 99;
    }
    snprintf(classic, sizeof classic, "%s/classic.nc", argv[1]);
    snprintf(nc4, sizeof nc4, "%s/nc4.nc", argv[1]);
    soname_stem(NCSI_HDF5_SONAME, stem, sizeof stem);
    soname_stem(NCSI_HDF5_HL_SONAME, hl_stem, sizeof hl_stem);

    if (strcmp(argv[2], "create") == 0 || strcmp(argv[2], "open") == 0) {
        expect_mapped(stem, hl_stem, 0, "at start");
        classic_round_trip(classic);
        expect_mapped(stem, hl_stem, 0, "after classic open/get/put/close");
        if (strcmp(argv[2], "create") == 0) {
            EXPECT(make_file(nc4, NCS_NETCDF4 | NCS_CLASSIC_MODEL), NCS_NOERR);
            expect_mapped(stem, hl_stem, 1, "after creating a netCDF-4 file");
        }
        EXPECT(read_file(nc4, NCS_NOWRITE), NCS_NOERR);
        if (strcmp(argv[2], "open") == 0)
            expect_mapped(stem, hl_stem, via_hdf5, "after reading a netCDF-4 file");
        EXPECT(read_file(nc4, NCS_WRITE), NCS_NOERR);
        expect_mapped(stem, hl_stem, 1, "after opening a netCDF-4 file for writing");
        /* classic files are unaffected by HDF5's presence */
        classic_round_trip(classic);
    } else if (strcmp(argv[2], "unloadable") == 0) {
        classic_round_trip(classic);
        for (int round = 0; round < 2; round++) {
            EXPECT(make_file(nc4, NCS_NETCDF4 | NCS_CLASSIC_MODEL), NCS_ENOTBUILT);
            EXPECT(read_file(nc4, NCS_NOWRITE), via_hdf5 ? NCS_ENOTBUILT : NCS_NOERR);
            EXPECT(read_file(nc4, NCS_WRITE), NCS_ENOTBUILT);
            classic_round_trip(classic);
        }
    } else {
        fprintf(stderr, "lazyh5: unknown mode %s\n", argv[2]);
        return 99;
    }
    if (failures != 0)
        fprintf(stderr, "%s: %d failure(s)\n", argv[2], failures);
    return failures != 0;
}
