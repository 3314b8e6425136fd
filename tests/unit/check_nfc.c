/*
 * check_nfc.c -- ncsi_nfc, the NFC normalisation of names, against Python's
 * unicodedata and against netCDF-C.
 *
 * tests/unit/nfc_vectors.txt (written by tools/gen_nfc.py, format described in
 * its header) holds what unicodedata.normalize('NFC', ...) makes of every
 * code point in a dozen fixed contexts (the templates below, which must be
 * the script's TEMPLATES), as a CRC-32 per template and block of 256 code
 * points, plus every code point of the blocks holding a composition
 * "first" followed by each composition "second", plus explicit vectors.
 * A failing block is printed with its first input, so it can be replayed
 * in Python.
 *
 * With netCDF-C (HAVE_NETCDF) the same is checked against the library
 * ncslab must match: names given to nc_def_dim, nc_def_var and
 * nc_put_att_text are read back (before and after a reopen) and must be
 * ncsi_nfc of what was given, and lookups by any spelling must find them.
 * When libnetcdf exports nc_utf8_normalize and nc_utf8proc_category (4.9.0
 * does; they are not public API, so they are weak references here), every
 * template is also compared output for output, restricted to inputs whose
 * code points netCDF-C's utf8proc knows (Unicode 9.0.0 in 4.9.0).
 *
 * Scratch files are ut_nfc_*.nc in the current directory.
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ncslab.h"
#ifdef HAVE_NETCDF
#include <netcdf.h>
#endif

/* lib/model/nfc.c; declared in lib/model/model.h */
int ncsi_nfc(const char *in, char **out);

#define NELEMS(a) (sizeof(a) / sizeof((a)[0]))
#define BLOCK 256
#define NBLOCKS (0x110000 / BLOCK)
#define HOLE 0xFFFFFFFFu          /* the code point under test */

/* Must match TEMPLATES in tools/gen_nfc.py. */
static const uint32_t templates[][3] = {
    {HOLE},
    {HOLE, 0x0301},
    {HOLE, 0x0323, 0x0302},
    {0x0061, HOLE},
    {0x0078, 0x0323, HOLE},
    {HOLE, 0x0313, 0x0345},
    {0x1100, HOLE},
    {0xAC00, HOLE},
    {HOLE, 0x11A8},
    {HOLE, 0x0334, 0x0301},
    {0x0061, HOLE, 0x0323},
    {0x0078, 0x0301, HOLE},
};
#define NTEMPLATES ((int)NELEMS(templates))

/* ---- helpers --------------------------------------------------------------- */

static size_t put_utf8(uint32_t c, char *d)
{
    unsigned char *u = (unsigned char *)d;
    if (c < 0x80) { u[0] = (unsigned char)c; return 1; }
    if (c < 0x800) {
        u[0] = (unsigned char)(0xC0 | (c >> 6));
        u[1] = (unsigned char)(0x80 | (c & 0x3F));
        return 2;
    }
    if (c < 0x10000) {
        u[0] = (unsigned char)(0xE0 | (c >> 12));
        u[1] = (unsigned char)(0x80 | ((c >> 6) & 0x3F));
        u[2] = (unsigned char)(0x80 | (c & 0x3F));
        return 3;
    }
    u[0] = (unsigned char)(0xF0 | (c >> 18));
    u[1] = (unsigned char)(0x80 | ((c >> 12) & 0x3F));
    u[2] = (unsigned char)(0x80 | ((c >> 6) & 0x3F));
    u[3] = (unsigned char)(0x80 | (c & 0x3F));
    return 4;
}

/* UTF-8 of n code points into buf (at least 4n+1 bytes). */
static void encode(const uint32_t *cps, int n, char *buf)
{
    for (int i = 0; i < n; i++)
        buf += put_utf8(cps[i], buf);
    *buf = '\0';
}

/* Template t with cp in the hole; returns the number of code points. */
static int fill(int t, uint32_t cp, uint32_t *cps)
{
    int n = 0;
    for (int i = 0; i < 3 && (i == 0 || templates[t][i] != 0); i++)
        cps[n++] = templates[t][i] == HOLE ? cp : templates[t][i];
    return n;
}

/* Hex dump of s; four calls may share one printf. */
static const char *hex(const char *s)
{
    static char bufs[4][512];
    static int next;
    char *buf = bufs[next++ % 4];
    size_t o = 0;
    for (; *s && o + 4 < sizeof bufs[0]; s++)
        o += (size_t)snprintf(buf + o, sizeof bufs[0] - o, "%02X ", (unsigned char)*s);
    buf[o] = '\0';
    return buf;
}

