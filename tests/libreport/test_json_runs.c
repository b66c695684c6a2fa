/* SPDX-License-Identifier: MIT */
/* test_json_runs.c — the JSON reader's promises beyond single well-formed documents: several fio outputs in
 * one input are separate runs and every run is judged (real fio outputs concatenated, JSON and normal);
 * a --status-interval stream is one run; JSON that contradicts itself or leaves out what fio always
 * writes is UNKNOWN with a reason naming the key and its byte; files read in chunks, streams split
 * anywhere and whole buffers read the same. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "fioreport_cli.h"
#include "tslurp.h"

#define FX(name) TEST_FIXTURES "/fio/" name
#define MS 1000000ULL

/* a + b as one buffer (NUL-terminated) */
static char *cat2(const char *a, size_t alen, const char *b, size_t blen, size_t *len)
{
    char *c = malloc(alen + blen + 1);
    assert_non_null(c);
    memcpy(c, a, alen);
    memcpy(c + alen, b, blen);
    c[alen + blen] = '\0';
    *len = alen + blen;
    return c;
}

static fior_report *parse(const char *src, const char *buf, size_t len, fior_status want)
{
    fior_report *r = fior_report_new();
    assert_non_null(r);
    fior_status st = fior_parse_buffer(r, src, buf, len);
    if (st != want)
        fail_msg("%s: status %s (want %s): %s", src, fior_strstatus(st), fior_strstatus(want), fior_report_error(r));
    return r;
}

/* Judges every job against a WAL threshold; per[] (may be NULL) gets each job's verdict, reason[] (may be
 * NULL) its reason. */
static fior_verdict judge_at(const fior_report *r, uint64_t wal_ns, fior_verdict *per, char reason[][256])
{
    fior_criteria *c = fior_criteria_new();
    assert_non_null(c);
    assert_int_equal(fior_criteria_set_threshold(c, FIOR_ROLE_WAL, wal_ns), FIOR_OK);
    fior_result *res = fior_judge(r, c);
    assert_non_null(res);
    size_t n = fior_report_njobs(r);
    assert_int_equal(fior_result_count(res), n);
    for (size_t i = 0; i < n; i++) {
        const fior_judgement *j = fior_result_job(res, i);
        if (per)
            per[i] = j->verdict;
        if (reason)
            snprintf(reason[i], 256, "%s", j->reason);
    }
    fior_verdict v = fior_result_verdict(res);
    fior_result_free(res);
    fior_criteria_free(c);
    return v;
}

static uint64_t p99(const fior_job *j)
{
    for (size_t i = 0; i < j->npct; i++)
        if (j->pct[i].percent > 98.999 && j->pct[i].percent < 99.001)
            return j->pct[i].ns;
    fail_msg("no p99 in job %s", j->name);
    return 0;
}

/* ---- several runs in one input ---- */

/* fio-3.33-json.json (p99 5.08 ms) and fio-3.33-jsonplus.json (p99 494 us), two real runs: against 1 ms the
 * first fails and the second passes. In either order the file is a FAIL: the last run does not hide the
 * first. */
static void concatenated_json_runs_worst_wins(void **state)
{
    (void)state;
    size_t la, lb, l;
    char *a = slurp(FX("fio-3.33-json.json"), &la), *b = slurp(FX("fio-3.33-jsonplus.json"), &lb);
    for (int order = 0; order < 2; order++) {
        char *both = order ? cat2(b, lb, a, la, &l) : cat2(a, la, b, lb, &l);
        fior_report *r = parse("both.json", both, l, FIOR_OK);
        assert_int_equal(fior_report_njobs(r), 2);
        fior_verdict per[2];
        assert_int_equal(judge_at(r, 1 * MS, per, NULL), FIOR_FAIL);
        for (size_t i = 0; i < 2; i++) {
            const fior_job *j = fior_report_job(r, i);
            assert_int_equal(j->run, i);
            assert_int_equal(per[i], p99(j) > 1 * MS ? FIOR_FAIL : FIOR_PASS);
        }
        assert_int_equal(p99(fior_report_job(r, order ? 1 : 0)), 5079040);
        fior_report_free(r);
        free(both);
    }
    /* the same output twice: its timestamps do not go up, so these are two runs (both judged, both PASS) */
    char *twice = cat2(a, la, a, la, &l);
    fior_report *r = parse("twice.json", twice, l, FIOR_OK);
    assert_int_equal(fior_report_njobs(r), 2);
    assert_int_equal(judge_at(r, 10 * MS, NULL, NULL), FIOR_PASS);
    fior_report_free(r);
    free(twice);
    free(a);
    free(b);
}

