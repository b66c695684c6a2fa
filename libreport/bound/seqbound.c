/* SPDX-License-Identifier: MIT */
/* seqbound.c — the sequential test of each job's p99 against its threshold: a mixture likelihood ratio per
 * side, checked at every status document, and the anytime bound it gives (see seqbound.h). */
#include "seqbound.h"

#include <math.h>
#include <string.h>

/* Each side's alternatives, as multiples f of r = 1 - q: p = 1 - q^f (about f x r for small r, and always in
 * (0, 1)), with their weights (each side's sum is 1: component i spends w x delta of the side's error).
 * PASS: half on "no sample at the threshold" (p = 0, where M = q^-n: n samples all below the threshold pass
 * about where q^n <= delta/2), the rest over disks with 0.1 to 0.65 of r at the threshold. FAIL: 1.5 to 30
 * times r. Chosen by simulating streams at etcd's 10 backend commits/s and ~150 WAL syncs/s for shares of
 * slow samples from 0 to 100 % (bench/README.md "Sequential rule"). */
typedef struct alt {
    double f, w;
} alt;
static const alt pass_alt[] = {{0, 0.5},        {0.1, 1 / 12.0}, {0.2, 1 / 12.0}, {0.3, 1 / 12.0},
                               {0.4, 1 / 12.0}, {0.5, 1 / 12.0}, {0.65, 1 / 12.0}};
static const alt fail_alt[] = {{1.5, 0.125}, {2, 0.125}, {2.5, 0.125}, {3, 0.125},
                               {4, 0.125},   {6, 0.125}, {10, 0.125},  {30, 0.125}};
#define NALT(a) (sizeof(a) / sizeof *(a))
_Static_assert(NALT(pass_alt) <= NALT(fail_alt), "log_mix's scratch holds either side");

/* log of sum_i w_i (p_i/r)^c ((1-p_i)/(1-r))^(n-c), with 1 - p_i = q^f_i: the likelihood ratio of c of n
 * samples on the far side of the threshold, under the alternatives against the share r (-INFINITY: 0) */
static double log_mix(const alt *a, size_t na, double q, uint64_t n, uint64_t c)
{
    double lq = log(q), lr = log1p(-q), t[NALT(fail_alt)], hi = -INFINITY, sum = 0;
    for (size_t i = 0; i < na; i++) {
        double p = -expm1(a[i].f * lq); /* 1 - q^f */
        t[i] = p <= 0 ? (c ? -INFINITY : (double)n * -lq)
                      : (double)c * (log(p) - lr) + (double)(n - c) * (a[i].f - 1) * lq;
        t[i] += log(a[i].w);
        hi = t[i] > hi ? t[i] : hi;
    }
    if (hi == -INFINITY)
        return hi;
    for (size_t i = 0; i < na; i++)
        sum += exp(t[i] - hi);
    return hi + log(sum);
}

int64_t fior__seq_pass_max_above(double q, double delta, uint64_t n)
{
    double need = -log(delta);
    if (log_mix(pass_alt, NALT(pass_alt), q, n, 0) < need)
        return -1;
    uint64_t a = 0, b = n; /* decreasing in c: the largest c with M >= 1/delta */
    while (a < b) {
        uint64_t m = b - (b - a) / 2; /* the upper middle; a + (b - a + 1) / 2 wraps when b - a = UINT64_MAX */
        if (log_mix(pass_alt, NALT(pass_alt), q, n, m) >= need)
            a = m;
        else
            b = m - 1;
    }
    return (int64_t)a;
}

uint64_t fior__seq_fail_min_above(double q, double delta, uint64_t n)
{
    double need = -log(delta);
    if (log_mix(fail_alt, NALT(fail_alt), q, n, n) < need)
        return n + 1;
    uint64_t a = 0, b = n; /* increasing in d: the smallest d with M >= 1/delta */
    while (a < b) {
        uint64_t m = a + (b - a) / 2;
        if (log_mix(fail_alt, NALT(fail_alt), q, n, m) >= need)
            b = m;
        else
            a = m + 1;
    }
    return a ? a : 1;
}

