/*
 * mkcorrupt.c -- writes, or checks, the corpus of malformed classic files in
 * tests/corrupt/files/.
 *
 *   mkcorrupt -o DIR    write every case and DIR/MANIFEST
 *   mkcorrupt -c DIR    compare DIR with what would be written (exit 1 on
 *                       any difference, missing or extra file)
 *   mkcorrupt           as -c $srcdir/tests/corrupt/files, or the directory
 *                       configured in (the `make check` test)
 *   mkcorrupt -l        list the cases
 *
 * Every file starts from a well-formed header this program builds itself
 * from a small model (dims, attributes, variables), serialised as the
 * netCDF classic format grammar says, with the data section filled.  A case
 * then mutates the model before serialising (duplicate names, bad types, a
 * second unlimited dimension) or overwrites one field of the serialised
 * bytes at an offset the serialiser recorded (counts, lengths, begins), or
 * truncates the file.  Nothing depends on the clock, the host or libc's
 * random numbers, so the output is byte-for-byte reproducible.
 *
 * Classic header grammar (all integers big-endian), as serialised below:
 *
 *   header   = magic numrecs dim_list gatt_list var_list
 *   magic    = 'C' 'D' 'F' version          version = 1 | 2 | 5
 *   numrecs  = NON_NEG                      0xFFFFFFFF: streaming
 *   dim_list = ABSENT | NC_DIMENSION nelems {name dim_length}
 *   gatt_list, vatt_list = ABSENT | NC_ATTRIBUTE nelems {name nc_type nelems values}
 *   var_list = ABSENT | NC_VARIABLE nelems {name nelems {dimid} vatt_list
 *                                           nc_type vsize begin}
 *   ABSENT   = ZERO ZERO                    tags: 0x0A dim, 0x0B var, 0x0C att
 *   name     = nelems bytes, zero-padded to 4
 *   values   = bytes, zero-padded to 4
 *   NON_NEG, nelems, dim_length, vsize: 4 bytes (8 in CDF-5)
 *   dimid: 4 bytes (8 in CDF-5); begin: 4 bytes in CDF-1, 8 in CDF-2/5
 *   tags, nc_type: 4 bytes; the second ZERO of ABSENT is 8 bytes in CDF-5
 *
 * MANIFEST columns: file, expected error, netCDF-C 4.9.0's nc_open result
 * (for information), description.  The expected column is one NC_E* name or
 * alternatives joined by '|'; the pseudo-alternative @read means "open may
 * succeed, provided reading the variables' data then fails" (a file shorter
 * than its data must never read as fill values).
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#ifndef NCS_CORRUPT_DIR
#define NCS_CORRUPT_DIR "tests/corrupt/files"
#endif

#define MAXD 8
#define MAXA 4
#define MAXV 6

/* ---- growable byte buffer with big-endian writers ---------------------- */
typedef struct buf {
    unsigned char *b;
    size_t n, cap;
} buf;

static void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q) {
        fprintf(stderr, "mkcorrupt: out of memory\n");
        exit(2);
    }
    return q;
}

static void put_bytes(buf *o, const void *p, size_t n)
{
    if (o->n + n > o->cap) {
        o->cap = (o->n + n) * 2 + 64;
        o->b = xrealloc(o->b, o->cap);
    }
    memcpy(o->b + o->n, p, n);
    o->n += n;
}

static void put_zeros(buf *o, size_t n)
{
    static const unsigned char z[64];
    while (n > 0) {
        size_t k = n < sizeof z ? n : sizeof z;
        put_bytes(o, z, k);
        n -= k;
    }
}

static void set_be(unsigned char *p, uint64_t v, int width)
{
    for (int i = width - 1; i >= 0; i--) {
        p[i] = (unsigned char)(v & 0xff);
        v >>= 8;
    }
}

static void put_be(buf *o, uint64_t v, int width)
{
    unsigned char t[8];
    set_be(t, v, width);
    put_bytes(o, t, (size_t)width);
}

/* ---- the model ----------------------------------------------------------- */
typedef struct att_t {
    const char *name;
    int type;
    uint64_t nelems;
    const char *text;       /* values for NC_CHAR; others get a pattern */
} att_t;

typedef struct dim_t {
    const char *name;
    uint64_t len;           /* 0: record dimension */
} dim_t;

typedef struct var_t {
    const char *name;
    int ndims;
    int dimids[MAXD];
    int natts;
    att_t atts[MAXA];
    int type;
} var_t;

typedef struct model_t {
    int ver;                /* 1, 2, 5 */
    uint64_t numrecs;
    int ndims;
    dim_t dims[MAXD];
    int ngatts;
    att_t gatts[MAXA];
    int nvars;
    var_t vars[MAXV];
} model_t;

/* Where the serialiser put each field, so cases can overwrite it. */
typedef struct attpos_t {
    size_t name, type, nelems, vals;
} attpos_t;

typedef struct layout_t {
    size_t numrecs, dimtag, dimn, gatttag, gattn, vartag, varn;
    size_t dname[MAXD], dlen[MAXD];
    attpos_t gatt[MAXA];
    size_t vname[MAXV], vndims[MAXV], vdimids[MAXV], vatttag[MAXV],
           vattn[MAXV], vtype[MAXV], vsize[MAXV], vbegin[MAXV];
    attpos_t vatt[MAXV][MAXA];
    size_t hdr_end;         /* first byte after the header */
    uint64_t begin[MAXV];   /* data offsets as written */
    uint64_t bytes[MAXV];   /* vsize as computed (per record for record vars) */
    uint64_t fixed_end;     /* end of the fixed-size data */
    uint64_t recsize;       /* bytes per record */
    uint64_t data_end;      /* end of the data for numrecs records */
} layout_t;

static size_t type_size(int t)
{
    static const size_t sz[12] = {0, 1, 1, 2, 4, 4, 8, 1, 2, 4, 8, 8};
    return (t > 0 && t < 12) ? sz[t] : 0;
}

static int cwidth(int ver) { return ver == 5 ? 8 : 4; }

static void put_cnt(buf *o, int ver, uint64_t v) { put_be(o, v, cwidth(ver)); }

static void put_pad(buf *o)
{
    put_zeros(o, (4 - o->n % 4) % 4);
}

static void put_name(buf *o, int ver, const char *s)
{
    size_t n = strlen(s);
    put_cnt(o, ver, n);
    put_bytes(o, s, n);
    put_pad(o);
}

/* Deterministic data byte k of the object numbered obj: never all zero, so
 * a reader returning zeros or fill values for missing data is noticed. */
static unsigned char pattern(unsigned obj, uint64_t k)
{
    return (unsigned char)(0x41 + (obj * 37u + (unsigned)(k * 11u)) % 57u);
}

static void put_att(buf *o, int ver, const att_t *a, attpos_t *p, unsigned obj)
{
    size_t sz = type_size(a->type) ? type_size(a->type) : 1;
    p->name = o->n;
    put_name(o, ver, a->name);
    p->type = o->n;
    put_be(o, (uint64_t)(uint32_t)a->type, 4);
    p->nelems = o->n;
    put_cnt(o, ver, a->nelems);
    p->vals = o->n;
    if (a->text) {
        put_bytes(o, a->text, strlen(a->text));
    } else {
        for (uint64_t k = 0; k < a->nelems * sz; k++) {
            unsigned char c = pattern(obj, k);
            put_bytes(o, &c, 1);
        }
    }
    put_pad(o);
}

