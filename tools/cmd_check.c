/* SPDX-License-Identifier: MIT */
/* cmd_check.c — `etcd-fio check [DIR]`: the one command an operator runs. Options and every refusal that
 * can be made before fio starts (bad directory, wrong filesystem, too little room, a run too short to decide,
 * an output path that cannot be written), then run (check_run.c), judge (check_judge.c) and output
 * (check_out.c + the result model's writers). */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "cli.h"
#include "engine_path.h"
#include "etcdwatch.h"
#include "liveetcd.h"
#include "mempress.h"
#include "out.h"
#include "outfile.h"
#include "preflight.h"
#include "profile.h"
#include "tmpdir.h"

static const char usage[] =
    "usage: etcd-fio check [OPTIONS] [DIR]\n"
    "Runs the etcd profile (a WAL job and a backend job) with fio and our engine in a private directory\n"
    "under DIR (default: the current directory) and says whether the disk is fast enough for etcd:\n"
    "WAL fdatasync p99 < 10 ms and backend commit p99 < 25 ms. Stops as soon as both are decided.\n"
    "Two phases: phase 1 (at most 10 s) runs the profile harder than etcd would (WAL unthrottled, backend\n"
    "commits back to back) and can only PASS; its PASS stands when the first 2 s of phase 2, the faithful\n"
    "profile, show the disk no slower under etcd's load; otherwise phase 2 decides, as with --faithful.\n";

static const cli_opt options[] = {
    CLI_OPT("load", 'l', "L", "etcdctl check perf load level: s (default), m, l, xl"),
    CLI_OPT("max-time", 't', "S", "stop after S seconds at the latest (default 120; a time too short to ever "
            "decide is refused with the minimum that can)"),
    CLI_OPT("min-syncs", 'n', "N", "no decision before N samples of each job (default 100)"),
    CLI_OPT("confidence", 'c', "C", "confidence of the p99 bound, 0.5..0.9999 (default 0.95)"),
    CLI_OPT("accept-point-estimate", 'a', NULL, "when the bound still straddles a threshold at the end, give the "
            "verdict of the point estimate (exit 0/1) instead of UNKNOWN (exit 2)"),
    CLI_OPT("full", 'F', NULL, "no early stop: run the whole --max-time (implies --faithful)"),
    CLI_OPT("faithful", 'P', NULL, "no phase 1: only the faithful profile (phase 1 adds up to 10 s to --max-time)"),
    CLI_OPT("wal-only", 'W', NULL, "the classic question alone, WAL fdatasync p99 < 10 ms, with etcd's write "
            "pattern: the backend job still runs beside it but is not judged; stops as soon as the WAL is decided"),
    CLI_OPT("json", 'j', NULL, "print one JSON object (doc/etcd-fio.schema.json) instead of the text table"),
    CLI_OPT("prometheus", 'p', "FILE", "also write a node_exporter textfile (atomically)"),
    CLI_OPT("svg", 's', "FILE", "also write an SVG picture of both latency distributions"),
    CLI_OPT("html", 'H', "FILE", "also write one self-contained HTML report: verdict, table, the picture, the "
            "classic job's result, the explain lines, versions and host"),
    CLI_OPT("keep-output", 'k', "DIR", "keep fio's raw output and the job file there (re-judge: etcd-fio verdict); "
            "DIR must be owned by you and not writable by others"),
    CLI_OPT("ionice", 'i', NULL, "run the WAL job at etcd's I/O priority (best-effort, level 0)"),
    CLI_OPT("classic", 'C', NULL, "afterwards, also run the classic fio test (sync, fdatasync=1, bs=2300, "
            "22 MiB) in DIR and print its p99 beside ours"),
    CLI_OPT("force", 'f', NULL, "run even on a filesystem that is probably not the one meant (memory, container "
            "layer, FUSE, network, a loop device over one, zram/brd), with a library preloaded (LD_PRELOAD, "
            "/etc/ld.so.preload, or by the fio in use), or one the run would leave with less than 2 x 64 MB + 5 % "
            "free (a live etcd's reserve); the result says so; watch an --etcd that is not the one found using "
            "this filesystem"),
    CLI_OPT("etcd", 'U', "URL", "watch the live etcd beside the check through its /metrics (a client URL means its "
            "/metrics): scraped before, every 2 s during and after the run; its own WAL fsync and backend commit "
            "p99 are reported before vs during the check, and when one that was below its threshold before "
            "crosses it during the check, the check stops at once (UNKNOWN) to protect etcd"),
    CLI_OPTS_TLS('A', 'T', 'K'),
    CLI_OPT("stop-on-eof", 'E', NULL, "stop as on SIGINT (end fio, clean up, unknown) when stdin ends: "
            "`fleet --ssh` runs check so, and closing its ssh session (or losing it) then stops the remote run"),
    CLI_END};

