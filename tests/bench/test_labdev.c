/* SPDX-License-Identifier: MIT */
/* test_labdev.c — the slow-disk lab's device model (bench/labdev.c): FIFO queueing on one device, stall
 * windows, the per-byte cost, the lognormal's parameters and the spec parser. All times are passed in, the
 * generator is seeded: no clock, no timing asserts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "labdev.h"

#define MS 1000000ull

static labdev *dev(const char *spec, uint64_t epoch)
{
    labdev_cfg c;
    char err[256];
    assert_int_equal(labdev_parse(&c, spec, err, sizeof err), 0);
    labdev *d = labdev_new(&c, epoch);
    assert_non_null(d);
    return d;
}

/* Three syncs arriving together are served one after another, in arrival order. */
static void test_fifo_same_time(void **state)
{
    (void)state;
    labdev *d = dev("median=2ms", 1000);
    labdev_req a = labdev_submit(d, 1000, 0), b = labdev_submit(d, 1000, 0), c = labdev_submit(d, 1000, 0);
    assert_int_equal(a.start_ns, 1000);
    assert_int_equal(a.finish_ns, 1000 + 2 * MS);
    assert_int_equal(b.start_ns, a.finish_ns);
    assert_int_equal(b.finish_ns, 1000 + 4 * MS);
    assert_int_equal(c.start_ns, b.finish_ns);
    assert_int_equal(c.finish_ns, 1000 + 6 * MS);
    const labdev_stats *s = labdev_get_stats(d);
    assert_int_equal(s->requests, 3);
    assert_int_equal(s->wait_ns, 2 * MS + 4 * MS);
    assert_int_equal(s->max_latency_ns, 6 * MS);
    labdev_free(d);
}

/* A sync arriving at an idle device starts at once; one arriving while it is busy waits for the
 * previous one only (not for later arrivals). */
static void test_idle_and_busy(void **state)
{
    (void)state;
    labdev *d = dev("median=3ms", 0);
    labdev_req a = labdev_submit(d, 10 * MS, 0);
    assert_int_equal(a.start_ns, 10 * MS);
    labdev_req b = labdev_submit(d, 11 * MS, 0); /* arrives while a is in service */
    assert_int_equal(b.start_ns, 13 * MS);
    assert_int_equal(b.finish_ns, 16 * MS);
    labdev_req c = labdev_submit(d, 30 * MS, 0); /* idle again */
    assert_int_equal(c.start_ns, 30 * MS);
    assert_int_equal(c.finish_ns, 33 * MS);
    /* an arrival earlier than the last one seen is treated as arriving then (callers are serialised) */
    labdev_req e = labdev_submit(d, 5 * MS, 0);
    assert_int_equal(e.start_ns, 33 * MS);
    labdev_free(d);
}

/* The per-byte cost: service = median + bytes x per_mib / MiB, exactly (sigma 0). */
static void test_per_byte(void **state)
{
    (void)state;
    labdev *d = dev("median=1ms,per_mib=8ms", 0);
    labdev_req a = labdev_submit(d, 0, 1048576);
    assert_int_equal(a.service_ns, 9 * MS);
    labdev_req b = labdev_submit(d, 100 * MS, 4096 * 16); /* 1/16 MiB: 0.5 ms */
    assert_int_equal(b.service_ns, MS + MS / 2);
    labdev_req c = labdev_submit(d, 200 * MS, 0);
    assert_int_equal(c.service_ns, MS);
    assert_int_equal(labdev_get_stats(d)->bytes, 1048576 + 65536);
    labdev_free(d);
}

