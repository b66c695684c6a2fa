/* SPDX-License-Identifier: MIT */
/* result.h — the one result model of etcd-fio: "a judged run". check (one host), fleet (one host per fio
 * server) and verdict (one host per host:port found in the inputs) all fill it, and one writer each turns
 * it into the table (out_table.c), JSON (out_json.c, doc/etcd-fio.schema.json) and a node_exporter textfile
 * (out_prom.c). Unknown numbers are RM_UNKNOWN (written as null / "?" / left out). */
#ifndef ETCD_FIO_RESULT_H
#define ETCD_FIO_RESULT_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <yajl/yajl_gen.h>
#include <yajl/yajl_tree.h>

#include "explain.h"
#include "fioreport.h"

#define RM_UNKNOWN UINT64_MAX
#define RM_SCHEMA  1

/* What a verdict rests on. */
typedef enum rm_basis {
    RM_BASIS_NONE = 0,     /* no verdict from the data (unknown: missing data, fio failed, nothing judged) */
    RM_BASIS_VALUE,        /* the library's judgement of the values in fio's output (verdict, fleet) */
    RM_BASIS_BOUND,        /* the confidence bound on the p99 is clear of the threshold (check) */
    RM_BASIS_POINT,        /* the bound straddles; the point estimate was accepted (--accept-point-estimate) */
    RM_BASIS_UNDECIDED     /* the bound straddles the threshold: unknown, the point estimate is in the reason */
} rm_basis;
const char *rm_basis_name(rm_basis b);  /* "none" "value" "bound" "point-estimate" "undecided" */

typedef struct rm_job {
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
} rm_job;

typedef struct rm_host {
    char         host[256];       /* as the user named it (fleet), this machine's hostname (check), or "" */
    int          port;            /* -1: none */
    char         dir[4096];       /* directory tested, "" when not known (verdict) */
    char         status[32];      /* fleet: ok / unreachable / fio-version / no-engine / probe-failed /
                                   * no-results / interrupted / judged; "judged" elsewhere */
    char         server_hostname[128];
    char         fio_version[64];
    rm_job      *jobs;
    size_t       njobs, cap;
    fior_verdict verdict;
    rm_basis     basis;
    char         reason[768];
    uint64_t     rollovers;       /* WAL segment rollovers, RM_UNKNOWN when not measured */
    double       duration_s;      /* < 0: unknown */
} rm_host;

/* Command-specific details: a line in the table ("  label  text") and a key in the JSON "details". */
typedef struct rm_detail {
    char  key[32], label[32];
    char *text;                   /* malloc'd, NULL when out of memory */
    yajl_val json;                /* the JSON value (NULL: null), owned by the run */
} rm_detail;

typedef struct rm_run {
    const char  *command;         /* "check", "fleet", "verdict" */
    char         tool_version[32], fio_version[64], hostname[256];
    time_t       timestamp;
    double       percentile, confidence;  /* confidence 0: no bound (verdict, fleet) */
    uint64_t     wal_threshold_ns, backend_threshold_ns, min_samples, floor_ns;
    const char  *load;            /* NULL for verdict */
    rm_host     *hosts;
    size_t       nhosts, cap;
    fior_verdict verdict;
    rm_basis     basis;
    char         reason[1024];
    rm_detail    details[16];
    size_t       ndetails;
    explain_line explain[64];      /* why the verdicts came out so (explain.h), in the order found */
    size_t       nexplain;
    int          verbose;          /* -v: the table shows every reason, detail and why: line */
} rm_run;

/* Sets the common fields (versions, hostname, now, the criteria). */
void     rm_init(rm_run *r, const char *command, const fior_criteria *c);
void     rm_free(rm_run *r);
rm_host *rm_add_host(rm_run *r);           /* zeroed, port -1, rollovers/duration unknown; NULL: no memory */
rm_job  *rm_add_job(rm_host *h);           /* rm_job_init'ed */
void     rm_job_init(rm_job *j);           /* zeroed, all numbers RM_UNKNOWN, verdict unknown */
/* json: a generator holding one complete value (jw.h), freed here; NULL: null. */
void     rm_add_detail(rm_run *r, const char *key, const char *label, yajl_gen json, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* Fills a job from the library's job and judgement: name, role, samples, p50/p99/p99.9/max (fio's listed
 * percentiles, else from json+ bins), judged value, threshold, verdict, reason. */
void     rm_job_fill(rm_job *o, const fior_job *j, const fior_judgement *jd);
/* A listed percentile of the job (exact match), else from its bins, held within the job's [min, max];
 * RM_UNKNOWN when neither has it. */
uint64_t rm_job_pct(const fior_job *j, double percent);

/* Appends explain.h's lines for these distributions (one call per host; `prefix` such as "node1: " goes in
 * front of each line's why, "" for none). */
void     rm_explain(rm_run *r, const explain_facts *f, const char *prefix);
/* The same from the run's own jobs (exact numbers: check, fleet), per host; rollover_worst_ns is the
 * engine's slowest WAL rollover of a single host, RM_UNKNOWN when not measured; fs_type the filesystem
 * measured (NULL: not known); next the command that measures again (NULL: the check on the host's dir). */
void     rm_explain_jobs(rm_run *r, uint64_t rollover_worst_ns, const char *fs_type, const char *next);
/* verdict's lines from the library's jobs and judgements. 0, or -1 when out of memory. */
int      rm_explain_report(rm_run *r, const fior_report *rep, const fior_result *res, const fior_criteria *crit);
/* The last step, once r->verdict is final: with one_run (check: one run judged as a whole), an unknown
 * result keeps no line that trusts a pass of its data; an unknown result ends with a line carrying the next
 * command (next, or the check on the host's directory when NULL). */
void     rm_explain_finish(rm_run *r, int one_run, const char *next);

/* Appends the environment's explain lines (explain_env_lines). */
void     rm_explain_env(rm_run *r, const explain_env *e);

/* "wal", "backend", "check-perf" */
const char *rm_role_name(fior_role role);

/* worst first: fail, unknown, not judged, pass */
int      rm_rank(fior_verdict v);
/* Host verdict from its jobs: fail if any fails, else unknown if any is unknown or none was judged. */
fior_verdict rm_jobs_verdict(const rm_host *h);
/* Run verdict: the worst host (no hosts: unknown). */
void     rm_finish(rm_run *r);

#endif
