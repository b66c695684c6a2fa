/* SPDX-License-Identifier: MIT */
/* fleet_ssh.c — the ssh transport of `etcd-fio fleet`, pure part (tests/test_fleet_ssh.c): the --ssh host
 * list ([USER@]HOST[:DIR] on the command line or one per line of a file), the remote command and ssh's argv.
 *
 * ssh hands the remote user's shell one command string (sshd runs `$SHELL -c STRING`), so every word of it is
 * single-quoted here, and the words that come from the operator (DIR, --remote-etcd-fio) are refused unless
 * every shell reads them the same inside single quotes (sh, bash, zsh, csh and fish differ on \ and !).
 * Hosts are refused unless they are plain names, addresses or ssh_config aliases: a "host" starting with '-'
 * would be an ssh option (-oProxyCommand=...), and ssh's argv ends its options with "--" anyway. Nothing
 * the remote prints is ever put into a command; fleet_printable() (fleet_hosts.c) makes it fit for a terminal. */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"
#include "fleet.h"

int fleet_is_loopback(const char *host)
{
    if (!strcasecmp(host, "localhost") || !strcasecmp(host, "localhost.localdomain") ||
        !strcasecmp(host, "ip6-localhost") || !strcasecmp(host, "ip6-loopback"))
        return 1;
    struct in_addr a;
    if (inet_pton(AF_INET, host, &a) == 1)
        return (ntohl(a.s_addr) >> 24) == 127;
    struct in6_addr b;
    if (inet_pton(AF_INET6, host, &b) == 1)
        return IN6_IS_ADDR_LOOPBACK(&b) || (IN6_IS_ADDR_V4MAPPED(&b) && b.s6_addr[12] == 127);
    return 0;
}

int fleet_remote_word_ok(const char *what, const char *s, char *err, size_t errlen)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (*p < 0x20 || *p >= 0x7f || strchr("'\"\\`$!", *p)) {
            char shown[120];
            fleet_printable(shown, sizeof shown, s, strlen(s));
            cli_msg(err, errlen, "%s '%s': byte %zu (%s) cannot go to the remote shell (printable ASCII without "
                    "' \" \\ ` $ ! only)", what, shown, (size_t)(p - (const unsigned char *)s) + 1,
                    *p < 0x20 || *p >= 0x7f ? "not printable ASCII" : "a shell quote or expansion character");
            return -1;
        }
    return 0;
}

static int name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
           c == '-';
}

/* [A-Za-z0-9._-]+ not starting with '-' or '.', at most max bytes */
static int plain_name(const char *s, size_t len, size_t max)
{
    if (!len || len > max || s[0] == '-' || s[0] == '.')
        return 0;
    for (size_t i = 0; i < len; i++)
        if (!name_char(s[i]))
            return 0;
    return 1;
}

static int v6_literal(const char *s, size_t len)
{
    if (!len || len > 45)
        return 0;
    for (size_t i = 0; i < len; i++)
        if (!strchr("0123456789abcdefABCDEF:.", s[i]))
            return 0;
    return 1;
}

int fleet_add_ssh(fleet *f, const char *spec, const char *where, char *err, size_t errlen)
{
    char shown[200];
    size_t len = strlen(spec);
    fleet_printable(shown, sizeof shown, spec, len);
    const char *usage = "expected [USER@]HOST[:DIR]";
    if (!len || len >= sizeof f->s[0].spec) {
        cli_msg(err, errlen, "%s: bad host '%s' (%s)", where, shown, usage);
        return -1;
    }
    const char *at = strchr(spec, '@'), *rest = at ? at + 1 : spec;
    if (at && !plain_name(spec, (size_t)(at - spec), 64)) {
        cli_msg(err, errlen, "%s: bad user in '%s' (%s; a user is letters, digits, '.', '_', '-')", where, shown,
                usage);
        return -1;
    }
    const char *host = rest, *after;
    size_t hlen;
    int ok;
    if (rest[0] == '[') { /* [IPv6][:DIR] */
        const char *close = strchr(rest, ']');
        host = rest + 1;
        hlen = close ? (size_t)(close - host) : 0;
        after = close ? close + 1 : rest + strlen(rest);
        ok = close && v6_literal(host, hlen) && (*after == '\0' || *after == ':');
    } else {
        after = rest + strcspn(rest, ":");
        hlen = (size_t)(after - rest);
        ok = plain_name(host, hlen, 253);
    }
    if (!ok) {
        cli_msg(err, errlen, "%s: bad host in '%s' (%s; HOST is a name, an ssh_config alias, an IPv4 address or "
                "[IPv6], and never starts with '-')", where, shown, usage);
        return -1;
    }
    const char *dir = *after == ':' ? after + 1 : NULL;
    char e2[700];
    if (dir && (dir[0] != '/' || strlen(dir) >= sizeof f->s[0].dir)) {
        cli_msg(err, errlen, "%s: directory in '%s' must be absolute (it is a path on the host)", where, shown);
        return -1;
    }
    if (dir && (fleet_remote_word_ok("directory", dir, e2, sizeof e2) || cli_dir_ok(dir, e2, sizeof e2))) {
        cli_msg(err, errlen, "%.200s: %s", where, e2);
        return -1;
    }
    char dest[sizeof f->s[0].dest];
    cli_msg(dest, sizeof dest, "%.*s%.*s", at ? (int)(at - spec) + 1 : 0, spec, (int)hlen, host);
    for (size_t i = 0; i < f->ns; i++)
        if (!strcmp(f->s[i].dest, dest) && !strcmp(f->s[i].dir, dir ? dir : "")) {
            cli_msg(err, errlen, "%s: %s is listed twice", where, shown);
            return -1;
        }
    if (f->ns == FLEET_SSH_MAX_HOSTS) {
        cli_msg(err, errlen, "%s: more than %d ssh hosts in one run", where, FLEET_SSH_MAX_HOSTS);
        return -1;
    }
    if (f->ns == f->scap) {
        size_t cap = f->scap ? f->scap * 2 : 8;
        fleet_ssh *ns = realloc(f->s, cap * sizeof *ns);
        if (!ns) {
            cli_msg(err, errlen, "out of memory");
            return -1;
        }
        f->s = ns;
        f->scap = cap;
    }
    fleet_ssh *s = &f->s[f->ns++];
    memset(s, 0, sizeof *s);
    s->status = -1;
    cli_msg(s->spec, sizeof s->spec, "%s", spec);
    cli_msg(s->dest, sizeof s->dest, "%s", dest);
    if (dir)
        cli_msg(s->dir, sizeof s->dir, "%s", dir);
    return 0;
}

