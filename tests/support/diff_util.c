/*
 * diff_util.c -- helpers for the differential tests; see diff_util.h.
 *
 * The netCDF-C side is reached only through its public typed functions
 * (nc_put_vara_short, nc_get_att_ulonglong, ...), exactly as an application
 * would call them; the ncslab side through ncs_put/ncs_get.  The two
 * dispatchers below are the only place that knows how a request kind is
 * spelled in each library.
 *
 * The second half is the pair harness: reporting with a replayable call
 * history, the schema model (always re-read from netCDF-C), value
 * generation, and random hyperslab requests with their element geometry.
 */
#include "diff_util.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <netcdf.h>
#include "ncslab.h"

/* ---- PRNG ---------------------------------------------------------------- */
void drng_seed(drng *r, uint64_t seed)
{
    r->s = seed ^ 0x6a09e667f3bcc909ULL;
}

uint64_t drng_next(drng *r)
{
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

unsigned drng_below(drng *r, unsigned n)
{
    return n ? (unsigned)(drng_next(r) % n) : 0;
}

int drng_chance(drng *r, unsigned pct)
{
    return drng_below(r, 100) < pct;
}

/* ---- types ---------------------------------------------------------------- */
static const struct {
    const char *name;
    size_t size;
    long double min, max;
} tinfo[DT_NTYPES] = {
    [NC_NAT] = {"nat", 0, 0, 0},
    [NC_BYTE] = {"byte", 1, SCHAR_MIN, SCHAR_MAX},
    [NC_CHAR] = {"char", 1, 0, UCHAR_MAX},
    [NC_SHORT] = {"short", 2, SHRT_MIN, SHRT_MAX},
    [NC_INT] = {"int", 4, INT_MIN, INT_MAX},
    [NC_FLOAT] = {"float", 4, -FLT_MAX, FLT_MAX},
    [NC_DOUBLE] = {"double", 8, -DBL_MAX, DBL_MAX},
    [NC_UBYTE] = {"ubyte", 1, 0, UCHAR_MAX},
    [NC_USHORT] = {"ushort", 2, 0, USHRT_MAX},
    [NC_UINT] = {"uint", 4, 0, UINT_MAX},
    [NC_INT64] = {"int64", 8, LLONG_MIN, LLONG_MAX},
    [NC_UINT64] = {"uint64", 8, 0, ULLONG_MAX},
};

static int tvalid(int type)
{
    return type > NC_NAT && type < DT_NTYPES;
}

size_t dt_size(int type)
{
    return tvalid(type) ? tinfo[type].size : 0;
}

const char *dt_name(int type)
{
    return type >= 0 && type < DT_NTYPES ? tinfo[type].name : "badtype";
}

int dt_is_float(int type)
{
    return type == NC_FLOAT || type == NC_DOUBLE;
}

long double dt_min(int type)
{
    return tvalid(type) ? tinfo[type].min : 0;
}

long double dt_max(int type)
{
    return tvalid(type) ? tinfo[type].max : 0;
}

int dt_fits(int type, long double v)
{
    if (!tvalid(type))
        return 0;
    if (type == NC_DOUBLE)
        return 1;
    return v >= tinfo[type].min && v <= tinfo[type].max;
}

void dt_store(int type, void *p, long double v)
{
    switch (type) {
    case NC_BYTE: *(signed char *)p = (signed char)v; break;
    case NC_CHAR: *(char *)p = (char)(unsigned char)v; break;
    case NC_SHORT: *(short *)p = (short)v; break;
    case NC_INT: *(int *)p = (int)v; break;
    case NC_FLOAT: *(float *)p = (float)v; break;
    case NC_DOUBLE: *(double *)p = (double)v; break;
    case NC_UBYTE: *(unsigned char *)p = (unsigned char)v; break;
    case NC_USHORT: *(unsigned short *)p = (unsigned short)v; break;
    case NC_UINT: *(unsigned int *)p = (unsigned int)v; break;
    case NC_INT64: *(long long *)p = (long long)v; break;
    case NC_UINT64: *(unsigned long long *)p = (unsigned long long)v; break;
    default: break;
    }
}

long double dt_load(int type, const void *p)
{
    switch (type) {
    case NC_BYTE: return *(const signed char *)p;
    case NC_CHAR: return *(const unsigned char *)p;
    case NC_SHORT: return *(const short *)p;
    case NC_INT: return *(const int *)p;
    case NC_FLOAT: return *(const float *)p;
    case NC_DOUBLE: return *(const double *)p;
    case NC_UBYTE: return *(const unsigned char *)p;
    case NC_USHORT: return *(const unsigned short *)p;
    case NC_UINT: return *(const unsigned int *)p;
    case NC_INT64: return *(const long long *)p;
    case NC_UINT64: return *(const unsigned long long *)p;
    default: return 0;
    }
}

void dt_format(int type, const void *p, char *buf, size_t n)
{
    if (dt_is_float(type))
        snprintf(buf, n, "%.9Lg", dt_load(type, p));
    else if (type == NC_CHAR)
        snprintf(buf, n, "'\\x%02x'", *(const unsigned char *)p);
    else
        snprintf(buf, n, "%.0Lf", dt_load(type, p));
}

const char *dk_name(int kind)
{
    static const char *const names[DK_NKINDS] = {"var", "var1", "vara",
                                                 "vars", "varm"};
    return kind >= 0 && kind < DK_NKINDS ? names[kind] : "?";
}

/* ---- netCDF-C dispatch -----------------------------------------------------
 * One case per memory type; each expands to the five request kinds of that
 * type's function family.  S is the netCDF-C suffix, CT the C type. */
#define DNC_KINDS(op, S, CT, CONST)                                            \
    switch (kind) {                                                            \
    case DK_VAR: return nc_##op##_var_##S(ncid, varid, (CONST CT *)buf);       \
    case DK_VAR1:                                                              \
        return nc_##op##_var1_##S(ncid, varid, start, (CONST CT *)buf);        \
    case DK_VARA:                                                              \
        return nc_##op##_vara_##S(ncid, varid, start, count,                   \
                                  (CONST CT *)buf);                            \
    case DK_VARS:                                                              \
        return nc_##op##_vars_##S(ncid, varid, start, count, stride,           \
                                  (CONST CT *)buf);                            \
    default:                                                                   \
        return nc_##op##_varm_##S(ncid, varid, start, count, stride, imap,     \
                                  (CONST CT *)buf);                            \
    }

