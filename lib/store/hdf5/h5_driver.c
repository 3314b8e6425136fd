/*
 * h5_driver.c -- the HDF5 virtual file driver ncslab opens chunked files
 * with: byte I/O through ncs_io (as the classic back end's), plus a commit
 * journal that makes each commit (ncs_sync, ncs_enddef, ncs_close) atomic
 * with respect to the death of the writing process.
 *
 * Why: HDF5 without SWMR rewrites its metadata in place -- object headers
 * (a dataset's extent), chunk index nodes, the superblock -- whenever its
 * metadata cache evicts, and in address order when it flushes, so a process
 * killed in between leaves an extent that covers chunks the index does not
 * list yet, or an index node pointing at a node never written
 * (doc/reliability.md).  It also rewrites uncompressed chunks in place and
 * reuses the space of freed chunks at once.  This driver keeps the file as
 * the last commit left it until the next commit is complete:
 *
 *   - `committed` is the file's size at the last commit, rounded up to a
 *     page.  Everything below it may belong to the committed state, so a
 *     write there is not made to the file but kept in memory as whole pages
 *     (the deferred pages), which later reads see;
 *   - a write at or above `committed` lands in space the committed state
 *     does not use (new chunks, new index nodes) and goes to the file at
 *     once, so the chunks a commit covers are in the file before it;
 *   - a commit (ncsi_h5j_commit, called by h5_store.c after H5Fflush
 *     succeeded) writes every deferred page and the file's final size as one
 *     journal past the end of the new state, then copies the pages to their
 *     places and clears the journal's trailer.  With `durable`, fdatasync
 *     orders these steps on disk as well: the journal is on disk before any
 *     page is copied, the copies before the trailer is cleared;
 *   - a commit that failed after its journal was complete leaves it ending
 *     the file with some pages maybe copied in place (`live`): until the
 *     next commit every write below the file's end is deferred, and that
 *     commit first copies the journal's pages in place again and syncs
 *     (journal_redo), before a new journal is written past it.
 *
 * So a process killed at any moment leaves the state of one commit: before
 * the journal's trailer is complete, the previous one (plus unused bytes
 * past its end, which HDF5 ignores); after it, the new one -- applied by the
 * driver when the file is next opened for writing, and seen through the
 * journal when it is opened read-only.  Other HDF5 readers (netCDF-C) see
 * the previous or the new state too, except while a killed commit's journal
 * waits to be applied.
 *
 * The file is not cut back to the new state's size after a commit: the
 * space of the cleared journal stays, past the state's end, where HDF5
 * allocates over it or the next commit writes its journal again, so that a
 * commit of a file that keeps its size neither extends nor truncates it
 * (each of which made fdatasync write the inode and the file system's
 * journal: 1.2 ms against 0.7 ms for a commit of 960 KiB of pages here).
 * The next journal goes where its trailer ends that space; a space more
 * than SLACK longer than the journal is cut first, and closing a file cuts
 * it to the last commit's size.
 *
 * The journal (little-endian) starts at a page boundary J at or past the
 * end of the new state (and of the last commit's), and ends the file:
 *
 *     n pages:   PAGE bytes each, the deferred pages' new contents
 *     index:     u64 page number of each, in the same order
 *     padding:   zeros, up to 40 bytes before a page boundary
 *     trailer:   "NCSJRNL2" | u64 n | u64 final size | u64 J |
 *                u64 checksum of every byte from J up to this field
 *
 * It counts only when its trailer ends the file, J + n*PAGE + the index,
 * padding and trailer rounded up to a page is the file's size, J >= final
 * size, each page starts below the final size and only once, and the
 * checksum (jsum_*, below) matches.  The pages are written from memory as
 * they are kept, in runs, without copies.  A journal of the first version
 * ("NCSJRNL1", records of u64 page number | PAGE bytes, then "NCSJRNL1" |
 * u64 n | u64 final | u64 J | u32 crc32 | u32 0; written until 2026-12) is
 * still applied.
 *
 * Memory: deferred pages stay in memory until the commit, in one arena
 * (kept for the next commit up to KEEP_BYTES).  Metadata pages are few (the
 * headers and index nodes changed since the last commit).  Pages first
 * deferred by raw data (chunks rewritten in place) count against a limit
 * h5_store.c sets (the chunk cache's budget; the driver itself never calls
 * into the cache, whose lock is held while HDF5's is taken); past it, raw
 * data go straight to the file until the next commit (updating the
 * deferred pages they overlap), so a crash can then tear data rewritten
 * since the last commit, never the metadata.  A write that covers a whole
 * page defers it without reading the file's bytes first.
 *
 * Closing drops what was not committed: h5_store.c commits just before it
 * closes, so what HDF5 writes while closing (the superblock, again) never
 * makes the file differ from its last commit, and a failed close leaves
 * the last committed state.
 *
 * Thread safety: HDF5 calls the driver under its own lock; commits come from
 * ncslab, so each file has a mutex of its own as well.
 */
