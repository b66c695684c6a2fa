/* SPDX-License-Identifier: MIT */
/* test_abi.c — the pieces of libfioreport's ABI that let it grow without breaking (4.0): the version
 * query agrees with the header; every fior_job and fior_judgement the library hands out carries its size,
 * which FIOR_HAS reads; criteria setters refuse bad values and change nothing then (the floor, the caller's
 * stop, a copy); a fior_result owns its judgements and reasons (it outlives the report and a stream's
 * report); the input cap and a stream's per-document cap; the reader table behind format detection;
 * lower-case verdict names both ways and the names of an end and of what made the syncs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "fioreport_monitor.h"
#include "internal.h"
#include "tslurp.h"

#define MS 1000000ULL
#define SEED(name) TEST_FIXTURES "/seeds/" name

static void version_query(void **state)
{
    (void)state;
    char want[32];
    snprintf(want, sizeof want, "%d.%d.%d", FIOR_VERSION_MAJOR, FIOR_VERSION_MINOR, FIOR_VERSION_PATCH);
    assert_string_equal(fior_version(), want);
    assert_string_equal(FIOR_VERSION, want);
    assert_int_equal(FIOR_VERSION_MAJOR, 4);
    assert_int_equal(fior_version_number(), FIOR_VERSION_NUMBER);
    assert_int_equal(fior_version_number(),
                     ((unsigned)FIOR_VERSION_MAJOR << 16) | (FIOR_VERSION_MINOR << 8) | FIOR_VERSION_PATCH);
    assert_true(fior_version_number() >= 0x040000);
}

static void criteria_setters(void **state)
{
    (void)state;
    fior_criteria *c = fior_criteria_new();
    assert_non_null(c);
    /* defaults */
    assert_true(fior_criteria_percentile(c) == 99.0);
    assert_int_equal(fior_criteria_threshold(c, FIOR_ROLE_WAL), 10 * MS);
    assert_int_equal(fior_criteria_threshold(c, FIOR_ROLE_BACKEND), 25 * MS);
    assert_int_equal(fior_criteria_min_samples(c), 100);
    /* NULL reads as the defaults */
    assert_true(fior_criteria_percentile(NULL) == 99.0);
    assert_int_equal(fior_criteria_threshold(NULL, FIOR_ROLE_BACKEND), 25 * MS);
    assert_int_equal(fior_criteria_min_samples(NULL), 100);

    /* bad values: FIOR_E_INVAL and nothing changes */
    const double bad_pct[] = {0.0, 100.0, -1.0, 100.5, 0.0 / 0.0, 1.0 / 0.0, -1.0 / 0.0};
    for (size_t i = 0; i < sizeof bad_pct / sizeof bad_pct[0]; i++) {
        assert_int_equal(fior_criteria_set_percentile(c, bad_pct[i]), FIOR_E_INVAL);
        assert_true(fior_criteria_percentile(c) == 99.0);
    }
    assert_int_equal(fior_criteria_set_threshold(c, FIOR_ROLE_WAL, 0), FIOR_E_INVAL);
    assert_int_equal(fior_criteria_set_threshold(c, (fior_role)2, 5 * MS), FIOR_E_INVAL);
    assert_int_equal(fior_criteria_set_threshold(c, (fior_role)-1, 5 * MS), FIOR_E_INVAL);
    assert_int_equal(fior_criteria_threshold(c, FIOR_ROLE_WAL), 10 * MS);
    assert_int_equal(fior_criteria_threshold(c, FIOR_ROLE_BACKEND), 25 * MS);
    assert_int_equal(fior_criteria_threshold(c, (fior_role)7), 10 * MS);  /* unknown role: the WAL's */
    assert_int_equal(fior_criteria_set_percentile(NULL, 50), FIOR_E_INVAL);
    assert_int_equal(fior_criteria_set_threshold(NULL, FIOR_ROLE_WAL, 1), FIOR_E_INVAL);
    assert_int_equal(fior_criteria_set_min_samples(NULL, 1), FIOR_E_INVAL);

    /* good values stick, each independently */
    assert_int_equal(fior_criteria_set_percentile(c, 99.9), FIOR_OK);
    assert_int_equal(fior_criteria_set_threshold(c, FIOR_ROLE_BACKEND, 30 * MS), FIOR_OK);
    assert_int_equal(fior_criteria_set_min_samples(c, 7), FIOR_OK);
    assert_true(fior_criteria_percentile(c) == 99.9);
    assert_int_equal(fior_criteria_threshold(c, FIOR_ROLE_WAL), 10 * MS);
    assert_int_equal(fior_criteria_threshold(c, FIOR_ROLE_BACKEND), 30 * MS);
    assert_int_equal(fior_criteria_min_samples(c), 7);
    fior_criteria_free(c);
    fior_criteria_free(NULL);
}

