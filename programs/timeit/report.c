/*
 * report.c -- what the suite prints: the 1992 line format per engine, the
 * side-by-side table, the layouts table, the CSV rows and the chart.
 *
 * A ratio is an engine's time divided by netCDF-C classic's for the same
 * test (below 1: faster than netCDF-C).  An engine that is not available
 * shows "n/a" and never a number.
 */
#include "suite.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *op_name(int op)
{
    return op == TI_GET ? "ncvarget" : op == TI_PUT ? "ncvarput" : "put+sync";
}

static double ratio(const ti_suite *s, int e, int t, int k)
{
    if (s->reference < 0)
        return NAN;
    return TI_USEC(s, e, t, k) / TI_USEC(s, s->reference, t, k);
}

void ti_fmt_usec(double usec, char *out, size_t outlen)
{
    if (isnan(usec))
        snprintf(out, outlen, "n/a");
    else if (usec >= 1e7)
        snprintf(out, outlen, "%.3g", usec);
    else if (usec >= 1000)
        snprintf(out, outlen, "%.0f", usec);
    else if (usec >= 10)
        snprintf(out, outlen, "%.1f", usec);
    else
        snprintf(out, outlen, "%.2f", usec);
}

static void var_title(const ti_suite *s, int t, char *out, size_t outlen)
{
    const ti_options *o = s->o;
    size_t used = (size_t)snprintf(out, outlen, "%s_var(", o->types[t]->name);
    for (int d = 0; d < o->ndims && used < outlen; d++)
        used += (size_t)snprintf(out + used, outlen - used, "%s%ld", d ? "," : "", o->dims[d]);
    if (used < outlen)
        snprintf(out + used, outlen - used, ")");
}

void ti_report_block(const ti_suite *s, int t)
{
    char title[128];
    var_title(s, t, title, sizeof title);
    for (int e = 0; e < s->nengines; e++) {
        if (!ti_engine_available(&s->engines[e]))
            continue;
        printf("\n%35s%s\n----- %s\n", "", s->engines[e].label, title);
        for (int k = 0; k < s->ntests; k++) {
            double us = TI_USEC(s, e, t, k), r = ratio(s, e, t, k);
            /* the 1992 format; sub-microsecond calls get the digits they need */
            printf("time for %s %-15s%12.*f usec, %8.0f/sec", op_name(s->tests[k].op),
                   s->tests[k].label, us >= 100 ? 1 : 3, us, 1e6 / us);
            if (!isnan(r))
                printf("   %5.2f x netCDF-C classic", r);
            putchar('\n');
        }
    }
    fflush(stdout);
}

int ti_table_type(const ti_suite *s)
{
    const ti_options *o = s->o;
    const char *want = o->table_type ? o->table_type : "float";
    for (int t = 0; t < o->ntypes; t++)
        if (strcmp(o->types[t]->name, want) == 0)
            return t;
    return 0;
}

/* Geometric mean of an engine's ratios over the tests of type t (t < 0:
 * all types), restricted to one op (op < 0: gets and puts; put+sync is
 * left out, so the means stay comparable with runs before it existed). */
static double geomean_ratio(const ti_suite *s, int e, int t, int op)
{
    double sum = 0;
    int n = 0;
    for (int tt = 0; tt < s->o->ntypes; tt++) {
        if (t >= 0 && tt != t)
            continue;
        for (int k = 0; k < s->ntests; k++) {
            double r = ratio(s, e, tt, k);
            int kop = s->tests[k].op;
            if ((op < 0 ? kop != TI_PUTSYNC : kop == op) && !isnan(r) && r > 0) {
                sum += log(r);
                n++;
            }
        }
    }
    return n ? exp(sum / n) : NAN;
}

#define CELL 17