static void put_attlist(buf *o, int ver, int n, const att_t *a, attpos_t *p,
                        size_t *tagpos, size_t *npos, unsigned obj)
{
    *tagpos = o->n;
    if (n == 0) {
        put_be(o, 0, 4);
        *npos = o->n;
        put_cnt(o, ver, 0);
        return;
    }
    put_be(o, 0x0C, 4);
    *npos = o->n;
    put_cnt(o, ver, (uint64_t)n);
    for (int i = 0; i < n; i++)
        put_att(o, ver, &a[i], &p[i], obj * 8 + (unsigned)i);
}

static int var_isrec(const model_t *m, const var_t *v)
{
    return v->ndims > 0 && v->dimids[0] >= 0 && v->dimids[0] < m->ndims &&
           m->dims[v->dimids[0]].len == 0;
}

/* Bytes of one record (or of the whole fixed variable), saturating at
 * UINT64_MAX so that overflowing cases still serialise. */
static uint64_t var_bytes(const model_t *m, const var_t *v)
{
    uint64_t n = type_size(v->type) ? type_size(v->type) : 1;
    for (int d = 0; d < v->ndims; d++) {
        int id = v->dimids[d];
        uint64_t len = (id >= 0 && id < m->ndims) ? m->dims[id].len : 1;
        if (len == 0)
            continue;
        if (__builtin_mul_overflow(n, len, &n))
            return UINT64_MAX;
    }
    return n;
}

static uint64_t add_sat(uint64_t a, uint64_t b)
{
    uint64_t r;
    return __builtin_add_overflow(a, b, &r) ? UINT64_MAX : r;
}

/* Serialises m into o, recording field positions in L.  The data section is
 * written (numrecs records) when it is at most 1 MiB; otherwise only the
 * header is written and the case decides what follows. */
static void serialise(const model_t *m, buf *o, layout_t *L)
{
    int ver = m->ver;
    memset(L, 0, sizeof *L);
    put_bytes(o, "CDF", 3);
    unsigned char vb = (unsigned char)ver;
    put_bytes(o, &vb, 1);
    L->numrecs = o->n;
    put_cnt(o, ver, m->numrecs);

    L->dimtag = o->n;
    put_be(o, m->ndims ? 0x0A : 0, 4);
    L->dimn = o->n;
    put_cnt(o, ver, (uint64_t)m->ndims);
    for (int i = 0; i < m->ndims; i++) {
        L->dname[i] = o->n;
        put_name(o, ver, m->dims[i].name);
        L->dlen[i] = o->n;
        put_cnt(o, ver, m->dims[i].len);
    }

    put_attlist(o, ver, m->ngatts, m->gatts, L->gatt, &L->gatttag, &L->gattn, 1);

    L->vartag = o->n;
    put_be(o, m->nvars ? 0x0B : 0, 4);
    L->varn = o->n;
    put_cnt(o, ver, (uint64_t)m->nvars);
    for (int i = 0; i < m->nvars; i++) {
        const var_t *v = &m->vars[i];
        L->vname[i] = o->n;
        put_name(o, ver, v->name);
        L->vndims[i] = o->n;
        put_cnt(o, ver, (uint64_t)v->ndims);
        L->vdimids[i] = o->n;
        for (int d = 0; d < v->ndims; d++)
            put_be(o, (uint64_t)(int64_t)v->dimids[d], cwidth(ver));
        put_attlist(o, ver, v->natts, v->atts, L->vatt[i], &L->vatttag[i],
                    &L->vattn[i], 16 + (unsigned)i);
        L->vtype[i] = o->n;
        put_be(o, (uint64_t)(uint32_t)v->type, 4);
        L->vsize[i] = o->n;
        uint64_t bytes = var_bytes(m, v);
        L->bytes[i] = bytes == UINT64_MAX ? bytes : (bytes + 3) / 4 * 4;
        if (ver != 5 && L->bytes[i] > 0xFFFFFFFFu)
            put_be(o, 0xFFFFFFFFu, 4);
        else
            put_cnt(o, ver, L->bytes[i]);
        L->vbegin[i] = o->n;
        put_be(o, 0, ver == 1 ? 4 : 8);   /* patched below */
    }
    L->hdr_end = o->n;

    /* Layout: fixed variables in order, then interleaved records. */
    uint64_t off = o->n;
    int nrec = 0;
    for (int i = 0; i < m->nvars; i++) {
        if (var_isrec(m, &m->vars[i])) {
            nrec++;
            continue;
        }
        L->begin[i] = off;
        off = add_sat(off, L->bytes[i]);
    }
    L->fixed_end = off;
    L->recsize = 0;
    for (int i = 0; i < m->nvars; i++) {
        if (!var_isrec(m, &m->vars[i]))
            continue;
        L->begin[i] = add_sat(off, L->recsize);
        /* A lone record variable is not padded between records. */
        L->recsize = add_sat(L->recsize, nrec == 1 ? var_bytes(m, &m->vars[i])
                                                   : L->bytes[i]);
    }
    uint64_t recs = m->numrecs == 0xFFFFFFFFu ? 0 : m->numrecs;
    uint64_t rectotal = recs && L->recsize > UINT64_MAX / recs
                            ? UINT64_MAX : recs * L->recsize;
    L->data_end = add_sat(off, rectotal);
    for (int i = 0; i < m->nvars; i++)
        set_be(o->b + L->vbegin[i], L->begin[i], ver == 1 ? 4 : 8);

    if (L->data_end - L->hdr_end > (1u << 20))
        return;
    for (uint64_t k = 0; o->n < L->data_end; k++) {
        unsigned char c = pattern(99, k);
        put_bytes(o, &c, 1);
    }
}

/* The well-formed model every case starts from. */
static void base_model(model_t *m, int ver)
{
    static const model_t base = {
        .ver = 1,
        .numrecs = 2,
        .ndims = 3,
        .dims = {{"time", 0}, {"x", 4}, {"y", 3}},
        .ngatts = 2,
        .gatts = {{"title", 2, 6, "corpus"}, {"version", 4, 1, NULL}},
        .nvars = 4,
        .vars = {
            {"xv", 1, {1}, 1, {{"units", 2, 1, "m"}}, 4},
            {"grid", 2, {1, 2}, 0, {{0}}, 3},
            {"rec", 2, {0, 1}, 2, {{"long_name", 2, 3, "abc"},
                                   {"scale", 6, 2, NULL}}, 5},
            {"rec2", 1, {0}, 0, {{0}}, 6},
        },
    };
    *m = base;
    m->ver = ver;
    if (ver == 5) {
        m->vars[4] = (var_t){"u64", 2, {1, 2}, 1, {{"flags", 7, 3, NULL}}, 11};
        m->nvars = 5;
    }
}

/* ---- cases ---------------------------------------------------------------- */
typedef void (*build_fn)(buf *o);

typedef struct kase {
    const char *name;
    const char *expect;
    const char *netcdfc;    /* netCDF-C 4.9.0 nc_open (+ reads) result */
    const char *desc;
    build_fn build;
} kase;

/* Builds the base file for ver and returns its layout. */
static void base(buf *o, int ver, layout_t *L)
{
    model_t m;
    base_model(&m, ver);
    serialise(&m, o, L);
}

static void from_model(buf *o, const model_t *m)
{
    layout_t L;
    serialise(m, o, &L);
}

static void truncate_to(buf *o, size_t n)
{
    if (n < o->n)
        o->n = n;
}

