/* SPDX-License-Identifier: MIT */
/* fleet_proof.c — fleet_remote_proof(), pure (tests/cli/test_fleet_ssh.c): a remote check's PASS or FAIL
 * stands only when its own numbers prove it under this run's criteria (fleet.h says the rule); otherwise
 * the host is "unproven". fleet_remote.c reads the remote's JSON and calls it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "fioreport_monitor.h"
#include "fleet.h"

/* ---- the proof ---- */

fior_verdict fleet_remote_verdict_word(const char *s)
{
    fior_verdict v;
    return fior_verdict_from_name(s, &v) == FIOR_OK ? v : (fior_verdict)-1;
}

static int same_conf(double remote, double ours) /* check prints the confidence with %.6g */
{
    char b[32];
    snprintf(b, sizeof b, "%.6g", ours);
    return fabs(remote - strtod(b, NULL)) < 1e-12;
}

static void unproven(result_host *h, const char *why)
{
    for (size_t i = 0; i < h->njobs; i++)
        h->jobs[i].verdict = FIOR_UNKNOWN;
    h->verdict = FIOR_UNKNOWN;
    h->basis = RESULT_BASIS_NONE;
    cli_msg(h->status, sizeof h->status, "unproven");
    cli_msg(h->reason, sizeof h->reason, "%s", why);
}

/* Why the remote's run cannot prove anything under this run's criteria (0: it can), in why. */
static int run_problem(const fleet *f, const fior_criteria *c, const fleet_remote *rr, char *why, size_t n)
{
    /* the JSON's words for a normal end (details.run.end: check_out.c), never its English text */
    static const char *const ended_normally[] = {"decided", "ran-to-time", "full"};
    char a[32], b[32];
    if (fabs(rr->percentile - fior_criteria_percentile(c)) > 1e-9 ||
        rr->wal_ns != fior_criteria_threshold(c, FIOR_ROLE_WAL) ||
        rr->backend_ns != fior_criteria_threshold(c, FIOR_ROLE_BACKEND) ||
        rr->min_samples != fior_criteria_min_samples(c) || !same_conf(rr->confidence, f->confidence) ||
        strcmp(rr->load, f->load)) {
        cli_msg(why, n, "the remote check judged other criteria (p%g, WAL %s, backend %s, %llu samples, confidence "
                "%g, load %s) than this run asks for", rr->percentile, cli_fmt_ns(a, sizeof a, rr->wal_ns),
                cli_fmt_ns(b, sizeof b, rr->backend_ns), (unsigned long long)rr->min_samples, rr->confidence,
                rr->load[0] ? rr->load : "?");
        return 1;
    }
    int normal = 0;
    for (size_t i = 0; i < sizeof ended_normally / sizeof *ended_normally; i++)
        normal |= !strcmp(rr->run_end, ended_normally[i]);
    if (!normal) {
        cli_msg(why, n, "the remote run ended '%s', not normally: not judged", rr->run_end);
        return 1;
    }
    if (rr->decided_by != 1 && rr->decided_by != 2) {
        cli_msg(why, n, "the remote check does not say which phase decided");
        return 1;
    }
    if (rr->decided_by == 1 && !(rr->phase2_ran && rr->probe_ok)) {
        cli_msg(why, n, "the remote check's phase-1 result was not confirmed by its phase 2");
        return 1;
    }
    return 0;
}

/* Why job j's PASS or FAIL is not shown by its numbers (0: it is, or the job claims neither). */
static int known(uint64_t v)
{
    return v != RESULT_UNKNOWN;
}

/* The fewest samples from which the bound a check prints (two-sided, at `confidence`) can have an upper end:
 * the library's one-look count; 0 when it cannot say. */
static uint64_t least_for_a_bound(const fior_criteria *c, double percentile, double confidence)
{
    fior_criteria *cq = fior_criteria_dup(c);
    uint64_t need = 0;
    if (cq && fior_criteria_set_percentile(cq, percentile) == FIOR_OK && fior_criteria_set_min_samples(cq, 1) == FIOR_OK)
        need = fior_look_samples(cq, confidence);
    fior_criteria_free(cq);
    return need == UINT64_MAX ? 0 : need;
}

/* Numbers no real run gives: quantiles out of order, a bound that does not hold its value, a median below
 * the physical floor (no flush to a disk is that fast: libfioreport's floor), or an upper bound on the p99
 * from fewer samples than the check's two-sided bound needs (its upper end is at best the largest of n
 * samples, at a tail of q^n <= (1 - confidence) / 2: for p99 at 95 %, n >= 368). Such a remote result is not
 * proof of anything. */