/* the first n at or above min with a PASS possible at error delta (M(n, 0) grows with n) */
static uint64_t pass_from(double q, double delta, uint64_t min)
{
    uint64_t lo = min ? min : 1, hi = lo;
    if (fior__seq_pass_max_above(q, delta, lo) >= 0)
        return lo;
    while (fior__seq_pass_max_above(q, delta, hi) < 0 && hi < UINT64_MAX / 4)
        hi *= 2;
    while (lo + 1 < hi) { /* lo cannot, hi can */
        uint64_t m = lo + (hi - lo) / 2;
        if (fior__seq_pass_max_above(q, delta, m) >= 0)
            hi = m;
        else
            lo = m;
    }
    return hi;
}

uint64_t fior__seq_first_pass_look(double q, double confidence, uint64_t min_syncs)
{
    return pass_from(q, (1.0 - confidence) / 2.0, min_syncs);
}

static void side_init(fior__seq_side *s, uint64_t thr, const fior__seq_params *p)
{
    memset(s, 0, sizeof *s);
    s->threshold_ns = thr;
    s->hi_ns = UINT64_MAX;
    s->look_hi_ns = UINT64_MAX;
    s->look_confidence = p->confidence;
}

void fior__seq_init(fior__seq *c, const fior__seq_params *p, uint64_t wal_threshold_ns, uint64_t backend_threshold_ns,
             int expect_backend)
{
    memset(c, 0, sizeof *c);
    c->p = *p;
    double half = (1.0 - p->confidence) / 2.0;
    c->delta_fail = half;
    c->delta_pass = p->pass_share > 0 && p->pass_share < 1 ? half * p->pass_share : half;
    side_init(&c->wal, wal_threshold_ns, p);
    side_init(&c->backend, backend_threshold_ns, p);
    c->expect_backend = expect_backend;
}

void fior__seq_carry(fior__seq *c, const fior__seq *earlier)
{
    double rest = (1.0 - c->p.confidence) / 2.0 - earlier->delta_pass;
    c->delta_pass = rest > 0 ? rest : 0;
}

int fior__seq_pass_reachable(const fior__seq *c, const fior__seq_side *s, uint64_t by_n)
{
    int64_t most = c->delta_pass > 0 ? fior__seq_pass_max_above(c->p.q, c->delta_pass, by_n) : -1;
    return most >= 0 && (uint64_t)most >= s->above;
}

uint64_t fior__seq_pass_from(const fior__seq *c)
{
    return c->delta_pass > 0 ? pass_from(c->p.q, c->delta_pass, c->p.min_syncs) : UINT64_MAX;
}

static void side_update(fior__seq_side *s, const fior__seq *c, const fior_bin *bins, size_t nbins)
{
    const fior__seq_params *p = &c->p;
    uint64_t n = 0, above = 0;
    if (fior__bins_total(bins, nbins, &n))
        return; /* not a distribution (fior__monitor_feed_bins refuses it): no look */
    for (size_t i = 0; i < nbins; i++)
        above += bins[i].ns >= s->threshold_ns ? bins[i].count : 0;
    s->n = n;
    s->above = above;
    if (n == 0 && s->state == FIOR_DEC_ABSENT)
        return;
    /* The displayed bound is the one-look bound at the nominal confidence; decisions use the anytime one. */
    uint64_t lo = 0, pt = 0, hi = UINT64_MAX;
    if (n)
        fior_quantile_bound(bins, nbins, p->q, p->confidence, &lo, &pt, &hi);
    s->lo_ns = lo;
    s->point_ns = pt;
    s->hi_ns = hi;
    if (s->state == FIOR_DEC_PASS || s->state == FIOR_DEC_FAIL)
        return;
    if (n < p->min_syncs || n == 0) {
        s->state = FIOR_DEC_TOO_FEW;
        return;
    }
    if (s->state < FIOR_DEC_UNDECIDED)
        s->state = FIOR_DEC_UNDECIDED;
    /* lo = X(n-d+1) > thr exactly when d or more samples lie above thr; hi = X(n-c) < thr exactly when at
     * most c lie at or above it (X(k): the k-th smallest sample, fior__order_stat) */
    uint64_t d = fior__seq_fail_min_above(p->q, c->delta_fail, n);
    int64_t cmax = c->delta_pass > 0 ? fior__seq_pass_max_above(p->q, c->delta_pass, n) : -1;
    s->fail_looks++;
    s->pass_looks += cmax >= 0;
    s->look_lo_ns = d <= n ? fior__order_stat(bins, nbins, n - d + 1) : 0;
    s->look_hi_ns = cmax >= 0 && (uint64_t)cmax < n ? fior__order_stat(bins, nbins, n - (uint64_t)cmax) : UINT64_MAX;
    s->look_confidence = 1.0 - c->delta_pass - c->delta_fail;
    if (s->look_lo_ns > s->threshold_ns) {
        s->state = FIOR_DEC_FAIL;
        s->decided_n = n;
        s->decided_tail = c->delta_fail;
    } else if (s->look_hi_ns < s->threshold_ns &&
               (p->max_time_share <= 0 || fior__seq_time_share(bins, nbins, s->threshold_ns) <= p->max_time_share)) {
        s->state = FIOR_DEC_PASS;
        s->decided_n = n;
        s->decided_tail = c->delta_pass;
    }
}

