/* SPDX-License-Identifier: MIT */
/* etcdwatch.c — the scraping thread of `check --etcd URL`, its start and stop (see etcdwatch.h); the
 * decisions are etcdguard.c's, what it adds to the result etcdwatch_report.c's. */
#include "etcdwatch.h"
#include "jw.h"

#include "curl_dl.h"
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "cli.h"
#include "etcdguard.h"
#include "etcdwatch_impl.h"
#include "proc.h"

#define EW_TIMELINE 300

static atomic_int g_tripped;
static char g_why[400];

int etcdwatch_tripped(void)
{
    return atomic_load_explicit(&g_tripped, memory_order_acquire);
}

void etcdwatch_why(char *buf, size_t n)
{
    cli_msg(buf, n, "%s", etcdwatch_tripped() ? g_why : "");
}

static void trip(etcdwatch *w, double now, const char *why)
{
    if (etcdwatch_tripped())
        return;
    cli_msg(g_why, sizeof g_why, "stopped to protect the live etcd: %s", why);
    w->tripped_at = now;
    atomic_store_explicit(&g_tripped, 1, memory_order_release);
}

/* A client URL without a path ("https://10.0.0.5:2379") means its /metrics. */
static void metrics_url(const char *in, char *out, size_t n)
{
    CURLU *u = curl_url();
    char *path = NULL, *full = NULL;
    cli_msg(out, n, "%s", in);
    if (u && curl_url_set(u, CURLUPART_URL, in, 0) == CURLUE_OK &&
        curl_url_get(u, CURLUPART_PATH, &path, 0) == CURLUE_OK && (!path[0] || !strcmp(path, "/")) &&
        curl_url_set(u, CURLUPART_PATH, "/metrics", 0) == CURLUE_OK && curl_url_get(u, CURLUPART_URL, &full, 0) == CURLUE_OK)
        cli_msg(out, n, "%s", full);
    curl_free(path);
    curl_free(full);
    curl_url_cleanup(u);
}

static void fill(ew_scrape *s, char *text, size_t len, double t, const etcdguard_view *v)
{
    s->text = text;
    s->len = len;
    s->t = t;
    s->start_s = v->start_s;
    for (int k = 0; k < 2; k++)
        s->count[k] = v->side[k].present ? v->side[k].samples : 0;
}

static void push(etcdwatch *w, const ew_scrape *s)
{
    if (w->nring == ETCDWATCH_KEEP) {
        free(w->ring[0].text);
        memmove(w->ring, w->ring + 1, (ETCDWATCH_KEEP - 1) * sizeof w->ring[0]);
        w->nring--;
    }
    w->ring[w->nring++] = *s;
}

/* The guard on the latest scrape: per role that was below its threshold before, the shortest window
 * ending now (of one etcd process) with the minimum of samples, judged; a crossing trips the guard. */
static void evaluate(etcdwatch *w, double now)
{
    const ew_scrape *last = &w->ring[w->nring - 1];
    ew_point *pt = w->ntl < EW_TIMELINE ? &w->timeline[w->ntl++] : NULL;
    if (pt)
        memset(pt, 0, sizeof *pt), pt->t = now;
    uint64_t min = fior_criteria_min_samples(w->crit);
    for (int k = 0; k < 2; k++) {
        if (w->before.side[k].verdict != FIOR_PASS)
            continue; /* not below before: it cannot cross (and the summary says so) */
        const ew_scrape *from = NULL;
        for (size_t i = w->nring - 1; i-- > 0 && !from;)
            if (w->ring[i].start_s == last->start_s && last->count[k] - w->ring[i].count[k] >= min)
                from = &w->ring[i];
        if (!from && w->first.start_s == last->start_s && last->count[k] - w->first.count[k] >= min)
            from = &w->first;
        if (!from)
            continue;
        etcdguard_view v;
        etcdguard_judge_window(from->text, from->len, last->text, last->len, w->crit, &v);
        if (!v.ok)
            continue;
        if (pt)
            pt->side[k] = v.side[k];
        if (etcdguard_crossed(&w->before.side[k], &v.side[k])) {
            char words[300], why[400];
            etcdguard_crossing_words(words, sizeof words, k, &w->before.side[k], &v.side[k]);
            cli_msg(why, sizeof why, "%s (the last %.0f s, %llu %ss)", words, last->t - from->t,
                    (unsigned long long)v.side[k].samples, k == ETCDGUARD_BACKEND ? "commit" : "fsync");
            trip(w, now, why);
        }
    }
}

