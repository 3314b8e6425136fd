/*
 * h5r_heap.c -- where links and attributes are kept outside an object
 * header: version-2 B-trees, fractal heaps, old-style groups (a version-1
 * B-tree of symbol nodes over a local heap) and the global heap
 * (h5read.h).  Byte tables of each are next to their readers; O is an
 * address (sizeof_addr bytes), L a length (sizeof_size).
 *
 * Bounds on a hostile file's work: every node is read whole and checked
 * (signature, version, checksum where the format has one, counts against
 * the node's size) before it is used; trees are walked with their depth
 * strictly falling and at most 32 levels; the records a walk collects may
 * not exceed what the tree's header says it holds, every node below the
 * root holds at least one, and nothing is allocated beyond what the
 * file's size could hold.
 */
#include "h5read.h"

#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 32

/* Bytes needed to encode the number l, as HDF5 sizes its counters. */
static unsigned enc_size(uint64_t l)
{
    unsigned bits = 0;
    while (l >>= 1)
        bits++;
    return bits / 8 + 1;
}

static unsigned log2_of(uint64_t v)
{
    unsigned r = 0;
    while (v >>= 1)
        r++;
    return r;
}

static int pow2(uint64_t v)
{
    return v != 0 && (v & (v - 1)) == 0;
}

/* ---- version-2 B-trees ----------------------------------------------------------
 * Header: "BTHD", version 0, type (1), node size (4), record size (2),
 * depth (2), split and merge percents (1 each), root O, records in the
 * root (2), records in the tree (L), checksum.
 * Internal node: "BTIN", version 0, type, its records, then one more
 * child pointer than records: the child's address O, its records (as
 * many bytes as a leaf's largest count needs) and, when the child is
 * itself internal, the records of its subtree (as many bytes as that
 * subtree's largest total needs); a checksum after the last pointer.
 * Leaf: "BTLF", version 0, type, records, checksum.  A node's records
 * are in key order and internal nodes' records lie between their
 * children's, so an in-order walk lists the tree in key order. */

typedef struct bt2 {
    const ncsi_h5r *f;
    int type;
    uint32_t node_size;
    unsigned rec_size;
    int depth;
    uint64_t total;              /* records the header says the tree holds */
    uint64_t max_nrec[MAX_DEPTH + 1];
    unsigned nrec_bytes;         /* width of a child's record count */
    unsigned cum_bytes[MAX_DEPTH + 1];   /* width of a subtree's total */
    unsigned char *out;
    size_t n, cap;
    unsigned char *node;         /* node_size bytes */
} bt2;

static int bt2_take(bt2 *t, const unsigned char *rec)
{
    if (t->n >= t->total)
        return NCSI_H5R_CORRUPT;
    if (t->n == t->cap) {
        size_t nc = t->cap ? 2 * t->cap : 16;
        unsigned char *o;
        if (nc > t->total)
            nc = (size_t)t->total;
        if ((o = ncsi_realloc(t->out, nc * t->rec_size)) == NULL)
            return NCS_ENOMEM;
        t->out = o;
        t->cap = nc;
    }
    memcpy(t->out + t->n * t->rec_size, rec, t->rec_size);
    t->n++;
    return NCS_NOERR;
}