/* The real status-interval output (4 documents, the same job, timestamp_ms going up) is one run judged by
 * its final document; the same documents with the last one moved first are two runs. */
static void status_interval_is_one_run_unless_time_goes_back(void **state)
{
    (void)state;
    size_t len;
    char *si = slurp(FX("fio-3.33-status-interval.json"), &len);
    fior_report *r = parse("si.json", si, len, FIOR_OK);
    assert_int_equal(fior_report_njobs(r), 1);
    assert_int_equal(fior_report_job(r, 0)->samples, 13212);
    assert_int_equal(fior_report_job(r, 0)->run, 0);
    fior_report_free(r);

    const char *last = strstr(si, "\n{");
    for (const char *n; (n = strstr(last + 1, "\n{"));)
        last = n;
    last++;
    size_t l;
    char *moved = cat2(last, len - (size_t)(last - si), si, (size_t)(last - si), &l);
    r = parse("moved.json", moved, l, FIOR_OK);
    assert_int_equal(fior_report_njobs(r), 2);
    assert_int_equal(fior_report_job(r, 0)->samples, 13212); /* the final document, alone */
    assert_int_equal(fior_report_job(r, 1)->run, 1);
    assert_true(fior_report_job(r, 1)->samples < 13212);    /* the interim documents' last one */
    fior_report_free(r);

    /* a different run after the stream: a new run, the stream's result stays */
    size_t lj;
    char *j = slurp(FX("fio-3.33-two-jobs.json"), &lj);
    char *after = cat2(si, len, j, lj, &l);
    r = parse("after.json", after, l, FIOR_OK);
    assert_int_equal(fior_report_njobs(r), 3);
    assert_int_equal(fior_report_job(r, 0)->samples, 13212);
    assert_int_equal(fior_report_job(r, 1)->run, 1);
    assert_int_equal(fior_report_job(r, 2)->run, 1);
    fior_report_free(r);
    free(after);
    free(j);
    free(moved);
    free(si);
}

/* A status document written while the disk stalled repeats the counts of the one before; the jobs' runtime
 * still grows, and fio's start (timestamp - elapsed) is the same: one run. A document whose fio started
 * later (elapsed back to 1 s) is another run even though its counts and runtime grew. */
#define SDOC(ts, el, rt, n) "{\"timestamp_ms\": " #ts ", \"jobs\": [{\"jobname\": \"w\", \"error\": 0, \"elapsed\": " \
    #el ", \"job_runtime\": " #rt ", \"write\": {\"total_ios\": " #n "}, \"sync\": {\"lat_ns\": {\"N\": " #n \
    ", \"max\": 9000, \"percentile\": {\"99.000000\": 2000}}}}]}\n"
static void stalled_status_document_same_run(void **state)
{
    (void)state;
    const char *stall = SDOC(100500, 1, 900, 300) SDOC(101500, 2, 1900, 300) SDOC(102400, 3, 2800, 400);
    fior_report *r = parse("stall.json", stall, strlen(stall), FIOR_OK);
    assert_int_equal(fior_report_njobs(r), 1);
    assert_int_equal(fior_report_job(r, 0)->samples, 400);
    fior_report_free(r);
    const char *again = SDOC(100500, 1, 900, 300) SDOC(103000, 1, 950, 310);
    r = parse("again.json", again, strlen(again), FIOR_OK);
    assert_int_equal(fior_report_njobs(r), 2);
    fior_report_free(r);
}

/* Normal text: fio-3.33-normal.txt (p99 7.57 ms) then fio-3.33-two-jobs.txt (627 us / …) and the other way
 * round: against 1 ms the first run fails whichever comes last. The same output twice is two runs even
 * though its job has the same name and pid (a status-interval normal stream prints no second banner). */
