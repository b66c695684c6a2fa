/* SPDX-License-Identifier: MIT */
/* explain.c — the named rules of explain.h: a short "why" for every verdict, from the shape of the latency
 * distribution, with one recommendation each. Advisory: it reads verdicts, it never makes one. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "explain.h"
#include "fioreport_cli.h" /* the resolution a job was printed at */

static const char *const ADVICE_STALLS =
    "find what stalls the disk: on a cloud volume burst credits and baseline IOPS (provisioned IOPS, e.g. "
    "gp3), blk-throttle limits, writeback floods (lower vm.dirty_bytes); a disk of etcd's own keeps "
    "neighbours' stalls away";
static const char *const ADVICE_STALLS_PASS =
    "the verdict stands on the p99; if etcd logs \"slow fdatasync\" warnings, look for what stalls the disk: "
    "cloud burst credits, blk-throttle limits, writeback floods (vm.dirty_bytes)";
static const char *const ADVICE_SLOW =
    "move etcd's data to a faster disk: local SSD/NVMe, or a provisioned-IOPS volume / storage class";
static const char *const ADVICE_TAIL =
    "find the I/O competing on this disk (iotop, other containers/pods) and move it, or give etcd a dedicated disk";
static const char *const ADVICE_THIN =
    "nothing needs changing for this verdict; with this little headroom a busier hour can tip it over: check "
    "again at the cluster's busiest time and before it grows";
static const char *const ADVICE_HEADROOM =
    "no change needed for this figure; check again after changes to storage, kernel or co-located workloads";
static const char *const ADVICE_FEW =
    "more samples decide it: the command below measures until they do";
static const char *const ADVICE_NO_COUNT =
    "fio's JSON output carries the count (a whole etcd-perf log has it between its dashed lines): judge that, "
    "or measure with the command below";
static const char *const ADVICE_STRADDLE =
    "etcd's histogram buckets are 2x wide: the command below measures an exact p99 on the same disk";
static const char *const ADVICE_UNDECIDED =
    "the reason kept it from a verdict; the command below measures the disk until one is proven";
static const char *const ADVICE_CHECK_PERF_PASS =
    "etcdctl check perf times puts through etcd as a whole, not fdatasync or commits: measure the disk "
    "against etcd's thresholds with the command below";
static const char *const ADVICE_CHECK_PERF_FAIL =
    "check perf cannot tell the disk from CPU, network or etcd's own load: the command below tests the disk alone";
static const char *const ADVICE_BACKEND =
    "defragment and compact (etcdctl defrag, --auto-compaction-retention), keep the db small "
    "(--quota-backend-bytes, no large values)";
static const char *const ADVICE_BACKEND_DISK =
    "the disk is slow on bbolt's larger commits (several pages, then fdatasync) while small syncs pass: look "
    "for a write-bandwidth limit (cloud volume throughput, blk-throttle bps)";
static const char *const ADVICE_ROLLOVER =
    "use ext4 or XFS on a plain volume (not thin-provisioned, not copy-on-write) so that preallocating a "
    "64 MB segment is fast";
static const char *const ADVICE_ROLLOVER_FS =
    "the filesystem is already ext4 or XFS: look below it: a thin-provisioned, copy-on-write or network volume "
    "makes preallocating a 64 MB segment slow, and so does a nearly full filesystem";
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

/* A word the shell takes as it is, or NULL when it needs quoting. */
static int shell_plain(const char *w)
{
    if (!*w)
        return 0;
    for (const char *c = w; *c; c++)
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_/.,:+=@%-", *c))
            return 0;
    return 1;
}

void explain_check_cmd(char *out, size_t n, const char *opts, const char *dir)
{
    if (!dir || !dir[0])
        dir = EXPLAIN_DEFAULT_DIR;
    int k = snprintf(out, n, "etcd-fio check %s%s", opts && opts[0] ? opts : "", opts && opts[0] ? " " : "");
    if (k < 0 || (size_t)k >= n)
        return;
    size_t o = (size_t)k;
    if (shell_plain(dir)) {
        snprintf(out + o, n - o, "%s", dir);
        return;
    }
    /* single quotes; a quote inside becomes '\'' */
    if (o + 1 < n)
        out[o++] = '\'';
    for (const char *c = dir; *c && o + 5 < n; c++) {
        if (*c == '\'') {
            memcpy(out + o, "'\\''", 4);
            o += 4;
        } else
            out[o++] = *c;
    }
    if (o + 1 < n)
        out[o++] = '\'';
    out[o < n ? o : n - 1] = '\0';
}