#include "hdf5_store.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define PAGE          NCSI_NC4_JPAGE
#define TRAILER       NCSI_NC4_JTRAILER
#define MAXADDR       ((haddr_t)INT64_MAX)
#define NOSLOT        SIZE_MAX
#define KEEP_BYTES    ((size_t)2 << 20)    /* arena kept between commits */
#define SLACK         ((uint64_t)4 << 20)  /* dead space kept past a journal */

static const unsigned char jmagic2[8] = { 'N', 'C', 'S', 'J', 'R', 'N', 'L', '2' };

typedef struct jfile {
    H5FD_t pub;                  /* HDF5's part, first */
    ncs_io *io;
    char *name;
    int writable;
    int lockfd;                  /* holds the flock, -1 when none */
    dev_t dev;
    ino_t ino;
    pthread_mutex_t lock;
    haddr_t eoa;
    uint64_t eof;                /* the file's size as HDF5 sees it */
    uint64_t psize;              /* its size on disk */
    uint64_t committed;          /* page aligned; writes below are deferred */
    uint64_t final;              /* the size the last commit gave the state */
    int trim;                    /* nothing past `final` is needed: cut at close */
    int live;                    /* a failed commit may have left a complete
                                    journal ending the file */
    int closing;                 /* ncsi_h5j_closing: nothing more reaches the file */
    /* the deferred pages: slot k holds page slotno[k] at arena + k*PAGE */
    unsigned char *arena;
    uint64_t *slotno;
    size_t nslots, capslots;
    size_t *table;               /* slot + 1 by page number (open addressing), 0: free */
    size_t tcap;
    uint64_t hipage;             /* one past the highest deferred page */
    size_t raw_bytes;            /* bytes of pages first deferred by raw data */
    size_t raw_limit;            /* set by ncsi_h5j_limit */
    int raw_direct;              /* past raw_limit: raw data go to the file */
} jfile;

static hid_t driver_id = -1;

/* ---- byte I/O ------------------------------------------------------------------
 * Through ncs_io, as the classic back end does, so that the fault-injecting
 * byte I/O (tests/support/io_fault.c) reaches chunked files too. */

/* Reads n bytes at off; past the end of the file, zeros. */
static int read_full(jfile *f, void *buf, size_t n, uint64_t off)
{
    size_t got = 0;
    int status = ncsi_io_read(f->io, off, buf, n, &got);
    if (status == NCS_NOERR && got < n)
        memset((char *)buf + got, 0, n - got);
    return status;
}

static void put_u64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}


/* ---- deferred pages ----------------------------------------------------------- */

static size_t page_hash(uint64_t no, size_t cap)
{
    return (size_t)((no * 0x9E3779B97F4A7C15ull) >> 17) & (cap - 1);
}

static unsigned char *slot_data(const jfile *f, size_t k)
{
    return f->arena + k * PAGE;
}

/* The slot of page no, NOSLOT when it is not deferred. */
static size_t page_find(const jfile *f, uint64_t no)
{
    if (f->nslots == 0)
        return NOSLOT;
    for (size_t i = page_hash(no, f->tcap);; i = (i + 1) & (f->tcap - 1)) {
        size_t k = f->table[i];
        if (k == 0)
            return NOSLOT;
        if (f->slotno[k - 1] == no)
            return k - 1;
    }
}

/* Room for cap slots in the arena. */
static int arena_reserve(jfile *f, size_t cap)
{
    unsigned char *a;
    uint64_t *nos;
    if (cap <= f->capslots)
        return NCS_NOERR;
    if (cap > SIZE_MAX / PAGE)
        return NCS_ERR(NCS_ENOMEM);
    a = ncsi_realloc(f->arena, cap * PAGE);
    if (a == NULL)
        return NCS_ERR(NCS_ENOMEM);
    f->arena = a;
    nos = ncsi_realloc(f->slotno, cap * sizeof *nos);
    if (nos == NULL)
        return NCS_ERR(NCS_ENOMEM);
    f->slotno = nos;
    f->capslots = cap;
    return NCS_NOERR;
}

