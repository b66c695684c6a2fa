/* SPDX-License-Identifier: MIT */
/* test_fleet_ssh.c — fleet --ssh's pure steps: the host list ([USER@]HOST[:DIR], hosts files with odd lines,
 * hostile names refused), the remote command's quoting and ssh's argv, fleet_printable, the loopback test of
 * --client, and the judge of one host: how its ssh ended (unreachable, key refused, no etcd-fio, an older one,
 * timeout, interrupted, too much output) and fleet_remote_proof() over real and hostile remote JSON (a PASS
 * only with the numbers that prove it under this run's criteria; a key given twice, a wrong type, a schema
 * of another version, a run that did not end normally, an unconfirmed phase 1: never a PASS), every cut
 * and a byte change at every offset of a real result, and every message of a real and a made-up result said
 * otherwise: the same verdicts on the same grounds (what fleet proves rests on fields, never on wording). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fleet.h"
#include "tslurp.h"

static void fleet_init(fleet *f)
{
    memset(f, 0, sizeof *f);
    f->confidence = 0.95;
    f->load = "s";
    f->dir = "/var/lib/etcd";
    f->max_time = 7;
    f->min_syncs = 20;
    f->remote_bin = "etcd-fio";
    f->ssh = "ssh";
    f->parallel = 4;
    f->ssh_timeout = 90;
}

static void test_hosts(void **state)
{
    (void)state;
    fleet f;
    fleet_init(&f);
    char err[1024];
    assert_int_equal(fleet_add_ssh(&f, "node1", "--ssh", err, sizeof err), 0);
    assert_int_equal(fleet_add_ssh(&f, "root@node1:/var/lib/rancher/rke2/server/db/etcd", "--ssh", err, sizeof err), 0);
    assert_string_equal(f.s[1].dest, "root@node1");
    assert_string_equal(f.s[1].dir, "/var/lib/rancher/rke2/server/db/etcd");
    assert_int_equal(fleet_add_ssh(&f, "ops@[fe80::1]:/srv/etcd", "--ssh", err, sizeof err), 0);
    assert_string_equal(f.s[2].dest, "ops@fe80::1");
    assert_int_equal(fleet_add_ssh(&f, "10.0.0.7", "--ssh", err, sizeof err), 0);
    assert_int_equal(fleet_add_ssh(&f, "node1", "--ssh", err, sizeof err), -1);
    assert_string_equal(err, "--ssh: node1 is listed twice");
    /* a host that would be an option, a shell word, or anything but a name */
    static const char *const bad[] = {"-oProxyCommand=touch /tmp/x", "-l", ".hidden", "node;rm -rf /", "node|x", "a b",
                                      "node$(id)", "node`id`", "us er@node", "@node", "user@", "[::1", "[::1]x", "[zz]",
                                      "n\033[2Jx", "nöde", "node:", "node:relative", "node:/a'b", "node:/a\\b",
                                      "node:/a$b", "node:/a!b", "node:/a\"b", "node:/a#b", "node:/a;b", "node:/a\nb",
                                      "a@b@c", ""};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        err[0] = '\0';
        assert_int_equal(fleet_add_ssh(&f, bad[i], "--ssh", err, sizeof err), -1);
        assert_non_null(strstr(err, "--ssh"));
        assert_null(strchr(err, '\033'));   /* never echoed raw */
        assert_null(strchr(err, '\n'));
    }
    assert_int_equal(f.ns, 4);

    /* a hosts file: CRLF, tabs, comments, blank lines; then the line that is wrong, by number */
    const char *text = "# nodes\r\n\tnode2:/srv/etcd  # rke2\r\n\n  ops@node3\n";
    assert_int_equal(fleet_parse_ssh_hosts(&f, "hosts", text, strlen(text), err, sizeof err), 0);
    assert_int_equal(f.ns, 6);
    assert_string_equal(f.s[4].dir, "/srv/etcd");
    assert_string_equal(f.s[5].dest, "ops@node3");
    assert_int_equal(fleet_parse_ssh_hosts(&f, "h2", "node4\nnode5 extra\n", 18, err, sizeof err), -1);
    assert_string_equal(err, "h2:2: unexpected 'extra' (expected [USER@]HOST[:DIR])");
    assert_int_equal(fleet_parse_ssh_hosts(&f, "h3", "node6\n\0node7\n", 13, err, sizeof err), -1);
    assert_string_equal(err, "h3:2: a NUL byte in the line (expected [USER@]HOST[:DIR])");
    assert_int_equal(fleet_parse_ssh_hosts(&f, "h4", "# none\n\n", 8, err, sizeof err), -1);
    assert_non_null(strstr(err, "no hosts"));
    assert_int_equal(fleet_parse_ssh_hosts(&f, "h5", "-oProxyCommand=x\n", 17, err, sizeof err), -1);
    assert_non_null(strstr(err, "h5:1: bad host"));
    char *big = malloc(10000);
    memset(big, 'a', 9999);
    big[9999] = '\n';
    assert_int_equal(fleet_parse_ssh_hosts(&f, "h6", big, 10000, err, sizeof err), -1);
    assert_string_equal(err, "h6:1: line too long");
    free(big);
    /* a hosts file of a million lines is refused at the cap, not grown into */
    size_t n = 0;
    char *many = malloc(20 * 12000);
    for (int i = 0; i < 12000; i++)
        n += (size_t)sprintf(many + n, "n%d\n", i);
    assert_int_equal(fleet_parse_ssh_hosts(&f, "h7", many, n, err, sizeof err), -1);
    assert_non_null(strstr(err, "more than 10000 ssh hosts"));
    free(many);
    free(f.s);
}

