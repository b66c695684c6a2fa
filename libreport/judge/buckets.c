/* SPDX-License-Identifier: MIT */
/* buckets.c — arithmetic on cumulative bucket histograms (Prometheus scrapes of etcd, fmt_prom.c): which
 * bucket holds a percentile (for the bucket rule in verdict.c), and the window between two scrapes of the
 * same etcd (fior_report_window). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* smallest i with b[i].count >= k */
static size_t bucket_of_rank(const fior_bucket *b, size_t n, uint64_t k)
{
    size_t i = 0;
    while (i + 1 < n && b[i].count < k)
        i++;
    return i;
}

/* ceil(P × N / 1e8) for P = percent × 1e6 */
static uint64_t rank(uint64_t N, uint64_t P)
{
    unsigned __int128 num = (unsigned __int128)P * N, den = 100000000u;
    uint64_t k = (uint64_t)((num + den - 1) / den);
    return k ? k : 1;
}

int fior__bucket_locate(const fior_bucket *b, size_t n, double percent, uint64_t *lo_ns, uint64_t *hi_ns)
{
    if (!b || !n || !b[n - 1].count || !(percent > 0 && percent < 100))
        return -1;
    uint64_t N = b[n - 1].count;
    /* The percentile is the sample of rank ceil(p/100 × N) (nearest rank: fio's stat.c; Prometheus'
     * histogram_quantile picks the same bucket). p in millionths, exactly when it has at most 6 decimals;
     * otherwise both neighbours, and the hull of their buckets. */
    double pm = percent * 1e6, r = nearbyint(pm);
    uint64_t plo = fabs(pm - r) < 1e-6 ? (uint64_t)r : (uint64_t)floor(pm);
    uint64_t phi = fabs(pm - r) < 1e-6 ? (uint64_t)r : (uint64_t)ceil(pm);
    size_t ilo = bucket_of_rank(b, n, rank(N, plo)), ihi = bucket_of_rank(b, n, rank(N, phi));
    *lo_ns = ilo ? b[ilo - 1].le_ns : 0;
    *hi_ns = b[ihi].le_ns;
    return 0;
}

fior_status fior_bucket_bounds(const fior_bucket *b, size_t n, double percent, uint64_t *lo_ns, uint64_t *hi_ns)
{
    if (!lo_ns || !hi_ns || (n && !b) || !(percent > 0 && percent < 100))
        return FIOR_E_INVAL;
    return fior__bucket_locate(b, n, percent, lo_ns, hi_ns) ? FIOR_E_NODATA : FIOR_OK;
}

/* ---- the window between two scrapes ---- */

static int same_str(const char *a, const char *b)
{
    return (!a && !b) || (a && b && !strcmp(a, b));
}

static int partners(const fior_job *a, const fior_job *b)
{
    return b->bucketed && !b->window && a->role == b->role && same_str(a->name, b->name) &&
           same_str(a->host, b->host) && same_str(a->etcd_member, b->etcd_member);
}

static void le_str(char *out, size_t n, uint64_t le)
{
    if (le == UINT64_MAX)
        snprintf(out, n, "+Inf");
    else
        fior_format_ns(out, n, le);
}

/* Why the buckets of a and b cannot be subtracted, or "" when they can. */
static void window_defect(const fior_job *a, const fior_job *b, char *d, size_t n)
{
    d[0] = '\0';
    if (a->defect)
        snprintf(d, n, "first scrape: %s", a->defect);
    else if (b->defect)
        snprintf(d, n, "second scrape: %s", b->defect);
    else if (a->process_start_s == 0 || b->process_start_s == 0)
        snprintf(d, n, "cannot rule out an etcd restart between the scrapes (no process_start_time_seconds)");
    else if (a->process_start_s != b->process_start_s)
        snprintf(d, n, "etcd restarted between the scrapes (process_start_time_seconds changed): its counters "
                 "started again from 0");
    else if (a->nbuckets != b->nbuckets)
        snprintf(d, n, "the scrapes have different bucket edges");
    if (d[0])
        return;
    for (size_t i = 0; i < a->nbuckets; i++) {
        char le[32];
        le_str(le, sizeof le, a->buckets[i].le_ns);
        if (a->buckets[i].le_ns != b->buckets[i].le_ns) {
            snprintf(d, n, "the scrapes have different bucket edges");
            return;
        }
        /* cumulative counts, and each bucket's own count (the difference to the one below), only grow */
        uint64_t ca = a->buckets[i].count, cb = b->buckets[i].count;
        uint64_t pa = i ? a->buckets[i - 1].count : 0, pb = i ? b->buckets[i - 1].count : 0;
        if (cb < ca || (ca >= pa && cb >= pb && cb - pb < ca - pa)) {
            if (cb < ca)
                snprintf(d, n, "counter reset between the scrapes (bucket le=%s went from %llu to %llu): etcd "
                         "restarted?", le, (unsigned long long)ca, (unsigned long long)cb);
            else
                snprintf(d, n, "counter reset between the scrapes (the bucket up to le=%s went from %llu to %llu "
                         "samples): etcd restarted?", le, (unsigned long long)(ca - pa), (unsigned long long)(cb - pb));
            return;
        }
    }
}

