/*
 * chunkcache.c -- the chunk cache shared by every open chunked file.
 *
 * Holds decoded chunks (native byte order) under one budget in bytes.
 * Entries are found by (owner, chunk index) in an open-addressing hash
 * table and kept on an LRU list; a dirty entry is written back through its
 * owner's store callback when evicted, flushed or dropped.  Evicting a
 * dirty entry written with NCSI_CACHE_ENCODED (a filtered variable's)
 * writes back the oldest such entries with it, encoded at once on the
 * pool's threads (write_back_oldest).  A chunk larger
 * than the whole budget is still cached alone, so any budget works.
 *
 * The budget is a ceiling, not what the cache fills: it holds at most
 * `target` bytes, which starts at TARGET_FLOOR (or the budget, if smaller)
 * and grows only when it proves too small.  An entry evicted to stay
 * within the target leaves a ghost (its key and size, no data) for as long
 * as the ghosts' sizes sum to at most budget - target; a miss that finds a
 * ghost is a chunk a larger cache would have kept, so the target grows by
 * its size.  A working set of W bytes (a row of chunks under a row-major
 * scan) thus settles at W after one pass, instead of filling the budget
 * with chunks never read again (doc/performance.md, "Chunked scan
 * memory").  The target returns to the floor when the cache empties.
 *
 * Invariants: used == sum of the sizes of all live entries; pinned_bytes
 * == sum of the sizes of the live entries with pinned set (each of which
 * counts one of its pins for it); target <= budget; ghost_bytes == sum of the ghosts' sizes <= budget - target and
 * nghosts <= GHOST_MAX; the hash table holds exactly the live entries and
 * the ghosts, the LRU list the live entries, the ghost list the ghosts
 * (oldest at its tail); a pointer returned by ncsi_cache_get stays
 * valid until the caller releases it (it may copy outside the lock while
 * other threads use the cache), one from ncsi_cache_pin until it is
 * unpinned or its owner's entries are dropped.  Held and pinned entries
 * (one per variable read through the one-element fast path, one per chunk
 * being copied) are never evicted, so the budget can be exceeded by that
 * many chunks, and by the pinned ones: those of ncsi_cache_pin hold
 * pinned_bytes, which a pin reports as crowded beyond 3/4 of the budget,
 * so that the owners pinning many (chunk_data.c) let some go.  One mutex
 * guards the cache's state; a chunk's load (the
 * store's file read and decoding) runs outside it, so threads reading
 * different files decode at once: the entry is in the table meanwhile,
 * marked loading and held, and a thread that wants it waits for `load_done`
 * (see doc/reliability.md for what is thread-safe).
 */
#include "chunk.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

enum { LIVE, GHOST, LOADING };

typedef struct entry {
    void *owner;
    const ncs_chunk_ops *ops;
    uint64_t idx;
    size_t size;
    int dirty;
    int pins;                    /* pinned entries are never evicted */
    int pinned;                  /* pinned by ncsi_cache_pin (counted in
                                    pinned_bytes), besides any holds */
    int encoded;                 /* written with NCSI_CACHE_ENCODED: its
                                    write-back is worth batching */
    int state;                   /* LIVE, GHOST (evicted: key and size only,
                                    data NULL) or LOADING (held, its load
                                    running outside the lock) */
    unsigned char *data;
    struct entry *prev, *next;   /* LRU or ghost list: head is most recent */
} entry;

#define TARGET_FLOOR ((size_t)4 << 20)
#define GHOST_MAX    4096

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t load_done = PTHREAD_COND_INITIALIZER;
static size_t budget = 16u << 20;
static size_t target = TARGET_FLOOR;
static size_t used;
static size_t pinned_bytes;      /* sizes of the entries with pinned set */
static entry *head, *tail;
static entry *ghead, *gtail;     /* ghosts */
static size_t nghosts, ghost_bytes;
static entry **table;            /* open addressing, NULL or TOMB or entry */
static size_t tcap, tcount, ttombs;
static ncs_cache_counters counters;
static entry tomb_marker;
#define TOMB (&tomb_marker)

static size_t hash(const void *owner, uint64_t idx)
{
    uint64_t h = (uint64_t)(uintptr_t)owner * 0x9E3779B97F4A7C15ull ^ idx * 0xC2B2AE3D27D4EB4Full;
    return (size_t)(h ^ h >> 29);
}

