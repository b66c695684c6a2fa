/* SPDX-License-Identifier: MIT */
/* prom_num.c — Prometheus sample values (see prom_num.h): Go's strconv.ParseFloat syntax, decimal digits
 * kept exactly (19 significant digits; beyond them `dropped` says the value is not exact). */
#include <math.h>
#include <string.h>

#include "prom_num.h"

static int ieq(const char *s, size_t n, const char *w)
{
    if (strlen(w) != n)
        return 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i] >= 'A' && s[i] <= 'Z' ? (char)(s[i] + 32) : s[i];
        if (c != w[i])
            return 0;
    }
    return 1;
}

int fior__pnum_parse(const char *s, size_t n, pnum *v)
{
    memset(v, 0, sizeof *v);
    size_t i = 0;
    if (i < n && (s[i] == '+' || s[i] == '-'))
        v->neg = s[i++] == '-';
    if (ieq(s + i, n - i, "inf") || ieq(s + i, n - i, "infinity")) {
        v->kind = v->neg ? N_NINF : N_PINF;
        return 0;
    }
    if (ieq(s + i, n - i, "nan") && i == 0) {
        v->kind = N_NAN;
        return 0;
    }
    int digits = 0, kept = 0, frac = 0;
    for (; i < n; i++) {
        char c = s[i];
        if (c == '.' && !frac) {
            frac = 1;
            continue;
        }
        if (c < '0' || c > '9')
            break;
        digits++;
        int sig = v->mant || c != '0';
        if (kept < 19) {
            if (sig) {
                v->mant = v->mant * 10 + (uint64_t)(c - '0');
                kept++;
            }
            v->exp10 -= frac; /* a fraction digit, leading zeros included, shifts the point */
        } else {
            v->dropped |= c != '0'; /* beyond 19 significant digits */
            v->exp10 += !frac;
        }
    }
    if (!digits)
        return -1;
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        int eneg = 0, edig = 0;
        long e = 0;
        i++;
        if (i < n && (s[i] == '+' || s[i] == '-'))
            eneg = s[i++] == '-';
        for (; i < n && s[i] >= '0' && s[i] <= '9'; i++, edig++)
            if (e < 100000)
                e = e * 10 + (s[i] - '0');
        if (!edig)
            return -1;
        v->exp10 += (int)(eneg ? -e : e);
    }
    if (i != n)
        return -1;
    if (!v->mant)
        v->exp10 = 0;
    while (v->mant && v->mant % 10 == 0) { /* canonical: equal values compare equal */
        v->mant /= 10;
        v->exp10++;
    }
    return 0;
}

/* floor(value × 10^scale) for a finite value >= 0; *exact when that is the value itself. -1 on overflow. */
int fior__pnum_scaled(const pnum *v, int scale, uint64_t *out, int *exact)
{
    long e = (long)v->exp10 + scale;
    uint64_t m = v->mant;
    *exact = !v->dropped;
    if (!m) {
        *out = 0;
        return 0;
    }
    for (; e > 0; e--) {
        if (m > UINT64_MAX / 10)
            return -1;
        m *= 10;
    }
    for (; e < 0; e++) {
        *exact &= m % 10 == 0;
        m /= 10;
    }
    *out = m;
    return 0;
}

double fior__pnum_double(const pnum *v)
{
    switch (v->kind) {
    case N_PINF: return INFINITY;
    case N_NINF: return -INFINITY;
    case N_NAN:  return NAN;
    }
    double d = (double)v->mant * pow(10.0, v->exp10);
    return v->neg ? -d : d;
}

