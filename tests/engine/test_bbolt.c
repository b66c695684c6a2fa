/* SPDX-License-Identifier: MIT */
/* test_bbolt.c — unit tests of the bbolt commit model (engine/bbolt.c) without fio: file layout after
 * open, page offsets and headers, meta page alternation by txid, growth arithmetic, the append share
 * and where rewrites land, growth by writes (etcd 3.4), the puts queued behind a commit, early flushing, the stats JSON, and error paths (bad dirfd, existing file,
 * unwritable directory, a descriptor that cannot write or sync, a growth the file size limit refuses). */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include "jr.h"

#include "bbolt.h"

#define MIB (1024ull * 1024ull)

typedef struct fx {
    char dir[64];
    int dirfd;
    char err[512];
} fx;

static int setup(void **state)
{
    fx *f = calloc(1, sizeof *f);
    snprintf(f->dir, sizeof f->dir, "/tmp/test_bbolt.XXXXXX");
    if (!mkdtemp(f->dir))
        return -1;
    f->dirfd = open(f->dir, O_RDONLY | O_DIRECTORY);
    *state = f;
    return f->dirfd < 0 ? -1 : 0;
}

static int teardown(void **state)
{
    fx *f = *state;
    char cmd[128];
    close(f->dirfd);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", f->dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", f->dir);
    free(f);
    return 0;
}

static uint64_t get_le(const unsigned char *p, unsigned n)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

static void read_page(fx *f, const char *name, uint64_t pgid, unsigned char *buf)
{
    int fd = openat(f->dirfd, name, O_RDONLY);
    assert_true(fd >= 0);
    assert_int_equal(pread(fd, buf, BB_PAGE, (off_t)(pgid * BB_PAGE)), BB_PAGE);
    close(fd);
}

static off_t file_size(fx *f, const char *name)
{
    struct stat st;
    assert_int_equal(fstatat(f->dirfd, name, &st, 0), 0);
    return st.st_size;
}

/* Decodes a meta page independently of the model: checks header, magic, version, page size, the
 * NoFreelistSync marker and the FNV-1a checksum; returns its txid and high-water mark. */
static void check_meta(const unsigned char *p, uint64_t want_id, uint64_t *txid, uint64_t *hw)
{
    assert_int_equal(get_le(p, 8), want_id);
    assert_int_equal(get_le(p + 8, 2), 0x04);
    const unsigned char *m = p + 16;
    assert_int_equal(get_le(m, 4), 0xED0CDAEDu);
    assert_int_equal(get_le(m + 4, 4), 2);
    assert_int_equal(get_le(m + 8, 4), 4096);
    assert_true(get_le(m + 32, 8) == UINT64_MAX);
    uint64_t h = 0xcbf29ce484222325ull;
    for (int i = 0; i < 56; i++) {
        h ^= m[i];
        h *= 0x100000001b3ull;
    }
    assert_true(get_le(m + 56, 8) == h);
    *hw = get_le(m + 40, 8);
    *txid = get_le(m + 48, 8);
}

static bb_db *open_db_cfg(fx *f, const char *name, const bb_config *c)
{
    bb_db *db = NULL;
    int rc = bb_open(&db, f->dirfd, name, c, f->err, sizeof f->err);
    if (rc)
        fail_msg("bb_open: %s", f->err);
    return db;
}

static bb_db *open_db(fx *f, const char *name, unsigned pct, uint64_t initial, unsigned maxtxn)
{
    bb_config c = {.append_pct = pct, .initial_pages = initial, .seed = 42, .max_txn_pages = maxtxn};
    bb_db *db = NULL;
    int rc = bb_open(&db, f->dirfd, name, &c, f->err, sizeof f->err);
    if (rc)
        fail_msg("bb_open: %s", f->err);
    return db;
}

