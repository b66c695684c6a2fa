/* SPDX-License-Identifier: MIT */
/* json_values.c — fmt_json.c's yajl callbacks for scalars (numbers, strings, null, booleans): where each
 * value of a fio JSON document goes (a job's own keys, its read/write/sync objects, the sync latency object,
 * the document's top) and the error when a key holds a value of the wrong type. Keys follow fio's stat.c
 * (show_thread_status_json / add_ddir_lat_json). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_doc.h"

#define D ((jdoc *)ctx)

/* A string, null or boolean where fio writes something else: the error for that key (1), or 0 when the key
 * takes any value. */
static int wrong_type(jdoc *d, int kind, int k, size_t off)
{
    const char *want = NULL;
    switch (kind) {
    case F_ROOT:
        want = k == K_JOBS || k == K_CLIENT_STATS ? "a \"jobs\" or \"client_stats\" array" : NULL;
        break;
    case F_JOB:
        want = k == K_ERROR ? "\"error\" as a whole number" : NULL;
        break;
    case F_LAT:
        want = k == K_N ? "a sample count \"N\" >= 0"
             : k == K_MIN || k == K_MAX ? "\"min\"/\"max\" as numbers >= 0"
             : k == K_MEAN ? "\"mean\" as a number >= 0"
             : k == K_STDDEV ? "\"stddev\" as a number >= 0"
             : k == K_PERCENTILE ? "\"percentile\" as an object"
             : k == K_BINS ? "\"bins\" as an object" : NULL;
        break;
    case F_SYNC:
        want = k == K_LAT_NS ? "an object" : NULL;
        break;
    case F_PCT:
        want = "percentile values as numbers";
        break;
    case F_BINS:
        want = "bin counts as whole numbers >= 0";
        break;
    }
    if (want)
        fior__jfail(d, FIOR_E_PARSE, off, want);
    return want != NULL;
}

int fior__jcb_string(void *ctx, const unsigned char *s, size_t n)
{
    jdoc *d = D;
    int k;
    jframe *f = fior__jtake_value(d, &k);
    if (!f)
        return 1;
    size_t off = fior__jtok_off(d, s, n, 1);
    if (f->kind == F_ROOT && k == K_FIO_VERSION)
        fior__jsetstr(d, &d->fio_version, s, n);
    else if (f->kind == F_JOB && k == K_JOBNAME)
        fior__jsetstr(d, &d->b.j.name, s, n);
    else if (f->kind == F_JOB && k == K_HOSTNAME)
        fior__jsetstr(d, &d->b.j.host, s, n);
    else if (f->kind == F_OPTS)
        fior__jopt_value(d, f, k, (const char *)s, n);
    else if (f->kind == F_DISK && k == K_X_DNAME) {
        /* the first device, unless a later one is memory: that one says more */
        char nm[sizeof d->disk_name];
        snprintf(nm, sizeof nm, "%.*s", (int)(n < sizeof nm ? n : sizeof nm - 1), (const char *)s);
        if (!d->disk_name[0] || (fior__ram_device(nm) && !fior__ram_device(d->disk_name)))
            memcpy(d->disk_name, nm, sizeof nm);
    }
    else
        wrong_type(d, f->kind, k, off);
    return 1;
}

/* A number among a job's own keys. */
static int job_number(jdoc *d, int k, const jnum *v, size_t off)
{
    fior_job *j = &d->b.j;
    int whole = v->is_int && !v->neg;
    if (k == K_ERROR) {
        if (!v->is_int || v->u > 1000000)
            return fior__jfail(d, FIOR_E_PARSE, off, "\"error\" as a whole number");
        j->error = v->neg ? -(int)v->u : (int)v->u;
        if (v->neg && !v->u)
            fior__jdoubt(d, "\"error\" is -0 in %s[%zu] (byte %zu): not a value fio writes", d->st[1].array_name,
                         d->st[1].count - 1, off);
    } else if (k == K_GROUPID && whole && v->u < 1000000) {
        j->group = (int)v->u;
    } else if (k == K_PORT && whole && v->u < 65536) {
        j->port = (int)v->u;
    } else if (k == K_ELAPSED && whole && v->u < 1000000000) {
        d->x.elapsed_s = v->u;
        d->x.has_elapsed = 1;
    } else if (k == K_JOB_RUNTIME && whole) {
        d->x.runtime_ms = v->u;
        d->x.has_runtime = 1;
    } else if (k == K_ETA && whole) {
        d->x.eta = v->u;
        d->x.has_eta = 1;
    }
    return 1;
}

/* A number in a job's read/write/trim or sync object: the write summary, and the counters the run's end
 * (run_end.c) and fio 3.4-3.17's sync count (json_job.c) are read from. */
