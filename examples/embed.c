/* SPDX-License-Identifier: MIT */
/* embed.c — a small program on libfioreport, in its two uses:
 *
 *   ./embed FIO_OUTPUT...
 *       judge finished fio outputs (any format fio writes, or an etcd-perf log) against etcd's thresholds,
 *       as `etcd-fio verdict` does;
 *   fio --output-format=json+ --status-interval=1 JOB | ./embed --live [--wal-only] [--accept-point-estimate]
 *       the sequential judge over fio's live stream, as `etcd-fio check` decides: each JSON document is fed
 *       to the monitor (fior_json_stream, fior_monitor), each role's answer is printed the moment it is
 *       decided, and the verdict when the stream ends (tests/libreport/it_embed_monitor.sh: the verdict check gives
 *       on the same output).
 *
 * Exit 0 PASS, 1 FAIL, 2 cannot judge. Build against an installed libfioreport:
 *   cc embed.c $(pkg-config --cflags --libs libfioreport) -o embed
 * Judging files needs fioreport.h alone; following a running fio is fioreport_monitor.h's. It checks at run
 * time that the loaded library has the major version it was compiled for; fields of fior_job newer than
 * the loaded library are read only where FIOR_HAS says it filled them.
 * --live takes the end of the stream for fio's end: this program did not run fio, so it cannot say how fio
 * ended (a caller that runs fio says so in fior_run_end: killed_by, exit_code, stop); a stream cut after an
 * interim document still never passes (fior_job.end). */
#define _POSIX_C_SOURCE 200809L /* read(), clock_gettime() */
#include <fioreport.h>
#include <fioreport_monitor.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int exit_code(fior_verdict v)
{
    return v == FIOR_PASS ? 0 : v == FIOR_FAIL ? 1 : 2;
}

/* ---- finished outputs ---- */

static int judge_files(const char *me, int n, char **paths)
{
    fior_report *r = fior_report_new();
    if (!r) {
        fprintf(stderr, "%s: out of memory\n", me);
        return 2;
    }
    for (int i = 0; i < n; i++) {
        if (fior_parse_file(r, paths[i]) != FIOR_OK) {
            /* The message already names the file and the line or byte where reading stopped. */
            fprintf(stderr, "%s: %s\n", me, fior_report_error(r));
            fior_report_free(r);
            return 2;
        }
    }
    /* The defaults: p99; 10 ms for WAL jobs, 25 ms for backend commits, at least 100 samples. */
    fior_criteria *c = fior_criteria_new();
    fior_result *res = c ? fior_judge(r, c) : NULL; /* owns every judgement and reason */
    if (!res) {
        fprintf(stderr, "%s: out of memory\n", me);
        fior_criteria_free(c);
        fior_report_free(r);
        return 2;
    }
    for (size_t i = 0; i < fior_result_count(res); i++) {
        const fior_job *job = fior_report_job(r, i);
        const fior_judgement *j = fior_result_job(res, i);
        if (j->verdict == FIOR_NOT_JUDGED)
            continue;
        printf("%s%s%s %s: ", job->source, job->host ? " " : "", job->host ? job->host : "",
               job->name ? job->name : "?");
        if (j->value_known)
            printf("p%g %.3f ms (limit %.0f ms) ", fior_criteria_percentile(c), j->value_ns / 1e6,
                   j->threshold_ns / 1e6);
        printf("%s — %s", fior_verdict_name(j->verdict), j->reason);
        if (FIOR_HAS(job, fior_job, end)) /* how the run ended: always there in 3.0 and later */
            printf(" [run end: %s]", fior_end_name(job->end));
        printf("\n");
    }
    fior_verdict overall = fior_result_verdict(res);
    printf("overall: %s\n", fior_verdict_name(overall));
    fior_result_free(res);
    fior_criteria_free(c);
    fior_report_free(r);
    return exit_code(overall);
}

