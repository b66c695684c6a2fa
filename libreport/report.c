/* SPDX-License-Identifier: MIT */
/* report.c — the report handle: job storage, error messages, the capped file reader and the fior_parse_*
 * entry points (the format is detected by the reader table, readers.c). Each input is read into a scratch
 * report first so that a failing input adds nothing. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "internal.h"

/* ---- jobs ---- */

void fior__job_init(fior__jobb *b)
{
    memset(b, 0, sizeof *b);
    b->j.port = -1;
    b->j.group = -1;
    b->j.pid = -1;
    b->j.pct_resolution_ns = 1;
    b->j.check_verdict = -1;
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

int fior__job_add_pct(fior__jobb *b, double percent, uint64_t ns)
{
    fior_pct *p = fior__grow(b->pct, &b->pcap, b->j.npct, sizeof *p, 32);
    if (!p)
        return -1;
    b->pct = p;
    b->pct[b->j.npct].percent = percent;
    b->pct[b->j.npct].ns = ns;
    b->j.npct++;
    b->j.pct = b->pct;
    return 0;
}

int fior__job_add_bin(fior__jobb *b, uint64_t ns, uint64_t count)
{
    fior_bin *p = fior__grow(b->bins, &b->bcap, b->j.nbins, sizeof *p, 64);
    if (!p)
        return -1;
    b->bins = p;
    b->bins[b->j.nbins].ns = ns;
    b->bins[b->j.nbins].count = count;
    b->j.nbins++;
    b->j.bins = b->bins;
    return 0;
}

int fior__job_add_bucket(fior__jobb *b, uint64_t le_ns, uint64_t count)
{
    fior_bucket *p = fior__grow(b->bk, &b->bkcap, b->j.nbuckets, sizeof *p, 16);
    if (!p)
        return -1;
    b->bk = p;
    b->bk[b->j.nbuckets].le_ns = le_ns;
    b->bk[b->j.nbuckets].count = count;
    b->j.nbuckets++;
    b->j.buckets = b->bk;
    return 0;
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

int fior__report_push(fior_report *r, fior__jobb *b)
{
    if (report_grow(r, r->njobs + 1))
        return -1;
    b->j.pct = b->j.npct ? b->pct : NULL;
    b->j.bins = b->j.nbins ? b->bins : NULL;
    if (!b->j.npct)
        free(b->pct);
    if (!b->j.nbins)
        free(b->bins);
    b->j.buckets = b->j.nbuckets ? b->bk : NULL;
    if (!b->j.nbuckets)
        free(b->bk);
    r->jobs[r->njobs++] = b->j;
    fior__job_init(b);
    return 0;
}

void fior__report_replace(fior_report *r, size_t i, fior__jobb *b)
{
    job_free_fields(&r->jobs[i]);
    b->j.pct = b->j.npct ? b->pct : NULL;
    b->j.bins = b->j.nbins ? b->bins : NULL;
    if (!b->j.npct)
        free(b->pct);
    if (!b->j.nbins)
        free(b->bins);
    b->j.buckets = b->j.nbuckets ? b->bk : NULL;
    if (!b->j.nbuckets)
        free(b->bk);
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

/* ---- handle ---- */

fior_report *fior_report_new(void)
{
    return calloc(1, sizeof(fior_report));
}

void fior_report_free(fior_report *r)
{
    if (!r)
        return;
    fior__report_clear(r);
    free(r->jobs);
    free(r);
}

const char *fior_report_error(const fior_report *r)
{
    return r ? r->err : "no report";
}

const char *fior_strstatus(fior_status s)
{
    switch (s) {
    case FIOR_OK:       return "ok";
    case FIOR_E_INVAL:  return "invalid argument";
    case FIOR_E_NOMEM:  return "out of memory";
    case FIOR_E_IO:     return "cannot read input";
    case FIOR_E_PARSE:  return "malformed or truncated input";
    case FIOR_E_FORMAT: return "not fio output or an etcd-perf log";
    case FIOR_E_NODATA: return "no such data";
    case FIOR_E_TOOBIG: return "input larger than the cap";
    }
    return "unknown status";
}

fior_format fior_report_format(const fior_report *r)
{
    return r ? r->format : FIOR_FMT_UNKNOWN;
}

size_t fior_report_njobs(const fior_report *r)
{
    return r ? r->njobs : 0;
}

const fior_job *fior_report_job(const fior_report *r, size_t i)
{
    return (r && i < r->njobs) ? &r->jobs[i] : NULL;
}

fior_status fior_parse_buffer(fior_report *r, const char *source, const char *buf, size_t len)
{
    if (!r)
        return FIOR_E_INVAL;
    r->err[0] = '\0';
    if (!source)
        source = "(buffer)";
    if (!buf && len) {
        fior__seterr(r, "%s: no buffer", source);
        return FIOR_E_INVAL;
    }
    fior_report *tmp = fior_report_new();
    if (!tmp) {
        fior__seterr(r, "%s: out of memory", source);
        return FIOR_E_NOMEM;
    }
    fior_status st = FIOR_E_FORMAT;
    size_t i = 0, nrd;
    while (i < len && fior__is_space(buf[i]))
        i++;
    const fior__reader *rd = fior__readers(&nrd), *use = NULL;
    for (size_t k = 0; i < len && !use && k < nrd; k++)
        if (rd[k].detect(buf, len))
            use = &rd[k];
    if (i == len) {
        fior__seterr(tmp, "%s: empty input (expected fio output or an etcd-perf log)", source);
    } else if (use) {
        tmp->format = FIOR_FMT_UNKNOWN;
        st = use->parse(tmp, source, buf, len);
        if (tmp->format == FIOR_FMT_UNKNOWN)
            tmp->format = use->format;
    } else {
        fior__seterr(tmp, "%s:1: expected fio output (a job header 'NAME: (groupid=…', a JSON document), "
                     "an etcd-perf log ('INFO: 99th percentile of fsync is N ns'), a Prometheus scrape of "
                     "etcd's /metrics or `etcdctl check perf` output", source);
    }
    if (st == FIOR_OK && fior__report_move(r, tmp)) {
        fior__seterr(tmp, "%s: out of memory", source);
        st = FIOR_E_NOMEM;
    }
    if (st != FIOR_OK)
        memcpy(r->err, tmp->err, sizeof r->err);
    else
        r->format = tmp->format;
    fior_report_free(tmp);
    return st;
}

fior_status fior_report_set_max_input(fior_report *r, uint64_t bytes)
{
    if (!r || bytes == 0)
        return FIOR_E_INVAL;
    r->max_input = bytes;
    return FIOR_OK;
}

uint64_t fior_report_max_input(const fior_report *r)
{
    return r && r->max_input ? r->max_input : FIOR_MAX_INPUT_DEFAULT;
}

static fior_status too_big(fior_report *r, const char *path, uint64_t max)
{
    fior__seterr(r, "%s: byte %llu: input larger than the cap of %llu bytes", path, (unsigned long long)max + 1,
                 (unsigned long long)max);
    return FIOR_E_TOOBIG;
}

#define FIOR__CHUNK 65536

/* fior_parse_buffer takes the first reader of the table whose detect() says yes; the readers before JSON
 * look at the whole input. A file is only streamed as JSON while none of them claims what was read. */
static int earlier_claims(const char *buf, size_t len)
{
    size_t n;
    const fior__reader *rd = fior__readers(&n);
    for (size_t k = 0; k < n && strcmp(rd[k].name, "json"); k++)
        if (rd[k].detect(buf, len))
            return 1;
    return 0;
}

/* Reads f, at most `max` bytes: one byte more is the error (naming that byte), so /dev/zero or an endless
 * pipe stops at the cap instead of taking the memory. With *json (not NULL) and a regular file, reading
 * stops as soon as a line starts a JSON document and no reader before JSON claims the input so far: *json
 * says so, and parse_json_file streams the rest. */
static fior_status read_all(fior_report *r, const char *path, FILE *f, uint64_t max, char **out, size_t *outlen,
                            int *json)
{
    struct stat sb;
    size_t len = 0, cap = FIOR__CHUNK, line = 0;
    uint64_t lim = max < (uint64_t)SIZE_MAX - 1 ? max + 1 : SIZE_MAX; /* the byte that is one too many */
    const fior__reader *js = NULL;
    if (fstat(fileno(f), &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size > 0) {
        if ((uint64_t)sb.st_size > max)
            return too_big(r, path, max);
        js = json ? fior__reader_named("json") : NULL; /* seekable: parse_file can start over */
        if (!js)
            cap = (size_t)sb.st_size + 1; /* + 1: the read that sees the end */
    }
    if ((uint64_t)cap > lim)
        cap = (size_t)lim;
    char *buf = malloc(cap < FIOR__CHUNK ? FIOR__CHUNK : cap); /* a chunk at least: parse_json_file reads into it */
    if (!buf) {
        fior__seterr(r, "%s: out of memory", path);
        return FIOR_E_NOMEM;
    }
    for (;;) {
        if (len == cap) {
            if ((uint64_t)len > max) {
                free(buf);
                return too_big(r, path, max);
            }
            size_t nc = cap > SIZE_MAX / 2 ? SIZE_MAX : cap * 2;
            if ((uint64_t)nc > lim)
                nc = (size_t)lim;
            char *nb = realloc(buf, nc);
            if (!nb) {
                fior__seterr(r, "%s: out of memory after %zu bytes", path, len);
                free(buf);
                return FIOR_E_NOMEM;
            }
            buf = nb;
            cap = nc;
        }
        size_t n = fread(buf + len, 1, cap - len, f);
        len += n;
        if (n == 0) {
            if (ferror(f)) {
                fior__seterr(r, "%s: read error after %zu bytes: %s", path, len, strerror(errno));
                free(buf);
                return FIOR_E_IO;
            }
            break;
        }
        if (js && js->detect(buf + line, len - line)) { /* only the lines not looked at yet */
            if (!earlier_claims(buf, len)) {
                *json = 1;
                break;
            }
            js = NULL; /* another reader's input: read it all */
        }
        const char *nl = js ? memrchr(buf + line, '\n', len - line) : NULL;
        if (nl)
            line = (size_t)(nl - buf) + 1;
    }
    *out = buf;
    *outlen = len;
    return FIOR_OK;
}

/* JSON from the first line that starts a document on: fed to a stream chunk by chunk, so memory stays
 * bounded by the jobs read, not by the file (bench/parser.sh: a 74 MB, 20k-job file). buf holds what was
 * read before (stray lines and that first line), len bytes of it, and has room for a chunk. The bytes
 * outside the documents are kept and shown at the end to the readers the table tries before JSON: when
 * one claims them (a Prometheus scrape or `etcdctl check perf` output beside the JSON), *again is set and
 * the caller reads the file once more as a whole, as fior_parse_buffer would. (Text inside a document,
 * e.g. a job name, is never another format's: there the two may differ.) */
static fior_status parse_json_file(fior_report *r, const char *path, FILE *f, char *buf, size_t len, uint64_t max,
                                   int *again)
{
    fior_report *tmp = fior_report_new();
    fior_stream *s = fior_stream_new(path);
    fior_status st = FIOR_OK;
    if (!tmp || !s) {
        fior_stream_free(s);
        fior_report_free(tmp);
        fior__seterr(r, "%s: out of memory", path);
        return FIOR_E_NOMEM;
    }
    fior__stream_keep_gaps(s);
    int bad = fior_stream_feed(s, buf, len) != FIOR_OK; /* the stream keeps the input's first error */
    uint64_t total = len;
    while (!bad) {
        size_t n = fread(buf, 1, FIOR__CHUNK, f);
        if (n == 0) {
            if (ferror(f)) {
                fior__seterr(tmp, "%s: read error after %llu bytes: %s", path, (unsigned long long)total,
                             strerror(errno));
                st = FIOR_E_IO;
            }
            break;
        }
        total += n;
        if (total > max) {
            st = too_big(tmp, path, max);
            break;
        }
        bad = fior_stream_feed(s, buf, n) != FIOR_OK;
    }
    size_t glen;
    const char *gap = fior__stream_gaps(s, &glen);
    if (st == FIOR_OK && (!gap || earlier_claims(gap, glen)))
        *again = 1;
    int text_jobs = 0;
    if (st == FIOR_OK && !*again)
        st = fior__stream_finish(s, tmp, &text_jobs, NULL);
    fior_stream_free(s);
    if (st == FIOR_OK && !*again && fior__report_move(r, tmp)) {
        fior__seterr(tmp, "%s: out of memory", path);
        st = FIOR_E_NOMEM;
    }
    if (st != FIOR_OK)
        memcpy(r->err, tmp->err, sizeof r->err);
    else if (!*again)
        r->format = text_jobs ? FIOR_FMT_MIXED : FIOR_FMT_JSON;
    fior_report_free(tmp);
    return st;
}

fior_status fior_parse_file(fior_report *r, const char *path)
{
    if (!r || !path)
        return FIOR_E_INVAL;
    r->err[0] = '\0';
    FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
    if (!f) {
        fior__seterr(r, "%s: cannot open: %s", path, strerror(errno));
        return FIOR_E_IO;
    }
    char *buf = NULL;
    size_t len = 0;
    int json = 0, again = 0;
    uint64_t max = fior_report_max_input(r);
    fior_status st = read_all(r, path, f, max, &buf, &len, &json);
    if (st == FIOR_OK && json) {
        st = parse_json_file(r, path, f, buf, len, max, &again);
        if (st == FIOR_OK && again) { /* another reader claims the file after all: read it whole */
            free(buf);
            buf = NULL;
            if (fseek(f, 0, SEEK_SET) == 0) {
                st = read_all(r, path, f, max, &buf, &len, NULL);
            } else {
                fior__seterr(r, "%s: cannot read it again: %s", path, strerror(errno));
                st = FIOR_E_IO;
            }
            json = 0;
        }
    }
    if (st == FIOR_OK && !json)
        st = fior_parse_buffer(r, path, buf, len);
    if (f != stdin)
        fclose(f);
    free(buf);
    return st;
}
