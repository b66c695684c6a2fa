/* SPDX-License-Identifier: MIT */
/* test_report_fixtures.c — libfioreport on real inputs: the shared seed fixtures and the fio 3.33 outputs
 * committed under tests/fixtures/fio (made by tests/gen/gen-fixtures.sh). Expected values are the ones printed
 * in those files. Also: truncated/corrupted variants, every prefix of a real output, and several threads
 * parsing at once. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fioreport_monitor.h"
#include "tjudge.h"
#include "tslurp.h"

#define FX(name) TEST_FIXTURES "/fio/" name
#define SEED(name) TEST_FIXTURES "/seeds/" name

static fior_report *parse_ok(const char *path)
{
    fior_report *r = fior_report_new();
    assert_non_null(r);
    fior_status st = fior_parse_file(r, path);
    if (st != FIOR_OK)
        fail_msg("%s: %s", path, fior_report_error(r));
    assert_string_equal(fior_report_error(r), "");
    return r;
}

static uint64_t pct_of(const fior_job *j, double p)
{
    for (size_t i = 0; i < j->npct; i++)
        if (j->pct[i].percent > p - 1e-9 && j->pct[i].percent < p + 1e-9)
            return j->pct[i].ns;
    fail_msg("job %s has no p%g", j->name, p);
    return 0;
}

static fior_verdict judge(const fior_report *r)
{
    return tj_judge(r, NULL);
}

/* ---- the seeds: fio 3.23 (rke2) passes, fio 3.7 (msec) fails, an etcd-perf log is unknown ---- */

static void seed_fio323_pass(void **state)
{
    (void)state;
    fior_report *r = parse_ok(SEED("fio-3.23-normal-rke.txt"));
    assert_int_equal(fior_report_format(r), FIOR_FMT_NORMAL);
    assert_int_equal(fior_report_njobs(r), 1);
    const fior_job *j = fior_report_job(r, 0);
    assert_string_equal(j->name, "mytest");
    assert_string_equal(j->fio_version, "fio-3.23");
    assert_string_equal(j->ioengine, "sync");
    assert_int_equal(j->group, 0);
    assert_int_equal(j->error, 0);
    assert_int_equal(j->pid, 27216);
    assert_true(j->has_sync);
    assert_true(j->samples_known);  /* "issued rwts: total=0,45590,0,0 short=45590,…": fdatasyncs in short[0] */
    assert_int_equal(j->samples, 45590);
    assert_int_equal(j->min_ns, 544000);
    assert_int_equal(j->max_ns, 136068000);
    assert_true(j->mean_ns > 1284509 && j->mean_ns < 1284511);
    assert_int_equal(j->npct, 17);
    assert_int_equal(pct_of(j, 1.0), 652000);
    assert_int_equal(pct_of(j, 99.0), 2540000);
    assert_int_equal(pct_of(j, 99.99), 111674000);
    assert_int_equal(j->pct_resolution_ns, 1000);
    assert_true(j->write_iops > 469.9 && j->write_iops < 470.1);
    assert_true(j->write_bw_bytes > 1057 * 1024 - 1 && j->write_bw_bytes < 1057 * 1024 + 1);
    assert_true(j->write_clat_mean_ns > 832449 && j->write_clat_mean_ns < 832451);
    assert_int_equal(judge(r), FIOR_PASS);
    assert_int_equal(JV(0).value_ns, 2540000);
    assert_string_equal(JV(0).reason, "p99 2.54 ms < 10 ms (WAL fdatasync); a disk inferred, not shown");
    fior_report_free(r);
}

static void seed_fio37_msec_fail(void **state)
{
    (void)state;
    fior_report *r = parse_ok(SEED("fio-3.7-normal-msec.txt"));
    const fior_job *j = fior_report_job(r, 0);
    assert_string_equal(j->fio_version, "fio-3.7");
    assert_int_equal(j->min_ns, 2000000);
    assert_int_equal(j->max_ns, 464000000);
    assert_int_equal(pct_of(j, 99.0), 159000000);
    assert_int_equal(j->pct_resolution_ns, 1000000);
    assert_int_equal(judge(r), FIOR_FAIL);
    assert_int_equal(JV(0).value_ns, 159000000);
    assert_string_equal(JV(0).reason, "p99 159 ms >= 10 ms (WAL fdatasync)");
    fior_report_free(r);
}

