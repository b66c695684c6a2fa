/* SPDX-License-Identifier: MIT */
/* fioreport.h — public API of libfioreport 4 for a finished fio run: read fio output (normal, JSON, json+,
 * mixed, status-interval streams, client/server), etcd-perf logs, etcd's /metrics and `etcdctl check perf`,
 * extract the sync (fsync/fdatasync) latency of every job, and judge it the way etcd needs it judged. Never
 * a PASS on missing or untrustworthy data.
 *
 * Two headers: this one (parse, criteria, judge, result, names) is all a program needs to judge outputs
 * that exist; fioreport_monitor.h adds what following a running fio needs (the JSON stream, the monitor that
 * decides while fio runs, its outcome, a confidence bound at the end of a run). Both link -lfioreport
 * (pkg-config libfioreport).
 *
 * Conventions: opaque handles made by *_new() (or fior_judge()) and freed by *_free(), which accept NULL.
 * A call that can fail returns an fior_status; the handle then keeps a one-line message ("FILE:LINE:
 * expected …") for its last error. Nothing exits or aborts. No global state: handles may be used from
 * different threads at once (one handle per thread). All latencies are in nanoseconds. Every string a
 * struct of this header points to is owned by the handle that handed the struct out and lives as long as
 * stated at that function; strings called "static" live for the whole program.
 *
 * ABI: the SONAME is libfioreport.so.FIOR_VERSION_MAJOR (libfioreport.so.4) and changes only with an
 * incompatible change. Every exported symbol is in the linker version script under the node of its major
 * and minor version (FIOR_4.0 holds everything of 4.0; a function added in 4.N goes into a node FIOR_4.N of
 * its own). So that the ABI can grow without breaking:
 *   - reports, criteria, results (and the monitor header's streams, monitors, outcomes, looks) are opaque
 *     or library-allocated: callers never allocate one;
 *   - the structs the library hands out (fior_job, fior_judgement, fior_look) start with `size_t size`, set
 *     by the library to the sizeof of the struct it was built with. Fields are only ever appended, never
 *     moved or removed. They are read-only: never copy one by value (a copy would hold only the fields the
 *     caller's header knows). A program built against a newer header tests a field with
 *     FIOR_HAS(ptr, type, field) before reading it on an older 4.x library;
 *   - the structs the caller fills and hands in (fior_answer, fior_run_end) start with `size_t size` too,
 *     which the caller sets to sizeof: the library reads and writes only what that holds;
 *   - every enum (fior_status, fior_format, fior_role, fior_verdict, …) may gain values: handle a `default:`.
 */
#ifndef FIOREPORT_H
#define FIOREPORT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define FIOR_API __attribute__((visibility("default")))
#else
#define FIOR_API
#endif

/* The one version number of libfioreport, the etcd-fio CLI (`etcd-fio --version`) and libfioreport.pc.
 * FIOR_VERSION_NUMBER is 0xMMmmpp, comparable with fior_version_number() to see what is loaded at run time. */
#define FIOR_VERSION_MAJOR 4
#define FIOR_VERSION_MINOR 0
#define FIOR_VERSION_PATCH 0
#define FIOR__STR2(x) #x
#define FIOR__STR(x) FIOR__STR2(x)
#define FIOR_VERSION \
    FIOR__STR(FIOR_VERSION_MAJOR) "." FIOR__STR(FIOR_VERSION_MINOR) "." FIOR__STR(FIOR_VERSION_PATCH)
#define FIOR_VERSION_NUMBER ((FIOR_VERSION_MAJOR << 16) | (FIOR_VERSION_MINOR << 8) | FIOR_VERSION_PATCH)

/* fior_version: the version of the library actually loaded, "4.0.0" (static string).
 * fior_version_number: the same as 0xMMmmpp (0x040000). A program built with this header runs on a loaded
 * library whose major (fior_version_number() >> 16) is FIOR_VERSION_MAJOR; no error cases. */
FIOR_API const char *fior_version(void);
FIOR_API unsigned    fior_version_number(void);

/* The struct that `ptr` points to (filled by the library, of struct type `type`) holds `field`: its size,
 * set by the library that filled it, reaches past the field. A program built with a newer header than the
 * library it runs with reads a field added in a later 4.x only when this says so, e.g.
 *   if (FIOR_HAS(job, fior_job, runtime_goal_ms)) use(job->runtime_goal_ms);
 * Every field of fior_job and fior_judgement that this header declares is there when the library loaded is
 * at least this header's version (fior_version_number() >= FIOR_VERSION_NUMBER). NULL holds nothing. */
