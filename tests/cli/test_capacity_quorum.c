/* SPDX-License-Identifier: MIT */
/* test_capacity_quorum.c — unit tests of the quorum combination (tools/quorum.c) on made-up member
 * latencies: with the leader fastest a put waits for the second fastest member, with the leader slowest for
 * the leader; the round trip adds to the follower's side; N clients ride in one Ready; a slow Save on one
 * follower is hidden by the other; the backend's lock delays applies; the same seed gives the same replay;
 * bad configurations are refused. Virtual time only: no timing asserts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "quorum.h"

#define MS 1000000ull
#define US 1000ull

static fior_bin one[QUORUM_MEMBERS + 1][1];

/* every member's Saves take a constant time; no CPU, apply or client time unless set after */
static void cfg3(quorum_cfg *c, unsigned clients, uint64_t l_ns, uint64_t f1_ns, uint64_t f2_ns)
{
    memset(c, 0, sizeof *c);
    c->clients = clients;
    uint64_t v[3] = {l_ns, f1_ns, f2_ns};
    for (int m = 0; m < 3; m++) {
        one[m][0] = (fior_bin){v[m], 1000};
        c->save[m] = (quorum_dist){one[m], 1};
    }
    c->span_s = 10;
    c->warm_s = 1;
}

static void sim(const quorum_cfg *c, quorum_out *o)
{
    char err[256];
    int rc = quorum_simulate(c, o, err, sizeof err);
    if (rc)
        fail_msg("quorum_simulate: %s", err);
}

/* leader fastest: a put waits for the faster follower (the second fastest of three) */
static void test_second_fastest(void **s)
{
    (void)s;
    quorum_cfg c;
    quorum_out o;
    cfg3(&c, 1, 1 * MS, 4 * MS, 2 * MS);
    sim(&c, &o);
    assert_int_equal(o.lat_p50_ns, 2 * MS);
    assert_int_equal(o.lat_p99_ns, 2 * MS);
    assert_true(o.writes_per_s > 499 && o.writes_per_s < 501);
    assert_int_equal(o.by_follower[1], 0);     /* the 4 ms follower never commits */
    assert_true(o.by_follower[2] > 4000);
    assert_int_equal(o.leader_gated, 0);
    assert_true(o.save_share > 0.99);          /* the quorum's disks are the limit */
}

/* leader slowest: the leader's own Save gates every Ready, not the second fastest */
static void test_leader_slowest(void **s)
{
    (void)s;
    quorum_cfg c;
    quorum_out o;
    cfg3(&c, 1, 4 * MS, 1 * MS, 2 * MS);
    sim(&c, &o);
    assert_int_equal(o.lat_p50_ns, 4 * MS);
    assert_true(o.leader_gated > 2000);
    assert_true(o.writes_per_s > 249 && o.writes_per_s < 251);
}

/* the round trip adds to the follower's side only; CPU, apply and client time add to each put */
static void test_rtt_and_costs(void **s)
{
    (void)s;
    quorum_cfg c;
    quorum_out o;
    cfg3(&c, 1, 1 * MS, 2 * MS, 3 * MS);
    c.rtt_ns = 500 * US;
    sim(&c, &o);
    assert_int_equal(o.lat_p50_ns, 2500 * US);
    c.rtt_ns = 0;
    cfg3(&c, 1, 3 * MS, 1 * MS, 1 * MS);
    c.rtt_ns = 1 * MS; /* follower 1 + 1 = 2 ms, below the leader's 3 ms */
    c.cpu_ns = 100 * US;
    c.apply_ns = 10 * US;
    c.client_ns = 200 * US;
    sim(&c, &o);
    assert_int_equal(o.lat_p50_ns, 3 * MS + 100 * US + 10 * US + 200 * US);
    assert_true(o.cpu_share > 0.02 && o.apply_share > 0.002);
    /* each member's work per Ready: the leader's before it sends, the follower's before its Save, the
     * leader's again on the Ready that hands the commit to the apply */
    cfg3(&c, 1, 1 * MS, 2 * MS, 3 * MS);
    c.ready_ns = 100 * US;
    sim(&c, &o);
    assert_int_equal(o.lat_p50_ns, 2 * MS + 300 * US);
    /* on one shared core the faster follower (member 3) waits for member 2's work on the same Ready
     * whenever member 2 is free to take it at once (every other Ready: member 2 is slower than the rate) */
    cfg3(&c, 1, 1 * MS, 3 * MS, 2 * MS);
    c.ready_ns = 100 * US;
    sim(&c, &o);
    assert_int_equal(o.lat_p90_ns, 2 * MS + 300 * US);
    double unshared = o.writes_per_s;
    c.shared_core = 1;
    sim(&c, &o);
    /* member 2, slower than the rate, Saves every Ready that reached it in one batch (not one Ready a
     * batch, falling further behind and holding the core at times the others need it) */
    assert_true(o.writes_per_s > unshared * 0.97);
    assert_int_equal(o.lat_p50_ns, 2 * MS + 300 * US);
    assert_int_equal(o.lat_p90_ns, 2 * MS + 400 * US);
    /* an absurd round trip is refused, not replayed */
    c.rtt_ns = QUORUM_MAX_RTT_NS + 1;
    char err[256];
    assert_int_equal(quorum_simulate(&c, &o, err, sizeof err), -1);
    assert_non_null(strstr(err, "election timeout"));
    /* the largest allowed one replays: a put takes it once */
    c.rtt_ns = QUORUM_MAX_RTT_NS;
    sim(&c, &o);
    assert_true(o.lat_p50_ns >= QUORUM_MAX_RTT_NS);
}

