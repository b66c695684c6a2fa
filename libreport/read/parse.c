/* SPDX-License-Identifier: MIT */
/* parse.c — the fior_parse_* entry points and the capped file reader: the format is detected by the reader
 * table (readers.c), the input first undone from how it was handed over (handover.c); the report handle
 * is base/report.c, job building base/job.c. Each input is read into a scratch report first so that a
 * failing input adds nothing. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "internal.h"

fior_status fior_parse_buffer(fior_report *r, const char *source, const char *buf, size_t len)
{
    if (!r)
        return FIOR_E_INVAL;
    r->err[0] = '\0';
    if (!source)
        source = "(buffer)";
    if (!buf && len) {
        fior__seterr(r, "%s: no buffer", source);
        return FIOR_E_INVAL;
    }
    fior_report *tmp = fior_report_new();
    if (!tmp) {
        fior__seterr(r, "%s: out of memory", source);
        return FIOR_E_NOMEM;
    }
    fior_status st = FIOR_E_FORMAT;
    char *plain = NULL; /* the input as fio wrote it, when it was handed over in another form */
    size_t plen = 0, i = 0, nrd;
    if (fior__handover(buf, len, &plain, &plen)) {
        fior__seterr(r, "%s: out of memory", source);
        fior_report_free(tmp);
        return FIOR_E_NOMEM;
    }
    if (plain) {
        buf = plain;
        len = plen;
    }
    while (i < len && fior__is_space(buf[i]))
        i++;
    const fior__reader *rd = fior__readers(&nrd), *use = NULL;
    for (size_t k = 0; i < len && !use && k < nrd; k++)
        if (rd[k].detect(buf, len))
            use = &rd[k];
    if (i == len) {
        fior__seterr(tmp, "%s: empty input (expected fio output or an etcd-perf log)", source);
    } else if (use) {
        tmp->format = FIOR_FMT_UNKNOWN;
        st = use->parse(tmp, source, buf, len);
        if (tmp->format == FIOR_FMT_UNKNOWN)
            tmp->format = use->format;
    } else {
        fior__seterr(tmp, "%s:1: expected fio output (a job header 'NAME: (groupid=…', a JSON document), "
                     "an etcd-perf log ('INFO: 99th percentile of fsync is N ns'), a Prometheus scrape of "
                     "etcd's /metrics or `etcdctl check perf` output", source);
    }
    if (st == FIOR_OK && fior__report_move(r, tmp)) {
        fior__seterr(tmp, "%s: out of memory", source);
        st = FIOR_E_NOMEM;
    }
    if (st != FIOR_OK)
        memcpy(r->err, tmp->err, sizeof r->err);
    else
        r->format = tmp->format;
    fior_report_free(tmp);
    free(plain);
    return st;
}

static fior_status too_big(fior_report *r, const char *path, uint64_t max)
{
    fior__seterr(r, "%s: byte %llu: input larger than the cap of %llu bytes", path, (unsigned long long)max + 1,
                 (unsigned long long)max);
    return FIOR_E_TOOBIG;
}

#define FIOR__CHUNK 65536

/* fior_parse_buffer takes the first reader of the table whose detect() says yes; the readers before JSON
 * look at the whole input. A file is only streamed as JSON while none of them claims what was read. */
static int earlier_claims(const char *buf, size_t len)
{
    size_t n;
    const fior__reader *rd = fior__readers(&n);
    for (size_t k = 0; k < n && strcmp(rd[k].name, "json"); k++)
        if (rd[k].detect(buf, len))
            return 1;
    return 0;
}

/* Reads f, at most `max` bytes: one byte more is the error (naming that byte), so /dev/zero or an endless
 * pipe stops at the cap instead of taking the memory. With *json (not NULL) and a regular file, reading
 * stops as soon as a line starts a JSON document and no reader before JSON claims the input so far: *json
 * says so, and parse_json_file streams the rest. */
