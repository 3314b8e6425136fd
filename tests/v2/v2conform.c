/*
 * v2conform.c -- conformance suite for netCDF's version-2 API.
 *
 * In the spirit of netCDF's nctest: every v2 call with valid and invalid
 * arguments (bad ids, wrong mode, bad names, out-of-range coordinates, bad
 * types, define-mode errors), checking the return value, ncerr, the exact
 * stderr message under NC_VERBOSE and, in a child process, the exit status
 * under NC_FATAL.  The expectations are netCDF-C's behaviour, quirks
 * included (doc/v2.md lists them).
 *
 * The same source is built twice (tests/v2/v2.am): against ncslab's
 * <netcdf.h> and libncslab_v2 (v2conform_ncslab), and against netCDF-C's
 * <netcdf.h> and libnetcdf (v2conform_netcdf).  tests/v2/v2conform_check.sh
 * runs both for each format and requires the same output, line for line,
 * and cmp-identical files.  The output is therefore deterministic: no
 * pointers, no directory names (the program works inside the directory it
 * is given, with relative file names), and ncids shown only as "ncid" when
 * a call returns one.  The numbers inside the library's own error messages
 * ("ncid 65536") are printed as they are: both libraries number files
 * slot << 16, lowest free slot first, and a legacy program sees them.
 *
 * Usage: v2conform DIR FORMAT     (FORMAT is 1, 2 or 5: CDF-1, CDF-2, CDF-5)
 * Writes its files into DIR.  Prints one line per check, then
 * "N passed, N failed"; exits 1 if any check failed.
 *
 * Data values encode their coordinates (value = 20*var + 5*i + j + 1 and
 * similar), so a misplaced element shows where it came from.
 */
#include <netcdf.h>

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- the harness ----------------------------------------------------------- */

static int npass, nfail;
static int fmt;          /* 1, 2 or 5 */
static int fmtflag;      /* the nccreate flag selecting that format */
static const char *section = "";

/* stderr of the call under test goes to a temporary file, read back here */
static FILE *cap_file;
static int saved_stderr = -1;
static char cap_text[4096];

static void cap_begin(void)
{
    fflush(stderr);
    cap_file = tmpfile();
    if (cap_file == NULL) {
        perror("tmpfile");
        exit(2);
    }
    saved_stderr = dup(2);
    dup2(fileno(cap_file), 2);
}

static void cap_end(void)
{
    size_t n;
    fflush(stderr);
    dup2(saved_stderr, 2);
    close(saved_stderr);
    rewind(cap_file);
    n = fread(cap_text, 1, sizeof cap_text - 1, cap_file);
    cap_text[n] = '\0';
    fclose(cap_file);
}

/* Prints s with newlines and other control characters escaped. */
static void print_escaped(const char *s)
{
    for (; *s != '\0'; s++) {
        if (*s == '\n')
            fputs("\\n", stdout);
        else if ((unsigned char)*s < ' ')
            printf("\\x%02x", (unsigned char)*s);
        else
            putchar(*s);
    }
}

static void result(int ok, const char *what)
{
    if (ok)
        npass++;
    else
        nfail++;
    printf("%s [%s] %s", ok ? "ok  " : "FAIL", section, what);
}

/* netCDF-C's message for each status the suite provokes.  Kept here, not
 * taken from nc_strerror, so the texts themselves are checked. */
static const char *message_of(int status)
{
    switch (status) {
    case NC_NOERR: return "No error";
    case NC_EBADID: return "NetCDF: Not a valid ID";
    case NC_EEXIST: return "NetCDF: File exists && NC_NOCLOBBER";
    case NC_EINVAL: return "NetCDF: Invalid argument";
    case NC_EPERM: return "NetCDF: Write to read only";
    case NC_ENOTINDEFINE: return "NetCDF: Operation not allowed in data mode";
    case NC_EINDEFINE: return "NetCDF: Operation not allowed in define mode";
    case NC_EINVALCOORDS: return "NetCDF: Index exceeds dimension bound";
    case NC_ENAMEINUSE: return "NetCDF: String match to name in use";
    case NC_ENOTATT: return "NetCDF: Attribute not found";
    case NC_EBADTYPE: return "NetCDF: Not a valid data type or _FillValue type mismatch";
    case NC_EBADDIM: return "NetCDF: Invalid dimension ID or name";
    case NC_EUNLIMPOS: return "NetCDF: NC_UNLIMITED in the wrong index";
    case NC_ENOTVAR: return "NetCDF: Variable not found";
    case NC_EGLOBAL: return "NetCDF: Action prohibited on NC_GLOBAL varid";
    case NC_ENOTNC: return "NetCDF: Unknown file format";
    case NC_EMAXNAME: return "NetCDF: NC_MAX_NAME exceeded";
    case NC_EUNLIMIT: return "NetCDF: NC_UNLIMITED size already in use";
    case NC_ECHAR: return "NetCDF: Attempt to convert between text & numbers";
    case NC_EEDGE: return "NetCDF: Start+count exceeds dimension bound";
    case NC_ESTRIDE: return "NetCDF: Illegal stride";
    case NC_EBADNAME: return "NetCDF: Name contains illegal characters";
    case NC_EDIMSIZE: return "NetCDF: Invalid dimension size";
    case NC_EMAXDIMS: return "NetCDF: NC_MAX_DIMS exceeded";
    case NC_ENOTBUILT:
        return "NetCDF: Attempt to use feature that was not turned on when netCDF was built.";
    default: return NULL;
    }
}

/*
 * Checks one v2 call: its return value, ncerr (set to 0 before the call, so
 * 0 means "left alone") and what it printed.  want_status 0 means success:
 * ncerr untouched and nothing printed.  Otherwise ncerr must be the v2 code
 * (NC_SYSERR for a positive errno) and the output must be
 * "<details>: <message>\n", details formatted from fmt.
 */
static void verify(const char *what, int got, int want, int is_ncid, int want_status,
                   const char *fmt_, ...)
{
    char want_msg[1024] = "";
    int want_ncerr = want_status > 0 ? NC_SYSERR : want_status;
    int ok;
    if (fmt_ != NULL) {
        va_list ap;
        size_t n;
        const char *text = want_status > 0 ? strerror(want_status) : message_of(want_status);
        va_start(ap, fmt_);
        vsnprintf(want_msg, sizeof want_msg, fmt_, ap);
        va_end(ap);
        n = strlen(want_msg);
        snprintf(want_msg + n, sizeof want_msg - n, ": %s\n", text ? text : "?");
    }
    ok = got == want && ncerr == want_ncerr && strcmp(cap_text, want_msg) == 0;
    result(ok, what);
    if (is_ncid && got == want)
        printf(": ret=ncid");
    else
        printf(": ret=%d", got);
    printf(" ncerr=%d", ncerr);
    if (cap_text[0] != '\0') {
        printf(" msg=");
        print_escaped(cap_text);
    }
    putchar('\n');
    if (!ok) {
        printf("     want ret=%d ncerr=%d msg=", want, want_ncerr);
        print_escaped(want_msg);
        putchar('\n');
    }
}

