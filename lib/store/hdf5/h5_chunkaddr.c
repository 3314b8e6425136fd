/*
 * h5_chunkaddr.c -- where a read-only file's chunks are, read from the
 * file's own bytes once a variable, so that loading a chunk is one read at
 * its address (ncsi_h5j_pread) on any thread, outside HDF5 and its global
 * lock, and a request that needs many chunks can announce them all.
 *
 * Why not HDF5: version 1.10 answers "where is this chunk" by walking the
 * whole chunk index (H5Dget_chunk_info_by_coord; H5Dchunk_iter is 1.14's),
 * and reads a chunk's bytes (H5Dread_chunk) under its one lock, so two
 * threads loading chunks take turns ("Threads" in doc/performance.md).
 *
 * What is read (the HDF5 file format specification, version 2 of the
 * superblock and before): the dataset's object header, version 1 or 2,
 * with its continuation blocks, for its data layout message; a layout of
 * version 3 and class chunked names the root of the chunk index, a
 * version-1 B-tree of node type 1, whose leaves hold for each stored chunk
 * its size, filter mask, coordinates (in elements, plus a 0 for the
 * element) and address.  netCDF-C and ncslab write exactly this with the
 * library-version bounds they set; other layouts (version 4, with its
 * newer indexes) have no table and go through HDF5 as before.
 *
 * Trust: the bytes are the file's, so every count and address is checked
 * against what is left of the file before anything is read or allocated,
 * and each node as it is read (below): its entries must increase and lie
 * inside the range its parent gives it, on the chunk grid and inside the
 * dataset, their chunks inside the file, and its level must be one below
 * its parent's, so no path loops and no chunk is found twice.  What this
 * reader does not know (an object header or layout of another version)
 * means no index: HDF5 then reads the file as before.  A node that breaks
 * the rules is damaged, and the loads that reach it fail with
 * NCS_EHDFERR: HDF5's own direct chunk read trusts such an index and, in
 * 1.10.8, writes past the caller's buffer when a damaged entry claims
 * more bytes than the chunk holds (found by check_chunkaddr).
 *
 * Only read-only files: a writable file's index changes under HDF5's
 * metadata cache.  Indexes and their nodes are read under one
 * process-wide mutex (once each) and published with release/acquire, so
 * lookups of what is loaded take no lock.
 */
#include "hdf5_store.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define CTAB_UNKNOWN 0
#define CTAB_READY   1
#define CTAB_NONE    (-1)
#define CTAB_BROKEN  (-2)

#define OH_PREFIX     64         /* bytes read for an object header's prefix */
#define OH_MAX_BLOCKS 64         /* header blocks followed */
#define OH_MAX_BYTES  (1u << 20) /* bytes in one header block */
#define MSG_LAYOUT    0x0008u
#define MSG_CONT      0x0010u
#define BT_MAX_LEVEL  32

static pthread_mutex_t build_lock = PTHREAD_MUTEX_INITIALIZER;

/* ---- reading the file ---------------------------------------------------------- */

typedef struct rd {
    void *h;                     /* the driver's handle */
    uint64_t base, eof;          /* addresses count from base; eof absolute */
    unsigned sa, sl;             /* sizes of addresses and lengths */
} rd;

static uint64_t le(const unsigned char *p, unsigned n)
{
    uint64_t v = 0;
    while (n-- > 0)
        v = v << 8 | p[n];
    return v;
}

/* Whether a field of n bytes is the undefined address (all bits set). */
static int undefined(const unsigned char *p, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        if (p[i] != 0xff)
            return 0;
    return 1;
}

/* Whether n bytes at relative address a lie inside the file. */
static int inside(const rd *r, uint64_t a, uint64_t n)
{
    return a <= r->eof - r->base && n <= r->eof - r->base - a;
}

static int rd_at(const rd *r, uint64_t a, void *buf, size_t n)
{
    if (!inside(r, a, n))
        return -1;
    return ncsi_h5j_pread(r->h, r->base + a, buf, n) == NCS_NOERR ? 0 : -1;
}

/* ---- the object header: its layout message --------------------------------------- */

typedef struct ohwalk {
    const rd *r;
    int v2;
    int corder;                  /* version 2: messages carry a creation order */
    uint64_t addr[OH_MAX_BLOCKS], len[OH_MAX_BLOCKS];
    int n;
    unsigned char *layout;       /* the layout message's body, once found */
    size_t layout_len;
} ohwalk;

static int push_block(ohwalk *w, uint64_t a, uint64_t n)
{
    if (w->n == OH_MAX_BLOCKS || n > OH_MAX_BYTES || !inside(w->r, a, n))
        return -1;
    w->addr[w->n] = a;
    w->len[w->n++] = n;
    return 0;
}

