/* SPDX-License-Identifier: MIT */
/* seqbound.h — inside libfioreport's sequential judge (fior_monitor, monitor.c), library-internal: from the
 * cumulative json+ bins of the WAL fdatasyncs and the backend commits (fio's --status-interval documents),
 * decide as soon as each job's p99 is known to be below or above its threshold with the requested
 * confidence (seqbound.c), and check's two-phase rules (twophase.c).
 *
 * A wrong FAIL needs the p99 at or below the threshold, a wrong PASS at or above it: two one-sided errors,
 * each given half of alpha = 1 - confidence. With r = 1 - q (0.01), "p99 < thr" means fewer than a share r
 * of the syncs take thr or more. Each side tests that share with a mixture likelihood ratio (seqbound.c):
 * for c of n samples at or above thr (PASS side; above it, FAIL side),
 * M(n, c) = sum_i w_i (p_i/r)^c ((1-p_i)/(1-r))^(n-c), with
 * alternatives p_i below r (PASS) or above it (FAIL) and weights w_i summing to 1. While the side's claim is
 * false, M is a nonnegative supermartingale with M(0) = 1, so by Ville's inequality it ever reaches 1/delta
 * with probability <= delta — however many looks, at whatever sample counts: every status document is a
 * look, and a side decides at the first one where M >= 1/delta (delta = alpha/2; check's phase 1 and phase
 * 2 split the PASS side's, fior__seq_carry). The weights are that side's error spent over its
 * alternatives: component i alone spends w_i x delta, summed over all looks. So each job's decision is
 * wrong with probability <= 1 - confidence. The decision is the same as a bound: the anytime bound
 * [look_lo, look_hi] (the order statistics where M crosses 1/delta) lies above or below the threshold.
 * No decision before min_syncs samples. Decisions are sticky.
 * Assumptions: samples are independent draws (bursty interference from other tenants makes neighbouring
 * samples correlated, and a short burst can then decide early), and latencies are known to fio's histogram
 * resolution (json+ bin values, ~1.6 % relative), which is also what fio's own percentiles use.
 */
/* twophase.c — the decisions of `etcd-fio check`'s two phases (pure: no fio, no clock, unit-tested in
 * tests/libreport/test_twophase.c; the probe and phase-1 rules).
 *
 * Phase 1 runs the heavy profile (profile_opts.heavy: the WAL without its rate limit, the backend committing
 * back to back; samples come 10-50x faster than etcd's) and looks for a PASS only: a disk that keeps its
 * p99s under the thresholds under more load than etcd's keeps them under etcd's — when more load means
 * slower syncs. That premise is checked, not assumed: on a machine whose CPUs are contended (or a device
 * with idle power states) a lightly loaded disk waits for a wakeup at every sync, and etcd's lighter load
 * then sees *higher* latencies than phase 1 (measured: bench/README.md "Two-phase check"). So:
 *  - phase 1 ends as soon as its bounds decide a PASS of both jobs (with the time guard above,
 *    so a stall diluted by the fast sample rate still counts), or cannot any more: a job FAILs under the
 *    heavy load (never a verdict: etcd's load is lighter), or cannot pass before FIOR__TP_PHASE1_CAP times
 *    the samples its first possible PASS needs (fior__seq_pass_reachable), or FIOR_PHASE1_MAX_S passed;
 *  - after a phase-1 PASS, phase 2 (the faithful profile, as `check` always ran it) starts anyway and is
 *    the probe: once FIOR_PROBE_S seconds of it are in, the PASS stands only if, for each job, the probe's
 *    p90 is <= phase 1's p90 (the disk is not slower under etcd's load than under phase 1's), no probe
 *    sample reached the threshold, and phase 2 has not decided FAIL; otherwise phase 2 simply goes on and
 *    decides as check did before.
 * Both phases' PASS decisions share one error budget, split in advance (phase 1 FIOR__TP_PHASE1_SHARE of
 * it, phase 2 the rest: fior__seq_carry), so the PASS error per job stays within (1 - confidence)/2. */
