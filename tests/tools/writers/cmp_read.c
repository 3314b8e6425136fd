/*
 * tests/tools/writers/cmp_read.c -- reads one file through ncslab and through
 * netCDF-C and compares everything the classic data model can say about it.
 *
 *   cmp_read FILE          compare the two readings
 *   cmp_read -m FILE COPY  modify FILE through ncslab and COPY (a copy of
 *                          it) through netCDF-C, call by call, with equal
 *                          statuses (see modify()); then check with
 *                          netCDF-C that every change is in FILE, compare
 *                          the two readings of FILE, and compare ncslab's
 *                          reading of FILE with netCDF-C's of COPY
 *   cmp_read -x N FILE     compare, with one bit of ncslab's N-th value
 *                          flipped: the comparison must fail
 *
 * Compared, in this order, stopping at the first difference (a wrong
 * format is reported together with the difference after it): the format;
 * the dimensions (names, lengths, which is unlimited); the global
 * attributes; then variable by variable, in id order: name, type,
 * dimension ids, every attribute (name by number, type, length, every
 * byte of its value), for netCDF-4 files the storage, chunk sizes and
 * filters, the values read whole in the variable's type and converted to
 * double, and a few deterministic strided and mapped reads, with a
 * transposing and a reversing (negative) map.  Status codes are compared
 * as well as values: a read netCDF-C refuses (text to double) must be
 * refused the same way.
 *
 * A file netCDF-C refuses must be refused by ncslab with the same status.
 * Prints one line, "ok" or the first difference, and exits 0 when the
 * readings agree, 1 when they differ, 2 on a usage error, 77 when asked
 * to modify a file that netCDF-C cannot read.
 */
#include <ncslab.h>
#include <netcdf.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Variables larger than this are compared by their metadata only. */
#define MAX_ELEMS ((size_t)1 << 24)
/* The byte buffers are filled with first, so that a reader writing where
 * it should not, or not writing where it should, shows as a difference. */
#define POISON 0xA5

static char diff_msg[1024];
/* Variables ncslab renamed in its copy of a netCDF-4 file and netCDF-C
 * did not rename in its own (see modify()): netCDF-C's name old[i] stands
 * for ncslab's new[i] when the copies are compared. */
static struct {
    char old[NC_MAX_NAME + 1], new[NC_MAX_NAME + 1];
} alias[2];
static int naliases;

static int same_var_name(const char *a, const char *b)
{
    int i;

    if (strcmp(a, b) == 0)
        return 1;
    for (i = 0; i < naliases; i++)
        if (strcmp(a, alias[i].old) == 0 && strcmp(b, alias[i].new) == 0)
            return 1;
    return 0;
}
/* -x N: flip a bit of ncslab's N-th attribute value or read, so that the
 * driver can check that a difference is seen (0: never). */
static long perturb_at, compared;

static void perturb(void *buf)
{
    if (++compared == perturb_at)
        *(unsigned char *)buf ^= 1;
}

static int differ(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(diff_msg, sizeof diff_msg, fmt, ap);
    va_end(ap);
    return 1;
}

static const char *cname(int status)
{
    return status > 0 ? strerror(status) : nc_strerror(status);
}

/* A status pair that must agree; reports both when it does not. */
#define SAME_STATUS(what, a, b)                                          \
    do {                                                                 \
        if ((a) != (b))                                                  \
            return differ("%s: netCDF-C %d (%s), ncslab %d (%s)", what,  \
                          (a), cname(a), (b), ncs_strerror(b));          \
    } while (0)

static size_t type_size(nc_type t)
{
    size_t sz = 0;

    return nc_inq_type(NC_NOWRITE, t, NULL, &sz) == NC_NOERR ? sz : 0;
}

/* Index of the first differing element of two arrays of n elements. */
static size_t first_mismatch(const void *a, const void *b, size_t n,
                             size_t esize)
{
    const unsigned char *p = a, *q = b;
    size_t i;

    for (i = 0; i < n; i++)
        if (memcmp(p + i * esize, q + i * esize, esize) != 0)
            return i;
    return n;
}

static void hex(char *out, size_t outsz, const void *p, size_t n)
{
    const unsigned char *b = p;
    size_t i, k = 0;

    out[0] = '\0';
    for (i = 0; i < n && k + 3 < outsz; i++)
        k += (size_t)snprintf(out + k, outsz - k, "%02x", b[i]);
}

static int cmp_format(int nc, int ns)
{
    int fa = -1, fb = -1, sa, sb;

    sa = nc_inq_format(nc, &fa);
    sb = ncs_inq_format(ns, &fb);
    SAME_STATUS("inq_format", sa, sb);
    if (fa != fb)
        return differ("format: netCDF-C %d, ncslab %d", fa, fb);
    return 0;
}

static int cmp_dims(int nc, int ns)
{
    int na, nb, ua, ub, d;

    SAME_STATUS("inq_ndims", nc_inq_ndims(nc, &na), ncs_inq_ndims(ns, &nb));
    if (na != nb)
        return differ("number of dimensions: netCDF-C %d, ncslab %d", na, nb);
    SAME_STATUS("inq_unlimdim", nc_inq_unlimdim(nc, &ua),
                ncs_inq_unlimdim(ns, &ub));
    if (ua != ub)
        return differ("unlimited dimension: netCDF-C %d, ncslab %d", ua, ub);
    for (d = 0; d < na; d++) {
        char an[NC_MAX_NAME + 1] = "", bn[NCS_MAX_NAME + 1] = "";
        size_t la = 0, lb = 0;

        SAME_STATUS("inq_dim", nc_inq_dim(nc, d, an, &la),
                    ncs_inq_dim(ns, d, bn, &lb));
        if (strcmp(an, bn) != 0)
            return differ("dimension %d: netCDF-C \"%s\", ncslab \"%s\"", d,
                          an, bn);
        if (la != lb)
            return differ("dimension %s: length netCDF-C %zu, ncslab %zu", an,
                          la, lb);
    }
    return 0;
}

