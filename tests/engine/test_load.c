/* SPDX-License-Identifier: MIT */
/* test_load.c — unit tests of the closed-loop load model (engine/load.c) without fio or a clock: which puts
 * ride in each Ready, the Save/apply pipeline (a put answered during Save k+1 rides in the Ready after it),
 * the answers' order, the latency a client sees, the backend lock that holds the applies, the wire and page
 * sizes, and bad configurations. Times are made-up numbers: nothing here measures time. Also the put kinds
 * (engine/kinds.h, etcd_kinds=): the text form, the entry and page sizes against the model's, and the seeded
 * draw (the same sequence for a seed, another for another seed, each kind in proportion to its rate). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "kinds.h"
#include "load.h"

static char err[256];

static void mk(ld *m, unsigned clients, uint64_t client_ns, uint64_t apply_ns)
{
    ld_config c = {.clients = clients, .key_bytes = 8, .val_bytes = 256, .client_ns = client_ns, .apply_ns = apply_ns};
    assert_int_equal(ld_init(m, &c, 1000, err, sizeof err), 0);
}

/* etcd's InternalRaftRequest for an 8-byte key and a 256-byte value: put = (1+1+8) + (1+2+256) = 269,
 * its field 1+2+269 = 272, header 2+1+10 = 13: 285 bytes. */
static void test_entry_bytes(void **s)
{
    (void)s;
    assert_int_equal(ld_entry_bytes(8, 256), 285);
    assert_int_equal(ld_entry_bytes(8, 0), 2 + 1 + 10 + 1 + 1 + 10);
    assert_true(ld_entry_bytes(256, 1024) > ld_entry_bytes(8, 256));
}

static void test_commit_pages(void **s)
{
    (void)s;
    assert_int_equal(ld_commit_pages(0, 8, 256), 0);
    unsigned p1 = ld_commit_pages(1, 8, 256), p100 = ld_commit_pages(100, 8, 256),
             p2400 = ld_commit_pages(2400, 8, 256);
    assert_true(p1 >= 4);            /* a leaf, two branch pages, the root bucket leaf */
    assert_true(p100 > p1 && p2400 > p100);
    /* ~11 puts of 8/256 per leaf at fill 0.9: 2400 puts are ~220 leaves */
    assert_in_range(p2400, 200, 240);
    /* a value larger than a page: overflow pages per put */
    assert_true(ld_commit_pages(10, 8, 10000) >= 10 * 3);
}

static void test_bad_config(void **s)
{
    (void)s;
    ld m;
    ld_config c = {.clients = 0, .key_bytes = 8};
    assert_int_equal(ld_init(&m, &c, 0, err, sizeof err), -1);
    assert_non_null(strstr(err, "etcd_clients=0"));
    c.clients = LD_MAX_CLIENTS + 1;
    assert_int_equal(ld_init(&m, &c, 0, err, sizeof err), -1);
    c.clients = 1;
    c.key_bytes = 0;
    assert_int_equal(ld_init(&m, &c, 0, err, sizeof err), -1);
}

/* One client: every Ready carries its one put; its latency is the Save + apply + the client's turnaround,
 * and the next put arrives a turnaround after the answer. */
static void test_one_client(void **s)
{
    (void)s;
    ld m;
    mk(&m, 1, 50, 10);
    uint64_t next;
    assert_int_equal(ld_poll(&m, 1000, NULL, &next), 1);
    assert_int_equal(ld_take(&m, 1000), 1);
    ld_saved(&m, 1300);
    assert_int_equal(ld_poll(&m, 1300, NULL, &next), 0); /* applied at 1300..1310, arrives at 1360 */
    assert_int_equal(next, 1360);
    assert_int_equal(m.st.puts, 1);
    assert_int_equal(m.st.latency.max, 1310 - 1000 + 50);
    assert_int_equal(ld_take(&m, 1359), 0);
    assert_int_equal(ld_poll(&m, 1360, NULL, &next), 1);
    assert_int_equal(ld_take(&m, 1360), 1);
    ld_saved(&m, 1700);
    ld_poll(&m, 1710, NULL, NULL);
    assert_int_equal(m.st.puts, 2);
    assert_int_equal(m.st.saves, 2);
    assert_int_equal(m.st.save_ns, 300 + 340);
    ld_free(&m);
}

