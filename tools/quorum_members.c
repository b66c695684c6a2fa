/* SPDX-License-Identifier: MIT */
/* quorum_members.c — `etcd-fio capacity --member …`: the same closed-loop load on three fio servers at
 * once (one fio client process with three --client, as fleet runs them, each server with its own copy of
 * capacity's job file), each member's WAL Saves and backend commits read from fio's json+ client_stats, each
 * member judged as capacity judges one disk, and their Save latencies combined by quorum
 * (quorum.c) into the row's writes/s and latencies. A member that gave no results leaves the row
 * unknown with its reason. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "quorum.h"
#include "jw.h"
#include "cli.h"
#include "proc.h"

#define TIME_NET_S   30.0  /* past runtime + this, fio is stopped */
#define STOP_GRACE_S 10.0

int quorum_add_member(struct fleet *f, const char *spec, char *err, size_t errlen)
{
    char host[300];
    const char *eq = strchr(spec, '=');
    size_t hn = eq ? (size_t)(eq - spec) : strlen(spec);
    if (hn >= sizeof host) {
        cli_msg(err, errlen, "--member: too long (expected HOST[,PORT]=DIR)");
        return -1;
    }
    memcpy(host, spec, hn);
    host[hn] = '\0';
    if (eq && !eq[1]) {
        cli_msg(err, errlen, "--member %.300s: empty DIR (expected HOST[,PORT]=DIR)", spec);
        return -1;
    }
    if (f->n >= QUORUM_MEMBERS) {
        cli_msg(err, errlen, "--member %.300s: a cluster here has %d members", spec, QUORUM_MEMBERS);
        return -1;
    }
    return fleet_add_host(f, host, eq ? eq + 1 : NULL, "--member", err, errlen);
}

int quorum_members_ok(const struct fleet *f, const char *dir, char *err, size_t errlen)
{
    if (f->n != QUORUM_MEMBERS) {
        cli_msg(err, errlen, "--member: %zu given, three needed (the first one is the leader)", f->n);
        return -1;
    }
    for (size_t i = 0; i < f->n; i++)
        if (!f->h[i].dir[0] && (!dir || dir[0] != '/')) {
            cli_msg(err, errlen, "--member %s: no =DIR, and the capacity DIR '%s' is not an absolute path on the "
                                 "server", f->h[i].spec, dir ? dir : "");
            return -1;
        }
    return 0;
}

static const char *member_dir(const capacity_opts *o, const fleet_host *h)
{
    return h->dir[0] ? h->dir : o->dir;
}

/* Two loopback members whose directories are on one filesystem of this machine share its disk: their
 * Saves wait for each other, as three etcd members on one disk do. Said beside the row, not refused. */
static void shared_disk_note(const capacity_opts *o, capacity_row *row)
{
    const fleet *f = o->members;
    struct stat st[QUORUM_MEMBERS];
    int ok[QUORUM_MEMBERS], shared[QUORUM_MEMBERS] = {0}, n = 0;
    for (size_t i = 0; i < QUORUM_MEMBERS; i++)
        ok[i] = fleet_is_loopback(f->h[i].name) && stat(member_dir(o, &f->h[i]), &st[i]) == 0;
    for (size_t i = 0; i < QUORUM_MEMBERS; i++)
        for (size_t k = 0; k < QUORUM_MEMBERS; k++)
            if (i != k && ok[i] && ok[k] && st[i].st_dev == st[k].st_dev)
                shared[i] = 1;
    char list[64] = "";
    int total = 0;
    for (int i = 0; i < QUORUM_MEMBERS; i++)
        total += shared[i];
    for (int i = 0; i < QUORUM_MEMBERS; i++)
        if (shared[i]) {
            size_t l = strlen(list);
            snprintf(list + l, sizeof list - l, "%s%d", n ? (n == total - 1 ? " and " : ", ") : "", i + 1);
            n++;
        }
    if (n)
        cli_msg(row->q->note, sizeof row->q->note, "members %s share one filesystem of this machine: their loads "
                "wait for each other", list);
}

static int write_jobs(const capacity_opts *o, const char *tmp, const char *engine, unsigned clients, double seconds,
                      char (*job)[4200], char *err, size_t errlen)
{
    for (size_t i = 0; i < QUORUM_MEMBERS; i++) {
        cli_msg(job[i], sizeof job[i], "%s/member-%zu.fio", tmp, i + 1);
        FILE *jf = fopen(job[i], "wx");
        if (!jf) {
            cli_msg(err, errlen, "%s: %s", job[i], strerror(errno));
            return -1;
        }
        /* no stats file: it would be written on the server; fio's json+ carries what the quorum needs */
        int rc = capacity_job_write(jf, o, member_dir(o, &o->members->h[i]), engine, clients, seconds, NULL, NULL, err,
                               errlen);
        if (fclose(jf) != 0 && !rc) {
            cli_msg(err, errlen, "%s: %s", job[i], strerror(errno));
            rc = -1;
        }
        if (rc)
            return -1;
    }
    return 0;
}

