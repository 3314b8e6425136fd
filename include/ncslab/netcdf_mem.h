/*
 * ncslab/netcdf_mem.h -- netCDF's in-memory files, served by
 * libncslab_netcdf for the classic formats (doc/v3.md): the same names,
 * values and prototypes as netCDF-C 4.9's netcdf_mem.h.
 */
#ifndef NETCDF_MEM_H
#define NETCDF_MEM_H 1

#include <stddef.h>

/* A block of memory holding a file's bytes. */
typedef struct NC_memio {
    size_t size;
    void *memory;
    int flags;
#define NC_MEMIO_LOCKED 1 /* the block is the caller's: not reallocated or freed */
} NC_memio;

#if defined(__cplusplus)
extern "C" {
#endif

/* Opens size bytes at memory as a read-only file named path. */
int nc_open_mem(const char *path, int mode, size_t size, void *memory, int *ncidp);
/* Creates a file that lives in memory; nc_close_memio returns its bytes. */
int nc_create_mem(const char *path, int mode, size_t initialsize, int *ncidp);
/* Opens the file held by params. */
int nc_open_memio(const char *path, int mode, NC_memio *params, int *ncidp);
/* Closes ncid and gives its bytes to *memio (the caller frees memio->memory
 * unless NC_MEMIO_LOCKED is set). */
int nc_close_memio(int ncid, NC_memio *memio);

#if defined(__cplusplus)
}
#endif
#endif /* NETCDF_MEM_H */
