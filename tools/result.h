/* SPDX-License-Identifier: MIT */
/* result.h — the one result model of etcd-fio: "a judged run". check (one host), fleet (one host per fio
 * server) and verdict (one host per host:port found in the inputs) all fill it, and one writer each turns
 * it into the table (out_table.c), JSON (out_json.c, doc/etcd-fio.schema.json) and a node_exporter textfile
 * (out_prom.c). Unknown numbers are RESULT_UNKNOWN (written as null / "?" / left out). */
#ifndef ETCD_FIO_RESULT_H
#define ETCD_FIO_RESULT_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <yajl/yajl_gen.h>
#include <yajl/yajl_tree.h>

#include "explain.h"
#include "fioreport.h"

#define RESULT_UNKNOWN UINT64_MAX
#define RESULT_SCHEMA  1

/* What a verdict rests on. */
typedef enum result_basis {
    RESULT_BASIS_NONE = 0,     /* no verdict from the data (unknown: missing data, fio failed, nothing judged) */
    RESULT_BASIS_VALUE,        /* the library's judgement of the values in fio's output (verdict, fleet) */
    RESULT_BASIS_BOUND,        /* the confidence bound on the p99 is clear of the threshold (check) */
    RESULT_BASIS_POINT,        /* the bound straddles; the point estimate was accepted (--accept-point-estimate) */
    RESULT_BASIS_UNDECIDED     /* the bound straddles the threshold: unknown, the point estimate is in the reason */
} result_basis;
const char *result_basis_name(result_basis b);  /* "none" "value" "bound" "point-estimate" "undecided" */

typedef struct result_job {
    char         name[128];
    char         source[256];   /* input file (verdict), "" otherwise */
    unsigned     run;           /* which fio run of its input, from 1: several fio outputs concatenated in one
                                 * file are separate runs, each judged (fior_job.run + 1) */
    fior_role    role;
    uint64_t     samples;
    uint64_t     p50_ns, p99_ns, p999_ns, max_ns;
    uint64_t     judged_ns;     /* the value the verdict used (the judged percentile or a proving neighbour) */
    uint64_t     bound_lo_ns, bound_hi_ns;  /* confidence bound on the p99 (check) */
    double       bound_confidence; /* the level it holds at (0.9531); 0: no bound */
    uint64_t     threshold_ns;
    fior_verdict verdict;
    char         reason[512];
    const fior_bin *bins;       /* json+ bins (owned by the report; for the SVG), or NULL */
    size_t       nbins;
    fior_end     end;           /* did the fio run reach its end (fior_job.end); FIOR_END_UNKNOWN: not told */
    char         end_reason[512];
    char         ioengine[128]; /* "" when not in the input */
    char         syncs[64];     /* what made the sync samples (fior_sync_flags_name), "" when not a fio job */
    const char  *medium;        /* where the syncs went: "disk" (shown), "not disk" (shown otherwise), "inferred"
                                 * (a PASS whose input does not show it), NULL when not told */
    char         medium_reason[256]; /* the fact that shows it, "" when none */
} result_job;

typedef struct result_host {
    char         host[256];       /* as the user named it (fleet), this machine's hostname (check), or "" */
    int          port;            /* -1: none */
    char         dir[4096];       /* directory tested, "" when not known (verdict) */
    char         status[32];      /* fleet: ok / unreachable / fio-version / no-engine / probe-failed /
                                   * no-results / interrupted / judged; "judged" elsewhere */
    char         server_hostname[128];
    char         fio_version[64];
    result_job      *jobs;
    size_t       njobs, cap;
    fior_verdict verdict;
    result_basis     basis;
    char         reason[768];
    uint64_t     rollovers;       /* WAL segment rollovers, RESULT_UNKNOWN when not measured */
    double       duration_s;      /* < 0: unknown */
} result_host;

