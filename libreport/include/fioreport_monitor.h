/* SPDX-License-Identifier: MIT */
/* fioreport_monitor.h — libfioreport 4 for a running fio: read fio's JSON output as fio writes it
 * (fior_json_stream), decide per role while it runs with a stated confidence (fior_monitor), turn the run's
 * end into one verdict (fior_outcome), and judge a finished distribution with a confidence bound in one look
 * (fior_look). Includes fioreport.h, whose conventions hold here too (opaque handles, statuses, messages,
 * ownership, FIOR_HAS, size-prefixed structs, enums that may grow). Link -lfioreport (pkg-config
 * libfioreport).
 *
 * A live embedder's loop (examples/embed.c --live is a complete program):
 *   s = fior_json_stream_new("fio"); m = fior_monitor_new(criteria);
 *   for each chunk of fio's --output-format=json+ --status-interval=1 output:
 *       fior_json_stream_feed(s, chunk, n);
 *       when fior_json_stream_documents(s) grew: fior_monitor_feed(m, fior_json_stream_report(s), t, &advice);
 *       advice FIOR_STOP_DECIDED: every role is decided, fio may be stopped (SIGINT) now;
 *   after fio ended: o = fior_monitor_end(m, fior_json_stream_report(s), &how_fio_ended);
 *       fior_outcome_verdict(o), fior_outcome_reason(o); fior_outcome_free(o).
 */
#ifndef FIOREPORT_MONITOR_H
#define FIOREPORT_MONITOR_H

#include "fioreport.h"

