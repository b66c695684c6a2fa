/* SPDX-License-Identifier: MIT */
/* fleet_run.c — the run step of `etcd-fio fleet`: fio's own version, the parse-only probe of every server
 * (FLEET_PROBE_BATCH fio clients at a time; the server parses the very job the run will use, so it fails on what
 * the run would fail to parse, without touching its disk), then one fio client process that runs the
 * profile on every usable server at once — each server gets its own copy of the job file, because fio hands
 * a job file only to the --client option in front of it. Processes through proc.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "fleet.h"
#include "proc.h"
#include "profile.h"

volatile int fleet_stop_requested;

#define PROFILE_RUNTIME_S 60 /* profile.c's default runtime, for the time limit only */

static unsigned fleet_run_limit(const fleet *f)
{
    return (f->runtime_s ? f->runtime_s : PROFILE_RUNTIME_S) * 2 + 120;
}

/* One look at p without waiting: a stop request (SIGINT to us) is passed on as SIGINT once (*passed_on);
 * past the deadline it is stopped (INT, TERM, KILL 10 s apart). 1 once it has ended. */
int fleet_run_poll(proc *p, double deadline, int *passed_on)
{
    if (fleet_stop_requested && !*passed_on) {
        /* fio's client treats SIGINT as "stop the run and report"; a terminal already sent it to the whole
         * process group, a `kill` of this process only reached us. Once is enough. */
        if (p->state == PROC_RUNNING && !p->stop_level)
            proc_stop_step(p, 10);
        *passed_on = 1;
    }
    if (proc_wait(p, 0))
        return 1;
    if (proc_now() > deadline)
        proc_stop_step(p, 10);
    return 0;
}

int fleet_run_status(const proc *p)
{
    int timed_out = p->stop_level && !fleet_stop_requested;
    return timed_out ? -1 : p->state == PROC_SIGNALED ? 128 + p->code : p->code;
}

/* Waits for procs until deadline (monotonic s); a stop request is passed on to each as SIGINT once; past
 * the deadline each is stopped (INT, TERM, KILL 10 s apart). status[i]: fleet_run_status. */
static void wait_all(proc *p, int *status, size_t n, double deadline)
{
    int passed_on = 0;
    for (size_t i = 0; i < n; i++) {
        for (;;) {
            if (fleet_stop_requested && !passed_on) {
                for (size_t k = 0; k < n; k++)
                    if (p[k].state == PROC_RUNNING && !p[k].stop_level)
                        proc_stop_step(&p[k], 10);
                passed_on = 1;
            }
            if (proc_wait(&p[i], 200))
                break;
            if (proc_now() > deadline)
                proc_stop_step(&p[i], 10);
        }
        status[i] = fleet_run_status(&p[i]);
        proc_release(&p[i]);
    }
}

int fleet_local_version(fleet *f, char *err, size_t errlen)
{
    char out[PATH_MAX + 32];
    cli_msg(out, sizeof out, "%s/fio-version.txt", f->work);
    const char *argv[] = {f->fio, "--version", NULL};
    proc p;
    int st = 127;
    if (proc_start(&p, argv, (proc_io){PROC_FILE, out}, (proc_io){PROC_TO_STDOUT, NULL}, err, errlen) == 0)
        wait_all(&p, &st, 1, proc_now() + 10);
    char e2[64];
    char *txt = cli_read_file(out, 1 << 16, NULL, e2, sizeof e2);
    if (st != 0 || !txt || strncmp(txt, "fio-", 4)) {
        cli_msg(err, errlen, "cannot run '%s --version' (is fio installed? set FIO=)", f->fio);
        free(txt);
        return -1;
    }
    txt[strcspn(txt, "\r\n")] = '\0';
    cli_msg(f->local_version, sizeof f->local_version, "%s", txt);
    free(txt);
    return 0;
}

static int write_job(const fleet *f, const fleet_host *h, const char *path, char *err, size_t errlen)
{
    FILE *out = fopen(path, "wx");
    if (!out) {
        cli_msg(err, errlen, "%.600s: %s", path, strerror(errno));
        return -1;
    }
    profile_opts o = {.load = f->load, .dir = h->dir[0] ? h->dir : f->dir, .engine_path = f->engine,
                   .runtime_s = f->runtime_s};
    int rc = profile_write(out, &o, err, errlen);
    if (fclose(out) && !rc) {
        cli_msg(err, errlen, "%.600s: %s", path, strerror(errno));
        rc = -1;
    }
    return rc;
}