/* etcd-perf prints the p99 and nothing else: no sample count, so no PASS */
static void seed_etcdperf_unknown(void **state)
{
    (void)state;
    fior_report *r = parse_ok(SEED("etcd-perf-container.log"));
    assert_int_equal(fior_report_format(r), FIOR_FMT_ETCD_PERF);
    assert_int_equal(fior_report_njobs(r), 2);
    assert_int_equal(pct_of(fior_report_job(r, 0), 99.0), 3981312);
    assert_int_equal(pct_of(fior_report_job(r, 1), 99.0), 7176192);
    assert_int_equal(fior_report_job(r, 1)->line, 3);
    assert_false(fior_report_job(r, 0)->samples_known);
    assert_int_equal(judge(r), FIOR_UNKNOWN);
    assert_non_null(strstr(JV(0).reason, "number of sync samples is not in the input"));
    assert_true(JV(0).value_known == 0);
    fior_report_free(r);
}

/* ---- real fio 3.33 outputs ---- */

static void real_normal(void **state)
{
    (void)state;
    fior_report *r = parse_ok(FX("fio-3.33-normal.txt"));
    assert_int_equal(fior_report_njobs(r), 1);
    const fior_job *j = fior_report_job(r, 0);
    assert_string_equal(j->fio_version, "fio-3.33");
    assert_int_equal(j->min_ns, 122000);
    assert_int_equal(j->max_ns, 7662000);
    assert_int_equal(pct_of(j, 99.0), 7570000);
    assert_int_equal(judge(r), FIOR_PASS);
    fior_report_free(r);
}

/* A fio job may be called anything, also what etcdctl prints: "IS LEADER" is a column of `etcdctl endpoint
 * status`, but in fio's output (normal or JSON) it is a job name, and the job is read and judged. */
static char *renamed(const char *path, const char *from, const char *to, size_t *len)
{
    size_t n;
    char *s = slurp(path, &n), *o = malloc(n * 2 + 1), *q = o;
    assert_non_null(o);
    for (const char *p = s; *p;) {
        if (!strncmp(p, from, strlen(from))) {
            q = stpcpy(q, to);
            p += strlen(from);
        } else {
            *q++ = *p++;
        }
    }
    *q = '\0';
    free(s);
    *len = (size_t)(q - o);
    return o;
}

static void job_named_like_etcdctl(void **state)
{
    (void)state;
    static const char *const files[] = {FX("fio-3.33-normal.txt"), FX("fio-3.33-json.json")};
    static const char *const names[] = {"IS LEADER", "PASS: Throughput is 150 writes/s"};
    for (size_t i = 0; i < 4; i++) {
        size_t n;
        char *b = renamed(files[i % 2], "mytest", names[i / 2], &n);
        fior_report *r = fior_report_new();
        fior_status st = fior_parse_buffer(r, "renamed", b, n);
        if (st != FIOR_OK)
            fail_msg("%s renamed: %s", files[i % 2], fior_report_error(r));
        assert_int_equal(fior_report_njobs(r), 1);
        assert_string_equal(fior_report_job(r, 0)->name, names[i / 2]);
        assert_int_equal(judge(r), FIOR_PASS);
        fior_report_free(r);
        free(b);
    }
}

static void real_json_and_jsonplus(void **state)
{
    (void)state;
    fior_report *r = parse_ok(FX("fio-3.33-json.json"));
    assert_int_equal(fior_report_format(r), FIOR_FMT_JSON);
    const fior_job *j = fior_report_job(r, 0);
    assert_true(j->samples_known);
    assert_int_equal(j->samples, 911);
    assert_int_equal(j->npct, 17);
    assert_int_equal(j->nbins, 0);
    assert_null(j->bins);
    assert_int_equal(j->pct_resolution_ns, 1);
    assert_string_equal(j->ioengine, "sync");
    assert_int_equal(j->role, FIOR_ROLE_WAL);
    assert_true(j->sync_requested);
    for (size_t i = 1; i < j->npct; i++)
        assert_true(j->pct[i - 1].percent < j->pct[i].percent);
    fior_report_free(r);

    r = parse_ok(FX("fio-3.33-jsonplus.json"));
    j = fior_report_job(r, 0);
    assert_true(j->nbins > 10);
    uint64_t sum = 0;
    for (size_t i = 0; i < j->nbins; i++) {
        sum += j->bins[i].count;
        if (i)
            assert_true(j->bins[i - 1].ns < j->bins[i].ns);
    }
    assert_int_equal(sum, j->samples);  /* json+ bins hold every timed sync */
    assert_true(j->bins[0].ns <= pct_of(j, 1.0));
    assert_true(j->bins[j->nbins - 1].ns >= pct_of(j, 99.99));
    assert_int_equal(judge(r), FIOR_PASS);
    fior_report_free(r);
}

