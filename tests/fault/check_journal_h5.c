/*
 * check_journal_h5.c -- the commit journal of chunked files
 * (lib/store/hdf5/h5_driver.c), written by hand from the byte tables of
 * doc/reliability.md ("Chunked files") with the checksum implemented here
 * again from its description, and appended to a closed chunked file as a
 * writer killed after completing its journal would have left it.
 *
 * The file: V(y=4, x=4096) int in chunks of one row, value y*10^4 + x.
 * The journal replaces the pages of row 1's chunk with those pages holding
 * 5*10^6 + the old value.
 *
 * Cases:
 *   format2        a journal of the current format: a read-only open sees
 *                  the new values and leaves the file as it is; an open for
 *                  writing applies it, and once closed the file is as long
 *                  as before the journal and holds the new values
 *   format1        the same with a journal of the first format (records,
 *                  crc32), still applied
 *   damaged        journals that do not count, each leaving the old values
 *                  and, after an open for writing and a close, the file's
 *                  old length: a byte of a page changed, the last byte cut
 *                  off, the trailer cleared (as a commit clears it), a page
 *                  number past the final size, a page twice, J not a page
 *                  boundary, a final size past J
 *   commit_io      the I/O of commits that rewrite every chunk in place
 *                  (counted by tests/support/io_fault.c): the pages a write
 *                  covers whole are not read first, the journal and the
 *                  pages in place are written in a few large writes, and
 *                  from the second commit on the file keeps its size (no
 *                  extension or truncation a commit), and no commit leaves
 *                  a journal's trailer at its end; measured, printed
 *   failed_commit  each write of a sync that rewrites every chunk fails in
 *                  turn (EIO, once): the sync fails, and the file holds the
 *                  values of one commit, the last one or (a failure after
 *                  the journal was complete) the failed one; another sync
 *                  of newer values then succeeds, and after the close the
 *                  file holds them
 *   failed_then_killed  after a sync whose nth write failed, torn (its first
 *                  pages written), for each n, the writer killed at each
 *                  write of the next sync in turn (the file copied, the
 *                  write torn): the copy holds one commit's values, never
 *                  a mix of the failed commit's copies in place and older
 *                  pages
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zlib.h>

#include "testutil.h"
#include "io_fault.h"

#define NXJ  4096
#define PG   4096u
#define NEWV 5000000

static char path[200];

static int value(size_t y, size_t x)
{
    return (int)y * 10000 + (int)x;
}

static off_t fsize(void)
{
    struct stat st;
    ck_assert(stat(path, &st) == 0);
    return st.st_size;
}

static void make_file(const char *name)
{
    static int buf[4 * NXJ];
    size_t ch[2] = { 1, NXJ }, st[2] = { 0, 0 }, ct[2] = { 4, NXJ };
    int nc, d[2], v;
    snprintf(path, sizeof path, "ut_journal_h5_%s_%ld.nc", name, (long)getpid());
    for (size_t y = 0; y < 4; y++)
        for (size_t x = 0; x < NXJ; x++)
            buf[y * NXJ + x] = value(y, x);
    NCS_OK(ncs_create(path, NCS_NETCDF4 | NCS_CLASSIC_MODEL | NCS_CLOBBER, &nc));
    NCS_OK(ncs_def_dim(nc, "y", 4, &d[0]));
    NCS_OK(ncs_def_dim(nc, "x", NXJ, &d[1]));
    NCS_OK(ncs_def_var(nc, "V", NCS_INT, 2, d, &v));
    NCS_OK(ncs_def_var_chunking(nc, v, NCS_CHUNKED, ch));
    NCS_OK(ncs_enddef(nc));
    NCS_OK(ncs_put(nc, v, st, ct, NULL, NULL, NCS_INT, buf));
    NCS_OK(ncs_close(nc));
}

static int find_row1(void *arg, const size_t *origin, unsigned mask, unsigned long long offset,
                     unsigned long long size)
{
    (void)mask;
    if (origin[0] == 1) {
        ck_assert_uint_eq(size, NXJ * 4);
        *(unsigned long long *)arg = offset;
    }
    return 0;
}

/* Checks every value: row 1 new (5*10^6 added) when row1_new. */
static void check_values(int omode, int row1_new)
{
    static int buf[4 * NXJ];
    size_t st[2] = { 0, 0 }, ct[2] = { 4, NXJ };
    int nc;
    NCS_OK(ncs_open(path, omode, &nc));
    NCS_OK(ncs_get(nc, 0, st, ct, NULL, NULL, NCS_INT, buf));
    NCS_OK(ncs_close(nc));
    for (size_t y = 0; y < 4; y++)
        for (size_t x = 0; x < NXJ; x++)
            TU_EXPECT(buf[y * NXJ + x] == value(y, x) + (y == 1 && row1_new ? NEWV : 0),
                      "V[%zu][%zu] = %d", y, x, buf[y * NXJ + x]);
}

