/*
 * tools/scanrss.c -- the memory of a standalone program that links only
 * libncslab and reads every cell of a 2000 x 2000 short grid by ncs_get1,
 * row by row (GVRS's scan), and the time of its first netCDF-4 open.
 *
 *   cc -O2 -o scanrss tools/scanrss.c -Iinclude -L_build/lib/.libs -lncslab
 *   LD_LIBRARY_PATH=_build/lib/.libs ./scanrss make FILE classic|chunked
 *       writes the grid (chunked: netCDF-4 classic model, 120 x 180
 *       chunks); value (i, j) is (i * 31 + j * 7) % 30011
 *   LD_LIBRARY_PATH=_build/lib/.libs ./scanrss scan FILE [maps]
 *       opens FILE, reads every cell (checking the sum), and prints the
 *       peak resident set (ru_maxrss), the open's time, whether HDF5 is
 *       mapped, and the heap in use (glibc's mallinfo2) after the open
 *       and after the scan; with maps, the resident kilobytes of each
 *       mapping at the end of the scan, before the close (from
 *       /proc/self/smaps)
 *   LD_LIBRARY_PATH=... valgrind --tool=callgrind --toggle-collect=scan \
 *       ./scanrss scan FILE
 *       the instructions of the get1 loop alone, to compare two builds of
 *       the library with the same program
 */
#include <malloc.h>
#include <ncslab.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#define NY 2000
#define NX 2000

static void check(int status, const char *what)
{
    if (status != NCS_NOERR) {
        fprintf(stderr, "scanrss: %s: %s\n", what, ncs_strerror(status));
        exit(1);
    }
}

static short value(size_t i, size_t j)
{
    return (short)((i * 31 + j * 7) % 30011);
}

static void make(const char *path, int chunked)
{
    static short row[NX];
    int ncid, dims[2], varid;
    size_t chunks[2] = { 120, 180 };
    check(ncs_create(path, chunked ? NCS_NETCDF4 | NCS_CLASSIC_MODEL : 0, &ncid), "create");
    check(ncs_def_dim(ncid, "y", NY, &dims[0]), "def_dim");
    check(ncs_def_dim(ncid, "x", NX, &dims[1]), "def_dim");
    check(ncs_def_var(ncid, "z", NCS_SHORT, 2, dims, &varid), "def_var");
    if (chunked)
        check(ncs_def_var_chunking(ncid, varid, NCS_CHUNKED, chunks), "def_var_chunking");
    check(ncs_enddef(ncid), "enddef");
    for (size_t i = 0; i < NY; i++) {
        size_t start[2] = { i, 0 }, count[2] = { 1, NX };
        for (size_t j = 0; j < NX; j++)
            row[j] = value(i, j);
        check(ncs_put(ncid, varid, start, count, NULL, NULL, NCS_SHORT, row), "put");
    }
    check(ncs_close(ncid), "close");
}

/* The loop callgrind counts (--toggle-collect=scan). */
__attribute__((noinline)) long long scan(int ncid, int varid);
__attribute__((noinline)) long long scan(int ncid, int varid)
{
    long long sum = 0;
    size_t index[2];
    short v;
    for (index[0] = 0; index[0] < NY; index[0]++)
        for (index[1] = 0; index[1] < NX; index[1]++) {
            check(ncs_get1(ncid, varid, index, NCS_SHORT, &v), "get1");
            sum += v;
        }
    return sum;
}

static int hdf5_mapped(void)
{
    char line[4096];
    int found = 0;
    FILE *maps = fopen("/proc/self/maps", "r");
    while (maps != NULL && !found && fgets(line, sizeof line, maps) != NULL)
        found = strstr(line, "libhdf5") != NULL;
    if (maps != NULL)
        fclose(maps);
    return found;
}

/* Rss of each mapping of /proc/self/smaps, summed by name. */
static void print_maps(void)
{
    char line[4096], name[4096] = "";
    struct { char name[256]; long kib; } sums[128];
    int n = 0;
    FILE *smaps = fopen("/proc/self/smaps", "r");
    if (smaps == NULL)
        return;
    while (fgets(line, sizeof line, smaps) != NULL) {
        long kib;
        unsigned long lo, hi;
        if (sscanf(line, "%lx-%lx", &lo, &hi) == 2 && strchr(line, ' ') != NULL) {
            char *p = line;
            /* the name is the sixth field, possibly absent */
            for (int field = 0; field < 5 && p != NULL; field++) {
                p = strchr(p, ' ');
                while (p != NULL && *p == ' ')
                    p++;
            }
            snprintf(name, sizeof name, "%s", p != NULL && *p != '\n' ? p : "[anon]\n");
            name[strcspn(name, "\n")] = '\0';
        } else if (sscanf(line, "Rss: %ld kB", &kib) == 1) {
            const char *base = strrchr(name, '/') != NULL ? strrchr(name, '/') + 1 : name;
            int k = 0;
            while (k < n && strcmp(sums[k].name, base) != 0)
                k++;
            if (k == n && n < 128) {
                snprintf(sums[n].name, sizeof sums[n].name, "%s", base);
                sums[n++].kib = 0;
            }
            if (k < n)
                sums[k].kib += kib;
        }
    }
    fclose(smaps);
    for (int k = 0; k < n; k++)
        if (sums[k].kib > 0)
            printf("  %6ld KiB  %s\n", sums[k].kib, sums[k].name);
}

static long heap_kib(void)
{
    struct mallinfo2 mi = mallinfo2();
    return (long)(mi.uordblks >> 10);
}

static double ms_since(const struct timespec *t0)
{
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    return (t1.tv_sec - t0->tv_sec) * 1e3 + (t1.tv_nsec - t0->tv_nsec) / 1e6;
}

int main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[1], "make") == 0) {
        make(argv[2], strcmp(argv[3], "chunked") == 0);
        return 0;
    }
    if ((argc == 3 || argc == 4) && strcmp(argv[1], "scan") == 0) {
        int ncid, varid, mapped_before = hdf5_mapped();
        long long sum, want = 0;
        long heap_open, heap_scan;
        double open_ms, reopen_ms;
        struct timespec t0;
        struct rusage ru;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        check(ncs_open(argv[2], NCS_NOWRITE, &ncid), "open");
        open_ms = ms_since(&t0);
        check(ncs_close(ncid), "close");
        clock_gettime(CLOCK_MONOTONIC, &t0);
        check(ncs_open(argv[2], NCS_NOWRITE, &ncid), "open");
        reopen_ms = ms_since(&t0);
        check(ncs_inq_varid(ncid, "z", &varid), "inq_varid");
        heap_open = heap_kib();
        sum = scan(ncid, varid);
        heap_scan = heap_kib();
        for (size_t i = 0; i < NY; i++)
            for (size_t j = 0; j < NX; j++)
                want += value(i, j);
        if (sum != want) {
            fprintf(stderr, "scanrss: sum %lld, expected %lld\n", sum, want);
            return 1;
        }
        if (argc == 4)
            print_maps();
        check(ncs_close(ncid), "close");
        getrusage(RUSAGE_SELF, &ru);
        printf("peak_kib %ld first_open_ms %.3f second_open_ms %.3f hdf5_before %d hdf5_after %d "
               "heap_open_kib %ld heap_scan_kib %ld\n", ru.ru_maxrss, open_ms, reopen_ms,
               mapped_before, hdf5_mapped(), heap_open, heap_scan);
        return 0;
    }
    fprintf(stderr, "usage: scanrss make FILE classic|chunked | scanrss scan FILE [maps]\n");
    return 2;
}
