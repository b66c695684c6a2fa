/* SPDX-License-Identifier: MIT */
/* job.c — what every reader builds with: a job under construction (fior__jobb: fields, percentiles, bins,
 * buckets), the report's job storage (push, replace, truncate, move: how a scratch report hands over its
 * jobs only when the whole input was read), error messages, the ioengine/etcd_mode role rule and the
 * number parsers the text readers share. The public handle and the fior_parse_* entry points are in
 * report.c. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* ---- jobs ---- */

void fior__job_init(fior__jobb *b)
{
    memset(b, 0, sizeof *b);
    b->j.size = FIOR__JOB_PUBLIC_SIZE; /* every job a report holds starts here (fioreport.h: FIOR_HAS); the
                                        * private fields after it are no program's (job_private.h) */
    b->j.port = -1;
    b->j.group = -1;
    b->j.pid = -1;
    b->j.pct_resolution_ns = 1;
    b->j.check_verdict = -1;
}

uint64_t fior__job_in_range(const fior_job *j, uint64_t ns)
{
    if (!j || j->bucketed || ns == UINT64_MAX || !j->max_ns || j->min_ns > j->max_ns)
        return ns;
    return ns > j->max_ns ? j->max_ns : ns < j->min_ns ? j->min_ns : ns;
}

static void job_free_fields(fior_job *j)
{
    free((char *)j->source);
    free((char *)j->host);
    free((char *)j->name);
    free((char *)j->ioengine);
    free((char *)j->fio_version);
    free((char *)j->etcd_mode);
    free((fior_pct *)j->pct);
    free((fior_bin *)j->bins);
    free((fior_bucket *)j->buckets);
    free((char *)j->defect);
    free((char *)j->etcd_member);
    free((char *)j->summary);
    free((char *)j->end_reason);
    free((char *)j->directory);
    free((char *)j->filename);
    free((char *)j->error_text);
    free((char *)j->medium_reason);
    free((char *)j->disk_name);
}

void fior__job_clear(fior__jobb *b)
{
    b->j.pct = b->pct;
    b->j.bins = b->bins;
    b->j.buckets = b->bk;
    job_free_fields(&b->j);
    fior__job_init(b);
}

int fior__job_set(const char **field, const char *s, size_t n)
{
    char *c = malloc(n + 1);
    if (!c)
        return -1;
    memcpy(c, s, n);
    c[n] = '\0';
    free((char *)*field);
    *field = c;
    return 0;
}

void *fior__grow(void *arr, size_t *cap, size_t n, size_t sz, size_t first)
{
    if (n < *cap)
        return arr;
    size_t nc = *cap ? *cap : first;
    while (nc <= n)
        nc *= 2;
    void *p = nc <= SIZE_MAX / sz ? realloc(arr, nc * sz) : NULL;
    if (p)
        *cap = nc;
    return p;
}

/* Appends item (sz bytes) to arr, an array of *n items and capacity *cap (fior__grow, from `first`): the
 * array, or NULL when out of memory (arr is then as it was). */
static void *push(void *arr, size_t *cap, size_t *n, size_t sz, size_t first, const void *item)
{
    char *p = fior__grow(arr, cap, *n, sz, first);
    if (p)
        memcpy(p + (*n)++ * sz, item, sz);
    return p;
}

int fior__job_add_pct(fior__jobb *b, double percent, uint64_t ns)
{
    fior_pct v = {.percent = percent, .ns = ns}, *p = push(b->pct, &b->pcap, &b->j.npct, sizeof v, 32, &v);
    if (p)
        b->j.pct = b->pct = p;
    return p ? 0 : -1;
}

int fior__job_add_bin(fior__jobb *b, uint64_t ns, uint64_t count)
{
    fior_bin v = {.ns = ns, .count = count}, *p = push(b->bins, &b->bcap, &b->j.nbins, sizeof v, 64, &v);
    if (p)
        b->j.bins = b->bins = p;
    return p ? 0 : -1;
}

int fior__job_add_bucket(fior__jobb *b, uint64_t le_ns, uint64_t count)
{
    fior_bucket v = {.le_ns = le_ns, .count = count}, *p = push(b->bk, &b->bkcap, &b->j.nbuckets, sizeof v, 16, &v);
    if (p)
        b->j.buckets = b->bk = p;
    return p ? 0 : -1;
}

static int cmp_pct(const void *a, const void *b)
{
    double x = ((const fior_pct *)a)->percent, y = ((const fior_pct *)b)->percent;
    return (x > y) - (x < y);
}

static int cmp_bin(const void *a, const void *b)
{
    uint64_t x = ((const fior_bin *)a)->ns, y = ((const fior_bin *)b)->ns;
    return (x > y) - (x < y);
}

/* fio prints both lists in order already; sorting only when they are not keeps a 1000-job report from
 * spending a tenth of its time in qsort. */
static void sort_if_needed(void *base, size_t n, size_t sz, int (*cmp)(const void *, const void *))
{
    const char *p = base;
    for (size_t i = 1; i < n; i++)
        if (cmp(p + (i - 1) * sz, p + i * sz) > 0) {
            qsort(base, n, sz, cmp);
            return;
        }
}

