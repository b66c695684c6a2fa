/* SPDX-License-Identifier: MIT */
/* json_stream.c — finds fio JSON documents in any input (a document starts at a line whose first non-blank
 * byte is '{', after a broken one at column 0; stray "fio: …" lines and the normal half of normal,json
 * output lie between them), and nothing but them: this is the fior_json_stream_* API. It feeds each
 * to yajl's event parser chunk by chunk (fmt_json.c turns the events into jobs), and groups the documents
 * into runs: one fio run's --status-interval documents (the same jobs, later timestamps, counters that only
 * grow, the same fio start) are one run, judged by its last document; any other document starts a new
 * run, and every run is kept and judged (a later run never hides an earlier one).
 * The same code serves whole buffers, files read in chunks (fior_parse_file) and the fior_json_stream_* API,
 * so where an input is split never changes what is read. fio's signal lines are taken out before the
 * scanner sees the bytes (json_signal.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_doc.h"

/* fio's normal output beside the JSON (normal,json) shows as job headers outside every document */
static const char HDR[] = ": (groupid=";

/* ---- runs ---- */

static int same_str(const char *a, const char *b)
{
    return a == b || (a && b && !strcmp(a, b));
}

/* A --status-interval document repeats the same jobs, in the same order, a little later, with counters
 * that only grow. Two separate runs of one job file look much the same, so all of this must hold, and a
 * doubt splits (judging an interim document on its own can only cost a PASS, never make one):
 * - the same jobs (name, group, host, port), and a later timestamp: to the millisecond (timestamp_ms)
 *   strictly later; client/server output has whole seconds only, where two documents may share one;
 * - per job, I/O counts (write total_ios + sync N) and job_runtime never go down, and one of the two sums
 *   goes up (a stalled disk does no I/O between two documents, but the jobs' runtime still grows) — or,
 *   after a signal line and a document, stays the same (the jobs were stopped);
 * - the same fio process: timestamp − "elapsed" (seconds since fio started, rounded up, eta.c; read a
 *   moment after the timestamp, stat.c) is fio's start, so two documents of one run agree on it to within
 *   a second, two when the status thread was held up (whole-second timestamps: one more). */
static int same_run(const fior_json_stream *s, const jdoc *d, const fior_report *doc)
{
    if (!s->have_cur || s->rep->njobs - s->ndone != doc->njobs || d->naux != doc->njobs)
        return 0;
    int known = d->ts_has_ms || d->ts_known;
    if (!known || !s->cur_ts_known)
        return 0;
    int ms = d->ts_has_ms && s->cur_ts_ms;
    if (ms ? d->ts_ms <= s->cur_ts : d->ts_ms < s->cur_ts)
        return 0;
    uint64_t before = 0, after = 0, rt_before = 0, rt_after = 0;
    for (size_t i = 0; i < doc->njobs; i++) {
        const fior_job *a = &s->rep->jobs[s->ndone + i], *b = &doc->jobs[i];
        const jjob *xa = &s->cur_x[i], *xb = &d->aux[i];
        if (!same_str(a->name, b->name) || !same_str(a->host, b->host) || a->group != b->group ||
            a->port != b->port)
            return 0;
        /* every document of one run prints the same job options: another directory, file, size, block
         * size or limit is another run of a job of that name (outputs appended to one file) */
        if (!same_str(a->directory, b->directory) || !same_str(a->filename, b->filename) ||
            !same_str(a->ioengine, b->ioengine) || xa->has_opts != xb->has_opts || xa->o_size != xb->o_size ||
            xa->o_io_size != xb->o_io_size || xa->o_bs != xb->o_bs || xa->o_runtime_ms != xb->o_runtime_ms ||
            xa->o_number_ios != xb->o_number_ios || xa->o_loops != xb->o_loops || xa->o_numjobs != xb->o_numjobs)
            return 0;
        uint64_t ia = xa->writes + a->samples, ib = xb->writes + b->samples;
        if (ib < ia || xb->runtime_ms < xa->runtime_ms)
            return 0;
        before += ia;
        after += ib;
        rt_before += xa->runtime_ms;
        rt_after += xb->runtime_ms;
        if (xa->has_elapsed && xb->has_elapsed) {
            int64_t ga = (int64_t)s->cur_ts - (int64_t)xa->elapsed_s * 1000;
            int64_t gb = (int64_t)d->ts_ms - (int64_t)xb->elapsed_s * 1000;
            int64_t slack = ms ? 2000 : 3000;
            if (ga - gb >= slack || gb - ga >= slack)
                return 0;
        }
    }
    /* After fio's "terminating on signal" line its jobs stop: the status thread may still print a document
     * before the final one (backend.c sig_int only sets flags), both with the same counts and runtimes */
    if (s->run_signal && s->run_after && after == before && rt_after == rt_before)
        return 1;
    return after > before || rt_after > rt_before;
}

