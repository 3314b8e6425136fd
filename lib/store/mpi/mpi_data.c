/*
 * mpi_data.c -- the parallel classic back end's data path: a validated
 * request's runs (the hyperslab engine's, in increasing file order) become
 * one MPI file type, each run a block of bytes or a vector of elements;
 * the elements travel through a staging buffer in the file's external
 * form, in run order, converted on the way in or out; one MPI-IO call
 * moves them: MPI_File_write_all / read_all on the collective handle for
 * a variable in collective mode, the independent calls on this process's
 * own handle otherwise.
 *
 * A collective call is agreed before anything moves: every process
 * contributes its status (a refusal of the API layer comes through
 * ncsi_mpi_skip) and the records its put needs; when any process failed,
 * none transfers and every one returns an error; else the record count
 * becomes the largest needed, and after the transfer the processes agree
 * on its outcome too.  A process with nothing to move takes part with an
 * empty view.
 */
#include "mpi_store.h"

#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The largest block or vector one entry of the file type holds. */
#define BLOCK_MAX ((uint64_t)1 << 30)

typedef struct run {
    uint64_t off;            /* file offset of the first element */
    uint64_t n;              /* elements */
    uint64_t gap;            /* bytes between them in the file */
    uint64_t pos;            /* byte offset in the staging buffer */
    ptrdiff_t moff, mstep;   /* memory, in elements */
} run;

typedef struct plan {
    ncs_file *f;
    const ncs_var *v;
    int memtype;
    size_t msz;
    int put;
    const unsigned char *src; /* the caller's buffer (put) */
    unsigned char *stage;
    uint64_t nstage;
    run *runs;
    size_t nruns, cap;
    int erange;
    int kept;                 /* stage is the file's kept buffer */
} plan;

static int add_run(void *ctx, uint64_t rec, uint64_t elem, uint64_t n, uint64_t fstep,
                   ptrdiff_t moff, ptrdiff_t mstep)
{
    plan *p = ctx;
    const ncs_var *v = p->v;
    run *r;
    if (p->nruns == p->cap) {
        size_t ncap = p->cap ? 2 * p->cap : 16;
        run *q = realloc(p->runs, ncap * sizeof *q);
        if (q == NULL)
            return NCS_ERR(NCS_ENOMEM);
        p->runs = q;
        p->cap = ncap;
    }
    r = &p->runs[p->nruns++];
    r->off = v->begin + rec * MS(p->f)->cl.lay.recsize + elem * v->xsz;
    r->n = n;
    r->gap = fstep * v->xsz;
    r->pos = p->nstage;
    r->moff = moff;
    r->mstep = mstep;
    p->nstage += n * v->xsz;
    if (p->put &&
        ncsi_encode(v->type, p->stage + r->pos, (size_t)n, p->memtype,
                    p->src + moff * (ptrdiff_t)p->msz, mstep, p->f->version) == NCS_ERANGE)
        p->erange = 1;
    return NCS_NOERR;
}

/* The staging buffer single transfers share, kept between them (and
 * between files: a program writes many files one after another) up to
 * NCSI_MPI_STAGE_KEEP bytes, so that a large put costs no fresh pages
 * each time; a transfer that finds it taken (another thread's) makes its
 * own. */
static pthread_mutex_t kept_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned char *kept_buf;
static size_t kept_cap;
static int kept_busy;

static unsigned char *kept_take(size_t n)
{
    unsigned char *b = NULL;
    pthread_mutex_lock(&kept_lock);
    if (!kept_busy) {
        if (kept_cap < n) {
            unsigned char *g = realloc(kept_buf, n);
            if (g != NULL) {
                kept_buf = g;
                kept_cap = n;
            }
        }
        if (kept_cap >= n) {
            kept_busy = 1;
            b = kept_buf;
        }
    }
    pthread_mutex_unlock(&kept_lock);
    return b;
}

static void kept_give(void)
{
    pthread_mutex_lock(&kept_lock);
    kept_busy = 0;
    pthread_mutex_unlock(&kept_lock);
}

static void plan_free(plan *p)
{
    if (p->kept)
        kept_give();
    else
        free(p->stage);
    free(p->runs);
}

/* The staging buffer of n bytes: the kept one when keep (a single
 * transfer) and it is free; else its own (zeroed for a get, what a read
 * past the end of the file leaves). */
static unsigned char *stage_for(plan *p, size_t n, int keep, int put)
{
    if (n == 0)
        n = 1;
    if (keep && n <= NCSI_MPI_STAGE_KEEP) {
        unsigned char *b = kept_take(n);
        if (b != NULL) {
            p->kept = 1;
            return b;
        }
    }
    return put ? ncsi_malloc(n) : ncsi_calloc(n, 1);
}

/* The runs of s and the staging buffer (for a put, filled); keep: the
 * file's kept buffer may serve (a get then zeroes what its read does not
 * reach). */
static int plan_build_kept(plan *p, ncs_file *f, int varid, const ncs_slab *s, int memtype,
                           const void *buf, int put, int keep)
{
    const ncs_var *v = &f->model.vars[varid];
    memset(p, 0, sizeof *p);
    p->f = f;
    p->v = v;
    p->memtype = memtype;
    p->msz = ncsi_type_size(memtype);
    p->put = put;
    p->src = buf;
    if (s->nelems > (uint64_t)PTRDIFF_MAX / v->xsz)
        return NCS_ERR(NCS_ENOMEM);
    p->stage = stage_for(p, (size_t)(s->nelems * v->xsz), keep, put);
    if (p->stage == NULL)
        return NCS_ERR(NCS_ENOMEM);
    return ncsi_slab_runs(s, v->dsizes, add_run, p);
}

