/*
 * check_slab.c -- the hyperslab matrix of ncs_get / ncs_put.
 *
 * For each layout and each rank 0..4, one file holds a fixed and a record
 * variable of every type the format allows.  The layouts are the three
 * classic formats and the chunked back end (netCDF-4 classic model) with
 * default chunks, with small chunks (2 or 3 elements along each dimension)
 * that cut through every request, and with the filter pipelines
 * shuffle+deflate, zstd and Fletcher-32.  Every element's value
 * encodes its coordinates (val below), so a misplaced element names where it
 * came from.  Each variable is then read and written through a list of
 * slabs (full, single point, vectors along each dimension, planes, zero
 * counts, strides 1, 2, 3 and past the extent) times a list of index maps
 * (none, explicit natural, transposed, permuted, negative, padded with gaps)
 * times memory types (the variable's own and converting ones), and the
 * memory is compared with a reference computed here from the coordinates,
 * including the untouched gaps of padded maps.
 *
 * The conversion tests check NCS_ERANGE (in-range values still transferred)
 * and NCS_ECHAR; the bounds tests check netCDF-C's exact codes for starts,
 * counts and strides outside a fixed dimension.  All of them run on every
 * layout: the back end must not change a value or a status code.
 */
#include "testutil.h"

#ifdef __GLIBC__
#include <malloc.h>
#endif

#define PROG "slab"
#define MAXR 4

static const size_t shapes[MAXR + 1][MAXR] = {
    {0}, {7}, {4, 5}, {3, 4, 5}, {2, 3, 4, 5}};

/* ---- layouts: classic formats and chunked storage settings -------------- */

/* CH_DEFAULT: chunked, the default shape; CH_LIBRARY: no storage call at
 * all (fixed-size variables contiguous, record variables chunked) */
enum { CH_NONE, CH_DEFAULT, CH_SMALL, CH_LIBRARY };

typedef struct layout {
    const char *name;
    const tu_format *f;          /* create flags, format, CDF-5 types */
    int chunks;                  /* CH_NONE: a classic file */
    int shuffle, deflate, zstd, fletcher32;
} layout;

static const tu_format nc4_classic = {
    "netCDF-4 classic", NCS_NETCDF4 | NCS_CLASSIC_MODEL, NCS_FORMAT_NETCDF4_CLASSIC, 0};

static const layout layouts[] = {
    {"CDF-1", &tu_formats[0], CH_NONE, 0, 0, 0, 0},
    {"CDF-2", &tu_formats[1], CH_NONE, 0, 0, 0, 0},
    {"CDF-5", &tu_formats[2], CH_NONE, 0, 0, 0, 0},
    {"chunked, default chunks", &nc4_classic, CH_DEFAULT, 0, 0, 0, 0},
    {"chunked, small chunks", &nc4_classic, CH_SMALL, 0, 0, 0, 0},
    {"chunked, small chunks, shuffle+deflate", &nc4_classic, CH_SMALL, 1, 5, 0, 0},
    {"chunked, small chunks, zstd", &nc4_classic, CH_SMALL, 0, 0, 3, 0},
    {"chunked, small chunks, fletcher32", &nc4_classic, CH_SMALL, 0, 0, 0, 1},
    {"chunked, default chunks, shuffle+deflate+fletcher32", &nc4_classic, CH_DEFAULT, 1, 1, 0, 1},
    {"netCDF-4, default storage", &nc4_classic, CH_LIBRARY, 0, 0, 0, 0},
};
#define NLAYOUTS ((int)TU_NELEMS(layouts))
/* The layouts whose storage settings matter to nothing but the matrix:
 * the classic formats and one chunked layout. */
#define NBASIC 4

/* Small chunks: 2 or 3 elements, always fewer than the dimension has (when
 * it has more than one), so requests cross chunk boundaries everywhere. */
static size_t small_chunk(int rank, int d, size_t len)
{
    size_t c = 2 + (size_t)((d + rank) % 2);
    if (c >= len)
        c = len > 1 ? len - 1 : 1;
    return c;
}

/* Applies the layout's storage settings to a variable just defined, and
 * checks that they read back. */
static void set_storage(int ncid, int varid, const layout *lo, int rank,
                        const size_t *shape)
{
    size_t ch[MAXR], got[MAXR];
    int d, storage = -1, sh = -1, de = -1, lev = -1, z = -1, fl = -1;
    if (lo->chunks == CH_NONE || lo->chunks == CH_LIBRARY || rank == 0)
        return;
    if (lo->chunks == CH_DEFAULT) {
        NCS_OK(ncs_def_var_chunking(ncid, varid, NCS_CHUNKED, NULL));
        NCS_OK(ncs_inq_var_chunking(ncid, varid, &storage, got));
        ck_assert_int_eq(storage, NCS_CHUNKED);
    }
    if (lo->chunks == CH_SMALL) {
        for (d = 0; d < rank; d++)
            ch[d] = small_chunk(rank, d, shape[d]);
        NCS_OK(ncs_def_var_chunking(ncid, varid, NCS_CHUNKED, ch));
        NCS_OK(ncs_inq_var_chunking(ncid, varid, &storage, got));
        ck_assert_int_eq(storage, NCS_CHUNKED);
        for (d = 0; d < rank; d++)
            ck_assert_uint_eq(got[d], ch[d]);
    }
    if (lo->shuffle || lo->deflate)
        NCS_OK(ncs_def_var_deflate(ncid, varid, lo->shuffle, lo->deflate > 0, lo->deflate));
    if (lo->zstd)
        NCS_OK(ncs_def_var_zstd(ncid, varid, lo->zstd));
    if (lo->fletcher32)
        NCS_OK(ncs_def_var_fletcher32(ncid, varid, 1));
    NCS_OK(ncs_inq_var_deflate(ncid, varid, &sh, &de, &lev));
    NCS_OK(ncs_inq_var_zstd(ncid, varid, &z));
    NCS_OK(ncs_inq_var_fletcher32(ncid, varid, &fl));
    ck_assert_int_eq(sh, lo->shuffle);
    ck_assert_int_eq(de, lo->deflate > 0);
    ck_assert_int_eq(lev, lo->deflate);
    ck_assert_int_eq(z, lo->zstd);
    ck_assert_int_eq(fl, lo->fletcher32);
}

/* After a reopen: the settings are what the file says. */
static void check_storage(int ncid, int varid, const layout *lo, int rank,
                          const size_t *shape, int rec)
{
    size_t got[MAXR];
    int d, storage = -1, sh = -1, de = -1, lev = -1, z = -1, fl = -1;
    int contiguous = lo->chunks == CH_NONE || rank == 0 || (lo->chunks == CH_LIBRARY && !rec);
    NCS_OK(ncs_inq_var_chunking(ncid, varid, &storage, got));
    ck_assert_int_eq(storage, contiguous ? NCS_CONTIGUOUS : NCS_CHUNKED);
    if (lo->chunks == CH_SMALL && rank > 0)
        for (d = 0; d < rank; d++)
            ck_assert_msg(got[d] == small_chunk(rank, d, shape[d]),
                          "%s: chunk size %d is %zu after reopen, defined %zu",
                          lo->name, d, got[d], small_chunk(rank, d, shape[d]));
    if (rank == 0)
        return;
    NCS_OK(ncs_inq_var_deflate(ncid, varid, &sh, &de, &lev));
    NCS_OK(ncs_inq_var_zstd(ncid, varid, &z));
    NCS_OK(ncs_inq_var_fletcher32(ncid, varid, &fl));
    ck_assert_int_eq(sh, lo->shuffle);
    ck_assert_int_eq(de, lo->deflate > 0);
    ck_assert_int_eq(lev, lo->deflate);
    ck_assert_int_eq(z, lo->zstd);
    ck_assert_int_eq(fl, lo->fletcher32);
}

static int is8(int t)
{
    return t == NCS_BYTE || t == NCS_UBYTE;
}

/* The value of element c of a variable of type t and the given shape, in
 * generation gen (0: as first written, 1: as rewritten by put tests).  All
 * values fit every numeric type, so any memory type can read them. */
static long long val(int t, int rank, const size_t *shape, const size_t *c,
                     int gen)
{
    size_t lin = 0, dig = 0;
    int d;
    for (d = 0; d < rank; d++) {
        lin = lin * shape[d] + c[d];
        dig = dig * 10 + c[d];
    }
    if (t == NCS_CHAR)
        return 33 + (long long)((lin + 47 * (size_t)gen) % 94);
    if (is8(t))
        return (long long)((1 + lin + 60 * (size_t)gen) % 127);
    return 1 + (long long)dig + 5000LL * gen;
}

static void coord_str(char *out, int rank, const size_t *c)
{
    int d, n = 0;
    out[n++] = '(';
    for (d = 0; d < rank; d++)
        n += sprintf(out + n, d ? ",%zu" : "%zu", c[d]);
    strcpy(out + n, ")");
}

/* ---- slabs and maps ----------------------------------------------------- */

typedef struct slab {
    const char *what;
    size_t start[MAXR], count[MAXR];
    ptrdiff_t stride[MAXR];
    int strided;                 /* pass stride (else NULL) */
} slab;

