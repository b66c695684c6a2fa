/* SPDX-License-Identifier: MIT */
/* cmd_fleet.c — `etcd-fio fleet`: judge many etcd nodes at once, through OpenSSH (--ssh: `etcd-fio check
 * --json` runs on each node, fleet_ssh*.c, fleet_remote.c) and/or through fio's own client/server mode
 * (--client: every node runs `fio --server` and this command is the fio client: every server is probed,
 * fleet_run.c, the profile runs on every usable server at once, and fio's client_stats are judged per host,
 * fleet_judge.c). Both kinds of host go into one result model: one table, one JSON, one Prometheus file. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "cli.h"
#include "engine_path.h"
#include "fleet.h"
#include "out.h"
#include "outfile.h"
#include "profile.h"

#define STR_(x) #x
#define STR(x)  STR_(x)

static const char usage[] =
"usage: etcd-fio fleet [OPTIONS] --ssh [USER@]HOST[:DIR]... | --ssh-hosts FILE\n"
"       etcd-fio fleet [OPTIONS] --client HOST[,PORT]... | --clients FILE\n"
"\n"
"Judges many etcd nodes at once and prints one row per host and job, worst host first (both kinds of host\n"
"may be mixed in one run).\n";

static const cli_opt fleet_options[] = {
    CLI_GROUP("\nOver ssh (recommended): runs `etcd-fio check --json` on each node through this machine's OpenSSH\n"
              "client (BatchMode: never a password prompt; your keys, known_hosts and ssh_config: aliases, Port, User,\n"
              "ProxyJump) and re-checks every remote result: a host passes only when its numbers prove it under this\n"
              "run's criteria. A host that is unreachable, refuses the key, has no or another etcd-fio, times out or\n"
              "prints anything but its JSON is UNKNOWN with the reason. SIGINT/SIGTERM close every session: each\n"
              "remote check stops its fio and removes its files."),
    CLI_OPTM("ssh", 'S', "[USER@]HOST[:DIR]", "a node (HOST as ssh takes it; DIR there, default --dir); repeat for "
             "more"),
    CLI_OPTM("ssh-hosts", 'H', "FILE", "one [USER@]HOST[:DIR] per line; blank lines and # comments are ignored"),
    CLI_OPT("parallel", 'P', "N", "at most N remote checks at once, 1..256 (default " STR(FLEET_SSH_PARALLEL) ")"),
    CLI_OPT("max-time", 't', "S", "the remote check's --max-time (default 120)"),
    CLI_OPT("min-syncs", 'm', "N", "the remote check's --min-syncs (default 100)"),
    CLI_OPT("full", 'F', NULL, "the remote check's --full"),
    CLI_OPT("faithful", 'A', NULL, "the remote check's --faithful (--load, --confidence and "
            "--accept-point-estimate also go to every remote check)"),
    CLI_OPT("ssh-timeout", 'T', "S", "give up on a host after S seconds (default: --max-time + 80)"),
    CLI_OPT("remote-etcd-fio", 'R', "PATH", "the etcd-fio to run on the nodes (default: etcd-fio in the remote PATH)"),
    CLI_OPT("ssh-config", 'G', "FILE", "ssh -F FILE (default: your ~/.ssh/config); ssh is $ETCD_FIO_SSH or ssh"),
    CLI_GROUP("\nThrough fio's client/server mode: every node runs `fio --server`, with the same fio version as this\n"
              "machine and libetcdwal.so at the same path as here (checked first, without writing anything).\n"
              "WARNING: fio's server runs ANY job a client sends, as its own user (root, to reach /var/lib/etcd): any\n"
              "file (filename=), any shell command (exec_prerun=), no password. Whoever reaches its port owns the\n"
              "node. Bind it to loopback (fio --server=ip:127.0.0.1) and reach it through\n"
              "`ssh -L 8765:127.0.0.1:8765 NODE` (man etcd-fio: SECURITY); a --client that is not a loopback address\n"
              "gets this warning on stderr."),
    CLI_OPTM("client", 'c', "HOST[,PORT]", "a fio server (default port " STR(FLEET_DEFAULT_PORT) "); repeat for more"),
    CLI_OPTM("clients", 'C', "FILE", "one `HOST[,PORT] [DIR]` per line; blank lines and # comments are ignored"),
    CLI_OPT("runtime", 'r', "S", "seconds of the run on every server (default: the profile's 60; a runtime too "
            "short for the backend's p99 bound to ever show a PASS is refused)"),
    CLI_OPT("engine", 'e', "PATH", "libetcdwal.so path on the servers (default: where this etcd-fio finds its own)"),
    CLI_GROUP("\nFor both:"),
    CLI_OPT("dir", 'd', "DIR", "directory on the nodes (default " FLEET_DEFAULT_DIR "); the run works in a private "
            "directory under it and removes it. A DIR per host overrides it. No '#', ';', newline, quote, '\\', "
            "'`', '$' or '!' (fio's job files and the remote shell)"),
    CLI_OPT("load", 'l', "L", "load level, as `etcdctl check perf --load` (s, the default, m, l, xl), or k8s[:NODES]"),
    CLI_OPT("confidence", 'n', "C", "confidence of the bound on each p99, 0.5..0.9999 (default 0.95)"),
    CLI_OPT("accept-point-estimate", 'a', NULL, "when a host's bound straddles a threshold, give the verdict of its "
            "p99 (the point estimate) instead of UNKNOWN"),
    CLI_OPT("json", 'j', NULL, "print one JSON object (doc/etcd-fio.schema.json) instead of the table"),
    CLI_OPT_VERBOSE,
    CLI_OPT("prometheus", 'p', "FILE", "write a node_exporter textfile with one series per host (atomically)"),
    CLI_OPT("keep-output", 'k', "DIR", "keep the job files, fio's raw output and each ssh host's output in DIR; DIR "
            "must be owned by you and not writable by others"),
    CLI_END};

static const char outro[] =
"An interrupted run (SIGINT/SIGTERM/SIGHUP) or a fio client that dies leaves every host that ran UNKNOWN.\n"
"Environment: FIO (fio binary, default fio), ETCD_FIO_ENGINE (engine path to use on the servers),\n"
"ETCD_FIO_SSH (ssh binary, default ssh).\n"
"Exit status: 0 every host PASS, 1 some host FAIL, 2 some host could not be judged, or usage error.\n";

static int run(const cli_cmd *cmd, int argc, char **argv);
const cli_cmd cmd_fleet_def = {"fleet", run,
                               "judge many nodes at once: etcd-fio check over ssh, or fio servers", usage,
                               fleet_options, outro};

static int read_hosts(fleet *f, const char *path, int ssh, char *err, size_t errlen)
{
    size_t len = 0;
    char *text = cli_read_file(path, 64 << 20, &len, err, errlen);
    int rc = !text ? -1
             : ssh ? fleet_parse_ssh_hosts(f, path, text, len, err, errlen)
                   : fleet_parse_clients(f, path, text, len, err, errlen);
    free(text);
    return rc;
}

/* What the options do not check one by one: hosts given, runtimes long enough to decide. 0 or -1 (err). */
static int validate(fleet *f, const char *extra, char *err, size_t errlen)
{
    if (extra) {
        cli_msg(err, errlen, "unexpected argument '%s' (hosts are given with --ssh or --client)", extra);
        return -1;
    }
    if (!f->n && !f->ns) {
        cli_msg(err, errlen, "no hosts given (--ssh [USER@]HOST[:DIR], --ssh-hosts FILE, --client HOST[,PORT] or "
                "--clients FILE)");
        return -1;
    }
    /* each job's samples for a PASS: the upper bound on its p99 (one look at the end: fior_look_samples),
     * or, with the point estimate accepted, the library's 100; 5 s (2 s) for fio's start */
    uint64_t n = f->accept_point ? 100 : fior_look_samples(NULL, f->confidence);
    char pace[160];
    unsigned min = (unsigned)profile_min_runtime(f->load, n, f->accept_point ? 2.0 : 5.0, 0, pace, sizeof pace);
    if (f->n && f->runtime_s && f->runtime_s < min) {
        cli_msg(err, errlen, "--runtime %u: too short to ever decide: %s; use --runtime %u or more%s", f->runtime_s,
                pace, min, f->accept_point ? "" : " (or --accept-point-estimate)");
        return -1;
    }
    double mt = check_min_time(f->confidence, f->min_syncs ? f->min_syncs : 100, f->accept_point, f->load, 0, NULL, 0);
    if (f->ns && f->max_time < mt) { /* the remote check would refuse it: say so once, here */
        cli_msg(err, errlen, "--max-time %g: too short for the remote checks to ever decide; use --max-time %.0f or "
                "more%s", f->max_time, mt, f->accept_point ? "" : " (or --accept-point-estimate)");
        return -1;
    }
    if (f->ssh_timeout <= 0)
        f->ssh_timeout = f->max_time + FIOR_PHASE1_MAX_S + FLEET_SSH_MARGIN_S;
    return 0;
}

