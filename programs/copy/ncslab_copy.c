/*
 * ncslab_copy.c -- ncslab-copy IN OUT: copies a classic-model netCDF file
 * (CDF-1, CDF-2, CDF-5 or netCDF-4 classic model) into any of those layouts,
 * with nccopy's option names where nccopy has them (ncslab-copy.1).
 *
 * The output never exists under its final name until it is complete: it is
 * written to OUT.ncslab-copy.XXXXXX in OUT's directory, optionally read
 * back and compared, synced, and renamed onto OUT.  Any failure, and
 * SIGINT, SIGTERM or SIGHUP, removes the temporary file; an existing OUT is
 * left as it was.  Only SIGKILL or a crash can leave the temporary file
 * behind, never a partial OUT.
 *
 * Exit status: 0 success, 1 a failed copy or verification, 2 bad usage.
 */
#include "copy.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <malloc.h>
#include <signal.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#define DEFAULT_MEMORY ((size_t)256 << 20)
#define MIN_MEMORY ((size_t)1 << 20)
/* nccopy's threshold: fixed-size variables with smaller chunks are not
 * chunked (-M) */
#define MIN_CHUNK_BYTES ((size_t)8192)

/* The temporary output, for the signal handler: set before the file exists,
 * cleared once it has its final name. */
static char tmp_path[PATH_MAX + 32];
static volatile sig_atomic_t tmp_live;