/* The result copies what it needs: reasons stay readable after the report (and the criteria) are gone. */
static void result_outlives_report(void **state)
{
    (void)state;
    fior_report *r = fior_report_new();
    assert_int_equal(fior_parse_file(r, SEED("fio-3.7-normal-msec.txt")), FIOR_OK);
    fior_criteria *c = fior_criteria_new();
    fior_result *res = fior_judge(r, c);
    assert_non_null(res);
    size_t n = fior_report_njobs(r);
    assert_int_equal(fior_result_count(res), n);
    fior_criteria_free(c);
    fior_report_free(r);
    assert_int_equal(fior_result_verdict(res), FIOR_FAIL);
    const fior_judgement *j = fior_result_job(res, 0);
    assert_non_null(j);
    assert_int_equal(j->verdict, FIOR_FAIL);
    assert_int_equal(j->threshold_ns, 10 * MS);
    assert_string_equal(j->reason, "p99 159 ms >= 10 ms (WAL fdatasync)");
    assert_null(fior_result_job(res, n));
    assert_ptr_equal(fior_result_job(res, 0), j);  /* stable while the result lives */
    fior_result_free(res);
    fior_result_free(NULL);
    assert_int_equal(fior_result_verdict(NULL), FIOR_UNKNOWN);
    assert_int_equal(fior_result_count(NULL), 0);
    assert_null(fior_result_job(NULL, 0));
}

/* A stream's report dies at the next complete document; a result judged from it does not. */
static void result_outlives_stream_document(void **state)
{
    (void)state;
    /* two status documents of one fio run: the same job, a later timestamp, the same fio start, more syncs */
    static const char doc1[] = "{\"fio version\":\"fio-3.33\",\"timestamp_ms\":5000,\"jobs\":[{\"jobname\":\"a\",\"groupid\":0,\"elapsed\":1,"
                               "\"error\":0,\"sync\":{\"lat_ns\":{\"N\":500,\"min\":1,\"max\":3000000,"
                               "\"mean\":1000,\"percentile\":{\"99.000000\":2000000}}}}]}\n";
    static const char doc2[] = "{\"fio version\":\"fio-3.33\",\"timestamp_ms\":6000,\"jobs\":[{\"jobname\":\"a\",\"groupid\":0,\"elapsed\":2,"
                               "\"error\":0,\"sync\":{\"lat_ns\":{\"N\":900,\"min\":1,\"max\":90000000,"
                               "\"mean\":1000,\"percentile\":{\"99.000000\":50000000}}}}]}\n";
    fior_json_stream *s = fior_json_stream_new("stream");
    assert_non_null(s);
    assert_int_equal(fior_json_stream_feed(s, doc1, strlen(doc1)), FIOR_OK);
    fior_result *first = fior_judge(fior_json_stream_report(s), NULL);
    assert_int_equal(fior_result_verdict(first), FIOR_PASS);
    assert_int_equal(fior_json_stream_feed(s, doc2, strlen(doc2)), FIOR_OK);
    assert_int_equal(fior_json_stream_documents(s), 2);
    fior_result *second = fior_judge(fior_json_stream_report(s), NULL);
    fior_json_stream_free(s);
    assert_int_equal(fior_result_verdict(first), FIOR_PASS);
    assert_string_equal(fior_result_job(first, 0)->reason, "p99 2 ms < 10 ms (WAL fdatasync); a disk inferred, not shown");
    assert_int_equal(fior_result_verdict(second), FIOR_FAIL);
    assert_string_equal(fior_result_job(second, 0)->reason, "p99 50 ms >= 10 ms (WAL fdatasync)");
    fior_result_free(first);
    fior_result_free(second);
}