static int cmp_att(int nc, int ns, int varid, const char *vname, int i)
{
    char an[NC_MAX_NAME + 1] = "", bn[NCS_MAX_NAME + 1] = "";
    nc_type ta = 0;
    int tb = 0, rc = 0, sa, sb;
    size_t la = 0, lb = 0, esize, at;
    unsigned char *va = NULL, *vb = NULL;

    SAME_STATUS("inq_attname", nc_inq_attname(nc, varid, i, an),
                ncs_inq_attname(ns, varid, i, bn));
    if (strcmp(an, bn) != 0)
        return differ("%s attribute %d: netCDF-C \"%s\", ncslab \"%s\"",
                      vname, i, an, bn);
    SAME_STATUS("inq_att", nc_inq_att(nc, varid, an, &ta, &la),
                ncs_inq_att(ns, varid, bn, &tb, &lb));
    if ((int)ta != tb || la != lb)
        return differ("%s:%s: type/length netCDF-C %d/%zu, ncslab %d/%zu",
                      vname, an, (int)ta, la, tb, lb);
    esize = type_size(ta);
    if (esize == 0)
        return differ("%s:%s: netCDF-C type %d has no size", vname, an, ta);
    va = malloc(la * esize + 1);
    vb = malloc(la * esize + 1);
    if (va == NULL || vb == NULL) {
        rc = differ("out of memory");
        goto cleanup;
    }
    memset(va, POISON, la * esize + 1);
    memset(vb, POISON, la * esize + 1);
    sa = nc_get_att(nc, varid, an, va);
    sb = ncs_get_att(ns, varid, bn, NCS_NAT, vb);
    perturb(vb);
    if (sa != sb) {
        rc = differ("%s:%s: get_att netCDF-C %d (%s), ncslab %d (%s)", vname,
                    an, sa, cname(sa), sb, ncs_strerror(sb));
        goto cleanup;
    }
    at = first_mismatch(va, vb, la * esize + 1, 1);
    if (at != la * esize + 1) {
        char ha[40], hb[40];
        size_t show = la * esize + 1 - at < 8 ? la * esize + 1 - at : 8;

        hex(ha, sizeof ha, va + at, show);
        hex(hb, sizeof hb, vb + at, show);
        rc = differ("%s:%s: value byte %zu: netCDF-C %s, ncslab %s", vname,
                    an, at, ha, hb);
    }
cleanup:
    free(va);
    free(vb);
    return rc;
}

static int cmp_atts(int nc, int ns, int varid, const char *vname)
{
    int na, nb, i;

    SAME_STATUS("inq_varnatts", nc_inq_varnatts(nc, varid, &na),
                ncs_inq_varnatts(ns, varid, &nb));
    if (na != nb)
        return differ("%s: number of attributes netCDF-C %d, ncslab %d",
                      vname, na, nb);
    for (i = 0; i < na; i++)
        if (cmp_att(nc, ns, varid, vname, i))
            return 1;
    return 0;
}

/* Storage and filters, for netCDF-4 files; status codes for classic ones. */
static int cmp_storage(int nc, int ns, int v, const char *vname, int ndims)
{
    int sa = -1, sb = -1, ra, rb;
    size_t ca[NC_MAX_VAR_DIMS], cb[NC_MAX_VAR_DIMS];
    int sha = 0, shb = 0, dfa = 0, dfb = 0, lva = 0, lvb = 0;
    int fla = 0, flb = 0, d;

    ra = nc_inq_var_chunking(nc, v, &sa, ca);
    rb = ncs_inq_var_chunking(ns, v, &sb, cb);
    SAME_STATUS("inq_var_chunking", ra, rb);
    if (ra != NC_NOERR)
        return 0;
    if (sa != sb)
        return differ("%s: storage netCDF-C %d, ncslab %d", vname, sa, sb);
    if (sa == NC_CHUNKED)
        for (d = 0; d < ndims; d++)
            if (ca[d] != cb[d])
                return differ("%s: chunk size %d netCDF-C %zu, ncslab %zu",
                              vname, d, ca[d], cb[d]);
    SAME_STATUS("inq_var_deflate", nc_inq_var_deflate(nc, v, &sha, &dfa, &lva),
                ncs_inq_var_deflate(ns, v, &shb, &dfb, &lvb));
    if (sha != shb || dfa != dfb || (dfa && lva != lvb))
        return differ("%s: shuffle/deflate/level netCDF-C %d/%d/%d, "
                      "ncslab %d/%d/%d", vname, sha, dfa, lva, shb, dfb, lvb);
    SAME_STATUS("inq_var_fletcher32", nc_inq_var_fletcher32(nc, v, &fla),
                ncs_inq_var_fletcher32(ns, v, &flb));
    if (fla != flb)
        return differ("%s: fletcher32 netCDF-C %d, ncslab %d", vname, fla, flb);
    return 0;
}

/* One read request through both libraries, in the variable's own type
 * (memtype 0) or as double, compared status and bytes. */
struct request {
    const char *what;
    size_t start[NC_MAX_VAR_DIMS], count[NC_MAX_VAR_DIMS];
    ptrdiff_t stride[NC_MAX_VAR_DIMS], imap[NC_MAX_VAR_DIMS];
    int use_stride, use_imap;
};

