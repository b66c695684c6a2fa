/* SPDX-License-Identifier: MIT */
/* compare.c — the inputs of `etcd-fio compare` (compare.h): result JSON read back, raw inputs judged by the
 * library, each summarised per role by its worst job; ratios and the table/JSON writers. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "jr.h"
#include "jw.h"
#include "compare.h"
#include "out.h"
#include "outfile.h"
#include "result.h"
#include "scrape.h"
#include "term.h"

static const char *const ROLE_NAMES[COMPARE_NROLES] = {"wal", "backend", "check-perf"};

/* Keeps e when it is worse than the entry already there: fail, unknown, not judged, pass; then a higher p99. */
static void keep_worst(compare_input *in, const compare_entry *e)
{
    int r = (int)e->d.role;
    if (r < 0 || r >= COMPARE_NROLES)
        return;
    compare_entry *o = &in->role[r];
    int worse = !o->present || result_rank(e->d.verdict) < result_rank(o->d.verdict) ||
                (result_rank(e->d.verdict) == result_rank(o->d.verdict) && e->d.p99.known &&
                 (!o->d.p99.known || e->d.p99.hi > o->d.p99.hi));
    if (worse) {
        *o = *e;
        o->d.label = o->what;
        o->d.reason = o->reason;
    }
}

static explain_range json_ns(yajl_val job, const char *key)
{
    int64_t x;
    explain_range r = {0, 0, 0};
    if (jr_int(jr_get(job, key), &x) && x >= 0) {
        r.known = 1;
        r.lo = r.hi = (uint64_t)x;
    }
    return r;
}

static fior_verdict verdict_of(const char *s)
{
    fior_verdict v = FIOR_UNKNOWN; /* a word this version does not know: unknown */
    fior_verdict_from_name(s, &v);
    return v;
}

/* A result JSON of check, fleet or verdict (doc/etcd-fio.schema.json). 1 when it is one, 0 when not,
 * -1 when it claims to be one and is malformed. */
static int load_result(compare_input *in, const char *path, const char *buf, size_t len, char *err, size_t errlen)
{
    (void)len; /* buf is NUL-terminated (cli_read_file) */
    yajl_val root = jr_parse(buf, NULL, 0), hosts = jr_arr(root, "hosts");
    int64_t schema = -1;
    if (!jr_get(root, "schema")) {
        yajl_tree_free(root);
        return 0;
    }
    if (!jr_int(jr_get(root, "schema"), &schema) || schema != RESULT_SCHEMA || !hosts) {
        cli_msg(err, errlen, "%s: a result JSON of schema %d with a hosts array was expected", path, RESULT_SCHEMA);
        yajl_tree_free(root);
        return -1;
    }
    const char *command = jr_str(root, "command");
    cli_msg(in->kind, sizeof in->kind, "%s result", command ? command : "etcd-fio");
    for (size_t h = 0; h < jr_len(hosts); h++) {
        yajl_val host = jr_at(hosts, h), jobs = jr_arr(host, "jobs");
        const char *hn = jr_str(host, "host");
        /* a job's pass is the host's only when the host passed: check and fleet leave a job's own word when
         * the host is unknown for a reason beyond it (no WAL job, the bound against fio's p99, a run that
         * did not end normally), and the worst of the jobs would make that a pass here */
        fior_verdict hv = verdict_of(jr_str(host, "verdict"));
        for (size_t k = 0; k < jr_len(jobs); k++) {
            yajl_val job = jr_at(jobs, k);
            const char *role = jr_str(job, "role"), *name = jr_str(job, "name"), *reason = jr_str(job, "reason");
            compare_entry e;
            memset(&e, 0, sizeof e);
            e.present = 1;
            e.d.role = role && !strcmp(role, "backend") ? FIOR_ROLE_BACKEND
                       : role && !strcmp(role, "check-perf") ? FIOR_ROLE_CHECK_PERF : FIOR_ROLE_WAL;
            /* what the job measured, for the rules over all inputs: etcd's own histograms are named after them */
            e.d.origin = e.d.role == FIOR_ROLE_CHECK_PERF ? EXPLAIN_CHECK_PERF
                         : name && !strncmp(name, "etcd_disk_", 10) ? EXPLAIN_ETCD_METRICS : EXPLAIN_DISK_TEST;
            e.d.verdict = verdict_of(jr_str(job, "verdict"));
            int capped = e.d.verdict == FIOR_PASS && hv != FIOR_PASS;
            if (capped)
                e.d.verdict = FIOR_UNKNOWN;
            e.d.p50 = json_ns(job, "p50_ns");
            e.d.p99 = json_ns(job, "p99_ns");
            e.d.p999 = json_ns(job, "p99_9_ns");
            e.d.max = json_ns(job, "max_ns");
            explain_range th = json_ns(job, "threshold_ns"), n = json_ns(job, "samples");
            e.d.threshold_ns = th.known ? th.hi : 0;
            e.samples = n.known ? n.hi : UINT64_MAX;
            cli_msg(e.what, sizeof e.what, "%s%s%s", hn && hn[0] ? hn : "", hn && hn[0] ? " " : "", name ? name : "-");
            if (capped)
                cli_msg(e.reason, sizeof e.reason, "its host is %s: %s", fior_verdict_name(hv),
                        jr_str(host, "reason") ? jr_str(host, "reason") : "no reason given");
            else
                cli_msg(e.reason, sizeof e.reason, "%s", reason ? reason : "");
            keep_worst(in, &e);
        }
    }
    yajl_tree_free(root);
    return 1;
}

