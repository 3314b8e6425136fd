/*
 * diff_v2seq.c -- seeded random sequences of v2 calls through netCDF-C and
 * through ncslab-v2, in one process, compared after every call.
 *
 * A sequence is about CALLS calls of every v2 call (nccreate .. nctypelen),
 * valid ones and invalid ones (bad ids, names, types, modes, coordinates,
 * counts, NULL where the call allows it), in define mode, data mode, on
 * closed ids, read-only and NC_SHARE opens and under NC_NOFILL, in one
 * format: CDF-1, CDF-2, CDF-5 or netCDF-4 classic model.  After every call
 * the return value, ncerr, every output argument and every value read must
 * be equal; after every close the files must be equal (classic: byte for
 * byte; netCDF-4: schema, attributes in order and every value, read back
 * through netCDF-C).  ncopts is 0 on both sides.
 *
 * Invariants:
 *   - the generator's view of the file (dims, vars, atts, record count) is
 *     always re-read from netCDF-C, never tracked by hand;
 *   - both libraries get byte-identical arguments and buffers, and every
 *     output is pre-filled with the same sentinel, so a plain byte compare
 *     of the outputs is exact;
 *   - the first difference a sequence cannot tolerate ends it; it is printed
 *     with the seed, the format, the call index, the call and both results,
 *     the calls before it and the line that replays it.
 *
 * Differences that are netCDF-C's bugs (doc/v2.md, "netCDF-C bugs the
 * random sequences avoid") are never failures: the generator avoids the
 * NC_SHARE redefinition and the netCDF-4 text-length ones, and elements no
 * put wrote in a file that has been in nofill mode are not compared.
 * Classes of ncslab differences that are known and being fixed are
 * recognised and named (class_names); NCSLAB_V2SEQ_KNOWN=a,b,... (or -k)
 * makes the named ones tolerated and counted, so a campaign counts the
 * others.
 *
 * Usage: diff_v2seq [-n SEEDS] [-s FIRST] [-f FORMATS] [-k KNOWN] [-c CALLS]
 *   Without options it runs the fixed seeds of make check in every format.
 *   NCSLAB_SEED=N runs one seed; NCSLAB_V2SEQ_FORMAT=cdf1|cdf2|cdf5|nc4
 *   (or a comma list; also -f) chooses formats; NCSLAB_DIFF_TRACE=1 prints
 *   every call; NCSLAB_V2SEQ_SEEDS=N runs seeds FIRST..FIRST+N-1.
 * Exit status 0 when no sequence failed, 1 otherwise, 77 when netCDF-C
 * lacks a format ncslab has (nothing to compare against).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <hdf5.h>
#include <netcdf.h>

#include "v2seq.h"

#define CALLS 150      /* calls per sequence */
#define MAXD 8         /* dimensions the generator makes */
#define MAXV 10        /* variables the generator makes */
#define MAXR 3         /* rank of the variables it makes */
#define MAXREC 10      /* records it writes */
#define WBITS 4096     /* elements tracked per variable */
#define HIST 12        /* calls shown before a difference */
#define BIGA 450       /* length of the long text attributes */

static const v2lib *const lib[2] = { &v2seq_netcdf, &v2seq_ncslab };

/* ---- classes of differences --------------------------------------------- */
enum {
    K_PRECEDENCE, /* issue 15 item 13: error precedence */
    K_ATTORDER,   /* item 14: netCDF-4 attribute order after rewrites */
    K_VARORDER,   /* item 8: netCDF-4 variable order after a data-mode rename */
    K_PADDING,    /* item 10: header blocks of headers over 4 KiB */
    K_EMPTYHDR,   /* netCDF-C writes an empty header as a 4096-byte block */
    K_ABORTPAD,   /* after ncabort netCDF-C's file is not padded; ncslab's is */
    K_SHORTREAD,  /* a read past the end of a short read-only file: ncslab
                   * NC_ETRUNC by design (doc/format.md), netCDF-C zeros,
                   * which for a file cut short are made-up values
                   * (tolerated, doc/v2.md) */
    K_HUGESTART,  /* netCDF-C: a strided or mapped write at start -1
                   * (SIZE_MAX) returns 0 or NC_EHDFERR, ncslab
                   * NC_EINVALCOORDS (tolerated) */
    K_NONCOORD,   /* items 1-2: a netCDF-4 variable named like a dimension
                   * it is not the 1-D coordinate variable of */
    K_NC4PREC,    /* netCDF-4: both fail, with other codes than item 13 lists
                   * (reported with examples; not yet in an item) */
    K_NC4MODE,    /* netCDF-4: one library refuses in define or data mode
                   * (NC_EINDEFINE, NC_ENOTINDEFINE, NC_ELATEFILL) what the
                   * other does */
    K_ATTPREC,    /* attribute calls: netCDF-C checks the output ncid of
                   * ncattcopy and the name of ncattdel before it looks */
    K_NOFILL,     /* netCDF-C: undefined elements of a nofill file (tolerated) */
    K_NC4PERM,    /* netCDF-C: NC_EHDFERR for a netCDF-4 write on a read-only
                   * file, ncslab NC_EPERM (tolerated) */
    K_STALE,      /* netCDF-C: stale buffer bytes outside every element (tolerated) */
    K_NC4UNLIM,   /* netCDF-C: a netCDF-4 classic-model variable with the
                   * unlimited dimension not first, or twice, accepted
                   * (ncslab NC_EUNLIMPOS); the sequence ends */
    K_NC4RENAME,  /* netCDF-C: a define-mode rename of an existing netCDF-4
                   * variable after a new one was defined, or a rename in a
                   * file with a non-coordinate variable named like a
                   * dimension, returns NC_EHDFERR, with the rename half
                   * done (doc/v2.md bug 17); the sequence ends */
    K_NC4VARREN,  /* netCDF-C: after a variable rename (in data mode in a
                   * file opened for writing, or where a non-coordinate
                   * variable is involved), its file numbers the variables
                   * otherwise, or loses some; ncslab's keeps the ids
                   * (doc/v2.md bug 18; the sequence ends) */
    K_NC4VARS,    /* netCDF-C: fill values from a netCDF-4 strided read past
                   * a record variable's own records (tolerated when its
                   * element-by-element reads give ncslab's values) */
    K_NC4ATTCRT,  /* netCDF-C: a variable defined in a netCDF-4 file it
                   * reopened has no attribute creation order, so readers
                   * see HDF5's storage order (doc/v2.md bug 22); ncslab's
                   * keeps the order of definition (the sequence ends) */
    K_NC4ABORT,   /* netCDF-C: a netCDF-4 ncabort of an opened file neither
                   * restores a redefinition nor keeps data-mode changes;
                   * its side runs the documented result instead (counted) */
    K_OTHER,
    K_N
};
static const char *const class_names[K_N] = {
    "precedence", "attorder", "varorder", "padding", "emptyhdr", "abortpad", "shortread", "hugestart", "noncoord", "nc4prec", "nc4mode", "attprec", "nofill", "nc4perm", "stale", "nc4unlim", "nc4rename", "nc4varren", "nc4vars", "nc4attcrt", "nc4abort", "other"
};
static int known[K_N];
static char known_list[256];

/* ---- PRNG: splitmix64 ------------------------------------------------------ */
typedef struct rng {
    uint64_t s;
} rng;

