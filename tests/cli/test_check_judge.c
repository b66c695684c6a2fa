/* SPDX-License-Identifier: MIT */
/* test_check_judge.c — check's judge step (tools/check_judge.c) on generated fio json+ documents and the
 * state of the library's monitor they lead to: a decided PASS and FAIL rest on the bound; fio killed, a job process dead
 * of a signal (fio still exits 0 then), an early end not asked for, a missing final document and an
 * interruption are UNKNOWN; a bound that still straddles at the end is UNKNOWN with the point estimate in
 * the reason, unless --accept-point-estimate. The library's rules check uses: its own SIGINT stop, the
 * physical floor, the run-ended flag (check_final). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "check.h"
#include "cli.h"
#include "fiojson.h"

static const uint64_t fast_wal[][2] = {{1000000, 3000}, {2000000, 15}};
static const uint64_t fast_be[][2] = {{3000000, 1000}, {5000000, 5}};
static const uint64_t few_be[][2] = {{3000000, 148}, {5000000, 2}};     /* < 411: no PASS possible yet */
static const uint64_t slow_wal[][2] = {{1000000, 400}, {50000000, 100}}; /* 20 % at 50 ms */

typedef struct fx {
    fior_report *rep;
    fior_monitor *m;
    check_end end;
    check_opts o;
    fior_criteria *c;
    result_run run;
    result_host *h;
} fx;

/* fio's final document, after `pre` (e.g. its "terminating on signal" line) when not NULL */
static void build_after(fx *x, const char *pre, const uint64_t (*wal)[2], size_t nw, const uint64_t (*be)[2],
                        size_t nb)
{
    memset(x, 0, sizeof *x);
    fj_job jobs[2] = {{"etcd-wal", "wal", NULL, 0, wal, nw}, {"etcd-backend", "backend", NULL, 0, be, nb}};
    char *doc = fj_doc(jobs, 2, 0), *all = NULL;
    assert_true(asprintf(&all, "%s%s", pre ? pre : "", doc) > 0);
    x->rep = fior_report_new();
    assert_int_equal(fior_parse_buffer(x->rep, "t.json", all, strlen(all)), FIOR_OK);
    free(all);
    free(doc);
    x->o.confidence = 0.95;
    x->o.min_syncs = 100;
    x->o.max_time = 40;
    x->m = fior_monitor_new(NULL);
    assert_int_equal(fior_monitor_set_confidence(x->m, 0.95), FIOR_OK);
    const fior_job *wj = check_find_job(x->rep, FIOR_ROLE_WAL), *bj = check_find_job(x->rep, FIOR_ROLE_BACKEND);
    assert_non_null(wj);
    assert_non_null(bj);
    assert_int_equal(fior_monitor_feed(x->m, x->rep, 1.0, NULL), FIOR_OK);
    /* a normal end: fio ran its runtime and exited 0 with its final document */
    x->end = (check_end){.started = 1, .state = PROC_EXITED, .code = 0, .stop = CHECK_RAN_OUT, .complete = 1,
                         .duration_s = 40.5, .runtime_s = 40};
    x->c = fior_criteria_new();
    result_init(&x->run, "check", x->c);
    x->h = result_add_host(&x->run);
}

static void build(fx *x, const uint64_t (*wal)[2], size_t nw, const uint64_t (*be)[2], size_t nb)
{
    build_after(x, NULL, wal, nw, be, nb);
}

static void judge(fx *x)
{
    assert_int_equal(fior_monitor_set_accept_point(x->m, x->o.accept_point), FIOR_OK);
    check_judge(x->rep, x->m, &x->end, x->h);
}

static void done(fx *x)
{
    result_free(&x->run);
    fior_monitor_free(x->m);
    fior_criteria_free(x->c);
    fior_report_free(x->rep);
}

