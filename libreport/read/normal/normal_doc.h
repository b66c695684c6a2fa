/* SPDX-License-Identifier: MIT */
/* normal_doc.h — between fmt_normal.c (reads fio's normal output line by line into jobs) and normal_end.c
 * (what the output says of each job's end: fio's signal and "got signal" lines, each job's prints, the
 * io and runtime of its read/write lines, its cpu line) and normal_stats.c (a job's statistics lines):
 * the reader's state and the small text helpers they use. */
#ifndef FIOR_NORMAL_DOC_H
#define FIOR_NORMAL_DOC_H

#include <stdio.h>
#include <string.h>

#include "internal.h"

enum section { SEC_NONE, SEC_WRITE, SEC_OTHER, SEC_SYNC };

typedef struct desc {  /* job description line "NAME: (g=G): rw=…, ioengine=E, iodepth=…" */
    char *name;
    int   group;
    char *ioengine;
    uint64_t bs_w;   /* its one write block size ("(W) 2300B-2300B"), 0 for a range or when not given */
} desc;

/* What the output says of one job's end (run_end.c), by its index in the report: its prints (a
 * --status-interval normal output prints every job again and again) and their figures. */
typedef struct nfact {
    unsigned prints, last_print; /* how often it was printed, and the run's print count at its last one */
    uint64_t rt[3];              /* the write line's runtime of its last three prints, newest last (ms) */
    int      has_ddir, has_bytes, has_rt;
    uint64_t bytes, rt_ms;
    int      cpu_idle;           /* its cpu line says usr=0, sys=0, ctx=0: the process never ran to its end */
    int      has_cpu;            /* its print has a cpu line (a whole print, not an excerpt) */
    int      has_issued;         /* ... and an "issued rwts:" line */
    uint64_t jobs_j;             /* the J of its header's "jobs=J" (group_reporting: the group's jobs) */
    uint64_t issued_rw;          /* reads + writes + trims of its "issued rwts:" line */
    uint64_t issued_w, short_w;  /* its writes, and short ones (3.4-3.42: with sync_file_ranges) */
    uint64_t wbytes, wquant;     /* the bytes of its write line, and one unit of how they are printed */
    int      has_wbytes;
    int64_t  hdr_s;              /* its header's time ("pid=P: Wed Dec  2 12:55:26 2026", the print's time), */
    int      has_hdr_s;          /* in seconds from an arbitrary epoch (only differences are used) */
} nfact;

typedef struct nsig {             /* "fio: pid=P, got signal=S" (backend.c): a job process died */
    long pid;
    int  sig;
} nsig;

typedef struct ndisk {            /* a device of fio's "Disk stats (read/write):" block */
    unsigned run;
    char     name[64];
    uint64_t write_ios;
} ndisk;

typedef struct nmedium {          /* the engine's "etcdwal: NAME: pid=P: medium …" line */
    int   not_disk;                /* 1 "not a disk", 0 "disk", -1 "unknown" */
    char *why;
} nmedium;

