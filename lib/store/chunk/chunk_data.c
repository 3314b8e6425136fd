/*
 * chunk_data.c -- the data path of a chunked variable between the chunk
 * cache and the caller's memory, for any chunked store.
 *
 * A request is split by the variable's chunk grid (ncsi_slab_chunks); each
 * chunk comes from the shared cache, decoded and in native byte order
 * (the store's load callback makes a missing chunk of fill values), and the
 * part of the request inside it moves as blocks of runs (ncsi_slab_blocks)
 * with type conversion.  Chunks hold no records: dimension 0 of a record
 * variable is cut one chunk length at a time like any other, without a
 * bound.
 *
 * Invariants: a chunk pointer is used only between ncsi_cache_get and
 * ncsi_cache_release (another thread may evict it after); the pinned
 * chunks of the one-element path (pptr and the slots') stay valid until
 * unpinned here, or until the store drops the variable, which forgets
 * them first.
 */
#include "chunk.h"

#include <stdlib.h>
#include <string.h>

void ncsi_chunk_fill(const ncs_chunkvar *ck, unsigned char *buf, size_t size)
{
    for (size_t i = 0; i + ck->esz <= size; i += ck->esz)
        memcpy(buf + i, ck->fill, ck->esz);
}

void ncsi_chunk_swap(unsigned char *p, size_t size, size_t esz)
{
    if (esz < 2)
        return;
    for (size_t i = 0; i + esz <= size; i += esz)
        for (size_t a = 0, b = esz - 1; a < b; a++, b--) {
            unsigned char t = p[i + a];
            p[i + a] = p[i + b];
            p[i + b] = t;
        }
}

void ncsi_chunk_arrays(ncs_chunkvar *ck, uint64_t *v, size_t ndims)
{
    ck->chunk = v;
    ck->cdsz = v + ndims;
    ck->estride = v + 2 * ndims;
    ck->grid = v + 3 * ndims;
    ck->shape = v + 4 * ndims;
    ck->plo = v + 5 * ndims;
    ck->pext = v + 6 * ndims;
    ck->lim = v + 7 * ndims;
}

void ncsi_chunk_hint_runs(const uint64_t *lo, const uint64_t *hi, size_t k,
                          void (*hint)(void *arg, uint64_t off, uint64_t n), void *arg)
{
    uint64_t run_lo = 0, run_hi = 0;
    size_t start = 0;
    /* runs: ranges each starting where the one before ended */
    for (size_t i = 0; i <= k; i++) {
        if (i < k && i > start && lo[i] == hi[i - 1]) {
            run_hi = hi[i];
            continue;
        }
        if (i > start && run_hi - run_lo <= NCSI_HINT_RUN)
            hint(arg, run_lo, run_hi - run_lo);
        if (i < k) {
            start = i;
            run_lo = lo[i];
            run_hi = hi[i];
        }
    }
}

void ncsi_chunk_origin(const ncs_chunkvar *ck, uint64_t idx, uint64_t *off)
{
    for (int d = ck->ndims - 1; d >= 0; d--) {
        uint64_t c;
        if (d == 0) {
            c = idx;
        } else {
            c = idx % ck->grid[d];
            idx /= ck->grid[d];
        }
        off[d] = c * ck->chunk[d];
    }
}

/* ---- a large read's compressed chunks, loaded on several cores ------------------
 * A get of a compressed variable that spans several chunks walks them
 * through chunk_part_pooled.  At a chunk not in the cache it lists
 * the request's chunks; from there on, as the walk reaches each group of
 * AHEAD chunks per pool thread, the pool loads those of them not in the
 * cache, at once, and the walk then finds them there.  So at most a group
 * waits in the cache to be copied, and other gets pay nothing.  A load
 * that fails in the pool leaves nothing in the cache: the walk loads that
 * chunk again itself and returns its error, as a serial read would. */
#define AHEAD 2
#define PROBE 8

typedef struct ahead {
    ncs_chunkvar *ck;
    uint64_t *idx;               /* the request's chunks, in walk order */
    size_t n, cap;
    size_t pos;                  /* the chunk the walk comes to next */
    size_t loaded_to;            /* the pool has seen the chunks before this */
    size_t group;
    uint64_t *miss;              /* a group's chunks not in the cache */
} ahead;