static fior_status read_all(fior_report *r, const char *path, FILE *f, uint64_t max, char **out, size_t *outlen,
                            int *json)
{
    struct stat sb;
    size_t len = 0, cap = FIOR__CHUNK, line = 0;
    uint64_t lim = max < (uint64_t)SIZE_MAX - 1 ? max + 1 : SIZE_MAX; /* the byte that is one too many */
    const fior__reader *js = NULL;
    if (fstat(fileno(f), &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size > 0) {
        if ((uint64_t)sb.st_size > max)
            return too_big(r, path, max);
        js = json ? fior__reader_named("json") : NULL; /* seekable: parse_file can start over */
        if (!js)
            cap = (size_t)sb.st_size + 1; /* + 1: the read that sees the end */
    }
    if ((uint64_t)cap > lim)
        cap = (size_t)lim;
    char *buf = malloc(cap < FIOR__CHUNK ? FIOR__CHUNK : cap); /* a chunk at least: parse_json_file reads into it */
    if (!buf) {
        fior__seterr(r, "%s: out of memory", path);
        return FIOR_E_NOMEM;
    }
    for (;;) {
        if (len == cap) {
            if ((uint64_t)len > max) {
                free(buf);
                return too_big(r, path, max);
            }
            size_t nc = cap > SIZE_MAX / 2 ? SIZE_MAX : cap * 2;
            if ((uint64_t)nc > lim)
                nc = (size_t)lim;
            char *nb = realloc(buf, nc);
            if (!nb) {
                fior__seterr(r, "%s: out of memory after %zu bytes", path, len);
                free(buf);
                return FIOR_E_NOMEM;
            }
            buf = nb;
            cap = nc;
        }
        size_t n = fread(buf + len, 1, cap - len, f);
        len += n;
        if (n == 0) {
            if (ferror(f)) {
                fior__seterr(r, "%s: read error after %zu bytes: %s", path, len, strerror(errno));
                free(buf);
                return FIOR_E_IO;
            }
            break;
        }
        if (js && fior__handover_needed(buf + line, len - line)) /* fior_parse_buffer undoes it: read it all */
            js = NULL;
        if (js && js->detect(buf + line, len - line)) { /* only the lines not looked at yet */
            if (!earlier_claims(buf, len)) {
                *json = 1;
                break;
            }
            js = NULL; /* another reader's input: read it all */
        }
        const char *nl = js ? memrchr(buf + line, '\n', len - line) : NULL;
        if (nl)
            line = (size_t)(nl - buf) + 1;
    }
    *out = buf;
    *outlen = len;
    return FIOR_OK;
}

/* JSON from the first line that starts a document on: fed to a stream chunk by chunk, so memory stays
 * bounded by the jobs read, not by the file (bench/parser.sh: a 74 MB, 20k-job file). buf holds what was
 * read before (stray lines and that first line), len bytes of it, and has room for a chunk. The bytes
 * outside the documents are kept and shown at the end to the readers the table tries before JSON: when
 * one claims them (a Prometheus scrape or `etcdctl check perf` output beside the JSON), *again is set and
 * the caller reads the file once more as a whole, as fior_parse_buffer would. (Text inside a document,
 * e.g. a job name, is never another format's: there the two may differ.) */
static fior_status parse_json_file(fior_report *r, const char *path, FILE *f, char *buf, size_t len, uint64_t max,
                                   int *again)
{
    fior_report *tmp = fior_report_new();
    fior_json_stream *s = fior_json_stream_new(path);
    fior_status st = FIOR_OK;
    if (!tmp || !s) {
        fior_json_stream_free(s);
        fior_report_free(tmp);
        fior__seterr(r, "%s: out of memory", path);
        return FIOR_E_NOMEM;
    }
    fior__stream_keep_gaps(s);
    int bad = fior_json_stream_feed(s, buf, len) != FIOR_OK; /* the stream keeps the input's first error */
    uint64_t total = len;
    while (!bad) {
        size_t n = fread(buf, 1, FIOR__CHUNK, f);
        if (n == 0) {
            if (ferror(f)) {
                fior__seterr(tmp, "%s: read error after %llu bytes: %s", path, (unsigned long long)total,
                             strerror(errno));
                st = FIOR_E_IO;
            }
            break;
        }
        total += n;
        if (total > max) {
            st = too_big(tmp, path, max);
            break;
        }
        bad = fior_json_stream_feed(s, buf, n) != FIOR_OK;
    }
    size_t glen;
    const char *gap = fior__stream_gaps(s, &glen);
    if (st == FIOR_OK && (!gap || earlier_claims(gap, glen)))
        *again = 1;
    int text_jobs = 0;
    if (st == FIOR_OK && !*again)
        st = fior__stream_finish(s, tmp, &text_jobs, NULL);
    if (st == FIOR_E_PARSE) { /* the table's JSON reader decides (an etcd-perf log reads its lines instead) */
        *again = 1;
        st = FIOR_OK;
    }
    if (st == FIOR_OK && !*again && text_jobs) /* gap is not NULL here: !*again */
        st = fior__text_beside_json(tmp, path, gap, glen);
    fior_json_stream_free(s);
    if (st == FIOR_OK && !*again && fior__report_move(r, tmp)) {
        fior__seterr(tmp, "%s: out of memory", path);
        st = FIOR_E_NOMEM;
    }
    if (st != FIOR_OK)
        memcpy(r->err, tmp->err, sizeof r->err);
    else if (!*again)
        r->format = text_jobs ? FIOR_FMT_MIXED : FIOR_FMT_JSON;
    fior_report_free(tmp);
    return st;
}

fior_status fior_parse_file(fior_report *r, const char *path)
{
    if (!r || !path)
        return FIOR_E_INVAL;
    r->err[0] = '\0';
    FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
    if (!f) {
        fior__seterr(r, "%s: cannot open: %s", path, strerror(errno));
        return FIOR_E_IO;
    }
    char *buf = NULL;
    size_t len = 0;
    int json = 0, again = 0;
    uint64_t max = fior_report_max_input(r);
    fior_status st = read_all(r, path, f, max, &buf, &len, &json);
    if (st == FIOR_OK && json) {
        st = parse_json_file(r, path, f, buf, len, max, &again);
        if (st == FIOR_OK && again) { /* another reader claims the file after all: read it whole */
            free(buf);
            buf = NULL;
            if (fseek(f, 0, SEEK_SET) == 0) {
                st = read_all(r, path, f, max, &buf, &len, NULL);
            } else {
                fior__seterr(r, "%s: cannot read it again: %s", path, strerror(errno));
                st = FIOR_E_IO;
            }
            json = 0;
        }
    }
    if (st == FIOR_OK && !json)
        st = fior_parse_buffer(r, path, buf, len);
    if (f != stdin)
        fclose(f);
    free(buf);
    return st;
}