#define DNC_TYPES(op, CONST)                                                   \
    switch (memtype) {                                                         \
    case NC_BYTE: DNC_KINDS(op, schar, signed char, CONST)                     \
    case NC_CHAR: DNC_KINDS(op, text, char, CONST)                             \
    case NC_SHORT: DNC_KINDS(op, short, short, CONST)                          \
    case NC_INT: DNC_KINDS(op, int, int, CONST)                                \
    case NC_FLOAT: DNC_KINDS(op, float, float, CONST)                          \
    case NC_DOUBLE: DNC_KINDS(op, double, double, CONST)                       \
    case NC_UBYTE: DNC_KINDS(op, uchar, unsigned char, CONST)                  \
    case NC_USHORT: DNC_KINDS(op, ushort, unsigned short, CONST)               \
    case NC_UINT: DNC_KINDS(op, uint, unsigned int, CONST)                     \
    case NC_INT64: DNC_KINDS(op, longlong, long long, CONST)                   \
    case NC_UINT64: DNC_KINDS(op, ulonglong, unsigned long long, CONST)        \
    default: break;                                                            \
    }

int dnc_put(int ncid, int varid, int kind, const size_t *start,
            const size_t *count, const ptrdiff_t *stride,
            const ptrdiff_t *imap, int memtype, const void *buf)
{
    if (memtype == NC_NAT) {
        switch (kind) {
        case DK_VAR: return nc_put_var(ncid, varid, buf);
        case DK_VAR1: return nc_put_var1(ncid, varid, start, buf);
        case DK_VARA: return nc_put_vara(ncid, varid, start, count, buf);
        case DK_VARS:
            return nc_put_vars(ncid, varid, start, count, stride, buf);
        default:
            return nc_put_varm(ncid, varid, start, count, stride, imap, buf);
        }
    }
    DNC_TYPES(put, const)
    return NC_EBADTYPE;
}

int dnc_get(int ncid, int varid, int kind, const size_t *start,
            const size_t *count, const ptrdiff_t *stride,
            const ptrdiff_t *imap, int memtype, void *buf)
{
    if (memtype == NC_NAT) {
        switch (kind) {
        case DK_VAR: return nc_get_var(ncid, varid, buf);
        case DK_VAR1: return nc_get_var1(ncid, varid, start, buf);
        case DK_VARA: return nc_get_vara(ncid, varid, start, count, buf);
        case DK_VARS:
            return nc_get_vars(ncid, varid, start, count, stride, buf);
        default:
            return nc_get_varm(ncid, varid, start, count, stride, imap, buf);
        }
    }
    DNC_TYPES(get, )
    return NC_EBADTYPE;
}

int dns_put(int ncid, int varid, int kind, const size_t *start,
            const size_t *count, const ptrdiff_t *stride,
            const ptrdiff_t *imap, int memtype, const void *buf)
{
    switch (kind) {
    case DK_VAR: return ncs_put(ncid, varid, NULL, NULL, NULL, NULL, memtype, buf);
    case DK_VAR1: return ncs_put1(ncid, varid, start, memtype, buf);
    case DK_VARA:
        return ncs_put(ncid, varid, start, count, NULL, NULL, memtype, buf);
    case DK_VARS:
        return ncs_put(ncid, varid, start, count, stride, NULL, memtype, buf);
    default:
        return ncs_put(ncid, varid, start, count, stride, imap, memtype, buf);
    }
}

int dns_get(int ncid, int varid, int kind, const size_t *start,
            const size_t *count, const ptrdiff_t *stride,
            const ptrdiff_t *imap, int memtype, void *buf)
{
    switch (kind) {
    case DK_VAR: return ncs_get(ncid, varid, NULL, NULL, NULL, NULL, memtype, buf);
    case DK_VAR1: return ncs_get1(ncid, varid, start, memtype, buf);
    case DK_VARA:
        return ncs_get(ncid, varid, start, count, NULL, NULL, memtype, buf);
    case DK_VARS:
        return ncs_get(ncid, varid, start, count, stride, NULL, memtype, buf);
    default:
        return ncs_get(ncid, varid, start, count, stride, imap, memtype, buf);
    }
}

