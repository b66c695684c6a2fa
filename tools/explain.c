/* SPDX-License-Identifier: MIT */
/* explain.c — the named rules of explain.h: a short "why" for every verdict, from the shape of the latency
 * distribution, with one recommendation each. Advisory: it reads verdicts, it never makes one. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "explain.h"

static const char *const ADVICE_STALLS =
    "give etcd a disk of its own; on a cloud volume check burst credits and baseline IOPS (provisioned IOPS, "
    "e.g. gp3) and blk-throttle limits; lower vm.dirty_bytes so writeback cannot flood the disk";
static const char *const ADVICE_SLOW =
    "move etcd's data to a faster disk: local SSD/NVMe, or a provisioned-IOPS volume / storage class";
static const char *const ADVICE_TAIL =
    "find the I/O competing on this disk (iotop, other containers/pods) and move it, or give etcd a dedicated disk";
static const char *const ADVICE_THIN =
    "a busier hour can tip this over: prefer a dedicated or faster disk before the cluster grows";
static const char *const ADVICE_HEADROOM =
    "nothing to do for the disk; check again after changes to storage, kernel or co-located workloads";
static const char *const ADVICE_FEW =
    "run longer (check --max-time, a heavier --load) or scrape etcd over a longer --interval under real load";
static const char *const ADVICE_STRADDLE =
    "etcd's histogram buckets are 2x wide: run `etcd-fio check` on the same disk for an exact p99";
static const char *const ADVICE_UNDECIDED = "fix what the reason names and run again";
static const char *const ADVICE_BACKEND =
    "defragment and compact (etcdctl defrag, --auto-compaction-retention), keep the db small "
    "(--quota-backend-bytes, no large values)";
static const char *const ADVICE_ROLLOVER =
    "use ext4 or XFS on a plain volume (not thin-provisioned, not copy-on-write) so that preallocating a "
    "64 MB segment is fast";
static const char *const ADVICE_NOT_DISK =
    "give etcd I/O and CPU priority (ionice -c2 -n0 as the rke2 docs do, CPU requests/pinning) and move other "
    "workloads off its node or disk";

static const char *const ADVICE_UNSAFE_MOUNT =
    "mount etcd's filesystem with barriers (remove nobarrier/barrier=0) and data=ordered: etcd's durability "
    "rests on fdatasync reaching stable storage; measure again after the remount";
static const char *const ADVICE_MEMORY =
    "give the test (and etcd) more memory or a higher cgroup limit, or run it where nothing else competes for "
    "memory, and run again: under memory pressure reclaim and writeback, not the disk, may set the latency";

void explain_fmt_range(char *out, size_t n, const explain_range *r)
{
    char a[32], b[32];
    if (!r->known) {
        snprintf(out, n, "?");
        return;
    }
    fior_format_ns(a, sizeof a, r->lo);
    if (r->hi == UINT64_MAX) {
        snprintf(out, n, "> %s", a);
        return;
    }
    fior_format_ns(b, sizeof b, r->hi);
    const char *ua = strchr(a, ' '), *ub = strchr(b, ' ');
    if (r->lo == r->hi || !strcmp(a, b)) /* equal to 3 significant digits */
        snprintf(out, n, "%s", a);
    else if (r->lo == 0)
        snprintf(out, n, "<= %s", b);
    else if (ua && ub && !strcmp(ua, ub))
        snprintf(out, n, "%.*s-%s", (int)(ua - a), a, b);
    else
        snprintf(out, n, "%s-%s", a, b);
}

typedef struct sink {
    explain_line *out;
    size_t        n, max;
} sink;

