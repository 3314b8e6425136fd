/*
 * mpi_store.c -- the parallel classic back end's life: create, open,
 * enddef, the header and the record count, sync and close, and the store
 * table (mpi_store.h).
 *
 * Every process holds the whole model and makes the same define calls;
 * nothing is written until the processes agree.  At each enddef, and at
 * each change of the header in data mode, every process encodes the
 * header it would write and the processes compare it (and the fill
 * settings, which the header does not hold) in one vote, with their
 * statuses and record counts: when any differs, every process returns
 * NCS_EMULTIDEFINE and the file is left as it was.  Rank 0 alone writes
 * the header, moves data after a redefinition and writes the record
 * count; the processes fill new variables together, each a share of the
 * bytes.
 *
 * The record count is each process's own between collective calls (a
 * process that appends records in independent mode knows only of its
 * own); a collective put, sync, redef, enddef and close make it the
 * largest of them.  It reaches the file after the data it counts: the
 * data is written (and, at ncs_sync, made durable by MPI_File_sync) on
 * every process before the agreement (or, after a redefinition's moves,
 * the barrier) after which rank 0 writes it.
 *
 * Layout: PnetCDF's defaults (the data after the header aligned to 512
 * bytes, fixed-size variables 4 bytes apart, records aligned to 4), which
 * netCDF-C's layout rules give for v_align 512 and r_align 4; its hints
 * (nc_header_align_size, nc_var_align_size, nc_record_align_size,
 * nc_header_pad_size) change them, and ncs__enddef's arguments replace
 * them.  Nofill by default, as PnetCDF.
 */
#include "mpi_store.h"
#include "journal.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MOVE_BUF (4u << 20)

/* ---- agreement -------------------------------------------------------------- */

/* What one collective call makes the processes agree on, in one
 * MPI_Allreduce (MPI_MIN over 64-bit words: each value and its
 * complement give the smallest and the largest): */
typedef struct ballot {
    int status;                  /* in: this process's; out: combined */
    int eq;                      /* in: a value that must be the same everywhere */
    uint64_t most;               /* in: this process's; out: the largest */
    const unsigned char *bytes;  /* in: bytes that must be the same everywhere, */
    size_t n, gap, ngap;         /*     n of them, but for ngap from gap on */
    int same;                    /* out: eq and the bytes the same everywhere */
} ballot;

#define VOTE_BIAS ((int64_t)1 << 32)

/* Two independent 64-bit hashes of the bytes but their gap: definitions
 * that differ by accident do not collide in 128 bits. */
static void hash2(const ballot *b, uint64_t *h1p, uint64_t *h2p)
{
    uint64_t h1 = 0xcbf29ce484222325u, h2 = 0x9e3779b97f4a7c15u;
    for (size_t i = 0; i < b->n; i++) {
        if (i >= b->gap && i - b->gap < b->ngap)
            continue;
        h1 = (h1 ^ b->bytes[i]) * 0x100000001b3u;                /* FNV-1a */
        h2 = (h2 + b->bytes[i] + 1) * 0xff51afd7ed558ccdu;       /* a multiplicative mix */
        h2 ^= h2 >> 29;
    }
    *h1p = h1;
    *h2p = h2;
}

/* (collective) */
static int vote(const mpist *ms, ballot *b)
{
    uint64_t v[11], r[11], h1, h2;
    hash2(b, &h1, &h2);
    v[0] = (uint64_t)(VOTE_BIAS + b->status);
    v[1] = (uint64_t)(VOTE_BIAS - b->status);
    v[2] = (uint64_t)(VOTE_BIAS + b->eq);
    v[3] = (uint64_t)(VOTE_BIAS - b->eq);
    v[4] = ~b->most;
    v[5] = b->n, v[6] = h1, v[7] = h2;
    v[8] = ~v[5], v[9] = ~v[6], v[10] = ~v[7];
    b->same = 0;
    if (MPI_Allreduce(v, r, 11, MPI_UINT64_T, MPI_MIN, ms->comm) != MPI_SUCCESS) {
        if (b->status == NCS_NOERR)
            b->status = NCS_ERR(NCS_EIO);
        return b->status;
    }
    b->status = ncsi_mpi_combine(b->status, (int64_t)r[0] - VOTE_BIAS, VOTE_BIAS - (int64_t)r[1]);
    b->most = ~r[4];
    /* equal everywhere where the smallest is also the largest */
    b->same = r[2] == v[2] && r[3] == v[3] && r[5] == ~r[8] && r[6] == ~r[9] && r[7] == ~r[10];
    return b->status;
}

