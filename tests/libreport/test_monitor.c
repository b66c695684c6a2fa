/* SPDX-License-Identifier: MIT */
/* test_monitor.c — libfioreport's sequential judge through its API (fioreport_monitor.h; check's two
 * phases and the single-look rule through fioreport_cli.h), as callers use it: settings refused with
 * "expected …" and no change; a growing run decided per role as
 * soon as each is known (the WAL while the backend is still undecided), the advice to stop; the WAL
 * question alone; the verdict at the end from the caller's facts; the two phases (phase 1's PASS or FAIL
 * is no verdict unless phase 2 confirmed it); the one bound rule for a single look (fior__bound_decide),
 * including the guard where the bound and the point estimate disagree; and a hostile feed: documents of
 * two runs, or out of order, which the monitor refuses instead of carrying one run's decision into the
 * other. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fioreport_cli.h"
#include "fiojson.h"
#include "tslurp.h"

/* a report of one document: the WAL's and the backend's bins (NULL/0: that job absent) */
static fior_report *doc(const uint64_t (*wal)[2], size_t nw, const uint64_t (*be)[2], size_t nb)
{
    fj_job jobs[2] = {{"etcd-wal", "wal", NULL, 0, wal, nw}, {"etcd-backend", "backend", NULL, 0, be, nb}};
    char *d = fj_doc(nw ? jobs : jobs + 1, (nw ? 1 : 0) + (nb ? 1 : 0), 0);
    fior_report *r = fior_report_new();
    assert_int_equal(fior_parse_buffer(r, "t.json", d, strlen(d)), FIOR_OK);
    free(d);
    return r;
}

static fior_advice feed(fior_monitor *m, const uint64_t (*wal)[2], size_t nw, const uint64_t (*be)[2], size_t nb,
                        double t)
{
    fior_report *r = doc(wal, nw, be, nb);
    fior_advice a = FIOR_GO_ON;
    assert_int_equal(fior_monitor_feed(m, r, t, &a), FIOR_OK);
    fior_report_free(r);
    return a;
}

static fior_answer answer(const fior_monitor *m, fior_role role)
{
    fior_answer a = {.size = sizeof a};
    assert_int_equal(fior_monitor_answer(m, role, &a), FIOR_OK);
    return a;
}

static const fior__run_facts decided_end = {.size = sizeof(fior__run_facts), .started = 1, .stop_level = 1,
                                           .stop = FIOR_STOP_BY_DECISION, .complete = 1, .runtime_s = 60,
                                           .duration_s = 12, .decided_at_s = 11};

static void settings(void **state)
{
    (void)state;
    fior_monitor *m = fior_monitor_new(NULL);
    assert_int_equal(fior_monitor_set_confidence(m, 0.2), FIOR_E_INVAL);
    assert_non_null(strstr(fior_monitor_error(m), "expected a confidence in [0.5, 0.9999]"));
    assert_int_equal(fior_monitor_set_roles(m, 1u << FIOR_ROLE_BACKEND), FIOR_E_INVAL); /* never without the WAL */
    assert_int_equal(fior_monitor_set_confidence(m, 0.99), FIOR_OK);
    static const uint64_t w[][2] = {{1000000, 50}};
    feed(m, w, 1, w, 1, 1);
    assert_int_equal(fior_monitor_set_confidence(m, 0.9), FIOR_E_INVAL); /* fixed once fed */
    assert_int_equal(fior__monitor_set_heavy(m, 1), FIOR_E_INVAL);
    assert_int_equal(answer(m, FIOR_ROLE_WAL).decision, FIOR_DEC_TOO_FEW);
    fior_answer small = {.size = offsetof(fior_answer, samples)}; /* an older, shorter struct: filled that far */
    assert_int_equal(fior_monitor_answer(m, FIOR_ROLE_WAL, &small), FIOR_OK);
    assert_int_equal(small.decision, FIOR_DEC_TOO_FEW);
    assert_int_equal(fior_monitor_answer(m, FIOR_ROLE_CHECK_PERF, &small), FIOR_E_INVAL);
    assert_int_equal(fior_monitor_feed(m, NULL, 1, NULL), FIOR_E_INVAL);
    assert_int_equal(fior__monitor_feed_bins(m, NULL, 5, NULL, 0, 1, NULL), FIOR_E_INVAL); /* a count, no bins */
    assert_int_equal(fior__monitor_feed_bins(NULL, NULL, 0, NULL, 0, 1, NULL), FIOR_E_INVAL);
    assert_int_equal(fior_monitor_answer(NULL, FIOR_ROLE_WAL, &small), FIOR_E_INVAL);
    assert_null(fior__monitor_end(NULL, NULL, NULL));
    assert_int_equal(fior_outcome_verdict(NULL), FIOR_UNKNOWN);
    fior_outcome_free(NULL);
    fior_monitor_free(m);
    fior_monitor_free(NULL);
    assert_string_equal(fior_decision_name(FIOR_DEC_PASS), "pass");
}