/* The messages of one block, [p, end). */
static int messages(ohwalk *w, const unsigned char *p, const unsigned char *end)
{
    size_t hdr = w->v2 ? 4u + (w->corder ? 2u : 0u) : 8u;
    const rd *r = w->r;
    while ((size_t)(end - p) >= hdr) {
        unsigned type = w->v2 ? p[0] : (unsigned)le(p, 2);
        size_t size = (size_t)le(p + (w->v2 ? 1 : 2), 2);
        const unsigned char *d = p + hdr;
        if (size > (size_t)(end - d))
            return -1;
        if (type == MSG_CONT) {
            if (size < r->sa + r->sl || push_block(w, le(d, r->sa), le(d + r->sa, r->sl)) != 0)
                return -1;
        } else if (type == MSG_LAYOUT && w->layout == NULL) {
            w->layout = ncsi_malloc(size ? size : 1);
            if (w->layout == NULL)
                return -1;
            memcpy(w->layout, d, size);
            w->layout_len = size;
        }
        p = d + size;
    }
    return 0;
}

/* Finds the layout message of the object header at relative address oh;
 * the caller frees w->layout. */
static int find_layout(ohwalk *w, uint64_t oh)
{
    unsigned char pre[OH_PREFIX], *blk = NULL;
    uint64_t left = w->r->eof - w->r->base;
    size_t have = oh < left ? (size_t)(left - oh < OH_PREFIX ? left - oh : OH_PREFIX) : 0;
    int status = -1;
    if (have < 16 || rd_at(w->r, oh, pre, have) != 0)
        return -1;
    if (memcmp(pre, "OHDR", 4) == 0) {
        unsigned flags = pre[5];
        size_t p = 6, wd = (size_t)1 << (flags & 3);
        if (pre[4] != 2)
            return -1;
        w->v2 = 1;
        w->corder = (flags & 0x04) != 0;
        p += (flags & 0x20) ? 16 : 0;   /* times */
        p += (flags & 0x10) ? 4 : 0;    /* attribute phase change values */
        if (p + wd > have || push_block(w, oh + p + wd, le(pre + p, (unsigned)wd)) != 0)
            return -1;
    } else if (pre[0] == 1) {
        /* version 1: a 12-byte prefix, padded to 16 */
        if (push_block(w, oh + 16, le(pre + 8, 4)) != 0)
            return -1;
    } else {
        return -1;
    }
    for (int i = 0; i < w->n && w->layout == NULL; i++) {
        size_t n = (size_t)w->len[i];
        const unsigned char *p, *end;
        free(blk);
        blk = ncsi_malloc(n ? n : 1);
        if (blk == NULL || rd_at(w->r, w->addr[i], blk, n) != 0)
            goto done;
        p = blk;
        end = blk + n;
        if (w->v2 && i > 0) {
            /* a continuation block: signature, messages, checksum */
            if (n < 8 || memcmp(blk, "OCHK", 4) != 0)
                goto done;
            p += 4;
            end -= 4;
        }
        if (messages(w, p, end) != 0)
            goto done;
    }
    status = w->layout != NULL ? 0 : -1;
done:
    free(blk);
    return status;
}

/* ---- the chunk index: a version-1 B-tree ------------------------------------------
 * Nodes are read as lookups reach them and kept, parsed, for the file's
 * life: a point read costs the nodes on one path from the root (as HDF5's
 * own lookup reads), a scan every node once.  A node holds n entries,
 * each the first chunk of its child (a stored chunk at level 0) and the
 * child's address; the key after the last is not needed.  A node is
 * checked as it is read: its signature and type, its level one below its
 * parent's, its entries increasing and inside its parent's range, each a
 * place of the chunk grid inside the dataset, each chunk inside the file.
 * Children are published with release stores, so lookups walk loaded
 * nodes without the lock, which only loading takes. */

typedef struct bnode {
    int level;
    size_t n;
    uint64_t *key;               /* the first chunk of each entry, increasing */
    uint64_t *where;             /* level 0: the chunk's absolute address;
                                    above: the child node's address */
    uint32_t *size, *mask;       /* level 0: the chunk's stored size, mask */
    struct bnode **child;        /* above level 0: children once loaded */
} bnode;

struct ncsi_ctab {
    rd r;
    const cvar *cv;
    unsigned nd;                 /* the keys' dimensions: the rank, plus 1 */
    uint64_t lim[NCS_MAX_VAR_DIMS];   /* the dataset's extent */
    bnode *root;                 /* NULL: no chunk stored */
};

static void node_free(bnode *b)
{
    if (b == NULL)
        return;
    for (size_t i = 0; b->level > 0 && i < b->n; i++)
        node_free(b->child[i]);
    free(b);
}

/* The place of the chunk grid the key's coordinates name; -1 when they
 * are not one (off the grid, outside the dataset, a nonzero element). */
