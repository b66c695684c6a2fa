/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bbolt.h — model of bbolt's commit I/O as etcd drives it (plain C, no fio types): dirty pages written
 * with pwrite at pgid × 4096 in pgid order, fdatasync, a 4096-byte meta page at offset 0 or 4096
 * (alternating by txid), fdatasync; growth by ftruncate(size needed + 16 MiB) and a full fsync (etcd
 * 3.5's bbolt; etcd 3.4's extends the file by the pwrites alone).
 * bb_write only records the page of the open transaction (as a bbolt Put only dirties an in-memory
 * node); bb_commit does the transaction's whole disk work, in bbolt's order. */
#ifndef ETCDWAL_BBOLT_H
#define ETCDWAL_BBOLT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "hist.h"

#define BB_PAGE 4096u
#define BB_ALLOC_SIZE (16u << 20)
/* Share of dirty pages that extend the file in etcd's insert load at `check perf --load=s` (derivation
 * in bbolt.c); the default of etcd_backend_append_pct. */
#define BB_DEFAULT_APPEND_PCT 67u
/* Pages one transaction may hold before bb_write writes them out early (0 in bb_config: this). */
#define BB_DEFAULT_MAX_TXN_PAGES 2048u

typedef struct bb_config {
    unsigned append_pct;      /* share of written pages appended at the high-water mark (0..100) */
    uint64_t initial_pages;   /* used area at open (pages of rewrite targets), >= 4 (smaller: 4) */
    uint64_t seed;            /* PRNG seed for rewrite positions */
    unsigned max_txn_pages;   /* buffered pages per transaction (0: BB_DEFAULT_MAX_TXN_PAGES) */
    int scatter_rewrites;     /* 0: reuse the pages freed by the previous commit, one run just below
                               * the high-water mark of two commits ago (what etcd does, see bbolt.c);
                               * 1: uniformly random pages of the used area (a long-compacted db) */
    int grow_by_writes;       /* 0: bbolt >= 1.3.7 (etcd 3.5): a commit that passes the file size first
                               * grows it (ftruncate + fsync); 1: bbolt 1.3.6 (etcd 3.4): never, the
                               * page pwrites extend the file (see bbolt.c) */
    uint64_t batch_interval_ns; /* 0: off; else the time between the end of a commit and the start of
                               * the next (etcd's batch interval): each commit also carries the leaf
                               * pages of the puts that waited for the lock during the previous commit */
} bb_config;

typedef struct bb_stats {
    hist commit;     /* whole commit: first page write of the txn .. last sync (ns), growth included */
    hist sync;       /* the sync part: fdatasync + meta pwrite + fdatasync (ns) */
    hist fdatasync;  /* each fdatasync (ns) */
    hist grow;       /* each growth: ftruncate + fsync (ns) */
    hist pages_per_commit;
    uint64_t commits, pages_written, bytes_written, growths;
    uint64_t file_size, high_water_pages;
    uint64_t appends, rewrites;   /* bb_write calls placed at the high-water mark / inside the used area */
    uint64_t early_flushes;       /* transactions that outgrew max_txn_pages and were written early */
    uint64_t queued_pages;        /* leaf pages added for puts queued behind the previous commit */
} bb_stats;

typedef struct bb_db bb_db;

/* Creates `name` inside dirfd (O_CREAT|O_EXCL), writes bbolt's four initial pages (two meta pages, an
 * empty freelist, an empty leaf) and fills the used area up to initial_pages, then fdatasync.
 * 0 or -errno with a message naming the call and the file in err. */
int  bb_open(bb_db **out, int dirfd, const char *name, const bb_config *cfg, char *err, size_t errlen);
/* One dirty page (len <= 4096) or a run of overflow pages (len > 4096, rounded up to pages) at a page
 * the model picks (rewrite or append); copied into the transaction's buffer, written by bb_commit.
 * 0 or -errno (message in err). */
int  bb_write(bb_db *db, const void *buf, size_t len, char *err, size_t errlen);
/* The commit: with batch_interval_ns, first the leaf pages of the puts queued behind the previous
 * commit; growth if the high-water mark passed the file size (ftruncate + fsync, unless grow_by_writes),
 * the pages in pgid order, fdatasync, meta page write, fdatasync. 0 or -errno. */
int  bb_commit(bb_db *db, char *err, size_t errlen);
/* Share of the next pages appended at the high-water mark (0..100, clamped): the closed-loop load sets it
 * per commit from the pages its puts dirty (load.c ld_commit_pages). */
void bb_set_append_pct(bb_db *db, unsigned pct);
const bb_stats *bb_get_stats(const bb_db *db);
/* One JSON object with the counters and histograms (ns). */
void bb_stats_json(const bb_db *db, FILE *f);
/* The data file's descriptor (diagnostics, tests). */
int  bb_fd(const bb_db *db);
/* Closes and, if remove_file, unlinks the file. */
void bb_close(bb_db *db, int remove_file);

#endif
