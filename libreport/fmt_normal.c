/* SPDX-License-Identifier: MIT */
/* fmt_normal.c — reads fio's human ("normal") output, any fio 3.x, including client/server output whose
 * lines carry a "<host> " prefix. Everything is found by keyword tokens, never by column: fio pads values
 * to the widest number of a block and its percentile rows hold as many entries as fit in 80 columns.
 * Formats follow fio's stat.c: show_thread_status_normal (job header, `issued rwts:`), display_lat (the
 * `sync (unit):` line, min/max through num2str with k/M/G suffixes) and show_clat_percentiles
 * (`|  1.00th=[  652],`). The sync count is not printed as such: see issued_line(). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

enum section { SEC_NONE, SEC_WRITE, SEC_OTHER, SEC_SYNC };

typedef struct desc {  /* job description line "NAME: (g=G): rw=…, ioengine=E, iodepth=…" */
    char *name;
    int   group;
    char *ioengine;
} desc;

static char *job_key(const fior_job *j)
{
    char *k = NULL;
    if (asprintf(&k, "%s\x1f%s\x1f%d\x1f%ld", j->host ? j->host : "", j->name, j->group, j->pid) < 0)
        return NULL;
    return k;
}

static char *desc_key(const char *name, int group)
{
    char *k = NULL;
    if (asprintf(&k, "%s\x1f%d", name, group) < 0)
        return NULL;
    return k;
}

/* What the output says of one job's end (run_end.c), by its index in the report: its prints (a
 * --status-interval normal output prints every job again and again) and their figures. */
typedef struct nfact {
    unsigned prints, last_print; /* how often it was printed, and the run's print count at its last one */
    uint64_t rt[3];              /* the write line's runtime of its last three prints, newest last (ms) */
    int      has_ddir, has_bytes, has_rt;
    uint64_t bytes, rt_ms;
    int      jobs;               /* the header's jobs=N (group_reporting sums N processes) */
    int      cpu_idle;           /* its cpu line says usr=0, sys=0, ctx=0: the process never ran to its end */
} nfact;

typedef struct nsig {             /* "fio: pid=P, got signal=S" (backend.c): a job process died */
    long pid;
    int  sig;
} nsig;

typedef struct nstate {
    fior_report *r;
    const char  *source;
    size_t       lineno;
    char        *line;         /* current line, NUL-terminated copy */
    size_t       linecap;
    char        *version;      /* last fio version line seen */
    char        *host1;        /* the single client host seen, if only one */
    int          nhosts;
    desc        *descs;
    size_t       ndescs, dcap;
    fior__strmap         didx;         /* "name\x1fgroup" → descs[] */
    fior__strmap         jidx;         /* job identity → r->jobs[] */
    int          fio_seen;     /* version or description line seen: this is fio output */
    int          in_job;
    fior__jobb   job;
    enum section sec;
    uint64_t     pct_unit;     /* inside a percentile block: its unit; 0 outside */
    int          pct_target;   /* the block belongs to sync (1) or is skipped (0) */
    size_t       pct_rows, pct_start;
    int          pct_open;     /* last entry ended with ',' */
    int          sync_lines, issued_lines;  /* of the current job: each at most once */
    unsigned     run;          /* fior_job.run of the jobs being read */
    size_t       run_first;    /* index in r->jobs of the current run's first job */
    int          run_fio;      /* the current run has shown fio's banner or a job description */
    int          run_summary;  /* the current run has printed its 'Run status group' summary */
    /* how the jobs ended (run_end.c) */
    nfact       *nf;           /* by index in r->jobs */
    size_t       nfcap;
    nfact        cur;          /* the job being read */
    unsigned     prints;       /* job prints of the current run */
    int          run_sig;      /* its "fio: terminating on signal N" line: N */
    unsigned     sig_prints;   /* prints before that line */
    nsig        *died;         /* its "got signal" lines */
    size_t       ndied, diedcap;
} nstate;

static fior_status nomem(nstate *s)
{
    fior__seterr(s->r, "%s: out of memory", s->source);
    return FIOR_E_NOMEM;
}