static int plan_build(plan *p, ncs_file *f, int varid, const ncs_slab *s, int memtype,
                      const void *buf, int put)
{
    return plan_build_kept(p, f, varid, s, memtype, buf, put, 0);
}

/* The file type of p's runs (MPI_BYTE where there are none), committed,
 * from *dispp: a single block of bytes is MPI_BYTE from where it starts
 * (MPI-IO's contiguous case, which its collective code takes the fast way). */
static int file_type(const plan *p, MPI_Datatype *tp, MPI_Offset *dispp)
{
    size_t cap = 0, nb = 0;
    int *lens = NULL;
    MPI_Aint *disps = NULL;
    MPI_Datatype *types = NULL;
    int status = NCS_NOERR, err = MPI_SUCCESS;
    size_t xsz;

    *tp = MPI_BYTE;
    *dispp = 0;
    if (p->nruns == 0)
        return NCS_NOERR;
    xsz = p->v->xsz;
    for (size_t i = 0; i < p->nruns && status == NCS_NOERR; i++) {
        const run *r = &p->runs[i];
        uint64_t left = r->n, off = r->off;
        int contiguous = r->gap == xsz || r->n == 1;
        while (left > 0 && status == NCS_NOERR) {
            uint64_t k = contiguous ? (left * xsz > BLOCK_MAX ? BLOCK_MAX / xsz : left)
                                    : (left > BLOCK_MAX ? BLOCK_MAX : left);
            if (contiguous && nb > 0 && types[nb - 1] == MPI_BYTE &&
                (uint64_t)disps[nb - 1] + (uint64_t)lens[nb - 1] == off &&
                (uint64_t)lens[nb - 1] + k * xsz <= BLOCK_MAX) {
                lens[nb - 1] += (int)(k * xsz);          /* follows on: one block */
            } else {
                if (nb == cap) {
                    size_t ncap = cap ? 2 * cap : 16;
                    int *l = realloc(lens, ncap * sizeof *l);
                    MPI_Aint *d = l ? realloc(disps, ncap * sizeof *d) : NULL;
                    MPI_Datatype *t = d ? realloc(types, ncap * sizeof *t) : NULL;
                    if (l != NULL)
                        lens = l;
                    if (d != NULL)
                        disps = d;
                    if (t == NULL) {
                        status = NCS_ERR(NCS_ENOMEM);
                        break;
                    }
                    types = t;
                    cap = ncap;
                }
                disps[nb] = (MPI_Aint)off;
                if (contiguous) {
                    lens[nb] = (int)(k * xsz);
                    types[nb] = MPI_BYTE;
                } else {
                    lens[nb] = 1;
                    err = MPI_Type_create_hvector((int)k, (int)xsz, (MPI_Aint)r->gap, MPI_BYTE,
                                                  &types[nb]);
                    if (err != MPI_SUCCESS) {
                        status = ncsi_mpi_status(err);
                        break;
                    }
                }
                nb++;
            }
            off += contiguous ? k * xsz : k * r->gap;
            left -= k;
        }
    }
    if (status == NCS_NOERR && nb > INT_MAX)
        status = NCS_ERR(NCS_ENOMEM);
    if (status == NCS_NOERR && nb == 1 && types[0] == MPI_BYTE) {
        *dispp = (MPI_Offset)disps[0];
    } else if (status == NCS_NOERR && nb > 0) {
        err = MPI_Type_create_struct((int)nb, lens, disps, types, tp);
        if (err == MPI_SUCCESS)
            err = MPI_Type_commit(tp);
        status = ncsi_mpi_status(err);
        if (status != NCS_NOERR)
            *tp = MPI_BYTE;
    }
    for (size_t i = 0; i < nb; i++)
        if (types[i] != MPI_BYTE)
            MPI_Type_free(&types[i]);
    free(lens);
    free(disps);
    free(types);
    return status;
}

/* The memory side: nstage bytes from the staging buffer, as count items
 * of *tp (MPI counts are ints). */
static int memory_type(uint64_t n, MPI_Datatype *tp, int *count)
{
    int err;
    *tp = MPI_BYTE;
    *count = 0;
    if (n <= (uint64_t)INT_MAX) {
        *count = (int)n;
        return NCS_NOERR;
    }
    /* whole blocks of BLOCK_MAX bytes, then the rest */
    {
        MPI_Datatype block, rest, parts[2];
        int lens[2];
        MPI_Aint disps[2];
        uint64_t nblocks = n / BLOCK_MAX, tail = n % BLOCK_MAX;
        err = MPI_Type_contiguous((int)BLOCK_MAX, MPI_BYTE, &block);
        if (err != MPI_SUCCESS)
            return ncsi_mpi_status(err);
        err = MPI_Type_contiguous((int)nblocks, block, &parts[0]);
        if (err != MPI_SUCCESS) {
            MPI_Type_free(&block);
            return ncsi_mpi_status(err);
        }
        rest = MPI_BYTE;
        parts[1] = rest;
        lens[0] = 1;
        lens[1] = (int)tail;
        disps[0] = 0;
        disps[1] = (MPI_Aint)(nblocks * BLOCK_MAX);
        err = MPI_Type_create_struct(2, lens, disps, parts, tp);
        if (err == MPI_SUCCESS) {
            err = MPI_Type_commit(tp);
            if (err != MPI_SUCCESS)
                MPI_Type_free(tp);
        }
        MPI_Type_free(&parts[0]);
        MPI_Type_free(&block);
        if (err != MPI_SUCCESS) {
            *tp = MPI_BYTE;
            return ncsi_mpi_status(err);
        }
        *count = 1;
        return NCS_NOERR;
    }
}