/* ---- the checksum, from doc/reliability.md ---------------------------------- */
#define P1 0x9E3779B185EBCA87ull
#define P2 0xC2B2AE3D27D4EB4Full
#define P3 0x165667B19E3779F9ull

static uint64_t rotl(uint64_t x, int r)
{
    return x << r | x >> (64 - r);
}

static uint64_t get_le(const unsigned char *p, int n)
{
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static void put_le(unsigned char *p, uint64_t v, int n)
{
    for (int i = 0; i < n; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t checksum(const unsigned char *b, size_t n)
{
    uint64_t lane[8], h = n;
    for (int j = 0; j < 8; j++)
        lane[j] = (uint64_t)(j + 1) * P2;
    for (size_t i = 0; i < n / 8; i++)
        lane[i % 8] = rotl((lane[i % 8] + get_le(b + 8 * i, 8)) * P1, 31);
    for (int j = 0; j < 8; j++)
        h = rotl(h ^ (lane[j] * P2), 27) * P1 + P3;
    h ^= h >> 33;
    h *= P2;
    h ^= h >> 29;
    h *= P3;
    return h ^ h >> 32;
}

/* ---- the journal -------------------------------------------------------------- */

typedef struct jpages {
    uint64_t no[8];
    unsigned char data[8][PG];
    int n;
} jpages;

/* The pages of row 1's chunk with the new values, as a writer would have
 * deferred them; *final the file's size. */
static void new_pages(jpages *jp, uint64_t *final)
{
    unsigned long long off = 0;
    int nc, fd;
    NCS_OK(ncs_open(path, NCS_NOWRITE, &nc));
    NCS_OK(ncs_inq_var_chunks(nc, 0, NULL, find_row1, &off));
    NCS_OK(ncs_close(nc));
    ck_assert(off > 0);
    *final = (uint64_t)fsize();
    fd = open(path, O_RDONLY);
    ck_assert(fd >= 0);
    jp->n = 0;
    for (uint64_t no = off / PG; no * PG < off + NXJ * 4; no++) {
        unsigned char *d = jp->data[jp->n];
        memset(d, 0, PG);
        ck_assert(pread(fd, d, PG, (off_t)(no * PG)) > 0);
        for (uint64_t a = no * PG; a < (no + 1) * PG; a++) {
            uint64_t e = (a - off) / 4;
            if (a >= off && e < NXJ && (a - off) % 4 == 0) {
                /* the element in the byte order the file holds it in */
                uint32_t old = (uint32_t)value(1, (size_t)e);
                int le = get_le(d + (a - no * PG), 4) == old;
                uint32_t nv = old + NEWV;
                for (int i = 0; i < 4; i++)
                    d[a - no * PG + i] = (unsigned char)(nv >> (le ? 8 * i : 8 * (3 - i)));
            }
        }
        jp->no[jp->n++] = no;
    }
    close(fd);
}

/* Appends bytes at off, the file zero-filled up to it. */
static void put_at(uint64_t off, const unsigned char *b, size_t n)
{
    int fd = open(path, O_WRONLY);
    ck_assert(fd >= 0);
    ck_assert(pwrite(fd, b, n, (off_t)off) == (ssize_t)n);
    close(fd);
}

enum { DMG_NONE, DMG_PAGE_BYTE, DMG_CUT, DMG_CLEARED, DMG_PAGE_PAST, DMG_TWICE, DMG_J_ODD,
       DMG_FINAL_PAST, DMG_N };
static const char *const dmg_name[DMG_N] = {
    "none", "page byte", "cut", "cleared", "page past final", "page twice", "J unaligned",
    "final past J"
};

/* Writes a journal of the current format (damaged as asked). */
static void journal2(const jpages *jp, uint64_t final, int dmg)
{
    uint64_t J = (final + PG - 1) / PG * PG, n = (uint64_t)jp->n;
    size_t ilen = (8 * (size_t)n + 40 + PG - 1) / PG * PG, len = (size_t)n * PG + ilen;
    static unsigned char b[16 * PG];
    unsigned char *idx = b + n * PG, *t = b + len - 40;
    ck_assert(len <= sizeof b);
    memset(b, 0, len);
    if (dmg == DMG_J_ODD)
        J += 8;
    for (int i = 0; i < jp->n; i++) {
        memcpy(b + (size_t)i * PG, jp->data[i], PG);
        put_le(idx + 8 * i, jp->no[i], 8);
    }
    if (dmg == DMG_PAGE_PAST)
        put_le(idx + 8 * (n - 1), (final + PG - 1) / PG, 8);
    if (dmg == DMG_TWICE)
        put_le(idx + 8 * (n - 1), jp->no[0], 8);
    memcpy(t, "NCSJRNL2", 8);
    put_le(t + 8, n, 8);
    put_le(t + 16, dmg == DMG_FINAL_PAST ? J + PG : final, 8);
    put_le(t + 24, J, 8);
    put_le(t + 32, checksum(b, len - 8), 8);
    if (dmg == DMG_PAGE_BYTE)
        b[PG + 100] ^= 1;
    if (dmg == DMG_CLEARED)
        memset(t, 0, 40);
    put_at(J, b, len - (dmg == DMG_CUT));
}

/* Writes a journal of the first format. */
static void journal1(const jpages *jp, uint64_t final)
{
    uint64_t J = (final + PG - 1) / PG * PG;
    static unsigned char b[8 * (8 + PG) + 40];
    size_t k = 0;
    uLong crc;
    for (int i = 0; i < jp->n; i++) {
        put_le(b + k, jp->no[i], 8);
        memcpy(b + k + 8, jp->data[i], PG);
        k += 8 + PG;
    }
    memcpy(b + k, "NCSJRNL1", 8);
    put_le(b + k + 8, (uint64_t)jp->n, 8);
    put_le(b + k + 16, final, 8);
    put_le(b + k + 24, J, 8);
    crc = crc32(0L, b, (uInt)(k + 32));
    put_le(b + k + 32, crc, 4);
    memset(b + k + 36, 0, 4);
    put_at(J, b, k + 40);
}

static void applied(uint64_t final)
{
    off_t with = fsize();
    ck_assert(with > (off_t)final);
    /* seen through, the file untouched */
    check_values(NCS_NOWRITE, 1);
    ck_assert(fsize() == with);
    /* applied by an open for writing */
    check_values(NCS_WRITE, 1);
    ck_assert_msg(fsize() == (off_t)final, "%lld bytes after the writer's close, %llu before",
                  (long long)fsize(), (unsigned long long)final);
    check_values(NCS_NOWRITE, 1);
}

START_TEST(format2)
{
    static jpages jp;
    uint64_t final;
    make_file("v2");
    new_pages(&jp, &final);
    ck_assert(jp.n >= 4);
    journal2(&jp, final, DMG_NONE);
    applied(final);
    unlink(path);
}
END_TEST

START_TEST(format1)
{
    static jpages jp;
    uint64_t final;
    make_file("v1");
    new_pages(&jp, &final);
    journal1(&jp, final);
    applied(final);
    unlink(path);
}
END_TEST

START_TEST(damaged)
{
    static jpages jp;
    uint64_t final;
    int dmg = _i + 1;
    make_file(dmg_name[dmg]);
    new_pages(&jp, &final);
    journal2(&jp, final, dmg);
    ck_assert(fsize() > (off_t)final);
    check_values(NCS_NOWRITE, 0);
    check_values(NCS_WRITE, 0);
    ck_assert_msg(fsize() == (off_t)final, "%s: %lld bytes after the writer's close, %llu before",
                  dmg_name[dmg], (long long)fsize(), (unsigned long long)final);
    check_values(NCS_NOWRITE, 0);
    unlink(path);
}
END_TEST

/* 1 when the file ends with a journal's trailer (its magic). */
static int ends_with_trailer(void)
{
    char t[8] = "";
    off_t size = fsize();
    int fd = open(path, O_RDONLY), got;
    ck_assert(fd >= 0);
    got = size >= 40 && pread(fd, t, 8, size - 40) == 8;
    close(fd);
    return got && memcmp(t, "NCSJRNL", 7) == 0;
}

START_TEST(commit_io)
{
    static int buf[4 * NXJ];
    size_t st[2] = { 0, 0 }, ct[2] = { 4, NXJ };
    unsigned long long c0[NCSI_FAULT_NKINDS], c1[NCSI_FAULT_NKINDS];
    off_t size[6];
    int nc;
    make_file("io");
    ncsi_fault_io_install(NCSI_FAULT_WRITE, 0, 0);
    NCS_OK(ncs_open(path, NCS_WRITE, &nc));
    for (int r = 1; r <= 5; r++) {
        for (size_t i = 0; i < 4 * NXJ; i++)
            buf[i] = r * 1000000 + (int)i;
        NCS_OK(ncs_put(nc, 0, st, ct, NULL, NULL, NCS_INT, buf));
        for (int k = 0; k < NCSI_FAULT_NKINDS; k++)
            c0[k] = ncsi_fault_io_count(k);
        NCS_OK(ncs_sync(nc));
        for (int k = 0; k < NCSI_FAULT_NKINDS; k++)
            c1[k] = ncsi_fault_io_count(k) - c0[k];
        size[r] = fsize();
        printf("commit_io: sync %d of 64 KiB rewritten: %llu reads, %llu writes, %llu syncs, "
               "%llu size changes; file %lld bytes\n", r, c1[NCSI_FAULT_READ],
               c1[NCSI_FAULT_WRITE], c1[NCSI_FAULT_SYNC], c1[NCSI_FAULT_SET_SIZE],
               (long long)size[r]);
        /* 17 pages of chunks: at most the 8 pages at chunk boundaries are
         * read; 2 writes of the journal, 1 of the pages in place (the
         * chunks lie one after the other), 1 clearing the trailer, and as
         * many again for metadata pages apart from them */
        ck_assert_msg(c1[NCSI_FAULT_READ] <= 8, "%llu reads", c1[NCSI_FAULT_READ]);
        ck_assert_msg(c1[NCSI_FAULT_WRITE] <= 8, "%llu writes", c1[NCSI_FAULT_WRITE]);
        ck_assert_msg(c1[NCSI_FAULT_SYNC] == 2, "%llu syncs", c1[NCSI_FAULT_SYNC]);
        ck_assert_msg(!ends_with_trailer(), "sync %d left a journal's trailer", r);
        if (r >= 3) {
            ck_assert_msg(c1[NCSI_FAULT_SET_SIZE] == 0, "%llu size changes",
                          c1[NCSI_FAULT_SET_SIZE]);
            ck_assert(size[r] == size[r - 1]);
        }
    }
    NCS_OK(ncs_close(nc));
    ncsi_fault_io_remove();
    unlink(path);
}
END_TEST

static void put_round(int nc, int r)
{
    static int buf[4 * NXJ];
    size_t st[2] = { 0, 0 }, ct[2] = { 4, NXJ };
    for (size_t i = 0; i < 4 * NXJ; i++)
        buf[i] = r * 1000000 + (int)i;
    NCS_OK(ncs_put(nc, 0, st, ct, NULL, NULL, NCS_INT, buf));
}

/* Every value of file p is round r's (r < 0: of one round, -r or -r+1,
 * returned). */
static int check_round_of(const char *p, int r)
{
    static int buf[4 * NXJ];
    size_t st[2] = { 0, 0 }, ct[2] = { 4, NXJ };
    int nc;
    NCS_OK(ncs_open(p, NCS_NOWRITE, &nc));
    NCS_OK(ncs_get(nc, 0, st, ct, NULL, NULL, NCS_INT, buf));
    NCS_OK(ncs_close(nc));
    if (r < 0) {
        ck_assert_msg(buf[0] / 1000000 == -r || buf[0] / 1000000 == -r + 1, "round %d",
                      buf[0] / 1000000);
        r = buf[0] / 1000000;
    }
    for (size_t i = 0; i < 4 * NXJ; i++)
        TU_EXPECT(buf[i] == r * 1000000 + (int)i, "element %zu = %d, round %d's wanted", i,
                  buf[i], r);
    return r;
}

static int check_round(int r)
{
    return check_round_of(path, r);
}

/* The file's bytes now, as a copy (what a process killed now leaves; the
 * file itself, still open, HDF5 would share with the writer's handle). */
static void snapshot(const char *to)
{
    static unsigned char b[1 << 16];
    ssize_t n;
    int in = open(path, O_RDONLY), out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ck_assert(in >= 0 && out >= 0);
    while ((n = read(in, b, sizeof b)) > 0)
        ck_assert(write(out, b, (size_t)n) == n);
    close(in);
    close(out);
}

START_TEST(failed_commit)
{
    unsigned long long writes = 0;
    int failed = 0, took = 0;
    char snap[240];
    snprintf(snap, sizeof snap, "ut_journal_h5_snap_%ld.nc", (long)getpid());
    for (unsigned long long n = 0; n == 0 || n <= writes; n++) {
        int nc, s;
        make_file("failed");
        /* opened through the fault I/O, which then counts from each install */
        ncsi_fault_io_install(NCSI_FAULT_WRITE, 0, 0);
        NCS_OK(ncs_open(path, NCS_WRITE, &nc));
        put_round(nc, 1);
        NCS_OK(ncs_sync(nc));
        put_round(nc, 2);
        ncsi_fault_io_install(NCSI_FAULT_WRITE, n, EIO);
        s = ncs_sync(nc);
        if (n == 0) {
            writes = ncsi_fault_io_count(NCSI_FAULT_WRITE);
            NCS_OK(s);
        } else {
            ck_assert_msg(s != NCS_NOERR, "write %llu of %llu failed, the sync did not", n,
                          writes);
            failed++;
            /* what the file holds now: the last commit, or this one when
             * the write failed after its journal was complete */
            snapshot(snap);
            took += check_round_of(snap, -1) == 2;
            unlink(snap);
        }
        ncsi_fault_io_remove();
        put_round(nc, 3);
        NCS_OK(ncs_sync(nc));
        check_round(3);
        NCS_OK(ncs_close(nc));
        check_round(3);
        ck_assert(!ends_with_trailer());
    }
    printf("failed_commit: %d of the sync's %llu writes failed in turn; after %d of them the "
           "failed commit held (its journal was complete)\n", failed, writes, took);
    ck_assert(writes >= 3);
    unlink(path);
}
END_TEST

/* The round whose values file p holds throughout, -1 when they are not
 * all one round's. */
static int whole_round(const char *p)
{
    static int buf[4 * NXJ];
    size_t st[2] = { 0, 0 }, ct[2] = { 4, NXJ };
    int nc, r;
    NCS_OK(ncs_open(p, NCS_NOWRITE, &nc));
    NCS_OK(ncs_get(nc, 0, st, ct, NULL, NULL, NCS_INT, buf));
    NCS_OK(ncs_close(nc));
    r = buf[0] / 1000000;
    for (size_t i = 0; i < 4 * NXJ; i++)
        if (buf[i] != r * 1000000 + (int)i)
            return -1;
    return r;
}

/* The nth write from now fails with EIO, its first pages written (as a
 * write the system completed in part). */
static void fail_write_torn(unsigned long long n, void (*hook)(void *, const char *))
{
    ncsi_fault_plan p;
    memset(&p, 0, sizeof p);
    p.kind = NCSI_FAULT_WRITE;
    p.nth = n;
    p.status = EIO;
    p.torn = 1;
    p.tear_at = 4096;
    p.on_fire = hook;
    ncsi_fault_io_install_plan(&p);
}

static char kill_snap[240];

static void copy_at_fault(void *arg, const char *from)
{
    (void)arg;
    (void)from;
    snapshot(kill_snap);
}

START_TEST(failed_then_killed)
{
    int points = 0, states[4] = { 0 };
    snprintf(kill_snap, sizeof kill_snap, "ut_journal_h5_kill_%ld.nc", (long)getpid());
    for (unsigned long long n = 1;; n++) {
        int nc, s, fired = 1;
        make_file("killed");
        ncsi_fault_io_install(NCSI_FAULT_WRITE, 0, 0);
        NCS_OK(ncs_open(path, NCS_WRITE, &nc));
        put_round(nc, 1);
        NCS_OK(ncs_sync(nc));
        put_round(nc, 2);
        fail_write_torn(n, NULL);
        s = ncs_sync(nc);
        if (s == NCS_NOERR) {
            /* n is past the sync's writes: done */
            ncsi_fault_io_remove();
            NCS_OK(ncs_close(nc));
            break;
        }
        put_round(nc, 3);
        /* each write of the next sync in turn is where the writer is
         * killed: torn as a killed process's write, the file copied */
        for (unsigned long long m = 1; fired; m++) {
            int snc, r;
            if (m > 1) {
                /* the same history again, up to the failed sync */
                ncs_abort(nc);
                make_file("killed");
                ncsi_fault_io_install(NCSI_FAULT_WRITE, 0, 0);
                NCS_OK(ncs_open(path, NCS_WRITE, &nc));
                put_round(nc, 1);
                NCS_OK(ncs_sync(nc));
                put_round(nc, 2);
                fail_write_torn(n, NULL);
                ck_assert(ncs_sync(nc) != NCS_NOERR);
                put_round(nc, 3);
            }
            unlink(kill_snap);
            fail_write_torn(m, copy_at_fault);
            s = ncs_sync(nc);
            fired = ncsi_fault_io_fired();
            ncsi_fault_io_remove();
            if (!fired) {
                NCS_OK(s);
                break;
            }
            /* one commit's state, never a mix, and the same after an
             * open for writing */
            r = whole_round(kill_snap);
            ck_assert_msg(r >= 1 && r <= 3, "write %llu of the failed sync, write %llu of the "
                          "next: %s", n, m, r < 0 ? "values of two rounds" : "wrong round");
            states[r]++;
            NCS_OK(ncs_open(kill_snap, NCS_WRITE, &snc));
            NCS_OK(ncs_close(snc));
            ck_assert_int_eq(whole_round(kill_snap), r);
            points++;
        }
        ncs_abort(nc);
    }
    unlink(kill_snap);
    unlink(path);
    printf("failed_then_killed: %d kills in the sync after a failed one; states: round 1 %d, "
           "2 %d, 3 %d\n", points, states[1], states[2], states[3]);
    ck_assert(points > 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("journal_h5");
    TCase *tc = tcase_create("journal_h5");
    tcase_add_test(tc, format2);
    tcase_add_test(tc, format1);
    tcase_add_loop_test(tc, damaged, 0, DMG_N - 1);
    tcase_add_test(tc, commit_io);
    tcase_add_test(tc, failed_commit);
    tcase_add_test(tc, failed_then_killed);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
