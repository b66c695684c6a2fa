/* SPDX-License-Identifier: MIT */
/* test_explain.c — the named rules of tools/explain.c, each on distributions built to sit just on either
 * side of its threshold, and the adapter from the library's jobs (fio percentiles, Prometheus buckets). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "explain.h"
#include "fioreport.h"

#define US 1000ULL
#define MS 1000000ULL

static explain_range ex(uint64_t v)
{
    explain_range r = {1, v, v};
    return r;
}

static explain_dist dist(fior_role role, explain_origin o, fior_verdict v, uint64_t p50, uint64_t p99, uint64_t p999,
                         uint64_t max)
{
    explain_dist d;
    memset(&d, 0, sizeof d);
    d.label = role == FIOR_ROLE_BACKEND ? "backend commit" : "WAL fdatasync";
    d.role = role;
    d.origin = o;
    d.verdict = v;
    d.threshold_ns = role == FIOR_ROLE_BACKEND ? 25 * MS : 10 * MS;
    if (p50)
        d.p50 = ex(p50);
    if (p99)
        d.p99 = ex(p99);
    if (p999)
        d.p999 = ex(p999);
    if (max)
        d.max = ex(max);
    d.samples_known = 1;
    d.samples = 100000;
    return d;
}

/* the rules that fired, space-separated */
static const char *rules(const explain_dist *d, size_t n, explain_line *out)
{
    static char buf[512];
    explain_facts f = {d, n, 0, 0, 0, 10 * MS, NULL};
    size_t k = explain(&f, out, EXPLAIN_MAX_LINES);
    buf[0] = '\0';
    for (size_t i = 0; i < k; i++) {
        assert_non_null(out[i].advice);
        assert_true(out[i].why[0] != '\0');
        assert_null(strchr(out[i].why, '\n'));
        snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%s", i ? " " : "", out[i].rule);
    }
    return buf;
}

