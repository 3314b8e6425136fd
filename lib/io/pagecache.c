/*
 * pagecache.c -- a small write-back cache of file pages over one ncs_io.
 *
 * Classic-format requests are often tiny (one element, one short vector);
 * serving them from a few cached pages avoids a system call per request.
 *
 * Invariants:
 *   - a page holds the file bytes [pno*psize, (pno+1)*psize), with bytes past
 *     the logical end of the file reading as zero;
 *   - a dirty page writes back only its dirty byte range [dlo, dhi), so the
 *     file never grows past the furthest byte a caller actually wrote;
 *   - requests of a page or more go straight to the file; cached copies of
 *     the pages they touch are flushed (reads) or updated (writes) first, so
 *     the cache and the file never disagree about written bytes;
 *   - a page may hold only some of its blocks (have: one bit per 4 KiB): a
 *     read that misses loads the blocks it touches, and the rest of the
 *     page when it looks like a scan or keeps finding the page, so a sparse
 *     cold read costs a block per element, not a page.
 *     Only whole pages (full) are ever written to, so dirty bytes and the
 *     bytes between them are always the file's or the caller's, and only
 *     whole pages are returned by ncsi_pc_page;
 *   - of its npages slots the cache uses the first limit, which starts at
 *     LIMIT_START and grows by one each time a miss finds a page it evicted
 *     (a ghost: the page numbers of the last npages evictions).  A scan,
 *     which never comes back to a page, keeps a small cache; a request
 *     that comes back to more pages than the cache holds grows it to what
 *     it needs, up to npages.  Buffers are made as slots are first used,
 *     taken from those of closed caches where there are (the pool).
 */
#include "io.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define DM_SIZE 64
/* The unit of a partial load: the system's page, below which a read saves
 * the device nothing.  A page that is not a power-of-two multiple of it,
 * at most 64 of them, is loaded whole (its one block is the page). */
#define BLOCK_SHIFT 12
#define SEQ_SLACK 16     /* a miss this close after a block boundary may be a scan */
#define PROMOTE 4        /* finds of a partial page that load the rest */
#define LIMIT_START 16   /* slots in use before any ghost is found again */

typedef struct page {
    uint64_t pno;
    uint64_t stamp;        /* LRU clock */
    size_t dlo, dhi;       /* dirty byte range, dlo == dhi when clean */
    int valid;             /* in the index, with the blocks of have */
    int full;              /* every block loaded */
    int hits;              /* finds since its last load, while partial */
    uint64_t have;         /* loaded blocks: bit b for the bytes of block b */
    unsigned char *buf;
} page;

struct ncs_pc {
    ncs_pc_window win;     /* first: read by ncsi_pc_peek */
    ncs_io *io;
    size_t psize;          /* a power of two, 1 << pshift */
    int pshift;
    int nblocks;           /* blocks per page, 1 << bshift bytes each */
    int bshift;
    uint64_t all;          /* have of a full page */
    uint64_t next;         /* the block (of the file) after the last miss */
    int run;               /* misses in a row, each starting at next */
    int npages;
    int limit;             /* slots in use: pages[0 .. limit) */
    page *pages;           /* buffers allocated on first use */
    uint64_t *ghost;       /* ring of evicted page numbers, npages long */
    int ghead;             /* its next slot */
    int *hash;             /* page number -> index in pages, -1: empty */
    size_t hmask;
    page *mru;             /* most recently used: checked first */
    uint64_t clock;
    uint64_t lsize;        /* logical file size */
    page *dm[DM_SIZE];     /* ncsi_pc_page's guesses, by page number mod DM_SIZE */
};

/* ---- buffers of closed caches, kept for the next caches of the process.
 * Memory the kernel hands a process afresh costs a fault and a page
 * cleared for every 4 KiB first touched: about 1.7 us here, so a cold
 * read of 900 KB spent 0.4 ms filling fresh pages, more than the
 * device took.  A program that opens, reads and closes file after file
 * would pay it at every open, since the freed pages go back to the
 * kernel.  The pool keeps at most POOL_MAX buffers of one size. ----- */
#define POOL_MAX 32