static fior_status commit_doc(fior_json_stream *s)
{
    jdoc *d = &s->d;
    fior_report *doc = s->doc;
    uint64_t prev_ts = s->cur_ts;
    int prev_ms = s->cur_ts_ms;
    if (same_run(s, d, doc)) {
        fior__report_truncate(s->rep, s->ndone);
        s->run_docs++;
        s->run_interval = s->run_gap;
        s->run_gap = prev_ms && d->ts_has_ms && d->ts_ms > prev_ts ? d->ts_ms - prev_ts : 0;
    } else {
        if (s->have_cur) {
            /* a signal line between two runs is the new run's (fio prints it before its only document);
             * the run before keeps its end, unless it is a stream whose end is not proven */
            fior_status st = FIOR_OK;
            if (s->sig_pending) {
                int sig = s->sig_pending;
                s->sig_pending = 0;
                st = fior__run_end(s, 1);
                s->sig_pending = sig;
            }
            if (st != FIOR_OK)
                return st;
            s->ndone = s->rep->njobs;
            s->run++;
        }
        s->run_docs = 1;
        s->run_signal = s->run_after = 0;
        s->run_gap = s->run_interval = 0;
    }
    if (s->sig_pending) {
        s->run_signal = s->sig_pending;
        s->run_after = 1;
        s->sig_pending = 0;
    }
    for (size_t i = 0; i < doc->njobs; i++)
        doc->jobs[i].run = s->run;
    if (fior__report_move(s->rep, doc)) {
        fior__report_clear(doc);
        fior__seterr(s->err, "%s: out of memory", s->source);
        return FIOR_E_NOMEM;
    }
    jjob *x = fior__grow(s->cur_x, &s->cur_xcap, d->naux ? d->naux - 1 : 0, sizeof *x, 8);
    if (!x) {
        fior__seterr(s->err, "%s: out of memory", s->source);
        return FIOR_E_NOMEM;
    }
    s->cur_x = x;
    if (d->naux)
        memcpy(x, d->aux, d->naux * sizeof *x);
    s->have_cur = 1;
    s->cur_ts = d->ts_ms;
    s->cur_ts_known = d->ts_has_ms || d->ts_known;
    s->cur_ts_ms = d->ts_has_ms;
    s->docs++;
    return fior__run_end(s, 0); /* a signal line inside this document follows it: doc_signal(), after */
}

/* ---- the scanner ---- */

static void set_first(fior_json_stream *s, fior_status *first, fior_status st)
{
    if (*first == FIOR_OK)
        *first = st;
    if (s->first_st == FIOR_OK) {
        s->first_st = st;
        memcpy(s->first_err, s->err->err, sizeof s->first_err);
    }
}

/* yajl's messages end in a newline: one line, without its "parse error: " prefix */
static void yajl_msg(yajl_handle h, char *out, size_t n)
{
    unsigned char *m = yajl_get_error(h, 0, NULL, 0);
    const char *p = m ? (const char *)m : "syntax error";
    if (!strncmp(p, "parse error: ", 13))
        p += 13;
    else if (!strncmp(p, "lexical error: ", 15))
        p += 15;
    snprintf(out, n, "%s", p);
    for (char *c = out; *c; c++)
        if (*c == '\n' || *c == '\r')
            *c = ' ';
    size_t l = strlen(out);
    while (l && out[l - 1] == ' ')
        out[--l] = '\0';
    if (m)
        yajl_free_error(h, m);
}

