/* SPDX-License-Identifier: MIT */
/* monitor.c — fior_monitor, the sequential judge of a growing fio run (fioreport.h "2.3"): the criteria and
 * settings, feeding documents to the sequential bound (seqbound.c) and the phase rules (twophase.c), and the
 * answers. The verdict at the end of a run is monitor_end.c's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "monitor.h"

fior_monitor *fior_monitor_new(const fior_criteria *c)
{
    fior_monitor *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    if (c)
        m->c = *c;
    else
        fior__criteria_default(&m->c);
    m->confidence = 0.95;
    m->roles = (1u << FIOR_ROLE_WAL) | (1u << FIOR_ROLE_BACKEND);
    m->probe_from = -1;
    return m;
}

void fior_monitor_free(fior_monitor *m)
{
    if (!m)
        return;
    for (int i = 0; i < 2; i++) {
        free(m->last[i]);
        free(m->p1[i]);
    }
    free(m);
}

const char *fior_monitor_error(const fior_monitor *m)
{
    return m ? m->err : "";
}

static fior_status refuse(fior_monitor *m, const char *what)
{
    if (m)
        snprintf(m->err, sizeof m->err, "fior_monitor: expected %s", what);
    return FIOR_E_INVAL;
}

#define SETTABLE(m)                                                                                           \
    do {                                                                                                      \
        if (!(m))                                                                                             \
            return FIOR_E_INVAL;                                                                              \
        if ((m)->started)                                                                                     \
            return refuse((m), "settings before the first fior_monitor_feed");                               \
    } while (0)

fior_status fior_monitor_set_confidence(fior_monitor *m, double confidence)
{
    SETTABLE(m);
    if (!(confidence >= 0.5 && confidence <= 0.9999))
        return refuse(m, "a confidence in [0.5, 0.9999]");
    m->confidence = confidence;
    return FIOR_OK;
}

fior_status fior_monitor_set_accept_point(fior_monitor *m, int on)
{
    if (!m)
        return FIOR_E_INVAL; /* only the end reads it: settable until fior__monitor_end */
    m->accept_point = on != 0;
    return FIOR_OK;
}

fior_status fior__monitor_set_full(fior_monitor *m, int on)
{
    SETTABLE(m);
    m->full = on != 0;
    return FIOR_OK;
}

fior_status fior__monitor_set_heavy(fior_monitor *m, int on)
{
    SETTABLE(m);
    m->heavy = on != 0;
    return FIOR_OK;
}

fior_status fior_monitor_set_roles(fior_monitor *m, unsigned mask)
{
    SETTABLE(m);
    if (!(mask & (1u << FIOR_ROLE_WAL)) || (mask & ~((1u << FIOR_ROLE_WAL) | (1u << FIOR_ROLE_BACKEND))))
        return refuse(m, "roles: the WAL, and maybe the backend (1 << FIOR_ROLE_WAL | 1 << FIOR_ROLE_BACKEND)");
    m->roles = mask;
    return FIOR_OK;
}

static fior_bin *copy_bins(const fior_bin *b, size_t n)
{
    fior_bin *c = n ? malloc(n * sizeof *c) : NULL;
    if (c)
        memcpy(c, b, n * sizeof *c);
    return c;
}

fior_status fior__monitor_continue(fior_monitor *m, const fior_monitor *phase1)
{
    SETTABLE(m);
    if (!phase1 || !phase1->heavy || !phase1->started)
        return refuse(m, "a phase-1 monitor (fior__monitor_set_heavy) that was fed");
    m->carry = phase1->seq;
    m->has_carry = 1;
    if (phase1->p1_passed) {
        for (int i = 0; i < 2; i++) {
            free(m->p1[i]);
            m->p1[i] = copy_bins(phase1->last[i], phase1->nlast[i]);
            m->np1[i] = m->p1[i] ? phase1->nlast[i] : 0;
        }
        m->probe_on = m->np1[0] && (m->np1[1] || !fior__monitor_asks(m, FIOR_ROLE_BACKEND));
    }
    return FIOR_OK;
}