/* the WAL is decided long before the backend (10x its samples): its answer is there while the backend runs */
static void each_role_as_soon_as_decided(void **state)
{
    (void)state;
    fior_monitor *m = fior_monitor_new(NULL);
    uint64_t w[1][2] = {{1000000, 0}}, b[1][2] = {{3000000, 0}};
    fior_advice a = FIOR_GO_ON;
    double t = 0;
    while (answer(m, FIOR_ROLE_WAL).decision != FIOR_DEC_PASS && t < 100) {
        t += 1;
        w[0][1] += 200;
        b[0][1] += 10;
        a = feed(m, w, 1, b, 1, t);
    }
    assert_int_equal(answer(m, FIOR_ROLE_WAL).decision, FIOR_DEC_PASS);
    fior_answer bk = answer(m, FIOR_ROLE_BACKEND);
    assert_true(bk.decision == FIOR_DEC_TOO_FEW || bk.decision == FIOR_DEC_UNDECIDED);
    assert_int_equal(a, FIOR_GO_ON); /* both roles asked: not yet */
    fior_answer wa = answer(m, FIOR_ROLE_WAL);
    assert_true(wa.look_hi_ns < wa.threshold_ns && wa.decided_samples > 0 && wa.pass_looks >= 1);
    while (a == FIOR_GO_ON && t < 200) {
        t += 1;
        w[0][1] += 200;
        b[0][1] += 10;
        a = feed(m, w, 1, b, 1, t);
    }
    assert_int_equal(a, FIOR_STOP_DECIDED);
    assert_int_equal(fior_monitor_overall(m), FIOR_DEC_PASS);
    /* every document is a look: each role passes at the first one past 411 samples (test_earlystop.c), the
     * WAL at t = 3 (600), the backend at t = 42 (420) — the halving schedule's first PASS look was at 437,
     * so the backend waited for t = 44 */
    assert_int_equal(answer(m, FIOR_ROLE_WAL).decided_samples, 600);
    assert_int_equal(answer(m, FIOR_ROLE_BACKEND).decided_samples, 420);
    assert_true(t == 42);
    fior_report *fin = doc(w, 1, b, 1);
    fior_outcome *o = fior__monitor_end(m, fin, &decided_end);
    fior_report_free(fin); /* the outcome does not refer to it */
    assert_int_equal(fior_outcome_verdict(o), FIOR_PASS);
    assert_int_equal(fior_outcome_basis(o), FIOR_BASIS_BOUND);
    assert_string_equal(fior_outcome_status(o), "judged");
    assert_non_null(strstr(fior_outcome_reason(o), "decided at 95 % confidence after 600 WAL syncs and 420 backend "
                                                   "commits"));
    assert_int_equal(fior_outcome_role_verdict(o, FIOR_ROLE_BACKEND), FIOR_PASS);
    assert_non_null(fior_outcome_judgement(o, FIOR_ROLE_WAL));
    uint64_t lo, hi;
    assert_int_equal(fior_outcome_bound(o, FIOR_ROLE_WAL, &lo, &hi), FIOR_OK);
    assert_true(hi < 10000000);
    /* the WAL decided at 600 syncs and ran on to 8,400: its line cites the whole run's bound, which holds
     * the whole run's p99 it prints, at the confidence asked */
    assert_true(lo <= 1000000 && 1000000 <= hi);
    assert_true(fior_outcome_bound_confidence(o, FIOR_ROLE_WAL) > 0.95 - 1e-9 &&
                fior_outcome_bound_confidence(o, FIOR_ROLE_WAL) < 0.95 + 1e-9);
    assert_non_null(strstr(fior_outcome_role_reason(o, FIOR_ROLE_WAL), "(95 % bound 1 ms..1 ms)"));
    fior_outcome_free(o);
    fior_monitor_free(m);
}

