/* SPDX-License-Identifier: MIT */
/* fsinfo.c — filesystem of a directory, from stat/statvfs and /proc/self/mountinfo (found by mount ID, so
 * btrfs, whose st_dev is an anonymous device, is found too), the write probe, and the judgement of what is
 * probably not the disk meant. The block-device chain under it is fsdev.c's. */
#include "fsinfo.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* mountinfo escapes space, tab, newline and backslash as \ooo */
static void unescape(char *s)
{
    char *w = s;
    for (char *r = s; *r; r++) {
        if (r[0] == '\\' && r[1] >= '0' && r[1] <= '7' && r[2] >= '0' && r[2] <= '7' && r[3] >= '0' && r[3] <= '7') {
            *w++ = (char)((r[1] - '0') * 64 + (r[2] - '0') * 8 + (r[3] - '0'));
            r += 3;
        } else {
            *w++ = *r;
        }
    }
    *w = '\0';
}

int fsinfo_parse_mount(const char *line, fs_mount *m)
{
    memset(m, 0, sizeof *m);
    int pos = 0;
    /* id parent maj:min root mountpoint opts [optional fields...] - fstype source superopts */
    if (sscanf(line, "%d %*d %u:%u %1023s %4095s %511s%n", &m->id, &m->maj, &m->min, m->root, m->mountpoint,
               m->options, &pos) != 6)
        return -1;
    const char *dash = strstr(line + pos, " - ");
    if (!dash)
        return -1;
    int n = sscanf(dash + 3, "%63s %255s %1023s", m->fstype, m->source, m->superopts);
    if (n < 2)
        return -1;
    unescape(m->root);
    unescape(m->mountpoint);
    unescape(m->source);
    return 0;
}

/* The mount ID of the mount path is on (the kernel's own answer: /proc/self/fdinfo of an O_PATH handle,
 * Linux 3.15+), -1 when not known. */
static int mount_id(const char *path)
{
    int fd = open(path, O_PATH | O_CLOEXEC);
    if (fd < 0)
        return -1;
    char p[64], buf[512];
    snprintf(p, sizeof p, "/proc/self/fdinfo/%d", fd);
    FILE *f = fopen(p, "re");
    int id = -1;
    while (f && fgets(buf, sizeof buf, f))
        if (sscanf(buf, "mnt_id: %d", &id) == 1)
            break;
    if (f)
        fclose(f);
    close(fd);
    return id;
}

/* The mount of fi->path: by mount ID; without one, the mount whose maj:min is the device (with several —
 * bind mounts — the longest mount point that is a prefix of the path). */
static void find_mount(fsinfo *fi)
{
    FILE *f = fopen("/proc/self/mountinfo", "re");
    if (!f)
        return;
    char line[8192];
    size_t best = 0;
    int found_id = 0;
    fs_mount *m = malloc(sizeof *m);
    while (m && !found_id && fgets(line, sizeof line, f)) {
        if (fsinfo_parse_mount(line, m) != 0)
            continue;
        size_t score;
        if (fi->mnt_id >= 0 && m->id == fi->mnt_id) {
            found_id = 1;
            score = SIZE_MAX;
        } else if (fi->mnt_id < 0 && m->maj == fi->dev_major && m->min == fi->dev_minor) {
            size_t ml = strlen(m->mountpoint);
            int prefix = !strcmp(m->mountpoint, "/") ||
                         (!strncmp(fi->path, m->mountpoint, ml) && (fi->path[ml] == '/' || fi->path[ml] == '\0'));
            score = prefix ? ml + 1 : 0;
            if (score < best && fi->fstype[0])
                continue;
        } else {
            continue;
        }
        best = score;
        snprintf(fi->mountpoint, sizeof fi->mountpoint, "%s", m->mountpoint);
        snprintf(fi->fstype, sizeof fi->fstype, "%s", m->fstype);
        snprintf(fi->source, sizeof fi->source, "%s", m->source);
        snprintf(fi->options, sizeof fi->options, "%s", m->options);
        snprintf(fi->superopts, sizeof fi->superopts, "%s", m->superopts);
    }
    free(m);
    fclose(f);
    if (!found_id && fi->mnt_id >= 0 && !fi->fstype[0]) { /* an ID mountinfo does not list: by device */
        fi->mnt_id = -1;
        find_mount(fi);
    }
}