static int bt2_node(bt2 *t, uint64_t addr, int depth, uint64_t nrec)
{
    const ncsi_h5r *f = t->f;
    unsigned sa = f->info.sizeof_addr;
    unsigned char *b = t->node;
    size_t used, ptr = 0;
    int status;
    if (nrec > t->max_nrec[depth])
        return NCSI_H5R_CORRUPT;
    used = 6 + (size_t)nrec * t->rec_size;
    if (depth > 0) {
        ptr = sa + t->nrec_bytes + (depth > 1 ? t->cum_bytes[depth - 1] : 0);
        used += ((size_t)nrec + 1) * ptr;
    }
    if (used + 4 > t->node_size)
        return NCSI_H5R_CORRUPT;
    if ((status = ncsi_h5r_pread(f, addr, b, used + 4)) != NCS_NOERR)
        return status;
    if (memcmp(b, depth > 0 ? "BTIN" : "BTLF", 4) != 0 || b[4] != 0 || b[5] != t->type ||
        !ncsi_h5r_checksum_ok(b, used))
        return NCSI_H5R_CORRUPT;
    if (depth == 0) {
        for (uint64_t i = 0; i < nrec; i++)
            if ((status = bt2_take(t, b + 6 + i * t->rec_size)) != NCS_NOERR)
                return status;
        return NCS_NOERR;
    }
    {
        /* the node buffer is reused below: keep this node's bytes */
        unsigned char *mine = ncsi_malloc(used);
        if (mine == NULL)
            return NCS_ENOMEM;
        memcpy(mine, b, used);
        status = NCS_NOERR;
        for (uint64_t i = 0; i <= nrec && status == NCS_NOERR; i++) {
            const unsigned char *cp = mine + 6 + nrec * t->rec_size + i * ptr;
            uint64_t caddr = ncsi_h5r_addr(f, cp);
            uint64_t cn = ncsi_h5r_le(cp + sa, t->nrec_bytes);
            if (cn == 0 || caddr == NCSI_H5R_UNDEF) {
                status = NCSI_H5R_CORRUPT;
                break;
            }
            status = bt2_node(t, caddr, depth - 1, cn);
            if (status == NCS_NOERR && i < nrec)
                status = bt2_take(t, mine + 6 + i * t->rec_size);
        }
        free(mine);
        return status;
    }
}

int ncsi_h5r_btree2_records(const ncsi_h5r *f, uint64_t addr, int type, unsigned char **recsp,
                            size_t *np, size_t *recsizep)
{
    unsigned sa = f->info.sizeof_addr, sl = f->info.sizeof_size;
    unsigned char h[4 + 1 + 1 + 4 + 2 + 2 + 1 + 1 + 8 + 2 + 8 + 4];
    size_t hs = 16 + (size_t)sa + 2 + sl;
    uint64_t root, rootn;
    bt2 t;
    int status;
    *recsp = NULL;
    *np = 0;
    *recsizep = 0;
    memset(&t, 0, sizeof t);
    if ((status = ncsi_h5r_pread(f, addr, h, hs + 4)) != NCS_NOERR)
        return status;
    if (memcmp(h, "BTHD", 4) != 0 || h[4] != 0 || !ncsi_h5r_checksum_ok(h, hs))
        return NCSI_H5R_CORRUPT;
    t.f = f;
    t.type = h[5];
    t.node_size = (uint32_t)ncsi_h5r_le(h + 6, 4);
    t.rec_size = (unsigned)ncsi_h5r_le(h + 10, 2);
    t.depth = (int)ncsi_h5r_le(h + 12, 2);
    root = ncsi_h5r_addr(f, h + 16);
    rootn = ncsi_h5r_le(h + 16 + sa, 2);
    t.total = ncsi_h5r_le(h + 18 + sa, sl);
    if (t.type != type || t.rec_size == 0 || t.node_size < 16 || t.node_size > (1u << 20) ||
        t.depth > MAX_DEPTH || t.rec_size > t.node_size - 10)
        return NCSI_H5R_CORRUPT;
    /* a tree cannot hold more records than the file has room for */
    if (t.total > (f->eof - f->info.base) / t.rec_size)
        return NCSI_H5R_CORRUPT;
    t.max_nrec[0] = (t.node_size - 10) / t.rec_size;
    t.nrec_bytes = enc_size(t.max_nrec[0]);
    {
        uint64_t cum = t.max_nrec[0];
        t.cum_bytes[0] = 0;
        for (int d = 1; d <= t.depth; d++) {
            size_t ptr = sa + t.nrec_bytes + (d > 1 ? t.cum_bytes[d - 1] : 0);
            if (t.node_size < 10 + ptr)
                return NCSI_H5R_CORRUPT;
            t.max_nrec[d] = (t.node_size - (10 + ptr)) / (t.rec_size + ptr);
            if (t.max_nrec[d] == 0)
                return NCSI_H5R_CORRUPT;
            if (ncsi_mul_u64(t.max_nrec[d] + 1, cum, &cum) || ncsi_add_u64(cum, t.max_nrec[d], &cum))
                cum = UINT64_MAX;
            t.cum_bytes[d] = enc_size(cum);
            if (t.cum_bytes[d] > 8)
                t.cum_bytes[d] = 8;
        }
    }
    *recsizep = t.rec_size;
    if (root == NCSI_H5R_UNDEF || rootn == 0) {
        return t.total == 0 ? NCS_NOERR : NCSI_H5R_CORRUPT;
    }
    if ((t.node = ncsi_malloc(t.node_size)) == NULL)
        return NCS_ENOMEM;
    status = bt2_node(&t, root, t.depth, rootn);
    free(t.node);
    if (status == NCS_NOERR && t.n != t.total)
        status = NCSI_H5R_CORRUPT;
    if (status != NCS_NOERR) {
        free(t.out);
        return status;
    }
    *recsp = t.out;
    *np = t.n;
    return NCS_NOERR;
}