static void test_open_layout(void **state)
{
    fx *f = *state;
    bb_db *db = open_db(f, "db", 50, 0, 0);
    assert_int_equal(file_size(f, "db"), 4 * 4096);
    unsigned char p[BB_PAGE];
    uint64_t txid, hw;
    read_page(f, "db", 0, p);
    check_meta(p, 0, &txid, &hw);
    assert_int_equal(txid, 0);
    assert_int_equal(hw, 4);
    read_page(f, "db", 1, p);
    check_meta(p, 1, &txid, &hw);
    assert_int_equal(txid, 1);
    read_page(f, "db", 2, p);
    assert_int_equal(get_le(p, 8), 2);
    assert_int_equal(get_le(p + 8, 2), 0x10); /* freelist */
    read_page(f, "db", 3, p);
    assert_int_equal(get_le(p + 8, 2), 0x02); /* leaf */
    const bb_stats *s = bb_get_stats(db);
    assert_int_equal(s->high_water_pages, 4);
    assert_int_equal(s->file_size, 4 * 4096);
    assert_int_equal(bb_fd(db) >= 0, 1);
    bb_close(db, 0);
    assert_int_equal(file_size(f, "db"), 4 * 4096); /* kept */

    /* a used area is really written (not a hole), so rewrites replace allocated blocks */
    db = open_db(f, "db2", 50, 300, 64);
    struct stat st;
    assert_int_equal(fstatat(f->dirfd, "db2", &st, 0), 0);
    assert_int_equal(st.st_size, 300 * 4096);
    assert_true((uint64_t)st.st_blocks * 512 >= 300 * 4096);
    read_page(f, "db2", 299, p);
    assert_int_equal(get_le(p, 8), 299);
    bb_close(db, 1);
    assert_int_equal(faccessat(f->dirfd, "db2", F_OK, 0), -1); /* removed */
}

static void test_meta_alternates(void **state)
{
    fx *f = *state;
    bb_db *db = open_db(f, "db", 100, 0, 0);
    unsigned char page[BB_PAGE], p0[BB_PAGE], p1[BB_PAGE];
    memset(page, 0xab, sizeof page);
    for (uint64_t k = 1; k <= 6; k++) {
        assert_int_equal(bb_write(db, page, sizeof page, f->err, sizeof f->err), 0);
        assert_int_equal(bb_commit(db, f->err, sizeof f->err), 0);
        /* commit k has txid k+1 (init wrote txids 0 and 1), so it lands on page (k+1) % 2 */
        uint64_t t0, t1, h0, h1;
        read_page(f, "db", 0, p0);
        read_page(f, "db", 1, p1);
        check_meta(p0, 0, &t0, &h0);
        check_meta(p1, 1, &t1, &h1);
        uint64_t newest = t0 > t1 ? t0 : t1, hw = t0 > t1 ? h0 : h1;
        assert_int_equal(newest, k + 1);
        assert_int_equal(newest % 2 == 0 ? t0 : t1, k + 1);
        assert_int_equal(t0 > t1 ? t1 : t0, k); /* the other page holds the previous txid */
        assert_int_equal(hw, 4 + k);
        assert_int_equal(bb_get_stats(db)->high_water_pages, 4 + k);
    }
    const bb_stats *s = bb_get_stats(db);
    assert_int_equal(s->commits, 6);
    assert_int_equal(s->fdatasync.count, 12); /* two per commit */
    assert_int_equal(s->commit.count, 6);
    assert_int_equal(s->sync.count, 6);
    bb_close(db, 1);
}

