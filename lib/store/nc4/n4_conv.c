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

/* ---- the commit journal ----------------------------------------------------------- */

static const unsigned char jmagic[8] = { 'N', 'C', 'S', 'J', 'R', 'N', 'L', '1' };

static uint64_t get_u64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
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

int ncsi_nc4_journal_read(ncs_io *io, uint64_t psize, uint64_t *final, int *found,
                          ncsi_nc4_jpage_fn page, void *arg)
{
    unsigned char trailer[NCSI_NC4_JTRAILER], *rec = NULL;
    uint64_t n, J;
    uLong crc = crc32(0L, Z_NULL, 0), stored;
    int status;
    *found = 0;
    if (psize < NCSI_NC4_JTRAILER)
        return NCS_NOERR;
    status = read_full(io, trailer, NCSI_NC4_JTRAILER, psize - NCSI_NC4_JTRAILER);
    if (status != NCS_NOERR || memcmp(trailer, jmagic, 8) != 0)
        return status;
    n = get_u64(trailer + 8);
    *final = get_u64(trailer + 16);
    J = get_u64(trailer + 24);
    stored = (uLong)trailer[32] | (uLong)trailer[33] << 8 | (uLong)trailer[34] << 16 |
             (uLong)trailer[35] << 24;
    if (J % NCSI_NC4_JPAGE != 0 || J < *final || J > psize - NCSI_NC4_JTRAILER ||
        (psize - NCSI_NC4_JTRAILER - J) % NCSI_NC4_JRECORD != 0 ||
        n != (psize - NCSI_NC4_JTRAILER - J) / NCSI_NC4_JRECORD)
        return NCS_NOERR;
    rec = ncsi_malloc(NCSI_NC4_JRECORD);
    if (rec == NULL)
        return NCS_ERR(NCS_ENOMEM);
    for (uint64_t i = 0; i < n && status == NCS_NOERR; i++) {
        status = read_full(io, rec, NCSI_NC4_JRECORD, J + i * NCSI_NC4_JRECORD);
        crc = crc32(crc, rec, NCSI_NC4_JRECORD);
    }
    crc = crc32(crc, trailer, 32);
    *found = status == NCS_NOERR && crc == stored;
    for (uint64_t i = 0; i < n && *found && status == NCS_NOERR; i++) {
        uint64_t no;
        status = read_full(io, rec, NCSI_NC4_JRECORD, J + i * NCSI_NC4_JRECORD);
        if (status != NCS_NOERR)
            break;
        no = get_u64(rec);
        /* a page past the final size, or one given twice: no journal */
        if (no >= NCS_RNDUP(*final, NCSI_NC4_JPAGE) / NCSI_NC4_JPAGE) {
            *found = 0;
            break;
        }
        status = page(arg, no, rec + 8);
        if (status > 0) {
            *found = 0;
            status = NCS_NOERR;
        }
    }
    free(rec);
    if (status != NCS_NOERR)
        *found = 0;
    return status;
}