static void failed(etcdwatch *w, double now, const char *why)
{
    w->failed++;
    cli_msg(w->last_err, sizeof w->last_err, "%s", why);
    if (now - w->last_ok > ETCDWATCH_BLIND_S) {
        char m[700];
        cli_msg(m, sizeof m, "it has not answered for %.0f s during the check (%.400s); a check that cannot watch it "
                "must not go on", now - w->last_ok, why);
        trip(w, now, m);
    }
}

/* One scrape during the check. */
static void once(etcdwatch *w)
{
    char *buf = NULL, err[400];
    size_t len = 0;
    w->scrapes++;
    int rc = scrape_fetch(w->url, &w->tls, ETCDWATCH_TIMEOUT_S, &buf, &len, err, sizeof err);
    double now = proc_now() - w->t0;
    if (rc) {
        failed(w, now, err);
        return;
    }
    etcdguard_view v;
    etcdguard_judge_one(buf, len, w->crit, &v);
    if (!v.ok || strcmp(v.member, w->before.member)) {
        char why[600];
        if (v.ok)
            cli_msg(why, sizeof why, "%s now answers as etcd member %s, not %s", w->shown, v.member[0] ? v.member :
                    "(none named)", w->before.member[0] ? w->before.member : "(none named)");
        else
            cli_msg(why, sizeof why, "%s: %s", w->shown, v.err);
        free(buf);
        failed(w, now, why);
        return;
    }
    if (v.start_s != w->last_start)
        w->restarts++;
    w->last_start = v.start_s;
    w->last_ok = now;
    ew_scrape s;
    fill(&s, buf, len, now, &v);
    push(w, &s);
    evaluate(w, now);
}

static void *loop(void *arg)
{
    etcdwatch *w = arg;
    pthread_mutex_lock(&w->mu);
    while (!w->stop && !etcdwatch_tripped()) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        ts.tv_sec += (time_t)ETCDWATCH_INTERVAL_S;
        ts.tv_nsec += (long)((ETCDWATCH_INTERVAL_S - (double)(time_t)ETCDWATCH_INTERVAL_S) * 1e9);
        if (ts.tv_nsec >= 1000000000L)
            ts.tv_sec++, ts.tv_nsec -= 1000000000L;
        int r = 0;
        while (!w->stop && r == 0)
            r = pthread_cond_timedwait(&w->cv, &w->mu, &ts);
        if (w->stop)
            break;
        pthread_mutex_unlock(&w->mu);
        once(w);
        pthread_mutex_lock(&w->mu);
    }
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

static void utc(char *out, size_t n, double t)
{
    time_t s = (time_t)t;
    struct tm tm;
    if (!gmtime_r(&s, &tm) || !strftime(out, n, "%Y-%m-%d %H:%M:%S UTC", &tm))
        cli_msg(out, n, "%.0f", t);
}

void etcdwatch_free(etcdwatch *w)
{
    if (!w)
        return;
    if (w->running)
        etcdwatch_stop(w);
    free(w->first.text);
    for (size_t i = 0; i < w->nring; i++)
        free(w->ring[i].text);
    free(w->timeline);
    fior_criteria_free(w->crit);
    pthread_mutex_destroy(&w->mu);
    pthread_cond_destroy(&w->cv);
    free(w);
}

