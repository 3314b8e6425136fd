/*
 * parbench.c -- parallel write kernels in the style of PnetCDF's
 * published benchmarks, through ncslab's parallel library and through
 * PnetCDF, interleaved in one run (doc/parallel.md has the table and the
 * command, scripts/parbench runs it at 1, 2 and 4 processes):
 *
 *   flash  FLASH-IO-like: every process writes one contiguous block of
 *          each of NVARS double variables, collectively;
 *   wrf    WRF-IO-like: a 2-D block-block decomposition of the (y, x)
 *          planes of NVARS float record variables, NRECS records,
 *          collectively;
 *   e3sm   E3SM-like: every process many small non-contiguous pieces of
 *          three variables (16 elements each, interleaved among the
 *          processes), posted nonblocking and completed by one wait;
 *   e3sm-blocking  ncslab's nonblocking kernel against the same pieces
 *          as ncslab's blocking independent calls;
 *   e3sm-collective  against the same pieces as ncslab's blocking
 *          collective calls (every process makes as many).
 *
 * Each kernel creates its file, defines it, writes and closes it; the time
 * is the slowest process's, the bandwidth the file's data bytes over it.
 * The two libraries' files are compared byte for byte after each pair of
 * runs (a difference fails the run).  Each library's figure is the median
 * of its R runs (the best of a few runs favours whichever library's times
 * scatter more).  Options: --scale N (data per process, default 4: about
 * 4 MiB per kernel per process), --reps R (default 11), --dir DIR
 * (default /tmp), --kernels k1,k2,..., --hints key=value,... (MPI-IO hints
 * in the MPI_Info of every create, through both libraries: cb_nodes=1
 * keeps OMPIO's one aggregator where ncslab's wait would ask for more,
 * doc/parallel.md "Speed"), --fcoll LIST (OpenMPI: OMPIO's collective
 * components, written to the control variable "fcoll" through MPI_T
 * before any file is opened, as OMPI_MCA_fcoll=LIST would; it then holds
 * for every file of the run, doc/parallel.md "Speed").
 */
#include <mpi.h>
#include <ncslab_par.h>
#include <pnetcdf.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NVARS 8
#define NRECS 4

static int rank, nprocs;
static MPI_Info hints = MPI_INFO_NULL;  /* --hints: every create's, both libraries */
static int mpit_open;                   /* --fcoll: MPI_T initialized */

static void die(const char *what, const char *msg)
{
    fprintf(stderr, "parbench: %s: %s\n", what, msg);
    MPI_Abort(MPI_COMM_WORLD, 2);
}

#define NCS(call) do { int e_ = (call); if (e_) die(#call, ncs_strerror(e_)); } while (0)
#define PN(call) do { int e_ = (call); if (e_) die(#call, ncmpi_strerror(e_)); } while (0)

/* A process grid px x py for the WRF-like kernel: as square as it gets. */
static void grid(int n, int *px, int *py)
{
    int p = 1;
    for (int i = 1; i * i <= n; i++)
        if (n % i == 0)
            p = i;
    *py = p;
    *px = n / p;
}

typedef struct kern {
    const char *name;
    double (*run)(int lib, const char *path, int scale, double *bytes);
    const char *side[2];
} kern;

/* ---- flash ---------------------------------------------------------------- */

static double flash(int lib, const char *path, int scale, double *bytes)
{
    size_t per = (size_t)scale * 65536;              /* doubles a variable a process */
    double *buf = malloc(per * sizeof *buf), t0, t;
    int ncid, dim, v[NVARS];
    char name[16];
    if (buf == NULL)
        die("flash", "out of memory");
    for (size_t i = 0; i < per; i++)
        buf[i] = (double)rank * per + i;
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    if (lib == 0) {
        size_t st = (size_t)rank * per, ct = per;
        NCS(ncs_create_par(path, NCS_CLOBBER | NCS_64BIT_DATA, MPI_COMM_WORLD, hints,
                           &ncid));
        NCS(ncs_def_dim(ncid, "n", per * nprocs, &dim));
        for (int i = 0; i < NVARS; i++) {
            snprintf(name, sizeof name, "var%d", i);
            NCS(ncs_def_var(ncid, name, NCS_DOUBLE, 1, &dim, &v[i]));
        }
        NCS(ncs_enddef(ncid));
        for (int i = 0; i < NVARS; i++)
            NCS(ncs_put(ncid, v[i], &st, &ct, NULL, NULL, NCS_DOUBLE, buf));
        NCS(ncs_close(ncid));
    } else {
        MPI_Offset st = (MPI_Offset)rank * per, ct = per;
        PN(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | NC_64BIT_DATA, hints, &ncid));
        PN(ncmpi_def_dim(ncid, "n", (MPI_Offset)per * nprocs, &dim));
        for (int i = 0; i < NVARS; i++) {
            snprintf(name, sizeof name, "var%d", i);
            PN(ncmpi_def_var(ncid, name, NC_DOUBLE, 1, &dim, &v[i]));
        }
        PN(ncmpi_enddef(ncid));
        for (int i = 0; i < NVARS; i++)
            PN(ncmpi_put_vara_double_all(ncid, v[i], &st, &ct, buf));
        PN(ncmpi_close(ncid));
    }
    t = MPI_Wtime() - t0;
    free(buf);
    *bytes = (double)per * nprocs * NVARS * sizeof(double);
    return t;
}

