/* SPDX-License-Identifier: MIT */
/* result.c — the judged-run model shared by check, fleet and verdict (see result.h). */
#include "result.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "fioreport_monitor.h"
#include "jw.h"

const char *result_basis_name(result_basis b)
{
    switch (b) {
    case RESULT_BASIS_VALUE: return "value";
    case RESULT_BASIS_BOUND: return "bound";
    case RESULT_BASIS_POINT: return "point-estimate";
    case RESULT_BASIS_UNDECIDED: return "undecided";
    default: return "none";
    }
}

void result_init(result_run *r, const char *command, const fior_criteria *c)
{
    memset(r, 0, sizeof *r);
    r->command = command;
    snprintf(r->tool_version, sizeof r->tool_version, "%s", fior_version());
    cli_hostname(r->hostname, sizeof r->hostname);
    r->timestamp = time(NULL);
    r->percentile = fior_criteria_percentile(c);
    r->wal_threshold_ns = fior_criteria_threshold(c, FIOR_ROLE_WAL);
    r->backend_threshold_ns = fior_criteria_threshold(c, FIOR_ROLE_BACKEND);
    r->min_samples = fior_criteria_min_samples(c);
    r->floor_ns = fior_criteria_floor(c);
    r->verdict = FIOR_UNKNOWN;
}

void result_free(result_run *r)
{
    for (size_t i = 0; i < r->nhosts; i++)
        free(r->hosts[i].jobs);
    free(r->hosts);
    for (size_t i = 0; i < r->ndetails; i++) {
        yajl_tree_free(r->details[i].json);
        free(r->details[i].text);
    }
    r->hosts = NULL;
    r->nhosts = r->cap = r->ndetails = 0;
}

/* arr with room for one more element (n used of *cap): arr itself, a larger copy, or NULL (no memory;
 * arr is still valid then). */
static void *grow(void *arr, size_t n, size_t *cap, size_t elem)
{
    if (n < *cap)
        return arr;
    size_t nc = *cap ? *cap * 2 : 4;
    void *na = realloc(arr, nc * elem);
    if (na)
        *cap = nc;
    return na;
}

result_host *result_add_host(result_run *r)
{
    result_host *nh = grow(r->hosts, r->nhosts, &r->cap, sizeof *r->hosts);
    if (!nh)
        return NULL;
    r->hosts = nh;
    result_host *h = &r->hosts[r->nhosts++];
    memset(h, 0, sizeof *h);
    h->port = -1;
    h->rollovers = RESULT_UNKNOWN;
    h->duration_s = -1;
    h->verdict = FIOR_UNKNOWN;
    snprintf(h->status, sizeof h->status, "judged");
    return h;
}

result_job *result_add_job(result_host *h)
{
    result_job *nj = grow(h->jobs, h->njobs, &h->cap, sizeof *h->jobs);
    if (!nj)
        return NULL;
    h->jobs = nj;
    result_job *j = &h->jobs[h->njobs++];
    result_job_init(j);
    return j;
}

void result_job_init(result_job *j)
{
    memset(j, 0, sizeof *j);
    j->samples = j->p50_ns = j->p99_ns = j->p999_ns = j->max_ns = RESULT_UNKNOWN;
    j->judged_ns = j->bound_lo_ns = j->bound_hi_ns = j->threshold_ns = RESULT_UNKNOWN;
    j->verdict = FIOR_UNKNOWN;
}

void result_add_detail(result_run *r, const char *key, const char *label, yajl_gen json, const char *fmt, ...)
{
    if (r->ndetails == sizeof r->details / sizeof r->details[0]) {
        if (json)
            yajl_gen_free(json);
        return;
    }
    result_detail *d = &r->details[r->ndetails++];
    snprintf(d->key, sizeof d->key, "%s", key);
    snprintf(d->label, sizeof d->label, "%s", label);
    va_list ap;
    va_start(ap, fmt);
    if (vasprintf(&d->text, fmt, ap) < 0)
        d->text = NULL;
    va_end(ap);
    d->json = jw_to_tree(json);
}

