/*
 * classic.c -- the contiguous storage back end: netCDF classic files
 * (CDF-1, CDF-2, CDF-5), written byte for byte as netCDF-C writes them.
 *
 * Data layout (see doc/format.md):
 *   [header][pad][fixed var 0][fixed var 1]...[pad][record 0][record 1]...
 * Fixed-size variables lie in definition order from begin_var, each taking
 * vsize bytes (its data rounded up to 4).  A record holds every record
 * variable's slice, vsize bytes each, in definition order; recsize is their
 * sum, except that a lone record variable is packed without padding.
 *
 * Layout, data movement after ncs_redef and fill follow netCDF-C's rules
 * exactly, because the files must be identical: the same begin offsets,
 * the same bytes moved in the same order, the same fill bytes (padding
 * included).
 *
 * Durability: data goes through a write-back page cache; the header and
 * numrecs are written only after the cached data has been flushed, so a
 * record count never reaches the file before the records it counts.  An
 * enddef after ncs_redef writes moved data, then fill values, then the
 * header; in a file holding committed content it does so under a rollback
 * journal (journal.c), so that a failure or a crash in the middle leaves
 * the old layout, put back at once or at the next open.
 *
 * Invariants:
 *   - after a failed enddef the file and the in-memory layout are the old
 *     ones again, so a retry (ncs_enddef, or ncs_close) starts from them;
 *     when the file cannot be put back (cl->broken) nothing more is
 *     written through this handle;
 *   - a journal exists only while an enddef is under way or after one that
 *     could not be undone; opening the file rolls it back first.
 */
#include "classic.h"
#include "journal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PAGE_SIZE   NCSI_CLASSIC_PAGE
#define NPAGES      128      /* up to 8 MiB of pages per file, made as used */
_Static_assert(2 * NCSI_VIEW_MAX < NPAGES, "a view's pages stay cached");
#define SCRATCH_CAP (256 * 1024)

/* Where each element of a variable is, for the one-element fast path:
 * byte offset = begin + sum(index[d] * bstride[d]), index[d] < lim[d]
 * (lim[0] of a record variable is the record count). */
typedef struct fastvar {
    uint64_t begin;
    uint64_t *lim;
    uint64_t *bstride;
    int nd;
    int xsz;
    int type;
    /* into the variable's own type, contiguous runs: the decoder and the
     * decoder of rows (NULL where it is not a byte swap) */
    ncsi_conv_fn dec_self;
    ncsi_rows_fn rows_self;
} fastvar;

typedef struct classic {
    ncs_io *io;
    ncs_pc *pc;
    ncs_layout lay;
    unsigned char *scratch;   /* SCRATCH_CAP bytes, for conversions */
    fastvar *fast;            /* one per variable, after layout */
    int nfast;
    uint64_t *fastmem;
    /* the moves of an enddef under way without a journal, to undo them if
     * it fails (log_moves) */
    struct move { uint64_t to, from, n; } *moves;
    size_t nmoves, capmoves;
    /* Where the last failed enddef of this define session placed the fixed
     * and record data.  netCDF-C keeps those offsets in its model after
     * a refused layout, and its next attempt starts from them; so does
     * this, or the next enddef's layout (the file) would differ. */
    int has_hint;
    uint64_t hint_begin_var, hint_begin_rec;
    int log_moves;
    int committed;            /* the file holds content a sync or close
                                 committed (it was opened, or synced since
                                 ncs_create): redefinitions are journaled */
    int broken;               /* a failed enddef could not be undone, or
                                 committed without a durable commit: the
                                 status; nothing more is written, a journal
                                 left waits for the next open */
    ncs_ncbuf nb;             /* netCDF-C's I/O buffer for the same calls:
                                 the length (and stale bytes) its file has,
                                 given to this one at sync, close, enddef */
    int nb_quiet;             /* an enddef has told nb of its header */
} classic;

static ncsi_conv_fn run_decoder(int xtype, int memtype, int version, ptrdiff_t xstep,
                                ptrdiff_t mstep);

/* Rebuilds the fast-path table after the layout or the record count
 * changed. */
static int fast_rebuild(ncs_file *f)
{
    classic *cl = (classic *)f->state;
    const ncs_model *m = &f->model;
    size_t total = 0, used = 0;
    free(cl->fast);
    free(cl->fastmem);
    cl->fast = NULL;
    cl->fastmem = NULL;
    cl->nfast = 0;
    for (int i = 0; i < m->nvars; i++)
        total += 2 * (size_t)m->vars[i].ndims;
    cl->fast = ncsi_calloc((size_t)m->nvars + 1, sizeof *cl->fast);
    cl->fastmem = ncsi_malloc((total ? total : 1) * sizeof *cl->fastmem);
    if (cl->fast == NULL || cl->fastmem == NULL)
        return NCS_ERR(NCS_ENOMEM);
    for (int i = 0; i < m->nvars; i++) {
        const ncs_var *v = &m->vars[i];
        fastvar *fv = &cl->fast[i];
        fv->begin = v->begin;
        fv->nd = v->ndims;
        fv->xsz = (int)v->xsz;
        fv->type = v->type;
        fv->dec_self = run_decoder(v->type, v->type, f->version, 1, 1);
        fv->rows_self = ncsi_row_decoder(v->type, v->type, f->version);
        fv->lim = cl->fastmem + used;
        fv->bstride = cl->fastmem + used + v->ndims;
        used += 2 * (size_t)v->ndims;
        for (int d = 0; d < v->ndims; d++) {
            fv->lim[d] = (d == 0 && v->isrec) ? m->numrecs : v->shape[d];
            fv->bstride[d] = (d == 0 && v->isrec) ? cl->lay.recsize
                           : (d + 1 < v->ndims ? v->dsizes[d + 1] : 1) * v->xsz;
        }
    }
    cl->nfast = m->nvars;
    return NCS_NOERR;
}

/* The record count changed: update the fast path's bounds. */
static void fast_numrecs(ncs_file *f)
{
    classic *cl = (classic *)f->state;
    for (int i = 0; i < cl->nfast; i++)
        if (f->model.vars[i].isrec)
            cl->fast[i].lim[0] = f->model.numrecs;
}

static classic *CL(ncs_file *f)
{
    return (classic *)f->state;
}

/* What went wrong in cl->nb's last calls (a read or write of this file's,
 * an allocation), cleared. */
static int nb_take(classic *cl)
{
    int status = cl->nb.err;
    cl->nb.err = NCS_NOERR;
    return status;
}

/* ---- layout -------------------------------------------------------------- */

static int count_recvars(const ncs_model *m)
{
    int n = 0;
    for (int i = 0; i < m->nvars; i++)
        n += m->vars[i].isrec;
    return n;
}


/* The CDF-1/2 limit on one variable's bytes (per record); CDF-5 has none
 * short of 2^63.  One variable of each kind may exceed it if it is the last
 * of its kind (its size is then never used to compute an offset), and a
 * too-large last fixed variable excludes record variables. */
static int count_large(const ncs_model *m, int rec, uint64_t vlen_max,
                       int version, int *large, int *last)
{
    *large = *last = 0;
    for (int i = 0; i < m->nvars; i++) {
        const ncs_var *v = &m->vars[i];
        uint64_t bytes = v->ndims == 0 ? v->xsz : v->dsizes[0] * v->xsz;
        if (v->isrec != rec)
            continue;
        *last = 0;
        if (bytes > vlen_max) {
            if (version == 5)
                return NCS_ERR(NCS_EVARSIZE);
            ++*large;
            *last = 1;
        }
    }
    if (*large > 1 || (*large == 1 && !*last))
        return NCS_ERR(NCS_EVARSIZE);
    return NCS_NOERR;
}

static int check_vlens(const ncs_model *m, int version)
{
    uint64_t vlen_max = version == 5 ? (uint64_t)INT64_MAX - 3
                      : version == 2 ? (uint64_t)UINT32_MAX - 3 : (uint64_t)INT32_MAX - 3;
    int large, last, status;
    status = count_large(m, 0, vlen_max, version, &large, &last);
    if (status != NCS_NOERR || count_recvars(m) == 0)
        return status;
    if (large == 1)
        return NCS_ERR(NCS_EVARSIZE);
    return count_large(m, 1, vlen_max, version, &large, &last);
}

/* Assigns begin offsets to every variable and computes begin_var,
 * begin_rec and recsize.  With an old model (after ncs_redef), no variable
 * starts before it did. */
static int layout(ncs_file *f, const ncs_model *old, size_t h_minfree,
                  size_t v_align, size_t v_minfree, size_t r_align)
{
    ncs_model *m = &f->model;
    ncs_layout *lay = &CL(f)->lay;
    uint64_t index, old_begin_var = lay->begin_var, old_begin_rec = lay->begin_rec;
    uint64_t off_max = f->version == 1 ? (uint64_t)INT32_MAX : (uint64_t)INT64_MAX;
    const ncs_var *first_var = NULL, *last = NULL;
    int j = 0;

    if (v_align == NCS_ALIGN_CHUNK)
        v_align = CL(f)->io->blksize;
    if (r_align == NCS_ALIGN_CHUNK)
        r_align = CL(f)->io->blksize;
    if (v_align == 0)
        v_align = 1;
    if (r_align == 0)
        r_align = 1;
    lay->xsz = ncsi_hdr_len(m, f->version);
    CL(f)->nb.xsz = lay->xsz;
    if (m->nvars == 0)
        return NCS_NOERR;
    if (CL(f)->has_hint) {
        lay->begin_var = CL(f)->hint_begin_var;
        lay->begin_rec = CL(f)->hint_begin_rec;
    }

    if (lay->begin_var < lay->xsz + h_minfree ||
        lay->begin_var != NCS_RNDUP(lay->begin_var, v_align)) {
        index = lay->xsz;
        lay->begin_var = NCS_RNDUP(index, v_align);
        if (lay->begin_var < index + h_minfree)
            lay->begin_var = NCS_RNDUP(index + h_minfree, v_align);
    }
    /* after a redef, nothing starts before it did */
    if (old != NULL && lay->begin_var < old_begin_var)
        lay->begin_var = old_begin_var;
    index = lay->begin_var;
    for (int i = 0; i < m->nvars; i++) {
        ncs_var *v = &m->vars[i];
        if (v->isrec)
            continue;
        if (first_var == NULL)
            first_var = v;
        if (index > off_max) {
            lay->begin_var = old_begin_var;
            return NCS_ERR(NCS_EVARSIZE);
        }
        v->begin = index;
        if (old != NULL) {
            while (j < old->nvars && old->vars[j].isrec)
                j++;
            if (j < old->nvars) {
                if (v->begin < old->vars[j].begin) {
                    v->begin = old->vars[j].begin;
                    index = v->begin;
                }
                j++;
            }
        }
        index += v->len;
    }

    if (old != NULL && lay->begin_rec < old_begin_rec)
        lay->begin_rec = old_begin_rec;
    if (lay->begin_rec < index + v_minfree ||
        lay->begin_rec != NCS_RNDUP(lay->begin_rec, r_align)) {
        lay->begin_rec = NCS_RNDUP(index, r_align);
        if (lay->begin_rec < index + v_minfree)
            lay->begin_rec = NCS_RNDUP(index + v_minfree, r_align);
    }
    lay->begin_var = first_var != NULL ? first_var->begin : lay->begin_rec;

    index = lay->begin_rec;
    lay->recsize = 0;
    j = 0;
    for (int i = 0; i < m->nvars; i++) {
        ncs_var *v = &m->vars[i];
        if (!v->isrec)
            continue;
        if (index > off_max) {
            lay->begin_var = old_begin_var;
            lay->begin_rec = old_begin_rec;
            return NCS_ERR(NCS_EVARSIZE);
        }
        v->begin = index;
        if (old != NULL) {
            while (j < old->nvars && !old->vars[j].isrec)
                j++;
            if (j < old->nvars) {
                if (v->begin < old->vars[j].begin)
                    v->begin = old->vars[j].begin;
                j++;
            }
        }
        index += v->len;
        lay->recsize += v->len;
        last = v;
    }
    /* exactly one record variable: records are packed */
    if (last != NULL && lay->recsize == last->len)
        lay->recsize = last->dsizes[0] * last->xsz;
    return NCS_NOERR;
}

