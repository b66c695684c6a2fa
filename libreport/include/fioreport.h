/* SPDX-License-Identifier: MIT */
/* fioreport.h — public API of libfioreport: read fio output (normal, JSON, json+, mixed, status-interval
 * streams, client/server) and etcd-perf logs, extract the sync (fsync/fdatasync) latency block of every job,
 * and judge it the way etcd needs it judged. Never a PASS on missing or untrustworthy data.
 *
 * Conventions (libcurl-like): opaque handles, every call returns an fior_status, and the handle keeps a
 * one-line message ("FILE:LINE: what was expected") for the last error. No global state: handles may be
 * used from different threads at once (one handle per thread). All latencies are in nanoseconds.
 *
 * ABI (2.0 and later): the SONAME is libfioreport.so.FIOR_VERSION_MAJOR and changes only with an
 * incompatible change. Every exported symbol is listed in the linker version script (node FIOR_2.0;
 * functions added later go into new nodes FIOR_2.1, …). So that the ABI can grow without breaking:
 *   - criteria and results are opaque handles (setters/getters); callers never allocate library structs;
 *   - fior_job and fior_judgement are read-only, owned by the library, and only ever gain fields at the
 *     end: never copy them by value into storage that outlives the handle, never allocate them;
 *   - every enum (fior_status, fior_format, fior_role, fior_verdict) may gain values: handle a `default:`.
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
#define FIOR_VERSION_MAJOR 2
#define FIOR_VERSION_MINOR 2
#define FIOR_VERSION_PATCH 0
#define FIOR__STR2(x) #x
#define FIOR__STR(x) FIOR__STR2(x)
#define FIOR_VERSION \
    FIOR__STR(FIOR_VERSION_MAJOR) "." FIOR__STR(FIOR_VERSION_MINOR) "." FIOR__STR(FIOR_VERSION_PATCH)
#define FIOR_VERSION_NUMBER ((FIOR_VERSION_MAJOR << 16) | (FIOR_VERSION_MINOR << 8) | FIOR_VERSION_PATCH)

/* The version of the library actually loaded: "2.0.0" (static string) and 0x020000. */
FIOR_API const char *fior_version(void);
FIOR_API unsigned    fior_version_number(void);

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

/* How a job's run ended, as far as its input tells (fior_job.end, added in 2.2). Only PROVEN and INFERRED
 * may pass: a run fio did not finish is never a PASS (its FAIL stays a FAIL: a slow sync that was measured
 * stays measured). May gain values. */
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

/* What made a job's sync samples (fior_job.sync_flags, added in 2.2): the options that decide whether its
 * syncs are flushes to a disk. From the job's options (JSON "job options" and "global options") or, where
 * the input has none (normal output), from signs in the data. */
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

/* The physical floor (fior_criteria_set_floor): no flush of a write to a block device takes less. Measured
 * on this project's machine (bench/flush_floor.sh, man libfioreport(3)): the fastest real fdatasync, ext4
 * without a journal on a RAM-backed loop device, 35 us; tmpfs 0.2-0.5 us, ioengine=null 10-80 ns. */
#define FIOR_FLOOR_DEFAULT_NS 5000u

/* One job (or one client_stats entry) of a report. Read-only; owned by the report (lifetime: see
 * fior_report_job). Fields may be added at the end in later minor versions: never allocate or copy one. */
