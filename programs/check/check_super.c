/*
 * check_super.c -- a netCDF-4 (HDF5) file shorter than its superblock says.
 *
 * HDF5 refuses to open a file whose size is below the end-of-file address
 * its superblock records, so a truncated netCDF-4 file never opens and the
 * library can only say that it does not know the format.  This reads the
 * superblock itself and says what is wrong and where: the file ends at
 * byte N, its superblock says at byte M.
 *
 * The superblock starts with the signature at byte 0, 512, 1024, 2048, ...
 * (a user block may come first); its fields (HDF5 File Format
 * Specification, "Superblock"; O is the size of offsets, 2, 4 or 8 bytes,
 * all little-endian):
 *
 *     versions 0 and 1:  0 signature (8) | 8 version | 9 free-space version
 *                        | 10 root group version | 11 reserved | 12 shared
 *                        header version | 13 O | 14 size of lengths | 15
 *                        reserved | 16 group leaf K (2) | 18 group internal
 *                        K (2) | 20 consistency flags (4) | version 1 only:
 *                        24 indexed storage K (2), 26 reserved (2) | then
 *                        base address (O) | free-space info address (O) |
 *                        end-of-file address (O) | ...
 *     versions 2 and 3:  0 signature (8) | 8 version | 9 O | 10 size of
 *                        lengths | 11 flags | 12 base address (O) |
 *                        superblock extension address (O) | end-of-file
 *                        address (O) | root object header address (O) |
 *                        checksum (4)
 *
 * The end-of-file address is relative to the base address, which is the
 * absolute offset of the superblock (usually the signature's).  The file
 * is read with a fixed buffer; nothing it says is trusted beyond these
 * few bytes.
 */
#include "check.h"

#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

static const unsigned char h5sig[8] = { 0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n' };

static uint64_t le(const unsigned char *p, int n)
{
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

int check_hdf5_truncation(check_file *c)
{
    unsigned char sb[64];
    uint64_t at, base, eof, end, undefined;
    int fd = open(c->path, O_RDONLY | O_CLOEXEC), found = 0, osize = 0, version = 0;
    size_t pos = 0;
    if (fd < 0)
        return 0;
    for (at = 0; at + sizeof h5sig <= c->fsize; at = at == 0 ? 512 : at * 2) {
        ssize_t got = pread(fd, sb, sizeof sb, (off_t)at);
        if (got >= (ssize_t)sizeof h5sig && memcmp(sb, h5sig, sizeof h5sig) == 0) {
            found = got == (ssize_t)sizeof sb;
            break;
        }
    }
    close(fd);
    if (!found)
        return 0;
    version = sb[8];
    switch (version) {
    case 0: osize = sb[13]; pos = 24; break;
    case 1: osize = sb[13]; pos = 28; break;
    case 2: case 3: osize = sb[9]; pos = 12; break;
    default: return 0;
    }
    if (osize != 2 && osize != 4 && osize != 8)
        return 0;
    undefined = osize == 8 ? UINT64_MAX : ((uint64_t)1 << (8 * osize)) - 1;
    base = le(sb + pos, osize);
    eof = le(sb + pos + 2 * (size_t)osize, osize);
    if (base == undefined || eof == undefined || eof > UINT64_MAX - base)
        return 0;
    end = base + eof;
    if (end <= c->fsize)
        return 0;
    check_error(c, (long long)c->fsize,
                "the file is truncated: its HDF5 superblock (version %d, at byte %llu) "
                "says it ends at byte %llu, but it has %llu bytes (%llu missing)",
                version, (unsigned long long)at, (unsigned long long)end, c->fsize,
                (unsigned long long)(end - c->fsize));
    return 1;
}
