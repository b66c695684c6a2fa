/* SPDX-License-Identifier: MIT */
/* verdict.c — judges a job's sync latency the way etcd needs it: the requested percentile (default p99)
 * of fdatasync must be below 10 ms for the WAL and 25 ms for bbolt backend commits. Every doubt is UNKNOWN,
 * never PASS: a value printed rounded to usec/msec only passes when even its upper bound is below the
 * threshold, and only fails when even its lower bound is at or above it. What made the samples (a flush
 * to a disk or not, the job's end, tmpfs) is judged in verdict_source.c. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

/* "2.54 ms", "159 ms", "850 us", "10 ms": three significant digits (rounded half up), trailing zeros
 * dropped. Integer arithmetic: a fleet's report formats thousands of these, and printf's float path
 * would take a quarter of `etcd-fio verdict`'s time on a 1000-job normal output (bench/parser.sh). */
char *fior_format_ns(char *out, size_t n, uint64_t ns)
{
    static const struct { uint64_t div; const char *unit; } u[] = {
        {1000000000ull, "s"}, {1000000ull, "ms"}, {1000ull, "us"}, {1, "ns"},
    };
    size_t k = 0;
    while (k < 3 && ns < u[k].div)
        k++;
    uint64_t d = u[k].div, whole = ns / d;
    unsigned prec = d == 1 || whole >= 100 ? 0 : whole >= 10 ? 1 : 2;
    uint64_t scale = prec == 2 ? 100 : prec == 1 ? 10 : 1, step = d / scale;
    uint64_t q = ns / step + (ns % step >= step - step / 2 ? 1 : 0); /* value × scale, rounded */
    uint64_t ip = q / scale, fp = q % scale;
    if (prec == 2 && fp % 10 == 0) {
        fp /= 10;
        prec = 1;
    }
    if (fp == 0)
        prec = 0;
    char num[32], *e = num + sizeof num;
    *--e = '\0';
    for (unsigned i = 0; i < prec; i++, fp /= 10)
        *--e = (char)('0' + fp % 10);
    if (prec)
        *--e = '.';
    do
        *--e = (char)('0' + ip % 10);
    while (ip /= 10);
    if (out && n)
        snprintf(out, n, "%s %s", e, u[k].unit);
    return out;
}

static void fmt_pct(char *out, size_t n, double p)
{
    snprintf(out, n, "p%.6g", p);
}

/* fio 3.31–3.40 time the sync of an async engine from a stale issue time: the numbers are garbage.
 * 1: libaio on an affected (or unknown) fio version. 2: the engine is not in the input (a pasted result
 * block) and the fio version does not rule the bug out, and the max sync time is implausibly long
 * (the bug's signature, e.g. max=328998k usec). 0 otherwise. */
#define FIOR__IMPLAUSIBLE_SYNC_NS (60ULL * 1000000000ULL)

static int libaio_garbage(const fior_job *j)
{
    int ma, mi;
    int affected = fior__fio_version(j->fio_version, &ma, &mi) || (ma == 3 && mi >= 31 && mi <= 40);
    if (!j->ioengine)
        return affected && j->max_ns > FIOR__IMPLAUSIBLE_SYNC_NS ? 2 : 0;
    return !strcmp(j->ioengine, "libaio") && affected;
}

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

static uint64_t lower(uint64_t v, uint64_t res)
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

static uint64_t fio_bucket_lo(uint64_t v)
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
    uint64_t w = 1ULL << (msb(v) - 6), lo = fio_bucket_lo(v);
    return lo > UINT64_MAX - (w - 1) ? UINT64_MAX : lo + w - 1;
}