/* Stall windows [k x 100 ms, k x 100 ms + 30 ms), k >= 1, from the epoch. */
static void test_stall_windows(void **state)
{
    (void)state;
    uint64_t ep = 7 * MS;
    labdev *d = dev("median=2ms,stall_every=100ms,stall=30ms", ep);
    /* before the first window: untouched, even at time 0 after the epoch */
    labdev_req a = labdev_submit(d, ep + 50 * MS, 0);
    assert_int_equal(a.start_ns, ep + 50 * MS);
    assert_int_equal(a.finish_ns, ep + 52 * MS);
    /* arriving inside a window: starts when it ends */
    labdev_req b = labdev_submit(d, ep + 110 * MS, 0);
    assert_int_equal(b.start_ns, ep + 130 * MS);
    assert_int_equal(b.finish_ns, ep + 132 * MS);
    /* a service running into a window is suspended for it: 1 ms before, 30 ms held, 1 ms after */
    labdev_req c = labdev_submit(d, ep + 199 * MS, 0);
    assert_int_equal(c.start_ns, ep + 199 * MS);
    assert_int_equal(c.finish_ns, ep + 231 * MS);
    assert_int_equal(labdev_get_stats(d)->stalled_ns, 30 * MS);
    /* the window end is exclusive: at +330 ms the device is free again */
    labdev_req e = labdev_submit(d, ep + 330 * MS, 0);
    assert_int_equal(e.start_ns, ep + 330 * MS);
    /* a long service spanning two windows pays both */
    labdev_free(d);
    d = dev("median=150ms,stall_every=100ms,stall=30ms", 0);
    labdev_req f = labdev_submit(d, 50 * MS, 0);
    /* 50..100 (50 ms), stall to 130, 130..200 (70 ms), stall to 230, 230..260 (30 ms) */
    assert_int_equal(f.finish_ns, 260 * MS);
    assert_int_equal(labdev_get_stats(d)->stalled_ns, 60 * MS);
    labdev_free(d);
}

/* With stall_jitter each period k >= 1 holds one window of the stall's length, anywhere in the period
 * (probed by zero-length syncs every 1 ms: one that is held sits in a window), its place drawn from the
 * seed: the same seed, the same windows; over 20 periods of 100 ms the starts spread (min < 20 ms,
 * max > 50 ms into the period), where without jitter every one is at 0. A service running into a window
 * is suspended for it, as for a periodic one. */
static int jitter_starts(const char *spec, uint64_t *start, int nper)
{
    labdev *d = dev(spec, 0);
    for (int k = 0; k <= nper; k++)
        start[k] = UINT64_MAX;
    int bad = 0;
    uint64_t end = 0; /* the end of the window the last held probe was in */
    for (uint64_t t = 0; t < (uint64_t)(nper + 1) * 100 * MS; t += MS) {
        labdev_req r = labdev_submit(d, t, 0);
        if (r.start_ns == t)
            continue;
        if (r.start_ns != end) { /* a new window: it ends where the probe starts, 30 ms after it began */
            end = r.start_ns;
            int k = (int)((end - 30 * MS) / (100 * MS));
            bad |= start[k] != UINT64_MAX || end - t > 30 * MS; /* one a period, held at most its length */
            start[k] = end - 30 * MS;
        }
    }
    labdev_free(d);
    return bad;
}

static void test_stall_jitter(void **state)
{
    (void)state;
    enum { N = 20 };
    uint64_t a[N + 1], b[N + 1];
    assert_int_equal(jitter_starts("stall_every=100ms,stall=30ms,stall_jitter=1,seed=3", a, N), 0);
    assert_int_equal(jitter_starts("stall_every=100ms,stall=30ms,stall_jitter=1,seed=3", b, N), 0);
    assert_memory_equal(a, b, sizeof a);
    assert_true(a[0] == UINT64_MAX); /* none in the first period */
    uint64_t lo = UINT64_MAX, hi = 0;
    for (int k = 1; k <= N; k++) {
        assert_true(a[k] != UINT64_MAX);
        uint64_t off = a[k] - (uint64_t)k * 100 * MS;
        assert_true(off + 30 * MS <= 100 * MS); /* the window lies inside its period */
        lo = off < lo ? off : lo;
        hi = off > hi ? off : hi;
    }
    assert_true(lo < 20 * MS && hi > 50 * MS);
    assert_int_equal(jitter_starts("stall_every=100ms,stall=30ms,stall_jitter=0,seed=3", b, N), 0);
    for (int k = 1; k <= N; k++)
        assert_true(b[k] == (uint64_t)k * 100 * MS);
    /* a sync arriving as window 1 begins waits all of it */
    labdev *d = dev("stall_every=100ms,stall=30ms,stall_jitter=1,seed=3", 0);
    labdev_req r = labdev_submit(d, a[1], 0);
    assert_int_equal(r.start_ns, a[1] + 30 * MS);
    labdev_free(d);
    /* a 10 ms service starting 5 ms before window 2 is held through it */
    d = dev("median=10ms,stall_every=100ms,stall=30ms,stall_jitter=1,seed=3", 0);
    r = labdev_submit(d, a[2] - 5 * MS, 0);
    assert_int_equal(r.finish_ns, a[2] - 5 * MS + 40 * MS);
    assert_int_equal(labdev_get_stats(d)->stalled_ns, 30 * MS);
    labdev_free(d);
}