typedef struct sink {
    explain_line *out;
    size_t        n, max;
} sink;

/* Appends a line (on: EXPLAIN_ON(verdict) of its distribution, 0 for the result's); NULL when full. */
static explain_line *add(sink *s, int on, const char *rule, const char *advice, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static explain_line *add(sink *s, int on, const char *rule, const char *advice, const char *fmt, ...)
{
    if (s->n >= s->max)
        return NULL;
    explain_line *l = &s->out[s->n++];
    memset(l, 0, sizeof *l);
    l->rule = rule;
    l->advice = advice;
    l->on = on;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(l->why, sizeof l->why, fmt, ap);
    va_end(ap);
    return l;
}

/* The command that decides this distribution: its own, else the check on etcd's usual data directory. */
static void set_next(explain_line *l, const explain_dist *d)
{
    if (!l)
        return;
    if (d->next[0])
        snprintf(l->next, sizeof l->next, "%s", d->next);
    else
        explain_check_cmd(l->next, sizeof l->next, NULL, NULL);
}

/* The tail quantile a stall pattern may cite: the highest of p99.9 and p99 with at least
 * EXPLAIN_STALL_MIN_BEYOND samples beyond it (never the max: one sample is no pattern). */
static const explain_range *stall_tail(const explain_dist *d, double *q)
{
    if (!d->samples_known)
        return NULL;
    if (d->p999.known && d->samples >= (uint64_t)EXPLAIN_STALL_MIN_BEYOND * 1000) {
        *q = 99.9;
        return &d->p999;
    }
    if (d->p99.known && d->samples >= (uint64_t)EXPLAIN_STALL_MIN_BEYOND * 100) {
        *q = 99.0;
        return &d->p99;
    }
    return NULL;
}

/* The rules for a distribution that is UNKNOWN: why, and the command that decides it. */
static void unknown_lines(sink *s, const explain_dist *d, const char *lbl, const char *p99, const char *ts)
{
    int on = EXPLAIN_ON(FIOR_UNKNOWN);
    explain_line *l;
    if (d->too_few)
        l = add(s, on, "too-few-samples", ADVICE_FEW, "%s: too few samples to judge a p99", lbl);
    else if (!d->samples_known && d->p99.known && d->origin == EXPLAIN_DISK_TEST) {
        int below = d->p99.hi < d->threshold_ns, above = d->p99.lo >= d->threshold_ns;
        l = add(s, on, "no-count", ADVICE_NO_COUNT, "%s: the input shows a p99 of %s, %s the %s threshold, but not "
                "how many syncs it rests on: a p99 of a handful proves no %s", lbl, p99,
                below ? "below" : above ? "at or above" : "at", ts, below ? "PASS" : "verdict");
    } else if (d->straddle)
        l = add(s, on, "bucket-straddle", ADVICE_STRADDLE, "%s: etcd's histogram puts the p99 at %s, across the %s "
                "threshold", lbl, p99, ts);
    else
        l = add(s, on, "undecided", ADVICE_UNDECIDED, "%s: %s", lbl, d->reason ? d->reason : "no verdict");
    set_next(l, d);
}

/* stalls: the tail's pattern, on the evidence stall_tail allows, never against the verdict (1 when it
 * fired). */
static int stall_line(sink *s, const explain_dist *d, const char *lbl, const char *p50, const char *ts)
{
    uint64_t T = d->threshold_ns, p50hi = d->p50.hi ? d->p50.hi : 1;
    double q = 0;
    const explain_range *tail = stall_tail(d, &q);
    if (!tail || !d->p50.known || d->p50.hi >= T / EXPLAIN_P50_FINE_DIV || tail->lo / EXPLAIN_STALL_RATIO < p50hi)
        return 0;
    /* a FAIL: a tail at T/2 shapes it; a PASS: only a tail over T is worth a word (its p99 passed) */
    if (d->verdict == FIOR_FAIL ? tail->lo < T / EXPLAIN_P50_FINE_DIV : tail->lo < T)
        return 0;
    char tl[80];
    explain_fmt_range(tl, sizeof tl, tail);
    unsigned long long ratio = (unsigned long long)(tail->lo / p50hi);
    unsigned long long beyond = (unsigned long long)((double)d->samples * (100.0 - q) / 100.0 + 0.5);
    explain_line *l;
    if (d->verdict == FIOR_FAIL)
        l = add(s, EXPLAIN_ON(FIOR_FAIL), "stalls", ADVICE_STALLS, "%s: p50 %s is fine but the p%g is %s, %llux the "
                "p50 (~%llu samples beyond it): periodic stalls fail it, not slow writes throughout", lbl, p50, q, tl,
                ratio, beyond);
    else
        l = add(s, EXPLAIN_ON(FIOR_PASS), "stalls", ADVICE_STALLS_PASS, "%s: the p99 passes, but the p%g is %s, at "
                "or above the %s threshold and %llux the p50 %s (~%llu samples beyond it): periodic stalls", lbl, q,
                tl, ts, ratio, p50, beyond);
    if (l)
        l->quantile = q;
    return 1;
}

/* The per-distribution rules. */
static void explain_dist_lines(sink *s, const explain_dist *d)
{
    uint64_t T = d->threshold_ns;
    char p50[80], p99[80], ts[32];
    fior_format_ns(ts, sizeof ts, T);
    explain_fmt_range(p50, sizeof p50, &d->p50);
    explain_fmt_range(p99, sizeof p99, &d->p99);
    const char *lbl = d->label ? d->label : "latency";
    if (d->origin == EXPLAIN_CHECK_PERF && d->verdict == FIOR_NOT_JUDGED) {
        set_next(add(s, EXPLAIN_ON(FIOR_NOT_JUDGED), "check-perf-pass", ADVICE_CHECK_PERF_PASS, "%s passed (%s): etcd "
                     "as a whole kept up with its test load; it times no fdatasync or commit, so it cannot show the "
                     "disk meets etcd's thresholds", lbl, d->summary && d->summary[0] ? d->summary : "no figures"),
                 d);
        return;
    }
    if (d->verdict == FIOR_UNKNOWN) {
        unknown_lines(s, d, lbl, p99, ts);
        return;
    }
    if (d->verdict == FIOR_NOT_JUDGED || T == 0)
        return;
    int stalls = stall_line(s, d, lbl, p50, ts);
    if (d->verdict == FIOR_FAIL) {
        if (d->p50.known && d->p50.lo >= T / EXPLAIN_P50_FINE_DIV)
            add(s, EXPLAIN_ON(FIOR_FAIL), "slow-throughout", ADVICE_SLOW, "%s: even the p50 (%s) is at least half the "
                "%s threshold: every write is slow, the disk is too slow for etcd", lbl, p50, ts);
        else if (!stalls)
            add(s, EXPLAIN_ON(FIOR_FAIL), "slow-tail", ADVICE_TAIL, "%s: p99 %s >= %s while the p50 is %s: the "
                "slowest writes are slow, most are not", lbl, p99, ts, d->p50.known ? p50 : "unknown");
        return;
    }
    if (d->verdict != FIOR_PASS || !d->p99.known)
        return;
    if (d->p99.hi > T / EXPLAIN_MARGIN_FACTOR)
        add(s, EXPLAIN_ON(FIOR_PASS), "thin-margin", ADVICE_THIN, "%s: p99 %s is below the %s threshold with little "
            "headroom (within %dx of it)", lbl, p99, ts, EXPLAIN_MARGIN_FACTOR);
    else
        add(s, EXPLAIN_ON(FIOR_PASS), "headroom", ADVICE_HEADROOM, "%s: p99 %s, %.1fx below the %s threshold",
            lbl, p99, (double)T / (double)(d->p99.hi ? d->p99.hi : 1), ts);
}

static const explain_dist *find(const explain_facts *f, explain_origin o, int role, fior_verdict v)
{
    for (size_t i = 0; i < f->ndist; i++)
        if (f->dist[i].origin == o && (role < 0 || (int)f->dist[i].role == role) && f->dist[i].verdict == v)
            return &f->dist[i];
    return NULL;
}

static int is_fs(const char *t, const char *name)
{
    return t && !strcmp(t, name);
}

/* rollover: only beside a judged WAL of the same run, and its advice against the filesystem measured. */
static void rollover_line(sink *s, const explain_facts *f)
{
    if (!f->rollover_known || !f->rollovers || !f->wal_threshold_ns || f->rollover_worst_ns < f->wal_threshold_ns)
        return;
    const explain_dist *w = find(f, EXPLAIN_DISK_TEST, FIOR_ROLE_WAL, FIOR_FAIL);
    if (!w)
        w = find(f, EXPLAIN_DISK_TEST, FIOR_ROLE_WAL, FIOR_PASS);
    if (!w)
        return;
    char a[32], b[32];
    fior_format_ns(a, sizeof a, f->rollover_worst_ns);
    fior_format_ns(b, sizeof b, f->wal_threshold_ns);
    int good_fs = is_fs(f->fs_type, "ext4") || is_fs(f->fs_type, "xfs");
    add(s, EXPLAIN_ON(w->verdict), "rollover", good_fs ? ADVICE_ROLLOVER_FS : ADVICE_ROLLOVER, "the slowest of %llu "
        "WAL segment rollovers took %s (>= %s)%s%s: etcd's writes wait that long every 64 MB",
        (unsigned long long)f->rollovers, a, b, f->fs_type && f->fs_type[0] ? " on " : "",
        f->fs_type ? f->fs_type : "");
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
            add(&s, EXPLAIN_ON(FIOR_FAIL), "backend-only", o == EXPLAIN_DISK_TEST ? ADVICE_BACKEND_DISK : ADVICE_BACKEND,
                "%s fails while %s passes: the cost is in large bbolt commits (%s), not in the fsync path", b->label,
                w->label, o == EXPLAIN_DISK_TEST ? "several pages written, then synced" : "db size, fragmentation, "
                "compaction");
    }
    rollover_line(&s, f);
    int disk_tested = 0;
    for (size_t i = 0; i < f->ndist; i++)
        disk_tested |= f->dist[i].origin == EXPLAIN_DISK_TEST && f->dist[i].verdict != FIOR_NOT_JUDGED;
    if (!find(f, EXPLAIN_DISK_TEST, -1, FIOR_FAIL)) {
        for (size_t i = 0; i < f->ndist; i++) {
            const explain_dist *e = &f->dist[i];
            if (e->verdict != FIOR_FAIL || e->origin == EXPLAIN_DISK_TEST)
                continue;
            const explain_dist *d = find(f, EXPLAIN_DISK_TEST, e->origin == EXPLAIN_CHECK_PERF ? -1 : (int)e->role,
                                         FIOR_PASS);
            if (d) {
                add(&s, EXPLAIN_ON(FIOR_FAIL), "not-the-disk", ADVICE_NOT_DISK, "%s fails while the disk test's %s "
                    "passes: the slowness comes from how etcd runs (CPU, other I/O, neighbours), not from the disk",
                    e->label, d->label);
                break;
            }
        }
    }
    const explain_dist *cp = find(f, EXPLAIN_CHECK_PERF, -1, FIOR_FAIL);
    if (cp && !disk_tested)
        set_next(add(&s, EXPLAIN_ON(FIOR_FAIL), "check-perf-fail", ADVICE_CHECK_PERF_FAIL, "%s failed (%s): etcd as "
                     "a whole is too slow for its test load; whether the disk is why, it cannot say", cp->label,
                     cp->summary && cp->summary[0] ? cp->summary : "no figures"),
                 cp);
    return s.n;
}