static uint64_t chunk_index(const ncs_chunkvar *ck, const uint64_t *ccoord)
{
    uint64_t idx = 0;
    for (int d = 0; d < ck->ndims; d++)
        idx = (d == 0) ? ccoord[0] : idx * ck->grid[d] + ccoord[d];
    return idx;
}

static int list_part(void *ctx, const uint64_t *ccoord, const ncs_slab *sub, ptrdiff_t moff)
{
    ahead *a = ctx;
    (void)sub;
    (void)moff;
    if (a->n == a->cap) {
        size_t ncap = a->cap ? a->cap * 2 : 64;
        uint64_t *ni = ncsi_realloc(a->idx, ncap * sizeof *ni);
        if (ni == NULL)
            return NCS_ERR(NCS_ENOMEM);
        a->idx = ni;
        a->cap = ncap;
    }
    a->idx[a->n++] = chunk_index(a->ck, ccoord);
    return NCS_NOERR;
}

static void load_one(void *arg, size_t i)
{
    ahead *a = arg;
    unsigned char *p;
    void *ref;
    if (ncsi_cache_get(a->ck, a->ck->ops, a->miss[i], a->ck->chunk_bytes, NCSI_CACHE_READ, &p,
                       &ref) == NCS_NOERR)
        ncsi_cache_release(ref);
}

/* The pool loads the group of chunks that starts where the walk is. */
static void load_group(ahead *a)
{
    size_t end = a->pos + a->group < a->n ? a->pos + a->group : a->n, k = 0;
    for (size_t i = a->pos; i < end; i++)
        if (!ncsi_cache_has(a->ck, a->idx[i]))
            a->miss[k++] = a->idx[i];
    if (k > 1)
        ncsi_pool_run(load_one, a, k);
    a->loaded_to = end;
}

static void ahead_free(ahead *a)
{
    free(a->miss);
    free(a->idx);
    free(a);
}

/* The lists of the get s of ck for the pool, the walk at chunk idx; NULL
 * when the pool has one thread, or without memory for them (the read
 * goes on serially). */
static ahead *ahead_start(ncs_chunkvar *ck, const ncs_slab *s, uint64_t idx)
{
    int threads = ncsi_pool_size();
    ahead *a;
    if (threads < 2 || (a = ncsi_calloc(1, sizeof *a)) == NULL)
        return NULL;
    a->ck = ck;
    a->group = (size_t)threads * AHEAD;
    a->miss = ncsi_malloc(a->group * sizeof *a->miss);
    if (a->miss == NULL || ncsi_slab_chunks(s, ck->chunk, list_part, a) != NCS_NOERR) {
        ahead_free(a);
        return NULL;
    }
    /* a request meets each chunk once, idx among them */
    while (a->pos < a->n && a->idx[a->pos] != idx)
        a->pos++;
    if (NEVER(a->pos == a->n)) {
        ahead_free(a);
        return NULL;
    }
    a->loaded_to = a->pos;
    return a;
}

/* Whether the get s of ck spans more than one chunk. */
static int spans_chunks(const ncs_chunkvar *ck, const ncs_slab *s)
{
    for (int d = 0; d < ck->ndims; d++) {
        uint64_t last = s->start[d] + (s->count[d] - 1) * s->stride[d];
        if (s->count[d] > 1 && last / ck->chunk[d] != s->start[d] / ck->chunk[d])
            return 1;
    }
    return 0;
}

/* ---- a large write's compressed chunks, encoded on several cores ----------------
 * A put of a compressed variable that spans several chunks lists the
 * chunks it overwrites whole; each PUT_GROUP of them, and those left at
 * the end, are written back at once (ncsi_cache_write_back), so that the
 * pool encodes them together rather than eviction encoding one at a time
 * on the calling thread.  They stay in the cache, clean.  Chunks the put
 * only changes in part stay dirty, for later puts to complete. */
#define PUT_GROUP 16

/* One request's walk: chunkp is the chunk (or dense buffer) being moved,
 * mbase the memory offset, in elements, of its part's first element. */
typedef struct cx {
    ncs_chunkvar *ck;
    int memtype;
    size_t msz;
    unsigned char *buf;
    unsigned char *chunkp;
    ptrdiff_t mbase;
    int put;
    int erange;
    int version;
    uint64_t *done;              /* a compressed put's whole chunks, or NULL */
    size_t ndone;
    /* a get reading parts of chunks past the cache (chunk_part_direct):
     * chunkp then holds the chunk's bytes from coff on */
    size_t coff;
    unsigned char *part;
    size_t partcap;
} cx;