static uint64_t rnext(rng *r)
{
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static int below(rng *r, int n)
{
    return n <= 0 ? 0 : (int)(rnext(r) % (uint64_t)n);
}

static int chance(rng *r, int pct)
{
    return below(r, 100) < pct;
}

/* ---- the calls ------------------------------------------------------------- */
enum {
    OP_CREATE, OP_OPEN, OP_REDEF, OP_ENDEF, OP_CLOSE, OP_ABORT, OP_SYNC,
    OP_INQUIRE, OP_SETFILL, OP_DIMDEF, OP_DIMID, OP_DIMINQ, OP_DIMRENAME,
    OP_VARDEF, OP_VARID, OP_VARINQ, OP_VARRENAME, OP_PUT1, OP_GET1, OP_PUT,
    OP_GET, OP_PUTS, OP_GETS, OP_PUTG, OP_GETG, OP_RECPUT, OP_RECGET,
    OP_RECINQ, OP_ATTPUT, OP_ATTINQ, OP_ATTGET, OP_ATTCOPY, OP_ATTNAME,
    OP_ATTRENAME, OP_ATTDEL, OP_TYPELEN, OP_N
};
static const char *const op_names[OP_N] = {
    "nccreate", "ncopen", "ncredef", "ncendef", "ncclose", "ncabort", "ncsync",
    "ncinquire", "ncsetfill", "ncdimdef", "ncdimid", "ncdiminq", "ncdimrename",
    "ncvardef", "ncvarid", "ncvarinq", "ncvarrename", "ncvarput1", "ncvarget1",
    "ncvarput", "ncvarget", "ncvarputs", "ncvargets", "ncvarputg", "ncvargetg",
    "ncrecput", "ncrecget", "ncrecinq", "ncattput", "ncattinq", "ncattget",
    "ncattcopy", "ncattname", "ncattrename", "ncattdel", "nctypelen"
};
/* Relative frequency of each call while a file is open. */
static const int op_weight[OP_N] = {
    1, 1, 5, 5, 3, 1, 2,
    2, 3, 6, 2, 2, 2,
    8, 2, 2, 3, 6, 5, 8,
    6, 4, 4, 4, 4, 4, 3,
    2, 12, 3, 4, 4, 3,
    4, 3, 1
};

/* Output pointers a call passes as NULL (bits). */
enum { N_A = 1, N_B = 2, N_C = 4, N_D = 8, N_E = 16 };

typedef struct call {
    int op;
    int ncid, ncid2;             /* S_CUR, S_NEXT or a raw value */
    int badpath;                 /* open a path that does not exist */
    int mode;                    /* cmode, open mode, fill mode */
    int varid, varid2, dimid, attnum, xtype, ndims, len;
    long llen, recnum;
    int dimids[MAXR + 2];
    char name[320], name2[320];
    long start[MAXR + 1], count[MAXR + 1], stride[MAXR + 1], imap[MAXR + 1];
    int nulls;                   /* N_A start, N_B count, N_C stride, N_D map,
                                  * or the NULL outputs of an inquiry */
    unsigned char *data;         /* put data */
    size_t datasz;
    int nrec;                    /* record variables of ncrecput/ncrecget */
    int recvar[MAXV];
    unsigned char *recdata[MAXV];
    size_t recsz[MAXV];
    size_t outsz;                /* bytes of the read buffer */
    /* elements the data buffer holds: variable, element size, count, and
     * per element its byte offset in the buffer and linear index */
    int evar;
    size_t esz, nel, *eoff, *elin;
    int recreate;                /* netCDF-4: rewrites an existing attribute */
} call;

typedef struct result {
    int rc, err;
    int iv[4];
    long lv;
    int ids[NC_MAX_VAR_DIMS];
    long sizes[MAXV + 2];
    char name[NC_MAX_NAME + 8];
    unsigned char *buf;
    unsigned char *recbuf[MAXV];
} result;

/* ---- the state of one sequence ------------------------------------------------- */
typedef struct seq {
    uint64_t seed;
    int fmt;                     /* 1, 2, 5, or 4 for netCDF-4 classic */
    rng r;
    char path[2][600], nopath[600];
    int id[2];
    int exists, open, indef, writable, share, nofill, ever_nofill;
    int hdirty;                  /* header changed in data mode since sync */
    int varren_dm, varorder;     /* netCDF-4: data-mode var rename, reopened */
    int varren_any;              /* netCDF-4: a var rename since open/create */
    int noncoord;                /* the file has had an nc4_noncoord variable */
    int created;                 /* define mode: variables an enddef created */
    int attchg, attorder;        /* netCDF-4: att rewritten/renamed, reopened */
    int redef;                   /* netCDF-4: in a redefinition of snap's file */
    int att_recreated;           /* netCDF-4: an attribute replaced since enddef */
    char snap[600];              /* netCDF-4: netCDF-C's file at that ncredef */
    size_t maxhdr;               /* largest classic header seen */
    unsigned char wmap[MAXV][WBITS / 8];
    int k;                       /* index of the current call */
    char hist[HIST][640];
    int nhist;
    int counts[K_N];
    int failed;                  /* class of the failure, or -1 */
    int stop;                    /* netCDF-C's state is undefined: end here */
    int ids[2][16], nids[2];     /* every ncid a create or open returned */
    /* model, re-read from netCDF-C */
    int ndims, nvars, ngatts, unlim;
    long dimlen[NC_MAX_DIMS];
    int vtype[NC_MAX_VARS], vndims[NC_MAX_VARS], vnatts[NC_MAX_VARS];
    int vdims[NC_MAX_VARS][NC_MAX_VAR_DIMS];
    char vname[MAXV + 1][NC_MAX_NAME + 1];
} seq;

static int trace;
static int ncalls = CALLS;
static char tmpdir[512];

/* ---- small helpers ------------------------------------------------------------ */
static const char *fmt_name(int fmt)
{
    return fmt == 1 ? "cdf1" : fmt == 2 ? "cdf2" : fmt == 5 ? "cdf5" : "nc4";
}

static int fmt_cmode(int fmt)
{
    return fmt == 2 ? NC_64BIT_OFFSET : fmt == 5 ? NC_64BIT_DATA
         : fmt == 4 ? NC_NETCDF4 | NC_CLASSIC_MODEL : 0;
}

static size_t tsize(int type)
{
    static const size_t s[] = { 0, 1, 1, 2, 4, 4, 8, 1, 2, 4, 8, 8 };
    return type > 0 && type < 12 ? s[type] : 0;
}

static int max_type(const seq *q)
{
    return q->fmt == 5 ? NC_UINT64 : NC_DOUBLE;
}

static void load_model(seq *q)
{
    int ncid = q->id[0];
    q->ndims = q->nvars = q->ngatts = 0;
    q->unlim = -1;
    if (!q->open || nc_inq(ncid, &q->ndims, &q->nvars, &q->ngatts, &q->unlim) != NC_NOERR) {
        q->ndims = q->nvars = q->ngatts = 0;
        q->unlim = -1;
        return;
    }
    for (int d = 0; d < q->ndims && d < NC_MAX_DIMS; d++) {
        size_t len = 0;
        nc_inq_dimlen(ncid, d, &len);
        q->dimlen[d] = (long)len;
    }
    for (int v = 0; v < q->nvars && v < NC_MAX_VARS; v++)
        nc_inq_var(ncid, v, v <= MAXV ? q->vname[v] : NULL, &q->vtype[v], &q->vndims[v],
                   q->vdims[v], &q->vnatts[v]);
}

/* 1 when ncslab's closed file numbers its variables as the open file did
 * (the names of the last load_model): a variable order that differs from
 * it in netCDF-C's file is netCDF-C's. */
static int ns_order_kept(const seq *q)
{
    int ncid, nv = -1, same;
    char name[NC_MAX_NAME + 1];
    if (nc_open(q->path[1], NC_NOWRITE, &ncid) != NC_NOERR)
        return 0;
    same = nc_inq_nvars(ncid, &nv) == NC_NOERR && nv == q->nvars && nv <= MAXV + 1;
    for (int v = 0; same && v < nv; v++)
        same = nc_inq_varname(ncid, v, name) == NC_NOERR && strcmp(name, q->vname[v]) == 0;
    nc_close(ncid);
    return same;
}

static long cur_len(const seq *q, int dimid)
{
    return dimid >= 0 && dimid < q->ndims ? q->dimlen[dimid] : 0;
}

static int is_recvar(const seq *q, int v)
{
    return q->vndims[v] > 0 && q->vdims[v][0] == q->unlim;
}

/* Elements of one record (or of the whole variable if fixed), from the
 * fixed dimensions. */
static size_t inner_elems(const seq *q, int v)
{
    size_t n = 1;
    for (int d = is_recvar(q, v) ? 1 : 0; d < q->vndims[v]; d++)
        n *= (size_t)cur_len(q, q->vdims[v][d]);
    return n;
}

/* netCDF-C's netCDF-4 strided (and mapped) reads of a record variable that
 * reach past the records the variable itself holds, though not past the
 * record count, return fill values for every element, also those it holds
 * (doc/v2.md bug 20).  1 when ncslab's values of such a read (buf) are
 * what netCDF-C reads element by element. */
static int nc4_vars_fill(const seq *q, const call *c, const unsigned char *buf)
{
    int v = c->evar, rank;
    size_t vstride[NC_MAX_VAR_DIMS], idx[NC_MAX_VAR_DIMS];
    unsigned char one[8];
    if (q->fmt != 4 || (c->op != OP_GETS && c->op != OP_GETG) || v < 0 || v >= q->nvars ||
        q->vndims[v] == 0 || c->nel == 0 || c->esz == 0 || c->esz > sizeof one)
        return 0;
    rank = q->vndims[v];
    for (int d = rank - 1, n = 1; d >= 0; d--) {
        vstride[d] = (size_t)n;
        n *= d == 0 ? 1 : (int)cur_len(q, q->vdims[v][d]);
    }
    if (is_recvar(q, v))
        vstride[0] = inner_elems(q, v);
    for (size_t k = 0; k < c->nel; k++) {
        size_t lin = c->elin[k];
        for (int d = 0; d < rank; d++) {
            idx[d] = d == 0 ? lin / vstride[0] : lin / vstride[d] % (size_t)cur_len(q, q->vdims[v][d]);
        }
        if (nc_get_var1(q->id[0], v, idx, one) != NC_NOERR ||
            memcmp(one, buf + c->eoff[k], c->esz) != 0)
            return 0;
    }
    return 1;
}

/* ---- names -------------------------------------------------------------------- */
static const char *const good_names[] = {
    "a", "b", "c", "time", "x", "y", "lat", "lon", "z", "v1", "v2", "title",
    "units", "long_name", "valid_range", "history", "a b", "_x", "x1", "1x",
    "caf\xc3\xa9", "cafe\xcc\x81", "T", "t",
};
static const char *const bad_names[] = { "", " a", "a/b", "a ", "\xff", "a\x01" };

static void pick_name(seq *q, char *buf, int bad_pct)
{
    if (chance(&q->r, bad_pct)) {
        if (chance(&q->r, 25)) {
            memset(buf, 'n', 300);
            buf[300] = '\0';
        } else {
            strcpy(buf, bad_names[below(&q->r, (int)(sizeof bad_names / sizeof *bad_names))]);
        }
        return;
    }
    strcpy(buf, good_names[below(&q->r, (int)(sizeof good_names / sizeof *good_names))]);
}

/* An existing name of kind 0 dim, 1 var, 2 att of varid (from netCDF-C), or
 * a random one. */
static void existing_name(seq *q, int kind, int varid, char *buf)
{
    int n = kind == 0 ? q->ndims : kind == 1 ? q->nvars
          : varid == NC_GLOBAL ? q->ngatts
          : varid >= 0 && varid < q->nvars ? q->vnatts[varid] : 0;
    if (n > 0 && chance(&q->r, 80)) {
        int i = below(&q->r, n);
        buf[0] = '\0';
        if (kind == 0)
            nc_inq_dimname(q->id[0], i, buf);
        else if (kind == 1)
            nc_inq_varname(q->id[0], i, buf);
        else
            nc_inq_attname(q->id[0], varid, i, buf);
        return;
    }
    pick_name(q, buf, 10);
}

/* ---- arguments ---------------------------------------------------------------- */
/* ncids in calls: each library's current ncid (the two may differ once
 * netCDF-C has leaked one, see doc/v2.md), the slot after it, or a raw
 * value that is no ncid in either. */
#define S_CUR (1 << 30)
#define S_NEXT (S_CUR + 1)

static int pick_ncid(seq *q)
{
    if (chance(&q->r, 94))
        return S_CUR;
    switch (below(&q->r, 4)) {
    case 0: return -1;
    case 1: return 0;
    case 2: return S_NEXT;
    default: return 123456789;
    }
}

static int resolve(const seq *q, int li, int sel)
{
    return sel == S_CUR ? q->id[li] : sel == S_NEXT ? q->id[li] + 65536 : sel;
}

static const char *ncid_str(int sel, char *buf, size_t n)
{
    if (sel == S_CUR)
        return "cur";
    if (sel == S_NEXT)
        return "cur+65536";
    snprintf(buf, n, "%d", sel);
    return buf;
}

static int pick_varid(seq *q, int global_ok)
{
    if (chance(&q->r, 6))
        return below(&q->r, 2) ? q->nvars : (below(&q->r, 2) ? -2 : 1000);
    if (global_ok && (q->nvars == 0 || chance(&q->r, 30)))
        return NC_GLOBAL;
    return q->nvars > 0 ? below(&q->r, q->nvars) : 0;
}

static int pick_type(seq *q)
{
    if (chance(&q->r, 5)) {
        static const int bad[] = { 0, 7, 10, 11, 12, 13, 99, -1 };
        return bad[below(&q->r, 8)];
    }
    return 1 + below(&q->r, max_type(q));
}

static void fill_random(seq *q, unsigned char *p, size_t n, int type)
{
    for (size_t i = 0; i < n; i++)
        p[i] = type == NC_CHAR ? (unsigned char)('a' + below(&q->r, 26))
                               : (unsigned char)rnext(&q->r);
}

/* Byte offset in the buffer and linear index of every element of the slab
 * the call describes (effective start and count), into c->eoff, c->elin;
 * returns the buffer size in bytes.  emap is an element map or NULL. */
static size_t enumerate(seq *q, call *c, int v, const long *start, const long *count,
                        const long *stride, const long *emap)
{
    int rank = q->vndims[v];
    size_t total = 1, maxoff = 0, vstride[NC_MAX_VAR_DIMS];
    c->evar = v;
    c->esz = tsize(q->vtype[v]);
    for (int d = rank - 1, s = 1; d >= 0; d--) {
        vstride[d] = (size_t)s;
        s *= d == 0 && is_recvar(q, v) ? 1 : (int)cur_len(q, q->vdims[v][d]);
    }
    if (rank > 0 && is_recvar(q, v))
        vstride[0] = inner_elems(q, v);
    for (int d = 0; d < rank; d++)
        total = count[d] <= 0 || count[d] > 64 ? 0 : total * (size_t)count[d];
    c->nel = total;
    c->eoff = calloc(total ? total : 1, sizeof(size_t));
    c->elin = calloc(total ? total : 1, sizeof(size_t));
    for (size_t k = 0; k < total; k++) {
        size_t rem = k, lin = 0, off = 0;
        for (int d = rank - 1; d >= 0; d--) {
            size_t cd = rem % (size_t)count[d];
            rem /= (size_t)count[d];
            lin += (size_t)(start[d] + (long)cd * (stride ? stride[d] : 1)) * vstride[d];
            off += emap ? cd * (size_t)emap[d] : 0;
        }
        if (!emap)
            off = k;
        c->eoff[k] = off * c->esz;
        c->elin[k] = lin;
        if (off > maxoff)
            maxoff = off;
    }
    /* the buffer holds every element the call may move, also where they
     * are too many to track (a NULL count on a long record dimension):
     * the span of the map, or the product of the counts (capped; a
     * request that large is refused by both libraries) */
    {
        size_t span = 1;
        for (int d = 0; d < rank && span > 0; d++) {
            size_t n = count[d] > 0 ? (size_t)count[d] : 0;
            if (emap)
                span += n > 0 ? (n - 1) * (size_t)emap[d] : 0;
            else
                span = n > ((size_t)1 << 24) / span ? (size_t)1 << 24 : span * n;
        }
        if (span > maxoff + 1)
            maxoff = span - 1;
    }
    return (maxoff + 1) * (c->esz ? c->esz : 1) + 8;
}

/* A start/count/stride/map for variable v; mostly valid, sometimes one
 * coordinate or count just out of range or a bad stride. */
static void gen_slab(seq *q, call *c, int v, int put, int kind)
{
    int rank = q->vndims[v];
    long shape[NC_MAX_VAR_DIMS] = { 0 }, count[NC_MAX_VAR_DIMS] = { 0 }, emap[NC_MAX_VAR_DIMS] = { 0 };
    long numrecs = q->unlim >= 0 ? cur_len(q, q->unlim) : 0;
    for (int d = 0; d < rank; d++)
        shape[d] = cur_len(q, q->vdims[v][d]);
    for (int d = 0; d < rank; d++) {
        long len = shape[d];
        int rec = d == 0 && is_recvar(q, v);
        if (rec && put)
            len = numrecs + 2 < MAXREC ? numrecs + 2 : (numrecs > MAXREC ? numrecs : MAXREC);
        c->stride[d] = kind >= 1 ? 1 + below(&q->r, 3) : 1;
        c->start[d] = len > 0 ? below(&q->r, (int)len + (rec && !put && chance(&q->r, 20))) : 0;
        long room = len - c->start[d];
        long maxc = room <= 0 ? 0 : (room - 1) / c->stride[d] + 1;
        c->count[d] = chance(&q->r, 10) ? 0 : (maxc > 0 ? 1 + below(&q->r, (int)maxc) : 0);
        if (kind == 2)
            emap[d] = 0;
    }
    if (rank > 0 && chance(&q->r, 8)) {
        int d = below(&q->r, rank);
        switch (below(&q->r, 5)) {
        case 0: c->start[d] = shape[d] + (d == 0 && is_recvar(q, v) && put ? 3 : 1); break;
        case 1: c->count[d] = shape[d] - c->start[d] + 1; break;
        case 2: c->start[d] = -1; break;
        /* not -1: netCDF-C takes it as SIZE_MAX and writes or loops
         * that far */
        case 3: c->count[d] = shape[d] + 2; break;
        default: c->stride[d] = below(&q->r, 2) ? 0 : -1; break;
        }
    }
    c->nulls = 0;
    if (chance(&q->r, 4))
        c->nulls |= N_A;
    if (chance(&q->r, 6))
        c->nulls |= N_B;
    /* netCDF-C's strided and mapped writes walk the elements from a start
     * of -1 (SIZE_MAX) on, wrapping past 2^64, and write those that land
     * inside before they fail or return (doc/v2.md bug 7): in such a
     * write the dimension that starts at -1 moves one element, with an
     * explicit count (a default count, the length minus the start, wraps
     * to a few elements too) */
    for (int d = 0; put && d < rank; d++)
        if (c->start[d] == -1) {
            c->nulls &= ~N_B;
            if (kind >= 1 && c->count[d] > 1)
                c->count[d] = 1;
        }
    if (kind >= 1 && chance(&q->r, 8))
        c->nulls |= N_C;
    if (kind == 2 && chance(&q->r, 10))
        c->nulls |= N_D;
    for (int d = 0; d < rank; d++)
        count[d] = c->nulls & N_B ? shape[d] : c->count[d];
    /* Element maps: C order, or reversed dimension order (a transpose);
     * given in bytes, sometimes with a remainder the call divides away. */
    if (kind == 2) {
        int rev = rank > 1 && chance(&q->r, 40);
        long m = 1;
        for (int i = 0; i < rank; i++) {
            int d = rev ? i : rank - 1 - i;
            emap[d] = m;
            m *= count[d] > 0 ? count[d] : 1;
        }
        /* (a one-byte type has no remainder to divide away) */
        for (int d = 0; d < rank; d++)
            c->imap[d] = emap[d] * (long)tsize(q->vtype[v]) +
                         (chance(&q->r, 15) && tsize(q->vtype[v]) > 1 ? 1 : 0);
    }
    c->outsz = enumerate(q, c, v, c->start, count, kind >= 1 && !(c->nulls & N_C) ? c->stride : NULL,
                         kind == 2 && !(c->nulls & N_D) ? emap : NULL);
    if (c->nulls & N_A && rank > 0) {
        free(c->eoff);
        free(c->elin);
        c->eoff = c->elin = NULL;
        c->nel = 0;
    }
}

/* The netCDF-4 text attribute rewrites netCDF-C gets wrong (length 1 to 0
 * or 0 to 1): 1 when putting (type, len) onto name of varid would be one. */
static int text01_hazard(seq *q, int varid, const char *name, int type, int len)
{
    int otype, olen;
    size_t l;
    if (q->fmt != 4 || type != NC_CHAR || len > 1 || len < 0 ||
        nc_inq_att(q->id[0], varid, name, &otype, &l) != NC_NOERR)
        return 0;
    olen = (int)l;
    /* (through another type too: text of length 1, then a float of none,
     * then text of none comes back as the text of length 1) */
    return (otype == NC_CHAR && olen <= 1 && olen != len) || (otype != NC_CHAR && olen <= 1);
}

/* A variable's _FillValue must have its type and one element: netCDF-C's
 * ncendef and ncclose fail on any other, and its failed ncclose leaves a
 * dangling ncid (doc/v2.md).  0 when (type, len) under name on varid is
 * such a _FillValue. */
static int fill_ok(const seq *q, int varid, const char *name, int type, long len)
{
    return strcmp(name, "_FillValue") != 0 || varid < 0 || varid >= q->nvars ||
           (type == q->vtype[varid] && len == 1);
}

/* Type and length of attribute name of varid in netCDF-C's file; 0 when
 * there is none. */
static int att_of(const seq *q, int varid, const char *name, int *type, long *len)
{
    size_t l;
    if (nc_inq_att(q->id[0], varid, name, type, &l) != NC_NOERR)
        return 0;
    *len = (long)l;
    return 1;
}

/* netCDF-4: a _FillValue for a variable an enddef created, which has none:
 * netCDF-C refuses it but keeps an empty one (doc/v2.md). */
static int late_fill(const seq *q, int varid, const char *name)
{
    int t;
    long l;
    return q->fmt == 4 && strcmp(name, "_FillValue") == 0 && varid >= 0 &&
           varid < q->nvars && (!q->indef || varid < q->created) &&
           !att_of(q, varid, name, &t, &l);
}

/* netCDF-C's netCDF-4 rename of a variable to the name of a dimension
 * (kind 1), or of a dimension to a variable's (kind 0), can crash it
 * (doc/v2.md): 1 when the rename would be one. */
static int nc4_rename_crash(const seq *q, int kind, const char *name)
{
    int id;
    if (q->fmt != 4)
        return 0;
    return kind ? nc_inq_dimid(q->id[0], name, &id) == NC_NOERR
                : nc_inq_varid(q->id[0], name, &id) == NC_NOERR;
}

/* netCDF-C's netCDF-4 rename of a variable (kind 1) or dimension (kind 0)
 * that has the name of a dimension or variable it is not the coordinate
 * of renames the other one (doc/v2.md, bug 15): 1 when the object id is
 * such. */
static int nc4_rename_other(const seq *q, int kind, int id)
{
    char old[NC_MAX_NAME + 1];
    int other, dims[NC_MAX_VAR_DIMS], nd;
    if (q->fmt != 4)
        return 0;
    if (kind) {
        if (nc_inq_varname(q->id[0], id, old) != NC_NOERR ||
            nc_inq_dimid(q->id[0], old, &other) != NC_NOERR)
            return 0;
        return nc_inq_varndims(q->id[0], id, &nd) != NC_NOERR || nd != 1 ||
               nc_inq_vardimid(q->id[0], id, dims) != NC_NOERR || dims[0] != other;
    }
    if (nc_inq_dimname(q->id[0], id, old) != NC_NOERR ||
        nc_inq_varid(q->id[0], old, &other) != NC_NOERR)
        return 0;
    return nc_inq_varndims(q->id[0], other, &nd) != NC_NOERR || nd != 1 ||
           nc_inq_vardimid(q->id[0], other, dims) != NC_NOERR || dims[0] != id;
}

/* netCDF-C's netCDF-4 rename to a name that is not in normalisation form C
 * leaves its name lookup unnormalised: a later definition of the same
 * spelling succeeds, and the file holds two objects of one name (doc/v2.md,
 * bug 11).  netCDF-4 renames go to the composed spelling. */
static void nc4_nfc_rename(const seq *q, char *name)
{
    if (q->fmt == 4 && strcmp(name, "cafe\xcc\x81") == 0)
        strcpy(name, "caf\xc3\xa9");
}

/* netCDF-C's classic rename in data mode to a shorter name keeps the old
 * length (the file then holds the new name padded with NULs to it), and
 * its ncattdel no longer finds such an attribute (doc/v2.md).  Renames in
 * data mode go to names as long as the old one, or longer (an error). */
static void no_shorter(const seq *q, const char *old, char *name)
{
    size_t lo = strlen(old), ln = strlen(name);
    int ascii = 1;
    if (q->fmt == 4 || q->indef || !q->open || ln == 0 || lo > NC_MAX_NAME)
        return;
    for (const char *p = name; *p; p++)
        ascii &= (unsigned char)*p < 0x80;
    /* normalisation can shorten a name that is not ASCII */
    if (!ascii)
        strcpy(name, "r"), ln = 1;
    if (ln >= lo)
        return;
    memset(name + ln, '_', lo - ln);
    name[lo] = '\0';
}

static void gen_call(seq *q, call *c)
{
    memset(c, 0, sizeof *c);
    c->evar = -1;
    if (!q->open) {
        /* closed: mostly reopen or recreate, sometimes a call on the dead id */
        int p = below(&q->r, 100);
        c->op = p < 70 && q->exists ? OP_OPEN : p < 88 ? OP_CREATE : 2 + below(&q->r, OP_N - 2);
    } else {
        int total = 0, p;
        for (int o = 0; o < OP_N; o++)
            total += op_weight[o];
        p = below(&q->r, total);
        for (c->op = 0; p >= op_weight[c->op]; c->op++)
            p -= op_weight[c->op];
        /* netCDF-C loses data-mode header changes not yet written at an
         * ncredef: NC_SHARE re-reads the header, and a later ncabort
         * restores nothing (doc/v2.md).  Sync first. */
        /* data calls without a variable are mostly variables to come */
        if (q->nvars == 0 && c->op >= OP_PUT1 && c->op <= OP_RECINQ && chance(&q->r, 80))
            c->op = q->indef ? OP_VARDEF : OP_REDEF;
        if (c->op == OP_REDEF && q->hdirty && !q->indef)
            c->op = OP_SYNC;
    }
    c->ncid = q->open ? pick_ncid(q) : S_CUR;
    switch (c->op) {
    case OP_CREATE:
        c->mode = fmt_cmode(q->fmt) | (chance(&q->r, 20) ? NC_SHARE : 0);
        if (q->open || (q->exists && chance(&q->r, 10)))
            c->mode |= NC_NOCLOBBER;
        if (chance(&q->r, 4))
            c->mode |= below(&q->r, 2) ? NC_64BIT_OFFSET | NC_64BIT_DATA : NC_NETCDF4 | NC_64BIT_OFFSET;
        break;
    case OP_OPEN:
        c->mode = (chance(&q->r, 75) ? NC_WRITE : NC_NOWRITE) | (chance(&q->r, 20) ? NC_SHARE : 0);
        /* a second open of a file another handle is defining has no
         * defined content: while open, only a path that does not exist */
        c->badpath = q->open || chance(&q->r, 4);
        break;
    case OP_SETFILL:
        c->mode = chance(&q->r, 5) ? 7 : chance(&q->r, 50) ? NC_NOFILL : NC_FILL;
        break;
    case OP_INQUIRE:
        c->nulls = chance(&q->r, 30) ? below(&q->r, 16) : 0;
        break;
    case OP_DIMDEF:
        if (q->ndims >= MAXD) {
            c->op = OP_DIMINQ;
            c->dimid = below(&q->r, q->ndims);
            break;
        }
        pick_name(q, c->name, 8);
        /* netCDF-C's netCDF-4 enddef fails with NC_EHDFERR once a new
         * dimension has an existing variable's name (doc/chunking.md) */
        if (nc4_rename_crash(q, 0, c->name))
            strcpy(c->name, "dnew");
        c->llen = (q->unlim < 0 || chance(&q->r, 5)) && chance(&q->r, 40) ? 0 : 1 + below(&q->r, 5);
        if (chance(&q->r, 4))
            /* just above the format's largest length; CDF-5 and
             * netCDF-4 have none a test file can afford */
            c->llen = below(&q->r, 2) || q->fmt > 2 ? -1 : (q->fmt == 1 ? 2147483645L : 4294967293L);
        break;
    case OP_DIMID:
        existing_name(q, 0, 0, c->name);
        break;
    case OP_DIMINQ:
    case OP_DIMRENAME:
        c->dimid = chance(&q->r, 8) ? (below(&q->r, 2) ? -1 : q->ndims) : below(&q->r, q->ndims);
        c->nulls = chance(&q->r, 20) ? below(&q->r, 4) : 0;
        if (c->op == OP_DIMRENAME) {
            pick_name(q, c->name, 8);
            nc4_nfc_rename(q, c->name);
        }
        if (c->op == OP_DIMRENAME &&
            (nc4_rename_crash(q, 0, c->name) || nc4_rename_other(q, 0, c->dimid)))
            c->op = OP_DIMINQ;
        if (c->op == OP_DIMRENAME) {
            char old[NC_MAX_NAME + 1];
            if (nc_inq_dimname(q->id[0], c->dimid, old) == NC_NOERR)
                no_shorter(q, old, c->name);
        }
        break;
    case OP_VARDEF:
        if (q->nvars >= MAXV) {
            c->op = OP_VARINQ;
            c->varid = below(&q->r, q->nvars);
            break;
        }
        pick_name(q, c->name, 8);
        c->xtype = pick_type(q);
        c->ndims = q->ndims > 0 ? below(&q->r, (q->ndims < MAXR ? q->ndims : MAXR) + 1) : 0;
        for (int d = 0; d < c->ndims; d++)
            c->dimids[d] = below(&q->r, q->ndims);
        /* the record dimension first, mostly */
        if (q->unlim >= 0 && chance(&q->r, 50) && c->ndims > 0) {
            for (int d = 0; d < c->ndims; d++)
                if (c->dimids[d] == q->unlim)
                    c->dimids[d] = c->dimids[0];
            c->dimids[0] = q->unlim;
        } else if (q->unlim >= 0 && chance(&q->r, 85)) {
            for (int d = 1; d < c->ndims; d++)
                if (c->dimids[d] == q->unlim)
                    c->dimids[d] = c->dimids[0] == q->unlim ? 0 : c->dimids[0];
        }
        if (chance(&q->r, 4))
            c->ndims = below(&q->r, 2) ? -1 : c->ndims;
        if (chance(&q->r, 4) && c->ndims > 0)
            c->dimids[below(&q->r, c->ndims)] = below(&q->r, 2) ? -1 : q->ndims;
        break;
    case OP_VARID:
        existing_name(q, 1, 0, c->name);
        break;
    case OP_VARINQ:
        c->varid = pick_varid(q, 0);
        c->nulls = chance(&q->r, 30) ? below(&q->r, 32) : 0;
        break;
    case OP_VARRENAME:
        c->varid = pick_varid(q, 0);
        pick_name(q, c->name, 8);
        nc4_nfc_rename(q, c->name);
        if (nc4_rename_crash(q, 1, c->name) || nc4_rename_other(q, 1, c->varid))
            c->op = OP_VARINQ;
        {
            char old[NC_MAX_NAME + 1];
            if (nc_inq_varname(q->id[0], c->varid, old) == NC_NOERR)
                no_shorter(q, old, c->name);
        }
        break;
    case OP_PUT1:
    case OP_GET1: {
        int v;
        c->varid = pick_varid(q, 0);
        v = c->varid >= 0 && c->varid < q->nvars ? c->varid : -1;
        if (v < 0) {
            c->outsz = c->datasz = 16;
            break;
        }
        gen_slab(q, c, v, c->op == OP_PUT1, 0);
        for (int d = 0; d < q->vndims[v]; d++)
            if (c->count[d] <= 0 && c->start[d] >= 0 && chance(&q->r, 50))
                c->start[d]++; /* an index just past the slab's range */
        free(c->eoff);
        free(c->elin);
        c->eoff = c->elin = NULL;
        c->nulls &= N_A;
        {
            long one[NC_MAX_VAR_DIMS] = { 0 };
            for (int d = 0; d < q->vndims[v]; d++)
                one[d] = 1;
            c->outsz = enumerate(q, c, v, c->start, one, NULL, NULL);
        }
        if (c->nulls & N_A && q->vndims[v] > 0)
            c->nel = 0;
        c->datasz = c->outsz;
        break;
    }
    case OP_PUT: case OP_GET: case OP_PUTS: case OP_GETS: case OP_PUTG: case OP_GETG: {
        int kind = c->op <= OP_GET ? 0 : c->op <= OP_GETS ? 1 : 2;
        int put = c->op == OP_PUT || c->op == OP_PUTS || c->op == OP_PUTG;
        c->varid = pick_varid(q, 0);
        if (c->varid < 0 || c->varid >= q->nvars) {
            c->outsz = c->datasz = 64;
            for (int d = 0; d < MAXR; d++)
                c->count[d] = 1, c->stride[d] = 1, c->imap[d] = 4;
            break;
        }
        gen_slab(q, c, c->varid, put, kind);
        c->datasz = c->outsz;
        break;
    }
    case OP_RECPUT:
    case OP_RECGET: {
        long numrecs = q->unlim >= 0 ? cur_len(q, q->unlim) : 0;
        int put = c->op == OP_RECPUT;
        c->recnum = below(&q->r, (int)(put ? (numrecs + 2 < MAXREC ? numrecs + 2 : MAXREC) : numrecs + 1));
        if (chance(&q->r, 4))
            c->recnum = below(&q->r, 2) ? -1 : numrecs + 1;
        c->nrec = 0;
        for (int v = 0; v < q->nvars; v++) {
            if (!is_recvar(q, v))
                continue;
            c->recvar[c->nrec] = v;
            c->recsz[c->nrec] = chance(&q->r, 25) ? 0 : inner_elems(q, v) * tsize(q->vtype[v]);
            c->nrec++;
        }
        /* netCDF-C's ncrecput and ncrecget leave the start of dimensions
         * past the number of record variables uninitialised (doc/v2.md) */
        for (int i = 0; i < c->nrec; i++)
            if (q->vndims[c->recvar[i]] > c->nrec) {
                for (int j = 0; j < c->nrec; j++)
                    free(c->recdata[j]);
                c->nrec = 0;
                c->op = OP_RECINQ;
                break;
            }
        break;
    }
    case OP_RECINQ:
        c->nulls = chance(&q->r, 30) ? below(&q->r, 8) : 0;
        break;
    case OP_ATTPUT: {
        int big = chance(&q->r, 3);
        c->varid = pick_varid(q, 1);
        if (chance(&q->r, 50))
            existing_name(q, 2, c->varid, c->name);
        else
            pick_name(q, c->name, 6);
        c->xtype = chance(&q->r, 40) ? NC_CHAR : pick_type(q);
        /* netCDF-C's netCDF-4 refusal of a negative type leaves an
         * attribute behind that fails its enddef and close with
         * NC_EHDFERR (doc/v2.md, bug 13) */
        if (q->fmt == 4 && c->xtype < 0)
            c->xtype = 0;
        c->len = big ? BIGA : below(&q->r, 2) ? below(&q->r, 3) : below(&q->r, c->xtype == NC_CHAR ? 40 : 9);
        if (chance(&q->r, 3))
            c->len = -1;
        if (chance(&q->r, 5) && c->varid >= 0 && c->varid < q->nvars) {
            /* _FillValue of the variable's type (the wrong type is a
             * known difference, doc/v2.md) */
            strcpy(c->name, "_FillValue");
            c->xtype = q->vtype[c->varid];
            c->len = 1;
        }
        if (!fill_ok(q, c->varid, c->name, c->xtype, c->len)) {
            c->xtype = q->vtype[c->varid];
            c->len = 1;
        }
        if (text01_hazard(q, c->varid, c->name, c->xtype, c->len))
            c->len = 2;
        if (late_fill(q, c->varid, c->name))
            strcpy(c->name, "FillValue");
        {
            int t;
            long l;
            c->recreate = q->fmt == 4 && att_of(q, c->varid, c->name, &t, &l);
        }
        c->datasz = c->len > 0 && tsize(c->xtype) ? (size_t)c->len * tsize(c->xtype) : 8;
        break;
    }
    case OP_ATTINQ:
    case OP_ATTGET:
    case OP_ATTDEL:
        c->varid = pick_varid(q, 1);
        existing_name(q, 2, c->varid, c->name);
        c->nulls = chance(&q->r, 20) ? below(&q->r, 4) : 0;
        /* netCDF-C's netCDF-4 variables keep filling with a deleted
         * _FillValue (doc/v2.md, bug 14) */
        if (c->op == OP_ATTDEL && q->fmt == 4 && strcmp(c->name, "_FillValue") == 0)
            c->op = OP_ATTINQ;
        /* a netCDF-4 attribute rewritten in this period and deleted comes
         * back with its old value (doc/v2.md, bug 12) */
        if (c->op == OP_ATTDEL && q->att_recreated)
            c->op = OP_ATTINQ;
        /* netCDF-C's netCDF-4 ncattdel does not normalise the name it is
         * given (bug 11) */
        if (c->op == OP_ATTDEL)
            nc4_nfc_rename(q, c->name);
        if (c->op == OP_ATTGET) {
            int t;
            size_t l;
            c->outsz = 16;
            if (nc_inq_att(q->id[0], c->varid, c->name, &t, &l) == NC_NOERR)
                c->outsz = l * tsize(t) + 16;
        }
        break;
    case OP_ATTCOPY: {
        int t;
        long l;
        c->varid = pick_varid(q, 1);
        existing_name(q, 2, c->varid, c->name);
        c->ncid2 = chance(&q->r, 95) ? c->ncid : pick_ncid(q);
        c->varid2 = chance(&q->r, 30) ? c->varid : pick_varid(q, 1);
        if (att_of(q, c->varid, c->name, &t, &l) &&
            (!fill_ok(q, c->varid2, c->name, t, l) || text01_hazard(q, c->varid2, c->name, t, (int)l) ||
             late_fill(q, c->varid2, c->name)))
            c->op = OP_ATTINQ;
        c->recreate = q->fmt == 4 && att_of(q, c->varid2, c->name, &t, &l);
        /* netCDF-C's netCDF-4 copy onto an attribute of a variable that has
         * a _FillValue, once an enddef has created it, can fail with
         * NC_ELATEFILL (doc/v2.md, bug 21) */
        if (c->recreate && c->varid2 >= 0 && c->varid2 < q->nvars &&
            (!q->indef || c->varid2 < q->created) && att_of(q, c->varid2, "_FillValue", &t, &l))
            c->op = OP_ATTINQ;
        break;
    }
    case OP_ATTNAME:
        c->varid = pick_varid(q, 1);
        {
            int n = c->varid == NC_GLOBAL ? q->ngatts
                  : c->varid >= 0 && c->varid < q->nvars ? q->vnatts[c->varid] : 1;
            c->attnum = below(&q->r, n + 2) - (chance(&q->r, 10) ? 1 : 0);
        }
        break;
    case OP_ATTRENAME:
        c->varid = pick_varid(q, 1);
        existing_name(q, 2, c->varid, c->name);
        if (chance(&q->r, 20))
            existing_name(q, 2, c->varid, c->name2);
        else
            pick_name(q, c->name2, 8);
        nc4_nfc_rename(q, c->name2);
        /* netCDF-C's netCDF-4 rename of an attribute rewritten in the same
         * definition period (or data-mode period) leaves the old one in the
         * file under its old name (doc/v2.md, bug 12) */
        if (q->att_recreated)
            c->op = OP_ATTINQ;
        /* a _FillValue renamed away is deleted: bug 14 */
        if (q->fmt == 4 && strcmp(c->name, "_FillValue") == 0)
            c->op = OP_ATTINQ;
        {
            int t;
            long l;
            if (att_of(q, c->varid, c->name, &t, &l) && !fill_ok(q, c->varid, c->name2, t, l))
                c->op = OP_ATTINQ;
        }
        no_shorter(q, c->name, c->name2);
        break;
    case OP_TYPELEN:
        c->xtype = below(&q->r, 15) - 1;
        break;
    default:
        break;
    }
    if (c->datasz) {
        int t = c->op == OP_ATTPUT ? c->xtype : c->evar >= 0 ? q->vtype[c->evar] : NC_BYTE;
        c->data = malloc(c->datasz);
        fill_random(q, c->data, c->datasz, t);
    }
    for (int i = 0; i < c->nrec; i++) {
        c->recdata[i] = c->recsz[i] ? malloc(c->recsz[i]) : NULL;
        if (c->recdata[i])
            fill_random(q, c->recdata[i], c->recsz[i], q->vtype[c->recvar[i]]);
    }
}

static void free_call(call *c)
{
    free(c->data);
    free(c->eoff);
    free(c->elin);
    for (int i = 0; i < c->nrec; i++)
        free(c->recdata[i]);
}

/* ---- describing a call ----------------------------------------------------------- */
static void append(char *buf, size_t n, const char *fmt, ...)
{
    size_t l = strlen(buf);
    va_list ap;
    if (l + 1 >= n)
        return;
    va_start(ap, fmt);
    vsnprintf(buf + l, n - l, fmt, ap);
    va_end(ap);
}

static void append_name(char *buf, size_t n, const char *name)
{
    size_t len = strlen(name);
    if (len > 40) {
        append(buf, n, "\"%c...\"(%zu chars)", name[0], len);
        return;
    }
    append(buf, n, "\"");
    for (const unsigned char *p = (const unsigned char *)name; *p; p++)
        append(buf, n, *p < 32 || *p >= 127 ? "\\x%02x" : "%c", *p);
    append(buf, n, "\"");
}

static void append_longs(char *buf, size_t n, const char *what, const long *v, int rank, int null)
{
    append(buf, n, ", %s=", what);
    if (null) {
        append(buf, n, "NULL");
        return;
    }
    append(buf, n, "[");
    for (int d = 0; d < rank; d++)
        append(buf, n, d ? ",%ld" : "%ld", v[d]);
    append(buf, n, "]");
}

static void describe(const seq *q, const call *c, char *buf, size_t n)
{
    char idb[16];
    int rank = c->evar >= 0 ? q->vndims[c->evar] : 1;
    buf[0] = '\0';
    append(buf, n, "%s(", op_names[c->op]);
    switch (c->op) {
    case OP_CREATE:
        append(buf, n, "path, cmode=0x%x)", c->mode);
        return;
    case OP_OPEN:
        append(buf, n, "%s, mode=0x%x)", c->badpath ? "missing path" : "path", c->mode);
        return;
    case OP_TYPELEN:
        append(buf, n, "%d)", c->xtype);
        return;
    default:
        break;
    }
    append(buf, n, "ncid=%s", ncid_str(c->ncid, idb, sizeof idb));
    switch (c->op) {
    case OP_SETFILL: append(buf, n, ", 0x%x", c->mode); break;
    case OP_INQUIRE: case OP_RECINQ: append(buf, n, ", nulls=0x%x", c->nulls); break;
    case OP_DIMDEF: append(buf, n, ", "); append_name(buf, n, c->name); append(buf, n, ", %ld", c->llen); break;
    case OP_DIMID: case OP_VARID: append(buf, n, ", "); append_name(buf, n, c->name); break;
    case OP_DIMINQ: append(buf, n, ", dimid=%d, nulls=0x%x", c->dimid, c->nulls); break;
    case OP_DIMRENAME: append(buf, n, ", dimid=%d, ", c->dimid); append_name(buf, n, c->name); break;
    case OP_VARDEF:
        append(buf, n, ", ");
        append_name(buf, n, c->name);
        append(buf, n, ", type=%d, ndims=%d, dimids=[", c->xtype, c->ndims);
        for (int d = 0; d < c->ndims; d++)
            append(buf, n, d ? ",%d" : "%d", c->dimids[d]);
        append(buf, n, "]");
        break;
    case OP_VARINQ: append(buf, n, ", varid=%d, nulls=0x%x", c->varid, c->nulls); break;
    case OP_VARRENAME: append(buf, n, ", varid=%d, ", c->varid); append_name(buf, n, c->name); break;
    case OP_PUT1: case OP_GET1:
        append(buf, n, ", varid=%d", c->varid);
        append_longs(buf, n, "index", c->start, rank, c->nulls & N_A);
        break;
    case OP_PUT: case OP_GET: case OP_PUTS: case OP_GETS: case OP_PUTG: case OP_GETG:
        append(buf, n, ", varid=%d", c->varid);
        append_longs(buf, n, "start", c->start, rank, c->nulls & N_A);
        append_longs(buf, n, "count", c->count, rank, c->nulls & N_B);
        if (c->op >= OP_PUTS)
            append_longs(buf, n, "stride", c->stride, rank, c->nulls & N_C);
        if (c->op >= OP_PUTG)
            append_longs(buf, n, "imap", c->imap, rank, c->nulls & N_D);
        break;
    case OP_RECPUT: case OP_RECGET:
        append(buf, n, ", recnum=%ld, slots=[", c->recnum);
        for (int i = 0; i < c->nrec; i++)
            append(buf, n, i ? ",%s" : "%s", c->recsz[i] ? "buf" : "NULL");
        append(buf, n, "]");
        break;
    case OP_ATTPUT:
        append(buf, n, ", varid=%d, ", c->varid);
        append_name(buf, n, c->name);
        append(buf, n, ", type=%d, len=%d", c->xtype, c->len);
        break;
    case OP_ATTINQ: case OP_ATTGET: case OP_ATTDEL:
        append(buf, n, ", varid=%d, ", c->varid);
        append_name(buf, n, c->name);
        break;
    case OP_ATTCOPY:
        append(buf, n, ", varid=%d, ", c->varid);
        append_name(buf, n, c->name);
        append(buf, n, ", ncid_out=%s, varid_out=%d", ncid_str(c->ncid2, idb, sizeof idb), c->varid2);
        break;
    case OP_ATTNAME: append(buf, n, ", varid=%d, attnum=%d%s", c->varid, c->attnum, c->nulls ? ", NULL" : ""); break;
    case OP_ATTRENAME:
        append(buf, n, ", varid=%d, ", c->varid);
        append_name(buf, n, c->name);
        append(buf, n, ", ");
        append_name(buf, n, c->name2);
        break;
    default: break;
    }
    append(buf, n, ")");
}

static int copy_file(const char *from, const char *to);

/* netCDF-4: an ncabort of the current file, opened (not created and still
 * in its first define mode), whose result netCDF-C gets wrong. */
static int nc4_abort_emulated(const seq *q, const call *c)
{
    return q->fmt == 4 && c->op == OP_ABORT && c->ncid == S_CUR && q->open && q->writable &&
           (!q->indef || q->redef);
}

/* ---- running a call in one library --------------------------------------------------- */
static void run(seq *q, int li, const call *c, result *r)
{
    const v2lib *L = lib[li];
    int id = resolve(q, li, c->ncid);
    const long *st = c->nulls & N_A ? NULL : c->start;
    const long *cn = c->nulls & N_B ? NULL : c->count;
    const long *sd = c->nulls & N_C ? NULL : c->stride;
    const long *mp = c->nulls & N_D ? NULL : c->imap;
    int *ia = c->nulls & N_A ? NULL : &r->iv[0];
    int *ib = c->nulls & N_B ? NULL : &r->iv[1];
    int *ic = c->nulls & N_C ? NULL : &r->iv[2];
    int *idd = c->nulls & N_D ? NULL : &r->iv[3];
    memset(r, 0, sizeof *r);
    memset(r->iv, 0x5a, sizeof r->iv);
    memset(r->ids, 0x5a, sizeof r->ids);
    memset(r->sizes, 0x5a, sizeof r->sizes);
    memset(r->name, 'Z', sizeof r->name - 1);
    r->name[sizeof r->name - 1] = '\0';
    r->lv = -777;
    if (c->outsz) {
        r->buf = malloc(c->outsz);
        memset(r->buf, 0xa5, c->outsz);
    }
    *L->ncerr = 0;
    *L->ncopts = 0;
    switch (c->op) {
    case OP_CREATE: r->rc = L->nccreate(q->path[li], c->mode); break;
    case OP_OPEN: r->rc = L->ncopen(c->badpath ? q->nopath : q->path[li], c->mode); break;
    case OP_REDEF: r->rc = L->ncredef(id); break;
    case OP_ENDEF: r->rc = L->ncendef(id); break;
    case OP_CLOSE: r->rc = L->ncclose(id); break;
    case OP_ABORT:
        if (li == 0 && nc4_abort_emulated(q, c)) {
            /* the documented result (doc/v2.md, netCDF-C bug 10): in data
             * mode an abort is a close; a redefinition is undone */
            if (!q->indef) {
                r->rc = L->ncclose(id);
                q->counts[K_NC4ABORT]++;
                break;
            }
            r->rc = L->ncabort(id);
            if (r->rc != -1 && copy_file(q->snap, q->path[0]) != 0)
                r->rc = -2;
            q->counts[K_NC4ABORT]++;
            break;
        }
        r->rc = L->ncabort(id);
        break;
    case OP_SYNC: r->rc = L->ncsync(id); break;
    case OP_INQUIRE: r->rc = L->ncinquire(id, ia, ib, ic, idd); break;
    case OP_SETFILL: r->rc = L->ncsetfill(id, c->mode); break;
    case OP_DIMDEF: r->rc = L->ncdimdef(id, c->name, c->llen); break;
    case OP_DIMID: r->rc = L->ncdimid(id, c->name); break;
    case OP_DIMINQ:
        r->rc = L->ncdiminq(id, c->dimid, c->nulls & N_A ? NULL : r->name,
                            c->nulls & N_B ? NULL : &r->lv);
        break;
    case OP_DIMRENAME: r->rc = L->ncdimrename(id, c->dimid, c->name); break;
    case OP_VARDEF: r->rc = L->ncvardef(id, c->name, c->xtype, c->ndims, c->dimids); break;
    case OP_VARID: r->rc = L->ncvarid(id, c->name); break;
    case OP_VARINQ:
        r->rc = L->ncvarinq(id, c->varid, c->nulls & N_A ? NULL : r->name, ib, ic,
                            c->nulls & N_D ? NULL : r->ids, c->nulls & N_E ? NULL : &r->iv[3]);
        break;
    case OP_VARRENAME: r->rc = L->ncvarrename(id, c->varid, c->name); break;
    case OP_PUT1: r->rc = L->ncvarput1(id, c->varid, st, c->data); break;
    case OP_GET1: r->rc = L->ncvarget1(id, c->varid, st, r->buf); break;
    case OP_PUT: r->rc = L->ncvarput(id, c->varid, st, cn, c->data); break;
    case OP_GET: r->rc = L->ncvarget(id, c->varid, st, cn, r->buf); break;
    case OP_PUTS: r->rc = L->ncvarputs(id, c->varid, st, cn, sd, c->data); break;
    case OP_GETS: r->rc = L->ncvargets(id, c->varid, st, cn, sd, r->buf); break;
    case OP_PUTG: r->rc = L->ncvarputg(id, c->varid, st, cn, sd, mp, c->data); break;
    case OP_GETG: r->rc = L->ncvargetg(id, c->varid, st, cn, sd, mp, r->buf); break;
    case OP_RECPUT: {
        void *slots[MAXV + 1];
        for (int i = 0; i < c->nrec; i++)
            slots[i] = c->recdata[i];
        r->rc = L->ncrecput(id, c->recnum, slots);
        break;
    }
    case OP_RECGET: {
        void *slots[MAXV + 1];
        for (int i = 0; i < c->nrec; i++) {
            r->recbuf[i] = c->recsz[i] ? malloc(c->recsz[i]) : NULL;
            if (r->recbuf[i])
                memset(r->recbuf[i], 0xa5, c->recsz[i]);
            slots[i] = r->recbuf[i];
        }
        r->rc = L->ncrecget(id, c->recnum, slots);
        break;
    }
    case OP_RECINQ:
        r->rc = L->ncrecinq(id, ia, c->nulls & N_B ? NULL : r->ids,
                            c->nulls & N_C ? NULL : r->sizes);
        break;
    case OP_ATTPUT: r->rc = L->ncattput(id, c->varid, c->name, c->xtype, c->len, c->data); break;
    case OP_ATTINQ: r->rc = L->ncattinq(id, c->varid, c->name, ia, ib); break;
    case OP_ATTGET: r->rc = L->ncattget(id, c->varid, c->name, r->buf); break;
    case OP_ATTCOPY:
        r->rc = L->ncattcopy(id, c->varid, c->name, resolve(q, li, c->ncid2), c->varid2);
        break;
    case OP_ATTNAME: r->rc = L->ncattname(id, c->varid, c->attnum, c->nulls ? NULL : r->name); break;
    case OP_ATTRENAME: r->rc = L->ncattrename(id, c->varid, c->name, c->name2); break;
    case OP_ATTDEL: r->rc = L->ncattdel(id, c->varid, c->name); break;
    case OP_TYPELEN: r->rc = L->nctypelen(c->xtype); break;
    default: break;
    }
    r->err = *L->ncerr;
}

static void free_result(result *r)
{
    free(r->buf);
    for (int i = 0; i < MAXV; i++)
        free(r->recbuf[i]);
}

/* ---- written elements ------------------------------------------------------------ */
static void mark(seq *q, int v, size_t lin)
{
    if (v >= 0 && v < MAXV && lin < WBITS)
        q->wmap[v][lin / 8] |= (unsigned char)(1u << (lin % 8));
}

/* An element with no defined content: the file has been in nofill mode and
 * no put wrote it. */
static int undefined(const seq *q, int v, size_t lin)
{
    if (!q->ever_nofill)
        return 0;
    if (v < 0 || v >= MAXV || lin >= WBITS)
        return 1;
    return !(q->wmap[v][lin / 8] & (1u << (lin % 8)));
}

static void mark_call(seq *q, const call *c)
{
    switch (c->op) {
    case OP_PUT1: case OP_PUT: case OP_PUTS: case OP_PUTG:
        for (size_t k = 0; k < c->nel; k++)
            mark(q, c->evar, c->elin[k]);
        break;
    case OP_RECPUT:
        for (int i = 0; i < c->nrec; i++)
            if (c->recsz[i]) {
                size_t n = inner_elems(q, c->recvar[i]);
                for (size_t k = 0; k < n; k++)
                    mark(q, c->recvar[i], (size_t)c->recnum * n + k);
            }
        break;
    default:
        break;
    }
}

/* ---- comparing results ---------------------------------------------------------- */
/* 0 when the two read buffers are equal; 1 when they differ only in
 * elements without defined content (*nofill set); -1 otherwise. */
static int cmp_elems(const seq *q, int v, const unsigned char *a, const unsigned char *b,
                     size_t n, const size_t *eoff, const size_t *elin, size_t nel, size_t esz,
                     int *nofill)
{
    size_t i;
    if (memcmp(a, b, n) == 0)
        return 0;
    for (i = 0; i < n; i++) {
        size_t k;
        if (a[i] == b[i])
            continue;
        for (k = 0; k < nel; k++)
            if (i >= eoff[k] && i < eoff[k] + esz)
                break;
        if (k == nel || !undefined(q, v, elin[k]))
            return -1;
    }
    *nofill = 1;
    return 1;
}

/* A strided or mapped call with a start of -1: netCDF-C's classic strided
 * writes on a record variable return 0 for it having written nothing (the
 * request wraps past 2^64), its netCDF-4 writes (any of them, at record
 * start -1) fail in HDF5 and grow the record count all the same; ncslab
 * refuses them (NC_EINVALCOORDS, or the mode's error first, which
 * netCDF-C's classic calls never reach). */
static int huge_start(const seq *q, const call *c)
{
    if (c->op < OP_PUTS || c->op > OP_GETG || (c->nulls & N_A) || c->evar < 0)
        return 0;
    for (int d = 0; d < q->vndims[c->evar]; d++)
        if (c->start[d] == -1)
            return 1;
    return 0;
}

static int is_mode_err(int e)
{
    return e == NC_EINDEFINE || e == NC_ENOTINDEFINE || e == NC_ELATEFILL;
}

/* netCDF-4: 1 when a variable has a dimension's name but is not that
 * dimension's one-dimensional coordinate variable (issue 15 items 1, 2). */
static int nc4_noncoord(const seq *q)
{
    if (q->fmt != 4 || !q->open)
        return 0;
    for (int v = 0; v < q->nvars; v++) {
        char name[NC_MAX_NAME + 1];
        int d;
        if (nc_inq_varname(q->id[0], v, name) == NC_NOERR &&
            nc_inq_dimid(q->id[0], name, &d) == NC_NOERR &&
            !(q->vndims[v] == 1 && q->vdims[v][0] == d))
            return 1;
    }
    return 0;
}

/* The class of a difference in error codes that item 13 of issue 15 lists,
 * or K_OTHER. */
static int classify_errors(const seq *q, const call *c, const result *a, const result *b)
{
    int ea = a->rc == -1 ? a->err : 0, eb = b->rc == -1 ? b->err : 0;
    int badvar = c->varid < 0 || c->varid >= q->nvars;
    if (huge_start(q, c) && (eb == NC_EINVALCOORDS || eb == NC_EINDEFINE || eb == NC_EPERM) &&
        (c->op == OP_PUTS || c->op == OP_PUTG) && (q->fmt == 4 ? ea == NC_EHDFERR : a->rc != -1))
        return K_HUGESTART;
    if (q->fmt == 4 && c->op == OP_RECPUT && c->recnum == -1 && ea == NC_EHDFERR &&
        eb == NC_EINVALCOORDS)
        return K_HUGESTART;
    if (q->fmt == 4 && (c->op == OP_PUT || c->op == OP_PUT1) && ea == NC_EHDFERR &&
        eb == NC_EINVALCOORDS && c->varid >= 0 && c->varid < q->nvars && !(c->nulls & N_A) &&
        q->vndims[c->varid] > 0 && c->start[0] == -1)
        return K_HUGESTART;
    if (!q->writable && eb == NC_ETRUNC && a->rc != -1)
        return K_SHORTREAD;
    if ((c->op == OP_PUT1 || c->op == OP_GET1) && q->fmt != 4 && badvar && eb == NC_ENOTVAR &&
        (ea == NC_EINDEFINE || (ea == NC_EPERM && c->op == OP_PUT1)))
        return K_PRECEDENCE;
    /* netCDF-C's copy onto the same variable returns before it looks */
    if (c->op == OP_ATTCOPY && a->rc == 0 && b->rc == -1 && c->ncid == c->ncid2 &&
        c->varid == c->varid2)
        return K_PRECEDENCE;
    if (c->op == OP_ATTCOPY && ea == NC_EBADID && (eb == NC_ENOTATT || eb == NC_ENOTVAR))
        return K_ATTPREC;
    if (c->op == OP_ATTDEL && ea == NC_EBADNAME && eb == NC_ENOTATT)
        return K_ATTPREC;
    if (q->fmt != 4)
        return K_OTHER;
    if (c->op == OP_VARDEF && a->rc != -1 && eb == NC_EUNLIMPOS)
        return K_NC4UNLIM;
    if (c->op == OP_VARRENAME && ea == NC_EHDFERR && b->rc != -1 &&
        ((q->indef && q->created < q->nvars && c->varid < q->created) || q->noncoord ||
         nc4_noncoord(q)))
        return K_NC4RENAME;
    if (!q->writable && ea == NC_EHDFERR && eb == NC_EPERM &&
        (c->op == OP_PUT1 || c->op == OP_PUT || c->op == OP_PUTS || c->op == OP_PUTG ||
         c->op == OP_RECPUT))
        return K_NC4PERM;
    if ((ea == NC_EHDFERR || eb == NC_EHDFERR) && (q->noncoord || nc4_noncoord(q)))
        return K_NONCOORD;
    if (ea == NC_EBADNAME && eb == NC_EMAXNAME)
        return K_PRECEDENCE;
    if (is_mode_err(ea) != is_mode_err(eb) && (ea == 0 || eb == 0))
        return K_NC4MODE;
    if (c->op == OP_ATTDEL && ea == NC_EPERM && eb == NC_ENOTINDEFINE)
        return K_PRECEDENCE;
    if ((c->op == OP_VARDEF || c->op == OP_ATTPUT) && eb == NC_EBADTYPE &&
        (ea == NC_ESTRICTNC3 || ea == NC_EINVAL))
        return K_PRECEDENCE;
    if ((c->op == OP_GET || c->op == OP_GETS || c->op == OP_GETG || c->op == OP_GET1 ||
         c->op == OP_RECGET) && ea == NC_EINVALCOORDS && eb == NC_EEDGE)
        return K_PRECEDENCE;
    if (a->rc == -1 && b->rc == -1 && ea != NC_EHDFERR && eb != NC_EHDFERR)
        return K_NC4PREC;
    return K_OTHER;
}

static void print_result(const char *who, const call *c, const result *r)
{
    printf("    %-8s rc=%d ncerr=%d", who, r->rc, r->err);
    switch (c->op) {
    case OP_INQUIRE: case OP_ATTINQ:
        printf(" out=[%d,%d,%d,%d]", r->iv[0], r->iv[1], r->iv[2], r->iv[3]);
        break;
    case OP_DIMINQ:
        printf(" name=\"%.40s\" len=%ld", r->name[0] == 'Z' ? "(untouched)" : r->name, r->lv);
        break;
    case OP_VARINQ:
        printf(" name=\"%.40s\" type=%d ndims=%d natts=%d", r->name[0] == 'Z' ? "(untouched)" : r->name,
               r->iv[1], r->iv[2], r->iv[3]);
        break;
    case OP_ATTNAME:
        printf(" name=\"%.40s\"", r->name[0] == 'Z' ? "(untouched)" : r->name);
        break;
    case OP_RECINQ:
        printf(" n=%d ids=[%d,%d] sizes=[%ld,%ld]", r->iv[0], r->ids[0], r->ids[1], r->sizes[0], r->sizes[1]);
        break;
    default:
        break;
    }
    if (r->buf && c->outsz) {
        printf(" data=");
        for (size_t i = 0; i < c->outsz && i < 24; i++)
            printf("%02x", r->buf[i]);
    }
    putchar('\n');
}

static void report(seq *q, int cls, const char *what, const call *c, const result *a,
                   const result *b)
{
    char desc[600];
    printf("DIFF [%s] seed=%llu format=%s call #%d: %s\n", class_names[cls],
           (unsigned long long)q->seed, fmt_name(q->fmt), q->k, what);
    if (c) {
        describe(q, c, desc, sizeof desc);
        printf("  call: %s\n", desc);
        print_result("netCDF-C", c, a);
        print_result("ncslab", c, b);
    }
    printf("  calls before it:\n");
    for (int i = q->nhist > HIST ? q->nhist - HIST : 0; i < q->nhist; i++)
        printf("    %s\n", q->hist[i % HIST]);
    char calls[32] = "";
    if (ncalls != CALLS)
        snprintf(calls, sizeof calls, " -c %d", ncalls);
    printf("  replay: NCSLAB_SEED=%llu NCSLAB_V2SEQ_FORMAT=%s%s%s NCSLAB_DIFF_TRACE=1 tests/v2/diff_v2seq%s\n",
           (unsigned long long)q->seed, fmt_name(q->fmt), known_list[0] ? " NCSLAB_V2SEQ_KNOWN=" : "",
           known_list, calls);
    fflush(stdout);
}

/* Counts a difference of class cls; returns 1 when it is tolerated (the
 * sequence goes on), 0 when the sequence fails. */
static int difference(seq *q, int cls, const char *what, const call *c, const result *a,
                      const result *b)
{
    q->counts[cls]++;
    /* after a variable order difference the two files' varids no longer
     * name the same variables: nothing later compares */
    /* netCDF-4: netCDF-C's failed write has grown its record count */
    if (((cls == K_VARORDER || cls == K_NONCOORD || cls == K_NC4MODE) && known[cls]) ||
        (cls == K_HUGESTART && q->fmt == 4) || cls == K_NC4UNLIM ||
        cls == K_NC4RENAME || cls == K_NC4VARREN || cls == K_NC4ATTCRT) {
        if (trace)
            printf("  tolerated [%s], sequence ends: %s\n", class_names[cls], what);
        q->stop = 1;
        return 1;
    }
    if (cls == K_NOFILL || cls == K_STALE || cls == K_NC4PERM || cls == K_HUGESTART ||
        cls == K_SHORTREAD || cls == K_NC4VARS ||
        (cls != K_OTHER && known[cls])) {
        if (trace)
            printf("  tolerated [%s]: %s\n", class_names[cls], what);
        return 1;
    }
    report(q, cls, what, c, a, b);
    q->failed = cls;
    return 0;
}

/* Compares the results of one call; 1 when the sequence goes on. */
static int compare(seq *q, const call *c, const result *a, const result *b)
{
    int nofill = 0, rca = a->rc, rcb = b->rc;
    /* the calls that return an ncid: each library's own */
    if ((c->op == OP_CREATE || c->op == OP_OPEN) && rca != -1 && rcb != -1)
        rca = rcb = 0;
    if (c->op == OP_INQUIRE && rca == resolve(q, 0, c->ncid) && rcb == resolve(q, 1, c->ncid))
        rca = rcb = 0;
    if (rca != rcb || a->err != b->err) {
        int cls = classify_errors(q, c, a, b);
        if (cls == K_OTHER && q->varorder)
            cls = K_VARORDER;
        return difference(q, cls, "return value or ncerr differs", c, a, b);
    }
    if (memcmp(a->iv, b->iv, sizeof a->iv) || a->lv != b->lv ||
        memcmp(a->ids, b->ids, sizeof a->ids) || memcmp(a->sizes, b->sizes, sizeof a->sizes) ||
        strcmp(a->name, b->name) != 0) {
        int cls = q->varorder ? K_VARORDER
                : c->op == OP_ATTNAME && q->attorder ? K_ATTORDER : K_OTHER;
        return difference(q, cls, "an output argument differs", c, a, b);
    }
    if (c->outsz && a->rc != -1) {
        int r = cmp_elems(q, c->evar, a->buf, b->buf, c->outsz, c->eoff, c->elin, c->nel,
                          c->esz, &nofill);
        if (r < 0 && nc4_vars_fill(q, c, b->buf))
            return difference(q, K_NC4VARS, "values read differ", c, a, b);
        if (r < 0)
            return difference(q, q->varorder ? K_VARORDER : K_OTHER,
                              "values read differ", c, a, b);
        if (r > 0)
            difference(q, K_NOFILL, "undefined elements differ", c, a, b);
    }
    for (int i = 0; c->op == OP_RECGET && i < c->nrec && a->rc != -1; i++) {
        int v = c->recvar[i];
        size_t n = inner_elems(q, v), esz = tsize(q->vtype[v]);
        size_t *off, *lin;
        int r;
        if (!c->recsz[i] || memcmp(a->recbuf[i], b->recbuf[i], c->recsz[i]) == 0)
            continue;
        off = malloc(n * sizeof *off);
        lin = malloc(n * sizeof *lin);
        for (size_t k = 0; k < n; k++)
            off[k] = k * esz, lin[k] = (size_t)c->recnum * n + k;
        r = cmp_elems(q, v, a->recbuf[i], b->recbuf[i], c->recsz[i], off, lin, n, esz, &nofill);
        free(off);
        free(lin);
        if (r < 0)
            return difference(q, q->varorder ? K_VARORDER : K_OTHER,
                              "record values differ", c, a, b);
        difference(q, K_NOFILL, "undefined record elements differ", c, a, b);
    }
    return 1;
}

/* ---- comparing files ----------------------------------------------------------------- */
/* The classic header's size for the schema of the open netCDF-C file ncid. */
static size_t header_size(int ncid, int fmt)
{
    size_t nn = fmt == 5 ? 8 : 4, sz = 4 + nn;
    int nd, nv, ng, ul;
    char name[NC_MAX_NAME + 1];
#define NAMESZ(s) (nn + ((strlen(s) + 3) & ~(size_t)3))
    if (nc_inq(ncid, &nd, &nv, &ng, &ul) != NC_NOERR)
        return 0;
    sz += 4 + nn;
    for (int d = 0; d < nd; d++) {
        nc_inq_dimname(ncid, d, name);
        sz += NAMESZ(name) + nn;
    }
    for (int v = -1; v < nv; v++) {
        int na = ng, t, vnd;
        sz += v == -1 ? 4 + nn : 0;
        if (v >= 0) {
            nc_inq_var(ncid, v, name, &t, &vnd, NULL, &na);
            sz += NAMESZ(name) + nn + nn * (size_t)vnd + 4 + nn + (fmt == 1 ? 4 : 8);
        }
        sz += 4 + nn;
        for (int a = 0; a < na; a++) {
            size_t len;
            nc_inq_attname(ncid, v, a, name);
            nc_inq_att(ncid, v, name, &t, &len);
            sz += NAMESZ(name) + 4 + nn + ((len * tsize(t) + 3) & ~(size_t)3);
        }
    }
    return sz;
#undef NAMESZ
}

static int zeros(const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i])
            return 0;
    return 1;
}

