/*
 * diag.c -- the diagnosis of the last ncs_open on each thread: why the file
 * was refused and where, and the irregularities the open let pass, for
 * validators (ncs_inq_open_diag).
 *
 * Invariants: the record is thread-local and of fixed size (nothing is
 * allocated, so a diagnosis survives an open that failed for want of
 * memory); between ncsi_diag_reset and ncsi_diag_done the first fault
 * recorded is kept (a caller that only passes an error on never replaces
 * the precise one made where the file broke the rules), and the first
 * NCSI_DIAG_NOTES notes, later ones only counted.
 */
#include "common.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

typedef struct diag_entry {
    uint64_t offset;         /* NCSI_DIAG_NOWHERE: no one place */
    char what[320];          /* room for a name of NCS_MAX_NAME bytes */
} diag_entry;

static _Thread_local struct {
    int status;              /* of the last open */
    int have_fault;
    int nnotes;              /* recorded, at most NCSI_DIAG_NOTES */
    diag_entry fault;
    diag_entry notes[NCSI_DIAG_NOTES];
} diag;

void ncsi_diag_reset(void)
{
    diag.status = NCS_NOERR;
    diag.have_fault = 0;
    diag.nnotes = 0;
    diag.fault.what[0] = '\0';
}

static void put(diag_entry *e, uint64_t offset, const char *fmt, va_list ap)
{
    e->offset = offset;
    vsnprintf(e->what, sizeof e->what, fmt, ap);
}

void ncsi_diag_fault(uint64_t offset, const char *fmt, ...)
{
    va_list ap;
    if (diag.have_fault)
        return;
    va_start(ap, fmt);
    put(&diag.fault, offset, fmt, ap);
    va_end(ap);
    diag.have_fault = 1;
}

void ncsi_diag_note(uint64_t offset, const char *fmt, ...)
{
    va_list ap;
    if (diag.nnotes == NCSI_DIAG_NOTES)
        return;
    va_start(ap, fmt);
    put(&diag.notes[diag.nnotes], offset, fmt, ap);
    va_end(ap);
    diag.nnotes++;
}

void ncsi_diag_done(int status)
{
    diag.status = status;
    if (status == NCS_NOERR)
        diag.have_fault = 0;     /* a fault a back end recovered from */
}

int ncsi_diag_get(int index, long long *offsetp, char *what, size_t len)
{
    const diag_entry *e;
    int status = NCS_NOERR;
    if (index < 0 || index > diag.nnotes || (what == NULL && len > 0))
        return NCS_ERR(NCS_EINVAL);
    if (index == 0) {
        e = diag.have_fault ? &diag.fault : NULL;
        status = diag.status;
    } else {
        e = &diag.notes[index - 1];
    }
    if (offsetp != NULL)
        *offsetp = e == NULL || e->offset > (uint64_t)INT64_MAX ? -1 : (long long)e->offset;
    if (len > 0) {
        size_t n = e == NULL ? 0 : strlen(e->what);
        if (n >= len)
            n = len - 1;
        if (n > 0)
            memcpy(what, e->what, n);
        what[n] = '\0';
    }
    return status;
}
