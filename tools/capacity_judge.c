/* SPDX-License-Identifier: MIT */
/* capacity_judge.c — the decision of `etcd-fio capacity` (pure; tests/cli/test_capacity.c), and what limits a row.
 *
 * capacity_decide makes the run's verdict from its rows; each row's side is libfioreport's one look at the end of
 * a run (fior_look_bins: the confidence bound on the p99 from fio's json+ bins of all its samples, the bound
 * rule on it, at least the criteria's minimum of samples), and the sides make the row by the library's
 * rule (fior_verdict_combine: it fails when one bound lies above its threshold, passes when both lie below);
 * else it is undecided, with its point estimates (which --accept-point-estimate takes). The ceiling is the
 * highest write rate among the rows that pass. */
#include <stdlib.h>
#include <string.h>

#include "capacity.h"
#include "cli.h"
#include "fioreport_monitor.h"

/* One side of a row: the library's one look at its distribution (fior_look_bins: the bound on the p99 from
 * all its samples' exact bins, and the bound rule on it). */
static fior_verdict side(const fior_bin *b, size_t n, const fior_criteria *c, fior_role role, double confidence,
                         int accept_point, uint64_t *lo, uint64_t *hi, uint64_t *point, int *bound_clear)
{
    fior_look *lk = NULL;
    if (fior_look_bins(b, n, c, role, confidence, accept_point, &lk) != FIOR_OK) { /* bins the library refuses */
        *lo = 0;
        *hi = UINT64_MAX;
        *point = RESULT_UNKNOWN;
        *bound_clear = 0;
        return FIOR_UNKNOWN;
    }
    *lo = lk->lo_ns;
    *hi = lk->hi_ns;
    *point = lk->point_ns == UINT64_MAX ? RESULT_UNKNOWN : lk->point_ns;
    *bound_clear = lk->basis == FIOR_BASIS_BOUND;
    fior_verdict v = lk->verdict;
    fior_look_free(lk);
    return v;
}

static uint64_t point_p99(const fior_bin *b, size_t n, const fior_criteria *c, double confidence)
{
    uint64_t lo, hi, p;
    int clear;
    side(b, n, c, FIOR_ROLE_WAL, confidence, 0, &lo, &hi, &p, &clear);
    return p;
}

uint64_t capacity_samples_needed(double confidence)
{
    return fior_look_samples(NULL, confidence); /* the smallest sample whose bound on the p99 can be finite */
}

