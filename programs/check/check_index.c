/*
 * check_index.c -- the chunk index and the filter pipeline of a netCDF-4
 * file's chunked variables, as the file records them (ncs_inq_var_chunks,
 * ncs_inq_var_filter_ids), checked without decoding a chunk.
 *
 * For each chunked variable: every filter of its pipeline is named, or
 * said to be one ncslab cannot run or that neither ncslab nor netCDF-C
 * knows (a warning: only an HDF5 with that plugin decodes the chunks, and
 * the reads of check_data.c then say whether this one can); every chunk
 * the index lists has its first element inside the dataset's extent, its
 * bytes inside the file, a filter mask that names only filters of the
 * pipeline, and a size the filters it went through can give: exactly the
 * chunk's bytes when it went through none (or shuffle only), 4 more with
 * Fletcher-32, between the compressor's best ratio and its worst case
 * otherwise.  Across the file, no two chunks share bytes.
 * Each finding names the variable and the chunk's coordinates (its index
 * in the chunk grid) and gives the chunk's offset in the file.
 */
#include "check.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Findings of one variable reported one by one; the rest are counted. */
#define MAX_REPORTED 5

/* HDF5's filter ids, with who runs them. */
enum { RUN_NCSLAB, RUN_HDF5 };
static const struct {
    unsigned id;
    const char *name;
    int run;
} known_filters[] = {
    {1, "deflate", RUN_NCSLAB},
    {2, "shuffle", RUN_NCSLAB},
    {3, "Fletcher-32", RUN_NCSLAB},
    {4, "szip", RUN_HDF5},
    {5, "N-bit", RUN_HDF5},
    {6, "scale-offset", RUN_HDF5},
    {307, "bzip2", RUN_HDF5},
    {32001, "blosc", RUN_HDF5},
    {32015, "zstd", RUN_NCSLAB},
};
#define FILTER_DEFLATE 1u
#define FILTER_SHUFFLE 2u
#define FILTER_FLETCHER32 3u
#define FILTER_ZSTD 32015u

static int filter_index(unsigned id)
{
    for (size_t i = 0; i < sizeof known_filters / sizeof known_filters[0]; i++)
        if (known_filters[i].id == id)
            return (int)i;
    return -1;
}

/* One chunk's bytes in the file, for the overlap check across variables. */
typedef struct span {
    unsigned long long offset, size;
    int varid;
    unsigned long long ordinal;      /* its place in the variable's walk */
} span;

typedef struct index_walk {
    check_file *c;
    const char *owner;               /* `variable "v"` */
    int varid, ndims, nf;
    const size_t *extent;
    const size_t *chunks;
    unsigned ids[NCS_MAX_FILTERS];
    unsigned long long chunk_bytes;
    unsigned long long nchunks, stored, reported, more;
    span **spans;                    /* the file's, grown here */
    size_t *nspans, *capspans;
    int spans_lost;                  /* out of memory: no overlap check */
} index_walk;

/* The chunk's label: its index in the chunk grid (HDF5 reads every origin
 * on the grid). */
static const char *chunk_label(const index_walk *w, const size_t *origin, char *buf,
                               size_t len)
{
    size_t idx[NCS_MAX_VAR_DIMS];
    char tmp[200];
    for (int d = 0; d < w->ndims; d++)
        idx[d] = origin[d] / w->chunks[d];
    snprintf(buf, len, "chunk %s", check_index_str(idx, w->ndims, tmp, sizeof tmp));
    return buf;
}

static int counted(index_walk *w)
{
    if (w->reported < MAX_REPORTED) {
        w->reported++;
        return 1;
    }
    w->more++;
    return 0;
}

/* The sizes the filters the chunk went through (mask clear) can give its
 * chunk_bytes, in the order they ran: *lo..*hi; 0 when a filter's sizes
 * are not known (one ncslab does not run). */
static int size_range(const index_walk *w, unsigned mask, unsigned long long *lo,
                      unsigned long long *hi)
{
    unsigned long long a = w->chunk_bytes, b = w->chunk_bytes;
    for (int i = 0; i < w->nf; i++) {
        if (mask & (1u << i))
            continue;
        switch (w->ids[i]) {
        case FILTER_SHUFFLE:
            break;
        case FILTER_FLETCHER32:
            a += 4;
            b += 4;
            break;
        case FILTER_DEFLATE:
            /* deflate codes at most 258 bytes in 2 bits; its worst case
             * (zlib's compressBound, HDF5's buffer) is well under b/512 +
             * 64 more */
            a = a / 1032;
            b = b + b / 512 + 64;
            break;
        case FILTER_ZSTD:
            /* a block of at most 128 KiB takes at least 4 bytes (an RLE
             * block); ZSTD_compressBound is under b/256 + 128 more */
            a = (a + 131071) / 131072 * 4;
            b = b + b / 256 + 128;
            break;
        default:
            return 0;
        }
    }
    *lo = a;
    *hi = b;
    return 1;
}

