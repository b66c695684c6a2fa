/* SPDX-License-Identifier: MIT */
/* test_wal_io.c — the WAL model against a real directory, without fio: the page writer's flush rule
 * (sizes of each write(2)), the spare-segment pipeline, Create/Save/cut() leaving etcd-shaped segments
 * with an unbroken CRC chain (the private directory: test_privdir.c). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "testdir.h"

#include "pagewriter.h"
#include "pipeline.h"
#include "wal.h"
#include "waldec.h"

static char *mktmp(void)
{
    char *p = testdir_make("test_wal_io");
    assert_non_null(p);
    return p;
}

static void rmtree(const char *path)
{
    testdir_remove(path);
}

static unsigned char *slurp(const char *path, size_t *len)
{
    int fd = open(path, O_RDONLY);
    assert_true(fd >= 0);
    struct stat st;
    assert_int_equal(fstat(fd, &st), 0);
    unsigned char *b = malloc((size_t)st.st_size + 1);
    size_t n = 0;
    while (n < (size_t)st.st_size) {
        ssize_t r = read(fd, b + n, (size_t)st.st_size - n);
        assert_true(r > 0);
        n += (size_t)r;
    }
    close(fd);
    *len = n;
    return b;
}

/* ---- page writer ---- */

typedef struct wlog {
    size_t n;
    size_t len[64];
} wlog;

static void observe(void *arg, const void *p, size_t len)
{
    (void)p;
    wlog *l = arg;
    if (l->n < 64)
        l->len[l->n] = len;
    l->n++;
}

static unsigned char pattern[300000];

/* Runs writes of the given sizes through a page writer at start offset off0; checks the file holds
 * exactly the bytes written, and returns the write(2) sizes in *log. */
static void run_pw(size_t off0, const size_t *sizes, size_t nsizes, int flush_at_end, wlog *log,
                   size_t *buffered)
{
    char *dir = mktmp();
    char path[4200];
    assert_true(snprintf(path, sizeof path, "%s/f", dir) > 0);
    int fd = open(path, O_CREAT | O_RDWR, 0600);
    assert_true(fd >= 0);
    pagewriter pw;
    assert_int_equal(pw_init(&pw, fd, PW_PAGE_BYTES, PW_BUFFER_BYTES, off0), 0);
    memset(log, 0, sizeof *log);
    pw.observe = observe;
    pw.observe_arg = log;
    size_t total = 0;
    for (size_t i = 0; i < nsizes; i++) {
        assert_int_equal(pw_write(&pw, pattern + total, sizes[i]), 0);
        total += sizes[i];
    }
    *buffered = pw.buffered;
    if (flush_at_end)
        assert_int_equal(pw_flush(&pw), 0);
    size_t len;
    unsigned char *got = slurp(path, &len);
    assert_int_equal(len, total - (flush_at_end ? 0 : *buffered));
    assert_memory_equal(got, pattern, len);
    assert_int_equal(pw.bytes_out, len);
    free(got);
    pw_free(&pw);
    close(fd);
    rmtree(dir);
    free(dir);
}

static void test_pw_flush_rule(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof pattern; i++)
        pattern[i] = (unsigned char)(i * 131u + (i >> 9));
    wlog l;
    size_t buffered;

    /* fits: nothing reaches the file until the flush, which is one write(2) */
    size_t a[] = {2300, 2300, 2300};
    run_pw(0, a, 3, 1, &l, &buffered);
    assert_int_equal(buffered, 6900);
    assert_int_equal(l.n, 1);
    assert_int_equal(l.len[0], 6900);

    /* aligned buffer overflowing: flush it, whole pages of the rest straight out, tail buffered */
    size_t b[] = {102400, 51200};
    run_pw(0, b, 2, 0, &l, &buffered);
    assert_int_equal(l.n, 2);
    assert_int_equal(l.len[0], 102400);
    assert_int_equal(l.len[1], 12 * 4096);
    assert_int_equal(buffered, 51200 - 12 * 4096);

    /* unaligned buffer: the slack page is completed first, so the flush ends on a page boundary */
    size_t c[] = {100000, 40000};
    run_pw(0, c, 2, 0, &l, &buffered);
    assert_int_equal(l.n, 2);
    assert_int_equal(l.len[0], 102400);
    assert_int_equal(l.len[1], 9 * 4096);
    assert_int_equal(buffered, 140000 - 102400 - 9 * 4096);

    /* a writer opened at a file offset inside a page aligns to the file's pages, not the buffer's */
    size_t d[] = {130000, 2000};
    run_pw(1000, d, 2, 0, &l, &buffered);
    assert_int_equal(l.n, 1);
    assert_int_equal(l.len[0], 130072);
    assert_int_equal((1000 + l.len[0]) % 4096, 0);
    assert_int_equal(buffered, 2000 - 72);

    /* overflowing by less than the slack: the bytes go into the slack, no unaligned flush */
    size_t e[] = {131000, 100};
    run_pw(1000, e, 2, 1, &l, &buffered);
    assert_int_equal(buffered, 131100);
    assert_int_equal(l.n, 1); /* only the final explicit flush */
    assert_int_equal(l.len[0], 131100);

    /* exactly one page left over is buffered, not written directly (etcd's "> pageBytes") */
    size_t f[] = {131072, 4096};
    run_pw(0, f, 2, 0, &l, &buffered);
    assert_int_equal(l.n, 1);
    assert_int_equal(l.len[0], 131072);
    assert_int_equal(buffered, 4096);
}

