/* SPDX-License-Identifier: MIT */
/* svg.h — a self-contained SVG picture of latency distributions for `etcd-fio check --svg`: the fraction
 * of operations slower than x (1 - CDF) on log-log axes, so the p99 is where a curve crosses the 1 % line,
 * with vertical threshold lines (10 ms, 25 ms) and the verdict in the title. Opens in any browser. */
#ifndef ETCD_FIO_SVG_H
#define ETCD_FIO_SVG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "fioreport.h"

typedef struct svg_series {
    const char     *label;   /* legend text, e.g. "WAL fdatasync (p99 2.1 ms)" */
    const char     *color;   /* CSS color */
    const fior_bin *bins;    /* ascending, json+ bins */
    size_t          nbins;
} svg_series;

typedef struct svg_vline {
    const char *label;       /* e.g. "10 ms WAL limit" */
    uint64_t    ns;
    const char *color;
} svg_vline;

typedef struct svg_plot {
    const char       *title;     /* first line, e.g. "PASS — /var/lib/etcd-test" */
    const char       *subtitle;  /* second line, or NULL */
    const svg_series *series;
    size_t            nseries;
    const svg_vline  *vlines;
    size_t            nvlines;
} svg_plot;

/* Writes s escaped for XML/HTML text and attribute values (<, >, &, "). */
void svg_put_text(FILE *f, const char *s);

/* Writes the SVG document. Returns 0, or -1 when the stream reports a write error. */
int svg_write(FILE *f, const svg_plot *p);

/* Where a latency lands on the x axis of a plot whose x range is [xmin_ns, xmax_ns] (for tests). */
double svg_x_of(uint64_t ns, double xmin_ns, double xmax_ns);

#endif
