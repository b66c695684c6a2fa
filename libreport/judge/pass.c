/* SPDX-License-Identifier: MIT */
/* pass.c — the one rule by which evidence becomes a PASS or a FAIL, whatever route it came by: fio's
 * printed percentile (point), a Prometheus bucket (bucket), the sequential test at a monitored run's end
 * (sequential), one look at a finished distribution (look), a remote check's re-proof (remote, through
 * fior_bound_decide). Each route says what its evidence shows — the value below the threshold, at or
 * above it, or neither — and, for the bound routes, what the point estimate says; the rule gives the
 * verdict and what it rests on. The routes word their reasons. What made the samples (the run's end, the
 * medium, tmpfs) is judged after it, by verdict_source.c and verdict_medium.c, and can only take a PASS
 * away. */
#include "internal.h"

fior_verdict fior__pass_rule(const fior__evidence *e, fior_basis *basis)
{
    fior_basis b = FIOR_BASIS_NONE;
    fior_verdict v;
    if (e->kind == FIOR__EV_POINT || e->kind == FIOR__EV_BUCKET) {
        /* the value itself: its whole range below the threshold, or at or above it; both is an input that
         * contradicts itself */
        v = e->below && !e->above ? FIOR_PASS : e->above && !e->below ? FIOR_FAIL : FIOR_UNKNOWN;
        b = v == FIOR_UNKNOWN ? FIOR_BASIS_NONE : FIOR_BASIS_VALUE;
    } else if (e->point != FIOR_PASS && e->point != FIOR_FAIL) {
        v = e->point; /* nothing for a bound to confirm */
    } else if ((e->below && e->point == FIOR_PASS) || (e->above && e->point == FIOR_FAIL)) {
        v = e->point;
        b = FIOR_BASIS_BOUND;
    } else if (e->below || e->above) {
        v = FIOR_UNKNOWN; /* the bound and the point estimate disagree */
    } else { /* the bound straddles: the point estimate only when the caller accepts it */
        v = e->accept_point ? e->point : FIOR_UNKNOWN;
        b = e->accept_point ? FIOR_BASIS_POINT : FIOR_BASIS_UNDECIDED;
    }
    if (basis)
        *basis = b;
    return v;
}
