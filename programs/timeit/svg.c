/*
 * svg.c -- a hand-written SVG grouped bar chart on a log scale.
 *
 * The chart is built in memory (panels first, so that the legend can mark
 * the series that have no bar at all as n/a) and written on close.  Every
 * bar carries a <title> with its exact value, shown as a tooltip.
 */
#include "timeit.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define LEFT 80
#define RIGHT 20
#define PLOT_H 220
#define PANEL_TITLE 26
#define XLABELS 64
#define LEGEND_ROW 18

struct ti_svg {
    char *path, *title;
    int npanels, maxgroups, nseries, panels_done, barw, groupw, legend_rows, per_row;
    const char *const *series;
    const char *const *colors;
    int *has_bar;               /* per series */
    char *body;                 /* the panels' markup */
    size_t len, cap;
    int failed;
};

static const char *palette[] = {
    "#1f77b4", "#aec7e8", "#17becf", "#9edae5", "#ff7f0e", "#ffbb78",
    "#d62728", "#ff9896", "#7f7f7f", "#2ca02c", "#98df8a", "#9467bd",
};
#define NPALETTE (int)(sizeof palette / sizeof palette[0])

static void emit(ti_svg *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void emit(ti_svg *s, const char *fmt, ...)
{
    va_list ap;
    int n;
    va_start(ap, fmt);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || s->failed)
        return;
    if (s->len + (size_t)n + 1 > s->cap) {
        size_t cap = (s->cap ? s->cap * 2 : 65536) + (size_t)n;
        char *p = realloc(s->body, cap);
        if (p == NULL) {
            s->failed = 1;
            return;
        }
        s->body = p;
        s->cap = cap;
    }
    va_start(ap, fmt);
    vsnprintf(s->body + s->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    s->len += (size_t)n;
}

/* XML-safe copy of a label (the labels are ours, but shapes hold 'x' only
 * and engine names could one day hold '&'). */
static const char *esc(const char *in, char *out, size_t outlen)
{
    size_t o = 0;
    for (; *in && o + 6 < outlen; in++) {
        const char *rep = *in == '&' ? "&amp;" : *in == '<' ? "&lt;" : *in == '>' ? "&gt;" : NULL;
        if (rep) {
            memcpy(out + o, rep, strlen(rep));
            o += strlen(rep);
        } else {
            out[o++] = *in;
        }
    }
    out[o] = '\0';
    return out;
}

static const char *color(const ti_svg *s, int e)
{
    return s->colors ? s->colors[e] : palette[e % NPALETTE];
}

static int width_of(const ti_svg *s)
{
    return LEFT + s->maxgroups * s->groupw + RIGHT;
}

static int top_of_panels(const ti_svg *s)
{
    return 34 + s->legend_rows * LEGEND_ROW + 8;
}

ti_svg *ti_svg_open(const char *path, const char *title, int npanels, int maxgroups,
                    int nseries, const char *const *series, const char *const *colors)
{
    ti_svg *s = calloc(1, sizeof *s);
    if (s == NULL)
        return NULL;
    s->path = strdup(path);
    s->title = strdup(title);
    s->has_bar = calloc((size_t)nseries + 1, sizeof(int));
    if (s->path == NULL || s->title == NULL || s->has_bar == NULL) {
        free(s->path);
        free(s->title);
        free(s->has_bar);
        free(s);
        return NULL;
    }
    s->npanels = npanels;
    s->maxgroups = maxgroups;
    s->nseries = nseries;
    s->series = series;
    s->colors = colors;
    s->barw = nseries > 0 ? 84 / nseries : 10;
    s->barw = s->barw < 3 ? 3 : s->barw > 12 ? 12 : s->barw;
    s->groupw = nseries * s->barw + 14;
    s->per_row = (width_of(s) - LEFT) / 260;
    s->per_row = s->per_row < 1 ? 1 : s->per_row;
    s->legend_rows = (nseries + s->per_row - 1) / s->per_row;
    return s;
}

static void decade_label(int k, char *out, size_t outlen)
{
    if (k < 0)
        snprintf(out, outlen, "%.*f", -k, pow(10, k));
    else if (k <= 6)
        snprintf(out, outlen, "%.0f", pow(10, k));
    else
        snprintf(out, outlen, "1e%d", k);
}

void ti_svg_panel(ti_svg *s, const char *title, const char *axis, int ngroups,
                  const char *const *groups, const double *values)
{
    int top = top_of_panels(s) + s->panels_done * (PANEL_TITLE + PLOT_H + XLABELS);
    int y0 = top + PANEL_TITLE, plotw = s->maxgroups * s->groupw, lo, hi;
    double vmin = INFINITY, vmax = 0;
    char buf[256];
    s->panels_done++;
    for (int i = 0; i < s->nseries * ngroups; i++)
        if (values[i] > 0 && isfinite(values[i])) {
            vmin = values[i] < vmin ? values[i] : vmin;
            vmax = values[i] > vmax ? values[i] : vmax;
        }
    emit(s, "<text x=\"%d\" y=\"%d\" class=\"pt\">%s</text>\n", LEFT, top + 17,
         esc(title, buf, sizeof buf));
    if (vmax == 0) {
        emit(s, "<text x=\"%d\" y=\"%d\">no data</text>\n", LEFT + 10, y0 + PLOT_H / 2);
        return;
    }
    lo = (int)floor(log10(vmin));
    hi = (int)ceil(log10(vmax));
    if (hi <= lo)
        hi = lo + 1;
    /* decade grid and axis */
    for (int k = lo; k <= hi; k++) {
        double y = y0 + PLOT_H - (double)(k - lo) / (hi - lo) * PLOT_H;
        char lab[32];
        decade_label(k, lab, sizeof lab);
        emit(s, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" class=\"grid\"/>\n", LEFT, y,
             LEFT + plotw, y);
        emit(s, "<text x=\"%d\" y=\"%.1f\" class=\"yl\">%s</text>\n", LEFT - 6, y + 4, lab);
    }
    emit(s, "<text transform=\"translate(16,%d) rotate(-90)\" class=\"ax\">%s</text>\n",
         y0 + PLOT_H / 2, esc(axis, buf, sizeof buf));
    for (int g = 0; g < ngroups; g++) {
        int gx = LEFT + g * s->groupw + 7;
        for (int e = 0; e < s->nseries; e++) {
            double v = values[(size_t)e * (size_t)ngroups + (size_t)g];
            double h;
            if (!(v > 0 && isfinite(v)))
                continue;
            s->has_bar[e] = 1;
            h = (log10(v) - lo) / (hi - lo) * PLOT_H;
            h = h < 1 ? 1 : h;
            emit(s, "<rect x=\"%d\" y=\"%.1f\" width=\"%d\" height=\"%.1f\" fill=\"%s\">"
                 "<title>%s %s: %.4g usec</title></rect>\n",
                 gx + e * s->barw, y0 + PLOT_H - h, s->barw - 1, h, color(s, e),
                 esc(s->series[e], buf, sizeof buf), groups[g], v);
        }
        emit(s, "<text transform=\"translate(%d,%d) rotate(-35)\" class=\"xl\">%s</text>\n",
             gx + s->nseries * s->barw / 2 + 4, y0 + PLOT_H + 14, esc(groups[g], buf, sizeof buf));
    }
    emit(s, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" class=\"axis\"/>\n", LEFT,
         y0 + PLOT_H, LEFT + plotw, y0 + PLOT_H);
}

int ti_svg_close(ti_svg *s)
{
    FILE *f = s->failed ? NULL : fopen(s->path, "w");
    int w = width_of(s), h = top_of_panels(s) + s->npanels * (PANEL_TITLE + PLOT_H + XLABELS) + 10;
    int status = 0;
    char buf[256];
    if (f == NULL) {
        status = -1;
        if (s->failed)
            errno = ENOMEM;
        goto cleanup;
    }
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
            "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"11\">\n", w, h, w, h);
    fprintf(f, "<style>.t{font-size:14px;font-weight:bold}.pt{font-size:12px;font-weight:bold}"
            ".grid{stroke:#ddd}.axis{stroke:#333}.yl{text-anchor:end;fill:#333}"
            ".xl{text-anchor:end;fill:#333}.ax{text-anchor:middle;fill:#333}</style>\n");
    fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
    fprintf(f, "<text x=\"%d\" y=\"20\" class=\"t\">%s</text>\n", LEFT, esc(s->title, buf, sizeof buf));
    for (int e = 0; e < s->nseries; e++) {
        int x = LEFT + (e % s->per_row) * 260, y = 34 + (e / s->per_row) * LEGEND_ROW;
        fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>"
                "<text x=\"%d\" y=\"%d\">%s%s</text>\n", x, y, color(s, e), x + 16,
                y + 10, esc(s->series[e], buf, sizeof buf), s->has_bar[e] ? "" : " (n/a)");
    }
    fwrite(s->body, 1, s->len, f);
    fputs("</svg>\n", f);
    if (fclose(f) != 0)
        status = -1;
cleanup:
    free(s->body);
    free(s->has_bar);
    free(s->path);
    free(s->title);
    free(s);
    return status;
}
