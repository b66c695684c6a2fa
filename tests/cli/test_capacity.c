/* SPDX-License-Identifier: MIT */
/* test_capacity.c — unit tests of capacity's decision (tools/capacity_judge.c) on made-up rows: a row passes
 * only when both p99 bounds are below their thresholds with enough samples, fails when a bound is above,
 * and is undecided otherwise (the point estimate only with --accept-point-estimate); the ceiling is the
 * fastest passing row; too few backend commits never pass; an interrupted run has no ceiling; the
 * confirmation candidate; what limits a row; the job file's options. No fio, no timing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "capacity.h"
#include "cli.h"

#define MS 1000000ull

/* n samples: all at v_ns but k of them at slow_ns */
static void set_bins(fior_bin **b, size_t *nb, uint64_t *n, uint64_t count, uint64_t v_ns, uint64_t k, uint64_t slow_ns)
{
    *b = calloc(2, sizeof **b);
    (*b)[0] = (fior_bin){v_ns, count - k};
    *nb = 1;
    if (k) {
        (*b)[1] = (fior_bin){slow_ns, k};
        *nb = 2;
    }
    *n = count;
}

static void row(capacity_row *r, unsigned clients, double wps, uint64_t wal_ns, uint64_t be_ns, uint64_t be_count)
{
    memset(r, 0, sizeof *r);
    r->clients = clients;
    r->ran = 1;
    r->writes_per_s = wps;
    r->save_share = 0.9;
    set_bins(&r->wal_bins, &r->nwal, &r->wal_n, 5000, wal_ns, 0, 0);
    set_bins(&r->be_bins, &r->nbe, &r->be_n, be_count, be_ns, 0, 0);
}

static void free_res(capacity_result *res)
{
    for (size_t i = 0; i < res->nrows; i++)
        capacity_row_free(&res->rows[i]);
}

static void test_ceiling_is_fastest_pass(void **s)
{
    (void)s;
    fior_criteria *c = fior_criteria_new();
    capacity_result res = {0};
    row(&res.rows[0], 1, 1000, 1 * MS, 5 * MS, 1000);
    row(&res.rows[1], 16, 9000, 3 * MS, 12 * MS, 1000);
    row(&res.rows[2], 64, 15000, 30 * MS, 40 * MS, 1000); /* over both thresholds */
    res.nrows = res.nsweep = 3;
    capacity_decide(&res, c, 0.95, 0);
    assert_int_equal(res.rows[0].verdict, FIOR_PASS);
    assert_int_equal(res.rows[1].verdict, FIOR_PASS);
    assert_int_equal(res.rows[2].verdict, FIOR_FAIL);
    assert_int_equal(res.rows[2].basis, RESULT_BASIS_BOUND);
    assert_int_equal(res.ceiling, 1);
    assert_int_equal(res.verdict, FIOR_PASS);
    assert_non_null(strstr(res.reason, "9000 writes/s, the row of 16 clients: WAL p99 "));
    /* the ceiling line's figures are its row's: the p99 the row shows, in the bound the line gives */
    char want[96], p[32];
    cli_fmt_ns(p, sizeof p, res.rows[1].wal_p99_ns);
    snprintf(want, sizeof want, "WAL p99 %s (bound ", p);
    assert_non_null(strstr(res.reason, want));
    assert_true(res.rows[1].wal_lo_ns <= res.rows[1].wal_p99_ns && res.rows[1].wal_p99_ns <= res.rows[1].wal_hi_ns);
    free_res(&res);
    fior_criteria_free(c);
}

/* 40 backend commits (a 4 s step) cannot bound a p99: no PASS, however fast they were */
static void test_few_commits_never_pass(void **s)
{
    (void)s;
    fior_criteria *c = fior_criteria_new();
    capacity_result res = {0};
    row(&res.rows[0], 1, 1000, 1 * MS, 1 * MS, 40);
    res.nrows = res.nsweep = 1;
    capacity_decide(&res, c, 0.95, 1); /* not even with --accept-point-estimate */
    assert_int_equal(res.rows[0].verdict, FIOR_UNKNOWN);
    assert_int_equal(res.ceiling, -1);
    assert_int_equal(res.verdict, FIOR_UNKNOWN);
    assert_non_null(strstr(res.rows[0].reason, "too few samples"));
    /* but it is the row to confirm, until its confirmation did not pass */
    assert_int_equal(capacity_candidate(&res, c, 0.95), 0);
    res.rows[0].excluded = 1;
    assert_int_equal(capacity_candidate(&res, c, 0.95), -1);
    /* the library's one-look count (fior_look_samples): 0.99^368 <= 0.025 < 0.99^367; the loop capacity had
     * before stepped past it to 374 */
    assert_int_equal(capacity_samples_needed(0.95), 368);
    free_res(&res);
    fior_criteria_free(c);
}

