/* SPDX-License-Identifier: MIT */
/* fleet.h — `etcd-fio fleet`, split into the host list and probe replies (fleet_hosts.c, pure), running the
 * fio clients (fleet_run.c), aggregating fio's client_stats per host into the result model
 * (fleet_judge.c, pure) and the command (cmd_fleet.c). Unit tests: tests/test_fleet.c. */
#ifndef ETCD_FIO_FLEET_H
#define ETCD_FIO_FLEET_H

#include <limits.h>
#include <stddef.h>

#include "result.h"

#define FLEET_DEFAULT_PORT 8765
#define FLEET_DEFAULT_DIR  "/var/lib/etcd"
#define FLEET_PROBE_TIMEOUT_S 30
#define FLEET_PROBE_BATCH  32

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

typedef struct fleet {
    fleet_host *h;
    size_t      n, cap;
    const char *load, *dir, *prom_file, *keep_dir, *fio;
    unsigned    runtime_s;
    int         json, accept_point;
    double      confidence;     /* of the bound on each p99 (0.95) */
    char        engine[PATH_MAX];
    char        local_version[64];
    char        work[PATH_MAX];
} fleet;

/* fleet_hosts.c */
/* Adds HOST[,PORT] with an optional absolute DIR (no '#', ';' or newline); `where` prefixes messages
 * ("--client", "FILE:LINE"). 0, or -1 with a one-line message in err. */
int  fleet_add_host(fleet *f, const char *spec, const char *dir, const char *where, char *err, size_t errlen);
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

/* fleet_judge.c: fills r (one rm_host per fleet host, worst first) from fio's report of the run (NULL when
 * there is none) and its raw text (server messages); interrupted marks every host that ran as
 * HS_INTERRUPTED (unknown). */
void fleet_judge(const fleet *f, const fior_report *rep, const char *raw, const fior_criteria *c, int interrupted,
                 const char *why, rm_run *r);

#endif
