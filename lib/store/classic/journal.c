/*
 * journal.c -- the rollback journal of the classic back end's
 * redefinitions (the protocol's steps are in journal.h).
 *
 * Journal file "<data path>-ncsjournal" (integers big-endian):
 *
 *   journal = header record* trailer
 *
 *   header   offset  size  field
 *            0       8     magic "NCSJRNL1"
 *            8       8     old_size: the data file's size before the change
 *   record   0       4     tag: "DATA" or "ZERO"
 *            4       8     off: where the bytes go back in the data file
 *            12      8     len: how many bytes
 *            20      len   the old bytes (DATA only: a ZERO record's range
 *                          held zeros, a hole of a sparse file most often,
 *                          and is put back as zeros)
 *   trailer  0       4     CRC-32 (zlib's) of every byte before it
 *
 * Invariants:
 *   - a journal is hot (rolled back at open) only when it is complete: its
 *     records end exactly at the trailer, every range lies inside
 *     [0, old_size) and the CRC matches.  Any other journal was cut short
 *     while being written, before the data file was touched, and is
 *     deleted;
 *   - the journal and its directory entry are synced before the first write
 *     to the data file; the data file is synced before the journal is
 *     deleted, both on commit and after a rollback; and the deletion is
 *     synced too, so that a journal never comes back after a power loss to
 *     roll back changes made since.  A crash at any point leaves either a
 *     hot journal or a data file that needs none;
 *   - rolling back is idempotent: a crash in the middle of one leaves the
 *     journal hot, and the next open does it again;
 *   - the writer holds an exclusive lock on the data file (flock, through
 *     the byte-I/O table) from before it creates the journal until after it
 *     deletes it.  A recoverer takes the same lock before it reads the
 *     journal and leaves alone a journal whose lock it cannot take (its
 *     writer is alive), so a live redefinition is never rolled back and a
 *     journal still being written is never deleted as partial;
 *   - only bytes that matter are journaled: the caller passes the ranges
 *     that hold meaningful old content and will be overwritten, never gaps,
 *     and whole 4 KiB blocks of zeros in them become ZERO records, so a
 *     journal is never larger than the non-zero data it keeps plus 20
 *     bytes per record;
 *   - a rollback allocates nothing: a redefinition that failed for want of
 *     memory can still be undone.
 */
#include "journal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#define MAGIC     "NCSJRNL1"
#define HDR_SIZE  16
#define REC_SIZE  20
#define TRAILER   4
#define ZBLOCK    4096               /* unit of zero detection, file-aligned */
#define BUF_SIZE  (64 * 1024)        /* a multiple of ZBLOCK */

struct ncs_journal {
    char *path;              /* the journal's own */
    ncs_io *io;              /* the journal, open from creation to deletion */
    ncs_io *dir;             /* its directory (NULL: not to be synced), open
                                as long, so a rollback allocates nothing */
    unsigned char *rbuf;     /* BUF_SIZE: data read for the journal, then
                                journal read back by a rollback */
    unsigned char *wbuf;     /* BUF_SIZE: journal bytes not yet written */
    size_t fill;             /* bytes in wbuf */
    uint64_t zoff, zlen;     /* a run of zero blocks not yet recorded */
    uint64_t size;           /* journal bytes written */
    uLong crc;               /* of every byte put so far */
};

static void put64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (56 - 8 * i));
}

static uint64_t get64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v = v << 8 | p[i];
    return v;
}

static char *journal_name(const char *path)
{
    size_t n = strlen(path);
    char *j = ncsi_malloc(n + sizeof NCSI_JOURNAL_SUFFIX);
    if (j != NULL) {
        memcpy(j, path, n);
        memcpy(j + n, NCSI_JOURNAL_SUFFIX, sizeof NCSI_JOURNAL_SUFFIX);
    }
    return j;
}

/* Closes what j has open (leaving the journal file where it is) and frees
 * it. */
static void journal_close(ncs_journal *j)
{
    if (j->io != NULL)
        ncsi_io_close(j->io);
    if (j->dir != NULL)
        ncsi_io_close(j->dir);
    free(j->path);
    free(j->rbuf);
    free(j->wbuf);
    free(j);
}