static void concatenated_normal_runs(void **state)
{
    (void)state;
    size_t la, lb, l;
    char *a = slurp(FX("fio-3.33-normal.txt"), &la), *b = slurp(FX("fio-3.33-two-jobs.txt"), &lb);
    for (int order = 0; order < 2; order++) {
        char *both = order ? cat2(b, lb, a, la, &l) : cat2(a, la, b, lb, &l);
        fior_report *r = parse("both.txt", both, l, FIOR_OK);
        size_t n = fior_report_njobs(r);
        assert_int_equal(n, 3);
        fior_verdict per[3];
        assert_int_equal(judge_at(r, 1 * MS, per, NULL), FIOR_FAIL);
        size_t failing = order ? 2 : 0;
        assert_int_equal(per[failing], FIOR_FAIL);
        assert_int_equal(p99(fior_report_job(r, failing)), 7570000);
        assert_int_equal(fior_report_job(r, failing)->run, order ? 1 : 0);
        fior_report_free(r);
        free(both);
    }
    char *twice = cat2(a, la, a, la, &l);
    fior_report *r = parse("twice.txt", twice, l, FIOR_OK);
    assert_int_equal(fior_report_njobs(r), 2);
    assert_int_equal(fior_report_job(r, 1)->run, 1);
    fior_report_free(r);
    free(twice);
    /* the real normal-format status-interval output is still one run (the same pid, no new banner) */
    char *si = slurp(FX("fio-3.33-status-interval.txt"), &l);
    r = parse("si.txt", si, l, FIOR_OK);
    assert_int_equal(fior_report_njobs(r), 1);
    fior_report_free(r);
    free(si);
    free(a);
    free(b);
}

/* ---- JSON that contradicts itself or leaves out what fio always writes ---- */

#define JOB(body) "{\"jobs\": [{\"jobname\": \"w\", " body "}]}\n"
#define LAT(extra) "\"sync\": {\"lat_ns\": {" extra "\"min\": 1000, \"max\": 9000000, \"mean\": 10000.0, " \
                   "\"stddev\": 1.0, \"percentile\": {\"50.000000\": 100000, \"99.000000\": 2000000, " \
                   "\"99.900000\": 9000000}}}"

/* Parses text, judges it at 10 ms, and checks that the one job is UNKNOWN with a reason that contains
 * `want` and names the byte where `at` first occurs at or after the occurrence number `nth` of `at`. */
static void expect_unknown(const char *text, const char *want, const char *at, int nth)
{
    fior_report *r = parse("x.json", text, strlen(text), FIOR_OK);
    fior_verdict per[4];
    char reason[4][256];
    assert_true(fior_report_njobs(r) >= 1);
    assert_int_equal(judge_at(r, 10 * MS, per, reason), FIOR_UNKNOWN);
    if (!strstr(reason[0], want))
        fail_msg("reason '%s' lacks '%s'", reason[0], want);
    if (at) {
        const char *p = text;
        for (int i = 0; i <= nth; i++) {
            p = strstr(i ? p + 1 : p, at);
            assert_non_null(p);
        }
        char b[32];
        snprintf(b, sizeof b, "byte %d", (int)(p - text) + 1 + (at[0] == '"'));
        if (!strstr(reason[0], b))
            fail_msg("reason '%s' lacks '%s'", reason[0], b);
    }
    assert_non_null(fior_report_job(r, 0)->defect);
    fior_report_free(r);
}