static entry **slot_of(const void *owner, uint64_t idx)
{
    size_t mask = tcap - 1, i;
    if (tcap == 0)
        return NULL;
    for (i = hash(owner, idx) & mask;; i = (i + 1) & mask) {
        entry *e = table[i];
        if (e == NULL)
            return NULL;
        if (e != TOMB && e->owner == owner && e->idx == idx)
            return &table[i];
    }
}

static int table_grow(void)
{
    /* mostly tombstones (entries come and go): rehash at the same size */
    size_t ncap = tcap == 0 ? 256 : tcount * 4 < tcap ? tcap : tcap * 2;
    entry **nt = ncsi_calloc(ncap, sizeof *nt);
    if (nt == NULL)
        return NCS_ERR(NCS_ENOMEM);
    for (size_t i = 0; i < tcap; i++) {
        entry *e = table[i];
        size_t j;
        if (e == NULL || e == TOMB)
            continue;
        for (j = hash(e->owner, e->idx) & (ncap - 1); nt[j] != NULL; j = (j + 1) & (ncap - 1))
            ;
        nt[j] = e;
    }
    free(table);
    table = nt;
    tcap = ncap;
    ttombs = 0;
    return NCS_NOERR;
}

static int table_insert(entry *e)
{
    size_t i;
    if ((tcount + ttombs + 1) * 2 > tcap) {
        int status = table_grow();
        if (status != NCS_NOERR)
            return status;
    }
    /* at most half full, so the probe below ends */
    NCSI_ASSERT((tcount + ttombs + 1) * 2 <= tcap);
    for (i = hash(e->owner, e->idx) & (tcap - 1); table[i] != NULL && table[i] != TOMB;
         i = (i + 1) & (tcap - 1))
        ;
    if (table[i] == TOMB)
        ttombs--;
    table[i] = e;
    tcount++;
    return NCS_NOERR;
}

static void list_unlink(entry **h, entry **t, entry *e)
{
    NCSI_ASSERT((e->prev == NULL) == (*h == e) && (e->next == NULL) == (*t == e));
    if (e->prev)
        e->prev->next = e->next;
    else
        *h = e->next;
    if (e->next)
        e->next->prev = e->prev;
    else
        *t = e->prev;
    e->prev = e->next = NULL;
}

static void list_push(entry **h, entry **t, entry *e)
{
    e->prev = NULL;
    e->next = *h;
    if (*h)
        (*h)->prev = e;
    *h = e;
    if (*t == NULL)
        *t = e;
}

static void lru_unlink(entry *e) { list_unlink(&head, &tail, e); }
static void lru_push(entry *e) { list_push(&head, &tail, e); }

static void table_remove(entry *e)
{
    entry **slot = slot_of(e->owner, e->idx);
    NCSI_ASSERT(slot != NULL && *slot == e);
    *slot = TOMB;
    tcount--;
    ttombs++;
}

static void ghost_free(entry *e)
{
    NCSI_ASSERT(e->state == GHOST && e->data == NULL && nghosts > 0 && ghost_bytes >= e->size);
    list_unlink(&ghead, &gtail, e);
    nghosts--;
    ghost_bytes -= e->size;
    table_remove(e);
    free(e);
}

/* Drops the oldest ghosts until they fit what the target may still grow. */
static void ghosts_trim(void)
{
    while (gtail != NULL && (nghosts > GHOST_MAX || ghost_bytes > budget - target))
        ghost_free(gtail);
}

static int write_back(entry *e)
{
    int status;
    if (!e->dirty)
        return NCS_NOERR;
    status = e->ops->store(e->owner, e->idx, e->data, e->size);
    if (status == NCS_NOERR) {
        e->dirty = 0;
        counters.bytes_written += e->size;
    }
    return status;
}

/* ---- write-back in batches ------------------------------------------------
 * Dirty entries whose store has the encode and write slots are encoded on
 * the pool's threads at once (filters are most of a compressed write's
 * time), then written one by one in the order given, on this thread, with
 * the lock held throughout, as write_back would.  The entries given are
 * live and not held by anyone, so nothing changes their data meanwhile. */
#define BATCH_MAX 16

typedef struct batch {
    entry *e[BATCH_MAX];
    unsigned char *out[BATCH_MAX];
    size_t outn[BATCH_MAX];
    int status[BATCH_MAX];
} batch;

static void encode_one(void *arg, size_t i)
{
    batch *b = arg;
    entry *e = b->e[i];
    b->status[i] = e->ops->encode(e->owner, e->data, e->size, &b->out[i], &b->outn[i]);
}