/* ---- the directory -------------------------------------------------------- */

/* Opens the directory holding path, through the byte-I/O table (so the
 * fault-injecting back end counts its syncs); *dirp is NULL when it may
 * not be opened (EACCES): it is then not synced. */
static int open_dir(const char *path, ncs_io **dirp)
{
    const char *slash = strrchr(path, '/');
    size_t n = slash == NULL ? 1 : slash == path ? 1 : (size_t)(slash - path);
    char *name = ncsi_malloc(n + 1);
    int status;
    *dirp = NULL;
    if (name == NULL)
        return NCS_ERR(NCS_ENOMEM);
    memcpy(name, slash == NULL ? "." : slash == path ? "/" : path, n);
    name[n] = '\0';
    status = ncsi_io_open(name, 0, dirp);
    free(name);
    if (status == EACCES) {
        *dirp = NULL;
        status = NCS_NOERR;
    }
    return status;
}

/* Syncs an open directory (NULL: one that could not be opened).  File
 * systems that cannot sync a directory say EINVAL: nothing to do then. */
static int sync_dir(ncs_io *dir)
{
    int status = dir != NULL ? ncsi_io_sync(dir) : NCS_NOERR;
    return status == EINVAL ? NCS_NOERR : status;
}

/* ---- writing ---------------------------------------------------------- */

static int jflush(ncs_journal *j)
{
    int status;
    if (j->fill == 0)
        return NCS_NOERR;
    status = ncsi_io_write(j->io, j->size, j->wbuf, j->fill);
    if (status == NCS_NOERR) {
        j->size += j->fill;
        j->fill = 0;
    }
    return status;
}

/* Appends n bytes (at most BUF_SIZE) to the journal; with summed, into its
 * CRC. */
static int jput(ncs_journal *j, const unsigned char *p, size_t n, int summed)
{
    if (summed)
        j->crc = crc32(j->crc, p, (uInt)n);
    while (n > 0) {
        size_t k = BUF_SIZE - j->fill < n ? BUF_SIZE - j->fill : n;
        memcpy(j->wbuf + j->fill, p, k);
        j->fill += k;
        p += k;
        n -= k;
        if (j->fill == BUF_SIZE) {
            int status = jflush(j);
            if (status != NCS_NOERR)
                return status;
        }
    }
    return NCS_NOERR;
}

/* A DATA record of len bytes (at most BUF_SIZE), or with bytes NULL a
 * ZERO record. */
static int jrecord(ncs_journal *j, uint64_t off, const unsigned char *bytes, uint64_t len)
{
    unsigned char d[REC_SIZE];
    int status;
    memcpy(d, bytes != NULL ? "DATA" : "ZERO", 4);
    put64(d + 4, off);
    put64(d + 12, len);
    status = jput(j, d, REC_SIZE, 1);
    if (status == NCS_NOERR && bytes != NULL)
        status = jput(j, bytes, (size_t)len, 1);
    return status;
}

/* Records the pending run of zero blocks, if any. */
static int jzeros(ncs_journal *j)
{
    int status = NCS_NOERR;
    if (j->zlen > 0)
        status = jrecord(j, j->zoff, NULL, j->zlen);
    j->zlen = 0;
    return status;
}

/* End, in a buffer holding the file from off, of the block that starts at
 * at: the next ZBLOCK boundary of the file, or k. */
static size_t block_end(uint64_t off, size_t at, size_t k)
{
    size_t e = at + (ZBLOCK - (size_t)((off + at) % ZBLOCK));
    return e < k ? e : k;
}

/* 1 when the block at at is a whole, aligned block of zero bytes. */
static int zero_block(const unsigned char *b, uint64_t off, size_t at, size_t k)
{
    return (off + at) % ZBLOCK == 0 && block_end(off, at, k) - at == ZBLOCK &&
           b[at] == 0 && memcmp(b + at, b + at + 1, ZBLOCK - 1) == 0;
}