/* Save k+1 runs while Ready k is applied: the puts answered during Save k+1 ride in Ready k+2, so with
 * many clients and a fast apply the Readys alternate between two groups. */
static void test_pipeline_batches(void **s)
{
    (void)s;
    ld m;
    mk(&m, 4, 0, 10);
    uint64_t next;
    assert_int_equal(ld_take(&m, 1000), 4);          /* everybody's first put */
    ld_saved(&m, 1100);
    assert_int_equal(ld_poll(&m, 1100, NULL, &next), 0); /* the first apply starts at 1100, ends 1110 */
    assert_int_equal(next, 1110);
    assert_int_equal(ld_poll(&m, 1110, NULL, &next), 1);
    assert_int_equal(ld_take(&m, 1110), 1);          /* Ready 2: client 0 alone */
    ld_saved(&m, 1210);                              /* clients 1-3 were answered at 1120, 1130, 1140 */
    assert_int_equal(ld_poll(&m, 1210, NULL, &next), 3);
    assert_int_equal(ld_take(&m, 1210), 3);          /* Ready 3 */
    /* client 0's second put is applied once Save 2 ended, 1210..1220, while Save 3 runs: in no Ready yet */
    assert_int_equal(m.st.puts, 5);
    ld_saved(&m, 1300);
    assert_int_equal(ld_poll(&m, 1300, NULL, &next), 1);
    assert_int_equal(m.st.entries_per_save.count, 3);
    assert_int_equal(m.st.entries_per_save.max, 4);
    ld_free(&m);
}

/* At most one Ready in Save at a time. */
static void test_take_twice(void **s)
{
    (void)s;
    ld m;
    mk(&m, 2, 0, 0);
    assert_int_equal(ld_take(&m, 1000), 2);
    assert_int_equal(ld_take(&m, 1000), -1);
    ld_free(&m);
}

/* A backend commit holds the batch-transaction lock: a put that would start inside a finished commit's
 * interval starts at its end; one behind a commit in progress waits (next LD_NEVER); applies stay in
 * order. */
static void test_backend_lock(void **s)
{
    (void)s;
    ld m;
    mk(&m, 2, 0, 10);
    ld_lock lk = {.n = 1, .start = {1105}, .end = {1150}, .busy_since = LD_NEVER};
    uint64_t next;
    ld_take(&m, 1000);
    ld_saved(&m, 1100);
    assert_int_equal(ld_poll(&m, 1200, &lk, &next), 2);
    /* first put 1100..1110 (started before the commit), the second waited for 1150: 1150..1160 */
    assert_int_equal(m.st.latency.min, 1110 - 1000);
    assert_int_equal(m.st.latency.max, 1160 - 1000);
    assert_int_equal(m.st.blocked_ns, 40);
    ld_free(&m);

    mk(&m, 2, 0, 10);
    ld_lock busy = {.n = 0, .busy_since = 1050};
    ld_take(&m, 1000);
    ld_saved(&m, 1100);
    assert_int_equal(ld_poll(&m, 5000, &busy, &next), 0);
    assert_int_equal(next, LD_NEVER);
    assert_int_equal(m.st.puts, 0);
    busy.busy_since = LD_NEVER; /* it ended at 5100 */
    busy.n = 1;
    busy.start[0] = 1050;
    busy.end[0] = 5100;
    assert_int_equal(ld_poll(&m, 5200, &busy, &next), 2);
    assert_int_equal(m.st.latency.min, 5110 - 1000);
    ld_free(&m);
}

