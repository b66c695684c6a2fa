/* SPDX-License-Identifier: MIT */
/* check_judge.c — the judge step of `etcd-fio check`, pure (no I/O; tests/test_check_judge.c): from fio's
 * final document, the early-stop state and how fio ended, the verdict of the host and why.
 *
 * No PASS without proof: the verdict is UNKNOWN whenever fio did not end normally (killed, a job process
 * died — fio 3.33 then still exits 0 and prints a final document, only its stderr says "got signal" —,
 * ended before its runtime without our asking, or its final document is missing: the library's run-ended
 * flag, fior_job.end), when the library cannot judge the final document (also: syncs whose median is below
 * the physical floor did not reach a disk), and when the confidence bound on a p99 still straddles its
 * threshold at the end (the point estimate is then in the reason; --accept-point-estimate turns it into
 * the verdict). */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "cli.h"

/* Why the run's end cannot be trusted, or "" when it ended normally. */
static void end_problem(const check_end *e, const check_opts *o, char *b, size_t n)
{
    b[0] = '\0';
    const char *said = e->fio_said[0] ? e->fio_said : "";
    if (!e->started)
        cli_msg(b, n, "fio did not start");
    else if (e->state == PROC_SIGNALED && e->job_signal) /* fio 3.33 may abort (double free) after a job died */
        cli_msg(b, n, "a fio job process died of signal %d (%s) during the run, then fio itself of signal %d (%s)",
                e->job_signal, strsignal(e->job_signal), e->code, strsignal(e->code));
    else if (e->state == PROC_SIGNALED)
        cli_msg(b, n, "fio was killed by signal %d (%s)", e->code, strsignal(e->code));
    else if (e->job_signal)
        cli_msg(b, n, "a fio job process died of signal %d (%s) during the run", e->job_signal,
                strsignal(e->job_signal));
    else if (e->stop_level > 1)
        cli_msg(b, n, "fio did not end on SIGINT and had to be killed");
    else if (e->code != 0 && !(e->stop_level == 1 && (e->code == 128 || e->code == 128 + 2)))
        cli_msg(b, n, "fio exited with status %d%s%s", e->code, said[0] ? ": " : "", said);
    else if (e->stop == CHECK_RAN_OUT && e->duration_s + 0.5 < (double)e->runtime_s)
        cli_msg(b, n, "fio ended after %.1f s, before its runtime of %u s, without being asked to", e->duration_s,
                e->runtime_s);
    else if (!e->complete)
        cli_msg(b, n, "fio's final output is missing%s%s", e->stream_error[0] ? ": " : "", e->stream_error);
    (void)o;
}

/* One side's sentence: what the data says and, when undecided, why that is not a verdict. */
static void describe(char *b, size_t n, const char *what, const rm_job *j, const es_side *s, double conf,
                     uint64_t min_syncs)
{
    char v[32], lo[32], hi[32], t[32];
    cli_fmt_ns(v, sizeof v, j->p99_ns);
    cli_fmt_ns(t, sizeof t, j->threshold_ns);
    cli_fmt_ns(lo, sizeof lo, s->look_lo_ns);
    cli_fmt_ns(hi, sizeof hi, s->look_hi_ns == UINT64_MAX ? CLI_NS_UNKNOWN : s->look_hi_ns);
    int below = j->p99_ns != RM_UNKNOWN && j->p99_ns < j->threshold_ns;
    if (j->samples == 0 || j->samples == RM_UNKNOWN || j->p99_ns == RM_UNKNOWN)
        cli_msg(b, n, "%s: no samples", what);
    else if (s->state == ES_PASS || s->state == ES_FAIL)
        cli_msg(b, n, "%s p99 %s %s %s (%.4g %% bound %s..%s)", what, v, below ? "<" : ">=", t,
                s->look_confidence * 100, lo, hi);
    else if (s->state == ES_TOO_FEW || s->state == ES_ABSENT)
        cli_msg(b, n, "%s p99 %s, but only %llu samples (need %llu)", what, v, (unsigned long long)j->samples,
                (unsigned long long)min_syncs);
    else
        cli_msg(b, n, "%s p99 %s %s, but %llu samples cannot show it with %.0f %% confidence (%.4g %% bound "
                "%s..%s straddles %s); run longer", what, v, below ? "looks fine" : "looks too slow",
                (unsigned long long)j->samples, conf * 100, s->look_confidence * 100, lo, hi, t);
}

static void fill_job(rm_host *h, const fior_report *fin, const fior_result *res, const fior_job *j, double conf)
{
    rm_job *o = rm_add_job(h);
    if (!o)
        return;
    const fior_judgement *jd = NULL;
    for (size_t i = 0; res && i < fior_result_count(res); i++)
        if (fior_report_job(fin, i) == j)
            jd = fior_result_job(res, i);
    rm_job_fill(o, j, jd);
    if (j->nbins) {
        uint64_t lo = 0, hi = UINT64_MAX;
        fior_quantile_bound(j->bins, j->nbins, 0.99, conf, &lo, NULL, &hi);
        o->bound_lo_ns = lo;
        o->bound_hi_ns = hi == UINT64_MAX ? RM_UNKNOWN : hi;
    }
}

