/* SPDX-License-Identifier: MIT */
/* cli.c — the shared layer of the etcd-fio subcommands (see cli.h). */
#include "cli.h"
#include "term.h"
#include "engine_path.h"
#include "outfile.h"
#include "tmpdir.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void cli_msg(char *buf, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, n, fmt, ap);
    va_end(ap);
}

void cli_err(const cli_cmd *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *m = NULL;
    if (isatty(2) && vasprintf(&m, fmt, ap) >= 0) { /* a terminal: wrapped to its width */
        char first[64];
        snprintf(first, sizeof first, "etcd-fio %s: ", cmd ? cmd->name : "");
        term_wrap(stderr, first, 2, m, term_width(2));
        free(m);
    } else {
        fprintf(stderr, "etcd-fio %s: ", cmd ? cmd->name : "");
        vfprintf(stderr, fmt, ap);
        fputc('\n', stderr);
    }
    va_end(ap);
}

char *cli_read_file(const char *path, size_t max, size_t *len, char *err, size_t errlen)
{
    int fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) : 0;
    if (fd < 0) {
        cli_msg(err, errlen, "%s: %s", path, strerror(errno));
        return NULL;
    }
    size_t cap = 65536, n = 0;
    char *buf = malloc(cap + 1);
    for (;;) {
        if (!buf) {
            cli_msg(err, errlen, "%s: out of memory", path);
            break;
        }
        if (n == cap) {
            if (cap >= max) {
                cli_msg(err, errlen, "%s: larger than %zu bytes", path, max);
                free(buf);
                buf = NULL;
                break;
            }
            size_t nc = cap * 2 > max ? max : cap * 2;
            char *nb = realloc(buf, nc + 1);
            if (!nb) {
                free(buf);
                buf = NULL;
                continue;
            }
            buf = nb;
            cap = nc;
        }
        ssize_t r = read(fd, buf + n, cap - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            cli_msg(err, errlen, "%s: %s", path, strerror(errno));
            free(buf);
            buf = NULL;
            break;
        }
        if (r == 0) {
            buf[n] = '\0';
            if (len)
                *len = n;
            break;
        }
        n += (size_t)r;
    }
    if (fd > 0)
        close(fd);
    return buf;
}

int cli_engine_summary(const char *line, size_t len)
{
    static const char head[] = "etcdwal: ";
    if (len < sizeof head || strncmp(line, head, sizeof head - 1))
        return 0;
    const char *p = line + sizeof head - 1, *end = line + len;
    const char *c = memchr(p, ':', (size_t)(end - p));
    if (!c || c + 2 > end || c[1] != ' ' || memchr(p, ' ', (size_t)(c - p)))
        return 0; /* "etcdwal: JOB: ...", the job name has no spaces */
    p = c + 2;
    if ((size_t)(end - p) > 4 && !strncmp(p, "pid=", 4)) { /* "etcdwal: JOB: pid=P: ...", as the engine keys its lines */
        const char *q = p + 4;
        while (q < end && *q >= '0' && *q <= '9')
            q++;
        if (q == p + 4 || end - q < 2 || q[0] != ':' || q[1] != ' ')
            return 0;
        p = q + 2;
    }
    /* the engine's summary(), its backend marker, its kept-files line (engine/etcdwal_stats.c) and what its
     * directory is on (engine/etcdwal_medium.c): facts of the run, none the cause of a failure */
    static const char *const words[] = {" segments (", "first segment filled with ", "fdatasync n=",
                                        " clients: ", "backend ", "files kept in ", "medium disk: ",
                                        "medium unknown: ", "medium not a disk: "};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
        size_t wl = strlen(words[i]);
        const char *q = p;
        if (words[i][0] == ' ') /* a number first */
            while (q < end && *q >= '0' && *q <= '9')
                q++;
        if ((q > p || words[i][0] != ' ') && (size_t)(end - q) >= wl && !strncmp(q, words[i], wl) &&
            (strcmp(words[i], "backend ") || strstr(q, " commits, ")))
            return 1;
    }
    return 0;
}

void cli_last_line(const char *path, char *buf, size_t len)
{
    char err[16];
    size_t n = 0;
    buf[0] = '\0';
    char *t = cli_read_file(path, 1 << 20, &n, err, sizeof err);
    if (!t)
        return;
    /* the last line that says something: not blank, not one of the engine's summary lines (a run fio
     * ended is no failure of the engine's, and "fio exited with status 1: etcdwal: etcd-wal: 2 segments ..."
     * misleads) */
    for (;;) {
        while (n && (t[n - 1] == '\n' || t[n - 1] == '\r' || t[n - 1] == ' '))
            t[--n] = '\0';
        char *l = strrchr(t, '\n');
        char *start = l ? l + 1 : t;
        if (!n || !cli_engine_summary(start, strlen(start)))
            break;
        n = (size_t)(start - t);
        *start = '\0';
    }
    char *l = strrchr(t, '\n');
    const char *pick = l ? l + 1 : t;
    /* the engine's refusal to load into a fio it was not built for (engine/etcdwal.c) says what to do;
     * fio's own last line then is only "job ... dropped" */
    static const char refused[] = "etcdwal: this engine was built against";
    char *r = strncmp(t, refused, sizeof refused - 1) == 0 ? t : strstr(t, "\netcdwal: this engine was built against");
    if (r) {
        r += *r == '\n';
        r[strcspn(r, "\n")] = '\0';
        pick = r;
    }
    cli_msg(buf, len, "%s", pick);
    free(t);
}

