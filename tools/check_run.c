/* SPDX-License-Identifier: MIT */
/* check_run.c — the run step of `etcd-fio check`: writes a phase's job file (the profile), starts the
 * installed fio on it (proc.h), reads its --status-interval json+ stream as it comes, feeds each document
 * to libfioreport's sequential judge (fior_monitor) and stops fio with SIGINT as soon as it advises (fio
 * then ends its jobs and still prints the final document). It records exactly how fio ended (check_end)
 * for the judge step. */
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "profile.h"
#include "cli.h"
#include "etcdwatch.h"
#include "term.h"

volatile int check_interrupted;

/* fio's own runtime= ends it at --max-time; past this margin we stop it; a fio that does not end within
 * STOP_GRACE_S of a signal gets the next one (SIGTERM, then SIGKILL). Past the margin --max-time is a hard
 * limit: the steps come every HARD_GRACE_S (SIGCONT with each, proc.h: a stopped fio ends too), and a fio
 * that SIGKILL does not end within KILL_WAIT_S (stuck in the kernel) is left behind, not waited for. So
 * check_run returns at the latest runtime + TIME_NET_S + 3 x HARD_GRACE_S, plus the orphans' end; a fio
 * that is stopped (SIGSTOP) is stopped as soon as its runtime is over (its SIGINT comes with SIGCONT). */
#define TIME_NET_S   20.0
#define STOP_GRACE_S 30.0
#define HARD_GRACE_S 5.0
#define STOPPED_AFTER_S 1.0 /* a fio found stopped this long past its runtime is stopped at once */
#define KILL_WAIT_S  5.0
#define CHECK_PHASE1_STATUS "200ms" /* fio --status-interval for phase 1 and the probe (samples come fast) */

void check_files_in(check_files *f, const char *dir)
{
    cli_msg(f->job, sizeof f->job, "%s/etcd-profile.fio", dir);
    cli_msg(f->err, sizeof f->err, "%s/fio.stderr", dir);
    cli_msg(f->ws, sizeof f->ws, "%s/wal-stats.json", dir);
    cli_msg(f->bs, sizeof f->bs, "%s/backend-stats.json", dir);
}

int check_write_job(const check_files *f, profile_opts *po, char *err, size_t errlen)
{
    char why[512];
    po->wal_stats_file = f->ws;
    po->backend_stats_file = f->bs;
    FILE *jf = fopen(f->job, "wx");
    if (!jf || profile_write(jf, po, why, sizeof why) != 0) {
        cli_msg(err, errlen, "%s: %s", f->job, jf ? why : strerror(errno));
        if (jf)
            fclose(jf);
        return -1;
    }
    fclose(jf);
    return 0;
}

const fior_job *check_find_job(const fior_report *r, fior_role role)
{
    return fior__monitor_pick(r, role);
}

fior_monitor *check_monitor(const check_opts *o, const fior_criteria *c, int heavy)
{
    fior_monitor *m = fior_monitor_new(c);
    if (m && (fior_monitor_set_confidence(m, o->confidence) || fior__monitor_set_full(m, o->full) ||
              fior_monitor_set_accept_point(m, o->accept_point) || fior__monitor_set_heavy(m, heavy) ||
              (o->wal_only && fior_monitor_set_roles(m, 1u << FIOR_ROLE_WAL)))) {
        fior_monitor_free(m);
        return NULL;
    }
    return m;
}

/* 1 when r has the WAL or backend job and every one it has ended as ok() says; 0 otherwise. */
static int roles_ended(const fior_report *r, int (*ok)(fior_end))
{
    int n = 0;
    for (int k = 0; k < 2; k++) {
        const fior_job *j = check_find_job(r, k ? FIOR_ROLE_BACKEND : FIOR_ROLE_WAL);
        if (!j)
            continue;
        n++;
        if (!ok(j->end))
            return 0;
    }
    return n > 0;
}

