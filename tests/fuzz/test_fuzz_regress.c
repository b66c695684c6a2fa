/* SPDX-License-Identifier: MIT */
/* test_fuzz_regress.c — replays inputs through the fuzz harness bodies (fuzz/fuzz_targets.h) in the normal
 * build, so everything a fuzzer once found stays tested where clang's fuzzer runtime is missing (and runs
 * under ASan/UBSan in `make check-asan`):
 *   tests/regress/<harness>/...  crash inputs found by `make fuzz`, and hand-made hostile inputs;
 *   the seed fixtures           every fio output / etcd-perf log / WAL head the fuzzers start from, so the
 *                               harness invariants (no false PASS, one-line errors, …) hold on real data.
 */
#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <cmocka.h>

/* The input being replayed, for the failure message (a test program, not library state). */
static const char *fz_current = "";

#define FZ_ASSERT(c)                                                                                        \
    do {                                                                                                    \
        if (!(c))                                                                                           \
            fail_msg("%s: harness invariant failed: %s (%s:%d)", fz_current, #c, __FILE__, __LINE__);       \
    } while (0)
#include "../../fuzz/fuzz_targets.h"
#if __has_include("waldec.h")
#include "../../fuzz/fuzz_waldec_body.h"
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

/* A corpus file: a regular file (not a dot file or the README) whose name ends in one of the suffixes. */
static int is_input(const char *dir, const char *name, const char *const *suffixes)
{
    if (name[0] == '.' || !strcmp(name, "README.md"))
        return 0;
    char path[4096];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return 0;
    for (const char *const *s = suffixes; *s; s++)
        if (has_suffix(name, *s))
            return 1;
    return 0;
}

/* The corpus files in dir, counted on their own (fails when dir cannot be listed). */
static int count_inputs(const char *dir, const char *const *suffixes)
{
    DIR *d = opendir(dir);
    if (!d)
        fail_msg("%s: %s", dir, strerror(errno));
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        n += is_input(dir, e->d_name, suffixes);
    closedir(d);
    return n;
}

/* Replays every corpus file of dir through body; fails unless every one of them was read and replayed and
 * there is at least one. Returns the count. */
static int replay_dir(const char *dir, const char *const *suffixes, body_fn body, size_t max_len)
{
    int want = count_inputs(dir, suffixes), count = 0;
    DIR *d = opendir(dir);
    if (!d)
        fail_msg("%s: %s", dir, strerror(errno));
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (!is_input(dir, e->d_name, suffixes))
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        size_t len = 0;
        uint8_t *buf = slurp(path, &len);
        if (!buf)
            fail_msg("%s: cannot be read", path);
        fz_current = path;
        body(buf, len < max_len ? len : max_len);
        free(buf);
        count++;
    }
    closedir(d);
    fz_current = "";
    print_message("%s: %d of %d inputs replayed\n", dir, count, want);
    if (count != want || want == 0)
        fail_msg("%s: %d inputs replayed, %d in the directory", dir, count, want);
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
    int want = count_inputs(REGRESS_DIR "/fuzz_auto", any) + count_inputs(REGRESS_DIR "/fuzz_normal", any) +
               count_inputs(REGRESS_DIR "/fuzz_json", any) + count_inputs(REGRESS_DIR "/fuzz_etcdperf", any) +
               count_inputs(REGRESS_DIR "/fuzz_prom", any);
#ifdef HAVE_WALDEC
    want += count_inputs(REGRESS_DIR "/fuzz_waldec", any);
#else
    print_message("SKIP: no waldec.h: tests/regress/fuzz_waldec not replayed\n");
#endif
    print_message("replayed %d regression inputs\n", n);
    assert_int_equal(n, want);
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
    print_message("replayed %d seed fixtures\n", n); /* each directory checked whole in replay_dir */
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