static void test_offsets_and_overflow(void **state)
{
    fx *f = *state;
    bb_db *db = open_db(f, "db", 100, 0, 0);
    unsigned char a[BB_PAGE], big[10000], p[BB_PAGE];
    for (size_t i = 0; i < sizeof a; i++)
        a[i] = (unsigned char)(i * 7);
    for (size_t i = 0; i < sizeof big; i++)
        big[i] = (unsigned char)(i * 13 + 1);
    assert_int_equal(bb_write(db, a, sizeof a, f->err, sizeof f->err), 0);     /* pgid 4 */
    assert_int_equal(bb_write(db, big, sizeof big, f->err, sizeof f->err), 0); /* pgid 5..7 */
    assert_int_equal(bb_write(db, a, 100, f->err, sizeof f->err), 0);          /* pgid 8, short */
    assert_int_equal(bb_commit(db, f->err, sizeof f->err), 0);

    read_page(f, "db", 4, p);
    assert_int_equal(get_le(p, 8), 4);
    assert_int_equal(get_le(p + 12, 4), 0);
    assert_memory_equal(p + 16, a + 16, sizeof a - 16); /* body kept, bbolt header stamped in */
    read_page(f, "db", 5, p);
    assert_int_equal(get_le(p, 8), 5);
    assert_int_equal(get_le(p + 12, 4), 2); /* overflow: 3 pages */
    assert_memory_equal(p + 16, big + 16, BB_PAGE - 16);
    read_page(f, "db", 7, p);
    assert_memory_equal(p, big + 2 * BB_PAGE, sizeof big - 2 * BB_PAGE);
    assert_int_equal(p[sizeof big - 2 * BB_PAGE], 0); /* padded to the page */
    read_page(f, "db", 8, p);
    assert_int_equal(get_le(p, 8), 8);
    assert_int_equal(p[200], 0);

    const bb_stats *s = bb_get_stats(db);
    assert_int_equal(s->pages_written, 5);
    assert_int_equal(s->bytes_written, 5 * 4096);
    assert_int_equal(s->high_water_pages, 9);
    assert_int_equal(s->pages_per_commit.max, 5);

    /* bad sizes */
    assert_int_equal(bb_write(db, a, 0, f->err, sizeof f->err), -EINVAL);
    assert_non_null(strstr(f->err, "empty write"));
    bb_close(db, 1);

    db = open_db(f, "db3", 100, 0, 2);
    assert_int_equal(bb_write(db, big, sizeof big, f->err, sizeof f->err), -EINVAL);
    assert_non_null(strstr(f->err, "transaction buffer"));
    bb_close(db, 1);
}

static void test_growth(void **state)
{
    fx *f = *state;
    bb_db *db = open_db(f, "db", 100, 0, 0);
    static unsigned char page[BB_PAGE];
    const bb_stats *s = bb_get_stats(db);

    /* an empty commit does not move the high-water mark: no growth */
    assert_int_equal(bb_commit(db, f->err, sizeof f->err), 0);
    assert_int_equal(s->growths, 0);
    assert_int_equal(file_size(f, "db"), 4 * 4096);

    /* first append: pgid 4, high water 5; grow(sz = (5 + 1) × 4096) > 16384 → sz + 16 MiB */
    assert_int_equal(bb_write(db, page, BB_PAGE, f->err, sizeof f->err), 0);
    assert_int_equal(bb_commit(db, f->err, sizeof f->err), 0);
    uint64_t s1 = 6 * 4096 + 16 * MIB;
    assert_int_equal(s->growths, 1);
    assert_int_equal(s->grow.count, 1);
    assert_int_equal(s->file_size, s1);
    assert_int_equal((uint64_t)file_size(f, "db"), s1);

    /* no growth while (hw + 1) × 4096 fits: up to hw = s1/4096 - 1 = 4101 */
    uint64_t hw = 5, last = s1 / 4096 - 1;
    while (hw < last) {
        uint64_t n = last - hw > 1500 ? 1500 : last - hw;
        for (uint64_t i = 0; i < n; i++)
            assert_int_equal(bb_write(db, page, BB_PAGE, f->err, sizeof f->err), 0);
        assert_int_equal(bb_commit(db, f->err, sizeof f->err), 0);
        hw += n;
    }
    assert_int_equal(s->high_water_pages, last);
    assert_int_equal(s->growths, 1);
    assert_int_equal((uint64_t)file_size(f, "db"), s1);

    /* one more page passes the file size: grow to (hw + 1) × 4096 + 16 MiB */
    assert_int_equal(bb_write(db, page, BB_PAGE, f->err, sizeof f->err), 0);
    assert_int_equal(bb_commit(db, f->err, sizeof f->err), 0);
    uint64_t s2 = (last + 2) * 4096 + 16 * MIB;
    assert_int_equal(s->growths, 2);
    assert_int_equal(s->file_size, s2);
    assert_int_equal((uint64_t)file_size(f, "db"), s2);
    bb_close(db, 1);
}

