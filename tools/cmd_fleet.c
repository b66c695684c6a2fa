/* cmd_fleet.c — `etcd-fio fleet`: judge many etcd nodes at once through fio's own client/server mode.
 *
 * Every node runs `fio --server`; this command is the fio client. It first asks each server, without
 * touching its disk, whether it can run the profile: `fio --client=H,P job.fio --parse-only` makes the
 * server parse the job (so a missing engine path or an option the engine does not know is reported) and
 * answers with the server's hostname and fio version. Then one fio client process runs the etcd profile on
 * every usable server at once — each server gets its own copy of the job file, because fio hands a job file
 * only to the --client option in front of it — and the JSON `client_stats` are judged per host.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "cmds.h"
#include "engine_path.h"
#include "fioreport.h"
#include "profile.h"
#include "prom.h"

#define FLEET_DEFAULT_PORT 8765
#define FLEET_DEFAULT_DIR  "/var/lib/etcd"
#define PROBE_TIMEOUT_S    30
#define PROBE_BATCH        32
#define PROFILE_RUNTIME_S  60   /* profile.c's default runtime, for the time limit only */

typedef enum host_status {
    HS_OK = 0,
    HS_UNREACHABLE,    /* no connection / no probe reply */
    HS_FIO_VERSION,    /* the server runs another fio than this client (and the engine) */
    HS_NO_ENGINE,      /* the engine is not at the same path on the server */
    HS_PROBE_FAILED,   /* the server could not parse the job (other engine build, bad directory, ...) */
    HS_NO_RESULTS,     /* the run gave nothing for this host */
    HS_JUDGED          /* results read and judged */
} host_status;

static const char *const status_names[] = {
    "ok", "unreachable", "fio-version", "no-engine", "probe-failed", "no-results", "judged"};

typedef struct host {
    char        spec[300];      /* HOST,PORT as given to fio */
    char        name[256];      /* HOST without fio's ip:/ip6: prefix, as fio reports it in client_stats */
    int         port;
    char        dir[PATH_MAX];  /* directory on the server */
    host_status st;
    char        server_name[128];  /* the server's own hostname (fio prefixes its text lines with it) */
    char        fio_version[64];
    char        msg[512];
    /* results */
    int          has_wal, has_backend;
    fior_judgement wal, backend;  /* reasons owned by fleet.res */
    uint64_t     wal_samples, backend_samples;
    int          wal_p99_known, backend_p99_known;  /* measured p99, also when too few samples to judge */
    uint64_t     wal_p99_ns, backend_p99_ns;
    fior_verdict verdict;
    double       badness;       /* worst p99/threshold ratio, for sorting */
} host;

typedef struct fleet {
    host       *h;
    size_t      n, cap;
    fior_result *res;       /* the judgements the hosts' wal/backend point into */
    const char *load;
    const char *dir;
    unsigned    runtime_s;
    int         json;
    const char *prom_file;
    const char *keep_dir;
    const char *fio;
    char        engine[PATH_MAX];
    char        local_version[64];
    char        work[PATH_MAX];
    int         own_work;       /* remove the work dir at the end */
} fleet;

static void usage(FILE *f)
{
    fprintf(f,
"usage: etcd-fio fleet [OPTIONS] --client HOST[,PORT]... | --clients FILE\n"
"\n"
"Runs the etcd profile (WAL + backend jobs, see `etcd-fio job`) on every listed fio server at once,\n"
"through fio's client/server mode, and prints one row per host, worst first: host, WAL fdatasync p99,\n"
"backend commit p99, verdict. Each server must run `fio --server` with the same fio version as this\n"
"machine and have libetcdwal.so at the same path as here (checked first, without writing anything).\n"
"\n"
"  --client HOST[,PORT]  a fio server (default port %d); repeat for more\n"
"  --clients FILE        one `HOST[,PORT] [DIR]` per line; blank lines and # comments are ignored\n"
"  --dir DIR             directory on the servers (default %s); the engine works in a private\n"
"                        directory under it and removes it. A DIR in --clients overrides it per host\n"
"  --load s|m|l|xl       load level, as `etcdctl check perf --load` (default s)\n"
"  --runtime S           seconds of the run on every host (default: the profile's)\n"
"  --json                print one JSON object instead of the table\n"
"  --prometheus FILE     write a node_exporter textfile with one series per host (atomically)\n"
"  --keep-output DIR     keep the job files and fio's raw output in DIR (re-judge with `etcd-fio verdict`)\n"
"  --engine PATH         libetcdwal.so path on the servers (default: where this etcd-fio finds its own)\n"
"\n"
"Environment: FIO (fio binary, default fio), ETCD_FIO_ENGINE (engine path to use on the servers).\n"
"Exit status: 0 every host PASS, 1 some host FAIL, 2 some host could not be judged, or usage error.\n",
            FLEET_DEFAULT_PORT, FLEET_DEFAULT_DIR);
}

/* Set by SIGINT/SIGTERM: the running fio clients are asked to stop (they stop their servers' jobs and
 * still print what was measured), then the hosts are judged on that and the work directory is removed. */
static volatile sig_atomic_t stop_requested;

static void on_stop(int sig)
{
    (void)sig;
    stop_requested = 1;
}

/* ---------- host list ---------- */