/* A new slot for page no (not deferred yet), its bytes undefined; *kp. */
static int slot_new(jfile *f, uint64_t no, size_t *kp)
{
    size_t i, k = f->nslots;
    int status = NCS_NOERR;
    if (k == f->capslots)
        status = arena_reserve(f, f->capslots ? f->capslots * 2 : 64);
    if (status == NCS_NOERR && (k + 1) * 2 > f->tcap) {
        size_t ncap = f->tcap ? f->tcap * 2 : 128;
        size_t *nt = ncsi_calloc(ncap, sizeof *nt);
        if (nt == NULL)
            return NCS_ERR(NCS_ENOMEM);
        free(f->table);
        f->table = nt;
        f->tcap = ncap;
        for (size_t j = 0; j < k; j++) {
            for (i = page_hash(f->slotno[j], ncap); nt[i] != 0; i = (i + 1) & (ncap - 1))
                ;
            nt[i] = j + 1;
        }
    }
    if (status != NCS_NOERR)
        return status;
    for (i = page_hash(no, f->tcap); f->table[i] != 0; i = (i + 1) & (f->tcap - 1))
        ;
    f->table[i] = k + 1;
    f->slotno[k] = no;
    f->nslots = k + 1;
    if (no >= f->hipage)
        f->hipage = no + 1;
    *kp = k;
    return NCS_NOERR;
}

/* Forgets every deferred page; the arena stays for the next commit unless
 * it grew past KEEP_BYTES (or keep is 0). */
static void pages_reset(jfile *f, int keep)
{
    if (!keep || f->capslots > KEEP_BYTES / PAGE) {
        free(f->arena);
        free(f->slotno);
        free(f->table);
        f->arena = NULL;
        f->slotno = NULL;
        f->table = NULL;
        f->capslots = f->tcap = 0;
    } else if (f->nslots > 0) {
        memset(f->table, 0, f->tcap * sizeof *f->table);
    }
    f->nslots = 0;
    f->hipage = 0;
    f->raw_bytes = 0;
    f->raw_direct = 0;
}

/* Drops the slot made last (its page's bytes could not be read). */
static void slot_drop_last(jfile *f)
{
    size_t k = f->nslots;
    for (size_t i = page_hash(f->slotno[k - 1], f->tcap);; i = (i + 1) & (f->tcap - 1))
        if (f->table[i] == k) {
            /* no probe for an older entry passes this place: it was
             * free when they were placed */
            f->table[i] = 0;
            break;
        }
    f->nslots = k - 1;
}

/* Deferred page no's slot, made from the file's bytes when it is not yet
 * (unless whole: the caller overwrites all of it); *made says whether it
 * was. */
static int page_get(jfile *f, uint64_t no, int whole, size_t *kp, int *made)
{
    size_t k = page_find(f, no);
    int status;
    *made = 0;
    if (k == NOSLOT) {
        status = slot_new(f, no, &k);
        if (status != NCS_NOERR)
            return status;
        if (!whole && (status = read_full(f, slot_data(f, k), PAGE, no * PAGE)) != NCS_NOERR) {
            slot_drop_last(f);
            return status;
        }
        *made = 1;
    }
    *kp = k;
    return NCS_NOERR;
}

/* Copies the deferred pages' bytes over [addr, addr+size) of rbuf (a
 * read), or the bytes of wbuf into the deferred pages there (a write that
 * went to the file). */
static void overlay(jfile *f, uint64_t addr, size_t size, unsigned char *rbuf,
                    const unsigned char *wbuf)
{
    uint64_t end = addr + size, lim = f->hipage * PAGE;
    if (end > lim)
        end = lim;
    for (uint64_t no = addr / PAGE; no * PAGE < end; no++) {
        size_t k = page_find(f, no);
        uint64_t lo, hi;
        if (k == NOSLOT)
            continue;
        lo = no * PAGE > addr ? no * PAGE : addr;
        hi = (no + 1) * PAGE < end ? (no + 1) * PAGE : end;
        if (rbuf != NULL)
            memcpy(rbuf + (lo - addr), slot_data(f, k) + (lo - no * PAGE), (size_t)(hi - lo));
        else
            memcpy(slot_data(f, k) + (lo - no * PAGE), wbuf + (lo - addr), (size_t)(hi - lo));
    }
}