/* the WAL passes early (1 ms), then gets slow while the backend is measured: by the end, 3 % of its
 * syncs take 20 ms, so the whole run's p99 is 20 ms. Its early PASS is no longer what the run shows: no
 * PASS, and its line says that it passed, when, and what the whole run's bound says instead. */
static void wal_slower_after_its_decision(void **state)
{
    (void)state;
    fior_monitor *m = fior_monitor_new(NULL);
    uint64_t w[2][2] = {{1000000, 0}, {20000000, 0}}, b[1][2] = {{3000000, 0}};
    fior_advice a = FIOR_GO_ON;
    double t = 0;
    while (a == FIOR_GO_ON && t < 100) {
        t += 1;
        w[0][1] += t > 5 ? 190 : 200;
        w[1][1] += t > 5 ? 10 : 0;
        b[0][1] += 10;
        a = feed(m, w, 2, b, 1, t);
    }
    assert_int_equal(answer(m, FIOR_ROLE_WAL).decision, FIOR_DEC_PASS);
    assert_int_equal(a, FIOR_STOP_DECIDED);
    fior_report *fin = doc(w, 2, b, 1);
    fior_outcome *o = fior__monitor_end(m, fin, &decided_end);
    fior_report_free(fin);
    assert_int_equal(fior_outcome_verdict(o), FIOR_UNKNOWN);
    const char *wl = fior_outcome_role_reason(o, FIOR_ROLE_WAL);
    assert_non_null(strstr(wl, "WAL fdatasync p99 20 ms over the whole run"));
    assert_non_null(strstr(wl, "is not below 10 ms: it passed after 600 samples"));
    assert_non_null(strstr(fior_outcome_reason(o), wl));
    uint64_t lo, hi;
    assert_int_equal(fior_outcome_bound(o, FIOR_ROLE_WAL, &lo, &hi), FIOR_OK);
    assert_true(hi < 10000000); /* the decision's bound, which its line cites with its sample count */
    fior_outcome_free(o);
    fior_monitor_free(m);
}

/* a backend slow in one commit of 30 (3.3 %; 10 commits a second, every third second one at 40 ms) fails
 * at the first document where 6 to 22 of 100 to 1000 are above 25 ms (test_earlystop.c): t = 30 (10 of
 * 300). The halving schedule looked at 100, 200, 400 and 800 only, and failed it at 400 (t = 40). */
static void fail_between_the_old_looks(void **state)
{
    (void)state;
    fior_monitor *m = fior_monitor_new(NULL);
    uint64_t w[1][2] = {{1000000, 0}}, b[2][2] = {{3000000, 0}, {40000000, 0}};
    fior_advice a = FIOR_GO_ON;
    int t;
    for (t = 1; a == FIOR_GO_ON && t < 120; t++) {
        w[0][1] += 200;
        b[1][1] += t % 3 == 0;
        b[0][1] += 10 - (t % 3 == 0);
        a = feed(m, w, 1, b, 2, t);
    }
    assert_int_equal(a, FIOR_STOP_DECIDED);
    assert_int_equal(t - 1, 30);
    fior_answer bk = answer(m, FIOR_ROLE_BACKEND);
    assert_int_equal(bk.decision, FIOR_DEC_FAIL);
    assert_int_equal(bk.decided_samples, 300);
    assert_true(bk.look_lo_ns > bk.threshold_ns && bk.look_confidence > 0.95 - 1e-9);
    fior_monitor_free(m);
}

/* --wal-only: a slow backend decides nothing; the WAL's PASS stops the run and is the verdict */
static void wal_only(void **state)
{
    (void)state;
    fior_monitor *m = fior_monitor_new(NULL);
    assert_int_equal(fior_monitor_set_roles(m, 1u << FIOR_ROLE_WAL), FIOR_OK);
    uint64_t w[1][2] = {{1000000, 0}}, b[2][2] = {{3000000, 0}, {90000000, 0}};
    fior_advice a = FIOR_GO_ON;
    for (double t = 1; a == FIOR_GO_ON && t < 100; t++) {
        w[0][1] += 200;
        b[0][1] += 5;
        b[1][1] += 5; /* half the commits at 90 ms: the backend fails */
        a = feed(m, w, 1, b, 2, t);
    }
    assert_int_equal(a, FIOR_STOP_DECIDED);
    assert_int_equal(answer(m, FIOR_ROLE_WAL).decision, FIOR_DEC_PASS);
    fior_report *fin = doc(w, 1, b, 2);
    fior_outcome *o = fior__monitor_end(m, fin, &decided_end);
    assert_int_equal(fior_outcome_verdict(o), FIOR_PASS);
    assert_int_equal(fior_outcome_role_verdict(o, FIOR_ROLE_BACKEND), FIOR_NOT_JUDGED);
    assert_null(strstr(fior_outcome_reason(o), "backend"));
    fior_outcome_free(o);
    fior_report_free(fin);
    fior_monitor_free(m);
}

