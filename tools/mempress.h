/* SPDX-License-Identifier: MIT */
/* mempress.h — memory pressure during a run: the memory cgroup's own counters (v2 memory.events: high,
 * max, oom, oom_kill, and memory.pressure; v1 memory.failcnt and memory.oom_control's oom_kill) and the
 * kernel's pressure stall information (/proc/pressure/memory), read before and after, differenced. A check
 * that fails under memory pressure may be measuring reclaim and writeback forced by the memory limit, not
 * the disk: that is reported beside the verdict and explained (explain.h "memory-pressure"); it never
 * changes the verdict. */
#ifndef ETCD_FIO_MEMPRESS_H
#define ETCD_FIO_MEMPRESS_H

#include <stddef.h>
#include <stdint.h>

#define MEMPRESS_UNKNOWN UINT64_MAX
#define MEMPRESS_PSI_SHARE_PCT 5 /* a run whose tasks stalled on memory this share of its time is under pressure */

typedef struct mempress_snap {
    int      cgroup_v;          /* 2, 1, or 0 when no memory cgroup was found */
    char     cgroup[512];       /* its directory */
    uint64_t high, max, oom, oom_kill; /* v2 memory.events; v1: max = failcnt, oom_kill from oom_control */
    uint64_t limit;             /* v2 memory.max / v1 memory.limit_in_bytes; MEMPRESS_UNKNOWN: none */
    uint64_t psi_some_us, psi_full_us; /* the cgroup's memory.pressure if any, else /proc/pressure/memory */
    int      psi_of_cgroup;     /* 1: the PSI figures are the cgroup's own */
    int      have_psi;
} mempress_snap;

typedef struct mempress_result {
    int      known;             /* any source could be read */
    int      pressure;          /* limit events during the run, or PSI some >= MEMPRESS_PSI_SHARE_PCT % */
    uint64_t limit_events;      /* high + max (+ failcnt) + oom during the run */
    uint64_t oom_kills;
    double   psi_some_pct, psi_full_pct; /* share of the run's wall time; < 0 when unknown */
    char     what[360];         /* what was seen, e.g. "memory cgroup v1 (limit 30 MiB): limit hit 30 times …" */
    char     text[400];         /* one line for the result: "UNDER PRESSURE: " / "no pressure: " + what */
} mempress_result;

/* Reads the counters of this process's memory cgroup (fio's jobs are in it too) and PSI. */
void mempress_read(mempress_snap *s);
/* The difference over a run of `seconds`. */
void mempress_diff(const mempress_snap *before, const mempress_snap *after, double seconds, mempress_result *r);

/* Parsers (pure): "some avg10=… total=N" lines of a PSI file; "key value" lines (memory.events,
 * memory.oom_control). 0, or -1 when the key is missing. */
int mempress_parse_psi(const char *text, uint64_t *some_us, uint64_t *full_us);
int mempress_parse_kv(const char *text, const char *key, uint64_t *v);

#endif
