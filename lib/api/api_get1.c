/*
 * api_get1.c -- ncs_get1 and ncs_get1_long: one element, the call a scan
 * makes once a cell, so its common case is a handful of instructions.
 *
 * The common case is an index inside the get1 memo (store.h): the box of
 * indices whose elements lie in memory the back end holds.  When a back
 * end has filled the memo, get1_asking arms it: it picks the memo's
 * readers, one pair per element kind (1, 2, 4, 8 bytes, native or
 * big-endian) and box shape (rank 1 or 2 with the last dimension's
 * elements adjacent, which is every grid; anything else up to
 * NCSI_MEMO_DIMS), and then sets the key.  An entry then checks only what
 * the memo cannot stand for (the ncid's slot, the varid against the key,
 * the memory type, the NULL pointers) and jumps to the reader, which
 * tests the box, copies the element and returns.  A reader hands an index
 * outside the box to the entry's general path, with the entry's own
 * arguments, so neither side needs a stack frame.
 *
 * Invariants: a memo with a key has readers that match its kind, rank
 * and strides (memo_arm sets them together, and ncsi_memo_set never
 * touches the key); every check the general path makes is either repeated
 * here or implied by the key (the back end filled the memo for this
 * variable, in data mode, with its own type).  With the fast paths off
 * (NCSLAB_FASTPATH=0) nfast is 0, no back end's get1 runs and no memo is
 * ever armed.
 */
#include "api.h"

#include <string.h>

_Static_assert(sizeof(long) == sizeof(size_t), "a long index is read as a size_t one");

/* ncs_get1 past its memo: straight to the back end in the common case,
 * in the variable's own type (the back end falls back to
 * ncsi_get1_general), arming the memo the back end filled; anything
 * unusual takes the general path and its checks.  Out of line, with
 * ncs_get1's arguments, so that the hit needs no stack frame and a miss
 * no moves. */
static __attribute__((noinline)) int get1_asking(int ncid, int varid, const size_t *index,
                                                 int memtype, void *buf);

/* ncs_get1_long past its memo. */
static __attribute__((noinline)) int get1_long_asking(int ncid, int varid, const long *index,
                                                      ncs_get1_failure *fail, void *buf)
{
    int status = get1_asking(ncid, varid, (const size_t *)index, NCS_NAT, buf);
    if (status == NCS_NOERR || fail == NULL)
        return status;
    return fail(ncid, varid, status);
}

/* ---- the readers ------------------------------------------------------------------------ */

enum { SHAPE_1, SHAPE_2, SHAPE_ANY, NSHAPES };   /* rank 1 or 2 with adjacent elements */

/* Whether index is inside the box, and then *pp its element's address.
 * shape and esz are constants in every reader, so each gets its own
 * straight code. */
static inline __attribute__((always_inline)) int
memo_find(const ncs_get1_memo *m, const size_t *index, int shape, size_t esz,
          const unsigned char **pp)
{
    if (shape == SHAPE_1) {
        uint64_t r0 = index[0] - m->lo[0];           /* wraps when below */
        if (r0 >= m->ext[0])
            return 0;
        *pp = m->base + r0 * esz;
        return 1;
    }
    if (shape == SHAPE_2) {
        /* one test of both bounds: a hit is a single branch not taken */
        uint64_t r0 = index[0] - m->lo[0], r1 = index[1] - m->lo[1];
        if ((r0 >= m->ext[0]) | (r1 >= m->ext[1]))
            return 0;
        *pp = m->base + r0 * m->bstride[0] + r1 * esz;
        return 1;
    }
    const unsigned char *p = m->base;
    for (int d = 0; d < m->nd; d++) {
        uint64_t rel = index[d] - m->lo[d];
        if (rel >= m->ext[d])
            return 0;
        p += rel * m->bstride[d];
    }
    *pp = p;
    return 1;
}

/* Copies the element at p to buf, in native byte order; kind as the
 * memo's (a constant in every reader). */
static inline __attribute__((always_inline)) void memo_copy(void *buf, const unsigned char *p,
                                                            int kind)
{
    switch (kind) {
    case 1: memcpy(buf, p, 1); break;
    case 2: memcpy(buf, p, 2); break;
    case 4: memcpy(buf, p, 4); break;
    case 8: memcpy(buf, p, 8); break;
    case NCSI_MEMO_2S: { uint16_t u; memcpy(&u, p, 2); u = ncsi_be16(u); memcpy(buf, &u, 2); break; }
    case NCSI_MEMO_4S: { uint32_t u; memcpy(&u, p, 4); u = ncsi_be32(u); memcpy(buf, &u, 4); break; }
    default: { uint64_t u; memcpy(&u, p, 8); u = ncsi_be64(u); memcpy(buf, &u, 8); break; }
    }
}

/* The two readers of one kind and shape.  Their ncid and varid are the
 * memo's own (the entry compared them), so a miss takes them from the memo
 * and the readers may use those registers; they are arguments only so
 * that the others stay where the entry got them. */
