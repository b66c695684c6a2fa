/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bbolt.c — the disk side of a bbolt write transaction as etcd's backend commits it (see bbolt.h): page
 * placement, the commit's writes and syncs, its stats. Creating and closing the db file: bbolt_open.c.
 *
 * Facts taken from go.etcd.io/bbolt (tx.go Commit/write/writeMeta, db.go init/grow/allocate) and etcd's
 * backend (server/mvcc/backend, server/storage/backend):
 *  - Commit: spill the B+tree into dirty pages, grow the file if the high-water mark (meta.pgid) moved,
 *    then tx.write(): pages sorted by pgid, one pwrite per page (an overflow run is one pwrite of
 *    (overflow+1) × 4096), fdatasync; then writeMeta(): one 4096-byte pwrite at (txid % 2) × 4096,
 *    fdatasync. etcd's backend_commit_duration_seconds times all of it.
 *  - grow(sz = (meta.pgid + 1) × 4096): if sz > file size: ftruncate(sz + AllocSize (16 MiB)) and
 *    file.Sync() (a full fsync). (bbolt only truncates to the mmap size while that is below AllocSize;
 *    etcd maps 10 GiB up front, so it is always sz + 16 MiB there.) Since bbolt 1.3.7 (etcd 3.5.16 has
 *    1.3.11, 3.5.30 1.3.12) Commit calls grow when spill moved the high-water mark; bbolt 1.3.6 (etcd
 *    3.4.23) called it only from commitFreelist, which NoFreelistSync skips, so under etcd 3.4 a commit
 *    never truncates or fsyncs: the pwrites past the end extend the file (bb_config.grow_by_writes).
 *  - etcd opens bbolt with NoFreelistSync, so no freelist pages are written per commit; meta.freelist
 *    is PgidNoFreelist.
 *
 * Why pages are buffered and written at bb_commit rather than as fio hands them over: in bbolt a Put
 * only changes an in-memory node; nothing reaches the file until Commit, which then issues the pwrites
 * back to back, sorted by pgid, with the growth before them. Writing each io_u as it comes would spread
 * the pages over the 100 ms batch interval, in arrival order, with the growth in the middle of the
 * transaction, and fio would time page writes etcd never waits for. Buffering (offsets in a fixed array,
 * contents in an arena allocated at open: no malloc per I/O) gives strace's exact per-commit sequence
 * and lets the DATASYNC io_u's latency be the commit's disk time, which is what etcd measures.
 *
 * Where pages go — the default append share (BB_DEFAULT_APPEND_PCT = 67). bbolt is copy-on-write: a
 * dirty node never overwrites its page; it gets a page from the freelist (pages freed by earlier
 * transactions once no reader can see them) or at the high-water mark. etcd keys its "key" bucket by
 * revision, which only grows, so every put lands in the rightmost leaf, and etcd sets FillPercent 0.9
 * for these sequential puts. A put's value (mvccpb.KeyValue with a 276-byte key and a 1024-byte value)
 * is ~1,335 bytes, so split leaves hold 2 puts (the 0.9 × 4096 threshold stops the third). A commit of
 * P puts therefore writes ceil((2 + P) / 2) leaves, the keys bucket's branch path (2 pages for a
 * bucket of up to ~12k leaves), and the root bucket's leaf (1), and frees the old versions of the
 * rightmost leaf and of that path (4 pages), which the next commits reuse. At --load=s (150 puts/s,
 * 100 ms batches: P = 15) that is 12 pages, 4 taken from the freelist inside the file and 8 appended:
 * 67 %.
 *
 * Where reused pages are (rewrite locality). bbolt's freelist hands out the lowest free page ids first;
 * in etcd under a steady insert load the pages freed by commit N-1 are the previous copies of the
 * rightmost leaf, the branch path and the root bucket leaf, which commit N-2 had appended last, at the
 * top of its append run; once the read transactions that could see them are gone they are reused, as one
 * contiguous run, by commit N. Traced on real etcd 3.4.23 in the slow-disk lab (bench/lab_trace.sh,
 * load s): every commit's 4-5 reused pages formed one run 9-14 pages below the high-water mark (the
 * engine's pages per commit: 2.1 contiguous runs, etcd 2.1; uniform scattering gave 4.9). So by default a
 * transaction's rewrites go downwards from the high-water mark two commits ago; scatter_rewrites picks
 * them uniformly over the used area instead (a db whose compactions freed pages all over it). */
