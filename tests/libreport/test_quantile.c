/* SPDX-License-Identifier: MIT */
/* test_quantile.c — fior_quantile_bound against exact binomial computations (small n, brute force with
 * exact integer binomial coefficients) and hand-computed cases; one look at a finished distribution
 * (fior_look_bins, fior_look_samples: fleet's and capacity's bound and verdict). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <cmocka.h>

#include "fioreport_cli.h"

/* n distinct samples, the k-th smallest = k * 1000 ns, so an order statistic's rank is value/1000. */
static fior_bin *distinct(uint64_t n)
{
    fior_bin *b = calloc(n, sizeof *b);
    for (uint64_t i = 0; i < n; i++) {
        b[i].ns = (i + 1) * 1000;
        b[i].count = 1;
    }
    return b;
}

static long double choose(unsigned n, unsigned k)
{
    long double c = 1;
    for (unsigned i = 1; i <= k; i++)
        c = c * (n - k + i) / i; /* exact in long double for n <= 60 */
    return c;
}

static long double pmf(unsigned n, unsigned k, long double q)
{
    return choose(n, k) * powl(q, k) * powl(1 - q, n - k);
}

/* Brute force: largest l with P(B <= l-1) <= tail, smallest u with P(B >= u) <= tail (0: none). */
static void exact(unsigned n, long double q, long double conf, unsigned *l, unsigned *u)
{
    long double tail = (1 - conf) / 2;
    *l = 0;
    for (unsigned cand = 1; cand <= n; cand++) {
        long double s = 0;
        for (unsigned k = 0; k + 1 <= cand; k++)
            s += pmf(n, k, q);
        if (s <= tail)
            *l = cand;
    }
    *u = 0;
    for (unsigned cand = n; cand >= 1; cand--) {
        long double s = 0;
        for (unsigned k = cand; k <= n; k++)
            s += pmf(n, k, q);
        if (s <= tail)
            *u = cand;
    }
}

static void test_matches_exact_binomial(void **state)
{
    (void)state;
    const double qs[] = {0.1, 0.5, 0.9, 0.99};
    const double cs[] = {0.8, 0.9, 0.95, 0.99};
    for (unsigned n = 1; n <= 60; n++) {
        fior_bin *b = distinct(n);
        for (size_t qi = 0; qi < 4; qi++)
            for (size_t ci = 0; ci < 4; ci++) {
                unsigned l, u;
                exact(n, qs[qi], cs[ci], &l, &u);
                uint64_t lo, pt, hi;
                fior_status st = fior_quantile_bound(b, n, qs[qi], cs[ci], &lo, &pt, &hi);
                assert_int_equal(lo, (uint64_t)l * 1000);
                if (u) {
                    assert_int_equal(st, FIOR_OK);
                    assert_int_equal(hi, (uint64_t)u * 1000);
                } else {
                    assert_int_equal(st, FIOR_E_NODATA);
                    assert_true(hi == UINT64_MAX);
                }
                assert_true(lo <= pt && pt <= hi);
            }
        free(b);
    }
}

/* Median of 10 at 95 %: P(B<=1) = 11/1024 = 0.0107 <= 0.025 < P(B<=2) = 56/1024, so l = 2; symmetric u = 9. */
static void test_median_of_ten(void **state)
{
    (void)state;
    fior_bin *b = distinct(10);
    uint64_t lo, pt, hi;
    assert_int_equal(fior_quantile_bound(b, 10, 0.5, 0.95, &lo, &pt, &hi), FIOR_OK);
    assert_int_equal(lo, 2000);
    assert_int_equal(pt, 5000); /* fio's rule: first rank with cum >= 0.5*10 */
    assert_int_equal(hi, 9000);
    free(b);
}

/* p99 at 95 %: an upper bound needs P(B >= n) = 0.99^n <= 0.025. 0.99^367 = 0.02502 > 0.025 and
 * 0.99^368 = 0.02477, so 367 samples give no upper bound and 368 give hi = the largest sample. */
static void test_p99_needs_368(void **state)
{
    (void)state;
    fior_bin *b = distinct(368);
    uint64_t lo, pt, hi;
    assert_int_equal(fior_quantile_bound(b, 367, 0.99, 0.95, &lo, &pt, &hi), FIOR_E_NODATA);
    assert_true(hi == UINT64_MAX);
    assert_int_equal(fior_quantile_bound(b, 368, 0.99, 0.95, &lo, &pt, &hi), FIOR_OK);
    assert_int_equal(hi, 368000);
    free(b);
}