int dnc_put_att(int ncid, int varid, const char *name, int xtype, size_t len,
                int memtype, const void *op)
{
    switch (memtype) {
    case NC_NAT: return nc_put_att(ncid, varid, name, xtype, len, op);
    case NC_CHAR: return nc_put_att_text(ncid, varid, name, len, op);
    case NC_BYTE: return nc_put_att_schar(ncid, varid, name, xtype, len, op);
    case NC_SHORT: return nc_put_att_short(ncid, varid, name, xtype, len, op);
    case NC_INT: return nc_put_att_int(ncid, varid, name, xtype, len, op);
    case NC_FLOAT: return nc_put_att_float(ncid, varid, name, xtype, len, op);
    case NC_DOUBLE: return nc_put_att_double(ncid, varid, name, xtype, len, op);
    case NC_UBYTE: return nc_put_att_uchar(ncid, varid, name, xtype, len, op);
    case NC_USHORT: return nc_put_att_ushort(ncid, varid, name, xtype, len, op);
    case NC_UINT: return nc_put_att_uint(ncid, varid, name, xtype, len, op);
    case NC_INT64:
        return nc_put_att_longlong(ncid, varid, name, xtype, len, op);
    case NC_UINT64:
        return nc_put_att_ulonglong(ncid, varid, name, xtype, len, op);
    default: return NC_EBADTYPE;
    }
}

int dnc_get_att(int ncid, int varid, const char *name, int memtype, void *ip)
{
    switch (memtype) {
    case NC_NAT: return nc_get_att(ncid, varid, name, ip);
    case NC_CHAR: return nc_get_att_text(ncid, varid, name, ip);
    case NC_BYTE: return nc_get_att_schar(ncid, varid, name, ip);
    case NC_SHORT: return nc_get_att_short(ncid, varid, name, ip);
    case NC_INT: return nc_get_att_int(ncid, varid, name, ip);
    case NC_FLOAT: return nc_get_att_float(ncid, varid, name, ip);
    case NC_DOUBLE: return nc_get_att_double(ncid, varid, name, ip);
    case NC_UBYTE: return nc_get_att_uchar(ncid, varid, name, ip);
    case NC_USHORT: return nc_get_att_ushort(ncid, varid, name, ip);
    case NC_UINT: return nc_get_att_uint(ncid, varid, name, ip);
    case NC_INT64: return nc_get_att_longlong(ncid, varid, name, ip);
    case NC_UINT64: return nc_get_att_ulonglong(ncid, varid, name, ip);
    default: return NC_EBADTYPE;
    }
}

/* ---- file compare ------------------------------------------------------- */
static unsigned char *slurp(const char *path, size_t *lenp)
{
    FILE *f = fopen(path, "rb");
    unsigned char *buf = NULL;
    size_t cap = 0, len = 0;

    if (!f)
        return NULL;
    for (;;) {
        if (len == cap) {
            unsigned char *nb = realloc(buf, cap = cap ? 2 * cap : 65536);
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0)
            break;
    }
    fclose(f);
    *lenp = len;
    return buf ? buf : malloc(1);
}

static size_t hexline(char *out, size_t n, const char *tag,
                      const unsigned char *b, size_t len, size_t from,
                      size_t upto, size_t mark)
{
    size_t k = (size_t)snprintf(out, n, "    %-9s %08zx:", tag, from);
    for (size_t i = from; i < upto && k < n; i++) {
        if (i < len)
            k += (size_t)snprintf(out + k, n - k, i == mark ? "[%02x]" : " %02x",
                                  b[i]);
        else
            k += (size_t)snprintf(out + k, n - k, " --");
    }
    if (k < n)
        k += (size_t)snprintf(out + k, n - k, "\n");
    return k < n ? k : n;
}

/* ---- which bytes of a classic file belong to the header or a variable -- */

typedef struct {
    const unsigned char *b;
    size_t len, pos;
    int w;        /* 4, or 8 in CDF-5 */
    int bad;
} hdrcur;

static uint64_t hc_uint(hdrcur *c, int n)
{
    uint64_t v = 0;
    if (c->bad || c->len - c->pos < (size_t)n) {
        c->bad = 1;
        return 0;
    }
    for (int i = 0; i < n; i++)
        v = v << 8 | c->b[c->pos++];
    return v;
}

static void hc_skip(hdrcur *c, uint64_t n)
{
    n = (n + 3) & ~(uint64_t)3;
    if (c->bad || c->len - c->pos < n)
        c->bad = 1;
    else
        c->pos += (size_t)n;
}

static void hc_atts(hdrcur *c)
{
    static const int tsz[] = {0, 1, 1, 2, 4, 4, 8, 1, 2, 4, 8, 8};
    uint64_t n;
    hc_uint(c, 4);
    n = hc_uint(c, c->w);
    for (uint64_t i = 0; i < n && !c->bad; i++) {
        uint64_t t, ne;
        hc_skip(c, hc_uint(c, c->w));
        t = hc_uint(c, 4);
        ne = hc_uint(c, c->w);
        if (t < 1 || t > 11 || ne > c->len)
            c->bad = 1;
        else
            hc_skip(c, ne * (uint64_t)tsz[t]);
    }
}

/* The data of one variable of a classic file, as its header says. */
typedef struct cvar {
    uint64_t vsize, begin, bytes, step, nel;   /* bytes: unpadded, per record */
    int isrec, esz;
} cvar;

/* Follows the header of the classic file b: its variables (calloc'd into
 * *vp, varid order), their count, numrecs and the header's length.
 * Returns 0, or -1 when the header cannot be followed. */