static int impossible(const fior_criteria *c, double confidence, const fleet_remote *rr, const result_job *j,
                      const char *what, char *why, size_t n)
{
    char a[32], b[32];
    uint64_t need = least_for_a_bound(c, rr->percentile, confidence);
    /* fio's percentiles are the upper edges of its histogram bins (stat.c plat_idx_to_val: up to 1/32 above
     * the latency), so a p99 may stand a little above the exact max */
    uint64_t maxe = known(j->max_ns) ? j->max_ns + j->max_ns / 16 : RESULT_UNKNOWN;
    if ((known(j->p50_ns) && known(j->p99_ns) && j->p50_ns > j->p99_ns) ||
        (known(j->p99_ns) && known(maxe) && j->p99_ns > maxe) || (known(j->p50_ns) && known(maxe) && j->p50_ns > maxe))
        cli_msg(why, n, "%s: quantiles out of order (p50 %s, p99 %s, max %s)", what, cli_fmt_ns(a, sizeof a, j->p50_ns),
                cli_fmt_ns(b, sizeof b, j->p99_ns), cli_fmt_ns((char[32]){0}, 32, j->max_ns));
    else if ((known(j->bound_lo_ns) && known(j->judged_ns) && j->bound_lo_ns > j->judged_ns) ||
             (known(j->bound_hi_ns) && known(j->judged_ns) && j->bound_hi_ns < j->judged_ns))
        cli_msg(why, n, "%s: its bound %s..%s does not hold its p99 %s", what, cli_fmt_ns(a, sizeof a, j->bound_lo_ns),
                cli_fmt_ns(b, sizeof b, j->bound_hi_ns), cli_fmt_ns((char[32]){0}, 32, j->judged_ns));
    else if (j->verdict == FIOR_PASS && known(j->p50_ns) && j->p50_ns < fior_criteria_floor(c))
        cli_msg(why, n, "%s: a median of %s, below what any flush to a disk takes (%s): these syncs did not reach a "
                "disk", what, cli_fmt_ns(a, sizeof a, j->p50_ns), cli_fmt_ns(b, sizeof b, fior_criteria_floor(c)));
    else if (j->verdict == FIOR_PASS && known(j->bound_hi_ns) && need && j->samples < need)
        cli_msg(why, n, "%s: an upper bound on the p%g from %llu samples, which cannot give one with %.0f %% confidence "
                "(that needs %llu)", what, rr->percentile, (unsigned long long)j->samples, confidence * 100,
                (unsigned long long)need);
    else
        return 0;
    return 1;
}

static int job_problem(const fior_criteria *c, double confidence, const fleet_remote *rr, const result_job *j, char *why,
                       size_t n)
{
    const char *what = j->role == FIOR_ROLE_BACKEND ? "backend" : "WAL";
    uint64_t T = fior_criteria_threshold(c, j->role), v = j->judged_ns, min = fior_criteria_min_samples(c);
    char a[32], b[32];
    if (j->role != FIOR_ROLE_WAL && j->role != FIOR_ROLE_BACKEND)
        cli_msg(why, n, "a job that is neither WAL nor backend (%s)", j->name);
    else if (j->verdict != FIOR_PASS && j->verdict != FIOR_FAIL && j->verdict != FIOR_UNKNOWN)
        cli_msg(why, n, "%s: verdict word not a check's", what);
    else if (j->verdict == FIOR_UNKNOWN)
        return 0; /* claims nothing */
    else if (j->samples == RESULT_UNKNOWN)
        cli_msg(why, n, "%s: no count of samples, this run needs %llu", what, (unsigned long long)min);
    else if (j->samples < min)
        cli_msg(why, n, "%s: %llu samples, this run needs %llu", what, (unsigned long long)j->samples,
                (unsigned long long)min);
    else if (j->threshold_ns != T)
        cli_msg(why, n, "%s: judged against %s, not %s", what, cli_fmt_ns(a, sizeof a, j->threshold_ns),
                cli_fmt_ns(b, sizeof b, T));
    else if (v == RESULT_UNKNOWN || (j->verdict == FIOR_PASS) != (v < T))
        cli_msg(why, n, "%s: the remote says %s, but its p%g is %s against %s", what, fior_verdict_name(j->verdict),
                rr->percentile, cli_fmt_ns(a, sizeof a, v), cli_fmt_ns(b, sizeof b, T));
    else
        return impossible(c, confidence, rr, j, what, why, n);
    return 1;
}

