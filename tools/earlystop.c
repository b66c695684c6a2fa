/* SPDX-License-Identifier: MIT */
/* earlystop.c — early-stop decision for `etcd-fio check` (see earlystop.h for the error accounting). */
#include "earlystop.h"

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

static void side_init(es_side *s, uint64_t thr, const es_params *p)
{
    memset(s, 0, sizeof *s);
    s->threshold_ns = thr;
    s->hi_ns = UINT64_MAX;
    s->next_fail_look = p->min_syncs ? p->min_syncs : 1;
    s->next_pass_look = es_first_pass_look(p->q, p->confidence, s->next_fail_look);
    s->look_hi_ns = UINT64_MAX;
    s->look_confidence = p->confidence;
}

uint64_t es_first_pass_look(double q, double confidence, uint64_t min_syncs)
{
    uint64_t first_pass = n_for_upper(q, (1.0 - confidence) / 4.0);
    return first_pass > min_syncs ? first_pass : (min_syncs ? min_syncs : 1);
}

void es_init(es_ctl *c, const es_params *p, uint64_t wal_threshold_ns, uint64_t backend_threshold_ns,
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

static void side_update(es_side *s, const es_params *p, const fior_bin *bins, size_t nbins)
{
    uint64_t n = count(bins, nbins);
    s->n = n;
    if (n == 0 && s->state == ES_ABSENT)
        return;
    /* The displayed bound is at the nominal confidence; decisions use the spent-error bound below. */
    uint64_t lo = 0, pt = 0, hi = UINT64_MAX;
    if (n)
        fior_quantile_bound(bins, nbins, p->q, p->confidence, &lo, &pt, &hi);
    s->lo_ns = lo;
    s->point_ns = pt;
    s->hi_ns = hi;
    if (s->state == ES_PASS || s->state == ES_FAIL)
        return;
    if (n < p->min_syncs || n == 0) {
        s->state = ES_TOO_FEW;
        return;
    }
    if (s->state < ES_UNDECIDED)
        s->state = ES_UNDECIDED;
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
            s->state = ES_FAIL;
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
            (p->max_time_share <= 0 || es_time_share_above(bins, nbins, s->threshold_ns) <= p->max_time_share)) {
            s->state = ES_PASS;
            s->decided_n = n;
            s->decided_tail = tail;
        }
    }
}
int es_update(es_ctl *c, const fior_bin *wal, size_t nwal, const fior_bin *backend, size_t nbackend)
{
    if (nwal && c->wal.state == ES_ABSENT)
        c->wal.state = ES_TOO_FEW;
    if ((nbackend || c->expect_backend) && c->backend.state == ES_ABSENT)
        c->backend.state = ES_TOO_FEW;
    side_update(&c->wal, &c->p, wal, nwal);
    side_update(&c->backend, &c->p, backend, nbackend);
    if (!c->p.full && !c->stop) {
        es_state o = es_overall(c);
        if (o == ES_FAIL || o == ES_PASS)
            c->stop = 1;
    }
    return c->stop;
}

es_state es_final(es_ctl *c, const fior_bin *wal, size_t nwal, const fior_bin *backend, size_t nbackend)
{
    es_side *sides[2] = {&c->wal, &c->backend};
    for (int i = 0; i < 2; i++)
        if (sides[i]->state == ES_UNDECIDED)
            sides[i]->next_fail_look = sides[i]->next_pass_look = 1; /* due now, whatever the schedule */
    side_update(&c->wal, &c->p, wal, nwal);
    side_update(&c->backend, &c->p, backend, nbackend);
    return es_overall(c);
}

es_state es_overall(const es_ctl *c)
{
    if (c->wal.state == ES_FAIL || c->backend.state == ES_FAIL)
        return ES_FAIL;
    if (c->wal.state == ES_ABSENT)
        return ES_ABSENT;
    es_state w = c->wal.state;
    es_state b = c->backend.state;
    if (b == ES_ABSENT && !c->expect_backend)
        return w;
    if (b == ES_ABSENT)
        b = ES_TOO_FEW;
    return w < b ? w : b; /* the weaker of the two: TOO_FEW < UNDECIDED < PASS */
}

void es_carry_pass_looks(es_ctl *c, const es_ctl *earlier)
{
    es_side *now[2] = {&c->wal, &c->backend};
    const es_side *then[2] = {&earlier->wal, &earlier->backend};
    for (int i = 0; i < 2; i++) {
        unsigned k = then[i]->pass_looks;
        now[i]->pass_looks = k;
        /* the first count where an upper bound at look k's tail exists, and not before min_syncs */
        uint64_t n = n_for_upper(c->p.q, ldexp(1.0 - c->p.confidence, -(int)(k + 2)));
        uint64_t m = c->p.min_syncs ? c->p.min_syncs : 1;
        now[i]->next_pass_look = n > m ? n : m;
    }
}

double es_time_share_above(const fior_bin *b, size_t n, uint64_t thr)
{
    long double all = 0, above = 0;
    for (size_t i = 0; i < n; i++) {
        all += (long double)b[i].ns * (long double)b[i].count;
        if (b[i].ns > thr)
            above += (long double)(b[i].ns - thr) * (long double)b[i].count;
    }
    return all > 0 ? (double)(above / all) : 0.0;
}

const char *es_state_name(es_state s)
{
    switch (s) {
    case ES_ABSENT: return "absent";
    case ES_TOO_FEW: return "too few samples";
    case ES_UNDECIDED: return "undecided";
    case ES_PASS: return "pass";
    case ES_FAIL: return "fail";
    }
    return "?";
}