static fior_status bad(nstate *s, const char *what)
{
    fior__seterr(s->r, "%s:%zu: expected %s", s->source, s->lineno, what);
    return FIOR_E_PARSE;
}

static const char *skip_ws(const char *p)
{
    while (*p == ' ' || *p == '\t')
        p++;
    return p;
}

/* The first-byte test keeps most lines away from strncmp: every line meets a dozen of these. */
static int starts(const char *p, const char *word)
{
    return p[0] == word[0] && strncmp(p, word, strlen(word)) == 0;
}

/* "key=" as a token: at the start or after a blank, ',' or '('. Returns the text after '=' (blanks
 * skipped), or NULL. */
static const char *find_key(const char *line, const char *key)
{
    size_t n = strlen(key);
    for (const char *p = strstr(line, key); p; p = strstr(p + 1, key)) {
        if (p[n] != '=')
            continue;
        if (p != line && !strchr(" \t,(", p[-1]))
            continue;
        return skip_ws(p + n + 1);
    }
    return NULL;
}

/* "(nsec)" / "(usec)" / "(msec)" right after `p` (blanks allowed). 0 when not one of them. */
static uint64_t unit_at(const char *p)
{
    p = skip_ws(p);
    if (starts(p, "(nsec)"))
        return 1;
    if (starts(p, "(usec)"))
        return 1000;
    if (starts(p, "(msec)"))
        return 1000000;
    if (starts(p, "(sec)") || starts(p, "(s)"))  /* not printed by fio 3.x; accepted for hand edits */
        return 1000000000;
    return 0;
}

/* num2str's SI suffixes (base 1000) */
static double suffix_mult(const char **p)
{
    static const char sfx[] = "kMGTPE";
    const char *c = strchr(sfx, **p);
    if (**p && c) {
        (*p)++;
        return pow(1000.0, (double)(c - sfx + 1));
    }
    return 1.0;
}

static int parse_scaled(const char *p, double unit, double *out)
{
    double v;
    if (!p || fior__parse_dec(&p, &v))
        return -1;
    v *= suffix_mult(&p) * unit;
    if (!isfinite(v) || v > 1.8e19)
        return -1;
    *out = v;
    return 0;
}

static fior_status finish_pct(nstate *s)
{
    if (!s->pct_unit)
        return FIOR_OK;
    if (s->pct_target && !s->pct_rows) {
        s->lineno = s->pct_start;
        return bad(s, "percentile rows '|  1.00th=[…]' after 'sync percentiles' (truncated?)");
    }
    if (s->pct_target && s->pct_open)
        return bad(s, "another percentile entry after ',' (percentile list cut short)");
    s->pct_unit = 0;
    return FIOR_OK;
}

/* The job just printed at index idx of the report: its print and figures. */
static void note_print(nstate *s, size_t idx)
{
    nfact *n = &s->nf[idx], c = s->cur;
    c.prints = n->prints + 1;
    c.last_print = s->prints;
    memcpy(c.rt, n->rt, sizeof c.rt);
    if (c.has_rt) {
        memmove(c.rt, c.rt + 1, 2 * sizeof c.rt[0]);
        c.rt[2] = c.rt_ms;
    }
    *n = c;
}

