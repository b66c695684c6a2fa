/* SPDX-License-Identifier: MIT */
/* test_earlystop.c — the early-stop decision of `etcd-fio check` on synthetic streams of cumulative bins
 * (one snapshot per fio status interval). Expected stop points are worked out by hand below.
 *
 * Facts used (q = 0.99, confidence 0.95, alpha = 0.05; look k of each side spends a one-sided tail of
 * alpha/2^(k+2): 0.0125, 0.00625, 0.003125, ...). An upper bound exists when 0.99^n <= tail:
 *   tail 0.0125 -> n >= 436,  0.00625 -> n >= 505,  0.003125 -> n >= 574   (ln(tail)/ln(0.99) rounded up)
 * so PASS looks start at max(min_syncs, 436) and double; FAIL looks are at min_syncs*2^k. A lower bound
 * exists from n = 1 (P(all n samples above the p99) = 0.01^n). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
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

/* Clearly good: 300 syncs per interval, all 2 ms, min 100. Snapshot 1 (n=300): FAIL look 0 (lo = 2 ms),
 * no PASS look before 436: undecided. Snapshot 2 (n=600): FAIL look 1 (next FAIL look 800), PASS look 0
 * (600 >= 436): hi = 2 ms < 10 ms: PASS, stop at snapshot 2. */
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
    assert_true(fabs(c.wal.decided_tail - 0.0125) < 1e-12);
    assert_int_equal(fior__seq_overall(&c), FIOR_DEC_PASS);
}

/* Same stream with min 1000: no look of either side before n >= 1000; snapshot 4 (n=1200) is the first
 * look of both (1200 >= 436): stop at 4. */
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
 * Snapshot 2 (n=100) is look 0: lo = X(l) with l >= 1 is 30 ms > 10 ms: FAIL, stop at 2. */
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

/* Bad in the tail: per interval 90 at 1 ms and 10 at 30 ms, min 100. Snapshot 1 (n=100) is look 0 (tail
 * 0.0125). B ~ Bin(100, 0.99): P(B=100)=.366, P(99)=.370, P(98)=.185, P(97)=.061, so P(B<=96)=.018 > .0125
 * and P(B<=95) = .018 - P(96)=.0149 -> .003 <= .0125: l = 96. Rank 96 is past the 90 fast samples: lo =
 * 30 ms > 10 ms, FAIL at snapshot 1. */
static void test_bad_tail(void **state)
{
    (void)state;
    fior__seq c;
    fior__seq_params p = params(100);
    fior__seq_init(&c, &p, 10 * MS, 25 * MS, 0);
    assert_int_equal(run_wal(&c, 20, 90, 1 * MS, 10, 30 * MS), 1);
    assert_int_equal(c.wal.state, FIOR_DEC_FAIL);
    assert_int_equal(c.wal.lo_ns, 30 * MS);
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
    /* FAIL looks (next = 100*2^k just above the last look's n): n=1000 (next 1600), 2000 (3200),
     * 4000 (6400), 7000 (12800), 13000 (25600), 26000 (51200): 6. PASS looks (436*2^k): 1000 (next 1744),
     * 2000 (3488), 4000 (6976), 7000 (13952), 14000 (27904), 28000 (55808): 6. */
    assert_int_equal(c.wal.fail_looks, 6);
    assert_int_equal(c.wal.pass_looks, 6);
}

/* Too few samples: 10 per interval, all 30 ms, min 100: nothing before snapshot 10 (n=100), which is look 0
 * and fails. Fed only 9 snapshots, it never stops and stays "too few". */
/* Backend-like stream at --max-time: 100 commits per interval at 3 ms, plus three at 40 ms from the
 * start. The PASS looks at n=436.. (tail alpha/4: hi = the largest sample, 40 ms) and at n=903 (tail
 * alpha/8: still one of the 40 ms samples) cannot pass, and the next scheduled look is at 1748, so 12
 * intervals (1203 commits) end undecided. The final look (tail alpha/16 at n=1203) passes: with 300 more
 * samples the bound's order statistic falls below the three slow ones (at n=1103 it does not yet). A final look at no more samples
 * than the last scheduled one (n=903, stricter tail) cannot pass. */