/* The lognormal: with a seed, the sample median is the configured median and the standard deviation of
 * ln(service) is sigma (200,000 draws: both within 1.5 %); the same seed gives the same stream. */
static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static void test_lognormal(void **state)
{
    (void)state;
    enum { N = 200000 };
    uint64_t *v = malloc(N * sizeof *v);
    assert_non_null(v);
    labdev *d = dev("median=4ms,sigma=0.6,seed=42", 0);
    double s1 = 0, s2 = 0;
    for (int i = 0; i < N; i++) {
        v[i] = labdev_draw(d);
        double l = log((double)v[i]);
        s1 += l;
        s2 += l * l;
    }
    qsort(v, N, sizeof *v, cmp_u64);
    double med = (double)v[N / 2], mean = s1 / N, sd = sqrt(s2 / N - mean * mean);
    assert_true(fabs(med / (4.0 * MS) - 1) < 0.015);
    assert_true(fabs(sd / 0.6 - 1) < 0.015);
    /* p99 of a lognormal is median x exp(2.326 sigma) */
    double p99 = (double)v[(int)(N * 0.99)];
    assert_true(fabs(p99 / (4.0 * MS * exp(2.3263 * 0.6)) - 1) < 0.03);
    labdev_free(d);

    labdev *x = dev("median=4ms,sigma=0.6,seed=42", 0), *y = dev("median=4ms,sigma=0.6,seed=42", 0),
           *z = dev("median=4ms,sigma=0.6,seed=43", 0);
    int diff = 0;
    for (int i = 0; i < 100; i++) {
        uint64_t a = labdev_draw(x), b = labdev_draw(y), c = labdev_draw(z);
        assert_int_equal(a, b);
        diff += a != c;
    }
    assert_true(diff > 90);
    labdev_free(x);
    labdev_free(y);
    labdev_free(z);
    free(v);
}

/* Queueing with random service times still keeps FIFO: starts and finishes never go backwards and each
 * start is max(arrival, previous finish) (outside stalls). */
static void test_fifo_random(void **state)
{
    (void)state;
    labdev *d = dev("median=2ms,sigma=1.0,per_mib=10ms,seed=3", 0);
    uint64_t prev_finish = 0, t = 0;
    for (int i = 0; i < 5000; i++) {
        t += (uint64_t)(i % 7) * MS / 3;
        labdev_req r = labdev_submit(d, t, (uint64_t)(i % 5) * 4096);
        uint64_t want = t > prev_finish ? t : prev_finish;
        assert_int_equal(r.start_ns, want);
        assert_int_equal(r.finish_ns, r.start_ns + r.service_ns);
        prev_finish = r.finish_ns;
    }
    labdev_free(d);
}

/* The model changes under load: the request already queued keeps its schedule, the next one queues behind
 * it and takes the new service time; the statistics go on; a new seed restarts the random stream. */
