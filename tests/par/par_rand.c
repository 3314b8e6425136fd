/*
 * par_rand.c -- random schemas and random decompositions written in
 * parallel through PnetCDF and through ncslab_par.h with the same calls in
 * the same order; the two files must be byte-identical, and both must read
 * back, through either library and serially, holding exactly what the
 * plan says (issue 21, tests/par/par.am).
 *
 * From a seed, every process draws the same cases (1-3 of CDF-1, CDF-2,
 * CDF-5, each its own schema): 0-1 record dimension and 1-4 fixed
 * dimensions of 1-5 elements, 1-8 variables of every type the format has
 * (CDF-5: the unsigned and 64-bit ones too) and of rank 0-4, record
 * variables among them, global and variable attributes.  Each variable
 * gets a write plan: rounds of pieces, one piece per process per round,
 * from a block partition along one dimension or a block-block one along
 * two, a cyclic (strided) one, or one process owning everything; some
 * processes get nothing (zero counts), a second dimension is sometimes
 * split in two strided rounds, record variables are sometimes written a
 * record per round, and a process may write fewer records than the
 * others.  A piece's memory may be in transposed (Fortran) order, passed
 * as an imap.  The access mode is collective, independent (set for
 * NCS_GLOBAL, before or after enddef; PnetCDF: ncmpi_begin_indep_data and
 * the non-_all calls) or per variable; in independent mode a process with
 * nothing to write sometimes makes no call.  After the plan, one last
 * piece writes the file's last element, so both files have their full
 * length.  Elements no piece writes are holes: nofill mode (the default
 * of both libraries) writes nothing there, and MPI-IO leaves them
 * undefined (OpenMPI's collective writes put buffer garbage in the gaps
 * of a file view), so holes are neither compared nor checked.
 *
 * Element values encode (variable, linear index) (value_at): every
 * process knows the whole expected file.  After both writes:
 *   1. rank 0 compares the files byte for byte (the header extent and
 *      every element written), and names the header field or variable
 *      element of the first difference; the lengths must be equal;
 *   2. every process reads both files, through ncs_open_par (collective
 *      ncs_get) and through PnetCDF (get_vars_all / get_varm_all), with a
 *      new random decomposition, and checks every written value it read
 *      and the record count;
 *   3. rank 0 opens both files with the serial ncs_open and checks every
 *      value, the definitions and the attributes.
 * Exit status 1 on any difference, on every process; an unexpected error
 * from either library aborts the job.
 *
 * Layout: the file's layout is PnetCDF's default, or ncmpi__enddef /
 * ncs__enddef with random arguments; with --hints, also random
 * nc_header_align_size, nc_var_align_size and nc_record_align_size in
 * the MPI_Info of the creates (the same schemas otherwise).  With
 * --redef, one case in three defines one more fixed variable and global
 * attribute after the others' data (redef, the definitions, the same
 * enddef as the first, then its plan in collective mode): the header
 * grows and the record data moves.
 *
 * PnetCDF's side uses its flexible calls (ncmpi_put_vars_all,
 * put_varm_all, their independent forms and the gets) with the MPI type
 * of the variable's own type: no conversion, as ncs_put with NCS_NAT.
 * Two things are left out because PnetCDF 1.12.3 or MPI-IO get them
 * wrong, whatever ncslab does: strides along the record dimension of a
 * record variable of rank 1 (PnetCDF ignores them; see decompose), and
 * ROMIO's data sieving of independent writes (romio_ds_write=disable in
 * the MPI_Info of both creates; see create_info).
 *
 * With --nonblocking, ncslab's side posts every piece as ncs_iput and
 * completes them with one ncs_wait_all before a redefinition and before
 * the close (several variables, record and fixed, in one collective
 * call), and its parallel reads post every piece as ncs_iget and wait
 * once; PnetCDF's side is unchanged, and the files must still be the
 * same bytes.
 *
 * Usage: par_rand [--seed S]... [--first S --count K] [--dir DIR] [--hints]
 *                 [--redef] [--nonblocking] [--keep] [--verbose]
 * (default: seeds 1-20, files in the current directory, removed when the
 * seed passes).  Every seed is printed; a failing one reproduces with
 *     mpirun -n N par_rand [--hints] [--redef] --seed S
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pnetcdf.h>
#include <ncslab.h>
#include <ncslab_par.h>

#include "par_cdf.h"

#define MAXRANK   4      /* dimensions of a variable */
#define MAXDIMS   5      /* of a file: 1 record + 4 fixed */
#define MAXVARS   8
#define MAXATTS   3      /* per variable, and global */
#define MAXREPORT 8      /* mismatches printed per check */

/* ---- run context, errors ------------------------------------------------ */

static int rank, nprocs;
static unsigned long long cur_seed;
static int cur_fmt;
static const char *dir = ".";
static int use_hints;       /* --hints: layout hints in the MPI_Info */
static int use_redef;       /* --redef: sometimes a redef after the data */
static int use_nb;          /* --nonblocking: ncslab's data calls iput/iget */

