/*
 * timeit.c -- main program of the timeit harness: options, the scratch
 * directory, and which scenarios run.
 *
 *   ncslab-timeit            the 1992 suite on every engine, side by side
 *   ncslab-timeit --layouts  the suite over a sweep of chunk shapes
 *   ncslab-timeit --scan     the GVRS row-major get1 scan
 *   ncslab-timeit --append   streaming record appends against write(2)
 *   ncslab-timeit --strided  strided and mapped gets against netCDF-C and
 *                            against a plain get of the covering block
 *   ncslab-timeit --cold     gets with the file's pages dropped from the
 *                            system's cache before each call
 *   ncslab-timeit --threads N  N threads reading disjoint bands of one file
 *                            against one thread
 *
 * The options are those of usage() and of the man page ncslab-timeit.1,
 * which tests/timeit/timeit_check.sh holds to the same list; doc/timeit.md
 * says how to read the output.  Exit
 * status: 0 when every check passed, 1 on a wrong value or a failed call,
 * 2 on a usage error.
 */
#include "suite.h"

#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void usage(FILE *f)
{
    fputs(
"usage: ncslab-timeit [options]\n"
"The 1992 netCDF hyperslab timing suite, ncslab against netCDF-C, in one run.\n"
"\n"
"  --dims L0,L1,...     variable shape; L0 is the record count (default 10,20,30,40)\n"
"  --types T,...        byte,char,short,long,float,double (default: all six)\n"
"  --min-time S         seconds each engine spends on each test (default 0.1;\n"
"                       --min-time 1 is the 1992 method)\n"
"  --format 1|2|5       classic format of the contiguous engines (default 1: CDF-1)\n"
"  --chunks C,...       chunk shapes, e.g. 1x20x30x40,10x10x10x10; 'default' is\n"
"                       netCDF-C's choice (default: default,<each dim at most 10>)\n"
"  --engines E,...      ncslab, ncslab-chunked, netcdf, netcdf4, memory, native\n"
"                       (ncslab without its v2 layer), ncslab-v3 and netcdf-v3\n"
"                       (each through its v3 calls), the peers pnetcdf, netcdf2,\n"
"                       netcdf2-4 when built, all (default: the first five)\n"
"  --table-type T       the type of the side-by-side table and chart (default float)\n"
"  --csv FILE           one row per engine x layout x type x op x shape\n"
"  --svg FILE           chart of the table type: log time per shape, a bar per engine\n"
"  --layouts[=C,...]    sweep chunk shapes (default sweep: every shape with some\n"
"                       dimensions whole and the others 1, plus the default ones);\n"
"                       types default to float\n"
"  --quiet              only the tables, not the 1992 lines per engine\n"
"  --scan               GVRS row-major test: every cell of a short grid by get1\n"
"  --scan-size RxC      grid size (default 10800x21600)\n"
"  --scan-chunks RxC    chunk shape of the chunked scan engines (default 120x180)\n"
"  --scan-budget S      stop an engine's scan after S seconds, at a row end\n"
"                       (default 120; 0: no limit); such rows are reported\n"
"  --scan-cache MIB     ncslab's chunk cache budget for the scan (default: the\n"
"                       library's default)\n"
"  --append             streaming record appends, in blocks of N records\n"
"  --append-records R   records appended per run (default 200)\n"
"  --append-blocks N,.. block sizes to sweep (default 1,10,100)\n"
"  --append-repeat K    runs per engine and block size, interleaved; the median\n"
"                       is reported (default 3)\n"
"  --strided            ncvargets with stride 2 in every dimension and ncvargetg\n"
"                       transposing the last two dimensions, on the classic file,\n"
"                       against netCDF-C and against ncvarget of the covering block\n"
"  --cold               cold gets: each get shape of the suite and a point time\n"
"                       series, the file's cached pages dropped before every\n"
"                       call; time and bytes read per call (types default to float)\n"
"  --cold-records N     records of the cold time series (default 1000)\n"
"  --threads N          N threads (2..64), each with its own handle, read disjoint\n"
"                       bands of one grid (classic, chunked, chunked deflate; get1\n"
"                       scan and chunk-row slabs) against one thread\n"
"  --threads-size RxC   grid of the threads test (default 2160x4320; chunk shape\n"
"                       from --scan-chunks)\n"
"  --suite              run the 4-D suite too with --scan, --append, --strided,\n"
"                       --cold or --threads\n"
"  --dir DIR            where the scratch directory is made (default $TMPDIR or /tmp)\n"
"  --keep               keep the scratch files\n"
"  --help               this text\n"
"  --version            the versions of libncslab and netCDF-C\n", f);
}

