/*
 * copy_define.c -- the output's definitions: dimensions, variables and
 * attributes as the input has them (same ids, same order), and for
 * netCDF-4 output the storage of each variable.
 *
 * The storage rules are nccopy's (its "Chunking Rules", as netCDF-C 4.9's
 * nccopy applies them, checked against Debian's nccopy by make check), in
 * this order, for a variable of rank > 0:
 *   0. the filters (choose_filters): -d / --zstd replace the input's
 *      compression, -s counts only with them, Fletcher-32 is kept or added,
 *      -F none removes them all;
 *   1. `-c /`: contiguous; `-c var:` (or var:contiguous): contiguous
 *      unless -d 1-9, --zstd or --fletcher32 ask for chunks (then the var:
 *      form is ignored); a record variable cannot be contiguous and skips
 *      the var: form; where "contiguous" meets filters (the input's, or
 *      under `-c /`) or a record variable, the library's default shape;
 *   2. chunked when `-c var:n1,...` names it, `-c dim/len` names one of
 *      its dimensions, it is a record variable, the input has it chunked,
 *      or -d 1-9, --zstd or --fletcher32 asks for a filter; else contiguous;
 *   3. each chunk length, dimension by dimension: the `-c var:` length,
 *      else the `-c dim/len` one (dim/ alone: the whole dimension), else
 *      the input's chunk length when the input is chunked, else netCDF-C's
 *      default chunk length for the output variable (library_default),
 *      else the whole dimension (records: at most 4 MiB of elements);
 *   4. a fixed-size variable whose chunk has fewer bytes than -M (8192 by
 *      default, as nccopy) is contiguous instead, or takes the library's
 *      default shape when it has filters (a filter needs chunks).
 * Where nccopy fails and this program does not (`-c /` with a record
 * variable, chunk lengths past a dimension), doc/chunking.md says why.
 * Scalars are always contiguous and unfiltered.
 */
#include "copy.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* nccopy's cap on a record dimension's chunk length, when nothing else
 * gives one: 4 MiB of elements. */
#define RECORD_CHUNK_BYTES ((size_t)4 << 20)

static const char *type_name(int t)
{
    static const char *const names[] = {
        "NAT", "byte", "char", "short", "int", "float", "double",
        "ubyte", "ushort", "uint", "int64", "uint64",
    };
    return t >= 0 && t <= NCS_UINT64 ? names[t] : "unknown";
}

static const char *kind_name(int kind)
{
    switch (kind) {
    case NCS_FORMAT_CLASSIC: return "classic";
    case NCS_FORMAT_64BIT_OFFSET: return "64-bit offset";
    case NCS_FORMAT_64BIT_DATA: return "cdf5";
    case NCS_FORMAT_NETCDF4: return "netCDF-4";
    default: return "netCDF-4 classic model";
    }
}

static int copy_atts(int in, int out, int varid, int natts, const char *owner)
{
    char name[NCS_MAX_NAME + 1];
    for (int a = 0; a < natts; a++) {
        int status = ncs_inq_attname(in, varid, a, name);
        if (status == NCS_NOERR)
            status = ncs_copy_att(in, varid, name, out, varid);
        if (status != NCS_NOERR) {
            copy_fail(status, "attribute %s:%s", owner, name);
            return -1;
        }
    }
    return 0;
}

static const copy_varspec *find_varspec(const copy_opts *o, const char *name)
{
    for (int i = 0; i < o->nvars; i++)
        if (strcmp(o->vars[i].name, name) == 0)
            return &o->vars[i];
    return NULL;
}

/* The -c dim/len entry for dimension dimid of the input, if any. */
static const copy_dimspec *find_dimspec(int in, const copy_opts *o, int dimid)
{
    for (int i = 0; i < o->ndims; i++) {
        int id;
        if (!o->dims[i].inactive &&
            ncs_inq_dimid(in, o->dims[i].name, &id) == NCS_NOERR && id == dimid)
            return &o->dims[i];
    }
    return NULL;
}