void copy_msg(const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s: ", COPY_PROG);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

void copy_fail(int status, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s: ", COPY_PROG);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, ": %s\n", ncs_strerror(status));
}

static void on_signal(int sig)
{
    if (tmp_live)
        unlink(tmp_path);
    signal(sig, SIG_DFL);
    raise(sig);
}

/* A signal ignored when the program started (SIGINT and SIGHUP of a
 * background job, nohup) stays ignored. */
static void catch_signal(int sig)
{
    if (signal(sig, on_signal) == SIG_IGN)
        signal(sig, SIG_IGN);
}

static void usage(FILE *fp)
{
    fprintf(fp,
"usage: %s [options] IN OUT\n"
"Copies a classic-model netCDF file into another layout.\n"
"  -k KIND          output format: classic|nc3|1, '64-bit offset'|nc6|2,\n"
"                   cdf5|nc5|'64-bit data'|5, 'netCDF-4 classic model'|nc7|4,\n"
"                   netCDF-4|nc4|3 (and nccopy's other spellings);\n"
"                   -3 -6 -5 -7 -4 likewise\n"
"  -c SPEC          chunking: dim/len,dim/len,...  var:n1,n2,...  var:\n"
"                   (contiguous)  / (everything contiguous); var: forms\n"
"                   repeatable, the last dim/len form counts\n"
"  -d LEVEL         deflate level 0-9 (0: no compression, no shuffle)\n"
"  -s               shuffle before compressing (with -d 1-9 or --zstd)\n"
"      --zstd LEVEL Zstandard level 1-22 (0: none)\n"
"      --fletcher32 Fletcher-32 checksum of each chunk\n"
"  -F none          no filters at all (not even the input's Fletcher-32)\n"
"  -u               the record dimension becomes a fixed-size one\n"
"  -m SIZE          memory budget (default 256M; suffix K, M, G, T: x1024)\n"
"  -h SIZE          chunk cache size (default: a quarter of -m)\n"
"  -e N             accepted for nccopy's sake; no effect\n"
"  -M SIZE          fixed-size variables whose chunks would be smaller are\n"
"                   contiguous (default 8192; 0: none)\n"
"      --verify     read the output back and compare it with the input\n"
"      --no-sync    do not fsync the output before renaming it\n"
"  -q, --quiet      no progress bar\n"
"  -h, --help       this text (-h alone)\n"
"      --version    version of the program and of libncslab\n",
            COPY_PROG);
}

/* A non-negative decimal integer, the whole string. */
static int parse_uint(const char *s, unsigned long max, unsigned long *vp)
{
    char *end;
    unsigned long v;
    if (*s < '0' || *s > '9')
        return -1;
    errno = 0;
    v = strtoul(s, &end, 10);
    if (errno != 0 || *end != '\0' || v > max)
        return -1;
    *vp = v;
    return 0;
}

static int parse_memory(const char *s, size_t *vp)
{
    char *end;
    unsigned long long v;
    int shift = 0;
    if (*s < '0' || *s > '9')
        return -1;
    errno = 0;
    v = strtoull(s, &end, 10);
    if (errno != 0)
        return -1;
    switch (*end) {
    case '\0': break;
    case 'k': case 'K': shift = 10; end++; break;
    case 'm': case 'M': shift = 20; end++; break;
    case 'g': case 'G': shift = 30; end++; break;
    case 't': case 'T': shift = 40; end++; break;
    default: return -1;
    }
    if (shift != 0 && (strcmp(end, "iB") == 0 || strcmp(end, "B") == 0))
        end += strlen(end);
    if (*end != '\0' || v > (unsigned long long)(SIZE_MAX >> shift))
        return -1;
    *vp = (size_t)(v << shift);
    return 0;
}

/* nccopy's names for the output kinds (its table of legal kinds). */
static int parse_kind(const char *s)
{
    static const struct { const char *name; int kind; } kinds[] = {
        {"classic", NCS_FORMAT_CLASSIC}, {"nc3", NCS_FORMAT_CLASSIC},
        {"1", NCS_FORMAT_CLASSIC},
        {"64-bit offset", NCS_FORMAT_64BIT_OFFSET},
        {"64-bit-offset", NCS_FORMAT_64BIT_OFFSET},
        {"nc6", NCS_FORMAT_64BIT_OFFSET}, {"2", NCS_FORMAT_64BIT_OFFSET},
        {"netCDF-4", NCS_FORMAT_NETCDF4}, {"nc4", NCS_FORMAT_NETCDF4},
        {"3", NCS_FORMAT_NETCDF4}, {"netCDF4", NCS_FORMAT_NETCDF4},
        {"enhanced", NCS_FORMAT_NETCDF4}, {"hdf5", NCS_FORMAT_NETCDF4},
        {"netCDF-4 classic model", NCS_FORMAT_NETCDF4_CLASSIC},
        {"nc7", NCS_FORMAT_NETCDF4_CLASSIC}, {"4", NCS_FORMAT_NETCDF4_CLASSIC},
        {"netCDF-4-classic", NCS_FORMAT_NETCDF4_CLASSIC},
        {"netCDF-4_classic", NCS_FORMAT_NETCDF4_CLASSIC},
        {"netCDF4_classic", NCS_FORMAT_NETCDF4_CLASSIC},
        {"hdf5-nc3", NCS_FORMAT_NETCDF4_CLASSIC},
        {"enhanced-nc3", NCS_FORMAT_NETCDF4_CLASSIC},
        {"5", NCS_FORMAT_64BIT_DATA}, {"64-bit-data", NCS_FORMAT_64BIT_DATA},
        {"64-bit data", NCS_FORMAT_64BIT_DATA}, {"nc5", NCS_FORMAT_64BIT_DATA},
        {"cdf5", NCS_FORMAT_64BIT_DATA},
    };
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (strcmp(s, kinds[i].name) == 0)
            return kinds[i].kind;
    return 0;
}

/* Copies the next item of a chunkspec up to an unescaped `stop` character
 * (or the end), removing the backslashes of escapes.  Returns the position
 * of the stop character or of the terminating NUL. */
static const char *spec_item(const char *s, const char *stops, char *out,
                             size_t outsize)
{
    size_t n = 0;
    while (*s != '\0' && strchr(stops, *s) == NULL) {
        if (*s == '\\' && s[1] != '\0')
            s++;
        if (n + 1 < outsize)
            out[n++] = *s;
        s++;
    }
    out[n] = '\0';
    return s;
}

static int has_unescaped(const char *s, char c)
{
    for (; *s != '\0'; s++) {
        if (*s == '\\' && s[1] != '\0')
            s++;
        else if (*s == c)
            return 1;
    }
    return 0;
}

static int add_varspec(copy_opts *o, const char *spec)
{
    char name[NCS_MAX_NAME + 2];
    const char *p = spec_item(spec, ":", name, sizeof name);
    copy_varspec *v;
    copy_varspec *grown = realloc(o->vars, (size_t)(o->nvars + 1) * sizeof *grown);
    if (grown == NULL)
        return -1;
    o->vars = grown;
    v = &o->vars[o->nvars];
    memset(v, 0, sizeof *v);
    if (name[0] == '\0' || strlen(name) > NCS_MAX_NAME)
        goto bad;
    p++;                                    /* the ':' */
    if (*p == '\0' || strcasecmp(p, "contiguous") == 0) {
        v->contiguous = 1;
    } else if (strcasecmp(p, "compact") == 0) {
        copy_msg("'%s': compact storage is not supported; "
                 "use %s:contiguous", spec, name);
        free(v->sizes);
        return -1;
    } else {
        for (const char *q = p; q != NULL; q = strchr(q, ','), q = q ? q + 1 : q) {
            char num[32];
            unsigned long len;
            size_t *sizes;
            spec_item(q, ",", num, sizeof num);
            if (parse_uint(num, SIZE_MAX, &len) != 0 || len == 0 ||
                v->n >= NCS_MAX_VAR_DIMS)
                goto bad;
            sizes = realloc(v->sizes, (size_t)(v->n + 1) * sizeof *sizes);
            if (sizes == NULL)
                goto bad;
            v->sizes = sizes;
            v->sizes[v->n++] = len;
        }
    }
    v->name = strdup(name);
    if (v->name == NULL)
        goto bad;
    /* nccopy: later specifications of the same variable are ignored */
    for (int i = 0; i < o->nvars; i++)
        if (strcmp(o->vars[i].name, v->name) == 0) {
            free(v->name);
            free(v->sizes);
            return 0;
        }
    o->nvars++;
    return 0;
bad:
    free(v->sizes);
    copy_msg("bad chunk specification '%s' (want var:n1,n2,... or var:)", spec);
    return -1;
}

/* Earlier dimension-form entries stay, inactive: their names must still
 * be the input's, as nccopy looks every one of them up. */
static void drop_dimspecs(copy_opts *o)
{
    for (int i = 0; i < o->ndims; i++)
        o->dims[i].inactive = 1;
    o->all_contiguous = 0;
}

/* As in nccopy, a dimension-form chunkspec replaces any earlier one; said
 * aloud, since a script may expect them to add up. */
static int add_dimspecs(copy_opts *o, const char *spec)
{
    const char *p = spec;
    if (o->dimspec != NULL) {
        copy_msg("note: -c %s replaces the earlier -c %s (as in nccopy, the last "
                 "dim/len list counts; name every dimension in one)", spec, o->dimspec);
        drop_dimspecs(o);
    }
    o->dimspec = spec;
    if (strcmp(spec, "/") == 0 || strcmp(spec, "//") == 0) {
        o->all_contiguous = 1;
        return 0;
    }
    while (1) {
        char name[NCS_MAX_NAME + 2], num[32];
        unsigned long len = 0;
        copy_dimspec *grown;
        p = spec_item(p, "/,", name, sizeof name);
        if (*p != '/' || name[0] == '\0' || strlen(name) > NCS_MAX_NAME)
            goto bad;
        p = spec_item(p + 1, ",", num, sizeof num);
        if (num[0] != '\0' && (parse_uint(num, SIZE_MAX, &len) != 0 || len == 0))
            goto bad;
        grown = realloc(o->dims, (size_t)(o->ndims + 1) * sizeof *grown);
        if (grown == NULL)
            goto bad;
        o->dims = grown;
        o->dims[o->ndims].name = strdup(name);
        o->dims[o->ndims].len = len;
        o->dims[o->ndims].inactive = 0;
        if (o->dims[o->ndims].name == NULL)
            goto bad;
        o->ndims++;
        if (*p == '\0')
            return 0;
        p++;
    }
bad:
    copy_msg("bad chunk specification '%s' (want dim/len,dim/len,... or /)", spec);
    return -1;
}

static void free_opts(copy_opts *o)
{
    for (int i = 0; i < o->ndims; i++)
        free(o->dims[i].name);
    for (int i = 0; i < o->nvars; i++) {
        free(o->vars[i].name);
        free(o->vars[i].sizes);
    }
    free(o->dims);
    free(o->vars);
}

enum { OPT_ZSTD = 256, OPT_FLETCHER32, OPT_VERIFY, OPT_NOSYNC, OPT_VERSION, OPT_HELP };

static int parse_args(int argc, char **argv, copy_opts *o, int *optindp)
{
    static const struct option longopts[] = {
        {"kind", required_argument, NULL, 'k'},
        {"chunk", required_argument, NULL, 'c'},
        {"deflate", required_argument, NULL, 'd'},
        {"shuffle", no_argument, NULL, 's'},
        {"zstd", required_argument, NULL, OPT_ZSTD},
        {"fletcher32", no_argument, NULL, OPT_FLETCHER32},
        {"filter", required_argument, NULL, 'F'},
        {"memory", required_argument, NULL, 'm'},
        {"min-chunk", required_argument, NULL, 'M'},
        {"verify", no_argument, NULL, OPT_VERIFY},
        {"no-sync", no_argument, NULL, OPT_NOSYNC},
        {"quiet", no_argument, NULL, 'q'},
        {"fix-unlimited", no_argument, NULL, 'u'},
        {"cache", required_argument, NULL, 'h'},
        {"help", no_argument, NULL, OPT_HELP},
        {"version", no_argument, NULL, OPT_VERSION},
        {NULL, 0, NULL, 0},
    };
    int c;
    unsigned long v;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":k:c:d:sum:M:qh:e:F:34567", longopts, NULL)) != -1) {
        switch (c) {
        case 'k':
            o->kind = parse_kind(optarg);
            if (o->kind == 0) {
                copy_msg("unknown output kind '%s' (see -h)", optarg);
                return -1;
            }
            break;
        case '3': o->kind = NCS_FORMAT_CLASSIC; break;
        case '6': o->kind = NCS_FORMAT_64BIT_OFFSET; break;
        case '5': o->kind = NCS_FORMAT_64BIT_DATA; break;
        case '7': o->kind = NCS_FORMAT_NETCDF4_CLASSIC; break;
        case '4': o->kind = NCS_FORMAT_NETCDF4; break;
        case 'c':
            if (has_unescaped(optarg, ':') ? add_varspec(o, optarg)
                                           : add_dimspecs(o, optarg))
                return -1;
            break;
        case 'd':
            if (parse_uint(optarg, 9, &v) != 0) {
                copy_msg("deflate level '%s' is not 0-9", optarg);
                return -1;
            }
            o->deflate = (int)v;
            break;
        case 's': o->shuffle = 1; break;
        case OPT_ZSTD:
            if (parse_uint(optarg, 22, &v) != 0) {
                copy_msg("zstd level '%s' is not 0-22", optarg);
                return -1;
            }
            o->zstd = (int)v;
            break;
        case OPT_FLETCHER32: o->fletcher32 = 1; break;
        case 'F':
            /* of nccopy's filter specifications, the one that is not a
             * particular HDF5 filter: none at all */
            if (strcmp(optarg, "none") != 0 && strcmp(optarg, "*,none") != 0) {
                copy_msg("-F '%s': only -F none is supported (for filters use "
                         "-d, -s, --zstd, --fletcher32)", optarg);
                return -1;
            }
            o->no_filters = 1;
            break;
        case 'm':
            if (parse_memory(optarg, &o->memory) != 0 || o->memory < MIN_MEMORY) {
                copy_msg("memory budget '%s' is not a size of at least 1M", optarg);
                return -1;
            }
            break;
        case 'M':
            if (parse_memory(optarg, &o->min_chunk) != 0) {
                copy_msg("minimum chunk size '%s' is not a size", optarg);
                return -1;
            }
            break;
        case OPT_VERIFY: o->verify = 1; break;
        case OPT_NOSYNC: o->sync = 0; break;
        case 'q': o->quiet = 1; break;
        case 'u': o->fix_unlimited = 1; break;
        case 'h':
            /* nccopy's -h is the chunk cache size: a script's
             * `-h 64M in out` must copy, not print the usage */
            if (parse_memory(optarg, &o->cache) != 0 || o->cache == 0) {
                copy_msg("chunk cache size '%s' is not a size", optarg);
                return -1;
            }
            break;
        case 'e':
            /* nccopy's number of chunk cache slots: ncslab's cache is
             * bounded in bytes only */
            if (parse_uint(optarg, ULONG_MAX, &v) != 0) {
                copy_msg("chunk cache slots '%s' is not a number", optarg);
                return -1;
            }
            break;
        case OPT_HELP: usage(stdout); exit(0);
        case OPT_VERSION:
            printf("%s %s (libncslab %s)\n", COPY_PROG, NCS_VERSION, ncs_inq_libvers());
            exit(0);
        case ':':
            if (optopt == 'h') {        /* -h alone: the usage */
                usage(stdout);
                exit(0);
            }
            copy_msg("option '%s' needs an argument", argv[optind - 1]);
            return -1;
        default:
            if (optopt != 0)
                copy_msg("unknown option '-%c'", optopt);
            else
                copy_msg("unknown option '%s'", argv[optind - 1]);
            return -1;
        }
    }
    if (argc - optind != 2) {
        copy_msg("want an input and an output file (see -h)");
        return -1;
    }
    if (o->deflate > 0 && o->zstd > 0) {
        copy_msg("choose either -d or --zstd, not both");
        return -1;
    }
    if (o->no_filters && (o->deflate > 0 || o->zstd > 0 || o->fletcher32)) {
        copy_msg("-F none says no filters: not with -d 1-9, --zstd or --fletcher32");
        return -1;
    }
    if (o->shuffle && o->deflate <= 0 && o->zstd <= 0 && !o->no_filters)
        copy_msg("note: -s shuffles only what -d 1-9 or --zstd compresses; "
                 "without them each variable keeps the input's shuffle (as in nccopy)");
    *optindp = optind;
    return 0;
}