static void judge_row(capacity_row *r, const fior_criteria *c, double confidence, int accept_point)
{
    uint64_t min = fior_criteria_min_samples(c);
    char a[32], b[32];
    if (!r->ran) {
        r->verdict = FIOR_UNKNOWN;
        r->basis = RESULT_BASIS_NONE;
        cli_msg(r->reason, sizeof r->reason, "%s", r->why[0] ? r->why : "no result");
        return;
    }
    int wc, bc;
    uint64_t wp, bp;
    fior_verdict v[2];
    v[0] = side(r->wal_bins, r->nwal, c, FIOR_ROLE_WAL, confidence, 0, &r->wal_lo_ns, &r->wal_hi_ns, &wp, &wc);
    v[1] = side(r->be_bins, r->nbe, c, FIOR_ROLE_BACKEND, confidence, 0, &r->be_lo_ns, &r->be_hi_ns, &bp, &bc);
    /* the row shows the p99 its bound brackets: the library's point estimate from the same bins */
    if (wp != RESULT_UNKNOWN)
        r->wal_p99_ns = wp;
    if (bp != RESULT_UNKNOWN)
        r->be_p99_ns = bp;
    fior_verdict rv = fior_verdict_combine(v, 2); /* the library's rule: any FAIL fails, both PASS pass */
    if (rv == FIOR_FAIL || rv == FIOR_PASS) {
        r->verdict = rv;
        r->basis = RESULT_BASIS_BOUND;
        if (rv == FIOR_FAIL)
            cli_msg(r->reason, sizeof r->reason, "%s p99 above its threshold with %g confidence",
                    explain_role_label(EXPLAIN_DISK_TEST, v[0] == FIOR_FAIL ? FIOR_ROLE_WAL : FIOR_ROLE_BACKEND),
                    confidence);
        else
            cli_msg(r->reason, sizeof r->reason, "both p99s below their thresholds with %g confidence", confidence);
        return;
    }
    /* undecided: the point estimates, which --accept-point-estimate takes (the library's look with the point
     * accepted, combined by the same rule) */
    uint64_t lo, hi, p;
    int clear;
    fior_verdict pt[2] = {side(r->wal_bins, r->nwal, c, FIOR_ROLE_WAL, confidence, 1, &lo, &hi, &p, &clear),
                          side(r->be_bins, r->nbe, c, FIOR_ROLE_BACKEND, confidence, 1, &lo, &hi, &p, &clear)};
    fior_verdict pv = fior_verdict_combine(pt, 2);
    cli_fmt_ns(a, sizeof a, wp);
    cli_fmt_ns(b, sizeof b, bp);
    int few = r->wal_n < min || r->be_n < min;
    cli_msg(r->reason, sizeof r->reason, "%s: point estimates WAL p99 %s, backend p99 %s (%llu and %llu samples)",
            few ? "too few samples" : "a p99 bound straddles its threshold", a, b, (unsigned long long)r->wal_n,
            (unsigned long long)r->be_n);
    r->verdict = accept_point && !few ? pv : FIOR_UNKNOWN;
    r->basis = accept_point && !few && pv != FIOR_UNKNOWN ? RESULT_BASIS_POINT : RESULT_BASIS_UNDECIDED;
}

void capacity_decide(capacity_result *res, const fior_criteria *c, double confidence, int accept_point)
{
    res->ceiling = -1;
    int any_fail_low = 0, undecided = 0;
    unsigned lowest = UINT32_MAX;
    for (size_t i = 0; i < res->nrows; i++) {
        judge_row(&res->rows[i], c, confidence, accept_point);
        const capacity_row *r = &res->rows[i];
        if (r->verdict == FIOR_PASS && (res->ceiling < 0 || r->writes_per_s > res->rows[res->ceiling].writes_per_s))
            res->ceiling = (int)i;
        if (r->clients < lowest)
            lowest = r->clients;
    }
    for (size_t i = 0; i < res->nrows; i++) {
        const capacity_row *r = &res->rows[i];
        if (r->clients == lowest && r->verdict == FIOR_FAIL && r->basis == RESULT_BASIS_BOUND)
            any_fail_low = 1;
        if (r->verdict == FIOR_UNKNOWN)
            undecided = 1;
    }
    char wl[32], wh[32], bl[32], bh[32];
    if (res->interrupted) {
        res->verdict = FIOR_UNKNOWN;
        res->basis = RESULT_BASIS_NONE;
        cli_msg(res->reason, sizeof res->reason, "interrupted: no ceiling");
    } else if (res->ceiling >= 0) {
        const capacity_row *r = &res->rows[res->ceiling];
        res->verdict = FIOR_PASS;
        res->basis = r->basis;
        cli_fmt_ns(wl, sizeof wl, r->wal_lo_ns);
        cli_fmt_ns(wh, sizeof wh, r->wal_hi_ns == UINT64_MAX ? CLI_NS_UNKNOWN : r->wal_hi_ns);
        cli_fmt_ns(bl, sizeof bl, r->be_lo_ns);
        cli_fmt_ns(bh, sizeof bh, r->be_hi_ns == UINT64_MAX ? CLI_NS_UNKNOWN : r->be_hi_ns);
        char wp[32], bp[32];
        cli_fmt_ns(wp, sizeof wp, r->wal_p99_ns);
        cli_fmt_ns(bp, sizeof bp, r->be_p99_ns);
        /* the row it comes from, by its clients (and its run), and that row's own figures */
        cli_msg(res->reason, sizeof res->reason,
                "this disk keeps etcd within its thresholds up to %.0f writes/s, the row of %u client%s%s: WAL p99 "
                "%s (bound %s..%s), backend p99 %s (bound %s..%s), %.4g %% confidence%s%s",
                r->writes_per_s, r->clients, r->clients == 1 ? "" : "s",
                res->ceiling >= (int)res->nsweep ? " (confirmation)" : "", wp, wl, wh, bp, bl, bh, confidence * 100,
                r->basis == RESULT_BASIS_POINT ? " (bounds straddle: point estimate accepted)" : "",
                capacity_limit_not_disk(r) ? "; the disk is not what limits it there" : "");
    } else if (any_fail_low) {
        res->verdict = FIOR_FAIL;
        res->basis = RESULT_BASIS_BOUND;
        const capacity_row *fr = NULL; /* the row that shows it: its own reason */
        for (size_t i = 0; i < res->nrows && !fr; i++)
            if (res->rows[i].clients == lowest && res->rows[i].verdict == FIOR_FAIL && res->rows[i].basis == RESULT_BASIS_BOUND)
                fr = &res->rows[i];
        cli_msg(res->reason, sizeof res->reason,
                "even at %u client%s this disk does not keep etcd within its thresholds (the row of %u client%s%s: "
                "%s)", lowest, lowest == 1 ? "" : "s", lowest, lowest == 1 ? "" : "s",
                fr && fr >= &res->rows[res->nsweep] ? ", confirmation" : "", fr ? fr->reason : "");
    } else {
        res->verdict = FIOR_UNKNOWN;
        res->basis = RESULT_BASIS_UNDECIDED;
        cli_msg(res->reason, sizeof res->reason, "no client count decided%s%s", undecided ? " (see the rows)" : "",
                res->confirm_skipped ? "; the confirmation run that could decide it did not fit in --max-time" : "");
    }
}

