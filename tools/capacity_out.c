/* SPDX-License-Identifier: MIT */
/* capacity_out.c — what `etcd-fio capacity` prints: the table operators know from etcd's benchmark pages
 * (clients, writes/s, latency p50/p90/p99, WAL fdatasync p99, backend commit p99, entries per Save, what
 * limits it), the result model for the one JSON writer (details.capacity, doc/etcd-fio.schema.json), and the
 * HTML page with writes/s and latency against clients on log scales. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "capacity.h"
#include "quorum.h"
#include "cli.h"
#include "jw.h"
#include "out.h"

static const char *fmt(char *b, size_t n, uint64_t ns)
{
    return cli_fmt_ns(b, n, ns);
}

/* Why a row is what it is, in a few words: the ceiling, or why it is not (a pass with fewer writes/s, the
 * side that failed, what left it unknown), and what limits it when that is not the disk. */
static void row_word(char *b, size_t n, const capacity_result *res, size_t i, const fior_criteria *c)
{
    const capacity_row *r = &res->rows[i];
    char t[32];
    if (!r->ran) {
        cli_msg(b, n, "unknown: did not run");
        return;
    }
    int few = r->wal_n < fior_criteria_min_samples(c) || r->be_n < fior_criteria_min_samples(c);
    int confirmed_below = 0;
    for (size_t k = res->nsweep; k < res->nrows && i < res->nsweep; k++)
        confirmed_below |= res->rows[k].clients == r->clients;
    if ((int)i == res->ceiling)
        cli_msg(b, n, "pass: the ceiling");
    else if (r->verdict == FIOR_PASS)
        cli_msg(b, n, "pass, fewer writes/s");
    else if (r->verdict == FIOR_FAIL) {
        int wal = r->wal_lo_ns != RESULT_UNKNOWN && r->wal_lo_ns > fior_criteria_threshold(c, FIOR_ROLE_WAL);
        cli_fmt_ns(t, sizeof t, fior_criteria_threshold(c, wal ? FIOR_ROLE_WAL : FIOR_ROLE_BACKEND));
        cli_msg(b, n, "fail: %s p99 over %s", wal ? "WAL" : "backend", t);
    } else if (confirmed_below)
        cli_msg(b, n, "unknown: see its confirmation");
    else if (r->excluded)
        cli_msg(b, n, "unknown: not confirmed");
    else
        cli_msg(b, n, "unknown: %s", few ? "too few samples" : "bound straddles");
    if (capacity_limit_not_disk(r) && strlen(b) + 24 < n) { /* "the clients' round trip: not the disk" */
        const char *l = capacity_limit(r);
        const char *colon = strchr(l, ':');
        size_t len = colon ? (size_t)(colon - l) : strlen(l);
        size_t at = strlen(b);
        snprintf(b + at, n - at, "; not the disk: %.*s", (int)len, l);
    }
}

void capacity_table(FILE *f, const capacity_result *res, const fior_criteria *c, int verbose)
{
    int width = out_width(f);
    /* the answer first, then the rows it comes from */
    char head[1200];
    cli_msg(head, sizeof head, "%s: %s", fior_verdict_name(res->verdict), res->reason);
    out_wrap(f, "", 2, head, width);
    if (verbose)
        fprintf(f, "%7s %8s %8s %8s %8s %8s %8s %5s  %s\n", "clients", "writes/s", "lat p50", "p90", "p99",
                "WAL p99", "back p99", "/Save", "verdict, why");
    else
        fprintf(f, "%7s %8s %8s %8s %11s  %s\n", "clients", "writes/s", "lat p99", "WAL p99", "backend p99",
                "verdict, why");
    for (size_t i = 0; i < res->nrows; i++) {
        const capacity_row *r = &res->rows[i];
        char a[32], b[32], d[32], w[32], k[32], word[160], rest[400];
        row_word(word, sizeof word, res, i, c);
        if (!r->ran) {
            char cols[64]; /* the columns as they are; only the words after them wrap */
            cli_msg(cols, sizeof cols, "%7u %8s  ", r->clients, "-");
            cli_msg(rest, sizeof rest, "%s: %s", word, r->why);
            out_wrap(f, cols, 18, rest, width);
            quorum_table(f, r);
            continue;
        }
        if (i >= res->nsweep && strlen(word) + 16 < sizeof word)
            cli_msg(word + strlen(word), sizeof word - strlen(word), " (confirmation)");
        /* the columns as they are (a row stays aligned); only the words after them wrap, under themselves */
        char cols[160];
        if (verbose) {
            cli_msg(cols, sizeof cols, "%7u %8.0f %8s %8s %8s %8s %8s %5.1f  ", r->clients, r->writes_per_s,
                    fmt(a, sizeof a, r->lat_p50_ns), fmt(b, sizeof b, r->lat_p90_ns), fmt(d, sizeof d, r->lat_p99_ns),
                    fmt(w, sizeof w, r->wal_p99_ns), fmt(k, sizeof k, r->be_p99_ns), r->entries_per_save);
            cli_msg(rest, sizeof rest, "%s; limit: %s", word, capacity_limit(r));
        } else {
            cli_msg(cols, sizeof cols, "%7u %8.0f %8s %8s %11s  ", r->clients, r->writes_per_s,
                    fmt(d, sizeof d, r->lat_p99_ns), fmt(w, sizeof w, r->wal_p99_ns), fmt(k, sizeof k, r->be_p99_ns));
            cli_msg(rest, sizeof rest, "%s", word);
        }
        int hang = (int)strlen(cols); /* ASCII: columns are bytes */
        out_wrap(f, cols, hang < width - 20 ? hang : 10, rest, width);
        if (verbose && r->reason[0]) {
            cli_msg(rest, sizeof rest, "        %s", r->reason);
            out_wrap(f, "", 10, rest, width);
        }
        quorum_table(f, r);
    }
}

