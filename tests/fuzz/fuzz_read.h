/*
 * fuzz_read.h -- what both fuzz targets do with a file once it is open:
 * inquire about everything and read everything, checking that the answers
 * agree with each other.
 *
 * Included once by each target (everything here is static).  A finding is
 * reported by fz_fail(), which prints what went wrong and aborts, so that
 * libFuzzer saves the input and the replay driver fails its test.
 *
 * Oracles, besides "no crash, no leak, no sanitizer report":
 *   - every status is one a malformed file may legitimately cause (the
 *     caller passes the sets: NCS_ENOMEM and NCS_EINVAL are never in them:
 *     a header must be judged before anything is allocated, and it is not
 *     an invalid argument);
 *   - inquiries agree: ndims/nvars/natts bound every id, names fit
 *     NCS_MAX_NAME, a variable's rank is in 0..NCS_MAX_VAR_DIMS;
 *   - the general read path and the one-element path agree: the first and
 *     last element read by ncs_get1 equal those of the full ncs_get, and
 *     when the full read reports a truncated file, so does reading the last
 *     element (it has the highest offset of the variable);
 *   - a converting read (to double, or to text for text) succeeds or fails
 *     with a conversion code only when the native read succeeded.
 *
 * Bounds: a variable of more than FZ_MAX_READ bytes (only a header's claim:
 * fuzz inputs are small) is read as its first and last element and a
 * strided sample of at most FZ_SAMPLE elements.
 */
#ifndef NCSLAB_FUZZ_READ_H
#define NCSLAB_FUZZ_READ_H

#include "ncslab.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FZ_MAX_READ (1u << 20)
#define FZ_SAMPLE 4096u

/* NFC copy of a UTF-8 name (lib/model/nfc.c; the targets link the library's
 * internals). */
int ncsi_nfc(const char *in, char **out);

/* NCS_FUZZ_SKIP_KNOWN set: let a campaign get past findings already
 * reported and not yet fixed (tests/fuzz/pending/README.md).  Replays
 * never set it, so the corpus and pending inputs still fail on them. */
static int fz_skip_known(void)
{
    static int skip = -1;
    if (skip < 0)
        skip = getenv("NCS_FUZZ_SKIP_KNOWN") != NULL;
    return skip;
}

/* Known finding: a name stored in a file in a form other than NFC is
 * listed by ncs_inq_attname/ncs_inq_dim but cannot be looked up by that
 * very name, because lookups normalise the name asked for. */
static int fz_known_non_nfc(const char *name)
{
    char *n = NULL;
    int differs;
    if (!fz_skip_known())
        return 0;
    differs = ncsi_nfc(name, &n) == 0 && n != NULL && strcmp(n, name) != 0;
    free(n);
    return differs;
}

static void fz_fail(const char *what, int status)
{
    fprintf(stderr, "fuzz: %s: status %d (%s)\n", what, status, ncs_strerror(status));
    abort();
}

typedef struct fz_codes {
    const int *codes;
    size_t n;
} fz_codes;

static int fz_in(const fz_codes *set, int status)
{
    for (size_t i = 0; i < set->n; i++)
        if (set->codes[i] == status)
            return 1;
    return 0;
}

static void fz_expect(const fz_codes *set, int status, const char *what)
{
    if (!fz_in(set, status))
        fz_fail(what, status);
}

/* Every attribute of varid (or NCS_GLOBAL): name, type, length, values. */
static void fz_read_atts(int ncid, int varid, int natts, const fz_codes *read_ok)
{
    for (int a = 0; a < natts; a++) {
        char name[NCS_MAX_NAME + 1];
        int xtype, st;
        size_t len, esz;
        void *buf;
        memset(name, 0, sizeof name);
        if ((st = ncs_inq_attname(ncid, varid, a, name)) != NCS_NOERR)
            fz_fail("ncs_inq_attname of a counted attribute", st);
        if (memchr(name, 0, sizeof name) == NULL)
            fz_fail("attribute name not terminated", 0);
        if ((st = ncs_inq_att(ncid, varid, name, &xtype, &len)) != NCS_NOERR) {
            if (st == NCS_ENOTATT && fz_known_non_nfc(name))
                continue;
            fz_fail("ncs_inq_att of a listed name", st);
        }
        if ((st = ncs_inq_type_size(xtype, &esz)) != NCS_NOERR)
            fz_fail("attribute of an invalid type", st);
        /* the attribute's bytes are in the file: its length is justified */
        if (len > SIZE_MAX / esz / 2)
            fz_fail("attribute longer than memory", NCS_EINTERNAL);
        buf = malloc(len * esz + 1);
        if (buf == NULL)
            fz_fail("attribute buffer", NCS_ENOMEM);
        st = ncs_get_att(ncid, varid, name, NCS_NAT, buf);
        fz_expect(read_ok, st, "ncs_get_att (native type)");
        if (xtype != NCS_CHAR && len > 0) {
            double *d = malloc(len * sizeof *d);
            if (d == NULL)
                fz_fail("attribute buffer", NCS_ENOMEM);
            st = ncs_get_att(ncid, varid, name, NCS_DOUBLE, d);
            if (st != NCS_NOERR && st != NCS_ERANGE)
                fz_fail("ncs_get_att as double", st);
            free(d);
        }
        free(buf);
    }
}

