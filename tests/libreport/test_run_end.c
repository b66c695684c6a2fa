/* SPDX-License-Identifier: MIT */
/* test_run_end.c — no PASS without proof of a finished run and of syncs that reached a disk, on real fio
 * outputs made by fio here (tests/gen/gen-fixtures-ends.sh): runs stopped by SIGINT/SIGTERM/timeout, a
 * time_based run cut short, --io_size, status-interval streams killed after an interim document or
 * interrupted, killed job processes (also grouped and client/server), ioengine=null,
 * sync_file_range, O_SYNC/O_DSYNC, /dev/shm, end_fsync; each beside the complete twin that is still judged.
 * Also: fio's signal line wherever it stands (inside a document, split across feeds, between concatenated
 * runs), a stream cut at every byte of its last document, jobs named like fio's own lines, the criteria. */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fioreport_cli.h"
#include "internal.h" /* fior__path_lexical */
#include "tjudge.h"
#include "tslurp.h"

#define FX(name) TEST_FIXTURES "/fio/" name

static fior_report *parse_ok(const char *path)
{
    fior_report *r = fior_report_new();
    assert_non_null(r);
    if (fior_parse_file(r, path) != FIOR_OK)
        fail_msg("%s: %s", path, fior_report_error(r));
    return r;
}

static fior_report *parse_buf(const char *name, const char *buf, size_t len)
{
    fior_report *r = fior_report_new();
    assert_non_null(r);
    if (fior_parse_buffer(r, name, buf, len) != FIOR_OK)
        fail_msg("%s: %s", name, fior_report_error(r));
    return r;
}

static void has(const char *text, const char *want)
{
    if (!text || !strstr(text, want))
        fail_msg("'%s' lacks '%s'", text ? text : "(null)", want);
}

/* The one job of the file: its end, and its verdict (default criteria) with a reason containing `why`. */
static void one(const char *path, fior_end end, fior_verdict v, const char *why)
{
    fior_report *r = parse_ok(path);
    assert_int_equal(fior_report_njobs(r), 1);
    const fior_job *j = fior_report_job(r, 0);
    if (j->end != end)
        fail_msg("%s: end %s, want %s (%s)", path, fior_end_name(j->end), fior_end_name(end), j->end_reason);
    tj_judge(r, NULL);
    if (JV(0).verdict != v)
        fail_msg("%s: %s, want %s: %s", path, fior_verdict_name(JV(0).verdict), fior_verdict_name(v), JV(0).reason);
    has(JV(0).reason, why);
    fior_report_free(r);
}

/* ---- a run fio did not finish ---- */

static void stopped_by_a_signal(void **state)
{
    (void)state;
    const char *why = "fio was stopped by signal 2 (SIGINT) after ";
    one(FX("fio-3.33-sigint.json"), FIOR_END_STOPPED, FIOR_UNKNOWN, "after 36.1 of 100 MiB, 2.75 s: the syncs still");
    one(FX("fio-3.33-sigint-jsonplus.json"), FIOR_END_STOPPED, FIOR_UNKNOWN, why);
    one(FX("fio-3.33-sigint.txt"), FIOR_END_STOPPED, FIOR_UNKNOWN, "after 39.6 MiB, 2.76 s");
    one(FX("fio-3.33-sigint-normal-json.txt"), FIOR_END_STOPPED, FIOR_UNKNOWN, why);
    one(FX("fio-3.33-sigterm.json"), FIOR_END_STOPPED, FIOR_UNKNOWN, "signal 15 (SIGTERM)");
    one(FX("fio-3.33-timeout.txt"), FIOR_END_STOPPED, FIOR_UNKNOWN, "signal 15 (SIGTERM)");
    one(FX("fio-3.33-time-based-cut.json"), FIOR_END_STOPPED, FIOR_UNKNOWN, "2.75 s of its 30 s runtime");
    one(FX("fio-3.33-io-size-cut.json"), FIOR_END_STOPPED, FIOR_UNKNOWN, "after 47.5 of 100 MiB");
    one(FX("fio-3.33-status-sigint.json"), FIOR_END_STOPPED, FIOR_UNKNOWN, why);
    one(FX("fio-3.33-status-sigint.txt"), FIOR_END_STOPPED, FIOR_UNKNOWN, "after 24.8 MiB, 3.24 s");
    /* the measured value stays in the reason */
    one(FX("fio-3.33-sigint.json"), FIOR_END_STOPPED, FIOR_UNKNOWN, "until then: p99 342 us < 10 ms");
    fior_report *r = parse_ok(FX("fio-3.33-sigint.json"));
    assert_int_equal(fior_report_job(r, 0)->end_signal, 2);
    assert_int_equal(fior_report_job(r, 0)->io_goal_bytes, 100 << 20);
    assert_int_equal(fior_report_job(r, 0)->io_bytes, 37853400);
    fior_report_free(r);
}

