/* fmt_json.c — reads fio's JSON and json+ output with json-c: whole files (possibly several documents of a
 * --status-interval run, stray "fio: …" text lines, or the JSON half of --output-format=normal,json) and,
 * through the same scanner, the incremental fior_stream_* API. A document starts at a line whose first
 * non-blank byte is '{'; json_tokener is fed incrementally, so documents may arrive split anywhere.
 * Keys follow fio's stat.c (show_thread_status_json / add_ddir_lat_json) and client.c (client_stats). */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "internal.h"

/* ---- one document → jobs ---- */

typedef struct jctx {
    fior_report *r;
    const char  *source;
    size_t       off;       /* 1-based byte offset of the document */
    char         where[96]; /* path of the value being read, for messages */
} jctx;

static fior_status jbad(jctx *c, const char *what)
{
    fior__seterr(c->r, "%s: byte %zu: expected %s%s%s", c->source, c->off, what,
                 c->where[0] ? " at " : "", c->where);
    return FIOR_E_PARSE;
}

static fior_status jnomem(jctx *c)
{
    fior__seterr(c->r, "%s: out of memory", c->source);
    return FIOR_E_NOMEM;
}

static json_object *get(json_object *o, const char *key)
{
    json_object *v = NULL;
    if (o && json_object_is_type(o, json_type_object) && json_object_object_get_ex(o, key, &v))
        return v;
    return NULL;
}

/* A non-negative number; 0 absent, 1 read, -1 wrong type or out of range. */
static int get_num(json_object *o, const char *key, double *out)
{
    json_object *v = get(o, key);
    if (!v)
        return 0;
    if (!json_object_is_type(v, json_type_int) && !json_object_is_type(v, json_type_double))
        return -1;
    double d = json_object_is_type(v, json_type_int) && json_object_get_int64(v) == INT64_MAX
                   ? (double)json_object_get_uint64(v) : json_object_get_double(v);
    if (!isfinite(d) || d < 0 || d > 1.8e19)
        return -1;
    *out = d;
    return 1;
}

static uint64_t to_u64(json_object *v, double d)
{
    if (json_object_is_type(v, json_type_int))
        return json_object_get_int64(v) == INT64_MAX ? json_object_get_uint64(v)
                                                      : (uint64_t)json_object_get_int64(v);
    return (uint64_t)llround(d);
}

static int get_u64(json_object *o, const char *key, uint64_t *out)
{
    double d;
    int rc = get_num(o, key, &d);
    if (rc == 1)
        *out = to_u64(get(o, key), d);
    return rc;
}

