/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bbolt_int.h — private to the bbolt commit model (bbolt.c, bbolt_open.c): the db file's page layout
 * constants, the handle's state and the page and write helpers both files use. */
#ifndef BBOLT_INT_H
#define BBOLT_INT_H

#include "bbolt.h"

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#define BB_MAGIC 0xED0CDAEDu
#define BB_VERSION 2u
#define BB_FLAG_BRANCH 0x01u
#define BB_FLAG_LEAF 0x02u
#define BB_FLAG_META 0x04u
#define BB_FLAG_FREELIST 0x10u
#define BB_NO_FREELIST UINT64_MAX
#define BB_REWRITE_TRIES 8
/* Pages of a commit that do not grow with its puts: the key bucket's branch path (2) and the root
 * bucket's leaf (1); the rest are the key bucket's new leaves (bbolt.c). */
#define BB_PATH_PAGES 3u

typedef struct bb_pend {
    uint64_t pgid;
    uint32_t npages;
    uint32_t slot;   /* first arena page holding its bytes */
} bb_pend;

struct bb_db {
    int fd, dirfd;
    char name[NAME_MAX + 1];
    char path[PATH_MAX];      /* for messages only */
    bb_config cfg;
    uint64_t hw;              /* committed high-water mark (meta.pgid): rewrites stay below it */
    uint64_t hw_prev;         /* the high-water mark one commit earlier */
    uint64_t reuse_next;      /* the next recent rewrite ends here (goes down within a transaction) */
    uint64_t txn_hw;          /* high-water mark including this transaction's appends */
    uint64_t txid;            /* last committed transaction id */
    uint64_t rng;
    unsigned acc;             /* error-diffusion accumulator for the append share */
    bb_pend *pend;
    uint32_t npend;
    uint32_t txn_pages;       /* pages of the open transaction, early-flushed ones included */
    uint64_t t_first;         /* ns of the transaction's first page write, 0 if none yet */
    uint64_t queued_milli;    /* queued leaf pages owed to the next commit, in thousandths */
    unsigned char *arena;
    uint32_t arena_used, arena_cap;   /* in pages */
    unsigned char meta[BB_PAGE];
    bb_stats st;
};

/* bbolt's page header (id u64, flags u16, count u16, overflow u32) at p. */
void bb_page_header(unsigned char *p, uint64_t id, unsigned flags, unsigned overflow);
/* The meta page of transaction txid with high-water mark hw, checksummed, into the BB_PAGE bytes at p. */
void bb_build_meta(unsigned char *p, uint64_t txid, uint64_t hw);
/* "CALL PATH[EXTRA]: strerror(e)" into err; returns -e. */
int bb_fail(char *err, size_t errlen, int e, const char *call, const bb_db *db, const char *extra);
/* All len bytes at off, EINTR retried; 0 or -errno with the message. */
int bb_pwrite_all(bb_db *db, const unsigned char *buf, size_t len, uint64_t off, char *err, size_t errlen);

#endif