/* ---- fractal heaps ---------------------------------------------------------------
 * Header: "FRHP", version 0, heap id length (2), filters' encoded length
 * (2), flags (1; bit 1: direct blocks carry a checksum), largest managed
 * object (4), next huge id L, huge objects' B-tree O, free space L, its
 * manager O, managed space L, allocated managed space L, allocation
 * iterator L, managed objects L, huge objects' size L and count L, tiny
 * objects' size L and count L, table width (2), starting block size L,
 * largest direct block L, log2 of the heap's largest offset (2), the
 * root indirect block's starting rows (2), the root block O, its current
 * rows (2; 0: the root is a direct block), checksum.
 * The doubling table: rows of `width` blocks, rows 0 and 1 of the starting
 * size, each later row twice the one before; blocks up to the largest
 * direct size are direct (data), larger ones indirect (more rows).
 * Indirect block: "FHIB", version 0, heap header O, the block's heap
 * offset, then an address O per direct block entry and per indirect block
 * entry, a checksum.  Direct block: "FHDB", version 0, heap header O, the
 * block's heap offset, a checksum (flags bit 1; over the whole block with
 * the field taken as zero), the objects.
 * A managed object's id: a byte (version 0 in bits 6-7, type in 4-5: 0
 * managed, 1 huge, 2 tiny), its heap offset, its length. */

struct ncsi_h5r_fheap {
    const ncsi_h5r *f;
    uint64_t addr;
    unsigned idlen;
    unsigned flags;
    uint64_t max_man;
    unsigned width;
    uint64_t start, max_direct;
    unsigned max_bits;
    uint64_t root;
    unsigned root_rows;
    unsigned off_bytes, len_bytes;
    unsigned max_dblock_rows;
    /* the last direct block read, and the root indirect block, which
     * every lookup of a heap of more than one block starts from */
    uint64_t db_addr, db_size;
    unsigned char *db;
    unsigned char *ib;
};