/* File size the header implies: up to the end of the last fixed variable,
 * or of the last record. */
static uint64_t calc_size(const ncs_file *f)
{
    const ncs_model *m = &f->model;
    const ncs_layout *lay = &((classic *)f->state)->lay;
    const ncs_var *last_fix = NULL;
    int nrec = 0;
    if (m->nvars == 0)
        return lay->xsz;
    for (int i = 0; i < m->nvars; i++) {
        if (m->vars[i].isrec)
            nrec++;
        else
            last_fix = &m->vars[i];
    }
    if (nrec == 0) {
        uint64_t size = last_fix->len;
        if (f->version != 5 && size > UINT32_MAX - 3)
            size = last_fix->dsizes[0] * last_fix->xsz;
        return last_fix->begin + size;
    }
    return lay->begin_rec + m->numrecs * lay->recsize;
}

/* ---- header and numrecs ----------------------------------------------------- */

static int write_model_header(ncs_file *f, const ncs_model *m)
{
    classic *cl = CL(f);
    uint64_t len = ncsi_hdr_len(m, f->version);
    unsigned char *buf;
    int status;
    if (len > SIZE_MAX)
        return NCS_ERR(NCS_ENOMEM);
    buf = ncsi_malloc((size_t)len);
    if (buf == NULL)
        return NCS_ERR(NCS_ENOMEM);
    ncsi_hdr_encode(m, f->version, buf);
    cl->lay.xsz = len;
    if (!cl->nb_quiet)
        ncsi_ncbuf_header(&cl->nb, m, f->version, buf, (size_t)len);
    status = nb_take(cl);
    if (status == NCS_NOERR)
        status = ncsi_pc_flush(cl->pc);
    if (status == NCS_NOERR)
        status = ncsi_pc_write_through(cl->pc, 0, buf, (size_t)len);
    free(buf);
    if (status == NCS_NOERR)
        f->flags &= ~(NCSI_F_HDIRTY | NCSI_F_NDIRTY);
    return status;
}

static int write_header(ncs_file *f)
{
    return write_model_header(f, &f->model);
}

static int write_numrecs(ncs_file *f)
{
    classic *cl = CL(f);
    unsigned char b[8];
    uint64_t n = f->model.numrecs;
    int status, w = f->version == 5 ? 8 : 4;
    for (int i = 0; i < w; i++)
        b[i] = (unsigned char)(n >> (8 * (w - 1 - i)));
    ncsi_ncbuf_numrecs(&cl->nb, f->version);
    status = nb_take(cl);
    if (status == NCS_NOERR)
        status = ncsi_pc_flush(cl->pc);
    if (status == NCS_NOERR)
        status = ncsi_pc_write_through(cl->pc, 4, b, (size_t)w);
    if (status == NCS_NOERR)
        f->flags &= ~NCSI_F_NDIRTY;
    return status;
}

/* The model of netCDF-C's buffer (cl->nb) reads this file's bytes through
 * the cache. */
static int nb_read(void *ctx, uint64_t off, unsigned char *buf, size_t n)
{
    ncs_file *f = ctx;
    return ncsi_pc_read(CL(f)->pc, off, buf, n);
}

/* [lo, hi) of [off, off+n) gets bytes[lo-off ...]. */
static int put_clipped(classic *cl, uint64_t off, const unsigned char *bytes, size_t n,
                       uint64_t lo, uint64_t hi)
{
    if (lo < off)
        lo = off;
    if (hi > off + n)
        hi = off + n;
    if (lo >= hi)
        return NCS_NOERR;
    return ncsi_pc_write(cl->pc, lo, bytes + (lo - off), (size_t)(hi - lo));
}

/* netCDF-C's buffer writes back stale bytes (copies of other offsets, left
 * in it when it slid up a block): the same bytes here, but only where the
 * file holds nothing (after the header, before the data; between the fixed
 * data and the records; past the end of the data), so that no byte of the
 * header or a variable can differ from what the calls made it. */
static int nb_stale(void *ctx, uint64_t off, const unsigned char *bytes, size_t n)
{
    ncs_file *f = ctx;
    classic *cl = CL(f);
    const ncs_model *m = &f->model;
    uint64_t end_fixed = cl->lay.begin_var, end = cl->lay.xsz;
    int status = NCS_NOERR, nrec = 0;
    for (int i = 0; i < m->nvars; i++) {
        const ncs_var *v = &m->vars[i];
        if (v->isrec)
            nrec++;
        else if (v->begin + v->len > end_fixed)
            end_fixed = v->begin + v->len;
    }
    if (m->nvars > 0) {
        end = nrec ? cl->lay.begin_rec + m->numrecs * cl->lay.recsize : end_fixed;
        status = put_clipped(cl, off, bytes, n, cl->lay.xsz, cl->lay.begin_var);
        if (status == NCS_NOERR && nrec)
            status = put_clipped(cl, off, bytes, n, end_fixed, cl->lay.begin_rec);
    }
    if (status == NCS_NOERR)
        status = put_clipped(cl, off, bytes, n, end, UINT64_MAX);
    return status;
}

/* The enddef's header, told to cl->nb before the fill values (netCDF-C
 * writes the header first); write_header then stays quiet. */
static int ncbuf_header_first(ncs_file *f)
{
    classic *cl = CL(f);
    uint64_t len = ncsi_hdr_len(&f->model, f->version);
    unsigned char *buf;
    if (!cl->nb.active)
        return NCS_NOERR;
    if (len > SIZE_MAX)
        return NCS_ERR(NCS_ENOMEM);
    buf = ncsi_malloc((size_t)len);
    if (buf == NULL)
        return NCS_ERR(NCS_ENOMEM);
    ncsi_hdr_encode(&f->model, f->version, buf);
    ncsi_ncbuf_header(&cl->nb, &f->model, f->version, buf, (size_t)len);
    free(buf);
    cl->nb_quiet = 1;
    return nb_take(cl);
}

/* Makes the file as long as netCDF-C's (cl->nb) with zeros at its end,
 * the bytes netCDF-C's buffer writes there. */
static int pad_like_netcdf(classic *cl)
{
    uint64_t have;
    int status = nb_take(cl);
    if (!cl->nb.active || status != NCS_NOERR)
        return status;
    status = ncsi_pc_flush(cl->pc);
    if (status == NCS_NOERR)
        status = ncsi_io_size(cl->io, &have);
    if (status == NCS_NOERR && have < cl->nb.flen)
        status = ncsi_io_set_size(cl->io, cl->nb.flen);
    return status;
}

/* Writes buffered data, then the header or numrecs if they changed. */
static int flush_all(ncs_file *f)
{
    int status = ncsi_pc_flush(CL(f)->pc);
    if (status != NCS_NOERR)
        return status;
    if (f->flags & NCSI_F_HDIRTY)
        return write_header(f);
    if (f->flags & NCSI_F_NDIRTY)
        return write_numrecs(f);
    return NCS_NOERR;
}

/* After each write to a shared file, as netCDF-C: the data and the record
 * count reach the file; other header changes wait for sync, close or
 * redef (so a header that changes twice between syncs is written once, and
 * the unused bytes after it are what netCDF-C leaves there). */
static int flush_shared(ncs_file *f)
{
    int status = ncsi_pc_flush(CL(f)->pc);
    if (status == NCS_NOERR && (f->flags & NCSI_F_NDIRTY))
        status = write_numrecs(f);
    return status;
}

/* ---- fill ------------------------------------------------------------------ */

/* The external bytes of v's fill value: its _FillValue attribute (which
 * must have v's type and one element) or the type's default. */
static int fill_value(const ncs_var *v, unsigned char *one)
{
    int i = ncsi_find_att(&v->atts, "_FillValue");
    if (i >= 0) {
        const ncs_att *a = &v->atts.a[i];
        if (a->type != v->type || a->nelems != 1)
            return NCS_ERR(NCS_EBADTYPE);
        memcpy(one, a->xval, v->xsz);
        return NCS_NOERR;
    }
    ncsi_default_fill(v->type, one, 1);
    return NCS_NOERR;
}

/* Writes nbytes of v's fill pattern at off (a partial element at the end
 * gets the leading bytes of the value, as netCDF-C writes padding). */
static int fill_region(ncs_file *f, const ncs_var *v, uint64_t off, uint64_t nbytes)
{
    classic *cl = CL(f);
    unsigned char one[8];
    size_t cap = SCRATCH_CAP - SCRATCH_CAP % 8;
    size_t pat = nbytes < cap ? (size_t)NCS_RNDUP(nbytes, 8) : cap;
    uint64_t off0 = off, n0 = nbytes;
    int status = fill_value(v, one);
    if (status != NCS_NOERR)
        return status;
    /* only as much pattern as this fill writes, doubling it */
    memcpy(cl->scratch, one, v->xsz);
    for (size_t len = v->xsz; len < pat; len *= 2)
        memcpy(cl->scratch + len, cl->scratch, len < pat - len ? len : pat - len);
    while (nbytes > 0 && status == NCS_NOERR) {
        size_t k = nbytes < pat ? (size_t)nbytes : pat;
        status = ncsi_pc_write(cl->pc, off, cl->scratch, k);
        off += k;
        nbytes -= k;
    }
    if (status == NCS_NOERR) {
        ncsi_ncbuf_span(&cl->nb, off0, n0, 1);
        status = nb_take(cl);
    }
    return status;
}

/* 1 when every record variable has a usable fill value: then filling the
 * new records cannot stop half-way, and a variable the put overwrites in
 * whole need not be filled first.  Otherwise netCDF-C, which fills them
 * all in order, writes the variables before the refused one and returns
 * NC_EBADTYPE; a fill that skips none does the same. */
static int rec_fills_ok(const ncs_model *m)
{
    unsigned char one[8];
    for (int i = 0; i < m->nvars; i++)
        if (m->vars[i].isrec && fill_value(&m->vars[i], one) != NCS_NOERR)
            return 0;
    return 1;
}

