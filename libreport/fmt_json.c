/* fmt_json.c — reads one fio JSON / json+ document as a stream of yajl events (no tree): only the keys the
 * verdict needs are looked at, everything else is skipped as it goes by, so memory is bounded by what is
 * kept per job (its percentiles and json+ bins), not by the input. json_stream.c finds the documents in the
 * input and feeds them here; this file turns one document's events into jobs.
 * Keys follow fio's stat.c (show_thread_status_json / add_ddir_lat_json) and client.c (client_stats).
 *
 * What the input says about itself is checked, not assumed: a key that repeats ("error":5,"error":0, two
 * "sync" objects), a job without "error" or a sync block without "N", a percentile list that goes down
 * anywhere: each makes the job's fior_job.defect say so (key and byte), and the verdict UNKNOWN. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_doc.h"

/* ---- keys ---- */

enum {
    K_NONE = 0,
    /* document */
    K_FIO_VERSION, K_TIMESTAMP, K_TIMESTAMP_MS, K_GLOBAL_OPTS, K_JOBS, K_CLIENT_STATS,
    /* job */
    K_JOBNAME, K_GROUPID, K_ERROR, K_HOSTNAME, K_PORT, K_JOB_OPTS, K_WRITE, K_SYNC, K_ELAPSED, K_JOB_RUNTIME,
    /* write */
    K_IOPS, K_BW_BYTES, K_TOTAL_IOS, K_CLAT_NS,
    /* sync, lat_ns, clat_ns */
    K_LAT_NS, K_N, K_MIN, K_MAX, K_MEAN, K_STDDEV, K_PERCENTILE, K_BINS,
    /* options */
    K_O_IOENGINE, K_O_ETCD_MODE, K_O_FDATASYNC, K_O_FSYNC, K_O_GTOD,
    K__COUNT
};

#define KEY(s) {s, sizeof s - 1}
static const struct {
    const char *name;
    size_t      len;
} keys[K__COUNT] = {
    KEY(""), KEY("fio version"), KEY("timestamp"), KEY("timestamp_ms"), KEY("global options"), KEY("jobs"),
    KEY("client_stats"), KEY("jobname"), KEY("groupid"), KEY("error"), KEY("hostname"), KEY("port"),
    KEY("job options"), KEY("write"), KEY("sync"), KEY("elapsed"), KEY("job_runtime"), KEY("iops"),
    KEY("bw_bytes"), KEY("total_ios"), KEY("clat_ns"), KEY("lat_ns"), KEY("N"), KEY("min"), KEY("max"),
    KEY("mean"), KEY("stddev"), KEY("percentile"), KEY("bins"), KEY("ioengine"), KEY("etcd_mode"),
    KEY("fdatasync"), KEY("fsync"), KEY("gtod_reduce"),
};
#undef KEY

static const unsigned char keys_root[] = {K_FIO_VERSION, K_TIMESTAMP, K_TIMESTAMP_MS, K_GLOBAL_OPTS, K_JOBS,
                                          K_CLIENT_STATS, 0};
static const unsigned char keys_job[] = {K_JOBNAME, K_GROUPID, K_ERROR, K_HOSTNAME, K_PORT, K_JOB_OPTS,
                                         K_WRITE, K_SYNC, K_ELAPSED, K_JOB_RUNTIME, 0};
static const unsigned char keys_write[] = {K_IOPS, K_BW_BYTES, K_TOTAL_IOS, K_CLAT_NS, 0};
static const unsigned char keys_clat[] = {K_MEAN, 0};
static const unsigned char keys_sync[] = {K_LAT_NS, 0};
static const unsigned char keys_lat[] = {K_N, K_MIN, K_MAX, K_MEAN, K_STDDEV, K_PERCENTILE, K_BINS, 0};
static const unsigned char keys_opts[] = {K_O_IOENGINE, K_O_ETCD_MODE, K_O_FDATASYNC, K_O_FSYNC, K_O_GTOD, 0};

static const unsigned char *const frame_keys[] = {
    [F_ROOT] = keys_root, [F_JOB] = keys_job, [F_WRITE] = keys_write, [F_CLAT] = keys_clat,
    [F_SYNC] = keys_sync, [F_LAT] = keys_lat, [F_OPTS] = keys_opts,
};

