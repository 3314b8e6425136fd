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
 *     journal past the end of the file, then copies the pages to their
 *     places and truncates the file to its final size, which drops the
 *     journal.  With `durable`, fdatasync orders these steps on disk as well.
 *
 * So a process killed at any moment leaves the state of one commit: before
 * the journal's trailer is complete, the previous one (plus unused bytes
 * past its end, which HDF5 ignores); after it, the new one -- applied by the
 * driver when the file is next opened for writing, and seen through the
 * journal when it is opened read-only.  Other HDF5 readers (netCDF-C) see
 * the previous or the new state too, except while a killed commit's journal
 * waits to be applied.
 *
 * The journal (little-endian) starts at a page boundary J at or past the
 * end of the file:
 *
 *     n times:   u64 page number | PAGE bytes
 *     trailer:   "NCSJRNL1" | u64 n | u64 final size | u64 J |
 *                u32 crc32 of every byte before this field | u32 0
 *
 * It counts only when its trailer ends the file, J + n*(8+PAGE) + 40 is the
 * file's size, J >= final size, each page starts below the final size and
 * only once, and the crc matches.
 *
 * Memory: deferred pages stay in memory until the commit.  Metadata pages
 * are few (the headers and index nodes changed since the last commit).
 * Pages first deferred by raw data (chunks rewritten in place) count against
 * a limit h5_store.c sets (the chunk cache's budget; the driver itself never
 * calls into the cache, whose lock is held while HDF5's is taken); past it,
 * raw data go straight to the file until the next commit (updating the deferred pages they overlap), so a crash can
 * then tear data rewritten since the last commit, never the metadata.
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
#include <zlib.h>

#define PAGE          NCSI_NC4_JPAGE
#define RECORD        NCSI_NC4_JRECORD
#define TRAILER       NCSI_NC4_JTRAILER
#define MAXADDR       ((haddr_t)INT64_MAX)

static const unsigned char jmagic[8] = { 'N', 'C', 'S', 'J', 'R', 'N', 'L', '1' };

typedef struct jpage {
    uint64_t no;
    unsigned char data[PAGE];
} jpage;

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
    jpage **table;               /* deferred pages, open addressing by number */
    size_t tcap, npages;
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

static jpage *page_find(const jfile *f, uint64_t no)
{
    if (f->npages == 0)
        return NULL;
    for (size_t i = page_hash(no, f->tcap);; i = (i + 1) & (f->tcap - 1)) {
        jpage *p = f->table[i];
        if (p == NULL || p->no == no)
            return p;
    }
}

static int table_insert(jfile *f, jpage *p)
{
    size_t i;
    if ((f->npages + 1) * 2 > f->tcap) {
        size_t ncap = f->tcap ? f->tcap * 2 : 64;
        jpage **nt = ncsi_calloc(ncap, sizeof *nt);
        if (nt == NULL)
            return NCS_ERR(NCS_ENOMEM);
        for (size_t k = 0; k < f->tcap; k++) {
            if (f->table[k] == NULL)
                continue;
            for (i = page_hash(f->table[k]->no, ncap); nt[i] != NULL; i = (i + 1) & (ncap - 1))
                ;
            nt[i] = f->table[k];
        }
        free(f->table);
        f->table = nt;
        f->tcap = ncap;
    }
    for (i = page_hash(p->no, f->tcap); f->table[i] != NULL; i = (i + 1) & (f->tcap - 1))
        ;
    f->table[i] = p;
    f->npages++;
    if (p->no >= f->hipage)
        f->hipage = p->no + 1;
    return NCS_NOERR;
}

static void pages_free(jfile *f)
{
    for (size_t i = 0; i < f->tcap; i++)
        free(f->table[i]);
    free(f->table);
    f->table = NULL;
    f->tcap = f->npages = 0;
    f->hipage = 0;
    f->raw_bytes = 0;
    f->raw_direct = 0;
}

/* Deferred page no, made from the file's bytes when it is not yet; *made
 * says whether it was. */
static int page_get(jfile *f, uint64_t no, jpage **pp, int *made)
{
    jpage *p = page_find(f, no);
    int status;
    *made = 0;
    if (p == NULL) {
        p = ncsi_malloc(sizeof *p);
        if (p == NULL)
            return NCS_ERR(NCS_ENOMEM);
        p->no = no;
        status = read_full(f, p->data, PAGE, no * PAGE);
        if (status == NCS_NOERR)
            status = table_insert(f, p);
        if (status != NCS_NOERR) {
            free(p);
            return status;
        }
        *made = 1;
    }
    *pp = p;
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
        jpage *p = page_find(f, no);
        uint64_t lo, hi;
        if (p == NULL)
            continue;
        lo = no * PAGE > addr ? no * PAGE : addr;
        hi = (no + 1) * PAGE < end ? (no + 1) * PAGE : end;
        if (rbuf != NULL)
            memcpy(rbuf + (lo - addr), p->data + (lo - no * PAGE), (size_t)(hi - lo));
        else
            memcpy(p->data + (lo - no * PAGE), wbuf + (lo - addr), (size_t)(hi - lo));
    }
}

