/*
 * v3.h -- shared helpers of the v3 layer (lib/compat/v3).
 *
 * The v3 calls are netCDF-C's nc_* API over the native one: the native
 * API already speaks netCDF's codes, types and order of checks, so most
 * calls are one native call.  What this layer adds is what netCDF-C's
 * dispatch layer does before its format code sees a call (NULL start
 * and count arrays, the shape of nc_get_var), the C type of each typed
 * family, the open mode nc_inq_format_extended reports, and the answers
 * of the netCDF-4 enhanced model's calls on a classic-model file.
 *
 * Like the other compat layers it sees only the public headers.
 */
#ifndef NCS_V3_H
#define NCS_V3_H

#include "ncslab.h"
#include "ncslab/netcdf.h"

/* The memory type of the _long family: C long is 64 bits on LP64. */
#define V3_LONG_TYPE (sizeof(long) == 8 ? NC_INT64 : NC_INT)

/* The mode flags nc_inq_format_extended reports for ncid, recorded by
 * nc_create and nc_open (v3_file.c); opened: the file was opened, not
 * created, and its variables are recorded as the file's own. */
void v3i_mode_set(int ncid, int mode, int opened);
/* Whether varid was in the file when v3 opened it (1) or was defined since,
 * or the file was created or opened through the v2 calls (0). */
int v3i_var_opened(int ncid, int varid);
/* Set in a recorded mode (never one of netCDF's bits) for a file opened
 * through nc_create_par or nc_open_par (v3_par.c), which
 * nc_inq_format_extended reports as PnetCDF's. */
#define V3I_MODE_PAR 0x40000000
void v3i_mode_drop(int ncid);

/* Forgets the byte orders recorded for ncid's variables (v3_nc4.c). */

/* In-memory and diskless files (v3_mem.c).  v3i_mem_create and
 * v3i_mem_open serve nc_create and nc_open for NC_DISKLESS/NC_INMEMORY
 * modes; v3i_mem_close closes any file (NC_EBADID as ncs_close), giving an
 * in-memory one's bytes to memio (NULL: none) or to its path
 * (NC_PERSIST); v3i_mem_path is the caller's name of an in-memory file,
 * NULL for others. */
struct NC_memio;
int v3i_mem_create(const char *path, int cmode, int native_mode, int *ncidp);
int v3i_mem_open(const char *path, int mode, int *ncidp);
int v3i_mem_close(int ncid, struct NC_memio *memio);
const char *v3i_mem_path(int ncid);

/* Forgets the chunk-cache settings of ncid's variables (v3_nc4.c). */
void v3i_var_caches_drop(int ncid);

/* The netCDF names of v3_nc4.c that netcdf.h does not declare: netCDF-
 * Fortran's int helpers, and a serial library's parallel calls (those
 * with MPI types are declared in v3_nc4.c, with ints). */
int nc_def_var_chunking_ints(int ncid, int varid, int contiguous, int *chunksizesp);
int nc_inq_var_chunking_ints(int ncid, int varid, int *contiguousp, int *chunksizesp);
int nc_set_chunk_cache_ints(int size, int nelems, int preemption);
int nc_get_chunk_cache_ints(int *sizep, int *nelemsp, int *preemptionp);
int nc_set_var_chunk_cache_ints(int ncid, int varid, int size, int nelems, int preemption);
int nc_get_var_chunk_cache_ints(int ncid, int varid, int *sizep, int *nelemsp,
                                int *preemptionp);
int nc_var_par_access(int ncid, int varid, int par_access);
int nc_create_par_fortran(const char *path, int cmode, int comm, int info, int *ncidp);
int nc_open_par_fortran(const char *path, int mode, int comm, int info, int *ncidp);

/* Whether ncid is a netCDF-4 file (1), a classic one (0), or a status
 * (negative) for a bad ncid. */
int v3i_is_nc4(int ncid);

#endif /* NCS_V3_H */
