/* SPDX-License-Identifier: MIT */
/* test_explain_fixtures.c — every explain rule over every committed input (tests/fixtures): read and judged
 * by the library, explained the way `verdict` does (result_explain_report) and the way check/fleet do from the
 * result model (result_explain_jobs), then held to what explain.h promises:
 *   - a rule speaks only of a distribution whose verdict it fits (no headroom on a FAIL, no slow-* on a PASS,
 *     no shape at all on an UNKNOWN: its data is not trusted);
 *   - stalls cites a quantile with at least EXPLAIN_STALL_MIN_BEYOND samples beyond it, never the max, and
 *     on a PASS only a tail at or above the threshold; never "not a slow disk" on a FAIL;
 *   - a line on a passing figure advises no change unless it says "headroom" (or its figure is over T);
 *   - a PASS result has no line of a failing or unknown kind;
 *   - every UNKNOWN result's last line names a command to run (etcd-fio ...), every UNKNOWN line too, and
 *     no command names a directory in memory (/dev/shm: the check would refuse it).
 * It prints the table of rules x verdicts it saw. */
#define _XOPEN_SOURCE 700
#include <ftw.h>
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
#include "result.h"

#define MAX_RULES 32

typedef struct tally {
    const char *rule[MAX_RULES];
    unsigned    n[MAX_RULES][4]; /* by the result's verdict */
    size_t      nrules;
    unsigned    files, unreadable, by_verdict[4];
} tally;

static tally T;
static char  current[4096];

static void count(const char *rule, fior_verdict v)
{
    size_t i = 0;
    while (i < T.nrules && strcmp(T.rule[i], rule))
        i++;
    if (i == T.nrules) {
        assert_true(T.nrules < MAX_RULES);
        T.rule[T.nrules++] = rule;
    }
    T.n[i][v]++;
}

static int is(const char *rule, const char *const *set)
{
    for (; *set; set++)
        if (!strcmp(rule, *set))
            return 1;
    return 0;
}

static const char *const PASS_RULES[] = {"headroom", "thin-margin", NULL};
static const char *const FAIL_RULES[] = {"slow-throughout", "slow-tail", "backend-only", "not-the-disk",
                                         "check-perf-fail", NULL};
static const char *const UNKNOWN_RULES[] = {"too-few-samples", "no-count", "bucket-straddle", "undecided", NULL};

#define CHECK(cond, ...)                                                                                        \
    do {                                                                                                       \
        if (!(cond))                                                                                           \
            fail_msg("%s: " __VA_ARGS__);                                                                      \
    } while (0)

/* A line against the verdict of the distribution it speaks of (on: EXPLAIN_ON(v), 0 for the result's). */
static void line_fits(const explain_line *l)
{
    const char *r = l->rule;
    if (is(r, PASS_RULES))
        CHECK(l->on == EXPLAIN_ON(FIOR_PASS) && strstr(l->why, "below the"), "%s on a non-PASS or not saying "
              "the figure is below the threshold: %s", current, r, l->why);
    if (is(r, FAIL_RULES))
        CHECK(l->on == EXPLAIN_ON(FIOR_FAIL), "%s on a non-FAIL: %s", current, r, l->why);
    if (is(r, UNKNOWN_RULES))
        CHECK(l->on == EXPLAIN_ON(FIOR_UNKNOWN) && !strncmp(l->next, "etcd-fio ", 9), "%s without a command or on "
              "a judged figure: %s", current, r, l->why);
    if (!strcmp(r, "stalls")) {
        CHECK(l->on == EXPLAIN_ON(FIOR_PASS) || l->on == EXPLAIN_ON(FIOR_FAIL), "stalls on an unjudged figure: %s",
              current, l->why);
        CHECK(l->quantile == 99.9 || l->quantile == 99.0, "stalls cites no quantile: %s", current, l->why);
        CHECK(!strstr(l->why, "not a slow disk") && !strstr(l->why, "the max"), "stalls: %s", current, l->why);
    }
    /* a command never points at memory or the kernel's directories (check refuses them) */
    CHECK(!strstr(l->next, "/dev/") && !strstr(l->next, "/dev//") && !strstr(l->next, " /run/"),
          "next names a memory directory: %s", current, l->next);
    if (!strcmp(r, "check-perf-pass"))
        CHECK(l->on == EXPLAIN_ON(FIOR_NOT_JUDGED) && !strncmp(l->next, "etcd-fio ", 9), "%s", current, l->why);
}

