/* SPDX-License-Identifier: MIT */
/* test_term.c — terminal manners: the check progress line fits every terminal width (the full line is
 * ~110 columns and garbled an 80-column terminal), and colour only on a terminal, never with NO_COLOR. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "check.h"
#include "monitor.h"
#include "term.h"

static void progress_fits(void **state)
{
    (void)state;
    fior_monitor *m = fior_monitor_new(NULL);
    assert_non_null(m);
    m->started = 1; /* the answers of a monitor fed for 1234 s: set directly */
    fior__seq es;
    memset(&es, 0, sizeof es);
    es.wal.n = 123456;
    es.wal.point_ns = 7900000;
    es.wal.look_lo_ns = 6910000;
    es.wal.look_hi_ns = 10200000;
    es.wal.look_confidence = 0.99375;
    es.backend.n = 9876;
    es.backend.point_ns = 14000000;
    es.backend.look_lo_ns = 7240000;
    es.backend.look_hi_ns = UINT64_MAX;
    es.backend.look_confidence = 0.975;
    es.wal.state = FIOR_DEC_PASS; /* the WAL decided while the backend still runs: the line says so */
    es.backend.state = FIOR_DEC_UNDECIDED;
    m->seq = es;
    char line[512];
    /* phase 2: the WAL's pass stands; the backend is undecided with enough samples: its bound */
    check_progress_ctx p2 = {"phase 2 (etcd's load)", "phase 2", 0, 411, 0};
    check_progress_fmt(line, sizeof line, m, &p2, 1234, 200);
    assert_non_null(strstr(line, "phase 2 (etcd's load) 1234 s"));
    assert_non_null(strstr(line, "WAL pass 7.9 ms \xe2\x89\xa4 10.2 ms"));
    assert_non_null(strstr(line, "backend 14 ms, bound 7.24 ms..?"));
    for (int w = 20; w <= 200; w++) {
        check_progress_fmt(line, sizeof line, m, &p2, 1234, w);
        size_t cols = 0;
        for (const char *q = line; *q; q++)
            cols += ((unsigned char)*q & 0xC0) != 0x80;
        assert_true(cols <= (size_t)w - 1);
        assert_true(strchr(line, '\n') == NULL);
        if (w >= 50) /* the verdict-relevant numbers survive down to 50 columns */
            assert_non_null(strstr(line, "7.9 ms"));
    }
    check_progress_fmt(line, sizeof line, m, &p2, 1234, 80);
    assert_non_null(strstr(line, "WAL pass 7.9 ms")); /* 80: the phase, both states */
    assert_non_null(strstr(line, "backend 14 ms"));
    assert_non_null(strstr(line, "phase 2"));
    /* phase 1: its pass can still be withdrawn by phase 2's probe: provisional, never a bare "pass" */
    check_progress_ctx p1 = {"phase 1 (heavy load)", "phase 1", 1, 411, 0};
    for (int w = 40; w <= 200; w++) {
        check_progress_fmt(line, sizeof line, m, &p1, 1234, w);
        if (strstr(line, "pass"))
            assert_non_null(strstr(line, "provisional pass"));
    }
    check_progress_fmt(line, sizeof line, m, &p1, 1234, 80);
    assert_non_null(strstr(line, "WAL provisional pass 7.9 ms"));
    /* counting to the first look that can decide: samples of the need, and the time left at this rate */
    es.wal.state = FIOR_DEC_TOO_FEW;
    es.wal.n = 100;
    es.backend.state = FIOR_DEC_TOO_FEW;
    es.backend.n = 50;
    m->seq = es;
    check_progress_fmt(line, sizeof line, m, &p2, 10, 120);
    assert_non_null(strstr(line, "WAL 7.9 ms, 100/411 syncs"));
    assert_non_null(strstr(line, "backend 14 ms, 50/411 commits"));
    assert_non_null(strstr(line, "~72 s to a decision")); /* (411 - 50) at 5 a second */
    check_progress_fmt(line, sizeof line, m, &p2, 10, 80);
    assert_non_null(strstr(line, "phase 2"));
    assert_non_null(strstr(line, "100/411 syncs"));
    assert_non_null(strstr(line, "50/411 commits"));
    assert_non_null(strstr(line, "~72 s")); /* 80 columns: the counts and the time left */
    check_progress_ctx wo = {"", "", 0, 411, 1};
    check_progress_fmt(line, sizeof line, m, &wo, 10, 80);
    assert_null(strstr(line, "backend")); /* the WAL alone was asked */
    assert_non_null(strstr(line, "~31 s to a decision")); /* (411 - 100) at 10 a second */
    fior_monitor_free(m);
}

