/* SPDX-License-Identifier: MIT */
/* test_report_formats.c — libfioreport on inputs built here, one variation at a time: every time unit of
 * the stats line and of the percentile block (independently), value widths of 3 to 8+ digits, k/M/G
 * suffixes, any number of entries per row, the fio >= 3.42 "/syncfs" title, "<host> " prefixed
 * client/server lines, JSON edge cases (missing percentile, wrong types, stray text) and etcd-perf lines. */
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

static fior_report *parse_str(const char *text, fior_status want)
{
    fior_report *r = fior_report_new();
    assert_non_null(r);
    fior_status st = fior_parse_buffer(r, "t.txt", text, strlen(text));
    if (st != want)
        fail_msg("status %s (want %s): %s", fior_strstatus(st), fior_strstatus(want), fior_report_error(r));
    return r;
}

static uint64_t pct_of(const fior_job *j, double p)
{
    for (size_t i = 0; i < j->npct; i++)
        if (j->pct[i].percent > p - 1e-9 && j->pct[i].percent < p + 1e-9)
            return j->pct[i].ns;
    fail_msg("no p%g", p);
    return 0;
}

#define HEAD "job1: (g=0): rw=write, bs=(R) 2300B-2300B, (W) 2300B-2300B, (T) 2300B-2300B, ioengine=psync, iodepth=1\n" \
             "fio-3.28\nStarting 1 process\n" \
             "job1: (groupid=0, jobs=1): err= 0: pid=42: Tue Jan  7 17:00:52 2025\n" \
             "  write: IOPS=12.3k, BW=26.9MiB/s (28.2MB/s)(99.0MiB/3680msec); 0 zone resets\n" \
             "    clat (nsec): min=800, max=1200k, avg=2000.50, stdev=10.00\n" \
             "  fsync/fdatasync/sync_file_range:\n"

/* fio >= 3.4 counts a job's fdatasyncs in the first "short" number (see fmt_normal.c's issued_line) */
#define ISSUED(n) "     issued rwts: total=0," #n ",0,0 short=" #n ",0,0,0 dropped=0,0,0,0\n"

static void units_and_suffixes(void **state)
{
    (void)state;
    /* stats in usec with a k suffix, percentiles in nsec: fio picks each unit on its own */
    fior_report *r = parse_str(HEAD
        "    sync (usec): min=2, max=328998k, avg=1284.51, stdev=2380.34\n"
        "    sync percentiles (nsec):\n"
        "     |  1.00th=[  652],  5.00th=[  750], 99.00th=[ 9000], 99.50th=[12000]\n"
        "  cpu          : usr=0.83%, sys=15.67%\n", FIOR_OK);
    const fior_job *j = fior_report_job(r, 0);
    assert_int_equal(j->min_ns, 2000);
    assert_int_equal(j->max_ns, 328998000000ULL);
    assert_true(j->mean_ns > 1284509.9 && j->mean_ns < 1284510.1);
    assert_true(j->stddev_ns > 2380339.9 && j->stddev_ns < 2380340.1);
    assert_int_equal(pct_of(j, 99.0), 9000);
    assert_int_equal(j->pct_resolution_ns, 1);
    assert_string_equal(j->ioengine, "psync");
    assert_string_equal(j->fio_version, "fio-3.28");
    assert_true(j->write_iops > 12299 && j->write_iops < 12301);
    assert_true(j->write_bw_bytes > 26.9 * 1048576 - 1 && j->write_bw_bytes < 26.9 * 1048576 + 1);
    assert_true(j->write_clat_mean_ns > 2000.4 && j->write_clat_mean_ns < 2000.6);
    fior_report_free(r);

    /* msec stats with M and G suffixes; msec percentiles */
    r = parse_str(HEAD
        "    sync (msec): min=1.5M, max=2G, avg=27.36, stdev=31.73\n"
        "    sync percentiles (msec):\n"
        "     |  1.00th=[    3], 99.00th=[  159]\n", FIOR_OK);
    j = fior_report_job(r, 0);
    assert_int_equal(j->min_ns, 1500000ULL * 1000000ULL);
    assert_int_equal(j->max_ns, 2000000000ULL * 1000000ULL);
    assert_int_equal(pct_of(j, 99.0), 159000000);
    assert_int_equal(j->pct_resolution_ns, 1000000);
    fior_report_free(r);

    /* nsec stats, usec percentiles */
    r = parse_str(HEAD
        "    sync (nsec): min=900, max=99999, avg=5000.00, stdev=1.00\n"
        "    sync percentiles (usec):\n"
        "     | 50.00th=[    5], 99.00th=[   90]\n", FIOR_OK);
    j = fior_report_job(r, 0);
    assert_int_equal(j->max_ns, 99999);
    assert_int_equal(pct_of(j, 99.0), 90000);
    assert_int_equal(j->pct_resolution_ns, 1000);
    fior_report_free(r);

    r = parse_str(HEAD "    sync (psec): min=1, max=2, avg=1.00, stdev=0.00\n", FIOR_E_PARSE);
    assert_non_null(strstr(fior_report_error(r), "t.txt:8: expected a unit"));
    fior_report_free(r);
    r = parse_str(HEAD "    sync (usec): min=1, max=, avg=1.00, stdev=0.00\n", FIOR_E_PARSE);
    assert_non_null(strstr(fior_report_error(r), "t.txt:8: expected 'max=NUMBER'"));
    fior_report_free(r);
}

