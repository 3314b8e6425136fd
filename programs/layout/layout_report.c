/* programs/layout/layout_report.c -- the table, the recommendation, the
 * CSV and the SVG chart of one variable's candidates.
 * The best candidate has the lowest score among those measured; a tie
 * (within 1 part in 10^9) goes to the smaller file. */
#include "layout.h"

#include <ncslab.h>

#include <stdint.h>
#include <string.h>

static const char *const kind_names[] = {"contiguous", "default", "balanced", "user",
                                          "file"};
static const char *const filter_names[] = {"none", "deflate", "zstd"};

int lay_best(const lay_cand *c, int n)
{
    int best = -1;
    for (int i = 0; i < n; i++) {
        if (c[i].failed)
            continue;
        if (best < 0 || c[i].score < c[best].score * (1 - 1e-9)
            || (c[i].score <= c[best].score * (1 + 1e-9) && c[i].size < c[best].size))
            best = i;
    }
    return best;
}

static void shape_str(const lay_var *v, const lay_cand *c, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    if (lay_contig(c)) {
        snprintf(buf, len, "-");
        return;
    }
    for (int d = 0; d < v->ndims && used < len; d++)
        used += (size_t)snprintf(buf + used, len - used, "%s%zu", d ? "x" : "",
                                 c->chunk[d]);
}

/* ncslab-copy's -M default, as nccopy's: a fixed-size variable whose chunk
 * holds fewer bytes is copied contiguous. */
#define COPY_MIN_CHUNK 8192

/* The candidate as ncslab-copy options: -c VAR:n1,... (VAR: when
 * contiguous), -M 0 when the chunk is one ncslab-copy would otherwise not
 * make, and its filter options, at the levels the candidates were written
 * with. */
void lay_chunk_arg(const lay_var *v, const lay_opts *o, const lay_cand *c, char *buf,
                   size_t len)
{
    size_t used, bytes = v->esz;
    if (c->kind == LAY_FILE) {          /* nothing to convert */
        snprintf(buf, len, "-");
        return;
    }
    used = (size_t)snprintf(buf, len, "-c %s:", v->name);
    for (int d = 0; c->kind != LAY_CONTIG && d < v->ndims && used < len; d++) {
        used += (size_t)snprintf(buf + used, len - used, "%s%zu", d ? "," : "",
                                 c->chunk[d]);
        bytes = bytes > SIZE_MAX / c->chunk[d] ? SIZE_MAX : bytes * c->chunk[d];
    }
    if (used < len && c->kind != LAY_CONTIG && !v->unlim && bytes < COPY_MIN_CHUNK)
        used += (size_t)snprintf(buf + used, len - used, " -M 0");
    if (used >= len)
        return;
    if (c->kind == LAY_CONTIG)
        snprintf(buf + used, len - used, " -k %s",
                 c->format == NCS_FORMAT_CLASSIC ? "nc3"
                 : c->format == NCS_FORMAT_64BIT_OFFSET ? "nc6" : "nc5");
    else if (c->filter == LAY_F_DEFLATE)
        snprintf(buf + used, len - used, " -k nc7 -d %d -s", o->deflate_level);
    else if (c->filter == LAY_F_ZSTD)
        snprintf(buf + used, len - used, " -k nc7 --zstd %d", o->zstd_level);
    else
        snprintf(buf + used, len - used, " -k nc7");
}

static void human(unsigned long long b, char *buf, size_t len)
{
    const char *u[] = {"B", "K", "M", "G", "T"};
    double x = (double)b;
    int i = 0;
    while (x >= 1024 && i < 4) {
        x /= 1024;
        i++;
    }
    snprintf(buf, len, i ? "%.1f%s" : "%.0f%s", x, u[i]);
}

