/*
 * io_posix.c -- byte I/O on a POSIX file descriptor.
 *
 * The lowest layer: pread/pwrite at offsets, retried on EINTR and short
 * transfers.  Errors are errno values, as netCDF reports system errors.
 */
#include "io.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct posix_io {
    ncs_io base;
    int fd;
} posix_io;

static int px_readv(ncs_io *io, uint64_t off, const struct iovec *v, int cnt, size_t *got)
{
    posix_io *p = (posix_io *)io;
    struct iovec left[NCSI_IOV_MAX];
    size_t done = 0;
    int first = 0;
    if (cnt > NCSI_IOV_MAX)
        return NCS_ERR(NCS_EINVAL);
    memcpy(left, v, (size_t)cnt * sizeof *v);
    while (first < cnt && left[first].iov_len == 0)
        first++;
    while (first < cnt) {
        ssize_t r = preadv(p->fd, left + first, cnt - first, (off_t)(off + done));
        if (r < 0) {
            if (errno == EINTR)
                continue;
            return errno;
        }
        if (r == 0)
            break;
        done += (size_t)r;
        /* past the buffers filled, into the one a short transfer left */
        while (first < cnt && (size_t)r >= left[first].iov_len)
            r -= (ssize_t)left[first++].iov_len;
        if (first < cnt) {
            left[first].iov_base = (char *)left[first].iov_base + r;
            left[first].iov_len -= (size_t)r;
        }
    }
    *got = done;
    return NCS_NOERR;
}

static int px_read(ncs_io *io, uint64_t off, void *buf, size_t n, size_t *got)
{
    struct iovec v = { buf, n };
    return px_readv(io, off, &v, 1, got);
}

static void px_willneed(ncs_io *io, uint64_t off, uint64_t n)
{
#ifdef POSIX_FADV_WILLNEED
    posix_io *p = (posix_io *)io;
    (void)posix_fadvise(p->fd, (off_t)off, (off_t)n, POSIX_FADV_WILLNEED);
#else
    (void)io;
    (void)off;
    (void)n;
#endif
}

static int px_write(ncs_io *io, uint64_t off, const void *buf, size_t n)
{
    posix_io *p = (posix_io *)io;
    size_t done = 0;
    while (done < n) {
        ssize_t r = pwrite(p->fd, (const char *)buf + done, n - done, (off_t)(off + done));
        if (r < 0) {
            if (errno == EINTR)
                continue;
            return errno;
        }
        if (r == 0)
            return NCS_ERR(NCS_EIO);
        done += (size_t)r;
    }
    return NCS_NOERR;
}

static int px_size(ncs_io *io, uint64_t *sizep)
{
    posix_io *p = (posix_io *)io;
    struct stat st;
    if (fstat(p->fd, &st) != 0)
        return errno;
    *sizep = (uint64_t)st.st_size;
    return NCS_NOERR;
}

static int px_set_size(ncs_io *io, uint64_t size)
{
    posix_io *p = (posix_io *)io;
    if (ftruncate(p->fd, (off_t)size) != 0)
        return errno;
    return NCS_NOERR;
}

static int px_sync(ncs_io *io)
{
    posix_io *p = (posix_io *)io;
#ifdef HAVE_FDATASYNC
    if (fdatasync(p->fd) != 0)
#else
    if (fsync(p->fd) != 0)
#endif
        return errno;
    return NCS_NOERR;
}

/* flock, not fcntl: its locks belong to the open file, so two handles of
 * one process exclude each other, and closing some other descriptor of the
 * file (probe_format's) does not drop them. */
static int px_lock(ncs_io *io, int on)
{
    posix_io *p = (posix_io *)io;
    while (flock(p->fd, on ? LOCK_EX | LOCK_NB : LOCK_UN) != 0) {
        if (errno != EINTR)
            return errno == EAGAIN ? EWOULDBLOCK : errno;
    }
    return NCS_NOERR;
}

static int px_close(ncs_io *io)
{
    posix_io *p = (posix_io *)io;
    int status = NCS_NOERR;
    if (close(p->fd) != 0)
        status = errno;
    free(p);
    return status;
}

static const ncs_io_methods posix_methods = {
    .read = px_read,
    .readv = px_readv,
    .willneed = px_willneed,
    .write = px_write,
    .size = px_size,
    .set_size = px_set_size,
    .sync = px_sync,
    .lock = px_lock,
    .close = px_close,
};

int ncsi_io_posix_open(const char *path, int flags, ncs_io **iop)
{
    int oflags = (flags & NCSI_IO_WRITE) ? O_RDWR : O_RDONLY;
    posix_io *p;
    int fd;

    if (flags & NCSI_IO_CREATE)
        oflags |= O_CREAT | ((flags & NCSI_IO_EXCL) ? O_EXCL : O_TRUNC);
    oflags |= O_CLOEXEC;
    p = ncsi_malloc(sizeof *p);
    if (p == NULL)
        return NCS_ERR(NCS_ENOMEM);
    fd = open(path, oflags, 0666);
    if (fd < 0) {
        int e = errno;
        free(p);
        if (e == EEXIST && (flags & NCSI_IO_EXCL))
            return NCS_ERR(NCS_EEXIST);
        return e;
    }
    p->base.m = &posix_methods;
    p->fd = fd;
    /* The file system's block size, but no less than 8 KiB: what netCDF
     * calls the chunk size, the unit of NC_ALIGN_CHUNK alignment. */
    p->base.blksize = 8192;
    {
        struct stat st;
        if (fstat(fd, &st) == 0 && st.st_blksize > 8192)
            p->base.blksize = (size_t)st.st_blksize;
    }
    *iop = &p->base;
    return NCS_NOERR;
}

ncs_io_opener ncsi_io_open = ncsi_io_posix_open;

int ncsi_io_readv(ncs_io *io, uint64_t off, const struct iovec *v, int cnt, size_t *got)
{
    size_t done = 0;
    if (io->m->readv != NULL)
        return io->m->readv(io, off, v, cnt, got);
    for (int i = 0; i < cnt; i++) {
        size_t part = 0;
        int status = ncsi_io_read(io, off + done, v[i].iov_base, v[i].iov_len, &part);
        if (status != NCS_NOERR)
            return status;
        done += part;
        if (part < v[i].iov_len)
            break;
    }
    *got = done;
    return NCS_NOERR;
}
