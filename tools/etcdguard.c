/* SPDX-License-Identifier: MIT */
/* etcdguard.c — the pure decisions of check's watch on a live etcd (see etcdguard.h): the library reads
 * and judges etcd's histograms (fior_parse_buffer, fior_report_window, fior_judge, fior_bucket_bounds);
 * this file picks the two roles out and says what they mean for the check. */
#include "etcdguard.h"

#include <stdio.h>
#include <string.h>

#include "cli.h"

const char *etcdguard_role_words(int role)
{
    return role == ETCDGUARD_BACKEND ? "backend commit" : "WAL fsync";
}

/* The last bucketed job of a role (with two scrapes that did not pair: the later one's). */
static const fior_job *role_job(const fior_report *r, fior_role role, size_t *idx)
{
    const fior_job *best = NULL;
    for (size_t i = 0; i < fior_report_njobs(r); i++) {
        const fior_job *j = fior_report_job(r, i);
        if (j->bucketed && j->role == role) {
            best = j;
            *idx = i;
        }
    }
    return best;
}

static void judge_report(const fior_report *r, const fior_criteria *c, etcdguard_view *out)
{
    fior_result *res = fior_judge(r, c);
    if (!res) {
        cli_msg(out->err, sizeof out->err, "out of memory");
        return;
    }
    for (int k = 0; k < 2; k++) {
        etcdguard_side *s = &out->side[k];
        size_t i = 0;
        const fior_job *j = role_job(r, k == ETCDGUARD_BACKEND ? FIOR_ROLE_BACKEND : FIOR_ROLE_WAL, &i);
        const fior_judgement *jd = j ? fior_result_job(res, i) : NULL;
        s->verdict = FIOR_UNKNOWN;
        s->hi_ns = UINT64_MAX;
        if (!j || !jd) {
            cli_msg(s->reason, sizeof s->reason, "no %s histogram in etcd's metrics", etcdguard_role_words(k));
            continue;
        }
        s->present = 1;
        s->window = j->window;
        s->samples = j->samples_known ? j->samples : 0;
        s->defect = j->defect != NULL;
        s->bucket_known = !s->defect && fior_bucket_bounds(j->buckets, j->nbuckets, fior_criteria_percentile(c),
                                                           &s->lo_ns, &s->hi_ns) == FIOR_OK;
        s->verdict = jd->verdict;
        cli_msg(s->reason, sizeof s->reason, "%s", jd->reason);
        if (j->etcd_member)
            cli_msg(out->member, sizeof out->member, "%s", j->etcd_member);
        if (j->process_start_s > 0)
            out->start_s = j->process_start_s;
    }
    fior_result_free(res);
}

/* Parses the texts into a new report; NULL with out->err set. */
static fior_report *parse(const char *const *text, const size_t *len, int n, etcdguard_view *out)
{
    fior_report *r = fior_report_new();
    if (!r) {
        cli_msg(out->err, sizeof out->err, "out of memory");
        return NULL;
    }
    static const char *const names[] = {"etcd scrape", "later etcd scrape"};
    for (int i = 0; i < n; i++)
        if (fior_parse_buffer(r, names[i], text[i], len[i]) != FIOR_OK) {
            /* the reader's words are about every format it knows; what matters here is that it is not etcd's */
            cli_msg(out->err, sizeof out->err, "not etcd's /metrics: no Prometheus text with etcd's disk histograms "
                    "(%.150s)", fior_report_error(r));
            fior_report_free(r);
            return NULL;
        }
    return r;
}

void etcdguard_judge_one(const char *text, size_t len, const fior_criteria *c, etcdguard_view *out)
{
    memset(out, 0, sizeof *out);
    fior_report *r = parse(&text, &len, 1, out);
    if (!r)
        return;
    judge_report(r, c, out);
    out->ok = out->side[ETCDGUARD_WAL].present || out->side[ETCDGUARD_BACKEND].present;
    if (!out->ok && !out->err[0])
        cli_msg(out->err, sizeof out->err, "no etcd_disk_wal_fsync_duration_seconds or "
                "etcd_disk_backend_commit_duration_seconds histogram in it: not etcd's /metrics");
    fior_report_free(r);
}

void etcdguard_judge_window(const char *a, size_t alen, const char *b, size_t blen, const fior_criteria *c, etcdguard_view *out)
{
    etcdguard_view va, vb;
    etcdguard_judge_one(a, alen, c, &va);
    etcdguard_judge_one(b, blen, c, &vb);
    memset(out, 0, sizeof *out);
    if (!va.ok || !vb.ok) {
        cli_msg(out->err, sizeof out->err, "%s", !vb.ok ? vb.err : va.err);
        return;
    }
    cli_msg(out->member, sizeof out->member, "%s", vb.member);
    out->start_s = vb.start_s;
    if (strcmp(va.member, vb.member)) { /* the library would not pair them either: say why */
        out->ok = 1;
        for (int k = 0; k < 2; k++) {
            out->side[k].verdict = FIOR_UNKNOWN;
            out->side[k].hi_ns = UINT64_MAX;
            cli_msg(out->side[k].reason, sizeof out->side[k].reason, "the scrapes are of two etcd members (%s, then "
                    "%s)", va.member[0] ? va.member : "none named", vb.member[0] ? vb.member : "none named");
        }
        return;
    }
    const char *t[2] = {a, b};
    size_t l[2] = {alen, blen};
    fior_report *r = parse(t, l, 2, out);
    if (!r)
        return;
    if (fior_report_window(r) != FIOR_OK) {
        cli_msg(out->err, sizeof out->err, "out of memory");
        fior_report_free(r);
        return;
    }
    judge_report(r, c, out);
    out->ok = 1;
    for (int k = 0; k < 2; k++)
        if (out->side[k].present && !out->side[k].window) { /* in one scrape only */
            out->side[k].present = 0;
            out->side[k].verdict = FIOR_UNKNOWN;
            cli_msg(out->side[k].reason, sizeof out->side[k].reason, "the %s histogram is not in both scrapes",
                    etcdguard_role_words(k));
        }
    out->start_s = vb.start_s;
    fior_report_free(r);
}