/* The walk of chunk_part_pooled: s the request, ahead the pool's lists. */
typedef struct cx_pooled {
    cx x;                        /* first: chunk_part's context */
    int tried;                   /* ahead_start was called */
    size_t walked;               /* chunks seen */
    const ncs_slab *s;
    ahead *ahead;
} cx_pooled;

static int run_in_chunk(void *ctx, uint64_t rec, uint64_t elem, uint64_t n,
                        uint64_t fstep, ptrdiff_t moff, ptrdiff_t mstep)
{
    cx *x = ctx;
    unsigned char *cp = x->chunkp + elem * x->ck->esz;
    unsigned char *mp = x->buf + (x->mbase + moff) * (ptrdiff_t)x->msz;
    int r;
    (void)rec;
    if (x->put)
        r = ncsi_convert(x->memtype, mp, mstep, (size_t)n, x->ck->type, cp,
                         (ptrdiff_t)fstep, x->version);
    else
        r = ncsi_convert(x->ck->type, cp, (ptrdiff_t)fstep, (size_t)n, x->memtype, mp,
                         mstep, x->version);
    if (r == NCS_ERANGE)
        x->erange = 1;
    return NCS_NOERR;
}

/* A block of a chunk's part, row by row (chunks hold no records). */
static int block_in_chunk(void *ctx, const ncs_block *b)
{
    cx *x = ctx;
    size_t esz = x->ck->esz;
    const unsigned char *cp = x->chunkp + (b->elem * esz - x->coff);
    unsigned char *mp = x->buf + (x->mbase + b->moff) * (ptrdiff_t)x->msz;
    ptrdiff_t crow = (ptrdiff_t)(b->rfstep * esz), mrow = b->rmstep * (ptrdiff_t)x->msz;
    NCSI_ASSERT(b->rrec == 0);
    if (x->memtype == x->ck->type && b->fstep == 1 && b->mstep == 1) {
        /* chunks are native: rows are plain copies */
        size_t len = (size_t)b->n * esz;
        for (uint64_t i = 0; i < b->rows; i++, cp += crow, mp += mrow) {
            if (x->put)
                memcpy((unsigned char *)cp, mp, len);
            else
                memcpy(mp, cp, len);
        }
        return NCS_NOERR;
    }
    for (uint64_t i = 0; i < b->rows; i++, cp += crow, mp += mrow) {
        int r;
        if (x->put)
            r = ncsi_convert(x->memtype, mp, b->mstep, (size_t)b->n, x->ck->type,
                             (unsigned char *)cp, (ptrdiff_t)b->fstep, x->version);
        else
            r = ncsi_convert(x->ck->type, cp, (ptrdiff_t)b->fstep, (size_t)b->n, x->memtype,
                             mp, b->mstep, x->version);
        if (r == NCS_ERANGE)
            x->erange = 1;
    }
    return NCS_NOERR;
}

/* The bytes of a chunk's decoded form from the first element of its part
 * sub to the last: [*off, *off + *n). */
static void part_span(const ncs_chunkvar *ck, const ncs_slab *sub, uint64_t *off, uint64_t *n)
{
    uint64_t lo = 0, hi = 0;
    for (int d = 0; d < ck->ndims; d++) {
        lo += sub->start[d] * ck->estride[d];
        hi += (sub->start[d] + (sub->count[d] - 1) * sub->stride[d]) * ck->estride[d];
    }
    *off = lo * ck->esz;
    *n = (hi - lo + 1) * ck->esz;
}