static void verdict_names(void **state)
{
    (void)state;
    assert_string_equal(fior_verdict_name(FIOR_PASS), "pass");
    assert_string_equal(fior_verdict_name(FIOR_FAIL), "fail");
    assert_string_equal(fior_verdict_name(FIOR_UNKNOWN), "unknown");
    assert_string_equal(fior_verdict_name(FIOR_NOT_JUDGED), "not judged");
    assert_string_equal(fior_verdict_name((fior_verdict)42), "unknown");  /* enums may grow */
    assert_string_equal(fior_strstatus(FIOR_E_TOOBIG), "input larger than the cap");
    assert_string_equal(fior_strstatus((fior_status)99), "unknown status");
}

static void input_cap(void **state)
{
    (void)state;
    fior_report *r = fior_report_new();
    assert_int_equal(fior_report_max_input(r), FIOR_MAX_INPUT_DEFAULT);
    assert_int_equal(FIOR_MAX_INPUT_DEFAULT, 1ULL << 30);
    assert_int_equal(fior_report_set_max_input(r, 0), FIOR_E_INVAL);
    assert_int_equal(fior_report_max_input(r), FIOR_MAX_INPUT_DEFAULT);
    assert_int_equal(fior_report_set_max_input(NULL, 5), FIOR_E_INVAL);

    /* /dev/zero never ends: stopped at byte cap + 1, the file and the byte named */
    assert_int_equal(fior_report_set_max_input(r, 100000), FIOR_OK);
    assert_int_equal(fior_parse_file(r, "/dev/zero"), FIOR_E_TOOBIG);
    assert_string_equal(fior_report_error(r), "/dev/zero: byte 100001: input larger than the cap of 100000 bytes");
    assert_int_equal(fior_report_njobs(r), 0);

    /* a regular file: refused from its size; exactly at the cap it is read */
    const char *seed = SEED("fio-3.7-normal-msec.txt");
    FILE *f = fopen(seed, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fclose(f);
    assert_true(size > 100);
    assert_int_equal(fior_report_set_max_input(r, (uint64_t)size - 1), FIOR_OK);
    assert_int_equal(fior_parse_file(r, seed), FIOR_E_TOOBIG);
    char want[512];
    snprintf(want, sizeof want, "%s: byte %ld: input larger than the cap of %ld bytes", seed, size, size - 1);
    assert_string_equal(fior_report_error(r), want);
    assert_int_equal(fior_report_njobs(r), 0);
    assert_int_equal(fior_report_set_max_input(r, (uint64_t)size), FIOR_OK);
    assert_int_equal(fior_parse_file(r, seed), FIOR_OK);
    assert_string_equal(fior_report_error(r), "");
    assert_int_equal(fior_report_njobs(r), 1);

    /* a pipe (size unknown up front) is cut at the cap too */
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    static char chunk[4096];
    memset(chunk, ' ', sizeof chunk);
    for (int i = 0; i < 4; i++)
        assert_int_equal(write(fds[1], chunk, sizeof chunk), (ssize_t)sizeof chunk);
    close(fds[1]);
    char path[64];
    snprintf(path, sizeof path, "/dev/fd/%d", fds[0]);
    assert_int_equal(fior_report_set_max_input(r, 5000), FIOR_OK);
    assert_int_equal(fior_parse_file(r, path), FIOR_E_TOOBIG);
    assert_non_null(strstr(fior_report_error(r), ": byte 5001: input larger than the cap of 5000 bytes"));
    close(fds[0]);
    assert_int_equal(fior_report_njobs(r), 1);  /* the earlier input's job stays */
    fior_report_free(r);
}

/* Detection goes through the reader table: its rows in detection order (etcdctl's output before JSON, since
 * etcdctl's own log lines are JSON objects), each found by its name, each recognising a real input of its
 * format first, and fior_parse_buffer reading that input with that row: its status, its format, its jobs. */
static void reader_table(void **state)
{
    (void)state;
    size_t n = 0;
    const fior__reader *rd = fior__readers(&n);
    static const struct { const char *name; fior_format fmt; } rows[] = {
        {"check-perf", FIOR_FMT_CHECK_PERF}, {"prometheus", FIOR_FMT_PROM}, {"etcdctl-noise", FIOR_FMT_UNKNOWN},
        {"json", FIOR_FMT_JSON},             {"normal", FIOR_FMT_NORMAL},   {"etcd-perf", FIOR_FMT_ETCD_PERF},
    };
    assert_int_equal(n, sizeof rows / sizeof rows[0]);
    for (size_t i = 0; i < n; i++) {
        assert_string_equal(rd[i].name, rows[i].name);
        assert_int_equal(rd[i].format, rows[i].fmt);
        assert_non_null(rd[i].detect);
        assert_non_null(rd[i].parse);
        assert_ptr_equal(fior__reader_named(rows[i].name), &rd[i]);
    }
    /* one real input per row and the jobs read from it (check perf: its one verdict; a scrape: WAL fsync and
     * backend commit; fio 3.33's classic job: one job; the etcd-perf log: its two runs); etcdctl's other
     * output is refused, naming what it is */
    static const struct {
        const char *file, *name;
        fior_status st;
        fior_format fmt;
        int njobs;
    } cases[] = {
        {"/etcd-metrics/hand-check-perf-pass.txt", "check-perf", FIOR_OK, FIOR_FMT_CHECK_PERF, 1},
        {"/etcd-metrics/etcd-3.4.23-after-puts.prom", "prometheus", FIOR_OK, FIOR_FMT_PROM, 2},
        {NULL, "etcdctl-noise", FIOR_E_FORMAT, FIOR_FMT_UNKNOWN, 0},
        {"/fio/fio-3.33-json.json", "json", FIOR_OK, FIOR_FMT_JSON, 1},
        {"/fio/fio-3.33-normal.txt", "normal", FIOR_OK, FIOR_FMT_NORMAL, 1},
        {"/seeds/etcd-perf-container.log", "etcd-perf", FIOR_OK, FIOR_FMT_ETCD_PERF, 2},
    };
    static const char status_table[] = "+------------------+------------------+---------+---------+-----------+\n"
                                       "|     ENDPOINT     |        ID        | VERSION | DB SIZE | IS LEADER |\n"
                                       "+------------------+------------------+---------+---------+-----------+\n"
                                       "| 127.0.0.1:2379   | 8e9e05c52164694d |  3.4.23 |   20 kB |      true |\n";
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t len = 0;
        char *text = NULL;
        char path[512];
        if (cases[i].file) {
            snprintf(path, sizeof path, "%s%s", TEST_FIXTURES, cases[i].file);
            text = slurp(path, &len);
        } else {
            len = strlen(status_table);
            text = strdup(status_table);
            assert_non_null(text);
        }
        const fior__reader *row = fior__reader_named(cases[i].name), *first = NULL;
        assert_non_null(row);
        for (size_t k = 0; k < n && !first; k++) /* the first row that says yes reads the input */
            if (rd[k].detect(text, len))
                first = &rd[k];
        assert_ptr_equal(first, row);
        fior_report *r = fior_report_new();
        assert_int_equal(fior_parse_buffer(r, "t", text, len), cases[i].st);
        assert_int_equal(fior_report_njobs(r), cases[i].njobs);
        if (cases[i].st == FIOR_OK) {
            assert_string_equal(fior_report_error(r), "");
            assert_int_equal(fior_report_format(r), cases[i].fmt);
        } else {
            assert_non_null(strstr(fior_report_error(r), "t:2: this is `etcdctl endpoint status` output"));
        }
        fior_report_free(r);
        free(text);
    }
    assert_null(fior__reader_named("no such format"));
}

