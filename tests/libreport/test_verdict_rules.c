/* SPDX-License-Identifier: MIT */
/* test_verdict_rules.c — the verdict rules on jobs built field by field: thresholds per role, the
 * conditions that force UNKNOWN (error, too few samples, missing percentile, libaio garbage in fio
 * 3.31–3.40, all-zero latencies, gtod_reduce), the neighbour-percentile proofs, print-resolution bounds,
 * custom criteria and the overall combination. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "fioreport.h"
#include "internal.h" /* fior__judge_job: one hand-built job, without a report around it */

#define MS 1000000ULL

typedef struct tjob {
    fior_job j;
    fior_pct p[8];
} tjob;

/* A healthy WAL job with 1000 samples and the given (percent, ns) pairs, ascending. */
static void mk(tjob *t, size_t n, const double *pc, const uint64_t *ns)
{
    memset(t, 0, sizeof *t);
    t->j.size = sizeof t->j;
    t->j.name = "j";
    t->j.port = -1;
    t->j.group = 0;
    t->j.pid = -1;
    t->j.has_sync = 1;
    t->j.samples_known = 1;
    t->j.samples = 1000;
    t->j.min_ns = 100000;
    t->j.max_ns = 50 * MS;
    t->j.pct_resolution_ns = 1;
    for (size_t i = 0; i < n; i++) {
        t->p[i].percent = pc[i];
        t->p[i].ns = ns[i];
    }
    t->j.npct = n;
    t->j.pct = t->p;
}

static fior_verdict judge1(const tjob *t, fior__judged *o)
{
    return fior__judge_job(&t->j, NULL, o);
}

static void thresholds_by_role(void **state)
{
    (void)state;
    tjob t;
    fior__judged o;
    /* fio's values are middles of its histogram buckets (131072 ns wide between 8.4 and 16.8 ms):
     * 9895936 is the bucket [9830400, 9961471], all below 10 ms */
    mk(&t, 1, (double[]){99.0}, (uint64_t[]){9895936});
    assert_int_equal(judge1(&t, &o), FIOR_PASS);
    assert_true(o.j.value_known);
    assert_int_equal(o.j.value_ns, 9895936);
    assert_int_equal(o.j.threshold_ns, 10 * MS);
    /* 10027008 is the bucket [9961472, 10092543]: its sample may be on either side of 10 ms */
    t.p[0].ns = 10027008;
    assert_int_equal(judge1(&t, &o), FIOR_UNKNOWN);
    assert_string_equal(o.reason, "p99 10 ms may be anywhere between 9.96 and 10.1 ms (fio's histogram bucket), "
                                  "across the 10 ms threshold (WAL fdatasync)");
    t.p[0].ns = 9999999;  /* not a bucket middle (hand-made): its bucket is the same, so it cannot pass */
    assert_int_equal(judge1(&t, &o), FIOR_UNKNOWN);
    t.p[0].ns = 10158080;  /* [10092544, 10223615]: all at or above 10 ms */
    assert_int_equal(judge1(&t, &o), FIOR_FAIL);
    assert_string_equal(o.reason, "p99 10.2 ms >= 10 ms (WAL fdatasync)");
    t.p[0].ns = 20 * MS;
    assert_int_equal(judge1(&t, &o), FIOR_FAIL);
    t.j.role = FIOR_ROLE_BACKEND;
    assert_int_equal(judge1(&t, &o), FIOR_PASS);
    assert_int_equal(o.j.threshold_ns, 25 * MS);
    assert_string_equal(o.reason, "p99 20 ms < 25 ms (backend commit); a disk inferred, not shown");
    t.p[0].ns = 25 * MS;  /* [24903680, 25165823] straddles 25 ms */
    assert_int_equal(judge1(&t, &o), FIOR_UNKNOWN);
    t.p[0].ns = 25427968 + 131072;  /* [25427968, 25690111] */
    assert_int_equal(judge1(&t, &o), FIOR_FAIL);
}