/* Called for every key of every object read (most of them skipped): length and first byte before memcmp. */
static int key_id(int kind, const unsigned char *k, size_t n)
{
    const unsigned char *ids = frame_keys[kind];
    for (; ids && *ids; ids++)
        if (keys[*ids].len == n && keys[*ids].name[0] == (char)k[0] && !memcmp(keys[*ids].name, k, n))
            return *ids;
    return K_NONE;
}

/* ---- positions and messages ---- */

/* 1-based offset of a token whose text yajl hands over at p (n bytes; for a string, its content after the
 * quote). Exact when p points into the chunk being parsed. yajl hands the first token of every chunk over
 * from its own buffer (it may have begun in the chunk before): then where it ends in this chunk tells
 * where it began. Strings with escapes are decoded into yajl's buffer too: the last exact position is the
 * best known then. */
static size_t tok_off(jdoc *d, const void *pv, size_t n, int is_str)
{
    const char *p = pv;
    if (p >= d->chunk && p <= d->chunk + d->chunk_len) {
        d->last_off = d->chunk_abs + (size_t)(p - d->chunk) + 1;
    } else if (d->first_tok) {
        const char *c = d->chunk;
        size_t w = 0, len = d->chunk_len;
        while (w < len && (c[w] == ' ' || c[w] == '\t' || c[w] == '\n' || c[w] == '\r'))
            w++;
        if (w > 0 || (is_str && len && c[0] == '"')) {  /* the token begins in this chunk */
            d->last_off = d->chunk_abs + w + 1 + (is_str ? 1 : 0);
        } else {  /* its tail opens the chunk */
            size_t m = 0;
            if (is_str)
                while (m < len && m < 4096 && c[m] != '"' && c[m] != '\\')
                    m++;
            else
                while (m < len && m < 64 && ((c[m] >= '0' && c[m] <= '9') || c[m] == '.' || c[m] == 'e' ||
                                             c[m] == 'E' || c[m] == '+' || c[m] == '-'))
                    m++;
            if (m <= n && (!is_str || (m < len && c[m] == '"')))
                d->last_off = d->chunk_abs + m - n + 1;
        }
    }
    d->first_tok = 0;
    return d->last_off;
}

static void path(const jdoc *d, char *out, size_t n)
{
    size_t at = 0;
    out[0] = '\0';
    for (int i = 0; i <= d->depth && at < n; i++) {
        const jframe *f = &d->st[i];
        int w = 0;
        switch (f->kind) {
        case F_JOBS:
            w = snprintf(out + at, n - at, "%s[%zu]", f->array_name, f->count ? f->count - 1 : 0);
            break;
        case F_ROOT:
        case F_JOB:
            break;
        default:
            w = snprintf(out + at, n - at, "%s%s", at ? "." : "", f->name);
        }
        if (w > 0)
            at += (size_t)w;
    }
}

static int fail(jdoc *d, fior_status st, size_t off, const char *what)
{
    if (d->failed)
        return 1;
    char p[128];
    path(d, p, sizeof p);
    const jframe *f = &d->st[d->depth];
    char k[48] = "";
    if (f->key && f->kind != F_PCT && f->kind != F_BINS)
        snprintf(k, sizeof k, "%s%s", p[0] ? "." : "", keys[f->key].name);
    if (st == FIOR_E_NOMEM)
        fior__seterr(d->out, "%s: out of memory", d->source);
    else
        fior__seterr(d->out, "%s: byte %zu: expected %s%s%s%s", d->source, off, what, p[0] || k[0] ? " at " : "",
                     p, k);
    d->failed = st;
    return 1;  /* keep reading to the end of the document, so that the scanner resumes after it */
}

