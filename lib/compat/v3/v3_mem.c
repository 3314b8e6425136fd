/*
 * v3_mem.c -- netCDF's in-memory and diskless files (netcdf_mem.h,
 * NC_DISKLESS, NC_INMEMORY, NC_PERSIST) for the classic formats.
 *
 * The file lives in an anonymous memory file of the kernel (memfd), which
 * the native API opens by its /proc/self/fd path like any other: no byte
 * of it reaches a disk unless NC_PERSIST asks for the file at close.
 * nc_close_memio hands the bytes back in a malloc'd block, as netCDF-C
 * does.  Served: creating (nc_create_mem, nc_create with NC_DISKLESS or
 * NC_INMEMORY, with or without NC_PERSIST) and opening (nc_open_mem,
 * nc_open_memio, nc_open with NC_DISKLESS or NC_INMEMORY, for writing
 * too, NC_PERSIST writing the file back at close), in every format.  The
 * native API is told the file is a private copy (NCS_DISKLESS): its
 * redefinitions are not journaled.  Writing into a locked block of the
 * caller's answers NC_ENOTBUILT (doc/v3.md).
 */
#define _GNU_SOURCE
#include "config.h"
#include "v3.h"
#include "ncslab/netcdf_mem.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct memfile {
    int ncid;
    int fd;                 /* the memory file */
    char *path;             /* the caller's name for it */
    int persist;            /* write it to path at close */
    const void *locked;     /* the caller's block of a file read from
                               memory, given back as it is */
    size_t locked_size;
    void *owned;            /* a block taken over from the caller, freed at
                               close */
    int nc4;                /* a netCDF-4 file */
    struct memfile *next;
} memfile;

static memfile *files;
static pthread_mutex_t files_lock = PTHREAD_MUTEX_INITIALIZER;

static memfile *find(int ncid, int unlink_it)
{
    pthread_mutex_lock(&files_lock);
    memfile **pp = &files, *m;
    while ((m = *pp) != NULL && m->ncid != ncid)
        pp = &m->next;
    if (m != NULL && unlink_it)
        *pp = m->next;
    pthread_mutex_unlock(&files_lock);
    return m;
}

static void forget(memfile *m)
{
    if (m->fd >= 0)
        close(m->fd);
    free(m->owned);
    free(m->path);
    free(m);
}