static void cell(FILE *out, double us, double r)
{
    char num[32], buf[48];
    ti_fmt_usec(us, num, sizeof num);
    if (isnan(us))
        snprintf(buf, sizeof buf, "n/a");
    else if (isnan(r))
        snprintf(buf, sizeof buf, "%s", num);
    else
        snprintf(buf, sizeof buf, "%s %5.2f", num, r);
    fprintf(out, "%*s", CELL, buf);
}

void ti_report_table(const ti_suite *s, FILE *out)
{
    int t = ti_table_type(s);
    char title[128];
    var_title(s, t, title, sizeof title);
    fprintf(out, "\nSide by side: %s, microseconds per call and ratio to netCDF-C classic\n"
            "(median of interleaved batches; below 1.00 is faster than netCDF-C)\n\n", title);
    /* two header lines: the library (and "chunks"), then the format or
     * the chunk shape */
    fprintf(out, "%-26s", "");
    for (int e = 0; e < s->nengines; e++) {
        char head[64];
        snprintf(head, sizeof head, "%s%s", s->engines[e].lib->name,
                 s->engines[e].layout.kind == TI_CHUNKED ? " chunks" : "");
        fprintf(out, " %*s", CELL - 1, head);
    }
    fprintf(out, "\n%-26s", "call     shape");
    for (int e = 0; e < s->nengines; e++) {
        const char *l = s->engines[e].layout.label;
        fprintf(out, " %*s", CELL - 1, strncmp(l, "chunks ", 7) == 0 ? l + 7 : l);
    }
    fputc('\n', out);
    for (int k = 0; k < s->ntests; k++) {
        fprintf(out, "%-8s %-17s", op_name(s->tests[k].op), s->tests[k].label);
        for (int e = 0; e < s->nengines; e++)
            cell(out, TI_USEC(s, e, t, k), ratio(s, e, t, k));
        fputc('\n', out);
    }
    for (int pass = 0; pass < 2; pass++) {
        fprintf(out, "%-26s", pass == 0 ? "geomean ratio, this type" : "geomean ratio, all types");
        for (int e = 0; e < s->nengines; e++) {
            double g = geomean_ratio(s, e, pass == 0 ? t : -1, -1);
            char buf[32];
            snprintf(buf, sizeof buf, isnan(g) ? "n/a" : "%.2f", g);
            fprintf(out, "%*s", CELL, buf);
        }
        fputc('\n', out);
    }
    fprintf(out, "%-26s", "file size (bytes)");
    for (int e = 0; e < s->nengines; e++) {
        char buf[32];
        if (ti_engine_available(&s->engines[e]))
            snprintf(buf, sizeof buf, "%lld", s->engines[e].file_size);
        else
            snprintf(buf, sizeof buf, "n/a");
        fprintf(out, "%*s", CELL, buf);
    }
    fputc('\n', out);
}

void ti_report_layouts(const ti_suite *s, FILE *out)
{
    int t = ti_table_type(s);
    char title[128];
    var_title(s, t, title, sizeof title);
    fprintf(out, "\nLayouts: %s, ncvarget microseconds per call by access shape; file size;\n"
            "geometric mean of the ratios to netCDF-C classic over the gets and the puts\n\n",
            title);
    fprintf(out, "%-34s%11s", "engine layout", "file bytes");
    for (int k = 0; k < s->ntests; k++)
        if (s->tests[k].op == TI_GET)
            fprintf(out, " %9s", s->tests[k].shape);
    fprintf(out, " %7s %7s\n", "get", "put");
    for (int e = 0; e < s->nengines; e++) {
        const ti_engine *eng = &s->engines[e];
        char size[32];
        if (ti_engine_available(eng))
            snprintf(size, sizeof size, "%lld", eng->file_size);
        else
            snprintf(size, sizeof size, "n/a");
        fprintf(out, "%-34s%11s", eng->label, size);
        for (int k = 0; k < s->ntests; k++)
            if (s->tests[k].op == TI_GET) {
                char num[32];
                ti_fmt_usec(TI_USEC(s, e, t, k), num, sizeof num);
                fprintf(out, " %9s", num);
            }
        for (int op = TI_GET; op <= TI_PUT; op++) {
            double g = geomean_ratio(s, e, t, op);
            char buf[32];
            snprintf(buf, sizeof buf, isnan(g) ? "n/a" : "%.2f", g);
            fprintf(out, " %7s", buf);
        }
        fputc('\n', out);
    }
}

