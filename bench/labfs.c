/* SPDX-License-Identifier: MIT */
/* labfs.c — the slow-disk lab's filesystem: a FUSE passthrough of a backing directory (libfuse3) whose
 * fsync/fdatasync/fsyncdir calls are served by the simulated device of labdev.c, one at a time. The glue
 * only forwards calls to the backing directory, counts the bytes written to each file since its last sync
 * and sleeps each sync until the device says it is done; the device model itself is in labdev.c.
 *
 * Usage: labfs MOUNTPOINT -f -o passthrough=BACKING_DIR,model=SPEC[,stats=FILE][,trace=FILE][,ctl=FILE] [fuse opts]
 *   SPEC: see labdev.h, with ':' between its keys here (e.g. median=2ms:sigma=0.5:per_mib=1ms:seed=1).
 *   stats=FILE: JSON totals written at unmount; trace=FILE: one line per sync (arrival, start and finish
 *   in ns since the mount, bytes, inode, kind), for comparing the lab's device queue call by call.
 *   ctl=FILE: on SIGUSR1 the model is read again from FILE (a SPEC, ',' or ':' between keys) and replaces
 *   the running one (labdev_set_cfg: syncs already queued keep their schedule); "labfs: model now SPEC" (or
 *   "labfs: ctl: why") on stderr says it was done — a device that slows down under a running etcd.
 * Put the backing directory on tmpfs so the model is the only disk latency. */
#define FUSE_USE_VERSION 31
#include <fuse.h>

#include "labdev.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#define LF_DIRTY_SLOTS 4096u

typedef struct lf_opts {
    char *backing, *model, *stats, *trace, *ctl;
    int no_writeback;
} lf_opts;

typedef struct lf_dirty {
    ino_t ino;      /* 0: free slot */
    uint64_t bytes; /* written since the last sync of this inode */
} lf_dirty;

typedef struct lf_state {
    int root;               /* backing directory */
    labdev *dev;
    labdev_cfg cfg;
    uint64_t epoch;
    pthread_mutex_t mu;     /* guards dev, dirty, trace */
    lf_dirty dirty[LF_DIRTY_SLOTS];
    FILE *trace;
    const char *stats_path;
    int writeback;
} lf_state;

static lf_state S;

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static const char *rel(const char *path) { return path[1] ? path + 1 : "."; }

/* Slot of ino in the open-addressing table (mu held); NULL when full (the bytes then go uncounted). */
static lf_dirty *dirty_slot(ino_t ino)
{
    for (unsigned i = 0; i < LF_DIRTY_SLOTS; i++) {
        lf_dirty *d = &S.dirty[((unsigned)ino + i) % LF_DIRTY_SLOTS];
        if (d->ino == ino || d->ino == 0) {
            d->ino = ino;
            return d;
        }
    }
    return NULL;
}

/* One sync through the device: queue it, do the real sync, sleep until the device finishes it. */
static int device_sync(int fd, int kind)
{
    struct stat st;
    if (fstat(fd, &st) != 0)
        return -errno;
    pthread_mutex_lock(&S.mu);
    uint64_t bytes = 0;
    lf_dirty *d = kind == 'd' ? NULL : dirty_slot(st.st_ino);
    if (d) {
        bytes = d->bytes;
        d->bytes = 0;
    }
    labdev_req r = labdev_submit(S.dev, now_ns(), bytes);
    if (S.trace)
        fprintf(S.trace, "%llu %llu %llu %llu %llu %c\n", (unsigned long long)(r.arrive_ns - S.epoch),
                (unsigned long long)(r.start_ns - S.epoch), (unsigned long long)(r.finish_ns - S.epoch),
                (unsigned long long)bytes, (unsigned long long)st.st_ino, kind);
    pthread_mutex_unlock(&S.mu);
    int rc = kind == 'D' ? fdatasync(fd) : fsync(fd);
    int e = rc ? errno : 0;
    struct timespec ts = {.tv_sec = (time_t)(r.finish_ns / 1000000000ull), .tv_nsec = (long)(r.finish_ns % 1000000000ull)};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
        ;
    return -e;
}