static int end_known(fior_end e)
{
    return e != FIOR_END_CUT && e != FIOR_END_UNKNOWN;
}

static int end_proven(fior_end e)
{
    return e == FIOR_END_PROVEN;
}

int check_final(const fior_report *r)
{
    return roles_ended(r, end_known);
}

/* Every role's job in r ended by reaching its own limit (FIOR_END_PROVEN: ran its runtime out), not by a
 * stop: the document is fio's final one whatever came after it. */
int check_ran_out(const fior_report *r)
{
    return roles_ended(r, end_proven);
}

double check_min_time(double confidence, uint64_t min_syncs, int accept_point, const char *load, int wal_only,
                      char *why, size_t whylen)
{
    /* the first possible PASS (411 samples at 95 %: libreport/seqbound.h) of each role judged; 5 s for fio's
     * start and the first status interval (1 s for the WAL alone, whose heavier first phase can pass before
     * etcd's pace would) */
    uint64_t n = accept_point ? min_syncs : fior_first_pass_samples(0.99, confidence, min_syncs);
    if (n < min_syncs)
        n = min_syncs;
    char pace[160];
    double t = profile_min_runtime(load, n, wal_only ? 1.0 : 5.0, wal_only, pace, sizeof pace);
    if (why && whylen)
        snprintf(why, whylen, "%s and a PASS needs %llu of them", pace, (unsigned long long)n);
    return t;
}

/* One role's state for the progress line: "WAL pass 1.9 ms ≤ 2.3 ms" (the bound's upper end: a pass), "WAL
 * fail 12 ms ≥ 10.2 ms", "backend 213/411 commits" (until the first look that can pass), "WAL 7.7 ms,
 * bound 6.9 ms..10.2 ms" (undecided). A pass that phase 2 can still withdraw is "provisional". detail 0
 * drops the point and bound of the counting and undecided states. */
static void role_state(char *b, size_t n, const char *name, const char *unit, const fior_answer *a,
                       const check_progress_ctx *c, int detail)
{
    char pt[32], lo[32], hi[32];
    cli_fmt_ns(pt, sizeof pt, a->samples ? a->point_ns : CLI_NS_UNKNOWN);
    cli_fmt_ns(lo, sizeof lo, a->look_lo_ns);
    cli_fmt_ns(hi, sizeof hi, a->look_hi_ns == UINT64_MAX ? CLI_NS_UNKNOWN : a->look_hi_ns);
    if (!a->samples)
        cli_msg(b, n, "%s waiting", name);
    else if (a->decision == FIOR_DEC_PASS)
        cli_msg(b, n, "%s %s %s \xe2\x89\xa4 %s", name, c->provisional ? "provisional pass" : "pass", pt, hi);
    else if (a->decision == FIOR_DEC_FAIL && !c->provisional)
        cli_msg(b, n, "%s fail %s \xe2\x89\xa5 %s", name, pt, lo);
    else if (c->need && a->samples < c->need)
        cli_msg(b, n, detail ? "%s %s, %llu/%llu %s" : "%s%.0s %llu/%llu %s", name, pt, (unsigned long long)a->samples,
                (unsigned long long)c->need, unit);
    else if (detail && a->look_confidence > 0)
        cli_msg(b, n, "%s %s, bound %s..%s", name, pt, lo, hi);
    else
        cli_msg(b, n, "%s %s", name, pt);
}

/* The progress line, as detailed as fits in `width` columns: "phase 2 (etcd's load) 12 s  WAL pass 1.9 ms
 * ≤ 2.3 ms  backend 213/411 commits  ~20 s to a decision", shorter levels after; cut at the width as a
 * last resort (a wrapped \r line garbles an 80-column terminal). The time left is to the earliest look that
 * can decide, at the rate the samples came so far. */
