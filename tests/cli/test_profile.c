/* SPDX-License-Identifier: MIT */
/* test_profile.c — unit tests of the etcd profile renderer (tools/profile.c): each load level gives the
 * rate, batch (bssplit) and commit lines derived in examples/README.md, and those numbers agree with
 * each other (Saves/s × mean entries per Save = puts/s; pages per commit and append share follow from
 * the puts of one 100 ms batch); options land in the right job; bad input is refused before anything
 * is printed; examples/etcd.fio carries exactly the option lines of load s. The levels s..xl render byte
 * for byte as before the Kubernetes load came (tests/fixtures/profile/, rendered by that profile.c); k8s[:NODES]
 * gives the engine its kinds at the nodes' rates, and a malformed node count is refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tslurp.h"

#include "profile.h"

#ifndef EXAMPLES_DIR
#define EXAMPLES_DIR TEST_FIXTURES "/../../examples"
#endif

static char *render(const profile_opts *o, int *rc, char *err, size_t errlen)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    *rc = profile_write(m, o, err, errlen);
    fclose(m);
    return buf;
}

static profile_opts base(const char *load)
{
    profile_opts o = {.load = load, .dir = "/data/etcd-disk", .engine_path = "/opt/e/libetcdwal.so"};
    return o;
}

/* The text of one job section ("[name]" up to the next section), or an empty string. */
static void section(const char *text, const char *name, char *out, size_t outlen)
{
    char hdr[64];
    snprintf(hdr, sizeof hdr, "[%s]\n", name);
    out[0] = '\0';
    const char *s = strstr(text, hdr);
    if (!s)
        return;
    const char *e = strstr(s + 1, "\n[");
    size_t n = e ? (size_t)(e - s) + 1 : strlen(s);
    if (n >= outlen)
        n = outlen - 1;
    memcpy(out, s, n);
    out[n] = '\0';
}

static long opt_num(const char *sec, const char *key)
{
    char k[64];
    snprintf(k, sizeof k, "\n%s=", key);
    const char *p = strstr(sec, k);
    return p ? strtol(p + strlen(k), NULL, 10) : -1;
}

static void opt_str(const char *sec, const char *key, char *out, size_t outlen)
{
    char k[64];
    snprintf(k, sizeof k, "\n%s=", key);
    const char *p = strstr(sec, k);
    out[0] = '\0';
    if (!p)
        return;
    p += strlen(k);
    size_t n = strcspn(p, "\n");
    if (n >= outlen)
        n = outlen - 1;
    memcpy(out, p, n);
    out[n] = '\0';
}

static const struct {
    const char *load;
    long puts, saves, pages, pct;
    const char *bssplit;
} expect[] = {
    {"s", 150, 150, 12, 67, "1344/100"},
    {"m", 1000, 1000, 54, 93, "1344/100"},
    {"l", 8000, 471, 407, 99, "17472/25:22848/50:28224/25"},
    {"xl", 15000, 484, 760, 99, "33600/25:41664/50:49728/25"},
};