/* "8 ms"/"16 ms" → "between 8 and 16 ms"; the unit once when both share it. */
static void span_str(char *out, size_t n, uint64_t lo, uint64_t hi)
{
    char a[32], b[32];
    fior_format_ns(a, sizeof a, lo);
    if (hi == UINT64_MAX) {
        snprintf(out, n, "above %s", a);
        return;
    }
    fior_format_ns(b, sizeof b, hi);
    if (!lo) {
        snprintf(out, n, "at most %s", b);
        return;
    }
    const char *ua = strchr(a, ' '), *ub = strchr(b, ' ');
    if (!strcmp(a, b)) /* edges closer than 3 significant digits tell apart */
        snprintf(out, n, "between %llu and %llu ns", (unsigned long long)lo, (unsigned long long)hi);
    else if (ua && ub && !strcmp(ua, ub))
        snprintf(out, n, "between %.*s and %s", (int)(ua - a), a, b);
    else
        snprintf(out, n, "between %s and %s", a, b);
}

/* Bucket rule (Prometheus histograms: only the edges of the bucket holding the percentile are known, and
 * etcd's buckets are a factor of 2 wide): PASS only when the bucket's upper edge is below the threshold
 * (le is inclusive, so an edge equal to it does not prove p < T), FAIL only when its lower edge is at or
 * above it, else UNKNOWN with the bucket. */
static fior_verdict judge_buckets(const fior_job *j, const fior_criteria *c, uint64_t T, fior__judged *o,
                                  const char *what, const char *ps, const char *ts)
{
    const char *when = j->window ? "in the window" : "since etcd started";
    char span[80];
    if (j->defect)
        return fior__vsay(o, FIOR_UNKNOWN, "%s (%s histogram)", j->defect, what);
    if (!j->samples_known || j->samples == 0)
        return fior__vsay(o, FIOR_UNKNOWN, "no %ss %s: put load on etcd or scrape over a longer window", what, when);
    if (j->samples < c->min_samples)
        return fior__vsay(o, FIOR_UNKNOWN, "only %llu %ss %s (need %llu)", (unsigned long long)j->samples, what, when,
                   (unsigned long long)c->min_samples);
    uint64_t lo, hi;
    if (fior__bucket_locate(j->buckets, j->nbuckets, c->percentile, &lo, &hi))
        return fior__vsay(o, FIOR_UNKNOWN, "no %ss in the buckets", what);
    span_str(span, sizeof span, lo, hi);
    /* _sum/_count: a mean below the floor means some of the syncs took less than any flush to a device
     * takes (below half the floor: most of them, the median too), whatever bucket the percentile fell in.
     * etcd syncs its WAL only after writing to it, so none of them is an empty fsync. */
    if (hi < T && c->floor_ns && j->mean_ns > 0 && j->mean_ns < (double)c->floor_ns) {
        char m[32], fl[32];
        fior_format_ns(m, sizeof m, (uint64_t)j->mean_ns);
        fior_format_ns(fl, sizeof fl, c->floor_ns);
        return fior__vsay(o, FIOR_UNKNOWN, "etcd's data dir is not on a disk: its %ss %s average %s (_sum/_count, "
                          "%llu of them), below the %s any flush to a device takes (tmpfs?)", what, when, m,
                          (unsigned long long)j->samples, fl);
    }
    if (hi < T) {
        o->j.value_known = 1;
        o->j.value_ns = hi;
        return fior__vsay(o, FIOR_PASS, "%s %s < %s (%s, %llu %s)", ps, span, ts, what, (unsigned long long)j->samples, when);
    }
    if (lo >= T) {
        o->j.value_known = 1;
        o->j.value_ns = lo;
        return fior__vsay(o, FIOR_FAIL, "%s %s >= %s (%s, %llu %s)", ps, span, ts, what, (unsigned long long)j->samples,
                   when);
    }
    return fior__vsay(o, FIOR_UNKNOWN, "%s %s: the histogram bucket straddles the %s threshold (%s, %llu %s)", ps, span, ts,
               what, (unsigned long long)j->samples, when);
}

/* `etcdctl check perf` judges etcd as a whole (disk, CPU, network, and its own load): its FAIL is a proven
 * FAIL, its PASS is no proof about a disk. */