int ncsi_mpi_agree(const mpist *ms, int status, uint64_t *most)
{
    ballot b = { .status = status, .most = most != NULL ? *most : 0 };
    vote(ms, &b);
    if (most != NULL)
        *most = b.most;
    return b.status;
}

static int agree_status(const mpist *ms, int status)
{
    return ncsi_mpi_agree(ms, status, NULL);
}

/* The largest record count of the processes (from a vote) becomes f's. */
static void take_numrecs(ncs_file *f, uint64_t all)
{
    mpist *ms = MS(f);
    if (all != f->model.numrecs) {
        f->model.numrecs = all;
        f->flags |= NCSI_F_NDIRTY;
    }
    if (f->model.numrecs != ms->written_numrecs)
        f->flags |= NCSI_F_NDIRTY;
}

/* An MPI-IO failure of a collective data call that this process returned
 * and the others did not see: reported by every process here. */
static int take_ioerr(mpist *ms, int status)
{
    if (status == NCS_NOERR)
        status = ms->ioerr;
    ms->ioerr = NCS_NOERR;
    return status;
}

/* The status of a collective data call's move, returned by this process
 * now and kept for the next vote, so that an MPI-IO failure that only
 * some processes saw reaches every one without an agreement of its own
 * in every data call. */
int ncsi_mpi_moved(mpist *ms, int status)
{
    if (status != NCS_NOERR && ms->ioerr == NCS_NOERR)
        ms->ioerr = status;
    return status;
}

int ncsi_mpi_agree_numrecs(ncs_file *f)
{
    mpist *ms = MS(f);
    ballot b = { .status = take_ioerr(ms, NCS_NOERR), .most = f->model.numrecs };
    if (vote(ms, &b) != NCS_NOERR)
        return b.status;
    take_numrecs(f, b.most);
    return NCS_NOERR;
}

/* The vote of an enddef or a header change: every process's status, the
 * record count and the definitions (the header but its record count, and
 * the fill settings), which must be the same everywhere (collective). */
static int agree_definitions(ncs_file *f, int status, const unsigned char *defs, size_t n)
{
    mpist *ms = MS(f);
    ballot b = { .status = take_ioerr(ms, status), .most = f->model.numrecs, .bytes = defs,
                 .n = defs != NULL ? n : 0, .gap = 4, .ngap = f->version == 5 ? 8 : 4 };
    if (vote(ms, &b) != NCS_NOERR)
        return b.status;
    if (!b.same)
        return NCS_ERR(NCS_EMULTIDEFINE);
    take_numrecs(f, b.most);
    return NCS_NOERR;
}

/* The header f would write, followed by the fill settings no header holds
 * (the file's mode, each variable's), in *bytesp (*np bytes, freed by the
 * caller); *hlen: the header's part. */
static int definitions(ncs_file *f, unsigned char **bytesp, size_t *np, size_t *hlen)
{
    const ncs_model *m = &f->model;
    uint64_t len = ncsi_hdr_len(m, f->version);
    unsigned char *b;
    if (len > SIZE_MAX - (size_t)m->nvars - 1)
        return NCS_ERR(NCS_ENOMEM);
    b = ncsi_malloc((size_t)len + (size_t)m->nvars + 1);
    if (b == NULL)
        return NCS_ERR(NCS_ENOMEM);
    ncsi_hdr_encode(m, f->version, b);
    b[len] = (f->flags & NCSI_F_NOFILL) != 0;
    for (int i = 0; i < m->nvars; i++)
        b[len + 1 + i] = (unsigned char)(m->vars[i].nofill != 0);
    *bytesp = b;
    *np = (size_t)len + (size_t)m->nvars + 1;
    *hlen = (size_t)len;
    return NCS_NOERR;
}

/* Rank 0 writes n bytes at off through the collective handle, its view
 * put back to the bytes of the file first (a data call leaves its own),
 * unless its status (rank 0's, from before) is an error; every process
 * gets the outcome (collective). */