/* After a get of p into its kept buffer: zeros where the read, past the
 * end of the file, did not reach. */
static void zero_unread(const plan *p, MPI_Status *st)
{
    MPI_Count got = 0;
    if (p->put || !p->kept || p->nstage == 0)
        return;
    if (MPI_Get_elements_x(st, MPI_BYTE, &got) != MPI_SUCCESS || got < 0)
        got = 0;
    if ((uint64_t)got < p->nstage)
        memset(p->stage + got, 0, (size_t)(p->nstage - (uint64_t)got));
}

/* Moves p's staging buffer, one block of bytes, to or from off through
 * fh with an independent call; fh's view is the bytes of the file. */
static int move_at(const plan *p, MPI_File fh, MPI_Offset off, int put)
{
    MPI_Datatype mt;
    MPI_Status st;
    int count, err;
    int status = memory_type(p->nstage, &mt, &count);
    if (status != NCS_NOERR)
        return status;
    err = put ? MPI_File_write_at(fh, off, p->stage, count, mt, &st)
              : MPI_File_read_at(fh, off, p->stage, count, mt, &st);
    status = ncsi_mpi_status(err);
    if (status == NCS_NOERR)
        zero_unread(p, &st);
    if (mt != MPI_BYTE)
        MPI_Type_free(&mt);
    return status;
}

/* Moves p's staging buffer to or from the file through fh, collectively
 * (fh is the collective handle of ms, whose view it leaves) or not. */
static int move(mpist *ms, const plan *p, MPI_File fh, int collective, int put)
{
    MPI_Datatype ft = MPI_BYTE, mt = MPI_BYTE;
    MPI_Offset disp = 0;
    MPI_Status st;
    int count = 0, err;
    int status = file_type(p, &ft, &disp);
    /* one block of bytes (or none) on the independent handle, whose view
     * stays the bytes of the file: no view to set */
    if (!collective && ft == MPI_BYTE)
        return status != NCS_NOERR ? status : move_at(p, fh, disp, put);
    if (status == NCS_NOERR)
        status = memory_type(p->nstage, &mt, &count);
    /* (a process whose type could not be made takes part with nothing) */
    if (status != NCS_NOERR)
        count = 0;
    if (collective)
        ms->fh_viewed = 1;
    err = MPI_File_set_view(fh, disp, MPI_BYTE, ft, "native", MPI_INFO_NULL);
    if (err == MPI_SUCCESS) {
        void *b = p->stage;
        if (put)
            err = collective ? MPI_File_write_all(fh, b, count, mt, &st)
                             : MPI_File_write(fh, b, count, mt, &st);
        else
            err = collective ? MPI_File_read_all(fh, b, count, mt, &st)
                             : MPI_File_read(fh, b, count, mt, &st);
    }
    if (status == NCS_NOERR)
        status = ncsi_mpi_status(err);
    if (status == NCS_NOERR)
        zero_unread(p, &st);
    /* the independent handle keeps the default view between calls (rank 0
     * writes the header through it) */
    if (!collective)
        MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
    if (ft != MPI_BYTE)
        MPI_Type_free(&ft);
    if (mt != MPI_BYTE)
        MPI_Type_free(&mt);
    return status;
}

/* ---- a collective call whose pieces do not interleave -------------------- */

/* The bytes of the file p's runs span: [*lo, *hi), empty when none;
 * 1 when they are one block of bytes, the runs following on in the order
 * of the staging buffer. */
static int plan_extent(const plan *p, uint64_t *lo, uint64_t *hi)
{
    int block = 1;
    *lo = *hi = 0;
    for (size_t i = 0; i < p->nruns; i++) {
        const run *r = &p->runs[i];
        uint64_t a = r->off, b = r->off + (r->n - 1) * r->gap + p->v->xsz;
        if (r->n > 1 && r->gap != p->v->xsz)
            block = 0;
        if (i > 0 && a != *hi)
            block = 0;
        if (i == 0 || a < *lo)
            *lo = a;
        if (b > *hi)
            *hi = b;
    }
    return block;
}