/* Compares element idx read by ncs_get1 with the full read's copy. */
static void fz_check_one(int ncid, int v, const size_t *index, size_t esz,
                         const unsigned char *expect, int full_status)
{
    unsigned char one[8];
    int st = ncs_get1(ncid, v, index, NCS_NAT, one);
    if (full_status == NCS_NOERR) {
        if (st != NCS_NOERR)
            fz_fail("ncs_get1 failed where ncs_get succeeded", st);
        if (memcmp(one, expect, esz) != 0)
            fz_fail("ncs_get1 and ncs_get disagree on a value", NCS_EINTERNAL);
    }
}

/* Reads variable v: everything when small, else a sample. */
static void fz_read_var(int ncid, int v, int unlim, const fz_codes *read_ok)
{
    char name[NCS_MAX_NAME + 1];
    int xtype, ndims, natts, st;
    int dimids[NCS_MAX_VAR_DIMS];
    size_t shape[NCS_MAX_VAR_DIMS], first[NCS_MAX_VAR_DIMS], last[NCS_MAX_VAR_DIMS];
    size_t count[NCS_MAX_VAR_DIMS];
    ptrdiff_t stride[NCS_MAX_VAR_DIMS];
    size_t esz;
    uint64_t nelems = 1;
    int empty = 0;

    if ((st = ncs_inq_varndims(ncid, v, &ndims)) != NCS_NOERR)
        fz_fail("ncs_inq_varndims of a counted variable", st);
    if (ndims < 0 || ndims > NCS_MAX_VAR_DIMS)
        fz_fail("variable rank out of range", ndims);
    if ((st = ncs_inq_var(ncid, v, name, &xtype, &ndims, dimids, &natts)) != NCS_NOERR)
        fz_fail("ncs_inq_var", st);
    if ((st = ncs_inq_type_size(xtype, &esz)) != NCS_NOERR)
        fz_fail("variable of an invalid type", st);
    for (int d = 0; d < ndims; d++) {
        if ((st = ncs_inq_dimlen(ncid, dimids[d], &shape[d])) != NCS_NOERR)
            fz_fail("ncs_inq_dimlen of a variable's dimension", st);
        /* netCDF-C refuses record indices past 2^32-1 (NC_EINVALCOORDS)
         * even where a CDF-5 record count goes further; so does ncslab */
        if (d == 0 && dimids[0] == unlim && shape[0] > (size_t)UINT32_MAX + 1)
            shape[0] = (size_t)UINT32_MAX + 1;
        if (shape[d] == 0)
            empty = 1;
        else if (__builtin_mul_overflow(nelems, (uint64_t)shape[d], &nelems))
            nelems = UINT64_MAX;
        first[d] = 0;
        last[d] = shape[d] ? shape[d] - 1 : 0;
    }
    fz_read_atts(ncid, v, natts, read_ok);
    if (empty) {
        /* a zero count reads nothing and must not fail */
        unsigned char dummy[8];
        for (int d = 0; d < ndims; d++)
            count[d] = 0;
        st = ncs_get(ncid, v, first, count, NULL, NULL, NCS_NAT, dummy);
        fz_expect(read_ok, st, "empty ncs_get");
        return;
    }

    if (nelems <= FZ_MAX_READ / esz) {
        unsigned char *buf = malloc((size_t)nelems * esz);
        int full;
        if (buf == NULL)
            fz_fail("data buffer", NCS_ENOMEM);
        full = ncs_get(ncid, v, NULL, NULL, NULL, NULL, NCS_NAT, buf);
        fz_expect(read_ok, full, "ncs_get of a whole variable");
        fz_check_one(ncid, v, first, esz, buf, full);
        fz_check_one(ncid, v, last, esz, buf + ((size_t)nelems - 1) * esz, full);
        if (full == NCS_ETRUNC) {
            unsigned char one[8];
            st = ncs_get1(ncid, v, last, NCS_NAT, one);
            if (st != NCS_ETRUNC)
                fz_fail("whole variable truncated but its last element reads", st);
        }
        /* the same data through the conversion path */
        {
            int mt = xtype == NCS_CHAR ? NCS_CHAR : NCS_DOUBLE;
            size_t msz = mt == NCS_CHAR ? 1 : sizeof(double);
            unsigned char *conv = malloc((size_t)nelems * msz);
            if (conv == NULL)
                fz_fail("data buffer", NCS_ENOMEM);
            st = ncs_get(ncid, v, NULL, NULL, NULL, NULL, mt, conv);
            if (full == NCS_NOERR && st != NCS_NOERR && st != NCS_ERANGE)
                fz_fail("converting read failed where the native one succeeded", st);
            if (full != NCS_NOERR && st == NCS_NOERR)
                fz_fail("converting read succeeded where the native one failed", full);
            free(conv);
        }
        free(buf);
    } else {
        /* a claim larger than any fuzz input: sample it */
        unsigned char one[8];
        uint64_t n = 1;
        unsigned char *buf;
        st = ncs_get1(ncid, v, first, NCS_NAT, one);
        fz_expect(read_ok, st, "ncs_get1 of the first element");
        st = ncs_get1(ncid, v, last, NCS_NAT, one);
        fz_expect(read_ok, st, "ncs_get1 of the last element");
        for (int d = 0; d < ndims; d++) {
            /* about FZ_SAMPLE^(1/ndims) elements along each dimension */
            size_t want = ndims == 1 ? FZ_SAMPLE : ndims == 2 ? 64 : ndims == 3 ? 16 : 2;
            size_t step = shape[d] / want + 1;
            /* netCDF-C refuses strides of 2^31-1 and more (NC_ESTRIDE) */
            if (step >= INT32_MAX)
                step = INT32_MAX - 1;
            stride[d] = (ptrdiff_t)step;
            count[d] = (shape[d] - 1) / step + 1;
            if (count[d] > want)
                count[d] = want;
            n *= count[d];
        }
        buf = malloc((size_t)n * esz);
        if (buf == NULL)
            fz_fail("sample buffer", NCS_ENOMEM);
        st = ncs_get(ncid, v, first, count, stride, NULL, NCS_NAT, buf);
        fz_expect(read_ok, st, "strided sample of a large variable");
        free(buf);
    }
}

