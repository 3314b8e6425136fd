/*
 * classic_layout.c -- where a classic file's data lies: the begin offset
 * of every variable, begin_var, begin_rec and recsize, computed by
 * netCDF-C's rules; the size a header implies; the size limits each format
 * version sets on one variable.
 *
 * Data layout (see doc/format.md):
 *   [header][pad][fixed var 0][fixed var 1]...[pad][record 0][record 1]...
 * Fixed-size variables lie in definition order from begin_var, each taking
 * vsize bytes (its data rounded up to 4).  A record holds every record
 * variable's slice, vsize bytes each, in definition order; recsize is their
 * sum, except that a lone record variable is packed without padding.
 */
#include "classic.h"

int ncsi_cl_count_recvars(const ncs_model *m)
{
    int n = 0;
    for (int i = 0; i < m->nvars; i++)
        n += m->vars[i].isrec;
    return n;
}

/* The CDF-1/2 limit on one variable's bytes (per record); CDF-5 has none
 * short of 2^63.  One variable of each kind may exceed it if it is the last
 * of its kind (its size is then never used to compute an offset), and a
 * too-large last fixed variable excludes record variables. */
static int count_large(const ncs_model *m, int rec, uint64_t vlen_max,
                       int version, int *large, int *last)
{
    *large = *last = 0;
    for (int i = 0; i < m->nvars; i++) {
        const ncs_var *v = &m->vars[i];
        uint64_t bytes = v->ndims == 0 ? v->xsz : v->dsizes[0] * v->xsz;
        if (v->isrec != rec)
            continue;
        *last = 0;
        if (bytes > vlen_max) {
            if (version == 5)
                return NCS_ERR(NCS_EVARSIZE);
            ++*large;
            *last = 1;
        }
    }
    if (*large > 1 || (*large == 1 && !*last))
        return NCS_ERR(NCS_EVARSIZE);
    return NCS_NOERR;
}

int ncsi_cl_check_vlens(const ncs_model *m, int version)
{
    uint64_t vlen_max = version == 5 ? (uint64_t)INT64_MAX - 3
                      : version == 2 ? (uint64_t)UINT32_MAX - 3 : (uint64_t)INT32_MAX - 3;
    int large, last, status;
    status = count_large(m, 0, vlen_max, version, &large, &last);
    if (status != NCS_NOERR || ncsi_cl_count_recvars(m) == 0)
        return status;
    if (large == 1)
        return NCS_ERR(NCS_EVARSIZE);
    return count_large(m, 1, vlen_max, version, &large, &last);
}

/* Assigns begin offsets to every variable and computes begin_var,
 * begin_rec and recsize.  With an old model (after ncs_redef), no variable
 * starts before it did. */
int ncsi_cl_layout(ncs_file *f, const ncs_model *old, size_t h_minfree,
                   size_t v_align, size_t v_minfree, size_t r_align)
{
    ncs_model *m = &f->model;
    ncs_layout *lay = &CL(f)->lay;
    uint64_t index, old_begin_var = lay->begin_var, old_begin_rec = lay->begin_rec;
    uint64_t off_max = f->version == 1 ? (uint64_t)INT32_MAX : (uint64_t)INT64_MAX;
    const ncs_var *first_var = NULL, *last = NULL;
    int j = 0;

    if (v_align == NCS_ALIGN_CHUNK)
        v_align = CL(f)->io->blksize;
    if (r_align == NCS_ALIGN_CHUNK)
        r_align = CL(f)->io->blksize;
    if (v_align == 0)
        v_align = 1;
    if (r_align == 0)
        r_align = 1;
    lay->xsz = ncsi_hdr_len(m, f->version);
    CL(f)->nb.xsz = lay->xsz;
    if (m->nvars == 0)
        return NCS_NOERR;
    if (CL(f)->has_hint) {
        lay->begin_var = CL(f)->hint_begin_var;
        lay->begin_rec = CL(f)->hint_begin_rec;
    }

    if (lay->begin_var < lay->xsz + h_minfree ||
        lay->begin_var != NCS_RNDUP(lay->begin_var, v_align)) {
        index = lay->xsz;
        lay->begin_var = NCS_RNDUP(index, v_align);
        if (lay->begin_var < index + h_minfree)
            lay->begin_var = NCS_RNDUP(index + h_minfree, v_align);
    }
    /* after a redef, nothing starts before it did */
    if (old != NULL && lay->begin_var < old_begin_var)
        lay->begin_var = old_begin_var;
    index = lay->begin_var;
    for (int i = 0; i < m->nvars; i++) {
        ncs_var *v = &m->vars[i];
        if (v->isrec)
            continue;
        if (first_var == NULL)
            first_var = v;
        if (index > off_max) {
            lay->begin_var = old_begin_var;
            return NCS_ERR(NCS_EVARSIZE);
        }
        v->begin = index;
        if (old != NULL) {
            while (j < old->nvars && old->vars[j].isrec)
                j++;
            if (j < old->nvars) {
                if (v->begin < old->vars[j].begin) {
                    v->begin = old->vars[j].begin;
                    index = v->begin;
                }
                j++;
            }
        }
        index += v->len;
    }

    if (old != NULL && lay->begin_rec < old_begin_rec)
        lay->begin_rec = old_begin_rec;
    if (lay->begin_rec < index + v_minfree ||
        lay->begin_rec != NCS_RNDUP(lay->begin_rec, r_align)) {
        lay->begin_rec = NCS_RNDUP(index, r_align);
        if (lay->begin_rec < index + v_minfree)
            lay->begin_rec = NCS_RNDUP(index + v_minfree, r_align);
    }
    lay->begin_var = first_var != NULL ? first_var->begin : lay->begin_rec;

    index = lay->begin_rec;
    lay->recsize = 0;
    j = 0;
    for (int i = 0; i < m->nvars; i++) {
        ncs_var *v = &m->vars[i];
        if (!v->isrec)
            continue;
        if (index > off_max) {
            lay->begin_var = old_begin_var;
            lay->begin_rec = old_begin_rec;
            return NCS_ERR(NCS_EVARSIZE);
        }
        v->begin = index;
        if (old != NULL) {
            while (j < old->nvars && !old->vars[j].isrec)
                j++;
            if (j < old->nvars) {
                if (v->begin < old->vars[j].begin)
                    v->begin = old->vars[j].begin;
                j++;
            }
        }
        index += v->len;
        lay->recsize += v->len;
        last = v;
    }
    /* exactly one record variable: records are packed */
    if (last != NULL && lay->recsize == last->len)
        lay->recsize = last->dsizes[0] * last->xsz;
    return NCS_NOERR;
}

/* File size the header implies: up to the end of the last fixed variable,
 * or of the last record. */
uint64_t ncsi_cl_calc_size(const ncs_file *f)
{
    const ncs_model *m = &f->model;
    const ncs_layout *lay = &((classic *)f->state)->lay;
    const ncs_var *last_fix = NULL;
    int nrec = 0;
    if (m->nvars == 0)
        return lay->xsz;
    for (int i = 0; i < m->nvars; i++) {
        if (m->vars[i].isrec)
            nrec++;
        else
            last_fix = &m->vars[i];
    }
    if (nrec == 0) {
        uint64_t size = last_fix->len;
        if (f->version != 5 && size > UINT32_MAX - 3)
            size = last_fix->dsizes[0] * last_fix->xsz;
        return last_fix->begin + size;
    }
    return lay->begin_rec + m->numrecs * lay->recsize;
}