static void test_load_levels(void **state)
{
    (void)state;
    char err[256], wal[4096], be[4096], v[256];
    for (size_t i = 0; i < sizeof expect / sizeof expect[0]; i++) {
        profile_opts o = base(expect[i].load);
        int rc;
        char *t = render(&o, &rc, err, sizeof err);
        assert_int_equal(rc, 0);
        section(t, "etcd-wal", wal, sizeof wal);
        section(t, "etcd-backend", be, sizeof be);
        assert_non_null(strstr(t, "[global]\n"));
        assert_non_null(strstr(t, "\ndirectory=/data/etcd-disk\n"));
        assert_non_null(strstr(t, "\nruntime=60\n"));
        assert_non_null(strstr(t, "\ntime_based=1\n"));

        assert_non_null(strstr(wal, "\nioengine=external:/opt/e/libetcdwal.so\n"));
        assert_non_null(strstr(wal, "\netcd_mode=wal\n"));
        assert_non_null(strstr(wal, "\nrw=write\n"));
        assert_int_equal(opt_num(wal, "fdatasync"), 1);
        assert_int_equal(opt_num(wal, "bs_unaligned"), 1); /* else fio rounds sizes to the smallest */
        assert_int_equal(opt_num(wal, "rate"), expect[i].puts * 1344); /* the puts' WAL bytes per second */
        assert_null(strstr(wal, "rate_iops"));
        assert_null(strstr(wal, "poisson")); /* crashes fio 3.33 together with fdatasync */
        opt_str(wal, "bssplit", v, sizeof v);
        assert_string_equal(v, expect[i].bssplit);
        assert_null(strstr(wal, "prioclass"));

        /* the bssplit is a distribution of whole entries; puts/s ÷ its mean = the Saves/s documented */
        double mean = 0;
        int pct_sum = 0;
        for (char *tok = strtok(v, ":"); tok; tok = strtok(NULL, ":")) {
            long bytes = strtol(tok, NULL, 10);
            int pct = atoi(strchr(tok, '/') + 1);
            assert_int_equal(bytes % 1344, 0);
            mean += (double)(bytes / 1344) * pct / 100.0;
            pct_sum += pct;
        }
        assert_int_equal(pct_sum, 100);
        char about[64];
        snprintf(about, sizeof about, "about %ld Saves/s (", expect[i].saves);
        assert_non_null(strstr(wal, about));
        double puts = mean * (double)expect[i].saves;
        assert_true(puts > 0.99 * (double)expect[i].puts && puts < 1.01 * (double)expect[i].puts);

        assert_non_null(strstr(be, "\nioengine=external:/opt/e/libetcdwal.so\n"));
        assert_non_null(strstr(be, "\netcd_mode=backend\n"));
        assert_int_equal(opt_num(be, "bs"), 4096);
        assert_int_equal(opt_num(be, "thinktime"), 100000);
        long k = opt_num(be, "fdatasync");
        assert_int_equal(k, expect[i].pages);
        assert_int_equal(opt_num(be, "thinktime_blocks"), k);
        assert_int_equal(opt_num(be, "etcd_backend_append_pct"), expect[i].pct);
        /* pages per commit from one 100 ms batch of P puts: ceil((2 + P) / 2) leaves (2 puts a leaf),
         * the branch path (1 + one per 111 new leaves), the root bucket page; 4 of them reused */
        long p = expect[i].puts / 10, leaves = (2 + p + 1) / 2;
        assert_int_equal(k, leaves + 1 + (leaves + 110) / 111 + 1);
        assert_int_equal(opt_num(be, "etcd_backend_append_pct"), ((k - 4) * 100 + k / 2) / k); /* rounded */
        assert_null(strstr(t, "etcd_stats_file"));
        assert_null(strstr(t, "etcd_segment_bytes"));
        free(t);
    }
}

static void test_options(void **state)
{
    (void)state;
    char err[256], wal[4096], be[4096];
    int rc;
    profile_opts o = base("m");
    o.ionice = 1;
    o.runtime_s = 7;
    o.segment_bytes = 4000000;
    o.wal_stats_file = "/tmp/w.json";
    o.backend_stats_file = "/tmp/b.json";
    char *t = render(&o, &rc, err, sizeof err);
    assert_int_equal(rc, 0);
    section(t, "etcd-wal", wal, sizeof wal);
    section(t, "etcd-backend", be, sizeof be);
    assert_non_null(strstr(t, "\nruntime=7\n"));
    assert_non_null(strstr(wal, "\nprioclass=2\nprio=0\n"));
    assert_null(strstr(be, "prio")); /* only the WAL is ioniced, as etcd's tuning advice says */
    assert_non_null(strstr(wal, "\netcd_segment_bytes=4000000\n"));
    assert_null(strstr(be, "etcd_segment_bytes"));
    assert_non_null(strstr(wal, "\netcd_stats_file=/tmp/w.json\n"));
    assert_non_null(strstr(be, "\netcd_stats_file=/tmp/b.json\n"));
    /* engine options come after ioengine= within the job */
    assert_true(strstr(wal, "ioengine=") < strstr(wal, "etcd_mode="));
    assert_true(strstr(be, "ioengine=") < strstr(be, "etcd_mode="));
    free(t);

    o = base("small"); /* etcdctl's aliases */
    o.wal_only = 1;
    o.dir = "/mnt/a:b";
    t = render(&o, &rc, err, sizeof err);
    assert_int_equal(rc, 0);
    assert_null(strstr(t, "[etcd-backend]"));
    assert_non_null(strstr(t, "\nrate=201600\n"));
    assert_non_null(strstr(t, "\ndirectory=/mnt/a\\:b\n")); /* fio splits directory= at ':' */
    free(t);
}