/* The kernel's writeback cache: a pwrite only fills the page cache, as on a local filesystem, and the
 * dirty pages reach us (few WRITE requests, contiguous pages merged) when they are flushed, at the
 * latest by the fsync. Without it every pwrite is a round trip to this daemon, which on a busy 2-core
 * machine costs up to a millisecond: a bbolt commit of 54 pages then measured the CPU queue, not the
 * device. attr_timeout etc. stay at their defaults. */
static void *lf_init(struct fuse_conn_info *conn, struct fuse_config *cfg)
{
    cfg->use_ino = 1;
    if (S.writeback && (conn->capable & FUSE_CAP_WRITEBACK_CACHE))
        conn->want |= FUSE_CAP_WRITEBACK_CACHE;
    else
        S.writeback = 0;
    return NULL;
}

/* With the writeback cache the kernel may read pages of a file opened write-only (to fill partial
 * pages) and keeps the file offset itself, so the backing file is opened read-write and without
 * O_APPEND (libfuse's passthrough examples do the same). */
static int lf_flags(int flags)
{
    if (!S.writeback)
        return flags;
    if ((flags & O_ACCMODE) == O_WRONLY)
        flags = (flags & ~O_ACCMODE) | O_RDWR;
    return flags & ~O_APPEND;
}

/* Totals for stats=FILE, written when fuse_main returns (also after SIGTERM, when no DESTROY came). */
static void write_stats(void)
{
    if (!S.stats_path)
        return;
    FILE *f = fopen(S.stats_path, "w");
    if (!f) {
        fprintf(stderr, "labfs: %s: %s\n", S.stats_path, strerror(errno));
        return;
    }
    const labdev_stats *s = labdev_get_stats(S.dev);
    char m[256];
    labdev_format(&S.cfg, m, sizeof m);
    fprintf(f, "{\"model\":\"%s\",\"requests\":%llu,\"bytes\":%llu,\"busy_ns\":%llu,\"wait_ns\":%llu,"
               "\"stalled_ns\":%llu,\"max_latency_ns\":%llu,\"seconds\":%.3f}\n",
            m, (unsigned long long)s->requests, (unsigned long long)s->bytes, (unsigned long long)s->busy_ns,
            (unsigned long long)s->wait_ns, (unsigned long long)s->stalled_ns,
            (unsigned long long)s->max_latency_ns, (double)(now_ns() - S.epoch) / 1e9);
    fclose(f);
}

static int lf_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
    int rc = fi ? fstat((int)fi->fh, st) : fstatat(S.root, rel(path), st, AT_SYMLINK_NOFOLLOW);
    return rc ? -errno : 0;
}

static int lf_access(const char *path, int mask)
{
    return faccessat(S.root, rel(path), mask, 0) ? -errno : 0;
}

static int lf_readlink(const char *path, char *buf, size_t size)
{
    ssize_t n = readlinkat(S.root, rel(path), buf, size - 1);
    if (n < 0)
        return -errno;
    buf[n] = '\0';
    return 0;
}

