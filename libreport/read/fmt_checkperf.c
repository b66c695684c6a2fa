/* SPDX-License-Identifier: MIT */
/* fmt_checkperf.c — reads `etcdctl check perf` output, and recognises other etcdctl output so that it is
 * rejected with a clear message instead of "not fio output".
 *
 * check perf (etcdctl/ctlv3/command/check.go, 3.4 and 3.5) prints, after its progress bar:
 *   PASS: Throughput is 974 writes/s        | FAIL: Throughput too low: 6491 writes/s
 *   PASS: Slowest request took 0.468174s    | [FAIL: ]Slowest request took too long: 0.786915s
 *   PASS: Stddev is 0.028241s               | [FAIL: ]Stddev too high: 0.063215s
 *   PASS                                    | FAIL
 * Each run becomes one job of role FIOR_ROLE_CHECK_PERF: etcd as a whole (disk, CPU, network, load of the
 * check itself), so its FAIL fails and its PASS never passes a disk (verdict.c).
 */
#include <stdio.h>
#include <string.h>

#include "internal.h"

typedef struct check {
    const char *pass, *fail; /* the line's text after an optional "PASS: "/"FAIL: " */
    const char *what;
} check;

static const check CHECKS[] = {
    {"Throughput is ", "Throughput too low: ", "throughput"},
    {"Slowest request took ", "Slowest request took too long: ", "slowest request"},
    {"Stddev is ", "Stddev too high: ", "stddev"},
};

static const char *find(const char *s, size_t n, const char *w)
{
    return memmem(s, n, w, strlen(w));
}

/* memmem for a word whose first byte is an upper-case letter: memchr jumps from one such letter to the next,
 * and in fio's output they are few (a handful a job), where memmem costs about an instruction a byte for
 * each word. The detector runs on every input before the other readers (readers.c). */
static int has_word(const char *buf, size_t len, const char *w)
{
    const char *end = buf + len;
    size_t n = strlen(w);
    for (const char *p = buf; (p = memchr(p, w[0], (size_t)(end - p))); p++)
        if ((size_t)(end - p) >= n && !memcmp(p, w, n))
            return 1;
    return 0;
}

int fior__looks_checkperf(const char *buf, size_t len)
{
    for (size_t k = 0; k < sizeof CHECKS / sizeof CHECKS[0]; k++)
        if (has_word(buf, len, CHECKS[k].fail) || (k == 0 && has_word(buf, len, "PASS: Throughput is ")))
            return 1;
    return 0;
}

typedef struct run {
    int    seen[3], failed[3];
    double val[3];
    int    final; /* -1 none, else FIOR_PASS / FIOR_FAIL */
    size_t line;
} run;

static fior_status push_run(fior_report *r, const char *source, run *u, size_t n)
{
    fior__jobb b;
    fior__job_init(&b);
    char name[48], sum[256];
    size_t o = 0;
    int any_fail = 0;
    snprintf(name, sizeof name, n > 1 ? "etcd check perf run %zu" : "etcd check perf", n); /* 2nd run on */
    sum[0] = '\0';
    for (int k = 0; k < 3; k++) {
        if (!u->seen[k])
            continue;
        char v[32];
        if (k == 0)
            snprintf(v, sizeof v, "%.0f writes/s", u->val[k]);
        else
            fior_format_ns(v, sizeof v, (uint64_t)(u->val[k] * 1e9 + 0.5));
        o += (size_t)snprintf(sum + o, sizeof sum - o, "%s%s %s%s", o ? ", " : "", CHECKS[k].what, v,
                              u->failed[k] ? (k == 0 ? " (too low)" : " (too high)") : "");
        if (o >= sizeof sum)
            o = sizeof sum - 1;
        any_fail |= u->failed[k];
    }
    b.j.role = FIOR_ROLE_CHECK_PERF;
    b.j.line = u->line;
    b.j.write_iops = u->seen[0] ? u->val[0] : 0;
    b.j.max_ns = u->seen[1] ? (uint64_t)(u->val[1] * 1e9 + 0.5) : 0;
    b.j.stddev_ns = u->seen[2] ? u->val[2] * 1e9 : 0;
    b.j.check_verdict = any_fail || u->final == FIOR_FAIL ? FIOR_FAIL : u->final == FIOR_PASS ? FIOR_PASS
                                                                                               : FIOR_UNKNOWN;
    if (fior__job_set(&b.j.name, name, strlen(name)) || fior__job_set(&b.j.source, source, strlen(source)) ||
        fior__job_set(&b.j.summary, sum, strlen(sum)) || fior__report_push(r, &b)) {
        fior__job_clear(&b);
        fior__seterr(r, "%s: out of memory", source);
        return FIOR_E_NOMEM;
    }
    return FIOR_OK;
}

