/*
 * badchunk.c -- writes a copy of a netCDF-4 file with one entry of a
 * variable's chunk index, or its filter pipeline, changed: the corrupt
 * netCDF-4 files check_check.sh gives ncslab-check.
 *
 *   badchunk IN OUT VAR N addr  VALUE   chunk N's address := VALUE
 *   badchunk IN OUT VAR N size  VALUE   its stored size := VALUE
 *   badchunk IN OUT VAR N mask  VALUE   its filter mask := VALUE
 *   badchunk IN OUT VAR N origin D VALUE  its first index along D := VALUE
 *   badchunk IN OUT VAR N like M        its address := chunk M's
 *   badchunk IN OUT NAME ID filter      every pipeline entry of filter NAME
 *                                       (e.g. deflate) gets the id ID
 *
 * N and M count the chunks in the order ncs_inq_var_chunks lists them.
 * As mkcorrupt.c does for classic files, the change is made at a place
 * found in the file's bytes: the chunk's entry is where the file holds
 * its address (8 bytes, little-endian) right after a key that records its
 * size and coordinates, as HDF5's version-1 B-tree of chunks lays out a
 * key and its child (size 4 bytes, filter mask 4, then one 8-byte offset
 * per dimension and one for the element), the index ncslab and netCDF-C
 * write; a pipeline entry (version 1 of HDF5's filter pipeline message) is
 * the 2-byte id, name length, flags and number of parameters before the
 * filter's name, in a version-2 object header whose checksum is made
 * again; in version 2 of the message (HDF5's 1.8 file format), which
 * names no predefined filter, the entry of that filter's id is found by
 * walking the messages of each object header chunk, and its new id must
 * be under 256, which keeps the entry's length.  Exactly one such entry must be found for a chunk (status 99
 * otherwise: the test cannot be made).  The chunk is found through the
 * public API only, so the addresses are those ncslab reports.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ncslab.h"

typedef struct entry {
    unsigned long long want, seen;
    int ndims;
    size_t origin[NCS_MAX_VAR_DIMS];
    unsigned long long offset, size;
    int found;
} entry;

static int find(void *arg, const size_t *origin, unsigned mask, unsigned long long offset,
                unsigned long long size)
{
    entry *e = arg;
    (void)mask;
    if (e->seen++ != e->want)
        return 0;
    memcpy(e->origin, origin, (size_t)e->ndims * sizeof *origin);
    e->offset = offset;
    e->size = size;
    e->found = 1;
    return 1;
}

static uint64_t le(const unsigned char *p, int n)
{
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static void put_le(unsigned char *p, int n, uint64_t v)
{
    for (int i = 0; i < n; i++, v >>= 8)
        p[i] = (unsigned char)(v & 0xff);
}

static unsigned char *slurp(const char *path, size_t *n)
{
    FILE *fp = fopen(path, "rb");
    unsigned char *b = NULL;
    long len;
    if (fp == NULL || fseek(fp, 0, SEEK_END) != 0 || (len = ftell(fp)) < 0 ||
        fseek(fp, 0, SEEK_SET) != 0 || (b = malloc((size_t)len + 1)) == NULL ||
        fread(b, 1, (size_t)len, fp) != (size_t)len) {
        fprintf(stderr, "badchunk: cannot read %s\n", path);
        exit(99);
    }
    fclose(fp);
    *n = (size_t)len;
    return b;
}

static void spill(const char *path, const unsigned char *b, size_t n)
{
    FILE *fp = fopen(path, "wb");
    if (fp == NULL || fwrite(b, 1, n, fp) != n || fclose(fp) != 0) {
        fprintf(stderr, "badchunk: cannot write %s\n", path);
        exit(99);
    }
}

/* Chunk n of variable var, through the public API. */
static entry chunk_of(const char *path, const char *var, unsigned long long n)
{
    entry e;
    int ncid, varid, status;
    memset(&e, 0, sizeof e);
    e.want = n;
    if (ncs_open(path, NCS_NOWRITE, &ncid) != NCS_NOERR ||
        ncs_inq_varid(ncid, var, &varid) != NCS_NOERR ||
        ncs_inq_varndims(ncid, varid, &e.ndims) != NCS_NOERR) {
        fprintf(stderr, "badchunk: no variable %s in %s\n", var, path);
        exit(99);
    }
    status = ncs_inq_var_chunks(ncid, varid, NULL, find, &e);
    ncs_close(ncid);
    if (!e.found || status != 1) {
        fprintf(stderr, "badchunk: %s has no chunk %llu (%s)\n", var, n, ncs_strerror(status));
        exit(99);
    }
    return e;
}