/* Every name the options use must be the input's. */
static int check_specs(int in, const copy_opts *o)
{
    int id, nd;
    for (int i = 0; i < o->ndims; i++)
        if (ncs_inq_dimid(in, o->dims[i].name, &id) != NCS_NOERR) {
            copy_msg("-c: the input has no dimension '%s'", o->dims[i].name);
            return -1;
        }
    for (int i = 0; i < o->nvars; i++) {
        const copy_varspec *v = &o->vars[i];
        if (ncs_inq_varid(in, v->name, &id) != NCS_NOERR) {
            copy_msg("-c: the input has no variable '%s'", v->name);
            return -1;
        }
        ncs_inq_varndims(in, id, &nd);
        if (!v->contiguous && v->n != nd) {
            copy_msg("-c: variable '%s' has %d dimensions, not %d", v->name, nd, v->n);
            return -1;
        }
    }
    return 0;
}

/* netCDF-C's default chunk shape for output variable varid (still in
 * define mode), as nccopy learns it: by asking for chunks without a shape;
 * 0 where there is none.  apply_storage sets the storage again. */
static void library_default(int out, int varid, int nd, size_t *dflt)
{
    int storage;
    memset(dflt, 0, (size_t)nd * sizeof *dflt);
    if (ncs_def_var_chunking(out, varid, NCS_CHUNKED, NULL) != NCS_NOERR ||
        ncs_inq_var_chunking(out, varid, &storage, dflt) != NCS_NOERR ||
        storage != NCS_CHUNKED)
        memset(dflt, 0, (size_t)nd * sizeof *dflt);
}

/* The filters of output variable varid (rank > 0): -d and --zstd replace
 * the input's compression (-d, any level, also removes a Zstandard input's,
 * as nccopy's -d drops every filter but Fletcher-32), -s applies to what
 * -d 1-9 or --zstd compresses and is otherwise the input's, Fletcher-32 is
 * the input's or asked for. */
static void choose_filters(int in, const copy_opts *o, int varid, copy_storage *st)
{
    int sh = 0, def = 0, level = 0, zin = 0, fin = 0;
    if (o->no_filters)
        return;                 /* -F none; st[] is all zero */
    ncs_inq_var_deflate(in, varid, &sh, &def, &level);
    ncs_inq_var_zstd(in, varid, &zin);
    ncs_inq_var_fletcher32(in, varid, &fin);
    st->deflate = o->deflate >= 0 ? o->deflate : o->zstd > 0 ? 0 : def ? level : 0;
    st->zstd = o->zstd >= 0 ? o->zstd : o->deflate >= 0 ? 0 : zin;
    if (o->deflate > 0 || o->zstd > 0)
        st->shuffle = o->shuffle;
    else if (o->deflate == 0)
        st->shuffle = 0;
    else
        st->shuffle = sh && (o->zstd < 0 || st->deflate);
    st->fletcher32 = o->fletcher32 || fin;
}

static int has_filters(const copy_storage *st)
{
    return st->deflate || st->zstd || st->shuffle || st->fletcher32;
}

/* Storage that the rules leave contiguous: contiguous when it has no
 * filters, else (a filter needs chunks) the library's default shape; a
 * record variable cannot be contiguous and gets that shape too. */
static void default_or_contiguous(copy_storage *st, int is_rec)
{
    if (is_rec || has_filters(st)) {
        st->contiguous = 0;
        st->chunked_set = 0;
    } else {
        memset(st, 0, sizeof *st);
        st->contiguous = 1;
    }
}

