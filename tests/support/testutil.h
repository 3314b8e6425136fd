/*
 * testutil.h -- helpers shared by the Check unit suites of the native API.
 *
 * Everything here is static: each check_*.c program includes this header
 * once.  Values are carried between the test and the library as long long
 * (every test value is an integer small enough to be exact in a float), and
 * converted to and from each memory type by tu_store / tu_load.
 *
 * Scratch files live in the current directory (the build tree), named after
 * the program, the test and the process id, and are removed by the test that
 * made them.
 */
#ifndef NCSLAB_TESTUTIL_H
#define NCSLAB_TESTUTIL_H

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ncslab.h"

/* A status assertion that names the call, the code and the message. */
#define NCS_IS(call, want)                                                  \
    do {                                                                    \
        int tu_s_ = (call);                                                 \
        int tu_w_ = (want);                                                 \
        ck_assert_msg(tu_s_ == tu_w_, "%s -> %d (%s), expected %d (%s)",    \
                      #call, tu_s_, ncs_strerror(tu_s_), tu_w_,             \
                      ncs_strerror(tu_w_));                                 \
    } while (0)
#define NCS_OK(call) NCS_IS(call, NCS_NOERR)

/* An assertion for loops over elements: Check's ck_assert_msg records its
 * location through a write(2) each time it passes, which in a loop over
 * every byte of a buffer costs more than the code under test; this one
 * costs nothing until it fails. */
#define TU_EXPECT(cond, ...)                                                \
    do {                                                                    \
        if (!(cond))                                                        \
            ck_abort_msg(__VA_ARGS__);                                      \
    } while (0)

#define TU_NELEMS(a) (sizeof(a) / sizeof((a)[0]))

/* Classic formats: create flags, the format ncs_inq_format reports, and
 * whether the CDF-5 types are allowed. */
typedef struct tu_format {
    const char *name;
    int cmode;
    int format;
    int cdf5;
} tu_format;

static const tu_format tu_formats[] __attribute__((unused)) = {
    {"CDF-1", 0, NCS_FORMAT_CLASSIC, 0},
    {"CDF-2", NCS_64BIT_OFFSET, NCS_FORMAT_64BIT_OFFSET, 0},
    {"CDF-5", NCS_64BIT_DATA, NCS_FORMAT_64BIT_DATA, 1},
};
#define TU_NFORMATS ((int)TU_NELEMS(tu_formats))

/* Last type valid in a format. */
static inline int tu_last_type(const tu_format *f)
{
    return f->cdf5 ? NCS_UINT64 : NCS_DOUBLE;
}

static inline const char *tu_type_name(int t)
{
    static const char *const n[] = {"nat", "byte", "char", "short", "int",
                                    "float", "double", "ubyte", "ushort",
                                    "uint", "int64", "uint64"};
    return t >= 0 && t <= NCS_UINT64 ? n[t] : "?";
}

static inline size_t tu_size(int t)
{
    switch (t) {
    case NCS_BYTE: case NCS_CHAR: case NCS_UBYTE: return 1;
    case NCS_SHORT: case NCS_USHORT: return 2;
    case NCS_INT: case NCS_UINT: case NCS_FLOAT: return 4;
    case NCS_DOUBLE: case NCS_INT64: case NCS_UINT64: return 8;
    default: return 0;
    }
}

/* Stores v as element i of a memory array of type t. */
static inline void tu_store(int t, void *buf, ptrdiff_t i, long long v)
{
    switch (t) {
    case NCS_BYTE: ((signed char *)buf)[i] = (signed char)v; break;
    case NCS_CHAR: ((char *)buf)[i] = (char)v; break;
    case NCS_UBYTE: ((unsigned char *)buf)[i] = (unsigned char)v; break;
    case NCS_SHORT: ((short *)buf)[i] = (short)v; break;
    case NCS_USHORT: ((unsigned short *)buf)[i] = (unsigned short)v; break;
    case NCS_INT: ((int *)buf)[i] = (int)v; break;
    case NCS_UINT: ((unsigned int *)buf)[i] = (unsigned int)v; break;
    case NCS_FLOAT: ((float *)buf)[i] = (float)v; break;
    case NCS_DOUBLE: ((double *)buf)[i] = (double)v; break;
    case NCS_INT64: ((long long *)buf)[i] = v; break;
    case NCS_UINT64: ((unsigned long long *)buf)[i] = (unsigned long long)v; break;
    default: ck_abort_msg("tu_store: bad type %d", t);
    }
}

