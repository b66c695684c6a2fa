/* SPDX-License-Identifier: MIT */
/* fuzz_targets.h — the bodies of the libFuzzer harnesses, shared with tests/fuzz/test_fuzz_regress.c, which
 * replays every input under tests/regress/<harness>/ through the same body in the normal (gcc) build, so a
 * crash once found stays covered even where clang's fuzzer runtime is missing.
 *
 * Beyond "no crash, no leak, no UB", each body checks the library's promises on whatever it parsed:
 * a failed parse leaves a one-line message naming the source; jobs are well formed (percentiles and bins
 * ascending, counts match pointers); a PASS always rests on a value the input gave, below the threshold,
 * with a known sample count of at least the minimum, from a job without error, whose run reached its end,
 * whose syncs were fsync/fdatasync on an engine that does I/O without O_SYNC/O_DSYNC and whose median is
 * not below the physical floor; the status-interval stream gives the same result (and the same ends)
 * however the bytes are split.
 *
 * The includer defines FZ_ASSERT(cond) (trap in the fuzzer, cmocka assert in the replay test).
 */
#ifndef FUZZ_TARGETS_H
#define FUZZ_TARGETS_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fioreport_monitor.h"
#include "internal.h" /* the reader table (fior__readers), so each format is fuzzed without the detector in front */

#ifndef FZ_ASSERT
#error "define FZ_ASSERT before including fuzz_targets.h"
#endif

#define FZ_SOURCE "fuzz-input"
/* Each harness uses one body; the others must not trip -Wunused-function. */
#define FZ_FN static __attribute__((unused))

FZ_FN void fz_check_message(const char *msg, fior_status st)
{
    FZ_ASSERT(msg != NULL);
    if (st == FIOR_OK)
        return;
    /* The guide's error contract: one line, naming the input. */
    FZ_ASSERT(msg[0] != '\0');
    FZ_ASSERT(strchr(msg, '\n') == NULL);
    FZ_ASSERT(strstr(msg, FZ_SOURCE) != NULL);
}

FZ_FN void fz_check_job(const fior_job *j)
{
    FZ_ASSERT(j != NULL);
    FZ_ASSERT(j->size == FIOR__JOB_PUBLIC_SIZE); /* FIOR_HAS reads it: set on every job handed out */
    FZ_ASSERT(j->source != NULL);
    (void)strlen(j->source);
    if (j->name)
        (void)strlen(j->name);
    if (j->host)
        (void)strlen(j->host);
    if (j->ioengine)
        (void)strlen(j->ioengine);
    if (j->fio_version)
        (void)strlen(j->fio_version);
    if (j->etcd_mode)
        (void)strlen(j->etcd_mode);
    FZ_ASSERT(j->role == FIOR_ROLE_WAL || j->role == FIOR_ROLE_BACKEND || j->role == FIOR_ROLE_CHECK_PERF);
    FZ_ASSERT(j->nbuckets == 0 || j->buckets != NULL);
    if (j->bucketed) {
        /* bucket data never reaches the exact-sample rule */
        FZ_ASSERT(j->npct == 0 && j->nbins == 0);
        for (size_t k = 1; k < j->nbuckets; k++)
            FZ_ASSERT(j->buckets[k - 1].le_ns < j->buckets[k].le_ns);
        if (!j->defect) {
            for (size_t k = 1; k < j->nbuckets; k++)
                FZ_ASSERT(j->buckets[k - 1].count <= j->buckets[k].count);
            FZ_ASSERT(j->nbuckets > 0 && j->buckets[j->nbuckets - 1].le_ns == UINT64_MAX);
            FZ_ASSERT(j->samples_known && j->samples == j->buckets[j->nbuckets - 1].count);
        } else {
            (void)strlen(j->defect);
        }
    }
    if (j->summary)
        (void)strlen(j->summary);
    /* the run-ended flag and what made the syncs */
    FZ_ASSERT(j->end >= FIOR_END_UNKNOWN && j->end <= FIOR_END_CUT);
    FZ_ASSERT(j->end == FIOR_END_UNKNOWN || j->end_reason != NULL);
    if (j->end_reason)
        FZ_ASSERT(j->end_reason[0] != '\0' && strchr(j->end_reason, '\n') == NULL);
    if (j->directory)
        (void)strlen(j->directory);
    if (j->filename)
        (void)strlen(j->filename);
    if (j->error_text)
        (void)strlen(j->error_text);
    FZ_ASSERT((j->sync_flags & ~0x1ffu) == 0);
    FZ_ASSERT(j->end_signal >= 0 && j->end_signal < 1000);
    if (j->etcd_member)
        (void)strlen(j->etcd_member);
    FZ_ASSERT(j->npct == 0 || j->pct != NULL);
    for (size_t k = 0; k < j->npct; k++) {
        FZ_ASSERT(j->pct[k].percent == j->pct[k].percent); /* not NaN */
        if (k > 0)
            FZ_ASSERT(j->pct[k - 1].percent <= j->pct[k].percent);
    }
    FZ_ASSERT(j->nbins == 0 || j->bins != NULL);
    for (size_t k = 1; k < j->nbins; k++)
        FZ_ASSERT(j->bins[k - 1].ns <= j->bins[k].ns);
    if (j->nbins > 0) {
        uint64_t lo = 0, pt = 0, hi = 0;
        fior_status st = fior_quantile_bound(j->bins, j->nbins, 0.99, 0.95, &lo, &pt, &hi);
        if (st == FIOR_OK)
            FZ_ASSERT(lo <= pt && pt <= hi);
    }
}

