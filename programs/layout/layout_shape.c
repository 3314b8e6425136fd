/* programs/layout/layout_shape.c -- access patterns and chunk shapes.
 *
 * A pattern is parsed once (lay_pattern_parse) and bound to a variable
 * (lay_pattern_bind), which turns it into at most LAY_MAXREQ concrete
 * requests, every one inside the variable.  Named patterns are read at
 * points spread over the variable (a quarter, half and three quarters of
 * each fixed index), so that no candidate profits from one lucky
 * alignment.
 *
 * The balanced shape.  Rew's balanced chunking ("Chunking Data: Choosing
 * Shapes", Unidata 2013) picks, for a chunk of a given size, the shape
 * with which a time series and a spatial slice touch the same number of
 * chunks: with N chunks in all, N^(1/2) along time and N^(1/4) along each
 * of two spatial dimensions.  That is the minimum of (chunks a series
 * touches) + (chunks a slice touches) at a fixed chunk volume, since the
 * product of the two is N.  Here the same minimum is taken over the
 * user's patterns with their weights, and the volume is not fixed: the
 * cost of a request is the chunks it touches times (CHUNK_OVERHEAD + the
 * chunk's bytes), so a chunk also pays for the bytes it carries beyond
 * the request.  The search runs over lengths ceil(n/k) for k in a
 * geometric series, every combination for the variable's rank, with the
 * chunk's bytes at most opts->chunk_bytes; ties go to the larger chunk. */
#include "layout.h"

#include <ncslab.h>

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The price of touching one more chunk, in bytes read: an index lookup, a
 * system call, a decoder start (a seek on a disk costs more). */
#define CHUNK_OVERHEAD 65536.0

static int parse_size(const char *s, char **end, size_t *v)
{
    unsigned long long x;
    if (*s < '0' || *s > '9')
        return -1;
    errno = 0;
    x = strtoull(s, end, 10);
    if (errno != 0 || x > (unsigned long long)SIZE_MAX / 2)
        return -1;
    *v = (size_t)x;
    return 0;
}

/* Comma-separated sizes into v[0..*n-1]. */
static int parse_list(const char *s, size_t *v, int *n, int allow_zero)
{
    char *end;
    *n = 0;
    for (;;) {
        if (*n == LAY_MAXDIMS || parse_size(s, &end, &v[*n]) != 0)
            return -1;
        if (!allow_zero && v[*n] == 0)
            return -1;
        (*n)++;
        if (*end == '\0')
            return 0;
        if (*end != ',')
            return -1;
        s = end + 1;
    }
}

int lay_pattern_parse(const char *s, lay_pattern *p)
{
    const char *at = strrchr(s, '@');
    size_t len = at ? (size_t)(at - s) : strlen(s);
    memset(p, 0, sizeof *p);
    p->weight = 1.0;
    if (at) {
        char *end;
        errno = 0;
        p->weight = strtod(at + 1, &end);
        if (errno != 0 || end == at + 1 || *end != '\0' || !(p->weight > 0)
            || !isfinite(p->weight)) {
            lay_msg("pattern '%s': the weight must be a positive number", s);
            return -1;
        }
    }
    if (len == 0 || len >= sizeof p->text) {
        lay_msg("pattern '%s': empty or too long", s);
        return -1;
    }
    memcpy(p->text, s, len);
    p->text[len] = '\0';
    return 0;
}

/* Fixed index for the kth of nreq spread requests along a dimension. */
static size_t spread(size_t n, int k, int nreq)
{
    return n * (size_t)(k + 1) / (size_t)(nreq + 1) % (n ? n : 1);
}

/* Requests for a named pattern; full[d] says which dimensions are read
 * whole, the others get one spread index. */
static void named(lay_pattern *p, const lay_var *v, const int *full, int nreq)
{
    p->nreq = nreq;
    for (int k = 0; k < nreq; k++)
        for (int d = 0; d < v->ndims; d++) {
            lay_req *r = &p->req[k];
            r->stride[d] = 1;
            r->start[d] = full[d] ? 0 : spread(v->shape[d], k, nreq);
            r->count[d] = full[d] ? v->shape[d] : 1;
        }
}

