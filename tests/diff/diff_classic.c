/*
 * diff_classic.c -- differential test of ncslab's classic back end against
 * netCDF-C, both linked into this one process.
 *
 * Every test drives the two libraries with the same calls: a seeded random
 * schema (ranks 0-4, fixed and record dimensions, every type of the format,
 * attributes of every type), then random hyperslab puts and gets (strides,
 * negative and permuting maps, memory types other than the external one,
 * range errors, record growth, invalid requests), redef with data moves,
 * nc__enddef alignment, attribute rename/delete, abort, close, read-only
 * reopen.  netCDF-C is the reference: every return code must be equal, every
 * value read must be equal (for NC_ERANGE only the in-range elements), and
 * after close the two files must be byte-for-byte identical.
 *
 * Values encode their coordinates: element lin (linear index, the record
 * dimension counted as REC_LIN long) of variable v holds f(v, lin), so a
 * misplaced element says where it came from.
 *
 * Invariants of the harness:
 *   - the "pair" holds one ncid per library; the schema model is always
 *     re-read from netCDF-C, never tracked by hand;
 *   - a return-code mismatch on a call that changes a file marks the pair
 *     dead (the two files have diverged) and the iteration stops there;
 *     read-only mismatches are counted and the iteration goes on;
 *   - each mismatch is printed with the last calls of its iteration, so the
 *     log holds a replayable call sequence; the seed is printed at start.
 *
 * Seeds: argv[1] or NCSLAB_SEED=N runs that one seed; otherwise a fixed list
 * plus one time-based seed.  NCSLAB_DIFF_TRACE=1 prints every call.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <check.h>
#include <netcdf.h>

#include "ncslab.h"
#include "diff_util.h"

#define ITERS_PER_COMBO 8 /* schemas per (format, fill, share) and seed */

static char tmpdir[256];
static uint64_t seeds[24];
static int nseeds;


/* ---- data operations ----------------------------------------------------- */
static void op_put(dpair *p)
{
    int v = (int)drng_below(&p->r, (unsigned)p->nvars);
    int ext = p->vtype[v], mem = dp_pick_memtype(p, ext);
    int memt = mem == NC_NAT ? ext : mem;
    size_t msz = dt_size(memt);
    int scale = (int)drng_below(&p->r, 3);
    int erange = !p->only_nc && drng_chance(&p->r, 12);
    dslab s;
    char sd[400], what[600];

    dslab_gen(p, v, 1, -1, &s);
    unsigned char *buf = calloc(s.span, msz);
    unsigned char *oor = calloc(s.nel + 1, 1);
    int noor = 0;
    for (size_t k = 0; k < s.nel; k++) {
        size_t moff, lin;
        long double val;
        dslab_elem(p, v, &s, k, &moff, &lin, NULL);
        val = dval_gen(ext, mem, v, lin, scale);
        if (erange && drng_chance(&p->r, 35) && dval_oor(ext, memt, lin, &val))
            oor[k] = 1, noor++;
        dt_store(memt, buf + moff * msz, val);
    }
    int a = dslab_put_nc(p, v, &s, mem, buf, msz);
    int b = dslab_put_ns(p, v, &s, mem, buf, msz);
    snprintf(what, sizeof what, "put_%s v%d(%s) mem=%s %s%s", dk_name(s.kind), v,
             dt_name(ext), dt_name(mem), dslab_str(&s, sd, sizeof sd),
             noor ? " (some values out of range)" : "");
    dp_note(p, "%s -> %d/%d", what, a, b);
    if (a == NC_NOERR || a == NC_ERANGE)
        dp_mark_slab(p, v, &s);
    if (!p->only_nc && dp_rc_eq(p, what, a, b, 1))
        dp_check_numrecs(p, what);
    if (p->dead || p->only_nc || a != NC_ERANGE || s.nel == 0)
        goto cleanup;

    /* Range error: the in-range elements must have been written alike.  The
     * out-of-range ones are then rewritten with in-range values, so that
     * the final byte compare is about everything else (the bytes an
     * out-of-range value becomes are checked by t_erange_bytes). */
    size_t xsz = dt_size(ext);
    unsigned char *ra = calloc(s.nel, xsz), *rb = calloc(s.nel, xsz);
    int ga = dslab_read_packed(p, 0, v, &s, ra), gb = dslab_read_packed(p, 1, v, &s, rb);
    if (dp_rc_eq(p, "re-read after NC_ERANGE put", ga, gb, 0) && ga == NC_NOERR) {
        for (size_t k = 0; k < s.nel; k++) {
            if (oor[k] || !memcmp(ra + k * xsz, rb + k * xsz, xsz))
                continue;
            char x[64], y[64];
            dt_format(ext, ra + k * xsz, x, sizeof x);
            dt_format(ext, rb + k * xsz, y, sizeof y);
            dp_mismatch(p, "%s: in-range element %zu reads back as %s (netCDF-C) vs %s (ncslab)",
                     what, k, x, y);
            break;
        }
    }
    free(ra);
    free(rb);
    for (size_t k = 0; k < s.nel; k++) {
        size_t moff, lin;
        dslab_elem(p, v, &s, k, &moff, &lin, NULL);
        dt_store(memt, buf + moff * msz, dval_gen(ext, mem, v, lin, 0));
    }
    a = dslab_put_nc(p, v, &s, mem, buf, msz);
    b = dslab_put_ns(p, v, &s, mem, buf, msz);
    dp_note(p, "(rewrite in range) %s -> %d/%d", what, a, b);
    dp_rc_eq(p, "rewrite after NC_ERANGE", a, b, 1);
cleanup:
    free(buf);
    free(oor);
}

/* In nofill mode, writes every record of every record variable, in both
 * libraries, with the variable's coordinate values.  Records that were never
 * written have no defined content; a redef that moves them copies whatever
 * bytes lie there, and netCDF-C's I/O layer can leave stale buffer bytes in
 * moved records that lay past the end of the file, which no other library
 * can reproduce.  Writing them first keeps the byte compare about defined
 * data (netCDF-C 4.9.0, posixio moves); so does writing them again after the
 * enddef, for the record variables the redef added. */
static void write_all_records(dpair *p)
{
    size_t nrec = 0;
    if (p->recdim < 0 || nc_inq_dimlen(p->nc, p->recdim, &nrec) != NC_NOERR || nrec == 0)
        return;
    for (int v = 0; v < p->nvars && !p->dead; v++) {
        int ext = p->vtype[v], nd = p->vndims[v];
        size_t start[DP_MAXR + 1] = {0}, count[DP_MAXR + 1], n = 1, esz = dt_size(ext);
        unsigned char *buf;
        if (nd == 0 || p->vdims[v][0] != p->recdim)
            continue;
        for (int d = 0; d < nd; d++) {
            count[d] = d == 0 ? nrec : p->dimlen[p->vdims[v][d]];
            n *= count[d];
        }
        buf = calloc(n ? n : 1, esz);
        for (size_t k = 0; k < n; k++)
            dt_store(ext, buf + k * esz, dval_gen(ext, NC_NAT, v, k, 0));
        int a = nc_put_vara(p->nc, v, start, count, buf);
        int b = ncs_put(p->ns, v, start, count, NULL, NULL, NCS_NAT, buf);
        dp_note(p, "put_vara v%d (every record, before a nofill redef) -> %d/%d", v, a, b);
        if (dp_rc_eq(p, "put of every record", a, b, 1) && a == NC_NOERR)
            dp_mark_first(p, v, n);
        free(buf);
    }
}

/* 1 when some element of s has no defined content (dp_undefined). */
static int slab_has_undefined(const dpair *p, int v, const dslab *s)
{
    if (!p->ever_nofill)
        return 0;
    for (size_t k = 0; k < s->nel; k++) {
        size_t moff, lin;
        dslab_elem(p, v, s, k, &moff, &lin, NULL);
        if (dp_undefined(p, v, lin))
            return 1;
    }
    return 0;
}

/* Reports the first element where two get buffers differ.  An element
 * without defined content (never written, nofill) is not compared:
 * netCDF-C may hold stale buffer bytes there, and both hold whatever data
 * a redefinition moved away left behind (doc/format.md). */
static void report_get_diff(dpair *p, const char *what, int v, const dslab *s, int memt,
                            const unsigned char *ba, unsigned char *bb,
                            const unsigned char *mask)
{
    size_t msz = dt_size(memt), nbytes = s->span * msz, off, nundef = 0;
    for (size_t k = 0; k < s->nel && p->ever_nofill; k++) {
        size_t moff, lin;
        dslab_elem(p, v, s, k, &moff, &lin, NULL);
        if (dp_undefined(p, v, lin) && memcmp(ba + moff * msz, bb + moff * msz, msz)) {
            memcpy(bb + moff * msz, ba + moff * msz, msz);
            nundef++;
        }
    }
    if (nundef)
        dp_note(p, "%s: %zu elements never written (nofill) read differently", what, nundef);
    for (off = 0; off < nbytes; off++)
        if ((!mask || mask[off]) && ba[off] != bb[off])
            break;
    if (off == nbytes)
        return;
    size_t pos = off / msz;
    for (size_t k = 0; k < s->nel; k++) {
        size_t moff, lin, coord[DP_MAXR + 1];
        dslab_elem(p, v, s, k, &moff, &lin, coord);
        if (moff != pos)
            continue;
        char x[64], y[64], c[96];
        dt_format(memt, ba + pos * msz, x, sizeof x);
        dt_format(memt, bb + pos * msz, y, sizeof y);
        dp_mismatch(p, "%s: element %zu at %s (memory offset %zu): netCDF-C %s, ncslab %s",
                 what, k, dfmt_sizes(c, sizeof c, coord, s->rank), pos, x, y);
        return;
    }
    dp_mismatch(p, "%s: memory outside the slab's elements differs at byte %zu "
             "(netCDF-C %02x, ncslab %02x)", what, off, ba[off], bb[off]);
}

static void op_get_slab(dpair *p, int v, int mem, const dslab *s)
{
    int ext = p->vtype[v], memt = mem == NC_NAT ? ext : mem;
    size_t msz = dt_size(memt);
    char sd[400], what[600];
    unsigned char *ba = malloc(s->span * msz), *bb = malloc(s->span * msz);

    memset(ba, 0xA5, s->span * msz);
    memset(bb, 0xA5, s->span * msz);
    int a = dnc_get(p->nc, v, s->kind, s->start, s->count, DSLAB_STRIDE(s), s->imap,
                    mem, ba + s->base * msz);
    int b = dns_get(p->ns, v, s->kind, s->start, s->count, DSLAB_STRIDE(s), s->imap,
                    mem, bb + s->base * msz);
    snprintf(what, sizeof what, "get_%s v%d(%s) mem=%s %s", dk_name(s->kind), v,
             dt_name(ext), dt_name(mem), dslab_str(s, sd, sizeof sd));
    dp_note(p, "%s -> %d/%d", what, a, b);
    if (((a == NC_ERANGE && b == NC_NOERR) || (a == NC_NOERR && b == NC_ERANGE)) &&
        slab_has_undefined(p, v, s)) {
        /* a never-written element's bytes did not fit the memory type in
         * one file only */
        dp_note(p, "%s: NC_ERANGE from one library only, on a slab with elements never "
                "written (nofill)", what);
    } else if (!dp_rc_eq(p, what, a, b, 0)) {
        goto cleanup;
    }
    if (a == NC_NOERR) {
        report_get_diff(p, what, v, s, memt, ba, bb, NULL);
    } else if (a == NC_ERANGE) {
        /* Compare only the elements whose value fits the memory type. */
        size_t xsz = dt_size(ext);
        unsigned char *ref = calloc(s->nel + 1, xsz), *mask = malloc(s->span * msz);
        memset(mask, 1, s->span * msz);
        if (dslab_read_packed(p, 0, v, s, ref) == NC_NOERR) {
            for (size_t k = 0; k < s->nel; k++) {
                size_t moff, lin;
                dslab_elem(p, v, s, k, &moff, &lin, NULL);
                if (!dt_fits(memt, dt_load(ext, ref + k * xsz)))
                    memset(mask + moff * msz, 0, msz);
            }
            report_get_diff(p, what, v, s, memt, ba, bb, mask);
        }
        free(ref);
        free(mask);
    }
cleanup:
    free(ba);
    free(bb);
}

static void op_get(dpair *p)
{
    int v = (int)drng_below(&p->r, (unsigned)p->nvars);
    dslab s;
    dslab_gen(p, v, 0, -1, &s);
    op_get_slab(p, v, dp_pick_memtype(p, p->vtype[v]), &s);
}

/* Requests that must fail (or are at the edge of validity): both libraries
 * must return the same code. */
