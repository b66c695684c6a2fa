/* SPDX-License-Identifier: MIT */
/* fmt_prom.c — reads a Prometheus text scrape of etcd's /metrics (exposition format 0.0.4, and OpenMetrics
 * 1.0: `# EOF`, exemplars, `_created` lines). The histograms etcd_disk_wal_fsync_duration_seconds (WAL
 * role) and etcd_disk_backend_commit_duration_seconds (backend role) — the same names in etcd 3.4 and 3.5
 * (wal/metrics.go, mvcc/backend/metrics.go) — become one job per label set: cumulative buckets in ns,
 * samples from the +Inf bucket, mean from _sum. Only bucket edges are known, so the jobs are `bucketed` and
 * judged by the bucket rule (verdict.c), never by the exact-sample rule.
 *
 * Every sample line of the scrape is checked for syntax, as Prometheus rejects a whole scrape for one bad
 * line. A histogram that is only incomplete (no +Inf bucket, no _count, _count disagreeing with +Inf)
 * becomes a job with a `defect` (UNKNOWN); counts that decrease along the buckets, a series given twice
 * or text after `# EOF` are errors naming the line.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prom_doc.h"

static int is_blank(char c)
{
    return c == ' ' || c == '\t';
}

static int name_char(char c, int first)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':' ||
           (!first && c >= '0' && c <= '9');
}

/* Reads {a="x",b="y"} at *p (p < e): fills c->lab, advances *p past '}'. */
static fior_status parse_labels(pctx *c, const char **pp, const char *e, size_t *nlab)
{
    const char *p = *pp + 1;
    size_t n = 0;
    for (;;) {
        while (p < e && is_blank(*p))
            p++;
        if (p < e && *p == '}')
            break;
        const char *nm = p;
        while (p < e && name_char(*p, p == nm) && *p != ':')
            p++;
        if (p == nm)
            return PERR(c, "%s:%zu: expected a label name or '}'", c->src, c->line);
        size_t nlen = (size_t)(p - nm);
        while (p < e && is_blank(*p))
            p++;
        if (p >= e || *p != '=')
            return PERR(c, "%s:%zu: expected '=' after label '%.*s'", c->src, c->line, (int)(nlen > 64 ? 64 : nlen), nm);
        p++;
        while (p < e && is_blank(*p))
            p++;
        if (p >= e || *p != '"')
            return PERR(c, "%s:%zu: expected '\"' to open the value of label '%.*s'", c->src, c->line,
                        (int)(nlen > 64 ? 64 : nlen), nm);
        const char *v = ++p;
        while (p < e && *p != '"') {
            if (*p == '\\') {
                if (p + 1 >= e || (p[1] != '\\' && p[1] != '"' && p[1] != 'n'))
                    return PERR(c, "%s:%zu: bad escape in a label value (only \\\\, \\\" and \\n)", c->src, c->line);
                p++;
            }
            p++;
        }
        if (p >= e)
            return PERR(c, "%s:%zu: label value not closed with '\"'", c->src, c->line);
        if (p - v > (1 << 20))
            return PERR(c, "%s:%zu: a label value longer than 1 MiB", c->src, c->line);
        plabel *nl = fior__grow(c->lab, &c->labcap, n, sizeof *nl, 8);
        if (!nl) {
            fior__seterr(c->r, "%s: out of memory", c->src);
            return FIOR_E_NOMEM;
        }
        c->lab = nl;
        c->lab[n++] = (plabel){nm, v, nlen, (size_t)(p - v)};
        p++;
        while (p < e && is_blank(*p))
            p++;
        if (p < e && *p == ',') {
            p++;
            continue;
        }
        if (p < e && *p == '}')
            break;
        return PERR(c, "%s:%zu: expected ',' or '}' after a label value", c->src, c->line);
    }
    *pp = p + 1;
    *nlab = n;
    return FIOR_OK;
}

static fior_status sample_line(pctx *c, const char *p, const char *e)
{
    const char *name = p;
    while (p < e && name_char(*p, p == name))
        p++;
    if (p == name)
        return PERR(c, "%s:%zu: expected a metric name, a '#' comment or an empty line", c->src, c->line);
    size_t nn = (size_t)(p - name), nlab = 0;
    fior_status st;
    if (p < e && *p == '{' && (st = parse_labels(c, &p, e, &nlab)))
        return st;
    if (p >= e || !is_blank(*p))
        return PERR(c, "%s:%zu: expected a blank and the value after the metric name", c->src, c->line);
    while (p < e && is_blank(*p))
        p++;
    const char *val = p;
    while (p < e && !is_blank(*p))
        p++;
    pnum v;
    if (fior__pnum_parse(val, (size_t)(p - val), &v))
        return PERR(c, "%s:%zu: expected a number as the value, not '%.*s'", c->src, c->line,
                    (int)(p - val > 32 ? 32 : p - val), val);
    while (p < e && is_blank(*p))
        p++;
    if (p < e && *p != '#') { /* a timestamp (ms; OpenMetrics: s, maybe with a fraction) */
        const char *ts = p;
        pnum t;
        while (p < e && !is_blank(*p))
            p++;
        if (fior__pnum_parse(ts, (size_t)(p - ts), &t) || t.kind != N_FIN)
            return PERR(c, "%s:%zu: expected a timestamp or the end of the line after the value", c->src, c->line);
        while (p < e && is_blank(*p))
            p++;
    }
    if (p < e && *p != '#') /* '#' starts an OpenMetrics exemplar: not a latency of this series */
        return PERR(c, "%s:%zu: unexpected text after the value", c->src, c->line);
    for (size_t f = 0; f < NFAM; f++) {
        size_t fl = strlen(FAM[f].name);
        if (nn >= fl && !memcmp(name, FAM[f].name, fl)) {
            char suffix[16];
            if (nn - fl >= sizeof suffix)
                return PERR(c, "%s:%zu: expected %s_bucket, _sum or _count (a histogram)", c->src, c->line,
                            FAM[f].name);
            memcpy(suffix, name + fl, nn - fl);
            suffix[nn - fl] = '\0';
            return fior__phistogram_line(c, (int)f, suffix, nlab, &v);
        }
    }
    return fior__pidentity_line(c, name, nn, nlab, &v);
}