/* The first contradiction found in a job; the verdict reports it as the reason for UNKNOWN. */
static void doubt(jdoc *d, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void doubt(jdoc *d, const char *fmt, ...)
{
    if (d->b.j.defect)
        return;
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (fior__job_set(&d->b.j.defect, msg, strlen(msg)))
        fail(d, FIOR_E_NOMEM, 0, "");
}

static void dup_key(jdoc *d, int key, size_t off)
{
    char p[128];
    path(d, p, sizeof p);
    if (!d->in_job) {  /* the document's own keys, or its global options */
        if (!d->doc_doubt[0])
            snprintf(d->doc_doubt, sizeof d->doc_doubt, "two \"%s\" keys in %s (byte %zu): which one is fio's "
                     "is unknown", keys[key].name, p[0] ? p : "the document", off);
        return;
    }
    doubt(d, "two \"%s\" keys in %s (byte %zu): which one is fio's is unknown", keys[key].name, p, off);
}

/* ---- numbers (yajl hands over the text; read here without locale or strtod) ---- */

typedef struct jnum {
    int      neg, is_int, big; /* big: an integer beyond uint64 */
    uint64_t u;
    double   d;
} jnum;

static void num_read(const char *s, size_t n, jnum *v)
{
    size_t i = 0;
    int frac = 0, exp = 0, eneg = 0;
    memset(v, 0, sizeof *v);
    v->is_int = 1;
    if (i < n && s[i] == '-') {
        v->neg = 1;
        i++;
    }
    double d = 0;
    for (; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
        unsigned dg = (unsigned)(s[i] - '0');
        if (v->u > (UINT64_MAX - dg) / 10)
            v->big = 1;
        v->u = v->u * 10 + dg;
        d = d * 10 + dg;
    }
    if (i < n && s[i] == '.') {
        v->is_int = 0;
        for (i++; i < n && s[i] >= '0' && s[i] <= '9'; i++, frac++)
            d = d * 10 + (s[i] - '0');
    }
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        v->is_int = 0;
        i++;
        if (i < n && (s[i] == '+' || s[i] == '-'))
            eneg = s[i++] == '-';
        for (; i < n && s[i] >= '0' && s[i] <= '9'; i++)
            exp = exp < 100000 ? exp * 10 + (s[i] - '0') : exp;
    }
    int e10 = (eneg ? -exp : exp) - frac;
    v->d = e10 ? d * pow(10, e10) : d;
    if (v->neg)
        v->d = -v->d;
    if (v->big)
        v->is_int = 0;
}

/* A non-negative finite number below 1.8e19 (a latency, a count). -0 is refused like any negative. */
static int num_ok(const jnum *v)
{
    return !v->neg && isfinite(v->d) && v->d <= 1.8e19;
}

static uint64_t num_u64(const jnum *v)
{
    return v->is_int ? v->u : (uint64_t)llround(v->d);
}

/* ---- job building ---- */

static int setstr(jdoc *d, const char **field, const unsigned char *s, size_t n)
{
    if (fior__job_set(field, (const char *)s, n)) {
        fail(d, FIOR_E_NOMEM, 0, "");
        return -1;
    }
    return 0;
}

static void job_begin(jdoc *d)
{
    fior__job_clear(&d->b);
    memset(&d->x, 0, sizeof d->x);
    d->x.fdatasync = d->x.fsync = d->x.gtod = -1;
    d->in_job = 1;
    d->b.j.line = d->doc_off;
}

/* Room for the job's extra facts beside its index in d->out. */
static int aux_push(jdoc *d, const jjob *x)
{
    jjob *a = fior__grow(d->aux, &d->auxcap, d->naux, sizeof *a, 16);
    if (!a)
        return -1;
    d->aux = a;
    d->aux[d->naux++] = *x;
    return 0;
}

/* fio's own "All clients" sum (client.c handle_ts): the last entry of client_stats after two or more
 * clients, without job options. Held back until the array ends, to see whether it was the last one. */
static void push_held(jdoc *d)
{
    if (!d->held_valid)
        return;
    d->held_valid = 0;
    if (fior__report_push(d->out, &d->held) || aux_push(d, &d->held_x))
        fail(d, FIOR_E_NOMEM, 0, "");
    fior__job_clear(&d->held);
}

