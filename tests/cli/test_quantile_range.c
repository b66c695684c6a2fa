/* SPDX-License-Identifier: MIT */
/* test_quantile_range.c — no quantile is shown above the job's max or below its min. fio prints a
 * percentile as the middle of its histogram bin (stat.c plat_idx_to_val), so a p99 can stand above the
 * exact max: fio 3.39's profile.json lists the backend's p99 as 11730944 ns with a max of 11728987 ns.
 * The figure is held within [min, max] once (explain_in_range, the library's fior__job_in_range for its
 * reasons), and every writer shows that one figure: the result model (result_job_fill, result_job_pct), the
 * JSON, the Prometheus textfile, the table, the HTML report and compare's distributions. A synthetic job
 * with a p50 below its min checks the other side. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "explain.h"
#include "out.h"
#include "result.h"

#define P99_BIN 11730944ULL /* fio's listed p99 of etcd-backend (the middle of its bin) */
#define MAX     11728987ULL /* its exact max */

/* A fixture's run as verdict fills it: one host, a job per fio job. */
static void fill_from(result_run *r, fior_report **rep, fior_result **res, const char *path)
{
    *rep = fior_report_new();
    assert_int_equal(fior_parse_file(*rep, path), FIOR_OK);
    *res = fior_judge(*rep, NULL);
    assert_non_null(*res);
    result_init(r, "verdict", NULL);
    result_host *h = result_add_host(r);
    assert_non_null(h);
    for (size_t i = 0; i < fior_report_njobs(*rep); i++)
        result_job_fill(result_add_job(h), fior_report_job(*rep, i), fior_result_job(*res, i));
    h->verdict = result_jobs_verdict(h);
    result_finish(r);
}

static void fill(result_run *r, fior_report **rep, fior_result **res)
{
    fill_from(r, rep, res, TEST_FIXTURES "/fio-3.39/profile.json");
}

static const result_job *backend(const result_run *r)
{
    for (size_t i = 0; i < r->hosts[0].njobs; i++)
        if (r->hosts[0].jobs[i].role == FIOR_ROLE_BACKEND)
            return &r->hosts[0].jobs[i];
    fail_msg("no backend job");
    return NULL;
}

/* the fixture is what this test says it is: fio's listed p99 above its max */
static void fixture_lists_p99_above_max(void **state)
{
    (void)state;
    fior_report *rep = fior_report_new();
    assert_int_equal(fior_parse_file(rep, TEST_FIXTURES "/fio-3.39/profile.json"), FIOR_OK);
    int seen = 0;
    for (size_t i = 0; i < fior_report_njobs(rep); i++) {
        const fior_job *j = fior_report_job(rep, i);
        for (size_t k = 0; j->role == FIOR_ROLE_BACKEND && k < j->npct; k++)
            if (j->pct[k].percent > 98.99 && j->pct[k].percent < 99.01) {
                assert_int_equal(j->pct[k].ns, P99_BIN);
                assert_int_equal(j->max_ns, MAX);
                seen = 1;
            }
    }
    assert_true(seen);
    fior_report_free(rep);
}

static void model_holds_quantiles_at_max(void **state)
{
    (void)state;
    result_run r;
    fior_report *rep;
    fior_result *res;
    fill(&r, &rep, &res);
    const result_job *b = backend(&r);
    assert_int_equal(b->max_ns, MAX);
    assert_int_equal(b->p99_ns, MAX);
    assert_int_equal(b->p999_ns, MAX);
    assert_int_equal(b->judged_ns, MAX); /* the library's judged value, the one its reason prints */
    assert_int_equal(b->verdict, FIOR_PASS); /* the verdict is the bin's, unchanged */
    assert_true(b->p50_ns <= MAX);
    for (size_t i = 0; i < r.hosts[0].njobs; i++) {
        const result_job *j = &r.hosts[0].jobs[i];
        assert_true(j->p50_ns <= j->p99_ns && j->p99_ns <= j->p999_ns && j->p999_ns <= j->max_ns);
    }
    result_free(&r);
    fior_result_free(res);
    fior_report_free(rep);
}

static char *written(int kind, const result_run *r)
{
    char *buf = NULL;
    size_t len = 0;
    if (kind == 2) {
        assert_int_equal(out_prom(r, &buf, &len), 0);
        return buf;
    }
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    if (kind == 0)
        assert_int_equal(out_json(f, r), 0);
    else if (kind == 1)
        out_table(f, r);
    else
        assert_int_equal(out_html(f, r, NULL, NULL), 0);
    fclose(f);
    return buf;
}

/* every writer shows the max's figure where fio's p99 stood, never the bin's middle (exact in the JSON and
 * the textfile); and where three digits tell them apart (fio 3.23's backend: p99.9 44302336 ns listed,
 * max 44224522 ns), the table and the HTML show 44.2 ms, never 44.3 */
