/* SPDX-License-Identifier: MIT */
/* cmd_job.c — `etcd-fio job`: prints the etcd profile (WAL + backend jobs) as a fio job file, so it can
 * be run by hand, kept beside results, or distributed to other hosts. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "engine_path.h"
#include "profile.h"

static const char usage[] =
    "usage: etcd-fio job [OPTIONS]\n"
    "\n"
    "Prints a fio job file with etcd's two disk writers running together on DIR: the WAL (one\n"
    "fdatasync per raft Save) and the bbolt backend (a commit every 100 ms), at the load of\n"
    "`etcdctl check perf --load=LEVEL` (s: 150 puts/s, m: 1000, l: 8000, xl: 15000).\n";

static const cli_opt options[] = {
    CLI_OPT("load", 'l', "LEVEL", "s (default), m, l or xl; or k8s[:NODES]: a Kubernetes control plane of NODES "
            "nodes (default 100, 1..5000): node Leases every 10 s, Node status every 5 min"),
    CLI_OPT("dir", 'd', "DIR", "directory to test (default: the current directory); the engine works in a "
            "private subdirectory it removes at the end. No '#', ';' or newline (fio's job-file parser cuts the "
            "value there)"),
    CLI_OPT("runtime", 'r', "S", "seconds (default 60, as etcdctl check perf; below " PROFILE_MIN_RUNTIME_STR
            " it warns: the backend commits 10 times a second and a verdict needs 100 samples)"),
    CLI_OPT("ionice", 'i', NULL, "run the WAL job at prioclass=2 prio=0 (ionice -c2 -n0), as etcd is tuned"),
    CLI_OPT("engine", 'e', "PATH", "libetcdwal.so to use (default: found beside etcd-fio or installed)"),
    CLI_END};

static const char outro[] =
    "Run it with: etcd-fio job > etcd.fio && fio etcd.fio --output-format=json > out.json\n"
    "and judge it with: etcd-fio verdict out.json\n";

static int run(const cli_cmd *cmd, int argc, char **argv);
const cli_cmd cmd_job_def = {"job", run, "print the etcd profile as a fio job file", usage, options, outro};

/* The options into o (its load, runtime, ionice), *dir and *engine (as given): 0, 1 after --help, -1 after
 * the message. */
static int parse_opts(const cli_cmd *cmd, int argc, char **argv, profile_opts *o, const char **dir,
                      const char **engine)
{
    char err[PATH_MAX + 256];
    cli_parse p;
    cli_parse_init(&p, cmd, argc, argv);
    int c;
    while ((c = cli_next(&p)) > 0) {
        uint64_t v;
        switch (c) {
        case 'l':
            o->load = p.arg;
            if (!profile_load_valid(p.arg)) {
                cli_err(cmd, "--load %.100s: " PROFILE_LOADS_EXPECTED, p.arg);
                return -1;
            }
            break;
        case 'd':
            *dir = p.arg;
            if (cli_dir_ok(*dir, err, sizeof err)) {
                cli_err(cmd, "--dir %s", err);
                return -1;
            }
            break;
        case 'r':
            if (cli_uint(&p, 1, 86400, &v))
                return -1;
            o->runtime_s = (unsigned)v;
            break;
        case 'i': o->ionice = 1; break;
        case 'e': *engine = p.arg; break;
        }
    }
    if (c < 0)
        return c == CLI_HELP ? 1 : -1;
    if (p.optind < argc) {
        cli_err(cmd, "unexpected argument '%s' (see etcd-fio help job)", argv[p.optind]);
        return -1;
    }
    /* a warning, not a refusal: the job file has uses besides a verdict (a quick look at the engine). The
     * verdict needs 100 samples of each job; 2 s for fio's start. */
    char pace[160];
    unsigned min = (unsigned)profile_min_runtime(o->load, 100, 2.0, 0, pace, sizeof pace);
    if (o->runtime_s && o->runtime_s < min)
        cli_err(cmd, "warning: --runtime %u is too short to judge: %s and the verdict needs 100 samples of each job; "
                "use --runtime %u or more for a verdict", o->runtime_s, pace, min);
    return 0;
}

/* The engine's absolute path into buf: --engine's, or the one this etcd-fio finds. 0 or -1 after the
 * message. */
static int engine_abs(const cli_cmd *cmd, const char *engine, char *buf, size_t n)
{
    if (!engine) {
        if (engine_path_find(buf, n) == 0)
            return 0;
        cli_err(cmd, "%s", buf);
        return -1;
    }
    char *abs = realpath(engine, NULL);
    if (!abs) {
        cli_err(cmd, "--engine %s: %s", engine, strerror(errno));
        return -1;
    }
    snprintf(buf, n, "%s", abs);
    free(abs);
    return 0;
}

static int run(const cli_cmd *cmd, int argc, char **argv)
{
    profile_opts o = {.load = "s"};
    const char *dir = ".", *engine = NULL;
    char err[PATH_MAX + 256];
    int prc = parse_opts(cmd, argc, argv, &o, &dir, &engine);
    if (prc)
        return prc > 0 ? 0 : 2;
    /* fio resolves directory= against its own working directory; an absolute path keeps the file
     * meaningful wherever it is run from. A DIR that does not exist here (a file for another host) is
     * printed as given. */
    char dirbuf[PATH_MAX];
    if (realpath(dir, dirbuf))
        dir = dirbuf;
    o.dir = dir;
    char engbuf[PATH_MAX + 128];
    if (engine_abs(cmd, engine, engbuf, sizeof engbuf))
        return 2;
    o.engine_path = engbuf;
    if (cli_dir_ok(engbuf, err, sizeof err) || cli_dir_ok(dir, err, sizeof err)) {
        cli_err(cmd, "%s", err);
        return 2;
    }
    if (profile_write(stdout, &o, err, sizeof err) != 0) {
        cli_err(cmd, "%s", err);
        return 2;
    }
    if (fflush(stdout) != 0) {
        cli_err(cmd, "writing the job file: %s", strerror(errno));
        return 2;
    }
    return 0;
}