int ncsi_mpi_bytes_view(mpist *ms)
{
    if (!ms->fh_viewed)
        return NCS_NOERR;
    /* (cleared even when it fails: the flag must stay the same on every
     * process, and the failure is agreed by the caller) */
    ms->fh_viewed = 0;
    return ncsi_mpi_status(MPI_File_set_view(ms->fh, 0, MPI_BYTE, MPI_BYTE, "native",
                                             MPI_INFO_NULL));
}

static int root_write(mpist *ms, uint64_t off, const void *buf, size_t n, int status)
{
    int s2 = ncsi_mpi_bytes_view(ms);
    if (status == NCS_NOERR)
        status = s2;
    if (status == NCS_NOERR && ms->rank == 0) {
        MPI_File ifh = ms->fh;
        while (status == NCS_NOERR && n > 0) {
            int k = n > (size_t)(INT_MAX / 2) ? INT_MAX / 2 : (int)n, cnt = 0;
            MPI_Status st;
            int err = MPI_File_write_at(ifh, (MPI_Offset)off, buf, k, MPI_BYTE, &st);
            status = ncsi_mpi_status(err);
            if (status == NCS_NOERR) {
                MPI_Get_count(&st, MPI_BYTE, &cnt);
                if (cnt <= 0)
                    status = NCS_ERR(NCS_EIO);
                buf = (const unsigned char *)buf + cnt;
                off += (uint64_t)cnt;
                n -= (size_t)cnt;
            }
        }
    }
    return agree_status(ms, status);
}

/* The header (or, when only it changed, the record count) to the file,
 * after every process's data (collective).  synced: the processes have
 * just agreed and written nothing since (an MPI_Allreduce returns on rank
 * 0 after every process has entered it), so no barrier is needed. */
static int write_counts(ncs_file *f, int whole, int synced)
{
    mpist *ms = MS(f);
    unsigned char *b = NULL, nb[8];
    size_t n = 0, hlen = 0;
    int status = NCS_NOERR;
    if (!synced && MPI_Barrier(ms->comm) != MPI_SUCCESS)
        return NCS_ERR(NCS_EIO);
    if (whole) {
        if (ms->rank == 0)
            status = definitions(f, &b, &n, &hlen);
        status = root_write(ms, 0, b, hlen, status);
        free(b);
    } else {
        int w = f->version == 5 ? 8 : 4;
        uint64_t v = f->model.numrecs;
        for (int i = 0; i < w; i++)
            nb[i] = (unsigned char)(v >> (8 * (w - 1 - i)));
        status = root_write(ms, 4, nb, (size_t)w, NCS_NOERR);
    }
    if (status == NCS_NOERR) {
        ms->written_numrecs = f->model.numrecs;
        f->flags &= ~(NCSI_F_HDIRTY | NCSI_F_NDIRTY);
    }
    return status;
}

/* ---- handles and settings ---------------------------------------------------- */

int ncsi_mpi_indep(mpist *ms, MPI_File *fhp)
{
    if (ms->ifh == MPI_FILE_NULL) {
        /* the file reopened on this process alone */
        int err = MPI_File_open(MPI_COMM_SELF, ms->path,
                                ms->writable ? MPI_MODE_RDWR : MPI_MODE_RDONLY, ms->info,
                                &ms->ifh);
        if (err != MPI_SUCCESS) {
            ms->ifh = MPI_FILE_NULL;
            return ncsi_mpi_status(err);
        }
    }
    *fhp = ms->ifh;
    return NCS_NOERR;
}

int ncsi_mpi_set_access(ncs_file *f, int varid, int access)
{
    mpist *ms = MS(f);
    int status = ncsi_mpi_agree_numrecs(f);
    if (status != NCS_NOERR)
        return status;
    if (varid == NCS_GLOBAL) {
        ms->dflt_access = access;
        for (int i = 0; i < ms->naccess; i++)
            ms->access[i] = (unsigned char)access;
        return NCS_NOERR;
    }
    if (varid >= ms->naccess) {
        unsigned char *a = realloc(ms->access, (size_t)f->model.nvars);
        if (a == NULL)
            return NCS_ERR(NCS_ENOMEM);
        for (int i = ms->naccess; i < f->model.nvars; i++)
            a[i] = (unsigned char)ms->dflt_access;
        ms->access = a;
        ms->naccess = f->model.nvars;
    }
    ms->access[varid] = (unsigned char)access;
    return NCS_NOERR;
}

