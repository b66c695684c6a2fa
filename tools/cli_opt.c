/* SPDX-License-Identifier: MIT */
/* cli_opt.c — the option table of the subcommands (cli.h): the getopt_long loop over it, the --help
 * text written from it, and the parsers of option values (numbers, byte counts, the judging criteria). */
#include "cli.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define HELP_COL   24  /* where an option's help starts */
#define HELP_WIDTH 81  /* lines of the help end before this column: 80 columns */

/* text wrapped at HELP_WIDTH, every line after the first indented by HELP_COL; col: where the text starts */
static void wrap(FILE *f, const char *text, size_t col)
{
    const char *p = text;
    int space = 0; /* a space is due before the next word on this line */
    while (*p) {
        size_t word = strcspn(p, " \n");
        if (col > HELP_COL && col + space + word >= HELP_WIDTH) {
            fprintf(f, "\n%*s", HELP_COL, "");
            col = HELP_COL;
            space = 0;
        }
        if (space)
            fputc(' ', f), col++;
        fwrite(p, 1, word, f);
        col += word;
        p += word;
        space = 0;
        if (*p == '\n') {
            fprintf(f, "\n%*s", HELP_COL, "");
            col = HELP_COL;
            p++;
        } else if (*p == ' ') {
            while (*p == ' ')
                p++;
            space = 1;
        }
    }
    fputc('\n', f);
}

static void help_line(FILE *f, const char *left, const char *help)
{
    int n = fprintf(f, "  %s", left);
    if (n + 2 > HELP_COL) {
        fprintf(f, "\n%*s", HELP_COL, "");
        n = HELP_COL;
    } else {
        fprintf(f, "%*s", HELP_COL - n, "");
        n = HELP_COL;
    }
    wrap(f, help, (size_t)n);
}

/* A usage or outro text at HELP_WIDTH: the lines of a paragraph (lines that do not start with a space or
 * "usage:") are joined and wrapped again; blank, "usage:" and indented lines are kept as they are. */
static void reflow(FILE *f, const char *text)
{
    const char *p = text;
    while (*p) {
        size_t len = strcspn(p, "\n");
        if (len == 0 || p[0] == ' ' || !strncmp(p, "usage:", 6)) {
            fwrite(p, 1, len, f);
            fputc('\n', f);
        } else {
            size_t col = 0;
            int space = 0;
            for (;;) { /* the paragraph's words, line by line */
                const char *q = p, *end = p + len;
                while (q < end) {
                    while (q < end && *q == ' ')
                        q++;
                    size_t word = 0;
                    while (q + word < end && q[word] != ' ')
                        word++;
                    if (!word)
                        break;
                    if (col && col + 1 + word >= HELP_WIDTH)
                        fputc('\n', f), col = 0, space = 0;
                    if (space)
                        fputc(' ', f), col++;
                    fwrite(q, 1, word, f);
                    col += word;
                    space = 1;
                    q += word;
                }
                const char *next = p[len] ? p + len + 1 : p + len;
                if (!*next || *next == '\n' || *next == ' ' || !strncmp(next, "usage:", 6))
                    break;
                p = next;
                len = strcspn(p, "\n");
            }
            fputc('\n', f);
        }
        p += len;
        if (*p)
            p++;
    }
}