/* A call expected to succeed with return value want. */
#define OK(expr, want) do { int r_; ncerr = 0; cap_begin(); r_ = (expr); cap_end(); \
        verify(#expr, r_, (want), 0, 0, NULL); } while (0)
/* A call expected to succeed and return the ncid want. */
#define OKID(expr, want) do { int r_; ncerr = 0; cap_begin(); r_ = (expr); cap_end(); \
        verify(#expr, r_, (want), 1, 0, NULL); } while (0)
/* A call expected to fail: -1, ncerr from status, "details: message". */
#define ERR(expr, status, ...) do { int r_; ncerr = 0; cap_begin(); r_ = (expr); cap_end(); \
        verify(#expr, r_, -1, 0, (status), __VA_ARGS__); } while (0)
/* A call that hands back a raw status without reporting it. */
#define RAW(expr, want) do { int r_; ncerr = 0; cap_begin(); r_ = (expr); cap_end(); \
        verify(#expr, r_, (want), 0, 0, NULL); } while (0)
/* Runs a call for its side effect, which must succeed silently. */
#define DO(expr) OK(expr, 0)

static void check_true(const char *what, int cond)
{
    result(cond, what);
    putchar('\n');
}
#define CHECK(cond) check_true(#cond, (cond))

static void check_long(const char *what, long got, long want)
{
    result(got == want, what);
    printf(" = %ld", got);
    if (got != want)
        printf(" (want %ld)", want);
    putchar('\n');
}
#define CHECKL(expr, want) check_long(#expr, (long)(expr), (long)(want))

static void check_str(const char *what, const char *got, const char *want)
{
    result(strcmp(got, want) == 0, what);
    printf(" = \"");
    print_escaped(got);
    printf("\"");
    if (strcmp(got, want) != 0) {
        printf(" (want \"");
        print_escaped(want);
        printf("\")");
    }
    putchar('\n');
}
#define CHECKS(expr, want) check_str(#expr, (expr), (want))

/* ---- typed buffers ------------------------------------------------------------ */

/* Element k of a buffer of netCDF type t, as a double. */
static double get_elem(nc_type t, const void *buf, size_t k)
{
    switch (t) {
    case NC_BYTE: return ((const signed char *)buf)[k];
    case NC_CHAR: return ((const char *)buf)[k];
    case NC_SHORT: return ((const short *)buf)[k];
    case NC_INT: return ((const int *)buf)[k];
    case NC_FLOAT: return ((const float *)buf)[k];
    case NC_DOUBLE: return ((const double *)buf)[k];
    default: return -999;
    }
}

static void set_elem(nc_type t, void *buf, size_t k, double v)
{
    switch (t) {
    case NC_BYTE: ((signed char *)buf)[k] = (signed char)v; break;
    case NC_CHAR: ((char *)buf)[k] = (char)v; break;
    case NC_SHORT: ((short *)buf)[k] = (short)v; break;
    case NC_INT: ((int *)buf)[k] = (int)v; break;
    case NC_FLOAT: ((float *)buf)[k] = (float)v; break;
    case NC_DOUBLE: ((double *)buf)[k] = v; break;
    default: break;
    }
}

/* Compares n elements of buf with want[]; prints the first mismatch. */
static void check_buf(const char *what, nc_type t, const void *buf, const double *want,
                      size_t n)
{
    size_t k;
    for (k = 0; k < n; k++)
        if (get_elem(t, buf, k) != want[k])
            break;
    result(k == n, what);
    if (k < n)
        printf(": element %zu is %g, want %g", k, get_elem(t, buf, k), want[k]);
    putchar('\n');
}

/* ---- the fixture file ----------------------------------------------------------- */

/* The value of element (i, j) of the 2-D variable number v. */
static double val(int v, int i, int j)
{
    return 20 * v + 5 * i + j + 1;
}

enum { NLAT = 3, NLON = 4, NSTR = 5 };
static const nc_type fixed_types[] = { NC_BYTE, NC_SHORT, NC_LONG, NC_FLOAT, NC_DOUBLE };
static const char *const fixed_names[] = { "b", "s", "l", "f", "d" };

/* ---- sections ---------------------------------------------------------------- */

/* ncopts, and exit(ncopts) under NC_FATAL, in a child process; no file is
 * open, so the child's exit cannot touch one. */
static int fatal_call;

static void fatal_case(int opts, int want_status, int want_exit, const char *want_msg)
{
    pid_t pid;
    int wstatus = 0;
    char what[128];
    int ok;
    fflush(stdout);
    cap_begin();
    pid = fork();
    if (pid == 0) {
        ncopts = opts;
        if (fatal_call == 0)
            ncredef(-1);
        else
            ncopen("no_such_dir/x.nc", NC_NOWRITE);
        _exit(99); /* returned: not fatal */
    }
    waitpid(pid, &wstatus, 0);
    cap_end();
    (void)want_status;
    snprintf(what, sizeof what, "%s with ncopts %d in a child",
             fatal_call == 0 ? "ncredef(-1)" : "ncopen(\"no_such_dir/x.nc\", NC_NOWRITE)", opts);
    ok = WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == want_exit &&
         strcmp(cap_text, want_msg) == 0;
    result(ok, what);
    printf(": exit=%d msg=", WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1);
    print_escaped(cap_text);
    putchar('\n');
}

static void test_errors_and_options(int initial_ncopts)
{
    char msg[256];
    section = "ncopts";
    check_long("initial ncopts", initial_ncopts, NC_FATAL | NC_VERBOSE);

    fatal_call = 0;
    snprintf(msg, sizeof msg, "ncredef: ncid -1: %s\n", message_of(NC_EBADID));
    fatal_case(NC_FATAL | NC_VERBOSE, NC_EBADID, NC_FATAL | NC_VERBOSE, msg);
    fatal_case(NC_FATAL, NC_EBADID, NC_FATAL, "");
    /* exit status is ncopts itself, other bits included */
    fatal_case(NC_FATAL | NC_VERBOSE | 8, NC_EBADID, 11, msg);
    fatal_case(NC_VERBOSE, NC_EBADID, 99, msg);
    fatal_case(0, NC_EBADID, 99, "");
    fatal_call = 1;
    snprintf(msg, sizeof msg, "ncopen: filename \"no_such_dir/x.nc\": %s\n", strerror(ENOENT));
    fatal_case(NC_FATAL | NC_VERBOSE, ENOENT, NC_FATAL | NC_VERBOSE, msg);

    /* in-process: no message without NC_VERBOSE, ncerr still set */
    ncopts = 0;
    ncerr = 0;
    cap_begin();
    {
        int r = ncclose(-1);
        cap_end();
        result(r == -1 && ncerr == NC_EBADID && cap_text[0] == '\0', "ncclose(-1) with ncopts 0");
        printf(": ret=%d ncerr=%d msg=", r, ncerr);
        print_escaped(cap_text);
        putchar('\n');
    }
    ncopts = NC_VERBOSE;
    ERR(ncclose(-1), NC_EBADID, "ncclose: ncid -1");
    /* a successful call leaves ncerr alone */
    ncerr = 0;
    cap_begin();
    ncclose(-1);
    cap_end();
    {
        int r = nctypelen(NC_SHORT);
        check_long("ncerr after ncclose(-1), then nctypelen(NC_SHORT) succeeds", ncerr, NC_EBADID);
        check_long("nctypelen(NC_SHORT)", r, 2);
    }
}

static void test_library(void)
{
    section = "library";
    CHECK(nc_inq_libvers() != NULL && nc_inq_libvers()[0] != '\0');
    CHECKS(nc_strerror(NC_NOERR), "No error");
    CHECKS(nc_strerror(NC_EBADID), "NetCDF: Not a valid ID");
    CHECKS(nc_strerror(NC_EINVAL), "NetCDF: Invalid argument");
    CHECKS(nc_strerror(NC_ENOTINDEFINE), "NetCDF: Operation not allowed in data mode");
    CHECKS(nc_strerror(NC_EINDEFINE), "NetCDF: Operation not allowed in define mode");
    CHECKS(nc_strerror(NC_EEDGE), "NetCDF: Start+count exceeds dimension bound");
    CHECKS(nc_strerror(NC_EVARSIZE), "NetCDF: One or more variable sizes violate format constraints");
    CHECKS(nc_strerror(NC_ENOTNC), "NetCDF: Unknown file format");
    CHECKS(nc_strerror(ENOENT), strerror(ENOENT));
    CHECKS(nc_strerror(NC2_ERR), "Unknown Error");
    CHECKS(nc_strerror(NC_SYSERR), "Unknown Error");
    CHECKS(nc_strerror(-1000), "Unknown Error");

    CHECKL(sizeof(nclong), 4);
    CHECKL(NC_LONG, NC_INT);
    CHECKL(nctypelen(NC_BYTE), 1);
    CHECKL(nctypelen(NC_CHAR), 1);
    CHECKL(nctypelen(NC_SHORT), 2);
    CHECKL(nctypelen(NC_LONG), 4);
    CHECKL(nctypelen(NC_FLOAT), 4);
    CHECKL(nctypelen(NC_DOUBLE), 8);
    CHECKL(nctypelen(NC_UBYTE), 1);
    CHECKL(nctypelen(NC_USHORT), 2);
    CHECKL(nctypelen(NC_UINT), 4);
    CHECKL(nctypelen(NC_INT64), 8);
    CHECKL(nctypelen(NC_UINT64), 8);
    /* bad types: -1, and nothing reported */
    OK(nctypelen(NC_NAT), -1);
    OK(nctypelen(-1), -1);
    OK(nctypelen(99), -1);
    /* 12 is NC_STRING: netCDF-C (built with netCDF-4) gives sizeof(char *) */
    OK(nctypelen(12), (int)sizeof(char *));

    {
        int old = -7;
        /* the old format is stored even when the new one is refused */
        RAW(nc_set_default_format(99, &old), NC_EINVAL);
        CHECKL(old, NC_FORMAT_CLASSIC);
        RAW(nc_set_default_format(NC_FORMAT_CLASSIC, &old), NC_NOERR);
        CHECKL(old, NC_FORMAT_CLASSIC);
        RAW(nc_set_default_format(NC_FORMAT_64BIT_OFFSET, NULL), NC_NOERR);
        RAW(nc_set_default_format(NC_FORMAT_CLASSIC, &old), NC_NOERR);
        CHECKL(old, NC_FORMAT_64BIT_OFFSET);
    }
}

/* The format byte of a classic file's magic number. */
static int file_version(const char *path)
{
    unsigned char magic[4] = { 0 };
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return -1;
    if (fread(magic, 1, 4, f) != 4)
        magic[3] = 0;
    fclose(f);
    return magic[3];
}

static int exists(const char *path)
{
    return access(path, F_OK) == 0;
}

static void test_files(void)
{
    int ncid, ncid2, old = 0;
    int want_format = fmt == 1 ? NC_FORMAT_CLASSIC : fmt == 2 ? NC_FORMAT_64BIT_OFFSET
                                                              : NC_FORMAT_64BIT_DATA;
    FILE *junk;

    section = "files";
    /* the default format applies when nccreate is given no format flag */
    RAW(nc_set_default_format(want_format, &old), NC_NOERR);
    CHECKL(old, NC_FORMAT_CLASSIC);
    ncid = nccreate("deffmt.nc", NC_CLOBBER);
    CHECK(ncid >= 0);
    OK(ncdimdef(ncid, "d", 2), 0);
    OK(ncendef(ncid), 0);
    OK(ncclose(ncid), 0);
    RAW(nc_set_default_format(NC_FORMAT_CLASSIC, &old), NC_NOERR);
    CHECKL(old, want_format);
    CHECKL(file_version("deffmt.nc"), fmt);

    /* create and open failures */
    ERR(nccreate("deffmt.nc", NC_NOCLOBBER | fmtflag), NC_EEXIST,
        "nccreate: filename \"deffmt.nc\"");
    ERR(nccreate("no_such_dir/x.nc", NC_CLOBBER | fmtflag), ENOENT,
        "nccreate: filename \"no_such_dir/x.nc\"");
    ERR(nccreate("bad.nc", NC_64BIT_OFFSET | NC_64BIT_DATA), NC_EINVAL,
        "nccreate: filename \"bad.nc\"");
    CHECK(!exists("bad.nc"));
    ERR(ncopen("no_such.nc", NC_NOWRITE), ENOENT, "ncopen: filename \"no_such.nc\"");
    junk = fopen("junk.txt", "w");
    fputs("this is not a netCDF file, but it is long enough to be read as one\n", junk);
    fclose(junk);
    ERR(ncopen("junk.txt", NC_NOWRITE), NC_ENOTNC, "ncopen: filename \"junk.txt\"");

    /* define mode, data mode, abort */
    ncid = nccreate("modes.nc", NC_CLOBBER | fmtflag);
    CHECK(ncid >= 0);
    OKID(ncinquire(ncid, NULL, NULL, NULL, NULL), ncid);
    ERR(ncredef(ncid), NC_EINDEFINE, "ncredef: ncid %d", ncid);
    ERR(ncsync(ncid), NC_EINDEFINE, "ncsync: ncid %d", ncid);
    OK(ncsetfill(ncid, NC_NOFILL), NC_FILL);
    OK(ncsetfill(ncid, NC_FILL), NC_NOFILL);
    ERR(ncsetfill(ncid, 7), NC_EINVAL, "ncsetfill: ncid %d", ncid);
    OK(ncdimdef(ncid, "n", 2), 0);
    OK(ncendef(ncid), 0);
    ERR(ncendef(ncid), NC_ENOTINDEFINE, "ncendef: ncid %d", ncid);
    OK(ncsync(ncid), 0);
    /* in data mode too */
    OK(ncsetfill(ncid, NC_NOFILL), NC_FILL);
    OK(ncsetfill(ncid, NC_FILL), NC_NOFILL);
    OK(ncredef(ncid), 0);
    OK(ncdimdef(ncid, "m", 3), 1);
    /* abort in redefine: the file stays as it was */
    OK(ncabort(ncid), 0);
    ERR(ncclose(ncid), NC_EBADID, "ncclose: ncid %d", ncid);
    ERR(ncabort(ncid), NC_EBADID, "ncabort: ncid %d", ncid);
    ncid = ncopen("modes.nc", NC_WRITE);
    CHECK(ncid >= 0);
    {
        int nd = -1, nv = -1, na = -1, rd = -2;
        OKID(ncinquire(ncid, &nd, &nv, &na, &rd), ncid);
        CHECKL(nd, 1);
        CHECKL(nv, 0);
        CHECKL(na, 0);
        CHECKL(rd, -1);
    }
    /* abort in data mode just closes */
    OK(ncabort(ncid), 0);
    CHECK(exists("modes.nc"));

    /* abort of a new file removes it */
    ncid = nccreate("abort.nc", NC_CLOBBER | fmtflag);
    CHECK(ncid >= 0);
    OK(ncdimdef(ncid, "n", 2), 0);
    OK(ncabort(ncid), 0);
    CHECK(!exists("abort.nc"));

    /* read-only files refuse every change */
    ncid = ncopen("modes.nc", NC_NOWRITE);
    CHECK(ncid >= 0);
    ERR(ncredef(ncid), NC_EPERM, "ncredef: ncid %d", ncid);
    ERR(ncsetfill(ncid, NC_NOFILL), NC_EPERM, "ncsetfill: ncid %d", ncid);
    ERR(ncdimrename(ncid, 0, "k"), NC_EPERM, "ncdimrename: ncid %d", ncid);
    ERR(ncattput(ncid, NC_GLOBAL, "a", NC_CHAR, 1, "x"), NC_EPERM, "ncattput: ncid %d", ncid);
    OK(ncsync(ncid), 0);
    /* two opens of one file get different ids */
    ncid2 = ncopen("modes.nc", NC_NOWRITE);
    CHECK(ncid2 >= 0 && ncid2 != ncid);
    OK(ncclose(ncid2), 0);
    OK(ncclose(ncid), 0);

    /* every file call on ids that are not open */
    ERR(ncredef(-1), NC_EBADID, "ncredef: ncid -1");
    ERR(ncendef(-1), NC_EBADID, "ncendef: ncid -1");
    ERR(ncsync(-1), NC_EBADID, "ncsync: ncid -1");
    ERR(ncabort(-1), NC_EBADID, "ncabort: ncid -1");
    ERR(ncclose(ncid), NC_EBADID, "ncclose: ncid %d", ncid);
    ERR(ncsetfill(ncid, NC_FILL), NC_EBADID, "ncsetfill: ncid %d", ncid);
    ERR(ncinquire(ncid, NULL, NULL, NULL, NULL), NC_EBADID, "ncinquire: ncid %d", ncid);
    ERR(ncinquire(12345, NULL, NULL, NULL, NULL), NC_EBADID, "ncinquire: ncid 12345");
}

/* Defines the fixture: dims time (unlimited), lat, lon, str; variables
 * b s l f d [lat, lon], c [lat, str], sc (scalar), and the record
 * variables rl [time, lon], rd [time], rs [time, lat, lon], rc [time, str]. */
static void test_define(int ncid)
{
    int dims[3];
    int lat, lon, str, tim;
    char longname[NC_MAX_NAME + 8];

    section = "dims";
    OK(tim = ncdimdef(ncid, "time", NC_UNLIMITED), 0);
    OK(lat = ncdimdef(ncid, "lat", NLAT), 1);
    OK(lon = ncdimdef(ncid, "lon", NLON), 2);
    OK(str = ncdimdef(ncid, "str", NSTR), 3);
    ERR(ncdimdef(ncid, "time2", NC_UNLIMITED), NC_EUNLIMIT, "ncdimdef: ncid %d", ncid);
    ERR(ncdimdef(ncid, "lat", 7), NC_ENAMEINUSE, "ncdimdef: ncid %d", ncid);
    ERR(ncdimdef(ncid, "bad/name", 7), NC_EBADNAME, "ncdimdef: ncid %d", ncid);
    ERR(ncdimdef(ncid, "", 7), NC_EBADNAME, "ncdimdef: ncid %d", ncid);
    ERR(ncdimdef(ncid, "trailing ", 7), NC_EBADNAME, "ncdimdef: ncid %d", ncid);
    memset(longname, 'x', NC_MAX_NAME + 1);
    longname[NC_MAX_NAME + 1] = '\0';
    ERR(ncdimdef(ncid, longname, 7), NC_EMAXNAME, "ncdimdef: ncid %d", ncid);
    ERR(ncdimdef(ncid, "neg", -1), NC_EDIMSIZE, "ncdimdef: ncid %d", ncid);
    ERR(ncdimdef(-1, "x", 1), NC_EBADID, "ncdimdef: ncid -1");
    OK(ncdimid(ncid, "lon"), lon);
    ERR(ncdimid(ncid, "nope"), NC_EBADDIM, "ncdimid: ncid %d", ncid);
    ERR(ncdimid(-1, "lon"), NC_EBADID, "ncdimid: ncid -1");
    {
        char name[NC_MAX_NAME + 1] = "";
        long len = -5;
        OK(ncdiminq(ncid, lat, name, &len), lat);
        CHECKS(name, "lat");
        CHECKL(len, NLAT);
        OK(ncdiminq(ncid, tim, NULL, &len), tim);
        CHECKL(len, 0);
        OK(ncdiminq(ncid, str, name, NULL), str);
        CHECKS(name, "str");
        ERR(ncdiminq(ncid, 4, name, &len), NC_EBADDIM, "ncdiminq: ncid %d", ncid);
        ERR(ncdiminq(ncid, -1, name, &len), NC_EBADDIM, "ncdiminq: ncid %d", ncid);
        ERR(ncdiminq(-1, 0, name, &len), NC_EBADID, "ncdiminq: ncid -1");
    }
    OK(ncdimrename(ncid, str, "strlen"), str);
    OK(ncdimrename(ncid, str, "str"), str);
    ERR(ncdimrename(ncid, str, "lat"), NC_ENAMEINUSE, "ncdimrename: ncid %d", ncid);
    ERR(ncdimrename(ncid, str, "a/b"), NC_EBADNAME, "ncdimrename: ncid %d", ncid);
    ERR(ncdimrename(ncid, 9, "z"), NC_EBADDIM, "ncdimrename: ncid %d", ncid);

    section = "vars";
    dims[0] = lat;
    dims[1] = lon;
    for (int v = 0; v < 5; v++)
        OK(ncvardef(ncid, fixed_names[v], fixed_types[v], 2, dims), v);
    dims[1] = str;
    OK(ncvardef(ncid, "c", NC_CHAR, 2, dims), 5);
    OK(ncvardef(ncid, "sc", NC_LONG, 0, NULL), 6);
    dims[0] = tim;
    dims[1] = lon;
    OK(ncvardef(ncid, "rl", NC_LONG, 2, dims), 7);
    OK(ncvardef(ncid, "rd", NC_DOUBLE, 1, dims), 8);
    dims[1] = lat;
    dims[2] = lon;
    OK(ncvardef(ncid, "rs", NC_SHORT, 3, dims), 9);
    dims[1] = str;
    OK(ncvardef(ncid, "rc", NC_CHAR, 2, dims), 10);

    dims[0] = lat;
    dims[1] = lon;
    ERR(ncvardef(ncid, "l", NC_LONG, 2, dims), NC_ENAMEINUSE, "ncvardef: ncid %d", ncid);
    ERR(ncvardef(ncid, "x", NC_NAT, 2, dims), NC_EBADTYPE, "ncvardef: ncid %d", ncid);
    ERR(ncvardef(ncid, "x", 99, 2, dims), NC_EBADTYPE, "ncvardef: ncid %d", ncid);
    if (fmt == 5) {
        OK(ncvardef(ncid, "ub", NC_UBYTE, 2, dims), 11);
        OK(ncvardef(ncid, "i64", NC_INT64, 1, dims), 12);
    } else {
        ERR(ncvardef(ncid, "ub", NC_UBYTE, 2, dims), NC_EBADTYPE, "ncvardef: ncid %d", ncid);
        ERR(ncvardef(ncid, "i64", NC_INT64, 1, dims), NC_EBADTYPE, "ncvardef: ncid %d", ncid);
    }
    ERR(ncvardef(ncid, "x", NC_LONG, -1, dims), NC_EINVAL, "ncvardef: ncid %d", ncid);
    dims[1] = 17;
    ERR(ncvardef(ncid, "x", NC_LONG, 2, dims), NC_EBADDIM, "ncvardef: ncid %d", ncid);
    dims[1] = tim;
    ERR(ncvardef(ncid, "x", NC_LONG, 2, dims), NC_EUNLIMPOS, "ncvardef: ncid %d", ncid);
    dims[1] = lon;
    ERR(ncvardef(ncid, "x/y", NC_LONG, 2, dims), NC_EBADNAME, "ncvardef: ncid %d", ncid);
    ERR(ncvardef(-1, "x", NC_LONG, 2, dims), NC_EBADID, "ncvardef: ncid -1");
    OK(ncvarid(ncid, "rd"), 8);
    ERR(ncvarid(ncid, "nope"), NC_ENOTVAR, "ncvarid: ncid %d", ncid);
    ERR(ncvarid(-1, "rd"), NC_EBADID, "ncvarid: ncid -1");
    {
        char name[NC_MAX_NAME + 1] = "";
        nc_type t = NC_NAT;
        int nd = -1, na = -1, dd[3] = { -1, -1, -1 };
        OK(ncvarinq(ncid, 9, name, &t, &nd, dd, &na), 9);
        CHECKS(name, "rs");
        CHECKL(t, NC_SHORT);
        CHECKL(nd, 3);
        CHECKL(dd[0], tim);
        CHECKL(dd[1], lat);
        CHECKL(dd[2], lon);
        CHECKL(na, 0);
        OK(ncvarinq(ncid, 6, NULL, NULL, &nd, NULL, NULL), 6);
        CHECKL(nd, 0);
        ERR(ncvarinq(ncid, 40, name, &t, &nd, dd, &na), NC_ENOTVAR, "ncvarinq: ncid %d", ncid);
        ERR(ncvarinq(ncid, NC_GLOBAL, name, &t, &nd, dd, &na), NC_ENOTVAR,
            "ncvarinq: ncid %d", ncid);
        ERR(ncvarinq(-1, 0, name, &t, &nd, dd, &na), NC_EBADID, "ncvarinq: ncid -1");
    }
    OK(ncvarrename(ncid, 6, "scalar"), 6);
    OK(ncvarid(ncid, "scalar"), 6);
    OK(ncvarrename(ncid, 6, "sc"), 6);
    ERR(ncvarrename(ncid, 6, "rd"), NC_ENAMEINUSE, "ncvarrename: ncid %d", ncid);
    ERR(ncvarrename(ncid, 6, "a/b"), NC_EBADNAME, "ncvarrename: ncid %d", ncid);
    ERR(ncvarrename(ncid, 40, "zz"), NC_ENOTVAR, "ncvarrename: ncid %d", ncid);
}

static void test_atts(int ncid)
{
    static const short sv[3] = { 1, -2, 3 };
    static const nclong lv[2] = { 100000, -7 };
    static const double dv[2] = { 0.5, -1e300 };
    static const signed char bv[2] = { -128, 127 };
    static const float fv[1] = { 2.5f };
    static const char title[] = "v2 conformance";
    char name[NC_MAX_NAME + 1];
    nc_type t;
    int len;

    section = "atts";
    OK(ncattput(ncid, NC_GLOBAL, "title", NC_CHAR, (int)strlen(title), title), 0);
    OK(ncattput(ncid, NC_GLOBAL, "shorts", NC_SHORT, 3, sv), 0);
    OK(ncattput(ncid, NC_GLOBAL, "longs", NC_LONG, 2, lv), 0);
    OK(ncattput(ncid, NC_GLOBAL, "bytes", NC_BYTE, 2, bv), 0);
    OK(ncattput(ncid, 2, "units", NC_CHAR, 4, "m/s!"), 0);
    OK(ncattput(ncid, 2, "scale", NC_DOUBLE, 2, dv), 0);
    OK(ncattput(ncid, 3, "f", NC_FLOAT, 1, fv), 0);
    OK(ncattput(ncid, NC_GLOBAL, "empty", NC_CHAR, 0, ""), 0);
    {
        static const nclong fill = -5;
        OK(ncattput(ncid, 7, "_FillValue", NC_LONG, 1, &fill), 0);
    }
    ERR(ncattput(ncid, NC_GLOBAL, "x", NC_NAT, 1, sv), NC_EBADTYPE, "ncattput: ncid %d", ncid);
    {
        /* a global _FillValue is just an attribute */
        static const nclong gfill = 1;
        OK(ncattput(ncid, NC_GLOBAL, "_FillValue", NC_LONG, 1, &gfill), 0);
        OK(ncattdel(ncid, NC_GLOBAL, "_FillValue"), 1);
    }
    if (fmt == 5)
        OK(ncattput(ncid, NC_GLOBAL, "ub", NC_UBYTE, 2, bv), 0);
    else
        ERR(ncattput(ncid, NC_GLOBAL, "ub", NC_UBYTE, 2, bv), NC_EBADTYPE,
            "ncattput: ncid %d", ncid);
    ERR(ncattput(ncid, NC_GLOBAL, "x", NC_SHORT, -1, sv), NC_EINVAL, "ncattput: ncid %d", ncid);
    ERR(ncattput(ncid, NC_GLOBAL, "a/b", NC_SHORT, 1, sv), NC_EBADNAME, "ncattput: ncid %d", ncid);
    ERR(ncattput(ncid, 40, "x", NC_SHORT, 1, sv), NC_ENOTVAR, "ncattput: ncid %d", ncid);
    ERR(ncattput(-1, NC_GLOBAL, "x", NC_SHORT, 1, sv), NC_EBADID, "ncattput: ncid -1");

    OK(ncattinq(ncid, NC_GLOBAL, "shorts", &t, &len), 1);
    CHECKL(t, NC_SHORT);
    CHECKL(len, 3);
    OK(ncattinq(ncid, NC_GLOBAL, "title", NULL, &len), 1);
    CHECKL(len, (long)strlen(title));
    OK(ncattinq(ncid, NC_GLOBAL, "empty", &t, &len), 1);
    CHECKL(t, NC_CHAR);
    CHECKL(len, 0);
    OK(ncattinq(ncid, 2, "scale", &t, NULL), 1);
    CHECKL(t, NC_DOUBLE);
    ERR(ncattinq(ncid, NC_GLOBAL, "nope", &t, &len), NC_ENOTATT,
        "ncattinq: ncid %d; varid -1; attname \"nope\"", ncid);
    ERR(ncattinq(ncid, 40, "units", &t, &len), NC_ENOTVAR,
        "ncattinq: ncid %d; varid 40; attname \"units\"", ncid);
    ERR(ncattinq(-1, 2, "units", &t, &len), NC_EBADID,
        "ncattinq: ncid -1; varid 2; attname \"units\"");
    {
        short s[3] = { 0 };
        nclong l[2] = { 0 };
        double d[2] = { 0 };
        char text[32] = "";
        static const double wants[3] = { 1, -2, 3 }, wantl[2] = { 100000, -7 };
        OK(ncattget(ncid, NC_GLOBAL, "shorts", s), 1);
        check_buf("shorts", NC_SHORT, s, wants, 3);
        OK(ncattget(ncid, NC_GLOBAL, "longs", l), 1);
        check_buf("longs as 4-byte ints", NC_LONG, l, wantl, 2);
        OK(ncattget(ncid, 2, "scale", d), 1);
        check_buf("scale", NC_DOUBLE, d, dv, 2);
        OK(ncattget(ncid, NC_GLOBAL, "title", text), 1);
        CHECKS(text, title);
        ERR(ncattget(ncid, NC_GLOBAL, "nope", text), NC_ENOTATT, "ncattget: ncid %d", ncid);
        ERR(ncattget(ncid, 40, "title", text), NC_ENOTVAR, "ncattget: ncid %d", ncid);
        ERR(ncattget(-1, NC_GLOBAL, "title", text), NC_EBADID, "ncattget: ncid -1");
    }
    OK(ncattname(ncid, NC_GLOBAL, 1, name), 1);
    CHECKS(name, "shorts");
    OK(ncattname(ncid, 2, 0, name), 0);
    CHECKS(name, "units");
    ERR(ncattname(ncid, NC_GLOBAL, 40, name), NC_ENOTATT, "ncattname: ncid %d", ncid);
    ERR(ncattname(ncid, NC_GLOBAL, -1, name), NC_ENOTATT, "ncattname: ncid %d", ncid);
    ERR(ncattname(ncid, 40, 0, name), NC_ENOTVAR, "ncattname: ncid %d", ncid);
    ERR(ncattname(-1, NC_GLOBAL, 0, name), NC_EBADID, "ncattname: ncid -1");

    OK(ncattrename(ncid, NC_GLOBAL, "bytes", "some_bytes"), 1);
    OK(ncattname(ncid, NC_GLOBAL, 3, name), 3);
    CHECKS(name, "some_bytes");
    ERR(ncattrename(ncid, NC_GLOBAL, "shorts", "longs"), NC_ENAMEINUSE,
        "ncattrename: ncid %d", ncid);
    ERR(ncattrename(ncid, NC_GLOBAL, "nope", "nope2"), NC_ENOTATT, "ncattrename: ncid %d", ncid);
    ERR(ncattrename(ncid, NC_GLOBAL, "shorts", "a/b"), NC_EBADNAME, "ncattrename: ncid %d", ncid);
    ERR(ncattrename(-1, NC_GLOBAL, "shorts", "x"), NC_EBADID, "ncattrename: ncid -1");

    OK(ncattput(ncid, NC_GLOBAL, "doomed", NC_FLOAT, 1, fv), 0);
    OK(ncattdel(ncid, NC_GLOBAL, "doomed"), 1);
    ERR(ncattdel(ncid, NC_GLOBAL, "doomed"), NC_ENOTATT, "ncattdel: ncid %d", ncid);
    ERR(ncattdel(ncid, 40, "units"), NC_ENOTVAR, "ncattdel: ncid %d", ncid);
    ERR(ncattdel(-1, 2, "units"), NC_EBADID, "ncattdel: ncid -1");
}

/* Data calls that define mode refuses. */
static void test_define_mode_data(int ncid)
{
    static const long start[2] = { 0, 0 }, count[2] = { 1, 1 }, stride[2] = { 1, 1 };
    static const long map[2] = { 4, 4 };
    int v = 0;
    void *recs[4] = { NULL, NULL, NULL, NULL };
    nclong rl[NLON] = { 0 };

    section = "define mode";
    ERR(ncvarput1(ncid, 2, start, &v), NC_EINDEFINE, "ncvarput1: ncid %d", ncid);
    ERR(ncvarget1(ncid, 2, start, &v), NC_EINDEFINE, "ncdimid: ncid %d", ncid);
    ERR(ncvarput(ncid, 2, start, count, &v), NC_EINDEFINE, "ncvarput: ncid %d", ncid);
    ERR(ncvarget(ncid, 2, start, count, &v), NC_EINDEFINE, "ncvarget: ncid %d; varid 2", ncid);
    ERR(ncvarputs(ncid, 2, start, count, stride, &v), NC_EINDEFINE, "ncvarputs: ncid %d", ncid);
    ERR(ncvargets(ncid, 2, start, count, stride, &v), NC_EINDEFINE, "ncvargets: ncid %d", ncid);
    ERR(ncvarputg(ncid, 2, start, count, stride, map, &v), NC_EINDEFINE,
        "ncvarputg: ncid %d", ncid);
    ERR(ncvargetg(ncid, 2, start, count, stride, map, &v), NC_EINDEFINE,
        "ncvargetg: ncid %d", ncid);
    /* all slots NULL: nothing to do, so no error */
    OK(ncrecput(ncid, 0, recs), 0);
    OK(ncrecget(ncid, 0, recs), 0);
    recs[0] = rl;
    ERR(ncrecput(ncid, 0, recs), NC_EINDEFINE, "ncrecput: ncid %d", ncid);
    ERR(ncrecget(ncid, 0, recs), NC_EINDEFINE, "ncrecget: ncid %d", ncid);
}

/* Unwritten data reads as the fill value. */
static void test_fill(int ncid)
{
    static const long start[2] = { 0, 0 }, count[2] = { NLAT, NLON };
    double d[NLAT * NLON], want[NLAT * NLON];
    section = "fill";
    OK(ncvarget(ncid, 4, start, count, d), 0);
    for (int k = 0; k < NLAT * NLON; k++)
        want[k] = FILL_DOUBLE;
    check_buf("d before writing", NC_DOUBLE, d, want, NLAT * NLON);
    {
        /* reading a record that does not exist is an edge error */
        long idx[2] = { 0, 0 };
        ERR(ncvarget1(ncid, 7, idx, d), NC_EEDGE, "ncdimid: ncid %d", ncid);
    }
}

/* Writes each fixed 2-D variable whole and reads it back. */
static void test_whole(int ncid)
{
    static const long start[2] = { 0, 0 }, count[2] = { NLAT, NLON };
    double buf[NLAT * NLON], back[NLAT * NLON], want[NLAT * NLON];
    char what[64];

    section = "ncvarput";
    for (int v = 0; v < 5; v++) {
        for (int i = 0; i < NLAT; i++)
            for (int j = 0; j < NLON; j++) {
                want[i * NLON + j] = val(v, i, j);
                set_elem(fixed_types[v], buf, (size_t)(i * NLON + j), val(v, i, j));
            }
        OK(ncvarput(ncid, v, start, count, buf), 0);
        memset(back, 0, sizeof back);
        OK(ncvarget(ncid, v, start, count, back), 0);
        snprintf(what, sizeof what, "%s read back", fixed_names[v]);
        check_buf(what, fixed_types[v], back, want, NLAT * NLON);
        /* a NULL count means the whole variable */
        memset(back, 0, sizeof back);
        OK(ncvarget(ncid, v, start, NULL, back), 0);
        snprintf(what, sizeof what, "%s read back with NULL count", fixed_names[v]);
        check_buf(what, fixed_types[v], back, want, NLAT * NLON);
    }
    {
        static const long over[2] = { NLAT, NLON + 1 }, far[2] = { NLAT + 1, 0 };
        static const long atend[2] = { NLAT, 0 }, zero[2] = { 0, NLON };
        ERR(ncvarput(ncid, 2, start, over, buf), NC_EEDGE, "ncvarput: ncid %d", ncid);
        ERR(ncvarget(ncid, 2, start, over, buf), NC_EEDGE, "ncvarget: ncid %d; varid 2", ncid);
        ERR(ncvarget(ncid, 2, far, count, buf), NC_EINVALCOORDS,
            "ncvarget: ncid %d; varid 2", ncid);
        /* start at the end with a zero count is allowed */
        OK(ncvarget(ncid, 2, atend, zero, buf), 0);
        ERR(ncvarget(ncid, 2, far, zero, buf), NC_EINVALCOORDS, "ncvarget: ncid %d; varid 2", ncid);
        {
            static const long neg[2] = { -1, 0 };
            ERR(ncvarget(ncid, 2, neg, count, buf), NC_EINVALCOORDS,
                "ncvarget: ncid %d; varid 2", ncid);
        }
        ERR(ncvarget(ncid, 2, NULL, count, buf), NC_EINVALCOORDS,
            "ncvarget: ncid %d; varid 2", ncid);
        ERR(ncvarput(ncid, 2, NULL, count, buf), NC_EINVALCOORDS, "ncvarput: ncid %d", ncid);
        ERR(ncvarget(ncid, 40, start, count, buf), NC_ENOTVAR,
            "ncvarget: ncid %d; varid 40", ncid);
        ERR(ncvarput(ncid, 40, start, count, buf), NC_ENOTVAR, "ncvarput: ncid %d", ncid);
        ERR(ncvarget(-1, 2, start, count, buf), NC_EBADID, "ncvarget: ncid -1; varid 2");
        ERR(ncvarput(-1, 2, start, count, buf), NC_EBADID, "ncvarput: ncid -1");
    }

    section = "char";
    {
        static const long cstart[2] = { 0, 0 }, ccount[2] = { NLAT, NSTR };
        char text[NLAT * NSTR + 1] = "helloworldabcde", back_text[NLAT * NSTR + 1] = "";
        OK(ncvarput(ncid, 5, cstart, ccount, text), 0);
        OK(ncvarget(ncid, 5, cstart, ccount, back_text), 0);
        CHECKS(back_text, "helloworldabcde");
    }

    section = "ncvarput1";
    {
        long idx[2];
        short s = 0;
        double d = 0;
        nclong l = 0;
        for (int i = 0; i < NLAT; i++)
            for (int j = 0; j < NLON; j++) {
                idx[0] = i;
                idx[1] = j;
                l = 0;
                ncerr = 0;
                if (ncvarget1(ncid, 2, idx, &l) != 0 || l != (nclong)val(2, i, j))
                    break;
            }
        check_long("last ncvarget1 of every l element", l, (long)val(2, NLAT - 1, NLON - 1));
        idx[0] = 1;
        idx[1] = 2;
        s = 999;
        OK(ncvarput1(ncid, 1, idx, &s), 0);
        s = 0;
        OK(ncvarget1(ncid, 1, idx, &s), 0);
        CHECKL(s, 999);
        s = (short)val(1, 1, 2);
        OK(ncvarput1(ncid, 1, idx, &s), 0);
        d = 0;
        OK(ncvarget1(ncid, 4, idx, &d), 0);
        CHECKL(d, val(4, 1, 2));
        idx[0] = NLAT;
        ERR(ncvarput1(ncid, 1, idx, &s), NC_EINVALCOORDS, "ncvarput1: ncid %d", ncid);
        /* ncvarget1 calls itself ncdimid */
        ERR(ncvarget1(ncid, 1, idx, &s), NC_EINVALCOORDS, "ncdimid: ncid %d", ncid);
        idx[0] = -1;
        ERR(ncvarget1(ncid, 1, idx, &s), NC_EINVALCOORDS, "ncdimid: ncid %d", ncid);
        idx[0] = 0;
        ERR(ncvarget1(ncid, 40, idx, &s), NC_ENOTVAR, "ncdimid: ncid %d", ncid);
        ERR(ncvarget1(-1, 1, idx, &s), NC_EBADID, "ncdimid: ncid -1");
        ERR(ncvarput1(ncid, 40, idx, &s), NC_ENOTVAR, "ncvarput1: ncid %d", ncid);
        ERR(ncvarput1(-1, 1, idx, &s), NC_EBADID, "ncvarput1: ncid -1");
        ERR(ncvarget1(ncid, 1, NULL, &s), NC_EINVALCOORDS, "ncdimid: ncid %d", ncid);
        ERR(ncvarput1(ncid, 1, NULL, &s), NC_EINVALCOORDS, "ncvarput1: ncid %d", ncid);
        /* a scalar takes a NULL index */
        l = 4242;
        OK(ncvarput1(ncid, 6, NULL, &l), 0);
        l = 0;
        OK(ncvarget1(ncid, 6, NULL, &l), 0);
        CHECKL(l, 4242);
        l = 0;
        OK(ncvarget(ncid, 6, NULL, NULL, &l), 0);
        CHECKL(l, 4242);
    }
}

static void test_strided_mapped(int ncid)
{
    static const long start[2] = { 0, 0 }, all[2] = { NLAT, NLON };
    nclong l[NLAT * NLON];
    double want[NLAT * NLON];

    section = "ncvargets";
    {
        static const long count[2] = { 2, 2 }, stride[2] = { 2, 3 };
        static const long zero_stride[2] = { 0, 1 }, neg_stride[2] = { 1, -1 };
        static const long far[2] = { 0, 5 };
        want[0] = val(2, 0, 0);
        want[1] = val(2, 0, 3);
        want[2] = val(2, 2, 0);
        want[3] = val(2, 2, 3);
        OK(ncvargets(ncid, 2, start, count, stride, l), 0);
        check_buf("l every 2nd row, every 3rd column", NC_LONG, l, want, 4);
        ERR(ncvargets(ncid, 2, start, count, zero_stride, l), NC_ESTRIDE,
            "ncvargets: ncid %d", ncid);
        ERR(ncvargets(ncid, 2, start, count, neg_stride, l), NC_ESTRIDE,
            "ncvargets: ncid %d", ncid);
        /* a strided count that runs off the end is a coordinate error */
        ERR(ncvargets(ncid, 2, start, all, stride, l), NC_EINVALCOORDS,
            "ncvargets: ncid %d", ncid);
        ERR(ncvargets(ncid, 2, far, count, stride, l), NC_EINVALCOORDS,
            "ncvargets: ncid %d", ncid);
        /* a NULL stride is ncvarget, and is reported as such */
        ERR(ncvargets(ncid, 40, start, count, NULL, l), NC_ENOTVAR,
            "ncvarget: ncid %d; varid 40", ncid);
        ERR(ncvargets(ncid, 40, start, count, stride, l), NC_ENOTVAR,
            "ncvargets: ncid %d", ncid);
        ERR(ncvargets(-1, 2, start, count, stride, l), NC_EBADID, "ncvargets: ncid -1");
    }
    section = "ncvarputs";
    {
        static const long count[2] = { 3, 2 }, stride[2] = { 1, 2 };
        static const long zero_stride[2] = { 1, 0 };
        short s[6], back[NLAT * NLON];
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 2; j++)
                s[i * 2 + j] = (short)(-val(1, i, 2 * j));
        OK(ncvarputs(ncid, 1, start, count, stride, s), 0);
        OK(ncvarget(ncid, 1, start, all, back), 0);
        for (int i = 0; i < NLAT; i++)
            for (int j = 0; j < NLON; j++)
                want[i * NLON + j] = j % 2 == 0 ? -val(1, i, j) : val(1, i, j);
        check_buf("s with even columns negated", NC_SHORT, back, want, NLAT * NLON);
        ERR(ncvarputs(ncid, 1, start, count, zero_stride, s), NC_ESTRIDE,
            "ncvarputs: ncid %d", ncid);
        ERR(ncvarputs(ncid, 40, start, count, NULL, s), NC_ENOTVAR, "ncvarput: ncid %d", ncid);
        ERR(ncvarputs(ncid, 40, start, count, stride, s), NC_ENOTVAR, "ncvarputs: ncid %d", ncid);
        /* restore */
        for (int k = 0; k < NLAT * NLON; k++)
            back[k] = (short)val(1, k / NLON, k % NLON);
        OK(ncvarputs(ncid, 1, start, all, NULL, back), 0);
    }

    section = "ncvargetg";
    {
        /* maps are in bytes: {4, 12} for a 4-byte type is the transpose */
        static const long tmap[2] = { 4, 12 }, odd_map[2] = { 17, 5 };
        static const long rev_map[2] = { -16, -4 }, odd_rev[2] = { -17, -5 };
        static const long stride[2] = { 1, 2 }, half[2] = { NLAT, 2 };
        static const long dmap[2] = { 8, 24 }, smap[2] = { 2, 6 }, bmap[2] = { 1, 3 };
        short s[NLAT * NLON];
        double d[NLAT * NLON];
        signed char b[NLAT * NLON];
        for (int i = 0; i < NLAT; i++)
            for (int j = 0; j < NLON; j++)
                want[j * NLAT + i] = val(2, i, j);
        OK(ncvargetg(ncid, 2, start, all, NULL, tmap, l), 0);
        check_buf("l transposed by a byte map", NC_LONG, l, want, NLAT * NLON);
        for (int i = 0; i < NLAT; i++)
            for (int j = 0; j < NLON; j++)
                want[j * NLAT + i] = val(4, i, j);
        OK(ncvargetg(ncid, 4, start, all, NULL, dmap, d), 0);
        check_buf("d transposed by a byte map", NC_DOUBLE, d, want, NLAT * NLON);
        for (int i = 0; i < NLAT; i++)
            for (int j = 0; j < NLON; j++)
                want[j * NLAT + i] = val(1, i, j);
        OK(ncvargetg(ncid, 1, start, all, NULL, smap, s), 0);
        check_buf("s transposed by a byte map", NC_SHORT, s, want, NLAT * NLON);
        for (int i = 0; i < NLAT; i++)
            for (int j = 0; j < NLON; j++)
                want[j * NLAT + i] = val(0, i, j);
        OK(ncvargetg(ncid, 0, start, all, NULL, bmap, b), 0);
        check_buf("b transposed by a byte map", NC_BYTE, b, want, NLAT * NLON);

        /* a map that is not a multiple of the size is divided down: 17/4, 5/4 */
        for (int k = 0; k < NLAT * NLON; k++)
            want[k] = val(2, k / NLON, k % NLON);
        memset(l, 0, sizeof l);
        OK(ncvargetg(ncid, 2, start, all, NULL, odd_map, l), 0);
        check_buf("l with byte map {17, 5}", NC_LONG, l, want, NLAT * NLON);
        /* negative maps walk backwards from the buffer pointer */
        for (int k = 0; k < NLAT * NLON; k++)
            want[NLAT * NLON - 1 - k] = val(2, k / NLON, k % NLON);
        memset(l, 0, sizeof l);
        OK(ncvargetg(ncid, 2, start, all, NULL, rev_map, &l[NLAT * NLON - 1]), 0);
        check_buf("l reversed by map {-16, -4}", NC_LONG, l, want, NLAT * NLON);
        memset(l, 0, sizeof l);
        OK(ncvargetg(ncid, 2, start, all, NULL, odd_rev, &l[NLAT * NLON - 1]), 0);
        check_buf("l reversed by map {-17, -5}", NC_LONG, l, want, NLAT * NLON);
        /* a zero map: every element lands on the first, the last one stays */
        {
            static const long zmap[2] = { 0, 0 };
            memset(l, 0, sizeof l);
            OK(ncvargetg(ncid, 2, start, all, NULL, zmap, l), 0);
            CHECKL(l[0], val(2, NLAT - 1, NLON - 1));
            CHECKL(l[1], 0);
        }
        /* stride and map together */
        for (int i = 0; i < NLAT; i++)
            for (int j = 0; j < 2; j++)
                want[j * NLAT + i] = val(2, i, 2 * j);
        OK(ncvargetg(ncid, 2, start, half, stride, tmap, l), 0);
        check_buf("l even columns, transposed", NC_LONG, l, want, NLAT * 2);
        /* a NULL map is ncvargets, a NULL stride too is ncvarget */
        ERR(ncvargetg(ncid, 40, start, all, NULL, NULL, l), NC_ENOTVAR,
            "ncvarget: ncid %d; varid 40", ncid);
        ERR(ncvargetg(ncid, 40, start, all, stride, NULL, l), NC_ENOTVAR,
            "ncvargets: ncid %d", ncid);
        /* with a map, a variable that cannot be inquired gives the raw status,
         * unreported */
        RAW(ncvargetg(ncid, 40, start, all, NULL, tmap, l), NC_ENOTVAR);
        RAW(ncvargetg(-1, 2, start, all, NULL, tmap, l), NC_EBADID);
        ERR(ncvargetg(ncid, 2, start, all, stride, tmap, l), NC_EINVALCOORDS,
            "ncvargetg: ncid %d", ncid);
    }

    section = "ncvarputg";
    {
        static const long tmap[2] = { 4, 12 }, rev_map[2] = { -16, -4 };
        nclong back[NLAT * NLON];
        for (int i = 0; i < NLAT; i++)
            for (int j = 0; j < NLON; j++)
                l[j * NLAT + i] = (nclong)(1000 + val(2, i, j));
        OK(ncvarputg(ncid, 2, start, all, NULL, tmap, l), 0);
        OK(ncvarget(ncid, 2, start, all, back), 0);
        for (int k = 0; k < NLAT * NLON; k++)
            want[k] = 1000 + val(2, k / NLON, k % NLON);
        check_buf("l written transposed", NC_LONG, back, want, NLAT * NLON);
        for (int k = 0; k < NLAT * NLON; k++)
            l[NLAT * NLON - 1 - k] = (nclong)val(2, k / NLON, k % NLON);
        OK(ncvarputg(ncid, 2, start, all, NULL, rev_map, &l[NLAT * NLON - 1]), 0);
        OK(ncvarget(ncid, 2, start, all, back), 0);
        for (int k = 0; k < NLAT * NLON; k++)
            want[k] = val(2, k / NLON, k % NLON);
        check_buf("l written from a reversed buffer", NC_LONG, back, want, NLAT * NLON);
        RAW(ncvarputg(ncid, 40, start, all, NULL, tmap, l), NC_ENOTVAR);
        RAW(ncvarputg(-1, 2, start, all, NULL, tmap, l), NC_EBADID);
        ERR(ncvarputg(ncid, 40, start, all, NULL, NULL, l), NC_ENOTVAR, "ncvarput: ncid %d", ncid);
        {
            static const long over[2] = { NLAT + 1, NLON };
            ERR(ncvarputg(ncid, 2, start, over, NULL, tmap, l), NC_EEDGE,
                "ncvarputg: ncid %d", ncid);
        }
    }
}

static void test_records(int ncid)
{
    int nrec = -1, ids[8] = { -1, -1, -1, -1, -1, -1, -1, -1 };
    long sizes[8] = { 0 };
    nclong rl[NLON];
    double rd;
    short rs[NLAT * NLON];
    char rc[NSTR];
    void *slots[4];
    long nrecs = -1;

    section = "ncrecinq";
    OK(ncrecinq(ncid, &nrec, ids, sizes), 4);
    CHECKL(nrec, 4);
    CHECKL(ids[0], 7);
    CHECKL(ids[1], 8);
    CHECKL(ids[2], 9);
    CHECKL(ids[3], 10);
    CHECKL(ids[4], -1);
    CHECKL(sizes[0], 4 * NLON);
    CHECKL(sizes[1], 8);
    CHECKL(sizes[2], 2 * NLAT * NLON);
    CHECKL(sizes[3], NSTR);
    OK(ncrecinq(ncid, NULL, NULL, NULL), 4);
    ERR(ncrecinq(-1, &nrec, ids, sizes), NC_EBADID, "ncrecinq: ncid -1");

    section = "ncrecput";
    for (int r = 0; r < 4; r++) {
        if (r == 2)
            continue; /* record 2 is made by writing record 3: fill */
        for (int j = 0; j < NLON; j++)
            rl[j] = (nclong)(100 * r + j);
        rd = 100 * r + 0.5;
        for (int k = 0; k < NLAT * NLON; k++)
            rs[k] = (short)(100 * r + k);
        memset(rc, 'a' + r, NSTR);
        slots[0] = rl;
        slots[1] = r == 1 ? NULL : &rd; /* skipped: stays fill */
        slots[2] = rs;
        slots[3] = rc;
        OK(ncrecput(ncid, r, slots), 0);
    }
    OK(ncdiminq(ncid, 0, NULL, &nrecs), 0);
    CHECKL(nrecs, 4);
    ERR(ncrecput(-1, 0, slots), NC_EBADID, "ncrecput: ncid -1");

    section = "ncrecget";
    {
        double want[NLAT * NLON];
        for (int k = 0; k < NLAT * NLON; k++)
            rs[k] = 7777; /* sentinel: the slot is NULL */
        rd = 0;
        slots[0] = rl;
        slots[1] = &rd;
        slots[2] = NULL;
        slots[3] = rc;
        OK(ncrecget(ncid, 1, slots), 0);
        for (int j = 0; j < NLON; j++)
            want[j] = 100 + j;
        check_buf("rl of record 1", NC_LONG, rl, want, NLON);
        CHECK(rd == FILL_DOUBLE);
        CHECK(rs[0] == 7777 && rs[NLAT * NLON - 1] == 7777);
        CHECK(memcmp(rc, "bbbbb", NSTR) == 0);
        slots[2] = rs;
        OK(ncrecget(ncid, 2, slots), 0);
        /* rl has a _FillValue of -5 */
        for (int j = 0; j < NLON; j++)
            want[j] = -5;
        check_buf("rl of record 2 (its _FillValue)", NC_LONG, rl, want, NLON);
        CHECK(rd == FILL_DOUBLE);
        CHECK(rs[0] == FILL_SHORT && rs[NLAT * NLON - 1] == FILL_SHORT);
        CHECK(rc[0] == FILL_CHAR && rc[NSTR - 1] == FILL_CHAR);
        OK(ncrecget(ncid, 3, slots), 0);
        CHECK(rd == 300.5);
        for (int k = 0; k < NLAT * NLON; k++)
            want[k] = 300 + k;
        check_buf("rs of record 3", NC_SHORT, rs, want, NLAT * NLON);
        ERR(ncrecget(ncid, 4, slots), NC_EEDGE, "ncrecget: ncid %d", ncid);
        ERR(ncrecget(-1, 0, slots), NC_EBADID, "ncrecget: ncid -1");
    }

    section = "record vars";
    {
        long idx[2] = { 5, 1 };
        nclong v = 55;
        OK(ncvarput1(ncid, 7, idx, &v), 0);
        OK(ncdiminq(ncid, 0, NULL, &nrecs), 0);
        CHECKL(nrecs, 6);
        v = 0;
        OK(ncvarget1(ncid, 7, idx, &v), 0);
        CHECKL(v, 55);
        idx[0] = 4;
        OK(ncvarget1(ncid, 7, idx, &v), 0);
        CHECKL(v, -5);
        idx[0] = 6;
        ERR(ncvarget1(ncid, 7, idx, &v), NC_EEDGE, "ncdimid: ncid %d", ncid);
        {
            /* a zero-count write past the last record still makes the
             * records before it; a zero-count read at the end is allowed,
             * past it is not */
            static const long st[2] = { 8, 0 }, cnt[2] = { 0, NLON }, far[2] = { 10, 0 };
            OK(ncvarput(ncid, 7, st, cnt, rl), 0);
            OK(ncdiminq(ncid, 0, NULL, &nrecs), 0);
            CHECKL(nrecs, 8);
            OK(ncvarget(ncid, 7, st, cnt, rl), 0);
            ERR(ncvarget(ncid, 7, far, cnt, rl), NC_EEDGE, "ncvarget: ncid %d; varid 7", ncid);
        }
        {
            /* whole-variable reads of a record variable cover every record */
            static const long st[1] = { 0 };
            double dd[8];
            double want[8] = { 0.5, FILL_DOUBLE, FILL_DOUBLE, 300.5,
                               FILL_DOUBLE, FILL_DOUBLE, FILL_DOUBLE, FILL_DOUBLE };
            OK(ncvarget(ncid, 8, st, NULL, dd), 0);
            check_buf("rd, all records", NC_DOUBLE, dd, want, 8);
        }
    }
}

/* Define again after data exist: names grow, the header grows, data move. */
static void test_redefine(int ncid)
{
    static const long start[2] = { 0, 0 }, all[2] = { NLAT, NLON };
    double d[NLAT * NLON], want[NLAT * NLON];
    int lat = 1;

    section = "data mode";
    ERR(ncdimrename(ncid, lat, "latitude_is_long"), NC_ENOTINDEFINE, "ncdimrename: ncid %d", ncid);
    OK(ncdimrename(ncid, lat, "la"), lat);
    ERR(ncvarrename(ncid, 4, "double_longer"), NC_ENOTINDEFINE, "ncvarrename: ncid %d", ncid);
    OK(ncvarrename(ncid, 4, "D"), 4);
    {
        static const short sv2[3] = { 4, 5, 6 };
        static const short sv5[5] = { 4, 5, 6, 7, 8 };
        OK(ncattput(ncid, NC_GLOBAL, "shorts", NC_SHORT, 3, sv2), 0);
        /* in data mode an attribute may grow within its padded size: 3 and
         * 4 shorts both take 8 bytes, 5 take 12 */
        OK(ncattput(ncid, NC_GLOBAL, "shorts", NC_SHORT, 4, sv5), 0);
        ERR(ncattput(ncid, NC_GLOBAL, "shorts", NC_SHORT, 5, sv5), NC_ENOTINDEFINE,
            "ncattput: ncid %d", ncid);
        ERR(ncattput(ncid, NC_GLOBAL, "brand_new", NC_SHORT, 1, sv2), NC_ENOTINDEFINE,
            "ncattput: ncid %d", ncid);
        ERR(ncattdel(ncid, NC_GLOBAL, "shorts"), NC_ENOTINDEFINE, "ncattdel: ncid %d", ncid);
        ERR(ncattrename(ncid, NC_GLOBAL, "shorts", "shorts_longer"), NC_ENOTINDEFINE,
            "ncattrename: ncid %d", ncid);
        OK(ncattrename(ncid, NC_GLOBAL, "shorts", "sh"), 1);
    }
    ERR(ncdimdef(ncid, "late", 2), NC_ENOTINDEFINE, "ncdimdef: ncid %d", ncid);
    ERR(ncvardef(ncid, "late", NC_SHORT, 0, NULL), NC_ENOTINDEFINE, "ncvardef: ncid %d", ncid);

    section = "redefine";
    OK(ncredef(ncid), 0);
    OK(ncdimrename(ncid, lat, "latitude_is_long"), lat);
    OK(ncvarrename(ncid, 4, "double_longer"), 4);
    OK(ncattrename(ncid, NC_GLOBAL, "sh", "shorts_longer"), 1);
    OK(ncattput(ncid, NC_GLOBAL, "history", NC_CHAR, 40, "grown header grown header grown header.."), 0);
    OK(ncdimdef(ncid, "late", 2), 4);
    OK(ncvardef(ncid, "late", NC_SHORT, 1, &lat), fmt == 5 ? 13 : 11);
    OK(ncendef(ncid), 0);
    OK(ncvarget(ncid, 4, start, all, d), 0);
    for (int k = 0; k < NLAT * NLON; k++)
        want[k] = val(4, k / NLON, k % NLON);
    check_buf("d after the header grew", NC_DOUBLE, d, want, NLAT * NLON);
    {
        int nd = 0, nv = 0, na = 0, rd = -2;
        OKID(ncinquire(ncid, &nd, &nv, &na, &rd), ncid);
        CHECKL(nd, 5);
        CHECKL(nv, fmt == 5 ? 14 : 12);
        CHECKL(na, fmt == 5 ? 7 : 6);
        CHECKL(rd, 0);
    }
}

static void test_read_only(void)
{
    int ncid = ncopen("basic.nc", NC_NOWRITE);
    long idx[2] = { 0, 0 };
    static const long all[2] = { NLAT, NLON }, tmap[2] = { 4, 12 };
    nclong l[NLAT * NLON];
    void *slots[4] = { NULL, NULL, NULL, NULL };

    section = "read only";
    OK(ncrecput(ncid, 0, slots), 0); /* all NULL: nothing written */
    slots[0] = l;
    CHECK(ncid >= 0);
    OK(ncvarget1(ncid, 2, idx, l), 0);
    CHECKL(l[0], val(2, 0, 0));
    /* past the last record: a coordinate error in a read-only file, an edge
     * error in a writable one (see "record vars") */
    idx[0] = 8;
    ERR(ncvarget1(ncid, 7, idx, l), NC_EINVALCOORDS, "ncdimid: ncid %d", ncid);
    idx[0] = 7;
    OK(ncvarget1(ncid, 7, idx, l), 0);
    CHECKL(l[0], -5);
    idx[0] = 0;
    ERR(ncvarput1(ncid, 2, idx, l), NC_EPERM, "ncvarput1: ncid %d", ncid);
    ERR(ncvarput(ncid, 2, idx, all, l), NC_EPERM, "ncvarput: ncid %d", ncid);
    ERR(ncvarputs(ncid, 2, idx, all, all, l), NC_EPERM, "ncvarputs: ncid %d", ncid);
    ERR(ncvarputg(ncid, 2, idx, all, NULL, tmap, l), NC_EPERM, "ncvarputg: ncid %d", ncid);
    ERR(ncrecput(ncid, 0, slots), NC_EPERM, "ncrecput: ncid %d", ncid);
    /* these check define mode first */
    ERR(ncattdel(ncid, NC_GLOBAL, "title"), NC_ENOTINDEFINE, "ncattdel: ncid %d", ncid);
    ERR(ncattrename(ncid, NC_GLOBAL, "title", "t"), NC_EPERM, "ncattrename: ncid %d", ncid);
    ERR(ncvarrename(ncid, 2, "L"), NC_EPERM, "ncvarrename: ncid %d", ncid);
    ERR(ncdimdef(ncid, "x", 1), NC_ENOTINDEFINE, "ncdimdef: ncid %d", ncid);
    OK(ncclose(ncid), 0);
}

static void test_attcopy(void)
{
    int in, out;
    char text[64] = "";
    nc_type t;
    int len;

    section = "ncattcopy";
    in = ncopen("basic.nc", NC_NOWRITE);
    out = nccreate("copy.nc", NC_CLOBBER | fmtflag);
    CHECK(in >= 0 && out >= 0);
    OK(ncdimdef(out, "n", 2), 0);
    OK(ncvardef(out, "v", NC_SHORT, 1, (int[1]){ 0 }), 0);
    OK(ncattcopy(in, NC_GLOBAL, "title", out, NC_GLOBAL), 0);
    OK(ncattcopy(in, 2, "units", out, 0), 0);
    OK(ncattcopy(in, NC_GLOBAL, "longs", out, 0), 0);
    OK(ncattcopy(in, 2, "scale", out, NC_GLOBAL), 0);
    ERR(ncattcopy(in, NC_GLOBAL, "nope", out, NC_GLOBAL), NC_ENOTATT, "ncattcopy: nope");
    ERR(ncattcopy(in, 40, "units", out, NC_GLOBAL), NC_ENOTVAR, "ncattcopy: units");
    ERR(ncattcopy(in, 2, "units", out, 40), NC_ENOTVAR, "ncattcopy: units");
    ERR(ncattcopy(-1, 2, "units", out, 0), NC_EBADID, "ncattcopy: units");
    ERR(ncattcopy(in, 2, "units", -1, 0), NC_EBADID, "ncattcopy: units");
    /* into a read-only file */
    ERR(ncattcopy(out, 0, "units", in, 2), NC_EPERM, "ncattcopy: units");
    OK(ncattget(out, 0, "units", text), 1);
    text[4] = '\0';
    CHECKS(text, "m/s!");
    OK(ncattinq(out, 0, "longs", &t, &len), 1);
    CHECKL(t, NC_LONG);
    CHECKL(len, 2);
    /* within one file */
    OK(ncattcopy(out, 0, "units", out, NC_GLOBAL), 0);
    OK(ncendef(out), 0);
    /* in data mode a new attribute cannot be made, an equal one can be replaced */
    ERR(ncattcopy(in, NC_GLOBAL, "shorts_longer", out, NC_GLOBAL), NC_ENOTINDEFINE,
        "ncattcopy: shorts_longer");
    OK(ncattcopy(in, NC_GLOBAL, "title", out, NC_GLOBAL), 0);
    OK(ncclose(out), 0);
    OK(ncclose(in), 0);
}

static void test_no_records(void)
{
    int ncid, nrec = -1, ids[2] = { -1, -1 };
    long sizes[2] = { -1, -1 };
    void *slots[2] = { NULL, NULL };
    short v = 3;
    int d;

    section = "no records";
    ncid = nccreate("norec.nc", NC_CLOBBER | fmtflag);
    CHECK(ncid >= 0);
    OK(d = ncdimdef(ncid, "n", 2), 0);
    OK(ncvardef(ncid, "v", NC_SHORT, 1, &d), 0);
    OK(ncendef(ncid), 0);
    OK(ncrecinq(ncid, &nrec, ids, sizes), 0);
    CHECKL(nrec, 0);
    CHECKL(ids[0], -1);
    CHECKL(sizes[0], -1);
    slots[0] = &v;
    OK(ncrecput(ncid, 0, slots), 0);
    OK(ncrecget(ncid, 7, slots), 0);
    CHECKL(v, 3);
    OK(ncclose(ncid), 0);

    /* a record dimension without record variables */
    ncid = nccreate("norecvar.nc", NC_CLOBBER | fmtflag);
    CHECK(ncid >= 0);
    OK(ncdimdef(ncid, "t", NC_UNLIMITED), 0);
    OK(d = ncdimdef(ncid, "n", 2), 1);
    OK(ncvardef(ncid, "v", NC_SHORT, 1, &d), 0);
    OK(ncendef(ncid), 0);
    OK(ncrecinq(ncid, &nrec, NULL, NULL), 0);
    CHECKL(nrec, 0);
    OK(ncrecget(ncid, 0, slots), 0);
    OK(ncclose(ncid), 0);
}

/* NC_NOFILL: the last variable is never written; the files must still
 * agree byte for byte. */
static void test_nofill(void)
{
    int ncid, d;
    short v[4] = { 1, 2, 3, 4 };
    static const long start[1] = { 0 }, count[1] = { 4 };

    section = "nofill";
    ncid = nccreate("nofill.nc", NC_CLOBBER | fmtflag);
    CHECK(ncid >= 0);
    OK(ncsetfill(ncid, NC_NOFILL), NC_FILL);
    OK(d = ncdimdef(ncid, "n", 4), 0);
    OK(ncvardef(ncid, "a", NC_SHORT, 1, &d), 0);
    OK(ncvardef(ncid, "b", NC_DOUBLE, 1, &d), 1);
    OK(ncendef(ncid), 0);
    OK(ncvarput(ncid, 0, start, count, v), 0);
    OK(ncclose(ncid), 0);
}

/* A variable's _FillValue of the wrong type or length is accepted by
 * ncattput; filling the variable then fails. */
static void test_bad_fill_value(void)
{
    int ncid, d;
    static const short sfill = -5;
    static const nclong fill = -5, two[2] = { -5, -6 };
    static const long start[1] = { 0 }, count[1] = { 2 };
    nclong v[2] = { 0, 0 };
    double want[2] = { -5, -5 };

    section = "_FillValue";
    ncid = nccreate("fillval.nc", NC_CLOBBER | fmtflag);
    CHECK(ncid >= 0);
    OK(d = ncdimdef(ncid, "n", 2), 0);
    OK(ncvardef(ncid, "v", NC_LONG, 1, &d), 0);
    OK(ncattput(ncid, 0, "_FillValue", NC_SHORT, 1, &sfill), 0);
    ERR(ncendef(ncid), NC_EBADTYPE, "ncendef: ncid %d", ncid);
    OK(ncattput(ncid, 0, "_FillValue", NC_LONG, 2, two), 0);
    ERR(ncendef(ncid), NC_EBADTYPE, "ncendef: ncid %d", ncid);
    OK(ncattput(ncid, 0, "_FillValue", NC_LONG, 1, &fill), 0);
    OK(ncendef(ncid), 0);
    OK(ncvarget(ncid, 0, start, count, v), 0);
    check_buf("v filled with its _FillValue", NC_LONG, v, want, 2);
    OK(ncclose(ncid), 0);
}

/* Dimension lengths per format, and ncdiminq's pass through an int. */
static void test_big_dims(void)
{
    int ncid;
    long len = 0;
    section = "dim sizes";
    ncid = nccreate("bigdim.nc", NC_CLOBBER | fmtflag);
    CHECK(ncid >= 0);
    if (fmt == 1) {
        OK(ncdimdef(ncid, "max", 2147483644L), 0);
        ERR(ncdimdef(ncid, "over", 2147483645L), NC_EDIMSIZE, "ncdimdef: ncid %d", ncid);
        OK(ncdiminq(ncid, 0, NULL, &len), 0);
        CHECKL(len, 2147483644L);
    } else if (fmt == 2) {
        OK(ncdimdef(ncid, "max", 4294967292L), 0);
        ERR(ncdimdef(ncid, "over", 4294967293L), NC_EDIMSIZE, "ncdimdef: ncid %d", ncid);
        OK(ncdiminq(ncid, 0, NULL, &len), 0);
        CHECKL(len, -4); /* (int)4294967292 */
    } else {
        OK(ncdimdef(ncid, "big", 3000000000L), 0);
        OK(ncdimdef(ncid, "huge", 1L << 40), 1);
        OK(ncdiminq(ncid, 0, NULL, &len), 0);
        CHECKL(len, -1294967296L); /* (int)3000000000 */
        OK(ncdiminq(ncid, 1, NULL, &len), 1);
        CHECKL(len, 0); /* (int)2^40 */
    }
    OK(ncendef(ncid), 0);
    OK(ncclose(ncid), 0);
}

int main(int argc, char **argv)
{
    int initial_ncopts = ncopts;
    int ncid;

    if (argc != 3 || (strcmp(argv[2], "1") && strcmp(argv[2], "2") && strcmp(argv[2], "5"))) {
        fprintf(stderr, "usage: %s DIR 1|2|5\n", argv[0]);
        return 2;
    }
    if (chdir(argv[1]) != 0) {
        perror(argv[1]);
        return 2;
    }
    fmt = atoi(argv[2]);
    fmtflag = fmt == 1 ? 0 : fmt == 2 ? NC_64BIT_OFFSET : NC_64BIT_DATA;
    printf("v2 conformance, CDF-%d\n", fmt);

    test_errors_and_options(initial_ncopts);
    /* from here on: report errors, never exit */
    ncopts = NC_VERBOSE;
    test_library();
    test_files();

    ncid = nccreate("basic.nc", NC_CLOBBER | fmtflag);
    section = "basic";
    CHECK(ncid >= 0);
    test_define(ncid);
    test_atts(ncid);
    {
        int nd = 0, nv = 0, na = 0, rd = -2;
        section = "ncinquire";
        OKID(ncinquire(ncid, &nd, &nv, &na, &rd), ncid);
        CHECKL(nd, 4);
        CHECKL(nv, fmt == 5 ? 13 : 11);
        CHECKL(na, fmt == 5 ? 6 : 5);
        CHECKL(rd, 0);
    }
    test_define_mode_data(ncid);
    section = "basic";
    OK(ncendef(ncid), 0);
    test_fill(ncid);
    test_whole(ncid);
    test_strided_mapped(ncid);
    test_records(ncid);
    test_redefine(ncid);
    section = "basic";
    OK(ncsync(ncid), 0);
    OK(ncclose(ncid), 0);
    ERR(ncclose(ncid), NC_EBADID, "ncclose: ncid %d", ncid);

    test_read_only();
    test_attcopy();
    test_no_records();
    test_nofill();
    test_bad_fill_value();
    test_big_dims();

    printf("%d passed, %d failed\n", npass, nfail);
    return nfail != 0;
}