static size_t ceil_div(size_t a, size_t b)
{
    return (a + b - 1) / b;
}

static void slab_full(slab *s, int rank, const size_t *shape, const char *w)
{
    int d;
    memset(s, 0, sizeof *s);
    s->what = w;
    for (d = 0; d < rank; d++) {
        s->count[d] = shape[d];
        s->stride[d] = 1;
    }
}

/* Fills list with the slabs of a variable of this shape; returns how many. */
static int make_slabs(slab *list, int rank, const size_t *shape)
{
    int n = 0, d, e;
    size_t st;
    slab_full(&list[n++], rank, shape, "full");
    if (rank == 0)
        return n;
    slab_full(&list[n], rank, shape, "point");
    for (d = 0; d < rank; d++) {
        list[n].start[d] = shape[d] / 2;
        list[n].count[d] = 1;
    }
    n++;
    slab_full(&list[n], rank, shape, "last point");
    for (d = 0; d < rank; d++) {
        list[n].start[d] = shape[d] - 1;
        list[n].count[d] = 1;
    }
    n++;
    for (d = 0; d < rank; d++) {       /* vectors along each dimension */
        slab_full(&list[n], rank, shape, "vector");
        for (e = 0; e < rank; e++)
            if (e != d) {
                list[n].start[e] = shape[e] - 1 - (size_t)(e % 2);
                list[n].count[e] = 1;
            }
        n++;
    }
    for (d = 0; d < rank; d++)         /* planes */
        for (e = d + 1; e < rank && rank > 2; e++) {
            int k;
            slab_full(&list[n], rank, shape, "plane");
            for (k = 0; k < rank; k++)
                if (k != d && k != e) {
                    list[n].start[k] = 1;
                    list[n].count[k] = 1;
                }
            n++;
        }
    for (d = 0; d < rank; d++) {       /* zero counts, start at the end */
        slab_full(&list[n], rank, shape, "zero count at end");
        list[n].start[d] = shape[d];
        list[n].count[d] = 0;
        n++;
        slab_full(&list[n], rank, shape, "zero count");
        list[n].start[d] = 1;
        list[n].count[d] = 0;
        n++;
    }
    for (st = 2; st <= 3; st++) {      /* strides 2 and 3, from 0 and 1 */
        slab_full(&list[n], rank, shape, "stride from 0");
        list[n].strided = 1;
        for (d = 0; d < rank; d++) {
            list[n].stride[d] = (ptrdiff_t)st;
            list[n].count[d] = ceil_div(shape[d], st);
        }
        n++;
        slab_full(&list[n], rank, shape, "stride from 1");
        list[n].strided = 1;
        for (d = 0; d < rank; d++) {
            list[n].start[d] = 1;
            list[n].stride[d] = (ptrdiff_t)st;
            list[n].count[d] = ceil_div(shape[d] - 1, st);
        }
        n++;
    }
    for (d = 0; d < rank; d++) {       /* stride past the extent */
        slab_full(&list[n], rank, shape, "stride > extent");
        list[n].strided = 1;
        list[n].stride[d] = (ptrdiff_t)shape[d] + 3;
        list[n].start[d] = d % 2 ? shape[d] - 1 : 0;
        list[n].count[d] = 1;
        n++;
    }
    slab_full(&list[n], rank, shape, "mixed strides");
    list[n].strided = 1;
    list[n].stride[0] = 2;
    list[n].count[0] = ceil_div(shape[0], 2);
    list[n].stride[rank - 1] = 3;
    list[n].start[rank - 1] = 1;
    list[n].count[rank - 1] = ceil_div(shape[rank - 1] - 1, 3);
    n++;
    slab_full(&list[n], rank, shape, "explicit unit strides");
    list[n].strided = 1;
    list[n].start[0] = 1;
    list[n].count[0] = shape[0] - 1;
    n++;
    return n;
}

enum { MAP_NULL, MAP_NATURAL, MAP_TRANSPOSE, MAP_PERMUTE, MAP_NEGATIVE,
       MAP_NEG_FIRST, MAP_PADDED, MAP_SWAP_LAST2, MAP_SWAP_LAST2_NEG,
       MAP_SWAP_LAST2_PADDED, NMAPS };
static const char *const map_names[NMAPS] = {
    "NULL", "natural", "transposed", "permuted", "negative",
    "negative first dim", "padded", "last two swapped",
    "last two swapped, negative", "last two swapped, rows padded"};

/* Index map of kind k for count c; returns 0 for MAP_NULL (no map). */
static int make_map(int k, int rank, const size_t *c, ptrdiff_t *im)
{
    int d, ord[MAXR];
    ptrdiff_t m = 1;
    if (k == MAP_NULL || rank == 0)
        return k != MAP_NULL;
    for (d = rank - 1; d >= 0; d--) {        /* natural C order */
        im[d] = m;
        m *= (ptrdiff_t)(c[d] ? c[d] : 1);
    }
    switch (k) {
    case MAP_TRANSPOSE:                      /* Fortran order */
        m = 1;
        for (d = 0; d < rank; d++) {
            im[d] = m;
            m *= (ptrdiff_t)(c[d] ? c[d] : 1);
        }
        break;
    case MAP_PERMUTE:                        /* slowest .. fastest: 1,2,..,0 */
        for (d = 0; d < rank; d++)
            ord[d] = (d + 1) % rank;
        m = 1;
        for (d = rank - 1; d >= 0; d--) {
            im[ord[d]] = m;
            m *= (ptrdiff_t)(c[ord[d]] ? c[ord[d]] : 1);
        }
        break;
    case MAP_NEGATIVE:
        for (d = 0; d < rank; d++)
            im[d] = -im[d];
        break;
    case MAP_NEG_FIRST:
        im[0] = -im[0];
        break;
    case MAP_PADDED:                         /* every element 2 apart, rows +1 */
        m = 2;
        for (d = rank - 1; d >= 0; d--) {
            im[d] = m;
            m *= (ptrdiff_t)(c[d] + 1);
        }
        break;
    case MAP_SWAP_LAST2:                     /* each last-two plane transposed */
    case MAP_SWAP_LAST2_NEG:                 /* ... walked backwards in memory */
        if (rank >= 2) {
            im[rank - 1] = (ptrdiff_t)(c[rank - 2] ? c[rank - 2] : 1);
            im[rank - 2] = 1;
        }
        if (k == MAP_SWAP_LAST2_NEG)
            for (d = 0; d < rank; d++)
                im[d] = -im[d];
        break;
    case MAP_SWAP_LAST2_PADDED:              /* ... 3 elements between rows */
        if (rank >= 2) {
            m = (ptrdiff_t)(c[rank - 2] ? c[rank - 2] : 1) + 3;
            im[rank - 1] = m;
            im[rank - 2] = 1;
            m *= (ptrdiff_t)(c[rank - 1] ? c[rank - 1] : 1);
            for (d = rank - 3; d >= 0; d--) {
                im[d] = m;
                m *= (ptrdiff_t)(c[d] ? c[d] : 1);
            }
        }
        break;
    default:
        break;
    }
    return 1;
}

/* Iterates k over the count box; returns 0 after the last. */
static int next_index(int rank, const size_t *count, size_t *k)
{
    int d;
    for (d = rank - 1; d >= 0; d--) {
        if (++k[d] < count[d])
            return 1;
        k[d] = 0;
    }
    return 0;
}

static size_t slab_nelems(int rank, const slab *s)
{
    size_t n = 1;
    int d;
    for (d = 0; d < rank; d++)
        n *= s->count[d];
    return n;
}

/* Memory for one request: an allocation, the buffer pointer passed to the
 * library, and the element offset of each slab element from that pointer. */
typedef struct membuf {
    unsigned char *base;
    size_t nbytes;
    size_t esize;
    char *ptr;
    ptrdiff_t lo;                /* lowest offset (elements) */
    size_t nelems;               /* elements in the allocation */
} membuf;

static ptrdiff_t mem_off(int rank, const ptrdiff_t *im, int have_map,
                         const size_t *count, const size_t *k)
{
    ptrdiff_t o = 0, m = 1;
    int d;
    if (have_map) {
        for (d = 0; d < rank; d++)
            o += (ptrdiff_t)k[d] * im[d];
        return o;
    }
    for (d = rank - 1; d >= 0; d--) {
        o += (ptrdiff_t)k[d] * m;
        m *= (ptrdiff_t)count[d];
    }
    return o;
}

static void mem_alloc(membuf *mb, int rank, const slab *s, const ptrdiff_t *im,
                      int have_map, int memtype)
{
    ptrdiff_t lo = 0, hi = 0;
    int d;
    size_t n = slab_nelems(rank, s);
    if (have_map) {
        for (d = 0; d < rank; d++) {
            ptrdiff_t e = s->count[d] ? (ptrdiff_t)(s->count[d] - 1) * im[d] : 0;
            if (e < 0)
                lo += e;
            else
                hi += e;
        }
    } else {
        hi = n ? (ptrdiff_t)n - 1 : 0;
    }
    mb->esize = tu_size(memtype);
    mb->lo = lo;
    mb->nelems = (size_t)(hi - lo + 1) + 2;      /* one guard each side */
    mb->nbytes = mb->nelems * mb->esize;
    mb->base = malloc(mb->nbytes);
    ck_assert(mb->base != NULL);
    memset(mb->base, 0x5a, mb->nbytes);
    mb->ptr = (char *)mb->base + (size_t)(1 - lo) * mb->esize;
}