static void add(sink *s, const char *rule, const char *advice, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void add(sink *s, const char *rule, const char *advice, const char *fmt, ...)
{
    if (s->n >= s->max)
        return;
    explain_line *l = &s->out[s->n++];
    l->rule = rule;
    l->advice = advice;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(l->why, sizeof l->why, fmt, ap);
    va_end(ap);
}

/* The per-distribution rules. */
static void explain_dist_lines(sink *s, const explain_dist *d)
{
    uint64_t T = d->threshold_ns;
    char p50[80], p99[80], tl[80], ts[32];
    fior_format_ns(ts, sizeof ts, T);
    explain_fmt_range(p50, sizeof p50, &d->p50);
    explain_fmt_range(p99, sizeof p99, &d->p99);
    const char *lbl = d->label ? d->label : "latency";
    int p50_fine = d->p50.known && d->p50.hi < T / EXPLAIN_P50_FINE_DIV;
    const explain_range *tail = d->p999.known ? &d->p999 : d->max.known ? &d->max : NULL;
    int stalls = 0;
    if (d->verdict == FIOR_NOT_JUDGED || T == 0)
        return;
    if (p50_fine && tail && tail->lo >= T / EXPLAIN_P50_FINE_DIV &&
        tail->lo / EXPLAIN_STALL_RATIO >= (d->p50.hi ? d->p50.hi : 1)) {
        explain_fmt_range(tl, sizeof tl, tail);
        uint64_t ratio = tail->lo / (d->p50.hi ? d->p50.hi : 1);
        add(s, "stalls", ADVICE_STALLS, "%s: p50 %s is fine but the %s is %s, %llux the p50 (>= %dx): periodic "
            "stalls, not a slow disk", lbl, p50, tail == &d->p999 ? "p99.9" : "max", tl, (unsigned long long)ratio,
            EXPLAIN_STALL_RATIO);
        stalls = 1;
    }
    switch (d->verdict) {
    case FIOR_FAIL:
        if (d->p50.known && d->p50.lo >= T / EXPLAIN_P50_FINE_DIV)
            add(s, "slow-throughout", ADVICE_SLOW, "%s: even the p50 (%s) is at least half the %s threshold: "
                "every write is slow, the disk is too slow for etcd", lbl, p50, ts);
        else if (!stalls)
            add(s, "slow-tail", ADVICE_TAIL, "%s: p99 %s >= %s while the p50 is %s: the slowest writes are slow, "
                "most are not", lbl, p99, ts, d->p50.known ? p50 : "unknown");
        break;
    case FIOR_PASS:
        if (!d->p99.known)
            break;
        if (d->p99.hi > T / EXPLAIN_MARGIN_FACTOR)
            add(s, "thin-margin", ADVICE_THIN, "%s: p99 %s is within %dx of the %s threshold", lbl, p99,
                EXPLAIN_MARGIN_FACTOR, ts);
        else
            add(s, "headroom", ADVICE_HEADROOM, "%s: p99 %s, %.1fx below the %s threshold", lbl, p99,
                (double)T / (double)(d->p99.hi ? d->p99.hi : 1), ts);
        break;
    case FIOR_UNKNOWN:
        if (d->too_few)
            add(s, "too-few-samples", ADVICE_FEW, "%s: too few samples to judge a p99", lbl);
        else if (d->straddle)
            add(s, "bucket-straddle", ADVICE_STRADDLE, "%s: etcd's histogram puts the p99 at %s, across the %s "
                "threshold", lbl, p99, ts);
        else
            add(s, "undecided", ADVICE_UNDECIDED, "%s: %s", lbl, d->reason ? d->reason : "no verdict");
        break;
    default:
        break;
    }
}

static const explain_dist *find(const explain_facts *f, explain_origin o, int role, fior_verdict v)
{
    for (size_t i = 0; i < f->ndist; i++)
        if (f->dist[i].origin == o && (role < 0 || (int)f->dist[i].role == role) && f->dist[i].verdict == v)
            return &f->dist[i];
    return NULL;
}

size_t explain(const explain_facts *f, explain_line *out, size_t max)
{
    sink s = {out, 0, max};
    if (!f || !out)
        return 0;
    for (size_t i = 0; i < f->ndist; i++)
        explain_dist_lines(&s, &f->dist[i]);
    for (int o = EXPLAIN_DISK_TEST; o <= EXPLAIN_ETCD_METRICS; o++) {
        const explain_dist *b = find(f, (explain_origin)o, FIOR_ROLE_BACKEND, FIOR_FAIL);
        const explain_dist *w = find(f, (explain_origin)o, FIOR_ROLE_WAL, FIOR_PASS);
        if (b && w)
            add(&s, "backend-only", ADVICE_BACKEND, "%s fails while %s passes: the cost is in large bbolt "
                "commits (db size, fragmentation, compaction), not in the fsync path", b->label, w->label);
    }
    if (f->rollover_known && f->rollovers && f->wal_threshold_ns && f->rollover_worst_ns >= f->wal_threshold_ns) {
        char a[32], b[32];
        fior_format_ns(a, sizeof a, f->rollover_worst_ns);
        fior_format_ns(b, sizeof b, f->wal_threshold_ns);
        add(&s, "rollover", ADVICE_ROLLOVER, "the slowest of %llu WAL segment rollovers took %s (>= %s): etcd's "
            "writes wait that long every 64 MB", (unsigned long long)f->rollovers, a, b);
    }
    if (!find(f, EXPLAIN_DISK_TEST, -1, FIOR_FAIL)) {
        for (size_t i = 0; i < f->ndist; i++) {
            const explain_dist *e = &f->dist[i];
            if (e->verdict != FIOR_FAIL || e->origin == EXPLAIN_DISK_TEST)
                continue;
            const explain_dist *d = find(f, EXPLAIN_DISK_TEST, e->origin == EXPLAIN_CHECK_PERF ? -1 : (int)e->role,
                                         FIOR_PASS);
            if (d) {
                add(&s, "not-the-disk", ADVICE_NOT_DISK, "%s fails while the disk test's %s passes: the slowness "
                    "comes from how etcd runs (CPU, other I/O, neighbours), not from the disk", e->label, d->label);
                break;
            }
        }
    }
    return s.n;
}

size_t explain_env_lines(const explain_env *e, explain_line *out, size_t max)
{
    sink s = {out, 0, max};
    if (!e || !out)
        return 0;
    if (e->weak_options && e->weak_options[0])
        add(&s, "unsafe-mount", ADVICE_UNSAFE_MOUNT, "%s is mounted %s: fdatasync may return before the data is "
            "on stable storage%s, so these figures can be faster than what a power cut keeps", e->fs_desc ? e->fs_desc
            : "the filesystem", e->weak_options, e->write_cache && !strcmp(e->write_cache, "write through")
            ? " (the disk reports a write-through cache, which makes nobarrier less harmful)" : "");
    if (e->memory_pressure)
        add(&s, "memory-pressure", ADVICE_MEMORY, "memory pressure during the run (%s): a slow result may be the "
            "memory, not the disk", e->memory_text ? e->memory_text : "seen");
    return s.n;
}

/* ---- from the library's types ---- */

static explain_range from_pct(const fior_job *j, double p)
{
    explain_range r = {0, 0, 0};
    uint64_t res = j->pct_resolution_ns > 1 ? j->pct_resolution_ns : 1;
    for (size_t i = 0; i < j->npct; i++)
        if (fabs(j->pct[i].percent - p) < 1e-9) {
            uint64_t v = j->pct[i].ns;
            r.known = 1;
            r.lo = v > res - 1 ? v - (res - 1) : 0; /* printed rounded: either way by less than a unit */
            r.hi = v + (res - 1);
            return r;
        }
    uint64_t n = 0, seen = 0;
    for (size_t i = 0; i < j->nbins; i++)
        n += j->bins[i].count;
    uint64_t rank = (uint64_t)ceil(p / 100.0 * (double)n);
    for (size_t i = 0; n && i < j->nbins; i++)
        if ((seen += j->bins[i].count) >= rank) {
            r.known = 1;
            r.lo = r.hi = j->bins[i].ns;
            break;
        }
    return r;
}

void explain_dist_from_job(explain_dist *d, const fior_job *j, const fior_judgement *jd, uint64_t min_samples)
{
    memset(d, 0, sizeof *d);
    d->role = j->role;
    d->origin = j->role == FIOR_ROLE_CHECK_PERF ? EXPLAIN_CHECK_PERF
                : j->bucketed                   ? EXPLAIN_ETCD_METRICS
                                                : EXPLAIN_DISK_TEST;
    static const char *const labels[3][2] = {{"WAL fdatasync", "backend commit"},
                                             {"etcd's WAL fsync", "etcd's backend commit"},
                                             {"etcdctl check perf", "etcdctl check perf"}};
    d->label = labels[d->origin][j->role == FIOR_ROLE_BACKEND];
    d->verdict = jd->verdict;
    d->reason = jd->reason;
    d->threshold_ns = jd->threshold_ns;
    d->too_few = jd->verdict == FIOR_UNKNOWN && j->samples_known && j->samples < min_samples;
    if (j->bucketed) {
        const double ps[3] = {50.0, 99.0, 99.9};
        explain_range *rs[3] = {&d->p50, &d->p99, &d->p999};
        for (int k = 0; k < 3; k++)
            rs[k]->known = fior_bucket_bounds(j->buckets, j->nbuckets, ps[k], &rs[k]->lo, &rs[k]->hi) == FIOR_OK;
        d->straddle = jd->verdict == FIOR_UNKNOWN && !j->defect && !d->too_few && d->p99.known &&
                      d->p99.lo < d->threshold_ns && d->p99.hi >= d->threshold_ns;
        return;
    }
    if (j->role == FIOR_ROLE_CHECK_PERF && j->max_ns) { /* its slowest request */
        d->max.known = 1;
        d->max.lo = d->max.hi = j->max_ns;
    }
    if (!j->has_sync)
        return;
    d->p50 = from_pct(j, 50.0);
    d->p99 = from_pct(j, 99.0);
    d->p999 = from_pct(j, 99.9);
    if (j->max_ns) {
        d->max.known = 1;
        d->max.lo = d->max.hi = j->max_ns;
    }
}