static struct {
    pthread_mutex_t lock;
    size_t psize;
    int n;
    unsigned char *buf[POOL_MAX];
} pool = { .lock = PTHREAD_MUTEX_INITIALIZER };

static unsigned char *page_buffer(size_t psize)
{
    unsigned char *b = NULL;
    pthread_mutex_lock(&pool.lock);
    if (pool.n > 0 && pool.psize == psize)
        b = pool.buf[--pool.n];
    pthread_mutex_unlock(&pool.lock);
    return b != NULL ? b : ncsi_malloc(psize);
}

static void page_buffer_free(unsigned char *b, size_t psize)
{
    if (b == NULL)
        return;
    pthread_mutex_lock(&pool.lock);
    if (pool.n == 0)
        pool.psize = psize;
    if (pool.n < POOL_MAX && pool.psize == psize) {
        pool.buf[pool.n++] = b;
        b = NULL;
    }
    pthread_mutex_unlock(&pool.lock);
    free(b);
}

void ncsi_pc_pool_drain(void)
{
    pthread_mutex_lock(&pool.lock);
    while (pool.n > 0)
        free(pool.buf[--pool.n]);
    pthread_mutex_unlock(&pool.lock);
}

/* ---- the page index: open addressing, linear probing, deletion by
 * shifting back the entries that follow (no tombstones) ---------------- */
static size_t hslot(const ncs_pc *pc, uint64_t pno)
{
    return (size_t)((pno * 0x9E3779B97F4A7C15ull) >> 17) & pc->hmask;
}

static page *hash_find(const ncs_pc *pc, uint64_t pno)
{
    for (size_t i = hslot(pc, pno);; i = (i + 1) & pc->hmask) {
        int k = pc->hash[i];
        if (k < 0)
            return NULL;
        if (pc->pages[k].pno == pno)
            return &pc->pages[k];
    }
}

static void hash_add(ncs_pc *pc, const page *p)
{
    size_t i = hslot(pc, p->pno);
    while (pc->hash[i] >= 0)
        i = (i + 1) & pc->hmask;
    pc->hash[i] = (int)(p - pc->pages);
}

static void hash_del(ncs_pc *pc, const page *p)
{
    size_t i = hslot(pc, p->pno), j;
    int k = (int)(p - pc->pages);
    NCSI_ASSERT(p->valid && hash_find(pc, p->pno) == p);
    while (pc->hash[i] != k)
        i = (i + 1) & pc->hmask;
    pc->hash[i] = -1;
    /* pull later entries of the run back over the hole where they belong */
    for (j = (i + 1) & pc->hmask; pc->hash[j] >= 0; j = (j + 1) & pc->hmask) {
        size_t want = hslot(pc, pc->pages[pc->hash[j]].pno);
        if (((j - want) & pc->hmask) >= ((j - i) & pc->hmask)) {
            pc->hash[i] = pc->hash[j];
            pc->hash[j] = -1;
            i = j;
        }
    }
}

int ncsi_pc_new(ncs_io *io, size_t page_size, int npages, ncs_pc **pcp)
{
    ncs_pc *pc = ncsi_calloc(1, sizeof *pc);
    int status;
    size_t hcap = 16;
    /* the back ends choose these: never from a caller or a file */
    NCSI_ASSERT(page_size > 0 && (page_size & (page_size - 1)) == 0 && npages > 0);
    if (pc == NULL)
        return NCS_ERR(NCS_ENOMEM);
    pc->io = io;
    pc->psize = page_size;
    pc->pshift = __builtin_ctzll(page_size);
    pc->bshift = BLOCK_SHIFT;
    while ((page_size >> pc->bshift) > 64)
        pc->bshift++;
    pc->nblocks = (int)(page_size >> pc->bshift);
    if (pc->nblocks < 1 || page_size != (size_t)pc->nblocks << pc->bshift) {
        pc->nblocks = 1;        /* one block: the page; its shift is never used */
        pc->bshift = 63;
    }
    pc->all = ~(uint64_t)0 >> (64 - pc->nblocks);
    pc->npages = npages;
    pc->limit = npages < LIMIT_START ? npages : LIMIT_START;
    while (hcap < 2 * (size_t)npages)
        hcap *= 2;
    pc->hmask = hcap - 1;
    pc->pages = ncsi_calloc((size_t)npages, sizeof *pc->pages);
    pc->hash = ncsi_malloc(hcap * sizeof *pc->hash);
    pc->ghost = ncsi_malloc((size_t)npages * sizeof *pc->ghost);
    if (pc->pages == NULL || pc->hash == NULL || pc->ghost == NULL) {
        ncsi_pc_free(pc);
        return NCS_ERR(NCS_ENOMEM);
    }
    for (size_t i = 0; i < hcap; i++)
        pc->hash[i] = -1;
    for (int i = 0; i < npages; i++)
        pc->ghost[i] = UINT64_MAX;
    status = ncsi_io_size(io, &pc->lsize);
    if (status != NCS_NOERR) {
        ncsi_pc_free(pc);
        return status;
    }
    *pcp = pc;
    return NCS_NOERR;
}