static int lf_readdir(const char *path, void *buf, fuse_fill_dir_t fill, off_t off, struct fuse_file_info *fi,
                      enum fuse_readdir_flags flags)
{
    (void)off;
    (void)fi;
    (void)flags;
    int fd = openat(S.root, rel(path), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    DIR *dp = fdopendir(fd);
    if (!dp) {
        int e = errno;
        close(fd);
        return -e;
    }
    struct dirent *de;
    while ((de = readdir(dp))) {
        struct stat st = {.st_ino = de->d_ino, .st_mode = (mode_t)de->d_type << 12};
        if (fill(buf, de->d_name, &st, 0, 0))
            break;
    }
    closedir(dp);
    return 0;
}

static int lf_mkdir(const char *path, mode_t mode) { return mkdirat(S.root, rel(path), mode) ? -errno : 0; }
static int lf_unlink(const char *path) { return unlinkat(S.root, rel(path), 0) ? -errno : 0; }
static int lf_rmdir(const char *path) { return unlinkat(S.root, rel(path), AT_REMOVEDIR) ? -errno : 0; }
static int lf_symlink(const char *from, const char *to) { return symlinkat(from, S.root, rel(to)) ? -errno : 0; }

static int lf_rename(const char *from, const char *to, unsigned int flags)
{
    return renameat2(S.root, rel(from), S.root, rel(to), flags) ? -errno : 0;
}

static int lf_link(const char *from, const char *to)
{
    return linkat(S.root, rel(from), S.root, rel(to), 0) ? -errno : 0;
}

static int lf_chmod(const char *path, mode_t mode, struct fuse_file_info *fi)
{
    int rc = fi ? fchmod((int)fi->fh, mode) : fchmodat(S.root, rel(path), mode, 0);
    return rc ? -errno : 0;
}

static int lf_chown(const char *path, uid_t uid, gid_t gid, struct fuse_file_info *fi)
{
    int rc = fi ? fchown((int)fi->fh, uid, gid) : fchownat(S.root, rel(path), uid, gid, AT_SYMLINK_NOFOLLOW);
    return rc ? -errno : 0;
}

static int lf_truncate(const char *path, off_t size, struct fuse_file_info *fi)
{
    if (fi)
        return ftruncate((int)fi->fh, size) ? -errno : 0;
    int fd = openat(S.root, rel(path), O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    int rc = ftruncate(fd, size) ? -errno : 0;
    close(fd);
    return rc;
}

static int lf_utimens(const char *path, const struct timespec tv[2], struct fuse_file_info *fi)
{
    int rc = fi ? futimens((int)fi->fh, tv) : utimensat(S.root, rel(path), tv, AT_SYMLINK_NOFOLLOW);
    return rc ? -errno : 0;
}

static int lf_open(const char *path, struct fuse_file_info *fi)
{
    int fd = openat(S.root, rel(path), lf_flags(fi->flags & ~O_NOFOLLOW) | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    fi->fh = (uint64_t)fd;
    return 0;
}

static int lf_create(const char *path, mode_t mode, struct fuse_file_info *fi)
{
    int fd = openat(S.root, rel(path), lf_flags(fi->flags) | O_CREAT | O_CLOEXEC, mode);
    if (fd < 0)
        return -errno;
    fi->fh = (uint64_t)fd;
    return 0;
}

static int lf_read(const char *path, char *buf, size_t size, off_t off, struct fuse_file_info *fi)
{
    (void)path;
    ssize_t n = pread((int)fi->fh, buf, size, off);
    return n < 0 ? -errno : (int)n;
}

static int lf_write(const char *path, const char *buf, size_t size, off_t off, struct fuse_file_info *fi)
{
    (void)path;
    ssize_t n = pwrite((int)fi->fh, buf, size, off);
    if (n < 0)
        return -errno;
    struct stat st;
    if (fstat((int)fi->fh, &st) == 0) {
        pthread_mutex_lock(&S.mu);
        lf_dirty *d = dirty_slot(st.st_ino);
        if (d)
            d->bytes += (uint64_t)n;
        pthread_mutex_unlock(&S.mu);
    }
    return (int)n;
}

static int lf_statfs(const char *path, struct statvfs *st)
{
    (void)path;
    return fstatvfs(S.root, st) ? -errno : 0;
}

static int lf_release(const char *path, struct fuse_file_info *fi)
{
    (void)path;
    close((int)fi->fh);
    return 0;
}

static int lf_fsync(const char *path, int datasync, struct fuse_file_info *fi)
{
    (void)path;
    return device_sync((int)fi->fh, datasync ? 'D' : 'F');
}

static int lf_fsyncdir(const char *path, int datasync, struct fuse_file_info *fi)
{
    (void)datasync;
    (void)fi;
    int fd = openat(S.root, rel(path), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    int rc = device_sync(fd, 'd');
    close(fd);
    return rc;
}

static int lf_fallocate(const char *path, int mode, off_t off, off_t len, struct fuse_file_info *fi)
{
    (void)path;
    return fallocate((int)fi->fh, mode, off, len) ? -errno : 0;
}

static const struct fuse_operations lf_ops = {
    .init = lf_init,         .getattr = lf_getattr, .access = lf_access,
    .readlink = lf_readlink, .readdir = lf_readdir, .mkdir = lf_mkdir,       .unlink = lf_unlink,
    .rmdir = lf_rmdir,       .symlink = lf_symlink, .rename = lf_rename,     .link = lf_link,
    .chmod = lf_chmod,       .chown = lf_chown,     .truncate = lf_truncate, .utimens = lf_utimens,
    .open = lf_open,         .create = lf_create,   .read = lf_read,         .write = lf_write,
    .statfs = lf_statfs,     .release = lf_release, .fsync = lf_fsync,       .fsyncdir = lf_fsyncdir,
    .fallocate = lf_fallocate,
};

#define LF_OPT(t, p) {t, offsetof(lf_opts, p), 1}
static const struct fuse_opt lf_optspec[] = {
    LF_OPT("passthrough=%s", backing), LF_OPT("model=%s", model), LF_OPT("stats=%s", stats),
    LF_OPT("trace=%s", trace), LF_OPT("ctl=%s", ctl), {"no_writeback", offsetof(lf_opts, no_writeback), 1},
    FUSE_OPT_END,
};

/* ctl=FILE: a thread waits for SIGUSR1 (blocked in every thread, so only sigwait takes it), reads the new
 * model and swaps it in under the device's lock. */
static void *ctl_thread(void *arg)
{
    const char *path = arg;
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGUSR1);
    for (;;) {
        int sig;
        if (sigwait(&set, &sig) != 0)
            continue;
        char spec[512] = "", err[256], m[256];
        FILE *f = fopen(path, "r");
        size_t n = f ? fread(spec, 1, sizeof spec - 1, f) : 0;
        if (f)
            fclose(f);
        spec[n] = '\0';
        spec[strcspn(spec, "\n")] = '\0';
        labdev_cfg cfg;
        if (!f)
            fprintf(stderr, "labfs: ctl: %s: %s\n", path, strerror(errno));
        else if (labdev_parse(&cfg, spec, err, sizeof err) != 0)
            fprintf(stderr, "labfs: ctl: %s: %s\n", path, err);
        else {
            pthread_mutex_lock(&S.mu);
            labdev_set_cfg(S.dev, &cfg);
            pthread_mutex_unlock(&S.mu);
            labdev_format(&cfg, m, sizeof m);
            fprintf(stderr, "labfs: model now %s\n", m);
        }
        fflush(stderr);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    struct fuse_args args = FUSE_ARGS_INIT(argc, argv);
    lf_opts o = {0};
    if (fuse_opt_parse(&args, &o, lf_optspec, NULL) != 0)
        return 2;
    if (!o.backing || !o.model) {
        fprintf(stderr, "usage: labfs MOUNTPOINT -f -o passthrough=BACKING_DIR,model=SPEC[,stats=FILE][,trace=FILE]\n");
        return 2;
    }
    char err[256];
    if (labdev_parse(&S.cfg, o.model, err, sizeof err) != 0) {
        fprintf(stderr, "labfs: %s\n", err);
        return 2;
    }
    S.root = open(o.backing, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (S.root < 0) {
        fprintf(stderr, "labfs: %s: %s\n", o.backing, strerror(errno));
        return 2;
    }
    if (o.trace && !(S.trace = fopen(o.trace, "wx"))) {
        fprintf(stderr, "labfs: %s: %s\n", o.trace, strerror(errno));
        return 2;
    }
    S.stats_path = o.stats;
    S.writeback = !o.no_writeback;
    pthread_mutex_init(&S.mu, NULL);
    S.epoch = now_ns();
    S.dev = labdev_new(&S.cfg, S.epoch);
    if (!S.dev) {
        fprintf(stderr, "labfs: out of memory\n");
        return 2;
    }
    if (o.ctl) {
        sigset_t set;
        sigemptyset(&set);
        sigaddset(&set, SIGUSR1);
        pthread_sigmask(SIG_BLOCK, &set, NULL); /* before fuse_main starts its threads: they inherit it */
        pthread_t th;
        if (pthread_create(&th, NULL, ctl_thread, o.ctl) != 0) {
            fprintf(stderr, "labfs: cannot start the ctl thread\n");
            return 2;
        }
        pthread_detach(th);
    }
    int rc = fuse_main(args.argc, args.argv, &lf_ops, NULL);
    pthread_mutex_lock(&S.mu);
    write_stats();
    if (S.trace)
        fclose(S.trace);
    S.trace = NULL;
    pthread_mutex_unlock(&S.mu);
    labdev_free(S.dev);
    fuse_opt_free_args(&args);
    close(S.root);
    return rc;
}
