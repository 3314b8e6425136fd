/*
 * scanbench.c -- the row-major scan benchmark: GVRS C and ncslab read the
 * same grid of shorts cell by cell, interleaved in one run, each engine in
 * a process of its own (doc/performance.md, "Row-major scan against GVRS
 * C"; run it through scripts/scanbench, which also builds the GVRS engine).
 *
 *   scanbench [--size ROWSxCOLS] [--passes N] [--dir DIR [--reuse]] [--bindir DIR]
 *             [--gvrs-engine PATH]
 *
 * The engines are programs of their own (scan_engine.h): each links one
 * library only, so its peak resident set is what that library costs a
 * program.  First every engine writes its file (timed apart, with its
 * size) and reads it back once, every cell compared with the terrain
 * (terrain.h).  Then come the passes: pass 1 of every engine, pass 2 of
 * every engine, and so on, every other pass in reverse order so that no
 * engine always runs right after the same neighbour; each pass is a new
 * process that opens the file, runs the row-major loop (one call per
 * cell, summing) and closes it.  The sum of every pass is checked against
 * the terrain's.  Reported per engine: the median pass's rate and time,
 * the spread of the passes, the rate per CPU second (on a loaded machine
 * the steadier figure), the open-to-close time, the largest peak RSS and
 * the rate over GVRS uncompressed's, then issue 17's targets, judged on
 * the wall-clock rates, with "met" or "NOT met".
 *
 * With --reuse the files of DIR are kept at the end, and a file already
 * there is read back and checked instead of written again (the GVRS
 * compressed writer takes minutes on the full grid); a file of another
 * size or other values fails that check.
 *
 * Exit status: 0 when every engine ran and read the right values (a
 * target not met is reported, not failed), 1 otherwise, 2 for bad usage.
 * Without --gvrs-engine the GVRS engines and the targets that need them
 * are skipped.
 */
#include "terrain.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_PASSES 25

enum { E_GVRS, E_GVRSZ, E_NCS_CLASSIC, E_NCS_CHUNKED, E_NCS_DEFLATE, E_V2_CLASSIC,
       E_V2_CHUNKED, E_MEMORY, E_COUNT };

typedef struct {
    const char *label;
    const char *program;        /* under --bindir, or the GVRS engine */
    const char *layout;
    char exe[4096], file[4096];
    int skip, failed;
    double write_s;
    long long bytes;
    double loop_s[MAX_PASSES], cpu_s[MAX_PASSES], total_s[MAX_PASSES];
    long peak_kib;
} engine;

static engine engines[E_COUNT] = {
    [E_GVRS] = { "GVRS C, uncompressed", NULL, "plain" },
    [E_GVRSZ] = { "GVRS C, compressed", NULL, "compressed" },
    [E_NCS_CLASSIC] = { "ncs_get1, CDF-1", "scan_ncs", "classic" },
    [E_NCS_CHUNKED] = { "ncs_get1, chunked", "scan_ncs", "chunked" },
    [E_NCS_DEFLATE] = { "ncs_get1, chunked+deflate", "scan_ncs", "deflate" },
    [E_V2_CLASSIC] = { "ncvarget1, CDF-1", "scan_v2", "classic" },
    [E_V2_CHUNKED] = { "ncvarget1, chunked", "scan_v2", "chunked" },
    [E_MEMORY] = { "memory, plain loop", "scan_memory", "array" },
};

static int usage(void)
{
    fprintf(stderr, "usage: scanbench [--size ROWSxCOLS] [--passes N] [--dir DIR [--reuse]] "
            "[--bindir DIR] [--gvrs-engine PATH]\n");
    return 2;
}

/* Runs the engine with one command and reads the line it prints into
 * out; 0 when it exited 0 and printed a line. */
