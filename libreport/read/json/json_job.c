/* SPDX-License-Identifier: MIT */
/* json_job.c — what fmt_json.c's yajl callbacks build on: byte offsets of tokens and the messages that name
 * them, locale-free number reading, building a job (its contradictions checked at its end: "error" missing,
 * percentiles going down, a duplicate percentile or bin) and a document's start and end ("global options"
 * filled into the jobs that do not set them). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_doc.h"

/* ---- positions and messages ---- */

/* 1-based offset of a token whose text yajl hands over at p (n bytes; for a string, its content after the
 * quote). Exact when p points into the chunk being parsed. yajl hands the first token of every chunk over
 * from its own buffer (it may have begun in the chunk before): then where it ends in this chunk tells
 * where it began. Strings with escapes are decoded into yajl's buffer too: the last exact position is the
 * best known then. */
size_t fior__jtok_off(jdoc *d, const void *pv, size_t n, int is_str)
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

void fior__jpath(const jdoc *d, char *out, size_t n)
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

int fior__jfail(jdoc *d, fior_status st, size_t off, const char *what)
{
    if (d->failed)
        return 1;
    char p[128];
    fior__jpath(d, p, sizeof p);
    const jframe *f = &d->st[d->depth];
    char k[48] = "";
    if (f->key && f->kind != F_PCT && f->kind != F_BINS)
        snprintf(k, sizeof k, "%s%s", p[0] ? "." : "", fior__jkey(f->key));
    if (st == FIOR_E_NOMEM)
        fior__seterr(d->out, "%s: out of memory", d->source);
    else
        fior__seterr(d->out, "%s: byte %zu: expected %s%s%s%s", d->source, off, what, p[0] || k[0] ? " at " : "",
                     p, k);
    d->failed = st;
    return 1;  /* keep reading to the end of the document, so that the scanner resumes after it */
}

/* The first contradiction found in a job; the verdict reports it as the reason for UNKNOWN. */
void fior__jdoubt(jdoc *d, const char *fmt, ...)
{
    if (d->b.j.defect)
        return;
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (fior__job_set(&d->b.j.defect, msg, strlen(msg)))
        fior__jfail(d, FIOR_E_NOMEM, 0, "");
}

/* ---- numbers (yajl hands over the text; read here without locale or strtod) ---- */


void fior__jnum_read(const char *s, size_t n, jnum *v)
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
int fior__jnum_ok(const jnum *v)
{
    return !v->neg && isfinite(v->d) && v->d <= 1.8e19;
}

uint64_t fior__jnum_u64(const jnum *v)
{
    return v->is_int ? v->u : (uint64_t)llround(v->d);
}

/* ---- job building ---- */

int fior__jsetstr(jdoc *d, const char **field, const unsigned char *s, size_t n)
{
    if (fior__job_set(field, (const char *)s, n)) {
        fior__jfail(d, FIOR_E_NOMEM, 0, "");
        return -1;
    }
    return 0;
}

static void jjob_init(jjob *x)
{
    memset(x, 0, sizeof *x);
    x->fdatasync = x->fsync = x->gtod = -1;
    x->o_sync = x->o_direct = x->o_sfr = x->o_end_fsync = x->o_close_fsync = -1;
}

void fior__jjob_begin(jdoc *d)
{
    fior__job_clear(&d->b);
    jjob_init(&d->x);
    d->in_job = 1;
    d->b.j.line = d->doc_off;
}

/* A sync block without "N". fio before 3.18 (commit 56440e63) never writes one; the count is still there:
 * an fsync is counted in sync.total_ios (total_io_u[DDIR_SYNC]), an fdatasync one past the end of
 * total_io_u[] (DDIR_DATASYNC is 4, the array has DDIR_RWDIR_SYNC_CNT = 4 entries: stat.h), in
 * short_io_u[0], which the JSON prints as read.short_ios. With reads, short_ios may be short reads: the
 * count is then only known when it is 0. Any other fio writes "N": its absence is a contradiction. */