static void dbl(yajl_gen g, const char *key, double v)
{
    jw_kdbl(g, key, v, "%.4g");
}

static void bound(yajl_gen g, const char *key, int ran, uint64_t lo, uint64_t hi)
{
    jw_key(g, key);
    jw_aopen(g);
    jw_u64(g, ran ? lo : RESULT_UNKNOWN);
    jw_u64(g, ran ? hi : RESULT_UNKNOWN);
    jw_aclose(g);
}

static void row_json(yajl_gen o, const capacity_row *r, int confirm)
{
    jw_open(o);
    jw_ku64(o, "clients", r->clients);
    jw_kbool(o, "confirmation", confirm);
    jw_kbool(o, "ran", r->ran);
    dbl(o, "seconds", r->seconds);
    dbl(o, "writes_per_s", r->ran ? r->writes_per_s : NAN);
    jw_ku64(o, "latency_p50_ns", r->lat_p50_ns);
    jw_ku64(o, "latency_p90_ns", r->lat_p90_ns);
    jw_ku64(o, "latency_p99_ns", r->lat_p99_ns);
    jw_ku64(o, "wal_fdatasync_p99_ns", r->wal_p99_ns);
    jw_ku64(o, "backend_commit_p99_ns", r->be_p99_ns);
    bound(o, "wal_p99_bound_ns", r->ran, r->wal_lo_ns, r->wal_hi_ns);
    bound(o, "backend_p99_bound_ns", r->ran, r->be_lo_ns, r->be_hi_ns);
    jw_ku64(o, "wal_samples", r->wal_n);
    jw_ku64(o, "backend_samples", r->be_n);
    dbl(o, "entries_per_save", r->ran ? r->entries_per_save : NAN);
    jw_kstr(o, "limit", capacity_limit(r));
    jw_kbool(o, "disk_is_the_limit", r->ran && !capacity_limit_not_disk(r));
    jw_kstr(o, "verdict", fior_verdict_name(r->verdict));
    jw_kstr(o, "basis", result_basis_name(r->basis));
    jw_kstr(o, "reason", r->reason);
    if (r->q) {
        jw_key(o, "members");
        quorum_json(o, r);
    }
    jw_close(o);
}

static void add_job(result_host *h, const capacity_row *r, fior_role role, const fior_criteria *c)
{
    result_job *j = result_add_job(h);
    if (!j)
        return;
    int wal = role == FIOR_ROLE_WAL;
    cli_msg(j->name, sizeof j->name, "%s", wal ? "etcd-wal" : "etcd-backend");
    j->role = role;
    j->samples = wal ? r->wal_n : r->be_n;
    j->p99_ns = j->judged_ns = wal ? r->wal_p99_ns : r->be_p99_ns;
    j->bound_lo_ns = wal ? r->wal_lo_ns : r->be_lo_ns;
    j->bound_hi_ns = wal ? r->wal_hi_ns : r->be_hi_ns;
    if (j->bound_hi_ns == UINT64_MAX)
        j->bound_hi_ns = RESULT_UNKNOWN;
    j->threshold_ns = fior_criteria_threshold(c, role);
    j->verdict = r->verdict;
    j->bins = wal ? r->wal_bins : r->be_bins;
    j->nbins = wal ? r->nwal : r->nbe;
    cli_msg(j->reason, sizeof j->reason, "%u clients: %s", r->clients, r->reason);
}

