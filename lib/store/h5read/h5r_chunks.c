/*
 * h5r_chunks.c -- where a chunked dataset's chunks are: its chunk index,
 * read from the file's bytes as lookups need its nodes (h5read.h).
 *
 * What is read: the index of a data layout message of version 3, a
 * version-1 B-tree of node type 1.  A node ("TREE", type 1, level (1),
 * entries used (2), left and right siblings O) holds entries used + 1
 * keys and entries used children between them:
 *     key:   the chunk's stored size (4), filter mask (4), then for each
 *            dimension of the dataset and one more the offset of the
 *            chunk's first element (8 each; the last is 0)
 *     child: a node one level down, or (level 0) the chunk's bytes O
 * netCDF-C and HDF5's 1.8 format write exactly this; the indexes of
 * layout version 4 (single chunk, implicit, fixed and extensible arrays,
 * version-2 B-trees) are NCSI_H5R_UNSUPPORTED.
 *
 * Nodes are read as lookups reach them and kept, parsed, for the index's
 * life: a point read costs the nodes on one path from the root (as HDF5's
 * own lookup reads), a scan every node once.  Each node is checked as it
 * is read: its signature and type, its level one below its parent's, its
 * entries increasing and inside the range its parent gives it, below its
 * own last key (which bounds HDF5's search as well), each a place of the
 * chunk grid inside the dataset, each chunk inside the file with a
 * nonzero size; so no path loops and no chunk is found twice.  A
 * node that breaks these rules makes the lookups that reach it
 * NCSI_H5R_CORRUPT.  Children are published with release stores, so
 * lookups walk loaded nodes without a lock; only loading takes the
 * index's mutex.  The file's read function must allow calls from several
 * threads at once (pread does).
 */
#include "h5read.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define BT_MAX_LEVEL 32

typedef struct bnode {
    int level;
    size_t n;
    uint64_t bound;              /* the places of its entries are below it:
                                    the node's last key, or its parent's */
    uint64_t *key;               /* the place of each entry's first chunk,
                                    increasing */
    uint64_t *where;             /* level 0: the chunk's absolute address;
                                    above: the child node's relative one */
    uint32_t *size, *mask;       /* level 0: the chunk's stored size, mask */
    struct bnode **child;        /* above level 0: children once loaded */
} bnode;

struct ncsi_h5r_chunks {
    const ncsi_h5r *f;
    int rank;
    uint64_t chunk[NCSI_H5R_MAX_RANK];
    uint64_t grid[NCSI_H5R_MAX_RANK];   /* chunks along each dimension */
    uint64_t stride[NCSI_H5R_MAX_RANK]; /* places of the grid between
                                           neighbours along each dimension */
    uint32_t esz;                /* the element's size, as the layout says */
    uint64_t ext[NCSI_H5R_MAX_RANK];    /* the dataset's extent */
    bnode *root;                 /* NULL: no chunk stored */
    pthread_mutex_t lock;        /* held while a node is read */
};

static void node_free(bnode *b)
{
    if (b == NULL)
        return;
    for (size_t i = 0; b->level > 0 && i < b->n; i++)
        node_free(b->child[i]);
    free(b);
}

/* The place of the chunk grid a key's offsets name; -1 when they are not
 * one (off the grid, outside the dataset, a nonzero last offset). */
static int key_place(const ncsi_h5r_chunks *c, const unsigned char *k, uint64_t *idx)
{
    uint64_t x = 0;
    for (int d = 0; d < c->rank; d++) {
        uint64_t o = ncsi_h5r_le(k + 8 + 8 * (size_t)d, 8);
        if (o % c->chunk[d] != 0 || o >= c->ext[d])
            return -1;
        x = x * c->grid[d] + o / c->chunk[d];
    }
    if (ncsi_h5r_le(k + 8 + 8 * (size_t)c->rank, 8) != 0)
        return -1;
    *idx = x;
    return 0;
}

