/*
 * n4_conv.c -- netCDF-4's conventions that both netCDF-4 stores follow
 * (nc4.h): bookkeeping attributes, quantization attributes, and how a
 * variable's chunks (or, for contiguous storage, its blocks) and fill
 * value are described to the chunk cache.
 */
#include "nc4.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

int ncsi_nc4_reserved_att(const char *name)
{
    /* netCDF-4's, a dimension scale's, and xarray's or NCZarr's
     * bookkeeping, which netCDF-C 4.9 does not show as netCDF attributes
     * (on any object); the _Quantize* attributes are not among them:
     * netCDF-C reports them like any other */
    static const char *const names[] = {
        "CLASS", "NAME", "REFERENCE_LIST", "DIMENSION_LIST", "_Netcdf4Coordinates",
        "_Netcdf4Dimid", "_nc3_strict", "_NCProperties", "_SuperblockVersion",
        "_IsNetcdf4", "_Format", "_ARRAY_DIMENSIONS", "_Codecs", "_NCZARR_ATTR",
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(name, names[i]) == 0)
            return 1;
    return 0;
}

/* ---- dimensions and names ------------------------------------------------------ */

#define SCALE(first, stride, i) ((ncsi_nc4_scale *)(void *)((char *)(first) + (size_t)(i) * (stride)))

static int by_fileid(const void *a, const void *b)
{
    const ncsi_nc4_scale *x = *(const ncsi_nc4_scale *const *)a;
    const ncsi_nc4_scale *y = *(const ncsi_nc4_scale *const *)b;
    return (x->fileid > y->fileid) - (x->fileid < y->fileid);
}

int ncsi_nc4_number_dims(ncsi_nc4_scale *first, size_t stride, int n, int ndims, int *dense)
{
    long long next = 0;
    ncsi_nc4_scale **order;
    int k = 0, dup = 0;
    *dense = 1;
    for (int i = 0; i < n; i++) {
        ncsi_nc4_scale *d = SCALE(first, stride, i);
        if (!d->is_scale)
            continue;
        if (d->dimid < 0) {
            if (next > INT_MAX)
                return NCSI_CORRUPT(NCS_ENOTNC);
            d->fileid = (int)next++;
        } else {
            d->fileid = d->dimid;
            if (d->fileid >= next)
                next = (long long)d->fileid + 1;
        }
        if (d->fileid >= ndims)
            *dense = 0;
    }
    if (*dense) {
        for (int i = 0; i < n; i++) {
            ncsi_nc4_scale *d = SCALE(first, stride, i);
            d->dimid = d->is_scale ? d->fileid : -1;
        }
        return NCS_NOERR;
    }
    order = ncsi_malloc((size_t)(ndims > 0 ? ndims : 1) * sizeof *order);
    if (order == NULL)
        return NCS_ERR(NCS_ENOMEM);
    for (int i = 0; i < n; i++)
        if (SCALE(first, stride, i)->is_scale)
            order[k++] = SCALE(first, stride, i);
    qsort(order, (size_t)k, sizeof *order, by_fileid);
    for (int i = 0; i < k; i++) {
        order[i]->dimid = i;
        if (i > 0 && order[i]->fileid == order[i - 1]->fileid)
            dup = 1;
    }
    free(order);
    return dup ? NCSI_CORRUPT(NCS_ENOTNC) : NCS_NOERR;
}

int ncsi_nc4_dim_by_fileid(const ncsi_nc4_scale *first, size_t stride, int n, int ndims,
                           int dense, int id)
{
    if (dense)
        return id >= 0 && id < ndims ? id : -1;
    for (int i = 0; i < n; i++) {
        const ncsi_nc4_scale *d = SCALE(first, stride, i);
        if (d->is_scale && d->fileid == id)
            return d->dimid;
    }
    return -1;
}

const char *ncsi_nc4_var_name(const char *link)
{
    size_t n = strlen(NCSI_NON_COORD_PREFIX);
    if (strncmp(link, NCSI_NON_COORD_PREFIX, n) == 0 && link[n] != '\0')
        return link + n;
    return link;
}

