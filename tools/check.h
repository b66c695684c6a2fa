/* SPDX-License-Identifier: MIT */
/* check.h — `etcd-fio check`, split like the other subcommands into run (check_run.c: a phase's job file, spawn fio, read its
 * status stream into libfioreport's sequential judge, fior_monitor, and stop fio when it advises), judge
 * (check_judge.c: the library's outcome into the result model; tests/cli/test_check_judge.c) and
 * output (check_out.c: SVG, kept output, the details of the result model); cmd_check.c holds the options
 * and runs these as the steps of one session. */
#ifndef ETCD_FIO_CHECK_H
#define ETCD_FIO_CHECK_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#include "engine_stats.h"
#include "fioreport_cli.h" /* check's own calls of the library: its two phases, its run facts */
#include "fsinfo.h"
#include "preflight.h"
#include "proc.h"
#include "profile.h"
#include "result.h"
#include "scrape.h"

#define CHECK_SEGMENT_BYTES 64000000ull

typedef struct check_opts {
    const char *dir, *load, *prom, *svg, *keep, *html;
    const char *etcd_url;       /* --etcd: watch the live etcd beside the check (etcdwatch.h) */
    scrape_tls  tls;            /* --cacert/--cert/--key for it */
    double      max_time, confidence;
    uint64_t    min_syncs;
    int         full, json, ionice, classic, force, accept_point, verbose;
    int         faithful;       /* --faithful: phase 2 only (fioreport_cli.h "two phases"); --full implies it */
    int         stop_on_eof;    /* --stop-on-eof: stdin's end (its ssh session closed) stops the run as SIGINT does */
    int         wal_only;       /* --wal-only: the WAL question alone; stops as soon as the WAL is decided */
} check_opts;

/* How the fio run ended. */
typedef enum check_stop {
    CHECK_RAN_OUT = 0,  /* fio ended by itself (runtime= reached) */
    CHECK_DECIDED,      /* we stopped it: the bounds decided */
    CHECK_TIME_NET,     /* we stopped it: it ran past --max-time + margin */
    CHECK_USER,         /* the operator interrupted us (we passed SIGINT on) */
    CHECK_PHASE_OVER,   /* phase 1: we stopped it, it can no longer pass (fioreport_cli.h "two phases"); no verdict */
    CHECK_CONFIRMED,    /* phase 2 after a phase-1 PASS: we stopped it, its first seconds confirmed it */
    CHECK_GUARD         /* we stopped it to protect the live etcd beside it (etcdwatch.h) */
} check_stop;

/* Which of check's phases a run is (fioreport_cli.h "two phases"); check_run with NULL is phase 2 alone. */
typedef struct check_phase {
    int                 heavy;      /* phase 1: the heavy profile (fior__monitor_set_heavy) */
    unsigned            runtime_s;  /* the runtime= of this run's job file (0: --max-time) */
    const fior_monitor *carry;      /* phase 2 after phase 1: phase 1's monitor (fior__monitor_continue) */
    int                 probe;      /* phase 1 passed: phase 2 begins with the probe (its status every 200 ms) */
} check_phase;

typedef struct check_end {
    int         started;        /* fio could be started */
    proc_state  state;          /* PROC_EXITED / PROC_SIGNALED */
    int         code;           /* exit status or signal */
    int         stop_level;     /* 0 no signal from us; 1 SIGINT, 2 TERM, 3 KILL */
    check_stop  stop;
    int         complete;       /* fio's final document arrived (after our stop, if any) */
    int         job_signal;     /* a job process died of this signal ("fio: pid=N, got signal=S") */
    unsigned    runtime_s;      /* the runtime= fio was given */
    double      duration_s, decided_at_s;
    uint64_t    decided_syncs;
    int         orphans;        /* job processes outlived fio and were ended by us (proc_end_orphans) */
    int         hung;           /* past --max-time: proc_tree_state() of fio (stopped, stuck in the kernel) */
    int         unended;        /* SIGKILL did not end fio: left behind (proc_abandon) */
    char        guard_why[400]; /* CHECK_GUARD: why etcdwatch stopped the run */
#define CHECK_ORPHAN_GRACE_S 10.0   /* SIGTERM to an orphaned job, then SIGKILL after this */
    char        fio_said[512];  /* last line of fio's stderr */
    char        stream_error[512];
} check_end;

/* check_run.c */
/* The files of one phase's run, in its temp dir (check_keep keeps the deciding one's by these names). */
typedef struct check_files {
    char job[4200], err[4200], ws[4200], bs[4200]; /* job file, fio's stderr, WAL and backend stats */
} check_files;
void check_files_in(check_files *f, const char *dir);
/* The profile po as f->job, its stats files f's; 0, or -1 with "PATH: why" in err. */
int  check_write_job(const check_files *f, profile_opts *po, char *err, size_t errlen);
typedef struct check_run_out {
    char        *raw;           /* fio's stdout, all of it */
    size_t       rawlen;
    fior_json_stream *stream;        /* its last complete document: fior_json_stream_report() */
    fior_monitor *mon;          /* the library's sequential judge over the stream */
    check_end    end;
} check_run_out;
/* Runs fio on jobpath (stderr into errpath); returns 0, or -1 when fio could not be started (err). */
int  check_run(const check_opts *o, const fior_criteria *crit, const char *jobpath, const char *errpath,
               const check_phase *ph, check_run_out *out, char *err, size_t errlen);
