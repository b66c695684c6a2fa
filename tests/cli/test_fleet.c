/* SPDX-License-Identifier: MIT */
/* test_fleet.c — fleet's pure steps: the host list (--client and --clients FILE, FILE:LINE errors, '#'/';'
 * in directories refused), the reading of a server's probe reply (reachable, refused, other fio version,
 * missing engine, rejected job; a hostile server's words made printable), and the aggregation of fio's client_stats per host into the result model
 * (per host and role, "All clients" skipped, hosts without results unknown with the server's message, an
 * interrupted run unknown, worst host first). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fiojson.h"
#include "fleet.h"

static void fleet_init(fleet *f)
{
    memset(f, 0, sizeof *f);
    f->confidence = 0.95;
    f->load = "s";
    f->dir = "/var/lib/etcd";
    snprintf(f->local_version, sizeof f->local_version, "fio-3.33");
    snprintf(f->engine, sizeof f->engine, "/usr/lib/etcd-fio/libetcdwal.so");
}

static void test_host_list(void **state)
{
    (void)state;
    fleet f;
    fleet_init(&f);
    char err[1024];
    assert_int_equal(fleet_add_host(&f, "node1", NULL, "--client", err, sizeof err), 0);
    assert_int_equal(f.h[0].port, 8765);
    assert_string_equal(f.h[0].spec, "node1,8765");
    assert_int_equal(fleet_add_host(&f, "ip6:::1,9000", NULL, "--client", err, sizeof err), 0);
    assert_string_equal(f.h[1].name, "::1");
    assert_int_equal(f.h[1].port, 9000);
    assert_int_equal(fleet_add_host(&f, "node1,8765", NULL, "--client", err, sizeof err), -1);
    assert_string_equal(err, "--client: node1,8765 is listed twice");
    assert_int_equal(fleet_add_host(&f, "node2,99999", NULL, "--client", err, sizeof err), -1);
    assert_non_null(strstr(err, "bad port '99999'"));
    assert_int_equal(fleet_add_host(&f, "sock:/x", NULL, "--client", err, sizeof err), -1);

    const char *text = "# fleet\nnode3   /srv/etcd   # a comment\n\nnode4,1234\nnode5 relative\n";
    assert_int_equal(fleet_parse_clients(&f, "hosts", text, strlen(text), err, sizeof err), -1);
    assert_string_equal(err, "hosts:5: directory 'relative' must be absolute (it is a path on the server)");
    assert_int_equal(f.n, 4);
    assert_string_equal(f.h[2].dir, "/srv/etcd");
    assert_int_equal(f.h[3].port, 1234);
    assert_int_equal(fleet_parse_clients(&f, "h2", "node6 /a;b\n", strlen("node6 /a;b\n"), err, sizeof err), -1);
    assert_non_null(strstr(err, "h2:1: "));
    assert_non_null(strstr(err, "';'"));
    assert_int_equal(fleet_parse_clients(&f, "h3", "node7 /a b\n", strlen("node7 /a b\n"), err, sizeof err), -1);
    assert_string_equal(err, "h3:1: unexpected 'b' (expected HOST[,PORT] [DIR])");
    assert_int_equal(fleet_parse_clients(&f, "h4", "# nothing\n\n", strlen("# nothing\n\n"), err, sizeof err), -1);
    assert_non_null(strstr(err, "no hosts"));
    /* a NUL byte must not hide the hosts after it */
    assert_int_equal(fleet_parse_clients(&f, "h5", "node8\n\0node9\n", 13, err, sizeof err), -1);
    assert_string_equal(err, "h5:2: a NUL byte in the line (expected HOST[,PORT] [DIR])");
    free(f.h);
}

