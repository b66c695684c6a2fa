/* SPDX-License-Identifier: MIT */
/* test_earlystop.c — the early-stop decision of `etcd-fio check` on synthetic streams of cumulative bins
 * (one snapshot per fio status interval), and its error control. Expected stop points are worked out below.
 *
 * The rule (seqbound.h): at every snapshot with n >= min_syncs, a side decides when its mixture likelihood
 * ratio reaches 1/delta (delta = alpha/2 = 0.025 at 95 %). In counts (q = 0.99), a PASS allows at most c
 * samples at or above the threshold and a FAIL needs d or more above it:
 *   PASS: c = 0 from n = 411, c = 1 from 814, c = 2 from 1017, c = 3 from 1208;
 *   FAIL: d = 6 at n = 100, 8 at 200, 12 at 400, 22 at 1000.
 * (An independent Python evaluation of the same sums gave these.) The previous rule — look k of a side
 * spending alpha/2^(k+2), FAIL looks at min_syncs x 2^k, PASS looks from n = 437 doubling — stopped
 * later wherever the data was decisive between its looks; the stop points below moved accordingly: the
 * first PASS is possible at 411 instead of 437, and no look is ever "spent". */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <math.h>

#include "seqbound.h"

#define MS 1000000ull

static fior__seq_params params(uint64_t min_syncs)
{
    fior__seq_params p = {.q = 0.99, .confidence = 0.95, .min_syncs = min_syncs, .full = 0};
    return p;
}

/* Feeds snapshots 1..max of a WAL-only stream where snapshot k holds k*per_fast samples at fast_ns and
 * k*per_slow at slow_ns; returns the 1-based snapshot at which fior__seq_update asked to stop, 0 if never. */
static int run_wal(fior__seq *c, int max, uint64_t per_fast, uint64_t fast_ns, uint64_t per_slow, uint64_t slow_ns)
{
    for (int k = 1; k <= max; k++) {
        fior_bin b[2] = {{fast_ns, per_fast * k}, {slow_ns, per_slow * k}};
        size_t nb = per_slow ? 2 : 1;
        if (!per_fast) {
            b[0] = b[1];
            nb = 1;
        }
        if (fior__seq_update(c, b, nb, NULL, 0))
            return k;
    }
    return 0;
}

/* Clearly good: 300 syncs per interval, all 2 ms, min 100. Snapshot 1 (n=300): a FAIL look (lo = 2 ms),
 * no PASS possible before 411: undecided. Snapshot 2 (n=600): both sides look, none above 10 ms and c = 0
 * is allowed from 411: hi = 2 ms < 10 ms: PASS, stop at snapshot 2. */
static void test_clearly_good(void **state)
{
    (void)state;
    fior__seq c;
    fior__seq_params p = params(100);
    fior__seq_init(&c, &p, 10 * MS, 25 * MS, 0);
    assert_int_equal(run_wal(&c, 20, 300, 2 * MS, 0, 0), 2);
    assert_int_equal(c.wal.state, FIOR_DEC_PASS);
    assert_int_equal(c.wal.decided_n, 600);
    assert_int_equal(c.wal.fail_looks, 2);
    assert_int_equal(c.wal.pass_looks, 1);
    assert_true(fabs(c.wal.decided_tail - 0.025) < 1e-12);
    assert_true(fabs(c.wal.look_confidence - 0.95) < 1e-12);
    assert_int_equal(c.wal.look_hi_ns, 2 * MS);
    assert_int_equal(fior__seq_overall(&c), FIOR_DEC_PASS);
}

/* Same stream with min 1000: no look of either side before n >= 1000; snapshot 4 (n=1200) is the first
 * look of both (1200 >= 411): stop at 4. */
static void test_good_respects_min_syncs(void **state)
{
    (void)state;
    fior__seq c;
    fior__seq_params p = params(1000);
    fior__seq_init(&c, &p, 10 * MS, 25 * MS, 0);
    assert_int_equal(run_wal(&c, 20, 300, 2 * MS, 0, 0), 4);
    assert_int_equal(c.wal.decided_n, 1200);
    assert_int_equal(c.wal.fail_looks, 1);
    assert_int_equal(c.wal.pass_looks, 1);
}

/* Clearly bad: 50 syncs per interval, all 30 ms, min 100. Snapshot 1 (n=50) is below min: too few.
 * Snapshot 2 (n=100) is the first look: 100 >= 6 samples above 10 ms: FAIL, stop at 2. */
