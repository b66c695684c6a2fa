/* SPDX-License-Identifier: MIT */
/* test_threads.c — libfioreport under concurrent use: 8 threads parse and judge different inputs at the
 * same time (one handle per thread, as the header promises) and must get exactly what a single thread gets.
 * The plain build checks the results; tests/libreport/it_threads.sh runs the same binary built with ThreadSanitizer
 * (or under helgrind) to catch shared state that happens not to corrupt a result. */
#include <dirent.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fioreport_cli.h"

#define NTHREADS 8
#define MAXINPUTS 64
#define ROUNDS 3

typedef struct input {
    char path[512];
    char *buf;
    size_t len;
    char expect[4096]; /* fingerprint from a single thread */
} input;

typedef struct shared {
    input in[MAXINPUTS];
    size_t n;
    pthread_barrier_t start;
} shared;

typedef struct worker {
    shared *sh;
    int id;
    int mismatches;
    char first_bad[512];
} worker;

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc(n > 0 ? (size_t)n : 1);
    *len = buf ? fread(buf, 1, n > 0 ? (size_t)n : 0, f) : 0;
    fclose(f);
    return buf;
}

static void add_dir(shared *sh, const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL && sh->n < MAXINPUTS) {
        if (e->d_name[0] == '.' || !strcmp(e->d_name, "README.md"))
            continue;
        input *in = &sh->in[sh->n];
        snprintf(in->path, sizeof in->path, "%s/%s", dir, e->d_name);
        in->buf = slurp(in->path, &in->len);
        if (in->buf)
            sh->n++;
    }
    closedir(d);
}

/* Everything a caller can observe of one parse: status, message, format, jobs, p99s, verdicts, reasons. */
static void fingerprint(const input *in, int via_file, char *out, size_t outlen)
{
    size_t o = 0;
#define PUT(...)                                                                                           \
    do {                                                                                                   \
        int k = snprintf(out + o, outlen - o, __VA_ARGS__);                                                \
        if (k > 0)                                                                                         \
            o = (size_t)k < outlen - o ? o + (size_t)k : outlen - 1;                                       \
    } while (0)
    /* No cmocka asserts here: this runs in worker threads, where a failed assert cannot unwind. */
    fior_report *r = fior_report_new();
    if (!r) {
        snprintf(out, outlen, "fior_report_new failed");
        return;
    }
    fior_status st = via_file ? fior_parse_file(r, in->path) : fior_parse_buffer(r, in->path, in->buf, in->len);
    PUT("st=%d fmt=%d err=%s n=%zu;", (int)st, (int)fior_report_format(r), fior_report_error(r),
        fior_report_njobs(r));
    fior_criteria *c = fior_criteria_new();
    size_t n = fior_report_njobs(r);
    fior_result *per = c ? fior_judge(r, c) : NULL;
    fior_criteria_free(c);
    if (!per) {
        fior_report_free(r);
        snprintf(out, outlen, "fior_judge failed");
        return;
    }
    fior_verdict all = fior_result_verdict(per);
    PUT("all=%s;", fior_verdict_name(all));
    for (size_t i = 0; i < n; i++) {
        const fior_job *j = fior_report_job(r, i);
        const fior_judgement *jd = fior_result_job(per, i);
        PUT("[%s %s npct=%zu nbins=%zu v=%s %llu %s]", j->name ? j->name : "-", j->host ? j->host : "-",
            j->npct, j->nbins, fior_verdict_name(jd->verdict), (unsigned long long)jd->value_ns,
            jd->reason);
    }
    fior_result_free(per);
    fior_report_free(r);

    /* The stream API on the same bytes, fed in 97-byte pieces. */
    fior_json_stream *s = fior_json_stream_new(in->path);
    if (!s) {
        PUT("fior_json_stream_new failed");
        return;
    }
    fior_status ss = FIOR_OK;
    for (size_t off = 0; off < in->len && ss == FIOR_OK; off += 97)
        ss = fior_json_stream_feed(s, in->buf + off, in->len - off < 97 ? in->len - off : 97);
    const fior_report *sr = fior_json_stream_report(s);
    PUT("stream st=%d docs=%lu jobs=%zu", (int)ss, fior_json_stream_documents(s), sr ? fior_report_njobs(sr) : 0);
    fior_json_stream_free(s);
#undef PUT
}

static void *work(void *arg)
{
    worker *w = arg;
    shared *sh = w->sh;
    char got[4096];
    pthread_barrier_wait(&sh->start);
    for (int round = 0; round < ROUNDS; round++) {
        for (size_t k = 0; k < sh->n; k++) {
            /* Each thread starts at a different input, so different inputs are parsed at the same time. */
            input *in = &sh->in[(k + (size_t)w->id * 3) % sh->n];
            fingerprint(in, (round + w->id) % 2, got, sizeof got);
            if (strcmp(got, in->expect)) {
                if (!w->mismatches)
                    snprintf(w->first_bad, sizeof w->first_bad, "%s", in->path);
                w->mismatches++;
            }
        }
    }
    return NULL;
}

static void test_eight_threads(void **state)
{
    (void)state;
    shared *sh = calloc(1, sizeof *sh);
    assert_non_null(sh);
    add_dir(sh, TEST_FIXTURES "/fio");
    add_dir(sh, TEST_FIXTURES "/seeds");
    assert_true(sh->n >= 3);

    int judged = 0;
    for (size_t i = 0; i < sh->n; i++) {
        fingerprint(&sh->in[i], 0, sh->in[i].expect, sizeof sh->in[i].expect);
        /* Parsing the file or the buffer must read the same; otherwise the comparison below is moot. */
        char viafile[4096];
        fingerprint(&sh->in[i], 1, viafile, sizeof viafile);
        assert_string_equal(viafile, sh->in[i].expect);
        judged += strstr(sh->in[i].expect, "all=pass") || strstr(sh->in[i].expect, "all=fail");
    }
    /* The inputs must exercise real parsing, not only error paths. */
    assert_true(judged >= 2);

    pthread_t t[NTHREADS];
    worker w[NTHREADS];
    assert_int_equal(pthread_barrier_init(&sh->start, NULL, NTHREADS), 0);
    for (int i = 0; i < NTHREADS; i++) {
        w[i] = (worker){.sh = sh, .id = i};
        assert_int_equal(pthread_create(&t[i], NULL, work, &w[i]), 0);
    }
    int bad = 0;
    for (int i = 0; i < NTHREADS; i++) {
        pthread_join(t[i], NULL);
        if (w[i].mismatches)
            print_error("thread %d: %d results differ from the single-thread ones (first: %s)\n", i,
                        w[i].mismatches, w[i].first_bad);
        bad += w[i].mismatches;
    }
    pthread_barrier_destroy(&sh->start);
    print_message("%zu inputs x %d rounds x %d threads\n", sh->n, ROUNDS, NTHREADS);
    for (size_t i = 0; i < sh->n; i++)
        free(sh->in[i].buf);
    free(sh);
    assert_int_equal(bad, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_eight_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
