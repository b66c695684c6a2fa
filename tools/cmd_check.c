/* cmd_check.c — `etcd-fio check [DIR]`: the one command an operator runs. Renders the etcd profile, runs the
 * installed fio with our engine on DIR, reads fio's --status-interval json+ stream as it comes, stops fio
 * (SIGINT: it ends the jobs and still prints the final document) as soon as the p99 of the WAL fdatasyncs
 * and of the backend commits is decided (earlystop.h), then judges the final document with libfioreport and
 * prints the verdict, a short table, and optionally JSON / a node_exporter textfile / an SVG picture. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "cmds.h"
#include "earlystop.h"
#include "engine_path.h"
#include "fioreport.h"
#include "fsinfo.h"
#include "profile.h"
#include "prom.h"
#include "svg.h"

#define MS 1000000ull
#define SEGMENT_BYTES 64000000ull

typedef struct check_opts {
    const char *dir, *load, *prom, *svg, *keep;
    double max_time, confidence;
    uint64_t min_syncs;
    int full, json, ionice, classic, force;
} check_opts;

/* What the engine's stats file says about one job (fields 0 when absent). */
typedef struct engine_stats {
    int      present;
    uint64_t segments, rollovers, segment_bytes, io_errors;
    uint64_t cut_max_ns, prealloc_mean_ns, prealloc_max_ns, prealloc_count;
} engine_stats;

typedef struct side_out {
    const fior_job *job;
    int      has;
    uint64_t n, p50, p99, p999, max, lo, hi;
    fior_judgement j;
} side_out;

typedef struct classic_out {
    int      ran, ok;
    uint64_t syncs, p99;
    fior_verdict verdict;
    double   seconds;
    char     err[512];
} classic_out;

/* snprintf that may cut: paths in messages are bounded by PATH_MAX buffers, a cut message beats a
 * compile-time truncation warning on every one of them */
__attribute__((format(printf, 3, 4))) static void msgf(char *b, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(b, n, fmt, ap);
    va_end(ap);
}

static volatile sig_atomic_t g_interrupted; /* CLI-only: set by our SIGINT/SIGTERM handler */

static void on_signal(int sig)
{
    (void)sig;
    g_interrupted = 1;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: etcd-fio check [OPTIONS] [DIR]\n"
            "Runs the etcd profile (a WAL job and a backend job) with fio and our engine in a private directory\n"
            "under DIR (default: the current directory) and says whether the disk is fast enough for etcd:\n"
            "WAL fdatasync p99 < 10 ms and backend commit p99 < 25 ms. Stops as soon as both are decided.\n\n"
            "  --load L           etcdctl check perf load level: s (default), m, l, xl\n"
            "  --max-time S       stop after S seconds at the latest (default 120)\n"
            "  --min-syncs N      no decision before N samples of each job (default 100)\n"
            "  --confidence C     confidence of the p99 bound, 0.5..0.9999 (default 0.95)\n"
            "  --full             no early stop: run the whole --max-time\n"
            "  --json             print one JSON object instead of the text table\n"
            "  --prometheus FILE  also write a node_exporter textfile (atomically)\n"
            "  --svg FILE         also write an SVG picture of both latency distributions\n"
            "  --keep-output DIR  keep fio's raw output and the job file there (re-judge: etcd-fio verdict)\n"
            "  --ionice           run the WAL job at etcd's I/O priority (best-effort, level 0)\n"
            "  --classic          afterwards, also run the classic fio test (sync, fdatasync=1, bs=2300,\n"
            "                     22 MiB) in DIR and print its p99 beside ours\n"
            "  --force            run even on a filesystem that is probably not the one meant\n"
            "  --help             this text\n\n"
            "Exit status: 0 PASS, 1 FAIL, 2 cannot judge or error. Environment: FIO (fio binary),\n"
            "ETCD_FIO_ENGINE (libetcdwal.so).\n");
}

static int parse_double(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}

static int parse_opts(int argc, char **argv, check_opts *o)
{
    static const struct option lo[] = {
        {"load", required_argument, 0, 'l'},       {"max-time", required_argument, 0, 't'},
        {"min-syncs", required_argument, 0, 'n'},  {"confidence", required_argument, 0, 'c'},
        {"full", no_argument, 0, 'F'},             {"json", no_argument, 0, 'j'},
        {"prometheus", required_argument, 0, 'p'}, {"svg", required_argument, 0, 's'},
        {"keep-output", required_argument, 0, 'k'}, {"ionice", no_argument, 0, 'i'},
        {"classic", no_argument, 0, 'C'},          {"force", no_argument, 0, 'f'},
        {"help", no_argument, 0, 'h'},             {0, 0, 0, 0}};
    memset(o, 0, sizeof *o);
    o->dir = ".";
    o->load = "s";
    o->max_time = 120;
    o->confidence = 0.95;
    o->min_syncs = 100;
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "+h", lo, NULL)) != -1) {
        double d;
        switch (c) {
        case 'l':
            if (!prof_load_valid(optarg)) {
                fprintf(stderr, "etcd-fio check: --load %s: expected s, m, l or xl\n", optarg);
                return -1;
            }
            o->load = optarg;
            break;
        case 't':
            if (parse_double(optarg, &d) || d < 3 || d > 86400) {
                fprintf(stderr, "etcd-fio check: --max-time %s: expected seconds between 3 and 86400\n", optarg);
                return -1;
            }
            o->max_time = d;
            break;
        case 'n':
            if (parse_double(optarg, &d) || d < 1 || d > 1e9 || d != floor(d)) {
                fprintf(stderr, "etcd-fio check: --min-syncs %s: expected a whole number >= 1\n", optarg);
                return -1;
            }
            o->min_syncs = (uint64_t)d;
            break;
        case 'c':
            if (parse_double(optarg, &d) || d < 0.5 || d > 0.9999) {
                fprintf(stderr, "etcd-fio check: --confidence %s: expected 0.5 .. 0.9999\n", optarg);
                return -1;
            }
            o->confidence = d;
            break;
        case 'F': o->full = 1; break;
        case 'j': o->json = 1; break;
        case 'p': o->prom = optarg; break;
        case 's': o->svg = optarg; break;
        case 'k': o->keep = optarg; break;
        case 'i': o->ionice = 1; break;
        case 'C': o->classic = 1; break;
        case 'f': o->force = 1; break;
        case 'h': usage(stdout); return 1;
        default:
            fprintf(stderr, "etcd-fio check: unknown or incomplete option '%s' (see etcd-fio check --help)\n",
                    argv[optind - 1]);
            return -1;
        }
    }
    if (optind < argc)
        o->dir = argv[optind++];
    if (optind < argc) {
        fprintf(stderr, "etcd-fio check: one directory expected, got also '%s'\n", argv[optind]);
        return -1;
    }
    return 0;
}