static int cmp_request(int nc, int ns, int v, const char *vname, int ndims,
                       nc_type xtype, const struct request *r, int as_double)
{
    size_t esize = as_double ? sizeof(double) : type_size(xtype);
    size_t n = 1, span = 1, first = 0, at;
    unsigned char *ba = NULL, *bb = NULL;
    int d, sa, sb, rc = 0;
    const ptrdiff_t *st = r->use_stride ? r->stride : NULL;
    const ptrdiff_t *im = r->use_imap ? r->imap : NULL;

    /* span: the elements the map reaches; first: where in them the slab's
     * first element goes (after those a negative map puts before it) */
    for (d = 0; d < ndims; d++) {
        n *= r->count[d];
        if (r->use_imap && r->count[d] > 0) {
            size_t reach = (r->count[d] - 1) *
                           (size_t)(r->imap[d] < 0 ? -r->imap[d] : r->imap[d]);

            span += reach;
            if (r->imap[d] < 0)
                first += reach;
        }
    }
    if (!r->use_imap)
        span = n;
    if (n == 0)
        span = 1;
    if (n > MAX_ELEMS || span > MAX_ELEMS)
        return 0;
    ba = malloc(span * esize);
    bb = malloc(span * esize);
    if (ba == NULL || bb == NULL) {
        rc = differ("out of memory");
        goto cleanup;
    }
    memset(ba, POISON, span * esize);
    memset(bb, POISON, span * esize);
    if (as_double) {
        double *pa = (double *)ba + first, *pb = (double *)bb + first;

        sa = im ? nc_get_varm_double(nc, v, r->start, r->count, st, im, pa)
                : nc_get_vars_double(nc, v, r->start, r->count, st, pa);
        sb = ncs_get(ns, v, r->start, r->count, st, im, NCS_DOUBLE, pb);
    } else {
        unsigned char *pa = ba + first * esize, *pb = bb + first * esize;

        sa = im ? nc_get_varm(nc, v, r->start, r->count, st, im, pa)
                : nc_get_vars(nc, v, r->start, r->count, st, pa);
        sb = ncs_get(ns, v, r->start, r->count, st, im, NCS_NAT, pb);
    }
    perturb(bb);
    if (sa != sb) {
        rc = differ("%s: %s read%s: netCDF-C %d (%s), ncslab %d (%s)", vname,
                    r->what, as_double ? " as double" : "", sa, cname(sa), sb,
                    ncs_strerror(sb));
        goto cleanup;
    }
    at = first_mismatch(ba, bb, span, esize);
    if (at != span) {
        char ha[40], hb[40];

        hex(ha, sizeof ha, ba + at * esize, esize);
        hex(hb, sizeof hb, bb + at * esize, esize);
        rc = differ("%s: %s read%s: element %zu of %zu: netCDF-C %s, "
                    "ncslab %s", vname, r->what,
                    as_double ? " as double" : "", at, span, ha, hb);
    }
cleanup:
    free(ba);
    free(bb);
    return rc;
}

static int cmp_values(int nc, int ns, int v, const char *vname, int ndims,
                      const int *dimids, nc_type xtype)
{
    size_t len[NC_MAX_VAR_DIMS];
    struct request r[6];
    int d, i, k, nreq = 0;

    for (d = 0; d < ndims; d++)
        if (nc_inq_dimlen(nc, dimids[d], &len[d]) != NC_NOERR)
            return differ("%s: netCDF-C cannot inquire dimension %d", vname,
                          dimids[d]);
    memset(r, 0, sizeof r);

    r[nreq].what = "whole";
    for (d = 0; d < ndims; d++)
        r[nreq].count[d] = len[d];
    nreq++;

    if (ndims > 0) {
        /* every other element from index 1, every third in the last dim */
        r[nreq].what = "strided";
        r[nreq].use_stride = 1;
        for (d = 0; d < ndims; d++) {
            size_t s = d == ndims - 1 ? 3 : 2, st = len[d] > 1 ? 1 : 0;

            r[nreq].start[d] = st;
            r[nreq].stride[d] = (ptrdiff_t)s;
            r[nreq].count[d] = (len[d] - st + s - 1) / s;
        }
        nreq++;

        r[nreq].what = "inner block";
        for (d = 0; d < ndims; d++) {
            r[nreq].start[d] = len[d] / 3;
            r[nreq].count[d] = len[d] - len[d] / 3 - len[d] / 4;
        }
        nreq++;

        /* Fortran order: dimension 0 varies fastest in memory; for rank 1
         * every other memory element, the gaps left alone */
        r[nreq].what = "transposing map";
        r[nreq].use_imap = 1;
        for (d = 0; d < ndims; d++)
            r[nreq].count[d] = len[d];
        for (d = 0; d < ndims; d++) {
            ptrdiff_t m = ndims == 1 ? 2 : 1;

            for (k = 0; k < d; k++)
                m *= (ptrdiff_t)(r[nreq].count[k] ? r[nreq].count[k] : 1);
            r[nreq].imap[d] = m;
        }
        nreq++;

        /* strided and mapped: the strided request above, transposed */
        r[nreq] = r[1];
        r[nreq].what = "strided transposing map";
        r[nreq].use_imap = 1;
        for (d = 0; d < ndims; d++) {
            ptrdiff_t m = 1;

            for (k = 0; k < d; k++)
                m *= (ptrdiff_t)(r[nreq].count[k] ? r[nreq].count[k] : 1);
            r[nreq].imap[d] = m;
        }
        nreq++;

        /* every dimension reversed: the natural map, negated */
        r[nreq].what = "reversing map";
        r[nreq].use_imap = 1;
        for (d = ndims - 1; d >= 0; d--) {
            r[nreq].count[d] = len[d];
            r[nreq].imap[d] = d == ndims - 1
                ? -1 : r[nreq].imap[d + 1] *
                       (ptrdiff_t)(len[d + 1] ? len[d + 1] : 1);
        }
        nreq++;
    }
    for (i = 0; i < nreq; i++)
        for (k = 0; k < 2; k++)
            if (cmp_request(nc, ns, v, vname, ndims, xtype, &r[i], k))
                return 1;
    return 0;
}