int etcdguard_crossed(const etcdguard_side *before, const etcdguard_side *window)
{
    return before->present && window->present && window->window && before->verdict == FIOR_PASS &&
           window->verdict == FIOR_FAIL;
}

void etcdguard_range(char *out, size_t n, const etcdguard_side *s)
{
    explain_range r = {s->present && s->bucket_known, s->lo_ns, s->hi_ns};
    explain_fmt_range(out, n, &r);
}

void etcdguard_crossing_words(char *out, size_t n, int role, const etcdguard_side *before, const etcdguard_side *window)
{
    char a[64], b[64];
    etcdguard_range(a, sizeof a, before);
    etcdguard_range(b, sizeof b, window);
    cli_msg(out, n, "its %s p99 rose from %s to %s during the check", etcdguard_role_words(role), a, b);
}

static explain_line *next_line(result_run *r)
{
    return r->nexplain < sizeof r->explain / sizeof r->explain[0] ? &r->explain[r->nexplain++] : NULL;
}

void etcdguard_explain(result_run *r, const etcdguard_view *before, const etcdguard_view *during, const char *guard_why)
{
    explain_line *l;
    if (guard_why && guard_why[0] && (l = next_line(r))) {
        l->rule = "etcd-guard";
        cli_msg(l->why, sizeof l->why, "%s", guard_why);
        l->advice = "the disk has no room for a test beside this etcd's load: test a spare disk of the same kind, "
                    "or this one while etcd is stopped or idle (a lighter --load is gentler but proves less)";
    }
    for (int k = 0; before && during && before->ok && during->ok && k < 2; k++) {
        const etcdguard_side *b = &before->side[k], *d = &during->side[k];
        if (!b->present || !d->present || !b->bucket_known || !d->bucket_known || d->lo_ns < b->hi_ns ||
            b->hi_ns == UINT64_MAX || etcdguard_crossed(b, d))
            continue; /* only a bucket wholly above the one before is proven slower; a crossing is etcd-guard */
        char x[64], y[64];
        etcdguard_range(x, sizeof x, b);
        etcdguard_range(y, sizeof y, d);
        if ((l = next_line(r))) {
            l->rule = "etcd-slowed";
            cli_msg(l->why, sizeof l->why, "etcd's own %s p99 went from %s before the check to %s during it: this "
                    "disk's room beyond etcd's load is small", etcdguard_role_words(k), x, y);
            l->advice = "keep other I/O off etcd's disk; check that etcd's p99 stays well below its threshold at "
                        "the cluster's busiest time";
        }
    }
    /* not-the-disk, explain.h's rule: etcd failed before the check, the disk test of that role passes */
    const result_host *h = r->nhosts ? &r->hosts[0] : NULL;
    if (!before || !before->ok || !h)
        return;
    explain_dist d[4];
    size_t n = 0;
    for (size_t i = 0; i < h->njobs && n < 2; i++) {
        memset(&d[n], 0, sizeof d[n]);
        d[n].label = explain_role_label(EXPLAIN_DISK_TEST, h->jobs[i].role);
        d[n].role = h->jobs[i].role;
        d[n].origin = EXPLAIN_DISK_TEST;
        d[n].verdict = h->jobs[i].verdict;
        d[n].threshold_ns = h->jobs[i].threshold_ns;
        n++;
    }
    static const char *const lab[2] = {"etcd's WAL fsync before the check", "etcd's backend commit before the check"};
    for (int k = 0; k < 2; k++) {
        const etcdguard_side *b = &before->side[k];
        if (!b->present)
            continue;
        memset(&d[n], 0, sizeof d[n]);
        d[n].label = lab[k];
        d[n].role = k == ETCDGUARD_BACKEND ? FIOR_ROLE_BACKEND : FIOR_ROLE_WAL;
        d[n].origin = EXPLAIN_ETCD_METRICS;
        d[n].verdict = b->verdict;
        d[n].threshold_ns = k == ETCDGUARD_BACKEND ? r->backend_threshold_ns : r->wal_threshold_ns;
        d[n].p99 = (explain_range){b->bucket_known, b->lo_ns, b->hi_ns};
        n++;
    }
    explain_line tmp[EXPLAIN_MAX_LINES];
    explain_facts f = {d, n, 0, 0, 0, r->wal_threshold_ns, NULL};
    size_t m = explain(&f, tmp, EXPLAIN_MAX_LINES);
    for (size_t i = 0; i < m; i++)
        if (!strcmp(tmp[i].rule, "not-the-disk") && (l = next_line(r)))
            *l = tmp[i];
}
