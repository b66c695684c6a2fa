/* SPDX-License-Identifier: MIT */
/* test_out_table.c — the table writer says an unknown's reason once: a check whose backend is undecided
 * and whose WAL passed has the host's sentence "backend …; WAL …" (the WAL's figures the table shows);
 * the default table prints the backend's reason under its role, not the joined sentence, and the
 * undecided why: line that would repeat it is only its command. A reason that says more than its rows
 * (interrupted) is printed once, whole, and then the command. -v keeps every line. The same for verdict's
 * rows and fleet's hosts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "explain.h"
#include "out.h"
#include "result.h"

#define WAL_WHY "WAL fdatasync p99 1.45 ms < 10 ms (95 % bound 1.34 ms..1.52 ms)"
#define BE_WHY                                                                                              \
    "backend commit p99 2.21 ms looks fine, but 494 samples cannot show it with 95 % confidence (≥ 95 % "    \
    "bound 1.88 ms..55.3 ms straddles 25 ms); run longer"
#define NEXT "etcd-fio check --max-time 100 /var/lib/etcd"

static void job(result_host *h, fior_role role, fior_verdict v, const char *why, uint64_t p99, uint64_t lo,
                uint64_t hi)
{
    result_job *j = result_add_job(h);
    assert_non_null(j);
    snprintf(j->name, sizeof j->name, "%s", role == FIOR_ROLE_WAL ? "etcd-wal" : "etcd-backend");
    j->role = role;
    j->verdict = v;
    j->samples = role == FIOR_ROLE_WAL ? 7500 : 494;
    j->p50_ns = p99 / 4;
    j->p99_ns = j->judged_ns = p99;
    j->p999_ns = j->max_ns = p99 * 2;
    j->bound_lo_ns = lo;
    j->bound_hi_ns = hi;
    j->bound_confidence = 0.95;
    j->threshold_ns = role == FIOR_ROLE_WAL ? 10000000 : 25000000;
    snprintf(j->reason, sizeof j->reason, "%s", why);
}

/* The run as the table writer prints it at 80 columns, the run freed. */
static char *written(result_run *r)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    setenv("COLUMNS", "80", 1);
    out_table(f, r);
    fclose(f);
    result_free(r);
    return buf;
}

static char *table(const char *host_reason, int verbose)
{
    static result_run r;
    result_init(&r, "check", NULL);
    r.confidence = 0.95; /* check's: the table has its BOUND column */
    result_host *h = result_add_host(&r);
    assert_non_null(h);
    snprintf(h->dir, sizeof h->dir, "/var/lib/etcd");
    job(h, FIOR_ROLE_WAL, FIOR_PASS, WAL_WHY, 1450000, 1340000, 1520000);
    job(h, FIOR_ROLE_BACKEND, FIOR_UNKNOWN, BE_WHY, 2210000, 1880000, 55300000);
    h->verdict = FIOR_UNKNOWN;
    h->basis = RESULT_BASIS_UNDECIDED;
    snprintf(h->reason, sizeof h->reason, "%s", host_reason);
    result_finish(&r);
    snprintf(r.reason, sizeof r.reason, "%s", host_reason);
    r.verbose = verbose;
    explain_undecided(&r.explain[r.nexplain++], host_reason, NEXT);
    return written(&r);
}

/* occurrences of needle in the text with its wrapping undone (a line break and the indent: one space) */
static int count(const char *text, const char *needle)
{
    char *flat = malloc(strlen(text) + 1), *o = flat;
    assert_non_null(flat);
    for (const char *c = text; *c; c++) {
        if (*c == '\n') {
            while (c[1] == ' ')
                c++;
            *o++ = ' ';
        } else
            *o++ = *c;
    }
    *o = 0;
    int n = 0;
    for (const char *p = flat; (p = strstr(p, needle)) != NULL; p += strlen(needle))
        n++;
    free(flat);
    return n;
}