/* Little's law holds in the model: with N clients always busy, puts/s x mean latency = N. */
static void test_closed_loop_steady(void **s)
{
    (void)s;
    ld m;
    const unsigned n = 64;
    mk(&m, n, 30, 2);
    uint64_t now = 1000, next;
    for (int i = 0; i < 2000; i++) {
        while (ld_poll(&m, now, NULL, &next) == 0)
            now = next;
        assert_true(ld_take(&m, now) > 0);
        now += 500; /* every Save takes 500 */
        ld_saved(&m, now);
    }
    double secs = (double)(m.st.last_ns - m.st.first_ns);
    double rate = (double)m.st.puts / secs, mean = (double)m.st.latency.sum / (double)m.st.latency.count;
    assert_in_range((unsigned)(rate * mean * 100 + 0.5), n * 100 - 300, n * 100 + 300);
    /* two groups alternate: about n/2 entries per Save */
    assert_in_range(m.st.entries_per_save.sum / m.st.entries_per_save.count, n / 2 - 2, n / 2 + 2);
    ld_free(&m);
}

/* put_gap_ns paces the clients: 64 clients that could do a put each 1,000 ns at Saves of 500 ns, held to
 * one put per 100 ns all together, do 10 per 1,000 ns; arrivals stay in answer order */
static void test_put_gap(void **s)
{
    (void)s;
    ld m;
    ld_config c = {.clients = 64, .key_bytes = 8, .val_bytes = 256, .client_ns = 30, .apply_ns = 2, .put_gap_ns = 100};
    assert_int_equal(ld_init(&m, &c, 1000, err, sizeof err), 0);
    uint64_t now = 1000, next;
    for (int i = 0; i < 4000; i++) {
        while (ld_poll(&m, now, NULL, &next) == 0)
            now = next;
        assert_true(ld_take(&m, now) > 0);
        now += 500;
        ld_saved(&m, now);
        for (uint32_t k = 1; k < m.qlen; k++) /* the waiting ring is in arrival order */
            assert_true(m.arrive[m.queue[(m.qhead + k - 1) % 64]] <= m.arrive[m.queue[(m.qhead + k) % 64]]);
    }
    double rate = (double)m.st.puts / (double)(m.st.last_ns - m.st.first_ns);
    assert_in_range((unsigned)(rate * 1000 + 0.5), 9, 11);
    /* a Ready now holds the puts of one Save's time at the paced rate, not n/2 */
    assert_true(m.st.entries_per_save.sum / m.st.entries_per_save.count <= 8);
    ld_free(&m);
}


static void test_kinds_parse(void **s)
{
    (void)s;
    kinds k;
    assert_int_equal(kinds_parse("lease:10:49:512,node:0.333333:34:20000", &k, err, sizeof err), 0);
    assert_int_equal(k.n, 2);
    assert_string_equal(k.k[0].name, "lease");
    assert_true(k.k[0].rate == 10.0);
    assert_int_equal(k.k[0].key_bytes, 49);
    assert_int_equal(k.k[0].val_bytes, 512);
    assert_int_equal(k.k[0].weight, 10000000);
    assert_int_equal(k.k[1].weight, 333333);
    assert_int_equal(k.k[1].val_bytes, 20000);
    assert_int_equal(kinds_parse("one:1:8:0", &k, err, sizeof err), 0);
    assert_int_equal(k.n, 1);
    const char *bad[] = {"", "x", "a:1:8", "a:0:8:1", "a:-1:8:1", "a:1:0:1", "a:1:8:1,", "a:1:8:1;b:1:1:1",
                         ":1:8:1", "a:1:8:1x", "a:1:8:9999999", "a:b:8:1", "a:1:8:1,b:1:1:1,c:1:1:1,d:1:1:1,"
                         "e:1:1:1,f:1:1:1,g:1:1:1,h:1:1:1,i:1:1:1"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = '\0';
        assert_int_equal(kinds_parse(bad[i], &k, err, sizeof err), -1);
        assert_non_null(strstr(err, "etcd_kinds"));
        assert_null(strchr(err, '\n'));
    }
}

