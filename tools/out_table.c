/* SPDX-License-Identifier: MIT */
/* out_table.c — the human-readable writer of the result model (see out.h): the verdict line first (the
 * word, each role's judged percentile against its threshold, the time), one row per job with the columns
 * that fit the width, what an unknown or failed row needs said, and at most OUT_WHY why: lines; the
 * details, every row's reason and every why: line with verbose (-v). Every line fits the width. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "out.h"
#include "term.h"

enum { C_HOST, C_JOB, C_ROLE, C_N, C_P50, C_P99, C_P999, C_MAX, C_JUDGED, C_BOUND, C_LIMIT, C_V, NCOL };
#define CELL 300
#define OUT_WHY 3 /* why: lines shown by default */

void out_wrap(FILE *f, const char *first, int indent, const char *text, int width)
{
    term_wrap(f, first, indent, text, width);
}

static void host_cell(char *b, size_t n, const result_host *h)
{
    if (!h->host[0])
        cli_msg(b, n, "%s", "");
    else if (h->port < 0)
        cli_msg(b, n, "%s", h->host);
    else /* [v6]:port, as URLs write it, so the port stays readable */
        cli_msg(b, n, strchr(h->host, ':') ? "[%s]:%d" : "%s:%d", h->host, h->port);
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s && s[1] ? s + 1 : path;
}

/* The one input all jobs come from (verdict), or NULL when they come from several. */
static const char *shared_source(const result_run *r)
{
    const char *src = NULL;
    if (strcmp(r->command, "verdict")) /* only verdict's jobs come from files */
        return NULL;
    for (size_t i = 0; i < r->nhosts; i++)
        for (size_t k = 0; k < r->hosts[i].njobs; k++) {
            const char *s = r->hosts[i].jobs[k].source;
            if (!s[0] || (src && strcmp(src, s)) || r->hosts[i].jobs[k].run > 1) /* FILE#2 needs its name */
                return NULL;
            src = s;
        }
    return src;
}

const char *out_role_label(fior_role role)
{
    return role == FIOR_ROLE_WAL ? "WAL" : role == FIOR_ROLE_BACKEND ? "backend" : "check perf";
}

/* "5.41 ms..8.03 ms": the bound as every writer prints it. */
static void bound_text(char *b, size_t n, const result_job *j)
{
    char lo[32], hi[32];
    if (j->bound_lo_ns == RESULT_UNKNOWN || (j->bound_lo_ns == 0 && j->bound_hi_ns == RESULT_UNKNOWN)) /* bounds nothing */
        cli_msg(b, n, "-");
    else
        cli_msg(b, n, "%s..%s", cli_fmt_ns(lo, sizeof lo, j->bound_lo_ns),
                j->bound_hi_ns == RESULT_UNKNOWN ? "?" : cli_fmt_ns(hi, sizeof hi, j->bound_hi_ns));
}

/* A job's name in the table: its name; with verdict's inputs from several files, the file's base name
 * (and #RUN for the second run of a file) before it. */
static void job_cell(char *b, size_t n, const result_run *r, const result_host *h, const result_job *j, int shared)
{
    if (j->source[0] && !strcmp(r->command, "verdict") && !shared) {
        char run[24] = ""; /* FILE#2: the second fio run in a file of several (each is judged) */
        for (size_t i = 0; i < h->njobs; i++)
            if (h->jobs[i].run > 1 && !strcmp(h->jobs[i].source, j->source))
                snprintf(run, sizeof run, "#%u", j->run ? j->run : 1);
        cli_msg(b, n, "%.100s%s:%.100s", base_name(j->source), run, j->name[0] ? j->name : "-");
    } else {
        cli_msg(b, n, "%.100s", j->name[0] ? j->name : "-");
    }
}