/* One sample is already a lower bound of the p99: P(X(1) > p99) = 0.01 <= 0.025. */
static void test_one_sample_lower_bound(void **state)
{
    (void)state;
    fior_bin b = {30000000, 1};
    uint64_t lo, pt, hi;
    assert_int_equal(fior_quantile_bound(&b, 1, 0.99, 0.95, &lo, &pt, &hi), FIOR_E_NODATA);
    assert_int_equal(lo, 30000000);
    assert_int_equal(pt, 30000000);
}

/* Large n, binned: 1,000,000 samples, 990,000 at 1 ms, the rest at 20 ms. The bound ranks are
 * n*q -+ ~1.96*sqrt(n q (1-q)) = 990000 -+ 195, so lo is in the 1 ms bin and hi in the 20 ms bin. With
 * 985,000 at 1 ms instead, both ranks (>= 989,800) fall in the 20 ms bin. */
static void test_large_binned(void **state)
{
    (void)state;
    fior_bin b[2] = {{1000000, 990000}, {20000000, 10000}};
    uint64_t lo, pt, hi;
    assert_int_equal(fior_quantile_bound(b, 2, 0.99, 0.95, &lo, &pt, &hi), FIOR_OK);
    assert_int_equal(lo, 1000000);
    assert_int_equal(pt, 1000000);
    assert_int_equal(hi, 20000000);
    b[0].count = 985000;
    b[1].count = 15000;
    assert_int_equal(fior_quantile_bound(b, 2, 0.99, 0.95, &lo, &pt, &hi), FIOR_OK);
    assert_int_equal(lo, 20000000);
    assert_int_equal(hi, 20000000);
}

/* The ranks for a large n against the normal approximation (distinct values: value/1000 = rank). */
static void test_large_ranks_near_normal(void **state)
{
    (void)state;
    uint64_t n = 200000;
    fior_bin *b = distinct(n);
    uint64_t lo, pt, hi;
    assert_int_equal(fior_quantile_bound(b, n, 0.99, 0.95, &lo, &pt, &hi), FIOR_OK);
    double sd = sqrt(n * 0.99 * 0.01);
    double l = (double)lo / 1000, u = (double)hi / 1000;
    assert_true(fabs(l - (n * 0.99 - 1.96 * sd)) < 3);
    assert_true(fabs(u - (n * 0.99 + 1.96 * sd)) < 3);
    assert_int_equal(pt, 198000 * 1000);
    free(b);
}

static void test_bad_input(void **state)
{
    (void)state;
    fior_bin b[2] = {{2000, 1}, {1000, 1}};
    uint64_t lo, pt, hi;
    assert_int_equal(fior_quantile_bound(b, 2, 0.99, 0.95, &lo, &pt, &hi), FIOR_E_INVAL); /* not ascending */
    assert_int_equal(fior_quantile_bound(b, 1, 1.0, 0.95, &lo, &pt, &hi), FIOR_E_INVAL);
    assert_int_equal(fior_quantile_bound(b, 1, 0.99, 1.0, &lo, &pt, &hi), FIOR_E_INVAL);
    assert_int_equal(fior_quantile_bound(NULL, 0, 0.99, 0.95, &lo, &pt, &hi), FIOR_E_NODATA);
}

/* fior_look_bins into *k, the look before it freed (a look is the library's: fior_look_free). */
static fior_status look_again(fior_look **k, const fior_bin *b, size_t n, const fior_criteria *c, fior_role role,
                              double confidence, int accept_point)
{
    fior_look_free(*k);
    *k = NULL;
    fior_status st = fior_look_bins(b, n, c, role, confidence, accept_point, k);
    assert_true(st == FIOR_OK ? *k != NULL && (*k)->size == sizeof **k && (*k)->why != NULL : *k == NULL);
    return st;
}

/* One look: the bound is fior_quantile_bound's at the criteria's percentile, the verdict the bound rule's
 * (fior__bound_decide) on the point estimate's; too few samples, none, or a percentile the bins cannot
 * bound are UNKNOWN. */
