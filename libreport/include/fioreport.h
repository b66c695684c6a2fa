/* SPDX-License-Identifier: MIT */
/* fioreport.h — public API of libfioreport: read fio output (normal, JSON, json+, mixed, status-interval
 * streams, client/server) and etcd-perf logs, extract the sync (fsync/fdatasync) latency block of every job,
 * and judge it the way etcd needs it judged. Never a PASS on missing or untrustworthy data.
 *
 * Conventions (libcurl-like): opaque handles, every call returns an fior_status, and the handle keeps a
 * one-line message ("FILE:LINE: what was expected") for the last error. No global state: handles may be
 * used from different threads at once (one handle per thread). All latencies are in nanoseconds.
 *
 * ABI: the SONAME is libfioreport.so.FIOR_VERSION_MAJOR (libfioreport.so.3) and changes only with an
 * incompatible change. Every exported symbol is listed in the linker version script under a node of its
 * major and minor version (FIOR_3.0 holds everything this header declares; a function added in 3.N goes
 * into a node FIOR_3.N of its own). So that the ABI can grow without breaking:
 *   - reports, streams, criteria, results, monitors and outcomes are opaque handles (setters/getters);
 *   - the structs the library fills and hands out (fior_job, fior_judgement) start with `size_t size`, set
 *     by the library to the sizeof of the struct it was built with. Fields are only ever appended, never
 *     moved or removed. They are read-only and library-owned: callers never allocate one, nor copy one by
 *     value (a copy would hold only the fields the caller's header knows). A program built against a newer
 *     header tests a field with FIOR_HAS(ptr, type, field) before reading it on an older 3.x library;
 *   - the structs the caller fills and hands in (fior_answer, fior_probe, fior_run_facts, fior_look) start with
 *     `size_t size` too, which the caller sets to sizeof: the library reads and writes only what that holds;
 *   - every enum (fior_status, fior_format, fior_role, fior_verdict, …) may gain values: handle a `default:`.
 * Pointer lifetimes are stated at each function returning one. Strings described as "static" live for
 * the whole program.
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

/* The one version number of libfioreport, the etcd-fio CLI (`etcd-fio --version`) and fioreport.pc.
 * FIOR_VERSION_NUMBER is 0xMMmmpp, comparable with fior_version_number() to see what is loaded at run time. */
#define FIOR_VERSION_MAJOR 3
#define FIOR_VERSION_MINOR 1
#define FIOR_VERSION_PATCH 0
#define FIOR__STR2(x) #x
#define FIOR__STR(x) FIOR__STR2(x)
#define FIOR_VERSION \
    FIOR__STR(FIOR_VERSION_MAJOR) "." FIOR__STR(FIOR_VERSION_MINOR) "." FIOR__STR(FIOR_VERSION_PATCH)
#define FIOR_VERSION_NUMBER ((FIOR_VERSION_MAJOR << 16) | (FIOR_VERSION_MINOR << 8) | FIOR_VERSION_PATCH)

/* The version of the library actually loaded: "3.0.0" (static string) and 0x030000. */
FIOR_API const char *fior_version(void);
FIOR_API unsigned    fior_version_number(void);

/* The struct that `ptr` points to (filled by the library, of struct type `type`) holds `field`: its size,
 * set by the library that filled it, reaches past the field. A program built with a newer header than the
 * library it runs with reads a field added in a later 3.x only when this says so, e.g.
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
 * fior_report_job). Fields are only ever appended in later 3.x versions, never moved: never allocate or
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

    /* how the samples were taken and printed */
    uint64_t    pct_resolution_ns; /* pct values were printed rounded to this unit (normal output: 1000 for
                                    * usec, 1000000 for msec); 1 when not rounded (JSON). Either way
                                    * each value is the middle of a fio histogram bucket (1/64 of a power
                                    * of two wide), which the verdict allows for */
    int         latency_untimed;   /* the job's options turn latency timing off (gtod_reduce=1) */
    int         sync_requested;    /* the job's options ask for fsync/fdatasync (JSON job options) */
    long        pid;               /* normal output: pid= of the job header, else -1 */

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
    int         check_verdict;     /* etcdctl check perf: FIOR_PASS / FIOR_FAIL as etcdctl printed it,
                                    * FIOR_UNKNOWN when its final PASS/FAIL line is missing; else -1 */
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
} fior_job;