/* Journals the data file's bytes [off, off + len): runs of zero blocks as
 * ZERO records (one per run, however long), the rest as DATA. */
static int journal_range(ncs_journal *j, ncs_io *data, uint64_t off, uint64_t len)
{
    while (len > 0) {
        /* chunks end on block boundaries, so the blocks stay aligned */
        size_t k = BUF_SIZE - (size_t)(off % ZBLOCK), got, at = 0;
        int status;
        if (k > len)
            k = (size_t)len;
        status = ncsi_io_read(data, off, j->rbuf, k, &got);
        if (status != NCS_NOERR)
            return status;
        if (got != k)
            return NCS_ERR(NCS_EIO);    /* the file shrank under its writer */
        while (at < k) {
            int zero = zero_block(j->rbuf, off, at, k);
            size_t end = block_end(off, at, k);
            while (end < k && zero_block(j->rbuf, off, end, k) == zero)
                end = block_end(off, end, k);
            if (zero) {
                if (j->zlen == 0)
                    j->zoff = off + at;
                j->zlen += end - at;
            } else {
                status = jzeros(j);
                if (status == NCS_NOERR)
                    status = jrecord(j, off + at, j->rbuf + at, end - at);
                if (status != NCS_NOERR)
                    return status;
            }
            at = end;
        }
        off += k;
        len -= k;
    }
    return jzeros(j);
}

int ncsi_journal_begin(const char *path, ncs_io *data, uint64_t old_size,
                       const ncs_range *ranges, size_t n, ncs_journal **jp)
{
    unsigned char hdr[HDR_SIZE], trailer[TRAILER];
    ncs_journal *j;
    int status, locked = 0, created = 0;

    *jp = NULL;
    j = ncsi_calloc(1, sizeof *j);
    if (j == NULL)
        return NCS_ERR(NCS_ENOMEM);
    j->path = journal_name(path);
    j->rbuf = ncsi_malloc(BUF_SIZE);
    j->wbuf = ncsi_malloc(BUF_SIZE);
    if (j->path == NULL || j->rbuf == NULL || j->wbuf == NULL) {
        status = NCS_ERR(NCS_ENOMEM);
        goto cleanup;
    }
    status = ncsi_io_lock(data, 1);
    if (status == EWOULDBLOCK)
        status = EBUSY;
    if (status != NCS_NOERR)
        goto cleanup;
    locked = 1;
    status = open_dir(path, &j->dir);
    if (status != NCS_NOERR)
        goto cleanup;
    /* a journal already there is one this handle failed to delete when an
     * earlier attempt failed before touching the data: replace it */
    status = ncsi_io_open(j->path, NCSI_IO_WRITE | NCSI_IO_CREATE, &j->io);
    if (status != NCS_NOERR)
        goto cleanup;
    created = 1;

    j->crc = crc32(0L, Z_NULL, 0);
    memcpy(hdr, MAGIC, 8);
    put64(hdr + 8, old_size);
    status = jput(j, hdr, HDR_SIZE, 1);
    for (size_t i = 0; i < n && status == NCS_NOERR; i++) {
        NCSI_ASSERT(ranges[i].len > 0 && ranges[i].off + ranges[i].len <= old_size);
        NCSI_ASSERT(i == 0 || ranges[i].off >= ranges[i - 1].off + ranges[i - 1].len);
        status = journal_range(j, data, ranges[i].off, ranges[i].len);
    }
    if (status == NCS_NOERR) {
        uint32_t c = (uint32_t)j->crc;
        for (int i = 0; i < TRAILER; i++)
            trailer[i] = (unsigned char)(c >> (24 - 8 * i));
        status = jput(j, trailer, TRAILER, 0);
    }
    if (status == NCS_NOERR)
        status = jflush(j);
    if (status == NCS_NOERR)
        status = ncsi_io_sync(j->io);
    if (status == NCS_NOERR)
        status = sync_dir(j->dir);

cleanup:
    if (status == NCS_NOERR) {
        *jp = j;
        return NCS_NOERR;
    }
    /* Nothing of the data file has been written.  A journal that cannot be
     * deleted here holds the file's current bytes, and the next attempt
     * replaces it. */
    if (created)
        unlink(j->path);
    if (locked)
        ncsi_io_lock(data, 0);
    journal_close(j);
    return status;
}