void check_judge(const fior_report *fin, const es_ctl *es_in, const check_end *e, const check_opts *o,
                 const fior_criteria *c, rm_host *h)
{
    es_ctl es = *es_in;
    /* check stops fio itself with SIGINT once the bound decides (or at its time limit): the library judges
     * the final document fio prints after its "terminating on signal 2" line, as it would not for a run
     * someone else stopped. Every other rule (the physical floor, a job that died) is the library's. */
    fior_criteria *cc = fior_criteria_dup(c);
    if (cc && e->stop != CHECK_RAN_OUT && e->stop != CHECK_USER && e->stop_level == 1)
        fior_criteria_set_caller_stop(cc, SIGINT);
    fior_result *res = fin && cc ? fior_judge(fin, cc) : NULL;
    fior_criteria_free(cc);
    const fior_job *wj = check_find_job(fin, FIOR_ROLE_WAL), *bj = check_find_job(fin, FIOR_ROLE_BACKEND);
    if (wj)
        fill_job(h, fin, res, wj, o->confidence);
    if (bj)
        fill_job(h, fin, res, bj, o->confidence);
    char problem[700];
    end_problem(e, o, problem, sizeof problem);
    /* Ran to --max-time undecided: the final bins get one more look of each kind (see es_final). */
    if (!problem[0] && e->stop == CHECK_RAN_OUT && wj)
        es_final(&es, wj->bins, wj->nbins, bj ? bj->bins : NULL, bj ? bj->nbins : 0);
    const es_side *side[2] = {&es.wal, &es.backend};
    char ws[2][400] = {"WAL fdatasync: no results", "backend commit: no results"};
    for (size_t i = 0; i < h->njobs; i++) {
        int k = h->jobs[i].role == FIOR_ROLE_BACKEND;
        describe(ws[k], sizeof ws[k], k ? "backend commit" : "WAL fdatasync", &h->jobs[i], side[k], o->confidence,
                 es.p.min_syncs);
    }
    es_state ov = es_overall(&es);
    /* the library's verdict on the two jobs judged here, the latest run's (check_find_job): a run the
     * library splits off in front (status documents written before the jobs started, e.g. during phase 1's
     * first-segment fill) has no samples, is UNKNOWN, and must not veto the run that has them */
    fior_verdict lib = res && h->njobs ? rm_jobs_verdict(h) : FIOR_UNKNOWN;
    h->verdict = FIOR_UNKNOWN;
    h->basis = RM_BASIS_NONE;
    cli_msg(h->status, sizeof h->status, "%s", problem[0] ? (e->stop == CHECK_USER ? "interrupted" : "fio-failed")
                                               : !wj || !bj ? "no-results" : "judged");
    if (problem[0]) {
        cli_msg(h->reason, sizeof h->reason, "%s; the run did not end normally, so it is not judged (point "
                "estimates: %s; %s)", problem, ws[0], ws[1]);
    } else if (!wj || !bj) {
        cli_msg(h->reason, sizeof h->reason, "no %s job result in fio's output; cannot judge", !wj ? "WAL" : "backend");
    } else if (lib != FIOR_PASS && lib != FIOR_FAIL) {
        for (size_t i = 0; i < h->njobs; i++)
            if (h->jobs[i].verdict != FIOR_PASS && h->jobs[i].verdict != FIOR_FAIL) {
                cli_msg(h->reason, sizeof h->reason, "%s: %s", h->jobs[i].role == FIOR_ROLE_BACKEND ? "backend commit"
                        : "WAL fdatasync", h->jobs[i].reason);
                break;
            }
    } else if (ov == ES_PASS || ov == ES_FAIL) {
        if ((ov == ES_PASS) != (lib == FIOR_PASS)) {
            cli_msg(h->reason, sizeof h->reason, "the confidence bound says %s but fio's own p99 says %s; cannot "
                    "judge (%s; %s)", es_state_name(ov), fior_verdict_name(lib), ws[0], ws[1]);
        } else {
            h->verdict = lib;
            h->basis = RM_BASIS_BOUND;
            cli_msg(h->reason, sizeof h->reason, "%s; %s (%.0f %% confident after %llu syncs, %.0f s)", ws[0], ws[1],
                    o->confidence * 100, (unsigned long long)(e->decided_syncs ? e->decided_syncs
                                                                               : es.wal.n + es.backend.n),
                    e->stop == CHECK_DECIDED ? e->decided_at_s : e->duration_s);
        }
    } else if (e->stop == CHECK_USER) {
        cli_msg(h->status, sizeof h->status, "interrupted");
        cli_msg(h->reason, sizeof h->reason, "interrupted after %.0f s before the p99 was decided (point "
                "estimates: %s; %s)", e->duration_s, ws[0], ws[1]);
    } else if (o->accept_point) {
        h->verdict = lib;
        h->basis = RM_BASIS_POINT;
        cli_msg(h->reason, sizeof h->reason, "%s; %s (point estimate after %.0f s, accepted by "
                "--accept-point-estimate)", ws[0], ws[1], e->duration_s);
    } else {
        h->basis = RM_BASIS_UNDECIDED;
        cli_msg(h->reason, sizeof h->reason, "%s; %s", es.wal.state == ES_PASS ? ws[1] : ws[0],
                es.wal.state == ES_PASS ? ws[0] : ws[1]);
    }
    /* each job's line: the library's reason, and what the bound said */
    for (size_t i = 0; i < h->njobs; i++) {
        int k = h->jobs[i].role == FIOR_ROLE_BACKEND;
        if (h->verdict == FIOR_UNKNOWN && h->jobs[i].verdict != FIOR_UNKNOWN && h->basis != RM_BASIS_NONE)
            h->jobs[i].verdict = side[k]->state == ES_PASS || side[k]->state == ES_FAIL ? h->jobs[i].verdict
                                                                                        : FIOR_UNKNOWN;
        if (problem[0])
            h->jobs[i].verdict = FIOR_UNKNOWN;
        cli_msg(h->jobs[i].reason, sizeof h->jobs[i].reason, "%s", ws[k]);
    }
    fior_result_free(res);
}