/* Writes back the dirty entries of l[0..n), n <= BATCH_MAX, in that order,
 * stopping at the first error (that entry and the ones after it stay
 * dirty). */
static int write_back_group(entry **l, size_t n)
{
    batch b;
    size_t m = 0, j = 0;
    int status = NCS_NOERR;
    NCSI_ASSERT(n <= BATCH_MAX);
    for (size_t i = 0; i < n; i++)
        if (l[i]->dirty && l[i]->ops->encode != NULL)
            b.e[m++] = l[i];
    if (m < 2 || ncsi_pool_size() < 2) {
        for (size_t i = 0; i < n && status == NCS_NOERR; i++)
            status = write_back(l[i]);
        return status;
    }
    ncsi_pool_run(encode_one, &b, m);
    for (size_t i = 0; i < n && status == NCS_NOERR; i++) {
        entry *e = l[i];
        if (!e->dirty)
            continue;
        if (e->ops->encode == NULL) {
            status = write_back(e);
            continue;
        }
        NCSI_ASSERT(j < m && b.e[j] == e);
        status = b.status[j];
        if (status == NCS_NOERR)
            status = e->ops->write(e->owner, e->idx, b.out[j] ? b.out[j] : e->data,
                                   b.outn[j]);
        if (status == NCS_NOERR) {
            e->dirty = 0;
            counters.bytes_written += e->size;
        }
        j++;
    }
    for (j = 0; j < m; j++)
        if (b.status[j] == NCS_NOERR)
            free(b.out[j]);
    return status;
}

/* As write_back_group for any n, BATCH_MAX entries at a time, so that the
 * encoded copies held at once stay few. */
static int write_back_batch(entry **l, size_t n)
{
    int status = NCS_NOERR;
    for (size_t i = 0; i < n && status == NCS_NOERR; i += BATCH_MAX)
        status = write_back_group(l + i, n - i < BATCH_MAX ? n - i : BATCH_MAX);
    return status;
}

/* Removes e's data from the cache; a dirty entry is written back first
 * (on a write error it stays cached and dirty, so nothing is lost).  With
 * as_ghost the key stays behind as a ghost, otherwise e is freed. */
static int evict(entry *e, int writeback, int as_ghost)
{
    if (writeback) {
        int status = write_back(e);
        if (status != NCS_NOERR)
            return status;
    }
    NCSI_ASSERT(e->state == LIVE && used >= e->size && target <= budget);
    lru_unlink(e);
    used -= e->size;
    if (e->pinned) {
        /* a drop takes pinned entries too: their owner forgot them */
        NCSI_ASSERT(pinned_bytes >= e->size);
        pinned_bytes -= e->size;
        e->pinned = 0;
    }
    free(e->data);
    e->data = NULL;
    if (as_ghost && e->size <= budget - target) {
        e->state = GHOST;
        e->dirty = 0;
        list_push(&ghead, &gtail, e);
        nghosts++;
        ghost_bytes += e->size;
        ghosts_trim();
    } else {
        table_remove(e);
        free(e);
    }
    return NCS_NOERR;
}

/* Whether e may join a batched write-back (write_back_oldest). */
static int batchable(const entry *e)
{
    return e->state == LIVE && e->pins == 0 && e->dirty && e->encoded &&
           e->ops->encode != NULL;
}

/* The eviction of e, dirty and NCSI_CACHE_ENCODED: e and the next dirty
 * encoded entries towards the LRU list's head, within the oldest half of
 * the target's bytes, written back at once (so encoded on the pool's
 * threads), in the order their evictions would have written them; a
 * writer filling one compressed chunk a call (nccopy's record by record)
 * otherwise encodes each on its own thread as it falls off the end.  The
 * older half: chunks written back early are the least likely to be
 * changed again, which would make their early write-back wasted work. */
static int write_back_oldest(entry *e)
{
    entry *l[BATCH_MAX] = { NULL };
    size_t n = 0, walked = 0;
    for (; e != NULL && n < BATCH_MAX && walked <= target / 2; e = e->prev) {
        walked += e->size;
        if (batchable(e))
            l[n++] = e;
    }
    return write_back_group(l, n);
}

/* Makes room for need more bytes within the target. */
static int make_room(size_t need)
{
    entry *e = tail;
    while (e != NULL && used + need > target) {
        entry *prev = e->prev;
        if (e->pins == 0) {
            int status;
            /* an error stops the batch and leaves the entries from the
             * failed one on dirty: e's own then comes from evict, the
             * others' when they are evicted or flushed, as without it */
            if (batchable(e) && ncsi_pool_size() >= 2)
                (void)write_back_oldest(e);
            status = evict(e, 1, 1);
            if (status != NCS_NOERR)
                return status;
            counters.evictions++;
        }
        e = prev;
    }
    return NCS_NOERR;
}

