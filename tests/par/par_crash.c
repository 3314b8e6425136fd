/*
 * par_crash.c -- a process of a parallel writer killed with SIGKILL in
 * the middle of its collective puts; the file it leaves must open
 * serially and hold every record the last completed ncs_sync covered
 * (issue 21: the serial guarantee of doc/reliability.md, kept).
 *
 *   par_crash write DIR K DELAY_US   (under mpirun, 2 or more processes)
 *     creates DIR/par_crash.nc: x = PER per process, A(rec, x) int,
 *     B(rec) double; appends BLOCK records per collective put (each
 *     process its part of x of A; B by the last process, the others with
 *     zero counts), ncs_sync after every SYNC_EVERY records.  Once a sync
 *     returned on rank 0, rank 0 records the records it covers in
 *     DIR/par_crash.synced (written, fsynced, renamed into place).  After
 *     the K-th sync the last process arms a timer of DELAY_US
 *     microseconds whose handler SIGKILLs it, so that it dies within one
 *     of the collective puts or syncs that follow; if it is still alive
 *     after MAXRECS records it kills itself before its next put.  The
 *     job never ends normally: mpirun aborts it when the process dies.
 *   par_crash check DIR              (one process)
 *     opens the file with the serial ncs_open, which must succeed, and
 *     checks that it has at least the recorded number of records and that
 *     every one of them holds the values written
 *     (A[r][i] = r * 100000 + i + 7, B[r] = r + 0.5); prints the record
 *     count and the synced count; exit status 1 on any failure.
 * tests/par/par_crash.sh runs both for several K and delays.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include <ncslab.h>
#include <ncslab_par.h>

#define PER        2048     /* elements of x per process */
#define BLOCK      2        /* records per put */
#define SYNC_EVERY 4        /* records between syncs */
#define MAXRECS    4096     /* records before the writer kills itself */

static int rank, nprocs;

static int a_value(size_t r, size_t i)
{
    return (int)(r * 100000 + i + 7);
}

static void die(const char *what, int status)
{
    const char *msg = ncs_strerror(status);
    fprintf(stderr, "par_crash: rank %d: %s: %s (%d)\n", rank, what, msg, status);
    MPI_Abort(MPI_COMM_WORLD, 3);
}

#define NS(call) do { int e_ = (call); if (e_ != NCS_NOERR) die(#call, e_); } while (0)

static void on_alarm(int sig)
{
    (void)sig;
    kill(getpid(), SIGKILL);
}

