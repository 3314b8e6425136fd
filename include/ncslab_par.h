/*
 * ncslab_par.h -- parallel I/O: the processes of an MPI communicator
 * reading and writing one classic-model file at once, through MPI-IO
 * (libncslab_par, pkg-config module ncslab-par; doc/parallel.md).
 *
 * A file opened or created here is an ordinary ncid of ncslab.h, used
 * with the same calls, with these rules:
 *
 *   - Calls that change the file's definitions or state are collective:
 *     every process of the communicator makes them, in the same order,
 *     with the same arguments (ncs_def_dim, ncs_def_var, ncs_put_att,
 *     ncs_del_att, ncs_rename_*, ncs_set_fill, ncs_def_var_fill,
 *     ncs_redef, ncs_enddef, ncs__enddef, ncs_sync, ncs_close, ncs_abort,
 *     ncs_var_par_access).  Each process checks its own arguments as the
 *     serial library does; the definitions are compared at ncs_enddef
 *     (and at a header change in data mode), and when they differ
 *     between processes every process gets NCS_EMULTIDEFINE, stays in
 *     define mode and nothing is written: a disagreement never reaches
 *     the file.
 *   - Inquiries are local.
 *   - A data call (ncs_get, ncs_put, ncs_get1, ncs_put1) on a variable in
 *     collective mode (the default) is collective: every process calls it
 *     for that variable, each with its own start, count, stride and map (a
 *     zero count takes part with nothing to move), and one MPI-IO
 *     collective call moves every process's elements.  When one process's
 *     request is invalid, no process transfers anything and every process
 *     gets an error: its own, or, where its own request was good, the
 *     lowest error code of the others.  In independent mode
 *     (ncs_var_par_access) a data call is the process's alone.
 *   - Record variables: the record count after a collective put is the
 *     largest any process made; after independent puts the processes
 *     agree on it at the next collective call on the file (a collective
 *     put, ncs_sync, ncs_redef, ncs_close).  netCDF's NCS_SHARE has no
 *     meaning here.
 *   - Files are laid out as PnetCDF lays them out (the header extent
 *     padded to 512 bytes when there are variables; fixed-size variables
 *     4-byte aligned after it; records after them), and created in
 *     nofill mode, as PnetCDF does; ncs__enddef's arguments choose another
 *     layout, e.g. netCDF-C's (0, 1, 0, 1).  The file's bytes are PnetCDF's
 *     for the same calls.
 *   - Formats: CDF-1, CDF-2 and CDF-5 for reading and writing; netCDF-4
 *     classic-model files for reading, each process reading its chunks
 *     (data calls on them are the process's own in either mode).
 *
 * The MPI_Info of a create or open may carry hints for MPI-IO
 * (cb_nodes, cb_buffer_size, striping_factor, striping_unit, ...), passed
 * on to MPI_File_open, and these of ncslab's, as PnetCDF spells them:
 *   nc_header_align_size   alignment of the data after the header
 *                          (default 512)
 *   nc_var_align_size      alignment of each fixed-size variable and of
 *                          the record section (default 4)
 *   nc_record_align_size   alignment of the record section (default 4)
 *   nc_header_pad_size     free bytes reserved after the header (default 0)
 * A hint wins over the matching argument of ncs__enddef, as in PnetCDF
 * 1.12 (doc/parallel.md has the whole rule).
 */
#ifndef NCSLAB_PAR_H
#define NCSLAB_PAR_H

#include <mpi.h>
#include <ncslab.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Access modes of ncs_var_par_access (netCDF-C's values). */
#define NCS_INDEPENDENT 0
#define NCS_COLLECTIVE  1

/* Creates path on every process of comm (collective).  cmode as
 * ncs_create's: NCS_CLOBBER or NCS_NOCLOBBER, and NCS_64BIT_OFFSET or
 * NCS_64BIT_DATA for CDF-2 or CDF-5; NCS_NETCDF4 is NCS_ENOTBUILT
 * (netCDF-4 files are read in parallel, not written).  comm is
 * duplicated; info (or MPI_INFO_NULL) is copied.  Errors: those of
 * ncs_create; NCS_EMULTIDEFINE when the processes' cmodes differ; MPI-IO
 * errors as NCS_EIO, or as the errno they stand for (EACCES, ENOENT,
 * ...) where MPI says which. */
int ncs_create_par(const char *path, int cmode, MPI_Comm comm, MPI_Info info, int *ncidp);

/* Opens path on every process of comm (collective); mode NCS_NOWRITE or
 * NCS_WRITE (netCDF-4 files: NCS_NOWRITE only, else NCS_EPERM).  Errors:
 * those of ncs_open; NCS_EMULTIDEFINE when the processes' modes differ. */
int ncs_open_par(const char *path, int mode, MPI_Comm comm, MPI_Info info, int *ncidp);

/* Sets the access mode (NCS_COLLECTIVE or NCS_INDEPENDENT) of variable
 * varid, or of every variable and those defined later with NCS_GLOBAL
 * (collective, in data or define mode).  Errors: NCS_EBADID, NCS_ENOTVAR,
 * NCS_EINVAL (another mode), NCS_ENOPAR (a file not opened for parallel
 * access). */
int ncs_var_par_access(int ncid, int varid, int access);

/* The access mode of varid (NCS_GLOBAL: the default for new variables),
 * and the communicator the file was opened on (the library's duplicate,
 * not to be freed), either output pointer NULL.  NCS_ENOPAR for a file
 * not opened for parallel access. */
int ncs_inq_var_par_access(int ncid, int varid, int *accessp, MPI_Comm *commp);

#ifdef __cplusplus
}
#endif

#endif /* NCSLAB_PAR_H */