static void contradictions_are_unknown(void **state)
{
    (void)state;
    /* the control: the same job, well formed, passes */
    const char *good = JOB("\"error\": 0, " LAT("\"N\": 500, "));
    fior_report *r = parse("good.json", good, strlen(good), FIOR_OK);
    assert_int_equal(judge_at(r, 10 * MS, NULL, NULL), FIOR_PASS);
    assert_null(fior_report_job(r, 0)->defect);
    fior_report_free(r);

    expect_unknown(JOB("\"error\": 0, " LAT("")), "no sample count \"N\"", NULL, 0);
    expect_unknown(JOB(LAT("\"N\": 500, ")), "no \"error\" key", NULL, 0);
    expect_unknown(JOB("\"error\": 5, \"error\": 0, " LAT("\"N\": 500, ")), "two \"error\" keys", "\"error\"", 1);
    expect_unknown(JOB("\"error\": 0, \"error\": 5, " LAT("\"N\": 500, ")), "two \"error\" keys", "\"error\"", 1);
    expect_unknown(JOB("\"error\": 0, " LAT("\"N\": 500, ") ", " LAT("\"N\": 500, ")), "two \"sync\" keys",
                   "\"sync\"", 1);
    expect_unknown(JOB("\"error\": 0, " LAT("\"N\": 5, \"N\": 500, ")), "two \"N\" keys", "\"N\"", 1);
    /* a percentile list that goes down far from p99 (p10 above p50): not fio's */
    expect_unknown(JOB("\"error\": 0, \"sync\": {\"lat_ns\": {\"N\": 500, \"max\": 9000, \"percentile\": "
                       "{\"10.000000\": 5000, \"50.000000\": 100, \"99.000000\": 2000}}}"),
                   "percentiles not ascending", "\"percentile\"", 0);
    expect_unknown(JOB("\"error\": 0, \"sync\": {\"lat_ns\": {\"N\": 500, \"max\": 9000, \"percentile\": "
                       "{\"99.000000\": 2000, \"99.000000\": 100}}}"),
                   "percentile \"99.000000\" twice", "\"percentile\"", 0);
    /* a key of the document given twice: every job of it is in doubt */
    expect_unknown("{\"global options\": {}, \"global options\": {\"ioengine\": \"sync\"}, \"jobs\": [{\"jobname\": "
                   "\"w\", \"error\": 0, " LAT("\"N\": 500, ") "}]}\n",
                   "two \"global options\" keys", "\"global options\"", 1);

    /* -0 as a latency: a minus sign on a latency is never fio's; the message names the byte of the value */
    const char *neg = JOB("\"error\": 0, \"sync\": {\"lat_ns\": {\"N\": 500, \"percentile\": {\"99.000000\": -0}}}");
    r = parse("neg.json", neg, strlen(neg), FIOR_E_PARSE);
    char want[96];
    snprintf(want, sizeof want, "neg.json: byte %d: expected percentile values >= 0",
             (int)(strstr(neg, "-0") - neg) + 1);
    if (!strstr(fior_report_error(r), want))
        fail_msg("'%s' lacks '%s'", fior_report_error(r), want);
    assert_int_equal(fior_report_njobs(r), 0);
    fior_report_free(r);
    /* nesting is bounded (yajl's stack grows with it): a hostile "[[[[…" stops at 256 with a message */
    static char deep[100010];
    memcpy(deep, "{\"x\": ", 6);
    memset(deep + 6, '[', sizeof deep - 7);
    r = parse("deep.json", deep, strlen(deep), FIOR_E_PARSE);
    assert_non_null(strstr(fior_report_error(r), "expected objects and arrays nested at most 256 deep"));
    fior_report_free(r);
    const char *negmax = JOB("\"error\": 0, \"sync\": {\"lat_ns\": {\"N\": 500, \"max\": -0}}");
    r = parse("negmax.json", negmax, strlen(negmax), FIOR_E_PARSE);
    assert_non_null(strstr(fior_report_error(r), "\"min\"/\"max\" as numbers >= 0 at jobs[0].sync.lat_ns"));
    fior_report_free(r);
}

/* "jobs" and "client_stats" in one document: both are judged (a failing client is not hidden by a passing
 * job), and a real job named "All clients" in "jobs" is judged like any other. */