static int cache_get_locked(void *owner, const ncs_chunk_ops *ops, uint64_t idx,
                            size_t size, int mode, entry **ep);

int ncsi_cache_get(void *owner, const ncs_chunk_ops *ops, uint64_t idx, size_t size,
                   int mode, unsigned char **out, void **ref)
{
    entry *e;
    int status, encoded = mode & NCSI_CACHE_ENCODED;
    pthread_mutex_lock(&lock);
    status = cache_get_locked(owner, ops, idx, size, mode & ~NCSI_CACHE_ENCODED, &e);
    if (status == NCS_NOERR) {
        if (encoded && e->dirty)
            e->encoded = 1;
        e->pins++;
        *out = e->data;
        *ref = e;
    }
    pthread_mutex_unlock(&lock);
    return status;
}

void ncsi_cache_release(void *ref)
{
    entry *e = ref;
    pthread_mutex_lock(&lock);
    NCSI_ASSERT(e->pins > 0);
    e->pins--;
    pthread_mutex_unlock(&lock);
}

/* Takes away the pin of chunk idx of owner, if it has one. */
static void unpin_locked(void *owner, uint64_t idx)
{
    entry **slot = slot_of(owner, idx);
    if (slot != NULL && (*slot)->pinned) {
        entry *e = *slot;
        NCSI_ASSERT(e->pins > 0 && pinned_bytes >= e->size);
        e->pins--;
        e->pinned = 0;
        pinned_bytes -= e->size;
    }
}

int ncsi_cache_pin(void *owner, const ncs_chunk_ops *ops, uint64_t idx, size_t size,
                   int have_old, uint64_t old_idx, unsigned char **out, int *crowded)
{
    entry *e;
    int status;
    pthread_mutex_lock(&lock);
    if (have_old)
        unpin_locked(owner, old_idx);
    status = cache_get_locked(owner, ops, idx, size, NCSI_CACHE_READ, &e);
    if (status == NCS_NOERR) {
        if (!e->pinned) {
            e->pins++;
            e->pinned = 1;
            pinned_bytes += e->size;
        }
        *out = e->data;
    }
    if (crowded != NULL)
        *crowded = pinned_bytes > budget / 4 * 3;
    pthread_mutex_unlock(&lock);
    return status;
}

void ncsi_cache_unpin(void *owner, const uint64_t *idx, size_t n)
{
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < n; i++)
        unpin_locked(owner, idx[i]);
    pthread_mutex_unlock(&lock);
}

static inline void hit(entry *e)
{
    NCSI_ASSERT(e->data != NULL);
    counters.hits++;
    if (e != head) {
        lru_unlink(e);
        lru_push(e);
    }
}

/* Chunk idx not live in the cache (slot: its ghost or loading entry, or
 * NULL): waits while another thread loads it, else makes its entry and
 * loads it unless mode is NCSI_CACHE_OVERWRITE, with the lock released
 * for the load.  Apart from cache_get_locked, so that a hit pays nothing
 * for it. */
__attribute__((noinline)) static int cache_miss(void *owner, const ncs_chunk_ops *ops,
                                                uint64_t idx, size_t size, int mode,
                                                entry **slot, entry **ep)
{
    entry *e;
    int status;
    /* another thread loads this chunk: wait for it (it may fail and take
     * the entry away, so look again) */
    while (slot != NULL && (*slot)->state == LOADING) {
        pthread_cond_wait(&load_done, &lock);
        slot = slot_of(owner, idx);
    }
    if (slot != NULL && (*slot)->state == LIVE) {
        hit(*slot);
        *ep = *slot;
        return NCS_NOERR;
    }
    counters.misses++;
    if (slot != NULL) {
        /* a ghost: a cache larger by its size would have kept it */
        e = *slot;
        target = budget - target > e->size ? target + e->size : budget;
        ghost_free(e);
        ghosts_trim();
    }
    status = make_room(size);
    if (status != NCS_NOERR)
        return status;
    e = ncsi_calloc(1, sizeof *e);
    if (e == NULL || (e->data = ncsi_malloc(size ? size : 1)) == NULL) {
        free(e);
        return NCS_ERR(NCS_ENOMEM);
    }
    e->owner = owner;
    e->ops = ops;
    e->idx = idx;
    e->size = size;
    status = table_insert(e);
    if (status != NCS_NOERR) {
        free(e->data);
        free(e);
        return status;
    }
    lru_push(e);
    used += size;
    if (mode != NCSI_CACHE_OVERWRITE) {
        /* held while loading: make_room in other threads passes it by */
        e->state = LOADING;
        e->pins++;
        pthread_mutex_unlock(&lock);
        status = ops->load(owner, idx, e->data, size);
        pthread_mutex_lock(&lock);
        e->state = LIVE;
        e->pins--;
        pthread_cond_broadcast(&load_done);
        if (status != NCS_NOERR) {
            lru_unlink(e);
            used -= e->size;
            table_remove(e);
            free(e->data);
            free(e);
            return status;
        }
        counters.bytes_read += size;
    }
    *ep = e;
    return NCS_NOERR;
}