int compare_load(compare_input *in, const char *path, const fior_criteria *crit, size_t max_input, char *err, size_t errlen)
{
    memset(in, 0, sizeof *in);
    in->path = path;
    if (scrape_is_url(path)) { /* never echo a URL as a file name: it may carry a password */
        char shown[2048];
        scrape_shown_url(path, shown, sizeof shown);
        cli_msg(err, errlen, "%s: compare reads saved files (fio output, check --json, scrapes); save the "
                "scrape first (curl URL > FILE) or judge the URL with verdict", shown);
        return -1;
    }
    size_t len = 0;
    char *buf = cli_read_file(path, max_input, &len, err, errlen);
    if (!buf)
        return -1;
    int rc = load_result(in, path, buf, len, err, errlen);
    if (rc) {
        free(buf);
        return rc < 0 ? -1 : 0;
    }
    cli_msg(in->kind, sizeof in->kind, "input");
    fior_report *rep = fior_report_new();
    fior_result *res = NULL;
    rc = -1;
    if (!rep || fior_parse_buffer(rep, path, buf, len) != FIOR_OK) {
        cli_msg(err, errlen, "%s", rep ? fior_report_error(rep) : "out of memory");
        goto out;
    }
    if (fior_report_window(rep) != FIOR_OK || !(res = fior_judge(rep, crit))) {
        cli_msg(err, errlen, "%s: out of memory", path);
        goto out;
    }
    for (size_t i = 0; i < fior_report_njobs(rep); i++) {
        const fior_job *j = fior_report_job(rep, i);
        const fior_judgement *jd = fior_result_job(res, i);
        compare_entry e;
        memset(&e, 0, sizeof e);
        e.present = 1;
        explain_dist_from_job(&e.d, j, jd, fior_criteria_min_samples(crit));
        e.samples = j->samples_known ? j->samples : UINT64_MAX;
        cli_msg(e.what, sizeof e.what, "%s%s%s", j->host ? j->host : "", j->host ? " " : "", j->name ? j->name : "-");
        cli_msg(e.reason, sizeof e.reason, "%s", jd->reason);
        keep_worst(in, &e);
    }
    rc = 0;
out:
    fior_result_free(res);
    fior_report_free(rep);
    free(buf);
    return rc;
}

