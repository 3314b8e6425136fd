/*
 * filters.c -- the chunk filters of netCDF-4/HDF5 files, done by ncslab
 * itself so chunks can move with HDF5's direct chunk I/O and no plugin is
 * needed: shuffle (HDF5 filter 2), deflate (1, zlib stream), Zstandard
 * (32015, one zstd frame, the id netCDF-C uses) and Fletcher-32 (3, a
 * 4-byte checksum appended to the chunk).
 *
 * A pipeline is applied in order on write and in reverse on read.  Every
 * decoder checks sizes against the chunk size it must produce, so a
 * corrupt chunk yields NCS_EFILTER/NCS_EHDFERR, never an overrun.
 */
#include "chunk.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

/* ---- shuffle ------------------------------------------------------------
 * Byte j of element i goes to plane j, position i; trailing bytes that do
 * not make a whole element stay at the end. */
static void shuffle(const unsigned char *in, unsigned char *out, size_t n, size_t esz)
{
    size_t nel = n / esz;
    for (size_t j = 0; j < esz; j++)
        for (size_t i = 0; i < nel; i++)
            out[j * nel + i] = in[i * esz + j];
    memcpy(out + nel * esz, in + nel * esz, n - nel * esz);
}

static void unshuffle(const unsigned char *in, unsigned char *out, size_t n, size_t esz)
{
    size_t nel = n / esz;
    for (size_t j = 0; j < esz; j++)
        for (size_t i = 0; i < nel; i++)
            out[i * esz + j] = in[j * nel + i];
    memcpy(out + nel * esz, in + nel * esz, n - nel * esz);
}

/* ---- Fletcher-32 over 16-bit big-endian words, as HDF5 defines it ------ */
uint32_t ncsi_fletcher32(const unsigned char *p, size_t n)
{
    uint32_t a = 0, b = 0;
    size_t words = n / 2;
    while (words > 0) {
        size_t k = words > 360 ? 360 : words;
        words -= k;
        while (k--) {
            a += (uint32_t)p[0] << 8 | p[1];
            b += a;
            p += 2;
        }
        a = (a & 0xffff) + (a >> 16);
        b = (b & 0xffff) + (b >> 16);
    }
    if (n % 2) {
        a += (uint32_t)p[0] << 8;
        b += a;
        a = (a & 0xffff) + (a >> 16);
        b = (b & 0xffff) + (b >> 16);
    }
    a = (a & 0xffff) + (a >> 16);
    b = (b & 0xffff) + (b >> 16);
    return b << 16 | a;
}

int ncsi_filter_known(unsigned id)
{
    return id == NCSI_FILTER_DEFLATE || id == NCSI_FILTER_SHUFFLE ||
           id == NCSI_FILTER_FLETCHER32 || id == NCSI_FILTER_ZSTD;
}

/* Encodes raw (n bytes of one chunk) through the pipeline.  *out is a
 * malloc'd buffer of *outn bytes. */
int ncsi_filters_encode(const ncs_filter *pipe, int nf, size_t esz,
                        const unsigned char *raw, size_t n,
                        unsigned char **out, size_t *outn)
{
    unsigned char *cur = ncsi_malloc(n ? n : 1);
    size_t curn = n;
    if (cur == NULL)
        return NCS_ERR(NCS_ENOMEM);
    memcpy(cur, raw, n);
    for (int i = 0; i < nf; i++) {
        unsigned char *next = NULL;
        size_t nextn = 0;
        switch (pipe[i].id) {
        case NCSI_FILTER_SHUFFLE:
            next = ncsi_malloc(curn ? curn : 1);
            if (next != NULL) {
                shuffle(cur, next, curn, esz);
                nextn = curn;
            }
            break;
        case NCSI_FILTER_DEFLATE: {
            uLongf cap = compressBound((uLong)curn);
            next = ncsi_malloc(cap);
            if (next != NULL) {
                if (compress2(next, &cap, cur, (uLong)curn, (int)pipe[i].level) != Z_OK) {
                    free(next);
                    free(cur);
                    return NCS_ERR(NCS_EFILTER);
                }
                nextn = cap;
            }
            break;
        }
        case NCSI_FILTER_ZSTD: {
            size_t cap = ZSTD_compressBound(curn);
            next = ncsi_malloc(cap);
            if (next != NULL) {
                size_t r = ZSTD_compress(next, cap, cur, curn, (int)pipe[i].level);
                if (ZSTD_isError(r)) {
                    free(next);
                    free(cur);
                    return NCS_ERR(NCS_EFILTER);
                }
                nextn = r;
            }
            break;
        }
        case NCSI_FILTER_FLETCHER32: {
            uint32_t sum = ncsi_fletcher32(cur, curn);
            next = ncsi_malloc(curn + 4);
            if (next != NULL) {
                memcpy(next, cur, curn);
                /* stored little-endian */
                next[curn] = (unsigned char)sum;
                next[curn + 1] = (unsigned char)(sum >> 8);
                next[curn + 2] = (unsigned char)(sum >> 16);
                next[curn + 3] = (unsigned char)(sum >> 24);
                nextn = curn + 4;
            }
            break;
        }
        default:
            free(cur);
            return NCS_ERR(NCS_ENOFILTER);
        }
        free(cur);
        if (next == NULL)
            return NCS_ERR(NCS_ENOMEM);
        cur = next;
        curn = nextn;
    }
    *out = cur;
    *outn = curn;
    return NCS_NOERR;
}

