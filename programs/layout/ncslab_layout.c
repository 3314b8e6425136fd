/* programs/layout/ncslab_layout.c -- ncslab-layout: which layout suits a
 * variable and its access patterns (ncslab-layout.1).
 *
 * Reads the options, makes the variable's values (read from the user's
 * file, or made up for --shape: smooth fields plus noise, so that filters
 * compress them about as much as they compress measured data), cuts them
 * to the budget, builds the candidates and hands each to lay_measure.
 * It owns the temporary candidate files: each is registered before it is
 * created and removed when measured, at exit, and on SIGINT, SIGTERM and
 * SIGHUP (the handler only unlinks and re-raises). */
#include "layout.h"

#include <ncslab.h>

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAXTEMP LAY_MAXCAND
static char temp_path[MAXTEMP][4096];
static volatile sig_atomic_t temp_live[MAXTEMP];

void lay_msg(const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s: ", LAY_PROG);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

int lay_register_temp(const char *path)
{
    for (int i = 0; i < MAXTEMP; i++)
        if (!temp_live[i]) {
            snprintf(temp_path[i], sizeof temp_path[i], "%s", path);
            temp_live[i] = 1;
            return 0;
        }
    return -1;
}

void lay_forget_temp(const char *path)
{
    for (int i = 0; i < MAXTEMP; i++)
        if (temp_live[i] && strcmp(temp_path[i], path) == 0) {
            unlink(temp_path[i]);
            temp_live[i] = 0;
        }
}

static void remove_temps(void)
{
    for (int i = 0; i < MAXTEMP; i++)
        if (temp_live[i]) {
            unlink(temp_path[i]);
            temp_live[i] = 0;
        }
}

static void on_signal(int sig)
{
    for (int i = 0; i < MAXTEMP; i++)
        if (temp_live[i])
            unlink(temp_path[i]);
    signal(sig, SIG_DFL);
    raise(sig);
}

static void catch_signal(int sig)
{
    if (signal(sig, on_signal) == SIG_IGN)
        signal(sig, SIG_IGN);
}

static void usage(FILE *fp)
{
    fprintf(fp,
"usage: %s [options] FILE [VAR...]\n"
"       %s [options] --shape DIM=LEN,... [--type TYPE]\n"
"Writes a variable in candidate layouts, times the given access patterns on\n"
"each and recommends one, as ncslab-copy options.\n"
"  -p, --pattern P   series | map | row | column | box=S:E,... | every=N |\n"
"                    START/COUNT[/STRIDE], each optionally @WEIGHT; repeatable\n"
"                    (default: series and map)\n"
"  -c SPEC           a chunk shape to try: VAR:n1,...  n1,...  DIM/LEN,...;\n"
"                    repeatable\n"
"      --shape S     no file: DIM=LEN,... (LEN followed by u: unlimited, first)\n"
"      --type T      with --shape: byte short int float double ubyte ushort\n"
"                    uint int64 uint64 (default float)\n"
"      --only K,...  candidates: contiguous,default,balanced,user (default\n"
"                    all four), file (the FILE's own layout, read in place)\n"
"      --filters F,. none,deflate,zstd (default all)\n"
"      --deflate N   deflate level (default 1, with shuffle)\n"
"      --zstd N      zstd level (default 3)\n"
"      --chunk-bytes N  largest balanced chunk (default 4M)\n"
"      --budget N    bytes of the variable measured at most; beyond it a\n"
"                    sample of leading records (default 64M)\n"
"      --repeat N    times each request is read (default 1)\n"
"      --score S     time (weighted cold seconds, default) or bytes\n"
"      --dir D       temporary files (default $TMPDIR, else /tmp)\n"
"      --csv FILE    the results as CSV\n"
"      --svg FILE    a bar chart of scores and sizes\n"
"  -h, --help        this text\n"
"      --version     version of the program and of libncslab\n"
"Sizes take K, M, G suffixes (x1024).\n",
            LAY_PROG, LAY_PROG);
}

static int parse_bytes(const char *s, size_t *v)
{
    char *end;
    unsigned long long x, m = 1;
    if (*s < '0' || *s > '9')
        return -1;
    errno = 0;
    x = strtoull(s, &end, 10);
    if (errno)
        return -1;
    switch (*end) {
    case 'K': case 'k': m = 1ull << 10; end++; break;
    case 'M': case 'm': m = 1ull << 20; end++; break;
    case 'G': case 'g': m = 1ull << 30; end++; break;
    case 'T': case 't': m = 1ull << 40; end++; break;
    default: break;
    }
    if (*end != '\0' || x == 0 || x > (unsigned long long)SIZE_MAX / m)
        return -1;
    *v = (size_t)(x * m);
    return 0;
}

static int parse_int(const char *s, int lo, int hi, int *v)
{
    char *end;
    long x;
    errno = 0;
    x = strtol(s, &end, 10);
    if (errno || end == s || *end != '\0' || x < lo || x > hi)
        return -1;
    *v = (int)x;
    return 0;
}

/* Comma list of names into flags[]. */
static int parse_names(const char *s, const char *const *names, int n, int *flags)
{
    char buf[256];
    memset(flags, 0, sizeof *flags * (size_t)n);
    snprintf(buf, sizeof buf, "%s", s);
    for (char *t = strtok(buf, ","); t; t = strtok(NULL, ",")) {
        int i;
        for (i = 0; i < n && strcmp(t, names[i]) != 0; i++)
            ;
        if (i == n)
            return -1;
        flags[i] = 1;
    }
    return 0;
}

/* The -c specs as given; bound to each variable in user_shape. */
static const char *cspec[8];
static int ncspec;

/* -c SPEC for variable v: 0 and chunk[] set, 1 when it names another
 * variable, -1 when it does not fit. */
static int user_shape(const char *spec, const lay_var *v, size_t *chunk)
{
    const char *colon = strchr(spec, ':');
    const char *s = spec;
    char buf[512];
    if (colon) {
        if ((size_t)(colon - spec) != strlen(v->name)
            || strncmp(spec, v->name, (size_t)(colon - spec)) != 0)
            return 1;
        s = colon + 1;
    }
    for (int d = 0; d < v->ndims; d++)
        chunk[d] = v->shape[d];
    snprintf(buf, sizeof buf, "%s", s);
    if (strchr(buf, '/')) {
        for (char *t = strtok(buf, ","); t; t = strtok(NULL, ",")) {
            char *sl = strchr(t, '/'), *end;
            int d;
            unsigned long long n;
            if (!sl)
                goto bad;
            *sl = '\0';
            for (d = 0; d < v->ndims && strcmp(v->dimname[d], t) != 0; d++)
                ;
            n = strtoull(sl + 1, &end, 10);
            if (*end != '\0' || n == 0)
                goto bad;
            if (d < v->ndims)
                chunk[d] = n < v->shape[d] || (v->unlim && d == 0) ? (size_t)n
                                                                   : v->shape[d];
        }
        return 0;
    }
    {
        int d = 0;
        for (char *t = strtok(buf, ","); t; t = strtok(NULL, ","), d++) {
            char *end;
            unsigned long long n = strtoull(t, &end, 10);
            if (d >= v->ndims || *end != '\0' || n == 0
                || (n > v->fullshape[d] && !(v->unlim && d == 0)))
                goto bad;
            chunk[d] = n > v->shape[d] && !(v->unlim && d == 0) ? v->shape[d] : (size_t)n;
        }
        if (d != v->ndims)
            goto bad;
    }
    return 0;
bad:
    lay_msg("-c '%s': not a chunk shape for %s (%d dimensions)", spec, v->name,
            v->ndims);
    return -1;
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static double noise(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (double)(rng_state >> 11) / 9007199254740992.0 - 0.5;
}

/* Smooth waves over every dimension plus 5% noise, scaled to the type. */
static double *synth(const lay_var *v, size_t n)
{
    double *a = malloc(n * sizeof *a), base, amp;
    size_t idx[LAY_MAXDIMS] = {0};
    switch (v->type) {
    case NCS_BYTE: base = 0; amp = 100; break;
    case NCS_UBYTE: base = 128; amp = 100; break;
    case NCS_SHORT: base = 0; amp = 10000; break;
    case NCS_USHORT: base = 32768; amp = 10000; break;
    case NCS_INT: case NCS_INT64: base = 0; amp = 1e6; break;
    case NCS_UINT: case NCS_UINT64: base = 2e6; amp = 1e6; break;
    default: base = 280; amp = 20; break;
    }
    if (!a)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        double s = 0;
        for (int d = 0; d < v->ndims; d++)
            s += sin(6.283185307179586 * (d + 1) * (double)idx[d]
                     / (double)v->fullshape[d]);
        a[i] = base + amp * (s / v->ndims * 0.95 + 0.1 * noise());
        for (int d = v->ndims - 1; d >= 0; d--) {
            if (++idx[d] < v->shape[d])
                break;
            idx[d] = 0;
        }
    }
    return a;
}

static size_t nvalues(const lay_var *v)
{
    size_t n = 1;
    for (int d = 0; d < v->ndims; d++)
        n *= v->shape[d];
    return n;
}

/* Cuts the leading dimension so the variable fits the budget. */
static void sample(lay_var *v, const lay_opts *o)
{
    double rec = (double)v->esz;
    for (int d = 1; d < v->ndims; d++)
        rec *= (double)v->shape[d];
    if (rec * (double)v->shape[0] > (double)o->budget) {
        size_t n = (size_t)((double)o->budget / rec);
        v->shape[0] = n ? n : 1;
        v->sampled = 1;
    }
}

static int classic_format(const lay_var *v)
{
    double bytes = (double)v->esz;
    for (int d = v->unlim ? 1 : 0; d < v->ndims; d++)
        bytes *= (double)v->fullshape[d];
    if (v->type > NCS_DOUBLE)
        return NCS_FORMAT_64BIT_DATA;
    if (bytes < 2147483644.0)
        return NCS_FORMAT_CLASSIC;
    if (bytes < 4294967292.0)
        return NCS_FORMAT_64BIT_OFFSET;
    return NCS_FORMAT_64BIT_DATA;
}

static const char *const kind_opt[] = {"contiguous", "default", "balanced", "user", "file"};
static const char *const filter_opt[] = {"none", "deflate", "zstd"};

/* The input file's own storage of the variable as a candidate (--only
 * file): its chunks (all 0 when contiguous), its compressor, its format. */
static int file_cand(const lay_var *v, const lay_opts *o, lay_cand *c)
{
    int ncid, varid, storage = NCS_CONTIGUOUS, sh = 0, def = 0, level = 0, z = 0, st;
    memset(c, 0, sizeof *c);
    c->kind = LAY_FILE;
    if (o->input == NULL) {
        lay_msg("--only file: there is no file with --shape");
        return -1;
    }
    snprintf(c->path, sizeof c->path, "%s", o->input);
    if ((st = ncs_open(o->input, NCS_NOWRITE, &ncid)) != 0) {
        lay_msg("%s: %s", o->input, ncs_strerror(st));
        return -1;
    }
    st = ncs_inq_format(ncid, &c->format);
    if (st == 0)
        st = ncs_inq_varid(ncid, v->name, &varid);
    if (st == 0 && c->format == NCS_FORMAT_NETCDF4_CLASSIC) {
        st = ncs_inq_var_chunking(ncid, varid, &storage, c->chunk);
        if (st == 0)
            ncs_inq_var_deflate(ncid, varid, &sh, &def, &level);
        if (st == 0)
            ncs_inq_var_zstd(ncid, varid, &z);
        if (st == 0)
            ncs_inq_var_fletcher32(ncid, varid, &c->fletcher);
    }
    ncs_close(ncid);
    if (st != 0) {
        lay_msg("%s: the storage of '%s': %s", o->input, v->name, ncs_strerror(st));
        return -1;
    }
    if (storage != NCS_CHUNKED)
        memset(c->chunk, 0, sizeof c->chunk);
    c->filter = def ? LAY_F_DEFLATE : z ? LAY_F_ZSTD : LAY_F_NONE;
    c->level = def ? level : z;
    c->shuffle = sh;
    snprintf(c->label, sizeof c->label, "file %s%s%s",
             c->format == NCS_FORMAT_CLASSIC ? "CDF-1"
             : c->format == NCS_FORMAT_64BIT_OFFSET ? "CDF-2"
             : c->format == NCS_FORMAT_64BIT_DATA ? "CDF-5" : "nc4",
             c->filter ? "+" : "", c->filter == LAY_F_DEFLATE ? "deflate"
                                 : c->filter == LAY_F_ZSTD ? "zstd" : "");
    return 0;
}

/* Whether candidate c is the layout the input file (own, from file_cand)
 * already gives the variable: the same format, both contiguous or the
 * same chunks, the same filters at the same levels, no other filter. */
static int stored_so(const lay_var *v, const lay_opts *o, const lay_cand *own,
                     const lay_cand *c)
{
    if (c->kind == LAY_FILE || c->format != own->format || c->filter != own->filter ||
        own->fletcher)
        return 0;
    if (lay_contig(c) || lay_contig(own))
        return lay_contig(c) && lay_contig(own);
    for (int d = 0; d < v->ndims; d++)
        if (c->chunk[d] != own->chunk[d])
            return 0;
    if (c->filter == LAY_F_DEFLATE)
        return own->shuffle && own->level == o->deflate_level;
    if (c->filter == LAY_F_ZSTD)
        return !own->shuffle && own->level == o->zstd_level;
    return !own->shuffle;
}

/* Builds, measures and reports every candidate of one variable. */
static int run_var(lay_var *v, const void *data, int memtype, lay_opts *o,
                   FILE *csv, int *csv_header)
{
    static lay_cand c[LAY_MAXCAND];
    static unsigned serial;
    int n = 0, status = 0;
    size_t shapes[2 + 8][LAY_MAXDIMS];
    int kinds[2 + 8], nshape = 0;
    /* the default and balanced shapes are those of the user's variable,
     * not of the sample: the patterns are bound to its whole shape for
     * them, then to the sample's for the measurements (a series of a
     * sampled variable would otherwise get chunks as long as the sample) */
    lay_var whole = *v;
    memcpy(whole.shape, v->fullshape, sizeof whole.shape);
    for (int i = 0; i < o->npat; i++)
        if (lay_pattern_bind(&o->pat[i], &whole) != 0)
            return -1;
    if (o->want_kind[LAY_DEFAULT]) {
        if (lay_default_chunks(&whole, o, shapes[nshape]) != 0)
            return -1;
        kinds[nshape++] = LAY_DEFAULT;
    }
    if (o->want_kind[LAY_BALANCED]) {
        lay_balanced_chunks(&whole, o, shapes[nshape]);
        kinds[nshape++] = LAY_BALANCED;
    }
    for (int i = 0; v->sampled && i < o->npat; i++)
        if (lay_pattern_bind(&o->pat[i], v) != 0)
            return -1;
    for (int i = 0; o->want_kind[LAY_USER] && i < ncspec; i++) {
        int r = user_shape(cspec[i], v, shapes[nshape]);
        if (r < 0)
            return -1;
        if (r == 0)
            kinds[nshape++] = LAY_USER;
    }
    if (o->want_kind[LAY_FILE] && file_cand(v, o, &c[n]) != 0)
        return -1;
    if (o->want_kind[LAY_FILE])
        n++;
    if (o->want_kind[LAY_CONTIG]) {
        memset(&c[n], 0, sizeof c[n]);
        c[n].kind = LAY_CONTIG;
        c[n].format = classic_format(v);
        snprintf(c[n].label, sizeof c[n].label, "contiguous CDF-%d",
                 c[n].format == NCS_FORMAT_CLASSIC ? 1
                 : c[n].format == NCS_FORMAT_64BIT_OFFSET ? 2 : 5);
        n++;
    }
    for (int s = 0; s < nshape; s++)
        for (int f = 0; f < 3; f++) {
            if (!o->want_filter[f])
                continue;
            memset(&c[n], 0, sizeof c[n]);
            c[n].kind = kinds[s];
            c[n].filter = f;
            c[n].format = NCS_FORMAT_NETCDF4_CLASSIC;
            memcpy(c[n].chunk, shapes[s], sizeof shapes[s]);
            snprintf(c[n].label, sizeof c[n].label, "%s%s%s", kind_opt[kinds[s]],
                     f ? "+" : "", f == LAY_F_DEFLATE ? "deflate"
                                   : f == LAY_F_ZSTD ? "zstd" : "");
            n++;
        }
    if (n == 0) {
        lay_msg("no candidates (see --only and --filters)");
        return -1;
    }
    for (int k = 0; k < n; k++) {
        if (c[k].kind == LAY_FILE) {    /* the user's file: never removed */
            if (lay_measure(v, data, memtype, o, &c[k]) != 0)
                status = -1;
            continue;
        }
        snprintf(c[k].path, sizeof c[k].path, "%s/%s.%ld.%u.nc", o->dir, LAY_PROG,
                 (long)getpid(), serial++);
        if (lay_register_temp(c[k].path) != 0) {
            lay_msg("too many temporary files");
            return -1;
        }
        if (lay_measure(v, data, memtype, o, &c[k]) != 0)
            status = -1;
        lay_forget_temp(c[k].path);
    }
    if (o->input != NULL) {
        static lay_cand own;
        if (file_cand(v, o, &own) != 0)
            return -1;
        for (int k = 0; k < n; k++)
            c[k].stored = stored_so(v, o, &own, &c[k]);
    }
    lay_report(stdout, v, o, c, n);
    fflush(stdout);
    if (csv && lay_write_csv(csv, v, o, c, n, !*csv_header) != 0)
        status = -1;
    *csv_header = 1;
    if (o->svg) {
        FILE *fp = fopen(o->svg, "w");
        if (!fp || lay_write_svg(fp, v, o, c, n) != 0 || fclose(fp) != 0) {
            lay_msg("%s: cannot write", o->svg);
            status = -1;
        }
    }
    return status;
}

int main(int argc, char **argv)
{
    enum { O_SHAPE = 256, O_TYPE, O_ONLY, O_FILTERS, O_DEFLATE, O_ZSTD,
           O_CHUNKB, O_BUDGET, O_REPEAT, O_SCORE, O_DIR, O_CSV, O_SVG, O_VERSION };
    static const struct option lopts[] = {
        {"pattern", required_argument, NULL, 'p'},
        {"shape", required_argument, NULL, O_SHAPE},
        {"type", required_argument, NULL, O_TYPE},
        {"only", required_argument, NULL, O_ONLY},
        {"filters", required_argument, NULL, O_FILTERS},
        {"deflate", required_argument, NULL, O_DEFLATE},
        {"zstd", required_argument, NULL, O_ZSTD},
        {"chunk-bytes", required_argument, NULL, O_CHUNKB},
        {"budget", required_argument, NULL, O_BUDGET},
        {"repeat", required_argument, NULL, O_REPEAT},
        {"score", required_argument, NULL, O_SCORE},
        {"dir", required_argument, NULL, O_DIR},
        {"csv", required_argument, NULL, O_CSV},
        {"svg", required_argument, NULL, O_SVG},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, O_VERSION},
        {NULL, 0, NULL, 0}
    };
    static lay_opts o;
    static lay_var v;
    const char *shape = NULL;
    int type = NCS_FLOAT, ch, status = 0, csv_header = 0;
    FILE *csv = NULL;

    o.deflate_level = 1;
    o.zstd_level = 3;
    o.chunk_bytes = 4u << 20;
    o.budget = 64u << 20;
    o.repeat = 1;
    for (int i = 0; i < 4; i++)
        o.want_kind[i] = 1;
    for (int i = 0; i < 3; i++)
        o.want_filter[i] = 1;
    o.dir = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    while ((ch = getopt_long(argc, argv, "p:c:h", lopts, NULL)) != -1) {
        switch (ch) {
        case 'p':
            if (o.npat == LAY_MAXPAT) {
                lay_msg("at most %d patterns", LAY_MAXPAT);
                return 2;
            }
            if (lay_pattern_parse(optarg, &o.pat[o.npat++]) != 0)
                return 2;
            break;
        case 'c':
            if (ncspec == 8) {
                lay_msg("at most 8 -c shapes");
                return 2;
            }
            cspec[ncspec++] = optarg;
            break;
        case O_SHAPE: shape = optarg; break;
        case O_TYPE:
            if (lay_parse_type(optarg, &type) != 0)
                return 2;
            break;
        case O_ONLY:
            if (parse_names(optarg, kind_opt, LAY_NKIND, o.want_kind) != 0) {
                lay_msg("--only: give contiguous,default,balanced,user,file");
                return 2;
            }
            break;
        case O_FILTERS:
            if (parse_names(optarg, filter_opt, 3, o.want_filter) != 0) {
                lay_msg("--filters: give none,deflate,zstd");
                return 2;
            }
            break;
        case O_DEFLATE:
            if (parse_int(optarg, 1, 9, &o.deflate_level) != 0) {
                lay_msg("--deflate: a level 1-9");
                return 2;
            }
            break;
        case O_ZSTD:
            if (parse_int(optarg, 1, 22, &o.zstd_level) != 0) {
                lay_msg("--zstd: a level 1-22");
                return 2;
            }
            break;
        case O_CHUNKB:
        case O_BUDGET:
            if (parse_bytes(optarg, ch == O_CHUNKB ? &o.chunk_bytes : &o.budget) != 0) {
                lay_msg("--%s: a positive size (suffix K, M, G, T)",
                        ch == O_CHUNKB ? "chunk-bytes" : "budget");
                return 2;
            }
            break;
        case O_REPEAT:
            if (parse_int(optarg, 1, 1000, &o.repeat) != 0) {
                lay_msg("--repeat: 1-1000");
                return 2;
            }
            break;
        case O_SCORE:
            if (strcmp(optarg, "time") != 0 && strcmp(optarg, "bytes") != 0) {
                lay_msg("--score: time or bytes");
                return 2;
            }
            o.score_bytes = optarg[0] == 'b';
            break;
        case O_DIR: o.dir = optarg; break;
        case O_CSV: o.csv = optarg; break;
        case O_SVG: o.svg = optarg; break;
        case 'h': usage(stdout); return 0;
        case O_VERSION:
            printf("%s %s (libncslab %s)\n", LAY_PROG, NCS_VERSION, ncs_inq_libvers());
            return 0;
        default: usage(stderr); return 2;
        }
    }
    if (o.npat == 0) {
        lay_pattern_parse("series", &o.pat[o.npat++]);
        lay_pattern_parse("map", &o.pat[o.npat++]);
    }
    if (shape ? optind != argc : optind == argc) {
        lay_msg(shape ? "--shape takes no FILE" : "give a FILE or --shape");
        usage(stderr);
        return 2;
    }
    if (access(o.dir, W_OK | X_OK) != 0) {
        lay_msg("--dir %s: %s", o.dir, strerror(errno));
        return 2;
    }
    if (o.csv && (csv = fopen(o.csv, "w")) == NULL) {
        lay_msg("%s: %s", o.csv, strerror(errno));
        return 2;
    }
    atexit(remove_temps);
    catch_signal(SIGINT);
    catch_signal(SIGTERM);
    catch_signal(SIGHUP);

    if (shape) {
        double *data;
        if (lay_parse_shape(shape, &v) != 0) {
            status = 2;
            goto done;
        }
        snprintf(v.name, sizeof v.name, "var");
        v.type = type;
        ncs_inq_type_size(type, &v.esz);
        sample(&v, &o);
        if ((data = synth(&v, nvalues(&v))) == NULL) {
            lay_msg("out of memory for %zu values", nvalues(&v));
            status = 1;
            goto done;
        }
        if (run_var(&v, data, NCS_DOUBLE, &o, csv, &csv_header) != 0)
            status = 1;
        free(data);
    } else {
        const char *path = argv[optind++];
        o.input = path;
        int ncid, nvars, unlimid, st, nsel = argc - optind, ran = 0;
        if ((st = ncs_open(path, NCS_NOWRITE, &ncid)) != 0) {
            lay_msg("%s: %s", path, ncs_strerror(st));
            status = 1;
            goto done;
        }
        ncs_inq(ncid, NULL, &nvars, NULL, &unlimid);
        for (int i = 0; i < nsel; i++)
            if (ncs_inq_varid(ncid, argv[optind + i], &st) != 0) {
                lay_msg("%s: no variable '%s'", path, argv[optind + i]);
                status = 1;
            }
        for (int varid = 0; status == 0 && varid < nvars; varid++) {
            int dimids[NCS_MAX_VAR_DIMS], sel = nsel == 0;
            void *data;
            size_t start[LAY_MAXDIMS] = {0};
            memset(&v, 0, sizeof v);
            ncs_inq_var(ncid, varid, v.name, &v.type, &v.ndims, dimids, NULL);
            for (int i = 0; i < nsel; i++)
                sel |= strcmp(argv[optind + i], v.name) == 0;
            if (!sel)
                continue;
            if (v.ndims == 0 || v.ndims > LAY_MAXDIMS || v.type == NCS_CHAR) {
                if (nsel) {
                    lay_msg("%s: variable '%s' is %s: nothing to lay out", path,
                            v.name, v.type == NCS_CHAR ? "text"
                                    : v.ndims ? "of too many dimensions" : "a scalar");
                    status = 1;
                }
                continue;
            }
            for (int d = 0; d < v.ndims; d++) {
                ncs_inq_dim(ncid, dimids[d], v.dimname[d], &v.fullshape[d]);
                v.shape[d] = v.fullshape[d];
            }
            v.unlim = dimids[0] == unlimid;
            ncs_inq_type_size(v.type, &v.esz);
            if (nvalues(&v) == 0) {
                if (nsel) {
                    lay_msg("%s: variable '%s' has no values", path, v.name);
                    status = 1;
                }
                continue;
            }
            sample(&v, &o);
            if ((data = malloc(nvalues(&v) * v.esz)) == NULL) {
                lay_msg("out of memory for %zu values", nvalues(&v));
                status = 1;
                break;
            }
            if ((st = ncs_get(ncid, varid, start, v.shape, NULL, NULL, NCS_NAT, data)) != 0) {
                lay_msg("%s: reading '%s': %s", path, v.name, ncs_strerror(st));
                status = 1;
            } else if (run_var(&v, data, NCS_NAT, &o, csv, &csv_header) != 0) {
                status = 1;
            }
            ran++;
            free(data);
        }
        ncs_close(ncid);
        if (status == 0 && ran == 0) {
            lay_msg("%s: no variable to lay out", path);
            status = 1;
        }
    }
done:
    if (csv && fclose(csv) != 0) {
        lay_msg("%s: cannot write", o.csv);
        status = 1;
    }
    return status;
}
