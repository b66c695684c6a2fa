/* SPDX-License-Identifier: MIT */
/* cmd_check.c — `etcd-fio check [DIR]`: the one command an operator runs. Its options, then a session of
 * named steps (check_session): preflight (every refusal that can be made before fio starts: bad directory,
 * wrong filesystem, too little room, a run too short to decide, an output path that cannot be written),
 * prepare, the two phases (check_run.c), decide (the library's outcome into the result model: check_judge.c),
 * explain (check_out.c, check_env.c) and outputs (the result model's writers). */
#include <limits.h>
#include <math.h>
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
    CLI_OPT("load", 'l', "L", "etcdctl check perf load level: s (default), m, l, xl; or k8s[:NODES], a Kubernetes "
            "control plane of NODES nodes (default 100, at most 5000): node Leases every 10 s, Node status every 5 min"),
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
    CLI_OPT_VERBOSE,
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
    CLI_OPT("fio", 'X', "PATH", "run this fio instead of the bundled one or the one in PATH; the engine must be "
            "built against that fio's source (ETCD_FIO_ENGINE)"),
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
            if (!profile_load_valid(p.arg)) {
                cli_err(cmd, "--load %.100s: " PROFILE_LOADS_EXPECTED, p.arg);
                return -1;
            }
            o->load = p.arg;
            break;
        case 't': if (cli_double(&p, 1, 86400, &o->max_time)) return -1; break;
        case 'n': if (cli_uint(&p, 1, 1000000000, &o->min_syncs)) return -1; break;
        case 'c': if (cli_double(&p, 0.5, 0.9999, &o->confidence)) return -1; break;
        case 'F': o->full = 1; break;
        case 'v': o->verbose = 1; break;
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
        case 'X':
            setenv("FIO", p.arg, 1); /* cli_fio(): every fio this process starts */
            if (!getenv("ETCD_FIO_ENGINE"))
                fprintf(stderr, "etcd-fio: --fio %s needs an engine built against its source: set ETCD_FIO_ENGINE\n",
                        p.arg);
            break;
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
    char why[160];
    double min = check_min_time(o->confidence, o->min_syncs, o->accept_point, o->load, o->wal_only, why, sizeof why);
    if (o->max_time < min) {
        cli_err(cmd, "--max-time %g: too short to ever decide: %s at %g confidence; use --max-time %.0f or more%s",
                o->max_time, why, o->confidence, min, o->accept_point ? "" : " (or --accept-point-estimate)");
        return -1;
    }
    return 0;
}

/* Room the run needs: segment 0, the one it rolls over to and the preallocated spare, what the load writes in
 * --max-time (WAL frames + bbolt growth, rough per-load rates of the profile), and the classic job. */
static uint64_t space_needed(const check_opts *o)
{
    double mb_per_s = profile_mb_per_s(o->load);
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
    char err[CLI_ERRLEN];
    const preflight_out outs[] = {{"prometheus", o->prom}, {"svg", o->svg}, {"html", o->html}};
    if (preflight(cmd, o->dir, space_needed(o), o->force, outs, sizeof outs / sizeof outs[0], fi,
                  forced))
        return 2;
    if (o->keep && (*keepfd = outfile_dir_open(o->keep, err, sizeof err)) < 0) {
        cli_err(cmd, "--keep-output %s", err);
        return 2;
    }
    return 0;
}

/* check as a session of named steps, each over this context: preflight (the refusals before anything
 * runs), prepare (engine, temp dirs, criteria, signals, the live etcd's watch), phases (fio on phase 1
 * and phase 2), decide (the library's outcome into the result model), explain (the details and explain
 * lines) and outputs; session_end releases what the steps made, whichever step stopped. A step returns 0
 * to go on, or 2 after its message. */
