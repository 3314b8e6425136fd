/*
 * dropin_ids.c -- the drop-in's ncids (dropin.h).
 *
 * A drop-in ncid is slot << 16 | group: slot indexes the table below,
 * whose entry holds the side (ncslab or netCDF-C) and that side's own
 * high half for the file; group, netCDF-C's group within the file (0 for
 * the root, the only group of an ncslab file), passes through.  Both
 * libraries use every bit of the high half, so neither's ids can be
 * passed through as they are.  Slots are handed out lowest first, as both
 * libraries do, so a program sees ids like netCDF-C's (65536 for the
 * first file).  Lookups read one entry without a lock; binding and
 * unbinding take one.
 */
#include "config.h"
#include "dropin.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#define SLOTS 32768   /* slot << 16 stays a positive int */

/* side << 16 | the side's high half; 0 for a free slot */
static _Atomic unsigned int table[SLOTS];
/* the writer of a file netCDF-C may take over (dropin.h), or NULL */
static struct ncsd_writer *writers[SLOTS];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

int ncsd_route(int ncid, int *real)
{
    if (ncid > 0) {
        unsigned int slot = (unsigned int)ncid >> 16;
        unsigned int e = slot < SLOTS ?
            atomic_load_explicit(&table[slot], memory_order_acquire) : 0;
        if (e != 0) {
            *real = (int)((e & 0xffffu) << 16 | ((unsigned int)ncid & 0xffffu));
            return (int)(e >> 16);
        }
    }
    *real = -1;
    return NCSD_NONE;
}

int ncsd_bind(int side, int real, int *ncidp)
{
    unsigned int high = (unsigned int)real >> 16;
    int status = NC_ENFILE;

    pthread_mutex_lock(&lock);
    for (unsigned int slot = 1; slot < SLOTS; slot++)
        if (atomic_load_explicit(&table[slot], memory_order_relaxed) == 0) {
            atomic_store_explicit(&table[slot], (unsigned int)side << 16 | high,
                                  memory_order_release);
            *ncidp = (int)(slot << 16 | ((unsigned int)real & 0xffffu));
            status = NC_NOERR;
            break;
        }
    pthread_mutex_unlock(&lock);
    return status;
}

void ncsd_unbind(int ncid)
{
    unsigned int slot = (unsigned int)ncid >> 16;
    struct ncsd_writer *w;
    if (ncid <= 0 || slot >= SLOTS)
        return;
    pthread_mutex_lock(&lock);
    atomic_store_explicit(&table[slot], 0, memory_order_release);
    w = writers[slot];
    writers[slot] = NULL;
    pthread_mutex_unlock(&lock);
    if (w != NULL) {
        free(w->path);
        free(w->made_as);
        free(w->settings);
        free(w);
    }
}

void ncsd_rebind(int ncid, int side, int real)
{
    unsigned int slot = (unsigned int)ncid >> 16;
    if (ncid <= 0 || slot >= SLOTS)
        return;
    pthread_mutex_lock(&lock);
    atomic_store_explicit(&table[slot], (unsigned int)side << 16 | (unsigned int)real >> 16,
                          memory_order_release);
    pthread_mutex_unlock(&lock);
}

void ncsd_note_writer(int ncid, struct ncsd_writer *w)
{
    unsigned int slot = (unsigned int)ncid >> 16;
    struct ncsd_writer *old = NULL;
    if (ncid > 0 && slot < SLOTS) {
        pthread_mutex_lock(&lock);
        old = writers[slot];
        writers[slot] = w;
        pthread_mutex_unlock(&lock);
    } else {
        old = w;
    }
    if (old != NULL) {
        free(old->path);
        free(old->made_as);
        free(old->settings);
        free(old);
    }
}

struct ncsd_writer *ncsd_writer(int ncid)
{
    unsigned int slot = (unsigned int)ncid >> 16;
    return ncid > 0 && slot < SLOTS ? writers[slot] : NULL;
}

int ncsd_same_file(int ncid, int real)
{
    return (int)(((unsigned int)ncid & ~0xffffu) | ((unsigned int)real & 0xffffu));
}