int lay_pattern_bind(lay_pattern *p, const lay_var *v)
{
    int full[LAY_MAXDIMS] = {0};
    int nd = v->ndims;
    const char *t = p->text;
    if (strcmp(t, "series") == 0) {
        full[0] = 1;
        named(p, v, full, 3);
    } else if (strcmp(t, "map") == 0) {
        if (nd < 2) {
            lay_msg("pattern 'map' needs at least 2 dimensions");
            return -1;
        }
        full[nd - 1] = full[nd - 2] = 1;
        if (nd == 2)
            full[0] = 0;
        named(p, v, full, 3);
    } else if (strcmp(t, "row") == 0) {
        full[nd - 1] = 1;
        named(p, v, full, 3);
    } else if (strcmp(t, "column") == 0) {
        if (nd < 2) {
            lay_msg("pattern 'column' needs at least 2 dimensions");
            return -1;
        }
        full[nd - 2] = 1;
        named(p, v, full, 3);
    } else if (strncmp(t, "every=", 6) == 0) {
        size_t n;
        char *end;
        if (parse_size(t + 6, &end, &n) != 0 || *end != '\0' || n == 0) {
            lay_msg("pattern '%s': every=N needs a positive N", t);
            return -1;
        }
        p->nreq = 1;
        for (int d = 0; d < nd; d++) {
            p->req[0].start[d] = 0;
            p->req[0].stride[d] = (ptrdiff_t)n;
            p->req[0].count[d] = (v->shape[d] + n - 1) / n;
        }
    } else if (strncmp(t, "box=", 4) == 0) {
        /* box=S0:E0,S1:E1,...  end exclusive, ':' alone the whole length */
        const char *s = t + 4;
        p->nreq = 1;
        for (int d = 0; d < nd; d++) {
            size_t a = 0, b = v->shape[d];
            char *end = (char *)s;
            if (*s != ':' && parse_size(s, &end, &a) != 0)
                goto bad_box;
            if (*end != ':')
                goto bad_box;
            s = end + 1;
            end = (char *)s;          /* an open end leaves s where it is */
            if (*s != ',' && *s != '\0' && parse_size(s, &end, &b) != 0)
                goto bad_box;
            s = end;
            if (*s == ',' && d + 1 < nd)
                s++;
            else if (!(*s == '\0' && d + 1 == nd))
                goto bad_box;
            if (a >= b || b > v->shape[d]) {
                lay_msg("pattern '%s': range %zu:%zu outside dimension %s "
                        "(length %zu)", t, a, b, v->dimname[d], v->shape[d]);
                return -1;
            }
            p->req[0].start[d] = a;
            p->req[0].count[d] = b - a;
            p->req[0].stride[d] = 1;
        }
    } else if (*t >= '0' && *t <= '9') {
        /* START/COUNT[/STRIDE], each a comma-separated list */
        char buf[128];
        char *part[3] = {0};
        size_t val[3][LAY_MAXDIMS];
        int n[3] = {0, 0, 0}, np = 0;
        strcpy(buf, t);
        for (char *q = buf; np < 3 && q; np++) {
            part[np] = q;
            q = strchr(q, '/');
            if (q)
                *q++ = '\0';
            else if (np == 2)
                break;
        }
        if (np < 2 || strchr(t, '/') == NULL) {
            lay_msg("pattern '%s': give START/COUNT[/STRIDE]", t);
            return -1;
        }
        for (int i = 0; i < np; i++)
            if (parse_list(part[i], val[i], &n[i], i == 0) != 0 || n[i] != nd) {
                lay_msg("pattern '%s': each list needs %d non-negative "
                        "integers (count and stride positive)", t, nd);
                return -1;
            }
        p->nreq = 1;
        for (int d = 0; d < nd; d++) {
            size_t st = np == 3 ? val[2][d] : 1;
            lay_req *r = &p->req[0];
            r->start[d] = val[0][d];
            r->count[d] = val[1][d];
            r->stride[d] = (ptrdiff_t)st;
            if (r->start[d] >= v->shape[d]
                || (r->count[d] - 1) > (v->shape[d] - 1 - r->start[d]) / st) {
                lay_msg("pattern '%s': outside dimension %s (length %zu)%s", t,
                        v->dimname[d], v->shape[d],
                        v->sampled && d == 0 ? " of the sample" : "");
                return -1;
            }
        }
    } else {
        lay_msg("unknown pattern '%s' (series, map, row, column, box=..., "
                "every=N, START/COUNT[/STRIDE])", t);
        return -1;
    }
    return 0;
bad_box:
    lay_msg("pattern '%s': give box=S:E,... with one range per dimension "
            "(%d)", t, nd);
    return -1;
}

/* Distinct chunk indices the request meets along one dimension. */
static double touched_1d(size_t start, size_t count, ptrdiff_t stride, size_t c)
{
    size_t st = (size_t)stride, last, n = 0, prev = (size_t)-1;
    if (count == 0)
        return 0;
    last = start + (count - 1) * st;
    if (st <= c)
        return (double)(last / c - start / c + 1);
    for (size_t i = 0; i < count; i++) {
        size_t k = (start + i * st) / c;
        if (k != prev)
            n++;
        prev = k;
    }
    return (double)n;
}

