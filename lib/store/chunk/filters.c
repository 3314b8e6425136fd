/*
 * filters.c -- the chunk filters of netCDF-4/HDF5 files, done by ncslab
 * itself so chunks can move with HDF5's direct chunk I/O and no plugin is
 * needed: shuffle (HDF5 filter 2), deflate (1, zlib stream), Zstandard
 * (32015, one zstd frame, the id netCDF-C uses) and Fletcher-32 (3, a
 * 4-byte checksum appended to the chunk).
 *
 * A pipeline is applied in order on write and in reverse on read, each
 * filter through its entry in one table (filter_table: id, encode,
 * decode); a filter is known when it has an entry.  Every decoder checks
 * sizes against the size it must produce, so a corrupt chunk yields
 * NCS_EFILTER, never an overrun.
 *
 * A step owns the buffer it gets (*cur, *curn bytes): it replaces it with
 * its output (freeing the input) or edits it in place, and on failure
 * leaves it for the caller to free.
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

/* ---- the steps ------------------------------------------------------------- */

/* Makes next (nextn bytes, NULL: out of memory) the step's output. */
static int replace(unsigned char **cur, size_t *curn, unsigned char *next, size_t nextn)
{
    if (next == NULL)
        return NCS_ERR(NCS_ENOMEM);
    free(*cur);
    *cur = next;
    *curn = nextn;
    return NCS_NOERR;
}

static int shuffle_encode(unsigned char **cur, size_t *curn, size_t esz, unsigned level)
{
    unsigned char *next = ncsi_malloc(*curn ? *curn : 1);
    (void)level;
    if (next != NULL)
        shuffle(*cur, next, *curn, esz);
    return replace(cur, curn, next, *curn);
}

static int shuffle_decode(unsigned char **cur, size_t *curn, size_t want, size_t esz)
{
    unsigned char *next = ncsi_malloc(*curn ? *curn : 1);
    (void)want;
    if (next != NULL)
        unshuffle(*cur, next, *curn, esz);
    return replace(cur, curn, next, *curn);
}

static int deflate_encode(unsigned char **cur, size_t *curn, size_t esz, unsigned level)
{
    uLongf cap = compressBound((uLong)*curn);
    unsigned char *next = ncsi_malloc(cap);
    (void)esz;
    if (next != NULL && compress2(next, &cap, *cur, (uLong)*curn, (int)level) != Z_OK) {
        free(next);
        return NCS_ERR(NCS_EFILTER);
    }
    return replace(cur, curn, next, cap);
}

static int deflate_decode(unsigned char **cur, size_t *curn, size_t want, size_t esz)
{
    uLongf len = (uLongf)want;
    unsigned char *next = ncsi_malloc(want ? want : 1);
    (void)esz;
    if (next != NULL) {
        int zr = uncompress(next, &len, *cur, (uLong)*curn);
        if (zr != Z_OK || len != want) {
            free(next);
            return NCS_ERR(NCS_EFILTER);
        }
    }
    return replace(cur, curn, next, len);
}

static int zstd_encode(unsigned char **cur, size_t *curn, size_t esz, unsigned level)
{
    size_t cap = ZSTD_compressBound(*curn), r = 0;
    unsigned char *next = ncsi_malloc(cap);
    (void)esz;
    if (next != NULL) {
        r = ZSTD_compress(next, cap, *cur, *curn, (int)level);
        if (ZSTD_isError(r)) {
            free(next);
            return NCS_ERR(NCS_EFILTER);
        }
    }
    return replace(cur, curn, next, r);
}

static int zstd_decode(unsigned char **cur, size_t *curn, size_t want, size_t esz)
{
    unsigned char *next = ncsi_malloc(want ? want : 1);
    size_t r = 0;
    (void)esz;
    if (next != NULL) {
        r = ZSTD_decompress(next, want, *cur, *curn);
        if (ZSTD_isError(r) || r != want) {
            free(next);
            return NCS_ERR(NCS_EFILTER);
        }
    }
    return replace(cur, curn, next, r);
}