/* Element i of a memory array of type t, as a long long. */
static inline long long tu_load(int t, const void *buf, ptrdiff_t i)
{
    switch (t) {
    case NCS_BYTE: return ((const signed char *)buf)[i];
    case NCS_CHAR: return (unsigned char)((const char *)buf)[i];
    case NCS_UBYTE: return ((const unsigned char *)buf)[i];
    case NCS_SHORT: return ((const short *)buf)[i];
    case NCS_USHORT: return ((const unsigned short *)buf)[i];
    case NCS_INT: return ((const int *)buf)[i];
    case NCS_UINT: return ((const unsigned int *)buf)[i];
    case NCS_FLOAT: return (long long)((const float *)buf)[i];
    case NCS_DOUBLE: return (long long)((const double *)buf)[i];
    case NCS_INT64: return ((const long long *)buf)[i];
    case NCS_UINT64: return (long long)((const unsigned long long *)buf)[i];
    default: ck_abort_msg("tu_load: bad type %d", t); return 0;
    }
}

/* The default fill value of type t, as a long long (floats: as their exact
 * value does not fit, compare them with tu_is_default_fill). */
static inline int tu_is_default_fill(int t, const void *buf, ptrdiff_t i)
{
    switch (t) {
    case NCS_BYTE: return ((const signed char *)buf)[i] == NCS_FILL_BYTE;
    case NCS_CHAR: return ((const char *)buf)[i] == NCS_FILL_CHAR;
    case NCS_UBYTE: return ((const unsigned char *)buf)[i] == NCS_FILL_UBYTE;
    case NCS_SHORT: return ((const short *)buf)[i] == NCS_FILL_SHORT;
    case NCS_USHORT: return ((const unsigned short *)buf)[i] == NCS_FILL_USHORT;
    case NCS_INT: return ((const int *)buf)[i] == NCS_FILL_INT;
    case NCS_UINT: return ((const unsigned int *)buf)[i] == NCS_FILL_UINT;
    case NCS_FLOAT: return ((const float *)buf)[i] == NCS_FILL_FLOAT;
    case NCS_DOUBLE: return ((const double *)buf)[i] == NCS_FILL_DOUBLE;
    case NCS_INT64: return ((const long long *)buf)[i] == NCS_FILL_INT64;
    case NCS_UINT64: return ((const unsigned long long *)buf)[i] == NCS_FILL_UINT64;
    default: return 0;
    }
}

/* A scratch file name unique to this process and test. */
static inline const char *tu_path(char *out, size_t n, const char *prog,
                                  const char *what)
{
    snprintf(out, n, "ut_%s_%s_%ld.nc", prog, what, (long)getpid());
    return out;
}