/* The memory type used for the variable type vt by conversion variant cv
 * (0: NCS_NAT, 1: the variable's own type, 2.. converting types). */
static int conv_memtype(int vt, int cv, int cdf5)
{
    static const int conv[] = {NCS_DOUBLE, NCS_INT, NCS_FLOAT, NCS_SHORT,
                               NCS_INT64, NCS_UBYTE, NCS_USHORT, NCS_UINT64,
                               NCS_BYTE, NCS_UINT};
    int m;
    if (cv == 0)
        return NCS_NAT;
    if (cv == 1)
        return vt;
    if (vt == NCS_CHAR)
        return -1;
    /* two converting types per variable, chosen to cover every pair over
     * the matrix; the memory types are all usable on any format. */
    m = conv[(vt * 3 + cv * 5 + cdf5) % TU_NELEMS(conv)];
    if (!is8(vt) && is8(m))      /* coordinate values need 16 bits */
        m = cv == 2 ? NCS_INT64 : NCS_USHORT;
    if (m == vt)
        m = vt == NCS_DOUBLE ? NCS_INT64 : NCS_DOUBLE;
    return m;
}
#define NCONV 4

/* ---- the per-file fixture ------------------------------------------------ */

typedef struct varinfo {
    int varid;
    int type;
    int rec;
    int rank;
    size_t shape[MAXR];
} varinfo;

typedef struct matrix_file {
    char path[256];
    int ncid;
    int nvars;
    varinfo vars[2 * 11];
} matrix_file;

/* The current expected value at c: generation 0, or 1 inside slab s. */
static long long expect_at(const varinfo *v, const size_t *c, const slab *s)
{
    int d, in = s != NULL;
    for (d = 0; in && d < v->rank; d++) {
        size_t st = s->strided ? (size_t)s->stride[d] : 1;
        if (c[d] < s->start[d] || (c[d] - s->start[d]) % st != 0 ||
            (c[d] - s->start[d]) / st >= s->count[d])
            in = 0;
    }
    return val(v->type, v->rank, v->shape, c, in);
}

static void make_file(matrix_file *mf, const layout *lo, int rank)
{
    int dimids[MAXR + 1], t, d, rec, fmt = -1;
    char name[64];
    const size_t *shape = shapes[rank];
    const tu_format *f = lo->f;

    snprintf(name, sizeof name, "matrix_%d_%d", (int)(lo - layouts), rank);
    tu_path(mf->path, sizeof mf->path, PROG, name);
    NCS_OK(ncs_create(mf->path, NCS_CLOBBER | f->cmode, &mf->ncid));
    NCS_OK(ncs_inq_format(mf->ncid, &fmt));
    ck_assert_int_eq(fmt, f->format);
    NCS_OK(ncs_def_dim(mf->ncid, "t", NCS_UNLIMITED, &dimids[0]));
    for (d = 0; d < rank; d++) {
        snprintf(name, sizeof name, "d%d", d);
        NCS_OK(ncs_def_dim(mf->ncid, name, shape[d], &dimids[d + 1]));
    }
    mf->nvars = 0;
    for (t = NCS_BYTE; t <= tu_last_type(f); t++)
        for (rec = 0; rec <= (rank > 0); rec++) {
            varinfo *v = &mf->vars[mf->nvars++];
            int vd[MAXR];
            v->type = t;
            v->rec = rec;
            v->rank = rank;
            memcpy(v->shape, shape, sizeof v->shape);
            for (d = 0; d < rank; d++)
                vd[d] = dimids[d + 1];
            if (rec)
                vd[0] = dimids[0];
            snprintf(name, sizeof name, "%s_%s", rec ? "r" : "f",
                     tu_type_name(t));
            NCS_OK(ncs_def_var(mf->ncid, name, t, rank, vd, &v->varid));
            set_storage(mf->ncid, v->varid, lo, rank, shape);
        }
    NCS_OK(ncs_enddef(mf->ncid));
}

/* Writes generation 0 of every variable: fixed ones whole, record ones one
 * record at a time, interleaved across variables so records grow. */
static void fill_file(matrix_file *mf)
{
    int i, rank = mf->vars[0].rank;
    size_t r, nrec = rank ? shapes[rank][0] : 1;
    for (r = 0; r < nrec; r++)
        for (i = 0; i < mf->nvars; i++) {
            varinfo *v = &mf->vars[i];
            slab s;
            size_t k[MAXR] = {0}, c[MAXR], n = 0;
            void *buf;
            int d;
            if (!v->rec && r > 0)
                continue;
            slab_full(&s, rank, v->shape, "init");
            if (v->rec) {
                s.start[0] = r;
                s.count[0] = 1;
            }
            buf = malloc(slab_nelems(rank, &s) * tu_size(v->type) + 1);
            do {
                for (d = 0; d < rank; d++)
                    c[d] = s.start[d] + k[d];
                tu_store(v->type, buf, (ptrdiff_t)n++, val(v->type, rank, v->shape, c, 0));
            } while (rank > 0 && next_index(rank, s.count, k));
            NCS_OK(ncs_put(mf->ncid, v->varid, rank ? s.start : NULL,
                           rank ? s.count : NULL, NULL, NULL, NCS_NAT, buf));
            free(buf);
        }
}

/* Reads slab s of v with map kind mk and memory type mt, and checks every
 * element against the state (gen 1 inside cur, else gen 0), and that gaps
 * and guards are untouched. */
static void check_get(int ncid, const varinfo *v, const slab *s, int mk,
                      int mt, const slab *cur)
{
    ptrdiff_t im[MAXR];
    int have_map = make_map(mk, v->rank, s->count, im);
    int emt = mt == NCS_NAT ? v->type : mt;
    membuf mb;
    size_t k[MAXR] = {0}, c[MAXR], n = slab_nelems(v->rank, s), i;
    unsigned char *touched;
    int d, status;
    char where[64];

    mem_alloc(&mb, v->rank, s, im, have_map, emt);
    touched = calloc(mb.nelems, 1);
    status = ncs_get(ncid, v->varid, v->rank ? s->start : NULL,
                     v->rank ? s->count : NULL,
                     s->strided ? s->stride : NULL, have_map ? im : NULL, mt,
                     mb.ptr);
    ck_assert_msg(status == NCS_NOERR,
                  "get %s var %s rank %d slab '%s' map %s memtype %s: %d (%s)",
                  v->rec ? "record" : "fixed", tu_type_name(v->type), v->rank,
                  s->what, map_names[mk], tu_type_name(mt), status,
                  ncs_strerror(status));
    if (n > 0)
        do {
            ptrdiff_t o = mem_off(v->rank, im, have_map, s->count, k);
            long long want, got;
            for (d = 0; d < v->rank; d++)
                c[d] = s->start[d] + k[d] * (s->strided ? (size_t)s->stride[d] : 1);
            want = expect_at(v, c, cur);
            got = tu_load(emt, mb.ptr, o);
            touched[o + 1 - mb.lo] = 1;
            if (got != want) {
                coord_str(where, v->rank, c);
                ck_abort_msg("get %s %s rank %d slab '%s' map %s memtype %s: "
                             "element %s = %lld, expected %lld",
                             v->rec ? "record" : "fixed",
                             tu_type_name(v->type), v->rank, s->what,
                             map_names[mk], tu_type_name(mt), where, got, want);
            }
        } while (v->rank > 0 && next_index(v->rank, s->count, k));
    for (i = 0; i < mb.nelems; i++)
        if (!touched[i]) {
            size_t b;
            for (b = 0; b < mb.esize; b++)
                TU_EXPECT(mb.base[i * mb.esize + b] == 0x5a,
                              "get %s %s rank %d slab '%s' map %s memtype %s "
                              "wrote memory element %td outside the slab",
                              v->rec ? "record" : "fixed",
                              tu_type_name(v->type), v->rank, s->what,
                              map_names[mk], tu_type_name(mt),
                              (ptrdiff_t)i - 1 + mb.lo);
        }
    free(touched);
    free(mb.base);
}

/* Writes generation gen of slab s through map mk and memory type mt. */
static void do_put(int ncid, const varinfo *v, const slab *s, int mk, int mt,
                   int gen)
{
    ptrdiff_t im[MAXR];
    int have_map = make_map(mk, v->rank, s->count, im);
    int emt = mt == NCS_NAT ? v->type : mt;
    membuf mb;
    size_t k[MAXR] = {0}, c[MAXR], n = slab_nelems(v->rank, s);
    int d, status;

    mem_alloc(&mb, v->rank, s, im, have_map, emt);
    if (n > 0)
        do {
            ptrdiff_t o = mem_off(v->rank, im, have_map, s->count, k);
            for (d = 0; d < v->rank; d++)
                c[d] = s->start[d] + k[d] * (s->strided ? (size_t)s->stride[d] : 1);
            tu_store(emt, mb.ptr, o, val(v->type, v->rank, v->shape, c, gen));
        } while (v->rank > 0 && next_index(v->rank, s->count, k));
    status = ncs_put(ncid, v->varid, v->rank ? s->start : NULL,
                     v->rank ? s->count : NULL, s->strided ? s->stride : NULL,
                     have_map ? im : NULL, mt, mb.ptr);
    ck_assert_msg(status == NCS_NOERR,
                  "put %s %s rank %d slab '%s' map %s memtype %s gen %d: %d (%s)",
                  v->rec ? "record" : "fixed", tu_type_name(v->type), v->rank,
                  s->what, map_names[mk], tu_type_name(mt), gen, status,
                  ncs_strerror(status));
    free(mb.base);
}