/* "974 writes/s" or "0.468174s": a plain decimal, at p. */
static int value_at(const char *p, const char *e, int k, double *out)
{
    char tmp[64];
    size_t n = (size_t)(e - p) < sizeof tmp - 1 ? (size_t)(e - p) : sizeof tmp - 1;
    memcpy(tmp, p, n);
    tmp[n] = '\0';
    const char *q = tmp;
    if (fior__parse_dec(&q, out) || *out > 1e9) /* 1e9 s still fits in ns; more is no measurement */
        return -1;
    return strncmp(q, k == 0 ? " writes/s" : "s", k == 0 ? 9 : 1) ? -1 : 0;
}

fior_status fior__parse_checkperf(fior_report *r, const char *source, const char *buf, size_t len)
{
    run u;
    memset(&u, 0, sizeof u);
    u.final = -1;
    size_t lineno = 0, i = 0, runs = 0;
    int open = 0;
    fior_status st;
    while (i < len) {
        const char *nl = memchr(buf + i, '\n', len - i);
        const char *p = buf + i, *e = nl ? nl : buf + len;
        i = (size_t)(e - buf) + 1;
        lineno++;
        /* the progress bar redraws itself with '\r': only the text after the last one is the line */
        const char *cr;
        while (e > p && (e[-1] == '\r' || e[-1] == ' '))
            e--;
        while ((cr = memchr(p, '\r', (size_t)(e - p))))
            p = cr + 1;
        while (p < e && (*p == ' ' || *p == '\t'))
            p++;
        size_t n = (size_t)(e - p);
        if ((n == 4 && (!memcmp(p, "PASS", 4) || !memcmp(p, "FAIL", 4)))) {
            if (!open) {
                fior__seterr(r, "%s:%zu: a final %.4s without the check lines before it", source, lineno, p);
                return FIOR_E_PARSE;
            }
            u.final = p[0] == 'P' ? FIOR_PASS : FIOR_FAIL;
            if ((st = push_run(r, source, &u, ++runs)))
                return st;
            memset(&u, 0, sizeof u);
            u.final = -1;
            open = 0;
            continue;
        }
        for (int k = 0; k < 3; k++) {
            const char *m, *at;
            int failed;
            if ((m = find(p, n, CHECKS[k].fail))) {
                at = m + strlen(CHECKS[k].fail);
                failed = 1;
            } else if ((m = find(p, n, CHECKS[k].pass))) {
                at = m + strlen(CHECKS[k].pass);
                failed = 0;
            } else {
                continue;
            }
            double v;
            if (value_at(at, e, k, &v)) {
                fior__seterr(r, "%s:%zu: expected %s after '%s'", source, lineno,
                             k == 0 ? "'N writes/s'" : "'SECONDSs'", failed ? CHECKS[k].fail : CHECKS[k].pass);
                return FIOR_E_PARSE;
            }
            if (u.seen[k]) { /* a new run whose final line is missing: keep the old one as unknown */
                if ((st = push_run(r, source, &u, ++runs)))
                    return st;
                memset(&u, 0, sizeof u);
                u.final = -1;
            }
            if (!open)
                u.line = lineno;
            open = 1;
            u.seen[k] = 1;
            u.failed[k] = failed;
            u.val[k] = v;
            break;
        }
    }
    if (open && (st = push_run(r, source, &u, ++runs)))
        return st;
    if (!runs) {
        fior__seterr(r, "%s:%zu: expected `etcdctl check perf` lines ('PASS: Throughput is N writes/s')", source,
                     lineno + 1);
        return FIOR_E_PARSE;
    }
    return FIOR_OK;
}