/* Records n in path.synced, durably, by rename. */
static void record_synced(const char *dir, size_t n)
{
    char tmp[4096], final[4096];
    snprintf(tmp, sizeof tmp, "%s/par_crash.synced.tmp", dir);
    snprintf(final, sizeof final, "%s/par_crash.synced", dir);
    FILE *f = fopen(tmp, "w");
    if (!f || fprintf(f, "%zu\n", n) < 0 || fflush(f) != 0 || fsync(fileno(f)) != 0 ||
        fclose(f) != 0 || rename(tmp, final) != 0) {
        perror("par_crash: recording the synced count");
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
}

static int writer(const char *dir, int k, long delay_us)
{
    char path[4096];
    int ncid, dims[2], a, b, syncs = 0, victim = nprocs - 1;
    size_t x = (size_t)nprocs * PER;
    int *buf = malloc(BLOCK * PER * sizeof *buf);
    double bv[BLOCK];

    snprintf(path, sizeof path, "%s/par_crash.nc", dir);
    NS(ncs_create_par(path, NCS_CLOBBER, MPI_COMM_WORLD, MPI_INFO_NULL, &ncid));
    NS(ncs_def_dim(ncid, "rec", NCS_UNLIMITED, &dims[0]));
    NS(ncs_def_dim(ncid, "x", x, &dims[1]));
    NS(ncs_def_var(ncid, "A", NCS_INT, 2, dims, &a));
    NS(ncs_def_var(ncid, "B", NCS_DOUBLE, 1, dims, &b));
    NS(ncs_enddef(ncid));
    if (rank == 0)
        record_synced(dir, 0);
    for (size_t r = 0; r < MAXRECS; r += BLOCK) {
        size_t st[2] = { r, (size_t)rank * PER }, ct[2] = { BLOCK, PER };
        size_t bst = r, bct = rank == victim ? BLOCK : 0;
        for (size_t t = 0; t < BLOCK; t++) {
            bv[t] = (double)(r + t) + 0.5;
            for (size_t i = 0; i < PER; i++)
                buf[t * PER + i] = a_value(r + t, st[1] + i);
        }
        NS(ncs_put(ncid, a, st, ct, NULL, NULL, NCS_INT, buf));
        NS(ncs_put(ncid, b, &bst, &bct, NULL, NULL, NCS_DOUBLE, bv));
        if ((r + BLOCK) % SYNC_EVERY == 0) {
            NS(ncs_sync(ncid));
            if (rank == 0)
                record_synced(dir, r + BLOCK);
            if (++syncs == k && rank == victim) {
                struct itimerval it = { { 0, 0 }, { delay_us / 1000000, delay_us % 1000000 } };
                signal(SIGALRM, on_alarm);
                if (delay_us == 0)
                    kill(getpid(), SIGKILL);
                setitimer(ITIMER_REAL, &it, NULL);
            }
        }
    }
    if (rank == victim)
        kill(getpid(), SIGKILL);
    /* The others wait in a collective call for the victim, until mpirun
     * ends the job. */
    NS(ncs_sync(ncid));
    free(buf);
    return 0;
}

static int checker(const char *dir)
{
    char path[4096], spath[4096];
    size_t synced = 0, nrec = 0, x = 0;
    int ncid, bad = 0, e;
    FILE *f;

    snprintf(path, sizeof path, "%s/par_crash.nc", dir);
    snprintf(spath, sizeof spath, "%s/par_crash.synced", dir);
    if (!(f = fopen(spath, "r")) || fscanf(f, "%zu", &synced) != 1) {
        fprintf(stderr, "par_crash: no synced count in %s\n", spath);
        return 1;
    }
    fclose(f);
    if ((e = ncs_open(path, NCS_NOWRITE, &ncid)) != NCS_NOERR) {
        const char *msg = ncs_strerror(e);
        fprintf(stderr, "par_crash: the file left does not open: %s (%d)\n", msg, e);
        return 1;
    }
    NS(ncs_inq_dimlen(ncid, 0, &nrec));
    NS(ncs_inq_dimlen(ncid, 1, &x));
    printf("par_crash: %zu records in the file, %zu covered by the last completed sync\n",
           nrec, synced);
    if (nrec < synced) {
        fprintf(stderr, "par_crash: %zu records, fewer than the %zu synced\n", nrec, synced);
        bad = 1;
    }
    int *row = malloc(x * sizeof *row);
    for (size_t r = 0; r < synced && r < nrec && !bad; r++) {
        size_t st[2] = { r, 0 }, ct[2] = { 1, x };
        double bv = 0;
        NS(ncs_get(ncid, 0, st, ct, NULL, NULL, NCS_INT, row));
        NS(ncs_get1(ncid, 1, &r, NCS_DOUBLE, &bv));
        for (size_t i = 0; i < x; i++)
            if (row[i] != a_value(r, i)) {
                fprintf(stderr, "par_crash: A[%zu][%zu] = %d, expected %d\n", r, i, row[i],
                        a_value(r, i));
                bad = 1;
                break;
            }
        if (bv != (double)r + 0.5) {
            fprintf(stderr, "par_crash: B[%zu] = %g, expected %g\n", r, bv, (double)r + 0.5);
            bad = 1;
        }
    }
    free(row);
    NS(ncs_close(ncid));
    return bad;
}

int main(int argc, char **argv)
{
    int status = 2;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    if (argc == 5 && strcmp(argv[1], "write") == 0 && nprocs >= 2)
        status = writer(argv[2], atoi(argv[3]), atol(argv[4]));
    else if (argc == 3 && strcmp(argv[1], "check") == 0 && nprocs == 1)
        status = checker(argv[2]);
    else if (rank == 0)
        fprintf(stderr, "usage: mpirun -n 2 par_crash write DIR K DELAY_US\n"
                        "       mpirun -n 1 par_crash check DIR\n");
    MPI_Finalize();
    return status;
}
