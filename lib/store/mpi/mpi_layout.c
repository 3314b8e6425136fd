/* lib/store/mpi/mpi_layout.c -- where a parallel classic file's variables
 * go: PnetCDF 1.12's layout, from its hints and ncs__enddef's arguments.
 *
 * The rules differ from netCDF-C's (ncsi_cl_layout) in three ways:
 *   - the header's extent is always recomputed, aligned to h_align (never
 *     shrinking after a redefinition);
 *   - each fixed-size variable starts at a multiple of nc_var_align_size
 *     (4 unless hinted), and so does the record section before its own
 *     alignment r_align is applied;
 *   - a hint in the MPI_Info wins over the matching argument of
 *     ncs__enddef:
 *       h_align  nc_header_align_size, else v_align, else r_align when
 *                there are fixed-size variables and r_align was given,
 *                else the striping unit when the fixed-size variables
 *                exceed 4 of them, else 512;
 *       r_align  nc_record_align_size, else r_align, else 4;
 *     every alignment rounded up to a multiple of 4.
 * With no hints and (0, 0, 0, 0) -- ncs_enddef -- that is a header aligned
 * to 512 and everything after it 4 bytes apart. */
#include "mpi_store.h"

#include <stdlib.h>
#include <string.h>

#define DEFAULT_ALIGN 512
/* the striping unit sets the header's alignment when the fixed-size data
 * exceeds this many units */
#define STRIPE_LB 4

/* The value of hint key in val (of 64 bytes); 0 when it is not set. */
static int hint_get(MPI_Info info, const char *key, char val[64])
{
    int flag = 0;
    if (info == MPI_INFO_NULL)
        return 0;
    MPI_Info_get(info, (char *)key, 63, val, &flag);
    return flag;
}

/* A size hint: its value when it is a positive decimal number, else 0. */
static uint64_t hint_size(MPI_Info info, const char *key)
{
    char val[64];
    char *end;
    unsigned long long v;
    if (!hint_get(info, key, val))
        return 0;
    v = strtoull(val, &end, 10);
    if (end == val || *end != '\0' || val[0] == '-' || v > (1ull << 40))
        return 0;
    return v;
}

/* Whether the hint key is set to want. */
static int hint_is(MPI_Info info, const char *key, const char *want)
{
    char val[64];
    return hint_get(info, key, val) && strcmp(val, want) == 0;
}

static uint64_t round4(uint64_t a)
{
    return a == 0 ? 4 : NCS_RNDUP(a, 4);
}

void ncsi_mpi_read_hints(mpist *ms)
{
    char val[64];
    ms->h_hint = hint_size(ms->info, "nc_header_align_size");
    ms->fx_hint = hint_size(ms->info, "nc_var_align_size");
    ms->r_hint = hint_size(ms->info, "nc_record_align_size");
    ms->hdr_pad = hint_size(ms->info, "nc_header_pad_size");
    ms->cb_nodes_hint = hint_get(ms->info, "cb_nodes", val);
    ms->alone_put = !hint_is(ms->info, "romio_cb_write", "enable");
    ms->alone_get = !hint_is(ms->info, "romio_cb_read", "enable");
}

/* The striping unit MPI-IO reports for the open file (or the caller's
 * hint), 0 when neither says. */
static uint64_t striping_unit(const mpist *ms)
{
    MPI_Info used = MPI_INFO_NULL;
    uint64_t su;
    if (ms->fh != MPI_FILE_NULL && MPI_File_get_info(ms->fh, &used) == MPI_SUCCESS &&
        used != MPI_INFO_NULL) {
        su = hint_size(used, "striping_unit");
        MPI_Info_free(&used);
        if (su > 0)
            return su;
    }
    return hint_size(ms->info, "striping_unit");
}

