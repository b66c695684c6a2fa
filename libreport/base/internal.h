/* SPDX-License-Identifier: MIT */
/* internal.h — what the libfioreport modules share and nothing outside the library sees: the report's
 * storage, job building helpers, the criteria and judgement storage, and the table of input readers
 * (readers.c) over the per-format entry points (fmt_normal.c, fmt_json.c, fmt_etcdperf.c). Prefix fior__
 * for library-internal names; they are not exported (fioreport.map). */
#ifndef FIOR_INTERNAL_H
#define FIOR_INTERNAL_H

#include <stdarg.h>
#include "fioreport_cli.h"

#define FIOR__ERRLEN 512

struct fior_report {
    fior_job   *jobs;
    size_t      njobs, cap;
    fior_format format;
    uint64_t    max_input;  /* fior_report_set_max_input; 0 means FIOR_MAX_INPUT_DEFAULT */
    char        err[FIOR__ERRLEN];
};

#define FIOR__NROLES 2  /* FIOR_ROLE_WAL, FIOR_ROLE_BACKEND */

struct fior_criteria {
    double   percentile;
    uint64_t threshold_ns[FIOR__NROLES];  /* by fior_role */
    uint64_t min_samples;
    uint64_t floor_ns;                    /* fior_criteria_set_floor */
    int      caller_stop;                 /* fior_criteria_set_caller_stop */
};
void fior__criteria_default(fior_criteria *c);
/* The evidence of one route to a verdict (judge/pass.c): below / above say the value is shown below the
 * threshold / at or above it (point, bucket: the range a printed value or a bucket stands for; look,
 * remote: the confidence bound; sequential: the sequential test's decision); point is the point
 * estimate's verdict (the bound routes); accept_point takes it when the bound straddles. */
typedef enum fior__ev_kind {
    FIOR__EV_POINT, FIOR__EV_BUCKET, FIOR__EV_SEQUENTIAL, FIOR__EV_LOOK, FIOR__EV_REMOTE
} fior__ev_kind;
typedef struct fior__evidence {
    fior__ev_kind kind;
    fior_verdict  point;
    int           below, above;
    int           accept_point;
} fior__evidence;
/* The one rule by which evidence becomes PASS or FAIL: the verdict, and in *basis (may be NULL) what it
 * rests on (point, bucket: VALUE; the bound routes: BOUND, POINT, UNDECIDED or NONE). */
fior_verdict fior__pass_rule(const fior__evidence *e, fior_basis *basis);
/* fior_bound_decide's rule for the criteria's percentile (judge/look.c): the reason names it */
fior_verdict fior__bound_rule(fior__ev_kind kind, fior_verdict point, uint64_t value_ns, uint64_t lo_ns, uint64_t hi_ns, uint64_t threshold_ns,
                              uint64_t samples, double percentile, double confidence, int accept_point,
                              fior_basis *basis, char *why, size_t whylen);

/* One judgement with the storage of its reason (j.reason points to reason). */
typedef struct fior__judged {
    fior_judgement j;
    char           reason[512];
} fior__judged;
/* Judges one job (verdict.c); c NULL means the defaults. Returns o->j.verdict. */
fior_verdict fior__judge_job(const fior_job *j, const fior_criteria *c, fior__judged *o);
/* judge/value.c, for every verdict rule: the reason and verdict into o (returns v); the upper and lower
 * bound of a value printed at resolution res; the edges of fio's histogram bucket holding v */