static fior_status finish_job(nstate *s)
{
    fior_status st = finish_pct(s);
    if (st != FIOR_OK || !s->in_job)
        return st;
    s->in_job = 0;
    s->sec = SEC_NONE;
    if (s->job.j.has_sync && s->job.j.samples_known && !s->job.j.samples)
        s->job.j.samples_known = 0; /* sync latencies without a counted sync: not a count to trust */
    fior__job_sort(&s->job);
    /* client/server: fio's sum over the clients repeats their samples; each client is judged on its own.
     * It is fio's sum only in client output (hostname= lines) with fio's pid=0: a real job that happens to
     * be named "All clients" is judged like any other (dropping it could drop the failing job). */
    if (!strcmp(s->job.j.name, "All clients") && s->job.j.pid == 0 && s->nhosts > 0) {
        fior__job_clear(&s->job);
        return FIOR_OK;
    }
    /* a --status-interval normal output repeats every job: the later print of the same process wins */
    fior_job *j = &s->job.j;
    j->run = s->run;
    char *key = NULL;
    s->prints++;
    if (j->pid >= 0) {
        if (!(key = job_key(j))) {
            fior__job_clear(&s->job);
            return nomem(s);
        }
        size_t *at = fior__strmap_find(&s->jidx, key);
        if (at) {
            free(key);
            fior__report_replace(s->r, *at, &s->job);
            note_print(s, *at);
            return FIOR_OK;
        }
    }
    size_t idx = s->r->njobs;
    nfact *nf = fior__grow(s->nf, &s->nfcap, idx, sizeof *nf, 16);
    if (!nf) {
        free(key);
        fior__job_clear(&s->job);
        return nomem(s);
    }
    s->nf = nf;
    memset(&s->nf[idx], 0, sizeof s->nf[idx]);
    if (fior__report_push(s->r, &s->job)) {
        free(key);
        fior__job_clear(&s->job);
        return nomem(s);
    }
    note_print(s, idx);
    if (key && fior__strmap_put(&s->jidx, key, idx))
        return nomem(s);
    return FIOR_OK;
}

static fior_status job_header(nstate *s, const char *line, const char *host, const char *mark)
{
    fior_status st = finish_job(s);
    if (st != FIOR_OK)
        return st;
    fior__jobb *b = &s->job;
    fior__job_clear(b);
    const char *name = skip_ws(line);
    size_t n = (size_t)(mark - name);
    while (n && (name[n - 1] == ' ' || name[n - 1] == '\t'))
        n--;
    if (fior__job_set(&b->j.name, name, n) || fior__job_set(&b->j.source, s->source, strlen(s->source)))
        return nomem(s);
    if (host && fior__job_set(&b->j.host, host, strlen(host)))
        return nomem(s);
    b->j.line = s->lineno;
    const char *p = find_key(mark, "groupid");
    uint64_t v;
    if (!p || fior__parse_u64(&p, &v) || v > 1000000)
        return bad(s, "'groupid=N' in the job header");
    b->j.group = (int)v;
    p = find_key(mark, "err");
    int neg = p && *p == '-';
    if (p && neg)
        p++;
    if (!p || fior__parse_u64(&p, &v) || v > 1000000)
        return bad(s, "'err=N' in the job header");
    b->j.error = neg ? -(int)v : (int)v;
    p = find_key(mark, "pid");
    if (p && !fior__parse_u64(&p, &v) && v < 100000000)
        b->j.pid = (long)v;
    memset(&s->cur, 0, sizeof s->cur);
    p = find_key(mark, "jobs");
    s->cur.jobs = p && !fior__parse_u64(&p, &v) && v < 1000000 ? (int)v : 1;
    s->in_job = 1;
    s->sec = SEC_NONE;
    s->sync_lines = s->issued_lines = 0;
    return FIOR_OK;
}

static fior_status new_run(nstate *s);
static void note_print(nstate *s, size_t idx);
static fior_status fio_says(nstate *s, const char *p, int *mine);

static fior_status desc_line(nstate *s, const char *line, const char *mark)
{
    fior_status st = new_run(s);
    if (st != FIOR_OK)
        return st;
    s->run_fio = 1;
    const char *e = find_key(mark, "ioengine");
    s->fio_seen = 1;
    if (!e)
        return FIOR_OK;
    desc *nd = fior__grow(s->descs, &s->dcap, s->ndescs, sizeof *nd, 16);
    if (!nd)
        return nomem(s);
    s->descs = nd;
    desc *d = &s->descs[s->ndescs];
    memset(d, 0, sizeof *d);
    const char *name = skip_ws(line);
    const char *g = mark + strlen(": (g=");
    uint64_t gv = 0;
    d->group = fior__parse_u64(&g, &gv) || gv > 1000000 ? -1 : (int)gv;
    size_t en = strcspn(e, ", \t");
    d->name = strndup(name, (size_t)(mark - name));
    d->ioengine = strndup(e, en);
    s->ndescs++;
    if (!d->name || !d->ioengine || fior__strmap_put(&s->didx, desc_key(d->name, d->group), s->ndescs - 1))
        return nomem(s);
    return FIOR_OK;
}

