/* SPDX-License-Identifier: MIT */
/* out_json.c — the JSON writer of the result model (over jw.h); doc/etcd-fio.schema.json is its contract:
 * keep the two in step. tests/validate_json.py checks every command's output against it (it_check,
 * it_verdict, it_fleet, it_fleet_ssh, it_capacity, it_explain, it_layers, it_check_phases). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "jw.h"
#include "out.h"
#include "outfile.h"

static void job_json(yajl_gen g, const result_job *j)
{
    jw_open(g);
    jw_kstr(g, "name", j->name);
    jw_kstr_or_null(g, "source", j->source);
    jw_ku64(g, "run", j->run ? j->run : 1);
    jw_kstr(g, "role", result_role_name(j->role));
    jw_ku64(g, "samples", j->samples);
    jw_ku64(g, "p50_ns", j->p50_ns);
    jw_ku64(g, "p99_ns", j->p99_ns);
    jw_ku64(g, "p99_9_ns", j->p999_ns);
    jw_ku64(g, "max_ns", j->max_ns);
    jw_ku64(g, "judged_ns", j->judged_ns);
    jw_ku64(g, "bound_lo_ns", j->bound_lo_ns);
    jw_ku64(g, "bound_hi_ns", j->bound_hi_ns);
    jw_kdbl(g, "bound_confidence", j->bound_lo_ns != RESULT_UNKNOWN && j->bound_confidence > 0 ? j->bound_confidence : NAN,
            "%.6g");
    jw_ku64(g, "threshold_ns", j->threshold_ns);
    jw_kstr(g, "verdict", fior_verdict_name(j->verdict));
    jw_kstr(g, "reason", j->reason);
    jw_kstr(g, "end", j->end == FIOR_END_UNKNOWN ? NULL : fior_end_name(j->end));
    jw_kstr_or_null(g, "end_reason", j->end_reason);
    jw_kstr_or_null(g, "ioengine", j->ioengine);
    jw_kstr_or_null(g, "syncs", j->syncs);
    jw_kstr(g, "medium", j->medium);
    jw_kstr_or_null(g, "medium_reason", j->medium_reason);
    jw_close(g);
}

static void host_json(yajl_gen g, const result_host *h)
{
    jw_open(g);
    jw_kstr(g, "host", h->host);
    jw_ku64(g, "port", h->port >= 0 ? (uint64_t)h->port : RESULT_UNKNOWN);
    jw_kstr_or_null(g, "dir", h->dir);
    jw_kstr(g, "status", h->status);
    jw_kstr_or_null(g, "server_hostname", h->server_hostname);
    jw_kstr_or_null(g, "fio_version", h->fio_version);
    jw_kstr(g, "verdict", fior_verdict_name(h->verdict));
    jw_kstr(g, "basis", result_basis_name(h->basis));
    jw_kstr(g, "reason", h->reason);
    jw_ku64(g, "rollovers", h->rollovers);
    jw_kdbl(g, "duration_s", h->duration_s >= 0 ? h->duration_s : NAN, "%.3f");
    jw_key(g, "jobs");
    jw_aopen(g);
    for (size_t i = 0; i < h->njobs; i++)
        job_json(g, &h->jobs[i]);
    jw_aclose(g);
    jw_close(g);
}

static void criteria_json(yajl_gen g, const result_run *r)
{
    jw_key(g, "criteria");
    jw_open(g);
    jw_kdbl(g, "percentile", r->percentile, "%.6g");
    jw_ku64(g, "wal_threshold_ns", r->wal_threshold_ns);
    jw_ku64(g, "backend_threshold_ns", r->backend_threshold_ns);
    jw_ku64(g, "min_samples", r->min_samples);
    jw_ku64(g, "floor_ns", r->floor_ns);
    jw_kdbl(g, "confidence", r->confidence > 0 ? r->confidence : NAN, "%.6g");
    jw_close(g);
}

static void run_json(yajl_gen g, const result_run *r)
{
    jw_open(g);
    jw_ku64(g, "schema", RESULT_SCHEMA);
    jw_kstr(g, "command", r->command);
    jw_kstr(g, "tool_version", r->tool_version);
    jw_kstr_or_null(g, "fio_version", r->fio_version);
    jw_kstr(g, "hostname", r->hostname);
    jw_key(g, "timestamp");
    jw_i64(g, (int64_t)r->timestamp);
    jw_kstr(g, "verdict", fior_verdict_name(r->verdict));
    jw_ku64(g, "exit_status", (uint64_t)cli_exit_status(r->verdict));
    jw_kstr(g, "basis", result_basis_name(r->basis));
    jw_kstr(g, "reason", r->reason);
    criteria_json(g, r);
    jw_kstr_or_null(g, "load", r->load);
    jw_key(g, "hosts");
    jw_aopen(g);
    for (size_t i = 0; i < r->nhosts; i++)
        host_json(g, &r->hosts[i]);
    jw_aclose(g);
    jw_key(g, "details");
    jw_open(g);
    for (size_t i = 0; i < r->ndetails; i++) {
        jw_key(g, r->details[i].key);
        jw_tree(g, r->details[i].json);
    }
    jw_close(g);
    jw_key(g, "explain");
    jw_aopen(g);
    for (size_t i = 0; i < r->nexplain; i++) {
        jw_open(g);
        jw_kstr(g, "rule", r->explain[i].rule);
        jw_kstr(g, "why", r->explain[i].why);
        jw_kstr(g, "advice", r->explain[i].advice);
        jw_kstr_or_null(g, "next", r->explain[i].next[0] ? r->explain[i].next : NULL);
        jw_close(g);
    }
    jw_aclose(g);
    jw_close(g);
}

int out_json(FILE *f, const result_run *r)
{
    yajl_gen g = jw_new(1);
    if (!g)
        return -1;
    run_json(g, r);
    return jw_print(g, f);
}

static int render_json(FILE *f, const void *r) { return out_json(f, r); }

static int render_prom(FILE *f, const void *r)
{
    char *buf = NULL;
    size_t len = 0;
    int rc = out_prom(r, &buf, &len);
    if (!rc && fwrite(buf, 1, len, f) != len)
        rc = -1;
    free(buf);
    return rc;
}

int out_file(const char *path, enum out_kind kind, const result_run *r, char *err, size_t errlen)
{
    return outfile_write_with(path, kind == OUT_JSON ? render_json : render_prom, r, err, errlen);
}
