/* SPDX-License-Identifier: MIT */
/* medium.c — where a job's syncs went, from every fact its input carries: fio's disk stats (JSON
 * "disk_util", text "Disk stats (read/write):"), the file or device name and the etcd-fio engine's own
 * line about its directory's filesystem. fior__medium_settle turns the facts a reader found into
 * fior_job.medium (and its reason); the judge's medium rule (judge/verdict_medium.c) takes a PASS away
 * where they do not prove a disk. */
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
