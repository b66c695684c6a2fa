/* SPDX-License-Identifier: MIT */
/* tmpdir.c — etcd-fio's locked temporary directories and the reaper of stale ones (see tmpdir.h). The
 * protocol is the engine's (engine/privdir.c: an OFD lock on a file inside, held for the run; a creator
 * that finds its lock file unlinked by a reaper starts again), with the creation mark 01700 standing for
 * the moment between mkdir and the lock file. */
#include "tmpdir.h"
#include "../engine/etcdfiles.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define TD_MARK (S_ISVTX | 0700)
#define TD_ATTEMPTS 64

static struct {
    char  path[4096];
    int   lock_fd;
    pid_t guard;     /* tmpdir_guard's process, or 0 */
    int   guard_fd;  /* the write end of its pipe, -1 without a guard */
} held[TMPDIR_MAX];

static int what_ok(const char *w)
{
    if (!w || !*w || strlen(w) > 32)
        return 0;
    for (; *w; w++)
        if (!((*w >= 'a' && *w <= 'z') || (*w >= '0' && *w <= '9') || *w == '-'))
            return 0;
    return 1;
}

static int alnum(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

int tmpdir_match(const char *name)
{
    size_t pl = strlen(TMPDIR_PREFIX), n = strlen(name);
    if (strncmp(name, TMPDIR_PREFIX, pl) || n < pl + 8 || name[n - 7] != '.')
        return 0;
    for (size_t i = n - 6; i < n; i++)
        if (!alnum(name[i]))
            return 0;
    char what[64];
    size_t wl = n - 7 - pl;
    if (wl >= sizeof what)
        return 0;
    memcpy(what, name + pl, wl);
    what[wl] = '\0';
    return what_ok(what);
}

/* Whole-file write lock on the open file description (never a process-owned POSIX lock: see privdir.c). */
static int ofd_lock(int fd, int wait)
{
    struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0};
    int rc;
    while ((rc = fcntl(fd, wait ? F_OFD_SETLKW : F_OFD_SETLK, &fl)) != 0 && errno == EINTR)
        ;
    return rc;
}

static int still_linked(int dfd, int lfd)
{
    struct stat a, b;
    return fstat(lfd, &a) == 0 && fstatat(dfd, TMPDIR_LOCK, &b, AT_SYMLINK_NOFOLLOW) == 0 && a.st_dev == b.st_dev &&
           a.st_ino == b.st_ino;
}

/* Our lock file as we make it: a regular file of ours, empty, with no other name. */
static int lockfile_ok(const struct stat *st)
{
    return S_ISREG(st->st_mode) && st->st_uid == geteuid() && st->st_nlink == 1 && st->st_size == 0;
}

/* Unlinks the regular files and symlinks directly in dfd but the lock; 0 when nothing else is there. */
/* A name etcd gives its files (etcdfiles.h: *.wal, *.snap, *.snap.db, db): none of ours ever has one (job
 * files, fio's outputs, classic.0.0), so a directory holding one is never emptied, whatever its mark and
 * lock say — a hard link's name of etcd's file included. */
static int etcd_name(const char *n)
{
    etcdfiles_kind k = etcdfiles_kind_of(n);
    return k != ETCDFILES_OTHER && k != ETCDFILES_WAL_TMP;
}

static int unlink_files(int dfd)
{
    int dup_fd = fcntl(dfd, F_DUPFD_CLOEXEC, 0);
    DIR *d = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
    if (!d) {
        if (dup_fd >= 0)
            close(dup_fd);
        return -1;
    }
    int rc = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (etcd_name(e->d_name)) {
            closedir(d);
            return -1;
        }
    rewinddir(d);
    while ((e = readdir(d))) {
        struct stat st;
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || !strcmp(e->d_name, TMPDIR_LOCK))
            continue;
        if (fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
            continue;
        if ((!S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode)) || (unlinkat(dfd, e->d_name, 0) != 0 && errno != ENOENT))
            rc = -1;
    }
    closedir(d);
    return rc;
}

