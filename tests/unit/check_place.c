/*
 * check_place.c -- the engine's placement and transpose kernels, and the
 * mapped get built on them, against plain element-by-element references.
 *
 * Kernels: random slabs (rank 0..5, counts that make tiles and leftovers),
 * element sizes 1, 2, 4, 8, memory maps that permute, leave gaps and run
 * backwards, sources dense or strided (a store's view), byte-reversed or
 * not, whole or in pieces along ncsi_slab_pieces_dim: ncsi_slab_place_ref
 * must put every element where the test reckons it belongs, and
 * ncsi_slab_place and ncsi_slab_place_pieces must write the bytes it
 * writes, and nothing else (a pieces call that declines writes nothing).
 *
 * Mapped gets: ncsi_get_mapped over a synthetic store whose elements say
 * where they come from (their linear index in the variable), with strides,
 * plain reads or not, views that serve, decline at random or give their
 * pieces apart, and a read that reports NCS_ERANGE; the result is compared
 * with the test's own placement of every element.
 *
 * Usage: check_place [first-seed [seeds]]; a failure prints its seed.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"

#define MAXD 5

static uint64_t rng;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}
static uint64_t upto(uint64_t n) /* 0 .. n-1 */
{
    return next() % n;
}

/* The bytes of the element of linear index L, in host order. */
static void elem_bytes(uint64_t L, size_t esz, unsigned char *out)
{
    uint64_t v = (L + 1) * 0x9e3779b97f4a7c15ull;
    for (size_t k = 0; k < esz; k++)
        out[k] = (unsigned char)(v >> (8 * (k % 8))) ^ (unsigned char)k;
}

static void put_elem(unsigned char *dst, uint64_t L, size_t esz, int swap)
{
    unsigned char b[8];
    elem_bytes(L, esz, b);
    for (size_t k = 0; k < esz; k++)
        dst[k] = swap ? b[esz - 1 - k] : b[k];
}

/* Steps for counts cnt[0..nd-1], innermost in the order perm (perm[0]
 * varies fastest), with random gaps; negative ones where neg.  *lo and
 * *hi: the least and greatest offset reached. */
static void make_steps(int nd, const uint64_t *cnt, int neg, ptrdiff_t *step, ptrdiff_t *lo,
                       ptrdiff_t *hi)
{
    int perm[MAXD];
    ptrdiff_t acc = 1;
    for (int d = 0; d < nd; d++)
        perm[d] = nd - 1 - d;
    if (upto(2))
        for (int d = nd - 1; d > 0; d--) {
            int j = (int)upto((uint64_t)d + 1), t = perm[d];
            perm[d] = perm[j];
            perm[j] = t;
        }
    *lo = *hi = 0;
    for (int i = 0; i < nd; i++) {
        int d = perm[i];
        ptrdiff_t gap = upto(4) == 0 ? (ptrdiff_t)upto(3) : 0;
        step[d] = acc + (i > 0 ? gap : 0);
        acc = step[d] * (ptrdiff_t)cnt[d];
        if (neg && upto(3) == 0)
            step[d] = -step[d];
        if (step[d] < 0)
            *lo += step[d] * (ptrdiff_t)(cnt[d] - 1);
        else
            *hi += step[d] * (ptrdiff_t)(cnt[d] - 1);
    }
}

static int fail(uint64_t seed, const char *what)
{
    fprintf(stderr, "check_place: seed %llu: %s\n", (unsigned long long)seed, what);
    return 1;
}

static void random_counts(int nd, uint64_t *cnt, uint64_t budget)
{
    uint64_t n = 1;
    for (int d = 0; d < nd; d++) {
        uint64_t c;
        switch (upto(4)) {
        case 0: c = 1; break;
        case 1: c = 1 + upto(5); break;
        case 2: c = 1 + upto(20); break;
        default: c = 1 + upto(70); break;
        }
        while (c > 1 && n * c > budget)
            c /= 2;
        cnt[d] = c;
        n *= c;
    }
}

/* ---- kernels ---------------------------------------------------------------- */

