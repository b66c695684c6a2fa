/* SPDX-License-Identifier: MIT */
/* twophase.c — check's phase decisions (see twophase.h). */
#include "twophase.h"

#include <stdio.h>
#include <string.h>

tp_phase1 tp_phase1_state(const es_ctl *es)
{
    es_state o = es_overall(es);
    if (o == ES_PASS)
        return TP_PASS;
    const es_side *s[2] = {&es->wal, &es->backend};
    for (int i = 0; i < 2; i++) {
        if (s[i]->state == ES_FAIL)
            return TP_GIVE_UP; /* a FAIL of the heavier load says nothing about etcd's */
        if (s[i]->state != ES_PASS && s[i]->pass_looks >= TP_PHASE1_PASS_LOOKS)
            return TP_GIVE_UP;
    }
    return TP_GO_ON;
}

static uint64_t max_of(const fior_bin *b, size_t n)
{
    uint64_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (b[i].count && b[i].ns > m)
            m = b[i].ns;
    return m;
}

static uint64_t quantile(const fior_bin *b, size_t n, uint64_t *count)
{
    uint64_t total = 0;
    for (size_t i = 0; i < n; i++)
        total += b[i].count;
    *count = total;
    uint64_t lo, pt = 0, hi;
    if (total) /* the point estimate is set even when too few samples give no finite bound */
        fior_quantile_bound(b, n, TP_PROBE_Q, 0.5, &lo, &pt, &hi);
    return pt;
}

void tp_probe_compare(const fior_bin *heavy_wal, size_t nhw, const fior_bin *heavy_be, size_t nhb,
                      const fior_bin *probe_wal, size_t npw, const fior_bin *probe_be, size_t npb, uint64_t wal_thr,
                      uint64_t be_thr, tp_probe *out)
{
    memset(out, 0, sizeof *out);
    uint64_t n;
    out->heavy_wal_ns = quantile(heavy_wal, nhw, &n);
    out->heavy_be_ns = quantile(heavy_be, nhb, &n);
    out->probe_wal_ns = quantile(probe_wal, npw, &out->probe_wal_n);
    out->probe_be_ns = quantile(probe_be, npb, &out->probe_be_n);
    int q = (int)(TP_PROBE_Q * 100 + 0.5);
    if (!out->probe_wal_n || !out->probe_be_n) {
        snprintf(out->why, sizeof out->why, "the faithful probe has no %s samples yet",
                 !out->probe_wal_n ? "WAL" : "backend");
        return;
    }
    out->probe_wal_max_ns = max_of(probe_wal, npw);
    out->probe_be_max_ns = max_of(probe_be, npb);
    char a[32], b[32], c[32], d[32];
    if (out->probe_wal_max_ns >= wal_thr || out->probe_be_max_ns >= be_thr) {
        int w = out->probe_wal_max_ns >= wal_thr;
        fior_format_ns(a, sizeof a, w ? out->probe_wal_max_ns : out->probe_be_max_ns);
        fior_format_ns(b, sizeof b, w ? wal_thr : be_thr);
        snprintf(out->why, sizeof out->why, "a %s under etcd's load took %s (limit %s), which phase 1 never met",
                 w ? "WAL fdatasync" : "backend commit", a, b);
        return;
    }
    int wal_ok = out->probe_wal_ns <= out->heavy_wal_ns, be_ok = out->probe_be_ns <= out->heavy_be_ns;
    out->ok = wal_ok && be_ok;
    fior_format_ns(a, sizeof a, out->probe_wal_ns);
    fior_format_ns(b, sizeof b, out->heavy_wal_ns);
    fior_format_ns(c, sizeof c, out->probe_be_ns);
    fior_format_ns(d, sizeof d, out->heavy_be_ns);
    snprintf(out->why, sizeof out->why, "p%d under etcd's load vs phase 1: WAL %s %s %s, backend %s %s %s%s", q, a,
             wal_ok ? "<=" : ">", b, c, be_ok ? "<=" : ">", d,
             out->ok ? "" : ": slower under the lighter load, phase 1 does not speak for etcd's");
}
