/* SPDX-License-Identifier: MIT */
/* tmpdir.h — etcd-fio's own temporary directories (BASE/etcd-fio-WHAT.XXXXXX: the job files, fio's stderr
 * and the engine's stats under $TMPDIR; the classic job's data in DIR) and the reaping of those a killed
 * etcd-fio left. A name is never enough to remove one: ownership is a lock, as for the engine's private
 * directories (engine/privdir.c). The directory is made with mode 01700 (the sticky bit is our creation
 * mark: mkdir sets it atomically, umask leaves it, mkdtemp and mkdir(1) never give it), then a file "lock"
 * is created in it (O_EXCL|O_NOFOLLOW) and held with an open-file-description write lock for the run. The
 * descriptor is inherited by the fio we start (not close-on-exec), so the lock lives as long as anything of
 * the run does: a fio left running after etcd-fio was SIGKILLed, or one stuck in the kernel, keeps its
 * directory. A later run removes a directory of that pattern only when it is a real directory of our uid
 * with the mark, and either empty (killed before the lock file was made) or holding a lock file — empty,
 * regular, ours, one link — whose lock anyone can take now (its run is gone, in any pid namespace); then
 * only the regular files and symlinks directly in it go, and the directory. */
#ifndef ETCD_FIO_TMPDIR_H
#define ETCD_FIO_TMPDIR_H

#include <stddef.h>

#define TMPDIR_PREFIX "etcd-fio-"
#define TMPDIR_LOCK   "lock"
#define TMPDIR_MAX    16  /* directories one process holds at once */

/* Makes and locks BASE/etcd-fio-WHAT.XXXXXX (what: [a-z0-9-]+), after reaping the stale ones of any
 * WHAT in base. 0 with the path in dir, or -1 with a one-line message in err. */
int  tmpdir_make(const char *base, const char *what, char *dir, size_t len, char *err, size_t errlen);
/* Removes the files directly in it, its lock last, then the directory (a directory inside is left, and so
 * is the directory then). */
void tmpdir_remove(const char *dir);
/* Lets go of it without removing it: our lock descriptor is closed; a process that inherited it (a fio
 * that could not be ended) keeps it locked, and a later run reaps it once that process is gone. */
void tmpdir_leave(const char *dir);
/* Makes sure dir goes after any kill of etcd-fio, also a SIGKILL of its whole process group while a
 * program it started (which inherited the lock) works in it: a guard process in a session of its own,
 * holding no descriptor of ours, waits for etcd-fio's end (the pipe whose write end only etcd-fio holds
 * closes), then removes dir as the reaper does, once its lock is free — the program gone too — polling
 * every 20 ms for up to TMPDIR_GUARD_S. tmpdir_remove ends it (it exits finding dir gone), tmpdir_leave
 * kills it. 0, or -1: no guard (a kill's leftover is then the next run's reaper's). */
#define TMPDIR_GUARD_S 60
int  tmpdir_guard(const char *dir);
/* Removes the stale directories of our pattern in base (see above); returns how many. */
int  tmpdir_reap(const char *base);
/* 1 if name is exactly etcd-fio-WHAT.XXXXXX. */
int  tmpdir_match(const char *name);

#endif