/* fio pads to the widest value (5 minimum) and fits (80-7)/(precision+10+width) entries on a row */
static void widths_3_to_8_digits(void **state)
{
    (void)state;
    static const char *rows[] = {
        /* width 5, values of 3 digits, 4 per row */
        "     |  1.00th=[  652],  5.00th=[  750], 10.00th=[  816], 20.00th=[  914],\n"
        "     | 99.00th=[  999], 99.50th=[  999]\n",
        /* width 8 (12000000 nsec), 3 per row */
        "     |  1.00th=[     652],  5.00th=[    7500], 10.00th=[   81600],\n"
        "     | 20.00th=[  914000], 50.00th=[ 1000000], 99.00th=[12000000],\n"
        "     | 99.90th=[99999999]\n",
        /* no padding at all, one entry per row, wider than 8 */
        "     |1.00th=[652]\n     |99.00th=[123456789012]\n",
    };
    static const uint64_t p99[] = {999, 12000000, 123456789012ULL};
    static const size_t npct[] = {6, 7, 2};
    for (size_t i = 0; i < 3; i++) {
        char buf[2048];
        snprintf(buf, sizeof buf, "%s    sync (nsec): min=652, max=9999, avg=1.00, stdev=1.00\n"
                 "    sync percentiles (nsec):\n%s  cpu          : usr=0.83%%\n", HEAD, rows[i]);
        fior_report *r = parse_str(buf, FIOR_OK);
        const fior_job *j = fior_report_job(r, 0);
        assert_int_equal(j->npct, npct[i]);
        assert_int_equal(pct_of(j, 99.0), p99[i]);
        assert_int_equal(pct_of(j, 1.0), 652);
        fior_report_free(r);
    }
    /* a 5-digit value must not be read as a 4-digit one (the fixed-column bug) */
    fior_report *r = parse_str(HEAD "    sync (usec): min=500, max=99999, avg=3000.00, stdev=1.00\n"
                               "    sync percentiles (usec):\n     | 99.00th=[12345], 99.50th=[23456]\n"
                               ISSUED(500), FIOR_OK);
    assert_int_equal(pct_of(fior_report_job(r, 0), 99.0), 12345000);
    assert_int_equal(tj_judge(r, NULL), FIOR_FAIL);
    fior_report_free(r);
}