static void ms_free(ncs_file *f)
{
    mpist *ms = MS(f);
    if (ms == NULL)
        return;
    if (ms->cl.io != NULL)
        ncsi_io_close(ms->cl.io);
    if (ms->ifh != MPI_FILE_NULL)
        MPI_File_close(&ms->ifh);
    if (ms->fh != MPI_FILE_NULL)
        MPI_File_close(&ms->fh);
    if (ms->info != MPI_INFO_NULL)
        MPI_Info_free(&ms->info);
    if (ms->comm != MPI_COMM_NULL)
        MPI_Comm_free(&ms->comm);
    free(ms->path);
    free(ms->access);
    free(ms->ext);
    free(ms);
    f->state = NULL;
}

/* The state of a file about to be opened or created on args->comm: the
 * communicator and hints copied, the settings read.  The path is kept for
 * the independent handle. */
static int ms_new(ncs_file *f, const char *path, int writable)
{
    const ncsi_par_args *a = f->open_arg;
    mpist *ms;
    size_t plen = strlen(path);
    if (a == NULL)
        return NCS_ERR(NCS_EINTERNAL);
    ms = ncsi_calloc(1, sizeof *ms);
    if (ms == NULL)
        return NCS_ERR(NCS_ENOMEM);
    ms->comm = MPI_COMM_NULL;
    ms->info = MPI_INFO_NULL;
    ms->fh = MPI_FILE_NULL;
    ms->ifh = MPI_FILE_NULL;
    f->state = ms;
    ms->path = ncsi_malloc(plen + 1);
    if (ms->path == NULL)
        return NCS_ERR(NCS_ENOMEM);
    memcpy(ms->path, path, plen + 1);
    if (MPI_Comm_dup(a->comm, &ms->comm) != MPI_SUCCESS) {
        ms->comm = MPI_COMM_NULL;
        return NCS_ERR(NCS_EIO);
    }
    if (a->info != MPI_INFO_NULL && MPI_Info_dup(a->info, &ms->info) != MPI_SUCCESS) {
        ms->info = MPI_INFO_NULL;
        return NCS_ERR(NCS_EIO);
    }
    MPI_Comm_rank(ms->comm, &ms->rank);
    MPI_Comm_size(ms->comm, &ms->nprocs);
    ms->writable = writable;
    ms->dflt_access = NCS_COLLECTIVE;
    ncsi_mpi_read_hints(ms);
    if (ms->nprocs <= NCSI_MPI_ALONE_MAX) {
        ms->ext = ncsi_malloc((size_t)ms->nprocs * NCSI_MPI_EXT * sizeof *ms->ext);
        if (ms->ext == NULL)
            return NCS_ERR(NCS_ENOMEM);
    }
    return NCS_NOERR;
}

/* The file's preferred block size, for NCS_ALIGN_CHUNK. */
static size_t block_size(const char *path)
{
    struct stat st;
    if (stat(path, &st) == 0 && st.st_blksize >= 512)
        return (size_t)st.st_blksize;
    return 4096;
}

/* ---- create and open ---------------------------------------------------------- */

/* The first vote of a create or open: every process's status and its
 * mode, which must be the same everywhere (NCS_EMULTIDEFINE where not). */
static int agree_mode(mpist *ms, int status, int mode)
{
    ballot b = { .status = status, .eq = mode };
    if (ms == NULL || ms->comm == MPI_COMM_NULL)
        return status;
    if (vote(ms, &b) != NCS_NOERR)
        return b.status;
    return b.same ? NCS_NOERR : NCS_ERR(NCS_EMULTIDEFINE);
}

