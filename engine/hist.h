/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hist.h — fixed-size latency histogram for the engine's own stats (no malloc, no fio types).
 * Log-linear buckets: 2^e ns split into 16 sub-buckets, so a quantile is within ~6 % of the true value.
 * Also answers etcd's histogram view (1 ms × 2^k buckets, k = 0..13) for side-by-side comparisons. */
#ifndef ETCDWAL_HIST_H
#define ETCDWAL_HIST_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define HIST_SUB_BITS 4
#define HIST_NBUCKETS (64 << HIST_SUB_BITS)

typedef struct hist {
    uint64_t count;
    uint64_t sum;      /* ns (or bytes, for size histograms) */
    uint64_t min, max;
    uint64_t bucket[HIST_NBUCKETS];
} hist;

void     hist_init(hist *h);
void     hist_add(hist *h, uint64_t v);
/* Adds every sample of src to dst (e.g. a helper thread's histogram into the owner's). */
void     hist_merge(hist *dst, const hist *src);
/* q in [0,1]; returns the upper edge of the bucket holding the q-quantile (0 if empty). */
uint64_t hist_quantile(const hist *h, double q);
/* Writes {"count":..,"sum":..,"min":..,"max":..,"mean":..,"p50":..,"p99":..,"p999":..,
 *         "etcd_buckets_ms":[{"le":1,"count":cumulative},…,{"le":8192,…},{"le":"+Inf",…}]}
 * with the given unit suffix appended to the value keys (e.g. "_ns": "min_ns"). */
void     hist_write_json(const hist *h, FILE *f, const char *unit_suffix, int etcd_buckets);


/* One named histogram of a stats object. */
typedef struct hist_field {
    const char *name;
    const hist *h;
    const char *unit_suffix;
    int etcd_buckets;
} hist_field;
/* Writes "name":{…},"name":{…} (hist_write_json each), comma-separated, no leading comma. */
void     hist_write_fields(FILE *f, const hist_field *fields, size_t n);

#endif
