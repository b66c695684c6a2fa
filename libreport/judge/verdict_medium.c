/* SPDX-License-Identifier: MIT */
/* verdict_medium.c — the medium rule: fior__vmedium_rule takes a PASS away where the facts of where a
 * job's syncs went (fior_job.medium, settled by the readers: read/medium.c) do not prove a disk, or where
 * the engine that issued them cannot show one by its latencies. */
#include <string.h>

#include "internal.h"

/* Engines whose syncs complete asynchronously: fio 3.4-3.34 (io_u.c io_completed) record a sync's latency
 * and return before looking at its error, so a failed sync (EINVAL on /dev/null, EIO from a failing disk)
 * is timed like a flush and the job says err=0. fio 3.35 ("io_u: make sure that sync errors are noticed
 * upfront") ends the job with the error instead. In every version an asynchronous engine's sync latency
 * holds its own submission and completion (tens to hundreds of microseconds), so a flush that did nothing
 * (tmpfs: fio 3.39 with io_uring times 204 us p99 there) is not told apart from a fast device by the floor the
 * synchronous engines are held to: without disk stats such a PASS is not proven. */
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
    if (j->medium != FIOR_MEDIUM_DISK && async_engine(j->ioengine)) {
        o->j.value_known = 0;
        if (times_failed_syncs(j->fio_version))
            return fior__vsay(o, FIOR_UNKNOWN, "ioengine=%s on %s: fio before 3.35 times a sync that failed as if "
                              "it had flushed, and no disk stats here show a device that took the writes; run it "
                              "with ioengine=sync, or keep fio's disk stats (measured: %s)", j->ioengine,
                              j->fio_version ? j->fio_version : "an unknown fio", was);
        return fior__vsay(o, FIOR_UNKNOWN, "ioengine=%s: its sync latencies include its own queueing, so they "
                          "cannot show that the syncs reached a device (a flush on tmpfs looks the same), and no disk "
                          "stats here show one; run it with ioengine=sync, or keep fio's disk stats (measured: %s)",
                          j->ioengine, was);
    }
    o->j.medium_inferred = j->medium != FIOR_MEDIUM_DISK;
    if (o->j.medium_inferred) /* one short clause: what this PASS did not prove */
        return fior__vsay(o, FIOR_PASS, "%s; a disk inferred, not shown", was);
    return o->j.verdict;
}