int ncsi_h5r_fheap_open(const ncsi_h5r *f, uint64_t addr, ncsi_h5r_fheap **hp)
{
    unsigned sa = f->info.sizeof_addr, sl = f->info.sizeof_size;
    size_t hs = 22 + 12 * (size_t)sl + 3 * (size_t)sa;
    unsigned char *h = NULL;
    ncsi_h5r_fheap *fh;
    size_t p;
    unsigned filters;
    int status;
    *hp = NULL;
    if ((status = ncsi_h5r_load(f, addr, hs + 4, &h)) != NCS_NOERR)
        return status;
    status = NCSI_H5R_CORRUPT;
    if (memcmp(h, "FRHP", 4) != 0 || h[4] != 0)
        goto done;
    filters = (unsigned)ncsi_h5r_le(h + 7, 2);
    if (filters != 0) {
        status = NCSI_H5R_UNSUPPORTED;
        goto done;
    }
    if (!ncsi_h5r_checksum_ok(h, hs))
        goto done;
    if ((fh = ncsi_calloc(1, sizeof *fh)) == NULL) {
        status = NCS_ENOMEM;
        goto done;
    }
    fh->f = f;
    fh->addr = addr;
    fh->idlen = (unsigned)ncsi_h5r_le(h + 5, 2);
    fh->flags = h[9];
    fh->max_man = ncsi_h5r_le(h + 10, 4);
    p = 14 + 10 * (size_t)sl + 2 * (size_t)sa;
    fh->width = (unsigned)ncsi_h5r_le(h + p, 2);
    fh->start = ncsi_h5r_le(h + p + 2, sl);
    fh->max_direct = ncsi_h5r_le(h + p + 2 + sl, sl);
    fh->max_bits = (unsigned)ncsi_h5r_le(h + p + 2 + 2 * (size_t)sl, 2);
    fh->root = ncsi_h5r_addr(f, h + p + 6 + 2 * (size_t)sl);
    fh->root_rows = (unsigned)ncsi_h5r_le(h + p + 6 + 2 * (size_t)sl + sa, 2);
    fh->db_addr = NCSI_H5R_UNDEF;
    if (!pow2(fh->width) || fh->width > 65536 || !pow2(fh->start) || !pow2(fh->max_direct) ||
        fh->max_direct < fh->start || fh->max_direct > ((uint64_t)1 << 32) || fh->max_bits < 1 ||
        fh->max_bits > 64 || fh->idlen < 2 || fh->idlen > 64 ||
        log2_of(fh->start) + log2_of(fh->width) > fh->max_bits) {
        free(fh);
        goto done;
    }
    fh->off_bytes = (fh->max_bits + 7) / 8;
    fh->len_bytes = (log2_of(fh->max_direct) + 7) / 8;
    if (enc_size(fh->max_man) < fh->len_bytes)
        fh->len_bytes = enc_size(fh->max_man);
    fh->max_dblock_rows = log2_of(fh->max_direct) - log2_of(fh->start) + 2;
    if (fh->root_rows > fh->max_bits - log2_of(fh->start * fh->width) + 2) {
        free(fh);
        goto done;
    }
    *hp = fh;
    status = NCS_NOERR;
done:
    free(h);
    return status;
}

void ncsi_h5r_fheap_close(ncsi_h5r_fheap *h)
{
    if (h == NULL)
        return;
    free(h->db);
    free(h->ib);
    free(h);
}

unsigned ncsi_h5r_fheap_idlen(const ncsi_h5r_fheap *h)
{
    return h->idlen;
}

/* The size of the blocks of row r of the doubling table. */
static uint64_t row_block(const ncsi_h5r_fheap *h, unsigned r)
{
    return r == 0 ? h->start : h->start << (r - 1);
}

/* The heap offset at which row r starts, within its indirect block. */
static uint64_t row_start(const ncsi_h5r_fheap *h, unsigned r)
{
    return r == 0 ? 0 : (uint64_t)h->width * h->start << (r - 1);
}

/* Reads the direct block at addr (size bytes, heap offset boff) into the
 * heap's one-block cache. */