void check_progress_fmt(char *out, size_t n, const fior_monitor *m, const check_progress_ctx *c, double elapsed,
                        int width)
{
    static const check_progress_ctx none = {"", "", 0, 0, 0};
    if (!c)
        c = &none;
    fior_answer a[2] = {{.size = sizeof a[0]}, {.size = sizeof a[1]}};
    double left = 0;
    for (int i = 0; i < 2; i++) {
        fior_monitor_answer(m, i ? FIOR_ROLE_BACKEND : FIOR_ROLE_WAL, &a[i]);
        if (i && c->wal_only)
            continue;
        if (c->need && a[i].samples && a[i].samples < c->need && elapsed > 0) {
            double t = (double)(c->need - a[i].samples) / ((double)a[i].samples / elapsed);
            left = t > left ? t : left;
        }
    }
    size_t lim = width > 1 ? (size_t)width - 1 : 1; /* never the last column: some terminals wrap there */
    for (int level = 0; level < 4; level++) {
        char w[160], bk[160] = "", tl[48] = "", ph[64] = "";
        role_state(w, sizeof w, "WAL", "syncs", &a[0], c, level < 2);
        if (!c->wal_only)
            role_state(bk, sizeof bk, level < 3 ? "  backend" : " backend", "commits", &a[1], c, level < 2);
        if (left > 0 && level < 3)
            cli_msg(tl, sizeof tl, level < 1 ? "  ~%.0f s to a decision" : "  ~%.0f s left", left);
        if (c->phase && c->phase[0])
            cli_msg(ph, sizeof ph, "%s ", level < 1 ? c->phase : c->phase_short);
        cli_msg(out, n, "%s%.0f s  %s%s%s", ph, elapsed, w, bk, tl);
        if ((size_t)term_cols(out) <= lim)
            return;
    }
    /* cut at a character's start */
    size_t at = 0;
    for (size_t k = 0; out[at] && k < lim; at++)
        k += ((unsigned char)out[at + 1] & 0xC0) != 0x80;
    out[at] = '\0';
}

static void progress(const fior_monitor *m, const check_progress_ctx *c, double elapsed, int final)
{
    char line[512];
    check_progress_fmt(line, sizeof line, m, c, elapsed, term_width(2));
    /* the last one goes when its run ends: the answer, not the progress, is the first line left */
    if (final)
        fputs("\r\033[K", stderr);
    else
        fprintf(stderr, "\r\033[K%s", line);
    fflush(stderr);
}

/* One fio run being watched (check_run's steps). */
typedef struct run_loop {
    proc          p;
    check_end    *e;
    double        t0, hard;     /* start; past hard (runtime + TIME_NET_S) every stop step comes fast */
    unsigned long seen, at_stop; /* fio's documents read so far; at our stop */
    size_t        cap;          /* of out->raw */
    int           tty, stopped, gone;
    int           watch_in;     /* stdin (the ssh session of fleet --ssh): its end is a stop request */
    check_progress_ctx pc;      /* what the progress line says of the phase */
} run_loop;

