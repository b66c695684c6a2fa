/* SPDX-License-Identifier: MIT */
/* readers.c — the table of input readers: how each format is recognised (from the content, never the file
 * name) and which reader parses it. fior_parse_buffer() takes the first row whose detect() matches; the
 * fuzz harnesses run every row. A new input format is one more row here. */
#include <string.h>

#include "internal.h"

static int has_bytes(const char *buf, size_t len, const char *needle)
{
    size_t n = strlen(needle);
    return n <= len && memmem(buf, len, needle, n) != NULL;
}

/* A JSON document can only start at a line whose first non-blank byte is '{'. Only each line's first
 * bytes are looked at (memchr jumps to the next line): detection must not cost a pass over every byte. */
static int detect_json(const char *buf, size_t len)
{
    const char *p = buf, *end = buf + len;
    while (p < end) {
        while (p < end && (*p == ' ' || *p == '\t' || *p == '\r'))
            p++;
        if (p < end && *p == '{')
            return 1;
        const char *nl = p < end ? memchr(p, '\n', (size_t)(end - p)) : NULL;
        if (!nl)
            return 0;
        p = nl + 1;
    }
    return 0;
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

/* fio's normal,json output: the same jobs twice; the JSON has exact nanoseconds, so it wins and the text
 * part only decides the format name. */
static fior_status parse_json(fior_report *r, const char *source, const char *buf, size_t len)
{
    int text_jobs = 0;
    fior_status st = fior__parse_json(r, source, buf, len, &text_jobs, NULL);
    r->format = text_jobs ? FIOR_FMT_MIXED : FIOR_FMT_JSON;
    return st;
}

/* Other etcdctl output (`endpoint status`, `endpoint health`): a reader that only says what it is. */
static int detect_etcdctl_noise(const char *buf, size_t len)
{
    size_t line;
    const char *what;
    return fior__etcdctl_noise(buf, len, &line, &what);
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
    {FIOR_FMT_CHECK_PERF, "check-perf", fior__looks_checkperf, fior__parse_checkperf},
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