void explain_undecided(explain_line *l, const char *reason, const char *next)
{
    memset(l, 0, sizeof *l);
    l->rule = "undecided";
    l->advice = ADVICE_UNDECIDED;
    l->on = EXPLAIN_ON(FIOR_UNKNOWN);
    snprintf(l->why, sizeof l->why, "%s", reason && reason[0] ? reason : "no verdict could be proven");
    if (next && next[0])
        snprintf(l->next, sizeof l->next, "%s", next);
    else
        explain_check_cmd(l->next, sizeof l->next, NULL, NULL);
}

size_t explain_env_lines(const explain_env *e, explain_line *out, size_t max)
{
    sink s = {out, 0, max};
    if (!e || !out)
        return 0;
    if (e->weak_options && e->weak_options[0])
        add(&s, 0, "unsafe-mount", ADVICE_UNSAFE_MOUNT, "%s is mounted %s: fdatasync may return before the data is "
            "on stable storage%s, so these figures can be faster than what a power cut keeps", e->fs_desc ? e->fs_desc
            : "the filesystem", e->weak_options, e->write_cache && !strcmp(e->write_cache, "write through")
            ? " (the disk reports a write-through cache, which makes nobarrier less harmful)" : "");
    if (e->memory_pressure)
        add(&s, 0, "memory-pressure", ADVICE_MEMORY, "memory pressure during the run (%s): a slow result may be the "
            "memory, not the disk", e->memory_text ? e->memory_text : "seen");
    return s.n;
}