/* The monitor (carrying phase 1's into phase 2), the stream, then fio. 0, or -1 with err. */
static int start_fio(run_loop *l, const check_opts *o, const fior_criteria *crit, const char *jobpath,
                     const char *errpath, const check_phase *ph, check_run_out *out, char *err, size_t errlen)
{
    int heavy = ph && ph->heavy, probe = ph && ph->carry && ph->probe;
    out->mon = check_monitor(o, crit, heavy);
    if (out->mon && ph && ph->carry && fior__monitor_continue(out->mon, ph->carry) != FIOR_OK) {
        cli_msg(err, errlen, "%s", fior_monitor_error(out->mon));
        return -1;
    }
    out->stream = fior_json_stream_new("fio");
    if (!out->stream || !out->mon) {
        cli_msg(err, errlen, "out of memory");
        return -1;
    }
    /* phase 1 and the probe decide within seconds: fio's status every 200 ms instead of every second */
    const char *argv[] = {cli_fio(), "--eta=never", "--output-format=json+",
                          heavy || probe ? "--status-interval=" CHECK_PHASE1_STATUS : "--status-interval=1", jobpath,
                          NULL};
    l->t0 = proc_now();
    if (proc_start_io(&l->p, argv, (proc_io){PROC_INHERIT, NULL}, (proc_io){PROC_PIPE, NULL},
                      (proc_io){PROC_FILE, errpath}, PROC_DIE_KILL, err, errlen))
        return -1;
    l->e = &out->end;
    l->e->started = 1;
    l->e->runtime_s = ph && ph->runtime_s ? ph->runtime_s : (unsigned)ceil(o->max_time);
    l->tty = isatty(2);
    l->hard = (double)l->e->runtime_s + TIME_NET_S;
    l->watch_in = o->stop_on_eof;
    /* phase 1 can only pass, and its pass stands only once phase 2 confirmed it: provisional until then */
    l->pc = (check_progress_ctx){heavy ? "phase 1 (heavy load)" : ph && ph->carry ? "phase 2 (etcd's load)" : "",
                                 heavy ? "phase 1" : ph && ph->carry ? "phase 2" : "", heavy,
                                 o->accept_point ? o->min_syncs : fior_first_pass_samples(0.99, o->confidence, o->min_syncs),
                                 o->wal_only};
    return 0;
}

/* stdin is readable: anything sent is ignored; only its end counts (a stop request). */
static void read_stdin(run_loop *l)
{
    char sink[512];
    ssize_t k = read(0, sink, sizeof sink);
    if (k == 0 || (k < 0 && errno != EINTR && errno != EAGAIN)) {
        check_interrupted = 1;
        l->watch_in = 0;
    }
}

/* Why we stop fio now, if we do: the operator, past --max-time, a stopped fio past its runtime, or the
 * live etcd's guard; then the next step of stopping it (proc_stop_step). */
static void stop_from_outside(run_loop *l, double el)
{
    check_end *e = l->e;
    int why = -1;
    if (check_interrupted && !l->stopped)
        why = CHECK_USER; /* Ctrl-C reached fio too (same process group); a kill(1) reached only us */
    else if (!l->stopped && el > l->hard) {
        why = CHECK_TIME_NET;
        e->hung = proc_tree_state(l->p.pid); /* why it is still running: stopped, or stuck in the kernel */
    } else if (!l->stopped && el > (double)e->runtime_s + STOPPED_AFTER_S &&
               (proc_tree_state(l->p.pid) & PROC_TREE_STOPPED)) {
        why = CHECK_TIME_NET; /* a stopped fio (SIGSTOP, a debugger) past its runtime: no setup to wait for */
        e->hung = PROC_TREE_STOPPED;
    } else if (!l->stopped && etcdwatch_tripped()) { /* live etcd: etcdwatch.h */
        why = CHECK_GUARD;
        etcdwatch_why(e->guard_why, sizeof e->guard_why);
    }
    if (why >= 0) {
        e->stop = (check_stop)why;
        l->stopped = 1;
        l->at_stop = l->seen;
    }
    if (l->stopped)
        proc_stop_step(&l->p, el > l->hard || e->hung || e->stop == CHECK_GUARD ? HARD_GRACE_S : STOP_GRACE_S);
}

/* More of fio's stdout into out->raw and the stream: 1, 0 when the read was interrupted, -1 at its end
 * (or out of memory). */
static int read_more(run_loop *l, check_run_out *out)
{
    if (out->rawlen + 65536 > l->cap) {
        size_t nc = l->cap ? l->cap * 2 : 1 << 20;
        char *nb = realloc(out->raw, nc + 1);
        if (!nb)
            return -1;
        out->raw = nb;
        l->cap = nc;
    }
    ssize_t n = read(l->p.out_fd, out->raw + out->rawlen, 65536);
    if (n < 0 && errno == EINTR)
        return 0;
    if (n <= 0)
        return -1;
    fior_json_stream_feed(out->stream, out->raw + out->rawlen, (size_t)n);
    out->rawlen += (size_t)n;
    out->raw[out->rawlen] = '\0';
    return 1;
}

