/* SPDX-License-Identifier: MIT */
/* seq_replay.c — libfioreport's sequential judge (fior_monitor, public API only) on the same data for two
 * builds of the library (bench/full_check.sh, bench/README.md "check --wal-only"), so that a change of the
 * stopping rule is measured without the disk's noise:
 *   seq_replay [--wal-only] [--after-phase1 pass|nopass] FILE
 *       replays a kept check stream (--keep-output DIR's fio-output.json: json+ --status-interval documents),
 *       one document a second, and prints when each role was decided;
 *   seq_replay [--after-phase1 pass|nopass] --simulate P RATE RUNS
 *       RUNS synthetic backend streams of RATE commits a second (fixed seed), each commit at 40 ms (over the
 *       25 ms limit) with probability P, else 3 ms, the WAL all 1 ms: when the backend was decided, as
 *       "pass/fail/undecided counts, mean and median seconds" over 120 s each;
 *   seq_replay --first-pass CONFIDENCE
 *       the library's first possible PASS of a p99 in samples (fior_first_pass_samples, min_samples 100):
 *       the backend's floor at etcd's 10 commits/s.
 * --after-phase1: the stream is check's phase 2, continued (fior__monitor_continue) from a synthetic phase 1
 * that passed or could not pass (200 samples a document, all 1 ms, or 2 % of them at 50 ms): phase 2 then
 * has what phase 1 left of the PASS error; the probe's advice is ignored (phase 2 decides alone). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fioreport_cli.h"

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 20, n = 0;
    char *b = malloc(cap);
    for (size_t got; b && (got = fread(b + n, 1, cap - n, f)) > 0;) {
        n += got;
        if (n == cap) {
            char *nb = realloc(b, cap *= 2);
            if (!nb)
                free(b);
            b = nb;
        }
    }
    fclose(f);
    *len = n;
    return b;
}

/* a synthetic phase 1 fed until it passes or gives up (see the top) */
static fior_monitor *phase1(int pass, int wal_only)
{
    fior_monitor *m = fior_monitor_new(NULL);
    if (!m || fior__monitor_set_heavy(m, 1) != FIOR_OK ||
        (wal_only && fior_monitor_set_roles(m, 1u << FIOR_ROLE_WAL) != FIOR_OK))
        return NULL;
    fior_advice adv = FIOR_GO_ON;
    for (uint64_t k = 1; adv == FIOR_GO_ON && k < 1000; k++) {
        fior_bin b[2] = {{1000000, 200 * k - (pass ? 0 : 4 * k)}, {50000000, pass ? 0 : 4 * k}};
        fior__monitor_feed_bins(m, b, 2, b, 2, 0.2 * (double)k, &adv);
    }
    return m;
}

/* the monitor of one run: alone, or phase 2 after a synthetic phase 1 (*p1 to free) */
static fior_monitor *monitor(const char *after, int wal_only, fior_monitor **p1)
{
    fior_monitor *m = fior_monitor_new(NULL);
    *p1 = after ? phase1(!strcmp(after, "pass"), wal_only) : NULL;
    if (!m || (wal_only && fior_monitor_set_roles(m, 1u << FIOR_ROLE_WAL) != FIOR_OK) ||
        (after && (!*p1 || fior__monitor_continue(m, *p1) != FIOR_OK))) {
        fior_monitor_free(m);
        return NULL;
    }
    return m;
}

static int decided(const fior_monitor *m, fior_role role, fior_answer *ans)
{
    ans->size = sizeof *ans;
    fior_monitor_answer(m, role, ans);
    return ans->decision == FIOR_DEC_PASS || ans->decision == FIOR_DEC_FAIL;
}