static void doc_close(fior_json_stream *s)
{
    if (s->h)
        yajl_free(s->h);
    s->h = NULL;
    s->in_doc = 0;
}

/* A signal line read inside a document stands after it: once the document is committed, or dropped (it
 * broke, or grew past the cap), after the documents before it. */
static fior_status doc_signal(fior_json_stream *s)
{
    int sig = s->sig_in_doc;
    s->sig_in_doc = 0;
    return sig ? fior__on_signal(s, sig) : FIOR_OK;
}

void fior__keep_gap(fior_json_stream *s, const char *p, size_t n)
{
    if (!s->keep_gaps || !n || s->keep_gaps < 0)
        return;
    char *g = fior__grow(s->gap, &s->gapcap, s->gaplen + n - 1, 1, 4096);
    if (!g) {
        s->keep_gaps = -1; /* out of memory: fior__stream_gaps says so */
        return;
    }
    s->gap = g;
    memcpy(g + s->gaplen, p, n);
    s->gaplen += n;
}

/* A document that broke or outgrew the cap: what it built is dropped, and the scanner resumes at the next
 * line whose first byte is '{' (fio writes a document's own braces at column 0 and indents every object
 * inside it, json.c), so that the objects in the rest of it are not taken for documents. */
static void doc_abandon(fior_json_stream *s)
{
    doc_close(s);
    doc_signal(s);
    fior__report_clear(s->doc);
    s->bol = 0;
    s->resync = 1;
}

/* The document's bytes from buf[*at] on, up to its end or the cap: *at is where the scanner goes on. The
 * cap is counted from the document's first byte, so where the input is split never changes which document
 * is dropped nor the byte named. FIOR_E_NOMEM stops the chunk; every other error is told (s->err, *first)
 * and the document skipped. */
static fior_status doc_bytes(fior_json_stream *s, const char *buf, size_t len, size_t *at, fior_status *first)
{
    size_t i = *at;
    jdoc *d = &s->d;
    uint64_t open = (uint64_t)(s->pos + i - s->doc_start); /* its bytes before buf[i] */
    if (open >= s->max_doc) {
        fior__seterr(s->err, "%s: byte %zu: the JSON document starting at byte %zu is larger than the cap of %llu "
                     "bytes", s->source, s->pos + i + 1, s->doc_start + 1, (unsigned long long)s->max_doc);
        set_first(s, first, FIOR_E_TOOBIG);
        doc_abandon(s);
        return FIOR_OK;
    }
    size_t take = s->max_doc - open < len - i ? (size_t)(s->max_doc - open) : len - i;
    d->chunk = buf + i;
    d->chunk_len = take;
    d->chunk_abs = s->pos + i;
    d->first_tok = 1;
    yajl_status ys = yajl_parse(s->h, (const unsigned char *)buf + i, take);
    if (ys == yajl_status_ok) {
        *at = i + take;
        return FIOR_OK;
    }
    size_t used = yajl_get_bytes_consumed(s->h);
    if (used > take)
        used = take;
    if (ys == yajl_status_client_canceled && d->done) {
        *at = i + used;
        doc_close(s);
        s->bol = 1; /* "}{" back to back still starts a new document */
        fior_status st = fior__jdoc_end(d);
        if (st == FIOR_OK)
            st = commit_doc(s);
        else
            memcpy(s->err->err, s->doc->err, sizeof s->err->err);
        if (doc_signal(s) == FIOR_E_NOMEM && st == FIOR_OK)
            st = FIOR_E_NOMEM;
        fior__report_clear(s->doc);
        if (st != FIOR_OK)
            set_first(s, first, st);
        return st == FIOR_E_NOMEM ? st : FIOR_OK;
    }
    if (ys == yajl_status_client_canceled) { /* fmt_json.c stopped it (nesting): its message */
        memcpy(s->err->err, s->doc->err, sizeof s->err->err);
        set_first(s, first, d->failed ? d->failed : FIOR_E_PARSE);
    } else {
        char msg[160];
        yajl_msg(s->h, msg, sizeof msg);
        fior__seterr(s->err, "%s: byte %zu: expected valid JSON in the document starting at byte %zu: %s",
                     s->source, s->pos + i + used + 1, s->doc_start + 1, msg);
        set_first(s, first, FIOR_E_PARSE);
    }
    doc_abandon(s);
    *at = i + (used ? used : 1);
    return FIOR_OK;
}