static void forced_unknown(void **state)
{
    (void)state;
    tjob t;
    fior__judged o;
    const double pc[] = {99.0};
    const uint64_t ok[] = {1 * MS};

    mk(&t, 1, pc, ok);
    t.j.error = 5;
    assert_int_equal(judge1(&t, &o), FIOR_UNKNOWN);
    assert_non_null(strstr(o.reason, "err=5"));

    mk(&t, 1, pc, ok);
    t.j.samples = 99;
    assert_int_equal(judge1(&t, &o), FIOR_UNKNOWN);
    assert_string_equal(o.reason, "only 99 sync samples (need 100)");
    t.j.samples = 100;
    assert_int_equal(judge1(&t, &o), FIOR_PASS);
    t.j.samples_known = 0;  /* count unknown (fio < 3.4 normal output, etcd-perf): cannot show the minimum */
    t.j.samples = 0;
    assert_int_equal(judge1(&t, &o), FIOR_UNKNOWN);
    assert_non_null(strstr(o.reason, "number of sync samples is not in the input"));
    t.j.samples = 100000;  /* a value without samples_known is not a count */
    assert_int_equal(judge1(&t, &o), FIOR_UNKNOWN);

    mk(&t, 0, pc, ok);  /* samples but no percentile */
    assert_int_equal(judge1(&t, &o), FIOR_UNKNOWN);
    assert_false(o.j.value_known);

    mk(&t, 1, pc, (uint64_t[]){0});
    t.j.max_ns = 0;
    t.j.min_ns = 0;
    assert_int_equal(judge1(&t, &o), FIOR_UNKNOWN);
    assert_non_null(strstr(o.reason, "all sync latencies are 0"));

    mk(&t, 1, pc, ok);
    t.j.latency_untimed = 1;
    assert_int_equal(judge1(&t, &o), FIOR_UNKNOWN);
}

static void libaio_versions(void **state)
{
    (void)state;
    static const struct { const char *version; fior_verdict v; } cases[] = {
        {"fio-3.30", FIOR_PASS}, {"fio-3.31", FIOR_UNKNOWN}, {"fio-3.33", FIOR_UNKNOWN},
        {"fio-3.40", FIOR_UNKNOWN}, {"fio-3.41", FIOR_PASS}, {"fio-3.36-12-gabcdef", FIOR_UNKNOWN},
        {NULL, FIOR_UNKNOWN}, {"garbage", FIOR_UNKNOWN},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tjob t;
        mk(&t, 1, (double[]){99.0}, (uint64_t[]){1 * MS});
        t.j.ioengine = "libaio";
        t.j.fio_version = cases[i].version;
        t.j.medium = FIOR_MEDIUM_DISK; /* device evidence: only the libaio latency bug decides here */
        fior__judged o;
        if (judge1(&t, &o) != cases[i].v)
            fail_msg("%s: %s (%s)", cases[i].version ? cases[i].version : "(null)",
                     fior_verdict_name(o.j.verdict), o.reason);
        t.j.ioengine = "sync";  /* the bug is libaio's only */
        assert_int_equal(judge1(&t, &o), FIOR_PASS);
    }
}

/* Async engines' syncs pass only with device evidence: on fio 3.4-3.34 io_u.c io_completed times a failed
 * sync and drops its error; on any fio their latency holds the engine's own queueing, which hides a flush that
 * did nothing (tmpfs) from the floor. A synchronous engine's PASS without any evidence of the medium says its
 * medium was inferred; evidence of no disk takes the PASS away. */
