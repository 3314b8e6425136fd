/*
 * par_cdf.c -- the classic header read field by field, for the tests of
 * tests/par: which header field, variable element or padding holds a
 * given byte of a CDF-1, CDF-2 or CDF-5 file (doc/format.md has the
 * grammar), so that a byte comparison can say where two files differ and
 * skip the bytes no call wrote.  Reads a reference file the tests trust
 * (PnetCDF's); a malformed one gives a wrong answer, never a crash:
 * every read stays inside the buffer.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "par_cdf.h"

#define MAXVARS 64          /* variables located; later ones are padding */

/* Bytes of an element of external type t (1-11), 1 for others. */
static uint64_t type_size(int t)
{
    switch (t) {
    case 3: case 8: return 2;               /* short, ushort */
    case 4: case 5: case 9: return 4;       /* int, float, uint */
    case 6: case 10: case 11: return 8;     /* double, int64, uint64 */
    default: return 1;
    }
}

unsigned char *par_cdf_slurp(const char *path, size_t *lenp)
{
    FILE *f = fopen(path, "rb");
    unsigned char *b = NULL;
    long n;
    if (!f)
        return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0) {
        b = malloc((size_t)n + 1);
        if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
            free(b);
            b = NULL;
        }
        *lenp = (size_t)n;
    }
    fclose(f);
    return b;
}

/* A cursor over a classic header, for naming the field at an offset. */
typedef struct {
    const unsigned char *b;
    size_t n, pos, target;
    int fmt;
    char *out;
    size_t outlen;
    int found;
} hcur;

static uint64_t hget(hcur *h, int bytes, const char *what)
{
    uint64_t v = 0;
    if (!h->found && h->target >= h->pos && h->target < h->pos + (size_t)bytes) {
        snprintf(h->out, h->outlen, "header: %s", what);
        h->found = 1;
    }
    for (int i = 0; i < bytes && h->pos < h->n; i++)
        v = v << 8 | h->b[h->pos++];
    return v;
}

static uint64_t hcount(hcur *h, const char *what)
{
    return hget(h, h->fmt == 5 ? 8 : 4, what);
}

static void hskip(hcur *h, size_t bytes, const char *what)
{
    bytes = (bytes + 3) & ~(size_t)3;
    if (!h->found && h->target >= h->pos && h->target < h->pos + bytes) {
        snprintf(h->out, h->outlen, "header: %s", what);
        h->found = 1;
    }
    h->pos += bytes;
}

static void hname(hcur *h, const char *what, char *name, size_t len)
{
    char w[96];
    snprintf(w, sizeof w, "%s name length", what);
    uint64_t n = hcount(h, w);
    size_t k = n < len - 1 ? (size_t)n : len - 1;
    if (h->pos + k <= h->n)
        memcpy(name, h->b + h->pos, k);
    name[k] = 0;
    snprintf(w, sizeof w, "%s name \"%s\"", what, name);
    hskip(h, (size_t)n, w);
}

static void hatts(hcur *h, const char *owner)
{
    char w[160], name[64] = "";
    hget(h, 4, "attribute list tag");
    uint64_t na = hcount(h, "attribute count");
    for (uint64_t a = 0; a < na && h->pos < h->n; a++) {
        snprintf(w, sizeof w, "%s attribute %" PRIu64, owner, a);
        hname(h, w, name, sizeof name);
        snprintf(w, sizeof w, "%s attribute \"%s\"", owner, name);
        char f[200];
        snprintf(f, sizeof f, "%s type", w);
        int t = (int)hget(h, 4, f);
        snprintf(f, sizeof f, "%s length", w);
        uint64_t n = hcount(h, f);
        snprintf(f, sizeof f, "%s values", w);
        hskip(h, (size_t)(n * type_size(t)), f);
    }
}

