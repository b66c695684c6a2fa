/* SPDX-License-Identifier: MIT */
/* fleet_remote.c — the judge step of `etcd-fio fleet --ssh`, pure (tests/test_fleet_ssh.c): how one host's
 * ssh ended (unreachable, key refused, no etcd-fio, an older one, a remote error, timeout, interrupted), the
 * reading of the JSON its `etcd-fio check --json` printed (doc/etcd-fio.schema.json, schema 1: exactly one
 * object, no key given twice), and then fleet_remote_proof() (fleet_proof.c): the remote's word is never a
 * PASS by itself.
 * Every string from the remote goes through fleet_printable() before it reaches the result model. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_parse.h>

#include "cli.h"
#include "fleet.h"
#include "jr.h"

#define STR_(x) #x
#define STR(x)  STR_(x)
#define STRINGIFY_SCHEMA STR(RESULT_SCHEMA)

/* ---- one JSON value, no key twice in any object (a lookup takes the first: a remote could hide a second) ---- */

#define DUP_DEPTH 32
#define DUP_KEYS  256 /* keys per object: a check's objects have at most ~20 */

typedef struct dupchk {
    int    depth;
    char  *keys[DUP_DEPTH][DUP_KEYS];
    size_t n[DUP_DEPTH];
    char   why[128];
} dupchk;

static int dc_start_map(void *ctx)
{
    dupchk *d = ctx;
    if (d->depth + 1 >= DUP_DEPTH) {
        cli_msg(d->why, sizeof d->why, "nested deeper than %d", DUP_DEPTH - 1);
        return 0;
    }
    d->n[++d->depth] = 0;
    return 1;
}

static int dc_key(void *ctx, const unsigned char *k, size_t len)
{
    dupchk *d = ctx;
    size_t *n = &d->n[d->depth];
    for (size_t i = 0; i < *n; i++)
        if (strlen(d->keys[d->depth][i]) == len && !memcmp(d->keys[d->depth][i], k, len)) {
            char shown[64];
            fleet_printable(shown, sizeof shown, (const char *)k, len);
            cli_msg(d->why, sizeof d->why, "key \"%s\" given twice in one object", shown);
            return 0;
        }
    if (*n == DUP_KEYS || !(d->keys[d->depth][*n] = strndup((const char *)k, len))) {
        cli_msg(d->why, sizeof d->why, "more than %d keys in one object", DUP_KEYS);
        return 0;
    }
    ++*n;
    return 1;
}

static void dc_pop(dupchk *d)
{
    for (size_t i = 0; i < d->n[d->depth]; i++)
        free(d->keys[d->depth][i]);
    d->n[d->depth] = 0;
    d->depth--;
}

static int dc_end_map(void *ctx)
{
    dc_pop(ctx);
    return 1;
}

/* 0 when buf is one JSON value with no duplicate key; else -1 and why. */
static int json_strict(const char *buf, size_t len, char *why, size_t whylen)
{
    static const yajl_callbacks cb = {.yajl_start_map = dc_start_map, .yajl_map_key = dc_key,
                                      .yajl_end_map = dc_end_map};
    dupchk *d = calloc(1, sizeof *d);
    yajl_handle y = d ? yajl_alloc(&cb, NULL, d) : NULL;
    int rc = -1;
    if (!y) {
        cli_msg(why, whylen, "out of memory");
    } else if (yajl_parse(y, (const unsigned char *)buf, len) != yajl_status_ok || yajl_complete_parse(y) != yajl_status_ok) {
        if (d->why[0]) {
            cli_msg(why, whylen, "%s", d->why);
        } else {
            unsigned char *e = yajl_get_error(y, 0, (const unsigned char *)buf, len);
            fleet_printable(why, whylen, (const char *)e, e ? strlen((const char *)e) : 0);
            yajl_free_error(y, e);
        }
    } else {
        rc = 0;
    }
    while (d && d->depth > 0)
        dc_pop(d);
    if (y)
        yajl_free(y);
    free(d);
    return rc;
}

/* ---- typed reads; a wrong type is an error ("9" for 9, or 1.5 for a count, is refused) ---- */

typedef struct rd {
    char bad[160]; /* the first key that is missing or of the wrong type */
} rd;

enum want { W_STR, W_INT, W_OBJ, W_ARR, W_BOOL };
static const char *const want_name[] = {"string", "integer", "object", "array", "boolean"};

static int is(yajl_val v, enum want t)
{
    int64_t x;
    switch (t) {
    case W_STR: return YAJL_IS_STRING(v);
    case W_INT: return jr_int(v, &x);
    case W_OBJ: return YAJL_IS_OBJECT(v);
    case W_ARR: return YAJL_IS_ARRAY(v);
    case W_BOOL: return YAJL_IS_TRUE(v) || YAJL_IS_FALSE(v);
    }
    return 0;
}