typedef struct fior_report fior_report;

/* A new, empty report (free with fior_report_free), or NULL when out of memory. */
FIOR_API fior_report *fior_report_new(void);
FIOR_API void         fior_report_free(fior_report *r);  /* NULL is fine */

/* Parse a whole input. The format is detected from the content. `source` names the input in messages and
 * in fior_job.source. Jobs are appended: several inputs may be parsed into one report. On error, the jobs
 * already read from earlier inputs stay; nothing half-read from this input is added. */
FIOR_API fior_status fior_parse_buffer(fior_report *r, const char *source, const char *buf, size_t len);
/* "-" reads stdin. An input longer than the report's cap (fior_report_set_max_input) is refused with
 * FIOR_E_TOOBIG and "FILE: byte N: …larger than the cap…" as soon as byte N (cap + 1) arrives: it is
 * never read further. */
FIOR_API fior_status fior_parse_file(fior_report *r, const char *path);

/* Cap on the bytes fior_parse_file() reads from one input, so that /dev/zero or a runaway pipe cannot
 * take the memory: FIOR_MAX_INPUT_DEFAULT (1 GiB) unless set. FIOR_E_INVAL for 0. */
#define FIOR_MAX_INPUT_DEFAULT ((uint64_t)1 << 30)
FIOR_API fior_status fior_report_set_max_input(fior_report *r, uint64_t bytes);
FIOR_API uint64_t    fior_report_max_input(const fior_report *r);

/* The last error message of r ("" when there was none): valid until the next call that parses into r, or
 * fior_report_free(r). */
FIOR_API const char *fior_report_error(const fior_report *r);
FIOR_API const char *fior_strstatus(fior_status s);             /* static string */
FIOR_API fior_format fior_report_format(const fior_report *r);  /* format of the last input parsed */

FIOR_API size_t          fior_report_njobs(const fior_report *r);
/* Job i (0-based), or NULL when i >= njobs. The pointer is valid until the next fior_parse_* into r (which
 * may move the job table) or fior_report_free(r); the strings and arrays a job points to live until
 * fior_report_free(r). */
FIOR_API const fior_job *fior_report_job(const fior_report *r, size_t i);

/* Bucket histograms in a scrape count since etcd started. Two scrapes of the same etcd member parsed into
 * one report (in that order) are replaced by their difference, so that only the window between them is
 * judged: every bucketed job is paired with the last later job of the same name, host and etcd member
 * (etcd_server_id, or none in both); the pair becomes one job (window = 1) at the place of the first.
 * A counter that went down, a changed process_start_time_seconds, a missing process_start_time_seconds
 * (a restart could not be ruled out) or different bucket edges make the window's `defect` say so (UNKNOWN).
 * Jobs without a partner stay as they are. Returns FIOR_OK, or FIOR_E_NOMEM (the report is then
 * unchanged). */
FIOR_API fior_status fior_report_window(fior_report *r);
/* The bucket of a cumulative histogram (fior_job.buckets) that holds the `percent` percentile (nearest
 * rank): *lo_ns its lower edge (0 for the first bucket), *hi_ns its upper edge (UINT64_MAX for +Inf); the
 * percentile is in (lo, hi]. FIOR_E_NODATA for an empty histogram, FIOR_E_INVAL for bad arguments. */
FIOR_API fior_status fior_bucket_bounds(const fior_bucket *b, size_t n, double percent, uint64_t *lo_ns,
                                        uint64_t *hi_ns);

/* ---- incremental reading of fio's JSON output as fio writes it (fior_json_stream) ----
 * What it reads, and only that: fio's --output-format=json / json+ documents, above all the documents of a
 * --status-interval run (one every interval, the final one when the jobs end). fio's normal-output status
 * prints are not read by a stream: like fio's stray lines, any text between documents is skipped. A whole
 * output in any format (normal ones included, with their status prints) is read by fior_parse_buffer() or
 * fior_parse_file().
 * Feed bytes as they arrive (split anywhere); every complete JSON document replaces its run's jobs in the
 * stream's report, and a document of another fio run (other jobs, a timestamp that does not go up, counters
 * that went down, another fio start) adds a run: every run stays and is judged (fior_job.run). Each run's
 * jobs say how it ended as far as the documents so far tell (fior_job.end): the latest document may be the
 * last, so a stream that stops after an interim document is FIOR_END_CUT (never a PASS) unless the job's
 * counters reached the end its options set; fio's "fio: terminating on signal N" line, wherever it stands,
 * makes it FIOR_END_STOPPED. Memory is bounded per document: a document still open after the stream's cap
 * (fior_json_stream_set_max_document) is dropped with FIOR_E_TOOBIG ("SOURCE: byte N: … larger than the
 * cap of C bytes"), and the stream reads on at the next document. */
