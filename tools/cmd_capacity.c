/* SPDX-License-Identifier: MIT */
/* cmd_capacity.c — `etcd-fio capacity [DIR]`: the write ceiling of this disk for etcd by client count. Options,
 * the refusals before fio starts (preflight.h, as check), one run per client count (capacity_run.c), then one
 * confirmation run at the candidate ceiling long enough for the backend's bound, the decision
 * (capacity_judge.c) and the outputs (capacity_out.c). */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capacity.h"
#include "quorum.h"
#include "cli.h"
#include "term.h"
#include "engine_path.h"
#include "out.h"
#include "check.h"
#include "preflight.h"

static const char usage[] =
    "usage: etcd-fio capacity [OPTIONS] [DIR]\n"
    "How many writes a second this disk lets etcd do: runs etcd's write path with N closed-loop clients\n"
    "(each with one put outstanding, as etcd's `benchmark put`) for each client count in turn, in a private\n"
    "directory under DIR (default: the current directory), and prints writes/s, put latency p50/p90/p99,\n"
    "WAL fdatasync p99, backend commit p99, entries per Save and what limits it; then the highest write rate\n"
    "at which the disk keeps etcd within its thresholds (WAL p99 < 10 ms, backend p99 < 25 ms) with the\n"
    "confidence bound of both p99s (one longer confirmation run at that client count gathers the backend\n"
    "commits the bound needs).\n";

static const cli_opt options[] = {
    CLI_OPT("clients", 'c', "LIST", "client counts, comma-separated, 1..100000 (default 1,16,64,256,1024)"),
    CLI_OPT("key-size", 'k', "B", "key bytes of each put (default 8, as etcd's benchmark examples)"),
    CLI_OPT("val-size", 300, "B", "value bytes of each put (default 256)"),
    CLI_OPT("step", 's', "S", "seconds per client count (default 3)"),
    CLI_OPT("max-time", 't', "S", "the whole run's limit (default 120): a confirmation run that would not fit is "
            "not made (the ceiling is then unknown, with the point estimates)"),
    CLI_OPT("confidence", 'C', "C", "confidence of the p99 bounds, 0.5..0.9999 (default 0.95)"),
    CLI_OPT("accept-point-estimate", 'a', NULL, "when a bound still straddles its threshold, take the point "
            "estimate"),
    CLI_OPT("client-us", 'u', "U", "the model's client turnaround per put: answer out -> next put in (default 200)"),
    CLI_OPT("cpu-us", 'U', "U", "the model's etcd work per put on the raft loop's path, before each Save "
            "(default 33)"),
    CLI_OPT("apply-us", 'A', "U", "the model's etcd apply work per put, beside the Saves (default 5)"),
    CLI_OPTM("member", 'm', "HOST[,PORT]=DIR", "a `fio --server` (default port 8765) whose DIR (absolute, on that "
             "server; default the capacity DIR) is one etcd member's disk: give three, the first is the leader. The "
             "load runs on the three at once and each put is committed when the leader and one follower have Saved "
             "it (plus --rtt); each member is judged, the cluster passes when all do"),
    CLI_OPT("members", 'M', "FILE", "the three members, `HOST[,PORT] [DIR]` a line (fleet's --clients file)"),
    CLI_OPT("rtt", 'r', "MS", "the round trip leader -> follower -> leader of the quorum, 0..1000 (default 0.2)"),
    CLI_OPT("ready-us", 'R', "U", "the quorum replay's work of each member per raft Ready, before its Save "
            "(default 0)"),
    CLI_OPT("shared-core", 'S', NULL, "the three members' raft-loop work takes turns on one core (three etcd "
            "processes pinned to one CPU, as bench/capacity.sh runs them)"),
    CLI_OPT("json", 'j', NULL, "print one JSON object (doc/etcd-fio.schema.json) instead of the table"),
    CLI_OPT_VERBOSE,
    CLI_OPT("html", 'H', "FILE", "also write one self-contained HTML page (writes/s and latency against clients)"),
    CLI_OPT("force", 'f', NULL, "run even on a filesystem that is probably not the one meant, or with little room"),
    CLI_END};

static const char outro[] =
    "Exit status: 0 a ceiling was found (with its bound), 1 even the fewest clients exceed a threshold, 2\n"
    "no answer or error. Environment: FIO (fio binary), ETCD_FIO_ENGINE.\n";