fior_verdict compare_worst(const compare_input *in, size_t n)
{
    fior_verdict small[32] = {FIOR_PASS}, *v = n * COMPARE_NROLES <= 32 ? small : calloc(n * COMPARE_NROLES, sizeof *v);
    size_t k = 0;
    if (!v)
        return FIOR_UNKNOWN;
    for (size_t i = 0; i < n; i++)
        for (int r = 0; r < COMPARE_NROLES; r++)
            if (in[i].role[r].present)
                v[k++] = in[i].role[r].d.verdict;
    fior_verdict w = fior_verdict_combine(v, k); /* the library's rule: nothing judged is unknown */
    if (v != small)
        free(v);
    return w;
}

int compare_differ(const compare_input *in, size_t n, int r)
{
    const compare_entry *first = NULL;
    for (size_t i = 0; i < n; i++) {
        const compare_entry *e = &in[i].role[r];
        if (!e->present)
            continue;
        if (first && e->d.verdict != first->d.verdict)
            return 1;
        if (!first)
            first = e;
    }
    return 0;
}

void compare_ratio(char *out, size_t len, const explain_range *a, const explain_range *b)
{
    if (!a->known || !b->known || a->hi == 0 || a->hi == UINT64_MAX || b->hi == UINT64_MAX || (a->lo == 0 && a->lo != a->hi)) {
        cli_msg(out, len, "?");
        return;
    }
    double lo = (double)b->lo / (double)a->hi, hi = (double)b->hi / (double)(a->lo ? a->lo : 1);
    char x[16], y[16];
    snprintf(x, sizeof x, "%.2g", lo);
    snprintf(y, sizeof y, "%.2g", hi);
    if (!strcmp(x, y))
        cli_msg(out, len, "%sx", x);
    else
        cli_msg(out, len, "%s-%sx", x, y);
}

/* ---- writers ---- */

static const char *const VALUE_NAMES[] = {"samples", "p50", "p99", "p99.9", "max", "verdict"};
#define NVAL (sizeof VALUE_NAMES / sizeof VALUE_NAMES[0])

static const explain_range *value_range(const compare_entry *e, size_t v)
{
    switch (v) {
    case 1: return &e->d.p50;
    case 2: return &e->d.p99;
    case 3: return &e->d.p999;
    case 4: return &e->d.max;
    }
    return NULL;
}

static void cell(char *out, size_t len, const compare_entry *e, size_t v)
{
    if (!e->present)
        cli_msg(out, len, "-");
    else if (v == 0)
        e->samples == UINT64_MAX ? cli_msg(out, len, "?") : cli_msg(out, len, "%llu", (unsigned long long)e->samples);
    else if (v == NVAL - 1)
        cli_msg(out, len, "%s", fior_verdict_name(e->d.verdict));
    else
        explain_fmt_range(out, len, value_range(e, v));
}

#define COMPARE_COLS 16 /* inputs shown in the table (the others only in --json) */

/* A p99 against its threshold in the headline, with the sign of the entry's own verdict: "11.7 ms >= 10 ms",
 * "807 us < 10 ms", "1-2 ms vs 10 ms" (undecided). */
static void p99_against(char *b, size_t n, const compare_entry *e, int with_threshold)
{
    char v[64], t[32];
    explain_fmt_range(v, sizeof v, &e->d.p99);
    fior_format_ns(t, sizeof t, e->d.threshold_ns);
    const char *sign = e->d.verdict == FIOR_PASS ? "<" : e->d.verdict == FIOR_FAIL ? ">=" : "vs";
    if (with_threshold && e->d.threshold_ns)
        cli_msg(b, n, "%s %s %s", v, sign, t);
    else
        cli_msg(b, n, "%s", v);
}

/* The role's entries that have a p99 and a threshold (etcdctl check perf has neither). */
static int role_shown(const compare_input *in, size_t cols, int r)
{
    for (size_t i = 0; r != FIOR_ROLE_CHECK_PERF && i < cols; i++)
        if (in[i].role[r].present && in[i].role[r].d.p99.known && in[i].role[r].d.threshold_ns)
            return 1;
    return 0;
}

