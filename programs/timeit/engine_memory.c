/*
 * engine_memory.c -- the in-memory floor: each variable is one resident
 * row-major array, a get gathers the slab into the caller's buffer and a
 * put scatters it, with memcpy of the longest contiguous runs.
 *
 * This is what any engine must at least spend to move the same bytes in
 * the same shape; the gap between an engine and this row is the cost of
 * the engine itself.  Only what the harness needs is checked.  Record
 * variables grow (by doubling) as puts reach past their last record.
 */
#include "timeit.h"

#include <stdlib.h>
#include <string.h>

#define M_FILES 64
#define M_DIMS 16
#define M_VARS 16
#define E_BADID (-33)
#define E_EDGE (-57)
#define E_NOMEM (-61)
#define E_MAX (-44)

typedef struct {
    char name[64];
    int type, ndims;
    long shape[TI_MAX_DIMS];    /* shape[0] = records allocated, for record vars */
    int record;
    size_t size;                /* element size */
    long nrecs;
    unsigned char *data;
} m_var;

typedef struct {
    int used, ndims, nvars;
    long dimlen[M_DIMS];        /* 0 for the record dimension */
    m_var vars[M_VARS];
} m_file;

static m_file files[M_FILES];

static m_file *file_of(int ncid)
{
    return ncid >= 0 && ncid < M_FILES && files[ncid].used ? &files[ncid] : NULL;
}

static int m_create(const char *path, const ti_layout *layout, int *ncidp)
{
    for (int i = 0; i < M_FILES; i++)
        if (!files[i].used) {
            memset(&files[i], 0, sizeof files[i]);
            files[i].used = 1;
            *ncidp = i;
            return 0;
        }
    return -34; /* NC_ENFILE */
}

static int m_def_dim(int ncid, const char *name, long len, int *dimidp)
{
    m_file *f = file_of(ncid);
    if (f == NULL)
        return E_BADID;
    if (f->ndims == M_DIMS)
        return E_MAX;
    f->dimlen[f->ndims] = len;
    *dimidp = f->ndims++;
    return 0;
}

static int m_def_var(int ncid, const char *name, int type, int ndims, const int *dimids,
                     const ti_layout *layout, int *varidp)
{
    m_file *f = file_of(ncid);
    m_var *v;
    if (f == NULL)
        return E_BADID;
    if (f->nvars == M_VARS || ndims > TI_MAX_DIMS)
        return E_MAX;
    v = &f->vars[f->nvars];
    memset(v, 0, sizeof *v);
    snprintf(v->name, sizeof v->name, "%s", name);
    v->type = type;
    v->ndims = ndims;
    v->size = ti_type_by_code(type)->size;
    for (int d = 0; d < ndims; d++)
        v->shape[d] = f->dimlen[dimids[d]];
    v->record = ndims > 0 && v->shape[0] == 0;
    if (!v->record) {
        v->data = calloc(ti_nelems(ndims, v->shape), v->size);
        if (v->data == NULL)
            return E_NOMEM;
    }
    *varidp = f->nvars++;
    return 0;
}

static int m_inq_varid(int ncid, const char *name, int *varidp)
{
    m_file *f = file_of(ncid);
    if (f == NULL)
        return E_BADID;
    for (int v = 0; v < f->nvars; v++)
        if (strcmp(f->vars[v].name, name) == 0) {
            *varidp = v;
            return 0;
        }
    return -49; /* NC_ENOTVAR */
}

static int m_enddef(int ncid) { return file_of(ncid) ? 0 : E_BADID; }

static int m_close(int ncid)
{
    m_file *f = file_of(ncid);
    if (f == NULL)
        return E_BADID;
    for (int v = 0; v < f->nvars; v++)
        free(f->vars[v].data);
    f->used = 0;
    return 0;
}