static int read_file(const char *path, unsigned char **buf, size_t *len);

/* One file is the other cut short, and the other has only zeros past the
 * shorter one's end: in a nofill file, how far a library's buffers reached
 * into elements nobody wrote. */
static int short_by_zeros(const unsigned char *a, size_t la, const unsigned char *b, size_t lb)
{
    return la < lb ? memcmp(a, b, la) == 0 && zeros(b + la, lb - la)
                   : memcmp(a, b, lb) == 0 && zeros(a + lb, la - lb);
}

static int copy_file(const char *from, const char *to)
{
    unsigned char *buf = NULL;
    size_t len = 0;
    FILE *f;
    int status = -1;
    if (read_file(from, &buf, &len) == 0 && (f = fopen(to, "wb")) != NULL) {
        status = fwrite(buf, 1, len, f) == len ? 0 : -1;
        if (fclose(f) != 0)
            status = -1;
    }
    free(buf);
    return status;
}

static int read_file(const char *path, unsigned char **buf, size_t *len)
{
    FILE *f = fopen(path, "rb");
    long n;
    if (!f)
        return -1;
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    *buf = malloc(n > 0 ? (size_t)n : 1);
    *len = fread(*buf, 1, (size_t)n, f);
    fclose(f);
    return 0;
}

/* The attributes of varid of two open files, in order: 0 equal; 1 the same
 * set in another order; -1 otherwise. */
