/* SPDX-License-Identifier: MIT */
/* capacity_run.c — the run step of `etcd-fio capacity`: writes the job file of one client count (the engine's
 * closed-loop load, engine/load.h), runs the installed fio on it (proc.h: stopped SIGINT -> TERM -> KILL when
 * the operator interrupts or it overruns), and reads fio's json+ output and the engine's stats files into a
 * row. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capacity.h"
#include "check.h"
#include "cli.h"
#include "jr.h"
#include "profile.h"

volatile int capacity_interrupted;

#define TIME_NET_S   30.0  /* past runtime + this, fio is stopped */
#define STOP_GRACE_S 10.0

int capacity_job_write(FILE *f, const capacity_opts *o, const char *dir, const char *engine, unsigned clients, double seconds,
                  const char *wal_stats, const char *be_stats, char *err, size_t errlen)
{
    if (profile_value_bad(dir) || profile_value_bad(engine) || (wal_stats && profile_value_bad(wal_stats)) ||
        (be_stats && profile_value_bad(be_stats))) {
        cli_msg(err, errlen, "a path for the job file is empty or has control characters or edge blanks");
        return -1;
    }
    fprintf(f, "; etcd-fio capacity: %u closed-loop clients, key %u B, value %u B (engine/load.h)\n[global]\n",
            clients, o->key_bytes, o->val_bytes);
    profile_put_dir(f, dir);
    fprintf(f, "time_based=1\nruntime=%.0fms\nsize=1g\n", seconds * 1000);
    const char *mode[2] = {"wal", "backend"}, *stats[2] = {wal_stats, be_stats};
    for (int i = 0; i < 2; i++) {
        fprintf(f, "\n[etcd-%s]\nioengine=external:%s\netcd_mode=%s\netcd_clients=%u\netcd_key_bytes=%u\n"
                   "etcd_val_bytes=%u\netcd_client_ns=%.0f\netcd_apply_ns=%.0f\netcd_entry_ns=%.0f\n",
                mode[i], engine, mode[i], clients, o->key_bytes, o->val_bytes, o->client_us * 1000, o->apply_us * 1000,
                o->cpu_us * 1000);
        if (stats[i])
            fprintf(f, "etcd_stats_file=%s\n", stats[i]);
        if (o->put_gap_ns)
            fprintf(f, "etcd_put_gap_ns=%llu\n", (unsigned long long)o->put_gap_ns);
        fputs("rw=write\nbs=4096\nfdatasync=1\n", f);
    }
    if (ferror(f)) {
        cli_msg(err, errlen, "write error while printing the job file");
        return -1;
    }
    return 0;
}

static uint64_t jget(yajl_val o, const char *k)
{
    return jr_u64(o, k, 0);
}

static yajl_val read_json(const char *path)
{
    char err[512];
    char *t = cli_read_file(path, 16 << 20, NULL, err, sizeof err);
    yajl_val j = t ? jr_parse(t, NULL, 0) : NULL;
    free(t);
    return j;
}

static int copy_bins(const fior_job *j, fior_bin **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    if (!j || !j->nbins)
        return 0;
    *out = malloc(j->nbins * sizeof **out);
    if (!*out)
        return -1;
    memcpy(*out, j->bins, j->nbins * sizeof **out);
    *n = j->nbins;
    return 0;
}