static int cache_get_locked(void *owner, const ncs_chunk_ops *ops, uint64_t idx,
                            size_t size, int mode, entry **ep)
{
    entry **slot = slot_of(owner, idx), *e;
    if (slot != NULL && (*slot)->state == LIVE) {
        e = *slot;
        hit(e);
    } else {
        int status = cache_miss(owner, ops, idx, size, mode, slot, &e);
        if (status != NCS_NOERR)
            return status;
    }
    if (mode != NCSI_CACHE_READ)
        e->dirty = 1;
    *ep = e;
    return NCS_NOERR;
}

int ncsi_cache_has(void *owner, uint64_t idx)
{
    entry **slot;
    int has;
    pthread_mutex_lock(&lock);
    slot = slot_of(owner, idx);
    has = slot != NULL && (*slot)->state != GHOST;
    pthread_mutex_unlock(&lock);
    return has;
}

static int by_index(const void *a, const void *b)
{
    uint64_t x = (*(entry *const *)a)->idx, y = (*(entry *const *)b)->idx;
    return x < y ? -1 : x > y;
}

/* Entries of owner, in chunk-index order (so write-back is sequential). */
static int collect(void *owner, entry ***list, size_t *n)
{
    size_t k = 0;
    entry **l;
    for (entry *e = head; e != NULL; e = e->next)
        if (e->owner == owner)
            k++;
    l = ncsi_malloc((k ? k : 1) * sizeof *l);
    if (l == NULL)
        return NCS_ERR(NCS_ENOMEM);
    k = 0;
    for (entry *e = head; e != NULL; e = e->next)
        if (e->owner == owner)
            l[k++] = e;
    qsort(l, k, sizeof *l, by_index);
    *list = l;
    *n = k;
    return NCS_NOERR;
}

int ncsi_cache_flush(void *owner)
{
    entry **l;
    size_t n;
    int status;
    pthread_mutex_lock(&lock);
    status = collect(owner, &l, &n);
    if (status == NCS_NOERR) {
        status = write_back_batch(l, n);
        free(l);
    }
    pthread_mutex_unlock(&lock);
    return status;
}

int ncsi_cache_write_back(void *owner, const uint64_t *idx, size_t n)
{
    int status = NCS_NOERR;
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < n && status == NCS_NOERR; i += BATCH_MAX) {
        entry *l[BATCH_MAX] = { NULL };
        size_t k = 0;
        for (size_t j = i; j < n && j < i + BATCH_MAX; j++) {
            entry **slot = slot_of(owner, idx[j]);
            if (slot != NULL && (*slot)->state == LIVE && (*slot)->pins == 0 &&
                (*slot)->dirty)
                l[k++] = *slot;
        }
        status = write_back_group(l, k);
    }
    pthread_mutex_unlock(&lock);
    return status;
}

/* ---- dropping the entries of many owners at once --------------------------
 * A file's close drops every variable's entries: one pass over the lists,
 * each entry's owner found by binary search in the owners sorted by
 * address, rather than a pass per variable (a file of 10,000 variables
 * took 0.8 s to close).  Write-back goes owner by owner in the order given,
 * each owner's chunks in index order, as a drop per owner would. */
typedef struct owner_pos {
    const void *owner;
    size_t pos;
} owner_pos;

typedef struct drop_item {
    size_t pos;
    entry *e;
} drop_item;

static int by_owner(const void *a, const void *b)
{
    uintptr_t x = (uintptr_t)((const owner_pos *)a)->owner;
    uintptr_t y = (uintptr_t)((const owner_pos *)b)->owner;
    return x < y ? -1 : x > y;
}

