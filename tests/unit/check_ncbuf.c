/*
 * check_ncbuf.c -- lib/store/classic/classic_ncbuf.c's shortcuts against its plain
 * piece-by-piece path.  classic.c skips a one-element read the buffer
 * holds and has counted (ncsi_ncbuf_read_quiet), and hands other data
 * requests to the model through ncsi_ncbuf_inside (a request the buffer's
 * window holds) or as one span (whose runs of steady pieces are skipped).
 * The same requests cut into pieces of at most a block and fed one at a
 * time must leave the same model: buffer, counts, flags, file length,
 * stale bytes held, and the same reads and write-backs of stale bytes, in
 * the same order.  Random request sequences over small and large files,
 * aligned and not, reads and writes, with syncs and record-count writes
 * between them.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classic.h"

#define BS 8192u
#define LOGMAX 4096

typedef struct side {
    ncs_ncbuf b;
    uint64_t log[LOGMAX][3];   /* kind, offset, length or checksum */
    size_t nlog;
} side;

static void note(side *s, uint64_t kind, uint64_t off, uint64_t val)
{
    if (s->nlog < LOGMAX) {
        s->log[s->nlog][0] = kind;
        s->log[s->nlog][1] = off;
        s->log[s->nlog][2] = val;
    }
    s->nlog++;
}

/* the back end's file: a byte that says where it is */
static int rd(void *ctx, uint64_t off, unsigned char *buf, size_t n)
{
    note(ctx, 1, off, n);
    for (size_t i = 0; i < n; i++)
        buf[i] = (unsigned char)((off + i) * 131 >> 3);
    return 0;
}

static int stale(void *ctx, uint64_t off, const unsigned char *bytes, size_t n)
{
    uint64_t sum = n;
    for (size_t i = 0; i < n; i++)
        sum = sum * 1000003u + bytes[i];
    note(ctx, 2, off, sum);
    return 0;
}

static uint64_t rng(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static void fast_feed(ncs_ncbuf *b, uint64_t off, uint64_t n, int write)
{
    if (!write && n <= BS && ncsi_ncbuf_read_quiet(b, off, n))
        return;
    if (!ncsi_ncbuf_inside(b, off, n, write))
        ncsi_ncbuf_span(b, off, n, write);
}

static void plain_feed(ncs_ncbuf *b, uint64_t off, uint64_t n, int write)
{
    while (n > 0) {
        uint64_t k = n < BS ? n : BS;
        ncsi_ncbuf_span(b, off, k, write);
        off += k;
        n -= k;
    }
}

static int same(const side *a, const side *p, char *why, size_t wn)
{
    const ncs_ncbuf *x = &a->b, *y = &p->b;
    if (x->off != y->off || x->ext != y->ext || x->cnt != y->cnt || x->rflags != y->rflags ||
        x->flen != y->flen || x->err != y->err) {
        snprintf(why, wn, "state off %llu/%llu ext %llu/%llu cnt %llu/%llu flags %d/%d "
                 "flen %llu/%llu", (unsigned long long)x->off, (unsigned long long)y->off,
                 (unsigned long long)x->ext, (unsigned long long)y->ext,
                 (unsigned long long)x->cnt, (unsigned long long)y->cnt, x->rflags, y->rflags,
                 (unsigned long long)x->flen, (unsigned long long)y->flen);
        return 0;
    }
    if ((x->known == NULL) != (y->known == NULL) ||
        (x->known != NULL && memcmp(x->known, y->known, 2 * BS) != 0)) {
        snprintf(why, wn, "stale cells held differ");
        return 0;
    }
    for (size_t i = 0; x->known != NULL && i < 2 * BS; i++)
        if (x->known[i] && x->mem[i] != y->mem[i]) {
            snprintf(why, wn, "stale byte %zu differs", i);
            return 0;
        }
    if (a->nlog != p->nlog || memcmp(a->log, p->log, sizeof a->log[0] *
                                     (a->nlog < LOGMAX ? a->nlog : LOGMAX)) != 0) {
        snprintf(why, wn, "reads or write-backs differ (%zu/%zu)", a->nlog, p->nlog);
        return 0;
    }
    return 1;
}

static int one_seed(uint64_t seed)
{
    static side a, p;
    uint64_t s = seed * 0x9e3779b97f4a7c15ull + 1, nblocks;
    char why[256];
    int version = rng(&s) % 2 ? 1 : 5;
    memset(&a, 0, sizeof a);
    memset(&p, 0, sizeof p);
    ncsi_ncbuf_create(&a.b, BS, 0, version);
    ncsi_ncbuf_create(&p.b, BS, 0, version);
    /* small files (the header's windows matter) and large ones */
    nblocks = rng(&s) % 3 == 0 ? 2 + rng(&s) % 4 : 8 + rng(&s) % 120;
    a.b.flen = p.b.flen = rng(&s) % (nblocks * BS);
    a.b.ctx = &a;
    p.b.ctx = &p;
    a.b.read = p.b.read = rd;
    a.b.stale = p.b.stale = stale;
    for (int step = 0; step < 300; step++) {
        uint64_t r = rng(&s) % 100, off, n;
        int write = rng(&s) % 2;
        if (r < 3) {
            ncsi_ncbuf_sync(&a.b);
            ncsi_ncbuf_sync(&p.b);
        } else if (r < 6) {
            ncsi_ncbuf_numrecs(&a.b, version);
            ncsi_ncbuf_numrecs(&p.b, version);
        } else {
            off = rng(&s) % (nblocks * BS);
            if (rng(&s) % 2)
                off -= off % BS;             /* aligned pieces */
            else if (rng(&s) % 2)
                off -= off % 4;
            n = rng(&s) % 4 == 0 ? 1 + rng(&s) % 64 : 1 + rng(&s) % (12 * BS);
            if (rng(&s) % 3 == 0)
                n = (1 + rng(&s) % 12) * BS;     /* whole blocks */
            fast_feed(&a.b, off, n, write);
            plain_feed(&p.b, off, n, write);
        }
        if (!same(&a, &p, why, sizeof why)) {
            fprintf(stderr, "check_ncbuf: seed %llu step %d: %s\n", (unsigned long long)seed,
                    step, why);
            return 1;
        }
    }
    ncsi_ncbuf_free(&a.b);
    ncsi_ncbuf_free(&p.b);
    return 0;
}

int main(int argc, char **argv)
{
    uint64_t first = argc > 1 ? strtoull(argv[1], NULL, 0) : 1;
    uint64_t nseeds = argc > 2 ? strtoull(argv[2], NULL, 0) : 400;
    int fails = 0;
    for (uint64_t k = 0; k < nseeds && fails < 5; k++)
        fails += one_seed(first + k);
    printf("check_ncbuf: %llu seeds from %llu, %d failing\n", (unsigned long long)nseeds,
           (unsigned long long)first, fails);
    return fails ? 1 : 0;
}
