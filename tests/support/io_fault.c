/*
 * io_fault.c -- a fault-injecting byte-I/O back end over the POSIX one.
 *
 * Each wrapper object owns a POSIX object and forwards every call to it,
 * first counting the call by kind and asking the plan whether this one
 * fails.  A failing call does not reach the file, except for the torn prefix
 * of a write, which models a write the system completed only in part
 * before reporting ENOSPC or EIO.
 *
 * Invariants:
 *   - counters and the fired flag are process-wide, so a plan's ordinal
 *     counts across every file the script opens (create, reopen, ...);
 *   - close is never failed: a test must always be able to release the
 *     object, and the POSIX close underneath frees it;
 *   - with no plan installed the wrapper behaves exactly as the POSIX
 *     object it wraps.
 */
#include "io_fault.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

typedef struct fault_io {
    ncs_io base;
    ncs_io *inner;
    char *path;
} fault_io;

static ncsi_fault_plan plan;          /* plan.nth == 0: nothing fails */
static int plan_active;
static int fired;
static unsigned long long counts[NCSI_FAULT_NKINDS];

/* Counts one operation of kind and decides whether it fails. */
static int should_fail(int kind)
{
    unsigned long long k = ++counts[kind];
    if (!plan_active || plan.kind != kind || plan.nth == 0)
        return 0;
    return k == plan.nth || (plan.sticky && k > plan.nth);
}

/* Marks the plan fired (calling its hook the first time) and returns the
 * failing status. */
static int fire(fault_io *f)
{
    if (!fired) {
        fired = 1;
        if (plan.on_fire != NULL)
            plan.on_fire(plan.arg, f->path);
    }
    return plan.status != 0 ? plan.status : EIO;
}

static int fi_read(ncs_io *io, uint64_t off, void *buf, size_t n, size_t *got)
{
    fault_io *f = (fault_io *)io;
    if (should_fail(NCSI_FAULT_READ)) {
        *got = 0;
        return fire(f);
    }
    return ncsi_io_read(f->inner, off, buf, n, got);
}

static int fi_readv(ncs_io *io, uint64_t off, const struct iovec *v, int cnt, size_t *got)
{
    fault_io *f = (fault_io *)io;
    if (should_fail(NCSI_FAULT_READ)) {
        *got = 0;
        return fire(f);
    }
    return ncsi_io_readv(f->inner, off, v, cnt, got);
}

static int fi_write(ncs_io *io, uint64_t off, const void *buf, size_t n)
{
    fault_io *f = (fault_io *)io;
    if (should_fail(NCSI_FAULT_WRITE)) {
        size_t part = plan.torn && n >= 2 ? n / 2 : 0;
        if (part > 0 && plan.tear_at > 0) {
            /* the boundary nearest the middle, strictly inside the write */
            uint64_t t = plan.tear_at, mid = off + n / 2, lo = mid / t * t, hi = lo + t;
            uint64_t cut = mid - lo <= hi - mid ? lo : hi;
            if (cut <= off)
                cut = hi;
            if (cut >= off + n)
                cut = lo > off ? lo : off;
            part = (size_t)(cut - off);
        }
        /* the prefix's own status does not matter: the call fails anyway */
        if (part > 0)
            (void)ncsi_io_write(f->inner, off, buf, part);
        return fire(f);
    }
    return ncsi_io_write(f->inner, off, buf, n);
}

static int fi_size(ncs_io *io, uint64_t *sizep)
{
    fault_io *f = (fault_io *)io;
    if (should_fail(NCSI_FAULT_SIZE))
        return fire(f);
    return ncsi_io_size(f->inner, sizep);
}

static int fi_set_size(ncs_io *io, uint64_t size)
{
    fault_io *f = (fault_io *)io;
    if (should_fail(NCSI_FAULT_SET_SIZE))
        return fire(f);
    return ncsi_io_set_size(f->inner, size);
}

static int fi_sync(ncs_io *io)
{
    fault_io *f = (fault_io *)io;
    if (should_fail(NCSI_FAULT_SYNC))
        return fire(f);
    return ncsi_io_sync(f->inner);
}

/* Locks are not a kind of their own: never failed, never counted. */
static int fi_lock(ncs_io *io, int on)
{
    fault_io *f = (fault_io *)io;
    return ncsi_io_lock(f->inner, on);
}

static int fi_close(ncs_io *io)
{
    fault_io *f = (fault_io *)io;
    int status = ncsi_io_close(f->inner);
    free(f->path);
    free(f);
    return status;
}

static const ncs_io_methods fault_methods = {
    .read = fi_read,
    .readv = fi_readv,
    .write = fi_write,
    .size = fi_size,
    .set_size = fi_set_size,
    .sync = fi_sync,
    .lock = fi_lock,
    .close = fi_close,
};

int ncsi_fault_io_open(const char *path, int flags, ncs_io **iop)
{
    fault_io *f = ncsi_calloc(1, sizeof *f);
    int status;
    if (f == NULL)
        return NCS_ERR(NCS_ENOMEM);
    f->path = ncsi_strdup(path);
    if (f->path == NULL) {
        free(f);
        return NCS_ERR(NCS_ENOMEM);
    }
    status = ncsi_io_posix_open(path, flags, &f->inner);
    if (status != NCS_NOERR) {
        free(f->path);
        free(f);
        return status;
    }
    f->base.m = &fault_methods;
    f->base.blksize = f->inner->blksize;
    *iop = &f->base;
    return NCS_NOERR;
}

int ncsi_fault_io_install_plan(const ncsi_fault_plan *p)
{
    if (p == NULL || p->kind < 0 || p->kind >= NCSI_FAULT_NKINDS)
        return NCS_ERR(NCS_EINVAL);
    plan = *p;
    plan_active = 1;
    fired = 0;
    memset(counts, 0, sizeof counts);
    ncsi_io_open = ncsi_fault_io_open;
    return NCS_NOERR;
}

int ncsi_fault_io_install(int kind, unsigned long long nth, int status)
{
    ncsi_fault_plan p;
    memset(&p, 0, sizeof p);
    p.kind = kind;
    p.nth = nth;
    p.status = status;
    return ncsi_fault_io_install_plan(&p);
}

void ncsi_fault_io_remove(void)
{
    memset(&plan, 0, sizeof plan);
    plan_active = 0;
    fired = 0;
    memset(counts, 0, sizeof counts);
    ncsi_io_open = ncsi_io_posix_open;
}

unsigned long long ncsi_fault_io_count(int kind)
{
    return kind >= 0 && kind < NCSI_FAULT_NKINDS ? counts[kind] : 0;
}

int ncsi_fault_io_fired(void)
{
    return fired;
}
