/*
 * ncslab.h -- the native ncslab API.
 *
 * ncslab is a netCDF-compatible hyperslab access layer.  This header is the
 * whole public interface of libncslab.  Every symbol it declares starts with
 * ncs_ or NCS_, so a program may include it next to netCDF-C's <netcdf.h> and
 * link both libraries.
 *
 * Conventions shared by every function below:
 *   - The return value is a status: 0 (NCS_NOERR) on success, a negative
 *     NCS_E* code numerically equal to netCDF's NC_E* code, or a positive
 *     errno value for an operating-system error.
 *   - Shapes, starts and counts are size_t; strides and index maps are
 *     ptrdiff_t, maps counted in elements of the memory type.
 *   - Type codes, mode flags, fill values and format numbers are numerically
 *     netCDF's, so files and constants mean the same thing in both libraries.
 *   - Output pointers may be NULL when the caller does not want that value.
 *   - Handles are plain ints (ncid, dimid, varid); no structure is exposed.
 *
 * Thread safety: distinct ncids may be used from distinct threads; one ncid
 * must not be used by two threads at once.  Opening and closing files is
 * serialised internally.  Chunks are read and decoded outside every lock
 * of the library, so threads reading chunked files use several cores; a
 * large read of compressed chunks also uses the library's own decoding
 * threads (ncs_set_decode_threads).
 */
#ifndef NCSLAB_H
#define NCSLAB_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define NCS_VERSION "0.1.0"

/* ---- external data types (netCDF nc_type values) ---------------------- */
#define NCS_NAT    0  /* "not a type": as a memory type, the variable's own */
#define NCS_BYTE   1  /* signed 8-bit */
#define NCS_CHAR   2  /* 8-bit text */
#define NCS_SHORT  3  /* signed 16-bit */
#define NCS_INT    4  /* signed 32-bit (netCDF's NC_LONG) */
#define NCS_LONG   NCS_INT
#define NCS_FLOAT  5  /* IEEE 754 binary32 */
#define NCS_DOUBLE 6  /* IEEE 754 binary64 */
#define NCS_UBYTE  7  /* CDF-5 and netCDF-4 only, as the five types below */
#define NCS_USHORT 8
#define NCS_UINT   9
#define NCS_INT64  10
#define NCS_UINT64 11

/* ---- mode flags for ncs_create / ncs_open ------------------------------ */
#define NCS_NOWRITE       0x0000
#define NCS_WRITE         0x0001
#define NCS_CLOBBER       0x0000
#define NCS_NOCLOBBER     0x0004
#define NCS_DISKLESS      0x0008  /* a private scratch copy of the file (as
                                     the v3 layer's in-memory files are):
                                     its redefinitions are not journaled */
#define NCS_64BIT_DATA    0x0020  /* CDF-5 */
#define NCS_CDF5          NCS_64BIT_DATA
#define NCS_CLASSIC_MODEL 0x0100
#define NCS_64BIT_OFFSET  0x0200  /* CDF-2 */
#define NCS_SHARE         0x0800  /* numrecs written through at each growth */
#define NCS_NETCDF4       0x1000  /* chunked back end (with NCS_CLASSIC_MODEL) */

/* ---- fill modes --------------------------------------------------------- */
#define NCS_FILL   0
#define NCS_NOFILL 0x100

/* ---- formats (ncs_inq_format, ncs_set_default_format) ------------------ */
#define NCS_FORMAT_CLASSIC         1
#define NCS_FORMAT_64BIT_OFFSET    2
#define NCS_FORMAT_NETCDF4         3
#define NCS_FORMAT_NETCDF4_CLASSIC 4
#define NCS_FORMAT_64BIT_DATA      5

/* ---- miscellaneous ----------------------------------------------------- */
#define NCS_UNLIMITED   0L
#define NCS_GLOBAL      (-1)
#define NCS_MAX_DIMS    1024
#define NCS_MAX_ATTRS   8192
#define NCS_MAX_VARS    8192
#define NCS_MAX_NAME    256
#define NCS_MAX_VAR_DIMS 1024
#define NCS_ALIGN_CHUNK ((size_t)(-1))

/* ---- default fill values ----------------------------------------------- */
#define NCS_FILL_BYTE   ((signed char)-127)
#define NCS_FILL_CHAR   ((char)0)
#define NCS_FILL_SHORT  ((short)-32767)
#define NCS_FILL_INT    (-2147483647)
#define NCS_FILL_FLOAT  (9.9692099683868690e+36f)
#define NCS_FILL_DOUBLE (9.9692099683868690e+36)
#define NCS_FILL_UBYTE  (255)
#define NCS_FILL_USHORT (65535)
#define NCS_FILL_UINT   (4294967295U)
#define NCS_FILL_INT64  ((long long)-9223372036854775806LL)
#define NCS_FILL_UINT64 ((unsigned long long)18446744073709551614ULL)