/* ---- a live stream ---- */

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* A role's answer, once, when it is decided. */
static void say(const fior_monitor *m, fior_role role, const char *what, int *told)
{
    fior_answer a = {.size = sizeof a};
    if (*told || fior_monitor_answer(m, role, &a) != FIOR_OK ||
        (a.decision != FIOR_DEC_PASS && a.decision != FIOR_DEC_FAIL))
        return;
    char p[32], lo[32], hi[32];
    fprintf(stderr, "%s: %s (p99 %s, bound %s..%s, %llu samples)\n", what, fior_decision_name(a.decision),
            fior_format_ns(p, sizeof p, a.point_ns), fior_format_ns(lo, sizeof lo, a.look_lo_ns),
            a.look_hi_ns == UINT64_MAX ? "?" : fior_format_ns(hi, sizeof hi, a.look_hi_ns),
            (unsigned long long)a.samples);
    *told = 1;
}

static int judge_live(const char *me, int wal_only, int accept)
{
    fior_json_stream *s = fior_json_stream_new("stdin");
    fior_monitor *m = fior_monitor_new(NULL); /* the defaults: p99, WAL 10 ms, backend 25 ms, 95 % */
    if (!s || !m || (wal_only && fior_monitor_set_roles(m, 1u << FIOR_ROLE_WAL)) ||
        fior_monitor_set_accept_point(m, accept)) {
        fprintf(stderr, "%s: %s\n", me, m ? fior_monitor_error(m) : "out of memory");
        fior_monitor_free(m);
        fior_json_stream_free(s);
        return 2;
    }
    double t0 = now();
    unsigned long seen = 0;
    int told[2] = {0, 0}, stop_said = 0;
    char buf[65536];
    ssize_t n;
    while ((n = read(0, buf, sizeof buf)) > 0) {
        if (fior_json_stream_feed(s, buf, (size_t)n) != FIOR_OK)
            fprintf(stderr, "%s: %s\n", me, fior_json_stream_error(s)); /* it reads on at the next document */
        if (fior_json_stream_documents(s) == seen)
            continue;
        seen = fior_json_stream_documents(s);
        fior_advice adv = FIOR_GO_ON;
        if (fior_monitor_feed(m, fior_json_stream_report(s), now() - t0, &adv) != FIOR_OK)
            fprintf(stderr, "%s: %s\n", me, fior_monitor_error(m));
        say(m, FIOR_ROLE_WAL, "WAL fdatasync", &told[0]);
        if (!wal_only)
            say(m, FIOR_ROLE_BACKEND, "backend commit", &told[1]);
        if (adv == FIOR_STOP_DECIDED && !stop_said++) /* a caller that ran fio would stop it (SIGINT) now */
            fprintf(stderr, "decided after %.1f s: fio may be stopped now\n", now() - t0);
    }
    /* the stream ended: fio's final document is the last thing it prints */
    fior_run_end f = {.size = sizeof f, .started = 1, .stop = FIOR_STOP_NONE, .complete = 1,
                      .duration_s = now() - t0};
    fior_outcome *o = fior_monitor_end(m, fior_json_stream_report(s), &f);
    fior_verdict v = fior_outcome_verdict(o);
    printf("%s: %s\n", fior_verdict_name(v), o ? fior_outcome_reason(o) : "out of memory");
    fior_outcome_free(o);
    fior_monitor_free(m);
    fior_json_stream_free(s);
    return exit_code(v);
}

int main(int argc, char **argv)
{
    int live = 0, wal_only = 0, accept = 0, first = 1;
    for (; first < argc && !strncmp(argv[first], "--", 2); first++) {
        if (!strcmp(argv[first], "--live"))
            live = 1;
        else if (!strcmp(argv[first], "--wal-only"))
            wal_only = 1;
        else if (!strcmp(argv[first], "--accept-point-estimate"))
            accept = 1;
        else
            break;
    }
    if (live ? first != argc : first >= argc || wal_only || accept) {
        fprintf(stderr, "usage: %s FIO_OUTPUT...\n"
                        "       fio --output-format=json+ --status-interval=1 JOB | %s --live [--wal-only] "
                        "[--accept-point-estimate]\n", argv[0], argv[0]);
        return 2;
    }
    if (fior_version_number() >> 16 != FIOR_VERSION_MAJOR) {
        fprintf(stderr, "%s: built for libfioreport %s, loaded %s\n", argv[0], FIOR_VERSION, fior_version());
        return 2;
    }
    return live ? judge_live(argv[0], wal_only, accept) : judge_files(argv[0], argc - first, argv + first);
}
