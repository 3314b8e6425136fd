/*
 * copy_data.c -- moving the values, and reading them back to compare.
 *
 * Each variable is copied in slabs: hyperslabs of at most `budget` bytes,
 * visited in row-major order.  A slab is made of whole *units*: the output's
 * chunks when the output is chunked, else the input's chunks when the input
 * is, else single elements.  With output chunks as units every output chunk
 * lies inside one slab, so it is written whole, once, and leaves the chunk
 * cache encoded without ever being read back; with input chunks as units
 * every input chunk is decoded once.  A slab grows from the innermost
 * dimension outwards: a dimension is taken whole while the slab still fits,
 * else as many units as fit, and the dimensions outside it stay one unit
 * deep.  Only when a single unit exceeds the budget is it cut (outer
 * dimensions first), and the chunk cache then gathers that chunk's parts.
 *
 * Memory: one slab buffer (two when verifying, half the budget each) plus
 * the chunk cache main() sized.
 */
#include "copy.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct {
    int on;
    const char *phase;
    unsigned long long total, done;
    double last;
    int shown;                    /* percentage on the screen */
} progress;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void bar(progress *p, const char *var, int final)
{
    enum { WIDTH = 30 };
    char cells[WIDTH + 1];
    int pct, fill;
    double t;
    if (!p->on)
        return;
    pct = p->total == 0 ? 100 : (int)(p->done * 100 / p->total);
    t = now();
    if (!final && pct == p->shown && t - p->last < 0.2)
        return;
    p->last = t;
    p->shown = pct;
    fill = pct * WIDTH / 100;
    memset(cells, '#', (size_t)fill);
    memset(cells + fill, '.', (size_t)(WIDTH - fill));
    cells[WIDTH] = '\0';
    fprintf(stderr, "\r%s: %-6s [%s] %3d%% %-20.20s%s", COPY_PROG, p->phase, cells,
            pct, final ? "" : var, final ? "\n" : "");
    fflush(stderr);
}

/* A variable's shape (the record count for the record dimension), element
 * size and element count (0 when some dimension is empty). */
typedef struct {
    char name[NCS_MAX_NAME + 1];
    int xtype, nd, rec;         /* rec: a record variable */
    size_t esize, nelems;
    size_t len[NCS_MAX_VAR_DIMS];
} var_shape;

static int get_shape(int ncid, int varid, var_shape *vs)
{
    int dimids[NCS_MAX_VAR_DIMS], unlim = -1;
    int status = ncs_inq_var(ncid, varid, vs->name, &vs->xtype, &vs->nd, dimids, NULL);
    if (status == NCS_NOERR)
        status = ncs_inq_type_size(vs->xtype, &vs->esize);
    if (status == NCS_NOERR)
        status = ncs_inq_unlimdim(ncid, &unlim);
    vs->rec = vs->nd > 0 && dimids[0] == unlim;
    vs->nelems = 1;
    for (int d = 0; status == NCS_NOERR && d < vs->nd; d++) {
        status = ncs_inq_dimlen(ncid, dimids[d], &vs->len[d]);
        vs->nelems *= vs->len[d];
    }
    return status;
}

/* The unit a slab is made of, for variable v (see the top of the file),
 * and the slab size to aim at within the budget.  Between the read and the
 * write a slab of SLAB_TARGET stays in the processor's caches (a 200 MB
 * classic to netCDF-4 copy took 0.40-0.55 s in 128 MiB slabs, 0.34-0.41 s
 * in 8 MiB ones).  When the input's chunks differ from the output's, the
 * slab aims at the smallest block of whole output chunks that is also made
 * of whole input chunks (per dimension the least common multiple of the
 * two lengths, at most the dimension's), so that a slab reads each input
 * chunk it touches whole, once, and the next slab none of them again: a
 * slab of the whole budget instead spent its time faulting in a buffer
 * larger than the processor's caches (rechunking 333 MB from 32 x 36 x 36
 * chunks to 1 x 360 x 720 ones at -m 256M, that is in 128 MiB slabs: 0.67
 * s of processor time; in 33 MB slabs 0.26 s; scripts/copybench). */
#define SLAB_TARGET ((size_t)8 << 20)