static int ssh_line(void *ctx, char **w, int n, const char *where, char *err, size_t errlen)
{
    (void)n; /* fleet_each_line gives at most one word */
    return fleet_add_ssh(ctx, w[0], where, err, errlen);
}

int fleet_parse_ssh_hosts(fleet *f, const char *path, const char *text, size_t textlen, char *err, size_t errlen)
{
    return fleet_each_line(path, text, textlen, 1, "[USER@]HOST[:DIR]", ssh_line, f, err, errlen);
}

/* Appends ' w ' (a ' inside as '\'', though fleet_remote_word_ok keeps them out of the operator's words). */
static int put_word(char *cmd, size_t len, size_t *pos, const char *w)
{
    size_t k = *pos;
    if (k && k < len)
        cmd[k++] = ' ';
    if (k < len)
        cmd[k++] = '\'';
    for (const char *c = w; *c; c++) {
        const char *piece = *c == '\'' ? "'\\''" : NULL;
        size_t pl = piece ? 4 : 1;
        if (k + pl >= len)
            return -1;
        memcpy(cmd + k, piece ? piece : c, pl);
        k += pl;
    }
    if (k + 1 >= len)
        return -1;
    cmd[k++] = '\'';
    cmd[k] = '\0';
    *pos = k;
    return 0;
}

int fleet_ssh_command(const fleet *f, const fleet_ssh *s, char *cmd, size_t len)
{
    char load[32], mt[48], ms[48], conf[48];
    cli_msg(load, sizeof load, "--load=%s", f->load);
    cli_msg(mt, sizeof mt, "--max-time=%.10g", f->max_time);
    cli_msg(ms, sizeof ms, "--min-syncs=%llu", (unsigned long long)f->min_syncs);
    cli_msg(conf, sizeof conf, "--confidence=%.10g", f->confidence);
    const char *w[16];
    size_t n = 0;
    w[n++] = f->remote_bin;
    w[n++] = "check";
    w[n++] = "--json";
    w[n++] = "--stop-on-eof"; /* closing (or losing) the session stops it: fleet_ssh_run.c */
    w[n++] = load;
    w[n++] = mt;
    if (f->min_syncs)
        w[n++] = ms;
    w[n++] = conf;
    if (f->accept_point)
        w[n++] = "--accept-point-estimate";
    if (f->full)
        w[n++] = "--full";
    if (f->faithful)
        w[n++] = "--faithful";
    w[n++] = "--";
    w[n++] = s->dir[0] ? s->dir : f->dir;
    size_t pos = 0;
    if (len)
        cmd[0] = '\0';
    for (size_t i = 0; i < n; i++)
        if (put_word(cmd, len, &pos, w[i]))
            return -1;
    return 0;
}

size_t fleet_ssh_argv(const fleet *f, const fleet_ssh *s, const char *cmd, const char **argv, size_t max)
{
    /* -T: no pty (the JSON comes on a clean pipe; no pty line discipline), never a prompt (BatchMode), no
     * agent or X11 forwarding and none of the config's port forwardings to a node that may be hostile, no
     * LocalCommand, no new control master left running after us (an existing one is used). ServerAlive*:
     * a host that goes away mid-run ends its ssh instead of waiting for --ssh-timeout. Everything else —
     * aliases, Port, User, ProxyJump, IdentityFile, known_hosts and StrictHostKeyChecking — is the user's
     * ssh_config: with BatchMode an unknown host key fails, unless the config says accept-new or no. */
    static const char *const opts[] = {"-T", "-oBatchMode=yes", "-oConnectTimeout=30", "-oServerAliveInterval=15",
                                       "-oServerAliveCountMax=4", "-oForwardAgent=no", "-oForwardX11=no",
                                       "-oClearAllForwardings=yes", "-oPermitLocalCommand=no", "-oControlMaster=no"};
    size_t n = 0;
    if (max < sizeof opts / sizeof opts[0] + 7)
        return 0;
    argv[n++] = f->ssh;
    for (size_t i = 0; i < sizeof opts / sizeof opts[0]; i++)
        argv[n++] = opts[i];
    if (f->ssh_config) {
        argv[n++] = "-F";
        argv[n++] = f->ssh_config;
    }
    argv[n++] = "--";
    argv[n++] = s->dest;
    argv[n++] = cmd;
    argv[n] = NULL;
    return n;
}
