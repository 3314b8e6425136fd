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

#include <limits.h>

int ncsi_file_register(ncs_file *f);          /* assigns f->ncid */
/* Recomputes what depends on the file's mode flags and variable count
 * (f->nfast). */
void ncsi_file_modes(ncs_file *f);
void ncsi_file_unregister(ncs_file *f);

/* ncs_create and ncs_open for another opener (the parallel API,
 * lib/par): ncs_create with store (NULL: the registry's choice), and
 * ncs_open where pick, given the registry's status and choice for the
 * file, may put another store in its place (and its arg), or an error;
 * arg reaches the store's open or create as f->open_arg. */
typedef int (*ncsi_store_picker)(int status, const ncs_store_methods **storep,
                                 const void **argp);
int ncsi_file_create_with(const char *path, int cmode, const ncs_store_methods *store,
                          const void *arg, int *ncidp);
int ncsi_file_open_with(const char *path, int mode, ncsi_store_picker pick, const void *arg,
                        int *ncidp);

/* Drops f's pending nonblocking requests (api_data.c), at close. */
void ncsi_reqs_drop(ncs_file *f);

/* The general path of ncs_get1, every check included (api_data.c), for
 * the fast path of api_get1.c. */
int ncsi_get1_checked(int ncid, int varid, const size_t *index, int memtype, void *buf);

/* The open file of an ncid, or NULL: ncid = slot << 16, as netCDF-C
 * numbers its files.  Inline, because every data call starts here. */
#define NCSI_MAX_OPEN 32768
#define NCSI_ID_SHIFT 16
extern ncs_file *ncsi_open_files[NCSI_MAX_OPEN];
/* One test: a negative ncid or one with low bits set is none; 0 finds
 * slot 0, which ncsi_file_register never fills; every other multiple of
 * 1 << NCSI_ID_SHIFT below INT_MAX has a slot. */
_Static_assert((unsigned)NCSI_MAX_OPEN << NCSI_ID_SHIFT == (unsigned)INT_MAX + 1,
               "a positive int ncid has a slot in the table");
static inline ncs_file *ncsi_file_get(int ncid)
{
    if (((unsigned)ncid & (0x80000000u | ((1u << NCSI_ID_SHIFT) - 1))) != 0)
        return NULL;
    return ncsi_open_files[(unsigned)ncid >> NCSI_ID_SHIFT];
}


#endif /* NCSI_API_H */