int cli_tmpdir(const char *what, char *dir, size_t len, char *err, size_t errlen)
{
    const char *base = getenv("TMPDIR");
    base = base && *base ? base : "/tmp";
    char why[CLI_ERRLEN];
    if (outfile_etcd_dir(base, why, sizeof why)) { /* TMPDIR pointed among etcd's files: nothing of ours goes there */
        cli_msg(err, errlen, "TMPDIR=%s", why);
        return -1;
    }
    return tmpdir_make(base, what, dir, len, err, errlen);
}

void cli_tmpdir_remove(const char *dir)
{
    tmpdir_remove(dir);
}

static volatile int *stop_flag; /* cli_stop_on_signals: the running command's stop request */
static const int stop_sigs[3] = {SIGINT, SIGTERM, SIGHUP}; /* as cli_stop_saved.old */

static void on_stop(int sig)
{
    (void)sig;
    if (stop_flag)
        *stop_flag = 1;
}

void cli_stop_on_signals(volatile int *flag, unsigned flags, cli_stop_saved *saved)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop;
    sigemptyset(&sa.sa_mask);
    stop_flag = flag;
    if (saved)
        saved->flags = flags;
    for (int i = 0; i < 3; i++)
        if (stop_sigs[i] != SIGHUP || (flags & CLI_STOP_HUP))
            sigaction(stop_sigs[i], &sa, saved ? &saved->old[i] : NULL);
    if (flags & CLI_STOP_NOPIPE)
        signal(SIGPIPE, SIG_IGN);
}

void cli_stop_restore(const cli_stop_saved *saved)
{
    for (int i = 0; i < 3; i++)
        if (stop_sigs[i] != SIGHUP || (saved->flags & CLI_STOP_HUP))
            sigaction(stop_sigs[i], &saved->old[i], NULL);
}

int cli_exit_status(fior_verdict v)
{
    return v == FIOR_PASS ? 0 : v == FIOR_FAIL ? 1 : 2;
}

char *cli_fmt_ns(char *buf, size_t n, uint64_t ns)
{
    if (ns == CLI_NS_UNKNOWN) {
        cli_msg(buf, n, "?");
        return buf;
    }
    return fior_format_ns(buf, n, ns);
}

int cli_dir_ok(const char *dir, char *err, size_t errlen)
{
    /* fio's parser (parse.c/init.c): ';' and '#' start a comment anywhere on a job-file line, a newline
     * ends the value; ':' is fio's directory separator and is escaped by the profile writer instead. */
    /* and '$': fio replaces ${VAR} in every value, even when VAR is not set (options.c
     * fio_option_dup_subs), and $pagesize, $mb_memory, $ncpus (fio_keyword_replace): fio would write to and
     * measure another path than the one checked here */
    size_t len = strlen(dir);
    if (len >= PATH_MAX) { /* no system call takes it: say so, not ENAMETOOLONG later */
        cli_msg(err, errlen, "%.60s...: a path of %zu bytes (at most %d)", dir, len, PATH_MAX - 1);
        return -1;
    }
    static const struct { char c; const char *name; } bad[] = {{'#', "'#'"}, {';', "';'"}, {'\n', "a newline"},
                                                               {'\r', "a carriage return"}, {'$', "'$'"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (strchr(dir, bad[i].c)) {
            cli_msg(err, errlen, "%.*s: a path with %s cannot be given to fio (%s); rename it",
                    (int)strcspn(dir, "\r\n"), dir, bad[i].name,
                    bad[i].c == '$' ? "it replaces ${VAR} and $keywords in it, and would write and measure "
                                      "somewhere else" : "its job-file parser cuts the value there");
            return -1;
        }
    return 0;
}

const char *cli_fio(void)
{
    const char *f = getenv("FIO");
    if (f && *f)
        return f;
    static char bundled[PATH_MAX]; /* the same answer for the whole process */
    if (!bundled[0] && engine_path_bundled_fio(bundled, sizeof bundled) != 0)
        snprintf(bundled, sizeof bundled, "fio");
    return bundled;
}

void cli_hostname(char *buf, size_t len)
{
    if (gethostname(buf, len) != 0)
        buf[0] = '\0';
    buf[len - 1] = '\0';
}