/* Space the run needs: the first WAL segment and its preallocated spare, what the load writes in
 * --max-time (WAL frames + bbolt growth, rough per-load rates of the profile), and the classic job. */
static uint64_t space_needed(const check_opts *o)
{
    double mb_per_s = !strcmp(o->load, "xl") ? 55 : !strcmp(o->load, "l") ? 30 : !strcmp(o->load, "m") ? 4 : 1;
    double need = 2.0 * SEGMENT_BYTES + 16.0 * 1048576 + mb_per_s * 1048576 * o->max_time * 1.2;
    if (o->classic)
        need += 23.0 * 1048576;
    return (uint64_t)need;
}

/* ---- fio child ---- */

static const char *fio_bin(void)
{
    const char *f = getenv("FIO");
    return f && *f ? f : "fio";
}

/* Starts fio with stdout on a pipe (returned in *out_fd) and stderr into errpath. */
static pid_t spawn_fio(char *const argv[], const char *errpath, int *out_fd)
{
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0)
        return -1;
    pid_t pid = fork();
    if (pid < 0) {
        close(p[0]);
        close(p[1]);
        return -1;
    }
    if (pid == 0) {
        int e = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        int n = open("/dev/null", O_RDONLY);
        if (e < 0 || n < 0 || dup2(p[1], 1) < 0 || dup2(e, 2) < 0 || dup2(n, 0) < 0)
            _exit(127);
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        execvp(argv[0], argv);
        dprintf(2, "cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    close(p[1]);
    *out_fd = p[0];
    return pid;
}

/* Last non-empty line of a small file, for error messages. */
static void last_line(const char *path, char *buf, size_t len)
{
    buf[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    char line[1024];
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        if (line[0])
            msgf(buf, len, "%s", line);
    }
    fclose(f);
}

static int write_file(const char *path, const char *data, size_t len)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    size_t w = fwrite(data, 1, len, f);
    return (fclose(f) != 0 || w != len) ? -1 : 0;
}

static char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    char *buf = NULL;
    size_t cap = 0, n = 0;
    for (;;) {
        if (n + 4096 + 1 > cap) {
            size_t nc = cap ? cap * 2 : 65536;
            char *nb = realloc(buf, nc);
            if (!nb) {
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = nb;
            cap = nc;
        }
        size_t r = fread(buf + n, 1, cap - n - 1, f);
        n += r;
        if (r == 0)
            break;
    }
    fclose(f);
    buf[n] = '\0';
    if (len)
        *len = n;
    return buf;
}

/* ---- finding our two jobs in a report ---- */

static const fior_job *find_job(const fior_report *r, fior_role role)
{
    if (!r)
        return NULL;
    for (size_t i = 0; i < fior_report_njobs(r); i++) {
        const fior_job *j = fior_report_job(r, i);
        const char *want = role == FIOR_ROLE_BACKEND ? "backend" : "wal";
        if (j->etcd_mode && !strcmp(j->etcd_mode, want))
            return j;
    }
    for (size_t i = 0; i < fior_report_njobs(r); i++) {
        const fior_job *j = fior_report_job(r, i);
        if (j->name && !strcmp(j->name, role == FIOR_ROLE_BACKEND ? "etcd-backend" : "etcd-wal"))
            return j;
    }
    return NULL;
}

static uint64_t job_pct(const fior_job *j, double pct)
{
    for (size_t i = 0; j && i < j->npct; i++)
        if (fabs(j->pct[i].percent - pct) < 1e-9)
            return j->pct[i].ns;
    uint64_t lo, pt = 0, hi;
    if (j && j->nbins)
        fior_quantile_bound(j->bins, j->nbins, pct / 100.0, 0.95, &lo, &pt, &hi);
    return pt;
}

static uint64_t job_samples(const fior_job *j)
{
    if (!j)
        return 0;
    if (j->samples_known)
        return j->samples;
    uint64_t n = 0;
    for (size_t i = 0; i < j->nbins; i++)
        n += j->bins[i].count;
    return n;
}

/* ---- the engine's stats file ---- */

static uint64_t hist_val(json_object *h, const char *key)
{
    json_object *v;
    char k[64];
    msgf(k, sizeof k, "%s_ns", key);
    if (json_object_object_get_ex(h, k, &v) || json_object_object_get_ex(h, key, &v))
        return (uint64_t)json_object_get_int64(v);
    return 0;
}

static void read_engine_stats(const char *path, engine_stats *es)
{
    memset(es, 0, sizeof *es);
    json_object *root = json_object_from_file(path);
    if (!root)
        return;
    json_object *v, *hist, *h;
    if (json_object_object_get_ex(root, "engine", &v) && !strcmp(json_object_get_string(v), "etcdwal")) {
        es->present = 1;
        if (json_object_object_get_ex(root, "segments", &v))
            es->segments = (uint64_t)json_object_get_int64(v);
        if (json_object_object_get_ex(root, "rollovers", &v))
            es->rollovers = (uint64_t)json_object_get_int64(v);
        if (json_object_object_get_ex(root, "segment_bytes", &v))
            es->segment_bytes = (uint64_t)json_object_get_int64(v);
        if (json_object_object_get_ex(root, "io_errors", &v))
            es->io_errors = (uint64_t)json_object_get_int64(v);
        if (json_object_object_get_ex(root, "hist", &hist)) {
            if (json_object_object_get_ex(hist, "cut", &h))
                es->cut_max_ns = hist_val(h, "max");
            if (json_object_object_get_ex(hist, "prealloc", &h)) {
                es->prealloc_mean_ns = hist_val(h, "mean");
                es->prealloc_max_ns = hist_val(h, "max");
                if (json_object_object_get_ex(h, "count", &v))
                    es->prealloc_count = (uint64_t)json_object_get_int64(v);
            }
        }
    }
    json_object_put(root);
}

/* ---- formatting ---- */

