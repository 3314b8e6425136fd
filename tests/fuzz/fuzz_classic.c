/*
 * fuzz_classic.c -- libFuzzer target: the input is a classic (CDF-1/2/5)
 * file; ncs_open it read-only and read everything (fuzz_read.h).
 *
 * The library opens paths, so the input goes into a memfd that is opened
 * through /proc/self/fd/N: no disk traffic and nothing left behind.  Inputs
 * carrying an HDF5 signature where ncs_open looks for one are skipped:
 * they would be handed to HDF5's own file parser, which is not ours to fuzz
 * (fuzz_nc4.c covers ncslab's side of netCDF-4 files).
 *
 * Built two ways: with clang -fsanitize=fuzzer by scripts/fuzz, and with
 * replay.c as an ordinary program that make check runs over the corpus in
 * tests/fuzz/corpus/classic/.
 */
#define _GNU_SOURCE
#include "ncslab.h"
#include "fuzz_read.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* What a hostile header may make ncs_open return (as check_corrupt.c). */
static const int open_ok[] = {
    NCS_NOERR, NCS_ENOTNC, NCS_ETRUNC, NCS_EVARSIZE, NCS_EBADTYPE,
    NCS_EBADDIM, NCS_EUNLIMPOS, NCS_EUNLIMIT, NCS_ENAMEINUSE, NCS_EBADNAME,
    NCS_EMAXNAME, NCS_EMAXDIMS, NCS_EMAXVARS, NCS_EMAXATTS, NCS_EDIMSIZE,
};
/* ...and the reads that follow a successful open (ERANGE and ECHAR only
 * from the converting reads, which fuzz_read.h checks apart). */
static const int read_ok[] = {
    NCS_NOERR, NCS_ETRUNC, NCS_ENOTNC, NCS_EIO, NCS_EVARSIZE,
};
static const fz_codes open_set = { open_ok, sizeof open_ok / sizeof open_ok[0] };
static const fz_codes read_set = { read_ok, sizeof read_ok / sizeof read_ok[0] };

/* ncs_open treats a file as HDF5 when the signature is at 0, 512, 1024... */
static int has_hdf5_signature(const uint8_t *data, size_t size)
{
    static const unsigned char sig[8] = { 0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n' };
    for (size_t off = 0; off + 8 <= size; off = off ? off * 2 : 512)
        if (memcmp(data + off, sig, 8) == 0)
            return 1;
    return 0;
}

static int input_fd = -1;
static char input_path[64];

static int put_input(const uint8_t *data, size_t size)
{
    size_t done = 0;
    if (input_fd < 0) {
        input_fd = memfd_create("fuzz_classic", MFD_CLOEXEC);
        if (input_fd < 0) {
            perror("fuzz_classic: memfd_create");
            abort();
        }
        snprintf(input_path, sizeof input_path, "/proc/self/fd/%d", input_fd);
    }
    if (ftruncate(input_fd, 0) != 0)
        return -1;
    while (done < size) {
        ssize_t w = pwrite(input_fd, data + done, size - done, (off_t)done);
        if (w <= 0)
            return -1;
        done += (size_t)w;
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int ncid, st;
    if (has_hdf5_signature(data, size))
        return 0;
    if (put_input(data, size) != 0) {
        perror("fuzz_classic: writing the input");
        abort();
    }
    st = ncs_open(input_path, NCS_NOWRITE, &ncid);
    fz_expect(&open_set, st, "ncs_open");
    if (st != NCS_NOERR)
        return 0;
    fz_read_all(ncid, &read_set);
    if ((st = ncs_close(ncid)) != NCS_NOERR)
        fz_fail("ncs_close of a read-only file", st);
    return 0;
}
