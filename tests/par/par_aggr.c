/*
 * par_aggr.c -- the aggregators a wait asks for (issue 21; doc/parallel.md,
 * "Speed"): a wait whose puts are many small pieces on some process (at
 * least 4096 blocks of bytes, under 4 KiB on average) sets the view of its
 * collective write with cb_nodes, the number of processes, in the info;
 * a wait of few pieces, a wait of gets, and every wait in a file whose
 * hints name cb_nodes pass no cb_nodes.
 *
 * The program defines MPI_File_set_view and the collective data calls
 * (MPI's profiling interface) to record, for each collective call, the
 * cb_nodes of the info of the view it runs under, and checks that on every
 * process; after each case every process reads the whole variable back
 * (one collective get) and compares it, and at the end rank 0 reopens the
 * files serially and checks every value.  The file: a(x) double, x =
 * nprocs * PIECES * PIECE, every process writing every nprocs-th piece of
 * PIECE elements from its rank (the E3SM-like kernel's pattern: its
 * pieces are blocks of their own beyond one process, one block at one).
 * Cases:
 *   many        PIECES pieces a process posted as ncs_iput, one wait:
 *               cb_nodes = nprocs beyond one process, none at one
 *   few         FEW pieces a process: none
 *   gets        the many pieces posted as ncs_iget, one wait: none
 *   hinted      the many pieces in a file created with cb_nodes "1" in
 *               its hints: none (the caller's aggregators)
 * Exit status 1 on any failure.  Usage: par_aggr [DIR].
 */
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ncslab.h>
#include <ncslab_par.h>

#define PIECE 4
#define PIECES 4200
#define FEW 100

static int rank, nprocs;
static size_t xlen;
static long failures;

static void fail(int line, const char *fmt, ...)
{
    va_list ap;
    failures++;
    fprintf(stderr, "par_aggr: %d processes, rank %d line %d: ", nprocs, rank, line);
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

/* ---- the views and the collective calls, recorded ------------------------- */

static int view_cb;             /* cb_nodes of the last view's info, 0: none */
static long n_coll;             /* collective data calls since rec_reset */
static int coll_cb;             /* the largest view_cb one of them ran under */

int MPI_File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype et, MPI_Datatype ft,
                      const char *rep, MPI_Info info)
{
    char val[MPI_MAX_INFO_VAL + 1];
    int flag = 0;
    view_cb = 0;
    if (info != MPI_INFO_NULL)
        MPI_Info_get(info, "cb_nodes", MPI_MAX_INFO_VAL, val, &flag);
    if (flag)
        view_cb = atoi(val) > 0 ? atoi(val) : -1;
    return PMPI_File_set_view(fh, disp, et, ft, rep, info);
}

static void coll(void)
{
    n_coll++;
    if (view_cb > coll_cb || view_cb < 0)
        coll_cb = view_cb;
}

int MPI_File_write_all(MPI_File fh, const void *buf, int n, MPI_Datatype t, MPI_Status *st)
{
    coll();
    return PMPI_File_write_all(fh, buf, n, t, st);
}

int MPI_File_read_all(MPI_File fh, void *buf, int n, MPI_Datatype t, MPI_Status *st)
{
    coll();
    return PMPI_File_read_all(fh, buf, n, t, st);
}

static void rec_reset(void)
{
    n_coll = 0;
    coll_cb = 0;
}

/* The collective calls since rec_reset: at least one, each under a view
 * whose info has cb_nodes cb (0: none). */
static void rec_expect(int line, const char *what, int cb)
{
    if (n_coll == 0)
        fail(line, "%s: no collective MPI-IO call", what);
    else if (coll_cb != cb)
        fail(line, "%s: a collective call under cb_nodes %d, expected %d", what, coll_cb, cb);
}

/* ---- the file ---------------------------------------------------------------- */

static double a_value(int g, size_t i)
{
    return g * 1e7 + (double)i;
}

static int create(const char *path, MPI_Info info, int *ncid)
{
    int dx, v;
    int status = ncs_create_par(path, NCS_CLOBBER | NCS_64BIT_DATA, MPI_COMM_WORLD, info, ncid);
    if (status != NCS_NOERR)
        return status;
    OK(ncs_def_dim(*ncid, "x", xlen, &dx));
    OK(ncs_def_var(*ncid, "a", NCS_DOUBLE, 1, &dx, &v));
    return ncs_enddef(*ncid);
}

/* Writes this process's first npieces pieces with generation g through
 * ncs_iput and one wait. */
static void put_pieces(int ncid, int npieces, int g, double *buf)
{
    int *req = malloc((size_t)npieces * sizeof *req);
    if (req == NULL)
        MPI_Abort(MPI_COMM_WORLD, 2);
    for (int k = 0; k < npieces; k++) {
        size_t st = ((size_t)k * nprocs + (size_t)rank) * PIECE, ct = PIECE;
        for (size_t e = 0; e < PIECE; e++)
            buf[(size_t)k * PIECE + e] = a_value(g, st + e);
        OK(ncs_iput(ncid, 0, &st, &ct, NULL, NULL, NCS_DOUBLE, buf + (size_t)k * PIECE,
                    &req[k]));
    }
    rec_reset();
    OK(ncs_wait_all(ncid, npieces, req, NULL));
    free(req);
}

