/*
 * api.h -- what the files of the API layer (api_*.c) share: the table of
 * open files.  The API layer validates every caller input; it uses every
 * layer below but no store's internals.
 */
#ifndef NCSI_API_H
#define NCSI_API_H

#include "common.h"
#include "model.h"
#include "engine.h"
#include "io.h"
#include "store.h"
#include "chunk.h"       /* the chunk cache's process-wide budget and counters */

int ncsi_file_register(ncs_file *f);          /* assigns f->ncid */
/* Recomputes what depends on the file's mode flags and variable count
 * (f->nfast). */
void ncsi_file_modes(ncs_file *f);
void ncsi_file_unregister(ncs_file *f);

/* The open file of an ncid, or NULL: ncid = slot << 16, as netCDF-C
 * numbers its files.  Inline, because every data call starts here. */
#define NCSI_MAX_OPEN 32768
#define NCSI_ID_SHIFT 16
extern ncs_file *ncsi_open_files[NCSI_MAX_OPEN];
static inline ncs_file *ncsi_file_get(int ncid)
{
    unsigned slot = (unsigned)ncid >> NCSI_ID_SHIFT;
    if (ncid <= 0 || (ncid & ((1 << NCSI_ID_SHIFT) - 1)) != 0 || slot >= NCSI_MAX_OPEN)
        return NULL;
    return ncsi_open_files[slot];
}


#endif /* NCSI_API_H */