static int classic_vars(const unsigned char *b, size_t len, cvar **vp, uint64_t *nvp,
                        uint64_t *numrecsp, uint64_t *hdrlenp)
{
    hdrcur c = {b, len, 4, 4, 0};
    uint64_t numrecs, ndims, nvars, recsize = 0, dimlen[1024];
    cvar *v;
    int ver = len > 4 ? b[3] : 0, nrecvars = 0;
    if (len < 8 || memcmp(b, "CDF", 3) != 0 || (ver != 1 && ver != 2 && ver != 5))
        return -1;
    c.w = ver == 5 ? 8 : 4;
    numrecs = hc_uint(&c, c.w);
    hc_uint(&c, 4);
    ndims = hc_uint(&c, c.w);
    if (ndims > 1024)
        return -1;
    for (uint64_t i = 0; i < ndims && !c.bad; i++) {
        hc_skip(&c, hc_uint(&c, c.w));
        dimlen[i] = hc_uint(&c, c.w);
    }
    hc_atts(&c);
    hc_uint(&c, 4);
    nvars = hc_uint(&c, c.w);
    if (c.bad || nvars > len)
        return -1;
    v = calloc(nvars ? nvars : 1, sizeof *v);
    for (uint64_t i = 0; i < nvars && !c.bad; i++) {
        uint64_t nd, d0 = 0;
        hc_skip(&c, hc_uint(&c, c.w));
        nd = hc_uint(&c, c.w);
        uint64_t nel = 1, t;
        static const int esz[] = {0, 1, 1, 2, 4, 4, 8, 1, 2, 4, 8, 8};
        for (uint64_t k = 0; k < nd && !c.bad; k++) {
            uint64_t id = hc_uint(&c, c.w);
            if (k == 0)
                d0 = id;
            if (id < ndims && dimlen[id] != 0)
                nel *= dimlen[id];
        }
        hc_atts(&c);
        t = hc_uint(&c, 4);
        v[i].vsize = hc_uint(&c, c.w);
        v[i].esz = t >= 1 && t <= 11 ? esz[t] : 1;
        v[i].nel = nel;
        /* unpadded bytes (per record): what the last variable reaches */
        v[i].bytes = t >= 1 && t <= 11 ? nel * (uint64_t)esz[t] : v[i].vsize;
        v[i].begin = hc_uint(&c, ver == 1 ? 4 : 8);
        v[i].isrec = nd > 0 && d0 < ndims && dimlen[d0] == 0;
        if (v[i].isrec) {
            recsize += v[i].vsize;
            nrecvars++;
        }
    }
    if (c.bad) {
        free(v);
        return -1;
    }
    /* one record variable: records are packed, vsize may be padded */
    for (uint64_t i = 0; i < nvars; i++)
        v[i].step = !v[i].isrec ? 0 : nrecvars == 1 ? v[i].bytes : recsize;
    *vp = v;
    *nvp = nvars;
    *numrecsp = numrecs;
    *hdrlenp = c.pos;
    return 0;
}

/* Marks in used[] the header and every variable's bytes (each record of a
 * record variable) of the classic file b, and sets *need to the size the
 * header implies.  Returns 0, or -1 when the header cannot be followed (then
 * nothing is known to be unused). */
static int classic_used(const unsigned char *b, size_t len, unsigned char *used,
                        uint64_t *need)
{
    cvar *v;
    uint64_t nvars, numrecs, hdrlen;
    if (classic_vars(b, len, &v, &nvars, &numrecs, &hdrlen) != 0)
        return -1;
    memset(used, 1, hdrlen < len ? hdrlen : len);
    *need = hdrlen;
    for (uint64_t i = 0; i < nvars; i++) {
        uint64_t nrec = v[i].isrec ? numrecs : 1;
        for (uint64_t r = 0; r < nrec; r++) {
            uint64_t from = v[i].begin + r * v[i].step, to = from + v[i].vsize;
            if (from + v[i].bytes > *need)
                *need = from + v[i].bytes;
            if (from >= len)
                break;
            memset(used + from, 1, (size_t)((to < len ? to : len) - from));
        }
    }
    free(v);
    return 0;
}

/* The variable and linear index of the element byte off belongs to in a
 * classic file whose variables are v[0..nvars): 1 when it is one, 2 when
 * the byte is padding at the end of a variable's (record's) data, 0 when
 * neither. */
static int classic_elem_at(const cvar *v, uint64_t nvars, uint64_t numrecs, uint64_t off,
                           int *varp, size_t *linp)
{
    for (uint64_t i = 0; i < nvars; i++) {
        uint64_t rel, r = 0;
        if (off < v[i].begin || v[i].esz == 0)
            continue;
        rel = off - v[i].begin;
        if (v[i].isrec) {
            if (v[i].step == 0)
                continue;
            if (numrecs == 0)
                continue;
            r = rel / v[i].step;
            if (r >= numrecs)
                r = numrecs - 1;    /* the last record's padding (packed records) */
            rel -= r * v[i].step;
        }
        if (rel >= v[i].vsize)
            continue;
        *varp = (int)i;
        if (rel >= v[i].bytes)
            return 2;
        *linp = (size_t)(r * v[i].nel + rel / (uint64_t)v[i].esz);
        return 1;
    }
    return 0;
}

static int files_cmp(const char *a, const char *b, const dpair *p, char *msg, size_t msgsz);

int dfile_cmp(const char *a, const char *b, char *msg, size_t msgsz)
{
    return files_cmp(a, b, NULL, msg, msgsz);
}

int dfile_cmp_pair(const dpair *p, char *msg, size_t msgsz)
{
    return files_cmp(p->path_nc, p->path_ns, p, msg, msgsz);
}

/* Compares the files a (netCDF-C's) and b (ncslab's): 0 when equal, 2 when
 * they differ only in bytes without defined content that ncslab left zero
 * (unused bytes; with p, also elements p never wrote in a file that has
 * been in nofill mode), 1 otherwise, -1 when a file cannot be read. */
