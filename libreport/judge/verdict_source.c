/* SPDX-License-Identifier: MIT */
/* verdict_source.c — what made a job's samples (issue 26): only a flush to a disk counts. The rules
 * fior__judge_job (verdict.c) applies after the latency itself: syncs that flushed nothing (a non-io
 * engine, a median too fast for a disk flush), a job without timed syncs, how the job ended, and a
 * directory on tmpfs. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

/* ---- what made the samples (issue 26): only a flush to a disk counts ---- */

/* At most how large the median can be, from what the input lists: the lowest listed percentile at or above
 * p50 (the upper edge of what its printed value may stand for), else the json+ bins' p50. 0 when neither
 * says (the mean does not bound the median from above). */
static int median_hi(const fior_job *j, uint64_t *hi_ns, uint64_t *shown)
{
    uint64_t res = j->pct_resolution_ns ? j->pct_resolution_ns : 1;
    for (size_t i = 0; i < j->npct; i++) /* ascending by percent */
        if (j->pct[i].percent >= 50.0 - 1e-9) {
            *hi_ns = fior__vbucket_hi(fior__vupper(*shown = j->pct[i].ns, res));
            return 1;
        }
    uint64_t lo, pt = 0, hi;
    fior_status st = j->nbins ? fior_quantile_bound(j->bins, j->nbins, 0.5, 0.95, &lo, &pt, &hi) : FIOR_E_INVAL;
    if (st == FIOR_E_INVAL || (st != FIOR_OK && !pt))
        return 0;
    *hi_ns = fior__vbucket_hi(*shown = pt);
    return 1;
}

/* UNKNOWN (1, reason said) when the job's sync samples are not flushes to a disk: an engine that does no
 * I/O, sync_file_range, files opened O_SYNC/O_DSYNC (the write flushes, the sync after it finds nothing to
 * do), writes that take longer than the syncs after them where the options are not in the input, and a
 * median below the physical floor. 0 otherwise. */
int fior__vnot_a_flush(const fior_job *j, const fior_criteria *c, fior__judged *o)
{
    char a[32], b[32], fl[32];
    unsigned f = j->sync_flags;
    uint64_t shown = 0, med = 0;
    int med_known = median_hi(j, &med, &shown);
    if (fior__engine_no_io(j->ioengine)) {
        fior_format_ns(a, sizeof a, shown);
        fior__vsay(o, FIOR_UNKNOWN, "ioengine=%s does no I/O: its syncs flush nothing to a disk (median %s); run the job "
            "with ioengine=sync or psync", j->ioengine, med_known ? a : "?");
        return 1;
    }
    if (f & FIOR_SYNC_RANGE) {
        fior__vsay(o, FIOR_UNKNOWN, "%s: sync_file_range only starts writeback and never flushes the disk's cache, and "
            "fio counts it among its syncs; run with fdatasync=1 instead", f & FIOR_SYNC_OPTIONS
            ? "the job's syncs are sync_file_range" : "fio counted these syncs where it counts sync_file_range");
        return 1;
    }
    if (f & (FIOR_SYNC_O_SYNC | FIOR_SYNC_O_DSYNC)) {
        const char *how = f & FIOR_SYNC_O_SYNC ? "sync=1 opens the files O_SYNC" : "sync=dsync opens the files O_DSYNC";
        fior_format_ns(a, sizeof a, (uint64_t)j->write_clat_mean_ns);
        fior__vsay(o, FIOR_UNKNOWN, "%s: every write flushes itself (write clat avg %s) and the fdatasync after it has "
            "nothing left to flush; run the job without it", how, j->write_clat_mean_ns > 0 ? a : "?");
        return 1;
    }
    if (c->floor_ns && med_known && med < c->floor_ns) { /* even the largest value the median may stand for */
        fior_format_ns(a, sizeof a, shown);
        fior_format_ns(fl, sizeof fl, c->floor_ns);
        fior__vsay(o, FIOR_UNKNOWN, "these %ss did not reach a disk: their median is %s, below the %s that any flush to "
            "a device takes (tmpfs, a RAM disk, or a cache that acknowledges without flushing?%s%s)",
            j->role == FIOR_ROLE_BACKEND ? "backend commit" : "fdatasync", a, fl, j->directory ? " directory=" : "",
            j->directory ? j->directory : "");
        return 1;
    }
    /* a buffered write only copies into the page cache (a 2300-byte one: ~5 us here, against fdatasyncs of
     * 35 us and more); a write that takes longer than the fdatasync after it did the flush itself (O_SYNC at
     * bs=2300: writes 133 us, syncs 43 us, 3.1x) */
    if (!(f & FIOR_SYNC_OPTIONS) && j->mean_ns > 0 && j->write_clat_mean_ns > j->mean_ns) {
        fior_format_ns(a, sizeof a, (uint64_t)j->write_clat_mean_ns);
        fior_format_ns(b, sizeof b, (uint64_t)j->mean_ns);
        fior__vsay(o, FIOR_UNKNOWN, "the writes took longer than the syncs after them (write clat avg %s, sync avg %s): the "
            "flush happened in the write (sync=1, O_DSYNC or direct=1?), which this input does not say; run without "
            "them, or give fio's JSON output, which lists the options", a, b);
        return 1;
    }
    return 0;
}