static void per_distribution(void **state)
{
    (void)state;
    explain_line out[EXPLAIN_MAX_LINES];
    /* PASS with room: headroom, 4x */
    explain_dist d = dist(FIOR_ROLE_WAL, EXPLAIN_DISK_TEST, FIOR_PASS, 800 * US, 2500 * US, 4 * MS, 6 * MS);
    assert_string_equal(rules(&d, 1, out), "headroom");
    assert_non_null(strstr(out[0].why, "p99 2.5 ms, 4.0x below the 10 ms threshold"));
    /* PASS above T/2: thin margin */
    d = dist(FIOR_ROLE_WAL, EXPLAIN_DISK_TEST, FIOR_PASS, 2 * MS, 5001 * US, 7 * MS, 8 * MS);
    assert_string_equal(rules(&d, 1, out), "thin-margin");
    d.p99 = ex(5 * MS); /* exactly T/2 is still 2x headroom */
    assert_string_equal(rules(&d, 1, out), "headroom");

    /* stalls on a PASS: only a tail at or over T (p99.9 8 ms is under it: headroom, no advice) */
    d = dist(FIOR_ROLE_WAL, EXPLAIN_DISK_TEST, FIOR_PASS, 400 * US, 3 * MS, 8 * MS, 30 * MS);
    assert_string_equal(rules(&d, 1, out), "headroom");
    d.p999 = ex(10 * MS);
    assert_string_equal(rules(&d, 1, out), "stalls headroom");
    assert_non_null(strstr(out[0].why, "the p99 passes, but the p99.9 is 10 ms, at or above the 10 ms threshold "
                                       "and 25x the p50 400 us (~100 samples beyond it)"));
    assert_true(out[0].quantile == 99.9);
    assert_int_equal(out[0].on, EXPLAIN_ON(FIOR_PASS));
    assert_null(strstr(out[0].advice, "disk of its own"));
    /* ... on at least EXPLAIN_STALL_MIN_BEYOND samples beyond the p99.9: 9,999 samples leave 9 */
    d.samples = 9999;
    assert_string_equal(rules(&d, 1, out), "headroom");
    d.samples = 10000;
    assert_string_equal(rules(&d, 1, out), "stalls headroom");
    /* the max alone is one sample: never a pattern (p99.9 = max of 860 samples) */
    d = dist(FIOR_ROLE_WAL, EXPLAIN_DISK_TEST, FIOR_PASS, 400 * US, 3 * MS, 44 * MS, 44 * MS);
    d.samples = 860;
    assert_string_equal(rules(&d, 1, out), "headroom");
    d.p999.known = 0;
    d.samples = 1000000;
    assert_string_equal(rules(&d, 1, out), "headroom");
    /* a count the input does not give: no pattern either */
    d.p999 = ex(44 * MS);
    d.samples_known = 0;
    assert_string_equal(rules(&d, 1, out), "headroom");
    /* FAIL: the p99 cited when the p99.9 has too few beyond it; never "not a slow disk" */
    d = dist(FIOR_ROLE_WAL, EXPLAIN_DISK_TEST, FIOR_FAIL, 300 * US, 12 * MS, 0, 90 * MS);
    assert_string_equal(rules(&d, 1, out), "stalls");
    assert_non_null(strstr(out[0].why, "the p99 is 12 ms, 40x the p50 (~1000 samples beyond it): periodic stalls "
                                       "fail it"));
    assert_null(strstr(out[0].why, "not a slow disk"));
    d.samples = 999;
    assert_string_equal(rules(&d, 1, out), "slow-tail");
    /* a big ratio that stays far below T is no stall worth a line */
    d = dist(FIOR_ROLE_WAL, EXPLAIN_DISK_TEST, FIOR_PASS, 50 * US, 1 * MS, 2 * MS, 4 * MS);
    assert_string_equal(rules(&d, 1, out), "headroom");
    /* an UNKNOWN's data makes no shape: its reason and the next command only */
    d = dist(FIOR_ROLE_WAL, EXPLAIN_DISK_TEST, FIOR_UNKNOWN, 300 * US, 12 * MS, 40 * MS, 90 * MS);
    d.reason = "fio was stopped by signal 2";
    assert_string_equal(rules(&d, 1, out), "undecided");
    assert_string_equal(out[0].next, "etcd-fio check /var/lib/etcd");
    snprintf(d.next, sizeof d.next, "etcd-fio check /srv/etcd");
    assert_string_equal(rules(&d, 1, out), "undecided");
    assert_string_equal(out[0].next, "etcd-fio check /srv/etcd");
    /* the headroom words: a PASS line advises no change */
    d = dist(FIOR_ROLE_WAL, EXPLAIN_DISK_TEST, FIOR_PASS, 2 * MS, 6 * MS, 7 * MS, 8 * MS);
    assert_string_equal(rules(&d, 1, out), "thin-margin");
    assert_non_null(strstr(out[0].why, "headroom"));
    assert_non_null(strstr(out[0].advice, "nothing needs changing"));
    assert_string_equal(out[0].next, "");

    /* FAIL, slow everywhere (p50 >= T/2) vs only in the tail */
    d = dist(FIOR_ROLE_WAL, EXPLAIN_DISK_TEST, FIOR_FAIL, 5 * MS, 14 * MS, 16 * MS, 20 * MS);
    assert_string_equal(rules(&d, 1, out), "slow-throughout");
    d = dist(FIOR_ROLE_WAL, EXPLAIN_DISK_TEST, FIOR_FAIL, 4999 * US, 14 * MS, 16 * MS, 20 * MS);
    assert_string_equal(rules(&d, 1, out), "slow-tail");

    /* UNKNOWN: the reasons */
    d = dist(FIOR_ROLE_WAL, EXPLAIN_ETCD_METRICS, FIOR_UNKNOWN, 0, 0, 0, 0);
    d.too_few = 1;
    assert_string_equal(rules(&d, 1, out), "too-few-samples");
    d.too_few = 0;
    d.straddle = 1;
    d.p99 = (explain_range){1, 8 * MS, 16 * MS};
    assert_string_equal(rules(&d, 1, out), "bucket-straddle");
    assert_non_null(strstr(out[0].why, "p99 at 8-16 ms"));
    d.straddle = 0;
    d.reason = "fio reported err=5 for this job";
    assert_string_equal(rules(&d, 1, out), "undecided");
    assert_non_null(strstr(out[0].why, "err=5"));
    assert_true(out[0].next[0] != '\0');
    /* a p99 without its count (an etcd-perf log's verdict lines): what it shows, what it cannot */
    d = dist(FIOR_ROLE_WAL, EXPLAIN_DISK_TEST, FIOR_UNKNOWN, 0, 3981312, 0, 0);
    d.samples_known = 0;
    d.reason = "the number of sync samples is not in the input";
    assert_string_equal(rules(&d, 1, out), "no-count");
    assert_non_null(strstr(out[0].why, "a p99 of 3.98 ms, below the 10 ms threshold, but not how many syncs"));
    assert_string_equal(out[0].next, "etcd-fio check /var/lib/etcd");
    d.p99 = ex(12 * MS);
    assert_string_equal(rules(&d, 1, out), "no-count");
    assert_non_null(strstr(out[0].why, "at or above the 10 ms threshold"));
    /* etcdctl check perf's PASS: what it shows, that it times no sync, and the command */
    d = dist(FIOR_ROLE_CHECK_PERF, EXPLAIN_CHECK_PERF, FIOR_NOT_JUDGED, 0, 0, 0, 0);
    d.label = "etcdctl check perf";
    d.threshold_ns = 0;
    d.summary = "throughput 150 writes/s";
    assert_string_equal(rules(&d, 1, out), "check-perf-pass");
    assert_non_null(strstr(out[0].why, "passed (throughput 150 writes/s)"));
    assert_string_equal(out[0].next, "etcd-fio check /var/lib/etcd");
    /* ... and its FAIL alone: etcd is slow, the disk not shown to be why */
    d.verdict = FIOR_FAIL;
    assert_string_equal(rules(&d, 1, out), "check-perf-fail");
    assert_true(out[0].next[0] != '\0');
    /* other not-judged jobs: nothing to explain */
    d = dist(FIOR_ROLE_WAL, EXPLAIN_DISK_TEST, FIOR_NOT_JUDGED, 0, 0, 0, 0);
    assert_string_equal(rules(&d, 1, out), "");
}

