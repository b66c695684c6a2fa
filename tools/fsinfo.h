/* SPDX-License-Identifier: MIT */
/* fsinfo.h — what filesystem and device a directory is on, how much room it has, whether we can write
 * there, and whether it is probably not the disk the operator meant to test (tmpfs, overlay, network
 * filesystems, or a different device than the etcd data directory of this node). */
#ifndef ETCD_FIO_FSINFO_H
#define ETCD_FIO_FSINFO_H

#include <stddef.h>
#include <stdint.h>

typedef struct fsinfo {
    char     path[4096];       /* the directory, absolute */
    char     fstype[64];       /* from /proc/self/mountinfo, e.g. "ext4" */
    char     source[256];      /* mount source, e.g. "/dev/vda1" */
    char     mountpoint[4096];
    unsigned dev_major, dev_minor;
    uint64_t free_bytes;       /* available to unprivileged users */
    uint64_t total_bytes;
    int      writable;         /* a file could be created and removed */
} fsinfo;

/* Fills *fi for dir. Returns 0, or -1 with a one-line message in err (dir missing, not a directory...). */
int fsinfo_get(const char *dir, fsinfo *fi, char *err, size_t errlen);

/* "Probably not what you meant": returns 1 and a one-line explanation in why when fi is on a memory, overlay
 * or network filesystem, or on a different device than an existing etcd data directory among etcd_dirs
 * (NULL-terminated; NULL uses /var/lib/etcd and /var/lib/rancher/rke2/server/db/etcd). 0 when it looks fine. */
int fsinfo_suspicious(const fsinfo *fi, const char *const *etcd_dirs, char *why, size_t whylen);

/* "ext4 on /dev/vda1 (253:0) mounted at /" */
void fsinfo_describe(const fsinfo *fi, char *buf, size_t len);

#endif