static int one_kernel(uint64_t seed)
{
    static const size_t sizes[] = {1, 2, 4, 8};
    int nd = (int)upto(MAXD + 1), neg = (int)upto(2), strided = (int)upto(2), status = 0;
    size_t esz = sizes[upto(4)];
    int swap = esz > 1 && upto(2);
    uint64_t cnt[MAXD], n = 1;
    ptrdiff_t fstep[MAXD], mlo, mhi, flo, fhi;
    ptrdiff_t pstep[MAXD];
    uint64_t idx[MAXD] = {0};
    unsigned char *from, *got, *want;
    size_t mbytes, fbytes;
    ncs_slab s;
    int pd, ret;

    rng = seed * 0x2545f4914f6cdd1dull + 7;
    random_counts(nd, cnt, 30000);
    if (ncsi_slab_init(&s, nd) != NCS_NOERR)
        return fail(seed, "slab_init");
    for (int d = 0; d < nd; d++) {
        s.count[d] = cnt[d];
        s.start[d] = 0;
        s.stride[d] = 1;
        n *= cnt[d];
    }
    s.nelems = n;
    s.isrec = 0;
    make_steps(nd, cnt, neg, s.imap, &mlo, &mhi);
    if (strided)
        make_steps(nd, cnt, 0, fstep, &flo, &fhi);
    else {
        ptrdiff_t acc = 1;
        for (int d = nd - 1; d >= 0; d--) {
            fstep[d] = acc;
            acc *= (ptrdiff_t)cnt[d];
        }
        flo = 0;
        fhi = acc - 1;
    }
    mbytes = (size_t)(mhi - mlo + 1) * esz;
    fbytes = (size_t)(fhi - flo + 1) * esz;
    from = calloc(fbytes, 1);
    got = malloc(mbytes);
    want = malloc(mbytes);
    if (from == NULL || got == NULL || want == NULL) {
        status = fail(seed, "out of memory");
        goto done;
    }
    /* the source: each element says which one it is (in natural order) */
    for (uint64_t i = 0; i < n; i++) {
        ptrdiff_t off = 0;
        for (int d = 0; d < nd; d++)
            off += (ptrdiff_t)idx[d] * fstep[d];
        put_elem(from + off * (ptrdiff_t)esz, i, esz, swap);
        for (int d = nd - 1; d >= 0; d--) {
            if (++idx[d] < cnt[d])
                break;
            idx[d] = 0;
        }
    }
    /* where each element belongs, by the test's own reckoning */
    memset(want, 0xA5, mbytes);
    memset(idx, 0, sizeof idx);
    for (uint64_t i = 0; i < n; i++) {
        ptrdiff_t mo = 0;
        for (int d = 0; d < nd; d++)
            mo += (ptrdiff_t)idx[d] * s.imap[d];
        put_elem(want + (mo - mlo) * (ptrdiff_t)esz, i, esz, 0);
        for (int d = nd - 1; d >= 0; d--) {
            if (++idx[d] < cnt[d])
                break;
            idx[d] = 0;
        }
    }
    memset(got, 0xA5, mbytes);
    ret = ncsi_slab_place_ref(&s, from, strided ? fstep : NULL, swap, got - mlo * (ptrdiff_t)esz,
                              esz);
    if (ret != NCS_NOERR || memcmp(got, want, mbytes) != 0) {
        status = fail(seed, "ncsi_slab_place_ref misplaces");
        goto done;
    }
    memset(got, 0xA5, mbytes);
    ret = ncsi_slab_place(&s, from, strided ? fstep : NULL, swap, got - mlo * (ptrdiff_t)esz,
                          esz);
    if (ret != NCS_NOERR || memcmp(got, want, mbytes) != 0) {
        fprintf(stderr, "check_place: rank %d esz %zu swap %d strided %d counts", nd, esz, swap,
                strided);
        for (int d = 0; d < nd; d++)
            fprintf(stderr, " %llu/%td/%td", (unsigned long long)cnt[d], s.imap[d], fstep[d]);
        fprintf(stderr, "\n");
        status = fail(seed, "ncsi_slab_place differs from the reference");
        goto done;
    }

    /* in pieces: index i of dimension pd from a buffer of its own */
    pd = ncsi_slab_pieces_dim(&s);
    if (pd >= 0) {
        unsigned char **pieces = calloc((size_t)cnt[pd], sizeof *pieces);
        size_t pbytes;
        ptrdiff_t plo = 0, phi = 0;
        if (pieces == NULL) {
            status = fail(seed, "out of memory");
            goto done;
        }
        for (int d = 0; d < nd; d++) {
            pstep[d] = d == pd ? PTRDIFF_MAX / 4 : fstep[d];  /* unused for pd */
            if (d != pd)
                phi += fstep[d] * (ptrdiff_t)(cnt[d] - 1);
        }
        pbytes = (size_t)(phi - plo + 1) * esz;
        for (uint64_t i = 0; i < cnt[pd] && status == 0; i++) {
            pieces[i] = calloc(pbytes, 1);
            if (pieces[i] == NULL)
                status = fail(seed, "out of memory");
        }
        memset(idx, 0, sizeof idx);
        for (uint64_t i = 0; i < n && status == 0; i++) {
            ptrdiff_t off = 0;
            for (int d = 0; d < nd; d++)
                if (d != pd)
                    off += (ptrdiff_t)idx[d] * fstep[d];
            put_elem(pieces[idx[pd]] + off * (ptrdiff_t)esz, i, esz, swap);
            for (int d = nd - 1; d >= 0; d--) {
                if (++idx[d] < cnt[d])
                    break;
                idx[d] = 0;
            }
        }
        if (status == 0) {
            memset(got, 0xA5, mbytes);
            ret = ncsi_slab_place_pieces(&s, pd, (const unsigned char *const *)pieces, pstep,
                                         swap, got - mlo * (ptrdiff_t)esz, esz);
            if (ret == NCSI_DECLINED) {
                for (size_t k = 0; k < mbytes && status == 0; k++)
                    if (got[k] != 0xA5)
                        status = fail(seed, "a declined ncsi_slab_place_pieces wrote");
            } else if (ret != NCS_NOERR || memcmp(got, want, mbytes) != 0) {
                status = fail(seed, "ncsi_slab_place_pieces differs from the reference");
            }
        }
        for (uint64_t i = 0; i < cnt[pd]; i++)
            free(pieces[i]);
        free(pieces);
    }
done:
    free(from);
    free(got);
    free(want);
    ncsi_slab_release(&s);
    return status;
}