static void op_invalid(dpair *p)
{
    drng *r = &p->r;
    int v = (int)drng_below(r, (unsigned)p->nvars);
    int ext = p->vtype[v], rank = p->vndims[v];
    int put = p->writable && drng_chance(r, 50);
    int mem = ext == NC_CHAR ? NC_CHAR : drng_chance(r, 50) ? NC_NAT : ext;
    int ncid_nc = p->nc, ncid_ns = p->ns, varid = v, d = 0;
    unsigned mode = drng_below(r, 10);
    const char *why = "";
    dslab s;
    char sd[400], what[600];

    dslab_gen(p, v, put, drng_chance(r, 50) ? DK_VARA : DK_VARS, &s);
    if (rank == 0 && mode < 4)
        mode = 5;
    if (rank == 0 && mode >= 7)
        mode = 4;
    if (rank > 0) {
        d = (int)drng_below(r, (unsigned)rank);
        /* a put may start anywhere in the record dimension */
        if (put && p->vdims[v][d] == p->recdim && mode != 3) {
            if (rank > 1)
                d = 1 + (int)drng_below(r, (unsigned)rank - 1);
            else
                put = 0;
        }
    }
    size_t len = rank ? dp_cur_len(p, p->vdims[v][d]) : 0;
    switch (mode) {
    case 0:
        why = "start past end";
        s.start[d] = len + 1 + drng_below(r, 3);
        s.count[d] = 1;
        break;
    case 1:
        why = "start at end";
        s.start[d] = len;
        s.count[d] = 1;
        break;
    case 2:
        why = "count past end";
        s.start[d] = drng_below(r, (unsigned)len + 1);
        s.count[d] = len - s.start[d] + 1 + drng_below(r, 2);
        break;
    case 3:
        why = "stride not positive";
        s.kind = DK_VARS;
        s.stride[d] = drng_chance(r, 50) ? 0 : -1;
        break;
    case 4:
        why = "text/number mix";
        mem = ext == NC_CHAR ? dp_random_numeric(p) : NC_CHAR;
        break;
    case 5: {
        static const int bad[] = {0, 3, -2, NC_GLOBAL};
        why = "bad varid";
        unsigned i = drng_below(r, 4);
        varid = i < 2 ? p->nvars + bad[i] : bad[i];
        break;
    }
    case 6:
        why = "bad ncid";
        ncid_nc = ncid_ns = drng_chance(r, 50) ? -1 : 0x3fff0001;
        break;
    case 7:
        why = "start at end, count 0";
        s.start[d] = len;
        s.count[d] = 0;
        break;
    case 8:
        why = "stride past end";
        s.kind = DK_VARS;
        s.stride[d] = 2 + (ptrdiff_t)drng_below(r, 2);
        s.start[d] = len ? drng_below(r, (unsigned)len) : 0;
        s.count[d] = (len - s.start[d]) / (size_t)s.stride[d] + 2;
        break;
    default:
        why = "start + count overflow";
        s.start[d] = SIZE_MAX - 1;
        s.count[d] = 2;
        break;
    }
    size_t nel = 1;
    for (int i = 0; i < rank; i++)
        nel *= s.count[i] < 4096 ? s.count[i] : 4096;
    if (nel > 65536)
        nel = 65536;
    size_t esz = 8;
    unsigned char *ba = calloc(nel + 1, esz), *bb = calloc(nel + 1, esz);
    int a, b;
    if (put) {
        a = dnc_put(ncid_nc, varid, s.kind, s.start, s.count, s.stride, NULL, mem, ba);
        b = dns_put(ncid_ns, varid, s.kind, s.start, s.count, s.stride, NULL, mem, bb);
    } else {
        a = dnc_get(ncid_nc, varid, s.kind, s.start, s.count, s.stride, NULL, mem, ba);
        b = dns_get(ncid_ns, varid, s.kind, s.start, s.count, s.stride, NULL, mem, bb);
    }
    snprintf(what, sizeof what, "%s_%s %s: ncid=%s varid=%d (v%d %s) mem=%s %s",
             put ? "put" : "get", dk_name(s.kind), why,
             ncid_nc == p->nc ? "ok" : "bad", varid, v, dt_name(ext), dt_name(mem),
             dslab_str(&s, sd, sizeof sd));
    dp_note(p, "%s -> %d/%d", what, a, b);
    if (dp_rc_eq(p, what, a, b, put) && put)
        dp_check_numrecs(p, what);
    free(ba);
    free(bb);
}

/* ---- attributes ------------------------------------------------------------ */
static const char *const att_names[] = {"units", "a1", "long_name", "valid_range",
                                        "scale_factor", "_FillValue", "x"};
#define N_ATT_NAMES (sizeof att_names / sizeof att_names[0])

/* Puts an attribute from memory type mem (-1: a compatible one at random). */
static void op_put_att_mem(dpair *p, int varid, const char *name, int xtype, size_t len,
                           int mem)
{
    if (mem < 0 && xtype == NC_CHAR)
        mem = drng_chance(&p->r, 80) ? NC_CHAR : NC_NAT;
    else if (mem < 0)
        mem = drng_chance(&p->r, 25) ? NC_NAT : dp_random_numeric(p);
    int memt = mem == NC_NAT ? xtype : mem;
    size_t msz = dt_size(memt);
    int scale = (int)drng_below(&p->r, 3);
    unsigned char *buf = calloc(len + 1, msz);
    char what[300];

    for (size_t i = 0; i < len; i++)
        dt_store(memt, buf + i * msz, dval_gen(xtype, mem, varid + 100, i, scale));
    int a = dnc_put_att(p->nc, varid, name, xtype, len, mem, buf);
    int b = p->only_nc ? a : ncs_put_att(p->ns, varid, name, xtype, len, mem, buf);
    snprintf(what, sizeof what, "put_att varid=%d \"%s\" %s[%zu] mem=%s", varid, name,
             dt_name(xtype), len, dt_name(mem));
    dp_note(p, "%s -> %d/%d", what, a, b);
    dp_rc_eq(p, what, a, b, 1);
    free(buf);
}

static void op_put_att(dpair *p, int varid, const char *name, int xtype, size_t len)
{
    op_put_att_mem(p, varid, name, xtype, len, -1);
}

static void op_random_att(dpair *p, int varid)
{
    const char *name = att_names[drng_below(&p->r, N_ATT_NAMES)];
    if (!strcmp(name, "_FillValue")) {
        /* only meaningful (and only accepted) with the variable's type */
        if (varid == NC_GLOBAL)
            name = "title";
        else {
            op_put_att(p, varid, name, p->vtype[varid], 1);
            return;
        }
    }
    int xtype = dp_random_xtype(p);
    size_t len = drng_below(&p->r, xtype == NC_CHAR ? 14 : 6);
    op_put_att(p, varid, name, xtype, len);
}

/* Name of a random existing attribute (per netCDF-C), or 0 when none. */
static int pick_att(dpair *p, int *varidp, char *name)
{
    int varid = (int)drng_below(&p->r, (unsigned)p->nvars + 1) - 1, natts = 0;
    nc_inq_varnatts(p->nc, varid, &natts);
    if (natts == 0)
        return 0;
    *varidp = varid;
    return nc_inq_attname(p->nc, varid, (int)drng_below(&p->r, (unsigned)natts), name) == NC_NOERR;
}

static void op_get_att(dpair *p)
{
    int varid, xtype = 0, mem;
    size_t len = 0;
    char name[NC_MAX_NAME + 1], what[300];
    if (!pick_att(p, &varid, name))
        return;
    nc_inq_att(p->nc, varid, name, &xtype, &len);
    if (xtype == NC_CHAR)
        mem = drng_chance(&p->r, 90) ? NC_CHAR : dp_random_numeric(p);
    else
        mem = drng_chance(&p->r, 30) ? NC_NAT : drng_chance(&p->r, 95) ? dp_random_numeric(p) : NC_CHAR;
    if (mem == NC_CHAR && xtype != NC_CHAR)
        mem = NC_NAT;  /* nc_get_att_text on numbers has no ncs_ equivalent check */
    int memt = mem == NC_NAT ? xtype : mem;
    size_t msz = dt_size(memt), xsz = dt_size(xtype);
    unsigned char *ba = malloc((len + 1) * msz), *bb = malloc((len + 1) * msz);
    unsigned char *ref = calloc(len + 1, xsz);
    memset(ba, 0xA5, (len + 1) * msz);
    memset(bb, 0xA5, (len + 1) * msz);
    int a = dnc_get_att(p->nc, varid, name, mem, ba);
    int b = ncs_get_att(p->ns, varid, name, mem, bb);
    snprintf(what, sizeof what, "get_att varid=%d \"%s\" (%s[%zu]) mem=%s", varid, name,
             dt_name(xtype), len, dt_name(mem));
    dp_note(p, "%s -> %d/%d", what, a, b);
    if (dp_rc_eq(p, what, a, b, 0) && (a == NC_NOERR || a == NC_ERANGE)) {
        nc_get_att(p->nc, varid, name, ref);
        for (size_t i = 0; i < len + 1; i++) {
            if (a == NC_ERANGE && i < len && !dt_fits(memt, dt_load(xtype, ref + i * xsz)))
                continue;
            if (memcmp(ba + i * msz, bb + i * msz, msz)) {
                char x[64], y[64];
                dt_format(memt, ba + i * msz, x, sizeof x);
                dt_format(memt, bb + i * msz, y, sizeof y);
                dp_mismatch(p, "%s: value %zu: netCDF-C %s, ncslab %s%s", what, i, x, y,
                         i == len ? " (past the attribute's end)" : "");
                break;
            }
        }
    }
    free(ba);
    free(bb);
    free(ref);
}

/* A new name for a rename in data mode: the old name's length (allowed) or
 * longer (refused with NC_ENOTINDEFINE).  Never shorter: netCDF-C 4.9.0
 * keeps the old length and writes the short name NUL-padded into the
 * header (set_NC_string), so the file holds a name with NULs in it, which
 * the format does not allow; ncslab writes the short name.  That netCDF-C
 * bug is excluded here and reported, not tested. */
static void datamode_name(dpair *p, const char *old, char *nn, size_t n)
{
    if (drng_chance(&p->r, 65) && old[0]) {
        snprintf(nn, n, "%s", old);
        nn[0] = (char)('A' + drng_below(&p->r, 26));
    } else {
        snprintf(nn, n, "%s_longer%u", old, drng_below(&p->r, 100));
    }
}

/* Attribute changes allowed or refused in data mode. */
static void op_att_datamode(dpair *p)
{
    int varid, xtype = 0, a, b;
    size_t len = 0;
    char name[NC_MAX_NAME + 1], what[400];
    unsigned k = drng_below(&p->r, 6);

    p->hdirty = 1;

    if (k == 5) {
        /* renames in data mode */
        char nn[64];
        int isvar = drng_chance(&p->r, 50);
        int id = (int)drng_below(&p->r, (unsigned)(isvar ? p->nvars : p->ndims));
        if (!isvar && p->ndims == 0)
            return;
        char old[NC_MAX_NAME + 1] = "";
        if (isvar)
            nc_inq_varname(p->nc, id, old);
        else
            nc_inq_dimname(p->nc, id, old);
        datamode_name(p, old, nn, sizeof nn);
        a = isvar ? nc_rename_var(p->nc, id, nn) : nc_rename_dim(p->nc, id, nn);
        b = isvar ? ncs_rename_var(p->ns, id, nn) : ncs_rename_dim(p->ns, id, nn);
        snprintf(what, sizeof what, "rename_%s(data mode) %d -> \"%s\"", isvar ? "var" : "dim",
                 id, nn);
        dp_note(p, "%s -> %d/%d", what, a, b);
        dp_rc_eq(p, what, a, b, 1);
        return;
    }
    if (k == 4) {
        varid = (int)drng_below(&p->r, (unsigned)p->nvars + 1) - 1;
        op_put_att(p, varid, "brand_new_attribute", NC_INT, 1);
        return;
    }
    if (!pick_att(p, &varid, name))
        return;
    nc_inq_att(p->nc, varid, name, &xtype, &len);
    switch (k) {
    case 0: {
        /* same size, shorter, or longer */
        size_t nl = drng_chance(&p->r, 60) ? len : drng_chance(&p->r, 50) ? len / 2 : len + 1 + drng_below(&p->r, 4);
        if (!strcmp(name, "_FillValue"))
            nl = 1;
        op_put_att(p, varid, name, xtype, nl);
        break;
    }
    case 1: {
        char nn[64];
        datamode_name(p, name, nn, sizeof nn);
        a = nc_rename_att(p->nc, varid, name, nn);
        b = ncs_rename_att(p->ns, varid, name, nn);
        snprintf(what, sizeof what, "rename_att(data mode) varid=%d \"%s\" -> \"%s\"", varid, name, nn);
        dp_note(p, "%s -> %d/%d", what, a, b);
        dp_rc_eq(p, what, a, b, 1);
        break;
    }
    case 2:
        a = nc_del_att(p->nc, varid, name);
        b = ncs_del_att(p->ns, varid, name);
        snprintf(what, sizeof what, "del_att(data mode) varid=%d \"%s\"", varid, name);
        dp_note(p, "%s -> %d/%d", what, a, b);
        dp_rc_eq(p, what, a, b, 1);
        break;
    default:
        op_get_att(p);
        break;
    }
}

