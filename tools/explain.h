/* SPDX-License-Identifier: MIT */
/* explain.h — why a verdict came out as it did: named rules over the latency distributions of a result,
 * each with a documented threshold and one practical recommendation. Pure (facts in, lines out: no I/O,
 * no allocation, no global state) and advisory only: explain never changes a verdict.
 *
 * The rules, in the order they are tried for each distribution (thresholds are the EXPLAIN_* below):
 *   stalls           p50 fine (below T/2) but p99.9 (or the max) >= 20x p50 and >= T/2: periodic stalls
 *                    (cloud burst credits, blk-throttle, writeback storms), not a slow disk
 *   slow-throughout  FAIL with p50 >= T/2: every write is slow, the disk itself is too slow
 *   slow-tail        FAIL, p50 fine, no stall pattern: the slowest percent is slow (competing I/O)
 *   thin-margin      PASS with the p99 (its upper bound) within 2x of T: little headroom
 *   headroom         PASS otherwise: how far below T the p99 is
 *   too-few-samples  UNKNOWN for lack of samples: run longer / scrape a longer window
 *   bucket-straddle  UNKNOWN because etcd's 2x-wide histogram bucket holding the p99 straddles T
 *   undecided        any other UNKNOWN: the judgement's reason, and what to do about it
 * and over the whole result:
 *   backend-only     the backend commits fail while the WAL fdatasyncs of the same origin pass: big
 *                    bbolt commits (db size, fragmentation, compaction), not the fsync path
 *   rollover         the worst WAL segment rollover (ftruncate + fsync + rename, every 64 MB) took >= the
 *                    WAL threshold: the filesystem is slow at preallocation
 *   not-the-disk     etcd's own metrics (or etcdctl check perf) fail while the disk test of the same role
 *                    passes: contention when etcd runs (CPU, other I/O, neighbours), not the disk
 * and over the run's environment (check; explain_env):
 *   unsafe-mount     the filesystem is mounted with options that let fdatasync return before the data is
 *                    durable (nobarrier, barrier=0, data=writeback, fsync_mode=nobarrier): the figures are
 *                    faster than what a power cut would keep
 *   memory-pressure  the memory cgroup hit its limit (or OOM-killed) during the run, or tasks stalled on
 *                    memory >= MP_PSI_SHARE_PCT % of it (PSI): a FAIL may be reclaim and forced writeback
 */
#ifndef ETCD_FIO_EXPLAIN_H
#define ETCD_FIO_EXPLAIN_H

#include <stddef.h>
#include <stdint.h>

#include "fioreport.h"

#define EXPLAIN_STALL_RATIO   20  /* tail / p50 at or above which the tail is called stalls */
#define EXPLAIN_P50_FINE_DIV  2   /* p50 below T / this is "fine"; at or above it "slow throughout" */
#define EXPLAIN_MARGIN_FACTOR 2   /* a PASS whose p99 is within this factor of T has a thin margin */
#define EXPLAIN_MAX_LINES     16

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
} explain_dist;

typedef struct explain_facts {
    const explain_dist *dist;
    size_t              ndist;
    int                 rollover_known;     /* the engine measured WAL rollovers */
    uint64_t            rollovers, rollover_worst_ns, wal_threshold_ns;
} explain_facts;

typedef struct explain_line {
    const char *rule;       /* one of the names above */
    char        why[240];   /* one line, with the numbers */
    const char *advice;     /* one practical recommendation (static) */
} explain_line;

/* The run's environment (check). */
typedef struct explain_env {
    const char *fs_desc;        /* "ext4 on /dev/vda1 (254:0) mounted at /var/lib/etcd" */
    const char *weak_options;   /* "nobarrier,data=writeback"; NULL or "" when none */
    const char *write_cache;    /* the disk's queue/write_cache ("write back", "write through", "") */
    int         memory_pressure;
    const char *memory_text;    /* what was seen (mempress.h mp_result.text) */
} explain_env;
size_t explain_env_lines(const explain_env *e, explain_line *out, size_t max);

/* "2.5 ms", "8-16 ms" / "500 us-1 ms" for a range, "<= 1 ms" from 0, "> 8.19 s" open above, "?" unknown */
void explain_fmt_range(char *out, size_t n, const explain_range *r);

/* Applies the rules; writes at most `max` lines to out and returns how many. */
size_t explain(const explain_facts *f, explain_line *out, size_t max);

/* A distribution from the library's job and its judgement: p50/p99/p99.9 from the listed percentiles (print
 * resolution included) or json+ bins, or the bucket bounds of a Prometheus histogram; max where exact.
 * min_samples decides too_few. */
void explain_dist_from_job(explain_dist *d, const fior_job *j, const fior_judgement *jd, uint64_t min_samples);

#endif
