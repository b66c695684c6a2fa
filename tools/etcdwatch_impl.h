/* SPDX-License-Identifier: MIT */
/* etcdwatch_impl.h — the watcher's state, between etcdwatch.c (the scraping thread, start and stop) and
 * etcdwatch_report.c (what the watch adds to the check's result and its start line). */
#ifndef ETCD_FIO_ETCDWATCH_IMPL_H
#define ETCD_FIO_ETCDWATCH_IMPL_H

#include <pthread.h>
#include <stdint.h>

#include "etcdguard.h"
#include "etcdwatch.h"

typedef struct ew_scrape {
    char    *text;
    size_t   len;
    double   t;          /* seconds since the first scrape */
    double   start_s;    /* etcd's process_start_time_seconds */
    uint64_t count[2];   /* samples since etcd started, per role */
} ew_scrape;

typedef struct ew_point {
    double  t;
    etcdguard_side side[2];     /* the window the guard judged at t (present 0: none yet) */
} ew_point;

struct etcdwatch {
    char           url[2048], shown[2048], cacert[4096], cert[4096], key[4096];
    scrape_tls     tls;
    fior_criteria *crit;
    double         t0;
    ew_scrape      first;
    etcdguard_view        before;        /* per role: a window before the check, or since etcd started */
    double         before_s[2];   /* that window's length, 0: since etcd started */
    ew_scrape      ring[ETCDWATCH_KEEP]; /* the latest scrapes, oldest first */
    size_t         nring;
    double         last_ok, last_start;
    unsigned       scrapes, failed, restarts;
    char           last_err[400];
    ew_point      *timeline;
    size_t         ntl;
    int            have_during;
    etcdguard_view        during;
    double         during_s, tripped_at;
    pthread_t      th;
    int            running, stop;
    pthread_mutex_t mu;
    pthread_cond_t cv;
};

#endif
