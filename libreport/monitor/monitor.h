/* SPDX-License-Identifier: MIT */
/* monitor.h — the storage of fior_monitor and fior_outcome, shared by monitor.c (settings, feeding,
 * answers) and monitor_end.c (the verdict at a run's end). Library-internal. */
#ifndef FIOR_MONITOR_H
#define FIOR_MONITOR_H

#include "internal.h"
#include "bound/seqbound.h"

struct fior_monitor {
    fior_criteria c;
    double        confidence;
    int           accept_point, full, heavy;
    unsigned      roles;
    int           started;              /* first feed seen: settings are fixed */
    fior__seq     seq;
    fior__seq     carry;                /* fior__monitor_continue: phase 1's state */
    int           has_carry;
    fior_bin     *last[2];              /* the latest bins of each role (heavy: phase 1's final ones) */
    size_t        nlast[2];
    int           p1_passed;            /* heavy: phase 1 passed */
    fior_bin     *p1[2];                /* phase 2: phase 1's final bins, for the probe */
    size_t        np1[2];
    int           probe_on, probed;
    double        probe_from;           /* elapsed at phase 2's first WAL sample */
    fior__tp_probe probe;
    uint64_t      seen[2];              /* each role's sample count at the last feed */
    int           broken;               /* fed something that is not one growing run (err says what) */
    char          err[FIOR__ERRLEN];
};

/* Whether the caller asked about role r (fior_monitor_set_roles): the WAL always, the backend unless the WAL
 * alone was asked. */
static inline int fior__monitor_asks(const fior_monitor *m, fior_role r)
{
    return (m->roles >> r) & 1;
}

const fior__seq_side *fior__monitor_side(const fior_monitor *m, fior_role role);
/* The WAL job and the backend job of one run of r (fior__monitor_pick; the backend NULL when the WAL's run
 * has none). */
void fior__monitor_pair(const fior_report *r, const fior_job **w, const fior_job **b);

struct fior_outcome {
    fior_verdict verdict;
    fior_basis   basis;
    const char  *status;
    char         reason[1600];
    int          phase;                 /* 0 single run, 1, 2 */
    int          heavy_passed;          /* phase 1 whose bounds passed (fior__outcome_phases) */
    int          probe_ok;              /* phase 2 whose probe confirmed phase 1's PASS */
    double       duration_s;
    struct {
        int          present;
        fior_verdict verdict;
        char         line[700];
        int          judged;            /* j holds the library's judgement */
        fior__judged j;
        uint64_t     lo_ns, hi_ns;
        double       confidence;        /* the level lo..hi holds at */
    } role[2];
};

/* Whether role k's bins b can follow what was fed: ascending, counts that do not wrap, a total and every
 * latency's count at least the last feed's (cumulative counts of one run only grow; decisions made on one run
 * must not carry into another). 0 if so (their total becomes the last seen); else -1, m->broken set and
 * m->err saying why (monitor.c). */
int fior__monitor_grows(fior_monitor *m, int k, const fior_bin *b, size_t n);

#endif
