/* SPDX-License-Identifier: MIT */
/* test_fuzz_regress.c — replays inputs through the fuzz harness bodies (fuzz/fuzz_targets.h) in the normal
 * build, so everything a fuzzer once found stays tested where clang's fuzzer runtime is missing (and runs
 * under ASan/UBSan in `make check-asan`):
 *   tests/regress/<harness>/...  crash inputs found by `make fuzz`, and hand-made hostile inputs;
 *   the seed fixtures           every fio output / etcd-perf log / WAL head the fuzzers start from, so the
 *                               harness invariants (no false PASS, one-line errors, …) hold on real data.
 */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

/* The input being replayed, for the failure message (a test program, not library state). */
static const char *fz_current = "";

#define FZ_ASSERT(c)                                                                                        \
    do {                                                                                                    \
        if (!(c))                                                                                           \
            fail_msg("%s: harness invariant failed: %s (%s:%d)", fz_current, #c, __FILE__, __LINE__);       \
    } while (0)
#include "../fuzz/fuzz_targets.h"
#if __has_include("waldec.h")
#include "../fuzz/fuzz_waldec_body.h"
#define HAVE_WALDEC 1
#endif

#define REGRESS_DIR TEST_FIXTURES "/../regress"

typedef void (*body_fn)(const uint8_t *, size_t);

static uint8_t *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, n = 0;
    uint8_t *buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            uint8_t *nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
    }
    fclose(f);
    *len = n;
    return buf;
}

static int has_suffix(const char *s, const char *suf)
{
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && !strcmp(s + a - b, suf);
}

/* Replays every regular file of dir whose name ends in one of the suffixes ("" = any); returns the count. */
static int replay_dir(const char *dir, const char *const *suffixes, body_fn body, size_t max_len)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int count = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.' || !strcmp(e->d_name, "README.md"))
            continue;
        int ok = 0;
        for (const char *const *s = suffixes; *s; s++)
            ok |= has_suffix(e->d_name, *s);
        if (!ok)
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        size_t len = 0;
        uint8_t *buf = slurp(path, &len);
        if (!buf)
            continue;
        fz_current = path;
        body(buf, len < max_len ? len : max_len);
        free(buf);
        count++;
    }
    closedir(d);
    fz_current = "";
    return count;
}

static const char *const any[] = {"", NULL};
static const char *const text[] = {".txt", ".log", NULL};
static const char *const json[] = {".json", NULL};
static const char *const logs[] = {".log", NULL};
static const char *const fio_out[] = {".txt", ".json", ".log", NULL};

static void test_regress_inputs(void **state)
{
    (void)state;
    int n = 0;
    n += replay_dir(REGRESS_DIR "/fuzz_auto", any, fz_auto, SIZE_MAX);
    n += replay_dir(REGRESS_DIR "/fuzz_normal", any, fz_normal, SIZE_MAX);
    n += replay_dir(REGRESS_DIR "/fuzz_json", any, fz_json, SIZE_MAX);
    n += replay_dir(REGRESS_DIR "/fuzz_etcdperf", any, fz_etcdperf, SIZE_MAX);
    n += replay_dir(REGRESS_DIR "/fuzz_prom", any, fz_prom, SIZE_MAX);
#ifdef HAVE_WALDEC
    n += replay_dir(REGRESS_DIR "/fuzz_waldec", any, fz_waldec, SIZE_MAX);
#endif
    print_message("replayed %d regression inputs\n", n);
    /* The directory is committed with hand-made hostile inputs; none found means a broken path. */
    assert_true(n > 0);
}

static void test_seed_fixtures(void **state)
{
    (void)state;
    int n = 0;
    n += replay_dir(TEST_FIXTURES "/fio", fio_out, fz_auto, SIZE_MAX);
    n += replay_dir(TEST_FIXTURES "/fio", text, fz_normal, SIZE_MAX);
    n += replay_dir(TEST_FIXTURES "/fio", json, fz_json, SIZE_MAX);
    n += replay_dir(TEST_FIXTURES "/seeds", fio_out, fz_auto, SIZE_MAX);
    n += replay_dir(TEST_FIXTURES "/seeds", text, fz_normal, SIZE_MAX);
    n += replay_dir(TEST_FIXTURES "/seeds", logs, fz_etcdperf, SIZE_MAX);
    n += replay_dir(TEST_FIXTURES "/etcd-metrics", any, fz_prom, SIZE_MAX);
    n += replay_dir(TEST_FIXTURES "/etcd-metrics", any, fz_auto, SIZE_MAX);
#ifdef HAVE_WALDEC
    n += replay_dir(TEST_FIXTURES "/etcd-wal", any, fz_waldec, SIZE_MAX);
#endif
    print_message("replayed %d seed fixtures\n", n);
    assert_true(n >= 6);
}

/* Every prefix of a real output is an input a truncated log file produces: all must be handled. */
static void test_truncations(void **state)
{
    (void)state;
    static const char *files[] = {TEST_FIXTURES "/seeds/fio-3.23-normal-rke.txt",
                                  TEST_FIXTURES "/seeds/etcd-perf-container.log",
                                  TEST_FIXTURES "/fio/fio-3.33-json.json"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        size_t len = 0;
        uint8_t *buf = slurp(files[i], &len);
        if (!buf)
            continue;
        fz_current = files[i];
        for (size_t cut = 0; cut <= len; cut += (cut < 512 ? 1 : 37))
            fz_auto(buf, cut);
        free(buf);
    }
    fz_current = "";
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_regress_inputs),
        cmocka_unit_test(test_seed_fixtures),
        cmocka_unit_test(test_truncations),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