/* The options that name hosts or paths: 0, or -1 with the message in err. */
static int path_opt(fleet *f, int c, const char *arg, char *err, size_t errlen)
{
    switch (c) {
    case 'c': return fleet_add_host(f, arg, NULL, "--client", err, errlen);
    case 'S': return fleet_add_ssh(f, arg, "--ssh", err, errlen);
    case 'C':
    case 'H': return read_hosts(f, arg, c == 'H', err, errlen);
    case 'd':
        if (arg[0] != '/') {
            cli_msg(err, errlen, "--dir %s: must be absolute (it is a path on the nodes)", arg);
            return -1;
        }
        if (cli_dir_ok(arg, err, errlen) || fleet_remote_word_ok("--dir", arg, err, errlen))
            return -1;
        f->dir = arg;
        return 0;
    case 'R':
        if (!arg[0] || arg[0] == '-') {
            cli_msg(err, errlen, "--remote-etcd-fio '%s': expected a program name or path", arg);
            return -1;
        }
        if (fleet_remote_word_ok("--remote-etcd-fio", arg, err, errlen))
            return -1;
        f->remote_bin = arg;
        return 0;
    case 'e':
        if (arg[0] != '/' || strlen(arg) >= sizeof f->engine) {
            cli_msg(err, errlen, "--engine %.200s: must be an absolute path (fio needs one)", arg);
            return -1;
        }
        cli_msg(f->engine, sizeof f->engine, "%s", arg);
        return 0;
    case 'l':
        if (!profile_load_valid(arg)) {
            cli_msg(err, errlen, "--load %.100s: " PROFILE_LOADS_EXPECTED, arg);
            return -1;
        }
        f->load = arg;
        return 0;
    }
    return 0;
}