static void jobs_and_client_stats_and_all_clients(void **state)
{
    (void)state;
    const char *both = "{\"jobs\": [{\"jobname\": \"w\", \"error\": 0, " LAT("\"N\": 500, ") "}],\n"
                       " \"client_stats\": [{\"jobname\": \"c\", \"error\": 0, \"hostname\": \"h\", \"port\": 1, "
                       "\"sync\": {\"lat_ns\": {\"N\": 500, \"max\": 90000000, \"percentile\": "
                       "{\"99.000000\": 80000000}}}}]}\n";
    fior_report *r = parse("both.json", both, strlen(both), FIOR_OK);
    assert_int_equal(fior_report_njobs(r), 2);
    fior_verdict per[2];
    assert_int_equal(judge_at(r, 10 * MS, per, NULL), FIOR_FAIL);
    assert_int_equal(per[0], FIOR_PASS);
    assert_int_equal(per[1], FIOR_FAIL);
    fior_report_free(r);

    const char *named = "{\"jobs\": [{\"jobname\": \"a\", \"error\": 0, " LAT("\"N\": 500, ") "},\n"
                        "{\"jobname\": \"b\", \"error\": 0, " LAT("\"N\": 500, ") "},\n"
                        "{\"jobname\": \"All clients\", \"error\": 0, \"sync\": {\"lat_ns\": {\"N\": 500, \"max\": "
                        "90000000, \"percentile\": {\"99.000000\": 80000000}}}}]}\n";
    r = parse("named.json", named, strlen(named), FIOR_OK);
    assert_int_equal(fior_report_njobs(r), 3);
    assert_string_equal(fior_report_job(r, 2)->name, "All clients");
    assert_int_equal(judge_at(r, 10 * MS, NULL, NULL), FIOR_FAIL);
    fior_report_free(r);

    /* fio's own sum in the real client output is still left out */
    size_t len;
    char *c2 = slurp(FX("fio-3.33-client2.json"), &len);
    r = parse("client2.json", c2, len, FIOR_OK);
    for (size_t i = 0; i < fior_report_njobs(r); i++)
        assert_string_not_equal(fior_report_job(r, i)->name, "All clients");
    assert_int_equal(fior_report_njobs(r), 2);
    fior_report_free(r);
    free(c2);
}

/* ---- chunked reading never changes what is read ---- */

static void same_jobs(const fior_report *a, const fior_report *b)
{
    assert_int_equal(fior_report_njobs(a), fior_report_njobs(b));
    for (size_t i = 0; i < fior_report_njobs(a); i++) {
        const fior_job *x = fior_report_job(a, i), *y = fior_report_job(b, i);
        assert_string_equal(x->name, y->name);
        assert_int_equal(x->run, y->run);
        assert_int_equal(x->samples, y->samples);
        assert_int_equal(x->npct, y->npct);
        assert_int_equal(x->nbins, y->nbins);
        for (size_t k = 0; k < x->npct; k++)
            assert_int_equal(x->pct[k].ns, y->pct[k].ns);
        assert_int_equal(x->line, y->line);
        assert_true((x->defect == NULL) == (y->defect == NULL));
    }
}

/* fior_parse_file streams a file in 64 KiB chunks; it must read what fior_parse_buffer reads from the same
 * bytes: a stray line, then 40 real outputs (json+, ~1.4 MB), whole and cut short. */
