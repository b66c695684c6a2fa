/* SPDX-License-Identifier: GPL-2.0-or-later */
/* wal.c — the WAL model (see wal.h). The order of system calls follows etcd's server/storage/wal/wal.go
 * (Create, Save, cut, sync, Close) because that order is what the disk sees and what this engine measures. */
#include "wal.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "crc32c.h"
#include "walrec.h"
#include "sys.h"

#define WAL_TERM 2 /* a settled single-member cluster: term 2 after its first election */

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void wal_segment_name(char *out, uint64_t seq, uint64_t index)
{
    snprintf(out, WAL_NAME_LEN, "%016" PRIx64 "-%016" PRIx64 ".wal", seq, index);
}

static int fail(wal *w, int rc, char *err, size_t errlen, const char *call, const char *name)
{
    w->failed = 1;
    snprintf(err, errlen, "%s(%s/%s): %s", call, w->cfg.dir_label ? w->cfg.dir_label : ".", name,
             strerror(-rc));
    return rc;
}

uint64_t wal_tail_offset(const wal *w)
{
    return w->seg_base_off + (w->pw.bytes_out - w->pw_base_out);
}

static void retarget(wal *w, int fd, uint64_t off)
{
    w->fd = fd;
    pw_retarget(&w->pw, fd, (size_t)(off % w->pw.page_bytes));
    w->seg_base_off = off;
    w->pw_base_out = w->pw.bytes_out;
}

/* encoder.encode's CRC and marshal step: the running CRC over the data, then the frame into out (cap bytes,
 * which the callers size so that it fits). Returns the frame size. */
static size_t frame(wal *w, unsigned char *out, size_t cap, int type, const void *d1, size_t l1, const void *d2,
                    size_t l2)
{
    if (l1)
        w->crc = crc32c_update(w->crc, d1, l1);
    if (l2)
        w->crc = crc32c_update(w->crc, d2, l2);
    return walrec_frame(out, cap, type, w->crc, type != WAL_REC_CRC, d1, l1, d2, l2);
}

/* encoder.encode: CRC over the data, then the length field and the padded record into the page writer.
 * etcd marshals the record into its own buffer and hands the length field and the record to the page
 * writer in two writes; while both fit under the watermark those are two copies into the page buffer, so
 * the frame is built in place there instead (pw_reserve). (Writing the payload from fio's buffer with a
 * writev instead of copying it costs more in the kernel: bench/README.md.) A frame
 * that would pass the watermark goes the way etcd's does: marshal, then two writes through the flush rule. */
static int encode(wal *w, int type, const void *d1, size_t l1, const void *d2, size_t l2, char *err, size_t errlen)
{
    static const unsigned char zeros[8];
    int has_data = type != WAL_REC_CRC;
    if (l1)
        w->crc = crc32c_update(w->crc, d1, l1);
    if (l2)
        w->crc = crc32c_update(w->crc, d2, l2);
    unsigned char head[WALREC_FRAME_HEAD_MAX];
    unsigned pad;
    size_t total;
    size_t hn = walrec_frame_head(head, type, w->crc, has_data, l1 + l2, &pad, &total);
    if (total <= pw_room(&w->pw)) {
        unsigned char *p = pw_reserve(&w->pw, total);
        /* constant-size copies (inlined moves, no library call per piece): the page writer's buffer has a
         * page of slack beyond the watermark, so the bytes past hn and l1 land in free space and the next
         * piece overwrites them */
        memcpy(p, head, WALREC_FRAME_HEAD_MAX);
        if (l1 && l1 <= WALREC_HEAD_MAX) /* every d1 here is a WALREC_HEAD_MAX array (walrec.h helpers) */
            memcpy(p + hn, d1, WALREC_HEAD_MAX);
        else if (l1)
            memcpy(p + hn, d1, l1);
        if (l2)
            memcpy(p + hn + l1, d2, l2);
        p += hn + l1 + l2;
        memcpy(p, zeros, pad);
        goto done;
    }
    {
        size_t n = walrec_frame(w->scratch, w->scratch_cap, type, w->crc, has_data, d1, l1, d2, l2);
        if (!n) {
            w->failed = 1;
            snprintf(err, errlen, "etcdwal: record of %zu bytes exceeds the encode buffer", l1 + l2);
            return -EINVAL;
        }
        int rc = pw_write(&w->pw, w->scratch, 8);
        if (!rc)
            rc = pw_write(&w->pw, w->scratch + 8, n - 8);
        if (rc)
            return fail(w, rc, err, errlen, "write", w->tail_name);
    }
done:
    w->unsynced_bytes += total;
    w->st.records++;
    return 0;
}

