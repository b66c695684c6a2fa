/* SPDX-License-Identifier: MIT */
/* out_html.c — one self-contained HTML report of the result model (check --html, verdict --html): the
 * verdict, the job table, the latency picture inline (the --svg drawing, when the command has one), the
 * command's details (the classic job, the engine's rollovers, the filesystem), the explain lines, versions
 * and host. No script, no external asset: it opens from a mail attachment or an air-gapped laptop. */
#include <string.h>
#include <time.h>

#include "cli.h"
#include "out.h"
#include "outfile.h"
#include "svg.h"

void out_html_text(FILE *f, const char *s)
{
    svg_put_text(f, s); /* the same escaping as the SVG's text */
}

static const char *verdict_class(fior_verdict v)
{
    return v == FIOR_PASS ? "pass" : v == FIOR_FAIL ? "fail" : "unknown";
}

void out_html_begin(FILE *f, const char *title, fior_verdict v, const char *headline)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>", f);
    out_html_text(f, title);
    fputs("</title>\n<style>\n"
          "body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#222;max-width:1200px}\n"
          "h1{padding:.4em .6em;border-radius:4px;color:#fff;font-size:1.4em}\n"
          "h1.pass{background:#2e7d32}h1.fail{background:#c62828}h1.unknown{background:#9e6a03}\n"
          "table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:.25em .5em;text-align:left;"
          "vertical-align:top}\nth{background:#f3f3f3}td.pass{color:#2e7d32}td.fail{color:#c62828;font-weight:bold}"
          "td.unknown{color:#9e6a03}\n.why{margin:.3em 0}.rule{font-family:monospace;color:#555}.advice{color:#555;"
          "margin-left:1.5em}\nfooter{margin-top:2em;color:#777;font-size:12px}svg{max-width:100%;height:auto}\n"
          "</style></head><body>\n<h1 class=\"", f);
    fputs(verdict_class(v), f);
    fputs("\">", f);
    out_html_text(f, headline);
    fputs("</h1>\n", f);
}

void out_html_end(FILE *f, const char *tool_version, const char *fio_version, const char *hostname, time_t when)
{
    char ts[64] = "";
    struct tm tm;
    if (when && gmtime_r(&when, &tm))
        strftime(ts, sizeof ts, "%Y-%m-%d %H:%M:%S UTC", &tm);
    fputs("<footer>etcd-fio ", f);
    out_html_text(f, tool_version);
    if (fio_version && fio_version[0]) {
        fputs(" · ", f);
        out_html_text(f, fio_version);
    }
    if (hostname && hostname[0]) {
        fputs(" · host ", f);
        out_html_text(f, hostname);
    }
    if (ts[0]) {
        fputs(" · ", f);
        out_html_text(f, ts);
    }
    fputs("</footer>\n</body></html>\n", f);
}

void out_html_explain(FILE *f, const explain_line *l, size_t n)
{
    if (!n)
        return;
    fputs("<h2>Why</h2>\n", f);
    for (size_t i = 0; i < n; i++) {
        fputs("<div class=\"why\">", f);
        out_html_text(f, l[i].why);
        fputs(" <span class=\"rule\">[", f);
        out_html_text(f, l[i].rule);
        fputs("]</span><div class=\"advice\">&rarr; ", f);
        out_html_text(f, l[i].advice);
        if (l[i].next[0]) {
            fputs("<br>run: <code>", f);
            out_html_text(f, l[i].next);
            fputs("</code>", f);
        }
        fputs("</div></div>\n", f);
    }
}

static void td(FILE *f, const char *cls, const char *text)
{
    fputs(cls ? "<td class=\"" : "<td>", f);
    if (cls) {
        fputs(cls, f);
        fputs("\">", f);
    }
    out_html_text(f, text);
    fputs("</td>", f);
}

static void td_ns(FILE *f, uint64_t ns)
{
    char b[32];
    td(f, NULL, cli_fmt_ns(b, sizeof b, ns));
}

int out_html(FILE *f, const result_run *r, int (*picture)(FILE *f, const void *ctx), const void *ctx)
{
    char title[128], head[1200], b[64];
    cli_msg(title, sizeof title, "etcd-fio %s: %s", r->command, fior_verdict_name(r->verdict));
    cli_msg(head, sizeof head, "%s: %s", fior_verdict_name(r->verdict), r->reason);
    out_html_begin(f, title, r->verdict, head);
    fputs("<table><tr><th>host</th><th>job</th><th>role</th><th>samples</th><th>p50</th><th>p99</th><th>p99.9</th>"
          "<th>max</th><th>limit</th><th>verdict</th><th>reason</th></tr>\n", f);
    for (size_t i = 0; i < r->nhosts; i++) {
        const result_host *h = &r->hosts[i];
        for (size_t k = 0; k < h->njobs; k++) {
            const result_job *j = &h->jobs[k];
            fputs("<tr>", f);
            td(f, NULL, h->host[0] ? h->host : "-");
            td(f, NULL, j->name[0] ? j->name : "-");
            td(f, NULL, result_role_name(j->role));
            if (j->samples == RESULT_UNKNOWN)
                td(f, NULL, "?");
            else {
                cli_msg(b, sizeof b, "%llu", (unsigned long long)j->samples);
                td(f, NULL, b);
            }
            td_ns(f, j->p50_ns);
            td_ns(f, j->p99_ns);
            td_ns(f, j->p999_ns);
            td_ns(f, j->max_ns);
            td_ns(f, j->threshold_ns);
            td(f, verdict_class(j->verdict), fior_verdict_name(j->verdict));
            td(f, NULL, j->reason);
            fputs("</tr>\n", f);
        }
    }
    fputs("</table>\n", f);
    if (picture) {
        fputs("<h2>Latency distribution</h2>\n<figure>\n", f);
        if (picture(f, ctx))
            return -1;
        fputs("</figure>\n", f);
    }
    out_html_explain(f, r->explain, r->nexplain);
    if (r->ndetails) {
        fputs("<h2>Details</h2>\n<table>\n", f);
        for (size_t i = 0; i < r->ndetails; i++) {
            fputs("<tr><th>", f);
            out_html_text(f, r->details[i].label);
            fputs("</th>", f);
            td(f, NULL, r->details[i].text ? r->details[i].text : "");
            fputs("</tr>\n", f);
        }
        fputs("</table>\n", f);
    }
    out_html_end(f, r->tool_version, r->fio_version, r->hostname, r->timestamp);
    return ferror(f) ? -1 : 0;
}

typedef struct html_ctx {
    const result_run *r;
    int (*picture)(FILE *f, const void *ctx);
    const void *ctx;
} html_ctx;

static int render_html(FILE *f, const void *c)
{
    const html_ctx *h = c;
    return out_html(f, h->r, h->picture, h->ctx);
}

int out_html_file(const char *path, const result_run *r, int (*picture)(FILE *f, const void *ctx), const void *ctx,
                  char *err, size_t errlen)
{
    html_ctx c = {r, picture, ctx};
    return outfile_write_with(path, render_html, &c, err, errlen);
}