static void rows_say_the_reason(void **state)
{
    (void)state;
    char *t = table(BE_WHY "; " WAL_WHY, 0);
    if (count(t, "run longer") != 1) /* the backend's sentence once */
        fail_msg("the backend's reason not once:\n%s", t);
    assert_non_null(strstr(t, "\n  backend: backend commit p99 2.21 ms looks fine"));
    if (count(t, "1.34 ms..1.52 ms") != 1) /* the WAL's bound: its row only */
        fail_msg("the WAL bound not once:\n%s", t);
    assert_null(strstr(t, "[undecided]"));
    assert_non_null(strstr(t, "\n  run: " NEXT "\n"));
    for (const char *l = t; *l;) {                         /* 80 columns */
        const char *e = strchr(l, '\n');
        size_t n = e ? (size_t)(e - l) : strlen(l), cols = 0;
        for (size_t i = 0; i < n; i++)
            cols += ((unsigned char)l[i] & 0xC0) != 0x80;
        if (cols > 80)
            fail_msg("a line of %zu columns:\n%s", cols, t);
        l += n + (e != NULL);
    }
    free(t);
    t = table(BE_WHY "; " WAL_WHY, 1); /* -v: the host's sentence and the rule's line as well */
    assert_non_null(strstr(t, "[undecided]"));
    free(t);
}

static void a_reason_that_says_more(void **state)
{
    (void)state;
    const char *why = "interrupted after 12 s before the p99 was decided (point estimates: " BE_WHY ")";
    char *t = table(why, 0);
    assert_int_equal(count(t, "interrupted after 12 s"), 1);
    assert_int_equal(count(t, "run longer"), 1);
    assert_null(strstr(t, "[undecided]"));
    assert_non_null(strstr(t, "\n  run: " NEXT "\n"));
    free(t);
}

/* verdict: a row's reason under the row, and the undecided why: line that repeats it after "LABEL of job
 * NAME: " is only its command */
static void verdict_row_reason_once(void **state)
{
    (void)state;
    static result_run r;
    result_init(&r, "verdict", NULL);
    result_host *h = result_add_host(&r);
    assert_non_null(h);
    job(h, FIOR_ROLE_WAL, FIOR_UNKNOWN, BE_WHY, 1450000, RESULT_UNKNOWN, RESULT_UNKNOWN);
    h->verdict = FIOR_UNKNOWN;
    result_finish(&r);
    explain_undecided(&r.explain[r.nexplain++], "WAL fdatasync of job etcd-wal: " BE_WHY, NEXT);
    char *buf = written(&r);
    if (count(buf, "run longer") != 1 || strstr(buf, "[undecided]") || !strstr(buf, "\n  run: " NEXT "\n"))
        fail_msg("the row's reason not once, then the command:\n%s", buf);
    free(buf);
}

/* fleet: each host's line says its reason; its rows and its undecided why: line do not say it again */
static void fleet_host_reason_once(void **state)
{
    (void)state;
    static result_run r;
    result_init(&r, "fleet", NULL);
    for (int k = 0; k < 2; k++) {
        result_host *h = result_add_host(&r);
        assert_non_null(h);
        snprintf(h->host, sizeof h->host, "127.0.0.%d", k + 1);
        h->port = 8799;
        snprintf(h->status, sizeof h->status, "judged");
        job(h, FIOR_ROLE_WAL, FIOR_UNKNOWN, "only 5 sync samples (need 100)", 1450000, RESULT_UNKNOWN,
            RESULT_UNKNOWN);
        h->verdict = FIOR_UNKNOWN;
        snprintf(h->reason, sizeof h->reason, "WAL: only 5 sync samples (need 100)");
        char why[1024];
        snprintf(why, sizeof why, "127.0.0.%d:8799: %s", k + 1, h->reason);
        explain_undecided(&r.explain[r.nexplain++], why, NEXT);
    }
    result_finish(&r);
    char *buf = written(&r);
    if (count(buf, "only 5 sync samples") != 2 || strstr(buf, "[undecided]") ||
        !strstr(buf, "127.0.0.1:8799: unknown (judged): WAL: only 5 sync samples"))
        fail_msg("each host's reason not once, with its host:\n%s", buf);
    free(buf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rows_say_the_reason),
        cmocka_unit_test(a_reason_that_says_more),
        cmocka_unit_test(verdict_row_reason_once),
        cmocka_unit_test(fleet_host_reason_once),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