static void test_decided_pass(void **state)
{
    (void)state;
    fx x;
    build(&x, fast_wal, 2, fast_be, 2);
    assert_int_equal(fior_monitor_overall(x.m), FIOR_DEC_PASS);
    x.end.stop = CHECK_DECIDED;
    x.end.stop_level = 1;
    x.end.duration_s = 12;
    judge(&x);
    assert_int_equal(x.h->verdict, FIOR_PASS);
    assert_int_equal(x.h->basis, RESULT_BASIS_BOUND);
    assert_int_equal(x.h->njobs, 2);
    assert_int_equal(x.h->jobs[0].role, FIOR_ROLE_WAL);
    assert_int_equal(x.h->jobs[0].samples, 3015);
    assert_int_equal(x.h->jobs[0].p99_ns, 1000000);
    assert_true(x.h->jobs[0].bound_lo_ns <= 1000000 && x.h->jobs[0].bound_hi_ns != RESULT_UNKNOWN);
    assert_int_equal(x.h->jobs[1].threshold_ns, 25000000);
    done(&x);
}

static void test_decided_fail(void **state)
{
    (void)state;
    fx x;
    build(&x, slow_wal, 2, fast_be, 2);
    assert_int_equal(fior_monitor_overall(x.m), FIOR_DEC_FAIL);
    x.end.stop = CHECK_DECIDED;
    x.end.stop_level = 1;
    judge(&x);
    assert_int_equal(x.h->verdict, FIOR_FAIL);
    assert_int_equal(x.h->basis, RESULT_BASIS_BOUND);
    done(&x);
}

static void test_job_signal_is_unknown(void **state)
{
    (void)state;
    fx x;
    build(&x, fast_wal, 2, fast_be, 2);
    x.end.job_signal = 11; /* "fio: pid=N, got signal=11" and exit 0: 11.1 */
    judge(&x);
    assert_int_equal(x.h->verdict, FIOR_UNKNOWN);
    assert_int_equal(x.h->basis, RESULT_BASIS_NONE);
    assert_non_null(strstr(x.h->reason, "signal 11"));
    assert_int_equal(x.h->jobs[0].verdict, FIOR_UNKNOWN);
    done(&x);
}

static void test_fio_killed_is_unknown(void **state)
{
    (void)state;
    fx x;
    build(&x, fast_wal, 2, slow_wal, 2); /* even a measured FAIL is not given from a killed run */
    x.end.state = PROC_SIGNALED;
    x.end.code = 9;
    judge(&x);
    assert_int_equal(x.h->verdict, FIOR_UNKNOWN);
    assert_non_null(strstr(x.h->reason, "fio was killed by signal 9"));
    done(&x);
}

static void test_early_end_not_ours_is_unknown(void **state)
{
    (void)state;
    fx x;
    build(&x, fast_wal, 2, fast_be, 2);
    x.end.duration_s = 12; /* runtime was 40, nobody asked it to stop */
    judge(&x);
    assert_int_equal(x.h->verdict, FIOR_UNKNOWN);
    assert_non_null(strstr(x.h->reason, "before its runtime of 40 s"));
    done(&x);
}

static void test_exit_status_and_missing_final(void **state)
{
    (void)state;
    fx x;
    build(&x, fast_wal, 2, fast_be, 2);
    x.end.code = 1;
    judge(&x);
    assert_int_equal(x.h->verdict, FIOR_UNKNOWN);
    assert_non_null(strstr(x.h->reason, "exited with status 1"));
    done(&x);
    build(&x, fast_wal, 2, fast_be, 2);
    x.end.stop = CHECK_DECIDED;
    x.end.stop_level = 1;
    x.end.complete = 0;
    judge(&x);
    assert_int_equal(x.h->verdict, FIOR_UNKNOWN);
    assert_non_null(strstr(x.h->reason, "final output is missing"));
    done(&x);
    build(&x, fast_wal, 2, fast_be, 2);
    x.end.stop = CHECK_DECIDED;
    x.end.stop_level = 3; /* it had to be killed */
    x.end.state = PROC_SIGNALED;
    x.end.code = 9;
    judge(&x);
    assert_int_equal(x.h->verdict, FIOR_UNKNOWN);
    done(&x);
}

