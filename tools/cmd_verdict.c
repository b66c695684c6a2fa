/* SPDX-License-Identifier: MIT */
/* cmd_verdict.c — `etcd-fio verdict`: judges saved fio outputs and etcd-perf logs with libfioreport and
 * writes the result model (one host per host:port in the inputs) as a table or JSON. The exit status is the
 * verdict: 0 PASS, 1 FAIL, 2 anything that is not a proven answer (unknown, nothing judged, bad input,
 * usage error). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "out.h"
#include "scrape.h"

static const char usage[] =
"usage: etcd-fio verdict [OPTIONS] [FILE|-|URL]...\n"
"\n"
"Judges fio outputs and etcd-perf logs the way etcd needs a disk judged: the P-th percentile (default 99)\n"
"of fsync/fdatasync latency must be below T ms: 10 ms for WAL jobs (any fio job), 25 ms for jobs of the\n"
"etcd-fio engine run with etcd_mode=backend (bbolt commits).\n"
"\n"
"Inputs (detected from the content; '-' or no FILE reads stdin): fio normal output (any fio 3.x, also\n"
"client/server), fio JSON and json+, --output-format=normal,json, --status-interval streams,\n"
"etcd-perf container logs ('INFO: 99th percentile of fsync is N ns'), Prometheus scrapes of etcd's\n"
"/metrics (saved files, or URLs like https://HOST:2379/metrics, fetched with libcurl) and\n"
"`etcdctl check perf` output.\n"
"\n"
"etcd's own histograms (etcd_disk_wal_fsync_duration_seconds, etcd_disk_backend_commit_duration_seconds)\n"
"only say which bucket (a factor of 2 wide) the P-th percentile lies in: PASS when the bucket's upper edge\n"
"is below T, FAIL when its lower edge is at or above T, else UNKNOWN ('p99 between 8 and 16 ms'). Two\n"
"scrapes of the same etcd (two files in order, or a URL with --interval) are differenced and only the\n"
"window between them is judged; a restart or counter reset between them is UNKNOWN. One scrape is judged\n"
"since etcd started. `etcdctl check perf` judges etcd as a whole: its FAIL fails, its PASS is no disk PASS.\n";

static const cli_opt options[] = {
    CLI_OPT("json", 'j', NULL, "print one JSON object (doc/etcd-fio.schema.json, \"command\": \"verdict\")"),
    CLI_OPT_VERBOSE,
    CLI_OPTS_CRITERIA,
    CLI_OPT("max-input", 'M', "BYTES", "read at most BYTES of each input (K/M/G suffixes, powers of 1024; default 1G)"),
    CLI_OPT("interval", 'i', "S", "scrape every URL twice, S seconds apart, and judge the window between the scrapes"),
    CLI_OPTS_TLS('A', 'C', 'K'),
    CLI_END};

static const char outro[] =
"A job is UNKNOWN, never PASS, when: it has sync samples but no usable percentile; fio reported an\n"
"error; it has too few samples; its latencies are known to be garbage (fio 3.31-3.40 with\n"
"ioengine=libaio, or an implausible max when the input does not name the engine) or all zero\n"
"(gtod_reduce); the percentile is missing and its listed neighbours do not decide it; or the printed\n"
"value is within its print resolution (e.g. 10 msec) of the threshold. Jobs without sync samples are\n"
"NOT JUDGED. Overall: FAIL if any judged job fails, else UNKNOWN if any job is unknown or nothing was\n"
"judged, else PASS.\n"
"\n"
"Exit status: 0 PASS, 1 FAIL, 2 UNKNOWN / nothing judged / unreadable or unparseable input / usage error.\n"
"An unreadable or unparseable input prints one line on stderr naming the file and the line (text) or\n"
"byte (JSON), and nothing on stdout.\n";

static int run(const cli_cmd *cmd, int argc, char **argv);
const cli_cmd cmd_verdict_def = {"verdict", run, "judge existing fio outputs / etcd-perf logs", usage, options,
                                 outro};

/* The host entry of the model for a job's host:port (jobs without one share the entry with host ""). */
static result_host *host_for(result_run *r, const fior_job *j)
{
    const char *h = j->host ? j->host : "";
    int port = j->host ? j->port : -1;
    for (size_t i = 0; i < r->nhosts; i++)
        if (!strcmp(r->hosts[i].host, h) && r->hosts[i].port == port)
            return &r->hosts[i];
    result_host *nh = result_add_host(r);
    if (nh) {
        snprintf(nh->host, sizeof nh->host, "%s", h);
        nh->port = port;
        nh->basis = RESULT_BASIS_VALUE;
    }
    return nh;
}

typedef struct verdict_opts {
    int        json, verbose;
    double     interval;        /* --interval: scrape each URL twice, this far apart */
    uint64_t   max_input;
    scrape_tls tls;
    char     **files;           /* the inputs ("-": stdin) */
    int        nfiles;
} verdict_opts;