static int files_cmp(const char *a, const char *b, const dpair *p, char *msg, size_t msgsz)
{
    size_t la = 0, lb = 0, k;
    unsigned char *ba = slurp(a, &la), *bb = slurp(b, &lb);
    int rc = 0;

    msg[0] = 0;
    if (!ba || !bb) {
        snprintf(msg, msgsz, "cannot read %s", ba ? b : a);
        rc = -1;
        goto cleanup;
    }
    size_t n = la < lb ? la : lb, off = 0;
    while (off < n && ba[off] == bb[off])
        off++;
    if (off == n && la == lb)
        goto cleanup;
    rc = 1;
    if (la == lb) {
        /* Only unused bytes (no header, no variable) that ncslab left zero
         * and netCDF-C filled from a stale I/O buffer: a known difference
         * (doc/format.md), reported as a note.  With p, also bytes of
         * elements without defined content.  The lengths must be equal:
         * ncslab pads its file as netCDF-C's buffer does (doc/format.md,
         * section 6.5). */
        size_t lmax = la, nstale = 0, nundef = 0, i;
        const unsigned char *hb = ba;   /* headers are equal up to off */
        unsigned char *used = calloc(lmax ? lmax : 1, 1);
        uint64_t need, nvars = 0, numrecs = 0, hdrlen;
        cvar *vt = NULL;
        if (p != NULL && classic_vars(hb, lmax, &vt, &nvars, &numrecs, &hdrlen) != 0)
            vt = NULL;
        if (used != NULL && classic_used(hb, lmax, used, &need) == 0) {
            for (i = off; i < lmax; i++) {
                int var;
                size_t lin;
                unsigned ca = ba[i], cb = bb[i];
                if (ca == cb)
                    continue;
                if (!used[i]) {
                    if (cb != 0)
                        break;
                    nstale++;
                    continue;
                }
                /* Padding after a variable's (record's) data is no
                 * element: only fill writes it, and a redef moves it with
                 * the data, carrying what lay there (netCDF-C's stale bytes
                 * after a single packed record variable, seed 7325).  An
                 * element never written in a nofill file may hold anything
                 * (stale buffer bytes, or what data moved away left: seed
                 * 9439). */
                int at = vt == NULL ? 0 : classic_elem_at(vt, nvars, numrecs, i, &var, &lin);
                if (at == 0 || (at == 1 && !dp_undefined(p, var, lin)) || (at == 2 && cb != 0))
                    break;
                nundef++;
            }
            if (i == lmax) {
                snprintf(msg, msgsz, "from 0x%zx, %zu unused bytes (ncslab's zero) and %zu "
                         "bytes of padding or of elements never written (nofill) differ",
                         off, nstale, nundef);
                rc = 2;
            }
        }
        free(vt);
        free(used);
        if (rc == 2)
            goto cleanup;
    }
    k = (size_t)snprintf(msg, msgsz,
                         "files differ: %s (%zu bytes) vs %s (%zu bytes), "
                         "first difference at offset %zu (0x%zx)\n",
                         a, la, b, lb, off, off);
    /* Two lines of 16 bytes before and after the difference, per file. */
    size_t from = off >= 16 ? (off - 16) & ~(size_t)15 : 0;
    for (size_t row = from; row < from + 48 && k < msgsz; row += 16) {
        k += hexline(msg + k, msgsz - k, "netCDF-C", ba, la, row, row + 16, off);
        if (k < msgsz)
            k += hexline(msg + k, msgsz - k, "ncslab", bb, lb, row, row + 16, off);
    }
    if (k < msgsz) {
        size_t ndiff = 0;
        for (size_t i = off; i < n; i++)
            ndiff += ba[i] != bb[i];
        snprintf(msg + k, msgsz - k, "    %zu differing bytes in the common "
                 "length\n", ndiff);
    }
cleanup:
    free(ba);
    free(bb);
    return rc;
}

/* ---- written elements ------------------------------------------------------ */
static void mark_lin(dpair *p, int v, size_t lin)
{
    size_t need = lin / 8 + 1;
    if (v < 0 || v >= DP_MAXV)
        return;
    if (need > p->wcap[v]) {
        size_t cap = p->wcap[v] ? p->wcap[v] : 64;
        while (cap < need)
            cap *= 2;
        unsigned char *m = realloc(p->wmap[v], cap);
        if (m == NULL)
            abort();
        memset(m + p->wcap[v], 0, cap - p->wcap[v]);
        p->wmap[v] = m;
        p->wcap[v] = cap;
    }
    p->wmap[v][lin / 8] |= (unsigned char)(1u << (lin % 8));
}

void dp_mark_slab(dpair *p, int v, const dslab *s)
{
    for (size_t k = 0; k < s->nel; k++) {
        size_t moff, lin;
        dslab_elem(p, v, s, k, &moff, &lin, NULL);
        mark_lin(p, v, lin);
    }
}

void dp_mark_first(dpair *p, int v, size_t n)
{
    for (size_t lin = 0; lin < n; lin++)
        mark_lin(p, v, lin);
}

int dp_undefined(const dpair *p, int v, size_t lin)
{
    if (!p->ever_nofill || v < 0 || v >= DP_MAXV)
        return 0;
    return lin / 8 >= p->wcap[v] || !(p->wmap[v][lin / 8] & (1u << (lin % 8)));
}