int fleet_preflight(fleet *f, char *err, size_t errlen)
{
    proc p[FLEET_PROBE_BATCH];
    int st[FLEET_PROBE_BATCH];
    for (size_t b = 0; b < f->n; b += FLEET_PROBE_BATCH) {
        size_t n = f->n - b < FLEET_PROBE_BATCH ? f->n - b : FLEET_PROBE_BATCH, started = 0;
        int rc = 0;
        for (size_t k = 0; k < n && !rc; k++) {
            size_t i = b + k;
            char job[PATH_MAX + 64], out[PATH_MAX + 64], client[sizeof f->h[i].spec + 16];
            cli_msg(job, sizeof job, "%s/job-%zu.fio", f->work, i); /* the run uses it too */
            cli_msg(out, sizeof out, "%s/probe-%zu.out", f->work, i);
            if (write_job(f, &f->h[i], job, err, errlen)) {
                rc = -1;
                break;
            }
            cli_msg(client, sizeof client, "--client=%s", f->h[i].spec);
            /* --parse-only after the job file travels with that client's job to the server: the server
             * parses the job (engine path, engine options; it loads the engine) and runs nothing. */
            const char *argv[] = {f->fio, "--eta=never", client, job, "--parse-only", NULL};
            if (proc_start(&p[k], argv, (proc_io){PROC_FILE, out}, (proc_io){PROC_TO_STDOUT, NULL}, err, errlen))
                rc = -1;
            else
                started++;
        }
        wait_all(p, st, started, proc_now() + FLEET_PROBE_TIMEOUT_S);
        if (rc)
            return -1;
        for (size_t k = 0; k < n; k++) {
            char out[PATH_MAX + 64], e2[64];
            cli_msg(out, sizeof out, "%s/probe-%zu.out", f->work, b + k);
            char *txt = cli_read_file(out, 16 << 20, NULL, e2, sizeof e2);
            fleet_judge_probe(f, &f->h[b + k], txt, st[k]);
            free(txt);
        }
    }
    return 0;
}

int fleet_run_start(fleet *f, const char *out_path, proc *p, int *started, double *deadline, char *err,
                    size_t errlen)
{
    *started = 0;
    size_t nok = 0;
    for (size_t i = 0; i < f->n; i++)
        nok += f->h[i].st == HS_OK;
    if (!nok)
        return 0;
    const char **argv = calloc(4 + 2 * nok + 1, sizeof *argv);
    char (*client)[sizeof f->h[0].spec + 16] = calloc(nok, sizeof *client);
    char (*job)[PATH_MAX + 64] = calloc(nok, sizeof *job);
    int rc = 0;
    if (!argv || !client || !job) {
        cli_msg(err, errlen, "out of memory");
        rc = -1;
        goto out;
    }
    size_t a = 0, k = 0;
    argv[a++] = f->fio;
    argv[a++] = "--eta=never";
    argv[a++] = "--output-format=json+"; /* the bins: a confidence bound on each p99 (fleet_judge.c) */
    for (size_t i = 0; i < f->n; i++) {
        if (f->h[i].st != HS_OK)
            continue;
        cli_msg(job[k], sizeof job[k], "%s/job-%zu.fio", f->work, i);
        cli_msg(client[k], sizeof client[k], "--client=%s", f->h[i].spec);
        argv[a++] = client[k];
        argv[a++] = job[k];
        k++;
    }
    argv[a] = NULL;
    /* fio stops by itself at the runtime (time_based); the margin covers connecting, the servers' setup
     * and slow last syncs on a bad disk. */
    *deadline = proc_now() + fleet_run_limit(f);
    if (proc_start(p, argv, (proc_io){PROC_FILE, out_path}, (proc_io){PROC_TO_STDOUT, NULL}, err, errlen))
        rc = -1;
    else
        *started = 1;
out:
    free(argv);
    free(client);
    free(job);
    return rc;
}

int fleet_run_end(const fleet *f, int st, const char *out_path, int *interrupted, char *why, size_t whylen,
                  char *err, size_t errlen)
{
    *interrupted = 0;
    why[0] = '\0';
    if (st == -1) {
        cli_msg(err, errlen, "fio did not finish within %u s; its output so far is in %.700s", fleet_run_limit(f),
                out_path);
        return -1;
    }
    if (fleet_stop_requested) {
        *interrupted = 1;
        cli_msg(why, whylen, "interrupted: the run was cut short");
    } else if (st >= 128) {
        *interrupted = 1;
        cli_msg(why, whylen, "the fio client was killed by signal %d during the run", st - 128);
    }
    return 0;
}

int fleet_run(fleet *f, const char *out_path, int *interrupted, char *why, size_t whylen, char *err, size_t errlen)
{
    *interrupted = 0;
    why[0] = '\0';
    proc p;
    int started = 0, passed_on = 0;
    double deadline = 0;
    if (fleet_run_start(f, out_path, &p, &started, &deadline, err, errlen))
        return -1;
    if (!started)
        return 0;
    while (!fleet_run_poll(&p, deadline, &passed_on))
        proc_wait(&p, 200);
    int st = fleet_run_status(&p);
    proc_release(&p);
    return fleet_run_end(f, st, out_path, interrupted, why, whylen, err, errlen);
}
