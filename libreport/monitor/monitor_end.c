/* SPDX-License-Identifier: MIT */
/* monitor_end.c — the verdict at the end of a monitored run (fior_monitor_end; fior__monitor_end with the
 * CLI's facts), the two phases together (fior__outcome_phases); a single look at a run's end goes through the
 * judge's bound rule (judge/look.c).
 *
 * No PASS without proof: the verdict is UNKNOWN whenever fio did not end normally (killed, a job process
 * died — fio 3.33 then still exits 0 and prints a final document, only its stderr says "got signal" —,
 * ended before its runtime without the caller asking, or its final document is missing: the readers'
 * run-ended flag, fior_job.end), when the library cannot judge the final document (also: syncs whose
 * median is below the physical floor did not reach a disk), when the sequential bound and the library's
 * judgement of the final document disagree, and when the bound on the percentile still straddles its threshold at
 * the end (the point estimate is then in the reason; accept_point turns it into the verdict). */
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "monitor.h"

static const char *role_what(int k)
{
    return k ? "backend commit" : "WAL fdatasync";
}

/* A bound's confidence as the caller asked for it: "95 %" when it is the level asked, "≥ 95 %" when the
 * bound holds at a higher one (the sequential test's looks: their exact level is in the outcome), and the
 * exact level when it is lower. */
static const char *conf_text(char *b, size_t n, double level, double asked)
{
    if (level > asked - 5e-5 && level < asked + 5e-5)
        snprintf(b, n, "%.4g %%", asked * 100);
    else if (level > asked)
        snprintf(b, n, "\xe2\x89\xa5 %.4g %%", asked * 100);
    else
        snprintf(b, n, "%.4g %%", level * 100);
    return b;
}

/* Why the run's end cannot be trusted, or "" when it ended normally. */
static void end_problem(const fior__run_facts *e, char *b, size_t n)
{
    b[0] = '\0';
    const char *said = e->fio_said ? e->fio_said : "", *se = e->stream_error ? e->stream_error : "";
    const char *cp = e->size >= offsetof(fior__run_facts, caller_problem) + sizeof e->caller_problem
                     ? e->caller_problem : NULL;
    if (cp && cp[0])
        snprintf(b, n, "%s", cp);
    else if (!e->started)
        snprintf(b, n, "fio did not start");
    else if (e->killed_by && e->job_signal) /* fio 3.33 may abort (double free) after a job died */
        snprintf(b, n, "a fio job process died of signal %d (%s) during the run, then fio itself of signal %d (%s)",
                 e->job_signal, strsignal(e->job_signal), e->killed_by, strsignal(e->killed_by));
    else if (e->killed_by)
        snprintf(b, n, "fio was killed by signal %d (%s)", e->killed_by, strsignal(e->killed_by));
    else if (e->job_signal)
        snprintf(b, n, "a fio job process died of signal %d (%s) during the run", e->job_signal,
                 strsignal(e->job_signal));
    else if (e->stop_level > 1)
        snprintf(b, n, "fio did not end on SIGINT and had to be killed");
    else if (e->exit_code != 0 && !(e->stop_level == 1 && (e->exit_code == 128 || e->exit_code == 128 + 2)))
        snprintf(b, n, "fio exited with status %d%s%s", e->exit_code, said[0] ? ": " : "", said);
    else if (e->stop == FIOR_STOP_NONE && e->duration_s + 0.5 < (double)e->runtime_s)
        snprintf(b, n, "fio ended after %.1f s, before its runtime of %u s, without being asked to", e->duration_s,
                 e->runtime_s);
    else if (!e->complete)
        snprintf(b, n, "fio's final output is missing%s%s", se[0] ? ": " : "", se);
}

/* The bound a decided role's line cites. Its p99 is the whole run's (fio's final document), so the bound
 * beside it is the whole run's too, at the confidence asked, when that bound lies on the side the sequential
 * test decided; a role decided early (the WAL, while the run went on for the backend) whose whole-run bound
 * no longer does has changed since its decision: its line cites the decision's bound and sample count, and
 * a PASS does not stand on it (decide). held: 1 when the whole run's bound is cited. */