/* Command-specific details: a line in the table ("  label  text") and a key in the JSON "details". */
typedef struct result_detail {
    char  key[32], label[32];
    char *text;                   /* malloc'd, NULL when out of memory */
    yajl_val json;                /* the JSON value (NULL: null), owned by the run */
} result_detail;

typedef struct result_run {
    const char  *command;         /* "check", "fleet", "verdict" */
    char         tool_version[32], fio_version[64], hostname[256];
    time_t       timestamp;
    double       percentile, confidence;  /* confidence 0: no bound (verdict, fleet) */
    uint64_t     wal_threshold_ns, backend_threshold_ns, min_samples, floor_ns;
    const char  *load;            /* NULL for verdict */
    result_host     *hosts;
    size_t       nhosts, cap;
    fior_verdict verdict;
    result_basis     basis;
    char         reason[1024];
    result_detail    details[16];
    size_t       ndetails;
    explain_line explain[64];      /* why the verdicts came out so (explain.h), in the order found */
    size_t       nexplain;
    int          verbose;          /* -v: the table shows every reason, detail and why: line */
} result_run;

/* Sets the common fields (versions, hostname, now, the criteria). */
void     result_init(result_run *r, const char *command, const fior_criteria *c);
void     result_free(result_run *r);
result_host *result_add_host(result_run *r);           /* zeroed, port -1, rollovers/duration unknown; NULL: no memory */
result_job  *result_add_job(result_host *h);           /* result_job_init'ed */
void     result_job_init(result_job *j);           /* zeroed, all numbers RESULT_UNKNOWN, verdict unknown */
/* json: a generator holding one complete value (jw.h), freed here; NULL: null. */
void     result_add_detail(result_run *r, const char *key, const char *label, yajl_gen json, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* Fills a job from the library's job and judgement: name, role, samples, p50/p99/p99.9/max (fio's listed
 * percentiles, else from json+ bins), judged value, threshold, verdict, reason. */
void     result_job_fill(result_job *o, const fior_job *j, const fior_judgement *jd);
/* A listed percentile of the job (exact match), else from its bins, held within the job's [min, max];
 * RESULT_UNKNOWN when neither has it. */
uint64_t result_job_pct(const fior_job *j, double percent);

/* Appends explain.h's lines for these distributions (one call per host; `prefix` such as "node1: " goes in
 * front of each line's why, "" for none). */
void     result_explain(result_run *r, const explain_facts *f, const char *prefix);
/* The same from the run's own jobs (exact numbers: check, fleet), per host; rollover_worst_ns is the
 * engine's slowest WAL rollover of a single host, RESULT_UNKNOWN when not measured; fs_type the filesystem
 * measured (NULL: not known); next the command that measures again (NULL: the check on the host's dir). */
void     result_explain_jobs(result_run *r, uint64_t rollover_worst_ns, const char *fs_type, const char *next);
/* verdict's lines from the library's jobs and judgements. 0, or -1 when out of memory. */
int      result_explain_report(result_run *r, const fior_report *rep, const fior_result *res, const fior_criteria *crit);
/* The last step, once r->verdict is final: with one_run (check: one run judged as a whole), an unknown
 * result keeps no line that trusts a pass of its data; an unknown result ends with a line carrying the next
 * command (next, or the check on the host's directory when NULL). */
void     result_explain_finish(result_run *r, int one_run, const char *next);

/* Appends the environment's explain lines (explain_env_lines). */
void     result_explain_env(result_run *r, const explain_env *e);

/* "wal", "backend", "check-perf" */
const char *result_role_name(fior_role role);

/* worst first: fail, unknown, not judged, pass */
int      result_rank(fior_verdict v);
/* Host verdict from its jobs: fail if any fails, else unknown if any is unknown or none was judged. */
fior_verdict result_jobs_verdict(const result_host *h);
/* Run verdict: the worst host (no hosts: unknown). */
void     result_finish(result_run *r);

#endif
