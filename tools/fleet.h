/* SPDX-License-Identifier: MIT */
/* fleet.h — `etcd-fio fleet`, split into the host list and probe replies (fleet_hosts.c, pure), running the
 * fio clients (fleet_run.c), aggregating fio's client_stats per host into the result model
 * (fleet_judge.c, pure) and the command (cmd_fleet.c). Unit tests: tests/test_fleet.c.
 * The ssh transport (--ssh): the host list, the remote command and its quoting (fleet_ssh.c, pure), the ssh
 * processes (fleet_ssh_run.c), and the reading and re-proving of each remote check's JSON (fleet_remote.c,
 * fleet_proof.c, pure). Unit tests: tests/test_fleet_ssh.c. */
#ifndef ETCD_FIO_FLEET_H
#define ETCD_FIO_FLEET_H

#include <limits.h>
#include <stddef.h>

#include "proc.h"
#include "result.h"

#define FLEET_DEFAULT_PORT 8765
#define FLEET_DEFAULT_DIR  "/var/lib/etcd"
#define FLEET_PROBE_TIMEOUT_S 30
#define FLEET_PROBE_BATCH  64 /* parse-only fio clients at once: 50 servers probed in one round */

typedef enum host_status {
    HS_OK = 0,
    HS_UNREACHABLE,    /* no connection / no probe reply */
    HS_FIO_VERSION,    /* the server runs another fio than this client (and the engine) */
    HS_NO_ENGINE,      /* the engine is not at the same path on the server */
    HS_PROBE_FAILED,   /* the server could not parse the job (other engine build, bad directory, ...) */
    HS_NO_RESULTS,     /* the run gave nothing for this host */
    HS_INTERRUPTED,    /* the run was interrupted (SIGINT/SIGTERM) or the server went away mid-run */
    HS_JUDGED          /* results read and judged */
} host_status;
const char *fleet_status_name(host_status s);

typedef struct fleet_host {
    char        spec[300];      /* HOST,PORT as given to fio */
    char        name[256];      /* HOST without fio's ip:/ip6: prefix, as fio reports it in client_stats */
    int         port;
    char        dir[PATH_MAX];  /* directory on the server ("" = the fleet's --dir) */
    host_status st;
    char        server_name[128];  /* the server's own hostname (fio prefixes its text lines with it) */
    char        fio_version[64];
    char        msg[512];
} fleet_host;

/* --ssh [USER@]HOST[:DIR]: one remote `etcd-fio check --json --stop-on-eof` through OpenSSH's client */
#define FLEET_SSH_PARALLEL   16        /* --parallel default */
#define FLEET_SSH_MAX_HOSTS  10000     /* ~13 KB each while the run lasts */
#define FLEET_SSH_OUT_MAX    (1 << 20) /* a check's JSON is ~5 KB: more is not ours (the host is unknown) */
#define FLEET_SSH_ERR_MAX    8192      /* stderr kept for the reason; the rest is read and dropped */
#define FLEET_SSH_ERR_FLOOD  (16 << 20) /* ...up to this much: a remote that floods it is stopped */
#define FLEET_SSH_MARGIN_S   70        /* default --ssh-timeout: --max-time + phase 1 (10) + this (help: + 80) */
#define FLEET_SSH_STOP_GRACE_S 30      /* after a remote check's stdin is closed, before its ssh is stopped */

typedef enum ssh_stop { SSH_NOT_STOPPED = 0, SSH_STOP_TIMEOUT, SSH_STOP_INTERRUPT, SSH_STOP_TOO_BIG } ssh_stop;

typedef struct fleet_ssh {
    char     spec[600];       /* [USER@]HOST[:DIR] as given */
    char     dest[320];       /* USER@HOST or HOST: ssh's destination (and the row's host) */
    char     dir[PATH_MAX];   /* "" = the fleet's --dir */
    /* the run (fleet_ssh_run.c) */
    int      started, exited, done;
    proc     p;
    double   t0, t_stop, t_exit; /* when it started / its stdin was closed (0: not yet) / ssh ended */
    ssh_stop stop;
    char    *out;             /* the remote's stdout (NUL-terminated), at most FLEET_SSH_OUT_MAX */
    size_t   outlen, outcap;
    char     err[FLEET_SSH_ERR_MAX + 1];
    size_t   errlen, errtotal;   /* kept / read (more than FLEET_SSH_ERR_FLOOD: stopped as too big) */
    int      status;          /* ssh's exit status (the remote command's, or 255 for ssh's own errors), -1 when
                               * it did not start or was killed by a signal (signo) */
    int      signo;
    double   seconds;
} fleet_ssh;

