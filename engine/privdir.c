/* SPDX-License-Identifier: GPL-2.0-or-later */
/* privdir.c — private directory life cycle (see privdir.h). Removal only ever unlinks names the engine
 * itself creates, inside a directory whose name matches our exact pattern, opened without following
 * symlinks; liveness is a lock on a file inside the directory, never a pid.
 *
 * Which lock. An open-file-description lock (fcntl F_OFD_SETLK, whole file, write), as etcd itself locks
 * its WAL files (etcd client/pkg/fileutil/lock_linux.go: "This used to call syscall.Flock() but that call
 * fails with EBADF on NFS"), with the same reasons here:
 *  - classic POSIX locks (F_SETLK) belong to the process: with fio --thread every job is a thread of one
 *    process, so one job's test of a sibling's lock would succeed and reap a live directory; closing any
 *    descriptor of the file drops them; they are not inherited by fork. Ruled out.
 *  - OFD locks (and flock) belong to the open file description: each job opens its own, so jobs in one
 *    process conflict as they should; a forked child shares it (O_CLOEXEC drops it at exec), which only
 *    keeps a directory alive longer; the kernel drops it when the last descriptor goes — normal end or
 *    SIGKILL — and it lives on the inode, so it means the same in every pid namespace and container that
 *    sees the directory (a pid in a name does not: pid 2 is alive in every pod).
 *  - NFS: OFD locks go to the server as byte-range locks (NLM or NFSv4 LOCK), so other clients see them;
 *    flock is emulated the same way but needs a write-open descriptor (etcd's EBADF). FUSE: passed to the
 *    daemon if it implements locks, else kept by the kernel (correct for every process on the host).
 *  - No locks at all (ENOLCK: NFS mounted nolock without lockd) fails the run, as etcd refuses to start
 *    there; a reaper that cannot lock never removes anything.
 *
 * The race. A directory is given the reaper's name only once it is locked: it is made (mkdtemp-like) as
 * "etcd-fio.<pid>.<job>.tmp-XXXXXX", the lock file is created in it (O_EXCL|O_NOFOLLOW) and locked, then
 * it is renamed (RENAME_NOREPLACE) into "etcd-fio.<pid>.<job>.<n>". A staging directory is reaped like a
 * named one (empty: rmdir; lock file takeable: stale), and its creator notices: the lock file it creates
 * in a removed directory fails with ENOENT, and a lock file it locked after a reaper had it is no longer
 * linked in the directory (checked by inode), so it starts again under a new temporary name.
 *
 * Ownership. A name is never enough: anyone can make "etcd-fio.99999.etcd-backend.tmp-abcdef". A directory
 * is ours when it holds our lock file (a regular file of our uid, not a symlink, that we can lock: then its
 * run is dead) and only our files. The one moment a directory of ours has no lock file is between mkdir
 * and the lock file's creation (or after a killed reaper unlinked it): for that, mkdir itself marks it —
 * mode 01700 (sticky + 0700), set atomically with the directory (umask does not touch S_ISVTX) and no
 * directory made by mkdir(1), mkdtemp or a tar of ours carries it. An empty directory is removed only
 * with that mark; any other one without a lock file is left. */
#include "privdir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "waldec.h"
#include "etcdfiles.h"
#include "sys.h"

#define PD_PREFIX "etcd-fio."
#define PD_KEPT "etcd-fio-kept."
#define PD_STAGE_TAIL "tmp-" /* staging names end in ".tmp-XXXXXX" */
#define PD_STAGE "." PD_STAGE_TAIL
#define PD_JOB_MAX 64
#define PD_ATTEMPTS 64
#define PD_MARK_MODE (S_ISVTX | 0700) /* the creation mark (see "Ownership" above) */

static int job_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
}

static void sanitize(char *out, size_t cap, const char *job)
{
    size_t n = 0;
    for (const char *p = job ? job : ""; *p && n + 1 < cap && n < PD_JOB_MAX; p++)
        out[n++] = job_char(*p) ? *p : '_';
    out[n] = 0;
    if (!n)
        snprintf(out, cap, "job");
}