static int cmp_vars(int nc, int ns)
{
    int na, nb, v, d, fmt = 0;

    SAME_STATUS("inq_nvars", nc_inq_nvars(nc, &na), ncs_inq_nvars(ns, &nb));
    if (na != nb)
        return differ("number of variables: netCDF-C %d, ncslab %d", na, nb);
    nc_inq_format(nc, &fmt);
    for (v = 0; v < na; v++) {
        char an[NC_MAX_NAME + 1] = "", bn[NCS_MAX_NAME + 1] = "";
        nc_type ta = 0;
        int tb = 0, nda = 0, ndb = 0, ata = 0, atb = 0;
        int da[NC_MAX_VAR_DIMS], db[NC_MAX_VAR_DIMS];

        SAME_STATUS("inq_var", nc_inq_var(nc, v, an, &ta, &nda, da, &ata),
                    ncs_inq_var(ns, v, bn, &tb, &ndb, db, &atb));
        if (!same_var_name(an, bn))
            return differ("variable %d: netCDF-C \"%s\", ncslab \"%s\"", v,
                          an, bn);
        if ((int)ta != tb)
            return differ("%s: type netCDF-C %d, ncslab %d", an, ta, tb);
        if (nda != ndb)
            return differ("%s: rank netCDF-C %d, ncslab %d", an, nda, ndb);
        for (d = 0; d < nda; d++)
            if (da[d] != db[d])
                return differ("%s: dimension %d netCDF-C %d, ncslab %d", an,
                              d, da[d], db[d]);
        if (ata != atb)
            return differ("%s: number of attributes netCDF-C %d, ncslab %d",
                          an, ata, atb);
        if (cmp_atts(nc, ns, v, an))
            return 1;
        if ((fmt == NC_FORMAT_NETCDF4 || fmt == NC_FORMAT_NETCDF4_CLASSIC) &&
            cmp_storage(nc, ns, v, an, nda))
            return 1;
        if (cmp_values(nc, ns, v, an, nda, da, ta))
            return 1;
    }
    return 0;
}

static int enhanced_type(nc_type t)
{
    return t > NC_UINT64;
}

/* When ncslab refuses a file netCDF-C reads, names the first thing in it
 * outside the classic data model (groups, strings, user-defined types),
 * which ncslab is right to refuse: the difference is then its status. */
static void explain_enhanced(const char *path)
{
    char what[2 * NC_MAX_NAME + 64] = "";
    int nc, n = 0, nvars = 0, v, a, natts;
    nc_type t;

    if (nc_open(path, NC_NOWRITE, &nc) != NC_NOERR)
        return;
    if (nc_inq_grps(nc, &n, NULL) == NC_NOERR && n > 0)
        snprintf(what, sizeof what, "%d groups", n);
    else if (nc_inq_typeids(nc, &n, NULL) == NC_NOERR && n > 0)
        snprintf(what, sizeof what, "%d user-defined types", n);
    nc_inq_nvars(nc, &nvars);
    for (v = -1; v < nvars && what[0] == '\0'; v++) {
        char vn[NC_MAX_NAME + 1] = "global", an[NC_MAX_NAME + 1];

        if (v >= 0 && nc_inq_var(nc, v, vn, &t, NULL, NULL, NULL) ==
                          NC_NOERR && enhanced_type(t)) {
            snprintf(what, sizeof what, "variable %s of type %d", vn, t);
            break;
        }
        natts = 0;
        nc_inq_varnatts(nc, v, &natts);
        for (a = 0; a < natts; a++)
            if (nc_inq_attname(nc, v, a, an) == NC_NOERR &&
                nc_inq_atttype(nc, v, an, &t) == NC_NOERR &&
                enhanced_type(t)) {
                snprintf(what, sizeof what, "attribute %s:%s of type %d", vn,
                         an, t);
                break;
            }
    }
    nc_close(nc);
    if (what[0] != '\0') {
        size_t k = strlen(diff_msg);

        snprintf(diff_msg + k, sizeof diff_msg - k,
                 " (outside the classic model: %s)", what);
    }
}

/* Opens path_nc with netCDF-C and path_ns (the same file, or a copy both
 * libraries modified alike) with ncslab and compares; 0 same (or refused
 * by both alike), 1 different. */
static int compare(const char *path_nc, const char *path_ns)
{
    int nc = -1, ns = -1, sa, sb, rc;

    sa = nc_open(path_nc, NC_NOWRITE, &nc);
    sb = ncs_open(path_ns, NCS_NOWRITE, &ns);
    if (sa != NC_NOERR || sb != NCS_NOERR) {
        if (sa == NC_NOERR)
            nc_close(nc);
        if (sb == NCS_NOERR)
            ncs_close(ns);
        if (sa == sb) {
            snprintf(diff_msg, sizeof diff_msg, "ok: both refuse it: %s",
                     cname(sa));
            return 0;
        }
        differ("open: netCDF-C %d (%s), ncslab %d (%s)", sa, cname(sa), sb,
               ncs_strerror(sb));
        if (sa == NC_NOERR)
            explain_enhanced(path_nc);
        return 1;
    }
    /* A wrong format alone would hide every other difference of the
     * netCDF-4 files that are not marked classic model: go on, and name
     * the next difference too. */
    rc = cmp_format(nc, ns);
    if (rc) {
        char fmt_msg[sizeof diff_msg];

        strcpy(fmt_msg, diff_msg);
        if (cmp_dims(nc, ns) || cmp_atts(nc, ns, NC_GLOBAL, "global") ||
            cmp_vars(nc, ns)) {
            char next[sizeof diff_msg];

            strcpy(next, diff_msg);
            snprintf(diff_msg, sizeof diff_msg, "%.300s; then %.700s",
                     fmt_msg, next);
        } else {
            strcpy(diff_msg, fmt_msg);
        }
    } else {
        rc = cmp_dims(nc, ns) || cmp_atts(nc, ns, NC_GLOBAL, "global") ||
             cmp_vars(nc, ns);
    }
    nc_close(nc);
    sb = ncs_close(ns);
    if (rc == 0 && sb != NCS_NOERR)
        return differ("ncs_close: %d (%s)", sb, ncs_strerror(sb));
    return rc;
}

