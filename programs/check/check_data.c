/*
 * check_data.c -- what an open file holds, checked through the library:
 * every inquiry, every attribute's values, and every variable read whole,
 * slab by slab.
 *
 * A variable is read in tiles: its chunks when it is chunked (so a chunk
 * whose bytes or filters are broken is named by its index), else one
 * record at a time for record variables and the whole variable for fixed
 * ones; a tile larger than CHECK_SLAB_BYTES is cut along its leading
 * dimensions until it fits.  The one buffer is of the tile's size, so the
 * program's memory is bounded whatever the header claims; the library
 * reads the bytes and runs the filters, so their failures (a truncated
 * file, a deflate stream or a Fletcher-32 checksum that is wrong, a chunk
 * index HDF5 cannot follow) come back as the status of one read.
 */
#include "check.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Failed reads of one variable reported one by one; the rest are counted. */
#define MAX_REPORTED 3

static const char *type_name(int t)
{
    static const char *names[] = {"?", "byte", "char", "short", "int", "float",
                                  "double", "ubyte", "ushort", "uint", "int64",
                                  "uint64"};
    return t > 0 && t < (int)(sizeof names / sizeof names[0]) ? names[t] : "?";
}

/* "[a,b,c]" of n values into buf. */
const char *check_index_str(const size_t *v, int n, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int d = 0; d < n && used < len; d++)
        used += (size_t)snprintf(buf + used, len - used, "%s%zu", d ? "," : "[", v[d]);
    if (used < len)
        snprintf(buf + used, len - used, n ? "]" : "[]");
    return buf;
}

/* The attributes of variable vname (NULL: the global ones), of type vtype. */
static void check_atts(check_file *c, int ncid, int varid, int natts, const char *vname,
                       int vtype)
{
    for (int i = 0; i < natts; i++) {
        char name[NCS_MAX_NAME + 1], label[2 * NCS_MAX_NAME + 48];
        int type, status;
        size_t len, size;
        void *buf;
        status = ncs_inq_attname(ncid, varid, i, name);
        if (status == NCS_NOERR)
            status = ncs_inq_att(ncid, varid, name, &type, &len);
        if (status == NCS_NOERR)
            status = ncs_inq_type_size(type, &size);
        if (status != NCS_NOERR)
            snprintf(name, sizeof name, "%d", i);
        if (vname == NULL)
            snprintf(label, sizeof label, "global attribute %s%s%s", status ? "" : "\"",
                     name, status ? "" : "\"");
        else
            snprintf(label, sizeof label, "attribute %s%s%s of variable \"%s\"",
                     status ? "" : "\"", name, status ? "" : "\"", vname);
        if (status != NCS_NOERR) {
            check_error(c, -1, "%s: %s", label, ncs_strerror(status));
            continue;
        }
        if (len > SIZE_MAX / size) {
            check_error(c, -1, "%s: %zu values", label, len);
            continue;
        }
        /* the values are in the library's memory already: this is no more */
        buf = malloc(len > 0 ? len * size : 1);
        if (buf == NULL) {
            check_error(c, -1, "%s: out of memory", label);
            continue;
        }
        status = ncs_get_att(ncid, varid, name, NCS_NAT, buf);
        free(buf);
        if (status != NCS_NOERR)
            check_error(c, -1, "%s: values unreadable: %s", label, ncs_strerror(status));
        else if (vname != NULL && strcmp(name, "_FillValue") == 0 &&
                 (type != vtype || len != 1))
            check_warning(c, -1, "%s: %zu %s value%s, not one %s (readers ignore it or "
                          "fail)", label, len, type_name(type), len == 1 ? "" : "s",
                          type_name(vtype));
    }
}

/* The tile shape of a variable of the given shape, within the budget. */
static void choose_tile(int ndims, const size_t *shape, const size_t *chunks, size_t xsz,
                        size_t *tile)
{
    size_t budget = CHECK_SLAB_BYTES / xsz;
    for (int d = 0; d < ndims; d++) {
        tile[d] = chunks != NULL ? chunks[d] : shape[d];
        if (tile[d] > shape[d])
            tile[d] = shape[d];
        if (tile[d] == 0)
            tile[d] = 1;
    }
    for (int d = 0; d < ndims; d++) {
        size_t inner = 1;
        int fits = 1;
        for (int e = d + 1; e < ndims && fits; e++) {
            if (inner > budget / tile[e])
                fits = 0;
            else
                inner *= tile[e];
        }
        if (fits && inner <= budget) {
            if (tile[d] > budget / inner)
                tile[d] = budget / inner;
            return;
        }
        tile[d] = 1;
    }
}