static int cmp_atts(int fa, int fb, int varid, int na, char *why, size_t whysz)
{
    int order = 0;
    for (int i = 0; i < na; i++) {
        char name[NC_MAX_NAME + 1], nb[NC_MAX_NAME + 1];
        int ta, tb;
        size_t la, lb;
        unsigned char *va, *vb;
        int eq;
        nc_inq_attname(fa, varid, i, name);
        nc_inq_attname(fb, varid, i, nb);
        if (strcmp(name, nb) != 0)
            order = 1;
        if (nc_inq_att(fb, varid, name, &tb, &lb) != NC_NOERR) {
            snprintf(why, whysz, "attribute %d:%s missing in ncslab's file", varid, name);
            return -1;
        }
        nc_inq_att(fa, varid, name, &ta, &la);
        if (ta != tb || la != lb) {
            snprintf(why, whysz, "attribute %d:%s type/len %d/%zu vs %d/%zu", varid, name, ta, la, tb, lb);
            return -1;
        }
        va = calloc(la * tsize(ta) + 1, 1);
        vb = calloc(la * tsize(ta) + 1, 1);
        nc_get_att(fa, varid, name, va);
        nc_get_att(fb, varid, name, vb);
        eq = memcmp(va, vb, la * tsize(ta)) == 0;
        free(va);
        free(vb);
        if (!eq) {
            snprintf(why, whysz, "attribute %d:%s values differ", varid, name);
            return -1;
        }
    }
    if (order)
        snprintf(why, whysz, "attributes of varid %d in another order", varid);
    return order;
}