/* Fills records [m->numrecs, nrecs) of every record variable but skip (a
 * variable the put under way overwrites there in whole, or -1). */
static int fill_records(ncs_file *f, uint64_t nrecs, int skip)
{
    classic *cl = CL(f);
    ncs_model *m = &f->model;
    int single = count_recvars(m) == 1;
    for (uint64_t r = m->numrecs; r < nrecs; r++) {
        for (int i = 0; i < m->nvars; i++) {
            const ncs_var *v = &m->vars[i];
            int status;
            if (!v->isrec || i == skip)
                continue;
            status = fill_region(f, v, v->begin + r * cl->lay.recsize,
                                 single ? cl->lay.recsize : v->len);
            if (status != NCS_NOERR)
                return status;
        }
    }
    return NCS_NOERR;
}

/* ---- enddef ------------------------------------------------------------------ */

/* Moves n bytes from 'from' to 'to'; in a file without a journal, logs the
 * move so that a failure can undo it. */
static int logged_move(classic *cl, uint64_t to, uint64_t from, uint64_t n)
{
    uint64_t done;
    int status;
    if (!cl->log_moves) {
        status = ncsi_pc_move(cl->pc, to, from, n, NULL);
        if (status == NCS_NOERR) {
            ncsi_ncbuf_move(&cl->nb, to, from, n);
            status = nb_take(cl);
        }
        return status;
    }
    if (cl->nmoves == cl->capmoves) {
        size_t cap = cl->capmoves ? cl->capmoves * 2 : 16;
        struct move *nm = ncsi_realloc(cl->moves, cap * sizeof *nm);
        if (nm == NULL)
            return NCS_ERR(NCS_ENOMEM);
        cl->moves = nm;
        cl->capmoves = cap;
    }
    status = ncsi_pc_move(cl->pc, to, from, n, &done);
    if (status == NCS_NOERR) {
        ncsi_ncbuf_move(&cl->nb, to, from, n);
        status = nb_take(cl);
    }
    /* only what was moved (the end of the range: moves here go up) is
     * logged, so an undo never copies back bytes it did not move */
    if (done > 0)
        cl->moves[cl->nmoves++] = (struct move){ to + n - done, from + n - done, done };
    return status;
}

/* Undoes the logged moves, last first.  Moves go from high addresses to
 * low, so each destination held only data that an earlier (higher) move had
 * already copied away: copying every destination back, in reverse order,
 * restores the old layout byte for byte. */
static int undo_moves(classic *cl)
{
    int status = NCS_NOERR;
    while (cl->nmoves > 0) {
        const struct move *mv = &cl->moves[--cl->nmoves];
        int s2 = ncsi_pc_move(cl->pc, mv->from, mv->to, mv->n, NULL);
        if (status == NCS_NOERR)
            status = s2;
    }
    return status;
}

/* Records move when the record section moved up or a record grew; fixed
 * variables when begin_var moved up (netCDF-C's NC_endef decisions). */
static void moves_needed(const ncs_layout *nl, const ncs_layout *ol, int *fixed, int *recs)
{
    *fixed = nl->begin_var > ol->begin_var;
    *recs = nl->begin_rec > ol->begin_rec || nl->recsize > ol->recsize;
}

static int move_records(ncs_file *f, const ncs_model *old, uint64_t old_recsize)
{
    classic *cl = CL(f);
    const ncs_model *m = &f->model;
    for (uint64_t r = old->numrecs; r-- > 0;) {
        for (int i = old->nvars - 1; i >= 0; i--) {
            const ncs_var *nv = &m->vars[i], *ov = &old->vars[i];
            uint64_t to, from;
            int status;
            if (!nv->isrec)
                continue;
            to = nv->begin + cl->lay.recsize * r;
            from = ov->begin + old_recsize * r;
            if (to == from)
                continue;
            status = logged_move(cl, to, from, ov->len);
            if (status != NCS_NOERR)
                return status;
        }
    }
    return NCS_NOERR;
}

static int move_fixed(ncs_file *f, const ncs_model *old)
{
    classic *cl = CL(f);
    for (int i = old->nvars - 1; i >= 0; i--) {
        const ncs_var *nv = &f->model.vars[i], *ov = &old->vars[i];
        int status;
        if (nv->isrec || nv->begin <= ov->begin)
            continue;
        status = logged_move(cl, nv->begin, ov->begin, ov->len);
        if (status != NCS_NOERR)
            return status;
    }
    return NCS_NOERR;
}

/* Moves the old layout's data to the new one, from the end of the file
 * backwards: the records first when their section moves up (the fixed
 * data may move into their old place), else the fixed data first. */
static int move_data(ncs_file *f, const ncs_model *old, const ncs_layout *ol)
{
    const ncs_layout *nl = &CL(f)->lay;
    int fixed, recs, status = NCS_NOERR;
    moves_needed(nl, ol, &fixed, &recs);
    if (nl->begin_rec > ol->begin_rec) {
        status = move_records(f, old, ol->recsize);
        if (status == NCS_NOERR && fixed)
            status = move_fixed(f, old);
    } else {
        if (fixed)
            status = move_fixed(f, old);
        if (status == NCS_NOERR && recs)
            status = move_records(f, old, ol->recsize);
    }
    return status;
}

/* The fill values of the variables a redefinition adds: a _FillValue of
 * the wrong type is refused before anything moves (netCDF-C finds it in
 * the middle of the fill, after moving the data and writing the header,
 * and its retry then moves the data a second time from places already
 * overwritten). */
static int check_fills(const ncs_model *m, const ncs_model *old)
{
    unsigned char one[8];
    for (int i = old->nvars; i < m->nvars; i++) {
        int status = fill_value(&m->vars[i], one);
        if (status != NCS_NOERR)
            return status;
    }
    return NCS_NOERR;
}

/* Fill values of the variables added since ncs_redef (all, after create):
 * fixed-size ones, then the new record variables in every existing
 * record, in netCDF-C's order. */
static int fill_new(ncs_file *f, const ncs_model *old)
{
    classic *cl = CL(f);
    const ncs_model *m = &f->model;
    int first_new = old == NULL ? 0 : old->nvars;
    int single = count_recvars(m) == 1, status;
    for (int i = first_new; i < m->nvars; i++) {
        const ncs_var *v = &m->vars[i];
        if (v->isrec)
            continue;
        status = fill_region(f, v, v->begin, v->len);
        if (status != NCS_NOERR)
            return status;
    }
    if (old == NULL)
        return NCS_NOERR;
    for (uint64_t r = 0; r < old->numrecs; r++) {
        for (int i = first_new; i < m->nvars; i++) {
            const ncs_var *v = &m->vars[i];
            if (!v->isrec)
                continue;
            status = fill_region(f, v, v->begin + r * cl->lay.recsize,
                                 single ? cl->lay.recsize : v->len);
            if (status != NCS_NOERR)
                return status;
        }
    }
    return NCS_NOERR;
}

/* ---- what a redefinition overwrites ---------------------------------------- */

/* a + b, or UINT64_MAX when that overflows (the end of an open range). */
static uint64_t add_sat(uint64_t a, uint64_t b)
{
    uint64_t r;
    return ncsi_add_u64(a, b, &r) ? UINT64_MAX : r;
}

static void add_range(ncs_range *r, size_t *n, uint64_t lo, uint64_t hi)
{
    if (hi > lo)
        r[(*n)++] = (ncs_range){ lo, hi - lo };
}

static int cmp_range(const void *a, const void *b)
{
    const ncs_range *x = a, *y = b;
    return x->off < y->off ? -1 : x->off > y->off;
}

/* Sorts r and merges ranges that overlap or touch; returns the new count. */
static size_t merge_ranges(ncs_range *r, size_t n)
{
    size_t k = 0;
    qsort(r, n, sizeof *r, cmp_range);
    for (size_t i = 0; i < n; i++) {
        if (k > 0 && r[i].off <= r[k - 1].off + r[k - 1].len) {
            uint64_t end = r[i].off + r[i].len;
            if (end > r[k - 1].off + r[k - 1].len)
                r[k - 1].len = end - r[k - 1].off;
        } else {
            r[k++] = r[i];
        }
    }
    return k;
}

/* The bytes of the old file that this enddef will overwrite and that hold
 * something: the old header and every old variable's data (what holds
 * something), intersected with the new header, the new places of the data
 * that moves and the fill of the new variables (what is written), inside
 * the old file's size.  Gaps between them, and whatever lies past the old
 * end of the file, are not journaled.  *rp (to free) gets the ranges,
 * sorted and disjoint, *np their number.  Ranges only grow with the
 * number of variables: all records are one range. */
static int overwritten_ranges(ncs_file *f, const ncs_model *old, const ncs_layout *ol,
                              uint64_t size, ncs_range **rp, size_t *np)
{
    const ncs_model *m = &f->model;
    const ncs_layout *nl = &CL(f)->lay;
    size_t cap = (size_t)old->nvars + 2, nh = 0, nw = 0, n = 0, i = 0, k = 0;
    ncs_range *held = ncsi_malloc(cap * sizeof *held);
    ncs_range *wrote = ncsi_malloc((cap + (size_t)m->nvars) * sizeof *wrote);
    ncs_range *out = ncsi_malloc((2 * cap + (size_t)m->nvars) * sizeof *out);
    uint64_t rec_lo = UINT64_MAX, rec_hi = 0, rec_wlo = UINT64_MAX;
    int fixed, recs, status = NCS_NOERR;

    if (held == NULL || wrote == NULL || out == NULL) {
        status = NCS_ERR(NCS_ENOMEM);
        goto cleanup;
    }
    moves_needed(nl, ol, &fixed, &recs);
    add_range(held, &nh, 0, ol->xsz);
    add_range(wrote, &nw, 0, nl->xsz);
    for (int v = 0; v < old->nvars; v++) {
        const ncs_var *ov = &old->vars[v], *nv = &m->vars[v];
        if (!ov->isrec) {
            add_range(held, &nh, ov->begin, add_sat(ov->begin, ov->len));
            if (fixed && nv->begin > ov->begin)
                add_range(wrote, &nw, nv->begin, add_sat(nv->begin, ov->len));
            continue;
        }
        if (ov->begin < rec_lo)
            rec_lo = ov->begin;
        if (add_sat(ov->begin, ov->len) > rec_hi)
            rec_hi = add_sat(ov->begin, ov->len);
        if (recs && old->numrecs > 0) {
            /* the lowest byte its moves write: in record 0 when it changed
             * place, else in record 1 when records changed size */
            uint64_t lo = nv->begin != ov->begin ? nv->begin
                        : old->numrecs > 1 && nl->recsize != ol->recsize
                        ? add_sat(nv->begin, nl->recsize) : UINT64_MAX;
            if (lo < rec_wlo)
                rec_wlo = lo;
        }
    }
    if (old->numrecs > 0 && rec_hi > 0) {
        uint64_t span;
        if (ncsi_mul_u64(old->numrecs - 1, ol->recsize, &span))
            span = UINT64_MAX;
        add_range(held, &nh, rec_lo, add_sat(rec_hi, span));
    }
    if (!(f->flags & NCSI_F_NOFILL)) {
        for (int v = old->nvars; v < m->nvars; v++) {
            const ncs_var *nv = &m->vars[v];
            if (!nv->isrec)
                add_range(wrote, &nw, nv->begin, add_sat(nv->begin, nv->len));
            else if (old->numrecs > 0 && nv->begin < rec_wlo)
                rec_wlo = nv->begin;
        }
    }
    /* every write into the records lies at or above rec_wlo */
    add_range(wrote, &nw, rec_wlo, UINT64_MAX);
    nh = merge_ranges(held, nh);
    nw = merge_ranges(wrote, nw);
    while (i < nh && k < nw) {
        uint64_t lo = held[i].off > wrote[k].off ? held[i].off : wrote[k].off;
        uint64_t he = held[i].off + held[i].len, we = wrote[k].off + wrote[k].len;
        uint64_t hi = he < we ? he : we;
        if (hi > size)
            hi = size;
        add_range(out, &n, lo, hi);
        if (he < we)
            i++;
        else
            k++;
    }
    *rp = out;
    *np = n;
    out = NULL;

cleanup:
    free(out);
    free(wrote);
    free(held);
    return status;
}