typedef struct cited_bound {
    uint64_t lo_ns, hi_ns;       /* the cited bound, at level */
    double   level;
    int      held;
    uint64_t whole_lo, whole_hi; /* the whole run's, at the confidence asked */
} cited_bound;

static cited_bound cite(const fior__seq_side *s, uint64_t whole_lo, uint64_t whole_hi, double conf)
{
    cited_bound c = {s->look_lo_ns, s->look_hi_ns, s->look_confidence, 0, whole_lo, whole_hi};
    if (s->state == FIOR_DEC_PASS)
        c.held = whole_hi < s->threshold_ns;
    else if (s->state == FIOR_DEC_FAIL)
        c.held = whole_lo > s->threshold_ns;
    if (c.held) {
        c.lo_ns = whole_lo;
        c.hi_ns = whole_hi;
        c.level = conf;
    }
    return c;
}

/* One side's sentence: what the data says and, when undecided, why that is not a verdict; for a role nobody
 * asked about (asked 0) only what was measured: no bound of the rule that decides the others, no advice. */
static void describe(char *b, size_t n, int k, int asked, const char *pn, uint64_t value, uint64_t samples,
                     uint64_t thr, const fior__seq_side *s, const cited_bound *cb, double conf, uint64_t min_syncs)
{
    char v[32], lo[32], hi[32], t[32], lv[32];
    const char *what = role_what(k);
    int decided = s->state == FIOR_DEC_PASS || s->state == FIOR_DEC_FAIL;
    fior__ns_text(v, sizeof v, value);
    if (!asked) {
        if (value == UINT64_MAX || samples == 0 || samples == UINT64_MAX)
            snprintf(b, n, "%s: %s", what, samples == 0 ? "no samples" : "no value");
        else
            snprintf(b, n, "%s %s %s from %llu samples", what, pn, v, (unsigned long long)samples);
        return;
    }
    fior__ns_text(t, sizeof t, thr);
    fior__ns_text(lo, sizeof lo, decided ? cb->lo_ns : s->look_lo_ns);
    fior__ns_text(hi, sizeof hi, decided ? cb->hi_ns : s->look_hi_ns);
    conf_text(lv, sizeof lv, decided ? cb->level : s->look_confidence, conf);
    int below = value != UINT64_MAX && value < thr;
    if (samples == 0 || samples == UINT64_MAX || value == UINT64_MAX)
        snprintf(b, n, "%s: no samples", what);
    else if (decided && cb->held)
        snprintf(b, n, "%s %s %s %s %s (%s bound %s..%s)", what, pn, v, below ? "<" : ">=", t, lv, lo, hi);
    else if (s->state == FIOR_DEC_PASS) {
        char wl[32], wh[32];
        fior__ns_text(wl, sizeof wl, cb->whole_lo);
        fior__ns_text(wh, sizeof wh, cb->whole_hi);
        snprintf(b, n, "%s %s %s over the whole run, whose %.4g %% bound %s..%s is not below %s: it passed after "
                 "%llu samples (%s bound %s..%s), then got slower; run again", what, pn, v, conf * 100, wl, wh, t,
                 (unsigned long long)s->decided_n, lv, lo, hi);
    } else if (decided)
        snprintf(b, n, "%s %s %s %s %s (%s bound %s..%s after %llu samples)", what, pn, v, below ? "<" : ">=", t,
                 lv, lo, hi, (unsigned long long)s->decided_n);
    else if ((s->state == FIOR_DEC_TOO_FEW || s->state == FIOR_DEC_ABSENT) && s->n == 0 && samples >= min_syncs)
        snprintf(b, n, "%s %s %s from %llu samples, but the output has no latency bins to bound it with (fio "
                 "writes them with --output-format=json+)", what, pn, v, (unsigned long long)samples);
    else if (s->state == FIOR_DEC_TOO_FEW || s->state == FIOR_DEC_ABSENT)
        snprintf(b, n, "%s %s %s, but only %llu samples (need %llu)", what, pn, v, (unsigned long long)samples,
                 (unsigned long long)min_syncs);
    else
        snprintf(b, n, "%s %s %s %s, but %llu samples cannot show it with %.0f %% confidence (%s bound "
                 "%s..%s straddles %s); run longer", what, pn, v, below ? "looks fine" : "looks too slow",
                 (unsigned long long)samples, conf * 100, lv, lo, hi, t);
}