typedef struct nstate {
    fior_report *r;
    const char  *source;
    size_t       lineno;
    char        *line;         /* current line, NUL-terminated copy */
    size_t       linecap;
    char        *version;      /* last fio version line seen */
    char        *host1;        /* the single client host seen, if only one */
    int          nhosts;
    desc        *descs;
    size_t       ndescs, dcap;
    fior__strmap         didx;         /* "name\x1fgroup" → descs[] */
    fior__strmap         jidx;         /* job identity → r->jobs[] */
    int          fio_seen;     /* version or description line seen: this is fio output */
    int          in_job;
    fior__jobb   job;
    enum section sec;
    uint64_t     pct_unit;     /* inside a percentile block: its unit; 0 outside */
    int          pct_target;   /* the block belongs to sync (1) or is skipped (0) */
    size_t       pct_rows, pct_start;
    int          pct_open;     /* last entry ended with ',' */
    int          sync_lines, issued_lines;  /* of the current job: each at most once */
    int          sync_shown;   /* ... its print has a sync heading or sync percentiles */
    unsigned     run;          /* fior_job.run of the jobs being read */
    size_t       run_first;    /* index in r->jobs of the current run's first job */
    int          run_fio;      /* the current run has shown fio's banner or a job description */
    int          run_summary;  /* the current run has printed its 'Run status group' summary */
    uint64_t     run_started;  /* its "Starting N processes" (threads): N, 0 when not seen */
    int          host_lost;    /* fio's client said "client: host=H disconnected" in this run */
    /* how the jobs ended (run_end.c) */
    nfact       *nf;           /* by index in r->jobs */
    size_t       nfcap;
    nfact        cur;          /* the job being read */
    unsigned     prints;       /* job prints of the current run */
    int          run_sig;      /* its "fio: terminating on signal N" line: N */
    unsigned     sig_prints;   /* prints before that line */
    nsig        *died;         /* its "got signal" lines */
    size_t       ndied, diedcap;
    fior__strmap backend;      /* "run\x1fname\x1fpid" of the engine's "etcdwal: NAME: pid=P: backend N commits"
                                * lines ("-" for the pid of a line without one) */
    fior__strmap media;        /* "run\x1fname\x1fpid" of its "medium" lines → index in medium */
    nmedium     *medium;
    size_t       nmedium, mediumcap;
    ndisk       *disks;        /* the Disk stats blocks of every run */
    size_t       ndisks, diskcap;
    int          in_disk;      /* the lines after "Disk stats (read/write):" */
    char        *err_line;     /* fio's last "fio: pid=P, err=N/…, error=TEXT" line (after "fio: ") */
    size_t       err_lineno;
} nstate;

static inline fior_status nomem(nstate *s)
{
    fior__seterr(s->r, "%s: out of memory", s->source);
    return FIOR_E_NOMEM;
}

static inline fior_status bad(nstate *s, const char *what)
{
    fior__seterr(s->r, "%s:%zu: expected %s", s->source, s->lineno, what);
    return FIOR_E_PARSE;
}

static inline const char *skip_ws(const char *p)
{
    while (*p == ' ' || *p == '\t')
        p++;
    return p;
}

/* The first-byte test keeps most lines away from strncmp: every line meets a dozen of these. */
static inline int starts(const char *p, const char *word)
{
    return p[0] == word[0] && strncmp(p, word, strlen(word)) == 0;
}

/* "key=" as a token: at the start or after a blank, ',' or '('. Returns the text after '=' (blanks
 * skipped), or NULL. */
static inline const char *find_key(const char *line, const char *key)
{
    size_t n = strlen(key);
    for (const char *p = strstr(line, key); p; p = strstr(p + 1, key)) {
        if (p[n] != '=')
            continue;
        if (p != line && !strchr(" \t,(", p[-1]))
            continue;
        return skip_ws(p + n + 1);
    }
    return NULL;
}

/* "(nsec)" / "(usec)" / "(msec)" right after `p` (blanks allowed). 0 when not one of them. */
/* normal_end.c */
void        fior__nnote_print(nstate *s, size_t idx);        /* job idx of the report was just printed */
void        fior__nddir_io(nstate *s, const char *p, int write); /* a read/write/trim line's "(39.6MiB/2755msec)" */
void        fior__ncpu_line(nstate *s, const char *p);       /* "cpu : usr=…, sys=…, ctx=…" */
/* fio's own "fio: …" lines; *mine: the line was one of them */
fior_status fior__nfio_says(nstate *s, const char *p, int *mine);
fior_status fior__nrun_ends(nstate *s);                      /* the current run's jobs' end */

/* normal_stats.c: a job's statistics lines */
uint64_t    fior__nunit_at(const char *p);                   /* "(nsec)"… after p: ns per unit, 0 if none */
int         fior__nparse_scaled(const char *p, double unit, double *out); /* "328998k" × unit; 0 on success */
fior_status fior__nfinish_pct(nstate *s);                    /* end of a percentile block */
void        fior__nwrite_line(nstate *s, const char *p);     /* "  write: IOPS=…, BW=…" */
fior_status fior__nsync_line(nstate *s, const char *p);      /* "    sync (usec): min=…" */
fior_status fior__nissued_line(nstate *s, const char *p);    /* "issued rwts: total=… short=…" */
fior_status fior__npct_row(nstate *s, const char *p);        /* "|  1.00th=[  652], …" */

#endif
