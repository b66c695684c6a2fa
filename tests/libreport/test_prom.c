/* SPDX-License-Identifier: MIT */
/* test_prom.c — etcd's own metrics as an input: Prometheus scrapes (fmt_prom.c) judged by the bucket rule,
 * windows between two scrapes (fior_report_window), `etcdctl check perf` output, and other etcdctl output
 * rejected. Every scrape here is crafted so that the answer is known by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fioreport.h"

#define MS 1000000ULL

/* etcd 3.4's buckets: 1 ms × 2^k, k = 0..13, then +Inf. `counts` are the 15 cumulative counts. */
static char *histo(char *out, size_t n, const char *name, const char *labels, const unsigned long long *counts,
                   const char *sum)
{
    static const char *le[] = {"0.001", "0.002", "0.004", "0.008", "0.016", "0.032", "0.064", "0.128",
                               "0.256", "0.512", "1.024", "2.048", "4.096", "8.192", "+Inf"};
    size_t o = (size_t)snprintf(out, n, "# HELP %s The latency distributions.\n# TYPE %s histogram\n", name, name);
    for (int i = 0; i < 15; i++)
        o += (size_t)snprintf(out + o, n - o, "%s_bucket{%s%sle=\"%s\"} %llu\n", name, labels, labels[0] ? "," : "",
                              le[i], counts[i]);
    o += (size_t)snprintf(out + o, n - o, "%s_sum%s%s%s %s\n%s_count%s%s%s %llu\n", name, labels[0] ? "{" : "",
                          labels, labels[0] ? "}" : "", sum, name, labels[0] ? "{" : "", labels,
                          labels[0] ? "}" : "", counts[14]);
    return out;
}

#define WAL "etcd_disk_wal_fsync_duration_seconds"
#define BACKEND "etcd_disk_backend_commit_duration_seconds"
#define IDENT(start) "etcd_server_id{server_id=\"8e9e05c52164694d\"} 1\nprocess_start_time_seconds " start "\n"

static fior_report *parse(const char *text, fior_status want)
{
    fior_report *r = fior_report_new();
    assert_non_null(r);
    fior_status st = fior_parse_buffer(r, "t.prom", text, strlen(text));
    if (st != want)
        fail_msg("status %s (want %s): %s", fior_strstatus(st), fior_strstatus(want), fior_report_error(r));
    return r;
}

/* Judges job i (WAL threshold wal_ns, 0 = default); returns the verdict and copies the reason. */
static fior_verdict judge(const fior_report *r, size_t i, uint64_t wal_ns, char *reason, uint64_t *value)
{
    fior_criteria *c = fior_criteria_new();
    assert_non_null(c);
    if (wal_ns)
        assert_int_equal(fior_criteria_set_threshold(c, FIOR_ROLE_WAL, wal_ns), FIOR_OK);
    fior_result *res = fior_judge(r, c);
    assert_non_null(res);
    const fior_judgement *jv = fior_result_job(res, i);
    assert_non_null(jv);
    fior_verdict v = jv->verdict;
    if (reason)
        snprintf(reason, 256, "%s", jv->reason);
    if (value)
        *value = jv->value_known ? jv->value_ns : UINT64_MAX;
    fior_result_free(res);
    fior_criteria_free(c);
    return v;
}

static fior_verdict judge_all(const fior_report *r)
{
    fior_result *res = fior_judge(r, NULL);
    assert_non_null(res);
    fior_verdict v = fior_result_verdict(res);
    fior_result_free(res);
    return v;
}

#define assert_has(hay, needle) \
    do { if (!strstr((hay), (needle))) fail_msg("'%s' not in '%s'", (needle), (hay)); } while (0)