static void test_command(void **state)
{
    (void)state;
    fleet f;
    fleet_init(&f);
    char err[256], cmd[4096];
    assert_int_equal(fleet_add_ssh(&f, "node1:/srv/my etcd", "--ssh", err, sizeof err), 0);
    f.accept_point = 1;
    f.faithful = 1;
    assert_int_equal(fleet_ssh_command(&f, &f.s[0], cmd, sizeof cmd), 0);
    assert_string_equal(cmd, "'etcd-fio' 'check' '--json' '--stop-on-eof' '--load=s' '--max-time=7' '--min-syncs=20' "
                             "'--confidence=0.95' '--accept-point-estimate' '--faithful' '--' '/srv/my etcd'");
    /* a quote inside a word (never from the operator: refused) would still stay one word */
    fleet_ssh q = f.s[0];
    snprintf(q.dir, sizeof q.dir, "/a'b");
    assert_int_equal(fleet_ssh_command(&f, &q, cmd, sizeof cmd), 0);
    assert_non_null(strstr(cmd, "'--' '/a'\\''b'"));
    assert_int_equal(fleet_ssh_command(&f, &f.s[0], cmd, 40), -1); /* too long: refused, not cut */
    const char *argv[32];
    f.ssh_config = "/etc/fleet/ssh_config";
    size_t n = fleet_ssh_argv(&f, &f.s[0], "CMD", argv, 32);
    assert_true(n > 5);
    assert_null(argv[n]);
    assert_string_equal(argv[0], "ssh");
    assert_string_equal(argv[1], "-T");
    assert_string_equal(argv[2], "-oBatchMode=yes");
    assert_string_equal(argv[n - 3], "--");   /* nothing after it is an option */
    assert_string_equal(argv[n - 2], "node1");
    assert_string_equal(argv[n - 1], "CMD");
    int has_f = 0;
    for (size_t i = 0; i < n; i++)
        has_f |= !strcmp(argv[i], "-F") && !strcmp(argv[i + 1], "/etc/fleet/ssh_config");
    assert_true(has_f);
    assert_int_equal(fleet_remote_word_ok("x", "/usr/local/bin/etcd-fio", err, sizeof err), 0);
    assert_int_equal(fleet_remote_word_ok("x", "/opt/$HOME", err, sizeof err), -1);
    assert_non_null(strstr(err, "byte 6"));
    free(f.s);
}

static void test_printable_loopback(void **state)
{
    (void)state;
    char out[64];
    const char in[] = "a\033]0;x\007b\r\nc\x7f\xc2\x9b" "d";
    fleet_printable(out, sizeof out, in, sizeof in - 1);
    assert_string_equal(out, "a?]0;x?b  c???d");
    fleet_printable(out, 4, "abcdef", 6);
    assert_string_equal(out, "abc");
    static const char *const lo[] = {"127.0.0.1", "127.255.0.9", "::1", "::ffff:127.0.0.1", "localhost", "LOCALHOST"};
    static const char *const not_lo[] = {"10.0.0.1", "128.0.0.1", "node1", "::2", "0.0.0.0", "localhost.evil.com"};
    for (size_t i = 0; i < 6; i++) {
        assert_true(fleet_is_loopback(lo[i]));
        assert_false(fleet_is_loopback(not_lo[i]));
    }
}

