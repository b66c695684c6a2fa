/* SPDX-License-Identifier: MIT */
/* svg.c — exceedance (1 - CDF) plot of latency bins on log-log axes (see svg.h). */
#include "svg.h"

#include <math.h>
#include <string.h>

#define W 900.0
#define H 560.0
#define PL 110.0  /* plot area: left, right, top, bottom margins */
#define PR 30.0
#define PT 70.0
#define PB 110.0

void svg_put_text(FILE *f, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '&': fputs("&amp;", f); break;
        case '"': fputs("&quot;", f); break;
        default: fputc(*s, f);
        }
    }
}

double svg_x_of(uint64_t ns, double xmin_ns, double xmax_ns)
{
    double v = ns < 1 ? 1 : (double)ns;
    return PL + (log10(v) - log10(xmin_ns)) / (log10(xmax_ns) - log10(xmin_ns)) * (W - PL - PR);
}

static double y_of(double frac, double ymin)
{
    if (frac < ymin)
        frac = ymin;
    return PT + (0.0 - log10(frac)) / (0.0 - log10(ymin)) * (H - PT - PB);
}

static void fmt_ns(char *b, size_t n, double ns)
{
    if (ns >= 1e9)
        snprintf(b, n, "%g s", ns / 1e9);
    else if (ns >= 1e6)
        snprintf(b, n, "%g ms", ns / 1e6);
    else if (ns >= 1e3)
        snprintf(b, n, "%g µs", ns / 1e3);
    else
        snprintf(b, n, "%g ns", ns);
}

/* The axes' ranges: whole decades covering every sample and every line (x, in ns), and down to one
 * operation in the largest series (y, a share). */
typedef struct svg_range {
    double xmin, xmax, ymin;
} svg_range;

static svg_range ranges(const svg_plot *p)
{
    double lo = 1e300, hi = 0;
    uint64_t nmax = 1;
    for (size_t i = 0; i < p->nseries; i++) {
        uint64_t n = 0;
        for (size_t b = 0; b < p->series[i].nbins; b++) {
            if (!p->series[i].bins[b].count)
                continue;
            double v = (double)p->series[i].bins[b].ns;
            lo = v < lo ? v : lo;
            hi = v > hi ? v : hi;
            n += p->series[i].bins[b].count;
        }
        nmax = n > nmax ? n : nmax;
    }
    for (size_t i = 0; i < p->nvlines; i++) {
        double v = (double)p->vlines[i].ns;
        lo = v < lo ? v : lo;
        hi = v > hi ? v : hi;
    }
    if (hi <= 0) {
        lo = 1e5;
        hi = 1e8;
    }
    svg_range r;
    r.xmin = pow(10, floor(log10(lo < 1 ? 1 : lo)));
    r.xmax = pow(10, ceil(log10(hi)));
    if (r.xmax <= r.xmin)
        r.xmax = r.xmin * 10;
    r.ymin = pow(10, -ceil(log10((double)nmax)));
    if (r.ymin > 1e-3)
        r.ymin = 1e-3;
    return r;
}

static void header(FILE *f, const svg_plot *p)
{
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
               "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%g\" height=\"%g\" viewBox=\"0 0 %g %g\" "
               "font-family=\"sans-serif\" font-size=\"13\">\n",
            W, H, W, H);
    fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n<title>");
    svg_put_text(f, p->title);
    fprintf(f, "</title>\n<text class=\"title\" x=\"%g\" y=\"28\" font-size=\"18\" font-weight=\"bold\">", PL);
    svg_put_text(f, p->title);
    fprintf(f, "</text>\n");
    if (p->subtitle) {
        fprintf(f, "<text class=\"subtitle\" x=\"%g\" y=\"50\" fill=\"#444\">", PL);
        svg_put_text(f, p->subtitle);
        fprintf(f, "</text>\n");
    }
}