static void async_failed_syncs(void **state)
{
    (void)state;
    static const char *const eng[] = {"io_uring", "posixaio", "libaio"};
    for (size_t i = 0; i < 3; i++) {
        tjob t;
        fior__judged o;
        mk(&t, 2, (double[]){50.0, 99.0}, (uint64_t[]){100000, 1 * MS});
        t.j.ioengine = eng[i];
        t.j.fio_version = "fio-3.30";
        assert_int_equal(judge1(&t, &o), FIOR_UNKNOWN);
        assert_non_null(strstr(o.reason, "times a sync that failed"));
        assert_false(o.j.value_known);
        t.j.fio_version = NULL; /* not known: the versions that do it are the common ones */
        assert_int_equal(judge1(&t, &o), FIOR_UNKNOWN);
        t.j.fio_version = "fio-3.30";
        t.j.medium = FIOR_MEDIUM_DISK;
        assert_int_equal(judge1(&t, &o), FIOR_PASS);
        assert_false(o.j.medium_inferred);
        if (strcmp(eng[i], "libaio")) { /* libaio 3.31-3.40 has its own latency bug */
            t.j.medium = FIOR_MEDIUM_UNKNOWN;
            t.j.fio_version = "fio-3.39";
            assert_int_equal(judge1(&t, &o), FIOR_UNKNOWN);
            assert_non_null(strstr(o.reason, "cannot show that the syncs reached a device"));
            t.j.medium = FIOR_MEDIUM_DISK;
            assert_int_equal(judge1(&t, &o), FIOR_PASS);
            assert_false(o.j.medium_inferred);
        }
    }
    tjob t;
    fior__judged o;
    mk(&t, 2, (double[]){50.0, 99.0}, (uint64_t[]){100000, 1 * MS});
    t.j.ioengine = "psync";
    t.j.fio_version = "fio-3.33";
    assert_int_equal(judge1(&t, &o), FIOR_PASS);
    assert_true(o.j.medium_inferred);
    t.j.medium = FIOR_MEDIUM_NOT_DISK;
    t.j.medium_reason = "fio's disk stats show zram1, compressed RAM";
    assert_int_equal(judge1(&t, &o), FIOR_UNKNOWN);
    assert_non_null(strstr(o.reason, "zram1"));
    t.j.medium_reason = NULL;
    assert_int_equal(judge1(&t, &o), FIOR_UNKNOWN);
    /* a slow run stays a FAIL: the rule only takes a PASS away */
    mk(&t, 2, (double[]){50.0, 99.0}, (uint64_t[]){100000, 20 * MS});
    t.j.medium = FIOR_MEDIUM_NOT_DISK;
    assert_int_equal(judge1(&t, &o), FIOR_FAIL);
}

/* A pasted result block has no ioengine: the bug's signature (an absurd max) on a fio that may have it */
static void garbage_signature_without_engine(void **state)
{
    (void)state;
    tjob t;
    fior__judged o;
    mk(&t, 1, (double[]){99.0}, (uint64_t[]){1 * MS});
    t.j.max_ns = 328998000000ULL;  /* max=328998k usec */
    t.j.fio_version = "fio-3.33";
    assert_int_equal(judge1(&t, &o), FIOR_UNKNOWN);
    assert_non_null(strstr(o.reason, "implausible"));
    t.j.fio_version = NULL;
    assert_int_equal(judge1(&t, &o), FIOR_UNKNOWN);
    t.j.fio_version = "fio-3.23";  /* outside the buggy range: a real (awful) outlier, p99 still judged */
    assert_int_equal(judge1(&t, &o), FIOR_PASS);
    t.j.fio_version = "fio-3.33";
    t.j.ioengine = "sync";  /* a sync engine is not affected */
    assert_int_equal(judge1(&t, &o), FIOR_PASS);
    t.j.ioengine = NULL;
    t.j.max_ns = 50 * MS;  /* plausible max */
    assert_int_equal(judge1(&t, &o), FIOR_PASS);
}

