/* SPDX-License-Identifier: MIT */
/* json_doc.h — between json_stream.c (finds fio JSON documents in the input, feeds them to yajl, groups
 * documents into runs) and fmt_json.c (the yajl callbacks that turn one document's events into jobs;
 * json_values.c: those for scalars). */
#ifndef FIOR_JSON_DOC_H
#define FIOR_JSON_DOC_H

#include <yajl/yajl_parse.h>

#include "internal.h"

/* The keys read (their names: fior__jkey); every other key's value is skipped as it goes by. */
enum {
    K_NONE = 0,
    /* document */
    K_FIO_VERSION, K_TIMESTAMP, K_TIMESTAMP_MS, K_GLOBAL_OPTS, K_JOBS, K_CLIENT_STATS,
    /* job */
    K_JOBNAME, K_GROUPID, K_ERROR, K_HOSTNAME, K_PORT, K_JOB_OPTS, K_WRITE, K_SYNC, K_ELAPSED, K_JOB_RUNTIME,
    K_READ, K_TRIM, K_ETA,
    /* read, write, trim */
    K_IOPS, K_BW_BYTES, K_TOTAL_IOS, K_CLAT_NS, K_IO_BYTES, K_SHORT_IOS, K_RUNTIME,
    /* sync, lat_ns, clat_ns */
    K_LAT_NS, K_N, K_MIN, K_MAX, K_MEAN, K_STDDEV, K_PERCENTILE, K_BINS,
    /* options */
    K_O_IOENGINE, K_O_ETCD_MODE, K_O_FDATASYNC, K_O_FSYNC, K_O_GTOD,
    /* options that say when a job ends (run_end.c) and what its syncs are */
    K_O_SIZE, K_O_IO_SIZE, K_O_IO_LIMIT, K_O_FILESIZE, K_O_NRFILES, K_O_NUMBER_IOS, K_O_RUNTIME, K_O_TIMEOUT,
    K_O_LOOPS, K_O_NUMJOBS, K_O_BS, K_O_BLOCKSIZE, K_O_BSRANGE, K_O_KB_BASE, K_O_SYNC, K_O_DIRECT, K_O_BUFFERED,
    K_O_SFR, K_O_END_FSYNC, K_O_FSYNC_ON_CLOSE, K_O_DIRECTORY, K_O_FILENAME,
    K__COUNT
};
/* jframe.seen has a bit per key */
_Static_assert(K__COUNT <= 64, "a key id must fit jframe.seen");
const char *fior__jkey(int k);

/* The objects whose keys are read. */
enum { F_ROOT, F_JOBS, F_JOB, F_OPTS, F_DDIR, F_CLAT, F_SYNC, F_LAT, F_PCT, F_BINS, F_DISKS, F_DISK };
/* The keys of fio's "disk_util" array (stat.c json_add_disk_util): ids beyond K__COUNT, not in jframe.seen
 * (fio writes one object per device; nothing there is judged for contradictions) */
enum { K_X_DISK_UTIL = 100, K_X_DNAME, K_X_DWRITE_IOS };
enum { D_READ, D_WRITE, D_TRIM };  /* jframe.ddir of an F_DDIR frame */

#define JDOC_DEPTH 8  /* root > jobs[] > job > sync > lat_ns > percentile is the deepest path read */

typedef struct jframe {
    int         kind;
    int         key;           /* the key whose value comes next (K_*), K_NONE to skip it */
    uint64_t    seen;          /* keys met in this object (bit K_*): a second one is a contradiction */
    const char *name;          /* for messages: "sync", "lat_ns", … */
    const char *array_name;    /* F_JOBS: "jobs" or "client_stats" */
    size_t      count;         /* F_JOBS: elements started so far */
    size_t      off;           /* F_LAT: byte of its first key */
    int         client_stats;  /* F_JOBS of client_stats */
    int         global;        /* F_OPTS of "global options" */
    double      pkey;          /* F_PCT: the percentile of the value that comes next */
    uint64_t    bkey;          /* F_BINS: the bin of the value that comes next */
    int         ddir;          /* F_DDIR: D_READ, D_WRITE or D_TRIM */
} jframe;