/* The input cap, for streams: a document still open past the cap is dropped with FIOR_E_TOOBIG naming its byte
 * cap + 1, one under the cap is not, and the stream reads the next document (a real fio output) normally. */
static void stream_document_cap(void **state)
{
    (void)state;
    fior_json_stream *s = fior_json_stream_new("cap");
    assert_non_null(s);
    assert_int_equal(fior_json_stream_max_document(s), FIOR_MAX_INPUT_DEFAULT);
    assert_int_equal(fior_json_stream_set_max_document(s, 0), FIOR_E_INVAL);
    assert_int_equal(fior_json_stream_max_document(s), FIOR_MAX_INPUT_DEFAULT);
    assert_int_equal(fior_json_stream_set_max_document(NULL, 64), FIOR_E_INVAL);
    assert_int_equal(fior_json_stream_max_document(NULL), 0);
    assert_int_equal(fior_json_stream_set_max_document(s, 64), FIOR_OK);
    assert_int_equal(fior_json_stream_max_document(s), 64);
    char open_doc[80];
    memset(open_doc, ' ', sizeof open_doc);
    open_doc[0] = '{';
    assert_int_equal(fior_json_stream_feed(s, "x\n", 2), FIOR_OK);
    assert_int_equal(fior_json_stream_feed(s, open_doc, 60), FIOR_OK); /* 60 bytes open: under the cap */
    assert_int_equal(fior_json_stream_feed(s, open_doc + 60, 10), FIOR_E_TOOBIG);
    assert_non_null(strstr(fior_json_stream_error(s),
                           "cap: byte 67: the JSON document starting at byte 3 is larger than the cap of 64 bytes"));
    assert_int_equal(fior_json_stream_documents(s), 0);
    assert_null(fior_json_stream_report(s));
    assert_int_equal(fior_json_stream_set_max_document(s, FIOR_MAX_INPUT_DEFAULT), FIOR_OK);
    size_t n;
    char *fx = slurp(TEST_FIXTURES "/fio/fio-3.33-json.json", &n);
    assert_int_equal(fior_json_stream_feed(s, "\n", 1), FIOR_OK);
    assert_int_equal(fior_json_stream_feed(s, fx, n), FIOR_OK);
    assert_int_equal(fior_json_stream_documents(s), 1);
    assert_non_null(fior_json_stream_report(s));
    assert_true(fior_report_njobs(fior_json_stream_report(s)) >= 1);
    free(fx);
    fior_json_stream_free(s);
}