/* Every element through ncs_get1. */
static void check_get1(int ncid, const varinfo *v)
{
    size_t k[MAXR] = {0};
    unsigned char buf[8];
    char where[64];
    do {
        long long got, want = val(v->type, v->rank, v->shape, k, 0);
        NCS_OK(ncs_get1(ncid, v->varid, v->rank ? k : NULL, NCS_NAT, buf));
        got = tu_load(v->type, buf, 0);
        if (got != want) {
            coord_str(where, v->rank, k);
            ck_abort_msg("get1 %s %s %s = %lld, expected %lld",
                         v->rec ? "record" : "fixed", tu_type_name(v->type),
                         where, got, want);
        }
    } while (v->rank > 0 && next_index(v->rank, v->shape, k));
}

static void run_matrix(const layout *lo, int rank, int with_puts)
{
    const tu_format *f = lo->f;
    matrix_file mf;
    slab sl[64], full;
    int ns, i, j, mk, cv;
    size_t nrec;

    make_file(&mf, lo, rank);
    fill_file(&mf);
    if (rank > 0) {
        NCS_OK(ncs_inq_dimlen(mf.ncid, 0, &nrec));
        ck_assert_uint_eq(nrec, shapes[rank][0]);
    }
    ns = make_slabs(sl, rank, shapes[rank]);
    ck_assert_int_le(ns, (int)TU_NELEMS(sl));

    for (i = 0; i < mf.nvars; i++) {
        const varinfo *v = &mf.vars[i];
        check_get1(mf.ncid, v);
        for (j = 0; j < ns; j++)
            for (mk = 0; mk < NMAPS; mk++)
                for (cv = 0; cv < NCONV; cv++) {
                    int mt = conv_memtype(v->type, cv, f->cdf5);
                    if (mt < 0)
                        continue;
                    check_get(mf.ncid, v, &sl[j], mk, mt, NULL);
                }
        if (!with_puts)
            continue;
        slab_full(&full, rank, v->shape, "full");
        for (j = 0; j < ns; j++)
            for (mk = 0; mk < NMAPS; mk++) {
                int mt = conv_memtype(v->type, 1 + (j + mk) % (NCONV - 1),
                                      f->cdf5);
                if (mt < 0)
                    mt = NCS_NAT;
                do_put(mf.ncid, v, &sl[j], mk, mt, 1);
                check_get(mf.ncid, v, &full, MAP_NULL, NCS_NAT, &sl[j]);
                do_put(mf.ncid, v, &sl[j], (mk + 3) % NMAPS, NCS_NAT, 0);
                check_get(mf.ncid, v, &full, MAP_NULL, NCS_NAT, NULL);
            }
    }
    /* The same data seen after a close and a read-only open. */
    NCS_OK(ncs_close(mf.ncid));
    NCS_OK(ncs_open(mf.path, NCS_NOWRITE, &mf.ncid));
    if (rank > 0) {
        NCS_OK(ncs_inq_dimlen(mf.ncid, 0, &nrec));
        ck_assert_uint_eq(nrec, shapes[rank][0]);
    }
    for (i = 0; i < mf.nvars; i++) {
        check_storage(mf.ncid, mf.vars[i].varid, lo, rank, shapes[rank], mf.vars[i].rec);
        for (j = 0; j < ns; j++)
            check_get(mf.ncid, &mf.vars[i], &sl[j], (i + j) % NMAPS,
                      NCS_NAT, NULL);
    }
    NCS_OK(ncs_close(mf.ncid));
    unlink(mf.path);
}

/* A rank-3 slab of unit strides from start, count elements. */
static void slab_box(slab *s, const size_t *shape, const char *what, const size_t *start,
                     const size_t *count)
{
    slab_full(s, 3, shape, what);
    for (int d = 0; d < 3; d++) {
        s->start[d] = start[d];
        s->count[d] = count[d];
    }
}

/* Mapped gets of a variable of each type, fixed and record, of this
 * shape, in layout lo: whole, an inner box, stride 2, two single planes
 * and three pairs of small ones, with every map that transposes or
 * permutes, in each memory type. */
static void mapped_gets(const layout *lo, const size_t *shape, const char *tag)
{
    const tu_format *f = lo->f;
    char path[256];
    int ncid, dimids[4], d;
    varinfo vars[2 * 11];
    int nv = 0;
    slab sl[7];
    static const int maps[] = {MAP_SWAP_LAST2, MAP_SWAP_LAST2_NEG, MAP_SWAP_LAST2_PADDED,
                               MAP_TRANSPOSE, MAP_PERMUTE, MAP_NEGATIVE};

    tu_path(path, sizeof path, PROG, tag);
    NCS_OK(ncs_create(path, NCS_CLOBBER | f->cmode, &ncid));
    NCS_OK(ncs_def_dim(ncid, "t", NCS_UNLIMITED, &dimids[0]));
    NCS_OK(ncs_def_dim(ncid, "y", shape[1], &dimids[1]));
    NCS_OK(ncs_def_dim(ncid, "x", shape[2], &dimids[2]));
    NCS_OK(ncs_def_dim(ncid, "z", shape[0], &dimids[3]));
    for (int t = NCS_BYTE; t <= tu_last_type(f); t++)
        for (int rec = 0; rec <= 1; rec++) {
            varinfo *v = &vars[nv++];
            int vd[3] = {rec ? dimids[0] : dimids[3], dimids[1], dimids[2]};
            char name[64];
            v->type = t;
            v->rec = rec;
            v->rank = 3;
            memcpy(v->shape, shape, 3 * sizeof *shape);
            snprintf(name, sizeof name, "%s_%s", rec ? "r" : "f", tu_type_name(t));
            NCS_OK(ncs_def_var(ncid, name, t, 3, vd, &v->varid));
            set_storage(ncid, v->varid, lo, 3, shape);
        }
    NCS_OK(ncs_enddef(ncid));
    for (int i = 0; i < nv; i++) {
        size_t k[3] = {0}, n = 0, start[3] = {0};
        void *buf = malloc(shape[0] * shape[1] * shape[2] * 8);
        do
            tu_store(vars[i].type, buf, (ptrdiff_t)n++, val(vars[i].type, 3, shape, k, 0));
        while (next_index(3, shape, k));
        NCS_OK(ncs_put(ncid, vars[i].varid, start, shape, NULL, NULL, NCS_NAT, buf));
        free(buf);
    }
    slab_full(&sl[0], 3, shape, "full");
    slab_full(&sl[1], 3, shape, "inner box");
    for (d = 0; d < 3; d++) {
        sl[1].start[d] = 1;
        sl[1].count[d] = shape[d] - 1 - (size_t)d;
    }
    slab_full(&sl[2], 3, shape, "stride 2");
    sl[2].strided = 1;
    for (d = 0; d < 3; d++) {
        sl[2].stride[d] = 2;
        sl[2].count[d] = ceil_div(shape[d], 2);
    }
    slab_box(&sl[3], shape, "one plane, 17 x 18", (const size_t[]){2, 3, 0},
             (const size_t[]){1, 17, 18});
    slab_box(&sl[4], shape, "two planes, 12 x 21", (const size_t[]){0, 5, 1},
             (const size_t[]){2, 12, 21});
    /* short bands of the vertical tiles whose halves overlap by less than
     * half: 29 rows of bytes, 15 of shorts */
    slab_box(&sl[5], shape, "one plane, 29 x 33", (const size_t[]){1, 2, 3},
             (const size_t[]){1, 29, 33});
    slab_box(&sl[6], shape, "two planes, 15 x 20", (const size_t[]){1, 4, 6},
             (const size_t[]){2, 15, 20});
    for (int i = 0; i < nv; i++)
        for (int j = 0; j < (int)TU_NELEMS(sl); j++)
            for (int m = 0; m < (int)TU_NELEMS(maps); m++)
                for (int cv = 0; cv < 3; cv++) {
                    int mt = conv_memtype(vars[i].type, cv, f->cdf5);
                    if (mt >= 0)
                        check_get(ncid, &vars[i], &sl[j], maps[m], mt, NULL);
                }
    NCS_OK(ncs_close(ncid));
    unlink(path);
}

/* Planes large enough for every tile size of the dense buffer path
 * (16 x 16 bytes, 8 x 8 shorts, ...), with lengths that are not multiples
 * of any tile, so that the overlapping last tiles and the small-plane
 * fallback all run; loop index: basic layout. */