static void patch(buf *o, size_t off, uint64_t v, int width)
{
    set_be(o->b + off, v, width);
}

#define CASE(fn) static void fn(buf *o)
#define BASE(ver) layout_t L; base(o, ver, &L)

/* -- garbage and magic -- */
CASE(c_empty) { (void)o; }
CASE(c_magic_short) { put_bytes(o, "CD", 2); }
CASE(c_magic_only) { put_bytes(o, "CDF\001", 4); }
CASE(c_magic_wrong) { BASE(1); o->b[0] = 'X'; }
CASE(c_magic_lower) { BASE(1); memcpy(o->b, "cdf", 3); }
CASE(c_version0) { BASE(1); o->b[3] = 0; }
CASE(c_version3) { BASE(2); o->b[3] = 3; }
CASE(c_version4) { BASE(2); o->b[3] = 4; }
CASE(c_version255) { BASE(1); o->b[3] = 0xff; }
CASE(c_text) { const char *t = "this is not a netCDF file\n"; put_bytes(o, t, strlen(t)); }
CASE(c_garbage)
{
    uint64_t s = 0x9e3779b97f4a7c15u;
    for (int i = 0; i < 1024; i++) {
        s ^= s << 13; s ^= s >> 7; s ^= s << 17;
        unsigned char c = (unsigned char)(s >> 24);
        put_bytes(o, &c, 1);
    }
}
CASE(c_hdf5_sig) { put_bytes(o, "\211HDF\r\n\032\n", 8); put_zeros(o, 504); }

/* -- truncated inside the header -- */
CASE(c_trunc_numrecs) { BASE(1); truncate_to(o, L.numrecs + 2); }
CASE(c_trunc_dim_tag) { BASE(1); truncate_to(o, L.dimtag); }
CASE(c_trunc_dim_nelems) { BASE(1); truncate_to(o, L.dimn + 1); }
CASE(c_trunc_dim_name) { BASE(1); truncate_to(o, L.dname[1] + 5); }
CASE(c_trunc_dim_len) { BASE(1); truncate_to(o, L.dlen[2] + 3); }
CASE(c_trunc_gatt_tag) { BASE(1); truncate_to(o, L.gatttag + 2); }
CASE(c_trunc_att_type) { BASE(1); truncate_to(o, L.gatt[1].type + 1); }
CASE(c_trunc_att_nelems) { BASE(1); truncate_to(o, L.gatt[0].nelems); }
CASE(c_trunc_att_values) { BASE(1); truncate_to(o, L.gatt[0].vals + 3); }
CASE(c_trunc_var_nelems) { BASE(1); truncate_to(o, L.varn + 2); }
CASE(c_trunc_var_name) { BASE(1); truncate_to(o, L.vname[2] + 6); }
CASE(c_trunc_var_ndims) { BASE(1); truncate_to(o, L.vndims[1]); }
CASE(c_trunc_var_dimids) { BASE(1); truncate_to(o, L.vdimids[1] + 6); }
CASE(c_trunc_var_atts) { BASE(1); truncate_to(o, L.vatt[2][1].vals + 4); }
CASE(c_trunc_var_type) { BASE(1); truncate_to(o, L.vtype[3] + 2); }
CASE(c_trunc_var_vsize) { BASE(1); truncate_to(o, L.vsize[3] + 1); }
CASE(c_trunc_var_begin) { BASE(1); truncate_to(o, L.vbegin[3] + 2); }
CASE(c_cdf2_trunc_begin) { BASE(2); truncate_to(o, L.vbegin[3] + 4); }
CASE(c_cdf5_trunc_numrecs) { BASE(5); truncate_to(o, L.numrecs + 4); }
CASE(c_cdf5_trunc_absent) { model_t m; base_model(&m, 5); m.ngatts = 0;
    layout_t L; serialise(&m, o, &L); truncate_to(o, L.gattn + 4); }
CASE(c_cdf5_trunc_begin) { BASE(5); truncate_to(o, L.vbegin[4] + 6); }

/* -- list tags and counts -- */
CASE(c_dim_tag_var) { BASE(1); patch(o, L.dimtag, 0x0B, 4); }
CASE(c_gatt_tag_dim) { BASE(1); patch(o, L.gatttag, 0x0A, 4); }
CASE(c_var_tag_att) { BASE(1); patch(o, L.vartag, 0x0C, 4); }
CASE(c_tag_garbage) { BASE(1); patch(o, L.dimtag, 0x12345678, 4); }
CASE(c_absent_nonzero)
{
    model_t m; base_model(&m, 1); m.ngatts = 0;
    layout_t L; serialise(&m, o, &L); patch(o, L.gattn, 3, 4);
}
CASE(c_cdf5_absent_short)
{
    /* ABSENT written CDF-1 style (second ZERO 4 bytes) in a CDF-5 file */
    buf t = {0};
    model_t m; base_model(&m, 5); m.ngatts = 0;
    layout_t L; serialise(&m, &t, &L);
    put_bytes(o, t.b, L.gattn + 4);
    put_bytes(o, t.b + L.gattn + 8, t.n - L.gattn - 8);
    free(t.b);
}
CASE(c_dim_nelems_huge) { BASE(1); patch(o, L.dimn, 0x7fffffff, 4); }
CASE(c_dim_nelems_neg) { BASE(1); patch(o, L.dimn, 0xffffffff, 4); }
CASE(c_dim_nelems_more) { BASE(1); patch(o, L.dimn, 5, 4); }
CASE(c_gatt_nelems_huge) { BASE(1); patch(o, L.gattn, 0x7fffffff, 4); }
CASE(c_gatt_nelems_neg) { BASE(1); patch(o, L.gattn, 0x80000000u, 4); }
CASE(c_var_nelems_huge) { BASE(1); patch(o, L.varn, 0x7fffffff, 4); }
CASE(c_var_nelems_neg) { BASE(2); patch(o, L.varn, 0xfffffffe, 4); }
CASE(c_vatt_nelems_huge) { BASE(1); patch(o, L.vattn[0], 0x7fffffff, 4); }
CASE(c_cdf5_dim_nelems_2p60) { BASE(5); patch(o, L.dimn, 1ull << 60, 8); }
CASE(c_cdf5_var_nelems_2p60) { BASE(5); patch(o, L.varn, 1ull << 60, 8); }
CASE(c_cdf5_gatt_nelems_neg) { BASE(5); patch(o, L.gattn, UINT64_MAX, 8); }

/* -- names -- */
CASE(c_name_len_huge) { BASE(1); patch(o, L.dname[0], 0x7ffffff0, 4); }
CASE(c_name_len_neg) { BASE(1); patch(o, L.vname[1], 0xffffffff, 4); }
CASE(c_name_len_past_eof) { BASE(1); patch(o, L.vname[3], (uint64_t)(o->n - L.vname[3]), 4); }
CASE(c_cdf5_name_len_2p60) { BASE(5); patch(o, L.gatt[0].name, 1ull << 60, 8); }
CASE(c_name_empty)
{
    model_t m; base_model(&m, 1); m.dims[2].name = ""; from_model(o, &m);
}
CASE(c_name_slash)
{
    model_t m; base_model(&m, 1); m.vars[1].name = "a/b"; from_model(o, &m);
}
CASE(c_name_not_utf8)
{
    model_t m; base_model(&m, 1); m.dims[1].name = "x\xff\xfe"; from_model(o, &m);
}
CASE(c_name_control)
{
    model_t m; base_model(&m, 1); m.vars[0].name = "x\001v"; from_model(o, &m);
}
CASE(c_name_embedded_nul) { BASE(1); o->b[L.vname[2] + 4 + 1] = 0; }
CASE(c_name_too_long)
{
    static char longname[301];
    memset(longname, 'n', 300);
    model_t m; base_model(&m, 1); m.gatts[1].name = longname; from_model(o, &m);
}
CASE(c_name_trailing_space)
{
    model_t m; base_model(&m, 1); m.dims[2].name = "y "; from_model(o, &m);
}