/* fio's listed value of the criteria's percentile for the job, else the point estimate from its bins,
 * within [min, max]; UINT64_MAX when neither. */
static uint64_t pct_of(const fior_job *j, double percent, double confidence)
{
    for (size_t i = 0; i < j->npct; i++)
        if (j->pct[i].percent > percent - 1e-9 && j->pct[i].percent < percent + 1e-9)
            return fior__job_in_range(j, j->pct[i].ns);
    uint64_t lo, pt = UINT64_MAX, hi;
    if (j->nbins) {
        fior_status st = fior_quantile_bound(j->bins, j->nbins, percent / 100.0, confidence, &lo, &pt, &hi);
        if (st == FIOR_E_INVAL || (st != FIOR_OK && pt == 0))
            pt = UINT64_MAX;
    }
    return fior__job_in_range(j, pt);
}

/* Each role's job of the final report: the library's judgement and the nominal bound. */
static void take_roles(fior_outcome *o, const fior_monitor *m, const fior_report *fin, const fior_criteria *cc,
                       const fior_job *jobs[2])
{
    jobs[0] = jobs[1] = NULL;
    if (fin)
        fior__monitor_pair(fin, &jobs[0], &jobs[1]);
    for (int k = 0; k < 2; k++) {
        o->role[k].lo_ns = 0;
        o->role[k].hi_ns = UINT64_MAX;
        o->role[k].verdict = FIOR_UNKNOWN;
        if (!jobs[k])
            continue;
        o->role[k].present = 1;
        fior__judge_job(jobs[k], cc, &o->role[k].j);
        o->role[k].judged = 1;
        o->role[k].verdict = o->role[k].j.j.verdict;
        if (jobs[k]->nbins)
            fior_quantile_bound(jobs[k]->bins, jobs[k]->nbins, m->c.percentile / 100.0, m->confidence,
                                &o->role[k].lo_ns, NULL, &o->role[k].hi_ns);
    }
}

/* The library's verdict on the jobs judged here (aggregate.c's rule). */
static fior_verdict roles_verdict(const fior_outcome *o)
{
    fior_verdict v[2];
    size_t n = 0;
    for (int k = 0; k < 2; k++)
        if (o->role[k].present)
            v[n++] = o->role[k].verdict;
    return fior_verdict_combine(v, n);
}