/* 1 when the dataset of variable name in the netCDF-4 file path does not
 * track the creation order of its attributes. */
static int att_order_untracked(const char *path, const char *name)
{
    char stored[NC_MAX_NAME + 32];
    unsigned flags = 1;
    hid_t f, d, p;
    H5E_BEGIN_TRY
    {
        f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
        d = f < 0 ? -1 : H5Dopen2(f, name, H5P_DEFAULT);
        if (f >= 0 && d < 0) {
            snprintf(stored, sizeof stored, "_nc4_non_coord_%s", name);
            d = H5Dopen2(f, stored, H5P_DEFAULT);
        }
    }
    H5E_END_TRY;
    if (d >= 0) {
        p = H5Dget_create_plist(d);
        if (p < 0 || H5Pget_attr_creation_order(p, &flags) < 0)
            flags = 1;
        if (p >= 0)
            H5Pclose(p);
        H5Dclose(d);
    }
    if (f >= 0)
        H5Fclose(f);
    return flags == 0;
}

/* Schema, attributes and values of the two files read through netCDF-C.
 * Returns the class of the difference (K_N when equal); elements without
 * defined content are not compared. */
static int cmp_struct(seq *q, char *why, size_t whysz)
{
    int fa, fb, cls = K_N;
    int nd[2], nv[2], ng[2], ul[2], fm[2];
    if (nc_open(q->path[0], NC_NOWRITE, &fa) != NC_NOERR) {
        snprintf(why, whysz, "netCDF-C cannot open its own file");
        return K_OTHER;
    }
    if (nc_open(q->path[1], NC_NOWRITE, &fb) != NC_NOERR) {
        nc_close(fa);
        snprintf(why, whysz, "netCDF-C cannot open ncslab's file");
        return K_OTHER;
    }
    nc_inq(fa, &nd[0], &nv[0], &ng[0], &ul[0]);
    nc_inq(fb, &nd[1], &nv[1], &ng[1], &ul[1]);
    nc_inq_format(fa, &fm[0]);
    nc_inq_format(fb, &fm[1]);
    if (nd[0] != nd[1] || nv[0] != nv[1] || ng[0] != ng[1] || ul[0] != ul[1] || fm[0] != fm[1]) {
        snprintf(why, whysz, "ndims/nvars/ngatts/unlimdim/format %d/%d/%d/%d/%d vs %d/%d/%d/%d/%d",
                 nd[0], nv[0], ng[0], ul[0], fm[0], nd[1], nv[1], ng[1], ul[1], fm[1]);
        cls = q->noncoord ? K_NONCOORD : K_OTHER;
        goto done;
    }
    for (int d = 0; d < nd[0]; d++) {
        char na[NC_MAX_NAME + 1], nb[NC_MAX_NAME + 1];
        size_t la, lb;
        nc_inq_dim(fa, d, na, &la);
        nc_inq_dim(fb, d, nb, &lb);
        if (strcmp(na, nb) || la != lb) {
            snprintf(why, whysz, "dimension %d: %s=%zu vs %s=%zu", d, na, la, nb, lb);
            cls = K_OTHER;
            goto done;
        }
    }
    for (int v = -1; v < nv[0]; v++) {
        char na[NC_MAX_NAME + 1] = "", nb[NC_MAX_NAME + 1] = "";
        int ta = 0, tb = 0, nda = 0, ndb = 0, da[NC_MAX_VAR_DIMS], db[NC_MAX_VAR_DIMS];
        int aa = ng[0], ab = ng[1], r;
        if (v >= 0) {
            nc_inq_var(fa, v, na, &ta, &nda, da, &aa);
            nc_inq_var(fb, v, nb, &tb, &ndb, db, &ab);
            if (strcmp(na, nb) || ta != tb || nda != ndb || aa != ab ||
                memcmp(da, db, sizeof(int) * (size_t)nda)) {
                snprintf(why, whysz, "variable %d: %s (type %d, %d dims, %d atts) vs %s (%d, %d, %d)",
                         v, na, ta, nda, aa, nb, tb, ndb, ab);
                /* the file order is the one a reopen would show */
                cls = q->varorder || q->varren_dm ? K_VARORDER : q->noncoord ? K_NONCOORD : K_OTHER;
                if (cls != K_OTHER && (q->varren_dm || q->varren_any) && ns_order_kept(q))
                    cls = K_NC4VARREN;
                goto done;
            }
        }
        r = cmp_atts(fa, fb, v, aa, why, whysz);
        if (r < 0) {
            cls = q->noncoord ? K_NONCOORD : K_OTHER;
            goto done;
        }
        if (r > 0 && cls == K_N && v >= 0 && att_order_untracked(q->path[0], na))
            cls = K_NC4ATTCRT;
        if (r > 0 && cls == K_N)
            cls = q->fmt == 4 && (q->attorder || q->attchg) ? K_ATTORDER : K_OTHER;
        if (v >= 0) {
            size_t n = 1, len, esz = tsize(ta), bad = 0, undef = 0;
            unsigned char *ba, *bb;
            for (int d = 0; d < nda; d++) {
                nc_inq_dimlen(fa, da[d], &len);
                n *= len;
            }
            ba = calloc(n * esz + 1, 1);
            bb = calloc(n * esz + 1, 1);
            if (n > 0) {
                int ra = nc_get_var(fa, v, ba), rb = nc_get_var(fb, v, bb);
                if (ra != rb) {
                    snprintf(why, whysz, "reading variable %s: %d vs %d", na, ra, rb);
                    bad = 1;
                }
            }
            for (size_t k = 0; k < n && !bad; k++)
                if (memcmp(ba + k * esz, bb + k * esz, esz) != 0) {
                    if (undefined(q, v, k))
                        undef++;
                    else {
                        snprintf(why, whysz, "variable %s element %zu differs", na, k);
                        bad = 1;
                    }
                }
            free(ba);
            free(bb);
            if (bad) {
                cls = q->varorder || q->varren_dm ? K_VARORDER : q->noncoord ? K_NONCOORD : K_OTHER;
                goto done;
            }
            if (undef)
                q->counts[K_NOFILL]++;
        }
    }
done:
    nc_close(fa);
    nc_close(fb);
    return cls;
}