static void syncfs_title_and_host_prefix(void **state)
{
    (void)state;
    fior_report *r = parse_str(
        "fio-3.42\n"
        "job1: (groupid=3, jobs=2): err= 0: pid=7: Tue Jan  7 17:00:52 2025\n"
        "  fsync/fdatasync/sync_file_range/syncfs:\n"
        "    sync (usec): min=500, max=900, avg=600.00, stdev=1.00\n"
        "    sync percentiles (usec):\n     | 99.00th=[  800]\n" ISSUED(300), FIOR_OK);
    const fior_job *j = fior_report_job(r, 0);
    assert_int_equal(j->group, 3);
    assert_true(j->samples_known);
    assert_int_equal(j->samples, 300);
    assert_int_equal(pct_of(j, 99.0), 800000);
    assert_null(j->host);
    assert_int_equal(j->port, -1);
    fior_report_free(r);

    /* client/server: every line "<host> " prefixed, two hosts */
    r = parse_str(
        "<node-a> fio-3.23\n"
        "<node-a> etcd: (groupid=0, jobs=1): err= 0: pid=11: Tue Jan  7 17:00:52 2025\n"
        "<node-a>   fsync/fdatasync/sync_file_range:\n"
        "<node-a>     sync (usec): min=500, max=900, avg=600.00, stdev=1.00\n"
        "<node-a>     sync percentiles (usec):\n"
        "<node-a>      | 98.00th=[  700], 99.00th=[  800],\n"
        "<node-a>      | 99.50th=[  850]\n"
        "<node-a> " ISSUED(101)
        "<node-b> etcd: (groupid=0, jobs=1): err= 0: pid=11: Tue Jan  7 17:00:52 2025\n"
        "<node-b>   fsync/fdatasync/sync_file_range:\n"
        "<node-b>     sync (msec): min=5, max=90, avg=60.00, stdev=1.00\n"
        "<node-b>     sync percentiles (msec):\n"
        "<node-b>      | 99.00th=[   80]\n"
        "<node-b> " ISSUED(100), FIOR_OK);
    assert_int_equal(fior_report_njobs(r), 2);
    assert_string_equal(fior_report_job(r, 0)->host, "node-a");
    assert_string_equal(fior_report_job(r, 1)->host, "node-b");
    assert_int_equal(fior_report_job(r, 0)->npct, 3);
    assert_int_equal(pct_of(fior_report_job(r, 1), 99.0), 80000000);
    assert_int_equal(tj_judge(r, NULL), FIOR_FAIL);
    assert_int_equal(JV(0).verdict, FIOR_PASS);
    assert_int_equal(JV(1).verdict, FIOR_FAIL);
    fior_report_free(r);
}

