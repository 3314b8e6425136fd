/*
 * mpi_io.c -- the byte-I/O table over an MPI file, for the header codec
 * (which reads a header through an ncs_io) and the layout's block size;
 * and MPI's error classes as ncslab's status codes.
 *
 * The transfers are MPI's independent ones at explicit offsets, on a
 * handle whose view is the default (bytes from offset 0): the data path
 * (mpi_data.c) sets a view only for the length of one call.
 */
#include "mpi_store.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>

typedef struct mio {
    ncs_io io;
    MPI_File fh;
} mio;

int ncsi_mpi_status(int mpierr)
{
    int cls = MPI_ERR_OTHER;
    if (mpierr == MPI_SUCCESS)
        return NCS_NOERR;
    MPI_Error_class(mpierr, &cls);
    switch (cls) {
    case MPI_ERR_NO_SUCH_FILE: return ENOENT;
    case MPI_ERR_FILE_EXISTS:  return NCS_ERR(NCS_EEXIST);
    case MPI_ERR_ACCESS:       return EACCES;
    case MPI_ERR_READ_ONLY:    return EROFS;
    case MPI_ERR_NO_SPACE:     return ENOSPC;
    case MPI_ERR_QUOTA:        return EDQUOT;
    case MPI_ERR_BAD_FILE:     return ENOENT;
    case MPI_ERR_NO_MEM:       return NCS_ERR(NCS_ENOMEM);
    case MPI_ERR_FILE_IN_USE:  return EBUSY;
    default:                   return NCS_ERR(NCS_EIO);
    }
}

static int mio_read(ncs_io *io, uint64_t off, void *buf, size_t n, size_t *got)
{
    mio *m = (mio *)io;
    unsigned char *p = buf;
    *got = 0;
    while (n > 0) {
        int k = n > (size_t)(INT_MAX / 2) ? INT_MAX / 2 : (int)n, cnt = 0;
        MPI_Status st;
        int err = MPI_File_read_at(m->fh, (MPI_Offset)off, p, k, MPI_BYTE, &st);
        if (err != MPI_SUCCESS)
            return ncsi_mpi_status(err);
        MPI_Get_count(&st, MPI_BYTE, &cnt);
        if (cnt <= 0)
            break;                       /* end of file */
        *got += (size_t)cnt;
        p += cnt;
        off += (uint64_t)cnt;
        n -= (size_t)cnt;
    }
    return NCS_NOERR;
}

static int mio_write(ncs_io *io, uint64_t off, const void *buf, size_t n)
{
    mio *m = (mio *)io;
    const unsigned char *p = buf;
    while (n > 0) {
        int k = n > (size_t)(INT_MAX / 2) ? INT_MAX / 2 : (int)n, cnt = 0;
        MPI_Status st;
        int err = MPI_File_write_at(m->fh, (MPI_Offset)off, p, k, MPI_BYTE, &st);
        if (err != MPI_SUCCESS)
            return ncsi_mpi_status(err);
        MPI_Get_count(&st, MPI_BYTE, &cnt);
        if (cnt <= 0)
            return NCS_ERR(NCS_EIO);
        p += cnt;
        off += (uint64_t)cnt;
        n -= (size_t)cnt;
    }
    return NCS_NOERR;
}

static int mio_size(ncs_io *io, uint64_t *sizep)
{
    MPI_Offset sz = 0;
    int err = MPI_File_get_size(((mio *)io)->fh, &sz);
    *sizep = (uint64_t)sz;
    return ncsi_mpi_status(err);
}

/* Not used by the codec or the layout: the store changes sizes and syncs
 * through its own collective calls. */
static int mio_set_size(ncs_io *io, uint64_t size)
{
    (void)io, (void)size;
    return NCS_ERR(NCS_EINTERNAL);
}

static int mio_sync(ncs_io *io)
{
    (void)io;
    return NCS_ERR(NCS_EINTERNAL);
}

static int mio_lock(ncs_io *io, int on)
{
    (void)io, (void)on;
    return NCS_NOERR;
}

static int mio_close(ncs_io *io)
{
    free(io);
    return NCS_NOERR;
}

static const ncs_io_methods mio_methods = {
    .read = mio_read,
    .write = mio_write,
    .size = mio_size,
    .set_size = mio_set_size,
    .sync = mio_sync,
    .lock = mio_lock,
    .close = mio_close,
};

int ncsi_mpi_io_new(MPI_File fh, size_t blksize, ncs_io **iop)
{
    mio *m = ncsi_calloc(1, sizeof *m);
    if (m == NULL)
        return NCS_ERR(NCS_ENOMEM);
    m->io.m = &mio_methods;
    m->io.blksize = blksize;
    m->fh = fh;
    *iop = &m->io;
    return NCS_NOERR;
}