static void fmt_ms(char *b, size_t n, uint64_t ns)
{
    if (ns == UINT64_MAX)
        msgf(b, n, "?");
    else if (ns >= 100 * MS)
        msgf(b, n, "%.0f ms", (double)ns / 1e6);
    else if (ns >= 10 * MS)
        msgf(b, n, "%.1f ms", (double)ns / 1e6);
    else
        msgf(b, n, "%.2f ms", (double)ns / 1e6);
}

static void progress(const es_ctl *es, double elapsed, int final)
{
    char wp[32], wl[32], wh[32], bp[32], bl[32], bh[32];
    fmt_ms(wp, sizeof wp, es->wal.point_ns);
    fmt_ms(wl, sizeof wl, es->wal.lo_ns);
    fmt_ms(wh, sizeof wh, es->wal.hi_ns);
    fmt_ms(bp, sizeof bp, es->backend.point_ns);
    fmt_ms(bl, sizeof bl, es->backend.lo_ns);
    fmt_ms(bh, sizeof bh, es->backend.hi_ns);
    fprintf(stderr, "\r\033[K%5.0f s  syncs %llu  WAL p99 %s [%s..%s] %s  backend p99 %s [%s..%s] %s%s",
            elapsed, (unsigned long long)(es->wal.n + es->backend.n), es->wal.n ? wp : "-", wl, wh,
            es_state_name(es->wal.state), es->backend.n ? bp : "-", bl, bh, es_state_name(es->backend.state),
            final ? "\n" : "");
    fflush(stderr);
}

/* ---- the classic job ---- */

/* Removes our private classic directory and the file(s) fio made in it (one level, nothing else is there). */
static void rm_private_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *e;
        char p[4400];
        while ((e = readdir(d)))
            if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
                msgf(p, sizeof p, "%s/%s", dir, e->d_name);
                unlink(p);
            }
        closedir(d);
    }
    rmdir(dir);
}