static void start(fior_monitor *m)
{
    fior__seq_params p = {.q = m->c.percentile / 100.0, .confidence = m->confidence,
                          .min_syncs = m->c.min_samples, .full = m->full,
                          .max_time_share = m->heavy ? FIOR__TP_TIME_SHARE : 0,
                          .pass_share = m->heavy ? FIOR__TP_PHASE1_SHARE : 1};
    int be = fior__monitor_asks(m, FIOR_ROLE_BACKEND);
    fior__seq_init(&m->seq, &p, m->c.threshold_ns[FIOR_ROLE_WAL], m->c.threshold_ns[FIOR_ROLE_BACKEND], be);
    m->seq.wal_only = !be;
    if (m->has_carry)
        fior__seq_carry(&m->seq, &m->carry);
    m->started = 1;
}

/* The latest job of the role: a stream may hold several runs (status documents written before the jobs
 * started have nothing to group by), and the last one is the one that goes on. By the engine's etcd_mode,
 * else by the profile's job names, else by the library's role. */
static int is_role(const fior_job *j, fior_role role)
{
    const char *mode = role == FIOR_ROLE_BACKEND ? "backend" : "wal";
    const char *name = role == FIOR_ROLE_BACKEND ? "etcd-backend" : "etcd-wal";
    return (j->etcd_mode && !strcmp(j->etcd_mode, mode)) || (!j->etcd_mode && j->name && !strcmp(j->name, name)) ||
           (!j->etcd_mode && j->role == role);
}

const fior_job *fior__monitor_pick(const fior_report *r, fior_role role)
{
    const char *mode = role == FIOR_ROLE_BACKEND ? "backend" : "wal";
    const char *name = role == FIOR_ROLE_BACKEND ? "etcd-backend" : "etcd-wal";
    size_t n = r ? fior_report_njobs(r) : 0;
    for (size_t i = n; i-- > 0;) {
        const fior_job *j = fior_report_job(r, i);
        if (j->etcd_mode && !strcmp(j->etcd_mode, mode))
            return j;
    }
    for (size_t i = n; i-- > 0;) {
        const fior_job *j = fior_report_job(r, i);
        if (j->name && !strcmp(j->name, name))
            return j;
    }
    for (size_t i = n; i-- > 0;) {
        const fior_job *j = fior_report_job(r, i);
        if (j->role == role && !j->etcd_mode)
            return j;
    }
    return NULL;
}

void fior__monitor_pair(const fior_report *r, const fior_job **w, const fior_job **b)
{
    *w = fior__monitor_pick(r, FIOR_ROLE_WAL);
    *b = fior__monitor_pick(r, FIOR_ROLE_BACKEND);
    if (!*w || !*b || (*b)->run == (*w)->run)
        return;
    /* one run's jobs only: a backend job of another run (concatenated outputs) is not this WAL's partner */
    const fior_job *same = NULL;
    for (size_t i = fior_report_njobs(r); i-- > 0 && !same;) {
        const fior_job *j = fior_report_job(r, i);
        if (j->run == (*w)->run && j != *w && is_role(j, FIOR_ROLE_BACKEND))
            same = j;
    }
    *b = same;
}

/* The count of the bins at ns from b[*i] on (ascending bins; *i moves past them). */
static uint64_t count_at(const fior_bin *b, size_t n, size_t *i, uint64_t ns)
{
    uint64_t c = 0;
    while (*i < n && b[*i].ns < ns)
        (*i)++;
    for (; *i < n && b[*i].ns == ns; (*i)++)
        c += b[*i].count;
    return c;
}

/* 1 when a latency's count in b is below its count in the earlier old (*ns, *was, *now say which): fio's
 * cumulative bins of one run only grow, bin by bin. A run whose slow samples vanish while its total still
 * grows is another run (or forged), and the sequential test holds only along one run's samples. */