static int parse_longs(const char *arg, char sep, long *out, int max, long minval)
{
    int n = 0;
    const char *p = arg;
    while (*p) {
        char *end;
        long v;
        errno = 0;
        v = strtol(p, &end, 10);
        if (end == p || errno != 0 || v < minval || n == max || (*end && *end != sep))
            return -1;
        out[n++] = v;
        p = *end ? end + 1 : end;
    }
    return n;
}

/* One chunk shape "AxBxC" of rank n, or "default" (netCDF-C's choice). */
static int parse_chunks(const char *arg, const ti_options *o, size_t *chunks)
{
    long v[TI_MAX_DIMS];
    if (strcmp(arg, "default") == 0)
        return ti_netcdf_default_chunks(o->ndims, o->dims, 5 /* float */, chunks) == 0 ? 0 : -1;
    if (parse_longs(arg, 'x', v, TI_MAX_DIMS, 1) != o->ndims)
        return -1;
    for (int d = 0; d < o->ndims; d++) {
        if (d > 0 && v[d] > o->dims[d])
            return -1;
        chunks[d] = (size_t)v[d];
    }
    return 0;
}

static int parse_chunk_list(const char *arg, const ti_options *o, size_t (*shapes)[TI_MAX_DIMS],
                            int max)
{
    char *copy = strdup(arg), *save = NULL;
    int n = 0;
    for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (n == max || parse_chunks(tok, o, shapes[n]) != 0) {
            fprintf(stderr, "ncslab-timeit: bad chunk shape \"%s\" for rank %d\n", tok, o->ndims);
            free(copy);
            return -1;
        }
        n++;
    }
    free(copy);
    return n;
}

static int add_shape(size_t (*shapes)[TI_MAX_DIMS], int n, int max, int ndims, const size_t *c)
{
    for (int i = 0; i < n; i++)
        if (memcmp(shapes[i], c, sizeof(size_t) * (size_t)ndims) == 0)
            return n;
    if (n < max)
        memcpy(shapes[n++], c, sizeof(size_t) * TI_MAX_DIMS);
    return n;
}

/* The default sweep: each shape taking some dimensions whole (at least
 * one of the two fastest, so no chunk is a handful of values) and the
 * others 1, then the default shapes. */
static int default_sweep(const ti_options *o, size_t (*shapes)[TI_MAX_DIMS], int max)
{
    int n = 0, nd = o->ndims;
    for (unsigned m = 1; m < (1u << nd); m++) {
        size_t c[TI_MAX_DIMS] = { 0 };
        if (nd >= 2 && !(m & (3u << (nd - 2))))
            continue;
        for (int d = 0; d < nd; d++)
            c[d] = (m >> (nd - 1 - d)) & 1 ? (size_t)o->dims[d] : 1;
        n = add_shape(shapes, n, max, nd, c);
    }
    for (int i = 0; i < o->nchunkshapes; i++)
        n = add_shape(shapes, n, max, nd, o->chunkshapes[i]);
    return n;
}

static int parse_engines(const char *arg, unsigned *bits)
{
    static const struct { const char *name; unsigned bit; } names[] = {
        { "ncslab", TI_E_NCSLAB }, { "ncslab-chunked", TI_E_NCSCHUNK },
        { "netcdf", TI_E_NETCDF }, { "netcdf4", TI_E_NETCDF4 }, { "memory", TI_E_MEMORY },
        { "native", TI_E_NATIVE }, { "pnetcdf", TI_E_PNETCDF }, { "netcdf2", TI_E_NETCDF2 },
        { "netcdf2-4", TI_E_NETCDF24 }, { "ncslab-v3", TI_E_V3 },
        { "netcdf-v3", TI_E_NETCDFV3 }, { "all", TI_E_BUILT },
    };
    char *copy = strdup(arg), *save = NULL;
    *bits = 0;
    for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        size_t i;
        for (i = 0; i < sizeof names / sizeof names[0]; i++)
            if (strcmp(tok, names[i].name) == 0)
                break;
        if (i == sizeof names / sizeof names[0]) {
            fprintf(stderr, "ncslab-timeit: unknown engine \"%s\"\n", tok);
            free(copy);
            return -1;
        }
        if (!(names[i].bit & TI_E_BUILT)) {
            fprintf(stderr, "ncslab-timeit: engine \"%s\" is not built in (doc/timeit.md, "
                            "\"Peers\")\n", tok);
            free(copy);
            return -1;
        }
        *bits |= names[i].bit;
    }
    free(copy);
    return 0;
}