static void run_classic(const char *dir, const char *tmp, classic_out *c)
{
    c->ran = 1;
    char sub[4200], job[4200], out[4200], err[4200];
    msgf(sub, sizeof sub, "%s/etcd-fio-classic.XXXXXX", dir);
    if (!mkdtemp(sub)) {
        msgf(c->err, sizeof c->err, "%s: %s", sub, strerror(errno));
        return;
    }
    msgf(job, sizeof job, "%s/classic.fio", tmp);
    msgf(out, sizeof out, "%s/classic.json", tmp);
    msgf(err, sizeof err, "%s/classic.stderr", tmp);
    FILE *f = fopen(job, "w");
    if (f) {
        /* the test operators know (etcd docs, rke2 notes): 22 MiB in 2300-byte writes, each fdatasync'ed */
        fprintf(f, "[classic]\nioengine=sync\nfdatasync=1\nrw=write\nbs=2300\nsize=22m\ndirectory=");
        for (const char *p = sub; *p; p++) {
            if (*p == ':')
                fputc('\\', f);
            fputc(*p, f);
        }
        fputc('\n', f);
        fclose(f);
    }
    char *argv[] = {(char *)fio_bin(), "--output-format=json+", "--output", out, job, NULL};
    double t0 = now_s();
    pid_t pid = fork();
    if (pid == 0) {
        int e = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (e >= 0)
            dup2(e, 2);
        execvp(argv[0], argv);
        _exit(127);
    }
    int st = 0;
    while (pid > 0 && waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    c->seconds = now_s() - t0;
    rm_private_dir(sub);
    fior_report *rep = fior_report_new();
    if (!rep || fior_parse_file(rep, out) != FIOR_OK || !fior_report_njobs(rep)) {
        char l[512];
        last_line(err, l, sizeof l);
        msgf(c->err, sizeof c->err, "classic fio job gave no result%s%s", l[0] ? ": " : "", l);
        fior_report_free(rep);
        return;
    }
    const fior_job *j = fior_report_job(rep, 0);
    fior_result *jr = fior_judge(rep, NULL);
    c->verdict = jr ? fior_result_job(jr, 0)->verdict : FIOR_UNKNOWN;
    fior_result_free(jr);
    c->p99 = job_pct(j, 99.0);
    c->syncs = job_samples(j);
    c->ok = 1;
    fior_report_free(rep);
}

/* ---- outputs ---- */

typedef struct result {
    fior_verdict verdict;
    int borderline, decided_early, interrupted;
    char reason[768];
    side_out wal, backend;
    uint64_t wal_thr_ns, be_thr_ns;  /* from the criteria the run was judged with */
    engine_stats wal_stats, be_stats;
    double duration;
    uint64_t decided_syncs;
    classic_out classic;
    fsinfo fi;
    char fsdesc[1024];
} result;

static void fill_side(side_out *s, const fior_job *j, const es_side *e, double conf)
{
    memset(s, 0, sizeof *s);
    s->lo = 0;
    s->hi = UINT64_MAX;
    if (!j)
        return;
    s->job = j;
    s->has = j->has_sync;
    s->n = job_samples(j);
    s->p50 = job_pct(j, 50.0);
    s->p99 = job_pct(j, 99.0);
    s->p999 = job_pct(j, 99.9);
    s->max = j->max_ns;
    if (j->nbins)
        fior_quantile_bound(j->bins, j->nbins, 0.99, conf, &s->lo, NULL, &s->hi);
    (void)e;
}

static void print_text(const result *r, const check_opts *o)
{
    printf("%s%s: %s\n", fior_verdict_name(r->verdict), r->borderline ? " (borderline)" : "", r->reason);
    char a[32], b[32], c[32], d[32], lo[32], hi[32];
    if (r->wal.job) {
        fmt_ms(a, sizeof a, r->wal.p50);
        fmt_ms(b, sizeof b, r->wal.p99);
        fmt_ms(c, sizeof c, r->wal.p999);
        fmt_ms(d, sizeof d, r->wal.max);
        fmt_ms(lo, sizeof lo, r->wal.lo);
        fmt_ms(hi, sizeof hi, r->wal.hi);
        printf("  WAL fdatasync     p50 %-9s p99 %-9s p99.9 %-9s max %-9s (p99 %.0f%% bound %s..%s)\n", a, b, c,
               d, o->confidence * 100, lo, hi);
    } else {
        printf("  WAL fdatasync     no data\n");
    }
    if (r->backend.job) {
        fmt_ms(a, sizeof a, r->backend.p50);
        fmt_ms(b, sizeof b, r->backend.p99);
        fmt_ms(lo, sizeof lo, r->backend.lo);
        fmt_ms(hi, sizeof hi, r->backend.hi);
        printf("  backend commit    p50 %-9s p99 %-9s (p99 %.0f%% bound %s..%s)\n", a, b, o->confidence * 100, lo,
               hi);
    } else {
        printf("  backend commit    no data\n");
    }
    if (r->wal_stats.present) {
        fmt_ms(a, sizeof a, r->wal_stats.cut_max_ns);
        printf("  WAL rollovers     %llu%s%s\n", (unsigned long long)r->wal_stats.rollovers,
               r->wal_stats.rollovers ? ", worst " : " (the run did not fill a 64 MB segment)",
               r->wal_stats.rollovers ? a : "");
        if (r->wal_stats.prealloc_count) {
            fmt_ms(a, sizeof a, r->wal_stats.prealloc_mean_ns);
            fmt_ms(b, sizeof b, r->wal_stats.prealloc_max_ns);
            printf("  segment prealloc  %s per %.0f MB segment (worst %s, %llu done)\n", a,
                   (double)(r->wal_stats.segment_bytes ? r->wal_stats.segment_bytes : SEGMENT_BYTES) / 1e6, b,
                   (unsigned long long)r->wal_stats.prealloc_count);
        } else {
            printf("  segment prealloc  not measured\n");
        }
    } else {
        printf("  WAL rollovers     unknown (no engine stats)\n");
        printf("  segment prealloc  unknown (no engine stats)\n");
    }
    printf("  syncs             %llu WAL fdatasyncs + %llu backend commits%s\n", (unsigned long long)r->wal.n,
           (unsigned long long)r->backend.n, "");
    printf("  duration          %.1f s (%s)\n", r->duration,
           r->interrupted     ? "interrupted"
           : r->decided_early ? "stopped early: decided"
           : o->full          ? "--full"
                              : "ran to --max-time");
    if (r->wal_stats.io_errors || r->be_stats.io_errors)
        printf("  engine I/O errors %llu (see fio's output: the disk or filesystem failed writes)\n",
               (unsigned long long)(r->wal_stats.io_errors + r->be_stats.io_errors));
    printf("  ionice            %s\n", o->ionice ? "WAL job at best-effort level 0 (prioclass=2 prio=0)" : "not used");
    if (r->classic.ran) {
        if (r->classic.ok) {
            fmt_ms(a, sizeof a, r->classic.p99);
            printf("  classic fio job   p99 %s over %llu fdatasyncs in %.1f s: %s (ours: WAL p99 %s)\n", a,
                   (unsigned long long)r->classic.syncs, r->classic.seconds, fior_verdict_name(r->classic.verdict),
                   (fmt_ms(b, sizeof b, r->wal.p99), b));
        } else {
            printf("  classic fio job   failed: %s\n", r->classic.err);
        }
    }
    printf("  filesystem        %s (%s)\n", r->fsdesc, r->fi.path);
}

/* json-c prints doubles with 17 digits; these are measurements, a few digits say it all */
static json_object *jdouble(double v, const char *fmt)
{
    char b[64];
    msgf(b, sizeof b, fmt, v);
    return json_object_new_double_s(v, b);
}

static json_object *side_json(const side_out *s)
{
    if (!s->job)
        return NULL;
    json_object *o = json_object_new_object();
    json_object_object_add(o, "samples", json_object_new_int64((int64_t)s->n));
    json_object_object_add(o, "p50_ns", json_object_new_int64((int64_t)s->p50));
    json_object_object_add(o, "p99_ns", json_object_new_int64((int64_t)s->p99));
    json_object_object_add(o, "p99_9_ns", json_object_new_int64((int64_t)s->p999));
    json_object_object_add(o, "max_ns", json_object_new_int64((int64_t)s->max));
    json_object_object_add(o, "p99_bound_lo_ns", json_object_new_int64((int64_t)s->lo));
    json_object_object_add(o, "p99_bound_hi_ns", s->hi == UINT64_MAX ? NULL : json_object_new_int64((int64_t)s->hi));
    json_object_object_add(o, "threshold_ns", json_object_new_int64((int64_t)s->j.threshold_ns));
    json_object_object_add(o, "verdict", json_object_new_string(fior_verdict_name(s->j.verdict)));
    json_object_object_add(o, "reason", json_object_new_string(s->j.reason ? s->j.reason : ""));
    return o;
}

static void print_json(const result *r, const check_opts *o)
{
    json_object *root = json_object_new_object();
    json_object_object_add(root, "verdict", json_object_new_string(fior_verdict_name(r->verdict)));
    json_object_object_add(root, "exit_status", json_object_new_int(r->verdict == FIOR_PASS ? 0 : r->verdict == FIOR_FAIL ? 1 : 2));
    json_object_object_add(root, "reason", json_object_new_string(r->reason));
    json_object_object_add(root, "borderline", json_object_new_boolean(r->borderline));
    json_object_object_add(root, "decided_early", json_object_new_boolean(r->decided_early));
    json_object_object_add(root, "interrupted", json_object_new_boolean(r->interrupted));
    json_object_object_add(root, "confidence", jdouble(o->confidence, "%.6g"));
    json_object_object_add(root, "load", json_object_new_string(o->load));
    json_object_object_add(root, "wal_fdatasync", side_json(&r->wal));
    json_object_object_add(root, "backend_commit", side_json(&r->backend));
    if (r->wal_stats.present) {
        json_object_object_add(root, "wal_segments", json_object_new_int64((int64_t)r->wal_stats.segments));
        json_object_object_add(root, "wal_rollovers", json_object_new_int64((int64_t)r->wal_stats.rollovers));
        json_object_object_add(root, "wal_rollover_worst_ns", json_object_new_int64((int64_t)r->wal_stats.cut_max_ns));
        json_object_object_add(root, "segment_prealloc_ns", r->wal_stats.prealloc_count ? json_object_new_int64((int64_t)r->wal_stats.prealloc_mean_ns) : NULL);
        json_object_object_add(root, "segment_bytes", json_object_new_int64((int64_t)(r->wal_stats.segment_bytes ? r->wal_stats.segment_bytes : SEGMENT_BYTES)));
        json_object_object_add(root, "engine_io_errors", json_object_new_int64((int64_t)(r->wal_stats.io_errors + r->be_stats.io_errors)));
    } else {
        json_object_object_add(root, "wal_rollovers", NULL);
    }
    json_object_object_add(root, "syncs", json_object_new_int64((int64_t)(r->wal.n + r->backend.n)));
    json_object_object_add(root, "syncs_at_decision", json_object_new_int64((int64_t)r->decided_syncs));
    json_object_object_add(root, "duration_s", jdouble(r->duration, "%.3f"));
    json_object_object_add(root, "ionice", json_object_new_boolean(o->ionice));
    json_object *fs = json_object_new_object();
    json_object_object_add(fs, "path", json_object_new_string(r->fi.path));
    json_object_object_add(fs, "type", json_object_new_string(r->fi.fstype));
    json_object_object_add(fs, "device", json_object_new_string(r->fi.source));
    char mm[32];
    msgf(mm, sizeof mm, "%u:%u", r->fi.dev_major, r->fi.dev_minor);
    json_object_object_add(fs, "dev", json_object_new_string(mm));
    json_object_object_add(fs, "mountpoint", json_object_new_string(r->fi.mountpoint));
    json_object_object_add(fs, "free_bytes", json_object_new_int64((int64_t)r->fi.free_bytes));
    json_object_object_add(root, "filesystem", fs);
    if (r->classic.ran) {
        json_object *c = json_object_new_object();
        json_object_object_add(c, "ok", json_object_new_boolean(r->classic.ok));
        if (r->classic.ok) {
            json_object_object_add(c, "p99_ns", json_object_new_int64((int64_t)r->classic.p99));
            json_object_object_add(c, "syncs", json_object_new_int64((int64_t)r->classic.syncs));
            json_object_object_add(c, "verdict", json_object_new_string(fior_verdict_name(r->classic.verdict)));
            json_object_object_add(c, "duration_s", jdouble(r->classic.seconds, "%.3f"));
        } else {
            json_object_object_add(c, "error", json_object_new_string(r->classic.err));
        }
        json_object_object_add(root, "classic", c);
    }
    printf("%s\n", json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
    json_object_put(root);
}

static int write_prom(const result *r, const char *path, char *err, size_t errlen)
{
    prom_file *p = prom_new();
    if (!p) {
        msgf(err, errlen, "%s: out of memory", path);
        return -1;
    }
    prom_label l[3] = {{"device", r->fi.source}, {"path", r->fi.path}, {"fstype", r->fi.fstype}};
    double v = r->verdict == FIOR_PASS ? 0 : r->verdict == FIOR_FAIL ? 1 : 2;
    prom_add(p, "etcd_fio_verdict", "etcd-fio check verdict: 0 PASS, 1 FAIL, 2 UNKNOWN", "gauge", l, 3, v);
    prom_add(p, "etcd_fio_borderline", "1 when the p99 bound still straddled a threshold at --max-time", "gauge", l, 3,
             r->borderline);
    if (r->wal.job) {
        prom_add(p, "etcd_fio_wal_fsync_p50_seconds", "median WAL fdatasync latency (cf. etcd_disk_wal_fsync_duration_seconds)", "gauge", l, 3, (double)r->wal.p50 / 1e9);
        prom_add(p, "etcd_fio_wal_fsync_p99_seconds", "99th percentile WAL fdatasync latency; etcd wants < 10 ms", "gauge", l, 3, (double)r->wal.p99 / 1e9);
        prom_add(p, "etcd_fio_wal_fsync_p999_seconds", "99.9th percentile WAL fdatasync latency", "gauge", l, 3, (double)r->wal.p999 / 1e9);
        prom_add(p, "etcd_fio_wal_fsync_max_seconds", "slowest WAL fdatasync", "gauge", l, 3, (double)r->wal.max / 1e9);
        prom_add(p, "etcd_fio_wal_fsync_total", "WAL fdatasyncs measured", "gauge", l, 3, (double)r->wal.n);
    }
    if (r->backend.job) {
        prom_add(p, "etcd_fio_backend_commit_p50_seconds", "median backend commit latency (cf. etcd_disk_backend_commit_duration_seconds)", "gauge", l, 3, (double)r->backend.p50 / 1e9);
        prom_add(p, "etcd_fio_backend_commit_p99_seconds", "99th percentile backend commit latency; etcd wants < 25 ms", "gauge", l, 3, (double)r->backend.p99 / 1e9);
        prom_add(p, "etcd_fio_backend_commit_total", "backend commits measured", "gauge", l, 3, (double)r->backend.n);
    }
    if (r->wal_stats.present) {
        prom_add(p, "etcd_fio_wal_rollovers_total", "WAL segment rollovers during the run", "gauge", l, 3, (double)r->wal_stats.rollovers);
        prom_add(p, "etcd_fio_wal_rollover_worst_seconds", "slowest WAL segment rollover (cut)", "gauge", l, 3, (double)r->wal_stats.cut_max_ns / 1e9);
        if (r->wal_stats.prealloc_count)
            prom_add(p, "etcd_fio_wal_segment_prealloc_seconds", "mean time to preallocate one 64 MB WAL segment", "gauge", l, 3, (double)r->wal_stats.prealloc_mean_ns / 1e9);
    }
    prom_add(p, "etcd_fio_check_duration_seconds", "duration of the fio run", "gauge", l, 3, r->duration);
    prom_add(p, "etcd_fio_check_timestamp_seconds", "when the check ended (Unix time)", "gauge", l, 3, (double)time(NULL));
    int rc = prom_write(p, path, err, errlen);
    prom_free(p);
    return rc;
}

static int write_svg(const result *r, const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        msgf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    char wl[128], bl[128], a[32], title[1024], sub[1300];
    fmt_ms(a, sizeof a, r->wal.p99);
    msgf(wl, sizeof wl, "WAL fdatasync: p99 %s over %llu", a, (unsigned long long)r->wal.n);
    fmt_ms(a, sizeof a, r->backend.p99);
    msgf(bl, sizeof bl, "backend commit: p99 %s over %llu", a, (unsigned long long)r->backend.n);
    svg_series s[2];
    size_t ns = 0;
    if (r->wal.job)
        s[ns++] = (svg_series){wl, "#1f77b4", r->wal.job->bins, r->wal.job->nbins};
    if (r->backend.job)
        s[ns++] = (svg_series){bl, "#ff7f0e", r->backend.job->bins, r->backend.job->nbins};
    char wt[64], bt[64];
    fior_format_ns(a, sizeof a, r->wal_thr_ns);
    msgf(wt, sizeof wt, "%s: WAL fdatasync p99 limit", a);
    fior_format_ns(a, sizeof a, r->be_thr_ns);
    msgf(bt, sizeof bt, "%s: backend commit p99 limit", a);
    svg_vline v[2] = {{wt, r->wal_thr_ns, "#d62728"}, {bt, r->be_thr_ns, "#9467bd"}};
    char wp[32], bp[32];
    fmt_ms(wp, sizeof wp, r->wal.p99);
    fmt_ms(bp, sizeof bp, r->backend.p99);
    msgf(title, sizeof title, "%s%s — WAL fdatasync p99 %s, backend commit p99 %s", fior_verdict_name(r->verdict),
         r->borderline ? " (borderline)" : "", r->wal.job ? wp : "-", r->backend.job ? bp : "-");
    msgf(sub, sizeof sub, "etcd-fio check %.600s — %.600s", r->fi.path, r->fsdesc);
    svg_plot p = {title, sub, s, ns, v, 2};
    int rc = svg_write(f, &p);
    if (fclose(f) != 0 || rc != 0) {
        msgf(err, errlen, "%s: write error", path);
        return -1;
    }
    return 0;
}

static int keep_output(const check_opts *o, const char *tmp, const char *raw, size_t rawlen, char *err,
                       size_t errlen)
{
    if (mkdir(o->keep, 0755) != 0 && errno != EEXIST) {
        msgf(err, errlen, "%s: %s", o->keep, strerror(errno));
        return -1;
    }
    static const char *const files[] = {"etcd-profile.fio", "fio.stderr", "wal-stats.json", "backend-stats.json"};
    char dst[4200], src[4200];
    msgf(dst, sizeof dst, "%s/fio-output.json", o->keep);
    if (write_file(dst, raw, rawlen) != 0) {
        msgf(err, errlen, "%s: %s", dst, strerror(errno));
        return -1;
    }
    msgf(dst, sizeof dst, "%s/README", o->keep);
    FILE *rf = fopen(dst, "w");
    if (rf) {
        /* the criteria check used, so the re-judged verdict is the same one */
        fprintf(rf, "etcd-fio check output (load %s, confidence %g, min-syncs %llu).\n"
                    "fio-output.json: fio's --output-format=json+ --status-interval=1 stream (the last document is\n"
                    "the final one); etcd-profile.fio: the job file; *-stats.json: the engine's own statistics.\n"
                    "Re-judge: etcd-fio verdict --min-samples %llu fio-output.json\n",
                o->load, o->confidence, (unsigned long long)o->min_syncs,
                (unsigned long long)(o->min_syncs < 100 ? o->min_syncs : 100));
        fclose(rf);
    }
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        msgf(src, sizeof src, "%s/%s", tmp, files[i]);
        size_t n;
        char *d = read_all(src, &n);
        if (!d)
            continue;
        msgf(dst, sizeof dst, "%s/%s", o->keep, files[i]);
        int rc = write_file(dst, d, n);
        free(d);
        if (rc != 0) {
            msgf(err, errlen, "%s: %s", dst, strerror(errno));
            return -1;
        }
    }
    return 0;
}

static void rm_tmp(const char *tmp)
{
    static const char *const files[] = {"etcd-profile.fio", "fio.stderr", "wal-stats.json", "backend-stats.json",
                                        "classic.fio", "classic.json", "classic.stderr"};
    char p[4200];
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        msgf(p, sizeof p, "%s/%s", tmp, files[i]);
        unlink(p);
    }
    rmdir(tmp);
}

