/* fior2.h — the CLI's one include of libfioreport. The CLI is written against Library API 2.0 (opaque
 * criteria, library-owned judgements, lower-case verdict names); until libreport ships it, this header
 * provides that API over 1.0 as static functions. Once fioreport.h says 2.x it is a plain include. */
#ifndef ETCD_FIO_FIOR2_H
#define ETCD_FIO_FIOR2_H

#include <stdlib.h>
#include <string.h>

#define fior_criteria    fior1_criteria
#define fior_judgement   fior1_judgement
#define fior_verdict_name fior1_verdict_name
#include "fioreport.h"
#undef fior_criteria
#undef fior_judgement
#undef fior_verdict_name

#if FIOR_VERSION_MAJOR >= 2
#error "libfioreport 2.x is here: delete tools/fior2.h and include fioreport.h"
#endif

typedef struct fior_criteria {
    fior1_criteria c;
} fior_criteria;

typedef struct fior_judgement {
    fior_verdict verdict;
    int          value_known;
    uint64_t     value_ns;
    uint64_t     threshold_ns;
    const char  *reason;
} fior_judgement;

typedef struct fior_result {
    fior_verdict     overall;
    size_t           n;
    fior1_judgement *v1;
    fior_judgement  *j;
} fior_result;

static inline fior_criteria *fior_criteria_new(void)
{
    fior_criteria *c = malloc(sizeof *c);
    if (c)
        fior_criteria_default(&c->c);
    return c;
}
static inline void fior_criteria_free(fior_criteria *c) { free(c); }
static inline fior_status fior_criteria_set_percentile(fior_criteria *c, double p)
{
    if (!c || !(p > 0 && p < 100))
        return FIOR_E_INVAL;
    c->c.percentile = p;
    return FIOR_OK;
}
static inline fior_status fior_criteria_set_threshold(fior_criteria *c, fior_role role, uint64_t ns)
{
    if (!c || !ns)
        return FIOR_E_INVAL;
    *(role == FIOR_ROLE_BACKEND ? &c->c.backend_threshold_ns : &c->c.wal_threshold_ns) = ns;
    return FIOR_OK;
}
static inline fior_status fior_criteria_set_min_samples(fior_criteria *c, uint64_t n)
{
    if (!c)
        return FIOR_E_INVAL;
    c->c.min_samples = n;
    return FIOR_OK;
}
static inline double fior_criteria_percentile(const fior_criteria *c) { return c->c.percentile; }
static inline uint64_t fior_criteria_threshold(const fior_criteria *c, fior_role role)
{
    return role == FIOR_ROLE_BACKEND ? c->c.backend_threshold_ns : c->c.wal_threshold_ns;
}
static inline uint64_t fior_criteria_min_samples(const fior_criteria *c) { return c->c.min_samples; }

static inline fior_result *fior_judge(const fior_report *r, const fior_criteria *c)
{
    fior_result *res = calloc(1, sizeof *res);
    if (!res)
        return NULL;
    res->n = r ? fior_report_njobs(r) : 0;
    res->v1 = calloc(res->n ? res->n : 1, sizeof *res->v1);
    res->j = calloc(res->n ? res->n : 1, sizeof *res->j);
    if (!res->v1 || !res->j) {
        free(res->v1), free(res->j), free(res);
        return NULL;
    }
    res->overall = r ? fior_judge_report(r, &c->c, res->v1) : FIOR_UNKNOWN;
    for (size_t i = 0; i < res->n; i++)
        res->j[i] = (fior_judgement){res->v1[i].verdict, res->v1[i].value_known, res->v1[i].value_ns,
                                     res->v1[i].threshold_ns, res->v1[i].reason};
    return res;
}
static inline void fior_result_free(fior_result *res)
{
    if (res)
        free(res->v1), free(res->j), free(res);
}
static inline fior_verdict fior_result_verdict(const fior_result *res) { return res->overall; }
static inline size_t fior_result_count(const fior_result *res) { return res->n; }
static inline const fior_judgement *fior_result_job(const fior_result *res, size_t i)
{
    return i < res->n ? &res->j[i] : NULL;
}
static inline const char *fior_verdict_name(fior_verdict v)
{
    switch (v) {
    case FIOR_PASS: return "pass";
    case FIOR_FAIL: return "fail";
    case FIOR_NOT_JUDGED: return "not judged";
    default: return "unknown";
    }
}
static inline const char *fior_version(void) { return "1.0.0"; }

#endif
