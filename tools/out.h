/* SPDX-License-Identifier: MIT */
/* out.h — the three writers of the result model (result.h): the table people read, the JSON that
 * doc/etcd-fio.schema.json describes ("schema": 1, the same for check, fleet and verdict), and the
 * node_exporter textfile (one metric table for check and fleet: same names, labels {host, dir}). */
#ifndef ETCD_FIO_OUT_H
#define ETCD_FIO_OUT_H

#include <stdio.h>

#include "result.h"

/* First line "pass: WAL p99 … < 10 ms, backend p99 … < 25 ms (41 s)" (what a pod log shows first, at most
 * the width), then one row per job, what an unknown needs said and the first why: lines; r->verbose adds
 * every reason, the details and every why: line. Every line fits out_width(f). */
void out_table(FILE *f, const result_run *r);
/* A role as the verdict line and the table name it: "WAL", "backend", "check perf". */
const char *out_role_label(fior_role role);
/* The columns a text for f may use: a terminal's width, else $COLUMNS when exported, else 80 (a pipe). */
int  out_width(FILE *f);
/* text (from an input: made safe for a terminal) word-wrapped to width, the first line after `first`, the
 * others indented by `indent` spaces. */
void out_wrap(FILE *f, const char *first, int indent, const char *text, int width);
/* One JSON object and a newline. 0, or -1 when out of memory. */
int  out_json(FILE *f, const result_run *r);
/* The textfile in a malloc'd buffer; 0, or -1 (out of memory / invalid name). */
int  out_prom(const result_run *r, char **buf, size_t *len);

/* One self-contained HTML page (out_html.c): verdict, jobs, the picture drawn by picture(f, ctx) inline
 * (NULL: none), the explain lines, the details, versions and host. 0, or -1 on a write error. */
int  out_html(FILE *f, const result_run *r, int (*picture)(FILE *f, const void *ctx), const void *ctx);
int  out_html_file(const char *path, const result_run *r, int (*picture)(FILE *f, const void *ctx), const void *ctx,
                   char *err, size_t errlen);
/* The pieces, for other HTML pages (compare): escaped text, the head with the coloured verdict banner,
 * the explain lines, the footer with versions and host. */
void out_html_text(FILE *f, const char *s);
void out_html_begin(FILE *f, const char *title, fior_verdict v, const char *headline);
void out_html_explain(FILE *f, const explain_line *l, size_t n);
void out_html_end(FILE *f, const char *tool_version, const char *fio_version, const char *hostname, time_t when);

/* Renders with one of the writers and writes the file safely (outfile.h). 0, or -1 with err. */
enum out_kind { OUT_JSON, OUT_PROM };
int  out_file(const char *path, enum out_kind kind, const result_run *r, char *err, size_t errlen);

#endif