/* ---- mapped gets -------------------------------------------------------------- */

typedef struct store {
    int nd;
    size_t esz;
    uint64_t shape[MAXD];
    uint64_t dsize[MAXD];         /* elements between indices of dimension d */
    unsigned char *bytes;         /* every element, as the "file" holds it */
    int swap;                     /* the file's order is not the host's */
    int decline;                  /* views decline one in this many (0: never) */
    int apart;                    /* views give each piece its own pointer */
    int erange;                   /* the first read reports NCS_ERANGE */
    unsigned char *apart_buf;     /* the pieces of the last view given apart */
    int reads, views, bad;
} store;

static uint64_t lin(const store *st, const uint64_t *coord)
{
    uint64_t L = 0;
    for (int d = 0; d < st->nd; d++)
        L += coord[d] * st->dsize[d];
    return L;
}

static int fake_read(void *ctx, const ncs_slab *p, const size_t *pst, const size_t *pct,
                     void *dense)
{
    store *st = ctx;
    uint64_t idx[MAXD] = {0}, c[MAXD];
    unsigned char *out = dense;
    ptrdiff_t natural = 1;
    /* the piece is in natural order, and pst/pct are its start and count */
    for (int d = st->nd - 1; d >= 0; d--) {
        if (p->count[d] > 1 && p->imap[d] != natural)
            st->bad = 1;
        natural *= (ptrdiff_t)p->count[d];
        if (pst != NULL && (pst[d] != p->start[d] || pct[d] != p->count[d] || p->stride[d] != 1))
            st->bad = 1;
    }
    for (uint64_t i = 0; i < p->nelems; i++) {
        for (int d = 0; d < st->nd; d++)
            c[d] = p->start[d] + idx[d] * p->stride[d];
        put_elem(out + i * st->esz, lin(st, c), st->esz, 0);
        for (int d = st->nd - 1; d >= 0; d--) {
            if (++idx[d] < p->count[d])
                break;
            idx[d] = 0;
        }
    }
    return st->reads++ == 0 && st->erange ? NCS_ERANGE : NCS_NOERR;
}