/* ---- modification --------------------------------------------------------
 * The same calls go through ncslab on one copy of the file and through
 * netCDF-C on another, and each call must return the same status in both.
 * In define mode: a global text attribute, a double attribute on variable
 * 0, a new dimension and an int variable over it (with an attribute), and
 * for a file with records a new record variable; the first variable that
 * is not named like a dimension is renamed, and its first attribute too.
 * In data mode: the new variable's values, one record appended to every
 * record variable, and the last such variable renamed (shorter, as data
 * mode requires).  Names and ids are chosen from netCDF-C's view of the file.
 * What succeeded is remembered in struct change and checked with netCDF-C
 * in ncslab's copy afterwards. */
#define ADDED_DIM "ncslab_extra"
#define ADDED_VAR "ncslab_var"
#define ADDED_REC "ncslab_rec"
#define ADDED_ATT "ncslab_added"
#define ADDED_TEXT "written by ncslab"

struct change {
    int nvars;                 /* variables before the change */
    int recdim;                /* -1: none */
    size_t nrecs;              /* records before the change */
    int gatt, att0, newvar, appended;  /* those steps succeeded */
    char renamed[NC_MAX_NAME + 1], newname[NC_MAX_NAME + 1];
    char att_renamed[NC_MAX_NAME + 1], att_newname[NC_MAX_NAME + 1];
    int data_varid;            /* renamed in data mode; -1: none */
    char data_newname[NC_MAX_NAME + 1], data_oldname[NC_MAX_NAME + 1];
    char var0_name[NC_MAX_NAME + 1];   /* variable 0's name at the close */
};

/* One step through both libraries; their statuses must agree, and the
 * common status is left in st.  Without a writable netCDF-C handle (ncw
 * < 0) only ncslab's call is made. */
#define BOTH(what, nc_call, ns_call)                                     \
    do {                                                                 \
        int b_ = (ns_call), a_ = ncw >= 0 ? (nc_call) : b_;              \
        if (a_ != b_) {                                                  \
            differ("modify: %s: netCDF-C %d (%s), ncslab %d (%s)", what, \
                   a_, cname(a_), b_, ncs_strerror(b_));                 \
            goto fail;                                                   \
        }                                                                \
        st = a_;                                                         \
    } while (0)

/* Is there a dimension of this name (in netCDF-C's view)?  Variables named
 * like a dimension (coordinate variables and the like) are not renamed:
 * renaming them says something about the dimension in netCDF-4 that this
 * test is not about. */
static int dim_named(int nc, const char *name)
{
    int id;

    return nc_inq_dimid(nc, name, &id) == NC_NOERR;
}

/* Writes one record of every record variable at index ch->nrecs, each
 * element holding its position so that a misplaced one shows. */
static int append_record(int nc, int ncw, int ns, struct change *ch)
{
    int v, d, st;
    double *buf = NULL;

    ch->appended = 1;
    for (v = 0; v < ch->nvars; v++) {
        int ndims, dimids[NC_MAX_VAR_DIMS];
        size_t start[NC_MAX_VAR_DIMS], count[NC_MAX_VAR_DIMS], n = 1, i;
        nc_type xtype;
        char what[64];

        if (nc_inq_var(nc, v, NULL, &xtype, &ndims, dimids, NULL) != 0 ||
            ndims == 0 || dimids[0] != ch->recdim)
            continue;
        start[0] = ch->nrecs;
        count[0] = 1;
        for (d = 1; d < ndims; d++) {
            start[d] = 0;
            if (nc_inq_dimlen(nc, dimids[d], &count[d]) != NC_NOERR)
                return differ("modify: netCDF-C cannot inquire a dimension");
            n *= count[d];
        }
        if (n > MAX_ELEMS)
            continue;
        buf = malloc((n ? n : 1) * sizeof *buf);
        if (buf == NULL)
            return differ("out of memory");
        snprintf(what, sizeof what, "appending a record to variable %d", v);
        if (xtype == NC_CHAR) {
            for (i = 0; i < n; i++)
                ((char *)buf)[i] = (char)('a' + i % 26);
            BOTH(what, nc_put_vara_text(nc, v, start, count, (char *)buf),
                 ncs_put(ns, v, start, count, NULL, NULL, NCS_CHAR, buf));
        } else {
            for (i = 0; i < n; i++)
                buf[i] = (double)(i % 100);
            BOTH(what, nc_put_vara_double(nc, v, start, count, buf),
                 ncs_put(ns, v, start, count, NULL, NULL, NCS_DOUBLE, buf));
        }
        if (st != NC_NOERR)
            ch->appended = 0;
        free(buf);
        buf = NULL;
    }
    return 0;
fail:
    free(buf);
    return 1;
}

