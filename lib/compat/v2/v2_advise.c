/*
 * v2_advise.c -- the legacy error behaviour of the v2 API, in one place.
 *
 * A failing v2 call sets ncerr (NC_SYSERR for an operating-system error),
 * prints "routine: details: message" to stderr when ncopts has NC_VERBOSE,
 * and exits with status ncopts when ncopts has NC_FATAL.  The default
 * ncopts is NC_FATAL|NC_VERBOSE, as in netCDF.  Nothing else in ncslab
 * prints or exits.
 */
#include "config.h"
#include "v2_names.h"
#include "ncslab/netcdf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

int ncopts = NC_FATAL | NC_VERBOSE;
int ncerr = NC_NOERR;

void nc_advise(const char *routine_name, int err, const char *fmt, ...)
{
    va_list ap;
    ncerr = NC_ISSYSERR(err) ? NC_SYSERR : err;
    if (ncopts & NC_VERBOSE) {
        fprintf(stderr, "%s: ", routine_name);
        va_start(ap, fmt);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
        if (err != NC_NOERR)
            fprintf(stderr, ": %s", nc_strerror(err));
        fputc('\n', stderr);
        fflush(stderr);
    }
    if ((ncopts & NC_FATAL) && err != NC_NOERR)
        exit(ncopts);
}