static void across_distributions(void **state)
{
    (void)state;
    explain_line out[EXPLAIN_MAX_LINES];
    /* the backend fails while the WAL passes, on the same disk test */
    explain_dist two[2] = {dist(FIOR_ROLE_WAL, EXPLAIN_DISK_TEST, FIOR_PASS, 1 * MS, 3 * MS, 0, 0),
                           dist(FIOR_ROLE_BACKEND, EXPLAIN_DISK_TEST, FIOR_FAIL, 20 * MS, 40 * MS, 0, 0)};
    assert_string_equal(rules(two, 2, out), "headroom slow-throughout backend-only");
    /* different origins do not make that pair */
    two[0].origin = EXPLAIN_ETCD_METRICS;
    assert_string_equal(rules(two, 2, out), "headroom slow-throughout");

    /* etcd's own WAL histogram fails while the disk test's WAL passes: not the disk */
    explain_dist nd[2] = {dist(FIOR_ROLE_WAL, EXPLAIN_DISK_TEST, FIOR_PASS, 1 * MS, 3 * MS, 0, 0),
                          dist(FIOR_ROLE_WAL, EXPLAIN_ETCD_METRICS, FIOR_FAIL, 0, 0, 0, 0)};
    nd[1].label = "etcd's WAL fsync";
    nd[1].p99 = (explain_range){1, 16 * MS, 32 * MS};
    assert_string_equal(rules(nd, 2, out), "headroom slow-tail not-the-disk");
    assert_non_null(strstr(out[2].why, "etcd's WAL fsync fails while the disk test's WAL fdatasync passes"));
    assert_non_null(strstr(out[2].advice, "ionice -c2 -n0"));
    /* … but not when the disk test fails too, nor against the other role */
    nd[0].verdict = FIOR_FAIL;
    assert_null(strstr(rules(nd, 2, out), "not-the-disk"));
    nd[0].verdict = FIOR_PASS;
    nd[0].role = FIOR_ROLE_BACKEND;
    assert_null(strstr(rules(nd, 2, out), "not-the-disk"));
    /* etcdctl check perf failing against any passing disk test */
    nd[1] = dist(FIOR_ROLE_CHECK_PERF, EXPLAIN_CHECK_PERF, FIOR_FAIL, 0, 0, 0, 0);
    nd[1].label = "etcdctl check perf";
    nd[1].threshold_ns = 0;
    assert_string_equal(rules(nd, 2, out), "headroom not-the-disk");

    /* rollover: the worst cut at the WAL threshold */
    explain_dist one = dist(FIOR_ROLE_WAL, EXPLAIN_DISK_TEST, FIOR_PASS, 1 * MS, 3 * MS, 0, 0);
    explain_facts f = {&one, 1, 1, 3, 10 * MS, 10 * MS, NULL};
    assert_int_equal(explain(&f, out, EXPLAIN_MAX_LINES), 2);
    assert_string_equal(out[1].rule, "rollover");
    assert_non_null(strstr(out[1].why, "the slowest of 3 WAL segment rollovers took 10 ms"));
    assert_non_null(strstr(out[1].advice, "use ext4 or XFS"));
    /* the advice looks at the filesystem measured: no "use ext4" on ext4 */
    f.fs_type = "ext4";
    assert_int_equal(explain(&f, out, EXPLAIN_MAX_LINES), 2);
    assert_non_null(strstr(out[1].why, " on ext4"));
    assert_null(strstr(out[1].advice, "use ext4"));
    assert_non_null(strstr(out[1].advice, "already ext4 or XFS"));
    f.fs_type = "btrfs";
    assert_int_equal(explain(&f, out, EXPLAIN_MAX_LINES), 2);
    assert_non_null(strstr(out[1].advice, "use ext4 or XFS"));
    f.fs_type = NULL;
    /* no judged WAL beside it (an unknown run): no rollover line */
    one.verdict = FIOR_UNKNOWN;
    assert_int_equal(explain(&f, out, EXPLAIN_MAX_LINES), 1);
    assert_string_equal(out[0].rule, "undecided");
    one.verdict = FIOR_PASS;
    f.rollover_worst_ns = 10 * MS - 1;
    assert_int_equal(explain(&f, out, EXPLAIN_MAX_LINES), 1);
    f.rollover_worst_ns = 50 * MS;
    f.rollover_known = 0;
    assert_int_equal(explain(&f, out, EXPLAIN_MAX_LINES), 1);
    /* the output bound is respected */
    f.rollover_known = 1;
    assert_int_equal(explain(&f, out, 1), 1);
    assert_int_equal(explain(NULL, out, 4), 0);
}

