/* SPDX-License-Identifier: GPL-2.0-or-later */
/* load.h — the closed-loop put load as a plain C model (no fio types, no clock of its own: the caller passes
 * the times). N virtual clients each keep one put outstanding; the model says which of their entries ride in
 * each raft Ready (one WAL Save), when each entry is applied and acknowledged, and when its client's next put
 * arrives. The disk work itself — wal_append/wal_save of a Ready, bb_commit of a backend batch — is done by
 * the caller (etcdwal.c), which reports when it ended.
 *
 * The pipeline, as etcd 3.4.23 runs it for one member (etcdserver/raft.go start(), server.go applyAll,
 * mvcc/backend/batch_tx.go):
 *  - raft's node goroutine accepts proposals at any time; the raftNode loop takes a Ready with every entry
 *    proposed since the previous one, and for a single member (committed entries overlap the unstable ones:
 *    shouldWaitWALSync) first Saves it — entries + HardState, one write and one fdatasync — then hands the
 *    committed entries to the apply goroutine and takes the next Ready at once. So Save k+1 runs while
 *    Ready k is being applied; a put that arrives during Save k rides in Ready k+1.
 *  - the apply goroutine applies Readys in order, one put after the other (ld_config.apply_ns each); each
 *    put's client is answered as soon as its put is applied (applyEntryNormal triggers the waiter).
 *  - every put takes the backend's batch-transaction lock, which a backend commit holds for its whole disk
 *    work (batchTxBuffered.Commit: Lock, commit, Unlock), so a commit stalls the applies behind it
 *    (ld_lock). The backend commits every 100 ms after the previous commit ended (backend.run's timer is
 *    reset after each commit), or at once when 10,000 writes are pending (each put is 2: the key bucket and
 *    the consistent index in the meta bucket, kvstore_txn.go End -> saveIndex), i.e. 5,000 puts.
 *  - the CPU: with etcd on one core (bench/README.md "Capacity"), what etcd spends on a put — the gRPC
 *    request, raft's Step, the proposal wait, marshalling the entry — keeps the raft loop from the next
 *    Save: measured there, a Ready's Save cycle is the fdatasync plus ~33 us per entry, and the CPU-bound
 *    ceiling at many clients is 1 / that. ld_config.entry_ns models it as work of the raft loop between
 *    taking a Ready and its Save; the apply goroutine's own share (apply_ns) runs beside the Saves.
 *  - a client sends its next put as soon as the answer arrives (etcd's `benchmark put`): it arrives
 *    ld_config.client_ns after the answer left etcd (the network and gRPC round trip on both sides).
 * What a client measures is the time from its send to the answer: answer - arrival + client_ns. */
#ifndef ETCDWAL_LOAD_H
#define ETCDWAL_LOAD_H

#include <stddef.h>
#include <stdint.h>

#include "hist.h"

#define LD_MAX_CLIENTS 100000u
#define LD_BATCH_INTERVAL_NS 100000000ull /* etcd's defaultBatchInterval */
#define LD_BATCH_LIMIT_PUTS 5000u         /* defaultBatchLimit 10,000 pending writes, 2 per put */
#define LD_LOCK_RING 16u                  /* backend commits remembered (seen by the apply side) */
#define LD_NEVER UINT64_MAX

typedef struct ld_config {
    unsigned clients;      /* 1..LD_MAX_CLIENTS */
    unsigned key_bytes;    /* the put's key and value (etcd's benchmark examples: 8 and 256) */
    unsigned val_bytes;
    uint64_t client_ns;    /* answer leaves etcd -> the client's next put arrives */
    uint64_t apply_ns;     /* apply goroutine's work per put */
    uint64_t entry_ns;     /* etcd's work per put on the raft loop's path, before the Save (ld_take) */
    uint64_t put_gap_ns;   /* 0, or the least time between two puts' arrivals (all clients together): a member
                            * of a cluster sees puts at the cluster's rate, not at its own */
} ld_config;

/* The backend commits as the apply side sees them: finished ones [start, end), and the start of the one in
 * progress (LD_NEVER when none). Filled by the caller from what the backend job publishes. */