static int by_pos_index(const void *a, const void *b)
{
    const drop_item *x = a, *y = b;
    if (x->pos != y->pos)
        return x->pos < y->pos ? -1 : 1;
    return x->e->idx < y->e->idx ? -1 : x->e->idx > y->e->idx;
}

/* The position of owner in the sorted table, or n. */
static size_t owner_find(const owner_pos *t, size_t n, const void *owner)
{
    owner_pos key = { owner, 0 };
    const owner_pos *hit = bsearch(&key, t, n, sizeof *t, by_owner);
    return hit != NULL ? hit->pos : n;
}

int ncsi_cache_drop_all(void *const *owners, size_t n, int writeback)
{
    owner_pos *t;
    drop_item *items = NULL;
    size_t k = 0, cap = 0;
    int status = NCS_NOERR, first = NCS_NOERR;
    if (n == 0)
        return NCS_NOERR;
    t = ncsi_malloc(n * sizeof *t);
    if (t == NULL)
        return NCS_ERR(NCS_ENOMEM);
    for (size_t i = 0; i < n; i++)
        t[i] = (owner_pos){ owners[i], i };
    qsort(t, n, sizeof *t, by_owner);
    pthread_mutex_lock(&lock);
    for (entry *e = head; e != NULL; e = e->next)
        cap += owner_find(t, n, e->owner) < n;
    if (cap > 0 && (items = ncsi_malloc(cap * sizeof *items)) == NULL)
        status = NCS_ERR(NCS_ENOMEM);
    for (entry *e = head; e != NULL && status == NCS_NOERR; e = e->next) {
        size_t pos = owner_find(t, n, e->owner);
        if (pos < n) {
            NCSI_ASSERT(k < cap);     /* the list is the one just counted */
            items[k++] = (drop_item){ pos, e };
        }
    }
    if (status == NCS_NOERR) {
        if (k > 1)
            qsort(items, k, sizeof *items, by_pos_index);
        /* encode the dirty ones together first (their errors come back
         * from evict below, which tries them again) */
        for (size_t i = 0; writeback && i < k; i += BATCH_MAX) {
            entry *l[BATCH_MAX] = { NULL };
            size_t g = k - i < BATCH_MAX ? k - i : BATCH_MAX;
            for (size_t j = 0; j < g; j++)
                l[j] = items[i + j].e;
            write_back_group(l, g);
        }
        for (size_t i = 0; i < k; i++) {
            int s = evict(items[i].e, writeback, 0);
            if (s != NCS_NOERR) {
                /* keep going: the file is closing; report the first error */
                if (first == NCS_NOERR)
                    first = s;
                evict(items[i].e, 0, 0);
            }
        }
        status = first;
        for (entry *e = ghead, *next; e != NULL; e = next) {
            next = e->next;
            if (owner_find(t, n, e->owner) < n)
                ghost_free(e);
        }
        if (used == 0) {
            target = budget < TARGET_FLOOR ? budget : TARGET_FLOOR;
            ghosts_trim();
        }
    }
    pthread_mutex_unlock(&lock);
    free(items);
    free(t);
    return status;
}

int ncsi_cache_drop(void *owner, int writeback)
{
    return ncsi_cache_drop_all(&owner, 1, writeback);
}

int ncsi_cache_set_budget(size_t bytes)
{
    int status;
    pthread_mutex_lock(&lock);
    budget = bytes;
    if (target > budget)
        target = budget;
    else if (target < TARGET_FLOOR)
        target = budget < TARGET_FLOOR ? budget : TARGET_FLOOR;
    ghosts_trim();
    status = make_room(0);
    pthread_mutex_unlock(&lock);
    return status;
}

size_t ncsi_cache_budget(void)
{
    size_t b;
    pthread_mutex_lock(&lock);
    b = budget;
    pthread_mutex_unlock(&lock);
    return b;
}

size_t ncsi_cache_used(void)
{
    size_t u;
    pthread_mutex_lock(&lock);
    u = used;
    pthread_mutex_unlock(&lock);
    return u;
}

void ncsi_cache_counters(ncs_cache_counters *c)
{
    pthread_mutex_lock(&lock);
    *c = counters;
    pthread_mutex_unlock(&lock);
}

void ncsi_cache_reset_counters(void)
{
    pthread_mutex_lock(&lock);
    memset(&counters, 0, sizeof counters);
    pthread_mutex_unlock(&lock);
}