/* Reads a whole file into malloc'ed memory. */
static inline unsigned char *tu_slurp(const char *path, size_t *lenp)
{
    FILE *f = fopen(path, "rb");
    unsigned char *b = NULL;
    long n;
    ck_assert_msg(f != NULL, "cannot open %s", path);
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    b = malloc(n > 0 ? (size_t)n : 1);
    ck_assert(b != NULL);
    ck_assert_int_eq(fread(b, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *lenp = (size_t)n;
    return b;
}

/* Asserts two files are byte-identical, naming the first differing offset. */
static inline void tu_same_bytes(const char *a, const char *b)
{
    size_t na, nb, i, n;
    unsigned char *ba = tu_slurp(a, &na), *bb = tu_slurp(b, &nb);
    n = na < nb ? na : nb;
    for (i = 0; i < n && ba[i] == bb[i]; i++)
        ;
    ck_assert_msg(i == n && na == nb,
                  "%s (%zu bytes) and %s (%zu bytes) differ at offset %zu "
                  "(0x%02x vs 0x%02x)", a, na, b, nb, i,
                  i < na ? ba[i] : 0, i < nb ? bb[i] : 0);
    free(ba);
    free(bb);
}

/* An unsigned number from the environment, or dflt when unset or empty. */
static inline unsigned long long tu_env_ull(const char *name, unsigned long long dflt)
{
    const char *e = getenv(name);
    return e != NULL && *e != '\0' ? strtoull(e, NULL, 10) : dflt;
}

/* The next number of a 64-bit linear congruential generator (its high 31
 * bits), for tests that print their seed and replay it. */
static inline unsigned long long tu_rng(unsigned long long *state)
{
    *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
    return *state >> 33;
}

/* Forks a child that reports to its parent through a pipe: returns the
 * child's pid in the parent, which keeps the read end fd[0], and 0 in the
 * child, which keeps the write end fd[1]. */
static inline pid_t tu_fork_pipe(int fd[2])
{
    pid_t pid;
    ck_assert(pipe(fd) == 0);
    pid = fork();
    ck_assert(pid >= 0);
    close(fd[pid == 0 ? 0 : 1]);
    return pid;
}

/* Runs a suite, returning the process exit status. */
static inline int tu_run(Suite *s)
{
    SRunner *sr = srunner_create(s);
    int nfail;
    srunner_run_all(sr, CK_NORMAL);
    nfail = srunner_ntests_failed(sr);
    srunner_free(sr);
    return nfail == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

/* ---- one call sequence through two libraries ------------------------------
 * The differential tests run the same sequence of calls through ncslab and,
 * when it was found at configure time, netCDF-C, then compare the files.
 * Flags, types and fill modes are numerically the same in both. */
typedef struct tu_api {
    const char *name;
    int (*create)(const char *path, int cmode, int *ncidp);
    int (*open)(const char *path, int mode, int *ncidp);
    int (*def_dim)(int ncid, const char *name, size_t len, int *idp);
    int (*def_var)(int ncid, const char *name, int xtype, int ndims,
                   const int *dimids, int *varidp);
    int (*put_att)(int ncid, int varid, const char *name, int xtype,
                   size_t len, const void *op);
    int (*del_att)(int ncid, int varid, const char *name);
    int (*put)(int ncid, int varid, const size_t *start, const size_t *count,
               const void *op);
    int (*redef)(int ncid);
    int (*enddef)(int ncid);
    int (*enddef_)(int ncid, size_t h_minfree, size_t v_align,
                   size_t v_minfree, size_t r_align);
    int (*set_fill)(int ncid, int mode, int *oldp);
    int (*rename_var)(int ncid, int varid, const char *name);
    int (*rename_dim)(int ncid, int dimid, const char *name);
    int (*close)(int ncid);
} tu_api;

static inline int tu_ncs_put_att(int ncid, int varid, const char *name, int xtype,
                          size_t len, const void *op)
{
    return ncs_put_att(ncid, varid, name, xtype, len, NCS_NAT, op);
}

static inline int tu_ncs_put(int ncid, int varid, const size_t *start,
                      const size_t *count, const void *op)
{
    return ncs_put(ncid, varid, start, count, NULL, NULL, NCS_NAT, op);
}

static const tu_api tu_ncslab __attribute__((unused)) = {
    "ncslab", ncs_create, ncs_open, ncs_def_dim, ncs_def_var, tu_ncs_put_att,
    ncs_del_att, tu_ncs_put, ncs_redef, ncs_enddef, ncs__enddef,
    ncs_set_fill, ncs_rename_var, ncs_rename_dim, ncs_close};

#ifdef HAVE_NETCDF
#include <netcdf.h>
static const tu_api tu_netcdf __attribute__((unused)) = {
    "netCDF-C", nc_create, nc_open, nc_def_dim, nc_def_var, nc_put_att,
    nc_del_att, nc_put_vara, nc_redef, nc_enddef, nc__enddef, nc_set_fill,
    nc_rename_var, nc_rename_dim, nc_close};
#endif

/* A status assertion naming the library a tu_api call went through. */
#define TU_API_OK(api, call)                                                \
    do {                                                                    \
        int tu_s_ = (call);                                                 \
        ck_assert_msg(tu_s_ == 0, "%s: %s -> %d (%s)", (api)->name, #call,  \
                      tu_s_, ncs_strerror(tu_s_));                          \
    } while (0)

#endif /* NCSLAB_TESTUTIL_H */
