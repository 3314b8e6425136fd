/*
 * par_alone.c -- a collective data call whose processes' pieces do not
 * interleave in the file moves as independent MPI-IO calls, as ROMIO's
 * "automatic" collective buffering does; one whose pieces interleave or
 * overlap, or whose processes' hints say romio_cb_write (romio_cb_read)
 * "enable", moves as one collective call (issue 21; doc/parallel.md,
 * "Collective calls without collective I/O").
 *
 * The program counts the MPI-IO data calls the library makes (it defines
 * them and calls the PMPI_ entry points: MPI's profiling interface) and,
 * for every case, checks which kind moved the data on every process, that
 * the record count is agreed, and that the whole file holds what every
 * process wrote (a collective get of everything, compared on every
 * process).  The file: x = PER per process, a(x) double, r(rec, x) int.
 * Cases:
 *   blocks        each process its block of a: independent calls
 *   one empty     the same, the last process with nothing: it moves
 *                 nothing, the others independently
 *   cyclic        each process every nprocs-th element from its rank
 *                 (interleaved beyond 1 process): one collective call
 *   strided       each process every other element of its block (its
 *                 piece not one block of bytes): collective
 *   everything    every process reads all of a (overlapping beyond 1
 *                 process): collective
 *   records       process k writes record k of r whole: independent, and
 *                 every process then counts nprocs records
 *   hint enable   the blocks again in a file created with romio_cb_write
 *                 and romio_cb_read "enable": collective
 *   hint on one   only rank 0 says "enable": collective everywhere (a
 *                 decision every process takes the same way); left out
 *                 by --same-hints (ROMIO wants the same hints everywhere)
 * At the end rank 0 reopens the files serially and checks every value.
 * Exit status 1 on any failure.  Usage: par_alone [--same-hints] [DIR].
 */
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ncslab.h>
#include <ncslab_par.h>

#define PER 64

static int rank, nprocs;
static size_t xlen;
static long failures;