/* A job option as a string (fio writes every option value as a string). */
static const char *opt(json_object *opts, const char *key)
{
    json_object *v = get(opts, key);
    return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

static const char *opt2(json_object *jopts, json_object *gopts, const char *key)
{
    const char *v = opt(jopts, key);
    return v ? v : opt(gopts, key);
}

static int opt_true(const char *v)
{
    return v && (!strcmp(v, "1") || !strcmp(v, "true") || !strcmp(v, "on") || !strcmp(v, "yes"));
}

static int setstr(const char **field, const char *s)
{
    return s ? fior__job_set(field, s, strlen(s)) : 0;
}

static fior_status read_sync(jctx *c, fior__jobb *b, json_object *lat, size_t idx)
{
    fior_job *j = &b->j;
    uint64_t u;
    double d;
    int rc;
    snprintf(c->where, sizeof c->where, "jobs[%zu].sync.lat_ns", idx);
    if (!json_object_is_type(lat, json_type_object))
        return jbad(c, "an object");
    if ((rc = get_u64(lat, "N", &u)) < 0)
        return jbad(c, "a sample count \"N\" >= 0");
    if (rc == 1) {
        j->samples_known = 1;
        j->samples = u;
    }
    if (get_u64(lat, "min", &j->min_ns) < 0 || get_u64(lat, "max", &j->max_ns) < 0)
        return jbad(c, "\"min\"/\"max\" as numbers >= 0");
    if ((rc = get_num(lat, "mean", &d)) < 0)
        return jbad(c, "\"mean\" as a number >= 0");
    j->mean_ns = rc ? d : 0;
    if ((rc = get_num(lat, "stddev", &d)) < 0)
        return jbad(c, "\"stddev\" as a number >= 0");
    j->stddev_ns = rc ? d : 0;

    json_object *pct = get(lat, "percentile");
    if (pct) {
        if (!json_object_is_type(pct, json_type_object))
            return jbad(c, "\"percentile\" as an object");
        json_object_object_foreach(pct, key, val) {
            const char *k = key;
            double p;
            if (fior__parse_dec(&k, &p) || *k || p > 100.0)
                return jbad(c, "percentile keys like \"99.000000\"");
            if (!json_object_is_type(val, json_type_int) && !json_object_is_type(val, json_type_double))
                return jbad(c, "percentile values as numbers");
            d = json_object_get_double(val);
            if (!isfinite(d) || d < 0 || d > 1.8e19)
                return jbad(c, "percentile values >= 0 (nanoseconds)");
            if (fior__job_add_pct(b, p, to_u64(val, d)))
                return jnomem(c);
        }
    }
    json_object *bins = get(lat, "bins");
    if (bins) {
        if (!json_object_is_type(bins, json_type_object))
            return jbad(c, "\"bins\" as an object");
        json_object_object_foreach(bins, key, val) {
            const char *k = key;
            uint64_t ns;
            if (fior__parse_u64(&k, &ns) || *k)
                return jbad(c, "bin keys as whole nanoseconds");
            if (!json_object_is_type(val, json_type_int) || json_object_get_int64(val) < 0)
                return jbad(c, "bin counts as whole numbers >= 0");
            if (fior__job_add_bin(b, ns, to_u64(val, 0)))
                return jnomem(c);
        }
    }
    /* N counts the timed syncs; with N missing (hand-made input) a percentile still proves there were some */
    j->has_sync = j->samples_known ? j->samples > 0 : (j->npct > 0 || j->max_ns > 0);
    c->where[0] = '\0';
    return FIOR_OK;
}

static fior_status read_job(jctx *c, json_object *e, size_t idx, json_object *root, json_object *gopts)
{
    snprintf(c->where, sizeof c->where, "jobs[%zu]", idx);
    if (!json_object_is_type(e, json_type_object))
        return jbad(c, "a job object");
    json_object *nm = get(e, "jobname");
    if (nm && !json_object_is_type(nm, json_type_string))
        return jbad(c, "\"jobname\" as a string");
    /* client/server: fio adds a sum over the clients; it has no sync percentiles of its own */
    if (nm && !strcmp(json_object_get_string(nm), "All clients"))
        return FIOR_OK;

    fior__jobb b;
    fior__job_init(&b);
    fior_status st = FIOR_OK;
    fior_job *j = &b.j;
    json_object *jopts = get(e, "job options"), *h = get(e, "hostname"), *v = get(root, "fio version");
    uint64_t u;
    if (setstr(&j->source, c->source) || setstr(&j->name, nm ? json_object_get_string(nm) : "(unnamed)") ||
        (h && json_object_is_type(h, json_type_string) && setstr(&j->host, json_object_get_string(h))) ||
        (v && json_object_is_type(v, json_type_string) && setstr(&j->fio_version, json_object_get_string(v))) ||
        setstr(&j->ioengine, opt2(jopts, gopts, "ioengine")) ||
        setstr(&j->etcd_mode, opt2(jopts, gopts, "etcd_mode"))) {
        st = jnomem(c);
        goto out;
    }
    j->line = c->off;
    if (get_u64(e, "groupid", &u) == 1 && u < 1000000)
        j->group = (int)u;
    json_object *err = get(e, "error");
    if (err && !json_object_is_type(err, json_type_int)) {
        st = jbad(c, "\"error\" as a whole number");
        goto out;
    }
    /* missing "error" is not proof of success: only fio's own 0 is */
    j->error = err ? (int)json_object_get_int(err) : 0;
    if (get_u64(e, "port", &u) == 1 && u < 65536)
        j->port = (int)u;
    j->role = fior__job_role(j->ioengine, j->etcd_mode, opt(jopts, "etcd_mode") != NULL);
    j->latency_untimed = opt_true(opt2(jopts, gopts, "gtod_reduce"));
    json_object *w = get(e, "write");
    double d;
    /* fsync=/fdatasync= only issue syncs after writes: a read job with fdatasync=1 has nothing to judge */
    const char *fs = opt2(jopts, gopts, "fdatasync"), *fsy = opt2(jopts, gopts, "fsync");
    j->sync_requested = ((fs && strcmp(fs, "0")) || (fsy && strcmp(fsy, "0"))) &&
                        get_num(w, "total_ios", &d) == 1 && d > 0;
    if (get_num(w, "iops", &d) == 1)
        j->write_iops = d;
    if (get_num(w, "bw_bytes", &d) == 1)
        j->write_bw_bytes = d;
    if (get_num(get(w, "clat_ns"), "mean", &d) == 1)
        j->write_clat_mean_ns = d;

    json_object *sync = get(e, "sync");
    json_object *lat = sync ? get(sync, "lat_ns") : NULL;
    if (sync && lat)
        st = read_sync(c, &b, lat, idx);
    if (st != FIOR_OK)
        goto out;
    fior__job_sort(&b);
    if (fior__report_push(c->r, &b))
        st = jnomem(c);
out:
    fior__job_clear(&b);
    return st;
}

/* Reads one complete document into the (empty) report r. */
static fior_status read_doc(fior_report *r, const char *source, json_object *root, size_t off)
{
    jctx c = {r, source, off, ""};
    json_object *arr = get(root, "jobs");
    if (!arr)
        arr = get(root, "client_stats");
    if (!arr || !json_object_is_type(arr, json_type_array))
        return jbad(&c, "a fio JSON document with a \"jobs\" or \"client_stats\" array");
    json_object *gopts = get(root, "global options");
    size_t n = json_object_array_length(arr);
    for (size_t i = 0; i < n; i++) {
        fior_status st = read_job(&c, json_object_array_get_idx(arr, i), i, root, gopts);
        if (st != FIOR_OK)
            return st;
    }
    if (!r->njobs)
        return jbad(&c, "at least one job in \"jobs\"");
    r->format = FIOR_FMT_JSON;
    return FIOR_OK;
}

/* ---- the document scanner shared by whole-buffer parsing and streams ---- */

typedef struct jscan {
    json_tokener *tok;
    int           in_doc;
    int           bol;        /* at the beginning of a line (only blanks so far) */
    size_t        pos;        /* bytes scanned before the current chunk */
    size_t        doc_start;  /* 0-based offset of the current document's '{' */
} jscan;

typedef fior_status (*doc_fn)(void *ctx, json_object *doc, size_t start, size_t end);

static void scan_init(jscan *s, json_tokener *tok)
{
    memset(s, 0, sizeof *s);
    s->tok = tok;
    s->bol = 1;
}

/* Feeds one chunk. On a JSON syntax error the message goes to `errr`, the scanner skips to the next line
 * that starts a document, and the first error's status is returned once the chunk is done. */
static fior_status scan_feed(jscan *s, const char *source, fior_report *errr, const char *buf, size_t len,
                             doc_fn fn, void *ctx)
{
    fior_status first = FIOR_OK;
    size_t i = 0;
    while (i < len) {
        if (!s->in_doc) {
            char ch = buf[i];
            if (ch == '\n') {
                s->bol = 1;
            } else if (s->bol && ch == '{') {
                s->in_doc = 1;
                s->doc_start = s->pos + i;
                json_tokener_reset(s->tok);
                continue;
            } else if (ch != ' ' && ch != '\t' && ch != '\r') {
                s->bol = 0;
            }
            i++;
            continue;
        }
        size_t chunk = len - i > (size_t)INT_MAX ? (size_t)INT_MAX : len - i;
        json_object *obj = json_tokener_parse_ex(s->tok, buf + i, (int)chunk);
        enum json_tokener_error e = json_tokener_get_error(s->tok);
        size_t used = json_tokener_get_parse_end(s->tok);
        if (obj) {
            if (used == 0 || used > chunk)
                used = chunk;
            fior_status st = fn(ctx, obj, s->doc_start, s->pos + i + used);
            json_object_put(obj);
            s->in_doc = 0;
            s->bol = 1;  /* "}{" back to back still starts a new document */
            i += used;
            if (st != FIOR_OK && first == FIOR_OK)
                first = st;
            if (st == FIOR_E_NOMEM)
                return st;
            continue;
        }
        if (e == json_tokener_continue) {
            i += chunk;
            continue;
        }
        if (used > chunk)
            used = chunk;
        if (first == FIOR_OK) {
            fior__seterr(errr, "%s: byte %zu: expected valid JSON in the document starting at byte %zu: %s",
                         source, s->pos + i + used + 1, s->doc_start + 1, json_tokener_error_desc(e));
            first = FIOR_E_PARSE;
        }
        s->in_doc = 0;
        s->bol = 0;
        i += used ? used : 1;
    }
    s->pos += len;
    return first;
}

/* ---- whole buffer ---- */

typedef struct bufctx {
    fior_report *r;        /* receives the last document's jobs */
    fior_report *scratch;
    const char  *source;
    const char  *buf;
    size_t       prev_end; /* end of the previous document: text between documents is looked at there */
    int          text_jobs;
    unsigned long docs;
} bufctx;

/* fio's normal output beside the JSON (normal,json) shows as job headers outside every document. Only
 * the gaps are searched, so no copy of the input is needed. */
static void gap_text(bufctx *b, size_t upto)
{
    static const char hdr[] = ": (groupid=";
    if (upto > b->prev_end && memmem(b->buf + b->prev_end, upto - b->prev_end, hdr, sizeof hdr - 1))
        b->text_jobs = 1;
}

static fior_status buf_doc(void *vctx, json_object *doc, size_t start, size_t end)
{
    bufctx *b = vctx;
    gap_text(b, start);
    b->prev_end = end;
    fior__report_clear(b->scratch);
    fior_status st = read_doc(b->scratch, b->source, doc, start + 1);
    if (st != FIOR_OK) {
        memcpy(b->r->err, b->scratch->err, sizeof b->r->err);
        return st;
    }
    /* the last complete document is the final result of a --status-interval run */
    fior__report_clear(b->r);
    if (fior__report_move(b->r, b->scratch)) {
        fior__seterr(b->r, "%s: out of memory", b->source);
        return FIOR_E_NOMEM;
    }
    b->docs++;
    return FIOR_OK;
}

fior_status fior__parse_json(fior_report *r, const char *source, const char *buf, size_t len,
                             int *text_jobs, unsigned long *ndocs)
{
    bufctx b = {r, fior_report_new(), source, buf, 0, 0, 0};
    json_tokener *tok = json_tokener_new();
    fior_status st = FIOR_OK;
    if (!b.scratch || !tok) {
        st = FIOR_E_NOMEM;
        fior__seterr(r, "%s: out of memory", source);
    } else {
        jscan sc;
        scan_init(&sc, tok);
        st = scan_feed(&sc, source, r, buf, len, buf_doc, &b);
        if (st == FIOR_OK && sc.in_doc) {
            fior__seterr(r, "%s: byte %zu: expected the rest of the JSON document starting at byte %zu "
                         "(input cut short)", source, len + 1, sc.doc_start + 1);
            st = FIOR_E_PARSE;
        }
        if (st == FIOR_OK && !b.docs) {
            fior__seterr(r, "%s:1: expected a fio JSON document", source);
            st = FIOR_E_FORMAT;
        }
        gap_text(&b, len);
    }
    if (tok)
        json_tokener_free(tok);
    fior_report_free(b.scratch);
    if (st != FIOR_OK)
        fior__report_clear(r);
    if (text_jobs)
        *text_jobs = st == FIOR_OK && b.text_jobs;
    if (ndocs)
        *ndocs = b.docs;
    return st;
}

/* ---- stream ---- */

struct fior_stream {
    char         *source;
    json_tokener *tok;
    jscan         sc;
    fior_report  *cur;    /* latest complete document, or NULL */
    fior_report  *err;    /* holds the last error message */
    unsigned long docs;
    char          carry[80]; /* a held-back number tail, see fior_stream_feed */
    size_t        carry_len;
};

static fior_status stream_doc(void *vctx, json_object *doc, size_t start, size_t end)
{
    fior_stream *s = vctx;
    (void)end;
    fior_report *n = fior_report_new();
    if (!n) {
        fior__seterr(s->err, "%s: out of memory", s->source);
        return FIOR_E_NOMEM;
    }
    fior_status st = read_doc(n, s->source, doc, start + 1);
    if (st != FIOR_OK) {
        memcpy(s->err->err, n->err, sizeof n->err);
        fior_report_free(n);
        return st;
    }
    fior_report_free(s->cur);
    s->cur = n;
    s->docs++;
    return FIOR_OK;
}

fior_stream *fior_stream_new(const char *source)
{
    fior_stream *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->source = strdup(source ? source : "(stream)");
    s->tok = json_tokener_new();
    s->err = fior_report_new();
    if (!s->source || !s->tok || !s->err) {
        fior_stream_free(s);
        return NULL;
    }
    scan_init(&s->sc, s->tok);
    return s;
}

void fior_stream_free(fior_stream *s)
{
    if (!s)
        return;
    if (s->tok)
        json_tokener_free(s->tok);
    fior_report_free(s->cur);
    fior_report_free(s->err);
    free(s->source);
    free(s);
}

/* Characters that may continue a JSON number (or a literal like true/false: harmless to hold back too). */
static int num_char(char c)
{
    return (c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-';
}

#define CARRY_RUN 64  /* longest number tail held back; longer runs are no number fio prints */

/* json-c 0.16 mis-reads a number split across two parse calls: "135" then "-680" parses as 135, so a
 * stream would accept what the whole buffer rejects. A chunk therefore never ends inside a run of number
 * characters: that tail is held back (bounded, no allocation) and handed over together with the bytes
 * that end it, so every boundary json-c sees falls after a non-number character. */
fior_status fior_stream_feed(fior_stream *s, const char *buf, size_t len)
{
    if (!s || (!buf && len))
        return FIOR_E_INVAL;
    s->err->err[0] = '\0';
    fior_status first = FIOR_OK;
    size_t i = 0;
    if (s->carry_len) {
        while (i < len && num_char(buf[i]) && s->carry_len < CARRY_RUN)
            s->carry[s->carry_len++] = buf[i++];
        if (i == len && s->carry_len < CARRY_RUN)
            return FIOR_OK;  /* the run goes on: wait for its end */
        if (i < len)
            s->carry[s->carry_len++] = buf[i++];  /* the character that ends the run */
        first = scan_feed(&s->sc, s->source, s->err, s->carry, s->carry_len, stream_doc, s);
        s->carry_len = 0;
        if (first == FIOR_E_NOMEM)
            return first;
    }
    size_t tail = 0;
    while (tail < len - i && tail < CARRY_RUN && num_char(buf[len - 1 - tail]))
        tail++;
    if (tail == CARRY_RUN)
        tail = 0;
    fior_status st = scan_feed(&s->sc, s->source, s->err, buf + i, len - i - tail, stream_doc, s);
    memcpy(s->carry, buf + len - tail, tail);
    s->carry_len = tail;
    return first != FIOR_OK ? first : st;
}

unsigned long fior_stream_documents(const fior_stream *s)
{
    return s ? s->docs : 0;
}

const fior_report *fior_stream_report(const fior_stream *s)
{
    return s ? s->cur : NULL;
}

const char *fior_stream_error(const fior_stream *s)
{
    return s ? s->err->err : "no stream";
}