START_TEST(test_mapped_tiles)
{
    static const size_t shape[3] = {3, 35, 37};
    mapped_gets(&layouts[_i], shape, "tiles");
}
END_TEST

/* Variables of many 64 KiB pages, planes of up to 16,000 bytes: in a
 * classic file most planes are placed straight from the cached page (and
 * byte-reversed there), the ones across a page boundary through the dense
 * buffer; loop index: classic layout. */
START_TEST(test_mapped_pages)
{
    static const size_t shape[3] = {12, 40, 50};
    mapped_gets(&layouts[_i], shape, "pages");
}
END_TEST

/* Loop index: layout * 5 + rank. */
START_TEST(test_matrix_get_put)
{
    run_matrix(&layouts[_i / (MAXR + 1)], _i % (MAXR + 1), 1);
}
END_TEST

/* Rank 0 through every entry point with NULL and empty arrays. */
START_TEST(test_scalar)
{
    const tu_format *f = layouts[_i].f;
    char path[256];
    int ncid, t, varid[12];
    tu_path(path, sizeof path, PROG, "scalar");
    NCS_OK(ncs_create(path, NCS_CLOBBER | f->cmode, &ncid));
    for (t = NCS_BYTE; t <= tu_last_type(f); t++) {
        int nd = -1;
        char name[32];
        snprintf(name, sizeof name, "s_%s", tu_type_name(t));
        NCS_OK(ncs_def_var(ncid, name, t, 0, NULL, &varid[t]));
        NCS_OK(ncs_inq_varndims(ncid, varid[t], &nd));
        ck_assert_int_eq(nd, 0);
    }
    NCS_OK(ncs_enddef(ncid));
    for (t = NCS_BYTE; t <= tu_last_type(f); t++) {
        unsigned char b[8], z[1];
        size_t zs[1] = {0};
        long long want = t == NCS_CHAR ? 'Q' : 42 + t;
        /* a fresh scalar reads as the default fill value */
        NCS_OK(ncs_get(ncid, varid[t], NULL, NULL, NULL, NULL, NCS_NAT, b));
        ck_assert_msg(tu_is_default_fill(t, b, 0), "scalar %s not filled",
                      tu_type_name(t));
        tu_store(t, b, 0, want);
        NCS_OK(ncs_put1(ncid, varid[t], NULL, NCS_NAT, b));
        memset(b, 0, sizeof b);
        NCS_OK(ncs_get1(ncid, varid[t], NULL, NCS_NAT, b));
        ck_assert_int_eq(tu_load(t, b, 0), want);
        memset(b, 0, sizeof b);
        /* non-NULL start/count/stride/imap arrays are ignored at rank 0 */
        NCS_OK(ncs_get(ncid, varid[t], zs, zs, NULL, NULL, t, b));
        ck_assert_int_eq(tu_load(t, b, 0), want);
        if (t != NCS_CHAR) {
            double dv = 0;
            NCS_OK(ncs_get(ncid, varid[t], NULL, NULL, NULL, NULL, NCS_DOUBLE, &dv));
            ck_assert_int_eq((long long)dv, want);
            dv = (double)want + 1;
            NCS_OK(ncs_put(ncid, varid[t], NULL, NULL, NULL, NULL, NCS_DOUBLE, &dv));
            NCS_OK(ncs_get1(ncid, varid[t], NULL, NCS_NAT, b));
            ck_assert_int_eq(tu_load(t, b, 0), want + 1);
            NCS_IS(ncs_get1(ncid, varid[t], NULL, NCS_CHAR, z), NCS_ECHAR);
        } else {
            NCS_IS(ncs_get1(ncid, varid[t], NULL, NCS_INT, b), NCS_ECHAR);
        }
    }
    NCS_OK(ncs_close(ncid));
    NCS_OK(ncs_open(path, NCS_NOWRITE, &ncid));
    for (t = NCS_BYTE; t <= tu_last_type(f); t++) {
        unsigned char b[8];
        long long want = t == NCS_CHAR ? 'Q' : 43 + t;
        NCS_OK(ncs_get1(ncid, varid[t], NULL, NCS_NAT, b));
        ck_assert_int_eq(tu_load(t, b, 0), want);
    }
    NCS_OK(ncs_close(ncid));
    unlink(path);
}
END_TEST

/* ---- conversions --------------------------------------------------------- */

/* Range of each numeric type, as long double. */
static void type_range(int t, long double *lo, long double *hi)
{
    switch (t) {
    case NCS_BYTE: *lo = -128; *hi = 127; break;
    case NCS_UBYTE: *lo = 0; *hi = 255; break;
    case NCS_SHORT: *lo = -32768; *hi = 32767; break;
    case NCS_USHORT: *lo = 0; *hi = 65535; break;
    case NCS_INT: *lo = -2147483648.0L; *hi = 2147483647.0L; break;
    case NCS_UINT: *lo = 0; *hi = 4294967295.0L; break;
    case NCS_INT64: *lo = -9223372036854775808.0L; *hi = 9223372036854775807.0L; break;
    case NCS_UINT64: *lo = 0; *hi = 18446744073709551615.0L; break;
    case NCS_FLOAT: *lo = -3.4028234663852886e38L; *hi = 3.4028234663852886e38L; break;
    default: *lo = -1.7976931348623157e308L; *hi = 1.7976931348623157e308L; break;
    }
}

/* Candidate test values, representable exactly in double. */
static const double probe_vals[] = {
    0, 1, 100, -1, -100, 127, 128, -128, -129, 255, 256, 32767, 32768,
    -32768, -32769, 65535, 65536, 2147483647.0, 2147483648.0, -2147483648.0,
    -2147483649.0, 4294967295.0, 4294967296.0, 1e12, -1e12, 1e39, -1e39};

/* The value v stored in memory type m exactly (skips values m cannot hold). */
static int mem_holds(int m, double v)
{
    long double lo, hi;
    type_range(m, &lo, &hi);
    if ((long double)v < lo || (long double)v > hi)
        return 0;
    if (m == NCS_FLOAT && (double)(float)v != v)
        return 0;
    return 1;
}

static void store_double(int m, void *buf, size_t i, double v)
{
    switch (m) {
    case NCS_FLOAT: ((float *)buf)[i] = (float)v; break;
    case NCS_DOUBLE: ((double *)buf)[i] = v; break;
    case NCS_UINT64: ((unsigned long long *)buf)[i] = (unsigned long long)v; break;
    default: tu_store(m, buf, (ptrdiff_t)i, (long long)v); break;
    }
}

static double load_double(int m, const void *buf, size_t i)
{
    switch (m) {
    case NCS_FLOAT: return ((const float *)buf)[i];
    case NCS_DOUBLE: return ((const double *)buf)[i];
    case NCS_UINT64: return (double)((const unsigned long long *)buf)[i];
    default: return (double)tu_load(m, buf, (ptrdiff_t)i);
    }
}

/* Does value v fit external type x without NCS_ERANGE?  netCDF-C's one
 * exception (NCS_BYTE <-> unsigned char memory in CDF-1/2) is excluded by
 * the callers. */
static int fits(int x, double v)
{
    long double lo, hi;
    type_range(x, &lo, &hi);
    return (long double)v >= lo && (long double)v <= hi;
}

/* Writes, for each (external, memory) pair, a vector of probe values that
 * memory holds, expecting NCS_ERANGE iff one does not fit the external type;
 * then reads back the values that did fit.  Then the reverse: an external
 * vector read into each memory type. */
