/* cmd_verdict.c — `etcd-fio verdict`: judges saved fio outputs and etcd-perf logs with libfioreport and
 * prints a table (or one JSON object) and the overall verdict. The exit status is the verdict, so scripts
 * can gate on it: 0 PASS, 1 FAIL, 2 anything that is not a proven answer (UNKNOWN, nothing judged, bad
 * input, usage error). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "cmds.h"
#include "fioreport.h"
#include "scrape.h"

static void usage(FILE *f)
{
    fprintf(f,
"usage: etcd-fio verdict [--json] [--percentile P] [--wal-ms T] [--backend-ms T] [--min-samples N]\n"
"                        [--interval S] [--cacert F] [--cert F] [--key F] [--max-input BYTES]\n"
"                        [FILE|-|URL]...\n"
"\n"
"Judges fio outputs and etcd-perf logs the way etcd needs a disk judged: the P-th percentile (default 99)\n"
"of fsync/fdatasync latency must be below T ms: 10 ms for WAL jobs (any fio job), 25 ms for jobs of the\n"
"etcd-fio engine run with etcd_mode=backend (bbolt commits).\n"
"\n"
"Inputs (detected from the content; '-' or no FILE reads stdin): fio normal output (any fio 3.x, also\n"
"client/server), fio JSON and json+, --output-format=normal,json, --status-interval streams (the last\n"
"complete document counts), etcd-perf container logs ('INFO: 99th percentile of fsync is N ns'),\n"
"Prometheus scrapes of etcd's /metrics (saved files, or URLs like https://HOST:2379/metrics, fetched with\n"
"libcurl) and `etcdctl check perf` output.\n"
"\n"
"etcd's own histograms (etcd_disk_wal_fsync_duration_seconds, etcd_disk_backend_commit_duration_seconds)\n"
"only say which bucket (a factor of 2 wide) the P-th percentile lies in: PASS when the bucket's upper edge\n"
"is below T, FAIL when its lower edge is at or above T, else UNKNOWN ('p99 between 8 and 16 ms'). Two\n"
"scrapes of the same etcd (two files in order, or a URL with --interval) are differenced and only the\n"
"window between them is judged; a restart or counter reset between them is UNKNOWN. One scrape is judged\n"
"since etcd started. `etcdctl check perf` judges etcd as a whole: its FAIL fails, its PASS is no disk PASS.\n"
"\n"
"Options:\n"
"  --json            print one JSON object instead of the table:\n"
"                    {\"verdict\": \"pass|fail|unknown\", \"jobs\": [{\"source\", \"host\", \"port\", \"job\",\n"
"                    \"role\", \"samples\", \"p99_ns\", \"threshold_ns\", \"verdict\", \"reason\"}]}\n"
"                    (null where unknown; p99_ns is the value of the judged percentile)\n"
"  --percentile P    percentile to judge, 0 < P < 100 (default 99)\n"
"  --wal-ms T        WAL threshold in ms (default 10)\n"
"  --backend-ms T    backend commit threshold in ms (default 25)\n"
"  --min-samples N   fewer sync samples than N, or an unknown count, is UNKNOWN (default 100)\n"
"  --max-input BYTES read at most BYTES of each input (K/M/G suffixes, powers of 1024; default 1G)\n"
"  --interval S      scrape every URL twice, S seconds apart, and judge the window between the scrapes\n"
"  --cacert F, --cert F, --key F\n"
"                    TLS for https URLs, as etcdctl takes them (CA bundle, client certificate and key)\n"
"  -h, --help        this help\n"
"\n"
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
"byte (JSON), and nothing on stdout.\n");
}

static int num_arg(const char *opt, const char *val, double lo_excl, double hi_excl, double *out)
{
    char *end;
    if (!val) {
        fprintf(stderr, "etcd-fio verdict: %s needs a value\n", opt);
        return -1;
    }
    errno = 0;
    double v = strtod(val, &end);
    if (errno || end == val || *end || !(v > lo_excl && v < hi_excl)) {
        fprintf(stderr, "etcd-fio verdict: %s: '%s' is not a number in (%g, %g)\n", opt, val, lo_excl, hi_excl);
        return -1;
    }
    *out = v;
    return 0;
}

static const char *lower_verdict(fior_verdict v)
{
    switch (v) {
    case FIOR_PASS: return "pass";
    case FIOR_FAIL: return "fail";
    case FIOR_NOT_JUDGED: return "not judged";
    default: return "unknown";
    }
}

static int print_json(const fior_report *r, const fior_result *res, fior_verdict overall)
{
    json_object *root = json_object_new_object(), *jobs = json_object_new_array();
    if (!root || !jobs)
        return -1;
    json_object_object_add(root, "verdict", json_object_new_string(lower_verdict(overall)));
    for (size_t i = 0; i < fior_report_njobs(r); i++) {
        const fior_job *j = fior_report_job(r, i);
        const fior_judgement *jv = fior_result_job(res, i);
        json_object *o = json_object_new_object();
        json_object_object_add(o, "source", j->source ? json_object_new_string(j->source) : NULL);
        json_object_object_add(o, "host", j->host ? json_object_new_string(j->host) : NULL);
        json_object_object_add(o, "port", j->port >= 0 ? json_object_new_int(j->port) : NULL);
        json_object_object_add(o, "job", j->name ? json_object_new_string(j->name) : NULL);
        json_object_object_add(o, "role",
                               json_object_new_string(j->role == FIOR_ROLE_BACKEND ? "backend" : "wal"));
        json_object_object_add(o, "samples", j->samples_known ? json_object_new_uint64(j->samples) : NULL);
        json_object_object_add(o, "p99_ns", jv->value_known ? json_object_new_uint64(jv->value_ns) : NULL);
        json_object_object_add(o, "threshold_ns", json_object_new_uint64(jv->threshold_ns));
        json_object_object_add(o, "verdict", json_object_new_string(lower_verdict(jv->verdict)));
        json_object_object_add(o, "reason", json_object_new_string(jv->reason));
        json_object_array_add(jobs, o);
    }
    json_object_object_add(root, "jobs", jobs);
    puts(json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
    json_object_put(root);
    return 0;
}

enum { C_SRC, C_HOST, C_JOB, C_N, C_P, C_T, C_V, C_R, NCOL };

static void print_table(const fior_report *r, const fior_result *res, fior_verdict overall, double pct)
{
    size_t n = fior_report_njobs(r);
    char head_p[32];
    snprintf(head_p, sizeof head_p, "P%g", pct);
    const char *head[NCOL] = {"SOURCE", "HOST", "JOB", "SAMPLES", head_p, "THRESHOLD", "VERDICT", "REASON"};
    int w[NCOL];
    for (int c = 0; c < NCOL; c++)
        w[c] = (int)strlen(head[c]);
    char (*cells)[NCOL][64] = calloc(n ? n : 1, sizeof *cells);
    if (!cells)
        return;
    int pass = 0, fail = 0, unk = 0, nj = 0;
    for (size_t i = 0; i < n; i++) {
        const fior_job *j = fior_report_job(r, i);
        const fior_judgement *jv = fior_result_job(res, i);
        snprintf(cells[i][C_SRC], 64, "%s", j->source ? j->source : "-");
        if (j->host && j->port >= 0)
            snprintf(cells[i][C_HOST], 64, "%s:%d", j->host, j->port);
        else
            snprintf(cells[i][C_HOST], 64, "%s", j->host ? j->host : "-");
        snprintf(cells[i][C_JOB], 64, "%s", j->name ? j->name : "-");
        if (j->samples_known)
            snprintf(cells[i][C_N], 64, "%llu", (unsigned long long)j->samples);
        else
            snprintf(cells[i][C_N], 64, "?");
        if (jv->value_known)
            fior_format_ns(cells[i][C_P], 64, jv->value_ns);
        else
            snprintf(cells[i][C_P], 64, "-");
        fior_format_ns(cells[i][C_T], 64, jv->threshold_ns);
        snprintf(cells[i][C_V], 64, "%s", fior_verdict_name(jv->verdict));
        for (int c = 0; c < C_R; c++)
            if ((int)strlen(cells[i][c]) > w[c])
                w[c] = (int)strlen(cells[i][c]);
        switch (jv->verdict) {
        case FIOR_PASS: pass++; break;
        case FIOR_FAIL: fail++; break;
        case FIOR_UNKNOWN: unk++; break;
        case FIOR_NOT_JUDGED: nj++; break;
        }
    }
    for (int c = 0; c < C_R; c++)
        printf("%-*s  ", w[c], head[c]);
    printf("%s\n", head[C_R]);
    for (size_t i = 0; i < n; i++) {
        for (int c = 0; c < C_R; c++)
            printf("%-*s  ", w[c], cells[i][c]);
        printf("%s\n", fior_result_job(res, i)->reason);
    }
    printf("overall: %s (%d pass, %d fail, %d unknown, %d not judged)\n", fior_verdict_name(overall), pass,
           fail, unk, nj);
    free(cells);
}

int cmd_verdict(int argc, char **argv)
{
    fior_criteria *crit = fior_criteria_new();
    uint64_t max_input = FIOR_MAX_INPUT_DEFAULT;
    int json = 0, nfiles = 0;
    double interval = 0;
    scrape_tls tls = {0};
    char **files = calloc((size_t)argc + 1, sizeof *files);
    if (!files || !crit) {
        free(files);
        fior_criteria_free(crit);
        return 2;
    }
    int rc = 2;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        double v;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            rc = 0;
            goto out;
        } else if (!strcmp(a, "--json")) {
            json = 1;
        } else if (!strcmp(a, "--percentile")) {
            if (num_arg(a, i + 1 < argc ? argv[++i] : NULL, 0, 100, &v))
                goto usage_err;
            fior_criteria_set_percentile(crit, v);  /* (0, 100) checked above */
        } else if (!strcmp(a, "--wal-ms") || !strcmp(a, "--backend-ms")) {
            if (num_arg(a, i + 1 < argc ? argv[++i] : NULL, 0, 1e9, &v))
                goto usage_err;
            uint64_t ns = (uint64_t)(v * 1e6 + 0.5);
            if (!ns)
                ns = 1;
            fior_criteria_set_threshold(crit, a[2] == 'w' ? FIOR_ROLE_WAL : FIOR_ROLE_BACKEND, ns);
        } else if (!strcmp(a, "--min-samples")) {
            if (num_arg(a, i + 1 < argc ? argv[++i] : NULL, -1, 1e15, &v) || v != (double)(uint64_t)v)
                goto usage_err;
            fior_criteria_set_min_samples(crit, (uint64_t)v);
        } else if (!strcmp(a, "--interval")) {
            if (num_arg(a, i + 1 < argc ? argv[++i] : NULL, 0, 86400, &v))
                goto usage_err;
            interval = v;
        } else if (!strcmp(a, "--cacert") || !strcmp(a, "--cert") || !strcmp(a, "--key")) {
            if (i + 1 >= argc) {
                fprintf(stderr, "etcd-fio verdict: %s needs a file\n", a);
                goto usage_err;
            }
            *(!strcmp(a, "--cacert") ? &tls.cacert : !strcmp(a, "--cert") ? &tls.cert : &tls.key) = argv[++i];
        } else if (!strcmp(a, "--max-input")) {
            const char *val = i + 1 < argc ? argv[++i] : NULL;
            char *end = NULL;
            errno = 0;
            unsigned long long b = val && *val >= '0' && *val <= '9' ? strtoull(val, &end, 10) : 0;
            int shift = !end ? -1 : !*end ? 0 : !strcmp(end, "K") ? 10 : !strcmp(end, "M") ? 20
                      : !strcmp(end, "G") ? 30 : -1;
            if (errno || shift < 0 || b == 0 || b > (UINT64_MAX >> shift)) {
                fprintf(stderr, "etcd-fio verdict: --max-input: '%s' is not a byte count > 0 (K, M, G allowed)\n",
                        val ? val : "");
                goto usage_err;
            }
            max_input = (uint64_t)b << shift;
        } else if (!strcmp(a, "--")) {
            while (++i < argc)
                files[nfiles++] = argv[i];
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "etcd-fio verdict: unknown option '%s'\n", a);
            goto usage_err;
        } else {
            files[nfiles++] = argv[i];
        }
    }
    if (!nfiles)
        files[nfiles++] = "-";
    int urls = 0;
    for (int f = 0; f < nfiles; f++)
        urls += scrape_is_url(files[f]);
    if (interval > 0 && !urls) {
        fprintf(stderr, "etcd-fio verdict: --interval scrapes URLs twice, and no input is an http(s) URL\n");
        goto usage_err;
    }

    fior_report *r = fior_report_new();
    if (!r) {
        fprintf(stderr, "etcd-fio verdict: out of memory\n");
        goto out;
    }
    fior_report_set_max_input(r, max_input);
    char err[1024];
    if (scrape_load_inputs(r, files, nfiles, &tls, interval, err, sizeof err)) {
        fprintf(stderr, "etcd-fio verdict: %s\n", err);
        fior_report_free(r);
        goto out;
    }
    fior_result *res = fior_judge(r, crit);
    if (!res) {
        fprintf(stderr, "etcd-fio verdict: out of memory\n");
        fior_report_free(r);
        goto out;
    }
    fior_verdict overall = fior_result_verdict(res);
    if (json)
        print_json(r, res, overall);
    else
        print_table(r, res, overall, fior_criteria_percentile(crit));
    rc = overall == FIOR_PASS ? 0 : overall == FIOR_FAIL ? 1 : 2;
    fior_result_free(res);
    fior_report_free(r);
    goto out;
usage_err:
    fprintf(stderr, "usage: etcd-fio verdict [--json] [--percentile P] [--wal-ms T] [--backend-ms T] "
                    "[FILE|-]...  (--help for more)\n");
    rc = 2;
out:
    free(files);
    fior_criteria_free(crit);
    return rc;
}