/* ---- metadata and data comparison ------------------------------------------ */
static void compare_atts(dpair *p, int varid, int natts)
{
    char what[300];
    for (int i = 0; i <= natts && !p->dead; i++) {
        char na[NC_MAX_NAME + 1] = "", nb[NC_MAX_NAME + 1] = "";
        int a = nc_inq_attname(p->nc, varid, i, na);
        int b = ncs_inq_attname(p->ns, varid, i, nb);
        snprintf(what, sizeof what, "inq_attname varid=%d num=%d", varid, i);
        if (!dp_rc_eq(p, what, a, b, 0) || a != NC_NOERR)
            continue;
        if (strcmp(na, nb)) {
            dp_mismatch(p, "%s: netCDF-C \"%s\", ncslab \"%s\"", what, na, nb);
            p->dead = 1;
            return;
        }
        int ta = 0, tb = 0, ia = -1, ib = -1;
        size_t la = 0, lb = 0;
        a = nc_inq_att(p->nc, varid, na, &ta, &la);
        b = ncs_inq_att(p->ns, varid, na, &tb, &lb);
        snprintf(what, sizeof what, "inq_att varid=%d \"%s\"", varid, na);
        if (!dp_rc_eq(p, what, a, b, 0) || a != NC_NOERR)
            continue;
        if (ta != tb || la != lb) {
            dp_mismatch(p, "%s: netCDF-C %s[%zu], ncslab %s[%zu]", what, dt_name(ta), la,
                     dt_name(tb), lb);
            continue;
        }
        int tb2 = -1;
        size_t lb2 = 0;
        ncs_inq_atttype(p->ns, varid, na, &tb2);
        ncs_inq_attlen(p->ns, varid, na, &lb2);
        if (tb2 != ta || lb2 != la)
            dp_mismatch(p, "ncs_inq_atttype/attlen varid=%d \"%s\": %s %zu, expected %s %zu",
                        varid, na, dt_name(tb2), lb2, dt_name(ta), la);
        nc_inq_attid(p->nc, varid, na, &ia);
        ncs_inq_attid(p->ns, varid, na, &ib);
        if (ia != ib)
            dp_mismatch(p, "inq_attid varid=%d \"%s\": netCDF-C %d, ncslab %d", varid, na, ia, ib);
        size_t sz = dt_size(ta) * (la + 1);
        unsigned char *va = calloc(sz, 1), *vb = calloc(sz, 1);
        a = nc_get_att(p->nc, varid, na, va);
        b = ncs_get_att(p->ns, varid, na, NC_NAT, vb);
        snprintf(what, sizeof what, "get_att(NAT) varid=%d \"%s\"", varid, na);
        if (dp_rc_eq(p, what, a, b, 0) && memcmp(va, vb, sz)) {
            size_t j = 0, es = dt_size(ta);
            while (!memcmp(va + j * es, vb + j * es, es))
                j++;
            char x[64], y[64];
            dt_format(ta, va + j * es, x, sizeof x);
            dt_format(ta, vb + j * es, y, sizeof y);
            dp_mismatch(p, "%s %s[%zu]: value %zu netCDF-C %s, ncslab %s", what, dt_name(ta),
                     la, j, x, y);
        }
        free(va);
        free(vb);
    }
}

static void compare_meta(dpair *p)
{
    int a[5] = {0}, b[5] = {0}, ra, rb;
    char what[300];

    ra = nc_inq(p->nc, &a[0], &a[1], &a[2], &a[3]);
    rb = ncs_inq(p->ns, &b[0], &b[1], &b[2], &b[3]);
    nc_inq_format(p->nc, &a[4]);
    ncs_inq_format(p->ns, &b[4]);
    if (!dp_rc_eq(p, "inq", ra, rb, 1))
        return;
    if (memcmp(a, b, sizeof a)) {
        dp_mismatch(p, "inq: netCDF-C ndims=%d nvars=%d natts=%d unlim=%d format=%d, "
                 "ncslab %d %d %d %d %d", a[0], a[1], a[2], a[3], a[4], b[0], b[1],
                 b[2], b[3], b[4]);
        p->dead = 1;
        return;
    }
    int x = -2;
    ncs_inq_ndims(p->ns, &x);
    if (x != a[0])
        dp_mismatch(p, "ncs_inq_ndims %d, expected %d", x, a[0]);
    ncs_inq_nvars(p->ns, &x);
    if (x != a[1])
        dp_mismatch(p, "ncs_inq_nvars %d, expected %d", x, a[1]);
    ncs_inq_natts(p->ns, &x);
    if (x != a[2])
        dp_mismatch(p, "ncs_inq_natts %d, expected %d", x, a[2]);
    ncs_inq_unlimdim(p->ns, &x);
    if (x != a[3])
        dp_mismatch(p, "ncs_inq_unlimdim %d, expected %d", x, a[3]);
    for (int d = 0; d <= a[0]; d++) {
        char na[NC_MAX_NAME + 1] = "", nb[NC_MAX_NAME + 1] = "";
        size_t la = 0, lb = 0;
        ra = nc_inq_dim(p->nc, d, na, &la);
        rb = ncs_inq_dim(p->ns, d, nb, &lb);
        snprintf(what, sizeof what, "inq_dim %d", d);
        if (!dp_rc_eq(p, what, ra, rb, 0) || ra != NC_NOERR)
            continue;
        if (strcmp(na, nb) || la != lb) {
            dp_mismatch(p, "%s: netCDF-C \"%s\" len %zu, ncslab \"%s\" len %zu", what, na, la, nb, lb);
            p->dead = 1;
            return;
        }
        int ia = -1, ib = -1;
        nc_inq_dimid(p->nc, na, &ia);
        ncs_inq_dimid(p->ns, na, &ib);
        if (ia != ib)
            dp_mismatch(p, "inq_dimid \"%s\": netCDF-C %d, ncslab %d", na, ia, ib);
        char nc2[NC_MAX_NAME + 1] = "";
        size_t lb2 = 0;
        ncs_inq_dimname(p->ns, d, nc2);
        ncs_inq_dimlen(p->ns, d, &lb2);
        if (strcmp(nc2, na) || lb2 != la)
            dp_mismatch(p, "ncs_inq_dimname/dimlen %d: \"%s\" %zu, expected \"%s\" %zu", d,
                        nc2, lb2, na, la);
    }
    compare_atts(p, NC_GLOBAL, a[2]);
    for (int v = 0; v <= a[1] && !p->dead; v++) {
        char na[NC_MAX_NAME + 1] = "", nb[NC_MAX_NAME + 1] = "";
        int ta = 0, tb = 0, nda = 0, ndb = 0, naa = 0, nab = 0;
        int da[NC_MAX_VAR_DIMS], db[NC_MAX_VAR_DIMS];
        ra = nc_inq_var(p->nc, v, na, &ta, &nda, da, &naa);
        rb = ncs_inq_var(p->ns, v, nb, &tb, &ndb, db, &nab);
        snprintf(what, sizeof what, "inq_var %d", v);
        if (!dp_rc_eq(p, what, ra, rb, 0) || ra != NC_NOERR)
            continue;
        if (strcmp(na, nb) || ta != tb || nda != ndb || naa != nab ||
            memcmp(da, db, sizeof(int) * (size_t)nda)) {
            dp_mismatch(p, "%s: netCDF-C \"%s\" %s ndims=%d natts=%d, ncslab \"%s\" %s ndims=%d natts=%d",
                     what, na, dt_name(ta), nda, naa, nb, dt_name(tb), ndb, nab);
            p->dead = 1;
            return;
        }
        int ia = -1, ib = -1;
        nc_inq_varid(p->nc, na, &ia);
        ncs_inq_varid(p->ns, na, &ib);
        if (ia != ib)
            dp_mismatch(p, "inq_varid \"%s\": netCDF-C %d, ncslab %d", na, ia, ib);
        char nv2[NC_MAX_NAME + 1] = "";
        int t2 = -1, nd2 = -1, na2 = -1, d2[NC_MAX_VAR_DIMS];
        ncs_inq_varname(p->ns, v, nv2);
        ncs_inq_vartype(p->ns, v, &t2);
        ncs_inq_varndims(p->ns, v, &nd2);
        ncs_inq_varnatts(p->ns, v, &na2);
        ncs_inq_vardimid(p->ns, v, d2);
        if (strcmp(nv2, na) || t2 != ta || nd2 != nda || na2 != naa ||
            memcmp(d2, da, sizeof(int) * (size_t)nda))
            dp_mismatch(p, "ncs_inq_varname/vartype/varndims/varnatts/vardimid %d disagree "
                        "with ncs_inq_var", v);
        compare_atts(p, v, naa);
    }
}

/* Whole variables, read with their own type. */
static void compare_all_data(dpair *p)
{
    for (int v = 0; v < p->nvars && !p->dead; v++) {
        dslab s;
        memset(&s, 0, sizeof s);
        s.kind = DK_VAR;
        s.rank = p->vndims[v];
        s.nel = 1;
        for (int d = 0; d < s.rank; d++)
            s.nel *= s.count[d] = dp_cur_len(p, p->vdims[v][d]);
        s.span = s.nel ? s.nel : 1;
        op_get_slab(p, v, NC_NAT, &s);
    }
}

/* ---- define mode ----------------------------------------------------------- */
static void op_def_dim(dpair *p, const char *name, size_t len)
{
    int ia = -1, ib = -1;
    int a = nc_def_dim(p->nc, name, len, &ia);
    int b = p->only_nc ? a : ncs_def_dim(p->ns, name, len, &ib);
    char what[400];
    snprintf(what, sizeof what, "def_dim \"%.300s\" %zu", name, len);
    dp_note(p, "%s -> %d/%d", what, a, b);
    if (dp_rc_eq(p, what, a, b, 1) && a == NC_NOERR && !p->only_nc && ia != ib) {
        dp_mismatch(p, "%s: dimid netCDF-C %d, ncslab %d", what, ia, ib);
        p->dead = 1;
    }
}

static void op_def_var(dpair *p, const char *name, int xtype, int ndims, const int *dims)
{
    int ia = -1, ib = -1;
    int a = nc_def_var(p->nc, name, xtype, ndims, dims, &ia);
    int b = p->only_nc ? a : ncs_def_var(p->ns, name, xtype, ndims, dims, &ib);
    char what[400];
    int k = snprintf(what, sizeof what, "def_var \"%.100s\" %s dims={", name, dt_name(xtype));
    for (int d = 0; d < ndims && d < 8; d++)
        k += snprintf(what + k, sizeof what - (size_t)k, d ? ",%d" : "%d", dims[d]);
    snprintf(what + k, sizeof what - (size_t)k, "}");
    dp_note(p, "%s -> %d/%d", what, a, b);
    if (dp_rc_eq(p, what, a, b, 1) && a == NC_NOERR && !p->only_nc && ia != ib) {
        dp_mismatch(p, "%s: varid netCDF-C %d, ncslab %d", what, ia, ib);
        p->dead = 1;
    }
}

/* A random variable over the current dimensions: record dimension first
 * when used, fixed dimensions (repeats allowed) after it. */
static void op_random_var(dpair *p, int idx)
{
    int fixed[DP_MAXD], nfixed = 0, dims[DP_MAXR], rank = 0;
    char name[32];
    dp_load_model(p);
    for (int d = 0; d < p->ndims; d++)
        if (d != p->recdim)
            fixed[nfixed++] = d;
    int want = (int)drng_below(&p->r, DP_MAXR + 1);
    if (p->recdim >= 0 && want > 0 && drng_chance(&p->r, 55))
        dims[rank++] = p->recdim;
    while (rank < want && nfixed > 0)
        dims[rank++] = fixed[drng_below(&p->r, (unsigned)nfixed)];
    snprintf(name, sizeof name, "v%d", idx);
    op_def_var(p, name, dp_random_xtype(p), rank, dims);
    if (p->dead)
        return;
    dp_load_model(p);
    int varid = p->nvars - 1;
    for (unsigned n = drng_below(&p->r, 4); n > 0 && !p->dead; n--)
        op_random_att(p, varid);
}

