/*
 * ncslab/netcdf.h -- netCDF version-2 API, served by libncslab_v2.
 *
 * A legacy program written against netCDF's v2 interface compiles unchanged
 * with this header (pkg-config ncslab-v2 puts its directory on the include
 * path, so `#include <netcdf.h>` finds it) and links against libncslab_v2.
 * The constants have netCDF's values; the calls behave as netCDF-C's v2
 * calls do, oddities included (see doc/v2.md).
 *
 * Besides the v2 calls, the few newer calls v2 programs commonly use are
 * declared: nc_strerror, nc_inq_libvers, nc_set_default_format, and the
 * netCDF-3 inquiry calls (nc_inq, nc_inq_dim*, nc_inq_var*, nc_inq_att*,
 * nc_inq_format), with netCDF-C's prototypes.
 *
 * The names of netCDF 2's own header that programs of that time use are
 * here too (_FillValue, ncvoid, NC_UNSPECIFIED, NC_RDWR, MAX_NC_OPEN,
 * PROTO), with the values of netCDF-C's v2 API where the two differ (the
 * error codes, FILL_LONG).  Left out, because their values now mean other
 * things: netCDF 2's private file-state flags (NC_CREAT, NC_EXCL, NC_INDEF,
 * NC_NSYNC, NC_HSYNC, NC_NDIRTY, NC_HDIRTY, NC_LINK: 0x8 and up are
 * netCDF-3 and -4 mode bits) and private types (NC_BITFIELD, NC_STRING,
 * NC_IARRAY, NC_DIMENSION, NC_VARIABLE, NC_ATTRIBUTE: 7 to 12 are netCDF-4
 * types), and the XDR infinities of its old fill values.  doc/v2.md has
 * the list.
 */
#ifndef NCSLAB_V2_NETCDF_H
#define NCSLAB_V2_NETCDF_H
/* netCDF's own include guard, which some programs test */
#define _NETCDF_

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef int nc_type;

#define NC_NAT    0
#define NC_BYTE   1
#define NC_CHAR   2
#define NC_SHORT  3
#define NC_INT    4
#define NC_LONG   NC_INT
#define NC_FLOAT  5
#define NC_DOUBLE 6
#define NC_UBYTE  7
#define NC_USHORT 8
#define NC_UINT   9
#define NC_INT64  10
#define NC_UINT64 11

#define NC_FILL_BYTE   ((signed char)-127)
#define NC_FILL_CHAR   ((char)0)
#define NC_FILL_SHORT  ((short)-32767)
#define NC_FILL_INT    (-2147483647)
#define NC_FILL_FLOAT  (9.9692099683868690e+36f)
#define NC_FILL_DOUBLE (9.9692099683868690e+36)
#define NC_FILL_UBYTE  (255)
#define NC_FILL_USHORT (65535)
#define NC_FILL_UINT   (4294967295U)
#define NC_FILL_INT64  ((long long)-9223372036854775806LL)
#define NC_FILL_UINT64 ((unsigned long long)18446744073709551614ULL)

/* The attribute that overrides a variable's default fill value. */
#define _FillValue "_FillValue"

#define NC_FILL   0
#define NC_NOFILL 0x100

#define NC_NOWRITE       0x0000
#define NC_WRITE         0x0001
#define NC_CLOBBER       0x0000
#define NC_NOCLOBBER     0x0004
#define NC_64BIT_DATA    0x0020
#define NC_CDF5          NC_64BIT_DATA
#define NC_CLASSIC_MODEL 0x0100
#define NC_64BIT_OFFSET  0x0200
#define NC_LOCK          0x0400
#define NC_SHARE         0x0800
#define NC_NETCDF4       0x1000

#define NC_FORMAT_CLASSIC         1
#define NC_FORMAT_64BIT_OFFSET    2
#define NC_FORMAT_64BIT           NC_FORMAT_64BIT_OFFSET
#define NC_FORMAT_NETCDF4         3
#define NC_FORMAT_NETCDF4_CLASSIC 4
#define NC_FORMAT_64BIT_DATA      5
#define NC_FORMAT_CDF5            NC_FORMAT_64BIT_DATA

