/* SPDX-License-Identifier: MIT */
/* tjudge.h — for the cmocka tests: judge a report (fior_judge) and keep the result until the next call, so
 * a test reads job i's judgement as JV(i).verdict, JV(i).reason… One static result: not for threads. */
#ifndef TJUDGE_H
#define TJUDGE_H

#include "fioreport.h"

static fior_result *tj_res;

static __attribute__((unused)) fior_verdict tj_judge(const fior_report *r, const fior_criteria *c)
{
    fior_result_free(tj_res);
    tj_res = fior_judge(r, c);
    assert_non_null(tj_res);
    assert_int_equal(fior_result_count(tj_res), fior_report_njobs(r));
    return fior_result_verdict(tj_res);
}

static __attribute__((unused)) const fior_judgement *tj_job(size_t i)
{
    const fior_judgement *j = fior_result_job(tj_res, i);
    assert_non_null(j);
    assert_non_null(j->reason);
    return j;
}
#define JV(i) (*tj_job(i))

#endif
