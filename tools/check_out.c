/* SPDX-License-Identifier: MIT */
/* check_out.c — the output step of `etcd-fio check`: the check-only details of the result model (engine
 * statistics, duration, the filesystem, the classic job), the SVG picture, and the kept raw output. Every
 * file goes through outfile.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "mempress.h"
#include "cli.h"
#include "jw.h"
#include "out.h"
#include "outfile.h"
#include "svg.h"

/* "WAL rollovers": the engine's segments, its worst rollover and the segment preallocation. */
static void engine_detail(result_run *r, const engine_stats *ws, const engine_stats *bs)
{
    char a[32], b[32];
    if (!ws->present) {
        result_add_detail(r, "engine", "WAL rollovers", NULL, "unknown (no engine stats)");
        return;
    }
    yajl_gen j = jw_new(0);
    jw_open(j);
    jw_ku64(j, "segments", ws->segments);
    jw_ku64(j, "rollovers", ws->rollovers);
    jw_ku64(j, "rollover_worst_ns", ws->cut_max_ns);
    jw_ku64(j, "segment_prealloc_ns", ws->prealloc_count && ws->prealloc_mean_ns ? ws->prealloc_mean_ns : JW_UNKNOWN);
    jw_ku64(j, "segment_bytes", ws->segment_bytes ? ws->segment_bytes : CHECK_SEGMENT_BYTES);
    jw_ku64(j, "io_errors", ws->io_errors + bs->io_errors);
    jw_close(j);
    cli_fmt_ns(a, sizeof a, ws->cut_max_ns);
    cli_fmt_ns(b, sizeof b, ws->prealloc_mean_ns);
    /* the preallocation only when one was measured (a zero is no finding) */
    int pre = ws->prealloc_count && ws->prealloc_mean_ns;
    result_add_detail(r, "engine", "WAL rollovers", j, "%llu%s%s%s%s%s%s", (unsigned long long)ws->rollovers,
                  ws->rollovers ? ", worst " : " (the run did not reach the end of a segment)", ws->rollovers ? a : "",
                  pre ? "; segment prealloc " : "", pre ? b : "", pre ? " per segment" : "",
                  ws->io_errors + bs->io_errors ? "; ENGINE I/O ERRORS (see fio's output)" : "");
}

/* How a run ended: the JSON's lower-case word (what fleet --ssh re-proves a remote PASS from) and the
 * table's words. One table, so the two never drift apart. */
typedef struct end_kind {
    const char *word, *text;
} end_kind;

/* full: the run was --full (the run's end; 0 for a phase's); phase: a phase's words ("decided", "ran to its
 * runtime") rather than the run's ("stopped early: decided", "ran to --max-time") */
static end_kind end_of(const check_end *e, int full, int phase)
{
    if (e->state == PROC_SIGNALED || e->job_signal)
        return (end_kind){"fio-died", "fio died"};
    switch (e->stop) {
    case CHECK_USER: return (end_kind){"interrupted", "interrupted"};
    case CHECK_DECIDED: return (end_kind){"decided", phase ? "decided" : "stopped early: decided"};
    case CHECK_PHASE_OVER: return (end_kind){"could-not-pass", "could not pass"};
    case CHECK_CONFIRMED: return (end_kind){"confirmed", "confirmed phase 1"};
    case CHECK_TIME_NET:
        return (end_kind){"past-max-time", phase ? "stopped: past its runtime" : "stopped: past --max-time"};
    case CHECK_GUARD: return (end_kind){"etcd-guard", "stopped to protect etcd"};
    case CHECK_RAN_OUT: break;
    }
    /* as it ran: a fio that ended by itself long before its runtime did not run to it */
    if (e->code != 0)
        return (end_kind){"fio-failed", "fio failed"};
    if (e->duration_s + 0.5 < (double)e->runtime_s)
        return (end_kind){"ended-early", "fio ended before its runtime"};
    return full ? (end_kind){"full", "--full"} : (end_kind){"ran-to-time", phase ? "ran to its runtime" : "ran to --max-time"};
}

/* "duration": how long fio ran and how it ended. */
static void run_detail(result_run *r, const check_opts *o, const check_end *e)
{
    end_kind k = end_of(e, o->full, 0);
    yajl_gen d = jw_new(0);
    jw_open(d);
    jw_knum(d, "seconds", e->duration_s);
    jw_kstr(d, "end", k.word);
    jw_ku64(d, "syncs_at_decision", e->decided_syncs ? e->decided_syncs : JW_UNKNOWN);
    jw_close(d);
    result_add_detail(r, "run", "duration", d, "%.1f s (%s)", e->duration_s, k.text);
}