/* One run of the three members, each put at least gap_ns after the one before (0: none). */
static int one_pass(const capacity_opts *o, const fior_criteria *crit, const char *engine, unsigned clients,
                    double seconds, uint64_t gap_ns, capacity_row *row, char *err, size_t errlen)
{
    capacity_row_init(row, clients);
    quorum_row *q = calloc(1, sizeof *q);
    if (!q) {
        cli_msg(err, errlen, "out of memory");
        return -1;
    }
    row->q = q;
    q->o = o;
    q->crit = crit;
    q->decisive = -1;
    for (int i = 0; i < QUORUM_MEMBERS; i++)
        capacity_row_init(&q->m[i], clients);
    char tmp[4096], job[QUORUM_MEMBERS][4200], out[4200];
    if (cli_tmpdir("capacity", tmp, sizeof tmp, err, errlen))
        return -1;
    int rc = -1;
    capacity_opts paced = *o;
    paced.put_gap_ns = gap_ns;
    if (cli_dir_ok(tmp, err, errlen) || write_jobs(&paced, tmp, engine, clients, seconds, job, err, errlen))
        goto out;
    cli_msg(out, sizeof out, "%s/fio.json", tmp);
    char client[QUORUM_MEMBERS][sizeof o->members->h[0].spec + 16];
    const char *argv[4 + 2 * QUORUM_MEMBERS + 1];
    size_t a = 0;
    argv[a++] = cli_fio();
    argv[a++] = "--eta=never";
    argv[a++] = "--output-format=json+";
    for (size_t i = 0; i < QUORUM_MEMBERS; i++) {
        cli_msg(client[i], sizeof client[i], "--client=%s", o->members->h[i].spec);
        argv[a++] = client[i];
        argv[a++] = job[i];
    }
    argv[a] = NULL;
    proc p;
    if (proc_start(&p, argv, (proc_io){PROC_FILE, out}, (proc_io){PROC_TO_STDOUT, NULL}, err, errlen))
        goto out;
    double t0 = proc_now();
    while (!proc_wait(&p, 250))
        if (capacity_interrupted || proc_now() - t0 > seconds + TIME_NET_S)
            proc_stop_step(&p, STOP_GRACE_S);
    row->seconds = proc_now() - t0;
    char how[256];
    proc_describe(&p, how, sizeof how);
    int stopped = p.stop_level;
    proc_release(&p);
    rc = 0;
    if (stopped) {
        cli_msg(row->why, sizeof row->why, "fio was stopped (%s)", capacity_interrupted ? "interrupted" : "overran");
        goto out;
    }
    quorum_read(q, o->members, out);
    quorum_finish(row);
    if (row->ran)
        shared_disk_note(o, row);
out:
    cli_tmpdir_remove(tmp);
    return rc;
}

/* Two runs: a short one at each member's own pace gives the cluster's write rate (the quorum replay), then
 * the row's run with every member paced at that rate — a member of a cluster sees its leader's puts at the
 * cluster's rate, however fast its own disk is (without the pacing, a fast member would run its own
 * closed loop at several times that rate, and its disk would be judged at a load it never sees). */
int quorum_run_row(const capacity_opts *o, const fior_criteria *crit, const char *engine, unsigned clients,
                 double seconds, capacity_row *row, char *err, size_t errlen)
{
    double first = seconds < QUORUM_PACE_S ? seconds : QUORUM_PACE_S;
    if (one_pass(o, crit, engine, clients, first, 0, row, err, errlen))
        return -1;
    if (!row->ran || capacity_interrupted || row->writes_per_s <= 0)
        return 0;
    double rate = row->writes_per_s;
    quorum_row_free(row);
    if (one_pass(o, crit, engine, clients, seconds, (uint64_t)(1e9 / rate), row, err, errlen))
        return -1;
    if (row->q)
        row->q->paced_wps = rate;
    return 0;
}

/* A line of fio's output that says why a member gave nothing: the first naming its host, or fio's own error. */
static void member_said(const fleet_host *h, const char *raw, char *msg, size_t len)
{
    msg[0] = '\0';
    for (const char *l = raw; l && *l;) {
        size_t n = strcspn(l, "\n");
        char line[512];
        fleet_printable(line, sizeof line, l, n);
        if ((strstr(line, h->name) && !strstr(line, "\"hostname\"")) || !strncmp(line, "fio: ", 5)) {
            cli_msg(msg, len, "%s", line);
            return;
        }
        l += n + (l[n] == '\n');
    }
}

