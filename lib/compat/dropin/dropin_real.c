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
 * RTLD_DEEPBIND has one cost, paid in share_copies: a program that reads
 * an HDF5 variable itself (CDO reads H5T_NATIVE_INT and its kin) holds a
 * copy of it that HDF5 writes instead of its own (a copy relocation),
 * while netCDF-C, bound deeply, reads HDF5's own, which nobody writes:
 * every HDF5 type netCDF-C made was then invalid and its writes failed.
 * After HDF5 is initialised the program's values are copied into HDF5's
 * own variables, so that both read the same.
 *
 * Settings made before it is loaded that netCDF-C keeps globally (the
 * default format, the chunk cache, the alignment, the log level) are
 * remembered by dropin_file.c and replayed when it loads (ncsd_replay).
 *
 * Environment: NCSLAB_DROPIN=auto|ncslab|netcdf chooses who serves
 * (dropin_file.c); NCSLAB_NETCDF_C=PATH names the library to forward to
 * instead of the one configure found, and NCSLAB_NETCDF_C=none forwards
 * nothing; NCSLAB_DROPIN_TRACE=1 traces the routed calls (dropin.h) on
 * standard error, NCSLAB_DROPIN_TRACE=/PATH into the file PATH.
 */
#include "config.h"
#include "dropin.h"

#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdarg.h>
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



/* The program's copy relocations of HDF5 variables (H5*), as
 * share_copies walks them: the copy's address and size, by name. */
struct copies { void *netcdf; int done; };

static int main_program(struct dl_phdr_info *info, size_t size, void *data)
{
    struct copies *c = data;
    (void)size;
#if defined(__x86_64__) || defined(__aarch64__)
#if defined(__x86_64__)
    const unsigned copy_type = R_X86_64_COPY;
#else
    const unsigned copy_type = R_AARCH64_COPY;
#endif
    const ElfW(Dyn) *dyn = NULL;
    for (int i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
            dyn = (const ElfW(Dyn) *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
    if (dyn == NULL)
        return 1;
    ElfW(Addr) rela = 0, symtab = 0, strtab = 0;
    size_t relasz = 0;
    for (; dyn->d_tag != DT_NULL; dyn++)
        switch (dyn->d_tag) {
        case DT_RELA: rela = dyn->d_un.d_ptr; break;
        case DT_RELASZ: relasz = dyn->d_un.d_val; break;
        case DT_SYMTAB: symtab = dyn->d_un.d_ptr; break;
        case DT_STRTAB: strtab = dyn->d_un.d_ptr; break;
        default: break;
        }
    if (rela == 0 || symtab == 0 || strtab == 0)
        return 1;
    /* the dynamic linker relocates these entries in place, or not */
    if (rela < info->dlpi_addr) {
        rela += info->dlpi_addr;
        symtab += info->dlpi_addr;
        strtab += info->dlpi_addr;
    }
    const ElfW(Rela) *r = (const ElfW(Rela) *)rela;
    const ElfW(Sym) *syms = (const ElfW(Sym) *)symtab;
    const char *names = (const char *)strtab;
    for (size_t i = 0; i < relasz / sizeof *r; i++) {
        if (ELF64_R_TYPE(r[i].r_info) != copy_type)
            continue;
        const ElfW(Sym) *sym = &syms[ELF64_R_SYM(r[i].r_info)];
        const char *name = names + sym->st_name;
        void *copy = (void *)(info->dlpi_addr + r[i].r_offset);
        void *own = strncmp(name, "H5", 2) == 0 ? dlsym(c->netcdf, name) : NULL;
        if (own != NULL && own != copy)
            memcpy(own, copy, sym->st_size);
    }
#else
    (void)info;
    (void)c;
#endif
    return 1;   /* the first object is the program: done */
}

static void share_copies(void *netcdf)
{
    struct copies c = { netcdf, 0 };
    int (*h5open)(void) = (int (*)(void))dlsym(netcdf, "H5open");
    if (h5open == NULL || h5open() < 0)
        return;
    dl_iterate_phdr(main_program, &c);
}

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
    share_copies(h);
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

int ncsd_tracing;
static FILE *trace_file;

/* NCSLAB_DROPIN_TRACE=1: the trace on standard error; =/PATH: appended to
 * the file PATH, so that a program's own output stays as it is. */
__attribute__((constructor)) static void trace_init(void)
{
    const char *v = getenv("NCSLAB_DROPIN_TRACE");
    ncsd_tracing = v != NULL && *v != '\0' && strcmp(v, "0") != 0;
    if (ncsd_tracing && *v == '/') {
        trace_file = fopen(v, "a");
        if (trace_file != NULL)
            setvbuf(trace_file, NULL, _IOLBF, 0);
    }
}

void ncsd_tracef(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("ncslab drop-in: ", trace_file ? trace_file : stderr);
    vfprintf(trace_file ? trace_file : stderr, fmt, ap);
    va_end(ap);
}

void ncsd_trace(const char *call, int ncid, int side, int status)
{
    static const char *const sides[] = { "none", "ncslab", "netCDF-C" };
    ncsd_tracef("%s(%d) %s -> %d\n", call, ncid, sides[side >= 0 && side <= 2 ? side : 0],
                status);
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
