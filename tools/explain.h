/* SPDX-License-Identifier: MIT */
/* explain.h — why a verdict came out as it did: named rules over the latency distributions of a result,
 * each with a documented threshold and one practical recommendation. Pure (facts in, lines out: no I/O,
 * no allocation, no global state) and advisory only: explain never changes a verdict.
 *
 * Each rule fires only on the evidence it states, never against the verdict of the distribution it speaks
 * of (a shape rule never on an UNKNOWN: the result does not trust that data), and never advises a change on
 * a figure below its threshold unless it says plainly that the figure is below it. The rules, in the order
 * tried for each distribution (thresholds are the EXPLAIN_* below):
 *   stalls           PASS or FAIL; p50 fine (below T/2) but a tail quantile q (p99.9, else p99) >= 20x p50,
 *                    with at least EXPLAIN_STALL_MIN_BEYOND samples beyond q (a max or a handful is no
 *                    pattern); on a FAIL the tail is >= T/2, on a PASS >= T (the p99 passes, the tail does
 *                    not): periodic stalls (cloud burst credits, blk-throttle, writeback storms)
 *   slow-throughout  FAIL with p50 >= T/2: every write is slow, the disk itself is too slow
 *   slow-tail        FAIL, p50 fine, no stall pattern: the slowest percent is slow (competing I/O)
 *   thin-margin      PASS with the p99 (its upper bound) within 2x of T: little headroom, nothing to change
 *   headroom         PASS otherwise: how far below T the p99 is
 *   too-few-samples  UNKNOWN for lack of samples: run longer / scrape a longer window
 *   no-count         UNKNOWN: a p99 is known but not how many samples it rests on (an etcd-perf log's verdict
 *                    lines): what the figure shows and why it cannot prove a PASS
 *   bucket-straddle  UNKNOWN because etcd's 2x-wide histogram bucket holding the p99 straddles T
 *   undecided        any other UNKNOWN: the judgement's reason
 *   check-perf-pass  NOT JUDGED etcdctl check perf PASS: etcd as a whole kept up; no fdatasync timed
 *   check-perf-fail  etcdctl check perf FAIL with no disk test beside it: etcd is slow, maybe not the disk
 * Every line of an UNKNOWN (and of check perf) carries the exact command that would decide it (next).
 * and over the whole result:
 *   backend-only     the backend commits fail while the WAL fdatasyncs of the same origin pass: big
 *                    bbolt commits (db size, fragmentation, compaction), not the fsync path
 *   rollover         the worst WAL segment rollover (ftruncate + fsync + rename, every 64 MB) took >= the
 *                    WAL threshold, on a judged WAL: the filesystem is slow at preallocation (the advice
 *                    looks at the filesystem measured: no "use ext4" on ext4)
 *   not-the-disk     etcd's own metrics (or etcdctl check perf) fail while the disk test of the same role
 *                    passes: contention when etcd runs (CPU, other I/O, neighbours), not the disk
 * and over the run's environment (check; explain_env):
 *   unsafe-mount     the filesystem is mounted with options that let fdatasync return before the data is
 *                    durable (nobarrier, barrier=0, data=writeback, fsync_mode=nobarrier): the figures are
 *                    faster than what a power cut would keep
 *   memory-pressure  the memory cgroup hit its limit (or OOM-killed) during the run, or tasks stalled on
 *                    memory >= MEMPRESS_PSI_SHARE_PCT % of it (PSI): a FAIL may be reclaim and forced writeback
 */
#ifndef ETCD_FIO_EXPLAIN_H
#define ETCD_FIO_EXPLAIN_H

#include <stddef.h>
#include <stdint.h>

#include "fioreport.h"

#define EXPLAIN_STALL_RATIO   20  /* tail / p50 at or above which the tail is called stalls */
#define EXPLAIN_P50_FINE_DIV  2   /* p50 below T / this is "fine"; at or above it "slow throughout" */
#define EXPLAIN_MARGIN_FACTOR 2   /* a PASS whose p99 is within this factor of T has a thin margin */
#define EXPLAIN_STALL_MIN_BEYOND 10 /* samples beyond the cited tail quantile a stall pattern needs at least */
#define EXPLAIN_MAX_LINES     16
#define EXPLAIN_NEXT_MAX      320
#define EXPLAIN_ON(verdict)   ((int)(verdict) + 1)
/* The directory named in a next command when the input does not say where fio ran: etcd's data directory
 * as kubeadm lays it out (rke2: /var/lib/rancher/rke2/server/db/etcd). */
#define EXPLAIN_DEFAULT_DIR   "/var/lib/etcd"

typedef enum explain_origin {
    EXPLAIN_DISK_TEST = 0,  /* fio / the etcd-fio engine on a disk */
    EXPLAIN_ETCD_METRICS,   /* etcd's own histograms (a /metrics scrape) */
    EXPLAIN_CHECK_PERF      /* etcdctl check perf */
} explain_origin;

