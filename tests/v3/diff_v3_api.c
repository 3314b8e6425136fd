/*
 * diff_v3_api.c -- the v3 scenarios of tests/v3/v3scen.c through netCDF-C
 * and through ncslab's v3 layer in one process: every logged status and
 * output must be equal, and every classic file the two sides wrote must
 * be byte-identical.
 *
 * Usage: diff_v3_api [SCENARIO...]   (default: all; names in v3scen.c)
 * Each side writes in its own scratch folder, kept when a check fails.
 */
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "v3scen.h"

void v3log_printf(v3log *log, const char *fmt, ...)
{
    va_list ap;
    for (;;) {
        size_t room = log->cap - log->len;
        va_start(ap, fmt);
        int n = vsnprintf(log->text ? log->text + log->len : NULL, room, fmt, ap);
        va_end(ap);
        if (n < 0)
            return;
        if ((size_t)n + 2 <= room) {
            log->len += (size_t)n;
            log->text[log->len++] = '\n';
            log->text[log->len] = '\0';
            return;
        }
        size_t cap = (log->cap + (size_t)n + 2) * 2;
        char *t = realloc(log->text, cap);
        if (t == NULL) {
            perror("diff_v3_api");
            exit(99);
        }
        log->text = t;
        log->cap = cap;
    }
}

static char *next_line(char **p)
{
    char *s = *p, *e;
    if (s == NULL || *s == '\0')
        return NULL;
    e = strchr(s, '\n');
    if (e != NULL) {
        *e = '\0';
        *p = e + 1;
    } else {
        *p = s + strlen(s);
    }
    return s;
}

/* Where netCDF-C is wrong, doc/v3.md ("Where netCDF-C is wrong") says so
 * with a reproducer; those lines are counted, not failed.
 *   - a write to a read-only netCDF-4 file that reaches HDF5 fails with
 *     NC_EHDFERR in netCDF-C (HDF5 refuses it; doc/v2.md, bug 5), with
 *     NC_EPERM in ncslab;
 *   - nc_put_vlen_element and nc_get_vlen_element of a netCDF-4 file
 *     succeed in netCDF-C whatever the type (the get copies four bytes an
 *     element); ncslab answers NC_EBADTYPE, as the file has no vlen type. */
static int known(const char *nc, const char *ns)
{
    const char *a = strrchr(nc, ':'), *b = strrchr(ns, ':');
    if (a == NULL || b == NULL || a - nc != b - ns || strncmp(nc, ns, (size_t)(a - nc)) != 0)
        return 0;
    if (strstr(nc, "vlen_element") != NULL)
        return strcmp(a, ": 0") == 0 && strcmp(b, ": -45") == 0;
    return (strstr(nc, "readonly") != NULL || strstr(nc, "read-only") != NULL) &&
           strstr(nc, " put") != NULL && strcmp(a, ": -101") == 0 && strcmp(b, ": -37") == 0;
}

static int compare_logs(const char *scen, v3log *a, v3log *b)
{
    char *pa = a->text, *pb = b->text, *la, *lb;
    int diffs = 0, line = 0, notes = 0;
    /* NCSLAB_V3_DUMP=DIR: both logs of each scenario written there */
    const char *dump = getenv("NCSLAB_V3_DUMP");
    if (dump != NULL) {
        char path[1024];
        FILE *fp;
        for (int side = 0; side < 2; side++) {
            snprintf(path, sizeof path, "%s/%s.%s", dump, scen, side ? "ncslab" : "netcdf");
            fp = fopen(path, "w");
            if (fp != NULL) {
                fputs(side ? b->text : a->text, fp);
                fclose(fp);
            }
        }
    }
    for (;;) {
        la = next_line(&pa);
        lb = next_line(&pb);
        if (la == NULL && lb == NULL)
            break;
        line++;
        if (la != NULL && lb != NULL && known(la, lb)) {
            notes++;
            continue;
        }
        if (la == NULL || lb == NULL || strcmp(la, lb) != 0) {
            if (diffs++ < 40)
                printf("MISMATCH %s line %d:\n  netCDF-C: %s\n  ncslab:   %s\n", scen, line,
                       la ? la : "(end)", lb ? lb : "(end)");
        }
    }
    printf("%s: %d lines, %d differ", scen, line, diffs);
    if (notes)
        printf(", %d netCDF-C defects of doc/v3.md's list", notes);
    printf("\n");
    return diffs;
}