/* ---- enddef proper ------------------------------------------------------------- */

/* What an enddef changes in memory, to put back if it fails. */
typedef struct saved {
    ncs_layout lay;
    uint64_t *begins;       /* each variable's offset */
    int flags;              /* NCSI_F_HDIRTY, NCSI_F_NDIRTY */
    uint64_t size;          /* the file's size (a redefinition with a journal) */
} saved;

/* Before a redefinition of a file with committed content writes anything:
 * the old layout's cached data goes to the file, then what the enddef will
 * overwrite goes to the journal (*jp; NULL when nothing that holds
 * something will be overwritten). */
static int redef_begin(ncs_file *f, const ncs_model *old, saved *sv, ncs_journal **jp)
{
    classic *cl = CL(f);
    ncs_range *r = NULL;
    size_t n = 0;
    int status = ncsi_pc_flush(cl->pc);
    if (status == NCS_NOERR)
        status = ncsi_io_size(cl->io, &sv->size);
    if (status == NCS_NOERR)
        status = overwritten_ranges(f, old, &sv->lay, sv->size, &r, &n);
    if (status == NCS_NOERR && n > 0)
        status = ncsi_journal_begin(f->path, cl->io, sv->size, r, n, jp);
    /* a file name with no room for the journal's suffix: redefined as a
     * file without committed content is (doc/reliability.md) */
    if (status == ENAMETOOLONG)
        status = NCS_NOERR;
    free(r);
    return status;
}

/* Puts back what a failed enddef changed: the file's bytes (from the
 * journal j, or, in a file without one, by undoing the logged moves and
 * rewriting the old header when the enddef of a redefinition got as far
 * as writing), the layout, the variables' offsets and the header flags,
 * so that a retry starts again from the old layout.  When the file cannot
 * be put back, nothing more is written to it (cl->broken) and its journal
 * waits for the next open.  (A journal whose commit failed after deleting
 * it has set cl->broken already: j is NULL, the file keeps its new
 * layout.) */
static void enddef_undo(ncs_file *f, const saved *sv, ncs_journal *j, int written)
{
    classic *cl = CL(f);
    int status = NCS_NOERR;
    if (j != NULL) {
        /* the cache holds pieces of the new layout, and its old pages
         * were all written before the journal: drop them */
        ncsi_pc_discard(cl->pc, sv->size);
        status = ncsi_journal_rollback(j, cl->io);
    } else if (written && cl->log_moves) {
        status = undo_moves(cl);
        if (status == NCS_NOERR)
            status = ncsi_pc_flush(cl->pc);
        if (status == NCS_NOERR)
            status = write_model_header(f, f->old);
    }
    if (status != NCS_NOERR)
        cl->broken = status;
    cl->lay = sv->lay;
    for (int i = 0; i < f->model.nvars; i++)
        f->model.vars[i].begin = sv->begins[i];
    f->flags = (f->flags & ~(NCSI_F_HDIRTY | NCSI_F_NDIRTY)) | sv->flags;
    /* the fast path is off in define mode; a failure here only delays it */
    (void)fast_rebuild(f);
}

/* Lays out the model and writes it: after ncs_create, the fill values and
 * the header; after ncs_redef, the moved data, the fill values of the new
 * variables and the new header, in that order, so that the header never
 * describes data not yet in the file.  A file holding committed content
 * is redefined under a journal (journal.c): the old bytes that will be
 * overwritten are journaled first, and deleting the journal after the
 * data file is synced commits the redefinition. */
static int cl_enddef(ncs_file *f, size_t h_minfree, size_t v_align,
                     size_t v_minfree, size_t r_align)
{
    classic *cl = CL(f);
    ncs_model *m = &f->model;
    const ncs_model *old = f->old;
    ncs_journal *j = NULL;
    saved sv;
    int status, written = 0, keep_layout = 0;

    if (cl->broken)
        return cl->broken;
    status = check_vlens(m, f->version);
    if (status == NCS_NOERR && old != NULL && !(f->flags & NCSI_F_NOFILL))
        status = check_fills(m, old);
    if (status != NCS_NOERR)
        return status;
    sv.lay = cl->lay;
    sv.flags = f->flags & (NCSI_F_HDIRTY | NCSI_F_NDIRTY);
    sv.size = 0;
    sv.begins = ncsi_malloc(((size_t)m->nvars + 1) * sizeof *sv.begins);
    if (sv.begins == NULL)
        return NCS_ERR(NCS_ENOMEM);
    for (int i = 0; i < m->nvars; i++)
        sv.begins[i] = m->vars[i].begin;
    cl->nmoves = 0;

    status = layout(f, old, h_minfree, v_align, v_minfree, r_align);
    if (status == NCS_NOERR) {
        /* Variables that keep their places after a redefinition can leave
         * a new record variable overlapping the old ones: refuse to write
         * such a header, as netCDF-C does (NC_ENOTNC, still in define
         * mode). */
        ncs_layout check = cl->lay;
        status = ncsi_hdr_check_layout(m, &check);
        if (status != NCS_NOERR) {
            cl->has_hint = 1;
            cl->hint_begin_var = cl->lay.begin_var;
            cl->hint_begin_rec = cl->lay.begin_rec;
        }
    }
    if (status == NCS_NOERR && old == NULL)
        m->numrecs = 0;
    if (status == NCS_NOERR && old != NULL && cl->committed)
        status = redef_begin(f, old, &sv, &j);
    cl->log_moves = j == NULL;
    if (status == NCS_NOERR && old != NULL) {
        written = 1;
        status = move_data(f, old, &sv.lay);
    }
    if (status == NCS_NOERR)
        status = fast_rebuild(f);
    if (status == NCS_NOERR)
        status = ncbuf_header_first(f);
    if (status == NCS_NOERR && !(f->flags & NCSI_F_NOFILL)) {
        status = fill_new(f, old);
        if (status == NCS_EBADTYPE) {
            /* After ncs_create (a redefinition checked first), a
             * _FillValue of the wrong type stops the fill.  netCDF-C has
             * written the header by then and keeps the layout it computed
             * for the retry; so does this, for the same bytes. */
            int s2 = write_header(f);
            keep_layout = s2 == NCS_NOERR;
            status = keep_layout ? NCS_EBADTYPE : s2;
        }
    }
    if (status == NCS_NOERR)
        status = write_header(f);
    if (status == NCS_NOERR && j != NULL) {
        /* the new layout complete on storage before the commit */
        status = ncsi_io_sync(cl->io);
        if (status == NCS_NOERR)
            status = ncsi_journal_commit(&j, cl->io);
        if (status != NCS_NOERR && j == NULL)
            cl->broken = status;    /* committed, not surely durable */
    }
    if (status != NCS_NOERR && !keep_layout)
        enddef_undo(f, &sv, j, written);
    cl->nb_quiet = 0;
    cl->nmoves = 0;
    if (status == NCS_NOERR) {
        cl->has_hint = 0;
        /* netCDF-C's enddef ends with a sync of its buffer */
        ncsi_ncbuf_sync(&cl->nb);
        status = pad_like_netcdf(cl);
    }
    free(sv.begins);
    return status;
}

/* ---- data ---------------------------------------------------------------------- */

typedef struct xfer {
    ncs_file *f;
    classic *cl;
    const ncs_var *v;
    int memtype;
    size_t msz;
    unsigned char *buf;
    int erange;
    uint64_t lo, hi;             /* the bytes the blocks so far reach */
} xfer;

/* Notes the bytes from a block's first row at off to the end of its last,
 * for note_xfer. */
static void xfer_reach(xfer *x, uint64_t off, const ncs_block *b, uint64_t rgap, uint64_t span)
{
    uint64_t end = off + (b->rows - 1) * rgap + span;
    if (off < x->lo)
        x->lo = off;
    if (end > x->hi)
        x->hi = end;
}

static uint64_t run_offset(const xfer *x, uint64_t rec, uint64_t elem)
{
    return x->v->begin + rec * x->cl->lay.recsize + elem * x->v->xsz;
}

/* Runs whose bytes span at most this much go through the cached pages
 * in place; longer ones bypass the cache rather than evict it. */
#define IN_PAGE_MAX (32 * (uint64_t)PAGE_SIZE)

/* How many of the n elements from off, gap bytes apart, lie with all their
 * bytes inside the page off is in (0 when the first straddles a page). */
static uint64_t in_page(uint64_t off, uint64_t n, uint64_t gap, size_t xsz)
{
    uint64_t room = PAGE_SIZE - off % PAGE_SIZE, k;
    if (room < xsz)
        return 0;
    k = (room - xsz) / gap + 1;
    return k < n ? k : n;
}

/* n elements gap bytes apart from off (elements of xsz bytes), decoded by
 * dec into mem, mstep memory elements of msz bytes apart, straight from
 * the cached pages: the elements whole in a page in one call, no copy of
 * the bytes between them; an element across two pages through an 8-byte
 * buffer.  Sets *bad when an element is out of range.  (A fast path: the
 * general code of get_run reads covering spans into the scratch buffer.) */
static int decode_paged(ncs_pc *pc, uint64_t off, uint64_t n, uint64_t gap, size_t xsz,
                        ncsi_conv_fn dec, unsigned char *mem, ptrdiff_t mstep, size_t msz,
                        int *bad)
{
    ptrdiff_t step = (ptrdiff_t)(gap / xsz), mgap = mstep * (ptrdiff_t)msz;
    while (n > 0) {
        uint64_t k = in_page(off, n, gap, xsz);
        const unsigned char *p;
        unsigned char one[8];
        int status = NCS_NOERR;
        if (k > 0) {
            if ((p = ncsi_pc_page(pc, off / PAGE_SIZE, &status)) == NULL)
                return status;
            p += off % PAGE_SIZE;
        } else {
            k = 1;
            if ((status = ncsi_pc_read(pc, off, one, xsz)) != NCS_NOERR)
                return status;
            p = one;
        }
        *bad |= dec(p, step, mem, mstep, (size_t)k) != 0;
        n -= k;
        off += k * gap;
        mem += (ptrdiff_t)k * mgap;
    }
    return NCS_NOERR;
}