typedef struct check_session {
    const cli_cmd *cmd;
    check_opts     o;
    fsinfo         fi;
    check_forced   forced;          /* what --force let through */
    int            keepfd;          /* --keep-output's directory, -1 */
    mempress_snap        mem0, mem1;      /* memory pressure before and after the profile's run */
    liveetcd       le;
    etcdwatch     *watch;           /* --etcd */
    char           engine[PATH_MAX];
    char           tmp[4096], tmp1[4096]; /* phase 2's (and the classic job's) temp dir, phase 1's */
    int            have_tmp, have_tmp1;
    fior_criteria *crit;
    check_files    f1, f2;
    check_run_out  r1, r2;          /* phase 1's run, phase 2's */
    int            p1, p1_pass, ran2;
    fior_outcome  *out1, *out2, *od; /* each phase's outcome; the verdict's (fior__outcome_phases) */
    const check_run_out *dr;        /* the deciding run, its files and temp dir */
    const check_files   *df;
    const char          *dtmp;
    result_run         r;
    int            have_r;
    result_host       *h;
    engine_stats   ws, bs;          /* the deciding run's engine stats: WAL, backend */
} check_session;

static int session_preflight(check_session *s)
{
    if (preflight_check(s->cmd, &s->o, &s->fi, &s->keepfd, &s->forced))
        return 2;
    mempress_read(&s->mem0);
    /* live etcd (liveetcd.h, etcdwatch.h): who shares this filesystem, and --etcd's watch on it */
    liveetcd_find(s->fi.path, s->fi.dev_major, s->fi.dev_minor, &s->le);
    if (s->le.found && !s->o.etcd_url)
        cli_err(s->cmd, "warning: a live etcd uses this filesystem (%s): the check slows it while it runs, and "
                "nothing watches it (--etcd URL stops the check before it hurts etcd)", s->le.how);
    return 0;
}

static int session_prepare(check_session *s)
{
    const cli_cmd *cmd = s->cmd;
    char err[CLI_ERRLEN];
    if (engine_path_find(s->engine, sizeof s->engine) != 0) {
        cli_err(cmd, "%s", s->engine);
        return 2;
    }
    /* the engine path and the stats files (under TMPDIR) are values in the job file too */
    if (cli_dir_ok(s->engine, err, sizeof err)) {
        cli_err(cmd, "engine %s", err);
        return 2;
    }
    if (cli_tmpdir("check", s->tmp, sizeof s->tmp, err, sizeof err)) {
        cli_err(cmd, "%s", err);
        return 2;
    }
    s->have_tmp = 1;
    if (cli_dir_ok(s->tmp, err, sizeof err)) {
        cli_err(cmd, "TMPDIR: %s", err);
        return 2;
    }
    if (!(s->crit = fior_criteria_new())) {
        cli_err(cmd, "out of memory");
        return 2;
    }
    if (s->o.min_syncs < fior_criteria_min_samples(s->crit))
        fior_criteria_set_min_samples(s->crit, s->o.min_syncs);
    /* a fio killed from outside leaves its job processes writing on: they become ours, and are ended
     * after each phase (proc.h) */
    proc_adopt_orphans();
    /* SIGHUP too: a hung-up terminal or ssh pty stops and cleans up, as SIGINT does */
    cli_stop_on_signals(&check_interrupted, CLI_STOP_HUP | CLI_STOP_NOPIPE, NULL);
    if (s->o.etcd_url) { /* live etcd: the first scrape, before anything loads the disk */
        if (!(s->watch = etcdwatch_start(s->o.etcd_url, &s->o.tls, NULL, &s->le, s->o.force, err, sizeof err))) {
            cli_err(cmd, "--etcd %s", err);
            return 2;
        }
        etcdwatch_describe_start(s->watch, err, sizeof err);
        cli_err(cmd, "%s", err);
    }
    return 0;
}

/* One phase: its job file in f, then fio on it (check_run.c). */
static int run_phase(check_session *s, const check_files *f, const check_opts *o, const check_phase *ph,
                     check_run_out *out)
{
    char err[CLI_ERRLEN] = "";
    profile_opts po = {.load = s->o.load, .dir = s->fi.path, .engine_path = s->engine, .ionice = s->o.ionice,
                    .heavy = ph->heavy, .runtime_s = ph->runtime_s};
    if (check_write_job(f, &po, err, sizeof err) || check_run(o, s->crit, f->job, f->err, ph, out, err, sizeof err)) {
        if (err[0])
            cli_err(s->cmd, "%s", err);
        return 2;
    }
    return 0;
}