static const char outro[] =
    "SIGINT, SIGTERM and SIGHUP stop the run: fio ends its jobs, the files go, the verdict is UNKNOWN unless the\n"
    "data had already decided it.\n"
    "Exit status: 0 PASS, 1 FAIL, 2 cannot judge or error. Output files are written through a temp file\n"
    "created beside them (never through a symlink). Environment: FIO (fio binary), ETCD_FIO_ENGINE.\n";

static int run(const cli_cmd *cmd, int argc, char **argv);
const cli_cmd cmd_check_def = {"check", run, "run the etcd profile with fio on DIR and give the verdict", usage,
                               options, outro};

static void on_signal(int sig)
{
    (void)sig;
    check_interrupted = 1;
}

static int parse_opts(const cli_cmd *cmd, int argc, char **argv, check_opts *o)
{
    memset(o, 0, sizeof *o);
    o->dir = ".";
    o->load = "s";
    o->max_time = 120;
    o->confidence = 0.95;
    o->min_syncs = 100;
    cli_parse p;
    cli_parse_init(&p, cmd, argc, argv);
    int c;
    while ((c = cli_next(&p)) > 0) {
        switch (c) {
        case 'l':
            if (!prof_load_valid(p.arg)) {
                cli_err(cmd, "--load %.100s: expected s, m, l or xl", p.arg);
                return -1;
            }
            o->load = p.arg;
            break;
        case 't': if (cli_double(&p, 1, 86400, &o->max_time)) return -1; break;
        case 'n': if (cli_uint(&p, 1, 1000000000, &o->min_syncs)) return -1; break;
        case 'c': if (cli_double(&p, 0.5, 0.9999, &o->confidence)) return -1; break;
        case 'F': o->full = 1; break;
        case 'j': o->json = 1; break;
        case 'p': o->prom = p.arg; break;
        case 's': o->svg = p.arg; break;
        case 'H': o->html = p.arg; break;
        case 'k': o->keep = p.arg; break;
        case 'i': o->ionice = 1; break;
        case 'C': o->classic = 1; break;
        case 'f': o->force = 1; break;
        case 'a': o->accept_point = 1; break;
        case 'P': o->faithful = 1; break;
        case 'E': o->stop_on_eof = 1; break;
        case 'W': o->wal_only = 1; break;
        case 'U': o->etcd_url = p.arg; break;
        case 'A': o->tls.cacert = p.arg; break;
        case 'T': o->tls.cert = p.arg; break;
        case 'K': o->tls.key = p.arg; break;
        }
    }
    if (c < 0)
        return c == CLI_HELP ? 1 : -1;
    if (p.optind < argc)
        o->dir = argv[p.optind++];
    if (p.optind < argc) {
        cli_err(cmd, "one directory expected, got also '%s'", argv[p.optind]);
        return -1;
    }
    if (o->etcd_url && !scrape_is_url(o->etcd_url)) {
        cli_err(cmd, "--etcd %s: expected an http:// or https:// URL of etcd (its /metrics)", o->etcd_url);
        return -1;
    }
    if (!o->etcd_url && (o->tls.cacert || o->tls.cert || o->tls.key)) {
        cli_err(cmd, "--cacert, --cert and --key are for --etcd URL, which is not given");
        return -1;
    }
    double min = check_min_time(o->confidence, o->min_syncs, o->accept_point);
    if (o->max_time < min) {
        cli_err(cmd, "--max-time %g: too short to ever decide: the backend commits 10 times a second and a PASS "
                "at %g confidence needs %.0f s of them; use --max-time %.0f or more%s", o->max_time, o->confidence,
                min - 5, min, o->accept_point ? "" : " (or --accept-point-estimate)");
        return -1;
    }
    return 0;
}

