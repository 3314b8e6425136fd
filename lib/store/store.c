/*
 * store.c -- the registry of storage back ends: which one creates a file,
 * which one reads an existing file.
 *
 * Each back end says for itself what it takes (its probe and creates
 * slots), so adding one means adding it here and nowhere else; the first
 * that claims a file gets it.
 */
#include "store.h"

extern const ncs_store_methods ncsi_chunked_store;
extern const ncs_store_methods ncsi_classic_store;
extern const ncs_store_methods ncsi_nc4_store;

/* In the order asked: a classic file is known by its first bytes, so it
 * is asked first (an HDF5 signature is searched for at 0, 512, 1024, ...,
 * a read each); a netCDF-4 file opened for reading goes to the store that
 * reads it without HDF5, and to the HDF5 store where that one declines
 * it. */
static const ncs_store_methods *const registry[] = {
    &ncsi_classic_store,
    &ncsi_nc4_store,
    &ncsi_chunked_store,
};
#define NSTORES (sizeof registry / sizeof registry[0])

const ncs_store_methods *ncsi_store_for_create(int cmode)
{
    for (size_t i = 0; i < NSTORES; i++)
        if (registry[i]->creates(cmode))
            return registry[i];
    return NULL;
}

int ncsi_store_for_open(const char *path, int mode, const ncs_store_methods *after,
                        const ncs_store_methods **storep)
{
    uint64_t size;
    ncs_io *io;
    size_t first = 0;
    int status;
    if (after != NULL) {
        while (first < NSTORES && registry[first] != after)
            first++;
        first++;
    }
    status = ncsi_io_posix_open(path, 0, &io);
    if (status != NCS_NOERR)
        return status;
    *storep = NULL;
    status = ncsi_io_size(io, &size);
    for (size_t i = first; status == NCS_NOERR && i < NSTORES; i++) {
        int claims = 0;
        if (registry[i]->read_only && (mode & NCS_WRITE))
            continue;
        status = registry[i]->probe(io, size, &claims);
        if (status != NCS_NOERR || claims == 0)
            continue;
        if (claims == NCSI_CLAIM_SURE) {
            *storep = registry[i];
            break;
        }
        if (*storep == NULL)
            *storep = registry[i];
    }
    if (status != NCS_NOERR)
        *storep = NULL;
    ncsi_io_close(io);
    /* the classic back end claims every file: none left is a registry
     * without it */
    if (status == NCS_NOERR && NEVER(*storep == NULL))
        status = NCS_ERR(NCS_ENOTNC);
    return status;
}