static fior_criteria *copy_crit(const fior_criteria *c)
{
    fior_criteria *n = fior_criteria_new();
    if (n && c) {
        fior_criteria_set_percentile(n, fior_criteria_percentile(c));
        fior_criteria_set_threshold(n, FIOR_ROLE_WAL, fior_criteria_threshold(c, FIOR_ROLE_WAL));
        fior_criteria_set_threshold(n, FIOR_ROLE_BACKEND, fior_criteria_threshold(c, FIOR_ROLE_BACKEND));
        fior_criteria_set_min_samples(n, fior_criteria_min_samples(c));
    }
    return n;
}

/* The baseline, before anything loads the disk: per role the window from the first scrape (s0, taken by
 * the caller) to one ETCDWATCH_INTERVAL_S steps later that holds the minimum of samples, waited for up to
 * ETCDWATCH_BASELINE_S; a role that does not get them there (an idle etcd; backend commits come at most 10
 * times a second) is judged since etcd started. The last scrape becomes the check's start. */
static int baseline(etcdwatch *w, char *s0, size_t l0, char *err, size_t errlen)
{
    etcdguard_view v0;
    etcdguard_judge_one(s0, l0, w->crit, &v0);
    if (!v0.ok) {
        cli_msg(err, errlen, "%s: %s", w->shown, v0.err);
        free(s0);
        return -1;
    }
    char *buf = s0;
    size_t len = l0;
    etcdguard_view v = v0, win;
    memset(&win, 0, sizeof win);
    uint64_t min = fior_criteria_min_samples(w->crit);
    while (proc_now() - w->t0 < ETCDWATCH_BASELINE_S && !check_interrupted) {
        struct timespec ts = {(time_t)ETCDWATCH_INTERVAL_S, 0};
        nanosleep(&ts, NULL);
        char *b = NULL;
        size_t l = 0;
        etcdguard_view vb;
        if (scrape_fetch(w->url, &w->tls, ETCDWATCH_TIMEOUT_S, &b, &l, err, errlen))
            continue; /* the next try, within the time */
        etcdguard_judge_one(b, l, w->crit, &vb);
        if (!vb.ok || strcmp(vb.member, v0.member) || vb.start_s != v0.start_s) {
            free(b);
            continue;
        }
        if (buf != s0)
            free(buf);
        buf = b, len = l, v = vb;
        if (v.side[ETCDGUARD_WAL].samples - v0.side[ETCDGUARD_WAL].samples >= ETCDWATCH_BASELINE_FULL * min)
            break; /* enough for a p99 that one slow fsync in a hundred does not move */
    }
    if (buf != s0)
        etcdguard_judge_window(s0, l0, buf, len, w->crit, &win);
    w->before = v; /* since etcd started, as of the check's start */
    for (int k = 0; k < 2; k++)
        if (win.ok && win.side[k].present && win.side[k].samples >= min) {
            w->before.side[k] = win.side[k];
            w->before_s[k] = proc_now() - w->t0;
        }
    if (buf != s0)
        free(s0);
    w->t0 = proc_now();
    fill(&w->first, buf, len, 0, &v);
    return 0;
}