/* Narrows a slab whose read found the end of the file to the first index
 * along dimension 0 that lies past it (rows lie in increasing file order:
 * a bisection), left in start[0] with count[0] 1. */
static void first_missing_row(int ncid, int varid, size_t *start, size_t *count, void *buf)
{
    size_t lo = start[0], hi = start[0] + count[0] - 1;   /* hi is known missing */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        start[0] = mid;
        count[0] = 1;
        if (ncs_get(ncid, varid, start, count, NULL, NULL, NCS_NAT, buf) == NCS_ETRUNC)
            hi = mid;
        else
            lo = mid + 1;
    }
    start[0] = lo;
    count[0] = 1;
}

static void check_var(check_file *c, int ncid, int varid)
{
    char name[NCS_MAX_NAME + 1], owner[NCS_MAX_NAME + 16], where[3][160];
    int type, ndims, natts, dimids[NCS_MAX_VAR_DIMS], storage = NCS_CONTIGUOUS;
    size_t shape[NCS_MAX_VAR_DIMS], chunks[NCS_MAX_VAR_DIMS], tile[NCS_MAX_VAR_DIMS];
    size_t start[NCS_MAX_VAR_DIMS], count[NCS_MAX_VAR_DIMS], xsz, bytes = 1;
    unsigned long long nreads = 0, nfailed = 0;
    int shuffle = 0, deflate = 0, level = 0, zstd = 0, fletcher = 0, empty = 0;
    void *buf;
    int status = ncs_inq_var(ncid, varid, name, &type, &ndims, dimids, &natts);
    if (status == NCS_NOERR)
        status = ncs_inq_type_size(type, &xsz);
    if (status != NCS_NOERR) {
        check_error(c, -1, "variable %d: %s", varid, ncs_strerror(status));
        return;
    }
    snprintf(owner, sizeof owner, "variable \"%s\"", name);
    check_atts(c, ncid, varid, natts, name, type);
    for (int d = 0; d < ndims; d++) {
        status = ncs_inq_dimlen(ncid, dimids[d], &shape[d]);
        if (status != NCS_NOERR) {
            check_error(c, -1, "%s: dimension %d: %s", owner, dimids[d],
                        ncs_strerror(status));
            return;
        }
        empty |= shape[d] == 0;
    }
    status = ncs_inq_var_chunking(ncid, varid, &storage, chunks);
    if (status == NCS_NOERR)
        status = ncs_inq_var_deflate(ncid, varid, &shuffle, &deflate, &level);
    if (status == NCS_NOERR)
        status = ncs_inq_var_zstd(ncid, varid, &zstd);
    if (status == NCS_NOERR)
        status = ncs_inq_var_fletcher32(ncid, varid, &fletcher);
    if (status != NCS_NOERR) {
        check_error(c, -1, "%s: storage: %s", owner, ncs_strerror(status));
        return;
    }
    if (storage == NCS_CHUNKED)
        for (int d = 0; d < ndims; d++)
            if (chunks[d] == 0) {
                check_error(c, -1, "%s: chunk length 0 along dimension %d", owner, d);
                return;
            }
    choose_tile(ndims, shape, storage == NCS_CHUNKED ? chunks : NULL, xsz, tile);
    for (int d = 0; d < ndims; d++)
        bytes *= tile[d];
    bytes *= xsz;
    buf = malloc(bytes);
    if (buf == NULL) {
        check_error(c, -1, "%s: out of memory for a slab of %zu bytes", owner, bytes);
        return;
    }
    memset(start, 0, sizeof start[0] * (size_t)(ndims > 0 ? ndims : 1));
    while (!empty) {
        int d;
        for (d = 0; d < ndims; d++)
            count[d] = shape[d] - start[d] < tile[d] ? shape[d] - start[d] : tile[d];
        status = ncs_get(ncid, varid, start, count, NULL, NULL, NCS_NAT, buf);
        nreads++;
        if (status == NCS_ETRUNC) {
            /* every later slab lies further into the file */
            if (ndims > 0)
                first_missing_row(ncid, varid, start, count, buf);
            check_error(c, -1, "%s: from start %s count %s on, the data lie past the "
                        "end of the file (%llu bytes): %s", owner,
                        check_index_str(start, ndims, where[0], sizeof where[0]),
                        check_index_str(count, ndims, where[1], sizeof where[1]), c->fsize,
                        ncs_strerror(status));
            break;
        }
        if (status != NCS_NOERR && ++nfailed <= MAX_REPORTED) {
            char chunk[160] = "";
            if (storage == NCS_CHUNKED) {
                size_t idx[NCS_MAX_VAR_DIMS];
                for (d = 0; d < ndims; d++)
                    idx[d] = start[d] / chunks[d];
                snprintf(chunk, sizeof chunk, "chunk %s, ",
                         check_index_str(idx, ndims, where[1], sizeof where[1]));
            }
            check_error(c, -1, "%s: %sstart %s count %s: %s", owner, chunk,
                        check_index_str(start, ndims, where[0], sizeof where[0]),
                        check_index_str(count, ndims, where[1], sizeof where[1]),
                        ncs_strerror(status));
        }
        /* the next tile, the last dimension fastest */
        for (d = ndims - 1; d >= 0; d--) {
            start[d] += tile[d];
            if (start[d] < shape[d])
                break;
            start[d] = 0;
        }
        if (d < 0)
            break;
    }
    free(buf);
    if (nfailed > MAX_REPORTED)
        check_error(c, -1, "%s: %llu more of its %llu reads failed", owner,
                    nfailed - MAX_REPORTED, nreads);
    if (c->verbose) {
        char filters[96] = "";
        size_t used = 0;
        if (shuffle)
            used += (size_t)snprintf(filters + used, sizeof filters - used, ", shuffle");
        if (deflate)
            used += (size_t)snprintf(filters + used, sizeof filters - used, ", deflate %d",
                                     level);
        if (zstd)
            used += (size_t)snprintf(filters + used, sizeof filters - used, ", zstd %d", zstd);
        if (fletcher)
            snprintf(filters + used, sizeof filters - used, ", fletcher32");
        check_info(c, "%s: %s %s, %s%s%s, %llu reads of up to %s, %llu failed", owner,
                   type_name(type), check_index_str(shape, ndims, where[0], sizeof where[0]),
                   storage == NCS_CHUNKED ? "chunks " :
                   storage == NCS_COMPACT ? "compact" : "contiguous",
                   storage == NCS_CHUNKED ? check_index_str(chunks, ndims, where[1],
                                                      sizeof where[1]) : "",
                   filters, nreads, check_index_str(tile, ndims, where[2], sizeof where[2]),
                   nfailed);
    }
}