static void complete_twins_are_judged(void **state)
{
    (void)state;
    one(FX("fio-3.33-time-based.json"), FIOR_END_PROVEN, FIOR_PASS, "p99 220 us < 10 ms");
    one(FX("fio-3.33-io-size.json"), FIOR_END_PROVEN, FIOR_PASS, "p99 171 us");
    one(FX("fio-3.33-json.json"), FIOR_END_PROVEN, FIOR_PASS, "p99");
    one(FX("fio-3.33-normal.txt"), FIOR_END_INFERRED, FIOR_PASS, "p99 7.57 ms < 10 ms");
    one(FX("fio-3.33-status-interval.json"), FIOR_END_PROVEN, FIOR_PASS, "p99");
    one(FX("fio-3.33-status-interval.txt"), FIOR_END_INFERRED, FIOR_PASS, "p99");
    fior_report *r = parse_ok(FX("fio-3.33-time-based.json"));
    assert_string_equal(fior_report_job(r, 0)->end_reason, "the job ran its runtime of 2 s");
    fior_report_free(r);
    r = parse_ok(FX("fio-3.33-io-size.json"));
    assert_string_equal(fior_report_job(r, 0)->end_reason, "the job did what its options ask (3 of 3 MiB)");
    fior_report_free(r);
    r = parse_ok(FX("fio-3.33-numjobs-group.json")); /* numjobs=2 summed into one entry: 2 x 1 MiB */
    assert_int_equal(fior_report_job(r, 0)->end, FIOR_END_PROVEN);
    assert_int_equal(fior_report_job(r, 0)->io_goal_bytes, 2 << 20);
    fior_report_free(r);
}

static void stream_without_its_final_document(void **state)
{
    (void)state;
    one(FX("fio-3.33-status-kill.json"), FIOR_END_CUT, FIOR_UNKNOWN, "the input ends with an interim --status-interval "
        "report (25.9 of 100 MiB, 2.89 s of its 30 s runtime) and no final one");
    one(FX("fio-3.33-status-kill.txt"), FIOR_END_CUT, FIOR_UNKNOWN, "one status interval (1 s) after the one before");
}

/* Every cut inside the last document of a complete stream: the stream API's report (what `check` judges)
 * is never a PASS; a whole input cut so is an error. The same for the last print of a normal stream,
 * where a PASS may only ever rest on the final print's own figures. */
static void stream_cut_at_every_byte_of_its_last_document(void **state)
{
    (void)state;
    size_t len;
    char *buf = slurp(FX("fio-3.33-status-interval.json"), &len);
    const char *last = buf;
    for (const char *p = strstr(buf, "\n{"); p; p = strstr(p + 1, "\n{"))
        last = p + 1;
    for (size_t cut = (size_t)(last - buf) + 1; cut < len - 2; cut++) {
        fior_json_stream *s = fior_json_stream_new("cut");
        assert_non_null(s);
        fior_json_stream_feed(s, buf, cut);
        assert_int_equal(fior_json_stream_documents(s), 3);
        const fior_report *cur = fior_json_stream_report(s);
        assert_int_equal(fior_report_job(cur, 0)->end, FIOR_END_CUT);
        fior_result *res = fior_judge(cur, NULL);
        assert_int_equal(fior_result_verdict(res), FIOR_UNKNOWN);
        fior_result_free(res);
        fior_json_stream_free(s);
        fior_report *r = fior_report_new();
        assert_int_equal(fior_parse_buffer(r, "cut", buf, cut), FIOR_E_PARSE);
        fior_report_free(r);
    }
    free(buf);
    buf = slurp(FX("fio-3.33-status-interval.txt"), &len);
    const char *hdr = NULL;
    for (const char *p = strstr(buf, "\nmytest: (groupid="); p; p = strstr(p + 1, "\nmytest: (groupid="))
        hdr = p + 1;
    for (size_t cut = (size_t)(hdr - buf); cut <= len; cut++) {
        fior_report *r = fior_report_new();
        if (fior_parse_buffer(r, "cut", buf, cut) == FIOR_OK && tj_judge(r, NULL) == FIOR_PASS)
            assert_int_equal(fior_report_job(r, 0)->samples, 4559); /* the final print's count */
        fior_report_free(r);
    }
    free(buf);
}