/* How many places of the grid come before the key k in the grid's order:
 * HDF5 compares keys by their chunk coordinates (each offset divided by
 * the chunk's length, rounded down), first dimension first, and finds an
 * entry only below the key after it (the node's last key for its last
 * entry), which may lie past the grid. */
static uint64_t key_bound(const ncsi_h5r_chunks *c, const unsigned char *k)
{
    uint64_t count = 0;
    for (int d = 0; d < c->rank; d++) {
        uint64_t s = ncsi_h5r_le(k + 8 + 8 * (size_t)d, 8) / c->chunk[d];
        if (s >= c->grid[d])
            return count + c->grid[d] * c->stride[d];
        count += s * c->stride[d];
    }
    /* the element offset is a dimension of its own, of one place: HDF5's
     * last key holds the last chunk's offsets and the element's size */
    return count + (ncsi_h5r_le(k + 8 + 8 * (size_t)c->rank, 8) / c->esz >= 1);
}

/* Reads the node at relative address a: at level (-1: the root, any), its
 * entries in [lo, hi) (hi 0: no bound above). */
static int node_read(const ncsi_h5r_chunks *c, uint64_t a, int level, uint64_t lo, uint64_t hi,
                     bnode **out)
{
    const ncsi_h5r *f = c->f;
    unsigned sa = f->info.sizeof_addr;
    size_t hsz = 8 + 2 * (size_t)sa, ksz = 8 + 8 * ((size_t)c->rank + 1), esz = ksz + sa;
    unsigned char hdr[8 + 2 * 8], *body = NULL;
    size_t n, bsz, per;
    bnode *b = NULL;
    int lvl, status;
    *out = NULL;
    if ((status = ncsi_h5r_pread(f, a, hdr, hsz)) != NCS_NOERR)
        return status;
    if (memcmp(hdr, "TREE", 4) != 0 || hdr[4] != 1)
        return NCSI_H5R_CORRUPT;
    lvl = hdr[5];
    n = (size_t)ncsi_h5r_le(hdr + 6, 2);
    if ((level >= 0 && lvl != level) || lvl > BT_MAX_LEVEL || n == 0)
        return NCSI_H5R_CORRUPT;
    bsz = n * esz + ksz;
    per = 2 * sizeof(uint64_t) + (lvl == 0 ? 2 * sizeof(uint32_t) : sizeof(bnode *));
    if ((status = ncsi_h5r_load(f, a + hsz, bsz, &body)) != NCS_NOERR)
        return status;
    status = NCS_ENOMEM;
    if ((b = ncsi_calloc(1, sizeof *b + n * per)) == NULL)
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
    status = NCSI_H5R_CORRUPT;
    for (size_t i = 0; i < n; i++) {
        const unsigned char *k = body + i * esz, *ch = k + ksz;
        uint64_t where = ncsi_h5r_addr(f, ch);
        if (where == NCSI_H5R_UNDEF || key_place(c, k, &b->key[i]) != 0 || b->key[i] < lo ||
            (hi != 0 && b->key[i] >= hi) || (i > 0 && b->key[i] <= b->key[i - 1]))
            goto done;
        if (lvl == 0) {
            b->size[i] = (uint32_t)ncsi_h5r_le(k, 4);
            b->mask[i] = (uint32_t)ncsi_h5r_le(k + 4, 4);
            if (b->size[i] == 0 || !ncsi_h5r_inside(f, where, b->size[i]))
                goto done;
            where += f->info.base;
        }
        b->where[i] = where;
    }
    /* the key after the last entry bounds it, as it bounds HDF5's search */
    b->bound = key_bound(c, body + n * esz);
    if (hi != 0 && hi < b->bound)
        b->bound = hi;
    if (b->key[n - 1] >= b->bound)
        goto done;
    status = NCS_NOERR;
done:
    free(body);
    if (status == NCS_NOERR)
        *out = b;
    else
        free(b);
    return status;
}