static void real_mixed_normal_json(void **state)
{
    (void)state;
    fior_report *r = parse_ok(FX("fio-3.33-normal-json.txt"));
    assert_int_equal(fior_report_format(r), FIOR_FMT_MIXED);
    assert_int_equal(fior_report_njobs(r), 1);  /* the same job is not counted twice */
    const fior_job *j = fior_report_job(r, 0);
    assert_true(j->samples_known);  /* taken from the JSON half */
    assert_int_equal(j->samples, 911);
    assert_int_equal(pct_of(j, 99.0), 464896);
    fior_report_free(r);
}

static void real_status_interval(void **state)
{
    (void)state;
    fior_report *r = parse_ok(FX("fio-3.33-status-interval.json"));
    assert_int_equal(fior_report_njobs(r), 1);
    const fior_job *j = fior_report_job(r, 0);
    assert_int_equal(j->samples, 13212);  /* the last (final) document */
    fior_report_free(r);

    /* the normal-format stream prints the same job (same pid) each interval: the last print is the result */
    r = parse_ok(FX("fio-3.33-status-interval.txt"));
    assert_int_equal(fior_report_njobs(r), 1);
    assert_int_equal(pct_of(fior_report_job(r, 0), 99.0), 3261000);
    assert_int_equal(fior_report_job(r, 0)->line, 114);
    fior_report_free(r);

    /* the stream API gives the same final report, whatever the chunking */
    size_t len;
    char *buf = slurp(FX("fio-3.33-status-interval.json"), &len);
    size_t steps[] = {1, 7, 4096, len};
    for (size_t k = 0; k < sizeof steps / sizeof steps[0]; k++) {
        fior_json_stream *s = fior_json_stream_new("si");
        assert_non_null(s);
        assert_null(fior_json_stream_report(s));
        unsigned long last_docs = 0, changes = 0;
        for (size_t off = 0; off < len; off += steps[k]) {
            size_t n = len - off < steps[k] ? len - off : steps[k];
            assert_int_equal(fior_json_stream_feed(s, buf + off, n), FIOR_OK);
            if (fior_json_stream_documents(s) != last_docs) {
                last_docs = fior_json_stream_documents(s);
                changes++;
            }
        }
        assert_int_equal(fior_json_stream_documents(s), 4);
        const fior_report *sr = fior_json_stream_report(s);
        assert_non_null(sr);
        assert_int_equal(fior_report_njobs(sr), 1);
        assert_int_equal(fior_report_job(sr, 0)->samples, 13212);
        assert_string_equal(fior_report_job(sr, 0)->source, "si");
        if (steps[k] == 1)
            assert_int_equal(changes, 4);  /* each document became current as soon as it was complete */
        fior_json_stream_free(s);
    }
    free(buf);
}

static void stream_stray_lines_and_errors(void **state)
{
    (void)state;
    size_t len;
    char *doc = slurp(FX("fio-3.33-json.json"), &len);
    fior_json_stream *s = fior_json_stream_new("x");
    const char *noise = "fio: this platform does not support process shared mutexes\nJobs: 1 (f=1): [W(1)]\n";
    assert_int_equal(fior_json_stream_feed(s, noise, strlen(noise)), FIOR_OK);
    assert_int_equal(fior_json_stream_documents(s), 0);
    assert_int_equal(fior_json_stream_feed(s, doc, len), FIOR_OK);
    assert_int_equal(fior_json_stream_feed(s, noise, strlen(noise)), FIOR_OK);
    assert_int_equal(fior_json_stream_documents(s), 1);
    /* a broken document is reported with its byte offset; the last good report stays */
    const char *bad = "{ \"jobs\": [ { \"jobname\": 12, ] }\n";
    assert_int_equal(fior_json_stream_feed(s, bad, strlen(bad)), FIOR_E_PARSE);
    assert_non_null(strstr(fior_json_stream_error(s), "x: byte "));
    assert_int_equal(fior_json_stream_documents(s), 1);
    assert_non_null(fior_json_stream_report(s));
    /* and the stream recovers at the next document */
    assert_int_equal(fior_json_stream_feed(s, doc, len), FIOR_OK);
    assert_int_equal(fior_json_stream_documents(s), 2);
    assert_string_equal(fior_json_stream_error(s), "");
    fior_json_stream_free(s);
    free(doc);
}