static int add_host(fleet *f, const char *spec, const char *dir, const char *where, char *err, size_t errlen)
{
    char buf[sizeof f->h[0].spec];
    if (!*spec || strlen(spec) >= sizeof buf) {
        snprintf(err, errlen, "%s: bad client '%s' (expected HOST[,PORT])", where, spec);
        return -1;
    }
    snprintf(buf, sizeof buf, "%s", spec);
    int port = FLEET_DEFAULT_PORT;
    char *comma = strrchr(buf, ',');
    if (comma) {
        char *end;
        errno = 0;
        long p = strtol(comma + 1, &end, 10);
        if (comma[1] == '\0' || *end || errno || p < 1 || p > 65535) {
            snprintf(err, errlen, "%s: bad port '%s' in '%s' (expected HOST[,PORT], PORT 1-65535)", where,
                     comma + 1, spec);
            return -1;
        }
        port = (int)p;
        *comma = '\0';
    }
    const char *name = buf;
    if (!strncmp(name, "ip6:", 4))
        name += 4;
    else if (!strncmp(name, "ip:", 3))
        name += 3;
    if (!*name || strchr(name, ' ') || !strncmp(buf, "sock:", 5)) {
        snprintf(err, errlen, "%s: bad host in '%s' (expected HOST[,PORT]; unix sockets are not supported)",
                 where, spec);
        return -1;
    }
    for (size_t i = 0; i < f->n; i++)
        if (!strcmp(f->h[i].name, name) && f->h[i].port == port) {
            snprintf(err, errlen, "%s: %s,%d is listed twice", where, name, port);
            return -1;
        }
    if (f->n == f->cap) {
        size_t cap = f->cap ? f->cap * 2 : 8;
        host *nh = realloc(f->h, cap * sizeof *nh);
        if (!nh) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        f->h = nh;
        f->cap = cap;
    }
    host *h = &f->h[f->n];
    memset(h, 0, sizeof *h);
    snprintf(h->spec, sizeof h->spec, "%.250s,%d", buf, port);
    snprintf(h->name, sizeof h->name, "%.250s", name);
    h->port = port;
    if (dir && strlen(dir) >= sizeof h->dir) {
        snprintf(err, errlen, "%s: directory too long", where);
        return -1;
    }
    if (dir && dir[0] != '/') {
        snprintf(err, errlen, "%.400s: directory '%.400s' must be absolute (it is a path on the server)", where, dir);
        return -1;
    }
    if (dir)
        snprintf(h->dir, sizeof h->dir, "%s", dir);
    f->n++;
    return 0;
}

/* `HOST[,PORT] [DIR]` per line; errors name FILE:LINE. */
static int read_clients(fleet *f, const char *path, char *err, size_t errlen)
{
    FILE *in = strcmp(path, "-") ? fopen(path, "r") : stdin;
    if (!in) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    char line[4096];
    size_t lineno = 0;
    int rc = 0, any = 0;
    while (fgets(line, sizeof line, in)) {
        lineno++;
        size_t len = strlen(line);
        if (len == sizeof line - 1 && line[len - 1] != '\n') {
            snprintf(err, errlen, "%s:%zu: line too long", path, lineno);
            rc = -1;
            break;
        }
        char *hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        char *save = NULL;
        char *spec = strtok_r(line, " \t\r\n", &save);
        if (!spec)
            continue;
        char *dir = strtok_r(NULL, " \t\r\n", &save);
        char *extra = strtok_r(NULL, " \t\r\n", &save);
        char where[PATH_MAX + 32];
        snprintf(where, sizeof where, "%s:%zu", path, lineno);
        if (extra) {
            snprintf(err, errlen, "%.600s: unexpected '%.200s' (expected HOST[,PORT] [DIR])", where, extra);
            rc = -1;
            break;
        }
        if (add_host(f, spec, dir, where, err, errlen)) {
            rc = -1;
            break;
        }
        any = 1;
    }
    if (!rc && ferror(in)) {
        snprintf(err, errlen, "%s:%zu: read error: %s", path, lineno + 1, strerror(errno));
        rc = -1;
    }
    if (!rc && !any) {
        snprintf(err, errlen, "%s: no hosts in the file (expected HOST[,PORT] [DIR] per line)", path);
        rc = -1;
    }
    if (in != stdin)
        fclose(in);
    return rc;
}

/* ---------- running fio ---------- */