/* ---- quantization ---------------------------------------------------------------- */

const char *ncsi_nc4_quantize_name(int mode)
{
    switch (mode) {
    case NCS_QUANTIZE_BITGROOM:   return "_QuantizeBitGroomNumberOfSignificantDigits";
    case NCS_QUANTIZE_GRANULARBR: return "_QuantizeGranularBitRoundNumberOfSignificantDigits";
    case NCS_QUANTIZE_BITROUND:   return "_QuantizeBitRoundNumberOfSignificantBits";
    default:                      return NULL;
    }
}

void ncsi_nc4_quantize_of(const ncs_attlist *list, int *modep, int *nsdp)
{
    *modep = NCS_NOQUANTIZE;
    *nsdp = 0;
    for (int mode = NCS_QUANTIZE_BITGROOM; mode <= NCS_QUANTIZE_BITROUND; mode++) {
        int i = ncsi_find_att(list, ncsi_nc4_quantize_name(mode));
        const ncs_att *a = i >= 0 ? &list->a[i] : NULL;
        uint32_t be;
        if (a == NULL || a->type != NCS_INT || a->nelems < 1)
            continue;
        memcpy(&be, a->xval, sizeof be);
        *modep = mode;
        *nsdp = (int)ncsi_be32(be);
        return;
    }
}

void ncsi_nc4_block_shape(const ncs_var *v, size_t esz, uint64_t *chunk)
{
    uint64_t inner = esz;
    int d;
    for (d = 0; d < v->ndims; d++)
        chunk[d] = 1;
    for (d = v->ndims - 1; d >= 0; d--) {
        if (v->shape[d] <= NCSI_NC4_BLOCK_BYTES / inner) {
            chunk[d] = v->shape[d] ? v->shape[d] : 1;
            inner *= chunk[d];
        } else {
            chunk[d] = NCSI_NC4_BLOCK_BYTES / inner ? NCSI_NC4_BLOCK_BYTES / inner : 1;
            break;
        }
    }
}

int ncsi_nc4_chunkvar(ncs_chunkvar *ck, const ncs_var *v, const uint64_t *chunk, int direct,
                      int zero_fill)
{
    unsigned char be[8];
    uint64_t elems = 1;
    int i;

    NCSI_ASSERT(ck->ndims == v->ndims);
    ck->esz = ncsi_type_size(v->type);
    if (ck->esz == 0)
        return NCS_ERR(NCS_EBADTYPE);
    ck->type = v->type;
    ck->isrec = v->isrec;
    for (int d = 0; d < v->ndims; d++) {
        ck->shape[d] = v->shape[d];
        ck->chunk[d] = chunk[d];
        if (ck->chunk[d] == 0)
            return NCS_ERR(NCS_EBADCHUNK);
        ck->grid[d] = v->shape[d] ? (v->shape[d] + ck->chunk[d] - 1) / ck->chunk[d] : 0;
    }
    /* cdsz[d]: elements of a chunk in dimensions d.. (as ncs_var.dsizes);
     * estride[d]: elements between neighbours along d */
    for (int d = v->ndims - 1; d >= 0; d--) {
        ck->estride[d] = elems;
        if (ncsi_mul_u64(elems, ck->chunk[d], &elems))
            return NCS_ERR(NCS_EBADCHUNK);
        ck->cdsz[d] = elems;
    }
    /* only chunks ncslab moves itself are bounded (HDF5 chunks are under
     * 4 GiB) */
    if (direct && (elems > SIZE_MAX / ck->esz || elems * ck->esz > ((size_t)1 << 32)))
        return NCS_ERR(NCS_EBADCHUNK);
    ck->chunk_bytes = direct ? (size_t)elems * ck->esz : 0;
    i = ncsi_find_att(&v->atts, "_FillValue");
    if (i >= 0 && v->atts.a[i].type == v->type && v->atts.a[i].nelems == 1)
        memcpy(be, v->atts.a[i].xval, ck->esz);
    else if (zero_fill)
        memset(be, 0, ck->esz);
    else
        ncsi_default_fill(v->type, be, 1);
    ncsi_decode(v->type, be, 1, v->type, ck->fill, 1, 5);
    return NCS_NOERR;
}