/* Room the run needs: segment 0, the one it rolls over to and the preallocated spare, what the load writes in
 * --max-time (WAL frames + bbolt growth, rough per-load rates of the profile), and the classic job. */
static uint64_t space_needed(const check_opts *o)
{
    double mb_per_s = !strcmp(o->load, "xl") ? 55 : !strcmp(o->load, "l") ? 30 : !strcmp(o->load, "m") ? 4 : 1;
    double need = 3.0 * CHECK_SEGMENT_BYTES + 16.0 * 1048576 + mb_per_s * 1048576 * o->max_time * 1.2;
    if (o->classic)
        need += 23.0 * 1048576;
    return (uint64_t)need;
}

/* Everything that can be refused before fio starts (preflight.h, and the --keep-output directory). 0 or 2
 * (message printed); what --force let through goes into forced. */
static int preflight_check(const cli_cmd *cmd, const check_opts *o, fsinfo *fi, int *keepfd,
                           check_forced *forced)
{
    char err[4400];
    const preflight_out outs[] = {{"prometheus", o->prom}, {"svg", o->svg}, {"html", o->html}};
    if (preflight(cmd, o->dir, space_needed(o), o->force, outs, sizeof outs / sizeof outs[0], fi,
                  forced))
        return 2;
    if (o->keep && (*keepfd = of_dir_open(o->keep, err, sizeof err)) < 0) {
        cli_err(cmd, "--keep-output %s", err);
        return 2;
    }
    return 0;
}

/* The files of one phase's run, in its temp dir (check_keep takes the deciding one's by these names). */
typedef struct phase_files {
    char job[4200], err[4200], ws[4200], bs[4200];
} phase_files;

static void files_in(phase_files *f, const char *dir)
{
    cli_msg(f->job, sizeof f->job, "%s/etcd-profile.fio", dir);
    cli_msg(f->err, sizeof f->err, "%s/fio.stderr", dir);
    cli_msg(f->ws, sizeof f->ws, "%s/wal-stats.json", dir);
    cli_msg(f->bs, sizeof f->bs, "%s/backend-stats.json", dir);
}

static int write_job(const cli_cmd *cmd, const phase_files *f, prof_opts *po)
{
    char err[512];
    po->wal_stats_file = f->ws;
    po->backend_stats_file = f->bs;
    FILE *jf = fopen(f->job, "wx");
    if (!jf || prof_write(jf, po, err, sizeof err) != 0) {
        cli_err(cmd, "%s: %s", f->job, jf ? err : strerror(errno));
        if (jf)
            fclose(jf);
        return -1;
    }
    fclose(jf);
    return 0;
}

/* The engine inside fio saw a library that can replace file and sync calls there (a wrapper that preloads
 * it only into fio: not visible before the run): no verdict from such a run, unless --force. */
static void refuse_interposed(const check_opts *o, const phase_files *f, rm_host *h, check_forced *forced)
{
    char seen[1100] = "", err[64];
    const char *files[2] = {f->ws, f->bs};
    int known = 0;
    for (int i = 0; i < 2 && !seen[0]; i++) {
        char *t = cli_read_file(files[i], 1 << 20, NULL, err, sizeof err);
        known |= check_env_interposers(t, seen, sizeof seen);
        free(t);
    }
    if (!seen[0] && !known && h->verdict == FIOR_PASS) { /* what the engine saw in fio is not known */
        if (o->force) {
            check_forced_add(forced, "no engine stats file: whether fio ran with a preloaded library is not known");
            return;
        }
        cli_msg(seen, sizeof seen, "no engine stats file (%.900s): whether fio ran with a preloaded library is "
                "not known", f->ws);
        h->verdict = FIOR_UNKNOWN;
        h->basis = RM_BASIS_NONE;
        cli_msg(h->status, sizeof h->status, "refused");
        cli_msg(h->reason, sizeof h->reason, "%s; not judged (see that fio can write the stats file under TMPDIR, "
                "or --force)", seen);
        for (size_t i = 0; i < h->njobs; i++)
            h->jobs[i].verdict = h->jobs[i].verdict == FIOR_PASS ? FIOR_UNKNOWN : h->jobs[i].verdict;
        return;
    }
    if (!seen[0])
        return;
    if (o->force) {
        check_forced_add(forced, "in fio: %s", seen);
        return;
    }
    h->verdict = FIOR_UNKNOWN;
    h->basis = RM_BASIS_NONE;
    cli_msg(h->status, sizeof h->status, "refused");
    cli_msg(h->reason, sizeof h->reason, "fio ran with %s: a preloaded library can replace its file and sync calls "
            "(eatmydata makes fdatasync a no-op), so the figures need not be the disk's; not judged (run fio "
            "without it, or --force)", seen);
    for (size_t i = 0; i < h->njobs; i++)
        h->jobs[i].verdict = FIOR_UNKNOWN;
}