static int parse(const cli_cmd *cmd, int argc, char **argv, fleet *f)
{
    char err[PATH_MAX + 600];
    cli_parse p;
    cli_parse_init(&p, cmd, argc, argv);
    int c;
    while ((c = cli_next(&p)) > 0) {
        uint64_t v = 0;
        int bad = 0; /* 1: the value parsers printed it */
        switch (c) {
        case 'r': bad = cli_uint(&p, 1, 86400, &v); f->runtime_s = (unsigned)v; break;
        case 'P': bad = cli_uint(&p, 1, 256, &v); f->parallel = (int)v; break;
        case 'm': bad = cli_uint(&p, 1, 1000000000, &f->min_syncs); break;
        case 't': bad = cli_double(&p, 1, 86400, &f->max_time); break;
        case 'T': bad = cli_double(&p, 1, 7 * 86400, &f->ssh_timeout); break;
        case 'n': bad = cli_double(&p, 0.5, 0.9999, &f->confidence); break;
        case 'a': f->accept_point = 1; break;
        case 'F': f->full = 1; break;
        case 'A': f->faithful = 1; break;
        case 'v': f->verbose = 1; break;
        case 'j': f->json = 1; break;
        case 'p': f->prom_file = p.arg; break;
        case 'k': f->keep_dir = p.arg; break;
        case 'G': f->ssh_config = p.arg; break;
        default:
            if (path_opt(f, c, p.arg, err, sizeof err))
                goto bad;
        }
        if (bad)
            return -1;
    }
    if (c < 0)
        return c == CLI_HELP ? 1 : -1;
    if (validate(f, p.optind < argc ? argv[p.optind] : NULL, err, sizeof err))
        goto bad;
    return 0;
bad:
    cli_err(cmd, "%s", err);
    return -1;
}

void fleet_warn_exposed(const cli_cmd *cmd, const fleet *f, const char *opt)
{
    size_t n = 0, first = 0;
    for (size_t i = f->n; i-- > 0;)
        if (!fleet_is_loopback(f->h[i].name))
            n++, first = i;
    if (!n)
        return;
    char more[48] = "";
    if (n > 1)
        cli_msg(more, sizeof more, " (and %zu more)", n - 1);
    cli_err(cmd, "warning: %s %s%s is not a loopback address: fio's server runs any job a client sends, as "
            "its own user (any file with filename=, any shell command with exec_prerun=) and asks no password, so "
            "whoever reaches that port owns the node. Bind the server to 127.0.0.1 and reach it through `ssh -L`, or "
            "use fleet --ssh (man etcd-fio: SECURITY)", opt, f->h[first].spec, more);
}

/* fio's raw output, the job files and each ssh host's output into the kept directory (outfile.h: no
 * symlink is followed). */