/* Definitions both libraries must refuse, or accept, alike. */
static void op_bad_define(dpair *p)
{
    static const char *const names[] = {
        "", "a/b", " lead", "trail ", "_underscore", "1digit", "dash-ok.x",
        "caf\xc3\xa9", "cafe\xcc\x81", "bad\x01" "ctl", "\xff\xfe",
        "has space", "v0", "time"};
    drng *r = &p->r;
    char name[300];
    unsigned k = drng_below(r, 9);
    int dims[2] = {0, 0};

    dp_load_model(p);
    switch (k) {
    case 0: /* a name from the list, as a dimension */
        op_def_dim(p, names[drng_below(r, sizeof names / sizeof names[0])], 2);
        break;
    case 1: /* ... or as a variable */
        op_def_var(p, names[drng_below(r, sizeof names / sizeof names[0])], NC_INT, 0, dims);
        break;
    case 2: /* NC_MAX_NAME and one more */
        memset(name, 'n', sizeof name);
        name[NC_MAX_NAME + drng_below(r, 2)] = 0;
        name[0] = (char)('A' + drng_below(r, 26));
        op_def_dim(p, name, 3);
        break;
    case 3: /* a CDF-5 type in any format, or no type at all */
        op_def_var(p, "badtype", drng_chance(r, 80) ? NC_UBYTE + (int)drng_below(r, 5) : 12, 0, dims);
        break;
    case 4: /* record dimension not first */
        if (p->recdim >= 0 && p->ndims > 1) {
            dims[0] = p->recdim == 0 ? 1 : 0;
            dims[1] = p->recdim;
            op_def_var(p, "unlimpos", NC_SHORT, 2, dims);
        }
        break;
    case 5: /* a second unlimited dimension */
        op_def_dim(p, p->recdim >= 0 ? "unlim2" : "time", NC_UNLIMITED);
        break;
    case 6: /* a bad dimension id */
        dims[0] = drng_chance(r, 50) ? -1 : p->ndims;
        op_def_var(p, "baddim", NC_FLOAT, 1, dims);
        break;
    case 7: /* negative rank */
        op_def_var(p, "badrank", NC_FLOAT, -1, dims);
        break;
    default: /* a bad attribute: no such variable, a bad name, text/number */
        switch (drng_below(r, 4)) {
        case 0: op_put_att(p, p->nvars + 2, "a", NC_INT, 1); break;
        case 1: op_put_att(p, NC_GLOBAL, names[1 + drng_below(r, 4)], NC_SHORT, 2); break;
        case 2: op_put_att_mem(p, NC_GLOBAL, "textnum", NC_CHAR, 3, dp_random_numeric(p)); break;
        default: op_put_att_mem(p, NC_GLOBAL, "badtype", 12 + (int)drng_below(r, 3), 1, NC_INT); break;
        }
        break;
    }
}

static void do_enddef(dpair *p)
{
    int a, b;
    char what[200];
    if (drng_chance(&p->r, 40)) {
        static const size_t hmin[] = {0, 1, 17, 100, 1000};
        static const size_t valign[] = {1, 4, 8, 512, 4096, NC_ALIGN_CHUNK};
        static const size_t vmin[] = {0, 13, 200};
        static const size_t ralign[] = {1, 4, 64, 4096, NC_ALIGN_CHUNK};
        size_t h = hmin[drng_below(&p->r, 5)], va = valign[drng_below(&p->r, 6)];
        size_t vm = vmin[drng_below(&p->r, 3)], rr = ralign[drng_below(&p->r, 5)];
        a = nc__enddef(p->nc, h, va, vm, rr);
        b = p->only_nc ? a : ncs__enddef(p->ns, h, va, vm, rr);
        snprintf(what, sizeof what, "_enddef(h_minfree=%zu, v_align=%zd, v_minfree=%zu, r_align=%zd)",
                 h, (ptrdiff_t)va, vm, (ptrdiff_t)rr);
    } else {
        a = nc_enddef(p->nc);
        b = p->only_nc ? a : ncs_enddef(p->ns);
        snprintf(what, sizeof what, "enddef");
    }
    dp_note(p, "%s -> %d/%d", what, a, b);
    /* Both refuse (NC_ENOTNC, still in define mode) a redefinition whose
     * record variables would overlap: ones kept in place after a record
     * variable added before them (NCSLAB_SEED=284392052727543, iter 50). */
    dp_rc_eq(p, what, a, b, 1);
    dp_load_model(p);
    if (!p->dead && !p->only_nc)
        compare_meta(p);
}

static void op_define_change(dpair *p, int idx)
{
    drng *r = &p->r;
    char nn[64], name[NC_MAX_NAME + 1];
    int varid, a, b;
    char what[600];

    dp_load_model(p);
    switch (drng_below(r, 10)) {
    case 0:
        snprintf(nn, sizeof nn, "nd%d", idx);
        op_def_dim(p, nn, 1 + drng_below(r, 5));
        break;
    case 1:
        if (p->recdim < 0)
            op_def_dim(p, "time", NC_UNLIMITED);
        else
            op_random_var(p, 100 + idx);
        break;
    case 2:
    case 3:
        op_random_var(p, 100 + idx);
        break;
    case 4:
        op_random_att(p, (int)drng_below(r, (unsigned)p->nvars + 1) - 1);
        break;
    case 5: /* rename a variable or a dimension */
        snprintf(nn, sizeof nn, drng_chance(r, 50) ? "w%d" : "renamed_with_a_long_name_%d", idx);
        if (drng_chance(r, 50) && p->nvars > 0) {
            varid = (int)drng_below(r, (unsigned)p->nvars);
            a = nc_rename_var(p->nc, varid, nn);
            b = p->only_nc ? a : ncs_rename_var(p->ns, varid, nn);
            snprintf(what, sizeof what, "rename_var %d -> \"%s\"", varid, nn);
        } else if (p->ndims > 0) {
            varid = (int)drng_below(r, (unsigned)p->ndims);
            a = nc_rename_dim(p->nc, varid, nn);
            b = p->only_nc ? a : ncs_rename_dim(p->ns, varid, nn);
            snprintf(what, sizeof what, "rename_dim %d -> \"%s\"", varid, nn);
        } else {
            break;
        }
        dp_note(p, "%s -> %d/%d", what, a, b);
        dp_rc_eq(p, what, a, b, 1);
        break;
    case 6: /* delete or rename an attribute */
        if (!pick_att(p, &varid, name))
            break;
        if (drng_chance(r, 50)) {
            a = nc_del_att(p->nc, varid, name);
            b = p->only_nc ? a : ncs_del_att(p->ns, varid, name);
            snprintf(what, sizeof what, "del_att varid=%d \"%s\"", varid, name);
        } else {
            snprintf(nn, sizeof nn, drng_chance(r, 70) ? "ren%d" : "units", idx);
            a = nc_rename_att(p->nc, varid, name, nn);
            b = p->only_nc ? a : ncs_rename_att(p->ns, varid, name, nn);
            snprintf(what, sizeof what, "rename_att varid=%d \"%s\" -> \"%s\"", varid, name, nn);
        }
        dp_note(p, "%s -> %d/%d", what, a, b);
        dp_rc_eq(p, what, a, b, 1);
        break;
    case 7: /* copy an attribute within the file */
        if (!pick_att(p, &varid, name))
            break;
        a = (int)drng_below(r, (unsigned)p->nvars + 1) - 1;
        if (a >= 0 && !strcmp(name, "_FillValue"))
            break;  /* would give a variable a fill value of another type */
        {
            int to = a;
            a = nc_copy_att(p->nc, varid, name, p->nc, to);
            b = p->only_nc ? a : ncs_copy_att(p->ns, varid, name, p->ns, to);
            snprintf(what, sizeof what, "copy_att varid=%d \"%s\" -> varid=%d", varid, name, to);
        }
        dp_note(p, "%s -> %d/%d", what, a, b);
        dp_rc_eq(p, what, a, b, 1);
        break;
    case 8: /* data access is refused in define mode */
        if (!p->only_nc && p->nvars > 0) {
            size_t zero[DP_MAXR + 1] = {0};
            double dv = 0;
            varid = (int)drng_below(r, (unsigned)p->nvars);
            if (drng_chance(r, 50)) {
                a = nc_get_var1_double(p->nc, varid, zero, &dv);
                b = ncs_get1(p->ns, varid, zero, NC_DOUBLE, &dv);
            } else {
                a = nc_put_var1_double(p->nc, varid, zero, &dv);
                b = ncs_put1(p->ns, varid, zero, NC_DOUBLE, &dv);
            }
            snprintf(what, sizeof what, "get/put_var1 v%d in define mode", varid);
            dp_note(p, "%s -> %d/%d", what, a, b);
            dp_rc_eq(p, what, a, b, 1);
        }
        break;
    default:
        op_bad_define(p);
        break;
    }
}

/* ---- files ----------------------------------------------------------------- */
static void both_close(dpair *p)
{
    if (!p->open)
        return;
    int a = nc_close(p->nc);
    int b = p->only_nc ? a : ncs_close(p->ns);
    dp_note(p, "close -> %d/%d", a, b);
    if (dp_rc_eq(p, "close", a, b, 1) && a != NC_NOERR)
        p->close_refused = 1;
    p->open = 0;
}

/* The record count in the header of a classic file (0 if unreadable). */
static uint64_t file_numrecs(const char *path, int *width)
{
    unsigned char b[12] = {0};
    uint64_t n = 0;
    FILE *fp = fopen(path, "rb");
    size_t got = fp ? fread(b, 1, sizeof b, fp) : 0;
    if (fp)
        fclose(fp);
    *width = got >= 4 && b[3] == 5 ? 8 : 4;
    for (int i = 0; i < *width && got >= 12; i++)
        n = n << 8 | b[4 + i];
    return n;
}

/* A close refused in define mode (the enddef it makes fails: NC_ENOTNC)
 * ends like an abort.  netCDF-C's abort after a redef does not write the
 * record count, so records added in data mode before the redef and not
 * synced vanish from its header (4.9.0 NC3_abort); ncslab writes the count.
 * The files must then differ in the record count only, netCDF-C's lower. */
static int refused_close_numrecs(dpair *p)
{
    int wa, wb;
    uint64_t na = file_numrecs(p->path_nc, &wa), nb = file_numrecs(p->path_ns, &wb);
    char msg[4096];
    if (na >= nb || wa != wb)
        return 0;
    /* compare with netCDF-C's count patched to ncslab's */
    FILE *fp = fopen(p->path_nc, "r+b");
    unsigned char b[8];
    for (int i = 0; i < wa; i++)
        b[i] = (unsigned char)(nb >> (8 * (wa - 1 - i)));
    if (fp == NULL || fseek(fp, 4, SEEK_SET) != 0 || fwrite(b, 1, (size_t)wa, fp) != (size_t)wa) {
        if (fp)
            fclose(fp);
        return 0;
    }
    fclose(fp);
    int rc = dfile_cmp_pair(p, msg, sizeof msg);
    if (rc != 0 && rc != 2) {
        dp_mismatch(p, "after a refused close: record counts %llu (netCDF-C), %llu (ncslab), "
                    "and beyond them: %s", (unsigned long long)na, (unsigned long long)nb, msg);
        return 1;
    }
    fprintf(stderr, "NOTE [abort-numrecs] %s: netCDF-C's refused close (an abort) dropped "
            "unsynced records: %llu in its header, %llu in ncslab's; the files are "
            "otherwise alike; read-only checks skipped\n", p->ctx, (unsigned long long)na,
            (unsigned long long)nb);
    return 1;
}

static int both_open(dpair *p, int mode)
{
    int a = nc_open(p->path_nc, mode | p->share, &p->nc);
    int b = p->only_nc ? a : ncs_open(p->path_ns, mode | p->share, &p->ns);
    dp_note(p, "open(%s%s) -> %d/%d", mode & NC_WRITE ? "NC_WRITE" : "NC_NOWRITE",
         p->share ? "|NC_SHARE" : "", a, b);
    if (!dp_rc_eq(p, "open", a, b, 1) || a != NC_NOERR) {
        if (a == NC_NOERR)
            nc_close(p->nc);
        if (b == NC_NOERR)
            ncs_close(p->ns);
        p->dead = 1;
        return 0;
    }
    p->open = 1;
    p->writable = (mode & NC_WRITE) != 0;
    dp_load_model(p);
    return 1;
}

static void compare_files(dpair *p)
{
    char msg[4096];
    int rc = dfile_cmp_pair(p, msg, sizeof msg);
    if (rc == 2) {
        dp_note(p, "[stale] after close: %s", msg);
        fprintf(stderr, "NOTE [stale] %s after close: %s\n", p->ctx, msg);
    }
    else if (rc != 0)
        dp_mismatch(p, "after close: %s", msg);
}

/* Operations on a read-only pair: gets, attribute reads, and the writes
 * that must be refused. */
static void readonly_checks(dpair *p)
{
    size_t size;
    uint64_t need;
    /* A file shorter than its header implies (netCDF-C leaves one in
     * nofill mode when its close-time padding falls short after a
     * redefinition): netCDF-C reads the missing bytes as zeros, ncslab
     * reports NC_ETRUNC on reads that reach them (doc/format.md).  The
     * files are identical; only the other read-only checks run. */
    int short_file = dfile_short(p->path_ns, &size, &need);
    if (short_file)
        fprintf(stderr, "NOTE [short] %s: file of %zu bytes, header implies %llu: data "
                "reads not compared\n", p->ctx, size, (unsigned long long)need);
    compare_meta(p);
    if (!short_file)
        compare_all_data(p);
    for (int i = 0; i < 30 && !p->dead; i++) {
        unsigned k = drng_below(&p->r, 10);
        /* in a short file a request that is invalid in part still reads
         * its valid part, which may reach past the end: NC_ETRUNC in
         * ncslab, zeros and the request's own error in netCDF-C (seed
         * 16624) */
        if (k < 6 && !short_file)
            op_get(p);
        else if (k < 8 && short_file)
            continue;
        else if (k < 8)
            op_invalid(p);
        else
            op_get_att(p);
    }
    if (p->only_nc || p->dead)
        return;
    int a, b;
    size_t zero[DP_MAXR + 1] = {0};
    int iv = 1, old;
    a = nc_put_var1_int(p->nc, 0, zero, &iv);
    b = ncs_put1(p->ns, 0, zero, NC_INT, &iv);
    dp_note(p, "put_var1 v0 on read-only -> %d/%d", a, b);
    dp_rc_eq(p, "put_var1 on a read-only file", a, b, 0);
    a = nc_redef(p->nc);
    b = ncs_redef(p->ns);
    dp_note(p, "redef on read-only -> %d/%d", a, b);
    dp_rc_eq(p, "redef on a read-only file", a, b, 0);
    a = nc_put_att_int(p->nc, NC_GLOBAL, "units", NC_INT, 1, &iv);
    b = ncs_put_att(p->ns, NC_GLOBAL, "units", NC_INT, 1, NC_INT, &iv);
    dp_note(p, "put_att on read-only -> %d/%d", a, b);
    dp_rc_eq(p, "put_att on a read-only file", a, b, 0);
    a = nc_set_fill(p->nc, NC_NOFILL, &old);
    b = ncs_set_fill(p->ns, NC_NOFILL, &old);
    dp_note(p, "set_fill on read-only -> %d/%d", a, b);
    dp_rc_eq(p, "set_fill on a read-only file", a, b, 0);
}