static void test_invalid(void **state)
{
    (void)state;
    char err[256];
    int rc;
    const char *bad_loads[] = {"xxl", "", "S", "s ", NULL};
    for (size_t i = 0; i < sizeof bad_loads / sizeof bad_loads[0]; i++) {
        profile_opts o = base(bad_loads[i]);
        err[0] = '\0';
        char *t = render(&o, &rc, err, sizeof err);
        assert_int_equal(rc, -1);
        assert_string_equal(t, ""); /* nothing half-written */
        assert_non_null(strstr(err, "load"));
        assert_null(strchr(err, '\n'));
        free(t);
        assert_false(profile_load_valid(bad_loads[i]));
    }
    assert_true(profile_load_valid("s") && profile_load_valid("m") && profile_load_valid("l") && profile_load_valid("xl"));
    assert_true(profile_load_valid("xLarge"));

    profile_opts o = base("s");
    o.dir = "/tmp/x\nrw=read";   /* would smuggle an option into the job file */
    char *t = render(&o, &rc, err, sizeof err);
    assert_int_equal(rc, -1);
    assert_string_equal(t, "");
    assert_non_null(strstr(err, "directory"));
    free(t);
    o = base("s");
    o.dir = "";
    t = render(&o, &rc, err, sizeof err);
    assert_int_equal(rc, -1);
    free(t);
    o = base("s");
    o.engine_path = NULL;
    t = render(&o, &rc, err, sizeof err);
    assert_int_equal(rc, -1);
    assert_non_null(strstr(err, "engine"));
    free(t);
    o = base("s");
    o.wal_stats_file = "a\tb";
    t = render(&o, &rc, err, sizeof err);
    assert_int_equal(rc, -1);
    free(t);
    assert_int_equal(profile_write(stdout, NULL, err, sizeof err), -1);
}

/* examples/etcd.fio = `etcd-fio job --load s --dir .` with the install path, plus comments. */
static void test_example_matches(void **state)
{
    (void)state;
    FILE *f = fopen(EXAMPLES_DIR "/etcd.fio", "r");
    if (!f)
        fail_msg("cannot open %s", EXAMPLES_DIR "/etcd.fio");
    char ex[8192] = "", line[512], eng[512] = "";
    while (fgets(line, sizeof line, f)) {
        if (line[0] == ';' || line[0] == '#' || line[0] == '\n')
            continue;
        if (!strncmp(line, "ioengine=external:", 18) && !eng[0]) {
            snprintf(eng, sizeof eng, "%s", line + 18);
            eng[strcspn(eng, "\n")] = '\0';
        }
        strncat(ex, line, sizeof ex - strlen(ex) - 1);
    }
    fclose(f);
    profile_opts o = {.load = "s", .dir = ".", .engine_path = eng};
    char err[256];
    int rc;
    char *t = render(&o, &rc, err, sizeof err);
    assert_int_equal(rc, 0);
    char gen[8192] = "";
    for (char *s = t, *nl; *s; s = nl + 1) {
        nl = strchr(s, '\n');
        if (!nl)
            break;
        if (*s != ';' && *s != '#' && *s != '\n')
            strncat(gen, s, (size_t)(nl - s) + 1);
    }
    assert_string_equal(ex, gen);
    free(t);
}

/* check's phase 1 (heavy): the same jobs, batches, pages and fill as the faithful profile, without the two
 * things that hold etcd's load back (the WAL's rate= and the backend's 100 ms thinktime). */
static void test_heavy(void **state)
{
    (void)state;
    const char *loads[] = {"s", "m", "l", "xl"};
    for (size_t i = 0; i < 4; i++) {
        profile_opts o = base(loads[i]);
        char err[256], fw[4096], hw[4096], fb[4096], hb[4096], a[256], b[256];
        int rc;
        char *f = render(&o, &rc, err, sizeof err);
        assert_int_equal(rc, 0);
        o.heavy = 1;
        char *h = render(&o, &rc, err, sizeof err);
        assert_int_equal(rc, 0);
        section(f, "etcd-wal", fw, sizeof fw);
        section(h, "etcd-wal", hw, sizeof hw);
        section(f, "etcd-backend", fb, sizeof fb);
        section(h, "etcd-backend", hb, sizeof hb);
        assert_true(opt_num(fw, "rate") > 0);
        assert_int_equal(opt_num(hw, "rate"), -1);
        assert_int_equal(opt_num(fb, "thinktime"), 100000);
        assert_int_equal(opt_num(hb, "thinktime"), -1);
        assert_int_equal(opt_num(hb, "thinktime_blocks"), -1);
        const char *same_wal[] = {"bssplit", "fdatasync", "etcd_first_segment_fill", "bs_unaligned", "etcd_mode"};
        for (size_t k = 0; k < 5; k++) {
            opt_str(fw, same_wal[k], a, sizeof a);
            opt_str(hw, same_wal[k], b, sizeof b);
            assert_true(a[0] != '\0');
            assert_string_equal(a, b);
        }
        const char *same_be[] = {"fdatasync", "bs", "etcd_backend_append_pct", "etcd_mode"};
        for (size_t k = 0; k < 4; k++) {
            opt_str(fb, same_be[k], a, sizeof a);
            opt_str(hb, same_be[k], b, sizeof b);
            assert_true(a[0] != '\0');
            assert_string_equal(a, b);
        }
        assert_non_null(strstr(h, "HEAVIER THAN ETCD"));
        assert_null(strstr(f, "HEAVIER THAN ETCD"));
        free(f);
        free(h);
    }
}

