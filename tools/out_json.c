/* SPDX-License-Identifier: MIT */
/* out_json.c — the JSON writer of the result model; doc/etcd-fio.schema.json is its contract (keep the
 * two in step, tests/it_schema.sh validates every command's output against it). */
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "out.h"
#include "outfile.h"

static json_object *num(uint64_t v)
{
    return v == RM_UNKNOWN ? NULL : json_object_new_int64((int64_t)v);
}

static json_object *str_or_null(const char *s)
{
    return s && *s ? json_object_new_string(s) : NULL;
}

/* json-c prints doubles with 17 digits; a few say it all */
static json_object *dbl(double v, const char *fmt)
{
    char b[64];
    snprintf(b, sizeof b, fmt, v);
    return json_object_new_double_s(v, b);
}

static json_object *job_json(const rm_job *j)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "name", json_object_new_string(j->name));
    json_object_object_add(o, "source", str_or_null(j->source));
    json_object_object_add(o, "run", json_object_new_int64(j->run ? j->run : 1));
    json_object_object_add(o, "role", json_object_new_string(rm_role_name(j->role)));
    json_object_object_add(o, "samples", num(j->samples));
    json_object_object_add(o, "p50_ns", num(j->p50_ns));
    json_object_object_add(o, "p99_ns", num(j->p99_ns));
    json_object_object_add(o, "p99_9_ns", num(j->p999_ns));
    json_object_object_add(o, "max_ns", num(j->max_ns));
    json_object_object_add(o, "judged_ns", num(j->judged_ns));
    json_object_object_add(o, "bound_lo_ns", num(j->bound_lo_ns));
    json_object_object_add(o, "bound_hi_ns", num(j->bound_hi_ns));
    json_object_object_add(o, "threshold_ns", num(j->threshold_ns));
    json_object_object_add(o, "verdict", json_object_new_string(fior_verdict_name(j->verdict)));
    json_object_object_add(o, "reason", json_object_new_string(j->reason));
    json_object_object_add(o, "end", j->end == FIOR_END_UNKNOWN ? NULL : json_object_new_string(fior_end_name(j->end)));
    json_object_object_add(o, "end_reason", str_or_null(j->end_reason));
    json_object_object_add(o, "ioengine", str_or_null(j->ioengine));
    json_object_object_add(o, "syncs", str_or_null(j->syncs));
    return o;
}

static json_object *host_json(const rm_host *h)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "host", json_object_new_string(h->host));
    json_object_object_add(o, "port", h->port >= 0 ? json_object_new_int(h->port) : NULL);
    json_object_object_add(o, "dir", str_or_null(h->dir));
    json_object_object_add(o, "status", json_object_new_string(h->status));
    json_object_object_add(o, "server_hostname", str_or_null(h->server_hostname));
    json_object_object_add(o, "fio_version", str_or_null(h->fio_version));
    json_object_object_add(o, "verdict", json_object_new_string(fior_verdict_name(h->verdict)));
    json_object_object_add(o, "basis", json_object_new_string(rm_basis_name(h->basis)));
    json_object_object_add(o, "reason", json_object_new_string(h->reason));
    json_object_object_add(o, "rollovers", num(h->rollovers));
    json_object_object_add(o, "duration_s", h->duration_s >= 0 ? dbl(h->duration_s, "%.3f") : NULL);
    json_object *jobs = json_object_new_array();
    for (size_t i = 0; i < h->njobs; i++)
        json_object_array_add(jobs, job_json(&h->jobs[i]));
    json_object_object_add(o, "jobs", jobs);
    return o;
}

static json_object *run_json(const rm_run *r)
{
    json_object *root = json_object_new_object();
    json_object_object_add(root, "schema", json_object_new_int(RM_SCHEMA));
    json_object_object_add(root, "command", json_object_new_string(r->command));
    json_object_object_add(root, "tool_version", json_object_new_string(r->tool_version));
    json_object_object_add(root, "fio_version", str_or_null(r->fio_version));
    json_object_object_add(root, "hostname", json_object_new_string(r->hostname));
    json_object_object_add(root, "timestamp", json_object_new_int64((int64_t)r->timestamp));
    json_object_object_add(root, "verdict", json_object_new_string(fior_verdict_name(r->verdict)));
    json_object_object_add(root, "exit_status", json_object_new_int(cli_exit_status(r->verdict)));
    json_object_object_add(root, "basis", json_object_new_string(rm_basis_name(r->basis)));
    json_object_object_add(root, "reason", json_object_new_string(r->reason));
    json_object *c = json_object_new_object();
    json_object_object_add(c, "percentile", dbl(r->percentile, "%.6g"));
    json_object_object_add(c, "wal_threshold_ns", json_object_new_int64((int64_t)r->wal_threshold_ns));
    json_object_object_add(c, "backend_threshold_ns", json_object_new_int64((int64_t)r->backend_threshold_ns));
    json_object_object_add(c, "min_samples", json_object_new_int64((int64_t)r->min_samples));
    json_object_object_add(c, "floor_ns", json_object_new_int64((int64_t)r->floor_ns));
    json_object_object_add(c, "confidence", r->confidence > 0 ? dbl(r->confidence, "%.6g") : NULL);
    json_object_object_add(root, "criteria", c);
    json_object_object_add(root, "load", str_or_null(r->load));
    json_object *hosts = json_object_new_array();
    for (size_t i = 0; i < r->nhosts; i++)
        json_object_array_add(hosts, host_json(&r->hosts[i]));
    json_object_object_add(root, "hosts", hosts);
    json_object *d = json_object_new_object();
    for (size_t i = 0; i < r->ndetails; i++)
        json_object_object_add(d, r->details[i].key, json_object_get(r->details[i].json));
    json_object_object_add(root, "details", d);
    json_object *ex = json_object_new_array();
    for (size_t i = 0; i < r->nexplain; i++) {
        json_object *o = json_object_new_object();
        json_object_object_add(o, "rule", json_object_new_string(r->explain[i].rule));
        json_object_object_add(o, "why", json_object_new_string(r->explain[i].why));
        json_object_object_add(o, "advice", json_object_new_string(r->explain[i].advice));
        json_object_array_add(ex, o);
    }
    json_object_object_add(root, "explain", ex);
    return root;
}

int out_json(FILE *f, const rm_run *r)
{
    json_object *root = run_json(r);
    if (!root)
        return -1;
    const char *s = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
    int rc = s ? 0 : -1;
    if (s)
        fprintf(f, "%s\n", s);
    json_object_put(root);
    return rc;
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

int out_file(const char *path, enum out_kind kind, const rm_run *r, char *err, size_t errlen)
{
    return out_write_with(path, kind == OUT_JSON ? render_json : render_prom, r, err, errlen);
}