static void job_end(jdoc *d, const jframe *f)
{
    fior__jobb *b = &d->b;
    fior_job *j = &b->j;
    const jframe *arr = &d->st[1];
    d->in_job = 0;
    if (d->failed)
        return;
    if (!(f->seen & (1ull << K_ERROR)))
        doubt(d, "%s[%zu] (byte %zu) has no \"error\" key: fio always writes one", arr->array_name,
              arr->count - 1, d->x.off);
    if (!j->name && setstr(d, &j->name, (const unsigned char *)"(unnamed)", 9))
        return;
    if (setstr(d, &j->source, (const unsigned char *)d->source, strlen(d->source)))
        return;
    fior__job_sort(b);
    /* fio prints percentiles in ascending order; a list that goes down anywhere is not fio's */
    for (size_t i = 1; i < j->npct && !j->defect; i++) {
        const fior_pct *a = &j->pct[i - 1], *c = &j->pct[i];
        if (a->percent == c->percent)
            doubt(d, "percentile \"%f\" twice in %s[%zu].sync.lat_ns.percentile (byte %zu)", c->percent,
                  arr->array_name, arr->count - 1, d->x.pct_off);
        else if (c->ns < a->ns)
            doubt(d, "percentiles not ascending in %s[%zu].sync.lat_ns.percentile (byte %zu): p%g is %llu ns "
                  "but p%g is %llu ns", arr->array_name, arr->count - 1, d->x.pct_off, a->percent,
                  (unsigned long long)a->ns, c->percent, (unsigned long long)c->ns);
    }
    for (size_t i = 1; i < j->nbins && !j->defect; i++)
        if (j->bins[i].ns == j->bins[i - 1].ns)
            doubt(d, "bin \"%llu\" twice in %s[%zu].sync.lat_ns.bins (byte %zu)",
                  (unsigned long long)j->bins[i].ns, arr->array_name, arr->count - 1, d->x.bins_off);
    if (d->failed)
        return;
    push_held(d);
    if (d->failed)
        return;
    if (arr->client_stats && arr->count >= 3 && !d->x.has_opts && j->name && !strcmp(j->name, "All clients")) {
        d->held = *b;
        d->held_x = d->x;
        d->held_valid = 1;
        fior__job_init(b);
        return;
    }
    if (fior__report_push(d->out, b) || aux_push(d, &d->x))
        fail(d, FIOR_E_NOMEM, 0, "");
}

/* ---- yajl callbacks ---- */

#define D ((jdoc *)ctx)

static jframe *top(jdoc *d)
{
    return &d->st[d->depth];
}

/* A value (scalar) arrived: which key of which frame it belongs to. Returns the frame or NULL to ignore. */
static jframe *value_slot(jdoc *d)
{
    if (d->skip)
        return NULL;
    jframe *f = top(d);
    if (f->kind == F_JOBS) {  /* a scalar where a job object belongs */
        f->count++;
        fail(d, FIOR_E_PARSE, d->last_off, "a job object");
        return NULL;
    }
    return f;
}

static int push(jdoc *d, int kind, const char *name)
{
    if (d->depth + 1 >= JDOC_DEPTH) {  /* cannot happen with the frames above; skip rather than overflow */
        d->skip++;
        return 1;
    }
    jframe *f = &d->st[++d->depth];
    memset(f, 0, sizeof *f);
    f->kind = kind;
    f->name = name;
    return 1;
}

/* fio nests 6 deep; yajl keeps a byte per open container, so a hostile "[[[[…" would take memory in
 * proportion to the input: deeper than this is refused and the parse stopped. */
#define JDOC_MAX_NEST 256

static int nest_skip(jdoc *d)
{
    if (++d->skip + (unsigned)(d->depth > 0 ? d->depth : 0) < JDOC_MAX_NEST)
        return 1;
    fail(d, FIOR_E_PARSE, d->last_off, "objects and arrays nested at most 256 deep");
    return 0;
}

static int cb_start_map(void *ctx)
{
    jdoc *d = D;
    if (d->skip || d->failed)
        return nest_skip(d);
    if (d->depth < 0) {  /* the document itself */
        d->depth = 0;
        memset(&d->st[0], 0, sizeof d->st[0]);
        d->st[0].kind = F_ROOT;
        return 1;
    }
    jframe *f = top(d);
    int k = f->key;
    f->key = K_NONE;
    switch (f->kind) {
    case F_JOBS:
        f->count++;
        push(d, F_JOB, "");
        job_begin(d);
        return 1;
    case F_ROOT:
        if (k == K_GLOBAL_OPTS) {
            push(d, F_OPTS, "global options");
            top(d)->global = 1;
            return 1;
        }
        if (k == K_JOBS || k == K_CLIENT_STATS)
            fail(d, FIOR_E_PARSE, d->last_off, "a \"jobs\" or \"client_stats\" array");
        break;
    case F_JOB:
        if (k == K_JOB_OPTS) {
            d->x.has_opts = 1;
            return push(d, F_OPTS, "job options");
        }
        if (k == K_WRITE)
            return push(d, F_WRITE, "write");
        if (k == K_SYNC)
            return push(d, F_SYNC, "sync");
        break;
    case F_WRITE:
        if (k == K_CLAT_NS)
            return push(d, F_CLAT, "clat_ns");
        break;
    case F_SYNC:
        if (k == K_LAT_NS)
            return push(d, F_LAT, "lat_ns");
        break;
    case F_LAT:
        if (k == K_PERCENTILE) {
            d->x.pct_off = d->last_off;
            return push(d, F_PCT, "percentile");
        }
        if (k == K_BINS) {
            d->x.bins_off = d->last_off;
            return push(d, F_BINS, "bins");
        }
        if (k != K_NONE)
            fail(d, FIOR_E_PARSE, d->last_off, "a number");
        break;
    case F_PCT:
        fail(d, FIOR_E_PARSE, d->last_off, "percentile values as numbers");
        break;
    case F_BINS:
        fail(d, FIOR_E_PARSE, d->last_off, "bin counts as whole numbers >= 0");
        break;
    }
    return nest_skip(d);
}