static int choose_storage(int in, int out, const copy_opts *o, int varid, const char *name,
                          int xtype, int nd, const int *dimids, int unlim,
                          copy_storage *st)
{
    size_t in_chunks[NCS_MAX_VAR_DIMS], len[NCS_MAX_VAR_DIMS], dflt[NCS_MAX_VAR_DIMS];
    size_t esize = 1, bytes;
    int storage, named = 0, chunked;
    int is_rec = nd > 0 && dimids[0] == unlim;
    /* -d 1-9, --zstd and --fletcher32 ask for chunks even where a var:
     * specification says contiguous (nccopy: "may be overridden if other
     * flags require the variable to be chunked") */
    int asked = o->deflate > 0 || o->zstd > 0 || o->fletcher32;
    const copy_varspec *vs = find_varspec(o, name);

    memset(st, 0, sizeof *st);
    if (nd == 0) {
        st->contiguous = 1;
        return 0;
    }
    if (ncs_inq_var_chunking(in, varid, &storage, in_chunks) != NCS_NOERR)
        storage = NCS_CONTIGUOUS;
    ncs_inq_type_size(xtype, &esize);
    for (int d = 0; d < nd; d++) {
        ncs_inq_dimlen(in, dimids[d], &len[d]);
        if (find_dimspec(in, o, dimids[d]) != NULL)
            named = 1;
    }
    choose_filters(in, o, varid, st);

    /* -c / comes before any var: form; it drops every chunk length */
    if (o->all_contiguous) {
        default_or_contiguous(st, is_rec);
        return 0;
    }
    if (vs != NULL && vs->contiguous) {
        if (!is_rec && !asked) {
            default_or_contiguous(st, 0);
            return 0;
        }
        vs = NULL;              /* overridden: the rules below, as if unnamed */
    }
    if (vs != NULL)
        for (int d = 0; d < nd; d++)
            if (dimids[d] != unlim && vs->sizes[d] > len[d]) {
                copy_msg("-c: chunk length %zu of variable '%s' exceeds its "
                         "dimension's length %zu", vs->sizes[d], name, len[d]);
                return -1;
            }
    chunked = vs != NULL || named || is_rec || storage == NCS_CHUNKED || asked;
    if (!chunked) {
        default_or_contiguous(st, 0);
        return 0;
    }
    library_default(out, varid, nd, dflt);
    bytes = esize;
    for (int d = 0; d < nd; d++) {
        const copy_dimspec *ds = find_dimspec(in, o, dimids[d]);
        size_t c = 0;
        if (vs != NULL)
            c = vs->sizes[d];
        else if (ds != NULL)
            c = ds->len != 0 ? ds->len : len[d];
        else if (storage == NCS_CHUNKED)
            c = in_chunks[d];
        if (c == 0)
            c = dflt[d];
        if (c == 0) {
            c = len[d];
            if (dimids[d] == unlim && c > RECORD_CHUNK_BYTES / esize)
                c = RECORD_CHUNK_BYTES / esize;
        }
        if (c == 0)
            c = 1;
        if (dimids[d] != unlim && c > len[d] && len[d] > 0)
            c = len[d];
        st->chunks[d] = c;
        bytes = bytes > SIZE_MAX / c ? SIZE_MAX : bytes * c;
    }
    st->chunked_set = 1;
    /* a chunk under the threshold is not worth one */
    if (!is_rec && bytes < o->min_chunk)
        default_or_contiguous(st, 0);
    return 0;
}

static int apply_storage(int out, int varid, const char *name, int nd,
                         const copy_storage *st)
{
    int status = NCS_NOERR;
    if (nd == 0)
        return 0;
    if (st->contiguous)
        status = ncs_def_var_chunking(out, varid, NCS_CONTIGUOUS, NULL);
    else {
        if (st->chunked_set)
            status = ncs_def_var_chunking(out, varid, NCS_CHUNKED, st->chunks);
        if (status == NCS_NOERR && (st->shuffle || st->deflate))
            status = ncs_def_var_deflate(out, varid, st->shuffle, st->deflate > 0,
                                         st->deflate);
        if (status == NCS_NOERR && st->zstd)
            status = ncs_def_var_zstd(out, varid, st->zstd);
        if (status == NCS_NOERR && st->fletcher32)
            status = ncs_def_var_fletcher32(out, varid, 1);
    }
    if (status != NCS_NOERR) {
        copy_fail(status, "storage of variable '%s'", name);
        return -1;
    }
    return 0;
}