static uint32_t crc32_update(uint32_t crc, const void *p, size_t n)
{
    const unsigned char *b = p;
    crc = ~crc;
    while (n--) {
        crc ^= *b++;
        for (int k = 0; k < 8; k++)
            crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1)));
    }
    return ~crc;
}

/* Code points the vectors leave out: U+0000 ends a C string. */
static int skipped(uint32_t cp)
{
    return cp == 0 || (cp >= 0xD800 && cp <= 0xDFFF);
}

/* ncsi_nfc that must succeed; the caller frees the result. */
static char *nfc_ok(const char *in)
{
    char *out = NULL;
    int st = ncsi_nfc(in, &out);
    /* not ck_assert: in fork mode each one writes to a pipe, and this runs
     * millions of times */
    if (st != NCS_NOERR || out == NULL)
        ck_abort_msg("ncsi_nfc(%s) -> %d", hex(in), st);
    return out;
}

/* ---- the vector file --------------------------------------------------------- */

typedef struct vec {
    char in[64], out[64];
} vec;

static struct {
    int loaded;
    char unicode[32];
    uint8_t tlisted[NTEMPLATES][NBLOCKS];
    uint32_t tcrc[NTEMPLATES][NBLOCKS];
    uint32_t seconds[128];
    int nseconds;
    int pblock[256];
    uint32_t pcrc[256];
    int npblocks;
    vec v[256];
    int nv;
} V;

/* Parses "HEX HEX ..." up to ';' or the end into UTF-8. */
static const char *parse_cps(const char *p, char *buf, size_t cap)
{
    uint32_t cps[16];
    int n = 0;
    char *end;
    while (*p == ' ')
        p++;
    while (*p && *p != ';' && *p != '\n') {
        unsigned long c = strtoul(p, &end, 16);
        ck_assert_msg(end != p && n < (int)NELEMS(cps), "bad vector near '%s'", p);
        cps[n++] = (uint32_t)c;
        p = end;
        while (*p == ' ')
            p++;
    }
    ck_assert((size_t)n * 4 + 1 <= cap);
    encode(cps, n, buf);
    return p;
}

static void load_vectors(void)
{
    char path[4096], line[2048];
    const char *srcdir = getenv("srcdir");
    FILE *f;
    if (V.loaded)
        return;
#ifdef NFC_VECTORS
    snprintf(path, sizeof path, "%s", NFC_VECTORS);
#else
    snprintf(path, sizeof path, "%s/tests/unit/nfc_vectors.txt", srcdir ? srcdir : ".");
#endif
    if (srcdir && access(path, R_OK) != 0)
        snprintf(path, sizeof path, "%s/tests/unit/nfc_vectors.txt", srcdir);
    f = fopen(path, "r");
    ck_assert_msg(f != NULL, "cannot open %s (set srcdir)", path);
    while (fgets(line, sizeof line, f)) {
        unsigned t, b;
        unsigned long crc;
        if (line[0] == '#' || line[0] == '\n')
            continue;
        if (sscanf(line, "unicode %31s", V.unicode) == 1)
            continue;
        if (sscanf(line, "t %u %x %lx", &t, &b, &crc) == 3) {
            ck_assert(t < (unsigned)NTEMPLATES && b < NBLOCKS);
            V.tlisted[t][b] = 1;
            V.tcrc[t][b] = (uint32_t)crc;
        } else if (strncmp(line, "seconds ", 8) == 0) {
            char *p = line + 8, *end;
            for (;;) {
                unsigned long c = strtoul(p, &end, 16);
                if (end == p)
                    break;
                ck_assert(V.nseconds < (int)NELEMS(V.seconds));
                V.seconds[V.nseconds++] = (uint32_t)c;
                p = end;
            }
        } else if (sscanf(line, "p %x %lx", &b, &crc) == 2) {
            ck_assert(V.npblocks < (int)NELEMS(V.pblock) && b < NBLOCKS);
            V.pblock[V.npblocks] = (int)b;
            V.pcrc[V.npblocks++] = (uint32_t)crc;
        } else if (line[0] == 'v' && line[1] == ' ') {
            const char *p;
            ck_assert(V.nv < (int)NELEMS(V.v));
            p = parse_cps(line + 2, V.v[V.nv].in, sizeof V.v[V.nv].in);
            ck_assert_msg(*p == ';', "bad vector line: %s", line);
            parse_cps(p + 1, V.v[V.nv].out, sizeof V.v[V.nv].out);
            V.nv++;
        } else {
            ck_abort_msg("unknown line in %s: %s", path, line);
        }
    }
    fclose(f);
    ck_assert_msg(V.unicode[0] && V.nseconds > 0 && V.npblocks > 0 && V.nv > 0,
                  "%s is incomplete", path);
    V.loaded = 1;
}