/* ---- wrf ------------------------------------------------------------------- */

static double wrf(int lib, const char *path, int scale, double *bytes)
{
    int px, py, ncid, d[3], v[NVARS];
    size_t bx = 256, by = (size_t)scale * 16;        /* a process's block of a plane */
    float *buf;
    double t0, t;
    char name[16];
    grid(nprocs, &px, &py);
    buf = malloc(bx * by * sizeof *buf);
    if (buf == NULL)
        die("wrf", "out of memory");
    for (size_t i = 0; i < bx * by; i++)
        buf[i] = (float)(rank + i);
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    if (lib == 0) {
        NCS(ncs_create_par(path, NCS_CLOBBER | NCS_64BIT_OFFSET, MPI_COMM_WORLD, hints,
                           &ncid));
        NCS(ncs_def_dim(ncid, "Time", NCS_UNLIMITED, &d[0]));
        NCS(ncs_def_dim(ncid, "south_north", by * py, &d[1]));
        NCS(ncs_def_dim(ncid, "west_east", bx * px, &d[2]));
        for (int i = 0; i < NVARS; i++) {
            snprintf(name, sizeof name, "F%d", i);
            NCS(ncs_def_var(ncid, name, NCS_FLOAT, 3, d, &v[i]));
        }
        NCS(ncs_enddef(ncid));
        for (size_t r = 0; r < NRECS; r++)
            for (int i = 0; i < NVARS; i++) {
                size_t st[3] = { r, (size_t)(rank / px) * by, (size_t)(rank % px) * bx };
                size_t ct[3] = { 1, by, bx };
                NCS(ncs_put(ncid, v[i], st, ct, NULL, NULL, NCS_FLOAT, buf));
            }
        NCS(ncs_close(ncid));
    } else {
        PN(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | NC_64BIT_OFFSET, hints,
                        &ncid));
        PN(ncmpi_def_dim(ncid, "Time", NC_UNLIMITED, &d[0]));
        PN(ncmpi_def_dim(ncid, "south_north", (MPI_Offset)(by * py), &d[1]));
        PN(ncmpi_def_dim(ncid, "west_east", (MPI_Offset)(bx * px), &d[2]));
        for (int i = 0; i < NVARS; i++) {
            snprintf(name, sizeof name, "F%d", i);
            PN(ncmpi_def_var(ncid, name, NC_FLOAT, 3, d, &v[i]));
        }
        PN(ncmpi_enddef(ncid));
        for (MPI_Offset r = 0; r < NRECS; r++)
            for (int i = 0; i < NVARS; i++) {
                MPI_Offset st[3] = { r, (MPI_Offset)((size_t)(rank / px) * by),
                                     (MPI_Offset)((size_t)(rank % px) * bx) };
                MPI_Offset ct[3] = { 1, (MPI_Offset)by, (MPI_Offset)bx };
                PN(ncmpi_put_vara_float_all(ncid, v[i], st, ct, buf));
            }
        PN(ncmpi_close(ncid));
    }
    t = MPI_Wtime() - t0;
    free(buf);
    *bytes = (double)bx * by * nprocs * NVARS * NRECS * sizeof(float);
    return t;
}

/* ---- e3sm ------------------------------------------------------------------ */

#define PIECE 16

/* lib 0: ncslab nonblocking, 1: PnetCDF nonblocking, 2: ncslab blocking
 * independent, 3: ncslab blocking collective */