#ifdef __cplusplus
extern "C" {
#endif

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

/* fior_json_stream_new: a stream whose messages and jobs name `source` (copied; NULL gives "(stream)"). NULL only
 * when out of memory. fior_json_stream_free: frees s, its report and its jobs; NULL is fine.
 * fior_json_stream_feed: reads len bytes at buf (only read during the call).
 * Errors of a feed: FIOR_E_INVAL (s NULL, buf NULL with len), FIOR_E_NOMEM, FIOR_E_PARSE (a document that is
 * not JSON, or not fio's: the message names its byte; the stream resumes at the next document),
 * FIOR_E_TOOBIG (a document past the cap, above). fior_json_stream_error(s) says why.
 * fior_json_stream_documents: the complete documents seen so far (0 for NULL). */
FIOR_API fior_json_stream *fior_json_stream_new(const char *source);
FIOR_API void              fior_json_stream_free(fior_json_stream *s);
FIOR_API fior_status       fior_json_stream_feed(fior_json_stream *s, const char *buf, size_t len);
FIOR_API unsigned long     fior_json_stream_documents(const fior_json_stream *s);
/* fior_json_stream_report: every run's latest complete document, or NULL before the first.
 * Ownership: the stream's. It dies at the next complete document: the pointer (and every fior_job in it) is
 * valid only until the next fior_json_stream_feed() call that completes a document (fior_json_stream_documents()
 * grows), or fior_json_stream_free(). A fior_result made from it with fior_judge() does not refer to it and
 * may outlive it. */
FIOR_API const fior_report *fior_json_stream_report(const fior_json_stream *s);
/* fior_json_stream_error: the last error message ("" when none), owned by s: valid until the next
 * fior_json_stream_feed() or fior_json_stream_free(). */
FIOR_API const char       *fior_json_stream_error(const fior_json_stream *s);
/* The cap on one document's bytes: FIOR_MAX_INPUT_DEFAULT unless set. It applies from the next feed on,
 * also to a document already open. Errors: FIOR_E_INVAL for 0 or s NULL (the cap is then unchanged). The
 * getter gives 0 for NULL. */
FIOR_API fior_status       fior_json_stream_set_max_document(fior_json_stream *s, uint64_t bytes);
FIOR_API uint64_t          fior_json_stream_max_document(const fior_json_stream *s);

/* ---- the sequential judge of a growing run (fior_monitor) ----
 * Feed it the report of a growing fio run (each --status-interval document: fior_json_stream_report) and it
 * answers per role — WAL fdatasync, backend commit — as soon as the criteria's percentile is known to lie
 * below or above the threshold with the requested confidence: every document is a look, and each side
 * (PASS, FAIL) tests the share of samples past the threshold with a distribution-free mixture likelihood
 * ratio that is valid at every look (Ville's inequality), so each role's PASS and FAIL errors stay
 * <= (1 - confidence)/2 whatever the number of looks; no decision before the criteria's min_samples. At the
 * run's end, how fio ended (the caller knows: it ran fio) and the library's judgement of the final
 * document make one verdict with its basis and reason. No clock, no I/O: times are the caller's. */

typedef enum fior_decision {
    FIOR_DEC_ABSENT = 0,  /* no job of the role (yet) */
    FIOR_DEC_TOO_FEW,     /* fewer samples than the criteria's minimum */
    FIOR_DEC_UNDECIDED,   /* the bound straddles the threshold */
    FIOR_DEC_PASS,        /* decided: percentile < threshold */
    FIOR_DEC_FAIL         /* decided: percentile > threshold */
} fior_decision;        /* may grow at the end */
/* fior_decision_name: "absent", "too few samples", "undecided", "pass", "fail" (static string; "?" for
 * values it does not know). */
FIOR_API const char *fior_decision_name(fior_decision d);

/* What a verdict rests on. */
typedef enum fior_basis {
    FIOR_BASIS_NONE = 0,   /* no verdict from the data */
    FIOR_BASIS_VALUE,      /* the library's judgement of the values (no bound asked for) */
    FIOR_BASIS_BOUND,      /* the confidence bound on the percentile is clear of the threshold */
    FIOR_BASIS_POINT,      /* the bound straddles; the point estimate was accepted */
    FIOR_BASIS_UNDECIDED   /* the bound straddles: unknown, the point estimate is in the reason */
} fior_basis;           /* may grow at the end */

/* fior_first_pass_samples: the sample count of the first possible PASS for the q-quantile (0 < q < 1) at
 * this confidence: the first n where n samples all below the threshold decide it, at least min_samples. A
 * run that cannot reach it can never decide a PASS (e.g. etcd's backend commits at 10/s need a runtime of
 * at least that many tenths of a second). UINT64_MAX for q or confidence outside (0, 1). */
FIOR_API uint64_t fior_first_pass_samples(double q, double confidence, uint64_t min_samples);

typedef struct fior_monitor fior_monitor;

/* fior_monitor_new: a monitor judging against c (copied; NULL: the defaults) at 95 % confidence, both
 * roles expected. NULL only when out of memory. fior_monitor_free: NULL is fine.
 * fior_monitor_error: the last error of a call on m ("" when none), owned by m: valid until the next call
 * on m. */
FIOR_API fior_monitor *fior_monitor_new(const fior_criteria *c);
FIOR_API void          fior_monitor_free(fior_monitor *m);
FIOR_API const char   *fior_monitor_error(const fior_monitor *m);
/* Setters, before the first fior_monitor_feed. confidence: per role, in [0.5, 0.9999]. accept_point
 * (settable until fior_monitor_end): a bound that still straddles at the end gives the point estimate's
 * verdict (basis POINT) instead of UNKNOWN. roles: the roles that must be decided (bit 1 << fior_role;
 * default WAL and backend; 1u << FIOR_ROLE_WAL alone asks the WAL question only).
 * Errors: FIOR_E_INVAL for m NULL, a bad value, or a call after the first feed (fior_monitor_error says
 * which); nothing changes then. */
FIOR_API fior_status   fior_monitor_set_confidence(fior_monitor *m, double confidence);
FIOR_API fior_status   fior_monitor_set_accept_point(fior_monitor *m, int on);
FIOR_API fior_status   fior_monitor_set_roles(fior_monitor *m, unsigned mask);

/* What the caller should do after a feed. */
typedef enum fior_advice {
    FIOR_GO_ON = 0,      /* keep running */
    FIOR_STOP_DECIDED    /* every expected role decided (or one failed): fio may be stopped */
} fior_advice;          /* may grow at the end (values 2 and 3 are taken) */
/* fior_monitor_feed: one document. r is the growing run's report (its latest jobs of each role are used:
 * the etcd_mode option, else the names etcd-wal/etcd-backend, else the role); r is only read during the
 * call. elapsed_s: the caller's time since fio started. Sets *advice (may be NULL).
 * Errors: FIOR_E_INVAL for m or r NULL, and when a role has fewer samples than at the last feed (not one
 * growing run: another run, documents out of order): the monitor then decides nothing more and its outcome
 * is UNKNOWN with that reason (fior_monitor_error). FIOR_E_NOMEM. */
FIOR_API fior_status   fior_monitor_feed(fior_monitor *m, const fior_report *r, double elapsed_s,
                                         fior_advice *advice);

/* One role's answer, filled by fior_monitor_answer. Size-prefixed: set size = sizeof(fior_answer) before
 * the call; a later library fills only what the caller's size holds, and fields are only ever added at
 * the end. */
typedef struct fior_answer {
    size_t        size;
    fior_decision decision;
    uint64_t      threshold_ns;
    uint64_t      samples;             /* at the last feed */
    uint64_t      point_ns;            /* the percentile's point estimate (0: no samples) */
    uint64_t      lo_ns, hi_ns;        /* bound at the nominal confidence (hi UINT64_MAX: none yet) */
    uint64_t      look_lo_ns, look_hi_ns; /* the anytime bound the last look decided with (valid at every look) */
    double        look_confidence;
    unsigned      pass_looks, fail_looks;
    uint64_t      decided_samples;     /* samples when decided (0: not decided) */
} fior_answer;
/* fior_monitor_answer: role's answer at the last feed into *out. Errors: FIOR_E_INVAL for m or out NULL,
 * out->size too small, or a role other than WAL and backend.
 * fior_monitor_overall: FAIL if a role failed, PASS if every expected role passed, else the weakest
 * state (FIOR_DEC_ABSENT for NULL or before the first feed). */
FIOR_API fior_status   fior_monitor_answer(const fior_monitor *m, fior_role role, fior_answer *out);
FIOR_API fior_decision fior_monitor_overall(const fior_monitor *m);

/* How the run ended, as the caller that ran fio knows it (fior_run_end.stop). */
typedef enum fior_stop {
    FIOR_STOP_NONE = 0,    /* fio ended by itself (its runtime or size) */
    FIOR_STOP_BY_DECISION, /* the caller stopped it with one SIGINT on FIOR_STOP_DECIDED */
    FIOR_STOP_TIME_NET,    /* the caller stopped it with one SIGINT: it ran past its time */
    FIOR_STOP_USER         /* the operator (or a watcher) interrupted the run */
} fior_stop;            /* may grow at the end */
/* How fio ended, filled by the caller. Size-prefixed: set size = sizeof(fior_run_end); fields are only ever
 * added at the end, and a field the caller's size does not hold counts as 0/NULL. */
typedef struct fior_run_end {
    size_t      size;
    int         started;     /* fio could be started */
    int         killed_by;   /* fio died of this signal (0: it exited) */
    int         exit_code;   /* its exit status when it exited */
    fior_stop   stop;
    int         complete;    /* fio's final document arrived (after the caller's stop, if any) */
    double      duration_s;  /* how long fio ran */
    const char *problem;     /* the caller's own words for why the run did not end normally (a watchdog
                              * that stopped it), or NULL: it comes before every other reason */
} fior_run_end;

/* The verdict of a monitored run (opaque). */
typedef struct fior_outcome fior_outcome;
/* fior_monitor_end: the outcome from the monitor, the final report (fior_json_stream_report after fio
 * ended; NULL when there is none; only read during the call) and how fio ended (e, only read during the
 * call). No PASS without proof: UNKNOWN whenever fio did not end normally, the library cannot judge the
 * final document, a bound still straddles at the end (unless accept_point), or the bound and the
 * library's judgement disagree. Returns NULL for m or e NULL, e->size too small, or out of memory.
 * Ownership: the caller's, freed with fior_outcome_free (NULL is fine); it does not refer to m or the
 * report afterwards. */
FIOR_API fior_outcome *fior_monitor_end(fior_monitor *m, const fior_report *final, const fior_run_end *e);
FIOR_API void          fior_outcome_free(fior_outcome *o);
/* The whole run: its verdict (FIOR_UNKNOWN for NULL), its basis, its status — "judged", "interrupted",
 * "fio-failed", "no-results" (static) — and its reason, one line naming the criteria's percentile and
 * confidence (owned by o, valid until fior_outcome_free(o); "" for NULL). */
FIOR_API fior_verdict  fior_outcome_verdict(const fior_outcome *o);
FIOR_API fior_basis    fior_outcome_basis(const fior_outcome *o);
FIOR_API const char   *fior_outcome_status(const fior_outcome *o);
FIOR_API const char   *fior_outcome_reason(const fior_outcome *o);
/* One role: its verdict, its line (owned by o; "" when the role has no job), the library's judgement of
 * the final job (owned by o; NULL: none) and the bound on its percentile that its line cites (FIOR_E_NODATA
 * when the role has no job, FIOR_E_INVAL for o NULL or a role other than WAL and backend; lo_ns and hi_ns
 * may be NULL). For a role the sequential test decided, the bound of the whole run (the final document, whose
 * percentile the line prints) at the confidence asked, when it lies on the side decided; else the decision's
 * own bound, which the line names with its sample count (and a PASS decided early whose whole-run bound no
 * longer lies below the threshold is no PASS). For a role undecided, the bound of its last look at that look's
 * level; the nominal bound on the final percentile when no look was made. fior_outcome_bound_confidence: the
 * level the bound holds at (0 when the role has no job). */
FIOR_API fior_verdict  fior_outcome_role_verdict(const fior_outcome *o, fior_role role);
FIOR_API const char   *fior_outcome_role_reason(const fior_outcome *o, fior_role role);
FIOR_API const fior_judgement *fior_outcome_judgement(const fior_outcome *o, fior_role role);
FIOR_API fior_status   fior_outcome_bound(const fior_outcome *o, fior_role role, uint64_t *lo_ns, uint64_t *hi_ns);
FIOR_API double        fior_outcome_bound_confidence(const fior_outcome *o, fior_role role);

/* ---- one look at a finished distribution ----
 * fior_quantile_bound: the distribution-free two-sided bound on the q-quantile (0 < q < 1) from the order
 * statistics of n binned samples (binomial), at `confidence` (e.g. 0.95): *lo_ns and *hi_ns are bin values,
 * *point_ns the quantile's point estimate. Errors: FIOR_E_INVAL for bad arguments; FIOR_E_NODATA when there
 * are too few samples for a finite bound (then *hi_ns is UINT64_MAX). */
FIOR_API fior_status fior_quantile_bound(const fior_bin *bins, size_t nbins, double q, double confidence,
                                         uint64_t *lo_ns, uint64_t *point_ns, uint64_t *hi_ns);

/* A look: the criteria's percentile of a distribution — one job's json+ bins, or several pooled — judged
 * against c's threshold for one role in one look at the end of a run. Library-owned and read-only (from
 * fior_look_bins, freed by fior_look_free); fields are only ever appended (FIOR_HAS). */
typedef struct fior_look {
    size_t       size;                  /* sizeof(fior_look) of the library that filled it */
    fior_verdict verdict;
    fior_basis   basis;
    uint64_t     samples, threshold_ns;
    uint64_t     point_ns;              /* UINT64_MAX: no samples */
    uint64_t     lo_ns, hi_ns;          /* the bound at the confidence asked (lo 0, hi UINT64_MAX: none) */
    const char  *why;                   /* one line when the basis is not BOUND, else ""; owned by the look */
} fior_look;
/* fior_look_bins: the point estimate (the first bin whose cumulative count reaches the percentile, as fio
 * computes its own), the bound at `confidence` (fior_quantile_bound) and the bound rule's verdict: PASS or
 * FAIL (basis BOUND) only when the bound is clear of the threshold on the point estimate's side; a bound
 * that straddles is UNKNOWN (UNDECIDED) — or the point estimate's verdict (POINT) with accept_point;
 * UNKNOWN, basis NONE, without samples or with fewer than c's min_samples. c NULL: the defaults.
 * On FIOR_OK *out is a new look, the caller's to free with fior_look_free (NULL is fine).
 * Errors: FIOR_E_INVAL for out NULL, bins NULL with nbins, a confidence outside (0, 1); FIOR_E_NOMEM;
 * *out is NULL then. */
FIOR_API fior_status fior_look_bins(const fior_bin *bins, size_t nbins, const fior_criteria *c, fior_role role,
                                    double confidence, int accept_point, fior_look **out);
FIOR_API void        fior_look_free(fior_look *k);
/* fior_look_samples: the fewest samples (at least c's min_samples) whose one-look bound on c's percentile
 * can have an upper end at `confidence` — all of them below the threshold: fewer can never be a PASS in one
 * look. UINT64_MAX for a confidence outside (0, 1). */
FIOR_API uint64_t    fior_look_samples(const fior_criteria *c, double confidence);

#ifdef __cplusplus
}
#endif
#endif /* FIOREPORT_MONITOR_H */