/* The fill leaves PROFILE_ROLLOVER_AFTER_S seconds of the load's WAL bytes before the segment's end, and is
 * left out where the segment is smaller than that. */
static void test_first_fill(void **state)
{
    (void)state;
    assert_int_equal(profile_first_fill("s", 0), 64000000ull - 150ull * 1344 * PROFILE_ROLLOVER_AFTER_S);
    assert_int_equal(profile_first_fill("small", 64000000ull), profile_first_fill("s", 0));
    assert_int_equal(profile_first_fill("m", 0), 64000000ull - 1000ull * 1344 * PROFILE_ROLLOVER_AFTER_S);
    assert_int_equal(profile_first_fill("l", 1000000ull), 0);
    assert_int_equal(profile_first_fill("nope", 0), 0);
    profile_opts o = base("xl");
    o.segment_bytes = 4000000;
    char err[256], w[4096];
    int rc;
    char *t = render(&o, &rc, err, sizeof err);
    assert_int_equal(rc, 0);
    section(t, "etcd-wal", w, sizeof w);
    assert_int_equal(opt_num(w, "etcd_first_segment_fill"), -1);
    assert_int_equal(opt_num(w, "etcd_segment_bytes"), 4000000);
    free(t);
    o = base("s");
    t = render(&o, &rc, err, sizeof err);
    section(t, "etcd-wal", w, sizeof w);
    assert_int_equal(opt_num(w, "etcd_first_segment_fill"), 63596800);
    free(t);
}


/* The job files of s, m, l and xl, in four variants (faithful; heavy with stats files; WAL only with a
 * runtime; heavy WAL only at ionice), are byte for byte those tests/fixtures/profile/LOAD-V.fio holds, which
 * the profile.c before the k8s load rendered with the same options: adding a load changed none of them. */
static void test_levels_unchanged(void **state)
{
    (void)state;
    const char *loads[] = {"s", "m", "l", "xl"};
    for (size_t i = 0; i < 4; i++)
        for (int v = 0; v < 4; v++) {
            profile_opts o = base(loads[i]);
            o.heavy = v & 1;
            o.wal_only = (v >> 1) & 1;
            o.ionice = v == 3;
            o.runtime_s = v == 2 ? 30 : 0;
            o.wal_stats_file = v ? "/tmp/w.json" : NULL;
            o.backend_stats_file = v ? "/tmp/b.json" : NULL;
            char err[256], path[512];
            int rc;
            char *t = render(&o, &rc, err, sizeof err);
            assert_int_equal(rc, 0);
            snprintf(path, sizeof path, "%s/profile/%s-%d.fio", TEST_FIXTURES, loads[i], v);
            size_t n;
            char *want = slurp(path, &n);
            if (strcmp(t, want))
                fail_msg("%s differs from the rendering of load %s variant %d:\n%s", path, loads[i], v, t);
            free(want);
            free(t);
        }
}

/* k8s[:NODES]: the kinds at NODES/10 leases and NODES/300 Node statuses a second, one put per Save at the
 * mix's rate (bs = the mean entry, rate = puts/s x bs), the backend's pages of 100 ms of those puts; the
 * heavy phase drops the rate only; the node count is checked. */
