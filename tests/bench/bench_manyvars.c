/*
 * bench_manyvars.c -- opening files of many small variables: peak memory
 * and open time of ncslab against netCDF-C (doc/performance.md).
 *
 * For each N given (default 10000), netCDF-C writes two files of N float
 * variables of one dimension of length LEN: CDF-2 and netCDF-4 classic
 * model.  Then, for each repetition, layout and library (the libraries
 * take turns going first), a child process opens the file, reads every
 * variable whole (checking each value) and closes it.  Every step runs in
 * its own child, so no library's heap or caches carry over into another's
 * figures; the child's peak RSS comes from wait4, less the RSS it had at
 * its start (the libraries loaded, nothing opened).
 *
 *   bench_manyvars [-t] [-r reps] [-d dir] [N ...]
 *
 * Prints one line per N, layout and library: median open, read and close
 * times over the repetitions, open time per variable, the median peak RSS
 * and its growth over the child's starting RSS.  Exits 1 when a value
 * read differs from what was written or a call fails, and with -t also
 * when ncslab's growth is not below netCDF-C's in a layout.
 */
#include <netcdf.h>
#include <ncslab.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define LEN     4          /* elements of each variable */
#define MAXREPS 15

enum { LIB_NCSLAB, LIB_NETCDF };
static const char *const lib_name[] = { "ncslab", "netCDF-C" };
static const char *const layout_name[] = { "CDF-2", "netCDF-4 classic" };

typedef struct result {
    int ok;
    double open_s, read_s, close_s;
    long base_kib;          /* ru_maxrss at the child's start */
} result;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static float value_of(int var, int i)
{
    return (float)var + (float)i * 0.25f;
}

/* Writes the file with netCDF-C; 0 on success. */
static int write_file(const char *path, int layout, int nvars)
{
    int ncid, dim, varid, status;
    float buf[LEN];
    char name[32];
    int cmode = layout ? NC_NETCDF4 | NC_CLASSIC_MODEL : NC_64BIT_OFFSET;
    status = nc_create(path, cmode | NC_CLOBBER, &ncid);
    if (status == NC_NOERR)
        status = nc_set_fill(ncid, NC_NOFILL, NULL);
    if (status == NC_NOERR)
        status = nc_def_dim(ncid, "x", LEN, &dim);
    for (int v = 0; v < nvars && status == NC_NOERR; v++) {
        snprintf(name, sizeof name, "v%06d", v);
        status = nc_def_var(ncid, name, NC_FLOAT, 1, &dim, &varid);
    }
    if (status == NC_NOERR)
        status = nc_enddef(ncid);
    for (int v = 0; v < nvars && status == NC_NOERR; v++) {
        for (int i = 0; i < LEN; i++)
            buf[i] = value_of(v, i);
        status = nc_put_var_float(ncid, v, buf);
    }
    if (status == NC_NOERR)
        status = nc_close(ncid);
    if (status != NC_NOERR)
        fprintf(stderr, "bench_manyvars: writing %s: %s\n", path, nc_strerror(status));
    return status != NC_NOERR;
}

/* Reads every variable of the file with one library and checks it. */
static void measure(const char *path, int lib, int nvars, result *r)
{
    int ncid, n = 0, status;
    size_t start[1] = { 0 }, count[1] = { LEN };
    float buf[LEN];
    double t0 = now();
    status = lib == LIB_NCSLAB ? ncs_open(path, NCS_NOWRITE, &ncid)
                               : nc_open(path, NC_NOWRITE, &ncid);
    r->open_s = now() - t0;
    if (status == 0)
        status = lib == LIB_NCSLAB ? ncs_inq_nvars(ncid, &n) : nc_inq_nvars(ncid, &n);
    if (status == 0 && n != nvars) {
        fprintf(stderr, "bench_manyvars: %s: %d variables, not %d\n", path, n, nvars);
        return;
    }
    t0 = now();
    for (int v = 0; v < nvars && status == 0; v++) {
        int ndims = -1;
        status = lib == LIB_NCSLAB ? ncs_inq_varndims(ncid, v, &ndims)
                                   : nc_inq_varndims(ncid, v, &ndims);
        if (status == 0 && ndims != 1) {
            fprintf(stderr, "bench_manyvars: %s: variable %d has rank %d\n", path, v, ndims);
            return;
        }
        if (status == 0)
            status = lib == LIB_NCSLAB
                         ? ncs_get(ncid, v, start, count, NULL, NULL, NCS_FLOAT, buf)
                         : nc_get_vara_float(ncid, v, start, count, buf);
        for (int i = 0; i < LEN && status == 0; i++)
            if (buf[i] != value_of(v, i)) {
                fprintf(stderr, "bench_manyvars: %s: %s read %g for v%06d[%d], not %g\n",
                        path, lib_name[lib], buf[i], v, i, value_of(v, i));
                return;
            }
    }
    r->read_s = now() - t0;
    t0 = now();
    if (status == 0)
        status = lib == LIB_NCSLAB ? ncs_close(ncid) : nc_close(ncid);
    r->close_s = now() - t0;
    if (status != 0) {
        fprintf(stderr, "bench_manyvars: %s: %s: %s\n", path, lib_name[lib],
                lib == LIB_NCSLAB ? ncs_strerror(status) : nc_strerror(status));
        return;
    }
    r->ok = 1;
}

