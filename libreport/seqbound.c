/* SPDX-License-Identifier: MIT */
/* seqbound.c — the sequential confidence bound and its error spending (see seqbound.h). */
#include "seqbound.h"

#include <math.h>
#include <string.h>

/* smallest n with q^n <= tail: below it, an upper bound on the q-quantile cannot exist */
static uint64_t n_for_upper(double q, double tail)
{
    double n = ceil(log(tail) / log(q));
    uint64_t k = n > 1 ? (uint64_t)n : 1;
    while (k > 1 && pow(q, (double)(k - 1)) <= tail)
        k--;
    while (pow(q, (double)k) > tail)
        k++;
    return k;
}

static void side_init(fior__seq_side *s, uint64_t thr, const fior__seq_params *p)
{
    memset(s, 0, sizeof *s);
    s->threshold_ns = thr;
    s->hi_ns = UINT64_MAX;
    s->next_fail_look = p->min_syncs ? p->min_syncs : 1;
    s->next_pass_look = fior__seq_first_pass_look(p->q, p->confidence, s->next_fail_look);
    s->look_hi_ns = UINT64_MAX;
    s->look_confidence = p->confidence;
}

uint64_t fior__seq_first_pass_look(double q, double confidence, uint64_t min_syncs)
{
    uint64_t first_pass = n_for_upper(q, (1.0 - confidence) / 4.0);
    return first_pass > min_syncs ? first_pass : (min_syncs ? min_syncs : 1);
}

void fior__seq_init(fior__seq *c, const fior__seq_params *p, uint64_t wal_threshold_ns, uint64_t backend_threshold_ns,
             int expect_backend)
{
    memset(c, 0, sizeof *c);
    c->p = *p;
    side_init(&c->wal, wal_threshold_ns, p);
    side_init(&c->backend, backend_threshold_ns, p);
    c->expect_backend = expect_backend;
}

static uint64_t count(const fior_bin *b, size_t n)
{
    uint64_t t = 0;
    for (size_t i = 0; i < n; i++)
        t += b[i].count;
    return t;
}

static void side_update(fior__seq_side *s, const fior__seq_params *p, const fior_bin *bins, size_t nbins)
{
    uint64_t n = count(bins, nbins);
    s->n = n;
    if (n == 0 && s->state == FIOR_DEC_ABSENT)
        return;
    /* The displayed bound is at the nominal confidence; decisions use the spent-error bound below. */
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
    double alpha = 1.0 - p->confidence;
    if (n >= s->next_fail_look) {
        double tail = ldexp(alpha, -(int)(s->fail_looks + 2)); /* alpha/2^(k+2) */
        s->fail_looks++;
        while (s->next_fail_look <= n && s->next_fail_look < UINT64_MAX / 2)
            s->next_fail_look *= 2;
        uint64_t llo = 0, lpt, lhi;
        fior_quantile_bound(bins, nbins, p->q, 1.0 - 2.0 * tail, &llo, &lpt, &lhi);
        s->look_lo_ns = llo;
        s->look_hi_ns = lhi;
        s->look_confidence = 1.0 - 2.0 * tail;
        if (llo > s->threshold_ns) {
            s->state = FIOR_DEC_FAIL;
            s->decided_n = n;
            s->decided_tail = tail;
            return;
        }
    }
    if (n >= s->next_pass_look) {
        double tail = ldexp(alpha, -(int)(s->pass_looks + 2));
        s->pass_looks++;
        while (s->next_pass_look <= n && s->next_pass_look < UINT64_MAX / 2)
            s->next_pass_look *= 2;
        uint64_t llo, lpt, lhi = UINT64_MAX;
        fior_status st = fior_quantile_bound(bins, nbins, p->q, 1.0 - 2.0 * tail, &llo, &lpt, &lhi);
        s->look_lo_ns = llo;
        s->look_hi_ns = st == FIOR_OK ? lhi : UINT64_MAX;
        s->look_confidence = 1.0 - 2.0 * tail;
        if (st == FIOR_OK && lhi < s->threshold_ns &&
            (p->max_time_share <= 0 || fior__seq_time_share(bins, nbins, s->threshold_ns) <= p->max_time_share)) {
            s->state = FIOR_DEC_PASS;
            s->decided_n = n;
            s->decided_tail = tail;
        }
    }
}
int fior__seq_update(fior__seq *c, const fior_bin *wal, size_t nwal, const fior_bin *backend, size_t nbackend)
{
    if (nwal && c->wal.state == FIOR_DEC_ABSENT)
        c->wal.state = FIOR_DEC_TOO_FEW;
    if ((nbackend || c->expect_backend) && c->backend.state == FIOR_DEC_ABSENT)
        c->backend.state = FIOR_DEC_TOO_FEW;
    side_update(&c->wal, &c->p, wal, nwal);
    side_update(&c->backend, &c->p, backend, nbackend);
    if (!c->p.full && !c->stop) {
        fior_decision o = fior__seq_overall(c);
        if (o == FIOR_DEC_FAIL || o == FIOR_DEC_PASS)
            c->stop = 1;
    }
    return c->stop;
}

fior_decision fior__seq_final(fior__seq *c, const fior_bin *wal, size_t nwal, const fior_bin *backend, size_t nbackend)
{
    fior__seq_side *sides[2] = {&c->wal, &c->backend};
    for (int i = 0; i < 2; i++)
        if (sides[i]->state == FIOR_DEC_UNDECIDED)
            sides[i]->next_fail_look = sides[i]->next_pass_look = 1; /* due now, whatever the schedule */
    side_update(&c->wal, &c->p, wal, nwal);
    side_update(&c->backend, &c->p, backend, nbackend);
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

void fior__seq_carry(fior__seq *c, const fior__seq *earlier)
{
    fior__seq_side *now[2] = {&c->wal, &c->backend};
    const fior__seq_side *then[2] = {&earlier->wal, &earlier->backend};
    for (int i = 0; i < 2; i++) {
        unsigned k = then[i]->pass_looks;
        now[i]->pass_looks = k;
        /* the first count where an upper bound at look k's tail exists, and not before min_syncs */
        uint64_t n = n_for_upper(c->p.q, ldexp(1.0 - c->p.confidence, -(int)(k + 2)));
        uint64_t m = c->p.min_syncs ? c->p.min_syncs : 1;
        now[i]->next_pass_look = n > m ? n : m;
    }
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