static int keep(const fleet *f, int dirfd, const char *raw_path, char *err, size_t errlen)
{
    char src[PATH_MAX + 64], name[64], e2[64];
    for (size_t i = 0; f->n && i <= f->n; i++) {
        if (i < f->n)
            cli_msg(name, sizeof name, "job-%zu.fio", i);
        else
            cli_msg(name, sizeof name, "run.json");
        cli_msg(src, sizeof src, "%s/%s", f->work, name);
        if (i == f->n)
            cli_msg(src, sizeof src, "%s", raw_path);
        size_t n = 0;
        char *d = cli_read_file(src, 1 << 30, &n, e2, sizeof e2);
        if (!d)
            continue;
        int rc = outfile_write_at(dirfd, f->keep_dir, name, d, n, err, errlen);
        free(d);
        if (rc)
            return -1;
    }
    for (size_t i = 0; i < f->ns; i++) {
        const fleet_ssh *s = &f->s[i];
        char dest[400];
        cli_msg(dest, sizeof dest, "%s%s%s\n", s->dest, s->dir[0] ? ":" : "", s->dir);
        cli_msg(name, sizeof name, "ssh-%zu.host", i);
        if (outfile_write_at(dirfd, f->keep_dir, name, dest, strlen(dest), err, errlen))
            return -1;
        cli_msg(name, sizeof name, "ssh-%zu.json", i);
        if (outfile_write_at(dirfd, f->keep_dir, name, s->out ? s->out : "", s->outlen, err, errlen))
            return -1;
        cli_msg(name, sizeof name, "ssh-%zu.stderr", i);
        if (outfile_write_at(dirfd, f->keep_dir, name, s->err, s->errlen, err, errlen))
            return -1;
    }
    return 0;
}

/* The fio-server hosts: engine, fio version, the probes. 0, or -1 after a message. */
static int prepare_servers(const cli_cmd *cmd, fleet *f)
{
    char err[PATH_MAX + 1024];
    if (!f->n)
        return 0;
    if (!f->engine[0] && engine_path_find(f->engine, sizeof f->engine)) {
        cli_err(cmd, "%s", f->engine);
        return -1;
    }
    if (cli_dir_ok(f->engine, err, sizeof err)) { /* a value in the job file, like --dir */
        cli_err(cmd, "engine %s", err);
        return -1;
    }
    if (fleet_local_version(f, err, sizeof err) || fleet_preflight(f, err, sizeof err)) {
        cli_err(cmd, "%s", err);
        return -1;
    }
    for (size_t i = 0; i < f->n; i++)
        if (f->h[i].st != HS_OK)
            cli_err(cmd, "%s: %s: %s", f->h[i].spec, fleet_status_name(f->h[i].st), f->h[i].msg);
    return 0;
}

/* Both kinds of host at once; then fio's report of the server run (NULL when none). -1: fio failed. */
static int run_all(const cli_cmd *cmd, fleet *f, const char *raw_path, int *interrupted, char *why, size_t whylen,
                   fior_report **rep, char **raw)
{
    char err[PATH_MAX + 1024];
    proc p;
    int started = 0, rc = 0;
    double deadline = 0;
    *rep = NULL;
    *raw = NULL;
    if (f->n && !fleet_stop_requested && fleet_run_start(f, raw_path, &p, &started, &deadline, err, sizeof err)) {
        cli_err(cmd, "%s", err);
        rc = -1; /* the ssh hosts still run: their nodes are judged */
    }
    int st = fleet_ssh_run(f, started ? &p : NULL, deadline);
    if (!started)
        return rc;
    proc_release(&p);
    if (fleet_run_end(f, st, raw_path, interrupted, why, whylen, err, sizeof err)) {
        cli_err(cmd, "%s", err);
        return -1;
    }
    if (*interrupted)
        cli_err(cmd, "%s: hosts that ran are UNKNOWN", why);
    size_t raw_len = 0;
    *raw = cli_read_file(raw_path, 1 << 30, &raw_len, err, sizeof err);
    if (!*raw) {
        cli_err(cmd, "%s", err);
        return 0;
    }
    *rep = fior_report_new();
    if (*rep && fior_parse_buffer(*rep, raw_path, *raw, raw_len) != FIOR_OK) {
        /* typically every host failed to start its jobs: they stay unknown with the servers' messages */
        cli_err(cmd, "no results in fio's output (%s)", fior_report_error(*rep));
        fior_report_free(*rep);
        *rep = NULL;
    }
    return 0;
}