static double e3sm(int lib, const char *path, int scale, double *bytes)
{
    size_t nx = 1024, ny = (size_t)scale * 8 * nprocs;   /* each process ~scale*8*64 pieces */
    size_t npieces = ny * (nx / PIECE);
    double *da = malloc(ny * nx * sizeof *da), t0, t;
    int *ic = malloc(ny * nx * sizeof *ic);
    float *fb = malloc(ny * nx * sizeof *fb);
    int *req = malloc((3 * npieces / nprocs + 3) * sizeof *req), k = 0, ncid, d[3], v[3];
    if (da == NULL || ic == NULL || fb == NULL || req == NULL)
        die("e3sm", "out of memory");
    for (size_t i = 0; i < ny * nx; i++) {
        da[i] = (double)i;
        ic[i] = -(int)i;
        fb[i] = (float)i * 0.5f;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    if (lib != 1) {
        NCS(ncs_create_par(path, NCS_CLOBBER | NCS_64BIT_DATA, MPI_COMM_WORLD, hints,
                           &ncid));
        NCS(ncs_def_dim(ncid, "time", NCS_UNLIMITED, &d[0]));
        NCS(ncs_def_dim(ncid, "ncol", ny, &d[1]));
        NCS(ncs_def_dim(ncid, "lev", nx, &d[2]));
        NCS(ncs_def_var(ncid, "a", NCS_DOUBLE, 2, d + 1, &v[0]));
        NCS(ncs_def_var(ncid, "b", NCS_FLOAT, 3, d, &v[1]));
        NCS(ncs_def_var(ncid, "c", NCS_INT, 2, d + 1, &v[2]));
        NCS(ncs_enddef(ncid));
        if (lib == 2)
            NCS(ncs_var_par_access(ncid, NCS_GLOBAL, NCS_INDEPENDENT));
        if (lib == 3 && npieces % (size_t)nprocs != 0)
            die("e3sm", "the processes' numbers of pieces differ");
    } else {
        PN(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | NC_64BIT_DATA, hints, &ncid));
        PN(ncmpi_def_dim(ncid, "time", NC_UNLIMITED, &d[0]));
        PN(ncmpi_def_dim(ncid, "ncol", (MPI_Offset)ny, &d[1]));
        PN(ncmpi_def_dim(ncid, "lev", (MPI_Offset)nx, &d[2]));
        PN(ncmpi_def_var(ncid, "a", NC_DOUBLE, 2, d + 1, &v[0]));
        PN(ncmpi_def_var(ncid, "b", NC_FLOAT, 3, d, &v[1]));
        PN(ncmpi_def_var(ncid, "c", NC_INT, 2, d + 1, &v[2]));
        PN(ncmpi_enddef(ncid));
    }
    for (size_t p = (size_t)rank; p < npieces; p += (size_t)nprocs) {
        size_t y = p / (nx / PIECE), x = p % (nx / PIECE) * PIECE, at = y * nx + x;
        if (lib != 1) {
            size_t st2[2] = { y, x }, ct2[2] = { 1, PIECE }, st3[3] = { 0, y, x },
                   ct3[3] = { 1, 1, PIECE };
            if (lib == 0) {
                NCS(ncs_iput(ncid, v[0], st2, ct2, NULL, NULL, NCS_DOUBLE, da + at, &req[k++]));
                NCS(ncs_iput(ncid, v[1], st3, ct3, NULL, NULL, NCS_FLOAT, fb + at, &req[k++]));
                NCS(ncs_iput(ncid, v[2], st2, ct2, NULL, NULL, NCS_INT, ic + at, &req[k++]));
            } else {
                NCS(ncs_put(ncid, v[0], st2, ct2, NULL, NULL, NCS_DOUBLE, da + at));
                NCS(ncs_put(ncid, v[1], st3, ct3, NULL, NULL, NCS_FLOAT, fb + at));
                NCS(ncs_put(ncid, v[2], st2, ct2, NULL, NULL, NCS_INT, ic + at));
            }
        } else {
            MPI_Offset st2[2] = { (MPI_Offset)y, (MPI_Offset)x }, ct2[2] = { 1, PIECE };
            MPI_Offset st3[3] = { 0, (MPI_Offset)y, (MPI_Offset)x }, ct3[3] = { 1, 1, PIECE };
            PN(ncmpi_iput_vara_double(ncid, v[0], st2, ct2, da + at, &req[k++]));
            PN(ncmpi_iput_vara_float(ncid, v[1], st3, ct3, fb + at, &req[k++]));
            PN(ncmpi_iput_vara_int(ncid, v[2], st2, ct2, ic + at, &req[k++]));
        }
    }
    if (lib == 0) {
        NCS(ncs_wait_all(ncid, k, req, NULL));
        NCS(ncs_close(ncid));
    } else if (lib == 2) {
        NCS(ncs_var_par_access(ncid, NCS_GLOBAL, NCS_COLLECTIVE));
        NCS(ncs_close(ncid));
    } else if (lib == 3) {
        NCS(ncs_close(ncid));
    } else {
        PN(ncmpi_wait_all(ncid, k, req, NULL));
        PN(ncmpi_close(ncid));
    }
    t = MPI_Wtime() - t0;
    free(da);
    free(ic);
    free(fb);
    free(req);
    *bytes = (double)ny * nx * (8 + 4 + 4);
    return t;
}

