/* SPDX-License-Identifier: MIT */
/* cli.h — what every etcd-fio subcommand shares (as git's builtins share parse-options): the command table
 * entry, the option table that parses and writes --help and the value parsers (cli_opt.c), one file reader, one
 * private temp directory, the verdict -> exit status mapping, the latency formatter, and the directory
 * check for fio job files. Messages are one line, prefixed
 * "etcd-fio CMD: ". */
#ifndef ETCD_FIO_CLI_H
#define ETCD_FIO_CLI_H

#include <getopt.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "fioreport.h"

/* Room for the one-line message a failing call writes into (err, errlen): a path of up to PATH_MAX (4096)
 * bytes and what is wrong with it. Text made of several unbounded parts is built in a strbuf instead. */
#define CLI_ERRLEN 4400

/* One version number for the CLI, the library and its .pc: the library's (FIOR_VERSION). */

/* One entry of a subcommand's option table (as git's parse-options): the table both parses the command
 * line (cli_next) and writes --help (cli_help), so an option is declared once, in one line:
 *     CLI_OPT("max-time", 't', "S", "stop after S seconds at the latest (default 120)"),
 * name: the long option without "--"; id: what cli_next returns for it (any int > 0 unique in the table
 * but '?', ':' and 'h'; a letter, or an enum from 256 up);
 * arg: the value's name in the help ("S", "FILE"), NULL for an option without a value; help: one
 * paragraph, wrapped by cli_help ('\n' forces a line break). CLI_MULTI: may be given more than once
 * (every other option given twice is an error). CLI_GROUP(text): a heading line (or lines) between
 * options. -h/--help is added to every table by cli_help and cli_next. */
enum { CLI_MULTI = 1, CLI_SHORT = 2 /* also -ID (a letter, no value): -v */ };
typedef struct cli_opt {
    const char *name;
    int         id;
    const char *arg;
    unsigned    flags;
    const char *help;
} cli_opt;
#define CLI_OPT(name, id, arg, help)   {name, id, arg, 0, help}
#define CLI_OPTM(name, id, arg, help)  {name, id, arg, CLI_MULTI, help}
#define CLI_OPTS(name, id, help)       {name, id, NULL, CLI_SHORT, help}
/* -v, --verbose: the table with every reason, detail and why: line (out.h), the same in each command */
#define CLI_OPT_VERBOSE \
    CLI_OPTS("verbose", 'v', "the whole answer: every job's reason, the run's details (phases, probe, " \
             "filesystem, memory, live etcd, rollovers) and every why: line")
#define CLI_GROUP(text)                {NULL, 0, NULL, 0, text}
#define CLI_END                        {NULL, 0, NULL, 0, NULL}
#define CLI_MAX_OPTS 64

/* The judging criteria of verdict and compare (ids 'p', 'w', 'b', 'n': cli_criteria_opt). */
#define CLI_OPTS_CRITERIA \
    CLI_OPT("percentile", 'p', "P", "percentile to judge, 0 < P < 100 (default 99)"), \
    CLI_OPT("wal-ms", 'w', "T", "WAL threshold in ms (default 10)"), \
    CLI_OPT("backend-ms", 'b', "T", "backend commit threshold in ms (default 25)"), \
    CLI_OPT("min-samples", 'n', "N", "fewer sync samples than N, or an unknown count, is UNKNOWN (default 100)")

/* TLS for https URLs, as etcdctl takes it, with the ids the command gives them (an id is any int > 0
 * unique in its table: ids >= 256 never clash with a letter). */
#define CLI_OPTS_TLS(id_cacert, id_cert, id_key) \
    CLI_OPT("cacert", id_cacert, "F", "CA bundle for https URLs, as etcdctl takes it"), \
    CLI_OPT("cert", id_cert, "F", "client certificate for https URLs"), \
    CLI_OPT("key", id_key, "F", "the client certificate's key")

typedef struct cli_cmd {
    const char *name;
    int (*run)(const struct cli_cmd *cmd, int argc, char **argv);
    const char *summary;
    const char *usage;          /* the "usage:" lines and what the command does, before the options */
    const cli_opt *opts;        /* the option table, ended by CLI_END */
    const char *outro;          /* after the options (what happens on a signal, exit status, environment) */
} cli_cmd;

extern const cli_cmd cmd_check_def, cmd_verdict_def, cmd_job_def, cmd_fleet_def, cmd_compare_def, cmd_capacity_def;

/* The whole --help text of cmd, generated from its table. */
void cli_help(FILE *f, const cli_cmd *cmd);

/* The option loop over cmd's table, one getopt_long underneath (options anywhere, --opt=VALUE and
 * --opt VALUE, unique prefixes, `--` ends the options). cli_next returns the next option's id, 0 when the
 * options are done (the operands are then argv[p->optind..argc-1], in order), CLI_HELP after printing the
 * help on stdout, or CLI_ERR after a one-line message on stderr: an unknown or ambiguous option, a missing
 * or empty value, an option given twice that is not CLI_MULTI. */