/* ---- pipeline ---- */

static void test_pipeline_spares(void **state)
{
    (void)state;
    char *dir = mktmp();
    int dfd = open(dir, O_RDONLY | O_DIRECTORY);
    assert_true(dfd >= 0);
    for (int mode = PIPELINE_FALLOCATE; mode <= PIPELINE_TRUNCATE; mode++) {
        pipeline p;
        assert_int_equal(pipeline_start(&p, dfd, 1000000, mode), 0);
        int fd;
        char name[32], msg[256];
        for (int k = 0; k < 3; k++) {
            assert_int_equal(pipeline_take(&p, &fd, name, sizeof name, msg, sizeof msg), 0);
            assert_string_equal(name, k % 2 ? "1.tmp" : "0.tmp");
            struct stat st;
            assert_int_equal(fstat(fd, &st), 0);
            assert_int_equal(st.st_size, 1000000);
            if (mode == PIPELINE_TRUNCATE)
                assert_true((uint64_t)st.st_blocks * 512 < 1000000); /* sparse: nothing reserved */
            /* the WAL renames a taken spare before taking the next (etcd's contract) */
            char final[32];
            snprintf(final, sizeof final, "taken%d", k);
            assert_int_equal(renameat(dfd, name, dfd, final), 0);
            close(fd);
        }
        pipeline_stop(&p);
        /* 3 taken, plus the one made ready ahead of need if the thread got to it before stop (a race
         * by design, as in etcd's pipeline); either way no spare is left behind */
        assert_in_range(p.prealloc.count, 3, 4);
        assert_int_equal(faccessat(dfd, "0.tmp", F_OK, 0), -1);
        assert_int_equal(faccessat(dfd, "1.tmp", F_OK, 0), -1);
        for (int k = 0; k < 3; k++) {
            char final[32];
            snprintf(final, sizeof final, "taken%d", k);
            assert_int_equal(unlinkat(dfd, final, 0), 0);
        }
    }
    close(dfd);
    rmtree(dir);
    free(dir);
}

/* ---- WAL: Create, Save, cut ---- */

static void decode_dir(const char *dir, waldec_state *s, size_t *nseg, size_t sizes[], char names[][300])
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    struct dirent *e;
    size_t n = 0;
    while ((e = readdir(d))) {
        uint64_t a, b;
        if (waldec_parse_name(e->d_name, &a, &b) == 0) {
            assert_true(n < 16);
            snprintf(names[n++], 300, "%s", e->d_name);
        }
    }
    closedir(d);
    qsort(names, n, 300, (int (*)(const void *, const void *))strcmp);
    waldec_init(s);
    for (size_t i = 0; i < n; i++) {
        char path[4200], err[256];
        assert_true(snprintf(path, sizeof path, "%s/%s", dir, names[i]) > 0);
        size_t len;
        unsigned char *b = slurp(path, &len);
        sizes[i] = len;
        uint64_t seq, idx;
        assert_int_equal(waldec_parse_name(names[i], &seq, &idx), 0);
        assert_int_equal(seq, i);
        if (i)
            assert_int_equal(idx, s->last_index + 1);
        if (waldec_segment(s, b, len, err, sizeof err) != 0)
            fail_msg("%s: %s", names[i], err);
        free(b);
    }
    *nseg = n;
}