void ncsi_pc_free(ncs_pc *pc)
{
    if (pc == NULL)
        return;
    if (pc->pages != NULL)
        for (int i = 0; i < pc->npages; i++)
            page_buffer_free(pc->pages[i].buf, pc->psize);
    free(pc->pages);
    free(pc->hash);
    free(pc->ghost);
    free(pc);
}

size_t ncsi_pc_page_size(const ncs_pc *pc)
{
    return pc->psize;
}

uint64_t ncsi_pc_logical_size(ncs_pc *pc)
{
    return pc->lsize;
}

/* Reads the file's bytes from off into the buffers of v in turn, straight
 * from the file, zero-filling past its end. */
static int raw_readv(ncs_pc *pc, uint64_t off, const struct iovec *v, int cnt)
{
    size_t got = 0;
    int status = ncsi_io_readv(pc->io, off, v, cnt, &got);
    if (status != NCS_NOERR)
        return status;
    for (int i = 0; i < cnt; i++) {
        size_t k = got < v[i].iov_len ? got : v[i].iov_len;
        if (k < v[i].iov_len)
            memset((char *)v[i].iov_base + k, 0, v[i].iov_len - k);
        got -= k;
    }
    return NCS_NOERR;
}

static int raw_read(ncs_pc *pc, uint64_t off, void *buf, size_t n)
{
    struct iovec v = { buf, n };
    return raw_readv(pc, off, &v, 1);
}

static int page_writeback(ncs_pc *pc, page *p)
{
    int status;
    if (p->dlo == p->dhi)
        return NCS_NOERR;
    status = ncsi_io_write(pc->io, p->pno * pc->psize + p->dlo, p->buf + p->dlo,
                           p->dhi - p->dlo);
    if (status == NCS_NOERR)
        p->dlo = p->dhi = 0;
    return status;
}

static page *page_find(ncs_pc *pc, uint64_t pno)
{
    if (pc->mru != NULL && pc->mru->pno == pno && pc->mru->valid)
        return pc->mru;
    return hash_find(pc, pno);
}

/* Whether page pno is at hand whole where ncsi_pc_page looks first. */
static inline int held_whole(const ncs_pc *pc, uint64_t pno)
{
    const page *p = pc->dm[pno % DM_SIZE];
    return p != NULL && p->pno == pno && p->full;
}

/* The blocks of a page that [lo, hi) touches (lo < hi <= psize). */
static uint64_t block_mask(const ncs_pc *pc, size_t lo, size_t hi)
{
    return (~(uint64_t)0 >> (63 - ((hi - 1) >> pc->bshift))) & (~(uint64_t)0 << (lo >> pc->bshift));
}

/* Which blocks a miss of [lo, hi) loads: those it touches, and with them
 * the rest of the page when the access is a scan: a miss of one block
 * that starts (within SEQ_SLACK bytes of the boundary; one mid-block
 * follows a stride) at the block after the last one loaded, itself the
 * second of such misses in a row.  A scan's next misses are then a read
 * per page, not per block; a longer request says itself what it needs. */
static uint64_t blocks_to_load(const ncs_pc *pc, const page *p, size_t lo, size_t hi)
{
    uint64_t miss = block_mask(pc, lo, hi) & ~p->have, first = miss & -miss;
    uint64_t b = (uint64_t)__builtin_ctzll(first);
    if (miss == first && pc->run >= 1 && p->pno * (uint64_t)pc->nblocks + b == pc->next &&
        lo < (b << pc->bshift) + SEQ_SLACK)
        miss |= pc->all & ~(first - 1) & ~p->have;
    return miss;
}

