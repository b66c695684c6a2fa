/* SPDX-License-Identifier: MIT */
/* liveetcd.h — is a live etcd using the filesystem `check` is about to load? Two kinds of evidence, both
 * read-only (stat, readlink, /proc; no file of etcd's is ever opened):
 *   - its locks: a running etcd keeps its WAL segments and the spare locked (OFD write locks, etcd
 *     pkg/fileutil lock_linux.go) and bbolt flocks member/snap/db. /proc/locks lists them by device and
 *     inode. OFD locks carry no pid (-1) and are listed in every pid namespace, so a WAL locked by an etcd
 *     in another container is still seen: its inode is matched against the WAL files found near DIR (DIR,
 *     its parents up to the mount point, its subdirectories two levels down; member/wal or a --wal-dir).
 *   - its process, where visible: a process with one of etcd's files open (a WAL segment in a "wal"
 *     directory, member/snap/db) on DIR's device, from /proc/PID/fd; a process named etcd whose working
 *     directory is on it.
 * Our own engine's private directories (etcd-fio.*) hold files with WAL names too: never counted. */
#ifndef ETCD_FIO_LIVEETCD_H
#define ETCD_FIO_LIVEETCD_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "result.h"

/* One held lock of /proc/locks ("1: OFDLCK ADVISORY WRITE -1 fe:00:11019443 0 EOF"; waiters, "->", are
 * not held and left out). */
typedef struct liveetcd_lock {
    char     kind[8];      /* OFDLCK, FLOCK, POSIX, LEASE, ... */
    int      write;
    long     pid;          /* -1 for OFD locks; 0 when the holder is not visible */
    unsigned maj, min;
    uint64_t ino;
} liveetcd_lock;

/* The held locks in /proc/locks text on device maj:min, at most max into out; returns how many were
 * found (may exceed max). Lines it cannot read are skipped. */
size_t liveetcd_parse_locks(const char *text, unsigned maj, unsigned min, liveetcd_lock *out, size_t max);

/* 1 if name is an etcd WAL segment name ("%016x-%016x.wal") or the spare's ("0.tmp", "1.tmp"). */
int liveetcd_wal_name(const char *name);
/* The etcd data directory of the path of one of its files: ".../member/wal/SEGMENT" or "/0.tmp",
 * ".../member/snap/db", ".../member/snap/X.snap" give "..." (1); anything else 0. */
int liveetcd_datadir_of(const char *path, char *out, size_t n);
/* 1 if a lies within b or b within a, or they are the same path (both absolute, no trailing '/'). */
int liveetcd_related(const char *a, const char *b);

typedef struct liveetcd {
    int      found;          /* a live etcd uses DIR's filesystem */
    int      here;           /* its data (or WAL) directory is DIR, under DIR, or DIR is under it */
    int      wal_locked;     /* its WAL files are locked (/proc/locks) */
    long     pid;            /* its pid as seen here; 0 when not visible (another pid namespace) */
    double   start_s;        /* Unix time its process started (visible pid only), 0 when unknown */
    char     datadir[4096];  /* its data directory (or WAL directory), "" when not known */
    char     how[600];       /* how we know it, one line */
    unsigned more;           /* further etcd processes on this filesystem */
} liveetcd;

/* Looks for a live etcd on the filesystem of dir (absolute; device maj:min). Never fails: nothing found
 * is found = 0. */
void liveetcd_find(const char *dir, unsigned maj, unsigned min, liveetcd *out);

/* The result's "live_etcd" detail and its explain line (shared-with-etcd) when one was found. */
void liveetcd_report(const liveetcd *le, result_run *r);

#endif
