/*
 * dropin_real.c -- netCDF-C behind the drop-in: found, loaded once, and
 * kept to itself (dropin.h).
 *
 * netCDF-C is loaded on the first call ncslab does not serve, never at
 * start, so that a program reading classic files does not pay for
 * loading it (and HDF5, curl and the rest it needs).  It is opened by
 * path (its soname is the drop-in's own, which the loader would answer
 * with the drop-in) with RTLD_DEEPBIND, so that netCDF-C's calls to its
 * own functions bind inside it rather than to the drop-in's names of the
 * same spelling, and RTLD_LOCAL, so that nothing else binds to it.  It
 * shares the program's C library, so memory it allocates and the program
 * frees (a string of nc_inq_path, a list of NCpathcanonical) stays in one
 * heap.  doc/dropin.md says why this, not a second link-map namespace.
 *
 * Settings made before it is loaded that netCDF-C keeps globally (the
 * default format, the chunk cache, the alignment, the log level) are
 * remembered by dropin_file.c and replayed when it loads (ncsd_replay).
 *
 * Environment: NCSLAB_DROPIN=auto|ncslab|netcdf chooses who serves
 * (dropin_file.c); NCSLAB_NETCDF_C=PATH names the library to forward to
 * instead of the one configure found, and NCSLAB_NETCDF_C=none forwards
 * nothing.
 */
#include "config.h"
#include "dropin.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef NCSD_NETCDF_C
#define NCSD_NETCDF_C ""
#endif

struct ncsd_real ncsd_real;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static void *handle;
static int *real_ncopts, *real_ncerr;



static void *find(const char *name)
{
    return dlsym(handle, name);
}

static void load(void)
{
    const char *path = getenv("NCSLAB_NETCDF_C");
    if (path == NULL || *path == '\0')
        path = NCSD_NETCDF_C;
    if (*path == '\0' || strcmp(path, "none") == 0 || ncsd_policy() == NCSD_ONLY_NCSLAB)
        return;
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
    if (h == NULL)
        return;
    /* The drop-in itself, named by mistake, would call itself forever. */
    if (dlsym(h, "nc_open") == (void *)&nc_open || dlsym(h, "nc_open") == NULL) {
        dlclose(h);
        return;
    }
    handle = h;
    ncsd_real_load(&ncsd_real, find);
    real_ncopts = dlsym(h, "ncopts");
    real_ncerr = dlsym(h, "ncerr");
    ncsd_replay();
}

int ncsd_netcdf(void)
{
    pthread_once(&once, load);
    return handle != NULL;
}

void *ncsd_sym(const char *name)
{
    return ncsd_netcdf() ? dlsym(handle, name) : NULL;
}

void ncsd_v2_enter(void)
{
    if (real_ncopts != NULL)
        *real_ncopts = ncopts;
}

int ncsd_v2_leave(int status)
{
    if (real_ncerr != NULL)
        ncerr = *real_ncerr;
    return status;
}

int ncsd_v2_absent(const char *routine)
{
    nc_advise(routine, NC_ENOTBUILT, "");
    return -1;
}

int ncsd_policy(void)
{
    static int policy = -1;
    if (policy < 0) {
        const char *v = getenv("NCSLAB_DROPIN");
        int p = NCSD_AUTO;
        if (v != NULL && strcmp(v, "ncslab") == 0)
            p = NCSD_ONLY_NCSLAB;
        else if (v != NULL && strcmp(v, "netcdf") == 0)
            p = NCSD_ONLY_NETCDF;
        policy = p;
    }
    return policy;
}
