/* SPDX-License-Identifier: MIT */
/* criteria.c — what a verdict is judged against (fior_criteria, curl-style setters so that fields can be
 * added without breaking callers): the percentile, each role's threshold, the fewest samples, the flush
 * floor and the caller's own stop signal, with etcd's defaults. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define MS 1000000ULL

void fior__criteria_default(fior_criteria *c)
{
    c->percentile = 99.0;
    c->threshold_ns[FIOR_ROLE_WAL] = 10 * MS;     /* etcd's WAL fdatasync guidance */
    c->threshold_ns[FIOR_ROLE_BACKEND] = 25 * MS; /* bbolt backend commit guidance */
    c->min_samples = 100;
    c->floor_ns = FIOR_FLOOR_DEFAULT_NS; /* bench/flush_floor.sh: the fastest real flush here took 35 us */
    c->caller_stop = 0;
}

static int role_ok(fior_role role)
{
    return (unsigned)role < FIOR__NROLES;
}

fior_criteria *fior_criteria_new(void)
{
    fior_criteria *c = malloc(sizeof *c);
    if (c)
        fior__criteria_default(c);
    return c;
}

void fior_criteria_free(fior_criteria *c)
{
    free(c);
}

fior_criteria *fior_criteria_dup(const fior_criteria *c)
{
    fior_criteria *d = fior_criteria_new();
    if (d && c)
        *d = *c;
    return d;
}

fior_status fior_criteria_set_percentile(fior_criteria *c, double percent)
{
    if (!c || !(percent > 0 && percent < 100)) /* also refuses NaN */
        return FIOR_E_INVAL;
    c->percentile = percent;
    return FIOR_OK;
}

fior_status fior_criteria_set_threshold(fior_criteria *c, fior_role role, uint64_t ns)
{
    if (!c || !role_ok(role) || ns == 0)
        return FIOR_E_INVAL;
    c->threshold_ns[role] = ns;
    return FIOR_OK;
}

fior_status fior_criteria_set_min_samples(fior_criteria *c, uint64_t n)
{
    if (!c)
        return FIOR_E_INVAL;
    c->min_samples = n;
    return FIOR_OK;
}

fior_status fior_criteria_set_floor(fior_criteria *c, uint64_t floor_ns)
{
    if (!c)
        return FIOR_E_INVAL;
    c->floor_ns = floor_ns;
    return FIOR_OK;
}

fior_status fior_criteria_set_caller_stop(fior_criteria *c, int signo)
{
    if (!c || signo < 0)
        return FIOR_E_INVAL;
    c->caller_stop = signo;
    return FIOR_OK;
}

uint64_t fior_criteria_floor(const fior_criteria *c)
{
    return c ? c->floor_ns : FIOR_FLOOR_DEFAULT_NS;
}

int fior_criteria_caller_stop(const fior_criteria *c)
{
    return c ? c->caller_stop : 0;
}

double fior_criteria_percentile(const fior_criteria *c)
{
    return c ? c->percentile : 99.0;
}

uint64_t fior_criteria_threshold(const fior_criteria *c, fior_role role)
{
    fior_criteria d;
    if (!c) {
        fior__criteria_default(&d);
        c = &d;
    }
    return c->threshold_ns[role_ok(role) ? role : FIOR_ROLE_WAL];
}

uint64_t fior_criteria_min_samples(const fior_criteria *c)
{
    return c ? c->min_samples : 100;
}