etcdwatch *etcdwatch_start(const char *url, const scrape_tls *tls, const fior_criteria *c, const liveetcd *le,
                           int force, char *err, size_t errlen)
{
    curl_global_init(CURL_GLOBAL_DEFAULT); /* before the thread: libcurl's global init is not thread-safe */
    etcdwatch *w = calloc(1, sizeof *w);
    if (!w || !(w->timeline = calloc(EW_TIMELINE, sizeof *w->timeline)) || !(w->crit = copy_crit(c))) {
        cli_msg(err, errlen, "out of memory");
        if (w)
            free(w->timeline);
        free(w);
        return NULL;
    }
    pthread_mutex_init(&w->mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&w->cv, &ca);
    pthread_condattr_destroy(&ca);
    metrics_url(url, w->url, sizeof w->url);
    scrape_shown_url(w->url, w->shown, sizeof w->shown);
    if (tls) { /* copied: the thread outlives nothing of the caller's, but keep it self-contained */
        cli_msg(w->cacert, sizeof w->cacert, "%s", tls->cacert ? tls->cacert : "");
        cli_msg(w->cert, sizeof w->cert, "%s", tls->cert ? tls->cert : "");
        cli_msg(w->key, sizeof w->key, "%s", tls->key ? tls->key : "");
        w->tls = (scrape_tls){tls->cacert ? w->cacert : NULL, tls->cert ? w->cert : NULL, tls->key ? w->key : NULL};
    }
    char *buf = NULL;
    size_t len = 0;
    w->t0 = proc_now();
    if (scrape_fetch(w->url, &w->tls, ETCDWATCH_TIMEOUT_S, &buf, &len, err, errlen))
        goto fail;

    etcdguard_view v0; /* the etcd beside the check? decided on the first scrape, before the baseline's wait */
    etcdguard_judge_one(buf, len, w->crit, &v0);
    if (v0.ok && le && le->found && le->pid > 0 && le->start_s > 0 && v0.start_s > 0 &&
        fabs(le->start_s - v0.start_s) > 2.0 && !force) {
        char a[64], b[64];
        free(buf);
        utc(a, sizeof a, v0.start_s);
        utc(b, sizeof b, le->start_s);
        cli_msg(err, errlen, "%s: that etcd started at %s, but the etcd using this filesystem (pid %ld, %s) started "
                "at %s: it is not the etcd beside the check; give that etcd's own URL (or --force to watch this one)",
                w->shown, a, le->pid, le->datadir[0] ? le->datadir : "data directory not visible", b);
        goto fail;
    }
    if (baseline(w, buf, len, err, errlen))
        goto fail;
    w->last_start = w->first.start_s;
    if (pthread_create(&w->th, NULL, loop, w) != 0) {
        cli_msg(err, errlen, "cannot start the thread that watches etcd");
        goto fail;
    }
    w->running = 1;
    return w;
fail:
    etcdwatch_free(w);
    return NULL;
}

void etcdwatch_stop(etcdwatch *w)
{
    if (!w || !w->running)
        return;
    pthread_mutex_lock(&w->mu);
    w->stop = 1;
    pthread_cond_signal(&w->cv);
    pthread_mutex_unlock(&w->mu);
    pthread_join(w->th, NULL);
    w->running = 0;
    /* the last scrape: after the check */
    char *buf = NULL, err[400];
    size_t len = 0;
    etcdguard_view v;
    w->scrapes++;
    if (scrape_fetch(w->url, &w->tls, ETCDWATCH_TIMEOUT_S, &buf, &len, err, sizeof err) == 0) {
        etcdguard_judge_one(buf, len, w->crit, &v);
        if (v.ok && !strcmp(v.member, w->before.member)) {
            if (v.start_s != w->last_start)
                w->restarts++;
            ew_scrape s;
            fill(&s, buf, len, proc_now() - w->t0, &v);
            push(w, &s);
        } else {
            free(buf);
            w->failed++;
        }
    } else {
        w->failed++;
        cli_msg(w->last_err, sizeof w->last_err, "%s", err);
    }
    /* during: from the first scrape of etcd's last process to the last scrape */
    const ew_scrape *last = w->nring ? &w->ring[w->nring - 1] : NULL, *from = NULL;
    if (last && w->first.start_s == last->start_s)
        from = &w->first;
    for (size_t i = 0; last && !from && i + 1 < w->nring; i++)
        if (w->ring[i].start_s == last->start_s)
            from = &w->ring[i];
    if (from) {
        etcdguard_judge_window(from->text, from->len, last->text, last->len, w->crit, &w->during);
        w->have_during = w->during.ok;
        w->during_s = last->t - from->t;
    }
}
