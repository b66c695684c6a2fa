/* SPDX-License-Identifier: MIT */
/* verdict_medium.c — where a job's syncs went, from every fact its input carries: fio's disk stats (JSON
 * "disk_util", text "Disk stats (read/write):"), the file or device name, the etcd-fio engine's own line
 * about its directory's filesystem, and the engine that issued the syncs. fior__medium_settle turns the
 * facts a reader found into fior_job.medium; fior__vmedium_rule takes a PASS away where they do not prove
 * a disk. */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

static int starts_num(const char *name, const char *prefix)
{
    size_t l = strlen(prefix);
    return !strncmp(name, prefix, l) && isdigit((unsigned char)name[l]);
}

/* A block device of this kernel name that is memory, or NULL (the same names as tools/fsdev.c). */
const char *fior__ram_device(const char *name)
{
    if (!name)
        return NULL;
    if (!strncmp(name, "/dev/", 5))
        name += 5;
    if (starts_num(name, "zram"))
        return "compressed RAM";
    if (starts_num(name, "ram"))
        return "a RAM disk (brd)";
    if (starts_num(name, "pmem"))
        return "persistent memory, flushed by the CPU, not a disk cache flush";
    if (starts_num(name, "nullb"))
        return "a null_blk device that keeps nothing";
    return NULL;
}

/* A file name that is no file on a disk: /dev/null, /dev/zero (character devices that keep nothing, and
 * whose fdatasync fails with EINVAL), a RAM block device. */
static const char *not_a_disk_file(const char *f, char *buf, size_t n)
{
    char norm[4096];
    if (!f)
        return NULL;
    f = fior__path_lexical(f, norm, sizeof norm);
    if (!strcmp(f, "/dev/null") || !strcmp(f, "/dev/zero") || !strcmp(f, "/dev/full"))
        return snprintf(buf, n, "filename=%s keeps nothing: its fdatasync fails (EINVAL)", f), buf;
    const char *ram = strncmp(f, "/dev/", 5) ? NULL : fior__ram_device(f);
    if (ram)
        return snprintf(buf, n, "filename=%s is %s", f, ram), buf;
    return NULL;
}

/* A loop device (its backing file is not in the input): the disk stats then name the loop device itself. */
static int is_loop(const char *name)
{
    if (name && !strncmp(name, "/dev/", 5))
        name += 5;
    return name && starts_num(name, "loop");
}

int fior__medium_settle(fior_job *j, size_t jobs_in_run)
{
    char why[256];
    const char *bad;
    if (j->medium == FIOR_MEDIUM_NOT_DISK) /* the engine said so: the strongest fact */
        return 0;
    if ((bad = not_a_disk_file(j->filename, why, sizeof why))) {
        j->medium = FIOR_MEDIUM_NOT_DISK;
        return fior__job_set(&j->medium_reason, bad, strlen(bad));
    }
    if (j->disk_name && (bad = fior__ram_device(j->disk_name))) {
        snprintf(why, sizeof why, "fio's disk stats show %s, %s", j->disk_name, bad);
        j->medium = FIOR_MEDIUM_NOT_DISK;
        return fior__job_set(&j->medium_reason, why, strlen(why));
    }
    /* each fdatasync after a write makes the device write at least once (the data, the journal): far fewer
     * device writes than syncs means the syncs did not go to it. fio samples the device every 250 ms
     * (diskutil.h DISK_UTIL_MSEC) while the job holds it, and its last update at the run's end finds no
     * users left (diskutil.c update_io_ticks): a run shorter than that shows 0 writes, and the last 250 ms
     * are never counted. So only a job that ran 1 s or more is compared, with the syncs of its counted part. */
    uint64_t counted = j->runtime_ms >= 1000 && j->samples_known
                       ? (uint64_t)((double)j->samples * (double)(j->runtime_ms - 250) / (double)j->runtime_ms) : 0;
    if (j->disk_name && counted >= 10 && j->disk_write_ios * 10 < counted) {
        snprintf(why, sizeof why, "fio's disk stats show %" PRIu64 " writes on %s for %" PRIu64 " syncs",
                 j->disk_write_ios, j->disk_name, j->samples);
        j->medium = FIOR_MEDIUM_NOT_DISK;
        return fior__job_set(&j->medium_reason, why, strlen(why));
    }
    /* a loop device: the file behind it is not in fio's output, and on tmpfs its flushes reach no disk */
    const char *loop = is_loop(j->filename) ? j->filename : is_loop(j->disk_name) ? j->disk_name : NULL;
    if (loop && j->medium != FIOR_MEDIUM_DISK) {
        snprintf(why, sizeof why, "%s is a loop device, and the file behind it (on tmpfs?) is not in this "
                 "output", loop);
        j->medium = FIOR_MEDIUM_NOT_DISK;
        return fior__job_set(&j->medium_reason, why, strlen(why));
    }
    if (j->medium == FIOR_MEDIUM_DISK || !j->disk_name)
        return 0;
    /* the run's disk stats are the run's: they prove the device of a job only when it is the run's one job,
     * and only when they were counted over most of its syncs */
    if (jobs_in_run == 1 && counted >= 10 && j->disk_write_ios * 10 >= counted) {
        snprintf(why, sizeof why, "fio's disk stats show %" PRIu64 " writes on %s", j->disk_write_ios,
                 j->disk_name);
        j->medium = FIOR_MEDIUM_DISK;
        return fior__job_set(&j->medium_reason, why, strlen(why));
    }
    return 0;
}