static void row(char cells[NCOL][CELL], const result_run *r, const result_host *h, const result_job *j, int shared)
{
    for (int c = 0; c < NCOL; c++)
        cells[c][0] = '\0';
    host_cell(cells[C_HOST], CELL, h);
    if (!j) {
        cli_msg(cells[C_V], CELL, "%s", fior_verdict_name(h->verdict));
    } else {
        job_cell(cells[C_JOB], CELL, r, h, j, shared);
        cli_msg(cells[C_ROLE], CELL, "%s", out_role_label(j->role));
        if (j->samples == RESULT_UNKNOWN)
            cli_msg(cells[C_N], CELL, "?");
        else
            cli_msg(cells[C_N], CELL, "%llu", (unsigned long long)j->samples);
        cli_fmt_ns(cells[C_P50], CELL, j->p50_ns);
        cli_fmt_ns(cells[C_P99], CELL, j->p99_ns);
        cli_fmt_ns(cells[C_P999], CELL, j->p999_ns);
        cli_fmt_ns(cells[C_MAX], CELL, j->max_ns);
        cli_fmt_ns(cells[C_JUDGED], CELL, j->judged_ns);
        bound_text(cells[C_BOUND], CELL, j);
        cli_fmt_ns(cells[C_LIMIT], CELL, j->threshold_ns);
        cli_msg(cells[C_V], CELL, "%s", fior_verdict_name(j->verdict));
    }
    for (int c = 0; c < NCOL; c++) /* names and paths come from the inputs */
        term_clean(cells[c], CELL, cells[c]);
}

/* The bound column's heading: the level asked ("95 %"), "≥ 95 %" when a bound holds at a higher one. */
static void bound_head(char *b, size_t n, const result_run *r)
{
    int above = 0;
    for (size_t i = 0; i < r->nhosts; i++)
        for (size_t k = 0; k < r->hosts[i].njobs; k++) {
            const result_job *j = &r->hosts[i].jobs[k];
            if (j->bound_lo_ns != RESULT_UNKNOWN && j->bound_confidence > r->confidence + 5e-5)
                above = 1;
        }
    cli_msg(b, n, "BOUND %s%.4g %%", above ? "\xe2\x89\xa5 " : "", r->confidence * 100);
}

/* The grid: a row per job (a host without jobs gets one of its own); the columns that say something here,
 * each as wide as its widest cell, dropping the least needed ones until the row fits the width. -1 when out
 * of memory. */
