/* SPDX-License-Identifier: MIT */
/* etcdguard.h — the decisions of check's watch on a live etcd (etcdwatch.h), pure: scrape texts in,
 * judgements and words out, no I/O, no clock (tests/test_etcdguard.c). etcd's own WAL fsync and backend
 * commit histograms are read by the library's Prometheus reader and judged with its bucket rule
 * (fior_judge: PASS when the p99's bucket lies below the threshold, FAIL when it lies at or above it):
 *   before  one scrape taken before the check starts: etcd's histograms since it started;
 *   window  two scrapes of one etcd process differenced by fior_report_window: what etcd did in between.
 * The guard's rule (etcdguard_crossed) is verdict-like and meant to move into libfioreport: a role crossed its
 * threshold when it was below it before (PASS) and is at or above it in the window (FAIL). */
#ifndef ETCD_FIO_ETCDGUARD_H
#define ETCD_FIO_ETCDGUARD_H

#include <stddef.h>
#include <stdint.h>

#include "explain.h"
#include "fioreport.h"
#include "result.h"

enum { ETCDGUARD_WAL = 0, ETCDGUARD_BACKEND = 1 };

/* One role's histogram (WAL fsync or backend commit), judged. */
typedef struct etcdguard_side {
    int          present;     /* the histogram is there (and, for a window, both scrapes had it) */
    int          window;      /* the library paired the two scrapes (same etcd member) */
    uint64_t     samples;
    int          bucket_known;
    uint64_t     lo_ns, hi_ns; /* the bucket holding the p99 (fior_bucket_bounds); hi UINT64_MAX: +Inf */
    fior_verdict verdict;     /* the library's bucket rule (unknown also for too few samples, a restart) */
    char         reason[240]; /* the library's reason */
    int          defect;      /* unknown because of the histogram itself (a restart, a counter reset) */
} etcdguard_side;

/* What one scrape, or a window of two, says. */
typedef struct etcdguard_view {
    int     ok;               /* the text(s) could be read as etcd's /metrics */
    char    err[300];         /* else why */
    char    member[64];       /* etcd_server_id of the (later) scrape, "" when etcd does not say */
    double  start_s;          /* its process_start_time_seconds, 0 when absent */
    etcdguard_side side[2];          /* ETCDGUARD_WAL, ETCDGUARD_BACKEND */
} etcdguard_view;

/* One scrape judged on its own (since etcd started). A scrape without either histogram is not etcd's
 * /metrics: ok 0. */
void etcdguard_judge_one(const char *text, size_t len, const fior_criteria *c, etcdguard_view *out);
/* The window between scrape a and the later scrape b. */
void etcdguard_judge_window(const char *a, size_t alen, const char *b, size_t blen, const fior_criteria *c, etcdguard_view *out);

/* The guard's rule for one role (see above): 1 when it crossed. */
int  etcdguard_crossed(const etcdguard_side *before, const etcdguard_side *window);
/* The p99 as a range: "<= 2 ms", "8-16 ms", "> 8.19 s", "?" (explain_fmt_range). */
void etcdguard_range(char *out, size_t n, const etcdguard_side *s);
/* "its WAL fsync p99 rose from <= 2 ms to 16-32 ms during the check" */
void etcdguard_crossing_words(char *out, size_t n, int role, const etcdguard_side *before, const etcdguard_side *window);
const char *etcdguard_role_words(int role); /* "WAL fsync", "backend commit" */

/* The explain lines of the watch (appended to r): etcd-guard when it stopped the check (why: guard_why),
 * etcd-slowed when a role's p99 bucket during the check lies above the one before it, and not-the-disk
 * (explain.h's rule, from the same data) when etcd was already failing before the check while the disk
 * test of the same role passes. disk: the check's own jobs (host 0), may be NULL. */
void etcdguard_explain(result_run *r, const etcdguard_view *before, const etcdguard_view *during, const char *guard_why);

#endif