static void decide(fior_outcome *o, const fior_monitor *m, const fior__seq *es, const fior__run_facts *e,
                   const char *problem, int have[2], char ws[2][400], int passes_held)
{
    int wal_only = !fior__monitor_asks(m, FIOR_ROLE_BACKEND);
    fior_decision ov = fior__seq_overall(es);
    fior_verdict lib = roles_verdict(o);
    if (wal_only)
        lib = o->role[0].present ? o->role[0].verdict : FIOR_UNKNOWN;
    const char *tail = wal_only ? "" : "; ";
    char pn[16];
    fior__pct_text(pn, sizeof pn, m->c.percentile);
    const char *ws1 = wal_only ? "" : ws[1];
    o->verdict = FIOR_UNKNOWN;
    o->basis = FIOR_BASIS_NONE;
    o->status = problem[0] ? (e->stop == FIOR_STOP_USER ? "interrupted" : "fio-failed")
                           : !have[0] || (!have[1] && !wal_only) ? "no-results" : "judged";
    if (problem[0]) {
        snprintf(o->reason, sizeof o->reason, "%.600s; the run did not end normally, so it is not judged (point "
                 "estimates: %.399s%s%.399s)", problem, ws[0], tail, ws1);
    } else if (!have[0] || (!have[1] && !wal_only)) {
        snprintf(o->reason, sizeof o->reason, "no %s job result in fio's output; cannot judge",
                 !have[0] ? "WAL" : "backend");
    } else if (e->stop == FIOR_STOP_USER && ov != FIOR_DEC_PASS && ov != FIOR_DEC_FAIL) {
        /* stopped from outside before the bound decided: that is the reason, whatever the library says of
         * the figures fio printed after the signal */
        o->status = "interrupted";
        snprintf(o->reason, sizeof o->reason, "%.200s after %.0f s before the %s was decided (point estimates: %.399s%s%.399s)",
                 e->stop_why ? e->stop_why : "interrupted", e->duration_s, pn, ws[0], tail, ws1);
    } else if (lib != FIOR_PASS && lib != FIOR_FAIL) {
        for (int k = 0; k < (wal_only ? 1 : 2); k++)
            if (o->role[k].verdict != FIOR_PASS && o->role[k].verdict != FIOR_FAIL) {
                snprintf(o->reason, sizeof o->reason, "%s: %.500s", role_what(k), o->role[k].j.reason);
                break;
            }
    } else {
        /* the library's judgement of the final document against the sequential test's decision: the one
         * PASS rule (judge/pass.c) */
        /* a PASS also needs each passed role's whole-run bound below its threshold (cite) */
        fior__evidence ev = {FIOR__EV_SEQUENTIAL, lib, ov == FIOR_DEC_PASS && passes_held, ov == FIOR_DEC_FAIL,
                             m->accept_point};
        o->verdict = fior__pass_rule(&ev, &o->basis);
        if (o->basis == FIOR_BASIS_NONE) {
            snprintf(o->reason, sizeof o->reason, "the confidence bound says %s but fio's own %s says %s; cannot "
                     "judge (%.399s%s%.399s)", fior_decision_name(ov), pn, fior_verdict_name(lib), ws[0], tail, ws1);
        } else if (o->basis == FIOR_BASIS_BOUND) {
            /* the samples each role's decision rested on, per role (a WAL sync is not a backend commit) */
            char cnt[96];
            uint64_t wn = es->wal.decided_n ? es->wal.decided_n : es->wal.n;
            uint64_t bn = es->backend.decided_n ? es->backend.decided_n : es->backend.n;
            if (wal_only)
                snprintf(cnt, sizeof cnt, "%llu WAL syncs", (unsigned long long)wn);
            else
                snprintf(cnt, sizeof cnt, "%llu WAL syncs and %llu backend commits", (unsigned long long)wn,
                         (unsigned long long)bn);
            snprintf(o->reason, sizeof o->reason, "%.399s%s%.399s (decided at %.0f %% confidence after %s, %.0f s)", ws[0], tail,
                     ws1, m->confidence * 100, cnt, e->stop == FIOR_STOP_BY_DECISION ? e->decided_at_s : e->duration_s);
        } else if (o->basis == FIOR_BASIS_POINT) {
            snprintf(o->reason, sizeof o->reason, "%.399s%s%.399s (after %.0f s, accepted as a point estimate)",
                     ws[0], tail, ws1, e->duration_s);
        } else {
            int first = !wal_only && es->wal.state == FIOR_DEC_PASS;
            snprintf(o->reason, sizeof o->reason, "%.399s%s%.399s", ws[first], tail, wal_only ? "" : ws[!first]);
        }
    }
}