static int grid(FILE *f, const result_run *r, int color, int width)
{
    char head_b[48], head_p[16];
    const char *shared = shared_source(r);
    cli_msg(head_p, sizeof head_p, "P%g", r->percentile);
    bound_head(head_b, sizeof head_b, r);
    const char *head[NCOL] = {"HOST", "JOB", "ROLE", "SAMPLES", "P50", "P99", "P99.9", "MAX", head_p, head_b, "LIMIT",
                              "VERDICT"};
    int show[NCOL];
    for (int c = 0; c < NCOL; c++)
        show[c] = 1;
    show[C_HOST] = 0;
    for (size_t i = 0; i < r->nhosts; i++)
        show[C_HOST] |= r->hosts[i].host[0] && strcmp(r->command, "check") != 0;
    show[C_JOB] = strcmp(r->command, "check") != 0;
    show[C_BOUND] = r->confidence > 0;
    show[C_JUDGED] = r->percentile != 99.0; /* the judged percentile, when it is not the p99 column */
    size_t nrows = 0, njobs = 0;
    for (size_t i = 0; i < r->nhosts; i++)
        nrows += r->hosts[i].njobs ? r->hosts[i].njobs : 1, njobs += r->hosts[i].njobs;
    if (!njobs && strcmp(r->command, "fleet")) /* no job: no table (the first line said why) */
        return 0;
    char (*cells)[NCOL][CELL] = calloc(nrows ? nrows : 1, sizeof *cells);
    if (!cells)
        return -1;
    size_t k = 0;
    for (size_t i = 0; i < r->nhosts; i++) {
        const result_host *h = &r->hosts[i];
        if (!h->njobs)
            row(cells[k++], r, h, NULL, shared != NULL);
        for (size_t j = 0; j < h->njobs; j++)
            row(cells[k++], r, h, &h->jobs[j], shared != NULL);
    }
    int w[NCOL], total = 1;
    for (int c = 0; c < NCOL; c++) {
        w[c] = term_cols(head[c]);
        for (size_t i = 0; i < nrows; i++)
            if (term_cols(cells[i][c]) > w[c])
                w[c] = term_cols(cells[i][c]);
        total += show[c] ? w[c] + 1 : 0;
    }
    static const int drop[] = {C_P50, C_LIMIT, C_P999, C_N, C_MAX, C_ROLE};
    for (size_t d = 0; d < sizeof drop / sizeof *drop && total > width; d++)
        if (show[drop[d]])
            show[drop[d]] = 0, total -= w[drop[d]] + 1;
    if (shared)
        out_wrap(f, "  file: ", 4, shared, width);
    if (total > width) /* still too wide: the names give way, cut at their start ("..." + the end) */
        for (int c = C_HOST; c <= C_JOB; c++)
            if (show[c] && total > width && w[c] > 12) {
                int cut = total - width < w[c] - 12 ? total - width : w[c] - 12;
                w[c] -= cut, total -= cut;
                for (size_t i = 0; i < nrows; i++) {
                    char *s = cells[i][c];
                    int len = (int)strlen(s);
                    if (len > w[c])
                        memmove(s, "...", 3), memmove(s + 3, s + len - (w[c] - 3), (size_t)(w[c] - 3) + 1);
                }
            }
    int last = C_V;
    fputs(" ", f);
    for (int c = 0; c < NCOL; c++)
        if (show[c])
            fprintf(f, c == last ? " %s" : " %s%*s", head[c], w[c] - term_cols(head[c]), "");
    fputc('\n', f);
    for (size_t i = 0; i < nrows; i++) {
        fputs(" ", f);
        for (int c = 0; c < NCOL; c++) {
            if (!show[c])
                continue;
            const char *t = cells[i][c];
            int pad = c == last ? 0 : w[c] - term_cols(t);
            if (c == C_V && color) { /* the escape codes take no columns */
                fior_verdict v = FIOR_NOT_JUDGED;
                fior_verdict_from_name(t, &v);
                fprintf(f, " %s%s%s", term_verdict_on(color, v), t, term_off(color));
            } else {
                fprintf(f, " %s%*s", t, pad, "");
            }
        }
        fputc('\n', f);
    }
    free(cells);
    return 0;
}

/* The worst job of a role over all hosts (fail, unknown, pass; then the highest value), NULL for none
 * judged. */
static const result_job *worst_of(const result_run *r, fior_role role, size_t *n)
{
    const result_job *w = NULL;
    *n = 0;
    for (size_t i = 0; i < r->nhosts; i++)
        for (size_t k = 0; k < r->hosts[i].njobs; k++) {
            const result_job *j = &r->hosts[i].jobs[k];
            if (j->role != role || j->verdict == FIOR_NOT_JUDGED)
                continue;
            (*n)++;
            uint64_t v = j->judged_ns == RESULT_UNKNOWN ? 0 : j->judged_ns, wv = w && w->judged_ns != RESULT_UNKNOWN ? w->judged_ns : 0;
            if (!w || result_rank(j->verdict) < result_rank(w->verdict) ||
                (result_rank(j->verdict) == result_rank(w->verdict) && v > wv))
                w = j;
        }
    return w;
}

/* The verdict line: "pass: WAL p99 1.93 ms < 10 ms, backend p99 3.1 ms < 25 ms (41 s)", as much of it as
 * fits the width (then without "p99", then cut). */