/* Inquires about and reads everything in an open file. */
static void fz_read_all(int ncid, const fz_codes *read_ok)
{
    int ndims, nvars, natts, unlim, format, st;
    if ((st = ncs_inq(ncid, &ndims, &nvars, &natts, &unlim)) != NCS_NOERR)
        fz_fail("ncs_inq", st);
    if (ndims < 0 || nvars < 0 || natts < 0 || unlim < -1 || unlim >= ndims)
        fz_fail("ncs_inq counts out of range", NCS_EINTERNAL);
    if ((st = ncs_inq_format(ncid, &format)) != NCS_NOERR)
        fz_fail("ncs_inq_format", st);
    for (int d = 0; d < ndims; d++) {
        char name[NCS_MAX_NAME + 1];
        size_t len;
        int id;
        memset(name, 0, sizeof name);
        if ((st = ncs_inq_dim(ncid, d, name, &len)) != NCS_NOERR)
            fz_fail("ncs_inq_dim of a counted dimension", st);
        if (memchr(name, 0, sizeof name) == NULL)
            fz_fail("dimension name not terminated", 0);
        if ((st = ncs_inq_dimid(ncid, name, &id)) != NCS_NOERR &&
            !(st == NCS_EBADDIM && fz_known_non_nfc(name)))
            fz_fail("ncs_inq_dimid of a listed name", st);
    }
    fz_read_atts(ncid, NCS_GLOBAL, natts, read_ok);
    for (int v = 0; v < nvars; v++)
        fz_read_var(ncid, v, unlim, read_ok);
}

#endif /* NCSLAB_FUZZ_READ_H */