int ncsi_h5r_chunks_open(const ncsi_h5r *f, const ncsi_h5r_layout *lay, int rank,
                         const uint64_t *ext, ncsi_h5r_chunks **cp)
{
    ncsi_h5r_chunks *c;
    int status;
    *cp = NULL;
    if (lay->cls != NCSI_H5R_CHUNKED || lay->ndims != rank || rank < 1 ||
        rank > NCSI_H5R_MAX_RANK)
        return NCS_EINVAL;
    if (lay->version != 3)
        return NCSI_H5R_UNSUPPORTED;
    if ((c = ncsi_calloc(1, sizeof *c)) == NULL)
        return NCS_ENOMEM;
    c->f = f;
    c->rank = rank;
    c->esz = lay->elem_size;
    for (int d = 0; d < rank; d++) {
        c->chunk[d] = lay->chunk[d];
        c->ext[d] = ext[d];
        c->grid[d] = ext[d] / lay->chunk[d] + (ext[d] % lay->chunk[d] != 0);
    }
    /* the places of the grid must be numbers: a key is checked to lie
     * inside the extent, so their product is enough */
    {
        uint64_t places = 1;
        for (int d = rank - 1; d >= 0; d--) {
            c->stride[d] = places;
            if (ncsi_mul_u64(places, c->grid[d], &places)) {
                free(c);
                return NCSI_H5R_CORRUPT;
            }
        }
    }
    if (pthread_mutex_init(&c->lock, NULL) != 0) {
        free(c);
        return NCS_ENOMEM;
    }
    if (lay->addr != NCSI_H5R_UNDEF &&
        (status = node_read(c, lay->addr, -1, 0, 0, &c->root)) != NCS_NOERR) {
        ncsi_h5r_chunks_free(c);
        return status;
    }
    *cp = c;
    return NCS_NOERR;
}

void ncsi_h5r_chunks_free(ncsi_h5r_chunks *c)
{
    if (c == NULL)
        return;
    node_free(c->root);
    pthread_mutex_destroy(&c->lock);
    free(c);
}

/* Child i of b, read if not yet. */
static int child_of(ncsi_h5r_chunks *c, bnode *b, size_t i, bnode **out)
{
    bnode *ch = __atomic_load_n(&b->child[i], __ATOMIC_ACQUIRE);
    int status = NCS_NOERR;
    if (ch == NULL) {
        pthread_mutex_lock(&c->lock);
        ch = b->child[i];
        if (ch == NULL) {
            status = node_read(c, b->where[i], b->level - 1, b->key[i],
                               i + 1 < b->n ? b->key[i + 1] : b->bound, &ch);
            if (status == NCS_NOERR)
                __atomic_store_n(&b->child[i], ch, __ATOMIC_RELEASE);
        }
        pthread_mutex_unlock(&c->lock);
    }
    *out = ch;
    return status;
}

int ncsi_h5r_chunks_find(ncsi_h5r_chunks *c, uint64_t idx, ncsi_h5r_chunk *e, int *found)
{
    bnode *b = c->root;
    *found = 0;
    while (b != NULL) {
        /* the last entry whose first chunk is at or before idx */
        size_t lo = 0, hi = b->n;
        int status;
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
            *e = (ncsi_h5r_chunk){ idx, b->where[lo - 1], b->size[lo - 1], b->mask[lo - 1] };
            *found = 1;
            break;
        }
        if ((status = child_of(c, b, lo - 1, &b)) != NCS_NOERR)
            return status;
    }
    return NCS_NOERR;
}

static int walk(ncsi_h5r_chunks *c, bnode *b, ncsi_h5r_chunk_visit visit, void *arg)
{
    for (size_t i = 0; i < b->n; i++) {
        int status;
        if (b->level == 0) {
            ncsi_h5r_chunk e = { b->key[i], b->where[i], b->size[i], b->mask[i] };
            status = visit(arg, &e);
        } else {
            bnode *ch;
            status = child_of(c, b, i, &ch);
            if (status == NCS_NOERR)
                status = walk(c, ch, visit, arg);
        }
        if (status != NCS_NOERR)
            return status;
    }
    return NCS_NOERR;
}