static int chunk_part(void *ctx, const uint64_t *ccoord, const ncs_slab *sub, ptrdiff_t moff)
{
    cx *x = ctx;
    ncs_chunkvar *ck = x->ck;
    uint64_t idx = 0;
    int mode = NCSI_CACHE_READ, whole = 1, edge = 0, status;
    void *ref;

    for (int d = 0; d < ck->ndims; d++) {
        uint64_t valid = ck->chunk[d];
        if (d > 0 || !ck->isrec) {
            idx = idx * ck->grid[d] + ccoord[d];
            if ((ccoord[d] + 1) * ck->chunk[d] > ck->shape[d]) {
                valid = ck->shape[d] - ccoord[d] * ck->chunk[d];
                edge = 1;
            }
        } else {
            idx = ccoord[0];
        }
        if (!(sub->start[d] == 0 && sub->stride[d] == 1 && sub->count[d] == valid))
            whole = 0;
    }
    if (x->put)
        mode = whole ? NCSI_CACHE_OVERWRITE : NCSI_CACHE_WRITE;
    status = ncsi_cache_get(ck, ck->ops, idx, ck->chunk_bytes,
                            mode | (x->put && ck->nf > 0 ? NCSI_CACHE_ENCODED : 0),
                            &x->chunkp, &ref);
    if (status != NCS_NOERR)
        return status;
    if (mode == NCSI_CACHE_OVERWRITE && edge)
        ncsi_chunk_fill(ck, x->chunkp, ck->chunk_bytes);   /* the part past the edge */
    x->mbase = moff;
    status = ncsi_slab_blocks(sub, ck->cdsz, block_in_chunk, x);
    ncsi_cache_release(ref);
    if (status == NCS_NOERR && mode == NCSI_CACHE_OVERWRITE && x->done != NULL) {
        x->done[x->ndone++] = idx;
        if (x->ndone == PUT_GROUP) {
            status = ncsi_cache_write_back(ck, x->done, x->ndone);
            x->ndone = 0;
        }
    }
    return status;
}

/* chunk_part of a get reading parts past the cache (announce below): a
 * chunk not in the cache has its part read from the file when the store
 * can, the rest go through the cache. */
static int chunk_part_direct(void *ctx, const uint64_t *ccoord, const ncs_slab *sub,
                             ptrdiff_t moff)
{
    cx *x = ctx;
    ncs_chunkvar *ck = x->ck;
    uint64_t idx = chunk_index(ck, ccoord), off, n;
    int done = 0, status;
    if (ncsi_cache_has(ck, idx))
        return chunk_part(x, ccoord, sub, moff);
    part_span(ck, sub, &off, &n);
    if (n > x->partcap) {
        unsigned char *p = ncsi_realloc(x->part, (size_t)n);
        if (p == NULL)
            return NCS_ERR(NCS_ENOMEM);
        x->part = p;
        x->partcap = (size_t)n;
    }
    status = ck->ops->read_part(ck, idx, off, x->part, (size_t)n, &done);
    if (status != NCS_NOERR)
        return status;
    if (!done)
        return chunk_part(x, ccoord, sub, moff);
    x->chunkp = x->part;
    x->coff = (size_t)off;
    x->mbase = moff;
    status = ncsi_slab_blocks(sub, ck->cdsz, block_in_chunk, x);
    x->coff = 0;
    return status;
}

/* chunk_part, the pool loading chunks ahead of it once one is missing */
static int chunk_part_pooled(void *ctx, const uint64_t *ccoord, const ncs_slab *sub,
                             ptrdiff_t moff)
{
    cx_pooled *x = ctx;
    /* is a chunk missing?  Asked of the first chunk and of every
     * PROBE-th after it, so that a get that finds its chunks cached pays
     * one lookup more, or one in PROBE chunks */
    if (x->ahead == NULL && !x->tried && x->walked++ % PROBE == 0) {
        uint64_t idx = chunk_index(x->x.ck, ccoord);
        if (!ncsi_cache_has(x->x.ck, idx)) {
            x->tried = 1;
            x->ahead = ahead_start(x->x.ck, x->s, idx);
        }
    }
    if (x->ahead != NULL) {
        ahead *a = x->ahead;
        NCSI_ASSERT(a->pos < a->n && a->idx[a->pos] == chunk_index(x->x.ck, ccoord));
        if (a->pos == a->loaded_to)
            load_group(a);
        a->pos++;
    }
    return chunk_part(&x->x, ccoord, sub, moff);
}