static int visit_chunk(void *arg, const size_t *origin, unsigned mask,
                       unsigned long long offset, unsigned long long size)
{
    index_walk *w = arg;
    check_file *c = w->c;
    char label[240], where[200];
    unsigned long long lo, hi;
    long long at = offset <= (unsigned long long)INT64_MAX ? (long long)offset : -1;
    int inside = 1;

    w->nchunks++;
    w->stored += size;
    chunk_label(w, origin, label, sizeof label);
    for (int d = 0; d < w->ndims; d++)
        inside &= origin[d] < w->extent[d];
    if (!inside && counted(w))
        check_error(c, at, "%s: %s: the index places it outside the variable's "
                    "extent %s", w->owner, label,
                    check_index_str(w->extent, w->ndims, where, sizeof where));
    if (size == 0) {
        if (counted(w))
            check_error(c, at, "%s: %s: the index gives it no bytes", w->owner, label);
        return 0;
    }
    if (offset >= c->fsize || size > c->fsize - offset) {
        if (counted(w))
            check_error(c, at, "%s: %s: its %llu bytes at byte %llu lie past the end of "
                        "the file (%llu bytes)", w->owner, label, size, offset, c->fsize);
        return 0;
    }
    if (w->nf < 32 && (mask >> w->nf) != 0) {
        if (counted(w))
            check_error(c, at, "%s: %s: filter mask 0x%x names filters the pipeline of %d "
                        "does not have", w->owner, label, mask, w->nf);
    } else if (size_range(w, mask, &lo, &hi) && (size < lo || size > hi) && counted(w)) {
        if (lo == hi)
            check_error(c, at, "%s: %s: %llu bytes stored, where a chunk of %llu bytes "
                        "%s has exactly %llu", w->owner, label, size, w->chunk_bytes,
                        lo == w->chunk_bytes ? "through no filter" : "with its checksum",
                        lo);
        else
            check_error(c, at, "%s: %s: %llu bytes stored, where its filters make "
                        "%llu bytes of data into %llu to %llu", w->owner, label, size,
                        w->chunk_bytes, lo, hi);
    }
    if (!w->spans_lost) {
        if (*w->nspans == *w->capspans) {
            size_t cap = *w->capspans ? *w->capspans * 2 : 256;
            span *p = realloc(*w->spans, cap * sizeof *p);
            if (p == NULL) {
                w->spans_lost = 1;
                return 0;
            }
            *w->spans = p;
            *w->capspans = cap;
        }
        (*w->spans)[(*w->nspans)++] = (span){offset, size, w->varid, w->nchunks - 1};
    }
    return 0;
}

/* The filters of variable varid, named; unknown or foreign ones warned of. */
static void check_filters(check_file *c, index_walk *w)
{
    for (int i = 0; i < w->nf; i++) {
        int k = filter_index(w->ids[i]);
        if (k < 0)
            check_warning(c, -1, "%s: filter %u of its pipeline is unknown to ncslab and "
                          "netCDF-C: only an HDF5 with a plugin for it decodes the chunks",
                          w->owner, w->ids[i]);
        else if (known_filters[k].run != RUN_NCSLAB)
            check_warning(c, -1, "%s: filter %u (%s) is not one ncslab runs: only an "
                          "HDF5 with it decodes the chunks", w->owner, w->ids[i],
                          known_filters[k].name);
    }
}

/* Finds the origin of chunk number want of a variable's walk. */
typedef struct find_chunk {
    unsigned long long want, seen;
    int ndims;
    size_t origin[NCS_MAX_VAR_DIMS];
} find_chunk;

static int find_visit(void *arg, const size_t *origin, unsigned mask,
                      unsigned long long offset, unsigned long long size)
{
    find_chunk *f = arg;
    (void)mask;
    (void)offset;
    (void)size;
    if (f->seen++ != f->want)
        return 0;
    memcpy(f->origin, origin, (size_t)f->ndims * sizeof *origin);
    return 1;
}

/* "variable "v": chunk [i,j]" of a span, found again. */
static void span_label(int ncid, const span *s, char *buf, size_t len)
{
    char name[NCS_MAX_NAME + 1] = "?", label[240];
    size_t chunks[NCS_MAX_VAR_DIMS];
    find_chunk f;
    index_walk w;
    memset(&w, 0, sizeof w);
    memset(&f, 0, sizeof f);
    f.want = s->ordinal;
    ncs_inq_varname(ncid, s->varid, name);
    if (ncs_inq_varndims(ncid, s->varid, &f.ndims) == NCS_NOERR &&
        ncs_inq_var_chunking(ncid, s->varid, NULL, chunks) == NCS_NOERR &&
        ncs_inq_var_chunks(ncid, s->varid, NULL, find_visit, &f) == 1) {
        w.ndims = f.ndims;
        w.chunks = chunks;
        chunk_label(&w, f.origin, label, sizeof label);
    } else {
        snprintf(label, sizeof label, "chunk number %llu of its index", s->ordinal + 1);
    }
    snprintf(buf, len, "variable \"%s\": %s", name, label);
}