static int bins_shrank(const fior_bin *old, size_t nold, const fior_bin *b, size_t n, uint64_t *ns, uint64_t *was,
                       uint64_t *now)
{
    size_t i = 0, j = 0;
    while (i < nold) {
        uint64_t at = old[i].ns, before = count_at(old, nold, &i, at), after = count_at(b, n, &j, at);
        if (after < before) {
            *ns = at;
            *was = before;
            *now = after;
            return 1;
        }
    }
    return 0;
}

/* Each role's latest bins: the next document's must hold at least as many of each latency, and phase 1's
 * final ones are the probe's reference. */
static void keep_last(fior_monitor *m, int k, const fior_bin *b, size_t n)
{
    fior_bin *c = copy_bins(b, n);
    if (n && !c)
        return; /* out of memory: the probe will have no phase-1 data and confirm nothing */
    free(m->last[k]);
    m->last[k] = c;
    m->nlast[k] = n;
}

int fior__monitor_grows(fior_monitor *m, int k, const fior_bin *b, size_t n)
{
    const char *what = k ? "backend" : "WAL";
    uint64_t t = 0, ns = 0, was = 0, now = 0;
    if (fior__bins_total(b, n, &t))
        snprintf(m->err, sizeof m->err, "fior_monitor: expected the %s bins in ascending order with counts adding "
                 "up below 2^64", what);
    else if (t < m->seen[k])
        snprintf(m->err, sizeof m->err, "fior_monitor: expected the cumulative documents of one growing run, but the "
                 "%s samples went from %llu to %llu (another run, or documents out of order)", what,
                 (unsigned long long)m->seen[k], (unsigned long long)t);
    else if (bins_shrank(m->last[k], m->nlast[k], b, n, &ns, &was, &now))
        snprintf(m->err, sizeof m->err, "fior_monitor: expected the cumulative documents of one growing run, but the "
                 "%s samples at %llu ns went from %llu to %llu (another run, or documents out of order)", what,
                 (unsigned long long)ns, (unsigned long long)was, (unsigned long long)now);
    else {
        m->seen[k] = t;
        return 0;
    }
    m->broken = 1;
    return -1;
}

fior_status fior__monitor_feed_bins(fior_monitor *m, const fior_bin *wal, size_t nwal, const fior_bin *backend,
                                   size_t nbackend, double elapsed_s, fior_advice *advice)
{
    if (advice)
        *advice = FIOR_GO_ON;
    if (!m)
        return FIOR_E_INVAL;
    if ((!wal && nwal) || (!backend && nbackend))
        return refuse(m, "bins for every count given (NULL with a count)");
    if (!m->started)
        start(m);
    const fior_bin *bb[2] = {wal, backend};
    size_t nb[2] = {nwal, nbackend};
    for (int k = 0; k < 2 && !m->broken; k++)
        fior__monitor_grows(m, k, bb[k], nb[k]);
    if (m->broken)
        return FIOR_E_INVAL; /* nothing more is decided; fior__monitor_end says why */
    m->err[0] = '\0';
    int stop = fior__seq_update(&m->seq, wal, nwal, backend, nbackend);
    keep_last(m, 0, wal, nwal);
    keep_last(m, 1, backend, nbackend);
    fior_advice a = stop ? FIOR_STOP_DECIDED : FIOR_GO_ON;
    if (m->heavy) { /* a FAIL of the heavy load is no verdict: phase 1 stops on its own rule */
        fior__tp_phase1 t = fior__tp_phase1_state(&m->seq);
        m->p1_passed = t == FIOR__TP_PASS;
        a = t == FIOR__TP_PASS ? FIOR_STOP_DECIDED : t == FIOR__TP_GIVE_UP ? FIOR__STOP_PHASE_OVER : FIOR_GO_ON;
    } else if (m->probe_on && !m->probed && !stop) {
        if (m->probe_from < 0 && nwal)
            m->probe_from = elapsed_s;
        if (m->probe_from >= 0 && elapsed_s - m->probe_from >= FIOR_PROBE_S) {
            fior__tp_probe_compare(m->p1[0], m->np1[0], m->p1[1], m->np1[1], wal, nwal, backend, nbackend,
                                   m->seq.wal.threshold_ns, m->seq.wal_only ? 0 : m->seq.backend.threshold_ns,
                                   &m->probe);
            m->probed = 1;
            a = m->probe.ok ? FIOR__STOP_CONFIRMED : FIOR_GO_ON; /* else phase 2 goes on and decides alone */
        }
    }
    if (advice)
        *advice = a;
    return FIOR_OK;
}