/* etcd 3.4's bbolt (1.3.6) never grows in a commit: the pwrites extend the file, no ftruncate. */
static void test_growth_by_writes(void **state)
{
    fx *f = *state;
    bb_config c = {.append_pct = 100, .seed = 42, .grow_by_writes = 1};
    bb_db *db = open_db_cfg(f, "db", &c);
    static unsigned char page[BB_PAGE];
    const bb_stats *s = bb_get_stats(db);
    for (int k = 0; k < 3; k++) {
        for (int i = 0; i < 10; i++)
            assert_int_equal(bb_write(db, page, BB_PAGE, f->err, sizeof f->err), 0);
        assert_int_equal(bb_commit(db, f->err, sizeof f->err), 0);
        /* pages 4 .. 4 + 10(k+1) - 1 written: the file ends at the last one */
        assert_int_equal((uint64_t)file_size(f, "db"), (uint64_t)(4 + 10 * (k + 1)) * 4096);
        assert_int_equal(s->file_size, (uint64_t)(4 + 10 * (k + 1)) * 4096);
    }
    assert_int_equal(s->growths, 0);
    assert_int_equal(s->grow.count, 0);
    bb_close(db, 1);
}

/* The puts queued behind a commit: with a batch interval every commit owes the next one its leaves
 * (pages - 3) times its duration over the interval, at most one interval's worth. An interval of 1 ns
 * makes every real commit longer than it, so each owes exactly pages - 3, all appended. */
static void test_queued_behind_commit(void **state)
{
    fx *f = *state;
    static unsigned char page[BB_PAGE];
    for (int on = 0; on < 2; on++) {
        bb_config c = {.append_pct = 100, .seed = 42, .batch_interval_ns = on ? 1 : 0};
        char name[16];
        snprintf(name, sizeof name, "db%d", on);
        bb_db *db = open_db_cfg(f, name, &c);
        const bb_stats *s = bb_get_stats(db);
        for (int k = 0; k < 3; k++) {
            for (int i = 0; i < 12; i++)
                assert_int_equal(bb_write(db, page, BB_PAGE, f->err, sizeof f->err), 0);
            assert_int_equal(bb_commit(db, f->err, sizeof f->err), 0);
        }
        /* 12 + (12 + 9) + (12 + 9): the owed pages do not count towards what the next commit owes */
        assert_int_equal(s->queued_pages, on ? 18 : 0);
        assert_int_equal(s->pages_written, on ? 54 : 36);
        assert_int_equal(s->high_water_pages, 4 + (on ? 54 : 36));
        assert_int_equal(s->pages_per_commit.count, 3);
        /* an empty commit carries nothing, whatever is owed */
        uint64_t before = s->pages_written;
        assert_int_equal(bb_commit(db, f->err, sizeof f->err), 0);
        assert_int_equal(s->pages_written, before);
        bb_close(db, 1);
    }
}

static void test_append_share_and_rewrites(void **state)
{
    fx *f = *state;
    const uint64_t initial = 1000;
    bb_config sc = {.append_pct = 67, .initial_pages = initial, .seed = 42, .scatter_rewrites = 1};
    bb_db *db = open_db_cfg(f, "db", &sc);
    unsigned char page[BB_PAGE];
    memset(page, 0xa5, sizeof page);
    for (int c = 0; c < 100; c++) {
        for (int i = 0; i < 30; i++)
            assert_int_equal(bb_write(db, page, sizeof page, f->err, sizeof f->err), 0);
        assert_int_equal(bb_commit(db, f->err, sizeof f->err), 0);
    }
    const bb_stats *s = bb_get_stats(db);
    assert_int_equal(s->appends + s->rewrites, 3000);
    assert_int_equal(s->appends, 2010); /* 67 % of 3000, exactly */
    assert_int_equal(s->high_water_pages, initial + 2010);
    assert_int_equal(s->pages_written, 3000);

    /* rewrites landed inside the used area (never on the meta pages), appends beyond it */
    int fd = openat(f->dirfd, "db", O_RDONLY);
    assert_true(fd >= 0);
    unsigned char p[BB_PAGE];
    uint64_t touched = 0;
    for (uint64_t pg = 0; pg < initial + 2010; pg++) {
        assert_int_equal(pread(fd, p, sizeof p, (off_t)(pg * BB_PAGE)), BB_PAGE);
        assert_int_equal(get_le(p, 8), pg); /* every page carries its own id */
        int ours = p[3000] == 0xa5;
        if (pg < 2)
            assert_false(ours);
        else if (pg >= initial)
            assert_true(ours);
        else
            touched += ours;
    }
    close(fd);
    /* 990 rewrites, uniform over the used area as it grows from 1000 to 3010 pages: about
     * 998 × ln(3008/998) / 2010 ≈ 55 % of them (~540) fall in the first 998 pages, which touches
     * 998 × (1 − e^(−540/998)) ≈ 420 distinct ones; far fewer would mean rewrites miss the old area */
    assert_in_range(touched, 330, 500);
    bb_close(db, 1);

    /* 0 % appends: everything rewrites, the file never grows */
    db = open_db(f, "db0", 0, 64, 0);
    for (int i = 0; i < 40; i++)
        assert_int_equal(bb_write(db, page, sizeof page, f->err, sizeof f->err), 0);
    assert_int_equal(bb_commit(db, f->err, sizeof f->err), 0);
    s = bb_get_stats(db);
    assert_int_equal(s->appends, 0);
    assert_int_equal(s->high_water_pages, 64);
    assert_int_equal(s->growths, 0);
    bb_close(db, 1);

    /* a fresh db has nothing to reuse: rewrites fall back to appends */
    db = open_db(f, "db1", 0, 0, 0);
    for (int i = 0; i < 5; i++)
        assert_int_equal(bb_write(db, page, sizeof page, f->err, sizeof f->err), 0);
    s = bb_get_stats(db);
    assert_int_equal(s->rewrites, 2); /* pages 2 and 3 */
    assert_int_equal(s->appends, 3);
    bb_close(db, 1);
}

