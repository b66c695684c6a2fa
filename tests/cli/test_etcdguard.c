/* SPDX-License-Identifier: MIT */
/* test_etcdguard.c — the decisions of check's watch on a live etcd (tools/etcdguard.c) on scrapes written
 * here in etcd 3.4's /metrics format (the histograms' buckets 1 ms .. 8.192 s, etcd_server_id,
 * process_start_time_seconds): one scrape judged since etcd started, the window of two, the guard's rule
 * (below before and at or above in the window: nothing else crosses — not a straddling bucket, not too
 * few samples, not a restart or another member in between), its words, and the explain lines. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "etcdguard.h"

static const char *const LE[] = {"0.001", "0.002", "0.004", "0.008", "0.016", "0.032", "0.064", "0.128",
                                 "0.256", "0.512", "1.024", "2.048", "4.096", "8.192", "+Inf"};
#define NLE 15

/* Adds n samples to bucket k (k = 0: <= 1 ms, 5: (16, 32] ms, ...) of a cumulative histogram. */
static void add(uint64_t *h, int k, uint64_t n)
{
    for (int i = k; i < NLE; i++)
        h[i] += n;
}

static void hist(char **p, size_t *left, const char *name, const uint64_t *h)
{
    int w = snprintf(*p, *left, "# TYPE %s histogram\n", name);
    *p += w, *left -= (size_t)w;
    for (int i = 0; i < NLE; i++) {
        w = snprintf(*p, *left, "%s_bucket{le=\"%s\"} %llu\n", name, LE[i], (unsigned long long)h[i]);
        *p += w, *left -= (size_t)w;
    }
    w = snprintf(*p, *left, "%s_sum %llu.5\n%s_count %llu\n", name, (unsigned long long)h[NLE - 1] / 100, name,
                 (unsigned long long)h[NLE - 1]);
    *p += w, *left -= (size_t)w;
}

typedef struct scrape {
    char     text[8192];
    size_t   len;
} scrape;

static void make(scrape *s, const uint64_t *wal, const uint64_t *be, const char *member, double start)
{
    char *p = s->text;
    size_t left = sizeof s->text;
    if (wal)
        hist(&p, &left, "etcd_disk_wal_fsync_duration_seconds", wal);
    if (be)
        hist(&p, &left, "etcd_disk_backend_commit_duration_seconds", be);
    int w = 0;
    if (member)
        w = snprintf(p, left, "# TYPE etcd_server_id gauge\netcd_server_id{server_id=\"%s\"} 1\n", member);
    p += w, left -= (size_t)w;
    w = snprintf(p, left, "# TYPE process_start_time_seconds gauge\nprocess_start_time_seconds %.2f\n", start);
    p += w;
    s->len = (size_t)(p - s->text);
}

/* etcd healthy so far: 1000 WAL fsyncs <= 2 ms (10 of them 1-2 ms), 500 commits <= 8 ms */
static void healthy(uint64_t *wal, uint64_t *be)
{
    memset(wal, 0, NLE * sizeof *wal);
    memset(be, 0, NLE * sizeof *be);
    add(wal, 0, 990);
    add(wal, 1, 10);
    add(be, 2, 495);
    add(be, 3, 5);
}

static void test_one(void **state)
{
    (void)state;
    uint64_t wal[NLE], be[NLE];
    healthy(wal, be);
    scrape s;
    make(&s, wal, be, "bdae9bbc11dd390d", 1796155492.32);
    etcdguard_view v;
    etcdguard_judge_one(s.text, s.len, NULL, &v);
    assert_true(v.ok);
    assert_string_equal(v.member, "bdae9bbc11dd390d");
    assert_true(v.start_s > 1796155492.0 && v.start_s < 1796155493.0);
    const etcdguard_side *w = &v.side[ETCDGUARD_WAL], *b = &v.side[ETCDGUARD_BACKEND];
    assert_true(w->present);
    assert_int_equal(w->samples, 1000);
    assert_int_equal(w->verdict, FIOR_PASS); /* the 990th of 1000 is <= 1 ms: (0, 1] */
    assert_int_equal(w->lo_ns, 0);
    assert_int_equal(w->hi_ns, 1000000);
    assert_int_equal(b->verdict, FIOR_PASS);
    assert_int_equal(b->lo_ns, 2000000);
    assert_int_equal(b->hi_ns, 4000000);
    char r[64];
    etcdguard_range(r, sizeof r, w);
    assert_string_equal(r, "<= 1 ms");
    etcdguard_range(r, sizeof r, b);
    assert_string_equal(r, "2-4 ms");
    /* not etcd's metrics: no histogram of either; garbage */
    make(&s, NULL, NULL, "x", 1.0);
    etcdguard_judge_one(s.text, s.len, NULL, &v);
    assert_false(v.ok);
    assert_non_null(strstr(v.err, "without etcd_disk_wal_fsync_duration_seconds"));
    const char junk[] = "<html><body>302 Found</body></html>\n";
    etcdguard_judge_one(junk, sizeof junk - 1, NULL, &v);
    assert_false(v.ok);
    assert_true(v.err[0] != '\0');
}

