/* SPDX-License-Identifier: MIT */
/* outfile.c — safe creation of the files the user names (see outfile.h). */
#include "outfile.h"

#include <dirent.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../engine/etcdfiles.h"

/* dirname/basename of path into dir and base; 0, or -1 when it has no file name (ends in '/'). */
static int split(const char *path, char *dir, size_t dlen, const char **base)
{
    const char *slash = strrchr(path, '/');
    *base = slash ? slash + 1 : path;
    if (!**base || !strcmp(*base, ".") || !strcmp(*base, ".."))
        return -1;
    if (!slash)
        snprintf(dir, dlen, ".");
    else if (slash == path)
        snprintf(dir, dlen, "/");
    else
        snprintf(dir, dlen, "%.*s", (int)(slash - path), path);
    return 0;
}

/* The target must not be a symlink (we would replace the link, but an operator planting one expects it
 * to be written through: refusing says so) nor a directory. */
static int target_ok(int dirfd, const char *shown, const char *name, char *err, size_t errlen)
{
    /* shown: the directory as the user named it */
    struct stat st;
    if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
        return errno == ENOENT ? 0 : (snprintf(err, errlen, "%s/%s: %s", shown, name, strerror(errno)), -1);
    if (S_ISLNK(st.st_mode)) {
        snprintf(err, errlen, "%s/%s: is a symbolic link; refusing to write through it", shown, name);
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "%s/%s: exists and is not a regular file", shown, name);
        return -1;
    }
    return 0;
}

static int is_dir_at(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Is the directory dfd etcd's own: within the member/ directory of an etcd data directory (a "member"
 * with wal/ or snap/ in it), or one that holds etcd WAL segments (a --wal-dir)? Its real path is the
 * kernel's (/proc/self/fd), so a symlinked parent is seen through. 0, or -1 with "SHOWN: why". */
static int etcd_place(int dfd, const char *shown, char *err, size_t errlen)
{
    char link[64], real[PATH_MAX];
    snprintf(link, sizeof link, "/proc/self/fd/%d", dfd);
    ssize_t n = readlink(link, real, sizeof real - 1);
    if (n <= 0 || real[0] != '/') {
        if (!realpath(shown, real))
            real[0] = '\0';
    } else {
        real[n] = '\0';
    }
    for (char *p = real; *p; p++) {
        if (p[0] != '/' || strncmp(p + 1, ETCDFILES_MEMBER_DIR, 6) || (p[7] != '/' && p[7] != '\0'))
            continue;
        char m[PATH_MAX + 8];
        snprintf(m, sizeof m, "%.*s/" ETCDFILES_WAL_DIR, (int)(p + 7 - real), real);
        int w = is_dir_at(m);
        snprintf(m, sizeof m, "%.*s/" ETCDFILES_SNAP_DIR, (int)(p + 7 - real), real);
        if (w || is_dir_at(m)) {
            snprintf(err, errlen, "%s: inside etcd's data directory (%.*s): etcd-fio writes nothing among etcd's "
                     "files; choose another directory", shown, (int)(p + 7 - real), real);
            return -1;
        }
    }
    int dup_fd = fcntl(dfd, F_DUPFD_CLOEXEC, 0);
    DIR *d = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
    struct dirent *e;
    int wal = 0;
    while (d && (e = readdir(d)) && !wal)
        wal = etcdfiles_wal_segment(e->d_name);
    if (d)
        closedir(d);
    else if (dup_fd >= 0)
        close(dup_fd);
    if (wal) {
        snprintf(err, errlen, "%s: holds etcd WAL segments (%s): etcd-fio writes nothing among etcd's files; choose "
                 "another directory", shown, real[0] ? real : shown);
        return -1;
    }
    return 0;
}

int outfile_etcd_dir(const char *dir, char *err, size_t errlen)
{
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0)
        return 0; /* not a directory we can open: the caller's own checks say why */
    int rc = etcd_place(dfd, dir, err, errlen);
    close(dfd);
    return rc;
}

/* The directory of path, opened; its name in dir, the file name in *base. -1 with a message. */
static int open_parent(const char *path, char *dir, size_t dlen, const char **base, char *err, size_t errlen)
{
    if (split(path, dir, dlen, base) != 0) {
        snprintf(err, errlen, "%s: expected a file name", path);
        return -1;
    }
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0)
        snprintf(err, errlen, "%s: directory %s: %s", path, dir, strerror(errno));
    else if (etcd_place(dfd, dir, err, errlen)) {
        close(dfd);
        return -1;
    }
    return dfd;
}