/* ---- the judge ---- */

typedef struct jparams {
    const char *run_verdict, *host_verdict, *status, *end, *decided_by, *phase2, *wal_v, *be_v, *extra_job, *basis;
    const char *wal_samples, *min_samples, *wal_thr_job;
    long long wal_p99, wal_lo, wal_hi, be_p99, be_lo, be_hi;
    double confidence;
    int exit_status;
    long long p50;
} jparams;

static const jparams PASS = {"pass", "pass", "judged", "decided", "2", "{\"seconds\":7,\"end\":\"decided\"}",
                             "pass", "pass", "", "bound", "1050", "20", "10000000", 2000000, 1500000, 2500000, 5000000,
                             4000000, 6000000, 0.95, 0, 200000};

static char *doc(const jparams *p)
{
    char *b = malloc(8192);
    snprintf(b, 8192,
             "{\"schema\":1,\"command\":\"check\",\"tool_version\":\"2.1.0\",\"fio_version\":\"fio-3.33\",\"hostname\":\"n1\","
             "\"timestamp\":1,\"verdict\":\"%s\",\"exit_status\":%d,\"basis\":\"bound\",\"reason\":\"r\","
             "\"criteria\":{\"percentile\":99,\"wal_threshold_ns\":10000000,\"backend_threshold_ns\":25000000,"
             "\"min_samples\":%s,\"confidence\":%g},\"load\":\"s\",\"hosts\":[{\"host\":\"n1\",\"port\":null,\"dir\":\"/d\","
             "\"status\":\"%s\",\"server_hostname\":null,\"fio_version\":\"fio-3.33\",\"verdict\":\"%s\",\"basis\":\"%s\","
             "\"reason\":\"remote reason\",\"rollovers\":1,\"duration_s\":7.5,\"jobs\":["
             "{\"name\":\"etcd-wal\",\"source\":\"fio\",\"run\":1,\"role\":\"wal\",\"samples\":%s,\"p50_ns\":%lld,"
             "\"p99_ns\":%lld,\"p99_9_ns\":%lld,\"max_ns\":%lld,\"judged_ns\":%lld,\"bound_lo_ns\":%lld,\"bound_hi_ns\":%lld,"
             "\"threshold_ns\":%s,\"verdict\":\"%s\",\"reason\":\"w\"},"
             "{\"name\":\"etcd-backend\",\"source\":\"fio\",\"run\":1,\"role\":\"backend\",\"samples\":400,\"p50_ns\":%lld,"
             "\"p99_ns\":%lld,\"p99_9_ns\":%lld,\"max_ns\":%lld,\"judged_ns\":%lld,\"bound_lo_ns\":%lld,\"bound_hi_ns\":%lld,"
             "\"threshold_ns\":25000000,\"verdict\":\"%s\",\"reason\":\"b\"}%s]}],"
             "\"details\":{\"run\":{\"seconds\":7,\"end\":\"%s\"},\"phases\":{\"decided_by\":%s,\"phase1\":null,"
             "\"phase2\":%s,\"probe\":null}},\"explain\":[]}\n",
             p->run_verdict, p->exit_status, p->min_samples, p->confidence, p->status, p->host_verdict, p->basis, p->wal_samples,
             p->p50, p->wal_p99, p->wal_p99, p->wal_p99, p->wal_p99, p->wal_lo, p->wal_hi, p->wal_thr_job, p->wal_v, p->p50, p->be_p99,
             p->be_p99, p->be_p99, p->be_p99, p->be_lo, p->be_hi, p->be_v, p->extra_job, p->end, p->decided_by,
             p->phase2);
    return b;
}

