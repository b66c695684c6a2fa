/* SPDX-License-Identifier: MIT */
/* quorum_row.c — one row of `etcd-fio capacity --member`: the three members judged as capacity judges one
 * disk (capacity_decide), the member that decides the cluster's verdict, the quorum replay of their Save
 * latencies (quorum.c) into the row, pooling a confirmation run's samples, and the members' lines
 * of the table. Pure. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "quorum.h"
#include "cli.h"

static int dup_bins(const fior_bin *b, size_t n, fior_bin **out, size_t *nout)
{
    *out = malloc(n * sizeof **out + 1);
    if (!*out)
        return -1;
    memcpy(*out, b, n * sizeof **out);
    *nout = n;
    return 0;
}

/* How far a member's point estimates are toward their thresholds (the larger of WAL p99 / 10 ms and backend
 * p99 / 25 ms). */
static double nearness(const capacity_row *m, const fior_criteria *c)
{
    double w = m->wal_p99_ns == RESULT_UNKNOWN ? 0 : (double)m->wal_p99_ns / (double)fior_criteria_threshold(c, FIOR_ROLE_WAL);
    double b = m->be_p99_ns == RESULT_UNKNOWN ? 0 : (double)m->be_p99_ns / (double)fior_criteria_threshold(c, FIOR_ROLE_BACKEND);
    return w > b ? w : b;
}

/* The member whose verdict is the cluster's: one whose bound fails; else an undecided one (one whose point
 * estimate fails first, for --accept-point-estimate; among those, the nearest its thresholds); else the one
 * nearest its thresholds. So that capacity_decide, judging the quorum row on this member's bins, says fail when
 * any member fails, pass only when every member passes, and unknown otherwise. */
static int pick(const fior_verdict *v0, const fior_verdict *v1, const capacity_row *m, const fior_criteria *c)
{
    int d = -1;
    for (int pass = 0; pass < 4 && d < 0; pass++)
        for (int i = 0; i < QUORUM_MEMBERS; i++) {
            int want = pass == 0 ? v0[i] == FIOR_FAIL
                     : pass == 1 ? v0[i] == FIOR_UNKNOWN && v1[i] == FIOR_FAIL
                     : pass == 2 ? v0[i] == FIOR_UNKNOWN
                                 : 1;
            if (want && (d < 0 || nearness(&m[i], c) > nearness(&m[d], c)))
                d = i;
        }
    return d;
}

static void judge_members(quorum_row *q)
{
    capacity_result *mr = calloc(1, sizeof *mr);
    if (!mr)
        return;
    fior_verdict v0[QUORUM_MEMBERS], v1[QUORUM_MEMBERS];
    for (int i = 0; i < QUORUM_MEMBERS; i++)
        mr->rows[i] = q->m[i]; /* shallow: the bins stay q's */
    mr->nrows = mr->nsweep = QUORUM_MEMBERS;
    capacity_decide(mr, q->crit, q->o->confidence, 0);
    for (int i = 0; i < QUORUM_MEMBERS; i++)
        v0[i] = mr->rows[i].verdict;
    capacity_decide(mr, q->crit, q->o->confidence, 1);
    for (int i = 0; i < QUORUM_MEMBERS; i++)
        v1[i] = mr->rows[i].verdict;
    capacity_decide(mr, q->crit, q->o->confidence, q->o->accept_point);
    for (int i = 0; i < QUORUM_MEMBERS; i++)
        q->m[i] = mr->rows[i];
    q->decisive = pick(v0, v1, q->m, q->crit);
    free(mr);
}