static void colour(void **state)
{
    (void)state;
    int fd[2];
    assert_int_equal(pipe(fd), 0);
    FILE *p = fdopen(fd[1], "w");
    assert_non_null(p);
    unsetenv("NO_COLOR");
    assert_int_equal(term_color(p), 0); /* a pipe is no terminal */
    assert_int_equal(term_color(NULL), 0);
    assert_string_equal(term_verdict_on(0, FIOR_FAIL), "");
    assert_string_equal(term_off(0), "");
    assert_string_equal(term_verdict_on(1, FIOR_PASS), "\033[32m");
    assert_string_equal(term_verdict_on(1, FIOR_NOT_JUDGED), "");
    fclose(p);
    close(fd[0]);
    setenv("COLUMNS", "93", 1);
    assert_int_equal(term_width(fd[0]), 93); /* not a terminal: $COLUMNS */
    setenv("COLUMNS", "3", 1);
    assert_int_equal(term_width(-1), 20);
    unsetenv("COLUMNS");
    assert_int_equal(term_width(-1), 80);
}

/* term_wrap breaks between words but never between a figure and its unit: at every width from 30 to 90 no
 * line begins with "%" or "ms", and the bound "1.88 ms..55.3 ms" stays on one line. */
static void wrap_keeps_units(void **state)
{
    (void)state;
    const char *text = "backend commit p99 2.21 ms looks fine, but 494 samples cannot show it with 95 % confidence "
                       "(≥ 95 % bound 1.88 ms..55.3 ms straddles 25 ms); run longer";
    for (int w = 30; w <= 90; w++) {
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        assert_non_null(f);
        term_wrap(f, "  backend: ", 4, text, w);
        fclose(f);
        assert_non_null(strstr(buf, "1.88 ms..55.3 ms"));
        for (const char *l = buf; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
            while (*l == ' ')
                l++;
            if (!strncmp(l, "% ", 2) || !strncmp(l, "ms ", 3) || !strncmp(l, "ms)", 3))
                fail_msg("width %d: a line begins with a unit:\n%s", w, buf);
        }
        free(buf);
    }
}

/* a chain of figures glued to their units that cannot fit on one line is broken at its spaces, never inside
 * a number, and no line is wider than the width */
static void wrap_long_chain(void **state)
{
    (void)state;
    char text[600] = "job 1 % and 2 ms..3 ms and ";
    for (int i = 4; i <= 40; i++)
        snprintf(text + strlen(text), sizeof text - strlen(text), "%d s.", i);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    term_wrap(f, "  why: ", 7, text, 40);
    fclose(f);
    for (const char *l = buf; *l;) {
        const char *e = strchr(l, '\n');
        size_t n = e ? (size_t)(e - l) : strlen(l);
        if (n > 40)
            fail_msg("a line of %zu columns:\n%s", n, buf);
        if (e && n && l[n - 1] >= '0' && l[n - 1] <= '9') {
            const char *q = e + 1;
            while (*q == ' ')
                q++;
            if (*q >= '0' && *q <= '9')
                fail_msg("a number cut across lines:\n%s", buf);
        }
        l += n + (e != NULL);
    }
    free(buf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(progress_fits), cmocka_unit_test(colour),
                                       cmocka_unit_test(wrap_keeps_units),
                                       cmocka_unit_test(wrap_long_chain)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
