/* SPDX-License-Identifier: MIT */
/* result_explain.c — fills the result model's explain lines (result.h) from explain.h's rules: from the
 * run's own jobs (check, fleet: exact numbers, one call per host) or from the library's jobs (verdict:
 * bucket bounds included); then the last step every command takes: no line that trusts what the result
 * does not, and an UNKNOWN that ends with the command to run next. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "result.h"

const char *result_role_name(fior_role role)
{
    return role == FIOR_ROLE_BACKEND ? "backend" : role == FIOR_ROLE_CHECK_PERF ? "check-perf" : "wal";
}

void result_explain(result_run *r, const explain_facts *f, const char *prefix)
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
    explain_range x = {v != RESULT_UNKNOWN, v, v};
    return x;
}

/* The check that measures a host's disk again under the run's load (fleet's; verdict has none). */
static void check_again(const result_run *r, const char *dir, char *out, size_t n)
{
    char opts[64] = "";
    if (r->load && r->load[0] && strcmp(r->load, "s"))
        snprintf(opts, sizeof opts, "--load %s", r->load);
    explain_check_cmd(out, n, opts, dir);
}

void result_explain_jobs(result_run *r, uint64_t rollover_worst_ns, const char *fs_type, const char *next)
{
    for (size_t h = 0; h < r->nhosts; h++) {
        const result_host *host = &r->hosts[h];
        explain_dist d[16];
        size_t n = 0;
        for (size_t i = 0; i < host->njobs && n < sizeof d / sizeof d[0]; i++) {
            const result_job *j = &host->jobs[i];
            /* a host the result leaves unknown does not stand behind its jobs' passes, and its own reason
             * (the run's) says why better than each job's figures: one line for it, below */
            if (host->verdict == FIOR_UNKNOWN && (j->verdict == FIOR_PASS || j->verdict == FIOR_UNKNOWN))
                continue;
            explain_dist *x = &d[n++];
            memset(x, 0, sizeof *x);
            x->label = explain_role_label(EXPLAIN_DISK_TEST, j->role);
            x->role = j->role;
            x->origin = EXPLAIN_DISK_TEST;
            x->verdict = j->verdict;
            x->reason = j->reason;
            x->threshold_ns = j->threshold_ns == RESULT_UNKNOWN ? 0 : j->threshold_ns;
            x->too_few = j->verdict == FIOR_UNKNOWN && j->samples != RESULT_UNKNOWN && j->samples < r->min_samples;
            x->p50 = exact(j->p50_ns);
            x->p99 = exact(j->p99_ns);
            x->p999 = exact(j->p999_ns);
            x->max = exact(j->max_ns ? j->max_ns : RESULT_UNKNOWN);
            x->samples_known = j->samples != RESULT_UNKNOWN;
            x->samples = x->samples_known ? j->samples : 0;
            if (next && next[0])
                snprintf(x->next, sizeof x->next, "%s", next);
            else
                check_again(r, host->dir, x->next, sizeof x->next);
        }
        explain_facts f = {d, n, 0, 0, 0, r->wal_threshold_ns, fs_type};
        if (r->nhosts == 1 && rollover_worst_ns != RESULT_UNKNOWN && host->rollovers != RESULT_UNKNOWN) {
            f.rollover_known = 1;
            f.rollovers = host->rollovers;
            f.rollover_worst_ns = rollover_worst_ns;
        }
        char prefix[300] = "";
        if (r->nhosts > 1)
            snprintf(prefix, sizeof prefix, host->port >= 0 ? "%s:%d: " : "%s: ", host->host, host->port);
        result_explain(r, &f, prefix);
        if (host->verdict == FIOR_UNKNOWN && r->nexplain < sizeof r->explain / sizeof r->explain[0]) {
            char why[sizeof prefix + sizeof host->reason], cmd[EXPLAIN_NEXT_MAX]; /* cut to fit there */
            snprintf(why, sizeof why, "%s%s", prefix, host->reason[0] ? host->reason : "not judged");
            if (next && next[0])
                snprintf(cmd, sizeof cmd, "%s", next);
            else
                check_again(r, host->dir, cmd, sizeof cmd);
            explain_undecided(&r->explain[r->nexplain++], why, cmd);
        }
    }
}