/* The member key of o, of type t (or null when nullable: NULL then); NULL and r->bad set otherwise. */
static yajl_val get(rd *r, yajl_val o, const char *key, enum want t, int nullable)
{
    yajl_val v = jr_get(o, key);
    int null = v && YAJL_IS_NULL(v);
    if (!v || (null ? !nullable : !is(v, t))) {
        if (!r->bad[0])
            cli_msg(r->bad, sizeof r->bad, "\"%s\" missing or not %s%s", key, want_name[t],
                    nullable ? " or null" : "");
        return NULL;
    }
    return null ? NULL : v;
}

static uint64_t get_ns(rd *r, yajl_val o, const char *key) /* integer >= 0, or null: RESULT_UNKNOWN */
{
    yajl_val v = get(r, o, key, W_INT, 1);
    int64_t x = 0;
    if (!v)
        return RESULT_UNKNOWN;
    jr_int(v, &x);
    if (x < 0 || x == INT64_MAX) { /* INT64_MAX: RESULT_UNKNOWN once cut to int64 */
        if (!r->bad[0])
            cli_msg(r->bad, sizeof r->bad, "\"%s\" is not a count of nanoseconds", key);
        return RESULT_UNKNOWN;
    }
    return (uint64_t)x;
}

static void get_str(rd *r, yajl_val o, const char *key, char *dst, size_t n, int nullable)
{
    yajl_val v = get(r, o, key, W_STR, nullable);
    dst[0] = '\0';
    if (v)
        fleet_printable(dst, n, v->u.string, strlen(v->u.string));
}

static double get_num(rd *r, yajl_val o, const char *key)
{
    double d;
    if (jr_num(jr_get(o, key), &d))
        return d;
    if (!r->bad[0])
        cli_msg(r->bad, sizeof r->bad, "\"%s\" missing or not a number", key);
    return NAN;
}

/* The host's jobs, and what the proof needs of the rest. 0, or -1 with r->bad set. */
static int read_doc(rd *r, yajl_val root, fleet_remote *rr, result_host *h)
{
    yajl_val crit = get(r, root, "criteria", W_OBJ, 0);
    rr->percentile = get_num(r, crit, "percentile");
    rr->wal_ns = get_ns(r, crit, "wal_threshold_ns");
    rr->backend_ns = get_ns(r, crit, "backend_threshold_ns");
    rr->min_samples = get_ns(r, crit, "min_samples");
    rr->confidence = get_num(r, crit, "confidence");
    get_str(r, root, "load", rr->load, sizeof rr->load, 1);
    get_str(r, root, "verdict", rr->verdict, sizeof rr->verdict, 0);
    yajl_val es = get(r, root, "exit_status", W_INT, 0);
    rr->exit_status = es && YAJL_GET_INTEGER(es) >= -1 && YAJL_GET_INTEGER(es) <= 255 ? (int)YAJL_GET_INTEGER(es) : -1;
    yajl_val details = get(r, root, "details", W_OBJ, 0);
    yajl_val run = get(r, details, "run", W_OBJ, 0);
    get_str(r, run, "end", rr->run_end, sizeof rr->run_end, 0);
    yajl_val ph = get(r, details, "phases", W_OBJ, 0), ok = jr_get(jr_obj(ph, "probe"), "ok");
    yajl_val by = jr_get(ph, "decided_by");
    rr->decided_by = by && YAJL_IS_INTEGER(by) && (YAJL_GET_INTEGER(by) == 1 || YAJL_GET_INTEGER(by) == 2)
                     ? (int)YAJL_GET_INTEGER(by) : 0;
    rr->phase2_ran = jr_obj(ph, "phase2") != NULL;
    rr->probe_ok = ok && YAJL_IS_TRUE(ok);
    yajl_val hosts = get(r, root, "hosts", W_ARR, 0);
    if (r->bad[0])
        return -1;
    if (jr_len(hosts) != 1) {
        cli_msg(r->bad, sizeof r->bad, "%zu hosts in a check's result (one expected)", jr_len(hosts));
        return -1;
    }
    yajl_val host = jr_at(hosts, 0);
    get_str(r, host, "host", h->server_hostname, sizeof h->server_hostname, 0);
    get_str(r, host, "fio_version", h->fio_version, sizeof h->fio_version, 1);
    get_str(r, host, "status", rr->status, sizeof rr->status, 0);
    get_str(r, host, "verdict", rr->host_verdict, sizeof rr->host_verdict, 0);
    get_str(r, host, "reason", rr->reason, sizeof rr->reason, 0);
    get_str(r, host, "basis", rr->basis, sizeof rr->basis, 0);
    h->rollovers = get_ns(r, host, "rollovers");
    double dur;
    if (jr_num(jr_get(host, "duration_s"), &dur) && dur >= 0)
        h->duration_s = dur;
    yajl_val jobs = get(r, host, "jobs", W_ARR, 0);
    for (size_t k = 0; k < jr_len(jobs) && !r->bad[0]; k++) {
        yajl_val jo = jr_at(jobs, k);
        result_job *j = result_add_job(h);
        if (!j) {
            cli_msg(r->bad, sizeof r->bad, "out of memory");
            break;
        }
        char role[32], verdict[32];
        get_str(r, jo, "name", j->name, sizeof j->name, 0);
        get_str(r, jo, "role", role, sizeof role, 0);
        j->role = !strcmp(role, "backend") ? FIOR_ROLE_BACKEND : !strcmp(role, "wal") ? FIOR_ROLE_WAL
                  : FIOR_ROLE_CHECK_PERF; /* not a role of check's: refused by the proof */
        j->samples = get_ns(r, jo, "samples");
        j->p50_ns = get_ns(r, jo, "p50_ns");
        j->p99_ns = get_ns(r, jo, "p99_ns");
        j->p999_ns = get_ns(r, jo, "p99_9_ns");
        j->max_ns = get_ns(r, jo, "max_ns");
        j->judged_ns = get_ns(r, jo, "judged_ns");
        j->bound_lo_ns = get_ns(r, jo, "bound_lo_ns");
        j->bound_hi_ns = get_ns(r, jo, "bound_hi_ns");
        j->threshold_ns = get_ns(r, jo, "threshold_ns");
        get_str(r, jo, "verdict", verdict, sizeof verdict, 0);
        j->verdict = fleet_remote_verdict_word(verdict);
        get_str(r, jo, "reason", j->reason, sizeof j->reason, 0);
    }
    return r->bad[0] ? -1 : 0;
}