typedef struct fior_json_stream fior_json_stream;

FIOR_API fior_json_stream *fior_json_stream_new(const char *source);  /* NULL when out of memory */
FIOR_API void              fior_json_stream_free(fior_json_stream *s); /* NULL is fine */
FIOR_API fior_status       fior_json_stream_feed(fior_json_stream *s, const char *buf, size_t len);
FIOR_API unsigned long     fior_json_stream_documents(const fior_json_stream *s);  /* complete documents seen */
/* Every run's latest complete document, or NULL before the first. Owned by the stream. It dies at the next
 * complete document: the pointer (and every fior_job in it) is valid only until the next
 * fior_json_stream_feed() call that completes a document (fior_json_stream_documents() grows), or
 * fior_json_stream_free(). A fior_result made from it with fior_judge() does not refer to it and may
 * outlive it. */
FIOR_API const fior_report *fior_json_stream_report(const fior_json_stream *s);
/* Last error message ("" when none): valid until the next fior_json_stream_feed() or fior_json_stream_free(). */
FIOR_API const char       *fior_json_stream_error(const fior_json_stream *s);
/* The cap on one document's bytes: FIOR_MAX_INPUT_DEFAULT unless set. FIOR_E_INVAL for 0 or s NULL (the cap
 * is then unchanged). It applies from the next feed on, also to a document already open. The getter gives
 * 0 for NULL. */
FIOR_API fior_status       fior_json_stream_set_max_document(fior_json_stream *s, uint64_t bytes);
FIOR_API uint64_t          fior_json_stream_max_document(const fior_json_stream *s);

/* ---- verdict ---- */
typedef enum fior_verdict {
    FIOR_PASS = 0,
    FIOR_FAIL = 1,
    FIOR_UNKNOWN = 2,
    FIOR_NOT_JUDGED = 3   /* job without sync samples */
} fior_verdict;

/* What a job is judged against (opaque; curl-style setters). fior_criteria_new() gives the defaults:
 * p99.0, WAL 10 ms, backend 25 ms, at least 100 samples. NULL when out of memory. */
typedef struct fior_criteria fior_criteria;

FIOR_API fior_criteria *fior_criteria_new(void);
FIOR_API void           fior_criteria_free(fior_criteria *c);  /* NULL is fine */
/* A copy of c (the defaults for NULL), to change one setting for one judgement; NULL: out of memory. */
FIOR_API fior_criteria *fior_criteria_dup(const fior_criteria *c);
/* Setters return FIOR_E_INVAL (and change nothing) for a bad value: percent not in (0, 100), a threshold of
 * 0 or a role the library does not know. */
FIOR_API fior_status    fior_criteria_set_percentile(fior_criteria *c, double percent);
FIOR_API fior_status    fior_criteria_set_threshold(fior_criteria *c, fior_role role, uint64_t ns);
FIOR_API fior_status    fior_criteria_set_min_samples(fior_criteria *c, uint64_t n);
/* The physical floor: a job whose median sync latency is below floor_ns did not reach a disk (tmpfs,
 * ioengine=null, a cache that acknowledges without a flush) and is UNKNOWN. FIOR_FLOOR_DEFAULT_NS unless
 * set; 0 turns the rule off (for a device known to flush faster, e.g. persistent memory). */
FIOR_API fior_status    fior_criteria_set_floor(fior_criteria *c, uint64_t floor_ns);
FIOR_API uint64_t       fior_criteria_floor(const fior_criteria *c);
/* The caller stopped fio itself with this signal (`etcd-fio check` sends SIGINT once its bound is
 * decided): a job stopped by that signal (FIOR_END_STOPPED with end_signal == signo) is judged on the figures
 * fio printed after it. 0 (the default): a run stopped by any signal is never a PASS. FIOR_E_INVAL for a
 * negative signo. */