int ncsi_h5r_chunks_walk(ncsi_h5r_chunks *c, ncsi_h5r_chunk_visit visit, void *arg)
{
    return c->root != NULL ? walk(c, c->root, visit, arg) : NCS_NOERR;
}

/* ---- the index as recorded, for validators ---------------------------------------
 * Every entry of every leaf, depth first, as the file records it: only
 * what is needed to walk the tree is checked (each node's signature and
 * type, its level one below its parent's, and at most as many nodes as
 * the file could hold, so that a tree whose nodes share children still
 * ends); an entry's offsets, size and address are the caller's to judge. */

typedef struct lwalk {
    const ncsi_h5r *f;
    int rank;
    const uint64_t *chunk;
    uint64_t nodes_left;
    ncsi_h5r_entry_visit visit;
    void *arg;
} lwalk;

static int list_node(lwalk *w, uint64_t a, int level)
{
    const ncsi_h5r *f = w->f;
    unsigned sa = f->info.sizeof_addr;
    size_t hsz = 8 + 2 * (size_t)sa, ksz = 8 + 8 * ((size_t)w->rank + 1), esz = ksz + sa;
    unsigned char hdr[8 + 2 * 8], *body = NULL;
    uint64_t off[NCSI_H5R_MAX_RANK];
    size_t n;
    int lvl, status;
    if (w->nodes_left == 0)
        return NCSI_H5R_CORRUPT;
    w->nodes_left--;
    if ((status = ncsi_h5r_pread(f, a, hdr, hsz)) != NCS_NOERR)
        return status;
    if (memcmp(hdr, "TREE", 4) != 0 || hdr[4] != 1)
        return NCSI_H5R_CORRUPT;
    lvl = hdr[5];
    n = (size_t)ncsi_h5r_le(hdr + 6, 2);
    if ((level >= 0 && lvl != level) || lvl > BT_MAX_LEVEL)
        return NCSI_H5R_CORRUPT;
    if ((status = ncsi_h5r_load(f, a + hsz, n * esz + ksz, &body)) != NCS_NOERR)
        return status;
    for (size_t i = 0; i < n && status == NCS_NOERR; i++) {
        const unsigned char *k = body + i * esz;
        uint64_t where = ncsi_h5r_addr(f, k + ksz);
        if (lvl > 0) {
            status = where == NCSI_H5R_UNDEF ? NCSI_H5R_CORRUPT : list_node(w, where, lvl - 1);
            continue;
        }
        /* HDF5 keeps offsets in units of the chunk: one off the grid is
         * the place it rounds down to */
        for (int d = 0; d < w->rank; d++)
            off[d] = ncsi_h5r_le(k + 8 + 8 * (size_t)d, 8) / w->chunk[d] * w->chunk[d];
        status = w->visit(w->arg, off, (uint32_t)ncsi_h5r_le(k + 4, 4),
                          where == NCSI_H5R_UNDEF ? where : where + f->info.base,
                          (uint32_t)ncsi_h5r_le(k, 4));
    }
    free(body);
    return status;
}

int ncsi_h5r_chunks_list(const ncsi_h5r *f, const ncsi_h5r_layout *lay, int rank,
                         ncsi_h5r_entry_visit visit, void *arg)
{
    lwalk w = { f, rank, lay->chunk, 0, visit, arg };
    if (lay->cls != NCSI_H5R_CHUNKED || lay->ndims != rank || rank < 1 ||
        rank > NCSI_H5R_MAX_RANK)
        return NCS_EINVAL;
    if (lay->version != 3)
        return NCSI_H5R_UNSUPPORTED;
    if (lay->addr == NCSI_H5R_UNDEF)
        return NCS_NOERR;
    w.nodes_left = (f->eof - f->info.base) / (8 + 2 * (uint64_t)f->info.sizeof_addr) + 1;
    return list_node(&w, lay->addr, -1);
}
