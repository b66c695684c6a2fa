/* SPDX-License-Identifier: MIT */
/* quorum.h — `etcd-fio capacity --member` (three members): the quorum combination, pure (quorum.c,
 * tests/test_capacity_quorum.c), a quorum row from the members' runs (quorum_row.c, pure), and running
 * the three members' loads at once on fio servers (quorum_members.c).
 *
 * Each member's disk runs capacity's closed-loop load at the same client count (its own WAL Saves and
 * backend commits, fio's json+ bins of each). The combination replays a 3-member cluster on a virtual clock
 * with Save latencies drawn from those bins: the leader (member 0) takes a Ready of every waiting put,
 * sends it to both followers (arriving rtt/2 later) and Saves it; a follower Saves every Ready that has
 * arrived when it is free and answers rtt/2 after its Save; an entry is committed when one follower has
 * answered (raft counts the leader's own entry at append: raft.go appendEntry), and it reaches the apply
 * goroutine in the first Ready after both the commit and the leader's own Save of it (the leader's loop
 * takes no Ready while it Saves: etcdserver/raft.go start(), Advance after Save). So a put waits for the
 * slower of the leader's Save and the faster follower's Save + rtt — with rtt 0 and the leader not the
 * slowest member, the second fastest of the three. The apply side, the backend commits holding the
 * batch-transaction lock (the leader's commit latencies, every 100 ms or at 5,000 puts) and the clients'
 * closed loop are those of engine/load.h, which this file follows step for step (the engine is GPL and not
 * linked into the CLI). Save latencies are drawn independently per Save (the members' own runs give their
 * distributions at this client count, not their order in time). */
#ifndef ETCD_FIO_QUORUM_H
#define ETCD_FIO_QUORUM_H

#include <yajl/yajl_gen.h>
#include <stddef.h>
#include <stdint.h>

#include "fioreport.h"

#define QUORUM_MEMBERS 3
#define QUORUM_SPAN_S 20.0          /* virtual seconds replayed per client count */
#define QUORUM_WARM_S 1.0           /* ... of which the first are not counted (putload's warm-up) */
#define QUORUM_MAX_RTT_NS 1000000000ull /* --rtt at most 1 s: an election timeout is 1 s by default */
#define QUORUM_BATCH_INTERVAL_NS 100000000ull
#define QUORUM_BATCH_LIMIT_PUTS 5000u
#define QUORUM_PACE_S 1.5           /* the short first run of each client count that finds the cluster's rate */

typedef struct quorum_dist { /* a member's latencies: fio json+ bins (ascending by ns) */
    const fior_bin *bins;
    size_t n;
} quorum_dist;

typedef struct quorum_cfg {
    unsigned  clients;
    double    span_s, warm_s;     /* 0: QUORUM_SPAN_S, QUORUM_WARM_S */
    uint64_t  rtt_ns;             /* leader -> follower -> leader */
    uint64_t  client_ns, cpu_ns, apply_ns; /* as engine/load.h ld_config (cpu_ns = entry_ns: the leader's
                                   * work per entry before it Saves and sends, a follower's before it Saves) */
    uint64_t  ready_ns;           /* each member's raft-loop work per Ready, before its Save (the leader's also
                                   * before it sends; a Ready of committed entries only costs it too) */
    int       shared_core;        /* the three members' raft-loop work (ready_ns, cpu_ns) takes turns on one
                                   * core, as three etcd processes pinned to one CPU do */
    quorum_dist save[QUORUM_MEMBERS]; /* [0] the leader's Saves, [1] and [2] the followers' */
    quorum_dist commit;             /* the leader's backend commits (n = 0: no backend lock) */
    uint64_t  seed;
} quorum_cfg;

typedef struct quorum_out {
    uint64_t puts, saves;         /* counted after the warm-up */
    double   writes_per_s, entries_per_save;
    uint64_t lat_p50_ns, lat_p90_ns, lat_p99_ns;
    /* shares of the counted span, as capacity_row's: save_share is the leader's loop in its Save or waiting for
     * a follower's answer (the quorum's disks), cpu_share its work per entry, apply_share / blocked_share
     * the apply goroutine at work / waiting for a backend commit's lock */
    double   save_share, cpu_share, apply_share, blocked_share;
    uint64_t by_follower[QUORUM_MEMBERS]; /* Readys whose commit came from follower 1 or 2 ([0]: unused) */
    uint64_t leader_gated;        /* Readys committed before the leader's own Save of them ended */
} quorum_out;

/* Replays the cluster. 0, or -1 with a message (no clients, a member without samples, too many Readys). */
int quorum_simulate(const quorum_cfg *c, quorum_out *o, char *err, size_t errlen);

/* ---- quorum_members.c (running, reading) and quorum_row.c (the row): the three members ---- */
#include "capacity.h"
#include "fleet.h"

/* One client count on three members. */
typedef struct quorum_row {
    capacity_row  m[QUORUM_MEMBERS];     /* each member's own run: its bins, p99s and verdict (capacity_decide) */
    quorum_out sim;
    int      decisive;            /* the member whose bins the quorum row carries, -1 when none */
    char     note[256];           /* said below the row (members sharing one filesystem) */
    double   paced_wps;           /* the members' puts were paced at this rate (0: not paced) */
    int      gone[QUORUM_MEMBERS];  /* a member with no results at all (its server unreachable or lost) */
    const capacity_opts *o;
    const fior_criteria *crit;
} quorum_row;

/* --member HOST[,PORT]=DIR (DIR absolute, on the server; without =DIR the capacity DIR): adds it to f.
 * 0, or -1 with a message. */
int  quorum_add_member(struct fleet *f, const char *spec, char *err, size_t errlen);
/* Exactly three members, none listed twice (fleet_add_host), each with a directory. */
int  quorum_members_ok(const struct fleet *f, const char *dir, char *err, size_t errlen);
/* Runs the load of `clients` on the three members at once (one fio client, fio's client/server), reads each
 * member's WAL and backend bins, judges each (capacity_decide) and combines them (quorum_simulate) into row.
 * 0, or -1 when fio could not be started. */
int  quorum_run_row(const capacity_opts *o, const fior_criteria *crit, const char *engine, unsigned clients,
                  double seconds, capacity_row *row, char *err, size_t errlen);
/* Judges the members, picks the one that decides (a member's bound FAIL; else an undecided one, the one
 * whose point estimate fails first; else the one with the highest WAL p99), copies its bins into row and
 * replays the cluster. Used after a run and after a confirmation run's samples were pooled. */
void quorum_finish(capacity_row *row);
/* Reads fio's client/server json+ output (path) into the members' rows (pure but for the file read). */
void quorum_read(quorum_row *q, const struct fleet *f, const char *path);
/* Any row of capacity, a quorum row or a disk's: merges b into a (a quorum row's members' samples pooled,
 * then combined again), frees it. */
void quorum_row_merge(capacity_row *a, const capacity_row *b);
void quorum_row_free(capacity_row *row);
/* A quorum row's "members" (doc/etcd-fio.schema.json capacity_member), for capacity_out.c. */
void quorum_json(yajl_gen g, const capacity_row *row);  /* an array */
/* Below a quorum row of the table: one line per member. */
void quorum_table(FILE *f, const capacity_row *row);

#endif