double lay_chunks_touched(const lay_var *v, const size_t *chunk, const lay_req *r)
{
    double n = 1;
    for (int d = 0; d < v->ndims; d++)
        n *= touched_1d(r->start[d], r->count[d], r->stride[d], chunk[d]);
    return n;
}

static double model_cost(const lay_var *v, const lay_opts *o, const size_t *chunk)
{
    double bytes = (double)v->esz, cost = 0;
    for (int d = 0; d < v->ndims; d++)
        bytes *= (double)chunk[d];
    for (int i = 0; i < o->npat; i++) {
        const lay_pattern *p = &o->pat[i];
        double c = 0;
        for (int k = 0; k < p->nreq; k++)
            c += lay_chunks_touched(v, chunk, &p->req[k]);
        cost += p->weight * c / p->nreq * (CHUNK_OVERHEAD + bytes);
    }
    return cost;
}

/* Candidate lengths along a dimension of length n: ceil(n/k), k = 1, 2, 3,
 * 4, 6, 8, 12, 16, ... up to n, then 1. */
static int lengths(size_t n, size_t *out, int max)
{
    int m = 0;
    size_t k = 1;
    while (m < max - 1 && k <= n) {
        size_t len = (n + k - 1) / k;
        if (m == 0 || out[m - 1] != len)
            out[m++] = len;
        k = k < 2 ? k + 1 : (k & (k - 1)) == 0 ? k + k / 2 : (k / 3) * 4;
    }
    if (out[m - 1] != 1)
        out[m++] = 1;
    return m;
}

void lay_balanced_chunks(const lay_var *v, const lay_opts *o, size_t *chunk)
{
    size_t cand[LAY_MAXDIMS][80], cur[LAY_MAXDIMS];
    int ncand[LAY_MAXDIMS], idx[LAY_MAXDIMS] = {0};
    double best = HUGE_VAL, bestbytes = 0;
    int per = v->ndims <= 3 ? 80 : v->ndims == 4 ? 24 : 10;
    for (int d = 0; d < v->ndims; d++) {
        ncand[d] = lengths(v->shape[d], cand[d], per);
        chunk[d] = 1;
    }
    for (;;) {
        double bytes = (double)v->esz;
        for (int d = 0; d < v->ndims; d++) {
            cur[d] = cand[d][idx[d]];
            bytes *= (double)cur[d];
        }
        if (bytes <= (double)o->chunk_bytes) {
            double cost = model_cost(v, o, cur);
            if (cost < best * (1 - 1e-12)
                || (cost <= best * (1 + 1e-12) && bytes > bestbytes)) {
                best = cost;
                bestbytes = bytes;
                memcpy(chunk, cur, sizeof cur[0] * (size_t)v->ndims);
            }
        }
        int d = v->ndims - 1;
        while (d >= 0 && ++idx[d] == ncand[d])
            idx[d--] = 0;
        if (d < 0)
            break;
    }
}

/* --shape dim=len,...; a length ending in 'u' makes that dimension, which
 * must be the first, the unlimited one. */
int lay_parse_shape(const char *s, lay_var *v)
{
    v->ndims = 0;
    v->unlim = 0;
    while (*s) {
        const char *eq = strchr(s, '=');
        char *end;
        size_t len;
        int d = v->ndims;
        if (d == LAY_MAXDIMS || !eq || eq == s || (size_t)(eq - s) >= sizeof v->dimname[0])
            goto bad;
        memcpy(v->dimname[d], s, (size_t)(eq - s));
        v->dimname[d][eq - s] = '\0';
        if (parse_size(eq + 1, &end, &len) != 0 || len == 0)
            goto bad;
        if (*end == 'u') {
            if (d != 0)
                goto bad;
            v->unlim = 1;
            end++;
        }
        v->shape[d] = v->fullshape[d] = len;
        v->ndims++;
        if (*end == ',')
            end++;
        else if (*end != '\0')
            goto bad;
        s = end;
    }
    if (v->ndims > 0)
        return 0;
bad:
    lay_msg("--shape: give name=length,... (at most %d, positive lengths; "
            "a 'u' after the first length makes it unlimited)", LAY_MAXDIMS);
    return -1;
}

static const char *const type_names[] = {
    NULL, "byte", "char", "short", "int", "float", "double",
    "ubyte", "ushort", "uint", "int64", "uint64"
};

int lay_parse_type(const char *s, int *type)
{
    for (int t = NCS_BYTE; t <= NCS_UINT64; t++)
        if (t != NCS_CHAR && strcmp(s, type_names[t]) == 0) {
            *type = t;
            return 0;
        }
    lay_msg("--type: '%s' is not byte, short, int, float, double, ubyte, "
            "ushort, uint, int64 or uint64", s);
    return -1;
}

const char *lay_type_name(int type)
{
    return type >= NCS_BYTE && type <= NCS_UINT64 ? type_names[type] : "?";
}
