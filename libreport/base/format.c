/* SPDX-License-Identifier: MIT */
/* format.c — text every stage writes or scans the same way: durations as a person reads them
 * (fior_format_ns), a word at the start of a line (the readers' detectors and the Prometheus reader) and
 * a path with its "." and ".." taken out (the medium facts and the tmpfs rule). */
#include <stdio.h>
#include <string.h>

#include "internal.h"

/* "2.54 ms", "159 ms", "850 us", "10 ms": three significant digits (rounded half up), trailing zeros
 * dropped. Integer arithmetic: a fleet's report formats thousands of these, and printf's float path
 * would take a quarter of `etcd-fio verdict`'s time on a 1000-job normal output (bench/parser.sh). */
char *fior_format_ns(char *out, size_t n, uint64_t ns)
{
    static const struct { uint64_t div; const char *unit; } u[] = {
        {1000000000ull, "s"}, {1000000ull, "ms"}, {1000ull, "us"}, {1, "ns"},
    };
    size_t k = 0;
    while (k < 3 && ns < u[k].div)
        k++;
    uint64_t d = u[k].div, whole = ns / d;
    unsigned prec = d == 1 || whole >= 100 ? 0 : whole >= 10 ? 1 : 2;
    uint64_t scale = prec == 2 ? 100 : prec == 1 ? 10 : 1, step = d / scale;
    uint64_t q = ns / step + (ns % step >= step - step / 2 ? 1 : 0); /* value × scale, rounded */
    uint64_t ip = q / scale, fp = q % scale;
    if (prec == 2 && fp % 10 == 0) {
        fp /= 10;
        prec = 1;
    }
    if (fp == 0)
        prec = 0;
    char num[32], *e = num + sizeof num;
    *--e = '\0';
    for (unsigned i = 0; i < prec; i++, fp /= 10)
        *--e = (char)('0' + fp % 10);
    if (prec)
        *--e = '.';
    do
        *--e = (char)('0' + ip % 10);
    while (ip /= 10);
    if (out && n)
        snprintf(out, n, "%s %s", e, u[k].unit);
    return out;
}

/* The first occurrence of word (n bytes, its first byte not a blank) from `from` on that stands at the
 * start of a line of buf, after blank bytes only (those in `blanks`), or NULL. One memmem pass (memchr for one byte) over the input and a
 * look back over the blanks before each hit: the detectors run on every input before the reader that
 * takes it, so they must cost next to nothing per byte (not a call per line: bench/README.md). */
const char *fior__line_start(const char *buf, size_t len, const char *from, const char *word, size_t n,
                             const char *blanks)
{
    const char *end = buf + len;
    while (from < end && (from = memmem(from, (size_t)(end - from), word, n))) {
        const char *q = from;
        while (q > buf && q[-1] != '\n' && q[-1] != '\0' && strchr(blanks, q[-1]))
            q--;
        if (q == buf || q[-1] == '\n')
            return from;
        /* the rest of this line cannot start it (word begins with a non-blank byte): on to the next, so
         * that an input of nothing but that byte costs one pass, not a search per byte */
        if (!(from = memchr(from, '\n', (size_t)(end - from))))
            return NULL;
    }
    return NULL;
}

/* path with "//", "/./" and "x/.." taken out, as the kernel resolves them without symlinks; a path too
 * long for out stays as it is */
const char *fior__path_lexical(const char *p, char *out, size_t n)
{
    size_t len = strlen(p), at = 0;
    if (len >= n || p[0] != '/')
        return p;
    for (size_t i = 0; i < len;) {
        while (i < len && p[i] == '/')
            i++;
        size_t e = i;
        while (e < len && p[e] != '/')
            e++;
        size_t cl = e - i;
        if (cl == 0 || (cl == 1 && p[i] == '.')) {
        } else if (cl == 2 && p[i] == '.' && p[i + 1] == '.') {
            while (at > 0 && out[at - 1] != '/')
                at--;
            if (at > 0)
                at--;
        } else {
            out[at++] = '/';
            memcpy(out + at, p + i, cl);
            at += cl;
        }
        i = e;
    }
    if (at == 0)
        out[at++] = '/';
    out[at] = '\0';
    return out;
}

/* fior_format_ns, or "?" for UINT64_MAX (a bound that is not known) */
char *fior__ns_text(char *out, size_t n, uint64_t ns)
{
    if (ns == UINT64_MAX)
        snprintf(out, n, "?");
    else
        fior_format_ns(out, n, ns);
    return out;
}

/* A percentile as the reasons name it: "p99", "p99.9", "p90.99" */
char *fior__pct_text(char *out, size_t n, double percent)
{
    snprintf(out, n, "p%.6g", percent);
    return out;
}
