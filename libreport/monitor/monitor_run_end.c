/* SPDX-License-Identifier: MIT */
/* monitor_run_end.c — fior_monitor_end (fioreport_monitor.h): the end of a run as an embedder knows it
 * (fior_run_end), turned into the full facts the monitor's end rule reads (fior__run_facts, which the CLI
 * fills itself: fioreport_cli.h). */
#include <stddef.h>
#include <string.h>

#include "internal.h"

FIOR_API fior_outcome *fior_monitor_end(fior_monitor *m, const fior_report *final, const fior_run_end *e)
{
    if (!m || !e || e->size < offsetof(fior_run_end, complete) + sizeof e->complete)
        return NULL;
    fior_run_end x;
    memset(&x, 0, sizeof x);
    memcpy(&x, e, e->size < sizeof x ? e->size : sizeof x);
    fior__run_facts f;
    memset(&f, 0, sizeof f);
    f.size = sizeof f;
    f.started = x.started;
    f.killed_by = x.killed_by;
    f.exit_code = x.exit_code;
    f.stop = x.stop;
    /* the caller's own stop is one SIGINT (fioreport_monitor.h, fior_stop): fio then prints its figures */
    f.stop_level = x.stop == FIOR_STOP_BY_DECISION || x.stop == FIOR_STOP_TIME_NET ? 1 : 0;
    f.complete = x.complete;
    f.duration_s = x.duration_s;
    f.decided_at_s = x.duration_s;
    f.caller_problem = x.problem;
    /* runtime_s 0: whether each job reached its own end is the final document's word (fior_job.end) */
    return fior__monitor_end(m, final, &f);
}
