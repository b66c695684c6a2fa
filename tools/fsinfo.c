/* SPDX-License-Identifier: MIT */
/* fsinfo.c — filesystem/device of a directory, from stat/statvfs and /proc/self/mountinfo. */
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

/* The mount whose major:minor is the directory's device; with several (bind mounts), the longest mount
 * point that is a prefix of the path. */
static void find_mount(fsinfo *fi)
{
    FILE *f = fopen("/proc/self/mountinfo", "r");
    if (!f)
        return;
    char line[8192];
    size_t best = 0;
    while (fgets(line, sizeof line, f)) {
        unsigned maj, min;
        char mnt[4096], fstype[64], source[256];
        int pos = 0;
        /* id parent maj:min root mountpoint opts [optional fields...] - fstype source superopts */
        if (sscanf(line, "%*u %*u %u:%u %*s %4095s %*s%n", &maj, &min, mnt, &pos) != 3)
            continue;
        char *dash = strstr(line + pos, " - ");
        if (!dash || sscanf(dash + 3, "%63s %255s", fstype, source) != 2)
            continue;
        if (maj != fi->dev_major || min != fi->dev_minor)
            continue;
        unescape(mnt);
        size_t ml = strlen(mnt);
        int prefix = !strcmp(mnt, "/") ||
                     (!strncmp(fi->path, mnt, ml) && (fi->path[ml] == '/' || fi->path[ml] == '\0'));
        size_t score = prefix ? ml + 1 : 0;
        if (score >= best || !fi->fstype[0]) {
            best = score;
            snprintf(fi->mountpoint, sizeof fi->mountpoint, "%s", mnt);
            snprintf(fi->fstype, sizeof fi->fstype, "%s", fstype);
            unescape(source);
            snprintf(fi->source, sizeof fi->source, "%s", source);
        }
    }
    fclose(f);
}

int fsinfo_get(const char *dir, fsinfo *fi, char *err, size_t errlen)
{
    memset(fi, 0, sizeof *fi);
    char *abs = realpath(dir, NULL);
    if (!abs) {
        snprintf(err, errlen, "%s: %s", dir, strerror(errno));
        return -1;
    }
    snprintf(fi->path, sizeof fi->path, "%s", abs);
    free(abs);
    struct stat st;
    if (stat(fi->path, &st) != 0) {
        snprintf(err, errlen, "%s: %s", fi->path, strerror(errno));
        return -1;
    }
    if (!S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "%s: not a directory", fi->path);
        return -1;
    }
    fi->dev_major = major(st.st_dev);
    fi->dev_minor = minor(st.st_dev);
    struct statvfs vs;
    if (statvfs(fi->path, &vs) == 0) {
        fi->free_bytes = (uint64_t)vs.f_bavail * vs.f_frsize;
        fi->total_bytes = (uint64_t)vs.f_blocks * vs.f_frsize;
    }
    find_mount(fi);
    if (!fi->fstype[0])
        snprintf(fi->fstype, sizeof fi->fstype, "unknown");
    if (!fi->source[0])
        snprintf(fi->source, sizeof fi->source, "unknown");

    /* access() says what the permission bits allow; a read-only mount or a full disk only shows on create. */
    char probe[4200];
    snprintf(probe, sizeof probe, "%s/.etcd-fio-probe.%ld", fi->path, (long)getpid());
    int fd = open(probe, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd >= 0) {
        fi->writable = 1;
        close(fd);
        unlink(probe);
    }
    return 0;
}

static int is_memory_or_virtual(const char *t)
{
    static const char *const bad[] = {"tmpfs", "ramfs", "overlay", "aufs", "squashfs", "devtmpfs", "proc",
                                      "sysfs", "fuse.lxcfs", NULL};
    for (size_t i = 0; bad[i]; i++)
        if (!strcmp(t, bad[i]))
            return 1;
    return 0;
}

static int is_network(const char *t)
{
    static const char *const net[] = {"nfs", "nfs4", "cifs", "smb3", "9p", "fuse.sshfs", "ceph", "glusterfs",
                                      "virtiofs", NULL};
    for (size_t i = 0; net[i]; i++)
        if (!strcmp(t, net[i]))
            return 1;
    return 0;
}

int fsinfo_suspicious(const fsinfo *fi, const char *const *etcd_dirs, char *why, size_t whylen)
{
    static const char *const dflt[] = {"/var/lib/etcd", "/var/lib/rancher/rke2/server/db/etcd", NULL};
    char desc[512];
    fsinfo_describe(fi, desc, sizeof desc);
    if (is_memory_or_virtual(fi->fstype)) {
        snprintf(why, whylen, "%s is on %s: that measures memory or a container layer, not the disk etcd uses",
                 fi->path, desc);
        return 1;
    }
    if (is_network(fi->fstype)) {
        snprintf(why, whylen, "%s is on %s, a network/shared filesystem, not a local disk", fi->path, desc);
        return 1;
    }
    for (const char *const *d = etcd_dirs ? etcd_dirs : dflt; *d; d++) {
        struct stat st;
        if (stat(*d, &st) != 0 || !S_ISDIR(st.st_mode))
            continue;
        if (major(st.st_dev) != fi->dev_major || minor(st.st_dev) != fi->dev_minor) {
            snprintf(why, whylen, "%s is on %s, but this node's etcd data directory %s is on device %u:%u",
                     fi->path, desc, *d, major(st.st_dev), minor(st.st_dev));
            return 1;
        }
    }
    return 0;
}

void fsinfo_describe(const fsinfo *fi, char *buf, size_t len)
{
    /* a long mount point is cut; the message stays one line */
    if (snprintf(buf, len, "%s on %s (%u:%u) mounted at %s", fi->fstype, fi->source, fi->dev_major,
                 fi->dev_minor, fi->mountpoint[0] ? fi->mountpoint : "?") < 0 && len)
        buf[0] = '\0';
}
