/* SPDX-License-Identifier: MIT */
/* check_classic.c — `check --classic`: afterwards, the test operators know from etcd's docs and rke2's notes
 * (`fio --rw=write --ioengine=sync --fdatasync=1 --bs=2300 --size=22m`), run in a private directory under
 * DIR and judged by the library, so its p99 can be shown beside ours.
 *
 * It never outlives a kill. fio's own sync engine asks for no death signal, and a job process sits in a
 * session of its own: after a SIGKILL of etcd-fio's group it wrote and synced on in DIR to its end. So the
 * job runs as a thread of fio (thread=1: the same writes and fdatasyncs from one thread), fio gets SIGKILL
 * at our death (PROC_DIE_KILL: also a stopped fio ends), and the directory has a guard (tmpdir_guard) that
 * removes it as soon as we and that fio are gone; were the guard killed too, the next check (preflight)
 * or the engine's next run in DIR (privdir.h: PRIVDIR_CLASSIC_PREFIX) reaps it by its lock. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cli.h"
#include "etcdwatch.h"
#include "tmpdir.h"

void check_classic(const char *dir, const char *tmp, const fior_criteria *c, classic_out *out)
{
    memset(out, 0, sizeof *out);
    out->ran = 1;
    char sub[4200], job[4200], res[4200], err[4200];
    if (tmpdir_make(dir, "classic", sub, sizeof sub, out->err, sizeof out->err)) /* locked: tmpdir.h */
        return;
    tmpdir_guard(sub); /* without one (fork failed) a kill's leftover is the next run's */
    cli_msg(job, sizeof job, "%s/classic.fio", tmp);
    cli_msg(res, sizeof res, "%s/classic.json", tmp);
    cli_msg(err, sizeof err, "%s/classic.stderr", tmp);
    FILE *f = fopen(job, "wx");
    if (f) {
        fprintf(f, "[classic]\nioengine=sync\nfdatasync=1\nrw=write\nbs=2300\nsize=22m\nthread=1\ndirectory=");
        for (const char *p = sub; *p; p++) {
            if (*p == ':')
                fputc('\\', f); /* fio splits directory= at ':' */
            fputc(*p, f);
        }
        fputc('\n', f);
        fclose(f);
    }
    const char *argv[] = {cli_fio(), "--eta=never", "--output-format=json+", "--output", res, job, NULL};
    proc p;
    double t0 = proc_now();
    char e2[512];
    if (proc_start_io(&p, argv, (proc_io){PROC_INHERIT, NULL}, (proc_io){PROC_INHERIT, NULL},
                      (proc_io){PROC_FILE, err}, PROC_DIE_KILL, e2, sizeof e2) == 0) {
        while (!proc_wait(&p, 250))
            if (check_interrupted || etcdwatch_tripped()) /* the live etcd's guard stops it too */
                proc_stop_step(&p, 10);
        proc_release(&p);
    }
    out->seconds = proc_now() - t0;
    tmpdir_remove(sub); /* only fio's one data file (and our lock) is in it */
    fior_report *rep = fior_report_new();
    int good = p.state == PROC_EXITED && p.code == 0 && !check_job_signal(err) && !check_interrupted;
    if (!rep || !good || fior_parse_file(rep, res) != FIOR_OK || !fior_report_njobs(rep)) {
        char l[512];
        cli_last_line(err, l, sizeof l);
        cli_msg(out->err, sizeof out->err, "classic fio job gave no result%s%s", l[0] ? ": " : "", l);
        fior_report_free(rep);
        return;
    }
    fior_result *r = fior_judge(rep, c);
    const fior_job *j = fior_report_job(rep, 0);
    out->verdict = r ? fior_result_job(r, 0)->verdict : FIOR_UNKNOWN;
    out->p99 = result_job_pct(j, 99.0);
    out->syncs = j->samples_known ? j->samples : 0;
    out->ok = 1;
    fior_result_free(r);
    fior_report_free(rep);
}