static void test_clearly_bad(void **state)
{
    (void)state;
    fior__seq c;
    fior__seq_params p = params(100);
    fior__seq_init(&c, &p, 10 * MS, 25 * MS, 0);
    assert_int_equal(fior__seq_update(&c, (fior_bin[]){{30 * MS, 50}}, 1, NULL, 0), 0);
    assert_int_equal(c.wal.state, FIOR_DEC_TOO_FEW);
    assert_int_equal(fior__seq_update(&c, (fior_bin[]){{30 * MS, 100}}, 1, NULL, 0), 1);
    assert_int_equal(c.wal.state, FIOR_DEC_FAIL);
    assert_int_equal(c.wal.decided_n, 100);
    assert_int_equal(fior__seq_overall(&c), FIOR_DEC_FAIL);
}

/* Bad in the tail: per interval 90 at 1 ms and 10 at 30 ms, min 100. Snapshot 1 (n=100) is the first look:
 * 10 samples above 10 ms, and 6 FAIL at n = 100: the anytime lower bound is X(100 - 6 + 1) = X(95), past the
 * 90 fast samples: 30 ms > 10 ms, FAIL at snapshot 1. (The nominal one-look bound agrees: B ~ Bin(100,
 * 0.99), P(B <= 96) = .018 <= .025 < P(B <= 97) = .079, so l = 98: also 30 ms.) */
static void test_bad_tail(void **state)
{
    (void)state;
    fior__seq c;
    fior__seq_params p = params(100);
    fior__seq_init(&c, &p, 10 * MS, 25 * MS, 0);
    assert_int_equal(run_wal(&c, 20, 90, 1 * MS, 10, 30 * MS), 1);
    assert_int_equal(c.wal.state, FIOR_DEC_FAIL);
    assert_int_equal(c.wal.lo_ns, 30 * MS);
    assert_int_equal(c.wal.look_lo_ns, 30 * MS);
    /* 5 of 100 above is not enough (6 needed): the same snapshot with 95 fast and 5 slow stays undecided */
    fior__seq_init(&c, &p, 10 * MS, 25 * MS, 0);
    assert_int_equal(run_wal(&c, 1, 95, 1 * MS, 5, 30 * MS), 0);
    assert_int_equal(c.wal.state, FIOR_DEC_UNDECIDED);
    assert_int_equal(c.wal.look_lo_ns, 1 * MS);
}

/* Borderline: exactly 1 % at 20 ms (990 at 5 ms + 10 at 20 ms per interval). The p99 rank 0.99 n is the last
 * fast sample; the lower rank is below it (5 ms < 10 ms) and the upper rank above it (20 ms > 10 ms) at every
 * look, so it never stops; the point estimate (5 ms) says pass, which `check` labels borderline. */
static void test_borderline_never_stops(void **state)
{
    (void)state;
    fior__seq c;
    fior__seq_params p = params(100);
    fior__seq_init(&c, &p, 10 * MS, 25 * MS, 0);
    assert_int_equal(run_wal(&c, 30, 990, 5 * MS, 10, 20 * MS), 0);
    assert_int_equal(c.wal.state, FIOR_DEC_UNDECIDED);
    assert_int_equal(c.wal.point_ns, 5 * MS);
    assert_int_equal(c.wal.lo_ns, 5 * MS);
    assert_int_equal(c.wal.hi_ns, 20 * MS);
    assert_int_equal(fior__seq_overall(&c), FIOR_DEC_UNDECIDED);
    /* every snapshot is a look of both sides (n = 1000 .. 30000, all >= 411): 30 each. At exactly 1 % above
     * the threshold each alternative's likelihood ratio shrinks as exp(-n KL): it never decides. */
    assert_int_equal(c.wal.fail_looks, 30);
    assert_int_equal(c.wal.pass_looks, 30);
}

/* Too few samples: 10 per interval, all 30 ms, min 100: nothing before snapshot 10 (n=100), which is look 0
 * and fails. Fed only 9 snapshots, it never stops and stays "too few". */
/* Backend-like stream at --max-time: 100 commits per interval at 3 ms, plus three at 40 ms from the
 * start. Three at the threshold PASS from n = 1208 on; 12 intervals (1203 commits) end undecided. The
 * final document is one more look, like any other (nothing is spent by looking): with 1208 commits it
 * passes, with 1207 it does not; and the same bins as the last look decide nothing new. */