/* ---- one random file pair -------------------------------------------------- */
static void data_phase(dpair *p, int nops)
{
    for (int i = 0; i < nops && !p->dead; i++) {
        unsigned k = drng_below(&p->r, 100);
        if (p->nvars == 0)
            return;
        if (k < 45)
            op_put(p);
        else if (p->only_nc)
            continue;
        else if (k < 75)
            op_get(p);
        else if (k < 87)
            op_invalid(p);
        else if (k < 93)
            op_att_datamode(p);
        else if (k < 97) {
            int a = nc_sync(p->nc), b = ncs_sync(p->ns);
            p->hdirty = 0;
            dp_note(p, "sync -> %d/%d", a, b);
            dp_rc_eq(p, "sync", a, b, 1);
        } else {
            int mode = drng_chance(&p->r, 50) ? NC_FILL : NC_NOFILL, oa = -1, ob = -1;
            int a = nc_set_fill(p->nc, mode, &oa), b = ncs_set_fill(p->ns, mode, &ob);
            p->nofill = mode == NC_NOFILL;
            p->ever_nofill |= p->nofill;
            dp_note(p, "set_fill(%s) in data mode -> %d/%d (old %d/%d)",
                 mode ? "NOFILL" : "FILL", a, b, oa, ob);
            if (dp_rc_eq(p, "set_fill in data mode", a, b, 1) && oa != ob)
                dp_mismatch(p, "set_fill old mode: netCDF-C %d, ncslab %d", oa, ob);
        }
    }
}

/* Creates the pair and defines a random schema; leaves it in data mode. */
static void create_random(dpair *p, int fill)
{
    drng *r = &p->r;
    int cmode = NC_CLOBBER | p->share |
                (p->fmt == 2 ? NC_64BIT_OFFSET : p->fmt == 5 ? NC_64BIT_DATA : 0);
    int a = nc_create(p->path_nc, cmode, &p->nc);
    int b = p->only_nc ? a : ncs_create(p->path_ns, cmode, &p->ns);
    dp_note(p, "create(cmode=0x%x) -> %d/%d", cmode, a, b);
    if (!dp_rc_eq(p, "create", a, b, 1) || a != NC_NOERR) {
        p->dead = 1;
        return;
    }
    p->open = 1;
    p->writable = 1;
    int oa = -1, ob = -1;
    a = nc_set_fill(p->nc, fill, &oa);
    b = p->only_nc ? a : ncs_set_fill(p->ns, fill, &ob);
    p->nofill = fill == NC_NOFILL;
    p->ever_nofill |= p->nofill;
    dp_note(p, "set_fill(%s) -> %d/%d", fill ? "NOFILL" : "FILL", a, b);
    if (dp_rc_eq(p, "set_fill", a, b, 1) && !p->only_nc && oa != ob)
        dp_mismatch(p, "set_fill old mode: netCDF-C %d, ncslab %d", oa, ob);

    unsigned nfixed = drng_chance(r, 90) ? 1 + drng_below(r, 4) : 0;
    for (unsigned d = 0; d < nfixed && !p->dead; d++) {
        char nn[16];
        snprintf(nn, sizeof nn, "d%u", d);
        op_def_dim(p, nn, drng_chance(r, 20) ? 1 : 1 + drng_below(r, 6));
        if (d == 0 && drng_chance(r, 75))
            op_def_dim(p, "time", NC_UNLIMITED);
    }
    if (nfixed == 0 && drng_chance(r, 75))
        op_def_dim(p, "time", NC_UNLIMITED);
    for (unsigned n = drng_below(r, 5); n > 0 && !p->dead; n--)
        op_random_att(p, NC_GLOBAL);
    unsigned nv = 1 + drng_below(r, 6);
    for (unsigned v = 0; v < nv && !p->dead; v++) {
        op_random_var(p, (int)v);
        if (drng_chance(r, 10) && !p->dead)
            op_bad_define(p);
    }
    if (!p->dead)
        do_enddef(p);
}

static int run_pair(uint64_t seed, int iter, int fmt, int fill, int share)
{
    dpair P, *p = &P;
    char ctx[200];

    memset(p, 0, sizeof *p);
    drng_seed(&p->r, seed * 1000003ULL + (uint64_t)iter);
    p->fmt = fmt;
    p->share = share;
    snprintf(ctx, sizeof ctx, "seed %llu iter %d CDF-%d %s%s", (unsigned long long)seed,
             iter, fmt, fill ? "nofill" : "fill", share ? " share" : "");
    p->ctx = ctx;
    snprintf(p->path_nc, sizeof p->path_nc, "%s/c_%d_%d.nc", tmpdir, (int)getpid(), iter);
    snprintf(p->path_ns, sizeof p->path_ns, "%s/s_%d_%d.nc", tmpdir, (int)getpid(), iter);

    create_random(p, fill);
    data_phase(p, 15 + (int)drng_below(&p->r, 30));
    for (unsigned round = drng_below(&p->r, 3); round > 0 && !p->dead; round--) {
        /* redef with data in the file: the header may grow, data may move */
        int a, b;
        if (p->hdirty) {
            /* netCDF-C bugs: with NC_SHARE, nc_redef re-reads the header
             * from disk, silently undoing data-mode renames and attribute
             * rewrites that were not yet synced (netCDF-C 4.9.0 NC3_redef
             * calls read_NC); without, an abort after the redef (also the
             * one a refused close makes) drops them, and nc_set_fill back
             * to fill in define mode writes the define-mode header over
             * them (seed 12879: a file netCDF-C then cannot open).  ncslab
             * keeps them (check_redef).  Syncing first, in both libraries,
             * keeps the rest of the sequence meaningful. */
            a = nc_sync(p->nc);
            b = ncs_sync(p->ns);
            dp_note(p, "sync (before redef, header changed in data mode) -> %d/%d", a, b);
            if (!dp_rc_eq(p, "sync", a, b, 1))
                break;
        }
        int will_abort = drng_chance(&p->r, 15);
        if (!p->share) {
            /* netCDF-C bug: nc_redef does not write the record count, and
             * nc_abort after nc_redef does not either, so records added in
             * data mode before the redef vanish from the header (4.9.0
             * NC3_redef/NC3_abort); also after an abort the test did not
             * plan, following a refused enddef (seed 13099).  Sync first in
             * both libraries. */
            a = nc_sync(p->nc);
            b = ncs_sync(p->ns);
            dp_note(p, "sync (before a redef) -> %d/%d", a, b);
            if (!dp_rc_eq(p, "sync", a, b, 1))
                break;
        }
        p->hdirty = 0;
        if (p->nofill)
            write_all_records(p);
        a = nc_redef(p->nc);
        b = ncs_redef(p->ns);
        dp_note(p, "redef -> %d/%d", a, b);
        if (!dp_rc_eq(p, "redef", a, b, 1))
            break;
        for (unsigned n = 1 + drng_below(&p->r, 5); n > 0 && !p->dead; n--)
            op_define_change(p, (int)(round * 10 + n));
        if (p->dead)
            break;
        if (will_abort) {
            /* abort: the redef's changes vanish; reopen for writing */
            a = nc_abort(p->nc);
            b = ncs_abort(p->ns);
            dp_note(p, "abort -> %d/%d", a, b);
            p->open = 0;
            if (!dp_rc_eq(p, "abort after redef", a, b, 1) || !both_open(p, NC_WRITE))
                break;
            compare_meta(p);
        } else {
            do_enddef(p);
            /* record variables added to a nofill file have no defined
             * content in the records that already exist: define it */
            if (p->nofill && !p->dead)
                write_all_records(p);
        }
        data_phase(p, 10 + (int)drng_below(&p->r, 20));
    }
    both_close(p);
    if (!p->dead && p->close_refused && refused_close_numrecs(p))
        p->dead = 1;
    if (!p->dead)
        compare_files(p);
    if (!p->dead && both_open(p, NC_NOWRITE)) {
        readonly_checks(p);
        both_close(p);
    }
    if (p->open) {
        nc_close(p->nc);
        ncs_close(p->ns);
    }
    dp_free_marks(p);
    if (p->fails == 0) {
        unlink(p->path_nc);
        unlink(p->path_ns);
    } else {
        fprintf(stderr, "  (files kept: %s %s)\n", p->path_nc, p->path_ns);
    }
    return p->fails;
}

/* A file written by netCDF-C alone, then read by both libraries. */
static int run_read_nc(uint64_t seed, int iter, int fmt, int fill)
{
    dpair P, *p = &P;
    char ctx[200];

    memset(p, 0, sizeof *p);
    drng_seed(&p->r, seed * 7919ULL + (uint64_t)iter);
    p->fmt = fmt;
    p->only_nc = 1;
    snprintf(ctx, sizeof ctx, "read-netCDF-C seed %llu iter %d CDF-%d %s",
             (unsigned long long)seed, iter, fmt, fill ? "nofill" : "fill");
    p->ctx = ctx;
    snprintf(p->path_nc, sizeof p->path_nc, "%s/r_%d_%d.nc", tmpdir, (int)getpid(), iter);
    memcpy(p->path_ns, p->path_nc, sizeof p->path_ns);
    create_random(p, fill);
    data_phase(p, 20 + (int)drng_below(&p->r, 30));
    if (!p->dead && drng_chance(&p->r, 50)) {
        nc_redef(p->nc);
        for (unsigned n = 1 + drng_below(&p->r, 4); n > 0; n--)
            op_define_change(p, (int)n);
        do_enddef(p);
        data_phase(p, 10);
    }
    both_close(p);
    p->only_nc = 0;
    if (!p->dead && both_open(p, NC_NOWRITE)) {
        readonly_checks(p);
        both_close(p);
    }
    if (p->open) {
        nc_close(p->nc);
        ncs_close(p->ns);
    }
    dp_free_marks(p);
    if (p->fails == 0)
        unlink(p->path_nc);
    else
        fprintf(stderr, "  (file kept: %s)\n", p->path_nc);
    return p->fails;
}

/* ---- tests ------------------------------------------------------------------ */
START_TEST(t_random)
{
    static const int fmts[] = {1, 2, 5};
    uint64_t seed = seeds[_i];
    int fails = 0, iter = 0;
    for (int f = 0; f < 3; f++)
        for (int fill = 0; fill < 2; fill++)
            for (int share = 0; share < 2; share++)
                for (int k = 0; k < ITERS_PER_COMBO; k++)
                    fails += run_pair(seed, iter++, fmts[f], fill ? NC_NOFILL : NC_FILL,
                                      share ? NC_SHARE : 0);
    ck_assert_msg(fails == 0, "seed %llu: %d mismatches between netCDF-C and ncslab "
                  "(details above)", (unsigned long long)seed, fails);
}
END_TEST

START_TEST(t_read_netcdf_files)
{
    static const int fmts[] = {1, 2, 5};
    uint64_t seed = seeds[_i];
    int fails = 0, iter = 0;
    for (int f = 0; f < 3; f++)
        for (int fill = 0; fill < 2; fill++)
            for (int k = 0; k < ITERS_PER_COMBO; k++)
                fails += run_read_nc(seed, iter++, fmts[f], fill ? NC_NOFILL : NC_FILL);
    ck_assert_msg(fails == 0, "seed %llu: %d mismatches reading netCDF-C files "
                  "(details above)", (unsigned long long)seed, fails);
}
END_TEST

/* Out-of-range values: what bytes they become in the file, and what a get
 * leaves in memory for them.  The random test rewrites such elements, so
 * this is where "same calls, same bytes" is checked for NC_ERANGE. */