fior_outcome *fior__monitor_end(fior_monitor *m, const fior_report *fin, const fior__run_facts *f)
{
    if (!m || !f || f->size < offsetof(fior__run_facts, complete))
        return NULL;
    fior__run_facts e;
    memset(&e, 0, sizeof e);
    memcpy(&e, f, f->size < sizeof e ? f->size : sizeof e);
    fior_outcome *o = calloc(1, sizeof *o);
    if (!o)
        return NULL;
    if (!m->started)
        fior__monitor_feed_bins(m, NULL, 0, NULL, 0, 0, NULL);
    fior__seq es = m->seq;
    /* The caller stops fio itself with SIGINT once the bound decides (or at its time limit): the library
     * judges the final document fio prints after its "terminating on signal 2" line, as it would not for a
     * run someone else stopped. Every other rule (the physical floor, a job that died) is the library's. */
    fior_criteria cc = m->c;
    if (e.stop != FIOR_STOP_NONE && e.stop != FIOR_STOP_USER && e.stop_level == 1)
        cc.caller_stop = SIGINT;
    const fior_job *jobs[2];
    take_roles(o, m, fin, &cc, jobs);
    char problem[700];
    end_problem(&e, problem, sizeof problem);
    /* the final document is one more of the fed run's: its bins may not shrink either */
    for (int k = 0; k < 2 && !m->broken; k++)
        if (jobs[k])
            fior__monitor_grows(m, k, jobs[k]->bins, jobs[k]->nbins);
    if (m->broken)
        snprintf(problem, sizeof problem, "%s", m->err + strlen("fior_monitor: "));
    /* Ran to its runtime undecided: the final bins get one more look of each kind (seqbound.h). */
    if (!problem[0] && e.stop == FIOR_STOP_NONE && jobs[0])
        fior__seq_final(&es, jobs[0]->bins, jobs[0]->nbins, jobs[1] ? jobs[1]->bins : NULL, jobs[1] ? jobs[1]->nbins : 0);
    const fior__seq_side *side[2] = {&es.wal, &es.backend};
    char ws[2][400] = {"WAL fdatasync: no results", "backend commit: no results"};
    int have[2];
    char pn[16];
    fior__pct_text(pn, sizeof pn, m->c.percentile);
    cited_bound cb[2];
    int passes_held = 1, backend_asked = fior__monitor_asks(m, FIOR_ROLE_BACKEND);
    for (int k = 0; k < 2; k++) {
        have[k] = jobs[k] != NULL;
        cb[k] = cite(side[k], o->role[k].lo_ns, o->role[k].hi_ns, m->confidence);
        if (jobs[k] && side[k]->state == FIOR_DEC_PASS && !cb[k].held &&
            (k == 0 || backend_asked))
            passes_held = 0;
        if (jobs[k])
            describe(ws[k], sizeof ws[k], k, k == 0 || backend_asked, pn,
                     pct_of(jobs[k], m->c.percentile, m->confidence), jobs[k]->samples_known ? jobs[k]->samples : UINT64_MAX,
                     m->c.threshold_ns[k], side[k], &cb[k], m->confidence, es.p.min_syncs);
    }
    decide(o, m, &es, &e, problem, have, ws, passes_held);
    /* the bound of each role is the one its line cites: for a decided role, the whole run's (cite) or the
     * decision's; for one undecided, the last look's at that look's level; the nominal one at the end only
     * when no look was made, or for a role nobody asked about: it is not judged, so its bound describes
     * the data, not a look of the rule that decides the roles asked */
    for (int k = 0; k < 2; k++) {
        o->role[k].confidence = m->confidence;
        if (k == 1 && !backend_asked)
            continue;
        if (side[k]->state == FIOR_DEC_PASS || side[k]->state == FIOR_DEC_FAIL) {
            o->role[k].lo_ns = cb[k].lo_ns;
            o->role[k].hi_ns = cb[k].hi_ns;
            o->role[k].confidence = cb[k].level;
        } else if (side[k]->look_confidence > 0) {
            o->role[k].lo_ns = side[k]->look_lo_ns;
            o->role[k].hi_ns = side[k]->look_hi_ns;
            o->role[k].confidence = side[k]->look_confidence;
        }
    }
    /* each role's line: what the bound said; its verdict only where the bound decided it */
    for (int k = 0; k < 2; k++) {
        if (o->verdict == FIOR_UNKNOWN && o->role[k].verdict != FIOR_UNKNOWN && o->basis != FIOR_BASIS_NONE)
            o->role[k].verdict = side[k]->state == FIOR_DEC_PASS || side[k]->state == FIOR_DEC_FAIL
                                     ? o->role[k].verdict : FIOR_UNKNOWN;
        if (problem[0])
            o->role[k].verdict = FIOR_UNKNOWN;
        snprintf(o->role[k].line, sizeof o->role[k].line, "%.399s", ws[k]);
    }
    if (!backend_asked && o->role[1].present) { /* the WAL question alone */
        o->role[1].verdict = FIOR_NOT_JUDGED;
        snprintf(o->role[1].line, sizeof o->role[1].line, "%.399s (not judged: the WAL alone was asked)", ws[1]);
    }
    o->heavy_passed = m->heavy && m->p1_passed;
    o->probe_ok = m->probed && m->probe.ok;
    o->duration_s = e.duration_s;
    return o;
}