int outfile_check(const char *path, char *err, size_t errlen)
{
    char dir[PATH_MAX];
    const char *base;
    int dfd = open_parent(path, dir, sizeof dir, &base, err, errlen);
    if (dfd < 0)
        return -1;
    int rc = target_ok(dfd, dir, base, err, errlen);
    if (!rc && faccessat(dfd, ".", W_OK | X_OK, AT_EACCESS) != 0) {
        snprintf(err, errlen, "%s: cannot create files in %s: %s", path, dir, strerror(errno));
        rc = -1;
    }
    close(dfd);
    return rc;
}

int outfile_write_at(int dirfd, const char *shown, const char *name, const void *data, size_t len, char *err,
                 size_t errlen)
{
    if (target_ok(dirfd, shown, name, err, errlen))
        return -1;
    char tmp[NAME_MAX + 1];
    int fd = -1;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    unsigned long seed = (unsigned long)ts.tv_nsec ^ ((unsigned long)getpid() << 16);
    for (int i = 0; i < 100 && fd < 0; i++) {
        seed = seed * 6364136223846793005ul + 1442695040888963407ul;
        snprintf(tmp, sizeof tmp, ".%.200s.%06lx.tmp", name, (seed >> 20) & 0xffffff);
        fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd < 0 && errno != EEXIST)
            break;
    }
    if (fd < 0) {
        snprintf(err, errlen, "%s/%s: cannot create a file beside it: %s", shown, name, strerror(errno));
        return -1;
    }
    const char *p = data;
    size_t left = len;
    int e = 0;
    while (left && !e) {
        ssize_t w = write(fd, p, left);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            e = w < 0 ? errno : EIO;
        else
            p += w, left -= (size_t)w;
    }
    if (!e && (fchmod(fd, 0644) != 0 || fsync(fd) != 0))
        e = errno;
    if (close(fd) != 0 && !e)
        e = errno;
    /* checked again just before: a symlink planted during the run is refused too */
    if (!e && target_ok(dirfd, shown, name, err, errlen)) {
        unlinkat(dirfd, tmp, 0);
        return -1;
    }
    if (!e && renameat(dirfd, tmp, dirfd, name) != 0)
        e = errno;
    if (e) {
        unlinkat(dirfd, tmp, 0);
        snprintf(err, errlen, "%s/%s: %s", shown, name, strerror(e));
        return -1;
    }
    return 0;
}

int outfile_write(const char *path, const void *data, size_t len, char *err, size_t errlen)
{
    char dir[PATH_MAX];
    const char *base;
    int dfd = open_parent(path, dir, sizeof dir, &base, err, errlen);
    if (dfd < 0)
        return -1;
    int rc = outfile_write_at(dfd, dir, base, data, len, err, errlen);
    close(dfd);
    return rc;
}

int outfile_write_with(const char *path, int (*render)(FILE *f, const void *ctx), const void *ctx, char *err,
                   size_t errlen)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    int rc = m ? render(m, ctx) : -1;
    if (m && fclose(m) != 0)
        rc = -1;
    if (rc)
        snprintf(err, errlen, "%s: out of memory", path);
    else
        rc = outfile_write(path, buf, len, err, errlen);
    free(buf);
    return rc;
}

int outfile_dir_open(const char *path, char *err, size_t errlen)
{
    char parent[PATH_MAX];
    const char *base;
    if (split(path, parent, sizeof parent, &base) == 0) { /* before mkdir: never a directory among etcd's */
        int pfd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        int bad = pfd >= 0 && etcd_place(pfd, path, err, errlen);
        if (pfd >= 0)
            close(pfd);
        if (bad)
            return -1;
    }
    if (mkdir(path, 0700) != 0 && errno != EEXIST) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "%s: %s", path,
                 errno == ELOOP || errno == ENOTDIR ? "not a directory (or a symbolic link); refusing it"
                                                    : strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || st.st_uid != geteuid() || (st.st_mode & (S_IWGRP | S_IWOTH))) {
        snprintf(err, errlen, "%s: refusing a directory %s", path,
                 st.st_uid != geteuid() ? "owned by another user" : "writable by group or others");
        close(fd);
        return -1;
    }
    if (faccessat(fd, ".", W_OK | X_OK, AT_EACCESS) != 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        close(fd);
        return -1;
    }
    if (etcd_place(fd, path, err, errlen)) {
        close(fd);
        return -1;
    }
    return fd;
}
