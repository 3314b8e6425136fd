/*
 * h5_index.c -- what a netCDF-4 file records of a variable's storage, for
 * validators: its filter pipeline as HDF5 lists it (filters ncslab cannot
 * run included) and the walk of its chunk index (ncs_inq_var_chunks),
 * without reading or decoding a chunk.
 *
 * HDF5 1.10 lists chunks only one at a time: by their position in the
 * index (H5Dget_chunk_info, which walks the index from its start each
 * time, so listing n chunks costs n^2/2 steps) or by their coordinates
 * (H5Dget_chunk_info_by_coord, one lookup).  The walk therefore asks for
 * every place of the dataset's chunk grid when there are not many more
 * places than chunks, and keeps that answer when it finds as many chunks
 * as the index holds (then every chunk lies inside the dataset); else,
 * and always where the index is broken enough to list chunks elsewhere,
 * it lists the index by position.  Either way the coordinates are on the
 * grid: HDF5 keeps an entry's coordinates in units of the chunk shape,
 * so one recorded off the grid is read as the place it rounds down to.
 * HDF5 gives addresses from the file's base; past a user block the offset
 * in the file is that much more.
 */
#include "hdf5_store.h"

#include <string.h>

int ncsi_h5_filter_ids(const cvar *cv, int *n, unsigned *ids)
{
    hid_t dcpl;
    int nf, status = NCS_NOERR;
    *n = 0;
    if (cv->dset < 0)
        return NCS_NOERR;
    dcpl = H5Dget_create_plist(cv->dset);
    if (dcpl < 0)
        return NCS_ERR(NCS_EHDFERR);
    nf = H5Pget_nfilters(dcpl);
    if (nf < 0 || nf > NCS_MAX_FILTERS)
        status = NCS_ERR(NCS_EHDFERR);
    for (int i = 0; status == NCS_NOERR && i < nf; i++) {
        unsigned flags, cd[8], config;
        size_t ncd = sizeof cd / sizeof cd[0];
        char name[8];
        H5Z_filter_t id = H5Pget_filter2(dcpl, (unsigned)i, &flags, &ncd, cd, sizeof name,
                                         name, &config);
        if (id < 0)
            status = NCS_ERR(NCS_EHDFERR);
        else
            ids[(*n)++] = (unsigned)id;
    }
    H5Pclose(dcpl);
    return status;
}

int ncsi_h5_filter_params(const cvar *cv, unsigned id, size_t *n, unsigned *params)
{
    hid_t dcpl;
    int nf, status = NCS_ERR(NCS_ENOFILTER);
    if (cv->dset < 0)
        return status;
    dcpl = H5Dget_create_plist(cv->dset);
    if (dcpl < 0)
        return NCS_ERR(NCS_EHDFERR);
    nf = H5Pget_nfilters(dcpl);
    if (nf < 0)
        status = NCS_ERR(NCS_EHDFERR);
    for (int i = 0; i < nf; i++) {
        unsigned flags, config;
        /* in: room in params; out: how many the filter has */
        size_t ncd = NCS_MAX_FILTER_PARAMS;
        char name[8];
        H5Z_filter_t got = H5Pget_filter2(dcpl, (unsigned)i, &flags, &ncd, params, sizeof name,
                                          name, &config);
        if (got < 0) {
            status = NCS_ERR(NCS_EHDFERR);
            break;
        }
        if ((unsigned)got == id) {
            *n = ncd;
            status = NCS_NOERR;
            break;
        }
    }
    H5Pclose(dcpl);
    return status;
}

#if NCSI_H5_CHUNK_INFO
/* The walk's state: the dataset, its shape and chunk shape, and the
 * file's base address: HDF5's chunk inquiries give addresses relative to
 * it (past a user block), the walk offsets in the file. */
typedef struct walk {
    hid_t dset, space;
    int ndims;
    hsize_t dims[NCS_MAX_VAR_DIMS];
    const uint64_t *chunk;
    hsize_t base;
} walk;

/* Every place of the chunk grid, last dimension fastest: the chunks the
 * index holds there counted into *found and, with visit, visited. */
