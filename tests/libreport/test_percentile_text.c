/* SPDX-License-Identifier: MIT */
/* test_percentile_text.c — a reason names the percentile the criteria ask for, never a p99 of its own: an
 * embedder who asks for p99.9 reads "p99.9" in every reason that names a percentile — of fior_judge on every
 * fixture, of one look (fior_look_bins), and of the monitor's end (decided, too few samples, undecided,
 * accepted as a point estimate, interrupted, no bins). The library's reasons name no CLI option. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "fioreport_cli.h"
#include "fiojson.h"

/* 1 when s names p99 itself ("p99" not followed by '.' or a digit) or a CLI option ("--") */
static int says_other(const char *s)
{
    for (const char *p = s; (p = strstr(p, "p99")); p += 3)
        if (p[3] != '.' && (p[3] < '0' || p[3] > '9'))
            return 1;
    return strstr(s, "--accept") != NULL;
}

static int names_it(const char *s)
{
    return strstr(s, "p99.9") != NULL;
}

static fior_criteria *p999(void)
{
    fior_criteria *c = fior_criteria_new();
    assert_int_equal(fior_criteria_set_percentile(c, 99.9), FIOR_OK);
    return c;
}

static size_t named, reasons;

static void check_reason(const char *where, const char *why)
{
    reasons++;
    if (says_other(why))
        fail_msg("%s: a reason names another percentile or a CLI option: %s", where, why);
    named += names_it(why);
}

static void judge_file(const char *path, const fior_criteria *c)
{
    fior_report *r = fior_report_new();
    if (fior_parse_file(r, path) == FIOR_OK) {
        fior_result *res = fior_judge(r, c);
        assert_non_null(res);
        for (size_t i = 0; i < fior_result_count(res); i++)
            check_reason(path, fior_result_job(res, i)->reason);
        fior_result_free(res);
    }
    fior_report_free(r);
}

static void walk(const char *dir, const fior_criteria *c)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.' || strstr(e->d_name, ".md"))
            continue;
        char p[4096];
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        struct stat st;
        if (stat(p, &st) != 0)
            continue;
        if (S_ISDIR(st.st_mode))
            walk(p, c);
        else if (S_ISREG(st.st_mode))
            judge_file(p, c);
    }
    closedir(d);
}

/* every fixture judged at p99.9: no reason names p99 alone, and many name p99.9 */
static void fixtures(void **state)
{
    (void)state;
    fior_criteria *c = p999();
    named = reasons = 0;
    walk(TEST_FIXTURES, c);
    fior_criteria_free(c);
    print_message("%zu reasons, %zu name p99.9\n", reasons, named);
    assert_true(reasons >= 100);
    assert_true(named >= reasons / 3);
}

/* one look at bins whose p99.9 bound straddles the threshold, and at bins without enough samples */
static void one_look(void **state)
{
    (void)state;
    fior_criteria *c = p999();
    fior_bin bins[3] = {{1000000, 2990}, {9000000, 4}, {12000000, 3}};
    fior_look *k = NULL;
    assert_int_equal(fior_look_bins(bins, 3, c, FIOR_ROLE_WAL, 0.95, 0, &k), FIOR_OK);
    assert_int_equal(k->verdict, FIOR_UNKNOWN);
    check_reason("look", k->why);
    assert_true(names_it(k->why));
    fior_look_free(k);
    fior_criteria_free(c);
}

/* a report of one document with the WAL's and the backend's bins */
static fior_report *doc(const uint64_t (*wal)[2], size_t nw, const uint64_t (*be)[2], size_t nb)
{
    fj_job jobs[2] = {{"etcd-wal", "wal", NULL, 0, wal, nw}, {"etcd-backend", "backend", NULL, 0, be, nb}};
    char *d = fj_doc(jobs, 2, 0);
    fior_report *r = fior_report_new();
    assert_int_equal(fior_parse_buffer(r, "t.json", d, strlen(d)), FIOR_OK);
    free(d);
    return r;
}

/* a monitored run fed `steps` documents (each adds dw WAL syncs at w ns, db backend commits at b ns) and
 * ended with facts f: every reason of its outcome names p99.9 and no other percentile */
static void monitored(const char *what, int accept, unsigned steps, uint64_t dw, uint64_t db, const uint64_t w[2],
                      const uint64_t b[2], const fior__run_facts *f, fior_verdict want)
{
    fior_criteria *c = p999();
    fior_monitor *m = fior_monitor_new(c);
    fior_criteria_free(c);
    assert_non_null(m);
    assert_int_equal(fior_monitor_set_accept_point(m, accept), FIOR_OK);
    uint64_t wb[2][2] = {{w[0], 0}, {w[1], 0}}, bb[2][2] = {{b[0], 0}, {b[1], 0}};
    for (unsigned t = 1; t <= steps; t++) {
        wb[0][1] += dw - dw / 100;
        wb[1][1] += dw / 100;
        bb[0][1] += db - db / 100;
        bb[1][1] += db / 100;
        fior_report *r = doc(wb, 2, bb, 2);
        assert_int_equal(fior_monitor_feed(m, r, t, NULL), FIOR_OK);
        fior_report_free(r);
    }
    fior_report *fin = doc(wb, 2, bb, 2);
    fior_outcome *o = fior__monitor_end(m, fin, f);
    fior_report_free(fin);
    assert_non_null(o);
    const char *why = fior_outcome_reason(o);
    print_message("%s: %s: %s\n", what, fior_verdict_name(fior_outcome_verdict(o)), why);
    assert_int_equal(fior_outcome_verdict(o), want);
    check_reason(what, why);
    if (!names_it(why))
        fail_msg("%s: the reason does not name p99.9: %s", what, why);
    check_reason(what, fior_outcome_role_reason(o, FIOR_ROLE_WAL));
    check_reason(what, fior_outcome_role_reason(o, FIOR_ROLE_BACKEND));
    fior_outcome_free(m ? o : NULL);
    fior_monitor_free(m);
}

static void monitor_end(void **state)
{
    (void)state;
    const fior__run_facts ran = {.size = sizeof ran, .started = 1, .complete = 1, .runtime_s = 60, .duration_s = 60};
    const fior__run_facts stopped = {.size = sizeof stopped, .started = 1, .stop_level = 1, .stop = FIOR_STOP_USER,
                                    .stop_why = "interrupted", .complete = 1, .runtime_s = 60, .duration_s = 5};
    const uint64_t fast[2] = {1000000, 2000000}, slow_tail[2] = {1000000, 12000000};
    /* decided: 1 % of the syncs at 2 ms, all below the threshold */
    monitored("decided", 0, 60, 200, 100, fast, fast, &ran, FIOR_PASS);
    /* too few samples for a p99.9 */
    monitored("too few", 0, 3, 100, 100, fast, fast, &ran, FIOR_UNKNOWN);
    /* 1 % at 12 ms: the p99.9 is above 10 ms, the run too short to show it; then long enough */
    monitored("undecided", 0, 1, 100, 100, slow_tail, fast, &ran, FIOR_UNKNOWN);
    monitored("failed", 0, 20, 200, 100, slow_tail, fast, &ran, FIOR_FAIL);
    monitored("accepted", 1, 2, 60, 60, fast, fast, &ran, FIOR_PASS);
    monitored("interrupted", 0, 2, 60, 10, fast, fast, &stopped, FIOR_UNKNOWN);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fixtures),
        cmocka_unit_test(one_look),
        cmocka_unit_test(monitor_end),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
