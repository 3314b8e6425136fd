/*
 * h5_load.c -- loads HDF5 on the first netCDF-4 open or create and fills
 * the table the folder calls it through (h5_load.h).
 *
 * The libraries are opened by their SONAMEs (configure finds them), so a
 * program that is itself linked with HDF5, directly or through netCDF-C,
 * gets the copy already mapped and there is one HDF5 state in the process,
 * as when libncslab was linked with HDF5.
 *
 * Invariants: the table is written only by load(), which pthread_once runs
 * once per process; after it succeeded every pointer in the table is
 * non-NULL, after it failed the table is all NULL and every later call
 * fails the same way.  A library whose code has run is never closed again:
 * HDF5 registers exit handlers as soon as any of its functions is called.
 */
#include "common.h"

#include <dlfcn.h>
#include <hdf5.h>
#include <hdf5_hl.h>
#include <pthread.h>
#include <string.h>

/* HDF5's names as HDF5 spells them: the table is called explicitly here. */
#define NCSI_H5_NO_REDIRECT
#include "h5_load.h"

struct ncsi_h5_table ncsi_h5;

_Static_assert(sizeof(void *) == sizeof ncsi_h5.p_H5open,
               "function pointers are stored from dlsym's void *");

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static int load_status;

/* *slot = the address of name in lib (or, for data, the one the process
 * uses); 0, or -1 when there is none. */
static int bind_symbol(void *lib, int data, const char *name, void *slot)
{
    void *sym = NULL;
    /* An executable that reads an HDF5 variable itself (H5T_NATIVE_INT in
     * a test, say) holds a copy of it that HDF5 writes instead of its own
     * (a copy relocation): the process's first definition is the live
     * one, and HDF5 is in the global scope (RTLD_GLOBAL) to be found. */
    if (data)
        sym = dlsym(RTLD_DEFAULT, name);
    if (sym == NULL)
        sym = dlsym(lib, name);
    if (sym == NULL)
        return -1;
    memcpy(slot, &sym, sizeof sym);
    return 0;
}

#define LOAD_FUNC(name) missing |= bind_symbol(lib, 0, #name, &ncsi_h5.p_##name);
#define LOAD_DATA(name) missing |= bind_symbol(lib, 1, #name, &ncsi_h5.p_##name);

/* Global and lazy, as the dynamic linker loads a linked library: HDF5's
 * filter plugins find its symbols, and a missing dependency or symbol
 * version still fails the dlopen.  Immediate binding of HDF5's thirty-odd
 * dependencies (libcurl, GnuTLS, Kerberos, ...) cost a netCDF-4 open and
 * close 24.3 M instructions in place of 19.7 M (18.3 M linked). */
#define LOAD_FLAGS (RTLD_LAZY | RTLD_GLOBAL)

static int load(void)
{
    unsigned major = 0, minor = 0, release = 0;
    int missing = 0;
    void *lib = dlopen(NCSI_HDF5_SONAME, LOAD_FLAGS);
    if (lib == NULL)
        return NCS_ERR(NCS_ENOTBUILT);
    if (bind_symbol(lib, 0, "H5get_libversion", &ncsi_h5.p_H5get_libversion) != 0) {
        dlclose(lib);
        return NCS_ERR(NCS_ENOTBUILT);
    }
    /* A newer release of the same series under the same SONAME keeps the
     * interface; an older one may lack what the headers declare. */
    if (ncsi_h5.p_H5get_libversion(&major, &minor, &release) < 0 || major != H5_VERS_MAJOR ||
        minor != H5_VERS_MINOR || release < H5_VERS_RELEASE)
        return NCS_ERR(NCS_ENOTBUILT);
    NCSI_H5_FUNCS(LOAD_FUNC)
    NCSI_H5_DATA(LOAD_DATA)
    if (missing)
        return NCS_ERR(NCS_ENOTBUILT);
    lib = dlopen(NCSI_HDF5_HL_SONAME, LOAD_FLAGS);
    if (lib == NULL)
        return NCS_ERR(NCS_ENOTBUILT);
    NCSI_H5_HL_FUNCS(LOAD_FUNC)
    if (missing)
        return NCS_ERR(NCS_ENOTBUILT);
    if (ncsi_h5.p_H5open() < 0)
        return NCS_ERR(NCS_EHDFERR);
    /* failures are reported as status codes, not printed */
    ncsi_h5.p_H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    return NCS_NOERR;
}

static void load_once_run(void)
{
    load_status = load();
    if (load_status != NCS_NOERR)
        memset(&ncsi_h5, 0, sizeof ncsi_h5);
}

int ncsi_nc4_init(void)
{
    if (pthread_once(&load_once, load_once_run) != 0)
        return NCS_ERR(NCS_ENOTBUILT);
    return load_status;
}