int fsinfo_lookup(const char *path, fsinfo *fi, int depth, char *err, size_t errlen)
{
    memset(fi, 0, sizeof *fi);
    fi->mnt_id = -1;
    char *abs = realpath(path, NULL);
    if (!abs) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    snprintf(fi->path, sizeof fi->path, "%s", abs);
    free(abs);
    struct stat st;
    if (stat(fi->path, &st) != 0) {
        snprintf(err, errlen, "%s: %s", fi->path, strerror(errno));
        return -1;
    }
    fi->dev_major = major(st.st_dev);
    fi->dev_minor = minor(st.st_dev);
    struct statvfs vs;
    if (statvfs(fi->path, &vs) == 0) {
        fi->free_bytes = (uint64_t)vs.f_bavail * vs.f_frsize;
        fi->total_bytes = (uint64_t)vs.f_blocks * vs.f_frsize;
        fi->free_inodes = vs.f_favail;
        fi->total_inodes = vs.f_files;
        fi->readonly = (vs.f_flag & ST_RDONLY) != 0;
    }
    fi->mnt_id = mount_id(fi->path);
    find_mount(fi);
    if (!fi->fstype[0])
        snprintf(fi->fstype, sizeof fi->fstype, "unknown");
    if (!fi->source[0])
        snprintf(fi->source, sizeof fi->source, "unknown");
    /* the block device: the mount source when it is one (btrfs, and a loop device's filesystem), else the
     * device number itself when it is not an anonymous one (major 0: tmpfs, overlay, FUSE, NFS, btrfs) */
    struct stat bs;
    if (fi->source[0] == '/' && stat(fi->source, &bs) == 0 && S_ISBLK(bs.st_mode)) {
        fi->bdev_major = major(bs.st_rdev);
        fi->bdev_minor = minor(bs.st_rdev);
    } else if (fi->dev_major) {
        fi->bdev_major = fi->dev_major;
        fi->bdev_minor = fi->dev_minor;
    }
    if (fi->bdev_major && depth < FSINFO_MAX_DEPTH)
        fsdev_follow(NULL, fi->bdev_major, fi->bdev_minor, depth, fi);
    return 0;
}