/* Copies n bytes: the decoder of a 1-byte type into itself, whose loop
 * the compiler does not turn into memcpy.  Short rows are copied 8 bytes
 * at a time: glibc's memcpy took 11 ns for each 40-byte row of a 10x20x1x40
 * byte get (rows 1200 bytes apart), this loop 2.5 ns. */
static int copy_bytes(const void *src, ptrdiff_t sstep, void *dst, ptrdiff_t dstep, size_t n)
{
    const unsigned char *s = src;
    unsigned char *d = dst;
    (void)sstep, (void)dstep;
    if (n > 128) {
        memcpy(dst, src, n);
        return 0;
    }
    for (; n >= 8; n -= 8, s += 8, d += 8) {
        uint64_t t;
        memcpy(&t, s, 8);
        memcpy(d, &t, 8);
    }
    while (n--)
        *d++ = *s++;
    return 0;
}

/* The loop that decodes xtype into memtype, runs xstep file elements and
 * mstep memory elements apart: copy_bytes where that is a copy of bytes. */
static ncsi_conv_fn run_decoder(int xtype, int memtype, int version, ptrdiff_t xstep,
                                ptrdiff_t mstep)
{
    ncsi_conv_fn dec = ncsi_decoder(xtype, memtype, version);
    if (xstep == 1 && mstep == 1 && ncsi_type_size(xtype) == 1 &&
        ncsi_type_size(memtype) == 1 && dec == ncsi_decoder(xtype, xtype, version))
        return copy_bytes;
    return dec;
}

/* A run of n elements gap bytes apart from off (elements of xsz bytes)
 * whose span is at most a page, from mem (mstep memory elements apart),
 * encoded into the cached pages: into one page, or into two with the
 * element across the boundary (if any) through an 8-byte buffer.  Sets
 * *bad when an element is out of range. */
static int encode_span(ncs_file *f, uint64_t off, uint64_t n, uint64_t gap, size_t xsz,
                       int xtype, int memtype, const unsigned char *mem, ptrdiff_t mstep,
                       int *bad)
{
    ncs_pc *pc = CL(f)->pc;
    uint64_t in = off % PAGE_SIZE, span = (n - 1) * gap + xsz;
    ptrdiff_t step = (ptrdiff_t)(gap / xsz), mgap = mstep * (ptrdiff_t)ncsi_type_size(memtype);
    uint64_t e = in + span <= PAGE_SIZE ? n : in_page(off, n, gap, xsz);
    unsigned char *p, one[8];
    int status;
    if (e > 0) {
        if ((p = ncsi_pc_span(pc, off, (size_t)((e - 1) * gap + xsz), 1, &status)) == NULL)
            return status;
        *bad |= ncsi_encode_strided(xtype, p, step, (size_t)e, memtype, mem, mstep,
                                    f->version) != 0;
    }
    if (e < n && in + e * gap < PAGE_SIZE) {
        *bad |= ncsi_encode_strided(xtype, one, 1, 1, memtype, mem + (ptrdiff_t)e * mgap, 1,
                                    f->version) != 0;
        if ((status = ncsi_pc_write(pc, off + e * gap, one, xsz)) != NCS_NOERR)
            return status;
        e++;
    }
    if (e < n) {
        if ((p = ncsi_pc_span(pc, off + e * gap, (size_t)((n - e - 1) * gap + xsz), 1,
                              &status)) == NULL)
            return status;
        *bad |= ncsi_encode_strided(xtype, p, step, (size_t)(n - e), memtype,
                                    mem + (ptrdiff_t)e * mgap, mstep, f->version) != 0;
    }
    return NCS_NOERR;
}

static int get_run(void *ctx, uint64_t rec, uint64_t elem, uint64_t n,
                   uint64_t fstep, ptrdiff_t moff, ptrdiff_t mstep)
{
    xfer *x = ctx;
    const ncs_var *v = x->v;
    size_t xsz = v->xsz;
    uint64_t off = run_offset(x, rec, elem);
    unsigned char *mem = x->buf + moff * (ptrdiff_t)x->msz;
    uint64_t gap = fstep * xsz;              /* bytes between run elements */
    int status = NCS_NOERR;

    /* A read-only file shorter than the data its header describes was cut
     * short: report it rather than make up values.  (netCDF-C reads zeros
     * there, and itself leaves a nofill file short of its last record's
     * end when its close-time size falls below the record variables after
     * a redefinition: doc/format.md.  Those reads fail here too.) */
    if (!(x->f->flags & NCSI_F_WRITE) &&
        off + (n - 1) * gap + xsz > ncsi_pc_logical_size(x->cl->pc))
        return NCS_ERR(NCS_ETRUNC);

    /* page by page, decoding straight from the cached pages (fast path: the
     * general code below copies through the scratch buffer) */
    if (ncsi_fastpath && (fstep > 1 || (n - 1) * gap + xsz <= IN_PAGE_MAX))
        return decode_paged(x->cl->pc, off, n, gap, xsz,
                            run_decoder(v->type, x->memtype, x->f->version,
                                        (ptrdiff_t)fstep, mstep),
                            mem, mstep, x->msz, &x->erange);
    if (!ncsi_fastpath && fstep == 1 && n * xsz <= PAGE_SIZE) {
        const unsigned char *p = ncsi_pc_span(x->cl->pc, off, (size_t)(n * xsz), 0, &status);
        if (p != NULL) {
            if (ncsi_decode(v->type, p, (size_t)n, x->memtype, mem, mstep, x->f->version))
                x->erange = 1;
            return NCS_NOERR;
        }
        if (status != NCS_NOERR)
            return status;
    }
    if (gap <= 4096) {
        /* read covering spans, as many elements as the scratch holds */
        uint64_t per = (SCRATCH_CAP - xsz) / gap + 1;
        while (n > 0) {
            uint64_t k = n < per ? n : per;
            size_t span = (size_t)((k - 1) * gap + xsz);
            status = ncsi_pc_read(x->cl->pc, off, x->cl->scratch, span);
            if (status != NCS_NOERR)
                return status;
            if (ncsi_decode_strided(v->type, x->cl->scratch, (ptrdiff_t)fstep, (size_t)k,
                                    x->memtype, mem, mstep, x->f->version))
                x->erange = 1;
            n -= k;
            off += k * gap;
            mem += (ptrdiff_t)k * mstep * (ptrdiff_t)x->msz;
        }
        return NCS_NOERR;
    }
    for (uint64_t i = 0; i < n; i++) {
        unsigned char e[8];
        status = ncsi_pc_read(x->cl->pc, off + i * gap, e, xsz);
        if (status != NCS_NOERR)
            return status;
        if (ncsi_decode(v->type, e, 1, x->memtype, mem + (ptrdiff_t)i * mstep * (ptrdiff_t)x->msz,
                        1, x->f->version))
            x->erange = 1;
    }
    return NCS_NOERR;
}

static int put_run(void *ctx, uint64_t rec, uint64_t elem, uint64_t n,
                   uint64_t fstep, ptrdiff_t moff, ptrdiff_t mstep)
{
    xfer *x = ctx;
    const ncs_var *v = x->v;
    size_t xsz = v->xsz;
    uint64_t off = run_offset(x, rec, elem);
    const unsigned char *mem = x->buf + moff * (ptrdiff_t)x->msz;
    uint64_t gap = fstep * xsz;
    int status = NCS_NOERR;

    /* encoding straight into the cached pages; the bytes between strided
     * elements are the page's, read from the file.  A run longer than a
     * page goes to the file directly, as without the fast path (it needs no
     * read of the pages it covers). */
    if (ncsi_fastpath && (n - 1) * gap + xsz <= PAGE_SIZE)
        return encode_span(x->f, off, n, gap, xsz, v->type, x->memtype, mem, mstep,
                           &x->erange);
    if (!ncsi_fastpath && fstep == 1 && n * xsz <= PAGE_SIZE) {
        unsigned char *p = ncsi_pc_span(x->cl->pc, off, (size_t)(n * xsz), 1, &status);
        if (p != NULL) {
            if (ncsi_encode(v->type, p, (size_t)n, x->memtype, mem, mstep, x->f->version))
                x->erange = 1;
            return NCS_NOERR;
        }
        if (status != NCS_NOERR)
            return status;
    }
    if (fstep == 1 || gap <= 4096) {
        uint64_t per = (SCRATCH_CAP - xsz) / gap + 1;
        while (n > 0) {
            uint64_t k = n < per ? n : per;
            size_t span = (size_t)((k - 1) * gap + xsz);
            if (fstep != 1) {
                /* keep the bytes between the elements */
                status = ncsi_pc_read(x->cl->pc, off, x->cl->scratch, span);
                if (status != NCS_NOERR)
                    return status;
            }
            if (ncsi_encode_strided(v->type, x->cl->scratch, (ptrdiff_t)fstep, (size_t)k,
                                    x->memtype, mem, mstep, x->f->version))
                x->erange = 1;
            status = ncsi_pc_write(x->cl->pc, off, x->cl->scratch, span);
            if (status != NCS_NOERR)
                return status;
            n -= k;
            off += k * gap;
            mem += (ptrdiff_t)k * mstep * (ptrdiff_t)x->msz;
        }
        return NCS_NOERR;
    }
    for (uint64_t i = 0; i < n; i++) {
        unsigned char e[8];
        if (ncsi_encode(v->type, e, 1, x->memtype, mem + (ptrdiff_t)i * mstep * (ptrdiff_t)x->msz,
                        1, x->f->version))
            x->erange = 1;
        status = ncsi_pc_write(x->cl->pc, off + i * gap, e, xsz);
        if (status != NCS_NOERR)
            return status;
    }
    return NCS_NOERR;
}

/* Row i of block b through the general run code. */
static int row_get(xfer *x, const ncs_block *b, uint64_t i)
{
    return get_run(x, b->rec + i * b->rrec, b->elem + i * b->rfstep, b->n, b->fstep,
                   b->moff + (ptrdiff_t)i * b->rmstep, b->mstep);
}

static int row_put(xfer *x, const ncs_block *b, uint64_t i)
{
    return put_run(x, b->rec + i * b->rrec, b->elem + i * b->rfstep, b->n, b->fstep,
                   b->moff + (ptrdiff_t)i * b->rmstep, b->mstep);
}

/* A block row by row.  Fast path: rows that lie inside one cached page are
 * decoded from it directly, the page found once for all the rows in it;
 * others (and everything without the fast path) go through get_run. */
