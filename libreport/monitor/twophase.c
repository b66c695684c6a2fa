/* SPDX-License-Identifier: MIT */
/* twophase.c — the two-phase rules: phase 1 gives up or passes, the probe confirms (see seqbound.h). */
#include "bound/seqbound.h"

#include <stdio.h>
#include <string.h>

fior__tp_phase1 fior__tp_phase1_state(const fior__seq *es)
{
    fior_decision o = fior__seq_overall(es);
    if (o == FIOR_DEC_PASS)
        return FIOR__TP_PASS;
    const fior__seq_side *s[2] = {&es->wal, &es->backend};
    uint64_t from = fior__seq_pass_from(es);
    uint64_t cap = from < UINT64_MAX / FIOR__TP_PHASE1_CAP ? from * FIOR__TP_PHASE1_CAP : UINT64_MAX;
    for (int i = 0; i < (es->wal_only ? 1 : 2); i++) {
        if (s[i]->state == FIOR_DEC_FAIL)
            return FIOR__TP_GIVE_UP; /* a FAIL of the heavier load says nothing about etcd's */
        /* past the cap, or too many samples at the threshold already to pass before it */
        if (s[i]->state != FIOR_DEC_PASS && (s[i]->n >= cap || !fior__seq_pass_reachable(es, s[i], cap)))
            return FIOR__TP_GIVE_UP;
    }
    return FIOR__TP_GO_ON;
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
        fior_quantile_bound(b, n, FIOR_PROBE_Q, 0.5, &lo, &pt, &hi);
    return pt;
}

void fior__tp_probe_compare(const fior_bin *heavy_wal, size_t nhw, const fior_bin *heavy_be, size_t nhb,
                      const fior_bin *probe_wal, size_t npw, const fior_bin *probe_be, size_t npb, uint64_t wal_thr,
                      uint64_t be_thr, fior__tp_probe *out)
{
    memset(out, 0, sizeof *out);
    uint64_t n;
    out->heavy_wal_ns = quantile(heavy_wal, nhw, &n);
    out->heavy_be_ns = quantile(heavy_be, nhb, &n);
    out->probe_wal_ns = quantile(probe_wal, npw, &out->probe_wal_n);
    out->probe_be_ns = quantile(probe_be, npb, &out->probe_be_n);
    int q = (int)(FIOR_PROBE_Q * 100 + 0.5);
    int wal_only = be_thr == 0;
    if (!out->probe_wal_n || (!out->probe_be_n && !wal_only)) {
        snprintf(out->why, sizeof out->why, "the faithful probe has no %s samples yet",
                 !out->probe_wal_n ? "WAL" : "backend");
        return;
    }
    out->probe_wal_max_ns = max_of(probe_wal, npw);
    out->probe_be_max_ns = max_of(probe_be, npb);
    char a[32], b[32], c[32], d[32];
    if (out->probe_wal_max_ns >= wal_thr || (!wal_only && out->probe_be_max_ns >= be_thr)) {
        int w = out->probe_wal_max_ns >= wal_thr;
        fior_format_ns(a, sizeof a, w ? out->probe_wal_max_ns : out->probe_be_max_ns);
        fior_format_ns(b, sizeof b, w ? wal_thr : be_thr);
        snprintf(out->why, sizeof out->why, "a %s under etcd's load took %s (limit %s), which phase 1 never met",
                 w ? "WAL fdatasync" : "backend commit", a, b);
        return;
    }
    int wal_ok = out->probe_wal_ns <= out->heavy_wal_ns, be_ok = wal_only || out->probe_be_ns <= out->heavy_be_ns;
    out->ok = wal_ok && be_ok;
    fior_format_ns(a, sizeof a, out->probe_wal_ns);
    fior_format_ns(b, sizeof b, out->heavy_wal_ns);
    fior_format_ns(c, sizeof c, out->probe_be_ns);
    fior_format_ns(d, sizeof d, out->heavy_be_ns);
    if (wal_only)
        snprintf(out->why, sizeof out->why, "p%d under etcd's load vs phase 1: WAL %s %s %s%s", q, a,
                 wal_ok ? "<=" : ">", b, out->ok ? "" : ": slower under the lighter load, phase 1 does not speak for etcd's");
    else
        snprintf(out->why, sizeof out->why, "p%d under etcd's load vs phase 1: WAL %s %s %s, backend %s %s %s%s", q, a,
                 wal_ok ? "<=" : ">", b, c, be_ok ? "<=" : ">", d,
                 out->ok ? "" : ": slower under the lighter load, phase 1 does not speak for etcd's");
}