static int key_place(const ncsi_ctab *t, const unsigned char *k, uint64_t *idx)
{
    const ncs_chunkvar *ck = &t->cv->ck;
    uint64_t x = 0;
    for (int d = 0; d < ck->ndims; d++) {
        uint64_t o = le(k + 8 + 8 * (unsigned)d, 8);
        if (o % ck->chunk[d] != 0 || o >= t->lim[d])
            return -1;
        x = d == 0 ? o / ck->chunk[0] : x * ck->grid[d] + o / ck->chunk[d];
    }
    if (le(k + 8 + 8 * (unsigned)ck->ndims, 8) != 0)
        return -1;
    *idx = x;
    return 0;
}

/* Reads the node at relative address a: at level (-1: the root, any),
 * its entries in [lo, hi) (hi 0: no bound above). */
static int node_read(const ncsi_ctab *t, uint64_t a, int level, uint64_t lo, uint64_t hi,
                     bnode **out)
{
    const rd *r = &t->r;
    size_t hsz = 8 + 2 * (size_t)r->sa, ksz = 8 + 8 * (size_t)t->nd, esz = ksz + r->sa;
    unsigned char hdr[8 + 2 * 8], *body = NULL;
    size_t n, bsz, per;
    bnode *b = NULL;
    int lvl, status = -1;
    *out = NULL;
    if (rd_at(r, a, hdr, hsz) != 0 || memcmp(hdr, "TREE", 4) != 0 || hdr[4] != 1)
        return -1;
    lvl = hdr[5];
    n = (size_t)le(hdr + 6, 2);
    if ((level >= 0 && lvl != level) || lvl > BT_MAX_LEVEL || n == 0)
        return -1;
    bsz = n * esz + ksz;
    per = 2 * sizeof(uint64_t) + (lvl == 0 ? 2 * sizeof(uint32_t) : sizeof(bnode *));
    if (!inside(r, a + hsz, bsz) || (body = ncsi_malloc(bsz)) == NULL ||
        (b = ncsi_calloc(1, sizeof *b + n * per)) == NULL || rd_at(r, a + hsz, body, bsz) != 0)
        goto done;
    b->level = lvl;
    b->n = n;
    b->key = (uint64_t *)(void *)(b + 1);
    b->where = b->key + n;
    if (lvl == 0) {
        b->size = (uint32_t *)(void *)(b->where + n);
        b->mask = b->size + n;
    } else {
        b->child = (bnode **)(void *)(b->where + n);
    }
    for (size_t i = 0; i < n; i++) {
        const unsigned char *k = body + i * esz, *c = k + ksz;
        uint64_t where = le(c, r->sa);
        if (undefined(c, r->sa) || key_place(t, k, &b->key[i]) != 0 || b->key[i] < lo ||
            (hi != 0 && b->key[i] >= hi) || (i > 0 && b->key[i] <= b->key[i - 1]))
            goto done;
        if (lvl == 0) {
            b->size[i] = (uint32_t)le(k, 4);
            b->mask[i] = (uint32_t)le(k + 4, 4);
            if (b->size[i] == 0 || !inside(r, where, b->size[i]))
                goto done;
            where += r->base;
        }
        b->where[i] = where;
    }
    status = 0;
done:
    free(body);
    if (status == 0)
        *out = b;
    else
        free(b);
    return status;
}

/* ---- the index of a variable -------------------------------------------------------- */

/* The file's address and length sizes and base address, once. */
static int geometry(chunked *cs)
{
    hid_t fcpl;
    size_t sa = 0, sl = 0;
    hsize_t ub = 0;
    if (cs->geo_state != 0)
        return cs->geo_state;
    cs->geo_state = -1;
    fcpl = H5Fget_create_plist(cs->fid);
    if (fcpl < 0)
        return -1;
    if (H5Pget_sizes(fcpl, &sa, &sl) >= 0 && H5Pget_userblock(fcpl, &ub) >= 0 &&
        (sa == 2 || sa == 4 || sa == 8) && (sl == 2 || sl == 4 || sl == 8)) {
        cs->sizeof_addr = (unsigned)sa;
        cs->sizeof_size = (unsigned)sl;
        cs->base = ub;
        cs->geo_state = 1;
    }
    H5Pclose(fcpl);
    return cs->geo_state;
}

/* Builds cv's index, its root read: NULL when there is none to have,
 * *broken set when the index is damaged. */
