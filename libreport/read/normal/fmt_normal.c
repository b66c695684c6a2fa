/* SPDX-License-Identifier: MIT */
/* fmt_normal.c — reads fio's human ("normal") output, any fio 3.x, including client/server output whose
 * lines carry a "<host> " prefix. Everything is found by keyword tokens, never by column: fio pads values
 * to the widest number of a block and its percentile rows hold as many entries as fit in 80 columns.
 * Formats follow fio's stat.c: show_thread_status_normal (job header, `issued rwts:`), display_lat (the
 * `sync (unit):` line, min/max through num2str with k/M/G suffixes) and show_clat_percentiles
 * (`|  1.00th=[  652],`). The sync count is not printed as such: see fior__nissued_line(). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "normal_doc.h"

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

static fior_status run_reset(nstate *s);

/* A later print of the same job (name, group, pid) replaces the earlier one only when it provably
 * continues it: both say when they were printed and how long the job had run (its run started at the same
 * second, give or take the header's and the runtime's rounding), and no count falls (syncs, issued I/O,
 * runtime). Anything else is another run: two container runs pasted without fio's banner have the same
 * job name and pid (pid namespaces), and a `Run status` block between prints is no proof either way
 * (--status-interval prints one after every print). */
static int continues(const nstate *s, size_t at)
{
    const nfact *o = &s->nf[at], *n = &s->cur;
    const fior_job *oj = &s->r->jobs[at], *nj = &s->job.j;
    if (!o->has_hdr_s || !n->has_hdr_s || n->hdr_s < o->hdr_s)
        return 0;
    if (n->has_rt) { /* the run's start: the print's time less the runtime */
        int64_t so = o->hdr_s * 1000 - (int64_t)o->rt_ms, sn = n->hdr_s * 1000 - (int64_t)n->rt_ms;
        if (!o->has_rt || n->rt_ms < o->rt_ms || (sn > so ? sn - so : so - sn) > 2000)
            return 0;
    } else if (!n->has_issued || !o->has_issued) {
        return 0; /* a job killed in its I/O prints no read/write line: then its issued count must grow */
    }
    if (o->has_issued && n->has_issued && n->issued_rw < o->issued_rw)
        return 0;
    return !(oj->samples_known && nj->samples_known && nj->samples < oj->samples);
}

static fior_status finish_job(nstate *s)
{
    fior_status st = fior__nfinish_pct(s);
    if (st != FIOR_OK || !s->in_job)
        return st;
    s->in_job = 0;
    s->sec = SEC_NONE;
    if (s->job.j.has_sync && s->job.j.samples_known && !s->job.j.samples)
        s->job.j.samples_known = 0; /* sync latencies without a counted sync: not a count to trust */
    /* syncs that show (fio's sync heading, a sync percentile table, a sync count) but no latency to judge
     * (gtod_reduce=1, disable_clat=1, a print cut short): the job asked for syncs, never "no sync" */
    if (!s->job.j.has_sync && (s->sync_shown || (s->job.j.samples_known && s->job.j.samples > 0)))
        s->job.j.sync_requested = 1;
    fior__job_sort(&s->job);
    /* client/server: fio's sum over the clients repeats their samples; each client is judged on its own.
     * It is fio's sum only in client output (hostname= lines) with fio's pid=0: a real job that happens to
     * be named "All clients" is judged like any other (dropping it could drop the failing job). */
    if (!strcmp(s->job.j.name, "All clients") && s->job.j.pid == 0 && s->nhosts > 0) {
        fior__job_clear(&s->job);
        return FIOR_OK;
    }
    /* a --status-interval normal output repeats every job: the later print of the same process wins when
     * it continues the earlier one; else a new run starts here */
    fior_job *j = &s->job.j;
    char *key = NULL;
    if (j->pid >= 0) {
        if (!(key = job_key(j))) {
            fior__job_clear(&s->job);
            return nomem(s);
        }
        size_t *at = fior__strmap_find(&s->jidx, key);
        if (at && continues(s, *at)) {
            free(key);
            j->run = s->run;
            s->prints++;
            fior__report_replace(s->r, *at, &s->job);
            fior__nnote_print(s, *at);
            return FIOR_OK;
        }
        fior_status st2 = at ? run_reset(s) : FIOR_OK;
        if (st2 != FIOR_OK) {
            free(key);
            fior__job_clear(&s->job);
            return st2;
        }
    }
    j->run = s->run;
    s->prints++;
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
    fior__nnote_print(s, idx);
    if (key && fior__strmap_put(&s->jidx, key, idx))
        return nomem(s);
    return FIOR_OK;
}

