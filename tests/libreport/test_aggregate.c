/* SPDX-License-Identifier: MIT */
/* test_aggregate.c — the one aggregation of jobs into runs, hosts and the overall verdict, one test per
 * rule: the library's rule (libreport/aggregate.c: fior_verdict_combine, fior_verdict_overall, and
 * fior_result_verdict that uses it), the result model's host and run verdicts that ask it (tools/result.c
 * result_jobs_verdict, result_finish), the reader's rule for which text beside JSON is the same run
 * (libreport/readers.c: within 1 % + 1 us, else another run, judged too), and the end rule's guard where
 * the sequential bound and the library's judgement of the final document disagree (libreport/monitor_end.c).
 * Each of these fails when its rule is loosened: a host with nothing judged counted as PASS, the same-jobs
 * tolerance at 10 %, the guard dropped. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "check.h"
#include "fiojson.h"
#include "result.h"
#include "tslurp.h"

#define V(...) ((const fior_verdict[]){__VA_ARGS__}), sizeof((const fior_verdict[]){__VA_ARGS__}) / sizeof(fior_verdict)

/* rule 1: any FAIL fails the host, whatever else is there */
static void fail_wins(void **state)
{
    (void)state;
    assert_int_equal(fior_verdict_combine(V(FIOR_PASS, FIOR_FAIL, FIOR_UNKNOWN, FIOR_NOT_JUDGED)), FIOR_FAIL);
    assert_int_equal(fior_verdict_overall(V(FIOR_PASS, FIOR_UNKNOWN, FIOR_FAIL)), FIOR_FAIL);
}

/* rule 2: an UNKNOWN job (or a value this version does not know) makes the host UNKNOWN, never PASS */
static void unknown_beats_pass(void **state)
{
    (void)state;
    assert_int_equal(fior_verdict_combine(V(FIOR_PASS, FIOR_UNKNOWN)), FIOR_UNKNOWN);
    assert_int_equal(fior_verdict_combine(V(FIOR_PASS, (fior_verdict)77)), FIOR_UNKNOWN);
    assert_int_equal(fior_verdict_overall(V(FIOR_PASS, FIOR_UNKNOWN)), FIOR_UNKNOWN);
}

/* rule 3: a host (or report) with nothing judged is UNKNOWN: every job NOT_JUDGED, or no job */
static void nothing_judged_is_unknown(void **state)
{
    (void)state;
    assert_int_equal(fior_verdict_combine(V(FIOR_NOT_JUDGED, FIOR_NOT_JUDGED)), FIOR_UNKNOWN);
    assert_int_equal(fior_verdict_combine(NULL, 0), FIOR_UNKNOWN);
    /* the result model asks the library: a host whose jobs are all not judged */
    result_run r;
    result_init(&r, "verdict", NULL);
    result_host *h = result_add_host(&r);
    result_job *j = result_add_job(h);
    j->verdict = FIOR_NOT_JUDGED;
    assert_int_equal(result_jobs_verdict(h), FIOR_UNKNOWN);
    h->verdict = result_jobs_verdict(h);
    result_finish(&r);
    assert_int_equal(r.verdict, FIOR_UNKNOWN);
    result_host *empty = result_add_host(&r); /* a host with no job at all */
    assert_int_equal(result_jobs_verdict(empty), FIOR_UNKNOWN);
    result_free(&r);
    /* and the library's own overall verdict of a report with nothing judged */
    fior_report *rep = fior_report_new();
    assert_int_equal(fior_parse_file(rep, TEST_FIXTURES "/fio/fio-3.33-nosync.json"), FIOR_OK);
    fior_result *res = fior_judge(rep, NULL);
    assert_int_equal(fior_result_verdict(res), FIOR_UNKNOWN);
    fior_result_free(res);
    fior_report_free(rep);
}

/* rule 4: NOT_JUDGED jobs beside judged ones are left out */
static void not_judged_left_out(void **state)
{
    (void)state;
    assert_int_equal(fior_verdict_combine(V(FIOR_PASS, FIOR_NOT_JUDGED)), FIOR_PASS);
}

/* rule 5: hosts into the overall verdict: no host, or a host that is itself not judged, is UNKNOWN */
static void overall_needs_every_host(void **state)
{
    (void)state;
    assert_int_equal(fior_verdict_overall(NULL, 0), FIOR_UNKNOWN);
    assert_int_equal(fior_verdict_overall(V(FIOR_PASS, FIOR_NOT_JUDGED)), FIOR_UNKNOWN);
    assert_int_equal(fior_verdict_overall(V(FIOR_PASS, FIOR_PASS)), FIOR_PASS);
    result_run r;
    result_init(&r, "fleet", NULL);
    result_finish(&r);
    assert_int_equal(r.verdict, FIOR_UNKNOWN);
    result_add_host(&r)->verdict = FIOR_PASS;
    result_add_host(&r)->verdict = FIOR_NOT_JUDGED;
    result_finish(&r);
    assert_int_equal(r.verdict, FIOR_UNKNOWN);
    result_free(&r);
}