static void test_final_look(void **state)
{
    (void)state;
    fior__seq c;
    fior__seq_params p = params(100);
    fior_bin b[2];
    for (uint64_t fin = 1200; fin <= 1205; fin += 1) {
        fior__seq_init(&c, &p, 10 * MS, 25 * MS, 0);
        for (int k = 1; k <= 12; k++) {
            b[0] = (fior_bin){3 * MS, 100ull * (uint64_t)k};
            b[1] = (fior_bin){40 * MS, 3};
            assert_int_equal(fior__seq_update(&c, b, 2, NULL, 0), 0);
        }
        assert_int_equal(c.wal.state, FIOR_DEC_UNDECIDED);
        assert_int_equal(c.wal.look_hi_ns, 40 * MS); /* 2 of 1203 may lie above it: X(1201), a 40 ms one */
        b[0].count = fin;
        if (fin < 1205) {
            assert_int_equal(fior__seq_final(&c, b, 2, NULL, 0), FIOR_DEC_UNDECIDED);
        } else {
            assert_int_equal(fior__seq_final(&c, b, 2, NULL, 0), FIOR_DEC_PASS);
            assert_int_equal(c.wal.decided_n, 1208);
            assert_int_equal(c.wal.look_hi_ns, 3 * MS);
            assert_true(fabs(c.wal.decided_tail - 0.025) < 1e-12);
        }
    }
}

static void test_too_few(void **state)
{
    (void)state;
    fior__seq c;
    fior__seq_params p = params(100);
    fior__seq_init(&c, &p, 10 * MS, 25 * MS, 0);
    assert_int_equal(run_wal(&c, 9, 0, 0, 10, 30 * MS), 0);
    assert_int_equal(c.wal.state, FIOR_DEC_TOO_FEW);
    assert_int_equal(c.wal.fail_looks, 0);
    fior__seq_init(&c, &p, 10 * MS, 25 * MS, 0);
    assert_int_equal(run_wal(&c, 20, 0, 0, 10, 30 * MS), 10);
}

/* --full: the decision is tracked but never asks to stop. */
static void test_full(void **state)
{
    (void)state;
    fior__seq c;
    fior__seq_params p = params(100);
    p.full = 1;
    fior__seq_init(&c, &p, 10 * MS, 25 * MS, 0);
    assert_int_equal(run_wal(&c, 10, 300, 2 * MS, 0, 0), 0);
    assert_int_equal(c.wal.state, FIOR_DEC_PASS);
}

/* With a backend job expected, a good WAL alone does not stop; the backend (all 5 ms, 25 ms threshold) is
 * decided at n=600, as in test_clearly_good. A failing backend stops at once. */
static void test_backend(void **state)
{
    (void)state;
    fior__seq c;
    fior__seq_params p = params(100);
    fior__seq_init(&c, &p, 10 * MS, 25 * MS, 1);
    fior_bin wal[1] = {{2 * MS, 0}}, be[1] = {{5 * MS, 0}};
    int stopped = 0;
    for (int k = 1; k <= 10 && !stopped; k++) {
        wal[0].count = 1000u * k;
        be[0].count = 300u * k;
        stopped = fior__seq_update(&c, wal, 1, k == 1 ? NULL : be, k == 1 ? 0 : 1) ? k : 0;
    }
    /* k=1: WAL n=1000 passes; no backend samples yet. k=2: backend n=600 (>= 411, none above 25 ms): PASS,
     * stop. */
    assert_int_equal(stopped, 2);
    assert_int_equal(c.backend.decided_n, 600);

    fior__seq_init(&c, &p, 10 * MS, 25 * MS, 1);
    fior_bin bad[1] = {{40 * MS, 100}};
    wal[0].count = 50; /* WAL too few still */
    assert_int_equal(fior__seq_update(&c, wal, 1, bad, 1), 1);
    assert_int_equal(fior__seq_overall(&c), FIOR_DEC_FAIL);
}

/* Phase 1's guard: a stall that the heavy load's sample rate dilutes below 1 % of the syncs still holds
 * its share of the time. 999 syncs of 1 ms and one of 200 ms: by count one of 1000 may lie above (from
 * n = 814), so the bound is X(999) = 1 ms (PASS); by time, (200 - 10)/1199 = 15.8 % of the moments would wait more than 10 ms, so with
 * max_time_share 1 % the look does not pass. */