void capacity_read_row(capacity_row *row, const char *fio_json, const char *wal_stats, const char *be_stats)
{
    fior_report *r = fior_report_new();
    if (!r) {
        cli_msg(row->why, sizeof row->why, "out of memory");
        return;
    }
    if (fior_parse_file(r, fio_json) != FIOR_OK) {
        cli_msg(row->why, sizeof row->why, "fio's output: %s", fior_report_error(r));
        fior_report_free(r);
        return;
    }
    const fior_job *wj = check_find_job(r, FIOR_ROLE_WAL), *bj = check_find_job(r, FIOR_ROLE_BACKEND);
    if (wj && wj->fio_version)
        cli_msg(row->fio_version, sizeof row->fio_version, "%s", wj->fio_version);
    yajl_val ws = read_json(wal_stats), bs = read_json(be_stats);
    yajl_val load = jr_obj(ws, "load"), bload = jr_obj(bs, "load");
    if (!wj || !bj || !wj->samples_known || !bj->samples_known || !load || !bload || !jget(load, "puts") ||
        copy_bins(wj, &row->wal_bins, &row->nwal) || copy_bins(bj, &row->be_bins, &row->nbe)) {
        cli_msg(row->why, sizeof row->why, "%s", !wj || !bj ? "a job's result is missing in fio's output"
                                                 : !load || !bload ? "the engine's stats of the load are missing"
                                                 : !jget(load, "puts") ? "no put was answered within the step (a "
                                                                         "longer --step for this many clients)"
                                                                       : "no sync samples");
    } else {
        row->ran = 1;
        row->wal_n = wj->samples;
        row->be_n = bj->samples;
        row->wal_p99_ns = result_job_pct(wj, 99.0);
        row->be_p99_ns = result_job_pct(bj, 99.0);
        row->puts = jget(load, "puts");
        row->saves = jget(load, "saves");
        row->commits = jget(bload, "commits");
        double span = (double)jget(load, "span_ns");
        row->writes_per_s = span > 0 ? (double)row->puts / span * 1e9 : 0;
        row->lat_p50_ns = row->puts ? jget(load, "latency_p50_ns") : RESULT_UNKNOWN;
        row->lat_p90_ns = row->puts ? jget(load, "latency_p90_ns") : RESULT_UNKNOWN;
        row->lat_p99_ns = row->puts ? jget(load, "latency_p99_ns") : RESULT_UNKNOWN;
        yajl_val eps = jr_obj(jr_obj(load, "hist"), "entries_per_save");
        row->entries_per_save = jget(eps, "count") ? (double)jget(eps, "sum") / (double)jget(eps, "count") : 0;
        if (span > 0) {
            row->save_share = (double)jget(load, "save_ns") / span;
            row->cpu_share = (double)jget(load, "cpu_ns") / span;
            row->apply_share = (double)jget(load, "apply_ns") / span;
            row->blocked_share = (double)jget(load, "blocked_ns") / span;
        }
        double save = (double)jget(load, "save_ns"), fds = (double)jget(jr_obj(jr_obj(ws, "hist"), "fdatasync"), "sum_ns");
        row->write_share = save > 0 && fds < save ? 1 - fds / save : 0;
    }
    yajl_tree_free(ws);
    yajl_tree_free(bs);
    fior_report_free(r);
}

/* The bins of two runs of the same client count as one sample (both ascending by ns). */
static int merge_bins(fior_bin **a, size_t *na, const fior_bin *b, size_t nb)
{
    fior_bin *m = malloc((*na + nb) * sizeof *m + 1);
    if (!m)
        return -1;
    size_t i = 0, j = 0, k = 0;
    while (i < *na || j < nb) {
        if (j == nb || (i < *na && (*a)[i].ns < b[j].ns))
            m[k++] = (*a)[i++];
        else if (i == *na || b[j].ns < (*a)[i].ns)
            m[k++] = b[j++];
        else {
            m[k] = (*a)[i++];
            m[k++].count += b[j++].count;
        }
    }
    free(*a);
    *a = m;
    *na = k;
    return 0;
}

void capacity_row_merge(capacity_row *a, const capacity_row *b)
{
    if (!b->ran || !a->ran)
        return;
    if (merge_bins(&a->wal_bins, &a->nwal, b->wal_bins, b->nwal) ||
        merge_bins(&a->be_bins, &a->nbe, b->be_bins, b->nbe)) {
        a->ran = 0;
        cli_msg(a->why, sizeof a->why, "out of memory");
        return;
    }
    a->wal_n += b->wal_n;
    a->be_n += b->be_n;
}