int fior__seq_update(fior__seq *c, const fior_bin *wal, size_t nwal, const fior_bin *backend, size_t nbackend)
{
    if (nwal && c->wal.state == FIOR_DEC_ABSENT)
        c->wal.state = FIOR_DEC_TOO_FEW;
    if ((nbackend || c->expect_backend) && c->backend.state == FIOR_DEC_ABSENT)
        c->backend.state = FIOR_DEC_TOO_FEW;
    side_update(&c->wal, c, wal, nwal);
    side_update(&c->backend, c, backend, nbackend);
    if (!c->p.full && !c->stop) {
        fior_decision o = fior__seq_overall(c);
        if (o == FIOR_DEC_FAIL || o == FIOR_DEC_PASS)
            c->stop = 1;
    }
    return c->stop;
}

fior_decision fior__seq_final(fior__seq *c, const fior_bin *wal, size_t nwal, const fior_bin *backend, size_t nbackend)
{
    side_update(&c->wal, c, wal, nwal);
    side_update(&c->backend, c, backend, nbackend);
    return fior__seq_overall(c);
}

fior_decision fior__seq_overall(const fior__seq *c)
{
    if (c->wal_only)
        return c->wal.state;
    if (c->wal.state == FIOR_DEC_FAIL || c->backend.state == FIOR_DEC_FAIL)
        return FIOR_DEC_FAIL;
    if (c->wal.state == FIOR_DEC_ABSENT)
        return FIOR_DEC_ABSENT;
    fior_decision w = c->wal.state;
    fior_decision b = c->backend.state;
    if (b == FIOR_DEC_ABSENT && !c->expect_backend)
        return w;
    if (b == FIOR_DEC_ABSENT)
        b = FIOR_DEC_TOO_FEW;
    return w < b ? w : b; /* the weaker of the two: TOO_FEW < UNDECIDED < PASS */
}

double fior__seq_time_share(const fior_bin *b, size_t n, uint64_t thr)
{
    long double all = 0, above = 0;
    for (size_t i = 0; i < n; i++) {
        all += (long double)b[i].ns * (long double)b[i].count;
        if (b[i].ns > thr)
            above += (long double)(b[i].ns - thr) * (long double)b[i].count;
    }
    return all > 0 ? (double)(above / all) : 0.0;
}

const char *fior_decision_name(fior_decision s)
{
    switch (s) {
    case FIOR_DEC_ABSENT: return "absent";
    case FIOR_DEC_TOO_FEW: return "too few samples";
    case FIOR_DEC_UNDECIDED: return "undecided";
    case FIOR_DEC_PASS: return "pass";
    case FIOR_DEC_FAIL: return "fail";
    }
    return "?";
}

uint64_t fior_first_pass_samples(double q, double confidence, uint64_t min_samples)
{
    if (!(q > 0 && q < 1) || !(confidence > 0 && confidence < 1))
        return UINT64_MAX;
    return fior__seq_first_pass_look(q, confidence, min_samples);
}