#ifndef FIOR_SEQBOUND_H
#define FIOR_SEQBOUND_H

#include <stddef.h>
#include <stdint.h>

#include "fioreport_cli.h"

typedef struct fior__seq_params {
    double   q;           /* quantile, 0.99 */
    double   confidence;  /* per job, e.g. 0.95 */
    uint64_t min_syncs;   /* no decision before this many samples of a job */
    int      full;        /* 1: never ask to stop early (decisions are still tracked) */
    double   max_time_share; /* > 0 (check's phase 1): a PASS also needs the share of the sampled time
                              * spent in samples >= the threshold to be <= this (fior__seq_time_share) */
    double   pass_share;  /* the share of the PASS side's error this run may spend (check's phase 1:
                           * FIOR__TP_PHASE1_SHARE); 0 means all of it */
} fior__seq_params;

typedef struct fior__seq_side {
    uint64_t threshold_ns;
    fior_decision state;
    uint64_t n;                  /* samples at the last update */
    uint64_t above;              /* of them, samples >= threshold_ns (what a PASS must keep rare) */
    uint64_t lo_ns, point_ns, hi_ns; /* bound at the nominal confidence, one look (hi UINT64_MAX: none) */
    unsigned fail_looks, pass_looks;  /* documents at which each side could decide */
    uint64_t look_lo_ns, look_hi_ns; /* the anytime bound at the last look (hi UINT64_MAX: none yet) */
    double   look_confidence;    /* its coverage, 1 - delta_pass - delta_fail */
    uint64_t decided_n;          /* samples when decided (0: not decided) */
    double   decided_tail;       /* the deciding side's error (its delta) */
} fior__seq_side;

typedef struct fior__seq {
    fior__seq_params p;
    double    delta_pass, delta_fail; /* each side's one-sided error, over all its looks */
    fior__seq_side   wal, backend;
    int       expect_backend;    /* the run has a backend job: it must be decided too before a PASS stop */
    int       stop;              /* sticky: verdict decided (and not --full) */
    int       wal_only;          /* the WAL alone is asked: the backend is tracked but decides nothing */
} fior__seq;

void fior__seq_init(fior__seq *c, const fior__seq_params *p, uint64_t wal_threshold_ns, uint64_t backend_threshold_ns,
             int expect_backend);
/* One status document: the cumulative bins of each job (NULL/0 when the job has no samples yet).
 * Returns 1 when fio can be stopped: a job failed, or every expected job passed. */
int  fior__seq_update(fior__seq *c, const fior_bin *wal, size_t nwal, const fior_bin *backend, size_t nbackend);
/* The run ended at --max-time, undecided: its final bins are one more look (free, as every look is).
 * Returns fior__seq_overall() afterwards. */
fior_decision fior__seq_final(fior__seq *c, const fior_bin *wal, size_t nwal, const fior_bin *backend, size_t nbackend);
/* Overall state: FIOR_DEC_FAIL if any job failed, FIOR_DEC_PASS if all expected jobs passed, else the weakest state. */
fior_decision fior__seq_overall(const fior__seq *c);
const char *fior_decision_name(fior_decision s);
/* The decision rule in counts, for n samples of which c (d) lie on the far side of the threshold: the
 * largest c that still PASSes at error delta (-1: none; with c = 0 the first PASS is possible from
 * fior__seq_first_pass_look), and the smallest d that FAILs (n + 1: none). */
int64_t  fior__seq_pass_max_above(double q, double delta, uint64_t n);
uint64_t fior__seq_fail_min_above(double q, double delta, uint64_t n);
/* The first sample count at which a PASS at this confidence is possible (all samples below the threshold;
 * at least min_syncs): a run that cannot reach it can never decide a PASS. */
uint64_t fior__seq_first_pass_look(double q, double confidence, uint64_t min_syncs);
/* Two-phase check: phase 1 (the heavier profile) spent its share of the PASS error (pass_share); phase 2
 * gets the rest. Both test one claim — the p99 under etcd's load is below the threshold — the earlier one
 * through a load whose p99 is at least as high, so their errors add: each job's PASS error over both phases
 * stays <= alpha/2. (The FAIL side is not shared: a FAIL of the heavier load is never a verdict.) Call
 * right after fior__seq_init. */