/* -- duplicates and dimension rules -- */
CASE(c_dup_dim)
{
    model_t m; base_model(&m, 1); m.dims[2].name = "x"; from_model(o, &m);
}
CASE(c_dup_var)
{
    model_t m; base_model(&m, 1); m.vars[3].name = "rec"; from_model(o, &m);
}
CASE(c_dup_gatt)
{
    model_t m; base_model(&m, 1); m.gatts[1].name = "title"; from_model(o, &m);
}
CASE(c_dup_vatt)
{
    model_t m; base_model(&m, 1); m.vars[2].atts[1].name = "long_name";
    from_model(o, &m);
}
CASE(c_two_unlimited)
{
    model_t m; base_model(&m, 1); m.dims[2].len = 0; m.vars[1].ndims = 1;
    from_model(o, &m);
}
CASE(c_recdim_not_first)
{
    model_t m; base_model(&m, 1); m.vars[2].dimids[0] = 1; m.vars[2].dimids[1] = 0;
    from_model(o, &m);
}
CASE(c_dimid_out_of_range) { BASE(1); patch(o, L.vdimids[1] + 4, 7, 4); }
CASE(c_dimid_neg) { BASE(1); patch(o, L.vdimids[0], 0xffffffff, 4); }
CASE(c_cdf5_dimid_huge) { BASE(5); patch(o, L.vdimids[4], 1ull << 40, 8); }
CASE(c_ndims_huge) { BASE(1); patch(o, L.vndims[1], 0x7fffffff, 4); }
CASE(c_ndims_neg) { BASE(1); patch(o, L.vndims[0], 0xffffffff, 4); }
CASE(c_ndims_1025)
{
    /* 1025 valid dimids (all "x", a fixed dimension of length 1) */
    model_t m;
    base_model(&m, 1);
    m.dims[1].len = 1;
    m.nvars = 1;
    m.vars[0] = (var_t){"many", 0, {0}, 0, {{0}}, 1};
    layout_t L;
    buf h = {0};
    serialise(&m, &h, &L);
    put_bytes(o, h.b, L.vndims[0]);
    put_be(o, 1025, 4);
    for (int d = 0; d < 1025; d++)
        put_be(o, 1, 4);
    size_t rest = L.vdimids[0];
    uint64_t begin = L.hdr_end + 1025 * 4;
    put_bytes(o, h.b + rest, L.vbegin[0] - rest);
    put_be(o, begin, 4);
    put_bytes(o, "\x11\0\0\0", 4);       /* the one byte of data, padded */
    free(h.b);
}
CASE(c_cdf5_ndims_2p60) { BASE(5); patch(o, L.vndims[1], 1ull << 60, 8); }

/* -- types -- */
CASE(c_var_type_nat) { BASE(1); patch(o, L.vtype[1], 0, 4); }
CASE(c_var_type_13) { BASE(1); patch(o, L.vtype[0], 13, 4); }
CASE(c_var_type_99) { BASE(2); patch(o, L.vtype[3], 99, 4); }
CASE(c_var_type_neg) { BASE(1); patch(o, L.vtype[0], 0xffffffff, 4); }
CASE(c_cdf1_var_ubyte)
{
    model_t m; base_model(&m, 1); m.vars[1].type = 7; from_model(o, &m);
}
CASE(c_cdf2_var_int64)
{
    model_t m; base_model(&m, 2); m.vars[0].type = 10; from_model(o, &m);
}
CASE(c_cdf5_var_type_12) { BASE(5); patch(o, L.vtype[4], 12, 4); }
CASE(c_att_type_nat) { BASE(1); patch(o, L.gatt[1].type, 0, 4); }
CASE(c_att_type_99) { BASE(1); patch(o, L.vatt[2][1].type, 99, 4); }
CASE(c_cdf1_att_uint)
{
    model_t m; base_model(&m, 1); m.gatts[1].type = 9; from_model(o, &m);
}

/* -- attribute sizes -- */
CASE(c_att_nelems_huge) { BASE(1); patch(o, L.gatt[1].nelems, 0x7fffffff, 4); }
CASE(c_att_nelems_past_eof) { BASE(1); patch(o, L.vatt[2][1].nelems, 1000, 4); }
CASE(c_att_nelems_neg) { BASE(1); patch(o, L.gatt[0].nelems, 0xfffffffc, 4); }
CASE(c_cdf5_att_size_overflow)
{
    /* NC_DOUBLE, nelems 2^61 + 1: nelems * 8 wraps to 8 */
    BASE(5); patch(o, L.vatt[2][1].nelems, (1ull << 61) + 1, 8);
}
CASE(c_cdf5_att_nelems_2p60) { BASE(5); patch(o, L.vatt[4][0].nelems, 1ull << 60, 8); }

/* -- variable sizes -- */
CASE(c_cdf5_dim_product_overflow)
{
    /* 2^40 * 2^40 elements: the product overflows 64 bits */
    model_t m;
    base_model(&m, 5);
    m.dims[1].len = 1ull << 40;
    m.dims[2].len = 1ull << 40;
    m.nvars = 1;
    m.vars[0] = m.vars[1];          /* grid(x, y) short */
    layout_t L;
    serialise(&m, o, &L);
    patch(o, L.vsize[0], 8, 8);     /* what a wrapping writer would store */
    put_zeros(o, 8);
}
CASE(c_cdf5_vsize_overflow)
{
    /* 2^31 * 2^31 * 8 bytes: elements fit 64 bits, bytes do not */
    model_t m;
    base_model(&m, 5);
    m.dims[1].len = 1ull << 31;
    m.dims[2].len = 1ull << 31;
    m.nvars = 1;
    m.vars[0] = (var_t){"big", 2, {1, 2}, 0, {{0}}, 6};
    layout_t L;
    serialise(&m, o, &L);
    patch(o, L.vsize[0], 0, 8);
    put_zeros(o, 8);
}
CASE(c_cdf5_rec_product_overflow)
{
    /* record variable whose per-record size times numrecs overflows */
    model_t m;
    base_model(&m, 5);
    m.numrecs = 1ull << 40;
    m.dims[1].len = 1ull << 30;
    m.nvars = 1;
    m.vars[0] = (var_t){"r", 2, {0, 1}, 0, {{0}}, 6};
    layout_t L;
    serialise(&m, o, &L);
    put_zeros(o, 64);
}
CASE(c_cdf1_var_too_big)
{
    /* a 2 GiB NC_SHORT variable that is not the last: CDF-1 allows 2^31-4 */
    model_t m;
    base_model(&m, 1);
    m.dims[1].len = 1u << 15;
    m.dims[2].len = 1u << 15;
    m.nvars = 2;
    m.vars[0] = (var_t){"big", 2, {1, 2}, 0, {{0}}, 3};
    m.vars[1] = (var_t){"after", 1, {2}, 0, {{0}}, 1};
    layout_t L;
    serialise(&m, o, &L);
    put_zeros(o, 64);
}
CASE(c_cdf2_var_too_big)
{
    /* a 4 GiB NC_INT variable that is not the last: CDF-2 allows 2^32-4 */
    model_t m;
    base_model(&m, 2);
    m.dims[1].len = 1u << 15;
    m.dims[2].len = 1u << 15;
    m.nvars = 2;
    m.vars[0] = (var_t){"big", 2, {1, 2}, 0, {{0}}, 4};
    m.vars[1] = (var_t){"after", 1, {2}, 0, {{0}}, 1};
    layout_t L;
    serialise(&m, o, &L);
    put_zeros(o, 64);
}
CASE(c_cdf1_huge_last_var)
{
    /* a legal 4 GiB last variable in a file of a few hundred bytes */
    model_t m;
    base_model(&m, 1);
    m.dims[1].len = 1u << 15;
    m.dims[2].len = 1u << 15;
    m.nvars = 1;
    m.vars[0] = (var_t){"big", 2, {1, 2}, 0, {{0}}, 4};
    layout_t L;
    serialise(&m, o, &L);
    put_zeros(o, 64);
}
CASE(c_dim_len_neg) { BASE(1); patch(o, L.dlen[2], 0x80000000u, 4); }
CASE(c_cdf5_dim_len_neg) { BASE(5); patch(o, L.dlen[2], 1ull << 63, 8); }
CASE(c_vsize_wrong) { BASE(1); patch(o, L.vsize[1], 4, 4); }