static int fletcher32_encode(unsigned char **cur, size_t *curn, size_t esz, unsigned level)
{
    uint32_t sum = ncsi_fletcher32(*cur, *curn);
    size_t n = *curn;
    unsigned char *next = ncsi_malloc(n + 4);
    (void)esz;
    (void)level;
    if (next != NULL) {
        memcpy(next, *cur, n);
        /* stored little-endian */
        next[n] = (unsigned char)sum;
        next[n + 1] = (unsigned char)(sum >> 8);
        next[n + 2] = (unsigned char)(sum >> 16);
        next[n + 3] = (unsigned char)(sum >> 24);
    }
    return replace(cur, curn, next, n + 4);
}

/* Checks and drops the checksum, in place. */
static int fletcher32_decode(unsigned char **cur, size_t *curn, size_t want, size_t esz)
{
    const unsigned char *p = *cur;
    size_t n = *curn;
    uint32_t stored_sum, got;
    (void)want;
    (void)esz;
    if (n < 4)
        return NCS_ERR(NCS_EFILTER);
    stored_sum = (uint32_t)p[n - 4] | (uint32_t)p[n - 3] << 8 | (uint32_t)p[n - 2] << 16 |
                 (uint32_t)p[n - 1] << 24;
    got = ncsi_fletcher32(p, n - 4);
    /* old HDF5 versions stored the checksum with its bytes reversed */
    if (stored_sum != got && stored_sum != (got >> 24 | (got >> 8 & 0xff00) |
                                            (got << 8 & 0xff0000) | got << 24))
        return NCS_ERR(NCS_EFILTER);
    *curn = n - 4;
    return NCS_NOERR;
}

/* ---- the table ---------------------------------------------------------------
 * encode: the step on write (level: deflate's or zstd's); decode: the step
 * on read, whose output must be want bytes (a checksum's step shrinks by
 * its own 4 bytes instead). */
typedef struct filter_def {
    unsigned id;
    int (*encode)(unsigned char **cur, size_t *curn, size_t esz, unsigned level);
    int (*decode)(unsigned char **cur, size_t *curn, size_t want, size_t esz);
} filter_def;

static const filter_def filter_table[] = {
    { NCSI_FILTER_DEFLATE, deflate_encode, deflate_decode },
    { NCSI_FILTER_SHUFFLE, shuffle_encode, shuffle_decode },
    { NCSI_FILTER_FLETCHER32, fletcher32_encode, fletcher32_decode },
    { NCSI_FILTER_ZSTD, zstd_encode, zstd_decode },
};

static const filter_def *filter_of(unsigned id)
{
    for (size_t i = 0; i < sizeof filter_table / sizeof filter_table[0]; i++)
        if (filter_table[i].id == id)
            return &filter_table[i];
    return NULL;
}

int ncsi_filter_known(unsigned id)
{
    return filter_of(id) != NULL;
}

/* ---- pipelines ----------------------------------------------------------------- */

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
        const filter_def *f = filter_of(pipe[i].id);
        int status = f != NULL ? f->encode(&cur, &curn, esz, pipe[i].level)
                               : NCS_ERR(NCS_ENOFILTER);
        if (status != NCS_NOERR) {
            free(cur);
            return status;
        }
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
        const filter_def *f;
        int status;
        /* the size this step must produce: the chunk plus the checksums of
         * Fletcher-32 filters that ran before it on write */
        size_t want = n;
        for (int k = 0; k < i; k++)
            if (pipe[k].id == NCSI_FILTER_FLETCHER32 && !(mask & (1u << k)))
                want += 4;
        if (mask & (1u << i))
            continue;
        f = filter_of(pipe[i].id);
        status = f != NULL ? f->decode(&cur, &curn, want, esz) : NCS_ERR(NCS_ENOFILTER);
        if (status != NCS_NOERR) {
            free(cur);
            return status;
        }
    }
    if (curn != n) {
        free(cur);
        return NCS_ERR(NCS_EFILTER);
    }
    memcpy(raw, cur, n);
    free(cur);
    return NCS_NOERR;
}