void fior__seq_carry(fior__seq *c, const fior__seq *earlier);
/* 1 when side s could still PASS by the time it has `by_n` samples (no more samples at the threshold
 * than it has now): a phase that cannot pass before its end can give up at once. */
int fior__seq_pass_reachable(const fior__seq *c, const fior__seq_side *s, uint64_t by_n);
/* The first sample count at which c's PASS side can decide (its delta and min_syncs; UINT64_MAX: never). */
uint64_t fior__seq_pass_from(const fior__seq *c);
/* The total count of bins (*total), or -1 (*total 0) when they are not ascending or their counts wrap
 * around 2^64: such bins are no distribution, and neither a bound nor a decision may come of them. */
int fior__bins_total(const fior_bin *bins, size_t nbins, uint64_t *total);
/* The k-th smallest of the binned samples (1-based, k <= their count; quantile.c). */
uint64_t fior__order_stat(const fior_bin *bins, size_t nbins, uint64_t k);
/* The share of the sampled time in which a sync started at that moment would have waited more than thr:
 * sum((value - thr) x count) over the bins above thr, over sum(value x count) of all (0 when empty). A
 * sample rate far above etcd's dilutes a stall — one slow sync among hundreds a second — that etcd, syncing
 * a few times a second, meets in a larger share of its syncs. A sync issued at a random moment lands in a
 * given one with probability proportional to its length and waits out its rest; weighted so, the stall
 * keeps its share of the time, whatever the sample rate. */
double fior__seq_time_share(const fior_bin *b, size_t n, uint64_t thr);

#define FIOR__TP_PHASE1_SHARE  0.125 /* phase 1's share of each job's PASS error (phase 2 gets the rest): its
                                      * samples come 10-50x faster, so the same error costs it fewer seconds */
#define FIOR__TP_PHASE1_CAP    2u    /* phase 1 gives up on a job that cannot pass before this many times the
                                      * samples of its first possible PASS (627 at 95 %: 1254) */
#define FIOR__TP_TIME_SHARE    0.01  /* phase 1's time guard (fior__seq_params.max_time_share): the p99's 1 % */

typedef enum fior__tp_phase1 {
    FIOR__TP_GO_ON = 0,   /* keep running phase 1 */
    FIOR__TP_PASS,        /* both jobs decided PASS under the heavy load */
    FIOR__TP_GIVE_UP      /* phase 1 cannot pass any more: go to phase 2 */
} fior__tp_phase1;

/* What phase 1's early-stop state means for phase 1 (after each status document). */
fior__tp_phase1 fior__tp_phase1_state(const fior__seq *es);

typedef struct fior__tp_probe {
    int      ok;                 /* 1: the phase-1 PASS is confirmed */
    uint64_t heavy_wal_ns, probe_wal_ns, heavy_be_ns, probe_be_ns; /* FIOR_PROBE_Q points (0: no samples) */
    uint64_t probe_wal_n, probe_be_n;
    uint64_t probe_wal_max_ns, probe_be_max_ns; /* the slowest probe sample of each job */
    char     why[256];           /* one line for the report */
} fior__tp_probe;

/* Compares the probe's (phase 2's first FIOR_PROBE_S seconds) FIOR_PROBE_Q quantile of each job with phase
 * 1's final one, and refuses as well when any probe sample reached its job's threshold (a stall that phase 1
 * did not meet: its PASS came from a window without one). A job without probe samples cannot confirm
 * anything (ok = 0). be_thr 0: the WAL alone is asked (fior_monitor_set_roles), the backend is left out. */
void fior__tp_probe_compare(const fior_bin *heavy_wal, size_t nhw, const fior_bin *heavy_be, size_t nhb,
                      const fior_bin *probe_wal, size_t npw, const fior_bin *probe_be, size_t npb, uint64_t wal_thr,
                      uint64_t be_thr, fior__tp_probe *out);

#endif
