/* SPDX-License-Identifier: MIT */
/* result_explain.c — fills the result model's explain lines (result.h) from explain.h's rules: from the
 * run's own jobs (check, fleet: exact numbers, one call per host) or from distributions a command built
 * itself (verdict: the library's jobs, bucket bounds included). */
#include <stdio.h>
#include <string.h>

#include "result.h"

const char *rm_role_name(fior_role role)
{
    return role == FIOR_ROLE_BACKEND ? "backend" : role == FIOR_ROLE_CHECK_PERF ? "check-perf" : "wal";
}

void rm_explain(rm_run *r, const explain_facts *f, const char *prefix)
{
    size_t room = sizeof r->explain / sizeof r->explain[0] - r->nexplain;
    size_t n = explain(f, r->explain + r->nexplain, room);
    for (size_t i = 0; prefix && prefix[0] && i < n; i++) {
        explain_line *l = &r->explain[r->nexplain + i];
        char why[sizeof l->why];
        snprintf(why, sizeof why, "%s%s", prefix, l->why);
        memcpy(l->why, why, sizeof why);
    }
    r->nexplain += n;
}

static explain_range exact(uint64_t v)
{
    explain_range x = {v != RM_UNKNOWN, v, v};
    return x;
}

void rm_explain_jobs(rm_run *r, uint64_t rollover_worst_ns)
{
    for (size_t h = 0; h < r->nhosts; h++) {
        const rm_host *host = &r->hosts[h];
        explain_dist d[16];
        size_t n = 0;
        for (size_t i = 0; i < host->njobs && n < sizeof d / sizeof d[0]; i++) {
            const rm_job *j = &host->jobs[i];
            explain_dist *x = &d[n++];
            memset(x, 0, sizeof *x);
            x->label = j->role == FIOR_ROLE_BACKEND ? "backend commit" : "WAL fdatasync";
            x->role = j->role;
            x->origin = EXPLAIN_DISK_TEST;
            x->verdict = j->verdict;
            x->reason = j->reason;
            x->threshold_ns = j->threshold_ns == RM_UNKNOWN ? 0 : j->threshold_ns;
            x->too_few = j->verdict == FIOR_UNKNOWN && j->samples != RM_UNKNOWN && j->samples < r->min_samples;
            x->p50 = exact(j->p50_ns);
            x->p99 = exact(j->p99_ns);
            x->p999 = exact(j->p999_ns);
            x->max = exact(j->max_ns ? j->max_ns : RM_UNKNOWN);
        }
        explain_facts f = {d, n, 0, 0, 0, r->wal_threshold_ns};
        if (r->nhosts == 1 && rollover_worst_ns != RM_UNKNOWN && host->rollovers != RM_UNKNOWN) {
            f.rollover_known = 1;
            f.rollovers = host->rollovers;
            f.rollover_worst_ns = rollover_worst_ns;
        }
        char prefix[300] = "";
        if (r->nhosts > 1)
            snprintf(prefix, sizeof prefix, host->port >= 0 ? "%s:%d: " : "%s: ", host->host, host->port);
        rm_explain(r, &f, prefix);
    }
}

void rm_explain_env(rm_run *r, const explain_env *e)
{
    size_t room = sizeof r->explain / sizeof r->explain[0] - r->nexplain;
    r->nexplain += explain_env_lines(e, r->explain + r->nexplain, room);
}
