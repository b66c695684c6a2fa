/* SPDX-License-Identifier: MIT */
/* quantile.c — distribution-free confidence bound on a quantile from binned samples (fior_quantile_bound);
 * what such a bound proves about a verdict is the judge's (judge/look.c).
 *
 * With n samples and B = #samples below the true q-quantile, B ~ Binomial(n, q) whatever the latency
 * distribution is. The k-th order statistic X(k) lies above the quantile only when B < k, so
 *   P(X(l) > xi_q) = P(B <= l-1)   and   P(X(u) < xi_q) = P(B >= u).
 * We take the largest l and the smallest u whose tail is <= alpha/2 each (equal tails), which gives
 * P(X(l) <= xi_q <= X(u)) >= confidence. The order statistics of json+ bins are the bin values at the
 * cumulative ranks l and u. Tails are summed in log space from the term at k outwards, so it works for
 * n in the millions without overflow and without touching more than ~40 standard deviations of terms.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "fioreport_cli.h"
#include "seqbound.h"

/* log of the Binomial(n, q) probability mass at k */
static double binom_logpmf(uint64_t n, uint64_t k, double q)
{
    double dn = (double)n, dk = (double)k;
    return lgamma(dn + 1.0) - lgamma(dk + 1.0) - lgamma(dn - dk + 1.0) + dk * log(q) + (dn - dk) * log1p(-q);
}

/* Tail sums always start at the term farthest from the mode and walk away from it, so the terms only
 * shrink: the loop stops after a few dozen standard deviations, and a tail whose first term underflows is
 * truly below 1e-308. The other side is 1 minus the opposite tail. */
static uint64_t binom_mode(uint64_t n, double q)
{
    double m = floor(((double)n + 1.0) * q);
    return m > (double)n ? n : (uint64_t)m;
}

/* P(B <= k) for k below the mode, summed downwards from k. */
static double lower_tail(uint64_t n, uint64_t k, double q)
{
    double term = exp(binom_logpmf(n, k, q));
    double sum = term, ratio = (1.0 - q) / q;
    for (uint64_t i = k; i > 0 && term > sum * 1e-17; i--) {
        term *= (double)i / (double)(n - i + 1) * ratio; /* pmf(i-1) from pmf(i) */
        sum += term;
    }
    return sum;
}

/* P(B >= k) for k above the mode, summed upwards from k. */
static double upper_tail(uint64_t n, uint64_t k, double q)
{
    double term = exp(binom_logpmf(n, k, q));
    double sum = term, ratio = q / (1.0 - q);
    for (uint64_t i = k; i < n && term > sum * 1e-17; i++) {
        term *= (double)(n - i) / (double)(i + 1) * ratio; /* pmf(i+1) from pmf(i) */
        sum += term;
    }
    return sum;
}

static double clamp01(double x) { return x < 0.0 ? 0.0 : x > 1.0 ? 1.0 : x; }

/* P(B <= k) */
static double binom_cdf(uint64_t n, uint64_t k, double q)
{
    if (k >= n)
        return 1.0;
    if (k < binom_mode(n, q))
        return clamp01(lower_tail(n, k, q));
    return clamp01(1.0 - upper_tail(n, k + 1, q));
}

/* P(B >= k) */
static double binom_sf(uint64_t n, uint64_t k, double q)
{
    if (k == 0)
        return 1.0;
    if (k > n)
        return 0.0;
    if (k > binom_mode(n, q))
        return clamp01(upper_tail(n, k, q));
    return clamp01(1.0 - lower_tail(n, k - 1, q));
}

int fior__bins_total(const fior_bin *bins, size_t nbins, uint64_t *total)
{
    uint64_t n = 0;
    *total = 0;
    for (size_t i = 0; i < nbins; i++) {
        if (i && bins[i].ns < bins[i - 1].ns)
            return -1; /* order statistics need ascending bins */
        if (bins[i].count > UINT64_MAX - n)
            return -1; /* counts that wrap would make a few samples look like many */
        n += bins[i].count;
    }
    *total = n;
    return 0;
}

/* value of the k-th smallest sample (1-based k <= total) */
uint64_t fior__order_stat(const fior_bin *bins, size_t nbins, uint64_t k)
{
    uint64_t cum = 0;
    for (size_t i = 0; i < nbins; i++) {
        cum += bins[i].count;
        if (cum >= k)
            return bins[i].ns;
    }
    return nbins ? bins[nbins - 1].ns : 0;
}

FIOR_API fior_status fior_quantile_bound(const fior_bin *bins, size_t nbins, double q, double confidence,
                                         uint64_t *lo_ns, uint64_t *point_ns, uint64_t *hi_ns)
{
    if ((!bins && nbins) || !(q > 0.0 && q < 1.0) || !(confidence > 0.0 && confidence < 1.0))
        return FIOR_E_INVAL;
    uint64_t n = 0;
    if (fior__bins_total(bins, nbins, &n))
        return FIOR_E_INVAL;
    if (lo_ns)
        *lo_ns = 0;
    if (point_ns)
        *point_ns = 0;
    if (hi_ns)
        *hi_ns = UINT64_MAX;
    if (n == 0)
        return FIOR_E_NODATA;

    double tail = (1.0 - confidence) / 2.0;

    /* Point estimate the way fio computes its percentiles: first bin whose cumulative count >= q*n. */
    uint64_t point = 0, cum = 0;
    for (size_t i = 0; i < nbins; i++) {
        cum += bins[i].count;
        if ((double)cum >= q * (double)n) {
            point = bins[i].ns;
            break;
        }
    }

    /* Largest l in [0, n] with P(B <= l-1) <= tail (l = 0: no lower bound). P(B <= j) grows with j. */
    uint64_t l = 0;
    if (binom_cdf(n, 0, q) <= tail) {
        uint64_t a = 0, b = n - 1; /* invariant: cdf(a) <= tail; find the largest such j */
        if (binom_cdf(n, b, q) <= tail)
            a = b;
        while (a < b) {
            uint64_t m = a + (b - a + 1) / 2;
            if (binom_cdf(n, m, q) <= tail)
                a = m;
            else
                b = m - 1;
        }
        l = a + 1;
    }

    /* Smallest u in [1, n] with P(B >= u) <= tail; none when even P(B >= n) = q^n is larger. */
    uint64_t u = 0;
    if (binom_sf(n, n, q) <= tail) {
        uint64_t a = 1, b = n; /* sf(b) <= tail; find the smallest such u */
        while (a < b) {
            uint64_t m = a + (b - a) / 2;
            if (binom_sf(n, m, q) <= tail)
                b = m;
            else
                a = m + 1;
        }
        u = a;
    }

    if (lo_ns)
        *lo_ns = l ? fior__order_stat(bins, nbins, l) : 0;
    if (point_ns)
        *point_ns = point;
    if (u == 0)
        return FIOR_E_NODATA;
    if (hi_ns)
        *hi_ns = fior__order_stat(bins, nbins, u);
    return FIOR_OK;
}