/* The time after "pid=P:" in a job header, as ctime() prints it (stat.c show_thread_status_normal: the
 * time of the print): " Wed Dec  2 12:55:26 2026". Seconds since an arbitrary epoch; 0 on success. */
static int header_time(const char *p, int64_t *out)
{
    static const char months[] = "JanFebMarAprMayJunJulAugSepOctNovDec";
    char mon[4];
    int day, hh, mm, ss, year, m = -1;
    if (sscanf(p, " %*3s %3s %d %d:%d:%d %d", mon, &day, &hh, &mm, &ss, &year) != 6)
        return -1;
    for (int i = 0; i < 12; i++)
        if (!memcmp(mon, months + 3 * i, 3))
            m = i;
    if (m < 0 || day < 1 || day > 31 || hh > 23 || mm > 59 || ss > 60 || year < 1970 || year > 9999)
        return -1;
    /* days from civil (H. Hinnant's algorithm), March-based years */
    int y = year - (m < 2), mp = (m + 9) % 12;
    int64_t era = y / 400, yoe = y - era * 400, doy = (153 * mp + 2) / 5 + day - 1;
    int64_t days = era * 146097 + yoe * 365 + yoe / 4 - yoe / 100 + doy;
    *out = ((days * 24 + hh) * 60 + mm) * 60 + ss;
    return 0;
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
    /* "err=25 (file:ioengines.c:399, func=td_io_queue, error=Inappropriate ioctl for device): pid=…"
     * (stat.c show_thread_status_normal: td_verror's text and function) */
    const char *et = b->j.error ? strstr(mark, ", error=") : NULL, *fn = et ? strstr(mark, "func=") : NULL;
    if (et) {
        et += 8;
        const char *ee = strstr(et, "): ");
        size_t en = ee ? (size_t)(ee - et) : strcspn(et, ")");
        size_t fl = fn && fn < et ? strcspn(fn + 5, ",)") : 0;
        char *txt = NULL;
        if (asprintf(&txt, fl ? "%.*s (%.*s)" : "%.*s", (int)en, et, (int)fl, fl ? fn + 5 : "") < 0)
            return nomem(s);
        b->j.error_text = txt;
    }
    p = find_key(mark, "pid");
    memset(&s->cur, 0, sizeof s->cur);
    if (p && !fior__parse_u64(&p, &v) && v < 100000000) {
        b->j.pid = (long)v;
        if (*p == ':')
            s->cur.has_hdr_s = !header_time(p + 1, &s->cur.hdr_s);
    }
    p = find_key(mark, "jobs");
    if (p && !fior__parse_u64(&p, &v) && v < 100000000)
        s->cur.jobs_j = v;
    s->in_job = 1;
    s->sec = SEC_NONE;
    s->sync_lines = s->issued_lines = 0;
    s->sync_shown = 0;
    return FIOR_OK;
}

static fior_status new_run(nstate *s);

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
    const char *w = strstr(mark, "(W) ");
    uint64_t lo = 0, hi = 0;
    if (w && (w += 4) && !fior__parse_u64(&w, &lo) && *w == 'B' && w[1] == '-' && (w += 2) &&
        !fior__parse_u64(&w, &hi) && *w == 'B' && lo == hi)
        d->bs_w = lo;
    d->name = strndup(name, (size_t)(mark - name));
    d->ioengine = strndup(e, en);
    s->ndescs++;
    if (!d->name || !d->ioengine || fior__strmap_put(&s->didx, desc_key(d->name, d->group), s->ndescs - 1))
        return nomem(s);
    return FIOR_OK;
}