static void real_layout(void **state)
{
    (void)state;
    /* etcd 3.4.23's own layout; client_golang prints numbers >= 1e6 in exponent form (1.234567e+06) */
    const char *text =
        "# HELP go_goroutines Number of goroutines that currently exist.\n# TYPE go_goroutines gauge\n"
        "go_goroutines 42\n"
        "# HELP etcd_disk_wal_fsync_duration_seconds The latency distributions of fsync called by WAL.\n"
        "# TYPE etcd_disk_wal_fsync_duration_seconds histogram\n"
        WAL "_bucket{le=\"0.001\"} 1e+06\n" WAL "_bucket{le=\"0.002\"} 1.2e+06\n"
        WAL "_bucket{le=\"0.004\"} 1.23e+06\n" WAL "_bucket{le=\"0.008\"} 1.234e+06\n"
        WAL "_bucket{le=\"0.016\"} 1.23456e+06\n" WAL "_bucket{le=\"0.032\"} 1.234567e+06\n"
        WAL "_bucket{le=\"0.064\"} 1.234567e+06\n" WAL "_bucket{le=\"0.128\"} 1.234567e+06\n"
        WAL "_bucket{le=\"0.256\"} 1.234567e+06\n" WAL "_bucket{le=\"0.512\"} 1.234567e+06\n"
        WAL "_bucket{le=\"1.024\"} 1.234567e+06\n" WAL "_bucket{le=\"2.048\"} 1.234567e+06\n"
        WAL "_bucket{le=\"4.096\"} 1.234567e+06\n" WAL "_bucket{le=\"8.192\"} 1.234567e+06\n"
        WAL "_bucket{le=\"+Inf\"} 1.234567e+06\n" WAL "_sum 812.5\n" WAL "_count 1.234567e+06\n"
        "# HELP etcd_disk_backend_defrag_duration_seconds The latency distribution of backend defragmentation.\n"
        "# TYPE etcd_disk_backend_defrag_duration_seconds histogram\n"
        IDENT("1.79604710079e+09") "etcd_server_version{server_version=\"3.4.23\"} 1\n";
    fior_report *r = parse(text, FIOR_OK);
    assert_int_equal(fior_report_format(r), FIOR_FMT_PROM);
    assert_int_equal(fior_report_njobs(r), 1);
    const fior_job *j = fior_report_job(r, 0);
    assert_string_equal(j->name, WAL);
    assert_int_equal(j->role, FIOR_ROLE_WAL);
    assert_true(j->bucketed);
    assert_int_equal(j->npct, 0); /* never anything the exact-sample rule could read */
    assert_int_equal(j->nbins, 0);
    assert_int_equal(j->nbuckets, 15);
    assert_int_equal(j->buckets[0].le_ns, 1 * MS);
    assert_int_equal(j->buckets[3].le_ns, 8 * MS);
    assert_int_equal(j->buckets[13].le_ns, 8192 * MS);
    assert_true(j->buckets[14].le_ns == UINT64_MAX);
    assert_int_equal(j->buckets[14].count, 1234567);
    assert_true(j->samples_known);
    assert_int_equal(j->samples, 1234567);
    assert_true(j->mean_ns > 658125 && j->mean_ns < 658126); /* 812.5 s / 1234567 */
    assert_string_equal(j->etcd_member, "8e9e05c52164694d");
    assert_true(j->process_start_s > 1796047100.7 && j->process_start_s < 1796047100.9);
    assert_null(j->defect);
    assert_false(j->window);
    char why[256];
    uint64_t val;
    /* rank ceil(0.99 × 1234567) = 1222222: more than the 1.2e6 at <= 2 ms, not more than 1.23e6 at <= 4 ms */
    assert_int_equal(judge(r, 0, 0, why, &val), FIOR_PASS);
    assert_int_equal(val, 4 * MS);
    assert_has(why, "p99 between 2 and 4 ms < 10 ms");
    assert_has(why, "since etcd started");
    fior_report_free(r);
}