/* Compares the two files after a close; 1 when the sequence goes on. */
static int compare_files(seq *q, int aborted)
{
    struct stat sa, sb;
    int ea = stat(q->path[0], &sa) == 0, eb = stat(q->path[1], &sb) == 0;
    char why[400] = "";
    int cls;
    if (ea != eb)
        return difference(q, K_OTHER, ea ? "only netCDF-C's file exists" : "only ncslab's file exists",
                          NULL, NULL, NULL);
    q->exists = ea;
    if (!ea)
        return 1;
    if (q->fmt != 4) {
        unsigned char *a = NULL, *b = NULL;
        size_t la = 0, lb = 0, hdr = 0;
        int same, ncid;
        read_file(q->path[0], &a, &la);
        read_file(q->path[1], &b, &lb);
        same = la == lb && memcmp(a, b, la) == 0;
        if (!same && nc_open(q->path[0], NC_NOWRITE, &ncid) == NC_NOERR) {
            hdr = header_size(ncid, q->fmt);
            nc_close(ncid);
        }
        if (hdr > q->maxhdr)
            q->maxhdr = hdr;
        if (!same) {
            size_t off = 0;
            while (off < la && off < lb && a[off] == b[off])
                off++;
            snprintf(why, sizeof why, "files differ: %zu and %zu bytes, first at offset %zu (header %zu)",
                     la, lb, off, hdr);
            if (q->maxhdr > 4096)
                cls = K_PADDING;
            else if (la == 4096 && lb < la && memcmp(a, b, lb) == 0 && zeros(a + lb, la - lb))
                cls = K_EMPTYHDR;
            else if (aborted && la < lb && memcmp(a, b, la) == 0 && zeros(b + la, lb - la))
                cls = K_ABORTPAD;
            else if ((la == lb || (q->ever_nofill && short_by_zeros(a, la, b, lb))) &&
                     memcmp(a, b, hdr < la && hdr < lb ? hdr : la < lb ? la : lb) == 0 &&
                     cmp_struct(q, why + strlen(why), sizeof why - strlen(why)) == K_N)
                cls = K_STALE;
            else
                cls = K_OTHER;
            free(a);
            free(b);
            if (!difference(q, cls, why, NULL, NULL, NULL))
                return 0;
            /* tolerated: later compares start from netCDF-C's bytes */
            return copy_file(q->path[0], q->path[1]) == 0;
        }
        free(a);
        free(b);
        return 1;
    }
    cls = cmp_struct(q, why, sizeof why);
    if (cls == K_N)
        return 1;
    return difference(q, cls, why, NULL, NULL, NULL);
}