/* Decodes a stored chunk of sn bytes into raw, which must come out exactly
 * n bytes.  Filters whose bit is set in mask were skipped on write. */
int ncsi_filters_decode(const ncs_filter *pipe, int nf, unsigned mask, size_t esz,
                        const unsigned char *stored, size_t sn,
                        unsigned char *raw, size_t n)
{
    unsigned char *cur = ncsi_malloc(sn ? sn : 1);
    size_t curn = sn;
    if (cur == NULL)
        return NCS_ERR(NCS_ENOMEM);
    memcpy(cur, stored, sn);
    for (int i = nf - 1; i >= 0; i--) {
        unsigned char *next = NULL;
        size_t nextn = 0;
        /* the size this step must produce: the chunk plus the checksums of
         * Fletcher-32 filters that ran before it on write */
        size_t want = n;
        for (int k = 0; k < i; k++)
            if (pipe[k].id == NCSI_FILTER_FLETCHER32 && !(mask & (1u << k)))
                want += 4;
        if (mask & (1u << i))
            continue;
        switch (pipe[i].id) {
        case NCSI_FILTER_SHUFFLE:
            next = ncsi_malloc(curn ? curn : 1);
            if (next != NULL) {
                unshuffle(cur, next, curn, esz);
                nextn = curn;
            }
            break;
        case NCSI_FILTER_DEFLATE: {
            uLongf len = (uLongf)want;
            next = ncsi_malloc(want ? want : 1);
            if (next != NULL) {
                int zr = uncompress(next, &len, cur, (uLong)curn);
                if (zr != Z_OK || len != want) {
                    free(next);
                    free(cur);
                    return NCS_ERR(NCS_EFILTER);
                }
                nextn = len;
            }
            break;
        }
        case NCSI_FILTER_ZSTD: {
            next = ncsi_malloc(want ? want : 1);
            if (next != NULL) {
                size_t r = ZSTD_decompress(next, want, cur, curn);
                if (ZSTD_isError(r) || r != want) {
                    free(next);
                    free(cur);
                    return NCS_ERR(NCS_EFILTER);
                }
                nextn = r;
            }
            break;
        }
        case NCSI_FILTER_FLETCHER32: {
            uint32_t stored_sum, got;
            if (curn < 4) {
                free(cur);
                return NCS_ERR(NCS_EFILTER);
            }
            stored_sum = (uint32_t)cur[curn - 4] | (uint32_t)cur[curn - 3] << 8 |
                   (uint32_t)cur[curn - 2] << 16 | (uint32_t)cur[curn - 1] << 24;
            got = ncsi_fletcher32(cur, curn - 4);
            /* old HDF5 versions stored the checksum with its bytes reversed */
            if (stored_sum != got && stored_sum != (got >> 24 | (got >> 8 & 0xff00) |
                                        (got << 8 & 0xff0000) | got << 24)) {
                free(cur);
                return NCS_ERR(NCS_EFILTER);
            }
            curn -= 4;
            continue;
        }
        default:
            free(cur);
            return NCS_ERR(NCS_ENOFILTER);
        }
        free(cur);
        if (next == NULL)
            return NCS_ERR(NCS_ENOMEM);
        cur = next;
        curn = nextn;
    }
    if (curn != n) {
        free(cur);
        return NCS_ERR(NCS_EFILTER);
    }
    memcpy(raw, cur, n);
    free(cur);
    return NCS_NOERR;
}
