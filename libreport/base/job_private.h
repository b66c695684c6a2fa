/* SPDX-License-Identifier: MIT */
/* job_private.h — what the readers know of a job that is theirs, not a program's: the resolution fio
 * printed its percentiles at, the pid of a normal-output job header, etcdctl check perf's own verdict.
 * fior_job (fioreport.h) ends with these fields in every build that includes this file first — the library
 * and what reads them beside it (tests, fuzz harnesses): `-include libreport/base/job_private.h`
 * (libreport/rules.mk). A program built with the public header alone sees fior_job without them: the same
 * layout up to there, and fior_job.size, which the library sets to FIOR__JOB_PUBLIC_SIZE, stops before
 * them. A job is only ever handed out by pointer, never copied or allocated by a program. */
#ifndef FIOR_JOB_PRIVATE_H
#define FIOR_JOB_PRIVATE_H

#include <stdint.h>

#define FIOR__JOB_PRIVATE_FIELDS \
    uint64_t pct_resolution_ns; /* pct values were printed rounded to this unit (normal output: 1000 for \
                                 * usec, 1000000 for msec); 1 when not rounded (JSON) */ \
    long     pid;               /* normal output: pid= of the job header, else -1 */ \
    int      check_verdict;     /* etcdctl check perf: FIOR_PASS / FIOR_FAIL as etcdctl printed it, \
                                 * FIOR_UNKNOWN when its final PASS/FAIL line is missing; else -1 */

/* The public part of a job: what the library sets fior_job.size to. */
#define FIOR__JOB_PUBLIC_SIZE offsetof(fior_job, pct_resolution_ns)

#endif
