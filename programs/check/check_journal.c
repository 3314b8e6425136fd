/*
 * check_journal.c -- the redefinition journal a file may have beside it.
 *
 * An ncs_enddef after ncs_redef in a classic file saves the bytes it will
 * overwrite in PATH-ncsjournal and deletes the journal when it is done
 * (doc/reliability.md, "The journal file"): a journal that is still there
 * means the redefinition was interrupted.  Complete (records ending at the
 * trailer, every range inside the old size, CRC right), it is what the
 * next ncs_open applies to roll the file back, and until then the file
 * may hold a half-moved layout; cut short, the file was never touched and
 * the next ncs_open deletes it.  This file reads the journal with a fixed
 * buffer, never more of it than its size, and never changes it.
 *
 * Journal (integers big-endian): header "NCSJRNL1", old size (8 bytes);
 * records of tag "DATA"/"ZERO", offset (8), length (8), and for DATA that
 * many old bytes; trailer: CRC-32 (zlib's) of every byte before it.
 */
#include "check.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define JR_SUFFIX  "-ncsjournal"
#define JR_HDR     16
#define JR_REC     20
#define JR_TRAILER 4

static uint64_t be64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v = v << 8 | p[i];
    return v;
}

/* CRC-32 with the reflected polynomial 0xEDB88320, as zlib's crc32(). */
static uint32_t crc32_update(uint32_t crc, const unsigned char *p, size_t n)
{
    static uint32_t table[256];
    if (table[1] == 0)
        for (uint32_t i = 0; i < 256; i++) {
            uint32_t c = i;
            for (int k = 0; k < 8; k++)
                c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
            table[i] = c;
        }
    crc = ~crc;
    while (n--)
        crc = table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
    return ~crc;
}

static int read_at(int fd, uint64_t off, void *buf, size_t n)
{
    size_t done = 0;
    while (done < n) {
        ssize_t got = pread(fd, (char *)buf + done, n - done, (off_t)(off + done));
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return -1;
        done += (size_t)got;
    }
    return 0;
}

/* Why the journal of size bytes on fd is not complete, or NULL when it is
 * (nranges set).  *ioerr is set to 1 on a read error. */
static const char *journal_fault(int fd, uint64_t size, uint64_t *old_size,
                                 unsigned long *nranges, int *ioerr)
{
    unsigned char hdr[JR_REC], buf[64 * 1024];
    uint64_t pos, end;
    uint32_t crc = 0;
    *ioerr = 0;
    *nranges = 0;
    if (size < JR_HDR + JR_TRAILER)
        return "shorter than a header and a trailer";
    if (read_at(fd, 0, hdr, JR_HDR) != 0) {
        *ioerr = 1;
        return "unreadable";
    }
    if (memcmp(hdr, "NCSJRNL1", 8) != 0)
        return "no journal magic";
    *old_size = be64(hdr + 8);
    end = size - JR_TRAILER;
    for (pos = JR_HDR; pos < end; (*nranges)++) {
        uint64_t off, len, step;
        if (end - pos < JR_REC)
            return "ends inside a record";
        if (read_at(fd, pos, hdr, JR_REC) != 0) {
            *ioerr = 1;
            return "unreadable";
        }
        off = be64(hdr + 4);
        len = be64(hdr + 12);
        if (memcmp(hdr, "DATA", 4) == 0)
            step = len;
        else if (memcmp(hdr, "ZERO", 4) == 0)
            step = 0;
        else
            return "a record with an unknown tag";
        if (off > *old_size || len > *old_size - off)
            return "a range outside the file's old size";
        if (step > end - pos - JR_REC)
            return "ends inside a record's bytes";
        pos += JR_REC + step;
    }
    for (pos = 0; pos < end;) {
        size_t n = end - pos < sizeof buf ? (size_t)(end - pos) : sizeof buf;
        if (read_at(fd, pos, buf, n) != 0) {
            *ioerr = 1;
            return "unreadable";
        }
        crc = crc32_update(crc, buf, n);
        pos += n;
    }
    if (read_at(fd, end, hdr, JR_TRAILER) != 0) {
        *ioerr = 1;
        return "unreadable";
    }
    if (((uint32_t)hdr[0] << 24 | (uint32_t)hdr[1] << 16 | (uint32_t)hdr[2] << 8 | hdr[3]) != crc)
        return "a CRC that does not match";
    return NULL;
}

int check_journal(check_file *c)
{
    size_t n = strlen(c->path);
    char *jpath = malloc(n + sizeof JR_SUFFIX);
    struct stat st;
    const char *why;
    uint64_t old_size = 0;
    unsigned long nranges = 0;
    int fd, ioerr = 0, ret = 1;

    if (jpath == NULL) {
        check_error(c, -1, "out of memory");
        return -1;
    }
    memcpy(jpath, c->path, n);
    memcpy(jpath + n, JR_SUFFIX, sizeof JR_SUFFIX);
    if (lstat(jpath, &st) != 0) {
        ret = errno == ENOENT || errno == ENOTDIR ? 0 : -1;
        if (ret < 0)
            check_error(c, -1, "cannot look for the journal %s: %s", jpath, strerror(errno));
        goto done;
    }
    fd = open(jpath, O_RDONLY);
    if (fd < 0 || !S_ISREG(st.st_mode)) {
        check_error(c, -1, "leftover redefinition journal %s, which cannot be read%s%s",
                    jpath, fd < 0 ? ": " : " (not a regular file)",
                    fd < 0 ? strerror(errno) : "");
        if (fd >= 0)
            close(fd);
        ret = -1;
        goto done;
    }
    why = journal_fault(fd, (uint64_t)st.st_size, &old_size, &nranges, &ioerr);
    close(fd);
    if (ioerr)
        check_error(c, -1, "leftover redefinition journal %s, which cannot be read",
                    jpath);
    else if (why == NULL)
        check_error(c, -1, "leftover redefinition journal %s, complete (%lu ranges): a "
                    "redefinition was interrupted and the file may be half rewritten; "
                    "the next ncs_open rolls it back to its %llu bytes of before",
                    jpath, nranges, (unsigned long long)old_size);
    else
        check_error(c, -1, "leftover redefinition journal %s, incomplete (%s): it was "
                    "cut short before the file was changed; the next ncs_open deletes it",
                    jpath, why);
    check_info(c, "not opened: opening would apply the journal");
    ret = ioerr ? -1 : 1;
done:
    free(jpath);
    return ret;
}