static fior_verdict judge_check_perf(const fior_job *j, fior__judged *o)
{
    const char *sum = j->summary && j->summary[0] ? j->summary : "no check lines";
    if (j->check_verdict == FIOR_FAIL)
        return fior__vsay(o, FIOR_FAIL, "etcdctl check perf failed: %s (etcd as a whole, not only the disk)", sum);
    if (j->check_verdict == FIOR_PASS)
        return fior__vsay(o, FIOR_NOT_JUDGED, "etcdctl check perf passed: %s (etcd as a whole: no disk verdict)", sum);
    return fior__vsay(o, FIOR_UNKNOWN, "etcdctl check perf did not finish (no final PASS/FAIL line): %s", sum);
}

static fior_verdict judge_exact(const fior_job *j, const fior_criteria *c, fior__judged *o);

fior_verdict fior__judge_job(const fior_job *j, const fior_criteria *cin, fior__judged *o)
{
    fior_criteria c;
    fior__criteria_default(&c);
    if (cin)
        c = *cin;
    memset(o, 0, sizeof *o);
    o->j.size = sizeof o->j; /* every judgement the library hands out is made here (FIOR_HAS) */
    o->j.reason = o->reason;
    if (!j)
        return fior__vsay(o, FIOR_UNKNOWN, "no job");
    if (j->role == FIOR_ROLE_CHECK_PERF)
        return judge_exact(j, &c, o);
    if (j->bucketed) { /* etcd's /metrics never show the medium: a PASS says it was inferred */
        judge_exact(j, &c, o);
        return fior__vmedium_rule(j, o);
    }
    judge_exact(j, &c, o);
    fior__vtmpfs_rule(j, o);
    fior__vmedium_rule(j, o);
    return fior__vend_rule(j, &c, o);
}

/* No syncs (none counted, or no sync line): a contradiction when latencies are given anyway, else why
 * there are none (fior__vno_timed_syncs). */
static fior_verdict no_syncs(const fior_job *j, fior__judged *o)
{
    int latencies = j->max_ns > 0;
    for (size_t i = 0; !latencies && i < j->npct; i++)
        latencies = j->pct[i].ns > 0;
    if (latencies) /* "no syncs" beside sync latencies: the input contradicts itself */
        return fior__vsay(o, FIOR_UNKNOWN, "sync latencies are given but the sync count is 0 or the sync line is "
                   "missing (input edited or cut?)");
    if (j->latency_untimed)
        return fior__vsay(o, FIOR_UNKNOWN, "sync latencies not recorded (gtod_reduce=1)");
    return fior__vno_timed_syncs(j, o);
}

/* fio's percentiles never go down and each is printed once: anything else is an edited or broken input,
 * and whichever entry were believed (the last one, say) could turn it into a PASS. 1 after saying so. */
static int pct_list_broken(const fior_job *j, fior__judged *o)
{
    char qs[32], vs[32];
    for (size_t i = 1; i < j->npct; i++) {
        const fior_pct *a = &j->pct[i - 1], *b = &j->pct[i];
        if (fabs(a->percent - b->percent) < 1e-9 && a->ns != b->ns) {
            fmt_pct(qs, sizeof qs, b->percent);
            fior__vsay(o, FIOR_UNKNOWN, "percentile list gives %s twice, with different values", qs);
            return 1;
        }
        if (b->ns < a->ns) {
            fmt_pct(qs, sizeof qs, a->percent);
            fmt_pct(vs, sizeof vs, b->percent);
            fior__vsay(o, FIOR_UNKNOWN, "percentile list goes down (%s above %s): not fio's", qs, vs);
            return 1;
        }
    }
    return 0;
}

/* Every sample lies at or below the max, so a percentile's histogram bucket (the whole range its printed
 * value can stand for) starts at or below the max: one that starts above it is an edited input, and
 * holding its figure within [min, max] (fior__job_in_range) would print a value on the other side of a
 * threshold than the verdict. 1 after saying so. */