/* ---- basic behaviour ------------------------------------------------------------ */

START_TEST(test_ascii)
{
    static const char *const names[] = {"", "a", "abc_XYZ09", "x y", "temp-1.5",
                                        "~!@#$%^&*()"};
    for (size_t i = 0; i < NELEMS(names); i++) {
        char *out = nfc_ok(names[i]);
        ck_assert_str_eq(out, names[i]);
        ck_assert_ptr_ne(out, names[i]);
        free(out);
    }
}
END_TEST

START_TEST(test_invalid)
{
    static const char *const bad[] = {
        "a\x80", "\xC3", "a\xC3", "\xE2\x82", "\xF0\x9F\x98",   /* stray, truncated */
        "\xC0\xAF", "\xC1\xBF", "\xE0\x80\xAF", "\xE0\x9F\xBF",   /* overlong */
        "\xF0\x80\x80\xAF", "\xF0\x8F\xBF\xBF",
        "\xED\xA0\x80", "\xED\xBF\xBF", "e\xCC\x81\xED\xB0\x80",  /* surrogates */
        "\xF4\x90\x80\x80", "\xF5\x80\x80\x80", "\xF8\x88\x80\x80\x80",
        "\xFE", "\xFF", "ok\xC3\xA9\xC3(",
    };
    static const char *const good[] = {
        "\xEF\xBF\xBE", "\xEF\xB7\x90", "\xF4\x8F\xBF\xBF",        /* noncharacters */
        "\xCD\xB8", "\xF3\xA0\x80\x81",                              /* unassigned, tag */
        "\xC2\x80", "\xE0\xA0\x80", "\xF0\x90\x80\x80",             /* shortest forms */
    };
    for (size_t i = 0; i < NELEMS(bad); i++) {
        char *out = (char *)1;
        int st = ncsi_nfc(bad[i], &out);
        ck_assert_msg(st == NCS_EBADNAME, "%s -> %d, expected NCS_EBADNAME", hex(bad[i]), st);
        ck_assert_ptr_null(out);
    }
    for (size_t i = 0; i < NELEMS(good); i++) {
        char *out = nfc_ok(good[i]);
        ck_assert_msg(strcmp(out, good[i]) == 0, "%s changed", hex(good[i]));
        free(out);
    }
}
END_TEST

/* NFC is idempotent, and a few hand-checked results. */
START_TEST(test_known)
{
    static const char *const pairs[][2] = {
        {"cafe\xCC\x81", "caf\xC3\xA9"},
        {"\xE2\x84\xAB", "\xC3\x85"},                  /* ANGSTROM SIGN -> A ring */
        {"\xE2\x84\xA6", "\xCE\xA9"},                  /* OHM SIGN -> Omega */
        {"\xE1\x84\x92\xE1\x85\xA1\xE1\x86\xAB", "\xED\x95\x9C"},   /* jamo -> HAN */
        {"\xEA\xB0\x80\xE1\x86\xA7", "\xEA\xB0\x80"},   /* utf8proc U+11A7 quirk */
        {"a\xCC\x81\xCC\xA3", "\xE1\xBA\xA1\xCC\x81"},  /* a acute dot -> a-dot acute */
        {"\xE0\xA5\x98", "\xE0\xA4\x95\xE0\xA4\xBC"},   /* U+0958 excluded */
    };
    for (size_t i = 0; i < NELEMS(pairs); i++) {
        char *out = nfc_ok(pairs[i][0]), *again = nfc_ok(out);
        ck_assert_msg(strcmp(out, pairs[i][1]) == 0, "%s -> %s", hex(pairs[i][0]), hex(out));
        ck_assert_str_eq(again, out);
        free(again);
        free(out);
    }
}
END_TEST

/* ---- against Python's unicodedata ---------------------------------------------- */