static void erange_case(dpair *p, int fmt, int xtype, int mem, const long double *vals, int n)
{
    int dim, var, a, b;
    size_t start = 0, cnt = (size_t)n, msz = dt_size(mem);
    unsigned char buf[256], ga[256], gb[256];
    char what[200];
    int cmode = NC_CLOBBER | (fmt == 2 ? NC_64BIT_OFFSET : fmt == 5 ? NC_64BIT_DATA : 0);

    p->fmt = fmt;
    for (int i = 0; i < n; i++)
        dt_store(mem, buf + (size_t)i * msz, vals[i]);
    a = nc_create(p->path_nc, cmode, &p->nc);
    b = ncs_create(p->path_ns, cmode, &p->ns);
    if (!dp_rc_eq(p, "create", a, b, 1) || a)
        return;
    p->open = 1;
    nc_def_dim(p->nc, "n", cnt, &dim);
    ncs_def_dim(p->ns, "n", cnt, &dim);
    nc_def_var(p->nc, "v", xtype, 1, &dim, &var);
    ncs_def_var(p->ns, "v", xtype, 1, &dim, &var);
    a = dnc_put_att(p->nc, NC_GLOBAL, "att", xtype, cnt, mem, buf);
    b = ncs_put_att(p->ns, NC_GLOBAL, "att", xtype, cnt, mem, buf);
    snprintf(what, sizeof what, "CDF-%d put_att %s from %s", fmt, dt_name(xtype), dt_name(mem));
    dp_note(p, "%s -> %d/%d", what, a, b);
    dp_rc_eq(p, what, a, b, 0);
    nc_enddef(p->nc);
    ncs_enddef(p->ns);
    a = dnc_put(p->nc, var, DK_VARA, &start, &cnt, NULL, NULL, mem, buf);
    b = dns_put(p->ns, var, DK_VARA, &start, &cnt, NULL, NULL, mem, buf);
    snprintf(what, sizeof what, "CDF-%d put_vara %s from %s", fmt, dt_name(xtype), dt_name(mem));
    dp_note(p, "%s -> %d/%d", what, a, b);
    dp_rc_eq(p, what, a, b, 0);
    /* Reading into a memory type too narrow for some values: the in-range
     * elements are checked by the random test; what the others become in
     * memory is not part of the contract, so a difference is only noted. */
    int narrow = xtype == NC_BYTE ? NC_UBYTE : NC_BYTE;
    memset(ga, 0xA5, sizeof ga);
    memset(gb, 0xA5, sizeof gb);
    a = dnc_get(p->nc, var, DK_VARA, &start, &cnt, NULL, NULL, narrow, ga);
    b = dns_get(p->ns, var, DK_VARA, &start, &cnt, NULL, NULL, narrow, gb);
    snprintf(what, sizeof what, "CDF-%d get_vara %s into %s", fmt, dt_name(xtype), dt_name(narrow));
    dp_note(p, "%s -> %d/%d", what, a, b);
    dp_rc_eq(p, what, a, b, 0);
    if (a == b && memcmp(ga, gb, cnt))
        for (size_t i = 0; i < cnt; i++)
            if (ga[i] != gb[i])
                fprintf(stderr, "NOTE [erange] %s: element %zu (out of range) becomes "
                        "%d in netCDF-C, %d in ncslab\n", what, i, (signed char)ga[i],
                        (signed char)gb[i]);
    snprintf(what, sizeof what, "CDF-%d put_vara %s from %s", fmt, dt_name(xtype), dt_name(mem));
    nc_close(p->nc);
    ncs_close(p->ns);
    p->open = 0;
    char msg[4096];
    if (dfile_cmp(p->path_nc, p->path_ns, msg, sizeof msg))
        dp_mismatch(p, "%s with out-of-range values: %s", what, msg);
}

START_TEST(t_erange_bytes)
{
    dpair P, *p = &P;
    memset(p, 0, sizeof *p);
    p->ctx = "erange";
    snprintf(p->path_nc, sizeof p->path_nc, "%s/e_%d.nc", tmpdir, (int)getpid());
    snprintf(p->path_ns, sizeof p->path_ns, "%s/es_%d.nc", tmpdir, (int)getpid());
    static const long double i_to_byte[] = {1, 300, -300, 127, -128, 2};
    static const long double d_to_float[] = {1.5, 1e300, -1e300, 2};
    static const long double d_to_int[] = {1, 3e9, -3e9, 4};
    static const long double i_to_ubyte[] = {1, -1, 256, 7};
    static const long double u_to_byte[] = {1, 200, 255, 3};
    static const long double ll_to_uint[] = {1, -5, 4294967296.0L, 9};
    erange_case(p, 1, NC_BYTE, NC_INT, i_to_byte, 6);
    erange_case(p, 2, NC_FLOAT, NC_DOUBLE, d_to_float, 4);
    erange_case(p, 1, NC_INT, NC_DOUBLE, d_to_int, 4);
    erange_case(p, 5, NC_UBYTE, NC_INT, i_to_ubyte, 4);
    erange_case(p, 1, NC_BYTE, NC_UBYTE, u_to_byte, 4);
    erange_case(p, 5, NC_BYTE, NC_UBYTE, u_to_byte, 4);
    erange_case(p, 5, NC_UINT, NC_INT64, ll_to_uint, 4);
    unlink(p->path_nc);
    unlink(p->path_ns);
    ck_assert_msg(p->fails == 0, "%d mismatches for out-of-range values", p->fails);
}
END_TEST

/* Fixed call sequences at the edges: calls on bad or closed ncids, a
 * _FillValue of the wrong type, NOCLOBBER, missing files, flag conflicts. */
START_TEST(t_edges)
{
    dpair P, *p = &P;
    int a, b, x, y, dim, var;
    memset(p, 0, sizeof *p);
    p->ctx = "edges";
    snprintf(p->path_nc, sizeof p->path_nc, "%s/x_%d.nc", tmpdir, (int)getpid());
    snprintf(p->path_ns, sizeof p->path_ns, "%s/xs_%d.nc", tmpdir, (int)getpid());

    a = nc_inq_ndims(-1, &x);
    b = ncs_inq_ndims(-1, &y);
    dp_rc_eq(p, "inq_ndims(-1)", a, b, 0);
    a = nc_close(0x3fff0001);
    b = ncs_close(0x3fff0001);
    dp_rc_eq(p, "close(bad ncid)", a, b, 0);
    a = nc_open("/nonexistent/dir/file.nc", NC_NOWRITE, &x);
    b = ncs_open("/nonexistent/dir/file.nc", NC_NOWRITE, &y);
    dp_rc_eq(p, "open(missing file)", a, b, 0);
    a = nc_create(p->path_nc, NC_64BIT_OFFSET | NC_64BIT_DATA, &x);
    b = ncs_create(p->path_ns, NC_64BIT_OFFSET | NC_64BIT_DATA, &y);
    dp_rc_eq(p, "create(64BIT_OFFSET|64BIT_DATA)", a, b, 0);
    if (a == NC_NOERR)
        nc_close(x);
    if (b == NC_NOERR)
        ncs_close(y);

    /* wrong-type _FillValue: enddef refuses it, then the file is fixed */
    a = nc_create(p->path_nc, NC_CLOBBER, &p->nc);
    b = ncs_create(p->path_ns, NC_CLOBBER, &p->ns);
    ck_assert_int_eq(a, 0);
    ck_assert_int_eq(b, 0);
    p->open = 1;
    nc_def_dim(p->nc, "n", 3, &dim);
    ncs_def_dim(p->ns, "n", 3, &dim);
    nc_def_var(p->nc, "v", NC_INT, 1, &dim, &var);
    ncs_def_var(p->ns, "v", NC_INT, 1, &dim, &var);
    short fv = 7;
    a = nc_put_att_short(p->nc, var, "_FillValue", NC_SHORT, 1, &fv);
    b = ncs_put_att(p->ns, var, "_FillValue", NC_SHORT, 1, NC_SHORT, &fv);
    dp_rc_eq(p, "put_att _FillValue short on int variable", a, b, 0);
    a = nc_enddef(p->nc);
    b = ncs_enddef(p->ns);
    dp_rc_eq(p, "enddef with a short _FillValue on an int variable", a, b, 0);
    int ifv = 7;
    a = nc_put_att_int(p->nc, var, "_FillValue", NC_INT, 1, &ifv);
    b = ncs_put_att(p->ns, var, "_FillValue", NC_INT, 1, NC_INT, &ifv);
    dp_rc_eq(p, "put_att _FillValue int after refused enddef", a, b, 0);
    a = nc_enddef(p->nc);
    b = ncs_enddef(p->ns);
    dp_rc_eq(p, "enddef after fixing _FillValue", a, b, 0);
    /* scalar and zero-length edge requests */
    size_t st[1] = {3}, ct[1] = {0};
    int iv[4] = {0};
    a = nc_put_vara_int(p->nc, var, st, ct, iv);
    b = ncs_put(p->ns, var, st, ct, NULL, NULL, NC_INT, iv);
    dp_rc_eq(p, "put_vara start=len count=0", a, b, 0);
    a = nc_get_vara_int(p->nc, var, st, ct, iv);
    b = ncs_get(p->ns, var, st, ct, NULL, NULL, NC_INT, iv);
    dp_rc_eq(p, "get_vara start=len count=0", a, b, 0);
    st[0] = 4;
    a = nc_get_vara_int(p->nc, var, st, ct, iv);
    b = ncs_get(p->ns, var, st, ct, NULL, NULL, NC_INT, iv);
    dp_rc_eq(p, "get_vara start=len+1 count=0", a, b, 0);
    st[0] = 0;
    ct[0] = SIZE_MAX;
    a = nc_get_vara_int(p->nc, var, st, ct, iv);
    b = ncs_get(p->ns, var, st, ct, NULL, NULL, NC_INT, iv);
    dp_rc_eq(p, "get_vara count=SIZE_MAX", a, b, 0);
    a = nc_close(p->nc);
    b = ncs_close(p->ns);
    dp_rc_eq(p, "close", a, b, 0);
    p->open = 0;
    char msg[4096];
    if (dfile_cmp(p->path_nc, p->path_ns, msg, sizeof msg))
        dp_mismatch(p, "fill-value file: %s", msg);
    /* calls on closed ncids */
    a = nc_inq_nvars(p->nc, &x);
    b = ncs_inq_nvars(p->ns, &y);
    dp_rc_eq(p, "inq_nvars on a closed ncid", a, b, 0);
    a = nc_create(p->path_nc, NC_NOCLOBBER, &x);
    b = ncs_create(p->path_ns, NC_NOCLOBBER, &y);
    dp_rc_eq(p, "create(NOCLOBBER) over an existing file", a, b, 0);
    if (a == NC_NOERR)
        nc_close(x);
    if (b == NC_NOERR)
        ncs_close(y);
    unlink(p->path_nc);
    unlink(p->path_ns);
    ck_assert_msg(p->fails == 0, "%d mismatches at the edges", p->fails);
}
END_TEST

/* ncs_set_default_format against nc_set_default_format: a create without
 * format flags must then give the same file; type sizes agree. */
START_TEST(t_default_format)
{
    static const int formats[] = {NC_FORMAT_64BIT_DATA, NC_FORMAT_64BIT_OFFSET,
                                  NC_FORMAT_CLASSIC, 7};
    dpair P, *p = &P;
    char what[200], msg[4096];
    memset(p, 0, sizeof *p);
    p->ctx = "default-format";
    snprintf(p->path_nc, sizeof p->path_nc, "%s/f_%d.nc", tmpdir, (int)getpid());
    snprintf(p->path_ns, sizeof p->path_ns, "%s/fs_%d.nc", tmpdir, (int)getpid());
    for (int t = 0; t <= 13; t++) {
        size_t za = 0, zb = 0;
        nc_inq_type(NC_GLOBAL, t, NULL, &za);
        int b = ncs_inq_type_size(t, &zb);
        snprintf(what, sizeof what, "inq_type_size(%d)", t);
        /* nc_inq_type with a bad ncid still answers for atomic types */
        if (t > NC_NAT && t <= NC_UINT64) {
            if (b != NC_NOERR || za != zb)
                dp_mismatch(p, "%s: ncslab rc %d size %zu, netCDF-C size %zu", what, b, zb, za);
        } else if (b != NC_EBADTYPE) {
            dp_mismatch(p, "%s: ncslab rc %d, expected NC_EBADTYPE", what, b);
        }
    }
    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++) {
        int oa = -1, ob = -1, ncid, dim, var, x;
        int a = nc_set_default_format(formats[i], &oa);
        int b = ncs_set_default_format(formats[i], &ob);
        snprintf(what, sizeof what, "set_default_format(%d)", formats[i]);
        if (!dp_rc_eq(p, what, a, b, 0) || a != NC_NOERR)
            continue;
        if (oa != ob)
            dp_mismatch(p, "%s: old format netCDF-C %d, ncslab %d", what, oa, ob);
        short vals[3] = {1, -2, 3};
        a = nc_create(p->path_nc, NC_CLOBBER, &ncid);
        ck_assert_int_eq(a, 0);
        nc_def_dim(ncid, "n", 3, &dim);
        nc_def_var(ncid, "v", NC_SHORT, 1, &dim, &var);
        nc_enddef(ncid);
        nc_put_var_short(ncid, var, vals);
        nc_close(ncid);
        b = ncs_create(p->path_ns, NC_CLOBBER, &ncid);
        ck_assert_int_eq(b, 0);
        ncs_def_dim(ncid, "n", 3, &dim);
        ncs_def_var(ncid, "v", NC_SHORT, 1, &dim, &var);
        ncs_enddef(ncid);
        ncs_put(ncid, var, NULL, NULL, NULL, NULL, NC_SHORT, vals);
        ncs_inq_format(ncid, &x);
        if (x != formats[i])
            dp_mismatch(p, "after %s: ncs_inq_format says %d", what, x);
        ncs_close(ncid);
        if (dfile_cmp(p->path_nc, p->path_ns, msg, sizeof msg))
            dp_mismatch(p, "create after %s: %s", what, msg);
    }
    nc_set_default_format(NC_FORMAT_CLASSIC, NULL);
    ncs_set_default_format(NC_FORMAT_CLASSIC, NULL);
    unlink(p->path_nc);
    unlink(p->path_ns);
    ck_assert_msg(p->fails == 0, "%d mismatches in default formats", p->fails);
}
END_TEST