/* Whole-file write lock on the open file description (l_pid must be 0 for OFD locks). 0 or -errno. */
static int ofd_lock(int fd, int wait)
{
    struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0};
    int rc;
    while ((rc = fcntl(fd, wait ? F_OFD_SETLKW : F_OFD_SETLK, &fl)) != 0 && errno == EINTR)
        ;
    return rc == 0 ? 0 : -errno;
}

/* 1 if dfd/PRIVDIR_LOCK is still the very file lfd holds (not unlinked by a reaper meanwhile). */
static int still_linked(int dfd, int lfd)
{
    struct stat a, b;
    return fstat(lfd, &a) == 0 && fstatat(dfd, PRIVDIR_LOCK, &b, AT_SYMLINK_NOFOLLOW) == 0 &&
           a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* Gives the locked staging directory tmp its final name: the first free etcd-fio.<pid>.<job>.<n>. */
static int publish(privdir *pd, const char *tmp, pid_t pid, const char *j)
{
    for (unsigned n = 0; n < 10000; n++) {
        snprintf(pd->name, sizeof pd->name, PD_PREFIX "%ld.%s.%u", (long)pid, j, n);
        snprintf(pd->path, sizeof pd->path, "%s/%s", pd->parent, pd->name);
        int rc = sys_renameat2(AT_FDCWD, tmp, AT_FDCWD, pd->path, RENAME_NOREPLACE);
        /* NFS and some FUSE file systems lack RENAME_NOREPLACE: a plain rename still fails on a non-empty
         * target (every named directory holds its lock file); an empty one is debris the reaper removes */
        if (rc != 0 && (errno == EINVAL || errno == ENOSYS))
            rc = sys_renameat(AT_FDCWD, tmp, AT_FDCWD, pd->path);
        if (rc == 0)
            return 0;
        if (errno != EEXIST && errno != ENOTEMPTY)
            return -errno;
    }
    return -EEXIST;
}

/* mkdtemp's job, done with mkdir(2) itself (glibc's mkdtemp calls an internal mkdir that an LD_PRELOAD
 * fault shim cannot see, and makes mode 0700, not our mark): "<parent>/etcd-fio.<pid>.<job>.tmp-" + 6
 * random [A-Za-z0-9], mode PD_MARK_MODE. */
static int make_staging(char *tmp, size_t cap, const char *parent, pid_t pid, const char *j)
{
    static const char abc[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    for (int tries = 0; tries < 100; tries++) {
        unsigned char r[6];
        if (getentropy(r, sizeof r) != 0)
            return errno;
        char x[7];
        for (int i = 0; i < 6; i++)
            x[i] = abc[r[i] % (sizeof abc - 1)];
        x[6] = 0;
        snprintf(tmp, cap, "%s/" PD_PREFIX "%ld.%s" PD_STAGE "%s", parent, (long)pid, j, x);
        if (mkdir(tmp, PD_MARK_MODE) == 0)
            return 0;
        if (errno != EEXIST)
            return errno;
    }
    return EEXIST;
}

int privdir_create_hooked(privdir *pd, const char *parent, const char *job, pid_t pid, char *err,
                          size_t errlen, void (*hook)(int step, const char *path, void *arg), void *arg)
{
    char j[PD_JOB_MAX + 1], tmp[sizeof pd->path];
    memset(pd, 0, sizeof *pd);
    pd->fd = pd->lock_fd = -1;
    snprintf(pd->parent, sizeof pd->parent, "%s", parent && *parent ? parent : ".");
    sanitize(j, sizeof j, job);
    for (unsigned attempt = 0; attempt < PD_ATTEMPTS; attempt++) {
        int e = make_staging(tmp, sizeof tmp, pd->parent, pid, j);
        if (e) {
            snprintf(err, errlen, "mkdir(%s): %s", tmp, strerror(e));
            return -e;
        }
        if (hook)
            hook(PRIVDIR_STEP_STAGED, tmp, arg);
        int dfd = open(tmp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (dfd < 0 && errno == ENOENT)
            continue; /* reaped while empty */
        if (dfd < 0) {
            int e = errno;
            snprintf(err, errlen, "open(%s): %s", tmp, strerror(e));
            rmdir(tmp);
            return -e;
        }
        struct stat st; /* in a parent others may write to, the name could have been swapped meanwhile */
        if (fstat(dfd, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 077)) {
            close(dfd);
            snprintf(err, errlen, "%s: not the directory just made (owner or mode changed)", tmp);
            return -EPERM;
        }
        int lfd = openat(dfd, PRIVDIR_LOCK, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (lfd < 0) {
            int e = errno;
            close(dfd);
            if (e == ENOENT)
                continue; /* the directory was reaped while empty */
            snprintf(err, errlen, "create %s/" PRIVDIR_LOCK ": %s", tmp, strerror(e));
            rmdir(tmp);
            return -e;
        }
        if (hook)
            hook(PRIVDIR_STEP_LOCKFILE, tmp, arg);
        int rc = ofd_lock(lfd, 1);
        if (rc == 0 && !still_linked(dfd, lfd)) {
            close(lfd); /* a reaper had it first and removed it: start again */
            close(dfd);
            rmdir(tmp);
            continue;
        }
        if (rc == 0 && hook)
            hook(PRIVDIR_STEP_LOCKED, tmp, arg);
        if (rc == 0 && (rc = publish(pd, tmp, pid, j)) != 0)
            snprintf(err, errlen, "rename(%s, %s): %s", tmp, pd->path, strerror(-rc));
        else if (rc != 0)
            snprintf(err, errlen, "lock %s/" PRIVDIR_LOCK ": %s (the engine needs file locks in this "
                     "directory, as etcd does)", tmp, strerror(-rc));
        if (rc != 0) {
            close(lfd);
            unlinkat(dfd, PRIVDIR_LOCK, 0);
            close(dfd);
            rmdir(tmp);
            pd->name[0] = pd->path[0] = 0;
            return rc;
        }
        pd->fd = dfd;
        pd->lock_fd = lfd;
        if (hook)
            hook(PRIVDIR_STEP_NAMED, pd->path, arg);
        return 0;
    }
    snprintf(err, errlen, "mkdir(%s): staging directories removed %d times in a row", tmp, PD_ATTEMPTS);
    return -EAGAIN;
}

int privdir_create(privdir *pd, const char *parent, const char *job, pid_t pid, char *err, size_t errlen)
{
    return privdir_create_hooked(pd, parent, job, pid, err, errlen, NULL, NULL);
}

int privdir_own_file(const char *name)
{
    uint64_t a, b;
    if (waldec_parse_name(name, &a, &b) == 0)
        return 1;
    etcdfiles_kind k = etcdfiles_kind_of(name);
    if (k == ETCDFILES_WAL_TMP || k == ETCDFILES_DB)
        return 1;
    /* etcd-fio check's write probe (tools/fsinfo.c), made in a staging directory of its own */
    if (strncmp(name, PRIVDIR_PROBE_PREFIX, strlen(PRIVDIR_PROBE_PREFIX)))
        return 0;
    const char *p = name + strlen(PRIVDIR_PROBE_PREFIX), *d = p;
    while (*p >= '0' && *p <= '9' && p - d < 10)
        p++;
    return p > d && !*p;
}

/* The kinds of directory the reaper removes: the engine's named and staging private directories, and
 * etcd-fio check --classic's (privdir.h), which holds fio's own data file instead of ours. */
enum { PD_NAMED, PD_STAGING, PD_CLASSIC };

int privdir_match_classic(const char *name)
{
    size_t pl = strlen(PRIVDIR_CLASSIC_PREFIX);
    if (strncmp(name, PRIVDIR_CLASSIC_PREFIX, pl) || strlen(name) != pl + 6)
        return 0;
    for (const char *p = name + pl; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')))
            return 0;
    return 1;
}

static int own_file(const char *name, int kind)
{
    return kind == PD_CLASSIC ? !strcmp(name, PRIVDIR_CLASSIC_FILE) : privdir_own_file(name);
}

/* Unlinks our data files in dfd (not the lock file): those of a directory of this kind. With
 * only_if_all_ours, unlinks nothing when any other name is there. 0 if no other name was found, -1
 * otherwise. */
static int unlink_ours(int dfd, int only_if_all_ours, int kind)
{
    int dup_fd = fcntl(dfd, F_DUPFD_CLOEXEC, 0);
    DIR *d = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
    if (!d) {
        if (dup_fd >= 0)
            close(dup_fd);
        return -1;
    }
    int rc = 0;
    for (int pass = only_if_all_ours ? 0 : 1; pass < 2; pass++) {
        rewinddir(d);
        struct dirent *e;
        while ((e = readdir(d))) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || !strcmp(e->d_name, PRIVDIR_LOCK))
                continue;
            if (!own_file(e->d_name, kind))
                rc = -1;
            else if (pass == 1 && unlinkat(dfd, e->d_name, 0) != 0 && errno != ENOENT)
                rc = -1;
        }
        if (rc)
            break;
    }
    closedir(d);
    return rc;
}

int privdir_remove(privdir *pd)
{
    if (pd->fd < 0)
        return 0;
    int fd = pd->fd;
    pd->fd = -1;
    unlink_ours(fd, 0, PD_NAMED);
    /* The lock goes last, closed before it is unlinked (an open file unlinked on NFS or FUSE is renamed to
     * .nfsXXXX / .fuse_hiddenXXXX and rmdir fails). A reaper that takes it in between removes the same
     * files; either of us may find them gone. */
    if (pd->lock_fd >= 0)
        close(pd->lock_fd);
    pd->lock_fd = -1;
    unlinkat(fd, PRIVDIR_LOCK, 0);
    int rc = rmdir(pd->path) == 0 || errno == ENOENT ? 0 : -errno;
    /* That reaper may have removed the directory itself, and a new run may have taken the free name:
     * ours is gone if it has no links left (fd still open, so its inode cannot be reused meanwhile). */
    struct stat st;
    if (rc && fstat(fd, &st) == 0 && st.st_nlink == 0)
        rc = 0;
    close(fd);
    return rc;
}

int privdir_keep(privdir *pd)
{
    char name[sizeof pd->name], path[sizeof pd->path];
    snprintf(name, sizeof name, PD_KEPT "%s", pd->name + strlen(PD_PREFIX));
    snprintf(path, sizeof path, "%s/%s", pd->parent, name);
    int rc = sys_renameat(AT_FDCWD, pd->path, AT_FDCWD, path) == 0 ? 0 : -errno;
    if (pd->lock_fd >= 0)
        close(pd->lock_fd);
    pd->lock_fd = -1;
    if (pd->fd >= 0) {
        if (rc == 0) { /* a kept directory holds only the run's files, is never reaped, has no mark */
            unlinkat(pd->fd, PRIVDIR_LOCK, 0);
            fchmod(pd->fd, 0700);
        }
        close(pd->fd);
    }
    pd->fd = -1;
    if (rc)
        return rc;
    memcpy(pd->name, name, sizeof name);
    memcpy(pd->path, path, sizeof path);
    return 0;
}

/* "etcd-fio.<pid>.<job>." → the rest after that dot, pid in *pid; NULL if name does not start so. */
static const char *match_head(const char *name, pid_t *pid)
{
    size_t pl = strlen(PD_PREFIX);
    if (strncmp(name, PD_PREFIX, pl))
        return NULL;
    const char *p = name + pl, *s = p;
    long v = 0;
    while (*p >= '0' && *p <= '9' && p - s < 10)
        v = v * 10 + (*p++ - '0');
    if (p == s || *p != '.' || v <= 0)
        return NULL;
    const char *job = ++p;
    while (job_char(*p)) /* the job part holds no dots; the last ".<n>" is the counter */
        p++;
    if (p == job || p - job > PD_JOB_MAX || *p != '.')
        return NULL;
    *pid = (pid_t)v;
    return p + 1;
}

int privdir_match(const char *name, pid_t *pid)
{
    pid_t v;
    const char *n = match_head(name, &v), *p = n;
    if (!n)
        return 0;
    while (*p >= '0' && *p <= '9')
        p++;
    if (p == n || *p || p - n > 5)
        return 0;
    *pid = v;
    return 1;
}

int privdir_match_staging(const char *name)
{
    pid_t v;
    const char *p = match_head(name, &v);
    if (!p || strncmp(p, PD_STAGE_TAIL, strlen(PD_STAGE_TAIL)))
        return 0;
    p += strlen(PD_STAGE_TAIL);
    int n = 0;
    for (; (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9'); p++)
        n++;
    return n == 6 && !*p; /* mkdtemp's XXXXXX */
}

/* Removes one candidate directory of parent if it is stale; 1 if removed. A classic one is ours only with
 * the creation mark, which its maker gives it for its whole life (tools/tmpdir.c). */
static int reap_one(int pfd, const char *name, int kind)
{
    struct stat st;
    int staging = kind != PD_NAMED;
    if (fstatat(pfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
        (kind == PD_CLASSIC && (st.st_mode & 07777) != PD_MARK_MODE))
        return 0;
    int dfd = openat(pfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (dfd < 0)
        return 0;
    int lfd = openat(dfd, PRIVDIR_LOCK, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (lfd < 0) {
        int e = errno;
        /* No lock file: one being staged (its creator notices and starts again), or emptied by a reaper
         * that was killed: removed only if empty and carrying our creation mark. Without the mark it is
         * someone else's directory with our name. A non-empty one comes from an engine version without lock
         * files (or holds someone's files): removed only with the proof of privdir_legacy_dead(). A symlink in
         * its place (ELOOP) is never followed. */
        int rc = e == ENOENT && (st.st_mode & 07777) == PD_MARK_MODE && unlinkat(pfd, name, AT_REMOVEDIR) == 0;
        if (!rc && e == ENOENT && !staging && privdir_legacy_dead(name, dfd, &st))
            rc = unlink_ours(dfd, 1, kind) == 0 && unlinkat(pfd, name, AT_REMOVEDIR) == 0;
        close(dfd);
        return rc;
    }
    struct stat ls;
    if (fstat(lfd, &ls) != 0 || !S_ISREG(ls.st_mode) || ls.st_uid != geteuid() || ofd_lock(lfd, 0) != 0 ||
        !still_linked(dfd, lfd) || unlink_ours(dfd, 1, kind) != 0) {
        close(lfd); /* alive, not lockable here, already being removed, or holding a file not ours */
        close(dfd);
        return 0;
    }
    /* Stale, and its lock is ours now. A staging (or classic) directory's lock file is unlinked while we
     * hold it, so that its creator, if it is waiting for the lock, finds it unlinked and starts again; a
     * named one's is closed first (no creator ever waits for a named directory; closing first spares NFS a
     * silly rename). */
    if (staging)
        unlinkat(dfd, PRIVDIR_LOCK, 0);
    close(lfd);
    if (!staging)
        unlinkat(dfd, PRIVDIR_LOCK, 0);
    close(dfd);
    return unlinkat(pfd, name, AT_REMOVEDIR) == 0;
}

int privdir_reap_stale(const char *parent)
{
    int pfd = open(parent && *parent ? parent : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (pfd < 0)
        return 0;
    DIR *d = fdopendir(pfd);
    if (!d) {
        close(pfd);
        return 0;
    }
    int reaped = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        pid_t pid;
        int kind = privdir_match_staging(e->d_name)  ? PD_STAGING
                   : privdir_match_classic(e->d_name) ? PD_CLASSIC
                   : privdir_match(e->d_name, &pid)   ? PD_NAMED
                                                      : -1;
        if (kind >= 0)
            reaped += reap_one(dirfd(d), e->d_name, kind);
    }
    closedir(d);
    return reaped;
}
