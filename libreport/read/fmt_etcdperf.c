/* SPDX-License-Identifier: MIT */
/* fmt_etcdperf.c — reads the etcd-perf container log. Each run prints one line
 * "INFO: 99th percentile of fsync is 3981312 ns", which becomes one job with a single percentile (the
 * whole number before "th": 99, 99.9, 90.99) and an unknown sample count (the log does not print it, so
 * the verdict can never be PASS on it alone). The container's own "within the recommended threshold"
 * lines are ignored: they come from jq and said the same for a missing percentile. */
#include <stdio.h>
#include <string.h>

#include "internal.h"

static const char MARK[] = "th percentile of fsync is";

fior_status fior__parse_etcdperf(fior_report *r, const char *source, const char *buf, size_t len)
{
    return fior__parse_etcdperf_lines(r, source, buf, len, NULL);
}

/* One line with MARK, "INFO: NNth percentile of fsync is V UNIT": its percentile, the value and the unit's
 * ns (*null_value: jq printed "null" there, fio had no percentile). NULL, or what was expected instead. */
static const char *parse_line(const char *line, double *pc, double *val, uint64_t *mult, int *null_value)
{
    const char *m = strstr(line, MARK);
    /* the whole number: "90.99th" is p90.99, not p99; "99.9th" is p99.9, not p9 */
    const char *p = m;
    while (p > line && ((p[-1] >= '0' && p[-1] <= '9') || p[-1] == '.'))
        p--;
    const char *q = p;
    if (p == m || fior__parse_dec(&q, pc) || q != m || *pc <= 0 || *pc >= 100)
        return "expected a percentile like '99th' before 'percentile of fsync'";
    q = m + sizeof MARK - 1;
    while (*q == ' ')
        q++;
    *mult = 0;
    if (!fior__parse_dec(&q, val)) {
        while (*q == ' ')
            q++;
        /* the container's echo may leave blanks after the unit ("… is 692060160 ns "), CRLF too */
        size_t ul = 0;
        while (q[ul] && q[ul] != ' ' && q[ul] != '\t' && q[ul] != '\r')
            ul++;
        int tail_blank = 1;
        for (const char *t = q + ul; *t; t++)
            tail_blank &= *t == ' ' || *t == '\t' || *t == '\r';
        if (tail_blank && ul == 2)
            *mult = !strncmp(q, "ns", 2) ? 1 : !strncmp(q, "us", 2) ? 1000 : !strncmp(q, "ms", 2) ? 1000000 : 0;
    }
    /* jq printed "null" here when fio had no percentile: that run cannot be judged, not a format error */
    *null_value = !strncmp(q, "null", 4);
    if (!*mult && !*null_value)
        return "expected 'N ns' after 'percentile of fsync is'";
    return NULL;
}

fior_status fior__parse_etcdperf_lines(fior_report *r, const char *source, const char *buf, size_t len,
                                       const char *why)
{
    fior__jobb b;
    fior__job_init(&b);
    size_t lineno = 0, i = 0, runs = 0;
    char line[256];
    while (i < len) {
        const char *nl = memchr(buf + i, '\n', len - i);
        size_t n = nl ? (size_t)(nl - (buf + i)) : len - i;
        size_t start = i;
        i += n + 1;
        lineno++;
        if (!memmem(buf + start, n, MARK, sizeof MARK - 1))
            continue;
        if (n >= sizeof line) {
            fior__seterr(r, "%s:%zu: expected 'INFO: 99th percentile of fsync is N ns' (line too long)",
                         source, lineno);
            return FIOR_E_PARSE;
        }
        memcpy(line, buf + start, n);
        line[n] = '\0';
        double pc, val = 0;
        uint64_t mult = 0;
        int null_value = 0;
        const char *expected = parse_line(line, &pc, &val, &mult, &null_value);
        if (expected) {
            fior__seterr(r, "%s:%zu: %s", source, lineno, expected);
            return FIOR_E_PARSE;
        }
        char name[32];
        snprintf(name, sizeof name, "etcd-perf run %zu", ++runs);
        if (fior__job_set(&b.j.name, name, strlen(name)) || fior__job_set(&b.j.source, source, strlen(source)))
            goto nomem;
        b.j.line = lineno;
        b.j.has_sync = 1;
        if (why && fior__job_set(&b.j.end_reason, why, strlen(why)))
            goto nomem;
        if (!null_value) {
            if (val * (double)mult > 1.8e19) {
                fior__seterr(r, "%s:%zu: percentile value out of range", source, lineno);
                fior__job_clear(&b);
                return FIOR_E_PARSE;
            }
            uint64_t ns = (uint64_t)(val * (double)mult + 0.5);
            if (fior__job_add_pct(&b, pc, ns))
                goto nomem;
            b.j.max_ns = b.j.min_ns = 0;
        }
        if (fior__report_push(r, &b))
            goto nomem;
    }
    if (!runs) {
        fior__seterr(r, "%s:%zu: expected 'INFO: 99th percentile of fsync is N ns'", source, lineno + 1);
        return FIOR_E_PARSE;
    }
    return FIOR_OK;
nomem:
    fior__job_clear(&b);
    fior__seterr(r, "%s: out of memory", source);
    return FIOR_E_NOMEM;
}