/* What a job's options say, kept until the document ends ("global options" may come after the jobs). */
typedef struct jjob {
    signed char fdatasync, fsync, gtod;  /* -1 not given, 0, 1 */
    int         own_ioengine, own_etcd_mode, has_opts, has_elapsed;
    uint64_t    writes;                  /* write "total_ios" */
    uint64_t    elapsed_s, runtime_ms;   /* "elapsed" (s since fio started), "job_runtime": see same_run() */
    size_t      off, pct_off, bins_off;  /* bytes, for messages */
    /* the options that end a job and make its syncs (run_end.c): 0 not given, UINT64_MAX unreadable */
    uint64_t    o_size, o_io_size, o_filesize, o_nrfiles, o_number_ios, o_runtime_ms, o_loops, o_numjobs, o_bs;
    signed char o_sync, o_direct, o_sfr, o_end_fsync, o_close_fsync;  /* -1 not given; o_sync 0 none, 1 O_SYNC, 2 O_DSYNC */
    int         kb1000, own_directory, own_filename;
    /* counters */
    uint64_t    bytes, ios, reads, read_short, sync_total, eta, ddir_runtime_ms;
    uint64_t    ddir_bytes[3], ddir_rt[3]; /* "io_bytes" and "runtime" of read, write, trim */
    unsigned char has_ddir_rt[3];
    uint64_t    short_w;                 /* write "short_ios" */
    int         o_bs_var;                /* bs is a range, a list or a split: no one block size */
    int         has_eta, has_runtime, has_bytes, has_sync_total, has_n, has_lat;
    size_t      lat_off;                 /* byte of its sync lat_ns, for the message when "N" is missing */
    /* filled in at the document's end: the facts fior__job_end needs that the document alone gives */
    fior__endfacts end;
} jjob;

typedef struct jdoc {
    fior_report *out;          /* jobs of this document */
    const char  *source;
    size_t       doc_off;      /* 1-based byte of the document's '{' */
    /* where yajl is reading, for byte offsets */
    const char  *chunk;
    size_t       chunk_len, chunk_abs; /* chunk_abs: 0-based offset of chunk[0] in the input */
    int          first_tok;    /* no token of this chunk handed over yet (see tok_off) */
    size_t       last_off;     /* 1-based byte of the last token whose position is known */
    fior_status  failed;       /* first error (message in out->err); the rest of the document is skipped */
    int          done;         /* the document's closing '}' was read */
    int          depth;        /* -1 before the document's '{' */
    unsigned     skip;         /* nesting depth inside a skipped value */
    jframe       st[JDOC_DEPTH];
    int          has_jobs, in_job;
    fior__jobb   b;            /* the job being read */
    jjob         x;
    fior__jobb   held;         /* a client_stats "All clients" entry, until we know it was the last */
    jjob         held_x;
    int          held_valid;
    jjob        *aux;          /* x of every job in out, by index */
    size_t       naux, auxcap;
    jjob         gx;           /* global options */
    const char  *g_ioengine, *g_etcd_mode, *fio_version, *g_directory, *g_filename;
    uint64_t     ts_ms;        /* "timestamp_ms", else "timestamp" × 1000 */
    int          ts_known, ts_has_ms;
    char         doc_doubt[192]; /* a contradiction in the document's own keys: every job gets it */
    char         disk_name[64]; /* "disk_util": the first device, or the first that is memory */
    uint64_t     disk_wios;     /* their "write_ios" together */
} jdoc;

extern const yajl_callbacks fior__jdoc_callbacks;

/* A stream of fio JSON documents (json_stream.c; its signal lines: json_signal.c). */
struct fior_json_stream {
    char          *source;
    fior_report   *rep;       /* the finished runs, then the current run's latest document */
    size_t         ndone;     /* jobs of finished runs at the front of rep */
    unsigned       run;       /* index of the current run */
    int            have_cur;
    uint64_t       cur_ts;
    int            cur_ts_known, cur_ts_ms;
    jjob          *cur_x;     /* what the current run's latest document said of its jobs (d.aux) */
    size_t         cur_xcap;
    fior_report   *doc;       /* the document being read */
    fior_report   *err;       /* message of this feed's first error */
    fior_status    first_st;  /* the input's first error (whole-input use), message in first_err */
    char           first_err[FIOR__ERRLEN];
    jdoc           d;
    yajl_handle    h;
    int            in_doc, bol, text_jobs;
    int            col0;      /* no byte since the last newline (or the input's start) */
    int            resync;    /* after a broken or dropped document: the next starts at column 0 (doc_abandon) */
    unsigned       hdr_match;
    size_t         pos, doc_start;
    unsigned long  docs;
    int            keep_gaps; /* fior__stream_keep_gaps: the bytes outside documents are kept in gap */
    char          *gap;
    size_t         gaplen, gapcap;
    uint64_t       max_doc;   /* a document may take this many bytes (fior_json_stream_set_max_document) */
    /* fio's "\nfio: terminating on signal N\n" lines, found anywhere (also inside a document, where fio's
     * signal handler may have written it) and taken out before the scanner sees the bytes */
    char           held[64];  /* the input's tail from a '\n' that may begin one, until more bytes come */
    size_t         heldlen;
    uint64_t       held_abs;  /* where the first held byte of the input stands in it (after a virtual '\n') */
    int            held_virtual; /* held[0] is a '\n' before the input's first byte, not in the input */
    uint64_t       raw;       /* bytes fed so far (s->pos is set per piece handed to the scanner) */
    int            sig_pending; /* a signal line after the current run's latest document */
    int            sig_in_doc;  /* a signal line inside the document being read: it follows that document */
    /* the current run, for fior__job_end (run_end.c) */
    unsigned       run_docs;
    int            run_signal, run_after; /* its signal line, and whether a document came after it */
    uint64_t       run_gap, run_interval; /* ms between its last two documents, and the two before */
};