/* The default reuse: each commit's rewrites are one contiguous run just below the high-water mark of two
 * commits ago (the pages the previous commit freed), as traced on real etcd; appends are a second run. */
static void test_recent_reuse(void **state)
{
    fx *f = *state;
    bb_db *db = open_db(f, "dbr", 67, 0, 0);
    unsigned char page[BB_PAGE];
    memset(page, 0x5b, sizeof page);
    int fd = bb_fd(db);
    /* three warm-up commits: a fresh file has too little below its high-water mark to reuse */
    uint64_t hw_prev = 0, hw = 0;
    for (int c = 0; c < 3; c++) {
        for (int i = 0; i < 12; i++)
            assert_int_equal(bb_write(db, page, sizeof page, f->err, sizeof f->err), 0);
        assert_int_equal(bb_commit(db, f->err, sizeof f->err), 0);
        hw_prev = hw;
        hw = bb_get_stats(db)->high_water_pages;
    }
    uint64_t app0 = bb_get_stats(db)->appends, rew0 = bb_get_stats(db)->rewrites;
    memset(page, 0x5b, sizeof page);
    for (int c = 0; c < 40; c++) {
        for (int i = 0; i < 12; i++)
            assert_int_equal(bb_write(db, page, sizeof page, f->err, sizeof f->err), 0);
        assert_int_equal(bb_commit(db, f->err, sizeof f->err), 0);
        const bb_stats *s = bb_get_stats(db);
        /* 12 pages at 67 % (8.04 appends a commit, spread by error diffusion): 8 or 9 appended at
         * [hw, hw + a), the other 12 - a rewritten as one run at [hw_prev - (12 - a), hw_prev) */
        uint64_t a = s->high_water_pages - hw;
        assert_in_range(a, 8, 9);
        for (uint64_t pg = hw_prev - (12 - a); pg < hw_prev; pg++) {
            unsigned char p[BB_PAGE];
            assert_int_equal(pread(fd, p, sizeof p, (off_t)(pg * BB_PAGE)), BB_PAGE);
            assert_int_equal(get_le(p, 8), pg);
            assert_int_equal(p[100], (unsigned char)(0x5b + c));
        }
        hw_prev = hw;
        hw = s->high_water_pages;
        memset(page, 0x5b + c + 1, sizeof page); /* the next commit's pages are told apart */
    }
    const bb_stats *s = bb_get_stats(db);
    assert_int_equal(s->appends - app0 + s->rewrites - rew0, 40 * 12);
    assert_in_range(s->appends - app0, 40 * 8, 40 * 8 + 2); /* 321.6 */
    bb_close(db, 1);
}

