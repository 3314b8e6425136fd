/*
 * check_powerloss.c -- power losses, simulated, while a writer rewrites the
 * chunks of a chunked file in place: whatever the disk may hold then, the
 * file must come back as exactly the state of one commit, no older than
 * the last ncs_sync that returned.
 *
 * The kill tests (check_crash_points, check_crash_rewrite) leave the file
 * as the operating system holds it: every write a process made is there.
 * A power loss leaves only what reached the disk: everything up to the last
 * completed fdatasync, and of the writes since, any part the system wrote
 * back on its own.  A byte-I/O wrapper (installed as ncsi_io_open, as
 * tests/support/io_fault.c is) records what the driver writes:
 *
 *   - the durable image: the file's bytes and size as of the last
 *     fdatasync (at the open, the file as it is);
 *   - the writes and size changes since, in order.
 *
 * Before each fdatasync (the last moment before it, whose possible disks
 * include those of every earlier moment since the one before), and when
 * the file is closed, it makes IMAGES (10) disks out of them: for each 4 KiB
 * block, the durable bytes with the first t of the writes that touched it
 * since, t chosen at random for each block (a block written back holds some
 * version the system's cache had); for the size, the size after the first k
 * size changes (extending writes included), k at random (size changes
 * reach the disk in order), the blocks an extension covers holding the
 * extending write (ext4's ordered data), the blocks a truncation cut off
 * holding zeros or later writes; and the two extremes, nothing since the
 * last fdatasync and everything.  Each disk is handed to the parent, which
 * opens it read-only and checks it, then opens it for writing (which
 * applies a pending journal), closes it and checks it again.
 *
 * The writer is check_crash_rewrite's: C(y=320, x=4096) int in chunks of
 * 16 rows, written with round 0's values; rounds 1-5 rewrite every row
 * (odd) or the first chunk's (even) and sync; then the close.  The state of
 * commit k: the first chunk's rows hold round k, the others the last odd
 * round <= k.  NCS_POWERLOSS_SEED sets the choices (printed).
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"
#include "rewrite_work.h"
#include "io.h"

#define IMAGES  10          /* disks made at each moment, the two extremes included */
#define BLK     4096u



/* ---- the recording byte I/O --------------------------------------------------- */

typedef struct rec_op {
    uint64_t off, len;          /* a write; a size change has data NULL */
    unsigned char *data;
    uint64_t size_before, size_after;
} rec_op;

typedef struct rec_io {
    ncs_io base;
    ncs_io *inner;
} rec_io;

static rec_io *tracked;         /* the object opened last: the driver's */
static unsigned char *durable;  /* the file as of the last fdatasync */
static uint64_t dsize;
static rec_op *ops;             /* since then */
static size_t nops, capops;
static uint64_t cur_size;
static unsigned long long rng;
static int synced_now, to_parent = -1, from_parent = -1, moments;
static char image_path[240];

static unsigned long long next_rand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static void *grow(void *p, size_t n)
{
    void *q = realloc(p, n);
    if (q == NULL)
        _exit(12);
    return q;
}

static void record(uint64_t off, const void *data, uint64_t len, uint64_t size_after)
{
    rec_op *o;
    if (nops == capops) {
        capops = capops ? 2 * capops : 64;
        ops = grow(ops, capops * sizeof *ops);
    }
    o = &ops[nops++];
    o->off = off;
    o->len = len;
    o->data = NULL;
    if (data != NULL) {
        o->data = grow(NULL, len ? len : 1);
        memcpy(o->data, data, len);
    }
    o->size_before = cur_size;
    o->size_after = size_after;
    cur_size = size_after;
}

/* The ops applied to the durable image in full (after an fdatasync). */
static void settle(void)
{
    for (size_t i = 0; i < nops; i++) {
        rec_op *o = &ops[i];
        if (o->size_after > dsize) {
            durable = grow(durable, o->size_after);
            memset(durable + dsize, 0, o->size_after - dsize);
        }
        dsize = o->size_after;
        if (o->data != NULL)
            memcpy(durable + o->off, o->data, o->len);
        free(o->data);
    }
    nops = 0;
}

/* One disk a power loss may leave: mode 0 nothing since the last
 * fdatasync, 1 everything, 2 a random choice (see the top of the file). */