/* Phase 1's run is never judged on its own: its heavy load can only PASS, and that PASS stands once phase
 * 2's probe confirmed it. A run stopped between the two has neither, whatever phase 1's bounds said. */
fior_outcome *fior__outcome_phases(fior_outcome *p1, fior_outcome *p2, int confirmed)
{
    if (p1 && p1 == p2) /* one outcome given twice: no phase 2 confirmed anything (and it is freed once) */
        p2 = NULL;
    /* the caller's word is not enough: phase 2's own monitor must have confirmed it */
    confirmed = confirmed && p2 && p2->probe_ok;
    if (p2 && !(confirmed && p1)) {
        fior_outcome_free(p1);
        p2->phase = 2;
        return p2;
    }
    fior_outcome_free(p2);
    if (!p1)
        return NULL;
    p1->phase = 1;
    if (confirmed)
        return p1;
    char was[sizeof p1->reason];
    snprintf(was, sizeof was, "%s", p1->reason);
    int passed = p1->heavy_passed && p1->verdict == FIOR_PASS;
    p1->verdict = FIOR_UNKNOWN;
    p1->basis = FIOR_BASIS_NONE;
    p1->status = "interrupted";
    if (passed)
        snprintf(p1->reason, sizeof p1->reason, "interrupted after %.0f s, before phase 2 confirmed phase 1's pass "
                 "(a pass under the heavy load stands only when etcd's load is no slower); not judged (phase 1: "
                 "%.1000s)", p1->duration_s, was);
    else
        snprintf(p1->reason, sizeof p1->reason, "interrupted after %.0f s, after phase 1 and before phase 2 (the "
                 "faithful profile) could decide; phase 1's heavy load can only pass, so it is not judged (phase "
                 "1: %.1000s)", p1->duration_s, was);
    for (int k = 0; k < 2; k++)
        p1->role[k].verdict = FIOR_UNKNOWN;
    return p1;
}

void fior_outcome_free(fior_outcome *o)
{
    free(o);
}

fior_verdict fior_outcome_verdict(const fior_outcome *o)
{
    return o ? o->verdict : FIOR_UNKNOWN;
}

fior_basis fior_outcome_basis(const fior_outcome *o)
{
    return o ? o->basis : FIOR_BASIS_NONE;
}

const char *fior_outcome_status(const fior_outcome *o)
{
    return o && o->status ? o->status : "no-results";
}

const char *fior_outcome_reason(const fior_outcome *o)
{
    return o ? o->reason : "";
}

int fior__outcome_phase(const fior_outcome *o)
{
    return o ? o->phase : 0;
}

static int rk(fior_role role)
{
    return role == FIOR_ROLE_BACKEND ? 1 : role == FIOR_ROLE_WAL ? 0 : -1;
}

fior_verdict fior_outcome_role_verdict(const fior_outcome *o, fior_role role)
{
    return o && rk(role) >= 0 && o->role[rk(role)].present ? o->role[rk(role)].verdict : FIOR_UNKNOWN;
}

const char *fior_outcome_role_reason(const fior_outcome *o, fior_role role)
{
    return o && rk(role) >= 0 ? o->role[rk(role)].line : "";
}

const fior_judgement *fior_outcome_judgement(const fior_outcome *o, fior_role role)
{
    return o && rk(role) >= 0 && o->role[rk(role)].judged ? &o->role[rk(role)].j.j : NULL;
}

double fior_outcome_bound_confidence(const fior_outcome *o, fior_role role)
{
    return o && rk(role) >= 0 && o->role[rk(role)].present ? o->role[rk(role)].confidence : 0;
}

fior_status fior_outcome_bound(const fior_outcome *o, fior_role role, uint64_t *lo_ns, uint64_t *hi_ns)
{
    if (!o || rk(role) < 0)
        return FIOR_E_INVAL;
    if (!o->role[rk(role)].present)
        return FIOR_E_NODATA;
    if (lo_ns)
        *lo_ns = o->role[rk(role)].lo_ns;
    if (hi_ns)
        *hi_ns = o->role[rk(role)].hi_ns;
    return FIOR_OK;
}
