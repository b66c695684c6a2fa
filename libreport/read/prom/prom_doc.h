/* SPDX-License-Identifier: MIT */
/* prom_doc.h — between fmt_prom.c (reads a Prometheus scrape line by line: syntax, labels, comments) and
 * prom_series.c (the histogram series of etcd's two families: their buckets, _sum, _count, and the job each
 * becomes): the families read, one scrape's state and the calls between the two. */
#ifndef FIOR_PROM_DOC_H
#define FIOR_PROM_DOC_H

#include "internal.h"
#include "prom_num.h"

static const struct {
    const char *name;
    fior_role   role;
} FAM[] = {
    {"etcd_disk_wal_fsync_duration_seconds", FIOR_ROLE_WAL},
    {"etcd_disk_backend_commit_duration_seconds", FIOR_ROLE_BACKEND},
};
#define NFAM (sizeof FAM / sizeof FAM[0])
#define MAX_SERIES 4096 /* label sets per family: bounds the linear series lookup on hostile input */
#define EXACT_MAX (1ULL << 53) /* counts are printed as floats: exact only below 2^53 */

/* ---- one scrape ---- */
typedef struct pbk {
    uint64_t le_ns, count;
    int      le_exact, inf;
    size_t   line;
} pbk;

typedef struct pseries {
    int    fam;
    char  *labels;    /* canonical: sorted by name, le left out: a="x",b="y" (escapes as written) */
    char  *instance;  /* the instance label's value, or NULL */
    size_t line;
    pbk   *bk;
    size_t nbk, bkcap;
    int    has_count, has_sum, count_big;
    uint64_t count;
    size_t count_line, sum_line;
    double sum;
} pseries;

typedef struct plabel {
    const char *name, *val;
    size_t nlen, vlen;
} plabel;

typedef struct pinst {     /* what one instance label's lines say of its process (a federation file) */
    char *instance;
    char *member;          /* its etcd_server_id's server_id; "" once two different ones were seen */
    pnum  start;
    int   nstart;          /* as pctx.nstart */
} pinst;

typedef struct pctx {
    fior_report *r;
    const char  *src;
    size_t       line;
    pseries     *ser[NFAM];
    size_t       nser[NFAM], sercap[NFAM];
    plabel      *lab;
    size_t       labcap;
    char        *member;    /* etcd_server_id's server_id; "" once two different ones were seen */
    pnum         start;     /* process_start_time_seconds */
    int          nstart;    /* 0 none, 1 one value, 2 conflicting values */
    pinst       *inst;      /* the same per instance label */
    size_t       ninst, instcap;
} pctx;

#define PERR(c, ...) (fior__seterr((c)->r, __VA_ARGS__), FIOR_E_PARSE)

/* prom_series.c: a sample line of family f (name suffix: "_bucket", "_sum", "_count"…; nlab labels in
 * c->lab); etcd_server_id's line; one series checked and turned into a job */
fior_status fior__phistogram_line(pctx *c, int f, const char *suffix, size_t nlab, const pnum *v);
fior_status fior__pidentity_line(pctx *c, const char *name, size_t nn, size_t nlab, const pnum *v);
fior_status fior__pseries_job(pctx *c, pseries *s);

#endif