static void test_early_flush(void **state)
{
    fx *f = *state;
    bb_db *db = open_db(f, "db", 100, 0, 8);
    unsigned char page[BB_PAGE] = {1};
    for (int i = 0; i < 20; i++)
        assert_int_equal(bb_write(db, page, sizeof page, f->err, sizeof f->err), 0);
    const bb_stats *s = bb_get_stats(db);
    assert_int_equal(s->early_flushes, 2);
    assert_int_equal(s->pages_written, 16);
    assert_int_equal(bb_commit(db, f->err, sizeof f->err), 0);
    assert_int_equal(s->pages_written, 20);
    assert_int_equal(s->commits, 1);
    assert_int_equal(s->pages_per_commit.max, 20);
    assert_int_equal(s->growths, 1); /* once, before the first early write */
    bb_close(db, 1);
}

static void test_stats_json(void **state)
{
    fx *f = *state;
    bb_db *db = open_db(f, "db", 67, 16, 0);
    unsigned char page[BB_PAGE] = {0};
    for (int c = 0; c < 3; c++) {
        for (int i = 0; i < 12; i++)
            assert_int_equal(bb_write(db, page, sizeof page, f->err, sizeof f->err), 0);
        assert_int_equal(bb_commit(db, f->err, sizeof f->err), 0);
    }
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    bb_stats_json(db, m);
    fclose(m);
    char perr[200] = "";
    yajl_val j = jr_parse(buf, perr, sizeof perr);
    if (!j)
        fail_msg("stats JSON: %s:\n%s", perr, buf);
    assert_string_equal(jr_str(j, "mode"), "backend");
    assert_int_equal(jr_u64(j, "commits", 0), 3);
    assert_int_equal(jr_u64(j, "pages_written", 0), 36);
    assert_int_equal(jr_u64(jr_obj(j, "fdatasync"), "count", 0), 6);
    assert_true(jr_u64(jr_obj(j, "commit"), "p99_ns", 0) > 0);
    assert_int_equal(jr_len(jr_arr(jr_obj(j, "commit"), "etcd_buckets_ms")), 15);
    assert_int_equal(jr_u64(jr_obj(j, "pages_per_commit"), "max", 0), 12);
    assert_int_equal(jr_u64(j, "growths", 0), 1);
    yajl_tree_free(j);
    free(buf);
    bb_close(db, 1);
}

static void test_open_errors(void **state)
{
    fx *f = *state;
    bb_db *db = NULL;
    bb_config c = {.append_pct = 50};

    assert_int_equal(bb_open(&db, -1, "db", &c, f->err, sizeof f->err), -EBADF);
    assert_null(db);
    assert_non_null(strstr(f->err, "db"));
    assert_non_null(strstr(f->err, "Bad file descriptor"));

    /* O_EXCL: an existing file is neither opened nor touched */
    int fd = openat(f->dirfd, "taken", O_CREAT | O_WRONLY, 0644);
    assert_int_equal(write(fd, "etcd", 4), 4);
    close(fd);
    assert_int_equal(bb_open(&db, f->dirfd, "taken", &c, f->err, sizeof f->err), -EEXIST);
    assert_non_null(strstr(f->err, "openat"));
    assert_non_null(strstr(f->err, f->dir)); /* names the file with its directory */
    assert_int_equal(file_size(f, "taken"), 4);

    assert_int_equal(bb_open(&db, f->dirfd, "a/b", &c, f->err, sizeof f->err), -EINVAL);
    c.append_pct = 101;
    assert_int_equal(bb_open(&db, f->dirfd, "db", &c, f->err, sizeof f->err), -EINVAL);
    assert_non_null(strstr(f->err, "101"));
    c.append_pct = 50;

    /* a directory we cannot create files in: mode 0500, or /proc when root ignores the mode */
    char ro[96];
    snprintf(ro, sizeof ro, "%s/ro", f->dir);
    assert_int_equal(mkdir(ro, 0500), 0);
    int rofd = open(geteuid() == 0 ? "/proc" : ro, O_RDONLY | O_DIRECTORY);
    assert_true(rofd >= 0);
    int rc = bb_open(&db, rofd, "db", &c, f->err, sizeof f->err);
    assert_true(rc == -EACCES || rc == -ENOENT || rc == -EPERM || rc == -EROFS);
    assert_null(db);
    assert_non_null(strstr(f->err, "openat"));
    close(rofd);
}