/* The engine's lines (engine/etcdwal_stats.c, etcdwal_medium.c): "etcdwal: NAME: pid=P: backend N commits, …"
 * names a job that ran in etcd_mode=backend, "etcdwal: NAME: pid=P: medium disk: …" / "medium not a disk: …"
 * what its directory is on. fio's normal output has no job options, so these lines (in `2>&1` output) are
 * the only sign that the job commits like bbolt and where its syncs went; finish_input gives them to the job
 * of this run with that name and pid (fio's job header "pid=P") that ran the etcd-fio engine. An older
 * engine's backend line has no pid: it names a job only when the run has one engine job of that name. */
static fior_status engine_line(nstate *s, const char *p)
{
    const char *m = strstr(p, ": backend "), *med = strstr(p, ": medium ");
    int is_med = med && (!m || med < m);
    if (is_med)
        m = med;
    if (!m || m == p)
        return FIOR_OK;
    const char *d = m + (is_med ? 9 : 10);
    uint64_t n;
    if (!is_med && (fior__parse_u64(&d, &n) || !starts(d, " commits")))
        return FIOR_OK;
    /* "NAME: pid=P" before it */
    const char *name_end = m, *pid = "-";
    size_t pidn = 1;
    for (const char *q = p; (q = strstr(q, ": pid=")) && q < m; q++) {
        const char *v = q + 6, *e = v;
        while (e < m && *e >= '0' && *e <= '9')
            e++;
        if (e == m && e > v) {
            name_end = q;
            pid = v;
            pidn = (size_t)(e - v);
            break;
        }
    }
    char *k = NULL;
    if (asprintf(&k, "%u\x1f%.*s\x1f%.*s", s->run, (int)(name_end - p), p, (int)pidn, pid) < 0)
        return nomem(s);
    if (!is_med)
        return fior__strmap_put(&s->backend, k, 0) ? nomem(s) : FIOR_OK;
    nmedium *a = fior__grow(s->medium, &s->mediumcap, s->nmedium, sizeof *a, 4);
    if (!a) {
        free(k);
        return nomem(s);
    }
    s->medium = a;
    nmedium *x = &a[s->nmedium];
    x->not_disk = starts(d, "disk:") ? 0 : starts(d, "not a disk:") ? 1 : -1;
    const char *why = x->not_disk == 0 ? d + 5 : x->not_disk == 1 ? d + 11 : d;
    if (!(x->why = strdup(skip_ws(why)))) {
        free(k);
        return nomem(s);
    }
    if (fior__strmap_put(&s->media, k, s->nmedium)) {
        free(x->why);
        return nomem(s);
    }
    s->nmedium++;
    return FIOR_OK;
}

/* A device line of fio's "Disk stats (read/write):" block (stat.c show_disk_util): "NAME: ios=R/W, merge=…".
 * 1 when it was one. */
static int disk_line(nstate *s, const char *p, fior_status *st)
{
    const char *c = strstr(p, ": ios=");
    if (!c || c == p || (size_t)(c - p) >= sizeof s->disks->name || memchr(p, ' ', (size_t)(c - p)))
        return 0;
    const char *v = c + 6, *w;
    uint64_t r, wr;
    if (fior__parse_u64(&v, &r) || *v != '/' || (w = v + 1, fior__parse_u64(&w, &wr)))
        return 0;
    ndisk *a = fior__grow(s->disks, &s->diskcap, s->ndisks, sizeof *a, 4);
    if (!a) {
        *st = nomem(s);
        return 1;
    }
    s->disks = a;
    ndisk *x = &a[s->ndisks++];
    x->run = s->run;
    snprintf(x->name, sizeof x->name, "%.*s", (int)(c - p), p);
    x->write_ios = wr;
    return 1;
}