static void bucket_rule(void **state)
{
    (void)state;
    char h[4096], why[256];
    uint64_t val;
    /* 1000 fsyncs; the 990th lies in (8, 16] ms: straddles 10 ms → UNKNOWN, never PASS */
    static const unsigned long long straddle[15] = {500, 800, 900, 985, 995, 1000, 1000, 1000, 1000, 1000, 1000,
                                                    1000, 1000, 1000, 1000};
    fior_report *r = parse(histo(h, sizeof h, WAL, "", straddle, "3.2"), FIOR_OK);
    assert_int_equal(judge(r, 0, 0, why, &val), FIOR_UNKNOWN);
    assert_has(why, "p99 between 8 and 16 ms");
    assert_int_equal(judge_all(r), FIOR_UNKNOWN);
    /* the same histogram against 25 ms (as a backend) would pass: 16 ms < 25 ms */
    fior_report_free(r);
    r = parse(histo(h, sizeof h, BACKEND, "", straddle, "3.2"), FIOR_OK);
    assert_int_equal(fior_report_job(r, 0)->role, FIOR_ROLE_BACKEND);
    assert_int_equal(judge(r, 0, 0, why, &val), FIOR_PASS);
    assert_int_equal(val, 16 * MS);
    assert_has(why, "backend commit");
    fior_report_free(r);

    /* nearest rank, exactly on an edge: 990 of 1000 at <= 8 ms → the 990th sample is <= 8 ms: PASS */
    static const unsigned long long edge[15] = {500, 800, 900, 990, 1000, 1000, 1000, 1000, 1000, 1000, 1000,
                                                1000, 1000, 1000, 1000};
    r = parse(histo(h, sizeof h, WAL, "", edge, "3.2"), FIOR_OK);
    assert_int_equal(judge(r, 0, 0, why, &val), FIOR_PASS);
    assert_int_equal(val, 8 * MS);
    /* an upper edge equal to the threshold proves p99 <= 8 ms, not p99 < 8 ms */
    assert_int_equal(judge(r, 0, 8 * MS, why, &val), FIOR_UNKNOWN);
    assert_has(why, "between 4 and 8 ms");
    /* and the lower edge at the threshold proves FAIL: a 4 ms threshold against (4, 8] */
    assert_int_equal(judge(r, 0, 4 * MS, why, &val), FIOR_FAIL);
    assert_int_equal(val, 4 * MS);
    fior_report_free(r);

    /* one sample fewer at <= 8 ms: the 990th is in (8, 16] */
    static const unsigned long long over[15] = {500, 800, 900, 989, 1000, 1000, 1000, 1000, 1000, 1000, 1000,
                                                1000, 1000, 1000, 1000};
    r = parse(histo(h, sizeof h, WAL, "", over, "3.2"), FIOR_OK);
    assert_int_equal(judge(r, 0, 0, why, NULL), FIOR_UNKNOWN);
    fior_report_free(r);

    /* FAIL: the p99 bucket (16, 32] lies wholly above 10 ms */
    static const unsigned long long slow[15] = {10, 20, 40, 80, 900, 1000, 1000, 1000, 1000, 1000, 1000, 1000,
                                                1000, 1000, 1000};
    r = parse(histo(h, sizeof h, WAL, "", slow, "9"), FIOR_OK);
    assert_int_equal(judge(r, 0, 0, why, &val), FIOR_FAIL);
    assert_int_equal(val, 16 * MS);
    assert_has(why, "p99 between 16 and 32 ms >= 10 ms");
    assert_int_equal(judge_all(r), FIOR_FAIL);
    fior_report_free(r);

    /* the p99 in the +Inf bucket: above 8.192 s, a FAIL; against a 10 s threshold UNKNOWN */
    static const unsigned long long inf[15] = {10, 20, 40, 80, 90, 90, 90, 90, 90, 90, 90, 90, 90, 90, 200};
    r = parse(histo(h, sizeof h, WAL, "", inf, "9000"), FIOR_OK);
    assert_int_equal(judge(r, 0, 0, why, NULL), FIOR_FAIL);
    assert_int_equal(judge(r, 0, 10000 * MS, why, NULL), FIOR_UNKNOWN);
    assert_has(why, "above 8.19 s");
    fior_report_free(r);

    /* too few samples, and none at all */
    static const unsigned long long few[15] = {50, 60, 60, 60, 60, 60, 60, 60, 60, 60, 60, 60, 60, 60, 60};
    r = parse(histo(h, sizeof h, WAL, "", few, "0.05"), FIOR_OK);
    assert_int_equal(judge(r, 0, 0, why, NULL), FIOR_UNKNOWN);
    assert_has(why, "only 60 WAL fsyncs");
    fior_report_free(r);
    static const unsigned long long none[15] = {0};
    r = parse(histo(h, sizeof h, WAL, "", none, "0"), FIOR_OK);
    assert_int_equal(judge(r, 0, 0, why, NULL), FIOR_UNKNOWN);
    assert_has(why, "no WAL fsyncs");
    fior_report_free(r);
}

static void incomplete_is_unknown(void **state)
{
    (void)state;
    char why[256];
    const char *b = "etcd_disk_wal_fsync_duration_seconds_bucket{le=\"0.001\"} 900\n"
                    "etcd_disk_wal_fsync_duration_seconds_bucket{le=\"0.002\"} 1000\n";
    char text[2048];
    /* no +Inf bucket */
    snprintf(text, sizeof text, "%setcd_disk_wal_fsync_duration_seconds_count 1000\n", b);
    fior_report *r = parse(text, FIOR_OK);
    assert_int_equal(judge(r, 0, 0, why, NULL), FIOR_UNKNOWN);
    assert_has(why, "no le=\"+Inf\" bucket");
    fior_report_free(r);
    /* no _count */
    snprintf(text, sizeof text, "%setcd_disk_wal_fsync_duration_seconds_bucket{le=\"+Inf\"} 1000\n", b);
    r = parse(text, FIOR_OK);
    assert_int_equal(judge(r, 0, 0, why, NULL), FIOR_UNKNOWN);
    assert_has(why, "no etcd_disk_wal_fsync_duration_seconds_count");
    fior_report_free(r);
    /* _count disagreeing with +Inf */
    snprintf(text, sizeof text, "%setcd_disk_wal_fsync_duration_seconds_bucket{le=\"+Inf\"} 1000\n"
             "etcd_disk_wal_fsync_duration_seconds_count 1001\n", b);
    r = parse(text, FIOR_OK);
    assert_int_equal(judge(r, 0, 0, why, NULL), FIOR_UNKNOWN);
    assert_has(why, "_count 1001 differs");
    fior_report_free(r);
    /* only _sum and _count: no buckets */
    r = parse("etcd_disk_wal_fsync_duration_seconds_sum 1\netcd_disk_wal_fsync_duration_seconds_count 1000\n",
              FIOR_OK);
    assert_int_equal(judge(r, 0, 0, why, NULL), FIOR_UNKNOWN);
    assert_has(why, "no etcd_disk_wal_fsync_duration_seconds_bucket");
    fior_report_free(r);
}

