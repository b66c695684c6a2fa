/* SPDX-License-Identifier: MIT */
/* value.c — what the verdict rules share: the one writer of a judgement's reason (fior__vsay) and what a
 * value as fio printed it may stand for (the ends of a rounded value, the edges of fio's histogram bucket). */
#include <stdarg.h>
#include <stdio.h>

#include "internal.h"

fior_verdict fior__vsay(fior__judged *o, fior_verdict v, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(o->reason, sizeof o->reason, fmt, ap);
    va_end(ap);
    return o->j.verdict = v;
}

/* Bounds of the true value behind a printed percentile. A printed d in unit u stands for a true value in
 * ((d-1)u, d·u] when fio rounded up (3.x), or [d·u, (d+1)u) when an older fio truncated: take the hull. */
uint64_t fior__vupper(uint64_t v, uint64_t res)
{
    return res <= 1 ? v : (v + res - 1 < v ? UINT64_MAX : v + res - 1);
}

uint64_t fior__vlower(uint64_t v, uint64_t res)
{
    return res <= 1 ? v : (v > res ? v - res + 1 : 0);
}

/* fio keeps every latency in a log-linear histogram (stat.h: FIO_IO_U_PLAT_BITS 6: exact below 128 ns, then
 * 64 buckets per power of two) and prints a percentile as the middle of the bucket that holds the sample
 * at that rank (stat.c plat_idx_to_val, "Return the mean of the range of the bucket"): the sample itself
 * can be anywhere in the bucket, up to 1/128 of the value either way ("the maximum statistical error" in
 * fio's stat.h). So a JSON p99 of 9.95 ms may stand for 10.01 ms: these are the bucket's edges. */
static unsigned msb(uint64_t v)
{
    unsigned m = 0;
    while (v >>= 1)
        m++;
    return m;
}

uint64_t fior__vbucket_lo(uint64_t v)
{
    if (v < 128)
        return v;
    unsigned m = msb(v);
    uint64_t base = 1ULL << m, w = 1ULL << (m - 6);
    return base + (v - base) / w * w;
}

uint64_t fior__vbucket_hi(uint64_t v)
{
    if (v < 128)
        return v;
    uint64_t w = 1ULL << (msb(v) - 6), lo = fior__vbucket_lo(v);
    return lo > UINT64_MAX - (w - 1) ? UINT64_MAX : lo + w - 1;
}