/* json_stream.c: the scanner over bytes without signal lines (buf at input offset s->pos), and the bytes
 * outside documents kept for the normal half of normal,json output */
fior_status fior__scan_feed(fior_json_stream *s, const char *buf, size_t len);
void        fior__keep_gap(fior_json_stream *s, const char *p, size_t n);
/* json_signal.c: raw input in (the signal lines out, the rest to fior__scan_feed); the input's end (held
 * bytes); the current run's end from its latest document, with a signal line after it when signal_after
 * and another run's document followed; a signal line read (inside a document: once it is committed). */
fior_status fior__feed_raw(fior_json_stream *s, const char *buf, size_t len);
fior_status fior__flush_held(fior_json_stream *s);
fior_status fior__run_end(fior_json_stream *s, int signal_after);
fior_status fior__on_signal(fior_json_stream *s, int sig);

/* json_job.c */
/* 1-based byte of a token yajl hands over at p (n bytes; is_str: a string's content) */
size_t      fior__jtok_off(jdoc *d, const void *p, size_t n, int is_str);
void        fior__jpath(const jdoc *d, char *out, size_t n);   /* "jobs[3].sync.lat_ns" */
/* A parse error at byte off ("expected WHAT at PATH"): the document fails, reading goes on to its end. 1. */
int         fior__jfail(jdoc *d, fior_status st, size_t off, const char *what);
/* The job's first contradiction, as its defect (the verdict: UNKNOWN with this reason). */
void        fior__jdoubt(jdoc *d, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
typedef struct jnum {
    int      neg, is_int, big; /* big: an integer beyond uint64 */
    uint64_t u;
    double   d;
} jnum;
void        fior__jnum_read(const char *s, size_t n, jnum *v);
int         fior__jnum_ok(const jnum *v);      /* a finite number >= 0 (not -0) below 1.8e19 */
uint64_t    fior__jnum_u64(const jnum *v);
int         fior__jsetstr(jdoc *d, const char **field, const unsigned char *s, size_t n); /* 0, -1 nomem */
void        fior__jjob_begin(jdoc *d);
void        fior__jjob_end(jdoc *d, const jframe *f);  /* f: the job's frame; pushes the job into d->out */
void        fior__jpush_held(jdoc *d);                 /* a held "All clients" entry was not the last */
/* json_opts.c: the value (n bytes at s) of option `key` in options frame f */
void        fior__jopt_value(jdoc *d, const jframe *f, int key, const char *s, size_t n);

/* d must be zeroed before its first use. begin clears `out` and starts a document at byte doc_off. */
void        fior__jdoc_begin(jdoc *d, fior_report *out, const char *source, size_t doc_off);
fior_status fior__jdoc_end(jdoc *d);  /* after the closing '}': applies global options, checks */
void        fior__jdoc_free(jdoc *d);

/* fmt_json.c: the frame a scalar belongs to and in *key its key (NULL: skip it); json_values.c: the
 * scalar callbacks of fior__jdoc_callbacks */
jframe     *fior__jtake_value(jdoc *d, int *key);
int         fior__jcb_null(void *ctx);
int         fior__jcb_bool(void *ctx, int b);
int         fior__jcb_number(void *ctx, const char *s, size_t n);
int         fior__jcb_string(void *ctx, const unsigned char *s, size_t n);

#endif