static int verdict_line(FILE *f, const result_run *r, int color, int width)
{
    static const fior_role roles[] = {FIOR_ROLE_WAL, FIOR_ROLE_BACKEND, FIOR_ROLE_CHECK_PERF};
    char line[3][600];
    size_t files = 0;
    for (size_t i = 0; i < r->nhosts; i++)
        for (size_t k = 0; k < r->hosts[i].njobs; k++) {
            const result_job *j = &r->hosts[i].jobs[k];
            int seen = 0;
            for (size_t i2 = 0; i2 <= i && !seen; i2++)
                for (size_t k2 = 0; k2 < (i2 == i ? k : r->hosts[i2].njobs); k2++)
                    seen |= !strcmp(r->hosts[i2].jobs[k2].source, j->source);
            files += j->source[0] && !seen;
        }
    for (int level = 0; level < 3; level++) { /* each level shorter than the one before */
        char *b = line[level];
        size_t o = 0;
        b[0] = '\0';
        for (size_t k = 0; k < sizeof roles / sizeof *roles; k++) {
            size_t n;
            const result_job *j = worst_of(r, roles[k], &n);
            if (!j)
                continue;
            char v[32], t[32];
            /* the judged value; for an unknown that has none, the p99 the table shows (its estimate) */
            uint64_t val = j->judged_ns != RESULT_UNKNOWN ? j->judged_ns : r->percentile == 99.0 ? j->p99_ns : RESULT_UNKNOWN;
            cli_fmt_ns(v, sizeof v, val);
            /* against the threshold only where it is a verdict: an unproven estimate says so instead */
            int judged = j->verdict == FIOR_PASS || j->verdict == FIOR_FAIL;
            const char *cmp = !judged ? " " : val == RESULT_UNKNOWN || j->threshold_ns == RESULT_UNKNOWN ? ""
                              : val < j->threshold_ns ? " < " : " >= ";
            if (!judged)
                cli_msg(t, sizeof t, "(%s)", fior_verdict_name(j->verdict));
            else if (j->threshold_ns == RESULT_UNKNOWN || val == RESULT_UNKNOWN)
                t[0] = '\0';
            else
                cli_fmt_ns(t, sizeof t, j->threshold_ns);
            char pl[16];
            cli_msg(pl, sizeof pl, "p%g ", r->percentile);
            o += (size_t)snprintf(b + o, o < 600 ? 600 - o : 0, "%s%s%s %s%s%s%s", o ? ", " : "",
                                  n > 1 && level == 0 ? "worst " : "", out_role_label(roles[k]), level < 2 ? pl : "", v, cmp, t);
            if (o >= 600)
                o = 599;
        }
        if (r->nhosts > 1 && strcmp(r->command, "verdict"))
            o += (size_t)snprintf(b + o, o < 600 ? 600 - o : 0, "%s%zu hosts", o ? "; " : "", r->nhosts);
        else if (files > 1)
            o += (size_t)snprintf(b + o, o < 600 ? 600 - o : 0, "%s%zu files", o ? "; " : "", files);
        else if (o && r->nhosts == 1 && r->hosts[0].duration_s >= 0)
            o += (size_t)snprintf(b + o, o < 600 ? 600 - o : 0, " (%.0f s)", r->hosts[0].duration_s);
        if (!o)
            b[0] = '\0';
    }
    if (!line[0][0]) { /* no figure to show: the reason is the answer */
        const char *why = r->nhosts == 1 && r->hosts[0].reason[0] ? r->hosts[0].reason : r->reason[0] ? r->reason
                                                                                                      : "nothing judged";
        /* the word (coloured: its escape codes count as columns here, so the line is only ever shorter) */
        char first[64];
        snprintf(first, sizeof first, "%s%s%s: ", term_verdict_on(color, r->verdict), fior_verdict_name(r->verdict),
                 term_off(color));
        char *t = strdup(why);
        if (!t)
            return 0;
        out_wrap(f, first, 2, t, width);
        free(t);
        return 1;
    }
    const char *b = line[2];
    for (int l = 0; l < 3; l++)
        if (line[l][0] && (int)strlen(fior_verdict_name(r->verdict)) + 2 + term_cols(line[l]) <= width) {
            b = line[l];
            break;
        }
    char cut[600];
    cli_msg(cut, sizeof cut, "%s", b);
    int room = width - (int)strlen(fior_verdict_name(r->verdict)) - 2;
    if (room > 3 && term_cols(cut) > room) {
        size_t at = 0;
        for (int c = 0; cut[at] && c < room - 3; at++)
            c += ((unsigned char)cut[at + 1] & 0xC0) != 0x80;
        memcpy(cut + at, "...", 4);
    }
    fprintf(f, "%s%s%s: %s\n", term_verdict_on(color, r->verdict), fior_verdict_name(r->verdict), term_off(color),
            cut);
    return 0;
}