static void make_image(int mode, unsigned char **imgp, uint64_t *sizep)
{
    uint64_t top = dsize, nb, k, nsz = 0, seen = 0, cur = dsize;
    size_t *cnt, *t, *done;
    unsigned char *img;
    for (size_t i = 0; i < nops; i++) {
        if (ops[i].size_after > top)
            top = ops[i].size_after;
        nsz += ops[i].size_after != ops[i].size_before;
    }
    nb = top / BLK + 1;
    cnt = calloc(nb, sizeof *cnt);
    t = calloc(nb, sizeof *t);
    done = calloc(nb, sizeof *done);
    img = calloc(1, top + 1);
    if (cnt == NULL || t == NULL || done == NULL || img == NULL)
        _exit(12);
    memcpy(img, durable, dsize);
    for (size_t i = 0; i < nops; i++)
        if (ops[i].data != NULL && ops[i].len > 0)
            for (uint64_t b = ops[i].off / BLK; b <= (ops[i].off + ops[i].len - 1) / BLK; b++)
                cnt[b]++;
    k = mode == 0 ? 0 : mode == 1 ? nsz : next_rand() % (nsz + 1);
    for (uint64_t b = 0; b < nb; b++)
        t[b] = mode == 0 ? 0 : mode == 1 ? cnt[b] : next_rand() % (cnt[b] + 1);
    /* an extension that reached the disk brought its blocks along, and
     * with them the writes before it to those blocks */
    seen = 0;
    memset(done, 0, nb * sizeof *done);
    for (size_t i = 0; i < nops; i++) {
        rec_op *o = &ops[i];
        int sized = o->size_after != o->size_before && ++seen <= k;
        if (o->data == NULL || o->len == 0)
            continue;
        for (uint64_t b = o->off / BLK; b <= (o->off + o->len - 1) / BLK; b++) {
            done[b]++;
            if (sized && (b + 1) * BLK > o->size_before && t[b] < done[b])
                t[b] = done[b];
        }
    }
    seen = 0;
    memset(done, 0, nb * sizeof *done);
    for (size_t i = 0; i < nops; i++) {
        rec_op *o = &ops[i];
        int sized = o->size_after != o->size_before && ++seen <= k;
        if (sized && o->size_after < cur)
            memset(img + o->size_after, 0, cur - o->size_after);
        if (sized)
            cur = o->size_after;
        if (o->data == NULL || o->len == 0)
            continue;
        for (uint64_t b = o->off / BLK; b <= (o->off + o->len - 1) / BLK; b++) {
            uint64_t lo = b * BLK > o->off ? b * BLK : o->off;
            uint64_t hi = (b + 1) * BLK < o->off + o->len ? (b + 1) * BLK : o->off + o->len;
            if (++done[b] <= t[b])
                memcpy(img + lo, o->data + (lo - o->off), hi - lo);
        }
    }
    free(cnt);
    free(t);
    free(done);
    *imgp = img;
    *sizep = cur;
}

/* Hands the disks of this moment to the parent, one at a time. */
static void power_loss_here(void)
{
    for (int j = 0; j < IMAGES; j++) {
        unsigned char *img, ack;
        uint64_t size;
        int fd, msg[2] = { synced_now, moments };
        make_image(j < 2 ? j : 2, &img, &size);
        fd = open(image_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0 || write(fd, img, size) != (ssize_t)size)
            _exit(14);
        close(fd);
        free(img);
        if (write(to_parent, msg, sizeof msg) != (ssize_t)sizeof msg ||
            read(from_parent, &ack, 1) != 1)
            _exit(15);
    }
    moments++;
}

static int rec_read(ncs_io *io, uint64_t off, void *buf, size_t n, size_t *got)
{
    return ncsi_io_read(((rec_io *)io)->inner, off, buf, n, got);
}

static int rec_write(ncs_io *io, uint64_t off, const void *buf, size_t n)
{
    int s = ncsi_io_write(((rec_io *)io)->inner, off, buf, n);
    if (s == NCS_NOERR)
        record(off, buf, n, off + n > cur_size ? off + n : cur_size);
    return s;
}

static int rec_size(ncs_io *io, uint64_t *sizep)
{
    return ncsi_io_size(((rec_io *)io)->inner, sizep);
}

static int rec_set_size(ncs_io *io, uint64_t size)
{
    int s = ncsi_io_set_size(((rec_io *)io)->inner, size);
    if (s == NCS_NOERR)
        record(size, NULL, 0, size);
    return s;
}

static int rec_sync(ncs_io *io)
{
    int s;
    power_loss_here();
    s = ncsi_io_sync(((rec_io *)io)->inner);
    if (s == NCS_NOERR)
        settle();
    return s;
}

static int rec_lock(ncs_io *io, int on)
{
    return ncsi_io_lock(((rec_io *)io)->inner, on);
}

static int rec_close(ncs_io *io)
{
    rec_io *r = (rec_io *)io;
    int s;
    if (r == tracked)
        power_loss_here();
    s = ncsi_io_close(r->inner);
    free(r);
    return s;
}

static const ncs_io_methods rec_methods = {
    .read = rec_read,
    .write = rec_write,
    .size = rec_size,
    .set_size = rec_set_size,
    .sync = rec_sync,
    .lock = rec_lock,
    .close = rec_close,
};

/* The opener while the writer runs: the file as it is becomes the durable
 * image. */