static int direct_block(ncsi_h5r_fheap *h, uint64_t addr, uint64_t size, uint64_t boff)
{
    const ncsi_h5r *f = h->f;
    unsigned sa = f->info.sizeof_addr;
    size_t hs = 5 + (size_t)sa + h->off_bytes;
    unsigned char *b;
    int status;
    if (h->db_addr == addr && h->db_size == size)
        return NCS_NOERR;
    free(h->db);
    h->db = NULL;
    h->db_addr = NCSI_H5R_UNDEF;
    if (size < hs + 4)
        return NCSI_H5R_CORRUPT;
    if ((status = ncsi_h5r_load(f, addr, (size_t)size, &b)) != NCS_NOERR)
        return status;
    if (memcmp(b, "FHDB", 4) != 0 || b[4] != 0 || ncsi_h5r_addr(f, b + 5) != h->addr ||
        ncsi_h5r_le(b + 5 + sa, h->off_bytes) != boff) {
        free(b);
        return NCSI_H5R_CORRUPT;
    }
    if (h->flags & 2) {
        uint32_t want = (uint32_t)ncsi_h5r_le(b + hs, 4);
        memset(b + hs, 0, 4);
        if (ncsi_h5r_checksum(b, (size_t)size) != want) {
            free(b);
            return NCSI_H5R_CORRUPT;
        }
    }
    h->db = b;
    h->db_addr = addr;
    h->db_size = size;
    return NCS_NOERR;
}

/* Finds the direct block holding heap offset off, below the indirect block
 * at addr of nrows rows starting at heap offset base: *daddr, *dsize and
 * *doff (its heap offset). */
static int find_direct(ncsi_h5r_fheap *h, uint64_t addr, unsigned nrows, uint64_t base,
                       uint64_t off, int depth, uint64_t *daddr, uint64_t *dsize, uint64_t *doff)
{
    const ncsi_h5r *f = h->f;
    unsigned sa = f->info.sizeof_addr;
    size_t hs = 5 + (size_t)sa + h->off_bytes;
    unsigned ndirect = nrows < h->max_dblock_rows ? nrows : h->max_dblock_rows;
    unsigned nindirect = nrows > h->max_dblock_rows ? nrows - h->max_dblock_rows : 0;
    size_t entries = ((size_t)ndirect + nindirect) * h->width;
    size_t bsz = hs + entries * sa;
    uint64_t rel = off - base, child;
    unsigned r = 0, col;
    unsigned char *b;
    int status;
    if (depth > MAX_DEPTH || off < base)
        return NCSI_H5R_CORRUPT;
    /* the row of rel */
    while (r + 1 < nrows && rel >= row_start(h, r + 1))
        r++;
    col = (unsigned)((rel - row_start(h, r)) / row_block(h, r));
    if (col >= h->width)
        return NCSI_H5R_CORRUPT;
    if (depth == 0 && h->ib != NULL) {
        b = h->ib;
    } else {
        if ((status = ncsi_h5r_load(f, addr, bsz + 4, &b)) != NCS_NOERR)
            return status;
        if (memcmp(b, "FHIB", 4) != 0 || b[4] != 0 || ncsi_h5r_addr(f, b + 5) != h->addr ||
            ncsi_h5r_le(b + 5 + sa, h->off_bytes) != base || !ncsi_h5r_checksum_ok(b, bsz)) {
            free(b);
            return NCSI_H5R_CORRUPT;
        }
    }
    child = ncsi_h5r_addr(f, b + hs + ((size_t)r * h->width + col) * sa);
    if (depth == 0)
        h->ib = b;               /* kept for the heap's life */
    else
        free(b);
    if (child == NCSI_H5R_UNDEF)
        return NCSI_H5R_CORRUPT;
    base += row_start(h, r) + (uint64_t)col * row_block(h, r);
    if (r < h->max_dblock_rows) {
        *daddr = child;
        *dsize = row_block(h, r);
        *doff = base;
        return NCS_NOERR;
    }
    /* an indirect child: as many rows as its size takes */
    {
        unsigned crows = log2_of(row_block(h, r)) - log2_of(h->start * h->width) + 1;
        if (crows >= nrows)
            return NCSI_H5R_CORRUPT;
        return find_direct(h, child, crows, base, off, depth + 1, daddr, dsize, doff);
    }
}