/* Judges one host whose ssh exited with `status` after printing out (stderr err). */
static result_host judge(fleet *f, const char *out, int status, const char *err, ssh_stop stop, int interrupted)
{
    static fleet_ssh s;
    static result_run r;
    static int init;
    if (init)
        result_free(&r);
    init = 1;
    memset(&s, 0, sizeof s);
    snprintf(s.dest, sizeof s.dest, "node1");
    s.out = (char *)out;
    s.outlen = out ? strlen(out) : 0;
    s.status = status;
    s.stop = stop;
    snprintf(s.err, sizeof s.err, "%s", err ? err : "");
    s.errlen = strlen(s.err);
    fior_criteria *c = fior_criteria_new();
    fior_criteria_set_min_samples(c, 20);
    result_init(&r, "fleet", c);
    result_host *h = result_add_host(&r);
    fleet_ssh_judge(f, c, &s, interrupted, h);
    fior_criteria_free(c);
    return *h;
}

static result_host judge_doc(fleet *f, const jparams *p)
{
    char *d = doc(p);
    result_host h = judge(f, d, p->exit_status, "", SSH_NOT_STOPPED, 0);
    free(d);
    return h;
}

#define EXPECT(h, v, st, text)                                                                                        \
    do {                                                                                                              \
        assert_int_equal((h).verdict, (v));                                                                           \
        assert_string_equal((h).status, (st));                                                                        \
        if (!strstr((h).reason, (text)))                                                                              \
            fail_msg("reason '%s' lacks '%s'", (h).reason, (text));                                                  \
    } while (0)

/* The remote's JSON with every English message said otherwise: the value of each "reason", "why", "advice",
 * "next", "note", "how" and "text" key becomes "said otherwise". What fleet proves must rest on the fields
 * (verdicts, bases, ends, numbers), never on the wording of a message. Returns a new string. */
static char *reword(const char *in)
{
    static const char *const keys[] = {"\"reason\"", "\"why\"", "\"advice\"", "\"next\"", "\"note\"", "\"how\"",
                                       "\"text\""};
    size_t n = strlen(in), k = 0;
    char *out = malloc(n + 1);
    assert_non_null(out);
    for (size_t i = 0; i < n;) {
        size_t kl = 0;
        for (size_t q = 0; q < sizeof keys / sizeof *keys && !kl; q++)
            if (!strncmp(in + i, keys[q], strlen(keys[q])))
                kl = strlen(keys[q]);
        if (!kl) {
            out[k++] = in[i++];
            continue;
        }
        size_t j = i + kl;
        while (in[j] == ' ' || in[j] == ':')
            j++;
        if (in[j] != '"') { /* a key of that name whose value is not a string: as it is */
            memcpy(out + k, in + i, j - i);
            k += j - i;
            i = j;
            continue;
        }
        memcpy(out + k, in + i, j - i); /* the key and its colon */
        k += j - i;
        size_t e = j + 1;
        while (in[e] && in[e] != '"')
            e += in[e] == '\\' && in[e + 1] ? 2 : 1;
        static const char said[] = "\"said otherwise\"";
        if (e - j + 1 >= sizeof said - 1) { /* the new text is no longer than the old: out has room */
            memcpy(out + k, said, sizeof said - 1);
            k += sizeof said - 1;
        } else {
            memcpy(out + k, in + j, e - j + 1);
            k += e - j + 1;
        }
        i = e + 1;
    }
    out[k] = '\0';
    return out;
}