/* fio's line inside a document (its signal handler may write it into one being printed), split across
 * feeds at every point, and between two concatenated runs. */
static void signal_line_wherever_it_stands(void **state)
{
    (void)state;
    size_t len, l2;
    char *buf = slurp(FX("fio-3.33-status-kill.json"), &len);
    /* into the middle of the last document's "total_ios" : 11817, between two of its digits */
    char *at = strstr(strstr(buf, "\"timestamp_ms\" : 1796147727490"), "\"total_ios\" : 118");
    assert_non_null(at);
    at += strlen("\"total_ios\" : 118");
    static const char line[] = "\nfio: terminating on signal 2\n";
    char *in = malloc(len + sizeof line);
    memcpy(in, buf, (size_t)(at - buf));
    memcpy(in + (at - buf), line, sizeof line - 1);
    memcpy(in + (at - buf) + sizeof line - 1, at, len - (size_t)(at - buf));
    l2 = len + sizeof line - 1;
    fior_report *r = parse_buf("inside.json", in, l2);
    const fior_job *j = fior_report_job(r, 0);
    assert_int_equal(j->samples, 11816); /* the document around the line still reads */
    assert_int_equal(j->end, FIOR_END_CUT);
    assert_int_equal(j->end_signal, 2);
    has(j->end_reason, "fio was stopped by signal 2 (SIGINT) and the input ends before its final figures");
    fior_report_free(r);
    /* the same, with that document broken at its end: the live stream still knows fio was stopped */
    char *brk = strrchr(in, '}');
    assert_non_null(brk);
    brk[0] = '#';
    fior_json_stream *st = fior_json_stream_new("broken");
    assert_int_equal(fior_json_stream_feed(st, in, l2), FIOR_E_PARSE);
    assert_int_equal(fior_json_stream_documents(st), 2);
    j = fior_report_job(fior_json_stream_report(st), 0);
    assert_int_equal(j->end_signal, 2);
    assert_int_equal(j->end, FIOR_END_CUT);
    fior_json_stream_free(st);
    free(in);
    free(buf);

    /* the SIGINT output fed in pieces of every size: the same end */
    buf = slurp(FX("fio-3.33-sigint.json"), &len);
    for (size_t step = 1; step <= 40; step++) {
        fior_json_stream *s = fior_json_stream_new("split");
        for (size_t off = 0; off < len; off += step)
            fior_json_stream_feed(s, buf + off, len - off < step ? len - off : step);
        assert_int_equal(fior_report_job(fior_json_stream_report(s), 0)->end, FIOR_END_STOPPED);
        assert_int_equal(fior_report_job(fior_json_stream_report(s), 0)->end_signal, 2);
        fior_json_stream_free(s);
    }
    /* after a complete run, the line opens the second run: the first keeps its end */
    char *ok = slurp(FX("fio-3.33-json.json"), &l2);
    char *both = malloc(len + l2);
    memcpy(both, ok, l2);
    memcpy(both + l2, buf, len);
    r = parse_buf("both.json", both, len + l2);
    assert_int_equal(fior_report_njobs(r), 2);
    assert_int_equal(fior_report_job(r, 0)->end, FIOR_END_PROVEN);
    assert_int_equal(fior_report_job(r, 1)->end, FIOR_END_STOPPED);
    assert_int_equal(tj_judge(r, NULL), FIOR_UNKNOWN);
    assert_int_equal(JV(0).verdict, FIOR_PASS);
    fior_report_free(r);
    /* a killed stream, then a complete run: the first is cut, the second judged */
    char *kill = slurp(FX("fio-3.33-status-kill.json"), &len);
    memcpy(both, kill, len < l2 ? len : l2);
    free(both);
    both = malloc(len + l2);
    memcpy(both, kill, len);
    memcpy(both + len, ok, l2);
    r = parse_buf("both.json", both, len + l2);
    assert_int_equal(fior_report_job(r, 0)->end, FIOR_END_CUT);
    assert_int_equal(fior_report_job(r, fior_report_njobs(r) - 1)->end, FIOR_END_PROVEN);
    fior_report_free(r);
    free(both);
    free(kill);
    free(ok);
    free(buf);
}

