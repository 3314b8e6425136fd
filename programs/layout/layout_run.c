/* programs/layout/layout_run.c -- writing one candidate and timing its reads.
 *
 * Every read is made through a fresh open, so that the library's chunk
 * cache starts empty and only the system's page cache differs between the
 * warm and the cold reading: warm reads follow an untimed reading of the
 * same request (its pages are cached), cold ones follow
 * posix_fadvise(POSIX_FADV_DONTNEED) over the whole file, which drops its
 * clean pages from the system's cache without privileges.  Only ncs_get is
 * timed.  Bytes read are /proc/self/io's rchar around the cold ncs_get:
 * what the library asked the kernel for, from cache or not, less what
 * reading /proc/self/io itself adds; read_bytes (what the kernel fetched
 * from the device for this process) is kept beside it, and is 0 where the
 * file system has no device (tmpfs). */
#include "layout.h"

#include <ncslab.h>

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* rchar and read_bytes of this process; 0 when /proc is missing. */
static void proc_io(unsigned long long *rchar, unsigned long long *rbytes)
{
    char buf[512];
    int fd = open("/proc/self/io", O_RDONLY);
    ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof buf - 1);
    char *p;
    *rchar = *rbytes = 0;
    if (fd >= 0)
        close(fd);
    if (n <= 0)
        return;
    buf[n] = '\0';
    if ((p = strstr(buf, "rchar:")) != NULL)
        *rchar = strtoull(p + 6, NULL, 10);
    if ((p = strstr(buf, "read_bytes:")) != NULL)
        *rbytes = strtoull(p + 11, NULL, 10);
}

/* What one proc_io call adds to rchar. */
static unsigned long long proc_io_cost(void)
{
    static int done;
    static unsigned long long cost;
    if (!done) {
        unsigned long long a, b, x;
        proc_io(&a, &x);
        proc_io(&b, &x);
        cost = b - a;
        done = 1;
    }
    return cost;
}

static int drop_pages(const char *path)
{
    int fd = open(path, O_RDONLY);
    int rc;
    if (fd < 0)
        return -1;
    rc = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    close(fd);
    return rc == 0 ? 0 : -1;
}

int lay_default_chunks(const lay_var *v, const lay_opts *o, size_t *chunk)
{
    char path[4352];
    int ncid, varid, dimids[LAY_MAXDIMS], storage, st;
    snprintf(path, sizeof path, "%s/%s.%ld.default.nc", o->dir, LAY_PROG, (long)getpid());
    if (lay_register_temp(path) != 0) {
        lay_msg("too many temporary files");
        return -1;
    }
    st = ncs_create(path, NCS_NETCDF4 | NCS_CLASSIC_MODEL | NCS_CLOBBER, &ncid);
    if (st == 0) {
        for (int d = 0; st == 0 && d < v->ndims; d++)
            st = ncs_def_dim(ncid, v->dimname[d],
                             v->unlim && d == 0 ? NCS_UNLIMITED : v->shape[d], &dimids[d]);
        if (st == 0)
            st = ncs_def_var(ncid, v->name, v->type, v->ndims, dimids, &varid);
        /* a filter, because netCDF-C stores an unfiltered fixed-size
         * variable contiguously and chunks one with a filter */
        if (st == 0)
            st = ncs_def_var_deflate(ncid, varid, 0, 1, 1);
        if (st == 0)
            st = ncs_inq_var_chunking(ncid, varid, &storage, chunk);
        ncs_abort(ncid);
    }
    lay_forget_temp(path);
    if (st != 0)
        lay_msg("netCDF-C's default chunks of %s: %s", v->name, ncs_strerror(st));
    return st == 0 ? 0 : -1;
}

static int fail(lay_cand *c, const char *what, int st)
{
    lay_msg("%s: %s: %s", c->label, what, ncs_strerror(st));
    c->failed = 1;
    return -1;
}