static int run(engine *e, const char *command, const char *size, char *out, size_t outlen)
{
    int fds[2], wstatus;
    ssize_t n, got = 0;
    pid_t pid;
    fflush(stdout);
    if (pipe(fds) != 0 || (pid = fork()) < 0) {
        fprintf(stderr, "scanbench: cannot start %s: %s\n", e->exe, strerror(errno));
        return -1;
    }
    if (pid == 0) {
        close(fds[0]);
        if (dup2(fds[1], 1) < 0)
            _exit(127);
        close(fds[1]);
        execl(e->exe, e->exe, e->layout, command, e->file, size, (char *)NULL);
        fprintf(stderr, "scanbench: cannot run %s: %s\n", e->exe, strerror(errno));
        _exit(127);
    }
    close(fds[1]);
    while (got < (ssize_t)outlen - 1 && (n = read(fds[0], out + got, outlen - 1 - (size_t)got)) > 0)
        got += n;
    out[got] = '\0';
    close(fds[0]);
    if (waitpid(pid, &wstatus, 0) < 0 || !WIFEXITED(wstatus) || WEXITSTATUS(wstatus) != 0) {
        fprintf(stderr, "scanbench: %s (%s %s) failed\n", e->label, e->layout, command);
        return -1;
    }
    return got > 0 ? 0 : -1;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(const double *v, int n)
{
    double s[MAX_PASSES];
    memcpy(s, v, sizeof(double) * (size_t)n);
    qsort(s, (size_t)n, sizeof(double), cmp_double);
    return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

static double max_of(const double *v, int n)
{
    double m = v[0];
    for (int i = 1; i < n; i++)
        m = v[i] > m ? v[i] : m;
    return m;
}

static double min_of(const double *v, int n)
{
    double m = v[0];
    for (int i = 1; i < n; i++)
        m = v[i] < m ? v[i] : m;
    return m;
}

static int usable(int i)
{
    return !engines[i].skip && !engines[i].failed;
}

/* The target on the wall-clock rates, and the same ratio per CPU second. */
static void target_rate(const char *what, int i, int ref, double want, const double *rate,
                        const double *cpu)
{
    if (!usable(i) || !usable(ref)) {
        printf("  %-58s not measured\n", what);
        return;
    }
    printf("  %-58s %5.2fx  %-7s (per CPU second %.2fx)\n", what, rate[i] / rate[ref],
           rate[i] >= want * rate[ref] ? "met" : "NOT met", cpu[i] / cpu[ref]);
}

int main(int argc, char **argv)
{
    const char *dir = NULL, *bindir = NULL, *gvrs = NULL;
    char size[64] = "10800x21600", tmpl[4096], line[512], *end;
    long rows = 10800, cols = 21600;
    int passes = 5, bad = 0, made_dir = 0, reuse = 0;
    double rate[E_COUNT] = { 0 }, cpu[E_COUNT] = { 0 };
    int64_t want;
    ti_terrain t;

    /* the progress lines reach a pipe (| tee) as they happen */
    setvbuf(stdout, NULL, _IOLBF, 0);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--reuse") == 0) {
            reuse = 1;
            continue;
        }
        if (i + 1 >= argc)
            return usage();
        if (strcmp(argv[i], "--size") == 0) {
            rows = strtol(argv[++i], &end, 10);
            if (end == argv[i] || (*end != 'x' && *end != 'X'))
                return usage();
            cols = strtol(end + 1, &end, 10);
            if (*end != '\0' || rows < 2 || cols < 2 || rows > (1L << 20) || cols > (1L << 20)) {
                fprintf(stderr, "scanbench: --size wants ROWSxCOLS, each 2 to 1048576\n");
                return 2;
            }
            snprintf(size, sizeof size, "%ldx%ld", rows, cols);
        } else if (strcmp(argv[i], "--passes") == 0) {
            passes = (int)strtol(argv[++i], &end, 10);
            if (*end != '\0' || passes < 1 || passes > MAX_PASSES) {
                fprintf(stderr, "scanbench: --passes wants 1 to %d\n", MAX_PASSES);
                return 2;
            }
        } else if (strcmp(argv[i], "--dir") == 0) {
            dir = argv[++i];
        } else if (strcmp(argv[i], "--bindir") == 0) {
            bindir = argv[++i];
        } else if (strcmp(argv[i], "--gvrs-engine") == 0) {
            gvrs = argv[++i];
        } else {
            return usage();
        }
    }
    if (bindir == NULL) {
        /* the engines are built next to this program */
        static char here[4096];
        snprintf(here, sizeof here, "%s", argv[0]);
        end = strrchr(here, '/');
        if (end != NULL)
            *end = '\0';
        bindir = end != NULL ? here : ".";
    }
    if (reuse && dir == NULL) {
        fprintf(stderr, "scanbench: --reuse needs --dir\n");
        return 2;
    }
    if (dir == NULL) {
        const char *tmp = getenv("TMPDIR");
        snprintf(tmpl, sizeof tmpl, "%s/scanbench.XXXXXX", tmp != NULL && *tmp ? tmp : "/tmp");
        if ((dir = mkdtemp(tmpl)) == NULL) {
            fprintf(stderr, "scanbench: cannot make %s: %s\n", tmpl, strerror(errno));
            return 1;
        }
        made_dir = 1;
    } else {
        /* checked once here, not by every engine's failed write */
        struct stat st;
        const char *why = stat(dir, &st) != 0 ? strerror(errno)
                          : !S_ISDIR(st.st_mode) ? "not a folder" : NULL;
        if (why != NULL) {
            fprintf(stderr, "scanbench: --dir %s: %s\n", dir, why);
            return 2;
        }
    }
    if (ti_terrain_init(&t, rows, cols) != 0 || ti_terrain_sum(&t, &want) != 0) {
        fprintf(stderr, "scanbench: out of memory\n");
        return 1;
    }
    ti_terrain_free(&t);

    for (int i = 0; i < E_COUNT; i++) {
        engine *e = &engines[i];
        int n1, n2;
        e->skip = e->program == NULL && gvrs == NULL;
        if (e->program == NULL)
            n1 = snprintf(e->exe, sizeof e->exe, "%s", gvrs != NULL ? gvrs : "");
        else
            n1 = snprintf(e->exe, sizeof e->exe, "%s/%s", bindir, e->program);
        n2 = snprintf(e->file, sizeof e->file, "%s/scan_%s_%s.%s", dir,
                      e->program != NULL ? e->program + 5 : "gvrs", e->layout,
                      e->program != NULL ? "nc" : "gvrs");
        if (n1 < 0 || (size_t)n1 >= sizeof e->exe || n2 < 0 || (size_t)n2 >= sizeof e->file) {
            fprintf(stderr, "scanbench: path too long: %s\n", n2 < 0 || (size_t)n2 >=
                    sizeof e->file ? dir : bindir);
            return 2;
        }
    }

    printf("scanbench: %s grid of shorts (synthetic terrain), every cell read by one call, "
           "row by row,\n           summing; %d passes, interleaved; expected sum %lld; files "
           "in %s\n", size, passes, (long long)want, dir);
    if (gvrs == NULL)
        printf("           GVRS engines skipped: no --gvrs-engine (scripts/scanbench --gvrs DIR)\n");

    /* write and check every file before any pass */
    for (int i = 0; i < E_COUNT; i++) {
        engine *e = &engines[i];
        struct stat st;
        if (e->skip)
            continue;
        if (reuse && stat(e->file, &st) == 0) {
            e->write_s = -1;
            e->bytes = (long long)st.st_size;
        } else {
            unlink(e->file);
            if (run(e, "write", size, line, sizeof line) != 0 ||
                sscanf(line, "write %lf %lld", &e->write_s, &e->bytes) != 2)
                e->failed = 1;
        }
        if (!e->failed && (run(e, "verify", size, line, sizeof line) != 0 ||
                           strncmp(line, "verify ok", 9) != 0)) {
            e->failed = 1;
            if (e->write_s < 0)
                fprintf(stderr, "scanbench: %s was reused: a file of another grid? (remove "
                        "it, or run without --reuse)\n", e->file);
        }
        if (e->failed)
            continue;
        if (i == E_MEMORY)
            printf("  %-27s no file (each pass builds its array); every cell checked\n",
                   e->label);
        else if (e->write_s < 0)
            printf("  %-27s reused   %8.1f MiB; every cell read back and checked\n", e->label,
                   (double)e->bytes / 1048576.0);
        else
            printf("  %-27s wrote %8.1f MiB in %7.2f s; every cell read back and checked\n",
                   e->label, (double)e->bytes / 1048576.0, e->write_s);
    }
    for (int p = 0; p < passes; p++) {
        for (int k = 0; k < E_COUNT; k++) {
            int i = p % 2 ? E_COUNT - 1 - k : k;
            engine *e = &engines[i];
            long long sum;
            long kib;
            if (!usable(i))
                continue;
            if (run(e, "scan", size, line, sizeof line) != 0 ||
                sscanf(line, "scan %lf %lf %lf %lld %ld", &e->loop_s[p], &e->cpu_s[p],
                       &e->total_s[p], &sum, &kib) != 5) {
                e->failed = 1;
                continue;
            }
            if (sum != (long long)want) {
                fprintf(stderr, "scanbench: %s: pass %d summed %lld, expected %lld\n", e->label,
                        p + 1, sum, (long long)want);
                e->failed = 1;
            }
            if (kib > e->peak_kib)
                e->peak_kib = kib;
        }
        printf("  pass %d of %d done\n", p + 1, passes);
    }

    printf("\n%-27s %8s %7s %9s %6s %7s %7s %7s %8s %7s\n", "engine", "file MiB", "write s",
           "M reads/s", "spread", "cpu M/s", "scan s", "total s", "peak MiB", "x GVRS");
    for (int i = 0; i < E_COUNT; i++)
        if (usable(i)) {
            rate[i] = (double)rows * (double)cols / median(engines[i].loop_s, passes) / 1e6;
            cpu[i] = (double)rows * (double)cols / median(engines[i].cpu_s, passes) / 1e6;
        }
    for (int i = 0; i < E_COUNT; i++) {
        engine *e = &engines[i];
        char ratio[16] = "n/a", written[16] = "reused";
        if (e->skip) {
            printf("%-27s skipped (no GVRS tree)\n", e->label);
            continue;
        }
        if (e->failed) {
            printf("%-27s FAILED\n", e->label);
            bad = 1;
            continue;
        }
        if (usable(E_GVRS))
            snprintf(ratio, sizeof ratio, "%.2f", rate[i] / rate[E_GVRS]);
        if (e->write_s >= 0)
            snprintf(written, sizeof written, "%.2f", e->write_s);
        printf("%-27s %8.1f %7s %9.1f %5.0f%% %7.1f %7.3f %7.3f %8.1f %7s\n", e->label,
               (double)e->bytes / 1048576.0, written, rate[i],
               100 * (max_of(e->loop_s, passes) / min_of(e->loop_s, passes) - 1),
               cpu[i],
               median(e->loop_s, passes), median(e->total_s, passes),
               (double)e->peak_kib / 1024.0, ratio);
    }
    printf("M reads/s and scan s: the median pass's row-major loop; spread: its slowest pass "
           "over its\nfastest, less 1; cpu M/s: reads per CPU second of the loop (the rate with "
           "a core to\nitself); total s: open, loop and close; peak MiB: the largest VmHWM of a "
           "scanning\nprocess; x GVRS: rate over GVRS C uncompressed's (above 1 is faster)\n"
           "\ntargets (issue 17), this run (wall-clock rates):\n");
    target_rate("native ncs_get1, CDF-1: >= 1.2x GVRS", E_NCS_CLASSIC, E_GVRS, 1.2, rate, cpu);
    target_rate("native ncs_get1, chunked 120x180: >= 1.2x GVRS", E_NCS_CHUNKED, E_GVRS, 1.2,
                rate, cpu);
    target_rate("v2 ncvarget1, CDF-1: >= 1.0x GVRS", E_V2_CLASSIC, E_GVRS, 1.0, rate, cpu);
    target_rate("v2 ncvarget1, chunked: >= 1.0x GVRS", E_V2_CHUNKED, E_GVRS, 1.0, rate, cpu);
    target_rate("chunked+deflate faster than GVRS compressed", E_NCS_DEFLATE, E_GVRSZ, 1.0, rate,
                cpu);
    if (usable(E_NCS_CLASSIC) && usable(E_GVRS)) {
        double d = (double)(engines[E_NCS_CLASSIC].peak_kib - engines[E_GVRS].peak_kib) / 1024.0;
        printf("  %-58s %+5.1f MiB  %s\n", "CDF-1 scan peak RSS within 2 MiB of GVRS's", d,
               d <= 2.0 ? "met" : "NOT met");
    } else {
        printf("  %-58s not measured\n", "CDF-1 scan peak RSS within 2 MiB of GVRS's");
    }
    if (usable(E_NCS_CHUNKED) && usable(E_GVRS) && engines[E_GVRS].peak_kib > 0) {
        double q = (double)engines[E_NCS_CHUNKED].peak_kib / (double)engines[E_GVRS].peak_kib;
        printf("  %-58s %5.2fx  %s\n", "chunked scan peak RSS within 2x GVRS's", q,
               q <= 2.0 ? "met" : "NOT met");
    } else {
        printf("  %-58s not measured\n", "chunked scan peak RSS within 2x GVRS's");
    }

    for (int i = 0; i < E_COUNT && !reuse; i++)
        if (!engines[i].skip)
            unlink(engines[i].file);
    if (made_dir)
        rmdir(dir);
    return bad;
}
