/*
 * par_errors.c -- an invalid collective call on one process of a
 * parallel file is an error on every process, writes nothing, and leaves
 * the file readable with its previous content and the processes able to
 * go on (issue 21; the rules of include/ncslab_par.h).
 *
 * The file: x = 4 per process, a(x) int, r(rec, x) short, attribute
 * "units" of a.  Every process knows its content (a[i] = gen*1000 + i,
 * r[t][i] = gen*100 + t*10 + i for generation gen), and after every case
 * all processes read all of it back with a collective ncs_get and compare,
 * then make a good collective put of the next generation (the processes
 * can go on).  The cases, the faulty process being the last one or the
 * first by turns:
 *   data calls (collective): a start past the end (NCS_EINVALCOORDS), a
 *     bad varid (NCS_ENOTVAR), a count beyond the dimension (NCS_EEDGE),
 *     the same in a get, and, with 3 or more processes, two faulty
 *     processes with different errors; the faulty processes get their own
 *     error and the others the lowest (most negative) of the others';
 *   definitions: after ncs_redef, a dimension of another length on one
 *     process, a variable of another type, an attribute of another value:
 *     ncs_enddef is NCS_EMULTIDEFINE on every process (twice), the file
 *     stays in define mode, ncs_abort discards the definitions;
 *   --attr-rewrite, alone: an attribute rewritten in data mode with
 *     another value on one process is NCS_EMULTIDEFINE too, and the old
 *     value stays, on every process (a failed call changes nothing);
 *   files: ncs_create_par with another cmode on one process, ncs_open_par
 *     with another mode: NCS_EMULTIDEFINE everywhere; a new file whose
 *     first enddef disagrees: NCS_EMULTIDEFINE, nothing written to it.
 * At the end rank 0 reopens the file with the serial ncs_open and checks
 * it.  Exit status 1 on any failure.  Usage: par_errors [--attr-rewrite] [DIR].
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <ncslab.h>
#include <ncslab_par.h>

#define PER 4               /* elements of x per process */
#define RECS 2              /* records of r */

static int rank, nprocs, gen;
static size_t xlen;
static long failures;
static char path[4096], path2[4096];

static void fail(int line, const char *fmt, ...)
{
    va_list ap;
    failures++;
    fprintf(stderr, "par_errors: rank %d line %d: ", rank, line);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

/* The status of call must be want. */
#define EXPECT(call, want) do {                                               \
        int got_ = (call), want_ = (want);                                    \
        if (got_ != want_) {                                                  \
            const char *g_ = ncs_strerror(got_), *w_ = ncs_strerror(want_);   \
            fail(__LINE__, "%s: %d (%s), expected %d (%s)", #call, got_, g_,  \
                 want_, w_);                                                  \
        }                                                                     \
    } while (0)
#define OK(call) EXPECT(call, NCS_NOERR)

static int a_value(int g, size_t i)
{
    return g * 1000 + (int)i;
}

static short r_value(int g, size_t t, size_t i)
{
    return (short)(g * 100 + (int)t * 10 + (int)i);
}

/* A good collective put of generation g: each process its block of a
 * and of every record of r. */
static void put_generation(int ncid, int g)
{
    size_t st[2] = { 0, (size_t)rank * PER }, ct[2] = { RECS, PER };
    int av[PER];
    short rv[RECS * PER];
    for (size_t i = 0; i < PER; i++) {
        av[i] = a_value(g, st[1] + i);
        for (size_t t = 0; t < RECS; t++)
            rv[t * PER + i] = r_value(g, t, st[1] + i);
    }
    OK(ncs_put(ncid, 0, &st[1], &ct[1], NULL, NULL, NCS_INT, av));
    OK(ncs_put(ncid, 1, st, ct, NULL, NULL, NCS_SHORT, rv));
}

/* Every process reads everything (collective) and compares with
 * generation gen. */