/* One distribution alone: the per-distribution rules against its own facts. */
static void dist_fits(const explain_dist *d)
{
    explain_facts f = {d, 1, 0, 0, 0, 10000000, NULL};
    explain_line out[EXPLAIN_MAX_LINES];
    size_t n = explain(&f, out, EXPLAIN_MAX_LINES);
    for (size_t i = 0; i < n; i++) {
        const explain_line *l = &out[i];
        line_fits(l);
        CHECK(l->on == EXPLAIN_ON(d->verdict), "a line about another verdict: %s", current, l->why);
        if (d->verdict == FIOR_UNKNOWN)
            CHECK(is(l->rule, UNKNOWN_RULES), "%s on an UNKNOWN: %s", current, l->rule, l->why);
        if (!strcmp(l->rule, "stalls")) {
            const explain_range *q = l->quantile == 99.9 ? &d->p999 : &d->p99;
            CHECK(d->samples_known && (double)d->samples * (100.0 - l->quantile) / 100.0 >=
                                          EXPLAIN_STALL_MIN_BEYOND - 1e-9,
                  "stalls on %llu samples: %s", current, (unsigned long long)d->samples, l->why);
            /* a PASS: the cited tail is over the threshold (no advice on a figure under it) */
            CHECK(d->verdict == FIOR_FAIL ? q->lo >= d->threshold_ns / EXPLAIN_P50_FINE_DIV
                                          : q->lo >= d->threshold_ns,
                  "stalls on a tail under its threshold: %s", current, l->why);
        }
    }
}

/* A whole result: no line against its verdict; an UNKNOWN ends with a command. */
static void result_fits(const result_run *r)
{
    for (size_t i = 0; i < r->nexplain; i++) {
        const explain_line *l = &r->explain[i];
        line_fits(l);
        count(l->rule, r->verdict);
        if (r->verdict == FIOR_PASS)
            CHECK(!is(l->rule, FAIL_RULES) && !is(l->rule, UNKNOWN_RULES) && l->on != EXPLAIN_ON(FIOR_FAIL) &&
                      l->on != EXPLAIN_ON(FIOR_UNKNOWN),
                  "a PASS explained by %s: %s", current, l->rule, l->why);
        for (size_t j = 0; j < i; j++) /* each line once */
            CHECK(strcmp(r->explain[j].why, l->why) || strcmp(r->explain[j].next, l->next), "said twice: %s",
                  current, l->why);
    }
    if (r->verdict == FIOR_UNKNOWN)
        CHECK(r->nexplain && !strncmp(r->explain[r->nexplain - 1].next, "etcd-fio ", 9),
              "an UNKNOWN that does not end with a command", current);
}