/* the heavy phase: its PASS stands only when phase 2's probe confirmed it; its FAIL never does */
static fior_outcome *phase1(const uint64_t wal_ns, fior_monitor **keep)
{
    fior_monitor *m = fior_monitor_new(NULL);
    assert_int_equal(fior__monitor_set_heavy(m, 1), FIOR_OK);
    uint64_t w[1][2] = {{wal_ns, 0}}, b[1][2] = {{3000000, 0}};
    fior_advice a = FIOR_GO_ON;
    for (double t = 0.2; a == FIOR_GO_ON && t < 10; t += 0.2) {
        w[0][1] += 400;
        b[0][1] += 300;
        a = feed(m, w, 1, b, 1, t);
    }
    assert_int_equal(a, wal_ns < 10000000 ? FIOR_STOP_DECIDED : FIOR__STOP_PHASE_OVER);
    fior_report *fin = doc(w, 1, b, 1);
    fior_outcome *o = fior__monitor_end(m, fin, &decided_end);
    fior_report_free(fin);
    if (keep)
        *keep = m;
    else
        fior_monitor_free(m);
    return o;
}

static void phases(void **state)
{
    (void)state;
    fior_monitor *m1;
    fior_outcome *o = phase1(1000000, &m1);
    assert_int_equal(fior_outcome_verdict(o), FIOR_PASS); /* the bounds of phase 1 alone */
    o = fior__outcome_phases(o, NULL, 0); /* interrupted before phase 2 */
    assert_int_equal(fior_outcome_verdict(o), FIOR_UNKNOWN);
    assert_string_equal(fior_outcome_status(o), "interrupted");
    assert_non_null(strstr(fior_outcome_reason(o), "before phase 2 confirmed phase 1's pass"));
    assert_int_equal(fior_outcome_role_verdict(o, FIOR_ROLE_WAL), FIOR_UNKNOWN);
    fior_outcome_free(o);

    o = phase1(1000000, NULL);
    o = fior__outcome_phases(o, o, 1); /* the same outcome twice: no confirmation, no double free */
    assert_int_equal(fior__outcome_phase(o), 1);
    assert_int_equal(fior_outcome_verdict(o), FIOR_UNKNOWN);
    fior_outcome_free(o);

    o = phase1(50000000, NULL); /* a FAIL under the heavy load */
    o = fior__outcome_phases(o, NULL, 0);
    assert_int_equal(fior_outcome_verdict(o), FIOR_UNKNOWN);
    assert_non_null(strstr(fior_outcome_reason(o), "phase 1's heavy load can only pass"));
    fior_outcome_free(o);

    /* phase 2 continues phase 1: the probe after FIOR_PROBE_S of WAL samples confirms it */
    fior_monitor *m2 = fior_monitor_new(NULL);
    assert_int_equal(fior__monitor_continue(m2, m1), FIOR_OK);
    assert_int_equal(fior__monitor_continue(m1, m2), FIOR_E_INVAL); /* fed already */
    uint64_t w[1][2] = {{900000, 0}}, b[1][2] = {{2000000, 0}};
    fior_advice a = FIOR_GO_ON;
    double t;
    for (t = 0.2; a == FIOR_GO_ON && t < 10; t += 0.2) {
        w[0][1] += 20;
        b[0][1] += 2;
        a = feed(m2, w, 1, b, 1, t);
    }
    assert_int_equal(a, FIOR__STOP_CONFIRMED);
    assert_true(t >= FIOR_PROBE_S);
    fior__probe p = {.size = sizeof p};
    assert_int_equal(fior__monitor_probe(m2, &p), FIOR_OK);
    assert_true(p.done && p.ok);
    fior_outcome *p1 = phase1(1000000, NULL);
    fior_report *fin = doc(w, 1, b, 1);
    fior_outcome *p2 = fior__monitor_end(m2, fin, &decided_end);
    fior_report_free(fin);
    o = fior__outcome_phases(p1, p2, 1);
    assert_int_equal(fior__outcome_phase(o), 1);
    assert_int_equal(fior_outcome_verdict(o), FIOR_PASS);
    fior_outcome_free(o);
    /* a caller that claims a confirmation phase 2's probe never gave: phase 2 decides */
    fior_monitor *m3 = fior_monitor_new(NULL);
    assert_int_equal(fior__monitor_continue(m3, m1), FIOR_OK);
    feed(m3, w, 1, b, 1, 0.2); /* no probe yet */
    fin = doc(w, 1, b, 1);
    p2 = fior__monitor_end(m3, fin, &decided_end);
    fior_report_free(fin);
    o = fior__outcome_phases(phase1(1000000, NULL), p2, 1);
    assert_int_equal(fior__outcome_phase(o), 2);
    assert_int_not_equal(fior_outcome_verdict(o), FIOR_PASS); /* phase 2 alone: its backend has too few samples */
    fior_outcome_free(o);
    fior_monitor_free(m3);
    fior_monitor_free(m1);
    fior_monitor_free(m2);
}