uint64_t result_job_pct(const fior_job *j, double percent)
{
    for (size_t i = 0; j && i < j->npct; i++)
        if (j->pct[i].percent > percent - 1e-9 && j->pct[i].percent < percent + 1e-9)
            return explain_in_range(j, j->pct[i].ns);
    uint64_t lo, pt = RESULT_UNKNOWN, hi;
    if (j && j->nbins) { /* the point estimate is set even when there are too few samples for a bound */
        fior_status st = fior_quantile_bound(j->bins, j->nbins, percent / 100.0, 0.95, &lo, &pt, &hi);
        if (st == FIOR_E_INVAL || (st != FIOR_OK && pt == 0))
            pt = RESULT_UNKNOWN;
    }
    return explain_in_range(j, pt);
}

void result_job_fill(result_job *o, const fior_job *j, const fior_judgement *jd)
{
    snprintf(o->name, sizeof o->name, "%s", j->name ? j->name : "");
    snprintf(o->source, sizeof o->source, "%s", j->source ? j->source : "");
    o->run = j->run + 1;
    o->role = j->role;
    o->samples = j->samples_known ? j->samples : RESULT_UNKNOWN;
    if (j->has_sync) {
        o->p50_ns = result_job_pct(j, 50.0);
        o->p99_ns = result_job_pct(j, 99.0);
        o->p999_ns = result_job_pct(j, 99.9);
        o->max_ns = j->max_ns && !j->bucketed ? j->max_ns : RESULT_UNKNOWN; /* 0: not in the input */
    }
    o->bins = j->bins;
    o->nbins = j->nbins;
    o->end = j->end;
    snprintf(o->end_reason, sizeof o->end_reason, "%s", j->end_reason ? j->end_reason : "");
    snprintf(o->ioengine, sizeof o->ioengine, "%s", j->ioengine ? j->ioengine : "");
    if (!j->bucketed && j->role != FIOR_ROLE_CHECK_PERF && j->end != FIOR_END_UNKNOWN)
        fior_sync_flags_name(o->syncs, sizeof o->syncs, j->sync_flags);
    o->medium = j->medium == FIOR_MEDIUM_DISK ? "disk" : j->medium == FIOR_MEDIUM_NOT_DISK ? "not disk" : NULL;
    snprintf(o->medium_reason, sizeof o->medium_reason, "%s", j->medium_reason ? j->medium_reason : "");
    if (jd && jd->verdict == FIOR_PASS && FIOR_HAS(jd, fior_judgement, medium_inferred) && jd->medium_inferred)
        o->medium = "inferred";
    if (jd) {
        o->verdict = jd->verdict;
        o->judged_ns = jd->value_known ? jd->value_ns : RESULT_UNKNOWN;
        o->threshold_ns = j->role == FIOR_ROLE_CHECK_PERF ? RESULT_UNKNOWN : jd->threshold_ns; /* etcdctl's own */
        snprintf(o->reason, sizeof o->reason, "%s", jd->reason ? jd->reason : "");
    }
}

int result_rank(fior_verdict v)
{
    return v == FIOR_FAIL ? 0 : v == FIOR_UNKNOWN ? 1 : v == FIOR_NOT_JUDGED ? 2 : 3;
}

/* The aggregation rules are the library's (fior_verdict_combine, fior_verdict_overall). A host or run has at
 * most a few jobs or hosts per call: a small array on the stack, else one allocation. */
static fior_verdict gather(size_t n, const void *base, size_t stride, size_t off, int overall)
{
    fior_verdict small[16] = {FIOR_PASS}, *v = n <= 16 ? small : malloc(n * sizeof *v);
    if (!v)
        return FIOR_UNKNOWN;
    for (size_t i = 0; i < n; i++)
        v[i] = *(const fior_verdict *)((const char *)base + i * stride + off);
    fior_verdict r = overall ? fior_verdict_overall(v, n) : fior_verdict_combine(v, n);
    if (v != small)
        free(v);
    return r;
}

fior_verdict result_jobs_verdict(const result_host *h)
{
    return gather(h->njobs, h->jobs, sizeof *h->jobs, offsetof(result_job, verdict), 0);
}

void result_finish(result_run *r)
{
    r->verdict = gather(r->nhosts, r->hosts, sizeof *r->hosts, offsetof(result_host, verdict), 1);
}