#define NC_SIZEHINT_DEFAULT 0
#define NC_ALIGN_CHUNK ((size_t)(-1))
#define NC_UNLIMITED 0L
#define NC_GLOBAL    -1

#define NC_MAX_DIMS     1024
#define NC_MAX_ATTRS    8192
#define NC_MAX_VARS     8192
#define NC_MAX_NAME     256
#define NC_MAX_VAR_DIMS 1024

#define NC_ISSYSERR(err) ((err) > 0)
#define NC_NOERR        0
#define NC2_ERR         (-1)
#define NC_EBADID         (-33)
#define NC_ENFILE         (-34)
#define NC_EEXIST         (-35)
#define NC_EINVAL         (-36)
#define NC_EPERM          (-37)
#define NC_ENOTINDEFINE   (-38)
#define NC_EINDEFINE      (-39)
#define NC_EINVALCOORDS   (-40)
#define NC_EMAXDIMS       (-41)
#define NC_ENAMEINUSE     (-42)
#define NC_ENOTATT        (-43)
#define NC_EMAXATTS       (-44)
#define NC_EBADTYPE       (-45)
#define NC_EBADDIM        (-46)
#define NC_EUNLIMPOS      (-47)
#define NC_EMAXVARS       (-48)
#define NC_ENOTVAR        (-49)
#define NC_EGLOBAL        (-50)
#define NC_ENOTNC         (-51)
#define NC_ESTS           (-52)
#define NC_EMAXNAME       (-53)
#define NC_EUNLIMIT       (-54)
#define NC_ENORECVARS     (-55)
#define NC_ECHAR          (-56)
#define NC_EEDGE          (-57)
#define NC_ESTRIDE        (-58)
#define NC_EBADNAME       (-59)
#define NC_ERANGE         (-60)
#define NC_ENOMEM         (-61)
#define NC_EVARSIZE       (-62)
#define NC_EDIMSIZE       (-63)
#define NC_ETRUNC         (-64)
#define NC_EAXISTYPE      (-65)
#define NC_EDAP           (-66)
#define NC_ECURL          (-67)
#define NC_EIO            (-68)
#define NC_ENODATA        (-69)
#define NC_EDAPSVC        (-70)
#define NC_EDAS           (-71)
#define NC_EDDS           (-72)
#define NC_EDATADDS       (-73)
#define NC_EDAPURL        (-74)
#define NC_EDAPCONSTRAINT (-75)
#define NC_ETRANSLATION   (-76)
#define NC_EACCESS        (-77)
#define NC_EAUTH          (-78)
#define NC_ENOTFOUND      (-90)
#define NC_ECANTREMOVE    (-91)
#define NC_EINTERNAL      (-92)
#define NC_EPNETCDF       (-93)
#define NC_EHDFERR        (-101)
#define NC_ECANTREAD      (-102)
#define NC_ECANTWRITE     (-103)
#define NC_ECANTCREATE    (-104)
#define NC_EFILEMETA      (-105)
#define NC_EDIMMETA       (-106)
#define NC_EATTMETA       (-107)
#define NC_EVARMETA       (-108)
#define NC_ENOCOMPOUND    (-109)
#define NC_EATTEXISTS     (-110)
#define NC_ENOTNC4        (-111)
#define NC_ESTRICTNC3     (-112)
#define NC_ENOTNC3        (-113)
#define NC_ENOPAR         (-114)
#define NC_EPARINIT       (-115)
#define NC_EBADGRPID      (-116)
#define NC_EBADTYPID      (-117)
#define NC_ETYPDEFINED    (-118)
#define NC_EBADFIELD      (-119)
#define NC_EBADCLASS      (-120)
#define NC_EMAPTYPE       (-121)
#define NC_ELATEFILL      (-122)
#define NC_ELATEDEF       (-123)
#define NC_EDIMSCALE      (-124)
#define NC_ENOGRP         (-125)
#define NC_ESTORAGE       (-126)
#define NC_EBADCHUNK      (-127)
#define NC_ENOTBUILT      (-128)
#define NC_EDISKLESS      (-129)
#define NC_ECANTEXTEND    (-130)
#define NC_EMPI           (-131)
#define NC_EFILTER        (-132)
#define NC_ERCFILE        (-133)
#define NC_ENULLPAD       (-134)
#define NC_EINMEMORY      (-135)
#define NC_ENOFILTER      (-136)
#define NC_ENCZARR        (-137)
#define NC_ES3            (-138)
#define NC_EEMPTY         (-139)
#define NC_EOBJECT        (-140)
#define NC_ENOOBJECT      (-141)
#define NC_EPLUGIN        (-142)
#define NC_EXDR           (-32)

