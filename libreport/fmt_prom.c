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

#include "internal.h"
#include "prom_num.h"

static const struct {
    const char *name;
    fior_role   role;
} FAM[] = {
    {"etcd_disk_wal_fsync_duration_seconds", FIOR_ROLE_WAL},
    {"etcd_disk_backend_commit_duration_seconds", FIOR_ROLE_BACKEND},
};
#define NFAM (sizeof FAM / sizeof FAM[0])
#define MAX_SERIES 4096 /* label sets per family: bounds the linear series lookup on hostile input */
#define EXACT_MAX (1ULL << 53) /* counts are printed as floats: exact only below 2^53 */

/* ---- one scrape ---- */
typedef struct pbk {
    uint64_t le_ns, count;
    int      le_exact, inf;
    size_t   line;
} pbk;

typedef struct pseries {
    int    fam;
    char  *labels;    /* canonical: sorted by name, le left out: a="x",b="y" (escapes as written) */
    char  *instance;  /* the instance label's value, or NULL */
    size_t line;
    pbk   *bk;
    size_t nbk, bkcap;
    int    has_count, has_sum, count_big;
    uint64_t count;
    size_t count_line, sum_line;
    double sum;
} pseries;

typedef struct plabel {
    const char *name, *val;
    size_t nlen, vlen;
} plabel;

typedef struct pctx {
    fior_report *r;
    const char  *src;
    size_t       line;
    pseries     *ser[NFAM];
    size_t       nser[NFAM], sercap[NFAM];
    plabel      *lab;
    size_t       labcap;
    char        *member;    /* etcd_server_id's server_id; "" once two different ones were seen */
    pnum         start;     /* process_start_time_seconds */
    int          nstart;    /* 0 none, 1 one value, 2 conflicting values */
} pctx;

#define PERR(c, ...) (fior__seterr((c)->r, __VA_ARGS__), FIOR_E_PARSE)

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

static int cmp_label(const void *a, const void *b)
{
    const plabel *x = a, *y = b;
    size_t n = x->nlen < y->nlen ? x->nlen : y->nlen;
    int d = memcmp(x->name, y->name, n);
    return d ? d : (x->nlen > y->nlen) - (x->nlen < y->nlen);
}

static const plabel *find_label(const pctx *c, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (c->lab[i].nlen == strlen(name) && !memcmp(c->lab[i].name, name, c->lab[i].nlen))
            return &c->lab[i];
    return NULL;
}

static char *dupn(const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (d) {
        memcpy(d, s, n);
        d[n] = '\0';
    }
    return d;
}

/* The series of family f with these labels (le left out), created on first sight. */
static fior_status get_series(pctx *c, int f, size_t nlab, pseries **out)
{
    if (nlab > 1)
        qsort(c->lab, nlab, sizeof *c->lab, cmp_label);
    size_t len = 0;
    for (size_t i = 0; i < nlab; i++) {
        if (i && !cmp_label(&c->lab[i - 1], &c->lab[i]))
            return PERR(c, "%s:%zu: label '%.*s' given twice", c->src, c->line,
                        (int)(c->lab[i].nlen > 64 ? 64 : c->lab[i].nlen), c->lab[i].name);
        len += c->lab[i].nlen + c->lab[i].vlen + 4;
    }
    char *key = malloc(len + 1), *k = key;
    if (!key)
        goto nomem;
    for (size_t i = 0; i < nlab; i++) {
        if (c->lab[i].nlen == 2 && !memcmp(c->lab[i].name, "le", 2))
            continue;
        k += sprintf(k, "%s%.*s=\"%.*s\"", k == key ? "" : ",", (int)c->lab[i].nlen, c->lab[i].name,
                     (int)c->lab[i].vlen, c->lab[i].val);
    }
    *k = '\0';
    for (size_t i = 0; i < c->nser[f]; i++)
        if (!strcmp(c->ser[f][i].labels, key)) {
            free(key);
            *out = &c->ser[f][i];
            return FIOR_OK;
        }
    if (c->nser[f] >= MAX_SERIES) {
        free(key);
        return PERR(c, "%s:%zu: more than %d label sets of %s (a federated scrape? keep one etcd's lines)",
                    c->src, c->line, MAX_SERIES, FAM[f].name);
    }
    pseries *ns = fior__grow(c->ser[f], &c->sercap[f], c->nser[f], sizeof *ns, 2);
    if (!ns) {
        free(key);
        goto nomem;
    }
    c->ser[f] = ns;
    pseries *s = &ns[c->nser[f]];
    memset(s, 0, sizeof *s);
    s->fam = f;
    s->labels = key;
    s->line = c->line;
    const plabel *inst = find_label(c, nlab, "instance");
    if (inst && !(s->instance = dupn(inst->val, inst->vlen))) {
        free(key);
        goto nomem;
    }
    c->nser[f]++;
    *out = s;
    return FIOR_OK;
nomem:
    fior__seterr(c->r, "%s: out of memory", c->src);
    return FIOR_E_NOMEM;
}

