/* SPDX-License-Identifier: MIT */
/* test_no_false_pass.c — "no PASS without proof" in the library: each way an input could pass without
 * the evidence for it, on real fio output where one exists (tests/fixtures/fio, made by
 * tests/gen/gen-fixtures.sh), one section each:
 *   the sample count    normal output carries none: it is derived from "issued rwts" (fio 3.4–3.42 count
 *                       fdatasyncs in short[0]), unknown otherwise, and an unknown count is never a PASS;
 *   the job's role      [global] etcd_mode=backend does not make a job of another engine a backend job, and
 *                       the engine's lines mark the job they name;
 *   the percentile      etcd-perf percentiles with decimals ("90.99th", "99.9th") are read whole;
 *   one value per field a later or duplicate value never wins, "no syncs" beside sync latencies, fio's
 *                       aggregate name on a real job;
 *   the value's precision a value fio only knows to its histogram bucket is not taken as exact, counts
 *                       that wrap in the quantile bound are refused;
 *   where the syncs went tmpfs, zram, a loop device over tmpfs, /dev/null: never a PASS (fio's output and
 *                       etcd's /metrics). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fioreport_cli.h"
#include "internal.h"
#include "tjudge.h"
#include "tslurp.h"

#define MS 1000000ULL
#define FX(name) TEST_FIXTURES "/fio/" name

static fior_report *parse(const char *name, const char *text, fior_status want)
{
    fior_report *r = fior_report_new();
    assert_non_null(r);
    fior_status st = fior_parse_buffer(r, name, text, strlen(text));
    if (st != want)
        fail_msg("%s: status %s (want %s): %s", name, fior_strstatus(st), fior_strstatus(want),
                 fior_report_error(r));
    return r;
}

/* The text with the first occurrence of `from` replaced by `to` (the caller frees it). */
static char *edit(const char *text, const char *from, const char *to)
{
    const char *at = strstr(text, from);
    if (!at)
        fail_msg("'%s' not in the text", from);
    size_t a = (size_t)(at - text), fl = strlen(from), tl = strlen(to), n = strlen(text);
    char *out = malloc(n - fl + tl + 1);
    assert_non_null(out);
    memcpy(out, text, a);
    memcpy(out + a, to, tl);
    memcpy(out + a + tl, at + fl, n - a - fl + 1);
    return out;
}

/* ---- the sample count ---- */