static void no_sync_not_judged(void **state)
{
    (void)state;
    tjob t;
    fior__judged o;
    mk(&t, 0, NULL, NULL);
    t.j.has_sync = 0;
    t.j.samples = 0;
    t.j.min_ns = t.j.max_ns = 0;
    assert_int_equal(judge1(&t, &o), FIOR_NOT_JUDGED);
    t.j.has_sync = 1;  /* a sync block with N=0 is the same */
    assert_int_equal(judge1(&t, &o), FIOR_NOT_JUDGED);
    t.j.max_ns = 5 * MS;  /* but "no syncs" beside a sync latency contradicts itself */
    assert_int_equal(judge1(&t, &o), FIOR_UNKNOWN);
    t.j.has_sync = 0;
    assert_int_equal(judge1(&t, &o), FIOR_UNKNOWN);
    t.j.max_ns = 0;
    t.j.has_sync = 1;
    t.j.sync_requested = 1;  /* but asked-for syncs that left no latency cannot pass as "nothing to see" */
    assert_int_equal(judge1(&t, &o), FIOR_UNKNOWN);
    t.j.sync_requested = 0;
    t.j.latency_untimed = 1;
    assert_int_equal(judge1(&t, &o), FIOR_UNKNOWN);
}

static void neighbours(void **state)
{
    (void)state;
    tjob t;
    fior__judged o;
    /* p99 missing; p99.5 below the threshold proves p99 below it */
    mk(&t, 2, (double[]){95.0, 99.5}, (uint64_t[]){1 * MS, 5 * MS});
    assert_int_equal(judge1(&t, &o), FIOR_PASS);
    assert_int_equal(o.j.value_ns, 5 * MS);
    assert_string_equal(o.reason, "p99.5 5 ms < 10 ms proves p99 < 10 ms (WAL fdatasync); a disk inferred, not shown");
    /* p95 at or above the threshold proves p99 above it */
    mk(&t, 2, (double[]){95.0, 99.5}, (uint64_t[]){12 * MS, 20 * MS});
    assert_int_equal(judge1(&t, &o), FIOR_FAIL);
    assert_int_equal(o.j.value_ns, 12 * MS);
    /* p95 below, p99.5 above: undecided */
    mk(&t, 2, (double[]){95.0, 99.5}, (uint64_t[]){5 * MS, 12 * MS});
    assert_int_equal(judge1(&t, &o), FIOR_UNKNOWN);
    assert_false(o.j.value_known);
    /* only lower percentiles below the threshold: undecided */
    mk(&t, 2, (double[]){50.0, 90.0}, (uint64_t[]){1 * MS, 2 * MS});
    assert_int_equal(judge1(&t, &o), FIOR_UNKNOWN);
    /* only higher percentiles above: undecided */
    mk(&t, 1, (double[]){99.9}, (uint64_t[]){40 * MS});
    assert_int_equal(judge1(&t, &o), FIOR_UNKNOWN);
    /* a list that is not ascending proves both: refuse */
    mk(&t, 2, (double[]){95.0, 99.5}, (uint64_t[]){30 * MS, 1 * MS});
    assert_int_equal(judge1(&t, &o), FIOR_UNKNOWN);
}