static int save_state(wal *w, char *err, size_t errlen)
{
    unsigned char hs[WALREC_HEAD_MAX];
    size_t n = walrec_hardstate(hs, w->term, w->vote, w->last_index);
    return encode(w, WAL_REC_STATE, hs, n, NULL, 0, err, errlen);
}

static int save_crc_meta(wal *w, char *err, size_t errlen)
{
    unsigned char md[WALREC_HEAD_MAX];
    int rc = encode(w, WAL_REC_CRC, NULL, 0, NULL, 0, err, errlen);
    if (!rc) {
        size_t n = walrec_metadata(md, w->cfg.node_id, w->cfg.cluster_id);
        rc = encode(w, WAL_REC_METADATA, md, n, NULL, 0, err, errlen);
    }
    return rc;
}

/* w.sync(): flush the page writer, then fdatasync the tail. */
static int wal_sync(wal *w, char *err, size_t errlen)
{
    int rc = pw_flush(&w->pw);
    if (rc)
        return fail(w, rc, err, errlen, "write", w->tail_name);
    uint64_t t0 = now_ns();
    if (sys_fdatasync(w->fd) != 0)
        return fail(w, -errno, err, errlen, "fdatasync", w->tail_name);
    hist_add(&w->st.fdatasync, now_ns() - t0); /* etcd: walFsyncSec.Observe(time.Since(start)) */
    return 0;
}

static int dir_fsync(wal *w, char *err, size_t errlen)
{
    uint64_t t0 = now_ns();
    if (sys_fsync(w->dirfd) != 0)
        return fail(w, -errno, err, errlen, "fsync", ".");
    hist_add(&w->st.dir_fsync, now_ns() - t0);
    return 0;
}

/* Create's history (see wal.h): Saves of one entry each, encoded straight into large chunks — through the
 * page writer they would reach the disk as 128 KiB writes, which a throttled disk counts one by one — and
 * then the one fdatasync. Timed as fill_ns only: it is setup, not a Save. */
#define FILL_CHUNK_BYTES (8u << 20)
#define FILL_ENTRY_MAX 65536u