/* The grid (decades on both axes), the axes' labels and the plot's frame. */
static void grid_and_axes(FILE *f, const svg_range *r)
{
    fprintf(f, "<g class=\"grid\" stroke=\"#ddd\" stroke-width=\"1\">\n");
    for (double x = r->xmin; x <= r->xmax * 1.0001; x *= 10) {
        double px = svg_x_of((uint64_t)x, r->xmin, r->xmax);
        fprintf(f, "<line x1=\"%.1f\" y1=\"%g\" x2=\"%.1f\" y2=\"%g\"/>\n", px, PT, px, H - PB);
    }
    for (double y = 1; y >= r->ymin * 0.9999; y /= 10) {
        double py = y_of(y, r->ymin);
        fprintf(f, "<line x1=\"%g\" y1=\"%.1f\" x2=\"%g\" y2=\"%.1f\"/>\n", PL, py, W - PR, py);
    }
    fprintf(f, "</g>\n<g class=\"axes\" fill=\"#222\">\n");
    for (double x = r->xmin; x <= r->xmax * 1.0001; x *= 10) {
        char b[32];
        fmt_ns(b, sizeof b, x);
        fprintf(f, "<text x=\"%.1f\" y=\"%g\" text-anchor=\"middle\">%s</text>\n",
                svg_x_of((uint64_t)x, r->xmin, r->xmax), H - PB + 18, b);
    }
    for (double y = 1; y >= r->ymin * 0.9999; y /= 10) {
        const char *name = y > 0.5 ? "100 %" : y > 0.05 ? "10 %" : y > 0.005 ? "1 % (p99)" : y > 0.0005 ? "0.1 % (p99.9)" : NULL;
        char b[32];
        if (!name) {
            snprintf(b, sizeof b, "%g %%", y * 100); /* same unit as the named rows */
            name = b;
        }
        fprintf(f, "<text x=\"%g\" y=\"%.1f\" text-anchor=\"end\" font-size=\"11\">%s</text>\n", PL - 6,
                y_of(y, r->ymin) + 4, name);
    }
    fprintf(f, "<text x=\"%g\" y=\"%g\" text-anchor=\"middle\">latency (log scale)</text>\n", (PL + W - PR) / 2,
            H - PB + 40);
    fprintf(f, "<text transform=\"translate(16 %g) rotate(-90)\" text-anchor=\"middle\">share of operations "
               "slower than x</text>\n</g>\n",
            (PT + H - PB) / 2);
    fprintf(f, "<rect x=\"%g\" y=\"%g\" width=\"%g\" height=\"%g\" fill=\"none\" stroke=\"#888\"/>\n", PL, PT,
            W - PL - PR, H - PT - PB);
}

/* The p99 line (a curve crossing it left of a threshold passes that threshold) and the thresholds. */
static void lines(FILE *f, const svg_plot *p, const svg_range *r)
{
    fprintf(f, "<line class=\"p99\" x1=\"%g\" y1=\"%.1f\" x2=\"%g\" y2=\"%.1f\" stroke=\"#999\" "
               "stroke-dasharray=\"2 3\"/>\n",
            PL, y_of(0.01, r->ymin), W - PR, y_of(0.01, r->ymin));
    for (size_t i = 0; i < p->nvlines; i++) {
        double px = svg_x_of(p->vlines[i].ns, r->xmin, r->xmax);
        fprintf(f, "<line class=\"threshold\" data-ns=\"%llu\" x1=\"%.1f\" y1=\"%g\" x2=\"%.1f\" y2=\"%g\" "
                   "stroke=\"%s\" stroke-width=\"2\" stroke-dasharray=\"6 4\"/>\n",
                (unsigned long long)p->vlines[i].ns, px, PT, px, H - PB, p->vlines[i].color);
        /* labels right of their line, or left of it in the right half so they stay inside the plot */
        int left = px > (PL + W - PR) / 2;
        fprintf(f, "<text x=\"%.1f\" y=\"%g\" fill=\"%s\" font-size=\"12\" text-anchor=\"%s\" "
                   "stroke=\"white\" stroke-width=\"3\" paint-order=\"stroke\">",
                left ? px - 4 : px + 4, PT + 14 + 16.0 * (double)i, p->vlines[i].color, left ? "end" : "start");
        svg_put_text(f, p->vlines[i].label);
        fprintf(f, "</text>\n");
    }
}

/* One series' exceedance curve: a step down at each bin. */
static void series_path(FILE *f, const svg_series *s, const svg_range *r)
{
    uint64_t n = 0, cum = 0;
    for (size_t b = 0; b < s->nbins; b++)
        n += s->bins[b].count;
    if (!n)
        return;
    fprintf(f, "<path class=\"series\" data-label=\"");
    svg_put_text(f, s->label);
    fprintf(f, "\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\" d=\"", s->color);
    double prev = 1.0;
    int first = 1;
    for (size_t b = 0; b < s->nbins; b++) {
        if (!s->bins[b].count)
            continue;
        cum += s->bins[b].count;
        double px = svg_x_of(s->bins[b].ns, r->xmin, r->xmax);
        double frac = (double)(n - cum) / (double)n;
        if (first)
            fprintf(f, "M%.1f %.1f", PL, y_of(prev, r->ymin));
        fprintf(f, " H%.1f V%.1f", px, y_of(frac, r->ymin));
        first = 0;
        prev = frac;
    }
    fprintf(f, "\"/>\n");
}

int svg_write(FILE *f, const svg_plot *p)
{
    svg_range r = ranges(p);
    header(f, p);
    grid_and_axes(f, &r);
    lines(f, p, &r);
    for (size_t i = 0; i < p->nseries; i++)
        series_path(f, &p->series[i], &r);
    /* legend below the plot */
    for (size_t i = 0; i < p->nseries; i++) {
        double ly = H - PB + 62 + 20.0 * (double)i;
        fprintf(f, "<line x1=\"%g\" y1=\"%g\" x2=\"%g\" y2=\"%g\" stroke=\"%s\" stroke-width=\"3\"/>\n", PL, ly - 4,
                PL + 28, ly - 4, p->series[i].color);
        fprintf(f, "<text class=\"legend\" x=\"%g\" y=\"%g\">", PL + 36, ly);
        svg_put_text(f, p->series[i].label);
        fprintf(f, "</text>\n");
    }
    fprintf(f, "</svg>\n");
    return ferror(f) ? -1 : 0;
}