void cli_help(FILE *f, const cli_cmd *cmd)
{
    reflow(f, cmd->usage);
    fputs("\nOptions (anywhere on the line; --opt=VALUE or --opt VALUE; -- ends them):\n", f);
    for (const cli_opt *o = cmd->opts; o && (o->name || o->help); o++) {
        if (!o->name) {
            reflow(f, o->help);
            continue;
        }
        char left[128];
        if (o->flags & CLI_SHORT)
            snprintf(left, sizeof left, "-%c, --%s", o->id, o->name);
        else
            snprintf(left, sizeof left, "--%s%s%s", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
        help_line(f, left, o->help);
    }
    help_line(f, "-h, --help", "this help");
    if (cmd->outro && cmd->outro[0]) {
        fputc('\n', f);
        reflow(f, cmd->outro);
    }
}

void cli_parse_init(cli_parse *p, const cli_cmd *cmd, int argc, char **argv)
{
    memset(p, 0, sizeof *p);
    p->cmd = cmd;
    p->argc = argc;
    p->argv = argv;
    size_t n = 0;
    snprintf(p->shortopts, sizeof p->shortopts, ":h");
    for (size_t i = 0; cmd->opts && (cmd->opts[i].name || cmd->opts[i].help); i++) {
        const cli_opt *o = &cmd->opts[i];
        if (!o->name || n == CLI_MAX_OPTS)
            continue; /* more than CLI_MAX_OPTS: test_cli's table test fails first */
        p->lo[n] = (struct option){o->name, o->arg ? required_argument : no_argument, NULL, o->id};
        size_t sl = strlen(p->shortopts);
        if ((o->flags & CLI_SHORT) && !o->arg && o->id > ' ' && o->id < 127 && sl + 1 < sizeof p->shortopts)
            p->shortopts[sl] = (char)o->id;
        p->map[n++] = (int)i;
    }
    p->lo[n] = (struct option){"help", no_argument, NULL, 'h'};
    p->map[n++] = -1;
    p->lo[n] = (struct option){NULL, 0, NULL, 0};
    optind = 0; /* 0: full re-initialisation of GNU getopt (a test may parse several command lines) */
    opterr = 0;
}

int cli_next(cli_parse *p)
{
    /* ':' first: a missing value is reported as ':' (not '?'); no '+': GNU getopt permutes, so options
     * may follow the operands (`check DIR --json`), and `--` ends the options. */
    int li = -1;
    int c = getopt_long(p->argc, p->argv, p->shortopts, p->lo, &li);
    p->optind = optind;
    p->arg = optarg;
    if (c == -1)
        return 0;
    if (c == 'h') {
        cli_help(stdout, p->cmd);
        return CLI_HELP;
    }
    if (c == ':') {
        cli_err(p->cmd, "option '%s' needs a value (see etcd-fio help %s)", p->argv[optind - 1], p->cmd->name);
        return CLI_ERR;
    }
    if (c == '?') {
        const char *a = p->argv[optind - 1];
        if (optopt && !(a[0] == '-' && a[1] == '-'))
            cli_err(p->cmd, "unknown option '-%c' (see etcd-fio help %s)", optopt, p->cmd->name);
        else
            cli_err(p->cmd, "unknown or ambiguous option '%.200s' (see etcd-fio help %s)", a, p->cmd->name);
        return CLI_ERR;
    }
    for (int i = 0; li < 0 && p->lo[i].name; i++) /* a CLI_SHORT letter: its long option's entry */
        if (p->map[i] >= 0 && (p->cmd->opts[p->map[i]].flags & CLI_SHORT) && p->lo[i].val == c)
            li = i;
    if (li < 0)
        return CLI_ERR;
    const cli_opt *o = p->map[li] >= 0 ? &p->cmd->opts[p->map[li]] : NULL;
    if (o && o->arg && !p->arg[0]) {
        cli_err(p->cmd, "--%s: an empty value (expected %s)", o->name, o->arg);
        return CLI_ERR;
    }
    if (o && p->seen[li] && !(o->flags & CLI_MULTI)) {
        cli_err(p->cmd, "--%s given twice (once is enough; see etcd-fio help %s)", o->name, p->cmd->name);
        return CLI_ERR;
    }
    p->seen[li] = 1;
    snprintf(p->optname, sizeof p->optname, "--%s", p->lo[li].name);
    return c;
}

const char *cli_optname(const cli_parse *p)
{
    return p->optname[0] ? p->optname : "option";
}

int cli_double(const cli_parse *p, double lo, double hi, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(p->arg, &end);
    if (errno || end == p->arg || *end || !isfinite(v) || v < lo || v > hi) {
        cli_err(p->cmd, "%s %.100s: expected a number from %g to %g", cli_optname(p), p->arg, lo, hi);
        return -1;
    }
    *out = v;
    return 0;
}

int cli_uint(const cli_parse *p, uint64_t lo, uint64_t hi, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(p->arg, &end, 10);
    if (errno || end == p->arg || *end || !isdigit((unsigned char)p->arg[0]) || v < lo || v > hi) {
        cli_err(p->cmd, "%s %.100s: expected a whole number from %llu to %llu", cli_optname(p), p->arg,
                (unsigned long long)lo, (unsigned long long)hi);
        return -1;
    }
    *out = v;
    return 0;
}

int cli_bytes(const cli_parse *p, uint64_t *out)
{
    char *end = NULL;
    errno = 0;
    unsigned long long b = isdigit((unsigned char)p->arg[0]) ? strtoull(p->arg, &end, 10) : 0;
    int shift = !end ? -1 : !*end ? 0 : !strcmp(end, "K") ? 10 : !strcmp(end, "M") ? 20 : !strcmp(end, "G") ? 30 : -1;
    if (errno || shift < 0 || b == 0 || b > (UINT64_MAX >> shift)) {
        cli_err(p->cmd, "%s %.100s: expected a byte count > 0 (K, M, G allowed)", cli_optname(p), p->arg);
        return -1;
    }
    *out = (uint64_t)b << shift;
    return 0;
}

int cli_criteria_opt(const cli_parse *p, int id, fior_criteria *c)
{
    double v;
    uint64_t n;
    switch (id) {
    case 'p':
        if (cli_double(p, 1e-9, 100 - 1e-9, &v))
            return -1;
        fior_criteria_set_percentile(c, v);
        return 1;
    case 'w':
    case 'b':
        if (cli_double(p, 1e-6, 1e9, &v))
            return -1;
        fior_criteria_set_threshold(c, id == 'w' ? FIOR_ROLE_WAL : FIOR_ROLE_BACKEND, (uint64_t)(v * 1e6 + 0.5));
        return 1;
    case 'n':
        if (cli_uint(p, 0, UINT64_MAX - 1, &n))
            return -1;
        fior_criteria_set_min_samples(c, n);
        return 1;
    }
    return 0;
}