/* phase 1 (fioreport_cli.h "two phases"): the heavy profile in a temp dir of its own, at most FIOR_PHASE1_MAX_S */
static int session_phase1(check_session *s)
{
    char err[CLI_ERRLEN];
    if (cli_tmpdir("check-phase1", s->tmp1, sizeof s->tmp1, err, sizeof err)) {
        cli_err(s->cmd, "%s", err);
        return 2;
    }
    s->have_tmp1 = 1;
    check_files_in(&s->f1, s->tmp1);
    check_phase ph1 = {.heavy = 1, .runtime_s = (unsigned)FIOR_PHASE1_MAX_S};
    if (run_phase(s, &s->f1, &s->o, &ph1, &s->r1))
        return 2;
    s->p1 = 1;
    s->out1 = check_outcome(&s->r1); /* a PASS of the bounds; the library's outcome says whether it is one */
    s->p1_pass = s->r1.end.stop == CHECK_DECIDED && fior_outcome_verdict(s->out1) == FIOR_PASS;
    return 0;
}

/* phase 2: the faithful profile; after a phase-1 PASS its first seconds are the probe that confirms it
 * (then it is stopped), else it decides. --max-time bounds both phases together, but phase 2 keeps the
 * time a decision needs. */
static int session_phase2(check_session *s)
{
    double left = s->o.max_time - (s->p1 ? s->r1.end.duration_s : 0);
    double need = check_min_time(s->o.confidence, s->o.min_syncs, s->o.accept_point, s->o.load, s->o.wal_only, NULL, 0);
    check_opts o2 = s->o;
    o2.max_time = left > need ? left : need;
    check_phase ph2 = {.runtime_s = (unsigned)ceil(o2.max_time), .carry = s->p1 ? s->r1.mon : NULL,
                       .probe = s->p1_pass};
    if (run_phase(s, &s->f2, &o2, &ph2, &s->r2))
        return 2;
    s->ran2 = 1;
    s->out2 = check_outcome(&s->r2);
    return 0;
}

/* The phases, then the run the verdict comes from (the library's rule: phase 1 only when phase 2
 * confirmed it). */
static int session_phases(check_session *s)
{
    check_files_in(&s->f2, s->tmp);
    if (!s->o.full && !s->o.faithful && session_phase1(s))
        return 2;
    if (!check_interrupted && !etcdwatch_tripped() && session_phase2(s))
        return 2;
    etcdwatch_stop(s->watch); /* live etcd: the scrape after the run */
    int confirmed = s->p1_pass && s->ran2 && s->r2.end.stop == CHECK_CONFIRMED;
    s->od = fior__outcome_phases(s->out1, s->out2, confirmed);
    s->out1 = s->out2 = NULL;
    if (!s->p1 && !s->ran2) { /* stopped before any phase ran: the library says so from an empty run */
        fior_monitor *m0 = check_monitor(&s->o, s->crit, 0);
        fior__run_facts f0 = {.size = sizeof f0, .stop = FIOR_STOP_USER};
        s->od = m0 ? fior__monitor_end(m0, NULL, &f0) : NULL;
        fior_monitor_free(m0);
    }
    s->dr = fior__outcome_phase(s->od) == 2 || !s->p1 ? &s->r2 : &s->r1;
    s->df = s->dr == &s->r2 ? &s->f2 : &s->f1;
    s->dtmp = s->dr == &s->r2 ? s->tmp : s->tmp1;
    return 0;
}

static void read_engine_stats(const char *path, engine_stats *st)
{
    char err[CLI_ERRLEN];
    char *t = cli_read_file(path, 1 << 20, NULL, err, sizeof err);
    engine_stats_parse(t, st);
    free(t);
}

/* The library's outcome of the deciding run into the result model's host, and what the CLI refuses on top
 * (a preloaded library in fio). */
