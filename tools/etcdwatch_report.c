/* SPDX-License-Identifier: MIT */
/* etcdwatch_report.c — what `check --etcd URL`'s watch adds to the result (see etcdwatch.h): the etcd
 * windows before and during the check as JSON and words, and the line saying what is watched at the
 * start. etcdwatch.c runs the watch. */
#include "etcdwatch.h"
#include "jw.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cli.h"
#include "etcdguard.h"
#include "etcdwatch_impl.h"

/* one side of a view (null when absent); win_s >= 0: its "window_s" too (0: null, "since etcd started") */
static void side_json(yajl_gen g, const etcdguard_side *s, double win_s)
{
    if (!s->present) {
        jw_null(g);
        return;
    }
    jw_open(g);
    jw_ku64(g, "samples", s->samples);
    jw_ku64(g, "p99_lo_ns", s->bucket_known ? s->lo_ns : JW_UNKNOWN);
    jw_ku64(g, "p99_hi_ns", s->bucket_known ? s->hi_ns : JW_UNKNOWN);
    jw_kstr(g, "verdict", fior_verdict_name(s->verdict));
    jw_kstr(g, "reason", s->reason);
    if (win_s >= 0) {
        if (win_s > 0)
            jw_knum(g, "window_s", win_s);
        else
            jw_knull(g, "window_s");
    }
    jw_close(g);
}

static void view_json(yajl_gen g, const etcdguard_view *v, const double *win_s)
{
    jw_open(g); /* before: each side's window, or null for "since etcd started" */
    jw_key(g, "wal");
    side_json(g, &v->side[ETCDGUARD_WAL], win_s ? win_s[ETCDGUARD_WAL] : -1);
    jw_key(g, "backend");
    side_json(g, &v->side[ETCDGUARD_BACKEND], win_s ? win_s[ETCDGUARD_BACKEND] : -1);
    jw_close(g);
}

/* "<= 2 ms (pass, 1234 in 4 s)" */
static void side_words(char *out, size_t n, const etcdguard_side *s, double win_s)
{
    char r[64], when[64];
    etcdguard_range(r, sizeof r, s);
    if (win_s > 0)
        cli_msg(when, sizeof when, "in %.0f s", win_s);
    else
        cli_msg(when, sizeof when, "since etcd started");
    if (!s->present)
        cli_msg(out, n, "? (%s)", s->reason);
    else
        cli_msg(out, n, "%s (%s, %llu %s)", r, fior_verdict_name(s->verdict), (unsigned long long)s->samples, when);
}

void etcdwatch_describe_start(const etcdwatch *w, char *buf, size_t n)
{
    char a[300], b[300], cant[300] = "";
    side_words(a, sizeof a, &w->before.side[ETCDGUARD_WAL], w->before_s[ETCDGUARD_WAL]);
    side_words(b, sizeof b, &w->before.side[ETCDGUARD_BACKEND], w->before_s[ETCDGUARD_BACKEND]);
    for (int k = 0; k < 2 && !cant[0]; k++)
        if (w->before.side[k].verdict != FIOR_PASS)
            cli_msg(cant, sizeof cant, "; the guard cannot watch the %s p99, which was not below its threshold "
                    "before: %s", etcdguard_role_words(k), w->before.side[k].reason);
    cli_msg(buf, n, "watching etcd at %s%s%s: before the check, WAL fsync p99 %s, backend commit p99 %s; the check "
            "stops if either crosses its threshold%s", w->shown, w->before.member[0] ? ", member " : "",
            w->before.member, a, b, cant);
}

void etcdwatch_report(const etcdwatch *w, result_run *r, result_host *h)
{
    char why[400];
    etcdwatch_why(why, sizeof why);
    yajl_gen j = jw_new(0);
    jw_open(j);
    jw_kstr(j, "url", w->shown);
    jw_kstr_or_null(j, "member", w->before.member);
    jw_key(j, "before");
    view_json(j, &w->before, w->before_s);
    jw_key(j, "during");
    if (w->have_during)
        view_json(j, &w->during, NULL);
    else
        jw_null(j);
    if (w->have_during)
        jw_knum(j, "during_seconds", w->during_s);
    else
        jw_knull(j, "during_seconds");
    jw_ku64(j, "scrapes", (uint64_t)w->scrapes + 1);
    jw_ku64(j, "failed_scrapes", w->failed);
    jw_kbool(j, "restarted", w->restarts > 0);
    jw_key(j, "guard");
    jw_open(j);
    jw_kbool(j, "fired", why[0] != '\0');
    jw_kstr_or_null(j, "why", why);
    if (why[0])
        jw_knum(j, "at_s", w->tripped_at);
    else
        jw_knull(j, "at_s");
    jw_close(j);
    jw_key(j, "timeline");
    jw_aopen(j);
    for (size_t i = 0; i < w->ntl; i++) {
        jw_open(j);
        jw_knum(j, "t", w->timeline[i].t);
        jw_key(j, "wal");
        side_json(j, &w->timeline[i].side[ETCDGUARD_WAL], -1);
        jw_key(j, "backend");
        side_json(j, &w->timeline[i].side[ETCDGUARD_BACKEND], -1);
        jw_close(j);
    }
    jw_aclose(j);
    jw_close(j);
    char bw[64], bb[64], dw[64] = "?", db[64] = "?", extra[500] = "";
    etcdguard_range(bw, sizeof bw, &w->before.side[ETCDGUARD_WAL]);
    etcdguard_range(bb, sizeof bb, &w->before.side[ETCDGUARD_BACKEND]);
    if (w->have_during) {
        etcdguard_range(dw, sizeof dw, &w->during.side[ETCDGUARD_WAL]);
        etcdguard_range(db, sizeof db, &w->during.side[ETCDGUARD_BACKEND]);
    }
    if (w->failed)
        cli_msg(extra, sizeof extra, "; %u of %u scrapes failed (last: %.200s)", w->failed, w->scrapes + 1, w->last_err);
    result_add_detail(r, "etcd", "etcd itself", j, "WAL fsync p99 %s before the check, %s during it; backend commit p99 %s "
                  "before, %s during (%s, %.0f s)%s%s%s", bw, dw, bb, db, w->shown, w->during_s,
                  w->restarts ? "; etcd restarted during the check" : "", extra, why[0] ? "; the guard stopped the check" : "");
    etcdguard_explain(r, &w->before, w->have_during ? &w->during : NULL, why);
    if (why[0] && h) { /* whatever the phase it tripped in: no verdict from a run stopped for etcd */
        h->verdict = FIOR_UNKNOWN;
        h->basis = RESULT_BASIS_NONE;
        cli_msg(h->status, sizeof h->status, "etcd-guard");
        if (!strstr(h->reason, why)) {
            char old[sizeof h->reason];
            cli_msg(old, sizeof old, "%s", h->reason);
            cli_msg(h->reason, sizeof h->reason, "%s; not judged (%s)", why, old);
        }
        for (size_t i = 0; i < h->njobs; i++)
            h->jobs[i].verdict = FIOR_UNKNOWN;
    }
}