/* Where the file holds the B-tree child pointer of chunk e. */
static size_t entry_at(const unsigned char *b, size_t n, const entry *e)
{
    size_t key = 8 + 8 * ((size_t)e->ndims + 1), at = 0;
    int hits = 0;
    for (size_t p = key; p + 8 <= n; p++) {
        const unsigned char *k = b + p - key;
        int match = le(b + p, 8) == e->offset && le(k, 4) == e->size;
        for (int d = 0; match && d < e->ndims; d++)
            match = le(k + 8 + 8 * (size_t)d, 8) == e->origin[d];
        if (match) {
            at = p;
            hits++;
        }
    }
    if (hits != 1) {
        fprintf(stderr, "badchunk: %d B-tree entries for the chunk at %llu\n", hits, e->offset);
        exit(99);
    }
    return at;
}

/* ---- object header checksums -------------------------------------------------
 * HDF5 sums each chunk of a version-2 object header ("OHDR") with Bob
 * Jenkins' lookup3 hash (hashlittle, initial value 0) in its last 4 bytes;
 * a changed message needs the sum made again. */
#define ROT(x, k) (((x) << (k)) | ((x) >> (32 - (k))))

static uint32_t lookup3(const unsigned char *k, size_t length)
{
    uint32_t a, b, c;
    a = b = c = 0xdeadbeefu + (uint32_t)length;
    while (length > 12) {
        a += (uint32_t)le(k, 4);
        b += (uint32_t)le(k + 4, 4);
        c += (uint32_t)le(k + 8, 4);
        a -= c; a ^= ROT(c, 4);  c += b;
        b -= a; b ^= ROT(a, 6);  a += c;
        c -= b; c ^= ROT(b, 8);  b += a;
        a -= c; a ^= ROT(c, 16); c += b;
        b -= a; b ^= ROT(a, 19); a += c;
        c -= b; c ^= ROT(b, 4);  b += a;
        length -= 12;
        k += 12;
    }
    if (length == 0)
        return c;
    {
        unsigned char tail[12] = {0};
        memcpy(tail, k, length);
        a += (uint32_t)le(tail, 4);
        b += (uint32_t)le(tail + 4, 4);
        c += (uint32_t)le(tail + 8, 4);
    }
    c ^= b; c -= ROT(b, 14);
    a ^= c; a -= ROT(c, 11);
    b ^= a; b -= ROT(a, 25);
    c ^= b; c -= ROT(b, 16);
    a ^= c; a -= ROT(c, 4);
    b ^= a; b -= ROT(a, 14);
    c ^= b; c -= ROT(b, 24);
    return c;
}

/* The first byte of the OHDR chunk that holds byte p, and its length
 * without the checksum; exit 99 when there is none whose sum holds. */
static size_t ohdr_of(const unsigned char *b, size_t n, size_t p, size_t *len)
{
    for (size_t s = p; s-- > 0;) {
        size_t pre = 6, sz;
        unsigned flags;
        if (s + 6 > n || memcmp(b + s, "OHDR", 4) != 0 || b[s + 4] != 2)
            continue;
        flags = b[s + 5];
        pre += (flags & 0x20) ? 16 : 0;
        pre += (flags & 0x10) ? 4 : 0;
        if (s + pre + (1u << (flags & 3)) > n)
            continue;
        sz = (size_t)le(b + s + pre, 1 << (flags & 3));
        pre += 1u << (flags & 3);
        if (sz > n || s + pre + sz + 4 > n || s + pre + sz <= p)
            continue;
        if (lookup3(b + s, pre + sz) != le(b + s + pre + sz, 4))
            continue;
        *len = pre + sz;
        return s;
    }
    fprintf(stderr, "badchunk: byte %zu lies in no object header chunk whose sum holds\n", p);
    exit(99);
}

/* The id of a filter HDF5 predefines, by its name (0: none). */
static unsigned predefined_id(const char *name)
{
    static const char *const names[] = { "", "deflate", "shuffle", "fletcher32", "szip",
                                         "nbit", "scaleoffset" };
    for (unsigned i = 1; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(name, names[i]) == 0)
            return i;
    return 0;
}

/* Version 2 of the pipeline message (what HDF5 writes with the 1.8 file
 * format, netCDF-C's and ncslab's) names no predefined filter: every
 * entry of id old in the messages of the object header chunk at b + s
 * (len bytes without the checksum, messages from byte m on) gets the id
 * new; its checksum is made again.  The number of entries changed. */
