/* SPDX-License-Identifier: MIT */
/* fmt_json.c — reads one fio JSON / json+ document as a stream of yajl events (no tree): only the keys the
 * verdict needs are looked at, everything else is skipped as it goes by, so memory is bounded by what is
 * kept per job (its percentiles and json+ bins), not by the input. json_stream.c finds the documents in the
 * input and feeds them here; this file turns one document's events into jobs (its scalars: json_values.c).
 * Keys follow fio's stat.c (show_thread_status_json / add_ddir_lat_json) and client.c (client_stats).
 *
 * What the input says about itself is checked, not assumed: a key that repeats ("error":5,"error":0, two
 * "sync" objects), a job without "error" or a sync block without "N", a percentile list that goes down
 * anywhere: each makes the job's fior_job.defect say so (key and byte), and the verdict UNKNOWN. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_doc.h"

/* ---- keys ---- */

#define KEY(s) {s, sizeof s - 1}
static const struct {
    const char *name;
    size_t      len;
} keys[K__COUNT] = {
    KEY(""), KEY("fio version"), KEY("timestamp"), KEY("timestamp_ms"), KEY("global options"), KEY("jobs"),
    KEY("client_stats"), KEY("jobname"), KEY("groupid"), KEY("error"), KEY("hostname"), KEY("port"),
    KEY("job options"), KEY("write"), KEY("sync"), KEY("elapsed"), KEY("job_runtime"), KEY("read"), KEY("trim"),
    KEY("eta"), KEY("iops"), KEY("bw_bytes"), KEY("total_ios"), KEY("clat_ns"), KEY("io_bytes"), KEY("short_ios"),
    KEY("runtime"), KEY("lat_ns"), KEY("N"), KEY("min"), KEY("max"), KEY("mean"), KEY("stddev"), KEY("percentile"),
    KEY("bins"), KEY("ioengine"), KEY("etcd_mode"), KEY("fdatasync"), KEY("fsync"), KEY("gtod_reduce"),
    KEY("size"), KEY("io_size"), KEY("io_limit"), KEY("filesize"), KEY("nrfiles"), KEY("number_ios"),
    KEY("runtime"), KEY("timeout"), KEY("loops"), KEY("numjobs"), KEY("bs"), KEY("blocksize"), KEY("bsrange"),
    KEY("kb_base"), KEY("sync"), KEY("direct"), KEY("buffered"), KEY("sync_file_range"), KEY("end_fsync"),
    KEY("fsync_on_close"), KEY("directory"), KEY("filename"),
};
#undef KEY

static const unsigned char keys_root[] = {K_FIO_VERSION, K_TIMESTAMP, K_TIMESTAMP_MS, K_GLOBAL_OPTS, K_JOBS,
                                          K_CLIENT_STATS, 0};
static const unsigned char keys_job[] = {K_JOBNAME, K_GROUPID, K_ERROR, K_HOSTNAME, K_PORT, K_JOB_OPTS,
                                         K_WRITE, K_SYNC, K_ELAPSED, K_JOB_RUNTIME, K_READ, K_TRIM, K_ETA, 0};
static const unsigned char keys_ddir[] = {K_IOPS, K_BW_BYTES, K_TOTAL_IOS, K_CLAT_NS, K_IO_BYTES, K_SHORT_IOS,
                                          K_RUNTIME, 0};
static const unsigned char keys_clat[] = {K_MEAN, 0};
static const unsigned char keys_sync[] = {K_LAT_NS, K_TOTAL_IOS, 0};
static const unsigned char keys_lat[] = {K_N, K_MIN, K_MAX, K_MEAN, K_STDDEV, K_PERCENTILE, K_BINS, 0};
static const unsigned char keys_opts[] = {
    K_O_IOENGINE, K_O_ETCD_MODE, K_O_FDATASYNC, K_O_FSYNC, K_O_GTOD, K_O_SIZE, K_O_IO_SIZE, K_O_IO_LIMIT,
    K_O_FILESIZE, K_O_NRFILES, K_O_NUMBER_IOS, K_O_RUNTIME, K_O_TIMEOUT, K_O_LOOPS, K_O_NUMJOBS, K_O_BS,
    K_O_BLOCKSIZE, K_O_BSRANGE, K_O_KB_BASE, K_O_SYNC, K_O_DIRECT, K_O_BUFFERED, K_O_SFR, K_O_END_FSYNC,
    K_O_FSYNC_ON_CLOSE, K_O_DIRECTORY, K_O_FILENAME, 0};