static void test_set_cfg(void **state)
{
    (void)state;
    labdev *d = dev("median=1ms", 0);
    labdev_req a = labdev_submit(d, 0, 0), b = labdev_submit(d, 0, 0);
    assert_int_equal(b.finish_ns, 2 * MS);
    labdev_cfg slow;
    char err[256];
    assert_int_equal(labdev_parse(&slow, "median=20ms:per_mib=10ms", err, sizeof err), 0);
    labdev_set_cfg(d, &slow);
    assert_int_equal(labdev_get_cfg(d)->median_ns, 20 * MS);
    labdev_req c = labdev_submit(d, MS, 1048576); /* arrives while b is still served */
    assert_int_equal(c.start_ns, b.finish_ns);
    assert_int_equal(c.service_ns, 30 * MS);
    assert_int_equal(c.finish_ns, 32 * MS);
    assert_int_equal(labdev_get_stats(d)->requests, 3);
    labdev_cfg back;
    assert_int_equal(labdev_parse(&back, "median=1ms", err, sizeof err), 0);
    labdev_set_cfg(d, &back);
    labdev_req e = labdev_submit(d, 100 * MS, 0); /* idle again: served at once, 1 ms */
    assert_int_equal(e.start_ns, 100 * MS);
    assert_int_equal(e.finish_ns, 101 * MS);
    (void)a;
    labdev_free(d);
    /* the random stream: the same seed goes on, another seed starts its own stream */
    labdev *x = dev("median=2ms:sigma=0.5:seed=3", 0), *y = dev("median=2ms:sigma=0.5:seed=9", 0);
    labdev_cfg s9;
    assert_int_equal(labdev_parse(&s9, "median=2ms:sigma=0.5:seed=9", err, sizeof err), 0);
    labdev_draw(x);
    labdev_set_cfg(x, &s9);
    assert_int_equal(labdev_draw(x), labdev_draw(y));
    labdev_free(x);
    labdev_free(y);
}

static void test_parse(void **state)
{
    (void)state;
    labdev_cfg c;
    char err[256];
    assert_int_equal(labdev_parse(&c, "median=250us,sigma=0.5,per_mib=1.5,stall_every=10s,stall=200ms,seed=9", err,
                                  sizeof err), 0);
    assert_int_equal(c.median_ns, 250000);
    assert_true(c.sigma == 0.5);
    assert_int_equal(c.ns_per_mib, 1500000);
    assert_int_equal(c.stall_every_ns, 10000000000ull);
    assert_int_equal(c.stall_ns, 200 * MS);
    assert_int_equal(c.seed, 9);
    char buf[256];
    labdev_format(&c, buf, sizeof buf);
    assert_string_equal(buf, "median=0.250ms,sigma=0.50,per_mib=1.500ms,stall_every=10.000s,stall=200.000ms,seed=9");
    assert_int_equal(labdev_parse(&c, "median=3ms:sigma=0.25:seed=4", err, sizeof err), 0);
    assert_int_equal(c.median_ns, 3 * MS);
    assert_true(c.sigma == 0.25);
    assert_int_equal(c.seed, 4);
    assert_int_equal(labdev_parse(&c, "", err, sizeof err), 0);
    assert_int_equal(c.median_ns, 0);

    assert_int_equal(labdev_parse(&c, "median=2ms,speed=3", err, sizeof err), -1);
    assert_non_null(strstr(err, "byte 11"));
    assert_non_null(strstr(err, "unknown key 'speed'"));
    assert_int_equal(labdev_parse(&c, "median=2parsecs", err, sizeof err), -1);
    assert_non_null(strstr(err, "byte 7"));
    assert_int_equal(labdev_parse(&c, "median", err, sizeof err), -1);
    assert_int_equal(labdev_parse(&c, "sigma=-1", err, sizeof err), -1);
    assert_int_equal(labdev_parse(&c, "seed=-1", err, sizeof err), -1);
    assert_int_equal(labdev_parse(&c, "median=", err, sizeof err), -1);
    assert_int_equal(labdev_parse(&c, "stall=10ms", err, sizeof err), -1);
    assert_int_equal(labdev_parse(&c, "stall_every=1s,stall=1s", err, sizeof err), -1);
    assert_non_null(strstr(err, "stall < stall_every"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fifo_same_time), cmocka_unit_test(test_idle_and_busy),
        cmocka_unit_test(test_per_byte),       cmocka_unit_test(test_stall_windows), cmocka_unit_test(test_stall_jitter),
        cmocka_unit_test(test_lognormal),      cmocka_unit_test(test_fifo_random),
        cmocka_unit_test(test_parse),          cmocka_unit_test(test_set_cfg),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