int capacity_model(result_run *r, const capacity_result *res, const capacity_opts *o, const fior_criteria *c, const char *dir)
{
    result_init(r, "capacity", c);
    r->confidence = o->confidence;
    result_host *h = result_add_host(r);
    if (!h)
        return -1;
    cli_hostname(h->host, sizeof h->host);
    cli_msg(h->dir, sizeof h->dir, "%s", dir);
    h->duration_s = res->seconds;
    for (size_t i = 0; i < res->nrows && !h->fio_version[0]; i++)
        if (res->rows[i].fio_version[0]) {
            cli_msg(h->fio_version, sizeof h->fio_version, "%s", res->rows[i].fio_version);
            cli_msg(r->fio_version, sizeof r->fio_version, "%s", res->rows[i].fio_version);
        }
    const capacity_row *shown = res->ceiling >= 0 ? &res->rows[res->ceiling] : res->nrows ? &res->rows[0] : NULL;
    if (shown && shown->ran) {
        add_job(h, shown, FIOR_ROLE_WAL, c);
        add_job(h, shown, FIOR_ROLE_BACKEND, c);
    }
    h->verdict = res->verdict;
    h->basis = res->basis;
    cli_msg(h->reason, sizeof h->reason, "%s", res->reason);
    yajl_gen d = jw_new(0);
    jw_open(d);
    jw_ku64(d, "key_bytes", o->key_bytes);
    jw_ku64(d, "val_bytes", o->val_bytes);
    dbl(d, "step_s", o->step_s);
    dbl(d, "client_us", o->client_us);
    dbl(d, "apply_us", o->apply_us);
    dbl(d, "cpu_us", o->cpu_us);
    if (o->members) {
        dbl(d, "rtt_ms", o->rtt_ms);
        dbl(d, "ready_us", o->ready_us);
        jw_kbool(d, "shared_core", o->shared_core);
    }
    jw_key(d, "rows");
    jw_aopen(d);
    for (size_t i = 0; i < res->nrows; i++)
        row_json(d, &res->rows[i], i >= res->nsweep);
    jw_aclose(d);
    jw_key(d, "ceiling");
    if (res->ceiling >= 0) {
        jw_open(d);
        dbl(d, "writes_per_s", res->rows[res->ceiling].writes_per_s);
        jw_ku64(d, "clients", res->rows[res->ceiling].clients);
        jw_ku64(d, "row", (uint64_t)res->ceiling);
        jw_close(d);
    } else {
        jw_null(d);
    }
    jw_close(d);
    result_add_detail(r, "capacity", "capacity", d, "%zu client counts, %s", res->nsweep,
                  res->ceiling >= 0 ? "ceiling found" : "no ceiling");
    r->basis = res->basis;
    result_finish(r);
    r->verdict = res->verdict;
    cli_msg(r->reason, sizeof r->reason, "%s", res->reason);
    return 0;
}

/* ---- the HTML page: two log-log charts and the table ---- */
#define W 560
#define H 300
#define ML 70
#define MB 40
#define MT 20
#define MR 20

static double lx(double v, double lo, double hi)
{
    return ML + (log10(v) - log10(lo)) / (log10(hi) - log10(lo)) * (W - ML - MR);
}

static double ly(double v, double lo, double hi)
{
    return H - MB - (log10(v) - log10(lo)) / (log10(hi) - log10(lo)) * (H - MB - MT);
}

static void decades(double vmin, double vmax, double *lo, double *hi)
{
    *lo = pow(10, floor(log10(vmin > 0 ? vmin : 1)));
    *hi = pow(10, ceil(log10(vmax > 0 ? vmax : 10)));
    if (*hi <= *lo)
        *hi = *lo * 10;
}

static void axes(FILE *f, double xlo, double xhi, double ylo, double yhi, const char *ylabel, double yscale,
                 const char *yunit)
{
    fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#999\"/>\n", ML, MT,
            W - ML - MR, H - MB - MT);
    for (double x = xlo; x <= xhi * 1.0001; x *= 10)
        fprintf(f, "<text x=\"%.1f\" y=\"%d\" font-size=\"11\" text-anchor=\"middle\">%g</text>\n", lx(x, xlo, xhi),
                H - MB + 14, x);
    for (double y = ylo; y <= yhi * 1.0001; y *= 10)
        fprintf(f, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#eee\"/><text x=\"%d\" y=\"%.1f\" "
                   "font-size=\"11\" text-anchor=\"end\">%g%s</text>\n",
                ML, W - MR, ly(y, ylo, yhi), ly(y, ylo, yhi), ML - 4, ly(y, ylo, yhi) + 4, y / yscale, yunit);
    fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"12\" text-anchor=\"middle\">clients (log)</text>\n", (W + ML) / 2,
            H - 6);
    fprintf(f, "<text x=\"14\" y=\"%d\" font-size=\"12\" transform=\"rotate(-90 14 %d)\" text-anchor=\"middle\">",
            H / 2, H / 2);
    out_html_text(f, ylabel);
    fputs("</text>\n", f);
}