int copy_output_kind(const copy_opts *o, int in_format)
{
    /* nccopy's rule: -c, -d 1-9 or -s make a classic input's copy
     * netCDF-4 (even -s alone, which changes nothing else) */
    int wants_nc4 = o->ndims > 0 || o->nvars > 0 || o->all_contiguous ||
                    o->deflate > 0 || o->shuffle || o->zstd > 0 || o->fletcher32;
    int kind = o->kind;
    /* as nccopy: the input's format, but netCDF-4 classic model for a
     * classic input that -c or a filter needs netCDF-4 for.  A netCDF-4
     * output without the classic model's mark (-k nc4, or such an input)
     * still holds only what the classic model can. */
    if (kind == 0)
        kind = wants_nc4 && in_format != NCS_FORMAT_NETCDF4 ? NCS_FORMAT_NETCDF4_CLASSIC
                                                            : in_format;
    if (kind != NCS_FORMAT_NETCDF4_CLASSIC && kind != NCS_FORMAT_NETCDF4 && wants_nc4) {
        copy_msg("chunking (-c) and filters (-d, -s, --zstd, --fletcher32) "
                 "need netCDF-4 output (-k nc7 or -k nc4)");
        return -1;
    }
    return kind;
}

static int sync_path(const char *path)
{
    int fd = open(path, O_RDONLY);
    int status = 0;
    if (fd < 0 || fsync(fd) != 0)
        status = errno;
    if (fd >= 0)
        close(fd);
    return status;
}