FIOR_API fior_status    fior_criteria_set_caller_stop(fior_criteria *c, int signo);
FIOR_API int            fior_criteria_caller_stop(const fior_criteria *c);
/* Getters; with c == NULL (or an unknown role) they give the defaults (WAL threshold for unknown roles). */
FIOR_API double         fior_criteria_percentile(const fior_criteria *c);
FIOR_API uint64_t       fior_criteria_threshold(const fior_criteria *c, fior_role role);
FIOR_API uint64_t       fior_criteria_min_samples(const fior_criteria *c);

/* One job's judgement. Library-owned and read-only (fior_result_job, fior_outcome_judgement); fields are
 * only ever appended, never moved: never allocate or copy one; FIOR_HAS(j, fior_judgement, field) tells
 * whether the library that filled it has a field that a later 3.x added. */
typedef struct fior_judgement {
    size_t       size;          /* sizeof(fior_judgement) of the library that filled it */
    fior_verdict verdict;
    int          value_known;
    uint64_t     value_ns;      /* the percentile value used (or the proving neighbour) */
    uint64_t     threshold_ns;
    const char  *reason;        /* one line, never NULL; owned by the fior_result */
    int          medium_inferred; /* a PASS whose input does not show the syncs reached a disk (its job's
                                   * medium is FIOR_MEDIUM_UNKNOWN): the latencies alone say so */
} fior_judgement;

/* The judgements of one report (opaque). */
typedef struct fior_result fior_result;

/* Judges every job of r against c (NULL: the defaults). NULL only when out of memory. The result copies
 * what it needs: it does not refer to r or c afterwards and may outlive both. */
FIOR_API fior_result *fior_judge(const fior_report *r, const fior_criteria *c);
FIOR_API void         fior_result_free(fior_result *res);  /* NULL is fine */
/* Overall verdict, worst wins: FAIL if any judged job fails, else UNKNOWN if any is unknown or nothing was
 * judged (every job NOT_JUDGED, or no job), else PASS. FIOR_UNKNOWN for NULL. */
FIOR_API fior_verdict fior_result_verdict(const fior_result *res);
FIOR_API size_t       fior_result_count(const fior_result *res);  /* == fior_report_njobs(r) at judging */
/* Judgement of job i (same index as fior_report_job), or NULL when i >= count. The pointer and its reason
 * are valid until fior_result_free(res). */
FIOR_API const fior_judgement *fior_result_job(const fior_result *res, size_t i);

/* The one aggregation rule. fior_verdict_combine: jobs into a host (or a report): FAIL if any fails,
 * else UNKNOWN if any is UNKNOWN (or a value this version does not know) or none is PASS — NOT_JUDGED jobs
 * are left out, but nothing judged is never a PASS —, else PASS. fior_verdict_overall: hosts (or runs)
 * into the overall verdict: FAIL if any fails, else UNKNOWN if any is not PASS (a NOT_JUDGED host too) or
 * there is none, else PASS. */
FIOR_API fior_verdict  fior_verdict_combine(const fior_verdict *v, size_t n);
FIOR_API fior_verdict  fior_verdict_overall(const fior_verdict *v, size_t n);

/* Lower-case static string for fior_job.end: "unknown", "proven", "inferred", "stopped", "died", "cut"
 * ("unknown" for values it does not know). */
FIOR_API const char  *fior_end_name(fior_end e);
/* What made the sync samples, in words, from fior_job.sync_flags: "fdatasync", "fsync", "fsync and
 * fdatasync", "sync_file_range", "fdatasync after O_SYNC writes", … or "fsync/fdatasync" when the input does
 * not say which (normal output). Returns buf. */
FIOR_API char        *fior_sync_flags_name(char *buf, size_t n, unsigned sync_flags);
/* Lower-case static string: "pass", "fail", "unknown", "not judged" ("unknown" for values it does not know). */
FIOR_API const char  *fior_verdict_name(fior_verdict v);
/* Its inverse, for verdicts read back (a result JSON, a remote check's answer): exactly one of the words
 * fior_verdict_name gives for a value this library knows — lower case, "not judged" with its one space
 * (no "not-judged": no writer of ours spells it so), nothing around them — sets *out and gives FIOR_OK.
 * Anything else (NULL, another case, blanks, "") is FIOR_E_INVAL, *out unchanged; out may be NULL to only
 * test a word. */