/* Engines whose syncs complete asynchronously: fio 3.4-3.34 (io_u.c io_completed) record a sync's latency
 * and return before looking at its error, so a failed sync (EINVAL on /dev/null, EIO from a failing disk)
 * is timed like a flush and the job says err=0. fio 3.35 ("io_u: make sure that sync errors are noticed
 * upfront") ends the job with the error instead. */
static int async_engine(const char *e)
{
    static const char *const async[] = {"io_uring", "libaio", "posixaio", "solarisaio", "windowsaio"};
    if (!e)
        return 0;
    for (size_t i = 0; i < sizeof async / sizeof async[0]; i++)
        if (!strcmp(e, async[i]))
            return 1;
    return 0;
}

static int times_failed_syncs(const char *fio_version)
{
    int ma, mi;
    if (fior__fio_version(fio_version, &ma, &mi))
        return 1; /* not known: the versions that do are the common ones */
    return ma < 3 || (ma == 3 && mi < 35);
}

fior_verdict fior__vmedium_rule(const fior_job *j, fior__judged *o)
{
    if (o->j.verdict != FIOR_PASS)
        return o->j.verdict;
    char was[sizeof o->reason];
    memcpy(was, o->reason, sizeof was);
    if (j->medium == FIOR_MEDIUM_NOT_DISK) {
        o->j.value_known = 0;
        return fior__vsay(o, FIOR_UNKNOWN, "no disk shown under these syncs: %s; run the job on the disk etcd "
                          "uses (measured: %s)", j->medium_reason ? j->medium_reason : "the input says so", was);
    }
    if (j->medium != FIOR_MEDIUM_DISK && async_engine(j->ioengine) && times_failed_syncs(j->fio_version)) {
        o->j.value_known = 0;
        return fior__vsay(o, FIOR_UNKNOWN, "ioengine=%s on %s: fio before 3.35 times a sync that failed as if it "
                          "had flushed, and no disk stats here show a device that took the writes; run it with "
                          "ioengine=sync, or keep fio's disk stats (measured: %s)", j->ioengine,
                          j->fio_version ? j->fio_version : "an unknown fio", was);
    }
    o->j.medium_inferred = j->medium != FIOR_MEDIUM_DISK;
    if (o->j.medium_inferred) /* one short clause: what this PASS did not prove */
        return fior__vsay(o, FIOR_PASS, "%s; a disk inferred, not shown", was);
    return o->j.verdict;
}