/* The directory holding `path`, so that the rename itself is durable. */
static void sync_dir_of(const char *path)
{
    char dir[PATH_MAX + 32];
    char *slash;
    snprintf(dir, sizeof dir, "%s", path);
    slash = strrchr(dir, '/');
    if (slash == NULL)
        snprintf(dir, sizeof dir, ".");
    else if (slash == dir)
        dir[1] = '\0';
    else
        *slash = '\0';
    (void)sync_path(dir);
}

static int is_nc4(int kind)
{
    return kind == NCS_FORMAT_NETCDF4_CLASSIC || kind == NCS_FORMAT_NETCDF4;
}

/* Creates the output under a temporary name next to `out`.  The name is
 * drawn and reserved by mkstemp, then the reserved (empty) file is removed
 * and the library creates the output afresh with NCS_NOCLOBBER, that is
 * O_EXCL: a name another program takes in between is never overwritten
 * (the create fails with NCS_EEXIST and another name is drawn).  Opening
 * the reserved file with O_TRUNC instead truncates it, and ext4
 * (auto_da_alloc, its heuristic for files rewritten after a truncation)
 * then starts the write-back of the whole file when it is closed: a 300 MB
 * CDF-1 to CDF-5 copy waited 0.12 s in that close(2), a third of its wall
 * time, where nccopy, whose output is new, does not (strace -T).  The
 * output gets the mode any new file gets, 0666 less the umask. */