/* Renames variable v in both copies, or for a netCDF-4 file in ncslab's
 * alone: netCDF-C 4.9 corrupts a netCDF-4 file in which it renames a
 * variable after reopening it (netCDF-C issue 2070; doc/writers.md), so
 * its copy keeps the old name, recorded as an alias. */
static int rename_var(int nc, int ncw, int ns, int v, const char *old,
                      const char *name, const char *what, int *stp)
{
    int st, fmt = 0;

    nc_inq_format(nc, &fmt);
    if (fmt == NC_FORMAT_NETCDF4 || fmt == NC_FORMAT_NETCDF4_CLASSIC) {
        st = ncs_rename_var(ns, v, name);
        if (st == NCS_NOERR && naliases < 2) {
            strcpy(alias[naliases].old, old);
            strcpy(alias[naliases].new, name);
            naliases++;
        }
    } else {
        BOTH(what, nc_rename_var(nc, v, name), ncs_rename_var(ns, v, name));
    }
    *stp = st;
    return 0;
fail:
    return 1;
}

/* Picks the variable renamed in define mode (the first one not named like
 * a dimension) and its first attribute, and renames both.  The variable
 * renamed in data mode is picked from the other end, so that a difference
 * in the ids of the variables after it leaves this one compared. */
static int rename_in_define(int nc, int ncw, int ns, struct change *ch)
{
    int v, st, natts = 0;

    for (v = 0; v < ch->nvars; v++) {
        char name[NC_MAX_NAME + 1];

        if (nc_inq_varname(nc, v, name) != NC_NOERR || dim_named(nc, name) ||
            strlen(name) > 200)
            continue;
        snprintf(ch->newname, sizeof ch->newname, "%.200s_r", name);
        if (dim_named(nc, ch->newname))
            continue;
        if (rename_var(nc, ncw, ns, v, name, ch->newname, "rename_var", &st))
            goto fail;
        if (st != NC_NOERR)
            break;
        strcpy(ch->renamed, name);
        if (nc_inq_varnatts(nc, v, &natts) == NC_NOERR && natts > 0 &&
            nc_inq_attname(nc, v, 0, ch->att_renamed) == NC_NOERR) {
            snprintf(ch->att_newname, sizeof ch->att_newname, "%.200s_r",
                     ch->att_renamed);
            BOTH("rename_att", nc_rename_att(nc, v, ch->att_renamed,
                                             ch->att_newname),
                 ncs_rename_att(ns, v, ch->att_renamed, ch->att_newname));
            if (st != NC_NOERR)
                ch->att_renamed[0] = '\0';
        } else {
            ch->att_renamed[0] = '\0';
        }
        break;
    }
    return 0;
fail:
    return 1;
}

/* In data mode a name may only get shorter: the last variable whose name
 * less its last letter is free. */
static int rename_in_data(int nc, int ncw, int ns, struct change *ch)
{
    int v, st, other;

    for (v = ch->nvars - 1; v >= 0; v--) {
        char name[NC_MAX_NAME + 1], old[NC_MAX_NAME + 1];

        if (nc_inq_varname(nc, v, name) != NC_NOERR || strlen(name) < 2 ||
            dim_named(nc, name) || strcmp(name, ch->newname) == 0 ||
            strcmp(name, ch->renamed) == 0)
            continue;
        strcpy(old, name);
        name[strlen(name) - 1] = '\0';
        if (dim_named(nc, name) || nc_inq_varid(nc, name, &other) == 0 ||
            ncs_inq_varid(ns, name, &other) == 0)
            continue;
        if (rename_var(nc, ncw, ns, v, old, name, "rename_var in data mode",
                       &st))
            goto fail;
        if (st == NC_NOERR) {
            ch->data_varid = v;
            strcpy(ch->data_newname, name);
            strcpy(ch->data_oldname, old);
        }
        break;
    }
    return 0;
fail:
    return 1;
}

/* Modifies path_ns through ncslab and path_nc through netCDF-C.  Returns 0
 * when every step agreed, *opened set when the files could be opened for
 * writing at all (both refusing is agreement too).  netCDF-C cannot write
 * a netCDF-4 file that has no creation-order index (h5py's): then ncslab
 * modifies its copy alone, and *alone is set. */
static int modify(const char *path_ns, const char *path_nc,
                  struct change *ch, int *opened, int *alone)
{
    int nc = -1, ncw = -1, ns = -1, st, nvars_s = 0, recdim_s = -1;
    int dimid_c = -1, dimid_s = -1, newvar_c = -1, newvar_s = -1;
    int recvar_c = -1, recvar_s = -1;
    const double dval[2] = {1.5, -2.25};
    const int ivals[3] = {10, 20, 30};