/* "classic fio job": its p99 beside ours, or why it failed. */
static void classic_detail(result_run *r, const classic_out *cl)
{
    char a[32];
    yajl_gen c = jw_new(0);
    jw_open(c);
    jw_kbool(c, "ok", cl->ok);
    if (cl->ok) {
        jw_ku64(c, "p99_ns", cl->p99);
        jw_ku64(c, "syncs", cl->syncs);
        jw_kstr(c, "verdict", fior_verdict_name(cl->verdict));
        jw_knum(c, "duration_s", cl->seconds);
        jw_close(c);
        result_add_detail(r, "classic", "classic fio job", c, "p99 %s over %llu fdatasyncs in %.1f s: %s",
                      cli_fmt_ns(a, sizeof a, cl->p99), (unsigned long long)cl->syncs, cl->seconds,
                      fior_verdict_name(cl->verdict));
    } else {
        jw_kstr(c, "error", cl->err);
        jw_close(c);
        result_add_detail(r, "classic", "classic fio job", c, "failed: %s", cl->err);
    }
}

/* "filesystem": what the run was on. */
static void fs_detail(result_run *r, const fsinfo *fi)
{
    yajl_gen fs = jw_new(0);
    char mm[32], desc[1024];
    /* the block device when there is one (btrfs's st_dev is an anonymous 0:N) */
    cli_msg(mm, sizeof mm, "%u:%u", fi->bdev_major ? fi->bdev_major : fi->dev_major,
            fi->bdev_major ? fi->bdev_minor : fi->dev_minor);
    jw_open(fs);
    jw_kstr(fs, "path", fi->path);
    jw_kstr(fs, "type", fi->fstype);
    jw_kstr(fs, "device", fi->source);
    jw_kstr(fs, "dev", mm);
    jw_kstr(fs, "mountpoint", fi->mountpoint);
    jw_ku64(fs, "free_bytes", fi->free_bytes);
    jw_ku64(fs, "free_inodes", fi->total_inodes ? fi->free_inodes : JW_UNKNOWN);
    jw_kstr(fs, "options", fi->options);
    jw_kstr(fs, "superopts", fi->superopts);
    jw_kstr_or_null(fs, "layers", fi->layers);
    jw_kstr_or_null(fs, "write_cache", fi->write_cache);
    jw_close(fs);
    fsinfo_describe(fi, desc, sizeof desc);
    result_add_detail(r, "filesystem", "filesystem", fs, "%s (%s)", desc, fi->path);
}

void check_details(result_run *r, const check_opts *o, const check_end *e, const engine_stats *ws,
                   const engine_stats *bs, const classic_out *cl, const fsinfo *fi)
{
    engine_detail(r, ws, bs);
    run_detail(r, o, e);
    yajl_gen io = jw_new(0);
    jw_bool(io, o->ionice);
    result_add_detail(r, "ionice", "ionice", io, "%s",
                  o->ionice ? "WAL job at best-effort level 0 (prioclass=2 prio=0)" : "not used");
    if (cl->ran)
        classic_detail(r, cl);
    fs_detail(r, fi);
}

void check_env_details(result_run *r, const fsinfo *fi, const mempress_result *mp)
{
    char weak[256], shortdesc[400];
    int nweak = fsinfo_weak_options(fi, weak, sizeof weak);
    cli_msg(shortdesc, sizeof shortdesc, "%s on %s", fi->fstype, fi->source);
    if (nweak) {
        yajl_gen j = jw_new(0);
        char copy[256], *save = NULL;
        cli_msg(copy, sizeof copy, "%s", weak);
        jw_open(j);
        jw_key(j, "weak");
        jw_aopen(j);
        for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save))
            jw_str(j, t);
        jw_aclose(j);
        jw_kstr_or_null(j, "write_cache", fi->write_cache);
        jw_close(j);
        result_add_detail(r, "mount_options", "mount options", j, "%s mounted %s: weakens fdatasync (see why:)", shortdesc,
                      weak);
    }
    if (mp) {
        yajl_gen j = jw_new(0);
        jw_open(j);
        jw_kbool(j, "known", mp->known);
        jw_kbool(j, "pressure", mp->pressure);
        jw_ku64(j, "limit_events", mp->limit_events);
        jw_ku64(j, "oom_kills", mp->oom_kills);
        jw_knum(j, "psi_some_pct", mp->psi_some_pct < 0 ? NAN : mp->psi_some_pct);
        jw_knum(j, "psi_full_pct", mp->psi_full_pct < 0 ? NAN : mp->psi_full_pct);
        jw_close(j);
        result_add_detail(r, "memory", "memory", j, "%s", mp->text);
    }
    explain_env env = {shortdesc, weak, fi->write_cache, mp && mp->pressure, mp ? mp->what : NULL};
    result_explain_env(r, &env);
}