/* Feeds one chunk. A broken document is reported (message in s->err) and skipped (doc_abandon), and the
 * chunk's first error status is returned. */
fior_status fior__scan_feed(fior_json_stream *s, const char *buf, size_t len)
{
    fior_status first = FIOR_OK;
    size_t i = 0, g0 = 0; /* g0: where the bytes outside documents began in this chunk */
    while (i < len) {
        if (!s->in_doc) {
            char ch = buf[i];
            if (ch == HDR[s->hdr_match]) {
                if (++s->hdr_match == sizeof HDR - 1) {
                    s->text_jobs = 1;
                    s->hdr_match = 0;
                }
            } else {
                s->hdr_match = ch == HDR[0];
            }
            if (ch == '\n') {
                s->bol = s->col0 = 1;
            } else if (s->bol && ch == '{' && (s->col0 || !s->resync)) {
                fior__keep_gap(s, buf + g0, i - g0);
                s->h = yajl_alloc(&fior__jdoc_callbacks, NULL, &s->d);
                if (!s->h) {
                    fior__seterr(s->err, "%s: out of memory", s->source);
                    set_first(s, &first, FIOR_E_NOMEM);
                    return first;
                }
                yajl_config(s->h, yajl_dont_validate_strings, 1);  /* as fio writes them, any bytes */
                s->in_doc = 1;
                s->resync = 0;
                s->hdr_match = 0;
                s->doc_start = s->pos + i;
                fior__jdoc_begin(&s->d, s->doc, s->source, s->doc_start + 1);
                continue;
            } else if (ch != ' ' && ch != '\t' && ch != '\r') {
                s->bol = 0;
            }
            if (ch != '\n')
                s->col0 = 0;
            i++;
            continue;
        }
        if (doc_bytes(s, buf, len, &i, &first) != FIOR_OK)
            return first; /* out of memory: stop here */
        if (!s->in_doc)
            g0 = i;
    }
    if (!s->in_doc)
        fior__keep_gap(s, buf + g0, len - g0);
    s->pos += len;
    return first;
}

/* ---- the public stream ---- */

fior_json_stream *fior_json_stream_new(const char *source)
{
    fior_json_stream *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->source = strdup(source ? source : "(stream)");
    s->rep = fior_report_new();
    s->doc = fior_report_new();
    s->err = fior_report_new();
    if (!s->source || !s->rep || !s->doc || !s->err) {
        fior_json_stream_free(s);
        return NULL;
    }
    s->bol = s->col0 = 1;
    s->max_doc = FIOR_MAX_INPUT_DEFAULT;
    s->held[0] = '\n'; /* a signal line may open the input */
    s->heldlen = 1;
    s->held_virtual = 1;
    return s;
}

void fior_json_stream_free(fior_json_stream *s)
{
    if (!s)
        return;
    doc_close(s);
    fior__jdoc_free(&s->d);
    free(s->cur_x);
    free(s->gap);
    fior_report_free(s->rep);
    fior_report_free(s->doc);
    fior_report_free(s->err);
    free(s->source);
    free(s);
}

/* A stream may run for hours (check feeds fio's status documents as they come), so its memory is bounded per
 * document, not per stream: finished documents are folded into the run, and a document that is still open
 * after the cap (fior_json_stream_set_max_document; by default the same cap as a whole input) is dropped
 * there (doc_bytes) — a tree of jobs that never closes would otherwise grow without end. */