static unsigned char *slurp(const char *path, size_t *lenp)
{
    FILE *fp = fopen(path, "rb");
    unsigned char *buf = NULL;
    size_t cap = 0, len = 0;
    if (fp == NULL)
        return NULL;
    for (;;) {
        if (len == cap) {
            cap = cap ? cap * 2 : 4096;
            unsigned char *t = realloc(buf, cap);
            if (t == NULL)
                break;
            buf = t;
        }
        size_t n = fread(buf + len, 1, cap - len, fp);
        if (n == 0)
            break;
        len += n;
    }
    fclose(fp);
    *lenp = len;
    return buf;
}

/* Every classic file of dir a must be byte-identical to dir b's. */
static int compare_files(const char *da, const char *db)
{
    DIR *d = opendir(da);
    struct dirent *e;
    int diffs = 0, n = 0;
    if (d == NULL)
        return 1;
    while ((e = readdir(d)) != NULL) {
        char pa[1024], pb[1024];
        size_t la = 0, lb = 0;
        if (strstr(e->d_name, ".nc") == NULL)
            continue;
        snprintf(pa, sizeof pa, "%s/%s", da, e->d_name);
        snprintf(pb, sizeof pb, "%s/%s", db, e->d_name);
        unsigned char *a = slurp(pa, &la), *b = slurp(pb, &lb);
        if (a != NULL && la >= 3 && memcmp(a, "CDF", 3) == 0) {
            n++;
            if (b == NULL || la != lb || memcmp(a, b, la) != 0) {
                printf("MISMATCH file %s: %zu bytes from netCDF-C, %zu from ncslab%s\n",
                       e->d_name, la, b ? lb : 0, b ? "" : " (missing)");
                diffs++;
            }
        }
        free(a);
        free(b);
    }
    closedir(d);
    printf("classic files: %d compared, %d differ\n", n, diffs);
    return diffs;
}

int main(int argc, char **argv)
{
    char base[] = "/tmp/diff_v3_api.XXXXXX", dnc[64], dns[64];
    int diffs = 0;
    if (mkdtemp(base) == NULL) {
        perror("mkdtemp");
        return 99;
    }
    snprintf(dnc, sizeof dnc, "%s/netcdf", base);
    snprintf(dns, sizeof dns, "%s/ncslab", base);
    if (mkdir(dnc, 0700) != 0 || mkdir(dns, 0700) != 0) {
        perror("mkdir");
        return 99;
    }
    for (int i = 0; i < v3side_netcdf.count; i++) {
        const char *name = v3side_netcdf.names[i];
        int want = argc < 2;
        for (int j = 1; j < argc; j++)
            want |= strcmp(argv[j], name) == 0;
        if (!want)
            continue;
        v3log a = { .dir = dnc }, b = { .dir = dns };
        v3side_netcdf.scenarios[i](&a);
        v3side_ncslab.scenarios[i](&b);
        if (getenv("NCSLAB_V3_TRACE"))
            fputs(b.text ? b.text : "", stdout);
        diffs += compare_logs(name, &a, &b);
        free(a.text);
        free(b.text);
    }
    diffs += compare_files(dnc, dns);
    if (diffs == 0) {
        char cmd[128];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", base);
        if (system(cmd) != 0)
            fprintf(stderr, "diff_v3_api: could not remove %s\n", base);
    } else {
        printf("files kept in %s\n", base);
    }
    return diffs ? 1 : 0;
}