/* ---- how the ssh ended ---- */

/* The first line of the remote's stderr that holds one of pats (NULL: the last non-empty line), printable. */
static int err_line(const fleet_ssh *s, const char *const *pats, char *out, size_t n)
{
    out[0] = '\0';
    int found = 0;
    for (const char *p = s->err; *p && !found;) {
        const char *nl = strchr(p, '\n'), *line = p;
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        p = nl ? nl + 1 : p + len;
        while (len && (line[len - 1] == '\r' || line[len - 1] == ' '))
            len--;
        if (!len)
            continue;
        char tmp[512];
        fleet_printable(tmp, sizeof tmp, line, len);
        for (size_t i = 0; pats && pats[i] && !found; i++)
            found = strstr(tmp, pats[i]) != NULL;
        if (found || !pats)
            cli_msg(out, n, "%s", tmp);
    }
    return found;
}

static void set(result_host *h, const char *status, const char *fmt, const char *a, const char *b)
{
    cli_msg(h->status, sizeof h->status, "%s", status);
    cli_msg(h->reason, sizeof h->reason, fmt, a, b);
    h->verdict = FIOR_UNKNOWN;
    h->basis = RESULT_BASIS_NONE;
}

/* Before any JSON: 1 when the outcome is already known (h set). */
static int ended_badly(const fleet *f, const fleet_ssh *s, int interrupted, result_host *h)
{
    static const char *const unreachable[] = {"Could not resolve hostname", "Connection refused", "timed out",
                                              "No route to host", "Network is unreachable", "Connection closed",
                                              "Connection reset", "banner exchange", "kex_exchange_identification",
                                              "Timeout, server", "Broken pipe", "closed by remote host", NULL};
    static const char *const key[] = {"Permission denied", "Host key verification failed", "HOST IDENTIFICATION",
                                      "host key", "Too many authentication failures", NULL};
    static const char *const missing[] = {"not found", "No such file", "Permission denied", NULL};
    static const char *const old[] = {"stop-on-eof", NULL};
    char line[512], num[64];
    if (interrupted || s->stop == SSH_STOP_INTERRUPT) {
        set(h, "interrupted", "interrupted: the remote check was stopped (its ssh session closed: it ends its fio and "
            "removes its files); a shortened run is not judged%s%s", "", "");
    } else if (s->stop == SSH_STOP_TIMEOUT) {
        cli_msg(num, sizeof num, "%g", f->ssh_timeout);
        set(h, "timeout", "no result within %s s (--ssh-timeout); the remote check was stopped%s", num, "");
    } else if (s->stop == SSH_STOP_TOO_BIG) {
        cli_msg(num, sizeof num, "%d MiB on stdout (or %d MiB on stderr)", FLEET_SSH_OUT_MAX >> 20,
                FLEET_SSH_ERR_FLOOD >> 20);
        set(h, "bad-output", "more than %s: not etcd-fio's; the remote was stopped%s", num, "");
    } else if (s->signo) {
        cli_msg(num, sizeof num, "%d", s->signo);
        set(h, "ssh-failed", "ssh was killed by signal %s%s", num, "");
    } else if (s->status < 0) {
        err_line(s, NULL, line, sizeof line);
        set(h, "ssh-failed", "%s%s", line[0] ? line : "ssh did not start", "");
    } else if (s->status == 255 && err_line(s, key, line, sizeof line)) {
        set(h, "ssh-failed", "the host refused this machine's key or its host key is not known (BatchMode: no "
            "prompt): %s%s", line, "");
    } else if (s->status == 255 && err_line(s, unreachable, line, sizeof line)) {
        set(h, "unreachable", "%s%s", line, "");
    } else if (s->status == 255) {
        err_line(s, NULL, line, sizeof line);
        set(h, "ssh-failed", "ssh failed (exit status 255): %s%s", line[0] ? line : "no message", "");
    } else if (s->outlen && strspn(s->out, " \t\r\n") < s->outlen) {
        return 0; /* something on stdout: read it */
    } else if (s->status == 127 || s->status == 126) { /* the remote shell's "not found" / "not executable" */
        if (!err_line(s, missing, line, sizeof line))
            err_line(s, NULL, line, sizeof line);
        set(h, "no-etcd-fio", "no etcd-fio to run there (install it, or give its path with --remote-etcd-fio): %s%s",
            line[0] ? line : "exit status 127", "");
    } else if (err_line(s, old, line, sizeof line)) {
        set(h, "etcd-fio-version", "the remote etcd-fio is older than this one (its check has no --stop-on-eof): %s%s",
            line, "");
    } else {
        err_line(s, NULL, line, sizeof line);
        cli_msg(num, sizeof num, "%d", s->status);
        set(h, "remote-error", "the remote check printed no result (exit status %s): %s", num,
            line[0] ? line : "no message");
    }
    return 1;
}