int copy_define(int in, int out, int out_kind, const copy_opts *o, copy_storage *st)
{
    char name[NCS_MAX_NAME + 1];
    int ndims, nvars, natts, unlim, out_unlim, status, old, id;
    int nc4 = out_kind == NCS_FORMAT_NETCDF4_CLASSIC || out_kind == NCS_FORMAT_NETCDF4;

    if ((status = ncs_inq(in, &ndims, &nvars, &natts, &unlim)) != NCS_NOERR) {
        copy_fail(status, "reading the input");
        return -1;
    }
    if (check_specs(in, o) != 0)
        return -1;
    out_unlim = unlim;
    if (o->fix_unlimited && unlim >= 0) {
        size_t nrec = 0;
        ncs_inq_dimlen(in, unlim, &nrec);
        if (nrec > 0)
            out_unlim = -1;
    }
    /* every value is written, so filling first would only double the I/O */
    if ((status = ncs_set_fill(out, NCS_NOFILL, &old)) != NCS_NOERR) {
        copy_fail(status, "output fill mode");
        return -1;
    }
    for (int d = 0; d < ndims; d++) {
        size_t len;
        if ((status = ncs_inq_dim(in, d, name, &len)) != NCS_NOERR) {
            copy_fail(status, "dimension %d", d);
            return -1;
        }
        /* -u: a fixed-size dimension of the current record count (none
         * yet: it stays the record dimension, as in nccopy, where a
         * length of 0 is the unlimited one) */
        status = ncs_def_dim(out, name, d == unlim && !o->fix_unlimited ? NCS_UNLIMITED
                                                                       : len, &id);
        if (status == NCS_NOERR && id != d)
            status = NCS_EINTERNAL;
        if (status != NCS_NOERR) {
            copy_fail(status, "dimension '%s' (length %zu) in a %s file", name, len,
                      kind_name(out_kind));
            return -1;
        }
    }
    if (copy_atts(in, out, NCS_GLOBAL, natts, "") != 0)
        return -1;
    for (int v = 0; v < nvars; v++) {
        int xtype, nd, dimids[NCS_MAX_VAR_DIMS], na;
        if ((status = ncs_inq_var(in, v, name, &xtype, &nd, dimids, &na)) != NCS_NOERR) {
            copy_fail(status, "variable %d", v);
            return -1;
        }
        status = ncs_def_var(out, name, xtype, nd, dimids, &id);
        if (status == NCS_NOERR && id != v)
            status = NCS_EINTERNAL;
        /* NCS_ESTRICTNC3: a netCDF-4 file without the classic model's mark
         * still holds only the classic model's types here */
        if (status == NCS_EBADTYPE || (status == NCS_ESTRICTNC3 && xtype > NCS_DOUBLE)) {
            copy_msg("variable '%s' has type %s, which the %s format%s cannot hold "
                     "(of the classic-model formats only cdf5 can)", name,
                     type_name(xtype), kind_name(out_kind),
                     out_kind == NCS_FORMAT_NETCDF4 ? " as ncslab writes it" : "");
            return -1;
        }
        if (status != NCS_NOERR) {
            copy_fail(status, "variable '%s' in a %s file", name, kind_name(out_kind));
            return -1;
        }
        if (copy_atts(in, out, v, na, name) != 0)
            return -1;
        if (nc4 && (choose_storage(in, out, o, v, name, xtype, nd, dimids, out_unlim,
                                   &st[v]) != 0 ||
                    apply_storage(out, v, name, nd, &st[v]) != 0))
            return -1;
    }
    if ((status = ncs_enddef(out)) != NCS_NOERR) {
        if (status == NCS_EVARSIZE)
            copy_msg("the variables are too large for the %s format "
                     "(-k cdf5 or -k nc7 can hold them)", kind_name(out_kind));
        else
            copy_fail(status, "laying out the output");
        return -1;
    }
    /* the shapes the library chose where the rules left it the choice */
    for (int v = 0; nc4 && v < nvars; v++) {
        int storage;
        if ((status = ncs_inq_var_chunking(out, v, &storage, st[v].chunks)) != NCS_NOERR) {
            copy_fail(status, "storage of variable %d", v);
            return -1;
        }
        st[v].contiguous = storage == NCS_CONTIGUOUS;
    }
    return 0;
}