/* The floor, the caller's stop, a copy of the criteria, the names of an end and of what made the syncs. */
static void criteria_more_and_names(void **state)
{
    (void)state;
    fior_criteria *c = fior_criteria_new();
    assert_int_equal(fior_criteria_floor(c), FIOR_FLOOR_DEFAULT_NS);
    assert_int_equal(fior_criteria_caller_stop(c), 0);
    assert_int_equal(fior_criteria_caller_stop(NULL), 0);
    assert_int_equal(fior_criteria_set_floor(NULL, 1), FIOR_E_INVAL);
    assert_int_equal(fior_criteria_set_caller_stop(NULL, 2), FIOR_E_INVAL);
    assert_int_equal(fior_criteria_set_caller_stop(c, -2), FIOR_E_INVAL);
    assert_int_equal(fior_criteria_caller_stop(c), 0);
    assert_int_equal(fior_criteria_set_floor(c, 123), FIOR_OK);
    assert_int_equal(fior_criteria_set_caller_stop(c, 2), FIOR_OK);
    assert_int_equal(fior_criteria_set_min_samples(c, 7), FIOR_OK);
    fior_criteria *d = fior_criteria_dup(c);
    assert_non_null(d);
    assert_int_equal(fior_criteria_floor(d), 123);
    assert_int_equal(fior_criteria_caller_stop(d), 2);
    assert_int_equal(fior_criteria_min_samples(d), 7);
    assert_int_equal(fior_criteria_set_floor(d, 0), FIOR_OK); /* the copy is its own */
    assert_int_equal(fior_criteria_floor(c), 123);
    fior_criteria_free(d);
    d = fior_criteria_dup(NULL);
    assert_int_equal(fior_criteria_floor(d), FIOR_FLOOR_DEFAULT_NS);
    assert_int_equal(fior_criteria_min_samples(d), 100);
    fior_criteria_free(d);
    fior_criteria_free(c);
    static const char *const ends[] = {"unknown", "proven", "inferred", "stopped", "died", "cut"};
    for (int e = 0; e < 6; e++)
        assert_string_equal(fior_end_name((fior_end)e), ends[e]);
    assert_string_equal(fior_end_name((fior_end)77), "unknown");
    char b[64];
    assert_string_equal(fior_sync_flags_name(b, sizeof b, 0), "fsync/fdatasync");
    assert_string_equal(fior_sync_flags_name(b, sizeof b, FIOR_SYNC_OPTIONS), "none");
    assert_string_equal(fior_sync_flags_name(b, sizeof b, FIOR_SYNC_OPTIONS | FIOR_SYNC_FSYNC | FIOR_SYNC_FDATASYNC),
                        "fsync and fdatasync");
    assert_string_equal(fior_sync_flags_name(b, sizeof b, FIOR_SYNC_RANGE), "sync_file_range");
    assert_string_equal(fior_sync_flags_name(b, sizeof b, FIOR_SYNC_OPTIONS | FIOR_SYNC_FDATASYNC | FIOR_SYNC_O_DSYNC),
                        "fdatasync after O_DSYNC writes");
    assert_string_equal(fior_sync_flags_name(b, 4, FIOR_SYNC_OPTIONS | FIOR_SYNC_FSYNC), "fsy");
    assert_null(fior_sync_flags_name(NULL, 0, 0));
}