typedef struct fior_job {
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

    /* (after the fields above, so the layout above never moves; new fields only ever go at the end) */
    uint64_t    pct_resolution_ns; /* pct values were printed rounded to this unit (normal output: 1000 for
                                    * usec, 1000000 for msec); 1 when not rounded (JSON). Either way
                                    * each value is the middle of a fio histogram bucket (1/64 of a power
                                    * of two wide), which the verdict allows for */
    int         latency_untimed;   /* the job's options turn latency timing off (gtod_reduce=1) */
    int         sync_requested;    /* the job's options ask for fsync/fdatasync (JSON job options) */
    long        pid;               /* normal output: pid= of the job header, else -1 */

    /* added for etcd's own metrics (Prometheus scrapes, `etcdctl check perf`) */
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

    /* added in 2.1 for several fio outputs in one input */
    unsigned    run;               /* which fio run of its input the job comes from, 0-based. Several fio outputs
                                    * in one input (concatenated files) are separate runs and every run is
                                    * judged; a --status-interval stream (the same jobs, later timestamps)
                                    * is one run, read from its last document. */

    /* added in 2.2: how the job's run ended and what made its sync samples */
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

/* ---- incremental reading of a --status-interval json/json+ stream (as fio writes it) ----
 * Feed bytes as they arrive (split anywhere); every complete JSON document replaces its run's jobs in the
 * stream's report, and a document of another fio run (other jobs, a timestamp that does not go up, counters
 * that went down, another fio start) adds a run: every run stays and is judged (fior_job.run).
 * Stray text lines between documents are skipped. Memory is bounded per document: a document still open
 * after FIOR_MAX_INPUT_DEFAULT bytes is dropped with FIOR_E_TOOBIG ("SOURCE: byte N: … larger than the cap"),
 * and the stream reads on at the next document. */
typedef struct fior_stream fior_stream;

FIOR_API fior_stream *fior_stream_new(const char *source);  /* NULL when out of memory */
FIOR_API void         fior_stream_free(fior_stream *s);
FIOR_API fior_status  fior_stream_feed(fior_stream *s, const char *buf, size_t len);
FIOR_API unsigned long fior_stream_documents(const fior_stream *s);  /* complete documents seen */
/* Every run's latest complete document, or NULL before the first. Owned by the stream. It dies at the next complete document: the
 * pointer (and every fior_job in it) is valid only until the next fior_stream_feed() call that completes
 * a document (fior_stream_documents() grows), or fior_stream_free(). A fior_result made from it with
 * fior_judge() does not refer to it and may outlive it. */
FIOR_API const fior_report *fior_stream_report(const fior_stream *s);
/* Last error message ("" when none): valid until the next fior_stream_feed() or fior_stream_free(). */
FIOR_API const char  *fior_stream_error(const fior_stream *s);

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
/* 2.2: a copy of c (the defaults for NULL), to change one setting for one judgement; NULL: out of memory. */
FIOR_API fior_criteria *fior_criteria_dup(const fior_criteria *c);
/* Setters return FIOR_E_INVAL (and change nothing) for a bad value: percent not in (0, 100), a threshold of
 * 0 or a role the library does not know. */
FIOR_API fior_status    fior_criteria_set_percentile(fior_criteria *c, double percent);
FIOR_API fior_status    fior_criteria_set_threshold(fior_criteria *c, fior_role role, uint64_t ns);
FIOR_API fior_status    fior_criteria_set_min_samples(fior_criteria *c, uint64_t n);
/* 2.2: the physical floor: a job whose median sync latency is below floor_ns did not reach a disk (tmpfs,
 * ioengine=null, a cache that acknowledges without a flush) and is UNKNOWN. FIOR_FLOOR_DEFAULT_NS unless
 * set; 0 turns the rule off (for a device known to flush faster, e.g. persistent memory). */
FIOR_API fior_status    fior_criteria_set_floor(fior_criteria *c, uint64_t floor_ns);
FIOR_API uint64_t       fior_criteria_floor(const fior_criteria *c);
/* 2.2: the caller stopped fio itself with this signal (`etcd-fio check` sends SIGINT once its bound is
 * decided): a job stopped by that signal (FIOR_END_STOPPED with end_signal == signo) is judged on the figures
 * fio printed after it. 0 (the default): a run stopped by any signal is never a PASS. FIOR_E_INVAL for a
 * negative signo. */
FIOR_API fior_status    fior_criteria_set_caller_stop(fior_criteria *c, int signo);
FIOR_API int            fior_criteria_caller_stop(const fior_criteria *c);
/* Getters; with c == NULL (or an unknown role) they give the defaults (WAL threshold for unknown roles). */
FIOR_API double         fior_criteria_percentile(const fior_criteria *c);
FIOR_API uint64_t       fior_criteria_threshold(const fior_criteria *c, fior_role role);
FIOR_API uint64_t       fior_criteria_min_samples(const fior_criteria *c);

/* One job's judgement. Library-owned and read-only; fields may be added at the end. */
typedef struct fior_judgement {
    fior_verdict verdict;
    int          value_known;
    uint64_t     value_ns;      /* the percentile value used (or the proving neighbour) */
    uint64_t     threshold_ns;
    const char  *reason;        /* one line, never NULL; owned by the fior_result */
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

/* 2.2: lower-case static string for fior_job.end: "unknown", "proven", "inferred", "stopped", "died", "cut"
 * ("unknown" for values it does not know). */
FIOR_API const char  *fior_end_name(fior_end e);
/* 2.2: what made the sync samples, in words, from fior_job.sync_flags: "fdatasync", "fsync", "fsync and
 * fdatasync", "sync_file_range", "fdatasync after O_SYNC writes", … or "fsync/fdatasync" when the input does
 * not say which (normal output). Returns buf. */
FIOR_API char        *fior_sync_flags_name(char *buf, size_t n, unsigned sync_flags);
/* Lower-case static string: "pass", "fail", "unknown", "not judged" ("unknown" for values it does not know). */
FIOR_API const char  *fior_verdict_name(fior_verdict v);
/* Formats a latency for people, 3 significant digits: "2.54 ms", "159 ms", "850 us". Returns buf. */
FIOR_API char        *fior_format_ns(char *buf, size_t n, uint64_t ns);

/* ---- quantile confidence bound from json+ bins (early stop) ----
 * Distribution-free two-sided bound on the q-quantile (0<q<1) from the order statistics of the binned
 * samples (binomial), at `confidence` (e.g. 0.95). lo/hi are bin values; FIOR_E_NODATA when there are too
 * few samples for a finite bound (then hi is UINT64_MAX). */
FIOR_API fior_status fior_quantile_bound(const fior_bin *bins, size_t nbins, double q, double confidence,
                                         uint64_t *lo_ns, uint64_t *point_ns, uint64_t *hi_ns);

#ifdef __cplusplus
}
#endif
#endif /* FIOREPORT_H */