static void print_resolution(void **state)
{
    (void)state;
    tjob t;
    fior__judged o;
    /* "99.00th=[   10]" in msec: fio's value is anywhere in (9, 11) ms -> cannot decide against 10 ms */
    mk(&t, 1, (double[]){99.0}, (uint64_t[]){10 * MS});
    t.j.pct_resolution_ns = MS;
    assert_int_equal(judge1(&t, &o), FIOR_UNKNOWN);
    assert_non_null(strstr(o.reason, "(fio's histogram bucket and print unit)"));
    /* "9": fio's value below 10 ms, but its bucket may reach 10.09 ms */
    t.p[0].ns = 9 * MS;
    assert_int_equal(judge1(&t, &o), FIOR_UNKNOWN);
    t.p[0].ns = 8 * MS;  /* below 9 ms, bucket below 9.05 ms */
    assert_int_equal(judge1(&t, &o), FIOR_PASS);
    t.p[0].ns = 11 * MS;  /* above 10 ms, but its bucket may start at 9.96 ms */
    assert_int_equal(judge1(&t, &o), FIOR_UNKNOWN);
    t.p[0].ns = 12 * MS;
    assert_int_equal(judge1(&t, &o), FIOR_FAIL);
    /* usec: 9999 usec printed is at most 9.999999 ms, in a bucket that reaches 10.09 ms */
    t.j.pct_resolution_ns = 1000;
    t.p[0].ns = 9999000;
    assert_int_equal(judge1(&t, &o), FIOR_UNKNOWN);
    t.p[0].ns = 9900000;
    assert_int_equal(judge1(&t, &o), FIOR_PASS);
    t.p[0].ns = 10001000;
    assert_int_equal(judge1(&t, &o), FIOR_UNKNOWN);
    t.p[0].ns = 10100000;
    assert_int_equal(judge1(&t, &o), FIOR_FAIL);
}

/* fio prints a percentile as the middle of its bin: a p99 may stand above the exact max. The verdict is the
 * bin's; the figure the reason prints (and value_ns) is held at the max. A percentile whose whole bin lies
 * above the max is an edited input: unknown, never a figure on the other side of the threshold. */
static void quantile_within_max(void **state)
{
    (void)state;
    tjob t;
    fior__judged o;
    /* bin [5111808, 5177343]: middle 5144576 (5.14 ms); the max 5112000 (5.11 ms) lies in it */
    mk(&t, 1, (double[]){99.0}, (uint64_t[]){5144576});
    t.j.max_ns = 5112000;
    assert_int_equal(judge1(&t, &o), FIOR_PASS);
    assert_int_equal(o.j.value_ns, 5112000);
    assert_non_null(strstr(o.reason, "5.11 ms"));
    assert_null(strstr(o.reason, "5.14 ms"));
    /* a failing p99 stays at or above the threshold when held: its bin starts at or above it, so does the max */
    mk(&t, 1, (double[]){99.0}, (uint64_t[]){12 * MS});
    t.j.max_ns = 12 * MS - 1000;
    assert_int_equal(judge1(&t, &o), FIOR_FAIL);
    assert_int_equal(o.j.value_ns, 12 * MS - 1000);
    /* the max below the p99's bin: the input contradicts itself */
    mk(&t, 1, (double[]){99.0}, (uint64_t[]){12 * MS});
    t.j.max_ns = 9 * MS;
    assert_int_equal(judge1(&t, &o), FIOR_UNKNOWN);
    assert_non_null(strstr(o.reason, "above the max"));
    /* no max in the input: the listed figure as it is */
    mk(&t, 1, (double[]){99.0}, (uint64_t[]){5144576});
    t.j.max_ns = 0;
    assert_int_equal(judge1(&t, &o), FIOR_PASS);
    assert_int_equal(o.j.value_ns, 5144576);
}

