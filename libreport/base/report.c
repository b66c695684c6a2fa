/* SPDX-License-Identifier: MIT */
/* report.c — the report handle: fior_report_new/free, its error, its format, the jobs read so far and the
 * cap on an input's size. The readers fill it (job storage: job.c; the fior_parse_* entry points:
 * read/parse.c); the judge reads it. */
#include <stdlib.h>

#include "internal.h"

fior_report *fior_report_new(void)
{
    return calloc(1, sizeof(fior_report));
}

void fior_report_free(fior_report *r)
{
    if (!r)
        return;
    fior__report_clear(r);
    free(r->jobs);
    free(r);
}

const char *fior_report_error(const fior_report *r)
{
    return r ? r->err : "no report";
}

const char *fior_strstatus(fior_status s)
{
    switch (s) {
    case FIOR_OK:       return "ok";
    case FIOR_E_INVAL:  return "invalid argument";
    case FIOR_E_NOMEM:  return "out of memory";
    case FIOR_E_IO:     return "cannot read input";
    case FIOR_E_PARSE:  return "malformed or truncated input";
    case FIOR_E_FORMAT: return "not fio output or an etcd-perf log";
    case FIOR_E_NODATA: return "no such data";
    case FIOR_E_TOOBIG: return "input larger than the cap";
    }
    return "unknown status";
}

fior_format fior_report_format(const fior_report *r)
{
    return r ? r->format : FIOR_FMT_UNKNOWN;
}

size_t fior_report_njobs(const fior_report *r)
{
    return r ? r->njobs : 0;
}

const fior_job *fior_report_job(const fior_report *r, size_t i)
{
    return (r && i < r->njobs) ? &r->jobs[i] : NULL;
}

fior_status fior_report_set_max_input(fior_report *r, uint64_t bytes)
{
    if (!r || bytes == 0)
        return FIOR_E_INVAL;
    r->max_input = bytes;
    return FIOR_OK;
}

uint64_t fior_report_max_input(const fior_report *r)
{
    return r && r->max_input ? r->max_input : FIOR_MAX_INPUT_DEFAULT;
}