/* ---- state after a call ------------------------------------------------------------ */
static void after(seq *q, const call *c, const result *a)
{
    /* (ncvarputg and ncvargetg return netCDF-C's negative code itself) */
    int ok = a->rc >= 0;
    int cur = c->ncid == S_CUR && q->open;
    switch (c->op) {
    case OP_CREATE:
        if (!ok)
            break;
        q->id[0] = a->rc;
        q->open = q->indef = q->writable = q->exists = 1;
        q->share = (c->mode & NC_SHARE) != 0;
        q->nofill = q->ever_nofill = q->hdirty = 0;
        q->varren_dm = q->varorder = q->attchg = q->attorder = q->noncoord = 0;
        q->varren_any = 0;
        q->created = 0;
        q->redef = q->att_recreated = 0;
        q->maxhdr = 0;
        memset(q->wmap, 0, sizeof q->wmap);
        break;
    case OP_OPEN:
        if (!ok)
            break;
        q->id[0] = a->rc;
        q->open = 1;
        q->indef = q->nofill = q->hdirty = q->redef = q->att_recreated = 0;
        q->varren_any = 0;
        q->writable = (c->mode & NC_WRITE) != 0;
        q->share = (c->mode & NC_SHARE) != 0;
        q->varorder |= q->varren_dm;
        q->attorder |= q->attchg;
        break;
    case OP_REDEF:
        if (ok && cur) {
            q->indef = 1, q->hdirty = 0, q->created = q->nvars;
            /* what an abort of this redefinition leaves (the generator
             * has synced data-mode changes before it: the file is whole) */
            if (q->fmt == 4)
                q->redef = copy_file(q->path[0], q->snap) == 0;
        }
        break;
    case OP_ENDEF:
        if (ok && cur)
            q->indef = q->redef = q->att_recreated = 0;
        break;
    case OP_SYNC:
        if (ok && cur)
            q->hdirty = 0;
        break;
    case OP_CLOSE:
    case OP_ABORT:
        if (ok && cur)
            q->open = 0;
        /* netCDF-C's failed close has aborted the file and left the ncid
         * dangling */
        if (!ok && cur && c->op == OP_CLOSE)
            q->stop = 1;
        break;
    case OP_SETFILL:
        if (ok && cur) {
            q->nofill = c->mode == NC_NOFILL;
            q->ever_nofill |= q->nofill;
        }
        break;
    case OP_VARRENAME:
    case OP_DIMRENAME:
        if (ok && cur && !q->indef) {
            q->hdirty = 1;
            if (c->op == OP_VARRENAME && q->fmt == 4)
                q->varren_dm = 1;
        }
        if (ok && cur && c->op == OP_VARRENAME && q->fmt == 4)
            q->varren_any = 1;
        break;
    case OP_ATTPUT:
    case OP_ATTRENAME:
    case OP_ATTCOPY:
    case OP_ATTDEL:
        if (ok && cur) {
            if (!q->indef)
                q->hdirty = 1;
            q->attchg = q->fmt == 4;
            q->att_recreated |= c->recreate;
        }
        break;
    default:
        break;
    }
    if (ok && q->open && !q->indef &&
        (c->op == OP_PUT1 || c->op == OP_PUT || c->op == OP_PUTS || c->op == OP_PUTG ||
         c->op == OP_RECPUT))
        q->hdirty = 1; /* the record count may have grown */
    if (ok)
        mark_call(q, c);
}