static long self_maxrss(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

/* Runs measure (or, with lib < 0, write_file) in a child; *peak_kib gets
 * its ru_maxrss.  0 on success. */
static int in_child(const char *path, int layout, int lib, int nvars, result *r,
                    long *peak_kib)
{
    int fd[2], wstatus;
    struct rusage ru;
    pid_t pid;
    ssize_t got;
    memset(r, 0, sizeof *r);
    if (pipe(fd) != 0)
        return 1;
    fflush(NULL);
    pid = fork();
    if (pid < 0)
        return 1;
    if (pid == 0) {
        result cr = { 0, 0, 0, 0, self_maxrss() };
        close(fd[0]);
        if (lib < 0)
            cr.ok = write_file(path, layout, nvars) == 0;
        else
            measure(path, lib, nvars, &cr);
        _exit(write(fd[1], &cr, sizeof cr) == (ssize_t)sizeof cr && cr.ok ? 0 : 1);
    }
    close(fd[1]);
    do
        got = read(fd[0], r, sizeof *r);
    while (got < 0 && errno == EINTR);
    close(fd[0]);
    if (wait4(pid, &wstatus, 0, &ru) != pid)
        return 1;
    *peak_kib = ru.ru_maxrss;
    return !(got == (ssize_t)sizeof *r && WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0 &&
             r->ok);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* With target set, a layout where ncslab's memory growth is not below
 * netCDF-C's fails the run. */
static int run(const char *dir, int nvars, int reps, int target)
{
    int status = 0;
    char path[2][4096];
    double open_s[2][2][MAXREPS], read_s[2][2][MAXREPS], close_s[2][2][MAXREPS];
    double peak[2][2][MAXREPS], growth[2][2][MAXREPS];
    result r;
    long kib;
    for (int layout = 0; layout < 2; layout++) {
        snprintf(path[layout], sizeof path[layout], "%s/manyvars_%d.%s", dir, nvars,
                 layout ? "nc4" : "nc");
        if (in_child(path[layout], layout, -1, nvars, &r, &kib)) {
            fprintf(stderr, "bench_manyvars: could not write %s\n", path[layout]);
            return 1;
        }
    }
    for (int rep = 0; rep < reps; rep++)
        for (int layout = 0; layout < 2; layout++)
            for (int k = 0; k < 2; k++) {
                int lib = (k + rep + layout) % 2;
                if (in_child(path[layout], layout, lib, nvars, &r, &kib))
                    return 1;
                open_s[layout][lib][rep] = r.open_s;
                read_s[layout][lib][rep] = r.read_s;
                close_s[layout][lib][rep] = r.close_s;
                peak[layout][lib][rep] = (double)kib;
                growth[layout][lib][rep] = (double)(kib - r.base_kib);
            }
    for (int layout = 0; layout < 2; layout++) {
        for (int lib = 0; lib < 2; lib++) {
            double o = median(open_s[layout][lib], reps);
            printf("%6d  %-16s  %-8s  open %9.2f ms (%6.2f us/var)  read %9.2f ms  "
                   "close %8.2f ms  peak RSS %8.1f MiB (+%7.1f MiB)\n",
                   nvars, layout_name[layout], lib_name[lib], o * 1e3, o * 1e6 / nvars,
                   median(read_s[layout][lib], reps) * 1e3,
                   median(close_s[layout][lib], reps) * 1e3,
                   median(peak[layout][lib], reps) / 1024.0,
                   median(growth[layout][lib], reps) / 1024.0);
        }
        if (target && median(growth[layout][LIB_NCSLAB], reps) >=
                          median(growth[layout][LIB_NETCDF], reps)) {
            printf("FAIL: %s, %d variables: ncslab's peak RSS grows no less than "
                   "netCDF-C's\n", layout_name[layout], nvars);
            status = 1;
        }
        unlink(path[layout]);
    }
    fflush(stdout);
    return status;
}

int main(int argc, char **argv)
{
    const char *dir = NULL;
    char tmpl[4096];
    int reps = 3, opt, status = 0, made_dir = 0, target = 0;
    while ((opt = getopt(argc, argv, "r:d:t")) != -1) {
        if (opt == 'r' && atoi(optarg) >= 1 && atoi(optarg) <= MAXREPS) {
            reps = atoi(optarg);
        } else if (opt == 'd') {
            dir = optarg;
        } else if (opt == 't') {
            target = 1;
        } else {
            fprintf(stderr, "usage: bench_manyvars [-t] [-r reps (1..%d)] [-d dir] [N ...]\n",
                    MAXREPS);
            return 2;
        }
    }
    if (dir == NULL) {
        const char *t = getenv("TMPDIR");
        snprintf(tmpl, sizeof tmpl, "%s/bench_manyvars.XXXXXX", t && *t ? t : "/tmp");
        dir = mkdtemp(tmpl);
        if (dir == NULL) {
            perror("bench_manyvars: mkdtemp");
            return 1;
        }
        made_dir = 1;
    }
    printf("# N variables of float[%d]; medians of %d runs; netCDF-C %s\n", LEN, reps,
           nc_inq_libvers());
    for (int i = optind; i < argc && status == 0; i++) {
        int n = atoi(argv[i]);
        if (n < 1) {
            fprintf(stderr, "bench_manyvars: bad variable count %s\n", argv[i]);
            return 2;
        }
        status = run(dir, n, reps, target);
    }
    if (optind == argc)
        status = run(dir, 10000, reps, target);
    if (made_dir)
        rmdir(dir);
    return status;
}