static void test_probe(void **state)
{
    (void)state;
    fleet f;
    fleet_init(&f);
    fleet_host h;
    memset(&h, 0, sizeof h);
    fleet_judge_probe(&f, &h, "hostname=vm, be=0, 64-bit, os=Linux, arch=x86-64, fio=fio-3.33, flags=1\n", 0);
    assert_int_equal(h.st, HS_OK);
    assert_string_equal(h.server_name, "vm");
    assert_string_equal(h.fio_version, "fio-3.33");

    memset(&h, 0, sizeof h);
    fleet_judge_probe(&f, &h, "fio: connect: Connection refused\nfio: failed to connect to 1.2.3.4:8765\n", 1);
    assert_int_equal(h.st, HS_UNREACHABLE);
    assert_string_equal(h.msg, "fio: connect: Connection refused");

    memset(&h, 0, sizeof h);
    fleet_judge_probe(&f, &h, "", -1);
    assert_int_equal(h.st, HS_UNREACHABLE);
    assert_non_null(strstr(h.msg, "no answer within"));

    memset(&h, 0, sizeof h);
    fleet_judge_probe(&f, &h, "hostname=n2, be=0, 64-bit, os=Linux, arch=x86-64, fio=fio-3.99, flags=1\n", 0);
    assert_int_equal(h.st, HS_FIO_VERSION);
    assert_string_equal(h.msg, "runs fio-3.99, this client and the engine are fio-3.33");

    memset(&h, 0, sizeof h);
    fleet_judge_probe(&f, &h,
                      "hostname=n3, be=0, 64-bit, os=Linux, arch=x86-64, fio=fio-3.33, flags=1\n"
                      "<n3> fio: invalid external ioengine path /usr/lib/etcd-fio/libetcdwal.so\n", 1);
    assert_int_equal(h.st, HS_NO_ENGINE);

    memset(&h, 0, sizeof h);
    fleet_judge_probe(&f, &h,
                      "hostname=n4, be=0, 64-bit, os=Linux, arch=x86-64, fio=fio-3.33, flags=1\n"
                      "<n4> Bad option <etcd_mode=x>\n", 1);
    assert_int_equal(h.st, HS_PROBE_FAILED);
    assert_string_equal(h.msg, "the server rejected the job: Bad option <etcd_mode=x>");

    /* a hostile server's hostname and messages reach the table printable only */
    memset(&h, 0, sizeof h);
    fleet_judge_probe(&f, &h,
                      "hostname=n\033]0;owned\007, be=0, 64-bit, os=Linux, arch=x86-64, fio=fio-3.3\0333, flags=1\n"
                      "<n5> fio: bad \033[2J thing\n", 1);
    assert_string_equal(h.server_name, "n?]0;owned?");
    assert_int_equal(h.st, HS_FIO_VERSION);
    assert_null(strchr(h.msg, '\033'));
}

static const uint64_t fast[][2] = {{1000000, 2000}, {2000000, 10}};
static const uint64_t slow[][2] = {{1000000, 900}, {40000000, 100}};
static const uint64_t be[][2] = {{3000000, 500}, {4000000, 5}};
static const uint64_t few[][2] = {{3000000, 20}};
static const uint64_t mid[][2] = {{3000000, 148}, {4000000, 2}}; /* enough for the library, no upper bound */

/* a passes, b fails its WAL, c has too few backend samples, d never reported, e is unreachable, f's backend
 * has 150 samples: enough for the library's 100, too few for an upper bound on its p99 */
static void build(fleet *f, fior_report **rep)
{
    fleet_init(f);
    char err[256];
    const char *names[] = {"a", "b", "c", "d", "e", "f"};
    for (int i = 0; i < 6; i++)
        assert_int_equal(fleet_add_host(f, names[i], NULL, "--client", err, sizeof err), 0);
    for (int i = 0; i < 6; i++)
        snprintf(f->h[i].server_name, sizeof f->h[i].server_name, "srv-%s", names[i]);
    f->h[4].st = HS_UNREACHABLE;
    snprintf(f->h[4].msg, sizeof f->h[4].msg, "fio: connect: Connection refused");
    fj_job jobs[] = {
        {"etcd-wal", "wal", "a", 8765, fast, 2},      {"etcd-backend", "backend", "a", 8765, be, 2},
        {"etcd-wal", "wal", "b", 8765, slow, 2},      {"etcd-backend", "backend", "b", 8765, be, 2},
        {"etcd-wal", "wal", "c", 8765, fast, 2},      {"etcd-backend", "backend", "c", 8765, few, 1},
        {"All clients", "wal", "c", 8765, slow, 2},
        {"etcd-wal", "wal", "f", 8765, fast, 2},      {"etcd-backend", "backend", "f", 8765, mid, 2},
    };
    char *doc = fj_doc(jobs, sizeof jobs / sizeof jobs[0], 1);
    *rep = fior_report_new();
    assert_int_equal(fior_parse_buffer(*rep, "run.json", doc, strlen(doc)), FIOR_OK);
    free(doc);
}