static void writers_show_the_held_figure(void **state)
{
    (void)state;
    static const char *const name[] = {"json", "table", "prom", "html"};
    for (int fx = 0; fx < 2; fx++) {
        result_run r;
        fior_report *rep;
        fior_result *res;
        fill_from(&r, &rep, &res, fx ? TEST_FIXTURES "/fio-3.23/profile.json" : TEST_FIXTURES "/fio-3.39/profile.json");
        r.verbose = 1; /* the table with every reason */
        for (int k = 0; k < 4; k++) {
            char *out = written(k, &r);
            assert_non_null(out);
            const char *bad = fx ? (k == 1 || k == 3 ? "44.3 ms" : k == 0 ? "44302336" : "0.044302336")
                                 : (k == 0 ? "11730944" : k == 2 ? "0.011730944" : NULL);
            if (bad && strstr(out, bad))
                fail_msg("%s shows a quantile above the max (%s):\n%s", name[k], bad, out);
            if (fx && (k == 1 || k == 3))
                assert_non_null(strstr(out, "44.2 ms"));
            if (!fx && k == 0) {
                assert_non_null(strstr(out, "\"p99_ns\": 11728987"));
                assert_non_null(strstr(out, "\"judged_ns\": 11728987"));
            }
            if (!fx && k == 2)
                assert_non_null(strstr(out, "etcd_fio_backend_commit_p99_seconds{"));
            free(out);
        }
        result_free(&r);
        fior_result_free(res);
        fior_report_free(rep);
    }
}

/* compare's distributions (explain_dist_from_job) and capacity's p99s (result_job_pct) hold it too */
static void compare_and_capacity_hold_it(void **state)
{
    (void)state;
    fior_report *rep = fior_report_new();
    assert_int_equal(fior_parse_file(rep, TEST_FIXTURES "/fio-3.39/profile.json"), FIOR_OK);
    fior_result *res = fior_judge(rep, NULL);
    for (size_t i = 0; i < fior_report_njobs(rep); i++) {
        const fior_job *j = fior_report_job(rep, i);
        explain_dist d;
        memset(&d, 0, sizeof d);
        explain_dist_from_job(&d, j, fior_result_job(res, i), 100);
        const explain_range *q[3] = {&d.p50, &d.p99, &d.p999};
        for (int k = 0; k < 3; k++)
            assert_true(q[k]->known && q[k]->hi <= j->max_ns && q[k]->lo >= j->min_ns);
        assert_true(result_job_pct(j, 99.0) <= j->max_ns);
        if (j->role == FIOR_ROLE_BACKEND)
            assert_int_equal(result_job_pct(j, 99.0), MAX);
    }
    fior_result_free(res);
    fior_report_free(rep);
}

/* the other side: a p50 listed below the min (the middle of a bin the min sits in the upper half of) is
 * shown at the min; bucketed jobs (etcd's histograms, no exact max) are left as they are */
static void min_side_and_bucketed(void **state)
{
    (void)state;
    fior_pct p[3] = {{50.0, 100000}, {99.0, 5144576}, {99.9, 5144576}};
    fior_job j;
    memset(&j, 0, sizeof j);
    j.size = sizeof j;
    j.name = "synthetic";
    j.role = FIOR_ROLE_WAL;
    j.has_sync = 1;
    j.samples_known = 1;
    j.samples = 2000;
    j.min_ns = 110000;
    j.max_ns = 5112000;
    j.pct = p;
    j.npct = 3;
    assert_int_equal(explain_in_range(&j, 100000), 110000);
    assert_int_equal(explain_in_range(&j, 5144576), 5112000);
    assert_int_equal(explain_in_range(&j, 2000000), 2000000);
    assert_int_equal(explain_in_range(&j, UINT64_MAX), UINT64_MAX);
    result_job o;
    result_job_init(&o);
    result_job_fill(&o, &j, NULL);
    assert_int_equal(o.p50_ns, 110000);
    assert_int_equal(o.p99_ns, 5112000);
    assert_int_equal(o.p999_ns, 5112000);
    j.max_ns = 0; /* no max in the input: nothing to hold it to */
    assert_int_equal(explain_in_range(&j, 5144576), 5144576);
    j.max_ns = 5112000;
    j.bucketed = 1;
    assert_int_equal(explain_in_range(&j, 5144576), 5144576);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fixture_lists_p99_above_max),
        cmocka_unit_test(model_holds_quantiles_at_max),
        cmocka_unit_test(writers_show_the_held_figure),
        cmocka_unit_test(compare_and_capacity_hold_it),
        cmocka_unit_test(min_side_and_bucketed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
