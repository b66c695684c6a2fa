/* SPDX-License-Identifier: MIT */
/* check_judge.c — the judge step of `etcd-fio check`, pure (no I/O; tests/cli/test_check_judge.c): how fio
 * ended, as the library's run facts; the library's verdict of the run (fior__monitor_end: every rule —
 * the run's end, the physical floor, the bound at the end, the point estimate — is libfioreport's,
 * libreport/monitor_end.c) into the result model. */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "cli.h"

/* What only check knows of a run that did not end normally (the library words the rest, monitor_end.c):
 * the guard that stopped it, a fio SIGKILL could not end, one still running at --max-time (stopped or
 * stuck), a SIGINT that was not ours. "" when none. One check per process: a static buffer. */
static const char *check_caller_problem(const check_end *e)
{
    static char b[600];
    const char *hung = e->hung & PROC_TREE_STOPPED ? " (it was stopped: SIGSTOP, Ctrl-Z or a debugger)"
                       : e->hung & PROC_TREE_IN_KERNEL ? " (stuck in uninterruptible I/O)" : "";
    b[0] = '\0';
    if (!e->started)
        return b;
    if (e->stop == CHECK_GUARD)
        cli_msg(b, sizeof b, "%s", e->guard_why[0] ? e->guard_why : "stopped to protect the live etcd");
    else if (e->unended)
        cli_msg(b, sizeof b, "fio did not end even on SIGKILL%s and was left behind; its files go when it ends (the "
                "next run removes them)", hung);
    else if (e->stop == CHECK_TIME_NET)
        cli_msg(b, sizeof b, "fio was still running after its runtime of %u s%s: ended by etcd-fio at --max-time",
                e->runtime_s, hung);
    else if (e->state != PROC_SIGNALED && (e->code == 128 || e->code == 128 + 2) && !e->stop_level &&
             e->stop != CHECK_USER)
        cli_msg(b, sizeof b, "fio was interrupted by a SIGINT that did not come from etcd-fio (exit status %d)",
                e->code);
    return b;
}

void check_facts(const check_end *e, fior__run_facts *f)
{
    memset(f, 0, sizeof *f);
    f->size = sizeof *f;
    f->started = e->started;
    f->killed_by = e->state == PROC_SIGNALED ? e->code : 0;
    f->exit_code = e->state == PROC_SIGNALED ? 0 : e->code;
    if (e->stop == CHECK_USER && (e->code == 128 || e->code == 128 + 2))
        f->exit_code = 0; /* the operator's Ctrl-C reached fio before we passed it on: fio's status for it */
    f->stop_level = e->stop_level;
    f->stop = e->stop == CHECK_RAN_OUT ? FIOR_STOP_NONE : e->stop == CHECK_USER ? FIOR_STOP_USER
              : e->stop == CHECK_TIME_NET ? FIOR_STOP_TIME_NET : FIOR_STOP_BY_DECISION;
    f->complete = e->complete;
    f->job_signal = e->job_signal;
    f->runtime_s = e->runtime_s;
    f->duration_s = e->duration_s;
    f->decided_at_s = e->decided_at_s;
    f->decided_samples = e->decided_syncs;
    f->fio_said = e->fio_said;
    f->stream_error = e->stream_error;
    f->caller_problem = check_caller_problem(e);
}

fior_outcome *check_outcome(const check_run_out *r)
{
    fior__run_facts f;
    check_facts(&r->end, &f);
    return fior__monitor_end(r->mon, fior_json_stream_report(r->stream), &f);
}

static result_basis basis_of(fior_basis b)
{
    switch (b) {
    case FIOR_BASIS_VALUE: return RESULT_BASIS_VALUE;
    case FIOR_BASIS_BOUND: return RESULT_BASIS_BOUND;
    case FIOR_BASIS_POINT: return RESULT_BASIS_POINT;
    case FIOR_BASIS_UNDECIDED: return RESULT_BASIS_UNDECIDED;
    default: return RESULT_BASIS_NONE;
    }
}

void check_fill(const fior_outcome *o, const fior_report *fin, result_host *h)
{
    static const fior_role roles[2] = {FIOR_ROLE_WAL, FIOR_ROLE_BACKEND};
    for (int k = 0; k < 2; k++) {
        const fior_job *j = fior_outcome_judgement(o, roles[k]) ? check_find_job(fin, roles[k]) : NULL;
        result_job *oj = j ? result_add_job(h) : NULL;
        if (!oj)
            continue;
        result_job_fill(oj, j, fior_outcome_judgement(o, roles[k]));
        uint64_t lo = 0, hi = UINT64_MAX;
        if (j->nbins && fior_outcome_bound(o, roles[k], &lo, &hi) == FIOR_OK) {
            oj->bound_lo_ns = lo;
            oj->bound_hi_ns = hi == UINT64_MAX ? RESULT_UNKNOWN : hi;
            oj->bound_confidence = fior_outcome_bound_confidence(o, roles[k]);
        }
        oj->verdict = fior_outcome_role_verdict(o, roles[k]);
        cli_msg(oj->reason, sizeof oj->reason, "%s", fior_outcome_role_reason(o, roles[k]));
    }
    h->verdict = fior_outcome_verdict(o);
    h->basis = basis_of(fior_outcome_basis(o));
    cli_msg(h->status, sizeof h->status, "%s", o ? fior_outcome_status(o) : "no-results");
    cli_msg(h->reason, sizeof h->reason, "%s", o ? fior_outcome_reason(o) : "out of memory");
    if (h->basis == RESULT_BASIS_POINT) /* the library says it took the point estimate; the option that asked is ours */
        cli_msg(h->reason, sizeof h->reason, "%s, as --accept-point-estimate asks", fior_outcome_reason(o));
}

void check_judge(const fior_report *fin, fior_monitor *m, const check_end *e, result_host *h)
{
    fior__run_facts f;
    check_facts(e, &f);
    fior_outcome *o = fior__monitor_end(m, fin, &f);
    check_fill(o, fin, h);
    fior_outcome_free(o);
    if (e->stop == CHECK_GUARD) { /* no verdict from a run stopped for etcd: the guard's words first */
        char old[sizeof h->reason];
        cli_msg(old, sizeof old, "%s", h->reason);
        h->verdict = FIOR_UNKNOWN;
        h->basis = RESULT_BASIS_NONE;
        cli_msg(h->status, sizeof h->status, "etcd-guard");
        cli_msg(h->reason, sizeof h->reason, "%s; not judged (%s)",
                e->guard_why[0] ? e->guard_why : "stopped to protect the live etcd", old);
        for (size_t i = 0; i < h->njobs; i++)
            h->jobs[i].verdict = FIOR_UNKNOWN;
    }
}