/* the facts of the end: a run the caller did not stop, that ended early, or was interrupted */
static void end_facts(void **state)
{
    (void)state;
    fior_monitor *m = fior_monitor_new(NULL);
    static const uint64_t w[][2] = {{1000000, 3000}}, b[][2] = {{3000000, 1000}};
    feed(m, w, 1, b, 1, 1);
    fior_report *fin = doc(w, 1, b, 1);
    fior__run_facts f = decided_end;
    f.killed_by = 9;
    fior_outcome *o = fior__monitor_end(m, fin, &f);
    assert_int_equal(fior_outcome_verdict(o), FIOR_UNKNOWN);
    assert_non_null(strstr(fior_outcome_reason(o), "fio was killed by signal 9"));
    fior_outcome_free(o);
    f = decided_end;
    f.complete = 0;
    f.stream_error = "the input ends with an interim --status-interval report";
    o = fior__monitor_end(m, fin, &f);
    assert_int_equal(fior_outcome_verdict(o), FIOR_UNKNOWN);
    assert_non_null(strstr(fior_outcome_reason(o), "final output is missing: the input ends with an interim"));
    fior_outcome_free(o);
    f = decided_end;
    f.stop = FIOR_STOP_NONE;
    f.stop_level = 0;
    f.duration_s = 3; /* runtime 60 */
    o = fior__monitor_end(m, fin, &f);
    assert_non_null(strstr(fior_outcome_reason(o), "before its runtime of 60 s"));
    fior_outcome_free(o);
    f.size = 3; /* shorter than any facts struct: refused */
    assert_null(fior__monitor_end(m, fin, &f));
    fior_report_free(fin);
    fior_monitor_free(m);
}

/* bins that are no distribution, or no growing run's, each a PASS before: counts whose sum wraps around
 * 2^64 (1000 at 1 ms and 2 x 9.2e18 at 50 ms add up to 500, all "below" the threshold; through fio's JSON
 * too, where counts up to 1.8e19 parse), bins out of order (980 at 1 ms, 19 at 50 ms, then 2 at 2 ms: the
 * 1000th sample read as 2 ms), or slow samples that vanish from one document to the next. Now refused, and
 * the outcome is UNKNOWN saying why. */