/* ---- v2 compatibility ------------------------------------------------ */
#define FILL_BYTE    NC_FILL_BYTE
#define FILL_CHAR    NC_FILL_CHAR
#define FILL_SHORT   NC_FILL_SHORT
#define FILL_LONG    NC_FILL_INT
#define FILL_FLOAT   NC_FILL_FLOAT
#define FILL_DOUBLE  NC_FILL_DOUBLE

#define MAX_NC_DIMS  NC_MAX_DIMS
#define MAX_NC_ATTRS NC_MAX_ATTRS
#define MAX_NC_VARS  NC_MAX_VARS
#define MAX_NC_NAME  NC_MAX_NAME
#define MAX_VAR_DIMS NC_MAX_VAR_DIMS

#define NC_ENTOOL  NC_EMAXNAME
#define NC_EXDR    (-32)   /* v2: XDR error */
#define NC_SYSERR  (-31)   /* v2: system error (errno has the cause) */

/* netCDF 2: the argument type of buffers, the mode bit of a writable
 * open, the "no type" type, and the fill values being the portable ones
 * (NC_OLD_FILLVALUES 0, the only choice here). */
#define ncvoid            void
#define NC_RDWR           NC_WRITE
#define NC_UNSPECIFIED    NC_NAT
#define NC_OLD_FILLVALUES 0
/* netCDF 2 programs size tables of open files by MAX_NC_OPEN: the number
 * of files libncslab_v2 has open at most at once. */
#define MAX_NC_OPEN 32767
/* netCDF 2 declared its calls through PROTO, and programs of its time
 * declare theirs with it, relying on this header. */
#ifndef HAVE_PROTOTYPES
#define HAVE_PROTOTYPES
#endif
#ifndef PROTO
#define PROTO(x) x
#endif

/* ncopts bits: exit on error, print errors.  Default: both. */
#define NC_FATAL   1
#define NC_VERBOSE 2

/* Status of the last failed v2 call (NC_SYSERR for system errors). */
extern int ncerr;
/* Error handling options; assignable. */
extern int ncopts;

/* The C type of NC_LONG data: 32 bits. */
typedef int nclong;

/* Reports an error as the v2 calls do: sets ncerr, prints
 * "routine: <fmt...>: <message>" to stderr under NC_VERBOSE, exits with
 * status ncopts under NC_FATAL. */
void nc_advise(const char *routine_name, int err, const char *fmt, ...);

int nccreate(const char *path, int cmode);
int ncopen(const char *path, int mode);
int ncsetfill(int ncid, int fillmode);
int ncredef(int ncid);
int ncendef(int ncid);
int ncsync(int ncid);
int ncabort(int ncid);
int ncclose(int ncid);
int ncinquire(int ncid, int *ndimsp, int *nvarsp, int *nattsp, int *unlimdimp);
int ncdimdef(int ncid, const char *name, long len);
int ncdimid(int ncid, const char *name);
int ncdiminq(int ncid, int dimid, char *name, long *lenp);
int ncdimrename(int ncid, int dimid, const char *name);
int ncattput(int ncid, int varid, const char *name, nc_type xtype, int len,
             const void *op);
int ncattinq(int ncid, int varid, const char *name, nc_type *xtypep, int *lenp);
int ncattget(int ncid, int varid, const char *name, void *ip);
int ncattcopy(int ncid_in, int varid_in, const char *name, int ncid_out,
              int varid_out);