/* ---- the journal ---------------------------------------------------------------- */

/* How many deferred pages start below page lim (those a commit writes;
 * pages past the file's final size would only be cut off again). */
static size_t pages_below(const jfile *f, uint64_t lim)
{
    size_t n = 0;
    for (size_t k = 0; k < f->nslots; k++)
        n += f->slotno[k] < lim;
    return n;
}

/* Writes the deferred pages below page lim where they belong, the last one
 * cut at final, in runs of pages adjacent both in the arena and in the
 * file. */
static int apply(jfile *f, uint64_t final)
{
    uint64_t lim = NCS_RNDUP(final, PAGE) / PAGE;
    int status = NCS_NOERR;
    for (size_t k = 0; k < f->nslots && status == NCS_NOERR;) {
        size_t e = k + 1;
        uint64_t off, len;
        if (f->slotno[k] >= lim) {
            k++;
            continue;
        }
        while (e < f->nslots && f->slotno[e] == f->slotno[e - 1] + 1 && f->slotno[e] < lim)
            e++;
        off = f->slotno[k] * PAGE;
        len = (uint64_t)(e - k) * PAGE;
        if (off + len > final)
            len = final - off;
        status = ncsi_io_write(f->io, off, slot_data(f, k), (size_t)len);
        k = e;
    }
    return status;
}

/* Writes the journal of the n deferred pages below the final size at J:
 * the pages in runs of adjacent slots, then the index and trailer. */
static int journal_write(jfile *f, uint64_t final, uint64_t J, size_t n)
{
    uint64_t lim = NCS_RNDUP(final, PAGE) / PAGE, off = J, ilen = ncsi_nc4_jindex_bytes(n);
    unsigned char *idx = ncsi_calloc(1, (size_t)ilen), *t;
    size_t i = 0;
    ncsi_nc4_jsum sum;
    int status = idx == NULL ? NCS_ERR(NCS_ENOMEM) : NCS_NOERR;
    ncsi_nc4_jsum_init(&sum);
    for (size_t k = 0; k < f->nslots && status == NCS_NOERR;) {
        size_t e = k;
        while (e < f->nslots && f->slotno[e] < lim)
            put_u64(idx + 8 * i++, f->slotno[e++]);
        if (e > k) {
            ncsi_nc4_jsum_add(&sum, slot_data(f, k), (e - k) * PAGE);
            status = ncsi_io_write(f->io, off, slot_data(f, k), (e - k) * PAGE);
            off += (uint64_t)(e - k) * PAGE;
        }
        k = e + 1;
    }
    if (status == NCS_NOERR) {
        NCSI_ASSERT(i == n);
        t = idx + ilen - TRAILER;
        memcpy(t, jmagic2, 8);
        put_u64(t + 8, n);
        put_u64(t + 16, final);
        put_u64(t + 24, J);
        ncsi_nc4_jsum_add(&sum, idx, (size_t)ilen - 8);
        put_u64(t + 32, ncsi_nc4_jsum_end(&sum));
        status = ncsi_io_write(f->io, off, idx, (size_t)ilen);
    }
    free(idx);
    return status;
}

/* One page of a journal being read, as a deferred page of f. */
static int journal_page(void *arg, uint64_t no, const unsigned char *data)
{
    jfile *f = arg;
    size_t k;
    int status;
    if (page_find(f, no) != NOSLOT)
        return 1;
    status = slot_new(f, no, &k);
    if (status == NCS_NOERR)
        memcpy(slot_data(f, k), data, PAGE);
    return status;
}

/* Loads a complete journal ending the file (psize bytes) as f's deferred
 * pages; *final is the size it gives the file.  *found: 1 when there was
 * one, 0 when not (an incomplete journal is none). */
static int journal_read(jfile *f, uint64_t psize, uint64_t *final, int *found)
{
    int status = ncsi_nc4_journal_read(f->io, psize, final, found, journal_page, f);
    if (status != NCS_NOERR || !*found) {
        pages_reset(f, 0);
        *found = 0;
    }
    return status;
}