/* The device slows under etcd: 200 more fsyncs, 150 of them in (32, 64] ms. */
static void test_window_crossing(void **state)
{
    (void)state;
    uint64_t wal[NLE], be[NLE];
    healthy(wal, be);
    scrape a, b;
    make(&a, wal, be, "m1", 100.0);
    etcdguard_view before, win;
    etcdguard_judge_one(a.text, a.len, NULL, &before);
    add(wal, 0, 50);
    add(wal, 6, 150);
    make(&b, wal, be, "m1", 100.0);
    etcdguard_judge_window(a.text, a.len, b.text, b.len, NULL, &win);
    assert_true(win.ok);
    const etcdguard_side *w = &win.side[ETCDGUARD_WAL];
    assert_true(w->present && w->window);
    assert_int_equal(w->samples, 200);
    assert_int_equal(w->verdict, FIOR_FAIL);
    assert_int_equal(w->lo_ns, 32000000);
    assert_int_equal(w->hi_ns, 64000000);
    assert_true(etcdguard_crossed(&before.side[ETCDGUARD_WAL], w));
    /* the backend did nothing in the window: no samples, unknown, no crossing */
    assert_int_equal(win.side[ETCDGUARD_BACKEND].samples, 0);
    assert_int_equal(win.side[ETCDGUARD_BACKEND].verdict, FIOR_UNKNOWN);
    assert_false(etcdguard_crossed(&before.side[ETCDGUARD_BACKEND], &win.side[ETCDGUARD_BACKEND]));
    char words[200];
    etcdguard_crossing_words(words, sizeof words, ETCDGUARD_WAL, &before.side[ETCDGUARD_WAL], w);
    assert_string_equal(words, "its WAL fsync p99 rose from <= 1 ms to 32-64 ms during the check");
}

/* What must not cross: too few samples in the window; a bucket straddling the threshold (8-16 ms); a
 * baseline that was not below it; a restart between the scrapes; another member. */
static void test_no_crossing(void **state)
{
    (void)state;
    uint64_t wal[NLE], be[NLE], w2[NLE], b2[NLE];
    healthy(wal, be);
    scrape a, b;
    etcdguard_view before, win;
    make(&a, wal, be, "m1", 100.0);
    etcdguard_judge_one(a.text, a.len, NULL, &before);
    memcpy(w2, wal, sizeof wal);
    memcpy(b2, be, sizeof be);
    add(w2, 6, 60); /* 60 slow ones: fewer than the minimum of 100 */
    make(&b, w2, b2, "m1", 100.0);
    etcdguard_judge_window(a.text, a.len, b.text, b.len, NULL, &win);
    assert_int_equal(win.side[ETCDGUARD_WAL].verdict, FIOR_UNKNOWN);
    assert_non_null(strstr(win.side[ETCDGUARD_WAL].reason, "only 60"));
    assert_false(etcdguard_crossed(&before.side[ETCDGUARD_WAL], &win.side[ETCDGUARD_WAL]));
    memcpy(w2, wal, sizeof wal);
    add(w2, 4, 300); /* (8, 16] ms: may be above or below 10 ms */
    make(&b, w2, b2, "m1", 100.0);
    etcdguard_judge_window(a.text, a.len, b.text, b.len, NULL, &win);
    assert_int_equal(win.side[ETCDGUARD_WAL].verdict, FIOR_UNKNOWN);
    assert_false(etcdguard_crossed(&before.side[ETCDGUARD_WAL], &win.side[ETCDGUARD_WAL]));
    /* a window that fails, after a baseline that straddled: not "below before" */
    uint64_t w0[NLE] = {0};
    add(w0, 0, 900);
    add(w0, 4, 100);
    scrape a2;
    etcdguard_view before2;
    make(&a2, w0, be, "m1", 100.0);
    etcdguard_judge_one(a2.text, a2.len, NULL, &before2);
    assert_int_equal(before2.side[ETCDGUARD_WAL].verdict, FIOR_UNKNOWN);
    memcpy(w2, w0, sizeof w0);
    add(w2, 6, 300);
    make(&b, w2, be, "m1", 100.0);
    etcdguard_judge_window(a2.text, a2.len, b.text, b.len, NULL, &win);
    assert_int_equal(win.side[ETCDGUARD_WAL].verdict, FIOR_FAIL);
    assert_false(etcdguard_crossed(&before2.side[ETCDGUARD_WAL], &win.side[ETCDGUARD_WAL]));
    /* etcd restarted in between (counters from zero, another start time): unknown, no crossing */
    uint64_t w3[NLE] = {0};
    add(w3, 6, 500);
    make(&b, w3, be, "m1", 200.0);
    etcdguard_judge_window(a.text, a.len, b.text, b.len, NULL, &win);
    assert_int_equal(win.side[ETCDGUARD_WAL].verdict, FIOR_UNKNOWN);
    assert_true(win.side[ETCDGUARD_WAL].defect);
    assert_false(etcdguard_crossed(&before.side[ETCDGUARD_WAL], &win.side[ETCDGUARD_WAL]));
    /* another member behind the same URL */
    memcpy(w2, wal, sizeof wal);
    add(w2, 6, 300);
    make(&b, w2, be, "m2", 100.0);
    etcdguard_judge_window(a.text, a.len, b.text, b.len, NULL, &win);
    assert_true(win.ok);
    assert_false(win.side[ETCDGUARD_WAL].present);
    assert_non_null(strstr(win.side[ETCDGUARD_WAL].reason, "two etcd members (m1, then m2)"));
    assert_false(etcdguard_crossed(&before.side[ETCDGUARD_WAL], &win.side[ETCDGUARD_WAL]));
    /* the later scrape is not etcd's any more */
    etcdguard_judge_window(a.text, a.len, "garbage\n", 8, NULL, &win);
    assert_false(win.ok);
}