static int create_out(const char *out, int kind, int *ncidp)
{
    int cmode = NCS_NOCLOBBER, status = NCS_EEXIST;
    switch (kind) {
    case NCS_FORMAT_64BIT_OFFSET: cmode |= NCS_64BIT_OFFSET; break;
    case NCS_FORMAT_64BIT_DATA: cmode |= NCS_64BIT_DATA; break;
    case NCS_FORMAT_NETCDF4_CLASSIC: cmode |= NCS_NETCDF4 | NCS_CLASSIC_MODEL; break;
    case NCS_FORMAT_NETCDF4: cmode |= NCS_NETCDF4; break;
    default: break;             /* CDF-1, the library's default */
    }
    if (strlen(out) + sizeof ".ncslab-copy.XXXXXX" > sizeof tmp_path) {
        copy_msg("%s: name too long", out);
        return -1;
    }
    for (int tries = 0; status == NCS_EEXIST && tries < 100; tries++) {
        int fd;
        snprintf(tmp_path, sizeof tmp_path, "%s.ncslab-copy.XXXXXX", out);
        tmp_live = 1;
        fd = mkstemp(tmp_path);
        if (fd < 0) {
            tmp_live = 0;
            copy_fail(errno, "cannot create a temporary file next to %s", out);
            return -1;
        }
        close(fd);
        unlink(tmp_path);
        status = ncs_create(tmp_path, cmode, ncidp);
        if (status == NCS_EEXIST)
            tmp_live = 0;       /* another program's file now */
    }
    if (status != NCS_NOERR) {
        copy_fail(status, "%s", out);
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    copy_opts o;
    copy_storage *st = NULL;
    int in = -1, out = -1, nvars, in_format, kind, status, first;
    int rc = 1, progress;
    const char *inpath, *outpath;
    size_t cache;

#ifdef M_MMAP_THRESHOLD
    /* The chunk cache allocates and frees a buffer per chunk.  Chunks of a
     * few MiB would each be a fresh mmap, faulted in and zeroed page by
     * page, then unmapped: half the system time of a 200 MB deflate to
     * classic copy (0.48 s of system time, 0.23 s with these settings, at
     * the same peak memory).  Keep such buffers in the heap instead. */
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 128 << 20);
#endif
    memset(&o, 0, sizeof o);
    o.deflate = -1;
    o.zstd = -1;
    o.memory = DEFAULT_MEMORY;
    o.min_chunk = MIN_CHUNK_BYTES;
    o.sync = 1;
    if (parse_args(argc, argv, &o, &first) != 0) {
        free_opts(&o);
        return 2;
    }
    inpath = argv[first];
    outpath = argv[first + 1];
    progress = !o.quiet && isatty(STDERR_FILENO);

    /* The budget: a quarter for the chunk cache (shared by both files),
     * half for the slab in flight, the rest for what the library and HDF5
     * hold besides. */
    cache = o.cache != 0 ? o.cache : o.memory / 4;
    if ((status = ncs_set_chunk_cache(cache)) != NCS_NOERR) {
        copy_fail(status, "chunk cache of %zu bytes", cache);
        goto done;
    }
    if ((status = ncs_open(inpath, NCS_NOWRITE, &in)) != NCS_NOERR) {
        copy_fail(status, "%s", inpath);
        in = -1;
        goto done;
    }
    if ((status = ncs_inq_format(in, &in_format)) != NCS_NOERR ||
        (status = ncs_inq_nvars(in, &nvars)) != NCS_NOERR) {
        copy_fail(status, "%s", inpath);
        goto done;
    }
    if ((kind = copy_output_kind(&o, in_format)) < 0) {
        rc = 2;
        goto done;
    }
    st = calloc((size_t)nvars + 1, sizeof *st);
    if (st == NULL) {
        copy_fail(NCS_ENOMEM, "%s", inpath);
        goto done;
    }

    catch_signal(SIGINT);
    catch_signal(SIGTERM);
    catch_signal(SIGHUP);
    if (create_out(outpath, kind, &out) != 0) {
        out = -1;
        goto done;
    }
    if (copy_define(in, out, kind, &o, st) != 0)
        goto done;
    if (copy_data(in, out, st, is_nc4(kind),
                  o.memory / 2, progress) != 0)
        goto done;
    status = ncs_close(out);
    out = -1;
    if (status != NCS_NOERR) {
        copy_fail(status, "%s", outpath);
        goto done;
    }
    if (o.verify) {
        int check;
        if ((status = ncs_open(tmp_path, NCS_NOWRITE, &check)) != NCS_NOERR) {
            copy_fail(status, "verify: reopening the output");
            goto done;
        }
        status = copy_verify(in, check, st, is_nc4(kind),
                             o.fix_unlimited, o.memory / 2, progress);
        ncs_close(check);
        if (status != 0)
            goto done;
    }
    if (o.sync && (status = sync_path(tmp_path)) != 0) {
        copy_fail(status, "syncing %s", outpath);
        goto done;
    }
    if (rename(tmp_path, outpath) != 0) {
        copy_fail(errno, "renaming the output to %s", outpath);
        goto done;
    }
    tmp_live = 0;
    if (o.sync)
        sync_dir_of(outpath);
    rc = 0;
done:
    if (out >= 0)
        ncs_abort(out);
    if (tmp_live) {
        unlink(tmp_path);
        tmp_live = 0;
    }
    if (in >= 0)
        ncs_close(in);
    free(st);
    free_opts(&o);
    return rc;
}