void lay_report(FILE *fp, const lay_var *v, const lay_opts *o,
                const lay_cand *c, int n)
{
    int best = lay_best(c, n);
    char sh[128], sz[32], rb[32], arg[512];
    fprintf(fp, "variable %s (%s", v->name, lay_type_name(v->type));
    for (int d = 0; d < v->ndims; d++)
        fprintf(fp, "%s%s=%zu%s", d ? ", " : " ", v->dimname[d], v->fullshape[d],
                v->unlim && d == 0 ? " unlimited" : "");
    fprintf(fp, ")\n");
    if (v->sampled)
        fprintf(fp, "measured on a sample: the first %zu of %zu %s (budget %zu "
                "bytes); sizes and times are the sample's\n", v->shape[0],
                v->fullshape[0], v->dimname[0], o->budget);
    for (int k = 0; v->sampled && k < n; k++)
        if (!c[k].failed && !lay_contig(&c[k]) && c[k].chunk[0] > v->shape[0]) {
            fprintf(fp, "chunks are shaped for the whole variable: those longer than "
                    "the sample in %s hold fill past it, which their sizes count\n",
                    v->dimname[0]);
            break;
        }
    fprintf(fp, "times are wall-clock seconds per request (cold: the file's pages "
            "dropped first); bytes: rchar of /proc/self/io per cold request\n");
    for (int i = 0; i < o->npat; i++)
        fprintf(fp, "  pattern %d: %s (weight %g, %d request%s)\n", i + 1,
                o->pat[i].text, o->pat[i].weight, o->pat[i].nreq,
                o->pat[i].nreq > 1 ? "s" : "");
    fprintf(fp, "%-20s %-16s %9s %8s", "candidate", "chunks", "size", "write");
    for (int i = 0; i < o->npat; i++)
        fprintf(fp, "  p%d:%9s %9s %9s %7s", i + 1, "warm", "cold", "bytes", "chunks");
    fprintf(fp, " %11s\n", o->score_bytes ? "score(B)" : "score(s)");
    for (int k = 0; k < n; k++) {
        if (c[k].failed) {
            fprintf(fp, "%-20s failed\n", c[k].label);
            continue;
        }
        shape_str(v, &c[k], sh, sizeof sh);
        human(c[k].size, sz, sizeof sz);
        fprintf(fp, "%-20s %-16s %9s %8.3f", c[k].label, sh, sz, c[k].write_s);
        for (int i = 0; i < o->npat; i++) {
            human(c[k].res[i].rchar, rb, sizeof rb);
            if (lay_contig(&c[k]))
                fprintf(fp, "     %9.6f %9.6f %9s %7s", c[k].res[i].warm,
                        c[k].res[i].cold, rb, "-");
            else
                fprintf(fp, "     %9.6f %9.6f %9s %7.0f", c[k].res[i].warm,
                        c[k].res[i].cold, rb, c[k].res[i].chunks);
        }
        fprintf(fp, o->score_bytes ? " %11.0f%s\n" : " %11.6f%s\n", c[k].score,
                k == best ? " *" : "");
    }
    if (best < 0) {
        fprintf(fp, "no candidate could be measured\n");
        return;
    }
    lay_chunk_arg(v, o, &c[best], arg, sizeof arg);
    fprintf(fp, "recommended: %s: the lowest weighted %s over the patterns",
            c[best].label, o->score_bytes ? "bytes read" : "cold read time");
    for (int k = 0; k < n; k++)
        if (!c[k].failed && k != best && c[k].kind == LAY_CONTIG && c[k].score > 0)
            fprintf(fp, " (%.2fx contiguous's)", c[best].score / c[k].score);
    human(c[best].size, sz, sizeof sz);
    fprintf(fp, ", file %s\n", sz);
    if (c[best].kind == LAY_FILE)
        fprintf(fp, "convert with: nothing: the file as it is\n");
    else if (c[best].stored)
        fprintf(fp, "convert with: nothing: the file stores %s so already "
                "(ncslab-copy %s IN OUT)\n", v->name, arg);
    else
        fprintf(fp, "convert with: ncslab-copy %s IN OUT\n", arg);
}

static void csv_field(FILE *fp, const char *s)
{
    fputc('"', fp);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', fp);
        fputc(*s, fp);
    }
    fputc('"', fp);
}

int lay_write_csv(FILE *fp, const lay_var *v, const lay_opts *o,
                  const lay_cand *c, int n, int header)
{
    char sh[128], arg[512];
    int best = lay_best(c, n);
    if (header)
        fprintf(fp, "variable,candidate,layout,filter,chunks,sampled,size_bytes,"
                    "write_s,pattern,weight,warm_s,cold_s,rchar_bytes,"
                    "read_bytes,chunks_touched,score,recommended,copy_args\n");
    for (int k = 0; k < n; k++) {
        if (c[k].failed)
            continue;
        shape_str(v, &c[k], sh, sizeof sh);
        lay_chunk_arg(v, o, &c[k], arg, sizeof arg);
        for (int i = 0; i < o->npat; i++) {
            csv_field(fp, v->name);
            fputc(',', fp);
            csv_field(fp, c[k].label);
            fprintf(fp, ",%s,%s,%s,%d,%llu,%.6f,", kind_names[c[k].kind],
                    filter_names[c[k].filter], sh, v->sampled, c[k].size,
                    c[k].write_s);
            csv_field(fp, o->pat[i].text);
            fprintf(fp, ",%g,%.6f,%.6f,%llu,%llu,%.0f,%.6g,%d,", o->pat[i].weight,
                    c[k].res[i].warm, c[k].res[i].cold, c[k].res[i].rchar,
                    c[k].res[i].devread, c[k].res[i].chunks, c[k].score, k == best);
            csv_field(fp, arg);
            fputc('\n', fp);
        }
    }
    return ferror(fp) ? -1 : 0;
}

/* Horizontal bars: each candidate's score, and its size, scaled to the
 * largest of each; the recommended one drawn in another colour. */
int lay_write_svg(FILE *fp, const lay_var *v, const lay_opts *o,
                  const lay_cand *c, int n)
{
    int best = lay_best(c, n), row = 0;
    double maxs = 0, maxz = 0;
    const int bar = 18, left = 170, width = 300;
    for (int k = 0; k < n; k++)
        if (!c[k].failed) {
            if (c[k].score > maxs)
                maxs = c[k].score;
            if ((double)c[k].size > maxz)
                maxz = (double)c[k].size;
        }
    fprintf(fp, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                "font-family=\"sans-serif\" font-size=\"12\">\n",
            left + 2 * width + 40, 50 + (n + 1) * bar);
    fprintf(fp, "<text x=\"4\" y=\"16\">%s: weighted %s (left), file size (right)%s</text>\n",
            v->name, o->score_bytes ? "bytes read" : "cold read time",
            v->sampled ? ", on a sample" : "");
    for (int k = 0; k < n; k++) {
        double y;
        if (c[k].failed)
            continue;
        y = 30 + row++ * bar;
        fprintf(fp, "<text x=\"4\" y=\"%.0f\">%s</text>\n", y + 13, c[k].label);
        fprintf(fp, "<rect x=\"%d\" y=\"%.0f\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>\n",
                left, y, maxs > 0 ? width * c[k].score / maxs : 0, bar - 4,
                k == best ? "#d95f02" : "#1b9e77");
        fprintf(fp, "<rect x=\"%d\" y=\"%.0f\" width=\"%.1f\" height=\"%d\" fill=\"#7570b3\"/>\n",
                left + width + 20, y, maxz > 0 ? width * (double)c[k].size / maxz : 0,
                bar - 4);
    }
    fprintf(fp, "</svg>\n");
    return ferror(fp) ? -1 : 0;
}
