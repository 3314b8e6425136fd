/*
 * v2header.c -- the v2 header: every name a legacy program may take from
 * <netcdf.h>.
 *
 * Built twice (tests/v2/v2.am), against ncslab's <netcdf.h> and against
 * netCDF-C's, from the same source.  Both builds must compile, which checks
 * each declaration of netCDF-C 4.9's v2 section and the netCDF-3 inquiry
 * calls against the exact prototype netCDF-C gives (a function pointer of
 * that type, selected by _Generic: a mismatch stops the compile), and both
 * print the value of every constant of that section and of the netCDF 2.4
 * header whose value netCDF-C defines; tests/v2/v2diff_check.sh requires the
 * two outputs to be equal line for line.  The names of netCDF 2's header
 * that netCDF-C no longer has (ncvoid, NC_UNSPECIFIED, NC_RDWR,
 * MAX_NC_OPEN, PROTO, ...) are used by the ncslab build only.
 *
 * Usage: v2header DIR FORMAT (both ignored; the pair runner passes them).
 */
#include <netcdf.h>

#include <stdio.h>
#include <string.h>

#ifndef _NETCDF_
#error "<netcdf.h> does not define _NETCDF_"
#endif

/* fn must have exactly type T (a pointer-to-function type). */
#define HAS_TYPE(fn, T) _Static_assert(_Generic(&(fn), T: 1, default: 0), \
                                       #fn " is not " #T)

/* ---- the v2 calls, as netCDF-C 4.9 declares them ------------------------ */
HAS_TYPE(nc_advise, void (*)(const char *, int, const char *, ...));
HAS_TYPE(nctypelen, int (*)(nc_type));
HAS_TYPE(nccreate, int (*)(const char *, int));
HAS_TYPE(ncopen, int (*)(const char *, int));
HAS_TYPE(ncsetfill, int (*)(int, int));
HAS_TYPE(ncredef, int (*)(int));
HAS_TYPE(ncendef, int (*)(int));
HAS_TYPE(ncsync, int (*)(int));
HAS_TYPE(ncabort, int (*)(int));
HAS_TYPE(ncclose, int (*)(int));
HAS_TYPE(ncinquire, int (*)(int, int *, int *, int *, int *));
HAS_TYPE(ncdimdef, int (*)(int, const char *, long));
HAS_TYPE(ncdimid, int (*)(int, const char *));
HAS_TYPE(ncdiminq, int (*)(int, int, char *, long *));
HAS_TYPE(ncdimrename, int (*)(int, int, const char *));
HAS_TYPE(ncattput, int (*)(int, int, const char *, nc_type, int, const void *));
HAS_TYPE(ncattinq, int (*)(int, int, const char *, nc_type *, int *));
HAS_TYPE(ncattget, int (*)(int, int, const char *, void *));
HAS_TYPE(ncattcopy, int (*)(int, int, const char *, int, int));
HAS_TYPE(ncattname, int (*)(int, int, int, char *));
HAS_TYPE(ncattrename, int (*)(int, int, const char *, const char *));
HAS_TYPE(ncattdel, int (*)(int, int, const char *));
HAS_TYPE(ncvardef, int (*)(int, const char *, nc_type, int, const int *));
HAS_TYPE(ncvarid, int (*)(int, const char *));
HAS_TYPE(ncvarinq, int (*)(int, int, char *, nc_type *, int *, int *, int *));
HAS_TYPE(ncvarput1, int (*)(int, int, const long *, const void *));
HAS_TYPE(ncvarget1, int (*)(int, int, const long *, void *));
HAS_TYPE(ncvarput, int (*)(int, int, const long *, const long *, const void *));
HAS_TYPE(ncvarget, int (*)(int, int, const long *, const long *, void *));
HAS_TYPE(ncvarputs, int (*)(int, int, const long *, const long *, const long *,
                            const void *));
HAS_TYPE(ncvargets, int (*)(int, int, const long *, const long *, const long *,
                            void *));
HAS_TYPE(ncvarputg, int (*)(int, int, const long *, const long *, const long *,
                            const long *, const void *));
HAS_TYPE(ncvargetg, int (*)(int, int, const long *, const long *, const long *,
                            const long *, void *));
HAS_TYPE(ncvarrename, int (*)(int, int, const char *));
HAS_TYPE(ncrecinq, int (*)(int, int *, int *, long *));
HAS_TYPE(ncrecget, int (*)(int, long, void **));
HAS_TYPE(ncrecput, int (*)(int, long, void *const *));
HAS_TYPE(ncerr, int *);
HAS_TYPE(ncopts, int *);

/* ---- the newer calls v2 programs mix in --------------------------------- */
HAS_TYPE(nc_strerror, const char *(*)(int));
HAS_TYPE(nc_inq_libvers, const char *(*)(void));
HAS_TYPE(nc_set_default_format, int (*)(int, int *));
HAS_TYPE(nc_inq, int (*)(int, int *, int *, int *, int *));
HAS_TYPE(nc_inq_ndims, int (*)(int, int *));
HAS_TYPE(nc_inq_nvars, int (*)(int, int *));
HAS_TYPE(nc_inq_natts, int (*)(int, int *));
HAS_TYPE(nc_inq_unlimdim, int (*)(int, int *));
HAS_TYPE(nc_inq_format, int (*)(int, int *));
HAS_TYPE(nc_inq_dimid, int (*)(int, const char *, int *));
HAS_TYPE(nc_inq_dim, int (*)(int, int, char *, size_t *));
HAS_TYPE(nc_inq_dimname, int (*)(int, int, char *));
HAS_TYPE(nc_inq_dimlen, int (*)(int, int, size_t *));
HAS_TYPE(nc_inq_var, int (*)(int, int, char *, nc_type *, int *, int *, int *));
HAS_TYPE(nc_inq_varid, int (*)(int, const char *, int *));
HAS_TYPE(nc_inq_varname, int (*)(int, int, char *));
HAS_TYPE(nc_inq_vartype, int (*)(int, int, nc_type *));
HAS_TYPE(nc_inq_varndims, int (*)(int, int, int *));
HAS_TYPE(nc_inq_vardimid, int (*)(int, int, int *));
HAS_TYPE(nc_inq_varnatts, int (*)(int, int, int *));
HAS_TYPE(nc_inq_att, int (*)(int, int, const char *, nc_type *, size_t *));
HAS_TYPE(nc_inq_attid, int (*)(int, int, const char *, int *));
HAS_TYPE(nc_inq_atttype, int (*)(int, int, const char *, nc_type *));
HAS_TYPE(nc_inq_attlen, int (*)(int, int, const char *, size_t *));
HAS_TYPE(nc_inq_attname, int (*)(int, int, int, char *));