START_TEST(test_convert_range)
{
    const tu_format *f = layouts[_i].f;
    char path[256];
    int ncid, dim, x, m, varid[12];
    const size_t nv = TU_NELEMS(probe_vals);
    tu_path(path, sizeof path, PROG, "range");
    NCS_OK(ncs_create(path, NCS_CLOBBER | f->cmode, &ncid));
    NCS_OK(ncs_def_dim(ncid, "n", nv, &dim));
    for (x = NCS_BYTE; x <= tu_last_type(f); x++) {
        char name[32];
        snprintf(name, sizeof name, "v_%s", tu_type_name(x));
        NCS_OK(ncs_def_var(ncid, name, x, 1, &dim, &varid[x]));
    }
    NCS_OK(ncs_enddef(ncid));
    for (x = NCS_BYTE; x <= tu_last_type(f); x++) {
        if (x == NCS_CHAR)
            continue;
        for (m = NCS_BYTE; m <= NCS_UINT64; m++) {
            unsigned char mem[8 * 32], back[8 * 32];
            double vals[32];
            size_t n = 0, i;
            int any_out = 0, status;
            if (m == NCS_CHAR)
                continue;
            if (!f->cdf5 && x == NCS_BYTE && m == NCS_UBYTE)
                continue;          /* netCDF-C quirk, tested separately */
            for (i = 0; i < nv; i++)
                if (mem_holds(m, probe_vals[i])) {
                    vals[n] = probe_vals[i];
                    store_double(m, mem, n, vals[n]);
                    if (!fits(x, vals[n]))
                        any_out = 1;
                    n++;
                }
            {
                size_t st = 0, ct = n;
                status = ncs_put(ncid, varid[x], &st, &ct, NULL, NULL, m, mem);
                ck_assert_msg(status == (any_out ? NCS_ERANGE : NCS_NOERR),
                              "put %s memory to %s: %d, expected %d",
                              tu_type_name(m), tu_type_name(x), status,
                              any_out ? NCS_ERANGE : 0);
                status = ncs_get(ncid, varid[x], &st, &ct, NULL, NULL,
                                 NCS_DOUBLE, back);
                ck_assert_msg(status == NCS_NOERR || status == NCS_ERANGE,
                              "get back %s as double: %d", tu_type_name(x), status);
                for (i = 0; i < n; i++)
                    if (fits(x, vals[i])) {
                        double got = load_double(NCS_DOUBLE, back, i);
                        double want = x == NCS_FLOAT ? (double)(float)vals[i] : vals[i];
                        TU_EXPECT(got == want,
                                      "%s memory -> %s: in-range value %.17g "
                                      "at %zu read back as %.17g",
                                      tu_type_name(m), tu_type_name(x),
                                      vals[i], i, got);
                    }
            }
        }
        /* reading: put values of x that are in x's range, get as each m */
        {
            double vals[32];
            unsigned char mem[8 * 32];
            size_t n = 0, i, st = 0;
            for (i = 0; i < nv; i++)
                if (fits(x, probe_vals[i]) &&
                    (x != NCS_FLOAT || (double)(float)probe_vals[i] == probe_vals[i]))
                    vals[n++] = probe_vals[i];
            NCS_OK(ncs_put(ncid, varid[x], &st, &n, NULL, NULL, NCS_DOUBLE, vals));
            for (m = NCS_BYTE; m <= NCS_UINT64; m++) {
                int any_out = 0, status;
                if (m == NCS_CHAR ||
                    (!f->cdf5 && x == NCS_BYTE && m == NCS_UBYTE))
                    continue;
                memset(mem, 0, sizeof mem);
                for (i = 0; i < n; i++)
                    if (!fits(m, vals[i]))
                        any_out = 1;
                status = ncs_get(ncid, varid[x], &st, &n, NULL, NULL, m, mem);
                ck_assert_msg(status == (any_out ? NCS_ERANGE : NCS_NOERR),
                              "get %s as %s memory: %d, expected %d",
                              tu_type_name(x), tu_type_name(m), status,
                              any_out ? NCS_ERANGE : 0);
                for (i = 0; i < n; i++)
                    if (mem_holds(m, vals[i]))
                        TU_EXPECT(load_double(m, mem, i) == vals[i],
                                      "get %s as %s: value %.17g at %zu read "
                                      "as %.17g", tu_type_name(x),
                                      tu_type_name(m), vals[i], i,
                                      load_double(m, mem, i));
            }
        }
    }
    NCS_OK(ncs_close(ncid));
    unlink(path);
}
END_TEST

/* netCDF-C treats NCS_BYTE and unsigned char memory as the same bits in
 * CDF-1/2 (no NCS_ERANGE either way), and range-checks them in CDF-5. */
START_TEST(test_convert_byte_uchar)
{
    const tu_format *f = layouts[_i].f;
    char path[256];
    int ncid, dim, v;
    unsigned char uc[3] = {200, 5, 255}, ub[3];
    signed char sc[3];
    size_t st = 0, ct = 3;
    tu_path(path, sizeof path, PROG, "byteuchar");
    NCS_OK(ncs_create(path, NCS_CLOBBER | f->cmode, &ncid));
    NCS_OK(ncs_def_dim(ncid, "n", 3, &dim));
    NCS_OK(ncs_def_var(ncid, "b", NCS_BYTE, 1, &dim, &v));
    NCS_OK(ncs_enddef(ncid));
    NCS_IS(ncs_put(ncid, v, &st, &ct, NULL, NULL, NCS_UBYTE, uc),
           f->cdf5 ? NCS_ERANGE : NCS_NOERR);
    NCS_OK(ncs_get(ncid, v, &st, &ct, NULL, NULL, NCS_BYTE, sc));
    ck_assert_int_eq(sc[1], 5);
    if (!f->cdf5) {
        ck_assert_int_eq(sc[0], -56);
        ck_assert_int_eq(sc[2], -1);
    }
    sc[0] = -5;
    sc[2] = -1;
    NCS_OK(ncs_put(ncid, v, &st, &ct, NULL, NULL, NCS_BYTE, sc));
    NCS_IS(ncs_get(ncid, v, &st, &ct, NULL, NULL, NCS_UBYTE, ub),
           f->cdf5 ? NCS_ERANGE : NCS_NOERR);
    ck_assert_int_eq(ub[1], 5);
    if (!f->cdf5) {
        ck_assert_int_eq(ub[0], 251);
        ck_assert_int_eq(ub[2], 255);
    }
    NCS_OK(ncs_close(ncid));
    unlink(path);
}
END_TEST

/* Text and numbers do not convert either way, for get, put, get1, put1,
 * with and without strides; NCS_NAT on a char variable is text. */
START_TEST(test_convert_echar)
{
    const tu_format *f = layouts[_i].f;
    char path[256], txt[4] = "abc", tb[4] = {0};
    int ncid, dim, vc, vn, m;
    size_t st = 0, ct = 3, i0 = 1;
    ptrdiff_t sd = 1;
    double dbuf[4] = {1, 2, 3, 4};
    tu_path(path, sizeof path, PROG, "echar");
    NCS_OK(ncs_create(path, NCS_CLOBBER | f->cmode, &ncid));
    NCS_OK(ncs_def_dim(ncid, "n", 3, &dim));
    NCS_OK(ncs_def_var(ncid, "c", NCS_CHAR, 1, &dim, &vc));
    NCS_OK(ncs_def_var(ncid, "x", NCS_INT, 1, &dim, &vn));
    NCS_OK(ncs_enddef(ncid));
    NCS_OK(ncs_put(ncid, vc, &st, &ct, NULL, NULL, NCS_CHAR, txt));
    NCS_OK(ncs_put(ncid, vn, &st, &ct, NULL, NULL, NCS_DOUBLE, dbuf));
    for (m = NCS_BYTE; m <= NCS_UINT64; m++) {
        unsigned char b[64];
        if (m == NCS_CHAR)
            continue;
        NCS_IS(ncs_get(ncid, vc, &st, &ct, NULL, NULL, m, b), NCS_ECHAR);
        NCS_IS(ncs_get(ncid, vc, &st, &ct, &sd, NULL, m, b), NCS_ECHAR);
        NCS_IS(ncs_get1(ncid, vc, &i0, m, b), NCS_ECHAR);
        memset(b, 0, sizeof b);
        NCS_IS(ncs_put(ncid, vc, &st, &ct, NULL, NULL, m, b), NCS_ECHAR);
        NCS_IS(ncs_put1(ncid, vc, &i0, m, b), NCS_ECHAR);
    }
    NCS_IS(ncs_get(ncid, vn, &st, &ct, NULL, NULL, NCS_CHAR, tb), NCS_ECHAR);
    NCS_IS(ncs_put(ncid, vn, &st, &ct, NULL, NULL, NCS_CHAR, txt), NCS_ECHAR);
    NCS_IS(ncs_put1(ncid, vn, &i0, NCS_CHAR, txt), NCS_ECHAR);
    /* nothing was changed by the refused calls */
    NCS_OK(ncs_get(ncid, vc, &st, &ct, NULL, NULL, NCS_NAT, tb));
    ck_assert_mem_eq(tb, "abc", 3);
    NCS_OK(ncs_get(ncid, vn, &st, &ct, NULL, NULL, NCS_DOUBLE, dbuf));
    ck_assert(dbuf[0] == 1 && dbuf[1] == 2 && dbuf[2] == 3);
    NCS_OK(ncs_close(ncid));
    unlink(path);
}
END_TEST

/* ---- bounds on fixed dimensions (codes as netCDF-C 4.9.0 returns) -------- */