/* Judges every host into r and writes the outputs; the exit status. */
static int report(const cli_cmd *cmd, fleet *f, const fior_criteria *crit, const fior_report *rep, const char *raw,
                  int interrupted, const char *why, int keepfd, const char *raw_path)
{
    char err[PATH_MAX + 1024];
    result_run r;
    result_init(&r, "fleet", crit);
    r.load = f->load;
    r.confidence = f->confidence;
    cli_msg(r.fio_version, sizeof r.fio_version, "%s", f->local_version);
    for (size_t i = 0; i < f->ns; i++) {
        result_host *h = result_add_host(&r);
        if (h)
            fleet_ssh_judge(f, crit, &f->s[i], fleet_stop_requested, h);
    }
    fleet_judge(f, rep, raw, crit, interrupted || fleet_stop_requested,
                interrupted ? why : "interrupted: the run was cut short", &r);
    result_explain_jobs(&r, RESULT_UNKNOWN, NULL, NULL);
    result_explain_finish(&r, 0, NULL);
    r.verbose = f->verbose;
    if (f->json)
        out_json(stdout, &r);
    else
        out_table(stdout, &r);
    fflush(stdout);
    int rc = cli_exit_status(r.verdict);
    if (f->prom_file && out_file(f->prom_file, OUT_PROM, &r, err, sizeof err)) {
        cli_err(cmd, "--prometheus %s", err);
        rc = 2;
    }
    if (keepfd >= 0 && keep(f, keepfd, raw_path, err, sizeof err)) {
        cli_err(cmd, "--keep-output %s", err);
        rc = 2;
    }
    result_free(&r);
    return rc;
}

static int run(const cli_cmd *cmd, int argc, char **argv)
{
    fleet f;
    memset(&f, 0, sizeof f);
    f.load = "s";
    f.dir = FLEET_DEFAULT_DIR;
    f.fio = cli_fio();
    f.confidence = 0.95;
    f.max_time = 120;
    f.parallel = FLEET_SSH_PARALLEL;
    f.remote_bin = "etcd-fio";
    f.ssh = getenv("ETCD_FIO_SSH") && *getenv("ETCD_FIO_SSH") ? getenv("ETCD_FIO_SSH") : "ssh";
    char err[PATH_MAX + 1024] = "", why[256] = "";
    int rc = 2, keepfd = -1, have_work = 0;
    fior_criteria *crit = NULL;
    int prc = parse(cmd, argc, argv, &f);
    if (prc) {
        rc = prc > 0 ? 0 : 2;
        goto out;
    }
    fleet_warn_exposed(cmd, &f, "--client");
    if (!(crit = fior_criteria_new())) {
        cli_err(cmd, "out of memory");
        goto out;
    }
    if (f.min_syncs && f.min_syncs < fior_criteria_min_samples(crit)) /* as check sets its criteria */
        fior_criteria_set_min_samples(crit, f.min_syncs);
    if (f.prom_file && outfile_check(f.prom_file, err, sizeof err)) {
        cli_err(cmd, "--prometheus %s", err);
        goto out;
    }
    if (f.keep_dir && (keepfd = outfile_dir_open(f.keep_dir, err, sizeof err)) < 0) {
        cli_err(cmd, "--keep-output %s", err);
        goto out;
    }
    if (f.n && cli_tmpdir("fleet", f.work, sizeof f.work, err, sizeof err)) { /* the servers' job files */
        cli_err(cmd, "%s", err);
        goto out;
    }
    have_work = f.n > 0;
    fleet_stop_requested = 0;
    cli_stop_saved saved;
    cli_stop_on_signals(&fleet_stop_requested, CLI_STOP_HUP, &saved);
    if (prepare_servers(cmd, &f))
        goto restore;
    char raw_path[PATH_MAX + 32];
    cli_msg(raw_path, sizeof raw_path, "%s/run.json", f.work);
    int interrupted = 0;
    fior_report *rep = NULL;
    char *raw = NULL;
    if (run_all(cmd, &f, raw_path, &interrupted, why, sizeof why, &rep, &raw) && !f.ns) {
        if (keepfd >= 0)
            keep(&f, keepfd, raw_path, err, sizeof err);
        goto restore;
    }
    rc = report(cmd, &f, crit, rep, raw, interrupted, why, keepfd, raw_path);
    fior_report_free(rep);
    free(raw);
restore:
    cli_stop_restore(&saved);
out:
    if (have_work)
        cli_tmpdir_remove(f.work);
    if (keepfd >= 0)
        close(keepfd);
    fior_criteria_free(crit);
    for (size_t i = 0; i < f.ns; i++)
        free(f.s[i].out);
    free(f.s);
    free(f.h);
    return rc;
}
