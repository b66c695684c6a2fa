/* SPDX-License-Identifier: MIT */
/* judge.c — the opaque handles around verdict.c's rules: the criteria (curl-style setters, so fields can be
 * added without breaking callers), the result of judging a report (library-owned judgements whose reasons
 * live as long as the result) and the version query. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define MS 1000000ULL

const char *fior_version(void)
{
    return FIOR_VERSION;
}

unsigned fior_version_number(void)
{
    return FIOR_VERSION_NUMBER;
}

/* ---- criteria ---- */

void fior__criteria_default(fior_criteria *c)
{
    c->percentile = 99.0;
    c->threshold_ns[FIOR_ROLE_WAL] = 10 * MS;     /* etcd's WAL fdatasync guidance */
    c->threshold_ns[FIOR_ROLE_BACKEND] = 25 * MS; /* bbolt backend commit guidance */
    c->min_samples = 100;
    c->floor_ns = FIOR_FLOOR_DEFAULT_NS; /* bench/flush_floor.sh: the fastest real flush here took 35 us */
    c->caller_stop = 0;
}

static int role_ok(fior_role role)
{
    return (unsigned)role < FIOR__NROLES;
}

fior_criteria *fior_criteria_new(void)
{
    fior_criteria *c = malloc(sizeof *c);
    if (c)
        fior__criteria_default(c);
    return c;
}

void fior_criteria_free(fior_criteria *c)
{
    free(c);
}

fior_criteria *fior_criteria_dup(const fior_criteria *c)
{
    fior_criteria *d = fior_criteria_new();
    if (d && c)
        *d = *c;
    return d;
}

fior_status fior_criteria_set_percentile(fior_criteria *c, double percent)
{
    if (!c || !(percent > 0 && percent < 100)) /* also refuses NaN */
        return FIOR_E_INVAL;
    c->percentile = percent;
    return FIOR_OK;
}

fior_status fior_criteria_set_threshold(fior_criteria *c, fior_role role, uint64_t ns)
{
    if (!c || !role_ok(role) || ns == 0)
        return FIOR_E_INVAL;
    c->threshold_ns[role] = ns;
    return FIOR_OK;
}

fior_status fior_criteria_set_min_samples(fior_criteria *c, uint64_t n)
{
    if (!c)
        return FIOR_E_INVAL;
    c->min_samples = n;
    return FIOR_OK;
}

fior_status fior_criteria_set_floor(fior_criteria *c, uint64_t floor_ns)
{
    if (!c)
        return FIOR_E_INVAL;
    c->floor_ns = floor_ns;
    return FIOR_OK;
}

fior_status fior_criteria_set_caller_stop(fior_criteria *c, int signo)
{
    if (!c || signo < 0)
        return FIOR_E_INVAL;
    c->caller_stop = signo;
    return FIOR_OK;
}

uint64_t fior_criteria_floor(const fior_criteria *c)
{
    return c ? c->floor_ns : FIOR_FLOOR_DEFAULT_NS;
}

int fior_criteria_caller_stop(const fior_criteria *c)
{
    return c ? c->caller_stop : 0;
}

double fior_criteria_percentile(const fior_criteria *c)
{
    return c ? c->percentile : 99.0;
}

uint64_t fior_criteria_threshold(const fior_criteria *c, fior_role role)
{
    fior_criteria d;
    if (!c) {
        fior__criteria_default(&d);
        c = &d;
    }
    return c->threshold_ns[role_ok(role) ? role : FIOR_ROLE_WAL];
}

uint64_t fior_criteria_min_samples(const fior_criteria *c)
{
    return c ? c->min_samples : 100;
}

/* ---- result ---- */

struct fior_result {
    fior_verdict  overall;
    size_t        n;
    fior__judged *jobs;  /* n of them; each judgement's reason points into its own entry */
};

static int same_str(const char *a, const char *b)
{
    return a == b || (a && b && !strcmp(a, b));
}

/* etcd keeps its WAL and its bbolt file in one data dir: when a scrape's WAL fsyncs average below the floor
 * (verdict.c judge_buckets: the data dir is not on a disk), a backend commit series of the same scrape and
 * instance does not pass either. */
static void same_data_dir(const fior_report *r, const fior_criteria *c, fior_result *res, fior_verdict *v)
{
    uint64_t floor = c ? c->floor_ns : FIOR_FLOOR_DEFAULT_NS;
    for (size_t i = 0; floor && i < res->n; i++) {
        const fior_job *b = fior_report_job(r, i);
        if (v[i] != FIOR_PASS || !b->bucketed || b->role != FIOR_ROLE_BACKEND)
            continue;
        for (size_t k = 0; k < res->n; k++) {
            const fior_job *w = fior_report_job(r, k);
            if (!w->bucketed || w->role != FIOR_ROLE_WAL || w->run != b->run || w->window != b->window ||
                !same_str(w->source, b->source) || !same_str(w->host, b->host) || !(w->mean_ns > 0) ||
                w->mean_ns >= (double)floor)
                continue;
            fior__judged *o = &res->jobs[i];
            char was[sizeof o->reason];
            memcpy(was, o->reason, sizeof was);
            o->j.value_known = 0;
            o->j.medium_inferred = 0;
            v[i] = fior__vsay(o, FIOR_UNKNOWN, "etcd's data dir is not on a disk: its WAL fsyncs average below the "
                              "floor (%s, line %zu); these commits were made there too (measured: %s)",
                              w->name ? w->name : "WAL", w->line, was);
            break;
        }
    }
}

fior_result *fior_judge(const fior_report *r, const fior_criteria *c)
{
    size_t n = fior_report_njobs(r);
    fior_result *res = calloc(1, sizeof *res);
    if (!res)
        return NULL;
    res->jobs = n ? calloc(n, sizeof *res->jobs) : NULL;
    if (n && !res->jobs) {
        free(res);
        return NULL;
    }
    res->n = n;
    fior_verdict *v = n ? malloc(n * sizeof *v) : NULL;
    if (n && !v) {
        free(res->jobs);
        free(res);
        return NULL;
    }
    for (size_t i = 0; i < n; i++)
        v[i] = fior__judge_job(fior_report_job(r, i), c, &res->jobs[i]);
    same_data_dir(r, c, res, v);
    res->overall = fior_verdict_combine(v, n); /* aggregate.c: the one rule */
    free(v);
    return res;
}

void fior_result_free(fior_result *res)
{
    if (!res)
        return;
    free(res->jobs);
    free(res);
}

fior_verdict fior_result_verdict(const fior_result *res)
{
    return res ? res->overall : FIOR_UNKNOWN;
}

size_t fior_result_count(const fior_result *res)
{
    return res ? res->n : 0;
}

const fior_judgement *fior_result_job(const fior_result *res, size_t i)
{
    return res && i < res->n ? &res->jobs[i].j : NULL;
}