static int copy_bins(const fior_job *j, fior_bin **out, size_t *n)
{
    *out = malloc(j->nbins * sizeof **out + 1);
    if (!*out)
        return -1;
    memcpy(*out, j->bins, j->nbins * sizeof **out);
    *n = j->nbins;
    return 0;
}

static int ended(const fior_job *j)
{
    return j->end == FIOR_END_PROVEN || j->end == FIOR_END_INFERRED;
}

void quorum_read(quorum_row *q, const struct fleet *f, const char *path)
{
    char e2[256];
    size_t len = 0;
    char *raw = cli_read_file(path, 64 << 20, &len, e2, sizeof e2);
    fior_report *r = fior_report_new();
    int parsed = raw && r && fior_parse_buffer(r, path, raw, len) == FIOR_OK;
    for (size_t i = 0; i < QUORUM_MEMBERS; i++) {
        const fleet_host *h = &f->h[i];
        capacity_row *m = &q->m[i];
        const fior_job *wj = NULL, *bj = NULL;
        for (size_t k = 0; parsed && k < fior_report_njobs(r); k++) {
            const fior_job *j = fior_report_job(r, k);
            /* fio's aggregate carries the last client's host and port; it is not a member */
            if (!j->host || (j->name && !strcmp(j->name, "All clients")) || strcmp(j->host, h->name) ||
                j->port != h->port)
                continue;
            if (j->role == FIOR_ROLE_WAL)
                wj = j;
            else if (j->role == FIOR_ROLE_BACKEND)
                bj = j;
        }
        char said[512];
        member_said(h, raw, said, sizeof said);
        q->gone[i] = !wj || !bj;
        if (!wj || !bj || wj->error || bj->error || !wj->samples_known || !bj->samples_known || !wj->nbins ||
            !bj->nbins) {
            cli_msg(m->why, sizeof m->why, "%s%s%s",
                    !wj || !bj ? "no results from its fio server"
                    : wj->error || bj->error ? "its fio job ended with an error"
                                              : "no Save samples",
                    said[0] ? ": " : "", said);
            continue;
        }
        /* a job that did not reach its own end (stopped, died, cut, a server gone: libfioreport's end rule)
         * gives no figures the quorum can stand on */
        const fior_job *cut = !ended(wj) ? wj : !ended(bj) ? bj : NULL;
        if (cut) {
            cli_msg(m->why, sizeof m->why, "its %s job did not end normally (%s)%s%s", cut == wj ? "WAL" : "backend",
                    cut->end_reason ? cut->end_reason : fior_end_name(cut->end), said[0] ? ": " : "", said);
            continue;
        }
        if (copy_bins(wj, &m->wal_bins, &m->nwal) || copy_bins(bj, &m->be_bins, &m->nbe)) {
            cli_msg(m->why, sizeof m->why, "out of memory");
            continue;
        }
        m->ran = 1;
        m->wal_n = wj->samples;
        m->be_n = bj->samples;
        m->wal_p99_ns = result_job_pct(wj, 99.0);
        m->be_p99_ns = result_job_pct(bj, 99.0);
        m->saves = wj->samples;
        m->commits = bj->samples;
    }
    fior_report_free(r);
    free(raw);
}

void quorum_json(yajl_gen g, const capacity_row *row)
{
    const quorum_row *q = row->q;
    jw_aopen(g);
    for (int i = 0; i < QUORUM_MEMBERS; i++) {
        const capacity_row *m = &q->m[i];
        const fleet_host *h = q->o->members ? &q->o->members->h[i] : NULL;
        jw_open(g);
        jw_kstr(g, "host", h ? h->name : "");
        jw_key(g, "port");
        jw_i64(g, h ? h->port : 0);
        jw_kstr(g, "dir", h ? member_dir(q->o, h) : "");
        jw_kbool(g, "leader", i == 0);
        jw_kbool(g, "ran", m->ran);
        jw_ku64(g, "wal_fdatasync_p99_ns", m->ran ? m->wal_p99_ns : RESULT_UNKNOWN);
        jw_ku64(g, "backend_commit_p99_ns", m->ran ? m->be_p99_ns : RESULT_UNKNOWN);
        jw_ku64(g, "wal_samples", m->wal_n);
        jw_ku64(g, "backend_samples", m->be_n);
        jw_kstr(g, "verdict", fior_verdict_name(m->ran ? m->verdict : FIOR_UNKNOWN));
        jw_kbool(g, "decides", i == q->decisive);
        jw_ku64(g, "committed", i ? q->sim.by_follower[i] : 0);
        jw_kstr(g, "reason", m->ran ? m->reason : m->why);
        jw_close(g);
    }
    jw_aclose(g);
}