static int cb_start_array(void *ctx)
{
    jdoc *d = D;
    if (d->skip || d->failed)
        return nest_skip(d);
    jframe *f = top(d);
    int k = f->key;
    f->key = K_NONE;
    if (f->kind == F_ROOT && (k == K_JOBS || k == K_CLIENT_STATS)) {
        d->has_jobs = 1;
        push(d, F_JOBS, "");
        top(d)->array_name = keys[k].name;
        top(d)->client_stats = k == K_CLIENT_STATS;
        return 1;
    }
    if (f->kind == F_JOBS) {
        f->count++;
        fail(d, FIOR_E_PARSE, d->last_off, "a job object");
    } else if (f->kind == F_LAT && k != K_NONE) {
        fail(d, FIOR_E_PARSE, d->last_off, k == K_PERCENTILE ? "\"percentile\" as an object"
                                          : k == K_BINS ? "\"bins\" as an object" : "a number");
    } else if (f->kind == F_SYNC && k == K_LAT_NS) {
        fail(d, FIOR_E_PARSE, d->last_off, "an object");
    }
    return nest_skip(d);
}

static void lat_end(jdoc *d, const jframe *f)
{
    fior_job *j = &d->b.j;
    if (!(f->seen & (1ull << K_N)))
        doubt(d, "no sample count \"N\" in %s[%zu].sync.lat_ns (byte %zu): fio always writes one",
              d->st[1].array_name, d->st[1].count - 1, f->off);
    /* N counts the timed syncs; with N missing a percentile still proves there were some */
    j->has_sync = j->samples_known ? j->samples > 0 : (j->npct > 0 || j->max_ns > 0);
}

static int cb_end_container(void *ctx)
{
    jdoc *d = D;
    if (d->skip) {
        d->skip--;
        return 1;
    }
    if (d->depth < 0)
        return 1;
    jframe *f = top(d);
    switch (f->kind) {
    case F_ROOT:
        d->depth = -1;
        d->done = 1;
        return 0;  /* the document is complete: stop yajl here, the scanner goes on after it */
    case F_JOB:
        d->depth--;
        job_end(d, f);
        return 1;
    case F_LAT:
        if (d->in_job && !d->failed)
            lat_end(d, f);
        break;
    default:
        break;
    }
    d->depth--;
    return 1;
}

static int cb_end_array(void *ctx)
{
    jdoc *d = D;
    if (!d->skip && d->depth >= 0 && top(d)->kind == F_JOBS && d->held_valid) {
        d->held_valid = 0;  /* the held "All clients" was the last entry: fio's sum, not a job */
        fior__job_clear(&d->held);
    }
    return cb_end_container(ctx);
}

static int cb_key(void *ctx, const unsigned char *k, size_t n)
{
    jdoc *d = D;
    if (d->skip || d->failed)
        return 1;
    size_t off = tok_off(d, k, n, 1);
    jframe *f = top(d);
    if (f->kind == F_PCT) {
        char tmp[64];
        const char *p = tmp;
        double pc;
        if (n >= sizeof tmp || (memcpy(tmp, k, n), tmp[n] = '\0', fior__parse_dec(&p, &pc)) || *p ||
            pc > 100.0)
            return fail(d, FIOR_E_PARSE, off, "percentile keys like \"99.000000\"");
        f->pkey = pc;
        f->key = K_PERCENTILE;
        return 1;
    }
    if (f->kind == F_BINS) {
        char tmp[32];
        const char *p = tmp;
        uint64_t ns;
        if (n >= sizeof tmp || (memcpy(tmp, k, n), tmp[n] = '\0', fior__parse_u64(&p, &ns)) || *p)
            return fail(d, FIOR_E_PARSE, off, "bin keys as whole nanoseconds");
        f->bkey = ns;
        f->key = K_BINS;
        return 1;
    }
    if (f->kind == F_JOB && !d->x.off)
        d->x.off = off;  /* a job is where its first key is */
    int id = key_id(f->kind, k, n);
    f->key = id;
    if (id) {
        if (f->seen & (1ull << id))
            dup_key(d, id, off);
        f->seen |= 1ull << id;
        if (f->kind == F_LAT && !f->off)
            f->off = off;
    }
    return 1;
}