/* Jobs named like fio's own lines are jobs: neither a signal nor a dead process. */
static void jobs_named_like_fios_lines(void **state)
{
    (void)state;
    one(FX("fio-3.33-name-signal.txt"), FIOR_END_INFERRED, FIOR_PASS, "p99 273 us");
    one(FX("fio-3.33-name-signal.json"), FIOR_END_PROVEN, FIOR_PASS, "p99 245 us");
    one(FX("fio-3.33-name-got-signal.txt"), FIOR_END_INFERRED, FIOR_PASS, "p99 227 us");
    fior_report *r = parse_ok(FX("fio-3.33-name-signal.txt"));
    assert_string_equal(fior_report_job(r, 0)->name, "fio: terminating on signal 2");
    assert_int_equal(fior_report_job(r, 0)->end_signal, 0);
    fior_report_free(r);
}

/* check stops fio itself with SIGINT: the final document after its own stop is judged; anyone else's
 * stop, or another signal, is not. */
static void the_callers_own_stop(void **state)
{
    (void)state;
    fior_report *r = parse_ok(FX("fio-3.33-sigint.json"));
    fior_criteria *c = fior_criteria_new();
    assert_int_equal(fior_criteria_caller_stop(c), 0);
    assert_int_equal(fior_criteria_set_caller_stop(c, -1), FIOR_E_INVAL);
    assert_int_equal(fior_criteria_set_caller_stop(c, SIGTERM), FIOR_OK);
    assert_int_equal(tj_judge(r, c), FIOR_UNKNOWN);
    assert_int_equal(fior_criteria_set_caller_stop(c, SIGINT), FIOR_OK);
    assert_int_equal(fior_criteria_caller_stop(c), SIGINT);
    assert_int_equal(tj_judge(r, c), FIOR_PASS);
    fior_report_free(r);
    /* after the signal line fio's status thread printed one more document before the final one, both with
     * the stopped jobs' same counts (a real check --wal-only, fio 3.33): one run, stopped by the caller's
     * SIGINT and judged — it was read as a second run whose jobs "died" */
    r = parse_ok(FX("fio-3.33-sigint-two-after.json"));
    assert_int_equal(fior_report_njobs(r), 2);
    for (size_t i = 0; i < 2; i++) {
        const fior_job *j = fior_report_job(r, i);
        assert_int_equal(j->run, 0);
        if (j->end != FIOR_END_STOPPED || j->end_signal != SIGINT)
            fail_msg("%s: end %s, signal %d (%s)", j->name, fior_end_name(j->end), j->end_signal, j->end_reason);
    }
    tj_judge(r, c); /* the WAL job judged on its figures (the backend has 30 commits: too few) */
    if (JV(0).verdict != FIOR_PASS)
        fail_msg("%s", JV(0).reason);
    fior_report_free(r);
    /* a stream cut after its interim document stays unknown whoever stopped fio */
    r = parse_ok(FX("fio-3.33-status-kill.json"));
    assert_int_equal(tj_judge(r, c), FIOR_UNKNOWN);
    fior_report_free(r);
    fior_criteria_free(c);
}

/* ---- what made the samples ---- */

static void job_processes_that_died(void **state)
{
    (void)state;
    const char *data = "the job's process died before its end: fio printed a job_runtime of 0 and no bytes";
    one(FX("fio-3.33-job-killed.json"), FIOR_END_DIED, FIOR_UNKNOWN, data);
    one(FX("fio-3.33-job-killed-group.json"), FIOR_END_DIED, FIOR_UNKNOWN, data);
    /* the client prints the server's "<host> fio: pid=P, got signal=9" on stdout, before the JSON */
    one(FX("fio-3.33-client-job-killed.json"), FIOR_END_DIED, FIOR_UNKNOWN, "died of signal 9 (SIGKILL)");
    const char *line = "the job's process died of signal 9 (SIGKILL) before its end";
    one(FX("fio-3.33-job-killed.txt"), FIOR_END_DIED, FIOR_UNKNOWN, line);
    one(FX("fio-3.33-job-killed-group.txt"), FIOR_END_DIED, FIOR_UNKNOWN, line);
    one(FX("fio-3.33-client-job-killed.txt"), FIOR_END_DIED, FIOR_UNKNOWN, line);
}

/* Interim reports (--status-interval, SIGUSR1) fill in bytes and job_runtime; with no size of its own (the
 * laid-out file's size stands in) nothing else says the job was short. Its read/write runtime of 0 beside
 * those bytes does: fio sets it only when the job's I/O loop ends (backend.c update_runtime). The same
 * prints without the kill are judged (complete_twins_are_judged and it_fio_matrix's 54 fixtures). */
