/* SPDX-License-Identifier: MIT */
/* fleet_hosts.c — the host list of `etcd-fio fleet` (--client / --clients FILE) and the reading of each
 * server's probe reply. Pure: no I/O (tests/test_fleet.c). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "fleet.h"

void fleet_printable(char *dst, size_t n, const char *src, size_t len)
{
    if (!n)
        return;
    size_t k = 0;
    for (size_t i = 0; src && i < len && k + 1 < n; i++) {
        unsigned char c = (unsigned char)src[i];
        dst[k++] = c == '\n' || c == '\r' || c == '\t' ? ' ' : c >= 0x20 && c < 0x7f ? (char)c : '?';
    }
    dst[k] = '\0';
}

const char *fleet_status_name(host_status s)
{
    static const char *const names[] = {"ok", "unreachable", "fio-version", "no-engine", "probe-failed",
                                        "no-results", "interrupted", "judged"};
    return (unsigned)s < sizeof names / sizeof names[0] ? names[s] : "?";
}

int fleet_add_host(fleet *f, const char *spec_in, const char *dir, const char *where, char *err, size_t errlen)
{
    char buf[sizeof f->h[0].spec], spec[200]; /* spec: printable, for messages */
    fleet_printable(spec, sizeof spec, spec_in, strlen(spec_in));
    if (!*spec_in || strlen(spec_in) >= sizeof buf) {
        cli_msg(err, errlen, "%s: bad client '%s' (expected HOST[,PORT])", where, spec);
        return -1;
    }
    snprintf(buf, sizeof buf, "%s", spec_in);
    int port = FLEET_DEFAULT_PORT;
    char *comma = strrchr(buf, ',');
    if (comma) {
        char *end;
        errno = 0;
        long p = strtol(comma + 1, &end, 10);
        if (comma[1] == '\0' || *end || errno || p < 1 || p > 65535) {
            cli_msg(err, errlen, "%s: bad port '%s' in '%s' (expected HOST[,PORT], PORT 1-65535)", where, comma + 1,
                    spec);
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
    if (!*name || strpbrk(name, " \t#;\n,") || !strncmp(buf, "sock:", 5)) {
        cli_msg(err, errlen, "%s: bad host in '%s' (expected HOST[,PORT]; unix sockets are not supported)", where, spec);
        return -1;
    }
    for (size_t i = 0; i < f->n; i++)
        if (!strcmp(f->h[i].name, name) && f->h[i].port == port) {
            cli_msg(err, errlen, "%s: %s,%d is listed twice", where, name, port);
            return -1;
        }
    if (dir && strlen(dir) >= sizeof f->h[0].dir) {
        cli_msg(err, errlen, "%s: directory too long", where);
        return -1;
    }
    if (dir && dir[0] != '/') {
        cli_msg(err, errlen, "%.400s: directory '%.400s' must be absolute (it is a path on the server)", where, dir);
        return -1;
    }
    char e2[600];
    if (dir && cli_dir_ok(dir, e2, sizeof e2)) {
        cli_msg(err, errlen, "%.200s: %s", where, e2);
        return -1;
    }
    if (f->n == f->cap) {
        size_t cap = f->cap ? f->cap * 2 : 8;
        fleet_host *nh = realloc(f->h, cap * sizeof *nh);
        if (!nh) {
            cli_msg(err, errlen, "out of memory");
            return -1;
        }
        f->h = nh;
        f->cap = cap;
    }
    fleet_host *h = &f->h[f->n++];
    memset(h, 0, sizeof *h);
    cli_msg(h->spec, sizeof h->spec, "%.250s,%d", buf, port);
    cli_msg(h->name, sizeof h->name, "%.250s", name);
    h->port = port;
    if (dir)
        cli_msg(h->dir, sizeof h->dir, "%s", dir);
    return 0;
}

int fleet_each_line(const char *path, const char *text, size_t textlen, int max, const char *usage, fleet_line_fn fn,
                    void *ctx, char *err, size_t errlen)
{
    size_t lineno = 0;
    int any = 0;
    for (const char *p = text, *end = text + textlen; p < end;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
        lineno++;
        char line[4096], where[PATH_MAX + 32];
        cli_msg(where, sizeof where, "%s:%zu", path, lineno);
        if (len >= sizeof line) {
            cli_msg(err, errlen, "%s: line too long", where);
            return -1;
        }
        /* a NUL would silently end the line (and the hosts after it) */
        if (memchr(p, '\0', len)) {
            cli_msg(err, errlen, "%s: a NUL byte in the line (expected %s)", where, usage);
            return -1;
        }
        memcpy(line, p, len);
        line[len] = '\0';
        p = nl ? nl + 1 : end;
        char *hash = strchr(line, '#'); /* a comment: a directory with '#' is refused anyway */
        if (hash)
            *hash = '\0';
        char *save = NULL, *w[4];
        int n = 0;
        for (char *t = strtok_r(line, " \t\r", &save); t; t = strtok_r(NULL, " \t\r", &save)) {
            if (n == max) {
                char shown[200];
                fleet_printable(shown, sizeof shown, t, strlen(t));
                cli_msg(err, errlen, "%.600s: unexpected '%s' (expected %s)", where, shown, usage);
                return -1;
            }
            w[n++] = t;
        }
        if (!n)
            continue;
        if (fn(ctx, w, n, where, err, errlen))
            return -1;
        any = 1;
    }
    if (!any) {
        cli_msg(err, errlen, "%s: no hosts in the file (expected %s per line)", path, usage);
        return -1;
    }
    return 0;
}

static int client_line(void *ctx, char **w, int n, const char *where, char *err, size_t errlen)
{
    return fleet_add_host(ctx, w[0], n > 1 ? w[1] : NULL, where, err, errlen);
}

int fleet_parse_clients(fleet *f, const char *path, const char *text, size_t textlen, char *err, size_t errlen)
{
    return fleet_each_line(path, text, textlen, 2, "HOST[,PORT] [DIR]", client_line, f, err, errlen);
}

static void copy_line(char *dst, size_t len, const char *src)
{
    fleet_printable(dst, len, src, strcspn(src, "\r\n")); /* the server's words: never raw to a terminal */
}

void fleet_judge_probe(const fleet *f, fleet_host *h, const char *txt, int rc)
{
    const char *p = txt ? txt : "";
    const char *first_err = NULL, *no_engine = NULL, *conn = NULL;
    int have_probe = 0, dropped = 0;
    while (*p) {
        const char *line = p, *nl = strchr(p, '\n');
        p = nl ? nl + 1 : p + strlen(p);
        /* hostname=vm, be=0, 64-bit, os=Linux, arch=x86-64, fio=fio-3.33, flags=1 (client.c handle_probe) */
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
    /* the server's own words, for the table: printable (in place) */
    fleet_printable(h->server_name, sizeof h->server_name, h->server_name, strlen(h->server_name));
    fleet_printable(h->fio_version, sizeof h->fio_version, h->fio_version, strlen(h->fio_version));
    if (!have_probe) {
        h->st = HS_UNREACHABLE;
        if (rc == -1)
            cli_msg(h->msg, sizeof h->msg, "no answer within %d s (is `fio --server` running there?)",
                    FLEET_PROBE_TIMEOUT_S);
        else if (conn || first_err)
            copy_line(h->msg, sizeof h->msg, conn ? conn : first_err);
        else
            cli_msg(h->msg, sizeof h->msg, "no reply from a fio server (fio exit status %d)", rc);
        return;
    }
    if (strcmp(h->fio_version, f->local_version)) {
        h->st = HS_FIO_VERSION;
        cli_msg(h->msg, sizeof h->msg, "runs %s, this client and the engine are %s",
                h->fio_version[0] ? h->fio_version : "an unknown fio", f->local_version);
        return;
    }
    if (no_engine) {
        h->st = HS_NO_ENGINE;
        cli_msg(h->msg, sizeof h->msg, "engine not installed at %.400s on the server", f->engine);
        return;
    }
    if (dropped || first_err || rc != 0) {
        h->st = HS_PROBE_FAILED;
        char m[400] = "";
        if (first_err)
            copy_line(m, sizeof m, first_err);
        if (m[0])
            cli_msg(h->msg, sizeof h->msg, "the server rejected the job: %s", m);
        else
            cli_msg(h->msg, sizeof h->msg, "the server rejected the job (fio exit status %d)", rc);
        return;
    }
    h->st = HS_OK;
}