static int pct_above_max(const fior_job *j, fior__judged *o)
{
    char qs[32], vs[32], ms[32];
    uint64_t res = j->pct_resolution_ns ? j->pct_resolution_ns : 1;
    for (size_t i = 0; j->max_ns && i < j->npct; i++) {
        const fior_pct *p = &j->pct[i];
        if (fio_bucket_lo(lower(p->ns, res)) > fior__vupper(j->max_ns, res)) {
            fmt_pct(qs, sizeof qs, p->percent);
            fior_format_ns(vs, sizeof vs, p->ns);
            fior_format_ns(ms, sizeof ms, j->max_ns);
            fior__vsay(o, FIOR_UNKNOWN, "the %s (%s) lies above the max (%s): the input contradicts itself", qs,
                       vs, ms);
            return 1;
        }
    }
    return 0;
}

/* The verdict from fio's percentile list (ascending, over enough samples): the entry of the requested
 * percentile, or the neighbours that decide it. */
static fior_verdict judge_percentile(const fior_job *j, double percentile, uint64_t T, fior__judged *o,
                                     const char *what, const char *ps, const char *ts)
{
    char vs[32], qs[32];
    uint64_t res = j->pct_resolution_ns ? j->pct_resolution_ns : 1;
    const fior_pct *exact = NULL, *above = NULL, *below = NULL;
    for (size_t i = 0; i < j->npct; i++) {
        const fior_pct *p = &j->pct[i];
        if (fabs(p->percent - percentile) < 1e-9)
            exact = p;
        else if (p->percent > percentile && (!above || p->percent < above->percent))
            above = p;
        else if (p->percent < percentile && (!below || p->percent > below->percent))
            below = p;
    }
    /* a value at or above the percentile that is below T proves PASS; one at or below it that is at or
     * above T proves FAIL. Both at once means the list contradicts itself. "Below" means the whole range
     * the printed value can stand for: its print unit, then fio's histogram bucket. */
#define HI(p) fior__vbucket_hi(fior__vupper((p)->ns, res))
#define LO(p) fio_bucket_lo(lower((p)->ns, res))
    const fior_pct *pass = NULL, *fail = NULL;
    if (exact && HI(exact) < T)
        pass = exact;
    else if (above && HI(above) < T)
        pass = above;
    if (exact && LO(exact) >= T)
        fail = exact;
    else if (below && LO(below) >= T)
        fail = below;
    if (pass && fail)
        return fior__vsay(o, FIOR_UNKNOWN, "percentile list contradicts itself (not ascending)");
    const fior_pct *used = pass ? pass : fail ? fail : exact;
    if (used) {
        o->j.value_known = 1;
        o->j.value_ns = fior__job_in_range(j, used->ns); /* the verdict is the bin's; the figure shown is held
                                                         * within [min, max] */
        fior_format_ns(vs, sizeof vs, o->j.value_ns);
        fmt_pct(qs, sizeof qs, used->percent);
    }
    if (pass == exact && pass)
        return fior__vsay(o, FIOR_PASS, "%s %s < %s (%s)", ps, vs, ts, what);
    if (pass)
        return fior__vsay(o, FIOR_PASS, "%s %s < %s proves %s < %s (%s)", qs, vs, ts, ps, ts, what);
    if (fail == exact && fail)
        return fior__vsay(o, FIOR_FAIL, "%s %s >= %s (%s)", ps, vs, ts, what);
    if (fail)
        return fior__vsay(o, FIOR_FAIL, "%s %s >= %s proves %s >= %s (%s)", qs, vs, ts, ps, ts, what);
    if (exact) {
        char span[80];
        span_str(span, sizeof span, LO(exact), HI(exact));
        return fior__vsay(o, FIOR_UNKNOWN, "%s %s may be anywhere %s (fio's histogram bucket%s), across the %s "
                   "threshold (%s)", ps, vs, span, res > 1 ? " and print unit" : "", ts, what);
    }
#undef HI
#undef LO
    return fior__vsay(o, FIOR_UNKNOWN, "%s not in the percentile list and its neighbours do not decide it against %s (%s)",
               ps, ts, what);
}