static int run(const cli_cmd *cmd, int argc, char **argv)
{
    check_opts o;
    int prc = parse_opts(cmd, argc, argv, &o);
    if (prc)
        return prc > 0 ? 0 : 2;
    fsinfo fi;
    check_forced forced = {.n = 0};
    int keepfd = -1, rc = 2, unended = 0;
    if (preflight_check(cmd, &o, &fi, &keepfd, &forced))
        return 2;
    mp_snap mem0, mem1;
    mp_read(&mem0);
    /* live etcd (liveetcd.h, etcdwatch.h): who shares this filesystem, and --etcd's watch on it */
    liveetcd le;
    etcdwatch *watch = NULL;
    liveetcd_find(fi.path, fi.dev_major, fi.dev_minor, &le);
    if (le.found && !o.etcd_url)
        cli_err(cmd, "warning: a live etcd uses this filesystem (%s): the check slows it while it runs, and nothing "
                "watches it (--etcd URL stops the check before it hurts etcd)", le.how);
    char engine[PATH_MAX], tmp[4096], err[4400];
    if (engine_path_find(engine, sizeof engine) != 0) {
        cli_err(cmd, "%s", engine);
        goto out_keep;
    }
    /* the engine path and the stats files (under TMPDIR) are values in the job file too */
    if (cli_dir_ok(engine, err, sizeof err)) {
        cli_err(cmd, "engine %s", err);
        goto out_keep;
    }
    if (cli_tmpdir("check", tmp, sizeof tmp, err, sizeof err)) {
        cli_err(cmd, "%s", err);
        goto out_keep;
    }
    if (cli_dir_ok(tmp, err, sizeof err)) {
        cli_err(cmd, "TMPDIR: %s", err);
        goto out_tmp;
    }
    fior_criteria *crit = fior_criteria_new();
    if (!crit) {
        cli_err(cmd, "out of memory");
        goto out_tmp;
    }
    if (o.min_syncs < fior_criteria_min_samples(crit))
        fior_criteria_set_min_samples(crit, o.min_syncs);

    /* a fio killed from outside leaves its job processes writing on: they become ours, and are ended
     * after each phase (proc.h) */
    proc_adopt_orphans();
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL); /* a hung-up terminal or ssh pty: stop and clean up, as on SIGINT */
    signal(SIGPIPE, SIG_IGN);
    if (o.etcd_url) { /* live etcd: the first scrape, before anything loads the disk */
        if (!(watch = etcdwatch_start(o.etcd_url, &o.tls, NULL, &le, o.force, err, sizeof err))) {
            cli_err(cmd, "--etcd %s", err);
            goto out_crit;
        }
        etcdwatch_describe_start(watch, err, sizeof err);
        cli_err(cmd, "%s", err);
    }

    /* phase 1 (fioreport.h "two phases"): the heavy profile in a temp dir of its own, at most
     * FIOR_PHASE1_MAX_S */
    phase_files f1, f2;
    files_in(&f2, tmp);
    prof_opts po = {.load = o.load, .dir = fi.path, .engine_path = engine, .ionice = o.ionice};
    check_run_out r1, ro;
    memset(&r1, 0, sizeof r1);
    memset(&ro, 0, sizeof ro);
    check_phase ph1 = {.heavy = 1, .runtime_s = (unsigned)FIOR_PHASE1_MAX_S}, ph2 = {0};
    int p1 = 0, p1_pass = 0, ran2 = 0;
    fior_outcome *out1 = NULL, *out2 = NULL, *od = NULL;
    char tmp1[4096] = "";
    if (!o.full && !o.faithful) {
        if (cli_tmpdir("check-phase1", tmp1, sizeof tmp1, err, sizeof err)) {
            cli_err(cmd, "%s", err);
            goto out_crit;
        }
        files_in(&f1, tmp1);
        po.heavy = 1;
        po.runtime_s = ph1.runtime_s;
        if (write_job(cmd, &f1, &po) || check_run(&o, crit, f1.job, f1.err, &ph1, &r1, err, sizeof err)) {
            if (err[0])
                cli_err(cmd, "%s", err);
            goto out_runs;
        }
        p1 = 1;
        out1 = check_outcome(&r1); /* a PASS of the bounds; the library's outcome says whether it is one */
        p1_pass = r1.end.stop == CHECK_DECIDED && fior_outcome_verdict(out1) == FIOR_PASS;
    }
    /* phase 2: the faithful profile, as check always ran it; after a phase-1 PASS its first seconds are the
     * probe that confirms it (then it is stopped), else it decides. --max-time bounds both phases together,
     * but phase 2 keeps the time a decision needs. */
    if (!check_interrupted && !etcdwatch_tripped()) {
        double left = o.max_time - (p1 ? r1.end.duration_s : 0);
        double need = check_min_time(o.confidence, o.min_syncs, o.accept_point);
        check_opts o2 = o;
        o2.max_time = left > need ? left : need;
        ph2.runtime_s = (unsigned)ceil(o2.max_time);
        ph2.carry = p1 ? r1.mon : NULL;
        ph2.probe = p1_pass;
        po.heavy = 0;
        po.runtime_s = ph2.runtime_s;
        if (write_job(cmd, &f2, &po) || check_run(&o2, crit, f2.job, f2.err, &ph2, &ro, err, sizeof err)) {
            if (err[0])
                cli_err(cmd, "%s", err);
            goto out_runs;
        }
        ran2 = 1;
        out2 = check_outcome(&ro);
    }
    etcdwatch_stop(watch); /* live etcd: the scrape after the run */
    int confirmed = p1_pass && ran2 && ro.end.stop == CHECK_CONFIRMED;
    /* the run the verdict comes from (the library's rule: phase 1 only when phase 2 confirmed it) */
    od = fior_outcome_phases(out1, out2, confirmed);
    out1 = out2 = NULL;
    if (!p1 && !ran2) { /* stopped before any phase ran: the library says so from an empty run */
        fior_monitor *m0 = check_monitor(&o, crit, 0);
        fior_run_facts f0 = {.size = sizeof f0, .stop = FIOR_STOP_USER};
        od = m0 ? fior_monitor_end(m0, NULL, &f0) : NULL;
        fior_monitor_free(m0);
    }
    const check_run_out *dr = fior_outcome_phase(od) == 2 || !p1 ? &ro : &r1;
    const phase_files *df = dr == &ro ? &f2 : &f1;
    const char *dtmp = dr == &ro ? tmp : tmp1;

    rm_run r;
    rm_init(&r, "check", crit);
    r.confidence = o.confidence;
    r.load = o.load;
    rm_host *h = rm_add_host(&r);
    if (!h || !od) {
        cli_err(cmd, "out of memory");
        rm_free(&r);
        goto out_runs;
    }
    cli_hostname(h->host, sizeof h->host);
    cli_msg(h->dir, sizeof h->dir, "%s", fi.path);
    const fior_report *fin = fior_json_stream_report(dr->stream);
    check_fill(od, fin, h);
    const fior_job *wj = check_find_job(fin, FIOR_ROLE_WAL);
    if (wj && wj->fio_version) {
        cli_msg(r.fio_version, sizeof r.fio_version, "%s", wj->fio_version);
        cli_msg(h->fio_version, sizeof h->fio_version, "%s", wj->fio_version);
    }
    engine_stats ws, bs;
    char *t = cli_read_file(df->ws, 1 << 20, NULL, err, sizeof err);
    engine_stats_parse(t, &ws);
    free(t);
    t = cli_read_file(df->bs, 1 << 20, NULL, err, sizeof err);
    engine_stats_parse(t, &bs);
    free(t);
    if (ws.present)
        h->rollovers = ws.rollovers;
    refuse_interposed(&o, df, h, &forced);
    h->duration_s = r1.end.duration_s + ro.end.duration_s;
    if (!fin || !wj) { /* fio's last words, when it had any (never an empty "()") */
        const char *fs = dr->end.fio_said, *se = dr->end.stream_error;
        cli_err(cmd, "no WAL job result in fio's output%s%s%s%s%s", fs[0] || se[0] ? " (" : "", fs,
                fs[0] && se[0] ? "; " : "", se, fs[0] || se[0] ? ")" : "");
    }
    r.basis = h->basis;
    rm_finish(&r);
    cli_msg(r.reason, sizeof r.reason, "%s", h->reason);

    mp_read(&mem1); /* the profile's run only, not the classic job's */
    classic_out cl = {0};
    if (o.classic && !check_interrupted && !etcdwatch_tripped()) {
        if (isatty(2))
            fprintf(stderr, "running the classic fio job (10,029 fdatasyncs of 2300 bytes) in %s ...\n", fi.path);
        check_classic(fi.path, tmp, crit, &cl);
    }
    check_details(&r, &o, &dr->end, &ws, &bs, &cl, &fi);
    mp_result mem;
    mp_diff(&mem0, &mem1, h->duration_s, &mem);
    check_forced_detail(&r, &forced);
    check_phases_detail(&r, p1 ? &r1 : NULL, ran2 ? &ro : NULL, dr == &r1 && p1);
    rm_explain_jobs(&r, ws.present && ws.rollovers ? ws.cut_max_ns : RM_UNKNOWN);
    check_env_details(&r, &fi, &mem); /* after the jobs' lines: the environment's explain them */
    liveetcd_report(&le, &r); /* live etcd: what was found; what the watch saw (a guard stop: unknown) */
    if (watch) {
        etcdwatch_report(watch, &r, h);
        r.basis = h->basis;
        rm_finish(&r);
        cli_msg(r.reason, sizeof r.reason, "%s", h->reason);
    }
    rc = cli_exit_status(r.verdict);
    if (o.json)
        out_json(stdout, &r);
    else
        out_table(stdout, &r);
    fflush(stdout);
    char desc[1024];
    fsinfo_describe(&fi, desc, sizeof desc);
    if (o.prom && out_file(o.prom, OUT_PROM, &r, err, sizeof err) != 0) {
        cli_err(cmd, "--prometheus %s", err);
        rc = 2;
    }
    if (o.svg && check_svg(&r, o.svg, desc, err, sizeof err) != 0) {
        cli_err(cmd, "--svg %s", err);
        rc = 2;
    }
    if (o.html && check_html(&r, o.html, desc, err, sizeof err) != 0) {
        cli_err(cmd, "--html %s", err);
        rc = 2;
    }
    if (keepfd >= 0 && check_keep(keepfd, &o, dtmp, dr->raw, dr->rawlen, err, sizeof err) != 0) {
        cli_err(cmd, "--keep-output %s", err);
        rc = 2;
    }
    rm_free(&r);
out_runs:
    fior_outcome_free(od);
    fior_outcome_free(out1);
    fior_outcome_free(out2);
    /* a fio that SIGKILL could not end keeps its temp dirs locked (tmpdir.h): left for a later run to reap */
    unended = r1.end.unended || ro.end.unended;
    check_run_free(&r1);
    check_run_free(&ro);
    if (tmp1[0])
        (unended ? tmpdir_leave : cli_tmpdir_remove)(tmp1);
out_crit:
    etcdwatch_free(watch);
    fior_criteria_free(crit);
out_tmp:
    (unended ? tmpdir_leave : cli_tmpdir_remove)(tmp);
out_keep:
    if (keepfd >= 0)
        close(keepfd);
    return rc;
}