static void file_chunks_equal_buffer(void **state)
{
    (void)state;
    size_t lj, lp;
    char *j = slurp(FX("fio-3.33-json.json"), &lj), *p = slurp(FX("fio-3.33-jsonplus.json"), &lp);
    size_t cap = 256 + 40 * (lj + lp), len = 0;
    char *big = malloc(cap);
    assert_non_null(big);
    len += (size_t)sprintf(big, "fio: a warning before the first document\n");
    for (int i = 0; i < 20; i++) {
        memcpy(big + len, j, lj);
        len += lj;
        memcpy(big + len, p, lp);
        len += lp;
    }
    /* the third: a Prometheus line at the end, which makes the whole input the Prometheus reader's (the
     * table tries it before JSON): the streamed file must find that out after 1.4 MB of JSON too */
    static const char prom[] = "\n# TYPE etcd_disk_wal_fsync_duration_seconds histogram\n";
    memcpy(big + len, prom, sizeof prom - 1);
    size_t cuts[] = {len, len - 1000, len + sizeof prom - 1};
    for (size_t c = 0; c < 3; c++) {
        char path[] = "/tmp/test_json_runs.XXXXXX";
        int fd = mkstemp(path);
        assert_true(fd >= 0);
        assert_int_equal(write(fd, big, cuts[c]), (ssize_t)cuts[c]);
        close(fd);
        fior_report *rf = fior_report_new(), *rb = fior_report_new();
        fior_status sf = fior_parse_file(rf, path), sb = fior_parse_buffer(rb, path, big, cuts[c]);
        unlink(path);
        assert_int_equal(sf, sb);
        assert_string_equal(fior_report_error(rf), fior_report_error(rb));
        assert_int_equal(fior_report_format(rf), fior_report_format(rb));
        same_jobs(rf, rb);
        if (c == 0) {
            assert_int_equal(sf, FIOR_OK);
            assert_int_equal(fior_report_njobs(rf), 40);
        } else if (c == 2) {
            assert_true(sf != FIOR_OK || fior_report_format(rf) != FIOR_FMT_JSON);
        } else {
            assert_int_equal(sf, FIOR_E_PARSE);
            assert_non_null(strstr(fior_report_error(rf), "input cut short"));
        }
        fior_report_free(rf);
        fior_report_free(rb);
    }
    free(big);
    free(j);
    free(p);
}

/* A stream fed one byte at a time reads concatenated runs as the whole buffer does, and an error names
 * the same byte wherever the input was split (a token cut in two is put back together by yajl). */
static void stream_split_same_runs_and_offsets(void **state)
{
    (void)state;
    size_t la, lb, l;
    char *a = slurp(FX("fio-3.33-json.json"), &la), *b = slurp(FX("fio-3.33-status-interval.json"), &lb);
    char *both = cat2(a, la, b, lb, &l);
    fior_report *whole = parse("s", both, l, FIOR_OK);
    fior_json_stream *s = fior_json_stream_new("s");
    for (size_t i = 0; i < l; i++)
        assert_int_equal(fior_json_stream_feed(s, both + i, 1), FIOR_OK);
    assert_int_equal(fior_json_stream_documents(s), 5);
    same_jobs(whole, fior_json_stream_report(s));
    fior_json_stream_free(s);
    fior_report_free(whole);

    const char *bad = JOB("\"error\": 0, \"sync\": {\"lat_ns\": {\"N\": 500, \"percentile\": {\"99.000000\": "
                          "-12345}}}");
    size_t bl = strlen(bad);
    fior_json_stream *w = fior_json_stream_new("b");
    assert_int_equal(fior_json_stream_feed(w, bad, bl), FIOR_E_PARSE);
    char msg[512];
    snprintf(msg, sizeof msg, "%s", fior_json_stream_error(w));
    char want[32];
    snprintf(want, sizeof want, "b: byte %d:", (int)(strstr(bad, "-12345") - bad) + 1);
    assert_non_null(strstr(msg, want));
    fior_json_stream_free(w);
    for (size_t cut = 1; cut < bl; cut++) {
        fior_json_stream *x = fior_json_stream_new("b");
        fior_status s1 = fior_json_stream_feed(x, bad, cut);
        char m1[512];
        snprintf(m1, sizeof m1, "%s", fior_json_stream_error(x));
        fior_status s2 = fior_json_stream_feed(x, bad + cut, bl - cut);
        const char *m = s1 != FIOR_OK ? m1 : fior_json_stream_error(x);
        assert_true(s1 != FIOR_OK || s2 != FIOR_OK);
        if (strcmp(m, msg))
            fail_msg("split at %zu: '%s' vs whole '%s'", cut, m, msg);
        fior_json_stream_free(x);
    }
    free(both);
    free(a);
    free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(concatenated_json_runs_worst_wins),
        cmocka_unit_test(status_interval_is_one_run_unless_time_goes_back),
        cmocka_unit_test(stalled_status_document_same_run),
        cmocka_unit_test(concatenated_normal_runs),
        cmocka_unit_test(contradictions_are_unknown),
        cmocka_unit_test(jobs_and_client_stats_and_all_clients),
        cmocka_unit_test(file_chunks_equal_buffer),
        cmocka_unit_test(stream_split_same_runs_and_offsets),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