/* -- begin offsets -- */
CASE(c_begin_past_eof) { BASE(1); patch(o, L.vbegin[1], 1000000, 4); }
CASE(c_begin_in_header) { BASE(1); patch(o, L.vbegin[0], 8, 4); }
CASE(c_begin_zero) { BASE(2); patch(o, L.vbegin[1], 0, 8); }
CASE(c_begin_overlap)
{
    BASE(1); patch(o, L.vbegin[1], L.begin[0] + 4, 4);
}
CASE(c_rec_begin_in_fixed)
{
    BASE(1); patch(o, L.vbegin[2], L.begin[1], 4);
}
CASE(c_rec_begins_overlap)
{
    BASE(1); patch(o, L.vbegin[3], L.begin[2] + 4, 4);
}
CASE(c_cdf2_begin_huge) { BASE(2); patch(o, L.vbegin[0], 1ull << 62, 8); }
CASE(c_cdf2_begin_neg) { BASE(2); patch(o, L.vbegin[3], 0x8000000000000000ull, 8); }
CASE(c_cdf5_begin_wrap)
{
    /* begin + vsize wraps around 2^64 */
    BASE(5); patch(o, L.vbegin[1], UINT64_MAX - 7, 8);
}

/* -- numrecs and truncated data -- */
CASE(c_numrecs_more) { BASE(1); patch(o, L.numrecs, 1000, 4); }
CASE(c_numrecs_one_more) { BASE(2); patch(o, L.numrecs, 3, 4); }
CASE(c_numrecs_2p31) { BASE(1); patch(o, L.numrecs, 0x80000000u, 4); }
CASE(c_numrecs_streaming) { BASE(1); patch(o, L.numrecs, 0xffffffffu, 4); }
CASE(c_cdf5_numrecs_2p60) { BASE(5); patch(o, L.numrecs, 1ull << 60, 8); }
CASE(c_trunc_after_header) { BASE(1); truncate_to(o, L.hdr_end); }
CASE(c_trunc_fixed_data) { BASE(1); truncate_to(o, (size_t)L.begin[1] + 6); }
CASE(c_trunc_record_data) { BASE(1); truncate_to(o, (size_t)L.data_end - 4); }
CASE(c_cdf5_trunc_fixed_data) { BASE(5); truncate_to(o, (size_t)L.begin[4] + 8); }
CASE(c_trunc_record_no_fixed)
{
    model_t m; base_model(&m, 2); m.vars[0].ndims = 1; m.vars[0].dimids[0] = 0;
    m.vars[1].dimids[0] = 0;
    layout_t L; serialise(&m, o, &L); truncate_to(o, (size_t)L.data_end - 1);
}

/* -- tolerated: well-formed or harmless deviations (controls) -- */
CASE(c_valid_cdf1) { BASE(1); }
CASE(c_valid_cdf2) { BASE(2); }
CASE(c_valid_cdf5) { BASE(5); }
CASE(c_valid_minimal)
{
    model_t m; memset(&m, 0, sizeof m); m.ver = 1; from_model(o, &m);
}
CASE(c_valid_trailing_bytes) { BASE(1); put_bytes(o, "trailing garbage", 16); }
/* netCDF-C takes a file that starts with a classic magic number as
 * classic and looks for no HDF5 signature at 512, 1024, ... */
CASE(c_valid_hdf5_sig_after)
{
    size_t at = 512;
    BASE(1);
    while (at < o->n)
        at *= 2;                /* where HDF5's signature may stand */
    put_zeros(o, at - o->n);
    put_bytes(o, "\211HDF\r\n\032\n", 8);
    put_zeros(o, 504);
}
CASE(c_pad_nonzero_name) { BASE(1); o->b[L.dname[1] + 4 + 1] = 'z'; }
CASE(c_pad_nonzero_att) { BASE(1); o->b[L.gatt[0].vals + 7] = 0x7f; }