/* rule 6: fio's normal text beside its JSON is the same run only when each job's figures agree within
 * 1 % + 1 us (text prints microseconds): a text p99 5 % off is another run, judged too */
static void text_beside_json_same_within_1_percent(void **state)
{
    (void)state;
    size_t len;
    char *buf = slurp(TEST_FIXTURES "/fio/fio-3.33-normal-json.txt", &len);
    assert_non_null(buf);
    fior_report *r = fior_report_new();
    assert_int_equal(fior_parse_buffer(r, "same", buf, len), FIOR_OK);
    assert_int_equal(fior_report_njobs(r), 1); /* the text half is the JSON's run */
    fior_report_free(r);
    char *p = strstr(buf, "99.00th=[  465]");
    assert_non_null(p);
    memcpy(p, "99.00th=[  490]", 15); /* 464896 ns in the JSON: 5.4 % off */
    r = fior_report_new();
    assert_int_equal(fior_parse_buffer(r, "other", buf, len), FIOR_OK);
    assert_int_equal(fior_report_njobs(r), 2); /* another run, kept and judged */
    assert_int_equal(fior_report_job(r, 1)->run, 1);
    fior_report_free(r);
    memcpy(p, "99.00th=[  468]", 15); /* within 1 % + 1 us: fio's rounding, the same run */
    r = fior_report_new();
    assert_int_equal(fior_parse_buffer(r, "rounded", buf, len), FIOR_OK);
    assert_int_equal(fior_report_njobs(r), 1);
    fior_report_free(r);
    free(buf);
}

/* The WAL job's (the first job's) listed p99 and above set to 12 ms, and its max with them (a p99 above the
 * max is an input that contradicts itself, refused before this rule), the bins left as they are; frees doc. */
static __attribute__((noinline)) char *lift_tail(char *doc)
{
    static const char *const keys[] = {"\"99.000000\" : ", "\"99.500000\" : ", "\"99.900000\" : ",
                                       "\"99.950000\" : ", "\"99.990000\" : ", "\"max\" : "};
    size_t n = strlen(doc);
    char *out = malloc(n + 64), *o = out;
    const char *end_first = strstr(doc, "\"etcd-backend\"");
    assert_non_null(end_first);
    for (const char *q = doc; *q;) {
        int hit = -1;
        for (int k = 0; k < 6 && q < end_first; k++)
            if (!strncmp(q, keys[k], strlen(keys[k])))
                hit = k;
        if (hit < 0) {
            *o++ = *q++;
            continue;
        }
        o += sprintf(o, "%s12000000", keys[hit]);
        q += strlen(keys[hit]);
        while (*q >= '0' && *q <= '9')
            q++;
    }
    *o = '\0';
    free(doc);
    return out;
}

/* rule 7 (check's end): the bound decided PASS on the bins, but fio's own p99 in the same final document
 * says FAIL — a document that contradicts itself is no verdict */
static void bound_and_library_disagree(void **state)
{
    (void)state;
    static const uint64_t wal[][2] = {{1000000, 3000}, {2000000, 15}}, be[][2] = {{3000000, 1000}};
    fj_job jobs[2] = {{"etcd-wal", "wal", NULL, 0, wal, 2}, {"etcd-backend", "backend", NULL, 0, be, 1}};
    char *fixed = lift_tail(fj_doc(jobs, 2, 0));
    fior_report *rep = fior_report_new();
    assert_int_equal(fior_parse_buffer(rep, "t.json", fixed, strlen(fixed)), FIOR_OK);
    fior_monitor *m = fior_monitor_new(NULL);
    fior_advice a;
    assert_int_equal(fior_monitor_feed(m, rep, 1, &a), FIOR_OK);
    assert_int_equal(fior_monitor_overall(m), FIOR_DEC_PASS); /* the bins */
    check_end e = {.started = 1, .state = PROC_EXITED, .stop = CHECK_DECIDED, .stop_level = 1, .complete = 1,
                   .duration_s = 5, .runtime_s = 60};
    result_run r;
    result_init(&r, "check", NULL);
    result_host *h = result_add_host(&r);
    check_judge(rep, m, &e, h);
    assert_int_equal(h->verdict, FIOR_UNKNOWN);
    if (!strstr(h->reason, "the confidence bound says pass but fio's own p99 says fail; cannot judge"))
        fail_msg("%s", h->reason);
    result_free(&r);
    fior_monitor_free(m);
    fior_report_free(rep);
    free(fixed);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fail_wins),
        cmocka_unit_test(unknown_beats_pass),
        cmocka_unit_test(nothing_judged_is_unknown),
        cmocka_unit_test(not_judged_left_out),
        cmocka_unit_test(overall_needs_every_host),
        cmocka_unit_test(text_beside_json_same_within_1_percent),
        cmocka_unit_test(bound_and_library_disagree),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
