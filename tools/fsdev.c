/* SPDX-License-Identifier: MIT */
/* fsdev.c — the block device under a filesystem, followed down through sysfs: a partition to its disk,
 * device-mapper and md devices to their slaves, a loop device to the file behind it
 * (/sys/block/loopN/loop/backing_file) and that file's own filesystem and device, judged like any
 * directory (fsinfo_suspicious). Memory block devices — zram (compressed RAM), brd (/dev/ramN), null_blk —
 * and userspace or network ones (ublk, nbd, rbd) are named as the reason not to trust the figures. */
#include <ctype.h>
#include <dirent.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fsinfo.h"

/* Appends to a one-line description (cut at n, never overrun). */
static void append(char *buf, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void append(char *buf, size_t n, const char *fmt, ...)
{
    size_t l = strlen(buf);
    if (l + 1 >= n)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + l, n - l, fmt, ap);
    va_end(ap);
}

/* First line of a sysfs file, newline cut; "" when absent. */
static void read_line(const char *path, char *out, size_t n)
{
    out[0] = '\0';
    FILE *f = fopen(path, "re");
    if (!f)
        return;
    if (fgets(out, (int)n, f))
        out[strcspn(out, "\n")] = '\0';
    fclose(f);
}

static int starts_num(const char *name, const char *prefix)
{
    size_t l = strlen(prefix);
    return !strncmp(name, prefix, l) && isdigit((unsigned char)name[l]);
}

/* The reason a device of this (kernel) name is no disk, or NULL. */
static const char *no_disk(const char *name)
{
    if (starts_num(name, "zram"))
        return "a zram device: compressed RAM, not a disk";
    if (starts_num(name, "ram"))
        return "a RAM disk (brd): memory, not a disk";
    if (starts_num(name, "nullb"))
        return "a null_blk device: its writes reach no disk";
    if (starts_num(name, "ublkb"))
        return "a ublk device: a userspace daemon decides what a flush does";
    if (starts_num(name, "nbd") || starts_num(name, "rbd"))
        return "a network block device, not a local disk";
    return NULL;
}

static void follow(const char *sys, const char *devdir, int depth, fsinfo *fi);

/* A loop device's backing file: its filesystem, judged as a directory's would be. */
static void follow_loop(const char *devdir, const char *name, int depth, fsinfo *fi)
{
    char p[PATH_MAX + 64], back[PATH_MAX];
    snprintf(p, sizeof p, "%s/loop/backing_file", devdir);
    read_line(p, back, sizeof back);
    if (!back[0]) {
        append(fi->layers, sizeof fi->layers, "/dev/%s -> backing file unknown", name);
        append(fi->layer_why, sizeof fi->layer_why, "%s is a loop device whose backing file cannot be read", name);
        return;
    }
    size_t bl = strlen(back);
    if (bl > 10 && !strcmp(back + bl - 10, " (deleted)")) {
        append(fi->layers, sizeof fi->layers, "/dev/%s -> deleted backing file %s", name, back);
        append(fi->layer_why, sizeof fi->layer_why, "%s is a loop device whose backing file %s was deleted: its "
               "filesystem cannot be followed", name, back);
        return;
    }
    fsinfo *u = malloc(sizeof *u);
    char err[512];
    if (!u || fsinfo_lookup(back, u, depth + 1, err, sizeof err) != 0) {
        /* set up in another mount namespace (a container), or gone */
        append(fi->layers, sizeof fi->layers, "/dev/%s -> backing file %s (not found here)", name, back);
        append(fi->layer_why, sizeof fi->layer_why, "%s is a loop device whose backing file %s cannot be "
               "followed from here", name, back);
        free(u);
        return;
    }
    char desc[2048], why[2048];
    fsinfo_describe(u, desc, sizeof desc);
    append(fi->layers, sizeof fi->layers, "/dev/%s -> backing file %s on ", name, back);
    append(fi->layers, sizeof fi->layers, "%s", desc);
    if (fsinfo_layer_reason(u, why, sizeof why)) {
        append(fi->layer_why, sizeof fi->layer_why, "the backing file %s of /dev/%s is on %s: %s", back, name,
               u->fstype, why);
    } else if (!fi->write_cache[0]) {
        snprintf(fi->write_cache, sizeof fi->write_cache, "%s", u->write_cache);
    }
    free(u);
}

static void follow(const char *sys, const char *devdir, int depth, fsinfo *fi)
{
    char name[NAME_MAX + 1], p[PATH_MAX + 64];
    const char *slash = strrchr(devdir, '/');
    snprintf(name, sizeof name, "%s", slash ? slash + 1 : devdir);
    const char *bad = no_disk(name);
    if (bad) {
        append(fi->layers, sizeof fi->layers, "%s/dev/%s", fi->layers[0] ? " -> " : "", name);
        append(fi->layer_why, sizeof fi->layer_why, "/dev/%s is %s", name, bad);
        return;
    }
    if (starts_num(name, "loop")) {
        follow_loop(devdir, name, depth, fi);
        return;
    }
    /* device-mapper, md: what they are made of (one symlink per underlying device) */
    snprintf(p, sizeof p, "%s/slaves", devdir);
    int any = 0;
    DIR *d = opendir(p);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        char sub[PATH_MAX + NAME_MAX + 80], real[PATH_MAX];
        if (e->d_name[0] == '.' || depth + 1 >= FSINFO_MAX_DEPTH)
            continue;
        snprintf(sub, sizeof sub, "%s/%s", p, e->d_name);
        if (!realpath(sub, real))
            continue;
        append(fi->layers, sizeof fi->layers, "%s%s", fi->layers[0] ? " -> " : "", name);
        follow(sys, real, depth + 1, fi);
        any = 1;
    }
    if (d)
        closedir(d);
    if (any)
        return;
    /* a disk, at the bottom of the chain: its write cache (the first one's, for a volume over several) */
    if (!fi->write_cache[0]) {
        snprintf(p, sizeof p, "%s/queue/write_cache", devdir);
        read_line(p, fi->write_cache, sizeof fi->write_cache);
    }
}

void fsdev_follow(const char *sys, unsigned maj, unsigned min, int depth, fsinfo *fi)
{
    char link[PATH_MAX], dev[PATH_MAX], p[PATH_MAX + 16];
    sys = sys ? sys : "/sys";
    snprintf(link, sizeof link, "%s/dev/block/%u:%u", sys, maj, min);
    if (!realpath(link, dev))
        return;
    /* a partition: the disk is its parent directory */
    snprintf(p, sizeof p, "%s/partition", dev);
    if (access(p, F_OK) == 0) {
        char *s = strrchr(dev, '/');
        if (s && s != dev)
            *s = '\0';
    }
    follow(sys, dev, depth, fi);
}