static void test_look(void **state)
{
    (void)state;
    const uint64_t MS = 1000000;
    fior_look *k = NULL;
    /* 368 commits of 3 ms: the fewest whose one-look bound on the p99 has an upper end at 95 % */
    assert_int_equal(fior_look_samples(NULL, 0.95), 368);
    fior_criteria *c = fior_criteria_new();
    fior_criteria_set_min_samples(c, 500);
    assert_int_equal(fior_look_samples(c, 0.95), 500); /* never fewer than the criteria's minimum */
    assert_int_equal(fior_look_samples(NULL, 1.0), UINT64_MAX);
    fior_bin b[2] = {{3 * MS, 367}, {40 * MS, 0}};
    assert_int_equal(look_again(&k, b, 1, NULL, FIOR_ROLE_BACKEND, 0.95, 0), FIOR_OK);
    assert_int_equal(k->verdict, FIOR_UNKNOWN); /* no upper end yet: the bound straddles */
    assert_int_equal(k->basis, FIOR_BASIS_UNDECIDED);
    assert_int_equal(k->hi_ns, UINT64_MAX);
    assert_int_equal(k->point_ns, 3 * MS);
    assert_non_null(strstr(k->why, "367 samples cannot show it"));
    b[0].count = 368;
    assert_int_equal(look_again(&k, b, 1, NULL, FIOR_ROLE_BACKEND, 0.95, 0), FIOR_OK);
    assert_int_equal(k->verdict, FIOR_PASS);
    assert_int_equal(k->basis, FIOR_BASIS_BOUND);
    assert_int_equal(k->threshold_ns, 25 * MS);
    assert_int_equal(k->hi_ns, 3 * MS);
    assert_string_equal(k->why, "");
    /* the same bins against the WAL's 10 ms and a 2 ms threshold: FAIL on the bound */
    fior_criteria_set_threshold(c, FIOR_ROLE_WAL, 2 * MS);
    fior_criteria_set_min_samples(c, 100);
    assert_int_equal(look_again(&k, b, 1, c, FIOR_ROLE_WAL, 0.95, 0), FIOR_OK);
    assert_int_equal(k->verdict, FIOR_FAIL);
    assert_int_equal(k->lo_ns, 3 * MS);
    /* 2 % at 40 ms in 1000: the p99 point is 40 ms and so is the bound's lower end (rank ~984): FAIL */
    b[0].count = 980;
    b[1].count = 20;
    assert_int_equal(look_again(&k, b, 2, NULL, FIOR_ROLE_BACKEND, 0.95, 0), FIOR_OK);
    uint64_t lo, pt, hi;
    assert_int_equal(fior_quantile_bound(b, 2, 0.99, 0.95, &lo, &pt, &hi), FIOR_OK);
    assert_true(k->lo_ns == lo && k->point_ns == pt && k->hi_ns == hi && k->samples == 1000);
    assert_true(lo == 40 * MS && k->verdict == FIOR_FAIL && k->basis == FIOR_BASIS_BOUND);
    /* the criteria's percentile, not a fixed p99: the p50 of the same bins is 3 ms, bounded on both sides */
    fior_criteria_set_percentile(c, 50);
    assert_int_equal(look_again(&k, b, 2, c, FIOR_ROLE_BACKEND, 0.95, 0), FIOR_OK);
    assert_true(k->point_ns == 3 * MS && k->hi_ns == 3 * MS && k->verdict == FIOR_PASS);
    /* too few for the criteria, none at all, bad input */
    fior_criteria_set_min_samples(c, 5000);
    assert_int_equal(look_again(&k, b, 2, c, FIOR_ROLE_BACKEND, 0.95, 1), FIOR_OK);
    assert_true(k->verdict == FIOR_UNKNOWN && k->basis == FIOR_BASIS_NONE);
    assert_int_equal(look_again(&k, NULL, 0, NULL, FIOR_ROLE_WAL, 0.95, 1), FIOR_OK);
    assert_true(k->verdict == FIOR_UNKNOWN && k->samples == 0 && k->point_ns == UINT64_MAX);
    assert_int_equal(look_again(&k, NULL, 2, NULL, FIOR_ROLE_WAL, 0.95, 0), FIOR_E_INVAL);
    assert_int_equal(look_again(&k, b, 2, NULL, FIOR_ROLE_WAL, 1.5, 0), FIOR_E_INVAL);
    fior_bin down[2] = {{5 * MS, 300}, {1 * MS, 300}}; /* not ascending: no order statistics */
    assert_int_equal(look_again(&k, down, 2, NULL, FIOR_ROLE_WAL, 0.95, 1), FIOR_OK);
    assert_true(k->verdict == FIOR_UNKNOWN && k->hi_ns == UINT64_MAX);
    fior_look_free(k);
    fior_criteria_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_matches_exact_binomial),
        cmocka_unit_test(test_median_of_ten),
        cmocka_unit_test(test_p99_needs_368),
        cmocka_unit_test(test_one_sample_lower_bound),
        cmocka_unit_test(test_large_binned),
        cmocka_unit_test(test_large_ranks_near_normal),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_look),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
