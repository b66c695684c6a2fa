/* bbolt.h — model of bbolt's commit I/O as etcd drives it (plain C, no fio types): dirty pages written
 * with pwrite at pgid × 4096, fdatasync, a 4096-byte meta page at offset 0 or 4096 (alternating by txid),
 * fdatasync; growth by ftruncate(size needed + 16 MiB) and a full fsync. */
#ifndef ETCDWAL_BBOLT_H
#define ETCDWAL_BBOLT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "hist.h"

#define BB_PAGE 4096u
#define BB_ALLOC_SIZE (16u << 20)

typedef struct bb_config {
    unsigned append_pct;      /* share of written pages appended at the high-water mark (0..100) */
    uint64_t initial_pages;   /* used area at open (pages of rewrite targets), >= 4 */
    uint64_t seed;            /* PRNG seed for rewrite positions */
} bb_config;

typedef struct bb_stats {
    hist commit;     /* whole commit: first page write of the txn .. last sync (ns) */
    hist sync;       /* the DATASYNC part: fdatasync + meta pwrite + fdatasync (ns) */
    hist fdatasync;  /* each fdatasync (ns) */
    hist grow;       /* each growth: ftruncate + fsync (ns) */
    hist pages_per_commit;
    uint64_t commits, pages_written, bytes_written, growths;
    uint64_t file_size, high_water_pages;
} bb_stats;

typedef struct bb_db bb_db;

/* Creates `name` inside dirfd (O_CREAT|O_EXCL) and writes the two meta pages. 0 or -errno with a
 * message naming the call and the file in err. */
int  bb_open(bb_db **out, int dirfd, const char *name, const bb_config *cfg, char *err, size_t errlen);
/* One dirty page (len == 4096) or a run of overflow pages (len > 4096, rounded up to pages) at an offset
 * the model picks (rewrite or append); grows the file first when needed. 0 or -errno (message in err). */
int  bb_write(bb_db *db, const void *buf, size_t len, char *err, size_t errlen);
/* The rest of the commit: fdatasync, meta page write, fdatasync. 0 or -errno. */
int  bb_commit(bb_db *db, char *err, size_t errlen);
const bb_stats *bb_get_stats(const bb_db *db);
void bb_stats_json(const bb_db *db, FILE *f);
/* Closes and, if remove_file, unlinks the file. */
void bb_close(bb_db *db, int remove_file);

#endif