/* Walks the report and judges it; returns the overall verdict. */
FZ_FN fior_verdict fz_check_report(const fior_report *r)
{
    size_t n = fior_report_njobs(r);
    for (size_t i = 0; i < n; i++)
        fz_check_job(fior_report_job(r, i));
    FZ_ASSERT(fior_report_job(r, n) == NULL);
    fior_format f = fior_report_format(r);
    FZ_ASSERT(f >= FIOR_FMT_UNKNOWN && f <= FIOR_FMT_CHECK_PERF);

    fior_result *res = fior_judge(r, NULL);
    FZ_ASSERT(res != NULL);
    FZ_ASSERT(fior_result_count(res) == n);
    FZ_ASSERT(fior_result_job(res, n) == NULL);
    fior_verdict all = fior_result_verdict(res);
    size_t passed = 0, failed = 0;
    for (size_t i = 0; i < n; i++) {
        const fior_judgement *jd = fior_result_job(res, i);
        FZ_ASSERT(jd != NULL && jd->reason != NULL);
        FZ_ASSERT(jd->size == sizeof *jd);
        FZ_ASSERT(jd->reason[0] != '\0' && strchr(jd->reason, '\n') == NULL);
        FZ_ASSERT(fior_verdict_name(jd->verdict) != NULL);
        if (jd->verdict == FIOR_PASS) {
            /* Never a false pass: a PASS needs a value read from the input, below the threshold, and a
             * known sample count of at least the minimum (issue 11: no PASS without proof). */
            const fior_job *job = fior_report_job(r, i);
            FZ_ASSERT(jd->value_known);
            FZ_ASSERT(jd->value_ns < jd->threshold_ns);
            FZ_ASSERT(job->has_sync);
            FZ_ASSERT(job->samples_known);
            FZ_ASSERT(job->samples >= fior_criteria_min_samples(NULL));
            FZ_ASSERT(job->error == 0);
            /* the value is one the input gave: a percentile (held within the job's min..max, as every figure
             * is shown: fio prints a bin's middle, which may lie past the exact max), or a bucket's edge */
            int read = 0;
            for (size_t k = 0; k < job->npct && !read; k++)
                read = fior__job_in_range(job, job->pct[k].ns) == jd->value_ns;
            for (size_t k = 0; job->bucketed && k < job->nbuckets && !read; k++)
                read = job->buckets[k].le_ns == jd->value_ns;
            FZ_ASSERT(read);
            /* nor when the input contradicts itself about the job */
            FZ_ASSERT(job->defect == NULL);
            /* nor from a run that did not reach its end, nor from syncs that flushed nothing to a disk
             * (issues 25, 26): fsync/fdatasync samples of a job that ran to its end on an engine doing I/O */
            if (!job->bucketed) {
                FZ_ASSERT(job->end == FIOR_END_PROVEN || job->end == FIOR_END_INFERRED);
                FZ_ASSERT(!(job->sync_flags & (FIOR_SYNC_RANGE | FIOR_SYNC_O_SYNC | FIOR_SYNC_O_DSYNC)));
                FZ_ASSERT(!fior__engine_no_io(job->ioengine));
                for (size_t k = 0; k < job->npct; k++)
                    if (job->pct[k].percent >= 50.0) { /* the median is at least about the floor */
                        FZ_ASSERT(job->pct[k].ns >= FIOR_FLOOR_DEFAULT_NS / 2);
                        break;
                    }
            }
            passed++;
        } else if (jd->verdict == FIOR_FAIL) {
            failed++;
        }
        const fior_job *j = fior_report_job(r, i);
        if (j->role == FIOR_ROLE_CHECK_PERF)
            FZ_ASSERT(jd->verdict != FIOR_PASS); /* etcd as a whole never passes a disk */
        if (j->bucketed && (jd->verdict == FIOR_PASS || jd->verdict == FIOR_FAIL)) {
            /* the sound bucket rule (default criteria): the whole bucket holding the p99 is on one side */
            uint64_t lo, hi;
            FZ_ASSERT(!j->defect && j->samples >= 100);
            FZ_ASSERT(fior__bucket_locate(j->buckets, j->nbuckets, 99.0, &lo, &hi) == 0);
            if (jd->verdict == FIOR_PASS)
                FZ_ASSERT(hi < jd->threshold_ns && jd->value_ns == hi);
            else
                FZ_ASSERT(lo >= jd->threshold_ns && jd->value_ns == lo);
        }
    }
    if (all == FIOR_PASS) {
        FZ_ASSERT(passed > 0);
        FZ_ASSERT(failed == 0);
    }
    if (failed > 0)
        FZ_ASSERT(all == FIOR_FAIL);
    fior_result_free(res);
    return all;
}