static int probe_once(const char *dir)
{
    static const char abc[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    char d[4200], lock[4300], probe[4300];
    unsigned char r[6];
    int e = 0;
    for (int tries = 0; tries < 100; tries++) {
        if (getentropy(r, sizeof r) != 0)
            return errno;
        char x[7];
        for (int i = 0; i < 6; i++)
            x[i] = abc[r[i] % (sizeof abc - 1)];
        x[6] = '\0';
        snprintf(d, sizeof d, "%s/etcd-fio.%ld.probe.tmp-%s", dir, (long)getpid(), x);
        if (mkdir(d, S_ISVTX | 0700) == 0)
            break;
        if ((e = errno) != EEXIST)
            return e;
    }
    if (e == EEXIST)
        return e;
    int dfd = open(d, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (dfd < 0) {
        e = errno;
        rmdir(d);
        return e;
    }
    struct stat st; /* in a directory others may write to, the name could have been swapped meanwhile */
    if (fstat(dfd, &st) != 0 || st.st_uid != geteuid() || (st.st_mode & 077)) {
        close(dfd);
        return EPERM;
    }
    snprintf(lock, sizeof lock, "lock");
    snprintf(probe, sizeof probe, ".etcd-fio-probe.%ld", (long)getpid());
    int lfd = openat(dfd, lock, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (lfd < 0) {
        e = errno;
    } else {
        struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
        if (fcntl(lfd, F_OFD_SETLK, &fl) != 0)
            e = errno;
        int pfd = e ? -1 : openat(dfd, probe, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (!e && pfd < 0)
            e = errno;
        if (pfd >= 0) {
            if (write(pfd, "x", 1) != 1)
                e = errno ? errno : EIO;
            if (close(pfd) != 0 && !e)
                e = errno;
            unlinkat(dfd, probe, 0);
        }
        close(lfd); /* closed before unlinked (NFS, FUSE: no silly rename) */
        unlinkat(dfd, lock, 0);
    }
    close(dfd);
    if (rmdir(d) != 0 && !e)
        e = errno;
    return e;
}

int fsinfo_probe(const char *dir)
{
    /* an engine's reaper in the same directory removes an empty, marked staging directory: ours then
     * vanishes before its lock file exists (ENOENT), and we start again, as the engine's creator does */
    int e = ENOENT;
    for (int attempt = 0; attempt < 16 && e == ENOENT; attempt++)
        e = probe_once(dir);
    return e;
}

int fsinfo_get(const char *dir, fsinfo *fi, char *err, size_t errlen)
{
    if (fsinfo_lookup(dir, fi, 0, err, errlen) != 0)
        return -1;
    struct stat st;
    if (stat(fi->path, &st) != 0 || !S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "%s: not a directory", fi->path);
        return -1;
    }
    /* access() says what the permission bits allow; a read-only mount or a full disk only shows on create */
    fi->probe_errno = fsinfo_probe(fi->path);
    fi->writable = fi->probe_errno == 0;
    return 0;
}

void fsinfo_cause(const fsinfo *fi, int err, char *out, size_t n)
{
    if (err == EROFS || (fi->readonly && (err == EACCES || err == EPERM)))
        snprintf(out, n, "read-only filesystem (%s mounted %s)", fi->mountpoint[0] ? fi->mountpoint : fi->path,
                 fi->readonly ? "ro" : "read-only");
    else if (err == ENOSPC && fi->total_inodes && fi->free_inodes < 16)
        snprintf(out, n, "no free inodes (%llu of %llu left: df -i %s)", (unsigned long long)fi->free_inodes,
                 (unsigned long long)fi->total_inodes, fi->path);
    else if (err == ENOSPC)
        snprintf(out, n, "no space left (%llu MiB free)", (unsigned long long)(fi->free_bytes >> 20));
    else if (err == EACCES || err == EPERM)
        snprintf(out, n, "permission denied for uid %ld", (long)geteuid());
    else if (err == EDQUOT)
        snprintf(out, n, "disk quota exceeded");
    else
        snprintf(out, n, "%s", strerror(err));
}

static int in_list(const char *t, const char *const *l)
{
    for (size_t i = 0; l[i]; i++)
        if (!strcmp(t, l[i]))
            return 1;
    return 0;
}

/* memory and container layers */
static const char *const layer_types[] = {"tmpfs", "ramfs", "overlay", "overlayfs", "aufs", "unionfs", "squashfs",
                                          "erofs", "devtmpfs", "proc", "sysfs", "shiftfs", "hugetlbfs", NULL};
static const char *const network_types[] = {"nfs", "nfs4", "cifs", "smb3", "smbfs", "9p", "ceph", "glusterfs",
                                            "virtiofs", "afs", "ocfs2", "gfs2", "lustre", "beegfs", NULL};

/* fuse, fuseblk and every fuse.<subtype> (fuse.fuse-overlayfs, fuse.sshfs, fuse.lxcfs, bindfs's plain fuse) */
static int is_fuse(const char *t)
{
    return !strncmp(t, "fuse", 4) && (!t[4] || t[4] == '.' || !strcmp(t + 4, "blk"));
}

int fsinfo_layer_reason(const fsinfo *fi, char *why, size_t whylen)
{
    if (in_list(fi->fstype, layer_types))
        snprintf(why, whylen, "%s is memory or a container layer, not the disk etcd uses", fi->fstype);
    else if (is_fuse(fi->fstype))
        snprintf(why, whylen, "%s is a FUSE filesystem: its daemon decides what fsync does (fuse-overlayfs -o "
                 "fsync=0 answers every one at once), so the figures need not be the disk's; test the filesystem "
                 "under it", fi->fstype);
    else if (in_list(fi->fstype, network_types))
        snprintf(why, whylen, "%s is a network/shared filesystem, not a local disk", fi->fstype);
    else if (fi->layer_why[0])
        snprintf(why, whylen, "%s", fi->layer_why);
    else
        return 0;
    return 1;
}

int fsinfo_suspicious(const fsinfo *fi, const char *const *etcd_dirs, char *why, size_t whylen)
{
    char desc[2048], reason[2048];
    fsinfo_describe(fi, desc, sizeof desc);
    if (fsinfo_layer_reason(fi, reason, sizeof reason)) {
        snprintf(why, whylen, "%s is on %s: %s", fi->path, desc, reason);
        return 1;
    }
    return fsinfo_other_disk(fi, etcd_dirs, why, whylen);
}

int fsinfo_other_disk(const fsinfo *fi, const char *const *etcd_dirs, char *why, size_t whylen)
{
    static const char *const dflt[] = {"/var/lib/etcd", "/var/lib/rancher/rke2/server/db/etcd", NULL};
    char desc[2048];
    fsinfo_describe(fi, desc, sizeof desc);
    for (const char *const *d = etcd_dirs ? etcd_dirs : dflt; *d; d++) {
        struct stat st;
        if (stat(*d, &st) != 0 || !S_ISDIR(st.st_mode))
            continue;
        fsinfo *e = malloc(sizeof *e);
        char err[64];
        int same = 1;
        /* the same filesystem: one mount, or one block device (btrfs subvolumes differ in st_dev). A loop
         * device over a file on etcd's disk is another device: its queue, limits and caches are its own */
        if (e && fsinfo_lookup(*d, e, 0, err, sizeof err) == 0)
            same = (e->mnt_id >= 0 && e->mnt_id == fi->mnt_id) ||
                   (e->bdev_major && e->bdev_major == fi->bdev_major && e->bdev_minor == fi->bdev_minor) ||
                   (e->dev_major == fi->dev_major && e->dev_minor == fi->dev_minor);
        if (!same)
            snprintf(why, whylen, "%s is on %s, but this node's etcd data directory %s is on device %u:%u (%s on "
                     "%s)", fi->path, desc, *d, e->bdev_major ? e->bdev_major : e->dev_major,
                     e->bdev_major ? e->bdev_minor : e->dev_minor, e->fstype, e->source);
        free(e);
        if (!same)
            return 1;
    }
    return 0;
}

/* 1 if opt is in the comma-separated list */
static int has_opt(const char *list, const char *opt)
{
    size_t l = strlen(opt);
    for (const char *p = list; p && *p;) {
        const char *c = strchr(p, ',');
        size_t n = c ? (size_t)(c - p) : strlen(p);
        if (n == l && !strncmp(p, opt, l))
            return 1;
        p = c ? c + 1 : NULL;
    }
    return 0;
}

int fsinfo_weak_options(const fsinfo *fi, char *out, size_t n)
{
    /* ext3/ext4, xfs (before 4.19), btrfs, f2fs, gfs2, reiserfs: no cache flush or FUA on commit, so the
     * fdatasync returns with the data in the disk's volatile cache; data=writeback: metadata may reach the
     * journal before the data it points at (a WAL segment may hold stale blocks after a power cut) */
    static const char *const weak[] = {"nobarrier", "barrier=0", "barrier=off", "barrier=none", "data=writeback",
                                       "fsync_mode=nobarrier", NULL};
    int k = 0;
    size_t used = 0;
    if (n)
        out[0] = '\0';
    for (size_t i = 0; weak[i]; i++) {
        if (!has_opt(fi->superopts, weak[i]) && !has_opt(fi->options, weak[i]))
            continue;
        int w = snprintf(out + used, n > used ? n - used : 0, "%s%s", k ? "," : "", weak[i]);
        if (w > 0 && used + (size_t)w < n)
            used += (size_t)w;
        k++;
    }
    return k;
}

void fsinfo_describe(const fsinfo *fi, char *buf, size_t len)
{
    /* a long mount point is cut; the message stays one line */
    if (snprintf(buf, len, "%s on %s (%u:%u) mounted at %s%s%s%s", fi->fstype, fi->source,
                 fi->bdev_major ? fi->bdev_major : fi->dev_major, fi->bdev_major ? fi->bdev_minor : fi->dev_minor,
                 fi->mountpoint[0] ? fi->mountpoint : "?", fi->layers[0] ? " [" : "", fi->layers,
                 fi->layers[0] ? "]" : "") < 0 && len)
        buf[0] = '\0';
}