static int walk_grid(const walk *w, ncs_chunk_visitor *visit, void *arg, uint64_t *found)
{
    hsize_t off[NCS_MAX_VAR_DIMS];
    size_t origin[NCS_MAX_VAR_DIMS];
    *found = 0;
    for (int d = 0; d < w->ndims; d++) {
        if (w->dims[d] == 0)
            return NCS_NOERR;
        off[d] = 0;
    }
    for (;;) {
        unsigned mask = 0;
        haddr_t addr = HADDR_UNDEF;
        hsize_t size = 0;
        int d;
        if (H5Dget_chunk_info_by_coord(w->dset, off, &mask, &addr, &size) < 0)
            return NCS_ERR(NCS_EHDFERR);
        if (addr != HADDR_UNDEF) {
            ++*found;
            if (visit != NULL) {
                int r;
                for (d = 0; d < w->ndims; d++)
                    origin[d] = (size_t)off[d];
                r = visit(arg, origin, mask, (unsigned long long)(addr + w->base),
                          (unsigned long long)size);
                if (r != 0)
                    return r;
            }
        }
        for (d = w->ndims - 1; d >= 0; d--) {
            off[d] += w->chunk[d];
            if (off[d] < w->dims[d])
                break;
            off[d] = 0;
        }
        if (d < 0)
            return NCS_NOERR;
    }
}

/* The index by position: every entry as recorded. */
static int walk_index(const walk *w, hsize_t n, ncs_chunk_visitor *visit, void *arg)
{
    hsize_t off[NCS_MAX_VAR_DIMS];
    size_t origin[NCS_MAX_VAR_DIMS];
    for (hsize_t i = 0; i < n; i++) {
        unsigned mask = 0;
        haddr_t addr = HADDR_UNDEF;
        hsize_t size = 0;
        int r;
        if (H5Dget_chunk_info(w->dset, w->space, i, off, &mask, &addr, &size) < 0)
            return NCS_ERR(NCS_EHDFERR);
        for (int d = 0; d < w->ndims; d++)
            origin[d] = (size_t)off[d];
        r = visit(arg, origin, mask,
                  addr == HADDR_UNDEF ? (unsigned long long)addr
                                      : (unsigned long long)(addr + w->base),
                  (unsigned long long)size);
        if (r != 0)
            return r;
    }
    return NCS_NOERR;
}
#endif

int ncsi_h5_chunk_index(cvar *cv, size_t *extent, ncs_chunk_visitor *visit, void *arg)
{
#if NCSI_H5_CHUNK_INFO
    walk w;
    hsize_t n = 0;
    uint64_t places = 1, found = 0;
    int status = NCS_NOERR, saturated = 0;

    w.dset = cv->dset;
    w.ndims = cv->ck.ndims;
    w.base = 0;
    {
        hid_t fcpl = H5Fget_create_plist(cv->cs->fid);
        int bad = fcpl < 0 || H5Pget_userblock(fcpl, &w.base) < 0;
        if (fcpl >= 0)
            H5Pclose(fcpl);
        if (bad)
            return NCS_ERR(NCS_EHDFERR);
    }
    w.chunk = cv->stchunks;
    w.space = H5Dget_space(cv->dset);
    if (w.space < 0 || H5Sget_simple_extent_dims(w.space, w.dims, NULL) != w.ndims) {
        status = NCS_ERR(NCS_EHDFERR);
        goto cleanup;
    }
    for (int d = 0; d < w.ndims; d++)
        extent[d] = (size_t)w.dims[d];
    if (H5Dget_num_chunks(w.dset, w.space, &n) < 0) {
        status = NCS_ERR(NCS_EHDFERR);
        goto cleanup;
    }
    if (n == 0)
        goto cleanup;
    for (int d = 0; d < w.ndims; d++) {
        NCSI_ASSERT(w.chunk[d] > 0);
        uint64_t along = w.dims[d] / w.chunk[d] + (w.dims[d] % w.chunk[d] != 0);
        saturated |= ncsi_mul_u64(places, along, &places);
    }
    if (!saturated && places <= 4 * (uint64_t)n + 64) {
        status = walk_grid(&w, NULL, NULL, &found);
        if (status == NCS_NOERR && found == n) {
            status = walk_grid(&w, visit, arg, &found);
            goto cleanup;
        }
        if (status != NCS_NOERR)
            goto cleanup;
    }
    status = walk_index(&w, n, visit, arg);
cleanup:
    if (w.space >= 0)
        H5Sclose(w.space);
    return status;
#else
    (void)cv;
    (void)extent;
    (void)visit;
    (void)arg;
    return NCS_ERR(NCS_ENOTBUILT);
#endif
}