static int rec_open(const char *path, int flags, ncs_io **iop)
{
    rec_io *r = calloc(1, sizeof *r);
    size_t got = 0;
    int s;
    if (r == NULL)
        return NCS_ENOMEM;
    s = ncsi_io_posix_open(path, flags, &r->inner);
    if (s != NCS_NOERR) {
        free(r);
        return s;
    }
    r->base.m = &rec_methods;
    r->base.blksize = r->inner->blksize;
    s = ncsi_io_size(r->inner, &dsize);
    durable = grow(durable, dsize + 1);
    if (s == NCS_NOERR)
        s = ncsi_io_read(r->inner, 0, durable, dsize, &got);
    cur_size = dsize;
    nops = 0;
    tracked = r;
    *iop = &r->base;
    return s;
}

static void writer(const char *path)
{
    int nc;
    ncsi_io_open = rec_open;
    if (ncs_open(path, NCS_WRITE, &nc) != NCS_NOERR)
        _exit(16);
    ncsi_io_open = ncsi_io_posix_open;
    for (int r = 1; r <= ROUNDS; r++) {
        if (rw_put_rows(nc, r, r % 2 ? NY : CY) != NCS_NOERR || ncs_sync(nc) != NCS_NOERR)
            _exit(17);
        synced_now = r;
    }
    if (ncs_close(nc) != NCS_NOERR)
        _exit(18);
}

START_TEST(powerloss)
{
    int down[2], up[2], msg[2], wst, bad = 0, checked = 0, seen[ROUNDS + 1] = { 0 };
    char path[200], keep[320], m[300], where[200];
    unsigned long long seed = tu_env_ull("NCS_POWERLOSS_SEED", (unsigned long long)time(NULL));
    pid_t pid;

    printf("check_powerloss: NCS_POWERLOSS_SEED=%llu\n", seed);
    fflush(stdout);
    /* in memory where the system has a tmpfs: the disks are made by the
     * test, not by the device, and each check of one opens it for writing
     * and closes it with fdatasyncs that a disk shared with other tests
     * made take minutes in all */
    {
        static char dir[] = "/dev/shm/ut_powerloss_XXXXXX";
        const char *d = mkdtemp(dir) != NULL ? dir : ".";
        snprintf(where, sizeof where, "%s", d);
        snprintf(path, sizeof path, "%s/ut_powerloss_%ld.nc", d, (long)getpid());
        snprintf(image_path, sizeof image_path, "%s/ut_powerloss_%ld.img.nc", d,
                 (long)getpid());
    }
    rw_make_file(path);
    ck_assert(pipe(down) == 0 && pipe(up) == 0);
    pid = fork();
    ck_assert(pid >= 0);
    if (pid == 0) {
        close(up[0]);
        close(down[1]);
        to_parent = up[1];
        from_parent = down[0];
        rng = seed * 2 + 1;
        writer(path);
        _exit(0);
    }
    close(up[1]);
    close(down[0]);
    while (read(up[0], msg, sizeof msg) == (ssize_t)sizeof msg) {
        int k = -1, k2 = -1, nc;
        const char *why = rw_check_state(image_path, msg[0], &k, m, sizeof m);
        if (*why == '\0') {
            int s = ncs_open(image_path, NCS_WRITE, &nc);
            if (s == NCS_NOERR)
                s = ncs_close(nc);
            if (s != NCS_NOERR) {
                snprintf(m, sizeof m, "reopen for writing: %s", ncs_strerror(s));
                why = m;
            } else {
                why = rw_check_state(image_path, msg[0], &k2, m, sizeof m);
                if (*why == '\0' && k2 != k) {
                    snprintf(m, sizeof m, "round %d after reopening, %d before", k2, k);
                    why = m;
                }
            }
        }
        checked++;
        if (*why != '\0') {
            snprintf(keep, sizeof keep, "%s/powerloss-fail-%d-%d.nc", where, msg[1], checked);
            rename(image_path, keep);
            if (bad++ < 10)
                printf("  FAIL at moment %d (round %d synced): %s (kept as %s)\n", msg[1],
                       msg[0], why, keep);
        } else {
            seen[k]++;
        }
        ck_assert(write(down[1], "", 1) == 1);
    }
    close(up[0]);
    close(down[1]);
    waitpid(pid, &wst, 0);
    ck_assert_msg(WIFEXITED(wst) && WEXITSTATUS(wst) == 0, "writer failed (%d)",
                  WIFEXITED(wst) ? WEXITSTATUS(wst) : -1);
    unlink(image_path);
    unlink(path);
    if (bad == 0 && strcmp(where, ".") != 0)
        rmdir(where);
    printf("powerloss: %d disks at %d moments, %d bad; states:", checked, checked / IMAGES, bad);
    for (int r = 0; r <= ROUNDS; r++)
        printf(" round %d %d%s", r, seen[r], r < ROUNDS ? "," : "\n");
    fflush(stdout);
    ck_assert_msg(bad == 0, "%d of the disks left a bad file", bad);
    ck_assert(checked >= IMAGES * (2 * ROUNDS + 1));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("powerloss");
    TCase *tc = tcase_create("powerloss");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, powerloss);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
