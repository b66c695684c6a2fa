/* SPDX-License-Identifier: MIT */
/* compare.h — `etcd-fio compare`: each input (a check/verdict/fleet result JSON, or anything `verdict`
 * reads) summarised per role by its worst job, side by side: p50/p99/p99.9/max as ranges (exact values,
 * or the bucket edges of etcd's own histograms), the ratio to the first input, and which verdicts differ. */
#ifndef ETCD_FIO_COMPARE_H
#define ETCD_FIO_COMPARE_H

#include <stdio.h>

#include "explain.h"
#include "fioreport.h"

#define COMPARE_NROLES 3 /* wal, backend, check-perf */

typedef struct compare_entry {
    int          present;
    explain_dist d;            /* ranges, verdict, role, origin (its label/reason point into `what`/`reason`) */
    uint64_t     samples;      /* UINT64_MAX: unknown */
    char         what[200];    /* which job: "[host ]name" */
    char         reason[320];
} compare_entry;

typedef struct compare_input {
    const char  *path;
    char         kind[32];     /* "check result", "fleet result", "verdict result", "fio/etcd input" */
    compare_entry    role[COMPARE_NROLES];
} compare_input;

/* Reads one input: a result JSON (schema 1) or a raw input judged with `crit` (windows of two scrapes in
 * the same file are not formed: give scrapes to `verdict`). 0, or -1 with a one-line message in err. */
int compare_load(compare_input *in, const char *path, const fior_criteria *crit, size_t max_input, char *err, size_t errlen);

/* The worst verdict over every input's entries (fail > unknown > pass; nothing present: unknown). */
fior_verdict compare_worst(const compare_input *in, size_t n);
/* Whether the present entries of role r disagree on the verdict. */
int compare_differ(const compare_input *in, size_t n, int r);
/* "1.23x", "0.5-2x" (ranges), "?" (unknown), of b against a. */
void compare_ratio(char *out, size_t len, const explain_range *a, const explain_range *b);

/* The answer first, at most width columns: the worst verdict and each role's p99 per input against its
 * threshold ("fail: WAL p99 A 11.7 ms >= 10 ms, B 807 us < 10 ms; backend A 31.3 ms >= 25 ms"), shorter
 * forms when that does not fit, "WORD: compare N inputs" when no p99 is known. */
void compare_headline(char *b, size_t len, const compare_input *in, size_t n, int width);
void compare_table(FILE *f, const compare_input *in, size_t n);
int  compare_json(FILE *f, const compare_input *in, size_t n);
/* One self-contained HTML page: the table, the verdicts, the explain lines over all inputs together. */
int  compare_html(FILE *f, const compare_input *in, size_t n);
int  compare_html_file(const char *path, const compare_input *in, size_t n, char *err, size_t errlen);

#endif