/* ---- header sizes ----------------------------------------------------------
 * netCDF-C writes its header through its I/O buffer in windows whose last
 * one reaches past the header, so a small file with a large header is
 * longer than its data (doc/format.md, section 6.5).  Headers of every
 * size up to 64 KiB, in 4-byte steps near each multiple of 4096 and 512
 * and coarser between, with no variables, fixed, record and both kinds, with
 * and without NC_SHARE, through create, reopen + redef (+ enddef or a close
 * in define mode), data-mode header rewrites, and a redefinition that grows
 * the header: the files must be identical, length included. */

enum { HV_NONE, HV_FIXED, HV_REC, HV_BOTH, HV_NKINDS };

static int both_ok(dpair *p, const char *what, int a, int b)
{
    dp_note(p, "%s -> %d/%d", what, a, b);
    return dp_rc_eq(p, what, a, b, 1) && a == NC_NOERR;
}

/* bytes of a header entry of a name of n characters */
static size_t hdr_name(int fmt, size_t n)
{
    return (fmt == 5 ? 8 : 4) + (n + 3) / 4 * 4;
}

/* bytes of a global text attribute named like "a000" of len characters */
static size_t hdr_att(int fmt, size_t namelen, size_t len)
{
    return hdr_name(fmt, namelen) + 4 + (fmt == 5 ? 8 : 4) + (len + 3) / 4 * 4;
}

/* the header without global attributes, for the variables of kind */
static size_t hdr_base(int fmt, int kind)
{
    size_t c = fmt == 5 ? 8 : 4, n = 4 + c;
    size_t var = hdr_name(fmt, 1) + c + c + (4 + c) + 4 + c + (fmt == 1 ? 4 : 8);
    n += 4 + c + 2 * (hdr_name(fmt, 1) + c);            /* dims d, r */
    n += 4 + c;                                          /* gatt list */
    n += 4 + c;                                          /* var list */
    if (kind == HV_FIXED || kind == HV_BOTH)
        n += var;
    if (kind == HV_REC || kind == HV_BOTH)
        n += var;
    return n;
}

static void hdr_cmp(dpair *p, const char *phase, size_t target, int kind)
{
    char msg[4096];
    /* stale bytes included: ncslab writes netCDF-C's (section 6.5) */
    if (dfile_cmp(p->path_nc, p->path_ns, msg, sizeof msg) != 0)
        dp_mismatch(p, "CDF-%d%s header of %zu bytes, variables %d, after %s: %s", p->fmt,
                    p->share ? " NC_SHARE" : "", target, kind, phase, msg);
}

/* Creates a file whose header is `target` bytes (at least the smallest
 * one the variables allow) in both libraries, then reopens it three times. */
static void header_case(dpair *p, size_t target, int kind, int nfixed, int variant)
{
    static char text[8192];
    int cmode = NC_CLOBBER | p->share |
                (p->fmt == 2 ? NC_64BIT_OFFSET : p->fmt == 5 ? NC_64BIT_DATA : 0);
    int omode = NC_WRITE | p->share;
    size_t base = hdr_base(p->fmt, kind), full = hdr_att(p->fmt, 4, 450), tail, nfull = 0;
    int d[2], fv = -1, rv = -1;
    char name[24];

    for (size_t i = 0; i < sizeof text; i++)
        text[i] = (char)('a' + (i * 7 + target) % 26);
    if (target > base + hdr_att(p->fmt, 4, 0))
        nfull = (target - base - hdr_att(p->fmt, 4, 0)) / full;
    tail = target > base + nfull * full + hdr_att(p->fmt, 4, 0)
         ? target - base - nfull * full - hdr_att(p->fmt, 4, 0) : 0;
    p->nhist = 0;
    p->hist_dumped = 0;
    p->dead = 0;

    if (!both_ok(p, "create", nc_create(p->path_nc, cmode, &p->nc),
                 ncs_create(p->path_ns, cmode, &p->ns)))
        return;
    p->open = 1;
    both_ok(p, "def_dim d", nc_def_dim(p->nc, "d", (size_t)nfixed, &d[0]),
            ncs_def_dim(p->ns, "d", (size_t)nfixed, &d[0]));
    both_ok(p, "def_dim r", nc_def_dim(p->nc, "r", NC_UNLIMITED, &d[1]),
            ncs_def_dim(p->ns, "r", NC_UNLIMITED, &d[1]));
    for (size_t i = 0; i < nfull; i++) {
        snprintf(name, sizeof name, "a%03zu", i);
        both_ok(p, "put_att 450", nc_put_att_text(p->nc, NC_GLOBAL, name, 450, text + i % 64),
                ncs_put_att(p->ns, NC_GLOBAL, name, NC_CHAR, 450, NC_CHAR, text + i % 64));
    }
    both_ok(p, "put_att tail", nc_put_att_text(p->nc, NC_GLOBAL, "tail", tail, text),
            ncs_put_att(p->ns, NC_GLOBAL, "tail", NC_CHAR, tail, NC_CHAR, text));
    if (kind == HV_FIXED || kind == HV_BOTH)
        both_ok(p, "def_var v", nc_def_var(p->nc, "v", NC_INT, 1, &d[0], &fv),
                ncs_def_var(p->ns, "v", NC_INT, 1, &d[0], &fv));
    /* shorts: the records of a lone record variable are packed (2 bytes
     * each, a move copies the 2 after the last) */
    if (kind == HV_REC || kind == HV_BOTH)
        both_ok(p, "def_var w", nc_def_var(p->nc, "w", NC_SHORT, 1, &d[1], &rv),
                ncs_def_var(p->ns, "w", NC_SHORT, 1, &d[1], &rv));
    if (p->dead || !both_ok(p, "enddef", nc_enddef(p->nc), ncs_enddef(p->ns)))
        goto out;
    if (fv >= 0 && variant % 3 != 2) {
        int vals[4] = {1, 2, 3, 4};
        size_t st = (size_t)nfixed / 2, ct = 4;
        both_ok(p, "put v", nc_put_vara_int(p->nc, fv, &st, &ct, vals),
                ncs_put(p->ns, fv, &st, &ct, NULL, NULL, NC_INT, vals));
    }
    if (rv >= 0 && variant % 3 != 1) {
        short vals[3] = {5, 6, 7};
        size_t st = 0, ct = 3;
        both_ok(p, "put w", nc_put_vara_short(p->nc, rv, &st, &ct, vals),
                ncs_put(p->ns, rv, &st, &ct, NULL, NULL, NC_SHORT, vals));
    }
    both_ok(p, "close", nc_close(p->nc), ncs_close(p->ns));
    p->open = 0;
    if (p->dead)
        return;
    hdr_cmp(p, "create", target, kind);

    /* redefinition without a change: enddef, or close in define mode */
    if (!both_ok(p, "open", nc_open(p->path_nc, omode, &p->nc), ncs_open(p->path_ns, omode, &p->ns)))
        return;
    p->open = 1;
    both_ok(p, "redef", nc_redef(p->nc), ncs_redef(p->ns));
    if (variant % 2 == 0)
        both_ok(p, "enddef", nc_enddef(p->nc), ncs_enddef(p->ns));
    both_ok(p, "close", nc_close(p->nc), ncs_close(p->ns));
    p->open = 0;
    if (p->dead)
        return;
    hdr_cmp(p, variant % 2 == 0 ? "redef, enddef, close" : "redef, close", target, kind);

    /* header rewrites in data mode: a value of the same length, a shorter
     * name; with records, one more */
    if (!both_ok(p, "open", nc_open(p->path_nc, omode, &p->nc), ncs_open(p->path_ns, omode, &p->ns)))
        return;
    p->open = 1;
    both_ok(p, "put_att tail", nc_put_att_text(p->nc, NC_GLOBAL, "tail", tail, text + 3),
            ncs_put_att(p->ns, NC_GLOBAL, "tail", NC_CHAR, tail, NC_CHAR, text + 3));
    both_ok(p, "rename_att", nc_rename_att(p->nc, NC_GLOBAL, "tail", "ta"),
            ncs_rename_att(p->ns, NC_GLOBAL, "tail", "ta"));
    if (rv >= 0 && variant % 4 == 0) {
        short v8 = 8;
        size_t st = 3;
        both_ok(p, "put1 w", nc_put_var1_short(p->nc, rv, &st, &v8),
                ncs_put(p->ns, rv, &st, NULL, NULL, NULL, NC_SHORT, &v8));
    }
    if (variant % 5 == 0)
        both_ok(p, "sync", nc_sync(p->nc), ncs_sync(p->ns));
    both_ok(p, "close", nc_close(p->nc), ncs_close(p->ns));
    p->open = 0;
    if (p->dead)
        return;
    hdr_cmp(p, "data-mode rewrites", target, kind);

    /* a redefinition that grows the header (the data moves) after a read */
    if (!both_ok(p, "open", nc_open(p->path_nc, omode, &p->nc), ncs_open(p->path_ns, omode, &p->ns)))
        return;
    p->open = 1;
    if (fv >= 0) {
        int a[2], b[2];
        size_t st = 0, ct = 2;
        both_ok(p, "get v", nc_get_vara_int(p->nc, fv, &st, &ct, a),
                ncs_get(p->ns, fv, &st, &ct, NULL, NULL, NC_INT, b));
    }
    both_ok(p, "redef", nc_redef(p->nc), ncs_redef(p->ns));
    both_ok(p, "put_att grow", nc_put_att_text(p->nc, NC_GLOBAL, "grow", 9, text),
            ncs_put_att(p->ns, NC_GLOBAL, "grow", NC_CHAR, 9, NC_CHAR, text));
    both_ok(p, "enddef", nc_enddef(p->nc), ncs_enddef(p->ns));
out:
    both_ok(p, "close", nc_close(p->nc), ncs_close(p->ns));
    p->open = 0;
    if (!p->dead)
        hdr_cmp(p, "a redefinition that grows the header", target, kind);
}

/* the header sizes: 4-byte steps within 48 bytes of each multiple of 4096
 * and within 8 of each multiple of 512, steps of 508 elsewhere */
static int next_size(size_t h, size_t *next)
{
    size_t to4k = 4096 - h % 4096, to512 = 512 - h % 512;
    if (h % 4096 < 48 || to4k <= 48 || h % 512 < 8 || to512 <= 8)
        *next = h + 4;
    else if (to4k > 48 + 508 && to512 > 8 + 508)
        *next = h + 508;
    else
        *next = h + (to512 - 8 < to4k - 48 ? to512 - 8 : to4k - 48);
    return *next <= 65536;
}

START_TEST(t_header_sizes)
{
    static const int fmts[] = {1, 2, 5};
    dpair P, *p = &P;
    size_t h = 0, ncases = 0;
    int variant = 0;
    /* in memory where there is such a file system: ncslab syncs a
     * redefinition's journal, thousands of times here */
    const char *dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : tmpdir;
    memset(p, 0, sizeof *p);
    p->ctx = "header";
    p->fmt = fmts[_i];
    snprintf(p->path_nc, sizeof p->path_nc, "%s/ncslab_h_%d.nc", dir, (int)getpid());
    snprintf(p->path_ns, sizeof p->path_ns, "%s/ncslab_hs_%d.nc", dir, (int)getpid());
    do {
        int kind = variant % HV_NKINDS;
        p->share = (variant / HV_NKINDS) % 2 ? NC_SHARE : 0;
        /* fixed data of a few bytes, or of more than a block */
        header_case(p, h, kind, variant % 7 == 3 ? 3000 : 10, variant);
        variant++;
        ncases++;
    } while (p->fails < 20 && next_size(h, &h));
    if (p->fails == 0) {
        unlink(p->path_nc);
        unlink(p->path_ns);
    } else {
        fprintf(stderr, "header: the files of the last case are %s and %s\n", p->path_nc,
                p->path_ns);
    }
    ck_assert_msg(p->fails == 0, "CDF-%d: %d mismatches in %zu header sizes", p->fmt, p->fails,
                  ncases);
}
END_TEST