int par_cdf_locate(const unsigned char *b, size_t n, size_t off, int fmt,
                           int *varp, size_t *linp, char *out, size_t outlen)
{
    hcur h = { b, n, 0, off, fmt, out, outlen, 0 };
    char w[160], name[64] = "";
    uint64_t dimlen[64] = { 0 };
    struct { char name[64]; int type, rec; uint64_t vsize, begin, inner; } vars[MAXVARS];
    int nvars = 0;
    memset(vars, 0, sizeof vars);
    hget(&h, 4, "magic number");
    hcount(&h, "numrecs");
    hget(&h, 4, "dimension list tag");
    uint64_t nd = hcount(&h, "dimension count");
    for (uint64_t d = 0; d < nd && h.pos < n; d++) {
        snprintf(w, sizeof w, "dimension %" PRIu64, d);
        hname(&h, w, name, sizeof name);
        snprintf(w, sizeof w, "dimension \"%s\" length", name);
        uint64_t len = hcount(&h, w);
        if (d < 64)
            dimlen[d] = len;
    }
    hatts(&h, "global");
    hget(&h, 4, "variable list tag");
    uint64_t nv = hcount(&h, "variable count");
    for (uint64_t i = 0; i < nv && h.pos < n; i++) {
        int rec = 0;
        uint64_t inner = 1;
        snprintf(w, sizeof w, "variable %" PRIu64, i);
        hname(&h, w, name, sizeof name);
        snprintf(w, sizeof w, "variable \"%s\" rank", name);
        uint64_t r = hcount(&h, w);
        for (uint64_t d = 0; d < r && h.pos < n; d++) {
            snprintf(w, sizeof w, "variable \"%s\" dimension id %" PRIu64, name, d);
            uint64_t id = hcount(&h, w), len = id < 64 ? dimlen[id] : 0;
            if (d == 0 && len == 0)
                rec = 1;
            else
                inner *= len;
        }
        snprintf(w, sizeof w, "variable \"%s\"", name);
        hatts(&h, w);
        snprintf(w, sizeof w, "variable \"%s\" type", name);
        int t = (int)hget(&h, 4, w);
        snprintf(w, sizeof w, "variable \"%s\" vsize", name);
        uint64_t vsize = hcount(&h, w);
        snprintf(w, sizeof w, "variable \"%s\" begin", name);
        uint64_t begin = hget(&h, fmt == 1 ? 4 : 8, w);
        if (nvars < MAXVARS) {
            snprintf(vars[nvars].name, sizeof vars[nvars].name, "%s", name);
            vars[nvars].type = t;
            vars[nvars].rec = rec;
            vars[nvars].vsize = vsize;
            vars[nvars].begin = begin;
            vars[nvars].inner = inner;
            nvars++;
        }
    }
    if (h.found)
        return PAR_CDF_HEADER;
    uint64_t recsize = 0, recbegin = 0, first = UINT64_MAX;
    int nrec = 0;
    for (int i = 0; i < nvars; i++) {
        if (vars[i].begin < first)
            first = vars[i].begin;
        if (vars[i].rec) {
            if (nrec++ == 0)
                recbegin = vars[i].begin;
            recsize += vars[i].vsize;
        }
    }
    if (off < first) {
        /* The header extent: written as a whole when the header is. */
        snprintf(out, outlen, "header padding (the header ends at %zu, data begins at %" PRIu64 ")",
                 h.pos, first);
        return PAR_CDF_HEADER;
    }
    for (int i = 0; i < nvars; i++) {
        uint64_t ts = type_size(vars[i].type);
        uint64_t bytes = vars[i].inner * ts, e;
        if (!vars[i].rec && off >= vars[i].begin && off < vars[i].begin + vars[i].vsize) {
            e = (off - vars[i].begin) / ts;
            if (e >= vars[i].inner)
                break;
            snprintf(out, outlen, "data of fixed variable \"%s\", element %" PRIu64, vars[i].name, e);
            *varp = i;
            *linp = (size_t)e;
            return PAR_CDF_DATA;
        }
        if (vars[i].rec && off >= recbegin) {
            /* One record variable: its records are not padded. */
            uint64_t rs = nrec == 1 ? bytes : recsize;
            uint64_t r = (off - recbegin) / rs, in = (off - recbegin) % rs;
            uint64_t vb = vars[i].begin - recbegin;
            if (in >= vb && in < vb + bytes) {
                e = (in - vb) / ts;
                snprintf(out, outlen, "data of record variable \"%s\", record %" PRIu64
                         ", element %" PRIu64 " of the record", vars[i].name, r, e);
                *varp = i;
                *linp = (size_t)(r * vars[i].inner + e);
                return PAR_CDF_DATA;
            }
        }
    }
    snprintf(out, outlen, "padding between the variables' data");
    return PAR_CDF_PADDING;
}