/* A count: a whole number >= 0 (client_golang prints 1234567 as 1.234567e+06). */
static fior_status read_count(pctx *c, const pnum *v, const char *what, uint64_t *out, int *big)
{
    int exact;
    uint64_t n;
    if (v->kind != N_FIN || (v->neg && v->mant) || fior__pnum_scaled(v, 0, &n, &exact) || !exact)
        return PERR(c, "%s:%zu: expected a whole number >= 0 as the %s", c->src, c->line, what);
    *out = n;
    *big = n >= EXACT_MAX;
    return FIOR_OK;
}

static fior_status histogram_line(pctx *c, int f, const char *suffix, size_t nlab, const pnum *v)
{
    pseries *s;
    fior_status st;
    if (!strcmp(suffix, "_created"))
        return FIOR_OK; /* OpenMetrics: when the histogram was created; says nothing about latency */
    if (strcmp(suffix, "_bucket") && strcmp(suffix, "_count") && strcmp(suffix, "_sum"))
        return PERR(c, "%s:%zu: expected %s_bucket, _sum or _count (a histogram)", c->src, c->line, FAM[f].name);
    const plabel *le = find_label(c, nlab, "le");
    if (!strcmp(suffix, "_bucket") && !le)
        return PERR(c, "%s:%zu: a _bucket line without an le label", c->src, c->line);
    pnum lev;
    if (le && !strcmp(suffix, "_bucket") &&
        (fior__pnum_parse(le->val, le->vlen, &lev) || lev.kind == N_NAN || lev.kind == N_NINF || (lev.neg && lev.mant)))
        return PERR(c, "%s:%zu: expected le=\"SECONDS\" (a number >= 0 or +Inf)", c->src, c->line);
    if ((st = get_series(c, f, nlab, &s)))
        return st;
    int big = 0;
    if (!strcmp(suffix, "_bucket")) {
        pbk b = {.line = c->line, .le_exact = 1};
        if ((st = read_count(c, v, "bucket count", &b.count, &big)))
            return st;
        if (lev.kind == N_PINF) {
            b.inf = 1;
            b.le_ns = UINT64_MAX;
        } else if (fior__pnum_scaled(&lev, 9, &b.le_ns, &b.le_exact) || b.le_ns == UINT64_MAX) {
            return PERR(c, "%s:%zu: le=\"%.*s\" is too large", c->src, c->line, (int)(le->vlen > 64 ? 64 : le->vlen),
                        le->val);
        } else if (!b.le_exact) {
            b.le_ns++; /* an edge between two ns: keep its upper bound, and say the edge is inexact */
        }
        pbk *nb = fior__grow(s->bk, &s->bkcap, s->nbk, sizeof *nb, 16);
        if (!nb) {
            fior__seterr(c->r, "%s: out of memory", c->src);
            return FIOR_E_NOMEM;
        }
        s->bk = nb;
        s->bk[s->nbk++] = b;
    } else if (!strcmp(suffix, "_count")) {
        if (s->has_count)
            return PERR(c, "%s:%zu: %s_count given twice for one series (first at line %zu; two scrapes in "
                        "one file? give each its own file)", c->src, c->line, FAM[f].name, s->count_line);
        if ((st = read_count(c, v, "_count", &s->count, &big)))
            return st;
        s->has_count = 1;
        s->count_line = c->line;
    } else {
        if (s->has_sum)
            return PERR(c, "%s:%zu: %s_sum given twice for one series (first at line %zu)", c->src, c->line,
                        FAM[f].name, s->sum_line);
        s->has_sum = 1;
        s->sum = fior__pnum_double(v);
        s->sum_line = c->line;
    }
    s->count_big |= big;
    return FIOR_OK;
}

/* The things besides the histograms that tell which etcd process this scrape is of. */
static fior_status identity_line(pctx *c, const char *name, size_t nn, size_t nlab, const pnum *v)
{
    if (nn == 14 && !memcmp(name, "etcd_server_id", 14)) {
        const plabel *id = find_label(c, nlab, "server_id");
        if (!id || v->kind != N_FIN || v->mant == 0)
            return FIOR_OK;
        if (!c->member) {
            if (!(c->member = dupn(id->val, id->vlen))) {
                fior__seterr(c->r, "%s: out of memory", c->src);
                return FIOR_E_NOMEM;
            }
        } else if (strlen(c->member) != id->vlen || memcmp(c->member, id->val, id->vlen)) {
            c->member[0] = '\0'; /* several members in one file: no single identity */
        }
    } else if (nn == 26 && !memcmp(name, "process_start_time_seconds", 26) && v->kind == N_FIN) {
        if (c->nstart == 0) {
            c->start = *v;
            c->nstart = 1;
        } else if (c->start.mant != v->mant || c->start.exp10 != v->exp10 || c->start.neg != v->neg) {
            c->nstart = 2; /* several processes in one file: no single start time */
        }
    }
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
            return histogram_line(c, (int)f, suffix, nlab, &v);
        }
    }
    return identity_line(c, name, nn, nlab, &v);
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