/* The explain lines: the guard's, etcd-slowed (a bucket wholly above the one before), not-the-disk
 * (etcd already failing before, the disk test of that role passing). */
static void test_explain(void **state)
{
    (void)state;
    result_run r;
    result_init(&r, "check", NULL);
    result_host *h = result_add_host(&r);
    result_job *j = result_add_job(h);
    j->role = FIOR_ROLE_WAL;
    j->verdict = FIOR_PASS;
    j->threshold_ns = 10000000;
    etcdguard_view before, during;
    memset(&before, 0, sizeof before);
    memset(&during, 0, sizeof during);
    before.ok = during.ok = 1;
    before.side[ETCDGUARD_WAL] = (etcdguard_side){.present = 1, .samples = 500, .bucket_known = 1, .lo_ns = 1000000,
                                    .hi_ns = 2000000, .verdict = FIOR_PASS};
    during.side[ETCDGUARD_WAL] = (etcdguard_side){.present = 1, .window = 1, .samples = 500, .bucket_known = 1,
                                    .lo_ns = 4000000, .hi_ns = 8000000, .verdict = FIOR_PASS};
    etcdguard_explain(&r, &before, &during, "");
    assert_int_equal(r.nexplain, 1);
    assert_string_equal(r.explain[0].rule, "etcd-slowed");
    assert_non_null(strstr(r.explain[0].why, "went from 1-2 ms before the check to 4-8 ms during it"));
    /* overlapping buckets: not proven slower */
    r.nexplain = 0;
    during.side[ETCDGUARD_WAL].lo_ns = 1000000;
    during.side[ETCDGUARD_WAL].hi_ns = 2000000;
    etcdguard_explain(&r, &before, &during, NULL);
    assert_int_equal(r.nexplain, 0);
    /* the guard's line; a crossing is not also "slowed" */
    during.side[ETCDGUARD_WAL] = (etcdguard_side){.present = 1, .window = 1, .samples = 500, .bucket_known = 1,
                                    .lo_ns = 32000000, .hi_ns = 64000000, .verdict = FIOR_FAIL};
    etcdguard_explain(&r, &before, &during, "stopped to protect the live etcd: its WAL fsync p99 rose from 1-2 ms to 32-64 ms");
    assert_int_equal(r.nexplain, 1);
    assert_string_equal(r.explain[0].rule, "etcd-guard");
    /* etcd slow before the check, the disk test passes: not-the-disk */
    r.nexplain = 0;
    before.side[ETCDGUARD_WAL].lo_ns = 16000000;
    before.side[ETCDGUARD_WAL].hi_ns = 32000000;
    before.side[ETCDGUARD_WAL].verdict = FIOR_FAIL;
    etcdguard_explain(&r, &before, NULL, NULL);
    assert_int_equal(r.nexplain, 1);
    assert_string_equal(r.explain[0].rule, "not-the-disk");
    assert_non_null(strstr(r.explain[0].why, "etcd's WAL fsync before the check fails"));
    result_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one),
        cmocka_unit_test(test_window_crossing),
        cmocka_unit_test(test_no_crossing),
        cmocka_unit_test(test_explain),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