int ncsi_nc4_probe(ncs_io *io, uint64_t size, int *claims)
{
    static const unsigned char sig[8] = { 0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n' };
    unsigned char buf[8];
    size_t got;
    for (uint64_t off = 0; off + 8 <= size; off = off ? off * 2 : 512) {
        int status = ncsi_io_read(io, off, buf, 8, &got);
        if (status != NCS_NOERR)
            return status;
        if (got == 8 && memcmp(buf, sig, 8) == 0) {
            *claims = NCSI_CLAIM_SURE;
            break;
        }
    }
    return NCS_NOERR;
}

/* ---- the commit journal ------------------------------------------------------------
 * The HDF5 store's driver writes it (lib/store/hdf5/h5_driver.c has the
 * rules, doc/reliability.md the byte table); both stores read it.  Version
 * 2 ("NCSJRNL2"): n pages, their numbers (u64 each), zeros, and the
 * trailer "NCSJRNL2" | u64 n | u64 final size | u64 J | u64 checksum, at
 * the end of a page-aligned span from J; version 1 ("NCSJRNL1", written
 * until 2026-12): records of u64 page number | page, then "NCSJRNL1" | u64
 * n | u64 final | u64 J | u32 crc32 | u32 0. */

static const unsigned char jmagic1[8] = { 'N', 'C', 'S', 'J', 'R', 'N', 'L', '1' };
static const unsigned char jmagic2[8] = { 'N', 'C', 'S', 'J', 'R', 'N', 'L', '2' };

/* The checksum of version 2: 64 bits over whole little-endian 8-byte
 * words w[0], w[1], ...: eight lanes, L[j] = (j+1) * P2 at first; word i
 * goes into lane j = i % 8 as L[j] = rotl64((L[j] + w[i]) * P1, 31); at
 * the end, with h = 8 * the number of words, for j = 0..7: h = rotl64(h ^
 * (L[j] * P2), 27) * P1 + P3, and then h ^= h >> 33, h *= P2, h ^= h >> 29,
 * h *= P3, h ^= h >> 32 (the primes of xxHash64, below).  Each step of a
 * lane is invertible, so a journal that differs from the one written in a
 * single word always has another sum, and one some of whose blocks a power
 * loss left old almost always.  One multiply a word, eight chains side by
 * side: 0.4 instructions a byte, where zlib's crc32, which the first
 * version used, took 3.5 (3.5 M instructions of the 5.3 M a put+sync of a
 * 960 KB variable cost in user space, callgrind). */
#define JP1 0x9E3779B185EBCA87ull
#define JP2 0xC2B2AE3D27D4EB4Full
#define JP3 0x165667B19E3779F9ull

static uint64_t get_u64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static uint64_t rotl64(uint64_t x, int r)
{
    return x << r | x >> (64 - r);
}

static uint64_t le64(const unsigned char *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
#ifdef WORDS_BIGENDIAN
    v = __builtin_bswap64(v);
#endif
    return v;
}

void ncsi_nc4_jsum_init(ncsi_nc4_jsum *s)
{
    for (int j = 0; j < NCSI_NC4_JLANES; j++)
        s->lane[j] = (uint64_t)(j + 1) * JP2;
    s->words = 0;
}

#define JSTEP(acc, p) ((acc) = rotl64(((acc) + le64(p)) * JP1, 31))

void ncsi_nc4_jsum_add(ncsi_nc4_jsum *s, const unsigned char *p, size_t n)
{
    size_t w = n / 8, i = 0;
    NCSI_ASSERT(n % 8 == 0);
    for (; i < w && s->words % NCSI_NC4_JLANES != 0; i++, s->words++)
        JSTEP(s->lane[s->words % NCSI_NC4_JLANES], p + 8 * i);
    if (i + NCSI_NC4_JLANES <= w) {
        uint64_t a = s->lane[0], b = s->lane[1], c = s->lane[2], d = s->lane[3];
        uint64_t e = s->lane[4], f = s->lane[5], g = s->lane[6], h = s->lane[7];
        for (; i + NCSI_NC4_JLANES <= w; i += NCSI_NC4_JLANES, s->words += NCSI_NC4_JLANES) {
            const unsigned char *q = p + 8 * i;
            JSTEP(a, q);
            JSTEP(b, q + 8);
            JSTEP(c, q + 16);
            JSTEP(d, q + 24);
            JSTEP(e, q + 32);
            JSTEP(f, q + 40);
            JSTEP(g, q + 48);
            JSTEP(h, q + 56);
        }
        s->lane[0] = a;
        s->lane[1] = b;
        s->lane[2] = c;
        s->lane[3] = d;
        s->lane[4] = e;
        s->lane[5] = f;
        s->lane[6] = g;
        s->lane[7] = h;
    }
    for (; i < w; i++, s->words++)
        JSTEP(s->lane[s->words % NCSI_NC4_JLANES], p + 8 * i);
}

uint64_t ncsi_nc4_jsum_end(const ncsi_nc4_jsum *s)
{
    uint64_t h = s->words * 8;
    for (int j = 0; j < NCSI_NC4_JLANES; j++)
        h = rotl64(h ^ (s->lane[j] * JP2), 27) * JP1 + JP3;
    h ^= h >> 33;
    h *= JP2;
    h ^= h >> 29;
    h *= JP3;
    return h ^ h >> 32;
}

uint64_t ncsi_nc4_jindex_bytes(uint64_t n)
{
    return NCS_RNDUP(8 * n + NCSI_NC4_JTRAILER, NCSI_NC4_JPAGE);
}

/* n bytes at off, zeros past the end of the file. */
static int read_full(ncs_io *io, void *buf, size_t n, uint64_t off)
{
    size_t got = 0;
    int status = ncsi_io_read(io, off, buf, n, &got);
    if (status == NCS_NOERR && got < n)
        memset((char *)buf + got, 0, n - got);
    return status;
}

/* Gives page() the n pages whose numbers are the u64s at nos, page i's
 * bytes read at J + i * stride + skip; *ok 0 when a number lies at or past
 * page lim, or page() says it came before. */
static int journal_pages(ncs_io *io, const unsigned char *nos, uint64_t n, uint64_t J,
                         uint64_t stride, uint64_t skip, uint64_t lim, ncsi_nc4_jpage_fn page,
                         void *arg, int *ok)
{
    unsigned char *buf = ncsi_malloc(NCSI_NC4_JPAGE);
    int status = buf == NULL ? NCS_ERR(NCS_ENOMEM) : NCS_NOERR;
    *ok = 1;
    for (uint64_t i = 0; i < n && status == NCS_NOERR && *ok; i++) {
        uint64_t no = get_u64(nos + 8 * i);
        if (no >= lim) {
            *ok = 0;
            break;
        }
        status = read_full(io, buf, NCSI_NC4_JPAGE, J + i * stride + skip);
        if (status == NCS_NOERR)
            status = page(arg, no, buf);
        if (status > 0) {
            *ok = 0;
            status = NCS_NOERR;
        }
    }
    free(buf);
    return status;
}

/* A first-version journal whose trailer t ends the file at psize. */
static int journal1(ncs_io *io, const unsigned char *t, uint64_t psize, uint64_t *final,
                    int *found, ncsi_nc4_jpage_fn page, void *arg)
{
    uint64_t n = get_u64(t + 8), J = get_u64(t + 24);
    uLong crc = crc32(0L, Z_NULL, 0), stored = (uLong)(get_u64(t + 32) & 0xFFFFFFFFu);
    unsigned char *rec = NULL, *nos = NULL;
    int status = NCS_NOERR;
    *final = get_u64(t + 16);
    if (J % NCSI_NC4_JPAGE != 0 || J < *final || J > psize - NCSI_NC4_JTRAILER ||
        (psize - NCSI_NC4_JTRAILER - J) % NCSI_NC4_JRECORD != 0 ||
        n != (psize - NCSI_NC4_JTRAILER - J) / NCSI_NC4_JRECORD)
        return NCS_NOERR;
    rec = ncsi_malloc(NCSI_NC4_JRECORD);
    nos = ncsi_malloc(n > 0 ? (size_t)n * 8 : 1);
    if (rec == NULL || nos == NULL)
        status = NCS_ERR(NCS_ENOMEM);
    for (uint64_t i = 0; i < n && status == NCS_NOERR; i++) {
        status = read_full(io, rec, NCSI_NC4_JRECORD, J + i * NCSI_NC4_JRECORD);
        crc = crc32(crc, rec, NCSI_NC4_JRECORD);
        memcpy(nos + 8 * i, rec, 8);
    }
    crc = crc32(crc, t, 32);
    if (status == NCS_NOERR && crc == stored)
        status = journal_pages(io, nos, n, J, NCSI_NC4_JRECORD, 8,
                               NCS_RNDUP(*final, NCSI_NC4_JPAGE) / NCSI_NC4_JPAGE, page, arg,
                               found);
    free(nos);
    free(rec);
    return status;
}

/* A second-version journal whose trailer t ends the file at psize: its
 * checksum checked over the file's bytes, then its pages. */
static int journal2(ncs_io *io, const unsigned char *t, uint64_t psize, uint64_t *final,
                    int *found, ncsi_nc4_jpage_fn page, void *arg)
{
    enum { BATCH = 64 };
    uint64_t n = get_u64(t + 8), J = get_u64(t + 24), ilen;
    unsigned char *buf = NULL, *idx = NULL;
    ncsi_nc4_jsum sum;
    int status = NCS_NOERR;
    *final = get_u64(t + 16);
    if (J % NCSI_NC4_JPAGE != 0 || J < *final || J > psize || n > (psize - J) / NCSI_NC4_JPAGE)
        return NCS_NOERR;
    ilen = ncsi_nc4_jindex_bytes(n);
    if (psize - J - n * NCSI_NC4_JPAGE != ilen)
        return NCS_NOERR;
    ncsi_nc4_jsum_init(&sum);
    buf = ncsi_malloc(BATCH * NCSI_NC4_JPAGE);
    idx = ncsi_malloc((size_t)ilen);
    if (buf == NULL || idx == NULL)
        status = NCS_ERR(NCS_ENOMEM);
    for (uint64_t i = 0; i < n && status == NCS_NOERR; i += BATCH) {
        size_t k = n - i < BATCH ? (size_t)(n - i) : BATCH;
        status = read_full(io, buf, k * NCSI_NC4_JPAGE, J + i * NCSI_NC4_JPAGE);
        ncsi_nc4_jsum_add(&sum, buf, k * NCSI_NC4_JPAGE);
    }
    if (status == NCS_NOERR)
        status = read_full(io, idx, (size_t)ilen, J + n * NCSI_NC4_JPAGE);
    if (status == NCS_NOERR) {
        ncsi_nc4_jsum_add(&sum, idx, (size_t)ilen - 8);
        if (ncsi_nc4_jsum_end(&sum) == get_u64(t + 32))
            status = journal_pages(io, idx, n, J, NCSI_NC4_JPAGE, 0,
                                   NCS_RNDUP(*final, NCSI_NC4_JPAGE) / NCSI_NC4_JPAGE, page,
                                   arg, found);
    }
    free(buf);
    free(idx);
    return status;
}

int ncsi_nc4_journal_read(ncs_io *io, uint64_t psize, uint64_t *final, int *found,
                          ncsi_nc4_jpage_fn page, void *arg)
{
    unsigned char t[NCSI_NC4_JTRAILER];
    int status;
    *found = 0;
    if (psize < NCSI_NC4_JTRAILER)
        return NCS_NOERR;
    status = read_full(io, t, NCSI_NC4_JTRAILER, psize - NCSI_NC4_JTRAILER);
    if (status == NCS_NOERR && memcmp(t, jmagic2, 8) == 0)
        status = journal2(io, t, psize, final, found, page, arg);
    else if (status == NCS_NOERR && memcmp(t, jmagic1, 8) == 0)
        status = journal1(io, t, psize, final, found, page, arg);
    if (status != NCS_NOERR)
        *found = 0;
    return status;
}