void ti_report_csv(const ti_suite *s, FILE *csv)
{
    const ti_options *o = s->o;
    for (int e = 0; e < s->nengines; e++) {
        const ti_engine *eng = &s->engines[e];
        for (int t = 0; t < o->ntypes; t++)
            for (int k = 0; k < s->ntests; k++) {
                double us = TI_USEC(s, e, t, k), r = ratio(s, e, t, k);
                size_t bytes = ti_nelems(o->ndims, s->tests[k].count) * o->types[t]->size;
                fprintf(csv, "%s,%s,%s,%s,%s,", eng->lib->name, eng->layout.label,
                        o->types[t]->name, op_name(s->tests[k].op), s->tests[k].shape);
                if (isnan(us))
                    fprintf(csv, "n/a,n/a,%zu,n/a,n/a,\n", bytes);
                else
                    fprintf(csv, "%.3f,%.1f,%zu,%.4f,%lld,\n", us, 1e6 / us, bytes,
                            isnan(r) ? 0.0 : r, eng->file_size);
            }
    }
}

int ti_report_svg(const ti_suite *s, const char *path)
{
    int t = ti_table_type(s), maxg = (s->ntests + 1) / 2;
    const char *series[TI_MAX_ENGINES], *groups[TI_MAX_TESTS];
    double *values = malloc(sizeof(double) * (size_t)s->nengines * (size_t)maxg);
    char title[256], var[128];
    ti_svg *svg;
    if (values == NULL)
        return -1;
    var_title(s, t, var, sizeof var);
    snprintf(title, sizeof title, "timeit: %s, microseconds per call (log scale, lower is faster)",
             var);
    /* blues for ncslab, oranges for netCDF-C (either release), green for
     * PnetCDF, grey for the floor: the libraries read apart at a glance,
     * their layouts by shade */
    static const char *blues[] = { "#08306b", "#2171b5", "#6baed6", "#9ecae1", "#c6dbef" };
    static const char *oranges[] = { "#7f2704", "#d94801", "#fd8d3c", "#fdae6b", "#fdd0a2" };
    const char *colors[TI_MAX_ENGINES];
    int nblue = 0, norange = 0;
    for (int e = 0; e < s->nengines; e++) {
        const ti_lib *lib = s->engines[e].lib;
        series[e] = s->engines[e].label;
        if (lib == &ti_lib_netcdf || lib == TI_NETCDF2)
            colors[e] = oranges[norange++ % 5];
        else if (lib == TI_PNETCDF)
            colors[e] = "#238b45";
        else if (lib == &ti_lib_memory)
            colors[e] = "#737373";
        else
            colors[e] = blues[nblue++ % 5];
    }
    svg = ti_svg_open(path, title, 2, maxg, s->nengines, series, colors);
    if (svg == NULL) {
        free(values);
        return -1;
    }
    for (int op = TI_GET; op <= TI_PUT; op++) {
        int ng = 0;
        for (int k = 0; k < s->ntests; k++)
            if (s->tests[k].op == op)
                groups[ng++] = k == 0 ? "whole var" : s->tests[k].shape;
        for (int e = 0; e < s->nengines; e++) {
            int g = 0;
            for (int k = 0; k < s->ntests; k++)
                if (s->tests[k].op == op)
                    values[(size_t)e * (size_t)ng + (size_t)g++] = TI_USEC(s, e, t, k);
        }
        ti_svg_panel(svg, op == TI_GET ? "ncvarget" : "ncvarput", "usec per call", ng, groups,
                     values);
    }
    free(values);
    return ti_svg_close(svg);
}