static ncsi_ctab *build(cvar *cv, int *broken)
{
    chunked *cs = cv->cs;
    const ncs_chunkvar *ck = &cv->ck;
    ohwalk ow;
    rd r;
    const unsigned char *lay;
    ncsi_ctab *t = NULL;
    unsigned nd;

    if (cv->dset < 0 || cv->blocked || ck->ndims < 1 || cv->ohdr == HADDR_UNDEF ||
        !ncsi_h5j_readonly(cs->journal) || geometry(cs) != 1)
        return NULL;
    r = (rd){ cs->journal, cs->base, ncsi_h5j_eof(cs->journal), cs->sizeof_addr,
              cs->sizeof_size };
    if (r.base > r.eof)
        return NULL;
    memset(&ow, 0, sizeof ow);
    ow.r = &r;
    if (find_layout(&ow, cv->ohdr) != 0)
        goto done;
    /* version 3, class 2 (chunked): dimensionality, B-tree address, the
     * chunk's sizes in elements and, last, the element's size */
    lay = ow.layout;
    nd = (unsigned)ck->ndims + 1;
    if (ow.layout_len < 3 || lay[0] != 3 || lay[1] != 2 || lay[2] != nd ||
        ow.layout_len < 3 + r.sa + 4 * (size_t)nd)
        goto done;
    for (unsigned d = 0; d < nd; d++) {
        uint64_t want = d < nd - 1 ? ck->chunk[d] : ck->esz;
        if (le(lay + 3 + r.sa + 4 * d, 4) != want)
            goto done;
    }
    t = ncsi_calloc(1, sizeof *t);
    if (t == NULL)
        goto done;
    t->r = r;
    t->cv = cv;
    t->nd = nd;
    for (int d = 0; d < ck->ndims; d++)
        t->lim[d] = d == 0 ? cv->extent0 : ck->shape[d];
    if (!undefined(lay + 3, r.sa) &&
        node_read(t, le(lay + 3, r.sa), -1, 0, 0, &t->root) != 0) {
        free(t);
        t = NULL;
        *broken = 1;
    }
done:
    free(ow.layout);
    return t;
}

static int disabled(void)
{
    static int state = -1;
    int s = __atomic_load_n(&state, __ATOMIC_RELAXED);
    if (s < 0) {
        const char *e = getenv("NCSLAB_CHUNK_ADDR");
        s = e != NULL && strcmp(e, "0") == 0;
        __atomic_store_n(&state, s, __ATOMIC_RELAXED);
    }
    return s;
}

int ncsi_h5_ctab(cvar *cv, const ncsi_ctab **tp)
{
    int s = __atomic_load_n(&cv->ctab_state, __ATOMIC_ACQUIRE);
    if (s == CTAB_UNKNOWN) {
        pthread_mutex_lock(&build_lock);
        if (cv->ctab_state == CTAB_UNKNOWN) {
            int broken = 0;
            cv->ctab = disabled() ? NULL : build(cv, &broken);
            s = cv->ctab != NULL ? CTAB_READY : broken ? CTAB_BROKEN : CTAB_NONE;
            if (s != CTAB_READY)
                __atomic_store_n(&cv->ck.unlocated, 1, __ATOMIC_RELAXED);
            __atomic_store_n(&cv->ctab_state, s, __ATOMIC_RELEASE);
        }
        s = cv->ctab_state;
        pthread_mutex_unlock(&build_lock);
    }
    *tp = s == CTAB_READY ? cv->ctab : NULL;
    return s == CTAB_BROKEN ? NCSI_CORRUPT(NCS_EHDFERR) : NCS_NOERR;
}

/* Child i of b, read if not yet. */
static int child_of(const ncsi_ctab *t, bnode *b, size_t i, bnode **out)
{
    bnode *c = __atomic_load_n(&b->child[i], __ATOMIC_ACQUIRE);
    int status = 0;
    if (c == NULL) {
        pthread_mutex_lock(&build_lock);
        c = b->child[i];
        if (c == NULL) {
            status = node_read(t, b->where[i], b->level - 1, b->key[i],
                               i + 1 < b->n ? b->key[i + 1] : 0, &c);
            if (status == 0)
                __atomic_store_n(&b->child[i], c, __ATOMIC_RELEASE);
        }
        pthread_mutex_unlock(&build_lock);
    }
    *out = c;
    return status;
}

int ncsi_h5_ctab_find(const ncsi_ctab *t, uint64_t idx, ncsi_caddr *e, int *found)
{
    bnode *b = t->root;
    *found = 0;
    while (b != NULL) {
        /* the last entry whose first chunk is at or before idx */
        size_t lo = 0, hi = b->n;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (b->key[mid] <= idx)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo == 0)
            break;
        if (b->level == 0) {
            if (b->key[lo - 1] != idx)
                break;
            *e = (ncsi_caddr){ idx, b->where[lo - 1], b->size[lo - 1], b->mask[lo - 1] };
            *found = 1;
            break;
        }
        if (child_of(t, b, lo - 1, &b) != 0)
            return NCSI_CORRUPT(NCS_EHDFERR);
    }
    return NCS_NOERR;
}

void ncsi_h5_ctab_free(ncsi_ctab *t)
{
    if (t == NULL)
        return;
    node_free(t->root);
    free(t);
}