/* ---- other etcdctl output ---- */

/* A member ID as etcdctl prints it: Go's %x of a uint64, so 1 to 16 hex digits (no leading zeros: a third
 * of IDs have fewer than 16), then the next ", ". */
static int hexid_field(const char *p, const char *e)
{
    int k = 0;
    while (p + k < e && k <= 16 && ((p[k] >= '0' && p[k] <= '9') || (p[k] >= 'a' && p[k] <= 'f')))
        k++;
    return k >= 1 && k <= 16 && p + k < e && p[k] == ',';
}

/* `endpoint status` -w simple: "127.0.0.1:2379, 8e9e05c52164694d, 3.4.23, 20 kB, true, …" */
static int simple_status_line(const char *p, const char *e)
{
    const char *c = memchr(p, ',', (size_t)(e - p));
    if (!c || c == p || e - c < 3 || c[1] != ' ')
        return 0;
    for (const char *q = p; q < c; q++)
        if (*q == ' ')
            return 0;
    return hexid_field(c + 2, e);
}

/* etcdctl's output says what it is in its first lines: the table's header, the first endpoint's JSON or
 * status line, or the health line, after at most a few of etcdctl's own log lines when stderr was captured
 * too (and those are marks themselves). So only the first FIOR__NOISE_SNIFF bytes are looked at: this runs on
 * every input before the JSON and normal readers, and a search of every line of a fio output cost 44 % of
 * reading it (bench/README.md). In the window, each mark is one memmem; only the lines before the first
 * mark are walked, for the `-w simple` lines, and the line holding it decides as it always did. */

int fior__etcdctl_noise(const char *buf, size_t len, size_t *line, const char **what)
{
    static const struct {
        const char *mark, *what;
    } M[] = {
        {"IS LEADER", "`etcdctl endpoint status` output"},
        {"RAFT TERM", "`etcdctl endpoint status` output"},
        {"\"raft_term\"", "`etcdctl endpoint status -w json` output"},
        {"Failed to get the status of endpoint", "an `etcdctl endpoint status` error"},
        {"is healthy: successfully committed proposal", "`etcdctl endpoint health` output"},
        {"is unhealthy: failed to commit proposal", "`etcdctl endpoint health` output"},
        {"\"msg\":\"retrying of unary invoker failed\"", "an etcdctl client log line"},
    };
    if (len > FIOR__NOISE_SNIFF)
        len = FIOR__NOISE_SNIFF;
    const char *first = buf + len; /* the first mark in the window, or its end */
    for (size_t k = 0; k < sizeof M / sizeof M[0]; k++) {
        const char *m = find(buf, (size_t)(first - buf), M[k].mark);
        if (m)
            first = m;
    }
    size_t lineno = 0, i = 0;
    while (i < len) {
        const char *nl = memchr(buf + i, '\n', len - i);
        const char *p = buf + i, *e = nl ? nl : buf + len;
        i = (size_t)(e - buf) + 1;
        lineno++;
        if (first < e) /* the line holding the first mark: the first mark of the table's order in it */
            for (size_t k = 0; k < sizeof M / sizeof M[0]; k++)
                if (find(p, (size_t)(e - p), M[k].mark)) {
                    *line = lineno;
                    *what = M[k].what;
                    return 1;
                }
        if (simple_status_line(p, e)) {
            *line = lineno;
            *what = "`etcdctl endpoint status` output";
            return 1;
        }
    }
    return 0;
}