int capacity_candidate(const capacity_result *res, const fior_criteria *c, double confidence)
{
    uint64_t wt = fior_criteria_threshold(c, FIOR_ROLE_WAL), bt = fior_criteria_threshold(c, FIOR_ROLE_BACKEND);
    int best[2] = {-1, -1}; /* [0]: the WAL's bound already below its threshold; [1]: its point estimate only */
    for (size_t i = 0; i < res->nsweep; i++) {
        const capacity_row *r = &res->rows[i];
        if (!r->ran || r->excluded || (r->verdict == FIOR_FAIL && r->basis == RESULT_BASIS_BOUND))
            continue;
        uint64_t wp = point_p99(r->wal_bins, r->nwal, c, confidence), bp = point_p99(r->be_bins, r->nbe, c, confidence);
        if (wp == RESULT_UNKNOWN || bp == RESULT_UNKNOWN || wp >= wt || bp >= bt)
            continue;
        int k = r->wal_hi_ns < wt ? 0 : 1;
        if (best[k] < 0 || r->writes_per_s > res->rows[best[k]].writes_per_s)
            best[k] = (int)i;
    }
    return best[0] >= 0 ? best[0] : best[1];
}

static int cpu_bound(const capacity_row *r)
{
    return r->cpu_share >= r->save_share || r->apply_share >= 0.8;
}

int capacity_limit_not_disk(const capacity_row *r)
{
    return r->ran && r->blocked_share < 0.15 && (cpu_bound(r) || r->save_share + r->cpu_share < 0.5);
}

const char *capacity_limit(const capacity_row *r)
{
    if (!r->ran)
        return "-";
    if (r->blocked_share >= 0.15)
        return "backend commits";
    if (cpu_bound(r))
        return "CPU (etcd's work per put): not the disk";
    if (r->save_share + r->cpu_share < 0.5)
        return "the clients' round trip: not the disk";
    return r->write_share >= 0.5 ? "disk bandwidth" : "fdatasync latency";
}