/* The options into o and crit: 0, 1 after --help, -1 after the message. */
static int parse_opts(const cli_cmd *cmd, int argc, char **argv, fior_criteria *crit, verdict_opts *o)
{
    static char *stdin_only[] = {"-"};
    memset(o, 0, sizeof *o);
    o->max_input = FIOR_MAX_INPUT_DEFAULT;
    cli_parse p;
    cli_parse_init(&p, cmd, argc, argv);
    int c;
    while ((c = cli_next(&p)) > 0) {
        switch (c) {
        case 'v': o->verbose = 1; break;
        case 'j': o->json = 1; break;
        case 'i': if (cli_double(&p, 1e-3, 86400, &o->interval)) return -1; break;
        case 'A': o->tls.cacert = p.arg; break;
        case 'C': o->tls.cert = p.arg; break;
        case 'K': o->tls.key = p.arg; break;
        case 'M': if (cli_bytes(&p, &o->max_input)) return -1; break;
        default: if (cli_criteria_opt(&p, c, crit) < 0) return -1; break;
        }
    }
    if (c < 0)
        return c == CLI_HELP ? 1 : -1;
    o->files = p.optind < argc ? argv + p.optind : stdin_only;
    o->nfiles = p.optind < argc ? argc - p.optind : 1;
    int urls = 0;
    for (int f = 0; f < o->nfiles; f++)
        urls += scrape_is_url(o->files[f]);
    if (o->interval > 0 && !urls) {
        cli_err(cmd, "--interval scrapes URLs twice, and no input is an http(s) URL");
        return -1;
    }
    return 0;
}

/* The result model: each job under its host (host_for), each host's verdict with its worst job's reason;
 * count gets the jobs by rank (fail, unknown, not judged, pass). 0, or -1 when out of memory. */
static int fill_model(result_run *r, const fior_report *rep, const fior_result *res, size_t count[4])
{
    for (size_t i = 0; i < fior_report_njobs(rep); i++) {
        const fior_job *j = fior_report_job(rep, i);
        result_host *h = host_for(r, j);
        result_job *o = h ? result_add_job(h) : NULL;
        if (!o)
            return -1;
        result_job_fill(o, j, fior_result_job(res, i));
        if (j->fio_version && !r->fio_version[0])
            snprintf(r->fio_version, sizeof r->fio_version, "%s", j->fio_version);
        if (j->fio_version && !h->fio_version[0])
            snprintf(h->fio_version, sizeof h->fio_version, "%s", j->fio_version);
    }
    for (size_t i = 0; i < r->nhosts; i++) {
        result_host *h = &r->hosts[i];
        h->verdict = result_jobs_verdict(h);
        for (size_t k = 0; k < h->njobs; k++)
            count[result_rank(h->jobs[k].verdict)]++;
        const result_job *worst = NULL;
        for (size_t k = 0; k < h->njobs; k++)
            if (!worst || result_rank(h->jobs[k].verdict) < result_rank(worst->verdict))
                worst = &h->jobs[k];
        cli_msg(h->reason, sizeof h->reason, "%s%s%s", worst ? worst->name : "no jobs", worst ? ": " : "",
                worst ? worst->reason : "");
    }
    result_finish(r);
    r->basis = r->nhosts ? RESULT_BASIS_VALUE : RESULT_BASIS_NONE;
    return 0;
}

static int run(const cli_cmd *cmd, int argc, char **argv)
{
    fior_criteria *crit = fior_criteria_new();
    fior_report *rep = fior_report_new();
    fior_result *res = NULL;
    result_run r;
    int rc = 2, inited = 0;
    verdict_opts o;
    char err[1024];
    if (!crit || !rep) {
        cli_err(cmd, "out of memory");
        goto out;
    }
    int prc = parse_opts(cmd, argc, argv, crit, &o);
    if (prc) {
        rc = prc > 0 ? 0 : 2;
        goto out;
    }
    fior_report_set_max_input(rep, o.max_input);
    if (scrape_load_inputs(rep, o.files, o.nfiles, &o.tls, o.interval, err, sizeof err)) {
        cli_err(cmd, "%s", err);
        goto out;
    }
    if (!(res = fior_judge(rep, crit))) {
        cli_err(cmd, "out of memory");
        goto out;
    }
    result_init(&r, "verdict", crit);
    inited = 1;
    size_t count[4] = {0, 0, 0, 0};
    if (fill_model(&r, rep, res, count) || result_explain_report(&r, rep, res, crit)) {
        cli_err(cmd, "out of memory");
        goto out;
    }
    cli_msg(r.reason, sizeof r.reason, "%zu job%s: %zu fail, %zu unknown, %zu not judged, %zu pass",
            fior_report_njobs(rep), fior_report_njobs(rep) == 1 ? "" : "s", count[0], count[1], count[2], count[3]);
    result_explain_finish(&r, 0, NULL);
    r.verbose = o.verbose;
    if (o.json)
        rc = out_json(stdout, &r) ? 2 : cli_exit_status(r.verdict);
    else {
        out_table(stdout, &r);
        rc = cli_exit_status(r.verdict);
    }
out:
    if (inited)
        result_free(&r);
    fior_result_free(res);
    fior_report_free(rep);
    fior_criteria_free(crit);
    return rc;
}