static const unsigned char *const frame_keys[] = {
    [F_ROOT] = keys_root, [F_JOB] = keys_job, [F_DDIR] = keys_ddir, [F_CLAT] = keys_clat,
    [F_SYNC] = keys_sync, [F_LAT] = keys_lat, [F_OPTS] = keys_opts,
};

/* Called for every key of every object read (most of them skipped): length and first byte before memcmp. */
const char *fior__jkey(int k)
{
    return keys[k].name;
}

static int key_id(int kind, const unsigned char *k, size_t n)
{
    const unsigned char *ids = frame_keys[kind];
    for (; ids && *ids; ids++)
        if (keys[*ids].len == n && keys[*ids].name[0] == (char)k[0] && !memcmp(keys[*ids].name, k, n))
            return *ids;
    return K_NONE;
}

static void dup_key(jdoc *d, int key, size_t off)
{
    char p[128];
    fior__jpath(d, p, sizeof p);
    if (!d->in_job) {  /* the document's own keys, or its global options */
        if (!d->doc_doubt[0])
            snprintf(d->doc_doubt, sizeof d->doc_doubt, "two \"%s\" keys in %s (byte %zu): which one is fio's "
                     "is unknown", keys[key].name, p[0] ? p : "the document", off);
        return;
    }
    fior__jdoubt(d, "two \"%s\" keys in %s (byte %zu): which one is fio's is unknown", keys[key].name, p, off);
}

/* ---- yajl callbacks ---- */

#define D ((jdoc *)ctx)

static jframe *top(jdoc *d)
{
    return &d->st[d->depth];
}

/* A value (scalar) arrived: which key of which frame it belongs to. Returns the frame or NULL to ignore. */
static jframe *value_slot(jdoc *d)
{
    if (d->skip)
        return NULL;
    jframe *f = top(d);
    if (f->kind == F_JOBS) {  /* a scalar where a job object belongs */
        f->count++;
        fior__jfail(d, FIOR_E_PARSE, d->last_off, "a job object");
        return NULL;
    }
    return f;
}

/* The frame a scalar belongs to, and in *key the key it is the value of (taken from the frame); NULL when
 * the document has failed or the scalar is to be skipped. */
jframe *fior__jtake_value(jdoc *d, int *key)
{
    if (d->failed)
        return NULL;
    jframe *f = value_slot(d);
    if (!f)
        return NULL;
    *key = f->key;
    f->key = K_NONE;
    return f;
}

static int push(jdoc *d, int kind, const char *name)
{
    if (d->depth + 1 >= JDOC_DEPTH) {  /* cannot happen with the frames above; skip rather than overflow */
        d->skip++;
        return 1;
    }
    jframe *f = &d->st[++d->depth];
    memset(f, 0, sizeof *f);
    f->kind = kind;
    f->name = name;
    return 1;
}

/* fio nests 6 deep; yajl keeps a byte per open container, so a hostile "[[[[…" would take memory in
 * proportion to the input: deeper than this is refused and the parse stopped. */
#define JDOC_MAX_NEST 256

static int nest_skip(jdoc *d)
{
    if (++d->skip + (unsigned)(d->depth > 0 ? d->depth : 0) < JDOC_MAX_NEST)
        return 1;
    fior__jfail(d, FIOR_E_PARSE, d->last_off, "objects and arrays nested at most 256 deep");
    return 0;
}

