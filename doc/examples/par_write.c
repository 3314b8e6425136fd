/*
 * par_write.c -- every process of MPI_COMM_WORLD writes its rows of a
 * fixed-size variable and its own records of a record variable into one
 * CDF-5 file, collectively, then reads back another process's part and
 * checks it.  Build and run (doc/parallel.md):
 *
 *     mpicc par_write.c $(pkg-config --cflags --libs ncslab-par) -o par_write
 *     mpirun -n 4 ./par_write out.nc
 */
#include <ncslab_par.h>

#include <stdio.h>
#include <stdlib.h>

#define NX 10    /* columns */
#define ROWS 3   /* rows a process */

static void check(int status, const char *what)
{
    if (status != NCS_NOERR) {
        fprintf(stderr, "par_write: %s: %s\n", what, ncs_strerror(status));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

int main(int argc, char **argv)
{
    int rank, nprocs, ncid, dims[3], grid, series, bad = 0, anybad = 0;
    double row[ROWS * NX], back[ROWS * NX];
    float rec[NX];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    if (argc != 2) {
        if (rank == 0)
            fprintf(stderr, "usage: par_write FILE\n");
        MPI_Finalize();
        return 2;
    }

    /* definitions: the same calls on every process */
    check(ncs_create_par(argv[1], NCS_CLOBBER | NCS_64BIT_DATA, MPI_COMM_WORLD,
                         MPI_INFO_NULL, &ncid), "create");
    check(ncs_def_dim(ncid, "time", NCS_UNLIMITED, &dims[0]), "def_dim time");
    check(ncs_def_dim(ncid, "y", (size_t)ROWS * nprocs, &dims[1]), "def_dim y");
    check(ncs_def_dim(ncid, "x", NX, &dims[2]), "def_dim x");
    check(ncs_def_var(ncid, "grid", NCS_DOUBLE, 2, dims + 1, &grid), "def_var grid");
    check(ncs_def_var(ncid, "series", NCS_FLOAT, 2, (int[]){ dims[0], dims[2] }, &series),
          "def_var series");
    check(ncs_enddef(ncid), "enddef");

    /* data: each process its own hyperslab, one collective call each */
    for (int i = 0; i < ROWS * NX; i++)
        row[i] = rank * 1000.0 + i;
    for (int i = 0; i < NX; i++)
        rec[i] = (float)(rank + 0.5 * i);
    {
        size_t start[2] = { (size_t)rank * ROWS, 0 }, count[2] = { ROWS, NX };
        size_t rstart[2] = { (size_t)rank, 0 }, rcount[2] = { 1, NX };
        check(ncs_put(ncid, grid, start, count, NULL, NULL, NCS_DOUBLE, row), "put grid");
        check(ncs_put(ncid, series, rstart, rcount, NULL, NULL, NCS_FLOAT, rec), "put series");
    }
    check(ncs_sync(ncid), "sync");

    /* read the next process's rows back, collectively */
    {
        int other = (rank + 1) % nprocs;
        size_t start[2] = { (size_t)other * ROWS, 0 }, count[2] = { ROWS, NX }, nrec = 0;
        check(ncs_get(ncid, grid, start, count, NULL, NULL, NCS_DOUBLE, back), "get grid");
        for (int i = 0; i < ROWS * NX; i++)
            if (back[i] != other * 1000.0 + i)
                bad++;
        check(ncs_inq_dimlen(ncid, dims[0], &nrec), "inq_dimlen");
        if (nrec != (size_t)nprocs)
            bad++;
    }
    check(ncs_close(ncid), "close");

    MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("par_write: %d processes wrote %s: %s\n", nprocs, argv[1],
               anybad ? "WRONG VALUES" : "every value read back");
    MPI_Finalize();
    return anybad != 0;
}