/* A new document from fio: the library's monitor takes it, and when it advises a stop we stop fio. */
static void on_document(run_loop *l, check_run_out *out, double el)
{
    check_end *e = l->e;
    l->seen = fior_json_stream_documents(out->stream);
    fior_advice adv;
    fior_monitor_feed(out->mon, fior_json_stream_report(out->stream), el, &adv);
    int stop = adv != FIOR_GO_ON;
    check_stop how = adv == FIOR__STOP_PHASE_OVER ? CHECK_PHASE_OVER : adv == FIOR__STOP_CONFIRMED ? CHECK_CONFIRMED
                                                                                               : CHECK_DECIDED;
    if (l->tty)
        progress(out->mon, &l->pc, el, 0);
    if (stop && !l->stopped) {
        e->stop = how;
        l->stopped = 1;
        l->at_stop = l->seen;
        e->decided_at_s = el;
        fior_answer w = {.size = sizeof w}, b = {.size = sizeof b};
        fior_monitor_answer(out->mon, FIOR_ROLE_WAL, &w);
        fior_monitor_answer(out->mon, FIOR_ROLE_BACKEND, &b);
        e->decided_syncs = w.samples + b.samples;
        proc_stop_step(&l->p, STOP_GRACE_S);
    }
}

/* Reads fio's output until it ends (or a fio that SIGKILL cannot end is given up on). */
static void watch_fio(run_loop *l, check_run_out *out)
{
    for (;;) {
        struct pollfd pf[2] = {{l->p.out_fd, POLLIN, 0}, {0, POLLIN, 0}};
        int pr = poll(pf, l->watch_in ? 2 : 1, l->gone ? 0 : 250);
        if (pr > 0 && l->watch_in && pf[1].revents) {
            read_stdin(l);
            if (!pf[0].revents)
                pr = 0;
        }
        if (l->gone && pr == 0)
            break; /* fio has exited and what it wrote is read */
        /* fio itself may die (OOM killer, kill -9) while its job processes, in sessions of their own, live on
         * holding the pipe: waiting for its end would let them write until their runtime. Once fio has
         * exited, what is left in the pipe is read (poll without waiting) and the loop ends; cmd_check then
         * ends the orphaned jobs (proc_end_orphans). */
        if (!l->gone && proc_wait(&l->p, 0))
            l->gone = 1;
        double el = proc_now() - l->t0;
        stop_from_outside(l, el);
        if (l->stopped && l->p.stop_level >= 3 && proc_now() - l->p.stop_since > KILL_WAIT_S && proc_wait(&l->p, 0) == 0)
            break; /* SIGKILL did not end it: stuck in the kernel */
        if (pr < 0 && errno != EINTR)
            break;
        if (pr <= 0)
            continue; /* with gone just set, the next poll does not wait */
        int rd = read_more(l, out);
        if (rd < 0)
            break;
        if (rd > 0 && fior_json_stream_documents(out->stream) != l->seen)
            on_document(l, out, el);
    }
}

/* fio's output has ended: wait for fio itself, stopping it when it must stop, giving up on one SIGKILL
 * does not end (unended); then end the job processes it left. */
static void wait_fio(run_loop *l)
{
    check_end *e = l->e;
    while (!proc_wait(&l->p, 250)) {
        double el = proc_now() - l->t0;
        if (l->stopped || check_interrupted || el > l->hard) {
            l->stopped = 1;
            proc_stop_step(&l->p, el > l->hard || e->hung || e->stop == CHECK_GUARD ? HARD_GRACE_S : STOP_GRACE_S);
        }
        if (l->p.stop_level >= 3 && proc_now() - l->p.stop_since > KILL_WAIT_S) {
            e->unended = 1;
            e->hung |= proc_tree_state(l->p.pid);
            break;
        }
    }
    /* A fio that died leaves its job processes writing on (they are ours: proc_adopt_orphans). They are
     * ended before the next phase, and while the pipe is still open: a job's SIGTERM handler prints
     * "terminating on signal" to it, and with the read end closed SIGPIPE would kill the job before the
     * engine removes its files. */
    e->orphans = proc_end_orphans(e->stop == CHECK_TIME_NET || e->stop == CHECK_GUARD ? HARD_GRACE_S
                                                                                       : CHECK_ORPHAN_GRACE_S) > 0;
    close(l->p.out_fd);
    l->p.out_fd = -1;
}

