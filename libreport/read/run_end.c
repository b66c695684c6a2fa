/* SPDX-License-Identifier: MIT */
/* run_end.c — did a fio job reach its own end? One rule for every reader (fmt_json.c/json_stream.c,
 * fmt_normal.c): from what the job's options ask (size, io_size, number_ios, runtime: fio's backend.c ends a
 * job at the first of them, options.c names them), its counters, fio's "fio: terminating on signal N" line
 * (backend.c sig_int: printed before fio stops its jobs and prints their figures), the signs of a job
 * process that died (fio's parent then prints what the shared statistics hold: stat.c), and where the
 * figures stand in a --status-interval stream (interim documents come every interval, the final one when
 * the jobs end). Also the option values fio's JSON gives as strings (parse.c's sizes and times), and the
 * names the API gives the result. */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

const char *fior_end_name(fior_end e)
{
    switch (e) {
    case FIOR_END_UNKNOWN:  return "unknown";
    case FIOR_END_PROVEN:   return "proven";
    case FIOR_END_INFERRED: return "inferred";
    case FIOR_END_STOPPED:  return "stopped";
    case FIOR_END_DIED:     return "died";
    case FIOR_END_CUT:      return "cut";
    }
    return "unknown";
}

char *fior_sync_flags_name(char *buf, size_t n, unsigned f)
{
    const char *what = !(f & FIOR_SYNC_OPTIONS) && !(f & FIOR_SYNC_RANGE) ? "fsync/fdatasync"
                       : f & FIOR_SYNC_RANGE ? "sync_file_range"
                       : (f & FIOR_SYNC_FSYNC) && (f & FIOR_SYNC_FDATASYNC) ? "fsync and fdatasync"
                       : f & FIOR_SYNC_FSYNC ? "fsync"
                       : f & FIOR_SYNC_FDATASYNC ? "fdatasync"
                       : f & FIOR_SYNC_ON_CLOSE ? "fsync_on_close"
                       : f & FIOR_SYNC_END_FSYNC ? "end_fsync" : "none";
    const char *after = f & FIOR_SYNC_O_SYNC ? " after O_SYNC writes"
                        : f & FIOR_SYNC_O_DSYNC ? " after O_DSYNC writes"
                        : f & FIOR_SYNC_DIRECT ? " after O_DIRECT writes" : "";
    if (buf && n)
        snprintf(buf, n, "%s%s", what, after);
    return buf;
}

void fior__endfacts_init(fior__endfacts *f)
{
    memset(f, 0, sizeof *f);
}

/* ---- fio's option values (parse.c str_to_decimal, check_str_time) ---- */

static size_t digits(const char *s, size_t n, uint64_t *v)
{
    size_t i = 0;
    *v = 0;
    for (; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
        if (*v > (UINT64_MAX - 9) / 10)
            return 0;
        *v = *v * 10 + (uint64_t)(s[i] - '0');
    }
    return i;
}