static int run(const cli_cmd *cmd, int argc, char **argv);
const cli_cmd cmd_capacity_def = {"capacity", run, "the disk's etcd write ceiling by client count", usage,
                                  options, outro};

/* "1,16,64": ascending, no repeats. 0 or -1 after the message. */
static int parse_clients(const cli_cmd *cmd, const char *s, capacity_opts *o)
{
    o->ncounts = 0;
    const char *p = s;
    for (;;) {
        char *end;
        if (*p < '0' || *p > '9') {
            cli_err(cmd, "--clients %.100s: expected client counts 1..%u separated by commas", s, CAPACITY_MAX_CLIENTS);
            return -1;
        }
        unsigned long v = strtoul(p, &end, 10);
        if (v < 1 || v > CAPACITY_MAX_CLIENTS || (*end && *end != ',') || end - p > 6) {
            cli_err(cmd, "--clients %.100s: expected client counts 1..%u separated by commas", s, CAPACITY_MAX_CLIENTS);
            return -1;
        }
        if (o->ncounts == CAPACITY_MAX_COUNTS) {
            cli_err(cmd, "--clients %.100s: at most %d client counts", s, CAPACITY_MAX_COUNTS);
            return -1;
        }
        if (o->ncounts && v <= o->clients[o->ncounts - 1]) {
            cli_err(cmd, "--clients %.100s: give the counts once each, in ascending order", s);
            return -1;
        }
        o->clients[o->ncounts++] = (unsigned)v;
        if (!*end)
            return 0;
        p = end + 1;
    }
}

/* --members FILE: fleet's --clients syntax */
static int members_file(const cli_cmd *cmd, const char *path, fleet *f)
{
    char err[CLI_ERRLEN];
    size_t len = 0;
    char *text = cli_read_file(path, 1 << 20, &len, err, sizeof err);
    int rc = text ? fleet_parse_clients(f, path, text, len, err, sizeof err) : -1;
    free(text);
    if (rc)
        cli_err(cmd, "--members %s", err);
    return rc;
}

static int parse_opts(const cli_cmd *cmd, int argc, char **argv, capacity_opts *o, fleet *members)
{
    memset(o, 0, sizeof *o);
    o->dir = ".";
    static const unsigned def[] = {1, 16, 64, 256, 1024};
    memcpy(o->clients, def, sizeof def);
    o->ncounts = 5;
    o->key_bytes = 8;
    o->val_bytes = 256;
    o->step_s = 3;
    o->max_time = 120;
    o->confidence = 0.95;
    o->client_us = 200;
    o->apply_us = 5;
    o->cpu_us = 33;
    o->rtt_ms = 0.2;
    char err[CLI_ERRLEN];
    const char *quorum_only = NULL; /* an option of the quorum replay given without --member */
    cli_parse p;
    cli_parse_init(&p, cmd, argc, argv);
    int c;
    uint64_t u;
    while ((c = cli_next(&p)) > 0) {
        switch (c) {
        case 'c': if (parse_clients(cmd, p.arg, o)) return -1; break;
        case 'k': if (cli_uint(&p, 1, 1048576, &u)) return -1; o->key_bytes = (unsigned)u; break;
        case 300: if (cli_uint(&p, 0, 1572864, &u)) return -1; o->val_bytes = (unsigned)u; break;
        case 'v': o->verbose = 1; break;
        case 's': if (cli_double(&p, 1, 600, &o->step_s)) return -1; break;
        case 't': if (cli_double(&p, 1, 86400, &o->max_time)) return -1; break;
        case 'C': if (cli_double(&p, 0.5, 0.9999, &o->confidence)) return -1; break;
        case 'a': o->accept_point = 1; break;
        case 'u': if (cli_double(&p, 0, 1e6, &o->client_us)) return -1; break;
        case 'A': if (cli_double(&p, 0, 1e6, &o->apply_us)) return -1; break;
        case 'U': if (cli_double(&p, 0, 1e6, &o->cpu_us)) return -1; break;
        case 'm':
            if (quorum_add_member(members, p.arg, err, sizeof err)) {
                cli_err(cmd, "%s", err);
                return -1;
            }
            o->members = members;
            break;
        case 'M': if (members_file(cmd, p.arg, members)) return -1; o->members = members; break;
        case 'r': if (cli_double(&p, 0, QUORUM_MAX_RTT_NS / 1e6, &o->rtt_ms)) return -1; quorum_only = "--rtt"; break;
        case 'R': if (cli_double(&p, 0, 1e6, &o->ready_us)) return -1; quorum_only = "--ready-us"; break;
        case 'S': o->shared_core = 1; quorum_only = "--shared-core"; break;
        case 'j': o->json = 1; break;
        case 'H': o->html = p.arg; break;
        case 'f': o->force = 1; break;
        }
    }
    if (c < 0)
        return c == CLI_HELP ? 1 : -1;
    if ((double)o->ncounts * o->step_s > o->max_time) {
        cli_err(cmd, "--max-time %g: shorter than %zu client counts of --step %g s", o->max_time, o->ncounts, o->step_s);
        return -1;
    }
    if (p.optind < argc)
        o->dir = argv[p.optind++];
    if (p.optind < argc) {
        cli_err(cmd, "one directory expected, got also '%s'", argv[p.optind]);
        return -1;
    }
    if (quorum_only && !o->members) {
        cli_err(cmd, "%s: only with three --member (the quorum of a 3-member run)", quorum_only);
        return -1;
    }
    if (o->members && quorum_members_ok(o->members, o->dir, err, sizeof err)) {
        cli_err(cmd, "%s", err);
        return -1;
    }
    return 0;
}