/* a bound that straddles the threshold: unknown, the point estimate only when accepted */
static void test_straddle(void **s)
{
    (void)s;
    fior_criteria *c = fior_criteria_new();
    capacity_result res = {0};
    row(&res.rows[0], 1, 1000, 1 * MS, 1 * MS, 2000);
    capacity_row_free(&res.rows[0]);
    /* 1 % of the WAL's Saves at 12 ms: the p99 sits on the edge, the bound spans the threshold */
    set_bins(&res.rows[0].wal_bins, &res.rows[0].nwal, &res.rows[0].wal_n, 3000, 2 * MS, 28, 12 * MS);
    set_bins(&res.rows[0].be_bins, &res.rows[0].nbe, &res.rows[0].be_n, 2000, 1 * MS, 0, 0);
    res.nrows = res.nsweep = 1;
    capacity_decide(&res, c, 0.95, 0);
    assert_int_equal(res.rows[0].verdict, FIOR_UNKNOWN);
    assert_int_equal(res.rows[0].basis, RESULT_BASIS_UNDECIDED);
    assert_int_equal(res.verdict, FIOR_UNKNOWN);
    capacity_decide(&res, c, 0.95, 1);
    assert_int_equal(res.rows[0].basis, RESULT_BASIS_POINT);
    assert_int_equal(res.rows[0].verdict, FIOR_PASS);
    assert_int_equal(res.verdict, FIOR_PASS);
    assert_int_equal(res.basis, RESULT_BASIS_POINT);
    free_res(&res);
    fior_criteria_free(c);
}

/* even one client exceeds a threshold (bound): FAIL */
static void test_fail_at_fewest(void **s)
{
    (void)s;
    fior_criteria *c = fior_criteria_new();
    capacity_result res = {0};
    row(&res.rows[0], 1, 80, 15 * MS, 5 * MS, 1000);
    row(&res.rows[1], 16, 900, 30 * MS, 50 * MS, 1000);
    res.nrows = res.nsweep = 2;
    capacity_decide(&res, c, 0.95, 0);
    assert_int_equal(res.verdict, FIOR_FAIL);
    assert_int_equal(res.ceiling, -1);
    assert_int_equal(capacity_candidate(&res, c, 0.95), -1);
    free_res(&res);
    fior_criteria_free(c);
}

/* a row fio did not finish, an interrupted run */
static void test_not_ran_and_interrupted(void **s)
{
    (void)s;
    fior_criteria *c = fior_criteria_new();
    capacity_result res = {0};
    row(&res.rows[0], 1, 1000, 1 * MS, 1 * MS, 1000);
    res.rows[1].clients = 16;
    snprintf(res.rows[1].why, sizeof res.rows[1].why, "fio was stopped");
    res.nrows = res.nsweep = 2;
    capacity_decide(&res, c, 0.95, 0);
    assert_int_equal(res.rows[1].verdict, FIOR_UNKNOWN);
    assert_string_equal(res.rows[1].reason, "fio was stopped");
    assert_int_equal(res.ceiling, 0);
    res.interrupted = 1;
    capacity_decide(&res, c, 0.95, 0);
    assert_int_equal(res.verdict, FIOR_UNKNOWN);
    assert_non_null(strstr(res.reason, "interrupted"));
    free_res(&res);
    fior_criteria_free(c);
}

/* the candidate: the fastest row whose WAL bound already passes beats a faster one on point estimates */
static void test_candidate_prefers_decided_wal(void **s)
{
    (void)s;
    fior_criteria *c = fior_criteria_new();
    capacity_result res = {0};
    row(&res.rows[0], 16, 3000, 3 * MS, 10 * MS, 30);
    row(&res.rows[1], 64, 8000, 7 * MS, 15 * MS, 30);
    row(&res.rows[2], 256, 17000, 7 * MS, 19 * MS, 30);
    capacity_row_free(&res.rows[2]);
    /* 256 clients: a WAL p99 near the threshold, its bound straddles */
    set_bins(&res.rows[2].wal_bins, &res.rows[2].nwal, &res.rows[2].wal_n, 400, 5 * MS, 3, 11 * MS);
    set_bins(&res.rows[2].be_bins, &res.rows[2].nbe, &res.rows[2].be_n, 30, 19 * MS, 0, 0);
    res.nrows = res.nsweep = 3;
    capacity_decide(&res, c, 0.95, 0);
    assert_int_equal(capacity_candidate(&res, c, 0.95), 1);
    /* a confirmation row (past nsweep) is never a candidate */
    res.nsweep = 1;
    assert_int_equal(capacity_candidate(&res, c, 0.95), 0);
    free_res(&res);
    fior_criteria_free(c);
}

static void test_merge(void **s)
{
    (void)s;
    capacity_row a, b;
    row(&a, 1, 1000, 1 * MS, 1 * MS, 100);
    row(&b, 1, 1000, 2 * MS, 1 * MS, 300);
    capacity_row_merge(&a, &b);
    assert_int_equal(a.be_n, 400);
    assert_int_equal(a.nbe, 1);
    assert_int_equal(a.be_bins[0].count, 400);
    assert_int_equal(a.nwal, 2);
    assert_int_equal(a.wal_n, 10000);
    capacity_row_free(&a);
    capacity_row_free(&b);
}