/* Appends to b (n bytes, *o used); *o goes past n - 1 when it did not fit, and nothing more is written. */
static void __attribute__((format(printf, 4, 5))) add(char *b, size_t n, size_t *o, const char *fmt, ...)
{
    if (*o >= n)
        return;
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(b + *o, n - *o, fmt, ap);
    va_end(ap);
    *o += k > 0 ? (size_t)k : 0;
}

/* One form of the headline: 0 every input's p99 with its own sign and threshold ("WAL p99 A 11.7 ms >= 10 ms,
 * B 807 us < 10 ms; backend A 31.3 ms >= 25 ms"), 1 the threshold once ("WAL p99 A 11.7 ms, B 807 us
 * (limit 10 ms)"; only when the inputs share it), 2 the worst input's only ("worst WAL p99 A 11.7 ms >= 10 ms;
 * backend A 31.3 ms >= 25 ms"). 0 when it cannot be made. */
static int headline_form(char *b, size_t n, const compare_input *in, size_t cols, int form)
{
    size_t o = 0;
    int roles = 0;
    for (int r = 0; r < COMPARE_NROLES; r++) {
        if (!role_shown(in, cols, r))
            continue;
        const compare_entry *worst = NULL;
        uint64_t thr = 0;
        int shared = 1, k = 0;
        for (size_t i = 0; i < cols; i++) {
            const compare_entry *e = &in[i].role[r];
            if (!e->present || !e->d.p99.known)
                continue;
            if (!worst || result_rank(e->d.verdict) < result_rank(worst->d.verdict) ||
                (result_rank(e->d.verdict) == result_rank(worst->d.verdict) && e->d.p99.hi > worst->d.p99.hi))
                worst = e;
            shared &= !thr || thr == e->d.threshold_ns;
            thr = e->d.threshold_ns;
        }
        if (form == 1 && !shared)
            return 0;
        add(b, n, &o, "%s%s%s%s", roles ? "; " : "", !roles && form == 2 && cols > 1 ? "worst " : "",
            out_role_label((fior_role)r), roles ? "" : " p99"); /* "p99" once: "WAL p99 A ..., B ...; backend A ..." */
        roles++;
        for (size_t i = 0; i < cols; i++) {
            const compare_entry *e = &in[i].role[r];
            if (!e->present || !e->d.p99.known || (form == 2 && e != worst))
                continue;
            char v[96];
            p99_against(v, sizeof v, e, form != 1);
            add(b, n, &o, "%s %c %s", k++ ? "," : "", (int)('A' + i), v);
        }
        if (form == 1) {
            char t[32];
            fior_format_ns(t, sizeof t, thr);
            add(b, n, &o, " (limit %s)", t);
        }
    }
    return roles > 0 && o < n;
}

void compare_headline(char *b, size_t len, const compare_input *in, size_t n, int width)
{
    char body[1024];
    size_t cols = n < COMPARE_COLS ? n : COMPARE_COLS;
    const char *word = fior_verdict_name(compare_worst(in, n));
    for (int form = 0; form < 3; form++)
        if (headline_form(body, sizeof body, in, cols, form) && (int)(strlen(word) + 2 + strlen(body)) <= width) {
            cli_msg(b, len, "%s: %s", word, body);
            term_clean(b, len, b);
            return;
        }
    cli_msg(b, len, "%s: compare %zu inputs", word, n);
}

/* One row: role, value, a cell per input, a ratio per input after the first. */
#define COMPARE_CELL 48
typedef struct compare_row {
    char c[2 + 2 * COMPARE_COLS][COMPARE_CELL];
} compare_row;