/* ---- a cold get's chunks, announced; parts read past the cache ------------------
 * A get spanning several chunks whose first chunk is not in the cache
 * tells the store (its willneed slot) of each chunk of the request not in
 * the cache before it loads any, so that their reads are in flight
 * together rather than one after another.  When the chunks a get touches
 * hold more than the cache's whole budget, they would evict one another
 * before any was used again: then, where the store can (read_part, for
 * unfiltered chunks), the get reads of each chunk not in the cache only
 * its part's span (first element to last) and announces those spans.  A
 * point from each of 1,000 records of 96 KB chunks is then 1,000 reads of
 * a few bytes, not 96 MB.  At most ANNOUNCE_MAX chunks are announced. */
#define ANNOUNCE_MAX 4096
#define ANNOUNCE_STOP 1          /* ends the walk; not a status */

typedef struct announcer {
    ncs_chunkvar *ck;
    int direct;
    ncs_chunk_want *w;
    size_t n;
} announcer;

static int announce_one(void *ctx, const uint64_t *ccoord, const ncs_slab *sub, ptrdiff_t moff)
{
    announcer *a = ctx;
    ncs_chunk_want *w = &a->w[a->n];
    (void)moff;
    if (a->n == ANNOUNCE_MAX)
        return ANNOUNCE_STOP;
    w->idx = chunk_index(a->ck, ccoord);
    if (!ncsi_cache_has(a->ck, w->idx)) {
        w->off = w->n = 0;
        if (a->direct)
            part_span(a->ck, sub, &w->off, &w->n);
        a->n++;
    }
    return NCS_NOERR;
}

/* Announces the get s of ck when its first chunk is not cached; returns
 * whether the get is to read parts past the cache.  A get that finds the
 * first chunk cached notes the variable's load count, and until the store
 * loads another chunk of it the gets that follow are taken to be warm and
 * ask nothing of the cache (ncsi_chunk_get: the lookup and this function
 * cost 420 instructions on a warm 10x1x1x1 get of 3,100, now 15).
 * Another variable's loads may evict this one's chunks meanwhile: the next get then goes unannounced,
 * and its own loads make the one after it ask again. */
__attribute__((noinline)) static int announce(ncs_chunkvar *ck, const ncs_slab *s)
{
    uint64_t first[NCS_MAX_VAR_DIMS], chunks = 1, fit;
    uint64_t loads = __atomic_load_n(&ck->loads, __ATOMIC_RELAXED);
    announcer a = { ck, 0, NULL, 0 };
    for (int d = 0; d < ck->ndims; d++) {
        uint64_t last = s->start[d] + (s->count[d] - 1) * s->stride[d];
        uint64_t along;
        first[d] = s->start[d] / ck->chunk[d];
        along = last / ck->chunk[d] - first[d] + 1;
        chunks = chunks > UINT64_MAX / along ? UINT64_MAX : chunks * along;
    }
    if (ncsi_cache_has(ck, chunk_index(ck, first))) {
        __atomic_store_n(&ck->loads_seen, loads, __ATOMIC_RELAXED);
        return 0;
    }
    fit = ncsi_cache_budget() / ck->chunk_bytes;
    a.direct = ck->ops->read_part != NULL && ck->nf == 0 && chunks > fit;
    a.w = ncsi_malloc((chunks < ANNOUNCE_MAX ? (size_t)chunks : ANNOUNCE_MAX) * sizeof *a.w);
    if (a.w == NULL)
        return a.direct;         /* a hint: the get goes on without it */
    (void)ncsi_slab_chunks(s, ck->chunk, announce_one, &a);
    if (a.n > 0)
        ck->ops->willneed(ck, a.w, a.n);
    free(a.w);
    return a.direct;
}

/* Not inlined: ncsi_chunk_get's common case is then a jump here. */
__attribute__((noinline)) static int move(ncs_chunkvar *ck, const ncs_slab *s, int memtype,
                                          unsigned char *buf, int put, int version)
{
    cx x = { ck, memtype, ncsi_type_size(memtype), buf, NULL, 0, put, 0, version, NULL, 0,
             0, NULL, 0 };
    int status = ncsi_slab_chunks(s, ck->chunk, chunk_part, &x);
    if (status == NCS_NOERR && x.erange)
        status = NCS_ERANGE;
    return status;
}

/* A get of a compressed variable: through the pool when it spans several
 * chunks and the pool has several threads. */