/* Below the grid: why the answer is not a plain pass or fail (the run's or each host's reason), the rows'
 * reasons that say more than the row (unknown; all of them with verbose), the details (verbose), the why:
 * lines, and for fleet's several hosts the count by verdict (the first line has scrolled away). */
/* Do the rows' reasons say all of the host's? The host's sentence is theirs joined by "; " (the decided
 * roles' figures, which the table shows, among them): then the undecided rows' reasons are printed, under
 * their roles, and the host's is not printed again. Anything else in it (interrupted, the run's end) keeps
 * it. */
static int rows_say_reason(const result_host *h)
{
    char rest[sizeof h->reason];
    size_t undecided = 0;
    snprintf(rest, sizeof rest, "%s", h->reason);
    for (size_t k = 0; k < h->njobs; k++) {
        const result_job *j = &h->jobs[k];
        char *at = j->reason[0] ? strstr(rest, j->reason) : NULL;
        if (!at)
            continue;
        memset(at, ';', strlen(j->reason));
        undecided += j->verdict != FIOR_PASS && j->verdict != FIOR_FAIL;
    }
    for (const char *c = rest; *c; c++)
        if (*c != ';' && *c != ' ')
            return 0;
    return undecided > 0;
}

/* What the notes printed above the why: lines, so that an undecided why: line that only repeats one of them
 * ("WAL fdatasync of job X: " + a row's reason, "HOST: " + a host's) is only its command. */
typedef struct said_list {
    const char *s[64];
    size_t      n;
} said_list;

static void said_add(said_list *l, const char *s)
{
    if (s && s[0] && l->n < sizeof l->s / sizeof l->s[0])
        l->s[l->n++] = s;
}

/* why is one of them, or one of them after a "LABEL: " lead-in */
static int said_before(const said_list *l, const char *why)
{
    size_t wl = strlen(why);
    for (size_t i = 0; i < l->n; i++) {
        size_t sl = strlen(l->s[i]);
        if (sl <= wl && !strcmp(why + wl - sl, l->s[i]) && (sl == wl || (wl - sl >= 2 && !strncmp(why + wl - sl - 2, ": ", 2))))
            return 1;
    }
    return 0;
}