#define K(n, e, c, d) {#n ".nc", e, c, d, c_##n}
static const kase cases[] = {
    K(empty, "NC_ENOTNC", "NC_ENOTNC", "zero-length file"),
    K(magic_short, "NC_ENOTNC", "NC_ENOTNC", "two bytes \"CD\""),
    K(magic_only, "NC_ENOTNC", "NC_ENOTNC", "magic CDF1 and nothing else"),
    K(magic_wrong, "NC_ENOTNC", "NC_ENOTNC", "valid CDF-1 file with 'X' for 'C'"),
    K(magic_lower, "NC_ENOTNC", "NC_ENOTNC", "magic \"cdf\" in lower case"),
    K(version0, "NC_ENOTNC", "NC_ENOTNC", "version byte 0"),
    K(version3, "NC_ENOTNC", "NC_ENOTNC", "version byte 3"),
    K(version4, "NC_ENOTNC", "NC_ENOTNC", "version byte 4 (no such classic version)"),
    K(version255, "NC_ENOTNC", "NC_ENOTNC", "version byte 0xff"),
    K(text, "NC_ENOTNC", "NC_ENOTNC", "a line of text"),
    K(garbage, "NC_ENOTNC", "NC_ENOTNC", "1 KiB of pseudo-random bytes"),
    K(hdf5_sig, "NC_ENOTNC|NC_EHDFERR|NC_ENOTBUILT", "NC_EHDFERR", "HDF5 signature followed by zeros"),

    K(trunc_numrecs, "NC_ENOTNC|NC_ETRUNC", "NC_ENOTNC", "ends inside numrecs"),
    K(trunc_dim_tag, "NC_ENOTNC|NC_ETRUNC", "NC_NOERR", "ends before the dim_list tag"),
    K(trunc_dim_nelems, "NC_ENOTNC|NC_ETRUNC", "NC_NOERR", "ends inside the dim_list count"),
    K(trunc_dim_name, "NC_ENOTNC|NC_ETRUNC", "NC_NOERR", "ends inside a dimension name"),
    K(trunc_dim_len, "NC_ENOTNC|NC_ETRUNC", "NC_NOERR", "ends inside a dimension length"),
    K(trunc_gatt_tag, "NC_ENOTNC|NC_ETRUNC", "NC_NOERR", "ends inside the gatt_list tag"),
    K(trunc_att_type, "NC_ENOTNC|NC_ETRUNC", "NC_EINVAL", "ends inside an attribute nc_type"),
    K(trunc_att_nelems, "NC_ENOTNC|NC_ETRUNC", "NC_EINVAL", "ends before an attribute count"),
    K(trunc_att_values, "NC_ENOTNC|NC_ETRUNC", "NC_EINVAL", "ends inside attribute values"),
    K(trunc_var_nelems, "NC_ENOTNC|NC_ETRUNC", "NC_NOERR", "ends inside the var_list count"),
    K(trunc_var_name, "NC_ENOTNC|NC_ETRUNC", "NC_EINVAL", "ends inside a variable name"),
    K(trunc_var_ndims, "NC_ENOTNC|NC_ETRUNC", "NC_EINVAL", "ends before a variable's ndims"),
    K(trunc_var_dimids, "NC_ENOTNC|NC_ETRUNC", "NC_EINVAL", "ends inside a dimid list"),
    K(trunc_var_atts, "NC_ENOTNC|NC_ETRUNC", "NC_EINVAL", "ends inside a variable attribute"),
    K(trunc_var_type, "NC_ENOTNC|NC_ETRUNC", "NC_EINVAL", "ends inside a variable nc_type"),
    K(trunc_var_vsize, "NC_ENOTNC|NC_ETRUNC", "NC_ENOTNC", "ends inside a vsize"),
    K(trunc_var_begin, "NC_ENOTNC|NC_ETRUNC", "NC_ENOTNC", "ends inside the last begin (CDF-1)"),
    K(cdf2_trunc_begin, "NC_ENOTNC|NC_ETRUNC", "NC_ENOTNC", "ends inside an 8-byte begin (CDF-2)"),
    K(cdf5_trunc_numrecs, "NC_ENOTNC|NC_ETRUNC", "NC_NOERR", "CDF-5, ends inside the 8-byte numrecs"),
    K(cdf5_trunc_absent, "NC_ENOTNC|NC_ETRUNC", "NC_NOERR", "CDF-5, ends inside the 8-byte ZERO of ABSENT"),
    K(cdf5_trunc_begin, "NC_ENOTNC|NC_ETRUNC", "NC_ENOTNC", "CDF-5, ends inside the last begin"),

    K(dim_tag_var, "NC_ENOTNC", "errno22", "dim_list tagged NC_VARIABLE"),
    K(gatt_tag_dim, "NC_ENOTNC", "errno22", "gatt_list tagged NC_DIMENSION"),
    K(var_tag_att, "NC_ENOTNC", "errno22", "var_list tagged NC_ATTRIBUTE"),
    K(tag_garbage, "NC_ENOTNC", "errno22", "dim_list tag 0x12345678"),
    K(absent_nonzero, "NC_ENOTNC", "errno22", "ABSENT gatt_list with a count of 3"),
    K(cdf5_absent_short, "NC_ENOTNC", "errno22", "CDF-5, ABSENT with a 4-byte second ZERO"),
    K(dim_nelems_huge, "NC_ENOTNC|NC_ETRUNC", "NC_ENOMEM", "0x7fffffff dimensions in a small file"),
    K(dim_nelems_neg, "NC_ENOTNC|NC_ETRUNC", "NC_ENOMEM", "dimension count 0xffffffff"),
    K(dim_nelems_more, "NC_ENOTNC|NC_ETRUNC", "errno22", "5 dimensions claimed, 3 present"),
    K(gatt_nelems_huge, "NC_ENOTNC|NC_ETRUNC", "NC_ENOMEM", "0x7fffffff global attributes"),
    K(gatt_nelems_neg, "NC_ENOTNC|NC_ETRUNC", "NC_ENOMEM", "global attribute count 0x80000000"),
    K(var_nelems_huge, "NC_ENOTNC|NC_ETRUNC", "NC_ENOMEM", "0x7fffffff variables"),
    K(var_nelems_neg, "NC_ENOTNC|NC_ETRUNC", "NC_ENOMEM", "CDF-2, variable count 0xfffffffe"),
    K(vatt_nelems_huge, "NC_ENOTNC|NC_ETRUNC", "NC_ENOMEM", "0x7fffffff attributes of one variable"),
    K(cdf5_dim_nelems_2p60, "NC_ENOTNC|NC_ETRUNC", "NC_ENOMEM", "CDF-5, 2^60 dimensions"),
    K(cdf5_var_nelems_2p60, "NC_ENOTNC|NC_ETRUNC", "NC_ENOMEM", "CDF-5, 2^60 variables"),
    K(cdf5_gatt_nelems_neg, "NC_ENOTNC|NC_ETRUNC", "NC_ENOMEM", "CDF-5, global attribute count 2^64-1"),

    K(name_len_huge, "NC_ENOTNC|NC_ETRUNC", "NC_ENOMEM", "dimension name length 0x7ffffff0"),
    K(name_len_neg, "NC_ENOTNC|NC_ETRUNC", "NC_ENOMEM", "variable name length 0xffffffff"),
    K(name_len_past_eof, "NC_ENOTNC|NC_ETRUNC", "NC_EINVAL", "variable name length reaching past the end of file"),
    K(cdf5_name_len_2p60, "NC_ENOTNC|NC_ETRUNC", "NC_ENOMEM", "CDF-5, attribute name length 2^60"),
    K(name_empty, "NC_EBADNAME|NC_ENOTNC", "NC_NOERR", "dimension with an empty name"),
    K(name_slash, "NC_EBADNAME|NC_ENOTNC", "NC_NOERR", "variable name \"a/b\""),
    K(name_not_utf8, "NC_EBADNAME|NC_ENOTNC", "NC_NOERR", "dimension name with bytes ff fe (not UTF-8)"),
    K(name_control, "NC_EBADNAME|NC_ENOTNC", "NC_NOERR", "variable name with a control character"),
    K(name_embedded_nul, "NC_EBADNAME|NC_ENOTNC", "NC_NOERR", "variable name with a NUL byte inside"),
    K(name_too_long, "NC_EMAXNAME|NC_ENOTNC", "NC_NOERR", "attribute name of 300 bytes"),
    K(name_trailing_space, "NC_EBADNAME|NC_ENOTNC", "NC_NOERR", "dimension name \"y \""),

    K(dup_dim, "NC_ENAMEINUSE|NC_ENOTNC", "NC_NOERR", "two dimensions named x"),
    K(dup_var, "NC_ENAMEINUSE|NC_ENOTNC", "NC_NOERR", "two variables named rec"),
    K(dup_gatt, "NC_ENAMEINUSE|NC_ENOTNC", "NC_NOERR", "two global attributes named title"),
    K(dup_vatt, "NC_ENAMEINUSE|NC_ENOTNC", "NC_NOERR", "two attributes of one variable with one name"),
    K(two_unlimited, "NC_EUNLIMIT|NC_ENOTNC", "NC_NOERR", "two dimensions of length 0"),
    K(recdim_not_first, "NC_EUNLIMPOS", "NC_EUNLIMPOS", "record dimension second in a variable"),
    K(dimid_out_of_range, "NC_EBADDIM", "NC_EBADDIM", "dimid 7 with 3 dimensions"),
    K(dimid_neg, "NC_EBADDIM", "NC_EBADDIM", "dimid 0xffffffff"),
    K(cdf5_dimid_huge, "NC_EBADDIM", "NC_ERANGE", "CDF-5, 8-byte dimid 2^40"),
    K(ndims_huge, "NC_ENOTNC|NC_ETRUNC|NC_EMAXDIMS", "errno7", "variable with 0x7fffffff dimensions"),
    K(ndims_neg, "NC_ENOTNC|NC_ETRUNC|NC_EMAXDIMS", "errno7", "variable ndims 0xffffffff"),
    K(ndims_1025, "NC_EMAXDIMS|NC_ENOTNC", "NC_NOERR,read:NC_EINVALCOORDS", "variable with 1025 (valid) dimids, above NC_MAX_VAR_DIMS"),
    K(cdf5_ndims_2p60, "NC_ENOTNC|NC_ETRUNC|NC_EMAXDIMS", "errno7", "CDF-5, variable ndims 2^60"),

    K(var_type_nat, "NC_EBADTYPE|NC_ENOTNC", "NC_EINVAL", "variable nc_type 0"),
    K(var_type_13, "NC_EBADTYPE|NC_ENOTNC", "NC_EINVAL", "variable nc_type 13"),
    K(var_type_99, "NC_EBADTYPE|NC_ENOTNC", "NC_EINVAL", "CDF-2, variable nc_type 99"),
    K(var_type_neg, "NC_EBADTYPE|NC_ENOTNC", "NC_EINVAL", "variable nc_type 0xffffffff"),
    K(cdf1_var_ubyte, "NC_EBADTYPE|NC_ENOTNC", "NC_NOERR", "CDF-1 variable of CDF-5 type NC_UBYTE"),
    K(cdf2_var_int64, "NC_EBADTYPE|NC_ENOTNC", "NC_NOERR", "CDF-2 variable of CDF-5 type NC_INT64"),
    K(cdf5_var_type_12, "NC_EBADTYPE|NC_ENOTNC", "SIGFPE", "CDF-5, variable nc_type 12 (NC_STRING)"),
    K(att_type_nat, "NC_EBADTYPE|NC_ENOTNC", "NC_EINVAL", "global attribute nc_type 0"),
    K(att_type_99, "NC_EBADTYPE|NC_ENOTNC", "NC_EINVAL", "variable attribute nc_type 99"),
    K(cdf1_att_uint, "NC_EBADTYPE|NC_ENOTNC", "NC_NOERR", "CDF-1 attribute of CDF-5 type NC_UINT"),

    K(att_nelems_huge, "NC_ENOTNC|NC_ETRUNC", "NC_ENOMEM", "NC_INT attribute with 0x7fffffff values"),
    K(att_nelems_past_eof, "NC_ENOTNC|NC_ETRUNC", "NC_EINVAL", "NC_DOUBLE attribute values reaching past the end"),
    K(att_nelems_neg, "NC_ENOTNC|NC_ETRUNC", "NC_ENOMEM", "NC_CHAR attribute count 0xfffffffc"),
    K(cdf5_att_size_overflow, "NC_ENOTNC|NC_ETRUNC", "NC_EINVAL", "CDF-5, NC_DOUBLE attribute of 2^61+1 values (bytes wrap to 8)"),
    K(cdf5_att_nelems_2p60, "NC_ENOTNC|NC_ETRUNC", "NC_ENOMEM", "CDF-5, NC_UBYTE attribute of 2^60 values"),

    K(cdf5_dim_product_overflow, "NC_EVARSIZE|NC_ENOTNC", "NC_ENOTNC", "CDF-5, 2^40 x 2^40 variable: element count overflows 64 bits"),
    K(cdf5_vsize_overflow, "NC_EVARSIZE", "NC_EVARSIZE", "CDF-5, 2^31 x 2^31 doubles: byte count overflows 64 bits"),
    K(cdf5_rec_product_overflow, "NC_EVARSIZE|NC_ETRUNC|NC_ENOTNC|@read", "SIGSEGV", "CDF-5, 8 GiB records times 2^40 records overflows"),
    K(cdf1_var_too_big, "NC_EVARSIZE|NC_ENOTNC", "NC_ENOTNC", "CDF-1, 2 GiB variable that is not the last one (next begin > 2^31)"),
    K(cdf2_var_too_big, "NC_EVARSIZE", "NC_EVARSIZE", "CDF-2, 4 GiB variable that is not the last one"),
    K(cdf1_huge_last_var, "NC_ETRUNC|NC_ENOTNC|@read", "NC_NOERR", "CDF-1, legal 4 GiB last variable in a tiny file"),
    K(dim_len_neg, "NC_EDIMSIZE|NC_ENOTNC|NC_EVARSIZE", "NC_ENOTNC", "CDF-1 dimension length 0x80000000 (negative)"),
    K(cdf5_dim_len_neg, "NC_EDIMSIZE|NC_ENOTNC|NC_EVARSIZE", "NC_NOERR", "CDF-5 dimension length 2^63 (negative)"),
    K(vsize_wrong, "NC_NOERR", "NC_NOERR", "vsize field disagrees with the shape (netCDF-C ignores vsize; so do we)"),

    K(begin_past_eof, "NC_ETRUNC|NC_ENOTNC|@read", "NC_ENOTNC", "fixed variable begin 1000000 in a small file"),
    K(begin_in_header, "NC_ENOTNC", "NC_ENOTNC", "begin 8, inside the header"),
    K(begin_zero, "NC_ENOTNC", "NC_ENOTNC", "CDF-2, begin 0"),
    K(begin_overlap, "NC_ENOTNC", "NC_ENOTNC", "second fixed variable overlaps the first"),
    K(rec_begin_in_fixed, "NC_ENOTNC", "NC_ENOTNC", "record variable begins inside the fixed data"),
    K(rec_begins_overlap, "NC_ENOTNC", "NC_ENOTNC", "two record variables overlap within a record"),
    K(cdf2_begin_huge, "NC_ETRUNC|NC_ENOTNC|@read", "NC_ENOTNC", "CDF-2, begin 2^62"),
    K(cdf2_begin_neg, "NC_ENOTNC|NC_ETRUNC|@read", "NC_ENOTNC", "CDF-2, begin 2^63 (negative as off_t)"),
    K(cdf5_begin_wrap, "NC_ENOTNC|NC_ETRUNC|NC_EVARSIZE", "NC_ENOTNC", "CDF-5, begin 2^64-8: begin + vsize wraps"),

    K(numrecs_more, "NC_ETRUNC|NC_ENOTNC|@read", "NC_NOERR", "numrecs 1000, data for 2 records"),
    K(numrecs_one_more, "NC_ETRUNC|NC_ENOTNC|@read", "NC_NOERR", "CDF-2, numrecs 3, data for 2 records"),
    K(numrecs_2p31, "NC_ETRUNC|NC_ENOTNC|@read", "NC_NOERR", "CDF-1 numrecs 0x80000000, data for 2 records"),
    K(numrecs_streaming, "NC_NOERR|NC_ENOTNC", "NC_NOERR", "numrecs 0xffffffff (STREAMING): the records the file holds, or rejected; never 2^32-1 records of fill"),
    K(cdf5_numrecs_2p60, "NC_EVARSIZE|NC_ETRUNC|NC_ENOTNC|@read", "SIGSEGV", "CDF-5, numrecs 2^60"),
    K(trunc_after_header, "NC_ETRUNC|NC_ENOTNC|@read", "NC_NOERR", "header complete, no data at all"),
    K(trunc_fixed_data, "NC_ETRUNC|NC_ENOTNC|@read", "NC_NOERR", "ends inside the second fixed variable"),
    K(trunc_record_data, "NC_ETRUNC|NC_ENOTNC|@read", "NC_NOERR", "ends 4 bytes before the last record's end"),
    K(cdf5_trunc_fixed_data, "NC_ETRUNC|NC_ENOTNC|@read", "NC_NOERR", "CDF-5, ends inside the last fixed variable"),
    K(trunc_record_no_fixed, "NC_ETRUNC|NC_ENOTNC|@read", "NC_NOERR", "CDF-2, only record variables, last byte missing"),

    K(valid_cdf1, "NC_NOERR", "NC_NOERR", "control: the well-formed CDF-1 base file"),
    K(valid_cdf2, "NC_NOERR", "NC_NOERR", "control: the well-formed CDF-2 base file"),
    K(valid_cdf5, "NC_NOERR", "NC_NOERR", "control: the well-formed CDF-5 base file"),
    K(valid_minimal, "NC_NOERR", "NC_NOERR", "control: 32-byte header, everything ABSENT"),
    K(valid_hdf5_sig_after, "NC_NOERR", "NC_NOERR",
      "CDF-1 base file, then an HDF5 signature at 512 (classic by its magic)"),
    K(valid_trailing_bytes, "NC_NOERR", "NC_NOERR", "control: bytes after the data are ignored"),
    K(pad_nonzero_name, "NC_NOERR", "NC_NOERR", "non-zero name padding: tolerated, as netCDF-C does"),
    K(pad_nonzero_att, "NC_NOERR", "NC_NOERR", "non-zero attribute value padding: tolerated, as netCDF-C does"),
};
#define NCASES (sizeof cases / sizeof cases[0])