static int cb_start_map(void *ctx)
{
    jdoc *d = D;
    if (d->skip || d->failed)
        return nest_skip(d);
    if (d->depth < 0) {  /* the document itself */
        d->depth = 0;
        memset(&d->st[0], 0, sizeof d->st[0]);
        d->st[0].kind = F_ROOT;
        return 1;
    }
    jframe *f = top(d);
    int k = f->key;
    f->key = K_NONE;
    switch (f->kind) {
    case F_JOBS:
        f->count++;
        push(d, F_JOB, "");
        fior__jjob_begin(d);
        return 1;
    case F_ROOT:
        if (k == K_GLOBAL_OPTS) {
            push(d, F_OPTS, "global options");
            top(d)->global = 1;
            return 1;
        }
        if (k == K_JOBS || k == K_CLIENT_STATS)
            fior__jfail(d, FIOR_E_PARSE, d->last_off, "a \"jobs\" or \"client_stats\" array");
        break;
    case F_JOB:
        if (k == K_JOB_OPTS) {
            d->x.has_opts = 1;
            return push(d, F_OPTS, "job options");
        }
        if (k == K_WRITE || k == K_READ || k == K_TRIM) {
            push(d, F_DDIR, k == K_WRITE ? "write" : k == K_READ ? "read" : "trim");
            top(d)->ddir = k == K_WRITE ? D_WRITE : k == K_READ ? D_READ : D_TRIM;
            return 1;
        }
        if (k == K_SYNC)
            return push(d, F_SYNC, "sync");
        break;
    case F_DDIR:
        if (k == K_CLAT_NS && f->ddir == D_WRITE)
            return push(d, F_CLAT, "clat_ns");
        break;
    case F_SYNC:
        if (k == K_LAT_NS)
            return push(d, F_LAT, "lat_ns");
        break;
    case F_LAT:
        if (k == K_PERCENTILE) {
            d->x.pct_off = d->last_off;
            return push(d, F_PCT, "percentile");
        }
        if (k == K_BINS) {
            d->x.bins_off = d->last_off;
            return push(d, F_BINS, "bins");
        }
        if (k != K_NONE)
            fior__jfail(d, FIOR_E_PARSE, d->last_off, "a number");
        break;
    case F_DISKS:
        return push(d, F_DISK, "");
    case F_PCT:
        fior__jfail(d, FIOR_E_PARSE, d->last_off, "percentile values as numbers");
        break;
    case F_BINS:
        fior__jfail(d, FIOR_E_PARSE, d->last_off, "bin counts as whole numbers >= 0");
        break;
    }
    return nest_skip(d);
}

static int cb_start_array(void *ctx)
{
    jdoc *d = D;
    if (d->skip || d->failed)
        return nest_skip(d);
    jframe *f = top(d);
    int k = f->key;
    f->key = K_NONE;
    if (f->kind == F_ROOT && k == K_X_DISK_UTIL)
        return push(d, F_DISKS, "disk_util");
    if (f->kind == F_ROOT && (k == K_JOBS || k == K_CLIENT_STATS)) {
        d->has_jobs = 1;
        push(d, F_JOBS, "");
        top(d)->array_name = keys[k].name;
        top(d)->client_stats = k == K_CLIENT_STATS;
        return 1;
    }
    if (f->kind == F_JOBS) {
        f->count++;
        fior__jfail(d, FIOR_E_PARSE, d->last_off, "a job object");
    } else if (f->kind == F_LAT && k != K_NONE) {
        fior__jfail(d, FIOR_E_PARSE, d->last_off, k == K_PERCENTILE ? "\"percentile\" as an object"
                                          : k == K_BINS ? "\"bins\" as an object" : "a number");
    } else if (f->kind == F_SYNC && k == K_LAT_NS) {
        fior__jfail(d, FIOR_E_PARSE, d->last_off, "an object");
    }
    return nest_skip(d);
}

/* "N" missing is only told at the job's end (fior__jjob_end): fio before 3.18 writes none, and the count is
 * then in keys that come after lat_ns */