static void opt_value(jdoc *d, const jframe *f, int key, const char *s, size_t n)
{
    int on = !(n == 1 && s[0] == '0');
    int truthy = (n == 1 && s[0] == '1') || (n == 4 && !memcmp(s, "true", 4)) || (n == 2 && !memcmp(s, "on", 2)) ||
                 (n == 3 && !memcmp(s, "yes", 3));
    jjob *x = f->global ? &d->gx : &d->x;
    switch (key) {
    case K_O_IOENGINE:
        setstr(d, f->global ? &d->g_ioengine : &d->b.j.ioengine, (const unsigned char *)s, n);
        x->own_ioengine = 1;
        break;
    case K_O_ETCD_MODE:
        setstr(d, f->global ? &d->g_etcd_mode : &d->b.j.etcd_mode, (const unsigned char *)s, n);
        x->own_etcd_mode = 1;
        break;
    case K_O_FDATASYNC: x->fdatasync = (signed char)on; break;
    case K_O_FSYNC:     x->fsync = (signed char)on; break;
    case K_O_GTOD:      x->gtod = (signed char)truthy; break;
    }
}

static int cb_string(void *ctx, const unsigned char *s, size_t n)
{
    jdoc *d = D;
    if (d->failed)
        return 1;
    jframe *f = value_slot(d);
    if (!f)
        return 1;
    size_t off = tok_off(d, s, n, 1);
    int k = f->key;
    f->key = K_NONE;
    switch (f->kind) {
    case F_ROOT:
        if (k == K_FIO_VERSION)
            setstr(d, &d->fio_version, s, n);
        else if (k == K_JOBS || k == K_CLIENT_STATS)
            fail(d, FIOR_E_PARSE, off, "a \"jobs\" or \"client_stats\" array");
        return 1;
    case F_JOB:
        if (k == K_JOBNAME)
            setstr(d, &d->b.j.name, s, n);
        else if (k == K_HOSTNAME)
            setstr(d, &d->b.j.host, s, n);
        else if (k == K_ERROR)
            fail(d, FIOR_E_PARSE, off, "\"error\" as a whole number");
        return 1;
    case F_OPTS:
        opt_value(d, f, k, (const char *)s, n);
        return 1;
    case F_LAT:
        if (k == K_N)
            return fail(d, FIOR_E_PARSE, off, "a sample count \"N\" >= 0");
        if (k == K_MIN || k == K_MAX)
            return fail(d, FIOR_E_PARSE, off, "\"min\"/\"max\" as numbers >= 0");
        if (k == K_MEAN || k == K_STDDEV)
            return fail(d, FIOR_E_PARSE, off, k == K_MEAN ? "\"mean\" as a number >= 0"
                                                          : "\"stddev\" as a number >= 0");
        if (k != K_NONE)
            return fail(d, FIOR_E_PARSE, off, k == K_PERCENTILE ? "\"percentile\" as an object"
                                                                : "\"bins\" as an object");
        return 1;
    case F_SYNC:
        if (k == K_LAT_NS)
            return fail(d, FIOR_E_PARSE, off, "an object");
        return 1;
    case F_PCT:
        return fail(d, FIOR_E_PARSE, off, "percentile values as numbers");
    case F_BINS:
        return fail(d, FIOR_E_PARSE, off, "bin counts as whole numbers >= 0");
    }
    return 1;
}