void dp_free_marks(dpair *p)
{
    for (int v = 0; v < DP_MAXV; v++) {
        free(p->wmap[v]);
        p->wmap[v] = NULL;
        p->wcap[v] = 0;
    }
}

/* ---- the pair under test ---------------------------------------------------- */
#define DP_MAX_PRINTED 40   /* mismatch reports per test process */
static int nprinted;
static int trace;

void dp_set_trace(int on)
{
    trace = on;
}

void dp_note(dpair *p, const char *fmt, ...)
{
    va_list ap;
    char *h = p->hist[p->nhist++ % DP_HIST];
    va_start(ap, fmt);
    vsnprintf(h, DP_HISTLEN, fmt, ap);
    va_end(ap);
    if (trace)
        fprintf(stderr, "  [%s] %s\n", p->ctx, h);
}

void dp_mismatch(dpair *p, const char *fmt, ...)
{
    va_list ap;
    p->fails++;
    if (nprinted++ >= DP_MAX_PRINTED) {
        if (nprinted == DP_MAX_PRINTED + 1)
            fprintf(stderr, "(further mismatches not printed)\n");
        return;
    }
    fprintf(stderr, "MISMATCH [%s] ", p->ctx);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    if (!p->hist_dumped) {
        int from = p->nhist > DP_HIST ? p->nhist - DP_HIST : 0;
        p->hist_dumped = 1;
        fprintf(stderr, "  calls before it (oldest first, rc netCDF-C/ncslab):\n");
        for (int i = from; i < p->nhist; i++)
            fprintf(stderr, "    %s\n", p->hist[i % DP_HIST]);
    }
}

/* Compares the return codes of one call; a dp_mismatch on a call that changed
 * a file (fatal) ends the iteration. */
int dp_rc_eq(dpair *p, const char *what, int a, int b, int fatal)
{
    if (a == b)
        return 1;
    dp_mismatch(p, "%s: netCDF-C returned %d (%s), ncslab %d (%s)", what, a,
             nc_strerror(a), b, ncs_strerror(b));
    if (fatal)
        p->dead = 1;
    return 0;
}

const char *dfmt_sizes(char *buf, size_t n, const size_t *v, int rank)
{
    size_t k = (size_t)snprintf(buf, n, "{");
    for (int d = 0; d < rank && k < n; d++)
        k += (size_t)snprintf(buf + k, n - k, d ? ",%zu" : "%zu", v[d]);
    if (k < n)
        snprintf(buf + k, n - k, "}");
    return buf;
}

const char *dfmt_diffs(char *buf, size_t n, const ptrdiff_t *v, int rank)
{
    size_t k = (size_t)snprintf(buf, n, "{");
    for (int d = 0; d < rank && k < n; d++)
        k += (size_t)snprintf(buf + k, n - k, d ? ",%td" : "%td", v[d]);
    if (k < n)
        snprintf(buf + k, n - k, "}");
    return buf;
}

/* ---- model -------------------------------------------------------------- */
void dp_load_model(dpair *p)
{
    int nd = 0, nv = 0, unlim = -1;
    nc_inq(p->nc, &nd, &nv, NULL, &unlim);
    p->ndims = nd < DP_MAXD ? nd : DP_MAXD;
    p->nvars = nv < DP_MAXV ? nv : DP_MAXV;
    p->recdim = unlim;
    for (int d = 0; d < p->ndims; d++)
        nc_inq_dimlen(p->nc, d, &p->dimlen[d]);
    for (int v = 0; v < p->nvars; v++) {
        int nvd = 0;
        nc_inq_varndims(p->nc, v, &nvd);
        p->vndims[v] = nvd <= DP_MAXR + 1 ? nvd : DP_MAXR + 1;
        nc_inq_vartype(p->nc, v, &p->vtype[v]);
        if (nvd <= DP_MAXR + 1)
            nc_inq_vardimid(p->nc, v, p->vdims[v]);
    }
}

size_t dp_cur_len(dpair *p, int dimid)
{
    size_t len = 0;
    if (dimid == p->recdim) {
        nc_inq_dimlen(p->nc, dimid, &len);
        return len;
    }
    return p->dimlen[dimid];
}

static int ntypes(const dpair *p)
{
    return p->fmt == 5 ? NC_UINT64 : NC_DOUBLE;
}

int dp_random_xtype(dpair *p)
{
    return 1 + (int)drng_below(&p->r, (unsigned)ntypes(p));
}

int dp_random_numeric(dpair *p)
{
    static const int t[] = {NC_BYTE, NC_SHORT, NC_INT, NC_FLOAT, NC_DOUBLE,
                            NC_UBYTE, NC_USHORT, NC_UINT, NC_INT64, NC_UINT64};
    return t[drng_below(&p->r, 10)];
}

/* A memory type for a request on a variable of type ext: text for text,
 * otherwise the untyped call, the same type, or any numeric type. */
int dp_pick_memtype(dpair *p, int ext)
{
    unsigned r = drng_below(&p->r, 100);
    if (ext == NC_CHAR)
        return r < 70 ? NC_CHAR : NC_NAT;
    return r < 20 ? NC_NAT : r < 40 ? ext : dp_random_numeric(p);
}

/* ---- values -------------------------------------------------------------
 * f(v, lin) at one of three magnitudes, inside the range of both the
 * external and the memory type. */
