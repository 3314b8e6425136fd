/*
 * classic.c -- the contiguous storage back end: netCDF classic files
 * (CDF-1, CDF-2, CDF-5), written byte for byte as netCDF-C writes them.
 * This file holds an open file's life: create, open, sync, refresh,
 * reload and close, the writes of the header and of numrecs, and the
 * store table; classic.h lists the files that do the rest.
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

/* ---- header and numrecs ------------------------------------------------- */

int ncsi_cl_write_model_header(ncs_file *f, const ncs_model *m)
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

int ncsi_cl_write_header(ncs_file *f)
{
    return ncsi_cl_write_model_header(f, &f->model);
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

/* Makes the file as long as netCDF-C's (cl->nb) with zeros at its end,
 * the bytes netCDF-C's buffer writes there. */
int ncsi_cl_pad_like_netcdf(classic *cl)
{
    uint64_t have;
    int status = nb_take(cl);
    if (!cl->nb.active || status != NCS_NOERR)
        return status;
    status = ncsi_pc_flush(cl->pc);
    /* After the flush the file is at least as long as the page cache's
     * size (longer if another writer extended it), which is most often
     * enough to know there is nothing to pad.  That spares an fstat: one
     * between a write and ncs_sync's fdatasync made every fdatasync write
     * the inode as well (Linux 6.18, ext4: 85 -> 138 us a sync). */
    if (status != NCS_NOERR || ncsi_pc_logical_size(cl->pc) >= cl->nb.flen)
        return status;
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
        return ncsi_cl_write_header(f);
    if (f->flags & NCSI_F_NDIRTY)
        return write_numrecs(f);
    return NCS_NOERR;
}

/* After each write to a shared file, as netCDF-C: the data and the record
 * count reach the file; other header changes wait for sync, close or
 * redef (so a header that changes twice between syncs is written once, and
 * the unused bytes after it are what netCDF-C leaves there). */
int ncsi_cl_flush_shared(ncs_file *f)
{
    int status = ncsi_pc_flush(CL(f)->pc);
    if (status == NCS_NOERR && (f->flags & NCSI_F_NDIRTY))
        status = write_numrecs(f);
    return status;
}

/* ---- open, create, sync, close ------------------------------------------ */

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
    /* netCDF-C's file is as long as an empty header from the create on
     * (its zeros until the first enddef or sync): so is this one, so that
     * a program that stops before then leaves the same bytes */
    status = ncsi_io_set_size(io, f->version == 5 ? 48 : 32);
    if (status == NCS_NOERR)
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
    CL(f)->private_copy = (cmode & NCS_DISKLESS) != 0;
    return NCS_NOERR;
}

/* Notes bytes after the end of the data the header describes, which
 * readers ignore (a shorter file opens too: its reads fail, NCS_ETRUNC).
 * The last variable's padding to 4 bytes may be absent or present. */