static void normal_errors_and_edge_cases(void **state)
{
    (void)state;
    /* err != 0 with fio's verror text */
    fior_report *r = parse_str("fio-3.33\njob: (groupid=0, jobs=1): err= 5 (file:io_u.c:1841, func=io_u error, "
                               "error=Input/output error): pid=1: Mon\n  fsync/fdatasync/sync_file_range:\n"
                               "    sync (usec): min=5, max=9, avg=6.00, stdev=1.00\n"
                               "    sync percentiles (usec):\n     | 99.00th=[    9]\n", FIOR_OK);
    assert_int_equal(fior_report_job(r, 0)->error, 5);
    assert_int_equal(tj_judge(r, NULL), FIOR_UNKNOWN);
    fior_report_free(r);

    /* a percentile block header with no rows (cut short) */
    r = parse_str(HEAD "    sync (usec): min=2, max=3, avg=1.00, stdev=1.00\n    sync percentiles (usec):\n",
                  FIOR_E_PARSE);
    assert_non_null(strstr(fior_report_error(r), "t.txt:9: expected percentile rows"));
    fior_report_free(r);
    /* a row ending in ',' then nothing */
    r = parse_str(HEAD "    sync (usec): min=2, max=3, avg=1.00, stdev=1.00\n    sync percentiles (usec):\n"
                  "     |  1.00th=[  652],\n", FIOR_E_PARSE);
    fior_report_free(r);
    /* sync line but no percentiles (truncated before the block): parsed, judged UNKNOWN */
    r = parse_str(HEAD "    sync (usec): min=2, max=3, avg=1.00, stdev=1.00\n", FIOR_OK);
    assert_int_equal(tj_judge(r, NULL), FIOR_UNKNOWN);
    fior_report_free(r);
    /* job without sync (its whole print): not judged, so nothing judged overall */
    r = parse_str("job: (groupid=0, jobs=1): err= 0: pid=1: Mon\n  write: IOPS=5, BW=5KiB/s\n"
                  "  cpu          : usr=0.86%, sys=23.31%, ctx=29954, majf=0, minf=14\n"
                  "     issued rwts: total=0,10,0,0 short=0,0,0,0 dropped=0,0,0,0\n", FIOR_OK);
    assert_int_equal(tj_judge(r, NULL), FIOR_UNKNOWN);
    assert_int_equal(JV(0).verdict, FIOR_NOT_JUDGED);
    fior_report_free(r);
    /* the same print cut after its write line: its syncs may be in what was cut away */
    r = parse_str("job: (groupid=0, jobs=1): err= 0: pid=1: Mon\n  write: IOPS=5, BW=5KiB/s\n", FIOR_OK);
    assert_int_equal(tj_judge(r, NULL), FIOR_UNKNOWN);
    assert_int_equal(JV(0).verdict, FIOR_UNKNOWN);
    assert_non_null(strstr(JV(0).reason, "the input ends inside this job's figures"));
    fior_report_free(r);
    /* header without groupid number */
    r = parse_str("job: (groupid=x, jobs=1): err= 0: pid=1\n", FIOR_E_PARSE);
    assert_non_null(strstr(fior_report_error(r), "t.txt:1: expected 'groupid=N'"));
    fior_report_free(r);
    /* the same job (same name and pid) printed again with nothing that proves it continues the first print
     * (no print time, no runtime): two runs, both judged — never the second replacing the first */
    r = parse_str("job: (groupid=0, jobs=1): err= 0: pid=9: Mon\n  fsync/fdatasync/sync_file_range:\n"
                  "    sync (msec): min=50, max=90, avg=60.00, stdev=1.00\n"
                  "    sync percentiles (msec):\n     | 99.00th=[   80]\n"
                  "job: (groupid=0, jobs=1): err= 0: pid=9: Mon\n  fsync/fdatasync/sync_file_range:\n"
                  "    sync (usec): min=50, max=90, avg=60.00, stdev=1.00\n"
                  "    sync percentiles (usec):\n     | 99.00th=[   80]\n", FIOR_OK);
    assert_int_equal(fior_report_njobs(r), 2);
    assert_int_equal(pct_of(fior_report_job(r, 0), 99.0), 80000000);
    assert_int_equal(fior_report_job(r, 1)->run, fior_report_job(r, 0)->run + 1);
    fior_report_free(r);
    /* a status print that continues the first (its run started at the same second: print time less
     * runtime; counts grow) replaces it; the same print with a count that falls is another run */
#define SPRINT(T, RT, N) "job: (groupid=0, jobs=1): err= 0: pid=9: Wed Dec  2 12:55:" T " 2026\n" \
    "  write: IOPS=5, BW=5KiB/s (5kB/s)(449KiB/" RT "msec); 0 zone resets\n" \
    "  fsync/fdatasync/sync_file_range:\n    sync (usec): min=50, max=90, avg=60.00, stdev=1.00\n" \
    "    sync percentiles (usec):\n     | 99.00th=[   80]\n" \
    "     issued rwts: total=0," N ",0,0 short=" N ",0,0,0 dropped=0,0,0,0\n\nRun status group 0 (all jobs):\n"
    r = parse_str(SPRINT("20", "1000", "300") SPRINT("22", "3010", "900"), FIOR_OK);
    assert_int_equal(fior_report_njobs(r), 1);
    fior_report_free(r);
    r = parse_str(SPRINT("20", "1000", "300") SPRINT("22", "3010", "200"), FIOR_OK);
    assert_int_equal(fior_report_njobs(r), 2);
    fior_report_free(r);
    r = parse_str(SPRINT("20", "1000", "300") SPRINT("29", "3010", "900"), FIOR_OK); /* started 5 s later */
    assert_int_equal(fior_report_njobs(r), 2);
    fior_report_free(r);
#undef SPRINT
    /* CRLF line ends */
    r = parse_str("job: (groupid=0, jobs=1): err= 0: pid=1: Mon\r\n  fsync/fdatasync/sync_file_range:\r\n"
                  "    sync (usec): min=50, max=90, avg=60.00, stdev=1.00\r\n"
                  "    sync percentiles (usec):\r\n     | 99.00th=[   80]\r\n", FIOR_OK);
    assert_int_equal(pct_of(fior_report_job(r, 0), 99.0), 80000);
    fior_report_free(r);
}

