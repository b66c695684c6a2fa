/* SPDX-License-Identifier: MIT */
/* cmd_fleet.c — `etcd-fio fleet`: judge many etcd nodes at once through fio's own client/server mode.
 * Every node runs `fio --server`; this command is the fio client: options and output paths are checked,
 * every server is probed (fleet_run.c), the profile runs on every usable server at once, and fio's JSON
 * client_stats are judged per host (fleet_judge.c) into the result model. */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "engine_path.h"
#include "fleet.h"
#include "out.h"
#include "outfile.h"
#include "profile.h"

#define STR_(x) #x
#define STR(x)  STR_(x)

static const char help[] =
"usage: etcd-fio fleet [OPTIONS] --client HOST[,PORT]... | --clients FILE\n"
"\n"
"Runs the etcd profile (WAL + backend jobs, see `etcd-fio job`) on every listed fio server at once,\n"
"through fio's client/server mode, and prints one row per host and job, worst host first. Each server\n"
"must run `fio --server` with the same fio version as this machine and have libetcdwal.so at the same\n"
"path as here (checked first, without writing anything). Options may come anywhere (--opt=VALUE too).\n"
"\n"
"  --client HOST[,PORT]  a fio server (default port " STR(FLEET_DEFAULT_PORT) "); repeat for more\n"
"  --clients FILE        one `HOST[,PORT] [DIR]` per line; blank lines and # comments are ignored\n"
"  --dir DIR             directory on the servers (default " FLEET_DEFAULT_DIR "); the engine works in a\n"
"                        private directory under it and removes it. A DIR in --clients overrides it per\n"
"                        host. No '#', ';' or newline (fio's job-file parser cuts the value there)\n"
"  --load s|m|l|xl       load level, as `etcdctl check perf --load` (default s)\n"
"  --runtime S           seconds of the run on every host (default: the profile's 60; a runtime too\n"
"                        short for the backend's p99 bound to ever show a PASS is refused)\n"
"  --confidence C        confidence of the bound on each p99, 0.5..0.9999 (default 0.95)\n"
"  --accept-point-estimate\n"
"                        when a host's bound straddles a threshold, give the verdict of fio's p99 (the point\n"
"                        estimate) instead of UNKNOWN\n"
"  --json                print one JSON object (doc/etcd-fio.schema.json) instead of the table\n"
"  --prometheus FILE     write a node_exporter textfile with one series per host (atomically)\n"
"  --keep-output DIR     keep the job files and fio's raw output in DIR (re-judge with `etcd-fio\n"
"                        verdict`); DIR must be owned by you and not writable by others\n"
"  --engine PATH         libetcdwal.so path on the servers (default: where this etcd-fio finds its own)\n"
"\n"
"An interrupted run (SIGINT/SIGTERM) or a fio client that dies leaves every host that ran UNKNOWN.\n"
"Environment: FIO (fio binary, default fio), ETCD_FIO_ENGINE (engine path to use on the servers).\n"
"Exit status: 0 every host PASS, 1 some host FAIL, 2 some host could not be judged, or usage error.\n";

static int run(const cli_cmd *cmd, int argc, char **argv);
const cli_cmd cmd_fleet_def = {"fleet", run,
                               "run the etcd profile on fio servers (client/server mode) and judge each host", help};

static void on_stop(int sig)
{
    (void)sig;
    fleet_stop_requested = 1;
}

