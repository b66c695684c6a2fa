/* SPDX-License-Identifier: MIT */
/* test_abi.c — the pieces of libfioreport's ABI that let it grow without breaking (API 2.0): the version
 * query agrees with the header, criteria setters refuse bad values and change nothing then, a fior_result
 * owns its judgements and reasons (it outlives the report and a stream's report), the input cap, the
 * reader table behind format detection, and lower-case verdict names; 2.2's criteria (floor, caller's
 * stop, dup) and names. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "fioreport.h"
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
    assert_int_equal(FIOR_VERSION_MAJOR, 2);
    assert_int_equal(fior_version_number(), FIOR_VERSION_NUMBER);
    assert_int_equal(fior_version_number(),
                     ((unsigned)FIOR_VERSION_MAJOR << 16) | (FIOR_VERSION_MINOR << 8) | FIOR_VERSION_PATCH);
    assert_true(fior_version_number() >= 0x020000);
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
    fior_stream *s = fior_stream_new("stream");
    assert_non_null(s);
    assert_int_equal(fior_stream_feed(s, doc1, strlen(doc1)), FIOR_OK);
    fior_result *first = fior_judge(fior_stream_report(s), NULL);
    assert_int_equal(fior_result_verdict(first), FIOR_PASS);
    assert_int_equal(fior_stream_feed(s, doc2, strlen(doc2)), FIOR_OK);
    assert_int_equal(fior_stream_documents(s), 2);
    fior_result *second = fior_judge(fior_stream_report(s), NULL);
    fior_stream_free(s);
    assert_int_equal(fior_result_verdict(first), FIOR_PASS);
    assert_string_equal(fior_result_job(first, 0)->reason, "p99 2 ms < 10 ms (WAL fdatasync)");
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

/* Detection goes through the reader table: each row recognises its own format and reads it. */
static void reader_table(void **state)
{
    (void)state;
    size_t n = 0;
    const fior__reader *rd = fior__readers(&n);
    assert_true(n >= 3);
    static const struct { const char *name; fior_format fmt; const char *text; } cases[] = {
        {"json", FIOR_FMT_JSON, "{\"jobs\":[]}\n"},
        {"normal", FIOR_FMT_NORMAL, "wal: (groupid=0, jobs=1): err= 0: pid=1: Mon Jan  1 00:00:00 2024\n"},
        {"etcd-perf", FIOR_FMT_ETCD_PERF, "INFO: 99th percentile of fsync is 1000000 ns\n"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const fior__reader *r1 = fior__reader_named(cases[i].name);
        assert_non_null(r1);
        assert_true(r1 >= rd && r1 < rd + n);
        assert_int_equal(r1->format, cases[i].fmt);
        assert_true(r1->detect(cases[i].text, strlen(cases[i].text)));
        /* the first row that says yes is the one fior_parse_buffer used */
        const fior__reader *first = NULL;
        for (size_t k = 0; k < n && !first; k++)
            if (rd[k].detect(cases[i].text, strlen(cases[i].text)))
                first = &rd[k];
        assert_ptr_equal(first, r1);
        fior_report *r = fior_report_new();
        fior_parse_buffer(r, "t", cases[i].text, strlen(cases[i].text));
        if (fior_report_error(r)[0] == '\0')
            assert_int_equal(fior_report_format(r), cases[i].fmt);
        fior_report_free(r);
    }
    assert_null(fior__reader_named("no such format"));
}

/* 11.12 for streams: a document still open past the cap is dropped with FIOR_E_TOOBIG naming the bytes,
 * one under the cap is not, and the stream reads the next document (a real fio output) normally. */
static void stream_document_cap(void **state)
{
    (void)state;
    fior_stream *s = fior_stream_new("cap");
    assert_non_null(s);
    fior__stream_set_max_doc(s, 64);
    char open_doc[80];
    memset(open_doc, ' ', sizeof open_doc);
    open_doc[0] = '{';
    assert_int_equal(fior_stream_feed(s, "x\n", 2), FIOR_OK);
    assert_int_equal(fior_stream_feed(s, open_doc, 60), FIOR_OK); /* 60 bytes open: under the cap */
    assert_int_equal(fior_stream_feed(s, open_doc + 60, 10), FIOR_E_TOOBIG);
    assert_non_null(strstr(fior_stream_error(s),
                           "cap: byte 72: the JSON document starting at byte 3 is larger than the cap of 64 bytes"));
    assert_int_equal(fior_stream_documents(s), 0);
    assert_null(fior_stream_report(s));
    fior__stream_set_max_doc(s, 0);
    size_t n;
    char *fx = slurp(TEST_FIXTURES "/fio/fio-3.33-json.json", &n);
    assert_int_equal(fior_stream_feed(s, "\n", 1), FIOR_OK);
    assert_int_equal(fior_stream_feed(s, fx, n), FIOR_OK);
    assert_int_equal(fior_stream_documents(s), 1);
    assert_non_null(fior_stream_report(s));
    assert_true(fior_report_njobs(fior_stream_report(s)) >= 1);
    free(fx);
    fior_stream_free(s);
}

/* 2.2: the floor, the caller's stop, a copy of the criteria, the names of an end and of what made the syncs. */
static void api_2_2(void **state)
{
    (void)state;
    assert_true(fior_version_number() >= 0x020200);
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(version_query),
        cmocka_unit_test(api_2_2),
        cmocka_unit_test(criteria_setters),
        cmocka_unit_test(result_outlives_report),
        cmocka_unit_test(result_outlives_stream_document),
        cmocka_unit_test(verdict_names),
        cmocka_unit_test(input_cap),
        cmocka_unit_test(stream_document_cap),
        cmocka_unit_test(reader_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