/* The window: the run of loaded blocks around [lo, hi), the whole page
 * when full, and never past the end of the file (reads there must go
 * through the checks). */
static void set_window(ncs_pc *pc, const page *p, size_t lo, size_t hi)
{
    uint64_t base = p->pno * pc->psize, wlo = base, whi = base + pc->psize;
    if (!p->full) {
        int b0 = (int)(lo >> pc->bshift), b1 = (int)((hi - 1) >> pc->bshift);
        while (b0 > 0 && (p->have >> (b0 - 1)) & 1)
            b0--;
        while (b1 + 1 < pc->nblocks && (p->have >> (b1 + 1)) & 1)
            b1++;
        wlo = base + ((uint64_t)b0 << pc->bshift);
        whi = base + ((uint64_t)(b1 + 1) << pc->bshift);
    }
    pc->win.lo = wlo;
    pc->win.hi = whi < pc->lsize ? whi : pc->lsize;
    pc->win.base = p->buf + (wlo - base);
}

/* Loads the blocks of load into p, in one read from the first to the
 * last: loaded blocks between are clean (only full pages are written to),
 * so reading them again changes nothing, and costs less than a second
 * read. */
/* A load of the file's blocks [b0, b1): the misses run on when it starts
 * at the block after the last load's end. */
static void note_load(ncs_pc *pc, uint64_t b0, uint64_t b1)
{
    pc->run = b0 == pc->next ? pc->run + 1 : 0;
    pc->next = b1;
}

/* p now holds its bytes [lo, hi) (whole blocks). */
static void mark_loaded(ncs_pc *pc, page *p, size_t lo, size_t hi)
{
    p->have |= block_mask(pc, lo, hi);
    p->full = p->have == pc->all;
    p->hits = 0;
}

static int load_blocks(ncs_pc *pc, page *p, uint64_t load)
{
    uint64_t g = p->pno * (uint64_t)pc->nblocks;
    size_t lo = (size_t)__builtin_ctzll(load) << pc->bshift;
    size_t hi = (size_t)(64 - __builtin_clzll(load)) << pc->bshift;
    int status;
    note_load(pc, g + (lo >> pc->bshift), g + (hi >> pc->bshift));
    status = raw_read(pc, p->pno * pc->psize + lo, p->buf + lo, hi - lo);
    if (status != NCS_NOERR)
        return status;
    mark_loaded(pc, p, lo, hi);
    return NCS_NOERR;
}

/* A miss of page pno: when it is one the cache evicted, the cache was too
 * small for the access, and grows by a slot. */
static void note_miss(ncs_pc *pc, uint64_t pno)
{
    if (pc->limit == pc->npages)
        return;
    for (int i = 0; i < pc->npages; i++)
        if (pc->ghost[i] == pno) {
            pc->ghost[i] = UINT64_MAX;
            pc->limit++;
            return;
        }
}

void ncsi_pc_reserve(ncs_pc *pc, int n)
{
    if (n > pc->npages)
        n = pc->npages;
    if (pc->limit < n)
        pc->limit = n;
}

/* A slot for page pno, not cached, with no block loaded (evicting the
 * least recently used page). */
static int page_new(ncs_pc *pc, uint64_t pno, page **pp)
{
    page *victim = NULL;
    int status;
    note_miss(pc, pno);
    for (int i = 0; i < pc->limit; i++) {
        page *q = &pc->pages[i];
        if (!q->valid) {
            victim = q;
            break;
        }
        if (victim == NULL || q->stamp < victim->stamp)
            victim = q;
    }
    NCSI_ASSERT(victim != NULL);        /* npages > 0 */
    if (victim->valid) {
        status = page_writeback(pc, victim);
        if (status != NCS_NOERR)
            return status;
        hash_del(pc, victim);
        victim->valid = 0;
        pc->ghost[pc->ghead] = victim->pno;
        pc->ghead = pc->ghead + 1 < pc->npages ? pc->ghead + 1 : 0;
        if (pc->mru == victim) {
            pc->mru = NULL;
            pc->win.lo = pc->win.hi = 0;
        }
    }
    if (victim->buf == NULL && (victim->buf = page_buffer(pc->psize)) == NULL)
        return NCS_ERR(NCS_ENOMEM);
    victim->pno = pno;
    victim->valid = 1;
    victim->full = 0;
    victim->have = 0;
    hash_add(pc, victim);
    victim->dlo = victim->dhi = 0;
    *pp = victim;
    return NCS_NOERR;
}