static int write_all(int fd, const unsigned char *p, size_t n)
{
    while (n) {
        ssize_t k = write(fd, p, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return k < 0 ? -errno : -EIO;
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

static int fill(wal *w, char *err, size_t errlen)
{
    uint64_t t0 = now_ns();
    int rc = pw_flush(&w->pw);
    if (rc)
        return fail(w, rc, err, errlen, "write", w->tail_name);
    uint64_t off = wal_tail_offset(w), upto = w->cfg.first_fill_bytes;
    size_t elen = w->cfg.max_entry_bytes < FILL_ENTRY_MAX ? w->cfg.max_entry_bytes : FILL_ENTRY_MAX;
    if (!elen)
        elen = 1;
    size_t pair_max = walrec_frame_size(WAL_REC_ENTRY, UINT32_MAX, 1, WALREC_HEAD_MAX + elen) +
                      walrec_frame_size(WAL_REC_STATE, UINT32_MAX, 1, WALREC_HEAD_MAX);
    unsigned char *chunk = malloc(FILL_CHUNK_BYTES), *data = malloc(elen);
    if (!chunk || !data) {
        free(chunk);
        free(data);
        w->failed = 1;
        snprintf(err, errlen, "etcdwal: out of memory for the first segment's fill");
        return -ENOMEM;
    }
    /* entry bytes that no filesystem compresses or deduplicates away (xorshift64) */
    uint64_t x = 0x9e3779b97f4a7c15ull;
    for (size_t i = 0; i < elen; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        data[i] = (unsigned char)(x >> 24);
    }
    while (!rc && off < upto) {
        size_t n = 0;
        if (w->cfg.cancel && *w->cfg.cancel) { /* a killed fio's job: its files are removed at once */
            rc = -ECANCELED;
            break;
        }
        while (n + pair_max <= FILL_CHUNK_BYTES && off + n < upto) {
            unsigned char head[WALREC_HEAD_MAX], hs[WALREC_HEAD_MAX];
            size_t hn = walrec_entry_head(head, w->term, w->last_index + 1, elen);
            n += frame(w, chunk + n, FILL_CHUNK_BYTES - n, WAL_REC_ENTRY, head, hn, data, elen);
            w->last_index++;
            size_t sn = walrec_hardstate(hs, w->term, w->vote, w->last_index);
            n += frame(w, chunk + n, FILL_CHUNK_BYTES - n, WAL_REC_STATE, hs, sn, NULL, 0);
        }
        rc = write_all(w->fd, chunk, n);
        off += n;
        w->st.fill_bytes += n;
    }
    free(chunk);
    free(data);
    if (rc)
        return fail(w, rc, err, errlen, "write", w->tail_name);
    retarget(w, w->fd, off); /* the page writer goes on at the fill's end, page offset and all */
    if (sys_fdatasync(w->fd) != 0)
        return fail(w, -errno, err, errlen, "fdatasync", w->tail_name);
    w->st.fill_ns = now_ns() - t0;
    return 0;
}

int wal_create(wal *w, int dirfd, const wal_config *cfg, char *err, size_t errlen)
{
    memset(w, 0, sizeof *w);
    w->cfg = *cfg;
    if (!w->cfg.segment_bytes)
        w->cfg.segment_bytes = WAL_DEFAULT_SEGMENT_BYTES;
    w->fd = -1;
    if (w->cfg.first_fill_bytes > w->cfg.segment_bytes) {
        snprintf(err, errlen, "etcdwal: a first-segment fill of %llu bytes exceeds the %llu-byte segment",
                 (unsigned long long)w->cfg.first_fill_bytes, (unsigned long long)w->cfg.segment_bytes);
        return -EINVAL;
    }
    w->dirfd = dirfd;
    w->fd = -1;
    w->term = WAL_TERM;
    w->vote = cfg->node_id;
    hist_init(&w->st.fdatasync);
    hist_init(&w->st.dir_fsync);
    hist_init(&w->st.wal_fsync);
    hist_init(&w->st.cut);
    hist_init(&w->st.prealloc);
    hist_init(&w->st.bytes_per_sync);
    /* frame overhead: length field, record keys, two varint lengths, entry head, pad */
    w->scratch_cap = cfg->max_entry_bytes + 2 * WALREC_HEAD_MAX + 64;
    w->scratch = malloc(w->scratch_cap);
    if (!w->scratch || pw_init(&w->pw, -1, PW_PAGE_BYTES, PW_BUFFER_BYTES, 0) != 0) {
        free(w->scratch);
        w->scratch = NULL;
        snprintf(err, errlen, "etcdwal: out of memory for the WAL buffers");
        return -ENOMEM;
    }
    wal_segment_name(w->tail_name, 0, 0);
    int fd = openat(dirfd, w->tail_name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0)
        return fail(w, -errno, err, errlen, "open", w->tail_name);
    retarget(w, fd, 0);
    int fell_back = 0;
    uint64_t t0 = now_ns();
    int rc = pipeline_preallocate(fd, w->cfg.segment_bytes, w->cfg.prealloc_mode, &fell_back);
    if (rc)
        return fail(w, rc, err, errlen,
                    w->cfg.prealloc_mode == PIPELINE_FALLOCATE && !fell_back ? "fallocate" : "ftruncate",
                    w->tail_name);
    hist_add(&w->st.prealloc, now_ns() - t0);
    w->st.prealloc_fallbacks += (uint64_t)fell_back;
    w->st.segments = 1;

    unsigned char snap[WALREC_HEAD_MAX];
    size_t sn = walrec_snapshot(snap, 0, 0);
    if ((rc = save_crc_meta(w, err, errlen)) || (rc = encode(w, WAL_REC_SNAPSHOT, snap, sn, NULL, 0, err, errlen)) ||
        (rc = w->cfg.first_fill_bytes ? fill(w, err, errlen) : wal_sync(w, err, errlen)))
        return rc;
    w->unsynced_bytes = 0;
    rc = pipeline_start(&w->pl, dirfd, w->cfg.segment_bytes, w->cfg.prealloc_mode);
    if (rc) {
        w->failed = 1;
        snprintf(err, errlen, "pthread_create(file pipeline): %s", strerror(-rc));
        return rc;
    }
    if ((rc = dir_fsync(w, err, errlen)))
        return rc;
    /* The first spare is made before Create returns (so before fio starts its clock), as in an etcd that
     * has been up a while: its pipeline made that spare at start, long before any rollover. Otherwise the
     * run's first Saves share the machine with a 64 MB preallocation that, on tmpfs, zeroes every page
     * (~10 ms, bench/overhead.sh), which the engine's numbers would charge to the disk. The disk sees the
     * same calls in the same order on the WAL's thread; later spares are made during the run, as etcd's. */
    char msg[256];
    if ((rc = pipeline_wait_ready(&w->pl, msg, sizeof msg))) {
        w->failed = 1;
        snprintf(err, errlen, "%s (in %s)", msg, w->cfg.dir_label ? w->cfg.dir_label : ".");
    }
    return rc;
}

int wal_append(wal *w, const void *data, size_t len, char *err, size_t errlen)
{
    if (w->failed) {
        snprintf(err, errlen, "etcdwal: the WAL failed earlier");
        return -EIO;
    }
    if (len > w->cfg.max_entry_bytes) {
        w->failed = 1;
        snprintf(err, errlen, "etcdwal: entry of %zu bytes exceeds the %zu-byte encode buffer", len,
                 w->cfg.max_entry_bytes);
        return -EINVAL;
    }
    unsigned char head[WALREC_HEAD_MAX];
    size_t hn = walrec_entry_head(head, w->term, w->last_index + 1, len);
    int rc = encode(w, WAL_REC_ENTRY, head, hn, data, len, err, errlen);
    if (rc)
        return rc;
    w->last_index++;
    w->st.entries++;
    return 0;
}

/* cut(): close the full segment at its current offset and continue in the pipeline's spare. */
static int cut(wal *w, char *err, size_t errlen)
{
    uint64_t t0 = now_ns();
    uint64_t off = wal_tail_offset(w);
    if (sys_ftruncate(w->fd, (off_t)off) != 0)
        return fail(w, -errno, err, errlen, "ftruncate", w->tail_name);
    int rc = wal_sync(w, err, errlen);
    if (rc)
        return rc;

    char next[WAL_NAME_LEN], spare[32], msg[256];
    wal_segment_name(next, w->seq + 1, w->last_index + 1);
    int nfd = -1;
    rc = pipeline_take(&w->pl, &nfd, spare, sizeof spare, msg, sizeof msg);
    if (rc) {
        w->failed = 1;
        snprintf(err, errlen, "%s (in %s)", msg, w->cfg.dir_label ? w->cfg.dir_label : ".");
        return rc;
    }
    close(w->fd);
    retarget(w, nfd, 0);
    w->seq++;
    snprintf(w->tail_name, sizeof w->tail_name, "%s", spare);
    if ((rc = save_crc_meta(w, err, errlen)) || (rc = save_state(w, err, errlen)) ||
        (rc = wal_sync(w, err, errlen)))
        return rc;
    uint64_t noff = wal_tail_offset(w);
    if (sys_renameat(w->dirfd, spare, w->dirfd, next) != 0)
        return fail(w, -errno, err, errlen, "rename", spare);
    snprintf(w->tail_name, sizeof w->tail_name, "%s", next);
    if ((rc = dir_fsync(w, err, errlen)))
        return rc;
    /* reopen under the new name so the open file is the .wal (etcd does this to keep names right) */
    close(w->fd);
    w->fd = -1;
    int fd = openat(w->dirfd, next, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return fail(w, -errno, err, errlen, "open", next);
    if (lseek(fd, (off_t)noff, SEEK_SET) < 0) {
        rc = -errno;
        close(fd);
        return fail(w, rc, err, errlen, "lseek", next);
    }
    retarget(w, fd, noff);
    w->st.segments++;
    w->st.rollovers++;
    hist_add(&w->st.cut, now_ns() - t0);
    return 0;
}

int wal_save(wal *w, char *err, size_t errlen)
{
    if (w->failed) {
        snprintf(err, errlen, "etcdwal: the WAL failed earlier");
        return -EIO;
    }
    int rc = save_state(w, err, errlen);
    if (rc)
        return rc;
    hist_add(&w->st.bytes_per_sync, w->unsynced_bytes);
    w->unsynced_bytes = 0;
    w->st.syncs++;
    if (wal_tail_offset(w) < w->cfg.segment_bytes)
        return wal_sync(w, err, errlen);
    return cut(w, err, errlen);
}

int wal_close(wal *w, char *err, size_t errlen)
{
    int rc = 0;
    if (w->fd >= 0 && !w->failed)
        rc = wal_sync(w, err, errlen);
    pipeline_stop(&w->pl);
    /* both kinds of sync, as etcd's one histogram has them: summed here rather than added to per sync */
    hist_init(&w->st.wal_fsync);
    hist_merge(&w->st.wal_fsync, &w->st.fdatasync);
    hist_merge(&w->st.wal_fsync, &w->st.dir_fsync);
    hist_merge(&w->st.prealloc, &w->pl.prealloc);
    w->st.prealloc_fallbacks += w->pl.fallbacks;
    if (w->fd >= 0)
        close(w->fd);
    w->fd = -1;
    w->st.bytes_written = w->pw.bytes_out;
    pw_free(&w->pw);
    free(w->scratch);
    w->scratch = NULL;
    return rc;
}