static void test_wal_cut_sequence(void **state)
{
    (void)state;
    char *dir = mktmp();
    int dfd = open(dir, O_RDONLY | O_DIRECTORY);
    wal w;
    char err[512];
    const uint64_t seg = 64 * 1024;
    wal_config cfg = {.segment_bytes = seg, .prealloc_mode = PIPELINE_FALLOCATE, .max_entry_bytes = 5000,
                      .node_id = 1, .cluster_id = 2, .dir_label = dir};
    assert_int_equal(wal_create(&w, dfd, &cfg, err, sizeof err), 0);
    assert_int_equal(w.st.fdatasync.count, 1); /* Create syncs its header records */
    assert_int_equal(w.st.dir_fsync.count, 1);
    /* a small Save reaches the disk as one write(2) of its frames, then its fdatasync */
    wlog wl;
    memset(&wl, 0, sizeof wl);
    w.pw.observe = observe;
    w.pw.observe_arg = &wl;
    uint64_t off0 = wal_tail_offset(&w);
    assert_int_equal(wal_append(&w, pattern, 2300, err, sizeof err), 0);
    assert_int_equal(wl.n, 0); /* buffered until the Save */
    assert_int_equal(wal_save(&w, err, sizeof err), 0);
    assert_int_equal(wl.n, 1);
    assert_int_equal(wl.len[0], wal_tail_offset(&w) - off0);
    assert_int_equal(wl.len[0] % 8, 0);
    assert_int_equal(w.st.fdatasync.count, 2);
    w.pw.observe = NULL;
    /* write Saves until just one rollover happened */
    unsigned saves = 1;
    uint64_t off_before_cut = 0;
    while (w.st.rollovers == 0) {
        off_before_cut = wal_tail_offset(&w);
        assert_int_equal(wal_append(&w, pattern, 2300, err, sizeof err), 0);
        assert_int_equal(wal_save(&w, err, sizeof err), 0);
        saves++;
    }
    /* the size check sees what was written before this Save: the segment overshoots by one Save */
    assert_true(off_before_cut >= seg);
    assert_int_equal(w.st.syncs, saves);
    assert_int_equal(w.st.fdatasync.count, 1 + saves + 1); /* + cut's second sync (header of new) */
    assert_int_equal(w.st.dir_fsync.count, 2);
    assert_int_equal(w.st.cut.count, 1);
    assert_int_equal(w.st.segments, 2);
    /* a second spare was made ready after the first was taken */
    char tmpname[32];
    snprintf(tmpname, sizeof tmpname, "1.tmp");
    for (int i = 0; i < 3000 && faccessat(dfd, tmpname, F_OK, 0) != 0; i++) /* 30 s: ASan, a loaded CI */
        usleep(10000);
    assert_int_equal(faccessat(dfd, tmpname, F_OK, 0), 0);
    assert_int_equal(faccessat(dfd, "0.tmp", F_OK, 0), -1); /* renamed into segment 1 */
    for (int i = 0; i < 5; i++) {
        assert_int_equal(wal_append(&w, pattern, 2300, err, sizeof err), 0);
        assert_int_equal(wal_append(&w, pattern, 100, err, sizeof err), 0);
        assert_int_equal(wal_save(&w, err, sizeof err), 0);
    }
    uint64_t entries = w.st.entries;
    assert_int_equal(wal_close(&w, err, sizeof err), 0);
    assert_int_equal(faccessat(dfd, "1.tmp", F_OK, 0), -1); /* the unused spare is removed at close */

    waldec_state s;
    size_t n, sizes[16];
    char names[16][300];
    decode_dir(dir, &s, &n, sizes, names);
    assert_int_equal(n, 2);
    assert_string_equal(names[0], "0000000000000000-0000000000000000.wal");
    /* segment 0 was truncated at its last frame: decoding ends exactly at the end of the file */
    assert_true(sizes[0] >= seg);
    assert_int_equal(s.crcs, 2);
    assert_int_equal(s.metadatas, 2);
    assert_int_equal(s.snapshots, 1);
    assert_int_equal(s.entries, entries);
    assert_int_equal(s.last_index, entries);
    assert_int_equal(s.index_gaps, 0);
    assert_int_equal(s.states, saves + 5 + 1); /* each Save + the state record cut() writes */
    assert_int_equal(sizes[1], seg);           /* the live segment keeps its preallocated size */
    /* segment 0's file ends where its last frame ends */
    {
        char path[4200];
        assert_true(snprintf(path, sizeof path, "%s/%s", dir, names[0]) > 0);
        size_t len;
        unsigned char *b = slurp(path, &len);
        waldec_state s0;
        waldec_init(&s0);
        assert_int_equal(waldec_segment(&s0, b, len, err, sizeof err), 0);
        assert_int_equal(s0.end_offset, len);
        free(b);
    }
    close(dfd);
    rmtree(dir);
    free(dir);
}

/* etcd_first_segment_fill: Create leaves segment 0 as a long-running etcd's last segment — history records
 * up to the fill offset, synced once, counted as fill and not as the run's Saves — and the run's Saves
 * continue the same CRC chain and raft indexes into a rollover at the unchanged segment size. */