/* ---- from the library's types ---- */

uint64_t explain_in_range(const fior_job *j, uint64_t ns)
{
    if (!j || j->bucketed || ns == UINT64_MAX || !j->max_ns || j->min_ns > j->max_ns)
        return ns;
    return ns > j->max_ns ? j->max_ns : ns < j->min_ns ? j->min_ns : ns;
}

static explain_range in_range(const fior_job *j, explain_range r)
{
    if (r.known) {
        r.lo = explain_in_range(j, r.lo);
        r.hi = explain_in_range(j, r.hi);
    }
    return r;
}

static explain_range from_pct(const fior_job *j, double p)
{
    explain_range r = {0, 0, 0};
    uint64_t res = fior__job_print_resolution(j);
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

/* A directory under /dev, /run, /proc or /sys ("/dev/shm", "/tmp/../dev//shm"): memory or the kernel's,
 * never where etcd keeps its data, so no command names it. The first component of the path once "." and
 * ".." are walked decides (a relative path: not known, so not excluded). */
static int kernel_dir(const char *d)
{
    static const char *const roots[] = {"dev", "run", "proc", "sys"};
    const char *first = NULL;
    size_t first_len = 0, depth = 0;
    if (d[0] != '/')
        return 0;
    for (const char *c = d; *c;) {
        while (*c == '/')
            c++;
        size_t n = strcspn(c, "/");
        if (!n)
            break;
        if (n == 2 && !strncmp(c, "..", 2))
            depth = depth ? depth - 1 : 0;
        else if (!(n == 1 && c[0] == '.')) {
            if (!depth) {
                first = c;
                first_len = n;
            }
            depth++;
        }
        c += n;
    }
    for (size_t i = 0; first && i < sizeof roots / sizeof roots[0]; i++)
        if (first_len == strlen(roots[i]) && !strncmp(first, roots[i], first_len))
            return 1;
    return 0;
}

const char *explain_role_label(explain_origin origin, fior_role role)
{
    static const char *const labels[3][2] = {{"WAL fdatasync", "backend commit"},
                                             {"etcd's WAL fsync", "etcd's backend commit"},
                                             {"etcdctl check perf", "etcdctl check perf"}};
    return labels[(unsigned)origin < 3 ? origin : 0][role == FIOR_ROLE_BACKEND];
}

void explain_dist_from_job(explain_dist *d, const fior_job *j, const fior_judgement *jd, uint64_t min_samples)
{
    memset(d, 0, sizeof *d);
    d->role = j->role;
    d->origin = j->role == FIOR_ROLE_CHECK_PERF ? EXPLAIN_CHECK_PERF
                : j->bucketed                   ? EXPLAIN_ETCD_METRICS
                                                : EXPLAIN_DISK_TEST;
    d->label = explain_role_label(d->origin, j->role);
    d->verdict = jd->verdict;
    d->reason = jd->reason;
    d->threshold_ns = jd->threshold_ns;
    d->too_few = jd->verdict == FIOR_UNKNOWN && j->samples_known && j->samples < min_samples;
    d->samples_known = j->samples_known;
    d->samples = j->samples;
    d->summary = j->summary;
    /* the command that decides it: the check where fio ran (its directory= option, a single one), else on
     * etcd's usual data directory; a scrape's URL scraped over a window for too few samples */
    const char *dir = j->directory && !strchr(j->directory, ':') && !kernel_dir(j->directory) ? j->directory : NULL;
    if (d->origin == EXPLAIN_ETCD_METRICS && d->too_few && j->source &&
        (!strncmp(j->source, "http://", 7) || !strncmp(j->source, "https://", 8)) && shell_plain(j->source))
        snprintf(d->next, sizeof d->next, "etcd-fio verdict --interval 300 %s", j->source);
    else
        explain_check_cmd(d->next, sizeof d->next, NULL, d->origin == EXPLAIN_DISK_TEST ? dir : NULL);
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
    d->p50 = in_range(j, from_pct(j, 50.0));
    d->p99 = in_range(j, from_pct(j, 99.0));
    d->p999 = in_range(j, from_pct(j, 99.9));
    if (j->max_ns) {
        d->max.known = 1;
        d->max.lo = d->max.hi = j->max_ns;
    }
}