static void describe_side(char *b, size_t n, const char *what, const side_out *s, const es_side *e, uint64_t thr,
                          double conf)
{
    char v[32], lo[32], hi[32], t[32];
    fmt_ms(v, sizeof v, s->p99);
    fmt_ms(lo, sizeof lo, e->lo_ns);
    fmt_ms(hi, sizeof hi, e->hi_ns);
    fmt_ms(t, sizeof t, thr);
    if (!s->job || !s->n) {
        msgf(b, n, "%s: no samples", what);
        return;
    }
    const char *cmp = s->p99 < thr ? "<" : ">=";
    if (e->state == ES_TOO_FEW || e->state == ES_ABSENT)
        msgf(b, n, "%s p99 %s (only %llu samples: not decided)", what, v, (unsigned long long)s->n);
    else if (e->state == ES_PASS || e->state == ES_FAIL)
        msgf(b, n, "%s p99 %s %s %s", what, v, cmp, t);
    else if (e->lo_ns <= thr && e->hi_ns == UINT64_MAX)
        msgf(b, n, "%s p99 %s %s %s, but %llu samples are too few for a %.0f%% upper bound", what, v, cmp, t,
             (unsigned long long)s->n, conf * 100);
    else if (e->lo_ns <= thr && e->hi_ns >= thr)
        msgf(b, n, "%s p99 %s %s %s, but its %.0f%% bound %s..%s straddles %s", what, v, cmp, t, conf * 100,
                 lo, hi, t);
    else /* the nominal bound is clear of it, the error-spending looks were not yet */
        msgf(b, n, "%s p99 %s %s %s, not yet decided (%.0f%% bound %s..%s; the sequential looks need more samples)",
             what, v, cmp, t, conf * 100, lo, hi);
}