/* The cached page pno with at least its bytes [lo, hi) loaded, loading
 * them when absent.  A partial page that keeps being found (PROMOTE
 * times) is being reused: it is loaded whole, so that warm access tests
 * one flag. */
static int page_get_part(ncs_pc *pc, uint64_t pno, size_t lo, size_t hi, page **pp)
{
    page *p;
    int status;
    NCSI_ASSERT(lo < hi && hi <= pc->psize);
    if ((p = page_find(pc, pno)) == NULL && (status = page_new(pc, pno, &p)) != NCS_NOERR)
        return status;
    if (!p->full) {
        uint64_t load = block_mask(pc, lo, hi) & ~p->have;
        if (load != 0)
            load = blocks_to_load(pc, p, lo, hi);
        else if (++p->hits >= PROMOTE)
            load = pc->all & ~p->have;
        if (load != 0 && (status = load_blocks(pc, p, load)) != NCS_NOERR)
            return status;
    }
    p->stamp = ++pc->clock;
    pc->mru = p;
    set_window(pc, p, lo, hi);
    *pp = p;
    return NCS_NOERR;
}

int ncsi_pc_want(ncs_pc *pc, uint64_t off, uint64_t n)
{
    uint64_t pno = off >> pc->pshift, lo = off & (pc->psize - 1), need, amiss, bmiss;
    size_t alo, bhi;
    page *a, *b;
    struct iovec v[2];
    int status;
    if (n == 0 || lo + n <= pc->psize || pc->limit < 2 || pc->nblocks < 2)
        return NCS_NOERR;
    if (held_whole(pc, pno) && held_whole(pc, pno + 1))
        return NCS_NOERR;               /* the warm case, at once */
    need = lo + n - pc->psize;          /* bytes of the next page */
    if (need > pc->psize)
        need = pc->psize;
    a = page_find(pc, pno);
    b = page_find(pc, pno + 1);
    amiss = block_mask(pc, (size_t)lo, pc->psize) & ~(a != NULL ? a->have : 0);
    bmiss = block_mask(pc, 0, (size_t)need) & ~(b != NULL ? b->have : 0);
    /* only what runs on across the boundary: the last block of one, the
     * first of the other */
    if (!(amiss >> (pc->nblocks - 1) & 1) || !(bmiss & 1))
        return NCS_NOERR;
    alo = (size_t)__builtin_ctzll(amiss) << pc->bshift;
    bhi = (size_t)(64 - __builtin_clzll(bmiss)) << pc->bshift;
    /* each the most recently used while the other's slot is found, so
     * that neither evicts the other */
    if (b != NULL)
        b->stamp = ++pc->clock;
    if (a == NULL && (status = page_new(pc, pno, &a)) != NCS_NOERR)
        return status;
    a->stamp = ++pc->clock;
    if (b == NULL && (status = page_new(pc, pno + 1, &b)) != NCS_NOERR)
        return status;
    b->stamp = ++pc->clock;
    NCSI_ASSERT(a != b && !a->full && !b->full);
    v[0].iov_base = a->buf + alo;
    v[0].iov_len = pc->psize - alo;
    v[1].iov_base = b->buf;
    v[1].iov_len = bhi;
    if ((status = raw_readv(pc, pno * pc->psize + alo, v, 2)) != NCS_NOERR)
        return status;
    mark_loaded(pc, a, alo, pc->psize);
    mark_loaded(pc, b, 0, bhi);
    note_load(pc, pno * (uint64_t)pc->nblocks + (alo >> pc->bshift),
              (pno + 1) * (uint64_t)pc->nblocks + (bhi >> pc->bshift));
    return NCS_NOERR;
}

