/* SPDX-License-Identifier: GPL-2.0-or-later */
/* privdir.h — the engine's private directory "etcd-fio.<pid>.<job>.<n>" under fio's directory. It is the
 * only place the engine creates or writes files, so a run inside /var/lib/etcd can never touch etcd's own
 * member/wal or member/snap files. Liveness is a lock, not a pid: the directory holds a file "lock" on
 * which its run keeps an open-file-description lock from before the directory gets its name until the
 * run ends; a directory whose lock anyone can take is stale, whatever pid its name carries (pids repeat
 * across pid namespaces: a container's fio is pid 2 in every pod). */
#ifndef ETCDWAL_PRIVDIR_H
#define ETCDWAL_PRIVDIR_H

#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

#define PRIVDIR_LOCK "lock"
/* etcd-fio check's write probe ".etcd-fio-probe.<pid>", made in a staging directory
 * "etcd-fio.<pid>.probe.tmp-XXXXXX" with the same lock protocol, so a killed check leaves nothing the next
 * run does not reap. */
#define PRIVDIR_PROBE_PREFIX ".etcd-fio-probe."

/* etcd-fio check --classic's directory "etcd-fio-classic.XXXXXX" (tools/tmpdir.h: made with the same
 * creation mark 01700, a "lock" file OFD-locked for the run, inherited by its fio), where fio's own sync job
 * writes its one file "classic.0.0" (fio's <job>.<job number>.<file number>). The engine's reaper removes one
 * whose lock anyone can take (its etcd-fio and fio gone), with the mark, holding nothing else. */
#define PRIVDIR_CLASSIC_PREFIX "etcd-fio-classic."
#define PRIVDIR_CLASSIC_FILE "classic.0.0"

typedef struct privdir {
    char parent[4096];
    char name[160];      /* etcd-fio.<pid>.<job>.<n> */
    char path[4096 + 160];
    int fd;              /* O_DIRECTORY handle of the private dir, -1 when closed */
    int lock_fd;         /* the locked "lock" file, -1 when released */
} privdir;

/* Creates and locks the directory: mkdir "etcd-fio.<pid>.<job>.tmp-XXXXXX", create "lock" (O_EXCL,
 * O_NOFOLLOW), lock it, then rename to the first free etcd-fio.<pid>.<job>.<n> (RENAME_NOREPLACE). Only
 * a locked directory ever carries the reaper's name. job is reduced to [A-Za-z0-9_-]; pid is only a
 * label. 0 or -errno + err. */
int  privdir_create(privdir *pd, const char *parent, const char *job, pid_t pid, char *err, size_t errlen);
/* The steps of privdir_create, for tests that interleave a reaper between them (hook may be NULL). */
enum { PRIVDIR_STEP_STAGED, PRIVDIR_STEP_LOCKFILE, PRIVDIR_STEP_LOCKED, PRIVDIR_STEP_NAMED };
int  privdir_create_hooked(privdir *pd, const char *parent, const char *job, pid_t pid, char *err,
                           size_t errlen, void (*hook)(int step, const char *path, void *arg), void *arg);
/* Removes the files the engine creates (segments, spares, db: the caller has closed them), then releases
 * and removes the lock, then the directory; closes fd. 0 or -errno. */
int  privdir_remove(privdir *pd);
/* Renames the directory to etcd-fio-kept.<pid>.<job>.<n> (never reaped), drops its lock file, closes
 * the fds; path updated. */
int  privdir_keep(privdir *pd);
/* Removes stale private directories in parent (ours by exact name, a real directory of our uid, lock
 * file takeable, only our files inside), half-made "*.tmp-XXXXXX" ones and check --classic's (above); an
 * empty one without a lock file only with the creation mark mode 01700 that privdir_create's mkdir gives it
 * (a name is never enough); a non-empty one without a lock file, made by an engine from before the locks,
 * only when provably ours and dead (privdir_legacy.c — only our file names, regular, single-linked; its pid
 * gone, nobody visible inside, nothing changed for 10 min). Returns how many. */
int  privdir_reap_stale(const char *parent);
/* 1 when the private directory called name, open as dfd (its stat in dst), has no lock file and is provably
 * ours and dead, made by an engine from before the locks (privdir_legacy.c says what that takes). */
int  privdir_legacy_dead(const char *name, int dfd, const struct stat *dst);
/* 1 if name is exactly a private directory name, with the pid label in *pid. */
int  privdir_match(const char *name, pid_t *pid);
/* 1 if name is exactly a half-made private directory name (etcd-fio.<pid>.<job>.tmp-XXXXXX). */
int  privdir_match_staging(const char *name);
/* 1 if name is exactly check --classic's directory name (PRIVDIR_CLASSIC_PREFIX + 6 of [A-Za-z0-9]). */
int  privdir_match_classic(const char *name);
/* 1 if name is a data file the engine may create inside its directory (not the lock). */
int  privdir_own_file(const char *name);

#endif