static void check_content(int ncid, int line)
{
    int *av = calloc(xlen, sizeof *av);
    short *rv = calloc(xlen * RECS, sizeof *rv);
    size_t nrec = 0;
    OK(ncs_inq_dimlen(ncid, 1, &nrec));
    if (nrec != RECS)
        fail(line, "%zu records, expected %d", nrec, RECS);
    OK(ncs_get(ncid, 0, NULL, NULL, NULL, NULL, NCS_INT, av));
    OK(ncs_get(ncid, 1, NULL, NULL, NULL, NULL, NCS_SHORT, rv));
    for (size_t i = 0; i < xlen; i++) {
        if (av[i] != a_value(gen, i)) {
            fail(line, "a[%zu] = %d, expected %d", i, av[i], a_value(gen, i));
            break;
        }
        for (size_t t = 0; t < RECS; t++)
            if (rv[t * xlen + i] != r_value(gen, t, i)) {
                fail(line, "r[%zu][%zu] = %d, expected %d", t, i, rv[t * xlen + i],
                     r_value(gen, t, i));
                t = RECS;
                i = xlen;
            }
    }
    free(av);
    free(rv);
}

/* After a failed call: the old content, then a good put of the next
 * generation and its content. */
static void go_on(int ncid, int line)
{
    check_content(ncid, line);
    put_generation(ncid, ++gen);
    check_content(ncid, line);
}

/* The expected status of a data call where process p's own status is
 * own[p] (0: good): its own, or the lowest of the others'. */
static int expected(const int *own)
{
    int low = 0;
    if (own[rank] != 0)
        return own[rank];
    for (int p = 0; p < nprocs; p++)
        if (own[p] < low)
            low = own[p];
    return low;
}

static void data_errors(int ncid)
{
    int *own = calloc((size_t)nprocs, sizeof *own);
    int buf[PER + 8];
    for (int c = 0; c < 4; c++) {
        int faulty = c % 2 ? 0 : nprocs - 1, mine = rank == faulty, varid = 0;
        size_t st = (size_t)rank * PER, ct = PER;
        const char *what[] = { "start past the end", "bad varid", "count beyond", "get, start past the end" };
        memset(own, 0, (size_t)nprocs * sizeof *own);
        for (size_t i = 0; i < PER + 8; i++)
            buf[i] = -a_value(gen + 1, i);
        if (c == 0 || c == 3) {
            own[faulty] = NCS_EINVALCOORDS;
            if (mine)
                st = xlen + 1;
        } else if (c == 1) {
            own[faulty] = NCS_ENOTVAR;
            if (mine)
                varid = 99;
        } else {
            own[faulty] = NCS_EEDGE;
            if (mine)
                ct = PER + 1;
        }
        int want = expected(own), got;
        if (c == 3)
            got = ncs_get(ncid, varid, &st, &ct, NULL, NULL, NCS_INT, buf);
        else
            got = ncs_put(ncid, varid, &st, &ct, NULL, NULL, NCS_INT, buf);
        if (got != want) {
            const char *g = ncs_strerror(got), *w = ncs_strerror(want);
            fail(__LINE__, "%s on process %d: %d (%s), expected %d (%s)", what[c], faulty,
                 got, g, want, w);
        }
        go_on(ncid, __LINE__);
    }
    if (nprocs >= 3) {                          /* two faulty processes */
        size_t st[2] = { 0, (size_t)rank * PER }, ct[2] = { 1, PER };
        short rv[PER + 1] = { 0 };
        memset(own, 0, (size_t)nprocs * sizeof *own);
        own[0] = NCS_EEDGE;
        own[1] = NCS_EINVALCOORDS;
        if (rank == 0) {
            st[1] = xlen - PER;
            ct[1] = PER + 1;
        }
        if (rank == 1)
            st[1] = xlen + 2;
        int want = expected(own), got = ncs_put(ncid, 1, st, ct, NULL, NULL, NCS_SHORT, rv);
        if (got != want) {
            const char *g = ncs_strerror(got), *w = ncs_strerror(want);
            fail(__LINE__, "two faulty processes: %d (%s), expected %d (%s)", got, g, want, w);
        }
        go_on(ncid, __LINE__);
    }
    free(own);
}

