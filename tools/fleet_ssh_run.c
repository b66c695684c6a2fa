/* SPDX-License-Identifier: MIT */
/* fleet_ssh_run.c — the processes of `etcd-fio fleet --ssh`: one OpenSSH client per host (proc.h, argv only,
 * at most --parallel at once) running `etcd-fio check --json --stop-on-eof` there, its stdout and stderr read
 * through pipes with caps (a remote that sends more than FLEET_SSH_OUT_MAX is not ours and is stopped), and
 * beside them the fio client of the fio-server hosts, if any.
 *
 * How a remote check is stopped: ssh passes no signal on, but its stdin here is a pipe that is never written,
 * and closing it makes ssh send EOF; sshd then closes the remote command's stdin, and `check --stop-on-eof`
 * ends its fio, removes its files and prints an interrupted result. The same EOF reaches the remote check when
 * the session is lost: ssh killed, or etcd-fio killed (ssh gets SIGTERM through proc.c's pdeathsig, and
 * without it its stdin ends with us). A timeout or a stop request (SIGINT/SIGTERM) closes the stdin, waits
 * FLEET_SSH_STOP_GRACE_S for the remote to finish, then stops ssh (INT, TERM, KILL). */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "fleet.h"

#define DRAIN_S 2.0 /* after ssh has ended, how long its pipes may stay open (a ProxyJump child holding them) */

static void close_fd(int *fd)
{
    if (*fd >= 0) {
        close(*fd);
        *fd = -1;
    }
}

static void start(const fleet *f, fleet_ssh *s)
{
    char cmd[PATH_MAX + 1024];
    const char *argv[32];
    s->started = 1;
    s->t0 = proc_now();
    if (fleet_ssh_command(f, s, cmd, sizeof cmd) || !fleet_ssh_argv(f, s, cmd, argv, 32)) {
        s->errlen = (size_t)snprintf(s->err, sizeof s->err, "the remote command is too long");
        s->done = 1;
        return;
    }
    char e[512];
    /* a session of its own: no prompt on our terminal from anything ssh runs (a ProxyJump's ssh does not get
     * BatchMode), and a Ctrl-C reaches only us: the stop goes through the stdin */
    if (proc_start_io(&s->p, argv, (proc_io){PROC_PIPE, NULL}, (proc_io){PROC_PIPE, NULL}, (proc_io){PROC_PIPE, NULL},
                      PROC_NEW_SESSION, e, sizeof e)) {
        s->errlen = (size_t)snprintf(s->err, sizeof s->err, "%s (set ETCD_FIO_SSH or install openssh-client)", e);
        s->done = 1;
    }
}

/* Closes the remote check's stdin: it stops (once). */
static void stop(fleet_ssh *s, ssh_stop why)
{
    if (!s->stop)
        s->stop = why;
    if (!s->t_stop) {
        s->t_stop = proc_now();
        close_fd(&s->p.in_fd);
    }
}

/* Reads what is there from fd (stdout into out, at most the cap; stderr: the first FLEET_SSH_ERR_MAX bytes). */
static void drain(fleet_ssh *s, int is_err)
{
    int *fd = is_err ? &s->p.err_fd : &s->p.out_fd;
    char tmp[16384];
    ssize_t n = read(*fd, tmp, sizeof tmp);
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return;
    if (n <= 0) {
        close_fd(fd);
        return;
    }
    if (is_err) {
        s->errtotal += (size_t)n;
        if (s->errtotal > FLEET_SSH_ERR_FLOOD) { /* no check writes that much: stop it, read no more */
            stop(s, SSH_STOP_TOO_BIG);
            close_fd(fd);
            proc_stop_step(&s->p, 0);
            return;
        }
        size_t k = (size_t)n < FLEET_SSH_ERR_MAX - s->errlen ? (size_t)n : FLEET_SSH_ERR_MAX - s->errlen;
        memcpy(s->err + s->errlen, tmp, k);
        s->errlen += k;
        s->err[s->errlen] = '\0';
        return;
    }
    if (s->outlen + (size_t)n > FLEET_SSH_OUT_MAX) { /* not a check's JSON: stop it, read no more */
        stop(s, SSH_STOP_TOO_BIG);
        close_fd(fd);
        proc_stop_step(&s->p, 0);
        return;
    }
    if (s->outlen + (size_t)n + 1 > s->outcap) {
        size_t cap = s->outcap ? s->outcap : 16384;
        while (cap < s->outlen + (size_t)n + 1)
            cap *= 2;
        char *nb = realloc(s->out, cap);
        if (!nb) {
            stop(s, SSH_STOP_TOO_BIG);
            close_fd(fd);
            return;
        }
        s->out = nb;
        s->outcap = cap;
    }
    memcpy(s->out + s->outlen, tmp, (size_t)n);
    s->outlen += (size_t)n;
    s->out[s->outlen] = '\0';
}