static void job_killed_after_interim_reports(void **state)
{
    (void)state;
    const char *loop = "the job's process died in its I/O loop: fio printed";
    one(FX("fio-3.33-status-job-killed-nosize.json"), FIOR_END_DIED, FIOR_UNKNOWN, loop);
    one(FX("fio-3.33-usr1-job-killed-nosize.json"), FIOR_END_DIED, FIOR_UNKNOWN, loop);
    one(FX("fio-3.33-usr1-job-killed-nosize-stdout.txt"), FIOR_END_DIED, FIOR_UNKNOWN, loop);
    one(FX("fio-3.33-usr1-job-killed-nosize.txt"), FIOR_END_DIED, FIOR_UNKNOWN, "died of signal 9 (SIGKILL)");
}

/* SIGINT 70 ms before a 3 s runtime ran out (job_runtime 2928 ms): stopped, not ended; a signal line leaves
 * job_runtime only its rounding of 1 ms as the proof of a runtime reached. */
static void signal_just_short_of_the_runtime(void **state)
{
    (void)state;
    one(FX("fio-3.33-sigint-near-runtime.json"), FIOR_END_STOPPED, FIOR_UNKNOWN,
        "fio was stopped by signal 2 (SIGINT) after 40.8 of 100 MiB, 2.93 s of its 3 s runtime");
}

/* A job of a group_reporting group killed: the group's figures hold the living jobs' bytes and every
 * job's syncs and write count (counted live); and fio's "got signal" line where it really stands: after
 * an eta display's '\r', and "<host> "-prefixed in client output (normal and JSON). Made by an attack run
 * here (fio 3.33; tests/fixtures/fio/README.md). */
static void dead_jobs_beside_living_ones(void **state)
{
    (void)state;
    const char *group = "a job process died before its end: fio counted";
    one(FX("fio-3.33-group-one-killed.txt"), FIOR_END_DIED, FIOR_UNKNOWN, group);
    one(FX("fio-3.33-numjobs2-group-one-killed.txt"), FIOR_END_DIED, FIOR_UNKNOWN, group);
    one(FX("fio-3.33-group-one-killed.json"), FIOR_END_DIED, FIOR_UNKNOWN, group);
    /* two servers, one killed: the client says "client: host=H disconnected" (client.c) and judges the other */
    fior_report *r = parse_ok(FX("fio-3.33-client-server-lost.json"));
    assert_int_equal(tj_judge(r, NULL), FIOR_UNKNOWN);
    has(JV(0).reason, "fio's client lost a server it ran jobs on");
    fior_report_free(r);
    r = parse_ok(FX("fio-3.33-client-server-lost.txt"));
    assert_int_equal(tj_judge(r, NULL), FIOR_UNKNOWN);
    has(JV(0).reason, "fio's client lost a server it ran jobs on");
    fior_report_free(r);
    const char *line = "died of signal 9 (SIGKILL) before its end";
    one(FX("fio-3.33-client-got-signal.txt"), FIOR_END_DIED, FIOR_UNKNOWN, line);
    one(FX("fio-3.33-client-got-signal.json"), FIOR_END_DIED, FIOR_UNKNOWN, line);
    one(FX("fio-3.33-eta-got-signal.txt"), FIOR_END_DIED, FIOR_UNKNOWN, line);
}

/* Outputs cut by a careless paste: inside a job's print (its sync part gone: "not judged" would hide it),
 * and before the figures of jobs fio said it started. The whole output is a FAIL. */
static void outputs_cut_before_their_end(void **state)
{
    (void)state;
    fior_report *r = parse_ok(FX("fio-3.33-cut-mid-job.txt"));
    assert_int_equal(tj_judge(r, NULL), FIOR_UNKNOWN);
    assert_int_equal(JV(1).verdict, FIOR_UNKNOWN);
    has(JV(1).reason, "the input ends inside this job's figures");
    fior_report_free(r);
    r = parse_ok(FX("fio-3.33-cut-before-jobs.txt"));
    assert_int_equal(tj_judge(r, NULL), FIOR_UNKNOWN);
    has(JV(0).reason, "the input ends before the figures of 2 of the 3 jobs fio started");
    fior_report_free(r);
    r = parse_ok(FX("fio-3.33-cut-before-jobs-whole.txt"));
    assert_int_equal(tj_judge(r, NULL), FIOR_FAIL);
    fior_report_free(r);
}