static void test_io_errors(void **state)
{
    fx *f = *state;
    unsigned char page[BB_PAGE] = {0};

    /* the descriptor turns read-only under the model: the commit's first pwrite fails */
    bb_db *db = open_db(f, "db", 100, 0, 0);
    int ro = open("/dev/null", O_RDONLY);
    assert_int_equal(bb_write(db, page, sizeof page, f->err, sizeof f->err), 0); /* buffered */
    assert_true(dup2(ro, bb_fd(db)) >= 0);
    int rc = bb_commit(db, f->err, sizeof f->err);
    /* growth comes first: ftruncate on a read-only descriptor */
    assert_true(rc == -EBADF || rc == -EINVAL);
    assert_non_null(strstr(f->err, "ftruncate"));
    assert_non_null(strstr(f->err, f->dir));
    bb_close(db, 1);

    /* no growth pending (a rewrite), so the pwrite is what fails */
    db = open_db(f, "db2", 0, 64, 0);
    assert_int_equal(bb_write(db, page, sizeof page, f->err, sizeof f->err), 0);
    assert_true(dup2(ro, bb_fd(db)) >= 0);
    assert_int_equal(bb_commit(db, f->err, sizeof f->err), -EBADF);
    assert_non_null(strstr(f->err, "pwrite"));
    assert_non_null(strstr(f->err, "db2"));
    assert_non_null(strstr(f->err, "offset"));
    bb_close(db, 1);

    /* a descriptor closed under the model */
    db = open_db(f, "dbc", 0, 64, 0);
    assert_int_equal(bb_write(db, page, sizeof page, f->err, sizeof f->err), 0);
    close(bb_fd(db));
    assert_int_equal(bb_commit(db, f->err, sizeof f->err), -EBADF);
    assert_non_null(strstr(f->err, "pwrite"));
    assert_non_null(strstr(f->err, "dbc"));
    bb_close(db, 1); /* its close(2) fails quietly; the file is still unlinked */
    assert_int_equal(faccessat(f->dirfd, "dbc", F_OK, 0), -1);

    /* fdatasync on something that cannot sync (a pipe): the commit reports it */
    db = open_db(f, "db3", 0, 8, 0);
    int pfd[2];
    assert_int_equal(pipe(pfd), 0);
    assert_true(dup2(pfd[1], bb_fd(db)) >= 0);
    rc = bb_commit(db, f->err, sizeof f->err);
    assert_int_equal(rc, -EINVAL);
    assert_non_null(strstr(f->err, "fdatasync"));
    assert_non_null(strstr(f->err, "db3"));
    close(pfd[0]);
    close(pfd[1]);
    bb_close(db, 1);
    close(ro);

    /* growth refused by the file size limit: ftruncate fails with EFBIG, named with its target size */
    db = open_db(f, "db4", 100, 0, 0);
    struct rlimit old, lim;
    assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
    lim = old;
    lim.rlim_cur = 1 * MIB;
    signal(SIGXFSZ, SIG_IGN);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
    assert_int_equal(bb_write(db, page, sizeof page, f->err, sizeof f->err), 0);
    rc = bb_commit(db, f->err, sizeof f->err);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
    signal(SIGXFSZ, SIG_DFL);
    assert_int_equal(rc, -EFBIG);
    assert_non_null(strstr(f->err, "ftruncate"));
    assert_non_null(strstr(f->err, "16801792"));
    assert_int_equal(bb_get_stats(db)->growths, 0);
    bb_close(db, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_open_layout, setup, teardown),
        cmocka_unit_test_setup_teardown(test_meta_alternates, setup, teardown),
        cmocka_unit_test_setup_teardown(test_offsets_and_overflow, setup, teardown),
        cmocka_unit_test_setup_teardown(test_growth, setup, teardown),
        cmocka_unit_test_setup_teardown(test_growth_by_writes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_queued_behind_commit, setup, teardown),
        cmocka_unit_test_setup_teardown(test_append_share_and_rewrites, setup, teardown),
        cmocka_unit_test_setup_teardown(test_recent_reuse, setup, teardown),
        cmocka_unit_test_setup_teardown(test_early_flush, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stats_json, setup, teardown),
        cmocka_unit_test_setup_teardown(test_open_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_io_errors, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