/* fior_parse_buffer on exactly these bytes (the auto-detecting entry point). */
FZ_FN void fz_parse(const char *buf, size_t len)
{
    fior_report *r = fior_report_new();
    FZ_ASSERT(r != NULL);
    fior_status st = fior_parse_buffer(r, FZ_SOURCE, buf, len);
    FZ_ASSERT(st >= FIOR_OK && st <= FIOR_E_TOOBIG);
    FZ_ASSERT(fior_strstatus(st) != NULL);
    fz_check_message(fior_report_error(r), st);
    fz_check_report(r);
    /* A second input appended to the same report must not disturb the first one's jobs. */
    size_t before = fior_report_njobs(r);
    fior_status st2 = fior_parse_buffer(r, FZ_SOURCE, buf, len);
    if (st2 != FIOR_OK)
        FZ_ASSERT(fior_report_njobs(r) == before);
    fz_check_report(r);
    fior_report_free(r);
}

typedef fior_status (*fz_reader)(fior_report *r, const char *source, const char *buf, size_t len);

/* One format reader on exactly these bytes, into a fresh report, as fior_parse_buffer calls it. */
FZ_FN void fz_reader_run(fz_reader rd, const uint8_t *data, size_t size)
{
    fior_report *r = fior_report_new();
    FZ_ASSERT(r != NULL);
    fior_status st = rd(r, FZ_SOURCE, (const char *)data, size);
    FZ_ASSERT(st >= FIOR_OK && st <= FIOR_E_TOOBIG);
    fz_check_message(fior_report_error(r), st);
    if (st == FIOR_OK)
        fz_check_report(r);
    fior_report_free(r);
}

/* The reader of that name in the library's table (the one fior_parse_buffer picks from). */
FZ_FN fz_reader fz_table_reader(const char *name)
{
    const fior__reader *rd = fior__reader_named(name);
    FZ_ASSERT(rd != NULL && rd->parse != NULL && rd->detect != NULL);
    return rd->parse;
}

/* Every reader of the table on the same bytes, whatever its detect() says: a format added to the table is
 * fuzzed by fuzz_auto without a harness of its own. */
FZ_FN void fz_all_readers(const uint8_t *data, size_t size)
{
    size_t n = 0;
    const fior__reader *rd = fior__readers(&n);
    FZ_ASSERT(n > 0);
    for (size_t i = 0; i < n; i++) {
        FZ_ASSERT(rd[i].name != NULL && fior__reader_named(rd[i].name) == &rd[i]);
        (void)rd[i].detect((const char *)data, size);
        fz_reader_run(rd[i].parse, data, size);
    }
}

FZ_FN void fz_normal(const uint8_t *data, size_t size)
{
    fz_reader_run(fz_table_reader("normal"), data, size);
}

FZ_FN void fz_etcdperf(const uint8_t *data, size_t size)
{
    fz_reader_run(fz_table_reader("etcd-perf"), data, size);
}

/* fior_parse_buffer (detection + the chosen reader), then every reader of the table directly. */
FZ_FN void fz_auto(const uint8_t *data, size_t size)
{
    fz_parse((const char *)data, size);
    fz_all_readers(data, size);
}

/* etcd's metrics: the scrape reader and the check perf reader alone; then the input cut in two (at a point
 * taken from its first byte) parsed as a "before" and an "after" scrape of one report, and the window
 * between them, whose jobs must be as well formed as any. */