/* After the last commit HDF5's close writes again (the superblock, its
 * free-space bookkeeping) and asks for the file to grow to its allocated
 * end: none of that is kept (the top of the file), so none of it is made
 * to the file.  Writes then go to deferred pages, which the close drops
 * and HDF5's reads still see, and the file keeps its size.  Made on the
 * file, a write or an extension could fail (a full disk, a file size
 * limit) and fail H5Fclose, which leaves HDF5 1.10 with a half-closed file
 * that crashes its exit handler (H5F__close_cb on the ID left behind). */
void ncsi_h5j_closing(void *handle)
{
    jfile *f = handle;
    pthread_mutex_lock(&f->lock);
    f->closing = 1;
    pthread_mutex_unlock(&f->lock);
}

void ncsi_h5j_limit(void *handle, size_t bytes)
{
    jfile *f = handle;
    pthread_mutex_lock(&f->lock);
    f->raw_limit = bytes;
    pthread_mutex_unlock(&f->lock);
}

/* A commit that failed after its journal was complete left it ending the
 * file (f->live), maybe with some of its pages copied in place: before any
 * other journal is written, which would hide it, its pages are copied in
 * place again from the file and made durable, so the file holds its state
 * whole.  (Its pages are still deferred, maybe changed since, and go into
 * the next journal as well.)  Nothing to do when it was not complete. */
/* One page of a failed commit's journal, copied in place again. */
typedef struct redo {
    jfile *f;
    const uint64_t *final;
} redo;

static int redo_page(void *arg, uint64_t no, const unsigned char *data)
{
    const redo *r = arg;
    uint64_t final = *r->final;
    if (no * PAGE >= final)
        return NCS_NOERR;
    return ncsi_io_write(r->f->io, no * PAGE, data,
                         final - no * PAGE < PAGE ? (size_t)(final - no * PAGE) : PAGE);
}

static int journal_redo(jfile *f)
{
    uint64_t final = 0;
    redo r = { f, &final };
    int found = 0, status = ncsi_nc4_journal_read(f->io, f->psize, &final, &found, redo_page, &r);
    if (status == NCS_NOERR && found)
        status = ncsi_io_sync(f->io);
    return status;
}

/* The journal of the n deferred pages below the final size, then the pages
 * in place, then the journal's trailer cleared (see the top of the file). */
static int commit_journal(jfile *f, uint64_t final, size_t n, int durable)
{
    static const unsigned char zeros[TRAILER];
    uint64_t base = NCS_RNDUP(final, PAGE), jlen = (uint64_t)n * PAGE + ncsi_nc4_jindex_bytes(n), end;
    int status = NCS_NOERR;
    /* past the new state and the last commit's */
    if (base < f->committed)
        base = f->committed;
    end = NCS_RNDUP(f->psize, PAGE) > base + jlen ? NCS_RNDUP(f->psize, PAGE) : base + jlen;
    if (end - (base + jlen) > SLACK) {
        status = ncsi_io_set_size(f->io, base);
        if (status != NCS_NOERR)
            return status;
        f->psize = base;
        end = base + jlen;
    }
    f->live = 1;
    status = journal_write(f, final, end - jlen, n);
    if (status == NCS_NOERR && end > f->psize)
        f->psize = end;
    if (status == NCS_NOERR && durable)
        status = ncsi_io_sync(f->io);
    /* the journal is complete: the commit holds from here on */
    if (status == NCS_NOERR)
        status = apply(f, final);
    if (status == NCS_NOERR && durable)
        status = ncsi_io_sync(f->io);
    if (status == NCS_NOERR)
        status = ncsi_io_write(f->io, end - TRAILER, zeros, TRAILER);
    return status;
}