/* A define mode in which process faulty defines something else. */
static void define_errors(int ncid)
{
    for (int c = 0; c < 3; c++) {
        int faulty = c % 2 ? 0 : nprocs - 1, mine = rank == faulty, id, indef = 0;
        int dims[1] = { 0 };
        OK(ncs_redef(ncid));
        if (c == 0) {
            OK(ncs_def_dim(ncid, "extra", mine ? 6 : 5, &id));
        } else if (c == 1) {
            OK(ncs_def_var(ncid, "b", mine ? NCS_FLOAT : NCS_DOUBLE, 1, dims, &id));
        } else {
            int v = mine ? 2 : 1;
            OK(ncs_put_att(ncid, NCS_GLOBAL, "version", NCS_INT, 1, NCS_INT, &v));
        }
        if (nprocs > 1) {
            EXPECT(ncs_enddef(ncid), NCS_EMULTIDEFINE);
            EXPECT(ncs_enddef(ncid), NCS_EMULTIDEFINE);
            OK(ncs_inq_indef(ncid, &indef));
            if (!indef)
                fail(__LINE__, "case %d: not in define mode after NCS_EMULTIDEFINE", c);
            OK(ncs_abort(ncid));
            OK(ncs_open_par(path, NCS_WRITE, MPI_COMM_WORLD, MPI_INFO_NULL, &ncid));
            int nd = 0, nv = 0, ng = 0;
            OK(ncs_inq(ncid, &nd, &nv, &ng, NULL));
            if (nd != 2 || nv != 2 || ng != 0)
                fail(__LINE__, "case %d: %d dims %d vars %d atts after the abort", c, nd, nv, ng);
        } else {
            OK(ncs_abort(ncid));
            OK(ncs_open_par(path, NCS_WRITE, MPI_COMM_WORLD, MPI_INFO_NULL, &ncid));
        }
        go_on(ncid, __LINE__);
        OK(ncs_close(ncid));
        OK(ncs_open_par(path, NCS_WRITE, MPI_COMM_WORLD, MPI_INFO_NULL, &ncid));
    }
    OK(ncs_close(ncid));
}

/* An attribute rewritten in data mode, another value on one process. */
static void attr_rewrite(int ncid)
{
    int faulty = nprocs - 1;
    char units[3] = { 'm', rank == faulty ? 'k' : 's', 0 }, got[3] = { 0 };
    EXPECT(ncs_put_att(ncid, 0, "units", NCS_CHAR, 2, NCS_CHAR, units),
           nprocs > 1 ? NCS_EMULTIDEFINE : NCS_NOERR);
    OK(ncs_get_att(ncid, 0, "units", NCS_CHAR, got));
    if (strcmp(got, nprocs > 1 ? "ms" : units) != 0)
        fail(__LINE__, "units is \"%s\" after a disagreeing rewrite", got);
    go_on(ncid, __LINE__);
    OK(ncs_close(ncid));
}