static void fail(int line, const char *fmt, ...)
{
    va_list ap;
    failures++;
    fprintf(stderr, "par_alone: %d processes, rank %d line %d: ", nprocs, rank, line);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

#define OK(call) do {                                                         \
        int e_ = (call);                                                      \
        if (e_ != NCS_NOERR)                                                  \
            fail(__LINE__, "%s: %s", #call, ncs_strerror(e_));                \
    } while (0)

/* ---- the MPI-IO data calls, counted ---------------------------------------- */

static long n_indep, n_coll;   /* calls of each kind since count_reset */

int MPI_File_write_at(MPI_File fh, MPI_Offset off, const void *buf, int n, MPI_Datatype t,
                      MPI_Status *st)
{
    n_indep++;
    return PMPI_File_write_at(fh, off, buf, n, t, st);
}

int MPI_File_read_at(MPI_File fh, MPI_Offset off, void *buf, int n, MPI_Datatype t,
                     MPI_Status *st)
{
    n_indep++;
    return PMPI_File_read_at(fh, off, buf, n, t, st);
}

int MPI_File_write(MPI_File fh, const void *buf, int n, MPI_Datatype t, MPI_Status *st)
{
    n_indep++;
    return PMPI_File_write(fh, buf, n, t, st);
}

int MPI_File_read(MPI_File fh, void *buf, int n, MPI_Datatype t, MPI_Status *st)
{
    n_indep++;
    return PMPI_File_read(fh, buf, n, t, st);
}

int MPI_File_write_all(MPI_File fh, const void *buf, int n, MPI_Datatype t, MPI_Status *st)
{
    n_coll++;
    return PMPI_File_write_all(fh, buf, n, t, st);
}

int MPI_File_read_all(MPI_File fh, void *buf, int n, MPI_Datatype t, MPI_Status *st)
{
    n_coll++;
    return PMPI_File_read_all(fh, buf, n, t, st);
}

int MPI_File_write_at_all(MPI_File fh, MPI_Offset off, const void *buf, int n, MPI_Datatype t,
                          MPI_Status *st)
{
    n_coll++;
    return PMPI_File_write_at_all(fh, off, buf, n, t, st);
}

int MPI_File_read_at_all(MPI_File fh, MPI_Offset off, void *buf, int n, MPI_Datatype t,
                         MPI_Status *st)
{
    n_coll++;
    return PMPI_File_read_at_all(fh, off, buf, n, t, st);
}

static void count_reset(void)
{
    n_indep = n_coll = 0;
}

/* The calls since count_reset must be: indep independent ones and coll
 * collective ones. */
static void count_expect(int line, const char *what, long indep, long coll)
{
    if (n_indep != indep || n_coll != coll)
        fail(line, "%s: %ld independent and %ld collective MPI-IO calls, expected %ld and %ld",
             what, n_indep, n_coll, indep, coll);
}

/* ---- the file -------------------------------------------------------------------- */

static double a_value(int g, size_t i)
{
    return g * 1e6 + (double)i + 0.25;
}

static int r_value(size_t t, size_t i)
{
    return (int)(t * 100000 + i);
}

/* Every process reads all of a (collective) and compares with what
 * generation g wrote where written[i]. */
static void check_a(int ncid, int line, const int *gen_of)
{
    double *v = calloc(xlen, sizeof *v);
    if (v == NULL) {
        fail(line, "out of memory");
        return;
    }
    OK(ncs_get(ncid, 0, NULL, NULL, NULL, NULL, NCS_DOUBLE, v));
    for (size_t i = 0; i < xlen; i++)
        if (v[i] != a_value(gen_of[i], i)) {
            fail(line, "a[%zu] = %g, expected %g", i, v[i], a_value(gen_of[i], i));
            break;
        }
    free(v);
}

/* Writes a with generation g where this process's start/count/stride say
 * (collective), counting the calls. */
static void put_a(int ncid, size_t st, size_t ct, ptrdiff_t sd, int g)
{
    double v[PER];
    for (size_t k = 0; k < ct; k++)
        v[k] = a_value(g, st + k * (size_t)sd);
    count_reset();
    OK(ncs_put(ncid, 0, &st, &ct, &sd, NULL, NCS_DOUBLE, v));
}

/* Generation g in gen_of where a process wrote st, ct, sd (each process
 * marks every process's piece). */
static void mark(int *gen_of, size_t st, size_t ct, size_t sd, int g)
{
    for (size_t k = 0; k < ct; k++)
        gen_of[st + k * sd] = g;
}

static int create(const char *path, MPI_Info info, int *ncid)
{
    int dx, dr, d2[2], v;
    int status = ncs_create_par(path, NCS_CLOBBER | NCS_64BIT_DATA, MPI_COMM_WORLD, info, ncid);
    if (status != NCS_NOERR)
        return status;
    OK(ncs_def_dim(*ncid, "x", xlen, &dx));
    OK(ncs_def_dim(*ncid, "rec", NCS_UNLIMITED, &dr));
    OK(ncs_def_var(*ncid, "a", NCS_DOUBLE, 1, &dx, &v));
    d2[0] = dr;
    d2[1] = dx;
    OK(ncs_def_var(*ncid, "r", NCS_INT, 2, d2, &v));
    return ncs_enddef(*ncid);
}

/* The blocks case in a file (each process its block of a, collective),
 * expecting independent calls when alone, then read back. */
static void blocks(int ncid, int alone, int g, int *gen_of, int line)
{
    size_t st = (size_t)rank * PER;
    put_a(ncid, st, PER, 1, g);
    count_expect(line, "blocks, put", alone ? 1 : 0, alone ? 0 : 1);
    for (int p = 0; p < nprocs; p++)
        mark(gen_of, (size_t)p * PER, PER, 1, g);
    {
        double v[PER];
        size_t ct = PER;
        count_reset();
        OK(ncs_get(ncid, 0, &st, &ct, NULL, NULL, NCS_DOUBLE, v));
        count_expect(line, "blocks, get", alone ? 1 : 0, alone ? 0 : 1);
        for (size_t k = 0; k < PER; k++)
            if (v[k] != a_value(g, st + k)) {
                fail(line, "blocks, get: a[%zu] = %g, expected %g", st + k, v[k],
                     a_value(g, st + k));
                break;
            }
    }
    check_a(ncid, line, gen_of);
}

int main(int argc, char **argv)
{
    const char *dir = ".";
    char path[4096], path_hint[4096], path_one[4096];
    int ncid, *gen_of, *gen_h, g = 0, mixed = 1, nfiles = 3;
    MPI_Info info;
    MPI_Init(&argc, &argv);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--same-hints") == 0)
            mixed = 0;
        else
            dir = argv[i];
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    xlen = (size_t)nprocs * PER;
    gen_of = calloc(xlen, sizeof *gen_of);
    gen_h = calloc(xlen, sizeof *gen_h);
    if (gen_of == NULL || gen_h == NULL)
        MPI_Abort(MPI_COMM_WORLD, 2);
    snprintf(path, sizeof path, "%s/par_alone_%d.nc", dir, nprocs);
    snprintf(path_hint, sizeof path_hint, "%s/par_alone_hint_%d.nc", dir, nprocs);
    snprintf(path_one, sizeof path_one, "%s/par_alone_one_%d.nc", dir, nprocs);

    OK(create(path, MPI_INFO_NULL, &ncid));
    /* (fill off, PnetCDF's default: the first generation writes all) */
    blocks(ncid, 1, ++g, gen_of, __LINE__);

    /* one empty: the last process moves nothing */
    {
        size_t st = (size_t)rank * PER, ct = rank == nprocs - 1 ? 0 : PER;
        put_a(ncid, st, ct, 1, ++g);
        count_expect(__LINE__, "one empty", rank == nprocs - 1 ? 0 : 1, 0);
        for (int p = 0; p < nprocs - 1; p++)
            mark(gen_of, (size_t)p * PER, PER, 1, g);
        check_a(ncid, __LINE__, gen_of);
    }
    /* cyclic: interleaved beyond one process */
    {
        put_a(ncid, (size_t)rank, PER, nprocs, ++g);
        count_expect(__LINE__, "cyclic", nprocs == 1, nprocs > 1);
        for (int p = 0; p < nprocs; p++)
            mark(gen_of, (size_t)p, PER, (size_t)nprocs, g);
        check_a(ncid, __LINE__, gen_of);
    }
    /* strided: a piece that is not one block of bytes */
    {
        put_a(ncid, (size_t)rank * PER, PER / 2, 2, ++g);
        count_expect(__LINE__, "strided", 0, 1);
        for (int p = 0; p < nprocs; p++)
            mark(gen_of, (size_t)p * PER, PER / 2, 2, g);
        check_a(ncid, __LINE__, gen_of);
    }
    /* everything: overlapping reads beyond one process */
    {
        double *v = calloc(xlen, sizeof *v);
        count_reset();
        OK(ncs_get(ncid, 0, NULL, NULL, NULL, NULL, NCS_DOUBLE, v));
        count_expect(__LINE__, "everything", nprocs == 1, nprocs > 1);
        free(v);
    }
    /* records: process k writes record k whole */
    {
        size_t st[2] = { (size_t)rank, 0 }, ct[2] = { 1, xlen }, nrec = 0;
        int *v = malloc(xlen * sizeof *v), *all = malloc(xlen * nprocs * sizeof *all);
        for (size_t i = 0; i < xlen; i++)
            v[i] = r_value((size_t)rank, i);
        count_reset();
        OK(ncs_put(ncid, 1, st, ct, NULL, NULL, NCS_INT, v));
        count_expect(__LINE__, "records", 1, 0);
        OK(ncs_inq_dimlen(ncid, 1, &nrec));
        if (nrec != (size_t)nprocs)
            fail(__LINE__, "records: %zu records, expected %d", nrec, nprocs);
        OK(ncs_get(ncid, 1, NULL, NULL, NULL, NULL, NCS_INT, all));
        for (size_t t = 0; t < (size_t)nprocs; t++)
            for (size_t i = 0; i < xlen; i++)
                if (all[t * xlen + i] != r_value(t, i)) {
                    fail(__LINE__, "r[%zu][%zu] = %d, expected %d", t, i, all[t * xlen + i],
                         r_value(t, i));
                    t = (size_t)nprocs;
                    break;
                }
        free(v);
        free(all);
    }
    OK(ncs_close(ncid));

    /* hint enable: collective */
    MPI_Info_create(&info);
    MPI_Info_set(info, "romio_cb_write", "enable");
    MPI_Info_set(info, "romio_cb_read", "enable");
    OK(create(path_hint, info, &ncid));
    MPI_Info_free(&info);
    blocks(ncid, 0, g, gen_h, __LINE__);
    OK(ncs_close(ncid));

    /* hint on one process only: collective everywhere */
    if (mixed) {
        MPI_Info_create(&info);
        if (rank == 0) {
            MPI_Info_set(info, "romio_cb_write", "enable");
            MPI_Info_set(info, "romio_cb_read", "enable");
        }
        OK(create(path_one, info, &ncid));
        MPI_Info_free(&info);
        blocks(ncid, 0, g, gen_h, __LINE__);
        OK(ncs_close(ncid));
    } else {
        nfiles = 2;
    }

    /* the files, serially */
    if (rank == 0) {
        const char *paths[3] = { path, path_hint, path_one };
        double *v = calloc(xlen, sizeof *v);
        int *r = calloc(xlen * nprocs, sizeof *r);
        for (int k = 0; k < nfiles; k++) {
            size_t nrec = 0;
            OK(ncs_open(paths[k], NCS_NOWRITE, &ncid));
            OK(ncs_get(ncid, 0, NULL, NULL, NULL, NULL, NCS_DOUBLE, v));
            for (size_t i = 0; i < xlen; i++) {
                /* the hinted files hold the blocks of generation g only */
                double want = k == 0 ? a_value(gen_of[i], i) : a_value(g, i);
                if (v[i] != want) {
                    fail(__LINE__, "%s: a[%zu] = %g, expected %g", paths[k], i, v[i], want);
                    break;
                }
            }
            OK(ncs_inq_dimlen(ncid, 1, &nrec));
            if (nrec != (k == 0 ? (size_t)nprocs : 0))
                fail(__LINE__, "%s: %zu records", paths[k], nrec);
            if (k == 0) {
                OK(ncs_get(ncid, 1, NULL, NULL, NULL, NULL, NCS_INT, r));
                for (size_t i = 0; i < xlen * nprocs; i++)
                    if (r[i] != r_value(i / xlen, i % xlen)) {
                        fail(__LINE__, "%s: r element %zu = %d", paths[k], i, r[i]);
                        break;
                    }
            }
            OK(ncs_close(ncid));
        }
        free(v);
        free(r);
    }
    {
        long all = 0;
        MPI_Allreduce(&failures, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
        if (rank == 0 && all == 0) {
            remove(path);
            remove(path_hint);
            remove(path_one);
        }
        free(gen_of);
        free(gen_h);
        MPI_Finalize();
        return all != 0;
    }
}