int ncsi_pc_seed(ncs_pc *pc, const unsigned char *bytes, uint64_t n, uint64_t fsize)
{
    page *p;
    size_t hi;
    int status;
    if (n > pc->psize)
        n = pc->psize;
    /* whole blocks; the last one too where the file ends in it */
    hi = n >= fsize ? (size_t)n : (size_t)(n >> pc->bshift << pc->bshift);
    if (pc->nblocks < 2)
        hi = n >= fsize || n == pc->psize ? (size_t)n : 0;
    if (hi == 0 || (p = page_find(pc, 0)) != NULL)
        return NCS_NOERR;       /* nothing whole, or held: maybe newer */
    if ((status = page_new(pc, 0, &p)) != NCS_NOERR)
        return status;
    memcpy(p->buf, bytes, hi);
    {
        size_t end = (size_t)(((hi - 1) >> pc->bshift) + 1) << pc->bshift;
        if (pc->nblocks < 2)
            end = pc->psize;
        memset(p->buf + hi, 0, end - hi);
        p->have = block_mask(pc, 0, end);
    }
    p->full = p->have == pc->all;
    p->stamp = ++pc->clock;
    return NCS_NOERR;
}

void ncsi_pc_prefetch(ncs_pc *pc, uint64_t off, uint64_t n)
{
    uint64_t first = off >> pc->pshift, last = (off + n - 1) >> pc->pshift, lo, hi;
    if (n == 0 || pc->io->m->willneed == NULL)
        return;
    for (uint64_t pno = first; pno <= last; pno++) {
        const page *p = page_find(pc, pno);
        size_t a = pno == first ? (size_t)(off & (pc->psize - 1)) : 0;
        size_t b = pno == last ? (size_t)((off + n - 1) & (pc->psize - 1)) + 1 : pc->psize;
        if (p == NULL || (block_mask(pc, a, b) & ~p->have) != 0)
            break;
        if (pno == last)
            return;                 /* all held */
    }
    /* in the system's pages */
    lo = off >> BLOCK_SHIFT << BLOCK_SHIFT;
    hi = (((off + n - 1) >> BLOCK_SHIFT) + 1) << BLOCK_SHIFT;
    pc->io->m->willneed(pc->io, lo, hi - lo);
}

int ncsi_pc_holds(const ncs_pc *pc, uint64_t off)
{
    return held_whole(pc, off >> pc->pshift);
}

/* The whole cached page pno. */
static int page_get(ncs_pc *pc, uint64_t pno, page **pp)
{
    return page_get_part(pc, pno, 0, pc->psize, pp);
}

static void mark_dirty(ncs_pc *pc, page *p, size_t lo, size_t hi)
{
    uint64_t end = p->pno * pc->psize + hi;
    NCSI_ASSERT(p->full && lo < hi && hi <= pc->psize);
    if (p->dlo == p->dhi) {
        p->dlo = lo;
        p->dhi = hi;
    } else {
        if (lo < p->dlo)
            p->dlo = lo;
        if (hi > p->dhi)
            p->dhi = hi;
    }
    if (end > pc->lsize)
        pc->lsize = end;
}

unsigned char *ncsi_pc_span(ncs_pc *pc, uint64_t off, size_t n, int for_write,
                            int *status)
{
    uint64_t pno = off / pc->psize;
    size_t in = (size_t)(off % pc->psize);
    page *p;
    *status = NCS_NOERR;
    if (n == 0 || in + n > pc->psize)
        return NULL;
    *status = for_write ? page_get(pc, pno, &p) : page_get_part(pc, pno, in, in + n, &p);
    if (*status != NCS_NOERR)
        return NULL;
    if (for_write)
        mark_dirty(pc, p, in, in + n);
    return p->buf + in;
}

/* A guess at where page pno is kept: an entry of dm is only ever a page
 * structure of pc, so checking its number and validity is enough (a page
 * reused for another number, or dropped, fails the check). */
const unsigned char *ncsi_pc_page(ncs_pc *pc, uint64_t pno, int *status)
{
    page *p = pc->dm[pno % DM_SIZE];
    if (p != NULL && p->pno == pno && p->full) {
        p->stamp = ++pc->clock;
        return p->buf;
    }
    *status = page_get(pc, pno, &p);
    if (*status != NCS_NOERR)
        return NULL;
    pc->dm[pno % DM_SIZE] = p;
    return p->buf;
}

