/* SPDX-License-Identifier: MIT */
/* prom_series.c — the series of etcd's two histograms in a Prometheus scrape (fmt_prom.c reads the lines):
 * one series per label set, its cumulative buckets (le in ns), _sum and _count, etcd_server_id, and at the
 * end each series checked (buckets that decrease, +Inf against _count) and turned into a bucketed job. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prom_doc.h"

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

fior_status fior__phistogram_line(pctx *c, int f, const char *suffix, size_t nlab, const pnum *v)
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

/* One identity fact into (member, start, nstart): -1 when out of memory. */
static int identity(char **member, pnum *start, int *nstart, const plabel *id, const pnum *v)
{
    if (id) {
        if (!*member)
            return (*member = dupn(id->val, id->vlen)) ? 0 : -1;
        if (strlen(*member) != id->vlen || memcmp(*member, id->val, id->vlen))
            (*member)[0] = '\0'; /* several members: no single identity */
        return 0;
    }
    if (*nstart == 0) {
        *start = *v;
        *nstart = 1;
    } else if (start->mant != v->mant || start->exp10 != v->exp10 || start->neg != v->neg) {
        *nstart = 2; /* several processes: no single start time */
    }
    return 0;
}

/* The record of an instance label (a federation file scrapes many members, each line labelled with its
 * instance), added when new; NULL when out of memory. */
static pinst *inst_of(pctx *c, const char *val, size_t n)
{
    for (size_t i = 0; i < c->ninst; i++)
        if (strlen(c->inst[i].instance) == n && !memcmp(c->inst[i].instance, val, n))
            return &c->inst[i];
    pinst *a = fior__grow(c->inst, &c->instcap, c->ninst, sizeof *a, 4);
    if (!a)
        return NULL;
    c->inst = a;
    pinst *x = &a[c->ninst];
    memset(x, 0, sizeof *x);
    if (!(x->instance = dupn(val, n)))
        return NULL;
    c->ninst++;
    return x;
}

/* The things besides the histograms that tell which etcd process this scrape is of: for the whole file,
 * and per instance label (each member of a federation file is judged with its own). */
fior_status fior__pidentity_line(pctx *c, const char *name, size_t nn, size_t nlab, const pnum *v)
{
    const plabel *id = NULL;
    if (nn == 14 && !memcmp(name, "etcd_server_id", 14)) {
        id = find_label(c, nlab, "server_id");
        if (!id || v->kind != N_FIN || v->mant == 0)
            return FIOR_OK;
    } else if (!(nn == 26 && !memcmp(name, "process_start_time_seconds", 26) && v->kind == N_FIN)) {
        return FIOR_OK;
    }
    const plabel *il = find_label(c, nlab, "instance");
    pinst *in = il ? inst_of(c, il->val, il->vlen) : NULL;
    if (identity(&c->member, &c->start, &c->nstart, id, v) || (il && !in) ||
        (in && identity(&in->member, &in->start, &in->nstart, id, v))) {
        fior__seterr(c->r, "%s: out of memory", c->src);
        return FIOR_E_NOMEM;
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
fior_status fior__pseries_job(pctx *c, pseries *s)
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
    /* a series with an instance label takes that instance's identity when its lines gave one */
    const pinst *in = NULL;
    for (size_t i = 0; s->instance && i < c->ninst; i++)
        if (!strcmp(c->inst[i].instance, s->instance))
            in = &c->inst[i];
    const char *member = in && in->member ? in->member : c->member;
    if (fior__job_set(&jb.j.source, c->src, strlen(c->src)) ||
        (s->instance && fior__job_set(&jb.j.host, s->instance, strlen(s->instance))) ||
        (defect[0] && fior__job_set(&jb.j.defect, defect, strlen(defect))) ||
        (member && member[0] && fior__job_set(&jb.j.etcd_member, member, strlen(member))))
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
    if (in && in->nstart)
        jb.j.process_start_s = in->nstart == 1 ? fior__pnum_double(&in->start) : 0;
    else
        jb.j.process_start_s = c->nstart == 1 ? fior__pnum_double(&c->start) : 0;
    if (fior__report_push(c->r, &jb))
        goto nomem;
    return FIOR_OK;
nomem:
    fior__job_clear(&jb);
    fior__seterr(c->r, "%s: out of memory", c->src);
    return FIOR_E_NOMEM;
}