/* Two runs of a job of one name appended to one file, a second apart: another directory (or size, block
 * size, limit) is another run, not a --status-interval update of the first (whose FAIL stays). */
static void appended_runs_are_two(void **state)
{
    (void)state;
    fior_report *r = parse_ok(FX("fio-3.33-two-runs-appended.json"));
    assert_int_equal(fior_report_njobs(r), 2);
    assert_int_equal(tj_judge(r, NULL), FIOR_FAIL);
    fior_report_free(r);
}

/* An attack run's ways around the sample rules: /dev/shm written "/dev//shm" or "/tmp/../dev/shm"; O_SYNC
 * writes at bs=2300 in normal output (writes 3.1x the syncs: over 4x was asked); a group_reporting
 * time_based group with one job killed (its runtime met: "proven"). */
static void samples_rules_as_paths_and_ratios_really_are(void **state)
{
    (void)state;
    one(FX("fio-3.33-dev-double-slash-shm.json"), FIOR_END_PROVEN, FIOR_UNKNOWN, "is under /dev/shm, a tmpfs");
    one(FX("fio-3.33-dotdot-dev-shm.json"), FIOR_END_PROVEN, FIOR_UNKNOWN, "is under /dev/shm, a tmpfs");
    one(FX("fio-3.33-osync-bs2300.txt"), FIOR_END_INFERRED, FIOR_UNKNOWN, "the writes took longer than the syncs");
    one(FX("fio-3.33-numjobs2-timebased-group-one-killed.json"), FIOR_END_DIED, FIOR_UNKNOWN,
        "a job process died before its end: fio counted");
    /* SIGUSR1, then fio and its job SIGKILLed: the one document is interim; a size read as "not known" must
     * not leave the end "inferred" */
    const char *size = "the job's size is not a number of bytes read here";
    one(FX("fio-3.33-usr1-killed-kb1000.json"), FIOR_END_CUT, FIOR_UNKNOWN, size);
    one(FX("fio-3.33-usr1-killed-size-percent.json"), FIOR_END_CUT, FIOR_UNKNOWN, size);
    char out[64];
    assert_string_equal(fior__path_lexical("/dev//shm/./x", out, sizeof out), "/dev/shm/x");
    assert_string_equal(fior__path_lexical("/tmp/../dev/shm", out, sizeof out), "/dev/shm");
    assert_string_equal(fior__path_lexical("/../..//", out, sizeof out), "/");
    assert_string_equal(fior__path_lexical("rel/../x", out, sizeof out), "rel/../x");
}

static void syncs_that_flush_nothing(void **state)
{
    (void)state;
    one(FX("fio-3.33-null.json"), FIOR_END_PROVEN, FIOR_UNKNOWN, "ioengine=null does no I/O");
    one(FX("fio-3.33-null.txt"), FIOR_END_INFERRED, FIOR_UNKNOWN, "ioengine=null does no I/O");
    one(FX("fio-3.33-sfr.json"), FIOR_END_PROVEN, FIOR_UNKNOWN, "the job's syncs are sync_file_range");
    one(FX("fio-3.33-sfr.txt"), FIOR_END_INFERRED, FIOR_UNKNOWN, "fio counted these syncs where it counts sync_file_range");
    one(FX("fio-3.33-osync.json"), FIOR_END_PROVEN, FIOR_UNKNOWN, "sync=1 opens the files O_SYNC");
    one(FX("fio-3.33-odsync.json"), FIOR_END_PROVEN, FIOR_UNKNOWN, "sync=dsync opens the files O_DSYNC");
    one(FX("fio-3.33-osync.txt"), FIOR_END_INFERRED, FIOR_UNKNOWN, "the writes took longer than the syncs after them");
    one(FX("fio-3.33-bs8m.json"), FIOR_END_PROVEN, FIOR_PASS, "p99 4.11 ms"); /* the same job without sync=1 */
    one(FX("fio-3.33-shm.json"), FIOR_END_PROVEN, FIOR_UNKNOWN, "these fdatasyncs did not reach a disk: their median");
    one(FX("fio-3.33-shm.txt"), FIOR_END_INFERRED, FIOR_UNKNOWN, "below the 5 us that any flush to a device takes");
    fior_report *r = parse_ok(FX("fio-3.33-osync.json"));
    const fior_job *j = fior_report_job(r, 0);
    assert_int_equal(j->sync_flags, FIOR_SYNC_OPTIONS | FIOR_SYNC_FDATASYNC | FIOR_SYNC_O_SYNC);
    char b[64];
    assert_string_equal(fior_sync_flags_name(b, sizeof b, j->sync_flags), "fdatasync after O_SYNC writes");
    fior_report_free(r);
}