typedef struct fleet {
    fleet_host *h;
    size_t      n, cap;
    fleet_ssh  *s;              /* --ssh hosts */
    size_t      ns, scap;
    const char *ssh, *ssh_config, *remote_bin; /* ssh program ($ETCD_FIO_SSH, ssh), -F FILE, remote etcd-fio */
    double      max_time, ssh_timeout;          /* the remote check's --max-time; per host limit */
    uint64_t    min_syncs;                      /* 0: check's default */
    int         full, faithful, parallel;
    const char *load, *dir, *prom_file, *keep_dir, *fio;
    unsigned    runtime_s;
    int         json, accept_point, verbose;
    double      confidence;     /* of the bound on each p99 (0.95) */
    char        engine[PATH_MAX];
    char        local_version[64];
    char        work[PATH_MAX];
} fleet;

/* fleet_hosts.c */
/* Remote text for a terminal and one line: control characters, DEL and every non-ASCII byte become '?',
 * a line break a space; at most n-1 bytes. */
void fleet_printable(char *dst, size_t n, const char *src, size_t len);
/* Adds HOST[,PORT] with an optional absolute DIR (no '#', ';' or newline); `where` prefixes messages
 * ("--client", "FILE:LINE"). 0, or -1 with a one-line message in err. */
int  fleet_add_host(fleet *f, const char *spec, const char *dir, const char *where, char *err, size_t errlen);
/* Each non-blank line of a hosts file, its # comment cut, split at blanks into at most max (<= 4) words:
 * fn(ctx, words, n, "FILE:LINE", err, errlen). A NUL, a line too long, more words or no host at all: -1 with
 * "FILE:LINE: ..." naming `usage`. */
typedef int (*fleet_line_fn)(void *ctx, char **w, int n, const char *where, char *err, size_t errlen);
int  fleet_each_line(const char *path, const char *text, size_t len, int max, const char *usage, fleet_line_fn fn,
                     void *ctx, char *err, size_t errlen);
/* `HOST[,PORT] [DIR]` per line, blank lines and # comments ignored; errors name FILE:LINE. */
int  fleet_parse_clients(fleet *f, const char *path, const char *text, size_t len, char *err, size_t errlen);
/* Reads the output of `fio --client=H,P job.fio --parse-only` for host h (rc: fio's exit status, -1 when
 * it was stopped for the time limit) and sets h->st / msg / server_name / fio_version. */
void fleet_judge_probe(const fleet *f, fleet_host *h, const char *txt, int rc);

/* fleet_run.c */
extern volatile int fleet_stop_requested;
int  fleet_local_version(fleet *f, char *err, size_t errlen);
int  fleet_preflight(fleet *f, char *err, size_t errlen);
/* Runs the profile on every HS_OK host; fio's output goes to out_path. *interrupted: the run was stopped
 * by a signal to us, or fio itself did not end normally (its reason in why). */
int  fleet_run(fleet *f, const char *out_path, int *interrupted, char *why, size_t whylen, char *err, size_t errlen);
/* The same in steps, so that the ssh hosts run beside it: start (*started 0 when no host is usable), one look
 * without waiting (a stop request passed on once, stopped past the deadline; 1 once it has ended), its status
 * (exit status, 128+signal, -1 stopped for the time limit) and the end (interrupted / why / err as fleet_run). */
int  fleet_run_start(fleet *f, const char *out_path, proc *p, int *started, double *deadline, char *err,
                     size_t errlen);
int  fleet_run_poll(proc *p, double deadline, int *passed_on);
int  fleet_run_status(const proc *p);
int  fleet_run_end(const fleet *f, int st, const char *out_path, int *interrupted, char *why, size_t whylen,
                   char *err, size_t errlen);

/* fleet_judge.c: fills r (one result_host per fleet host, worst first) from fio's report of the run (NULL when
 * there is none) and its raw text (server messages); interrupted marks every host that ran as
 * HS_INTERRUPTED (unknown). */