static int session_decide(check_session *s)
{
    result_init(&s->r, "check", s->crit);
    s->have_r = 1;
    s->r.confidence = s->o.confidence;
    s->r.load = s->o.load;
    result_host *h = s->h = result_add_host(&s->r);
    if (!h || !s->od) {
        cli_err(s->cmd, "out of memory");
        return 2;
    }
    cli_hostname(h->host, sizeof h->host);
    cli_msg(h->dir, sizeof h->dir, "%s", s->fi.path);
    const fior_report *fin = fior_json_stream_report(s->dr->stream);
    check_fill(s->od, fin, h);
    /* fio's JSON has no disk stats for an external engine, so the library can only infer the medium (on a
     * pass) or say nothing of it (on a fail); check looked at the directory itself before the run
     * (preflight_check: statfs, mountinfo, sysfs), whatever the verdict */
    char why[2048];
    if (!fsinfo_layer_reason(&s->fi, why, sizeof why))
        for (size_t k = 0; k < h->njobs; k++)
            if (!h->jobs[k].medium || !strcmp(h->jobs[k].medium, "inferred")) {
                h->jobs[k].medium = "disk";
                fsinfo_describe(&s->fi, why, sizeof why);
                cli_msg(h->jobs[k].medium_reason, sizeof h->jobs[k].medium_reason, "%s", why);
            }
    const fior_job *wj = check_find_job(fin, FIOR_ROLE_WAL);
    if (wj && wj->fio_version) {
        cli_msg(s->r.fio_version, sizeof s->r.fio_version, "%s", wj->fio_version);
        cli_msg(h->fio_version, sizeof h->fio_version, "%s", wj->fio_version);
    }
    read_engine_stats(s->df->ws, &s->ws);
    read_engine_stats(s->df->bs, &s->bs);
    if (s->ws.present)
        h->rollovers = s->ws.rollovers;
    check_refuse_interposed(s->df->ws, s->df->bs, s->o.force, h, &s->forced);
    h->duration_s = s->r1.end.duration_s + s->r2.end.duration_s;
    if (!fin || !wj) { /* fio's last words, when it had any (never an empty "()") */
        const char *fs = s->dr->end.fio_said, *se = s->dr->end.stream_error;
        cli_err(s->cmd, "no WAL job result in fio's output%s%s%s%s%s", fs[0] || se[0] ? " (" : "", fs,
                fs[0] && se[0] ? "; " : "", se, fs[0] || se[0] ? ")" : "");
    }
    s->r.basis = h->basis;
    result_finish(&s->r);
    cli_msg(s->r.reason, sizeof s->r.reason, "%s", h->reason);
    return 0;
}

/* The command that measures this disk again, adjusted for what left the verdict open: more time when the
 * bound straddled or the samples were too few. */
static void next_command(const check_session *s, char *out, size_t n)
{
    char opts[128] = "";
    const result_host *h = s->h;
    int short_of_samples = h->basis == RESULT_BASIS_UNDECIDED;
    for (size_t i = 0; i < h->njobs; i++)
        short_of_samples |= h->jobs[i].verdict == FIOR_UNKNOWN && h->jobs[i].samples != RESULT_UNKNOWN &&
                            h->jobs[i].samples < s->r.min_samples;
    if (s->o.wal_only)
        cli_msg(opts + strlen(opts), sizeof opts - strlen(opts), "--wal-only ");
    if (strcmp(s->o.load, "s"))
        cli_msg(opts + strlen(opts), sizeof opts - strlen(opts), "--load %s ", s->o.load);
    if (short_of_samples)
        cli_msg(opts + strlen(opts), sizeof opts - strlen(opts), "--max-time %.0f ", ceil(s->o.max_time * 2));
    if (opts[0])
        opts[strlen(opts) - 1] = '\0';
    explain_check_cmd(out, n, opts, s->fi.path);
}

/* The details and explain lines of the result: the run, the classic job (run here, after the profile),
 * --force, the phases, the environment, and the live etcd (whose guard stop makes the verdict unknown). */