#define FIOR_HAS(ptr, type, field) \
    ((ptr) != NULL && (ptr)->size >= offsetof(type, field) + sizeof((ptr)->field))

/* Enums may gain values in later minor versions (handle a default case). */

typedef enum fior_status {
    FIOR_OK = 0,
    FIOR_E_INVAL,   /* bad argument */
    FIOR_E_NOMEM,   /* allocation failed */
    FIOR_E_IO,      /* could not read the input */
    FIOR_E_PARSE,   /* the input is recognised but malformed or truncated */
    FIOR_E_FORMAT,  /* nothing in the input looks like fio output or an etcd-perf log */
    FIOR_E_NODATA,  /* asked for something the report does not have */
    FIOR_E_TOOBIG   /* the input is larger than the cap (fior_report_set_max_input) */
} fior_status;

typedef enum fior_format {
    FIOR_FMT_UNKNOWN = 0,
    FIOR_FMT_NORMAL,     /* fio's human output (possibly client/server "<host> " prefixed) */
    FIOR_FMT_JSON,       /* fio --output-format=json / json+ (possibly several documents, stray lines) */
    FIOR_FMT_MIXED,      /* normal and JSON in one file */
    FIOR_FMT_ETCD_PERF,  /* etcd-perf container log */
    FIOR_FMT_PROM,       /* Prometheus text scrape of etcd's /metrics (0.0.4 or OpenMetrics) */
    FIOR_FMT_CHECK_PERF  /* `etcdctl check perf` output */
} fior_format;          /* may grow at the end */

/* Which threshold a job is judged against. */
typedef enum fior_role {
    FIOR_ROLE_WAL = 0,   /* WAL-like fdatasync job (default for any fio job): p99 < 10 ms */
    FIOR_ROLE_BACKEND,   /* our engine with etcd_mode=backend (bbolt commit): p99 < 25 ms */
    FIOR_ROLE_CHECK_PERF /* `etcdctl check perf`: etcd as a whole, not a disk (its FAIL fails, its PASS
                          * never passes: FIOR_NOT_JUDGED) */
} fior_role;            /* may grow at the end */

typedef struct fior_pct {
    double   percent;  /* e.g. 99.0 */
    uint64_t ns;
} fior_pct;

/* One cumulative bucket of a Prometheus histogram: `count` samples were <= le_ns. le_ns is UINT64_MAX for
 * the le="+Inf" bucket. */
typedef struct fior_bucket {
    uint64_t le_ns;
    uint64_t count;
} fior_bucket;

typedef struct fior_bin {  /* json+ latency bin: samples whose latency rounds to this value */
    uint64_t ns;
    uint64_t count;
} fior_bin;

/* How a job's run ended, as far as its input tells (fior_job.end). Only PROVEN and INFERRED may pass: a
 * run fio did not finish is never a PASS (its FAIL stays a FAIL: a slow sync that was measured stays
 * measured). May gain values. */
typedef enum fior_end {
    FIOR_END_UNKNOWN = 0,  /* the input says nothing about it (etcd-perf lines; etcd's metrics and etcdctl
                            * check perf, which are not fio runs and are judged by their own rules) */
    FIOR_END_PROVEN,       /* the job's counters reached the end its options set: size or io_size (× loops,
                            * × numjobs when grouped) bytes, number_ios I/Os, or its runtime */
    FIOR_END_INFERRED,     /* a complete output without any sign of a cut, whose input does not carry the
                            * job's end condition (fio's normal output never does): the end is inferred */
    FIOR_END_STOPPED,      /* fio was stopped by a signal (end_signal: its "fio: terminating on signal N"
                            * line) before the job's end, and printed the job's figures after it */
    FIOR_END_DIED,         /* the job's process died or was killed before its end, fio itself carrying on:
                            * "fio: pid=P, got signal=S", a job_runtime of 0 with syncs but no bytes, or
                            * fewer bytes/I/Os than its options ask and no signal line */
    FIOR_END_CUT           /* the input ends before fio's final figures: a --status-interval stream whose
                            * last document/print is an interim one, or a signal line with nothing after */
} fior_end;