static void lat_end(jdoc *d, const jframe *f)
{
    fior_job *j = &d->b.j;
    d->x.has_lat = 1;
    d->x.has_n = (f->seen & (1ull << K_N)) != 0;
    d->x.lat_off = f->off;
    /* N counts the timed syncs; with N missing a percentile still proves there were some */
    j->has_sync = j->samples_known ? j->samples > 0 : (j->npct > 0 || j->max_ns > 0);
}

static int cb_end_container(void *ctx)
{
    jdoc *d = D;
    if (d->skip) {
        d->skip--;
        return 1;
    }
    if (d->depth < 0)
        return 1;
    jframe *f = top(d);
    switch (f->kind) {
    case F_ROOT:
        d->depth = -1;
        d->done = 1;
        return 0;  /* the document is complete: stop yajl here, the scanner goes on after it */
    case F_JOB:
        d->depth--;
        fior__jjob_end(d, f);
        return 1;
    case F_LAT:
        if (d->in_job && !d->failed)
            lat_end(d, f);
        break;
    default:
        break;
    }
    d->depth--;
    return 1;
}

static int cb_end_array(void *ctx)
{
    jdoc *d = D;
    if (!d->skip && d->depth >= 0 && top(d)->kind == F_JOBS && d->held_valid) {
        d->held_valid = 0;  /* the held "All clients" was the last entry: fio's sum, not a job */
        fior__job_clear(&d->held);
    }
    return cb_end_container(ctx);
}

static int cb_key(void *ctx, const unsigned char *k, size_t n)
{
    jdoc *d = D;
    if (d->skip || d->failed)
        return 1;
    size_t off = fior__jtok_off(d, k, n, 1);
    jframe *f = top(d);
    if (f->kind == F_PCT) {
        char tmp[64];
        const char *p = tmp;
        double pc;
        if (n >= sizeof tmp || (memcpy(tmp, k, n), tmp[n] = '\0', fior__parse_dec(&p, &pc)) || *p ||
            pc > 100.0)
            return fior__jfail(d, FIOR_E_PARSE, off, "percentile keys like \"99.000000\"");
        f->pkey = pc;
        f->key = K_PERCENTILE;
        return 1;
    }
    if (f->kind == F_BINS) {
        char tmp[32];
        const char *p = tmp;
        uint64_t ns;
        if (n >= sizeof tmp || (memcpy(tmp, k, n), tmp[n] = '\0', fior__parse_u64(&p, &ns)) || *p)
            return fior__jfail(d, FIOR_E_PARSE, off, "bin keys as whole nanoseconds");
        f->bkey = ns;
        f->key = K_BINS;
        return 1;
    }
    if ((f->kind == F_ROOT && n == 9 && !memcmp(k, "disk_util", 9)) || f->kind == F_DISK) {
        f->key = f->kind == F_ROOT ? K_X_DISK_UTIL : n == 4 && !memcmp(k, "name", 4) ? K_X_DNAME
               : n == 9 && !memcmp(k, "write_ios", 9) ? K_X_DWRITE_IOS : K_NONE;
        return 1;
    }
    if (f->kind == F_JOB && !d->x.off)
        d->x.off = off;  /* a job is where its first key is */
    int id = key_id(f->kind, k, n);
    f->key = id;
    if (id) {
        /* fio lists an option as often as it was given (the last one counts): for the options that end a
         * job or change its syncs, a repeat is not a contradiction, and opt_end_value keeps the value that
         * proves least (the largest size, any O_SYNC) */
        if ((f->seen & (1ull << id)) && !(f->kind == F_OPTS && id >= K_O_SIZE))
            dup_key(d, id, off);
        f->seen |= 1ull << id;
        if (f->kind == F_LAT && !f->off)
            f->off = off;
    }
    return 1;
}

const yajl_callbacks fior__jdoc_callbacks = {
    fior__jcb_null, fior__jcb_bool, NULL, NULL, fior__jcb_number, fior__jcb_string, cb_start_map, cb_key,
    cb_end_container, cb_start_array, cb_end_array,
};
