/* SPDX-License-Identifier: MIT */
/* fsinfo.h — what filesystem and device a directory is on, how much room it has, whether we can write
 * there, and whether it is probably not the disk the operator meant to test: a memory or container layer
 * (tmpfs, overlay, every FUSE filesystem), a network filesystem, a block device that is memory (zram, brd,
 * null_blk) or a loop device whose backing file is on such a layer (followed down through partitions,
 * device-mapper and md), or a different device than the etcd data directory of this node. Also the mount
 * options that make fdatasync return before the data is durable (nobarrier, data=writeback, …). */
#ifndef ETCD_FIO_FSINFO_H
#define ETCD_FIO_FSINFO_H

#include <stddef.h>
#include <stdint.h>

typedef struct fsinfo {
    char     path[4096];       /* the directory, absolute */
    char     fstype[64];       /* from /proc/self/mountinfo, e.g. "ext4" */
    char     source[256];      /* mount source, e.g. "/dev/vda1" */
    char     mountpoint[4096];
    char     options[512];     /* the mount's own options (mountinfo field 6), e.g. "rw,relatime" */
    char     superopts[1024];  /* the filesystem's options (mountinfo's last field), e.g. "rw,nobarrier" */
    unsigned dev_major, dev_minor;   /* stat's st_dev of the directory (btrfs: an anonymous device) */
    unsigned bdev_major, bdev_minor; /* the block device the filesystem is on; 0:0 when none */
    int      mnt_id;           /* mountinfo's mount ID, -1 when not known */
    uint64_t free_bytes;       /* available to unprivileged users */
    uint64_t total_bytes;
    uint64_t free_inodes, total_inodes; /* available to unprivileged users; total 0: not reported */
    int      readonly;         /* mounted read-only (statvfs ST_RDONLY) */
    int      writable;         /* the probe could create a directory and files and remove them */
    int      probe_errno;      /* why it could not (0 when writable or not probed) */
    char     layers[1024];     /* the device chain when there is one, e.g. "/dev/loop0 -> backing file
                                * /var/tmp/x.img on ext4 on /dev/vda"; "" for a plain disk */
    char     layer_why[1024];  /* a reason in that chain not to trust the figures ("" when none) */
    char     write_cache[32];  /* the disk's queue/write_cache: "write back", "write through" or "" */
} fsinfo;

/* One line of /proc/self/mountinfo. */
typedef struct fs_mount {
    int      id;
    unsigned maj, min;
    char     root[1024], mountpoint[4096], options[512], fstype[64], source[256], superopts[1024];
} fs_mount;
/* Parses a mountinfo line (octal escapes undone); 0, or -1 when it is not one. */
int fsinfo_parse_mount(const char *line, fs_mount *m);

/* Fills *fi for dir, including the write probe (fsinfo_probe). Returns 0, or -1 with a one-line message
 * in err (dir missing, not a directory...). */
int fsinfo_get(const char *dir, fsinfo *fi, char *err, size_t errlen);
/* The same for any path (a loop device's backing file: its filesystem and device chain), no probe. depth
 * counts the devices already followed (at most FSINFO_MAX_DEPTH). */
#define FSINFO_MAX_DEPTH 4
int fsinfo_lookup(const char *path, fsinfo *fi, int depth, char *err, size_t errlen);

/* Whether files can be made in dir, tried as the engine makes them: a staging directory
 * "etcd-fio.<pid>.probe.tmp-XXXXXX" (mode 01700, the engine's creation mark), its "lock" file locked, the
 * probe file ".etcd-fio-probe.<pid>" with one byte in it, then all removed. A check killed meanwhile leaves
 * a directory the next engine run reaps (engine/privdir.h). 0, or the errno of the step that failed. */
int fsinfo_probe(const char *dir);

/* Why files cannot be made there, named: "read-only filesystem", "no free inodes (0 of 128 left: df -i)",
 * "no space left", "permission denied for uid N", "disk quota exceeded", or strerror. */
void fsinfo_cause(const fsinfo *fi, int err, char *out, size_t n);

/* "Probably not what you meant": returns 1 and a one-line explanation in why when fi is on a memory,
 * container-layer, FUSE or network filesystem, on a memory block device or a loop device over one of
 * those, or on a different filesystem than an existing etcd data directory among etcd_dirs
 * (NULL-terminated; NULL uses /var/lib/etcd and /var/lib/rancher/rke2/server/db/etcd). 0 when it looks
 * fine. */
int fsinfo_suspicious(const fsinfo *fi, const char *const *etcd_dirs, char *why, size_t whylen);

/* Only the last test of fsinfo_suspicious: another filesystem than this node's etcd data directory. */
int fsinfo_other_disk(const fsinfo *fi, const char *const *etcd_dirs, char *why, size_t whylen);

/* The reason alone (no path, no etcd data directory comparison), e.g. "tmpfs is memory or a container
 * layer, not the disk etcd uses"; 1 if there is one. */
int fsinfo_layer_reason(const fsinfo *fi, char *why, size_t whylen);

/* The mount options of fi that weaken fdatasync (nobarrier, barrier=0, data=writeback, f2fs's
 * fsync_mode=nobarrier, …), comma-separated into out ("" when none). Returns how many. */
int fsinfo_weak_options(const fsinfo *fi, char *out, size_t n);

/* "ext4 on /dev/vda1 (253:0) mounted at /", plus " [the layers]" when there are any */
void fsinfo_describe(const fsinfo *fi, char *buf, size_t len);

/* fsdev.c: the block device maj:min followed down from sysfs root `sys` (NULL: "/sys"): fills fi->layers,
 * fi->layer_why and fi->write_cache. */
void fsdev_follow(const char *sys, unsigned maj, unsigned min, int depth, fsinfo *fi);

#endif