/* What a store's view slot gives: where the piece's elements lie. */
static int fake_view(store *st, const size_t *pst, const size_t *pct, int pd,
                     const unsigned char **from, int *apart, ptrdiff_t *bstep, int *swap)
{
    uint64_t c[MAXD];
    st->views++;
    if (st->decline && upto((uint64_t)st->decline) == 0)
        return NCSI_DECLINED;
    for (int d = 0; d < st->nd; d++) {
        c[d] = pst[d];
        bstep[d] = (ptrdiff_t)(st->dsize[d] * st->esz);
    }
    from[0] = st->bytes + lin(st, c) * st->esz;
    *apart = st->apart && pd >= 0;
    if (*apart) {
        /* each piece copied on its own, between poisoned gaps, so that
         * only the pointers find them */
        uint64_t span = 1, gap = 3;
        unsigned char *nb;
        for (int d = 0; d < st->nd; d++)
            if (d != pd)
                span += (pct[d] - 1) * st->dsize[d];
        nb = realloc(st->apart_buf, (size_t)(pct[pd] * (span + gap) * st->esz));
        if (nb == NULL) {
            st->bad = 1;
            return NCSI_DECLINED;
        }
        st->apart_buf = nb;
        memset(nb, 0x5A, (size_t)(pct[pd] * (span + gap) * st->esz));
        for (size_t i = 0; i < pct[pd]; i++) {
            c[pd] = pst[pd] + i;
            from[i] = nb + i * (span + gap) * st->esz;
            memcpy(nb + i * (span + gap) * st->esz, st->bytes + lin(st, c) * st->esz,
                   (size_t)(span * st->esz));
        }
    }
    *swap = st->swap;
    return NCS_NOERR;
}

/* What the API layer does with it, for ncsi_get_mapped. */
static int fake_place_view(void *ctx, const ncs_slab *p, const size_t *pst, const size_t *pct,
                           void *buf, unsigned char *scratch, size_t nscratch)
{
    store *st = ctx;
    ncsi_view v;
    int pd = ncsi_slab_pieces_dim(p);
    (void)scratch;
    (void)nscratch;
    for (int d = 0; d < st->nd; d++)
        if (pst[d] != p->start[d] || pct[d] != p->count[d] || p->stride[d] != 1)
            st->bad = 1;
    if ((pd >= 0 && pct[pd] > NCSI_VIEW_MAX) ||
        fake_view(st, pst, pct, pd, v.from, &v.apart, v.bstep, &v.swap) != NCS_NOERR)
        return NCSI_DECLINED;
    return ncsi_place_viewed(p, pd, &v, buf, st->esz);
}