int ncsi_h5r_fheap_get(ncsi_h5r_fheap *h, const unsigned char *id, size_t idlen,
                       unsigned char **objp, size_t *np)
{
    unsigned type;
    uint64_t off, len, daddr, dsize, doff;
    int status;
    *objp = NULL;
    *np = 0;
    if (idlen != h->idlen || idlen < 1 || (id[0] >> 6) != 0)
        return NCSI_H5R_CORRUPT;
    type = (id[0] >> 4) & 3;
    if (type == 2) {
        /* tiny: the object is in the id */
        size_t at = idlen > 18 ? 2 : 1;
        len = idlen > 18 ? ((size_t)(id[0] & 0x0f) << 8 | id[1]) + 1 : (size_t)(id[0] & 0x0f) + 1;
        if (at + len > idlen)
            return NCSI_H5R_CORRUPT;
        if ((*objp = ncsi_malloc((size_t)len)) == NULL)
            return NCS_ENOMEM;
        memcpy(*objp, id + at, (size_t)len);
        *np = (size_t)len;
        return NCS_NOERR;
    }
    if (type != 0)
        return type == 1 ? NCSI_H5R_UNSUPPORTED : NCSI_H5R_CORRUPT;
    if (1 + (size_t)h->off_bytes + h->len_bytes > idlen)
        return NCSI_H5R_CORRUPT;
    off = ncsi_h5r_le(id + 1, h->off_bytes);
    len = ncsi_h5r_le(id + 1 + h->off_bytes, h->len_bytes);
    if (len == 0 || len > h->max_direct)
        return NCSI_H5R_CORRUPT;
    if (h->root == NCSI_H5R_UNDEF)
        return NCSI_H5R_CORRUPT;
    if (h->root_rows == 0) {
        daddr = h->root;
        dsize = h->start;
        doff = 0;
    } else if ((status = find_direct(h, h->root, h->root_rows, 0, off, 0, &daddr, &dsize, &doff)) !=
               NCS_NOERR) {
        return status;
    }
    if ((status = direct_block(h, daddr, dsize, doff)) != NCS_NOERR)
        return status;
    {
        size_t hs = 5 + (size_t)h->f->info.sizeof_addr + h->off_bytes + ((h->flags & 2) ? 4 : 0);
        uint64_t at = off - doff;
        if (off < doff || at < hs || at > dsize || len > dsize - at)
            return NCSI_H5R_CORRUPT;
        if ((*objp = ncsi_malloc((size_t)len)) == NULL)
            return NCS_ENOMEM;
        memcpy(*objp, h->db + at, (size_t)len);
        *np = (size_t)len;
    }
    return NCS_NOERR;
}

/* ---- old-style groups ---------------------------------------------------------------
 * Version-1 B-tree node: "TREE", type (1; 0 for groups), level (1),
 * entries used (2), left and right siblings O, then keys and children
 * alternating, key 0 first and one more key than children; a group's
 * keys are local heap offsets (L), its children at level 0 symbol nodes.
 * Symbol node: "SNOD", version 1, reserved (1), symbols (2), then entries
 * of name offset O, object header O, cache type (4), reserved (4),
 * scratch (16).  Local heap: "HEAP", version 0, reserved (3), data
 * segment size L, free list offset L, data segment O; names are
 * NUL-terminated strings in the segment. */

typedef struct symwalk {
    const ncsi_h5r *f;
    const unsigned char *heap;
    uint64_t heap_size;
    ncsi_h5r_link *l;
    size_t n, cap, limit;
    unsigned nodes;
} symwalk;