/* What made a job's sync samples (fior_job.sync_flags): the options that decide whether its syncs are
 * flushes to a disk. From the job's options (JSON "job options" and "global options") or, where the input
 * has none (normal output), from signs in the data. */
#define FIOR_SYNC_OPTIONS   0x001u /* the job's options are in the input: a flag below that is not set was
                                    * not asked for */
#define FIOR_SYNC_FSYNC     0x002u /* fsync=N */
#define FIOR_SYNC_FDATASYNC 0x004u /* fdatasync=N */
#define FIOR_SYNC_RANGE     0x008u /* sync_file_range=…: only starts writeback, never flushes (normal output:
                                    * the syncs are counted where fio counts sync_file_range) */
#define FIOR_SYNC_O_SYNC    0x010u /* sync=1 / sync=sync: files opened O_SYNC, every write flushes itself */
#define FIOR_SYNC_O_DSYNC   0x020u /* sync=dsync: O_DSYNC, likewise */
#define FIOR_SYNC_DIRECT    0x040u /* direct=1 (O_DIRECT) */
#define FIOR_SYNC_END_FSYNC 0x080u /* end_fsync=1 or fsync_on_close=1: syncs at the end that fio does not time */
#define FIOR_SYNC_ON_CLOSE  0x100u /* fsync_on_close=1 (FIOR_SYNC_END_FSYNC is set with it) */

/* What the input proves about where a job's syncs went (fior_job.medium). Only a PASS is affected: with
 * FIOR_MEDIUM_NOT_DISK it is UNKNOWN; with FIOR_MEDIUM_UNKNOWN it stays a PASS whose medium was inferred
 * from the latencies alone (fior_judgement.medium_inferred), except for syncs an async engine issued
 * through fio 3.4-3.34, which time a failed sync as if it had worked: those need FIOR_MEDIUM_DISK. */
typedef enum fior_medium {
    FIOR_MEDIUM_UNKNOWN = 0,  /* nothing in the input says (no disk stats, no engine line) */
    FIOR_MEDIUM_DISK,         /* fio's disk stats name a block device that is no RAM and wrote at least once
                               * per ten syncs, or the etcd-fio engine found a disk under its directory */
    FIOR_MEDIUM_NOT_DISK      /* the input shows the syncs reached no disk, or went to a device whose medium
                               * it cannot show (a loop device): medium_reason says how */
} fior_medium;

/* The physical floor (fior_criteria_set_floor): no flush of a write to a block device takes less. Measured
 * on this project's machine (bench/flush_floor.sh, man libfioreport(3)): the fastest real fdatasync, ext4
 * without a journal on a RAM-backed loop device, 35 us; tmpfs 0.2-0.5 us, ioengine=null 10-80 ns. */
#define FIOR_FLOOR_DEFAULT_NS 5000u

/* One job (or one client_stats entry) of a report. Read-only; owned by the report (lifetime: see
 * fior_report_job). Fields are only ever appended in later 4.x versions, never moved: never allocate or
 * copy one; test a field newer than the library you may run with by FIOR_HAS(job, fior_job, field). */