void compare_table(FILE *f, const compare_input *in, size_t n)
{
    size_t cols = n < COMPARE_COLS ? n : COMPARE_COLS, ncell = 2 + cols + (cols - 1);
    compare_row *rows = calloc(1 + COMPARE_NROLES * NVAL, sizeof *rows);
    if (!rows)
        return;
    size_t nr = 0;
    cli_msg(rows[0].c[0], COMPARE_CELL, "ROLE");
    cli_msg(rows[0].c[1], COMPARE_CELL, "VALUE");
    for (size_t i = 0; i < cols; i++)
        cli_msg(rows[0].c[2 + i], COMPARE_CELL, "%c", (int)('A' + i));
    for (size_t i = 1; i < cols; i++)
        cli_msg(rows[0].c[2 + cols + i - 1], COMPARE_CELL, "%c/A", (int)('A' + i));
    nr = 1;
    for (int r = 0; r < COMPARE_NROLES; r++) {
        int any = 0;
        for (size_t i = 0; i < cols; i++)
            any |= in[i].role[r].present;
        for (size_t v = 0; any && v < NVAL; v++, nr++) {
            compare_row *w = &rows[nr];
            cli_msg(w->c[0], COMPARE_CELL, "%s", v ? "" : ROLE_NAMES[r]);
            cli_msg(w->c[1], COMPARE_CELL, "%s", VALUE_NAMES[v]);
            for (size_t i = 0; i < cols; i++)
                cell(w->c[2 + i], COMPARE_CELL, &in[i].role[r], v);
            for (size_t i = 1; i < cols; i++) {
                char *c = w->c[2 + cols + i - 1];
                const compare_entry *a = &in[0].role[r], *b = &in[i].role[r];
                if (v == NVAL - 1)
                    cli_msg(c, COMPARE_CELL, "%s", a->present && b->present && a->d.verdict != b->d.verdict ? "differs" : "");
                else if (v && a->present && b->present)
                    compare_ratio(c, COMPARE_CELL, value_range(a, v), value_range(b, v));
            }
        }
    }
    int wd[2 + 2 * COMPARE_COLS] = {0};
    for (size_t k = 0; k < nr; k++)
        for (size_t c = 0; c < ncell; c++)
            if ((int)strlen(rows[k].c[c]) > wd[c])
                wd[c] = (int)strlen(rows[k].c[c]);
    int width = out_width(f);
    char line[2048];
    compare_headline(line, sizeof line, in, n, width);
    fprintf(f, "%s\n", line);
    for (size_t i = 0; i < cols; i++) {
        cli_msg(line, sizeof line, "%c = %s (%s)", (int)('A' + i), in[i].path, in[i].kind);
        out_wrap(f, "  ", 6, line, width);
    }
    for (size_t k = 0; k < nr; k++) {
        size_t o = 1;
        line[0] = ' ';
        for (size_t c = 0; c < ncell && o < sizeof line; c++)
            o += (size_t)snprintf(line + o, sizeof line - o, " %-*s", c + 1 < ncell ? wd[c] : 0, rows[k].c[c]);
        if (o >= sizeof line)
            o = sizeof line - 1;
        while (o > 0 && line[o - 1] == ' ') /* no blank at the end of a line */
            line[--o] = '\0';
        fprintf(f, "%s\n", line);
    }
    free(rows);
    for (size_t i = 0; i < cols; i++)
        for (int r = 0; r < COMPARE_NROLES; r++)
            if (in[i].role[r].present) {
                cli_msg(line, sizeof line, "%c %s %s: %s: %s", (int)('A' + i), ROLE_NAMES[r], in[i].role[r].what,
                        fior_verdict_name(in[i].role[r].d.verdict), in[i].role[r].reason);
                out_wrap(f, "  ", 4, line, width);
            }
    for (int r = 0; r < COMPARE_NROLES; r++)
        if (compare_differ(in, n, r))
            fprintf(f, "  the %s verdicts differ\n", ROLE_NAMES[r]);
    if (n > cols)
        fprintf(f, "  (%zu more inputs only in --json)\n", n - cols);
}