/* Timeouts, stop requests and the end of one running host. */
static void tend(const fleet *f, fleet_ssh *s, double now)
{
    if (!s->exited && proc_wait(&s->p, 0)) {
        s->exited = 1;
        s->t_exit = now;
    }
    if (s->exited) {
        if ((s->p.out_fd < 0 && s->p.err_fd < 0) || now - s->t_exit > DRAIN_S) {
            s->status = s->p.state == PROC_SIGNALED ? -1 : s->p.code;
            s->signo = s->p.state == PROC_SIGNALED ? s->p.code : 0;
            s->seconds = now - s->t0;
            proc_release(&s->p);
            s->done = 1;
        }
        return;
    }
    if (fleet_stop_requested)
        stop(s, SSH_STOP_INTERRUPT);
    else if (now - s->t0 > f->ssh_timeout)
        stop(s, SSH_STOP_TIMEOUT);
    if (s->t_stop && now - s->t_stop > (s->stop == SSH_STOP_TOO_BIG ? 0 : FLEET_SSH_STOP_GRACE_S))
        proc_stop_step(&s->p, 10);
}

int fleet_ssh_run(fleet *f, proc *fio, double fio_deadline)
{
    /* BatchMode does not reach a ProxyJump's ssh: without a terminal (PROC_NEW_SESSION) it could still ask
     * through ssh-askpass on a $DISPLAY; OpenSSH >= 8.4 never does with this */
    if (f->ns)
        setenv("SSH_ASKPASS_REQUIRE", "never", 1);
    struct pollfd *pf = calloc(2 * f->ns + 1, sizeof *pf);
    fleet_ssh **who = calloc(2 * f->ns + 1, sizeof *who);
    size_t next = 0;
    int fio_done = !fio, passed_on = 0;
    if (!pf || !who) { /* no memory: the hosts stay unstarted (unknown) */
        free(pf);
        free(who);
        while (fio && !fleet_run_poll(fio, fio_deadline, &passed_on))
            proc_wait(fio, 200);
        return fio ? fleet_run_status(fio) : 0;
    }
    for (;;) {
        size_t running = 0, n = 0;
        for (size_t i = 0; i < f->ns; i++)
            running += f->s[i].started && !f->s[i].done;
        while (next < f->ns && running < (size_t)f->parallel && !fleet_stop_requested) {
            start(f, &f->s[next]);
            running += !f->s[next++].done;
        }
        for (; fleet_stop_requested && next < f->ns; next++) { /* never started: unknown, interrupted */
            f->s[next].stop = SSH_STOP_INTERRUPT;
            f->s[next].done = 1;
        }
        if (!fio_done)
            fio_done = fleet_run_poll(fio, fio_deadline, &passed_on);
        if (!running && next == f->ns && fio_done)
            break;
        for (size_t i = 0; i < f->ns; i++) {
            fleet_ssh *s = &f->s[i];
            if (!s->started || s->done)
                continue;
            if (s->p.out_fd >= 0)
                pf[n] = (struct pollfd){s->p.out_fd, POLLIN, 0}, who[n++] = s;
            if (s->p.err_fd >= 0)
                pf[n] = (struct pollfd){s->p.err_fd, POLLIN, 0}, who[n++] = s;
        }
        int pr = poll(pf, n, 200);
        for (size_t k = 0; pr > 0 && k < n; k++)
            if (pf[k].revents && (pf[k].fd == who[k]->p.out_fd || pf[k].fd == who[k]->p.err_fd))
                drain(who[k], pf[k].fd == who[k]->p.err_fd);
        double now = proc_now();
        for (size_t i = 0; i < f->ns; i++)
            if (f->s[i].started && !f->s[i].done)
                tend(f, &f->s[i], now);
    }
    free(pf);
    free(who);
    return fio ? fleet_run_status(fio) : 0;
}