typedef struct fior_job {
    size_t      size;         /* sizeof(fior_job) of the library that filled it: the fields it holds */
    const char *source;       /* name given to the parser (file name, "-") */
    const char *host;         /* client/server host name, or NULL */
    int         port;         /* client/server port, or -1 */
    const char *name;         /* job name */
    int         group;        /* groupid, or -1 */
    int         error;        /* fio's err= / "error" value */
    const char *ioengine;     /* from the job options/description, or NULL */
    const char *fio_version;  /* "fio-3.33", or NULL */
    const char *etcd_mode;    /* our engine's etcd_mode option ("wal"/"backend"), or NULL */
    fior_role   role;
    size_t      line;         /* line (text) or byte offset (JSON) where the job was found, 1-based; 0 if unknown */

    int         has_sync;     /* the input has a sync block for this job */
    int         samples_known;
    uint64_t    samples;      /* number of sync operations, if samples_known */
    uint64_t    min_ns, max_ns;
    double      mean_ns, stddev_ns;
    size_t      npct;
    const fior_pct *pct;      /* ascending by percent */
    size_t      nbins;
    const fior_bin *bins;     /* json+ only, ascending by ns; NULL otherwise */

    /* write summary where the input gives it (0 when not) */
    double      write_iops;
    double      write_bw_bytes;   /* bytes per second */
    double      write_clat_mean_ns;

    /* how the samples were taken (each percentile is the middle of a fio histogram bucket, 1/64 of a power
     * of two wide, printed at the input's resolution: the verdict allows for both) */
    int         latency_untimed;   /* the job's options turn latency timing off (gtod_reduce=1) */
    int         sync_requested;    /* the job's options ask for fsync/fdatasync (JSON job options) */

    /* etcd's own metrics (Prometheus scrapes, `etcdctl check perf`) */
    int         bucketed;          /* 1: the latencies are only known to lie between the bucket edges below
                                    * (a Prometheus histogram). pct and bins are then empty, and the verdict
                                    * uses the bucket rule, never the exact-sample rule. */
    size_t      nbuckets;
    const fior_bucket *buckets;    /* ascending by le_ns, cumulative; the last one is +Inf */
    const char *defect;            /* why the reader could not make this job judgeable (e.g. "no le=\"+Inf\"
                                    * bucket"; JSON that contradicts itself about the job: a key given twice,
                                    * "error" or "N" missing, percentiles going down, named with its byte),
                                    * or NULL: the verdict is then UNKNOWN with this reason */
    const char *etcd_member;       /* scrape: etcd_server_id's server_id label, or NULL */
    double      process_start_s;   /* scrape: process_start_time_seconds, 0 when absent */
    int         window;            /* 1: the buckets are the difference of two scrapes (fior_report_window) */
    const char *summary;           /* etcdctl check perf: "throughput 974 writes/s, slowest request 468 ms,
                                    * stddev 28.2 ms" (the failing checks marked), or NULL */

    /* several fio outputs in one input */
    unsigned    run;               /* which fio run of its input the job comes from, 0-based. Several fio outputs
                                    * in one input (concatenated files) are separate runs and every run is
                                    * judged; a --status-interval stream (the same jobs, later timestamps)
                                    * is one run, read from its last document. */

    /* how the job's run ended and what made its sync samples */
    fior_end    end;               /* FIOR_END_*: did the job reach its own end? */
    const char *end_reason;        /* one line on how that is known ("wrote 100 of 100 MiB", "fio was stopped
                                    * by signal 2 after 35 of 100 MiB"), or NULL for FIOR_END_UNKNOWN */
    int         end_signal;        /* N of fio's "fio: terminating on signal N" line in this run, 0 when none */
    unsigned    sync_flags;        /* FIOR_SYNC_*: what made the sync samples */
    const char *directory;         /* the job's directory= and filename= options (JSON), or NULL */
    const char *filename;
    uint64_t    io_bytes;          /* bytes the job read, wrote and trimmed; 0 when not in the input */
    uint64_t    io_goal_bytes;     /* the bytes its options ask for, 0 when they do not say */
    uint64_t    runtime_ms;        /* how long the job ran (JSON job_runtime, normal output's write line) */
    uint64_t    runtime_goal_ms;   /* its runtime= option, 0 when none */
    const char *error_text;        /* fio's words for `error` ("Inappropriate ioctl for device (td_io_queue)"
                                    * from a job header's "error=…, func=…"; a JSON job's from strerror()),
                                    * NULL when error is 0 */

    /* where the syncs went, as far as the input tells (fior_medium) */
    fior_medium medium;            /* FIOR_MEDIUM_*: what the input proves about the medium under the syncs */
    const char *medium_reason;     /* the fact that says so ("disk stats: zram1 is RAM", "filename=/dev/null"),
                                    * NULL for FIOR_MEDIUM_UNKNOWN */
    const char *disk_name;         /* fio's disk stats of the job's run: the first device, or NULL when the
                                    * input has none (JSON "disk_util", text "Disk stats (read/write):") */
    uint64_t    disk_write_ios;    /* the write I/Os of those devices together */
    /* New public fields go above this line. The library's own builds append the readers' private facts
     * here; fior_job.size stops before them, so FIOR_HAS never reaches them. */
#ifdef FIOR__JOB_PRIVATE_FIELDS
    FIOR__JOB_PRIVATE_FIELDS
#endif
} fior_job;

/* ---- reports: parsing inputs ---- */

/* A report holds the jobs of every input parsed into it (opaque). */
typedef struct fior_report fior_report;

/* fior_report_new: a new, empty report. Returns NULL only when out of memory.
 * fior_report_free: frees r and every job, string and array it handed out; NULL is fine. */