/* What the engine's lines and the Disk stats say about job j's medium (its pid from its header). */
static fior_status job_medium(nstate *s, fior_job *j)
{
    uint64_t wios = 0;
    const char *name = NULL;
    for (size_t i = 0; i < s->ndisks; i++)
        if (s->disks[i].run == j->run) {
            wios = wios > UINT64_MAX - s->disks[i].write_ios ? UINT64_MAX : wios + s->disks[i].write_ios;
            if (!name || (fior__ram_device(s->disks[i].name) && !fior__ram_device(name)))
                name = s->disks[i].name;
        }
    if (name && fior__job_set(&j->disk_name, name, strlen(name)))
        return nomem(s);
    j->disk_write_ios = wios;
    if (s->nmedium && fior__is_etcd_engine(j->ioengine) && j->pid >= 0) {
        char *k = NULL;
        if (asprintf(&k, "%u\x1f%s\x1f%ld", j->run, j->name, j->pid) < 0)
            return nomem(s);
        size_t *at = fior__strmap_find(&s->media, k);
        free(k);
        if (at && s->medium[*at].not_disk >= 0) {
            j->medium = s->medium[*at].not_disk ? FIOR_MEDIUM_NOT_DISK : FIOR_MEDIUM_DISK;
            if (fior__job_set(&j->medium_reason, s->medium[*at].why, strlen(s->medium[*at].why)))
                return nomem(s);
        }
    }
    size_t in_run = 0;
    for (size_t i = 0; i < s->r->njobs; i++)
        in_run += s->r->jobs[i].run == j->run;
    return fior__medium_settle(j, in_run) ? nomem(s) : FIOR_OK;
}

/* The engine's backend line for job j: by name and pid; a line without a pid (an older engine) by name,
 * when j is the run's only engine job of that name. 1 backend, 0 not, -1 out of memory; *twice: a line
 * without a pid that could be either of two jobs of that name. */
static int job_backend(nstate *s, const fior_job *j, int *twice)
{
    char *k = NULL;
    *twice = 0;
    if (asprintf(&k, "%u\x1f%s\x1f%ld", j->run, j->name, j->pid) < 0)
        return -1;
    int hit = j->pid >= 0 && fior__strmap_find(&s->backend, k) != NULL;
    free(k);
    if (hit)
        return 1;
    if (asprintf(&k, "%u\x1f%s\x1f-", j->run, j->name) < 0)
        return -1;
    hit = fior__strmap_find(&s->backend, k) != NULL;
    free(k);
    if (!hit)
        return 0;
    size_t same = 0;
    for (size_t i = 0; i < s->r->njobs; i++) {
        const fior_job *o = &s->r->jobs[i];
        same += o->run == j->run && !strcmp(o->name, j->name) && fior__is_etcd_engine(o->ioengine);
    }
    *twice = same > 1;
    return same == 1;
}

/* client/server output prefixes each line "<host> text": the host (NULL when none), and *line moved
 * past the prefix (cut in place). */
static const char *strip_host(char **line, size_t n)
{
    char *l = *line;
    if (l[0] != '<')
        return NULL;
    char *e = strstr(l, "> ");
    if (!e && n > 1 && l[n - 1] == '>')
        e = l + n - 1;
    if (!e || e <= l + 1 || memchr(l, ' ', (size_t)(e - l)))
        return NULL;
    *e = '\0';
    *line = e[1] ? e + 2 : e + 1;
    return l + 1;
}

/* "fio-3.33" alone on a line: a run of fio begins. */
static fior_status version_line(nstate *s, const char *p)
{
    fior_status st = new_run(s);
    if (st != FIOR_OK)
        return st;
    free(s->version);
    s->version = strdup(p);
    s->fio_seen = s->run_fio = 1;
    return s->version ? FIOR_OK : nomem(s);
}

