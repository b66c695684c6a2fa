/* SPDX-License-Identifier: MIT */
/* test_jw.c — the CLI's JSON over yajl (jw.c, jr.c), the engine's stats file (engine_stats.c) and the
 * growing string (strbuf.c): what is written is valid JSON whatever the strings hold (control characters,
 * invalid UTF-8, quotes), unknown numbers and nan are null, a detail tree is written back as it was,
 * and the readers refuse a wrong type instead of converting it. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "engine_stats.h"
#include "jr.h"
#include "jw.h"
#include "strbuf.h"

static char *gen_text(yajl_gen g)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_int_equal(jw_print(g, f), 0);
    fclose(f);
    return buf;
}

static void test_strings_always_valid(void **state)
{
    (void)state;
    yajl_gen g = jw_new(0);
    jw_open(g);
    jw_kstr(g, "ctl", "a\x01\x1b[2J\n\"q\"\\");
    jw_kstr(g, "bad", "x\xff\xfey\xc0\xaf" "z\xed\xa0\x80");    /* invalid byte, overlong '/', a surrogate */
    jw_kstr(g, "cut", "\xe2\x82");                             /* a sequence cut short */
    jw_kstr(g, "ok", "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80"); /* é € 😀 stay */
    jw_kstr_or_null(g, "empty", "");
    jw_kstr(g, "null", NULL);
    jw_ku64(g, "unknown", JW_UNKNOWN);
    jw_ku64(g, "big", UINT64_MAX - 1);
    jw_kdbl(g, "nan", NAN, "%.3f");
    jw_kdbl(g, "inf", INFINITY, "%.3f");
    jw_kdbl(g, "s", 1.23456, "%.3f");
    jw_knum(g, "n", 0.1);
    jw_close(g);
    char *t = gen_text(g);
    /* yajl_tree validates UTF-8 and refuses raw control characters: it parses the whole text */
    char err[256];
    yajl_val v = jr_parse(t, err, sizeof err);
    if (!v)
        fail_msg("not valid JSON (%s): %s", err, t);
    assert_string_equal(jr_str(v, "ctl"), "a\x01\x1b[2J\n\"q\"\\");
    assert_string_equal(jr_str(v, "bad"), "x\xef\xbf\xbd\xef\xbf\xbdy\xef\xbf\xbd\xef\xbf\xbdz\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
    assert_string_equal(jr_str(v, "cut"), "\xef\xbf\xbd\xef\xbf\xbd");
    assert_string_equal(jr_str(v, "ok"), "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
    assert_true(YAJL_IS_NULL(jr_get(v, "empty")));
    assert_true(YAJL_IS_NULL(jr_get(v, "null")));
    assert_true(YAJL_IS_NULL(jr_get(v, "unknown")));
    assert_string_equal(jr_get(v, "big")->u.number.r, "18446744073709551614");
    assert_true(YAJL_IS_NULL(jr_get(v, "nan")));
    assert_true(YAJL_IS_NULL(jr_get(v, "inf")));
    assert_string_equal(jr_get(v, "s")->u.number.r, "1.235");
    assert_string_equal(jr_get(v, "n")->u.number.r, "0.1");
    assert_null(strstr(t, "\x1b")); /* escaped, never raw */
    yajl_tree_free(v);
    free(t);
}

static void test_tree_written_back(void **state)
{
    (void)state;
    yajl_gen d = jw_new(0);
    jw_open(d);
    jw_kdbl(d, "seconds", 7.25, "%.2f");
    jw_key(d, "list");
    jw_aopen(d);
    jw_str(d, "a");
    jw_bool(d, 0);
    jw_null(d);
    jw_aclose(d);
    jw_kbool(d, "ok", 1);
    jw_close(d);
    yajl_val tree = jw_to_tree(d);
    assert_non_null(tree);
    yajl_gen g = jw_new(0);
    jw_tree(g, tree);
    char *t = gen_text(g);
    assert_string_equal(t, "{\"seconds\":7.25,\"list\":[\"a\",false,null],\"ok\":true}\n");
    free(t);
    yajl_tree_free(tree);
    assert_null(jw_to_tree(NULL));
}

static void test_typed_reads(void **state)
{
    (void)state;
    char err[256];
    yajl_val v = jr_parse("{\"i\":5,\"neg\":-1,\"f\":1.5,\"e\":1e3,\"s\":\"9\",\"huge\":99999999999999999999,"
                          "\"o\":{\"a\":[1,2]},\"i\":6}", err, sizeof err);
    assert_non_null(v);
    int64_t x;
    assert_true(jr_int(jr_get(v, "i"), &x));
    assert_int_equal(x, 5); /* the first of a key given twice */
    assert_int_equal(jr_u64(v, "neg", 42), 42);
    assert_false(jr_int(jr_get(v, "f"), &x));
    assert_false(jr_int(jr_get(v, "e"), &x));
    assert_false(jr_int(jr_get(v, "s"), &x));
    assert_false(jr_int(jr_get(v, "huge"), &x));
    double d;
    assert_true(jr_num(jr_get(v, "f"), &d) && d == 1.5);
    assert_false(jr_num(jr_get(v, "s"), &d));
    assert_int_equal(jr_len(jr_arr(jr_obj(v, "o"), "a")), 2);
    assert_null(jr_at(jr_arr(jr_obj(v, "o"), "a"), 2));
    assert_null(jr_obj(v, "i"));
    assert_null(jr_get(NULL, "i"));
    yajl_tree_free(v);
    assert_null(jr_parse("{\"a\":1} trailing", err, sizeof err));
    assert_non_null(strstr(err, "trailing garbage"));
    assert_null(strchr(err, '\n'));
    assert_null(jr_parse("{\"a\":\"\xff\"}", err, sizeof err));
}

static void test_engine_stats(void **state)
{
    (void)state;
    engine_stats es;
    engine_stats_parse("{\"engine\":\"etcdwal\",\"segments\":3,\"rollovers\":2,\"io_errors\":\"7\","
                       "\"hist\":{\"cut\":{\"max_ns\":5000},\"prealloc\":{\"mean_ns\":700,\"max_ns\":900,\"count\":2}}}",
                       &es);
    assert_int_equal(es.present, 1);
    assert_int_equal(es.segments, 3);
    assert_int_equal(es.rollovers, 2);
    assert_int_equal(es.io_errors, 0); /* a string is no count */
    assert_int_equal(es.cut_max_ns, 5000);
    assert_int_equal(es.prealloc_mean_ns, 700);
    assert_int_equal(es.prealloc_max_ns, 900);
    assert_int_equal(es.prealloc_count, 2);
    engine_stats_parse("{\"engine\":\"etcdwal\",\"rollovers\":-4}", &es);
    assert_int_equal(es.present, 1);
    assert_int_equal(es.rollovers, 0);
    engine_stats_parse("{\"engine\":\"etcdwal\"", &es); /* cut: not read */
    assert_int_equal(es.present, 0);
    engine_stats_parse("[\"engine\"]", &es);
    assert_int_equal(es.present, 0);
}

static void test_strbuf(void **state)
{
    (void)state;
    strbuf sb = STRBUF_INIT;
    assert_string_equal(sb.buf, "");
    for (int i = 0; i < 5000; i++) {
        strbuf_addsep(&sb, "; ");
        strbuf_addf(&sb, "item %d", i);
    }
    assert_false(sb.oom);
    assert_int_equal(sb.len, strlen(sb.buf));
    assert_true(sb.len > 40000);
    assert_int_equal(strncmp(sb.buf, "item 0; item 1; ", 16), 0);
    assert_non_null(strstr(sb.buf, "; item 4999"));
    char *s = strbuf_detach(&sb);
    assert_string_equal(sb.buf, "");
    free(s);
    s = strbuf_detach(&sb);
    assert_string_equal(s, "");
    free(s);
    strbuf_release(&sb);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_strings_always_valid), cmocka_unit_test(test_tree_written_back),
        cmocka_unit_test(test_typed_reads),          cmocka_unit_test(test_engine_stats),
        cmocka_unit_test(test_strbuf),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