int ncsi_h5j_commit(void *handle, int durable)
{
    jfile *f = handle;
    uint64_t final;
    size_t n;
    int status = NCS_NOERR;
    if (!f->writable)
        return NCS_NOERR;
    pthread_mutex_lock(&f->lock);
    final = f->eof;
    n = pages_below(f, NCS_RNDUP(final, PAGE) / PAGE);
    if (f->live)
        status = journal_redo(f);
    if (status == NCS_NOERR)
        f->live = 0;
    if (status == NCS_NOERR && n > 0)
        status = commit_journal(f, final, n, durable);
    else if (status == NCS_NOERR && durable)
        status = ncsi_io_sync(f->io);   /* the file holds the new state already */
    if (status == NCS_NOERR) {
        pages_reset(f, 1);
        f->final = final;
        f->committed = NCS_RNDUP(final, PAGE);
        f->trim = 1;
        f->live = 0;
    } else {
        /* the pages stay deferred; until the next commit has redone a
         * journal this one may have completed, writes below the file's end
         * are deferred too, so that none reaches the journal */
        uint64_t size;
        f->trim = 0;
        if (ncsi_io_size(f->io, &size) == NCS_NOERR && size > f->psize)
            f->psize = size;
        if (f->live && f->committed < NCS_RNDUP(f->psize, PAGE))
            f->committed = NCS_RNDUP(f->psize, PAGE);
    }
    pthread_mutex_unlock(&f->lock);
    return status;
}

/* ---- reads beside HDF5 (h5_chunkaddr.c) ----------------------------------------
 * A file opened read-only never changes under the driver: its deferred
 * pages (a killed commit's journal seen through) are set at the open, so
 * these reads take no lock and run on any thread, beside HDF5's. */

int ncsi_h5j_readonly(void *handle)
{
    return !((jfile *)handle)->writable;
}

uint64_t ncsi_h5j_eof(void *handle)
{
    return ((jfile *)handle)->eof;
}

int ncsi_h5j_pread(void *handle, uint64_t addr, void *buf, size_t n)
{
    jfile *f = handle;
    int status;
    NCSI_ASSERT(!f->writable);
    if (addr > MAXADDR || n > MAXADDR - addr)
        return NCS_ERR(NCS_EHDFERR);
    status = read_full(f, buf, n, addr);
    if (status == NCS_NOERR && f->nslots > 0)
        overlay(f, addr, n, buf, NULL);
    return status;
}

void ncsi_h5j_willneed(void *handle, uint64_t addr, uint64_t n)
{
    jfile *f = handle;
    if (f->io->m->willneed != NULL && f->nslots == 0)
        f->io->m->willneed(f->io, addr, n);
}

/* ---- the driver's callbacks ------------------------------------------------------ */

static void jfile_free(jfile *f)
{
    pages_reset(f, 0);
    if (f->lockfd >= 0)
        close(f->lockfd);
    free(f->name);
    free(f);
}

static H5FD_t *jv_open(const char *name, unsigned flags, hid_t fapl, haddr_t maxaddr)
{
    jfile *f;
    struct stat st;
    uint64_t final = 0;
    int ioflags = 0, found = 0, status;
    (void)fapl;
    if (name == NULL || *name == '\0' || maxaddr == 0 || maxaddr > MAXADDR)
        return NULL;
    if (flags & H5F_ACC_RDWR)
        ioflags |= NCSI_IO_WRITE;
    if (flags & (H5F_ACC_CREAT | H5F_ACC_TRUNC))
        ioflags |= NCSI_IO_CREATE;
    if (flags & H5F_ACC_EXCL)
        ioflags |= NCSI_IO_EXCL;
    f = ncsi_calloc(1, sizeof *f);
    if (f == NULL)
        return NULL;
    f->lockfd = -1;
    f->name = ncsi_strdup(name);
    if (f->name == NULL || ncsi_io_open(name, ioflags, &f->io) != NCS_NOERR) {
        jfile_free(f);
        return NULL;
    }
    f->writable = (flags & H5F_ACC_RDWR) != 0;
    /* the file's identity, for HDF5 to see when it is opened twice */
    status = stat(name, &st) == 0 ? NCS_NOERR : errno;
    if (status == NCS_NOERR) {
        f->dev = st.st_dev;
        f->ino = st.st_ino;
        status = ncsi_io_size(f->io, &f->psize);
    }
    /* a journal left by a writer killed in a commit: apply it, or, when
     * reading only, see the file through it */
    if (status == NCS_NOERR)
        status = journal_read(f, f->psize, &final, &found);
    if (status == NCS_NOERR && found && f->writable) {
        status = apply(f, final);
        if (status == NCS_NOERR)
            status = ncsi_io_sync(f->io);
        if (status == NCS_NOERR)
            status = ncsi_io_set_size(f->io, final);
        pages_reset(f, 0);
        if (status == NCS_NOERR)
            f->psize = final;
    }
    if (status != NCS_NOERR) {
        ncsi_io_close(f->io);
        jfile_free(f);
        return NULL;
    }
    f->eof = found ? final : f->psize;
    f->final = f->eof;
    f->committed = f->writable ? NCS_RNDUP(f->psize, PAGE) : 0;
    pthread_mutex_init(&f->lock, NULL);
    return &f->pub;
}