int cmd_check(int argc, char **argv)
{
    check_opts o;
    int prc = parse_opts(argc, argv, &o);
    if (prc)
        return prc > 0 ? 0 : 2;

    result r;
    memset(&r, 0, sizeof r);
    char err[1024];
    if (fsinfo_get(o.dir, &r.fi, err, sizeof err) != 0) {
        fprintf(stderr, "etcd-fio check: %s\n", err);
        return 2;
    }
    fsinfo_describe(&r.fi, r.fsdesc, sizeof r.fsdesc);
    if (!r.fi.writable) {
        fprintf(stderr, "etcd-fio check: %s: cannot create files there (%s); choose a writable directory on the disk to test\n",
                r.fi.path, r.fsdesc);
        return 2;
    }
    char why[2048];
    if (fsinfo_suspicious(&r.fi, NULL, why, sizeof why)) {
        if (!o.force) {
            fprintf(stderr, "etcd-fio check: refusing: %s (use --force to test it anyway)\n", why);
            return 2;
        }
        fprintf(stderr, "etcd-fio check: warning: %s (--force)\n", why);
    }
    uint64_t need = space_needed(&o);
    if (r.fi.free_bytes < need) {
        fprintf(stderr, "etcd-fio check: %s: %llu MiB free on %s, the run needs about %llu MiB\n", r.fi.path,
                (unsigned long long)(r.fi.free_bytes >> 20), r.fsdesc, (unsigned long long)(need >> 20));
        return 2;
    }
    char engine[PATH_MAX];
    if (engine_path_find(engine, sizeof engine) != 0) {
        fprintf(stderr, "etcd-fio check: %s\n", engine);
        return 2;
    }

    const char *tbase = getenv("TMPDIR");
    char tmp[4096];
    msgf(tmp, sizeof tmp, "%s/etcd-fio-check.XXXXXX", tbase && *tbase ? tbase : "/tmp");
    if (!mkdtemp(tmp)) {
        fprintf(stderr, "etcd-fio check: %s: %s\n", tmp, strerror(errno));
        return 2;
    }
    char jobpath[4200], errpath[4200], walstats[4200], bestats[4200];
    msgf(jobpath, sizeof jobpath, "%s/etcd-profile.fio", tmp);
    msgf(errpath, sizeof errpath, "%s/fio.stderr", tmp);
    msgf(walstats, sizeof walstats, "%s/wal-stats.json", tmp);
    msgf(bestats, sizeof bestats, "%s/backend-stats.json", tmp);
    unsigned runtime = (unsigned)ceil(o.max_time);
    prof_opts po = {.load = o.load, .dir = r.fi.path, .engine_path = engine, .runtime_s = runtime,
                    .ionice = o.ionice, .wal_stats_file = walstats, .backend_stats_file = bestats};
    FILE *jf = fopen(jobpath, "w");
    if (!jf || prof_write(jf, &po, err, sizeof err) != 0) {
        fprintf(stderr, "etcd-fio check: %s: %s\n", jobpath, jf ? err : strerror(errno));
        if (jf)
            fclose(jf);
        rm_tmp(tmp);
        return 2;
    }
    fclose(jf);

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);

    char *fargv[] = {(char *)fio_bin(), "--output-format=json+", "--status-interval=1", jobpath, NULL};
    int fd = -1;
    double t0 = now_s();
    pid_t pid = spawn_fio(fargv, errpath, &fd);
    if (pid < 0) {
        fprintf(stderr, "etcd-fio check: cannot start %s: %s\n", fargv[0], strerror(errno));
        rm_tmp(tmp);
        return 2;
    }

    es_params ep = {.q = 0.99, .confidence = o.confidence, .min_syncs = o.min_syncs, .full = o.full};
    es_ctl es;
    fior_criteria *cr = fior_criteria_new();
    if (!cr || (o.min_syncs < fior_criteria_min_samples(cr) && fior_criteria_set_min_samples(cr, o.min_syncs))) {
        fprintf(stderr, "etcd-fio check: out of memory\n");
        fior_criteria_free(cr);
        rm_tmp(tmp);
        return 2;
    }
    r.wal_thr_ns = fior_criteria_threshold(cr, FIOR_ROLE_WAL);
    r.be_thr_ns = fior_criteria_threshold(cr, FIOR_ROLE_BACKEND);
    es_init(&es, &ep, r.wal_thr_ns, r.be_thr_ns, 1);
    fior_stream *st = fior_stream_new("fio");
    char *raw = NULL;
    size_t rawlen = 0, rawcap = 0;
    unsigned long seen_docs = 0, docs_at_stop = 0;
    int stopped = 0, tty = isatty(2), sent_kill = 0;
    double stop_at = 0;
    for (;;) {
        struct pollfd pf = {fd, POLLIN, 0};
        int pr = poll(&pf, 1, 250);
        double el = now_s() - t0;
        if (g_interrupted && !stopped) {
            /* Ctrl-C reached fio too (same process group); a kill(1) only us: pass it on */
            kill(pid, SIGINT);
            stopped = 1;
            stop_at = el;
            docs_at_stop = seen_docs;
            r.interrupted = 1;
        }
        /* fio's own runtime= ends it at --max-time; this is only the net under it */
        if (!stopped && el > o.max_time + 20) {
            kill(pid, SIGINT);
            stopped = 1;
            stop_at = el;
            docs_at_stop = seen_docs;
        }
        if (stopped && !sent_kill && el > stop_at + 60) {
            kill(pid, SIGKILL);
            sent_kill = 1;
        }
        if (pr < 0 && errno != EINTR)
            break;
        if (pr <= 0)
            continue;
        if (rawlen + 65536 > rawcap) {
            size_t nc = rawcap ? rawcap * 2 : 1 << 20;
            char *nb = realloc(raw, nc);
            if (!nb)
                break;
            raw = nb;
            rawcap = nc;
        }
        ssize_t n = read(fd, raw + rawlen, 65536);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        fior_stream_feed(st, raw + rawlen, (size_t)n);
        rawlen += (size_t)n;
        if (fior_stream_documents(st) == seen_docs)
            continue;
        seen_docs = fior_stream_documents(st);
        const fior_report *rep = fior_stream_report(st);
        const fior_job *wj = find_job(rep, FIOR_ROLE_WAL), *bj = find_job(rep, FIOR_ROLE_BACKEND);
        int stop = es_update(&es, wj ? wj->bins : NULL, wj ? wj->nbins : 0, bj ? bj->bins : NULL, bj ? bj->nbins : 0);
        if (tty)
            progress(&es, el, 0);
        if (stop && !stopped) {
            kill(pid, SIGINT);
            stopped = 1;
            stop_at = el;
            docs_at_stop = seen_docs;
            r.decided_early = 1;
            r.decided_syncs = es.wal.n + es.backend.n;
        }
    }
    close(fd);
    int wst = 0;
    while (waitpid(pid, &wst, 0) < 0 && errno == EINTR)
        ;
    r.duration = now_s() - t0;
    if (tty)
        progress(&es, r.duration, 1);

    const fior_report *fin = fior_stream_report(st);
    const fior_job *wj = find_job(fin, FIOR_ROLE_WAL), *bj = find_job(fin, FIOR_ROLE_BACKEND);
    /* fio's final document is the last thing it prints: a document after the stop, and the output ends
     * with its closing brace (a truncated final document would leave the stream on an older one) */
    size_t end = rawlen;
    while (end && (raw[end - 1] == '\n' || raw[end - 1] == ' ' || raw[end - 1] == '\r'))
        end--;
    int complete = fin && (!stopped || seen_docs > docs_at_stop) && wj && end && raw[end - 1] == '}';
    int fio_ok = WIFEXITED(wst) && (WEXITSTATUS(wst) == 0 || (stopped && WEXITSTATUS(wst) == 128));
    if (!complete || !fio_ok) {
        char l[512];
        last_line(errpath, l, sizeof l);
        const char *serr = fior_stream_error(st);
        if (WIFEXITED(wst))
            fprintf(stderr, "etcd-fio check: %s exited with status %d%s%s\n", fargv[0], WEXITSTATUS(wst),
                    l[0] ? ": " : "", l);
        else
            fprintf(stderr, "etcd-fio check: %s was killed by signal %d%s%s\n", fargv[0], WTERMSIG(wst),
                    l[0] ? ": " : "", l);
        if (serr && *serr)
            fprintf(stderr, "etcd-fio check: fio output: %s\n", serr);
        if (!fin || !wj) {
            fprintf(stderr, "etcd-fio check: no WAL job result in fio's output; cannot judge\n");
            if (o.keep)
                keep_output(&o, tmp, raw ? raw : "", rawlen, err, sizeof err);
            fior_stream_free(st);
            fior_criteria_free(cr);
            free(raw);
            rm_tmp(tmp);
            return 2;
        }
        if (!complete)
            fprintf(stderr, "etcd-fio check: fio's final document after the stop is missing; judging the last "
                            "complete one\n");
    }

    /* Ran to --max-time undecided: the final bins get one more look of each kind (see es_final). */
    if (!stopped && !r.interrupted && complete)
        es_final(&es, wj->bins, wj->nbins, bj ? bj->bins : NULL, bj ? bj->nbins : 0);

    read_engine_stats(walstats, &r.wal_stats);
    read_engine_stats(bestats, &r.be_stats);

    /* The verdict comes from the library on the final document (roles, thresholds, never PASS on thin data). */
    size_t nj = fior_report_njobs(fin);
    fior_result *jres = fior_judge(fin, cr);  /* its reasons are used until the end */
    r.verdict = fior_result_verdict(jres);
    fill_side(&r.wal, wj, &es.wal, o.confidence);
    fill_side(&r.backend, bj, &es.backend, o.confidence);
    for (size_t i = 0; jres && i < nj; i++) {
        if (fior_report_job(fin, i) == wj)
            r.wal.j = *fior_result_job(jres, i);
        if (fior_report_job(fin, i) == bj)
            r.backend.j = *fior_result_job(jres, i);
    }
    if (!complete && r.verdict == FIOR_PASS)
        r.verdict = FIOR_UNKNOWN; /* never a PASS on a run whose end we could not read */

    /* The bound shown in the reason is the one of the final document. */
    es_side wsf = es.wal, bsf = es.backend;
    wsf.lo_ns = r.wal.lo;
    wsf.hi_ns = r.wal.hi;
    bsf.lo_ns = r.backend.lo;
    bsf.hi_ns = r.backend.hi;
    char ws[300], bs[300];
    describe_side(ws, sizeof ws, "WAL fdatasync", &r.wal, &wsf, r.wal_thr_ns, o.confidence);
    describe_side(bs, sizeof bs, "backend commit", &r.backend, &bsf, r.be_thr_ns, o.confidence);
    es_state ov = es_overall(&es);
    if (r.verdict == FIOR_UNKNOWN || r.verdict == FIOR_NOT_JUDGED) {
        int wal_unknown = r.wal.j.verdict != FIOR_PASS && r.wal.j.verdict != FIOR_FAIL;
        const char *jr = wal_unknown ? r.wal.j.reason : r.backend.j.reason;
        msgf(r.reason, sizeof r.reason, "%s: %s%s%s", wal_unknown ? "WAL fdatasync" : "backend commit",
             jr && *jr ? jr : "not enough data",
                 r.interrupted ? " (interrupted)" : "", complete ? "" : " (fio's final output is missing)");
        r.verdict = FIOR_UNKNOWN;
    } else if (ov == ES_PASS || ov == ES_FAIL) {
        msgf(r.reason, sizeof r.reason, "%s; %s (%.0f%% confident after %llu syncs, %.0f s)", ws, bs,
                 o.confidence * 100, (unsigned long long)(r.decided_syncs ? r.decided_syncs : es.wal.n + es.backend.n),
                 stopped ? stop_at : r.duration);
    } else if (r.interrupted) {
        /* stopped by the operator before the bound decided: the point estimate is no verdict */
        r.verdict = FIOR_UNKNOWN;
        msgf(r.reason, sizeof r.reason, "interrupted after %.0f s before the p99 was decided (point estimates: %s; %s)",
             r.duration, ws, bs);
    } else {
        r.borderline = 1;
        msgf(r.reason, sizeof r.reason, "%s; %s (point estimate after %.0f s)", ws, bs, r.duration);
    }

    if (o.classic && !g_interrupted) {
        if (tty)
            fprintf(stderr, "running the classic fio job (10,029 fdatasyncs of 2300 bytes) in %s ...\n", r.fi.path);
        run_classic(r.fi.path, tmp, &r.classic);
    }

    int rc = r.verdict == FIOR_PASS ? 0 : r.verdict == FIOR_FAIL ? 1 : 2;
    if (o.json)
        print_json(&r, &o);
    else
        print_text(&r, &o);
    fflush(stdout);
    if (o.prom && write_prom(&r, o.prom, err, sizeof err) != 0) {
        fprintf(stderr, "etcd-fio check: --prometheus %s\n", err);
        rc = 2;
    }
    if (o.svg && write_svg(&r, o.svg, err, sizeof err) != 0) {
        fprintf(stderr, "etcd-fio check: --svg %s\n", err);
        rc = 2;
    }
    if (o.keep && keep_output(&o, tmp, raw, rawlen, err, sizeof err) != 0) {
        fprintf(stderr, "etcd-fio check: --keep-output %s\n", err);
        rc = 2;
    }
    fior_stream_free(st);
    fior_result_free(jres);
    fior_criteria_free(cr);
    free(raw);
    rm_tmp(tmp);
    return rc;
}