/* nc_type is an int, and NC_LONG data are 32-bit nclongs. */
_Static_assert(_Generic((nc_type)0, int: 1, default: 0), "nc_type is int");
_Static_assert(sizeof(nclong) == 4 && (nclong)-1 < 0, "nclong is signed 32-bit");

/* ---- netCDF 2's names that netCDF-C dropped: ncslab only ----------------- */
#ifdef NCSLAB_V2_NETCDF_H
#ifndef HAVE_PROTOTYPES
#error "HAVE_PROTOTYPES is not defined"
#endif
#if NC_OLD_FILLVALUES
#error "NC_OLD_FILLVALUES is not 0"
#endif
_Static_assert(NC_RDWR == NC_WRITE, "NC_RDWR opens for writing");
_Static_assert(NC_UNSPECIFIED == NC_NAT && NC_UNSPECIFIED == 0, "NC_UNSPECIFIED");
_Static_assert(MAX_NC_OPEN >= 32, "MAX_NC_OPEN at least netCDF 2's 32");

/* declared the netCDF 2 way */
static int twice PROTO((ncvoid *p));

static int twice(void *p)
{
    return 2 * *(int *)p;
}

static int legacy_names(void)
{
    int x = 21;
    ncvoid *p = &x;
    return twice(p) == 42;
}
#else
static int legacy_names(void)
{
    return 1;
}
#endif

#define PRINT_INT(name) printf("%-16s %ld\n", #name, (long)(name))
#define PRINT_REAL(name) printf("%-16s %.17g\n", #name, (double)(name))

int main(void)
{
    /* netCDF-C 4.9's v2 section */
    PRINT_INT(FILL_BYTE);
    PRINT_INT(FILL_CHAR);
    PRINT_INT(FILL_SHORT);
    PRINT_INT(FILL_LONG);
    PRINT_REAL(FILL_FLOAT);
    PRINT_REAL(FILL_DOUBLE);
    PRINT_INT(MAX_NC_DIMS);
    PRINT_INT(MAX_NC_ATTRS);
    PRINT_INT(MAX_NC_VARS);
    PRINT_INT(MAX_NC_NAME);
    PRINT_INT(MAX_VAR_DIMS);
    PRINT_INT(NC_ENTOOL);
    PRINT_INT(NC_EXDR);
    PRINT_INT(NC_SYSERR);
    PRINT_INT(NC_FATAL);
    PRINT_INT(NC_VERBOSE);
    PRINT_INT(NC2_ERR);
    PRINT_INT(sizeof(nclong));
    /* the netCDF 2.4 header's names that netCDF-C keeps */
    printf("%-16s %s\n", "_FillValue", _FillValue);
    PRINT_INT(NC_NOERR);
    PRINT_INT(NC_EBADID);
    PRINT_INT(NC_ENFILE);
    PRINT_INT(NC_EEXIST);
    PRINT_INT(NC_EINVAL);
    PRINT_INT(NC_EPERM);
    PRINT_INT(NC_ENOTINDEFINE);
    PRINT_INT(NC_EINDEFINE);
    PRINT_INT(NC_EINVALCOORDS);
    PRINT_INT(NC_EMAXDIMS);
    PRINT_INT(NC_ENAMEINUSE);
    PRINT_INT(NC_ENOTATT);
    PRINT_INT(NC_EMAXATTS);
    PRINT_INT(NC_EBADTYPE);
    PRINT_INT(NC_EBADDIM);
    PRINT_INT(NC_EUNLIMPOS);
    PRINT_INT(NC_EMAXVARS);
    PRINT_INT(NC_ENOTVAR);
    PRINT_INT(NC_EGLOBAL);
    PRINT_INT(NC_ENOTNC);
    PRINT_INT(NC_ESTS);
    PRINT_INT(NC_EMAXNAME);
    PRINT_INT(NC_EUNLIMIT);
    PRINT_INT(NC_BYTE);
    PRINT_INT(NC_CHAR);
    PRINT_INT(NC_SHORT);
    PRINT_INT(NC_LONG);
    PRINT_INT(NC_FLOAT);
    PRINT_INT(NC_DOUBLE);
    PRINT_INT(NC_NOFILL);
    PRINT_INT(NC_FILL);
    PRINT_INT(NC_NOWRITE);
    PRINT_INT(NC_WRITE);
    PRINT_INT(NC_CLOBBER);
    PRINT_INT(NC_NOCLOBBER);
    PRINT_INT(NC_UNLIMITED);
    PRINT_INT(NC_GLOBAL);
    if (!legacy_names()) {
        puts("FAIL: netCDF 2 names");
        return 1;
    }
    return 0;
}