#include "bbolt_int.h"
#include "sys.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t next_rand(bb_db *db)
{
    /* splitmix64: tiny, no global state, good enough to scatter rewrites */
    uint64_t z = (db->rng += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static void put_le(unsigned char *p, uint64_t v, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

/* bbolt's page header: id u64, flags u16, count u16, overflow u32 */
void bb_page_header(unsigned char *p, uint64_t id, unsigned flags, unsigned overflow)
{
    put_le(p, id, 8);
    put_le(p + 8, flags, 2);
    put_le(p + 10, 0, 2);
    put_le(p + 12, overflow, 4);
}

/* A meta page as bbolt writes it: header, then magic, version, pageSize, flags, root bucket {root,
 * sequence}, freelist, pgid, txid, and the FNV-1a 64 checksum of the preceding 56 meta bytes. */
void bb_build_meta(unsigned char *p, uint64_t txid, uint64_t hw)
{
    memset(p, 0, BB_PAGE);
    bb_page_header(p, txid % 2, BB_FLAG_META, 0);
    unsigned char *m = p + 16;
    put_le(m, BB_MAGIC, 4);
    put_le(m + 4, BB_VERSION, 4);
    put_le(m + 8, BB_PAGE, 4);
    put_le(m + 12, 0, 4);
    put_le(m + 16, 3, 8);              /* root bucket page (the initial leaf's id) */
    put_le(m + 24, 0, 8);
    put_le(m + 32, BB_NO_FREELIST, 8); /* NoFreelistSync */
    put_le(m + 40, hw, 8);
    put_le(m + 48, txid, 8);
    uint64_t h = 0xcbf29ce484222325ull;
    for (unsigned i = 0; i < 56; i++) {
        h ^= m[i];
        h *= 0x100000001b3ull;
    }
    put_le(m + 56, h, 8);
}

int bb_fail(char *err, size_t errlen, int e, const char *call, const bb_db *db, const char *extra)
{
    snprintf(err, errlen, "%s %s%s: %s", call, db->path, extra ? extra : "", strerror(e));
    return -e;
}

int bb_pwrite_all(bb_db *db, const unsigned char *buf, size_t len, uint64_t off, char *err, size_t errlen)
{
    while (len) {
        ssize_t n = pwrite(db->fd, buf, len, (off_t)off);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            char extra[64];
            snprintf(extra, sizeof extra, " (offset %llu, %zu bytes)", (unsigned long long)off, len);
            return bb_fail(err, errlen, errno, "pwrite", db, extra);
        }
        if (n == 0)
            return bb_fail(err, errlen, EIO, "pwrite", db, " (wrote nothing)");
        buf += n;
        len -= (size_t)n;
        off += (uint64_t)n;
    }
    return 0;
}

static int timed_fdatasync(bb_db *db, char *err, size_t errlen)
{
    uint64_t t = now_ns();
    if (sys_fdatasync(db->fd) != 0)
        return bb_fail(err, errlen, errno, "fdatasync", db, NULL);
    hist_add(&db->st.fdatasync, now_ns() - t);
    return 0;
}

/* Shell sort by pgid: in place and allocation-free; appends arrive already ordered, so the few
 * rewrites are the only work. */
static void sort_pend(bb_pend *a, uint32_t n)
{
    static const uint32_t gaps[] = {701, 301, 132, 57, 23, 10, 4, 1};
    for (size_t g = 0; g < sizeof gaps / sizeof gaps[0]; g++) {
        uint32_t gap = gaps[g];
        for (uint32_t i = gap; i < n; i++) {
            bb_pend t = a[i];
            uint32_t j = i;
            for (; j >= gap && a[j - gap].pgid > t.pgid; j -= gap)
                a[j] = a[j - gap];
            a[j] = t;
        }
    }
}

/* bbolt's grow(): only when this transaction raised the high-water mark past the file size. With
 * grow_by_writes (bbolt 1.3.6) nothing is called: the pwrites past the end extend the file. */
static int maybe_grow(bb_db *db, char *err, size_t errlen)
{
    uint64_t need = (db->txn_hw + 1) * (uint64_t)BB_PAGE;
    if (db->txn_hw <= db->hw || need <= db->st.file_size)
        return 0;
    if (db->cfg.grow_by_writes) {
        db->st.file_size = db->txn_hw * (uint64_t)BB_PAGE;
        return 0;
    }
    uint64_t sz = need + BB_ALLOC_SIZE;
    uint64_t t = now_ns();
    if (sys_ftruncate(db->fd, (off_t)sz) != 0) {
        char extra[48];
        snprintf(extra, sizeof extra, " (to %llu bytes)", (unsigned long long)sz);
        return bb_fail(err, errlen, errno, "ftruncate", db, extra);
    }
    if (sys_fsync(db->fd) != 0)
        return bb_fail(err, errlen, errno, "fsync", db, NULL);
    hist_add(&db->st.grow, now_ns() - t);
    db->st.file_size = sz;
    db->st.growths++;
    return 0;
}

/* Growth, then the buffered pages in pgid order (tx.write without its fdatasync). */
static int write_pending(bb_db *db, char *err, size_t errlen)
{
    if (!db->t_first)
        db->t_first = now_ns();
    int rc = maybe_grow(db, err, errlen);
    if (rc)
        return rc;
    sort_pend(db->pend, db->npend);
    for (uint32_t i = 0; i < db->npend; i++) {
        const bb_pend *p = &db->pend[i];
        unsigned char *buf = db->arena + (size_t)p->slot * BB_PAGE;
        bb_page_header(buf, p->pgid, BB_FLAG_LEAF, p->npages - 1);
        size_t len = (size_t)p->npages * BB_PAGE;
        rc = bb_pwrite_all(db, buf, len, p->pgid * BB_PAGE, err, errlen);
        if (rc)
            return rc;
        db->st.pages_written += p->npages;
        db->st.bytes_written += len;
    }
    db->npend = 0;
    db->arena_used = 0;
    return 0;
}
/* A rewrite target: npages free-looking pages inside the committed area, past the two meta pages, not
 * overlapping another rewrite of this transaction (bbolt never writes a page twice in one commit). */
static int pick_rewrite(bb_db *db, uint32_t npages, uint64_t *pgid)
{
    if (db->hw < 2 + (uint64_t)npages)
        return 0;
    if (!db->cfg.scatter_rewrites && db->reuse_next >= 2 + (uint64_t)npages) {
        /* below the pages appended by the last commit, one run downwards: never one of this
         * transaction's other rewrites (they are above) nor its appends (at or above hw) */
        db->reuse_next -= npages;
        *pgid = db->reuse_next;
        return 1;
    }
    uint64_t span = db->hw - 2 - npages + 1;
    for (int t = 0; t < BB_REWRITE_TRIES; t++) {
        uint64_t cand = 2 + next_rand(db) % span;
        int clash = 0;
        for (uint32_t i = 0; i < db->npend && !clash; i++) {
            const bb_pend *p = &db->pend[i];
            clash = p->pgid < db->hw && cand < p->pgid + p->npages && p->pgid < cand + npages;
        }
        if (!clash) {
            *pgid = cand;
            return 1;
        }
    }
    return 0;
}

void bb_set_append_pct(bb_db *db, unsigned pct)
{
    db->cfg.append_pct = pct > 100 ? 100 : pct;
}

/* One dirty page or run into the transaction's buffer, at a page the model picks; force_append puts
 * it at the high-water mark (a new leaf). */
static int stage(bb_db *db, const void *buf, size_t len, int force_append, char *err, size_t errlen)
{
    size_t np = (len + BB_PAGE - 1) / BB_PAGE;
    if (np > db->arena_cap) {
        snprintf(err, errlen, "bb_write %s: a %zu-byte run of pages exceeds the %u-page transaction buffer",
                 db->path, len, db->arena_cap);
        return -EINVAL;
    }
    uint32_t npages = (uint32_t)np;
    if (db->arena_used + npages > db->arena_cap) {
        /* more dirty pages than the buffer holds: write what we have (bbolt would hold them in memory;
         * etcd commits at 10,000 pending puts long before a sane job gets here) */
        int rc = write_pending(db, err, errlen);
        if (rc)
            return rc;
        db->st.early_flushes++;
    }

    int append = force_append;
    if (!append) {
        db->acc += db->cfg.append_pct;
        if (db->acc >= 100) {
            db->acc -= 100;
            append = 1;
        }
    }
    uint64_t pgid = 0;
    if (!append && !pick_rewrite(db, npages, &pgid))
        append = 1; /* nothing free to reuse yet: bbolt allocates at the high-water mark too */
    if (append) {
        pgid = db->txn_hw;
        db->txn_hw += npages;
        db->st.appends++;
    } else {
        db->st.rewrites++;
    }

    bb_pend *p = &db->pend[db->npend++];
    p->pgid = pgid;
    p->npages = npages;
    p->slot = db->arena_used;
    unsigned char *dst = db->arena + (size_t)p->slot * BB_PAGE;
    memmove(dst, buf, len);
    if (len < (size_t)npages * BB_PAGE)
        memset(dst + len, 0, (size_t)npages * BB_PAGE - len);
    db->arena_used += npages;
    db->txn_pages += npages;
    return 0;
}

int bb_write(bb_db *db, const void *buf, size_t len, char *err, size_t errlen)
{
    if (len == 0) {
        snprintf(err, errlen, "bb_write %s: empty write", db->path);
        return -EINVAL;
    }
    return stage(db, buf, len, 0, err, errlen);
}

/* The puts that waited for the batch lock while the previous commit held it. etcd's backend commits
 * under batchTx's lock (batch_tx.go batchTxBuffered.Commit: lock, commit, Unlock) and every apply takes
 * that lock, so the puts that reach apply during a commit go into the next transaction, and its timer
 * (backend.run) only restarts when the commit is done: a transaction holds the puts of the batch
 * interval plus those of the previous commit's duration. The job hands over the pages of one interval;
 * the leaves of the rest (BB_PATH_PAGES do not grow with the puts) are added here as new leaves, with
 * the contents of the transaction's last page. Traced on etcd 3.5.16 at a 4 ms device (bench/README.md):
 * 13.8 pages per commit where the interval's puts give 12. */
static int stage_queued(bb_db *db, char *err, size_t errlen)
{
    uint64_t n = db->queued_milli / 1000;
    if (!n || !db->npend)
        return 0;
    db->queued_milli -= n * 1000;
    for (uint64_t i = 0; i < n; i++) {
        const bb_pend *last = &db->pend[db->npend - 1];
        /* the source page may be written out by stage's early flush; it stays in the arena's slot */
        int rc = stage(db, db->arena + (size_t)(last->slot + last->npages - 1) * BB_PAGE, BB_PAGE, 1, err, errlen);
        if (rc)
            return rc;
        db->st.queued_pages++;
        if (!db->npend)
            return 0;
    }
    return 0;
}

/* After a commit of base pages that took dur_ns: the leaves of the puts that queued meanwhile. */
static void owe_queued(bb_db *db, uint32_t base, uint64_t dur_ns)
{
    if (!db->cfg.batch_interval_ns || base <= BB_PATH_PAGES)
        return;
    long double owed = (long double)(base - BB_PATH_PAGES) * 1000.0L * (long double)dur_ns /
                       (long double)db->cfg.batch_interval_ns;
    /* at most one more transaction's worth: a commit slower than the interval does not compound */
    long double cap = (long double)(base - BB_PATH_PAGES) * 1000.0L;
    db->queued_milli += (uint64_t)(owed < cap ? owed : cap);
}

int bb_commit(bb_db *db, char *err, size_t errlen)
{
    uint32_t base = db->txn_pages;
    int rc = stage_queued(db, err, errlen);
    if (rc)
        return rc;
    rc = write_pending(db, err, errlen);
    if (rc)
        return rc;
    uint64_t ts = now_ns();
    rc = timed_fdatasync(db, err, errlen);
    if (rc)
        return rc;
    uint64_t txid = db->txid + 1;
    bb_build_meta(db->meta, txid, db->txn_hw);
    rc = bb_pwrite_all(db, db->meta, BB_PAGE, (txid % 2) * BB_PAGE, err, errlen);
    if (rc)
        return rc;
    rc = timed_fdatasync(db, err, errlen);
    if (rc)
        return rc;
    uint64_t te = now_ns();
    hist_add(&db->st.sync, te - ts);
    hist_add(&db->st.commit, te - db->t_first);
    owe_queued(db, base, te - db->t_first);
    hist_add(&db->st.pages_per_commit, db->txn_pages);
    db->txid = txid;
    db->hw_prev = db->hw;
    db->reuse_next = db->hw_prev;
    db->hw = db->txn_hw;
    db->st.high_water_pages = db->hw;
    db->st.commits++;
    db->txn_pages = 0;
    db->t_first = 0;
    return 0;
}

const bb_stats *bb_get_stats(const bb_db *db) { return &db->st; }

int bb_fd(const bb_db *db) { return db->fd; }

void bb_stats_json(const bb_db *db, FILE *f)
{
    const bb_stats *s = &db->st;
    fprintf(f, "{\"mode\":\"backend\",\"commits\":%llu,\"pages_written\":%llu,\"bytes_written\":%llu,"
               "\"growths\":%llu,\"file_size\":%llu,\"high_water_pages\":%llu,\"appends\":%llu,"
               "\"rewrites\":%llu,\"append_pct\":%u,\"early_flushes\":%llu,\"queued_pages\":%llu,",
            (unsigned long long)s->commits, (unsigned long long)s->pages_written,
            (unsigned long long)s->bytes_written, (unsigned long long)s->growths,
            (unsigned long long)s->file_size, (unsigned long long)s->high_water_pages,
            (unsigned long long)s->appends, (unsigned long long)s->rewrites, db->cfg.append_pct,
            (unsigned long long)s->early_flushes, (unsigned long long)s->queued_pages);
    const hist_field hs[] = {
        {"commit", &s->commit, "_ns", 1}, {"sync", &s->sync, "_ns", 1},
        {"fdatasync", &s->fdatasync, "_ns", 1}, {"grow", &s->grow, "_ns", 1},
        {"pages_per_commit", &s->pages_per_commit, "", 0},
    };
    hist_write_fields(f, hs, sizeof hs / sizeof hs[0]);
    fputc('}', f);
}
