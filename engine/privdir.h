/* privdir.h — the engine's private directory "etcd-fio.<pid>.<job>.<n>" under fio's directory. It is the
 * only place the engine creates or writes files, so a run inside /var/lib/etcd can never touch etcd's own
 * member/wal or member/snap files. Stale directories of dead processes are reaped by name + pid check. */
#ifndef ETCDWAL_PRIVDIR_H
#define ETCDWAL_PRIVDIR_H

#include <stddef.h>
#include <sys/types.h>

typedef struct privdir {
    char parent[4096];
    char name[160];      /* etcd-fio.<pid>.<job>.<n> */
    char path[4096 + 160];
    int fd;              /* O_DIRECTORY handle of the private dir, -1 when closed */
} privdir;

/* mkdir with O_EXCL semantics (EEXIST → next n). job is reduced to [A-Za-z0-9_-]. 0 or -errno + err. */
int  privdir_create(privdir *pd, const char *parent, const char *job, pid_t pid, char *err, size_t errlen);
/* Removes the files the engine creates (segments, spares, db) and the directory; closes fd. 0 or -errno. */
int  privdir_remove(privdir *pd);
/* Renames the directory to etcd-fio-kept.<pid>.<job>.<n> (never reaped) and closes fd; path updated. */
int  privdir_keep(privdir *pd);
/* Removes stale etcd-fio.<pid>.* directories in parent whose pid no longer exists. Returns how many. */
int  privdir_reap_stale(const char *parent);
/* 1 if name is exactly a private directory name, with its pid in *pid. */
int  privdir_match(const char *name, pid_t *pid);
/* 1 if name is a file the engine may create inside its directory. */
int  privdir_own_file(const char *name);

#endif