fior_verdict fior__vsay(fior__judged *o, fior_verdict v, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
uint64_t     fior__vupper(uint64_t v, uint64_t res);
uint64_t     fior__vlower(uint64_t v, uint64_t res);
uint64_t     fior__vbucket_lo(uint64_t v);
uint64_t     fior__vbucket_hi(uint64_t v);
/* verdict_source.c: syncs that flush nothing (1 after saying so); why a job has no timed syncs; the
 * verdict as the job's end and its directory (tmpfs) allow */
int          fior__vnot_a_flush(const fior_job *j, const fior_criteria *c, fior__judged *o);
fior_verdict fior__vno_timed_syncs(const fior_job *j, fior__judged *o);
fior_verdict fior__vend_rule(const fior_job *j, const fior_criteria *c, fior__judged *o);
fior_verdict fior__vtmpfs_rule(const fior_job *j, fior__judged *o);
/* read/medium.c: what the facts a reader found (filename, disk stats, the engine's line) prove about the
 * medium, into j->medium (jobs_in_run: jobs of the run the disk stats belong to; -1 when out of memory);
 * judge/verdict_medium.c: the rule that takes a PASS away where they prove no disk; read/medium.c: the
 * kind of memory a block device name is, or NULL */
int          fior__medium_settle(fior_job *j, size_t jobs_in_run);
fior_verdict fior__vmedium_rule(const fior_job *j, fior__judged *o);
const char  *fior__ram_device(const char *name);

/* A job under construction: the public struct plus growable arrays (pct/bins point into them). */
typedef struct fior__jobb {
    fior_job  j;
    fior_pct *pct;
    size_t    pcap;
    fior_bin *bins;
    size_t    bcap;
    fior_bucket *bk;
    size_t    bkcap;
} fior__jobb;

void        fior__job_init(fior__jobb *b);
/* A quantile of j as shown: held within the job's exact [min, max] when the input gives them (fio's
 * percentiles are the middles of its histogram bins, stat.c plat_idx_to_val, so a p99 may stand above
 * the max); as given for bucketed jobs (etcd's histograms have no exact max) and for UINT64_MAX. */
uint64_t    fior__job_in_range(const fior_job *j, uint64_t ns);
void        fior__job_clear(fior__jobb *b);          /* frees what the builder owns */
int         fior__job_set(const char **field, const char *s, size_t n); /* 0 ok, -1 nomem */
int         fior__job_add_pct(fior__jobb *b, double percent, uint64_t ns);
int         fior__job_add_bin(fior__jobb *b, uint64_t ns, uint64_t count);
int         fior__job_add_bucket(fior__jobb *b, uint64_t le_ns, uint64_t count);
/* Room for element n of an array of `sz`-byte elements (capacity doubles from `first`): returns the array,
 * maybe moved, or NULL when out of memory (the old array is then still valid and *cap unchanged). */
void       *fior__grow(void *arr, size_t *cap, size_t n, size_t sz, size_t first);
void        fior__job_sort(fior__jobb *b);          /* pct by percent, bins by ns */
/* Moves the job into the report (the builder is left empty). 0 ok, -1 nomem. */
int         fior__report_push(fior_report *r, fior__jobb *b);
/* Replaces job i with the builder's job (the builder is left empty). */
void        fior__report_replace(fior_report *r, size_t i, fior__jobb *b);
void        fior__report_clear(fior_report *r);
/* Moves every job of src to the end of dst (src left empty). 0 ok, -1 nomem. */
int         fior__report_move(fior_report *dst, fior_report *src);
/* Frees the jobs from index n on. */
void        fior__report_truncate(fior_report *r, size_t n);
void        fior__seterr(fior_report *r, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* The input readers, in detection order (readers.c): the first whose detect() says yes reads the input.
 * parse() fills `r` (a fresh scratch report) from the whole input and sets r->err on failure; it may set
 * r->format to a finer format than the table's (JSON → FIOR_FMT_MIXED). A new input format is one more
 * row; the fuzz harnesses loop over the same table. */
typedef struct fior__reader {
    fior_format format;
    const char *name;   /* "json", "normal", "etcd-perf" */
    int (*detect)(const char *buf, size_t len);
    fior_status (*parse)(fior_report *r, const char *source, const char *buf, size_t len);
} fior__reader;
const fior__reader *fior__readers(size_t *n);
const fior__reader *fior__reader_named(const char *name);  /* NULL when there is none */

/* The first stage of every text reader (handover.c): what tools did to an output on its way here undone
 * (UTF-16/UTF-8 BOMs, CRLF and trailing blanks, mail quoting, kubectl/CRI/journalctl/CI line prefixes).
 * 0 and *out NULL when buf needs nothing; 0 and a malloc'd NUL-terminated copy in *out (*outlen bytes);
 * -1 when out of memory. fior__handover_needed: buf (a file's first bytes) carries a BOM or a prefix. */
int         fior__handover(const char *buf, size_t len, char **out, size_t *outlen);
int         fior__handover_needed(const char *buf, size_t len);

/* Format readers: fill `r` (a fresh scratch report) from the whole input. They set r->err on failure. */
fior_status fior__parse_normal(fior_report *r, const char *source, const char *buf, size_t len);
fior_status fior__parse_etcdperf(fior_report *r, const char *source, const char *buf, size_t len);
/* The same, each job's end_reason saying why the log's lines are read instead of its fio JSON (why: NULL
 * for none). */
fior_status fior__parse_etcdperf_lines(fior_report *r, const char *source, const char *buf, size_t len,
                                       const char *why);
fior_status fior__parse_prom(fior_report *r, const char *source, const char *buf, size_t len);
fior_status fior__parse_checkperf(fior_report *r, const char *source, const char *buf, size_t len);
/* The first occurrence of word (n bytes, the first not a blank) at or after `from` that starts a line of
 * buf, after bytes of `blanks` only; NULL when there is none (base/format.c). */
const char *fior__line_start(const char *buf, size_t len, const char *from, const char *word, size_t n,
                             const char *blanks);
/* fior_format_ns, or "?" for UINT64_MAX (a bound not known): base/format.c */
char       *fior__ns_text(char *out, size_t n, uint64_t ns);
/* A percentile as every reason names it, "p99", "p99.9" (base/format.c) */
char       *fior__pct_text(char *out, size_t n, double percent);
/* fio job results in text beside JSON documents (buf: the bytes outside them): dropped when they are the
 * JSON's jobs (fio's normal,json), else added to r as runs of their own; a text part that does not read is
 * an error (readers.c). */
fior_status fior__text_beside_json(fior_report *r, const char *source, const char *buf, size_t len);
/* How much of an input the etcdctl-output detector looks at (fmt_checkperf.c, readers.c). */
#define FIOR__NOISE_SNIFF 16384
/* Detectors for fmt_prom.c / fmt_checkperf.c: 1 when the input looks like that format. */
int         fior__looks_prom(const char *buf, size_t len);
int         fior__looks_checkperf(const char *buf, size_t len);
/* Other etcdctl output (`endpoint status`, `endpoint health`, its log lines): 1 and the line (1-based) and
 * a description of what it is when the whole input is such noise, so it can be rejected clearly. */
int         fior__etcdctl_noise(const char *buf, size_t len, size_t *line, const char **what);
/* Bucket rule: the bucket that holds the `percent` percentile of a cumulative histogram (nearest rank, as
 * fio's stat.c and Prometheus' histogram_quantile pick it). *lo_ns is its lower edge (0 for the first),
 * *hi_ns its upper edge (UINT64_MAX for +Inf). -1 when the histogram has no samples. */
int         fior__bucket_locate(const fior_bucket *b, size_t n, double percent, uint64_t *lo_ns, uint64_t *hi_ns);
/* Reads the JSON documents of buf into r: every run's last document (json_stream.c). *text_jobs says
 * whether fio job headers of its normal output stand outside the documents (normal,json output): then
 * *text (the caller frees it) holds the bytes outside the documents, *text_len of them, for
 * fior__text_beside_json; else *text is NULL. *ndocs (when not NULL): the number of documents. */
fior_status fior__parse_json(fior_report *r, const char *source, const char *buf, size_t len,
                             int *text_jobs, unsigned long *ndocs, char **text, size_t *text_len);
/* After the last fior_json_stream_feed of a whole input: the input's first error, a document cut short or no
 * document at all is an error (message in into->err, nothing added); else the runs' jobs move into `into`. */
fior_status fior__stream_finish(fior_json_stream *s, fior_report *into, int *text_jobs, unsigned long *ndocs);
/* From now on the stream keeps the bytes it reads outside documents (stray lines, the normal half of
 * normal,json output); fior__stream_gaps gives them (NULL when keeping them ran out of memory). */
void        fior__stream_keep_gaps(fior_json_stream *s);
const char *fior__stream_gaps(const fior_json_stream *s, size_t *len);

/* The etcd-fio engine by its fio name: "etcdwal", "libetcdwal", "[external:][…/]libetcdwal.so". */
int         fior__is_etcd_engine(const char *ioengine);
/* A job's role: backend only when etcd_mode is "backend" and either the job runs the etcd-fio engine or
 * etcd_mode is in the job's own options. A [global] etcd_mode=backend is inherited by every job in fio's
 * JSON ("global options"), but only the engine's jobs commit like bbolt: a sync job beside them is a WAL
 * job judged against 10 ms, not 25 ms. */
fior_role   fior__job_role(const char *ioengine, const char *etcd_mode, int mode_is_the_jobs);

/* ---- how a run ended (run_end.c) ----
 * What a reader knows about one job's end, from its options, its counters and where its figures stand in
 * the input; fior__job_end turns it into fior_job.end and .end_reason, the same way for every reader. */
/* Why a job's process is taken for dead (fior__endfacts.died): each sign names what a reader saw. */
typedef enum fior__died {
    FIOR__DIED_NO = 0,          /* no sign of it */
    FIOR__DIED_NO_BYTES,        /* a job_runtime of 0 and no bytes beside I/Os or syncs (the print of a job
                                 * that never got past its start: stat.c prints what the shared stats hold) */
    FIOR__DIED_GOT_SIGNAL,      /* fio's "fio: pid=P, got signal=S" line names it (or names no job at all) */
    FIOR__DIED_ZERO_RUNTIME,    /* I/O done in a direction whose runtime stayed 0 (only a job that died in its
                                 * I/O loop leaves it so: backend.c update_runtime) */
    FIOR__DIED_WRITES_UNCOUNTED,/* more writes counted as issued than the job's bytes hold */
    FIOR__DIED_HOST_LOST,       /* fio's client lost a server it ran jobs on */
} fior__died;

typedef struct fior__endfacts {
    int      options;         /* the job's options are in the input (JSON) */
    uint64_t goal_bytes;      /* (io_size or size) × loops (× numjobs when grouped); 0 when not known */
    uint64_t tol_bytes;       /* the largest block size: fio leaves out a last block that does not fit */
    uint64_t goal_ios;        /* number_ios, 0 none */
    uint64_t goal_runtime_ms; /* runtime=, 0 none */
    int      goal_unreadable; /* its size, io_size or filesize is a value fio reads and we do not ("50%") */
    int      bytes_known, runtime_known, ios_known;
    int      runtime_exact;   /* runtime_ms is job_runtime (ms since the job's epoch, backend.c), not the
                               * longest read/write runtime (ms since its I/O started) */
    uint64_t bytes, runtime_ms, ios, syncs;
    fior__died died;          /* the sign that the job's process died, FIOR__DIED_NO when none */
    int      died_signal;     /* S of "fio: pid=P, got signal=S" */
    int      signal;          /* N of the run's "fio: terminating on signal N" line, 0 none */
    int      after_signal;    /* these figures were printed after that line */
    unsigned docs;            /* documents (JSON) or prints (normal output) of this run so far */
    uint64_t eta_s;           /* the last document's "eta" (s left), when has_eta */
    int      has_eta;
    uint64_t gap_ms, interval_ms; /* the last document's distance from the one before, and the status
                               * interval seen between earlier ones (both 0 when not known) */
    int      stream_signal_after; /* a signal line follows this stream's last document, before another run */
    int      cut_inside;      /* the input (or its run) ends inside this job's print: a read/write line, no
                               * cpu or "issued rwts:" line after it */
    uint64_t jobs_missing, jobs_started; /* normal output cut before the figures of some jobs fio started */
} fior__endfacts;
void        fior__endfacts_init(fior__endfacts *f);
/* Sets j->end and j->end_reason from f; -1 when out of memory (j unchanged). */
int         fior__job_end(fior_job *j, const fior__endfacts *f);
/* Writes a job may issue and never finish when its runtime ends (an async engine's iodepth): the margin
 * before more writes counted than bytes done means a dead job process (json_job.c, normal_end.c) */
#define FIOR__INFLIGHT 65
/* fio's "fio: pid=P, got signal=S" lines in the text around JSON documents (json_signal.c): every job of r
 * is then one whose process died. FIOR_E_NOMEM, else FIOR_OK. */
fior_status fior__json_died_lines(fior_report *r, const char *gap, size_t len);
/* fio's own lines (read/fio_lines.c). fio's client's "client: host=H disconnected" (a whole line, client.c):
 * a server it ran jobs on is gone */
int         fior__host_lost_line(const char *line);
/* fio's "\nfio: terminating on signal N\n" (backend.c sig_int, server.c): the text after "fio: " */
#define FIOR__SIGLINE "fio: terminating on signal "
/* The signal of such a line at p (n bytes, from its "fio: "), 0 when it is not one; *len: the line's length
 * with its newline (a line cut by the end of the buffer: -1 when it may still be one, with *len 0). */
int         fior__sigline(const char *p, size_t n, size_t *len);
/* S of a whole line "fio: pid=P, got signal=S" (a job process died; *pid = P when pid is not NULL), else 0 */
int         fior__got_signal_line(const char *line, long *pid);
/* fio option values, as the JSON "job options" give them (fio's parse.c): a size ("100m", "4KiB",
 * "104857600"; base 1024 unless kb1000), a time ("30", "30s", "500ms", "2m"; seconds by default), the largest
 * block size of a bs/bsrange value ("4k,8k", "4k-64k"). 0 when there is none, UINT64_MAX when the value does
 * not read (a percentage, a range of sizes, an expression). */
uint64_t    fior__opt_size(const char *s, size_t n, int kb1000);
uint64_t    fior__opt_time_ms(const char *s, size_t n);
uint64_t    fior__opt_bs_max(const char *s, size_t n, int kb1000);
/* p without "//", "/./" and "dir/.." (lexically, as written), in out (n bytes); p itself when not absolute
 * or too long (verdict_source.c) */
const char *fior__path_lexical(const char *p, char *out, size_t n);
/* An ioengine whose "syncs" flush nothing to a disk (null, cpuio, net, …), else 0. */
int         fior__engine_no_io(const char *ioengine);

/* A string → index map (strmap.c); zero-initialised means empty. */
typedef struct fior__strmap {
    char  **keys;
    size_t *vals;
    size_t  cap, n;
} fior__strmap;
size_t     *fior__strmap_find(const fior__strmap *x, const char *key);  /* NULL when absent */
/* Adds key → val unless the key is there. Takes ownership of key (also on failure). -1 when out of
 * memory (the map is unchanged). */
int         fior__strmap_put(fior__strmap *x, char *key, size_t val);
void        fior__strmap_free(fior__strmap *x);  /* frees the keys; the map must be zeroed to be reused */

/* Small text helpers shared by the text readers. */
int         fior__is_space(char c);
/* Locale-independent number readers for NUL-terminated text: advance *p past the number; -1 when there
 * is no number at *p. parse_dec takes "123", "12.5" (no sign, no exponent); parse_u64 digits only. */
int         fior__parse_dec(const char **p, double *out);
int         fior__parse_u64(const char **p, uint64_t *out);
/* "fio-3.33" → 3, 33; 0 on success. */
int         fior__fio_version(const char *v, int *major, int *minor);

#endif
