/*
 * io.h -- the byte I/O table (io_posix.c) and the page cache over it
 * (pagecache.c).  Depends on common only.
 */
#ifndef NCSI_IO_H
#define NCSI_IO_H

#include "common.h"

#include <sys/uio.h>

/* ---- byte I/O ------------------------------------------------------------
 * A byte-I/O object reads and writes bytes at offsets.  read returns the
 * number of bytes actually present (short at end of file).  lock takes
 * (on != 0) or drops an exclusive advisory lock on the whole file without
 * waiting: EWOULDBLOCK when another object, of this process or another,
 * holds it; close drops it too. */
typedef struct ncs_io ncs_io;
typedef struct ncs_io_methods {
    int (*read)(ncs_io *io, uint64_t off, void *buf, size_t n, size_t *got);
    /* optional (NULL: one read a buffer): the file's bytes from off into
     * cnt buffers in turn, in one transfer where the system has one */
    int (*readv)(ncs_io *io, uint64_t off, const struct iovec *v, int cnt, size_t *got);
    /* optional (NULL: nothing): n bytes at off will be read soon; the
     * system may start reading them (a hint: no status) */
    void (*willneed)(ncs_io *io, uint64_t off, uint64_t n);
    int (*write)(ncs_io *io, uint64_t off, const void *buf, size_t n);
    int (*size)(ncs_io *io, uint64_t *sizep);
    int (*set_size)(ncs_io *io, uint64_t size);   /* extend or truncate */
    int (*sync)(ncs_io *io);
    int (*lock)(ncs_io *io, int on);
    int (*close)(ncs_io *io);                     /* frees io */
} ncs_io_methods;
struct ncs_io {
    const ncs_io_methods *m;
    size_t blksize;      /* preferred transfer size, at least 8 KiB */
};
#define NCSI_IO_WRITE  1
#define NCSI_IO_CREATE 2
#define NCSI_IO_EXCL   4
int ncsi_io_posix_open(const char *path, int flags, ncs_io **iop);
/* How the classic back end opens files: ncsi_io_posix_open, unless a test
 * has put a fault-injecting wrapper in its place. */
typedef int (*ncs_io_opener)(const char *path, int flags, ncs_io **iop);
extern ncs_io_opener ncsi_io_open;

static inline int ncsi_io_read(ncs_io *io, uint64_t off, void *b, size_t n, size_t *got)
{ return io->m->read(io, off, b, n, got); }
/* The file's bytes from off into v[0], v[1], ... (at most NCSI_IOV_MAX
 * buffers) in turn; *got says how many were present (short at the end of
 * the file). */
#define NCSI_IOV_MAX 4
int ncsi_io_readv(ncs_io *io, uint64_t off, const struct iovec *v, int cnt, size_t *got);
static inline int ncsi_io_write(ncs_io *io, uint64_t off, const void *b, size_t n)
{ return io->m->write(io, off, b, n); }
static inline int ncsi_io_size(ncs_io *io, uint64_t *s) { return io->m->size(io, s); }
static inline int ncsi_io_set_size(ncs_io *io, uint64_t s) { return io->m->set_size(io, s); }
static inline int ncsi_io_sync(ncs_io *io) { return io->m->sync(io); }
static inline int ncsi_io_lock(ncs_io *io, int on) { return io->m->lock(io, on); }
static inline int ncsi_io_close(ncs_io *io) { return io->m->close(io); }

/* ---- page cache ----------------------------------------------------------
 * A write-back cache of fixed-size pages over one ncs_io.  Reads past the end
 * of the file return zeros (the bytes a sparse file would hold).  Requests of
 * at least a page bypass the cache (after flushing what they overlap).  A
 * read that misses loads only the 4 KiB blocks it needs, unless the access
 * runs on from the block before (pagecache.c). */
typedef struct ncs_pc ncs_pc;
/* The most recently used page, readable without a call: [lo, hi) of the
 * file is at base.  Kept first in struct ncs_pc. */