typedef struct ld_lock {
    unsigned n;
    uint64_t start[LD_LOCK_RING], end[LD_LOCK_RING];
    uint64_t busy_since;
} ld_lock;

typedef struct ld_stats {
    hist latency;          /* each put as its client measured it, ns */
    hist entries_per_save; /* entries in each Ready */
    uint64_t puts;         /* answered puts (latency.count) */
    uint64_t saves;
    uint64_t idle_ns;      /* the raft loop waited for a proposal (ld_idle) */
    uint64_t cpu_ns;       /* the raft loop worked on the entries before the Save (entry_ns each) */
    uint64_t save_ns;      /* the raft loop was in Save (its write and fdatasync) */
    uint64_t apply_ns;     /* the apply goroutine worked */
    uint64_t blocked_ns;   /* ... or waited for a backend commit's lock */
    uint64_t first_ns, last_ns; /* first arrival, last answer */
} ld_stats;

typedef struct ld {
    ld_config cfg;
    uint64_t *arrive;      /* per client: when its next put arrives, LD_NEVER while its put is in etcd */
    uint64_t *arrived_at;  /* per client: when the put now in etcd arrived (for its latency) */
    uint32_t *queue;       /* two rings of client ids: [0, clients) the waiting ones in arrival order,
                            * [clients, 2 clients) the entries taken into Readys, in Ready order */
    uint32_t qhead, qlen, thead, tlen;
    uint32_t *batch_n;     /* ring of Readys not yet applied (clients + 1 slots): entries of each */
    uint64_t *batch_saved; /* ... and when its Save ended (LD_NEVER while it is being saved) */
    uint32_t bhead, blen;
    uint32_t applied_in_head;  /* entries of the oldest Ready already applied */
    uint64_t apply_free;       /* when the apply goroutine can start its next put */
    uint64_t applied;          /* puts applied so far (the backend's pending count comes from it) */
    uint64_t last_arrive;      /* the latest arrival given to a client (put_gap_ns) */
    uint64_t take_ns;          /* when the Ready being saved was taken */
    uint64_t save_start_ns;    /* ... and when its Save started */
    ld_stats st;
} ld;

/* Wire size of one put's raft entry data: InternalRaftRequest{header{ID}, put{key, value}} as etcd
 * marshals it (etcdserverpb, gogo protobuf). */
size_t ld_entry_bytes(unsigned key_bytes, unsigned val_bytes);
/* Bytes of the bbolt pages a backend commit of `puts` puts dirties (etcd's key bucket keyed by revision,
 * fill 0.9, plus the branch path, the meta bucket and the root): see load.c. */
unsigned ld_commit_pages(uint64_t puts, unsigned key_bytes, unsigned val_bytes);

/* 0, or -1 (bad config or out of memory) with a message in err. Every client's first put arrives at t0. */
int  ld_init(ld *m, const ld_config *cfg, uint64_t t0, char *err, size_t errlen);
void ld_free(ld *m);
/* Applies what can be applied by `now` (a put whose start would fall inside a commit waits for its end; a
 * commit in progress stops the applies behind it); returns how many puts are waiting for the next Ready at
 * `now`. When none, *next_ns is the earliest time one may arrive (LD_NEVER when that depends on a commit
 * still in progress: ask again a little later). lk may be NULL (no backend). */
uint32_t ld_poll(ld *m, uint64_t now, const ld_lock *lk, uint64_t *next_ns);
/* The raft loop waited from `from` to `to` for a proposal (accounting only). */
void ld_idle(ld *m, uint64_t from, uint64_t to);
/* Takes every put waiting at `now` into the next Ready and returns their count (0 if none; at most one Ready
 * may be in Save at a time: -1 after a take without ld_saved). The raft loop then works entry_ns per entry
 * (the caller waits that long) before the Save starts: ld_save_start says when it did. */
int  ld_take(ld *m, uint64_t now);
void ld_save_start(ld *m, uint64_t now);
/* The Save of the Ready taken last ended at `now`: its entries go to the apply goroutine. */
void ld_saved(ld *m, uint64_t now);

#endif