/* Loop index 0: CDF-1; 1: chunked. */
START_TEST(test_bounds_fixed)
{
    const tu_format *f = layouts[_i ? NBASIC - 1 : 0].f;
    char path[256];
    int ncid, d[2], v;
    int buf[64];
    size_t st[2], ct[2];
    ptrdiff_t sd[2];
    tu_path(path, sizeof path, PROG, "bounds");
    NCS_OK(ncs_create(path, NCS_CLOBBER | f->cmode, &ncid));
    NCS_OK(ncs_def_dim(ncid, "a", 2, &d[0]));
    NCS_OK(ncs_def_dim(ncid, "b", 3, &d[1]));
    NCS_OK(ncs_def_var(ncid, "v", NCS_INT, 2, d, &v));
    NCS_OK(ncs_enddef(ncid));
    memset(buf, 0, sizeof buf);
    NCS_OK(ncs_put(ncid, v, NULL, NULL, NULL, NULL, NCS_INT, buf));

    /* start == length with count 0: success; count > 0: EINVALCOORDS */
    st[0] = 0; st[1] = 3; ct[0] = 1; ct[1] = 0;
    NCS_OK(ncs_get(ncid, v, st, ct, NULL, NULL, NCS_INT, buf));
    NCS_OK(ncs_put(ncid, v, st, ct, NULL, NULL, NCS_INT, buf));
    ct[1] = 1;
    NCS_IS(ncs_get(ncid, v, st, ct, NULL, NULL, NCS_INT, buf), NCS_EINVALCOORDS);
    NCS_IS(ncs_put(ncid, v, st, ct, NULL, NULL, NCS_INT, buf), NCS_EINVALCOORDS);
    /* start past the length: EINVALCOORDS even with count 0 */
    st[1] = 4; ct[1] = 0;
    NCS_IS(ncs_get(ncid, v, st, ct, NULL, NULL, NCS_INT, buf), NCS_EINVALCOORDS);
    NCS_IS(ncs_put(ncid, v, st, ct, NULL, NULL, NCS_INT, buf), NCS_EINVALCOORDS);
    st[0] = 2; st[1] = 0; ct[0] = 1; ct[1] = 1;
    NCS_IS(ncs_get(ncid, v, st, ct, NULL, NULL, NCS_INT, buf), NCS_EINVALCOORDS);
    NCS_IS(ncs_get1(ncid, v, st, NCS_INT, buf), NCS_EINVALCOORDS);
    NCS_IS(ncs_put1(ncid, v, st, NCS_INT, buf), NCS_EINVALCOORDS);
    /* start inside, start + count past the end: EEDGE */
    st[0] = 0; st[1] = 2; ct[0] = 1; ct[1] = 2;
    NCS_IS(ncs_get(ncid, v, st, ct, NULL, NULL, NCS_INT, buf), NCS_EEDGE);
    NCS_IS(ncs_put(ncid, v, st, ct, NULL, NULL, NCS_INT, buf), NCS_EEDGE);
    st[1] = 0; ct[0] = 3; ct[1] = 3;
    NCS_IS(ncs_get(ncid, v, st, ct, NULL, NULL, NCS_INT, buf), NCS_EEDGE);
    /* strides: 0 and negative are ESTRIDE, even with count 0 */
    st[0] = 0; st[1] = 0; ct[0] = 1; ct[1] = 1; sd[0] = 1; sd[1] = 0;
    NCS_IS(ncs_get(ncid, v, st, ct, sd, NULL, NCS_INT, buf), NCS_ESTRIDE);
    NCS_IS(ncs_put(ncid, v, st, ct, sd, NULL, NCS_INT, buf), NCS_ESTRIDE);
    sd[1] = -1;
    NCS_IS(ncs_get(ncid, v, st, ct, sd, NULL, NCS_INT, buf), NCS_ESTRIDE);
    ct[1] = 0; sd[1] = 0;
    NCS_IS(ncs_get(ncid, v, st, ct, sd, NULL, NCS_INT, buf), NCS_ESTRIDE);
    /* a stride past the extent is fine for one element ... */
    ct[1] = 1; sd[1] = 5;
    NCS_OK(ncs_get(ncid, v, st, ct, sd, NULL, NCS_INT, buf));
    /* ... but the second element (index 5) is outside: start + count fits,
     * so netCDF-C's classic code reports EINVALCOORDS, not EEDGE; its
     * netCDF-4 code checks the last index and reports EEDGE */
    ct[1] = 2;
    NCS_IS(ncs_get(ncid, v, st, ct, sd, NULL, NCS_INT, buf),
           _i ? NCS_EEDGE : NCS_EINVALCOORDS);
    NCS_IS(ncs_put(ncid, v, st, ct, sd, NULL, NCS_INT, buf),
           _i ? NCS_EEDGE : NCS_EINVALCOORDS);
    /* start + count past the end with a stride: EEDGE */
    ct[1] = 4; sd[1] = 2;
    NCS_IS(ncs_get(ncid, v, st, ct, sd, NULL, NCS_INT, buf), NCS_EEDGE);
    /* NULL buffer with a non-empty request */
    ct[1] = 1; sd[1] = 1;
    NCS_IS(ncs_get(ncid, v, st, ct, NULL, NULL, NCS_INT, NULL), NCS_EINVAL);
    NCS_IS(ncs_put(ncid, v, st, ct, NULL, NULL, NCS_INT, NULL), NCS_EINVAL);
    NCS_IS(ncs_get1(ncid, v, st, NCS_INT, NULL), NCS_EINVAL);
    NCS_IS(ncs_put1(ncid, v, st, NCS_INT, NULL), NCS_EINVAL);
    /* invalid memory types */
    NCS_IS(ncs_get(ncid, v, st, ct, NULL, NULL, 12, buf), NCS_EBADTYPE);
    NCS_IS(ncs_get(ncid, v, st, ct, NULL, NULL, -3, buf), NCS_EBADTYPE);
    NCS_IS(ncs_put(ncid, v, st, ct, NULL, NULL, 99, buf), NCS_EBADTYPE);
    NCS_OK(ncs_close(ncid));
    unlink(path);
}
END_TEST

/* Runs that straddle the classic back end's 64 KiB pages.  Five variables
 * of 40 x 1000 elements (bytes, shorts, ints and two of doubles: 40 KB to
 * 320 KB each, so page boundaries fall inside rows at many offsets; a
 * 4-byte variable between the doubles puts one of them 4 bytes off an
 * 8-byte boundary, so some of its elements cross a page end) take 400
 * random slabs each: row blocks, column vectors (runs of elements 1000
 * apart) and single rows, put then read back and compared with a copy in
 * memory, then the whole variable is read after a reopen.  The fast path
 * moves such runs through a scratch buffer; it must give what the general
 * path gives. */
#define PS_R 40
#define PS_C 1000
static const int ps_types[] = {NCS_BYTE, NCS_SHORT, NCS_INT, NCS_DOUBLE, NCS_DOUBLE};
#define PS_NV 5
START_TEST(test_page_straddle)
{
    char path[256];
    int ncid, d[3], v[PS_NV], pad;
    static double model[PS_NV][PS_R * PS_C];
    static double buf[PS_R * PS_C];
    unsigned rng = 12345;
    tu_path(path, sizeof path, PROG, "straddle");
    NCS_OK(ncs_create(path, NCS_CLOBBER | NCS_64BIT_OFFSET, &ncid));
    NCS_OK(ncs_def_dim(ncid, "r", PS_R, &d[0]));
    NCS_OK(ncs_def_dim(ncid, "c", PS_C, &d[1]));
    NCS_OK(ncs_def_dim(ncid, "one", 1, &d[2]));
    for (int k = 0; k < PS_NV; k++) {
        char name[8];
        snprintf(name, sizeof name, "v%d", k);
        if (k == PS_NV - 1)
            NCS_OK(ncs_def_var(ncid, "pad", NCS_INT, 1, &d[2], &pad));
        NCS_OK(ncs_def_var(ncid, name, ps_types[k], 2, d, &v[k]));
    }
    NCS_OK(ncs_enddef(ncid));
    for (int k = 0; k < PS_NV; k++) {
        size_t st[2] = {0, 0}, ct[2] = {PS_R, PS_C};
        for (size_t i = 0; i < PS_R * PS_C; i++)
            model[k][i] = (double)((i * 7 + (size_t)k) % 100);
        NCS_OK(ncs_put(ncid, v[k], st, ct, NULL, NULL, NCS_DOUBLE, model[k]));
    }
    for (int round = 0; round < 400; round++) {
        for (int k = 0; k < PS_NV; k++) {
            size_t st[2], ct[2], n;
            int kind = (int)((rng = rng * 1103515245u + 12345u) >> 16) % 3;
            unsigned r1 = (rng = rng * 1103515245u + 12345u) >> 8;
            unsigned r2 = (rng = rng * 1103515245u + 12345u) >> 8;
            if (kind == 0) {                  /* a block of whole rows */
                ct[0] = 1 + r1 % 12, ct[1] = PS_C;
            } else if (kind == 1) {           /* a column vector: a strided run */
                ct[0] = 2 + r1 % 12, ct[1] = 1;
            } else {                          /* part of one row */
                ct[0] = 1, ct[1] = 1 + r1 % PS_C;
            }
            st[0] = r2 % (PS_R - ct[0] + 1);
            st[1] = (r2 >> 8) % (PS_C - ct[1] + 1);
            n = ct[0] * ct[1];
            for (size_t i = 0; i < n; i++)
                buf[i] = (double)((round * 13 + (int)i + k) % 100);
            NCS_OK(ncs_put(ncid, v[k], st, ct, NULL, NULL, NCS_DOUBLE, buf));
            for (size_t i = 0; i < ct[0]; i++)
                for (size_t j = 0; j < ct[1]; j++)
                    model[k][(st[0] + i) * PS_C + st[1] + j] = buf[i * ct[1] + j];
            /* read back the same slab, in the variable's own type's range */
            memset(buf, 0, n * sizeof *buf);
            NCS_OK(ncs_get(ncid, v[k], st, ct, NULL, NULL, NCS_DOUBLE, buf));
            for (size_t i = 0; i < ct[0]; i++)
                for (size_t j = 0; j < ct[1]; j++)
                    TU_EXPECT(buf[i * ct[1] + j] == model[k][(st[0] + i) * PS_C + st[1] + j],
                                  "round %d var %d [%zu][%zu]: %g, expected %g", round, k,
                                  st[0] + i, st[1] + j, buf[i * ct[1] + j],
                                  model[k][(st[0] + i) * PS_C + st[1] + j]);
        }
    }
    NCS_OK(ncs_close(ncid));
    NCS_OK(ncs_open(path, NCS_NOWRITE, &ncid));
    for (int k = 0; k < PS_NV; k++) {
        size_t st[2] = {0, 0}, ct[2] = {PS_R, PS_C};
        NCS_OK(ncs_get(ncid, v[k], st, ct, NULL, NULL, NCS_DOUBLE, buf));
        for (size_t i = 0; i < PS_R * PS_C; i++)
            TU_EXPECT(buf[i] == model[k][i], "after reopen: var %d element %zu: %g, expected %g",
                          k, i, buf[i], model[k][i]);
    }
    NCS_OK(ncs_close(ncid));
    unlink(path);
}
END_TEST