static int replay(const char *path, const char *after, int wal_only)
{
    size_t len = 0;
    char *buf = slurp(path, &len);
    fior_json_stream *s = fior_json_stream_new(path);
    fior_monitor *p1, *m = monitor(after, wal_only, &p1);
    if (!buf || !s || !m) {
        fprintf(stderr, "%s: cannot read it, or out of memory\n", path);
        return 2;
    }
    unsigned long seen = 0;
    double at[2] = {0, 0}, stop_at = 0;
    fior_answer ans;
    for (size_t off = 0; off < len; off += 1024) { /* small pieces: every document is seen on its own */
        if (fior_json_stream_feed(s, buf + off, len - off < 1024 ? len - off : 1024) != FIOR_OK) {
            fprintf(stderr, "%s\n", fior_json_stream_error(s));
            return 2;
        }
        if (fior_json_stream_documents(s) == seen)
            continue;
        seen = fior_json_stream_documents(s);
        fior_advice adv = FIOR_GO_ON;
        fior_monitor_feed(m, fior_json_stream_report(s), (double)seen, &adv); /* one document a second */
        for (int k = 0; k < 2; k++)
            if (!at[k] && decided(m, k ? FIOR_ROLE_BACKEND : FIOR_ROLE_WAL, &ans))
                at[k] = (double)seen;
        if ((adv == FIOR_STOP_DECIDED || adv == FIOR__STOP_PHASE_OVER) && !stop_at)
            stop_at = (double)seen;
    }
    for (int k = 0; k < 2; k++) {
        decided(m, k ? FIOR_ROLE_BACKEND : FIOR_ROLE_WAL, &ans);
        char lo[32], hi[32];
        printf("%s %s at %.0f s (%llu samples; bound %s..%s @%.4g%%)  ", k ? "backend" : "wal",
               fior_decision_name(ans.decision), at[k], (unsigned long long)ans.decided_samples,
               fior_format_ns(lo, sizeof lo, ans.look_lo_ns),
               ans.look_hi_ns == UINT64_MAX ? "?" : fior_format_ns(hi, sizeof hi, ans.look_hi_ns),
               ans.look_confidence * 100);
    }
    printf("stop %s at %.0f s of %lu\n", fior_decision_name(fior_monitor_overall(m)), stop_at, seen);
    fior_monitor_free(m);
    fior_monitor_free(p1);
    fior_json_stream_free(s);
    free(buf);
    return 0;
}

static uint64_t rng = 0x9E3779B97F4A7C15ull; /* xorshift64*: the same streams for every build */
static double uniform(void)
{
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return (double)((rng * 0x2545F4914F6CDD1Dull) >> 11) / 9007199254740992.0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static int simulate(double p, double rate, int runs, const char *after)
{
    double *t = calloc((size_t)runs, sizeof *t), sum = 0;
    int n[3] = {0, 0, 0}; /* pass, fail, undecided */
    for (int r = 0; t && r < runs; r++) {
        fior_monitor *p1, *m = monitor(after, 0, &p1);
        if (!m)
            return 2;
        fior_bin wal[1] = {{1000000, 0}}, be[2] = {{3000000, 0}, {40000000, 0}};
        fior_answer ans;
        int s;
        for (s = 1; s <= 120; s++) {
            wal[0].count += 150;
            for (int k = 0; k < (int)rate; k++)
                be[uniform() < p].count++;
            fior__monitor_feed_bins(m, wal, 1, be, 2, (double)s, NULL);
            if (decided(m, FIOR_ROLE_BACKEND, &ans))
                break;
        }
        decided(m, FIOR_ROLE_BACKEND, &ans);
        n[ans.decision == FIOR_DEC_PASS ? 0 : ans.decision == FIOR_DEC_FAIL ? 1 : 2]++;
        t[r] = s > 120 ? 120 : s;
        sum += t[r];
        fior_monitor_free(m);
        fior_monitor_free(p1);
    }
    if (!t)
        return 2;
    qsort(t, (size_t)runs, sizeof *t, cmp_double);
    printf("p %g: pass %d fail %d undecided %d; mean %.1f s, median %.0f s\n", p, n[0], n[1], n[2], sum / runs,
           t[runs / 2]);
    free(t);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 3 && !strcmp(argv[1], "--first-pass")) {
        printf("%llu\n", (unsigned long long)fior_first_pass_samples(0.99, strtod(argv[2], NULL), 100));
        return 0;
    }
    int wal_only = 0, a = 1;
    const char *after = NULL;
    for (; a < argc; a++) {
        if (!strcmp(argv[a], "--wal-only"))
            wal_only = 1;
        else if (!strcmp(argv[a], "--after-phase1") && a + 1 < argc)
            after = argv[++a];
        else
            break;
    }
    if (after && strcmp(after, "pass") && strcmp(after, "nopass"))
        a = argc; /* usage */
    if (a + 4 == argc && !strcmp(argv[a], "--simulate") && atoi(argv[a + 3]) > 0)
        return simulate(strtod(argv[a + 1], NULL), strtod(argv[a + 2], NULL), atoi(argv[a + 3]), after);
    if (a + 1 == argc)
        return replay(argv[a], after, wal_only);
    fprintf(stderr, "usage: seq_replay [--wal-only] [--after-phase1 pass|nopass] FIO-OUTPUT.json\n"
                    "       seq_replay [--after-phase1 pass|nopass] --simulate P RATE RUNS\n"
                    "       seq_replay --first-pass CONFIDENCE\n");
    return 2;
}