static void phase_json(yajl_gen j, const check_run_out *x, char *txt, size_t n)
{
    const fior_report *fin = fior_json_stream_report(x->stream);
    const fior_job *w = check_find_job(fin, FIOR_ROLE_WAL), *b = check_find_job(fin, FIOR_ROLE_BACKEND);
    uint64_t wp = w ? result_job_pct(w, 99.0) : RESULT_UNKNOWN, bp = b ? result_job_pct(b, 99.0) : RESULT_UNKNOWN;
    fior_answer aw = {.size = sizeof aw}, ab = {.size = sizeof ab};
    fior_monitor_answer(x->mon, FIOR_ROLE_WAL, &aw);
    fior_monitor_answer(x->mon, FIOR_ROLE_BACKEND, &ab);
    jw_open(j);
    jw_knum(j, "seconds", x->end.duration_s);
    end_kind k = end_of(&x->end, 0, 1);
    jw_kstr(j, "end", k.word);
    jw_ku64(j, "wal_syncs", aw.samples);
    jw_ku64(j, "backend_commits", ab.samples);
    jw_ku64(j, "wal_p99_ns", wp);
    jw_ku64(j, "backend_p99_ns", bp);
    jw_kbool(j, "orphans_ended", x->end.orphans);
    jw_close(j);
    char a[32], b2[32];
    cli_msg(txt, n, "%s after %.1f s (%llu WAL syncs, %llu backend commits; WAL p99 %s, backend p99 %s)", k.text,
            x->end.duration_s, (unsigned long long)aw.samples, (unsigned long long)ab.samples,
            cli_fmt_ns(a, sizeof a, wp == RESULT_UNKNOWN ? CLI_NS_UNKNOWN : wp),
            cli_fmt_ns(b2, sizeof b2, bp == RESULT_UNKNOWN ? CLI_NS_UNKNOWN : bp));
}

void check_phases_detail(result_run *r, const check_run_out *r1, const check_run_out *r2, int by_phase1)
{
    yajl_gen d = jw_new(0);
    char t1[300] = "", t2[300] = "", tp[400] = "";
    jw_open(d);
    jw_ku64(d, "decided_by", by_phase1 ? 1 : 2);
    jw_key(d, "phase1");
    if (r1)
        phase_json(d, r1, t1, sizeof t1);
    else
        jw_null(d);
    jw_key(d, "phase2");
    if (r2)
        phase_json(d, r2, t2, sizeof t2);
    else
        jw_null(d);
    jw_key(d, "probe");
    fior__probe pr = {.size = sizeof pr};
    if (r2 && fior__monitor_probe(r2->mon, &pr) == FIOR_OK && pr.done) {
        jw_open(d);
        jw_kbool(d, "ok", pr.ok);
        jw_kstr(d, "why", pr.why);
        jw_knum(d, "quantile", FIOR_PROBE_Q);
        jw_ku64(d, "phase1_wal_ns", pr.phase1_wal_ns);
        jw_ku64(d, "phase2_wal_ns", pr.probe_wal_ns);
        jw_ku64(d, "phase1_backend_ns", pr.phase1_backend_ns);
        jw_ku64(d, "phase2_backend_ns", pr.probe_backend_ns);
        jw_close(d);
        cli_msg(tp, sizeof tp, "; probe: %s", pr.why);
    } else {
        jw_null(d);
    }
    jw_close(d);
    result_add_detail(r, "phases", "phases", d, "%s%s%s%s%s%s; verdict from phase %d", r1 ? "phase 1 (heavier than etcd) " : "no phase 1",
                  t1, r2 ? "; phase 2 (etcd's load) " : "", t2, tp, "", by_phase1 ? 1 : 2);
}

