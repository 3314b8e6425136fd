/*
 * crashget.c -- a library check_check.sh preloads into ncslab-check, whose
 * ncs_get takes the place of libncslab's and dies of SIGSEGV, as a library
 * would on a file it cannot withstand: the checker must report the file as
 * defective and go on with the next one.
 */
#include <signal.h>
#include <stddef.h>

int ncs_get(int ncid, int varid, const size_t *start, const size_t *count,
            const ptrdiff_t *stride, const ptrdiff_t *imap, int memtype, void *buf);

int ncs_get(int ncid, int varid, const size_t *start, const size_t *count,
            const ptrdiff_t *stride, const ptrdiff_t *imap, int memtype, void *buf)
{
    (void)ncid, (void)varid, (void)start, (void)count, (void)stride, (void)imap;
    (void)memtype, (void)buf;
    raise(SIGSEGV);
    return -1;
}