int ncsi_journal_commit(ncs_journal **jp, ncs_io *data)
{
    ncs_journal *j = *jp;
    int status;
    if (unlink(j->path) != 0)
        return errno;
    /* Committed.  Until the directory is synced, though, a power loss
     * could bring the journal back, to roll back whatever later syncs make
     * durable: a failure there is reported, and then the caller writes no
     * more (data stays locked until it is closed). */
    status = sync_dir(j->dir);
    if (status == NCS_NOERR)
        ncsi_io_lock(data, 0);
    journal_close(j);
    *jp = NULL;
    return status;
}

/* ---- reading back ------------------------------------------------------- */

/* Reads exactly n bytes at off of io; *ok is 0 when the file ends first. */
static int jread(ncs_io *io, uint64_t off, void *buf, size_t n, int *ok)
{
    size_t got;
    int status = ncsi_io_read(io, off, buf, n, &got);
    *ok = status == NCS_NOERR && got == n;
    return status;
}

/* Walks the journal io, checking it; with data non-NULL, also writes each
 * record's bytes back into data.  *valid is 1 when the journal is
 * complete and intact, and *old_size then holds its header's value.
 * Callers check a journal in a walk without data before they walk it
 * with data, so no byte of a partial journal is ever put back.  The
 * journal is a hostile input here: every length is checked against the
 * bytes that remain before it is used. */
static int walk(ncs_io *io, unsigned char *buf, ncs_io *data, uint64_t *old_size,
                int *valid)
{
    unsigned char h[REC_SIZE];
    uLong crc = crc32(0L, Z_NULL, 0);
    uint64_t jsize, end, pos = HDR_SIZE, limit;
    int status, ok;

    *valid = 0;
    status = ncsi_io_size(io, &jsize);
    if (status != NCS_NOERR || jsize < HDR_SIZE + TRAILER)
        return status;
    end = jsize - TRAILER;
    status = jread(io, 0, h, HDR_SIZE, &ok);
    if (!ok || memcmp(h, MAGIC, 8) != 0)
        return status;
    crc = crc32(crc, h, HDR_SIZE);
    limit = get64(h + 8);
    while (pos < end) {
        uint64_t off, len, done = 0;
        int zero;
        if (end - pos < REC_SIZE)
            return NCS_NOERR;
        status = jread(io, pos, h, REC_SIZE, &ok);
        if (!ok)
            return status;
        crc = crc32(crc, h, REC_SIZE);
        pos += REC_SIZE;
        off = get64(h + 4);
        len = get64(h + 12);
        zero = memcmp(h, "ZERO", 4) == 0;
        if ((!zero && memcmp(h, "DATA", 4) != 0) || len > limit || off > limit - len ||
            (!zero && len > end - pos))
            return NCS_NOERR;
        if (zero && data == NULL)
            continue;               /* nothing to read, nothing to write */
        if (zero)
            memset(buf, 0, BUF_SIZE);
        while (done < len) {
            size_t k = len - done < BUF_SIZE ? (size_t)(len - done) : BUF_SIZE;
            if (!zero) {
                status = jread(io, pos, buf, k, &ok);
                if (!ok)
                    return status;
                crc = crc32(crc, buf, (uInt)k);
                pos += k;
            }
            if (data != NULL) {
                status = ncsi_io_write(data, off + done, buf, k);
                if (status != NCS_NOERR)
                    return status;
            }
            done += k;
        }
    }
    status = jread(io, end, h, TRAILER, &ok);
    if (!ok)
        return status;
    *valid = ((uint32_t)h[0] << 24 | (uint32_t)h[1] << 16 | (uint32_t)h[2] << 8 | h[3]) ==
             (uint32_t)crc;
    *old_size = limit;
    return NCS_NOERR;
}

/* Rolls data back from the journal io (found valid by the caller): its
 * bytes back in place, the file cut to its old size and synced; then the
 * journal jpath deleted and the deletion synced through dir. */