static double e3sm_nb(int lib, const char *path, int scale, double *bytes)
{
    return e3sm(lib, path, scale, bytes);
}

/* side 0: ncslab nonblocking, side 1: ncslab blocking independent */
static double e3sm_blocking(int lib, const char *path, int scale, double *bytes)
{
    return e3sm(lib == 0 ? 0 : 2, path, scale, bytes);
}

/* side 0: ncslab nonblocking, side 1: ncslab blocking collective */
static double e3sm_collective(int lib, const char *path, int scale, double *bytes)
{
    return e3sm(lib == 0 ? 0 : 3, path, scale, bytes);
}

static const kern kernels[] = {
    { "flash", flash, { "ncslab", "pnetcdf" } },
    { "wrf", wrf, { "ncslab", "pnetcdf" } },
    { "e3sm", e3sm_nb, { "ncslab", "pnetcdf" } },
    { "e3sm-blocking", e3sm_blocking, { "ncslab-nonblocking", "ncslab-blocking" } },
    { "e3sm-collective", e3sm_collective,
      { "ncslab-nonblocking", "ncslab-blocking-collective" } },
};

/* 1 when name is one of the comma-separated list (NULL: all). */
static int wanted(const char *list, const char *name)
{
    size_t n = strlen(name);
    if (list == NULL)
        return 1;
    for (const char *p = list; *p != '\0';) {
        const char *e = strchr(p, ',');
        size_t len = e != NULL ? (size_t)(e - p) : strlen(p);
        if (len == n && strncmp(p, name, n) == 0)
            return 1;
        p += len + (e != NULL);
    }
    return 0;
}

/* The hints of list (key=value, comma-separated) into hints; -1 for an
 * entry without '='. */
static int set_hints(const char *list)
{
    char *copy = strdup(list), *save = NULL;
    int status = copy != NULL ? 0 : -1;
    if (status == 0 && hints == MPI_INFO_NULL)
        MPI_Info_create(&hints);
    for (char *t = copy != NULL ? strtok_r(copy, ",", &save) : NULL; t != NULL && status == 0;
         t = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(t, '=');
        if (eq == NULL || eq == t)
            status = -1;
        else {
            *eq = '\0';
            MPI_Info_set(hints, t, eq + 1);
        }
    }
    free(copy);
    return status;
}

/* --fcoll: the control variable "fcoll" (OpenMPI's list of OMPIO's
 * collective components) set to list through MPI_T, before the run's
 * first open; dies if this MPI has no such variable or refuses the value. */
static void set_fcoll(const char *list)
{
    int provided, idx, count;
    char back[256] = "";
    MPI_T_cvar_handle h;
    if (strlen(list) >= sizeof back)
        die("--fcoll", "the list is too long");
    if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS)
        die("--fcoll", "MPI_T_init_thread failed");
    mpit_open = 1;
    if (MPI_T_cvar_get_index("fcoll", &idx) != MPI_SUCCESS)
        die("--fcoll", "this MPI has no control variable \"fcoll\"");
    if (MPI_T_cvar_handle_alloc(idx, NULL, &h, &count) != MPI_SUCCESS)
        die("--fcoll", "MPI_T_cvar_handle_alloc failed");
    if (MPI_T_cvar_write(h, list) != MPI_SUCCESS)
        die("--fcoll", "MPI_T_cvar_write refused the value");
    if (MPI_T_cvar_read(h, back) != MPI_SUCCESS || strcmp(back, list) != 0)
        die("--fcoll", "the value read back differs");
    MPI_T_cvar_handle_free(&h);
    /* MPI_T_finalize at the end: OpenMPI's, the last, closes the
     * frameworks MPI_T registered, and the first open would register fcoll
     * anew from the environment */
}