static void series(FILE *f, const capacity_result *res, double xlo, double xhi, double ylo, double yhi, int which,
                   const char *colour, const char *name, int legend_row)
{
    fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", colour);
    for (size_t i = 0; i < res->nsweep; i++) {
        const capacity_row *r = &res->rows[i];
        double v = which == 0 ? r->writes_per_s : (double)(which == 1 ? r->lat_p50_ns : which == 2 ? r->lat_p90_ns : r->lat_p99_ns);
        if (r->ran && v > 0 && (which == 0 || v < (double)RESULT_UNKNOWN))
            fprintf(f, "%.1f,%.1f ", lx(r->clients, xlo, xhi), ly(v, ylo, yhi));
    }
    fprintf(f, "\"/>\n<text x=\"%d\" y=\"%d\" font-size=\"12\" fill=\"%s\">%s</text>\n", ML + 10, MT + 16 + 14 * legend_row,
            colour, name);
}

static int picture(FILE *f, const void *ctx)
{
    const capacity_result *res = ctx;
    double cmin = 1e9, cmax = 0, wmin = 1e12, wmax = 0, lmin = 1e18, lmax = 0;
    for (size_t i = 0; i < res->nsweep; i++) {
        const capacity_row *r = &res->rows[i];
        if (!r->ran)
            continue;
        cmin = fmin(cmin, r->clients);
        cmax = fmax(cmax, r->clients);
        if (r->writes_per_s > 0) {
            wmin = fmin(wmin, r->writes_per_s);
            wmax = fmax(wmax, r->writes_per_s);
        }
        uint64_t l[3] = {r->lat_p50_ns, r->lat_p90_ns, r->lat_p99_ns};
        for (int k = 0; k < 3; k++)
            if (l[k] && l[k] != RESULT_UNKNOWN) {
                lmin = fmin(lmin, (double)l[k]);
                lmax = fmax(lmax, (double)l[k]);
            }
    }
    if (cmax <= 0) {
        fputs("<p>No client count ran: nothing to draw.</p>\n", f);
        return 0;
    }
    double xlo, xhi, wlo, whi, llo, lhi;
    decades(cmin, cmax, &xlo, &xhi);
    decades(wmin, wmax, &wlo, &whi);
    decades(lmin, lmax, &llo, &lhi);
    fprintf(f, "<h2>Writes/s against clients</h2>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
               "viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"writes per second against clients\">\n", W, H, W, H);
    axes(f, xlo, xhi, wlo, whi, "writes/s (log)", 1, "");
    series(f, res, xlo, xhi, wlo, whi, 0, "#1565c0", "writes/s", 0);
    fputs("</svg>\n", f);
    fprintf(f, "<h2>Latency against clients</h2>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
               "viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"latency against clients\">\n", W, H, W, H);
    axes(f, xlo, xhi, llo, lhi, "put latency (log)", 1e6, " ms");
    series(f, res, xlo, xhi, llo, lhi, 1, "#2e7d32", "p50", 0);
    series(f, res, xlo, xhi, llo, lhi, 2, "#9e6a03", "p90", 1);
    series(f, res, xlo, xhi, llo, lhi, 3, "#c62828", "p99", 2);
    fputs("</svg>\n<h2>Client counts</h2>\n<table><tr><th>clients</th><th>writes/s</th><th>latency p50</th><th>p90</th>"
          "<th>p99</th><th>WAL fdatasync p99</th><th>backend commit p99</th><th>entries per Save</th><th>verdict</th>"
          "<th>limit</th></tr>\n", f);
    for (size_t i = 0; i < res->nrows; i++) {
        const capacity_row *r = &res->rows[i];
        char a[32], b[32], d[32], w[32], k[32];
        fprintf(f, "<tr><td>%u%s</td>", r->clients, i >= res->nsweep ? " (confirmation)" : "");
        if (!r->ran) {
            fputs("<td colspan=\"9\">", f);
            out_html_text(f, r->why);
            fputs("</td></tr>\n", f);
            continue;
        }
        fprintf(f, "<td>%.0f</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%.1f</td><td class=\"%s\">%s</td><td>",
                r->writes_per_s, fmt(a, sizeof a, r->lat_p50_ns), fmt(b, sizeof b, r->lat_p90_ns),
                fmt(d, sizeof d, r->lat_p99_ns), fmt(w, sizeof w, r->wal_p99_ns), fmt(k, sizeof k, r->be_p99_ns),
                r->entries_per_save, r->verdict == FIOR_PASS ? "pass" : r->verdict == FIOR_FAIL ? "fail" : "unknown",
                fior_verdict_name(r->verdict));
        out_html_text(f, capacity_limit(r));
        fputs("</td></tr>\n", f);
    }
    fputs("</table>\n", f);
    return ferror(f) ? -1 : 0;
}

int capacity_html(const char *path, const result_run *r, const capacity_result *res, char *err, size_t errlen)
{
    return out_html_file(path, r, picture, res, err, errlen);
}