START_TEST(test_py_explicit)
{
    load_vectors();
    for (int i = 0; i < V.nv; i++) {
        char *out = nfc_ok(V.v[i].in);
        ck_assert_msg(strcmp(out, V.v[i].out) == 0, "vector %d: %s", i, hex(V.v[i].in));
        free(out);
    }
}
END_TEST

START_TEST(test_py_templates)
{
    int t = _i, bad = 0;
    load_vectors();
    for (int b = 0; b < NBLOCKS; b++) {
        uint32_t crc = 0;
        for (uint32_t cp = (uint32_t)b * BLOCK; cp < (uint32_t)(b + 1) * BLOCK; cp++) {
            uint32_t cps[3];
            char in[16], *out;
            if (skipped(cp))
                continue;
            encode(cps, fill(t, cp, cps), in);
            out = nfc_ok(in);
            if (V.tlisted[t][b]) {
                crc = crc32_update(crc, out, strlen(out));
                crc = crc32_update(crc, "\xFF", 1);
            } else if (strcmp(out, in) != 0 && bad++ < 10) {
                fprintf(stderr, "template %d U+%04X: %s changed to ", t, (unsigned)cp, hex(in));
                fprintf(stderr, "%s\n", hex(out));
            }
            free(out);
        }
        if (V.tlisted[t][b] && crc != V.tcrc[t][b] && bad++ < 10)
            fprintf(stderr, "template %d block %X (U+%04X..): CRC %08X, Python %08X\n",
                    t, b, b * BLOCK, (unsigned)crc, (unsigned)V.tcrc[t][b]);
    }
    ck_assert_msg(bad == 0, "template %d: %d mismatches with Unicode %s", t, bad, V.unicode);
}
END_TEST

START_TEST(test_py_pairs)
{
    int bad = 0;
    load_vectors();
    for (int i = 0; i < V.npblocks; i++) {
        int b = V.pblock[i];
        uint32_t crc = 0;
        for (uint32_t cp = (uint32_t)b * BLOCK; cp < (uint32_t)(b + 1) * BLOCK; cp++) {
            if (skipped(cp))
                continue;
            for (int s = 0; s < V.nseconds; s++) {
                uint32_t cps[2] = {cp, V.seconds[s]};
                char in[16], *out;
                encode(cps, 2, in);
                out = nfc_ok(in);
                crc = crc32_update(crc, out, strlen(out));
                crc = crc32_update(crc, "\xFF", 1);
                free(out);
            }
        }
        if (crc != V.pcrc[i] && bad++ < 10)
            fprintf(stderr, "pairs block %X: CRC %08X, Python %08X\n", b,
                    (unsigned)crc, (unsigned)V.pcrc[i]);
    }
    ck_assert_msg(bad == 0, "%d pair blocks differ from Unicode %s", bad, V.unicode);
}
END_TEST

/* ---- against netCDF-C ------------------------------------------------------------- */
#ifdef HAVE_NETCDF