/* Writes n bytes at off of fd, all of them. */
static int write_all(int fd, const void *buf, size_t n)
{
    const unsigned char *p = buf;
    while (n > 0) {
        ssize_t k = write(fd, p, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return k < 0 ? errno : EIO;
        p += k;
        n -= (size_t)k;
    }
    return NC_NOERR;
}

/* A new memory file holding n bytes of init (none when NULL). */
static int memory_file(const void *init, size_t n, int *fdp)
{
    int fd = memfd_create("ncslab", MFD_CLOEXEC);
    if (fd < 0)
        return errno == ENOSYS ? NC_ENOTBUILT : errno;
    int status = init != NULL ? write_all(fd, init, n) : NC_NOERR;
    if (status != NC_NOERR) {
        close(fd);
        return status;
    }
    *fdp = fd;
    return NC_NOERR;
}

static void fd_path(int fd, char *buf, size_t n)
{
    snprintf(buf, n, "/proc/self/fd/%d", fd);
}

/* The memory file's bytes, in a block of malloc's. */
static int contents(int fd, void **memp, size_t *sizep)
{
    struct stat st;
    if (fstat(fd, &st) != 0)
        return errno != 0 ? errno : EIO;
    size_t n = (size_t)st.st_size;
    unsigned char *buf = malloc(n ? n : 1);
    if (buf == NULL)
        return NC_ENOMEM;
    for (size_t got = 0; got < n;) {
        ssize_t k = pread(fd, buf + got, n - got, (off_t)got);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {
            free(buf);
            return k < 0 ? errno : EIO;
        }
        got += (size_t)k;
    }
    *memp = buf;
    *sizep = n;
    return NC_NOERR;
}

static int track(int ncid, int fd, const char *path, int persist, const void *locked,
                 size_t locked_size)
{
    memfile *m = calloc(1, sizeof *m);
    if (m == NULL || (m->path = strdup(path)) == NULL) {
        free(m);
        return NC_ENOMEM;
    }
    m->ncid = ncid;
    m->fd = fd;
    m->persist = persist;
    m->locked = locked;
    m->locked_size = locked_size;
    pthread_mutex_lock(&files_lock);
    m->next = files;
    files = m;
    pthread_mutex_unlock(&files_lock);
    return NC_NOERR;
}

/* ---- creating ----------------------------------------------------------------- */

int v3i_mem_create(const char *path, int cmode, int native_mode, int *ncidp)
{
    char fdname[64];
    int fd = -1, ncid, status;
    if (path == NULL)
        return NC_EINVAL;
    /* NC_NOCLOBBER is not looked at, as in netCDF-C: a diskless file kept
     * at close replaces what is there then */
    /* netCDF-C's netCDF-4 diskless file to be kept is made on disk, empty,
     * at once (HDF5's backing store), its classic one only at close */
    if ((native_mode & NC_NETCDF4) && (cmode & NC_PERSIST)) {
        int out = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
        if (out < 0)
            return errno;
        close(out);
    }
    status = memory_file(NULL, 0, &fd);
    if (status != NC_NOERR)
        return status;
    fd_path(fd, fdname, sizeof fdname);
    status = ncs_create(fdname, (native_mode & ~NC_NOCLOBBER) | NCS_DISKLESS, &ncid);
    if (status == NC_NOERR)
        status = track(ncid, fd, path, (cmode & NC_PERSIST) != 0, NULL, 0);
    if (status != NC_NOERR) {
        close(fd);
        return status;
    }
    *ncidp = ncid;
    return NC_NOERR;
}

int nc_create_mem(const char *path, int mode, size_t initialsize, int *ncidp)
{
    (void)initialsize;
    if (mode & NC_MMAP)
        return NC_EINVAL;
    return nc_create(path, mode | NC_INMEMORY, ncidp);
}

/* ---- reading -------------------------------------------------------------------- */

/* Opens size bytes at mem as the file path.  given: the caller's block,
 * which nc_close_memio gives back when the file was read only (NULL:
 * none); owned: a block of the caller's that the library takes over (an
 * unlocked nc_open_memio for writing), freed at close; persist: write the
 * file back to path at close. */
static int open_bytes(const char *path, int mode, const void *mem, size_t size,
                      const void *given, void *owned, int persist, int *ncidp)
{
    char fdname[64];
    int fd = -1, ncid, status;
    status = memory_file(mem, size, &fd);
    if (status != NC_NOERR)
        return status;
    fd_path(fd, fdname, sizeof fdname);
    status = ncs_open(fdname, (mode & (NC_WRITE | NC_SHARE)) | NCS_DISKLESS, &ncid);
    if (status == NC_NOERR) {
        status = track(ncid, fd, path, persist, (mode & NC_WRITE) ? NULL : given, size);
        if (status == NC_NOERR) {
            find(ncid, 0)->owned = owned;
            find(ncid, 0)->nc4 = v3i_is_nc4(ncid) == 1;
        }
        if (status != NC_NOERR)
            ncs_close(ncid);
    }
    if (status != NC_NOERR) {
        close(fd);
        return status;
    }
    *ncidp = ncid;
    return NC_NOERR;
}

/* nc_open with NC_DISKLESS or NC_INMEMORY: the file read into memory. */
int v3i_mem_open(const char *path, int mode, int *ncidp)
{
    void *buf;
    size_t n;
    int fd, status;
    if (path == NULL)
        return NC_EINVAL;
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return errno;
    status = contents(fd, &buf, &n);
    close(fd);
    if (status != NC_NOERR)
        return status;
    status = open_bytes(path, mode, buf, n, NULL, NULL,
                        (mode & NC_WRITE) && (mode & NC_PERSIST), ncidp);
    free(buf);
    return status;
}

#define MAGIC_LEN 4

int nc_open_mem(const char *path, int mode, size_t size, void *memory, int *ncidp)
{
    int ncid, status;
    if (memory == NULL || size < MAGIC_LEN || path == NULL)
        return NC_EINVAL;
    if (mode & (NC_WRITE | NC_MMAP))
        return NC_EINVAL;
    if (ncidp == NULL)
        return NC_EINVAL;
    status = open_bytes(path, mode, memory, size, memory, NULL, 0, &ncid);
    if (status == NC_NOERR) {
        v3i_mode_set(ncid, mode | NC_INMEMORY, 1);
        *ncidp = ncid;
    }
    return status;
}

int nc_open_memio(const char *path, int mode, NC_memio *params, int *ncidp)
{
    int ncid, status;
    if (path == NULL || params == NULL)
        return NC_EINVAL;
    if (params->memory == NULL || params->size < MAGIC_LEN)
        return NC_EINVAL;
    if (mode & NC_MMAP)
        return NC_EINVAL;
    if (ncidp == NULL)
        return NC_EINVAL;
    int locked = (params->flags & NC_MEMIO_LOCKED) != 0;
    if ((mode & NC_WRITE) && locked)
        return NC_ENOTBUILT;   /* written in place in the caller's block: doc/v3.md */
    status = open_bytes(path, mode, params->memory, params->size, params->memory,
                        (mode & NC_WRITE) ? params->memory : NULL, 0, &ncid);
    if (status == NC_NOERR) {
        v3i_mode_set(ncid, mode | NC_INMEMORY, 1);
        *ncidp = ncid;
    }
    return status;
}

/* ---- closing ----------------------------------------------------------------------- */

/* The caller's name of an in-memory file (NULL for other files). */
const char *v3i_mem_path(int ncid)
{
    memfile *m = find(ncid, 0);
    return m != NULL ? m->path : NULL;
}

/* Closes ncid; for an in-memory file, gives its bytes to *memio (when
 * memio is non-NULL) or writes them to its path (NC_PERSIST). */
int v3i_mem_close(int ncid, NC_memio *memio)
{
    memfile *m = find(ncid, 0);
    int status = ncs_close(ncid);
    if (m == NULL || status == NC_EBADID)
        return status;
    find(ncid, 1);
    if (status == NC_NOERR && memio != NULL) {
        if (m->locked != NULL) {
            /* the caller's block; netCDF-C's netCDF-4 code marks it locked,
             * its classic code leaves the flags as they were */
            memio->memory = (void *)m->locked;
            memio->size = m->locked_size;
            if (m->nc4)
                memio->flags = NC_MEMIO_LOCKED;
        } else {
            status = contents(m->fd, &memio->memory, &memio->size);
            memio->flags = 0;
        }
    }
    if (status == NC_NOERR && m->persist) {
        void *buf = NULL;
        size_t n = 0;
        status = contents(m->fd, &buf, &n);
        if (status == NC_NOERR) {
            int out = open(m->path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
            status = out < 0 ? errno : write_all(out, buf, n);
            if (out >= 0 && close(out) != 0 && status == NC_NOERR)
                status = errno;
            free(buf);
        }
    }
    forget(m);
    return status;
}

int nc_close_memio(int ncid, NC_memio *memio)
{
    int status = v3i_mem_close(ncid, memio);
    if (status != NC_EBADID) {
        v3i_mode_drop(ncid);
    }
    return status;
}
