/* SPDX-License-Identifier: GPL-2.0-or-later */
/* wal.h — the etcd WAL write path as a plain C model (no fio types): segments named %016x-%016x.wal
 * (sequence, first raft index), CRC-chained frames through a page writer, Save = entries + HardState then
 * flush + fdatasync, and cut() at the segment size exactly in etcd's order (see wal.c). */
#ifndef ETCDWAL_WAL_H
#define ETCDWAL_WAL_H

#include <stddef.h>
#include <stdint.h>

#include "hist.h"
#include "pagewriter.h"
#include "pipeline.h"

#define WAL_DEFAULT_SEGMENT_BYTES 64000000ull
#define WAL_NAME_LEN 38 /* 16 + 1 + 16 + ".wal" + NUL */

typedef struct wal_config {
    uint64_t segment_bytes;   /* etcd's SegmentSizeBytes */
    int prealloc_mode;        /* PIPELINE_FALLOCATE or PIPELINE_TRUNCATE */
    size_t max_entry_bytes;   /* largest payload wal_append will get (sizes the one encode buffer) */
    uint64_t node_id, cluster_id;
    const char *dir_label;    /* directory path used in error messages */
    uint64_t first_fill_bytes; /* >0: Create fills segment 0 with history up to this offset (see wal_create) */
    const volatile _Bool *cancel; /* when it becomes true (fio terminating the job) the fill stops between
                                   * chunks and Create fails with -ECANCELED; NULL: never */
} wal_config;

typedef struct wal_stats {
    hist fdatasync;       /* each fdatasync of a segment, ns */
    hist dir_fsync;       /* each fsync of the WAL directory, ns */
    hist wal_fsync;       /* both of the above: what etcd_disk_wal_fsync_duration_seconds observes
                           * (summed by wal_close) */
    hist cut;             /* each whole cut(), ns */
    hist prealloc;        /* each segment preallocation, ns (first segment + pipeline spares) */
    hist bytes_per_sync;  /* frame bytes encoded per Save */
    uint64_t segments, rollovers, syncs, entries, records;
    uint64_t bytes_written;   /* bytes handed to write(2) */
    uint64_t prealloc_fallbacks;
    uint64_t fill_bytes;      /* history records written by Create's fill (not in bytes_written) */
    uint64_t fill_ns;         /* their write(2)s and fdatasync: setup time, in no histogram */
} wal_stats;

typedef struct wal {
    wal_config cfg;
    int dirfd;                /* not owned */
    int fd;                   /* tail segment */
    uint64_t seq, last_index, term, vote;
    uint32_t crc;             /* running CRC-32C */
    uint64_t seg_base_off;    /* file offset when the writer was pointed at this fd */
    uint64_t pw_base_out;     /* pw.bytes_out at that moment */
    uint64_t unsynced_bytes;
    char tail_name[WAL_NAME_LEN];
    pagewriter pw;
    pipeline pl;
    unsigned char *scratch;
    size_t scratch_cap;
    int failed;               /* a write path error happened: only close is allowed */
    wal_stats st;
} wal;

void wal_segment_name(char *out, uint64_t seq, uint64_t index);
/* Creates segment 0 in dirfd (O_EXCL), preallocates it, writes the CRC, metadata and snapshot records,
 * syncs, starts the pipeline and fsyncs the directory. 0 or -errno, message in err.
 * With cfg->first_fill_bytes (<= segment_bytes), before that sync it appends history — one raft entry of
 * max_entry_bytes and a HardState per Save, CRC-chained like any other — until segment 0 holds that many
 * bytes, in a few large write(2)s and the one fdatasync: the state a long-running etcd is in after a
 * restart (ReadAll leaves the encoder at the end of the last segment's records), so the run's Saves soon
 * cross a rollover while the segment is still segment_bytes long. */
int  wal_create(wal *w, int dirfd, const wal_config *cfg, char *err, size_t errlen);
/* One raft entry record carrying len bytes (buffered; may flush whole pages). */
int  wal_append(wal *w, const void *data, size_t len, char *err, size_t errlen);
/* Save's tail: HardState record, then flush + fdatasync, or cut() if the segment is full. */
int  wal_save(wal *w, char *err, size_t errlen);
/* Like etcd's Close: final flush + fdatasync (unless failed), stops the pipeline, closes the tail. */
int  wal_close(wal *w, char *err, size_t errlen);
/* The tail's file offset as etcd's Seek(0, SeekCurrent) sees it (written, not buffered). */
uint64_t wal_tail_offset(const wal *w);

#endif