/* What the messages say (no "fio exited with status 128: <a stats line>"): a SIGINT from outside etcd-fio;
 * the operator's Ctrl-C (exit 128 is then no failure of fio's); a fio still running past --max-time, stopped
 * or stuck; one SIGKILL did not end; the guard's stop. All unknown. */
static void test_end_messages(void **state)
{
    (void)state;
    fx x;
    build(&x, fast_wal, 2, fast_be, 2);
    x.end.code = 128;
    cli_msg(x.end.fio_said, sizeof x.end.fio_said, "etcdwal: etcd-wal: 3 segments (2 rollovers), 1 entries");
    judge(&x);
    assert_int_equal(x.h->verdict, FIOR_UNKNOWN);
    assert_non_null(strstr(x.h->reason, "interrupted by a SIGINT that did not come from etcd-fio (exit status 128)"));
    assert_null(strstr(x.h->reason, "segments"));
    done(&x);
    build(&x, fast_wal, 2, fast_be, 2);
    x.end.code = 128;
    x.end.stop = CHECK_USER; /* Ctrl-C reached fio before we signalled it: no failure of fio's */
    judge(&x);
    assert_string_not_equal(x.h->status, "fio-failed");
    assert_null(strstr(x.h->reason, "status 128"));
    done(&x);
    build(&x, fast_wal, 2, fast_be, 2);
    x.end.stop = CHECK_TIME_NET;
    x.end.stop_level = 1;
    x.end.hung = PROC_TREE_STOPPED;
    judge(&x);
    assert_int_equal(x.h->verdict, FIOR_UNKNOWN);
    assert_non_null(strstr(x.h->reason, "still running after its runtime of 40 s (it was stopped: SIGSTOP"));
    done(&x);
    build(&x, fast_wal, 2, fast_be, 2);
    x.end.stop = CHECK_TIME_NET;
    x.end.stop_level = 3;
    x.end.unended = 1;
    x.end.hung = PROC_TREE_IN_KERNEL;
    judge(&x);
    assert_int_equal(x.h->verdict, FIOR_UNKNOWN);
    assert_non_null(strstr(x.h->reason, "did not end even on SIGKILL (stuck in uninterruptible I/O)"));
    done(&x);
    build(&x, fast_wal, 2, fast_be, 2);
    x.end.stop = CHECK_GUARD;
    x.end.stop_level = 1;
    cli_msg(x.end.guard_why, sizeof x.end.guard_why, "stopped to protect the live etcd: its WAL fsync p99 rose");
    judge(&x);
    assert_int_equal(x.h->verdict, FIOR_UNKNOWN);
    assert_string_equal(x.h->status, "etcd-guard");
    assert_true(!strncmp(x.h->reason, "stopped to protect the live etcd: its WAL fsync p99 rose; not judged", 68));
    for (size_t i = 0; i < x.h->njobs; i++)
        assert_int_equal(x.h->jobs[i].verdict, FIOR_UNKNOWN);
    done(&x);
}

static void test_straddle_is_unknown_with_point_estimate(void **state)
{
    (void)state;
    fx x;
    build(&x, fast_wal, 2, few_be, 2);
    judge(&x); /* ran to --max-time: the final look cannot give 150 samples an upper bound */
    assert_int_equal(x.h->verdict, FIOR_UNKNOWN);
    assert_int_equal(x.h->basis, RESULT_BASIS_UNDECIDED);
    assert_non_null(strstr(x.h->reason, "backend commit p99 5 ms looks fine, but 150 samples cannot show it with "
                                        "95 % confidence"));
    assert_non_null(strstr(x.h->reason, "run longer"));
    assert_int_equal(x.h->jobs[1].verdict, FIOR_UNKNOWN);
    done(&x);

    build(&x, fast_wal, 2, few_be, 2);
    x.o.accept_point = 1;
    judge(&x);
    assert_int_equal(x.h->verdict, FIOR_PASS);
    assert_int_equal(x.h->basis, RESULT_BASIS_POINT);
    assert_non_null(strstr(x.h->reason, "--accept-point-estimate"));
    done(&x);
}

