/* SPDX-License-Identifier: MIT */
/* out_table.c — the human-readable writer of the result model (see out.h). */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "out.h"
#include "term.h"

enum { C_HOST, C_JOB, C_ROLE, C_N, C_P50, C_P99, C_P999, C_MAX, C_JUDGED, C_BOUND, C_LIMIT, C_V, C_R, NCOL };
#define CELL 400

static void host_cell(char *b, size_t n, const rm_host *h)
{
    if (!h->host[0])
        cli_msg(b, n, "-");
    else if (h->port < 0)
        cli_msg(b, n, "%s", h->host);
    else /* [v6]:port, as URLs write it, so the port stays readable */
        cli_msg(b, n, strchr(h->host, ':') ? "[%s]:%d" : "%s:%d", h->host, h->port);
}

static void row(char cells[NCOL][CELL], const rm_run *r, const rm_host *h, const rm_job *j)
{
    host_cell(cells[C_HOST], CELL, h);
    if (!j) {
        for (int c = C_JOB; c < C_V; c++)
            cli_msg(cells[c], CELL, "-");
        cli_msg(cells[C_V], CELL, "%s", fior_verdict_name(h->verdict));
        cli_msg(cells[C_R], CELL, "%s: %s", h->status, h->reason);
        for (int c = 0; c < NCOL; c++)
            term_clean(cells[c], CELL, cells[c]);
        return;
    }
    if (j->source[0] && !strcmp(r->command, "verdict")) {
        size_t n = strlen(j->source); /* the end of a long path names the file */
        char run[24] = ""; /* FILE#2: the second fio run in a file of several (each is judged) */
        for (size_t i = 0; i < h->njobs; i++)
            if (h->jobs[i].run > 1 && !strcmp(h->jobs[i].source, j->source))
                snprintf(run, sizeof run, "#%u", j->run ? j->run : 1);
        cli_msg(cells[C_JOB], CELL, "%s%s%s:%.100s", n > 60 ? "..." : "", j->source + (n > 60 ? n - 57 : 0), run,
                j->name[0] ? j->name : "-");
    } else {
        cli_msg(cells[C_JOB], CELL, "%.100s", j->name[0] ? j->name : "-");
    }
    cli_msg(cells[C_ROLE], CELL, "%s", rm_role_name(j->role));
    if (j->samples == RM_UNKNOWN)
        cli_msg(cells[C_N], CELL, "?");
    else
        cli_msg(cells[C_N], CELL, "%llu", (unsigned long long)j->samples);
    cli_fmt_ns(cells[C_P50], CELL, j->p50_ns);
    cli_fmt_ns(cells[C_P99], CELL, j->p99_ns);
    cli_fmt_ns(cells[C_P999], CELL, j->p999_ns);
    cli_fmt_ns(cells[C_MAX], CELL, j->max_ns);
    cli_fmt_ns(cells[C_JUDGED], CELL, j->judged_ns);
    char lo[32], hi[32];
    if (j->bound_lo_ns == RM_UNKNOWN)
        cli_msg(cells[C_BOUND], CELL, "-");
    else
        cli_msg(cells[C_BOUND], CELL, "%s..%s", cli_fmt_ns(lo, sizeof lo, j->bound_lo_ns),
                j->bound_hi_ns == RM_UNKNOWN ? "?" : cli_fmt_ns(hi, sizeof hi, j->bound_hi_ns));
    cli_fmt_ns(cells[C_LIMIT], CELL, j->threshold_ns);
    cli_msg(cells[C_V], CELL, "%s", fior_verdict_name(j->verdict));
    cli_msg(cells[C_R], CELL, "%s", j->reason);
    for (int c = 0; c < NCOL; c++) /* names, paths and reasons come from the inputs */
        term_clean(cells[c], CELL, cells[c]);
}

/* The grid: a row per job (a host without jobs gets one of its own), each column as wide as its widest
 * cell, columns that say nothing here left out. -1 when out of memory. */
