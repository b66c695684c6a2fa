/* SPDX-License-Identifier: MIT */
/* etcdwatch.h — `check --etcd URL`: watching the live etcd beside the check. One scrape of its /metrics
 * before the check (the baseline: its histograms since it started), one every ETCDWATCH_INTERVAL_S while the
 * check runs (a thread of its own, so that a slow or hanging etcd never delays the reading of fio's
 * output), one after. Each new scrape is judged (etcdguard.h) in the shortest window ending at it that holds
 * the library's minimum of samples; when a role that was below its threshold before is at or above it in
 * that window, the guard trips: etcdwatch_tripped() turns 1 and check stops fio at once (check_run), the
 * run is unknown with etcdwatch_why(). The guard also trips when this etcd has not answered for
 * ETCDWATCH_BLIND_S (a check that cannot watch etcd any more must not go on loading its disk). At the end
 * the result gets etcd's own p99s before vs during the check (detail "etcd") and explain lines. One watch
 * per process. The baseline ("before") is a window of up to ETCDWATCH_BASELINE_S taken before anything
 * loads the disk (shorter when etcd is busy), or etcd's histograms since it started when that window
 * holds fewer than the minimum of samples (an idle etcd; the backend commits at most 10 times a second). */
#ifndef ETCD_FIO_ETCDWATCH_H
#define ETCD_FIO_ETCDWATCH_H

#include <stddef.h>

#include "fioreport.h"
#include "liveetcd.h"
#include "result.h"
#include "scrape.h"

#define ETCDWATCH_INTERVAL_S 2.0
#define ETCDWATCH_TIMEOUT_S  5L     /* one scrape, connecting included */
#define ETCDWATCH_BLIND_S    15.0
#define ETCDWATCH_BASELINE_S 5.0    /* the longest wait for a baseline window before the check */
#define ETCDWATCH_BASELINE_FULL 10  /* ... which ends sooner with 10 x the minimum of WAL samples */
#define ETCDWATCH_KEEP       24     /* scrapes kept for the windows, besides the first */

typedef struct etcdwatch etcdwatch;

/* Takes the first scrape of url (a client URL without a path means its /metrics) and starts the thread.
 * NULL with a one-line message in err when etcd cannot be watched: no answer, not etcd's /metrics, or not
 * the etcd found on DIR's filesystem (le, by its process start time; force watches it anyway). The
 * criteria (thresholds, percentile, minimum samples) are copied. */
etcdwatch *etcdwatch_start(const char *url, const scrape_tls *tls, const fior_criteria *c, const liveetcd *le,
                           int force, char *err, size_t errlen);
/* 1 once the guard has tripped (any thread; 0 without a watch). */
int  etcdwatch_tripped(void);
/* Why it tripped ("stopped to protect the live etcd: its WAL fsync p99 rose from ..."), "" before. */
void etcdwatch_why(char *buf, size_t n);
/* Stops the thread and takes the last scrape. */
void etcdwatch_stop(etcdwatch *w);
/* Adds the "etcd" detail and the explain lines to r, and, when the guard tripped at any point, makes host
 * h unknown with its reason (status etcd-guard). Call after the host is judged, before result_finish. */
void etcdwatch_report(const etcdwatch *w, result_run *r, result_host *h);
/* The one-line summary printed when the watch starts (what the baseline says). */
void etcdwatch_describe_start(const etcdwatch *w, char *buf, size_t n);
void etcdwatch_free(etcdwatch *w);

#endif