/* 1 when the two files are byte for byte the same (rank 0 reads them). */
static int same_files(const char *a, const char *b)
{
    FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
    int same = fa != NULL && fb != NULL;
    while (same) {
        int ca = getc(fa), cb = getc(fb);
        if (ca != cb)
            same = 0;
        if (ca == EOF || cb == EOF)
            break;
    }
    if (fa != NULL)
        fclose(fa);
    if (fb != NULL)
        fclose(fb);
    return same;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of t[0..n-1] (reordered). */
static double median(double *t, int n)
{
    qsort(t, (size_t)n, sizeof *t, by_value);
    return n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
}

int main(int argc, char **argv)
{
    int scale = 4, reps = 11, fail = 0;
    const char *dir = "/tmp", *only = NULL;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--scale") == 0 && i + 1 < argc)
            scale = atoi(argv[++i]);
        else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (strcmp(argv[i], "--dir") == 0 && i + 1 < argc)
            dir = argv[++i];
        else if (strcmp(argv[i], "--kernels") == 0 && i + 1 < argc)
            only = argv[++i];
        else if (strcmp(argv[i], "--hints") == 0 && i + 1 < argc && set_hints(argv[i + 1]) == 0)
            i++;
        else if (strcmp(argv[i], "--fcoll") == 0 && i + 1 < argc)
            set_fcoll(argv[++i]);
        else {
            if (rank == 0)
                fprintf(stderr, "usage: parbench [--scale N] [--reps R] [--dir DIR] "
                                "[--kernels flash,wrf,e3sm,e3sm-blocking,e3sm-collective] "
                                "[--hints key=value,...] [--fcoll LIST]\n");
            MPI_Finalize();
            return 2;
        }
    }
    if (scale < 1 || scale > 1024 || reps < 1 || reps > 10000) {
        if (rank == 0)
            fprintf(stderr, "parbench: --scale 1..1024, --reps 1..10000\n");
        MPI_Finalize();
        return 2;
    }
    if (rank == 0)
        printf("kernel,procs,MB,a,a_MBps,b,b_MBps,a_over_b,same_bytes\n");
    for (size_t k = 0; k < sizeof kernels / sizeof kernels[0]; k++) {
        char pa[512], pb[512];
        double *times[2], mid[2], bytes = 0;
        if (!wanted(only, kernels[k].name))
            continue;
        times[0] = malloc((size_t)reps * sizeof *times[0]);
        times[1] = malloc((size_t)reps * sizeof *times[1]);
        if (times[0] == NULL || times[1] == NULL)
            die("parbench", "out of memory");
        snprintf(pa, sizeof pa, "%s/parbench_ncs_%d.nc", dir, (int)getpid());
        snprintf(pb, sizeof pb, "%s/parbench_pn_%d.nc", dir, (int)getpid());
        MPI_Bcast(pa, (int)sizeof pa, MPI_CHAR, 0, MPI_COMM_WORLD);
        MPI_Bcast(pb, (int)sizeof pb, MPI_CHAR, 0, MPI_COMM_WORLD);
        for (int r = 0; r < reps; r++) {
            /* interleaved: each library once a round, the order alternating */
            for (int j = 0; j < 2; j++) {
                int lib = (r + j) % 2;
                double t = kernels[k].run(lib, lib == 0 ? pa : pb, scale, &bytes), tmax;
                MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
                times[lib][r] = tmax;
            }
        }
        mid[0] = median(times[0], reps);
        mid[1] = median(times[1], reps);
        free(times[0]);
        free(times[1]);
        if (rank == 0) {
            int same = same_files(pa, pb);
            if (!same)
                fail = 1;
            printf("%s,%d,%.1f,%s,%.1f,%s,%.1f,%.3f,%s\n", kernels[k].name, nprocs,
                   bytes / 1e6, kernels[k].side[0], bytes / 1e6 / mid[0], kernels[k].side[1],
                   bytes / 1e6 / mid[1], mid[1] / mid[0], same ? "yes" : "NO");
            unlink(pa);
            unlink(pb);
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Bcast(&fail, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (hints != MPI_INFO_NULL)
        MPI_Info_free(&hints);
    if (mpit_open)
        MPI_T_finalize();
    MPI_Finalize();
    return fail;
}