int check_svg_write(FILE *f, const result_run *r, const char *fsdesc)
{
    const result_host *h = r->nhosts ? &r->hosts[0] : NULL;
    svg_series s[2];
    char lab[2][128], p99[2][32], title[1024], sub[1300];
    size_t ns = 0;
    cli_msg(p99[0], 32, "-");
    cli_msg(p99[1], 32, "-");
    static const char *const colour[2] = {"#1f77b4", "#ff7f0e"};
    for (size_t i = 0; h && i < h->njobs && ns < 2; i++) {
        const result_job *j = &h->jobs[i];
        int k = j->role == FIOR_ROLE_BACKEND;
        cli_fmt_ns(p99[k], 32, j->p99_ns);
        cli_msg(lab[ns], sizeof lab[ns], "%s: p99 %s over %llu", explain_role_label(EXPLAIN_DISK_TEST, j->role), p99[k],
                (unsigned long long)(j->samples == RESULT_UNKNOWN ? 0 : j->samples));
        if (j->nbins)
            s[ns] = (svg_series){lab[ns], colour[k], j->bins, j->nbins}, ns++;
    }
    char wt[32], bt[32], wl[64], bl[64];
    cli_fmt_ns(wt, sizeof wt, r->wal_threshold_ns);
    cli_fmt_ns(bt, sizeof bt, r->backend_threshold_ns);
    const char *wal = explain_role_label(EXPLAIN_DISK_TEST, FIOR_ROLE_WAL);
    const char *be = explain_role_label(EXPLAIN_DISK_TEST, FIOR_ROLE_BACKEND);
    cli_msg(wl, sizeof wl, "%s: %s p99 limit", wt, wal);
    cli_msg(bl, sizeof bl, "%s: %s p99 limit", bt, be);
    svg_vline v[2] = {{wl, r->wal_threshold_ns, "#d62728"}, {bl, r->backend_threshold_ns, "#9467bd"}};
    cli_msg(title, sizeof title, "%s — %s p99 %s, %s p99 %s", fior_verdict_name(r->verdict), wal, p99[0], be,
            p99[1]);
    cli_msg(sub, sizeof sub, "etcd-fio check %.600s — %.600s", h ? h->dir : "", fsdesc);
    svg_plot p = {title, sub, s, ns, v, 2};
    return svg_write(f, &p);
}

typedef struct svg_ctx {
    const result_run *r;
    const char   *fsdesc;
} svg_ctx;

static int render_svg(FILE *f, const void *ctx)
{
    const svg_ctx *c = ctx;
    return check_svg_write(f, c->r, c->fsdesc);
}

int check_svg(const result_run *r, const char *path, const char *fsdesc, char *err, size_t errlen)
{
    svg_ctx c = {r, fsdesc};
    return outfile_write_with(path, render_svg, &c, err, errlen);
}

int check_html(const result_run *r, const char *path, const char *fsdesc, char *err, size_t errlen)
{
    svg_ctx c = {r, fsdesc};
    return out_html_file(path, r, render_svg, &c, err, errlen);
}

int check_keep(int dirfd, const check_opts *o, const char *tmp, const char *raw, size_t rawlen, char *err,
               size_t errlen)
{
    static const char *const files[] = {"etcd-profile.fio", "fio.stderr", "wal-stats.json", "backend-stats.json"};
    if (outfile_write_at(dirfd, o->keep, "fio-output.json", raw ? raw : "", rawlen, err, errlen))
        return -1;
    char readme[1024];
    /* the criteria check used, so the re-judged verdict is the same one */
    cli_msg(readme, sizeof readme,
            "etcd-fio check output (load %s, confidence %g, min-syncs %llu).\n"
            "fio-output.json: fio's --output-format=json+ --status-interval=1 stream (the last document is\n"
            "the final one); etcd-profile.fio: the job file; *-stats.json: the engine's own statistics.\n"
            "Re-judge: etcd-fio verdict --min-samples %llu fio-output.json\n",
            o->load, o->confidence, (unsigned long long)o->min_syncs,
            (unsigned long long)(o->min_syncs < 100 ? o->min_syncs : 100));
    if (outfile_write_at(dirfd, o->keep, "README", readme, strlen(readme), err, errlen))
        return -1;
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char src[4200], e2[64];
        size_t n = 0;
        cli_msg(src, sizeof src, "%s/%s", tmp, files[i]);
        char *d = cli_read_file(src, 256 << 20, &n, e2, sizeof e2);
        if (!d)
            continue;
        int rc = outfile_write_at(dirfd, o->keep, files[i], d, n, err, errlen);
        free(d);
        if (rc)
            return -1;
    }
    return 0;
}