enum { CLI_ERR = -1, CLI_HELP = -2 };
typedef struct cli_parse {
    const cli_cmd *cmd;
    int argc;
    char **argv;
    const char *arg;            /* the value of the option just returned */
    int optind;
    struct option lo[CLI_MAX_OPTS + 2];
    int map[CLI_MAX_OPTS + 2];  /* lo[i] is cmd->opts[map[i]] */
    unsigned char seen[CLI_MAX_OPTS + 2];
    char optname[72];           /* "--max-time": the option just returned */
    char shortopts[16];         /* getopt's: ":h" and the CLI_SHORT letters */
} cli_parse;
void cli_parse_init(cli_parse *p, const cli_cmd *cmd, int argc, char **argv);
int  cli_next(cli_parse *p);
/* The name of the option just returned ("--max-time"), for messages. */
const char *cli_optname(const cli_parse *p);

/* Value parsers: 0, or -1 after "etcd-fio CMD: --opt VALUE: expected ..." on stderr. */
int cli_double(const cli_parse *p, double lo, double hi, double *out);
int cli_uint(const cli_parse *p, uint64_t lo, uint64_t hi, uint64_t *out);
/* A byte count > 0 with an optional K, M or G suffix (powers of 1024). */
int cli_bytes(const cli_parse *p, uint64_t *out);

/* The judging criteria options (CLI_OPTS_CRITERIA), by their ids: 1 when `id` was one of them and is set
 * in c, 0 when it is not one of them, -1 after the message for a bad value. */
int cli_criteria_opt(const cli_parse *p, int id, fior_criteria *c);

/* "etcd-fio CMD: " + message on stderr. */
void cli_err(const cli_cmd *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* snprintf that may cut (paths in messages). */
void cli_msg(char *buf, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* The whole file (or stdin for "-") into a NUL-terminated malloc'd buffer, at most max bytes.
 * NULL with "PATH: why" in err. */
char *cli_read_file(const char *path, size_t max, size_t *len, char *err, size_t errlen);
/* Last non-empty line of a small text file ("" when none), for error messages; fio's stderr with the
 * engine's refusal to load in it: that line. */
void cli_last_line(const char *path, char *buf, size_t len);
/* 1 if line (len bytes, no newline) is one of the engine's summary lines ("etcdwal: JOB: 3 segments (2
 * rollovers), ...", "... fdatasync n=...", "... backend N commits, ..."): statistics, never a cause. */
int  cli_engine_summary(const char *line, size_t len);

/* A private directory $TMPDIR/etcd-fio-WHAT.XXXXXX, locked for the run (tmpdir.h: a killed run's is reaped
 * by the next); 0 or -1 with a message in err. */
int  cli_tmpdir(const char *what, char *dir, size_t len, char *err, size_t errlen);
/* Removes the regular files directly in it (all ours: nobody else can write there) and the directory. */
void cli_tmpdir_remove(const char *dir);

/* A command's stop request: SIGINT and SIGTERM (and SIGHUP with CLI_STOP_HUP: a hung-up terminal or ssh
 * session) set *flag, which the command's loops check to end fio, clean up and report unknown; with
 * CLI_STOP_NOPIPE SIGPIPE is ignored (a closed pipe is then a write error, not our death). The handlers
 * replaced go into saved when it is not NULL, for cli_stop_restore. One command runs at a time: the flag
 * is the process's. */
enum { CLI_STOP_HUP = 1, CLI_STOP_NOPIPE = 2 };
typedef struct cli_stop_saved {
    struct sigaction old[3];    /* SIGINT, SIGTERM, SIGHUP */
    unsigned         flags;
} cli_stop_saved;
void cli_stop_on_signals(volatile int *flag, unsigned flags, cli_stop_saved *saved);
void cli_stop_restore(const cli_stop_saved *saved);

/* 0 PASS, 1 FAIL, 2 anything else: the exit status of every subcommand. */
int cli_exit_status(fior_verdict v);
/* The library's formatter, "?" for an unknown value (CLI_NS_UNKNOWN). Returns buf. */
#define CLI_NS_UNKNOWN UINT64_MAX
char *cli_fmt_ns(char *buf, size_t n, uint64_t ns);

/* fio's job-file parser cuts an option value at '#' and ';' and a newline ends it: a directory with one
 * would silently point the run elsewhere. 0, or -1 with a one-line message naming the character. */
int cli_dir_ok(const char *dir, char *err, size_t errlen);

/* The fio binary: $FIO, else a release tarball's own (lib/etcd-fio/fio), else "fio" from PATH. */
const char *cli_fio(void);
/* This machine's hostname ("" when unknown). */
void cli_hostname(char *buf, size_t len);

#endif