/* What a cold reader pays: the bytes the classic back end asks the
 * system for (rchar of /proc/self/io counts what read calls returned).  A
 * point time series across records 80 KB apart, read once in a file just
 * opened, must cost a 4 KiB block per record, not a 64 KiB page; a row of
 * get1 calls through one record must still read it in a few large reads
 * (the cache grows to whole pages for a scan); the values are checked. */
#define SC_RECS 50
#define SC_LEN 20000
static int proc_io(long long *rchar, long long *syscr)
{
    FILE *f = fopen("/proc/self/io", "r");
    char key[32];
    long long v;
    int got = 0;
    if (f == NULL)
        return -1;
    while (fscanf(f, "%31s %lld", key, &v) == 2) {
        if (strcmp(key, "rchar:") == 0)
            *rchar = v, got |= 1;
        else if (strcmp(key, "syscr:") == 0)
            *syscr = v, got |= 2;
    }
    fclose(f);
    return got == 3 ? 0 : -1;
}

/* SC_RECS records of SC_LEN floats, element i of record r holding
 * r * SC_LEN + i; the variable's id is returned. */
static int sc_write(const char *path)
{
    static float buf[SC_LEN];
    int ncid, d[2], v;
    size_t st[2] = {0, 0}, ct[2] = {1, SC_LEN};
    NCS_OK(ncs_create(path, NCS_CLOBBER, &ncid));
    NCS_OK(ncs_def_dim(ncid, "t", NCS_UNLIMITED, &d[0]));
    NCS_OK(ncs_def_dim(ncid, "x", SC_LEN, &d[1]));
    NCS_OK(ncs_def_var(ncid, "v", NCS_FLOAT, 2, d, &v));
    NCS_OK(ncs_enddef(ncid));
    for (size_t r = 0; r < SC_RECS; r++) {
        for (size_t i = 0; i < SC_LEN; i++)
            buf[i] = (float)(r * SC_LEN + i);
        st[0] = r;
        NCS_OK(ncs_put(ncid, v, st, ct, NULL, NULL, NCS_FLOAT, buf));
    }
    NCS_OK(ncs_close(ncid));
    return v;
}

START_TEST(test_sparse_reads)
{
    char path[256];
    int ncid, v;
    static float buf[SC_LEN];
    long long r0, r1, c0, c1, own;
    size_t st[2] = {0, 0}, ct[2] = {1, SC_LEN};
    if (proc_io(&r0, &c0) != 0)
        return;                                   /* no /proc/self/io: nothing to count */
    tu_path(path, sizeof path, PROG, "sparse");
    v = sc_write(path);
    NCS_OK(ncs_open(path, NCS_NOWRITE, &ncid));
    /* the cost of reading /proc/self/io itself */
    ck_assert_int_eq(proc_io(&r0, &c0), 0);
    ck_assert_int_eq(proc_io(&r1, &c1), 0);
    own = r1 - r0;

    st[0] = 0, st[1] = SC_LEN / 2, ct[0] = SC_RECS, ct[1] = 1;
    ck_assert_int_eq(proc_io(&r0, &c0), 0);
    NCS_OK(ncs_get(ncid, v, st, ct, NULL, NULL, NCS_FLOAT, buf));
    ck_assert_int_eq(proc_io(&r1, &c1), 0);
    for (size_t r = 0; r < SC_RECS; r++)
        TU_EXPECT(buf[r] == (float)(r * SC_LEN + SC_LEN / 2), "record %zu: %g", r, buf[r]);
    ck_assert_msg(r1 - r0 - own <= SC_RECS * 4096LL,
                  "a time series of %d points read %lld bytes", SC_RECS, r1 - r0 - own);

    ck_assert_int_eq(proc_io(&r0, &c0), 0);
    st[0] = SC_RECS - 1;
    for (size_t i = 0; i < SC_LEN; i++) {
        size_t idx[2] = {SC_RECS - 1, i};
        NCS_OK(ncs_get1(ncid, v, idx, NCS_FLOAT, &buf[i]));
    }
    ck_assert_int_eq(proc_io(&r1, &c1), 0);
    for (size_t i = 0; i < SC_LEN; i++)
        TU_EXPECT(buf[i] == (float)((SC_RECS - 1) * SC_LEN + i), "element %zu: %g", i, buf[i]);
    /* 80 KB over three pages: a block, a block, the rest of the page, then
     * whole pages (and the two reads of /proc/self/io), not a read a block */
    ck_assert_msg(c1 - c0 - 2 <= 6, "a scan of a record took %lld reads", c1 - c0 - 2);
    NCS_OK(ncs_close(ncid));
    unlink(path);
}
END_TEST

/* The page cache's size follows the access: a scan of a 4 MB file, which
 * never comes back to a page, leaves a small cache (the heap grows by
 * less than 2 MiB, where a cache that kept every page up to its 8 MiB
 * ceiling grew by 4); a working set of 40 pages visited in turn, more than
 * the cache starts with, is then served without reading the file. */
START_TEST(test_pagecache_follows_access)
{
#ifdef __GLIBC__
    char path[256];
    int ncid, v;
    long long r0, r1, c0, c1, own;
    size_t before, after;
    double sum = 0, want = 0;
    if (proc_io(&r0, &c0) != 0)
        return;
    tu_path(path, sizeof path, PROG, "pcsize");
    v = sc_write(path);
    before = mallinfo2().uordblks;
    NCS_OK(ncs_open(path, NCS_NOWRITE, &ncid));
    for (size_t r = 0; r < SC_RECS; r++)
        for (size_t i = 0; i < SC_LEN; i++) {
            size_t idx[2] = {r, i};
            float x;
            NCS_OK(ncs_get1(ncid, v, idx, NCS_FLOAT, &x));
            sum += x;
            want += (double)(r * SC_LEN + i);
        }
    after = mallinfo2().uordblks;
    ck_assert_msg(sum == want, "scan sum %g, want %g", sum, want);
    ck_assert_msg(after - before < 2u << 20, "a scan grew the heap by %zu bytes", after - before);

    ck_assert_int_eq(proc_io(&r0, &c0), 0);
    ck_assert_int_eq(proc_io(&r1, &c1), 0);
    own = r1 - r0;
    for (int round = 0; round < 8; round++) {
        ck_assert_int_eq(proc_io(&r0, &c0), 0);
        for (size_t r = 0; r < 40; r++) {
            size_t idx[2] = {r, SC_LEN / 3};
            float x;
            NCS_OK(ncs_get1(ncid, v, idx, NCS_FLOAT, &x));
            ck_assert(x == (float)(r * SC_LEN + SC_LEN / 3));
        }
        ck_assert_int_eq(proc_io(&r1, &c1), 0);
    }
    /* a block is 4096 bytes; our reads of /proc/self/io vary by a digit */
    ck_assert_msg(r1 - r0 - own < 64, "the 8th round over 40 pages read %lld bytes",
                  r1 - r0 - own);
    NCS_OK(ncs_close(ncid));
    unlink(path);
#endif
}
END_TEST

static Suite *slab_suite(void)
{
    Suite *s = suite_create("slab");
    TCase *tc = tcase_create("matrix");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, test_matrix_get_put, 0, NLAYOUTS * (MAXR + 1));
    tcase_add_loop_test(tc, test_scalar, 0, NBASIC);
    tcase_add_loop_test(tc, test_mapped_tiles, 0, NBASIC);
    tcase_add_loop_test(tc, test_mapped_pages, 0, 3);
    tcase_add_test(tc, test_page_straddle);
    tcase_add_test(tc, test_sparse_reads);
    tcase_add_test(tc, test_pagecache_follows_access);
    suite_add_tcase(s, tc);
    tc = tcase_create("convert");
    tcase_add_loop_test(tc, test_convert_range, 0, NBASIC);
    tcase_add_loop_test(tc, test_convert_byte_uchar, 0, NBASIC);
    tcase_add_loop_test(tc, test_convert_echar, 0, NBASIC);
    suite_add_tcase(s, tc);
    tc = tcase_create("bounds");
    tcase_add_loop_test(tc, test_bounds_fixed, 0, 2);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return tu_run(slab_suite());
}
