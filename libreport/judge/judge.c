/* SPDX-License-Identifier: MIT */
/* judge.c — judging a report: fior_judge runs verdict.c's rules on each job against the criteria
 * (criteria.c) into a result (library-owned judgements whose reasons live as long as the result), and the
 * version query. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

const char *fior_version(void)
{
    return FIOR_VERSION;
}

unsigned fior_version_number(void)
{
    return FIOR_VERSION_NUMBER;
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