static void expect_error(const char *text, const char *want)
{
    fior_report *r = fior_report_new();
    fior_status st = fior_parse_buffer(r, "t.prom", text, strlen(text));
    if (st == FIOR_OK)
        fail_msg("parsed, want error '%s'", want);
    assert_has(fior_report_error(r), want);
    assert_null(strchr(fior_report_error(r), '\n'));
    assert_int_equal(fior_report_njobs(r), 0);
    fior_report_free(r);
}

static void bad_scrapes(void **state)
{
    (void)state;
    /* counts going down along the buckets: an error naming the line */
    expect_error("# TYPE etcd_disk_wal_fsync_duration_seconds histogram\n"
                 "etcd_disk_wal_fsync_duration_seconds_bucket{le=\"0.001\"} 900\n"
                 "etcd_disk_wal_fsync_duration_seconds_bucket{le=\"0.002\"} 800\n"
                 "etcd_disk_wal_fsync_duration_seconds_bucket{le=\"+Inf\"} 1000\n"
                 "etcd_disk_wal_fsync_duration_seconds_count 1000\n",
                 "t.prom:3: bucket le=0.002 s counts 800, fewer than 900 at le=0.001 s (line 2)");
    /* the same series twice (two scrapes pasted into one file) */
    expect_error("etcd_disk_wal_fsync_duration_seconds_count 10\netcd_disk_wal_fsync_duration_seconds_count 12\n",
                 "t.prom:2: etcd_disk_wal_fsync_duration_seconds_count given twice");
    expect_error("etcd_disk_wal_fsync_duration_seconds_bucket{le=\"0.001\"} 1\n"
                 "etcd_disk_wal_fsync_duration_seconds_bucket{le=\"1e-3\"} 1\n",
                 "t.prom:2: bucket le=0.001 s given twice");
    /* OpenMetrics: nothing after # EOF */
    expect_error("etcd_disk_wal_fsync_duration_seconds_count 10\n# EOF\ngo_goroutines 3\n", "t.prom:3: text after '# EOF'");
    /* values */
    expect_error("etcd_disk_wal_fsync_duration_seconds_bucket{le=\"0.001\"} NaN\n", "t.prom:1: expected a whole number");
    expect_error("etcd_disk_wal_fsync_duration_seconds_bucket{le=\"0.001\"} +Inf\n", "t.prom:1: expected a whole number");
    expect_error("etcd_disk_wal_fsync_duration_seconds_bucket{le=\"0.001\"} -1\n", "t.prom:1: expected a whole number");
    expect_error("etcd_disk_wal_fsync_duration_seconds_bucket{le=\"0.001\"} 2.5\n", "t.prom:1: expected a whole number");
    expect_error("etcd_disk_wal_fsync_duration_seconds_bucket{le=\"NaN\"} 2\n", "t.prom:1: expected le=");
    expect_error("etcd_disk_wal_fsync_duration_seconds_bucket{le=\"-Inf\"} 2\n", "t.prom:1: expected le=");
    expect_error("etcd_disk_wal_fsync_duration_seconds_bucket 2\n", "t.prom:1: a _bucket line without an le label");
    expect_error("etcd_disk_wal_fsync_duration_seconds_bucket{le=\"0.1\",le=\"0.2\"} 2\n", "label 'le' given twice");
    expect_error("etcd_disk_wal_fsync_duration_seconds{quantile=\"0.99\"} 0.1\n", "(a histogram)");
    expect_error("# TYPE etcd_disk_wal_fsync_duration_seconds summary\n", "t.prom:1: etcd_disk_wal_fsync_duration_seconds is declared 'summary'");
    /* syntax anywhere in the scrape, as Prometheus itself rejects it */
    expect_error("# TYPE x gauge\nx{a=\"1} 3\n", "t.prom:2: label value not closed");
    expect_error("# TYPE x gauge\nx{a=\"\\q\"} 3\n", "t.prom:2: bad escape");
    expect_error("# TYPE x gauge\nx 3 4 5\n", "t.prom:2: unexpected text after the value");
    expect_error("# TYPE x gauge\nx 0x1p3\n", "t.prom:2: expected a number as the value");
    expect_error("# TYPE x gauge\n{a=\"b\"} 3\n", "t.prom:2: expected a metric name");
    /* a scrape that is not etcd's */
    expect_error("# HELP node_load1 1m load average.\n# TYPE node_load1 gauge\nnode_load1 0.5\n",
                 "t.prom:1: a Prometheus scrape without etcd_disk_wal_fsync_duration_seconds");
}