/* Makes room for records [0, nrecs) of a record variable. */
static int grow(m_var *v, long nrecs)
{
    size_t recsize = v->size * ti_nelems(v->ndims - 1, v->shape + 1);
    long cap = v->shape[0] > 0 ? v->shape[0] : 1;
    unsigned char *p;
    while (cap < nrecs)
        cap *= 2;
    p = realloc(v->data, (size_t)cap * recsize);
    if (p == NULL)
        return E_NOMEM;
    memset(p + (size_t)v->shape[0] * recsize, 0, (size_t)(cap - v->shape[0]) * recsize);
    v->data = p;
    v->shape[0] = cap;
    return 0;
}

/* n runs of run bytes: in the array step bytes apart, in buf adjacent.
 * Runs of one element of 1, 2, 4 or 8 bytes are copied with fixed-size
 * moves, so that a scattered slab costs what a gather must cost. */
#define COPY_RUNS(SZ)                                                          \
    do {                                                                       \
        if (put)                                                               \
            for (size_t i = 0; i < n; i++)                                     \
                memcpy(mem + i * step, lin + i * (SZ), (SZ));                  \
        else                                                                   \
            for (size_t i = 0; i < n; i++)                                     \
                memcpy(lin + i * (SZ), mem + i * step, (SZ));                  \
    } while (0)

static void copy_strided(unsigned char *mem, unsigned char *lin, size_t n, size_t run,
                         size_t step, int put)
{
    switch (run) {
    case 1: COPY_RUNS(1); break;
    case 2: COPY_RUNS(2); break;
    case 4: COPY_RUNS(4); break;
    case 8: COPY_RUNS(8); break;
    default: COPY_RUNS(run); break;
    }
}

/* Copies the slab between the resident array and buf, in either direction. */
static int transfer(int ncid, int varid, const long *start, const long *count,
                    void *buf, int put)
{
    m_file *f = file_of(ncid);
    m_var *v;
    long limit0, idx[TI_MAX_DIMS] = { 0 };
    size_t stride[TI_MAX_DIMS], run, nouter, pos;
    int inner, j;
    if (f == NULL || varid < 0 || varid >= f->nvars)
        return E_BADID;
    v = &f->vars[varid];
    limit0 = v->record ? (put ? start[0] + count[0] : v->nrecs) : v->shape[0];
    for (int d = 0; d < v->ndims; d++)
        if (start[d] < 0 || count[d] < 0 ||
            start[d] + count[d] > (d == 0 ? limit0 : v->shape[d]))
            return E_EDGE;
    if (v->record && put && start[0] + count[0] > v->shape[0]) {
        int status = grow(v, start[0] + count[0]);
        if (status != 0)
            return status;
    }
    if (v->record && put && start[0] + count[0] > v->nrecs)
        v->nrecs = start[0] + count[0];
    /* element strides, and the innermost dimension of the contiguous run:
     * trailing dimensions taken whole merge into one run */
    stride[v->ndims - 1] = 1;
    for (int d = v->ndims - 2; d >= 0; d--)
        stride[d] = stride[d + 1] * (size_t)v->shape[d + 1];
    inner = v->ndims - 1;
    run = (size_t)count[inner];
    while (inner > 0 && count[inner] == v->shape[inner]) {
        inner--;
        run *= (size_t)count[inner];
    }
    run *= v->size;
    if (inner == 0) {
        size_t off = (size_t)start[0] * stride[0] * v->size;
        copy_strided(v->data + off, buf, 1, run, 0, put);
        return 0;
    }
    /* dimension j = inner - 1 is walked by a strided loop, the dimensions
     * above it by an odometer */
    j = inner - 1;
    nouter = ti_nelems(j, count);
    pos = 0;
    for (size_t r = 0; r < nouter; r++) {
        size_t off = 0;
        for (int d = 0; d <= inner; d++)
            off += (size_t)(start[d] + (d < j ? idx[d] : 0)) * stride[d];
        copy_strided(v->data + off * v->size, (unsigned char *)buf + pos, (size_t)count[j], run,
                     stride[j] * v->size, put);
        pos += (size_t)count[j] * run;
        for (int d = j - 1; d >= 0; d--) {
            if (++idx[d] < count[d])
                break;
            idx[d] = 0;
        }
    }
    return 0;
}

