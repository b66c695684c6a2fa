/* SPDX-License-Identifier: MIT */
/* prom_num.h — numbers of the Prometheus text format as Go's strconv.ParseFloat reads them (what
 * client_golang prints), kept as decimal digits: "0.001" s is exactly 1000000 ns. Used by fmt_prom.c and
 * prom_series.c. */
#ifndef FIOR_PROM_NUM_H
#define FIOR_PROM_NUM_H

#include <stdint.h>
#include <stddef.h>

enum { N_FIN, N_PINF, N_NINF, N_NAN };
typedef struct pnum {
    int      kind, neg, dropped; /* dropped: non-zero digits beyond the 19 kept */
    uint64_t mant;               /* value = mant × 10^exp10 */
    int      exp10;
} pnum;

/* 0 and *v set when s[0..n) is one whole number (also Inf, +Inf, -Inf, NaN); -1 otherwise. */
int fior__pnum_parse(const char *s, size_t n, pnum *v);
/* floor(value × 10^scale) for a finite value >= 0; *exact when that is the value itself. -1 on overflow. */
int fior__pnum_scaled(const pnum *v, int scale, uint64_t *out, int *exact);
double fior__pnum_double(const pnum *v);

#endif