static int parse(const cli_cmd *cmd, int argc, char **argv, fleet *f)
{
    static const struct option lo[] = {
        {"client", required_argument, 0, 'c'},  {"clients", required_argument, 0, 'C'},
        {"dir", required_argument, 0, 'd'},     {"load", required_argument, 0, 'l'},
        {"runtime", required_argument, 0, 'r'}, {"json", no_argument, 0, 'j'},
        {"prometheus", required_argument, 0, 'p'}, {"keep-output", required_argument, 0, 'k'},
        {"engine", required_argument, 0, 'e'},  {"confidence", required_argument, 0, 'n'},
        {"accept-point-estimate", no_argument, 0, 'a'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    char err[PATH_MAX + 600];
    cli_parse p;
    cli_parse_init(&p, cmd, argc, argv, lo);
    int c;
    while ((c = cli_next(&p)) > 0) {
        uint64_t v;
        char *text = NULL;
        switch (c) {
        case 'c':
            if (fleet_add_host(f, p.arg, NULL, "--client", err, sizeof err))
                goto bad;
            break;
        case 'C': {
            size_t len = 0;
            text = cli_read_file(p.arg, 64 << 20, &len, err, sizeof err);
            if (!text || fleet_parse_clients(f, p.arg, text, len, err, sizeof err)) {
                free(text);
                goto bad;
            }
            free(text);
            break;
        }
        case 'd':
            if (p.arg[0] != '/') {
                cli_msg(err, sizeof err, "--dir %s: must be absolute (it is a path on the servers)", p.arg);
                goto bad;
            }
            if (cli_dir_ok(p.arg, err, sizeof err))
                goto bad;
            f->dir = p.arg;
            break;
        case 'l':
            if (!prof_load_valid(p.arg)) {
                cli_msg(err, sizeof err, "--load %s: unknown load level (s, m, l, xl)", p.arg);
                goto bad;
            }
            f->load = p.arg;
            break;
        case 'r':
            if (cli_uint(&p, 1, 86400, &v))
                return -1;
            f->runtime_s = (unsigned)v;
            break;
        case 'n':
            if (cli_double(&p, 0.5, 0.9999, &f->confidence))
                return -1;
            break;
        case 'a': f->accept_point = 1; break;
        case 'j': f->json = 1; break;
        case 'p': f->prom_file = p.arg; break;
        case 'k': f->keep_dir = p.arg; break;
        case 'e':
            if (p.arg[0] != '/' || strlen(p.arg) >= sizeof f->engine) {
                cli_msg(err, sizeof err, "--engine %.200s: must be an absolute path (fio needs one)", p.arg);
                goto bad;
            }
            cli_msg(f->engine, sizeof f->engine, "%s", p.arg);
            break;
        }
    }
    if (c < 0)
        return c == CLI_HELP ? 1 : -1;
    if (p.optind < argc) {
        cli_msg(err, sizeof err, "unexpected argument '%s' (hosts are given with --client)", argv[p.optind]);
        goto bad;
    }
    if (!f->n) {
        cli_msg(err, sizeof err, "no fio servers given (--client HOST[,PORT] or --clients FILE)");
        goto bad;
    }
    /* the backend commits 10 times a second; a PASS needs the upper bound on its p99: 0.99^n <= (1-C)/2
     * (one look at the end), or, with the point estimate accepted, the library's 100 samples */
    unsigned min = f->accept_point ? PROF_MIN_RUNTIME_S
                                   : (unsigned)ceil(log((1 - f->confidence) / 2) / log(0.99) / 10.0) + 5;
    if (f->runtime_s && f->runtime_s < min) {
        cli_msg(err, sizeof err, "--runtime %u: too short to ever decide: the backend commits 10 times a second; "
                "use --runtime %u or more%s", f->runtime_s, min, f->accept_point ? "" : " (or --accept-point-estimate)");
        goto bad;
    }
    return 0;
bad:
    cli_err(cmd, "%s", err);
    return -1;
}

/* fio's raw output and the job files into the kept directory (outfile.h: no symlink is followed). */
static int keep(const fleet *f, int dirfd, const char *raw_path, char *err, size_t errlen)
{
    char src[PATH_MAX + 64], name[64], e2[64];
    for (size_t i = 0; i <= f->n; i++) {
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
        int rc = out_write_at(dirfd, f->keep_dir, name, d, n, err, errlen);
        free(d);
        if (rc)
            return -1;
    }
    return 0;
}

static int run(const cli_cmd *cmd, int argc, char **argv)
{
    fleet f;
    memset(&f, 0, sizeof f);
    f.load = "s";
    f.dir = FLEET_DEFAULT_DIR;
    f.fio = cli_fio();
    f.confidence = 0.95;
    char err[PATH_MAX + 1024] = "", why[256] = "";
    int rc = 2, keepfd = -1, have_work = 0;
    fior_criteria *crit = NULL;
    int prc = parse(cmd, argc, argv, &f);
    if (prc) {
        rc = prc > 0 ? 0 : 2;
        goto out;
    }
    if (!f.engine[0] && engine_path_find(f.engine, sizeof f.engine)) {
        cli_err(cmd, "%s", f.engine);
        goto out;
    }
    if (cli_dir_ok(f.engine, err, sizeof err)) { /* a value in the job file, like --dir */
        cli_err(cmd, "engine %s", err);
        goto out;
    }
    if (f.prom_file && out_check(f.prom_file, err, sizeof err)) {
        cli_err(cmd, "--prometheus %s", err);
        goto out;
    }
    if (f.keep_dir && (keepfd = out_dir_open(f.keep_dir, err, sizeof err)) < 0) {
        cli_err(cmd, "--keep-output %s", err);
        goto out;
    }
    if (cli_tmpdir("fleet", f.work, sizeof f.work, err, sizeof err)) {
        cli_err(cmd, "%s", err);
        goto out;
    }
    have_work = 1;
    struct sigaction sa, old_int, old_term;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop;
    sigemptyset(&sa.sa_mask);
    fleet_stop_requested = 0;
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    if (fleet_local_version(&f, err, sizeof err) || fleet_preflight(&f, err, sizeof err)) {
        cli_err(cmd, "%s", err);
        goto restore;
    }
    for (size_t i = 0; i < f.n; i++)
        if (f.h[i].st != HS_OK)
            cli_err(cmd, "%s: %s: %s", f.h[i].spec, fleet_status_name(f.h[i].st), f.h[i].msg);
    if (fleet_stop_requested) {
        cli_err(cmd, "interrupted before the run");
        goto restore;
    }
    char raw_path[PATH_MAX + 32];
    cli_msg(raw_path, sizeof raw_path, "%s/run.json", f.work);
    int interrupted = 0, ran = 0;
    if (fleet_run(&f, raw_path, &interrupted, why, sizeof why, err, sizeof err)) {
        cli_err(cmd, "%s", err);
        if (keepfd >= 0)
            keep(&f, keepfd, raw_path, err, sizeof err);
        goto restore;
    }
    if (interrupted)
        cli_err(cmd, "%s: hosts that ran are UNKNOWN", why);
    for (size_t i = 0; i < f.n; i++)
        ran |= f.h[i].st == HS_OK;
    size_t raw_len = 0;
    char *raw = ran ? cli_read_file(raw_path, 1 << 30, &raw_len, err, sizeof err) : NULL;
    fior_report *rep = NULL;
    if (ran && raw) {
        rep = fior_report_new();
        if (rep && fior_parse_buffer(rep, raw_path, raw, raw_len) != FIOR_OK) {
            /* typically every host failed to start its jobs: they stay unknown with the servers' messages */
            cli_err(cmd, "no results in fio's output (%s)", fior_report_error(rep));
            fior_report_free(rep);
            rep = NULL;
        }
    } else if (ran) {
        cli_err(cmd, "%s", err);
    }
    crit = fior_criteria_new();
    rm_run r;
    if (!crit) {
        cli_err(cmd, "out of memory");
        fior_report_free(rep);
        free(raw);
        goto restore;
    }
    rm_init(&r, "fleet", crit);
    r.load = f.load;
    cli_msg(r.fio_version, sizeof r.fio_version, "%s", f.local_version);
    fleet_judge(&f, rep, raw, crit, interrupted, why, &r);
    fior_report_free(rep);
    free(raw);
    rm_explain_jobs(&r, RM_UNKNOWN);
    if (f.json)
        out_json(stdout, &r);
    else
        out_table(stdout, &r);
    fflush(stdout);
    rc = cli_exit_status(r.verdict);
    if (f.prom_file && out_file(f.prom_file, OUT_PROM, &r, err, sizeof err)) {
        cli_err(cmd, "--prometheus %s", err);
        rc = 2;
    }
    if (keepfd >= 0 && keep(&f, keepfd, raw_path, err, sizeof err)) {
        cli_err(cmd, "--keep-output %s", err);
        rc = 2;
    }
    rm_free(&r);
restore:
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
out:
    if (have_work)
        cli_tmpdir_remove(f.work);
    if (keepfd >= 0)
        close(keepfd);
    fior_criteria_free(crit);
    free(f.h);
    return rc;
}