static const char manifest_head[] =
    "# tests/corrupt/files/MANIFEST -- generated by tests/corrupt/mkcorrupt.c;\n"
    "# do not edit.  Regenerate with `make regen-corrupt`; `make check` runs\n"
    "# mkcorrupt to confirm these files are exactly what the generator writes.\n"
    "#\n"
    "# Columns: file, expected ncs_open result, netCDF-C 4.9.0's result (nc_open,\n"
    "# then reading every variable; for information only: errnoN is a positive\n"
    "# errno, SIGxxx a crash, \"NC_NOERR,read:X\" a read failing with X, and\n"
    "# NC_NOERR on a truncated file means it read the missing data as fill),\n"
    "# description.\n"
    "# Expected: one NC_E* name, or alternatives joined by '|'.  @read means\n"
    "# ncs_open may succeed provided reading the data then fails: a file\n"
    "# shorter than its data must never read back as fill values.\n"
    "# Non-zero header padding is tolerated (netCDF-C accepts it unless built\n"
    "# with strict padding); a vsize that disagrees with the shape is ignored,\n"
    "# as netCDF-C ignores it (CDF-2 writers store 2^32-1 for large variables).\n";

static void make_manifest(buf *o)
{
    put_bytes(o, manifest_head, strlen(manifest_head));
    for (size_t i = 0; i < NCASES; i++) {
        char line[512];
        int n = snprintf(line, sizeof line, "%-28s %-36s %-12s %s\n",
                         cases[i].name, cases[i].expect, cases[i].netcdfc,
                         cases[i].desc);
        put_bytes(o, line, (size_t)n);
    }
}