/* client: "hostname=vm, be=0, 64-bit, os=Linux, …, fio=fio-3.33" */
static fior_status hostname_line(nstate *s, const char *p)
{
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

/* A line inside a job's block: the section it opens (write, other directions, syncs) and what the
 * judge reads from it. */
static fior_status job_line(nstate *s, const char *p)
{
    const char *mark;
    if (starts(p, "Run status group") || starts(p, "Disk stats"))
        return finish_job(s);
    if (starts(p, "write:")) {
        s->sec = SEC_WRITE;
        fior__nwrite_line(s, p);
        fior__nddir_io(s, p, 1);
    } else if (starts(p, "read:") || starts(p, "trim:") || starts(p, "mixed:")) {
        s->sec = SEC_OTHER;
        fior__nddir_io(s, p, 0);
    } else if (starts(p, "fsync/fdatasync/sync_file_range")) {
        s->sec = SEC_SYNC;
        s->sync_shown = 1;
    } else if (starts(p, "clat (") && s->sec == SEC_WRITE) {
        double avg;
        uint64_t unit = fior__nunit_at(p + 4);
        if (unit && !fior__nparse_scaled(find_key(p, "avg"), (double)unit, &avg))
            s->job.j.write_clat_mean_ns = avg;
    } else if (starts(p, "cpu") && skip_ws(p + 3)[0] == ':') {
        fior__ncpu_line(s, p);
    } else if (starts(p, "sync (")) {
        return fior__nsync_line(s, p);
    } else if (starts(p, "issued rwts:")) {
        return fior__nissued_line(s, p);
    } else if ((mark = strstr(p, "percentiles (")) && mark[strlen(mark) - 1] == ':') {
        s->pct_unit = fior__nunit_at(mark + strlen("percentiles"));
        if (!s->pct_unit)
            return bad(s, "a unit '(nsec)', '(usec)' or '(msec)' after 'percentiles'");
        s->pct_target = starts(p, "sync percentiles");
        s->sync_shown |= s->pct_target;
        if (s->pct_target && s->job.j.npct)
            return bad(s, "one 'sync percentiles' block per job");
        s->pct_rows = 0;
        s->pct_open = 0;
        s->pct_start = s->lineno;
    }
    return FIOR_OK;
}

static fior_status one_line(nstate *s, char *line)
{
    size_t n = strlen(line);
    while (n && (line[n - 1] == '\r' || line[n - 1] == '\n' || line[n - 1] == ' ' || line[n - 1] == '\t'))
        line[--n] = '\0'; /* a terminal copy's trailing blanks too: a percentile row must end in ']' or ',' */
    const char *host = strip_host(&line, n);
    const char *p = skip_ws(line);

    if (s->pct_unit && *p == '|')
        return fior__npct_row(s, p);
    fior_status st = fior__nfinish_pct(s);
    if (st != FIOR_OK)
        return st;
    int mine = 0;
    if (starts(p, "client: host=") && fior__host_lost_line(p)) {
        s->host_lost = 1;
        return FIOR_OK;
    }
    if (starts(p, "fio: ") && ((st = fior__nfio_says(s, p, &mine)) != FIOR_OK || mine))
        return st;
    if (starts(p, "etcdwal: "))
        return engine_line(s, p + 9);
    if (starts(p, "Disk stats (read/write):")) {
        s->in_disk = 1;
    } else if (s->in_disk) {
        if (disk_line(s, p, &st))
            return st;
        s->in_disk = 0;
    }

    /* job header "NAME: (groupid=…" and job description "NAME: (g=0): rw=…": one search rules out the
     * other lines (most of them) */
    const char *mark = NULL;
    if (strstr(line, ": (g")) {
        if ((mark = strstr(line, ": (groupid=")))
            return job_header(s, line, host, mark);
        if ((mark = strstr(line, ": (g=")) && strstr(mark, "rw="))
            return desc_line(s, line, mark);
    }
    if (starts(p, "fio-") && p[4] >= '0' && p[4] <= '9' && !strpbrk(p, " \t"))
        return version_line(s, p);
    if (starts(p, "hostname="))
        return hostname_line(s, p);
    if (starts(p, "Run status group"))
        s->run_summary = 1; /* the run's results, if it has any, are above */
    if (starts(p, "Starting ") && !s->in_job) { /* backend.c: "Starting N process(es)" / "thread(s)" */
        const char *q = p + 9;
        uint64_t v;
        if (!fior__parse_u64(&q, &v) && (starts(q, " process") || starts(q, " thread")))
            s->run_started += v;
    }
    return s->in_job ? job_line(s, p) : FIOR_OK;
}

/* Fills the per-input facts (version, host, ioengine) into the jobs read. */
static fior_status finish_input(nstate *s)
{
    fior_status st = fior__nrun_ends(s);
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
    /* the roles and media once every job has its ioengine (job_backend counts a run's engine jobs) */
    for (size_t i = 0; i < s->r->njobs; i++) {
        fior_job *j = &s->r->jobs[i];
        if (s->backend.n && !j->etcd_mode && fior__is_etcd_engine(j->ioengine)) {
            int twice, hit = job_backend(s, j, &twice);
            if (hit < 0 || (hit && fior__job_set(&j->etcd_mode, "backend", 7)))
                return nomem(s);
            static const char two[] = "two jobs of this name ran the etcd-fio engine and its \"backend\" line "
                "does not say which one committed like bbolt (an engine before pid= in that line): the role "
                "of each is unknown";
            if (twice && !j->defect && fior__job_set(&j->defect, two, sizeof two - 1))
                return nomem(s);
            j->role = fior__job_role(j->ioengine, j->etcd_mode, 0);
        }
        if (job_medium(s, j) != FIOR_OK)
            return FIOR_E_NOMEM;
    }
    return FIOR_OK;
}

/* One line of the input, in its '\r'-separated pieces: fio's eta display ("Jobs: 1 (f=1): […]") ends each
 * update with a '\r' and no newline, so a message fio prints meanwhile ("fio: pid=P, got signal=S", in
 * client output "<host> fio: …") follows it on the same line. A '\r' at the end (CRLF) is no piece. */
static fior_status each_segment(nstate *s)
{
    char *seg = s->line, *cr;
    while ((cr = strchr(seg, '\r')) && cr[1]) {
        *cr = '\0';
        fior_status st = one_line(s, seg);
        if (st != FIOR_OK)
            return st;
        seg = cr + 1;
    }
    return one_line(s, seg);
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
    return run_reset(s);
}

/* The current run's jobs get its version and engines; what follows is another run. */
static fior_status run_reset(nstate *s)
{
    fior_status st = finish_input(s);
    if (st != FIOR_OK)
        return st;
    fior__strmap_free(&s->jidx);
    memset(&s->jidx, 0, sizeof s->jidx);
    free(s->err_line);
    s->err_line = NULL;
    descs_free(s);
    free(s->version);
    s->version = NULL;
    s->run++;
    s->run_first = s->r->njobs;
    s->run_fio = s->run_summary = 0;
    s->run_started = 0;
    s->host_lost = 0;
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
        st = each_segment(&s);
        i += n + 1;
    }
    if (st == FIOR_OK) {
        s.lineno++;
        st = finish_job(&s);
    }
    if (st == FIOR_OK && r->njobs == s.run_first && s.run_fio && s.err_line) { /* fio's error, no result */
        fior__seterr(r, "%s:%zu: fio stopped the job on its error before any result: %s; fix what fio names and run "
                     "it again", source, s.err_lineno, s.err_line);
        st = FIOR_E_PARSE;
    } else if (st == FIOR_OK && !r->njobs)
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
    fior__strmap_free(&s.backend);
    fior__strmap_free(&s.media);
    for (size_t i = 0; i < s.nmedium; i++)
        free(s.medium[i].why);
    free(s.medium);
    free(s.disks);
    free(s.line);
    free(s.version);
    free(s.err_line);
    free(s.host1);
    free(s.nf);
    free(s.died);
    return st;
}
