/*
 * nc4_common.c -- what the netCDF-4 differential tests share (see
 * nc4_common.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <netcdf.h>
#include <netcdf_filter.h>

#include "nc4_common.h"

static int ns_put_att(int ncid, int varid, const char *name, int xtype, size_t len,
                      const void *op)
{
    return ncs_put_att(ncid, varid, name, xtype, len, NCS_NAT, op);
}

static int ns_put_vars(int ncid, int varid, const size_t *start, const size_t *count,
                       const ptrdiff_t *stride, const void *op)
{
    return ncs_put(ncid, varid, start, count, stride, NULL, NCS_NAT, op);
}

static int ns_get_vars(int ncid, int varid, const size_t *start, const size_t *count,
                       const ptrdiff_t *stride, void *ip)
{
    return ncs_get(ncid, varid, start, count, stride, NULL, NCS_NAT, ip);
}

static int ns_put_var_int(int ncid, int varid, const int *op)
{
    return ncs_put(ncid, varid, NULL, NULL, NULL, NULL, NCS_INT, op);
}

const nc4lib nc4_netcdf = {
    "netCDF-C", nc_create, nc_open, nc_def_dim, nc_def_var, nc_def_var_chunking,
    nc_inq_var_chunking, nc_def_var_deflate, nc_def_var_fletcher32, nc_def_var_zstandard,
    nc_put_att, nc_put_vars, nc_get_vars, nc_put_var_int, nc_rename_var, nc_rename_att,
    nc_del_att, nc_redef, nc_enddef, nc_sync, nc_close};
const nc4lib nc4_ncslab = {
    "ncslab", ncs_create, ncs_open, ncs_def_dim, ncs_def_var, ncs_def_var_chunking,
    ncs_inq_var_chunking, ncs_def_var_deflate, ncs_def_var_fletcher32, ncs_def_var_zstd,
    ns_put_att, ns_put_vars, ns_get_vars, ns_put_var_int, ncs_rename_var, ncs_rename_att,
    ncs_del_att, ncs_redef, ncs_enddef, ncs_sync, ncs_close};

char *nc4_run(const char *cmd, int *status)
{
    char *buf = NULL;
    size_t n = 0, cap = 0;
    FILE *p = popen(cmd, "r");
    if (p == NULL)
        return NULL;
    for (;;) {
        size_t got;
        if (cap - n < 4096) {
            cap = cap ? cap * 2 : 65536;
            buf = realloc(buf, cap);
            ck_assert(buf != NULL);
        }
        got = fread(buf + n, 1, cap - n - 1, p);
        if (got == 0)
            break;
        n += got;
    }
    buf[n] = '\0';
    *status = pclose(p);
    return buf;
}

int nc4_make_tmpdir(char *dir, size_t n, const char *prog)
{
    snprintf(dir, n, "%s.%ld", prog, (long)getpid());
    if (mkdir(dir, 0700) != 0) {
        perror(dir);
        return -1;
    }
    return 0;
}

int nc4_run_suite(Suite *s, const char *prog, const char *dir, const char *const *subdirs)
{
    SRunner *sr = srunner_create(s);
    int nfail;

    srunner_run_all(sr, CK_NORMAL);
    nfail = srunner_ntests_failed(sr);
    srunner_free(sr);
    if (nfail != 0) {
        printf("%s: files of failed cases kept in %s\n", prog, dir);
        return EXIT_FAILURE;
    }
    for (; subdirs != NULL && *subdirs != NULL; subdirs++) {
        char sub[512];
        snprintf(sub, sizeof sub, "%s/%s", dir, *subdirs);
        rmdir(sub);
    }
    /* fails, keeping the files, when a passing test left some */
    rmdir(dir);
    return EXIT_SUCCESS;
}