static int parse_types(const char *arg, ti_options *o)
{
    char *copy = strdup(arg), *save = NULL;
    o->ntypes = 0;
    for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        const ti_type *t = ti_type_by_name(tok);
        if (t == NULL || o->ntypes == TI_MAX_TYPES) {
            fprintf(stderr, "ncslab-timeit: unknown or repeated type \"%s\"\n", tok);
            free(copy);
            return -1;
        }
        o->types[o->ntypes++] = t;
    }
    free(copy);
    return o->ntypes > 0 ? 0 : -1;
}

static void remove_scratch(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    if (d == NULL)
        return;
    while ((de = readdir(d)) != NULL) {
        char path[4096 + 260];
        if (de->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        unlink(path);
    }
    closedir(d);
    rmdir(dir);
}

enum {
    O_DIMS = 256, O_TYPES, O_MINTIME, O_FORMAT, O_CHUNKS, O_ENGINES, O_TABLETYPE, O_CSV, O_SVG,
    O_LAYOUTS, O_QUIET, O_SCAN, O_SCANSIZE, O_SCANCHUNKS, O_SCANBUDGET, O_SCANCACHE, O_APPEND,
    O_APPENDRECS, O_APPENDBLOCKS, O_APPENDREPEAT, O_STRIDED, O_COLD, O_COLDRECS, O_THREADS,
    O_THREADSSIZE, O_SUITE, O_DIR, O_KEEP, O_HELP, O_VERSION
};

/* netCDF-C's version string, without the RCS-style " $" it ends in. */
static void netcdf_version(char *out, size_t outlen)
{
    size_t n;
    snprintf(out, outlen, "%s", ti_netcdf_version());
    n = strlen(out);
    if (n > 2 && strcmp(out + n - 2, " $") == 0)
        out[n - 2] = '\0';
}

/* ", PnetCDF 1.12.3, netCDF-C2 4.9.3": the peers of this build, "" without.
 * The second netCDF-C is loaded here, and only when engines name it: in a
 * run without it, its libraries would only swell what the scan's
 * children inherit. */
static void peers_version(char *out, size_t outlen, unsigned engines)
{
    (void)outlen, (void)engines; /* a build without peers writes only "" */
    out[0] = '\0';
#ifdef TI_HAVE_PNETCDF
    const char *pn = ti_pnetcdf_version();
    snprintf(out, outlen, ", PnetCDF %.*s", (int)strcspn(pn, " "), pn);
#endif
#ifdef TI_NETCDF2_LIB
    if (engines & (TI_E_NETCDF2 | TI_E_NETCDF24)) {
        const char *nc2;
        ti_netcdf2_start();
        nc2 = ti_netcdf2_version();
        snprintf(out + strlen(out), outlen - strlen(out), ", netCDF-C2 %.*s",
                 (int)strcspn(nc2, " $"), nc2);
    }
#endif
}

int main(int argc, char **argv)
{
    static const struct option longopts[] = {
        { "dims", 1, 0, O_DIMS }, { "types", 1, 0, O_TYPES }, { "min-time", 1, 0, O_MINTIME },
        { "format", 1, 0, O_FORMAT }, { "chunks", 1, 0, O_CHUNKS },
        { "engines", 1, 0, O_ENGINES }, { "table-type", 1, 0, O_TABLETYPE },
        { "csv", 1, 0, O_CSV }, { "svg", 1, 0, O_SVG }, { "layouts", 2, 0, O_LAYOUTS },
        { "quiet", 0, 0, O_QUIET }, { "scan", 0, 0, O_SCAN }, { "scan-size", 1, 0, O_SCANSIZE },
        { "scan-chunks", 1, 0, O_SCANCHUNKS }, { "scan-budget", 1, 0, O_SCANBUDGET },
        { "scan-cache", 1, 0, O_SCANCACHE },
        { "append", 0, 0, O_APPEND }, { "append-records", 1, 0, O_APPENDRECS },
        { "append-blocks", 1, 0, O_APPENDBLOCKS }, { "append-repeat", 1, 0, O_APPENDREPEAT },
        { "strided", 0, 0, O_STRIDED }, { "cold", 0, 0, O_COLD },
        { "cold-records", 1, 0, O_COLDRECS }, { "threads", 1, 0, O_THREADS },
        { "threads-size", 1, 0, O_THREADSSIZE }, { "suite", 0, 0, O_SUITE },
        { "dir", 1, 0, O_DIR }, { "keep", 0, 0, O_KEEP }, { "help", 0, 0, O_HELP },
        { "version", 0, 0, O_VERSION }, { 0, 0, 0, 0 },
    };
    static ti_options o;
    static ti_suite suite;
    const char *chunks_arg = NULL, *layouts_arg = NULL, *types_arg = NULL, *basedir;
    int keep = 0, want_suite = 0, opt, status = 0;
    char dir[4096];
    FILE *csv = NULL;
    double t0 = ti_now();

    o.ndims = 4;
    o.dims[0] = 10, o.dims[1] = 20, o.dims[2] = 30, o.dims[3] = 40;
    o.min_time = 0.1;
    o.format = 1;
    o.engines = TI_E_DEFAULT;
    o.scan_rows = 10800, o.scan_cols = 21600;
    o.scan_chunks[0] = 120, o.scan_chunks[1] = 180;
    o.scan_budget = 120;
    o.append_records = 200;
    o.nblocks = 3;
    o.blocks[0] = 1, o.blocks[1] = 10, o.blocks[2] = 100;
    o.append_repeat = 3;
    o.cold_records = 1000;
    o.threads_rows = 2160, o.threads_cols = 4320;
    basedir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";

    while ((opt = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        long v[2];
        char *end;
        switch (opt) {
        case O_DIMS:
            o.ndims = parse_longs(optarg, ',', o.dims, TI_MAX_DIMS, 1);
            if (o.ndims < 1)
                goto bad;
            break;
        case O_TYPES: types_arg = optarg; break;
        case O_MINTIME:
            o.min_time = strtod(optarg, &end);
            if (*end || !(o.min_time > 0))
                goto bad;
            break;
        case O_FORMAT:
            o.format = atoi(optarg + (strncmp(optarg, "cdf", 3) == 0 ? 3 : 0));
            if (o.format != 1 && o.format != 2 && o.format != 5)
                goto bad;
            break;
        case O_CHUNKS: chunks_arg = optarg; break;
        case O_ENGINES:
            if (parse_engines(optarg, &o.engines) != 0)
                goto bad;
            break;
        case O_TABLETYPE: o.table_type = optarg; break;
        case O_CSV: o.csv = optarg; break;
        case O_SVG: o.svg = optarg; break;
        case O_LAYOUTS: o.layouts = 1; layouts_arg = optarg; break;
        case O_QUIET: o.quiet = 1; break;
        case O_SCAN: o.scan = 1; break;
        case O_SCANSIZE:
        case O_SCANCHUNKS:
            if (parse_longs(optarg, 'x', v, 2, 1) != 2)
                goto bad;
            if (opt == O_SCANSIZE)
                o.scan_rows = v[0], o.scan_cols = v[1];
            else
                o.scan_chunks[0] = (size_t)v[0], o.scan_chunks[1] = (size_t)v[1];
            break;
        case O_SCANBUDGET:
            o.scan_budget = strtod(optarg, &end);
            if (*end || o.scan_budget < 0)
                goto bad;
            break;
        case O_SCANCACHE: {
            double mib = strtod(optarg, &end);
            if (*end || !(mib > 0))
                goto bad;
            o.scan_cache = (size_t)(mib * 1048576);
            break;
        }
        case O_APPEND: o.append = 1; break;
        case O_APPENDRECS:
            if (parse_longs(optarg, ',', &o.append_records, 1, 1) != 1)
                goto bad;
            break;
        case O_APPENDBLOCKS:
            o.nblocks = parse_longs(optarg, ',', o.blocks, 16, 1);
            if (o.nblocks < 1)
                goto bad;
            break;
        case O_APPENDREPEAT: {
            long k;
            if (parse_longs(optarg, ',', &k, 1, 1) != 1 || k > 99)
                goto bad;
            o.append_repeat = (int)k;
            break;
        }
        case O_STRIDED: o.strided = 1; break;
        case O_COLD: o.cold = 1; break;
        case O_COLDRECS:
            if (parse_longs(optarg, ',', &o.cold_records, 1, 1) != 1 || o.cold_records > 1000000)
                goto bad;
            break;
        case O_THREADS: {
            long k;
            if (parse_longs(optarg, ',', &k, 1, 2) != 1 || k > 64)
                goto bad;
            o.threads = (int)k;
            break;
        }
        case O_THREADSSIZE:
            if (parse_longs(optarg, 'x', v, 2, 1) != 2)
                goto bad;
            o.threads_rows = v[0], o.threads_cols = v[1];
            break;
        case O_SUITE: want_suite = 1; break;
        case O_DIR: basedir = optarg; break;
        case O_KEEP: keep = 1; break;
        case O_HELP: usage(stdout); return 0;
        case O_VERSION: {
            char nc[128], peers[384];
            netcdf_version(nc, sizeof nc);
            peers_version(peers, sizeof peers, TI_E_BUILT);
            printf("ncslab-timeit: libncslab %s, netCDF-C %s%s\n", ti_ncslab_version(), nc,
                   peers);
            return 0;
        }
        default: goto bad;
        }
        continue;
    bad:
        if (opt != '?')
            fprintf(stderr, "ncslab-timeit: bad value for an option: %s\n", argv[optind - 1]);
        usage(stderr);
        return 2;
    }
    if (optind < argc) {
        usage(stderr);
        return 2;
    }
    if (parse_types(types_arg ? types_arg : o.layouts || o.cold ? "float" : "byte,char,short,long,float,double",
                    &o) != 0)
        return 2;
    /* chunk shapes: netCDF-C's default and one with every dimension at
     * most 10, unless given */
    if (chunks_arg) {
        if ((o.nchunkshapes = parse_chunk_list(chunks_arg, &o, o.chunkshapes, 8)) < 1)
            return 2;
    } else {
        size_t c[TI_MAX_DIMS] = { 0 };
        if (ti_netcdf_default_chunks(o.ndims, o.dims, 5, c) == 0)
            o.nchunkshapes = add_shape(o.chunkshapes, o.nchunkshapes, 8, o.ndims, c);
        for (int d = 0; d < o.ndims; d++)
            c[d] = (size_t)(o.dims[d] < 10 ? o.dims[d] : 10);
        o.nchunkshapes = add_shape(o.chunkshapes, o.nchunkshapes, 8, o.ndims, c);
    }
    if (o.layouts) {
        o.nlayouts = layouts_arg ? parse_chunk_list(layouts_arg, &o, o.layoutshapes, 32)
                                 : default_sweep(&o, o.layoutshapes, 32);
        if (o.nlayouts < 1)
            return 2;
    }
    o.suite = want_suite || !(o.scan || o.append || o.strided || o.cold || o.threads);

    snprintf(dir, sizeof dir, "%s/timeit.XXXXXX", basedir);
    if (mkdtemp(dir) == NULL) {
        fprintf(stderr, "ncslab-timeit: cannot make a scratch directory in %s: %s\n", basedir,
                strerror(errno));
        return 1;
    }
    o.dir = dir;
    if (o.csv) {
        csv = fopen(o.csv, "w");
        if (csv == NULL)
            ti_die("cannot write %s: %s", o.csv, strerror(errno));
        fprintf(csv, "engine,layout,type,op,shape,usec_per_call,calls_per_sec,bytes_per_call,"
                     "ratio_to_netcdf_classic,file_size_bytes,peak_rss_bytes\n");
    }

    /* the peers load their libraries now, before anything is timed or
     * forked (peers_version loads the second netCDF-C) */
#ifdef TI_HAVE_PNETCDF
    if (o.engines & TI_E_PNETCDF)
        ti_pnetcdf_start();
#endif
    {
        char nc[128], peers[384];
        netcdf_version(nc, sizeof nc);
        peers_version(peers, sizeof peers, o.engines);
        printf("timeit: ncslab %s against netCDF-C %s%s\n", ti_ncslab_version(), nc, peers);
    }
    if (o.suite) {
        char shape[64];
        ti_shape_str(o.ndims, o.dims, shape, sizeof shape);
        printf("suite: variables %s (first dimension unlimited), %d types, min-time %g s "
               "per test and engine, scratch %s\n", shape, o.ntypes, o.min_time, dir);
        ti_suite_engines(&suite, &o);
        ti_suite_run(&suite);
        if (o.layouts)
            ti_report_layouts(&suite, stdout);
        else
            ti_report_table(&suite, stdout);
        if (csv)
            ti_report_csv(&suite, csv);
        if (o.svg && ti_report_svg(&suite, o.svg) != 0)
            ti_die("cannot write %s: %s", o.svg, strerror(errno));
        printf("\nsuite: %d engines x %d types x %d tests, checked, in %.1f s\n", suite.nengines,
               o.ntypes, suite.ntests, suite.seconds);
    }
    if (o.scan)
        status |= ti_run_scan(&o, csv);
    if (o.append)
        status |= ti_run_append(&o, csv);
    if (o.strided)
        status |= ti_run_strided(&o, csv);
    if (o.cold)
        status |= ti_run_cold(&o, csv);
    if (o.threads)
        status |= ti_run_threads(&o, csv);
    if (csv && fclose(csv) != 0)
        ti_die("cannot write %s: %s", o.csv, strerror(errno));
    if (!keep)
        remove_scratch(dir);
    printf("timeit: done in %.1f s%s\n", ti_now() - t0, status ? ", with errors" : "");
    return status ? 1 : 0;
}