static int restore(ncs_io *io, unsigned char *buf, ncs_io *data, const char *jpath,
                   ncs_io *dir)
{
    uint64_t old_size;
    int valid, status = walk(io, buf, data, &old_size, &valid);
    if (status == NCS_NOERR && !valid)
        status = NCSI_CORRUPT(NCS_ENOTNC);  /* it changed since it was checked */
    if (status == NCS_NOERR)
        status = ncsi_io_set_size(data, old_size);
    if (status == NCS_NOERR)
        status = ncsi_io_sync(data);
    if (status == NCS_NOERR && unlink(jpath) != 0)
        status = errno;
    if (status == NCS_NOERR)
        status = sync_dir(dir);
    return status;
}

int ncsi_journal_rollback(ncs_journal *j, ncs_io *data)
{
    uint64_t old_size;
    int valid, status = walk(j->io, j->rbuf, NULL, &old_size, &valid);
    if (status == NCS_NOERR && !valid)
        status = NCSI_CORRUPT(NCS_ENOTNC);  /* the journal did not read back */
    if (status == NCS_NOERR)
        status = restore(j->io, j->rbuf, data, j->path, j->dir);
    if (status == NCS_NOERR)
        ncsi_io_lock(data, 0);
    journal_close(j);
    return status;
}

int ncsi_journal_recover(const char *path)
{
    char *jpath = journal_name(path);
    ncs_io *data = NULL, *io = NULL, *dir = NULL;
    unsigned char *buf = NULL;
    uint64_t old_size;
    struct stat st;
    int status, writable = 1, valid;

    if (jpath == NULL)
        return NCS_ERR(NCS_ENOMEM);
    if (stat(jpath, &st) != 0) {
        /* a name with no room for the suffix never has a journal */
        status = errno == ENOENT || errno == ENAMETOOLONG ? NCS_NOERR : errno;
        goto cleanup;
    }
    status = ncsi_io_open(path, NCSI_IO_WRITE, &data);
    if (status == EACCES || status == EROFS || status == EPERM) {
        /* enough to look: a partial journal needs no write to the file */
        writable = 0;
        status = ncsi_io_open(path, 0, &data);
    }
    if (status != NCS_NOERR)
        goto cleanup;
    status = ncsi_io_lock(data, 1);     /* dropped when data is closed */
    if (status == EWOULDBLOCK)
        status = EBUSY;
    if (status != NCS_NOERR)
        goto cleanup;
    status = ncsi_io_open(jpath, 0, &io);
    if (status == ENOENT) {
        status = NCS_NOERR;             /* its writer committed meanwhile */
        goto cleanup;
    }
    if (status == NCS_NOERR && (buf = ncsi_malloc(BUF_SIZE)) == NULL)
        status = NCS_ERR(NCS_ENOMEM);
    if (status == NCS_NOERR)
        status = walk(io, buf, NULL, &old_size, &valid);
    if (status != NCS_NOERR)
        goto cleanup;
    if (!valid) {
        /* cut short before the data file was touched: nothing to undo.
         * Left in place if it cannot be deleted; every open checks it. */
        unlink(jpath);
        goto cleanup;
    }
    if (!writable) {
        status = NCS_ERR(NCS_EPERM);
        goto cleanup;
    }
    status = open_dir(path, &dir);
    if (status == NCS_NOERR)
        status = restore(io, buf, data, jpath, dir);

cleanup:
    if (dir != NULL)
        ncsi_io_close(dir);
    if (io != NULL)
        ncsi_io_close(io);
    if (data != NULL)
        ncsi_io_close(data);
    free(buf);
    free(jpath);
    return status;
}

int ncsi_journal_remove_stale(const char *path)
{
    char *jpath = journal_name(path);
    int status = NCS_NOERR;
    if (jpath == NULL)
        return NCS_ERR(NCS_ENOMEM);
    if (unlink(jpath) != 0 && errno != ENOENT && errno != ENAMETOOLONG)
        status = errno;
    free(jpath);
    return status;
}
