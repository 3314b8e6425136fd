/*
 * engine_netcdf2.c -- a second netCDF-C, a release other than the one the
 * program is linked with, driven through the same version-2 calls as
 * engine_netcdf.c (configure --with-netcdf-c2=PREFIX names it).
 *
 * Two libnetcdf in one namespace would be one: the same names, so the
 * dynamic linker binds every call to whichever it loaded first.  The
 * second is loaded with dlmopen into a link-map namespace of its own,
 * with its own libhdf5, libc state and error variables, and reached only
 * through the pointers dlsym gives; the linked netCDF-C is untouched.
 * The prototypes are those of the linked <netcdf.h>: the v2 calls and
 * the two netCDF-4 storage calls have kept their signatures and the
 * format flags their values.
 *
 * ti_netcdf2_start loads it once, in main, before anything is timed; the
 * banner names its release.  If it cannot be loaded the engines say why
 * and are not available.
 */
#define _GNU_SOURCE             /* dlmopen and LM_ID_NEWLM are glibc's */
#include "timeit.h"

#include <dlfcn.h>
#include <netcdf.h>
#include <pthread.h>
#include <string.h>

#define FN(name) __typeof__(&name) name

static struct {
    FN(nccreate);
    FN(ncopen);
    FN(ncdimdef);
    FN(ncvardef);
    FN(ncvarid);
    FN(ncendef);
    FN(ncclose);
    FN(ncvarget);
    FN(ncvarput);
    FN(ncvarget1);
    FN(ncvargets);
    FN(ncvargetg);
    FN(nc_def_var_chunking);
    FN(nc_def_var_deflate);
    FN(nc_strerror);
    FN(nc_inq_libvers);
    int *ncerr, *ncopts;
} nc2;

static int tried, loaded;
static char why[256] = "not loaded";

/* Each name of the table above, in its order, for dlsym. */
static const char *const names[] = {
    "nccreate", "ncopen", "ncdimdef", "ncvardef", "ncvarid", "ncendef", "ncclose",
    "ncvarget", "ncvarput", "ncvarget1", "ncvargets", "ncvargetg", "nc_def_var_chunking",
    "nc_def_var_deflate", "nc_strerror", "nc_inq_libvers", "ncerr", "ncopts",
};

/* glibc keeps the table of pthread keys in libc, one per namespace, but
 * their values in the thread, where both namespaces find them: the second
 * libc hands out the key numbers the first already gave away, and the two
 * OpenSSLs (below libcurl, below each netCDF-C) overwrite each other's
 * thread state; the program then crashed at exit, in OPENSSL_cleanup.  So
 * the second namespace's keys start well past the first's. */
static int separate_keys(void *h)
{
    int (*create)(pthread_key_t *, void (*)(void *));
    pthread_key_t mine, theirs;
    *(void **)&create = dlsym(h, "pthread_key_create");
    if (create == NULL || pthread_key_create(&mine, NULL) != 0)
        return -1;
    pthread_key_delete(mine);
    do {
        if (create(&theirs, NULL) != 0)
            return -1;
    } while (theirs < mine + 32);
    return 0;
}

void ti_netcdf2_start(void)
{
    void *h, **slot = (void **)&nc2;
    if (tried)
        return;
    tried = 1;
    _Static_assert(sizeof nc2 == sizeof names / sizeof names[0] * sizeof(void *),
                   "one name per slot");
    h = dlmopen(LM_ID_NEWLM, TI_NETCDF2_LIB, RTLD_NOW | RTLD_LOCAL);
    if (h == NULL) {
        snprintf(why, sizeof why, "%s", dlerror());
        return;
    }
    if (separate_keys(h) != 0) {
        snprintf(why, sizeof why, "%s: cannot reserve its pthread keys", TI_NETCDF2_LIB);
        return;
    }
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if ((slot[i] = dlsym(h, names[i])) == NULL) {
            snprintf(why, sizeof why, "%s: no %s", TI_NETCDF2_LIB, names[i]);
            return;
        }
    *nc2.ncopts = 0;
    loaded = 1;
}

const char *ti_netcdf2_version(void)
{
    return loaded ? nc2.nc_inq_libvers() : why;
}