fior_status fior_json_stream_feed(fior_json_stream *s, const char *buf, size_t len)
{
    if (!s || (!buf && len))
        return FIOR_E_INVAL;
    s->err->err[0] = '\0';
    fior_status st = fior__feed_raw(s, buf, len);
    s->pos = (size_t)s->raw;
    return st;
}

fior_status fior_json_stream_set_max_document(fior_json_stream *s, uint64_t bytes)
{
    if (!s || !bytes)
        return FIOR_E_INVAL;
    s->max_doc = bytes;
    return FIOR_OK;
}

uint64_t fior_json_stream_max_document(const fior_json_stream *s)
{
    return s ? s->max_doc : 0;
}

unsigned long fior_json_stream_documents(const fior_json_stream *s)
{
    return s ? s->docs : 0;
}

const fior_report *fior_json_stream_report(const fior_json_stream *s)
{
    return s && s->docs ? s->rep : NULL;
}

const char *fior_json_stream_error(const fior_json_stream *s)
{
    return s ? s->err->err : "no stream";
}

/* ---- whole inputs ---- */

void fior__stream_keep_gaps(fior_json_stream *s)
{
    s->keep_gaps = 1;
}

const char *fior__stream_gaps(const fior_json_stream *s, size_t *len)
{
    *len = s->gaplen;
    return s->keep_gaps < 0 ? NULL : s->gap ? s->gap : "";
}

fior_status fior__stream_finish(fior_json_stream *s, fior_report *into, int *text_jobs, unsigned long *ndocs)
{
    fior_status fl = fior__flush_held(s);
    if (fl != FIOR_OK && s->first_st == FIOR_OK) {
        s->first_st = fl;
        memcpy(s->first_err, s->err->err, sizeof s->first_err);
    }
    fior_status st = s->first_st;
    if (st != FIOR_OK) {
        memcpy(into->err, s->first_err, sizeof into->err);
    } else if (s->in_doc) {
        fior__seterr(into, "%s: byte %zu: expected the rest of the JSON document starting at byte %zu "
                     "(input cut short)", s->source, s->pos + 1, s->doc_start + 1);
        st = FIOR_E_PARSE;
    } else if (!s->docs) {
        fior__seterr(into, "%s:1: expected a fio JSON document", s->source);
        st = FIOR_E_FORMAT;
    } else if (fior__report_move(into, s->rep) ||
               (s->keep_gaps > 0 && s->gap && fior__json_died_lines(into, s->gap, s->gaplen))) {
        fior__seterr(into, "%s: out of memory", s->source);
        st = FIOR_E_NOMEM;
    }
    if (st != FIOR_OK)
        fior__report_clear(into);
    if (text_jobs)
        *text_jobs = st == FIOR_OK && s->text_jobs;
    if (ndocs)
        *ndocs = s->docs;
    return st;
}

fior_status fior__parse_json(fior_report *r, const char *source, const char *buf, size_t len, int *text_jobs,
                             unsigned long *ndocs, char **text, size_t *text_len)
{
    *text = NULL;
    *text_len = 0;
    fior_json_stream *s = fior_json_stream_new(source);
    if (!s) {
        fior__seterr(r, "%s: out of memory", source);
        *text_jobs = 0;
        if (ndocs)
            *ndocs = 0;
        return FIOR_E_NOMEM;
    }
    fior__stream_keep_gaps(s);
    s->max_doc = UINT64_MAX; /* a whole buffer in memory: no cap of its own (fior_parse_buffer) */
    fior__feed_raw(s, buf, len);
    int tj = 0;
    fior_status st = fior__stream_finish(s, r, &tj, ndocs);
    if (st == FIOR_OK && tj) { /* the text outside the documents goes to the caller (the reader table) */
        if (s->keep_gaps < 0 || !(*text = s->gap ? s->gap : calloc(1, 1))) {
            fior__seterr(r, "%s: out of memory", source);
            st = FIOR_E_NOMEM;
        } else {
            *text_len = s->gaplen;
            s->gap = NULL;
            s->gaplen = s->gapcap = 0;
        }
    }
    *text_jobs = st == FIOR_OK && tj;
    fior_json_stream_free(s);
    return st;
}