static void test_proof(void **state)
{
    (void)state;
    fleet f;
    fleet_init(&f);
    result_host h = judge_doc(&f, &PASS);
    EXPECT(h, FIOR_PASS, "judged", "WAL: p99 2 ms < 10 ms (1050 samples, bound 1.5 ms..2.5 ms); backend: p99 5 ms");
    assert_int_equal(h.basis, RESULT_BASIS_BOUND);
    assert_int_equal(h.njobs, 2);
    assert_string_equal(h.server_hostname, "n1");
    jparams p = PASS;
    p.be_hi = 30000000; /* the backend's bound straddles 25 ms */
    h = judge_doc(&f, &p);
    EXPECT(h, FIOR_UNKNOWN, "judged", "straddles 25 ms");
    assert_int_equal(h.basis, RESULT_BASIS_UNDECIDED);
    f.accept_point = 1;
    h = judge_doc(&f, &p);
    EXPECT(h, FIOR_PASS, "judged", "WAL: ");
    assert_int_equal(h.basis, RESULT_BASIS_POINT);
    f.accept_point = 0;
    p = PASS;
    p.run_verdict = p.host_verdict = "fail";
    p.exit_status = 1;
    p.wal_v = "fail";
    p.wal_p99 = 15000000, p.wal_lo = 12000000, p.wal_hi = 18000000;
    h = judge_doc(&f, &p);
    EXPECT(h, FIOR_FAIL, "judged", "WAL: p99 15 ms >= 10 ms");

    /* each missing proof: unknown, never a PASS */
    struct { jparams p; const char *text; } cases[] = {
        {PASS, ""}, {PASS, ""}, {PASS, ""}, {PASS, ""}, {PASS, ""}, {PASS, ""}, {PASS, ""}, {PASS, ""}, {PASS, ""},
        {PASS, ""}, {PASS, ""}, {PASS, ""}, {PASS, ""}, {PASS, ""}, {PASS, ""}, {PASS, ""}, {PASS, ""}, {PASS, ""},
        {PASS, ""}, {PASS, ""}, {PASS, ""}, {PASS, ""},
    };
    size_t n = 0;
    cases[n].p.wal_samples = "19", cases[n++].text = "WAL: 19 samples, this run needs 20";
    cases[n].p.wal_samples = "null", cases[n++].text = "WAL: no count of samples, this run needs 20";
    cases[n].p.min_samples = "100", cases[n++].text = "other criteria";
    cases[n].p.confidence = 0.9, cases[n++].text = "other criteria";
    cases[n].p.wal_thr_job = "20000000", cases[n++].text = "WAL: judged against 20 ms, not 10 ms";
    cases[n].p.end = "interrupted", cases[n++].text = "ended 'interrupted', not normally";
    cases[n].p.end = "fio-died", cases[n++].text = "ended 'fio-died'";
    /* the English words a check prints are not the protocol: a remote that wrote them is not believed */
    cases[n].p.end = "stopped early: decided", cases[n++].text = "ended 'stopped early: decided', not normally";
    cases[n].p.decided_by = "\"phase 2\"", cases[n++].text = "does not say which phase decided";
    cases[n].p.basis = "undecided", cases[n++].text = "rests on 'undecided'";
    cases[n].p.basis = "value", cases[n++].text = "rests on 'value'";
    cases[n].p.decided_by = "1", cases[n].p.phase2 = "null", cases[n++].text = "phase-1 result was not confirmed";
    cases[n].p.wal_p99 = 12000000, cases[n++].text = "the remote says pass, but its p99 is 12 ms against 10 ms";
    cases[n].p.run_verdict = "fail", cases[n++].text = "contradicts itself";
    cases[n].p.exit_status = 1, cases[n++].text = "contradicts itself";
    cases[n].p.extra_job = ",{\"name\":\"x\",\"source\":\"fio\",\"run\":1,\"role\":\"wal\",\"samples\":999,\"p50_ns\":200000,"
                           "\"p99_ns\":200000,\"p99_9_ns\":200000,\"max_ns\":200000,\"judged_ns\":200000,"
                           "\"bound_lo_ns\":100000,\"bound_hi_ns\":300000,"
                           "\"threshold_ns\":10000000,\"verdict\":\"pass\",\"reason\":\"\"}",
        cases[n++].text = "2 WAL and 1 backend jobs";
    cases[n].p.wal_hi = -1, cases[n++].text = "not a count of nanoseconds";
    /* numbers no real run gives (an attack: a PASS from 100 samples at p50 1 us, p99 < p50) */
    cases[n].p.p50 = 1000, cases[n++].text = "WAL: a median of 1 us, below what any flush to a disk takes (5 us)";
    cases[n].p.wal_samples = "100",
        cases[n++].text = "WAL: an upper bound on the p99 from 100 samples, which cannot give one with 95 % confidence "
                          "(that needs 368)";
    /* 300 samples: a one-sided bound could exist (299), the two-sided one a check prints cannot */
    cases[n].p.wal_samples = "300",
        cases[n++].text = "WAL: an upper bound on the p99 from 300 samples, which cannot give one with 95 % confidence "
                          "(that needs 368)";
    cases[n].p.p50 = 3000000, cases[n++].text = "WAL: quantiles out of order (p50 3 ms, p99 2 ms";
    cases[n].p.wal_lo = 2100000, cases[n++].text = "WAL: its bound 2.1 ms..2.5 ms does not hold its p99 2 ms";
    assert_true(n == sizeof cases / sizeof *cases); /* every slot used, none written past */
    for (size_t i = 0; i < n; i++) {
        h = judge_doc(&f, &cases[i].p);
        assert_int_equal(h.verdict, FIOR_UNKNOWN);
        if (!strstr(h.reason, cases[i].text))
            fail_msg("case %zu: reason '%s' lacks '%s'", i, h.reason, cases[i].text);
        for (size_t k = 0; k < h.njobs; k++)
            assert_int_not_equal(h.jobs[k].verdict, FIOR_PASS);
    }
    /* a phase-1 result confirmed by phase 2 stands */
    p = PASS;
    p.decided_by = "1";
    char *d = doc(&p), *q = strstr(d, "\"probe\":null");
    assert_non_null(q);
    char *d2 = malloc(strlen(d) + 64);
    snprintf(d2, strlen(d) + 64, "%.*s\"probe\":{\"ok\":true}%s", (int)(q - d), d, q + strlen("\"probe\":null"));
    h = judge(&f, d2, 0, "", SSH_NOT_STOPPED, 0);
    EXPECT(h, FIOR_PASS, "judged", "WAL:");
    /* the remote says unknown, its numbers look like a pass: never a PASS here either */
    p = PASS;
    p.run_verdict = p.host_verdict = "unknown";
    p.exit_status = 2;
    h = judge_doc(&f, &p);
    EXPECT(h, FIOR_UNKNOWN, "judged", "the remote check could not decide: remote reason");
    /* a remote unknown for too few samples claims nothing: unknown, judged, its reason */
    p.wal_v = "unknown";
    p.wal_samples = "19";
    h = judge_doc(&f, &p);
    EXPECT(h, FIOR_UNKNOWN, "judged", "the remote check could not decide: remote reason");
    /* the remote says pass, its numbers fail: unproven */
    p = PASS;
    p.wal_v = "fail";
    p.wal_p99 = 15000000, p.wal_lo = 12000000, p.wal_hi = 18000000;
    h = judge_doc(&f, &p);
    EXPECT(h, FIOR_UNKNOWN, "unproven", "the remote check says pass (remote reason), its numbers say fail");
    /* a check that could not judge: its own status and reason */
    p.status = "fio-failed";
    h = judge_doc(&f, &p);
    EXPECT(h, FIOR_UNKNOWN, "fio-failed", "the remote check: fio-failed: remote reason");
    /* interrupted (a stop request to us): unknown whatever the remote printed */
    free(d);
    d = doc(&PASS);
    h = judge(&f, d, 0, "", SSH_NOT_STOPPED, 1);
    EXPECT(h, FIOR_UNKNOWN, "interrupted", "interrupted");
    free(d);
    free(d2);
}