/* Anything not committed is dropped (see the top of the file); the space
 * past the last commit's state, when nothing there is needed, is cut. */
static herr_t jv_close(H5FD_t *file)
{
    jfile *f = (jfile *)file;
    int status = NCS_NOERR, s2;
    if (f->writable && f->trim && f->psize > f->final)
        status = ncsi_io_set_size(f->io, f->final);
    if ((s2 = ncsi_io_close(f->io)) != NCS_NOERR && status == NCS_NOERR)
        status = s2;
    pthread_mutex_destroy(&f->lock);
    jfile_free(f);
    return status == NCS_NOERR ? 0 : -1;
}

static int jv_cmp(const H5FD_t *a, const H5FD_t *b)
{
    const jfile *x = (const jfile *)a, *y = (const jfile *)b;
    if (x->dev != y->dev)
        return x->dev < y->dev ? -1 : 1;
    if (x->ino != y->ino)
        return x->ino < y->ino ? -1 : 1;
    return 0;
}

static herr_t jv_query(const H5FD_t *file, unsigned long *flags)
{
    (void)file;
    /* as sec2 declares, so that HDF5 lays out files the same way */
    *flags = H5FD_FEAT_AGGREGATE_METADATA | H5FD_FEAT_ACCUMULATE_METADATA |
             H5FD_FEAT_DATA_SIEVE | H5FD_FEAT_AGGREGATE_SMALLDATA;
    return 0;
}

static haddr_t jv_get_eoa(const H5FD_t *file, H5FD_mem_t type)
{
    (void)type;
    return ((const jfile *)file)->eoa;
}

static herr_t jv_set_eoa(H5FD_t *file, H5FD_mem_t type, haddr_t addr)
{
    (void)type;
    ((jfile *)file)->eoa = addr;
    return 0;
}

static haddr_t jv_get_eof(const H5FD_t *file, H5FD_mem_t type)
{
    (void)type;
    return (haddr_t)((const jfile *)file)->eof;
}

static herr_t jv_get_handle(H5FD_t *file, hid_t fapl, void **handle)
{
    (void)fapl;
    *handle = file;
    return 0;
}

static herr_t jv_read(H5FD_t *file, H5FD_mem_t type, hid_t dxpl, haddr_t addr, size_t size,
                      void *buf)
{
    jfile *f = (jfile *)file;
    int status;
    (void)type;
    (void)dxpl;
    if (addr == HADDR_UNDEF || addr > MAXADDR || size > MAXADDR - addr)
        return -1;
    pthread_mutex_lock(&f->lock);
    status = read_full(f, buf, size, addr);
    if (status == NCS_NOERR && f->nslots > 0)
        overlay(f, addr, size, buf, NULL);
    pthread_mutex_unlock(&f->lock);
    return status == NCS_NOERR ? 0 : -1;
}

/* Defers [addr, addr+size), below f->committed, into pages. */
static int defer(jfile *f, H5FD_mem_t type, uint64_t addr, size_t size,
                 const unsigned char *buf)
{
    uint64_t end = addr + size;
    for (uint64_t no = addr / PAGE; no * PAGE < end; no++) {
        uint64_t lo = no * PAGE > addr ? no * PAGE : addr;
        uint64_t hi = (no + 1) * PAGE < end ? (no + 1) * PAGE : end;
        size_t k;
        int made, status = page_get(f, no, hi - lo == PAGE, &k, &made);
        if (status != NCS_NOERR)
            return status;
        memcpy(slot_data(f, k) + (lo - no * PAGE), buf + (lo - addr), (size_t)(hi - lo));
        if (made && type == H5FD_MEM_DRAW && (f->raw_bytes += PAGE) > f->raw_limit)
            f->raw_direct = 1;
    }
    return NCS_NOERR;
}