void fleet_remote_proof(const fleet *f, const fior_criteria *c, const fleet_remote *rr, result_host *h)
{
    static const char *const remote_statuses[] = {"interrupted", "fio-failed", "no-results"};
    char why[700];
    if (strcmp(rr->status, "judged")) { /* the remote check could not judge: its own word and reason */
        const char *st = "unproven";
        for (size_t i = 0; i < sizeof remote_statuses / sizeof *remote_statuses; i++)
            if (!strcmp(rr->status, remote_statuses[i]))
                st = remote_statuses[i];
        cli_msg(why, sizeof why, "the remote check: %s: %s", rr->status, rr->reason);
        unproven(h, why);
        cli_msg(h->status, sizeof h->status, "%s", st);
        return;
    }
    if (run_problem(f, c, rr, why, sizeof why))
        return unproven(h, why);
    int nw = 0, nb = 0;
    for (size_t i = 0; i < h->njobs; i++) {
        nw += h->jobs[i].role == FIOR_ROLE_WAL;
        nb += h->jobs[i].role == FIOR_ROLE_BACKEND;
        if (job_problem(c, f->confidence, rr, &h->jobs[i], why, sizeof why))
            return unproven(h, why);
    }
    if (nw != 1 || nb != 1) {
        cli_msg(why, sizeof why, "%d WAL and %d backend jobs (one of each expected)", nw, nb);
        return unproven(h, why);
    }
    for (size_t i = 0; i < h->njobs; i++) { /* each job's line from its numbers, not the remote's words */
        result_job *j = &h->jobs[i];
        char v[32], t[32], lo[32], hi[32];
        cli_msg(j->reason, sizeof j->reason, "p99 %s %s %s (%llu samples, bound %s..%s)", cli_fmt_ns(v, sizeof v, j->judged_ns),
                j->judged_ns == RESULT_UNKNOWN ? "vs" : j->judged_ns < j->threshold_ns ? "<" : ">=",
                cli_fmt_ns(t, sizeof t, j->threshold_ns), (unsigned long long)(j->samples == RESULT_UNKNOWN ? 0 : j->samples),
                cli_fmt_ns(lo, sizeof lo, j->bound_lo_ns), cli_fmt_ns(hi, sizeof hi, j->bound_hi_ns));
    }
    fleet_apply_bound(f, h); /* the bound on the right side of each threshold: the library's rule */
    fior_verdict remote = fleet_remote_verdict_word(rr->host_verdict);
    if (remote != fleet_remote_verdict_word(rr->verdict) || rr->exit_status != cli_exit_status(remote) ||
        rr->exit_status != rr->ssh_status) {
        cli_msg(why, sizeof why, "the remote check contradicts itself: host %s, run %s, exit status %d in the JSON, "
                "%d from the command", rr->host_verdict, rr->verdict, rr->exit_status, rr->ssh_status);
        return unproven(h, why);
    }
    cli_msg(h->status, sizeof h->status, "judged");
    if (remote == FIOR_UNKNOWN) { /* it could not decide: neither can its numbers make it a verdict here */
        h->verdict = FIOR_UNKNOWN;
        h->basis = RESULT_BASIS_NONE;
        cli_msg(h->reason, sizeof h->reason, "the remote check could not decide: %s", rr->reason);
        return;
    }
    if (h->verdict != remote && h->verdict != FIOR_UNKNOWN) {
        cli_msg(why, sizeof why, "the remote check says %s (%s), its numbers say %s", rr->host_verdict, rr->reason,
                fior_verdict_name(h->verdict));
        return unproven(h, why);
    }
    /* a PASS or FAIL that stands here rests, by the remote's own JSON, on its bound (or, when this run
     * accepts it, on the point estimate) */
    if (h->verdict != FIOR_UNKNOWN && strcmp(rr->basis, "bound") &&
        !(f->accept_point && !strcmp(rr->basis, "point-estimate"))) {
        cli_msg(why, sizeof why, "the remote check's %s rests on '%s', not on its confidence bound", rr->host_verdict,
                rr->basis);
        return unproven(h, why);
    }
    if (h->verdict == FIOR_UNKNOWN && !h->reason[0])
        cli_msg(h->reason, sizeof h->reason, "the remote check: %s", rr->reason); /* not reached: kept safe */
    if (h->verdict != FIOR_UNKNOWN) {
        const result_job *w = &h->jobs[0], *k = &h->jobs[1];
        cli_msg(h->reason, sizeof h->reason, "WAL: %s; backend: %s", (w->role == FIOR_ROLE_WAL ? w : k)->reason,
                (w->role == FIOR_ROLE_WAL ? k : w)->reason);
    }
}