static int cb_number(void *ctx, const char *s, size_t n)
{
    jdoc *d = D;
    if (d->failed)
        return 1;
    jframe *f = value_slot(d);
    if (!f)
        return 1;
    size_t off = tok_off(d, s, n, 0);
    int k = f->key;
    f->key = K_NONE;
    if (k == K_NONE)
        return 1;
    jnum v;
    num_read(s, n, &v);
    fior_job *j = &d->b.j;
    switch (f->kind) {
    case F_ROOT:
        if (k == K_TIMESTAMP_MS && v.is_int && !v.neg) {
            d->ts_ms = v.u;
            d->ts_has_ms = 1;
        } else if (k == K_TIMESTAMP && v.is_int && !v.neg && !d->ts_has_ms && v.u < UINT64_MAX / 1000) {
            d->ts_ms = v.u * 1000;
            d->ts_known = 1;
        } else if (k == K_JOBS || k == K_CLIENT_STATS) {
            fail(d, FIOR_E_PARSE, off, "a \"jobs\" or \"client_stats\" array");
        }
        return 1;
    case F_JOB:
        if (k == K_ERROR) {
            if (!v.is_int || v.u > 1000000)
                return fail(d, FIOR_E_PARSE, off, "\"error\" as a whole number");
            j->error = v.neg ? -(int)v.u : (int)v.u;
            if (v.neg && !v.u)
                doubt(d, "\"error\" is -0 in %s[%zu] (byte %zu): not a value fio writes", d->st[1].array_name,
                      d->st[1].count - 1, off);
        } else if (k == K_GROUPID && v.is_int && !v.neg && v.u < 1000000) {
            j->group = (int)v.u;
        } else if (k == K_PORT && v.is_int && !v.neg && v.u < 65536) {
            j->port = (int)v.u;
        } else if (k == K_ELAPSED && v.is_int && !v.neg && v.u < 1000000000) {
            d->x.elapsed_s = v.u;
            d->x.has_elapsed = 1;
        } else if (k == K_JOB_RUNTIME && v.is_int && !v.neg) {
            d->x.runtime_ms = v.u;
        }
        return 1;
    case F_OPTS:
        opt_value(d, f, k, s, n);
        return 1;
    case F_WRITE:
        if (!num_ok(&v))
            return 1;
        if (k == K_IOPS)
            j->write_iops = v.d;
        else if (k == K_BW_BYTES)
            j->write_bw_bytes = v.d;
        else if (k == K_TOTAL_IOS)
            d->x.writes = num_u64(&v);
        return 1;
    case F_CLAT:
        if (num_ok(&v))
            j->write_clat_mean_ns = v.d;
        return 1;
    case F_LAT:
        switch (k) {
        case K_N:
            if (!num_ok(&v))
                return fail(d, FIOR_E_PARSE, off, "a sample count \"N\" >= 0");
            j->samples_known = 1;
            j->samples = num_u64(&v);
            return 1;
        case K_MIN:
        case K_MAX:
            if (!num_ok(&v))
                return fail(d, FIOR_E_PARSE, off, "\"min\"/\"max\" as numbers >= 0");
            *(k == K_MIN ? &j->min_ns : &j->max_ns) = num_u64(&v);
            return 1;
        case K_MEAN:
        case K_STDDEV:
            if (!num_ok(&v))
                return fail(d, FIOR_E_PARSE, off, k == K_MEAN ? "\"mean\" as a number >= 0"
                                                              : "\"stddev\" as a number >= 0");
            *(k == K_MEAN ? &j->mean_ns : &j->stddev_ns) = v.d;
            return 1;
        default:
            return fail(d, FIOR_E_PARSE, off, k == K_PERCENTILE ? "\"percentile\" as an object"
                                                                : "\"bins\" as an object");
        }
    case F_PCT:
        if (!num_ok(&v))
            return fail(d, FIOR_E_PARSE, off, "percentile values >= 0 (nanoseconds; -0 is not one)");
        if (fior__job_add_pct(&d->b, f->pkey, num_u64(&v)))
            return fail(d, FIOR_E_NOMEM, off, "");
        return 1;
    case F_BINS:
        if (!v.is_int || v.neg)
            return fail(d, FIOR_E_PARSE, off, "bin counts as whole numbers >= 0");
        if (fior__job_add_bin(&d->b, f->bkey, v.u))
            return fail(d, FIOR_E_NOMEM, off, "");
        return 1;
    }
    return 1;
}