    memset(ch, 0, sizeof *ch);
    ch->recdim = -1;
    ch->data_varid = -1;
    *opened = *alone = 0;
    st = nc_open(path_nc, NC_WRITE, &ncw);
    if (st == NC_ECANTWRITE) {
        *alone = 1;
        ncw = -1;
        if (nc_open(path_nc, NC_NOWRITE, &nc) != NC_NOERR)
            return differ("modify: netCDF-C cannot open the copy");
    } else {
        nc = ncw;
    }
    BOTH("open for writing", st, ncs_open(path_ns, NCS_WRITE, &ns));
    if (st != NC_NOERR) {
        if (nc >= 0)
            nc_close(nc);
        return 0;
    }
    *opened = 1;
    st = nc_inq(nc, NULL, &ch->nvars, NULL, &ch->recdim);
    BOTH("inq", st, ncs_inq(ns, NULL, &nvars_s, NULL, &recdim_s));
    if (ch->nvars != nvars_s || ch->recdim != recdim_s) {
        differ("modify: netCDF-C has %d variables, record dimension %d; "
               "ncslab %d, %d", ch->nvars, ch->recdim, nvars_s, recdim_s);
        goto fail;
    }
    if (ch->recdim >= 0)
        nc_inq_dimlen(nc, ch->recdim, &ch->nrecs);
    BOTH("redef", nc_redef(nc), ncs_redef(ns));
    if (rename_in_define(nc, ncw, ns, ch))
        goto fail;
    BOTH("put_att global",
         nc_put_att_text(nc, NC_GLOBAL, ADDED_ATT, strlen(ADDED_TEXT),
                         ADDED_TEXT),
         ncs_put_att(ns, NCS_GLOBAL, ADDED_ATT, NCS_CHAR, strlen(ADDED_TEXT),
                     NCS_CHAR, ADDED_TEXT));
    ch->gatt = st == NC_NOERR;
    if (ch->nvars > 0) {
        BOTH("put_att var 0",
             nc_put_att_double(nc, 0, ADDED_ATT, NC_DOUBLE, 2, dval),
             ncs_put_att(ns, 0, ADDED_ATT, NCS_DOUBLE, 2, NCS_DOUBLE, dval));
        ch->att0 = st == NC_NOERR;
    }
    BOTH("def_dim", nc_def_dim(nc, ADDED_DIM, 3, &dimid_c),
         ncs_def_dim(ns, ADDED_DIM, 3, &dimid_s));
    BOTH("def_var", nc_def_var(nc, ADDED_VAR, NC_INT, 1, &dimid_c, &newvar_c),
         ncs_def_var(ns, ADDED_VAR, NCS_INT, 1, &dimid_s, &newvar_s));
    BOTH("put_att new var",
         nc_put_att_text(nc, newvar_c, "long_name", 9, "new thing"),
         ncs_put_att(ns, newvar_s, "long_name", NCS_CHAR, 9, NCS_CHAR,
                     "new thing"));
    if (ch->recdim >= 0)
        BOTH("def_var record",
             nc_def_var(nc, ADDED_REC, NC_DOUBLE, 1, &ch->recdim, &recvar_c),
             ncs_def_var(ns, ADDED_REC, NCS_DOUBLE, 1, &ch->recdim,
                         &recvar_s));
    BOTH("enddef", nc_enddef(nc), ncs_enddef(ns));
    BOTH("put new var", nc_put_var_int(nc, newvar_c, ivals),
         ncs_put(ns, newvar_s, NULL, NULL, NULL, NULL, NCS_INT, ivals));
    ch->newvar = st == NC_NOERR;
    if (ch->recdim >= 0) {
        size_t i, n = ch->nrecs + 1, zero = 0;
        double *r;
        int sb;

        if (append_record(nc, ncw, ns, ch))
            goto fail;
        r = malloc(n * sizeof *r);
        if (r == NULL) {
            differ("out of memory");
            goto fail;
        }
        for (i = 0; i < n; i++)
            r[i] = 0.5 * (double)i;
        sb = ncs_put(ns, recvar_s, NULL, &n, NULL, NULL, NCS_DOUBLE, r);
        st = ncw >= 0 ? nc_put_vara_double(nc, recvar_c, &zero, &n, r) : sb;
        free(r);
        if (st != sb) {
            differ("modify: put record var: netCDF-C %d (%s), ncslab %d (%s)",
                   st, cname(st), sb, ncs_strerror(sb));
            goto fail;
        }
    }
    if (rename_in_data(nc, ncw, ns, ch))
        goto fail;
    if (ncs_inq_varname(ns, 0, ch->var0_name) != NCS_NOERR)
        ch->var0_name[0] = '\0';
    {
        int a = nc_close(nc), b = ncs_close(ns);

        nc = ns = -1;
        if (a != b) {
            differ("modify: close: netCDF-C %d (%s), ncslab %d (%s)", a,
                   cname(a), b, ncs_strerror(b));
            return 1;
        }
    }
    return 0;
fail:
    if (nc >= 0)
        nc_close(nc);
    if (ns >= 0)
        ncs_close(ns);
    return 1;
}

#define NC_CHECK(what, call)                                             \
    do {                                                                 \
        int s_ = (call);                                                 \
        if (s_ != NC_NOERR) {                                            \
            rc = differ("after modify, netCDF-C: %s: %s", what, cname(s_)); \
            goto done;                                                   \
        }                                                                \
    } while (0)

/* What netCDF-C reads in ncslab's copy must be what ncslab did.  byname:
 * the file has no creation-order index (h5py's), so every reader numbers
 * its variables by name and a rename renumbers them: the variables ncslab
 * changed are found by the names they had at its close (that ncslab's
 * own reopen numbers them as netCDF-C does is the next check's). */