/* 64 clients: all ride in one Ready, and each Ready takes the quorum's time */
static void test_batching(void **s)
{
    (void)s;
    quorum_cfg c;
    quorum_out o;
    cfg3(&c, 64, 1 * MS, 2 * MS, 3 * MS);
    sim(&c, &o);
    assert_true(o.entries_per_save > 63.9 && o.entries_per_save <= 64.0);
    assert_true(o.writes_per_s > 31900 && o.writes_per_s < 32100);
    assert_int_equal(o.lat_p90_ns, 2 * MS);
    /* 50 us per entry on the leader before it sends and on the follower before it Saves: a Ready of 64
     * commits 2 x 3.2 ms + 2 ms after it was taken */
    c.cpu_ns = 50 * US;
    sim(&c, &o);
    assert_true(o.writes_per_s < 64 / 0.0084 * 1.01 && o.writes_per_s > 64 / 0.0084 * 0.99);
    assert_true(o.cpu_share > 0.35);
}

/* 1 % of each follower's Saves take 50 ms: the other follower hides nearly all of them (a single member's
 * p99 would be 50 ms) */
static void test_slow_follower_hidden(void **s)
{
    (void)s;
    static fior_bin f[2] = {{1 * MS, 990}, {50 * MS, 10}};
    quorum_cfg c;
    quorum_out o;
    cfg3(&c, 1, 500 * US, 1 * MS, 1 * MS);
    c.save[1] = (quorum_dist){f, 2};
    c.save[2] = (quorum_dist){f, 2};
    sim(&c, &o);
    assert_int_equal(o.lat_p99_ns, 1 * MS);
    assert_true(o.by_follower[1] > 0 && o.by_follower[2] > 0);
    /* the same seed replays the same; another seed other draws */
    quorum_out o2;
    sim(&c, &o2);
    assert_int_equal(o.puts, o2.puts);
    assert_int_equal(o.by_follower[1], o2.by_follower[1]);
    c.seed = 42;
    sim(&c, &o2);
    assert_int_not_equal(o.by_follower[1], o2.by_follower[1]);
}

/* the leader's backend commits hold the lock for 80 ms, 100 ms after the one before: the puts of one Ready
 * in 18 wait for one */
static void test_backend_lock(void **s)
{
    (void)s;
    static fior_bin b[1] = {{80 * MS, 100}};
    quorum_cfg c;
    quorum_out o, free_o;
    cfg3(&c, 16, 10 * MS, 10 * MS, 10 * MS);
    sim(&c, &free_o);
    c.commit = (quorum_dist){b, 1};
    sim(&c, &o);
    assert_true(o.blocked_share > 0.3);
    assert_true(o.writes_per_s < free_o.writes_per_s * 0.6);
    assert_true(o.lat_p99_ns >= 50 * MS);
}

static void test_refusals(void **s)
{
    (void)s;
    quorum_cfg c;
    quorum_out o;
    char err[256];
    cfg3(&c, 0, 1 * MS, 1 * MS, 1 * MS);
    assert_int_equal(quorum_simulate(&c, &o, err, sizeof err), -1);
    cfg3(&c, 1, 1 * MS, 1 * MS, 1 * MS);
    c.save[2].n = 0; /* a member that gave no Save latencies */
    assert_int_equal(quorum_simulate(&c, &o, err, sizeof err), -1);
    assert_non_null(strstr(err, "member 3"));
    cfg3(&c, 1, 1 * MS, 1 * MS, 1 * MS);
    c.warm_s = 20;
    assert_int_equal(quorum_simulate(&c, &o, err, sizeof err), -1);
    /* Saves of 0 ns (a member whose bins say so): replays without looping forever */
    cfg3(&c, 1, 0, 0, 0);
    c.client_ns = 1 * MS;
    sim(&c, &o);
    assert_true(o.writes_per_s > 999 && o.writes_per_s < 1001);
}

int main(void)
{
    const struct CMUnitTest t[] = {
        cmocka_unit_test(test_second_fastest),  cmocka_unit_test(test_leader_slowest),
        cmocka_unit_test(test_rtt_and_costs),   cmocka_unit_test(test_batching),
        cmocka_unit_test(test_slow_follower_hidden), cmocka_unit_test(test_backend_lock),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(t, NULL, NULL);
}