/* A latency known to lie in [lo, hi] (exact: lo == hi); known = 0 when not known at all. */
typedef struct explain_range {
    int      known;
    uint64_t lo, hi;
} explain_range;

typedef struct explain_dist {
    const char    *label;     /* "WAL fdatasync", "etcd WAL fsync", … for the text */
    fior_role      role;
    explain_origin origin;
    fior_verdict   verdict;
    const char    *reason;    /* the judgement's reason (for "undecided"), may be NULL */
    uint64_t       threshold_ns;
    int            too_few;   /* UNKNOWN for lack of samples */
    int            straddle;  /* UNKNOWN because a histogram bucket straddles the threshold */
    explain_range  p50, p99, p999, max;
    int            samples_known;
    uint64_t       samples;   /* how many latencies the distribution holds, if samples_known */
    char           next[EXPLAIN_NEXT_MAX]; /* the command that would decide it (UNKNOWN, check perf); "": the
                                           * check on EXPLAIN_DEFAULT_DIR */
    const char    *summary;   /* etcdctl check perf: what it printed ("throughput 150 writes/s, ..."), or NULL */
} explain_dist;

typedef struct explain_facts {
    const explain_dist *dist;
    size_t              ndist;
    int                 rollover_known;     /* the engine measured WAL rollovers */
    uint64_t            rollovers, rollover_worst_ns, wal_threshold_ns;
    const char         *fs_type;            /* the filesystem measured ("ext4"), NULL when not known */
} explain_facts;

typedef struct explain_line {
    const char *rule;       /* one of the names above */
    char        why[512];   /* one line, with the numbers */
    const char *advice;     /* one practical recommendation (static) */
    char        next[EXPLAIN_NEXT_MAX]; /* the exact command to run next, "" when none */
    int         on;         /* EXPLAIN_ON(the fior_verdict of the distribution the line speaks of); 0: the
                             * result as a whole (a zeroed line is one) */
    double      quantile;   /* the tail quantile a stalls line cites (99.9, 99), else 0 */
} explain_line;

/* The run's environment (check). */
typedef struct explain_env {
    const char *fs_desc;        /* "ext4 on /dev/vda1 (254:0) mounted at /var/lib/etcd" */
    const char *weak_options;   /* "nobarrier,data=writeback"; NULL or "" when none */
    const char *write_cache;    /* the disk's queue/write_cache ("write back", "write through", "") */
    int         memory_pressure;
    const char *memory_text;    /* what was seen (mempress.h mempress_result.text) */
} explain_env;
size_t explain_env_lines(const explain_env *e, explain_line *out, size_t max);

/* "2.5 ms", "8-16 ms" / "500 us-1 ms" for a range, "<= 1 ms" from 0, "> 8.19 s" open above, "?" unknown */
void explain_fmt_range(char *out, size_t n, const explain_range *r);

/* "etcd-fio check DIR" (DIR shell-quoted when it needs it; EXPLAIN_DEFAULT_DIR when NULL/""), with
 * `opts` (e.g. "--wal-only", NULL for none) between. */
void explain_check_cmd(char *out, size_t n, const char *opts, const char *dir);

/* An "undecided" line for a result that is unknown as a whole: its reason (cut to fit), then `next` (NULL:
 * the check on EXPLAIN_DEFAULT_DIR). */
void explain_undecided(explain_line *l, const char *reason, const char *next);

/* Applies the rules; writes at most `max` lines to out and returns how many. */
size_t explain(const explain_facts *f, explain_line *out, size_t max);

/* What a role's latency is called, by where it comes from: "WAL fdatasync" and "backend commit" (a disk
 * test), "etcd's WAL fsync" and "etcd's backend commit" (etcd's metrics), "etcdctl check perf"; a role but
 * the backend's is named as the WAL. The one table of these words: every output takes them from here. */
const char *explain_role_label(explain_origin origin, fior_role role);
/* A quantile of j held within the job's exact [min, max]: fio's percentiles are the middles of its
 * histogram bins (stat.c plat_idx_to_val), so a p99 may stand above the max or a p1 below the min, and no
 * quantile lies outside them. As given for bucketed jobs (no exact max) and for UINT64_MAX. The library's
 * reasons hold their figures the same way. */
uint64_t explain_in_range(const fior_job *j, uint64_t ns);
/* A distribution from the library's job and its judgement: p50/p99/p99.9 from the listed percentiles (print
 * resolution included) or json+ bins, within [min, max] (explain_in_range), or the bucket bounds of a
 * Prometheus histogram; max where exact. min_samples decides too_few. */
void explain_dist_from_job(explain_dist *d, const fior_job *j, const fior_judgement *jd, uint64_t min_samples);

#endif
