/* SPDX-License-Identifier: MIT */
/* twophase.h — the decisions of `etcd-fio check`'s two phases (pure: no fio, no clock, unit-tested in
 * tests/test_twophase.c).
 *
 * Phase 1 runs the heavy profile (prof_opts.heavy: the WAL without its rate limit, the backend committing
 * back to back; samples come 10-50x faster than etcd's) and looks for a PASS only: a disk that keeps its
 * p99s under the thresholds under more load than etcd's keeps them under etcd's — when more load means
 * slower syncs. That premise is checked, not assumed: on a machine whose CPUs are contended (or a device
 * with idle power states) a lightly loaded disk waits for a wakeup at every sync, and etcd's lighter load
 * then sees *higher* latencies than phase 1 (measured: bench/README.md "Two-phase check"). So:
 *  - phase 1 ends as soon as its bounds decide a PASS of both jobs (with the time guard of earlystop.h,
 *    so a stall diluted by the fast sample rate still counts), or cannot any more: a job FAILs under the
 *    heavy load (never a verdict: etcd's load is lighter), or has spent TP_PHASE1_PASS_LOOKS PASS looks,
 *    or TP_PHASE1_MAX_S passed;
 *  - after a phase-1 PASS, phase 2 (the faithful profile, as `check` always ran it) starts anyway and is
 *    the probe: once TP_PROBE_S seconds of it are in, the PASS stands only if, for each job, the probe's
 *    p90 is <= phase 1's p90 (the disk is not slower under etcd's load than under phase 1's), no probe
 *    sample reached the threshold, and phase 2 has not decided FAIL; otherwise phase 2 simply goes on and
 *    decides as check did before.
 * Both phases' PASS looks share one error sequence (es_carry_pass_looks), so the PASS error per job stays
 * within 1 - confidence. */
#ifndef ETCD_FIO_TWOPHASE_H
#define ETCD_FIO_TWOPHASE_H

#include <stddef.h>
#include <stdint.h>

#include "earlystop.h"
#include "fioreport.h"

#define TP_PHASE1_MAX_S        10.0  /* phase 1's fio runtime: it gives up after this */
#define TP_PHASE1_PASS_LOOKS   2u    /* PASS looks a job may spend in phase 1 (n ~ 437 and 874 at 95 %) */
#define TP_PHASE1_STATUS       "200ms" /* fio --status-interval in phase 1 (samples come fast) */
#define TP_TIME_SHARE          0.01  /* phase 1's time guard (es_params.max_time_share): the p99's 1 % */
#define TP_PROBE_S             2.0   /* seconds of phase 2 that confirm a phase-1 PASS */
#define TP_PROBE_Q             0.90  /* the quantile the probe compares */

typedef enum tp_phase1 {
    TP_GO_ON = 0,   /* keep running phase 1 */
    TP_PASS,        /* both jobs decided PASS under the heavy load */
    TP_GIVE_UP      /* phase 1 cannot pass any more: go to phase 2 */
} tp_phase1;

/* What phase 1's early-stop state means for phase 1 (after each status document). */
tp_phase1 tp_phase1_state(const es_ctl *es);

typedef struct tp_probe {
    int      ok;                 /* 1: the phase-1 PASS is confirmed */
    uint64_t heavy_wal_ns, probe_wal_ns, heavy_be_ns, probe_be_ns; /* TP_PROBE_Q points (0: no samples) */
    uint64_t probe_wal_n, probe_be_n;
    uint64_t probe_wal_max_ns, probe_be_max_ns; /* the slowest probe sample of each job */
    char     why[256];           /* one line for the report */
} tp_probe;

/* Compares the probe's (phase 2's first TP_PROBE_S seconds) TP_PROBE_Q quantile of each job with phase
 * 1's final one, and refuses as well when any probe sample reached its job's threshold (a stall that phase 1
 * did not meet: its PASS came from a window without one). A job without probe samples cannot confirm
 * anything (ok = 0). */
void tp_probe_compare(const fior_bin *heavy_wal, size_t nhw, const fior_bin *heavy_be, size_t nhb,
                      const fior_bin *probe_wal, size_t npw, const fior_bin *probe_be, size_t npb, uint64_t wal_thr,
                      uint64_t be_thr, tp_probe *out);

#endif
