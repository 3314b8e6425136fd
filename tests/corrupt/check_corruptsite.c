/*
 * check_corruptsite.c -- every malformed classic file of tests/corrupt/files/
 * that ncs_open rejects is rejected through NCSI_CORRUPT.
 *
 * In a debug build (--enable-debug) NCSI_CORRUPT records where it was made
 * (ncsi_last_corrupt_site) besides the error's own origin
 * (ncsi_last_error_site).  After each failed open the two must name the
 * same place, so the last error made was a malformed-file rejection and not
 * some other error (a stale site from an earlier file names a different
 * place from this open's error, unless both are the same rejection).  Files
 * with the HDF5 signature go to the HDF5 back end, whose rejections are not
 * checked here; every other file reaches the classic header decoder.
 * Without NCS_DEBUG the sites are not recorded: the test is skipped (77).
 * White-box: it links the convenience library.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

#ifndef NCS_DEBUG
int main(void)
{
    puts("SKIP: NCSI_CORRUPT records its site only in --enable-debug builds");
    return 77;
}
#else
/* Fewer rejections than this means the corpus or this test went wrong. */
#define MIN_REJECTED 100

static int hdf5_signature(const char *path)
{
    static const unsigned char sig[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};
    unsigned char b[8];
    FILE *f = fopen(path, "rb");
    size_t n = 0;
    if (f != NULL) {
        n = fread(b, 1, sizeof b, f);
        fclose(f);
    }
    return n == sizeof b && memcmp(b, sig, sizeof sig) == 0;
}

int main(void)
{
    char path[4096], line[1024], name[256];
    int rejected = 0, failures = 0;
    FILE *manifest;

    snprintf(path, sizeof path, "%s/MANIFEST", NCS_CORRUPT_DIR);
    manifest = fopen(path, "r");
    if (manifest == NULL) {
        perror(path);
        return 1;
    }
    while (fgets(line, sizeof line, manifest) != NULL) {
        int ncid, status;
        const char *corrupt, *error;
        if (line[0] == '#' || sscanf(line, "%255s", name) != 1)
            continue;
        snprintf(path, sizeof path, "%s/%s", NCS_CORRUPT_DIR, name);
        status = ncs_open(path, NCS_NOWRITE, &ncid);
        if (status == NCS_NOERR) {
            ncs_close(ncid);
            continue;
        }
        if (hdf5_signature(path))
            continue;
        rejected++;
        corrupt = ncsi_last_corrupt_site();
        error = ncsi_last_error_site();
        if (corrupt[0] == '\0' || strcmp(corrupt, error) != 0) {
            printf("FAIL: %s: %s (%d) made at %s, last NCSI_CORRUPT at %s\n", name,
                   ncs_strerror(status), status, error[0] ? error : "(no site)",
                   corrupt[0] ? corrupt : "(none)");
            failures++;
        } else {
            printf("ok: %s: %s at %s\n", name, ncs_strerror(status), corrupt);
        }
    }
    fclose(manifest);
    if (rejected < MIN_REJECTED) {
        printf("FAIL: only %d files rejected (at least %d expected)\n", rejected,
               MIN_REJECTED);
        return 1;
    }
    printf("%d rejected files, %d of them not through NCSI_CORRUPT\n", rejected, failures);
    return failures == 0 ? 0 : 1;
}
#endif
