/* SPDX-License-Identifier: MIT */
/* capacity.h — `etcd-fio capacity DIR`: how many puts a second this disk lets etcd do at N closed-loop
 * clients. One fio run per client count (the engine's closed-loop load, engine/load.h: a WAL job whose
 * writes are raft Readys and a backend job committing etcd's batches), each read into a row; then one
 * decision (capacity_decide, the only place a verdict is made, from libfioreport's judgement and quantile
 * bound) gives the ceiling: the highest write rate whose WAL fdatasync p99 and backend commit p99 are both
 * below their thresholds with confidence. Split as check is: capacity_run.c (job file, fio, reading a
 * row), capacity_judge.c (the decision, the limit of a row), capacity_out.c (table, JSON, HTML). */
#ifndef ETCD_FIO_CAPACITY_H
#define ETCD_FIO_CAPACITY_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "fioreport.h"
#include "proc.h"
#include "result.h"

#define CAPACITY_MAX_COUNTS 16
#define CAPACITY_MAX_CLIENTS 100000u   /* the engine's LD_MAX_CLIENTS */

struct fleet;
struct quorum_row;

typedef struct capacity_opts {
    const char *dir, *html;
    unsigned    clients[CAPACITY_MAX_COUNTS];
    size_t      ncounts;
    unsigned    key_bytes, val_bytes;
    double      step_s;           /* seconds per client count in the sweep */
    double      max_time;         /* the whole run's limit */
    double      confidence;
    double      client_us, apply_us, cpu_us; /* the model's client turnaround, apply and raft-loop cost per put */
    int         json, force, accept_point, verbose;
    struct fleet *members;        /* --member: three fio servers (quorum.h), the first one the leader; NULL: this
                                   * machine's DIR, one member */
    double      rtt_ms;           /* --rtt: leader -> follower -> leader */
    double      ready_us;         /* --ready-us: each member's work per Ready (the quorum replay) */
    int         shared_core;      /* --shared-core: the members' raft-loop work takes turns on one core */
    uint64_t    put_gap_ns;       /* the job's etcd_put_gap_ns (0: none): a member paced at the cluster's rate */
} capacity_opts;

/* What one client count's run gave. Numbers unknown are RESULT_UNKNOWN (0 for rates). */
typedef struct capacity_row {
    unsigned    clients;
    int         ran;              /* fio ran and both jobs' results were read */
    char        why[512];         /* when not: what happened */
    double      seconds;          /* fio's run */
    char        fio_version[64];  /* as fio's output names it ("fio-3.33"), or "" */
    double      writes_per_s;
    uint64_t    lat_p50_ns, lat_p90_ns, lat_p99_ns;
    double      entries_per_save;
    uint64_t    puts, saves, commits;
    /* shares of the load's span (engine/load.h ld_stats) */
    double      save_share, cpu_share, apply_share, blocked_share, write_share; /* write_share: of the Saves'
                                                                                 * time, what was not fdatasync */
    int         excluded;         /* its confirmation run did not pass: no candidate again */
    fior_bin   *wal_bins, *be_bins; /* fio's json+ bins of the WAL Saves and the backend commits (owned); of a
                                   * quorum row, those of the member that decides its verdict (quorum.h) */
    size_t      nwal, nbe;
    uint64_t    wal_n, be_n;
    uint64_t    wal_p99_ns, be_p99_ns;
    /* filled by capacity_decide */
    fior_verdict verdict;         /* pass: both p99 bounds below their thresholds; fail: one above */
    result_basis    basis;
    uint64_t    wal_lo_ns, wal_hi_ns, be_lo_ns, be_hi_ns;
    char        reason[512];
    struct quorum_row *q;           /* three members' runs and their combination (owned), or NULL */
} capacity_row;

typedef struct capacity_result {
    capacity_row     rows[CAPACITY_MAX_COUNTS + 2]; /* the sweep, then its confirmation runs */
    size_t      nrows, nsweep;
    int         ceiling;          /* index of the row that gives the ceiling, -1 when none */
    fior_verdict verdict;
    result_basis    basis;
    char        reason[1024];     /* the one-line answer */
    double      seconds;
    int         interrupted;
    int         confirm_skipped;  /* the confirmation run would not have fitted in --max-time */
} capacity_result;

/* capacity_run.c */
extern volatile int capacity_interrupted;
/* Runs one client count for `seconds` in a private temp dir (job, stderr, stats files) on fi_path; fills row.
 * 0, or -1 when fio could not be started (message in err). */
int  capacity_run_row(const capacity_opts *o, const char *fi_path, const char *engine, unsigned clients, double seconds,
                 capacity_row *row, char *err, size_t errlen);
/* The job file of one run (two jobs sharing the closed loop). 0 or -1. */
int  capacity_job_write(FILE *f, const capacity_opts *o, const char *dir, const char *engine, unsigned clients, double seconds,
                   const char *wal_stats, const char *be_stats, char *err, size_t errlen);
/* Reads fio's json+ output and the two stats files into row (pure but for the file reads). */
void capacity_read_row(capacity_row *row, const char *fio_json, const char *wal_stats, const char *be_stats);
/* Adds b's samples to a (the same client count run again: one row from both). */
void capacity_row_merge(capacity_row *a, const capacity_row *b);
/* A row of `clients` that has not run: every figure unknown. */
void capacity_row_init(capacity_row *row, unsigned clients);
/* Frees a disk's row's bins (the row then has none); a row that may be a quorum row is freed (and merged)
 * by quorum_row_free (quorum_row_merge), which frees its members too. */
void capacity_row_drop_bins(capacity_row *row);
void capacity_row_free(capacity_row *row);

/* capacity_judge.c: pure */
/* Judges every row and picks the ceiling (the only decision of capacity: it asks libfioreport). */
void capacity_decide(capacity_result *res, const fior_criteria *c, double confidence, int accept_point);
/* The sweep row a confirmation run should repeat (the backend's p99 is what a short step cannot bound; the
 * WAL's thousands of Saves usually can): the fastest whose WAL bound is already below its threshold and
 * whose backend point estimate is, else the fastest whose point estimates both are; never an excluded row
 * or one a bound failed; -1 when none. Call after capacity_decide. */
int  capacity_candidate(const capacity_result *res, const fior_criteria *c, double confidence);
/* Backend commits a bound at `confidence` needs before it can say PASS on a p99 (libfioreport's bound). */
uint64_t capacity_samples_needed(double confidence);
/* What limits a row, from the model's shares: "fdatasync latency", "disk bandwidth", "backend commits",
 * "CPU (etcd's work per put): not the disk", "the clients' round trip: not the disk". */
const char *capacity_limit(const capacity_row *row);
/* 1 when capacity_limit says the disk is not the limit. */
int  capacity_limit_not_disk(const capacity_row *row);

/* capacity_out.c */
void capacity_table(FILE *f, const capacity_result *res, const fior_criteria *c, int verbose);
/* The result model (result.h) of the run, for the JSON writer: one host with the ceiling row's jobs, the
 * rows in details.capacity. */
int  capacity_model(result_run *r, const capacity_result *res, const capacity_opts *o, const fior_criteria *c, const char *dir);
int  capacity_html(const char *path, const result_run *r, const capacity_result *res, char *err, size_t errlen);

#endif
