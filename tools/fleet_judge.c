/* SPDX-License-Identifier: MIT */
/* fleet_judge.c — the judge step of `etcd-fio fleet`, pure (tests/cli/test_fleet.c): the library judges every
 * job of fio's client_stats; each job is given to its host by host name and port; a host keeps one job per
 * role (the worse one, should a server report two); a host with no WAL job is unknown with the server's own
 * message; an interrupted run, or a server that went away mid-run, leaves its hosts unknown (never a PASS
 * from a shortened run). Hosts are listed worst first. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "fioreport_cli.h"
#include "fleet.h"

static double ratio(const result_job *j)
{
    uint64_t v = j->p99_ns != RESULT_UNKNOWN ? j->p99_ns : j->judged_ns;
    return v != RESULT_UNKNOWN && j->threshold_ns && j->threshold_ns != RESULT_UNKNOWN ? (double)v / (double)j->threshold_ns
                                                                                : 0.0;
}

/* "no results; <server> said: fio: ..." from the servers' "<name> fio: ..." lines in the run's output */
static void explain_missing(const fleet_host *fh, const char *raw, char *msg, size_t len)
{
    if (!raw || !fh->server_name[0])
        return;
    char prefix[160];
    int plen = snprintf(prefix, sizeof prefix, "<%s> ", fh->server_name);
    for (const char *p = raw; *p;) {
        const char *nl = strchr(p, '\n'), *line = p;
        p = nl ? nl + 1 : p + strlen(p);
        if (!strncmp(line, prefix, (size_t)plen) && strstr(line + plen, "fio:")) {
            char said[352];
            fleet_printable(said, sizeof said, line + plen, strcspn(line + plen, "\r\n"));
            cli_msg(msg, len, "no results from the run; %.100s said: %s", fh->server_name, said);
            return;
        }
    }
}

static int host_cmp(const void *a, const void *b)
{
    const result_host *x = a, *y = b;
    int rx = result_rank(x->verdict), ry = result_rank(y->verdict);
    if (rx != ry)
        return rx - ry;
    double bx = 0, by = 0; /* within one verdict: the host closest to (or furthest over) its limit first */
    for (size_t i = 0; i < x->njobs; i++)
        bx = ratio(&x->jobs[i]) > bx ? ratio(&x->jobs[i]) : bx;
    for (size_t i = 0; i < y->njobs; i++)
        by = ratio(&y->jobs[i]) > by ? ratio(&y->jobs[i]) : by;
    if (bx != by)
        return bx < by ? 1 : -1;
    int c = strcmp(x->host, y->host);
    return c ? c : x->port - y->port;
}

/* The library judged fio's p99 (or a remote check did: fleet --ssh), a point estimate. A verdict needs the
 * confidence bound on the p99 clear of the threshold too (one look at the end of the run, so the nominal
 * two-sided bound): the library's bound rule, fior__bound_decide, for each job; the host's verdict and basis
 * from its jobs. */
void fleet_apply_bound(const fleet *f, result_host *h)
{
    int decided = 0, straddles = 0, contradicts = 0;
    char why[sizeof h->reason] = "";
    for (size_t s = 0; s < h->njobs; s++) {
        result_job *j = &h->jobs[s];
        if (j->verdict != FIOR_PASS && j->verdict != FIOR_FAIL)
            continue;
        fior_basis b;
        char line[sizeof j->reason];
        fior_verdict v = fior__bound_decide(j->verdict, j->judged_ns, j->bound_lo_ns, j->bound_hi_ns, j->threshold_ns,
                                           j->samples, f->confidence, f->accept_point, &b, line, sizeof line);
        if (b == FIOR_BASIS_BOUND) {
            decided = 1;
            continue;
        }
        straddles = 1;
        contradicts |= b == FIOR_BASIS_NONE;
        cli_msg(j->reason, sizeof j->reason, "%s", line);
        if (!why[0])
            cli_msg(why, sizeof why, "%s: %s", j->role == FIOR_ROLE_BACKEND ? "backend" : "WAL", j->reason);
        j->verdict = v;
    }
    h->verdict = result_jobs_verdict(h);
    h->basis = !straddles ? (decided ? RESULT_BASIS_BOUND : RESULT_BASIS_VALUE)
               : h->verdict == FIOR_FAIL && decided && !f->accept_point ? RESULT_BASIS_BOUND
               : contradicts && h->verdict == FIOR_UNKNOWN ? RESULT_BASIS_NONE
               : f->accept_point ? RESULT_BASIS_POINT : RESULT_BASIS_UNDECIDED;
    if (why[0] && h->verdict == FIOR_UNKNOWN)
        cli_msg(h->reason, sizeof h->reason, "%s", why);
}

/* a is worse than b: a lower verdict rank, or the same verdict nearer to (or further over) its limit */
static int job_worse(const result_job *a, const result_job *b)
{
    return result_rank(a->verdict) < result_rank(b->verdict) || (a->verdict == b->verdict && ratio(a) > ratio(b));
}

/* The host's identity in the report: name, port, directory (its own or the fleet's), what its server said
 * of itself. */
static void host_identity(const fleet *f, const fleet_host *fh, result_host *h)
{
    cli_msg(h->host, sizeof h->host, "%s", fh->name);
    h->port = fh->port;
    cli_msg(h->dir, sizeof h->dir, "%s", fh->dir[0] ? fh->dir : f->dir);
    cli_msg(h->server_hostname, sizeof h->server_hostname, "%s", fh->server_name);
    cli_msg(h->fio_version, sizeof h->fio_version, "%s", fh->fio_version);
}