/* The adapter, on inputs read by the library. */
static void from_jobs(void **state)
{
    (void)state;
    /* a scrape whose p50 is <= 1 ms and whose p99.9 lies in (32, 64] ms: stalls, seen soundly through buckets */
    const char *text =
        "etcd_disk_wal_fsync_duration_seconds_bucket{le=\"0.001\"} 9000\n"
        "etcd_disk_wal_fsync_duration_seconds_bucket{le=\"0.002\"} 9900\n"
        "etcd_disk_wal_fsync_duration_seconds_bucket{le=\"0.032\"} 9985\n"
        "etcd_disk_wal_fsync_duration_seconds_bucket{le=\"0.064\"} 10000\n"
        "etcd_disk_wal_fsync_duration_seconds_bucket{le=\"+Inf\"} 10000\n"
        "etcd_disk_wal_fsync_duration_seconds_count 10000\n";
    fior_report *r = fior_report_new();
    assert_int_equal(fior_parse_buffer(r, "m.prom", text, strlen(text)), FIOR_OK);
    fior_result *res = fior_judge(r, NULL);
    explain_dist d;
    explain_dist_from_job(&d, fior_report_job(r, 0), fior_result_job(res, 0), 100);
    assert_int_equal(d.origin, EXPLAIN_ETCD_METRICS);
    assert_int_equal(d.verdict, FIOR_PASS);
    assert_true(d.p50.known && d.p50.lo == 0 && d.p50.hi == 1 * MS);
    assert_true(d.p99.known && d.p99.lo == 1 * MS && d.p99.hi == 2 * MS);
    assert_true(d.p999.known && d.p999.lo == 32 * MS && d.p999.hi == 64 * MS);
    assert_false(d.max.known);
    explain_line out[EXPLAIN_MAX_LINES];
    explain_facts f = {&d, 1, 0, 0, 0, 10 * MS, NULL};
    assert_int_equal(explain(&f, out, EXPLAIN_MAX_LINES), 2);
    assert_string_equal(out[0].rule, "stalls");
    assert_non_null(strstr(out[0].why, "the p99 passes, but the p99.9 is 32-64 ms, at or above the 10 ms threshold "
                                       "and 32x the p50 <= 1 ms"));
    fior_result_free(res);
    fior_report_free(r);

    /* fio's normal output printed in usec: the listed percentiles with their print resolution */
    const char *fio =
        "job1: (groupid=0, jobs=1): err= 0: pid=42: Tue Jan  7 17:00:52 2025\n"
        "  write: IOPS=12.3k, BW=26.9MiB/s (28.2MB/s)(99.0MiB/3680msec); 0 zone resets\n"
        "  fsync/fdatasync/sync_file_range:\n"
        "    sync (usec): min=200, max=48000, avg=600.00, stdev=100.00\n"
        "    sync percentiles (usec):\n"
        "     |  1.00th=[  250], 50.00th=[  500], 99.00th=[ 2000], 99.90th=[20000]\n"
        "     issued rwts: total=0,45000,0,0 short=45000,0,0,0 dropped=0,0,0,0\n";
    r = fior_report_new();
    assert_int_equal(fior_parse_buffer(r, "n.txt", fio, strlen(fio)), FIOR_OK);
    res = fior_judge(r, NULL);
    explain_dist_from_job(&d, fior_report_job(r, 0), fior_result_job(res, 0), 100);
    assert_int_equal(d.origin, EXPLAIN_DISK_TEST);
    assert_true(d.p50.known && d.p50.lo == 499001 && d.p50.hi == 500999);
    assert_true(d.p999.known && d.p999.lo == 19999001);
    assert_true(d.max.known && d.max.hi == 48 * MS);
    f.dist = &d;
    assert_int_equal(explain(&f, out, EXPLAIN_MAX_LINES), 2);
    assert_string_equal(out[0].rule, "stalls");
    assert_string_equal(out[1].rule, "headroom");
    fior_result_free(res);
    fior_report_free(r);
}

static void check_command(void **state)
{
    (void)state;
    char c[EXPLAIN_NEXT_MAX];
    explain_check_cmd(c, sizeof c, NULL, NULL);
    assert_string_equal(c, "etcd-fio check /var/lib/etcd");
    explain_check_cmd(c, sizeof c, "--wal-only --max-time 240", "/srv/etcd-data");
    assert_string_equal(c, "etcd-fio check --wal-only --max-time 240 /srv/etcd-data");
    explain_check_cmd(c, sizeof c, "", "/mnt/my disk/it's");
    assert_string_equal(c, "etcd-fio check '/mnt/my disk/it'\\''s'");
    explain_check_cmd(c, 20, NULL, "/a/very/long/directory/name");
    assert_int_equal(strlen(c), 19);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(per_distribution),
        cmocka_unit_test(across_distributions),
        cmocka_unit_test(from_jobs),
        cmocka_unit_test(check_command),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