static int get_block(void *ctx, const ncs_block *b)
{
    xfer *x = ctx;
    size_t xsz = x->v->xsz;
    uint64_t gap = b->fstep * xsz, rgap = b->rfstep * xsz + b->rrec * x->cl->lay.recsize;
    uint64_t span = (b->n - 1) * gap + xsz, off = run_offset(x, b->rec, b->elem);
    uint64_t lo = 1, hi = 0;                 /* the page at hand: [lo, hi) */
    const unsigned char *page = NULL;
    unsigned char *mem = x->buf + b->moff * (ptrdiff_t)x->msz;
    ptrdiff_t rmem = b->rmstep * (ptrdiff_t)x->msz;
    int status;

    xfer_reach(x, off, b, rgap, span);
    if (!ncsi_fastpath || b->rows == 1 || span > PAGE_SIZE ||
        (!(x->f->flags & NCSI_F_WRITE) &&
         off + (b->rows - 1) * rgap + span > ncsi_pc_logical_size(x->cl->pc)))
        goto rows;
    for (uint64_t i = 0; i < b->rows; i++, off += rgap, mem += rmem) {
        if (off < lo || off + span > hi) {
            const unsigned char *p;
            if (off % PAGE_SIZE + span > PAGE_SIZE) {
                /* the row straddles two pages */
                status = row_get(x, b, i);
                if (status != NCS_NOERR)
                    return status;
                lo = 1, hi = 0;
                continue;
            }
            /* inside one page: only an I/O error gives no pointer */
            p = ncsi_pc_span(x->cl->pc, off, (size_t)span, 0, &status);
            if (p == NULL)
                return status;
            lo = off - off % PAGE_SIZE;
            hi = lo + PAGE_SIZE;
            page = p - off % PAGE_SIZE;
        }
        if (ncsi_decode_strided(x->v->type, page + (off - lo), (ptrdiff_t)b->fstep,
                                (size_t)b->n, x->memtype, mem, b->mstep, x->f->version))
            x->erange = 1;
    }
    return NCS_NOERR;
rows:
    for (uint64_t i = 0; i < b->rows; i++) {
        status = row_get(x, b, i);
        if (status != NCS_NOERR)
            return status;
    }
    return NCS_NOERR;
}

/* A block row by row, each row encoded into its cached page when the page
 * holds it whole (fast path), else through put_run. */
static int put_block(void *ctx, const ncs_block *b)
{
    xfer *x = ctx;
    size_t xsz = x->v->xsz;
    uint64_t gap = b->fstep * xsz, rgap = b->rfstep * xsz + b->rrec * x->cl->lay.recsize;
    uint64_t span = (b->n - 1) * gap + xsz, off = run_offset(x, b->rec, b->elem);
    const unsigned char *mem = x->buf + b->moff * (ptrdiff_t)x->msz;
    ptrdiff_t rmem = b->rmstep * (ptrdiff_t)x->msz;
    int status = NCS_NOERR;

    xfer_reach(x, off, b, rgap, span);
    for (uint64_t i = 0; i < b->rows; i++, off += rgap, mem += rmem) {
        unsigned char *p = NULL;
        if (ncsi_fastpath && span <= PAGE_SIZE && off % PAGE_SIZE + span <= PAGE_SIZE) {
            p = ncsi_pc_span(x->cl->pc, off, (size_t)span, 1, &status);
            if (status != NCS_NOERR)
                return status;
        }
        if (p != NULL) {
            if (ncsi_encode_strided(x->v->type, p, (ptrdiff_t)b->fstep, (size_t)b->n,
                                    x->memtype, mem, b->mstep, x->f->version))
                x->erange = 1;
            continue;
        }
        status = row_put(x, b, i);
        if (status != NCS_NOERR)
            return status;
    }
    return NCS_NOERR;
}

/* What netCDF-C's buffer is asked for a data request: the bytes from its
 * first element to the end of its last.  netCDF-C asks for each run of the
 * request, in order, inside that span; where its buffer's length matters,
 * near a header whose windows reach past the data, the runs of the small
 * requests there cover the span. */
static inline int note_span(classic *cl, uint64_t lo, uint64_t n, int write)
{
    if (!ncsi_ncbuf_inside(&cl->nb, lo, n, write))
        ncsi_ncbuf_span(&cl->nb, lo, n, write);
    return nb_take(cl);
}

static inline int note_data(classic *cl, uint64_t lo, uint64_t last, int xsz, int write)
{
    return note_span(cl, lo, last + (uint64_t)xsz - lo, write);
}

/* The span of a general request, from what its blocks reached. */
static int note_xfer(const xfer *x, int varid, int write)
{
    if (!x->cl->nb.active || varid >= x->cl->nfast || x->hi == 0)
        return NCS_NOERR;
    return note_data(x->cl, x->lo, x->hi - x->v->xsz, (int)x->v->xsz, write);
}

static int cl_get(ncs_file *f, int varid, const ncs_slab *s, int memtype, void *buf)
{
    xfer x = { f, CL(f), &f->model.vars[varid], memtype, ncsi_type_size(memtype), buf, 0,
               UINT64_MAX, 0 };
    int status;
    if (f->flags & NCSI_F_SHARE) {
        /* another process may have written: read from the file */
        status = ncsi_pc_invalidate(x.cl->pc);
        if (status != NCS_NOERR)
            return status;
    }
    status = ncsi_slab_blocks(s, x.v->dsizes, get_block, &x);
    if (status == NCS_NOERR)
        status = note_xfer(&x, varid, 0);
    if (status == NCS_NOERR && x.erange)
        status = NCS_ERANGE;
    return status;
}

/* The plain requests the fast paths take: inside the data, in C order in
 * memory, and once the dimensions that are contiguous in the file merge,
 * at most FAST_GROUPS of them with a count above one, the innermost (the
 * run) no longer than a page. */
#define FAST_GROUPS 4
typedef struct fastreq {
    uint64_t off;                    /* first byte */
    uint64_t span;                   /* bytes a run covers */
    uint64_t n[FAST_GROUPS];         /* counts, innermost (the run) first */
    uint64_t gap[FAST_GROUPS];       /* bytes between consecutive indices */
    ptrdiff_t step;                  /* file elements between run elements */
    int ng;
} fastreq;

/* Fills q for a request on fv, or returns NCSI_DECLINED. */
static int fast_plan(const fastvar *fv, const size_t *start, const size_t *count, fastreq *q)
{
    uint64_t xsz = (uint64_t)fv->xsz;
    int ng = 0;
    q->off = fv->begin;
    q->n[0] = 1;
    q->gap[0] = xsz;
    for (int d = fv->nd - 1; d >= 0; d--) {
        if (count[d] == 0 || start[d] >= fv->lim[d] || count[d] > fv->lim[d] - start[d])
            return NCSI_DECLINED;
        q->off += start[d] * fv->bstride[d];
        if (count[d] == 1)
            continue;
        if (ng > 0 && q->n[ng - 1] * q->gap[ng - 1] == fv->bstride[d] &&
            (ng > 1 || (q->n[0] * count[d] - 1) * q->gap[0] + xsz <= PAGE_SIZE)) {
            q->n[ng - 1] *= count[d];        /* contiguous with the group inside */
            continue;
        }
        if (ng == FAST_GROUPS)
            return NCSI_DECLINED;
        q->n[ng] = count[d];
        q->gap[ng] = fv->bstride[d];
        ng++;
    }
    if (ng == 0)
        ng = 1;
    if (q->gap[0] != xsz && (q->n[0] - 1) * q->gap[0] + xsz > PAGE_SIZE) {
        /* a strided run longer than a page (one element per record, say):
         * runs of one element, the strided group the rows */
        if (ng == FAST_GROUPS)
            return NCSI_DECLINED;
        memmove(q->n + 1, q->n, (size_t)ng * sizeof q->n[0]);
        memmove(q->gap + 1, q->gap, (size_t)ng * sizeof q->gap[0]);
        q->n[0] = 1;
        q->gap[0] = xsz;
        ng++;
    }
    if (q->gap[0] % xsz != 0)
        return NCSI_DECLINED;                /* record steps need not be whole elements */
    q->ng = ng;
    q->step = (ptrdiff_t)(q->gap[0] / xsz);
    q->span = (q->n[0] - 1) * q->gap[0] + xsz;
    return q->span <= PAGE_SIZE ? NCS_NOERR : NCSI_DECLINED;
}

/* The offset past the last byte q touches. */
static uint64_t fast_end(const fastreq *q)
{
    uint64_t end = q->off + q->span;
    for (int g = 1; g < q->ng; g++)
        end += (q->n[g] - 1) * q->gap[g];
    return end;
}

/* The span of a fast-path request (fast_plan took only nonempty ones). */
static int note_fast(classic *cl, const fastreq *q, int write)
{
    if (!cl->nb.active)
        return NCS_NOERR;
    return note_span(cl, q->off, fast_end(q) - q->off, write);
}

/* Moves to the next index of groups g0 and up (the runs: g0 = 1; the
 * rows of group 1 as well: g0 = 2), its offset in *off; 0 when there is
 * none. */
static int fast_next(const fastreq *q, int g0, uint64_t *idx, uint64_t *off)
{
    for (int g = g0; g < q->ng; g++) {
        if (++idx[g] < q->n[g]) {
            *off += q->gap[g];
            return 1;
        }
        *off -= (idx[g] - 1) * q->gap[g];
        idx[g] = 0;
    }
    return 0;
}



/* Whether count asks for one element of fv. */
static int one_element(const fastvar *fv, const size_t *count)
{
    for (int d = 0; d < fv->nd; d++)
        if (count[d] != 1)
            return 0;
    return 1;
}

/* The offset of element index of fv, or UINT64_MAX when it is out of
 * bounds. */
static uint64_t point_offset(const fastvar *fv, const size_t *index)
{
    uint64_t off = fv->begin;
    for (int d = 0; d < fv->nd; d++) {
        if (index[d] >= fv->lim[d])
            return UINT64_MAX;
        off += index[d] * fv->bstride[d];
    }
    return off;
}

/* One element of xsz bytes at p, decoded in its own type into buf. */
#define DECODE_ONE(T, BE)                                                      \
    do {                                                                       \
        T u_;                                                                  \
        memcpy(&u_, p, sizeof u_);                                             \
        u_ = BE(u_);                                                           \
        memcpy(buf, &u_, sizeof u_);                                           \
    } while (0)
static inline void decode_one(const unsigned char *p, int xsz, void *buf)
{
    switch (xsz) {
    case 1: *(unsigned char *)buf = *p; break;
    case 2: DECODE_ONE(uint16_t, ncsi_be16); break;
    case 4: DECODE_ONE(uint32_t, ncsi_be32); break;
    default: DECODE_ONE(uint64_t, ncsi_be64); break;
    }
}

/* A plain get of one element in the variable's own type, from its cached
 * page; NCSI_DECLINED where the general path must say why not. */
static int get_point(ncs_file *f, const fastvar *fv, const size_t *index, void *buf)
{
    classic *cl = (classic *)f->state;
    const unsigned char *p;
    uint64_t off = point_offset(fv, index), in = off % PAGE_SIZE;
    int status;
    if (off == UINT64_MAX || in + (uint64_t)fv->xsz > PAGE_SIZE)
        return NCSI_DECLINED;                /* out of bounds, or across two pages */
    if (!(f->flags & NCSI_F_WRITE) && off + (uint64_t)fv->xsz > ncsi_pc_logical_size(cl->pc))
        return NCSI_DECLINED;                /* cut short */
    p = ncsi_pc_page(cl->pc, off / PAGE_SIZE, &status);
    if (p == NULL)
        return NCSI_DECLINED;
    if (cl->nb.active && !ncsi_ncbuf_read_quiet(&cl->nb, off, (uint64_t)fv->xsz) &&
        (status = note_data(cl, off, off, fv->xsz, 0)) != NCS_NOERR)
        return status;
    decode_one(p + in, fv->xsz, buf);
    return NCS_NOERR;
}