static void notes(FILE *f, const result_run *r, int width, int run_said)
{
    int verbose = r->verbose;
    said_list said = {{0}, 0};
    int one = r->nhosts == 1 && strcmp(r->command, "fleet");
    if (run_said) /* the verdict line said it */
        said_add(&said, r->nhosts == 1 && r->hosts[0].reason[0] ? r->hosts[0].reason : r->reason);
    if (one && !run_said && (verbose || (r->hosts[0].verdict != FIOR_PASS && r->hosts[0].verdict != FIOR_FAIL) ||
                r->hosts[0].basis == RESULT_BASIS_POINT) && strcmp(r->command, "verdict")) {
        said_add(&said, r->hosts[0].reason); /* here, or by its rows */
        if (verbose || !rows_say_reason(&r->hosts[0])) {
            out_wrap(f, "  ", 2, r->hosts[0].reason, width);
            run_said = 1;
        }
    }
    for (size_t i = 0; !one && i < r->nhosts; i++) { /* fleet's hosts: each one's verdict and why */
        const result_host *h = &r->hosts[i];
        if (!verbose && h->verdict == FIOR_PASS)
            continue;
        char hc[300], first[400];
        host_cell(hc, sizeof hc, h);
        term_clean(hc, sizeof hc, hc);
        if (!hc[0])
            continue;
        cli_msg(first, sizeof first, "  %s: %s (%s): ", hc, fior_verdict_name(h->verdict), h->status);
        out_wrap(f, first, 4, h->reason, width);
        said_add(&said, h->reason);
    }
    for (size_t i = 0; i < r->nhosts; i++)
        for (size_t k = 0; k < r->hosts[i].njobs; k++) {
            const result_job *j = &r->hosts[i].jobs[k];
            int says = j->verdict != FIOR_PASS && j->verdict != FIOR_FAIL && j->reason[0] && !run_said;
            if (says && !one && r->hosts[i].reason[0] && strstr(r->hosts[i].reason, j->reason) &&
                (verbose || r->hosts[i].verdict != FIOR_PASS))
                says = 0; /* fleet: its host's line above says it */
            if (!verbose && !says)
                continue;
            said_add(&said, j->reason);
            char name[CELL], first[CELL + 16];
            job_cell(name, sizeof name, r, &r->hosts[i], j, shared_source(r) != NULL);
            if (!strcmp(r->command, "check"))
                cli_msg(name, sizeof name, "%s", out_role_label(j->role));
            term_clean(name, sizeof name, name);
            cli_msg(first, sizeof first, "  %s: ", name);
            out_wrap(f, first, 4, j->reason, width);
        }
    /* a pass whose input shows nothing of where its syncs went says so, once, in one clause */
    size_t inferred = 0;
    for (size_t i = 0; i < r->nhosts; i++)
        for (size_t k = 0; k < r->hosts[i].njobs; k++)
            inferred += r->hosts[i].jobs[k].medium && !strcmp(r->hosts[i].jobs[k].medium, "inferred");
    if (inferred)
        out_wrap(f, "  ", 4, inferred == 1 ? "a disk under its syncs is inferred from the latencies: the input "
                 "does not show it (no disk stats)" : "a disk under their syncs is inferred from the latencies: "
                 "the input does not show it (no disk stats)", width);
    for (size_t i = 0; verbose && i < r->ndetails; i++) {
        char first[64];
        cli_msg(first, sizeof first, "  %-17s ", r->details[i].label);
        out_wrap(f, first, 20, r->details[i].text ? r->details[i].text : "", width);
    }
    /* the first OUT_WHY lines (all with -v), and always a line that carries the next command to run */
    size_t nwhy = verbose || r->nexplain <= OUT_WHY ? r->nexplain : OUT_WHY, hidden = 0;
    for (size_t i = 0; i < r->nexplain; i++) {
        if (i >= nwhy && !r->explain[i].next[0]) {
            hidden++;
            continue;
        }
        /* the answer's own reason, said above: only the command that would decide it */
        if (!verbose && r->explain[i].next[0] && !strcmp(r->explain[i].rule, "undecided") &&
            said_before(&said, r->explain[i].why)) {
            out_wrap(f, "  run: ", 7, r->explain[i].next, width);
            continue;
        }
        char *t = NULL;
        if (asprintf(&t, "%s [%s]", r->explain[i].why, r->explain[i].rule) < 0)
            continue;
        out_wrap(f, "  why: ", 7, t, width);
        free(t);
        out_wrap(f, "       -> ", 10, r->explain[i].advice, width);
        if (r->explain[i].next[0])
            out_wrap(f, "       run: ", 12, r->explain[i].next, width);
    }
    if (hidden)
        fprintf(f, "  (%zu more why: line%s with -v)\n", hidden, hidden > 1 ? "s" : "");
    if (!strcmp(r->command, "fleet") && r->nhosts > 1) {
        size_t n[4] = {0, 0, 0, 0};
        for (size_t i = 0; i < r->nhosts; i++)
            n[result_rank(r->hosts[i].verdict)]++;
        char t[300];
        cli_msg(t, sizeof t, "%s: %s (%zu hosts: %zu fail, %zu unknown, %zu pass%s%s%s%s)", r->command,
                fior_verdict_name(r->verdict), r->nhosts, n[0], n[1] + n[2], n[3], r->load ? "; load " : "",
                r->load ? r->load : "", r->fio_version[0] ? ", " : "", r->fio_version);
        out_wrap(f, "", 2, t, width);
    }
}

int out_width(FILE *f)
{
    int fd = fileno(f);
    if (fd >= 0 && isatty(fd))
        return term_width(fd);
    const char *c = getenv("COLUMNS"); /* exported on purpose: a pipe that wants another width */
    int w = c ? atoi(c) : 0;
    return w >= 40 && w <= 1000 ? w : 80;
}

void out_table(FILE *f, const result_run *r)
{
    int color = term_color(f), width = out_width(f);
    int said = verdict_line(f, r, color, width);
    if (grid(f, r, color, width) == 0)
        notes(f, r, width, said);
}