/* The judged jobs of fio's client_stats that ran on this host (by host name and port), one per role, each
 * with the library's bound on its judged percentile. */
static void host_jobs(const fleet *f, const fior_report *rep, const fior_result *res, const fior_criteria *c,
                      const fleet_host *fh, result_host *h)
{
    for (size_t k = 0; res && k < fior_report_njobs(rep); k++) {
        const fior_job *j = fior_report_job(rep, k);
        const fior_judgement *jd = fior_result_job(res, k);
        /* fio's aggregate carries the last client's host and port; it is not a host */
        if (j->name && !strcmp(j->name, "All clients"))
            continue;
        if (!j->host || strcmp(j->host, fh->name) || j->port != fh->port || jd->verdict == FIOR_NOT_JUDGED)
            continue;
        result_job tmp;
        result_job_init(&tmp);
        result_job *slot = NULL;
        for (size_t s = 0; s < h->njobs; s++)
            if (h->jobs[s].role == j->role)
                slot = &h->jobs[s];
        result_job *o = slot ? &tmp : result_add_job(h);
        if (!o)
            continue;
        result_job_fill(o, j, jd);
        fior_look *lk = NULL; /* the library's one-look bound on the job's judged percentile */
        if (j->nbins && fior_look_bins(j->bins, j->nbins, c, j->role, f->confidence, 0, &lk) == FIOR_OK) {
            o->bound_lo_ns = lk->lo_ns;
            o->bound_hi_ns = lk->hi_ns == UINT64_MAX ? RESULT_UNKNOWN : lk->hi_ns;
        }
        fior_look_free(lk);
        /* two jobs of one role on a host (not what the profile makes): keep the worse one */
        if (slot && job_worse(o, slot))
            *slot = *o;
    }
}

/* The host's status and verdict from its jobs: unknown after an interrupted run (never a PASS from a
 * shortened run) or without a WAL job (with the server's own message); otherwise judged, with the reason
 * of the job that decided it, and the bound rule applied. */
static void host_verdict(const fleet *f, const fleet_host *fh, const char *raw, int interrupted, const char *why,
                         result_host *h)
{
    int has_wal = 0;
    for (size_t s = 0; s < h->njobs; s++)
        has_wal |= h->jobs[s].role == FIOR_ROLE_WAL;
    if (interrupted) {
        cli_msg(h->status, sizeof h->status, "interrupted");
        cli_msg(h->reason, sizeof h->reason, "%s; a shortened run is not judged", why && *why ? why : "interrupted");
        for (size_t s = 0; s < h->njobs; s++)
            h->jobs[s].verdict = FIOR_UNKNOWN;
        return;
    }
    if (!has_wal) {
        cli_msg(h->status, sizeof h->status, "no-results");
        cli_msg(h->reason, sizeof h->reason, "no WAL job results from this host");
        explain_missing(fh, raw, h->reason, sizeof h->reason);
        return;
    }
    cli_msg(h->status, sizeof h->status, "judged");
    /* the reason of the job that decided the host's verdict */
    const result_job *dec = NULL;
    for (size_t s = 0; s < h->njobs; s++) {
        const result_job *j = &h->jobs[s];
        if (!dec || job_worse(j, dec))
            dec = j;
    }
    cli_msg(h->reason, sizeof h->reason, "%s: %s", dec->role == FIOR_ROLE_BACKEND ? "backend" : "WAL", dec->reason);
    fleet_apply_bound(f, h);
}

/* The run's verdict and basis are the worst host's; its reason counts the hosts per verdict. */
static void run_summary(result_run *r, int interrupted, const char *why)
{
    result_finish(r);
    r->basis = RESULT_BASIS_NONE; /* the worst host's */
    for (size_t i = 0; i < r->nhosts; i++)
        if (r->hosts[i].verdict == r->verdict) {
            r->basis = r->hosts[i].basis;
            break;
        }
    size_t n[4] = {0, 0, 0, 0};
    for (size_t i = 0; i < r->nhosts; i++)
        n[result_rank(r->hosts[i].verdict)]++;
    cli_msg(r->reason, sizeof r->reason, "%zu hosts: %zu fail, %zu unknown, %zu pass%s%s", r->nhosts, n[0],
            n[1] + n[2], n[3], interrupted ? "; " : "", interrupted ? (why && *why ? why : "interrupted") : "");
}

void fleet_judge(const fleet *f, const fior_report *rep, const char *raw, const fior_criteria *c, int interrupted,
                 const char *why, result_run *r)
{
    fior_result *res = rep ? fior_judge(rep, c) : NULL;
    for (size_t i = 0; i < f->n; i++) {
        const fleet_host *fh = &f->h[i];
        result_host *h = result_add_host(r);
        if (!h)
            break;
        host_identity(f, fh, h);
        if (fh->st != HS_OK) {
            cli_msg(h->status, sizeof h->status, "%s", fleet_status_name(fh->st));
            cli_msg(h->reason, sizeof h->reason, "%s", fh->msg);
            continue;
        }
        host_jobs(f, rep, res, c, fh, h);
        host_verdict(f, fh, raw, interrupted, why, h);
    }
    fior_result_free(res);
    qsort(r->hosts, r->nhosts, sizeof *r->hosts, host_cmp);
    run_summary(r, interrupted, why);
}