static void file_errors(void)
{
    int ncid = -1, dim, var;
    if (nprocs < 2)
        return;
    /* Another cmode, another open mode on one process. */
    EXPECT(ncs_create_par(path2, NCS_CLOBBER | (rank == 0 ? NCS_64BIT_DATA : 0),
                          MPI_COMM_WORLD, MPI_INFO_NULL, &ncid), NCS_EMULTIDEFINE);
    EXPECT(ncs_open_par(path, rank == nprocs - 1 ? NCS_NOWRITE : NCS_WRITE, MPI_COMM_WORLD,
                        MPI_INFO_NULL, &ncid), NCS_EMULTIDEFINE);
    /* A first define mode that disagrees: nothing reaches the file. */
    OK(ncs_create_par(path2, NCS_CLOBBER, MPI_COMM_WORLD, MPI_INFO_NULL, &ncid));
    OK(ncs_def_dim(ncid, "x", rank == 0 ? 3 : 4, &dim));
    OK(ncs_def_var(ncid, "v", NCS_INT, 1, &dim, &var));
    EXPECT(ncs_enddef(ncid), NCS_EMULTIDEFINE);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        struct stat sb;
        int sid;
        if (stat(path2, &sb) == 0 && sb.st_size != 0) {
            int e = ncs_open(path2, NCS_NOWRITE, &sid);
            if (e == NCS_NOERR) {
                fail(__LINE__, "a disagreeing enddef wrote a readable header (%lld bytes)",
                     (long long)sb.st_size);
                ncs_close(sid);
            }
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    OK(ncs_abort(ncid));
}

static void serial_check(const char *want_units)
{
    int ncid, av[64];
    short rv[64 * RECS];
    char units[3] = { 0 };
    OK(ncs_open(path, NCS_NOWRITE, &ncid));
    OK(ncs_get(ncid, 0, NULL, NULL, NULL, NULL, NCS_INT, av));
    OK(ncs_get(ncid, 1, NULL, NULL, NULL, NULL, NCS_SHORT, rv));
    OK(ncs_get_att(ncid, 0, "units", NCS_CHAR, units));
    for (size_t i = 0; i < xlen; i++) {
        if (av[i] != a_value(gen, i))
            fail(__LINE__, "serial: a[%zu] = %d, expected %d", i, av[i], a_value(gen, i));
        for (size_t t = 0; t < RECS; t++)
            if (rv[t * xlen + i] != r_value(gen, t, i))
                fail(__LINE__, "serial: r[%zu][%zu] = %d", t, i, rv[t * xlen + i]);
    }
    if (strcmp(units, want_units) != 0)
        fail(__LINE__, "serial: units is \"%s\"", units);
    OK(ncs_close(ncid));
}

int main(int argc, char **argv)
{
    int attr = argc > 1 && strcmp(argv[1], "--attr-rewrite") == 0;
    const char *dir = argc > 1 + attr ? argv[1 + attr] : ".";
    int ncid, dims[2], var;
    long all = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    if (nprocs > 16) {
        if (rank == 0)
            fprintf(stderr, "par_errors: at most 16 processes\n");
        MPI_Finalize();
        return 2;
    }
    xlen = (size_t)nprocs * PER;
    snprintf(path, sizeof path, "%s/par_errors_%d%s.nc", dir, nprocs, attr ? "_attr" : "");
    snprintf(path2, sizeof path2, "%s/par_errors_%d_new.nc", dir, nprocs);

    OK(ncs_create_par(path, NCS_CLOBBER, MPI_COMM_WORLD, MPI_INFO_NULL, &ncid));
    OK(ncs_def_dim(ncid, "x", xlen, &dims[1]));
    OK(ncs_def_dim(ncid, "rec", NCS_UNLIMITED, &dims[0]));
    OK(ncs_def_var(ncid, "a", NCS_INT, 1, &dims[1], &var));
    OK(ncs_put_att(ncid, var, "units", NCS_CHAR, 2, NCS_CHAR, "ms"));
    OK(ncs_def_var(ncid, "r", NCS_SHORT, 2, dims, &var));
    OK(ncs_enddef(ncid));
    put_generation(ncid, gen);
    OK(ncs_sync(ncid));
    check_content(ncid, __LINE__);

    if (attr) {
        attr_rewrite(ncid);
    } else {
        data_errors(ncid);
        define_errors(ncid);
        file_errors();
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        serial_check(attr && nprocs == 1 ? "mk" : "ms");

    MPI_Allreduce(&failures, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("par_errors: %d process%s: %s\n", nprocs, nprocs > 1 ? "es" : "",
               all ? "FAILED" : "ok");
        if (!all) {
            remove(path);
            remove(path2);
        }
    }
    MPI_Finalize();
    return all != 0;
}