FIOR_API fior_report *fior_report_new(void);
FIOR_API void         fior_report_free(fior_report *r);

/* fior_parse_buffer: parses one whole input of len bytes at buf into r. The format is detected from the
 * content, never from a name. `source` names the input in messages and in fior_job.source (copied; NULL
 * gives "-"). Jobs are appended: several inputs may be parsed into one report.
 * Ownership: buf is only read during the call; the caller keeps it.
 * Errors: FIOR_E_INVAL (r NULL, buf NULL with len), FIOR_E_NOMEM, FIOR_E_PARSE (recognised but malformed
 * or truncated: the message names the line or byte), FIOR_E_FORMAT (nothing in it looks like an input this
 * library reads; the message says what it looks like when it knows). On any error the jobs of earlier
 * inputs stay and nothing half-read from this one is added; fior_report_error(r) says why. */
FIOR_API fior_status fior_parse_buffer(fior_report *r, const char *source, const char *buf, size_t len);
/* fior_parse_file: the same for a file; "-" reads stdin. The path is the source.
 * Errors: as fior_parse_buffer, and FIOR_E_IO when the file cannot be read ("FILE: strerror"), and
 * FIOR_E_TOOBIG for an input longer than the report's cap (fior_report_set_max_input): "FILE: byte N: …
 * larger than the cap …" as soon as byte N (cap + 1) arrives; it is never read further. */
FIOR_API fior_status fior_parse_file(fior_report *r, const char *path);

/* The cap on the bytes fior_parse_file() reads from one input, so that /dev/zero or a runaway pipe cannot
 * take the memory: FIOR_MAX_INPUT_DEFAULT (1 GiB) unless set.
 * fior_report_set_max_input: FIOR_E_INVAL for r NULL or 0 bytes (the cap is then unchanged).
 * fior_report_max_input: the cap in force (FIOR_MAX_INPUT_DEFAULT for NULL). */
#define FIOR_MAX_INPUT_DEFAULT ((uint64_t)1 << 30)
FIOR_API fior_status fior_report_set_max_input(fior_report *r, uint64_t bytes);
FIOR_API uint64_t    fior_report_max_input(const fior_report *r);

/* fior_report_error: the message of r's last error, one line "FILE:LINE: expected …" or "FILE: byte N: …",
 * "" when there was none ("no report" for NULL). Owned by r: valid until the next call that parses into r,
 * or fior_report_free(r).
 * fior_strstatus: the words for a status, e.g. "malformed or truncated input" (static string; "unknown
 * status" for a value it does not know).
 * fior_report_format: the format of the last input parsed into r (FIOR_FMT_UNKNOWN before any, or NULL). */
FIOR_API const char *fior_report_error(const fior_report *r);
FIOR_API const char *fior_strstatus(fior_status s);
FIOR_API fior_format fior_report_format(const fior_report *r);

/* fior_report_njobs: the number of jobs in r (0 for NULL).
 * fior_report_job: job i (0-based, in input order), or NULL when i >= njobs.
 * Ownership: the job is r's. The pointer is valid until the next fior_parse_* into r (which may move the
 * job table) or fior_report_free(r); the strings and arrays a job points to live until fior_report_free(r). */
FIOR_API size_t          fior_report_njobs(const fior_report *r);
FIOR_API const fior_job *fior_report_job(const fior_report *r, size_t i);

/* fior_report_window: makes the window between two scrapes of etcd's /metrics. Bucket histograms in a
 * scrape count since etcd started; two scrapes of the same etcd member parsed into one report (in that
 * order) are replaced by their difference, so that only the window between them is judged: every bucketed
 * job is paired with the last later job of the same name, host and etcd member (etcd_server_id, or none in
 * both); the pair becomes one job (window = 1) at the place of the first. A counter that went down, a
 * changed process_start_time_seconds, a missing one (a restart could not be ruled out) or different bucket
 * edges make the window's `defect` say so (UNKNOWN). Jobs without a partner stay as they are.
 * Ownership: job pointers taken from r before the call are invalid after it.
 * Errors: FIOR_E_INVAL for r NULL, FIOR_E_NOMEM (the report is then unchanged). */