/* Seconds of a confirmation run: the backend commits (10 a second) the bound still needs, and a margin. */
static double confirm_seconds(const capacity_opts *o, const capacity_row *r)
{
    uint64_t need = capacity_samples_needed(o->confidence), have = r->be_n;
    double s = need > have ? ceil((double)(need - have) * 1.1 / 10.0) + 1 : o->step_s;
    return s < o->step_s ? o->step_s : s;
}

/* Room: three WAL segments (the tail, the spare, one rolled over to) and what the load writes — WAL frames
 * and bbolt pages, at most ~32 MB/s at the model's fastest (50,000 puts/s of 300-byte puts, twice) — for
 * the sweep and two confirmation runs. */
static uint64_t space_needed(const capacity_opts *o)
{
    double per_put = 2.0 * (double)(o->key_bytes + o->val_bytes + 64);
    double rate = o->cpu_us > 0 ? 1e6 / o->cpu_us : 1e6;
    if (rate > 200000)
        rate = 200000;
    double secs = (double)o->ncounts * o->step_s + 2 * (capacity_samples_needed(o->confidence) / 10.0 + 2);
    if (secs > o->max_time)
        secs = o->max_time;
    return (uint64_t)(3.0 * PREFLIGHT_SEGMENT_BYTES + 16.0 * 1048576 + per_put * rate * secs);
}

static void progress(const capacity_opts *o, const char *what, const capacity_row *r, double el)
{
    if (o->json || !isatty(2))
        return;
    /* one line, rewritten at each step and gone at the end (the table has every row): the answer is the
     * first line left on the screen; cut to the terminal's width (a wrapped \r line garbles it) */
    char line[600];
    int w = term_width(2) - 1;
    if (r && r->ran)
        cli_msg(line, sizeof line, "%.0f s  %s: %.0f writes/s", el, what, r->writes_per_s);
    else if (r)
        cli_msg(line, sizeof line, "%.0f s  %s: %s", el, what, r->why);
    else
        cli_msg(line, sizeof line, "%.0f s  %s ...", el, what);
    if (w > 0 && w < (int)sizeof line)
        line[w] = '\0';
    fprintf(stderr, "\r\033[K%s", line);
    fflush(stderr);
}

/* The sweep, then up to two confirmation runs: at the fastest row whose point estimates pass, and if its
 * bound says no, at the next one below. */
/* One client count: on this machine's DIR, or on the three members */
static int run_row(const capacity_opts *o, const char *dir, const char *engine, const fior_criteria *crit, unsigned clients,
                   double secs, capacity_row *row, char *err, size_t errlen)
{
    if (o->members)
        return quorum_run_row(o, crit, engine, clients, secs, row, err, errlen);
    return capacity_run_row(o, dir, engine, clients, secs, row, err, errlen);
}