static int sym_node(symwalk *w, uint64_t addr)
{
    const ncsi_h5r *f = w->f;
    unsigned sa = f->info.sizeof_addr;
    size_t es = 2 * (size_t)sa + 24;
    unsigned char h[8], *b = NULL;
    unsigned n;
    int status;
    if ((status = ncsi_h5r_pread(f, addr, h, 8)) != NCS_NOERR)
        return status;
    if (memcmp(h, "SNOD", 4) != 0 || h[4] != 1)
        return NCSI_H5R_CORRUPT;
    n = (unsigned)ncsi_h5r_le(h + 6, 2);
    if (n == 0)
        return NCS_NOERR;
    if ((status = ncsi_h5r_load(f, addr + 8, n * es, &b)) != NCS_NOERR)
        return status;
    for (unsigned i = 0; i < n; i++) {
        const unsigned char *e = b + i * es;
        uint64_t name = ncsi_h5r_le(e, sa);
        const unsigned char *s, *z;
        ncsi_h5r_link *l;
        if (name >= w->heap_size ||
            (z = memchr(w->heap + name, 0, (size_t)(w->heap_size - name))) == NULL) {
            status = NCSI_H5R_CORRUPT;
            break;
        }
        s = w->heap + name;
        if (w->n == w->limit) {
            status = NCSI_H5R_CORRUPT;
            break;
        }
        if (w->n == w->cap) {
            size_t nc = w->cap ? 2 * w->cap : 16;
            ncsi_h5r_link *g = ncsi_realloc(w->l, nc * sizeof *g);
            if (g == NULL) {
                status = NCS_ENOMEM;
                break;
            }
            w->l = g;
            w->cap = nc;
        }
        l = &w->l[w->n];
        memset(l, 0, sizeof *l);
        if ((l->name = ncsi_malloc((size_t)(z - s) + 1)) == NULL) {
            status = NCS_ENOMEM;
            break;
        }
        memcpy(l->name, s, (size_t)(z - s) + 1);
        l->addr = ncsi_h5r_addr(f, e + sa);
        l->corder = -1;
        /* cache type 2: a soft link, its value in the heap */
        l->type = ncsi_h5r_le(e + 2 * (size_t)sa, 4) == 2 ? NCSI_H5R_SOFT : NCSI_H5R_HARD;
        w->n++;
        if (l->type == NCSI_H5R_HARD && l->addr == NCSI_H5R_UNDEF) {
            status = NCSI_H5R_CORRUPT;
            break;
        }
    }
    free(b);
    return status;
}

static int sym_tree(symwalk *w, uint64_t addr, int level)
{
    const ncsi_h5r *f = w->f;
    unsigned sa = f->info.sizeof_addr, sl = f->info.sizeof_size;
    unsigned char h[8];
    unsigned char *b = NULL;
    unsigned n;
    int lvl, status;
    if (++w->nodes > (1u << 20))
        return NCSI_H5R_CORRUPT;
    if ((status = ncsi_h5r_pread(f, addr, h, 8)) != NCS_NOERR)
        return status;
    if (memcmp(h, "TREE", 4) != 0 || h[4] != 0)
        return NCSI_H5R_CORRUPT;
    lvl = h[5];
    n = (unsigned)ncsi_h5r_le(h + 6, 2);
    if ((level >= 0 && lvl != level) || lvl > MAX_DEPTH)
        return NCSI_H5R_CORRUPT;
    if (n == 0)
        return NCS_NOERR;
    /* siblings, then n children each after its key */
    if ((status = ncsi_h5r_load(f, addr + 8 + 2 * (size_t)sa, (size_t)n * (sl + sa) + sl, &b)) !=
        NCS_NOERR)
        return status;
    for (unsigned i = 0; i < n && status == NCS_NOERR; i++) {
        uint64_t c = ncsi_h5r_addr(f, b + (size_t)i * (sl + sa) + sl);
        if (c == NCSI_H5R_UNDEF)
            status = NCSI_H5R_CORRUPT;
        else
            status = lvl == 0 ? sym_node(w, c) : sym_tree(w, c, lvl - 1);
    }
    free(b);
    return status;
}