FIOR_API fior_status  fior_verdict_from_name(const char *name, fior_verdict *out);
/* Formats a latency for people, 3 significant digits: "2.54 ms", "159 ms", "850 us". Returns buf. */
FIOR_API char        *fior_format_ns(char *buf, size_t n, uint64_t ns);

/* ---- quantile confidence bound from json+ bins (early stop) ----
 * Distribution-free two-sided bound on the q-quantile (0<q<1) from the order statistics of the binned
 * samples (binomial), at `confidence` (e.g. 0.95). lo/hi are bin values; FIOR_E_NODATA when there are too
 * few samples for a finite bound (then hi is UINT64_MAX). */
FIOR_API fior_status fior_quantile_bound(const fior_bin *bins, size_t nbins, double q, double confidence,
                                         uint64_t *lo_ns, uint64_t *point_ns, uint64_t *hi_ns);


/* ---- the sequential judge of a growing run (fior_monitor) ----
 * What `etcd-fio check` decides with, for an embedder: feed it the report of a growing fio run (each
 * --status-interval document: fior_json_stream_report) and it answers per role — WAL fdatasync, backend commit
 * — as soon as the p99 is known to lie below or above the threshold with the requested confidence: every
 * document is a look, and each side (PASS, FAIL) tests the share of samples past the threshold with a
 * distribution-free mixture likelihood ratio that is valid at every look (Ville's inequality), so each job's
 * PASS and FAIL errors stay <= (1 - confidence)/2 whatever the number of looks; no decision before
 * min_samples. At the run's end, the facts of how it ended (given by the caller: it ran fio) turn the answers and
 * the library's judgement of the final document into one verdict with its basis and reason.
 * Two phases (as check runs them): a monitor set heavy (fior_monitor_set_heavy) is phase 1 — a heavier load
 * than etcd's, which may only PASS, with a time guard against stalls its fast sample rate dilutes — and a
 * monitor continued from it (fior_monitor_continue) is phase 2: its PASS side spends the rest of the PASS
 * error phase 1 did not have, and its first FIOR_PROBE_S seconds are the probe that confirms phase 1's
 * PASS (p90 no slower under etcd's load, no sample at the threshold) or not (then phase 2 decides alone).
 * No clock, no I/O: times are the caller's. */
#define FIOR_PHASE1_MAX_S   10.0    /* phase 1's runtime: it gives up after this */
#define FIOR_PHASE1_STATUS  "200ms" /* fio --status-interval for phase 1 and the probe (samples come fast) */
#define FIOR_PROBE_S        2.0     /* seconds of phase 2 (from its first WAL sample) that confirm phase 1 */
#define FIOR_PROBE_Q        0.90    /* the quantile the probe compares */

typedef enum fior_decision {
    FIOR_DEC_ABSENT = 0,  /* no job of the role (yet) */
    FIOR_DEC_TOO_FEW,     /* fewer samples than the criteria's minimum */
    FIOR_DEC_UNDECIDED,   /* the bound straddles the threshold */
    FIOR_DEC_PASS,        /* decided: p99 < threshold */
    FIOR_DEC_FAIL         /* decided: p99 > threshold */
} fior_decision;        /* may grow at the end */
/* "absent", "too few samples", "undecided", "pass", "fail" (static) */
FIOR_API const char *fior_decision_name(fior_decision d);

/* What a verdict rests on. */
typedef enum fior_basis {
    FIOR_BASIS_NONE = 0,   /* no verdict from the data */
    FIOR_BASIS_VALUE,      /* the library's judgement of the values (no bound asked for) */
    FIOR_BASIS_BOUND,      /* the confidence bound on the p99 is clear of the threshold */
    FIOR_BASIS_POINT,      /* the bound straddles; the point estimate was accepted */
    FIOR_BASIS_UNDECIDED   /* the bound straddles: unknown, the point estimate is in the reason */
} fior_basis;           /* may grow at the end */