static void range_json(yajl_gen g, const char *key, const explain_range *r)
{
    jw_key(g, key);
    if (!r->known) {
        jw_null(g);
        return;
    }
    jw_open(g);
    jw_ku64(g, "lo_ns", r->lo > INT64_MAX ? INT64_MAX : r->lo);
    jw_ku64(g, "hi_ns", r->hi);
    jw_close(g);
}

/* Input i's entry for role r, null when it has none. */
static void role_input_json(yajl_gen g, const compare_input *in, size_t i, int r)
{
    const compare_entry *e = &in[i].role[r];
    if (!e->present) {
        jw_null(g);
        return;
    }
    jw_open(g);
    jw_kstr(g, "job", e->what);
    jw_ku64(g, "samples", e->samples);
    range_json(g, "p50", &e->d.p50);
    range_json(g, "p99", &e->d.p99);
    range_json(g, "p99_9", &e->d.p999);
    range_json(g, "max", &e->d.max);
    jw_kstr(g, "verdict", fior_verdict_name(e->d.verdict));
    jw_kstr(g, "reason", e->reason);
    if (i > 0 && in[0].role[r].present) {
        char c[64];
        compare_ratio(c, sizeof c, &in[0].role[r].d.p99, &e->d.p99);
        jw_kstr(g, "p99_ratio_to_first", c);
    }
    jw_close(g);
}

int compare_json(FILE *f, const compare_input *in, size_t n)
{
    yajl_gen g = jw_new(1);
    if (!g)
        return -1;
    jw_open(g);
    jw_kstr(g, "command", "compare");
    jw_kstr(g, "tool_version", fior_version());
    jw_kstr(g, "verdict", fior_verdict_name(compare_worst(in, n)));
    jw_key(g, "inputs");
    jw_aopen(g);
    for (size_t i = 0; i < n; i++) {
        jw_open(g);
        jw_kstr(g, "path", in[i].path);
        jw_kstr(g, "kind", in[i].kind);
        jw_close(g);
    }
    jw_aclose(g);
    jw_key(g, "roles");
    jw_aopen(g);
    for (int r = 0; r < COMPARE_NROLES; r++) {
        int any = 0;
        for (size_t i = 0; i < n; i++)
            any |= in[i].role[r].present;
        if (!any)
            continue;
        jw_open(g);
        jw_kstr(g, "role", ROLE_NAMES[r]);
        jw_kbool(g, "verdicts_differ", compare_differ(in, n, r));
        jw_key(g, "inputs");
        jw_aopen(g);
        for (size_t i = 0; i < n; i++)
            role_input_json(g, in, i, r);
        jw_aclose(g);
        jw_close(g);
    }
    jw_aclose(g);
    jw_close(g);
    return jw_print(g, f);
}

/* ---- HTML (compare --html) ---- */

static void html_cell(FILE *f, const char *tag, const char *cls, const char *text)
{
    fprintf(f, "<%s%s%s%s>", tag, cls ? " class=\"" : "", cls ? cls : "", cls ? "\"" : "");
    out_html_text(f, text);
    fprintf(f, "</%s>", tag);
}

static const char *vclass(fior_verdict v)
{
    return v == FIOR_PASS ? "pass" : v == FIOR_FAIL ? "fail" : "unknown";
}