void quorum_finish(capacity_row *row)
{
    quorum_row *q = row->q;
    capacity_row_drop_bins(row);
    row->ran = 0;
    q->decisive = -1;
    /* the row names the member whose server is gone when there is one (the others' runs are then cut
     * short with it), else the first that gave nothing usable */
    int first = -1;
    for (int i = 0; i < QUORUM_MEMBERS; i++)
        if (!q->m[i].ran && (first < 0 || (q->gone[i] && !q->gone[first])))
            first = i;
    if (first >= 0) {
        const fleet *f = q->o->members;
        cli_msg(row->why, sizeof row->why, "member %d (%s): %s", first + 1, f ? f->h[first].spec : "?",
                q->m[first].why[0] ? q->m[first].why : "no result");
        return;
    }
    judge_members(q);
    if (q->decisive < 0) {
        cli_msg(row->why, sizeof row->why, "out of memory");
        return;
    }
    const capacity_opts *o = q->o;
    quorum_cfg c = {.clients = row->clients, .rtt_ns = (uint64_t)(o->rtt_ms * 1e6 + 0.5),
                  .client_ns = (uint64_t)(o->client_us * 1000 + 0.5), .cpu_ns = (uint64_t)(o->cpu_us * 1000 + 0.5),
                  .apply_ns = (uint64_t)(o->apply_us * 1000 + 0.5), .ready_ns = (uint64_t)(o->ready_us * 1000 + 0.5),
                  .shared_core = o->shared_core,
                  .seed = 0x5eed0000ull + row->clients};
    for (int i = 0; i < QUORUM_MEMBERS; i++)
        c.save[i] = (quorum_dist){q->m[i].wal_bins, q->m[i].nwal};
    c.commit = (quorum_dist){q->m[0].be_bins, q->m[0].nbe};
    char err[256];
    if (quorum_simulate(&c, &q->sim, err, sizeof err)) {
        cli_msg(row->why, sizeof row->why, "%s", err);
        return;
    }
    const capacity_row *d = &q->m[q->decisive];
    if (dup_bins(d->wal_bins, d->nwal, &row->wal_bins, &row->nwal) ||
        dup_bins(d->be_bins, d->nbe, &row->be_bins, &row->nbe)) {
        cli_msg(row->why, sizeof row->why, "out of memory");
        return;
    }
    const quorum_out *s = &q->sim;
    row->ran = 1;
    row->why[0] = '\0';
    row->wal_n = d->wal_n;
    row->be_n = d->be_n;
    row->wal_p99_ns = d->wal_p99_ns;
    row->be_p99_ns = d->be_p99_ns;
    row->writes_per_s = s->writes_per_s;
    row->lat_p50_ns = s->lat_p50_ns;
    row->lat_p90_ns = s->lat_p90_ns;
    row->lat_p99_ns = s->lat_p99_ns;
    row->entries_per_save = s->entries_per_save;
    row->puts = s->puts;
    row->saves = s->saves;
    row->commits = q->m[0].be_n;
    row->save_share = s->save_share;
    row->cpu_share = s->cpu_share;
    row->apply_share = s->apply_share;
    row->blocked_share = s->blocked_share;
    row->write_share = 0; /* the members' stats files stay on their servers: fdatasync and write are one here */
}

void quorum_row_merge(capacity_row *a, const capacity_row *b)
{
    if (!a->q && !b->q) {
        capacity_row_merge(a, b);
        return;
    }
    if (!a->q || !b->q)
        return;
    for (int i = 0; i < QUORUM_MEMBERS; i++)
        capacity_row_merge(&a->q->m[i], &b->q->m[i]);
    quorum_finish(a);
}

void quorum_row_free(capacity_row *row)
{
    if (row->q) {
        for (int i = 0; i < QUORUM_MEMBERS; i++)
            capacity_row_free(&row->q->m[i]);
        free(row->q);
        row->q = NULL;
    }
    capacity_row_free(row);
}

void quorum_table(FILE *f, const capacity_row *row)
{
    const quorum_row *q = row->q;
    if (!q)
        return;
    const fleet *fl = q->o->members;
    for (int i = 0; i < QUORUM_MEMBERS; i++) {
        const capacity_row *m = &q->m[i];
        char w[32], b[32];
        if (!m->ran) {
            fprintf(f, "%7s   member %d%s %s: %s\n", "", i + 1, i ? "" : " (leader)", fl ? fl->h[i].spec : "", m->why);
            continue;
        }
        fprintf(f, "%7s   member %d%s %s: WAL p99 %s, backend p99 %s, %s%s\n", "", i + 1, i ? "" : " (leader)",
                fl ? fl->h[i].spec : "", cli_fmt_ns(w, sizeof w, m->wal_p99_ns), cli_fmt_ns(b, sizeof b, m->be_p99_ns),
                fior_verdict_name(m->verdict), i == q->decisive ? " (decides the row)" : "");
    }
    if (row->ran) {
        uint64_t n = q->sim.by_follower[1] + q->sim.by_follower[2];
        fprintf(f, "%7s   quorum: committed by member 2 in %.0f %%, member 3 in %.0f %%; leader's own Save later than "
                   "the commit in %.0f %%; members paced at %.0f writes/s\n", "",
                n ? 100.0 * (double)q->sim.by_follower[1] / (double)n : 0.0,
                n ? 100.0 * (double)q->sim.by_follower[2] / (double)n : 0.0,
                n ? 100.0 * (double)q->sim.leader_gated / (double)n : 0.0, q->paced_wps);
    }
    if (q->note[0])
        fprintf(f, "%7s   note: %s\n", "", q->note);
}