/* ---- output and comparison ---------------------------------------------- */
static char *join(const char *dir, const char *name)
{
    size_t n = strlen(dir) + strlen(name) + 2;
    char *p = xrealloc(NULL, n);
    snprintf(p, n, "%s/%s", dir, name);
    return p;
}

static int write_file(const char *dir, const char *name, const buf *b)
{
    char *path = join(dir, name);
    FILE *f = fopen(path, "wb");
    int bad = !f || (b->n && fwrite(b->b, 1, b->n, f) != b->n);
    if (f && fclose(f) != 0)
        bad = 1;
    if (bad)
        fprintf(stderr, "mkcorrupt: cannot write %s: %s\n", path, strerror(errno));
    free(path);
    return bad;
}

/* 0 when the file dir/name holds exactly b. */
static int compare_file(const char *dir, const char *name, const buf *b)
{
    char *path = join(dir, name);
    FILE *f = fopen(path, "rb");
    int bad = 0;
    if (!f) {
        fprintf(stderr, "mkcorrupt: %s: missing (%s)\n", path, strerror(errno));
        free(path);
        return 1;
    }
    unsigned char chunk[4096];
    size_t pos = 0, got;
    while (!bad && (got = fread(chunk, 1, sizeof chunk, f)) > 0) {
        if (pos + got > b->n || memcmp(chunk, b->b + pos, got) != 0)
            bad = 1;
        pos += got;
    }
    if (!bad && pos != b->n)
        bad = 1;
    if (bad)
        fprintf(stderr, "mkcorrupt: %s differs from the generator's output\n", path);
    fclose(f);
    free(path);
    return bad;
}

static int known_name(const char *name)
{
    if (strcmp(name, "MANIFEST") == 0)
        return 1;
    for (size_t i = 0; i < NCASES; i++)
        if (strcmp(name, cases[i].name) == 0)
            return 1;
    return 0;
}

int main(int argc, char **argv)
{
    const char *dir = NULL;
    int writing = 0;
    char *defdir = NULL;

    if (argc == 2 && strcmp(argv[1], "-l") == 0) {
        for (size_t i = 0; i < NCASES; i++)
            printf("%s\n", cases[i].name);
        return 0;
    }
    if (argc == 3 && strcmp(argv[1], "-o") == 0) {
        dir = argv[2];
        writing = 1;
    } else if (argc == 3 && strcmp(argv[1], "-c") == 0) {
        dir = argv[2];
    } else if (argc == 1) {
        const char *srcdir = getenv("srcdir");
        if (srcdir) {
            defdir = join(srcdir, "tests/corrupt/files");
            dir = defdir;
        } else {
            dir = NCS_CORRUPT_DIR;
        }
    } else {
        fprintf(stderr, "usage: mkcorrupt [-o DIR | -c DIR | -l]\n");
        return 2;
    }
    if (writing)
        mkdir(dir, 0777);   /* EEXIST is fine; write errors are reported */

    int bad = 0;
    for (size_t i = 0; i < NCASES; i++) {
        for (size_t j = 0; j < i; j++)
            if (strcmp(cases[i].name, cases[j].name) == 0) {
                fprintf(stderr, "mkcorrupt: duplicate case %s\n", cases[i].name);
                bad = 1;
            }
        buf b = {0};
        cases[i].build(&b);
        bad |= writing ? write_file(dir, cases[i].name, &b)
                       : compare_file(dir, cases[i].name, &b);
        free(b.b);
    }
    buf m = {0};
    make_manifest(&m);
    bad |= writing ? write_file(dir, "MANIFEST", &m) : compare_file(dir, "MANIFEST", &m);
    free(m.b);

    if (!writing) {
        DIR *d = opendir(dir);
        struct dirent *e;
        while (d && (e = readdir(d)) != NULL) {
            if (e->d_name[0] == '.' || known_name(e->d_name))
                continue;
            fprintf(stderr, "mkcorrupt: %s/%s is not made by the generator\n",
                    dir, e->d_name);
            bad = 1;
        }
        if (d)
            closedir(d);
        if (!bad)
            printf("mkcorrupt: %zu files and MANIFEST in %s match the generator\n",
                   NCASES, dir);
    }
    free(defdir);
    return bad;
}