static fior_status comment_line(pctx *c, const char *p, const char *e, int *eof)
{
    p++;
    while (p < e && is_blank(*p))
        p++;
    if ((size_t)(e - p) == 3 && !memcmp(p, "EOF", 3)) {
        *eof = 1;
        return FIOR_OK;
    }
    if ((size_t)(e - p) < 5 || memcmp(p, "TYPE", 4) || !is_blank(p[4]))
        return FIOR_OK; /* HELP, UNIT, free text */
    p += 5;
    while (p < e && is_blank(*p))
        p++;
    for (size_t f = 0; f < NFAM; f++) {
        size_t fl = strlen(FAM[f].name);
        if ((size_t)(e - p) > fl && !memcmp(p, FAM[f].name, fl) && is_blank(p[fl])) {
            const char *t = p + fl;
            while (t < e && is_blank(*t))
                t++;
            if ((size_t)(e - t) != 9 || memcmp(t, "histogram", 9))
                return PERR(c, "%s:%zu: %s is declared '%.*s', expected histogram", c->src, c->line, FAM[f].name,
                            (int)(e - t > 32 ? 32 : e - t), t);
        }
    }
    return FIOR_OK;
}

static fior_status parse_lines(pctx *c, const char *buf, size_t len)
{
    size_t i = 0;
    int eof = 0;
    fior_status st;
    while (i < len) {
        const char *nl = memchr(buf + i, '\n', len - i);
        const char *p = buf + i, *e = nl ? nl : buf + len;
        i = (size_t)(e - buf) + 1;
        c->line++;
        if (e > p && e[-1] == '\r') /* CRLF */
            e--;
        while (p < e && is_blank(*p))
            p++;
        while (e > p && is_blank(e[-1]))
            e--;
        if (p == e)
            continue;
        if (eof)
            return PERR(c, "%s:%zu: text after '# EOF' (two scrapes in one file? give each its own file)", c->src,
                        c->line);
        st = *p == '#' ? comment_line(c, p, e, &eof) : sample_line(c, p, e);
        if (st)
            return st;
    }
    return FIOR_OK;
}

fior_status fior__parse_prom(fior_report *r, const char *source, const char *buf, size_t len)
{
    pctx c = {.r = r, .src = source};
    fior_status st = parse_lines(&c, buf, len);
    size_t found = 0;
    for (size_t f = 0; st == FIOR_OK && f < NFAM; f++)
        for (size_t i = 0; st == FIOR_OK && i < c.nser[f]; i++, found++)
            st = fior__pseries_job(&c, &c.ser[f][i]);
    if (st == FIOR_OK && !found) {
        fior__seterr(r, "%s:1: a Prometheus scrape without %s or %s (expected etcd's /metrics, e.g. "
                     "https://HOST:2379/metrics)", source, FAM[0].name, FAM[1].name);
        st = FIOR_E_FORMAT;
    }
    for (size_t f = 0; f < NFAM; f++) {
        for (size_t i = 0; i < c.nser[f]; i++) {
            free(c.ser[f][i].labels);
            free(c.ser[f][i].instance);
            free(c.ser[f][i].bk);
        }
        free(c.ser[f]);
    }
    free(c.lab);
    free(c.member);
    for (size_t i = 0; i < c.ninst; i++) {
        free(c.inst[i].instance);
        free(c.inst[i].member);
    }
    free(c.inst);
    if (st != FIOR_OK)
        fior__report_clear(r);
    return st;
}

/* A scrape: a sample line of one of our histograms, or Prometheus' own comment lines, at a line start.
 * Each is searched over the whole input (memchr for '#', memmem for the long names: both far under one
 * instruction a byte), not line by line: this runs before the reader of every other format (readers.c). */
int fior__looks_prom(const char *buf, size_t len)
{
    static const char *const marks[] = {"etcd_disk_wal_fsync_duration_seconds",
                                        "etcd_disk_backend_commit_duration_seconds", "# TYPE ", "# HELP "};
    for (size_t k = 0; k < 2; k++)
        if (fior__line_start(buf, len, buf, marks[k], strlen(marks[k]), " \t"))
            return 1;
    for (const char *p = buf; (p = fior__line_start(buf, len, p, "#", 1, " \t")); p++)
        for (size_t k = 2; k < 4; k++)
            if ((size_t)(buf + len - p) >= strlen(marks[k]) && !memcmp(p, marks[k], strlen(marks[k])))
                return 1;
    return 0;
}