static int check_change(const char *path, const struct change *ch, int byname)
{
    int nc = -1, rc = 0, varid, dimid, vals[3], var0 = 0;
    char text[64] = "";
    size_t len = 0, nrecs = 0;
    double dv[2] = {0, 0};

    NC_CHECK("open", nc_open(path, NC_NOWRITE, &nc));
    if (byname && ch->data_varid >= 0) {
        NC_CHECK("variable renamed in data mode",
                 nc_inq_varid(nc, ch->data_newname, &varid));
        if (nc_inq_varid(nc, ch->data_oldname, &varid) == NC_NOERR) {
            rc = differ("after modify, netCDF-C still has variable %s "
                        "(renamed in data mode)", ch->data_oldname);
            goto done;
        }
    } else if (ch->data_varid >= 0) {
        /* first, as the other checks find variables by id */
        char name[NC_MAX_NAME + 1] = "";

        NC_CHECK("variable renamed in data mode",
                 nc_inq_varname(nc, ch->data_varid, name));
        if (strcmp(name, ch->data_newname) != 0) {
            rc = differ("after modify, netCDF-C names variable %d \"%s\", "
                        "not \"%s\" (renamed in data mode)", ch->data_varid,
                        name, ch->data_newname);
            goto done;
        }
    }
    if (ch->gatt) {
        NC_CHECK("global attribute",
                 nc_inq_attlen(nc, NC_GLOBAL, ADDED_ATT, &len));
        if (len != strlen(ADDED_TEXT) ||
            nc_get_att_text(nc, NC_GLOBAL, ADDED_ATT, text) != NC_NOERR ||
            memcmp(text, ADDED_TEXT, len) != 0) {
            rc = differ("after modify, netCDF-C reads the global attribute "
                        "wrong");
            goto done;
        }
    }
    if (byname && ch->att0)
        NC_CHECK("variable 0 of ncslab's close",
                 nc_inq_varid(nc, ch->var0_name, &var0));
    if (ch->att0) {
        NC_CHECK("attribute of var 0",
                 nc_get_att_double(nc, var0, ADDED_ATT, dv));
        if (dv[0] != 1.5 || dv[1] != -2.25) {
            rc = differ("after modify, netCDF-C reads var 0's attribute wrong");
            goto done;
        }
    }
    if (ch->newvar) {
        NC_CHECK("new dimension", nc_inq_dimid(nc, ADDED_DIM, &dimid));
        NC_CHECK("new dimension length", nc_inq_dimlen(nc, dimid, &len));
        NC_CHECK("new variable", nc_inq_varid(nc, ADDED_VAR, &varid));
        NC_CHECK("new variable's values", nc_get_var_int(nc, varid, vals));
        if (len != 3 || vals[0] != 10 || vals[1] != 20 || vals[2] != 30) {
            rc = differ("after modify, netCDF-C reads the new variable wrong");
            goto done;
        }
    }
    if (ch->renamed[0] != '\0') {
        NC_CHECK("renamed variable", nc_inq_varid(nc, ch->newname, &varid));
        if (nc_inq_varid(nc, ch->renamed, &dimid) == NC_NOERR) {
            rc = differ("after modify, netCDF-C still has variable %s",
                        ch->renamed);
            goto done;
        }
        if (ch->att_renamed[0] != '\0')
            NC_CHECK("renamed attribute",
                     nc_inq_attlen(nc, varid, ch->att_newname, &len));
    }
    if (ch->recdim >= 0 && ch->appended) {
        NC_CHECK("record count", nc_inq_dimlen(nc, ch->recdim, &nrecs));
        if (nrecs != ch->nrecs + 1) {
            rc = differ("after modify, netCDF-C reads %zu records, not %zu",
                        nrecs, ch->nrecs + 1);
            goto done;
        }
    }
done:
    if (nc >= 0)
        nc_close(nc);
    return rc;
}

/* Adds "; then <the current message>" to saved, and makes that the
 * message. */
static void chain(char *saved, size_t size)
{
    size_t k = strlen(saved);

    if (k > 0 && diff_msg[0] != '\0')
        snprintf(saved + k, size - k, "; then %.400s", diff_msg);
    else if (k == 0)
        snprintf(saved, size, "%s", diff_msg);
    strcpy(diff_msg, saved);
}

/* cmp_read -m: modify both copies, then three checks, each run even when
 * an earlier one failed, so that the line says how far the libraries
 * still agree: netCDF-C reads ncslab's change; netCDF-C and ncslab read
 * ncslab's copy alike; ncslab reads its copy as netCDF-C reads its own
 * (unless netCDF-C could not modify its copy). */
static int modify_and_compare(const char *path_ns, const char *path_nc)
{
    struct change ch;
    char msg[sizeof diff_msg] = "";
    int opened, alone, rc;

    if (modify(path_ns, path_nc, &ch, &opened, &alone))
        return 1;
    rc = opened ? check_change(path_ns, &ch, alone) : 0;
    if (rc)
        chain(msg, sizeof msg);
    diff_msg[0] = '\0';
    if (compare(path_ns, path_ns)) {
        rc = 1;
        chain(msg, sizeof msg);
    }
    diff_msg[0] = '\0';
    if (!alone && compare(path_nc, path_ns)) {
        char part[sizeof diff_msg];

        snprintf(part, sizeof part, "netCDF-C's copy against ncslab's: %s",
                 diff_msg);
        strcpy(diff_msg, part);
        rc = 1;
        chain(msg, sizeof msg);
    }
    strcpy(diff_msg, msg);
    return rc;
}

int main(int argc, char **argv)
{
    int rc, mod = 0, opt;

    while ((opt = getopt(argc, argv, "mx:")) != -1) {
        if (opt == 'm')
            mod = 1;
        else if (opt == 'x')
            perturb_at = strtol(optarg, NULL, 10);
        else
            break;
    }
    if (opt != -1 || optind != argc - 1 - mod) {
        fprintf(stderr, "usage: cmp_read [-x N] FILE | cmp_read -m FILE "
                        "COPY\n");
        return 2;
    }
    if (mod) {
        int nc;

        /* the reference must be able to read the original */
        if (nc_open(argv[optind + 1], NC_NOWRITE, &nc) != NC_NOERR) {
            printf("skipped: netCDF-C cannot open the original\n");
            return 77;
        }
        nc_close(nc);
        rc = modify_and_compare(argv[optind], argv[optind + 1]);
    } else {
        rc = compare(argv[optind], argv[optind]);
    }
    printf("%s\n", rc != 0 || diff_msg[0] != '\0' ? diff_msg : "ok");
    return rc;
}