FZ_FN void fz_prom(const uint8_t *data, size_t size)
{
    fz_reader_run(fz_table_reader("prometheus"), data, size);
    fz_reader_run(fz_table_reader("check-perf"), data, size);
    const char *buf = (const char *)data;
    size_t cut = size ? (size_t)data[0] * size / 256 : 0;
    fior_report *r = fior_report_new();
    FZ_ASSERT(r != NULL);
    (void)fior_parse_buffer(r, FZ_SOURCE, buf, cut);
    (void)fior_parse_buffer(r, FZ_SOURCE, buf + cut, size - cut);
    (void)fior_parse_buffer(r, FZ_SOURCE, buf, size);
    size_t before = fior_report_njobs(r);
    FZ_ASSERT(fior_report_window(r) == FIOR_OK);
    FZ_ASSERT(fior_report_njobs(r) <= before);
    fz_check_report(r);
    fior_report_free(r);
}

FZ_FN fior_status fz_json_reader(fior_report *r, const char *source, const char *buf, size_t len)
{
    int text_jobs = -1;
    unsigned long docs = 0;
    char *text;
    size_t tlen;
    fior_status st = fior__parse_json(r, source, buf, len, &text_jobs, &docs, &text, &tlen);
    FZ_ASSERT(text_jobs == 0 || text_jobs == 1);
    FZ_ASSERT(st != FIOR_OK || docs > 0);
    FZ_ASSERT(!text_jobs == !text);
    if (text_jobs) /* as the reader table does: the text beside the documents (normal,json) */
        st = fior__text_beside_json(r, source, text, tlen);
    free(text);
    return st;
}

/* JSON: the whole input through fior_parse_buffer, and through the stream API twice: in one piece and split
 * at points taken from the input's first bytes. Both streams must agree (the first error, documents seen,
 * final report), also under a per-document cap that half the inputs set (from their first byte), which
 * drops the same document at the same byte wherever the input is split. */
FZ_FN void fz_json(const uint8_t *data, size_t size)
{
    fz_reader_run(fz_json_reader, data, size);

    uint8_t seed = size ? data[0] : 0;
    const char *buf = (const char *)data;

    fior_json_stream *whole = fior_json_stream_new(FZ_SOURCE);
    fior_json_stream *split = fior_json_stream_new(FZ_SOURCE);
    FZ_ASSERT(whole != NULL && split != NULL);
    if (seed & 1) {
        uint64_t cap = 256 + (uint64_t)(seed >> 1) * 64; /* 256 B .. 8.4 kB: fio's documents are 2-15 kB */
        FZ_ASSERT(fior_json_stream_set_max_document(whole, cap) == FIOR_OK);
        FZ_ASSERT(fior_json_stream_set_max_document(split, cap) == FIOR_OK);
        FZ_ASSERT(fior_json_stream_max_document(split) == cap);
    }
    fior_status sw = fior_json_stream_feed(whole, buf, size);
    if (sw != FIOR_OK)
        fz_check_message(fior_json_stream_error(whole), sw);

    fior_status ss = FIOR_OK;
    size_t off = 0;
    unsigned step = 1;
    while (off < size && ss == FIOR_OK) {
        /* Chunk sizes from the input bytes (1..64), so libFuzzer explores split points too. */
        step = (unsigned)(data[off % size] ^ seed) % 64u + 1u;
        size_t n = size - off < step ? size - off : step;
        ss = fior_json_stream_feed(split, buf + off, n);
        off += n;
        const fior_report *cur = fior_json_stream_report(split);
        if (cur)
            fz_check_report(cur);
    }
    if (ss != FIOR_OK)
        fz_check_message(fior_json_stream_error(split), ss);

    /* Chunking must not change what is read, nor the first error. */
    FZ_ASSERT(sw == ss);
    if (sw == FIOR_OK) {
        FZ_ASSERT(fior_json_stream_documents(whole) == fior_json_stream_documents(split));
        const fior_report *a = fior_json_stream_report(whole), *b = fior_json_stream_report(split);
        FZ_ASSERT((a == NULL) == (b == NULL));
        if (a && b) {
            FZ_ASSERT(fior_report_njobs(a) == fior_report_njobs(b));
            FZ_ASSERT(fz_check_report(a) == fz_check_report(b));
            for (size_t i = 0; i < fior_report_njobs(a); i++) { /* signal lines split anywhere: the same end */
                FZ_ASSERT(fior_report_job(a, i)->end == fior_report_job(b, i)->end);
                FZ_ASSERT(fior_report_job(a, i)->end_signal == fior_report_job(b, i)->end_signal);
            }
        }
    }
    fior_json_stream_free(whole);
    fior_json_stream_free(split);
}

#endif