/* The bound rule at the end of a run, one look (fleet, capacity, a remote check's proof): the library's
 * point verdict `point` (PASS/FAIL of fior_judge) stands when the bound [lo_ns, hi_ns] on the p99 is clear
 * of threshold_ns on the same side (PASS: hi < thr; FAIL: lo > thr) — basis BOUND; a bound on the other
 * side is a contradiction (UNKNOWN, NONE); a bound that straddles (or is missing: UINT64_MAX) is UNKNOWN,
 * UNDECIDED — or the point verdict, POINT, with accept_point. Any other `point` is returned as it is
 * (basis NONE). `why` (may be NULL) gets one line for the job when the verdict is not BOUND: "p99 V looks
 * fine, but N samples cannot show it with C % confidence (bound L..H straddles T); run longer". */
FIOR_API fior_verdict fior_bound_decide(fior_verdict point, uint64_t value_ns, uint64_t lo_ns, uint64_t hi_ns,
                                        uint64_t threshold_ns, uint64_t samples, double confidence,
                                        int accept_point, fior_basis *basis, char *why, size_t whylen);

/* The sample count of the first possible PASS for the q-quantile at this confidence (the first n where n
 * samples all below the threshold decide it, at least min_samples): a run that cannot reach it can never
 * decide a PASS (check refuses a --max-time too short for it at etcd's 10 backend commits/s). */
FIOR_API uint64_t fior_first_pass_samples(double q, double confidence, uint64_t min_samples);

typedef struct fior_monitor fior_monitor;

/* A monitor judging against c (copied; NULL: the defaults) at 95 % confidence, both roles expected. NULL when
 * out of memory. */
FIOR_API fior_monitor *fior_monitor_new(const fior_criteria *c);
FIOR_API void          fior_monitor_free(fior_monitor *m);  /* NULL is fine */
/* Last error of a setter ("" when none); valid until the next call on m. */
FIOR_API const char   *fior_monitor_error(const fior_monitor *m);
/* Setters, before the first fior_monitor_feed (FIOR_E_INVAL after it, or for a bad value): confidence per
 * job in [0.5, 0.9999]; accept_point (settable until fior_monitor_end): a bound that still straddles at the
 * end gives the point estimate's verdict; full: never advise a stop (decisions are still tracked); heavy: phase 1 (PASS only, the time
 * guard, an eighth of the PASS error, gives up when it cannot pass within twice its first possible PASS's samples); roles: the roles that must be decided (bit 1 << fior_role; default
 * WAL and backend; 1 << FIOR_ROLE_WAL alone asks the WAL question only). */
FIOR_API fior_status   fior_monitor_set_confidence(fior_monitor *m, double confidence);
FIOR_API fior_status   fior_monitor_set_accept_point(fior_monitor *m, int on);
FIOR_API fior_status   fior_monitor_set_full(fior_monitor *m, int on);
FIOR_API fior_status   fior_monitor_set_heavy(fior_monitor *m, int on);
FIOR_API fior_status   fior_monitor_set_roles(fior_monitor *m, unsigned mask);
/* Phase 2 after `phase1` (a heavy monitor, fed to its end): the PASS error phase 1 had is not phase 2's, and
 * when phase 1 passed, its final distributions are kept for the probe. Before the first feed. */
FIOR_API fior_status   fior_monitor_continue(fior_monitor *m, const fior_monitor *phase1);

/* What the caller should do after a feed. */
typedef enum fior_advice {
    FIOR_GO_ON = 0,      /* keep running */
    FIOR_STOP_DECIDED,   /* every expected role decided (or one failed): stop fio */
    FIOR_STOP_PHASE_OVER,/* phase 1 cannot pass any more: stop it, go to phase 2 */
    FIOR_STOP_CONFIRMED  /* phase 2's probe confirmed phase 1's PASS: stop */
} fior_advice;          /* may grow at the end */
/* One document: r is the growing run's report (its latest jobs of each role are used: the etcd_mode
 * option, else the names etcd-wal/etcd-backend, else the role), elapsed_s the caller's time since fio
 * started. Sets *advice (may be NULL). FIOR_E_INVAL for m or r NULL, and when a role has fewer samples than
 * at the last feed (not one growing run: another run, documents out of order): the monitor then decides
 * nothing more and its outcome is UNKNOWN with that reason (fior_monitor_error). */