static void count_from_issued_rwts(void **state)
{
    (void)state;
    size_t len;
    char *txt = slurp(FX("fio-3.33-ten-writes.txt"), &len);
    fior_report *r = parse("ten", txt, FIOR_OK);
    const fior_job *j = fior_report_job(r, 0);
    assert_true(j->samples_known);
    assert_int_equal(j->samples, 9); /* "issued rwts: total=0,10,0,0 short=9,0,0,0": 9 fdatasyncs */
    assert_int_equal(tj_judge(r, NULL), FIOR_UNKNOWN);
    assert_string_equal(JV(0).reason, "only 9 sync samples (need 100)");
    fior_report_free(r);

    /* the same output with other "issued" lines; a minimum of 1 sample, so only the count decides */
    static const struct { const char *line, *why; int known; uint64_t n; fior_verdict v; } var[] = {
        {"issued rwt: total=0,10,0, short=0,0,0, dropped=0,0,0", "fio < 3.4: no sync count", 0, 0, FIOR_UNKNOWN},
        {"", "a pasted block without the line", 0, 0, FIOR_UNKNOWN},
        {"issued rwts: total=0,10,0,9 short=0,0,0,0 dropped=0,0,0,0", "fsync: the 4th total", 1, 9, FIOR_PASS},
        {"issued rwts: total=5,10,0,0 short=9,0,0,0 dropped=0,0,0,0", "reads: short[0] may be short reads",
         0, 0, FIOR_UNKNOWN},
        {"issued rwts: total=5,10,0,3 short=0,0,0,0 dropped=0,0,0,0", "reads, no short read", 1, 3, FIOR_PASS},
        {"issued rwts: total=0,10,0,0 short=0,0,0,0 dropped=0,0,0,0", "sync latencies but a count of 0",
         0, 0, FIOR_UNKNOWN},
    };
    fior_criteria *c = fior_criteria_new();
    assert_int_equal(fior_criteria_set_min_samples(c, 1), FIOR_OK);
    for (size_t i = 0; i < sizeof var / sizeof var[0]; i++) {
        char *t = edit(txt, "issued rwts: total=0,10,0,0 short=9,0,0,0 dropped=0,0,0,0", var[i].line);
        r = parse(var[i].why, t, FIOR_OK);
        const fior_job *v = fior_report_job(r, 0);
        if (v->samples_known != var[i].known || (var[i].known && v->samples != var[i].n) ||
            tj_judge(r, c) != var[i].v)
            fail_msg("%s: known %d samples %llu verdict %s", var[i].why, v->samples_known,
                     (unsigned long long)v->samples, fior_verdict_name(fior_result_verdict(tj_res)));
        if (!var[i].known)
            assert_non_null(strstr(JV(0).reason, "number of sync samples is not in the input"));
        fior_report_free(r);
        free(t);
    }

    /* a second "issued rwts" line in one job would have replaced the first: refused */
    char *two = edit(txt, "     latency   :", "     issued rwts: total=0,10,0,0 short=900,0,0,0 dropped=0,0,0,0\n"
                                          "     latency   :");
    r = parse("two", two, FIOR_E_PARSE);
    assert_non_null(strstr(fior_report_error(r), "one 'issued rwts:' line per job"));
    fior_report_free(r);
    free(two);
    fior_criteria_free(c);
    free(txt);
}

/* The real 2 MiB run: the count from "issued rwts" is what the same fio version's JSON calls N, and the
 * normal,json output of a run takes the JSON's count. */
static void issued_count_is_json_n(void **state)
{
    (void)state;
    fior_report *r = fior_report_new();
    assert_int_equal(fior_parse_file(r, FX("fio-3.33-normal.txt")), FIOR_OK);
    assert_true(fior_report_job(r, 0)->samples_known);
    assert_int_equal(fior_report_job(r, 0)->samples, 911); /* total=0,911,0,0 short=911 */
    assert_int_equal(tj_judge(r, NULL), FIOR_PASS);
    fior_report_free(r);
    r = fior_report_new();
    assert_int_equal(fior_parse_file(r, FX("fio-3.33-normal-json.txt")), FIOR_OK);
    assert_int_equal(fior_report_format(r), FIOR_FMT_MIXED);
    assert_true(fior_report_job(r, 0)->samples_known);
    assert_int_equal(fior_report_job(r, 0)->pct_resolution_ns, 1); /* the JSON half was read */
    fior_report_free(r);
}

/* ---- the job's role ---- */