/* ncsi_pc_page_rows when the page is not at hand whole: apart, so that
 * the hit saves no registers for it. */
static __attribute__((noinline)) const unsigned char *
page_rows_miss(ncs_pc *pc, uint64_t off, size_t len, uint64_t n, uint64_t gap, int *status)
{
    uint64_t pno = off >> pc->pshift, lo = off & (pc->psize - 1), hi = lo + len;
    page *p;
    NCSI_ASSERT(hi <= pc->psize);
    /* to the end of the last row, or of the page: the rows past it are
     * read from the next */
    if (n > 1 && gap < pc->psize)
        hi = (n - 1) * gap < pc->psize - hi ? hi + (n - 1) * gap : pc->psize;
    *status = page_get_part(pc, pno, (size_t)lo, (size_t)hi, &p);
    if (*status != NCS_NOERR)
        return NULL;
    pc->dm[pno % DM_SIZE] = p;
    return p->buf;
}

const unsigned char *ncsi_pc_page_rows(ncs_pc *pc, uint64_t off, size_t len, uint64_t n,
                                       uint64_t gap, int *status)
{
    uint64_t pno = off >> pc->pshift;
    page *p = pc->dm[pno % DM_SIZE];
    if (p != NULL && p->pno == pno && p->full) {
        p->stamp = ++pc->clock;
        return p->buf;
    }
    return page_rows_miss(pc, off, len, n, gap, status);
}

/* Flushes (for reads) or overwrites (for writes) the cached copies of pages
 * that [off, off+n) touches, ahead of a direct transfer. */
static int sync_overlap(ncs_pc *pc, uint64_t off, size_t n, const void *wbuf)
{
    uint64_t first = off / pc->psize, last = (off + n - 1) / pc->psize;
    for (int i = 0; i < pc->npages; i++) {
        page *p = &pc->pages[i];
        uint64_t plo, phi, lo, hi;
        if (!p->valid || p->pno < first || p->pno > last)
            continue;
        if (wbuf == NULL) {
            int status = page_writeback(pc, p);
            if (status != NCS_NOERR)
                return status;
            continue;
        }
        plo = p->pno * pc->psize;
        phi = plo + pc->psize;
        lo = off > plo ? off : plo;
        hi = off + n < phi ? off + n : phi;
        memcpy(p->buf + (lo - plo), (const char *)wbuf + (lo - off), (size_t)(hi - lo));
    }
    return NCS_NOERR;
}

int ncsi_pc_read(ncs_pc *pc, uint64_t off, void *buf, size_t n)
{
    unsigned char *out = buf;
    int status;
    if (n == 0)
        return NCS_NOERR;
    if (n >= pc->psize) {
        status = sync_overlap(pc, off, n, NULL);
        if (status != NCS_NOERR)
            return status;
        return raw_read(pc, off, buf, n);
    }
    if ((status = ncsi_pc_want(pc, off, n)) != NCS_NOERR)
        return status;
    while (n > 0) {
        page *p;
        size_t in = (size_t)(off % pc->psize);
        size_t k = pc->psize - in < n ? pc->psize - in : n;
        status = page_get_part(pc, off / pc->psize, in, in + k, &p);
        if (status != NCS_NOERR)
            return status;
        memcpy(out, p->buf + in, k);
        out += k;
        off += k;
        n -= k;
    }
    return NCS_NOERR;
}

int ncsi_pc_write_through(ncs_pc *pc, uint64_t off, const void *buf, size_t n)
{
    int status;
    if (n == 0)
        return NCS_NOERR;
    status = sync_overlap(pc, off, n, buf);
    if (status != NCS_NOERR)
        return status;
    status = ncsi_io_write(pc->io, off, buf, n);
    if (status == NCS_NOERR && off + n > pc->lsize)
        pc->lsize = off + n;
    return status;
}