static int ms_create(ncs_file *f, const char *path, int cmode)
{
    mpist *ms;
    int amode = MPI_MODE_RDWR | MPI_MODE_CREATE, status, err;
    /* netCDF-4 files are read in parallel, not written (the same answer
     * on every process: the default format is each one's) */
    if (cmode & NCS_NETCDF4)
        return NCS_ERR(NCS_ENOTBUILT);
    status = ms_new(f, path, 1);
    ms = MS(f);
    status = agree_mode(ms, status, cmode);
    if (status == NCS_NOERR) {
        int mine = NCS_NOERR;
        if (ms->rank == 0 && !(cmode & NCS_NOCLOBBER))
            /* a journal of a file this one replaces would roll it back to
             * pieces of the old one at its next serial open */
            mine = ncsi_journal_remove_stale(path);
        /* (rank 0 opens even when that failed: the open is collective,
         * and opening changes nothing the agreement after it undoes) */
        if (cmode & NCS_NOCLOBBER)
            amode |= MPI_MODE_EXCL;
        err = MPI_File_open(ms->comm, path, amode, ms->info, &ms->fh);
        if (err != MPI_SUCCESS)
            ms->fh = MPI_FILE_NULL;
        status = agree_status(ms, mine != NCS_NOERR ? mine : ncsi_mpi_status(err));
    }
    if (status == NCS_NOERR) {
        /* NCS_CLOBBER: the old content goes */
        int s2 = NCS_NOERR;
        if (!(cmode & NCS_NOCLOBBER))
            s2 = ncsi_mpi_status(MPI_File_set_size(ms->fh, 0));
        if (s2 == NCS_NOERR)
            s2 = ncsi_mpi_io_new(ms->fh, block_size(path), &ms->cl.io);
        status = agree_status(ms, s2);
    }
    if (status != NCS_NOERR) {
        ms_free(f);
        return status;
    }
    /* PnetCDF's default */
    f->flags |= NCSI_F_NOFILL;
    f->flags &= ~NCSI_F_SHARE;
    return NCS_NOERR;
}

static int ms_open(ncs_file *f, const char *path, int mode)
{
    mpist *ms;
    uint64_t fsize = 0;
    int status, err, writable = (mode & NCS_WRITE) != 0;
    status = ms_new(f, path, writable);
    ms = MS(f);
    /* a redefinition a crash left half done is undone first, before any
     * process opens the file */
    if (status == NCS_NOERR && ms->rank == 0)
        status = ncsi_journal_recover(path);
    status = agree_mode(ms, status, mode & NCS_WRITE);
    if (status == NCS_NOERR) {
        err = MPI_File_open(ms->comm, path, writable ? MPI_MODE_RDWR : MPI_MODE_RDONLY,
                            ms->info, &ms->fh);
        if (err != MPI_SUCCESS)
            ms->fh = MPI_FILE_NULL;
        status = ncsi_mpi_status(err);
        if (status == NCS_NOERR)
            status = ncsi_mpi_io_new(ms->fh, block_size(path), &ms->cl.io);
        if (status == NCS_NOERR)
            status = ncsi_io_size(ms->cl.io, &fsize);
        if (status == NCS_NOERR)
            status = ncsi_hdr_decode(ms->cl.io, fsize, NULL, &f->model, &f->version, &ms->cl.lay);
        if (status == NCS_NOERR) {
            status = ncsi_cl_check_vlens(&f->model, f->version);
            if (status != NCS_NOERR)
                status = NCSI_CORRUPT(status);
        }
        status = agree_status(ms, status);
    }
    if (status != NCS_NOERR) {
        ncsi_model_free(&f->model);
        ms_free(f);
        return status;
    }
    ms->written_numrecs = f->model.numrecs;
    f->flags &= ~NCSI_F_SHARE;
    return NCS_NOERR;
}

/* ---- enddef -------------------------------------------------------------------- */

/* The fill value of v as the file holds it (psz bytes at pat), or
 * NCS_EBADTYPE for a _FillValue that cannot be one. */
static int fill_pattern(const ncs_var *v, unsigned char *pat)
{
    int a = ncsi_find_att(&v->atts, "_FillValue");
    if (a < 0) {
        ncsi_default_fill(v->type, pat, 1);
        return NCS_NOERR;
    }
    if (v->atts.a[a].type != v->type || v->atts.a[a].nelems != 1)
        return NCS_ERR(NCS_EBADTYPE);
    memcpy(pat, v->atts.a[a].xval, v->xsz);
    return NCS_NOERR;
}

/* The bytes of one record (or of the whole of a fixed-size variable). */
static uint64_t data_bytes(const ncs_var *v)
{
    return (v->ndims == 0 ? 1 : v->dsizes[0]) * v->xsz;
}

/* Fills the variables that are new since old (all of them after create)
 * and not in nofill mode: fixed-size ones whole, record ones for the
 * records the file has (collective). */