static int cmp_pages(const void *a, const void *b)
{
    uint64_t x = (*(jpage *const *)a)->no, y = (*(jpage *const *)b)->no;
    return x < y ? -1 : x > y;
}

/* The deferred pages that start below `final`, in page order, *n of them
 * (a new array; the table keeps owning the pages).  Pages past the file's
 * final size would only be cut off again. */
static jpage **pages_sorted(const jfile *f, uint64_t final, size_t *n)
{
    jpage **l = ncsi_malloc((f->npages ? f->npages : 1) * sizeof *l);
    size_t k = 0;
    if (l == NULL)
        return NULL;
    for (size_t i = 0; i < f->tcap; i++)
        if (f->table[i] != NULL && f->table[i]->no < NCS_RNDUP(final, PAGE) / PAGE)
            l[k++] = f->table[i];
    qsort(l, k, sizeof *l, cmp_pages);
    *n = k;
    return l;
}

/* ---- the journal ---------------------------------------------------------------- */

/* Writes the deferred pages where they belong (their part below `final`),
 * then gives the file its final size, which drops a journal past it.  With
 * durable, the pages are on disk before the size changes; the truncation
 * itself need not be: lost, it brings back a journal that repeats them. */
static int apply(jfile *f, uint64_t final, int durable)
{
    size_t n = 0;
    jpage **l = pages_sorted(f, final, &n);
    int status = l == NULL ? NCS_ERR(NCS_ENOMEM) : NCS_NOERR;
    for (size_t i = 0; i < n && status == NCS_NOERR; i++) {
        uint64_t off = l[i]->no * PAGE;
        size_t len = final - off < PAGE ? (size_t)(final - off) : PAGE;
        status = ncsi_io_write(f->io, off, l[i]->data, len);
    }
    free(l);
    if (status == NCS_NOERR && durable)
        status = ncsi_io_sync(f->io);
    if (status == NCS_NOERR)
        status = ncsi_io_set_size(f->io, final);
    return status;
}

/* Writes the journal of the deferred pages and the final size at J. */
static int journal_write(jfile *f, uint64_t final, uint64_t J)
{
    enum { BATCH = 16 };
    size_t n = 0;
    jpage **l = pages_sorted(f, final, &n);
    unsigned char *buf = ncsi_malloc(BATCH * RECORD), trailer[TRAILER];
    uLong crc = crc32(0L, Z_NULL, 0);
    uint64_t off = J;
    int status = l == NULL || buf == NULL ? NCS_ERR(NCS_ENOMEM) : NCS_NOERR;
    for (size_t i = 0; i < n && status == NCS_NOERR; i += BATCH) {
        size_t k = n - i < BATCH ? n - i : BATCH;
        for (size_t j = 0; j < k; j++) {
            put_u64(buf + j * RECORD, l[i + j]->no);
            memcpy(buf + j * RECORD + 8, l[i + j]->data, PAGE);
        }
        crc = crc32(crc, buf, (uInt)(k * RECORD));
        status = ncsi_io_write(f->io, off, buf, k * RECORD);
        off += k * RECORD;
    }
    free(buf);
    free(l);
    if (status != NCS_NOERR)
        return status;
    memcpy(trailer, jmagic, 8);
    put_u64(trailer + 8, n);
    put_u64(trailer + 16, final);
    put_u64(trailer + 24, J);
    crc = crc32(crc, trailer, 32);
    memset(trailer + 32, 0, 8);
    for (int i = 0; i < 4; i++)
        trailer[32 + i] = (unsigned char)(crc >> (8 * i));
    return ncsi_io_write(f->io, off, trailer, TRAILER);
}

