/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hist.c — log-linear histogram used for the engine's stats file (see hist.h for why this shape). */
#include "hist.h"

#include <string.h>

void hist_init(hist *h)
{
    memset(h, 0, sizeof *h);
    h->min = UINT64_MAX;
}

static unsigned bucket_of(uint64_t v)
{
    if (v < (1u << HIST_SUB_BITS))
        return (unsigned)v;
    unsigned e = 63u - (unsigned)__builtin_clzll(v);           /* v in [2^e, 2^(e+1)) */
    unsigned sub = (unsigned)(v >> (e - HIST_SUB_BITS)) & ((1u << HIST_SUB_BITS) - 1);
    return ((e - HIST_SUB_BITS + 1) << HIST_SUB_BITS) + sub;
}

static uint64_t bucket_upper(unsigned b)
{
    if (b < (1u << HIST_SUB_BITS))
        return b;
    unsigned e = (b >> HIST_SUB_BITS) + HIST_SUB_BITS - 1;
    uint64_t sub = b & ((1u << HIST_SUB_BITS) - 1);
    uint64_t lo = (1ull << e) + (sub << (e - HIST_SUB_BITS));
    return lo + (1ull << (e - HIST_SUB_BITS)) - 1;
}

void hist_add(hist *h, uint64_t v)
{
    h->count++;
    h->sum += v;
    if (v < h->min)
        h->min = v;
    if (v > h->max)
        h->max = v;
    h->bucket[bucket_of(v)]++;
}

void hist_merge(hist *dst, const hist *src)
{
    if (!src->count)
        return;
    dst->count += src->count;
    dst->sum += src->sum;
    if (src->min < dst->min)
        dst->min = src->min;
    if (src->max > dst->max)
        dst->max = src->max;
    for (unsigned b = 0; b < HIST_NBUCKETS; b++)
        dst->bucket[b] += src->bucket[b];
}

uint64_t hist_quantile(const hist *h, double q)
{
    if (!h->count)
        return 0;
    /* rank of the q-quantile: the smallest value with at least ceil(q*count) samples at or below it */
    uint64_t rank = (uint64_t)(q * (double)h->count);
    if ((double)rank < q * (double)h->count)
        rank++;
    if (rank == 0)
        rank = 1;
    uint64_t seen = 0;
    for (unsigned b = 0; b < HIST_NBUCKETS; b++) {
        seen += h->bucket[b];
        if (seen >= rank) {
            uint64_t up = bucket_upper(b);
            return up > h->max ? h->max : up;
        }
    }
    return h->max;
}

void hist_write_json(const hist *h, FILE *f, const char *u, int etcd_buckets)
{
    fprintf(f, "{\"count\":%llu,\"sum%s\":%llu,\"min%s\":%llu,\"max%s\":%llu,\"mean%s\":%.1f,"
               "\"p50%s\":%llu,\"p99%s\":%llu,\"p999%s\":%llu",
            (unsigned long long)h->count, u, (unsigned long long)h->sum, u,
            (unsigned long long)(h->count ? h->min : 0), u, (unsigned long long)h->max, u,
            h->count ? (double)h->sum / (double)h->count : 0.0, u,
            (unsigned long long)hist_quantile(h, 0.50), u, (unsigned long long)hist_quantile(h, 0.99), u,
            (unsigned long long)hist_quantile(h, 0.999));
    if (etcd_buckets) {
        /* cumulative counts at le = 1 ms × 2^k, as etcd's prometheus histograms expose them; a bucket
         * straddling the edge is counted by its upper edge, so these never under-count slow syncs */
        fputs(",\"etcd_buckets_ms\":[", f);
        for (unsigned k = 0; k <= 13; k++) {
            uint64_t le = 1000000ull << k, cum = 0;
            for (unsigned b = 0; b < HIST_NBUCKETS && bucket_upper(b) <= le; b++)
                cum += h->bucket[b];
            fprintf(f, "%s{\"le\":%u,\"count\":%llu}", k ? "," : "", 1u << k, (unsigned long long)cum);
        }
        fprintf(f, ",{\"le\":\"+Inf\",\"count\":%llu}]", (unsigned long long)h->count);
    }
    fputc('}', f);
}

void hist_write_fields(FILE *f, const hist_field *fl, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        fprintf(f, "%s\"%s\":", i ? "," : "", fl[i].name);
        hist_write_json(fl[i].h, f, fl[i].unit_suffix, fl[i].etcd_buckets);
    }
}