#define JDOC(sync) "{\n \"fio version\": \"fio-3.36\",\n \"global options\": {\"ioengine\": \"libetcdwal\", " \
                   "\"etcd_mode\": \"backend\"},\n \"jobs\": [{\"jobname\": \"b\", \"groupid\": 1, \"error\": 0,\n" \
                   " \"job options\": {\"fdatasync\": \"1\"}, \"sync\": {\"total_ios\": 0, \"lat_ns\": " sync "}}]\n}\n"

static void json_cases(void **state)
{
    (void)state;
    fior_report *r = parse_str(JDOC("{\"min\": 1000, \"max\": 30000000, \"mean\": 5000.5, \"stddev\": 2.5, "
                                    "\"N\": 500, \"percentile\": {\"99.500000\": 24000000, \"1.000000\": 1200, "
                                    "\"99.000000\": 20000000}}"), FIOR_OK);
    const fior_job *j = fior_report_job(r, 0);
    assert_string_equal(j->ioengine, "libetcdwal");  /* global options apply to every job */
    assert_string_equal(j->etcd_mode, "backend");
    assert_int_equal(j->role, FIOR_ROLE_BACKEND);
    assert_string_equal(j->fio_version, "fio-3.36");
    assert_int_equal(j->group, 1);
    assert_int_equal(j->npct, 3);
    assert_true(j->pct[0].percent < j->pct[1].percent && j->pct[1].percent < j->pct[2].percent);
    assert_int_equal(pct_of(j, 99.0), 20000000);
    assert_int_equal(tj_judge(r, NULL), FIOR_PASS);  /* 20 ms < 25 ms for backend */
    assert_string_equal(JV(0).reason, "p99 20 ms < 25 ms (backend commit); a disk inferred, not shown");
    fior_report_free(r);

    /* samples but no percentile (what jq read as null): UNKNOWN, never PASS */
    r = parse_str(JDOC("{\"min\": 1000, \"max\": 3000, \"mean\": 2000.0, \"stddev\": 2.5, \"N\": 500}"), FIOR_OK);
    assert_int_equal(tj_judge(r, NULL), FIOR_UNKNOWN);
    assert_false(JV(0).value_known);
    fior_report_free(r);

    /* wrong types are errors naming the byte of the document and the path */
    const char *badn = JDOC("{\"N\": \"500\"}");
    char want[64];
    snprintf(want, sizeof want, "t.txt: byte %d: expected a sample count", (int)(strstr(badn, "\"500\"") - badn) + 2);
    r = parse_str(badn, FIOR_E_PARSE);
    assert_non_null(strstr(fior_report_error(r), want)); /* the byte of the value itself */
    assert_non_null(strstr(fior_report_error(r), "jobs[0].sync.lat_ns"));
    fior_report_free(r);
    r = parse_str(JDOC("{\"N\": 5, \"percentile\": {\"99.000000\": -1}}"), FIOR_E_PARSE);
    fior_report_free(r);
    r = parse_str(JDOC("{\"N\": 5, \"percentile\": {\"ninety\": 1}}"), FIOR_E_PARSE);
    fior_report_free(r);

    /* fdatasync=1 but no sync latency: nothing to judge for a job that wrote nothing, UNKNOWN for one that wrote */
    r = parse_str(JDOC("{\"N\": 0}"), FIOR_OK);
    assert_int_equal(tj_judge(r, NULL), FIOR_UNKNOWN);
    assert_int_equal(JV(0).verdict, FIOR_NOT_JUDGED);
    fior_report_free(r);
    r = parse_str("{\"jobs\": [{\"jobname\": \"w\", \"error\": 0, \"job options\": {\"fdatasync\": \"1\"},\n"
                  " \"write\": {\"total_ios\": 455}, \"sync\": {\"lat_ns\": {\"N\": 0}}}]}\n", FIOR_OK);
    assert_int_equal(tj_judge(r, NULL), FIOR_UNKNOWN);
    assert_int_equal(JV(0).verdict, FIOR_UNKNOWN);
    fior_report_free(r);

    /* stray text around and between documents; without timestamps nothing shows that the two documents
     * are one run's status and final report, so each is a run of its own and both are judged */
    char buf[4096];
    snprintf(buf, sizeof buf, "fio: some warning\n%sJobs: 1 (f=1)\n%s", JDOC("{\"N\": 0}"),
             JDOC("{\"N\": 200, \"max\": 9, \"percentile\": {\"99.000000\": 9000000}}"));
    r = parse_str(buf, FIOR_OK);
    assert_int_equal(fior_report_njobs(r), 2);
    assert_int_equal(fior_report_job(r, 0)->samples, 0);
    assert_int_equal(fior_report_job(r, 0)->run, 0);
    assert_int_equal(fior_report_job(r, 1)->samples, 200);
    assert_int_equal(fior_report_job(r, 1)->run, 1);
    assert_int_equal(fior_report_job(r, 1)->line, strstr(strstr(buf, "Jobs: 1"), "{") - buf + 1);
    fior_report_free(r);

    /* syntax error: byte offset of the error */
    r = parse_str("{\n \"jobs\": [ {\"jobname\": \"a\",, } ]\n}\n", FIOR_E_PARSE);
    assert_non_null(strstr(fior_report_error(r), "t.txt: byte "));
    fior_report_free(r);

    /* client_stats with the "All clients" aggregate (fio's client.c adds it as the last entry after two or
     * more, without job options) and no percentiles in it */
#define CLIENT(h) "{\"jobname\": \"w\", \"error\": 0, \"hostname\": \"" h "\", \"port\": 8765, \"sync\": {\"lat_ns\": " \
                  "{\"N\": 300, \"max\": 5000000, \"percentile\": {\"99.000000\": 4000000}}}},\n"
#define ALLCLIENTS "{\"jobname\": \"All clients\", \"error\": 0, \"sync\": {\"lat_ns\": {\"N\": 300, \"max\": 5000000}}}\n"
    r = parse_str("{\"client_stats\": [\n" CLIENT("h1") CLIENT("h2") ALLCLIENTS "]}\n", FIOR_OK);
    assert_int_equal(fior_report_njobs(r), 2);
    assert_string_equal(fior_report_job(r, 0)->host, "h1");
    assert_string_equal(fior_report_job(r, 1)->host, "h2");
    assert_int_equal(fior_report_job(r, 0)->port, 8765);
    assert_int_equal(tj_judge(r, NULL), FIOR_PASS);
    fior_report_free(r);
    /* after a single entry fio writes no sum: an "All clients" there is a job like any other, and judged */
    r = parse_str("{\"client_stats\": [\n" CLIENT("h1") ALLCLIENTS "]}\n", FIOR_OK);
    assert_int_equal(fior_report_njobs(r), 2);
    assert_int_equal(tj_judge(r, NULL), FIOR_UNKNOWN);
    fior_report_free(r);

    /* deep nesting is refused, not a crash */
    char deep[600];
    memset(deep, '[', sizeof deep);
    deep[0] = '{';
    memcpy(deep + 1, "\"a\":", 4);
    deep[sizeof deep - 1] = '\0';
    r = parse_str(deep, FIOR_E_PARSE);
    fior_report_free(r);
}