void fleet_ssh_judge(const fleet *f, const fior_criteria *c, const fleet_ssh *s, int interrupted, result_host *h)
{
    cli_msg(h->host, sizeof h->host, "%s", s->dest);
    h->port = -1;
    cli_msg(h->dir, sizeof h->dir, "%s", s->dir[0] ? s->dir : f->dir);
    h->duration_s = s->seconds;
    if (ended_badly(f, s, interrupted, h))
        return;
    char why[300], first[120];
    size_t skip = strspn(s->out, " \t\r\n");
    fleet_printable(first, sizeof first, s->out + skip, strcspn(s->out + skip, "\r\n"));
    if (json_strict(s->out, s->outlen, why, sizeof why)) {
        set(h, "bad-output", "not etcd-fio's JSON (%s): %s", why, first);
        return;
    }
    yajl_val root = jr_parse(s->out, NULL, 0), schema = jr_get(root, "schema"), cmd = jr_get(root, "command");
    if (!schema || !cmd) {
        set(h, "bad-output", "not etcd-fio's JSON (no object with \"schema\" and \"command\"): %s%s", first, "");
        yajl_tree_free(root);
        return;
    }
    char num[32];
    int64_t sv;
    if (!jr_int(schema, &sv) || sv != RESULT_SCHEMA) {
        char shown[32]; /* as the JSON wrote it */
        cli_msg(shown, sizeof shown, YAJL_IS_STRING(schema) ? "\"%s\"" : "%s",
                YAJL_IS_NUMBER(schema) ? schema->u.number.r : YAJL_IS_STRING(schema) ? schema->u.string
                : jr_type_name(schema->type));
        fleet_printable(num, sizeof num, shown, strlen(shown));
        set(h, "etcd-fio-version", "the remote etcd-fio writes JSON schema %s, this one reads %s: use the same etcd-fio "
            "version on every host", num, STRINGIFY_SCHEMA);
        yajl_tree_free(root);
        return;
    }
    if (!YAJL_IS_STRING(cmd) || strcmp(cmd->u.string, "check")) {
        set(h, "bad-output", "a result JSON, but not of `etcd-fio check`: %s%s", first, "");
        yajl_tree_free(root);
        return;
    }
    rd r = {""};
    fleet_remote rr;
    memset(&rr, 0, sizeof rr);
    rr.ssh_status = s->status;
    if (read_doc(&r, root, &rr, h)) {
        set(h, "etcd-fio-version", "schema %s JSON without what this etcd-fio reads (%s): another etcd-fio version?",
            STRINGIFY_SCHEMA, r.bad);
        for (size_t i = 0; i < h->njobs; i++)
            h->jobs[i].verdict = FIOR_UNKNOWN;
    } else {
        fleet_remote_proof(f, c, &rr, h);
    }
    yajl_tree_free(root);
}