static const result_host *find(const result_run *r, const char *name)
{
    for (size_t i = 0; i < r->nhosts; i++)
        if (!strcmp(r->hosts[i].host, name))
            return &r->hosts[i];
    fail_msg("no host %s", name);
    return NULL;
}

static void test_aggregate(void **state)
{
    (void)state;
    fleet f;
    fior_report *rep;
    build(&f, &rep);
    fior_criteria *c = fior_criteria_new();
    result_run r;
    result_init(&r, "fleet", c);
    const char *raw = "<srv-d> fio: srv-d/etcd is not a directory\n";
    fleet_judge(&f, rep, raw, c, 0, "", &r);
    assert_int_equal(r.nhosts, 6);
    const result_host *a = find(&r, "a"), *b = find(&r, "b"), *cc = find(&r, "c"), *d = find(&r, "d"),
                  *e = find(&r, "e");
    assert_int_equal(a->verdict, FIOR_PASS);
    assert_int_equal(a->basis, RESULT_BASIS_BOUND);
    assert_true(a->jobs[0].bound_hi_ns != RESULT_UNKNOWN && a->jobs[0].bound_hi_ns < 10000000);
    assert_int_equal(a->njobs, 2);
    assert_int_equal(a->jobs[0].samples + a->jobs[1].samples, 2010 + 505);
    assert_int_equal(b->verdict, FIOR_FAIL);
    assert_int_equal(b->basis, RESULT_BASIS_BOUND);
    assert_non_null(strstr(b->reason, "WAL: "));
    /* c: "All clients" (with c's host and port, and slow numbers) is not c's result */
    assert_int_equal(cc->njobs, 2);
    assert_int_equal(cc->verdict, FIOR_UNKNOWN);
    assert_non_null(strstr(cc->reason, "backend: "));
    assert_string_equal(d->status, "no-results");
    assert_int_equal(d->verdict, FIOR_UNKNOWN);
    assert_string_equal(d->reason, "no results from the run; srv-d said: fio: srv-d/etcd is not a directory");
    assert_string_equal(e->status, "unreachable");
    assert_int_equal(e->verdict, FIOR_UNKNOWN);
    /* f: the library says pass (150 >= 100 samples), the bound cannot: unknown with the point estimate */
    const result_host *ff = find(&r, "f");
    assert_int_equal(ff->verdict, FIOR_UNKNOWN);
    assert_int_equal(ff->basis, RESULT_BASIS_UNDECIDED);
    assert_non_null(strstr(ff->reason, "backend: p99 4 ms looks fine, but 150 samples cannot show it with 95 % confidence"));
    assert_int_equal(r.verdict, FIOR_FAIL);
    /* worst first: the failing host, then the unknowns, the pass last */
    assert_string_equal(r.hosts[0].host, "b");
    assert_string_equal(r.hosts[5].host, "a");
    result_free(&r);

    /* --accept-point-estimate: f passes on the point estimate, and says so */
    f.accept_point = 1;
    result_init(&r, "fleet", c);
    fleet_judge(&f, rep, raw, c, 0, "", &r);
    ff = find(&r, "f");
    assert_int_equal(ff->verdict, FIOR_PASS);
    assert_int_equal(ff->basis, RESULT_BASIS_POINT);
    assert_int_equal(find(&r, "a")->basis, RESULT_BASIS_BOUND);
    result_free(&r);
    f.accept_point = 0;

    /* the same results from an interrupted run: nothing that ran passes */
    fleet_judge(&f, rep, raw, c, 1, "interrupted: the run was cut short", &r);
    a = find(&r, "a");
    assert_int_equal(a->verdict, FIOR_UNKNOWN);
    assert_string_equal(a->status, "interrupted");
    assert_int_equal(a->jobs[0].verdict, FIOR_UNKNOWN);
    assert_int_equal(find(&r, "b")->verdict, FIOR_UNKNOWN);
    assert_int_equal(r.verdict, FIOR_UNKNOWN);
    assert_non_null(strstr(r.reason, "interrupted"));
    result_free(&r);

    /* no report at all (every host failed to start): every host unknown */
    fleet_judge(&f, NULL, raw, c, 0, "", &r);
    for (size_t i = 0; i < r.nhosts; i++)
        assert_int_equal(r.hosts[i].verdict, FIOR_UNKNOWN);
    result_free(&r);
    fior_criteria_free(c);
    fior_report_free(rep);
    free(f.h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_host_list),
        cmocka_unit_test(test_probe),
        cmocka_unit_test(test_aggregate),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