FIOR_API fior_status   fior_monitor_feed(fior_monitor *m, const fior_report *r, double elapsed_s,
                                         fior_advice *advice);
/* The same from bins (a caller that reads another source): the role's cumulative bins, NULL/0 for none. */
FIOR_API fior_status   fior_monitor_feed_bins(fior_monitor *m, const fior_bin *wal, size_t nwal,
                                              const fior_bin *backend, size_t nbackend, double elapsed_s,
                                              fior_advice *advice);
/* The job of a role in r as the monitor picks it (above), or NULL. */
FIOR_API const fior_job *fior_monitor_pick(const fior_report *r, fior_role role);

/* One role's answer. Size-prefixed: set size = sizeof(fior_answer) before the call; a later library fills
 * only what the caller's size holds, and fields are only ever added at the end. */
typedef struct fior_answer {
    size_t        size;
    fior_decision decision;
    uint64_t      threshold_ns;
    uint64_t      samples;             /* at the last feed */
    uint64_t      point_ns;            /* p99 point estimate (0: no samples) */
    uint64_t      lo_ns, hi_ns;        /* bound at the nominal confidence (hi UINT64_MAX: none yet) */
    uint64_t      look_lo_ns, look_hi_ns; /* the anytime bound the last look decided with (valid at every look) */
    double        look_confidence;
    unsigned      pass_looks, fail_looks;
    uint64_t      decided_samples;     /* samples when decided (0: not decided) */
} fior_answer;
FIOR_API fior_status   fior_monitor_answer(const fior_monitor *m, fior_role role, fior_answer *out);
/* FAIL if a role failed, PASS if every expected role passed, else the weakest state. */
FIOR_API fior_decision fior_monitor_overall(const fior_monitor *m);
/* Phase 2's probe (size-prefixed as fior_answer): done 0 while not compared yet. */
typedef struct fior_probe {
    size_t   size;
    int      done, ok;
    uint64_t phase1_wal_ns, probe_wal_ns, phase1_backend_ns, probe_backend_ns; /* FIOR_PROBE_Q points */
    char     why[256];
} fior_probe;
FIOR_API fior_status   fior_monitor_probe(const fior_monitor *m, fior_probe *out);

/* How the run ended: facts the caller knows (it ran fio). Size-prefixed. */
typedef enum fior_stop {
    FIOR_STOP_NONE = 0,  /* fio ended by itself (its runtime) */
    FIOR_STOP_BY_DECISION, /* the caller stopped it on FIOR_STOP_DECIDED / _PHASE_OVER / _CONFIRMED */
    FIOR_STOP_TIME_NET,  /* the caller stopped it: it ran past its time */
    FIOR_STOP_USER,      /* the operator (or a watcher) interrupted the run */
} fior_stop;
typedef struct fior_run_facts {
    size_t      size;
    int         started;        /* fio could be started */
    int         killed_by;      /* fio died of this signal (0: it exited) */
    int         exit_code;      /* its exit status when it exited */
    int         stop_level;     /* signals the caller sent: 0 none, 1 SIGINT, 2 SIGTERM, 3 SIGKILL */
    fior_stop   stop;
    const char *stop_why;       /* FIOR_STOP_USER: who or what stopped it ("interrupted" when NULL) */
    int         complete;       /* fio's final document arrived (after the caller's stop, if any) */
    int         job_signal;     /* a job process died of this signal (fio: "got signal=S"), 0 none */
    unsigned    runtime_s;      /* the runtime= fio was given */
    double      duration_s, decided_at_s;
    uint64_t    decided_samples;
    const char *fio_said;       /* fio's last stderr line, or NULL */
    const char *stream_error;   /* what the reader said of the output's end, or NULL */
    /* the caller's own words for why the run did not end normally (a watchdog that stopped it, a fio
     * SIGKILL could not end), or NULL: it comes before every other reason */
    const char *caller_problem;
} fior_run_facts;

/* The verdict of a monitored run (opaque): from the monitor, the final report (NULL when there is none;
 * the outcome does not refer to it afterwards) and the facts. NULL when out of memory. No PASS without
 * proof: UNKNOWN whenever fio did not end normally, the library cannot judge the final document, a bound
 * still straddles at the end (unless accept_point), or the bound and the library's judgement disagree. */