static void die(int line, const char *what, const char *msg, int status)
{
    fprintf(stderr, "par_rand: rank %d: seed %llu CDF-%d line %d: %s: %s (%d)\n"
            "par_rand: reproduce: mpirun -n %d par_rand%s%s%s --seed %llu\n",
            rank, cur_seed, cur_fmt, line, what, msg, status, nprocs,
            use_hints ? " --hints" : "", use_redef ? " --redef" : "",
            use_nb ? " --nonblocking" : "", cur_seed);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

static void die_pn(int line, const char *what, int status)
{
    const char *msg = ncmpi_strerror(status);
    die(line, what, msg, status);
}

static void die_ncs(int line, const char *what, int status)
{
    const char *msg = ncs_strerror(status);
    die(line, what, msg, status);
}

#define PN(call) do { int e_ = (call); if (e_ != NC_NOERR) die_pn(__LINE__, #call, e_); } while (0)
#define NS(call) do { int e_ = (call); if (e_ != NCS_NOERR) die_ncs(__LINE__, #call, e_); } while (0)

static long failures;

static void fail(const char *fmt, ...)
{
    va_list ap;
    failures++;
    fprintf(stderr, "par_rand: rank %d: seed %llu CDF-%d: ", rank, cur_seed, cur_fmt);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

/* ---- generator ---------------------------------------------------------- */

typedef struct { uint64_t s; } rng;

static uint64_t rnext(rng *r)
{
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* Uniform in [lo, hi]. */
static int rint_in(rng *r, int lo, int hi)
{
    return lo + (int)(rnext(r) % (uint64_t)(hi - lo + 1));
}

static int chance(rng *r, int one_in)
{
    return rnext(r) % (uint64_t)one_in == 0;
}

/* ---- types and values --------------------------------------------------- */

static size_t type_size(int t)
{
    switch (t) {
    case NCS_BYTE: case NCS_CHAR: case NCS_UBYTE: return 1;
    case NCS_SHORT: case NCS_USHORT: return 2;
    case NCS_INT: case NCS_UINT: case NCS_FLOAT: return 4;
    default: return 8;
    }
}

static MPI_Datatype mpi_type(int t)
{
    switch (t) {
    case NCS_BYTE: return MPI_SIGNED_CHAR;
    case NCS_CHAR: return MPI_CHAR;
    case NCS_SHORT: return MPI_SHORT;
    case NCS_INT: return MPI_INT;
    case NCS_FLOAT: return MPI_FLOAT;
    case NCS_DOUBLE: return MPI_DOUBLE;
    case NCS_UBYTE: return MPI_UNSIGNED_CHAR;
    case NCS_USHORT: return MPI_UNSIGNED_SHORT;
    case NCS_UINT: return MPI_UNSIGNED;
    case NCS_INT64: return MPI_LONG_LONG;
    default: return MPI_UNSIGNED_LONG_LONG;
    }
}

/* The value of element lin of variable var (tag: var, or 100 + an
 * attribute's number), never 0. */
static void value_at(int t, int tag, size_t lin, void *out)
{
    uint64_t k = (uint64_t)tag * 1009u + lin;
    int neg = (int)(lin & 1);
    switch (t) {
    case NCS_BYTE: { signed char v = (signed char)(1 + k % 126); if (neg) v = (signed char)-v; memcpy(out, &v, 1); break; }
    case NCS_CHAR: { char v = (char)('!' + k % 90); memcpy(out, &v, 1); break; }
    case NCS_SHORT: { short v = (short)(1 + k % 32000); if (neg) v = (short)-v; memcpy(out, &v, 2); break; }
    case NCS_INT: { int v = (int)(1 + k * 7919u % 2000000000u); if (neg) v = -v; memcpy(out, &v, 4); break; }
    case NCS_FLOAT: { float v = (float)(k % 1000000u) + 0.25f; if (neg) v = -v; memcpy(out, &v, 4); break; }
    case NCS_DOUBLE: { double v = (double)k * 1.5 + 0.125; if (neg) v = -v; memcpy(out, &v, 8); break; }
    case NCS_UBYTE: { unsigned char v = (unsigned char)(1 + k % 254); memcpy(out, &v, 1); break; }
    case NCS_USHORT: { unsigned short v = (unsigned short)(65535u - k % 65000u); memcpy(out, &v, 2); break; }
    case NCS_UINT: { unsigned v = 4000000000u - (unsigned)(k % 1000000000u); memcpy(out, &v, 4); break; }
    case NCS_INT64: { long long v = -(long long)(((uint64_t)1 << 40) + k * 1000003u); if (!neg) v = -v; memcpy(out, &v, 8); break; }
    default: { unsigned long long v = ((uint64_t)1 << 63) + k * 999983u; memcpy(out, &v, 8); break; }
    }
}

static void format_value(int t, const void *p, char *out, size_t len)
{
    switch (t) {
    case NCS_BYTE: snprintf(out, len, "%d", *(const signed char *)p); break;
    case NCS_CHAR: snprintf(out, len, "0x%02x", *(const unsigned char *)p); break;
    case NCS_SHORT: { short v; memcpy(&v, p, 2); snprintf(out, len, "%d", v); break; }
    case NCS_INT: { int v; memcpy(&v, p, 4); snprintf(out, len, "%d", v); break; }
    case NCS_FLOAT: { float v; memcpy(&v, p, 4); snprintf(out, len, "%.9g", v); break; }
    case NCS_DOUBLE: { double v; memcpy(&v, p, 8); snprintf(out, len, "%.17g", v); break; }
    case NCS_UBYTE: snprintf(out, len, "%u", *(const unsigned char *)p); break;
    case NCS_USHORT: { unsigned short v; memcpy(&v, p, 2); snprintf(out, len, "%u", v); break; }
    case NCS_UINT: { unsigned v; memcpy(&v, p, 4); snprintf(out, len, "%u", v); break; }
    case NCS_INT64: { long long v; memcpy(&v, p, 8); snprintf(out, len, "%lld", v); break; }
    default: { unsigned long long v; memcpy(&v, p, 8); snprintf(out, len, "%llu", v); break; }
    }
}

/* ---- schema and plans --------------------------------------------------- */

/* One process's part of one round.  An empty piece has every count 0 and
 * every start 0 (a scalar's: empty set). */
typedef struct {
    size_t start[MAXRANK], count[MAXRANK];
    ptrdiff_t stride[MAXRANK];
    int empty;
    int transposed;   /* memory in reverse dimension order (an imap) */
    int call;         /* independent mode, empty: make the call anyway */
} piece;

typedef struct {
    int nrounds;
    piece *p;         /* [round * nprocs + process] */
} plan;

typedef struct {
    char name[16];
    int type, ndims, isrec, indep;
    int dim[MAXRANK];
    size_t ext[MAXRANK];  /* dimension lengths; [0] of a record variable: records planned */
    int natts, atype[MAXATTS];
    size_t alen[MAXATTS];
    plan w, r;
    unsigned char *mask;  /* elements written, over numrecs records */
    size_t nmask;
} var;

typedef struct {
    int fmt;              /* 1, 2 or 5 */
    int ndims, recdim;    /* recdim -1: none */
    size_t dimlen[MAXDIMS];
    int nvars;
    var v[MAXVARS + 1];
    int ngatts, gatype[MAXATTS + 1];
    size_t galen[MAXATTS + 1];
    int late;             /* the last variable and global attribute are
                           * defined after the others' data, by a redef */
    int mode;             /* 0 collective, 1 independent, 2 per variable */
    int hints[3];         /* nc_header_align_size, nc_var_align_size,
                           * nc_record_align_size; 0: not set */
    int tuned;            /* enddef with the four arguments below */
    size_t h_minfree, v_align, v_minfree, r_align;
    int indep_in_define;  /* mode 1: set while still in define mode */
    size_t numrecs;
} schema;

static int random_type(rng *r, int fmt)
{
    return rint_in(r, NCS_BYTE, fmt == 5 ? NCS_UINT64 : NCS_DOUBLE);
}

/* Linear index of idx in v, record dimension unbounded. */
static size_t lin_index(const var *v, const size_t *idx)
{
    size_t lin = 0;
    for (int d = 0; d < v->ndims; d++)
        lin = lin * v->ext[d] + idx[d];
    return lin;
}

static size_t piece_elems(const var *v, const piece *p)
{
    size_t n = 1;
    if (p->empty)
        return 0;
    for (int d = 0; d < v->ndims; d++)
        n *= p->count[d];
    return n;
}

static void sort_sizes(size_t *a, int n)
{
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && a[j - 1] > a[j]; j--) {
            size_t t = a[j];
            a[j] = a[j - 1];
            a[j - 1] = t;
        }
}

/* Random cut points 0 = c[0] <= ... <= c[parts] = len. */
static void cuts(rng *r, size_t len, int parts, size_t *c)
{
    c[0] = 0;
    c[parts] = len;
    for (int i = 1; i < parts; i++)
        c[i] = (size_t)rint_in(r, 0, (int)len);
    sort_sizes(c + 1, parts - 1);
}

/* A plan for v over extents ext (a record variable's ext[0]: the records
 * planned, or for reading the file's records).  Writing, a process may do
 * fewer records than the others. */
static void decompose(rng *r, const var *v, const size_t *ext, int writing, plan *out)
{
    piece *base = calloc((size_t)nprocs, sizeof *base);
    size_t c[2][64 + 1];
    int nd = v->ndims;

    if (nd == 0) {
        int owner = rint_in(r, 0, nprocs - 1);
        out->nrounds = 1;
        out->p = calloc((size_t)nprocs, sizeof *out->p);
        for (int p = 0; p < nprocs; p++)
            out->p[p].empty = v->indep && writing && p != owner;
        free(base);
        return;
    }
    for (int p = 0; p < nprocs; p++) {
        for (int d = 0; d < nd; d++) {
            base[p].count[d] = ext[d];
            base[p].stride[d] = 1;
        }
    }
    int kind = rint_in(r, 0, 3), a = rint_in(r, 0, nd - 1);
    if (kind == 1 && nd < 2)
        kind = 0;
    if (kind == 0) {                            /* blocks along a */
        cuts(r, ext[a], nprocs, c[0]);
        for (int p = 0; p < nprocs; p++) {
            base[p].start[a] = c[0][p];
            base[p].count[a] = c[0][p + 1] - c[0][p];
        }
    } else if (kind == 1) {                     /* blocks along a and b */
        int b = (a + rint_in(r, 1, nd - 1)) % nd;
        int pa = rint_in(r, 1, nprocs), pb = rint_in(r, 1, nprocs / pa);
        cuts(r, ext[a], pa, c[0]);
        cuts(r, ext[b], pb, c[1]);
        for (int p = 0; p < nprocs; p++) {
            if (p >= pa * pb) {
                base[p].count[a] = 0;
                continue;
            }
            int ia = p / pb, ib = p % pb;
            base[p].start[a] = c[0][ia];
            base[p].count[a] = c[0][ia + 1] - c[0][ia];
            base[p].start[b] = c[1][ib];
            base[p].count[b] = c[1][ib + 1] - c[1][ib];
        }
    } else if (kind == 2 && v->isrec && nd == 1) {
        /* Not cyclic: PnetCDF 1.12.3 ignores the stride along the record
         * dimension of a variable of rank 1 (it moves records 0, 1, ...
         * for 0, 2, ...), in puts and gets, so the reference would be
         * wrong. */
        cuts(r, ext[0], nprocs, c[0]);
        for (int p = 0; p < nprocs; p++) {
            base[p].start[0] = c[0][p];
            base[p].count[0] = c[0][p + 1] - c[0][p];
        }
    } else if (kind == 2) {                     /* cyclic along a */
        int pa = rint_in(r, 1, nprocs);
        for (int p = 0; p < nprocs; p++) {
            size_t sp = (size_t)p;
            base[p].start[a] = p < pa && sp < ext[a] ? sp : 0;
            base[p].count[a] = p < pa && sp < ext[a] ? (ext[a] - sp + (size_t)pa - 1) / (size_t)pa : 0;
            base[p].stride[a] = pa;
        }
    } else {                                    /* one owner */
        int owner = rint_in(r, 0, nprocs - 1);
        for (int p = 0; p < nprocs; p++)
            if (p != owner)
                base[p].count[0] = 0;
    }
    /* A writer doing fewer records than the others. */
    if (writing && v->isrec && a != 0 && chance(r, 2))
        for (int p = 0; p < nprocs; p++)
            base[p].count[0] = (size_t)rint_in(r, 0, (int)ext[0]);

    /* A second, strided split in two rounds along another dimension. */
    int sdim = -1;
    if (nd >= 2 && chance(r, 3)) {
        sdim = (a + rint_in(r, 1, nd - 1)) % nd;
        if (ext[sdim] < 2 || base[0].stride[sdim] != 1)
            sdim = -1;
    }
    int srounds = sdim >= 0 ? 2 : 1;
    /* A record per round. */
    int rrounds = 1, byrec = writing && v->isrec && chance(r, 2);
    if (byrec) {
        rrounds = 0;
        for (int p = 0; p < nprocs; p++)
            if ((int)base[p].count[0] > rrounds)
                rrounds = (int)base[p].count[0];
        if (rrounds == 0)
            rrounds = 1;
    }
    out->nrounds = srounds * rrounds;
    out->p = calloc((size_t)out->nrounds * (size_t)nprocs, sizeof *out->p);
    for (int rr = 0; rr < rrounds; rr++)
        for (int sr = 0; sr < srounds; sr++)
            for (int p = 0; p < nprocs; p++) {
                piece *q = &out->p[(rr * srounds + sr) * nprocs + p];
                *q = base[p];
                if (byrec) {
                    q->start[0] = base[p].start[0] + (size_t)rr * (size_t)base[p].stride[0];
                    q->count[0] = (size_t)rr < base[p].count[0];
                }
                if (sdim >= 0) {
                    size_t len = q->count[sdim];
                    q->start[sdim] += (size_t)sr;
                    q->count[sdim] = sr == 0 ? (len + 1) / 2 : len / 2;
                    q->stride[sdim] = 2;
                }
                q->empty = 0;
                for (int d = 0; d < nd; d++)
                    if (q->count[d] == 0)
                        q->empty = 1;
                if (q->empty) {
                    memset(q->start, 0, sizeof q->start);
                    memset(q->count, 0, sizeof q->count);
                }
                q->transposed = nd >= 2 && chance(r, 4);
                q->call = chance(r, 2);
            }
    free(base);
}

/* The last element of the file, as one more round of the plan of the
 * variable stored last: process nprocs - 1 writes it (a scalar in
 * collective mode: every process, the same value). */
static void add_tail(schema *s)
{
    int last = -1;
    for (int i = 0; i < s->nvars; i++)
        if (s->v[i].isrec && s->numrecs > 0)
            last = i;
    if (last < 0)
        for (int i = 0; i < s->nvars; i++)
            if (!s->v[i].isrec)
                last = i;
    if (last < 0)
        return;
    var *v = &s->v[last];
    plan *w = &v->w;
    w->p = realloc(w->p, (size_t)(w->nrounds + 1) * (size_t)nprocs * sizeof *w->p);
    piece *q = &w->p[w->nrounds * nprocs];
    memset(q, 0, (size_t)nprocs * sizeof *q);
    for (int p = 0; p < nprocs; p++) {
        q[p].empty = v->ndims > 0 || v->indep ? p != nprocs - 1 : 0;
        for (int d = 0; d < v->ndims; d++) {
            q[p].stride[d] = 1;
            if (!q[p].empty) {
                q[p].start[d] = (v->isrec && d == 0 ? s->numrecs : v->ext[d]) - 1;
                q[p].count[d] = 1;
            }
        }
    }
    w->nrounds++;
}

/* Calls visit(idx, k) for element k (C order over count) of piece q. */
typedef void visitor(const var *v, const size_t *idx, size_t k, void *arg);

static void walk(const var *v, const piece *q, visitor *visit, void *arg)
{
    size_t n = piece_elems(v, q), i[MAXRANK] = { 0 }, idx[MAXRANK] = { 0 };
    if (v->ndims == 0) {
        if (!q->empty)
            visit(v, idx, 0, arg);
        return;
    }
    for (size_t k = 0; k < n; k++) {
        size_t rem = k;
        for (int d = v->ndims - 1; d >= 0; d--) {
            i[d] = rem % q->count[d];
            rem /= q->count[d];
            idx[d] = q->start[d] + i[d] * (size_t)q->stride[d];
        }
        visit(v, idx, k, arg);
    }
}

static void mark(const var *v, const size_t *idx, size_t k, void *arg)
{
    (void)k;
    (void)arg;
    size_t lin = lin_index(v, idx);
    if (lin < v->nmask)
        v->mask[lin] = 1;
}

static schema *make_schema(rng *r, int fmt)
{
    schema *s = calloc(1, sizeof *s);
    int nfixed = rint_in(r, 1, 4);
    s->fmt = fmt;
    s->ndims = nfixed + (rnext(r) % 3 != 0);     /* a record dimension, 2 in 3 */
    s->recdim = s->ndims > nfixed ? rint_in(r, 0, s->ndims - 1) : -1;
    for (int d = 0; d < s->ndims; d++)
        s->dimlen[d] = d == s->recdim ? 0 : (size_t)rint_in(r, 1, 5);
    s->ngatts = rint_in(r, 0, MAXATTS);
    for (int j = 0; j < s->ngatts; j++) {
        s->gatype[j] = random_type(r, fmt);
        s->galen[j] = (size_t)rint_in(r, 1, s->gatype[j] == NCS_CHAR ? 9 : 4);
    }
    s->mode = rint_in(r, 0, 3) % 3;
    {
        static const int aligns[] = { 4, 16, 200, 512, 1024, 4096 };
        static const size_t frees[] = { 0, 64, 1000 };
        for (int k = 0; k < 3; k++) {
            int h = aligns[rint_in(r, 0, 5)];
            s->hints[k] = chance(r, 3) && use_hints ? h : 0;
        }
        s->tuned = chance(r, 4);
        s->h_minfree = frees[rint_in(r, 0, 2)];
        s->v_align = (size_t)aligns[rint_in(r, 0, 5)];
        s->v_minfree = frees[rint_in(r, 0, 2)];
        s->r_align = (size_t)aligns[rint_in(r, 0, 5)];
    }
    s->indep_in_define = chance(r, 2);
    s->nvars = rint_in(r, 1, MAXVARS);
    for (int i = 0; i < s->nvars; i++) {
        var *v = &s->v[i];
        int fixed[MAXDIMS], nf = 0;
        snprintf(v->name, sizeof v->name, "v%d", i);
        v->type = random_type(r, fmt);
        v->isrec = s->recdim >= 0 && chance(r, 2);
        for (int d = 0; d < s->ndims; d++)
            if (d != s->recdim)
                fixed[nf++] = d;
        int want = rint_in(r, 0, nf < MAXRANK - v->isrec ? nf : MAXRANK - v->isrec);
        if (v->isrec) {
            v->dim[v->ndims] = s->recdim;
            v->ext[v->ndims++] = (size_t)rint_in(r, 0, 4);
        }
        for (int k = 0; k < want; k++) {        /* distinct fixed dimensions */
            int j = rint_in(r, k, nf - 1), t = fixed[k];
            fixed[k] = fixed[j];
            fixed[j] = t;
            v->dim[v->ndims] = fixed[k];
            v->ext[v->ndims++] = s->dimlen[fixed[k]];
        }
        v->natts = rint_in(r, 0, 2);
        for (int j = 0; j < v->natts; j++) {
            v->atype[j] = random_type(r, fmt);
            v->alen[j] = (size_t)rint_in(r, 1, v->atype[j] == NCS_CHAR ? 9 : 4);
        }
        v->indep = s->mode == 1 || (s->mode == 2 && chance(r, 2));
        decompose(r, v, v->ext, 1, &v->w);
    }
    if (chance(r, 3) && use_redef) {    /* a fixed variable, a global text */
        var *v = &s->v[s->nvars];
        int nf = 0, fixed[MAXDIMS];
        s->late = 1;
        s->gatype[s->ngatts] = NCS_CHAR;
        s->galen[s->ngatts++] = (size_t)rint_in(r, 1, 60);
        snprintf(v->name, sizeof v->name, "v%d", s->nvars);
        v->type = random_type(r, fmt);
        for (int d = 0; d < s->ndims; d++)
            if (d != s->recdim)
                fixed[nf++] = d;
        v->ndims = rint_in(r, 1, nf < 2 ? nf : 2);
        for (int k = 0; k < v->ndims; k++) {    /* distinct fixed dimensions */
            int j = rint_in(r, k, nf - 1), t = fixed[k];
            fixed[k] = fixed[j];
            fixed[j] = t;
            v->dim[k] = fixed[k];
            v->ext[k] = s->dimlen[fixed[k]];
        }
        decompose(r, v, v->ext, 1, &v->w);
        s->nvars++;
    }
    /* The record count: the furthest record any piece writes. */
    for (int i = 0; i < s->nvars; i++) {
        var *v = &s->v[i];
        if (!v->isrec)
            continue;
        for (int k = 0; k < v->w.nrounds * nprocs; k++) {
            const piece *q = &v->w.p[k];
            if (!q->empty) {
                size_t end = q->start[0] + (q->count[0] - 1) * (size_t)q->stride[0] + 1;
                if (end > s->numrecs)
                    s->numrecs = end;
            }
        }
    }
    add_tail(s);
    for (int i = 0; i < s->nvars; i++) {
        var *v = &s->v[i];
        size_t ext[MAXRANK];
        v->nmask = 1;
        for (int d = 0; d < v->ndims; d++) {
            ext[d] = v->isrec && d == 0 ? s->numrecs : v->ext[d];
            v->nmask *= ext[d];
        }
        v->mask = calloc(v->nmask ? v->nmask : 1, 1);
        for (int k = 0; k < v->w.nrounds * nprocs; k++)
            walk(v, &v->w.p[k], mark, NULL);
        decompose(r, v, ext, 0, &v->r);
    }
    return s;
}

static void free_schema(schema *s)
{
    for (int i = 0; i < s->nvars; i++) {
        free(s->v[i].w.p);
        free(s->v[i].r.p);
        free(s->v[i].mask);
    }
    free(s);
}

static void dim_name(const schema *s, int d, char *out, size_t len)
{
    if (d == s->recdim)
        snprintf(out, len, "rec");
    else
        snprintf(out, len, "d%d", d);
}

static void att_name(int varid, int j, char *out, size_t len)
{
    if (varid < 0)
        snprintf(out, len, "g%d", j);
    else
        snprintf(out, len, "a%d_%d", varid, j);
}

static void *att_values(int t, int varid, int j, size_t len)
{
    unsigned char *b = malloc(len * type_size(t));
    for (size_t i = 0; i < len; i++)
        value_at(t, 100 + (varid + 1) * MAXATTS + j, i, b + i * type_size(t));
    return b;
}

/* ---- buffers ------------------------------------------------------------ */

/* Memory position of element k of piece q (C order, or transposed). */
static size_t mem_pos(const var *v, const piece *q, size_t k)
{
    if (!q->transposed)
        return k;
    size_t pos = 0, m = 1, rem = k, i[MAXRANK] = { 0 };
    for (int d = v->ndims - 1; d >= 0; d--) {
        i[d] = rem % q->count[d];
        rem /= q->count[d];
    }
    for (int d = 0; d < v->ndims; d++) {
        pos += i[d] * m;
        m *= q->count[d];
    }
    return pos;
}

static void imap_of(const var *v, const piece *q, ptrdiff_t *imap)
{
    ptrdiff_t m = 1;
    for (int d = 0; d < v->ndims; d++) {
        imap[d] = m;
        m *= (ptrdiff_t)q->count[d];
    }
}

typedef struct {
    const piece *q;
    unsigned char *buf;
    long bad;
    const char *who;
} fillarg;

static int var_tag(const schema *s, const var *v)
{
    return (int)(v - s->v);
}

typedef struct {
    const schema *s;
    fillarg f;
} fillctx;

static void fill_at(const var *v, const size_t *idx, size_t k, void *arg)
{
    fillctx *c = arg;
    size_t sz = type_size(v->type);
    value_at(v->type, var_tag(c->s, v), lin_index(v, idx), c->f.buf + mem_pos(v, c->f.q, k) * sz);
}

static void describe_index(const var *v, const size_t *idx, char *out, size_t len)
{
    size_t used = 0;
    out[0] = 0;
    for (int d = 0; d < v->ndims && used < len; d++)
        used += (size_t)snprintf(out + used, len - used, "%s%zu", d ? "," : "", idx[d]);
}

static void check_at(const var *v, const size_t *idx, size_t k, void *arg)
{
    fillctx *c = arg;
    size_t sz = type_size(v->type), lin = lin_index(v, idx);
    unsigned char want[8] = { 0 };
    const unsigned char *got = c->f.buf + mem_pos(v, c->f.q, k) * sz;
    if (lin >= v->nmask || !v->mask[lin])
        return;         /* a hole: MPI-IO leaves its contents undefined */
    value_at(v->type, var_tag(c->s, v), lin, want);
    if (memcmp(want, got, sz) == 0)
        return;
    if (c->f.bad++ < MAXREPORT) {
        char ix[64], g[40], w[40];
        describe_index(v, idx, ix, sizeof ix);
        format_value(v->type, got, g, sizeof g);
        format_value(v->type, want, w, sizeof w);
        fail("%s: %s[%s] is %s, expected %s", c->f.who, v->name, ix, g, w);
    } else {
        failures++;
    }
}

static unsigned char *piece_buffer(const schema *s, const var *v, const piece *q, int fill)
{
    size_t n = v->ndims == 0 ? 1 : piece_elems(v, q);
    unsigned char *buf = calloc(n ? n : 1, type_size(v->type));
    if (fill) {
        fillctx c = { s, { q, buf, 0, NULL } };
        walk(v, q, fill_at, &c);
    }
    return buf;
}

/* ---- the two writers ---------------------------------------------------- */

static int pn_cmode(int fmt)
{
    return NC_CLOBBER | (fmt == 2 ? NC_64BIT_OFFSET : fmt == 5 ? NC_64BIT_DATA : 0);
}

static int ncs_cmode(int fmt)
{
    return NCS_CLOBBER | (fmt == 2 ? NCS_64BIT_OFFSET : fmt == 5 ? NCS_64BIT_DATA : 0);
}

static void to_offsets(const var *v, const piece *q, MPI_Offset *st, MPI_Offset *ct,
                       MPI_Offset *sd, MPI_Offset *im)
{
    ptrdiff_t imap[MAXRANK];
    imap_of(v, q, imap);
    for (int d = 0; d < v->ndims; d++) {
        st[d] = (MPI_Offset)q->start[d];
        ct[d] = (MPI_Offset)q->count[d];
        sd[d] = (MPI_Offset)q->stride[d];
        im[d] = (MPI_Offset)imap[d];
    }
}

/* The hints of a create: the schema's layout hints, and no data sieving
 * for independent writes: ROMIO's read-modify-write of a strided write's
 * whole extent loses what another process wrote meanwhile in its gaps
 * (its lock does not hold off the other's contiguous writes), in
 * PnetCDF's files as in ncslab's. */
static MPI_Info create_info(const schema *s)
{
    static const char *names[3] = { "nc_header_align_size", "nc_var_align_size",
                                    "nc_record_align_size" };
    MPI_Info info;
    char v[32];
    MPI_Info_create(&info);
    MPI_Info_set(info, "romio_ds_write", "disable");
    for (int k = 0; k < 3; k++)
        if (s->hints[k]) {
            snprintf(v, sizeof v, "%d", s->hints[k]);
            MPI_Info_set(info, names[k], v);
        }
    return info;
}

static void pn_def_var(int ncid, const schema *s, int i, const int *dimid)
{
    const var *v = &s->v[i];
    int dims[MAXRANK], varid;
    char name[32];
    for (int d = 0; d < v->ndims; d++)
        dims[d] = dimid[v->dim[d]];
    PN(ncmpi_def_var(ncid, v->name, v->type, v->ndims, dims, &varid));
    for (int j = 0; j < v->natts; j++) {
        void *b = att_values(v->atype[j], i, j, v->alen[j]);
        att_name(i, j, name, sizeof name);
        PN(ncmpi_put_att(ncid, varid, name, v->atype[j], (MPI_Offset)v->alen[j], b));
        free(b);
    }
}

static void pn_put_gatt(int ncid, const schema *s, int j)
{
    char name[32];
    void *b = att_values(s->gatype[j], -1, j, s->galen[j]);
    att_name(-1, j, name, sizeof name);
    PN(ncmpi_put_att(ncid, NC_GLOBAL, name, s->gatype[j], (MPI_Offset)s->galen[j], b));
    free(b);
}

static void pn_enddef(int ncid, const schema *s)
{
    if (s->tuned)
        PN(ncmpi__enddef(ncid, (MPI_Offset)s->h_minfree, (MPI_Offset)s->v_align,
                         (MPI_Offset)s->v_minfree, (MPI_Offset)s->r_align));
    else
        PN(ncmpi_enddef(ncid));
}

/* Variable i's plan; *indep: the file is in independent data mode. */
static void pn_write_var(int ncid, const schema *s, int i, int *indep)
{
    const var *v = &s->v[i];
    if (v->indep && !*indep)
        PN(ncmpi_begin_indep_data(ncid));
    else if (!v->indep && *indep)
        PN(ncmpi_end_indep_data(ncid));
    *indep = v->indep;
    for (int k = 0; k < v->w.nrounds; k++) {
        const piece *q = &v->w.p[k * nprocs + rank];
        MPI_Offset st[MAXRANK], ct[MAXRANK], sd[MAXRANK], im[MAXRANK];
        if (v->indep && q->empty && (!q->call || v->ndims == 0))
            continue;
        unsigned char *buf = piece_buffer(s, v, q, 1);
        MPI_Offset n = v->ndims == 0 ? 1 : (MPI_Offset)piece_elems(v, q);
        to_offsets(v, q, st, ct, sd, im);
        if (q->transposed && v->indep)
            PN(ncmpi_put_varm(ncid, i, st, ct, sd, im, buf, n, mpi_type(v->type)));
        else if (q->transposed)
            PN(ncmpi_put_varm_all(ncid, i, st, ct, sd, im, buf, n, mpi_type(v->type)));
        else if (v->indep)
            PN(ncmpi_put_vars(ncid, i, st, ct, sd, buf, n, mpi_type(v->type)));
        else
            PN(ncmpi_put_vars_all(ncid, i, st, ct, sd, buf, n, mpi_type(v->type)));
        free(buf);
    }
}

static void write_pnetcdf(const schema *s, const char *path)
{
    int ncid, dimid[MAXDIMS], indep = 0;
    char name[32];
    MPI_Info info = create_info(s);
    PN(ncmpi_create(MPI_COMM_WORLD, path, pn_cmode(s->fmt), info, &ncid));
    MPI_Info_free(&info);
    for (int d = 0; d < s->ndims; d++) {
        dim_name(s, d, name, sizeof name);
        PN(ncmpi_def_dim(ncid, name, d == s->recdim ? NC_UNLIMITED : (MPI_Offset)s->dimlen[d], &dimid[d]));
    }
    for (int j = 0; j < s->ngatts - s->late; j++)
        pn_put_gatt(ncid, s, j);
    for (int i = 0; i < s->nvars - s->late; i++)
        pn_def_var(ncid, s, i, dimid);
    pn_enddef(ncid, s);
    for (int i = 0; i < s->nvars - s->late; i++)
        pn_write_var(ncid, s, i, &indep);
    if (s->late) {
        if (indep)
            PN(ncmpi_end_indep_data(ncid));
        indep = 0;
        PN(ncmpi_redef(ncid));
        pn_put_gatt(ncid, s, s->ngatts - 1);
        pn_def_var(ncid, s, s->nvars - 1, dimid);
        pn_enddef(ncid, s);
        pn_write_var(ncid, s, s->nvars - 1, &indep);
    }
    if (indep)
        PN(ncmpi_end_indep_data(ncid));
    PN(ncmpi_close(ncid));
}

static void ncs_def_one(int ncid, const schema *s, int i, const int *dimid)
{
    const var *v = &s->v[i];
    int dims[MAXRANK], varid;
    char name[32];
    for (int d = 0; d < v->ndims; d++)
        dims[d] = dimid[v->dim[d]];
    NS(ncs_def_var(ncid, v->name, v->type, v->ndims, dims, &varid));
    for (int j = 0; j < v->natts; j++) {
        void *b = att_values(v->atype[j], i, j, v->alen[j]);
        att_name(i, j, name, sizeof name);
        NS(ncs_put_att(ncid, varid, name, v->atype[j], v->alen[j], NCS_NAT, b));
        free(b);
    }
}

static void ncs_put_gatt(int ncid, const schema *s, int j)
{
    char name[32];
    void *b = att_values(s->gatype[j], -1, j, s->galen[j]);
    att_name(-1, j, name, sizeof name);
    NS(ncs_put_att(ncid, NCS_GLOBAL, name, s->gatype[j], s->galen[j], NCS_NAT, b));
    free(b);
}

static void ncs_enddef_as(int ncid, const schema *s)
{
    if (s->tuned)
        NS(ncs__enddef(ncid, s->h_minfree, s->v_align, s->v_minfree, s->r_align));
    else
        NS(ncs_enddef(ncid));
}

/* --nonblocking: the buffers of the requests posted and not yet waited
 * for (each freed after the wait, a get's checked first) */
typedef struct pending {
    unsigned char *buf;
    const var *v;           /* a get's variable and piece, for the check */
    const piece *q;
} pending;
static pending *pend;
static size_t npend, cappend;

static void pend_add(unsigned char *buf, const var *v, const piece *q)
{
    if (npend == cappend) {
        cappend = cappend ? 2 * cappend : 64;
        pend = realloc(pend, cappend * sizeof *pend);
        if (pend == NULL) {
            fprintf(stderr, "par_rand: out of memory\n");
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    pend[npend].buf = buf;
    pend[npend].v = v;
    pend[npend].q = q;
    npend++;
}

static void ncs_write_var(int ncid, const schema *s, int i)
{
    const var *v = &s->v[i];
    for (int k = 0; k < v->w.nrounds; k++) {
        const piece *q = &v->w.p[k * nprocs + rank];
        ptrdiff_t imap[MAXRANK];
        if (v->indep && q->empty && (!q->call || v->ndims == 0))
            continue;
        unsigned char *buf = piece_buffer(s, v, q, 1);
        imap_of(v, q, imap);
        if (use_nb) {
            int id;
            NS(ncs_iput(ncid, i, q->start, q->count, q->stride, q->transposed ? imap : NULL,
                        NCS_NAT, buf, &id));
            pend_add(buf, NULL, NULL);
            continue;
        }
        NS(ncs_put(ncid, i, q->start, q->count, q->stride, q->transposed ? imap : NULL,
                   NCS_NAT, buf));
        free(buf);
    }
}

/* --nonblocking: every request posted, completed (collective); the
 * buffers freed. */
static void ncs_wait_puts(int ncid)
{
    if (!use_nb)
        return;
    NS(ncs_wait_all(ncid, NCS_REQ_ALL, NULL, NULL));
    for (size_t k = 0; k < npend; k++)
        free(pend[k].buf);
    npend = 0;
}

static void write_ncslab(const schema *s, const char *path)
{
    int ncid, dimid[MAXDIMS];
    char name[32];
    MPI_Info info = create_info(s);
    NS(ncs_create_par(path, ncs_cmode(s->fmt), MPI_COMM_WORLD, info, &ncid));
    MPI_Info_free(&info);
    if (s->mode == 1 && s->indep_in_define)
        NS(ncs_var_par_access(ncid, NCS_GLOBAL, NCS_INDEPENDENT));
    for (int d = 0; d < s->ndims; d++) {
        dim_name(s, d, name, sizeof name);
        NS(ncs_def_dim(ncid, name, d == s->recdim ? NCS_UNLIMITED : s->dimlen[d], &dimid[d]));
    }
    for (int j = 0; j < s->ngatts - s->late; j++)
        ncs_put_gatt(ncid, s, j);
    for (int i = 0; i < s->nvars - s->late; i++)
        ncs_def_one(ncid, s, i, dimid);
    ncs_enddef_as(ncid, s);
    if (s->mode == 1 && !s->indep_in_define)
        NS(ncs_var_par_access(ncid, NCS_GLOBAL, NCS_INDEPENDENT));
    for (int i = 0; i < s->nvars - s->late; i++) {
        if (s->mode == 2)
            NS(ncs_var_par_access(ncid, i, s->v[i].indep ? NCS_INDEPENDENT : NCS_COLLECTIVE));
        ncs_write_var(ncid, s, i);
    }
    if (s->late) {
        /* Defined later, it takes NCS_GLOBAL's mode: made collective. */
        ncs_wait_puts(ncid);
        NS(ncs_redef(ncid));
        ncs_put_gatt(ncid, s, s->ngatts - 1);
        ncs_def_one(ncid, s, s->nvars - 1, dimid);
        ncs_enddef_as(ncid, s);
        NS(ncs_var_par_access(ncid, s->nvars - 1, NCS_COLLECTIVE));
        ncs_write_var(ncid, s, s->nvars - 1);
    }
    ncs_wait_puts(ncid);
    NS(ncs_close(ncid));
}

/* ---- reading back ------------------------------------------------------- */

static void check_piece(const schema *s, const var *v, const piece *q, unsigned char *buf,
                        const char *who)
{
    fillctx c = { s, { q, buf, 0, who } };
    walk(v, q, check_at, &c);
}

static void read_ncslab_par(const schema *s, const char *path, const char *who)
{
    int ncid;
    NS(ncs_open_par(path, NCS_NOWRITE, MPI_COMM_WORLD, MPI_INFO_NULL, &ncid));
    if (s->recdim >= 0) {
        size_t n;
        NS(ncs_inq_dimlen(ncid, s->recdim, &n));
        if (n != s->numrecs)
            fail("%s: %zu records, expected %zu", who, n, s->numrecs);
    }
    for (int i = 0; i < s->nvars; i++) {
        const var *v = &s->v[i];
        for (int k = 0; k < v->r.nrounds; k++) {
            const piece *q = &v->r.p[k * nprocs + rank];
            ptrdiff_t imap[MAXRANK];
            unsigned char *buf = piece_buffer(s, v, q, 0);
            imap_of(v, q, imap);
            if (use_nb) {
                int id;
                NS(ncs_iget(ncid, i, q->start, q->count, q->stride,
                            q->transposed ? imap : NULL, NCS_NAT, buf, &id));
                pend_add(buf, v, q);
                continue;
            }
            NS(ncs_get(ncid, i, q->start, q->count, q->stride, q->transposed ? imap : NULL,
                       NCS_NAT, buf));
            check_piece(s, v, q, buf, who);
            free(buf);
        }
    }
    if (use_nb) {
        NS(ncs_wait_all(ncid, NCS_REQ_ALL, NULL, NULL));
        for (size_t k = 0; k < npend; k++) {
            check_piece(s, pend[k].v, pend[k].q, pend[k].buf, who);
            free(pend[k].buf);
        }
        npend = 0;
    }
    NS(ncs_close(ncid));
}

static void read_pnetcdf(const schema *s, const char *path, const char *who)
{
    int ncid;
    PN(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
    if (s->recdim >= 0) {
        MPI_Offset n;
        PN(ncmpi_inq_dimlen(ncid, s->recdim, &n));
        if ((size_t)n != s->numrecs)
            fail("%s: %lld records, expected %zu", who, (long long)n, s->numrecs);
    }
    for (int i = 0; i < s->nvars; i++) {
        const var *v = &s->v[i];
        for (int k = 0; k < v->r.nrounds; k++) {
            const piece *q = &v->r.p[k * nprocs + rank];
            MPI_Offset st[MAXRANK], ct[MAXRANK], sd[MAXRANK], im[MAXRANK];
            MPI_Offset n = v->ndims == 0 ? 1 : (MPI_Offset)piece_elems(v, q);
            unsigned char *buf = piece_buffer(s, v, q, 0);
            to_offsets(v, q, st, ct, sd, im);
            if (q->transposed)
                PN(ncmpi_get_varm_all(ncid, i, st, ct, sd, im, buf, n, mpi_type(v->type)));
            else
                PN(ncmpi_get_vars_all(ncid, i, st, ct, sd, buf, n, mpi_type(v->type)));
            check_piece(s, v, q, buf, who);
            free(buf);
        }
    }
    PN(ncmpi_close(ncid));
}

static void check_att(int ncid, int varid, int j, int t, size_t len, const char *who)
{
    char name[32];
    int xt;
    size_t n, sz = type_size(t);
    att_name(varid, j, name, sizeof name);
    int e = ncs_inq_att(ncid, varid, name, &xt, &n);
    if (e != NCS_NOERR || xt != t || n != len) {
        fail("%s: attribute %s: status %d, type %d length %zu, expected type %d length %zu",
             who, name, e, e ? -1 : xt, e ? 0 : n, t, len);
        return;
    }
    unsigned char *want = att_values(t, varid, j, len), *got = calloc(len, sz);
    NS(ncs_get_att(ncid, varid, name, NCS_NAT, got));
    if (memcmp(want, got, len * sz) != 0)
        fail("%s: attribute %s: values differ", who, name);
    free(want);
    free(got);
}

/* Rank 0: the serial library reads the whole file. */
static void read_serial(const schema *s, const char *path, const char *who)
{
    int ncid, nd, nv, ng, unlim, fmt;
    NS(ncs_open(path, NCS_NOWRITE, &ncid));
    NS(ncs_inq(ncid, &nd, &nv, &ng, &unlim));
    NS(ncs_inq_format(ncid, &fmt));
    if (nd != s->ndims || nv != s->nvars || ng != s->ngatts || unlim != s->recdim ||
        fmt != (s->fmt == 1 ? NCS_FORMAT_CLASSIC : s->fmt == 2 ? NCS_FORMAT_64BIT_OFFSET
                                                               : NCS_FORMAT_64BIT_DATA))
        fail("%s: inq: %d dims %d vars %d atts unlimited %d format %d", who, nd, nv, ng, unlim, fmt);
    for (int d = 0; d < s->ndims && d < nd; d++) {
        size_t len;
        NS(ncs_inq_dimlen(ncid, d, &len));
        if (len != (d == s->recdim ? s->numrecs : s->dimlen[d]))
            fail("%s: dimension %d has length %zu", who, d, len);
    }
    for (int j = 0; j < s->ngatts; j++)
        check_att(ncid, NCS_GLOBAL, j, s->gatype[j], s->galen[j], who);
    for (int i = 0; i < s->nvars && i < nv; i++) {
        const var *v = &s->v[i];
        int t, vd, dims[NCS_MAX_VAR_DIMS], na;
        char name[NCS_MAX_NAME + 1];
        NS(ncs_inq_var(ncid, i, name, &t, &vd, dims, &na));
        if (strcmp(name, v->name) != 0 || t != v->type || vd != v->ndims || na != v->natts ||
            (vd > 0 && memcmp(dims, v->dim, (size_t)vd * sizeof *dims) != 0)) {
            fail("%s: variable %d (%s) defined differently", who, i, name);
            continue;
        }
        for (int j = 0; j < v->natts; j++)
            check_att(ncid, i, j, v->atype[j], v->alen[j], who);
        piece all = { { 0 }, { 0 }, { 0 }, 0, 0, 0 };
        for (int d = 0; d < v->ndims; d++) {
            all.count[d] = v->isrec && d == 0 ? s->numrecs : v->ext[d];
            all.stride[d] = 1;
            if (all.count[d] == 0)
                all.empty = 1;
        }
        unsigned char *buf = piece_buffer(s, v, &all, 0);
        int e = ncs_get(ncid, i, NULL, all.empty ? all.count : NULL, NULL, NULL, NCS_NAT, buf);
        if (e != NCS_NOERR) {
            const char *msg = ncs_strerror(e);
            fail("%s: reading %s: %s (%d)", who, v->name, msg, e);
        } else {
            check_piece(s, v, &all, buf, who);
        }
        free(buf);
    }
    NS(ncs_close(ncid));
}

/* ---- byte comparison ---------------------------------------------------- */

/* The two files must hold the same bytes wherever a call wrote: the
 * header extent and every element a piece wrote.  Elements no call wrote
 * and the padding between variables are holes whose contents MPI-IO does
 * not define (OpenMPI's OMPIO vulcan and ROMIO collective writes leave
 * buffer garbage there, in PnetCDF's files and ncslab's alike); they are
 * counted, not compared. */
static void compare_files(const schema *s, const char *ref, const char *got, int verbose)
{
    size_t n1 = 0, n2 = 0, holes = 0;
    unsigned char *a = par_cdf_slurp(ref, &n1), *b = par_cdf_slurp(got, &n2);
    if (!a || !b) {
        fail("cannot read %s or %s", ref, got);
        free(a);
        free(b);
        return;
    }
    size_t n = n1 < n2 ? n1 : n2;
    char where[256];
    int reported = 0;
    if (n1 != n2)
        fail("files differ in length: PnetCDF's %zu bytes, ncslab's %zu", n1, n2);
    for (size_t off = 0; off < n && !reported; off++) {
        int vi = -1;
        size_t lin = 0;
        if (a[off] == b[off])
            continue;
        int kind = par_cdf_locate(a, n1, off, s->fmt, &vi, &lin, where, sizeof where);
        if (kind == PAR_CDF_PADDING ||
            (kind == PAR_CDF_DATA && vi < s->nvars && (lin >= s->v[vi].nmask || !s->v[vi].mask[lin]))) {
            holes++;
            continue;
        }
        fail("files differ (%zu and %zu bytes): first difference at offset %zu (%s): "
             "PnetCDF 0x%02x, ncslab 0x%02x", n1, n2, off, where, a[off], b[off]);
        reported = 1;
    }
    if (holes && verbose)
        printf("    %zu bytes of holes differ (not compared)\n", holes);
    free(a);
    free(b);
}

/* ---- driver ------------------------------------------------------------- */

static void print_plan(const var *v, const plan *pl, const char *what)
{
    for (int k = 0; k < pl->nrounds; k++) {
        printf("      %s round %d:", what, k);
        for (int p = 0; p < nprocs; p++) {
            const piece *q = &pl->p[k * nprocs + p];
            if (q->empty) {
                printf(" [%s]", q->call ? "empty, called" : "empty");
                continue;
            }
            printf(" [");
            for (int d = 0; d < v->ndims; d++)
                printf("%s%zu+%zu/%td", d ? " " : "", q->start[d], q->count[d], q->stride[d]);
            printf("%s]", q->transposed ? " imap" : "");
        }
        printf("\n");
    }
}

/* The schema, and with verbose every piece (start+count/stride). */
static void describe_schema(const schema *s, int verbose)
{
    printf("  CDF-%d: %d dims (record %d, %zu records), %d vars%s, mode %s%s\n", s->fmt,
           s->ndims, s->recdim, s->numrecs, s->nvars, s->late ? " (the last after a redef)" : "",
           s->mode == 0 ? "collective" : s->mode == 1 ? "independent" : "per variable",
           s->mode == 1 ? (s->indep_in_define ? " (set in define mode)" : " (set after enddef)") : "");
    printf("    hints: header align %d, var align %d, record align %d (0: unset)", s->hints[0],
           s->hints[1], s->hints[2]);
    if (s->tuned)
        printf("; enddef(%zu, %zu, %zu, %zu)", s->h_minfree, s->v_align, s->v_minfree, s->r_align);
    printf("\n");
    if (!verbose)
        return;
    for (int d = 0; d < s->ndims; d++)
        printf("    dim %d: %zu%s\n", d, s->dimlen[d], d == s->recdim ? " (record)" : "");
    for (int i = 0; i < s->nvars; i++) {
        const var *v = &s->v[i];
        printf("    %s: type %d, dims", v->name, v->type);
        for (int d = 0; d < v->ndims; d++)
            printf(" %d", v->dim[d]);
        printf(", %s\n", v->indep ? "independent" : "collective");
        print_plan(v, &v->w, "write");
        print_plan(v, &v->r, "read");
    }
}

static int run_seed(unsigned long long seed, int verbose, int keep)
{
    rng r = { seed * 0x2545F4914F6CDD1DULL + 1 };
    int fmts[3] = { 1, 2, 5 }, nf = rint_in(&r, 1, 3);
    long before = failures;
    for (int i = 0; i < 3; i++) {               /* a random subset, in random order */
        int j = rint_in(&r, i, 2), t = fmts[i];
        fmts[i] = fmts[j];
        fmts[j] = t;
    }
    cur_seed = seed;
    for (int f = 0; f < nf; f++) {
        char pn[4096], ns[4096];
        long case_before = failures;
        cur_fmt = fmts[f];
        schema *s = make_schema(&r, fmts[f]);
        if (rank == 0 && verbose)
            describe_schema(s, 1);
        snprintf(pn, sizeof pn, "%s/par_rand_%llu_cdf%d_pnetcdf.nc", dir, seed, s->fmt);
        snprintf(ns, sizeof ns, "%s/par_rand_%llu_cdf%d_ncslab.nc", dir, seed, s->fmt);
        write_pnetcdf(s, pn);
        write_ncslab(s, ns);
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0)
            compare_files(s, pn, ns, verbose);
        read_ncslab_par(s, ns, "ncs_open_par(ncslab's file)");
        read_ncslab_par(s, pn, "ncs_open_par(PnetCDF's file)");
        read_pnetcdf(s, ns, "ncmpi_open(ncslab's file)");
        read_pnetcdf(s, pn, "ncmpi_open(PnetCDF's file)");
        if (rank == 0) {
            read_serial(s, ns, "ncs_open(ncslab's file)");
            read_serial(s, pn, "ncs_open(PnetCDF's file)");
        }
        long bad = failures - case_before, all = 0;
        MPI_Allreduce(&bad, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
        if (rank == 0 && all == 0 && !keep) {
            remove(pn);
            remove(ns);
        }
        if (rank == 0 && all != 0 && !verbose)
            describe_schema(s, 0);
        free_schema(s);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    long bad = failures - before, all = 0;
    MPI_Allreduce(&bad, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("seed %llu: %d format%s, %s\n", seed, nf, nf > 1 ? "s" : "",
               all ? "FAILED" : "ok");
        if (all)
            printf("  reproduce: mpirun -n %d par_rand%s%s%s --seed %llu --keep --verbose\n",
                   nprocs, use_hints ? " --hints" : "", use_redef ? " --redef" : "",
                   use_nb ? " --nonblocking" : "", seed);
        fflush(stdout);
    }
    return all != 0;
}

static unsigned long long parse_seed(const char *arg)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(arg, &end, 10);
    if (errno || *end || end == arg) {
        if (rank == 0)
            fprintf(stderr, "par_rand: bad number \"%s\"\n", arg);
        MPI_Finalize();
        exit(2);
    }
    return v;
}

int main(int argc, char **argv)
{
    unsigned long long seeds[256], first = 1, count = 20;
    int nseeds = 0, verbose = 0, keep = 0, failed = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    if (nprocs > 64) {      /* the cut arrays of decompose */
        if (rank == 0)
            fprintf(stderr, "par_rand: at most 64 processes\n");
        MPI_Finalize();
        return 2;
    }
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc && nseeds < 256)
            seeds[nseeds++] = parse_seed(argv[++i]);
        else if (strcmp(argv[i], "--first") == 0 && i + 1 < argc)
            first = parse_seed(argv[++i]);
        else if (strcmp(argv[i], "--count") == 0 && i + 1 < argc)
            count = parse_seed(argv[++i]);
        else if (strcmp(argv[i], "--dir") == 0 && i + 1 < argc)
            dir = argv[++i];
        else if (strcmp(argv[i], "--keep") == 0)
            keep = 1;
        else if (strcmp(argv[i], "--hints") == 0)
            use_hints = 1;
        else if (strcmp(argv[i], "--redef") == 0)
            use_redef = 1;
        else if (strcmp(argv[i], "--nonblocking") == 0)
            use_nb = 1;
        else if (strcmp(argv[i], "--verbose") == 0)
            verbose = 1;
        else {
            if (rank == 0)
                fprintf(stderr, "usage: par_rand [--seed S]... [--first S --count K] "
                        "[--dir DIR] [--hints] [--redef] [--nonblocking] [--keep] "
                        "[--verbose]\n");
            MPI_Finalize();
            return 2;
        }
    }
    if (rank == 0)
        printf("par_rand: %d process%s\n", nprocs, nprocs > 1 ? "es" : "");
    if (nseeds > 0)
        for (int i = 0; i < nseeds; i++)
            failed |= run_seed(seeds[i], verbose, keep);
    else
        for (unsigned long long sd = first; sd < first + count; sd++)
            failed |= run_seed(sd, verbose, keep);
    MPI_Finalize();
    return failed;
}