/* Where a stream is split must not change what it reads: "135" + "-680" in two chunks is the one invalid
 * token "135-680", whichever chunk ends where (the stream holds a number's tail back until the character
 * after it). Found by fuzz_json. */
static void stream_split_anywhere_same_result(void **state)
{
    (void)state;
    const char *bad = "{\"jobs\":[{\"jobname\":\"w\",\"error\":0,\"sync\":{\"lat_ns\":{\"N\":500,"
                      "\"min\":1,\"max\":2,\"mean\":1,\"stddev\":0,\"percentile\":{\"99.000000\":135-680}}}}]}\n";
    size_t len;
    char *good = slurp(FX("fio-3.33-json.json"), &len);
    const char *bufs[2] = {bad, good};
    size_t lens[2] = {strlen(bad), len};
    for (int b = 0; b < 2; b++) {
        fior_json_stream *whole = fior_json_stream_new("w");
        fior_status sw = fior_json_stream_feed(whole, bufs[b], lens[b]);
        unsigned long dw = fior_json_stream_documents(whole);
        assert_int_equal(dw, b == 0 ? 0 : 1);
        for (size_t cut = 1; cut < lens[b]; cut++) {
            fior_json_stream *s = fior_json_stream_new("s");
            fior_status s1 = fior_json_stream_feed(s, bufs[b], cut);
            fior_status s2 = fior_json_stream_feed(s, bufs[b] + cut, lens[b] - cut);
            if ((s1 == FIOR_OK && s2 == FIOR_OK) != (sw == FIOR_OK))
                fail_msg("split at byte %zu of input %d: status %d/%d, whole %d", cut, b, s1, s2, sw);
            assert_int_equal(fior_json_stream_documents(s), dw);
            if (dw) {
                const fior_job *a = fior_report_job(fior_json_stream_report(whole), 0);
                const fior_job *c = fior_report_job(fior_json_stream_report(s), 0);
                assert_int_equal(a->npct, c->npct);
                for (size_t k = 0; k < a->npct; k++)
                    assert_int_equal(a->pct[k].ns, c->pct[k].ns);
            }
            fior_json_stream_free(s);
        }
        fior_json_stream_free(whole);
    }
    free(good);
}

static void real_client_server(void **state)
{
    (void)state;
    fior_report *r = parse_ok(FX("fio-3.33-client.json"));
    const fior_job *j = fior_report_job(r, 0);
    assert_string_equal(j->host, "127.0.0.1");
    assert_int_equal(j->port, 18765);
    fior_report_free(r);

    r = parse_ok(FX("fio-3.33-client2.json"));  /* two clients + the "All clients" sum */
    assert_int_equal(fior_report_format(r), FIOR_FMT_JSON);  /* "<vm> " text lines but no text results */
    assert_int_equal(fior_report_njobs(r), 2);
    for (size_t i = 0; i < 2; i++)
        assert_string_equal(fior_report_job(r, i)->name, "mytest");
    fior_report_free(r);

    r = parse_ok(FX("fio-3.33-client2.txt"));
    assert_int_equal(fior_report_format(r), FIOR_FMT_NORMAL);
    assert_int_equal(fior_report_njobs(r), 2);
    assert_string_equal(fior_report_job(r, 0)->host, "vm");
    assert_int_equal(pct_of(fior_report_job(r, 0), 99.0), 881000);
    assert_int_equal(pct_of(fior_report_job(r, 1), 99.0), 635000);
    assert_string_equal(fior_report_job(r, 1)->fio_version, "fio-3.33");
    fior_report_free(r);
}

static void real_numjobs_and_several_jobs(void **state)
{
    (void)state;
    fior_report *r = parse_ok(FX("fio-3.33-numjobs-group.txt"));
    assert_int_equal(fior_report_njobs(r), 1);
    assert_int_equal(pct_of(fior_report_job(r, 0), 99.0), 515000);
    fior_report_free(r);
    r = parse_ok(FX("fio-3.33-numjobs-group.json"));
    assert_int_equal(fior_report_njobs(r), 1);
    assert_int_equal(fior_report_job(r, 0)->samples, 910);
    fior_report_free(r);
    r = parse_ok(FX("fio-3.33-two-jobs.txt"));
    assert_int_equal(fior_report_njobs(r), 2);
    assert_string_equal(fior_report_job(r, 0)->name, "first");
    assert_string_equal(fior_report_job(r, 1)->name, "second");
    assert_string_equal(fior_report_job(r, 1)->ioengine, "sync");  /* from its own description line */
    assert_int_equal(pct_of(fior_report_job(r, 0), 99.0), 627000);
    assert_int_equal(pct_of(fior_report_job(r, 1), 99.0), 603000);
    fior_report_free(r);
    r = parse_ok(FX("fio-3.33-two-jobs.json"));
    assert_int_equal(fior_report_njobs(r), 2);
    assert_int_equal(fior_report_job(r, 1)->samples, 227);
    fior_report_free(r);
}