void result_explain_env(result_run *r, const explain_env *e)
{
    size_t room = sizeof r->explain / sizeof r->explain[0] - r->nexplain;
    explain_env x = *e;
    if (r->verdict == FIOR_PASS) /* "a slow result may be the memory": there is no slow result to explain */
        x.memory_pressure = 0;
    r->nexplain += explain_env_lines(&x, r->explain + r->nexplain, room);
}

/* The verdict's explain lines: every job of the report (etcd's own metrics beside a disk test give
 * not-the-disk), each fio job's line naming it. 0, or -1 when out of memory. */
int result_explain_report(result_run *r, const fior_report *rep, const fior_result *res, const fior_criteria *crit)
{
    size_t n = fior_report_njobs(rep);
    explain_dist *d = calloc(n ? n : 1, sizeof *d);
    char (*label)[160] = calloc(n ? n : 1, sizeof *label);
    if (!d || !label) {
        free(d);
        free(label);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        const fior_job *j = fior_report_job(rep, i);
        explain_dist_from_job(&d[i], j, fior_result_job(res, i), fior_criteria_min_samples(crit));
        if (d[i].origin == EXPLAIN_DISK_TEST && j->name) { /* several fio jobs: say which */
            snprintf(label[i], sizeof label[i], "%s of job %.100s", d[i].label, j->name);
            d[i].label = label[i];
        }
    }
    explain_facts f = {d, n, 0, 0, 0, fior_criteria_threshold(crit, FIOR_ROLE_WAL), NULL};
    result_explain(r, &f, "");
    free(d);
    free(label);
    return 0;
}

/* Line l says what one of the first k says, word for word. */
static int said_before(const explain_line *lines, size_t k, const explain_line *l)
{
    for (size_t i = 0; i < k; i++)
        if (lines[i].rule == l->rule && lines[i].advice == l->advice && lines[i].on == l->on &&
            !strcmp(lines[i].why, l->why) && !strcmp(lines[i].next, l->next))
            return 1;
    return 0;
}

void result_explain_finish(result_run *r, int one_run, const char *next)
{
    size_t k = 0;
    for (size_t i = 0; i < r->nexplain; i++) {
        if (one_run && r->verdict == FIOR_UNKNOWN && r->explain[i].on == EXPLAIN_ON(FIOR_PASS))
            continue;
        if (said_before(r->explain, k, &r->explain[i])) /* two jobs alike (same host and name): one line */
            continue;
        if (k != i)
            r->explain[k] = r->explain[i];
        k++;
    }
    r->nexplain = k;
    if (r->verdict != FIOR_UNKNOWN)
        return;
    /* the last line names the next command: the first that has one goes last, else one is added */
    if (r->nexplain && r->explain[r->nexplain - 1].next[0])
        return;
    for (size_t i = 0; i < r->nexplain; i++) {
        if (!r->explain[i].next[0])
            continue;
        if (i + 1 < r->nexplain) {
            explain_line t = r->explain[i];
            memmove(&r->explain[i], &r->explain[i + 1], (r->nexplain - i - 1) * sizeof t);
            r->explain[r->nexplain - 1] = t;
        }
        return;
    }
    if (r->nexplain == sizeof r->explain / sizeof r->explain[0])
        r->nexplain--; /* the command matters more than the last of 64 lines */
    char dflt[EXPLAIN_NEXT_MAX];
    check_again(r, r->nhosts == 1 ? r->hosts[0].dir : NULL, dflt, sizeof dflt);
    explain_undecided(&r->explain[r->nexplain++], r->reason, next && next[0] ? next : dflt);
}