static void test_hostile_json(void **state)
{
    (void)state;
    fleet f;
    fleet_init(&f);
    char *good = doc(&PASS);
    size_t gl = strlen(good);
    char buf[16384];
    struct { const char *json; const char *status, *text; } cases[] = {
        {"{\"schema\":1,\"command\":\"check\",\"verdict\":\"fail\",\"verdict\":\"pass\"}", "bad-output", "given twice"},
        {"not json at all\n", "bad-output", "not json at all"},
        {"{\"schema\":1}{\"schema\":1}", "bad-output", "not etcd-fio's JSON"},
        {"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[{}]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]", "bad-output", ""},
        {"{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":"
         "{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":1}}}}}}}}}"
         "}}}}}}}}}}}}}}}}}}}}}}}}", "bad-output", "nested deeper than 31"},
        {"{\"schema\":2,\"command\":\"check\"}", "etcd-fio-version", "schema 2, this one reads 1"},
        {"{\"schema\":\"1\",\"command\":\"check\"}", "etcd-fio-version", "schema \"1\""},
        {"{\"schema\":1,\"command\":\"verdict\"}", "bad-output", "not of `etcd-fio check`"},
        {"{\"schema\":1,\"command\":\"check\",\"verdict\":\"pass\",\"exit_status\":0}", "etcd-fio-version", "missing"},
        {"\xff\xfe{}", "bad-output", ""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        result_host h = judge(&f, cases[i].json, 0, "", SSH_NOT_STOPPED, 0);
        assert_int_equal(h.verdict, FIOR_UNKNOWN);
        if (strcmp(h.status, cases[i].status) || !strstr(h.reason, cases[i].text))
            fail_msg("case %zu: %s: %s", i, h.status, h.reason);
    }
    /* the good document with one number as a string, one out of range, trailing garbage */
    static const char *const subst[][2] = {{"\"samples\":1050", "\"samples\":\"1050\""},
                                           {"\"samples\":1050", "\"samples\":1e30"},
                                           {"\"samples\":1050", "\"samples\":99999999999999999999"},
                                           {"\"load\":\"s\"", "\"load\":\"xl\""}};
    for (size_t i = 0; i < 4; i++) {
        char *at = strstr(good, subst[i][0]);
        assert_non_null(at);
        snprintf(buf, sizeof buf, "%.*s%s%s", (int)(at - good), good, subst[i][1], at + strlen(subst[i][0]));
        result_host h = judge(&f, buf, 0, "", SSH_NOT_STOPPED, 0);
        if (h.verdict != FIOR_UNKNOWN)
            fail_msg("subst %zu passed: %s", i, h.reason);
    }
    snprintf(buf, sizeof buf, "%sgarbage", good);
    result_host h = judge(&f, buf, 0, "", SSH_NOT_STOPPED, 0);
    assert_string_equal(h.status, "bad-output");
    /* terminal escapes in every string: none left in the model */
    char esc[16384];
    size_t k = 0;
    for (size_t i = 0; i < gl && k + 16 < sizeof esc; i++) {
        esc[k++] = good[i];
        if (good[i] == '"' && i + 1 < gl && good[i + 1] == 'n' && !strncmp(good + i + 1, "n1\"", 3)) {
            static const char ins[] = "\\u001b[2J\\u0007";
            memcpy(esc + k, ins, sizeof ins - 1);
            k += sizeof ins - 1;
        }
    }
    esc[k] = '\0';
    h = judge(&f, esc, 0, "", SSH_NOT_STOPPED, 0);
    assert_int_equal(h.verdict, FIOR_PASS);
    assert_string_equal(h.server_hostname, "?[2J?n1");
    free(good);
    /* a real check --json output (tests/fixtures/fleet/README.md) */
    size_t rl = 0;
    char *real = slurp(TEST_FIXTURES "/fleet/check-point-pass.json", &rl);
    f.accept_point = 1;
    h = judge(&f, real, 0, "", SSH_NOT_STOPPED, 0);
    EXPECT(h, FIOR_PASS, "judged", "WAL: p99 4.36 ms < 10 ms (1050 samples");
    assert_int_equal(h.basis, RESULT_BASIS_POINT);
    f.accept_point = 0; /* without it, the backend's 68 samples cannot bound its p99 */
    h = judge(&f, real, 0, "", SSH_NOT_STOPPED, 0);
    EXPECT(h, FIOR_UNKNOWN, "judged", "backend: p99 6.52 ms looks fine, but 68 samples cannot show it");
    assert_int_equal(h.basis, RESULT_BASIS_UNDECIDED);
    /* every message of the remote's output said otherwise: the same verdicts, on the same grounds */
    char *said = reword(real);
    assert_null(strstr(said, "looks fine"));
    assert_non_null(strstr(said, "\"reason\":\"said otherwise\""));
    for (int accept = 0; accept <= 1; accept++) {
        f.accept_point = accept;
        result_host a = judge(&f, real, 0, "", SSH_NOT_STOPPED, 0);
        result_host b = judge(&f, said, 0, "", SSH_NOT_STOPPED, 0);
        assert_int_equal(b.verdict, a.verdict);
        assert_int_equal(b.basis, a.basis);
        assert_string_equal(b.status, a.status);
    }
    /* and the made-up documents of test_proof, a pass and a fail */
    jparams p = PASS;
    for (int v = 0; v < 2; v++) {
        if (v) {
            p.run_verdict = p.host_verdict = p.wal_v = "fail";
            p.exit_status = 1;
            p.wal_p99 = 15000000, p.wal_lo = 12000000, p.wal_hi = 18000000;
        }
        char *d = doc(&p), *r = reword(d);
        result_host a = judge(&f, d, p.exit_status, "", SSH_NOT_STOPPED, 0);
        result_host b = judge(&f, r, p.exit_status, "", SSH_NOT_STOPPED, 0);
        assert_int_equal(a.verdict, v ? FIOR_FAIL : FIOR_PASS);
        assert_int_equal(b.verdict, a.verdict);
        assert_int_equal(b.basis, a.basis);
        free(d);
        free(r);
    }
    f.accept_point = 0;
    free(said);
    free(real);
}