/* Every job and judgement of r carries the size of the library's structs; FIOR_HAS finds its last field. */
static size_t sizes_ok(const fior_report *r)
{
    fior_result *res = fior_judge(r, NULL);
    assert_non_null(res);
    size_t n = fior_report_njobs(r);
    for (size_t i = 0; i < n; i++) {
        const fior_job *j = fior_report_job(r, i);
        const fior_judgement *jd = fior_result_job(res, i);
        assert_int_equal(j->size, FIOR__JOB_PUBLIC_SIZE); /* the private fields after it are no program's */
        assert_true(FIOR_HAS(j, fior_job, runtime_goal_ms));
        assert_int_equal(jd->size, sizeof(fior_judgement));
        assert_true(FIOR_HAS(jd, fior_judgement, reason));
    }
    fior_result_free(res);
    return n;
}

/* Every reader (normal, JSON, json+, mixed, client/server, etcd-perf, a scrape window, etcdctl check perf),
 * a stream's report and a monitored run's judgement: the size is set on each. */
static void sizes_of_what_the_library_hands_out(void **state)
{
    (void)state;
    static const char *const files[] = {
        SEED("fio-3.7-normal-msec.txt"), TEST_FIXTURES "/fio/fio-3.33-json.json",
        TEST_FIXTURES "/fio/fio-3.33-jsonplus.json", TEST_FIXTURES "/fio/fio-3.33-normal-json.txt",
        TEST_FIXTURES "/fio/fio-3.33-client.json", TEST_FIXTURES "/fio/fio-3.33-status-interval.txt",
        TEST_FIXTURES "/fio/fio-3.33-etcdperf-container.log", TEST_FIXTURES "/etcd-metrics/hand-check-perf-pass.txt",
    };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        fior_report *r = fior_report_new();
        assert_int_equal(fior_parse_file(r, files[i]), FIOR_OK);
        assert_true(sizes_ok(r) > 0);
        fior_report_free(r);
    }
    fior_report *r = fior_report_new(); /* two scrapes: their window is a job the library makes itself */
    assert_int_equal(fior_parse_file(r, TEST_FIXTURES "/etcd-metrics/etcd-3.4.23-start.prom"), FIOR_OK);
    assert_int_equal(fior_parse_file(r, TEST_FIXTURES "/etcd-metrics/etcd-3.4.23-after-puts.prom"), FIOR_OK);
    assert_int_equal(fior_report_window(r), FIOR_OK);
    assert_true(fior_report_job(r, 0)->window);
    sizes_ok(r);
    fior_report_free(r);

    size_t n;
    char *fx = slurp(TEST_FIXTURES "/fio/fio-3.33-jsonplus.json", &n);
    fior_json_stream *s = fior_json_stream_new("stream");
    assert_int_equal(fior_json_stream_feed(s, fx, n), FIOR_OK);
    assert_true(sizes_ok(fior_json_stream_report(s)) > 0);
    fior_monitor *m = fior_monitor_new(NULL);
    assert_int_equal(fior_monitor_set_roles(m, 1u << FIOR_ROLE_WAL), FIOR_OK);
    assert_int_equal(fior_monitor_feed(m, fior_json_stream_report(s), 1.0, NULL), FIOR_OK);
    fior_run_end f = {.size = sizeof f, .started = 1, .complete = 1, .duration_s = 1.0};
    fior_outcome *o = fior_monitor_end(m, fior_json_stream_report(s), &f);
    const fior_judgement *jd = fior_outcome_judgement(o, FIOR_ROLE_WAL);
    assert_non_null(jd);
    assert_int_equal(jd->size, sizeof(fior_judgement));
    fior_outcome_free(o);
    fior_monitor_free(m);
    fior_json_stream_free(s);
    free(fx);
}

/* FIOR_HAS reads the size the library set: a struct filled by an older library (a smaller size) does not
 * hold the fields after its end; NULL holds nothing. */