/* The model the way check and fleet fill it: one host, the library's jobs, then their explain. */
static void as_check(const fior_report *rep, const fior_result *res, const fior_criteria *crit)
{
    result_run *r = calloc(1, sizeof *r);
    assert_non_null(r);
    result_init(r, "check", crit);
    r->load = "k8s:100"; /* fleet's: its next commands measure under the run's load */
    result_host *h = result_add_host(r);
    assert_non_null(h);
    snprintf(h->dir, sizeof h->dir, "/srv/etcd data");
    for (size_t i = 0; i < fior_report_njobs(rep); i++) {
        result_job *o = result_add_job(h);
        assert_non_null(o);
        result_job_fill(o, fior_report_job(rep, i), fior_result_job(res, i));
    }
    h->verdict = result_jobs_verdict(h);
    snprintf(h->reason, sizeof h->reason, "from the fixture");
    result_finish(r);
    result_explain_jobs(r, RESULT_UNKNOWN, "ext4", NULL);
    result_explain_finish(r, 1, NULL);
    result_fits(r);
    if (r->verdict == FIOR_UNKNOWN) /* the command names the directory measured, quoted */
        CHECK(strstr(r->explain[r->nexplain - 1].next, "'/srv/etcd data'"), "next: %s", current,
              r->explain[r->nexplain - 1].next);
    for (size_t i = 0; i < r->nexplain; i++)
        if (r->explain[i].next[0])
            CHECK(strstr(r->explain[i].next, "etcd-fio check --load k8s:100 "), "next without the load: %s", current,
                  r->explain[i].next);
    result_free(r);
    free(r);
}

static int one_file(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    size_t len = strlen(path);
    if (type != FTW_F || (len > 3 && !strcmp(path + len - 3, ".md")))
        return 0;
    snprintf(current, sizeof current, "%s", path);
    fior_report *rep = fior_report_new();
    fior_criteria *crit = fior_criteria_new();
    assert_non_null(rep);
    assert_non_null(crit);
    T.files++;
    if (fior_parse_file(rep, path) != FIOR_OK) { /* bad input: an error with its line, not a verdict */
        T.unreadable++;
        fior_report_free(rep);
        fior_criteria_free(crit);
        return 0;
    }
    fior_result *res = fior_judge(rep, crit);
    assert_non_null(res);
    size_t n = fior_report_njobs(rep);
    explain_dist *d = calloc(n ? n : 1, sizeof *d);
    assert_non_null(d);
    for (size_t i = 0; i < n; i++) {
        explain_dist_from_job(&d[i], fior_report_job(rep, i), fior_result_job(res, i), fior_criteria_min_samples(crit));
        dist_fits(&d[i]);
    }
    free(d);
    /* as verdict does */
    result_run *r = calloc(1, sizeof *r);
    assert_non_null(r);
    result_init(r, "verdict", crit);
    r->verdict = fior_result_verdict(res);
    snprintf(r->reason, sizeof r->reason, "from the fixture");
    assert_int_equal(result_explain_report(r, rep, res, crit), 0);
    result_explain_finish(r, 0, NULL);
    T.by_verdict[r->verdict]++;
    result_fits(r);
    result_free(r);
    free(r);
    as_check(rep, res, crit);
    fior_result_free(res);
    fior_report_free(rep);
    fior_criteria_free(crit);
    return 0;
}

static void every_fixture(void **state)
{
    (void)state;
    memset(&T, 0, sizeof T);
    assert_int_equal(nftw(TEST_FIXTURES, one_file, 16, FTW_PHYS), 0);
    /* the committed inputs: ~200 files, nearly all readable, every verdict among them */
    assert_true(T.files >= 150);
    assert_true(T.unreadable * 4 < T.files);
    for (int v = 0; v < 3; v++)
        assert_true(T.by_verdict[v] > 0);
    printf("# %u inputs (%u unreadable); results: %u pass, %u fail, %u unknown, %u not judged\n", T.files,
           T.unreadable, T.by_verdict[FIOR_PASS], T.by_verdict[FIOR_FAIL], T.by_verdict[FIOR_UNKNOWN],
           T.by_verdict[FIOR_NOT_JUDGED]);
    printf("# %-18s %6s %6s %8s %10s   (lines, by the result's verdict; verdict and check adapters)\n", "rule",
           "pass", "fail", "unknown", "not judged");
    for (size_t i = 0; i < T.nrules; i++)
        printf("# %-18s %6u %6u %8u %10u\n", T.rule[i], T.n[i][FIOR_PASS], T.n[i][FIOR_FAIL], T.n[i][FIOR_UNKNOWN],
               T.n[i][FIOR_NOT_JUDGED]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_fixture),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