static int lower(char c)
{
    return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

uint64_t fior__opt_size(const char *s, size_t n, int kb1000)
{
    uint64_t v;
    size_t i = digits(s, n, &v);
    if (!i)
        return UINT64_MAX;
    static const char sfx[] = "kmgtpe";
    const char *u = i < n ? strchr(sfx, lower(s[i])) : NULL;
    uint64_t mult = 1;
    if (i < n && u && s[i]) {
        int pow2 = !kb1000;
        i++;
        if (i < n && lower(s[i]) == 'i') { /* "KiB" is 1024 whatever kb_base says */
            pow2 = 1;
            i++;
        }
        if (i < n && lower(s[i]) == 'b')
            i++;
        for (const char *k = sfx; k <= u; k++)
            mult *= pow2 ? 1024 : 1000;
    } else if (i < n && lower(s[i]) == 'b') {
        i++;
    }
    if (i != n || (mult > 1 && v > UINT64_MAX / mult))
        return UINT64_MAX;
    return v * mult;
}

uint64_t fior__opt_time_ms(const char *s, size_t n)
{
    uint64_t v;
    size_t i = digits(s, n, &v);
    if (!i)
        return UINT64_MAX;
    const char *u = s + i;
    size_t ul = n - i;
    static const struct { const char *name; uint64_t div, mul; } units[] = {
        {"", 1, 1000}, {"s", 1, 1000}, {"sec", 1, 1000}, {"ms", 1, 1}, {"msec", 1, 1}, {"us", 1000, 1},
        {"usec", 1000, 1}, {"m", 1, 60000}, {"min", 1, 60000}, {"h", 1, 3600000}, {"d", 1, 86400000},
    };
    for (size_t k = 0; k < sizeof units / sizeof units[0]; k++)
        if (strlen(units[k].name) == ul && !strncmp(u, units[k].name, ul))
            return v > UINT64_MAX / units[k].mul ? UINT64_MAX : v * units[k].mul / units[k].div;
    return UINT64_MAX;
}

uint64_t fior__opt_bs_max(const char *s, size_t n, int kb1000)
{
    /* "2300", "4k,8k" (read,write[,trim]), "4k-64k" (bsrange), "4k/50:8k/50" (bssplit) */
    uint64_t max = 0;
    size_t i = 0;
    while (i < n) {
        size_t j = i;
        while (j < n && s[j] != ',' && s[j] != '-' && s[j] != ':' && s[j] != '/')
            j++;
        if (j > i) {
            uint64_t v = fior__opt_size(s + i, j - i, kb1000);
            if (v == UINT64_MAX)
                return UINT64_MAX;
            if (v > max)
                max = v;
        }
        if (j < n && s[j] == '/') /* a bssplit share: skip its percentage */
            while (j < n && s[j] != ':' && s[j] != ',')
                j++;
        i = j + 1;
    }
    return max ? max : UINT64_MAX;
}

int fior__engine_no_io(const char *e)
{
    /* fio's engines that move no data to a file or device (engines/: null, cpuio, exec, net, …, and the
     * file-operation engines that create, stat or delete files) */
    static const char *const none[] = {"null", "cpuio", "exec", "net", "netsplice", "rdma", "filecreate",
                                       "filestat", "filedelete", "dircreate", "dirstat", "dirdelete",
                                       "falloc", "ftruncate", "e4defrag"};
    if (!e)
        return 0;
    for (size_t i = 0; i < sizeof none / sizeof none[0]; i++)
        if (!strcmp(e, none[i]))
            return 1;
    return 0;
}

/* ---- the rule ---- */

static const char *signame(int s)
{
    switch (s) {
    case SIGHUP:  return " (SIGHUP)";
    case SIGINT:  return " (SIGINT)";
    case SIGQUIT: return " (SIGQUIT)";
    case SIGABRT: return " (SIGABRT)";
    case SIGKILL: return " (SIGKILL)";
    case SIGSEGV: return " (SIGSEGV)";
    case SIGPIPE: return " (SIGPIPE)";
    case SIGALRM: return " (SIGALRM)";
    case SIGTERM: return " (SIGTERM)";
    case SIGUSR1: return " (SIGUSR1)";
    case SIGUSR2: return " (SIGUSR2)";
    }
    return "";
}

/* "39.6 MiB" with the unit of `scale` (the larger of the two numbers a sentence compares), integer only */
static const char *size_unit(uint64_t scale, uint64_t *div)
{
    static const char *const u[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    size_t k = 0;
    *div = 1;
    while (k < 4 && scale >= *div * 1024) {
        *div *= 1024;
        k++;
    }
    return u[k];
}

static void num1(char *out, size_t n, uint64_t v, uint64_t div)
{
    uint64_t t = (v / div) * 10 + ((v % div) * 10 + div / 2) / div; /* tenths, rounded */
    if (t >= 1000 || t % 10 == 0)
        snprintf(out, n, "%llu", (unsigned long long)((t + 5) / 10));
    else
        snprintf(out, n, "%llu.%llu", (unsigned long long)(t / 10), (unsigned long long)(t % 10));
}

/* How far the job got: "39.6 of 100 MiB, 2.75 s of its 30 s runtime" (what the input knows of it). */
static void progress(char *out, size_t n, const fior__endfacts *f)
{
    char a[32], b[32], t[32], g[32];
    uint64_t div;
    size_t at = 0;
    out[0] = '\0';
    if (f->bytes_known && f->goal_bytes) {
        const char *u = size_unit(f->goal_bytes > f->bytes ? f->goal_bytes : f->bytes, &div);
        num1(a, sizeof a, f->bytes, div);
        num1(b, sizeof b, f->goal_bytes, div);
        at += (size_t)snprintf(out + at, n - at, "%s of %s %s", a, b, u);
    } else if (f->bytes_known) {
        const char *u = size_unit(f->bytes, &div);
        num1(a, sizeof a, f->bytes, div);
        at += (size_t)snprintf(out + at, n - at, "%s %s", a, u);
    }
    if (at < n && f->runtime_known) {
        fior_format_ns(t, sizeof t, f->runtime_ms * 1000000);
        if (f->goal_runtime_ms) {
            fior_format_ns(g, sizeof g, f->goal_runtime_ms * 1000000);
            snprintf(out + at, n - at, "%s%s of its %s runtime", at ? ", " : "", t, g);
        } else {
            snprintf(out + at, n - at, "%s%s", at ? ", " : "", t);
        }
    }
}

/* fio ends a job at the first of its limits (backend.c: runtime_exceeded, io_bytes_exceeded, number_ios).
 * 1 when one was reached (why says which; the runtime first: a time_based job wraps around its size), -1
 * when every limit the options set is known to be short of it, 0 when the input cannot tell (no limit is
 * known, or a counter is missing). */
static int reached(const fior__endfacts *f, char *why, size_t n, int *by_slack)
{
    char a[32], b[32];
    uint64_t div;
    int limits = 0, short_of = 0;
    *by_slack = 0;
    if (f->goal_runtime_ms) {
        limits++;
        /* job_runtime is whole ms since the job's start (stat.c); fio stops at the first I/O past runtime=,
         * so the figure is at least the runtime: the slack only allows for rounding (by_slack: the figure
         * is short of the runtime, which an interim document taken just before the end also is) */
        uint64_t slack = f->goal_runtime_ms / 100 > 100 ? f->goal_runtime_ms / 100 : 100;
        /* after a signal line, fio may have stopped the job just short of its runtime: job_runtime is then
         * proof only within its rounding; a read/write runtime (from the I/O's start, a little after the
         * job's epoch) within 10 ms */
        if (f->signal)
            slack = f->runtime_exact ? 1 : 10;
        if (f->runtime_known && f->runtime_ms + slack >= f->goal_runtime_ms) {
            *by_slack = f->runtime_ms < f->goal_runtime_ms;
            fior_format_ns(a, sizeof a, f->goal_runtime_ms * 1000000);
            snprintf(why, n, "the job ran its runtime of %s", a);
            return 1;
        }
        short_of += f->runtime_known;
    }
    if (f->goal_bytes) {
        limits++;
        if (f->bytes_known && f->bytes + f->tol_bytes >= f->goal_bytes) {
            const char *u = size_unit(f->goal_bytes > f->bytes ? f->goal_bytes : f->bytes, &div);
            num1(a, sizeof a, f->bytes, div);
            num1(b, sizeof b, f->goal_bytes, div);
            snprintf(why, n, "the job did what its options ask (%s of %s %s)", a, b, u);
            return 1;
        }
        short_of += f->bytes_known;
    }
    if (f->goal_ios) {
        limits++;
        if (f->ios_known && f->ios >= f->goal_ios) {
            snprintf(why, n, "the job did its number_ios=%llu", (unsigned long long)f->goal_ios);
            return 1;
        }
        short_of += f->ios_known;
    }
    return limits && short_of == limits ? -1 : 0;
}

/* The last document of a stream is an interim one: its eta says time is left, or it came one status
 * interval after the one before (the final one comes when the jobs end, at any moment). */
static int interim(const fior__endfacts *f, char *why, size_t n)
{
    if (f->docs < 2)
        return 0;
    if (f->has_eta && f->eta_s > 0 && f->eta_s < 2147483647ull) { /* INT_MAX: eta.c has no estimate yet */
        snprintf(why, n, "its eta says %llu s were left", (unsigned long long)f->eta_s);
        return 1;
    }
    if (f->interval_ms && f->gap_ms) {
        uint64_t d = f->gap_ms > f->interval_ms ? f->gap_ms - f->interval_ms : f->interval_ms - f->gap_ms;
        uint64_t tol = f->interval_ms / 20 > 20 ? f->interval_ms / 20 : 20;
        if (d <= tol) {
            char a[32];
            fior_format_ns(a, sizeof a, f->interval_ms * 1000000);
            snprintf(why, n, "it came one status interval (%s) after the one before, as interim ones do", a);
            return 1;
        }
    }
    return 0;
}

/* Why a job whose process died (f->died, internal.h) did not end: one sentence into why. */
static void died_reason(const fior__endfacts *f, char *why, size_t n)
{
    uint64_t div;
    char a[32];
    const char *u;
    switch (f->died) {
    case FIOR__DIED_GOT_SIGNAL:
        snprintf(why, n, "the job's process died of signal %d%s before its end (fio: \"got signal=%d\"): fio "
                 "printed what it left; run the job again", f->died_signal, signame(f->died_signal), f->died_signal);
        break;
    case FIOR__DIED_HOST_LOST:
        snprintf(why, n, "fio's client lost a server it ran jobs on (\"client: host=… disconnected\"): that host's "
                 "figures are missing, and the run did not end normally; run it again");
        break;
    case FIOR__DIED_WRITES_UNCOUNTED:
        u = size_unit(f->bytes, &div);
        num1(a, sizeof a, f->bytes, div);
        snprintf(why, n, "a job process died before its end: fio counted %llu writes (%s %s) but its figures hold "
                 "fewer bytes (a job's bytes are added when it ends; with group_reporting a dead job leaves its "
                 "syncs behind); run the job again", (unsigned long long)f->ios, a, u);
        break;
    case FIOR__DIED_ZERO_RUNTIME:
        snprintf(why, n, "the job's process died in its I/O loop: fio printed %llu I/Os but a read/write runtime of "
                 "0 ms, which fio sets only when a job's I/O loop ends (its stderr says \"got signal\"); run the "
                 "job again", (unsigned long long)f->ios);
        break;
    case FIOR__DIED_NO_BYTES:
    case FIOR__DIED_NO: /* not called without a sign */
    default:
        snprintf(why, n, "the job's process died before its end: fio printed a job_runtime of 0 and no bytes beside "
                 "%llu %s (its stderr says \"got signal\"); run the job again",
                 (unsigned long long)(f->syncs ? f->syncs : f->ios), f->syncs ? "syncs" : "I/Os");
        break;
    }
}

/* The end rules, in order: the first that holds names the job's end and its reason (a decision table:
 * one branch per rule, kept together so the order reads as one list). */
int fior__job_end(fior_job *j, const fior__endfacts *f)
{
    char why[512], prog[96], r[128];
    fior_end e;
    progress(prog, sizeof prog, f);
    const char *at = prog[0] ? " after " : "";
    int by_slack = 0, rc = f->died ? 0 : reached(f, r, sizeof r, &by_slack);
    if (j->error > 0 && !j->error_text) { /* JSON has the number only: fio's text is td_verror's strerror() */
        char eb[128];
        const char *t = strerror_r(j->error, eb, sizeof eb);
        if (fior__job_set(&j->error_text, t, strlen(t)))
            return -1;
    }
    /* short of its runtime by less than the rounding slack, and one status interval after the document
     * before: the last interim document of a stream cut just before the end, not the final one */
    char r2[128];
    if (rc > 0 && by_slack && interim(f, r2, sizeof r2))
        rc = -2;
    if (j->error) { /* fio ended the job on its error: that, in fio's words, not a guess at a death */
        e = FIOR_END_DIED;
        snprintf(why, sizeof why, "fio stopped the job on its error err=%d (%s)%s%s: fix what fio names and run "
                 "the job again", j->error, j->error_text ? j->error_text : "no text", at, prog);
    } else if (f->died) {
        e = FIOR_END_DIED;
        died_reason(f, why, sizeof why);
    } else if (f->cut_inside) {
        e = FIOR_END_CUT;
        snprintf(why, sizeof why, "the input ends inside this job's figures (a read/write line, then no cpu or "
                 "'issued rwts:' line): the output was cut; give fio's whole output");
    } else if (f->jobs_missing) {
        e = FIOR_END_CUT;
        snprintf(why, sizeof why, "the input ends before the figures of %llu of the %llu jobs fio started (no "
                 "'Run status group' line): the output was cut; give fio's whole output",
                 (unsigned long long)f->jobs_missing, (unsigned long long)f->jobs_started);
    } else if (rc > 0) {
        e = FIOR_END_PROVEN;
        snprintf(why, sizeof why, "%s", r);
    } else if (f->signal && f->after_signal) {
        e = FIOR_END_STOPPED;
        snprintf(why, sizeof why, "fio was stopped by signal %d%s%s%s: the syncs still in flight are not in these "
                 "figures; run the job to its end", f->signal, signame(f->signal), at, prog);
    } else if (f->signal) {
        e = FIOR_END_CUT;
        snprintf(why, sizeof why, "fio was stopped by signal %d%s and the input ends before its final figures "
                 "(these%s%s are an interim report); run the job to its end", f->signal, signame(f->signal), at,
                 prog);
    } else if (rc == -2) {
        e = FIOR_END_CUT;
        snprintf(why, sizeof why, "the input ends with an interim --status-interval report (%s, short of its end) "
                 "and no final one (%s): fio was killed or its output cut; run the job to its end", prog, r2);
    } else if (rc < 0 && f->docs > 1) {
        e = FIOR_END_CUT;
        snprintf(why, sizeof why, "the input ends with an interim --status-interval report (%s) and no final one: "
                 "fio was killed or its output cut; run the job to its end", prog);
    } else if (rc < 0) {
        e = FIOR_END_DIED;
        snprintf(why, sizeof why, "the job stopped%s%s, short of what its options ask, and no signal line says fio "
                 "was stopped: its process died or was killed; run the job to its end", at, prog);
    } else if (interim(f, r, sizeof r)) {
        e = FIOR_END_CUT;
        snprintf(why, sizeof why, "the input ends with an interim --status-interval report (%s) and no final one "
                 "(%s): fio was killed or its output cut; run the job to its end", prog[0] ? prog : "?", r);
    } else if (f->stream_signal_after && f->docs > 1) {
        e = FIOR_END_CUT;
        snprintf(why, sizeof why, "a \"fio: terminating on signal\" line follows this stream's last report and no "
                 "final one does: fio was stopped and its final figures are missing; run the job to its end");
    } else if (f->goal_unreadable) {
        e = FIOR_END_CUT;
        snprintf(why, sizeof why, "the job's size is not a number of bytes read here (a percentage, a range, an "
                 "expression, or kb_base=1000), so whether it did what it asks is not known%s%s; give its size in "
                 "bytes", at, prog);
    } else {
        e = FIOR_END_INFERRED;
        snprintf(why, sizeof why, f->options ? "a complete output without a signal line; the job's options set no "
                 "size, io_size, number_ios or runtime to prove its end by" : "a complete output without a signal "
                 "line; fio's normal output does not say when a job was to end, so its end is inferred");
    }
    if (fior__job_set(&j->end_reason, why, strlen(why)))
        return -1;
    j->end = e;
    return 0;
}