int compare_html(FILE *f, const compare_input *in, size_t n)
{
    char head[1024], c[64];
    fior_verdict w = compare_worst(in, n);
    compare_headline(head, sizeof head, in, n, 1000); /* the table's first line, unwrapped: a page has the room */
    out_html_begin(f, "etcd-fio compare", w, head);
    fputs("<ul>\n", f);
    for (size_t i = 0; i < n; i++) {
        fprintf(f, "<li><b>%c</b> = ", (int)('A' + (i < 26 ? i : 25)));
        out_html_text(f, in[i].path);
        fputs(" (", f);
        out_html_text(f, in[i].kind);
        fputs(")</li>\n", f);
    }
    fputs("</ul>\n<table><tr><th>role</th><th>value</th>", f);
    for (size_t i = 0; i < n; i++)
        fprintf(f, "<th>%c</th>", (int)('A' + (i < 26 ? i : 25)));
    for (size_t i = 1; i < n; i++)
        fprintf(f, "<th>%c/A</th>", (int)('A' + (i < 26 ? i : 25)));
    fputs("</tr>\n", f);
    for (int r = 0; r < COMPARE_NROLES; r++) {
        int any = 0;
        for (size_t i = 0; i < n; i++)
            any |= in[i].role[r].present;
        for (size_t v = 0; any && v < NVAL; v++) {
            fputs("<tr>", f);
            html_cell(f, "th", NULL, v ? "" : ROLE_NAMES[r]);
            html_cell(f, "td", NULL, VALUE_NAMES[v]);
            for (size_t i = 0; i < n; i++) {
                cell(c, sizeof c, &in[i].role[r], v);
                html_cell(f, "td", v == NVAL - 1 && in[i].role[r].present ? vclass(in[i].role[r].d.verdict) : NULL, c);
            }
            for (size_t i = 1; i < n; i++) {
                const compare_entry *a = &in[0].role[r], *b = &in[i].role[r];
                c[0] = '\0';
                if (v == NVAL - 1)
                    cli_msg(c, sizeof c, "%s", a->present && b->present && a->d.verdict != b->d.verdict ? "differs" : "");
                else if (v && a->present && b->present)
                    compare_ratio(c, sizeof c, value_range(a, v), value_range(b, v));
                html_cell(f, "td", NULL, c);
            }
            fputs("</tr>\n", f);
        }
    }
    fputs("</table>\n<h2>Verdicts</h2>\n<table>\n", f);
    for (size_t i = 0; i < n; i++)
        for (int r = 0; r < COMPARE_NROLES; r++)
            if (in[i].role[r].present) {
                char who[300];
                cli_msg(who, sizeof who, "%c %s %s", (int)('A' + (i < 26 ? i : 25)), ROLE_NAMES[r], in[i].role[r].what);
                fputs("<tr>", f);
                html_cell(f, "td", NULL, who);
                html_cell(f, "td", vclass(in[i].role[r].d.verdict), fior_verdict_name(in[i].role[r].d.verdict));
                html_cell(f, "td", NULL, in[i].role[r].reason);
                fputs("</tr>\n", f);
            }
    fputs("</table>\n", f);
    for (int r = 0; r < COMPARE_NROLES; r++)
        if (compare_differ(in, n, r))
            fprintf(f, "<p><b>The %s verdicts differ.</b></p>\n", ROLE_NAMES[r]);
    /* what the rules say about all inputs together (e.g. not-the-disk: etcd's metrics vs a disk test) */
    explain_dist d[COMPARE_NROLES * 16];
    size_t nd = 0;
    for (size_t i = 0; i < n && nd + COMPARE_NROLES <= sizeof d / sizeof d[0]; i++)
        for (int r = 0; r < COMPARE_NROLES; r++)
            if (in[i].role[r].present)
                d[nd++] = in[i].role[r].d;
    explain_line lines[EXPLAIN_MAX_LINES];
    explain_facts fx = {d, nd, 0, 0, 0, 0, NULL};
    out_html_explain(f, lines, explain(&fx, lines, EXPLAIN_MAX_LINES));
    char host[256] = "";
    cli_hostname(host, sizeof host);
    out_html_end(f, fior_version(), NULL, host, time(NULL));
    return ferror(f) ? -1 : 0;
}

typedef struct html_ctx {
    const compare_input *in;
    size_t n;
} html_ctx;

static int render_html(FILE *f, const void *ctx)
{
    const html_ctx *c = ctx;
    return compare_html(f, c->in, c->n);
}

int compare_html_file(const char *path, const compare_input *in, size_t n, char *err, size_t errlen)
{
    html_ctx c = {in, n};
    return outfile_write_with(path, render_html, &c, err, errlen);
}