static void global_backend_marks_only_our_engine(void **state)
{
    (void)state;
    fior_report *r = fior_report_new();
    assert_int_equal(fior_parse_file(r, FX("fio-3.33-global-backend.json")), FIOR_OK);
    assert_int_equal(fior_report_njobs(r), 2);
    const fior_job *be = fior_report_job(r, 0), *plain = fior_report_job(r, 1);
    assert_string_equal(be->name, "be");
    assert_string_equal(plain->name, "plain");
    assert_string_equal(plain->ioengine, "sync");
    assert_string_equal(plain->etcd_mode, "backend"); /* fio's JSON does list it under global options */
    assert_int_equal(be->role, FIOR_ROLE_BACKEND);
    assert_int_equal(plain->role, FIOR_ROLE_WAL);
    assert_int_equal(tj_judge(r, NULL), FIOR_FAIL);
    assert_int_equal(JV(1).threshold_ns, 10 * MS);
    assert_int_equal(JV(1).verdict, FIOR_FAIL); /* p99 20.1 ms: would have passed 25 ms */
    assert_int_equal(JV(0).threshold_ns, 25 * MS);
    fior_report_free(r);

    static const struct { const char *engine, *mode; int own; fior_role role; } cases[] = {
        {"external:/usr/local/lib/etcd-fio/libetcdwal.so", "backend", 0, FIOR_ROLE_BACKEND},
        {"external:libetcdwal.so", "backend", 0, FIOR_ROLE_BACKEND},
        {"etcdwal", "backend", 0, FIOR_ROLE_BACKEND},
        {"libetcdwal", "backend", 0, FIOR_ROLE_BACKEND},
        {"sync", "backend", 0, FIOR_ROLE_WAL},        /* inherited from [global] */
        {NULL, "backend", 0, FIOR_ROLE_WAL},          /* fio's default engine */
        {"external:/x/libetcdwal.so.bak", "backend", 0, FIOR_ROLE_WAL},
        {"psync", "backend", 1, FIOR_ROLE_BACKEND},   /* the job's own options say so */
        {"external:/x/libetcdwal.so", "wal", 0, FIOR_ROLE_WAL},
        {"external:/x/libetcdwal.so", NULL, 1, FIOR_ROLE_WAL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        if (fior__job_role(cases[i].engine, cases[i].mode, cases[i].own) != cases[i].role)
            fail_msg("case %zu: %s/%s/%d", i, cases[i].engine ? cases[i].engine : "(null)",
                     cases[i].mode ? cases[i].mode : "(null)", cases[i].own);
}

/* The engine's lines name the job by name and pid: a backend line marks that job only, never a WAL job
 * of the same name; an older line without a pid marks a name two jobs share for neither. */
static void engine_marker_by_pid(void **state)
{
    (void)state;
    size_t tlen;
    char *text = slurp(TEST_FIXTURES "/medium/profile-disk-same-name.txt", &tlen);
    assert_non_null(text);
    fior_report *r = parse("same-name", text, FIOR_OK);
    assert_int_equal(fior_report_njobs(r), 2);
    int backends = 0;
    for (size_t i = 0; i < 2; i++) {
        const fior_job *j = fior_report_job(r, i);
        assert_string_equal(j->name, "etcd");
        backends += j->role == FIOR_ROLE_BACKEND;
        assert_int_equal(j->medium, FIOR_MEDIUM_DISK);
        assert_non_null(strstr(j->medium_reason, "ext4"));
    }
    assert_int_equal(backends, 1);
    fior_report_free(r);
    /* the same output as an engine without pid= writes it */
    char *old = strdup(text), *p = old;
    assert_non_null(old);
    while ((p = strstr(p, ": pid="))) {
        char *e = p + 6;
        while (*e >= '0' && *e <= '9')
            e++;
        if (!strncmp(e, ": backend ", 10))
            memmove(p, e, strlen(e) + 1);
        else
            p = e;
    }
    r = parse("same-name-old", old, FIOR_OK);
    for (size_t i = 0; i < 2; i++) {
        const fior_job *j = fior_report_job(r, i);
        assert_int_equal(j->role, FIOR_ROLE_WAL);
        assert_non_null(j->defect);
        assert_non_null(strstr(j->defect, "two jobs of this name"));
    }
    assert_int_equal(tj_judge(r, NULL), FIOR_UNKNOWN);
    fior_report_free(r);
    free(old);
    free(text);
}

/* ---- where the syncs went (tests/fixtures/medium, made by tests/gen/gen-fixtures-medium.sh) ----
 * Each real run on a RAM medium is never a PASS, whatever its latencies, and says what shows it; the disk
 * twins name their device. */
static void medium_fixtures(void **state)
{
    (void)state;
    static const struct {
        const char *file;
        fior_verdict v;        /* the overall verdict */
        fior_medium medium;
        const char *disk;      /* fio's disk stats: the device, NULL when none */
        const char *says;      /* in the job's reason, NULL: not checked */
    } cases[] = {
        {"tmpfs-sync.json", FIOR_UNKNOWN, FIOR_MEDIUM_UNKNOWN, NULL, "below the 5 us"},
        {"tmpfs-sync.txt", FIOR_UNKNOWN, FIOR_MEDIUM_UNKNOWN, NULL, "below the 5 us"},
        {"tmpfs-iouring.json", FIOR_UNKNOWN, FIOR_MEDIUM_UNKNOWN, NULL, "times a sync that failed"},
        {"tmpfs-iouring.txt", FIOR_UNKNOWN, FIOR_MEDIUM_UNKNOWN, NULL, "ioengine=io_uring"},
        {"tmpfs-posixaio.json", FIOR_UNKNOWN, FIOR_MEDIUM_UNKNOWN, NULL, "ioengine=posixaio"},
        {"symlink-tmpfs-iouring.json", FIOR_UNKNOWN, FIOR_MEDIUM_UNKNOWN, NULL, "times a sync that failed"},
        {"devnull-iouring.json", FIOR_UNKNOWN, FIOR_MEDIUM_NOT_DISK, NULL, NULL},
        {"devnull-posixaio.json", FIOR_UNKNOWN, FIOR_MEDIUM_NOT_DISK, NULL, NULL},
        {"devnull-posixaio.txt", FIOR_UNKNOWN, FIOR_MEDIUM_UNKNOWN, NULL, NULL},
        {"zram-sync.json", FIOR_UNKNOWN, FIOR_MEDIUM_NOT_DISK, "zram1", "compressed RAM"},
        {"zram-sync.txt", FIOR_UNKNOWN, FIOR_MEDIUM_NOT_DISK, "zram1", "compressed RAM"},
        {"loop-on-tmpfs.json", FIOR_UNKNOWN, FIOR_MEDIUM_NOT_DISK, "loop0", "loop device"},
        {"loop-on-tmpfs.txt", FIOR_UNKNOWN, FIOR_MEDIUM_NOT_DISK, "loop0", "loop device"},
        /* the twins on this machine's disk (busy: their p99 fails; the device is shown all the same) */
        {"disk-sync.json", FIOR_FAIL, FIOR_MEDIUM_DISK, "vda", NULL},
        {"disk-sync.txt", FIOR_FAIL, FIOR_MEDIUM_DISK, "vda", NULL},
        {"disk-iouring.json", FIOR_FAIL, FIOR_MEDIUM_DISK, "vda", NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/medium/%s", TEST_FIXTURES, cases[i].file);
        fior_report *r = fior_report_new();
        assert_int_equal(fior_parse_file(r, path), FIOR_OK);
        assert_int_equal(fior_report_njobs(r), 1);
        const fior_job *j = fior_report_job(r, 0);
        fior_result *res = fior_judge(r, NULL);
        const fior_judgement *jv = fior_result_job(res, 0);
        if (fior_result_verdict(res) != cases[i].v || j->medium != cases[i].medium ||
            (cases[i].disk ? !j->disk_name || strcmp(j->disk_name, cases[i].disk) : j->disk_name != NULL) ||
            (cases[i].says && !strstr(jv->reason, cases[i].says)))
            fail_msg("%s: %s, medium %d (%s), disk %s: %s", cases[i].file, fior_verdict_name(fior_result_verdict(res)),
                     (int)j->medium, j->medium_reason ? j->medium_reason : "-", j->disk_name ? j->disk_name : "-",
                     jv->reason);
        fior_result_free(res);
        fior_report_free(r);
    }
}

/* etcd's /metrics: _sum/_count as evidence (tests/fixtures/etcd-metrics, real etcd 3.4.23 with its data dir
 * on tmpfs), and a federation file judged per member (tests/gen/gen-fixtures-federation.sh). */
static void metrics_medium(void **state)
{
    (void)state;
    fior_report *r = fior_report_new();
    assert_int_equal(fior_parse_file(r, TEST_FIXTURES "/etcd-metrics/etcd-3.4.23-tmpfs.prom"), FIOR_OK);
    assert_int_equal(fior_report_njobs(r), 2);
    fior_result *res = fior_judge(r, NULL);
    assert_int_equal(fior_result_verdict(res), FIOR_UNKNOWN);
    for (size_t i = 0; i < 2; i++) { /* the WAL's mean (3.6 us) and, same data dir, the backend's commits */
        assert_int_equal(fior_result_job(res, i)->verdict, FIOR_UNKNOWN);
        assert_non_null(strstr(fior_result_job(res, i)->reason, "not on a disk"));
    }
    fior_result_free(res);
    fior_report_free(r);
    /* the same on a busier run: mean 6.3 us, above the floor: nothing proves it, the PASS says "inferred" */
    r = fior_report_new();
    assert_int_equal(fior_parse_file(r, TEST_FIXTURES "/etcd-metrics/etcd-3.4.23-tmpfs-busy.prom"), FIOR_OK);
    res = fior_judge(r, NULL);
    assert_int_equal(fior_result_verdict(res), FIOR_PASS);
    assert_true(fior_result_job(res, 0)->medium_inferred);
    assert_non_null(strstr(fior_result_job(res, 0)->reason, "inferred"));
    fior_result_free(res);
    fior_report_free(r);

    /* two federation scrapes: each member's window with its own process_start_time_seconds */
    r = fior_report_new();
    assert_int_equal(fior_parse_file(r, TEST_FIXTURES "/etcd-metrics/federate-1.prom"), FIOR_OK);
    assert_int_equal(fior_parse_file(r, TEST_FIXTURES "/etcd-metrics/federate-2.prom"), FIOR_OK);
    assert_int_equal(fior_report_window(r), FIOR_OK);
    assert_int_equal(fior_report_njobs(r), 4);
    static const struct { const char *host; fior_role role; uint64_t n; } want[] = {
        {"m1:2379", FIOR_ROLE_WAL, 50}, {"m1:2379", FIOR_ROLE_BACKEND, 6},
        {"m2:2379", FIOR_ROLE_WAL, 0}, {"m2:2379", FIOR_ROLE_BACKEND, 0},
    };
    for (size_t w = 0; w < 4; w++) {
        const fior_job *j = NULL;
        for (size_t i = 0; i < 4; i++) {
            const fior_job *x = fior_report_job(r, i);
            if (x->host && !strcmp(x->host, want[w].host) && x->role == want[w].role)
                j = x;
        }
        assert_non_null(j);
        assert_true(j->window);
        if (j->defect)
            fail_msg("%s: %s", j->name, j->defect);
        assert_int_equal(j->samples, want[w].n);
    }
    fior_report_free(r);
}

/* ---- the percentile, read whole ---- */

static void decimal_percentile_read_whole(void **state)
{
    (void)state;
    fior_report *r = parse("log", "INFO: 90.99th percentile of fsync is 5000000 ns\n"
                                  "INFO: 99.9th percentile of fsync is 5000000 ns\n"
                                  "INFO: 99th percentile of fsync is 5000000 ns\n", FIOR_OK);
    assert_int_equal(fior_report_njobs(r), 3);
    assert_int_equal(fior_report_job(r, 0)->npct, 1);
    assert_true(fabs(fior_report_job(r, 0)->pct[0].percent - 90.99) < 1e-9);
    assert_true(fabs(fior_report_job(r, 1)->pct[0].percent - 99.9) < 1e-9);
    assert_true(fior_report_job(r, 2)->pct[0].percent == 99.0);
    /* even with a sample count, a p90.99 below the threshold says nothing about p99 */
    fior_job copy = *fior_report_job(r, 0);
    copy.samples_known = 1;
    copy.samples = 10000;
    fior__judged o;
    assert_int_equal(fior__judge_job(&copy, NULL, &o), FIOR_UNKNOWN);
    assert_false(o.j.value_known);
    copy = *fior_report_job(r, 2);
    copy.samples_known = 1;
    copy.samples = 10000;
    assert_int_equal(fior__judge_job(&copy, NULL, &o), FIOR_PASS);
    fior_report_free(r);
    /* a percentile that is no number is refused with the line */
    r = parse("log", "INFO: 99.th percentile of fsync is 5 ns\n", FIOR_E_PARSE);
    assert_non_null(strstr(fior_report_error(r), "log:1: expected a percentile"));
    fior_report_free(r);
    r = parse("log", "x\nINFO: 1.2.3th percentile of fsync is 5 ns\n", FIOR_E_PARSE);
    assert_non_null(strstr(fior_report_error(r), "log:2: expected a percentile"));
    fior_report_free(r);
}

/* ---- one value per field ---- */

#define NJOB(sync_block, issued)                                                                            \
    "fio-3.33\njob: (groupid=0, jobs=1): err= 0: pid=7: Mon\n  fsync/fdatasync/sync_file_range:\n" sync_block \
    "     issued rwts: total=0," issued ",0,0 short=" issued ",0,0,0 dropped=0,0,0,0\n"

static void later_value_never_wins(void **state)
{
    (void)state;
    /* two sync lines in one job: the second would have replaced the first */
    fior_report *r = parse("t", NJOB("    sync (usec): min=50, max=90000, avg=60.00, stdev=1.00\n"
                                     "    sync (usec): min=50, max=90, avg=60.00, stdev=1.00\n"
                                     "    sync percentiles (usec):\n     | 99.00th=[   80]\n", "500"),
                           FIOR_E_PARSE);
    assert_non_null(strstr(fior_report_error(r), "t:5: expected one 'sync (unit): min=…' line per job"));
    fior_report_free(r);

    /* the same percentile twice with different values (the last one was believed) */
    r = parse("t", NJOB("    sync (usec): min=50, max=90000, avg=60.00, stdev=1.00\n"
                        "    sync percentiles (usec):\n     | 99.00th=[90000], 99.00th=[   80]\n", "500"), FIOR_OK);
    assert_int_equal(tj_judge(r, NULL), FIOR_UNKNOWN);
    assert_string_equal(JV(0).reason, "percentile list gives p99 twice, with different values");
    fior_report_free(r);

    /* a list that goes down anywhere, also far from p99 */
    r = parse("t", NJOB("    sync (usec): min=50, max=90000, avg=60.00, stdev=1.00\n"
                        "    sync percentiles (usec):\n     |  1.00th=[ 5000],  5.00th=[   10], 99.00th=[   80]\n",
                        "500"), FIOR_OK);
    assert_int_equal(tj_judge(r, NULL), FIOR_UNKNOWN);
    assert_non_null(strstr(JV(0).reason, "percentile list goes down (p1 above p5)"));
    fior_report_free(r);
}

static void no_syncs_beside_latencies(void **state)
{
    (void)state;
    /* JSON: "N": 0 but a 50 ms p99, beside a passing job. NOT JUDGED would have let the other pass the lot. */
    const char *doc = "{\"jobs\": [{\"jobname\": \"ok\", \"error\": 0, \"sync\": {\"lat_ns\": {\"N\": 500, \"max\": 3000000, "
                      "\"percentile\": {\"99.000000\": 2000000}}}},\n"
                      "{\"jobname\": \"odd\", \"error\": 0, \"sync\": {\"lat_ns\": {\"N\": 0, \"max\": 90000000, "
                      "\"percentile\": {\"99.000000\": 50000000}}}}]}\n";
    fior_report *r = parse("doc", doc, FIOR_OK);
    assert_int_equal(tj_judge(r, NULL), FIOR_UNKNOWN);
    assert_int_equal(JV(0).verdict, FIOR_PASS);
    assert_int_equal(JV(1).verdict, FIOR_UNKNOWN);
    assert_non_null(strstr(JV(1).reason, "sync count is 0"));
    fior_report_free(r);
    /* normal output: a sync percentile block without its sync line (cut or edited) */
    r = parse("t", "fio-3.33\njob: (groupid=0, jobs=1): err= 0: pid=7: Mon\n"
                   "    sync percentiles (usec):\n     | 99.00th=[90000]\n"
                   "     issued rwts: total=0,500,0,0 short=500,0,0,0 dropped=0,0,0,0\n", FIOR_OK);
    assert_int_equal(tj_judge(r, NULL), FIOR_UNKNOWN);
    assert_int_equal(JV(0).verdict, FIOR_UNKNOWN);
    fior_report_free(r);
}

/* fio's "All clients" sum is skipped only where fio prints it: client output, pid=0 */
static void real_job_named_all_clients(void **state)
{
    (void)state;
    char *txt = edit(NJOB("    sync (msec): min=50, max=90, avg=60.00, stdev=1.00\n"
                          "    sync percentiles (msec):\n     | 99.00th=[   80]\n", "500"), "job:", "All clients:");
    fior_report *r = parse("t", txt, FIOR_OK);
    assert_int_equal(fior_report_njobs(r), 1);
    assert_int_equal(tj_judge(r, NULL), FIOR_FAIL);
    fior_report_free(r);
    free(txt);
    /* the real client output with fio's sum: two hosts' jobs, the sum skipped */
    r = fior_report_new();
    assert_int_equal(fior_parse_file(r, FX("fio-3.33-client2.txt")), FIOR_OK);
    assert_int_equal(fior_report_njobs(r), 2);
    for (size_t i = 0; i < 2; i++)
        assert_string_not_equal(fior_report_job(r, i)->name, "All clients");
    fior_report_free(r);
}

/* ---- the value's precision ---- */

/* fio prints a percentile as the middle of its histogram bucket; the sample may be anywhere in it. With a
 * 10.05 ms threshold, fio's 10027008 (bucket 9961472..10092543) would have passed. */
static void fio_histogram_bucket(void **state)
{
    (void)state;
    const char *doc = "{\"fio version\": \"fio-3.33\", \"jobs\": [{\"jobname\": \"w\", \"error\": 0, \"sync\": "
                      "{\"lat_ns\": {\"N\": 5000, \"max\": 30000000, \"percentile\": {\"99.000000\": 10027008}}}}]}\n";
    fior_report *r = parse("doc", doc, FIOR_OK);
    fior_criteria *c = fior_criteria_new();
    assert_int_equal(fior_criteria_set_threshold(c, FIOR_ROLE_WAL, 10050000), FIOR_OK);
    assert_int_equal(tj_judge(r, c), FIOR_UNKNOWN);
    assert_non_null(strstr(JV(0).reason, "between 9.96 and 10.1 ms (fio's histogram bucket)"));
    assert_int_equal(fior_criteria_set_threshold(c, FIOR_ROLE_WAL, 10092544), FIOR_OK); /* above the bucket */
    assert_int_equal(tj_judge(r, c), FIOR_PASS);
    assert_int_equal(tj_judge(r, NULL), FIOR_UNKNOWN); /* 10 ms: not a FAIL either, the sample may be 9.97 ms */
    fior_criteria_free(c);
    fior_report_free(r);
}

static void quantile_counts_that_wrap(void **state)
{
    (void)state;
    /* 2^64 - 50 + 100 samples wrap to 50: a bound from "50 samples" would be a lie */
    fior_bin b[2] = {{1 * MS, UINT64_MAX - 49}, {50 * MS, 100}};
    uint64_t lo, pt, hi;
    assert_int_equal(fior_quantile_bound(b, 2, 0.99, 0.95, &lo, &pt, &hi), FIOR_E_INVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(count_from_issued_rwts),
        cmocka_unit_test(issued_count_is_json_n),
        cmocka_unit_test(global_backend_marks_only_our_engine),
        cmocka_unit_test(engine_marker_by_pid),
        cmocka_unit_test(medium_fixtures),
        cmocka_unit_test(metrics_medium),
        cmocka_unit_test(decimal_percentile_read_whole),
        cmocka_unit_test(later_value_never_wins),
        cmocka_unit_test(no_syncs_beside_latencies),
        cmocka_unit_test(real_job_named_all_clients),
        cmocka_unit_test(fio_histogram_bucket),
        cmocka_unit_test(quantile_counts_that_wrap),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