/* null and booleans: only where a number or string was expected do they matter */
static int cb_other(void *ctx)
{
    jdoc *d = D;
    if (d->failed)
        return 1;
    jframe *f = value_slot(d);
    if (!f)
        return 1;
    int k = f->key;
    f->key = K_NONE;
    if (k == K_NONE)
        return 1;
    size_t off = d->last_off;
    switch (f->kind) {
    case F_ROOT:
        if (k == K_JOBS || k == K_CLIENT_STATS)
            fail(d, FIOR_E_PARSE, off, "a \"jobs\" or \"client_stats\" array");
        return 1;
    case F_JOB:
        if (k == K_ERROR)
            fail(d, FIOR_E_PARSE, off, "\"error\" as a whole number");
        return 1;
    case F_LAT:
        return fail(d, FIOR_E_PARSE, off, k == K_N ? "a sample count \"N\" >= 0" : "a number");
    case F_SYNC:
        return k == K_LAT_NS ? fail(d, FIOR_E_PARSE, off, "an object") : 1;
    case F_PCT:
        return fail(d, FIOR_E_PARSE, off, "percentile values as numbers");
    case F_BINS:
        return fail(d, FIOR_E_PARSE, off, "bin counts as whole numbers >= 0");
    }
    return 1;
}

static int cb_null(void *ctx)
{
    return cb_other(ctx);
}

static int cb_bool(void *ctx, int b)
{
    (void)b;
    return cb_other(ctx);
}

const yajl_callbacks fior__jdoc_callbacks = {
    cb_null, cb_bool, NULL, NULL, cb_number, cb_string, cb_start_map, cb_key, cb_end_container,
    cb_start_array, cb_end_array,
};

/* ---- one document: begin, then the events, then end ---- */

void fior__jdoc_begin(jdoc *d, fior_report *out, const char *source, size_t doc_off)
{
    fior__report_clear(out);
    fior__job_clear(&d->b);
    fior__job_clear(&d->held);
    free((char *)d->fio_version);
    free((char *)d->g_ioengine);
    free((char *)d->g_etcd_mode);
    jjob *aux = d->aux;
    size_t auxcap = d->auxcap;
    memset(d, 0, sizeof *d);
    fior__job_init(&d->b);
    fior__job_init(&d->held);
    d->aux = aux;
    d->auxcap = auxcap;
    d->out = out;
    d->source = source;
    d->doc_off = doc_off;
    d->last_off = doc_off;
    d->depth = -1;
    d->gx.fdatasync = d->gx.fsync = d->gx.gtod = -1;
}

void fior__jdoc_free(jdoc *d)
{
    fior__job_clear(&d->b);
    fior__job_clear(&d->held);
    free((char *)d->fio_version);
    free((char *)d->g_ioengine);
    free((char *)d->g_etcd_mode);
    free(d->aux);
    memset(d, 0, sizeof *d);
}

/* The document is complete: options of [global] fill in what a job's own options leave out. */
fior_status fior__jdoc_end(jdoc *d)
{
    if (d->failed)
        return d->failed;
    if (!d->has_jobs) {
        fior__seterr(d->out, "%s: byte %zu: expected a fio JSON document with a \"jobs\" or \"client_stats\" "
                     "array", d->source, d->doc_off);
        return FIOR_E_PARSE;
    }
    if (!d->out->njobs) {
        fior__seterr(d->out, "%s: byte %zu: expected at least one job in \"jobs\"", d->source, d->doc_off);
        return FIOR_E_PARSE;
    }
    for (size_t i = 0; i < d->out->njobs; i++) {
        fior_job *j = &d->out->jobs[i];
        const jjob *x = &d->aux[i];
        if ((d->fio_version && fior__job_set(&j->fio_version, d->fio_version, strlen(d->fio_version))) ||
            (!x->own_ioengine && d->g_ioengine && fior__job_set(&j->ioengine, d->g_ioengine, strlen(d->g_ioengine))) ||
            (!x->own_etcd_mode && d->g_etcd_mode &&
             fior__job_set(&j->etcd_mode, d->g_etcd_mode, strlen(d->g_etcd_mode))) ||
            (d->doc_doubt[0] && !j->defect && fior__job_set(&j->defect, d->doc_doubt, strlen(d->doc_doubt)))) {
            fior__seterr(d->out, "%s: out of memory", d->source);
            return FIOR_E_NOMEM;
        }
        j->role = fior__job_role(j->ioengine, j->etcd_mode, x->own_etcd_mode);
        signed char gt = x->gtod >= 0 ? x->gtod : d->gx.gtod;
        signed char fds = x->fdatasync >= 0 ? x->fdatasync : d->gx.fdatasync;
        signed char fs = x->fsync >= 0 ? x->fsync : d->gx.fsync;
        j->latency_untimed = gt == 1;
        /* fsync=/fdatasync= only issue syncs after writes: a read job with fdatasync=1 has nothing to judge */
        j->sync_requested = (fds == 1 || fs == 1) && x->writes > 0;
    }
    return FIOR_OK;
}