/* The "(39.6MiB/2755msec)" of a read/write/trim line (stat.c show_ddir_status: io and runtime): adds the
 * bytes and keeps the longest runtime. */
static void ddir_io(nstate *s, const char *p)
{
    static const struct { const char *pfx; double mult; } u[] = {
        {"KiB", 1024.0}, {"MiB", 1048576.0}, {"GiB", 1073741824.0}, {"TiB", 1099511627776.0},
        {"kB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12}, {"B", 1.0},
    };
    s->cur.has_ddir = 1;
    for (const char *q = strstr(p, ")("); q; q = strstr(q + 1, ")(")) {
        const char *v = q + 2;
        double num, ms;
        if (fior__parse_dec(&v, &num))
            continue;
        size_t k = 0;
        while (k < sizeof u / sizeof u[0] && !starts(v, u[k].pfx))
            k++;
        if (k == sizeof u / sizeof u[0] || v[strlen(u[k].pfx)] != '/')
            continue;
        v += strlen(u[k].pfx) + 1;
        if (fior__parse_dec(&v, &ms) || !starts(v, "msec)"))
            continue;
        double b = num * u[k].mult;
        if (!(b < 1.8e19) || !(ms < 1.8e19))
            return;
        s->cur.bytes += (uint64_t)llround(b);
        s->cur.has_bytes = 1;
        if (!s->cur.has_rt || (uint64_t)ms > s->cur.rt_ms)
            s->cur.rt_ms = (uint64_t)ms;
        s->cur.has_rt = 1;
        return;
    }
}

/* "  write: IOPS=470, BW=1057KiB/s (1082kB/s)(…)" */
static void write_line(nstate *s, const char *p)
{
    double v;
    if (!parse_scaled(find_key(p, "IOPS"), 1, &v))
        s->job.j.write_iops = v;
    const char *b = find_key(p, "BW");
    if (!b || fior__parse_dec(&b, &v))
        return;
    static const struct { const char *pfx; double mult; } u[] = {
        {"KiB/s", 1024.0}, {"MiB/s", 1048576.0}, {"GiB/s", 1073741824.0}, {"TiB/s", 1099511627776.0},
        {"kB/s", 1e3}, {"MB/s", 1e6}, {"GB/s", 1e9}, {"TB/s", 1e12}, {"B/s", 1.0},
    };
    for (size_t i = 0; i < sizeof u / sizeof u[0]; i++)
        if (starts(b, u[i].pfx)) {
            s->job.j.write_bw_bytes = v * u[i].mult;
            return;
        }
}

/* "    sync (usec): min=544, max=136068, avg=1284.51, stdev=2380.34" (min/max may be "328998k") */
static fior_status sync_line(nstate *s, const char *p)
{
    uint64_t unit = unit_at(p + 4);
    if (!unit)
        return bad(s, "a unit '(nsec)', '(usec)' or '(msec)' after 'sync'");
    if (s->sync_lines++) /* a second one would silently replace the first */
        return bad(s, "one 'sync (unit): min=…' line per job");
    double mn, mx, avg, sd;
    if (parse_scaled(find_key(p, "min"), (double)unit, &mn))
        return bad(s, "'min=NUMBER' in the sync line");
    if (parse_scaled(find_key(p, "max"), (double)unit, &mx))
        return bad(s, "'max=NUMBER' in the sync line");
    if (parse_scaled(find_key(p, "avg"), (double)unit, &avg))
        return bad(s, "'avg=NUMBER' in the sync line");
    if (parse_scaled(find_key(p, "stdev"), (double)unit, &sd))
        return bad(s, "'stdev=NUMBER' in the sync line");
    fior_job *j = &s->job.j;
    j->has_sync = 1;
    j->min_ns = (uint64_t)llround(mn);
    j->max_ns = (uint64_t)llround(mx);
    j->mean_ns = avg;
    j->stddev_ns = sd;
    return FIOR_OK;
}

/* Reads n comma-separated counts after "key=" into v; 0 on success. */
static int counts(const char *line, const char *key, uint64_t *v, size_t n)
{
    const char *p = find_key(line, key);
    for (size_t i = 0; i < n; i++) {
        if (!p || fior__parse_u64(&p, &v[i]))
            return -1;
        if (i + 1 < n && *p++ != ',')
            return -1;
    }
    return 0;
}

/* "     issued rwts: total=0,10,0,0 short=9,0,0,0 dropped=0,0,0,0": the number of syncs of the job.
 * fio 3.4 (commit 7f3ecee2) added the 4th total for syncs, but its td_io_queue() counts each sync under
 * total_io_u[io_u->ddir] and total_io_u has only DDIR_RWDIR_SYNC_CNT (4) entries: an fsync (DDIR_SYNC, 3)
 * is counted in the 4th total, an fdatasync (DDIR_DATASYNC, 4) one past its end, in short_io_u[0], the
 * first "short" number (through fio 3.42; later fios count every sync in the 4th total, and short[0] is
 * again only short reads). So for a job without reads, syncs = total[3] + short[0] on every fio from 3.4;
 * with reads, short[0] may be short reads: the count is only known when short[0] is 0. fio before 3.4
 * prints "issued rwt:" with three totals and no sync count at all. sync_file_range (short[1] in 3.4–3.42,
 * mixed with short writes) is not counted: a job with sync latencies and a count of 0 stays unknown. */
static fior_status issued_line(nstate *s, const char *p)
{
    uint64_t tot[4], sh[3];
    if (s->issued_lines++)
        return bad(s, "one 'issued rwts:' line per job");
    if (counts(p, "total", tot, 4) || counts(p, "short", sh, 3))
        return bad(s, "'issued rwts: total=R,W,T,S short=R,W,T,…' counts");
    fior_job *j = &s->job.j;
    /* no fsync/fdatasync counted, but what fio 3.4-3.42 count one further on, in short[1]: sync_file_range
     * (DDIR_SYNC_FILE_RANGE is 5) */
    if (tot[3] == 0 && sh[0] == 0 && sh[1] > 0)
        j->sync_flags |= FIOR_SYNC_RANGE;
    uint64_t n;
    if (tot[0] == 0) {
        if (tot[3] > UINT64_MAX - sh[0])
            return bad(s, "'issued rwts:' counts that fit in 64 bits");
        n = tot[3] + sh[0];
    } else if (sh[0] == 0) {
        n = tot[3];
    } else {
        return FIOR_OK; /* reads with short reads: fdatasyncs and short reads cannot be told apart */
    }
    j->samples_known = 1;
    j->samples = n;
    return FIOR_OK;
}

/* one row "|  1.00th=[  652],  5.00th=[  750], 10.00th=[  816]," */
static fior_status pct_row(nstate *s, const char *p)
{
    p = skip_ws(p + 1);
    s->pct_rows++;
    while (*p) {
        double pc;
        uint64_t v;
        if (fior__parse_dec(&p, &pc) || pc > 100.0)
            return bad(s, "a percentile 'NN.NNth=[VALUE]' in the percentile row");
        if (!starts(p, "th=["))
            return bad(s, "'th=[' after the percentile");
        p = skip_ws(p + 4);
        if (fior__parse_u64(&p, &v))
            return bad(s, "a whole number inside 'th=[…]'");
        p = skip_ws(p);
        if (*p != ']')
            return bad(s, "']' after the percentile value");
        p = skip_ws(p + 1);
        s->pct_open = *p == ',';
        if (*p == ',')
            p = skip_ws(p + 1);
        if (!s->pct_target)
            continue;
        if (v > UINT64_MAX / s->pct_unit)
            return bad(s, "a percentile value that fits in 64-bit nanoseconds");
        if (fior__job_add_pct(&s->job, pc, v * s->pct_unit))
            return nomem(s);
        s->job.j.pct_resolution_ns = s->pct_unit;
    }
    return FIOR_OK;
}

static fior_status one_line(nstate *s)
{
    char *line = s->line;
    size_t n = strlen(line);
    while (n && (line[n - 1] == '\r' || line[n - 1] == '\n'))
        line[--n] = '\0';
    const char *host = NULL;
    /* client/server: "<host> text" */
    if (line[0] == '<') {
        char *e = strstr(line, "> ");
        if (!e && n > 1 && line[n - 1] == '>')
            e = line + n - 1;
        if (e && e > line + 1 && !memchr(line, ' ', (size_t)(e - line))) {
            *e = '\0';
            host = line + 1;
            line = e[1] ? e + 2 : e + 1;
        }
    }
    const char *p = skip_ws(line);

    if (s->pct_unit && *p == '|')
        return pct_row(s, p);
    fior_status st = finish_pct(s);
    if (st != FIOR_OK)
        return st;
    int mine = 0;
    if (starts(p, "fio: ") && ((st = fio_says(s, p, &mine)) != FIOR_OK || mine))
        return st;

    /* job header "NAME: (groupid=…" and job description "NAME: (g=0): rw=…": one search rules out the
     * other lines (most of them) */
    const char *mark = NULL;
    if (strstr(line, ": (g")) {
        if ((mark = strstr(line, ": (groupid=")))
            return job_header(s, line, host, mark);
        if ((mark = strstr(line, ": (g=")) && strstr(mark, "rw="))
            return desc_line(s, line, mark);
    }
    if (starts(p, "fio-") && p[4] >= '0' && p[4] <= '9' && !strpbrk(p, " \t")) {
        fior_status st = new_run(s);
        if (st != FIOR_OK)
            return st;
        free(s->version);
        s->version = strdup(p);
        s->fio_seen = s->run_fio = 1;
        return s->version ? FIOR_OK : nomem(s);
    }
    if (starts(p, "hostname=")) {  /* client: "hostname=vm, be=0, 64-bit, os=Linux, …, fio=fio-3.33" */
        const char *h = p + 9;
        size_t hn = strcspn(h, ", \t");
        if (!s->host1 || strncmp(s->host1, h, hn) || s->host1[hn]) {
            if (!s->host1 && !(s->host1 = strndup(h, hn)))
                return nomem(s);
            s->nhosts++;
        }
        const char *v = find_key(p, "fio");
        if (v) {
            free(s->version);
            if (!(s->version = strndup(v, strcspn(v, ", \t"))))
                return nomem(s);
        }
        s->fio_seen = s->run_fio = 1;
        return FIOR_OK;
    }
    if (starts(p, "Run status group"))
        s->run_summary = 1; /* the run's results, if it has any, are above */
    if (!s->in_job)
        return FIOR_OK;
    if (starts(p, "Run status group") || starts(p, "Disk stats"))
        return finish_job(s);
    if (starts(p, "write:")) {
        s->sec = SEC_WRITE;
        write_line(s, p);
        ddir_io(s, p);
    } else if (starts(p, "read:") || starts(p, "trim:") || starts(p, "mixed:")) {
        s->sec = SEC_OTHER;
        ddir_io(s, p);
    } else if (starts(p, "fsync/fdatasync/sync_file_range")) {
        s->sec = SEC_SYNC;
    } else if (starts(p, "clat (") && s->sec == SEC_WRITE) {
        double avg;
        uint64_t unit = unit_at(p + 4);
        if (unit && !parse_scaled(find_key(p, "avg"), (double)unit, &avg))
            s->job.j.write_clat_mean_ns = avg;
    } else if (starts(p, "cpu") && skip_ws(p + 3)[0] == ':') {
        /* "cpu : usr=0.00%, sys=0.00%, ctx=0, majf=0, minf=0": what fio's parent prints for a job process
         * that died (its rusage is only gathered when it ends) */
        const char *c = find_key(p, "ctx");
        uint64_t ctx;
        double usr, sys;
        const char *u = find_key(p, "usr"), *y = find_key(p, "sys");
        s->cur.cpu_idle = c && !fior__parse_u64(&c, &ctx) && ctx == 0 && u && !fior__parse_dec(&u, &usr) &&
                          usr == 0 && y && !fior__parse_dec(&y, &sys) && sys == 0;
    } else if (starts(p, "sync (")) {
        return sync_line(s, p);
    } else if (starts(p, "issued rwts:")) {
        return issued_line(s, p);
    } else if ((mark = strstr(p, "percentiles (")) && mark[strlen(mark) - 1] == ':') {
        s->pct_unit = unit_at(mark + strlen("percentiles"));
        if (!s->pct_unit)
            return bad(s, "a unit '(nsec)', '(usec)' or '(msec)' after 'percentiles'");
        s->pct_target = starts(p, "sync percentiles");
        if (s->pct_target && s->job.j.npct)
            return bad(s, "one 'sync percentiles' block per job");
        s->pct_rows = 0;
        s->pct_open = 0;
        s->pct_start = s->lineno;
    }
    return FIOR_OK;
}

/* fio's own lines: "fio: terminating on signal N" (backend.c sig_int: fio stops its jobs and prints their
 * figures after it) and "fio: pid=P, got signal=S" (a job process died). Other "fio: …" lines are not ours. */
static fior_status fio_says(nstate *s, const char *p, int *mine)
{
    size_t len;
    char tmp[64];
    size_t n = strlen(p);
    if (n + 1 < sizeof tmp) { /* fior__sigline wants the newline the line had */
        memcpy(tmp, p, n);
        tmp[n] = '\n';
        int sig = fior__sigline(tmp, n + 1, &len);
        if (sig > 0) {
            *mine = 1;
            if (!s->run_sig) {
                s->run_sig = sig;
                s->sig_prints = s->prints;
            }
            return FIOR_OK;
        }
    }
    long pid;
    int sig, end = 0;
    /* the whole line: a job may be named "fio: pid=1, got signal=9" (its header goes on after the name) */
    if (sscanf(p, "fio: pid=%ld, got signal=%d%n", &pid, &sig, &end) == 2 && sig > 0 && !p[end]) {
        *mine = 1;
        nsig *d = fior__grow(s->died, &s->diedcap, s->ndied, sizeof *d, 4);
        if (!d)
            return nomem(s);
        s->died = d;
        s->died[s->ndied++] = (nsig){pid, sig};
    }
    return FIOR_OK;
}

/* The end of each job of the current run (run_end.c): normal output never carries a job's options, so
 * its end is at best inferred; a signal line, a dead job process and an interim last print say more. */
static fior_status run_ends(nstate *s)
{
    int unmatched = 0, usig = 0;
    for (size_t d = 0; d < s->ndied; d++) {
        int hit = 0;
        for (size_t i = s->run_first; i < s->r->njobs; i++)
            hit |= s->r->jobs[i].pid == s->died[d].pid;
        if (!hit) {
            unmatched = 1;
            usig = s->died[d].sig;
        }
    }
    for (size_t i = s->run_first; i < s->r->njobs; i++) {
        fior_job *j = &s->r->jobs[i];
        const nfact *n = &s->nf[i];
        fior__endfacts f;
        fior__endfacts_init(&f);
        f.bytes_known = n->has_bytes;
        f.bytes = n->bytes;
        f.runtime_known = n->has_rt;
        f.runtime_ms = n->rt_ms;
        f.syncs = j->samples_known ? j->samples : 0;
        f.ios = f.syncs;
        /* a dead job's print has syncs, no read/write line and an idle cpu line */
        f.died = j->has_sync && !n->has_ddir && n->cpu_idle;
        for (size_t d = 0; d < s->ndied; d++)
            if (j->pid == s->died[d].pid) {
                f.died = 2;
                f.died_signal = s->died[d].sig;
            }
        if (unmatched && f.died != 2) { /* which job a "got signal" pid was is not in the output */
            f.died = 2;
            f.died_signal = usig;
        }
        f.signal = s->run_sig;
        f.after_signal = s->run_sig && n->last_print > s->sig_prints;
        f.docs = n->prints;
        if (n->prints >= 2 && n->rt[2] > n->rt[1])
            f.gap_ms = n->rt[2] - n->rt[1];
        if (n->prints >= 3 && n->rt[1] > n->rt[0])
            f.interval_ms = n->rt[1] - n->rt[0];
        if (fior__job_end(j, &f))
            return nomem(s);
        j->end_signal = s->run_sig;
        j->io_bytes = n->has_bytes ? n->bytes : 0;
        j->runtime_ms = n->has_rt ? n->rt_ms : 0;
    }
    return FIOR_OK;
}

/* Fills the per-input facts (version, host, ioengine) into the jobs read. */
static fior_status finish_input(nstate *s)
{
    fior_status st = run_ends(s);
    if (st != FIOR_OK)
        return st;
    for (size_t i = 0; i < s->r->njobs; i++) {
        fior_job *j = &s->r->jobs[i];
        if (!j->fio_version && s->version && fior__job_set(&j->fio_version, s->version, strlen(s->version)))
            return nomem(s);
        if (!j->host && s->nhosts == 1 && fior__job_set(&j->host, s->host1, strlen(s->host1)))
            return nomem(s);
        char *key = j->ioengine ? NULL : desc_key(j->name, j->group);
        size_t *d = key ? fior__strmap_find(&s->didx, key) : NULL;
        free(key);
        if (d && fior__job_set(&j->ioengine, s->descs[*d].ioengine, strlen(s->descs[*d].ioengine)))
            return nomem(s);
    }
    return FIOR_OK;
}

static void descs_free(nstate *s)
{
    for (size_t d = 0; d < s->ndescs; d++) {
        free(s->descs[d].name);
        free(s->descs[d].ioengine);
    }
    s->ndescs = 0;
    fior__strmap_free(&s->didx);
    memset(&s->didx, 0, sizeof s->didx);
}

/* Job descriptions or fio's version banner after job results: another fio run's output starts (files
 * concatenated). The finished run's jobs get its version and engines now, and the same job name and pid
 * in the new run is a new job to judge, not a later status print of the old one. */
static fior_status new_run(nstate *s)
{
    fior_status st = finish_job(s);
    if (st != FIOR_OK)
        return st;
    if (s->r->njobs == s->run_first) /* a run whose summary came without a job result was cut short */
        return s->run_summary ? bad(s, "a job result 'NAME: (groupid=G, …' in the fio run that ends before "
                                       "this line (it was cut short: its summary has no job)")
                              : FIOR_OK;
    if ((st = finish_input(s)) != FIOR_OK)
        return st;
    fior__strmap_free(&s->jidx);
    memset(&s->jidx, 0, sizeof s->jidx);
    descs_free(s);
    free(s->version);
    s->version = NULL;
    s->run++;
    s->run_first = s->r->njobs;
    s->run_fio = s->run_summary = 0;
    s->prints = 0;
    s->run_sig = 0;
    s->ndied = 0;
    return FIOR_OK;
}

fior_status fior__parse_normal(fior_report *r, const char *source, const char *buf, size_t len)
{
    nstate s;
    memset(&s, 0, sizeof s);
    s.r = r;
    s.source = source;
    fior__job_init(&s.job);
    fior_status st = FIOR_OK;
    size_t i = 0;
    while (st == FIOR_OK && i < len) {
        const char *nl = memchr(buf + i, '\n', len - i);
        size_t n = nl ? (size_t)(nl - (buf + i)) : len - i;
        if (n + 1 > s.linecap) {
            char *nb = realloc(s.line, n + 1);
            if (!nb) {
                st = nomem(&s);
                break;
            }
            s.line = nb;
            s.linecap = n + 1;
        }
        memcpy(s.line, buf + i, n);
        s.line[n] = '\0';  /* a NUL inside the line ends it early: such bytes are never fio's */
        s.lineno++;
        st = one_line(&s);
        i += n + 1;
    }
    if (st == FIOR_OK) {
        s.lineno++;
        st = finish_job(&s);
    }
    if (st == FIOR_OK && !r->njobs)
        st = bad(&s, s.fio_seen ? "a job result 'NAME: (groupid=G, jobs=J): err= E: …' (output cut short?)"
                                : "fio output: no job result 'NAME: (groupid=G, …' found");
    else if (st == FIOR_OK && r->njobs == s.run_first && s.run_fio) /* the last run started, no result */
        st = bad(&s, "a job result 'NAME: (groupid=G, jobs=J): err= E: …' in the last fio run (output cut short?)");
    if (st == FIOR_OK)
        st = finish_input(&s);
    fior__job_clear(&s.job);
    descs_free(&s);
    free(s.descs);
    fior__strmap_free(&s.jidx);
    free(s.line);
    free(s.version);
    free(s.host1);
    free(s.nf);
    free(s.died);
    return st;
}