/* Rows up to this many bytes that only need their bytes swapped are
 * decoded all in one call (ncsi_row_decoder): a 10x20x1x40 short get, 200
 * rows of 80 bytes, 0.58 -> 0.34 us; longer rows keep the decoder's
 * unrolled loop. */
#define SHORT_ROW 512

static int cl_get_vara(ncs_file *f, int varid, const size_t *start, const size_t *count,
                       int memtype, void *buf)
{
    classic *cl = (classic *)f->state;
    fastreq q;
    uint64_t idx[FAST_GROUPS] = {0}, off, n1, gap1, span;
    size_t msz = ncsi_type_size(memtype), n0, rowbytes;
    unsigned char *mem = buf;
    ncsi_conv_fn dec;
    ncsi_rows_fn swap_rows;
    int erange = 0, status;
    if (varid >= cl->nfast)
        return NCSI_DECLINED;
    if (memtype == cl->fast[varid].type && one_element(&cl->fast[varid], count))
        return get_point(f, &cl->fast[varid], start, buf);   /* an ncvarget of a point */
    if (fast_plan(&cl->fast[varid], start, count, &q) != NCS_NOERR)
        return NCSI_DECLINED;
    if (!(f->flags & NCSI_F_WRITE) && fast_end(&q) > ncsi_pc_logical_size(cl->pc))
        return NCSI_DECLINED;                /* cut short: the general path says so */
    status = note_fast(cl, &q, 0);
    if (status != NCS_NOERR)
        return status;
    if (memtype == cl->fast[varid].type && q.step == 1) {
        dec = cl->fast[varid].dec_self;
        swap_rows = cl->fast[varid].rows_self;
    } else {
        dec = run_decoder(cl->fast[varid].type, memtype, f->version, q.step, 1);
        swap_rows = q.step == 1 ? ncsi_row_decoder(cl->fast[varid].type, memtype, f->version)
                                : NULL;
    }
    /* the rows of group 1 (the runs) go page by page: each page is found
     * once for all the rows inside it */
    n0 = (size_t)q.n[0];
    rowbytes = n0 * msz;
    span = q.span;
    n1 = q.ng > 1 ? q.n[1] : 1;
    gap1 = q.ng > 1 ? q.gap[1] : 0;
    off = q.off;
    do {
        uint64_t o = off, i = 0;
        while (i < n1) {
            uint64_t in = o % PAGE_SIZE, k;
            const unsigned char *p;
            if (in + span > PAGE_SIZE) {
                /* the run straddles two pages */
                status = decode_paged(cl->pc, o, n0, q.gap[0], (size_t)cl->fast[varid].xsz,
                                      dec, mem, 1, msz, &erange);
                if (status != NCS_NOERR)
                    return status;
                mem += rowbytes;
                o += gap1;
                i++;
                continue;
            }
            p = ncsi_pc_page(cl->pc, o / PAGE_SIZE, &status);
            if (p == NULL)
                return status;
            p += in;
            /* rows i.. that lie in this page (no division where one does) */
            k = gap1 == 0 || gap1 >= PAGE_SIZE ? 1 : in_page(o, n1 - i, gap1, (size_t)span);
            if (dec == copy_bytes) {
                /* inlined: rows of bytes are short, each a call otherwise */
                for (uint64_t j = 0; j < k; j++, p += gap1, mem += rowbytes)
                    copy_bytes(p, 1, mem, 1, n0);
            } else if (swap_rows != NULL && k > 1 && rowbytes <= SHORT_ROW) {
                swap_rows(p, (ptrdiff_t)gap1, mem, (ptrdiff_t)rowbytes, n0, (size_t)k);
                p += k * gap1;
                mem += k * rowbytes;
            } else {
                for (uint64_t j = 0; j < k; j++, p += gap1, mem += rowbytes)
                    erange |= dec(p, q.step, mem, 1, n0) != 0;
            }
            o += k * gap1;
            i += k;
        }
    } while (fast_next(&q, 2, idx, &off));
    return erange ? NCS_ERANGE : NCS_NOERR;
}

/* The elements of a plain get inside the data, in pieces along pd, each in
 * one cached page or copied into scratch.  The pages stay cached while the
 * others load: each is the most recently used, and a view touches fewer
 * than NPAGES (two a piece at most). */
static int cl_view(ncs_file *f, int varid, const size_t *start, const size_t *count, int pd,
                   const unsigned char **from, int *apart, ptrdiff_t *bstep, int *swap,
                   unsigned char *scratch, size_t nscratch)
{
    classic *cl = (classic *)f->state;
    const fastvar *fv;
    uint64_t off, last, end, n, step;
    size_t used = 0;
    int status;
    if (varid >= cl->nfast || cl->fast[varid].nd < 1 || pd >= cl->fast[varid].nd)
        return NCSI_DECLINED;
    fv = &cl->fast[varid];
    off = fv->begin;
    last = (uint64_t)fv->xsz - 1;            /* a piece's last byte */
    for (int d = 0; d < fv->nd; d++) {
        if (count[d] == 0 || start[d] >= fv->lim[d] || count[d] > fv->lim[d] - start[d])
            return NCSI_DECLINED;
        off += start[d] * fv->bstride[d];
        if (d != pd)
            last += (count[d] - 1) * fv->bstride[d];
        bstep[d] = (ptrdiff_t)fv->bstride[d];
    }
    n = pd >= 0 ? count[pd] : 1;
    step = pd >= 0 ? fv->bstride[pd] : 0;
    if (n > NCSI_VIEW_MAX)
        return NCSI_DECLINED;
    end = off + (n - 1) * step + last;
    if (!(f->flags & NCSI_F_WRITE) && end >= ncsi_pc_logical_size(cl->pc))
        return NCSI_DECLINED;                /* cut short: the general path says so */
    if (cl->nb.active && (status = note_data(cl, off, end, 1, 0)) != NCS_NOERR)
        return status;
#ifdef WORDS_BIGENDIAN
    *swap = 0;
#else
    *swap = fv->xsz > 1;
#endif
    *apart = off / PAGE_SIZE != end / PAGE_SIZE;
    if (!*apart) {
        /* all in one page, the pieces their step apart */
        const unsigned char *p = ncsi_pc_page(cl->pc, off / PAGE_SIZE, &status);
        if (p == NULL)
            return NCSI_DECLINED;
        from[0] = p + off % PAGE_SIZE;
        return NCS_NOERR;
    }
    for (uint64_t i = 0, pno = UINT64_MAX; i < n; i++, off += step) {
        const unsigned char *p;
        if (off / PAGE_SIZE == pno && (off + last) / PAGE_SIZE == pno) {
            from[i] = from[i - 1] + step;      /* in the page of the one before */
            continue;
        }
        if (off / PAGE_SIZE != (off + last) / PAGE_SIZE) {
            /* across pages: a copy */
            if ((uint64_t)(nscratch - used) <= last)
                return NCSI_DECLINED;            /* no room */
            if (ncsi_pc_read(cl->pc, off, scratch + used, (size_t)last + 1) != NCS_NOERR)
                return NCSI_DECLINED;
            from[i] = scratch + used;
            used += (size_t)last + 1;
            continue;                            /* the next piece is past pno */
        }
        p = ncsi_pc_page(cl->pc, off / PAGE_SIZE, &status);
        if (p == NULL)
            return NCSI_DECLINED;
        from[i] = p + off % PAGE_SIZE;
        pno = off / PAGE_SIZE;
    }
    return NCS_NOERR;
}

/* The same for a put inside the records that exist (no fill, no new record
 * count): each run encoded into its cached page. */
static int cl_put_vara(ncs_file *f, int varid, const size_t *start, const size_t *count,
                       int memtype, const void *buf)
{
    classic *cl = (classic *)f->state;
    fastreq q;
    uint64_t idx[FAST_GROUPS] = {0}, off;
    size_t msz = ncsi_type_size(memtype);
    const unsigned char *mem = buf;
    int erange = 0, status;
    if (!(f->flags & NCSI_F_WRITE) || varid >= cl->nfast ||
        fast_plan(&cl->fast[varid], start, count, &q) != NCS_NOERR)
        return NCSI_DECLINED;
    off = q.off;
    do {
        status = encode_span(f, off, q.n[0], q.gap[0], (size_t)cl->fast[varid].xsz,
                             cl->fast[varid].type, memtype, mem, 1, &erange);
        if (status != NCS_NOERR)
            return status;
        mem += q.n[0] * msz;
    } while (fast_next(&q, 1, idx, &off));
    status = note_fast(cl, &q, 1);
    if (status != NCS_NOERR)
        return status;
    return erange ? NCS_ERANGE : NCS_NOERR;
}

/* One element in the variable's own type from the most recently used
 * page, or through the general path. */
static int cl_get1(ncs_file *f, int varid, const size_t *index, void *buf)
{
    classic *cl = (classic *)f->state;
    const unsigned char *p;
    uint64_t off;
    if (varid >= cl->nfast)
        return ncsi_get1_general(f, varid, index, buf);
    off = point_offset(&cl->fast[varid], index);
    p = off == UINT64_MAX ? NULL : ncsi_pc_peek(cl->pc, off, (size_t)cl->fast[varid].xsz);
    if (p == NULL)
        return ncsi_get1_general(f, varid, index, buf);
    if (cl->nb.active && !ncsi_ncbuf_read_quiet(&cl->nb, off, (uint64_t)cl->fast[varid].xsz)) {
        int status = note_data(cl, off, off, cl->fast[varid].xsz, 0);
        if (status != NCS_NOERR)
            return status;
    }
    decode_one(p, cl->fast[varid].xsz, buf);
    return NCS_NOERR;
}

/* 1 when s writes every byte v has in records [from, to), padding
 * included (v has none, or its records are packed): filling them first
 * would only write what the put overwrites. */
static int covers_records(const ncs_file *f, const ncs_var *v, const ncs_slab *s,
                          uint64_t from, uint64_t to)
{
    if (!(count_recvars(&f->model) == 1 || v->len == v->dsizes[0] * v->xsz))
        return 0;
    if (s->stride[0] != 1 || s->start[0] > from || s->start[0] + s->count[0] < to)
        return 0;
    for (int d = 1; d < s->ndims; d++)
        if (s->start[d] != 0 || s->stride[d] != 1 || s->count[d] != v->shape[d])
            return 0;
    return 1;
}