fior_status fior_monitor_feed(fior_monitor *m, const fior_report *r, double elapsed_s, fior_advice *advice)
{
    if (advice)
        *advice = FIOR_GO_ON;
    if (!m || !r)
        return refuse(m, "a monitor and a report");
    const fior_job *w, *b;
    fior__monitor_pair(r, &w, &b);
    return fior__monitor_feed_bins(m, w ? w->bins : NULL, w ? w->nbins : 0, b ? b->bins : NULL, b ? b->nbins : 0,
                                  elapsed_s, advice);
}

const fior__seq_side *fior__monitor_side(const fior_monitor *m, fior_role role)
{
    return role == FIOR_ROLE_BACKEND ? &m->seq.backend : &m->seq.wal;
}

fior_status fior_monitor_answer(const fior_monitor *m, fior_role role, fior_answer *out)
{
    if (!m || !out || out->size < offsetof(fior_answer, threshold_ns) ||
        (role != FIOR_ROLE_WAL && role != FIOR_ROLE_BACKEND))
        return FIOR_E_INVAL;
    fior_answer a;
    memset(&a, 0, sizeof a);
    a.size = out->size < sizeof a ? out->size : sizeof a;
    a.hi_ns = a.look_hi_ns = UINT64_MAX;
    a.look_confidence = m->confidence;
    a.threshold_ns = m->c.threshold_ns[role];
    if (m->started) {
        const fior__seq_side *s = fior__monitor_side(m, role);
        a.decision = s->state;
        a.threshold_ns = s->threshold_ns;
        a.samples = s->n;
        a.point_ns = s->point_ns;
        a.lo_ns = s->lo_ns;
        a.hi_ns = s->hi_ns;
        a.look_lo_ns = s->look_lo_ns;
        a.look_hi_ns = s->look_hi_ns;
        a.look_confidence = s->look_confidence;
        a.pass_looks = s->pass_looks;
        a.fail_looks = s->fail_looks;
        a.decided_samples = s->decided_n;
    }
    memcpy(out, &a, a.size);
    return FIOR_OK;
}

fior_decision fior_monitor_overall(const fior_monitor *m)
{
    return m && m->started ? fior__seq_overall(&m->seq) : FIOR_DEC_ABSENT;
}

fior_status fior__monitor_probe(const fior_monitor *m, fior__probe *out)
{
    if (!m || !out || out->size < offsetof(fior__probe, ok))
        return FIOR_E_INVAL;
    fior__probe p;
    memset(&p, 0, sizeof p);
    p.size = out->size < sizeof p ? out->size : sizeof p;
    p.done = m->probed;
    p.ok = m->probed && m->probe.ok;
    p.phase1_wal_ns = m->probe.heavy_wal_ns;
    p.probe_wal_ns = m->probe.probe_wal_ns;
    p.phase1_backend_ns = m->probe.heavy_be_ns;
    p.probe_backend_ns = m->probe.probe_be_ns;
    snprintf(p.why, sizeof p.why, "%s", m->probe.why);
    memcpy(out, &p, p.size);
    return FIOR_OK;
}