static void test_wal_first_fill(void **state)
{
    (void)state;
    char *dir = mktmp();
    int dfd = open(dir, O_RDONLY | O_DIRECTORY);
    wal w;
    char err[512];
    const uint64_t seg = 256 * 1024, fillto = 200000;
    wal_config cfg = {.segment_bytes = seg, .prealloc_mode = PIPELINE_FALLOCATE, .max_entry_bytes = 4032,
                      .node_id = 1, .cluster_id = 2, .dir_label = dir, .first_fill_bytes = fillto};
    assert_int_equal(wal_create(&w, dfd, &cfg, err, sizeof err), 0);
    uint64_t off = wal_tail_offset(&w);
    assert_true(off >= fillto);
    assert_true(off < fillto + 2 * 4200); /* stops at the first Save past the fill offset */
    assert_int_equal(off % 8, 0);
    assert_true(w.st.fill_bytes > 0 && w.st.fill_bytes < off);
    assert_true(w.st.fill_ns > 0);
    /* setup is no Save: no fdatasync in the run's histograms, no run entries or records */
    assert_int_equal(w.st.fdatasync.count, 0);
    assert_int_equal(w.st.syncs, 0);
    assert_int_equal(w.st.entries, 0);
    assert_int_equal(w.st.records, 3); /* CRC, metadata, snapshot */
    uint64_t hist_index = w.last_index;
    assert_true(hist_index > 0);
    /* the file is still preallocated to the segment size, the history is on it */
    struct stat st;
    assert_int_equal(fstat(w.fd, &st), 0);
    assert_int_equal((uint64_t)st.st_size, seg);
    unsigned saves = 0;
    while (w.st.rollovers == 0) {
        assert_int_equal(wal_append(&w, pattern, 1344, err, sizeof err), 0);
        assert_int_equal(wal_save(&w, err, sizeof err), 0);
        saves++;
        assert_true(saves < 100);
    }
    /* (seg - fill) / (1344 B + frames) Saves reach the segment's end */
    assert_true(saves >= (seg - off) / 1500 && saves <= (seg - off) / 1344 + 2);
    assert_int_equal(w.st.segments, 2);
    assert_int_equal(wal_close(&w, err, sizeof err), 0);

    waldec_state s;
    size_t n, sizes[16];
    char names[16][300];
    decode_dir(dir, &s, &n, sizes, names); /* CRC chain, names, index continuity: fails the test if broken */
    assert_int_equal(n, 2);
    assert_int_equal(s.index_gaps, 0);
    assert_int_equal(s.entries, hist_index + saves);
    assert_int_equal(s.last_index, hist_index + saves);
    assert_int_equal(s.snapshots, 1);
    assert_int_equal(s.crcs, 2);
    uint64_t seq, idx;
    assert_int_equal(waldec_parse_name(names[1], &seq, &idx), 0);
    assert_int_equal(idx, hist_index + saves + 1);
    assert_true(sizes[0] >= seg);

    /* a fill past the segment is refused before anything is created */
    wal w2;
    cfg.first_fill_bytes = seg + 1;
    assert_int_equal(wal_create(&w2, dfd, &cfg, err, sizeof err), -EINVAL);
    assert_non_null(strstr(err, "exceeds"));
    wal_close(&w2, err, sizeof err);
    close(dfd);
    rmtree(dir);
    free(dir);
}

static void test_wal_entry_too_big(void **state)
{
    (void)state;
    char *dir = mktmp();
    int dfd = open(dir, O_RDONLY | O_DIRECTORY);
    wal w;
    char err[512];
    wal_config cfg = {.segment_bytes = 1 << 20, .max_entry_bytes = 100, .node_id = 1, .cluster_id = 2};
    assert_int_equal(wal_create(&w, dfd, &cfg, err, sizeof err), 0);
    assert_int_equal(wal_append(&w, pattern, 100, err, sizeof err), 0);
    assert_int_equal(wal_append(&w, pattern, 5000, err, sizeof err), -EINVAL);
    assert_non_null(strstr(err, "5000"));
    /* after a failure the WAL refuses more work instead of writing a broken chain */
    assert_int_equal(wal_save(&w, err, sizeof err), -EIO);
    wal_close(&w, err, sizeof err);
    close(dfd);
    rmtree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pw_flush_rule),
        cmocka_unit_test(test_pipeline_spares),
        cmocka_unit_test(test_wal_cut_sequence),
        cmocka_unit_test(test_wal_first_fill),
        cmocka_unit_test(test_wal_entry_too_big),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