void check_contents(check_file *c, int ncid)
{
    static const char *formats[] = {"?", "classic (CDF-1)", "64-bit offset (CDF-2)",
                                    "netCDF-4", "netCDF-4 classic model",
                                    "64-bit data (CDF-5)"};
    int ndims, nvars, natts, unlimdim, format;
    int status = ncs_inq(ncid, &ndims, &nvars, &natts, &unlimdim);
    if (status == NCS_NOERR)
        status = ncs_inq_format(ncid, &format);
    if (status != NCS_NOERR) {
        check_error(c, -1, "inquiry: %s", ncs_strerror(status));
        return;
    }
    check_info(c, "%s, %d dimensions, %d variables, %d global attributes",
               format > 0 && format <= 5 ? formats[format] : "unknown format", ndims,
               nvars, natts);
    for (int d = 0; d < ndims; d++) {
        char name[NCS_MAX_NAME + 1];
        size_t len;
        status = ncs_inq_dim(ncid, d, name, &len);
        if (status != NCS_NOERR)
            check_error(c, -1, "dimension %d: %s", d, ncs_strerror(status));
        else
            check_info(c, "dimension \"%s\": %zu%s", name, len,
                       d == unlimdim ? " (unlimited: the number of records)" : "");
    }
    check_atts(c, ncid, NCS_GLOBAL, natts, NULL, NCS_NAT);
    for (int v = 0; v < nvars; v++)
        check_var(c, ncid, v);
}
