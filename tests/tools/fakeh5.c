/*
 * fakeh5.c -- a library that stands where HDF5's is expected (installed
 * by lazyh5_check.sh under HDF5's SONAME in a directory searched first)
 * and is not a usable HDF5: it has H5get_libversion only, so ncslab's
 * loader gets past its release check and then misses every other symbol,
 * or, with FAKEH5_VERSION=MAJOR.MINOR.RELEASE, reports that release.
 */
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>

herr_t H5get_libversion(unsigned *majnum, unsigned *minnum, unsigned *relnum)
{
    const char *v = getenv("FAKEH5_VERSION");
    *majnum = H5_VERS_MAJOR;
    *minnum = H5_VERS_MINOR;
    *relnum = H5_VERS_RELEASE;
    if (v != NULL && sscanf(v, "%u.%u.%u", majnum, minnum, relnum) != 3)
        return -1;
    return 0;
}
