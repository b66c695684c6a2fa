/* SPDX-License-Identifier: MIT */
/* monitor.c — libfioreport's sequential judge over a live fio stream, as `etcd-fio check` uses it: read
 * fio's --output-format=json+ --status-interval output on stdin while fio runs, feed each document to the
 * monitor, print each role's answer the moment it is decided, and at the end of the stream give the
 * verdict (exit 0 PASS, 1 FAIL, 2 cannot judge).
 *
 *   fio --output-format=json+ --status-interval=1 job.fio | ./monitor [--wal-only] [--accept-point-estimate]
 *
 * Build: cc monitor.c $(pkg-config --cflags --libs fioreport) -o monitor
 * The end of the stream is taken as fio's end: this program did not run fio, so it cannot say how fio
 * ended (a caller that runs fio gives those facts: fior_run_facts); the readers' run-ended flag still keeps
 * a stream cut after an interim document from passing. */
#include <fioreport.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

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

int main(int argc, char **argv)
{
    int wal_only = 0, accept = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--wal-only"))
            wal_only = 1;
        else if (!strcmp(argv[i], "--accept-point-estimate"))
            accept = 1;
        else {
            fprintf(stderr, "usage: fio --output-format=json+ --status-interval=1 JOB | %s [--wal-only] "
                    "[--accept-point-estimate]\n", argv[0]);
            return 2;
        }
    }
    if (fior_version_number() >> 16 != FIOR_VERSION_MAJOR || fior_version_number() < FIOR_VERSION_NUMBER) {
        fprintf(stderr, "%s: built for libfioreport %s, loaded %s\n", argv[0], FIOR_VERSION, fior_version());
        return 2;
    }
    fior_stream *s = fior_stream_new("stdin");
    fior_monitor *m = fior_monitor_new(NULL); /* the defaults: p99, WAL 10 ms, backend 25 ms, 95 % */
    if (!s || !m || (wal_only && fior_monitor_set_roles(m, 1u << FIOR_ROLE_WAL)) ||
        fior_monitor_set_accept_point(m, accept)) {
        fprintf(stderr, "%s: %s\n", argv[0], m ? fior_monitor_error(m) : "out of memory");
        return 2;
    }
    double t0 = now();
    unsigned long seen = 0;
    int told[2] = {0, 0}, stop_said = 0;
    char buf[65536];
    ssize_t n;
    while ((n = read(0, buf, sizeof buf)) > 0) {
        if (fior_stream_feed(s, buf, (size_t)n) != FIOR_OK)
            fprintf(stderr, "%s: %s\n", argv[0], fior_stream_error(s)); /* it reads on at the next document */
        if (fior_stream_documents(s) == seen)
            continue;
        seen = fior_stream_documents(s);
        fior_advice adv;
        if (fior_monitor_feed(m, fior_stream_report(s), now() - t0, &adv) != FIOR_OK)
            fprintf(stderr, "%s: %s\n", argv[0], fior_monitor_error(m));
        say(m, FIOR_ROLE_WAL, "WAL fdatasync", &told[0]);
        if (!wal_only)
            say(m, FIOR_ROLE_BACKEND, "backend commit", &told[1]);
        if (adv == FIOR_STOP_DECIDED && !stop_said++) /* a caller that ran fio would stop it (SIGINT) now */
            fprintf(stderr, "decided after %.1f s: fio may be stopped now\n", now() - t0);
    }
    /* the stream ended: fio's final document is the last thing it prints */
    fior_run_facts f = {.size = sizeof f, .started = 1, .stop = FIOR_STOP_NONE, .complete = 1,
                        .duration_s = now() - t0};
    fior_outcome *o = fior_monitor_end(m, fior_stream_report(s), &f);
    fior_verdict v = fior_outcome_verdict(o);
    printf("%s: %s\n", fior_verdict_name(v), o ? fior_outcome_reason(o) : "out of memory");
    fior_outcome_free(o);
    fior_monitor_free(m);
    fior_stream_free(s);
    return v == FIOR_PASS ? 0 : v == FIOR_FAIL ? 1 : 2;
}