static int m_get(int ncid, int varid, const long *start, const long *count, void *buf)
{
    return transfer(ncid, varid, start, count, buf, 0);
}

static int m_put(int ncid, int varid, const long *start, const long *count, const void *buf)
{
    return transfer(ncid, varid, start, count, (void *)buf, 1);
}

static int m_get1(int ncid, int varid, const long *index, void *value)
{
    m_file *f = file_of(ncid);
    const m_var *v;
    size_t off = 0;
    if (f == NULL || varid < 0 || varid >= f->nvars)
        return E_BADID;
    v = &f->vars[varid];
    for (int d = 0; d < v->ndims; d++) {
        if (index[d] < 0 || index[d] >= (d == 0 && v->record ? v->nrecs : v->shape[d]))
            return -40; /* NC_EINVALCOORDS */
        off = off * (size_t)v->shape[d] + (size_t)index[d];
    }
    memcpy(value, v->data + off * v->size, v->size);
    return 0;
}

/* The cells of row `row` of a 2-D short variable, checked once for the
 * row: what a get1 per cell must check is the same for every cell of it. */
static int row_cells(int ncid, int varid, long row, long ncols, const short **cellsp)
{
    m_file *f = file_of(ncid);
    const m_var *v;
    if (f == NULL || varid < 0 || varid >= f->nvars)
        return E_BADID;
    v = &f->vars[varid];
    if (v->ndims != 2 || v->size != sizeof(short))
        return -45; /* NC_EBADTYPE */
    if (row < 0 || row >= (v->record ? v->nrecs : v->shape[0]) || ncols < 0 ||
        ncols > v->shape[1])
        return -40; /* NC_EINVALCOORDS */
    *cellsp = (const short *)v->data + (size_t)row * (size_t)v->shape[1];
    return 0;
}

/* The floor of the scan: a plain loop over the row of the array, so that
 * no engine can be faster than this one (timeit's scan runs the same loop
 * as the "plain-loop" engine next to it). */
static int m_get1_row(int ncid, int varid, long row, long ncols, short *out)
{
    const short *cells;
    int status = row_cells(ncid, varid, row, ncols, &cells);
    if (status != 0)
        return status;
    for (long c = 0; c < ncols; c++)
        out[c] = cells[c];
    return 0;
}

/* The reference the floor is held to: the same loop with no check at all. */
static int p_get1_row(int ncid, int varid, long row, long ncols, short *out)
{
    const m_var *v = &files[ncid].vars[varid];
    const short *cells = (const short *)v->data + (size_t)row * (size_t)v->shape[1];
    for (long c = 0; c < ncols; c++)
        out[c] = cells[c];
    return 0;
}

static const char *m_strerror(int status)
{
    return status == E_NOMEM ? "out of memory" : status == E_EDGE ? "slab outside the array"
         : "memory engine error";
}

const ti_lib ti_lib_memory = {
    .name = "memory",
    .create = m_create,
    .open = NULL,
    .def_dim = m_def_dim,
    .def_var = m_def_var,
    .inq_varid = m_inq_varid,
    .enddef = m_enddef,
    .get = m_get,
    .put = m_put,
    .get1 = m_get1,
    .get1_row = m_get1_row,
    .close = m_close,
    .strerror = m_strerror,
};

/* The memory engine with the plain loop as its row reader; only the scan
 * uses it. */
const ti_lib ti_lib_plain = {
    .name = "plain-loop",
    .create = m_create,
    .open = NULL,
    .def_dim = m_def_dim,
    .def_var = m_def_var,
    .inq_varid = m_inq_varid,
    .enddef = m_enddef,
    .get = m_get,
    .put = m_put,
    .get1 = m_get1,
    .get1_row = p_get1_row,
    .close = m_close,
    .strerror = m_strerror,
};
