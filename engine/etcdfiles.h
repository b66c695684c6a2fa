/* SPDX-License-Identifier: MIT */
/* etcdfiles.h — the names etcd gives its files and folders, in one place for the engine (privdir.c: which
 * names in our private directory are ours to remove) and the CLI (tmpdir.c, liveetcd.c, outfile.c: which
 * directories are etcd's and never written into or emptied). Header only, no fio types, MIT so that the CLI
 * may include it (tests/test_etcdfiles.c).
 *
 * etcd's names (server/storage/wal/util.go walName, file_pipeline.go alloc; server/etcdserver/api/snap/
 * snapshotter.go save, db.go SaveDBFrom; server/storage/backend: member/snap/db):
 *   DATADIR/member/wal/%016x-%016x.wal   a WAL segment (sequence, first index)
 *   DATADIR/member/wal/0.tmp, 1.tmp      the next segment, preallocated (count % 2)
 *   DATADIR/member/snap/%016x-%016x.snap a raft snapshot (term, index)
 *   DATADIR/member/snap/%016x.snap.db    a backend received from the leader
 *   DATADIR/member/snap/db               the bbolt backend
 * Our engine writes the same names (it writes the way etcd writes), inside a private directory of its own. */
#ifndef ETCD_FIO_ETCDFILES_H
#define ETCD_FIO_ETCDFILES_H

#include <string.h>

#define ETCDFILES_MEMBER_DIR "member" /* under the data directory */
#define ETCDFILES_WAL_DIR    "wal"    /* under member/ (or --wal-dir itself) */
#define ETCDFILES_SNAP_DIR   "snap"   /* under member/ */
#define ETCDFILES_DB_NAME    "db"     /* the backend, in member/snap/ */

typedef enum etcdfiles_kind {
    ETCDFILES_OTHER = 0, /* no name etcd gives */
    ETCDFILES_WAL,       /* any NAME.wal (a segment has the strict shape etcdfiles_wal_segment checks) */
    ETCDFILES_WAL_TMP,   /* 0.tmp or 1.tmp */
    ETCDFILES_SNAP,      /* any NAME.snap */
    ETCDFILES_SNAP_DB,   /* any NAME.snap.db */
    ETCDFILES_DB         /* db */
} etcdfiles_kind;

static inline int etcdfiles_ends(const char *name, size_t len, const char *suffix)
{
    size_t sl = strlen(suffix);
    return len > sl && !strcmp(name + len - sl, suffix);
}

/* What kind of etcd file a name (one path component) could be, by its shape alone: wide, so that a name
 * etcd might have given is never taken for one of ours. */
static inline etcdfiles_kind etcdfiles_kind_of(const char *name)
{
    size_t len = strlen(name);
    if (!strcmp(name, ETCDFILES_DB_NAME))
        return ETCDFILES_DB;
    if (!strcmp(name, "0.tmp") || !strcmp(name, "1.tmp"))
        return ETCDFILES_WAL_TMP;
    if (etcdfiles_ends(name, len, ".wal"))
        return ETCDFILES_WAL;
    if (etcdfiles_ends(name, len, ".snap.db"))
        return ETCDFILES_SNAP_DB;
    if (etcdfiles_ends(name, len, ".snap"))
        return ETCDFILES_SNAP;
    return ETCDFILES_OTHER;
}

static inline int etcdfiles_hex16(const char *p)
{
    for (int i = 0; i < 16; i++)
        if (!((p[i] >= '0' && p[i] <= '9') || (p[i] >= 'a' && p[i] <= 'f') || (p[i] >= 'A' && p[i] <= 'F')))
            return 0;
    return 1;
}

/* A WAL segment's exact name: 16 hex digits, '-', 16 hex digits, ".wal" (either case of hex digit: a
 * directory holding such a name is treated as etcd's). */
static inline int etcdfiles_wal_segment(const char *name)
{
    return strlen(name) == 37 && etcdfiles_hex16(name) && name[16] == '-' && etcdfiles_hex16(name + 17) &&
           !strcmp(name + 33, ".wal");
}

#endif