void fleet_judge(const fleet *f, const fior_report *rep, const char *raw, const fior_criteria *c, int interrupted,
                 const char *why, result_run *r);
/* The bound rule of a host whose jobs have a PASS/FAIL verdict: each one's confidence bound on the p99 must be
 * on the same side of its threshold, else the job is unknown (the point estimate in its reason) unless
 * --accept-point-estimate. Sets the host's verdict and basis. */
void fleet_apply_bound(const fleet *f, result_host *h);

/* cmd_fleet.c: once per run, on stderr, when a host of opt (--client, --member) is not a loopback address:
 * fio's server is a remote shell for whoever reaches it (man etcd-fio: SECURITY). */
struct cli_cmd;
void fleet_warn_exposed(const struct cli_cmd *cmd, const fleet *f, const char *opt);

/* fleet_ssh.c (pure) */
/* Adds [USER@]HOST[:DIR] (HOST a name, an ssh_config alias, IPv4, or [IPv6]); `where` prefixes messages. */
int  fleet_add_ssh(fleet *f, const char *spec, const char *where, char *err, size_t errlen);
/* `[USER@]HOST[:DIR]` per line, blank lines and # comments ignored; errors name FILE:LINE. */
int  fleet_parse_ssh_hosts(fleet *f, const char *path, const char *text, size_t len, char *err, size_t errlen);
/* The one command string ssh hands to the remote user's shell: every word single-quoted. 0, or -1 (too long). */
int  fleet_ssh_command(const fleet *f, const fleet_ssh *s, char *cmd, size_t len);
/* ssh's argv (NULL-terminated, at most max entries; pointers into f, s and cmd). Returns the count. */
size_t fleet_ssh_argv(const fleet *f, const fleet_ssh *s, const char *cmd, const char **argv, size_t max);
/* A remote word (DIR, --remote-etcd-fio) that every shell reads the same inside single quotes: printable
 * ASCII without ' " \ ` $ !. 0, or -1 with the message. */
int  fleet_remote_word_ok(const char *what, const char *s, char *err, size_t errlen);
/* 1 when HOST (fio's spec without ip:/ip6:) is a loopback literal or localhost. */
int  fleet_is_loopback(const char *host);

/* fleet_ssh_run.c: starts every --ssh host (at most f->parallel at a time) and waits for them all, and for
 * `fio` (the fio-server run, or NULL) until fio_deadline; a stop request closes every remote check's stdin
 * (it ends its fio and cleans up) and starts no more hosts. Returns fio's status as fleet_run_status(). */
int  fleet_ssh_run(fleet *f, proc *fio, double fio_deadline);

/* What fleet_remote_proof() needs of a remote check's JSON besides its host's jobs. */
typedef struct fleet_remote {
    double   percentile, confidence;
    uint64_t wal_ns, backend_ns, min_samples;
    char     load[8], verdict[16], host_verdict[16], status[32], run_end[48], basis[32];
    int      decided_by;          /* details.phases.decided_by: 1 or 2 (0: missing) */
    char     reason[768];
    int      phase2_ran, probe_ok, exit_status, ssh_status;
} fleet_remote;
/* The remote's PASS or FAIL stands only when its numbers prove it under this run's criteria c: the same
 * percentile, thresholds, minimum samples, confidence and load; a run that ended normally (a phase-1 result
 * confirmed by phase 2); one WAL and one backend job, each with a known count >= the minimum, judged against
 * our threshold, its value on the side its verdict says; the confidence bound on the right side
 * (fleet_apply_bound); the JSON agreeing with itself and with the command's exit status. Otherwise h is
 * unknown (status "unproven", or the remote's own when it could not judge). The one place of this rule
 * (fleet_proof.c). */
void fleet_remote_proof(const fleet *f, const fior_criteria *c, const fleet_remote *rr, result_host *h);
/* fleet_proof.c: the verdict a check's JSON names ("PASS"…), (fior_verdict)-1 for none */
fior_verdict fleet_remote_verdict_word(const char *s);

/* fleet_remote.c (pure): host h from how s ended and the remote's output; `interrupted` (a stop request to
 * us) leaves it unknown whatever it printed. */
void fleet_ssh_judge(const fleet *f, const fior_criteria *c, const fleet_ssh *s, int interrupted, result_host *h);

#endif