static void ddir_number(jdoc *d, const jframe *f, int k, const jnum *v)
{
    fior_job *j = &d->b.j;
    if (!fior__jnum_ok(v))
        return;
    uint64_t u = fior__jnum_u64(v);
    int w = f->kind == F_DDIR && f->ddir == D_WRITE;
    if (f->kind == F_SYNC) {
        if (k == K_TOTAL_IOS) {
            d->x.sync_total = u;
            d->x.has_sync_total = 1;
        }
    } else if (k == K_IOPS && w) {
        j->write_iops = v->d;
    } else if (k == K_BW_BYTES && w) {
        j->write_bw_bytes = v->d;
    } else if (k == K_TOTAL_IOS) {
        if (w)
            d->x.writes = u;
        if (f->ddir == D_READ)
            d->x.reads = u;
        d->x.ios = d->x.ios > UINT64_MAX - u ? UINT64_MAX : d->x.ios + u;
    } else if (k == K_IO_BYTES) {
        d->x.bytes = d->x.bytes > UINT64_MAX - u ? UINT64_MAX : d->x.bytes + u;
        d->x.has_bytes = 1;
        d->x.ddir_bytes[f->ddir] = u;
    } else if (k == K_SHORT_IOS && f->ddir == D_READ) {
        d->x.read_short = u;
    } else if (k == K_SHORT_IOS && w) {
        d->x.short_w = u;
    } else if (k == K_RUNTIME) {
        d->x.ddir_rt[f->ddir] = u;
        d->x.has_ddir_rt[f->ddir] = 1;
        if (u > d->x.ddir_runtime_ms)
            d->x.ddir_runtime_ms = u;
    }
}

/* A number at the document's top: its timestamp (ms when fio gives it), or a wrong type. */
static void root_number(jdoc *d, int k, const jnum *v, size_t off)
{
    if (k == K_TIMESTAMP_MS && v->is_int && !v->neg) {
        d->ts_ms = v->u;
        d->ts_has_ms = 1;
    } else if (k == K_TIMESTAMP && v->is_int && !v->neg && !d->ts_has_ms && v->u < UINT64_MAX / 1000) {
        d->ts_ms = v->u * 1000;
        d->ts_known = 1;
    } else if (k == K_JOBS || k == K_CLIENT_STATS) {
        fior__jfail(d, FIOR_E_PARSE, off, "a \"jobs\" or \"client_stats\" array");
    }
}

/* A number in the sync latency object: the sample count and the summary. */
static int lat_number(jdoc *d, int k, const jnum *v, size_t off)
{
    fior_job *j = &d->b.j;
    switch (k) {
    case K_N:
        if (!fior__jnum_ok(v))
            return fior__jfail(d, FIOR_E_PARSE, off, "a sample count \"N\" >= 0");
        j->samples_known = 1;
        j->samples = fior__jnum_u64(v);
        return 1;
    case K_MIN:
    case K_MAX:
        if (!fior__jnum_ok(v))
            return fior__jfail(d, FIOR_E_PARSE, off, "\"min\"/\"max\" as numbers >= 0");
        *(k == K_MIN ? &j->min_ns : &j->max_ns) = fior__jnum_u64(v);
        return 1;
    case K_MEAN:
    case K_STDDEV:
        if (!fior__jnum_ok(v))
            return fior__jfail(d, FIOR_E_PARSE, off, k == K_MEAN ? "\"mean\" as a number >= 0"
                                                          : "\"stddev\" as a number >= 0");
        *(k == K_MEAN ? &j->mean_ns : &j->stddev_ns) = v->d;
        return 1;
    default:
        return fior__jfail(d, FIOR_E_PARSE, off, k == K_PERCENTILE ? "\"percentile\" as an object"
                                                            : "\"bins\" as an object");
    }
}

int fior__jcb_number(void *ctx, const char *s, size_t n)
{
    jdoc *d = D;
    int k;
    jframe *f = fior__jtake_value(d, &k);
    if (!f)
        return 1;
    size_t off = fior__jtok_off(d, s, n, 0);
    if (k == K_NONE)
        return 1;
    jnum v;
    fior__jnum_read(s, n, &v);
    fior_job *j = &d->b.j;
    switch (f->kind) {
    case F_ROOT:
        root_number(d, k, &v, off);
        return 1;
    case F_JOB:
        return job_number(d, k, &v, off);
    case F_OPTS:
        fior__jopt_value(d, f, k, s, n);
        return 1;
    case F_DDIR:
    case F_SYNC:
        ddir_number(d, f, k, &v);
        return 1;
    case F_CLAT:
        if (fior__jnum_ok(&v))
            j->write_clat_mean_ns = v.d;
        return 1;
    case F_LAT:
        return lat_number(d, k, &v, off);
    case F_DISK:
        if (k == K_X_DWRITE_IOS && fior__jnum_ok(&v))
            d->disk_wios = d->disk_wios > UINT64_MAX - v.u ? UINT64_MAX : d->disk_wios + fior__jnum_u64(&v);
        return 1;
    case F_PCT:
        if (!fior__jnum_ok(&v))
            return fior__jfail(d, FIOR_E_PARSE, off, "percentile values >= 0 (nanoseconds; -0 is not one)");
        if (fior__job_add_pct(&d->b, f->pkey, fior__jnum_u64(&v)))
            return fior__jfail(d, FIOR_E_NOMEM, off, "");
        return 1;
    case F_BINS:
        if (!v.is_int || v.neg)
            return fior__jfail(d, FIOR_E_PARSE, off, "bin counts as whole numbers >= 0");
        if (fior__job_add_bin(&d->b, f->bkey, v.u))
            return fior__jfail(d, FIOR_E_NOMEM, off, "");
        return 1;
    }
    return 1;
}

/* null and booleans: only where a number or string was expected do they matter */
static int cb_other(void *ctx)
{
    jdoc *d = D;
    int k;
    jframe *f = fior__jtake_value(d, &k);
    if (!f)
        return 1;
    if (k != K_NONE || f->kind == F_PCT || f->kind == F_BINS)
        wrong_type(d, f->kind, k, d->last_off);
    return 1;
}

int fior__jcb_null(void *ctx)
{
    return cb_other(ctx);
}

int fior__jcb_bool(void *ctx, int b)
{
    (void)b;
    return cb_other(ctx);
}