static void odd_but_valid(void **state)
{
    (void)state;
    char why[256];
    /* CRLF, leading blanks, timestamps, OpenMetrics exemplars and _created, # EOF, escapes, an instance label
     * (a federated scrape) in another order on every line, NaN sum, extra labels */
    const char *text =
        "# TYPE etcd_disk_wal_fsync_duration_seconds histogram\r\n"
        "etcd_disk_wal_fsync_duration_seconds_bucket{instance=\"10.0.0.1:2379\",job=\"etcd \\\"a\\\"\",le=\"0.004\"} 990 1700000000000\r\n"
        "  etcd_disk_wal_fsync_duration_seconds_bucket{le=\"0.002\", job=\"etcd \\\"a\\\"\",instance=\"10.0.0.1:2379\",} 500 # {trace_id=\"abc\"} 0.0015 1700000000.1\r\n"
        "etcd_disk_wal_fsync_duration_seconds_bucket{job=\"etcd \\\"a\\\"\",le=\"+Inf\",instance=\"10.0.0.1:2379\"} 1000\r\n"
        "etcd_disk_wal_fsync_duration_seconds_count{instance=\"10.0.0.1:2379\",job=\"etcd \\\"a\\\"\"} 1000\r\n"
        "etcd_disk_wal_fsync_duration_seconds_sum{instance=\"10.0.0.1:2379\",job=\"etcd \\\"a\\\"\"} NaN\r\n"
        "etcd_disk_wal_fsync_duration_seconds_created{instance=\"10.0.0.1:2379\",job=\"etcd \\\"a\\\"\"} 1.7e9\r\n"
        "\r\n# EOF\r\n\r\n";
    fior_report *r = parse(text, FIOR_OK);
    assert_int_equal(fior_report_njobs(r), 1);
    const fior_job *j = fior_report_job(r, 0);
    assert_string_equal(j->host, "10.0.0.1:2379");
    assert_string_equal(j->name, WAL "{instance=\"10.0.0.1:2379\",job=\"etcd \\\"a\\\"\"}");
    assert_int_equal(j->nbuckets, 3);
    assert_int_equal(j->buckets[0].le_ns, 2 * MS); /* sorted by le, whatever the line order */
    assert_int_equal(j->buckets[1].count, 990);
    assert_true(j->mean_ns == 0); /* NaN sum: mean unknown, not a number */
    assert_int_equal(judge(r, 0, 0, why, NULL), FIOR_PASS);
    assert_has(why, "between 2 and 4 ms");
    fior_report_free(r);

    /* two members in one file: a job each, told apart by their labels */
    static const unsigned long long a[15] = {990, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000,
                                             1000, 1000, 1000};
    static const unsigned long long b[15] = {10, 20, 30, 40, 50, 990, 1000, 1000, 1000, 1000, 1000, 1000, 1000,
                                             1000, 1000};
    char h1[4096], h2[4096], both[8192];
    histo(h1, sizeof h1, WAL, "instance=\"a\"", a, "1");
    histo(h2, sizeof h2, WAL, "instance=\"b\"", b, "30");
    snprintf(both, sizeof both, "%s%s", h1, strstr(h2, "\n" WAL "_bucket") + 1);
    r = parse(both, FIOR_OK);
    assert_int_equal(fior_report_njobs(r), 2);
    assert_int_equal(judge(r, 0, 0, NULL, NULL), FIOR_PASS);
    assert_int_equal(judge(r, 1, 0, NULL, NULL), FIOR_FAIL);
    assert_int_equal(judge_all(r), FIOR_FAIL);
    fior_report_free(r);

    /* a huge label set and a long label value are read, not refused */
    size_t n = 200000;
    char *big = malloc(n + 4096);
    size_t o = (size_t)sprintf(big, WAL "_bucket{");
    for (int i = 0; i < 2000; i++)
        o += (size_t)sprintf(big + o, "l%d=\"%d\",", i, i);
    o += (size_t)sprintf(big + o, "v=\"");
    memset(big + o, 'x', 100000);
    o += 100000;
    sprintf(big + o, "\",le=\"+Inf\"} 5\n");
    r = parse(big, FIOR_OK);
    assert_int_equal(fior_report_job(r, 0)->nbuckets, 1);
    fior_report_free(r);
    free(big);
}