static void test_k8s(void **state)
{
    (void)state;
    char err[256], w[4096], b[4096], v[256];
    int rc;
    unsigned nodes = 0;
    assert_int_equal(profile_k8s_nodes("k8s", &nodes), 1);
    assert_int_equal(nodes, PROFILE_K8S_NODES_DEFAULT);
    assert_int_equal(profile_k8s_nodes("k8s:1", &nodes), 1);
    assert_int_equal(nodes, 1);
    assert_int_equal(profile_k8s_nodes("k8s:5000", &nodes), 1);
    assert_int_equal(nodes, 5000);
    const char *bad[] = {"k8s:0", "k8s:5001", "k8s:6000", "k8s:abc", "k8s:", "k8s:-1", "k8s:10x", "k8s:+5"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(profile_k8s_nodes(bad[i], &nodes), -1);
        assert_false(profile_load_valid(bad[i]));
        profile_opts o = base(bad[i]);
        char *t = render(&o, &rc, err, sizeof err);
        assert_int_equal(rc, -1);
        assert_string_equal(t, "");
        assert_non_null(strstr(err, "k8s[:NODES]"));
        free(t);
    }
    assert_int_equal(profile_k8s_nodes("k8sx", &nodes), 0);
    assert_int_equal(profile_k8s_nodes("s", &nodes), 0);

    profile_opts o = base("k8s:1000");
    char *t = render(&o, &rc, err, sizeof err);
    assert_int_equal(rc, 0);
    section(t, "etcd-wal", w, sizeof w);
    section(t, "etcd-backend", b, sizeof b);
    opt_str(w, "etcd_kinds", v, sizeof v);
    assert_string_equal(v, "lease:100:49:512,node:3.33333:34:20000");
    char kt[128];
    profile_k8s_kinds(1000, kt, sizeof kt);
    assert_string_equal(kt, v);
    assert_int_equal(opt_num(w, "etcd_seed"), 1);
    assert_int_equal(opt_num(w, "fdatasync"), 1);
    /* mean entry: (100 x 582 + 3.33333 x 20057) / 103.333 = 1210 bytes */
    assert_int_equal(opt_num(w, "bs"), 1210);
    assert_int_equal(opt_num(w, "rate"), 125033); /* 103.333 puts/s x 1210 */
    assert_null(strstr(w, "bssplit="));
    /* 10 leases (5 a leaf: 2 leaves) + 0.333 Node statuses (5 pages each) + half a leaf, + 3 = 8 pages */
    assert_int_equal(opt_num(b, "fdatasync"), 8);
    assert_int_equal(opt_num(b, "thinktime_blocks"), 8);
    assert_int_equal(opt_num(b, "etcd_backend_append_pct"), 50);
    assert_int_equal(opt_num(w, "etcd_first_segment_fill"), 64000000 - 250066); /* 2 s of 103.333 puts/s x 1210 bytes */
    assert_int_equal(opt_num(w, "etcd_first_segment_fill"), (long)profile_first_fill("k8s:1000", 0));
    free(t);

    o = base("k8s");
    o.heavy = 1;
    t = render(&o, &rc, err, sizeof err);
    assert_int_equal(rc, 0);
    section(t, "etcd-wal", w, sizeof w);
    section(t, "etcd-backend", b, sizeof b);
    opt_str(w, "etcd_kinds", v, sizeof v);
    assert_string_equal(v, "lease:10:49:512,node:0.333333:34:20000");
    assert_int_equal(opt_num(w, "rate"), -1);
    assert_null(strstr(b, "thinktime="));
    assert_int_equal(opt_num(b, "fdatasync"), 4); /* one lease a batch: one leaf + 3 */
    free(t);
    assert_true(profile_mb_per_s("k8s:5000") > profile_mb_per_s("k8s:1"));
    assert_true(profile_mb_per_s("xl") == 55 && profile_mb_per_s("s") == 1);
}

/* The shortest run that can gather n samples of each judged job: the slower pace sets it, and says so. */
static void test_min_runtime(void **state)
{
    (void)state;
    char why[160];
    /* load s: 150 Saves a second, the backend's 10 commits set it: 411 commits in 42 s */
    assert_int_equal((int)profile_min_runtime("s", 411, 5, 0, why, sizeof why), 47);
    assert_string_equal(why, "the backend commits 10 times a second");
    /* the WAL alone at 150 a second: 3 s */
    assert_int_equal((int)profile_min_runtime("s", 411, 1, 1, why, sizeof why), 4);
    assert_non_null(strstr(why, "the WAL syncs about 150 times a second under --load s"));
    /* one node: 1/10 + 1/300 Saves a second */
    assert_int_equal((int)profile_min_runtime("k8s:1", 100, 2, 0, why, sizeof why), 970);
    assert_non_null(strstr(why, "the WAL syncs about 0.103 times a second under --load k8s:1"));
    /* NULL is load s; no why asked: job's --help names the same minimum */
    assert_int_equal((int)profile_min_runtime(NULL, 100, 2, 0, NULL, 0), 12);
    assert_int_equal(atoi(PROFILE_MIN_RUNTIME_STR), 12);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_load_levels),
        cmocka_unit_test(test_options),
        cmocka_unit_test(test_invalid),
        cmocka_unit_test(test_example_matches),
        cmocka_unit_test(test_heavy),
        cmocka_unit_test(test_first_fill),
        cmocka_unit_test(test_levels_unchanged),
        cmocka_unit_test(test_k8s),
        cmocka_unit_test(test_min_runtime),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
