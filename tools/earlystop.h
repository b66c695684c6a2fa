/* SPDX-License-Identifier: MIT */
/* earlystop.h — the early-stop decision of `etcd-fio check`: from the cumulative json+ bins of the WAL
 * fdatasyncs and the backend commits (fio's --status-interval documents), decide as soon as each job's p99 is
 * known to be below or above its threshold with the requested confidence.
 *
 * A wrong FAIL needs the lower bound above the true p99, a wrong PASS the upper bound below it: two
 * one-sided errors, each given half of alpha = 1 - confidence (as a two-sided bound at that confidence).
 * Repeated looks at a growing sample would inflate them, so each side spends its half like a union bound:
 * its look k uses a tail of alpha/2^(k+2), so the sum over all its looks is <= alpha/2. Lower-bound (FAIL)
 * looks happen when the job's sample count first reaches min_syncs*2^k; upper-bound (PASS) looks start at
 * the first count where an upper bound can exist at all (0.99^n <= alpha/4, n = 436 at 95 %) and double
 * from there. So each job's decision is wrong with probability <= 1 - confidence. Decisions are sticky.
 * Assumptions: samples are independent draws (bursty interference from other tenants makes neighbouring
 * samples correlated, and a short burst can then decide early), and latencies are known to fio's histogram
 * resolution (json+ bin values, ~1.6 % relative), which is also what fio's own percentiles use.
 */
#ifndef ETCD_FIO_EARLYSTOP_H
#define ETCD_FIO_EARLYSTOP_H

#include <stddef.h>
#include <stdint.h>

#include "fioreport.h"

typedef enum es_state {
    ES_ABSENT = 0,  /* job not in the run (or not seen yet) */
    ES_TOO_FEW,     /* fewer than min_syncs samples */
    ES_UNDECIDED,   /* the bound straddles the threshold */
    ES_PASS,        /* decided: p99 < threshold */
    ES_FAIL         /* decided: p99 > threshold */
} es_state;

typedef struct es_params {
    double   q;           /* quantile, 0.99 */
    double   confidence;  /* per job, e.g. 0.95 */
    uint64_t min_syncs;   /* no decision before this many samples of a job; first look there */
    int      full;        /* 1: never ask to stop early (decisions are still tracked) */
    double   max_time_share; /* > 0 (check's phase 1): a PASS look also needs the share of the sampled time
                              * spent in samples >= the threshold to be <= this (es_time_share_above) */
} es_params;

typedef struct es_side {
    uint64_t threshold_ns;
    es_state state;
    uint64_t n;                  /* samples at the last update */
    uint64_t lo_ns, point_ns, hi_ns; /* bound at the nominal confidence at the last update (hi UINT64_MAX: none) */
    unsigned fail_looks, pass_looks;      /* looks spent on each side */
    uint64_t next_fail_look, next_pass_look; /* sample count of the next look of each side */
    uint64_t look_lo_ns, look_hi_ns; /* the bound the last look used (its spent-error confidence) */
    double   look_confidence;    /* that bound's confidence (the nominal one before the first look) */
    uint64_t decided_n;          /* samples when decided (0: not decided) */
    double   decided_tail;       /* one-sided error spent at the deciding look */
} es_side;

typedef struct es_ctl {
    es_params p;
    es_side   wal, backend;
    int       expect_backend;    /* the run has a backend job: it must be decided too before a PASS stop */
    int       stop;              /* sticky: verdict decided (and not --full) */
} es_ctl;

void es_init(es_ctl *c, const es_params *p, uint64_t wal_threshold_ns, uint64_t backend_threshold_ns,
             int expect_backend);
/* One status document: the cumulative bins of each job (NULL/0 when the job has no samples yet).
 * Returns 1 when fio can be stopped: a job failed, or every expected job passed. */
int  es_update(es_ctl *c, const fior_bin *wal, size_t nwal, const fior_bin *backend, size_t nbackend);
/* The run ended at --max-time, undecided: one more look of each kind at the final bins. The end was fixed
 * before the run, not chosen by the data, so this is just the next look of each side's sequence (it spends
 * the next tail, and each side's total error stays <= alpha/2). Returns es_overall() afterwards. */
es_state es_final(es_ctl *c, const fior_bin *wal, size_t nwal, const fior_bin *backend, size_t nbackend);
/* Overall state: ES_FAIL if any job failed, ES_PASS if all expected jobs passed, else the weakest state. */
es_state es_overall(const es_ctl *c);
const char *es_state_name(es_state s);
/* The sample count of the first PASS look (the first n where an upper bound at the first look's spent
 * error exists, at least min_syncs): a run that cannot reach it can never decide a PASS. */
uint64_t es_first_pass_look(double q, double confidence, uint64_t min_syncs);
/* Two-phase check: the PASS looks an earlier phase (the heavier profile) spent on each job continue here.
 * Both phases' PASS looks test one claim — the p99 under etcd's load is below the threshold — the earlier
 * one through a load whose p99 is at least as high, so one error sequence runs across both: look k of
 * either phase spends alpha/2^(k+2), and each job's PASS error over both phases stays <= alpha/2. (FAIL
 * looks are not carried: a FAIL of the heavier load is never a verdict.) Call right after es_init. */
void es_carry_pass_looks(es_ctl *c, const es_ctl *earlier);
/* The share of the sampled time in which a sync started at that moment would have waited more than thr:
 * sum((value - thr) x count) over the bins above thr, over sum(value x count) of all (0 when empty). A
 * sample rate far above etcd's dilutes a stall — one slow sync among hundreds a second — that etcd, syncing
 * a few times a second, meets in a larger share of its syncs. A sync issued at a random moment lands in a
 * given one with probability proportional to its length and waits out its rest; weighted so, the stall
 * keeps its share of the time, whatever the sample rate. */
double es_time_share_above(const fior_bin *b, size_t n, uint64_t thr);

#endif