/* One page of a journal being read, as a deferred page of f. */
static int journal_page(void *arg, uint64_t no, const unsigned char *data)
{
    jfile *f = arg;
    jpage *p;
    int status;
    if (page_find(f, no) != NULL)
        return 1;
    p = ncsi_malloc(sizeof *p);
    if (p == NULL)
        return NCS_ERR(NCS_ENOMEM);
    p->no = no;
    memcpy(p->data, data, PAGE);
    status = table_insert(f, p);
    if (status != NCS_NOERR)
        free(p);
    return status;
}

/* Loads a complete journal ending the file (psize bytes) as f's deferred
 * pages; *final is the size it gives the file.  *found: 1 when there was
 * one, 0 when not (an incomplete journal is none). */
static int journal_read(jfile *f, uint64_t psize, uint64_t *final, int *found)
{
    int status = ncsi_nc4_journal_read(f->io, psize, final, found, journal_page, f);
    if (status != NCS_NOERR || !*found) {
        pages_free(f);
        *found = 0;
    }
    return status;
}

void ncsi_h5j_limit(void *handle, size_t bytes)
{
    jfile *f = handle;
    pthread_mutex_lock(&f->lock);
    f->raw_limit = bytes;
    pthread_mutex_unlock(&f->lock);
}

int ncsi_h5j_commit(void *handle, int durable)
{
    jfile *f = handle;
    uint64_t final;
    int status = NCS_NOERR;
    if (!f->writable)
        return NCS_NOERR;
    pthread_mutex_lock(&f->lock);
    final = f->eof;
    if (f->npages > 0) {
        uint64_t J = NCS_RNDUP(f->psize > final ? f->psize : final, PAGE);
        status = journal_write(f, final, J);
        if (status == NCS_NOERR && durable)
            status = ncsi_io_sync(f->io);
        /* the journal is complete: the commit holds from here on */
        if (status == NCS_NOERR)
            status = apply(f, final, durable);
    } else {
        if (f->psize != final)
            status = ncsi_io_set_size(f->io, final);
        if (status == NCS_NOERR && durable)
            status = ncsi_io_sync(f->io);
    }
    if (status == NCS_NOERR) {
        pages_free(f);
        f->psize = final;
        f->committed = NCS_RNDUP(final, PAGE);
    } else {
        /* the pages stay deferred; the next commit writes its journal past
         * whatever this one left */
        uint64_t size;
        if (ncsi_io_size(f->io, &size) == NCS_NOERR && size > f->psize)
            f->psize = size;
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
    if (status == NCS_NOERR && f->npages > 0)
        overlay(f, addr, n, buf, NULL);
    return status;
}

void ncsi_h5j_willneed(void *handle, uint64_t addr, uint64_t n)
{
    jfile *f = handle;
    if (f->io->m->willneed != NULL && f->npages == 0)
        f->io->m->willneed(f->io, addr, n);
}

/* ---- the driver's callbacks ------------------------------------------------------ */

static void jfile_free(jfile *f)
{
    pages_free(f);
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
        status = apply(f, final, 1);
        pages_free(f);
        if (status == NCS_NOERR)
            f->psize = final;
    }
    if (status != NCS_NOERR) {
        ncsi_io_close(f->io);
        jfile_free(f);
        return NULL;
    }
    f->eof = found ? final : f->psize;
    f->committed = f->writable ? NCS_RNDUP(f->psize, PAGE) : 0;
    pthread_mutex_init(&f->lock, NULL);
    return &f->pub;
}

/* Anything not committed is dropped (see the top of the file). */
static herr_t jv_close(H5FD_t *file)
{
    jfile *f = (jfile *)file;
    int status = ncsi_io_close(f->io);
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
    if (status == NCS_NOERR && f->npages > 0)
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
        jpage *p;
        int made, status = page_get(f, no, &p, &made);
        if (status != NCS_NOERR)
            return status;
        memcpy(p->data + (lo - no * PAGE), buf + (lo - addr), (size_t)(hi - lo));
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
    if (addr < f->committed) {
        uint64_t split = end < f->committed ? end : f->committed;
        if (type == H5FD_MEM_DRAW && f->raw_direct) {
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
    if ((uint64_t)f->eoa > f->psize) {
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