static void sync_count(jdoc *d)
{
    fior_job *j = &d->b.j;
    const jjob *x = &d->x;
    const jframe *arr = &d->st[1];
    int ma, mi;
    if (!x->has_lat || x->has_n)
        return;
    if (fior__fio_version(d->fio_version, &ma, &mi) || !(ma < 3 || (ma == 3 && mi < 18)) || !x->has_sync_total) {
        fior__jdoubt(d, "no sample count \"N\" in %s[%zu].sync.lat_ns (byte %zu): fio always writes one",
                     arr->array_name, arr->count - 1, x->lat_off);
        return;
    }
    if (x->reads && x->read_short)
        return; /* fdatasyncs and short reads cannot be told apart: the count stays unknown */
    uint64_t n = x->sync_total, extra = x->reads ? 0 : x->read_short;
    j->samples = n > UINT64_MAX - extra ? UINT64_MAX : n + extra;
    j->samples_known = 1;
    j->has_sync = j->samples > 0;
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
void fior__jpush_held(jdoc *d)
{
    if (!d->held_valid)
        return;
    d->held_valid = 0;
    if (fior__report_push(d->out, &d->held) || aux_push(d, &d->held_x))
        fior__jfail(d, FIOR_E_NOMEM, 0, "");
    fior__job_clear(&d->held);
}

void fior__jjob_end(jdoc *d, const jframe *f)
{
    fior__jobb *b = &d->b;
    fior_job *j = &b->j;
    const jframe *arr = &d->st[1];
    d->in_job = 0;
    if (d->failed)
        return;
    if (!(f->seen & (1ull << K_ERROR)))
        fior__jdoubt(d, "%s[%zu] (byte %zu) has no \"error\" key: fio always writes one", arr->array_name,
              arr->count - 1, d->x.off);
    sync_count(d);
    if (!j->name && fior__jsetstr(d, &j->name, (const unsigned char *)"(unnamed)", 9))
        return;
    if (fior__jsetstr(d, &j->source, (const unsigned char *)d->source, strlen(d->source)))
        return;
    fior__job_sort(b);
    /* fio prints percentiles in ascending order; a list that goes down anywhere is not fio's */
    for (size_t i = 1; i < j->npct && !j->defect; i++) {
        const fior_pct *a = &j->pct[i - 1], *c = &j->pct[i];
        if (a->percent == c->percent)
            fior__jdoubt(d, "percentile \"%f\" twice in %s[%zu].sync.lat_ns.percentile (byte %zu)", c->percent,
                  arr->array_name, arr->count - 1, d->x.pct_off);
        else if (c->ns < a->ns)
            fior__jdoubt(d, "percentiles not ascending in %s[%zu].sync.lat_ns.percentile (byte %zu): p%g is %llu ns "
                  "but p%g is %llu ns", arr->array_name, arr->count - 1, d->x.pct_off, a->percent,
                  (unsigned long long)a->ns, c->percent, (unsigned long long)c->ns);
    }
    for (size_t i = 1; i < j->nbins && !j->defect; i++)
        if (j->bins[i].ns == j->bins[i - 1].ns)
            fior__jdoubt(d, "bin \"%llu\" twice in %s[%zu].sync.lat_ns.bins (byte %zu)",
                  (unsigned long long)j->bins[i].ns, arr->array_name, arr->count - 1, d->x.bins_off);
    if (d->failed)
        return;
    fior__jpush_held(d);
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
        fior__jfail(d, FIOR_E_NOMEM, 0, "");
}

/* ---- one document: begin, then the events, then end ---- */

/* Frees what a document's reading holds (its jobs being built, its strings); the aux array stays. */
static void jdoc_clear(jdoc *d)
{
    fior__job_clear(&d->b);
    fior__job_clear(&d->held);
    free((char *)d->fio_version);
    free((char *)d->g_ioengine);
    free((char *)d->g_etcd_mode);
    free((char *)d->g_directory);
    free((char *)d->g_filename);
}

void fior__jdoc_begin(jdoc *d, fior_report *out, const char *source, size_t doc_off)
{
    fior__report_clear(out);
    jdoc_clear(d);
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
    jjob_init(&d->gx);
}

void fior__jdoc_free(jdoc *d)
{
    jdoc_clear(d);
    free(d->aux);
    memset(d, 0, sizeof *d);
}

/* ---- what the document says of a job's end and of its syncs (run_end.c, verdict.c) ---- */

static uint64_t opt_or(uint64_t own, uint64_t global)
{
    return own ? own : global;
}

static signed char flag_or(signed char own, signed char global)
{
    return own >= 0 ? own : global;
}

/* numjobs=N makes N jobs of one name; group_reporting (which fio's JSON does not list among the options)
 * sums them into one entry: the entries of this name, group and host tell which. 0: cannot tell. */
static uint64_t grouped(const jdoc *d, const fior_job *j, uint64_t numjobs)
{
    size_t same = 0;
    for (size_t k = 0; k < d->out->njobs; k++) {
        const fior_job *o = &d->out->jobs[k];
        same += o->group == j->group && o->port == j->port && o->name && j->name && !strcmp(o->name, j->name) &&
                (o->host == j->host || (o->host && j->host && !strcmp(o->host, j->host)));
    }
    return numjobs <= 1 ? 1 : same == 1 ? numjobs : same == numjobs ? 1 : 0;
}

static uint64_t mul(uint64_t a, uint64_t b)
{
    return a && b > UINT64_MAX / a ? 0 : a * b;
}

static void job_end_facts(const jdoc *d, fior_job *j, jjob *x)
{
    const jjob *g = &d->gx;
    int kb1000 = x->kb1000 || g->kb1000;
    uint64_t size = opt_or(x->o_size, g->o_size), io_size = opt_or(x->o_io_size, g->o_io_size);
    uint64_t filesize = opt_or(x->o_filesize, g->o_filesize), nrfiles = opt_or(x->o_nrfiles, g->o_nrfiles);
    uint64_t loops = opt_or(x->o_loops, g->o_loops), numjobs = opt_or(x->o_numjobs, g->o_numjobs);
    uint64_t bs = opt_or(x->o_bs, g->o_bs), runtime = opt_or(x->o_runtime_ms, g->o_runtime_ms);
    uint64_t nios = opt_or(x->o_number_ios, g->o_number_ios);
    fior__endfacts *f = &x->end;
    fior__endfacts_init(f);
    f->options = x->has_opts;
    /* io_size (io_limit) replaces size as the amount of I/O; filesize × nrfiles stands in for a missing size */
    uint64_t base = io_size ? io_size : size ? size
                    : filesize && filesize != UINT64_MAX && nrfiles != UINT64_MAX ? mul(filesize, nrfiles ? nrfiles : 1)
                    : 0;
    uint64_t times = loops == UINT64_MAX || numjobs == UINT64_MAX ? 0 : mul(loops ? loops : 1,
                                                                           grouped(d, j, numjobs));
    f->goal_bytes = base == UINT64_MAX || kb1000 || bs == UINT64_MAX ? 0 : mul(base, times);
    /* "50%", a range, an expression, or sizes whose base (kb_base=1000, an option that may follow them) is
     * not known when they are read: what the job asks is not known, so its end is not proven */
    f->goal_unreadable = base == UINT64_MAX || (base && kb1000);
    /* each job, file and loop may leave out a last block that does not fit (fio's default bs is 4k) */
    f->tol_bytes = mul(bs ? bs : 4096, mul(times, nrfiles && nrfiles != UINT64_MAX ? nrfiles : 1));
    f->goal_ios = nios == UINT64_MAX ? 0 : nios;
    f->goal_runtime_ms = runtime == UINT64_MAX ? 0 : runtime;
    f->bytes_known = x->has_bytes;
    f->bytes = x->bytes;
    f->ios_known = x->has_bytes;
    f->ios = x->ios;
    f->runtime_known = x->has_runtime || x->ddir_runtime_ms > 0; /* fio 3.7 has no job_runtime */
    f->runtime_ms = x->has_runtime ? x->runtime_ms : x->ddir_runtime_ms;
    f->syncs = j->samples_known ? j->samples : 0;
    /* a job process that died: its figures never got past the start (stat.c prints what the shared
     * thread_stat holds; io_bytes and job_runtime are only filled in when the job ends) */
    f->died = x->has_bytes && x->bytes == 0 && (x->ios > 0 || f->syncs > 0) && (!x->has_runtime || !x->runtime_ms)
              ? FIOR__DIED_NO_BYTES : FIOR__DIED_NO;
    /* ... or a direction with bytes and a runtime of 0: backend.c's update_runtime() sets it to at least 1 ms
     * (rounded up) once a job's I/O loop ends, and stat.c's interim reports add the running time; only a job
     * process that died in its loop leaves it 0 */
    for (int dd = 0; dd < 3 && !f->died; dd++)
        if (x->ddir_bytes[dd] > 0 && x->has_ddir_rt[dd] && x->ddir_rt[dd] == 0)
            f->died = FIOR__DIED_ZERO_RUNTIME;
    f->runtime_exact = x->has_runtime;
    /* writes counted as issued (live, in the shared statistics) whose bytes are not in the figures (a job
     * process's bytes are added when it ends): with group_reporting, a job of the group that died leaves
     * its syncs and its count behind, not its bytes. Not for a few blocks or 1 %: an async engine's I/Os
     * still in flight when a runtime ends are issued and never done (up to its iodepth) */
    uint64_t wbs = opt_or(x->o_bs, g->o_bs);
    if (!f->died && !x->o_bs_var && !g->o_bs_var && wbs && wbs != UINT64_MAX && x->writes > x->short_w &&
        mul(x->writes - x->short_w, wbs) / 100 * 99 > x->ddir_bytes[D_WRITE] + mul(wbs, FIOR__INFLIGHT)) {
        f->died = FIOR__DIED_WRITES_UNCOUNTED;
        f->ios = x->writes;
        f->bytes = mul(x->writes - x->short_w, wbs);
    }
    f->has_eta = x->has_eta;
    f->eta_s = x->eta;
    j->io_bytes = x->has_bytes ? x->bytes : 0;
    j->io_goal_bytes = f->goal_bytes;
    j->runtime_ms = f->runtime_known ? f->runtime_ms : 0;
    j->runtime_goal_ms = f->goal_runtime_ms;
    signed char fds = flag_or(x->fdatasync, g->fdatasync), fs = flag_or(x->fsync, g->fsync);
    signed char sy = flag_or(x->o_sync, g->o_sync), dio = flag_or(x->o_direct, g->o_direct);
    signed char sfr = flag_or(x->o_sfr, g->o_sfr), efs = flag_or(x->o_end_fsync, g->o_end_fsync);
    signed char cfs = flag_or(x->o_close_fsync, g->o_close_fsync);
    j->sync_flags = (x->has_opts ? FIOR_SYNC_OPTIONS : 0) | (fs == 1 ? FIOR_SYNC_FSYNC : 0) |
                    (fds == 1 ? FIOR_SYNC_FDATASYNC : 0) | (sfr == 1 ? FIOR_SYNC_RANGE : 0) |
                    (sy == 1 ? FIOR_SYNC_O_SYNC : 0) | (sy == 2 ? FIOR_SYNC_O_DSYNC : 0) |
                    (dio == 1 ? FIOR_SYNC_DIRECT : 0) | (efs == 1 || cfs == 1 ? FIOR_SYNC_END_FSYNC : 0) |
                    (cfs == 1 ? FIOR_SYNC_ON_CLOSE : 0);
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
        jjob *x = &d->aux[i];
        if ((d->fio_version && fior__job_set(&j->fio_version, d->fio_version, strlen(d->fio_version))) ||
            (!x->own_ioengine && d->g_ioengine && fior__job_set(&j->ioengine, d->g_ioengine, strlen(d->g_ioengine))) ||
            (!x->own_directory && d->g_directory &&
             fior__job_set(&j->directory, d->g_directory, strlen(d->g_directory))) ||
            (!x->own_filename && d->g_filename && fior__job_set(&j->filename, d->g_filename, strlen(d->g_filename))) ||
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
        job_end_facts(d, j, x);
        if ((d->disk_name[0] && fior__job_set(&j->disk_name, d->disk_name, strlen(d->disk_name))) ||
            (j->disk_write_ios = d->disk_wios, fior__medium_settle(j, d->out->njobs))) {
            fior__seterr(d->out, "%s: out of memory", d->source);
            return FIOR_E_NOMEM;
        }
    }
    return FIOR_OK;
}