static void test_interrupted_undecided(void **state)
{
    (void)state;
    fx x;
    build(&x, fast_wal, 2, few_be, 2);
    x.end.stop = CHECK_USER;
    x.end.stop_level = 1;
    x.end.duration_s = 7;
    x.o.accept_point = 1; /* an interruption is never a point-estimate verdict */
    judge(&x);
    assert_int_equal(x.h->verdict, FIOR_UNKNOWN);
    assert_non_null(strstr(x.h->reason, "interrupted after 7 s"));
    done(&x);
}

static void test_no_document(void **state)
{
    (void)state;
    fx x;
    build(&x, fast_wal, 2, fast_be, 2);
    check_judge(NULL, x.m, &x.end, x.h);
    assert_int_equal(x.h->verdict, FIOR_UNKNOWN);
    assert_int_equal(x.h->njobs, 0);
    done(&x);
}

static void test_min_time(void **state)
{
    (void)state;
    /* 411 backend commits at 10/s for the first possible PASS at 95 % (fior_first_pass_samples) */
    assert_true(check_min_time(0.95, 100, 0, NULL, 0, NULL, 0) >= 44);
    assert_true(check_min_time(0.95, 100, 1, NULL, 0, NULL, 0) >= 10 && check_min_time(0.95, 100, 1, NULL, 0, NULL, 0) < 20);
    assert_true(check_min_time(0.5, 100, 0, NULL, 0, NULL, 0) < check_min_time(0.95, 100, 0, NULL, 0, NULL, 0));
    /* the WAL alone at s's 150 Saves a second: a few seconds, not the backend's 44 */
    assert_true(check_min_time(0.95, 100, 0, "s", 1, NULL, 0) <= 5);
    /* k8s:1 writes 0.1 puts a second, one per Save: 411 of them take more than an hour, and why says so */
    char why[160];
    double k1 = check_min_time(0.95, 100, 0, "k8s:1", 0, why, sizeof why);
    assert_true(k1 > 3600);
    assert_non_null(strstr(why, "WAL syncs"));
    /* 1000 nodes: 103 Saves a second, the backend still limits */
    assert_true(check_min_time(0.95, 100, 0, "k8s:1000", 0, why, sizeof why) < 50);
    assert_non_null(strstr(why, "backend commits"));
}

/* check stops fio with SIGINT once decided: fio's "terminating on signal 2" line and the final document
 * after it are judged (the library's caller stop); the same line when check did not stop fio is someone
 * else's stop: unknown, with the library's reason. */
static void test_own_stop_and_someone_elses(void **state)
{
    (void)state;
    fx x;
    build_after(&x, "\nfio: terminating on signal 2\n", fast_wal, 2, fast_be, 2);
    assert_int_equal(fior_report_job(x.rep, 0)->end, FIOR_END_STOPPED);
    x.end.stop = CHECK_DECIDED;
    x.end.stop_level = 1;
    judge(&x);
    assert_int_equal(x.h->verdict, FIOR_PASS);
    done(&x);
    build_after(&x, "\nfio: terminating on signal 2\n", fast_wal, 2, fast_be, 2);
    judge(&x); /* ran out by itself, exit 0: nobody here sent that signal */
    assert_int_equal(x.h->verdict, FIOR_UNKNOWN);
    assert_non_null(strstr(x.h->reason, "fio was stopped by signal 2 (SIGINT)"));
    done(&x);
}

/* WAL fdatasyncs whose median is below the library's physical floor did not reach a disk, even
 * when the bound decided a PASS. */
static void test_below_the_floor(void **state)
{
    (void)state;
    static const uint64_t tmpfs_wal[][2] = {{300, 3000}, {600, 15}};
    fx x;
    build(&x, tmpfs_wal, 2, fast_be, 2);
    assert_int_equal(fior_monitor_overall(x.m), FIOR_DEC_PASS);
    x.end.stop = CHECK_DECIDED;
    x.end.stop_level = 1;
    judge(&x);
    assert_int_equal(x.h->verdict, FIOR_UNKNOWN);
    if (!strstr(x.h->reason, "WAL fdatasync: these fdatasyncs did not reach a disk: their median is 300 ns, below the 5 us"))
        fail_msg("%s", x.h->reason);
    done(&x);
}