/* ---- status codes (numerically netCDF's) ------------------------------- */
#define NCS_NOERR         0
#define NCS_EBADID        (-33)  /* not an open ncid */
#define NCS_ENFILE        (-34)  /* too many files open */
#define NCS_EEXIST        (-35)  /* file exists and NCS_NOCLOBBER */
#define NCS_EINVAL        (-36)  /* invalid argument */
#define NCS_EPERM         (-37)  /* write to a read-only file */
#define NCS_ENOTINDEFINE  (-38)  /* operation needs define mode */
#define NCS_EINDEFINE     (-39)  /* operation not allowed in define mode */
#define NCS_EINVALCOORDS  (-40)  /* index outside the variable */
#define NCS_EMAXDIMS      (-41)
#define NCS_ENAMEINUSE    (-42)  /* name already used */
#define NCS_ENOTATT       (-43)  /* no such attribute */
#define NCS_EMAXATTS      (-44)
#define NCS_EBADTYPE      (-45)  /* not a valid type here */
#define NCS_EBADDIM       (-46)  /* bad dimension id or name */
#define NCS_EUNLIMPOS     (-47)  /* unlimited dimension not first */
#define NCS_EMAXVARS      (-48)
#define NCS_ENOTVAR       (-49)  /* no such variable */
#define NCS_EGLOBAL       (-50)  /* not allowed on NCS_GLOBAL */
#define NCS_ENOTNC        (-51)  /* not a netCDF file, or corrupt */
#define NCS_EMAXNAME      (-53)  /* name longer than NCS_MAX_NAME */
#define NCS_EUNLIMIT      (-54)  /* a second unlimited dimension */
#define NCS_ENORECVARS    (-55)  /* no record variables */
#define NCS_ECHAR         (-56)  /* conversion between text and numbers */
#define NCS_EEDGE         (-57)  /* start + count past the dimension */
#define NCS_ESTRIDE       (-58)  /* stride not positive */
#define NCS_EBADNAME      (-59)  /* name breaks netCDF's naming rules */
#define NCS_ERANGE        (-60)  /* a value did not fit the target type */
#define NCS_ENOMEM        (-61)  /* out of memory */
#define NCS_EVARSIZE      (-62)  /* variable too large for the format */
#define NCS_EDIMSIZE      (-63)  /* invalid dimension size */
#define NCS_ETRUNC        (-64)  /* file shorter than its header says */
#define NCS_EIO           (-68)  /* generic I/O error */
#define NCS_ENOTFOUND     (-90)  /* no such file */
#define NCS_EINTERNAL     (-92)  /* internal inconsistency (a bug) */
#define NCS_EHDFERR       (-101) /* error in the HDF5 layer */
#define NCS_ENOTBUILT     (-128) /* feature not built into this library;
                                     ncs_open: a netCDF-4 file using the
                                     enhanced model (groups, strings,
                                     user-defined types, several or
                                     non-leading unlimited dimensions),
                                     which ncslab does not represent;
                                     ncs_open and ncs_create of a
                                     netCDF-4 file: HDF5 could not be
                                     loaded at run time */
#define NCS_EFILTER       (-132) /* filter failure */
#define NCS_ENOFILTER     (-136) /* filter not available */
#define NCS_ENOPAR        (-114) /* a parallel call on a file not opened
                                     for parallel access (ncslab_par.h) */
