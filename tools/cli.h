/* SPDX-License-Identifier: MIT */
/* cli.h — what every etcd-fio subcommand shares (as git's builtins share parse-options): the command table
 * entry with its help text, one getopt_long loop (options anywhere, --opt=value and --opt value, `--` ends
 * options), value parsers, one file reader, one private temp directory, the verdict -> exit status mapping,
 * the latency formatter, and the directory check for fio job files. Messages are one line, prefixed
 * "etcd-fio CMD: ". */
#ifndef ETCD_FIO_CLI_H
#define ETCD_FIO_CLI_H

#include <getopt.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "fioreport.h"

/* One version number for the CLI, the library and its .pc: the library's (FIOR_VERSION). */

typedef struct cli_cmd {
    const char *name;
    int (*run)(const struct cli_cmd *cmd, int argc, char **argv);
    const char *summary;
    const char *help;           /* the whole --help text */
} cli_cmd;

extern const cli_cmd cmd_check_def, cmd_verdict_def, cmd_job_def, cmd_fleet_def, cmd_compare_def, cmd_capacity_def;

/* The option loop: `lo` is a getopt_long table whose .val are the caller's ids (non-zero, not '?' or ':');
 * {"help", no_argument, 0, 'h'} is handled here. cli_next returns the next id, 0 when the options are done
 * (the operands are then argv[p->optind..argc-1], in order), CLI_HELP after printing the help on stdout,
 * or CLI_ERR after a one-line message on stderr. */
enum { CLI_ERR = -1, CLI_HELP = -2 };
typedef struct cli_parse {
    const cli_cmd *cmd;
    int argc;
    char **argv;
    const struct option *lo;
    const char *arg;            /* the value of the option just returned */
    int optind;
} cli_parse;
void cli_parse_init(cli_parse *p, const cli_cmd *cmd, int argc, char **argv, const struct option *lo);
int  cli_next(cli_parse *p);
/* The name of the option just returned ("--max-time"), for messages. */
const char *cli_optname(const cli_parse *p);

/* Value parsers: 0, or -1 after "etcd-fio CMD: --opt VALUE: expected ..." on stderr. */
int cli_double(const cli_parse *p, double lo, double hi, double *out);
int cli_uint(const cli_parse *p, uint64_t lo, uint64_t hi, uint64_t *out);
/* A byte count > 0 with an optional K, M or G suffix (powers of 1024). */
int cli_bytes(const cli_parse *p, uint64_t *out);

/* The judging criteria options of verdict and compare, by their option ids: 'p' --percentile P, 'w' --wal-ms T,
 * 'b' --backend-ms T, 'n' --min-samples N. 1 when `id` was one of them and is set in c, 0 when it is not
 * one of them, -1 after the message for a bad value. */
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

/* 0 PASS, 1 FAIL, 2 anything else: the exit status of every subcommand. */
int cli_exit_status(fior_verdict v);
/* The library's formatter, "?" for an unknown value (CLI_NS_UNKNOWN). Returns buf. */
#define CLI_NS_UNKNOWN UINT64_MAX
char *cli_fmt_ns(char *buf, size_t n, uint64_t ns);

/* fio's job-file parser cuts an option value at '#' and ';' and a newline ends it: a directory with one
 * would silently point the run elsewhere. 0, or -1 with a one-line message naming the character. */
int cli_dir_ok(const char *dir, char *err, size_t errlen);

/* The fio binary: $FIO or "fio". */
const char *cli_fio(void);
/* This machine's hostname ("" when unknown). */
void cli_hostname(char *buf, size_t len);

#endif
