/* SPDX-License-Identifier: MIT */
/* normal_end.c — what fio's normal output says of each job's end (run_end.c): it never carries a job's
 * options, so its end is at best inferred; fio's "fio: terminating on signal N" line (backend.c sig_int:
 * the figures printed after it are of a stopped run), its "fio: pid=P, got signal=S" line (a job process
 * died), the print of a dead job (syncs, no read/write line, an idle cpu line) and an interim last print of
 * a --status-interval stream (its runtime one interval after the print before) say more. */
#include <math.h>
#include <stdlib.h>

#include "normal_doc.h"

/* The job just printed at index idx of the report: its print and figures. */
void fior__nnote_print(nstate *s, size_t idx)
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

/* The "(39.6MiB/2755msec)" of a read/write/trim line (stat.c show_ddir_status: io and runtime): adds the
 * bytes and keeps the longest runtime. */
void fior__nddir_io(nstate *s, const char *p, int write)
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
        if (write) {
            s->cur.wbytes = (uint64_t)llround(b);
            s->cur.wquant = (uint64_t)u[k].mult;
            s->cur.has_wbytes = 1;
        }
        if (!s->cur.has_rt || (uint64_t)ms > s->cur.rt_ms)
            s->cur.rt_ms = (uint64_t)ms;
        s->cur.has_rt = 1;
        return;
    }
}

/* "cpu : usr=0.00%, sys=0.00%, ctx=0, majf=0, minf=0": what fio's parent prints for a job process that
 * died (its rusage is only gathered when it ends) */
void fior__ncpu_line(nstate *s, const char *p)
{
    const char *c = find_key(p, "ctx");
    uint64_t ctx;
    double usr, sys;
    const char *u = find_key(p, "usr"), *y = find_key(p, "sys");
    s->cur.has_cpu = 1;
    s->cur.cpu_idle = c && !fior__parse_u64(&c, &ctx) && ctx == 0 && u && !fior__parse_dec(&u, &usr) &&
                      usr == 0 && y && !fior__parse_dec(&y, &sys) && sys == 0;
}

/* fio's own lines: "fio: terminating on signal N" (backend.c sig_int: fio stops its jobs and prints their
 * figures after it) and "fio: pid=P, got signal=S" (a job process died). Other "fio: …" lines are not ours. */
fior_status fior__nfio_says(nstate *s, const char *p, int *mine)
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
    int sig, end = 0, err;
    /* td_verror (backend.c/…): "fio: pid=6438, err=22/file:filesetup.c:805, func=open(/dev/null),
     * error=Invalid argument" — a job that fails before its I/O prints no result at all: kept to name it */
    if (sscanf(p, "fio: pid=%ld, err=%d/%n", &pid, &err, &end) == 2 && err != 0 && end > 0) {
        free(s->err_line);
        if (!(s->err_line = strdup(p + 5)))
            return nomem(s);
        s->err_lineno = s->lineno;
        return FIOR_OK; /* not *mine: a job's name could start so too */
    }
    if ((sig = fior__got_signal_line(p, &pid))) {
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
fior_status fior__nrun_ends(nstate *s)
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
    /* the run started more job processes than its results cover, and no 'Run status group' line ends it:
     * the output was cut before the other jobs' figures (fio prints each job's once it has ended) */
    uint64_t covered = 0;
    for (size_t i = s->run_first; i < s->r->njobs; i++)
        covered += s->nf[i].jobs_j ? s->nf[i].jobs_j : 1;
    int missing = !s->run_summary && s->nhosts <= 1 && s->run_started > covered;
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
        /* a dead job's print has syncs and no read/write line (stat.c show_ddir_status prints none while the
         * direction's runtime is 0, and only a job that died in its I/O loop leaves it 0: json_job.c), beside
         * an idle cpu line, or a cpu line (a whole print, not a pasted excerpt) and reads/writes that its
         * "issued rwts:" line counts */
        int noddir = j->has_sync && !n->has_ddir;
        f.died = noddir && n->cpu_idle                     ? FIOR__DIED_NO_BYTES
               : noddir && n->has_cpu && n->issued_rw ? FIOR__DIED_ZERO_RUNTIME : FIOR__DIED_NO;
        f.ios = n->issued_rw ? n->issued_rw : f.ios;
        /* writes fio counted as issued (live, in the shared statistics) whose bytes are not in the job's
         * figures (a job process's bytes are added when it ends): with group_reporting, a job of the group
         * that died leaves its syncs and its count, not its bytes. The write line's size may be short by one
         * unit of its last integer digit (lib/num2str.c drops the carry: 21.998 MiB prints as "21.0MiB"). */
        uint64_t bs = 0;
        for (size_t d = 0; d < s->ndescs && !bs; d++)
            if (s->descs[d].name && j->name && !strcmp(s->descs[d].name, j->name) && s->descs[d].group == j->group)
                bs = s->descs[d].bs_w;
        if (!f.died && bs && n->has_wbytes && n->issued_w > n->short_w &&
            (double)n->wbytes + (double)n->wquant + (double)bs * FIOR__INFLIGHT <
                0.99 * (double)(n->issued_w - n->short_w) * (double)bs) {
            f.died = FIOR__DIED_WRITES_UNCOUNTED;
            f.ios = n->issued_w;
            f.bytes = (uint64_t)((double)(n->issued_w - n->short_w) * (double)bs);
        }
        for (size_t d = 0; d < s->ndied; d++)
            if (j->pid == s->died[d].pid) {
                f.died = FIOR__DIED_GOT_SIGNAL;
                f.died_signal = s->died[d].sig;
            }
        if (s->host_lost && !f.died)
            f.died = FIOR__DIED_HOST_LOST;
        if (unmatched && f.died != FIOR__DIED_GOT_SIGNAL) { /* which job a "got signal" pid was is not in the output */
            f.died = FIOR__DIED_GOT_SIGNAL;
            f.died_signal = usig;
        }
        f.cut_inside = i + 1 == s->r->njobs && n->has_ddir && !n->has_cpu && !n->has_issued;
        f.jobs_missing = missing ? s->run_started - covered : 0;
        f.jobs_started = s->run_started;
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