long double dval_gen(int ext, int mem, int varid, size_t lin, int scale)
{
    if (mem == NC_NAT)
        mem = ext;
    if (ext == NC_CHAR)
        return 'a' + (long double)((varid * 7 + lin) % 26);
    long double lo = fmaxl(dt_min(ext), dt_min(mem));
    long double hi = fminl(dt_max(ext), dt_max(mem));
    long double v;
    switch (scale) {
    case 0:
        v = (long double)((varid * 37 + lin) % 200) - 100;
        break;
    case 1:
        v = varid * 10000.0L + lin + 1;
        if (lin & 1)
            v = -v;
        break;
    default:
        v = (varid + 1) * (hi > 1e15L ? 1099511627776.0L : 65536.0L) + lin;
        if (lin & 1)
            v = -v;
        break;
    }
    if (scale && dt_is_float(ext) && dt_is_float(mem))
        v += 0.25L * (long double)(lin % 4);
    if (v < lo || v > hi)
        v = lo + fmodl(fabsl(v), hi - lo + 1);
    return v;
}

/* A value that fits memory type mem but not external type ext, when one
 * exists: the request then has to end in NC_ERANGE. */
int dval_oor(int ext, int mem, size_t lin, long double *vp)
{
    long double c[2];
    if (mem == NC_NAT || mem == ext || ext == NC_DOUBLE || ext == NC_CHAR)
        return 0;
    if (ext == NC_FLOAT) {
        if (mem != NC_DOUBLE)
            return 0;
        c[0] = 1e300L;
        c[1] = -1e300L;
    } else if (dt_is_float(mem)) {
        c[0] = dt_max(ext) * 2 + 2;
        c[1] = dt_min(ext) < 0 ? dt_min(ext) * 2 - 2 : -1.0L - (long double)(lin % 7);
    } else {
        c[0] = dt_max(ext) + 1 + (long double)(lin % 7);
        c[1] = dt_min(ext) - 1 - (long double)(lin % 7);
    }
    for (int i = 0; i < 2; i++) {
        long double v = c[(i + lin) % 2];
        if (dt_fits(mem, v)) {
            *vp = v;
            return 1;
        }
    }
    return 0;
}

/* ---- slabs -------------------------------------------------------------- */
/* A valid request on variable v (for a put, one that may add records).
 * kind < 0 picks one at random. */
void dslab_gen(dpair *p, int v, int for_put, int kind, dslab *s)
{
    drng *r = &p->r;
    int rank = p->vndims[v];
    size_t total = 1;

    memset(s, 0, sizeof *s);
    s->rank = rank;
    for (int d = 0; d < rank; d++)
        total *= dp_cur_len(p, p->vdims[v][d]);
    if (kind < 0) {
        unsigned k = drng_below(r, 100);
        kind = k < 10 ? DK_VAR : k < 25 ? DK_VAR1 : k < 50 ? DK_VARA
             : k < 75 ? DK_VARS : DK_VARM;
        if (kind == DK_VAR && total > 2000)
            kind = DK_VARA;
    }
    for (int d = 0; d < rank; d++) {
        int dim = p->vdims[v][d];
        size_t len = dp_cur_len(p, dim);
        ptrdiff_t st = (kind == DK_VARS || kind == DK_VARM) ? 1 + (ptrdiff_t)drng_below(r, 3) : 1;
        s->stride[d] = st;
        if (kind == DK_VAR) {
            s->count[d] = len;
        } else if (kind == DK_VAR1) {
            if (dim == p->recdim && for_put)
                s->start[d] = drng_below(r, (unsigned)len + 3);
            else if (len == 0)
                kind = DK_VARA;          /* nothing to index: count 0 below */
            else
                s->start[d] = drng_below(r, (unsigned)len);
            s->count[d] = 1;
        } else if (dim == p->recdim && for_put) {
            s->start[d] = drng_below(r, (unsigned)len + 3);
            s->count[d] = drng_chance(r, 8) ? 0 : 1 + drng_below(r, 3);
        } else if (len == 0) {
            s->start[d] = 0;
            s->count[d] = 0;
        } else if (drng_chance(r, 4)) {
            s->start[d] = drng_below(r, (unsigned)len + 1);
            s->count[d] = 0;
        } else {
            s->start[d] = drng_below(r, (unsigned)len);
            size_t maxc = (len - 1 - s->start[d]) / (size_t)st + 1;
            s->count[d] = 1 + drng_below(r, (unsigned)(maxc < 4 ? maxc : 4));
        }
    }
    if (kind == DK_VAR1)
        for (int d = 0; d < rank; d++)
            s->count[d] = 1;
    s->kind = kind;
    s->nel = 1;
    for (int d = 0; d < rank; d++)
        s->nel *= s->count[d];
    s->span = s->nel;
    s->base = 0;
    if (kind == DK_VARM) {
        int order[DP_MAXR + 1];
        ptrdiff_t step = 1 + drng_chance(r, 20), lo = 0, hi = 0;
        s->pass_stride = drng_chance(r, 80);
        if (!s->pass_stride)
            for (int d = 0; d < rank; d++)
                s->stride[d] = 1;
        for (int d = 0; d < rank; d++)
            order[d] = d;
        for (int d = rank - 1; d > 0; d--) {
            int j = (int)drng_below(r, (unsigned)d + 1), t = order[d];
            order[d] = order[j];
            order[j] = t;
        }
        for (int i = rank - 1; i >= 0; i--) {
            int d = order[i];
            s->imap[d] = step;
            step = step * (ptrdiff_t)(s->count[d] ? s->count[d] : 1) + drng_chance(r, 20);
        }
        for (int d = 0; d < rank; d++) {
            if (drng_chance(r, 30))
                s->imap[d] = -s->imap[d];
            ptrdiff_t ext = (ptrdiff_t)(s->count[d] ? s->count[d] - 1 : 0) * s->imap[d];
            if (ext < 0)
                lo += ext;
            else
                hi += ext;
        }
        s->base = (size_t)-lo;
        s->span = (size_t)(hi - lo + 1);
    }
    if (s->span == 0)
        s->span = 1;
}