int ncsi_mpi_layout(ncs_file *f, const ncs_model *old, size_t h_minfree, size_t v_align,
                    size_t v_minfree, size_t r_align)
{
    mpist *ms = MS(f);
    ncs_model *m = &f->model;
    ncs_layout *lay = &ms->cl.lay;
    uint64_t off_max = f->version == 1 ? (uint64_t)INT32_MAX : (uint64_t)INT64_MAX;
    uint64_t old_begin_var = lay->begin_var, old_begin_rec = lay->begin_rec;
    uint64_t fixsum = 0, h_align, fx_align, rec_align, end, su;
    const ncs_var *first = NULL, *last = NULL;
    int j = 0;

    if (v_align == NCSI_ALIGN_DEFAULT)
        v_align = 0;
    if (r_align == NCSI_ALIGN_DEFAULT)
        r_align = 0;
    if (h_minfree == 0)
        h_minfree = ms->hdr_pad;
    for (int i = 0; i < m->nvars; i++)
        if (!m->vars[i].isrec)
            fixsum += m->vars[i].len;
    su = striping_unit(ms);
    if (ms->h_hint > 0)
        h_align = ms->h_hint;
    else if (v_align > 0)
        h_align = v_align;
    else if (fixsum > 0 && r_align > 0)
        h_align = r_align;
    else if (su > 0 && fixsum > STRIPE_LB * su)
        h_align = su;
    else
        h_align = DEFAULT_ALIGN;
    h_align = round4(h_align);
    fx_align = round4(ms->fx_hint);
    rec_align = round4(ms->r_hint > 0 ? ms->r_hint : r_align);

    lay->xsz = ncsi_hdr_len(m, f->version);
    ms->cl.nb.xsz = lay->xsz;
    if (m->nvars == 0) {
        lay->begin_var = lay->begin_rec = lay->xsz;
        lay->recsize = 0;
        return NCS_NOERR;
    }
    lay->begin_var = NCS_RNDUP(lay->xsz + h_minfree, h_align);
    if (old != NULL && lay->begin_var < old_begin_var)
        lay->begin_var = old_begin_var;

    end = lay->begin_var;
    for (int i = 0; i < m->nvars; i++) {
        ncs_var *v = &m->vars[i];
        if (v->isrec)
            continue;
        if (end > off_max)
            goto too_big;
        if (first == NULL)
            first = v;
        v->begin = NCS_RNDUP(end, fx_align);
        if (old != NULL) {
            while (j < old->nvars && old->vars[j].isrec)
                j++;
            if (j < old->nvars) {
                if (v->begin < old->vars[j].begin)
                    v->begin = old->vars[j].begin;
                j++;
            }
        }
        end = v->begin + v->len;
    }

    /* the record section stays where it is while it fits and is aligned */
    if (old == NULL)
        lay->begin_rec = 0;
    if (lay->begin_rec < end || lay->begin_rec != NCS_RNDUP(lay->begin_rec, fx_align))
        lay->begin_rec = NCS_RNDUP(end, fx_align);
    if (lay->begin_rec < end + v_minfree)
        lay->begin_rec = NCS_RNDUP(end + v_minfree, fx_align);
    if (rec_align > 1)
        lay->begin_rec = NCS_RNDUP(lay->begin_rec, rec_align);
    if (old != NULL && lay->begin_rec < old_begin_rec)
        lay->begin_rec = old_begin_rec;
    lay->begin_var = first != NULL ? first->begin : lay->begin_rec;

    end = lay->begin_rec;
    lay->recsize = 0;
    j = 0;
    for (int i = 0; i < m->nvars; i++) {
        ncs_var *v = &m->vars[i];
        if (!v->isrec)
            continue;
        if (end > off_max)
            goto too_big;
        v->begin = end;
        if (old != NULL) {
            while (j < old->nvars && !old->vars[j].isrec)
                j++;
            if (j < old->nvars) {
                if (v->begin < old->vars[j].begin)
                    v->begin = old->vars[j].begin;
                j++;
            }
        }
        end += v->len;
        lay->recsize += v->len;
        last = v;
    }
    /* exactly one record variable: records are packed */
    if (last != NULL && lay->recsize == last->len)
        lay->recsize = last->dsizes[0] * last->xsz;
    return NCS_NOERR;

too_big:
    lay->begin_var = old_begin_var;
    lay->begin_rec = old_begin_rec;
    return NCS_ERR(NCS_EVARSIZE);
}