static void custom_criteria(void **state)
{
    (void)state;
    tjob t;
    fior__judged o;
    mk(&t, 3, (double[]){99.0, 99.9, 99.99}, (uint64_t[]){2 * MS, 8 * MS, 30 * MS});
    fior_criteria *c = fior_criteria_new();
    assert_non_null(c);  /* (the defaults and the setters' refusals: test_abi.c) */
    assert_int_equal(fior_criteria_set_percentile(c, 99.9), FIOR_OK);
    assert_int_equal(fior__judge_job(&t.j, c, &o), FIOR_PASS);
    assert_string_equal(o.reason, "p99.9 8 ms < 10 ms (WAL fdatasync); a disk inferred, not shown");
    assert_int_equal(fior_criteria_set_percentile(c, 99.99), FIOR_OK);
    assert_int_equal(fior__judge_job(&t.j, c, &o), FIOR_FAIL);
    assert_int_equal(fior_criteria_set_percentile(c, 99.0), FIOR_OK);
    assert_int_equal(fior_criteria_set_threshold(c, FIOR_ROLE_WAL, 1 * MS), FIOR_OK);
    assert_int_equal(fior__judge_job(&t.j, c, &o), FIOR_FAIL);
    assert_int_equal(fior_criteria_set_threshold(c, FIOR_ROLE_WAL, 10 * MS), FIOR_OK);
    assert_int_equal(fior_criteria_set_min_samples(c, 5000), FIOR_OK);
    assert_int_equal(fior__judge_job(&t.j, c, &o), FIOR_UNKNOWN);
    assert_int_equal(fior_criteria_set_min_samples(c, 100), FIOR_OK);
    assert_int_equal(fior_criteria_set_percentile(c, 100.0), FIOR_E_INVAL); /* out of range: refused */
    assert_true(fior_criteria_percentile(c) == 99.0);
    assert_int_equal(fior__judge_job(NULL, NULL, &o), FIOR_UNKNOWN);
    assert_int_equal(fior__judge_job(&t.j, c, &o), FIOR_PASS);
    fior_criteria_free(c);
}

static void overall_from_report(void **state)
{
    (void)state;
    /* the overall rule, on two-job fio JSON documents (p99 of job a, of job b; 0: no percentile) */
    static const struct { uint64_t a, b; fior_verdict v; } cases[] = {
        {1 * MS, 2 * MS, FIOR_PASS}, {1 * MS, 20 * MS, FIOR_FAIL}, {1 * MS, 0, FIOR_UNKNOWN}, {0, 20 * MS, FIOR_FAIL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char doc[1024], pa[64] = "", pb[64] = "";
        if (cases[i].a)
            snprintf(pa, sizeof pa, ", \"percentile\": {\"99.000000\": %llu}", (unsigned long long)cases[i].a);
        if (cases[i].b)
            snprintf(pb, sizeof pb, ", \"percentile\": {\"99.000000\": %llu}", (unsigned long long)cases[i].b);
        snprintf(doc, sizeof doc,
                 "{\"jobs\": [{\"jobname\": \"a\", \"error\": 0, \"sync\": {\"lat_ns\": {\"N\": 500, \"max\": 90000000%s}}},\n"
                 "{\"jobname\": \"b\", \"error\": 0, \"sync\": {\"lat_ns\": {\"N\": 500, \"max\": 90000000%s}}}]}\n",
                 pa, pb);
        fior_report *r = fior_report_new();
        assert_int_equal(fior_parse_buffer(r, "doc", doc, strlen(doc)), FIOR_OK);
        fior_result *res = fior_judge(r, NULL);
        assert_int_equal(fior_result_verdict(res), cases[i].v);
        assert_int_equal(fior_result_count(res), 2);
        fior_result_free(res);
        fior_report_free(r);
    }
    fior_report *r = fior_report_new();  /* nothing at all: UNKNOWN */
    fior_result *res = fior_judge(r, NULL);
    assert_int_equal(fior_result_verdict(res), FIOR_UNKNOWN);
    assert_int_equal(fior_result_count(res), 0);
    assert_null(fior_result_job(res, 0));
    fior_result_free(res);
    fior_report_free(r);
    assert_string_equal(fior_verdict_name(FIOR_NOT_JUDGED), "not judged");
    assert_string_equal(fior_verdict_name(FIOR_PASS), "pass");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(thresholds_by_role),
        cmocka_unit_test(forced_unknown),
        cmocka_unit_test(libaio_versions),
        cmocka_unit_test(async_failed_syncs),
        cmocka_unit_test(garbage_signature_without_engine),
        cmocka_unit_test(no_sync_not_judged),
        cmocka_unit_test(neighbours),
        cmocka_unit_test(print_resolution),
        cmocka_unit_test(quantile_within_max),
        cmocka_unit_test(custom_criteria),
        cmocka_unit_test(overall_from_report),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