static void test_ssh_endings(void **state)
{
    (void)state;
    fleet f;
    fleet_init(&f);
    struct { int status; const char *err; ssh_stop stop; const char *st, *text; } cases[] = {
        {255, "ssh: connect to host 10.9.9.9 port 22: Connection refused\r\n", 0, "unreachable", "Connection refused"},
        {255, "ssh: Could not resolve hostname nodex: Name or service not known\n", 0, "unreachable", "resolve"},
        {255, "root@10.0.0.1: Permission denied (publickey).\n", 0, "ssh-failed", "Permission denied (publickey)"},
        {255, "Host key verification failed.\n", 0, "ssh-failed", "Host key verification failed"},
        {255, "something odd\n", 0, "ssh-failed", "ssh failed (exit status 255): something odd"},
        {255, "Connection to 10.0.0.1 closed by remote host.\n", 0, "unreachable", "closed by remote host"},
        {127, "bash: line 1: etcd-fio: command not found\n", 0, "no-etcd-fio", "command not found"},
        {126, "sh: 1: /opt/etcd-fio: Permission denied\n", 0, "no-etcd-fio", "Permission denied"},
        {2, "etcd-fio check: unknown or ambiguous option '--stop-on-eof' (see etcd-fio help check)\n", 0,
         "etcd-fio-version", "no --stop-on-eof"},
        {2, "etcd-fio check: /x: No such file or directory\n", 0, "remote-error", "exit status 2): etcd-fio check: /x"},
        {0, "", SSH_STOP_TIMEOUT, "timeout", "no result within 90 s"},
        {0, "", SSH_STOP_INTERRUPT, "interrupted", "interrupted"},
        {0, "", SSH_STOP_TOO_BIG, "bad-output", "more than 1 MiB"},
        {-1, "cannot run ssh: No such file or directory", 0, "ssh-failed", "cannot run ssh"},
        {255, "\033]0;owned\007evil: Connection refused\n", 0, "unreachable", "?]0;owned?evil"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        result_host h = judge(&f, "", cases[i].status, cases[i].err, cases[i].stop, 0);
        assert_int_equal(h.verdict, FIOR_UNKNOWN);
        if (strcmp(h.status, cases[i].st) || !strstr(h.reason, cases[i].text) || strchr(h.reason, '\033'))
            fail_msg("case %zu: %s: %s", i, h.status, h.reason);
    }
    /* a timeout after a perfect-looking JSON: still unknown */
    char *d = doc(&PASS);
    result_host h = judge(&f, d, 0, "", SSH_STOP_TIMEOUT, 0);
    assert_string_equal(h.status, "timeout");
    free(d);
}

/* Every cut of a real result before its closing brace is no JSON (never a PASS); single-byte changes at
 * every offset (a fixed sequence) must not crash the reader (run under check-asan too). */
static void test_mutations(void **state)
{
    (void)state;
    fleet f;
    fleet_init(&f);
    f.accept_point = 1;
    size_t len = 0;
    char *real = slurp(TEST_FIXTURES "/fleet/check-point-pass.json", &len);
    char *buf = malloc(len + 1);
    size_t end = len;
    while (end && real[end - 1] != '}')
        end--;
    for (size_t cut = 0; cut < end; cut++) {
        memcpy(buf, real, cut);
        buf[cut] = '\0';
        result_host h = judge(&f, buf, 0, "", SSH_NOT_STOPPED, 0);
        if (h.verdict == FIOR_PASS)
            fail_msg("a cut at byte %zu passed", cut);
    }
    static const char bytes[] = {'"', '{', '}', '[', ']', ',', ':', '0', '9', '-', 'e', '\\', '\0', '\033', 'x'};
    uint32_t x = 1;
    for (size_t i = 0; i < len; i++) {
        memcpy(buf, real, len + 1);
        x = x * 1103515245u + 12345u;
        buf[i] = bytes[(x >> 16) % sizeof bytes];
        judge(&f, buf, 0, "", SSH_NOT_STOPPED, 0);
    }
    free(buf);
    free(real);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hosts),           cmocka_unit_test(test_command),
        cmocka_unit_test(test_printable_loopback), cmocka_unit_test(test_proof),
        cmocka_unit_test(test_hostile_json),    cmocka_unit_test(test_ssh_endings),
        cmocka_unit_test(test_mutations),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