static int measure(const capacity_opts *o, const char *dir, const char *engine, const fior_criteria *crit, capacity_result *res,
                   char *err, size_t errlen)
{
    double t0 = proc_now();
    char what[64];
    for (size_t i = 0; i < o->ncounts && !capacity_interrupted; i++) {
        cli_msg(what, sizeof what, "%u client%s (%zu/%zu)", o->clients[i], o->clients[i] == 1 ? "" : "s", i + 1,
                o->ncounts);
        progress(o, what, NULL, proc_now() - t0);
        if (run_row(o, dir, engine, crit, o->clients[i], o->step_s, &res->rows[res->nrows], err, errlen))
            return -1;
        progress(o, what, &res->rows[res->nrows], proc_now() - t0);
        res->nrows++;
    }
    res->nsweep = res->nrows;
    for (int tries = 0; tries < 2 && !capacity_interrupted; tries++) {
        capacity_decide(res, crit, o->confidence, 0);
        int ci = capacity_candidate(res, crit, o->confidence);
        if (ci < 0 || res->rows[ci].verdict == FIOR_PASS)
            break; /* nothing to confirm, or it is decided already */
        capacity_row *cand = &res->rows[ci], *c = &res->rows[res->nrows];
        double secs = confirm_seconds(o, cand);
        if (proc_now() - t0 + secs + 2 > o->max_time) {
            res->confirm_skipped = 1;
            break; /* it would not fit in --max-time */
        }
        cli_msg(what, sizeof what, "confirming %u client%s for %.0f s", cand->clients, cand->clients == 1 ? "" : "s",
                secs);
        progress(o, what, NULL, proc_now() - t0);
        if (run_row(o, dir, engine, crit, cand->clients, secs, c, err, errlen))
            return -1;
        progress(o, what, c, proc_now() - t0);
        quorum_row_merge(c, cand); /* the same load: the sweep's samples count too */
        res->nrows++;
        /* a confirmation that does not pass takes its sweep row out of the candidates */
        capacity_decide(res, crit, o->confidence, 0);
        if (c->verdict == FIOR_PASS)
            break;
        cand->excluded = 1;
    }
    res->interrupted = capacity_interrupted;
    capacity_decide(res, crit, o->confidence, o->accept_point);
    res->seconds = proc_now() - t0;
    return 0;
}

static int run(const cli_cmd *cmd, int argc, char **argv)
{
    capacity_opts o;
    fleet members;
    memset(&members, 0, sizeof members);
    int prc = parse_opts(cmd, argc, argv, &o, &members);
    if (prc) {
        free(members.h);
        return prc > 0 ? 0 : 2;
    }
    fsinfo fi;
    memset(&fi, 0, sizeof fi);
    check_forced forced = {.n = 0};
    const preflight_out outs[] = {{"html", o.html}};
    if (o.members) {
        fleet_warn_exposed(cmd, o.members, "--member");
        /* the members' directories are on their servers: the engine there keeps its private directory and
         * space checks; here only the outputs */
        cli_msg(fi.path, sizeof fi.path, "%s", o.dir);
    } else if (preflight(cmd, o.dir, space_needed(&o), o.force, outs, 1, &fi, &forced)) {
        return 2;
    }
    char engine[PATH_MAX], err[CLI_ERRLEN];
    if (engine_path_find(engine, sizeof engine) != 0) {
        cli_err(cmd, "%s", engine);
        return 2;
    }
    if (cli_dir_ok(engine, err, sizeof err)) {
        cli_err(cmd, "engine %s", err);
        return 2;
    }
    fior_criteria *crit = fior_criteria_new();
    capacity_result *res = calloc(1, sizeof *res);
    if (!crit || !res) {
        cli_err(cmd, "out of memory");
        fior_criteria_free(crit);
        free(res);
        return 2;
    }
    proc_adopt_orphans();
    cli_stop_on_signals(&capacity_interrupted, CLI_STOP_NOPIPE, NULL);
    int rc = 2;
    if (measure(&o, fi.path, engine, crit, res, err, sizeof err)) {
        cli_err(cmd, "%s", err);
        goto out;
    }
    result_run r;
    if (capacity_model(&r, res, &o, crit, fi.path)) {
        cli_err(cmd, "out of memory");
        result_free(&r);
        goto out;
    }
    check_forced_detail(&r, &forced);
    rc = cli_exit_status(res->verdict);
    if (!o.json && isatty(2))
        fputs("\r\033[K", stderr); /* the progress line goes */
    if (o.json)
        out_json(stdout, &r);
    else
        capacity_table(stdout, res, crit, o.verbose);
    fflush(stdout);
    if (o.html && capacity_html(o.html, &r, res, err, sizeof err) != 0) {
        cli_err(cmd, "--html %s", err);
        rc = 2;
    }
    result_free(&r);
out:
    for (size_t i = 0; i < res->nrows; i++)
        quorum_row_free(&res->rows[i]);
    free(res);
    fior_criteria_free(crit);
    free(members.h);
    return rc;
}