int ncsi_h5r_symtab_links(const ncsi_h5r *f, uint64_t btree, uint64_t heap, ncsi_h5r_link **lp,
                          size_t *np)
{
    unsigned sa = f->info.sizeof_addr, sl = f->info.sizeof_size;
    unsigned char h[8 + 2 * 8 + 8];
    unsigned char *seg = NULL;
    uint64_t segsize, segaddr;
    symwalk w;
    int status;
    *lp = NULL;
    *np = 0;
    if ((status = ncsi_h5r_pread(f, heap, h, 8 + 2 * (size_t)sl + sa)) != NCS_NOERR)
        return status;
    if (memcmp(h, "HEAP", 4) != 0 || h[4] != 0)
        return NCSI_H5R_CORRUPT;
    segsize = ncsi_h5r_le(h + 8, sl);
    segaddr = ncsi_h5r_addr(f, h + 8 + 2 * sl);
    if (segsize == 0 || !ncsi_h5r_inside(f, segaddr, segsize))
        return NCSI_H5R_CORRUPT;
    if ((status = ncsi_h5r_load(f, segaddr, (size_t)segsize, &seg)) != NCS_NOERR)
        return status;
    memset(&w, 0, sizeof w);
    w.f = f;
    w.heap = seg;
    w.heap_size = segsize;
    /* each link has a name of at least a byte and a NUL in the heap */
    w.limit = (size_t)(segsize / 2 + 1);
    status = btree == NCSI_H5R_UNDEF ? NCSI_H5R_CORRUPT : sym_tree(&w, btree, -1);
    free(seg);
    if (status != NCS_NOERR) {
        ncsi_h5r_links_free(w.l, w.n);
        return status;
    }
    *lp = w.l;
    *np = w.n;
    return NCS_NOERR;
}

/* ---- the global heap ------------------------------------------------------------------
 * Collection: "GCOL", version 1, reserved (3), the collection's size L
 * (this header included); then objects: index (2; 0 is the free space,
 * which ends the list), reference count (2), reserved (4), size L, the
 * data padded to a multiple of 8 bytes. */

int ncsi_h5r_gheap_get(const ncsi_h5r *f, uint64_t addr, uint32_t idx, unsigned char **objp,
                       size_t *np)
{
    unsigned sl = f->info.sizeof_size;
    unsigned char h[16], *b = NULL;
    uint64_t size;
    size_t at;
    int status;
    *objp = NULL;
    *np = 0;
    if ((status = ncsi_h5r_pread(f, addr, h, 8 + sl)) != NCS_NOERR)
        return status;
    if (memcmp(h, "GCOL", 4) != 0 || h[4] != 1)
        return NCSI_H5R_CORRUPT;
    size = ncsi_h5r_le(h + 8, sl);
    if (size < 8 + (uint64_t)sl || !ncsi_h5r_inside(f, addr, size) || idx == 0)
        return NCSI_H5R_CORRUPT;
    if ((status = ncsi_h5r_load(f, addr, (size_t)size, &b)) != NCS_NOERR)
        return status;
    status = NCSI_H5R_CORRUPT;
    at = 8 + sl;
    while (at + 8 + sl <= size) {
        uint32_t oi = (uint32_t)ncsi_h5r_le(b + at, 2);
        uint64_t os = ncsi_h5r_le(b + at + 8, sl);
        if (oi == 0)
            break;
        if (os > size - at - 8 - sl)
            break;
        if (oi == idx) {
            if ((*objp = ncsi_malloc(os ? (size_t)os : 1)) == NULL) {
                status = NCS_ENOMEM;
                break;
            }
            memcpy(*objp, b + at + 8 + sl, (size_t)os);
            *np = (size_t)os;
            status = NCS_NOERR;
            break;
        }
        at += 8 + sl + (size_t)NCS_RNDUP(os, 8);
    }
    free(b);
    return status;
}