static void test_final_look(void **state)
{
    (void)state;
    fior__seq c;
    fior__seq_params p = params(100);
    fior_bin b[2];
    for (int end = 9; end <= 12; end += 3) {
        fior__seq_init(&c, &p, 10 * MS, 25 * MS, 0);
        for (int k = 1; k <= end; k++) {
            b[0] = (fior_bin){3 * MS, 100ull * (uint64_t)k};
            b[1] = (fior_bin){40 * MS, 3};
            assert_int_equal(fior__seq_update(&c, b, 2, NULL, 0), 0);
        }
        assert_int_equal(c.wal.state, FIOR_DEC_UNDECIDED);
        assert_int_equal(c.wal.pass_looks, 2);
        if (end == 9) {
            assert_int_equal(fior__seq_final(&c, b, 2, NULL, 0), FIOR_DEC_UNDECIDED);
        } else {
            assert_int_equal(fior__seq_final(&c, b, 2, NULL, 0), FIOR_DEC_PASS);
            assert_int_equal(c.wal.decided_n, 1203);
            assert_true(fabs(c.wal.decided_tail - 0.05 / 16) < 1e-12);
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
 * decided at its own look 1 (n=600), as in test_clearly_good. A failing backend stops at once. */
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
    /* k=1: WAL n=1000 passes at its first PASS look; no backend samples yet. k=2: backend n=600 is its first
     * PASS look (600 >= 436): PASS, stop. */
    assert_int_equal(stopped, 2);
    assert_int_equal(c.backend.decided_n, 600);

    fior__seq_init(&c, &p, 10 * MS, 25 * MS, 1);
    fior_bin bad[1] = {{40 * MS, 100}};
    wal[0].count = 50; /* WAL too few still */
    assert_int_equal(fior__seq_update(&c, wal, 1, bad, 1), 1);
    assert_int_equal(fior__seq_overall(&c), FIOR_DEC_FAIL);
}

/* Phase 1's guard: a stall that the heavy load's sample rate dilutes below 1 % of the syncs still holds
 * its share of the time. 999 syncs of 1 ms and one of 200 ms: by count the p99 bound at look 0 is 1 ms
 * (PASS); by time, (200 - 10)/1199 = 15.8 % of the moments would wait more than 10 ms, so with
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

/* Two phases, one error sequence: phase 1 spends PASS looks 0 and 1 (n = 437 and 874) without passing;
 * phase 2 then starts at look 2 (tail alpha/16 = 0.003125, first possible at n = 574), and its PASS
 * spends that tail. FAIL looks start afresh. */
static void test_carry_pass_looks(void **state)
{
    (void)state;
    fior__seq one, two;
    fior__seq_params p = params(100);
    fior__seq_init(&one, &p, 10 * MS, 25 * MS, 0);
    /* 1 % of the syncs at 50 ms: neither bound clear of 10 ms for a while */
    for (uint64_t n = 100; n <= 1000; n += 100) {
        fior_bin b[2] = {{1 * MS, n - n / 100}, {50 * MS, n / 100}};
        fior__seq_update(&one, b, 2, NULL, 0);
    }
    assert_int_equal(one.wal.state, FIOR_DEC_UNDECIDED);
    assert_int_equal(one.wal.pass_looks, 2);
    fior__seq_init(&two, &p, 10 * MS, 25 * MS, 0);
    fior__seq_carry(&two, &one);
    assert_int_equal(two.wal.pass_looks, 2);
    assert_int_equal(two.wal.next_pass_look, 574);
    assert_int_equal(two.wal.fail_looks, 0);
    assert_int_equal(two.wal.next_fail_look, 100);
    assert_int_equal(two.backend.pass_looks, 0);
    assert_int_equal(two.backend.next_pass_look, one.backend.next_pass_look); /* nothing spent: as fresh */
    fior_bin g[1] = {{2 * MS, 573}};
    fior__seq_update(&two, g, 1, NULL, 0);
    assert_int_equal(two.wal.state, FIOR_DEC_UNDECIDED); /* 573: no bound at look 2's tail yet */
    g[0].count = 574;
    fior__seq_update(&two, g, 1, NULL, 0);
    assert_int_equal(two.wal.state, FIOR_DEC_PASS);
    assert_true(fabs(two.wal.decided_tail - 0.003125) < 1e-12);
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
        cmocka_unit_test(test_carry_pass_looks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