/* before + after as two inputs of one report, then the window */
static fior_report *two(const char *before, const char *after)
{
    fior_report *r = fior_report_new();
    assert_int_equal(fior_parse_buffer(r, "before.prom", before, strlen(before)), FIOR_OK);
    assert_int_equal(fior_parse_buffer(r, "after.prom", after, strlen(after)), FIOR_OK);
    assert_int_equal(fior_report_njobs(r), 2);
    assert_int_equal(fior_report_window(r), FIOR_OK);
    return r;
}

static void windows(void **state)
{
    (void)state;
    char why[256], h[4096], before[8192], after[8192];
    uint64_t val;
    /* since start etcd was slow (p99 > 16 ms); in the window all 1000 new fsyncs took <= 2 ms */
    static const unsigned long long c0[15] = {0, 0, 0, 0, 0, 100, 200, 200, 200, 200, 200, 200, 200, 200, 200};
    static const unsigned long long c1[15] = {800, 1000, 1000, 1000, 1000, 1100, 1200, 1200, 1200, 1200, 1200,
                                              1200, 1200, 1200, 1200};
    snprintf(before, sizeof before, "%s" IDENT("1.7e+09"), histo(h, sizeof h, WAL, "", c0, "10"));
    snprintf(after, sizeof after, "%s" IDENT("1.7e+09"), histo(h, sizeof h, WAL, "", c1, "11"));
    fior_report *r = two(before, after);
    assert_int_equal(fior_report_njobs(r), 1);
    const fior_job *j = fior_report_job(r, 0);
    assert_true(j->window);
    assert_string_equal(j->source, "before.prom..after.prom");
    assert_int_equal(j->samples, 1000);
    assert_int_equal(j->buckets[0].count, 800);
    assert_int_equal(judge(r, 0, 0, why, &val), FIOR_PASS);
    assert_int_equal(val, 2 * MS);
    assert_has(why, "1000 in the window");
    fior_report_free(r);
    /* the after scrape alone says FAIL: the window is what changed the answer */
    r = parse(after, FIOR_OK);
    assert_int_equal(judge(r, 0, 0, NULL, NULL), FIOR_FAIL);
    fior_report_free(r);

    /* a counter reset: after has fewer in a bucket than before → UNKNOWN */
    static const unsigned long long c2[15] = {700, 1000, 1000, 1000, 1000, 1100, 1200, 1200, 1200, 1200, 1200,
                                              1200, 1200, 1200, 1200};
    snprintf(before, sizeof before, "%s" IDENT("1.7e+09"), histo(h, sizeof h, WAL, "", c1, "11"));
    snprintf(after, sizeof after, "%s" IDENT("1.7e+09"), histo(h, sizeof h, WAL, "", c2, "12"));
    r = two(before, after);
    assert_int_equal(judge(r, 0, 0, why, NULL), FIOR_UNKNOWN);
    assert_has(why, "counter reset between the scrapes (bucket le=1 ms went from 800 to 700)");
    fior_report_free(r);
    /* a restart with more fsyncs after it than before: only process_start_time_seconds shows it */
    snprintf(before, sizeof before, "%s" IDENT("1.7e+09"), histo(h, sizeof h, WAL, "", c0, "10"));
    snprintf(after, sizeof after, "%s" IDENT("1.70000006e+09"), histo(h, sizeof h, WAL, "", c1, "11"));
    r = two(before, after);
    assert_int_equal(judge(r, 0, 0, why, NULL), FIOR_UNKNOWN);
    assert_has(why, "etcd restarted between the scrapes");
    fior_report_free(r);
    /* without process_start_time_seconds a restart cannot be ruled out */
    histo(before, sizeof before, WAL, "", c0, "10");
    histo(after, sizeof after, WAL, "", c1, "11");
    r = two(before, after);
    assert_int_equal(judge(r, 0, 0, why, NULL), FIOR_UNKNOWN);
    assert_has(why, "cannot rule out an etcd restart");
    fior_report_free(r);
    /* scrapes of two different members are not differenced */
    snprintf(before, sizeof before, "%s" IDENT("1.7e+09"), histo(h, sizeof h, WAL, "", c0, "10"));
    snprintf(after, sizeof after, "%s" "etcd_server_id{server_id=\"1111111111111111\"} 1\n"
             "process_start_time_seconds 1.7e+09\n", histo(h, sizeof h, WAL, "", c1, "11"));
    fior_report *r2 = fior_report_new();
    assert_int_equal(fior_parse_buffer(r2, "a.prom", before, strlen(before)), FIOR_OK);
    assert_int_equal(fior_parse_buffer(r2, "b.prom", after, strlen(after)), FIOR_OK);
    assert_int_equal(fior_report_window(r2), FIOR_OK);
    assert_int_equal(fior_report_njobs(r2), 2);
    assert_false(fior_report_job(r2, 0)->window);
    fior_report_free(r2);
    /* a defect in one scrape carries into the window */
    snprintf(after, sizeof after, WAL "_bucket{le=\"0.001\"} 5\n" IDENT("1.7e+09"));
    snprintf(before, sizeof before, "%s" IDENT("1.7e+09"), histo(h, sizeof h, WAL, "", c0, "10"));
    r = two(before, after);
    assert_int_equal(judge(r, 0, 0, why, NULL), FIOR_UNKNOWN);
    assert_has(why, "second scrape: no le=\"+Inf\" bucket");
    fior_report_free(r);
}