static void note_trailing(const ncs_model *m, const ncs_layout *lay, uint64_t fsize)
{
    uint64_t end = lay->xsz, e;
    for (int i = 0; i < m->nvars; i++) {
        const ncs_var *v = &m->vars[i];
        if (v->isrec)
            continue;
        if (ncsi_add_u64(v->begin, v->len, &e))
            return;
        if (e > end)
            end = e;
    }
    if (ncsi_cl_count_recvars(m) > 0 && m->numrecs > 0 &&
        (ncsi_mul_u64(m->numrecs, lay->recsize, &e) || ncsi_add_u64(e, lay->begin_rec, &end)))
        return;
    if (fsize > NCS_RNDUP(end, 4))
        ncsi_diag_note(end, "%llu bytes after the end of the data",
                       (unsigned long long)(fsize - end));
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
    CL(f)->private_copy = (mode & NCS_DISKLESS) != 0;
    CL(f)->committed = !CL(f)->private_copy;
    status = ncsi_hdr_decode(io, fsize, CL(f)->pc, &f->model, &f->version, &CL(f)->lay);
    if (status == NCS_NOERR) {
        /* sizes the format cannot hold, as netCDF-C checks at open: in a
         * file, a malformed header (at enddef, the caller's definitions) */
        status = ncsi_cl_check_vlens(&f->model, f->version);
        if (status != NCS_NOERR) {
            ncsi_diag_fault(NCSI_DIAG_NOWHERE, "a variable larger than CDF-%d allows "
                            "is not the last of its kind", f->version);
            status = NCSI_CORRUPT(status);
            ncsi_model_free(&f->model);
        } else {
            note_trailing(&f->model, &CL(f)->lay, fsize);
        }
    }
    if (status == NCS_NOERR)
        status = ncsi_cl_fast_rebuild(f);
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
        return NCSI_CORRUPT(NCS_ENOTNC);
    for (int i = 0; i < w; i++)
        n = n << 8 | b[i];
    f->model.numrecs = n;
    ncsi_cl_fast_numrecs(f);
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
        status = ncsi_hdr_decode(cl->io, fsize, cl->pc, &m, &version, &lay);
    if (status != NCS_NOERR)
        return status;
    ncsi_model_free(&f->model);
    f->model = m;
    cl->lay = lay;
    ncsi_ncbuf_reread(&cl->nb, &f->model, f->version);
    return ncsi_cl_fast_rebuild(f);
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
        status = ncsi_cl_pad_like_netcdf(cl);
    }
    if (status == NCS_NOERR)
        status = ncsi_io_sync(cl->io);
    if (status == NCS_NOERR && !cl->private_copy)
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
            uint64_t want = ncsi_cl_calc_size(f), have;
            status = ncsi_io_size(cl->io, &have);
            if (status == NCS_NOERR && have < want)
                status = ncsi_io_set_size(cl->io, want);
        }
        if (status == NCS_NOERR) {
            ncsi_ncbuf_close(&cl->nb, ncsi_cl_calc_size(f));
            status = ncsi_cl_pad_like_netcdf(cl);
        }
    } else if ((f->flags & NCSI_F_WRITE) && !(f->flags & NCSI_F_CREATED)) {
        /* abort: data written in data mode stays, as in netCDF-C, and so
         * do the record count and the header changes made in data mode
         * before a redef (which netCDF-C drops) */
        status = ncsi_pc_flush(cl->pc);
        if (status == NCS_NOERR && !(f->flags & NCSI_F_INDEF)) {
            if (f->flags & NCSI_F_HDIRTY)
                status = ncsi_cl_write_header(f);
            else if (f->flags & NCSI_F_NDIRTY)
                status = write_numrecs(f);
        }
        if (status == NCS_NOERR) {
            ncsi_ncbuf_sync(&cl->nb);
            status = ncsi_cl_pad_like_netcdf(cl);
        }
    }
    s2 = ncsi_io_close(cl->io);
    if (status == NCS_NOERR)
        status = s2;
    cl_free_state(f);
    return status;
}

/* Sure of a file that starts with "CDF" and a version byte of 1, 2 or 5
 * (netCDF-C looks no further); the last resort of the registry
 * (store.c) for any other: the header decoder rejects what is not a
 * classic file. */
static int cl_probe(ncs_io *io, uint64_t size, int *claims)
{
    unsigned char magic[4];
    size_t got = 0;
    int status;
    *claims = NCSI_CLAIM_LAST;
    if (size < 4)
        return NCS_NOERR;
    if ((status = ncsi_io_read(io, 0, magic, 4, &got)) != NCS_NOERR)
        return status;
    if (got == 4 && ncsi_cl_magic(magic))
        *claims = NCSI_CLAIM_SURE;
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
    .enddef = ncsi_cl_enddef,
    .get = ncsi_cl_get,
    .get1 = ncsi_cl_get1,
    .get_vara = ncsi_cl_get_vara,
    .view = ncsi_cl_view,
    .put_vara = ncsi_cl_put_vara,
    .put = ncsi_cl_put,
    .write_header = cl_write_header,
    .sync = cl_sync,
    .flush = flush_all,
    .refresh = cl_refresh,
    .reload = cl_reload,
    .close = cl_close,
};
