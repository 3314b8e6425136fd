/*
 * ncslab_check.c -- ncslab-check [-q] [-v] [-s] FILE...: validates netCDF
 * files of both of ncslab's layouts, classic (CDF-1, CDF-2, CDF-5) and
 * netCDF-4/HDF5 in the classic model, through the library's own reading
 * (ncslab-check.1).
 *
 * For each file: the journal of an interrupted redefinition beside it
 * (check_journal.c), then ncs_open, whose diagnosis (ncs_inq_open_diag)
 * says why and where a header was refused and which irregularities it let
 * pass, then the chunk index and filter pipeline of each chunked variable
 * (check_index.c), then every inquiry, attribute and value (check_data.c).
 * Each file is checked in a child process, so that a file that makes a
 * library crash (HDF5 is not hardened against hostile files) is reported
 * as defective instead of ending the run.
 *
 * Exit status: 0 every file is good, 1 some file has defects (and every
 * file could be checked), 2 bad usage, or some file could not be checked
 * (missing, unreadable, a netCDF-4 file outside the classic model, HDF5
 * not loadable).
 */
#include "check.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

enum { GOOD = 0, DEFECTIVE = 1, UNCHECKED = 2 };

static int strict;              /* -s: warnings count as defects */

static void msg(const char *fmt, ...) CHECK_PRINTF(1, 2);
static void msg(const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s: ", CHECK_PROG);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

static void report(check_file *c, const char *kind, long long offset, const char *fmt,
                   va_list ap)
{
    if (c->quiet)
        return;
    if (offset >= 0)
        printf("%s: %s at byte %lld: ", c->path, kind, offset);
    else
        printf("%s: %s: ", c->path, kind);
    vprintf(fmt, ap);
    putchar('\n');
}

void check_error(check_file *c, long long offset, const char *fmt, ...)
{
    va_list ap;
    c->errors++;
    va_start(ap, fmt);
    report(c, "error", offset, fmt, ap);
    va_end(ap);
}

void check_warning(check_file *c, long long offset, const char *fmt, ...)
{
    va_list ap;
    c->warnings++;
    va_start(ap, fmt);
    report(c, "warning", offset, fmt, ap);
    va_end(ap);
}

void check_info(check_file *c, const char *fmt, ...)
{
    va_list ap;
    if (c->quiet || !c->verbose)
        return;
    printf("%s: ", c->path);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    putchar('\n');
}

/* A file that could not be checked: said on stderr (not under -q). */
static int unchecked(const check_file *c, const char *fmt, ...) CHECK_PRINTF(2, 3);
static int unchecked(const check_file *c, const char *fmt, ...)
{
    va_list ap;
    if (c->quiet)
        return UNCHECKED;
    fprintf(stderr, "%s: %s: cannot check: ", CHECK_PROG, c->path);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return UNCHECKED;
}

/* Statuses of ncs_open that say nothing about the file's correctness. */
static int cannot_open(int status)
{
    return status > 0 || status == NCS_ENOTFOUND || status == NCS_ENOMEM ||
           status == NCS_ENOTBUILT || status == NCS_EIO;
}

static int verdict(check_file *c)
{
    int bad = c->errors > 0 || (strict && c->warnings > 0);
    if (!c->quiet) {
        if (c->errors == 0 && c->warnings == 0)
            printf("%s: OK\n", c->path);
        else
            printf("%s: %s (%d error%s, %d warning%s)\n", c->path, bad ? "BAD" : "OK",
                   c->errors, c->errors == 1 ? "" : "s", c->warnings,
                   c->warnings == 1 ? "" : "s");
    }
    return bad ? DEFECTIVE : GOOD;
}

static int check_one(check_file *c)
{
    struct stat st;
    char what[512];
    long long offset;
    int ncid, status, j;

    if (stat(c->path, &st) != 0)
        return unchecked(c, "%s", strerror(errno));
    if (!S_ISREG(st.st_mode))
        return unchecked(c, "not a regular file");
    if (access(c->path, R_OK) != 0)
        return unchecked(c, "%s", strerror(errno));
    c->fsize = (unsigned long long)st.st_size;
    j = check_journal(c);
    if (j < 0)
        return UNCHECKED;
    if (j > 0)
        return verdict(c);
    status = ncs_open(c->path, NCS_NOWRITE, &ncid);
    if (status != NCS_NOERR) {
        ncs_inq_open_diag(0, &offset, what, sizeof what);
        if (status == NCS_ENOTBUILT)
            return unchecked(c, "a netCDF-4 file outside the classic data model (groups, "
                             "strings, user-defined types, several unlimited "
                             "dimensions), or HDF5 cannot be loaded (%s)",
                             ncs_strerror(status));
        if (cannot_open(status))
            return unchecked(c, "%s%s%s", what, what[0] ? ": " : "", ncs_strerror(status));
        if (check_hdf5_truncation(c))
            return verdict(c);
        if (what[0])
            check_error(c, offset, "%s (%s)", what, ncs_strerror(status));
        else
            check_error(c, offset, "%s", ncs_strerror(status));
        return verdict(c);
    }
    for (int i = 1; ncs_inq_open_diag(i, &offset, what, sizeof what) == NCS_NOERR; i++)
        check_warning(c, offset, "%s", what);
    check_index(c, ncid);
    check_contents(c, ncid);
    status = ncs_close(ncid);
    if (status != NCS_NOERR)
        check_error(c, -1, "close: %s", ncs_strerror(status));
    return verdict(c);
}

/* Checks one file in a child process; its exit status is the file's. */
static int check_isolated(check_file *c)
{
    pid_t pid;
    int wstatus;
    fflush(stdout);
    fflush(stderr);
    pid = fork();
    if (pid < 0) {
        msg("fork: %s", strerror(errno));
        return check_one(c);
    }
    if (pid == 0) {
        int r = check_one(c);
        fflush(stdout);
        _exit(r);
    }
    while (waitpid(pid, &wstatus, 0) < 0)
        if (errno != EINTR) {
            msg("waitpid: %s", strerror(errno));
            return UNCHECKED;
        }
    if (WIFEXITED(wstatus) && WEXITSTATUS(wstatus) <= UNCHECKED)
        return WEXITSTATUS(wstatus);
    if (!c->quiet) {
        if (WIFSIGNALED(wstatus))
            printf("%s: error: reading the file killed the check with signal %d (%s)\n"
                   "%s: BAD\n", c->path, WTERMSIG(wstatus), strsignal(WTERMSIG(wstatus)),
                   c->path);
        else
            printf("%s: error: the check ended with status %d\n%s: BAD\n", c->path,
                   WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1, c->path);
    }
    return DEFECTIVE;
}

static void usage(FILE *fp)
{
    fprintf(fp,
"usage: %s [-q] [-v] [-s] FILE...\n"
"Checks netCDF files (CDF-1, CDF-2, CDF-5, netCDF-4 classic model): the\n"
"header, every attribute and every value, the chunks and their filters,\n"
"and a leftover redefinition journal.\n"
"  -q          print nothing; the exit status says it all\n"
"  -v          also say what was checked\n"
"  -s          strict: warnings (what readers tolerate) count as defects\n"
"  -h, --help  this text\n"
"      --version\n"
"Exit status: 0 all files good, 1 some file defective, 2 bad usage or some\n"
"file could not be checked.\n", CHECK_PROG);
}

int main(int argc, char **argv)
{
    enum { OPT_VERSION = 256 };
    static const struct option longopts[] = {
        {"help", no_argument, NULL, 'h'},
        {"quiet", no_argument, NULL, 'q'},
        {"verbose", no_argument, NULL, 'v'},
        {"strict", no_argument, NULL, 's'},
        {"version", no_argument, NULL, OPT_VERSION},
        {NULL, 0, NULL, 0},
    };
    int quiet = 0, verbose = 0, ch, worst = GOOD;

    opterr = 0;
    while ((ch = getopt_long(argc, argv, ":qvsh", longopts, NULL)) != -1) {
        switch (ch) {
        case 'q': quiet = 1; break;
        case 'v': verbose = 1; break;
        case 's': strict = 1; break;
        case 'h': usage(stdout); return 0;
        case OPT_VERSION:
            printf("%s %s (libncslab %s)\n", CHECK_PROG, NCS_VERSION, ncs_inq_libvers());
            return 0;
        default:
            if (optopt != 0 && optopt < 256)
                msg("unknown option '-%c' (see -h)", optopt);
            else
                msg("unknown option '%s' (see -h)", argv[optind - 1]);
            return UNCHECKED;
        }
    }
    if (optind == argc) {
        msg("no file to check (see -h)");
        return UNCHECKED;
    }
    signal(SIGPIPE, SIG_DFL);
    for (int i = optind; i < argc; i++) {
        check_file c = {argv[i], quiet, verbose, 0, 0, 0};
        int r = check_isolated(&c);
        if (r > worst)
            worst = r;
    }
    return worst;
}