#define NC_OK(call)                                                          \
    do {                                                                     \
        int nc_s_ = (call);                                                  \
        ck_assert_msg(nc_s_ == NC_NOERR, "%s -> %s", #call, nc_strerror(nc_s_)); \
    } while (0)

/* Names netCDF-C accepts, in several spellings; some normalise alike. */
static const char *const nc_names[] = {
    "plain_ascii", "T2m",
    "caf\xC3\xA9", "cafe\xCC\x81",                                  /* e acute */
    "A\xCC\x8A" "ngstr\xC3\xB6m", "\xE2\x84\xAB" "ngstrom",        /* A ring, U+212B */
    "\xE2\x84\xA6" "_ohm", "\xCE\xA9_ohm", "\xE2\x84\xAA" "elvin",  /* OHM, KELVIN */
    "Vi\xE1\xBB\x87t", "Vie\xCC\xA3\xCC\x82t", "Vie\xCC\x82\xCC\xA3t",   /* e circ dot */
    "ti\xE1\xBA\xBFng", "tie\xCC\x82\xCC\x81ng",                    /* e circ acute */
    "ng\xC6\xB0\xE1\xBB\x9Di", "ngu\xCC\x9B\xCC\x80i",             /* u horn grave */
    "\xE1\x84\x92\xE1\x85\xA1\xE1\x86\xAB\xE1\x84\x80\xE1\x85\xB3\xE1\x86\xAF",
    "\xED\x95\x9C\xEA\xB8\x80",                                     /* HANGUL */
    "\xE1\x84\x80\xE1\x85\xA1", "\xEA\xB0\x80\xE1\x86\xA8",         /* L V, LV T */
    "\xEA\xB0\x80\xE1\x86\xA7" "x",                                 /* LV U+11A7 */
    "\xCE\xAC", "\xCE\xB1\xCC\x81", "\xE1\xBD\xB1" "b",             /* alpha tonos/oxia */
    "\xE1\xBE\x80", "\xCE\xB1\xCC\x93\xCD\x85", "\xCE\xB1\xCD\x85\xCC\x93",
    "\xCE\x90", "\xCE\xB9\xCC\x88\xCC\x81",                         /* iota dial tonos */
    "q\xCC\x87\xCC\xA3", "q\xCC\xA3\xCC\x87",                       /* non-canonical */
    "a\xCC\x81\xCC\xA3", "a\xCC\xA3\xCC\x81", "o\xCC\x9B\xCC\xA3\xCC\x81",
    "x\xCC\x80\xCC\x95\xCC\x81", "a\xD6\xAE\xCC\x80\xCC\x81\xCC\x95",
    "\xE0\xA5\x98", "\xE0\xA4\x95\xE0\xA4\xBC",                     /* excluded U+0958 */
    "\xE2\xAB\x9C", "\xE2\xAB\x9D\xCC\xB8",                         /* excluded U+2ADC */
    "\xEF\xAC\xB1", "\xD7\x91\xD6\xBC",                             /* U+FB31 */
    "t\xCD\x84", "t\xCC\x88\xCC\x81",                               /* U+0344 */
    "\xE0\xBD\xB3", "\xE0\xBD\xB1\xE0\xBD\xB2",                     /* U+0F73 */
    "\xF0\x9D\x85\x9E", "\xF0\x9D\x85\x97\xF0\x9D\x85\xA5",         /* U+1D15E */
    "\xE0\xAD\x87\xE0\xAC\xBE", "\xE0\xB7\x99\xE0\xB7\x8F\xE0\xB7\x8A",
    "\xEF\xA4\x80", "\xE8\xB1\x88",                                 /* U+F900 */
    "\xE3\x81\x8B\xE3\x82\x99", "\xE3\x81\x8C",                     /* ka + voicing */
};

static char *tmp_path(char *buf, size_t cap)
{
    snprintf(buf, cap, "ut_nfc_%ld.nc", (long)getpid());
    return buf;
}

/* Checks every name of the open file against ncsi_nfc. */
static void check_names(int ncid, const int *dimid)
{
    for (size_t i = 0; i < NELEMS(nc_names); i++) {
        char got[NC_MAX_NAME + 1], *want = nfc_ok(nc_names[i]);
        int id;
        NC_OK(nc_inq_dimname(ncid, dimid[i], got));
        ck_assert_msg(strcmp(got, want) == 0, "dim %zu %s: netCDF-C stored %s",
                      i, hex(nc_names[i]), hex(got));
        NC_OK(nc_inq_dimid(ncid, nc_names[i], &id));
        ck_assert_int_eq(id, dimid[i]);
        NC_OK(nc_inq_varid(ncid, nc_names[i], &id));
        NC_OK(nc_inq_varname(ncid, id, got));
        ck_assert_msg(strcmp(got, want) == 0, "var %zu: %s", i, hex(got));
        NC_OK(nc_inq_attid(ncid, NC_GLOBAL, nc_names[i], &id));
        NC_OK(nc_inq_attname(ncid, NC_GLOBAL, id, got));
        ck_assert_msg(strcmp(got, want) == 0, "att %zu: %s", i, hex(got));
        free(want);
    }
}

START_TEST(test_nc_names)
{
    char path[64];
    int ncid, dimid[NELEMS(nc_names)];
    tmp_path(path, sizeof path);
    NC_OK(nc_create(path, NC_CLOBBER, &ncid));
    for (size_t i = 0; i < NELEMS(nc_names); i++) {
        int st = nc_def_dim(ncid, nc_names[i], i + 1, &dimid[i]);
        if (st == NC_ENAMEINUSE) {
            /* an earlier spelling of the same name: ncsi_nfc must agree */
            char *a = nfc_ok(nc_names[i]);
            int hit = 0;
            for (size_t j = 0; j < i; j++) {
                char *b = nfc_ok(nc_names[j]);
                if (strcmp(a, b) == 0 && !hit) {
                    dimid[i] = dimid[j];
                    hit = 1;
                }
                free(b);
            }
            ck_assert_msg(hit, "netCDF-C: %s in use, ncsi_nfc: a new name", hex(a));
            free(a);
        } else {
            int varid;
            ck_assert_msg(st == NC_NOERR, "nc_def_dim(%s): %s", hex(nc_names[i]),
                          nc_strerror(st));
            for (size_t j = 0; j < i; j++) {
                char *a = nfc_ok(nc_names[i]), *b = nfc_ok(nc_names[j]);
                ck_assert_msg(strcmp(a, b) != 0,
                              "netCDF-C: %s is new, ncsi_nfc: same as name %zu",
                              hex(nc_names[i]), j);
                free(a);
                free(b);
            }
            NC_OK(nc_def_var(ncid, nc_names[i], NC_INT, 0, NULL, &varid));
            NC_OK(nc_put_att_text(ncid, NC_GLOBAL, nc_names[i], 1, "x"));
        }
    }
    check_names(ncid, dimid);
    NC_OK(nc_close(ncid));
    NC_OK(nc_open(path, NC_NOWRITE, &ncid));
    check_names(ncid, dimid);
    NC_OK(nc_close(ncid));
    unlink(path);
}
END_TEST

/* Internal netCDF-C functions, present in 4.9.0's libnetcdf. */
extern int nc_utf8_normalize(const unsigned char *utf8, unsigned char **normalp)
    __attribute__((weak));
extern int nc_utf8proc_category(int32_t c) __attribute__((weak));
extern unsigned char *nc_utf8proc_NFD(const unsigned char *str) __attribute__((weak));
extern const char *nc_utf8proc_version(void) __attribute__((weak));

static int have_nc_internals(void)
{
    if (nc_utf8_normalize && nc_utf8proc_category && nc_utf8proc_NFD &&
        nc_utf8proc_version)
        return 1;
    fprintf(stderr, "check_nfc: libnetcdf lacks its utf8proc symbols, skipped\n");
    return 0;
}

/* Tallies of a comparison, in memory shared with the child that runs it. */
typedef struct nc_tally {
    uint32_t cur;        /* code point being tried */
    int bad;             /* ncsi_nfc differs from a canonically equivalent result */
    int wrong;           /* netCDF-C's result is not canonically equivalent */
    int crashed;         /* netCDF-C crashed */
} nc_tally;

static int utf8proc_knows(const uint32_t *cps, int n)
{
    for (int i = 0; i < n; i++)
        if (nc_utf8proc_category((int32_t)cps[i]) == 0)
            return 0;
    return 1;
}

/* Compares ncsi_nfc with netCDF-C on n code points that netCDF-C's
 * utf8proc knows.  A difference counts against ncsi_nfc only when
 * netCDF-C's result is canonically equivalent to the input (same NFD);
 * otherwise netCDF-C is wrong (utf8proc 2.1.0 composes pairs that have no
 * composite, JuliaStrings/utf8proc#128, fixed in 2.2.0). */
static void compare_with_netcdf(const uint32_t *cps, int n, nc_tally *tl)
{
    char in[32], *ours;
    unsigned char *theirs = NULL, *d_in, *d_theirs;
    int st;
    if (!utf8proc_knows(cps, n))
        return;
    encode(cps, n, in);
    st = nc_utf8_normalize((const unsigned char *)in, &theirs);
    if (st != NC_NOERR)
        ck_abort_msg("nc_utf8_normalize(%s): %d", hex(in), st);
    ours = nfc_ok(in);
    if (strcmp(ours, (const char *)theirs) != 0) {
        d_in = nc_utf8proc_NFD((const unsigned char *)in);
        d_theirs = nc_utf8proc_NFD(theirs);
        if (d_in == NULL || d_theirs == NULL)
            ck_abort_msg("nc_utf8proc_NFD failed");
        if (strcmp((char *)d_in, (char *)d_theirs) != 0) {
            tl->wrong++;
        } else if (tl->bad++ < 10) {
            fprintf(stderr, "%s: netCDF-C ", hex(in));
            fprintf(stderr, "%s, ", hex((const char *)theirs));
            fprintf(stderr, "ncsi_nfc %s\n", hex(ours));
        }
        free(d_in);
        free(d_theirs);
    }
    free(ours);
    free(theirs);
}

/* Inputs for code point cp: template t (t >= 0), or cp followed by each
 * composition second (t < 0). */
static void compare_cp(int t, uint32_t cp, nc_tally *tl)
{
    uint32_t cps[3];
    if (skipped(cp))
        return;
    if (t >= 0) {
        compare_with_netcdf(cps, fill(t, cp, cps), tl);
        return;
    }
    for (int s = 0; s < V.nseconds; s++) {
        cps[0] = cp;
        cps[1] = V.seconds[s];
        compare_with_netcdf(cps, 2, tl);
    }
}

/* Runs compare_cp over [lo, hi) in child processes: netCDF-C 4.9.0 can
 * crash on some inputs (a bogus composite past its tables), and the run
 * resumes after the code point that crashed it. */
static void compare_range(int t, uint32_t lo, uint32_t hi, nc_tally *tl)
{
    while (lo < hi) {
        pid_t pid;
        int ws;
        tl->cur = lo;
        fflush(stderr);
        pid = fork();
        ck_assert(pid >= 0);
        if (pid == 0) {
            for (uint32_t cp = lo; cp < hi; cp++) {
                tl->cur = cp;
                compare_cp(t, cp, tl);
            }
            tl->cur = hi;
            _exit(0);
        }
        ck_assert(waitpid(pid, &ws, 0) == pid);
        if (WIFSIGNALED(ws)) {
            if (tl->crashed++ < 5)
                fprintf(stderr, "netCDF-C (utf8proc %s) crashed (signal %d) on input %d at U+%04X\n",
                        nc_utf8proc_version(), WTERMSIG(ws), t, (unsigned)tl->cur);
            lo = tl->cur + 1;
        } else {
            ck_assert_msg(WIFEXITED(ws) && WEXITSTATUS(ws) == 0 && tl->cur == hi,
                          "comparison child failed near U+%04X", (unsigned)tl->cur);
            lo = hi;
        }
    }
}

static nc_tally *new_tally(void)
{
    nc_tally *tl = mmap(NULL, sizeof *tl, PROT_READ | PROT_WRITE,
                        MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    ck_assert(tl != MAP_FAILED);
    memset(tl, 0, sizeof *tl);
    return tl;
}

static void report(const char *what, nc_tally *tl)
{
    if (tl->wrong || tl->crashed)
        fprintf(stderr, "%s: netCDF-C (utf8proc %s) wrong on %d inputs, crashed on %d; "
                "ncsi_nfc differs on %d more\n",
                what, nc_utf8proc_version(), tl->wrong, tl->crashed, tl->bad);
    ck_assert_msg(tl->bad == 0, "%s: %d differences from netCDF-C", what, tl->bad);
    munmap(tl, sizeof *tl);
}

START_TEST(test_nc_templates)
{
    char what[32];
    nc_tally *tl;
    if (!have_nc_internals())
        return;
    tl = new_tally();
    compare_range(_i, 0, 0x110000, tl);
    snprintf(what, sizeof what, "template %d", _i);
    report(what, tl);
}
END_TEST

START_TEST(test_nc_pairs)
{
    nc_tally *tl;
    if (!have_nc_internals())
        return;
    load_vectors();
    tl = new_tally();
    for (int i = 0; i < V.npblocks; i++)
        compare_range(-1, (uint32_t)V.pblock[i] * BLOCK,
                      (uint32_t)(V.pblock[i] + 1) * BLOCK, tl);
    report("pairs", tl);
}
END_TEST
#endif /* HAVE_NETCDF */

static Suite *nfc_suite(void)
{
    Suite *s = suite_create("nfc");
    TCase *tc = tcase_create("basic");
    tcase_add_test(tc, test_ascii);
    tcase_add_test(tc, test_invalid);
    tcase_add_test(tc, test_known);
    suite_add_tcase(s, tc);

    tc = tcase_create("python");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_py_explicit);
    tcase_add_loop_test(tc, test_py_templates, 0, NTEMPLATES);
    tcase_add_test(tc, test_py_pairs);
    suite_add_tcase(s, tc);

#ifdef HAVE_NETCDF
    tc = tcase_create("netcdf");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_nc_names);
    tcase_add_loop_test(tc, test_nc_templates, 0, NTEMPLATES);
    tcase_add_test(tc, test_nc_pairs);
    suite_add_tcase(s, tc);
#endif
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(nfc_suite());
    int failed;
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