static herr_t jv_write(H5FD_t *file, H5FD_mem_t type, hid_t dxpl, haddr_t addr, size_t size,
                       const void *buf)
{
    jfile *f = (jfile *)file;
    const unsigned char *b = buf;
    uint64_t end;
    int status = NCS_NOERR;
    (void)dxpl;
    if (!f->writable || addr == HADDR_UNDEF || addr > MAXADDR || size > MAXADDR - addr)
        return -1;
    end = addr + size;
    pthread_mutex_lock(&f->lock);
    if (f->closing) {
        status = defer(f, H5FD_MEM_DEFAULT, addr, size, b);
        addr = end;
    } else if (addr < f->committed) {
        uint64_t split = end < f->committed ? end : f->committed;
        if (type == H5FD_MEM_DRAW && f->raw_direct && !f->live) {
            status = ncsi_io_write(f->io, addr, b, (size_t)(split - addr));
            if (status == NCS_NOERR)
                overlay(f, addr, (size_t)(split - addr), NULL, b);
        } else {
            status = defer(f, type, addr, (size_t)(split - addr), b);
        }
        b += split - addr;
        addr = split;
    }
    if (status == NCS_NOERR && addr < end) {
        status = ncsi_io_write(f->io, addr, b, (size_t)(end - addr));
        if (status == NCS_NOERR && end > f->psize)
            f->psize = end;
    }
    if (status == NCS_NOERR && end > f->eof)
        f->eof = end;
    pthread_mutex_unlock(&f->lock);
    return status == NCS_NOERR ? 0 : -1;
}

static herr_t jv_flush(H5FD_t *file, hid_t dxpl, hbool_t closing)
{
    (void)file;
    (void)dxpl;
    (void)closing;
    return 0;                    /* ncslab commits once HDF5's flush succeeded */
}

/* HDF5 asks for the file to end at its allocated end.  Growing is safe at
 * once (past everything the committed state uses); shrinking waits for
 * the commit, which gives the file its size. */
static herr_t jv_truncate(H5FD_t *file, hid_t dxpl, hbool_t closing)
{
    jfile *f = (jfile *)file;
    int status = NCS_NOERR;
    (void)dxpl;
    (void)closing;
    if (!f->writable)
        return 0;
    pthread_mutex_lock(&f->lock);
    if ((uint64_t)f->eoa > f->psize && !f->closing) {
        status = ncsi_io_set_size(f->io, f->eoa);
        if (status == NCS_NOERR)
            f->psize = f->eoa;
    }
    if (status == NCS_NOERR)
        f->eof = f->eoa;
    pthread_mutex_unlock(&f->lock);
    return status == NCS_NOERR ? 0 : -1;
}

/* HDF5's advisory lock, as sec2 takes it, on a descriptor of its own (the
 * byte I/O does not show its descriptor). */
static herr_t jv_lock(H5FD_t *file, hbool_t rw)
{
    jfile *f = (jfile *)file;
    if (f->lockfd < 0)
        f->lockfd = open(f->name, O_RDONLY | O_CLOEXEC);
    if (f->lockfd < 0)
        return -1;
    if (flock(f->lockfd, (rw ? LOCK_EX : LOCK_SH) | LOCK_NB) < 0)
        return errno == ENOSYS ? 0 : -1;
    return 0;
}

static herr_t jv_unlock(H5FD_t *file)
{
    jfile *f = (jfile *)file;
    if (f->lockfd >= 0 && flock(f->lockfd, LOCK_UN) < 0)
        return errno == ENOSYS ? 0 : -1;
    return 0;
}

static const H5FD_class_t jv_class = {
    .name = "ncslab_journal",
    .maxaddr = MAXADDR,
    .fc_degree = H5F_CLOSE_WEAK,
    .open = jv_open,
    .close = jv_close,
    .cmp = jv_cmp,
    .query = jv_query,
    .get_eoa = jv_get_eoa,
    .set_eoa = jv_set_eoa,
    .get_eof = jv_get_eof,
    .get_handle = jv_get_handle,
    .read = jv_read,
    .write = jv_write,
    .flush = jv_flush,
    .truncate = jv_truncate,
    .lock = jv_lock,
    .unlock = jv_unlock,
    .fl_map = H5FD_FLMAP_DICHOTOMY,
};

static void register_driver(void)
{
    driver_id = H5FDregister(&jv_class);
}

hid_t ncsi_h5j_driver(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, register_driver);
    return driver_id;
}

void *ncsi_h5j_handle(hid_t fid)
{
    void *h = NULL;
    if (H5Fget_vfd_handle(fid, H5P_DEFAULT, &h) < 0)
        return NULL;
    return h;
}