int ncattname(int ncid, int varid, int attnum, char *name);
int ncattrename(int ncid, int varid, const char *name, const char *newname);
int ncattdel(int ncid, int varid, const char *name);
int ncvardef(int ncid, const char *name, nc_type xtype, int ndims,
             const int *dimidsp);
int ncvarid(int ncid, const char *name);
int ncvarinq(int ncid, int varid, char *name, nc_type *xtypep, int *ndimsp,
             int *dimidsp, int *nattsp);
int ncvarput1(int ncid, int varid, const long *indexp, const void *op);
int ncvarget1(int ncid, int varid, const long *indexp, void *ip);
int ncvarput(int ncid, int varid, const long *startp, const long *countp,
             const void *op);
int ncvarget(int ncid, int varid, const long *startp, const long *countp,
             void *ip);
int ncvarputs(int ncid, int varid, const long *startp, const long *countp,
              const long *stridep, const void *op);
int ncvargets(int ncid, int varid, const long *startp, const long *countp,
              const long *stridep, void *ip);
int ncvarputg(int ncid, int varid, const long *startp, const long *countp,
              const long *stridep, const long *imapp, const void *op);
int ncvargetg(int ncid, int varid, const long *startp, const long *countp,
              const long *stridep, const long *imapp, void *ip);
int ncvarrename(int ncid, int varid, const char *name);
int ncrecinq(int ncid, int *nrecvarsp, int *recvaridsp, long *recsizesp);
int ncrecget(int ncid, long recnum, void **datap);
int ncrecput(int ncid, long recnum, void *const *datap);
int nctypelen(nc_type datatype);

/* Newer calls that v2 programs commonly mix in. */
const char *nc_strerror(int ncerr);
const char *nc_inq_libvers(void);
int nc_set_default_format(int format, int *old_formatp);

/* The netCDF-3 inquiry calls.  Each returns a status (NC_NOERR or an NC_E*
 * code, as netCDF-C's: NC_EBADID, NC_EBADDIM, NC_ENOTVAR, NC_ENOTATT,
 * NC_EBADNAME, ...); none sets ncerr or prints.  Output pointers may be
 * NULL. */
int nc_inq(int ncid, int *ndimsp, int *nvarsp, int *nattsp, int *unlimdimidp);
int nc_inq_ndims(int ncid, int *ndimsp);
int nc_inq_nvars(int ncid, int *nvarsp);
int nc_inq_natts(int ncid, int *nattsp);
int nc_inq_unlimdim(int ncid, int *unlimdimidp);
int nc_inq_format(int ncid, int *formatp);
int nc_inq_dimid(int ncid, const char *name, int *idp);
int nc_inq_dim(int ncid, int dimid, char *name, size_t *lenp);
int nc_inq_dimname(int ncid, int dimid, char *name);
int nc_inq_dimlen(int ncid, int dimid, size_t *lenp);
int nc_inq_var(int ncid, int varid, char *name, nc_type *xtypep, int *ndimsp,
               int *dimidsp, int *nattsp);
int nc_inq_varid(int ncid, const char *name, int *varidp);
int nc_inq_varname(int ncid, int varid, char *name);
int nc_inq_vartype(int ncid, int varid, nc_type *xtypep);
int nc_inq_varndims(int ncid, int varid, int *ndimsp);
int nc_inq_vardimid(int ncid, int varid, int *dimidsp);
int nc_inq_varnatts(int ncid, int varid, int *nattsp);
int nc_inq_att(int ncid, int varid, const char *name, nc_type *xtypep,
               size_t *lenp);
int nc_inq_attid(int ncid, int varid, const char *name, int *idp);
int nc_inq_atttype(int ncid, int varid, const char *name, nc_type *xtypep);
int nc_inq_attlen(int ncid, int varid, const char *name, size_t *lenp);
int nc_inq_attname(int ncid, int varid, int attnum, char *name);

#ifdef __cplusplus
}
#endif
#endif /* NCSLAB_V2_NETCDF_H */
