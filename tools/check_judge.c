/* SPDX-License-Identifier: MIT */
/* check_judge.c — the judge step of `etcd-fio check`, pure (no I/O; tests/test_check_judge.c): how fio
 * ended, as the library's run facts; the library's verdict of the run (fior_monitor_end: every rule —
 * the run's end, the physical floor, the bound at the end, the point estimate — is libfioreport's,
 * libreport/monitor_end.c) into the result model; and the engine's stats file. */
#include <json-c/json.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "cli.h"

static uint64_t jnum(json_object *o, const char *k)
{
    json_object *v;
    char k2[64];
    cli_msg(k2, sizeof k2, "%s_ns", k);
    if (o && (json_object_object_get_ex(o, k2, &v) || json_object_object_get_ex(o, k, &v)))
        return (uint64_t)json_object_get_int64(v);
    return 0;
}

void check_parse_stats(const char *text, engine_stats *es)
{
    memset(es, 0, sizeof *es);
    json_object *root = text ? json_tokener_parse(text) : NULL, *v, *hist, *h;
    if (root && json_object_object_get_ex(root, "engine", &v) && !strcmp(json_object_get_string(v), "etcdwal")) {
        es->present = 1;
        es->segments = jnum(root, "segments");
        es->rollovers = jnum(root, "rollovers");
        es->segment_bytes = jnum(root, "segment_bytes");
        es->io_errors = jnum(root, "io_errors");
        if (json_object_object_get_ex(root, "hist", &hist)) {
            if (json_object_object_get_ex(hist, "cut", &h))
                es->cut_max_ns = jnum(h, "max");
            if (json_object_object_get_ex(hist, "prealloc", &h)) {
                es->prealloc_mean_ns = jnum(h, "mean");
                es->prealloc_max_ns = jnum(h, "max");
                es->prealloc_count = jnum(h, "count");
            }
        }
    }
    json_object_put(root);
}

void check_facts(const check_end *e, fior_run_facts *f)
{
    memset(f, 0, sizeof *f);
    f->size = sizeof *f;
    f->started = e->started;
    f->killed_by = e->state == PROC_SIGNALED ? e->code : 0;
    f->exit_code = e->state == PROC_SIGNALED ? 0 : e->code;
    f->stop_level = e->stop_level;
    /* the guard's stop is never judged (as an interrupted run); etcdwatch_report gives its words and status */
    f->stop = e->stop == CHECK_RAN_OUT ? FIOR_STOP_NONE : e->stop == CHECK_USER || e->stop == CHECK_GUARD ? FIOR_STOP_USER
              : e->stop == CHECK_TIME_NET ? FIOR_STOP_TIME_NET : FIOR_STOP_BY_DECISION;
    f->complete = e->complete;
    f->job_signal = e->job_signal;
    f->runtime_s = e->runtime_s;
    f->duration_s = e->duration_s;
    f->decided_at_s = e->decided_at_s;
    f->decided_samples = e->decided_syncs;
    f->fio_said = e->fio_said;
    f->stream_error = e->stream_error;
}

fior_outcome *check_outcome(const check_run_out *r)
{
    fior_run_facts f;
    check_facts(&r->end, &f);
    return fior_monitor_end(r->mon, fior_stream_report(r->stream), &f);
}

static rm_basis basis_of(fior_basis b)
{
    switch (b) {
    case FIOR_BASIS_VALUE: return RM_BASIS_VALUE;
    case FIOR_BASIS_BOUND: return RM_BASIS_BOUND;
    case FIOR_BASIS_POINT: return RM_BASIS_POINT;
    case FIOR_BASIS_UNDECIDED: return RM_BASIS_UNDECIDED;
    default: return RM_BASIS_NONE;
    }
}

void check_fill(const fior_outcome *o, const fior_report *fin, rm_host *h)
{
    static const fior_role roles[2] = {FIOR_ROLE_WAL, FIOR_ROLE_BACKEND};
    for (int k = 0; k < 2; k++) {
        const fior_job *j = fior_outcome_judgement(o, roles[k]) ? check_find_job(fin, roles[k]) : NULL;
        rm_job *oj = j ? rm_add_job(h) : NULL;
        if (!oj)
            continue;
        rm_job_fill(oj, j, fior_outcome_judgement(o, roles[k]));
        uint64_t lo = 0, hi = UINT64_MAX;
        if (j->nbins && fior_outcome_bound(o, roles[k], &lo, &hi) == FIOR_OK) {
            oj->bound_lo_ns = lo;
            oj->bound_hi_ns = hi == UINT64_MAX ? RM_UNKNOWN : hi;
        }
        oj->verdict = fior_outcome_role_verdict(o, roles[k]);
        cli_msg(oj->reason, sizeof oj->reason, "%s", fior_outcome_role_reason(o, roles[k]));
    }
    h->verdict = fior_outcome_verdict(o);
    h->basis = basis_of(fior_outcome_basis(o));
    cli_msg(h->status, sizeof h->status, "%s", o ? fior_outcome_status(o) : "no-results");
    cli_msg(h->reason, sizeof h->reason, "%s", o ? fior_outcome_reason(o) : "out of memory");
}

void check_judge(const fior_report *fin, fior_monitor *m, const check_end *e, rm_host *h)
{
    fior_run_facts f;
    check_facts(e, &f);
    fior_outcome *o = fior_monitor_end(m, fin, &f);
    check_fill(o, fin, h);
    fior_outcome_free(o);
}
