/* SPDX-License-Identifier: MIT */
/* profile.h — the etcd profile: renders the fio job file (a WAL job and a backend job on one directory)
 * for an `etcdctl check perf`-like load level. Used by `etcd-fio job`, `check` and `fleet`. */
#ifndef ETCD_FIO_PROFILE_H
#define ETCD_FIO_PROFILE_H

#include <stdint.h>
#include <stdio.h>

typedef struct profile_opts {
    const char *load;            /* "s", "m", "l", "xl", "k8s[:NODES]" */
    const char *dir;             /* fio directory= (the engine makes its private dir under it) */
    const char *engine_path;     /* path of libetcdwal.so for ioengine=external:PATH */
    unsigned    runtime_s;       /* 0: the profile's default */
    int         ionice;          /* 1: WAL job at prioclass=2 prio=0 */
    const char *wal_stats_file;  /* etcd_stats_file= of the WAL job, or NULL */
    const char *backend_stats_file;
    unsigned long long segment_bytes; /* 0: etcd's 64,000,000 */
    int         wal_only;        /* 1: leave the backend job out */
    int         heavy;           /* 1: check's phase 1 — heavier than etcd: WAL unthrottled, backend commits
                                  * back to back (same batches and pages); see profile_write */
} profile_opts;

/* The shortest run a verdict can come from: the backend job commits every 100 ms and the library wants
 * 100 samples (10 s), plus fio's start-up. */
#define PROFILE_MIN_RUNTIME_STR "12"
#define PROFILE_BACKEND_COMMITS_PER_S 10.0
/* The first WAL segment starts this many seconds of the load's WAL bytes short of its end
 * (etcd_first_segment_fill), so every run crosses a rollover early. */
#define PROFILE_ROLLOVER_AFTER_S 2u
/* etcd_first_segment_fill= for a load level and segment size (0 when the segment is too small to fill). */
unsigned long long profile_first_fill(const char *load, unsigned long long segment_bytes);

/* Returns 0, or -1 with a one-line message in err. */
int profile_write(FILE *out, const profile_opts *o, char *err, size_t errlen);
/* 1 when fio would misread v as an option value: empty, a control character (it would end the line: a second
 * option could be smuggled in), or an edge blank (fio strips them). */
int profile_value_bad(const char *v);
/* "directory=DIR\n" as fio reads it: fio splits directory= at ':' (several directories), so a literal colon
 * is written as "\:". */
void profile_put_dir(FILE *out, const char *dir);
/* 1 if name is a known load level: s, m, l, xl (and their long names) or k8s[:NODES]. */
int profile_load_valid(const char *name);
/* What the CLI says a --load must be. */
#define PROFILE_LOADS_EXPECTED "expected s, m, l, xl or k8s[:NODES] with NODES 1..5000"
/* The Kubernetes load, k8s[:NODES] (profile.c gives its kinds and their sources). */
#define PROFILE_K8S_NODES_DEFAULT 100u
#define PROFILE_K8S_NODES_MAX 5000u
/* 1 with *nodes for "k8s" or "k8s:N" (N 1..PROFILE_K8S_NODES_MAX), -1 for another "k8s:..." , 0 otherwise. */
int profile_k8s_nodes(const char *name, unsigned *nodes);
/* The etcd_kinds= text of the k8s load of `nodes` nodes (bench/k8s_lab.sh hands the same to putload). */
void profile_k8s_kinds(unsigned nodes, char *out, size_t n);
/* Rough MB/s a load writes (WAL and backend), for the room a run needs. */
double profile_mb_per_s(const char *load);
/* WAL Saves (fdatasyncs) a second under etcd's pace of the load (NULL: s): what a run gathers WAL samples at. */
double profile_saves_per_s(const char *load);
/* The shortest run, in whole seconds, in which every job judged gathers n samples: the backend at
 * PROFILE_BACKEND_COMMITS_PER_S (not judged with wal_only), the WAL at profile_saves_per_s(load) (a k8s load of few
 * nodes: a few Saves a minute); plus start_s for fio's start. why (whylen > 0) gets the pace that sets it:
 * "the WAL syncs about 0.103 times a second under --load k8s:1" or "the backend commits 10 times a second". */
double profile_min_runtime(const char *load, uint64_t n, double start_s, int wal_only, char *why, size_t whylen);

#endif
