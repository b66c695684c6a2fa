/* SPDX-License-Identifier: MIT */
/* test_svg_prom.c — the two output writers of `etcd-fio check`: the SVG latency picture (structure, axis
 * mapping of the threshold lines, escaping) and the node_exporter textfile (grouping, escaping, atomic
 * replacement). The browser rendering itself is done by bench/time_to_verdict.sh with headless Chromium. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "prom.h"
#include "svg.h"

static char *render(const svg_plot *p)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    assert_int_equal(svg_write(f, p), 0);
    fclose(f);
    return buf;
}

static size_t count(const char *hay, const char *needle)
{
    size_t n = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p++)
        n++;
    return n;
}

/* x of the element whose attribute data-ns="ns" appears first */
static double line_x(const char *svg, uint64_t ns)
{
    char key[64];
    snprintf(key, sizeof key, "data-ns=\"%llu\" x1=\"", (unsigned long long)ns);
    const char *p = strstr(svg, key);
    assert_non_null(p);
    return atof(p + strlen(key));
}

static void test_svg_structure(void **state)
{
    (void)state;
    fior_bin wal[3] = {{1000000, 900}, {2000000, 95}, {30000000, 5}};
    fior_bin be[2] = {{3000000, 200}, {9000000, 2}};
    svg_series s[2] = {{"WAL fdatasync", "#1f77b4", wal, 3}, {"backend commit", "#ff7f0e", be, 2}};
    svg_vline v[2] = {{"10 ms WAL limit", 10000000, "#d62728"}, {"25 ms backend limit", 25000000, "#9467bd"}};
    svg_plot p = {"FAIL <disk> & more", "sub", s, 2, v, 2};
    char *svg = render(&p);
    assert_non_null(strstr(svg, "<svg xmlns=\"http://www.w3.org/2000/svg\""));
    assert_non_null(strstr(svg, "</svg>\n"));
    assert_non_null(strstr(svg, "FAIL &lt;disk&gt; &amp; more</text>"));
    assert_null(strstr(svg, "<disk>"));
    assert_int_equal(count(svg, "class=\"series\""), 2);
    assert_int_equal(count(svg, "class=\"threshold\""), 2);
    /* x range: decades 1 ms .. 100 ms (samples 1..30 ms, lines 10 and 25 ms). 10 ms is exactly half way
     * on the log axis between the plot's left edge (110) and right edge (900-30): 110 + 760/2 = 490. */
    double x10 = line_x(svg, 10000000), x25 = line_x(svg, 25000000);
    assert_true(x10 > 489.9 && x10 < 490.1);
    assert_true(x25 > x10);
    /* 25 ms: log10(2.5) = 0.398 of the second decade (380 px wide) right of 10 ms */
    assert_true(x25 > 490 + 380 * 0.397 && x25 < 490 + 380 * 0.399);
    /* the WAL curve ends at the 30 ms bin going down to the plot floor */
    char want[64];
    snprintf(want, sizeof want, "H%.1f V", svg_x_of(30000000, 1e6, 1e8));
    assert_non_null(strstr(svg, want));
    free(svg);
}

static void test_svg_empty_series(void **state)
{
    (void)state;
    svg_series s[1] = {{"WAL fdatasync", "blue", NULL, 0}};
    svg_plot p = {"UNKNOWN", NULL, s, 1, NULL, 0};
    char *svg = render(&p);
    assert_int_equal(count(svg, "class=\"series\""), 0);
    assert_non_null(strstr(svg, "</svg>"));
    free(svg);
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    static char buf[8192];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

static void test_prom_grouped_and_atomic(void **state)
{
    (void)state;
    char dir[] = "/tmp/test_prom.XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[128];
    snprintf(path, sizeof path, "%s/etcd.prom", dir);
    FILE *old = fopen(path, "w");
    fputs("stale\n", old);
    fclose(old);

    prom_file *p = prom_new();
    prom_label a[2] = {{"device", "/dev/vda"}, {"host", "a\"b\\c\nd"}};
    prom_label b[2] = {{"device", "/dev/vdb"}, {"host", "h2"}};
    assert_int_equal(prom_add(p, "etcd_fio_wal_fsync_p99_seconds", "p99\nof fdatasync", "gauge", a, 2, 0.0025), 0);
    assert_int_equal(prom_add(p, "etcd_fio_verdict", "0 pass", "gauge", a, 2, 0), 0);
    assert_int_equal(prom_add(p, "etcd_fio_wal_fsync_p99_seconds", "p99\nof fdatasync", "gauge", b, 2, 0.5), 0);
    assert_int_equal(prom_add(p, "bad name", "x", "gauge", NULL, 0, 1), -1);
    prom_label badl = {"1x", "v"};
    assert_int_equal(prom_add(p, "ok", "x", "gauge", &badl, 1, 1), -1);
    char err[256];
    assert_int_equal(prom_write(p, path, err, sizeof err), 0);
    prom_free(p);
    const char *want =
        "# HELP etcd_fio_wal_fsync_p99_seconds p99\\nof fdatasync\n"
        "# TYPE etcd_fio_wal_fsync_p99_seconds gauge\n"
        "etcd_fio_wal_fsync_p99_seconds{device=\"/dev/vda\",host=\"a\\\"b\\\\c\\nd\"} 0.0025\n"
        "etcd_fio_wal_fsync_p99_seconds{device=\"/dev/vdb\",host=\"h2\"} 0.5\n"
        "# HELP etcd_fio_verdict 0 pass\n"
        "# TYPE etcd_fio_verdict gauge\n"
        "etcd_fio_verdict{device=\"/dev/vda\",host=\"a\\\"b\\\\c\\nd\"} 0\n";
    assert_string_equal(slurp(path), want);
    /* no temp file left beside it */
    char tmp[160];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    assert_int_not_equal(access(tmp, F_OK), 0);
    unlink(path);
    rmdir(dir);
}

static void test_prom_unwritable(void **state)
{
    (void)state;
    prom_file *p = prom_new();
    assert_int_equal(prom_add(p, "x", "h", "gauge", NULL, 0, 1), 0);
    char err[256] = "";
    assert_int_equal(prom_write(p, "/nonexistent-dir/x.prom", err, sizeof err), -1);
    assert_non_null(strstr(err, "/nonexistent-dir/x.prom"));
    prom_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_svg_structure),
        cmocka_unit_test(test_svg_empty_series),
        cmocka_unit_test(test_prom_grouped_and_atomic),
        cmocka_unit_test(test_prom_unwritable),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