#define MEMO_READERS(name, shape, kind)                                                        \
    static int name(int ncid, int varid, const size_t *index, int memtype, void *buf,          \
                    const ncs_get1_memo *m)                                                    \
    {                                                                                          \
        const unsigned char *p;                                                                \
        (void)ncid, (void)varid;                                                               \
        if (NCSI_UNLIKELY(!memo_find(m, index, (shape), (kind) < 0 ? -(kind) : (kind), &p)))  \
            return get1_asking(m->ncid, (int)m->key, index, memtype, buf);                     \
        memo_copy(buf, p, (kind));                                                             \
        return NCS_NOERR;                                                                      \
    }                                                                                          \
    static int name##_long(int ncid, int varid, const long *index, ncs_get1_failure *fail,     \
                           void *buf, const ncs_get1_memo *m)                                  \
    {                                                                                          \
        const unsigned char *p;                                                                \
        (void)ncid, (void)varid;                                                               \
        if (NCSI_UNLIKELY(!memo_find(m, (const size_t *)index, (shape), (kind) < 0 ? -(kind) : (kind), \
                                     &p)))                                                  \
            return get1_long_asking(m->ncid, (int)m->key, index, fail, buf);                   \
        memo_copy(buf, p, (kind));                                                             \
        return NCS_NOERR;                                                                      \
    }

/* Every shape of one kind, and their row of the table. */
#define MEMO_KIND(tag, kind)                                                                   \
    MEMO_READERS(read1_##tag, SHAPE_1, kind)                                                   \
    MEMO_READERS(read2_##tag, SHAPE_2, kind)                                                   \
    MEMO_READERS(readn_##tag, SHAPE_ANY, kind)
#define MEMO_ROW(tag)                                                                          \
    { { read1_##tag, read1_##tag##_long }, { read2_##tag, read2_##tag##_long },                \
      { readn_##tag, readn_##tag##_long } }

MEMO_KIND(1, 1)
MEMO_KIND(2, 2)
MEMO_KIND(4, 4)
MEMO_KIND(8, 8)
MEMO_KIND(2s, NCSI_MEMO_2S)
MEMO_KIND(4s, NCSI_MEMO_4S)
MEMO_KIND(8s, NCSI_MEMO_8S)

enum { K1, K2, K4, K8, K2S, K4S, K8S, NKINDS };
static const struct {
    ncsi_memo_reader *get1;
    ncsi_memo_reader_long *get1_long;
} readers[NKINDS][NSHAPES] = {
    [K1] = MEMO_ROW(1), [K2] = MEMO_ROW(2), [K4] = MEMO_ROW(4), [K8] = MEMO_ROW(8),
    [K2S] = MEMO_ROW(2s), [K4S] = MEMO_ROW(4s), [K8S] = MEMO_ROW(8s),
};

/* Gives the memo the back end filled its readers, then its key. */
static void memo_arm(ncs_get1_memo *m, int ncid)
{
    int k, shape;
    uint64_t esz = (uint64_t)(m->kind < 0 ? -m->kind : m->kind);
    switch (m->kind) {
    case 1: k = K1; break;
    case 2: k = K2; break;
    case 4: k = K4; break;
    case 8: k = K8; break;
    case NCSI_MEMO_2S: k = K2S; break;
    case NCSI_MEMO_4S: k = K4S; break;
    default: NCSI_ASSERT(m->kind == NCSI_MEMO_8S); k = K8S; break;
    }
    NCSI_ASSERT(m->nd >= 0 && m->nd <= NCSI_MEMO_DIMS);
    if (m->nd == 1 && m->bstride[0] == esz)
        shape = SHAPE_1;
    else if (m->nd == 2 && m->bstride[1] == esz)
        shape = SHAPE_2;
    else
        shape = SHAPE_ANY;
    m->read = readers[k][shape].get1;
    m->read_long = readers[k][shape].get1_long;
    m->ncid = ncid;
    m->key = m->filled;
}

static __attribute__((noinline)) int get1_asking(int ncid, int varid, const size_t *index,
                                                 int memtype, void *buf)
{
    ncs_file *f = ncsi_file_get(ncid);
    if (f != NULL && (unsigned)varid < (unsigned)f->nfast && index != NULL && buf != NULL &&
        (memtype == NCS_NAT || memtype == f->model.vars[varid].type)) {
        int status;
        f->memo.filled = NCSI_MEMO_EMPTY;
        status = ncsi_store_get1(f, varid, index, buf);
        if (status == NCS_NOERR && f->memo.filled == varid)
            memo_arm(&f->memo, ncid);
        return status;
    }
    return ncsi_get1_checked(ncid, varid, index, memtype, buf);
}

/* ---- the entries ------------------------------------------------------------------------ */

int ncs_get1(int ncid, int varid, const size_t *index, int memtype, void *buf)
{
    const ncs_file *f = ncsi_file_get(ncid);
    /* an armed memo stands for every other check of the general path */
    if (NCSI_LIKELY(f != NULL && varid == f->memo.key &&
                    ((memtype == f->memo.type) | (memtype == NCS_NAT)) && index != NULL &&
                    buf != NULL))
        return f->memo.read(ncid, varid, index, memtype, buf, &f->memo);
    return get1_asking(ncid, varid, index, memtype, buf);
}

int ncs_get1_long(int ncid, int varid, const long *index, ncs_get1_failure *fail, void *buf)
{
    const ncs_file *f = ncsi_file_get(ncid);
    if (NCSI_LIKELY(f != NULL && varid == f->memo.key && index != NULL && buf != NULL))
        return f->memo.read_long(ncid, varid, index, fail, buf, &f->memo);
    return get1_long_asking(ncid, varid, index, fail, buf);
}