static void bins_that_are_no_distribution(void **state)
{
    (void)state;
    static const uint64_t wrap[][2] = {{1000000, 1000}, {50000000, 9223372036854775558ull},
                                       {60000000, 9223372036854775558ull}};
    fior_monitor *m = fior_monitor_new(NULL);
    assert_int_equal(fior_monitor_set_roles(m, 1u << FIOR_ROLE_WAL), FIOR_OK);
    fior_report *r = doc(wrap, 3, NULL, 0);
    fior_advice a;
    assert_int_equal(fior_monitor_feed(m, r, 1, &a), FIOR_E_INVAL);
    assert_int_equal(a, FIOR_GO_ON);
    assert_int_not_equal(answer(m, FIOR_ROLE_WAL).decision, FIOR_DEC_PASS);
    assert_non_null(strstr(fior_monitor_error(m), "expected the WAL bins in ascending order with counts adding up"));
    fior_outcome *o = fior__monitor_end(m, r, &decided_end);
    assert_int_equal(fior_outcome_verdict(o), FIOR_UNKNOWN);
    fior_outcome_free(o);
    fior_report_free(r);
    fior_monitor_free(m);

    /* the total grows (408 to 500) but the 8 samples at 50 ms vanish: no one run's cumulative bins; it was a
     * PASS at 500 (none at or above 10 ms, from 411 on) */
    static const uint64_t d1[][2] = {{1000000, 400}, {50000000, 8}}, d2[][2] = {{1000000, 500}};
    m = fior_monitor_new(NULL);
    assert_int_equal(fior_monitor_set_roles(m, 1u << FIOR_ROLE_WAL), FIOR_OK);
    assert_int_equal(feed(m, d1, 2, NULL, 0, 1), FIOR_GO_ON);
    r = doc(d2, 1, NULL, 0);
    assert_int_equal(fior_monitor_feed(m, r, 2, &a), FIOR_E_INVAL);
    assert_int_not_equal(fior_monitor_overall(m), FIOR_DEC_PASS);
    assert_non_null(strstr(fior_monitor_error(m), "the WAL samples at 50000000 ns went from 8 to 0"));
    o = fior__monitor_end(m, r, &decided_end);
    assert_int_equal(fior_outcome_verdict(o), FIOR_UNKNOWN);
    fior_outcome_free(o);
    fior_monitor_free(m);
    /* the same as the final report of a run that ran to its end: its last look was a PASS */
    m = fior_monitor_new(NULL);
    assert_int_equal(fior_monitor_set_roles(m, 1u << FIOR_ROLE_WAL), FIOR_OK);
    assert_int_equal(feed(m, d1, 2, NULL, 0, 1), FIOR_GO_ON);
    fior__run_facts ran = {.size = sizeof ran, .started = 1, .complete = 1, .runtime_s = 60, .duration_s = 60};
    o = fior__monitor_end(m, r, &ran);
    assert_int_equal(fior_outcome_verdict(o), FIOR_UNKNOWN);
    assert_non_null(strstr(fior_outcome_reason(o), "the WAL samples at 50000000 ns went from 8 to 0"));
    fior_outcome_free(o);
    fior_report_free(r);
    fior_monitor_free(m);

    fior_bin unsorted[] = {{1000000, 980}, {50000000, 19}, {2000000, 2}};
    m = fior_monitor_new(NULL);
    assert_int_equal(fior_monitor_set_roles(m, 1u << FIOR_ROLE_WAL), FIOR_OK);
    assert_int_equal(fior__monitor_feed_bins(m, unsorted, 3, NULL, 0, 1, &a), FIOR_E_INVAL);
    assert_int_equal(a, FIOR_GO_ON);
    assert_int_not_equal(fior_monitor_overall(m), FIOR_DEC_PASS);
    fior_monitor_free(m);
}

/* two runs fed to one monitor, or documents out of order: refused, and the outcome says so */
static void two_runs(void **state)
{
    (void)state;
    fior_monitor *m = fior_monitor_new(NULL);
    static const uint64_t w1[][2] = {{1000000, 3000}}, b1[][2] = {{3000000, 1000}};
    static const uint64_t w2[][2] = {{50000000, 200}}, b2[][2] = {{3000000, 100}};
    assert_int_equal(feed(m, w1, 1, b1, 1, 1), FIOR_STOP_DECIDED);
    fior_report *r = doc(w2, 1, b2, 1);
    fior_advice a;
    assert_int_equal(fior_monitor_feed(m, r, 2, &a), FIOR_E_INVAL);
    assert_non_null(strstr(fior_monitor_error(m), "expected the cumulative documents of one growing run"));
    fior_outcome *o = fior__monitor_end(m, r, &decided_end);
    assert_int_equal(fior_outcome_verdict(o), FIOR_UNKNOWN);
    assert_non_null(strstr(fior_outcome_reason(o), "went from 3000 to 200"));
    fior_outcome_free(o);
    fior_report_free(r);
    fior_monitor_free(m);
}

/* two fio outputs concatenated: the second run has a WAL job only; its WAL is not paired with the first
 * run's backend, so the backend is absent and nothing passes on the first run's commits */
