/* SPDX-License-Identifier: MIT */
/* aggregate.c — verdict values: their names both ways (fior_verdict_name, fior_verdict_from_name: the
 * words the CLI writes in its results and reads back), and the one aggregation of verdicts: jobs into a
 * host or a report (fior_verdict_combine, also fior_result_verdict's), hosts or runs into the overall verdict
 * (fior_verdict_overall). The not-judged rules are here and nowhere else: a job without sync samples is
 * left out of its host's verdict, but a host (or a report) with nothing judged is UNKNOWN, never a PASS;
 * a host that is itself not judged is UNKNOWN in the overall verdict, and no host at all is UNKNOWN. */
#include <string.h>

#include "internal.h"

const char *fior_verdict_name(fior_verdict v)
{
    switch (v) {
    case FIOR_PASS:       return "pass";
    case FIOR_FAIL:       return "fail";
    case FIOR_UNKNOWN:    return "unknown";
    case FIOR_NOT_JUDGED: return "not judged";
    }
    return "unknown";
}

fior_status fior_verdict_from_name(const char *name, fior_verdict *out)
{
    static const fior_verdict all[] = {FIOR_PASS, FIOR_FAIL, FIOR_UNKNOWN, FIOR_NOT_JUDGED};
    for (size_t i = 0; name && i < sizeof all / sizeof all[0]; i++)
        if (!strcmp(name, fior_verdict_name(all[i]))) {
            if (out)
                *out = all[i];
            return FIOR_OK;
        }
    return FIOR_E_INVAL;
}

fior_verdict fior_verdict_combine(const fior_verdict *v, size_t n)
{
    int fail = 0, unknown = 0, pass = 0;
    for (size_t i = 0; v && i < n; i++) {
        switch (v[i]) {
        case FIOR_PASS: pass = 1; break;
        case FIOR_FAIL: fail = 1; break;
        case FIOR_NOT_JUDGED: break;   /* left out: no sync samples to judge */
        default: unknown = 1; break;   /* FIOR_UNKNOWN, and any value this version does not know */
        }
    }
    return fail ? FIOR_FAIL : unknown || !pass ? FIOR_UNKNOWN : FIOR_PASS;
}

fior_verdict fior_verdict_overall(const fior_verdict *v, size_t n)
{
    int fail = 0, unknown = 0;
    for (size_t i = 0; v && i < n; i++) {
        fail |= v[i] == FIOR_FAIL;
        unknown |= v[i] != FIOR_PASS && v[i] != FIOR_FAIL; /* a host with nothing judged is not a PASS */
    }
    return fail ? FIOR_FAIL : unknown || !n || !v ? FIOR_UNKNOWN : FIOR_PASS;
}