/* The kinds' sizes are the model's: entry bytes as ld_entry_bytes, and a one-kind mix's pages per commit
 * as ld_commit_pages gives for the same puts. */
static void test_kinds_sizes(void **s)
{
    (void)s;
    const unsigned kb[] = {1, 8, 49, 256, 300}, vb[] = {0, 100, 256, 512, 1024, 20000, 200000};
    for (size_t i = 0; i < sizeof kb / sizeof kb[0]; i++)
        for (size_t j = 0; j < sizeof vb / sizeof vb[0]; j++)
            assert_int_equal(kinds_entry_bytes(kb[i], vb[j]), ld_entry_bytes(kb[i], vb[j]));
    kinds k;
    const char *mixes[] = {"a:110:8:256", "a:10:49:512", "a:10:34:20000", "a:24000:8:256"};
    const unsigned puts[] = {11, 1, 1, 2400};
    for (size_t i = 0; i < 4; i++) {
        assert_int_equal(kinds_parse(mixes[i], &k, err, sizeof err), 0);
        unsigned want = ld_commit_pages(puts[i], k.k[0].key_bytes, k.k[0].val_bytes);
        assert_in_range(kinds_commit_pages(&k, 0.1), want - 1, want + 1);
    }
    assert_int_equal(kinds_parse("lease:10:49:512,node:0.333333:34:20000", &k, err, sizeof err), 0);
    assert_int_equal(kinds_max_entry_bytes(&k), ld_entry_bytes(34, 20000));
    assert_in_range((long)kinds_mean_entry_bytes(&k), 1209, 1211);
}

/* The draw: a function of (seed, n) alone, the same for the same seed; each kind's share near its rate's
 * (10 : 0.333, 3.2 % node statuses); another seed, another sequence. The first draws of seed 1 are fixed
 * here, and bench/putload's Go draw gives the same (its -selftest prints them). */
#define KINDS_SELFTEST_FIRST64 "0000001000000000000010000000000000000000000010000000000000000000"
static void test_kinds_draw(void **s)
{
    (void)s;
    kinds k;
    assert_int_equal(kinds_parse("lease:10:49:512,node:0.333333:34:20000", &k, err, sizeof err), 0);
    unsigned c[2] = {0, 0}, same = 0;
    const unsigned N = 100000;
    for (unsigned n = 0; n < N; n++) {
        unsigned a = kinds_pick(&k, 1, n);
        assert_true(a < 2);
        assert_int_equal(a, kinds_pick(&k, 1, n));
        c[a]++;
        same += a == kinds_pick(&k, 2, n);
    }
    double share = (double)c[1] / N, want = 0.333333 / 10.333333;
    assert_true(share > want * 0.9 && share < want * 1.1);
    assert_true(same < N); /* another seed draws otherwise */
    assert_int_equal(kinds_mix(0), 0xe220a8397b1dcdafull);
    /* the first 64 kinds at seed 1, as `putload -selftest` prints them (bench/k8s_lab.sh compares) */
    char first[65];
    for (unsigned n = 0; n < 64; n++)
        first[n] = (char)('0' + kinds_pick(&k, 1, n));
    first[64] = '\0';
    assert_string_equal(first, KINDS_SELFTEST_FIRST64);
    kinds one;
    assert_int_equal(kinds_parse("a:5:8:8", &one, err, sizeof err), 0);
    assert_int_equal(kinds_pick(&one, 1, 12345), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_entry_bytes),      cmocka_unit_test(test_commit_pages),
        cmocka_unit_test(test_bad_config),       cmocka_unit_test(test_one_client),
        cmocka_unit_test(test_pipeline_batches), cmocka_unit_test(test_take_twice),
        cmocka_unit_test(test_backend_lock),     cmocka_unit_test(test_closed_loop_steady),
        cmocka_unit_test(test_put_gap),
        cmocka_unit_test(test_kinds_parse),      cmocka_unit_test(test_kinds_sizes),
        cmocka_unit_test(test_kinds_draw),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