static int cl_put(ncs_file *f, int varid, const ncs_slab *s, int memtype, const void *buf)
{
    xfer x = { f, CL(f), &f->model.vars[varid], memtype, ncsi_type_size(memtype),
               (unsigned char *)buf, 0, UINT64_MAX, 0 };
    int status = NCS_NOERR, skipped = 0;
    uint64_t old_numrecs = f->model.numrecs;
    int old_flags = f->flags;
    if (x.v->isrec) {
        uint64_t end = s->recs_needed;
        if (end > f->model.numrecs) {
            if (!(f->flags & NCSI_F_NOFILL)) {
                skipped = covers_records(f, x.v, s, f->model.numrecs, end) &&
                          rec_fills_ok(&f->model);
                status = fill_records(f, end, skipped ? varid : -1);
            }
            if (status != NCS_NOERR)
                return status;
            f->model.numrecs = end;
            f->flags |= NCSI_F_NDIRTY;
            fast_numrecs(f);
        }
    }
    status = ncsi_slab_blocks(s, x.v->dsizes, put_block, &x);
    if (status == NCS_NOERR || status == NCS_ERANGE) {
        int s2 = note_xfer(&x, varid, 1);
        if (s2 != NCS_NOERR)
            status = s2;
    }
    if (status != NCS_NOERR && status != NCS_ERANGE && skipped) {
        /* the new records hold neither this put's values nor fill: they
         * do not exist */
        f->model.numrecs = old_numrecs;
        f->flags = (f->flags & ~NCSI_F_NDIRTY) | (old_flags & NCSI_F_NDIRTY);
        fast_numrecs(f);
        return status;
    }
    if (status == NCS_NOERR && (f->flags & NCSI_F_SHARE))
        status = flush_shared(f);
    if (status == NCS_NOERR && x.erange)
        status = NCS_ERANGE;
    return status;
}

/* ---- open, create, sync, close ------------------------------------------------- */

static int cl_new_state(ncs_file *f, ncs_io *io)
{
    classic *cl = ncsi_calloc(1, sizeof *cl);
    int status;
    if (cl == NULL)
        return NCS_ERR(NCS_ENOMEM);
    cl->io = io;
    cl->scratch = ncsi_malloc(SCRATCH_CAP);
    if (cl->scratch == NULL) {
        free(cl);
        return NCS_ERR(NCS_ENOMEM);
    }
    status = ncsi_pc_new(io, PAGE_SIZE, NPAGES, &cl->pc);
    if (status != NCS_NOERR) {
        free(cl->scratch);
        free(cl);
        return status;
    }
    f->state = cl;
    return NCS_NOERR;
}

static void cl_free_state(ncs_file *f)
{
    classic *cl = CL(f);
    if (cl == NULL)
        return;
    ncsi_pc_free(cl->pc);
    ncsi_ncbuf_free(&cl->nb);
    free(cl->scratch);
    free(cl->moves);
    free(cl->fast);
    free(cl->fastmem);
    free(cl);
    f->state = NULL;
}

static int cl_create(ncs_file *f, const char *path, int cmode)
{
    ncs_io *io;
    int flags = NCSI_IO_WRITE | NCSI_IO_CREATE;
    int status = NCS_NOERR;
    /* a journal of the file this one replaces would roll the new one back
     * to pieces of the old: gone before the old file is */
    if (cmode & NCS_NOCLOBBER)
        flags |= NCSI_IO_EXCL;
    else
        status = ncsi_journal_remove_stale(path);
    if (status == NCS_NOERR)
        status = ncsi_io_open(path, flags, &io);
    if (status == NCS_NOERR && (cmode & NCS_NOCLOBBER)) {
        status = ncsi_journal_remove_stale(path);
        if (status != NCS_NOERR) {
            ncsi_io_close(io);
            unlink(path);
        }
    }
    if (status != NCS_NOERR)
        return status;
    status = cl_new_state(f, io);
    if (status != NCS_NOERR) {
        ncsi_io_close(io);
        unlink(path);
        return status;
    }
    ncsi_ncbuf_create(&CL(f)->nb, io->blksize, (f->flags & NCSI_F_SHARE) != 0, f->version);
    CL(f)->nb.ctx = f;
    CL(f)->nb.read = nb_read;
    CL(f)->nb.stale = nb_stale;
    return NCS_NOERR;
}

static int cl_open(ncs_file *f, const char *path, int mode)
{
    ncs_io *io;
    uint64_t fsize;
    /* a redefinition that a crash or a failure left half done is undone
     * before the header is read */
    int status = ncsi_journal_recover(path);
    if (status != NCS_NOERR)
        return status;
    status = ncsi_io_open(path, (mode & NCS_WRITE) ? NCSI_IO_WRITE : 0, &io);
    if (status != NCS_NOERR)
        return status;
    status = ncsi_io_size(io, &fsize);
    if (status == NCS_NOERR)
        status = cl_new_state(f, io);
    if (status != NCS_NOERR) {
        ncsi_io_close(io);
        return status;
    }
    CL(f)->committed = 1;
    status = ncsi_hdr_decode(io, fsize, &f->model, &f->version, &CL(f)->lay);
    if (status == NCS_NOERR) {
        /* sizes the format cannot hold, as netCDF-C checks at open */
        status = check_vlens(&f->model, f->version);
        if (status != NCS_NOERR)
            ncsi_model_free(&f->model);
    }
    if (status == NCS_NOERR)
        status = fast_rebuild(f);
    if (status != NCS_NOERR) {
        ncsi_model_free(&f->model);
        cl_free_state(f);
        ncsi_io_close(io);
        return status;
    }
    CL(f)->nb.ctx = f;
    CL(f)->nb.read = nb_read;
    CL(f)->nb.stale = nb_stale;
    ncsi_ncbuf_open(&CL(f)->nb, io->blksize, (f->flags & NCSI_F_SHARE) != 0,
                    (mode & NCS_WRITE) != 0, fsize, &f->model, f->version);
    status = nb_take(CL(f));
    if (status != NCS_NOERR) {
        ncsi_model_free(&f->model);
        cl_free_state(f);
        ncsi_io_close(io);
    }
    return status;
}

/* A header change in data mode: written at the next sync, close or redef,
 * shared file or not (netCDF-C syncs only the record count of a shared
 * file at once). */
static int cl_write_header(ncs_file *f)
{
    f->flags |= NCSI_F_HDIRTY;
    return NCS_NOERR;
}

static int cl_refresh(ncs_file *f)
{
    classic *cl = CL(f);
    unsigned char b[8];
    size_t got;
    int w = f->version == 5 ? 8 : 4;
    uint64_t n = 0;
    int status = ncsi_pc_invalidate(cl->pc);
    if (status != NCS_NOERR)
        return status;
    status = ncsi_io_read(cl->io, 4, b, (size_t)w, &got);
    if (status != NCS_NOERR)
        return status;
    if (got != (size_t)w)
        return NCS_ERR(NCS_ENOTNC);
    for (int i = 0; i < w; i++)
        n = n << 8 | b[i];
    f->model.numrecs = n;
    fast_numrecs(f);
    return NCS_NOERR;
}

/* Re-reads the whole header (ncs_redef of a shared file: another process
 * may have changed it). */
static int cl_reload(ncs_file *f)
{
    classic *cl = CL(f);
    ncs_model m;
    ncs_layout lay;
    uint64_t fsize;
    int version;
    int status = flush_all(f);
    if (status == NCS_NOERR)
        status = ncsi_pc_invalidate(cl->pc);
    if (status == NCS_NOERR)
        status = ncsi_io_size(cl->io, &fsize);
    if (status == NCS_NOERR)
        status = ncsi_hdr_decode(cl->io, fsize, &m, &version, &lay);
    if (status != NCS_NOERR)
        return status;
    ncsi_model_free(&f->model);
    f->model = m;
    cl->lay = lay;
    ncsi_ncbuf_reread(&cl->nb, &f->model, f->version);
    return fast_rebuild(f);
}

static int cl_sync(ncs_file *f)
{
    classic *cl = CL(f);
    int status;
    if (!(f->flags & NCSI_F_WRITE))
        return cl_refresh(f);
    /* data durable before the header that counts it */
    status = ncsi_pc_flush(cl->pc);
    if (status == NCS_NOERR && (f->flags & (NCSI_F_HDIRTY | NCSI_F_NDIRTY)))
        status = ncsi_io_sync(cl->io);
    if (status == NCS_NOERR)
        status = flush_all(f);
    if (status == NCS_NOERR) {
        ncsi_ncbuf_sync(&cl->nb);
        status = pad_like_netcdf(cl);
    }
    if (status == NCS_NOERR)
        status = ncsi_io_sync(cl->io);
    if (status == NCS_NOERR)
        cl->committed = 1;
    return status;
}

static int cl_close(ncs_file *f, int abort)
{
    classic *cl = CL(f);
    int status = NCS_NOERR, s2;
    if (cl->broken) {
        /* a half-done redefinition: its journal rolls it back at the next
         * open; nothing may be written over it */
        status = cl->broken;
    } else if ((f->flags & NCSI_F_WRITE) && !abort) {
        status = flush_all(f);
        if (status == NCS_NOERR) {
            uint64_t want = calc_size(f), have;
            status = ncsi_io_size(cl->io, &have);
            if (status == NCS_NOERR && have < want)
                status = ncsi_io_set_size(cl->io, want);
        }
        if (status == NCS_NOERR) {
            ncsi_ncbuf_close(&cl->nb, calc_size(f));
            status = pad_like_netcdf(cl);
        }
    } else if ((f->flags & NCSI_F_WRITE) && !(f->flags & NCSI_F_CREATED)) {
        /* abort: data written in data mode stays, as in netCDF-C, and so
         * do the record count and the header changes made in data mode
         * before a redef (which netCDF-C drops) */
        status = ncsi_pc_flush(cl->pc);
        if (status == NCS_NOERR && !(f->flags & NCSI_F_INDEF)) {
            if (f->flags & NCSI_F_HDIRTY)
                status = write_header(f);
            else if (f->flags & NCSI_F_NDIRTY)
                status = write_numrecs(f);
        }
        if (status == NCS_NOERR) {
            ncsi_ncbuf_sync(&cl->nb);
            status = pad_like_netcdf(cl);
        }
    }
    s2 = ncsi_io_close(cl->io);
    if (status == NCS_NOERR)
        status = s2;
    cl_free_state(f);
    return status;
}

/* The last resort of the registry (store.c): every file no other back
 * end claims comes here, and the header decoder rejects what is not a
 * classic file. */
static int cl_probe(ncs_io *io, uint64_t size, int *claims)
{
    *claims = 1;
    return NCS_NOERR;
}

/* Files without NCS_NETCDF4 (CDF-1, CDF-2 with NCS_64BIT_OFFSET, CDF-5
 * with NCS_64BIT_DATA). */
static int cl_creates(int cmode)
{
    return !(cmode & NCS_NETCDF4);
}

const ncs_store_methods ncsi_classic_store = {
    .name = "classic",
    .probe = cl_probe,
    .creates = cl_creates,
    .open = cl_open,
    .create = cl_create,
    .enddef = cl_enddef,
    .get = cl_get,
    .get1 = cl_get1,
    .get_vara = cl_get_vara,
    .view = cl_view,
    .put_vara = cl_put_vara,
    .put = cl_put,
    .write_header = cl_write_header,
    .sync = cl_sync,
    .flush = flush_all,
    .refresh = cl_refresh,
    .reload = cl_reload,
    .close = cl_close,
};