__attribute__((noinline)) static int get_compressed(ncs_chunkvar *ck, const ncs_slab *s,
                                                    int memtype, void *buf, int version)
{
    int status;
    if (ncsi_pool_size() < 2 || !spans_chunks(ck, s))
        return move(ck, s, memtype, buf, 0, version);
    cx_pooled x = { { ck, memtype, ncsi_type_size(memtype), buf, NULL, 0, 0, 0, version,
                      NULL, 0, 0, NULL, 0 }, 0,
                    0, s, NULL };
    status = ncsi_slab_chunks(s, ck->chunk, chunk_part_pooled, &x);
    if (x.ahead != NULL)
        ahead_free(x.ahead);
    if (status == NCS_NOERR && x.x.erange)
        status = NCS_ERANGE;
    return status;
}

/* A get spanning several chunks of a store that can say where they are:
 * announced when cold, its parts read past the cache when many. */
__attribute__((noinline)) static int get_located(ncs_chunkvar *ck, const ncs_slab *s,
                                                 int memtype, void *buf, int version)
{
    int status;
    if (!announce(ck, s)) {
        if (ck->nf > 0)
            return get_compressed(ck, s, memtype, buf, version);
        return move(ck, s, memtype, buf, 0, version);
    }
    cx x = { ck, memtype, ncsi_type_size(memtype), buf, NULL, 0, 0, 0, version, NULL, 0,
             0, NULL, 0 };
    status = ncsi_slab_chunks(s, ck->chunk, chunk_part_direct, &x);
    free(x.part);
    if (status == NCS_NOERR && x.erange)
        status = NCS_ERANGE;
    return status;
}

int ncsi_chunk_get(ncs_chunkvar *ck, const ncs_slab *s, int memtype, void *buf, int version)
{
    if (ck->ops->willneed != NULL && !__atomic_load_n(&ck->unlocated, __ATOMIC_RELAXED) &&
        __atomic_load_n(&ck->loads, __ATOMIC_RELAXED) !=
            __atomic_load_n(&ck->loads_seen, __ATOMIC_RELAXED) &&
        spans_chunks(ck, s))
        return get_located(ck, s, memtype, buf, version);
    if (ck->nf > 0)
        return get_compressed(ck, s, memtype, buf, version);
    return move(ck, s, memtype, buf, 0, version);
}

/* A put of a compressed variable spanning several chunks, with several pool
 * threads: its whole chunks written back in groups as the walk completes
 * them. */
__attribute__((noinline)) static int put_compressed(ncs_chunkvar *ck, const ncs_slab *s,
                                                    int memtype, const void *buf,
                                                    int version)
{
    uint64_t done[PUT_GROUP];
    cx x = { ck, memtype, ncsi_type_size(memtype), (unsigned char *)buf, NULL, 0, 1, 0,
             version, done, 0, 0, NULL, 0 };
    int status = ncsi_slab_chunks(s, ck->chunk, chunk_part, &x);
    if (status == NCS_NOERR && x.ndone > 0)
        status = ncsi_cache_write_back(ck, x.done, x.ndone);
    if (status == NCS_NOERR && x.erange)
        status = NCS_ERANGE;
    return status;
}

int ncsi_chunk_put(ncs_chunkvar *ck, const ncs_slab *s, int memtype, const void *buf,
                   int version)
{
    if (ck->nf > 0 && ncsi_pool_size() >= 2 && spans_chunks(ck, s))
        return put_compressed(ck, s, memtype, buf, version);
    /* a put only reads buf: move() writes through it for gets alone */
    return move(ck, s, memtype, (unsigned char *)buf, 1, version);
}

int ncsi_chunk_dense(const ncs_chunkvar *ck, const ncs_slab *dense, const uint64_t *dsz,
                     unsigned char *tmp, int memtype, void *buf, int put, int version,
                     int *erange)
{
    /* runs never reach the cache, so ck is only read */
    cx x = { (ncs_chunkvar *)ck, memtype, ncsi_type_size(memtype), buf, tmp, 0, put, 0,
             version, NULL, 0, 0, NULL, 0 };
    int status = ncsi_slab_runs(dense, dsz, run_in_chunk, &x);
    if (x.erange)
        *erange = 1;
    return status;
}

