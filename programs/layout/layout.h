/* programs/layout/layout.h -- ncslab-layout, the compare-and-advise tool.
 *
 * One variable at a time: its shape and values (from a file, or made up
 * for a shape given on the command line), the access patterns it will be
 * read with, and the candidate layouts it is written into and timed.
 * ncslab_layout.c reads the options and owns the temporary files;
 * layout_shape.c turns patterns into requests and computes chunk shapes;
 * layout_run.c writes and reads the candidates; layout_report.c prints
 * the table, the CSV and the SVG chart.  Only include/ncslab.h is used. */
#ifndef LAYOUT_H
#define LAYOUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define LAY_PROG     "ncslab-layout"
#define LAY_MAXDIMS  8
#define LAY_MAXPAT   16
#define LAY_MAXREQ   4    /* requests a named pattern is measured with */
#define LAY_MAXCAND  64

/* One hyperslab request. */
typedef struct {
    size_t start[LAY_MAXDIMS], count[LAY_MAXDIMS];
    ptrdiff_t stride[LAY_MAXDIMS];
} lay_req;

/* An access pattern as given (`series@2`, `box=...`, `S/C/T`) and the
 * requests it stands for on the variable being measured. */
typedef struct {
    char text[128];   /* as given, weight removed */
    double weight;
    int nreq;
    lay_req req[LAY_MAXREQ];
} lay_pattern;

/* The variable: shape, type, which dimension is the record one. */
typedef struct {
    char name[256];
    char dimname[LAY_MAXDIMS][256];
    int ndims, type, unlim;   /* unlim: dimension 0 is unlimited */
    size_t shape[LAY_MAXDIMS];      /* as measured (sampled) */
    size_t fullshape[LAY_MAXDIMS];  /* of the user's variable */
    size_t esz;
    int sampled;
} lay_var;

/* LAY_FILE: the variable as the input file stores it, read in place */
enum { LAY_CONTIG, LAY_DEFAULT, LAY_BALANCED, LAY_USER, LAY_FILE, LAY_NKIND };
enum { LAY_F_NONE, LAY_F_DEFLATE, LAY_F_ZSTD };

/* Per pattern results of one candidate. */
typedef struct {
    double warm, cold;          /* seconds per request, mean */
    unsigned long long rchar;   /* bytes read() from files, per request */
    unsigned long long devread; /* /proc/self/io read_bytes, cold, per request */
    double chunks;              /* chunks touched per request */
} lay_patres;

typedef struct {
    int kind, filter, format;   /* format: NCS_FORMAT_* */
    size_t chunk[LAY_MAXDIMS];
    char label[64];
    char path[4096];
    unsigned long long size;
    double write_s;
    lay_patres res[LAY_MAXPAT];
    double score;
    int failed;
    int level, shuffle, fletcher;   /* LAY_FILE: the file's filter settings */
    int stored;                 /* the input file stores the variable so already */
} lay_cand;

/* Stored without chunks: the contiguous candidate, or the input file
 * where it has the variable contiguous (its chunk[] all 0). */
static inline int lay_contig(const lay_cand *c)
{
    return c->kind == LAY_CONTIG || (c->kind == LAY_FILE && c->chunk[0] == 0);
}

typedef struct {
    int npat;
    lay_pattern pat[LAY_MAXPAT];
    int nuser;
    size_t user[8][LAY_MAXDIMS];   /* -c shapes named by the user */
    int want_kind[LAY_NKIND], want_filter[3];
    int deflate_level, zstd_level;
    size_t chunk_bytes;            /* ceiling of a balanced chunk */
    size_t budget;                 /* bytes measured at most */
    int repeat;                    /* reads of each request, timed */
    int score_bytes;               /* rank by bytes read, not cold time */
    const char *dir, *csv, *svg;
    const char *input;             /* the FILE, NULL with --shape */
} lay_opts;

void lay_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* layout_shape.c */
int lay_pattern_parse(const char *s, lay_pattern *p);
int lay_pattern_bind(lay_pattern *p, const lay_var *v);
void lay_balanced_chunks(const lay_var *v, const lay_opts *o, size_t *chunk);
double lay_chunks_touched(const lay_var *v, const size_t *chunk, const lay_req *r);
int lay_parse_shape(const char *s, lay_var *v);
int lay_parse_type(const char *s, int *type);
const char *lay_type_name(int type);

/* layout_run.c; lay_register_temp is ncslab_layout.c's */
/* The chunk shape the library gives the variable when a filter but no
 * shape is asked for (netCDF-C's default), read from a netCDF-4 file defined in o->dir and
 * abandoned (ncs_abort removes it). */
int lay_default_chunks(const lay_var *v, const lay_opts *o, size_t *chunk);
int lay_register_temp(const char *path);
void lay_forget_temp(const char *path);
int lay_measure(const lay_var *v, const void *data, int memtype,
                const lay_opts *o, lay_cand *c);

/* layout_report.c */
int lay_best(const lay_cand *c, int n);
void lay_chunk_arg(const lay_var *v, const lay_opts *o, const lay_cand *c, char *buf,
                   size_t len);
void lay_report(FILE *fp, const lay_var *v, const lay_opts *o,
                const lay_cand *c, int n);
int lay_write_csv(FILE *fp, const lay_var *v, const lay_opts *o,
                  const lay_cand *c, int n, int header);
int lay_write_svg(FILE *fp, const lay_var *v, const lay_opts *o,
                  const lay_cand *c, int n);

#endif /* LAYOUT_H */