/* ---- one sequence -------------------------------------------------------------------- */
static int run_seq(uint64_t seed, int fmt, int counts[K_N], long *calls)
{
    seq *q = calloc(1, sizeof *q);
    int ok = 1, status;
    q->seed = seed;
    q->fmt = fmt;
    q->r.s = seed * 0x2545f4914f6cdd1dULL + (uint64_t)fmt;
    q->failed = -1;
    q->id[0] = q->id[1] = -1;
    snprintf(q->path[0], sizeof q->path[0], "%s/nc-%llu-%s.nc", tmpdir, (unsigned long long)seed, fmt_name(fmt));
    snprintf(q->path[1], sizeof q->path[1], "%s/ns-%llu-%s.nc", tmpdir, (unsigned long long)seed, fmt_name(fmt));
    snprintf(q->nopath, sizeof q->nopath, "%s/no-such-dir/x.nc", tmpdir);
    snprintf(q->snap, sizeof q->snap, "%s/snap-%llu-%s.nc", tmpdir, (unsigned long long)seed, fmt_name(fmt));
    unlink(q->path[0]);
    unlink(q->path[1]);
    for (q->k = 0; q->k < ncalls + 1 && ok && !q->stop; q->k++) {
        call c;
        result a, b;
        char desc[600];
        int was_open;
        if (q->k == ncalls) {
            /* the end: close what is open */
            if (!q->open)
                break;
            memset(&c, 0, sizeof c);
            c.op = OP_CLOSE;
            c.ncid = S_CUR;
            c.evar = -1;
        } else {
            load_model(q);
            gen_call(q, &c);
        }
        if (q->k == 0) {
            free_call(&c);
            memset(&c, 0, sizeof c);
            c.op = OP_CREATE;
            c.evar = -1;
            c.mode = fmt_cmode(fmt) | (chance(&q->r, 20) ? NC_SHARE : 0);
        }
        was_open = q->open;
        describe(q, &c, desc, sizeof desc);
        if (trace) {
            /* before the call: a crash still shows what it was */
            printf("#%d %s", q->k, desc);
            fflush(stdout);
        }
        run(q, 0, &c, &a);
        run(q, 1, &c, &b);
        for (int li = 0; li < 2; li++) {
            const result *r = li ? &b : &a;
            if ((c.op == OP_CREATE || c.op == OP_OPEN) && r->rc != -1 && q->nids[li] < 16)
                q->ids[li][q->nids[li]++] = r->rc;
            /* closed, or (netCDF-C's failed close) dangling: not to abort */
            if ((c.op == OP_CLOSE || c.op == OP_ABORT) && (r->rc != -1 || (li == 0 && c.op == OP_CLOSE)))
                for (int i = 0; i < q->nids[li]; i++)
                    if (q->ids[li][i] == resolve(q, li, c.ncid))
                        q->ids[li][i--] = q->ids[li][--q->nids[li]];
        }
        if (trace)
            printf(" -> %d/%d | %d/%d\n", a.rc, a.err, b.rc, b.err);
        if (trace == 2 && q->open) {
            /* NCSLAB_DIFF_TRACE=2: each library's record count too */
            long la = -1, lb = -1;
            int ul = -1;
            nc_inq_unlimdim(q->id[0], &ul);
            if (ul >= 0) {
                lib[0]->ncdiminq(q->id[0], ul, NULL, &la);
                lib[1]->ncdiminq(q->id[1], ul, NULL, &lb);
            }
            printf("   recs %ld | %ld\n", la, lb);
        }
        ok = compare(q, &c, &a, &b);
        snprintf(q->hist[q->nhist % HIST], sizeof q->hist[0], "#%d %s -> %d/%d", q->k, desc, a.rc, a.err);
        q->nhist++;
        if (ok && !q->stop) {
            after(q, &c, &a);
            if ((c.op == OP_CREATE || c.op == OP_OPEN) && b.rc != -1)
                q->id[1] = b.rc;
            if (q->open && q->fmt == 4) {
                load_model(q);
                q->noncoord |= nc4_noncoord(q);
            }
            if (q->open && q->fmt != 4) {
                size_t h = header_size(q->id[0], q->fmt);
                if (h > q->maxhdr)
                    q->maxhdr = h;
            }
            if (was_open && !q->open)
                ok = compare_files(q, c.op == OP_ABORT);
        }
        free_result(&a);
        free_result(&b);
        free_call(&c);
    }
    /* leave no file open behind the sequence, in either library */
    for (int li = 0; li < 2; li++)
        for (int i = 0; i < q->nids[li]; i++)
            lib[li]->ncabort(q->ids[li][i]);
    for (int i = 0; i < K_N; i++)
        counts[i] += q->counts[i];
    *calls += q->k;
    status = q->failed;
    unlink(q->snap);
    if (status < 0) {
        unlink(q->path[0]);
        unlink(q->path[1]);
    }
    free(q);
    return status;
}

/* ---- main ---------------------------------------------------------------------------- */
/* The seeds make check runs, per format: sequences without any
 * difference today that run all their calls (netCDF-4 sequences end early
 * when netCDF-C's close fails, which leaves its ncid unusable).  Seeds whose first difference is of a known class
 * join them when that class is fixed (doc/v2.md): the second eight of the
 * classic rows begin with those the ncattdel fix of attprec made pass; the
 * last ten of each row, with seeds that failed on abortpad (classic:
 * cdf1 245 and 277, cdf2 265, cdf5 290) and on netCDF-4 abort, NC_SHARE
 * attribute order, rename and check-order differences (nc4 2, 7, 25, 12,
 * 58, 223), a dimension rename that failed ncs_sync (4826), an empty
 * write at record -1 (5295), the attribute type check in data mode (366)
 * and a mapped read's coordinate error (995). */
#define NFIXED 26
static const uint64_t fixed_seeds[4][NFIXED] = {
    { 5, 12, 17, 20, 23, 25, 36, 37, 236, 248, 260, 266, 1, 2, 3, 4,
      245, 277, 265, 290, 300, 299, 298, 297, 296, 295 },              /* cdf1 */
    { 7, 16, 24, 58, 65, 74, 82, 88, 117, 1, 2, 3, 4, 5, 6, 8,
      265, 245, 277, 290, 300, 299, 298, 297, 296, 295 },              /* cdf2 */
    { 3, 25, 31, 59, 66, 74, 85, 98, 104, 192, 1, 2, 4, 5, 6, 7,
      290, 245, 277, 265, 300, 299, 298, 297, 296, 295 },              /* cdf5 */
    { 375, 408, 884, 1768, 1940, 2117, 2276, 2610, 6, 13, 14, 17, 19, 24, 31, 32,
      2, 7, 25, 12, 58, 223, 4826, 5295, 366, 995 },                  /* nc4 */
};

static int parse_formats(const char *s, int *fmts)
{
    int n = 0;
    char buf[64];
    snprintf(buf, sizeof buf, "%s", s);
    for (char *t = strtok(buf, ","); t; t = strtok(NULL, ",")) {
        int f = !strcmp(t, "cdf1") || !strcmp(t, "1") ? 1 : !strcmp(t, "cdf2") || !strcmp(t, "2") ? 2
              : !strcmp(t, "cdf5") || !strcmp(t, "5") ? 5 : !strcmp(t, "nc4") || !strcmp(t, "4") ? 4 : 0;
        if (!f) {
            fprintf(stderr, "diff_v2seq: unknown format %s (cdf1, cdf2, cdf5, nc4)\n", t);
            exit(2);
        }
        fmts[n++] = f;
    }
    return n;
}

static void parse_known(const char *s)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", s);
    snprintf(known_list, sizeof known_list, "%s", s);
    for (char *t = strtok(buf, ","); t; t = strtok(NULL, ",")) {
        int i;
        for (i = 0; i < K_OTHER; i++)
            if (!strcmp(t, class_names[i]))
                break;
        if (i == K_OTHER && strcmp(t, "all") != 0) {
            fprintf(stderr, "diff_v2seq: unknown class %s\n", t);
            exit(2);
        }
        for (int j = 0; j < K_OTHER; j++)
            if (i == j || i == K_OTHER)
                known[j] = 1;
    }
}

int main(int argc, char **argv)
{
    int fmts[4] = { 1, 2, 5, 4 }, nfmts = 4, opt;
    uint64_t first = 1, nseeds = 0, one = 0;
    int have_one = 0, failures = 0;
    const char *env;
    if ((env = getenv("NCSLAB_V2SEQ_FORMAT")) != NULL)
        nfmts = parse_formats(env, fmts);
    if ((env = getenv("NCSLAB_V2SEQ_KNOWN")) != NULL)
        parse_known(env);
    if ((env = getenv("NCSLAB_V2SEQ_SEEDS")) != NULL)
        nseeds = strtoull(env, NULL, 10);
    if ((env = getenv("NCSLAB_SEED")) != NULL)
        one = strtoull(env, NULL, 10), have_one = 1;
    trace = (env = getenv("NCSLAB_DIFF_TRACE")) != NULL && strcmp(env, "0") != 0;
    if (trace && strcmp(env, "2") == 0)
        trace = 2;
    while ((opt = getopt(argc, argv, "n:s:f:k:c:")) != -1) {
        switch (opt) {
        case 'n': nseeds = strtoull(optarg, NULL, 10); break;
        case 's': first = strtoull(optarg, NULL, 10); break;
        case 'f': nfmts = parse_formats(optarg, fmts); break;
        case 'k': parse_known(optarg); break;
        case 'c': ncalls = atoi(optarg); break;
        default:
            fprintf(stderr, "usage: diff_v2seq [-n SEEDS] [-s FIRST] [-f FORMATS] [-k KNOWN] [-c CALLS]\n");
            return 2;
        }
    }
    env = getenv("TMPDIR");
    snprintf(tmpdir, sizeof tmpdir, "%s/diff_v2seq.XXXXXX", env && *env ? env : "/tmp");
    if (mkdtemp(tmpdir) == NULL) {
        perror("diff_v2seq: mkdtemp");
        return 1;
    }
    for (int fi = 0; fi < nfmts; fi++) {
        int fmt = fmts[fi], counts[K_N] = { 0 }, failed = 0;
        uint64_t n = have_one ? 1 : nseeds ? nseeds : NFIXED;
        int row = fmt == 1 ? 0 : fmt == 2 ? 1 : fmt == 5 ? 2 : 3;
        int failclass[K_N + 1] = { 0 };
        long total_calls = 0;
        for (uint64_t i = 0; i < n; i++) {
            uint64_t seed = have_one ? one : nseeds ? first + i : fixed_seeds[row][i];
            int st = run_seq(seed, fmt, counts, &total_calls);
            if (st >= 0) {
                failed++;
                failclass[st]++;
            }
        }
        printf("%s: %llu seeds, %ld calls, %d failed;", fmt_name(fmt), (unsigned long long)n,
               total_calls, failed);
        for (int k = 0; k < K_N; k++)
            printf(" %s=%d", class_names[k], counts[k]);
        printf("; first differences:");
        for (int k = 0; k < K_N; k++)
            if (failclass[k])
                printf(" %s=%d", class_names[k], failclass[k]);
        printf("\n");
        failures += failed;
    }
    if (failures == 0)
        rmdir(tmpdir);
    else
        printf("files of the failed sequences are in %s\n", tmpdir);
    return failures ? 1 : 0;
}
