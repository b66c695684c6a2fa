/* SPDX-License-Identifier: GPL-2.0-or-later */
/* loadrun.h — runs the closed-loop load (load.h) on the real disk and clock, with no fio types: the WAL
 * side turns each of fio's write io_us into one raft Ready (waits for a proposal, takes every waiting put,
 * appends their entries to the WAL) and each sync io_u into its Save; the backend side turns each write
 * io_u into etcd's batch wait (100 ms after the last commit, or 5,000 pending puts) and stages the pages
 * those puts dirty, and each sync io_u into the commit. The two sides are fio jobs of one fio run, maybe in
 * two processes: they meet in a shared page (ldr_shared) that fio's main process maps before it starts any
 * job (the engine's setup hook): the WAL side publishes how many puts it applied, the backend side when its
 * commits held the batch-transaction lock. */
#ifndef ETCDWAL_LOADRUN_H
#define ETCDWAL_LOADRUN_H

#include <stdbool.h>
#include <stdio.h>

#include "bbolt.h"
#include "load.h"
#include "wal.h"

typedef struct ldr_shared ldr_shared;

/* One shared anonymous page (NULL when mmap fails). Call once, in the process that forks the jobs. */
ldr_shared *ldr_shared_map(void);

typedef struct ldr_wal {
    ld m;
    ldr_shared *sh;       /* may be NULL (no backend job) */
    unsigned char *payload;
    size_t entry_bytes;
    int started;
    ld_config cfg;
} ldr_wal;

/* 0 or -1 (message in err). The clients start at the first ldr_wal_ready. */
int  ldr_wal_init(ldr_wal *r, const ld_config *cfg, ldr_shared *sh, char *err, size_t errlen);
/* One Ready: waits until a put has arrived (or *stop becomes non-zero: then no entry), takes every waiting
 * put and appends its entry to w. 0 or -errno (message in err). */
int  ldr_wal_ready(ldr_wal *r, wal *w, const volatile bool *stop, char *err, size_t errlen);
/* The Ready's Save (wal_save), then its entries go to the apply side. */
int  ldr_wal_save(ldr_wal *r, wal *w, char *err, size_t errlen);
/* The WAL job ends: the backend side stops waiting for puts. */
void ldr_wal_done(ldr_wal *r);
/* ,"load":{…} for the stats file. */
void ldr_wal_json(const ldr_wal *r, FILE *f);
void ldr_wal_free(ldr_wal *r);

typedef struct ldr_be {
    ldr_shared *sh;
    unsigned key_bytes, val_bytes;
    uint64_t committed;       /* puts in commits so far */
    uint64_t staged;          /* puts staged for the commit to come */
    uint64_t deadline;        /* the batch timer: 100 ms after the last commit ended */
    hist puts_per_commit;
    uint64_t commits;
    unsigned char page[4096];
} ldr_be;

void ldr_be_init(ldr_be *b, ldr_shared *sh, unsigned key_bytes, unsigned val_bytes);
/* Waits for etcd's batch to be due, then stages the pages of the pending puts in db. 0 or -errno. */
int  ldr_be_stage(ldr_be *b, bb_db *db, const volatile bool *stop, char *err, size_t errlen);
/* The commit (bb_commit), published as a lock interval. 0 or -errno. */
int  ldr_be_commit(ldr_be *b, bb_db *db, char *err, size_t errlen);
void ldr_be_json(const ldr_be *b, FILE *f);

#endif
