/* SPDX-License-Identifier: MIT */
/* profile.h — the etcd profile: renders the fio job file (a WAL job and a backend job on one directory)
 * for an `etcdctl check perf`-like load level. Used by `etcd-fio job`, `check` and `fleet`. */
#ifndef ETCD_FIO_PROFILE_H
#define ETCD_FIO_PROFILE_H

#include <stdio.h>

typedef struct profile_opts {
    const char *load;            /* "s", "m", "l", "xl" */
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
#define PROFILE_MIN_RUNTIME_S   12u
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
/* 1 if name is a known load level. */
int profile_load_valid(const char *name);

#endif