void check_run_free(check_run_out *out);
int  check_job_signal(const char *errpath);
/* Set by the SIGINT/SIGTERM handler that check installs. */
extern volatile int check_interrupted;
/* The job of the role as the library's monitor picks it (fior__monitor_pick). */
const fior_job *check_find_job(const fior_report *r, fior_role role);
/* A monitor with check's settings (--confidence, --min-syncs, --full, --accept-point-estimate, --wal-only);
 * NULL when out of memory. */
fior_monitor *check_monitor(const check_opts *o, const fior_criteria *c, int heavy);
/* 1 when the WAL and backend jobs of r (check_find_job) come from fio's final document: the library's
 * run-ended flag (fior_job.end) is neither "cut" nor unknown. 0 when not, or there is no such job. */
int check_final(const fior_report *r);
int check_ran_out(const fior_report *r); /* both jobs ran their runtime= out: fio's final document */
/* The shortest --max-time that can decide a PASS: the first look that can pass, of the backend (10 commits a
 * second; not with wal_only) and of the WAL at the load's pace; why (may be NULL) says which limits it. */
double check_min_time(double confidence, uint64_t min_syncs, int accept_point, const char *load, int wal_only,
                      char *why, size_t whylen);

/* check_judge.c: pure */
/* How fio ended, as the library's run facts (f's strings point into e). */
void check_facts(const check_end *e, fior__run_facts *f);
/* The library's verdict of one phase's run (fior__monitor_end over its final document); NULL: no memory. */
fior_outcome *check_outcome(const check_run_out *r);
/* The host h (jobs WAL then backend) from the library's outcome o and the final document fin. */
void check_fill(const fior_outcome *o, const fior_report *fin, result_host *h);
/* Both: judges the final document `fin` (NULL when there is none) with monitor m and how fio ended, into h. */
void check_judge(const fior_report *fin, fior_monitor *m, const check_end *end, result_host *h);

/* check_classic.c: the classic fio job (sync, fdatasync=1, bs=2300, 22 MiB) in a private directory. */
typedef struct classic_out {
    int      ran, ok;
    uint64_t syncs, p99;
    fior_verdict verdict;
    double   seconds;
    char     err[512];
} classic_out;
void check_classic(const char *dir, const char *tmp, const fior_criteria *c, classic_out *out);

/* check_out.c */
void check_details(result_run *r, const check_opts *o, const check_end *end, const engine_stats *wal,
                   const engine_stats *be, const classic_out *classic, const fsinfo *fi);
/* The "phases" detail: what phase 1 (r1, NULL when it did not run) and phase 2 (r2, NULL when it did not
 * run; ph2 its probe) did, and which one the verdict comes from. */
void check_phases_detail(result_run *r, const check_run_out *r1, const check_run_out *r2, int by_phase1);
int  check_svg(const result_run *r, const char *path, const char *fsdesc, char *err, size_t errlen);
/* What the progress line says of the phase running: its name (long and short; "" for a single run), whether
 * a pass in it can still be withdrawn (phase 1: "provisional"), the samples the first look that can pass
 * needs (fior_first_pass_samples; 0: none to count to) and --wal-only. */
typedef struct check_progress_ctx {
    const char *phase, *phase_short;
    int         provisional;
    uint64_t    need;
    int         wal_only;
} check_progress_ctx;
/* The progress line of a running check, fitted to `width` columns (check_run.c); c NULL: a single run. */
void check_progress_fmt(char *out, size_t n, const fior_monitor *m, const check_progress_ctx *c, double elapsed,
                        int width);
/* The same picture into a stream (for --html); 0 or -1. */
int  check_svg_write(FILE *f, const result_run *r, const char *fsdesc);
/* The HTML report (out_html) with that picture inline. */
int  check_html(const result_run *r, const char *path, const char *fsdesc, char *err, size_t errlen);
int  check_keep(int dirfd, const check_opts *o, const char *tmp, const char *raw, size_t rawlen, char *err,
                size_t errlen);
/* The filesystem's weak mount options and the memory pressure seen during the run, as details and
 * explain lines (explain.h "unsafe-mount", "memory-pressure"); mp may be NULL. */
struct mempress_result;
void check_env_details(result_run *r, const fsinfo *fi, const struct mempress_result *mp);

/* check_env.c: preloaded libraries, and the refusals --force overrode (check_forced: preflight.h; shown in
 * the result). */
/* LD_PRELOAD / LD_AUDIT of this process (fio inherits them) and the entries of ld_so_preload (NULL:
 * /etc/ld.so.preload), sanitizer runtimes left out, as one line in out; 1 if any. */
int  check_env_preload(char *out, size_t n, const char *ld_so_preload);
/* The engine's report of what could replace file/sync calls inside fio (its stats file's "interposers"). */
int check_env_interposers(const char *stats_json, char *out, size_t n);
void check_forced_add(check_forced *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void check_forced_detail(result_run *r, const check_forced *f);
/* The engine inside fio saw a library that can replace file and sync calls there (a wrapper that preloads
 * it only into fio: not visible before the run), or its stats files (wal_stats, backend_stats) do not say:
 * h's PASS is refused (unknown, "refused"), or with force the run goes on and forced says so. */
void check_refuse_interposed(const char *wal_stats, const char *backend_stats, int force, result_host *h,
                             check_forced *forced);
/* Why fio's run failed, named from what the engine said on fio's stderr (errpath) — "no free inodes",
 * "read-only filesystem", … — into out; "" when the engine said nothing. */
void check_engine_cause(const char *errpath, const char *dir, char *out, size_t n);

#endif
