/* SPDX-License-Identifier: MIT */
/* labdev.h — the slow-disk lab's simulated device (no FUSE, no clock: the caller passes the times).
 *
 * Every fsync/fdatasync of the lab filesystem is one request to ONE device that serves requests one at a
 * time in arrival order. A request's service time is lognormal (median, shape sigma) plus a cost per byte
 * written to that file since its last sync. Periodic stalls (every N s for S ms, measured from the
 * device's epoch) hold the device: nothing is served inside a stall window, and a service that runs into
 * one is suspended for it. With stall_jitter each window starts at a random point of its period (one a
 * period still): a writer whose own period divides the stalls' nearly (etcd's backend commits every
 * ~104 ms, 48 of them to a 5 s period) would otherwise meet every stall at the same phase, caught by all
 * of them or by none, on a difference of its period of half a millisecond. Randomness comes from a seeded
 * generator, so a given seed and arrival sequence always give the same schedule (what the unit tests
 * check). */
#ifndef LABDEV_H
#define LABDEV_H

#include <stddef.h>
#include <stdint.h>

typedef struct labdev_cfg {
    uint64_t median_ns;      /* median of the lognormal part of a service time (0: no random part) */
    double sigma;            /* lognormal shape: the standard deviation of ln(service) */
    uint64_t ns_per_mib;     /* extra service per MiB written since the file's last sync */
    uint64_t stall_every_ns; /* period of the stalls (0: none) */
    uint64_t stall_ns;       /* length of each stall, < stall_every_ns */
    uint64_t seed;           /* 0 is a valid seed */
    int stall_jitter;        /* 1: window k starts at a uniform draw in [k*every, (k+1)*every - stall) */
} labdev_cfg;

typedef struct labdev_req {
    uint64_t arrive_ns;   /* as passed in */
    uint64_t start_ns;    /* when the device began serving it */
    uint64_t finish_ns;   /* when the sync returns */
    uint64_t service_ns;  /* drawn service time (without stall time) */
} labdev_req;

typedef struct labdev_stats {
    uint64_t requests;
    uint64_t bytes;         /* written bytes the syncs paid for */
    uint64_t busy_ns;       /* sum of service times */
    uint64_t wait_ns;       /* sum of (start - arrive): queueing and stalls before service */
    uint64_t stalled_ns;    /* stall time inside services */
    uint64_t max_latency_ns;
} labdev_stats;

typedef struct labdev labdev;

/* Parses "median=2ms,sigma=0.5,per_mib=1ms,stall_every=10s,stall=200ms,stall_jitter=1,seed=7" (any subset,
 * separated by ',' or ':' — ':' lets the spec ride in a FUSE -o option list; durations
 * take ns, us, ms or s, bare numbers are ms). Unset keys are 0 (sigma 0 makes the service constant).
 * Returns 0, or -1 with a one-line message naming the byte offset of the bad key in err. */
int labdev_parse(labdev_cfg *cfg, const char *spec, char *err, size_t errlen);
/* Prints the configuration in the same syntax (for logs). */
void labdev_format(const labdev_cfg *cfg, char *buf, size_t len);

/* NULL when out of memory. The epoch (time 0 of the stall windows) is epoch_ns. */
labdev *labdev_new(const labdev_cfg *cfg, uint64_t epoch_ns);
void labdev_free(labdev *d);

/* One sync arriving at arrive_ns (>= epoch) that flushes `bytes` written bytes: queues it behind the
 * requests already accepted and returns its schedule. Arrivals must be passed in order of arrive_ns
 * (the FUSE glue calls this under one lock with a monotonic clock); an earlier one is treated as
 * arriving at the latest seen time. */
labdev_req labdev_submit(labdev *d, uint64_t arrive_ns, uint64_t bytes);

/* Changes the device's model from now on (a disk that slows down under a running etcd): requests already
 * accepted keep their schedule, the next ones queue behind them and are served by the new model. The
 * epoch, the queue, the statistics and (unless the new model names another seed) the random stream go on. */
void labdev_set_cfg(labdev *d, const labdev_cfg *cfg);
const labdev_cfg *labdev_get_cfg(const labdev *d);

/* One lognormal draw (for the tests of the distribution): median × exp(sigma × N(0,1)). */
uint64_t labdev_draw(labdev *d);

const labdev_stats *labdev_get_stats(const labdev *d);

#endif