static int fill_new(ncs_file *f, const ncs_model *old)
{
    const ncs_model *m = &f->model;
    const ncs_layout *lay = &MS(f)->cl.lay;
    int first = old != NULL ? old->nvars : 0, status = NCS_NOERR;
    for (int i = first; status == NCS_NOERR && i < m->nvars; i++) {
        const ncs_var *v = &m->vars[i];
        unsigned char pat[8];
        if (v->nofill)
            continue;
        status = agree_status(MS(f), fill_pattern(v, pat));
        if (status != NCS_NOERR)
            break;
        if (!v->isrec) {
            status = ncsi_mpi_fill_range(f, v->begin, data_bytes(v), pat, v->xsz);
            continue;
        }
        for (uint64_t r = 0; status == NCS_NOERR && r < m->numrecs; r++)
            status = ncsi_mpi_fill_range(f, v->begin + r * lay->recsize, data_bytes(v), pat,
                                         v->xsz);
    }
    return status;
}

typedef struct piece {
    uint64_t from, to, n;
} piece;

typedef struct pieces {
    piece *p;
    size_t n, cap;
} pieces;

static int add_piece(pieces *ps, uint64_t from, uint64_t to, uint64_t n)
{
    if (from == to || n == 0)
        return NCS_NOERR;
    if (ps->n == ps->cap) {
        size_t ncap = ps->cap ? 2 * ps->cap : 64;
        piece *q = realloc(ps->p, ncap * sizeof *q);
        if (q == NULL)
            return NCS_ERR(NCS_ENOMEM);
        ps->p = q;
        ps->cap = ncap;
    }
    ps->p[ps->n].from = from;
    ps->p[ps->n].to = to;
    ps->p[ps->n].n = n;
    ps->n++;
    return NCS_NOERR;
}

static int by_from_desc(const void *a, const void *b)
{
    const piece *x = a, *y = b;
    return x->from < y->from ? 1 : x->from > y->from ? -1 : 0;
}

/* 1 when every variable of old kept its place within its section (the
 * fixed-size variables relative to begin_var, the record ones within a
 * record), so that the sections move as PnetCDF moves them: whole. */
static int sections_kept(const ncs_model *m, const ncs_model *old, const ncs_layout *lay,
                         const ncs_layout *olay)
{
    for (int i = 0; i < old->nvars; i++) {
        const ncs_var *ov = &old->vars[i], *nv = &m->vars[i];
        uint64_t obase = ov->isrec ? olay->begin_rec : olay->begin_var;
        uint64_t nbase = nv->isrec ? lay->begin_rec : lay->begin_var;
        if (ov->begin < obase || nv->begin < nbase || ov->begin - obase != nv->begin - nbase)
            return 0;
    }
    return 1;
}

/* What moves at enddef after a redefinition, as PnetCDF moves it: the
 * record section as one block of numrecs records (or, when record
 * variables were added, record by record, each its old recsize bytes),
 * and the fixed-size section as one block up to the end of its last
 * variable.  The reads stop at the end of the file and only what they
 * read is written, so the moved file ends where PnetCDF's does.  A layout
 * whose variables moved within a section (not one of PnetCDF's) moves
 * variable by variable. */
static int move_pieces(ncs_file *f, const ncs_model *old, const ncs_layout *olay, pieces *ps)
{
    const ncs_model *m = &f->model;
    const ncs_layout *lay = &MS(f)->cl.lay;
    int status = NCS_NOERR, nrec_old = 0, nrec_new = 0;
    uint64_t fix_end = olay->begin_var;
    if (!sections_kept(m, old, lay, olay)) {
        for (int i = 0; status == NCS_NOERR && i < old->nvars; i++) {
            const ncs_var *ov = &old->vars[i], *nv = &m->vars[i];
            uint64_t nrec = ov->isrec ? m->numrecs : 1;
            for (uint64_t r = 0; status == NCS_NOERR && r < nrec; r++)
                status = add_piece(ps, ov->begin + (ov->isrec ? r * olay->recsize : 0),
                                   nv->begin + (nv->isrec ? r * lay->recsize : 0),
                                   data_bytes(ov));
        }
        return status;
    }
    for (int i = 0; i < old->nvars; i++) {
        const ncs_var *ov = &old->vars[i];
        nrec_old += ov->isrec;
        if (!ov->isrec && ov->begin + ov->len > fix_end)
            fix_end = ov->begin + ov->len;
    }
    for (int i = 0; i < m->nvars; i++)
        nrec_new += m->vars[i].isrec;
    if (nrec_old > 0 && nrec_new == nrec_old)
        status = add_piece(ps, olay->begin_rec, lay->begin_rec, olay->recsize * m->numrecs);
    else if (nrec_old > 0)
        for (uint64_t r = 0; status == NCS_NOERR && r < m->numrecs; r++)
            status = add_piece(ps, olay->begin_rec + r * olay->recsize,
                               lay->begin_rec + r * lay->recsize, olay->recsize);
    if (status == NCS_NOERR)
        status = add_piece(ps, olay->begin_var, lay->begin_var, fix_end - olay->begin_var);
    return status;
}