static pid_t spawn(const char *const *argv, const char *out_path)
{
    pid_t pid = fork();
    if (pid != 0)
        return pid;
    int fd = open(out_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    int nul = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (fd < 0 || nul < 0)
        _exit(127);
    /* stdout and stderr in one file, in the order fio wrote them: its messages sit beside the job text. */
    if (dup2(nul, 0) < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
        _exit(127);
    execvp(argv[0], (char *const *)argv);
    dprintf(2, "etcd-fio fleet: cannot run %s: %s\n", argv[0], strerror(errno));
    _exit(127);
}

/* Waits for all pids until `timeout_s`; stops those still running (TERM, then KILL 10 s later).
 * status[i] = -1 when stopped for the timeout, else the exit status (128+signal when signalled). */
static void wait_all(const pid_t *pids, int *status, size_t n, unsigned timeout_s)
{
    struct timespec t0, now, nap = {0, 50 * 1000 * 1000};
    clock_gettime(CLOCK_MONOTONIC, &t0);
    size_t left = 0;
    for (size_t i = 0; i < n; i++) {
        status[i] = pids[i] > 0 ? -2 : 127;  /* -2: running, -3: running and sent SIGTERM */
        left += pids[i] > 0;
    }
    while (left) {
        for (size_t i = 0; i < n; i++) {
            if (status[i] != -2 && status[i] != -3)
                continue;
            int ws;
            pid_t r = waitpid(pids[i], &ws, WNOHANG);
            if (r == pids[i]) {
                status[i] = status[i] == -3 ? -1 : WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
                left--;
            } else if (r < 0 && errno != EINTR) {
                status[i] = 127;
                left--;
            }
        }
        if (!left)
            break;
        clock_gettime(CLOCK_MONOTONIC, &now);
        double el = (double)(now.tv_sec - t0.tv_sec) + (now.tv_nsec - t0.tv_nsec) / 1e9;
        if (stop_requested == 1) {
            /* fio's client treats SIGINT as "stop the run and report"; a terminal already sent it to the
             * whole process group, a `kill` of this process only reached us. Once is enough. */
            for (size_t i = 0; i < n; i++)
                if (status[i] == -2)
                    kill(pids[i], SIGINT);
            stop_requested = 2;
        }
        for (size_t i = 0; i < n; i++) {
            if (status[i] == -2 && el > timeout_s) {
                kill(pids[i], SIGTERM);
                status[i] = -3;
            } else if (status[i] == -3 && el > timeout_s + 10.0) {
                kill(pids[i], SIGKILL);
                waitpid(pids[i], NULL, 0);
                status[i] = -1;
                left--;
            }
        }
        nanosleep(&nap, NULL);
    }
}

static char *slurp(const char *path, size_t *len)
{
    FILE *in = fopen(path, "rb");
    if (!in)
        return NULL;
    size_t cap = 65536, n = 0;
    char *buf = malloc(cap + 1);
    while (buf) {
        size_t got = fread(buf + n, 1, cap - n, in);
        n += got;
        if (n < cap)
            break;
        char *nb = realloc(buf, cap * 2 + 1);
        if (!nb) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = nb;
        cap *= 2;
    }
    fclose(in);
    if (buf) {
        buf[n] = '\0';
        if (len)
            *len = n;
    }
    return buf;
}

static int local_fio_version(fleet *f, char *err, size_t errlen)
{
    char out[PATH_MAX + 32];
    snprintf(out, sizeof out, "%s/fio-version.txt", f->work);
    const char *argv[] = {f->fio, "--version", NULL};
    pid_t pid = spawn(argv, out);
    int st;
    wait_all(&pid, &st, 1, 10);
    char *txt = slurp(out, NULL);
    if (st != 0 || !txt || strncmp(txt, "fio-", 4)) {
        snprintf(err, errlen, "cannot run '%s --version' (is fio installed? set FIO=)", f->fio);
        free(txt);
        return -1;
    }
    txt[strcspn(txt, "\r\n")] = '\0';
    snprintf(f->local_version, sizeof f->local_version, "%s", txt);
    free(txt);
    return 0;
}

/* The probe parses the very job the run will use, so it fails on whatever the run would fail to parse. */
static int write_job(const fleet *f, const host *h, const char *path, char *err, size_t errlen)
{
    FILE *out = fopen(path, "w");
    if (!out) {
        snprintf(err, errlen, "%.600s: %s", path, strerror(errno));
        return -1;
    }
    prof_opts o;
    memset(&o, 0, sizeof o);
    o.load = f->load;
    o.dir = h->dir[0] ? h->dir : f->dir;
    o.engine_path = f->engine;
    o.runtime_s = f->runtime_s;
    int rc = prof_write(out, &o, err, errlen);
    if (fclose(out) && !rc) {
        snprintf(err, errlen, "%.600s: %s", path, strerror(errno));
        rc = -1;
    }
    return rc;
}

/* ---------- preflight ---------- */

static void copy_msg(char *dst, size_t len, const char *src)
{
    size_t n = strcspn(src, "\r\n");
    if (n >= len)
        n = len - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

/* Reads the output of `fio --client=H,P probe.fio --parse-only` for one host. */
static void judge_probe(fleet *f, host *h, const char *txt, int rc)
{
    const char *p = txt ? txt : "";
    const char *first_err = NULL, *no_engine = NULL, *conn = NULL;
    int have_probe = 0, dropped = 0;
    while (*p) {
        const char *line = p;
        const char *nl = strchr(p, '\n');
        p = nl ? nl + 1 : p + strlen(p);
        /* hostname=vm, be=0, 64-bit, os=Linux, arch=x86-64, fio=fio-3.33, flags=1 */
        if (sscanf(line, "hostname=%127[^,\n]", h->server_name) == 1) {
            have_probe = 1;
            const char *v = strstr(line, ", fio=");
            if (v && v < p)
                sscanf(v, ", fio=%63[^,\n]", h->fio_version);
            continue;
        }
        if (!strncmp(line, "fio: connect", 12) || !strncmp(line, "fio: failed to connect", 22) ||
            !strncmp(line, "fio: client", 11)) {
            if (!conn)
                conn = line;
            continue;
        }
        /* Server text arrives as "<server-hostname> text". */
        const char *body = line;
        if (line[0] == '<') {
            const char *gt = strchr(line, '>');
            if (gt && gt < p)
                body = gt + 1 + (gt[1] == ' ');
        }
        if (strstr(body, "invalid external ioengine path") && !no_engine)
            no_engine = body;
        if (strstr(body, "dropped") && strstr(body, "job"))
            dropped = 1;
        if (!first_err && body != line &&
            (!strncmp(body, "fio:", 4) || !strncmp(body, "Bad option", 10) || strstr(body, "error")))
            first_err = body;
    }
    if (!have_probe) {
        h->st = HS_UNREACHABLE;
        if (rc == -1)
            snprintf(h->msg, sizeof h->msg, "no answer within %d s (is `fio --server` running there?)",
                     PROBE_TIMEOUT_S);
        else if (conn)
            copy_msg(h->msg, sizeof h->msg, conn);
        else if (first_err)
            copy_msg(h->msg, sizeof h->msg, first_err);
        else
            snprintf(h->msg, sizeof h->msg, "no reply from a fio server (fio exit status %d)", rc);
        return;
    }
    if (strcmp(h->fio_version, f->local_version)) {
        h->st = HS_FIO_VERSION;
        snprintf(h->msg, sizeof h->msg, "runs %s, this client and the engine are %s",
                 h->fio_version[0] ? h->fio_version : "an unknown fio", f->local_version);
        return;
    }
    if (no_engine) {
        h->st = HS_NO_ENGINE;
        snprintf(h->msg, sizeof h->msg, "engine not installed at %.400s on the server", f->engine);
        return;
    }
    if (dropped || first_err || rc != 0) {
        h->st = HS_PROBE_FAILED;
        if (first_err) {
            char m[400];
            copy_msg(m, sizeof m, first_err);
            snprintf(h->msg, sizeof h->msg, "the server rejected the job: %s", m);
        } else {
            snprintf(h->msg, sizeof h->msg, "the server rejected the job (fio exit status %d)", rc);
        }
        return;
    }
    h->st = HS_OK;
}

/* Probes every host, PROBE_BATCH at a time (a fio client process each; a fleet may have hundreds). */
static int preflight(fleet *f, char *err, size_t errlen)
{
    pid_t pids[PROBE_BATCH];
    int st[PROBE_BATCH];
    for (size_t b = 0; b < f->n; b += PROBE_BATCH) {
        size_t n = f->n - b < PROBE_BATCH ? f->n - b : PROBE_BATCH, started = 0;
        int rc = 0;
        for (size_t k = 0; k < n; k++) {
            size_t i = b + k;
            char job[PATH_MAX + 64], out[PATH_MAX + 64], client[sizeof f->h[i].spec + 16];
            snprintf(job, sizeof job, "%s/job-%zu.fio", f->work, i);  /* the run uses it too */
            snprintf(out, sizeof out, "%s/probe-%zu.out", f->work, i);
            if (write_job(f, &f->h[i], job, err, errlen)) {
                rc = -1;
                break;
            }
            snprintf(client, sizeof client, "--client=%s", f->h[i].spec);
            /* --parse-only after the job file travels with that client's job to the server: the server
             * parses the job (engine path, engine options; it loads the engine) and runs nothing. */
            const char *argv[] = {f->fio, "--eta=never", client, job, "--parse-only", NULL};
            pids[k] = spawn(argv, out);
            if (pids[k] < 0) {
                snprintf(err, errlen, "fork: %s", strerror(errno));
                rc = -1;
                break;
            }
            started++;
        }
        wait_all(pids, st, started, PROBE_TIMEOUT_S);
        if (rc)
            return -1;
        for (size_t k = 0; k < n; k++) {
            char out[PATH_MAX + 64];
            snprintf(out, sizeof out, "%s/probe-%zu.out", f->work, b + k);
            char *txt = slurp(out, NULL);
            judge_probe(f, &f->h[b + k], txt, st[k]);
            free(txt);
        }
    }
    return 0;
}

/* ---------- the run ---------- */

static host *find_host(fleet *f, const char *name, int port)
{
    if (!name)
        return NULL;
    for (size_t i = 0; i < f->n; i++)
        if (f->h[i].port == port && !strcmp(f->h[i].name, name))
            return &f->h[i];
    return NULL;
}

static double ratio(const fior_judgement *j)
{
    return j->value_known && j->threshold_ns ? (double)j->value_ns / (double)j->threshold_ns : 0.0;
}

static double measured_ratio(int known, uint64_t ns, const fior_judgement *j)
{
    return known && j->threshold_ns ? (double)ns / (double)j->threshold_ns : 0.0;
}

static int verdict_rank(fior_verdict v)
{
    return v == FIOR_FAIL ? 0 : v == FIOR_PASS ? 2 : 1;
}

/* The job's own value at the judged percentile, shown even where the verdict cannot use it. */
static int job_pct(const fior_job *j, double percent, uint64_t *ns)
{
    for (size_t i = 0; i < j->npct; i++)
        if (j->pct[i].percent > percent - 1e-9 && j->pct[i].percent < percent + 1e-9) {
            *ns = j->pct[i].ns;
            return 1;
        }
    return 0;
}

static void judge_results(fleet *f, const fior_report *r)
{
    fior_result_free(f->res);
    f->res = fior_judge(r, NULL);
    size_t nj = f->res ? fior_report_njobs(r) : 0;
    for (size_t i = 0; i < nj; i++) {
        const fior_job *j = fior_report_job(r, i);
        if (j->name && !strcmp(j->name, "All clients"))
            continue;  /* fio's aggregate carries the last client's host and port; it is not a host */
        host *h = find_host(f, j->host, j->port);
        if (!h || h->st != HS_OK)
            continue;
        fior_judgement jd = *fior_result_job(f->res, i);
        if (jd.verdict == FIOR_NOT_JUDGED)
            continue;
        int backend = j->role == FIOR_ROLE_BACKEND;
        int *has = backend ? &h->has_backend : &h->has_wal;
        fior_judgement *slot = backend ? &h->backend : &h->wal;
        /* Two jobs of one role on a host (not what the profile makes) keep the worse one. */
        if (!*has || verdict_rank(jd.verdict) < verdict_rank(slot->verdict) ||
            (jd.verdict == slot->verdict && ratio(&jd) > ratio(slot))) {
            *slot = jd;
            uint64_t v = 0;
            int known = job_pct(j, fior_criteria_percentile(NULL), &v);
            if (!known && jd.value_known) {  /* the neighbour percentile that decided the verdict */
                v = jd.value_ns;
                known = 1;
            }
            if (backend) {
                h->backend_samples = j->samples_known ? j->samples : 0;
                h->backend_p99_known = known;
                h->backend_p99_ns = v;
            } else {
                h->wal_samples = j->samples_known ? j->samples : 0;
                h->wal_p99_known = known;
                h->wal_p99_ns = v;
            }
        }
        *has = 1;
    }
}

static int run_profile(fleet *f, const char *out_path, char *err, size_t errlen)
{
    size_t nok = 0;
    for (size_t i = 0; i < f->n; i++)
        nok += f->h[i].st == HS_OK;
    if (!nok)
        return 0;
    const char **argv = calloc(4 + 2 * nok + 1, sizeof *argv);
    char (*client)[sizeof f->h[0].spec + 16] = calloc(nok, sizeof *client);
    char (*job)[PATH_MAX + 64] = calloc(nok, sizeof *job);
    if (!argv || !client || !job) {
        free(argv), free(client), free(job);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    size_t a = 0, k = 0;
    argv[a++] = f->fio;
    argv[a++] = "--eta=never";
    argv[a++] = "--output-format=json";
    for (size_t i = 0; i < f->n; i++) {
        if (f->h[i].st != HS_OK)
            continue;
        snprintf(job[k], sizeof job[k], "%s/job-%zu.fio", f->work, i);
        snprintf(client[k], sizeof client[k], "--client=%s", f->h[i].spec);
        argv[a++] = client[k];
        argv[a++] = job[k];
        k++;
    }
    argv[a] = NULL;
    /* fio stops by itself at the runtime (time_based); the margin covers connecting, the servers' setup
     * and slow last syncs on a bad disk. */
    unsigned limit = (f->runtime_s ? f->runtime_s : PROFILE_RUNTIME_S) * 2 + 120;
    int rc = 0, st = 0;
    pid_t pid = spawn(argv, out_path);
    if (pid < 0) {
        snprintf(err, errlen, "fork: %s", strerror(errno));
        rc = -1;
    } else {
        wait_all(&pid, &st, 1, limit);
        if (st == -1) {
            snprintf(err, errlen, "fio did not finish within %u s; its output so far is in %.700s", limit,
                     out_path);
            rc = -1;
        }
    }
    free(argv);
    free(client);
    free(job);
    return rc;
}

/* Messages the servers printed during the run, for hosts that gave no results: "<server> fio: ...". */
static void explain_missing(host *h, const char *txt)
{
    if (!txt || !h->server_name[0])
        return;
    char prefix[160];
    int plen = snprintf(prefix, sizeof prefix, "<%s> ", h->server_name);
    for (const char *p = txt; *p;) {
        const char *nl = strchr(p, '\n');
        const char *line = p;
        p = nl ? nl + 1 : p + strlen(p);
        if (!strncmp(line, prefix, (size_t)plen) && strstr(line + plen, "fio:")) {
            char m[400];
            copy_msg(m, sizeof m, line + plen);
            snprintf(h->msg, sizeof h->msg, "no results from the run; %.100s said: %.350s", h->server_name, m);
            return;
        }
    }
}

static void finish_hosts(fleet *f, const char *raw)
{
    for (size_t i = 0; i < f->n; i++) {
        host *h = &f->h[i];
        if (h->st != HS_OK) {
            h->verdict = FIOR_UNKNOWN;
            h->badness = 0;
            continue;
        }
        if (!h->has_wal) {
            h->st = HS_NO_RESULTS;
            h->verdict = FIOR_UNKNOWN;
            snprintf(h->msg, sizeof h->msg, "no WAL job results from this host");
            explain_missing(h, raw);
            continue;
        }
        h->st = HS_JUDGED;
        h->verdict = h->wal.verdict;
        if (h->has_backend && verdict_rank(h->backend.verdict) < verdict_rank(h->verdict))
            h->verdict = h->backend.verdict;
        /* Sorting within one verdict: the host closest to (or furthest over) its limit first. */
        h->badness = measured_ratio(h->wal_p99_known, h->wal_p99_ns, &h->wal);
        double rb = measured_ratio(h->backend_p99_known, h->backend_p99_ns, &h->backend);
        if (h->has_backend && rb > h->badness)
            h->badness = rb;
        /* The reason of the job that decided the host's verdict. */
        int use_backend = h->has_backend && h->backend.verdict == h->verdict &&
                          (h->wal.verdict != h->verdict || ratio(&h->backend) > ratio(&h->wal));
        snprintf(h->msg, sizeof h->msg, "%s: %s", use_backend ? "backend" : "WAL",
                 use_backend ? h->backend.reason : h->wal.reason);
    }
}

static int host_cmp(const void *a, const void *b)
{
    const host *x = a, *y = b;
    int rx = verdict_rank(x->verdict), ry = verdict_rank(y->verdict);
    if (rx != ry)
        return rx - ry;
    if (x->badness != y->badness)
        return x->badness < y->badness ? 1 : -1;
    int c = strcmp(x->name, y->name);
    return c ? c : x->port - y->port;
}

/* ---------- output ---------- */

static void fmt_p99(char *buf, size_t len, int has, int known, uint64_t ns)
{
    if (!has)
        snprintf(buf, len, "-");
    else if (!known)
        snprintf(buf, len, "?");
    else if (ns < 1000000)
        snprintf(buf, len, "%.3f ms", ns / 1e6);
    else
        snprintf(buf, len, "%.2f ms", ns / 1e6);
}

static void print_table(const fleet *f, fior_verdict overall)
{
    size_t w = 4;
    for (size_t i = 0; i < f->n; i++) {
        size_t l = strlen(f->h[i].name) + 9;
        if (l > w)
            w = l;
    }
    printf("%-*s  %12s  %12s  %-7s  %s\n", (int)w, "HOST", "WAL p99", "BACKEND p99", "VERDICT", "REASON");
    size_t counts[3] = {0, 0, 0};
    for (size_t i = 0; i < f->n; i++) {
        const host *h = &f->h[i];
        char hp[300], wal[32], be[32];
        /* [v6]:port, as URLs write it, so the port stays readable */
        snprintf(hp, sizeof hp, strchr(h->name, ':') ? "[%s]:%d" : "%s:%d", h->name, h->port);
        fmt_p99(wal, sizeof wal, h->has_wal, h->wal_p99_known, h->wal_p99_ns);
        fmt_p99(be, sizeof be, h->has_backend, h->backend_p99_known, h->backend_p99_ns);
        printf("%-*s  %12s  %12s  %-7s  %s%s%s\n", (int)w, hp, wal, be, fior_verdict_name(h->verdict),
               h->st != HS_JUDGED ? status_names[h->st] : "", h->st != HS_JUDGED ? ": " : "", h->msg);
        counts[verdict_rank(h->verdict)]++;
    }
    printf("fleet: %s (%zu hosts: %zu FAIL, %zu UNKNOWN, %zu PASS; load %s, fio %s)\n",
           fior_verdict_name(overall), f->n, counts[0], counts[1], counts[2], f->load, f->local_version);
}

static json_object *jnum_or_null(int known, uint64_t ns)
{
    return known ? json_object_new_int64((int64_t)ns) : NULL;
}

static const char *lower_verdict(fior_verdict v)
{
    return v == FIOR_PASS ? "pass" : v == FIOR_FAIL ? "fail" : "unknown";
}

static int print_json(const fleet *f, fior_verdict overall)
{
    json_object *root = json_object_new_object();
    if (!root)
        return -1;
    json_object_object_add(root, "verdict", json_object_new_string(lower_verdict(overall)));
    json_object_object_add(root, "load", json_object_new_string(f->load));
    json_object_object_add(root, "fio_version", json_object_new_string(f->local_version));
    json_object_object_add(root, "engine", json_object_new_string(f->engine));
    json_object *arr = json_object_new_array();
    for (size_t i = 0; i < f->n; i++) {
        const host *h = &f->h[i];
        json_object *o = json_object_new_object();
        json_object_object_add(o, "host", json_object_new_string(h->name));
        json_object_object_add(o, "port", json_object_new_int(h->port));
        json_object_object_add(o, "dir", json_object_new_string(h->dir[0] ? h->dir : f->dir));
        json_object_object_add(o, "status", json_object_new_string(status_names[h->st]));
        json_object_object_add(o, "server_hostname",
                               h->server_name[0] ? json_object_new_string(h->server_name) : NULL);
        json_object_object_add(o, "fio_version",
                               h->fio_version[0] ? json_object_new_string(h->fio_version) : NULL);
        json_object_object_add(o, "wal_p99_ns", jnum_or_null(h->has_wal && h->wal_p99_known, h->wal_p99_ns));
        json_object_object_add(o, "wal_threshold_ns",
                               h->has_wal ? json_object_new_int64((int64_t)h->wal.threshold_ns) : NULL);
        json_object_object_add(o, "wal_samples",
                               h->has_wal ? json_object_new_int64((int64_t)h->wal_samples) : NULL);
        json_object_object_add(o, "wal_verdict",
                               h->has_wal ? json_object_new_string(lower_verdict(h->wal.verdict)) : NULL);
        json_object_object_add(o, "backend_p99_ns", jnum_or_null(h->has_backend && h->backend_p99_known, h->backend_p99_ns));
        json_object_object_add(o, "backend_threshold_ns",
                               h->has_backend ? json_object_new_int64((int64_t)h->backend.threshold_ns) : NULL);
        json_object_object_add(o, "backend_samples",
                               h->has_backend ? json_object_new_int64((int64_t)h->backend_samples) : NULL);
        json_object_object_add(o, "backend_verdict",
                               h->has_backend ? json_object_new_string(lower_verdict(h->backend.verdict))
                                              : NULL);
        json_object_object_add(o, "verdict", json_object_new_string(lower_verdict(h->verdict)));
        json_object_object_add(o, "reason", json_object_new_string(h->msg));
        json_object_array_add(arr, o);
    }
    json_object_object_add(root, "hosts", arr);
    puts(json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
    json_object_put(root);
    return 0;
}

static int write_prom(const fleet *f, fior_verdict overall)
{
    prom_file *p = prom_new();
    char err[512] = "out of memory";
    int rc = p ? 0 : -1;
    for (size_t i = 0; i < f->n && !rc; i++) {
        const host *h = &f->h[i];
        char port[16];
        snprintf(port, sizeof port, "%d", h->port);
        prom_label l[2] = {{"host", h->name}, {"port", port}};
        rc |= prom_add(p, "etcd_fio_verdict", "etcd-fio verdict of the host: 0 pass, 1 fail, 2 unknown",
                       "gauge", l, 2, (double)h->verdict);
        rc |= prom_add(p, "etcd_fio_fleet_host_ok",
                       "1 if the host's fio server answered and could run the profile", "gauge", l, 2,
                       h->st == HS_JUDGED ? 1 : 0);
        if (h->has_wal && h->wal_p99_known)
            rc |= prom_add(p, "etcd_fio_wal_fsync_p99_seconds",
                           "p99 of the WAL fdatasync latency (etcd: etcd_disk_wal_fsync_duration_seconds)",
                           "gauge", l, 2, h->wal_p99_ns / 1e9);
        if (h->has_backend && h->backend_p99_known)
            rc |= prom_add(p, "etcd_fio_backend_commit_p99_seconds",
                           "p99 of the bbolt commit latency (etcd: etcd_disk_backend_commit_duration_seconds)",
                           "gauge", l, 2, h->backend_p99_ns / 1e9);
    }
    if (!rc)
        rc = prom_add(p, "etcd_fio_fleet_verdict", "overall verdict of the fleet: 0 pass, 1 fail, 2 unknown",
                      "gauge", NULL, 0, (double)overall);
    if (!rc)  /* lets an alert tell a stale file from a fresh one */
        rc = prom_add(p, "etcd_fio_fleet_timestamp_seconds", "when the fleet run ended (Unix time)", "gauge",
                      NULL, 0, (double)time(NULL));
    if (!rc && prom_write(p, f->prom_file, err, sizeof err))
        rc = -1;
    else if (rc)
        snprintf(err, sizeof err, "%s: could not build the metrics", f->prom_file);
    if (rc)
        fprintf(stderr, "etcd-fio fleet: %s\n", err);
    prom_free(p);
    return rc;
}

/* ---------- main ---------- */

static int rm_work(const char *dir, size_t nhosts)
{
    /* Only the files this command wrote, by name; never a recursive delete of a path from the user. */
    char p[PATH_MAX + 64];
    const char *fixed[] = {"fio-version.txt", "run.json", NULL};
    for (size_t i = 0; fixed[i]; i++) {
        snprintf(p, sizeof p, "%s/%s", dir, fixed[i]);
        unlink(p);
    }
    for (size_t i = 0; i < nhosts; i++) {
        snprintf(p, sizeof p, "%s/probe-%zu.out", dir, i);
        unlink(p);
        snprintf(p, sizeof p, "%s/job-%zu.fio", dir, i);
        unlink(p);
    }
    return rmdir(dir);
}

int cmd_fleet(int argc, char **argv)
{
    fleet f;
    memset(&f, 0, sizeof f);
    f.load = "s";
    f.dir = FLEET_DEFAULT_DIR;
    f.fio = getenv("FIO") && *getenv("FIO") ? getenv("FIO") : "fio";
    char err[1024] = "";
    int rc = 2;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *val = NULL;
        int takes = !strcmp(a, "--client") || !strcmp(a, "--clients") || !strcmp(a, "--dir") ||
                    !strcmp(a, "--load") || !strcmp(a, "--runtime") || !strcmp(a, "--prometheus") ||
                    !strcmp(a, "--keep-output") || !strcmp(a, "--engine");
        const char *eq = strchr(a, '=');
        char opt[32] = "";
        if (!strncmp(a, "--", 2) && eq && (size_t)(eq - a) < sizeof opt) {
            snprintf(opt, sizeof opt, "%.*s", (int)(eq - a), a);
            a = opt;
            val = eq + 1;
            takes = 1;
        } else if (takes) {
            if (i + 1 >= argc) {
                fprintf(stderr, "etcd-fio fleet: %s needs a value (see --help)\n", a);
                goto out;
            }
            val = argv[++i];
        }
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            rc = 0;
            goto out;
        } else if (!strcmp(a, "--json") && !val) {
            f.json = 1;
        } else if (!strcmp(a, "--client")) {
            if (add_host(&f, val, NULL, "--client", err, sizeof err))
                goto bad;
        } else if (!strcmp(a, "--clients")) {
            if (read_clients(&f, val, err, sizeof err))
                goto bad;
        } else if (!strcmp(a, "--dir")) {
            if (val[0] != '/') {
                snprintf(err, sizeof err, "--dir %s: must be absolute (it is a path on the servers)", val);
                goto bad;
            }
            f.dir = val;
        } else if (!strcmp(a, "--load")) {
            if (!prof_load_valid(val)) {
                snprintf(err, sizeof err, "--load %s: unknown load level (s, m, l, xl)", val);
                goto bad;
            }
            f.load = val;
        } else if (!strcmp(a, "--runtime")) {
            char *end;
            errno = 0;
            unsigned long s = strtoul(val, &end, 10);
            if (!*val || *end || errno || s < 1 || s > 86400 || val[0] == '-') {
                snprintf(err, sizeof err, "--runtime %s: expected whole seconds, 1-86400", val);
                goto bad;
            }
            f.runtime_s = (unsigned)s;
        } else if (!strcmp(a, "--prometheus")) {
            f.prom_file = val;
        } else if (!strcmp(a, "--keep-output")) {
            f.keep_dir = val;
        } else if (!strcmp(a, "--engine")) {
            if (val[0] != '/' || strlen(val) >= sizeof f.engine) {
                snprintf(err, sizeof err, "--engine %.200s: must be an absolute path (fio needs one)", val);
                goto bad;
            }
            snprintf(f.engine, sizeof f.engine, "%s", val);
        } else {
            snprintf(err, sizeof err, "unknown argument '%s'", argv[i]);
            goto bad;
        }
    }
    if (!f.n) {
        snprintf(err, sizeof err, "no fio servers given (--client HOST[,PORT] or --clients FILE)");
        goto bad;
    }
    if (!f.engine[0] && engine_path_find(f.engine, sizeof f.engine)) {
        fprintf(stderr, "etcd-fio fleet: %s\n", f.engine);
        goto out;
    }

    if (f.keep_dir) {
        if (mkdir(f.keep_dir, 0755) && errno != EEXIST) {
            fprintf(stderr, "etcd-fio fleet: --keep-output %s: %s\n", f.keep_dir, strerror(errno));
            goto out;
        }
        snprintf(f.work, sizeof f.work, "%s", f.keep_dir);
    } else {
        const char *tmp = getenv("TMPDIR");
        snprintf(f.work, sizeof f.work, "%s/etcd-fio-fleet.XXXXXX", tmp && *tmp ? tmp : "/tmp");
        if (!mkdtemp(f.work)) {
            fprintf(stderr, "etcd-fio fleet: %s: %s\n", f.work, strerror(errno));
            goto out;
        }
        f.own_work = 1;
    }

    struct sigaction sa, old_int, old_term;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop;
    sigemptyset(&sa.sa_mask);
    stop_requested = 0;
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);

    if (local_fio_version(&f, err, sizeof err) || preflight(&f, err, sizeof err)) {
        fprintf(stderr, "etcd-fio fleet: %s\n", err);
        goto cleanup;
    }
    for (size_t i = 0; i < f.n; i++)
        if (f.h[i].st != HS_OK)
            fprintf(stderr, "etcd-fio fleet: %s: %s: %s\n", f.h[i].spec, status_names[f.h[i].st], f.h[i].msg);

    if (stop_requested) {
        fprintf(stderr, "etcd-fio fleet: interrupted before the run\n");
        goto cleanup;
    }
    char raw_path[PATH_MAX + 32];
    snprintf(raw_path, sizeof raw_path, "%s/run.json", f.work);
    if (run_profile(&f, raw_path, err, sizeof err)) {
        fprintf(stderr, "etcd-fio fleet: %s\n", err);
        f.own_work = 0;  /* keep the evidence */
        goto cleanup;
    }
    size_t raw_len = 0;
    char *raw = NULL;
    int ran = 0;
    for (size_t i = 0; i < f.n; i++)
        ran |= f.h[i].st == HS_OK;
    if (ran) {
        raw = slurp(raw_path, &raw_len);
        fior_report *r = fior_report_new();
        if (!r || !raw) {
            fprintf(stderr, "etcd-fio fleet: %s: %s\n", raw_path, raw ? "out of memory" : strerror(errno));
            fior_report_free(r);
            free(raw);
            goto cleanup;
        }
        if (fior_parse_buffer(r, raw_path, raw, raw_len) != FIOR_OK) {
            /* Typically every host failed to start its jobs: they stay UNKNOWN with the servers' own
             * messages as reasons (explain_missing). */
            fprintf(stderr, "etcd-fio fleet: no results in fio's output (%s)\n", fior_report_error(r));
        } else {
            judge_results(&f, r);
        }
        fior_report_free(r);
    }
    finish_hosts(&f, raw);
    free(raw);
    qsort(f.h, f.n, sizeof *f.h, host_cmp);

    fior_verdict overall = FIOR_PASS;
    for (size_t i = 0; i < f.n; i++)
        if (verdict_rank(f.h[i].verdict) < verdict_rank(overall))
            overall = f.h[i].verdict;
    if (stop_requested) {
        fprintf(stderr, "etcd-fio fleet: interrupted: the run was cut short, hosts judged on what was measured\n");
        if (overall == FIOR_PASS)
            overall = FIOR_UNKNOWN;  /* a shortened run is no PASS (a measured FAIL stays one) */
    }

    if (f.json)
        print_json(&f, overall);
    else
        print_table(&f, overall);
    rc = overall == FIOR_PASS ? 0 : overall == FIOR_FAIL ? 1 : 2;

    if (f.prom_file && write_prom(&f, overall))
        rc = 2;

cleanup:
    if (f.own_work && rm_work(f.work, f.n))
        fprintf(stderr, "etcd-fio fleet: could not remove %s: %s\n", f.work, strerror(errno));
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    goto out;
bad:
    fprintf(stderr, "etcd-fio fleet: %s\n", err);
    rc = 2;
out:
    free(f.h);
    fior_result_free(f.res);
    return rc;
}