FIOR_API fior_status fior_report_window(fior_report *r);
/* fior_bucket_bounds: the bucket of a cumulative histogram (fior_job.buckets, n of them) that holds the
 * `percent` percentile (nearest rank): *lo_ns its lower edge (0 for the first bucket), *hi_ns its upper edge
 * (UINT64_MAX for +Inf); the percentile is in (lo, hi].
 * Errors: FIOR_E_NODATA for an empty histogram, FIOR_E_INVAL for a NULL pointer or percent not in
 * (0, 100); the outputs are then untouched. */
FIOR_API fior_status fior_bucket_bounds(const fior_bucket *b, size_t n, double percent, uint64_t *lo_ns,
                                        uint64_t *hi_ns);

/* ---- criteria and judging ---- */

typedef enum fior_verdict {
    FIOR_PASS = 0,
    FIOR_FAIL = 1,
    FIOR_UNKNOWN = 2,
    FIOR_NOT_JUDGED = 3   /* job without sync samples */
} fior_verdict;

/* What a job is judged against (opaque; curl-style setters). */
typedef struct fior_criteria fior_criteria;

/* fior_criteria_new: the defaults — p99.0, WAL 10 ms, backend 25 ms, at least 100 samples, the physical
 * floor FIOR_FLOOR_DEFAULT_NS, no caller stop. NULL only when out of memory.
 * fior_criteria_free: NULL is fine.
 * fior_criteria_dup: a copy of c (of the defaults for NULL), to change one setting for one judgement; NULL
 * only when out of memory. Criteria are copied by whatever takes them (fior_judge, fior_monitor_new): the
 * caller may free them right after. */
FIOR_API fior_criteria *fior_criteria_new(void);
FIOR_API void           fior_criteria_free(fior_criteria *c);
FIOR_API fior_criteria *fior_criteria_dup(const fior_criteria *c);
/* Setters. Errors: FIOR_E_INVAL, and nothing changes, for c NULL or a bad value: percent not in (0, 100),
 * a threshold of 0, a role other than FIOR_ROLE_WAL and FIOR_ROLE_BACKEND. min_samples: a job with fewer
 * sync samples is UNKNOWN (0 or 1 leave only the other rules). */
FIOR_API fior_status    fior_criteria_set_percentile(fior_criteria *c, double percent);
FIOR_API fior_status    fior_criteria_set_threshold(fior_criteria *c, fior_role role, uint64_t ns);
FIOR_API fior_status    fior_criteria_set_min_samples(fior_criteria *c, uint64_t n);
/* The physical floor: a job whose median sync latency is below floor_ns did not reach a disk (tmpfs,
 * ioengine=null, a cache that acknowledges without a flush) and is UNKNOWN. FIOR_FLOOR_DEFAULT_NS unless
 * set; 0 turns the rule off (for a device known to flush faster, e.g. persistent memory). The setter fails
 * with FIOR_E_INVAL for c NULL only; the getter gives the default for NULL. */
FIOR_API fior_status    fior_criteria_set_floor(fior_criteria *c, uint64_t floor_ns);
FIOR_API uint64_t       fior_criteria_floor(const fior_criteria *c);
/* The caller stopped fio itself with this signal (a program that stops fio with SIGINT once it has its
 * answer): a job stopped by that signal (FIOR_END_STOPPED with end_signal == signo) is judged on the
 * figures fio printed after it. 0 (the default): a run stopped by any signal is never a PASS.
 * Errors: FIOR_E_INVAL for c NULL or a negative signo. The getter gives 0 for NULL. */
FIOR_API fior_status    fior_criteria_set_caller_stop(fior_criteria *c, int signo);
FIOR_API int            fior_criteria_caller_stop(const fior_criteria *c);
/* Getters; with c NULL (or an unknown role) they give the defaults (the WAL threshold for unknown roles). */
FIOR_API double         fior_criteria_percentile(const fior_criteria *c);
FIOR_API uint64_t       fior_criteria_threshold(const fior_criteria *c, fior_role role);
FIOR_API uint64_t       fior_criteria_min_samples(const fior_criteria *c);

/* One job's judgement. Library-owned and read-only (fior_result_job, fior_outcome_judgement); fields are
 * only ever appended, never moved: never allocate or copy one; FIOR_HAS(j, fior_judgement, field) tells
 * whether the library that filled it has a field that a later 4.x added. */
