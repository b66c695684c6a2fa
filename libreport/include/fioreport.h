/* fioreport.h — public API of libfioreport: read fio output (normal, JSON, json+, mixed, status-interval
 * streams, client/server) and etcd-perf logs, extract the sync (fsync/fdatasync) latency block of every job,
 * and judge it the way etcd needs it judged. Never a PASS on missing or untrustworthy data.
 *
 * Conventions (libcurl-like): opaque handles, every call returns an fior_status, and the handle keeps a
 * one-line message ("FILE:LINE: what was expected") for the last error. No global state: handles may be
 * used from different threads at once (one handle per thread). All latencies are in nanoseconds.
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

#define FIOR_VERSION_MAJOR 1
#define FIOR_VERSION_MINOR 0

typedef enum fior_status {
    FIOR_OK = 0,
    FIOR_E_INVAL,   /* bad argument */
    FIOR_E_NOMEM,   /* allocation failed */
    FIOR_E_IO,      /* could not read the input */
    FIOR_E_PARSE,   /* the input is recognised but malformed or truncated */
    FIOR_E_FORMAT,  /* nothing in the input looks like fio output or an etcd-perf log */
    FIOR_E_NODATA   /* asked for something the report does not have */
} fior_status;

typedef enum fior_format {
    FIOR_FMT_UNKNOWN = 0,
    FIOR_FMT_NORMAL,     /* fio's human output (possibly client/server "<host> " prefixed) */
    FIOR_FMT_JSON,       /* fio --output-format=json / json+ (possibly several documents, stray lines) */
    FIOR_FMT_MIXED,      /* normal and JSON in one file */
    FIOR_FMT_ETCD_PERF   /* etcd-perf container log */
} fior_format;

/* Which threshold a job is judged against. */
typedef enum fior_role {
    FIOR_ROLE_WAL = 0,   /* WAL-like fdatasync job (default for any fio job): p99 < 10 ms */
    FIOR_ROLE_BACKEND    /* our engine with etcd_mode=backend (bbolt commit): p99 < 25 ms */
} fior_role;

typedef struct fior_pct {
    double   percent;  /* e.g. 99.0 */
    uint64_t ns;
} fior_pct;

typedef struct fior_bin {  /* json+ latency bin: samples whose latency rounds to this value */
    uint64_t ns;
    uint64_t count;
} fior_bin;

/* One job (or one client_stats entry) of a report. Read-only; owned by the report.
 * Fields may be added at the end in later minor versions. */
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

    /* added in 1.0 (after the fields above, so the layout above never moves) */
    uint64_t    pct_resolution_ns; /* pct values were printed rounded to this unit (normal output: 1000 for
                                    * usec, 1000000 for msec); 1 when exact (JSON) */
    int         latency_untimed;   /* the job's options turn latency timing off (gtod_reduce=1) */
    int         sync_requested;    /* the job's options ask for fsync/fdatasync (JSON job options) */
    long        pid;               /* normal output: pid= of the job header, else -1 */
} fior_job;

typedef struct fior_report fior_report;

FIOR_API fior_report *fior_report_new(void);
FIOR_API void         fior_report_free(fior_report *r);

/* Parse a whole input. The format is detected from the content. `source` names the input in messages and
 * in fior_job.source. Jobs are appended: several inputs may be parsed into one report. On error, the jobs
 * already read from earlier inputs stay; nothing half-read from this input is added. */
FIOR_API fior_status fior_parse_buffer(fior_report *r, const char *source, const char *buf, size_t len);
FIOR_API fior_status fior_parse_file(fior_report *r, const char *path);  /* "-" reads stdin */

FIOR_API const char *fior_report_error(const fior_report *r);  /* "" when there was no error */
FIOR_API const char *fior_strstatus(fior_status s);
FIOR_API fior_format fior_report_format(const fior_report *r);  /* format of the last input parsed */

FIOR_API size_t          fior_report_njobs(const fior_report *r);
FIOR_API const fior_job *fior_report_job(const fior_report *r, size_t i);

/* ---- incremental reading of a --status-interval json/json+ stream (as fio writes it) ----
 * Feed bytes as they arrive; every complete JSON document replaces the stream's current report.
 * Stray text lines between documents are skipped. */
typedef struct fior_stream fior_stream;

FIOR_API fior_stream *fior_stream_new(const char *source);
FIOR_API void         fior_stream_free(fior_stream *s);
FIOR_API fior_status  fior_stream_feed(fior_stream *s, const char *buf, size_t len);
FIOR_API unsigned long fior_stream_documents(const fior_stream *s);  /* complete documents seen */
FIOR_API const fior_report *fior_stream_report(const fior_stream *s); /* latest complete one, or NULL */
FIOR_API const char  *fior_stream_error(const fior_stream *s);

/* ---- verdict ---- */
typedef enum fior_verdict {
    FIOR_PASS = 0,
    FIOR_FAIL = 1,
    FIOR_UNKNOWN = 2,
    FIOR_NOT_JUDGED = 3   /* job without sync samples */
} fior_verdict;

typedef struct fior_criteria {
    double   percentile;           /* default 99.0 */
    uint64_t wal_threshold_ns;     /* default 10 ms */
    uint64_t backend_threshold_ns; /* default 25 ms */
    uint64_t min_samples;          /* default 100 */
} fior_criteria;

typedef struct fior_judgement {
    fior_verdict verdict;
    int          value_known;
    uint64_t     value_ns;      /* the percentile value used (or the proving neighbour) */
    uint64_t     threshold_ns;
    char         reason[256];
} fior_judgement;

FIOR_API void         fior_criteria_default(fior_criteria *c);
FIOR_API const char  *fior_verdict_name(fior_verdict v);  /* "PASS", "FAIL", "UNKNOWN", "NOT JUDGED" */
FIOR_API fior_verdict fior_judge_job(const fior_job *j, const fior_criteria *c, fior_judgement *out);
/* Judges every job; `per_job` (may be NULL) receives fior_report_njobs() judgements. Returns the overall
 * verdict: FAIL if any judged job fails, else UNKNOWN if any is unknown or nothing was judged, else PASS. */
FIOR_API fior_verdict fior_judge_report(const fior_report *r, const fior_criteria *c, fior_judgement *per_job);
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