static int by_offset(const void *a, const void *b)
{
    const span *x = a, *y = b;
    return x->offset < y->offset ? -1 : x->offset > y->offset;
}

void check_index(check_file *c, int ncid)
{
    span *spans = NULL;
    size_t nspans = 0, capspans = 0;
    int nvars, lost = 0, status = ncs_inq_nvars(ncid, &nvars);
    unsigned long long overlaps = 0;
    if (status != NCS_NOERR)
        return;                     /* check_contents reports it */
    for (int v = 0; v < nvars; v++) {
        char name[NCS_MAX_NAME + 1], owner[NCS_MAX_NAME + 16], list[160];
        size_t chunks[NCS_MAX_VAR_DIMS], extent[NCS_MAX_VAR_DIMS], xsz;
        int storage, type;
        index_walk w;
        memset(&w, 0, sizeof w);
        if (ncs_inq_var(ncid, v, name, &type, &w.ndims, NULL, NULL) != NCS_NOERR ||
            ncs_inq_type_size(type, &xsz) != NCS_NOERR ||
            ncs_inq_var_chunking(ncid, v, &storage, chunks) != NCS_NOERR ||
            storage != NCS_CHUNKED || w.ndims == 0)
            continue;                   /* check_contents reports what fails */
        snprintf(owner, sizeof owner, "variable \"%s\"", name);
        w.c = c;
        w.owner = owner;
        w.varid = v;
        w.chunks = chunks;
        w.extent = extent;
        w.chunk_bytes = xsz;
        for (int d = 0; d < w.ndims; d++) {
            if (chunks[d] == 0)
                break;                  /* check_contents reports it */
            w.chunk_bytes *= chunks[d];
        }
        if (w.chunk_bytes == 0)
            continue;
        status = ncs_inq_var_filter_ids(ncid, v, &w.nf, w.ids);
        if (status != NCS_NOERR) {
            check_error(c, -1, "%s: its filter pipeline cannot be read: %s", owner,
                        ncs_strerror(status));
            continue;
        }
        check_filters(c, &w);
        w.spans = &spans;
        w.nspans = &nspans;
        w.capspans = &capspans;
        status = ncs_inq_var_chunks(ncid, v, extent, visit_chunk, &w);
        lost |= w.spans_lost;
        if (status == NCS_ENOTBUILT) {
            check_info(c, "%s: this HDF5 cannot list chunk indexes: not checked", owner);
            continue;
        }
        if (status != NCS_NOERR)
            check_error(c, -1, "%s: its chunk index cannot be read, after %llu chunks: %s",
                        owner, w.nchunks, ncs_strerror(status));
        if (w.more > 0)
            check_error(c, -1, "%s: %llu more findings in its chunk index", owner, w.more);
        list[0] = '\0';
        for (int i = 0, used = 0; i < w.nf && used < (int)sizeof list; i++) {
            int k = filter_index(w.ids[i]);
            if (k >= 0)
                used += snprintf(list + used, sizeof list - (size_t)used, "%s%s",
                                 i ? ", " : "", known_filters[k].name);
            else
                used += snprintf(list + used, sizeof list - (size_t)used, "%sfilter %u",
                                 i ? ", " : "", w.ids[i]);
        }
        check_info(c, "%s: chunk index: %llu chunks, %llu bytes stored, filters: %s", owner,
                   w.nchunks, w.stored, w.nf ? list : "none");
    }
    if (lost)
        check_info(c, "out of memory: chunks not checked for overlaps");
    if (nspans > 1)     /* qsort wants an array, even of none */
        qsort(spans, nspans, sizeof *spans, by_offset);
    for (size_t i = 1; i < nspans; i++) {
        const span *a = &spans[i - 1], *b = &spans[i];
        char an[2 * NCS_MAX_NAME], bn[2 * NCS_MAX_NAME];
        if (a->offset + a->size <= b->offset)
            continue;
        if (++overlaps > MAX_REPORTED)
            continue;
        span_label(ncid, a, an, sizeof an);
        span_label(ncid, b, bn, sizeof bn);
        check_error(c, (long long)b->offset, "%s: its bytes %llu to %llu overlap those of "
                    "%s (bytes %llu to %llu)", bn, b->offset, b->offset + b->size, an,
                    a->offset, a->offset + a->size);
    }
    if (overlaps > MAX_REPORTED)
        check_error(c, -1, "%llu more chunks overlap others", overlaps - MAX_REPORTED);
    free(spans);
}