/* A job without timed syncs: what its options and its fio say happened. */
fior_verdict fior__vno_timed_syncs(const fior_job *j, fior__judged *o)
{
    int ma, mi;
    int old = !fior__fio_version(j->fio_version, &ma, &mi) && (ma < 3 || (ma == 3 && mi < 4));
    unsigned f = j->sync_flags;
    if (old && (j->sync_requested || (f & (FIOR_SYNC_FSYNC | FIOR_SYNC_FDATASYNC))))
        return fior__vsay(o, FIOR_UNKNOWN, "%s does not time fsync/fdatasync (fio records their latency from 3.4 on): this "
                   "job's syncs ran but were not measured; run it with fio 3.4 or later", j->fio_version);
    if ((f & FIOR_SYNC_ON_CLOSE) && !(f & (FIOR_SYNC_FSYNC | FIOR_SYNC_FDATASYNC)))
        return fior__vsay(o, FIOR_NOT_JUDGED, "fsync_on_close=1 makes one fsync as each file is closed, which fio does "
                   "not time: nothing here measures a sync; run with fdatasync=1 to time one after every write");
    if ((f & FIOR_SYNC_END_FSYNC) && !(f & (FIOR_SYNC_FSYNC | FIOR_SYNC_FDATASYNC)))
        return fior__vsay(o, FIOR_NOT_JUDGED, "end_fsync=1 makes one fsync when the job ends, which fio does not time: "
                   "nothing here measures a sync; run with fdatasync=1 to time one after every write");
    if (j->sync_requested && j->samples_known && j->samples > 0)
        return fior__vsay(o, FIOR_UNKNOWN, "fio counted %llu syncs of this job but timed none (gtod_reduce=1 or "
                   "disable_clat=1?): run it without them", (unsigned long long)j->samples);
    if (j->sync_requested)
        return fior__vsay(o, FIOR_UNKNOWN, "job asks for fsync/fdatasync but no sync latency was recorded");
    if (old)
        return fior__vsay(o, FIOR_NOT_JUDGED, "no fsync/fdatasync latency in this job: %s records none (fio times syncs "
                   "from 3.4 on)", j->fio_version);
    return fior__vsay(o, FIOR_NOT_JUDGED, "no fsync/fdatasync in this job");
}

/* A run fio did not finish is never a PASS (issue 25): a PASS (or a doubt about it) becomes UNKNOWN with
 * what happened; a FAIL stays a FAIL, a slow sync that was measured stays measured. The caller's own stop
 * (check stops fio once its bound is decided) is judged on the figures fio printed after it. */
fior_verdict fior__vend_rule(const fior_job *j, const fior_criteria *c, fior__judged *o)
{
    fior_verdict v = o->j.verdict;
    if (v == FIOR_NOT_JUDGED && j->end == FIOR_END_CUT) /* its syncs may be in what was cut away */
        return fior__vsay(o, FIOR_UNKNOWN, "%s", j->end_reason ? j->end_reason : "the input was cut");
    if (v == FIOR_NOT_JUDGED || j->end == FIOR_END_UNKNOWN || j->end == FIOR_END_PROVEN ||
        j->end == FIOR_END_INFERRED)
        return v; /* (a job with nothing to judge stays so) */
    if (j->end == FIOR_END_STOPPED && c->caller_stop && j->end_signal == c->caller_stop)
        return v;
    const char *why = j->end_reason ? j->end_reason : "the run did not reach its end";
    char was[sizeof o->reason];
    memcpy(was, o->reason, sizeof was);
    if (v == FIOR_FAIL)
        return fior__vsay(o, FIOR_FAIL, "%s, measured before the run's end (%s)", was, why);
    o->j.value_known = v == FIOR_PASS ? 0 : o->j.value_known;
    if (j->error && !j->defect && v == FIOR_UNKNOWN) /* the end reason names fio's error already: said once */
        return fior__vsay(o, FIOR_UNKNOWN, "%s", why);
    return fior__vsay(o, FIOR_UNKNOWN, "%s; until then: %s", why, was);
}

/* /dev/shm and /run are tmpfs on Linux: whatever the latencies, their syncs reach no disk. A sign, not
 * proof of the file system: it only takes a PASS away. */
fior_verdict fior__vtmpfs_rule(const fior_job *j, fior__judged *o)
{
    const char *d = j->directory ? j->directory : j->filename;
    if (o->j.verdict != FIOR_PASS || !d)
        return o->j.verdict;
    static const char *const tmpfs[] = {"/dev/shm", "/run"};
    char norm[4096];
    d = fior__path_lexical(d, norm, sizeof norm); /* "/dev//shm", "/tmp/../dev/./shm" are /dev/shm too */
    for (size_t i = 0; i < sizeof tmpfs / sizeof tmpfs[0]; i++) {
        size_t n = strlen(tmpfs[i]);
        if (!strncmp(d, tmpfs[i], n) && (d[n] == '\0' || d[n] == '/')) {
            char was[sizeof o->reason];
            memcpy(was, o->reason, sizeof was);
            o->j.value_known = 0;
            return fior__vsay(o, FIOR_UNKNOWN, "these syncs did not reach a disk: the job's %s is under %s, a tmpfs "
                       "(memory) on Linux; run it in a directory on the disk (measured: %s)",
                       j->directory ? "directory" : "filename", tmpfs[i], was);
        }
    }
    return o->j.verdict;
}