static void check_perf(void **state)
{
    (void)state;
    char why[256];
    const char *pass = " 60 / 60 Booooooooooooooooooooooooooooooooooo! 100.00% 1m0s\n"
                       "PASS: Throughput is 150 writes/s\nPASS: Slowest request took 0.087509s\n"
                       "PASS: Stddev is 0.011084s\nPASS\n";
    fior_report *r = parse(pass, FIOR_OK);
    assert_int_equal(fior_report_format(r), FIOR_FMT_CHECK_PERF);
    const fior_job *j = fior_report_job(r, 0);
    assert_int_equal(j->role, FIOR_ROLE_CHECK_PERF);
    assert_string_equal(j->name, "etcd check perf");
    assert_int_equal(j->max_ns, 87509000);
    assert_true(j->write_iops == 150);
    /* a PASS of etcd as a whole is never a disk PASS */
    assert_int_equal(judge(r, 0, 0, why, NULL), FIOR_NOT_JUDGED);
    assert_has(why, "throughput 150 writes/s, slowest request 87.5 ms, stddev 11.1 ms");
    assert_int_equal(judge_all(r), FIOR_UNKNOWN);
    fior_report_free(r);

    /* 3.4's FAIL lines (one without the FAIL: prefix), a JSON log line of etcdctl in between */
    r = parse("{\"level\":\"warn\",\"msg\":\"retrying of unary invoker failed\"}\n"
              "FAIL: Throughput too low: 6491 writes/s\nSlowest request took too long: 0.786915s\n"
              "PASS: Stddev is 0.063215s\nFAIL\n", FIOR_OK);
    assert_int_equal(judge(r, 0, 0, why, NULL), FIOR_FAIL);
    assert_has(why, "throughput 6491 writes/s (too low), slowest request 787 ms (too high)");
    assert_int_equal(judge_all(r), FIOR_FAIL);
    fior_report_free(r);

    /* cut off before the final line: UNKNOWN; two runs: two rows */
    r = parse("PASS: Throughput is 150 writes/s\nPASS: Slowest request took 0.1s\n", FIOR_OK);
    assert_int_equal(judge(r, 0, 0, why, NULL), FIOR_UNKNOWN);
    fior_report_free(r);
    r = parse("PASS: Throughput is 150 writes/s\nPASS\nPASS: Throughput is 10 writes/s\nFAIL\n", FIOR_OK);
    assert_int_equal(fior_report_njobs(r), 2);
    assert_string_equal(fior_report_job(r, 1)->name, "etcd check perf run 2");
    fior_report_free(r);
    r = fior_report_new();
    const char *bad = "PASS: Throughput is many writes/s\n";
    assert_int_equal(fior_parse_buffer(r, "cp.txt", bad, strlen(bad)), FIOR_E_PARSE);
    assert_has(fior_report_error(r), "cp.txt:1: expected 'N writes/s'");
    fior_report_free(r);
}

static void etcdctl_noise(void **state)
{
    (void)state;
    static const char *const noise[] = {
        "+----------------+------------------+---------+---------+-----------+\n"
        "|    ENDPOINT    |        ID        | VERSION | DB SIZE | IS LEADER |\n",
        "127.0.0.1:2379, 8e9e05c52164694d, 3.4.23, 20 kB, true, false, 2, 4, 4, \n",
        /* Go's %x drops leading zeros: a 15-digit ID (seen from a real etcd 3.4.23) */
        "127.0.0.1:37843, c44c14992e5a843, 3.4.23, 61 kB, true, false, 3, 489, 489, \n",
        "[{\"Endpoint\":\"127.0.0.1:2379\",\"Status\":{\"header\":{\"raft_term\":2}}}]\n",
        "Failed to get the status of endpoint 127.0.0.1:1 (context deadline exceeded)\n",
        "127.0.0.1:2379 is healthy: successfully committed proposal: took = 2.1ms\n",
    };
    for (size_t i = 0; i < sizeof noise / sizeof noise[0]; i++) {
        fior_report *r = fior_report_new();
        assert_int_equal(fior_parse_buffer(r, "st.txt", noise[i], strlen(noise[i])), FIOR_E_FORMAT);
        assert_has(fior_report_error(r), "st.txt:");
        assert_has(fior_report_error(r), "etcdctl endpoint");
        assert_has(fior_report_error(r), "has no latencies");
        fior_report_free(r);
    }
    /* not a member ID (17 hex digits, none, or not hex): the generic "expected fio output" message */
    static const char *const other[] = {
        "127.0.0.1:2379, 18e9e05c52164694d, 3.4.23, 20 kB\n",
        "127.0.0.1:2379, , 3.4.23\n",
        "127.0.0.1:2379, 8e9e05g52164694d, 3.4.23\n",
    };
    for (size_t i = 0; i < sizeof other / sizeof other[0]; i++) {
        fior_report *r = fior_report_new();
        assert_int_not_equal(fior_parse_buffer(r, "o.txt", other[i], strlen(other[i])), FIOR_OK);
        assert_has(fior_report_error(r), "o.txt:1: expected fio output");
        fior_report_free(r);
    }
}