static void etcdperf_cases(void **state)
{
    (void)state;
    /* the log has no sample count: never a verdict on its own */
    fior_report *r = parse_str("INFO: 99th percentile of fsync is 12000000 ns\n", FIOR_OK);
    assert_int_equal(tj_judge(r, NULL), FIOR_UNKNOWN);
    assert_int_equal(pct_of(fior_report_job(r, 0), 99.0), 12000000);
    fior_report_free(r);
    /* jq's null for a missing percentile: a run that cannot be judged */
    r = parse_str("INFO: 99th percentile of fsync is null ns\n", FIOR_OK);
    assert_int_equal(tj_judge(r, NULL), FIOR_UNKNOWN);
    fior_report_free(r);
    r = parse_str("INFO: 99th percentile of fsync is 12x ns\n", FIOR_E_PARSE);
    assert_non_null(strstr(fior_report_error(r), "t.txt:1: expected 'N ns'"));
    fior_report_free(r);
    r = parse_str("hello\nworld\n", FIOR_E_FORMAT);
    fior_report_free(r);
}

static void api_misc(void **state)
{
    (void)state;
    assert_null(fior_report_job(NULL, 0));
    assert_int_equal(fior_report_njobs(NULL), 0);
    fior_report *r = fior_report_new();
    assert_null(fior_report_job(r, 0));
    assert_string_equal(fior_report_error(r), "");
    assert_int_equal(fior_report_format(r), FIOR_FMT_UNKNOWN);
    fior_report_free(r);
    fior_report_free(NULL);
    fior_json_stream_free(NULL);
    assert_int_equal(fior_json_stream_feed(NULL, "x", 1), FIOR_E_INVAL);
    assert_string_equal(fior_strstatus(FIOR_E_PARSE), "malformed or truncated input");
    char b[32];
    assert_string_equal(fior_format_ns(b, sizeof b, 2540000), "2.54 ms");
    assert_string_equal(fior_format_ns(b, sizeof b, 159000000), "159 ms");
    assert_string_equal(fior_format_ns(b, sizeof b, 10000000), "10 ms");
    assert_string_equal(fior_format_ns(b, sizeof b, 850), "850 ns");
    assert_string_equal(fior_format_ns(b, sizeof b, 3981312), "3.98 ms");
    assert_string_equal(fior_format_ns(b, sizeof b, 1500000000), "1.5 s");
}

