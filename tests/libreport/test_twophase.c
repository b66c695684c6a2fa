/* SPDX-License-Identifier: MIT */
/* test_twophase.c — check's phase decisions (libreport/twophase.c): when phase 1 passes, goes on or gives up,
 * and when phase 2's first seconds confirm a phase-1 PASS. Bins are synthetic; the counts follow
 * test_earlystop.c's arithmetic for phase 1's share of the PASS error (delta 0.003125 at 95 %): a PASS with
 * no sample at the threshold from n = 627, with one from 1078; phase 1 gives up at the cap, 2 x 627 = 1254
 * samples, where one sample at the threshold is the most a PASS allows. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "seqbound.h"

#define MS 1000000ull

static fior__seq phase1(void)
{
    fior__seq c;
    fior__seq_params p = {.q = 0.99, .confidence = 0.95, .min_syncs = 100, .max_time_share = FIOR__TP_TIME_SHARE,
                          .pass_share = FIOR__TP_PHASE1_SHARE};
    fior__seq_init(&c, &p, 10 * MS, 25 * MS, 1);
    return c;
}

static void test_phase1_pass(void **state)
{
    (void)state;
    fior__seq c = phase1();
    assert_int_equal(fior__seq_pass_from(&c), 627);
    fior_bin w[1] = {{1 * MS, 300}}, b[1] = {{3 * MS, 200}};
    fior__seq_update(&c, w, 1, b, 1);
    assert_int_equal(fior__tp_phase1_state(&c), FIOR__TP_GO_ON); /* too few for a PASS at phase 1's share */
    w[0].count = 900;
    fior__seq_update(&c, w, 1, b, 1);
    assert_int_equal(c.wal.state, FIOR_DEC_PASS);
    assert_int_equal(fior__tp_phase1_state(&c), FIOR__TP_GO_ON); /* the backend is not decided yet */
    b[0].count = 626;
    fior__seq_update(&c, w, 1, b, 1);
    assert_int_equal(fior__tp_phase1_state(&c), FIOR__TP_GO_ON);
    b[0].count = 627;
    fior__seq_update(&c, w, 1, b, 1);
    assert_int_equal(fior__tp_phase1_state(&c), FIOR__TP_PASS);
}

/* A FAIL under the heavy load ends phase 1 — and is no verdict. */
static void test_phase1_fail_gives_up(void **state)
{
    (void)state;
    fior__seq c = phase1();
    fior_bin w[1] = {{30 * MS, 150}}, b[1] = {{3 * MS, 150}};
    fior__seq_update(&c, w, 1, b, 1);
    assert_int_equal(c.wal.state, FIOR_DEC_FAIL);
    assert_int_equal(fior__tp_phase1_state(&c), FIOR__TP_GIVE_UP);
}

/* A job that cannot pass before the cap ends phase 1 (the rest of the error goes to phase 2): at the cap,
 * or at once when it already has more samples at the threshold than a PASS at the cap allows; the time
 * guard alone can keep it from passing. */
static void test_phase1_gives_up(void **state)
{
    (void)state;
    fior__seq c = phase1();
    /* one 300 ms stall among fast syncs: one at the threshold may still pass by the cap (from 1078) */
    fior_bin w[2] = {{1 * MS, 599}, {300 * MS, 1}}, b[1] = {{3 * MS, 100}};
    fior__seq_update(&c, w, 2, b, 1);
    assert_int_equal(c.wal.state, FIOR_DEC_UNDECIDED);
    assert_int_equal(fior__tp_phase1_state(&c), FIOR__TP_GO_ON);
    /* n = 1253: by count it passes, by time (290 ms of waiting in 1.6 s, 19 %) it does not */
    w[0].count = 1252;
    fior__seq_update(&c, w, 2, b, 1);
    assert_int_equal(c.wal.look_hi_ns, 1 * MS);
    assert_int_equal(c.wal.state, FIOR_DEC_UNDECIDED);
    assert_int_equal(fior__tp_phase1_state(&c), FIOR__TP_GO_ON);
    w[0].count = 1253; /* n = 1254: the cap */
    fior__seq_update(&c, w, 2, b, 1);
    assert_int_equal(c.wal.state, FIOR_DEC_UNDECIDED);
    assert_int_equal(fior__tp_phase1_state(&c), FIOR__TP_GIVE_UP);
    /* two stalls among 300: no PASS is possible by 1254 any more: give up at once */
    c = phase1();
    fior_bin two[2] = {{1 * MS, 300}, {300 * MS, 2}};
    fior__seq_update(&c, two, 2, b, 1);
    assert_int_equal(fior__tp_phase1_state(&c), FIOR__TP_GIVE_UP);
    /* without the guard one stall in 1000 passes (the whole budget: one at the threshold from 814); with
     * it, 290 ms of waiting in 1.3 s is 22 % of the time */
    fior__seq_params p = {.q = 0.99, .confidence = 0.95, .min_syncs = 100};
    fior__seq_init(&c, &p, 10 * MS, 25 * MS, 1);
    w[0].count = 999;
    fior__seq_update(&c, w, 2, b, 1);
    assert_int_equal(c.wal.state, FIOR_DEC_PASS);
    c = phase1();
    fior__seq_update(&c, w, 2, b, 1);
    assert_int_equal(c.wal.state, FIOR_DEC_UNDECIDED);
}