static void session_explain(check_session *s)
{
    result_run *r = &s->r;
    mempress_read(&s->mem1); /* the profile's run only, not the classic job's */
    classic_out cl = {0};
    if (s->o.classic && !check_interrupted && !etcdwatch_tripped()) {
        if (isatty(2))
            fprintf(stderr, "running the classic fio job (10,029 fdatasyncs of 2300 bytes) in %s ...\n", s->fi.path);
        check_classic(s->fi.path, s->tmp, s->crit, &cl);
    }
    check_details(r, &s->o, &s->dr->end, &s->ws, &s->bs, &cl, &s->fi);
    mempress_result mem;
    mempress_diff(&s->mem0, &s->mem1, s->h->duration_s, &mem);
    check_forced_detail(r, &s->forced);
    check_phases_detail(r, s->p1 ? &s->r1 : NULL, s->ran2 ? &s->r2 : NULL, s->dr == &s->r1 && s->p1);
    char next[EXPLAIN_NEXT_MAX];
    next_command(s, next, sizeof next);
    result_explain_jobs(r, s->ws.present && s->ws.rollovers ? s->ws.cut_max_ns : RESULT_UNKNOWN, s->fi.fstype, next);
    check_env_details(r, &s->fi, &mem); /* after the jobs' lines: the environment's explain them */
    liveetcd_report(&s->le, r); /* live etcd: what was found; what the watch saw (a guard stop: unknown) */
    if (s->watch) {
        etcdwatch_report(s->watch, r, s->h);
        r->basis = s->h->basis;
        result_finish(r);
        cli_msg(r->reason, sizeof r->reason, "%s", s->h->reason);
    }
    result_explain_finish(r, 1, next);
}

/* The result on stdout, then the files asked for; the exit status (2 when a file could not be written). */
static int session_outputs(check_session *s)
{
    const cli_cmd *cmd = s->cmd;
    result_run *r = &s->r;
    char err[CLI_ERRLEN], desc[1024];
    r->verbose = s->o.verbose;
    int rc = cli_exit_status(r->verdict);
    if (s->o.json)
        out_json(stdout, r);
    else
        out_table(stdout, r);
    fflush(stdout);
    fsinfo_describe(&s->fi, desc, sizeof desc);
    if (s->o.prom && out_file(s->o.prom, OUT_PROM, r, err, sizeof err) != 0) {
        cli_err(cmd, "--prometheus %s", err);
        rc = 2;
    }
    if (s->o.svg && check_svg(r, s->o.svg, desc, err, sizeof err) != 0) {
        cli_err(cmd, "--svg %s", err);
        rc = 2;
    }
    if (s->o.html && check_html(r, s->o.html, desc, err, sizeof err) != 0) {
        cli_err(cmd, "--html %s", err);
        rc = 2;
    }
    if (s->keepfd >= 0 && check_keep(s->keepfd, &s->o, s->dtmp, s->dr->raw, s->dr->rawlen, err, sizeof err) != 0) {
        cli_err(cmd, "--keep-output %s", err);
        rc = 2;
    }
    return rc;
}

/* Whatever the steps made, in the reverse order. A fio that SIGKILL could not end keeps its temp dirs
 * locked (tmpdir.h): they are left for a later run to reap. */
static void session_end(check_session *s)
{
    if (s->have_r)
        result_free(&s->r);
    fior_outcome_free(s->od);
    fior_outcome_free(s->out1);
    fior_outcome_free(s->out2);
    int unended = s->r1.end.unended || s->r2.end.unended;
    check_run_free(&s->r1);
    check_run_free(&s->r2);
    if (s->have_tmp1)
        (unended ? tmpdir_leave : cli_tmpdir_remove)(s->tmp1);
    etcdwatch_free(s->watch);
    fior_criteria_free(s->crit);
    if (s->have_tmp)
        (unended ? tmpdir_leave : cli_tmpdir_remove)(s->tmp);
    if (s->keepfd >= 0)
        close(s->keepfd);
}

static int run(const cli_cmd *cmd, int argc, char **argv)
{
    check_session s = {.cmd = cmd, .keepfd = -1};
    int prc = parse_opts(cmd, argc, argv, &s.o);
    if (prc)
        return prc > 0 ? 0 : 2;
    int rc = 2;
    if (!session_preflight(&s) && !session_prepare(&s) && !session_phases(&s) && !session_decide(&s)) {
        session_explain(&s);
        rc = session_outputs(&s);
    }
    session_end(&s);
    return rc;
}