static int make_window(const fior_job *a, const fior_job *b, fior__jobb *w)
{
    fior__job_init(w);
    char d[256];
    window_defect(a, b, d, sizeof d);
    const char *src = a->source ? a->source : "";
    size_t sl = strlen(src) + (b->source ? strlen(b->source) : 0) + 3;
    char *s = malloc(sl);
    if (!s)
        return -1;
    if (b->source && strcmp(src, b->source))
        snprintf(s, sl, "%s..%s", src, b->source);
    else
        snprintf(s, sl, "%s", src);
    w->j.source = s;
    if (fior__job_set(&w->j.name, a->name ? a->name : "", a->name ? strlen(a->name) : 0) ||
        (a->host && fior__job_set(&w->j.host, a->host, strlen(a->host))) ||
        (a->etcd_member && fior__job_set(&w->j.etcd_member, a->etcd_member, strlen(a->etcd_member))) ||
        (d[0] && fior__job_set(&w->j.defect, d, strlen(d))))
        return -1;
    w->j.role = a->role;
    w->j.port = a->port;
    w->j.line = b->line;
    w->j.has_sync = 1;
    w->j.bucketed = 1;
    w->j.window = 1;
    w->j.process_start_s = b->process_start_s;
    if (d[0])
        return 0;
    for (size_t i = 0; i < a->nbuckets; i++)
        if (fior__job_add_bucket(w, a->buckets[i].le_ns, b->buckets[i].count - a->buckets[i].count))
            return -1;
    w->j.samples_known = 1;
    w->j.samples = b->samples - a->samples;
    double sum = b->mean_ns * (double)b->samples - a->mean_ns * (double)a->samples;
    if (w->j.samples && a->mean_ns > 0 && b->mean_ns > 0 && sum >= 0)
        w->j.mean_ns = sum / (double)w->j.samples;
    return 0;
}

fior_status fior_report_window(fior_report *r)
{
    if (!r)
        return FIOR_E_INVAL;
    size_t n = r->njobs, nw = 0;
    if (!n)
        return FIOR_OK;
    size_t *last = calloc(n, sizeof *last);  /* partner index + 1 for a window's first job */
    char *gone = calloc(n, 1);               /* consumed by an earlier job's window */
    fior__jobb *w = calloc(n, sizeof *w);
    if (!last || !gone || !w)
        goto nomem;
    for (size_t i = 0; i < n; i++) {
        const fior_job *a = &r->jobs[i];
        if (gone[i] || !a->bucketed || a->window)
            continue;
        for (size_t k = i + 1; k < n; k++)
            if (!gone[k] && partners(a, &r->jobs[k])) {
                last[i] = k + 1;
                gone[k] = 1; /* the middle scrapes of a longer series drop out too */
            }
        if (last[i] && make_window(a, &r->jobs[last[i] - 1], &w[nw++]))
            goto nomem;
    }
    /* commit: nothing can fail from here on */
    size_t o = 0, wi = 0;
    for (size_t i = 0; i < n; i++) {
        if (gone[i]) {
            fior__jobb tmp;
            fior__job_init(&tmp);
            fior__report_replace(r, i, &tmp); /* frees the job's fields */
            continue;
        }
        if (last[i])
            fior__report_replace(r, i, &w[wi++]);
        r->jobs[o++] = r->jobs[i];
    }
    r->njobs = o;
    free(last);
    free(gone);
    free(w);
    return FIOR_OK;
nomem:
    for (size_t i = 0; w && i < nw; i++)
        fior__job_clear(&w[i]);
    free(last);
    free(gone);
    free(w);
    fior__seterr(r, "out of memory");
    return FIOR_E_NOMEM;
}