static int pipeline_v2(unsigned char *b, size_t s, size_t m, size_t len, unsigned old,
                       unsigned new, int crt_order)
{
    int hits = 0;
    while (m + 4 + (crt_order ? 2 : 0) <= len) {
        unsigned type = b[s + m];
        size_t size = (size_t)le(b + s + m + 1, 2), d = m + 4 + (crt_order ? 2 : 0);
        if (d + size > len)
            break;
        if (type == 0x0b && size >= 2 && b[s + d] == 2) {
            size_t p = d + 2, end = d + size;
            for (unsigned f = 0; f < b[s + d + 1] && p + 6 <= end; f++) {
                unsigned id = (unsigned)le(b + s + p, 2);
                size_t name = id >= 256 ? (size_t)le(b + s + p + 2, 2) : 0;
                size_t hdr = id >= 256 ? 8 : 6;
                size_t ncd = (size_t)le(b + s + p + hdr - 2, 2);
                if (id == old) {
                    put_le(b + s + p, 2, new);
                    hits++;
                }
                p += hdr + name + 4 * ncd;
            }
        }
        m = d + size;
    }
    if (hits)
        put_le(b + s + len, 4, lookup3(b + s, len));
    return hits;
}

/* pipeline_v2 over every object header chunk ("OHDR", "OCHK") whose
 * checksum holds. */
static int pipelines_v2(unsigned char *b, size_t n, unsigned old, unsigned new)
{
    int hits = 0;
    for (size_t s = 0; s + 8 <= n; s++) {
        if (memcmp(b + s, "OHDR", 4) == 0 && b[s + 4] == 2) {
            unsigned flags = b[s + 5];
            size_t pre = 6 + ((flags & 0x20) ? 16 : 0) + ((flags & 0x10) ? 4 : 0);
            size_t w = (size_t)1 << (flags & 3), sz;
            if (s + pre + w > n)
                continue;
            sz = (size_t)le(b + s + pre, (int)w);
            pre += w;
            if (sz > n || s + pre + sz + 4 > n || lookup3(b + s, pre + sz) != le(b + s + pre + sz, 4))
                continue;
            hits += pipeline_v2(b, s, pre, pre + sz, old, new, (flags & 0x04) != 0);
        }
    }
    return hits;
}

int main(int argc, char **argv)
{
    unsigned char *b;
    size_t n;
    if (argc == 6 && strcmp(argv[5], "filter") == 0) {
        const char *name = argv[3];
        size_t len = strlen(name) + 1;
        int hits = 0;
        b = slurp(argv[1], &n);
        for (size_t p = 8; p + len <= n; p++) {
            size_t start, sumlen;
            if (memcmp(b + p, name, len) != 0 || le(b + p - 6, 2) != len)
                continue;
            start = ohdr_of(b, n, p - 8, &sumlen);
            put_le(b + p - 8, 2, strtoull(argv[4], NULL, 0));
            put_le(b + start + sumlen, 4, lookup3(b + start, sumlen));
            hits++;
        }
        if (hits == 0 && predefined_id(name) != 0) {
            unsigned long long id = strtoull(argv[4], NULL, 0);
            if (id >= 256) {
                /* a version-2 entry of id 256 or more has a name length
                 * the message has no room for */
                fprintf(stderr, "badchunk: in place, a predefined filter's entry takes an id "
                                "under 256 only\n");
                return 99;
            }
            hits = pipelines_v2(b, n, predefined_id(name), (unsigned)id);
        }
        if (hits == 0) {
            fprintf(stderr, "badchunk: no pipeline entry of %s\n", name);
            return 99;
        }
    } else if (argc >= 7) {
        entry e = chunk_of(argv[1], argv[3], strtoull(argv[4], NULL, 0));
        const char *what = argv[5];
        size_t at;
        b = slurp(argv[1], &n);
        at = entry_at(b, n, &e);
        if (strcmp(what, "addr") == 0) {
            put_le(b + at, 8, strtoull(argv[6], NULL, 0));
        } else if (strcmp(what, "size") == 0) {
            put_le(b + at - (8 + 8 * ((size_t)e.ndims + 1)), 4, strtoull(argv[6], NULL, 0));
        } else if (strcmp(what, "mask") == 0) {
            put_le(b + at - (4 + 8 * ((size_t)e.ndims + 1)), 4, strtoull(argv[6], NULL, 0));
        } else if (strcmp(what, "origin") == 0 && argc == 8) {
            int d = atoi(argv[6]);
            if (d < 0 || d >= e.ndims)
                return 99;
            put_le(b + at - 8 * ((size_t)e.ndims + 1) + 8 * (size_t)d, 8,
                   strtoull(argv[7], NULL, 0));
        } else if (strcmp(what, "like") == 0) {
            entry m = chunk_of(argv[1], argv[3], strtoull(argv[6], NULL, 0));
            put_le(b + at, 8, m.offset);
        } else {
            fprintf(stderr, "badchunk: unknown change %s\n", what);
            return 99;
        }
    } else {
        fprintf(stderr, "usage: badchunk IN OUT VAR N addr|size|mask VALUE | "
                        "origin D VALUE | like M; badchunk IN OUT NAME ID filter\n");
        return 99;
    }
    spill(argv[2], b, n);
    free(b);
    return 0;
}