static int grid(FILE *f, const rm_run *r, int color)
{
    char head_b[48], head_p[16];
    cli_msg(head_p, sizeof head_p, "P%g", r->percentile);
    cli_msg(head_b, sizeof head_b, r->confidence > 0 ? "P99 %g%% BOUND" : "P99 BOUND", r->confidence * 100);
    const char *head[NCOL] = {"HOST", "JOB", "ROLE", "SAMPLES", "P50", "P99", "P99.9", "MAX", head_p, head_b, "LIMIT",
                              "VERDICT", "REASON"};
    int show[NCOL];
    for (int c = 0; c < NCOL; c++)
        show[c] = 1;
    show[C_HOST] = strcmp(r->command, "check") != 0;
    show[C_BOUND] = r->confidence > 0;
    show[C_JUDGED] = r->percentile != 99.0; /* the judged percentile, when it is not the p99 column */
    size_t nrows = 0;
    for (size_t i = 0; i < r->nhosts; i++)
        nrows += r->hosts[i].njobs ? r->hosts[i].njobs : 1;
    char (*cells)[NCOL][CELL] = calloc(nrows ? nrows : 1, sizeof *cells);
    if (!cells)
        return -1;
    size_t k = 0;
    for (size_t i = 0; i < r->nhosts; i++) {
        const rm_host *h = &r->hosts[i];
        if (!h->njobs)
            row(cells[k++], r, h, NULL);
        for (size_t j = 0; j < h->njobs; j++)
            row(cells[k++], r, h, &h->jobs[j]);
    }
    int w[NCOL];
    for (int c = 0; c < NCOL; c++) {
        w[c] = (int)strlen(head[c]);
        for (size_t i = 0; i < nrows; i++)
            if ((int)strlen(cells[i][c]) > w[c])
                w[c] = (int)strlen(cells[i][c]);
    }
    fputs(" ", f);
    for (int c = 0; c < C_R; c++)
        if (show[c])
            fprintf(f, " %-*s", w[c], head[c]);
    fprintf(f, " %s\n", head[C_R]);
    for (size_t i = 0; i < nrows; i++) {
        fputs(" ", f);
        for (int c = 0; c < C_R; c++) {
            if (!show[c])
                continue;
            if (c == C_V && color) { /* the escape codes take no columns: pad by the word itself */
                const char *t = cells[i][c];
                fior_verdict v = FIOR_NOT_JUDGED;
                fior_verdict_from_name(t, &v);
                fprintf(f, " %s%s%s%*s", term_verdict_on(color, v), t, term_off(color), w[c] - (int)strlen(t), "");
            } else {
                fprintf(f, " %-*s", w[c], cells[i][c]);
            }
        }
        fprintf(f, " %s\n", cells[i][C_R]);
    }
    free(cells);
    return 0;
}

/* Below the grid: fleet's hosts (each one's verdict and why; the jobs' rows say what each measured), the
 * details, the explain lines, and for more than one host the count by verdict. */
static void notes(FILE *f, const rm_run *r)
{
    for (size_t i = 0; !strcmp(r->command, "fleet") && i < r->nhosts; i++) {
        const rm_host *h = &r->hosts[i];
        char hc[300];
        host_cell(hc, sizeof hc, h);
        if (h->njobs) {
            fprintf(f, "  %s: %s (%s): ", term_clean(hc, sizeof hc, hc), fior_verdict_name(h->verdict), h->status);
            term_puts(f, h->reason);
            fputc('\n', f);
        }
    }
    for (size_t i = 0; i < r->ndetails; i++) {
        fprintf(f, "  %-17s ", r->details[i].label);
        term_puts(f, r->details[i].text);
        fputc('\n', f);
    }
    for (size_t i = 0; i < r->nexplain; i++) {
        fputs("  why: ", f);
        term_puts(f, r->explain[i].why);
        fprintf(f, " [%s]\n       -> ", r->explain[i].rule);
        term_puts(f, r->explain[i].advice);
        fputc('\n', f);
        if (r->explain[i].next[0]) {
            fputs("       run: ", f);
            term_puts(f, r->explain[i].next);
            fputc('\n', f);
        }
    }
    if (strcmp(r->command, "check") != 0) {
        size_t n[4] = {0, 0, 0, 0};
        for (size_t i = 0; i < r->nhosts; i++)
            n[rm_rank(r->hosts[i].verdict)]++;
        fprintf(f, "%s: %s (%zu hosts: %zu fail, %zu unknown, %zu pass%s%s%s%s)\n", r->command,
                fior_verdict_name(r->verdict), r->nhosts, n[0], n[1] + n[2], n[3], r->load ? "; load " : "",
                r->load ? r->load : "", r->fio_version[0] ? ", " : "", r->fio_version);
    }
}

void out_table(FILE *f, const rm_run *r)
{
    int color = term_color(f);
    fprintf(f, "%s%s%s: ", term_verdict_on(color, r->verdict), fior_verdict_name(r->verdict), term_off(color));
    term_puts(f, r->reason);
    fputc('\n', f);
    if (grid(f, r, color) == 0)
        notes(f, r);
}