/* Rank 0 moves the data of the variables of old to where f's layout puts
 * them (move_pieces); every destination is at or after its source (no
 * variable starts before it did, and records do not shrink), so pieces
 * are copied from the last one down, each from its end (collective). */
static int move_data(ncs_file *f, const ncs_model *old, const ncs_layout *olay)
{
    mpist *ms = MS(f);
    pieces ps = { NULL, 0, 0 };
    unsigned char *buf = NULL;
    int status = NCS_NOERR;
    MPI_File ifh = MPI_FILE_NULL;
    MPI_Offset size = 0;
    if (ms->rank != 0)
        return agree_status(ms, NCS_NOERR);
    status = move_pieces(f, old, olay, &ps);
    if (status == NCS_NOERR && ps.n > 0) {
        qsort(ps.p, ps.n, sizeof *ps.p, by_from_desc);
        buf = ncsi_malloc(MOVE_BUF);
        if (buf == NULL)
            status = NCS_ERR(NCS_ENOMEM);
    }
    if (status == NCS_NOERR && ps.n > 0)
        status = ncsi_mpi_indep(ms, &ifh);
    if (status == NCS_NOERR && ps.n > 0)
        status = ncsi_mpi_status(MPI_File_get_size(ifh, &size));
    for (size_t i = 0; status == NCS_NOERR && i < ps.n; i++) {
        piece *p = &ps.p[i];
        /* (bytes past the end of the file are not read, nor written) */
        uint64_t left = p->from >= (uint64_t)size ? 0
                      : p->n < (uint64_t)size - p->from ? p->n : (uint64_t)size - p->from;
        while (status == NCS_NOERR && left > 0) {
            uint64_t k = left < MOVE_BUF ? left : MOVE_BUF, at = left - k;
            int got = 0;
            MPI_Status st;
            status = ncsi_mpi_status(MPI_File_read_at(ifh, (MPI_Offset)(p->from + at), buf,
                                                      (int)k, MPI_BYTE, &st));
            if (status == NCS_NOERR) {
                MPI_Get_count(&st, MPI_BYTE, &got);
                if (got < 0 || (uint64_t)got != k)
                    status = NCS_ERR(NCS_EIO);   /* the file shrank under us */
            }
            if (status == NCS_NOERR)
                status = ncsi_mpi_status(MPI_File_write_at(ifh, (MPI_Offset)(p->to + at),
                                                           buf, (int)k, MPI_BYTE, &st));
            left = at;
        }
    }
    free(buf);
    free(ps.p);
    return agree_status(ms, status);
}

static int ms_enddef(ncs_file *f, size_t h_minfree, size_t v_align, size_t v_minfree,
                     size_t r_align)
{
    mpist *ms = MS(f);
    const ncs_model *old = f->old;
    ncs_layout olay = ms->cl.lay;
    unsigned char *defs = NULL;
    size_t n = 0, hlen = 0;
    int status = ncsi_cl_check_vlens(&f->model, f->version);

    if (status == NCS_NOERR)
        status = ncsi_mpi_layout(f, old, h_minfree, v_align, v_minfree, r_align);
    if (status == NCS_NOERR)
        status = definitions(f, &defs, &n, &hlen);
    status = agree_definitions(f, status, defs, n);
    free(defs);
    if (status != NCS_NOERR) {
        ms->cl.lay = olay;
        return status;
    }
    if (old != NULL)
        status = move_data(f, old, &olay);
    if (status == NCS_NOERR)
        status = fill_new(f, old);
    /* after a create nothing was written since the vote but by a fill,
     * which ends in an agreement of its own */
    if (status == NCS_NOERR)
        status = write_counts(f, 1, old == NULL);
    if (status == NCS_NOERR && f->model.nvars > ms->naccess) {
        unsigned char *a = realloc(ms->access, (size_t)f->model.nvars);
        if (a == NULL)
            return NCS_ERR(NCS_ENOMEM);
        for (int i = ms->naccess; i < f->model.nvars; i++)
            a[i] = (unsigned char)ms->dflt_access;
        ms->access = a;
        ms->naccess = f->model.nvars;
    }
    return status;
}