typedef struct fior_outcome fior_outcome;
FIOR_API fior_outcome *fior_monitor_end(fior_monitor *m, const fior_report *final, const fior_run_facts *f);
/* Both phases: phase 1's outcome stands only when phase 2 (p2, NULL when it did not run) confirmed it —
 * `confirmed` (the caller stopped phase 2 on FIOR_STOP_CONFIRMED) and p2's own probe both say so; a run
 * stopped between them is UNKNOWN. Returns the deciding phase's outcome (1 or 2: fior_outcome_phase) and
 * frees the other; either may be NULL (out of memory: NULL). */
FIOR_API fior_outcome *fior_outcome_phases(fior_outcome *p1, fior_outcome *p2, int confirmed);
FIOR_API void          fior_outcome_free(fior_outcome *o);
FIOR_API fior_verdict  fior_outcome_verdict(const fior_outcome *o);
FIOR_API fior_basis    fior_outcome_basis(const fior_outcome *o);
/* "judged", "interrupted", "fio-failed", "no-results" (static) */
FIOR_API const char   *fior_outcome_status(const fior_outcome *o);
FIOR_API const char   *fior_outcome_reason(const fior_outcome *o);  /* owned by o */
FIOR_API int           fior_outcome_phase(const fior_outcome *o);   /* 1, 2; 0 for a single run */
/* One role: its verdict, its line, the library's judgement of the final job (NULL: none) and the bound on
 * its p99 that its line cites (FIOR_E_NODATA when the role has no job): the sequential test's bound at its
 * last look, at that look's level (fior_outcome_bound_confidence: at least the confidence asked when it
 * decided), or the nominal bound on the final p99 when no look was made. */
FIOR_API fior_verdict  fior_outcome_role_verdict(const fior_outcome *o, fior_role role);
FIOR_API const char   *fior_outcome_role_reason(const fior_outcome *o, fior_role role);
FIOR_API const fior_judgement *fior_outcome_judgement(const fior_outcome *o, fior_role role);
FIOR_API fior_status   fior_outcome_bound(const fior_outcome *o, fior_role role, uint64_t *lo_ns, uint64_t *hi_ns);
/* The level fior_outcome_bound's bound holds at (0.9531 for 95.31 %); 0 when the role has no job. Since 3.1. */
FIOR_API double        fior_outcome_bound_confidence(const fior_outcome *o, fior_role role);

/* ---- one look at a finished distribution (fleet, capacity) ----
 * The criteria's percentile of a distribution — one job's json+ bins, or several pooled — judged against c's
 * threshold for `role` (c NULL: the defaults) in one look at the end of a run: the point estimate (the first
 * bin whose cumulative count reaches the percentile, as fio computes its own), the distribution-free bound at
 * `confidence` (fior_quantile_bound: lo 0 and hi UINT64_MAX where the samples cannot bound it) and the bound
 * rule's verdict on them (fior_bound_decide, given the point estimate's PASS or FAIL): UNKNOWN, basis NONE,
 * without samples or with fewer than c's min_samples. FIOR_E_INVAL for out NULL (or its size too small),
 * bins NULL with nbins, or a confidence outside (0, 1). Size-prefixed as fior_answer. */
typedef struct fior_look {
    size_t       size;
    fior_verdict verdict;
    fior_basis   basis;
    uint64_t     samples, threshold_ns;
    uint64_t     point_ns;              /* UINT64_MAX: no samples */
    uint64_t     lo_ns, hi_ns;
    char         why[320];              /* the bound rule's line when the basis is not BOUND, else "" */
} fior_look;
FIOR_API fior_status fior_look_bins(const fior_bin *bins, size_t nbins, const fior_criteria *c, fior_role role,
                                    double confidence, int accept_point, fior_look *out);
/* The fewest samples (at least c's min_samples) whose one-look bound on c's percentile can have an upper end
 * at `confidence` — all of them below the threshold: fewer can never be a PASS in one look. UINT64_MAX for a
 * confidence outside (0, 1). */
FIOR_API uint64_t    fior_look_samples(const fior_criteria *c, double confidence);

#ifdef __cplusplus
}
#endif
#endif /* FIOREPORT_H */