/* The floor is the library's one value: the default, set, off; /dev/shm stays unknown without it. */
static void the_physical_floor(void **state)
{
    (void)state;
    fior_criteria *c = fior_criteria_new();
    assert_int_equal(fior_criteria_floor(c), FIOR_FLOOR_DEFAULT_NS);
    assert_int_equal(fior_criteria_floor(NULL), FIOR_FLOOR_DEFAULT_NS);
    fior_report *r = parse_ok(FX("fio-3.33-json.json")); /* p50 465 us on the VM disk */
    assert_int_equal(tj_judge(r, c), FIOR_PASS);
    assert_int_equal(fior_criteria_set_floor(c, 1000000), FIOR_OK);
    assert_int_equal(tj_judge(r, c), FIOR_UNKNOWN);
    has(JV(0).reason, "below the 1 ms that any flush");
    fior_criteria *d = fior_criteria_dup(c);
    assert_int_equal(fior_criteria_floor(d), 1000000);
    fior_criteria_free(d);
    fior_report_free(r);
    assert_int_equal(fior_criteria_set_floor(c, 0), FIOR_OK);
    r = parse_ok(FX("fio-3.33-shm.json"));
    assert_int_equal(tj_judge(r, c), FIOR_UNKNOWN);
    has(JV(0).reason, "the job's directory is under /dev/shm, a tmpfs");
    fior_report_free(r);
    /* a median printed as 0 ns is below the floor too (not "no median") */
    static const char zero[] = "{\"fio version\": \"fio-3.33\", \"jobs\": [{\"jobname\": \"z\", \"error\": 0, \"sync\": "
                               "{\"lat_ns\": {\"N\": 500, \"min\": 0, \"max\": 900000, \"percentile\": "
                               "{\"50.000000\": 0, \"99.000000\": 800000}}}}]}\n";
    r = parse_buf("zero.json", zero, sizeof zero - 1);
    assert_int_equal(tj_judge(r, NULL), FIOR_UNKNOWN);
    has(JV(0).reason, "did not reach a disk: their median is 0 ns");
    fior_report_free(r);
    r = parse_ok(FX("fio-3.33-global-backend.json")); /* on /dev/shm: the engine's fast commits do not pass */
    assert_int_equal(tj_judge(r, NULL), FIOR_FAIL);
    assert_int_equal(JV(0).verdict, FIOR_UNKNOWN);
    assert_int_equal(JV(1).verdict, FIOR_FAIL); /* a measured slow sync stays a FAIL */
    fior_report_free(r);
    fior_criteria_free(c);
}

/* ---- old fio, end_fsync, etcd-perf ---- */

static void what_old_fio_and_end_fsync_did(void **state)
{
    (void)state;
    one(FX("fio-3.33-end-fsync.json"), FIOR_END_PROVEN, FIOR_NOT_JUDGED, "end_fsync=1 makes one fsync when the job ends");
    one(TEST_FIXTURES "/fio-3.16/end-fsync.json", FIOR_END_PROVEN, FIOR_NOT_JUDGED, "which fio does not time");
    one(TEST_FIXTURES "/fio-3.7/end-fsync.json", FIOR_END_PROVEN, FIOR_NOT_JUDGED, "which fio does not time");
    one(FX("hand-fio-3.1-fsync.json"), FIOR_END_PROVEN, FIOR_UNKNOWN, "fio-3.1 does not time fsync/fdatasync");
    one(FX("hand-fio-2.2.10-fsync.txt"), FIOR_END_INFERRED, FIOR_NOT_JUDGED, "fio-2.2.10 records none");
}