static int by_start(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* The agreement of a collective call (p NULL: nothing to move): every
 * process's status and the records its put needs, combined as
 * ncsi_mpi_agree does, in one MPI_Allgather of each process's extent
 * too; *alone: the call may move as independent calls, every process's
 * piece being one block of bytes (or none), no two overlapping, and
 * every process's hints allowing it (collective). */
static int agree_extents(mpist *ms, const plan *p, int status, int put, uint64_t *recs,
                         int *alone)
{
    uint64_t mine[NCSI_MPI_EXT], lo = 0, hi = 0, most = 0, end = 0, *span = ms->ext;
    int64_t lowest = 0, highest = 0;
    int allow = 1, block = 1;
    size_t n = 0;
    *alone = 0;
    if (ms->ext == NULL)
        return ncsi_mpi_agree(ms, status, recs);
    if (p != NULL)
        block = plan_extent(p, &lo, &hi);
    mine[0] = (uint64_t)(int64_t)status;
    mine[1] = *recs;
    mine[2] = lo;
    mine[3] = hi;
    mine[4] = (put ? ms->alone_put : ms->alone_get) && block;
    if (MPI_Allgather(mine, NCSI_MPI_EXT, MPI_UINT64_T, ms->ext, NCSI_MPI_EXT, MPI_UINT64_T,
                      ms->comm) != MPI_SUCCESS)
        return status != NCS_NOERR ? status : NCS_ERR(NCS_EIO);
    for (int i = 0; i < ms->nprocs; i++) {
        const uint64_t *w = ms->ext + (size_t)i * NCSI_MPI_EXT;
        int64_t s = (int64_t)w[0];
        uint64_t a = w[2], b = w[3];
        lowest = s < lowest ? s : lowest;
        highest = s > highest ? s : highest;
        most = w[1] > most ? w[1] : most;
        allow &= w[4] != 0;
        if (b > a) {
            /* the non-empty extents, in place ahead of the words read */
            span[2 * n] = a;
            span[2 * n + 1] = b;
            n++;
        }
    }
    qsort(span, n, 2 * sizeof *span, by_start);
    /* (each start against the furthest end before it) */
    for (size_t k = 0; allow && k < n; k++) {
        if (k > 0 && span[2 * k] < end)
            allow = 0;
        if (span[2 * k + 1] > end)
            end = span[2 * k + 1];
    }
    *alone = allow;
    *recs = most;
    return ncsi_mpi_combine(status, lowest, highest);
}

/* Moves p's one block of bytes (or nothing) through the collective handle
 * with the independent calls (every process of the call does). */
static int move_alone(mpist *ms, const plan *p, int put)
{
    int status = ncsi_mpi_bytes_view(ms);
    if (status != NCS_NOERR || p == NULL || p->nstage == 0)
        return status;
    /* (one block: it starts where the first run does) */
    return move_at(p, ms->fh, (MPI_Offset)p->runs[0].off, put);
}

static void grow_records(ncs_file *f, uint64_t recs)
{
    if (recs > f->model.numrecs) {
        f->model.numrecs = recs;
        f->flags |= NCSI_F_NDIRTY;
    }
}

/* One data call: a plan (NULL: nothing to move, with status), agreed and
 * moved. */
static int transfer(ncs_file *f, int varid, const plan *p, int status, uint64_t recs, int put)
{
    mpist *ms = MS(f);
    int collective = ncsi_mpi_access(ms, varid) == NCS_COLLECTIVE;
    uint64_t recs_all = recs;
    static const plan none;
    if (collective) {
        int alone;
        status = agree_extents(ms, p, status, put, &recs_all, &alone);
        if (status != NCS_NOERR)
            return status;
        if (alone)
            status = ncsi_mpi_moved(ms, move_alone(ms, p, put));
        else
            status = ncsi_mpi_moved(ms, move(ms, p != NULL ? p : &none, ms->fh, 1, put));
    } else {
        MPI_File ifh;
        if (status != NCS_NOERR || p == NULL)
            return status;
        status = ncsi_mpi_indep(ms, &ifh);
        if (status == NCS_NOERR)
            status = move(ms, p, ifh, 0, put);
    }
    /* (a get needs no records: recs is 0 on every process of its call) */
    if (status == NCS_NOERR)
        grow_records(f, recs_all);
    return status;
}

int ncsi_mpi_put(ncs_file *f, int varid, const ncs_slab *s, int memtype, const void *buf)
{
    plan p;
    int status = plan_build_kept(&p, f, varid, s, memtype, buf, 1, 1);
    status = transfer(f, varid, &p, status, s->recs_needed, 1);
    if (status == NCS_NOERR && p.erange)
        status = NCS_ERR(NCS_ERANGE);
    plan_free(&p);
    return status;
}

int ncsi_mpi_get(ncs_file *f, int varid, const ncs_slab *s, int memtype, void *buf)
{
    plan p;
    int status = plan_build_kept(&p, f, varid, s, memtype, NULL, 0, 1);
    status = transfer(f, varid, &p, status, 0, 0);
    if (status == NCS_NOERR) {
        unsigned char *mem = buf;
        for (size_t i = 0; i < p.nruns; i++) {
            const run *r = &p.runs[i];
            if (ncsi_decode(p.v->type, p.stage + r->pos, (size_t)r->n, memtype,
                            mem + r->moff * (ptrdiff_t)p.msz, r->mstep,
                            f->version) == NCS_ERANGE)
                p.erange = 1;
        }
        if (p.erange)
            status = NCS_ERR(NCS_ERANGE);
    }
    plan_free(&p);
    return status;
}

int ncsi_mpi_skip(ncs_file *f, int varid, int put, int status)
{
    if (ncsi_mpi_access(MS(f), varid) != NCS_COLLECTIVE)
        return status;
    return transfer(f, varid, NULL, status, 0, put);
}

int ncsi_mpi_fill_range(ncs_file *f, uint64_t off, uint64_t n, const unsigned char *pat,
                        size_t psz)
{
    mpist *ms = MS(f);
    uint64_t nel = n / psz, per = nel / (uint64_t)ms->nprocs, extra = nel % (uint64_t)ms->nprocs;
    uint64_t r = (uint64_t)ms->rank;
    uint64_t first = r * per + (r < extra ? r : extra), mine = per + (r < extra ? 1 : 0);
    uint64_t most = per + (extra > 0), chunk = (1u << 20) / psz, rounds;
    unsigned char *buf;
    int status = NCS_NOERR, err;
    if (chunk == 0)
        chunk = 1;
    rounds = (most + chunk - 1) / chunk;
    buf = ncsi_malloc((size_t)(chunk * psz));
    if (buf == NULL)
        status = NCS_ERR(NCS_ENOMEM);
    for (uint64_t i = 0; buf != NULL && i < chunk; i++)
        memcpy(buf + i * psz, pat, psz);
    status = ncsi_mpi_agree(ms, status, NULL);
    if (status != NCS_NOERR) {
        free(buf);
        return status;
    }
    status = ncsi_mpi_bytes_view(ms);
    for (uint64_t i = 0; i < rounds; i++) {
        uint64_t at = i * chunk, k = at < mine ? (mine - at < chunk ? mine - at : chunk) : 0;
        MPI_Status st;
        err = MPI_File_write_at_all(ms->fh, (MPI_Offset)(off + (first + at) * psz), buf,
                                    (int)(k * psz), MPI_BYTE, &st);
        if (status == NCS_NOERR)
            status = ncsi_mpi_status(err);
    }
    free(buf);
    return ncsi_mpi_agree(ms, status, NULL);
}

/* ---- nonblocking requests: one collective call for a wait's puts, one
 * for its gets --------------------------------------------------------------- */

/* A piece of a batch: len bytes at file offset off, n elements of request
 * req, from (to) its memory at moff, mstep apart (in elements); once the
 * pieces are sorted by offset, at pos in the staging buffer, which holds
 * them in file order, so that the memory side of the MPI-IO call is one
 * block of bytes. */
typedef struct blk {
    uint64_t off, len, pos;
    ptrdiff_t moff, mstep;
    int req, varid;
} blk;

static int by_off(const void *a, const void *b)
{
    const blk *x = a, *y = b;
    return x->off < y->off ? -1 : x->off > y->off ? 1 : 0;
}

/* Merges the sorted a[0..na-1] and b[0..nb-1] into out, stably. */
static void merge_pieces(const blk *a, size_t na, const blk *b, size_t nb, blk *out)
{
    size_t i = 0, j = 0;
    while (i < na && j < nb)
        *out++ = b[j].off < a[i].off ? b[j++] : a[i++];
    while (i < na)
        *out++ = a[i++];
    while (j < nb)
        *out++ = b[j++];
}

/* The end of the ascending run of p[0..n-1] that starts at i. */
static size_t run_end(const blk *p, size_t i, size_t n)
{
    while (++i < n && p[i].off >= p[i - 1].off)
        ;
    return i;
}

/* Sorts b[0..n-1] by file offset, stably, through tmp (as many pieces).
 * A wait's pieces come request by request, and those of one variable
 * mostly ascend already (a decomposition's pieces in order), while the
 * variables alternate: the pieces are gathered variable by variable first
 * (a counting sort on the variable, when there are no more variables than
 * pieces) and the ascending runs then merged pairwise, a few passes
 * instead of qsort's n log n calls of a comparison. */
static int sort_pieces(blk *b, blk *tmp, size_t n, int nvars)
{
    blk *src = b, *dst = tmp;
    size_t runs;
    if (nvars > 0 && (size_t)nvars <= n) {
        size_t *at = ncsi_calloc((size_t)nvars + 1, sizeof *at);
        if (at == NULL)
            return NCS_ERR(NCS_ENOMEM);
        for (size_t i = 0; i < n; i++)
            at[b[i].varid + 1]++;
        for (int v = 0; v < nvars; v++)
            at[v + 1] += at[v];
        for (size_t i = 0; i < n; i++)
            tmp[at[b[i].varid]++] = b[i];
        free(at);
        src = tmp;
        dst = b;
    }
    do {
        blk *t;
        runs = 0;
        for (size_t i = 0; i < n; runs++) {
            size_t m = run_end(src, i, n), e = m < n ? run_end(src, m, n) : n;
            merge_pieces(src + i, m - i, src + m, e - m, dst + i);
            i = e;
        }
        t = src;
        src = dst;
        dst = t;
    } while (runs > 1);
    if (src != b)
        memcpy(b, src, n * sizeof *b);
    return NCS_NOERR;
}

typedef struct bwalk {
    ncs_file *f;
    const ncs_var *v;
    int req, varid;
    blk *b;
    size_t n, cap;
} bwalk;

static int bwalk_add(bwalk *w, uint64_t off, uint64_t len, ptrdiff_t moff, ptrdiff_t mstep)
{
    if (w->n == w->cap) {
        size_t ncap = w->cap ? 2 * w->cap : 256;
        blk *q = realloc(w->b, ncap * sizeof *q);
        if (q == NULL)
            return NCS_ERR(NCS_ENOMEM);
        w->b = q;
        w->cap = ncap;
    }
    w->b[w->n] = (blk){ .off = off, .len = len, .moff = moff, .mstep = mstep, .req = w->req,
                        .varid = w->varid };
    w->n++;
    return NCS_NOERR;
}

/* A run of one request: one piece where its elements follow on in the
 * file (in blocks of at most BLOCK_MAX bytes), else one an element. */
static int batch_run(void *ctx, uint64_t rec, uint64_t elem, uint64_t n, uint64_t fstep,
                     ptrdiff_t moff, ptrdiff_t mstep)
{
    bwalk *w = ctx;
    uint64_t xsz = w->v->xsz;
    uint64_t off = w->v->begin + rec * MS(w->f)->cl.lay.recsize + elem * xsz, gap = fstep * xsz;
    int status = NCS_NOERR;
    if (gap == xsz || n == 1) {
        uint64_t most = BLOCK_MAX / xsz;
        for (uint64_t done = 0; status == NCS_NOERR && done < n;) {
            uint64_t k = n - done > most ? most : n - done;
            status = bwalk_add(w, off + done * xsz, k * xsz, moff + (ptrdiff_t)done * mstep,
                               mstep);
            done += k;
        }
    } else {
        for (uint64_t j = 0; status == NCS_NOERR && j < n; j++)
            status = bwalk_add(w, off + j * gap, xsz, moff + (ptrdiff_t)j * mstep, mstep);
    }
    return status;
}

/* The fewest equally spaced blocks of one length a batch's file type
 * describes as one vector: MPI builds a vector in one step where an
 * indexed type takes a step a block, and decodes it faster when the view
 * is set (a wait's pieces of a cyclic decomposition are such runs). */
#define VEC_MIN 4

/* The file type of the blocks lens/disps[0..k-1] (sorted, none
 * overlapping), committed: every run of at least VEC_MIN blocks of one
 * length equally spaced one vector, the other blocks as they are. */
static int blocks_type(const int *lens, const MPI_Aint *disps, size_t k, MPI_Datatype *ft)
{
    int *el = NULL;
    MPI_Aint *ed = NULL;
    MPI_Datatype *et = NULL;
    size_t ne = 0, nvec = 0;
    int err = MPI_SUCCESS;

    el = ncsi_malloc(k * sizeof *el);
    ed = ncsi_malloc(k * sizeof *ed);
    et = ncsi_malloc(k * sizeof *et);
    if (el == NULL || ed == NULL || et == NULL) {
        err = MPI_ERR_NO_MEM;
        goto cleanup;
    }
    for (size_t i = 0; i < k;) {
        size_t j = i + 1;
        MPI_Aint step = i + 1 < k ? disps[i + 1] - disps[i] : 0;
        while (j < k && lens[j] == lens[i] && disps[j] - disps[j - 1] == step)
            j++;
        ed[ne] = disps[i];
        if (j - i >= VEC_MIN) {
            el[ne] = 1;
            err = MPI_Type_create_hvector((int)(j - i), lens[i], step, MPI_BYTE, &et[ne]);
            if (err != MPI_SUCCESS)
                goto cleanup;
            nvec++;
            i = j;
        } else {
            el[ne] = lens[i];
            et[ne] = MPI_BYTE;
            i++;
        }
        ne++;
    }
    err = nvec > 0 ? MPI_Type_create_struct((int)ne, el, ed, et, ft)
                   : MPI_Type_create_hindexed((int)k, lens, disps, MPI_BYTE, ft);
    if (err == MPI_SUCCESS) {
        err = MPI_Type_commit(ft);
        if (err != MPI_SUCCESS)
            MPI_Type_free(ft);
    }
cleanup:
    for (size_t i = 0; et != NULL && i < ne; i++)
        if (et[i] != MPI_BYTE)
            MPI_Type_free(&et[i]);
    if (err != MPI_SUCCESS)
        *ft = MPI_BYTE;
    free(el);
    free(ed);
    free(et);
    return err;
}

/* The file type of the sorted pieces b[0..n-1], those that follow on
 * joined, committed; MPI_BYTE for none. */
static int batch_file_type(const blk *b, size_t n, MPI_Datatype *ft)
{
    int *lens;
    MPI_Aint *disps;
    size_t k = 0;
    int err;
    *ft = MPI_BYTE;
    if (n == 0)
        return NCS_NOERR;
    lens = ncsi_malloc(n * sizeof *lens);
    disps = ncsi_malloc(n * sizeof *disps);
    if (lens == NULL || disps == NULL) {
        free(lens);
        free(disps);
        return NCS_ERR(NCS_ENOMEM);
    }
    for (size_t i = 0; i < n; i++) {
        if (k > 0 && (uint64_t)disps[k - 1] + (uint64_t)lens[k - 1] == b[i].off &&
            (uint64_t)lens[k - 1] + b[i].len <= BLOCK_MAX) {
            lens[k - 1] += (int)b[i].len;
        } else {
            lens[k] = (int)b[i].len;
            disps[k] = (MPI_Aint)b[i].off;
            k++;
        }
    }
    err = k > INT_MAX ? MPI_ERR_COUNT : blocks_type(lens, disps, k, ft);
    free(lens);
    free(disps);
    return err == MPI_ERR_COUNT ? NCS_ERR(NCS_ENOMEM) : ncsi_mpi_status(err);
}

/* Converts piece b between the staging buffer and its request's memory:
 * encodes for a put, decodes for a get; 1 for a value out of range. */
static int batch_convert(ncs_file *f, ncsi_req *const *reqs, const blk *b,
                         unsigned char *stage, int put)
{
    const ncsi_req *q = reqs[b->req];
    const ncs_var *v = &f->model.vars[q->varid];
    size_t n = (size_t)(b->len / v->xsz);
    unsigned char *mem = (unsigned char *)q->buf + b->moff * (ptrdiff_t)ncsi_type_size(q->memtype);
    int s = put ? ncsi_encode(v->type, stage + b->pos, n, q->memtype, mem, b->mstep, f->version)
                : ncsi_decode(v->type, stage + b->pos, n, q->memtype, mem, b->mstep, f->version);
    return s == NCS_ERANGE;
}

/* A wait's put whose pieces are many and small, on some process (at least
 * AGGR_PIECES blocks of bytes averaging under AGGR_SMALL), asks for an
 * aggregator on every process in the info of its view, unless a process's
 * hints name cb_nodes.  OMPIO gives a collective call of less than its
 * buffer size (32 MiB) one aggregator, which then builds the exchange of
 * every process's pieces alone (twice the instructions of each other
 * process in the E3SM-like kernel at 4 processes, doc/parallel.md
 * "Speed"); its other work grows with the pieces of all processes on
 * every process whatever the aggregators.  ROMIO reads cb_nodes when the
 * file opens only. */
#define AGGR_PIECES 4096
#define AGGR_SMALL 4096

/* The info of a batch's view: cb_nodes the number of processes when want
 * (MPI_INFO_NULL otherwise, or when it cannot be made). */
static MPI_Info aggr_info(const mpist *ms, int want)
{
    MPI_Info info = MPI_INFO_NULL;
    char val[24];
    if (!want || ms->nprocs < 2 || MPI_Info_create(&info) != MPI_SUCCESS)
        return MPI_INFO_NULL;
    snprintf(val, sizeof val, "%d", ms->nprocs);
    if (MPI_Info_set(info, "cb_nodes", val) != MPI_SUCCESS)
        MPI_Info_free(&info);
    return info;
}

/* One kind (put or get) of a batch: every process's requests of that kind
 * in one collective call, through one staging buffer in file order; where
 * some process's pieces overlap, one collective call a request instead. */
static int batch_kind(ncs_file *f, ncsi_req *const *reqs, int n, int *st, int put)
{
    mpist *ms = MS(f);
    bwalk w;
    unsigned char *stage = NULL;
    int k = 0, status = NCS_NOERR, overlap = 0, kept = 0, sorted = 1;
    int *erange = NULL;
    long long in[6], out[6] = { 0 }, maxk;
    uint64_t recs = 0, total = 0, nblk = 0;
    static const plan none;

    memset(&w, 0, sizeof w);
    w.f = f;
    for (int i = 0; i < n; i++) {
        const ncsi_req *q = reqs[i];
        uint64_t b;
        if (q->put != put)
            continue;
        k++;
        if (ncsi_mul_u64(q->slab.nelems, f->model.vars[q->varid].xsz, &b) ||
            ncsi_add_u64(total, b, &total))
            status = NCS_ERR(NCS_ENOMEM);
        if (q->slab.recs_needed > recs)
            recs = q->slab.recs_needed;
    }
    if (status == NCS_NOERR && total > (uint64_t)PTRDIFF_MAX)
        status = NCS_ERR(NCS_ENOMEM);
    if (status == NCS_NOERR && k > 0) {
        size_t need = total > 0 ? (size_t)total : 1;
        stage = need <= NCSI_MPI_STAGE_KEEP ? kept_take(need) : NULL;
        kept = stage != NULL;
        if (stage == NULL)
            stage = ncsi_malloc(need);
        erange = ncsi_calloc((size_t)n, sizeof *erange);
        if (stage == NULL || erange == NULL)
            status = NCS_ERR(NCS_ENOMEM);
    }
    for (int i = 0; status == NCS_NOERR && i < n; i++) {
        const ncsi_req *q = reqs[i];
        if (q->put != put)
            continue;
        w.v = &f->model.vars[q->varid];
        w.req = i;
        w.varid = q->varid;
        status = ncsi_slab_runs(&q->slab, w.v->dsizes, batch_run, &w);
    }
    if (status == NCS_NOERR) {
        uint64_t pos = 0;
        for (size_t i = 1; i < w.n && sorted; i++)
            sorted = w.b[i - 1].off <= w.b[i].off;
        if (!sorted) {
            blk *tmp = ncsi_malloc(w.n * sizeof *tmp);
            /* (short of memory: in place) */
            if (tmp == NULL || sort_pieces(w.b, tmp, w.n, f->model.nvars) != NCS_NOERR)
                qsort(w.b, w.n, sizeof *w.b, by_off);
            free(tmp);
        }
        for (size_t i = 0; i < w.n; i++) {
            if (i > 0 && w.b[i].off < w.b[i - 1].off + w.b[i - 1].len)
                overlap = 1;
            if (i == 0 || w.b[i].off != w.b[i - 1].off + w.b[i - 1].len)
                nblk++;
            w.b[i].pos = pos;
            pos += w.b[i].len;
            if (put && batch_convert(f, reqs, &w.b[i], stage, 1))
                erange[w.b[i].req] = 1;
        }
        if (!put && total > 0)
            memset(stage, 0, (size_t)total);   /* what a read past the end leaves */
    }
    /* the largest of: a failure here, an overlap, the records, the
     * requests of this kind; whether a process's put has many small
     * pieces, whether its hints name cb_nodes */
    in[0] = status != NCS_NOERR;
    in[1] = overlap;
    in[2] = (long long)recs;
    in[3] = (long long)k;
    in[4] = put && nblk >= AGGR_PIECES && total < nblk * AGGR_SMALL;
    in[5] = ms->cb_nodes_hint;
    if (MPI_Allreduce(in, out, 6, MPI_LONG_LONG, MPI_MAX, ms->comm) != MPI_SUCCESS)
        out[0] = 1;
    maxk = out[3];
    if (out[0] == 0 && maxk == 0) {
        /* no process has a request of this kind: nothing to move (a put
         * of nothing would still be a write, refused on a file opened
         * read-only) */
    } else if (out[0] == 0 && out[1] == 0) {
        MPI_Datatype ft = MPI_BYTE, mt = MPI_BYTE;
        MPI_Status mst;
        int cnt = 0, err;
        int s2 = batch_file_type(w.b, w.n, &ft);
        MPI_Info vi = aggr_info(ms, out[4] && !out[5]);
        if (s2 == NCS_NOERR && w.n > 0)
            s2 = memory_type(total, &mt, &cnt);
        if (s2 != NCS_NOERR)
            cnt = 0;     /* (takes part with nothing) */
        ms->fh_viewed = 1;
        err = MPI_File_set_view(ms->fh, 0, MPI_BYTE, ft, "native", vi);
        if (vi != MPI_INFO_NULL)
            MPI_Info_free(&vi);
        if (err == MPI_SUCCESS)
            err = put ? MPI_File_write_all(ms->fh, stage, cnt, mt, &mst)
                      : MPI_File_read_all(ms->fh, stage, cnt, mt, &mst);
        if (s2 == NCS_NOERR)
            s2 = ncsi_mpi_status(err);
        if (ft != MPI_BYTE)
            MPI_Type_free(&ft);
        if (mt != MPI_BYTE)
            MPI_Type_free(&mt);
        status = ncsi_mpi_moved(ms, s2);
    } else if (out[0] == 0) {
        /* overlapping pieces somewhere: one collective call a request */
        int j = 0;
        for (long long round = 0; round < maxk; round++) {
            plan p;
            int s2 = NCS_NOERR, have = 0;
            while (j < n && reqs[j]->put != put)
                j++;
            if (j < n) {
                s2 = plan_build(&p, f, reqs[j]->varid, &reqs[j]->slab, reqs[j]->memtype,
                                reqs[j]->buf, put);
                have = 1;
            }
            s2 = ncsi_mpi_agree(ms, s2, NULL);
            if (s2 == NCS_NOERR)
                s2 = ncsi_mpi_moved(ms, move(ms, have ? &p : &none, ms->fh, 1, put));
            if (have) {
                if (s2 == NCS_NOERR && !put) {
                    for (size_t r = 0; r < p.nruns; r++)
                        if (ncsi_decode(p.v->type, p.stage + p.runs[r].pos, (size_t)p.runs[r].n,
                                        p.memtype,
                                        (unsigned char *)reqs[j]->buf +
                                            p.runs[r].moff * (ptrdiff_t)p.msz,
                                        p.runs[r].mstep, f->version) == NCS_ERANGE)
                            p.erange = 1;
                }
                st[j] = s2 != NCS_NOERR ? s2 : p.erange ? NCS_ERR(NCS_ERANGE) : NCS_NOERR;
                plan_free(&p);
                j++;
            }
        }
        for (int i = 0; i < n; i++)
            if (reqs[i]->put == put && reqs[i]->status != NCS_NOERR &&
                (st[i] == NCS_NOERR || st[i] == NCS_ERANGE))
                st[i] = reqs[i]->status;
        if (put)
            grow_records(f, (uint64_t)out[2]);
        goto out;
    } else if (status == NCS_NOERR) {
        status = NCS_ERR(NCS_EIO);    /* another process could not take part */
    }
    if (status == NCS_NOERR && put)
        grow_records(f, (uint64_t)out[2]);
    if (status == NCS_NOERR && !put)
        for (size_t i = 0; i < w.n; i++)
            if (batch_convert(f, reqs, &w.b[i], stage, 0))
                erange[w.b[i].req] = 1;
    for (int i = 0; i < n; i++) {
        if (reqs[i]->put != put)
            continue;
        st[i] = status != NCS_NOERR ? status
                : erange != NULL && erange[i] ? NCS_ERR(NCS_ERANGE) : NCS_NOERR;
        if (reqs[i]->status != NCS_NOERR && (st[i] == NCS_NOERR || st[i] == NCS_ERANGE))
            st[i] = reqs[i]->status;
    }
    status = NCS_NOERR;          /* (each request has its status) */
out:
    if (kept)
        kept_give();
    else
        free(stage);
    free(w.b);
    free(erange);
    return status;
}

int ncsi_mpi_batch(ncs_file *f, ncsi_req *const *reqs, int n, int *st)
{
    int status = batch_kind(f, reqs, n, st, 1), s2 = batch_kind(f, reqs, n, st, 0);
    return status != NCS_NOERR ? status : s2;
}