static int reap_one(int pfd, const char *name)
{
    struct stat st;
    if (fstatat(pfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
        (st.st_mode & 07777) != TD_MARK)
        return 0;
    int dfd = openat(pfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (dfd < 0)
        return 0;
    struct stat ds, ls;
    if (fstat(dfd, &ds) != 0 || ds.st_ino != st.st_ino || ds.st_dev != st.st_dev) {
        close(dfd);
        return 0;
    }
    if (fstatat(dfd, TMPDIR_LOCK, &ls, AT_SYMLINK_NOFOLLOW) != 0) {
        close(dfd);
        /* no lock file: killed between mkdir and the lock file (then it is empty: rmdir fails otherwise), or
         * its creator is in that moment (it notices the directory gone and starts again) */
        return errno == ENOENT && unlinkat(pfd, name, AT_REMOVEDIR) == 0;
    }
    if (!lockfile_ok(&ls)) { /* not a lock file of ours (a link to another file, a FIFO, a symlink): never opened */
        close(dfd);
        return 0;
    }
    int lfd = openat(dfd, TMPDIR_LOCK, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    struct stat fs;
    if (lfd < 0 || fstat(lfd, &fs) != 0 || fs.st_ino != ls.st_ino || !lockfile_ok(&fs) || ofd_lock(lfd, 0) != 0 ||
        !still_linked(dfd, lfd)) {
        if (lfd >= 0)
            close(lfd); /* alive (its run holds the lock), swapped, or already being removed */
        close(dfd);
        return 0;
    }
    int rc = unlink_files(dfd);
    close(lfd); /* closed before it is unlinked (NFS and FUSE rename an open unlinked file) */
    if (rc == 0)
        unlinkat(dfd, TMPDIR_LOCK, 0);
    close(dfd);
    return rc == 0 && unlinkat(pfd, name, AT_REMOVEDIR) == 0;
}

int tmpdir_reap(const char *base)
{
    int pfd = open(base && *base ? base : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (pfd < 0)
        return 0;
    int dfd = fcntl(pfd, F_DUPFD_CLOEXEC, 0);
    DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
    if (!d) {
        if (dfd >= 0)
            close(dfd);
        close(pfd);
        return 0;
    }
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (tmpdir_match(e->d_name))
            n += reap_one(pfd, e->d_name);
    closedir(d);
    close(pfd);
    return n;
}

static int slot_free(void)
{
    for (int i = 0; i < TMPDIR_MAX; i++)
        if (!held[i].path[0])
            return i;
    return -1;
}

int tmpdir_make(const char *base, const char *what, char *dir, size_t len, char *err, size_t errlen)
{
    static const char abc[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    int slot = slot_free();
    if (!what_ok(what) || slot < 0) {
        snprintf(err, errlen, "internal error: temporary directory '%s'", what ? what : "");
        return -1;
    }
    tmpdir_reap(base);
    for (int attempt = 0; attempt < TD_ATTEMPTS; attempt++) {
        unsigned char r[6];
        if (getrandom(r, sizeof r, 0) != (ssize_t)sizeof r) {
            snprintf(err, errlen, "getrandom: %s", strerror(errno));
            return -1;
        }
        char x[7];
        for (int i = 0; i < 6; i++)
            x[i] = abc[r[i] % (sizeof abc - 1)];
        x[6] = '\0';
        if ((size_t)snprintf(dir, len, "%s/" TMPDIR_PREFIX "%s.%s", base, what, x) >= len) {
            snprintf(err, errlen, "%s: path too long", base);
            return -1;
        }
        if (mkdir(dir, TD_MARK) != 0) {
            if (errno == EEXIST)
                continue;
            snprintf(err, errlen, "%s: %s", dir, strerror(errno));
            return -1;
        }
        int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        struct stat st;
        if (dfd < 0 || fstat(dfd, &st) != 0 || st.st_uid != geteuid() || (st.st_mode & 07777) != TD_MARK) {
            if (dfd >= 0)
                close(dfd);
            if (dfd < 0 && errno == ENOENT)
                continue; /* reaped while empty */
            snprintf(err, errlen, "%s: not the directory just made", dir);
            return -1;
        }
        /* not close-on-exec: the fio we start inherits the lock (tmpdir.h) */
        int lfd = openat(dfd, TMPDIR_LOCK, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW, 0600);
        if (lfd < 0) {
            int e = errno;
            close(dfd);
            if (e == ENOENT)
                continue;
            snprintf(err, errlen, "%s/" TMPDIR_LOCK ": %s", dir, strerror(e));
            rmdir(dir);
            return -1;
        }
        if (ofd_lock(lfd, 1) != 0) {
            snprintf(err, errlen, "%s/" TMPDIR_LOCK ": cannot lock it: %s", dir, strerror(errno));
            close(lfd);
            unlinkat(dfd, TMPDIR_LOCK, 0);
            close(dfd);
            rmdir(dir);
            return -1;
        }
        if (!still_linked(dfd, lfd)) { /* a reaper had it first and removed it */
            close(lfd);
            close(dfd);
            rmdir(dir);
            continue;
        }
        close(dfd);
        snprintf(held[slot].path, sizeof held[slot].path, "%s", dir);
        held[slot].lock_fd = lfd;
        held[slot].guard = 0;
        held[slot].guard_fd = -1;
        return 0;
    }
    snprintf(err, errlen, "%s: no temporary directory after %d attempts", base, TD_ATTEMPTS);
    return -1;
}

static int find(const char *dir)
{
    for (int i = 0; i < TMPDIR_MAX; i++)
        if (held[i].path[0] && !strcmp(held[i].path, dir))
            return i;
    return -1;
}

/* Ends slot i's guard: kill_it for a directory left to a later reaper, else by closing its pipe (it finds
 * the directory gone and exits); reaped either way. */
static void unguard(int i, int kill_it)
{
    if (held[i].guard_fd >= 0)
        close(held[i].guard_fd);
    if (held[i].guard > 0) {
        if (kill_it)
            kill(held[i].guard, SIGKILL);
        while (waitpid(held[i].guard, NULL, 0) < 0 && errno == EINTR)
            ;
    }
    held[i].guard = 0;
    held[i].guard_fd = -1;
}

void tmpdir_leave(const char *dir)
{
    int i = find(dir);
    if (i < 0)
        return;
    unguard(i, 1);
    close(held[i].lock_fd);
    held[i].path[0] = '\0';
}

void tmpdir_remove(const char *dir)
{
    int i = find(dir);
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    int rc = dfd >= 0 ? unlink_files(dfd) : -1;
    if (i >= 0)
        close(held[i].lock_fd);
    if (dfd >= 0) {
        if (rc == 0)
            unlinkat(dfd, TMPDIR_LOCK, 0);
        close(dfd);
    }
    rmdir(dir);
    if (i >= 0) {
        unguard(i, 0);
        held[i].path[0] = '\0';
    }
}

/* The guard process (forked: only async-signal-safe calls, but for reap_one's readdir, which glibc's fork
 * makes safe). It keeps nothing of ours open — every inherited descriptor goes, the held locks among them,
 * which it must never keep — but fd 3, the read end of a pipe whose write end only etcd-fio holds, and
 * fd 4, dir's parent (not a file in it: no writer there). */
static void guard_main(int rfd, int ready, const char *dir)
{
    setsid(); /* a kill of etcd-fio's process group does not reach it */
    close(ready); /* tmpdir_guard returns now: a group kill from here on misses this process */
    prctl(PR_SET_NAME, "etcd-fio-guard", 0, 0, 0); /* what ps shows: not a second etcd-fio check */
    char base[4096];
    const char *slash = strrchr(dir, '/'), *name = slash ? slash + 1 : dir;
    snprintf(base, sizeof base, "%.*s", slash ? (int)(slash - dir) : 1, slash ? dir : ".");
    int bfd = open(base[0] ? base : "/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int r5 = fcntl(rfd, F_DUPFD, 5), b5 = bfd < 0 ? -1 : fcntl(bfd, F_DUPFD, 5); /* out of 3 and 4's way */
    if (r5 < 0 || b5 < 0 || dup2(r5, 3) != 3 || dup2(b5, 4) != 4 || chdir("/") != 0)
        _exit(1);
#ifdef SYS_close_range
    if (syscall(SYS_close_range, 5, ~0U, 0) != 0)
#endif
        for (long fd = 5, max = sysconf(_SC_OPEN_MAX); fd < (max > 0 ? max : 65536); fd++)
            close((int)fd);
    int nul = open("/dev/null", O_RDWR);
    for (int fd = 0; fd < 3 && nul >= 0; fd++)
        dup2(nul, fd);
    if (nul > 4)
        close(nul);
    struct sigaction dfl = {.sa_handler = SIG_DFL};
    const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGCHLD};
    for (size_t k = 0; k < sizeof sigs / sizeof sigs[0]; k++)
        sigaction(sigs[k], &dfl, NULL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    char c;
    ssize_t n;
    while ((n = read(3, &c, 1)) != 0 && (n > 0 || errno == EINTR))
        ; /* until etcd-fio has ended, however */
    struct timespec step = {0, 20 * 1000 * 1000};
    struct stat st;
    for (long t = 0; t < TMPDIR_GUARD_S * 50L && fstatat(4, name, &st, AT_SYMLINK_NOFOLLOW) == 0; t++) {
        reap_one(4, name); /* only once its lock is free: the fio that inherited it is gone too */
        nanosleep(&step, NULL);
    }
    _exit(0);
}

int tmpdir_guard(const char *dir)
{
    int i = find(dir), pfd[2], rdy[2];
    if (i < 0 || held[i].guard > 0 || pipe2(pfd, O_CLOEXEC) != 0)
        return -1;
    if (pipe2(rdy, O_CLOEXEC) != 0) {
        close(pfd[0]);
        close(pfd[1]);
        return -1;
    }
    pid_t pid = fork();
    if (pid == 0) {
        close(rdy[0]);
        guard_main(pfd[0], rdy[1], held[i].path);
    }
    close(pfd[0]);
    close(rdy[1]);
    if (pid < 0) {
        close(rdy[0]);
        close(pfd[1]);
        return -1;
    }
    /* Until the guard has left our process group, a kill of the group (the operator's ^C, a SIGKILL of
     * the group) would take it along and nobody would remove dir: wait for it to say so (EOF). */
    char c;
    while (read(rdy[0], &c, 1) < 0 && errno == EINTR)
        ;
    close(rdy[0]);
    held[i].guard = pid;
    held[i].guard_fd = pfd[1];
    return 0;
}