/* fio's normal output has no etcd_mode: the engine's own stderr line "etcdwal: NAME: backend N commits"
 * (in 2>&1 output) marks the job as a backend job, but only a job that ran the etcd-fio engine, and only
 * the one of that name */
static void engine_backend_line(void **state)
{
    (void)state;
#define EHEAD(name, eng) name ": (g=0): rw=write, bs=(R) 4096B-4096B, (W) 4096B-4096B, (T) 4096B-4096B, " \
                         "ioengine=" eng ", iodepth=1\n"
#define EJOB(name, pid) name ": (groupid=0, jobs=1): err= 0: pid=" #pid ": Tue Jan  7 17:00:52 2025\n" \
    "  write: IOPS=12.3k, BW=26.9MiB/s (28.2MB/s)(99.0MiB/3680msec); 0 zone resets\n" \
    "  fsync/fdatasync/sync_file_range:\n" \
    "    sync (usec): min=200, max=20000, avg=1284.51, stdev=2380.34\n" \
    "    sync percentiles (usec):\n" \
    "     |  1.00th=[  652], 50.00th=[ 1000], 99.00th=[15000], 99.50th=[16000]\n" \
    "     issued rwts: total=0,300,0,0 short=300,0,0,0 dropped=0,0,0,0\n"
    const char *text = EHEAD("etcd-wal", "etcdwal") EHEAD("etcd-backend", "etcdwal") EHEAD("other", "psync")
        "fio-3.33\nStarting 3 processes\n"
        "etcdwal: etcd-backend: backend 300 commits, 1788 pages, 1 growths; commit mean=0.552ms\n"
        "etcdwal: other: backend 300 commits, 1 pages\n"
        "etcdwal: etcd-wal: 2 segments (1 rollovers), 2251 entries, 2250 Saves\n"
        EJOB("etcd-wal", 1) EJOB("etcd-backend", 2) EJOB("other", 3);
    fior_report *r = parse_str(text, FIOR_OK);
    assert_int_equal(fior_report_njobs(r), 3);
    assert_int_equal(fior_report_job(r, 0)->role, FIOR_ROLE_WAL);
    assert_int_equal(fior_report_job(r, 1)->role, FIOR_ROLE_BACKEND);
    assert_string_equal(fior_report_job(r, 1)->etcd_mode, "backend");
    assert_int_equal(fior_report_job(r, 2)->role, FIOR_ROLE_WAL); /* not the engine: the line is not its */
    fior_report_free(r);
    /* the same without the engine's line: the backend job is judged as WAL (stricter, never a false PASS) */
    r = parse_str(EHEAD("etcd-backend", "etcdwal") "fio-3.33\n" EJOB("etcd-backend", 2), FIOR_OK);
    assert_int_equal(fior_report_job(r, 0)->role, FIOR_ROLE_WAL);
    fior_report_free(r);
#undef EHEAD
#undef EJOB
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(units_and_suffixes),
        cmocka_unit_test(widths_3_to_8_digits),
        cmocka_unit_test(syncfs_title_and_host_prefix),
        cmocka_unit_test(normal_errors_and_edge_cases),
        cmocka_unit_test(json_cases),
        cmocka_unit_test(etcdperf_cases),
        cmocka_unit_test(api_misc),
        cmocka_unit_test(engine_backend_line),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
