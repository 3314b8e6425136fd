/*
 * classic_redef.c -- ncs_enddef of a classic file, and the fill values:
 * after ncs_create the fill of every variable, then the header; after
 * ncs_redef the moves of the old data to its new places, the fill of the
 * new variables and the new header, in netCDF-C's order and with its
 * bytes.  A file holding committed content is redefined under the
 * rollback journal (journal.c), which gets the old bytes of the ranges the
 * enddef will overwrite before any is written; a file without logs its
 * moves instead, to undo them.  The fill of the records a put adds past
 * the end (classic_data.c) is here too.
 *
 * Moves go from the end of the file backwards and never down: each
 * destination held only data that an earlier move had already copied.
 */
#include "classic.h"
#include "journal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* ---- fill --------------------------------------------------------------- */

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
int ncsi_cl_rec_fills_ok(const ncs_model *m)
{
    unsigned char one[8];
    for (int i = 0; i < m->nvars; i++)
        if (m->vars[i].isrec && fill_value(&m->vars[i], one) != NCS_NOERR)
            return 0;
    return 1;
}

/* Fills records [m->numrecs, nrecs) of every record variable but skip (a
 * variable the put under way overwrites there in whole, or -1). */
int ncsi_cl_fill_records(ncs_file *f, uint64_t nrecs, int skip)
{
    classic *cl = CL(f);
    ncs_model *m = &f->model;
    int single = ncsi_cl_count_recvars(m) == 1;
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

/* ---- moves -------------------------------------------------------------- */

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
        if (m->vars[i].nofill)
            continue;
        int status = fill_value(&m->vars[i], one);
        if (status != NCS_NOERR)
            return status;
    }
    return NCS_NOERR;
}

/* Fill values of the variables added since ncs_redef (all, after create)
 * whose fill mode is on (the file's when they were defined, or what
 * ncs_def_var_fill set): fixed-size ones, then the new record variables in
 * every existing record, in netCDF-C's order. */
static int fill_new(ncs_file *f, const ncs_model *old)
{
    classic *cl = CL(f);
    const ncs_model *m = &f->model;
    int first_new = old == NULL ? 0 : old->nvars;
    int single = ncsi_cl_count_recvars(m) == 1, status;
    for (int i = first_new; i < m->nvars; i++) {
        const ncs_var *v = &m->vars[i];
        if (v->isrec || v->nofill)
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
            if (!v->isrec || v->nofill)
                continue;
            status = fill_region(f, v, v->begin + r * cl->lay.recsize,
                                 single ? cl->lay.recsize : v->len);
            if (status != NCS_NOERR)
                return status;
        }
    }
    return NCS_NOERR;
}

/* ---- what a redefinition overwrites ------------------------------------- */

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
    for (int v = old->nvars; v < m->nvars; v++) {
        const ncs_var *nv = &m->vars[v];
        if (nv->nofill)
            continue;
        if (!nv->isrec)
            add_range(wrote, &nw, nv->begin, add_sat(nv->begin, nv->len));
        else if (old->numrecs > 0 && nv->begin < rec_wlo)
            rec_wlo = nv->begin;
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

/* ---- enddef proper ------------------------------------------------------ */

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
            status = ncsi_cl_write_model_header(f, f->old);
    }
    if (status != NCS_NOERR)
        cl->broken = status;
    cl->lay = sv->lay;
    for (int i = 0; i < f->model.nvars; i++)
        f->model.vars[i].begin = sv->begins[i];
    f->flags = (f->flags & ~(NCSI_F_HDIRTY | NCSI_F_NDIRTY)) | sv->flags;
    /* the fast path is off in define mode; a failure here only delays it */
    (void)ncsi_cl_fast_rebuild(f);
}

/* The enddef's header, told to cl->nb before the fill values (netCDF-C
 * writes the header first); ncsi_cl_write_header then stays quiet. */
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

/* Lays out the model and writes it: after ncs_create, the fill values and
 * the header; after ncs_redef, the moved data, the fill values of the new
 * variables and the new header, in that order, so that the header never
 * describes data not yet in the file.  A file holding committed content
 * is redefined under a journal (journal.c): the old bytes that will be
 * overwritten are journaled first, and deleting the journal after the
 * data file is synced commits the redefinition. */
int ncsi_cl_enddef(ncs_file *f, size_t h_minfree, size_t v_align,
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
    status = ncsi_cl_check_vlens(m, f->version);
    if (status == NCS_NOERR && old != NULL)
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

    status = ncsi_cl_layout(f, old, h_minfree, v_align, v_minfree, r_align);
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
        status = ncsi_cl_fast_rebuild(f);
    if (status == NCS_NOERR)
        status = ncbuf_header_first(f);
    if (status == NCS_NOERR) {
        status = fill_new(f, old);
        if (status == NCS_EBADTYPE) {
            /* After ncs_create (a redefinition checked first), a
             * _FillValue of the wrong type stops the fill.  netCDF-C has
             * written the header by then and keeps the layout it computed
             * for the retry; so does this, for the same bytes. */
            int s2 = ncsi_cl_write_header(f);
            keep_layout = s2 == NCS_NOERR;
            status = keep_layout ? NCS_EBADTYPE : s2;
        }
    }
    if (status == NCS_NOERR)
        status = ncsi_cl_write_header(f);
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
        status = ncsi_cl_pad_like_netcdf(cl);
    }
    free(sv.begins);
    return status;
}