static void test_time_share_guard(void **state)
{
    (void)state;
    fior_bin b[2] = {{1 * MS, 999}, {200 * MS, 1}};
    assert_true(fabs(fior__seq_time_share(b, 2, 10 * MS) - 190.0 / 1199.0) < 1e-9);
    assert_true(fior__seq_time_share(b, 2, 200 * MS) == 0.0);
    assert_true(fabs(fior__seq_time_share(b, 2, 0) - 1.0) < 1e-12);
    assert_true(fabs(fior__seq_time_share(b, 2, 1 * MS) - 199.0 / 1199.0) < 1e-9);
    assert_true(fior__seq_time_share(NULL, 0, 1) == 0.0);
    fior__seq c;
    fior__seq_params p = params(100);
    fior__seq_init(&c, &p, 10 * MS, 25 * MS, 0);
    fior__seq_update(&c, b, 2, NULL, 0);
    assert_int_equal(c.wal.state, FIOR_DEC_PASS);
    p.max_time_share = 0.01;
    fior__seq_init(&c, &p, 10 * MS, 25 * MS, 0);
    fior__seq_update(&c, b, 2, NULL, 0);
    assert_int_equal(c.wal.state, FIOR_DEC_UNDECIDED);
    assert_int_equal(c.wal.pass_looks, 1); /* the look was spent all the same */
    /* a small share passes: 9990 x 0.5 ms and one 14 ms sync: (14 - 10)/5009 = 0.08 % */
    fior_bin g[2] = {{500000, 9990}, {14 * MS, 1}};
    fior__seq_init(&c, &p, 10 * MS, 25 * MS, 0);
    fior__seq_update(&c, g, 2, NULL, 0);
    assert_int_equal(c.wal.state, FIOR_DEC_PASS);
}

/* Two phases, one error budget split in advance: phase 1 (pass_share FIOR__TP_PHASE1_SHARE) may spend an
 * eighth of each job's PASS error, delta 0.003125 (first PASS at n = 627), phase 2 the rest, 0.021875
 * (first PASS at 425), however phase 1 went. FAIL errors are not shared (a FAIL of the heavy load is never
 * a verdict): phase 2's is the whole 0.025. */
static void test_carry_pass_budget(void **state)
{
    (void)state;
    fior__seq one, two;
    fior__seq_params p = params(100);
    p.pass_share = FIOR__TP_PHASE1_SHARE;
    fior__seq_init(&one, &p, 10 * MS, 25 * MS, 0);
    assert_true(fabs(one.delta_pass - 0.003125) < 1e-12 && fabs(one.delta_fail - 0.025) < 1e-12);
    assert_int_equal(fior__seq_pass_from(&one), 627);
    fior_bin g[1] = {{2 * MS, 626}};
    fior__seq_update(&one, g, 1, NULL, 0);
    assert_int_equal(one.wal.state, FIOR_DEC_UNDECIDED);
    g[0].count = 627;
    fior__seq_update(&one, g, 1, NULL, 0);
    assert_int_equal(one.wal.state, FIOR_DEC_PASS);

    p.pass_share = 0;
    fior__seq_init(&two, &p, 10 * MS, 25 * MS, 0);
    fior__seq_carry(&two, &one);
    assert_true(fabs(two.delta_pass - 0.021875) < 1e-12 && fabs(two.delta_fail - 0.025) < 1e-12);
    assert_true(one.delta_pass + two.delta_pass <= 0.025 + 1e-15);
    assert_int_equal(fior__seq_pass_from(&two), 425);
    g[0].count = 424;
    fior__seq_update(&two, g, 1, NULL, 0);
    assert_int_equal(two.wal.state, FIOR_DEC_UNDECIDED); /* 424: not yet at phase 2's share */
    g[0].count = 425;
    fior__seq_update(&two, g, 1, NULL, 0);
    assert_int_equal(two.wal.state, FIOR_DEC_PASS);
    assert_true(fabs(two.wal.decided_tail - 0.021875) < 1e-12);
    assert_true(fabs(two.wal.look_confidence - (1 - 0.021875 - 0.025)) < 1e-12);
    /* a single run (no phase 1) has the whole budget: 411 */
    assert_int_equal(fior__seq_first_pass_look(0.99, 0.95, 100), 411);
}

/* Counts up to UINT64_MAX (fio's JSON takes two bins of 9.2e18; fior__monitor_feed_bins any): the rule's
 * binary searches end. With n = UINT64_MAX, pass_max_above's middle (a + (b - a + 1) / 2) wrapped to 0 and
 * the search never ended (a check fed such a document hung). 5 slow of 1.8e19 is a PASS. */
static void test_counts_up_to_uint64_max(void **state)
{
    (void)state;
    int64_t c = fior__seq_pass_max_above(0.99, 0.025, UINT64_MAX);
    assert_true(c > 0);
    assert_true(fior__seq_fail_min_above(0.99, 0.025, UINT64_MAX) > (uint64_t)c);
    fior__seq s;
    fior__seq_params p = params(100);
    fior__seq_init(&s, &p, 10 * MS, 25 * MS, 0);
    fior_bin b[2] = {{1 * MS, UINT64_MAX - 5}, {50 * MS, 5}};
    assert_int_equal(fior__seq_update(&s, b, 2, NULL, 0), 1);
    assert_int_equal(s.wal.state, FIOR_DEC_PASS);
}