static int one_mapped(uint64_t seed)
{
    static const size_t sizes[] = {1, 2, 4, 8};
    store st;
    ncsi_mapped_src src;
    ncs_slab s;
    uint64_t cnt[MAXD], n = 1, total = 1, idx[MAXD] = {0}, c[MAXD];
    ptrdiff_t mlo, mhi;
    unsigned char *got = NULL, *want = NULL;
    size_t mbytes;
    int status = 0, nd, ret, expect;

    rng = seed * 0x9e3779b97f4a7c15ull + 3;
    memset(&st, 0, sizeof st);
    nd = 1 + (int)upto(MAXD);
    st.nd = nd;
    st.esz = sizes[upto(4)];
    st.swap = st.esz > 1 && upto(2);
    st.decline = (int)upto(4);
    st.apart = (int)upto(2);
    st.erange = upto(4) == 0;
    random_counts(nd, cnt, upto(2) ? 4000 : 150000);
    if (ncsi_slab_init(&s, nd) != NCS_NOERR)
        return fail(seed, "slab_init");
    s.isrec = 0;
    for (int d = 0; d < nd; d++) {
        s.count[d] = cnt[d];
        s.stride[d] = upto(3) == 0 ? 1 + upto(3) : 1;
        s.start[d] = upto(3);
        st.shape[d] = s.start[d] + (cnt[d] - 1) * s.stride[d] + 1 + upto(2);
        n *= cnt[d];
    }
    for (int d = nd - 1; d >= 0; d--) {
        st.dsize[d] = total;
        total *= st.shape[d];
    }
    s.nelems = n;
    make_steps(nd, cnt, (int)upto(2), s.imap, &mlo, &mhi);
    mbytes = (size_t)(mhi - mlo + 1) * st.esz;
    st.bytes = malloc(total * st.esz);
    got = malloc(mbytes);
    want = malloc(mbytes);
    if (st.bytes == NULL || got == NULL || want == NULL) {
        status = fail(seed, "out of memory");
        goto done;
    }
    for (uint64_t L = 0; L < total; L++)
        put_elem(st.bytes + L * st.esz, L, st.esz, st.swap);
    memset(got, 0xA5, mbytes);
    memset(want, 0xA5, mbytes);
    for (uint64_t i = 0; i < n; i++) {
        ptrdiff_t mo = 0;
        for (int d = 0; d < nd; d++) {
            c[d] = s.start[d] + idx[d] * s.stride[d];
            mo += (ptrdiff_t)idx[d] * s.imap[d];
        }
        put_elem(want + (mo - mlo) * (ptrdiff_t)st.esz, lin(&st, c), st.esz, 0);
        for (int d = nd - 1; d >= 0; d--) {
            if (++idx[d] < cnt[d])
                break;
            idx[d] = 0;
        }
    }
    src.ctx = &st;
    src.read = fake_read;
    src.place_view = upto(3) ? fake_place_view : NULL;
    src.plain = upto(4) != 0;
    src.page = upto(2) ? 65536 : 4096;
    ret = ncsi_get_mapped(&s, st.esz, &src, got - mlo * (ptrdiff_t)st.esz);
    expect = st.erange && st.reads > 0 ? NCS_ERANGE : NCS_NOERR;
    if (ret != expect) {
        fprintf(stderr, "check_place: ncsi_get_mapped returned %d, not %d\n", ret, expect);
        status = fail(seed, "mapped get status");
    } else if (st.bad) {
        status = fail(seed, "mapped get asked its source for a bad piece");
    } else if (memcmp(got, want, mbytes) != 0) {
        fprintf(stderr, "check_place: rank %d esz %zu swap %d view %d plain %d counts", nd,
                st.esz, st.swap, src.place_view != NULL, src.plain);
        for (int d = 0; d < nd; d++)
            fprintf(stderr, " %llu/%llu/%td", (unsigned long long)cnt[d],
                    (unsigned long long)s.stride[d], s.imap[d]);
        fprintf(stderr, "\n");
        status = fail(seed, "ncsi_get_mapped placed differently");
    }
done:
    free(st.bytes);
    free(st.apart_buf);
    free(got);
    free(want);
    ncsi_slab_release(&s);
    return status;
}

int main(int argc, char **argv)
{
    uint64_t first = argc > 1 ? strtoull(argv[1], NULL, 0) : 1;
    uint64_t nseeds = argc > 2 ? strtoull(argv[2], NULL, 0) : 4000;
    int fails = 0;
    for (uint64_t k = 0; k < nseeds && fails < 5; k++) {
        fails += one_kernel(first + k);
        fails += one_mapped(first + k);
    }
    printf("check_place: %llu seeds from %llu, %d failing\n", (unsigned long long)nseeds,
           (unsigned long long)first, fails);
    return fails ? 1 : 0;
}