static void one_run_only(void **state)
{
    (void)state;
    static const uint64_t w[][2] = {{1000000, 3000}}, b[][2] = {{3000000, 1000}};
    fj_job a[2] = {{"etcd-wal", "wal", NULL, 0, w, 1}, {"etcd-backend", "backend", NULL, 0, b, 1}};
    char *d1 = fj_doc(a, 2, 0), *d2 = fj_doc(a, 1, 0), *all = NULL;
    assert_true(asprintf(&all, "%s%s", d1, d2) > 0);
    fior_report *r = fior_report_new();
    assert_int_equal(fior_parse_buffer(r, "two.json", all, strlen(all)), FIOR_OK);
    assert_int_equal(fior_report_njobs(r), 3);
    fior_monitor *m = fior_monitor_new(NULL);
    fior_advice adv;
    assert_int_equal(fior_monitor_feed(m, r, 1, &adv), FIOR_OK);
    assert_int_equal(answer(m, FIOR_ROLE_BACKEND).samples, 0);
    assert_int_not_equal(fior_monitor_overall(m), FIOR_DEC_PASS);
    fior_outcome *o = fior__monitor_end(m, r, &decided_end);
    assert_int_equal(fior_outcome_verdict(o), FIOR_UNKNOWN);
    assert_non_null(strstr(fior_outcome_reason(o), "no backend job result"));
    fior_outcome_free(o);
    fior_monitor_free(m);
    fior_report_free(r);
    free(all);
    free(d1);
    free(d2);
}

/* a careless embedder: the stream cut at every byte of its last document, fed document by document, and the
 * end told "complete" with no signal and its runtime run — the monitor's verdict is never a PASS, because
 * the readers' run-ended flag says the latest document is an interim one */
static void cut_at_every_byte_with_a_lying_caller(void **state)
{
    (void)state;
    size_t len;
    char *buf = slurp(TEST_FIXTURES "/fio/fio-3.33-status-interval.json", &len);
    const char *last = buf;
    for (const char *p = strstr(buf, "\n{"); p; p = strstr(p + 1, "\n{"))
        last = p + 1;
    fior__run_facts lie = {.size = sizeof lie, .started = 1, .stop = FIOR_STOP_NONE, .complete = 1, .runtime_s = 3,
                          .duration_s = 3.5};
    size_t checked = 0;
    for (size_t cut = (size_t)(last - buf) + 1; cut < len; cut += 7) {
        fior_json_stream *s = fior_json_stream_new("cut");
        fior_monitor *m = fior_monitor_new(NULL);
        fior_criteria *c = fior_criteria_new();
        assert_int_equal(fior_monitor_set_roles(m, 1u << FIOR_ROLE_WAL), FIOR_OK);
        assert_int_equal(fior_monitor_set_accept_point(m, 1), FIOR_OK);
        unsigned long seen = 0;
        for (size_t at = 0; at < cut; at += 4096) {
            fior_json_stream_feed(s, buf + at, cut - at < 4096 ? cut - at : 4096);
            if (fior_json_stream_documents(s) != seen) {
                seen = fior_json_stream_documents(s);
                fior_monitor_feed(m, fior_json_stream_report(s), (double)seen, NULL);
            }
        }
        fior_outcome *o = fior__monitor_end(m, fior_json_stream_report(s), &lie);
        if (fior_outcome_verdict(o) == FIOR_PASS)
            fail_msg("cut at %zu of %zu: PASS: %s", cut, len, fior_outcome_reason(o));
        fior_outcome_free(o);
        fior_criteria_free(c);
        fior_monitor_free(m);
        fior_json_stream_free(s);
        checked++;
    }
    assert_true(checked > 100);
    /* the whole stream, its final document in: a PASS on its point estimate (few samples: accept_point) */
    fior_json_stream *s = fior_json_stream_new("whole");
    fior_monitor *m = fior_monitor_new(NULL);
    fior_monitor_set_roles(m, 1u << FIOR_ROLE_WAL);
    fior_monitor_set_accept_point(m, 1);
    fior_json_stream_feed(s, buf, len);
    fior_monitor_feed(m, fior_json_stream_report(s), 3, NULL);
    fior_outcome *o = fior__monitor_end(m, fior_json_stream_report(s), &lie);
    if (fior_outcome_verdict(o) != FIOR_PASS)
        fail_msg("the whole stream: %s", fior_outcome_reason(o));
    fior_outcome_free(o);
    fior_monitor_free(m);
    fior_json_stream_free(s);
    free(buf);
}

/* fio's plain JSON (no json+ bins): the counts are there but nothing to bound a p99 with — unknown, and the
 * reason says the bins are missing, not that the samples are too few (a real fio 3.36 output) */