/* The error budget, summed over every look: for a disk exactly at the threshold (a share r = 1 - q of its
 * samples at or above it: the least favourable disk for either side), the exact probability that the rule
 * ever decides wrongly when it looks after every single sample from the first to the N-th — a dynamic
 * program over the count above the threshold, using the library's own decision counts. Each side's total
 * must stay <= its delta, however many looks; and the one-look bound (fior_quantile_bound at the nominal
 * confidence) looked at that often would not (the test would catch a rule that spends per look without
 * accounting for it). */
static double ever_wrong(double q, double delta, uint64_t min, uint64_t N, int pass_side, int one_look_bound)
{
    double r = 1 - q, err = 0;
    size_t K = (size_t)(N * r + 40 * sqrt(N * r) + 50);
    double *pr = calloc(K + 2, sizeof *pr);
    assert_non_null(pr);
    pr[0] = 1;
    for (uint64_t n = 1; n <= N; n++) {
        for (size_t c = K; c > 0; c--)
            pr[c] = pr[c] * q + pr[c - 1] * r;
        pr[0] *= q;
        if (n < min)
            continue;
        if (pass_side) { /* wrong PASS: at most cmax at or above the threshold */
            int64_t cmax = fior__seq_pass_max_above(q, delta, n);
            if (one_look_bound) { /* the one-look bound: hi = X(u) < thr, i.e. c <= n - u */
                fior_bin b[2] = {{1, n}, {2, 0}};
                uint64_t lo, pt, hi;
                for (cmax = -1; cmax + 1 < (int64_t)n; cmax++) {
                    b[0].count = n - (uint64_t)(cmax + 1);
                    b[1].count = (uint64_t)(cmax + 1);
                    if (fior_quantile_bound(b, 2, q, 1 - 2 * delta, &lo, &pt, &hi) != FIOR_OK || hi >= 2)
                        break;
                }
            }
            for (int64_t c = 0; c <= cmax && (size_t)c <= K; c++) {
                err += pr[c];
                pr[c] = 0;
            }
        } else { /* wrong FAIL: d or more above it */
            uint64_t d = fior__seq_fail_min_above(q, delta, n);
            for (size_t c = (size_t)d; c <= K; c++) {
                err += pr[c];
                pr[c] = 0;
            }
        }
    }
    free(pr);
    return err;
}

static void test_error_budget_over_every_look(void **state)
{
    (void)state;
    /* 95 %, p99: looks at every n up to 20000 (at etcd's 10 commits/s, 33 minutes of looks each second) */
    double ep = ever_wrong(0.99, 0.025, 1, 20000, 1, 0), ef = ever_wrong(0.99, 0.025, 1, 20000, 0, 0);
    print_message("wrong PASS %.5f, wrong FAIL %.5f over 20000 looks (budget 0.025 each)\n", ep, ef);
    assert_true(ep <= 0.025 && ef <= 0.025);
    assert_true(ep > 0.0025 && ef > 0.0025); /* and not by throwing the power away */
    /* phase 1's share, another quantile and confidence */
    assert_true(ever_wrong(0.99, 0.003125, 100, 8000, 1, 0) <= 0.003125);
    assert_true(ever_wrong(0.9, 0.1, 10, 4000, 1, 0) <= 0.1);
    assert_true(ever_wrong(0.9, 0.1, 10, 4000, 0, 0) <= 0.1);
    /* the nominal one-look bound at every look from 411 to 2000 spends far more than its 0.025 */
    assert_true(ever_wrong(0.99, 0.025, 411, 2000, 1, 1) > 0.05);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_clearly_good),
        cmocka_unit_test(test_good_respects_min_syncs),
        cmocka_unit_test(test_clearly_bad),
        cmocka_unit_test(test_bad_tail),
        cmocka_unit_test(test_borderline_never_stops),
        cmocka_unit_test(test_final_look),
        cmocka_unit_test(test_too_few),
        cmocka_unit_test(test_full),
        cmocka_unit_test(test_backend),
        cmocka_unit_test(test_time_share_guard),
        cmocka_unit_test(test_carry_pass_budget),
        cmocka_unit_test(test_error_budget_over_every_look),
        cmocka_unit_test(test_counts_up_to_uint64_max),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