const char *dslab_str(const dslab *s, char *buf, size_t n)
{
    char a[96], b[96], c[96], d[96];
    switch (s->kind) {
    case DK_VAR: snprintf(buf, n, "(whole)"); break;
    case DK_VAR1: snprintf(buf, n, "index=%s", dfmt_sizes(a, sizeof a, s->start, s->rank)); break;
    case DK_VARA:
        snprintf(buf, n, "start=%s count=%s", dfmt_sizes(a, sizeof a, s->start, s->rank),
                 dfmt_sizes(b, sizeof b, s->count, s->rank));
        break;
    case DK_VARS:
        snprintf(buf, n, "start=%s count=%s stride=%s",
                 dfmt_sizes(a, sizeof a, s->start, s->rank),
                 dfmt_sizes(b, sizeof b, s->count, s->rank),
                 dfmt_diffs(c, sizeof c, s->stride, s->rank));
        break;
    default:
        snprintf(buf, n, "start=%s count=%s stride=%s imap=%s",
                 dfmt_sizes(a, sizeof a, s->start, s->rank),
                 dfmt_sizes(b, sizeof b, s->count, s->rank),
                 s->pass_stride ? dfmt_diffs(c, sizeof c, s->stride, s->rank) : "NULL",
                 dfmt_diffs(d, sizeof d, s->imap, s->rank));
        break;
    }
    return buf;
}

/* Element k of the slab (C order of count): its memory offset in elements
 * (relative to the buffer start, base included) and its linear index in
 * the variable. */
void dslab_elem(const dpair *p, int v, const dslab *s, size_t k,
                     size_t *moff, size_t *lin, size_t *coord)
{
    size_t idx[DP_MAXR + 1], rest = k, l = 0;
    ptrdiff_t m = (ptrdiff_t)s->base;
    for (int d = s->rank - 1; d >= 0; d--) {
        idx[d] = s->count[d] ? rest % s->count[d] : 0;
        rest = s->count[d] ? rest / s->count[d] : 0;
    }
    for (int d = 0; d < s->rank; d++) {
        int dim = p->vdims[v][d];
        ptrdiff_t st = (s->kind == DK_VARS || (s->kind == DK_VARM && s->pass_stride))
                           ? s->stride[d] : 1;
        size_t c = s->start[d] + idx[d] * (size_t)st;
        if (coord)
            coord[d] = c;
        l = l * (dim == p->recdim ? DP_REC_LIN : p->dimlen[dim]) + c;
        if (s->kind == DK_VARM)
            m += (ptrdiff_t)idx[d] * s->imap[d];
    }
    *moff = s->kind == DK_VARM ? (size_t)m : k;
    *lin = l;
}


int dslab_put_nc(dpair *p, int v, const dslab *s, int mem, const unsigned char *buf, size_t msz)
{
    return dnc_put(p->nc, v, s->kind, s->start, s->count, DSLAB_STRIDE(s), s->imap,
                   mem, buf + s->base * msz);
}

int dslab_put_ns(dpair *p, int v, const dslab *s, int mem, const unsigned char *buf, size_t msz)
{
    if (p->only_nc)
        return NC_NOERR;
    return dns_put(p->ns, v, s->kind, s->start, s->count, DSLAB_STRIDE(s), s->imap,
                   mem, buf + s->base * msz);
}

/* The same elements as s, read with the variable's own type into a packed
 * C-order array (the reference for range checks and re-reads). */
int dslab_read_packed(dpair *p, int lib_ns, int v, const dslab *s, void *out)
{
    dslab q = *s;
    if (q.kind == DK_VARM && !q.pass_stride)
        for (int d = 0; d < q.rank; d++)
            q.stride[d] = 1;
    if (q.kind != DK_VARS && q.kind != DK_VARM)
        for (int d = 0; d < q.rank; d++)
            q.stride[d] = 1;
    if (q.kind == DK_VAR)
        for (int d = 0; d < q.rank; d++)
            q.start[d] = 0;
    if (lib_ns)
        return ncs_get(p->ns, v, q.start, q.count, q.stride, NULL, NC_NAT, out);
    return nc_get_vars(p->nc, v, q.start, q.count, q.stride, out);
}

void dp_check_numrecs(dpair *p, const char *after)
{
    size_t a = 0, b = 0;
    if (p->recdim < 0 || p->only_nc)
        return;
    int ra = nc_inq_dimlen(p->nc, p->recdim, &a);
    int rb = ncs_inq_dimlen(p->ns, p->recdim, &b);
    if (dp_rc_eq(p, "inq_dimlen(record)", ra, rb, 1) && a != b) {
        dp_mismatch(p, "number of records after %s: netCDF-C %zu, ncslab %zu", after, a, b);
        p->dead = 1;
    }
}

int dfile_short(const char *path, size_t *size, uint64_t *need)
{
    size_t len = 0;
    unsigned char *b = slurp(path, &len), *used = NULL;
    int rc = 0;
    *size = len;
    *need = 0;
    if (b != NULL && (used = calloc(len ? len : 1, 1)) != NULL &&
        classic_used(b, len, used, need) == 0)
        rc = *need > len;
    free(used);
    free(b);
    return rc;
}
