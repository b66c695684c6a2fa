/* SPDX-License-Identifier: MIT */
/* fioreport_cli.h — what libfioreport offers the etcd-fio CLI (tools/) and nobody else: check's two phases
 * (the heavy phase 1, phase 2 continued from it, the probe that confirms phase 1's PASS), the full facts of
 * how check's fio ended, and the single-look bound rule fleet's remote proof and the monitor share.
 * Library-internal: prefix fior__, not exported by libfioreport.so (fioreport.map), not installed. The CLI,
 * the tests and bench/ link libfioreport.a, where these are defined. An embedder uses fioreport.h and
 * fioreport_monitor.h only. */
#ifndef FIOREPORT_CLI_H
#define FIOREPORT_CLI_H

#include "fioreport_monitor.h"

/* ---- check's two phases ----
 * A monitor set heavy (fior__monitor_set_heavy) is phase 1 — a heavier load than etcd's, which may only
 * PASS, with a time guard against stalls its fast sample rate dilutes — and a monitor continued from it
 * (fior__monitor_continue) is phase 2: its PASS side spends the rest of the PASS error phase 1 did not
 * have, and its first FIOR_PROBE_S seconds are the probe that confirms phase 1's PASS (p90 no slower under
 * etcd's load, no sample at the threshold) or not (then phase 2 decides alone). */
#define FIOR_PHASE1_MAX_S   10.0    /* phase 1's runtime: it gives up after this */
#define FIOR_PROBE_S        2.0     /* seconds of phase 2 (from its first WAL sample) that confirm phase 1 */
#define FIOR_PROBE_Q        0.90    /* the quantile the probe compares */

/* The advice of a two-phase monitor, beside fioreport_monitor.h's FIOR_GO_ON and FIOR_STOP_DECIDED. */
#define FIOR__STOP_PHASE_OVER ((fior_advice)2) /* phase 1 cannot pass any more: stop it, go to phase 2 */
#define FIOR__STOP_CONFIRMED  ((fior_advice)3) /* phase 2's probe confirmed phase 1's PASS: stop */

/* Before the first feed (FIOR_E_INVAL after it). full: never advise a stop (decisions are still tracked);
 * heavy: phase 1 (PASS only, the time guard, an eighth of the PASS error, gives up when it cannot pass
 * within twice its first possible PASS's samples). */
fior_status fior__monitor_set_full(fior_monitor *m, int on);
fior_status fior__monitor_set_heavy(fior_monitor *m, int on);
/* Phase 2 after `phase1` (a heavy monitor, fed to its end): the PASS error phase 1 had is not phase 2's, and
 * when phase 1 passed, its final distributions are kept for the probe. Before the first feed. */
fior_status fior__monitor_continue(fior_monitor *m, const fior_monitor *phase1);
/* A feed from bins (a caller that reads another source: bench's replay): each role's cumulative bins,
 * NULL/0 for none. As fior_monitor_feed otherwise. */
fior_status fior__monitor_feed_bins(fior_monitor *m, const fior_bin *wal, size_t nwal, const fior_bin *backend,
                                    size_t nbackend, double elapsed_s, fior_advice *advice);
/* The job of a role in r as the monitor picks it (the etcd_mode option, else the names
 * etcd-wal/etcd-backend, else the role; the latest such job), or NULL. */
const fior_job *fior__monitor_pick(const fior_report *r, fior_role role);

/* Phase 2's probe (size-prefixed: set size = sizeof before the call): done 0 while not compared yet. */
typedef struct fior__probe {
    size_t   size;
    int      done, ok;
    uint64_t phase1_wal_ns, probe_wal_ns, phase1_backend_ns, probe_backend_ns; /* FIOR_PROBE_Q points */
    char     why[256];
} fior__probe;
fior_status fior__monitor_probe(const fior_monitor *m, fior__probe *out);

/* How check's run ended, every fact check knows (it ran fio). Size-prefixed. fior_monitor_end's
 * fior_run_end is the part of it an embedder knows. */
typedef struct fior__run_facts {
    size_t      size;
    int         started;        /* fio could be started */
    int         killed_by;      /* fio died of this signal (0: it exited) */
    int         exit_code;      /* its exit status when it exited */
    int         stop_level;     /* signals the caller sent: 0 none, 1 SIGINT, 2 SIGTERM, 3 SIGKILL */
    fior_stop   stop;
    const char *stop_why;       /* FIOR_STOP_USER: who or what stopped it ("interrupted" when NULL) */
    int         complete;       /* fio's final document arrived (after the caller's stop, if any) */
    int         job_signal;     /* a job process died of this signal (fio: "got signal=S"), 0 none */
    unsigned    runtime_s;      /* the runtime= fio was given */
    double      duration_s, decided_at_s;
    uint64_t    decided_samples;
    const char *fio_said;       /* fio's last stderr line, or NULL */
    const char *stream_error;   /* what the reader said of the output's end, or NULL */
    /* the caller's own words for why the run did not end normally (a watchdog that stopped it, a fio
     * SIGKILL could not end), or NULL: it comes before every other reason */
    const char *caller_problem;
} fior__run_facts;
/* fior_monitor_end with every fact of check's run. */
fior_outcome *fior__monitor_end(fior_monitor *m, const fior_report *final, const fior__run_facts *f);

/* Both phases: phase 1's outcome stands only when phase 2 (p2, NULL when it did not run) confirmed it —
 * `confirmed` (the caller stopped phase 2 on FIOR__STOP_CONFIRMED) and p2's own probe both say so; a run
 * stopped between them is UNKNOWN. Returns the deciding phase's outcome (1 or 2: fior__outcome_phase) and
 * frees the other; either may be NULL (out of memory: NULL). */
fior_outcome *fior__outcome_phases(fior_outcome *p1, fior_outcome *p2, int confirmed);
int           fior__outcome_phase(const fior_outcome *o);   /* 1, 2; 0 for a single run */

/* The resolution job j's percentiles were printed at (1000 for usec in normal output; 1 when not rounded,
 * or for NULL): explain's ranges of what a printed value stands for. */
uint64_t fior__job_print_resolution(const fior_job *j);

/* The bound rule at the end of a run, one look (fleet's remote proof; fior_look_bins and the monitor's
 * end): the point verdict `point` (PASS/FAIL of fior_judge) stands when the bound [lo_ns, hi_ns] on the
 * percentile is clear of threshold_ns on the same side (PASS: hi < thr; FAIL: lo > thr) — basis BOUND; a
 * bound on the other side is a contradiction (UNKNOWN, NONE); a bound that straddles (or is missing:
 * UINT64_MAX) is UNKNOWN, UNDECIDED — or the point verdict, POINT, with accept_point. Any other `point` is
 * returned as it is (basis NONE). `why` (may be NULL) gets one line for the job when the verdict is not
 * BOUND. */
fior_verdict fior__bound_decide(fior_verdict point, uint64_t value_ns, uint64_t lo_ns, uint64_t hi_ns,
                                uint64_t threshold_ns, uint64_t samples, double confidence, int accept_point,
                                fior_basis *basis, char *why, size_t whylen);

#endif /* FIOREPORT_CLI_H */