void capacity_row_init(capacity_row *row, unsigned clients)
{
    memset(row, 0, sizeof *row);
    row->clients = clients;
    row->lat_p50_ns = row->lat_p90_ns = row->lat_p99_ns = RESULT_UNKNOWN;
    row->wal_p99_ns = row->be_p99_ns = RESULT_UNKNOWN;
    row->verdict = FIOR_UNKNOWN;
}

void capacity_row_drop_bins(capacity_row *row)
{
    free(row->wal_bins);
    free(row->be_bins);
    row->wal_bins = row->be_bins = NULL;
    row->nwal = row->nbe = 0;
}

void capacity_row_free(capacity_row *row)
{
    capacity_row_drop_bins(row);
}

int capacity_run_row(const capacity_opts *o, const char *fi_path, const char *engine, unsigned clients, double seconds,
                capacity_row *row, char *err, size_t errlen)
{
    capacity_row_init(row, clients);
    char tmp[4096], job[4200], out[4200], ferr[4200], ws[4200], bs[4200];
    if (cli_tmpdir("capacity", tmp, sizeof tmp, err, errlen))
        return -1;
    if (cli_dir_ok(tmp, err, errlen)) {
        cli_tmpdir_remove(tmp);
        return -1;
    }
    cli_msg(job, sizeof job, "%s/capacity.fio", tmp);
    cli_msg(out, sizeof out, "%s/fio.json", tmp);
    cli_msg(ferr, sizeof ferr, "%s/fio.stderr", tmp);
    cli_msg(ws, sizeof ws, "%s/wal-stats.json", tmp);
    cli_msg(bs, sizeof bs, "%s/backend-stats.json", tmp);
    FILE *jf = fopen(job, "wx");
    int rc = -1;
    if (!jf) {
        cli_msg(err, errlen, "%s: %s", job, strerror(errno));
        goto out;
    }
    rc = capacity_job_write(jf, o, fi_path, engine, clients, seconds, ws, bs, err, errlen);
    if (fclose(jf) != 0 && !rc) {
        cli_msg(err, errlen, "%s: %s", job, strerror(errno));
        rc = -1;
    }
    if (rc)
        goto out;
    char outopt[4300];
    cli_msg(outopt, sizeof outopt, "--output=%s", out);
    const char *argv[] = {cli_fio(), "--eta=never", "--output-format=json+", outopt, job, NULL}; /* no eta lines on the terminal */
    proc p;
    if (proc_start_io(&p, argv, (proc_io){PROC_INHERIT, NULL}, (proc_io){PROC_INHERIT, NULL},
                      (proc_io){PROC_FILE, ferr}, PROC_DIE_KILL, err, errlen))
        goto out;
    double t0 = proc_now();
    while (!proc_wait(&p, 250)) {
        if (capacity_interrupted || proc_now() - t0 > seconds + TIME_NET_S)
            proc_stop_step(&p, STOP_GRACE_S);
    }
    /* a job process that outlived a killed fio writes on until its runtime: end it (proc.h) */
    int orphans = proc_end_orphans(CHECK_ORPHAN_GRACE_S);
    row->seconds = proc_now() - t0;
    char said[512], how[256];
    cli_last_line(ferr, said, sizeof said);
    proc_describe(&p, how, sizeof how);
    int sig = check_job_signal(ferr);
    if (p.state == PROC_EXITED && p.code == 0 && !p.stop_level && !sig && !orphans)
        capacity_read_row(row, out, ws, bs);
    else
        cli_msg(row->why, sizeof row->why, "fio %s%s%s%s", p.stop_level ? "was stopped" : how,
                sig ? " (a job died of a signal)" : "", said[0] ? ": " : "", said);
    proc_release(&p);
    rc = 0;
out:
    cli_tmpdir_remove(tmp);
    return rc;
}