/* The detectors run on every input before fio's own readers, so they search the whole input in one pass
 * (fio's normal text must not pay a search per line) and only etcdctl's other output is recognised from its
 * first 16 KiB: the line rules must hold all the same. */
static void detection_rules(void **state)
{
    (void)state;
    static const struct {
        const char *text, *want;
        size_t len; /* 0: strlen(text) */
    } cases[] = {
        /* a mark on line 3, and the first mark in the table's order on that line */
        {"hello\n\n+ ID | RAFT TERM | IS LEADER +\n", "st.txt:3: this is `etcdctl endpoint status` output", 0},
        {"x\n127.0.0.1:2379, 8e9e05c52164694d, 3.4.23\n\"raft_term\"\n", "st.txt:2: this is `etcdctl endpoint", 0},
        /* Prometheus' comments and our histograms count at a line start, after blanks only (then "text" is
         * the scrape's bad line 1) */
        {" \t# HELP go_goroutines x\n", "without etcd_disk_wal_fsync_duration_seconds", 0},
        {"text\n \t# HELP go_goroutines x\n", "st.txt:1: expected a blank and the value after the metric", 0},
        {"text\n  etcd_disk_backend_commit_duration_seconds_count 1\n", "st.txt:1: expected a blank and the", 0},
        {"text # HELP go_goroutines x\n", "st.txt:1: expected fio output", 0},
        {"text\n\r# TYPE x counter\n", "st.txt:1: expected fio output", 0},
        {"text\n\0# TYPE x counter\n", "st.txt:1: expected fio output", 23},
        /* check perf lines anywhere in the input, after other text */
        {"text\n\rprogress\rPASS: Throughput is 150 writes/s\n", NULL, 0},
        {"text Stddev too high: 0.06s\n", NULL, 0},
        {"text Stddev too high 0.06s\n", "st.txt:1: expected fio output", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        fior_report *r = fior_report_new();
        size_t n = cases[i].len ? cases[i].len : strlen(cases[i].text);
        fior_status st = fior_parse_buffer(r, "st.txt", cases[i].text, n);
        if (cases[i].want) {
            assert_int_not_equal(st, FIOR_OK);
            assert_has(fior_report_error(r), cases[i].want);
        } else {
            assert_int_equal(st, FIOR_OK);
            assert_int_equal(fior_report_format(r), FIOR_FMT_CHECK_PERF);
        }
        fior_report_free(r);
    }
    /* etcdctl's output past the first 16 KiB is not looked for: the input is judged as what it starts as */
    size_t pad = 16384;
    char *big = malloc(pad + 64);
    assert_non_null(big);
    memset(big, 'x', pad);
    for (size_t k = 99; k < pad; k += 100)
        big[k] = '\n';
    strcpy(big + pad, "\n| ID | IS LEADER |\n");
    fior_report *r = fior_report_new();
    assert_int_not_equal(fior_parse_buffer(r, "big.txt", big, strlen(big)), FIOR_OK);
    assert_has(fior_report_error(r), "big.txt:1: expected fio output");
    memcpy(big + pad - 200, "\n| IS LEADER |\n", 15); /* inside the window: found, on its line */
    assert_int_equal(fior_parse_buffer(r, "big.txt", big, strlen(big)), FIOR_E_FORMAT);
    assert_has(fior_report_error(r), "big.txt:163: this is `etcdctl endpoint status` output");
    fior_report_free(r);
    free(big);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(real_layout),      cmocka_unit_test(bucket_rule), cmocka_unit_test(incomplete_is_unknown),
        cmocka_unit_test(bad_scrapes),      cmocka_unit_test(odd_but_valid), cmocka_unit_test(windows),
        cmocka_unit_test(check_perf),       cmocka_unit_test(etcdctl_noise), cmocka_unit_test(detection_rules),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