/* ---- header, sync, close ---------------------------------------------------------- */

static int ms_write_header(ncs_file *f)
{
    unsigned char *defs = NULL;
    size_t n = 0, hlen = 0;
    int status = definitions(f, &defs, &n, &hlen);
    status = agree_definitions(f, status, defs, n);
    free(defs);
    if (status == NCS_NOERR)
        status = write_counts(f, 1, 1);
    return status;
}

/* The record count agreed and, where it changed, written after the data
 * (collective); durable: with MPI_File_sync of the data first and of the
 * count after. */
static int settle(ncs_file *f, int durable)
{
    mpist *ms = MS(f);
    int status = ncsi_mpi_agree_numrecs(f);
    if (status != NCS_NOERR || !ms->writable)
        return status;
    if (durable) {
        /* (every process calls the collective sync, whatever its own did) */
        int s2 = ncsi_mpi_status(MPI_File_sync(ms->fh));
        if (ms->ifh != MPI_FILE_NULL)
            status = ncsi_mpi_status(MPI_File_sync(ms->ifh));
        status = agree_status(ms, status != NCS_NOERR ? status : s2);
    }
    /* (the vote or the sync's agreement came after every process's data) */
    if (status == NCS_NOERR && (f->flags & (NCSI_F_HDIRTY | NCSI_F_NDIRTY))) {
        status = write_counts(f, (f->flags & NCSI_F_HDIRTY) != 0, 1);
        /* the count, after the data it counts, durable too */
        if (status == NCS_NOERR && durable)
            status = agree_status(ms, ncsi_mpi_status(MPI_File_sync(ms->fh)));
    }
    return status;
}

/* ncs_redef: the record count agreed, so that the layout of the model
 * before the redefinition counts the records every process wrote, and the
 * independent handles' data made visible to rank 0, which moves it at
 * enddef: each process syncs its own, then, after the barrier, rank 0
 * syncs again (MPI-IO's sync-barrier-sync; collective). */
static int ms_reload(ncs_file *f)
{
    mpist *ms = MS(f);
    int status = ncsi_mpi_agree_numrecs(f);
    if (status != NCS_NOERR || !ms->writable)
        return status;
    if (ms->ifh != MPI_FILE_NULL)
        status = ncsi_mpi_status(MPI_File_sync(ms->ifh));
    status = agree_status(ms, status);
    if (status == NCS_NOERR && ms->rank == 0 && ms->ifh != MPI_FILE_NULL)
        status = ncsi_mpi_status(MPI_File_sync(ms->ifh));
    return agree_status(ms, status);
}

static int ms_sync(ncs_file *f)
{
    return settle(f, 1);
}

static int ms_flush(ncs_file *f)
{
    return settle(f, 0);
}

static int ms_close(ncs_file *f, int abort)
{
    int status = NCS_NOERR;
    /* (an abort of a created file: the caller removes it) */
    if (!abort || !(f->flags & NCSI_F_CREATED))
        status = settle(f, 0);
    ms_free(f);
    return status;
}

const ncs_store_methods ncsi_mpi_store = {
    .name = "mpi",
    .open = ms_open,
    .create = ms_create,
    .enddef = ms_enddef,
    .get = ncsi_mpi_get,
    .put = ncsi_mpi_put,
    .write_header = ms_write_header,
    .sync = ms_sync,
    .flush = ms_flush,
    .reload = ms_reload,
    .close = ms_close,
    .skip = ncsi_mpi_skip,
    .batch = ncsi_mpi_batch,
    .align_defaults = 1,
};