typedef struct ncs_pc_window {
    uint64_t lo, hi;
    unsigned char *base;
} ncs_pc_window;
static inline const unsigned char *ncsi_pc_peek(const ncs_pc *pc, uint64_t off, size_t n)
{
    const ncs_pc_window *w = (const ncs_pc_window *)pc;
    return (off >= w->lo && off + n <= w->hi) ? w->base + (off - w->lo) : NULL;
}
int  ncsi_pc_new(ncs_io *io, size_t page_size, int npages, ncs_pc **pcp); /* page_size: 2^k */
void ncsi_pc_free(ncs_pc *pc);                  /* drops dirty data */
int  ncsi_pc_read(ncs_pc *pc, uint64_t off, void *buf, size_t n);
int  ncsi_pc_write(ncs_pc *pc, uint64_t off, const void *buf, size_t n);
/* Writes to the file now, updating cached copies; for the header and
 * numrecs, which must reach the file after the data they describe. */
int  ncsi_pc_write_through(ncs_pc *pc, uint64_t off, const void *buf, size_t n);
size_t ncsi_pc_page_size(const ncs_pc *pc);
/* Lets the cache hold at least n pages (at most its npages) from now on:
 * for a caller about to hold pointers into n pages at once.  The cache
 * starts smaller and grows by itself only when it misses pages it
 * evicted. */
void ncsi_pc_reserve(ncs_pc *pc, int n);
/* For a read of [off, off+n) about to be made piece by piece across a
 * page boundary: what the two pages at the boundary lack of it (of the
 * second page, as far as n reaches into it) is loaded now in one
 * transfer, when it runs on across the boundary (a row that straddles
 * two pages is otherwise a read in each); otherwise nothing is done.
 * The status of that transfer. */
int  ncsi_pc_want(ncs_pc *pc, uint64_t off, uint64_t n);
/* [off, off+n) will be read soon: unless the cache holds it, the system
 * is told (the byte-I/O object's willneed), so that the reads of many
 * such ranges, told one after another, are in flight together. */
void ncsi_pc_prefetch(ncs_pc *pc, uint64_t off, uint64_t n);
/* Whether the page that holds off is at hand whole (the guess
 * ncsi_pc_page_rows tries first): a request that finds its first page so
 * is not cold. */
int  ncsi_pc_holds(const ncs_pc *pc, uint64_t off);
/* The file's first n bytes (of its fsize), just read by the caller: the
 * blocks of the first page they cover whole (or to the end of the file)
 * are held from now on without a read.  For the header an open reads;
 * NCS_ENOMEM when no buffer can be had for them. */
int  ncsi_pc_seed(ncs_pc *pc, const unsigned char *bytes, uint64_t n, uint64_t fsize);
/* Pointer to n bytes at off inside one cached page, or NULL when the range
 * crosses a page or is not cached-able; for_write marks the page dirty.  For
 * reading, only those n bytes are sure to be the file's (ncsi_pc_page for
 * the whole page). */
unsigned char *ncsi_pc_span(ncs_pc *pc, uint64_t off, size_t n, int for_write, int *status);
/* The start of cached page pno, for reading, or NULL with *status set; its
 * bytes past the logical size are not the file's (check before reading). */
const unsigned char *ncsi_pc_page(ncs_pc *pc, uint64_t pno, int *status);
/* The start of the cached page that holds file offset off, with at least
 * the bytes loaded that n rows of len bytes, gap apart from off, need as
 * far as they lie in that page (off's row ends in it): what a read needs,
 * without loading the rest of a page the access does not run through.
 * NULL with *status set on failure. */
const unsigned char *ncsi_pc_page_rows(ncs_pc *pc, uint64_t off, size_t len, uint64_t n,
                                       uint64_t gap, int *status);
/* memmove within the file; *donep (if not NULL) gets the bytes moved, at
 * the end of the range when to > from, at its start otherwise. */
int  ncsi_pc_move(ncs_pc *pc, uint64_t to, uint64_t from, uint64_t n, uint64_t *donep);
int  ncsi_pc_flush(ncs_pc *pc);                 /* write dirty pages */
int  ncsi_pc_invalidate(ncs_pc *pc);            /* flush, then forget */
/* Forgets every page, dirty ones included, without writing; the file is
 * now size bytes long (a rollback has put its old bytes back). */
void ncsi_pc_discard(ncs_pc *pc, uint64_t size);
uint64_t ncsi_pc_logical_size(ncs_pc *pc);       /* max(file size, writes) */
/* Frees the buffers closed caches left for the next ones: for tests that
 * count allocations or the heap, so that each run starts alike. */
void ncsi_pc_pool_drain(void);

#endif /* NCSI_IO_H */