#define V2(call) ((call) == -1 ? (*nc2.ncerr != NC_NOERR ? *nc2.ncerr : NC_EINTERNAL) : NC_NOERR)

static int e_create(const char *path, const ti_layout *layout, int *ncidp)
{
    int cmode = layout->kind == TI_CHUNKED ? NC_NETCDF4 | NC_CLASSIC_MODEL
              : layout->format == 5 ? NC_64BIT_DATA
              : layout->format == 2 ? NC_64BIT_OFFSET : 0;
    *ncidp = -1;
    if (!loaded)
        return TI_NOT_BUILT;
    *ncidp = nc2.nccreate(path, cmode | NC_CLOBBER);
    return V2(*ncidp);
}

static int e_open(const char *path, int *ncidp)
{
    if (!loaded)
        return TI_NOT_BUILT;
    *ncidp = nc2.ncopen(path, NC_NOWRITE);
    return V2(*ncidp);
}

static int e_def_dim(int ncid, const char *dname, long len, int *dimidp)
{
    *dimidp = nc2.ncdimdef(ncid, dname, len);
    return V2(*dimidp);
}

static int e_def_var(int ncid, const char *vname, int type, int ndims, const int *dimids,
                     const ti_layout *layout, int *varidp)
{
    int status = V2(*varidp = nc2.ncvardef(ncid, vname, (nc_type)type, ndims, dimids));
    if (status == NC_NOERR && layout->kind == TI_CHUNKED)
        status = nc2.nc_def_var_chunking(ncid, *varidp, NC_CHUNKED, layout->chunks);
    if (status == NC_NOERR && layout->kind == TI_CHUNKED && layout->deflate > 0)
        status = nc2.nc_def_var_deflate(ncid, *varidp, 0, 1, layout->deflate);
    return status;
}

static int e_inq_varid(int ncid, const char *vname, int *varidp)
{
    return V2(*varidp = nc2.ncvarid(ncid, vname));
}

static int e_enddef(int ncid) { return V2(nc2.ncendef(ncid)); }
static int e_close(int ncid) { return V2(nc2.ncclose(ncid)); }

static int e_get(int ncid, int varid, const long *start, const long *count, void *buf)
{
    return V2(nc2.ncvarget(ncid, varid, start, count, buf));
}

static int e_put(int ncid, int varid, const long *start, const long *count, const void *buf)
{
    return V2(nc2.ncvarput(ncid, varid, start, count, buf));
}

static int e_get1(int ncid, int varid, const long *index, void *value)
{
    return V2(nc2.ncvarget1(ncid, varid, index, value));
}

static int e_gets(int ncid, int varid, const long *start, const long *count, const long *stride,
                  void *buf)
{
    return V2(nc2.ncvargets(ncid, varid, start, count, stride, buf));
}

static int e_getg(int ncid, int varid, int ndims, const long *start, const long *count,
                  const long *stride, const long *imap, size_t elsize, void *buf)
{
    (void)ndims, (void)elsize;
    return V2(nc2.ncvargetg(ncid, varid, start, count, stride, imap, buf));
}

static int e_get1_row(int ncid, int varid, long row, long ncols, short *out)
{
    long idx[2] = { row, 0 };
    for (long c = 0; c < ncols; c++) {
        idx[1] = c;
        if (nc2.ncvarget1(ncid, varid, idx, &out[c]) == -1)
            return *nc2.ncerr != NC_NOERR ? *nc2.ncerr : NC_EINTERNAL;
    }
    return NC_NOERR;
}

static const char *e_strerror(int status)
{
    return loaded ? nc2.nc_strerror(status) : why;
}

const ti_lib ti_lib_netcdf2 = {
    .name = "netCDF-C2",
    .create = e_create,
    .open = e_open,
    .def_dim = e_def_dim,
    .def_var = e_def_var,
    .inq_varid = e_inq_varid,
    .enddef = e_enddef,
    .get = e_get,
    .put = e_put,
    .get1 = e_get1,
    .gets = e_gets,
    .getg = e_getg,
    .get1_row = e_get1_row,
    .close = e_close,
    .strerror = e_strerror,
};