/* How fio ended, for the judge step: its exit, whether its final document arrived, its last words. */
static void record_end(run_loop *l, const check_opts *o, const char *errpath, check_run_out *out)
{
    check_end *e = l->e;
    e->state = l->p.state;
    e->code = l->p.code;
    e->stop_level = l->p.stop_level;
    e->duration_s = proc_now() - l->t0;
    if (l->tty)
        progress(out->mon, &l->pc, e->duration_s, 1);
    /* fio's final document is the last thing it prints: one more document after our stop, and the library's
     * run-ended flag says the jobs' latest document is that final one (not an interim one the output ends
     * on, nor one before a "terminating on signal" line with nothing after it). A document that already
     * proves both jobs ran their runtime out is fio's final one even when our stop came after it (we decided
     * on it while fio was still exiting). */
    const fior_report *last = fior_json_stream_report(out->stream);
    e->complete = last && (!l->stopped || l->seen > l->at_stop || check_ran_out(last)) && check_final(last);
    cli_last_line(errpath, e->fio_said, sizeof e->fio_said);
    /* fio's last line is "fio: io engine etcdwal init failed"; the engine's own line names the cause */
    char cause[sizeof e->fio_said];
    check_engine_cause(errpath, o->dir, cause, sizeof cause);
    if (cause[0])
        cli_msg(e->fio_said, sizeof e->fio_said, "%s", cause);
    e->job_signal = check_job_signal(errpath);
    const char *se = fior_json_stream_error(out->stream);
    cli_msg(e->stream_error, sizeof e->stream_error, "%s", se ? se : "");
    const fior_job *wj = check_find_job(last, FIOR_ROLE_WAL);
    if (!e->complete && !e->stream_error[0] && wj && wj->end_reason) /* what the library knows of the end */
        cli_msg(e->stream_error, sizeof e->stream_error, "%s", wj->end_reason);
}

int check_run(const check_opts *o, const fior_criteria *crit, const char *jobpath, const char *errpath,
              const check_phase *ph, check_run_out *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    run_loop l = {.p = {0}};
    if (start_fio(&l, o, crit, jobpath, errpath, ph, out, err, errlen))
        return -1;
    watch_fio(&l, out);
    wait_fio(&l);
    record_end(&l, o, errpath, out);
    if (l.e->unended)
        proc_abandon(&l.p); /* its temp directory stays locked by it (cli.h), for a later run to reap */
    else
        proc_release(&l.p);
    return 0;
}

/* fio's backend (backend.c) reports a job process that died of a signal as "fio: pid=N, got signal=S" on
 * stderr — and fio 3.33 still exits 0 with a final document. */
int check_job_signal(const char *errpath)
{
    char err[16];
    char *t = cli_read_file(errpath, 16 << 20, NULL, err, sizeof err);
    int sig = 0;
    for (char *p = t; p && (p = strstr(p, "fio: pid=")); p++) {
        int pid, s;
        if (sscanf(p, "fio: pid=%d, got signal=%d", &pid, &s) == 2 && s > 0) {
            sig = s;
            break;
        }
    }
    free(t);
    return sig;
}

void check_run_free(check_run_out *out)
{
    fior_json_stream_free(out->stream);
    fior_monitor_free(out->mon);
    free(out->raw);
    memset(out, 0, sizeof *out);
}