/* The run-ended flag: check's final document is the library's, not the last byte of the output. A stream
 * whose last document is an interim one (its counters short of the runtime) is not final. */
static char *status_doc(unsigned runtime_ms)
{
    fj_job jobs[2] = {{"etcd-wal", "wal", NULL, 0, fast_wal, 2}, {"etcd-backend", "backend", NULL, 0, fast_be, 2}};
    char *doc = fj_doc(jobs, 2, 0), *out = malloc(strlen(doc) * 2), *o = out;
    for (const char *p = doc; *p;) {
        if (!strncmp(p, "\"fdatasync\" : \"1\"", 17)) {
            o += sprintf(o, "\"fdatasync\" : \"1\", \"runtime\" : \"30\"");
            p += 17;
        } else if (!strncmp(p, "\"error\" : 0,", 12)) {
            o += sprintf(o, "\"error\" : 0, \"job_runtime\" : %u,", runtime_ms);
            p += 12;
        } else {
            *o++ = *p++;
        }
    }
    *o = '\0';
    free(doc);
    return out;
}

static void test_final_document(void **state)
{
    (void)state;
    char *a = status_doc(1890), *b = status_doc(2890), *fin = status_doc(30000), *after = status_doc(3256);
    fior_json_stream *s = fior_json_stream_new("fio");
    assert_int_equal(fior_json_stream_feed(s, a, strlen(a)), FIOR_OK);
    assert_int_equal(fior_json_stream_feed(s, b, strlen(b)), FIOR_OK);
    assert_int_equal(fior_json_stream_documents(s), 2);
    assert_int_equal(check_final(fior_json_stream_report(s)), 0); /* killed after an interim document */
    assert_int_equal(fior_json_stream_feed(s, fin, strlen(fin)), FIOR_OK);
    assert_int_equal(check_final(fior_json_stream_report(s)), 1);
    static const char sig[] = "\nfio: terminating on signal 2\n";
    assert_int_equal(fior_json_stream_feed(s, sig, sizeof sig - 1), FIOR_OK);
    assert_int_equal(check_final(fior_json_stream_report(s)), 1); /* its runtime was reached: proven */
    fior_json_stream_free(s);
    s = fior_json_stream_new("fio");
    fior_json_stream_feed(s, a, strlen(a));
    fior_json_stream_feed(s, b, strlen(b));
    fior_json_stream_feed(s, sig, sizeof sig - 1); /* our SIGINT, and no document after it (yet) */
    assert_int_equal(check_final(fior_json_stream_report(s)), 0);
    fior_json_stream_feed(s, after, strlen(after)); /* fio's final document after the line */
    assert_int_equal(check_final(fior_json_stream_report(s)), 1);
    assert_int_equal(fior_report_njobs(fior_json_stream_report(s)), 2);
    assert_int_equal(fior_report_job(fior_json_stream_report(s), 0)->end, FIOR_END_STOPPED);
    fior_json_stream_free(s);
    assert_int_equal(check_final(NULL), 0);
    free(a);
    free(b);
    free(fin);
    free(after);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_decided_pass),
        cmocka_unit_test(test_decided_fail),
        cmocka_unit_test(test_job_signal_is_unknown),
        cmocka_unit_test(test_fio_killed_is_unknown),
        cmocka_unit_test(test_early_end_not_ours_is_unknown),
        cmocka_unit_test(test_exit_status_and_missing_final),
        cmocka_unit_test(test_straddle_is_unknown_with_point_estimate),
        cmocka_unit_test(test_interrupted_undecided),
        cmocka_unit_test(test_no_document),
        cmocka_unit_test(test_min_time),
        cmocka_unit_test(test_end_messages),
        cmocka_unit_test(test_own_stop_and_someone_elses),
        cmocka_unit_test(test_below_the_floor),
        cmocka_unit_test(test_final_document),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