int ncsi_pc_write(ncs_pc *pc, uint64_t off, const void *buf, size_t n)
{
    const unsigned char *in_buf = buf;
    int status;
    if (n == 0)
        return NCS_NOERR;
    if (n >= pc->psize)
        return ncsi_pc_write_through(pc, off, buf, n);
    while (n > 0) {
        page *p;
        size_t in = (size_t)(off % pc->psize);
        size_t k = pc->psize - in < n ? pc->psize - in : n;
        status = page_get(pc, off / pc->psize, &p);
        if (status != NCS_NOERR)
            return status;
        memcpy(p->buf + in, in_buf, k);
        mark_dirty(pc, p, in, in + k);
        in_buf += k;
        off += k;
        n -= k;
    }
    return NCS_NOERR;
}

int ncsi_pc_move(ncs_pc *pc, uint64_t to, uint64_t from, uint64_t n, uint64_t *donep)
{
    size_t bsz = pc->psize * 4;
    unsigned char *tmp;
    uint64_t done = 0;
    int status = NCS_NOERR;
    if (donep != NULL)
        *donep = 0;
    if (n == 0 || to == from) {
        if (donep != NULL)
            *donep = n;
        return NCS_NOERR;
    }
    tmp = ncsi_malloc(bsz);
    if (tmp == NULL)
        return NCS_ERR(NCS_ENOMEM);
    if (to > from) {
        /* from the end backwards, so overlapping ranges survive; done
         * counts the bytes moved at the end of the range */
        while (done < n && status == NCS_NOERR) {
            size_t k = n - done < bsz ? (size_t)(n - done) : bsz;
            uint64_t at = n - done - k;
            status = ncsi_pc_read(pc, from + at, tmp, k);
            if (status == NCS_NOERR) {
                status = ncsi_pc_write(pc, to + at, tmp, k);
                /* a failed (maybe torn) write may have hit the source where
                 * the ranges overlap: put the source bytes back */
                if (status != NCS_NOERR)
                    ncsi_pc_write(pc, from + at, tmp, k);
            }
            if (status == NCS_NOERR)
                done += k;
        }
    } else {
        while (done < n && status == NCS_NOERR) {
            size_t k = n - done < bsz ? (size_t)(n - done) : bsz;
            status = ncsi_pc_read(pc, from + done, tmp, k);
            if (status == NCS_NOERR)
                status = ncsi_pc_write(pc, to + done, tmp, k);
            if (status == NCS_NOERR)
                done += k;
        }
    }
    free(tmp);
    if (donep != NULL)
        *donep = done;
    return status;
}

static int cmp_pno(const void *a, const void *b)
{
    const page *x = *(page *const *)a, *y = *(page *const *)b;
    return x->pno < y->pno ? -1 : x->pno > y->pno;
}

int ncsi_pc_flush(ncs_pc *pc)
{
    page *order[pc->npages];
    int n = 0, status = NCS_NOERR;
    for (int i = 0; i < pc->npages; i++)
        if (pc->pages[i].valid && pc->pages[i].dlo != pc->pages[i].dhi)
            order[n++] = &pc->pages[i];
    /* In file order: sequential writes, and a deterministic order for the
     * crash tests. */
    qsort(order, (size_t)n, sizeof order[0], cmp_pno);
    for (int i = 0; i < n && status == NCS_NOERR; i++)
        status = page_writeback(pc, order[i]);
    return status;
}

/* Empties the cache without writing anything. */
static void forget_all(ncs_pc *pc)
{
    for (int i = 0; i < pc->npages; i++) {
        pc->pages[i].valid = pc->pages[i].full = 0;
        pc->pages[i].have = 0;
        pc->pages[i].dlo = pc->pages[i].dhi = 0;
    }
    for (size_t i = 0; i <= pc->hmask; i++)
        pc->hash[i] = -1;
    pc->mru = NULL;
    pc->win.lo = pc->win.hi = 0;
}

int ncsi_pc_invalidate(ncs_pc *pc)
{
    int status = ncsi_pc_flush(pc);
    if (status != NCS_NOERR)
        return status;
    forget_all(pc);
    return ncsi_io_size(pc->io, &pc->lsize);
}

void ncsi_pc_discard(ncs_pc *pc, uint64_t size)
{
    forget_all(pc);
    pc->lsize = size;
}