/* Every element of a through one collective get: pieces below
 * npieces * nprocs of generation g, the rest of generation older. */
static void check_a(int ncid, int line, int npieces, int g, int older)
{
    double *v = malloc(xlen * sizeof *v);
    if (v == NULL)
        MPI_Abort(MPI_COMM_WORLD, 2);
    OK(ncs_get(ncid, 0, NULL, NULL, NULL, NULL, NCS_DOUBLE, v));
    for (size_t i = 0; i < xlen; i++) {
        double want = a_value(i / PIECE < (size_t)npieces * nprocs ? g : older, i);
        if (v[i] != want) {
            fail(line, "a[%zu] = %.17g, expected %.17g", i, v[i], want);
            break;
        }
    }
    free(v);
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : ".";
    char path[4096], path_hint[4096];
    int ncid;
    long all;
    double *buf;
    MPI_Info info;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    xlen = (size_t)nprocs * PIECES * PIECE;
    buf = malloc((size_t)PIECES * PIECE * sizeof *buf);
    if (buf == NULL)
        MPI_Abort(MPI_COMM_WORLD, 2);
    snprintf(path, sizeof path, "%s/par_aggr_%d.nc", dir, nprocs);
    snprintf(path_hint, sizeof path_hint, "%s/par_aggr_hint_%d.nc", dir, nprocs);

    OK(create(path, MPI_INFO_NULL, &ncid));
    put_pieces(ncid, PIECES, 1, buf);
    rec_expect(__LINE__, "many", nprocs > 1 ? nprocs : 0);
    check_a(ncid, __LINE__, PIECES, 1, 1);
    put_pieces(ncid, FEW, 2, buf);
    rec_expect(__LINE__, "few", 0);
    check_a(ncid, __LINE__, FEW, 2, 1);
    {
        int *req = malloc(PIECES * sizeof *req);
        if (req == NULL)
            MPI_Abort(MPI_COMM_WORLD, 2);
        for (int k = 0; k < PIECES; k++) {
            size_t st = ((size_t)k * nprocs + (size_t)rank) * PIECE, ct = PIECE;
            OK(ncs_iget(ncid, 0, &st, &ct, NULL, NULL, NCS_DOUBLE, buf + (size_t)k * PIECE,
                        &req[k]));
        }
        rec_reset();
        OK(ncs_wait_all(ncid, PIECES, req, NULL));
        rec_expect(__LINE__, "gets", 0);
        for (int k = 0; k < PIECES; k++) {
            size_t st = ((size_t)k * nprocs + (size_t)rank) * PIECE;
            for (size_t e = 0; e < PIECE; e++)
                if (buf[(size_t)k * PIECE + e] != a_value(k < FEW ? 2 : 1, st + e)) {
                    fail(__LINE__, "gets: a[%zu] = %.17g", st + e, buf[(size_t)k * PIECE + e]);
                    k = PIECES;
                    break;
                }
        }
        free(req);
    }
    OK(ncs_close(ncid));

    MPI_Info_create(&info);
    MPI_Info_set(info, "cb_nodes", "1");
    OK(create(path_hint, info, &ncid));
    MPI_Info_free(&info);
    put_pieces(ncid, PIECES, 3, buf);
    rec_expect(__LINE__, "hinted", 0);
    check_a(ncid, __LINE__, PIECES, 3, 3);
    OK(ncs_close(ncid));

    /* serially, every value of both files */
    if (rank == 0) {
        double *v = malloc(xlen * sizeof *v);
        const char *paths[2] = { path, path_hint };
        for (int f = 0; v != NULL && f < 2; f++) {
            OK(ncs_open(paths[f], NCS_NOWRITE, &ncid));
            OK(ncs_get(ncid, 0, NULL, NULL, NULL, NULL, NCS_DOUBLE, v));
            for (size_t i = 0; i < xlen; i++) {
                double want = a_value(f == 1 ? 3 : i / PIECE < (size_t)FEW * nprocs ? 2 : 1, i);
                if (v[i] != want) {
                    fail(__LINE__, "%s: a[%zu] = %.17g, expected %.17g", paths[f], i, v[i],
                         want);
                    break;
                }
            }
            OK(ncs_close(ncid));
        }
        free(v);
    }
    free(buf);
    MPI_Allreduce(&failures, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("par_aggr: %d processes: %s\n", nprocs, all ? "FAIL" : "ok");
    if (all == 0) {
        if (rank == 0) {
            remove(path);
            remove(path_hint);
        }
    }
    MPI_Finalize();
    return all ? 1 : 0;
}