static void has_reads_the_size(void **state)
{
    (void)state;
    assert_int_equal(offsetof(fior_job, size), 0);
    assert_int_equal(offsetof(fior_judgement, size), 0);
    fior_job old;
    memset(&old, 0, sizeof old);
    old.size = offsetof(fior_job, end); /* as a library whose fior_job ended after `run` would set it */
    assert_true(FIOR_HAS(&old, fior_job, source));
    assert_true(FIOR_HAS(&old, fior_job, run));
    assert_false(FIOR_HAS(&old, fior_job, end));
    assert_false(FIOR_HAS(&old, fior_job, runtime_goal_ms));
    old.size = sizeof old;
    assert_true(FIOR_HAS(&old, fior_job, runtime_goal_ms));
    fior_judgement jd;
    memset(&jd, 0, sizeof jd);
    jd.size = offsetof(fior_judgement, reason);
    assert_true(FIOR_HAS(&jd, fior_judgement, threshold_ns));
    assert_false(FIOR_HAS(&jd, fior_judgement, reason));
    const fior_job *none = NULL;
    assert_false(FIOR_HAS(none, fior_job, source));
}

/* fior_verdict_from_name takes back exactly the words fior_verdict_name gives, and nothing else. */
static void verdict_names_both_ways(void **state)
{
    (void)state;
    static const fior_verdict all[] = {FIOR_PASS, FIOR_FAIL, FIOR_UNKNOWN, FIOR_NOT_JUDGED};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        fior_verdict v = (fior_verdict)99;
        assert_int_equal(fior_verdict_from_name(fior_verdict_name(all[i]), &v), FIOR_OK);
        assert_int_equal(v, all[i]);
        assert_int_equal(fior_verdict_from_name(fior_verdict_name(all[i]), NULL), FIOR_OK);
    }
    static const char *const bad[] = {"", "PASS", "Pass", " pass", "pass ", "pass\n", "passed", "not-judged",
                                      "not_judged", "not  judged", "notjudged", "ok", "2"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        fior_verdict v = FIOR_FAIL;
        assert_int_equal(fior_verdict_from_name(bad[i], &v), FIOR_E_INVAL);
        assert_int_equal(v, FIOR_FAIL); /* unchanged */
    }
    fior_verdict v = FIOR_PASS;
    assert_int_equal(fior_verdict_from_name(NULL, &v), FIOR_E_INVAL);
    assert_int_equal(v, FIOR_PASS);
}

/* Real fio documents around one over the cap, fed in pieces of every size: the same document is dropped at
 * the same byte (its cap + 1), nothing inside its rest is taken for a document, and the others are read. */
static void stream_cap_wherever_split(void **state)
{
    (void)state;
    size_t na, nb;
    char *a = slurp(TEST_FIXTURES "/fio/fio-3.33-json.json", &na);     /* one job, 7 kB */
    char *b = slurp(TEST_FIXTURES "/fio/fio-3.33-two-jobs.json", &nb); /* two jobs, 13 kB */
    size_t first_b = (size_t)(strstr(b, "\n{") - b) + 1;               /* its stray line before the document */
    size_t n = na + nb + na;
    char *in = malloc(n);
    memcpy(in, a, na);
    memcpy(in + na, b, nb);
    memcpy(in + na + nb, a, na);
    char want[160];
    snprintf(want, sizeof want, "split: byte %zu: the JSON document starting at byte %zu is larger than the cap "
             "of 8000 bytes", na + first_b + 8000 + 1, na + first_b + 1);
    static const size_t steps[] = {1, 7, 100, 4096, 1 << 20};
    for (size_t k = 0; k < sizeof steps / sizeof steps[0]; k++) {
        fior_json_stream *s = fior_json_stream_new("split");
        assert_int_equal(fior_json_stream_set_max_document(s, 8000), FIOR_OK);
        int toobig = 0;
        for (size_t off = 0; off < n; off += steps[k]) {
            fior_status st = fior_json_stream_feed(s, in + off, n - off < steps[k] ? n - off : steps[k]);
            if (st == FIOR_E_TOOBIG) {
                toobig++;
                assert_string_equal(fior_json_stream_error(s), want);
            } else {
                assert_int_equal(st, FIOR_OK); /* never a "document" from the objects inside the dropped one */
            }
        }
        assert_int_equal(toobig, 1);
        assert_int_equal(fior_json_stream_documents(s), 2);
        const fior_report *r = fior_json_stream_report(s);
        assert_int_equal(fior_report_njobs(r), 2); /* the same output twice: two runs of one job */
        assert_string_equal(fior_report_job(r, 0)->name, fior_report_job(r, 1)->name);
        fior_json_stream_free(s);
    }
    free(in);
    free(a);
    free(b);
}

/* The monitor header's end of a run: how fio ended as a caller that ran it knows it (fior_run_end, sized by
 * the caller), and a look the library allocates, sized by it, whose line it owns. */