static int write_cand(const lay_var *v, const void *data, int memtype,
                      const lay_opts *o, lay_cand *c)
{
    int ncid = -1, varid, dimids[LAY_MAXDIMS], st, fd;
    int cmode = c->format == NCS_FORMAT_CLASSIC ? 0
              : c->format == NCS_FORMAT_64BIT_OFFSET ? NCS_64BIT_OFFSET
              : c->format == NCS_FORMAT_64BIT_DATA ? NCS_64BIT_DATA
              : NCS_NETCDF4 | NCS_CLASSIC_MODEL;
    size_t start[LAY_MAXDIMS] = {0}, chunk[LAY_MAXDIMS];
    double t0 = now();
    /* a chunk longer than a sample's fixed dimension (a shape for the
     * whole variable) is cut to it */
    for (int d = 0; d < v->ndims; d++)
        chunk[d] = c->chunk[d] > v->shape[d] && !(v->unlim && d == 0) ? v->shape[d]
                                                                      : c->chunk[d];
    if ((st = ncs_create(c->path, cmode | NCS_CLOBBER, &ncid)) != 0)
        return fail(c, "create", st);
    for (int d = 0; d < v->ndims; d++)
        if ((st = ncs_def_dim(ncid, v->dimname[d],
                              v->unlim && d == 0 ? NCS_UNLIMITED : v->shape[d],
                              &dimids[d])) != 0)
            goto bad;
    if ((st = ncs_def_var(ncid, v->name, v->type, v->ndims, dimids, &varid)) != 0)
        goto bad;
    if (c->kind != LAY_CONTIG) {
        if ((st = ncs_def_var_chunking(ncid, varid, NCS_CHUNKED, chunk)) != 0)
            goto bad;
        if (c->filter == LAY_F_DEFLATE
            && (st = ncs_def_var_deflate(ncid, varid, 1, 1, o->deflate_level)) != 0)
            goto bad;
        if (c->filter == LAY_F_ZSTD
            && (st = ncs_def_var_zstd(ncid, varid, o->zstd_level)) != 0)
            goto bad;
    }
    ncs_set_fill(ncid, NCS_NOFILL, NULL);
    if ((st = ncs_enddef(ncid)) != 0)
        goto bad;
    if ((st = ncs_put(ncid, varid, start, v->shape, NULL, NULL, memtype, data)) != 0
        && st != NCS_ERANGE)
        goto bad;
    st = ncs_close(ncid);
    ncid = -1;
    if (st != 0)
        goto bad;
    /* the bytes on the device are part of writing */
    if ((fd = open(c->path, O_RDONLY)) >= 0) {
        fdatasync(fd);
        close(fd);
    }
    c->write_s = now() - t0;
    return 0;
bad:
    if (ncid >= 0)
        ncs_abort(ncid);
    return fail(c, "writing", st);
}

/* One timed ncs_get of request r through a fresh open. */
static int read_once(const char *path, const lay_var *v, const lay_req *r,
                     void *buf, int cold, double *secs,
                     unsigned long long *rchar, unsigned long long *rbytes)
{
    int ncid, varid, st;
    unsigned long long c0, b0, c1, b1;
    double t0;
    if (cold && drop_pages(path) != 0)
        return NCS_EIO;
    if ((st = ncs_open(path, NCS_NOWRITE, &ncid)) != 0)
        return st;
    if ((st = ncs_inq_varid(ncid, v->name, &varid)) == 0) {
        if (cold)
            drop_pages(path);
        proc_io(&c0, &b0);
        t0 = now();
        st = ncs_get(ncid, varid, r->start, r->count, r->stride, NULL, NCS_NAT, buf);
        *secs = now() - t0;
        proc_io(&c1, &b1);
        *rchar = c1 - c0 - proc_io_cost();
        *rbytes = b1 - b0;
    }
    ncs_close(ncid);
    return st;
}

int lay_measure(const lay_var *v, const void *data, int memtype,
                const lay_opts *o, lay_cand *c)
{
    size_t maxn = 1;
    void *buf;
    struct stat sb;
    proc_io_cost();
    if (c->kind != LAY_FILE && write_cand(v, data, memtype, o, c) != 0)
        return -1;
    c->size = stat(c->path, &sb) == 0 ? (unsigned long long)sb.st_size : 0;
    for (int i = 0; i < o->npat; i++)
        for (int k = 0; k < o->pat[i].nreq; k++) {
            size_t n = 1;
            for (int d = 0; d < v->ndims; d++)
                n *= o->pat[i].req[k].count[d];
            if (n > maxn)
                maxn = n;
        }
    if ((buf = malloc(maxn * v->esz)) == NULL) {
        lay_msg("out of memory for a read of %zu values", maxn);
        return -1;
    }
    for (int i = 0; i < o->npat; i++) {
        const lay_pattern *p = &o->pat[i];
        lay_patres *r = &c->res[i];
        memset(r, 0, sizeof *r);
        for (int k = 0; k < p->nreq; k++) {
            double s;
            unsigned long long rc, rb;
            int st;
            r->chunks += lay_contig(c) ? 0
                       : lay_chunks_touched(v, c->chunk, &p->req[k]);
            for (int rep = 0; rep < o->repeat; rep++) {
                st = read_once(c->path, v, &p->req[k], buf, 0, &s, &rc, &rb);
                if (st == 0)
                    st = read_once(c->path, v, &p->req[k], buf, 0, &s, &rc, &rb);
                if (st != 0)
                    goto bad;
                r->warm += s;
                st = read_once(c->path, v, &p->req[k], buf, 1, &s, &rc, &rb);
                if (st != 0)
                    goto bad;
                r->cold += s;
                r->rchar += rc;
                r->devread += rb;
            }
            continue;
bad:
            free(buf);
            return fail(c, p->text, st);
        }
        r->warm /= p->nreq * o->repeat;
        r->cold /= p->nreq * o->repeat;
        r->rchar /= (unsigned long long)(p->nreq * o->repeat);
        r->devread /= (unsigned long long)(p->nreq * o->repeat);
        r->chunks /= p->nreq;
    }
    free(buf);
    c->score = 0;
    for (int i = 0; i < o->npat; i++)
        c->score += o->pat[i].weight
                  * (o->score_bytes ? (double)c->res[i].rchar : c->res[i].cold);
    return 0;
}