void fior__job_sort(fior__jobb *b)
{
    sort_if_needed(b->pct, b->j.npct, sizeof *b->pct, cmp_pct);
    sort_if_needed(b->bins, b->j.nbins, sizeof *b->bins, cmp_bin);
}

static int report_grow(fior_report *r, size_t need)
{
    fior_job *p = need ? fior__grow(r->jobs, &r->cap, need - 1, sizeof *p, 8) : r->jobs;
    if (need && !p)
        return -1;
    r->jobs = p;
    return 0;
}

/* The builder's arrays become its job's (an empty one is freed and NULL), before b->j is handed over. */
static void settle(fior__jobb *b)
{
    b->j.pct = b->j.npct ? b->pct : NULL;
    b->j.bins = b->j.nbins ? b->bins : NULL;
    if (!b->j.npct)
        free(b->pct);
    if (!b->j.nbins)
        free(b->bins);
    b->j.buckets = b->j.nbuckets ? b->bk : NULL;
    if (!b->j.nbuckets)
        free(b->bk);
}

int fior__report_push(fior_report *r, fior__jobb *b)
{
    if (report_grow(r, r->njobs + 1))
        return -1;
    settle(b);
    r->jobs[r->njobs++] = b->j;
    fior__job_init(b);
    return 0;
}

void fior__report_replace(fior_report *r, size_t i, fior__jobb *b)
{
    job_free_fields(&r->jobs[i]);
    settle(b);
    r->jobs[i] = b->j;
    fior__job_init(b);
}

void fior__report_truncate(fior_report *r, size_t n)
{
    for (size_t i = n; i < r->njobs; i++)
        job_free_fields(&r->jobs[i]);
    if (n < r->njobs)
        r->njobs = n;
}

void fior__report_clear(fior_report *r)
{
    fior__report_truncate(r, 0);
}

int fior__report_move(fior_report *dst, fior_report *src)
{
    if (report_grow(dst, dst->njobs + src->njobs))
        return -1;
    memcpy(dst->jobs + dst->njobs, src->jobs, src->njobs * sizeof *src->jobs);
    dst->njobs += src->njobs;
    src->njobs = 0;
    return 0;
}

void fior__seterr(fior_report *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->err, sizeof r->err, fmt, ap);
    va_end(ap);
}

int fior__is_etcd_engine(const char *ioengine)
{
    if (!ioengine)
        return 0;
    if (!strncmp(ioengine, "external:", 9))
        ioengine += 9;
    const char *base = strrchr(ioengine, '/');
    base = base ? base + 1 : ioengine;
    if (!strncmp(base, "lib", 3))
        base += 3;
    return !strcmp(base, "etcdwal") || !strcmp(base, "etcdwal.so");
}

fior_role fior__job_role(const char *ioengine, const char *etcd_mode, int mode_is_the_jobs)
{
    if (!etcd_mode || strcmp(etcd_mode, "backend"))
        return FIOR_ROLE_WAL;
    return mode_is_the_jobs || fior__is_etcd_engine(ioengine) ? FIOR_ROLE_BACKEND : FIOR_ROLE_WAL;
}

int fior__is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v';
}

int fior__parse_u64(const char **p, uint64_t *out)
{
    const char *s = *p;
    uint64_t v = 0;
    if (*s < '0' || *s > '9')
        return -1;
    for (; *s >= '0' && *s <= '9'; s++) {
        unsigned d = (unsigned)(*s - '0');
        if (v > (UINT64_MAX - d) / 10)
            return -1;
        v = v * 10 + d;
    }
    *out = v;
    *p = s;
    return 0;
}

int fior__parse_dec(const char **p, double *out)
{
    const char *s = *p;
    double v = 0;
    int digits = 0;
    for (; *s >= '0' && *s <= '9'; s++, digits++)
        v = v * 10 + (*s - '0');
    if (*s == '.' && s[1] >= '0' && s[1] <= '9') {
        double scale = 0.1;
        for (s++; *s >= '0' && *s <= '9'; s++, digits++, scale /= 10)
            v += (*s - '0') * scale;
    }
    if (!digits)
        return -1;
    *out = v;
    *p = s;
    return 0;
}

int fior__fio_version(const char *v, int *major, int *minor)
{
    if (!v || strncmp(v, "fio-", 4))
        return -1;
    char *end;
    long ma = strtol(v + 4, &end, 10);
    if (end == v + 4 || *end != '.')
        return -1;
    const char *m = end + 1;
    long mi = strtol(m, &end, 10);
    if (end == m || ma < 0 || mi < 0 || ma > 1000 || mi > 100000)
        return -1;
    *major = (int)ma;
    *minor = (int)mi;
    return 0;
}

uint64_t fior__job_print_resolution(const fior_job *j)
{
    return j && j->pct_resolution_ns > 1 ? j->pct_resolution_ns : 1;
}
