/* SPDX-License-Identifier: MIT */
/* out_prom.c — the node_exporter textfile of check and fleet: ONE metric table, so both commands write the
 * same names and labels ({host, dir}; fleet's host is "HOST:PORT"). Every metric is a gauge (the values
 * describe the last run, they do not count up): none ends in _total. `promtool check metrics` passes on
 * both (tests/it_check.sh, it_fleet.sh, it_fleet_ssh.sh). The verdict series says what it rests on in its `basis` label
 * ("bound", "point-estimate", "undecided", "value", "none"). */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "out.h"
#include "prom.h"

typedef struct metric {
    const char *name, *help;
} metric;

/* per role: the same suffixes for etcd_fio_wal_fsync_* and etcd_fio_backend_commit_* */
static const metric role_metrics[] = {
    {"p50_seconds", "median latency of the run"},
    {"p99_seconds", "99th percentile latency of the run (what etcd's thresholds are about)"},
    {"p99_9_seconds", "99.9th percentile latency of the run"},
    {"max_seconds", "slowest operation of the run"},
    {"p99_bound_low_seconds", "lower end of the confidence bound on the p99"},
    {"p99_bound_high_seconds", "upper end of the confidence bound on the p99"},
    {"threshold_seconds", "the p99 must be below this (WAL 10 ms, backend 25 ms by default)"},
    {"samples", "operations measured (fdatasyncs or commits)"},
};

static int add_ns(prom_file *p, const char *prefix, size_t k, const prom_label *l, uint64_t v)
{
    if (v == RESULT_UNKNOWN)
        return 0;
    char name[96], help[200];
    snprintf(name, sizeof name, "%s_%s", prefix, role_metrics[k].name);
    fior_role role = !strcmp(prefix, "etcd_fio_wal_fsync") ? FIOR_ROLE_WAL : FIOR_ROLE_BACKEND;
    snprintf(help, sizeof help, "%s: %s", explain_role_label(EXPLAIN_DISK_TEST, role), role_metrics[k].help);
    double val = strstr(role_metrics[k].name, "_seconds") ? (double)v / 1e9 : (double)v;
    return prom_add(p, name, help, "gauge", l, 2, val);
}

static int host_metrics(prom_file *p, const result_run *r, const result_host *h)
{
    char host[300];
    if (h->port >= 0)
        cli_msg(host, sizeof host, strchr(h->host, ':') ? "[%s]:%d" : "%s:%d", h->host, h->port);
    else
        cli_msg(host, sizeof host, "%s", h->host);
    prom_label l[3] = {{"host", host}, {"dir", h->dir}, {"basis", result_basis_name(h->basis)}};
    int rc = prom_add(p, "etcd_fio_verdict",
                      "verdict of the host: 0 pass, 1 fail, 2 unknown (basis: bound, point-estimate, undecided, "
                      "value, none)", "gauge", l, 3, cli_exit_status(h->verdict));
    rc |= prom_add(p, "etcd_fio_host_ok", "1 when the host could run the profile and gave results", "gauge", l, 2,
                   !strcmp(h->status, "judged"));
    for (size_t i = 0; i < h->njobs; i++) {
        const result_job *j = &h->jobs[i];
        const char *prefix = j->role == FIOR_ROLE_BACKEND ? "etcd_fio_backend_commit" : "etcd_fio_wal_fsync";
        uint64_t v[] = {j->p50_ns, j->p99_ns, j->p999_ns, j->max_ns, j->bound_lo_ns, j->bound_hi_ns,
                        j->threshold_ns, j->samples};
        for (size_t k = 0; k < sizeof v / sizeof v[0]; k++)
            rc |= add_ns(p, prefix, k, l, v[k]);
    }
    if (h->rollovers != RESULT_UNKNOWN)
        rc |= prom_add(p, "etcd_fio_wal_rollovers", "WAL segment rollovers during the run", "gauge", l, 2,
                       (double)h->rollovers);
    if (h->duration_s >= 0)
        rc |= prom_add(p, "etcd_fio_duration_seconds", "duration of the fio run", "gauge", l, 2, h->duration_s);
    rc |= prom_add(p, "etcd_fio_timestamp_seconds", "when the run ended (Unix time; tells a stale file)", "gauge",
                   l, 2, (double)r->timestamp);
    prom_label info[5] = {{"host", host}, {"dir", h->dir}, {"command", r->command},
                          {"tool_version", r->tool_version},
                          {"fio_version", h->fio_version[0] ? h->fio_version : r->fio_version}};
    rc |= prom_add(p, "etcd_fio_info", "versions of the run (value 1)", "gauge", info, 5, 1);
    return rc;
}

int out_prom(const result_run *r, char **buf, size_t *len)
{
    prom_file *p = prom_new();
    if (!p)
        return -1;
    int rc = 0;
    for (size_t i = 0; i < r->nhosts; i++)
        rc |= host_metrics(p, r, &r->hosts[i]);
    prom_label l[2] = {{"command", r->command}, {"basis", result_basis_name(r->basis)}};
    rc |= prom_add(p, "etcd_fio_overall_verdict", "verdict of the whole run (worst host): 0 pass, 1 fail, 2 unknown",
                   "gauge", l, 2, cli_exit_status(r->verdict));
    if (!rc)
        rc = prom_render(p, buf, len);
    prom_free(p);
    return rc;
}
