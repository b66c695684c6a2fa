/* SPDX-License-Identifier: MIT */
/* look.c — one look at a finished distribution (fior_look_bins, fior_look_samples: fleet's and capacity's)
 * and the one rule by which a confidence bound on the percentile turns a point verdict into a verdict
 * (fior__bound_decide: also the end of a monitored run's, monitor/monitor_end.c). The bound itself is
 * bound/quantile.c's arithmetic. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "bound/seqbound.h"

fior_verdict fior__bound_rule(fior__ev_kind kind, fior_verdict point, uint64_t value_ns, uint64_t lo_ns, uint64_t hi_ns, uint64_t threshold_ns,
                              uint64_t samples, double percentile, double confidence, int accept_point,
                              fior_basis *basis, char *why, size_t whylen)
{
    fior_basis b = FIOR_BASIS_NONE;
    char vv[32], lo[32], hi[32], t[32], pn[16];
    fior__pct_text(pn, sizeof pn, percentile);
    if (why && whylen)
        why[0] = '\0';
    int pass_side = lo_ns != UINT64_MAX && hi_ns != UINT64_MAX && hi_ns < threshold_ns;
    int fail_side = lo_ns != UINT64_MAX && lo_ns > threshold_ns;
    fior__evidence ev = {kind, point, pass_side, fail_side, accept_point};
    fior_verdict v = fior__pass_rule(&ev, &b);
    if (point == FIOR_PASS || point == FIOR_FAIL) {
        if (b == FIOR_BASIS_NONE) { /* the bound and the point disagree: no verdict */
            if (why && whylen)
                snprintf(why, whylen, "the confidence bound %s..%s says %s but the %s %s says %s; cannot judge",
                         fior__ns_text(lo, sizeof lo, lo_ns), fior__ns_text(hi, sizeof hi, hi_ns), pass_side ? "pass" : "fail",
                         pn, fior__ns_text(vv, sizeof vv, value_ns), fior_verdict_name(point));
        } else if (b != FIOR_BASIS_BOUND) { /* straddles: UNDECIDED, or the point estimate accepted */
            if (why && whylen && lo_ns == UINT64_MAX)
                snprintf(why, whylen, "%s %s, but there is no confidence bound on it (no latency bins)",
                         pn, fior__ns_text(vv, sizeof vv, value_ns));
            else if (why && whylen)
                snprintf(why, whylen, "%s %s %s, but %llu samples cannot show it with %.0f %% confidence (bound "
                         "%s..%s straddles %s); run longer", pn, fior__ns_text(vv, sizeof vv, value_ns),
                         point == FIOR_PASS ? "looks fine" : "looks too slow",
                         (unsigned long long)(samples == UINT64_MAX ? 0 : samples), confidence * 100,
                         fior__ns_text(lo, sizeof lo, lo_ns), fior__ns_text(hi, sizeof hi, hi_ns), fior__ns_text(t, sizeof t, threshold_ns));
        }
    }
    if (basis)
        *basis = b;
    return v;
}

/* the rule as the CLI's fleet uses it (fioreport_cli.h), on the p99: a bound on a host's run, also the
 * re-proof of a remote check's */
fior_verdict fior__bound_decide(fior_verdict point, uint64_t value_ns, uint64_t lo_ns, uint64_t hi_ns,
                               uint64_t threshold_ns, uint64_t samples, double confidence, int accept_point,
                               fior_basis *basis, char *why, size_t whylen)
{
    return fior__bound_rule(FIOR__EV_REMOTE, point, value_ns, lo_ns, hi_ns, threshold_ns, samples, 99.0, confidence, accept_point,
                            basis, why, whylen);
}

FIOR_API uint64_t fior_look_samples(const fior_criteria *c, double confidence)
{
    double q = fior_criteria_percentile(c) / 100.0, tail = (1.0 - confidence) / 2.0;
    uint64_t min = fior_criteria_min_samples(c);
    if (!(confidence > 0.0 && confidence < 1.0))
        return UINT64_MAX;
    /* the upper end is the largest sample once P(all n below the quantile) = q^n <= tail (see above) */
    double x = ceil(log(tail) / log(q));
    uint64_t n = x > 1.0 ? (uint64_t)x : 1;
    while (n > 1 && pow(q, (double)(n - 1)) <= tail)
        n--;
    while (pow(q, (double)n) > tail)
        n++;
    return n > min ? n : min;
}

/* A look and the storage of its line (why points into it). */
typedef struct look_box {
    fior_look k;
    char      why[320];
} look_box;

FIOR_API fior_status fior_look_bins(const fior_bin *bins, size_t nbins, const fior_criteria *c, fior_role role,
                                    double confidence, int accept_point, fior_look **out)
{
    if (out)
        *out = NULL;
    if (!out || (!bins && nbins) || !(confidence > 0.0 && confidence < 1.0))
        return FIOR_E_INVAL;
    look_box *b = calloc(1, sizeof *b);
    if (!b)
        return FIOR_E_NOMEM;
    fior_look *k = &b->k;
    k->size = sizeof *k;
    k->why = b->why;
    k->verdict = FIOR_UNKNOWN;
    k->threshold_ns = fior_criteria_threshold(c, role);
    k->point_ns = k->hi_ns = UINT64_MAX;
    uint64_t pt = 0;
    if (fior__bins_total(bins, nbins, &k->samples))
        k->samples = UINT64_MAX; /* not a distribution: fior_quantile_bound refuses it below, UNKNOWN */
    fior_status st = FIOR_E_NODATA;
    if (k->samples)
        st = fior_quantile_bound(bins, nbins, fior_criteria_percentile(c) / 100.0, confidence, &k->lo_ns, &pt,
                                 &k->hi_ns);
    if (st == FIOR_E_INVAL) {
        k->lo_ns = 0;
        k->hi_ns = UINT64_MAX;
    } else if (k->samples) {
        k->point_ns = pt; /* set even when too few samples give no upper end */
    }
    if (k->samples && st != FIOR_E_INVAL && k->samples >= fior_criteria_min_samples(c))
        k->verdict = fior__bound_rule(FIOR__EV_LOOK, pt < k->threshold_ns ? FIOR_PASS : FIOR_FAIL, pt, k->lo_ns,
                                      k->hi_ns, k->threshold_ns, k->samples, fior_criteria_percentile(c), confidence,
                                      accept_point, &k->basis, b->why, sizeof b->why);
    *out = k;
    return FIOR_OK;
}

FIOR_API void fior_look_free(fior_look *k)
{
    free(k); /* k is the first member of its look_box */
}
