/* SPDX-License-Identifier: MIT */
/* readers.c — the table of input readers: how each format is recognised (from the content, never the file
 * name) and which reader parses it. fior_parse_buffer() takes the first row whose detect() matches; the
 * fuzz harnesses run every row. A new input format is one more row here. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static int has_bytes(const char *buf, size_t len, const char *needle)
{
    size_t n = strlen(needle);
    return n <= len && memmem(buf, len, needle, n) != NULL;
}

/* A JSON document can only start at a line whose first non-blank byte is '{'. */
static int detect_json(const char *buf, size_t len)
{
    return fior__line_start(buf, len, buf, "{", 1, " \t\r") != NULL;
}

static int detect_normal(const char *buf, size_t len)
{
    return has_bytes(buf, len, ": (groupid=") || has_bytes(buf, len, ": (g=") ||
           has_bytes(buf, len, "fsync/fdatasync/sync_file_range");
}

static int detect_etcdperf(const char *buf, size_t len)
{
    return has_bytes(buf, len, "percentile of fsync is");
}

/* Text job results beside JSON: fio's normal,json output prints the same jobs twice, and the JSON, with
 * exact nanoseconds, wins. But only when they are the same jobs: a normal-text run concatenated with a
 * JSON one is another run, and is judged too (a failing text run beside a passing JSON one must fail; it
 * was dropped). Same = the same number of jobs, each with the same name, sync count, max, p50 and p99. A text
 * part that does not read is an error, never dropped. buf holds the text outside the JSON documents. */
/* Text prints microseconds (3-4 digits), JSON nanoseconds: the same value within 1 % + 1 us. */
static int near(uint64_t a, uint64_t b)
{
    uint64_t d = a > b ? a - b : b - a, m = a > b ? a : b;
    return d <= m / 100 + 1000;
}

static int pct_near(const fior_job *a, const fior_job *b, double p)
{
    uint64_t va = 0, vb = 0;
    int ha = 0, hb = 0;
    for (size_t i = 0; i < a->npct; i++)
        if (a->pct[i].percent == p)
            va = a->pct[i].ns, ha = 1;
    for (size_t i = 0; i < b->npct; i++)
        if (b->pct[i].percent == p)
            vb = b->pct[i].ns, hb = 1;
    return ha == hb && (!ha || near(va, vb));
}

fior_status fior__text_beside_json(fior_report *r, const char *source, const char *buf, size_t len)
{
    fior_report *t = fior_report_new();
    if (!t) {
        fior__seterr(r, "%s: out of memory", source);
        return FIOR_E_NOMEM;
    }
    fior_status st = fior__parse_normal(t, source, buf, len);
    if (st != FIOR_OK) {
        fior__seterr(r, "%s", t->err);
        fior_report_free(t);
        return st;
    }
    int same = t->njobs == r->njobs;
    for (size_t i = 0; same && i < t->njobs; i++) {
        const fior_job *a = &t->jobs[i], *b = &r->jobs[i];
        same = a->name && b->name && !strcmp(a->name, b->name) && a->samples_known == b->samples_known &&
               (!a->samples_known || a->samples == b->samples) && near(a->max_ns, b->max_ns) &&
               pct_near(a, b, 99.0) && pct_near(a, b, 50.0);
    }
    if (!same) {
        unsigned next = 0;
        for (size_t i = 0; i < r->njobs; i++)
            if (r->jobs[i].run + 1 > next)
                next = r->jobs[i].run + 1;
        for (size_t i = 0; i < t->njobs; i++)
            t->jobs[i].run += next;
        if (fior__report_move(r, t)) {
            fior__seterr(r, "%s: out of memory", source);
            st = FIOR_E_NOMEM;
        }
    }
    fior_report_free(t);
    return st;
}

/* An etcd-perf container log prints fio's JSON and then its own "INFO: 99th percentile of fsync is N ns"
 * line: when the JSON part is damaged or partly elided, the log's lines are read instead (their value, no
 * count: never a PASS on their own), each saying why. */
static fior_status etcdperf_instead(fior_report *r, const char *source, const char *buf, size_t len,
                                    fior_status json_st)
{
    char why[FIOR__ERRLEN + 96], json_err[FIOR__ERRLEN];
    memcpy(json_err, r->err, sizeof json_err);
    snprintf(why, sizeof why, "read from the etcd-perf log's line, as its fio JSON does not read (%s)", r->err);
    fior__report_clear(r);
    fior_status st = fior__parse_etcdperf_lines(r, source, buf, len, why);
    if (st == FIOR_OK) {
        r->format = FIOR_FMT_ETCD_PERF;
        return st;
    }
    fior__report_clear(r); /* not the log's lines after all: the JSON's own error */
    memcpy(r->err, json_err, sizeof r->err);
    return json_st;
}