static void test_limit(void **s)
{
    (void)s;
    capacity_row r = {.ran = 1, .save_share = 0.9, .write_share = 0.1};
    assert_string_equal(capacity_limit(&r), "fdatasync latency");
    assert_false(capacity_limit_not_disk(&r));
    r.write_share = 0.7;
    assert_string_equal(capacity_limit(&r), "disk bandwidth");
    r.blocked_share = 0.3;
    assert_string_equal(capacity_limit(&r), "backend commits");
    r.blocked_share = 0;
    r.apply_share = 0.95;
    assert_non_null(strstr(capacity_limit(&r), "not the disk"));
    assert_true(capacity_limit_not_disk(&r));
    r.apply_share = 0;
    r.save_share = 0.4;
    r.cpu_share = 0.5;  /* the raft loop spends more on the entries than in the Save */
    assert_non_null(strstr(capacity_limit(&r), "CPU"));
    assert_true(capacity_limit_not_disk(&r));
    r.cpu_share = 0;
    r.apply_share = 0.1;
    r.save_share = 0.2;
    assert_true(capacity_limit_not_disk(&r));
}

/* the table at 80 columns: a row whose words are long wraps them under themselves, its columns stay where
 * the header puts them (a row's figures never squeezed to single spaces) */
static void test_table_wraps_words_not_columns(void **s)
{
    (void)s;
    fior_criteria *c = fior_criteria_new();
    capacity_result res = {0};
    row(&res.rows[0], 1, 1686, 1 * MS, 3 * MS, 20);
    row(&res.rows[1], 16, 13331, 1 * MS, 3 * MS, 20);
    res.rows[1].save_share = 0.4; /* the raft loop's CPU, not the disk: the longest words a row has */
    res.rows[1].cpu_share = 0.5;
    res.nrows = res.nsweep = 2;
    capacity_decide(&res, c, 0.95, 0);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    capacity_table(f, &res, c, 0);
    fclose(f);
    const char *hdr = strstr(buf, "clients writes/s");
    assert_non_null(hdr);
    const char *wcol = strstr(hdr, "verdict, why");
    assert_non_null(wcol);
    const char *ls = hdr; /* the header line's start: the words' column in it */
    while (ls > buf && ls[-1] != '\n')
        ls--;
    int at = (int)(wcol - ls);
    int rows = 0, conts = 0;
    for (char *l = buf, *e; *l; l = e + 1) {
        e = strchr(l, '\n');
        assert_non_null(e);
        int n = (int)(e - l);
        assert_true(n <= 80);
        unsigned cl;
        if (sscanf(l, "%7u", &cl) == 1 && l[6] != ' ' && l > hdr) { /* a row: the client count ends column 7 */
            rows++;
            assert_true(n > at);
            assert_true(l[at - 1] == ' ' && l[at - 2] == ' ' && l[at] != ' '); /* its words start under the header's */
            assert_true(strncmp(l + at, "unknown:", 8) == 0 || strncmp(l + at, "pass", 4) == 0);
        } else if (l > hdr) {
            conts++;
            for (int k = 0; k < at; k++) /* a continuation hangs under the words */
                assert_true(l[k] == ' ');
        }
    }
    assert_int_equal(rows, 2);
    assert_true(conts >= 1); /* the CPU row's words did not fit on its line */
    free(buf);
    free_res(&res);
    fior_criteria_free(c);
}

static void test_job_file(void **s)
{
    (void)s;
    capacity_opts o = {.key_bytes = 8, .val_bytes = 256, .client_us = 150, .apply_us = 20, .cpu_us = 33};
    char buf[4096] = "", err[256];
    FILE *f = fmemopen(buf, sizeof buf - 1, "w");
    assert_int_equal(capacity_job_write(f, &o, "/d:x", "/e.so", 64, 4, "/t/w.json", "/t/b.json", err, sizeof err), 0);
    fclose(f);
    assert_non_null(strstr(buf, "directory=/d\\:x\n"));
    assert_non_null(strstr(buf, "runtime=4000ms\n"));
    assert_non_null(strstr(buf, "etcd_mode=wal\netcd_clients=64\netcd_key_bytes=8\netcd_val_bytes=256\n"));
    assert_non_null(strstr(buf, "etcd_mode=backend\netcd_clients=64\n"));
    assert_non_null(strstr(buf, "etcd_apply_ns=20000\netcd_entry_ns=33000\n"));
    f = fmemopen(buf, sizeof buf - 1, "w");
    assert_int_equal(capacity_job_write(f, &o, "/d\nrw=read", "/e.so", 1, 4, "/w", "/b", err, sizeof err), -1);
    fclose(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ceiling_is_fastest_pass), cmocka_unit_test(test_few_commits_never_pass),
        cmocka_unit_test(test_straddle),                cmocka_unit_test(test_fail_at_fewest),
        cmocka_unit_test(test_not_ran_and_interrupted), cmocka_unit_test(test_merge),
        cmocka_unit_test(test_candidate_prefers_decided_wal),
        cmocka_unit_test(test_limit),                   cmocka_unit_test(test_job_file),
        cmocka_unit_test(test_table_wraps_words_not_columns),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