#define NCS_EMULTIDEFINE  (-250) /* the processes of a parallel file
                                     disagree on its definitions or on the
                                     arguments of a collective call
                                     (PnetCDF's NC_EMULTIDEFINE) */

/* ---- library ------------------------------------------------------------ */

/* The library version string, e.g. "0.1.0 of Nov 30 2026". Never NULL. */
const char *ncs_inq_libvers(void);

/* A static English message for any status this library returns (negative
 * codes, 0, or positive errno values).  Never NULL. */
const char *ncs_strerror(int status);

/* Sets the format that ncs_create uses when cmode names none (none of
 * NCS_CLASSIC_MODEL, NCS_NETCDF4, NCS_64BIT_OFFSET, NCS_64BIT_DATA).
 * format: NCS_FORMAT_CLASSIC, _64BIT_OFFSET, _64BIT_DATA, _NETCDF4_CLASSIC
 * (as NCS_NETCDF4|NCS_CLASSIC_MODEL) or _NETCDF4 (as NCS_NETCDF4: a
 * netCDF-4 file not marked classic-model, as netCDF-C makes; ncslab still
 * offers only the classic data model's calls on it).  The previous
 * default is stored in *old_formatp, even on error.  Errors: NCS_EINVAL
 * for other values. */
int ncs_set_default_format(int format, int *old_formatp);

/* ---- files -------------------------------------------------------------- */

/* Creates a file and opens it in define mode.
 * cmode: NCS_CLOBBER or NCS_NOCLOBBER, optionally NCS_SHARE and
 * NCS_DISKLESS (also for ncs_open), and one of
 * NCS_64BIT_OFFSET (CDF-2), NCS_64BIT_DATA (CDF-5), NCS_NETCDF4 (netCDF-4/
 * HDF5; with NCS_CLASSIC_MODEL marked classic-model, else a file of
 * NCS_FORMAT_NETCDF4 that holds classic-model content), NCS_CLASSIC_MODEL
 * alone (CDF-1) or none (the default format, CDF-1 unless changed).
 * Errors: NCS_EINVAL (bad or conflicting flags, NULL path or ncidp),
 * NCS_EEXIST (NCS_NOCLOBBER and the file exists), NCS_ENOTBUILT
 * (NCS_NETCDF4, and HDF5's shared libraries cannot be loaded, are not of
 * the release series ncslab was built with, or lack a function it calls:
 * HDF5 is loaded on the first netCDF-4 open or create), NCS_EHDFERR
 * (HDF5 failed), NCS_ENOMEM, errno values from the system. */
int ncs_create(const char *path, int cmode, int *ncidp);

/* Opens an existing file in data mode, read-only unless mode has NCS_WRITE.
 * A file shorter than the data its header describes opens; reading the
 * missing part of a read-only file then fails with NCS_ETRUNC.
 * Errors: NCS_ENOTNC (not a netCDF file, or a malformed header),
 * NCS_EBADNAME, NCS_EBADDIM, NCS_EUNLIMPOS (a header no definition could
 * have made), NCS_EVARSIZE (sizes the format cannot hold), NCS_ENOTBUILT
 * (a valid netCDF-4 file that uses features outside the classic data
 * model: groups, strings, user-defined types, a second unlimited
 * dimension, one not first; netCDF-C's code for a file
 * it was built without support for; or HDF5 cannot be loaded, as for
 * ncs_create), NCS_EBADTYPE (an HDF5 type netCDF
 * has no type for), NCS_EINVAL, NCS_ENOMEM, errno values (ENOENT for a
 * missing file). */
int ncs_open(const char *path, int mode, int *ncidp);

/* The diagnosis of the last ncs_open made on the calling thread, for
 * validators (ncslab-check) and error messages that say where a file is
 * wrong.  Entry 0 is the open's fault: the call returns that open's status
 * (NCS_NOERR when it succeeded, or when no ncs_open was made on the thread),
 * stores in *offsetp the byte offset in the file of the header field that
 * broke the format's rules (for a variable whose data is misplaced, where
 * its data begins), or -1 when the fault has no one place or the library
 * knows no more than the status, and copies into what (len bytes, always
 * NUL-terminated when len > 0) a phrase naming the fault and the
 * dimension, variable or attribute it concerns, e.g. `variable "t": begin
 * 8 lies inside the header (which ends at 124)`, or "" when it knows none.
 * Entries 1, 2, ... are irregularities the open let pass, as netCDF-C does
 * (in a classic file: non-zero padding, a vsize that disagrees with the
 * shape, bytes after the data; at most 16 are kept): the call returns
 * NCS_NOERR with the entry's offset and phrase.  Classic files get the
 * full diagnosis; netCDF-4 ones only the status.
 * Errors: NCS_EINVAL for an index past the last entry, or what NULL with
 * len > 0. */
int ncs_inq_open_diag(int index, long long *offsetp, char *what, size_t len);

/* Puts an open file back into define mode.  Errors: NCS_EBADID, NCS_EPERM
 * (read-only), NCS_EINDEFINE (already in define mode). */
int ncs_redef(int ncid);

/* Leaves define mode, laying out the file (moving existing data when the
 * header grew) and writing fill values for new variables in fill mode.
 * Errors: NCS_EBADID, NCS_ENOTINDEFINE, NCS_EVARSIZE, NCS_EBADTYPE (a
 * _FillValue of the wrong type or length), I/O errors. */
int ncs_enddef(int ncid);

/* As ncs_enddef, with netCDF's layout tuning: at least h_minfree free
 * bytes after the header, fixed-size data aligned to v_align bytes, at least
 * v_minfree free bytes after the fixed-size data, record data aligned to
 * r_align bytes.  An alignment of NCS_ALIGN_CHUNK means the I/O block size. */
int ncs__enddef(int ncid, size_t h_minfree, size_t v_align, size_t v_minfree,
                size_t r_align);

/* Writes all buffered data and the header, then fsyncs: once it returned,
 * what it wrote survives the death of the process and a power loss, in
 * either format (doc/reliability.md).  In a read-only file, re-reads the
 * record count.  Errors: NCS_EBADID, NCS_EINDEFINE, I/O. */
int ncs_sync(int ncid);

/* Closes the file, discarding the changes of a define mode entered by
 * ncs_redef, or deleting a file created and still in its first define
 * mode.  Errors: NCS_EBADID, I/O errors. */
int ncs_abort(int ncid);

/* Leaves define mode if needed, flushes and closes.  The ncid is released
 * even when an error is returned.  Errors: NCS_EBADID, enddef errors, I/O. */
int ncs_close(int ncid);

/* Sets the fill mode (NCS_FILL or NCS_NOFILL) and returns the old one in
 * *old_modep.  Going back from NCS_NOFILL to NCS_FILL in data mode writes
 * buffered data and a changed header or record count to a classic file
 * (as netCDF-C does; no fsync).  Errors: NCS_EBADID, NCS_EPERM
 * (read-only), NCS_EINVAL, and I/O errors of that write. */
int ncs_set_fill(int ncid, int fillmode, int *old_modep);

/* ---- inquiry ------------------------------------------------------------ */

/* Numbers of dimensions, variables, global attributes, and the unlimited
 * dimension id (-1 when there is none).  Errors: NCS_EBADID. */
int ncs_inq(int ncid, int *ndimsp, int *nvarsp, int *nattsp, int *unlimdimidp);
int ncs_inq_ndims(int ncid, int *ndimsp);
int ncs_inq_nvars(int ncid, int *nvarsp);
int ncs_inq_natts(int ncid, int *nattsp);
int ncs_inq_unlimdim(int ncid, int *unlimdimidp);
/* One of NCS_FORMAT_*: NCS_FORMAT_NETCDF4_CLASSIC for a netCDF-4 file
 * marked classic-model (_nc3_strict), NCS_FORMAT_NETCDF4 for one that is
 * not, as netCDF-C reports them.  Errors: NCS_EBADID. */
int ncs_inq_format(int ncid, int *formatp);
/* The path the file was opened or created with, as given, and its length
 * (without the terminating NUL, which path also receives).  path must
 * hold *pathlenp + 1 bytes: ask for the length first.  Errors:
 * NCS_EBADID. */
int ncs_inq_path(int ncid, size_t *pathlenp, char *path);
/* 1 in define mode, 0 in data mode.  Errors: NCS_EBADID. */
int ncs_inq_indef(int ncid, int *indefp);
/* The size in bytes of one external element of type xtype; NCS_EBADTYPE. */
int ncs_inq_type_size(int xtype, size_t *sizep);

/* ---- dimensions --------------------------------------------------------- */

/* Defines a dimension of length len (NCS_UNLIMITED for the record one).
 * Errors: NCS_EBADID, NCS_ENOTINDEFINE, NCS_EBADNAME, NCS_EMAXNAME,
 * NCS_ENAMEINUSE, NCS_EUNLIMIT (second unlimited), NCS_EDIMSIZE (too long
 * for the format; 2^32-1 in a netCDF-4 file), NCS_EMAXDIMS; in a netCDF-4
 * file NCS_EPERM (read-only) and NCS_EUNLIMIT come before
 * NCS_ENOTINDEFINE, as in netCDF-C. */
int ncs_def_dim(int ncid, const char *name, size_t len, int *dimidp);
/* Errors: NCS_EBADID, NCS_EBADDIM (no such name), NCS_EBADNAME (a NULL
 * name; NCS_EINVAL in a netCDF-4 file), NCS_EMAXNAME (a name longer than
 * NCS_MAX_NAME, in a netCDF-4 file). */
int ncs_inq_dimid(int ncid, const char *name, int *dimidp);
/* name receives up to NCS_MAX_NAME+1 bytes; the record dimension's length
 * is the current number of records.  Errors: NCS_EBADID, NCS_EBADDIM. */
int ncs_inq_dim(int ncid, int dimid, char *name, size_t *lenp);
int ncs_inq_dimname(int ncid, int dimid, char *name);
int ncs_inq_dimlen(int ncid, int dimid, size_t *lenp);
/* In data mode the new name must not be longer than the old one.
 * Errors: NCS_EBADID, NCS_EBADDIM, NCS_EPERM, NCS_EBADNAME, NCS_EMAXNAME,
 * NCS_ENAMEINUSE, NCS_ENOTINDEFINE. */
int ncs_rename_dim(int ncid, int dimid, const char *name);

/* ---- variables ---------------------------------------------------------- */

/* Defines a variable of external type xtype over ndims dimensions.
 * Errors: NCS_EBADID, NCS_ENOTINDEFINE, NCS_EBADNAME, NCS_EMAXNAME,
 * NCS_ENAMEINUSE, NCS_EBADTYPE (bad type, or a CDF-5 type in CDF-1/2),
 * NCS_EINVAL (ndims out of range), NCS_EBADDIM, NCS_EUNLIMPOS, NCS_EMAXVARS,
 * NCS_EVARSIZE.  In a netCDF-4 file, as in netCDF-C: NCS_ESTRICTNC3 for a
 * type beyond NCS_DOUBLE, NCS_EINVAL for a negative one (once the name and
 * dimensions have passed), NCS_EBADTYPE for NCS_NAT. */
int ncs_def_var(int ncid, const char *name, int xtype, int ndims,
                const int *dimidsp, int *varidp);
/* Errors: NCS_EBADID, NCS_ENOTVAR, NCS_EMAXNAME (as ncs_inq_dimid). */
int ncs_inq_varid(int ncid, const char *name, int *varidp);
/* Errors: NCS_EBADID, NCS_ENOTVAR.  In a netCDF-4 file ncs_inq_var of
 * NCS_GLOBAL succeeds, giving the number of global attributes and leaving
 * the other outputs alone, as netCDF-C's does (the single inquiries below
 * refuse it). */
int ncs_inq_var(int ncid, int varid, char *name, int *xtypep, int *ndimsp,
                int *dimidsp, int *nattsp);
int ncs_inq_varname(int ncid, int varid, char *name);
int ncs_inq_vartype(int ncid, int varid, int *xtypep);
int ncs_inq_varndims(int ncid, int varid, int *ndimsp);
int ncs_inq_vardimid(int ncid, int varid, int *dimidsp);
int ncs_inq_varnatts(int ncid, int varid, int *nattsp);
/* As ncs_rename_dim, for variables (NCS_ENOTVAR for a bad varid). */
int ncs_rename_var(int ncid, int varid, const char *name);
/* The variable's own fill mode (netCDF's nc_def_var_fill): with no_fill
 * set, enddef does not fill it (records a put adds are filled by the
 * file's mode, ncs_set_fill, as in netCDF-C); with no_fill 0 and
 * fill_value non-NULL, its _FillValue becomes that one value of the
 * variable's type.  A variable starts with the file's mode; in a
 * classic file ncs_set_fill sets every variable's, in a netCDF-4 file
 * only that of variables defined later (as netCDF-C).  In a netCDF-4
 * file no_fill removes _FillValue, and the mode is stored (HDF5's fill
 * time).
 * Errors: NCS_EBADID, NCS_EGLOBAL, NCS_EPERM, NCS_ENOTINDEFINE (classic
 * files, in data mode), NCS_ENOTVAR, NCS_ELATEDEF (a netCDF-4 variable
 * already laid out), those of ncs_put_att. */
int ncs_def_var_fill(int ncid, int varid, int no_fill, const void *fill_value);
/* The fill mode (nonzero: not filled; as netCDF-C, NCS_NOFILL for a
 * netCDF-4 variable that took a no-fill file's mode) and the fill value
 * (its _FillValue, else the default of its type; none for a netCDF-4
 * variable not filled; fill_valuep may be NULL).  Errors: NCS_EBADID,
 * NCS_ENOTVAR. */
int ncs_inq_var_fill(int ncid, int varid, int *no_fillp, void *fill_valuep);

/* ---- attributes --------------------------------------------------------- */

/* Creates or replaces attribute name of variable varid (or NCS_GLOBAL) with
 * len values of external type xtype, converted from memtype values at op
 * (memtype NCS_NAT: op holds xtype values).  In data mode only an existing
 * attribute whose new value needs no more header space (in a netCDF-4
 * file: no more bytes) may be rewritten.
 * Errors: NCS_EBADID, NCS_ENOTVAR, NCS_EBADNAME, NCS_EMAXNAME, NCS_EBADTYPE,
 * NCS_ECHAR (text to numbers or back), NCS_EINVAL (len too large, NULL op
 * with len > 0), NCS_ENOTINDEFINE, NCS_EPERM, NCS_EMAXATTS, NCS_ERANGE (the
 * attribute is still written, out-of-range values cast).  A netCDF-4 file
 * checks in netCDF-C's netCDF-4 order (the name and the mode before the
 * type): a name longer than NCS_MAX_NAME is NCS_EBADNAME, a type beyond
 * NCS_DOUBLE NCS_ESTRICTNC3, a negative one NCS_EINVAL, and a _FillValue
 * of a variable an earlier enddef laid out NCS_ELATEFILL (as netCDF-C). */
int ncs_put_att(int ncid, int varid, const char *name, int xtype, size_t len,
                int memtype, const void *op);
/* Reads attribute values converted to memtype (NCS_NAT: the external type).
 * Errors: NCS_EBADID, NCS_ENOTVAR, NCS_ENOTATT, NCS_ECHAR, NCS_EBADTYPE,
 * NCS_ERANGE (all values are still stored). */
int ncs_get_att(int ncid, int varid, const char *name, int memtype, void *ip);
/* Errors: NCS_EBADID, NCS_ENOTVAR, NCS_ENOTATT; NCS_EMAXNAME for a name
 * longer than NCS_MAX_NAME in a netCDF-4 file (as for ncs_get_att). */
int ncs_inq_att(int ncid, int varid, const char *name, int *xtypep,
                size_t *lenp);
int ncs_inq_attid(int ncid, int varid, const char *name, int *attnump);
int ncs_inq_atttype(int ncid, int varid, const char *name, int *xtypep);
int ncs_inq_attlen(int ncid, int varid, const char *name, size_t *lenp);
/* The name of attribute number attnum.  Errors: as above, NCS_ENOTATT for a
 * bad number. */
int ncs_inq_attname(int ncid, int varid, int attnum, char *name);
/* Errors: as ncs_inq_att plus NCS_EBADNAME, NCS_EMAXNAME, NCS_ENAMEINUSE,
 * NCS_EPERM, NCS_ENOTINDEFINE (longer name in data mode); in a netCDF-4
 * file NCS_EINVAL for a NULL name, and a too long new name before
 * NCS_EPERM. */
int ncs_rename_att(int ncid, int varid, const char *name, const char *newname);
/* Errors: as ncs_inq_att plus NCS_ENOTINDEFINE (data mode, and a read-only
 * classic file), NCS_EPERM (a read-only netCDF-4 file), NCS_EINVAL (a NULL
 * name, netCDF-4). */
int ncs_del_att(int ncid, int varid, const char *name);
/* Copies an attribute, possibly between files.  A copy onto the same
 * variable of the same file succeeds without looking at the attribute, as
 * in netCDF-C.  Errors: NCS_EBADID for ncid_out; those of ncs_inq_attid on
 * the output variable when it is in a netCDF-4 file (NCS_ENOTVAR,
 * NCS_EMAXNAME); those of ncs_inq_att on the input and ncs_put_att on the
 * output. */
int ncs_copy_att(int ncid_in, int varid_in, const char *name, int ncid_out,
                 int varid_out);

/* ---- data ---------------------------------------------------------------
 * A request names a hyperslab of variable varid:
 *   start[d]  first index in dimension d (NULL: all zero);
 *   count[d]  number of elements (NULL: to the end; for the record
 *             dimension, to the current number of records);
 *   stride[d] step between indices, > 0 (NULL: all 1);
 *   imap[d]   distance in memory, in elements of memtype, between elements
 *             adjacent in dimension d; may be negative or permuting (NULL:
 *             the natural C order of the count array).
 * With imap non-NULL, buf points at the memory element of the slab's first
 * (lowest-index) element.  memtype NCS_NAT means the variable's own type;
 * another type converts, returning NCS_ERANGE when some value did not fit
 * (every convertible value is still transferred).
 * Errors: NCS_EBADID, NCS_ENOTVAR, NCS_EINDEFINE, NCS_EPERM (put on a
 * read-only file), NCS_EINVALCOORDS, NCS_EEDGE, NCS_ESTRIDE, NCS_ECHAR,
 * NCS_EBADTYPE, NCS_EINVAL (NULL buf with a non-empty request), NCS_ERANGE,
 * NCS_ENOMEM, I/O errors.  Writing a record variable past the last record
 * adds records (filling skipped ones in fill mode).
 * The order of the checks is netCDF-C's: in a classic file the one-element
 * calls and typed requests check the mode (NCS_EPERM, NCS_EINDEFINE) before
 * the varid, a request with memtype NCS_NAT the varid first; a netCDF-4
 * file checks the varid first, then NCS_ECHAR, then the mode, and a read
 * there at or past the last record is NCS_EINVALCOORDS even in a writable
 * file (NCS_EEDGE in a classic one).  In define mode a netCDF-4 file not
 * marked classic-model (NCS_FORMAT_NETCDF4) leaves define mode for a data
 * call, as netCDF-C's does, instead of failing with NCS_EINDEFINE. */
int ncs_get(int ncid, int varid, const size_t *start, const size_t *count,
            const ptrdiff_t *stride, const ptrdiff_t *imap, int memtype,
            void *buf);
int ncs_put(int ncid, int varid, const size_t *start, const size_t *count,
            const ptrdiff_t *stride, const ptrdiff_t *imap, int memtype,
            const void *buf);
/* One element at index[0..ndims-1] (NULL for a scalar). */
int ncs_get1(int ncid, int varid, const size_t *index, int memtype, void *buf);
int ncs_put1(int ncid, int varid, const size_t *index, int memtype,
             const void *buf);
/* ncs_get1 in the variable's own type (memtype NCS_NAT) at an index of
 * longs, for layers whose callers count in long (netCDF's v2 API): the
 * same checks and errors as ncs_get1, with each index[d] taken as the
 * size_t it converts to (a negative one is past every dimension:
 * NCS_EINVALCOORDS).  Returns NCS_NOERR; on failure, with fail non-NULL,
 * what fail(ncid, varid, status) returns, else the status.  Through fail
 * a wrapper reports its errors in its own way and still calls
 * ncs_get1_long last, so the call costs what ncs_get1 does. */
typedef int ncs_get1_failure(int ncid, int varid, int status);
int ncs_get1_long(int ncid, int varid, const long *index, ncs_get1_failure *fail,
                  void *buf);

/* ---- nonblocking requests ------------------------------------------------
 * ncs_iget and ncs_iput check a request as ncs_get and ncs_put do (and
 * return the same errors at once) and post it; *reqp gets its id (> 0).
 * Nothing moves until ncs_wait_all, which carries out the requests
 * listed (nreqs ids in reqs, each set to NCS_REQ_NULL when done, with its
 * status in statuses[i], which may be NULL), or every pending one with
 * nreqs NCS_REQ_ALL (reqs and statuses NULL, or as many as are pending).
 * Puts are made before gets; within each kind, in a file opened with
 * ncslab_par.h, the requests of every process move together in one
 * collective MPI-IO call (ncs_wait_all is collective there, whatever the
 * variables' access modes; a process with nothing pending takes part),
 * sorted by file offset, and elsewhere one after the other.  A buffer
 * must stay as it is (iput) or unread (iget) until the wait.  The
 * regions of the puts of one wait must not overlap, nor those of its
 * gets, where they would move in one collective call: such a wait moves
 * the requests one collective call at a time instead.  Requests still
 * pending when the file is closed are dropped, and ncs_close returns
 * NCS_EPENDING (PnetCDF's code) after closing.  Errors of ncs_wait_all:
 * NCS_EBADID, NCS_EINVAL_REQUEST (an id not pending), and the first
 * failing request's status (all are carried out); the statuses say
 * which failed. */
#define NCS_REQ_NULL (-1)
#define NCS_REQ_ALL  (-1)
#define NCS_EINVAL_REQUEST (-212)  /* not the id of a pending request */
#define NCS_EPENDING       (-236)  /* requests were pending at close */
int ncs_iget(int ncid, int varid, const size_t *start, const size_t *count,
             const ptrdiff_t *stride, const ptrdiff_t *imap, int memtype, void *buf,
             int *reqp);
int ncs_iput(int ncid, int varid, const size_t *start, const size_t *count,
             const ptrdiff_t *stride, const ptrdiff_t *imap, int memtype, const void *buf,
             int *reqp);
int ncs_wait_all(int ncid, int nreqs, int *reqs, int *statuses);
/* Drops the requests listed (as ncs_wait_all lists them) without moving
 * anything; *npending of ncs_inq_nreqs: how many are pending. */
int ncs_cancel(int ncid, int nreqs, int *reqs, int *statuses);
int ncs_inq_nreqs(int ncid, int *npendingp);

/* ---- chunked storage (netCDF-4/HDF5 files, classic data model) ---------
 * Files created with NCS_NETCDF4|NCS_CLASSIC_MODEL store variables as
 * netCDF-C does by default: fixed-size ones contiguous, record variables
 * and filtered ones in chunks (doc/chunking.md).  These calls are made in define mode,
 * after ncs_def_var and before the variable is first laid out by enddef;
 * on classic files they fail with NCS_ENOTNC4, as in netCDF-C (the
 * inquiries report contiguous, unfiltered storage). */
#define NCS_CHUNKED    0
#define NCS_CONTIGUOUS 1
#define NCS_COMPACT    2  /* reported for datasets stored in the object header */
#define NCS_ENOTNC4    (-111) /* netCDF-4 operation on a classic file */
#define NCS_ESTRICTNC3 (-112) /* beyond the classic model, in a netCDF-4 file */
#define NCS_ELATEFILL  (-122) /* a fill value for a variable an enddef created */
#define NCS_ELATEDEF   (-123) /* storage settings after data was written */
#define NCS_EBADCHUNK  (-127) /* chunk sizes do not fit the variable */

/* Chunk shape of a variable: chunksizes[d] elements along dimension d (each
 * > 0, at most the dimension's length for fixed dimensions); NULL keeps
 * the shape set before, else the default one.  NCS_CONTIGUOUS with a
 * filter set, on a record variable, and NCS_CHUNKED on a scalar are
 * NCS_EINVAL.
 * The inquiry's *storagep is NCS_CHUNKED (chunksizes filled in),
 * NCS_CONTIGUOUS (scalars, fixed-size variables without filters unless
 * set otherwise, contiguous datasets of any size in existing files) or NCS_COMPACT (compact datasets in existing
 * files); contiguous and compact variables are read and written through
 * HDF5's own selection I/O.
 * Errors: NCS_EBADID, NCS_ENOTNC4, NCS_EPERM (a read-only file, before the
 * varid is looked at, as netCDF-C), NCS_ENOTVAR, NCS_ENOTINDEFINE,
 * NCS_EBADCHUNK, NCS_EINVAL, NCS_ELATEDEF (the variable already laid out
 * by the enddef after its definition). */
int ncs_def_var_chunking(int ncid, int varid, int storage, const size_t *chunksizes);
int ncs_inq_var_chunking(int ncid, int varid, int *storagep, size_t *chunksizes);
/* Shuffle (0/1) and deflate level 0-9 (0: no deflate).  As above. */
int ncs_def_var_deflate(int ncid, int varid, int shuffle, int deflate, int level);
int ncs_inq_var_deflate(int ncid, int varid, int *shufflep, int *deflatep, int *levelp);
/* Zstandard compression (HDF5 filter 32015) at level 1-22; 0 removes it. */
int ncs_def_var_zstd(int ncid, int varid, int level);
int ncs_inq_var_zstd(int ncid, int varid, int *levelp);
/* Fletcher32 checksums of each chunk (0/1). */
int ncs_def_var_fletcher32(int ncid, int varid, int fletcher32);
int ncs_inq_var_fletcher32(int ncid, int varid, int *fletcher32p);
/* Byte order of the variable's data in the file: NCS_ENDIAN_NATIVE (the
 * machine's), NCS_ENDIAN_LITTLE or NCS_ENDIAN_BIG; any other value is kept
 * and means the machine's.  NCS_EINVAL for a text variable.  The inquiry
 * returns what was set, else the file's order as HDF5 records it, which
 * netCDF-C reports too: a one-byte type's included (HDF5 records one for
 * it, though its data never swaps), NCS_ENDIAN_NATIVE for text, which has
 * none; a new variable: NCS_ENDIAN_NATIVE.  Errors as above; the
 * settings may be changed until the variable is laid out (NCS_ELATEDEF),
 * in define mode. */
#define NCS_ENDIAN_NATIVE 0
#define NCS_ENDIAN_LITTLE 1
#define NCS_ENDIAN_BIG    2
int ncs_def_var_endian(int ncid, int varid, int endian);
int ncs_inq_var_endian(int ncid, int varid, int *endianp);
/* Quantization of the values written to a float or double variable, as
 * netCDF-C 4.9 does it (doc/chunking.md): NCS_QUANTIZE_BITGROOM and
 * NCS_QUANTIZE_GRANULARBR keep nsd significant decimal digits (1-7 for
 * float, 1-15 for double), NCS_QUANTIZE_BITROUND nsd significant bits
 * (1-23, 1-52); NCS_NOQUANTIZE (nsd ignored) turns it off.  Values equal
 * to the variable's fill value are written as given.  When the variable
 * is laid out, the attribute netCDF-C names after the mode (e.g.
 * _QuantizeBitGroomNumberOfSignificantDigits) records nsd; a file opened
 * later quantizes by it again.  Errors: as ncs_def_var_endian, checked
 * first; then NCS_EINVAL for another mode, another type, or nsd out of
 * range. */
#define NCS_NOQUANTIZE          0
#define NCS_QUANTIZE_BITGROOM   1
#define NCS_QUANTIZE_GRANULARBR 2
#define NCS_QUANTIZE_BITROUND   3
int ncs_def_var_quantize(int ncid, int varid, int mode, int nsd);
int ncs_inq_var_quantize(int ncid, int varid, int *modep, int *nsdp);

/* ---- the chunk index and the filter pipeline, as the file stores them ---
 * For validators (ncslab-check) and tools that look at a file's storage:
 * what the file records, including what ncslab cannot read itself. */
#define NCS_MAX_FILTERS 32  /* the longest pipeline HDF5 records */

/* The filter pipeline of a variable exactly as the file records it:
 * *nfiltersp HDF5 filter ids in the order they are applied when a chunk
 * is written (undone in the reverse order when it is read), filters
 * ncslab cannot run included: 1 deflate, 2 shuffle, 3 Fletcher-32 and
 * 32015 zstd, which ncslab runs itself, or any other id (4 szip, 5 N-bit,
 * 6 scale-offset, plugins), which only HDF5 with that filter can decode.
 * ids, when not NULL, has room for NCS_MAX_FILTERS ids.  No filters (0)
 * in a classic file and for a variable without any.
 * Errors: NCS_EBADID, NCS_ENOTVAR, NCS_EHDFERR (the pipeline cannot be
 * read). */
int ncs_inq_var_filter_ids(int ncid, int varid, int *nfiltersp, unsigned *ids);

/* The parameters the file records for filter id of the variable, the
 * first filter of its pipeline with that id: HDF5's client data, with what
 * the filter added when the dataset was made (szip: options mask, bits per
 * pixel, pixels per block and per scanline; shuffle: the element size;
 * deflate and zstd: the level; N-bit: its description of the type).
 * *nparamsp is how many the file records; params, when not NULL, receives
 * the first NCS_MAX_FILTER_PARAMS of them.
 * Errors: NCS_EBADID, NCS_ENOTVAR, NCS_ENOFILTER (the file records no such
 * filter for the variable: a classic file, a variable not laid out yet),
 * NCS_EHDFERR (the pipeline cannot be read). */
#define NCS_MAX_FILTER_PARAMS 32
int ncs_inq_var_filter_params(int ncid, int varid, unsigned id, size_t *nparamsp,
                              unsigned *params);

/* One entry of a variable's chunk index, given to the visitor of
 * ncs_inq_var_chunks: origin[d] is the index of the chunk's first element
 * along dimension d (one value per dimension of the variable), as the
 * index records it; mask the filter mask the index records (bit i set:
 * filter i of the pipeline, ncs_inq_var_filter_ids's order, was skipped
 * when the chunk was written, so its bytes did not go through it); offset
 * the byte offset of the chunk's bytes in the file and size how many
 * bytes are stored.  Returning nonzero stops the walk, and
 * ncs_inq_var_chunks returns that value. */
typedef int ncs_chunk_visitor(void *arg, const size_t *origin, unsigned mask,
                              unsigned long long offset, unsigned long long size);
/* Calls visit(arg, ...) once for every chunk the chunk index of variable
 * varid lists, in the order of the index, whether or not the chunk lies
 * inside the variable: what the file holds, without reading or decoding
 * a chunk (chunks ncslab still holds unwritten in a file open for
 * writing are written first).  extent, when not NULL, receives the shape
 * of the stored dataset (one value per dimension), which for a record
 * variable may be fewer records than the file has (netCDF-4 extends each
 * variable's dataset as far as it was written); it is filled in before
 * the first call of visit.  A variable not stored in
 * chunks (contiguous or compact, and every variable of a classic file)
 * has no index: visit is not called, and extent is its shape.  Files of
 * HDF5 releases before 1.10.5, which cannot list chunks, fail with
 * NCS_ENOTBUILT.  The walk reads the index through HDF5; for a variable
 * with n chunks it costs about n lookups when the index lists only
 * chunks inside the dataset and there are not many more places for
 * chunks than chunks, else up to n^2/2 steps of the index (5000 chunks:
 * 0.8 s on a 2026 x86-64 core).  HDF5 reads an origin off the chunk
 * grid as the grid place it rounds down to.
 * Errors: NCS_EBADID, NCS_ENOTVAR, NCS_EINDEFINE, NCS_EINVAL (NULL visit),
 * NCS_EHDFERR (the index cannot be read: a broken file), NCS_ENOTBUILT,
 * and what visit returned. */
int ncs_inq_var_chunks(int ncid, int varid, size_t *extent, ncs_chunk_visitor *visit,
                       void *arg);

/* The chunk cache: one budget in bytes of decoded chunks, shared by every
 * open chunked file (default 16 MiB).  The budget is a ceiling: the cache
 * starts at 4 MiB and grows only when chunks it evicted are asked for
 * again (doc/chunking.md).  Errors: NCS_EINVAL for 0. */
int ncs_set_chunk_cache(size_t bytes);
int ncs_get_chunk_cache(size_t *bytesp);
/* Counters of the chunk cache since the library loaded (or the last reset):
 * lookups that hit or missed, chunks evicted, decoded bytes read from and
 * written to files.  One-element reads (ncs_get1) served from the chunks a
 * variable keeps pinned for them are not lookups and are not counted.  A
 * variable read that way keeps pinned up to one chunk per chunk across its
 * last dimension (a row of chunks, at most 256 and half the budget), and
 * the pinned chunks are never evicted; when those of all variables hold
 * more than 3/4 of the budget, variables give some back. */
int ncs_inq_cache_stats(unsigned long long *hitsp, unsigned long long *missesp,
                        unsigned long long *evictionsp,
                        unsigned long long *bytes_readp,
                        unsigned long long *bytes_writtenp);
void ncs_reset_cache_stats(void);
/* The decoding pool: how many threads (the calling one included) load the
 * compressed chunks of one ncs_get that spans several of them not in the
 * cache, so that they are decoded on several cores at once.  The same
 * threads encode the compressed chunks an ncs_put spanning several chunks
 * covers whole: those are written to the file, encoded several at once,
 * before the put returns (they stay cached, clean), and the cache's
 * flush and close write back their dirty chunks likewise.  The default
 * is NCSLAB_DECODE_THREADS from the environment when set, else the number
 * of online processors; 1 reads every chunk on the calling thread.  The
 * pool's threads start with the first read that uses them and serve one
 * read at a time (another read at that moment decodes on its own thread).
 * Errors: NCS_EINVAL for n < 1.  ncs_get_decode_threads never fails. */
int ncs_set_decode_threads(int n);
int ncs_get_decode_threads(int *np);

#ifdef __cplusplus
}
#endif
#endif /* NCSLAB_H */