/* ---- pin slots ---------------------------------------------------------------
 * The one-element path keeps several chunks of a variable pinned, chunk
 * idx in slot idx % npin, where npin is the number of chunks across the
 * fastest dimension (at most PIN_MAX, and the slots' chunks at most half
 * the cache's budget): a row-major walk crosses that row of chunks once
 * per row of elements, so each crossing but those of a new row of chunks
 * finds its chunk in a slot, without the cache and its process-wide lock
 * (two threads scanning through their own handles met on that lock at
 * every crossing; doc/performance.md, "Threads").  When the cache says it
 * is crowded with pins (all owners' together beyond 3/4 of its budget), a
 * variable keeps only its current chunk and halves its slots. */
#define PIN_MAX 256u

static void pins_setup(ncs_chunkvar *ck)
{
    uint64_t n = ck->ndims > 1 ? ck->grid[ck->ndims - 1] : 1;
    size_t room = ncsi_cache_budget() / 2 / (ck->chunk_bytes ? ck->chunk_bytes : 1);
    ncs_pinslot *slots;
    if (n > PIN_MAX)
        n = PIN_MAX;
    if (n > room)
        n = room;
    ck->pin1.ptr = NULL;
    ck->slots = &ck->pin1;
    ck->npin = 1;
    if (n > 1 && (slots = ncsi_calloc((size_t)n, sizeof *slots)) != NULL) {
        ck->slots = slots;
        ck->npin = (unsigned)n;
    }
}

/* Unpins every chunk of ck but keep's (a filled slot) and halves the
 * slots, keep's chunk in its new one. */
static void pins_shrink(ncs_chunkvar *ck, ncs_pinslot keep)
{
    uint64_t idx[PIN_MAX];
    size_t n = 0;
    NCSI_ASSERT(ck->npin > 1 && ck->npin <= PIN_MAX);
    for (unsigned i = 0; i < ck->npin; i++) {
        if (ck->slots[i].ptr != NULL && ck->slots[i].idx != keep.idx)
            idx[n++] = ck->slots[i].idx;
        ck->slots[i].ptr = NULL;
    }
    ncsi_cache_unpin(ck, idx, n);
    ck->npin /= 2;
    ck->slots[keep.idx % ck->npin] = keep;
}

void ncsi_chunk_forget_pins(ncs_chunkvar *ck)
{
    for (unsigned i = 0; i < ck->npin; i++)
        ck->slots[i].ptr = NULL;
    ck->pptr = NULL;
}

void ncsi_chunk_free_pins(ncs_chunkvar *ck)
{
    if (ck->slots != &ck->pin1)
        free(ck->slots);
    ck->slots = NULL;
    ck->npin = 0;
    ck->pptr = NULL;
}

int ncsi_chunk_pin_get1(ncs_chunkvar *ck, const size_t *index, void *buf)
{
    uint64_t elem = 0, idx = 0;
    ncs_pinslot *slot;
    unsigned char *p;
    NCSI_ASSERT(ck->ndims > 0);
    for (int d = 0; d < ck->ndims; d++) {
        uint64_t c = index[d] / ck->chunk[d];
        NCSI_ASSERT(index[d] < ck->lim[d]);
        ck->plo[d] = c * ck->chunk[d];
        ck->pext[d] = ck->lim[d] - ck->plo[d] < ck->chunk[d] ? ck->lim[d] - ck->plo[d]
                                                              : ck->chunk[d];
        idx = (d == 0) ? c : idx * ck->grid[d] + c;
    }
    if (ck->npin == 0)
        pins_setup(ck);
    slot = &ck->slots[ck->npin == 1 ? 0 : idx % ck->npin];
    if (slot->ptr != NULL && slot->idx == idx) {
        p = slot->ptr;
    } else {
        int crowded = 0;
        int status = ncsi_cache_pin(ck, ck->ops, idx, ck->chunk_bytes, slot->ptr != NULL,
                                    slot->idx, &p, &crowded);
        /* the slot's chunk is unpinned either way */
        slot->ptr = NULL;
        if (status != NCS_NOERR) {
            ck->pptr = NULL;
            return status;
        }
        slot->idx = idx;
        slot->ptr = p;
        if (crowded && ck->npin > 1)
            pins_shrink(ck, *slot);
    }
    ck->pptr = p;
    ck->pidx = idx;
    for (int d = 0; d < ck->ndims; d++)
        elem += (index[d] - ck->plo[d]) * ck->estride[d];
    memcpy(buf, ck->pptr + elem * ck->esz, ck->esz);
    return NCS_NOERR;
}