/* ---- _FillValue of another type when records are added --------------------
 * netCDF-C fills every record variable, the one being written included, in
 * each record a put adds (unless the file is in NC_NOFILL mode), and stops
 * with NC_EBADTYPE at the first whose _FillValue has another type or more
 * than one element: the variables before it in that record are filled, the
 * record is not counted, nothing of the put is written.  NCO's ncpdq -P
 * leaves such files (a short variable with a float _FillValue). */

enum { FC_LONE2D, FC_LONE1D, FC_GOOD_FIRST, FC_BAD_FIRST, FC_TWO_ELEMS, FC_CHAR2,
       FC_CHAR_BYTE, FC_FIXED_BAD, FC_NLAYOUTS };

/* Defines the layout's variables in both libraries; *bad is the variable
 * with the troublesome _FillValue, *good another record variable or -1. */
static void fc_define(dpair *p, int layout, int *bad, int *good)
{
    int d[2], dn, v;
    float ff = -1.5f;
    short s2[2] = {-7, -8};
    signed char b1 = -3;
    *good = -1;
    both_ok(p, "def_dim t", nc_def_dim(p->nc, "t", NC_UNLIMITED, &d[0]),
            ncs_def_dim(p->ns, "t", NC_UNLIMITED, &d[0]));
    both_ok(p, "def_dim n", nc_def_dim(p->nc, "n", 3, &d[1]),
            ncs_def_dim(p->ns, "n", 3, &d[1]));
    dn = d[1];
    if (layout == FC_GOOD_FIRST || layout == FC_FIXED_BAD)
        both_ok(p, "def_var w(t)", nc_def_var(p->nc, "w", NC_INT, 1, d, good),
                ncs_def_var(p->ns, "w", NC_INT, 1, d, good));
    if (layout == FC_FIXED_BAD) {
        both_ok(p, "def_var f(n)", nc_def_var(p->nc, "f", NC_SHORT, 1, &dn, bad),
                ncs_def_var(p->ns, "f", NC_SHORT, 1, &dn, bad));
    } else if (layout == FC_CHAR2 || layout == FC_CHAR_BYTE) {
        both_ok(p, "def_var c(t,n)", nc_def_var(p->nc, "c", NC_CHAR, 2, d, bad),
                ncs_def_var(p->ns, "c", NC_CHAR, 2, d, bad));
    } else {
        int nd = layout == FC_LONE1D ? 1 : 2;
        both_ok(p, "def_var v", nc_def_var(p->nc, "v", NC_SHORT, nd, d, bad),
                ncs_def_var(p->ns, "v", NC_SHORT, nd, d, bad));
    }
    v = *bad;
    if (layout == FC_TWO_ELEMS)
        both_ok(p, "_FillValue short[2]", nc_put_att_short(p->nc, v, "_FillValue", NC_SHORT, 2, s2),
                ncs_put_att(p->ns, v, "_FillValue", NC_SHORT, 2, NC_SHORT, s2));
    else if (layout == FC_CHAR2)
        both_ok(p, "_FillValue char[2]", nc_put_att_text(p->nc, v, "_FillValue", 2, "xy"),
                ncs_put_att(p->ns, v, "_FillValue", NC_CHAR, 2, NC_CHAR, "xy"));
    else if (layout == FC_CHAR_BYTE)
        both_ok(p, "_FillValue byte", nc_put_att_schar(p->nc, v, "_FillValue", NC_BYTE, 1, &b1),
                ncs_put_att(p->ns, v, "_FillValue", NC_BYTE, 1, NC_BYTE, &b1));
    else
        both_ok(p, "_FillValue float", nc_put_att_float(p->nc, v, "_FillValue", NC_FLOAT, 1, &ff),
                ncs_put_att(p->ns, v, "_FillValue", NC_FLOAT, 1, NC_FLOAT, &ff));
    if (layout == FC_BAD_FIRST)
        both_ok(p, "def_var w(t)", nc_def_var(p->nc, "w", NC_INT, 1, d, good),
                ncs_def_var(p->ns, "w", NC_INT, 1, d, good));
}

/* One put of records [rec, rec + nrec) of varid (partial: the first
 * element of each only), compared. */
static void fc_put(dpair *p, int varid, size_t rec, size_t nrec, int partial)
{
    int xtype = NC_NAT, nd = 0, a, b;
    size_t st[2] = {rec, 0}, ct[2] = {nrec, partial ? 1 : 3};
    short sv[64];
    int iv[64];
    char cv[64], what[160];
    nc_inq_var(p->nc, varid, NULL, &xtype, &nd, NULL, NULL);
    for (int i = 0; i < 64; i++) {
        sv[i] = (short)(100 + i);
        iv[i] = 1000 + i;
        cv[i] = (char)('A' + i % 26);
    }
    if (nd == 1)
        ct[1] = 1;
    snprintf(what, sizeof what, "put var %d records %zu..%zu%s", varid, rec, rec + nrec - 1,
             partial ? " (partial)" : "");
    if (xtype == NC_CHAR) {
        a = nc_put_vara_text(p->nc, varid, st, ct, cv);
        b = ncs_put(p->ns, varid, st, ct, NULL, NULL, NC_CHAR, cv);
    } else if (xtype == NC_INT) {
        a = nc_put_vara_int(p->nc, varid, st, ct, iv);
        b = ncs_put(p->ns, varid, st, ct, NULL, NULL, NC_INT, iv);
    } else {
        a = nc_put_vara_short(p->nc, varid, st, ct, sv);
        b = ncs_put(p->ns, varid, st, ct, NULL, NULL, NC_SHORT, sv);
    }
    dp_note(p, "%s -> %d/%d", what, a, b);
    if (dp_rc_eq(p, what, a, b, 1))
        dp_check_numrecs(p, what);
}

/* The calls of one case: the layout, enddef (a fixed variable's bad
 * _FillValue is deleted after the refused enddef), then `op`'s puts, then
 * a put into the records that exist; the files must be identical. */
static void fc_case(dpair *p, int layout, int op, int nofill)
{
    int cmode = NC_CLOBBER | p->share |
                (p->fmt == 2 ? NC_64BIT_OFFSET : p->fmt == 5 ? NC_64BIT_DATA : 0);
    int bad, good, a, b, target;
    char msg[4096];
    p->nhist = 0;
    p->hist_dumped = 0;
    p->dead = 0;
    if (!both_ok(p, "create", nc_create(p->path_nc, cmode, &p->nc),
                 ncs_create(p->path_ns, cmode, &p->ns)))
        return;
    p->open = 1;
    p->recdim = 0;
    fc_define(p, layout, &bad, &good);
    if (nofill)
        both_ok(p, "set_fill NOFILL", nc_set_fill(p->nc, NC_NOFILL, NULL),
                ncs_set_fill(p->ns, NC_NOFILL, NULL));
    a = nc_enddef(p->nc);
    b = ncs_enddef(p->ns);
    dp_note(p, "enddef -> %d/%d", a, b);
    if (dp_rc_eq(p, "enddef", a, b, 1) && a != NC_NOERR) {
        both_ok(p, "del_att _FillValue", nc_del_att(p->nc, bad, "_FillValue"),
                ncs_del_att(p->ns, bad, "_FillValue"));
        both_ok(p, "enddef again", nc_enddef(p->nc), ncs_enddef(p->ns));
    }
    if (p->dead)
        goto out;
    /* op: 0 a whole record of the bad variable, 1 part of one (all of
     * it in 1-D layouts), 2 three whole records from record 1 (record 0
     * too is added), 3 a whole record of the good one, 4 a record, then
     * the fill mode flipped and two more */
    target = op == 3 && good >= 0 ? good : bad;
    if (layout == FC_FIXED_BAD)
        target = good;
    switch (op) {
    case 0:
    case 3:
        fc_put(p, target, 0, 1, 0);
        break;
    case 1:
        fc_put(p, target, 0, 1, 1);
        break;
    case 2:
        fc_put(p, target, 1, 3, 0);
        break;
    default:
        fc_put(p, target, 0, 1, 0);
        both_ok(p, "set_fill flip", nc_set_fill(p->nc, nofill ? NC_FILL : NC_NOFILL, NULL),
                ncs_set_fill(p->ns, nofill ? NC_FILL : NC_NOFILL, NULL));
        fc_put(p, target, 1, 2, 0);
        break;
    }
    if (!p->dead && good >= 0)
        fc_put(p, good, 0, 1, 0);
out:
    both_ok(p, "close", nc_close(p->nc), ncs_close(p->ns));
    p->open = 0;
    if (!p->dead && dfile_cmp(p->path_nc, p->path_ns, msg, sizeof msg) != 0)
        dp_mismatch(p, "CDF-%d%s%s layout %d op %d: files differ: %s", p->fmt,
                    p->share ? " NC_SHARE" : "", nofill ? " NOFILL" : "", layout, op, msg);
}

START_TEST(t_fill_check)
{
    static const int fmts[] = {1, 2, 5};
    dpair P, *p = &P;
    memset(p, 0, sizeof *p);
    p->ctx = "fillcheck";
    p->fmt = fmts[_i];
    snprintf(p->path_nc, sizeof p->path_nc, "%s/fc_%d.nc", tmpdir, (int)getpid());
    snprintf(p->path_ns, sizeof p->path_ns, "%s/fcs_%d.nc", tmpdir, (int)getpid());
    for (int share = 0; share < 2; share++)
        for (int layout = 0; layout < FC_NLAYOUTS; layout++)
            for (int op = 0; op < 5; op++)
                for (int nofill = 0; nofill < 2; nofill++) {
                    p->share = share ? NC_SHARE : 0;
                    fc_case(p, layout, op, nofill);
                }
    unlink(p->path_nc);
    unlink(p->path_ns);
    ck_assert_msg(p->fails == 0, "CDF-%d: %d mismatches with bad _FillValues", p->fmt, p->fails);
}
END_TEST

static Suite *diff_suite(void)
{
    Suite *s = suite_create("diff_classic");
    TCase *tc = tcase_create("random");
    tcase_set_timeout(tc, 300);
    tcase_add_loop_test(tc, t_random, 0, nseeds);
    suite_add_tcase(s, tc);
    tc = tcase_create("read_netcdf");
    tcase_set_timeout(tc, 300);
    tcase_add_loop_test(tc, t_read_netcdf_files, 0, nseeds);
    suite_add_tcase(s, tc);
    tc = tcase_create("fixed");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, t_erange_bytes);
    tcase_add_test(tc, t_edges);
    tcase_add_test(tc, t_default_format);
    suite_add_tcase(s, tc);
    tc = tcase_create("header");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, t_header_sizes, 0, 3);
    suite_add_tcase(s, tc);
    tc = tcase_create("fillcheck");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, t_fill_check, 0, 3);
    suite_add_tcase(s, tc);
    return s;
}

int main(int argc, char **argv)
{
    const char *env = getenv("NCSLAB_SEED");
    const char *arg = argc > 1 ? argv[1] : env;
    const char *tmp = getenv("TMPDIR");

    dp_set_trace(getenv("NCSLAB_DIFF_TRACE") != NULL);
    if (arg && *arg) {
        seeds[nseeds++] = strtoull(arg, NULL, 0);
    } else {
        /* Fixed seeds keep make check deterministic; NCSLAB_RANDOM_SEED=1
         * adds one from the clock, for hunting.  Seeds 5024 (set_fill
         * back to fill writes the header), 5129 (a refused enddef's offsets
         * stay) and 5049 (never-written nofill elements, read and compared)
         * found differences since fixed; 6014 a refused close (abort) that
         * drops records in netCDF-C; 9439 a nofill variable never written;
         * 10300 stale bytes in the padding after packed records.
         * Seed 25896710 differs in
         * unused bytes where netCDF-C writes back stale buffer contents:
         * see doc/format.md "Known differences". */
        static const uint64_t fixed[] = {1, 2, 3, 20241130, 15957042939ull, 22201312609ull,
                                         19272640318ull, 2252629442ull, 25896710ull,
                                         284392052727543ull, 5024, 5049, 5129, 6014, 9439, 10300, 12879,
                                         13099};
        for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
            seeds[nseeds++] = fixed[i];
        if (getenv("NCSLAB_RANDOM_SEED") != NULL)
            seeds[nseeds++] = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 20);
    }
    for (int i = 0; i < nseeds; i++)
        printf("diff_classic: seed %llu\n", (unsigned long long)seeds[i]);
    printf("diff_classic: reproduce one seed with NCSLAB_SEED=N (or argv[1])\n");
    fflush(stdout);

    snprintf(tmpdir, sizeof tmpdir, "%s/diff_classic.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 99;
    }
    SRunner *sr = srunner_create(diff_suite());
    srunner_run_all(sr, CK_NORMAL);
    int nfailed = srunner_ntests_failed(sr);
    srunner_free(sr);
    if (rmdir(tmpdir) != 0 && errno == ENOTEMPTY)
        fprintf(stderr, "diff_classic: files of failing cases kept in %s\n", tmpdir);
    return nfailed ? EXIT_FAILURE : EXIT_SUCCESS;
}