static void fio_316_and_37(void **state)
{
    (void)state;
    static const char *const files[] = {"fio-3.16/fdatasync.json", "fio-3.16/fdatasync-jsonplus.json",
                                        "fio-3.16/fsync.json", "fio-3.16/fdatasync.txt", "fio-3.16/fsync.txt",
                                        "fio-3.7/fdatasync.json", "fio-3.7/fdatasync-jsonplus.json",
                                        "fio-3.7/fsync.json", "fio-3.7/fdatasync.txt", "fio-3.7/fsync.txt"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s", TEST_FIXTURES, files[i]);
        fior_report *r = parse_ok(path);
        const fior_job *j = fior_report_job(r, 0);
        if (!j->samples_known || j->samples != 911)
            fail_msg("%s: samples %llu (known %d), want 911", path, (unsigned long long)j->samples, j->samples_known);
        assert_null(j->defect);
        if (tj_judge(r, NULL) != FIOR_PASS)
            fail_msg("%s: %s", path, JV(0).reason);
        fior_report_free(r);
    }
    one(TEST_FIXTURES "/fio-3.16/sigint.json", FIOR_END_STOPPED, FIOR_UNKNOWN, "signal 2");
    one(TEST_FIXTURES "/fio-3.7/sigint.json", FIOR_END_STOPPED, FIOR_UNKNOWN, "after 7.4 of 100 MiB, 1.37 s");
    /* a fio that writes "N" (3.18 on) and leaves it out contradicts itself, whatever else is there */
    size_t len;
    char *buf = slurp(TEST_FIXTURES "/fio-3.16/fdatasync.json", &len);
    char *v = strstr(buf, "fio-3.16");
    memcpy(v, "fio-3.18", 8);
    fior_report *r = parse_buf("n.json", buf, len);
    assert_int_equal(tj_judge(r, NULL), FIOR_UNKNOWN);
    has(JV(0).reason, "no sample count \"N\"");
    fior_report_free(r);
    free(buf);
}

static void etcd_perf_logs(void **state)
{
    (void)state;
    fior_report *r = parse_ok(FX("hand-etcdperf-trailing-blank.log"));
    assert_int_equal(fior_report_format(r), FIOR_FMT_ETCD_PERF);
    assert_int_equal(fior_report_njobs(r), 2);
    assert_int_equal(fior_report_job(r, 0)->pct[0].ns, 3981312);
    assert_int_equal(fior_report_job(r, 1)->pct[0].ns, 7176192);
    fior_report_free(r);
    static const char line[] = "INFO: 99th percentile of fsync is 692060160 ns \r\n";
    r = parse_buf("blank.log", line, sizeof line - 1);
    assert_int_equal(fior_report_job(r, 0)->pct[0].ns, 692060160);
    fior_report_free(r);
    one(FX("fio-3.33-etcdperf-container.log"), FIOR_END_PROVEN, FIOR_PASS, "p99 1.04 ms");
    r = parse_ok(FX("hand-etcdperf-damaged-json.log"));
    assert_int_equal(fior_report_format(r), FIOR_FMT_ETCD_PERF);
    assert_int_equal(fior_report_job(r, 0)->pct[0].ns, 1036288);
    assert_int_equal(tj_judge(r, NULL), FIOR_UNKNOWN);
    has(JV(0).reason, "read from the etcd-perf log's line, as its fio JSON does not read (");
    has(JV(0).reason, "byte 1005");
    fior_report_free(r);
    /* the phrase in a job's name is no etcd-perf line: a broken document keeps the JSON's own error */
    static const char named[] = "{\"jobs\": [{\"jobname\": \"99th percentile of fsync is 100 ns\", \"error\": 0,#}]}\n";
    r = fior_report_new();
    assert_int_equal(fior_parse_buffer(r, "named.json", named, sizeof named - 1), FIOR_E_PARSE);
    has(fior_report_error(r), "named.json: byte 73: expected valid JSON");
    fior_report_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(stopped_by_a_signal),
        cmocka_unit_test(complete_twins_are_judged),
        cmocka_unit_test(stream_without_its_final_document),
        cmocka_unit_test(stream_cut_at_every_byte_of_its_last_document),
        cmocka_unit_test(signal_line_wherever_it_stands),
        cmocka_unit_test(jobs_named_like_fios_lines),
        cmocka_unit_test(the_callers_own_stop),
        cmocka_unit_test(job_processes_that_died),
        cmocka_unit_test(job_killed_after_interim_reports),
        cmocka_unit_test(signal_just_short_of_the_runtime),
        cmocka_unit_test(dead_jobs_beside_living_ones),
        cmocka_unit_test(outputs_cut_before_their_end),
        cmocka_unit_test(appended_runs_are_two),
        cmocka_unit_test(samples_rules_as_paths_and_ratios_really_are),
        cmocka_unit_test(syncs_that_flush_nothing),
        cmocka_unit_test(the_physical_floor),
        cmocka_unit_test(what_old_fio_and_end_fsync_did),
        cmocka_unit_test(fio_316_and_37),
        cmocka_unit_test(etcd_perf_logs),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    fior_result_free(tj_res);
    return rc;
}