static void run_end_and_look(void **state)
{
    (void)state;
    size_t n;
    char *fx = slurp(TEST_FIXTURES "/fio/fio-3.33-jsonplus.json", &n);
    fior_json_stream *s = fior_json_stream_new("stream");
    assert_int_equal(fior_json_stream_feed(s, fx, n), FIOR_OK);
    const fior_report *fin = fior_json_stream_report(s);
    fior_monitor *m = fior_monitor_new(NULL);
    assert_int_equal(fior_monitor_set_roles(m, 1u << FIOR_ROLE_WAL), FIOR_OK);
    assert_int_equal(fior_monitor_feed(m, fin, 1.0, NULL), FIOR_OK);
    /* a size that does not reach `complete` is refused */
    fior_run_end small = {.size = offsetof(fior_run_end, complete), .started = 1};
    assert_null(fior_monitor_end(m, fin, &small));
    assert_null(fior_monitor_end(m, fin, NULL));
    /* fio killed: never a verdict from the data, whatever the document says */
    fior_run_end killed = {.size = sizeof killed, .started = 1, .killed_by = 9, .complete = 1, .duration_s = 1.0};
    fior_outcome *o = fior_monitor_end(m, fin, &killed);
    assert_non_null(o);
    assert_int_equal(fior_outcome_verdict(o), FIOR_UNKNOWN);
    assert_string_equal(fior_outcome_status(o), "fio-failed");
    assert_non_null(strstr(fior_outcome_reason(o), "signal 9"));
    fior_outcome_free(o);
    /* the caller's own words come first */
    fior_run_end told = {.size = sizeof told, .started = 1, .complete = 1, .duration_s = 1.0,
                         .problem = "the watchdog stopped it"};
    o = fior_monitor_end(m, fin, &told);
    assert_int_equal(fior_outcome_verdict(o), FIOR_UNKNOWN);
    assert_non_null(strstr(fior_outcome_reason(o), "the watchdog stopped it"));
    fior_outcome_free(o);
    fior_monitor_free(m);

    /* one look at the final WAL job's bins */
    const fior_job *wal = NULL;
    for (size_t i = 0; i < fior_report_njobs(fin); i++)
        if (fior_report_job(fin, i)->nbins && fior_report_job(fin, i)->role == FIOR_ROLE_WAL)
            wal = fior_report_job(fin, i);
    assert_non_null(wal);
    fior_look *k = (fior_look *)&k;
    assert_int_equal(fior_look_bins(wal->bins, wal->nbins, NULL, FIOR_ROLE_WAL, 1.5, 0, &k), FIOR_E_INVAL);
    assert_null(k);
    assert_int_equal(fior_look_bins(NULL, 3, NULL, FIOR_ROLE_WAL, 0.95, 0, &k), FIOR_E_INVAL);
    assert_int_equal(fior_look_bins(wal->bins, wal->nbins, NULL, FIOR_ROLE_WAL, 0.95, 0, NULL), FIOR_E_INVAL);
    assert_int_equal(fior_look_bins(wal->bins, wal->nbins, NULL, FIOR_ROLE_WAL, 0.95, 0, &k), FIOR_OK);
    assert_non_null(k);
    assert_int_equal(k->size, sizeof(fior_look));
    assert_true(FIOR_HAS(k, fior_look, why));
    assert_non_null(k->why);
    assert_int_equal(k->samples, wal->samples);
    assert_int_equal(k->threshold_ns, 10 * MS);
    /* the line is there exactly when the basis is not BOUND */
    assert_int_equal(k->why[0] != '\0', k->basis != FIOR_BASIS_BOUND);
    fior_look_free(k);
    fior_look_free(NULL);
    fior_json_stream_free(s);
    free(fx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(version_query),
        cmocka_unit_test(criteria_more_and_names),
        cmocka_unit_test(sizes_of_what_the_library_hands_out),
        cmocka_unit_test(has_reads_the_size),
        cmocka_unit_test(verdict_names_both_ways),
        cmocka_unit_test(stream_cap_wherever_split),
        cmocka_unit_test(criteria_setters),
        cmocka_unit_test(result_outlives_report),
        cmocka_unit_test(result_outlives_stream_document),
        cmocka_unit_test(verdict_names),
        cmocka_unit_test(input_cap),
        cmocka_unit_test(stream_document_cap),
        cmocka_unit_test(reader_table),
        cmocka_unit_test(run_end_and_look),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