/* The container's own line starts a line: "INFO: 99th percentile of fsync is …" (or, in older images,
 * "99th percentile of fsync is …"); the phrase inside a JSON job name is not one. */
static int etcdperf_line(const char *buf, size_t len)
{
    static const char info[] = "INFO: ";
    for (const char *p = buf, *end = buf + len; p < end;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
        const char *q = n >= sizeof info - 1 && !memcmp(p, info, sizeof info - 1) ? p + sizeof info - 1 : p;
        if (q < p + n && *q >= '1' && *q <= '9' && memmem(q, (size_t)(p + n - q), "th percentile of fsync is", 25))
            return 1;
        p += n + 1;
    }
    return 0;
}

static fior_status parse_json(fior_report *r, const char *source, const char *buf, size_t len)
{
    int text_jobs = 0;
    char *text;
    size_t tlen;
    fior_status st = fior__parse_json(r, source, buf, len, &text_jobs, NULL, &text, &tlen);
    if (text_jobs) { /* fio's normal,json output, or a text run beside a JSON one */
        st = fior__text_beside_json(r, source, text, tlen);
        text_jobs = st == FIOR_OK;
    }
    free(text);
    r->format = text_jobs ? FIOR_FMT_MIXED : FIOR_FMT_JSON;
    if (st == FIOR_E_PARSE && etcdperf_line(buf, len))
        return etcdperf_instead(r, source, buf, len, st);
    return st;
}

/* fio's own output never is etcdctl's, whatever its jobs are called (a job named "IS LEADER" or "PASS:
 * Throughput is 150 writes/s" is fio's): what carries fio's marks near its start goes to the fio readers. */
static int fio_marks(const char *buf, size_t len)
{
    size_t n = len < FIOR__NOISE_SNIFF ? len : FIOR__NOISE_SNIFF;
    return memmem(buf, n, "\"fio version\"", 13) || memmem(buf, n, ": (groupid=", 11) || memmem(buf, n, ": (g=", 5);
}

/* `etcdctl check perf` output (fmt_checkperf.c), unless it is fio's. */
static int detect_checkperf(const char *buf, size_t len)
{
    return !fio_marks(buf, len) && fior__looks_checkperf(buf, len);
}

/* Other etcdctl output (`endpoint status`, `endpoint health`): a reader that only says what it is. */
static int detect_etcdctl_noise(const char *buf, size_t len)
{
    size_t line;
    const char *what;
    return !fio_marks(buf, len) && fior__etcdctl_noise(buf, len, &line, &what);
}

static fior_status parse_etcdctl_noise(fior_report *r, const char *source, const char *buf, size_t len)
{
    size_t line = 1;
    const char *what = "etcdctl output";
    fior__etcdctl_noise(buf, len, &line, &what);
    fior__seterr(r, "%s:%zu: this is %s, which has no latencies (give etcd's /metrics as a URL or a saved "
                 "scrape, or `etcdctl check perf` output)", source, line, what);
    return FIOR_E_FORMAT;
}

/* check perf and etcdctl's other output before JSON: etcdctl's own log lines are JSON objects. */
static const fior__reader readers[] = {
    {FIOR_FMT_CHECK_PERF, "check-perf", detect_checkperf, fior__parse_checkperf},
    {FIOR_FMT_PROM, "prometheus", fior__looks_prom, fior__parse_prom},
    {FIOR_FMT_UNKNOWN, "etcdctl-noise", detect_etcdctl_noise, parse_etcdctl_noise},
    {FIOR_FMT_JSON, "json", detect_json, parse_json},
    {FIOR_FMT_NORMAL, "normal", detect_normal, fior__parse_normal},
    {FIOR_FMT_ETCD_PERF, "etcd-perf", detect_etcdperf, fior__parse_etcdperf},
};

const fior__reader *fior__readers(size_t *n)
{
    *n = sizeof readers / sizeof readers[0];
    return readers;
}

const fior__reader *fior__reader_named(const char *name)
{
    for (size_t i = 0; i < sizeof readers / sizeof readers[0]; i++)
        if (!strcmp(readers[i].name, name))
            return &readers[i];
    return NULL;
}