static void no_bins(void **state)
{
    (void)state;
    fior_report *r = fior_report_new();
    assert_int_equal(fior_parse_file(r, TEST_FIXTURES "/fio-3.36/profile.json"), FIOR_OK);
    fior_monitor *m = fior_monitor_new(NULL);
    assert_int_equal(fior_monitor_feed(m, r, 20, NULL), FIOR_OK);
    fior__run_facts f = {.size = sizeof f, .started = 1, .complete = 1, .runtime_s = 20, .duration_s = 20.1};
    fior_outcome *o = fior__monitor_end(m, r, &f);
    assert_int_equal(fior_outcome_verdict(o), FIOR_UNKNOWN);
    const char *why = fior_outcome_reason(o);
    if (!strstr(why, "no latency bins") || strstr(why, "but only"))
        fail_msg("reason: %s", why);
    fior_outcome_free(o);
    fior_monitor_free(m);
    fior_report_free(r);
}

/* the bound rule at the end, one look: each rule, and the guard where bound and point disagree */
static void bound_rule(void **state)
{
    (void)state;
    const uint64_t T = 10000000, M = UINT64_MAX;
    fior_basis b;
    char why[300];
    assert_int_equal(fior__bound_decide(FIOR_PASS, 5000000, 4000000, 6000000, T, 900, 0.95, 0, &b, why, sizeof why),
                     FIOR_PASS);
    assert_int_equal(b, FIOR_BASIS_BOUND);
    assert_int_equal(fior__bound_decide(FIOR_FAIL, 15000000, 12000000, M, T, 900, 0.95, 0, &b, why, sizeof why),
                     FIOR_FAIL);
    assert_int_equal(b, FIOR_BASIS_BOUND);
    /* the guard: the bound clear on the PASS side, the point estimate says FAIL (and the reverse) */
    assert_int_equal(fior__bound_decide(FIOR_FAIL, 15000000, 4000000, 6000000, T, 900, 0.95, 1, &b, why, sizeof why),
                     FIOR_UNKNOWN);
    assert_int_equal(b, FIOR_BASIS_NONE);
    assert_non_null(strstr(why, "cannot judge"));
    assert_int_equal(fior__bound_decide(FIOR_PASS, 5000000, 12000000, M, T, 900, 0.95, 1, &b, NULL, 0), FIOR_UNKNOWN);
    /* straddles: unknown, undecided — or the point estimate when accepted */
    assert_int_equal(fior__bound_decide(FIOR_PASS, 9000000, 8000000, 11000000, T, 300, 0.95, 0, &b, why, sizeof why),
                     FIOR_UNKNOWN);
    assert_int_equal(b, FIOR_BASIS_UNDECIDED);
    assert_non_null(strstr(why, "cannot show it with 95 % confidence (bound 8 ms..11 ms straddles 10 ms)"));
    assert_int_equal(fior__bound_decide(FIOR_PASS, 9000000, 8000000, 11000000, T, 300, 0.95, 1, &b, why, sizeof why),
                     FIOR_PASS);
    assert_int_equal(b, FIOR_BASIS_POINT);
    /* no bound at all (no bins): never BOUND */
    assert_int_equal(fior__bound_decide(FIOR_PASS, 9000000, M, M, T, 300, 0.95, 0, &b, why, sizeof why), FIOR_UNKNOWN);
    assert_non_null(strstr(why, "no confidence bound"));
    /* what is not a PASS or FAIL stays as it is */
    assert_int_equal(fior__bound_decide(FIOR_UNKNOWN, 0, 0, 1, T, 0, 0.95, 1, &b, why, sizeof why), FIOR_UNKNOWN);
    assert_int_equal(b, FIOR_BASIS_NONE);
    assert_int_equal(fior_first_pass_samples(0.99, 0.95, 100), 411);
    assert_int_equal(fior_first_pass_samples(0.99, 0.95, 500), 500);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(settings),  cmocka_unit_test(each_role_as_soon_as_decided), cmocka_unit_test(wal_only),
        cmocka_unit_test(wal_slower_after_its_decision),
        cmocka_unit_test(fail_between_the_old_looks),
        cmocka_unit_test(phases),    cmocka_unit_test(end_facts), cmocka_unit_test(two_runs),
        cmocka_unit_test(bound_rule), cmocka_unit_test(no_bins),       cmocka_unit_test(cut_at_every_byte_with_a_lying_caller),
        cmocka_unit_test(one_run_only), cmocka_unit_test(bins_that_are_no_distribution),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