static fior_verdict judge_exact(const fior_job *j, const fior_criteria *cin, fior__judged *o)
{
    fior_criteria c = *cin;
    if (j->role == FIOR_ROLE_CHECK_PERF) /* no threshold of ours: etcdctl's own verdict */
        return judge_check_perf(j, o);
    int backend = j->role == FIOR_ROLE_BACKEND;
    const char *what = j->bucketed ? (backend ? "backend commit" : "WAL fsync")
                                   : backend ? "backend commit" : "WAL fdatasync";
    uint64_t T = fior_criteria_threshold(&c, j->role);
    o->j.threshold_ns = T;
    char ts[32], ps[32], vs[32];
    fior_format_ns(ts, sizeof ts, T);
    fmt_pct(ps, sizeof ps, c.percentile);

    if (!(c.percentile > 0 && c.percentile < 100) || T == 0)
        return fior__vsay(o, FIOR_UNKNOWN, "invalid criteria (percentile must be in (0,100), threshold > 0)");
    if (j->defect && !j->bucketed) /* a bucketed job's defect is told with its histogram below */
        return fior__vsay(o, FIOR_UNKNOWN, "%s", j->defect);
    if (j->error)
        return fior__vsay(o, FIOR_UNKNOWN, "fio reported err=%d (%s) for this job", j->error,
                          j->error_text ? j->error_text : "no text");
    if (j->bucketed)
        return judge_buckets(j, &c, T, o, what, ps, ts);
    if (!j->has_sync || (j->samples_known && j->samples == 0))
        return no_syncs(j, o);
    /* fio 3.4-3.17 count an end_fsync among the syncs without timing it (a count of 1, latencies of 0) */
    if ((j->sync_flags & FIOR_SYNC_END_FSYNC) && !(j->sync_flags & (FIOR_SYNC_FSYNC | FIOR_SYNC_FDATASYNC)) &&
        (j->sync_flags & FIOR_SYNC_OPTIONS))
        return fior__vno_timed_syncs(j, o);
    if (j->latency_untimed)
        return fior__vsay(o, FIOR_UNKNOWN, "sync latencies not trustworthy (gtod_reduce=1)");
    switch (libaio_garbage(j)) {
    case 1:
        return fior__vsay(o, FIOR_UNKNOWN, "%s with ioengine=libaio times syncs from a stale issue time "
                   "(fio 3.31-3.40 bug): latencies are garbage",
                   j->fio_version ? j->fio_version : "unknown fio version");
    case 2:
        fior_format_ns(vs, sizeof vs, j->max_ns);
        return fior__vsay(o, FIOR_UNKNOWN, "max sync latency %s is implausible and the ioengine is not in the input "
                   "(fio 3.31-3.40 libaio bug?)", vs);
    }
    int all_zero = j->max_ns == 0;
    for (size_t i = 0; all_zero && i < j->npct; i++)
        all_zero = j->pct[i].ns == 0;
    if (all_zero)
        return fior__vsay(o, FIOR_UNKNOWN, "all sync latencies are 0 (timing off, e.g. gtod_reduce)");
    if (fior__vnot_a_flush(j, &c, o))
        return o->j.verdict;
    /* A percentile over too few samples proves nothing; an unknown count cannot show it is enough. */
    if (!j->samples_known)
        return fior__vsay(o, FIOR_UNKNOWN, "the number of sync samples is not in the input: the %s may rest on a "
                   "handful (need %llu; fio's JSON output has the count)%s%s", ps, (unsigned long long)c.min_samples,
                   j->end == FIOR_END_UNKNOWN && j->end_reason ? "; " : "",
                   j->end == FIOR_END_UNKNOWN && j->end_reason ? j->end_reason : "");
    if (j->samples < c.min_samples)
        return fior__vsay(o, FIOR_UNKNOWN, "only %llu sync samples (need %llu)", (unsigned long long)j->samples,
                   (unsigned long long)c.min_samples);
    if (!j->npct)
        return fior__vsay(o, FIOR_UNKNOWN, "sync samples but no %s in the input (percentiles missing)", ps);
    if (pct_list_broken(j, o) || pct_above_max(j, o))
        return o->j.verdict;
    return judge_percentile(j, c.percentile, T, o, what, ps, ts);
}