static void test_probe(void **state)
{
    (void)state;
    /* phase 1: WAL p90 2 ms, backend p90 6 ms */
    fior_bin hw[2] = {{1 * MS, 800}, {2 * MS, 200}}, hb[2] = {{4 * MS, 800}, {6 * MS, 200}};
    fior__tp_probe p;
    /* etcd's lighter load is faster: confirmed */
    fior_bin pw[2] = {{500000, 230}, {1 * MS, 20}}, pb[2] = {{2 * MS, 18}, {5 * MS, 2}};
    fior__tp_probe_compare(hw, 2, hb, 2, pw, 2, pb, 2, 10 * MS, 25 * MS, &p);
    assert_int_equal(p.ok, 1);
    assert_int_equal(p.heavy_wal_ns, 2 * MS);
    assert_int_equal(p.heavy_be_ns, 6 * MS);
    assert_true(p.probe_wal_ns <= 1 * MS);
    assert_int_equal(p.probe_wal_n, 250);
    assert_int_equal(p.probe_be_n, 20);
    /* the lab's d0.5 point: slower under the lighter load (backend p90 19 ms against 6 ms) */
    fior_bin sb[2] = {{6 * MS, 15}, {19 * MS, 5}};
    fior__tp_probe_compare(hw, 2, hb, 2, pw, 2, sb, 2, 10 * MS, 25 * MS, &p);
    assert_int_equal(p.ok, 0);
    assert_non_null(strstr(p.why, "backend 19"));
    assert_non_null(strstr(p.why, "slower under the lighter load"));
    /* the WAL alone inverted is enough to refuse */
    fior_bin sw[2] = {{1 * MS, 100}, {3 * MS, 100}};
    fior__tp_probe_compare(hw, 2, hb, 2, sw, 2, pb, 2, 10 * MS, 25 * MS, &p);
    assert_int_equal(p.ok, 0);
    /* no probe samples: nothing confirmed */
    fior__tp_probe_compare(hw, 2, hb, 2, pw, 2, NULL, 0, 10 * MS, 25 * MS, &p);
    assert_int_equal(p.ok, 0);
    assert_non_null(strstr(p.why, "no backend samples"));
    /* a stall in the probe that phase 1's window missed: p90 unchanged (1 commit in 20), but one commit
     * took 200 ms, over the 25 ms limit: refused */
    fior_bin st[2] = {{2 * MS, 19}, {200 * MS, 1}};
    fior__tp_probe_compare(hw, 2, hb, 2, pw, 2, st, 2, 10 * MS, 25 * MS, &p);
    assert_int_equal(p.ok, 0);
    assert_int_equal(p.probe_be_max_ns, 200 * MS);
    assert_non_null(strstr(p.why, "backend commit under etcd's load took 200 ms"));
    /* just under the limits: confirmed */
    fior_bin ok_b[2] = {{2 * MS, 19}, {5 * MS, 1}};
    fior_bin ok_w[2] = {{500000, 240}, {1 * MS, 10}};
    fior__tp_probe_compare(hw, 2, hb, 2, ok_w, 2, ok_b, 2, 10 * MS, 25 * MS, &p);
    assert_int_equal(p.ok, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_phase1_pass),
        cmocka_unit_test(test_phase1_fail_gives_up),
        cmocka_unit_test(test_phase1_gives_up),
        cmocka_unit_test(test_probe),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