static void real_untrustworthy_never_pass(void **state)
{
    (void)state;
    static const struct { const char *file; fior_verdict overall; } cases[] = {
        {FX("fio-3.33-nopct.json"), FIOR_UNKNOWN},        /* samples, no percentile */
        {FX("fio-3.33-gtod-reduce.json"), FIOR_UNKNOWN},  /* timing off */
        {FX("fio-3.33-libaio.json"), FIOR_UNKNOWN},       /* garbage sync latencies */
        {FX("fio-3.33-libaio.txt"), FIOR_UNKNOWN},
        {FX("fio-3.33-nosync.json"), FIOR_UNKNOWN},       /* nothing judged */
        {FX("hand-libaio-garbage.txt"), FIOR_UNKNOWN},
        {FX("hand-gtod-zero.txt"), FIOR_UNKNOWN},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        fior_report *r = parse_ok(cases[i].file);
        if (judge(r) != cases[i].overall)
            fail_msg("%s: expected %s", cases[i].file, fior_verdict_name(cases[i].overall));
        fior_report_free(r);
    }
    fior_report *r = parse_ok(FX("hand-libaio-garbage.txt"));
    assert_int_equal(fior_report_job(r, 0)->max_ns, 328998000000ULL);  /* "max=328998k" usec */
    fior_report_free(r);
    r = parse_ok(FX("fio-3.33-nosync.json"));
    judge(r);
    assert_int_equal(JV(0).verdict, FIOR_NOT_JUDGED);
    fior_report_free(r);
}

static void bad_inputs(void **state)
{
    (void)state;
    static const struct { const char *file; fior_status st; const char *msg; } cases[] = {
        {FX("hand-truncated-normal.txt"), FIOR_E_PARSE, "hand-truncated-normal.txt:24: expected"},
        {FX("hand-truncated.json"), FIOR_E_PARSE, "hand-truncated.json: byte 1501: expected"},
        {FX("hand-corrupt-normal.txt"), FIOR_E_PARSE, "hand-corrupt-normal.txt:14: expected"},
        {FX("real-interrupted-layout.txt"), FIOR_E_PARSE, "real-interrupted-layout.txt:13: expected a job result"},
        {TEST_FIXTURES "/fio/does-not-exist", FIOR_E_IO, "does-not-exist: cannot open"},
        {"/etc/passwd", FIOR_E_FORMAT, "/etc/passwd:1: expected fio output"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        fior_report *r = fior_report_new();
        assert_int_equal(fior_parse_file(r, SEED("fio-3.23-normal-rke.txt")), FIOR_OK);
        fior_status st = fior_parse_file(r, cases[i].file);
        if (st != cases[i].st || !strstr(fior_report_error(r), cases[i].msg))
            fail_msg("%s: status %d, message '%s'", cases[i].file, st, fior_report_error(r));
        assert_null(strchr(fior_report_error(r), '\n'));
        /* the good input read before stays, nothing of the bad one is added */
        assert_int_equal(fior_report_njobs(r), 1);
        assert_string_equal(fior_report_job(r, 0)->name, "mytest");
        fior_report_free(r);
    }
    fior_report *r = fior_report_new();
    assert_int_equal(fior_parse_buffer(r, "empty", "", 0), FIOR_E_FORMAT);
    assert_int_equal(fior_parse_buffer(r, "blank", " \n\n", 3), FIOR_E_FORMAT);
    assert_int_equal(fior_parse_buffer(r, "nojobs", "{\"fio version\": \"fio-3.33\"}\n", 27), FIOR_E_PARSE);
    assert_non_null(strstr(fior_report_error(r), "nojobs: byte 1: expected"));
    assert_int_equal(fior_parse_buffer(NULL, "x", "", 0), FIOR_E_INVAL);
    fior_report_free(r);
}

/* Every prefix of a real output either fails to parse, or judges PASS only when the p99 row made it in. */
static void every_prefix_of_real_outputs(void **state)
{
    (void)state;
    const char *files[] = {SEED("fio-3.23-normal-rke.txt"), FX("fio-3.33-json.json"),
                           FX("fio-3.33-normal-json.txt")};
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        size_t len;
        char *buf = slurp(files[f], &len);
        const char *p99 = strstr(buf, "99.00th=[");
        const char *pj = strstr(buf, "\"99.000000\"");
        size_t need = (size_t)((pj ? pj : p99) - buf);
        for (size_t n = 0; n < len; n++) {
            fior_report *r = fior_report_new();
            if (fior_parse_buffer(r, "prefix", buf, n) == FIOR_OK && judge(r) == FIOR_PASS && n < need)
                fail_msg("%s cut at %zu judged PASS", files[f], n);
            fior_report_free(r);
        }
        free(buf);
    }
}