typedef struct fior_judgement {
    size_t       size;          /* sizeof(fior_judgement) of the library that filled it */
    fior_verdict verdict;
    int          value_known;
    uint64_t     value_ns;      /* the percentile value used (or the proving neighbour) */
    uint64_t     threshold_ns;
    const char  *reason;        /* one line naming the criteria's percentile, never NULL; owned by the
                                 * handle that handed the judgement out */
    int          medium_inferred; /* a PASS whose input does not show the syncs reached a disk (its job's
                                   * medium is FIOR_MEDIUM_UNKNOWN): the latencies alone say so */
} fior_judgement;

/* The judgements of one report (opaque). */
typedef struct fior_result fior_result;

/* fior_judge: judges every job of r against c (NULL: the defaults). The result copies what it needs: it
 * does not refer to r or c afterwards and may outlive both. Returns NULL only when out of memory; r NULL
 * or a report without jobs gives an empty result whose verdict is UNKNOWN.
 * fior_result_free: frees res and every judgement and reason it handed out; NULL is fine. */
FIOR_API fior_result *fior_judge(const fior_report *r, const fior_criteria *c);
FIOR_API void         fior_result_free(fior_result *res);
/* fior_result_verdict: the overall verdict, worst wins (fior_verdict_combine): FAIL if any judged job
 * fails, else UNKNOWN if any is unknown or nothing was judged (every job NOT_JUDGED, or no job), else PASS.
 * FIOR_UNKNOWN for NULL.
 * fior_result_count: the number of judgements, == fior_report_njobs(r) at judging (0 for NULL). */
FIOR_API fior_verdict fior_result_verdict(const fior_result *res);
FIOR_API size_t       fior_result_count(const fior_result *res);
/* fior_result_job: the judgement of job i (same index as fior_report_job), or NULL when i >= count.
 * Ownership: res's; the pointer and its reason are valid until fior_result_free(res). */
FIOR_API const fior_judgement *fior_result_job(const fior_result *res, size_t i);

/* ---- aggregation and names ---- */

/* The one aggregation rule; n verdicts at v (NULL with n 0 is fine). fior_verdict_combine: jobs into a host
 * (or a report): FAIL if any fails, else UNKNOWN if any is UNKNOWN (or a value this version does not know)
 * or none is PASS — NOT_JUDGED jobs are left out, but nothing judged is never a PASS —, else PASS.
 * fior_verdict_overall: hosts (or runs) into the overall verdict: FAIL if any fails, else UNKNOWN if any is
 * not PASS (a NOT_JUDGED host too) or there is none, else PASS. */
FIOR_API fior_verdict  fior_verdict_combine(const fior_verdict *v, size_t n);
FIOR_API fior_verdict  fior_verdict_overall(const fior_verdict *v, size_t n);

/* fior_end_name: lower-case static string for fior_job.end: "unknown", "proven", "inferred", "stopped",
 * "died", "cut" ("unknown" for values it does not know). */
FIOR_API const char  *fior_end_name(fior_end e);
/* fior_sync_flags_name: what made the sync samples, in words, from fior_job.sync_flags, into the caller's
 * buf of n bytes (truncated to fit, always terminated when n > 0): "fdatasync", "fsync", "fsync and
 * fdatasync", "sync_file_range", "fdatasync after O_SYNC writes", … or "fsync/fdatasync" when the input does
 * not say which (normal output). Returns buf. */
FIOR_API char        *fior_sync_flags_name(char *buf, size_t n, unsigned sync_flags);
/* fior_verdict_name: lower-case static string, "pass", "fail", "unknown", "not judged" ("unknown" for
 * values it does not know). */
FIOR_API const char  *fior_verdict_name(fior_verdict v);
/* fior_verdict_from_name: its inverse, for verdicts read back (a result JSON, a remote check's answer):
 * exactly one of the words fior_verdict_name gives for a value this library knows — lower case, "not judged"
 * with its one space, nothing around them — sets *out and gives FIOR_OK. Errors: anything else (NULL,
 * another case, blanks, "") is FIOR_E_INVAL, *out unchanged; out may be NULL to only test a word. */
FIOR_API fior_status  fior_verdict_from_name(const char *name, fior_verdict *out);
/* fior_format_ns: a latency for people, 3 significant digits ("2.54 ms", "159 ms", "850 us"), into the
 * caller's buf of n bytes (truncated to fit, always terminated when n > 0). Returns buf. */
FIOR_API char        *fior_format_ns(char *buf, size_t n, uint64_t ns);

#ifdef __cplusplus
}
#endif
#endif /* FIOREPORT_H */