static size_t gcd(size_t a, size_t b)
{
    while (b != 0) {
        size_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* The bytes of the least block of whole chunks of both shapes, or 0 when
 * it passes `cap`. */
static size_t common_block(const var_shape *vs, const size_t *a, const size_t *b,
                           size_t cap)
{
    size_t bytes = vs->esize;
    for (int d = 0; d < vs->nd; d++) {
        size_t x = a[d] < vs->len[d] ? a[d] : vs->len[d];
        size_t y = b[d] < vs->len[d] ? b[d] : vs->len[d];
        size_t l;
        if (x == 0 || y == 0)
            return 0;
        l = x / gcd(x, y);
        l = l > vs->len[d] / y ? vs->len[d] : l * y;
        if (l > vs->len[d])
            l = vs->len[d];
        if (l != 0 && bytes > cap / l)
            return 0;
        bytes *= l;
    }
    return bytes;
}

static size_t slab_unit(int in, int v, const var_shape *vs, const copy_storage *st,
                        int out_chunked, size_t budget, size_t *unit)
{
    size_t in_chunks[NCS_MAX_VAR_DIMS], unit_bytes = vs->esize, target = SLAB_TARGET;
    int storage = NCS_CONTIGUOUS;
    if (ncs_inq_var_chunking(in, v, &storage, in_chunks) != NCS_NOERR)
        storage = NCS_CONTIGUOUS;
    if (out_chunked && !st->contiguous) {
        memcpy(unit, st->chunks, (size_t)vs->nd * sizeof *unit);
        if (storage == NCS_CHUNKED &&
            memcmp(in_chunks, st->chunks, (size_t)vs->nd * sizeof *unit) != 0) {
            size_t block = common_block(vs, in_chunks, st->chunks, budget);
            if (block == 0)
                return budget;
            if (block > target)
                target = block;
        }
    } else {
        for (int d = 0; d < vs->nd; d++)
            unit[d] = storage == NCS_CHUNKED ? in_chunks[d] : 1;
    }
    for (int d = 0; d < vs->nd; d++)
        unit_bytes *= unit[d] < vs->len[d] ? unit[d] : vs->len[d];
    if (budget <= target)
        return budget;
    return unit_bytes > target ? (unit_bytes < budget ? unit_bytes : budget) : target;
}

static void plan_slab(const var_shape *vs, const size_t *unit, size_t max_elems,
                      size_t *slab)
{
    int nd = vs->nd;
    size_t prod = 1;
    if (max_elems == 0)
        max_elems = 1;
    if (vs->nelems == 0) {      /* no records yet: each_slab does nothing */
        for (int d = 0; d < nd; d++)
            slab[d] = 1;
        return;
    }
    for (int d = 0; d < nd; d++) {
        slab[d] = unit[d] == 0 ? 1 : unit[d] < vs->len[d] ? unit[d] : vs->len[d];
        prod *= slab[d];
    }
    if (prod > max_elems) {
        for (int d = 0; d < nd && prod > max_elems; d++) {
            size_t rest = prod / slab[d];
            size_t want = rest > max_elems ? 1 : max_elems / rest;
            if (want < slab[d]) {
                slab[d] = want;
                prod = rest * want;
            }
        }
        return;
    }
    for (int d = nd - 1; d >= 0; d--) {
        size_t rest = prod / slab[d];
        size_t room = max_elems / rest;
        if (room >= vs->len[d]) {
            slab[d] = vs->len[d];
            prod = rest * slab[d];
            continue;
        }
        if (room / slab[d] > 1)
            slab[d] *= room / slab[d];
        break;
    }
}

typedef int (*slab_fn)(void *ctx, int varid, const size_t *start,
                       const size_t *count, size_t nelems);

/* Calls fn for each slab of the variable, in row-major order of slabs;
 * the slabs' first index is rec0 further along dimension 0. */
static int each_slab(const var_shape *vs, int varid, const size_t *slab, size_t rec0,
                     slab_fn fn, void *ctx)
{
    size_t start[NCS_MAX_VAR_DIMS] = {0}, count[NCS_MAX_VAR_DIMS];
    size_t at[NCS_MAX_VAR_DIMS];
    if (vs->nelems == 0)
        return 0;
    for (;;) {
        size_t n = 1;
        int d;
        for (d = 0; d < vs->nd; d++) {
            size_t left = vs->len[d] - start[d];
            count[d] = slab[d] < left ? slab[d] : left;
            at[d] = start[d] + (d == 0 ? rec0 : 0);
            n *= count[d];
        }
        if (fn(ctx, varid, at, count, n) != 0)
            return -1;
        for (d = vs->nd - 1; d >= 0; d--) {
            start[d] += slab[d];
            if (start[d] < vs->len[d])
                break;
            start[d] = 0;
        }
        if (d < 0)
            return 0;
    }
}

static void *grow(void **buf, size_t *cap, size_t want)
{
    if (want > *cap) {
        void *p = realloc(*buf, want);
        if (p == NULL)
            return NULL;
        *buf = p;
        *cap = want;
    }
    return *buf;
}

static unsigned long long total_bytes(int in, int nvars)
{
    unsigned long long total = 0;
    for (int v = 0; v < nvars; v++) {
        var_shape vs;
        if (get_shape(in, v, &vs) == NCS_NOERR)
            total += (unsigned long long)vs.nelems * vs.esize;
    }
    return total;
}

typedef struct {
    int in, out;
    const var_shape *vs;
    void *buf, *buf2;
    size_t cap, cap2;
    progress *pr;
} xfer;

static void where(const var_shape *vs, const size_t *start, char *text, size_t size)
{
    size_t used = 0;
    text[0] = '\0';
    for (int d = 0; d < vs->nd && used < size; d++)
        used += (size_t)snprintf(text + used, size - used, "%s%zu", d ? "," : "", start[d]);
}

static int copy_slab(void *ctx, int varid, const size_t *start, const size_t *count,
                     size_t n)
{
    xfer *x = ctx;
    const var_shape *vs = x->vs;
    char at[256];
    int status;
    if (grow(&x->buf, &x->cap, n * vs->esize) == NULL) {
        copy_fail(NCS_ENOMEM, "variable '%s'", vs->name);
        return -1;
    }
    status = ncs_get(x->in, varid, vs->nd ? start : NULL, vs->nd ? count : NULL,
                     NULL, NULL, NCS_NAT, x->buf);
    if (status != NCS_NOERR) {
        where(vs, start, at, sizeof at);
        copy_fail(status, "reading variable '%s' at [%s]", vs->name, at);
        return -1;
    }
    status = ncs_put(x->out, varid, vs->nd ? start : NULL, vs->nd ? count : NULL,
                     NULL, NULL, NCS_NAT, x->buf);
    if (status != NCS_NOERR) {
        where(vs, start, at, sizeof at);
        copy_fail(status, "writing variable '%s' at [%s]", vs->name, at);
        return -1;
    }
    x->pr->done += (unsigned long long)n * vs->esize;
    bar(x->pr, vs->name, 0);
    return 0;
}

/* One variable, or for a record variable the records [rec0, rec0 + nrec). */
static int copy_part(xfer *x, int v, const var_shape *whole, size_t rec0, size_t nrec,
                     const copy_storage *st, int out_chunked, size_t budget)
{
    var_shape vs = *whole;
    size_t unit[NCS_MAX_VAR_DIMS], slab[NCS_MAX_VAR_DIMS];
    int rc;
    if (vs.rec) {
        vs.nelems = vs.len[0] == 0 ? 0 : vs.nelems / vs.len[0] * nrec;
        vs.len[0] = nrec;
    }
    plan_slab(&vs, unit, slab_unit(x->in, v, &vs, st, out_chunked, budget, unit) /
              vs.esize, slab);
    x->vs = &vs;
    rc = each_slab(&vs, v, slab, rec0, copy_slab, x);
    x->vs = NULL;               /* vs ends with this call */
    return rc;
}

/* A classic output is written in file order: the fixed-size variables, then
 * the records, a block of records at a time with every record variable's
 * part of the block in turn.  Writing one record variable through all its
 * records first would leave the other variables' parts of every record as
 * holes below the end of the file, and the library reads each page before
 * it writes it: the kernel then reads and zeroes a page of hole for every
 * page written (a 200 MB CDF-1 to CDF-5 copy took 350 ms of processor
 * time, nccopy 255 ms; in file order 260-300 ms, nccopy 240-270 ms). */
int copy_data(int in, int out, const copy_storage *st, int out_chunked,
              size_t budget, int show)
{
    int nvars, rc = 0;
    size_t numrecs = 0, rec_bytes = 0, block;
    progress pr = {show, "copy", 0, 0, 0, -1};
    xfer x = {in, out, NULL, NULL, NULL, 0, 0, &pr};
    var_shape *shapes;
    if (ncs_inq_nvars(in, &nvars) != NCS_NOERR)
        return -1;
    shapes = calloc((size_t)nvars + 1, sizeof *shapes);
    if (shapes == NULL) {
        copy_fail(NCS_ENOMEM, "variable shapes");
        return -1;
    }
    for (int v = 0; v < nvars; v++) {
        int status = get_shape(in, v, &shapes[v]);
        if (status != NCS_NOERR) {
            copy_fail(status, "variable %d", v);
            free(shapes);
            return -1;
        }
        pr.total += (unsigned long long)shapes[v].nelems * shapes[v].esize;
        if (shapes[v].rec && shapes[v].len[0] > 0) {
            numrecs = shapes[v].len[0];
            rec_bytes += shapes[v].nelems / numrecs * shapes[v].esize;
        }
    }
    for (int v = 0; v < nvars && rc == 0; v++)
        if (out_chunked || !shapes[v].rec)
            rc = copy_part(&x, v, &shapes[v], 0, shapes[v].len[0], &st[v],
                           out_chunked, budget);
    block = rec_bytes == 0 ? numrecs : SLAB_TARGET / rec_bytes;
    if (block == 0)
        block = 1;
    for (size_t r0 = 0; !out_chunked && r0 < numrecs && rc == 0; r0 += block) {
        size_t nrec = numrecs - r0 < block ? numrecs - r0 : block;
        for (int v = 0; v < nvars && rc == 0; v++)
            if (shapes[v].rec)
                rc = copy_part(&x, v, &shapes[v], r0, nrec, &st[v], out_chunked, budget);
    }
    if (rc == 0)
        bar(&pr, "", 1);
    else if (show)
        fputc('\n', stderr);
    free(x.buf);
    free(shapes);
    return rc;
}

/* ---- verification ------------------------------------------------------ */

static int mismatch(const char *what, const char *name)
{
    copy_msg("verify: %s of %s differs from the input", what, name);
    return -1;
}

static int compare_atts(int in, int out, int varid, int natts, const char *owner)
{
    char name[NCS_MAX_NAME + 1], oname[NCS_MAX_NAME + 1], label[2 * NCS_MAX_NAME + 4];
    int rc = 0;
    for (int a = 0; a < natts && rc == 0; a++) {
        int t1, t2;
        size_t n1, n2, size;
        void *b1 = NULL, *b2 = NULL;
        if (ncs_inq_attname(in, varid, a, name) != NCS_NOERR ||
            ncs_inq_attname(out, varid, a, oname) != NCS_NOERR ||
            strcmp(name, oname) != 0) {
            snprintf(label, sizeof label, "attribute %d of %s", a, owner);
            return mismatch("the name", label);
        }
        snprintf(label, sizeof label, "attribute %s:%s", owner, name);
        if (ncs_inq_att(in, varid, name, &t1, &n1) != NCS_NOERR ||
            ncs_inq_att(out, varid, name, &t2, &n2) != NCS_NOERR || t1 != t2 ||
            n1 != n2)
            return mismatch("the type or length", label);
        ncs_inq_type_size(t1, &size);
        b1 = malloc(n1 * size + 1);
        b2 = malloc(n1 * size + 1);
        if (b1 == NULL || b2 == NULL)
            rc = mismatch("(out of memory) the value", label);
        else if (ncs_get_att(in, varid, name, NCS_NAT, b1) != NCS_NOERR ||
                 ncs_get_att(out, varid, name, NCS_NAT, b2) != NCS_NOERR ||
                 memcmp(b1, b2, n1 * size) != 0)
            rc = mismatch("the value", label);
        free(b1);
        free(b2);
    }
    return rc;
}

static int compare_storage(int out, int v, const char *name, int nd,
                           const copy_storage *st)
{
    size_t chunks[NCS_MAX_VAR_DIMS];
    int storage, sh, def, level, z, f;
    if (nd == 0)
        return 0;
    if (ncs_inq_var_chunking(out, v, &storage, chunks) != NCS_NOERR ||
        (storage == NCS_CONTIGUOUS) != st->contiguous ||
        (!st->contiguous && memcmp(chunks, st->chunks, (size_t)nd * sizeof *chunks) != 0))
        return mismatch("the chunking asked for", name);
    if (ncs_inq_var_deflate(out, v, &sh, &def, &level) != NCS_NOERR ||
        ncs_inq_var_zstd(out, v, &z) != NCS_NOERR ||
        ncs_inq_var_fletcher32(out, v, &f) != NCS_NOERR ||
        sh != st->shuffle || (def ? level : 0) != st->deflate || z != st->zstd ||
        f != st->fletcher32)
        return mismatch("the filters asked for", name);
    return 0;
}

static int verify_slab(void *ctx, int varid, const size_t *start, const size_t *count,
                       size_t n)
{
    xfer *x = ctx;
    const var_shape *vs = x->vs;
    size_t bytes = n * vs->esize;
    int s1, s2;
    if (grow(&x->buf, &x->cap, bytes) == NULL || grow(&x->buf2, &x->cap2, bytes) == NULL) {
        copy_fail(NCS_ENOMEM, "verify: variable '%s'", vs->name);
        return -1;
    }
    s1 = ncs_get(x->in, varid, vs->nd ? start : NULL, vs->nd ? count : NULL,
                 NULL, NULL, NCS_NAT, x->buf);
    s2 = ncs_get(x->out, varid, vs->nd ? start : NULL, vs->nd ? count : NULL,
                 NULL, NULL, NCS_NAT, x->buf2);
    if (s1 != NCS_NOERR || s2 != NCS_NOERR) {
        copy_fail(s1 != NCS_NOERR ? s1 : s2, "verify: reading variable '%s' from the %s",
                  vs->name, s1 != NCS_NOERR ? "input" : "output");
        return -1;
    }
    if (memcmp(x->buf, x->buf2, bytes) != 0) {
        const unsigned char *a = x->buf, *b = x->buf2;
        size_t i = 0, idx[NCS_MAX_VAR_DIMS];
        char at[256];
        while (memcmp(a + i * vs->esize, b + i * vs->esize, vs->esize) == 0)
            i++;
        for (int d = vs->nd - 1; d >= 0; d--) {
            idx[d] = start[d] + i % count[d];
            i /= count[d];
        }
        where(vs, idx, at, sizeof at);
        copy_msg("verify: variable '%s' differs from the input at [%s]", vs->name, at);
        return -1;
    }
    x->pr->done += bytes;
    bar(x->pr, vs->name, 0);
    return 0;
}

int copy_verify(int in, int out, const copy_storage *st, int out_chunked,
                int fix_unlimited, size_t budget, int show)
{
    int nd1, nv1, na1, u1, nd2, nv2, na2, u2, rc = 0;
    char name[NCS_MAX_NAME + 1], oname[NCS_MAX_NAME + 1];
    progress pr = {show, "verify", 0, 0, 0, -1};
    xfer x = {in, out, NULL, NULL, NULL, 0, 0, &pr};

    if (ncs_inq(in, &nd1, &nv1, &na1, &u1) != NCS_NOERR ||
        ncs_inq(out, &nd2, &nv2, &na2, &u2) != NCS_NOERR ||
        nd1 != nd2 || nv1 != nv2 || na1 != na2 ||
        (u1 != u2 && !(fix_unlimited && u2 == -1)))
        return mismatch("the number of dimensions, variables or attributes", "the file");
    for (int d = 0; d < nd1; d++) {
        size_t l1, l2;
        if (ncs_inq_dim(in, d, name, &l1) != NCS_NOERR ||
            ncs_inq_dim(out, d, oname, &l2) != NCS_NOERR ||
            strcmp(name, oname) != 0 || l1 != l2)
            return mismatch("the name or length", "a dimension");
    }
    if (compare_atts(in, out, NCS_GLOBAL, na1, "") != 0)
        return -1;
    for (int v = 0; v < nv1; v++) {
        int t1, t2, n1, n2, a1, a2, dims1[NCS_MAX_VAR_DIMS], dims2[NCS_MAX_VAR_DIMS];
        if (ncs_inq_var(in, v, name, &t1, &n1, dims1, &a1) != NCS_NOERR ||
            ncs_inq_var(out, v, oname, &t2, &n2, dims2, &a2) != NCS_NOERR ||
            strcmp(name, oname) != 0 || t1 != t2 || n1 != n2 || a1 != a2 ||
            memcmp(dims1, dims2, (size_t)n1 * sizeof *dims1) != 0)
            return mismatch("the definition", "a variable");
        if (compare_atts(in, out, v, a1, name) != 0)
            return -1;
        if (out_chunked && compare_storage(out, v, name, n1, &st[v]) != 0)
            return -1;
    }
    pr.total = total_bytes(in, nv1);
    for (int v = 0; v < nv1 && rc == 0; v++) {
        var_shape vs;
        size_t unit[NCS_MAX_VAR_DIMS], slab[NCS_MAX_VAR_DIMS];
        if (get_shape(in, v, &vs) != NCS_NOERR)
            return -1;
        plan_slab(&vs, unit, slab_unit(in, v, &vs, &st[v], out_chunked, budget / 2,
                                       unit) / vs.esize, slab);
        x.vs = &vs;
        rc = each_slab(&vs, v, slab, 0, verify_slab, &x);
    }
    if (rc == 0)
        bar(&pr, "", 1);
    else if (show)
        fputc('\n', stderr);
    free(x.buf);
    free(x.buf2);
    return rc;
}