/* Random byte damage: never a crash, never PASS with a p99 that is not below the threshold. */
static void damaged_bytes(void **state)
{
    (void)state;
    const char *files[] = {SEED("fio-3.7-normal-msec.txt"), FX("fio-3.33-nopct.json"),
                           FX("fio-3.33-status-interval.json"), SEED("etcd-perf-container.log")};
    unsigned seed = 12345;
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        size_t len;
        char *orig = slurp(files[f], &len);
        char *buf = malloc(len);
        for (int round = 0; round < 300; round++) {
            memcpy(buf, orig, len);
            for (int k = 0; k < 4; k++) {
                seed = seed * 1103515245u + 12345u;
                buf[(seed >> 8) % len] = (char)(seed >> 3);
            }
            fior_report *r = fior_report_new();
            if (fior_parse_buffer(r, "damaged", buf, len) == FIOR_OK) {
                judge(r);
                for (size_t i = 0; i < fior_report_njobs(r); i++)
                    if (JV(i).verdict == FIOR_PASS)
                        assert_true(JV(i).value_known && JV(i).value_ns < JV(i).threshold_ns);
            } else {
                assert_true(fior_report_error(r)[0] != '\0');
            }
            fior_report_free(r);
        }
        free(buf);
        free(orig);
    }
}

/* (no tj_judge here: its one static result is not for threads) */
static int thread_passes(const fior_report *r)
{
    fior_result *res = fior_judge(r, NULL);
    int pass = fior_result_verdict(res) == FIOR_PASS;
    fior_result_free(res);
    return pass;
}

static void *thread_main(void *arg)
{
    (void)arg;
    for (int i = 0; i < 20; i++) {
        fior_report *r = fior_report_new();
        if (fior_parse_file(r, SEED("fio-3.23-normal-rke.txt")) != FIOR_OK ||
            fior_parse_file(r, FX("fio-3.33-status-interval.json")) != FIOR_OK ||
            fior_report_njobs(r) != 2 || fior_report_job(r, 1)->samples != 13212 ||
            !thread_passes(r)) {
            fior_report_free(r);
            return (void *)1;
        }
        fior_report_free(r);
    }
    return NULL;
}

static void threads_one_handle_each(void **state)
{
    (void)state;
    pthread_t t[4];
    for (int i = 0; i < 4; i++)
        assert_int_equal(pthread_create(&t[i], NULL, thread_main, NULL), 0);
    for (int i = 0; i < 4; i++) {
        void *rv;
        pthread_join(t[i], &rv);
        assert_null(rv);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(seed_fio323_pass),
        cmocka_unit_test(seed_fio37_msec_fail),
        cmocka_unit_test(seed_etcdperf_unknown),
        cmocka_unit_test(real_normal),
        cmocka_unit_test(real_json_and_jsonplus),
        cmocka_unit_test(real_mixed_normal_json),
        cmocka_unit_test(real_status_interval),
        cmocka_unit_test(stream_stray_lines_and_errors),
        cmocka_unit_test(real_client_server),
        cmocka_unit_test(real_numjobs_and_several_jobs),
        cmocka_unit_test(real_untrustworthy_never_pass),
        cmocka_unit_test(stream_split_anywhere_same_result),
        cmocka_unit_test(bad_inputs),
        cmocka_unit_test(job_named_like_etcdctl),
        cmocka_unit_test(every_prefix_of_real_outputs),
        cmocka_unit_test(damaged_bytes),
        cmocka_unit_test(threads_one_handle_each),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
