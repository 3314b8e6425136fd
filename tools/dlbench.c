/*
 * tools/dlbench.c -- per-call cost of the classic data paths in two builds
 * of libncslab, loaded side by side with dlopen (their ncs_ symbols kept
 * apart by RTLD_LOCAL), on a float var(time=10, 20, 30, 40) CDF-1 file
 * written whole and reopened with NC_WRITE (the file timeit makes);
 * with DLBENCH_NC4=1 in the environment, the same as a netCDF-4 file
 * (netCDF-C's default chunks).
 *
 *   cc -O2 -o dlbench tools/dlbench.c -ldl
 *   ./dlbench OLD/lib/.libs/libncslab.so NEW/lib/.libs/libncslab.so
 *       timings: 11 rounds of each call, the libraries alternating
 *       (A B, then B A), the median per call
 *   valgrind --tool=callgrind --toggle-collect=run_op ./dlbench LIB OP N
 *       OP (0 put1, 1 put 1x1x1x40, 2 put 10x20x30x40, 3 get1,
 *       4 get 1x1x1x40, 5 get 10x1x1x1, 6 get 5x10x15x20 stride 2,
 *       7 get 1x1x30x40 transposed, 8 get 10x20x30x40) N + 1 times; the
 *       difference of
 *       the counts for N and 2N, divided by N, is the count per call
 *       (tools/dlbench_cg.sh does that for each OP and library)
 *
 * doc/performance.md ("The I/O buffer model on the data paths") has the
 * numbers it made.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stddef.h>
#include <time.h>

typedef struct lib {
    int (*create)(const char *, int, int *);
    int (*open)(const char *, int, int *);
    int (*close)(int);
    int (*enddef)(int);
    int (*def_dim)(int, const char *, size_t, int *);
    int (*def_var)(int, const char *, int, int, const int *, int *);
    int (*put)(int, int, const size_t *, const size_t *, const ptrdiff_t *, const ptrdiff_t *, int, const void *);
    int (*get)(int, int, const size_t *, const size_t *, const ptrdiff_t *, const ptrdiff_t *, int, void *);
    int (*put1)(int, int, const size_t *, int, const void *);
    int (*get1)(int, int, const size_t *, int, void *);
    int ncid;
    const char *name;
} lib;

#define NC_FLOAT 5
#define NC_WRITE 1
#define NC_CLOBBER 0
#define NC_NETCDF4 0x1000
static float *cube;

static void *sym(void *h, const char *n)
{
    void *p = dlsym(h, n);
    if (!p) { fprintf(stderr, "no %s\n", n); exit(2); }
    return p;
}

static void load(lib *L, const char *path)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) { fprintf(stderr, "%s\n", dlerror()); exit(2); }
    L->create = sym(h, "ncs_create"); L->open = sym(h, "ncs_open");
    L->close = sym(h, "ncs_close"); L->enddef = sym(h, "ncs_enddef");
    L->def_dim = sym(h, "ncs_def_dim"); L->def_var = sym(h, "ncs_def_var");
    L->put = sym(h, "ncs_put"); L->get = sym(h, "ncs_get");
    L->put1 = sym(h, "ncs_put1"); L->get1 = sym(h, "ncs_get1");
    L->name = path;
}

#define CK(x) do { int s_ = (x); if (s_) { fprintf(stderr, "%s: %d at %d\n", #x, s_, __LINE__); exit(1); } } while (0)

static void make_file(lib *L, const char *path)
{
    int ncid, d[4], v;
    const char *nc4 = getenv("DLBENCH_NC4");
    CK(L->create(path, nc4 != NULL && nc4[0] == '1' ? NC_NETCDF4 : NC_CLOBBER, &ncid));
    CK(L->def_dim(ncid, "time", 0, &d[0]));
    CK(L->def_dim(ncid, "a", 20, &d[1]));
    CK(L->def_dim(ncid, "b", 30, &d[2]));
    CK(L->def_dim(ncid, "c", 40, &d[3]));
    CK(L->def_var(ncid, "var", NC_FLOAT, 4, d, &v));
    CK(L->enddef(ncid));
    size_t st[4] = {0}, ct[4] = {10, 20, 30, 40};
    CK(L->put(ncid, v, st, ct, NULL, NULL, NC_FLOAT, cube));
    CK(L->close(ncid));
    CK(L->open(path, NC_WRITE, &L->ncid));
}

enum { OP_PUT1, OP_PUTVEC, OP_PUTCUBE, OP_GET1, OP_GETVEC, OP_GETVEC10, OP_GETSTRIDE,
       OP_GETMAP, OP_GETCUBE, OP_N };
static const char *opname[] = {"put1", "put 1x1x1x40", "put 10x20x30x40", "get1",
                               "get 1x1x1x40", "get 10x1x1x1", "get stride 2",
                               "get transposed", "get 10x20x30x40"};

__attribute__((noinline)) void run_op(lib *L, int op, long n)
{
    size_t idx[4] = {5, 10, 15, 20}, st[4] = {5, 10, 15, 0}, z[4] = {0};
    size_t cv[4] = {1, 1, 1, 40}, cc[4] = {10, 20, 30, 40}, c10[4] = {10, 1, 1, 1};
    static const ptrdiff_t two[4] = {2, 2, 2, 2}, tmap[4] = {1200, 1200, 1, 30};
    size_t cs[4] = {5, 10, 15, 20}, ct[4] = {1, 1, 30, 40}, tst[4] = {3, 7, 0, 0};
    static float big[240000];
    float x = 1.5f, buf[64];
    for (long i = 0; i < n; i++) {
        switch (op) {
        case OP_PUT1: CK(L->put1(L->ncid, 0, idx, NC_FLOAT, &x)); break;
        case OP_PUTVEC: CK(L->put(L->ncid, 0, st, cv, NULL, NULL, NC_FLOAT, cube)); break;
        case OP_PUTCUBE: CK(L->put(L->ncid, 0, z, cc, NULL, NULL, NC_FLOAT, cube)); break;
        case OP_GET1: CK(L->get1(L->ncid, 0, idx, NC_FLOAT, &x)); break;
        case OP_GETVEC: CK(L->get(L->ncid, 0, st, cv, NULL, NULL, NC_FLOAT, buf)); break;
        case OP_GETVEC10: { size_t s0[4] = {0, 10, 15, 20};
            CK(L->get(L->ncid, 0, s0, c10, NULL, NULL, NC_FLOAT, buf)); break; }
        case OP_GETSTRIDE: CK(L->get(L->ncid, 0, z, cs, two, NULL, NC_FLOAT, big)); break;
        case OP_GETMAP: CK(L->get(L->ncid, 0, tst, ct, NULL, tmap, NC_FLOAT, big)); break;
        case OP_GETCUBE: CK(L->get(L->ncid, 0, z, cc, NULL, NULL, NC_FLOAT, big)); break;
        }
    }
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static int cmpd(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    static const long reps[OP_N] = {200000, 200000, 20, 200000, 200000, 200000, 200, 2000, 20};
    cube = malloc(10 * 20 * 30 * 40 * sizeof *cube);
    for (long i = 0; i < 240000; i++) cube[i] = (float)i;
    if (argc == 4) {
        lib L;
        load(&L, argv[1]);
        make_file(&L, "dlbench_cg.nc");
        int op = atoi(argv[2]);
        run_op(&L, op, 1);
        run_op(&L, op, atol(argv[3]));
        CK(L.close(L.ncid));
        return 0;
    }
    int nl = argc - 1;
    lib L[2];
    for (int i = 0; i < nl; i++) {
        char p[64];
        load(&L[i], argv[i + 1]);
        snprintf(p, sizeof p, "dlbench_%d.nc", i);
        make_file(&L[i], p);
    }
    enum { ROUNDS = 11 };
    for (int op = 0; op < OP_N; op++) {
        double t[2][ROUNDS];
        for (int r = 0; r < ROUNDS; r++)
            for (int k = 0; k < nl; k++) {
                int i = r % 2 ? nl - 1 - k : k;
                double t0 = now();
                run_op(&L[i], op, reps[op]);
                t[i][r] = (now() - t0) / reps[op] * 1e9;
            }
        printf("%-18s", opname[op]);
        for (int i = 0; i < nl; i++) {
            qsort(t[i], ROUNDS, sizeof t[i][0], cmpd);
            printf("  %10.1f ns", t[i][ROUNDS / 2]);
        }
        if (nl == 2)
            printf("  %+6.1f%%", (t[1][ROUNDS / 2] / t[0][ROUNDS / 2] - 1) * 100);
        printf("\n");
    }
    for (int i = 0; i < nl; i++)
        CK(L[i].close(L[i].ncid));
    return 0;
}