static int cmp_bk(const void *a, const void *b)
{
    const pbk *x = a, *y = b;
    if (x->le_ns != y->le_ns)
        return x->le_ns < y->le_ns ? -1 : 1;
    return (x->line > y->line) - (x->line < y->line);
}

static void fmt_le(char *out, size_t n, const pbk *b)
{
    if (b->inf)
        snprintf(out, n, "+Inf");
    else
        snprintf(out, n, "%.9g s", (double)b->le_ns / 1e9);
}

/* Checks one series and turns it into a job. */
static fior_status series_job(pctx *c, pseries *s)
{
    if (s->nbk > 1)
        qsort(s->bk, s->nbk, sizeof *s->bk, cmp_bk);
    char a[40], b[40], defect[200] = "";
    for (size_t i = 1; i < s->nbk; i++) {
        const pbk *p = &s->bk[i - 1], *q = &s->bk[i];
        fmt_le(a, sizeof a, q);
        fmt_le(b, sizeof b, p);
        if (p->le_ns == q->le_ns && p->le_exact == q->le_exact) {
            c->line = q->line;
            return PERR(c, "%s:%zu: bucket le=%s given twice for one series (first at line %zu; two scrapes in "
                        "one file? give each its own file)", c->src, q->line, a, p->line);
        }
        if (q->count < p->count)
            return PERR(c, "%s:%zu: bucket le=%s counts %llu, fewer than %llu at le=%s (line %zu): cumulative "
                        "bucket counts must not decrease", c->src, q->line, a, (unsigned long long)q->count,
                        (unsigned long long)p->count, b, p->line);
    }
    const pbk *inf = s->nbk && s->bk[s->nbk - 1].inf ? &s->bk[s->nbk - 1] : NULL;
    int inexact = 0;
    for (size_t i = 0; i < s->nbk; i++)
        inexact |= !s->bk[i].le_exact;
    if (!s->nbk)
        snprintf(defect, sizeof defect, "no %s_bucket lines", FAM[s->fam].name);
    else if (!inf)
        snprintf(defect, sizeof defect, "no le=\"+Inf\" bucket: samples above the last edge are not counted");
    else if (!s->has_count)
        snprintf(defect, sizeof defect, "no %s_count", FAM[s->fam].name);
    else if (s->count != inf->count)
        snprintf(defect, sizeof defect, "_count %llu differs from the le=\"+Inf\" bucket %llu",
                 (unsigned long long)s->count, (unsigned long long)inf->count);
    else if (s->count_big)
        snprintf(defect, sizeof defect, "counts of 2^53 or more are not exact in the text format");
    else if (inexact)
        snprintf(defect, sizeof defect, "a bucket edge is not a whole number of nanoseconds");

    fior__jobb jb;
    fior__job_init(&jb);
    size_t nl = strlen(FAM[s->fam].name), ll = strlen(s->labels);
    char *name = malloc(nl + ll + 3);
    if (!name)
        goto nomem;
    snprintf(name, nl + ll + 3, ll ? "%s{%s}" : "%s", FAM[s->fam].name, s->labels);
    jb.j.name = name;
    if (fior__job_set(&jb.j.source, c->src, strlen(c->src)) ||
        (s->instance && fior__job_set(&jb.j.host, s->instance, strlen(s->instance))) ||
        (defect[0] && fior__job_set(&jb.j.defect, defect, strlen(defect))) ||
        (c->member && c->member[0] && fior__job_set(&jb.j.etcd_member, c->member, strlen(c->member))))
        goto nomem;
    for (size_t i = 0; i < s->nbk; i++)
        if (fior__job_add_bucket(&jb, s->bk[i].le_ns, s->bk[i].count))
            goto nomem;
    jb.j.role = FAM[s->fam].role;
    jb.j.line = s->line;
    jb.j.has_sync = 1;
    jb.j.bucketed = 1;
    jb.j.samples_known = inf || s->has_count;
    jb.j.samples = inf ? inf->count : s->count;
    if (s->has_sum && isfinite(s->sum) && s->sum >= 0 && jb.j.samples)
        jb.j.mean_ns = s->sum / (double)jb.j.samples * 1e9;
    jb.j.process_start_s = c->nstart == 1 ? fior__pnum_double(&c->start) : 0;
    if (fior__report_push(c->r, &jb))
        goto nomem;
    return FIOR_OK;
nomem:
    fior__job_clear(&jb);
    fior__seterr(c->r, "%s: out of memory", c->src);
    return FIOR_E_NOMEM;
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
            st = series_job(&c, &c.ser[f][i]);
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
