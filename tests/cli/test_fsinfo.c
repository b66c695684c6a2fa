/* SPDX-License-Identifier: MIT */
/* test_fsinfo.c — tools/fsinfo.c, fsdev.c, mempress.c and the environment's explain rules, without root:
 * mountinfo lines (escapes, optional fields, btrfs), every FUSE type refused (also ones nobody listed),
 * weak mount options, the device chain over a fake sysfs tree (zram, brd, a loop whose backing file was
 * deleted or is on tmpfs, device-mapper over a partition), the causes named for a failed write, the write
 * probe beside a planted symlink, the memory counters' parsers and differences, and the unsafe-mount and
 * memory-pressure lines. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "testdir.h"

#include "explain.h"
#include "fsinfo.h"
#include "mempress.h"

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wformat-truncation"
#endif

static void test_mountinfo(void **state)
{
    (void)state;
    fs_mount m;
    assert_int_equal(fsinfo_parse_mount("44 27 7:1 / /var/tmp/a\\040b rw,relatime shared:1 master:2 - ext4 "
                                        "/dev/loop1 rw,nobarrier,data=writeback\n", &m), 0);
    assert_int_equal(m.id, 44);
    assert_int_equal(m.maj, 7);
    assert_string_equal(m.mountpoint, "/var/tmp/a b");
    assert_string_equal(m.options, "rw,relatime");
    assert_string_equal(m.fstype, "ext4");
    assert_string_equal(m.source, "/dev/loop1");
    assert_string_equal(m.superopts, "rw,nobarrier,data=writeback");
    /* btrfs: the mount's 0:NN is not a block device; the source is */
    assert_int_equal(fsinfo_parse_mount("46 27 0:41 /@home /home rw,relatime - btrfs /dev/vdb2 "
                                        "rw,ssd,space_cache=v2,subvolid=257,subvol=/@home", &m), 0);
    assert_string_equal(m.root, "/@home");
    assert_string_equal(m.source, "/dev/vdb2");
    assert_int_equal(fsinfo_parse_mount("garbage", &m), -1);
    assert_int_equal(fsinfo_parse_mount("1 2 3:4 / /x rw no-separator ext4 /dev/x rw", &m), -1);
}

static fsinfo *fi_of(const char *type, const char *opts, const char *super)
{
    static fsinfo fi;
    memset(&fi, 0, sizeof fi);
    snprintf(fi.path, sizeof fi.path, "/data");
    snprintf(fi.fstype, sizeof fi.fstype, "%s", type);
    snprintf(fi.source, sizeof fi.source, "src");
    snprintf(fi.options, sizeof fi.options, "%s", opts);
    snprintf(fi.superopts, sizeof fi.superopts, "%s", super);
    fi.mnt_id = -1;
    return &fi;
}

static void test_layer_types(void **state)
{
    (void)state;
    static const char *const none[] = {NULL};
    char why[4096];
    /* every FUSE type, also ones no list names */
    static const char *const fuse[] = {"fuse", "fuseblk", "fuse.fuse-overlayfs", "fuse.sshfs", "fuse.lxcfs",
                                       "fuse.rclone", "fuse.gocryptfs", "fuse.s3fs", "fuse.bindfs", NULL};
    for (size_t i = 0; fuse[i]; i++) {
        assert_int_equal(fsinfo_suspicious(fi_of(fuse[i], "rw", "rw"), none, why, sizeof why), 1);
        assert_non_null(strstr(why, fuse[i]));
        assert_non_null(strstr(why, "FUSE"));
    }
    static const char *const layer[] = {"tmpfs", "overlay", "aufs", "squashfs", "ramfs", NULL};
    for (size_t i = 0; layer[i]; i++)
        assert_int_equal(fsinfo_suspicious(fi_of(layer[i], "rw", "rw"), none, why, sizeof why), 1);
    assert_int_equal(fsinfo_suspicious(fi_of("nfs4", "rw", "rw"), none, why, sizeof why), 1);
    assert_non_null(strstr(why, "network"));
    /* not FUSE: names that only start alike */
    assert_int_equal(fsinfo_suspicious(fi_of("fusectl", "rw", "rw"), none, why, sizeof why), 0);
    assert_int_equal(fsinfo_suspicious(fi_of("ext4", "rw", "rw"), none, why, sizeof why), 0);
    assert_int_equal(fsinfo_suspicious(fi_of("btrfs", "rw", "rw,ssd"), none, why, sizeof why), 0);
}

static void test_weak_options(void **state)
{
    (void)state;
    char out[256];
    assert_int_equal(fsinfo_weak_options(fi_of("ext4", "rw,relatime", "rw,nobarrier,data=writeback"), out,
                                         sizeof out), 2);
    assert_string_equal(out, "nobarrier,data=writeback");
    assert_int_equal(fsinfo_weak_options(fi_of("ext4", "rw", "rw,barrier=0"), out, sizeof out), 1);
    assert_string_equal(out, "barrier=0");
    assert_int_equal(fsinfo_weak_options(fi_of("f2fs", "rw", "rw,fsync_mode=nobarrier"), out, sizeof out), 1);
    assert_int_equal(fsinfo_weak_options(fi_of("btrfs", "rw", "rw,ssd,nobarrier"), out, sizeof out), 1);
    /* the safe ones, and names that merely contain a weak one */
    assert_int_equal(fsinfo_weak_options(fi_of("ext4", "rw", "rw,barrier=1,data=ordered"), out, sizeof out), 0);
    assert_string_equal(out, "");
    assert_int_equal(fsinfo_weak_options(fi_of("ext4", "rw", "rw,xnobarrier,data=writebackx"), out, sizeof out), 0);
    char tiny[4];
    assert_int_equal(fsinfo_weak_options(fi_of("ext4", "rw", "nobarrier,data=writeback"), tiny, sizeof tiny), 2);
    assert_true(strlen(tiny) < sizeof tiny);
}

static void mkfile(const char *root, const char *rel, const char *text)
{
    char p[4096];
    snprintf(p, sizeof p, "%s/%s", root, rel);
    for (char *s = p + strlen(root) + 1; (s = strchr(s, '/')); s++) {
        *s = '\0';
        mkdir(p, 0755);
        *s = '/';
    }
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void mklink(const char *root, const char *rel, const char *target)
{
    char p[4096];
    snprintf(p, sizeof p, "%s/%s", root, rel);
    assert_int_equal(symlink(target, p), 0);
}

/* A fake sysfs: /dev/block links to devices, as the kernel lays them out. */
static void test_device_chain(void **state)
{
    (void)state;
    char *sys = testdir_make("test_fsinfo_sys");
    assert_non_null(sys);
    char img[4200];
    snprintf(img, sizeof img, "%s/img", sys);
    mkfile(sys, "img", "x");
    mkfile(sys, "devices/virtual/block/zram0/dev", "253:0\n");
    mkfile(sys, "devices/virtual/block/ram0/dev", "1:0\n");
    mkfile(sys, "devices/virtual/block/loop3/dev", "7:3\n");
    mkfile(sys, "devices/virtual/block/loop3/loop/backing_file", "/var/lib/gone.img (deleted)\n");
    mkfile(sys, "devices/virtual/block/loop4/dev", "7:4\n");
    mkfile(sys, "devices/virtual/block/loop4/loop/backing_file", "/nonexistent/dir/x.img\n");
    mkfile(sys, "devices/pci/vda/dev", "254:0\n");
    mkfile(sys, "devices/pci/vda/queue/write_cache", "write back\n");
    mkfile(sys, "devices/pci/vda/vda2/dev", "254:2\n");
    mkfile(sys, "devices/pci/vda/vda2/partition", "2\n");
    mkfile(sys, "devices/virtual/block/dm-0/dev", "252:0\n");
    mkfile(sys, "devices/virtual/block/dm-0/queue/write_cache", "write through\n");
    mkdir(strcat(strcpy(img, sys), "/devices/virtual/block/dm-0/slaves"), 0755);
    mkdir(strcat(strcpy(img, sys), "/dev"), 0755);
    mkdir(strcat(strcpy(img, sys), "/dev/block"), 0755);
    mklink(sys, "dev/block/253:0", "../../devices/virtual/block/zram0");
    mklink(sys, "dev/block/1:0", "../../devices/virtual/block/ram0");
    mklink(sys, "dev/block/7:3", "../../devices/virtual/block/loop3");
    mklink(sys, "dev/block/7:4", "../../devices/virtual/block/loop4");
    mklink(sys, "dev/block/254:2", "../../devices/pci/vda/vda2");
    mklink(sys, "dev/block/252:0", "../../devices/virtual/block/dm-0");
    mklink(sys, "devices/virtual/block/dm-0/slaves/vda2", "../../../../pci/vda/vda2");

    fsinfo *fi = fi_of("ext4", "rw", "rw");
    fsdev_follow(sys, 253, 0, 0, fi);
    assert_non_null(strstr(fi->layer_why, "zram"));
    fi = fi_of("ext4", "rw", "rw");
    fsdev_follow(sys, 1, 0, 0, fi);
    assert_non_null(strstr(fi->layer_why, "RAM disk"));
    fi = fi_of("ext4", "rw", "rw");
    fsdev_follow(sys, 7, 3, 0, fi);
    assert_non_null(strstr(fi->layer_why, "deleted"));
    fi = fi_of("ext4", "rw", "rw");
    fsdev_follow(sys, 7, 4, 0, fi); /* a backing file not visible here (another mount namespace) */
    assert_non_null(strstr(fi->layer_why, "cannot be followed"));
    char why[4096];
    static const char *const none[] = {NULL};
    assert_int_equal(fsinfo_suspicious(fi, none, why, sizeof why), 1);
    /* a partition: the disk's write cache */
    fi = fi_of("ext4", "rw", "rw");
    fsdev_follow(sys, 254, 2, 0, fi);
    assert_string_equal(fi->layer_why, "");
    assert_string_equal(fi->write_cache, "write back");
    /* device-mapper over that partition: followed to it */
    fi = fi_of("xfs", "rw", "rw");
    fsdev_follow(sys, 252, 0, 0, fi);
    assert_string_equal(fi->layer_why, "");
    assert_non_null(strstr(fi->layers, "dm-0"));
    /* no such device: nothing said */
    fi = fi_of("ext4", "rw", "rw");
    fsdev_follow(sys, 9, 9, 0, fi);
    assert_string_equal(fi->layers, "");
    assert_string_equal(fi->layer_why, "");
    testdir_remove(sys);
    free(sys);
}

static void test_causes(void **state)
{
    (void)state;
    char out[512];
    fsinfo *fi = fi_of("ext4", "ro", "ro");
    fi->readonly = 1;
    fsinfo_cause(fi, EROFS, out, sizeof out);
    assert_non_null(strstr(out, "read-only"));
    fi = fi_of("ext4", "rw", "rw");
    fi->total_inodes = 304;
    fi->free_inodes = 0;
    fsinfo_cause(fi, ENOSPC, out, sizeof out);
    assert_non_null(strstr(out, "no free inodes (0 of 304"));
    fi->free_inodes = 5000;
    fsinfo_cause(fi, ENOSPC, out, sizeof out);
    assert_non_null(strstr(out, "no space left"));
    fsinfo_cause(fi, EACCES, out, sizeof out);
    assert_non_null(strstr(out, "permission denied"));
    fsinfo_cause(fi, EDQUOT, out, sizeof out);
    assert_non_null(strstr(out, "quota"));
}

/* The probe is made in a private directory of its own: a symlink planted where the old probe file went
 * (DIR/.etcd-fio-probe.<pid>) is not followed or touched, and nothing of ours stays. */
static void test_probe(void **state)
{
    (void)state;
    char *d = testdir_make("test_fsinfo_probe");
    assert_non_null(d);
    char victim[4200], planted[4200];
    snprintf(victim, sizeof victim, "%s/victim", d);
    mkfile(d, "victim", "precious");
    snprintf(planted, sizeof planted, "%s/.etcd-fio-probe.%ld", d, (long)getpid());
    assert_int_equal(symlink(victim, planted), 0);
    assert_int_equal(fsinfo_probe(d), 0);
    struct stat st;
    assert_int_equal(stat(victim, &st), 0);
    assert_int_equal(st.st_size, 8);
    assert_int_equal(lstat(planted, &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    DIR *dd = opendir(d);
    struct dirent *e;
    int n = 0;
    while ((e = readdir(dd)))
        n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    closedir(dd);
    assert_int_equal(n, 2); /* victim and the planted link: the probe's directory is gone */
    char err[512];
    fsinfo fi;
    assert_int_equal(fsinfo_get(d, &fi, err, sizeof err), 0);
    assert_int_equal(fi.writable, 1);
    assert_int_equal(fsinfo_get(victim, &fi, err, sizeof err), -1); /* not a directory */
    testdir_remove(d);
    free(d);
}

static void test_mempress(void **state)
{
    (void)state;
    uint64_t some = 0, full = 0, v = 0;
    assert_int_equal(mempress_parse_psi("some avg10=0.00 avg60=0.00 avg300=0.00 total=1500\n"
                                  "full avg10=0.00 avg60=0.00 avg300=0.00 total=700\n", &some, &full), 0);
    assert_int_equal(some, 1500);
    assert_int_equal(full, 700);
    assert_int_equal(mempress_parse_psi("nothing here\n", &some, &full), -1);
    assert_int_equal(mempress_parse_kv("low 0\nhigh 3\nmax 12\noom 1\noom_kill 1\n", "max", &v), 0);
    assert_int_equal(v, 12);
    assert_int_equal(mempress_parse_kv("oom_kill_disable 0\nunder_oom 0\noom_kill 4\n", "oom_kill", &v), 0);
    assert_int_equal(v, 4);
    assert_int_equal(mempress_parse_kv("maxx 1\n", "max", &v), -1);

    mempress_snap a, b;
    mempress_result r;
    memset(&a, 0, sizeof a);
    a.cgroup_v = 1;
    a.max = 100;
    a.limit = 30u << 20;
    a.have_psi = 1;
    a.psi_some_us = 1000;
    a.psi_full_us = 0;
    b = a;
    b.max = 1635; /* failcnt: the limit was hit during the run */
    b.psi_some_us = 1000 + 100000;
    mempress_diff(&a, &b, 10.0, &r);
    assert_true(r.known && r.pressure);
    assert_int_equal(r.limit_events, 1535);
    assert_true(r.psi_some_pct > 0.99 && r.psi_some_pct < 1.01);
    assert_non_null(strstr(r.text, "UNDER PRESSURE"));
    assert_non_null(strstr(r.text, "1535"));
    assert_non_null(strstr(r.what, "limit 30 MiB"));
    /* no limit events, a stall share below the threshold: no pressure */
    b = a;
    b.psi_some_us = a.psi_some_us + 10000; /* 0.1 % of 10 s */
    mempress_diff(&a, &b, 10.0, &r);
    assert_false(r.pressure);
    /* PSI alone above the threshold (v2, no events) is pressure */
    a.cgroup_v = b.cgroup_v = 2;
    b.psi_some_us = a.psi_some_us + 600000; /* 6 % */
    mempress_diff(&a, &b, 10.0, &r);
    assert_true(r.pressure);
    /* nothing readable: not known, no pressure */
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    mempress_diff(&a, &b, 10.0, &r);
    assert_false(r.known);
    assert_false(r.pressure);
    /* the real machine's counters read without error (whatever they are) */
    mempress_read(&a);
    mempress_read(&b);
    mempress_diff(&a, &b, 1.0, &r);
    assert_true(strlen(r.text) > 0);
}

static void test_explain_env(void **state)
{
    (void)state;
    explain_line l[4];
    explain_env e = {"ext4 on /dev/loop1", "nobarrier,data=writeback", "write back", 0, NULL};
    assert_int_equal(explain_env_lines(&e, l, 4), 1);
    assert_string_equal(l[0].rule, "unsafe-mount");
    assert_non_null(strstr(l[0].why, "nobarrier,data=writeback"));
    assert_non_null(strstr(l[0].advice, "barriers"));
    e.write_cache = "write through";
    assert_int_equal(explain_env_lines(&e, l, 4), 1);
    assert_non_null(strstr(l[0].why, "write-through"));
    explain_env m = {"ext4 on /dev/vda", "", "", 1, "memory cgroup v1 (limit 30 MiB): limit hit 30 times"};
    assert_int_equal(explain_env_lines(&m, l, 4), 1);
    assert_string_equal(l[0].rule, "memory-pressure");
    assert_non_null(strstr(l[0].why, "limit hit 30 times"));
    explain_env none = {"ext4 on /dev/vda", NULL, NULL, 0, NULL};
    assert_int_equal(explain_env_lines(&none, l, 4), 0);
    assert_int_equal(explain_env_lines(&e, l, 0), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mountinfo),   cmocka_unit_test(test_layer_types), cmocka_unit_test(test_weak_options),
        cmocka_unit_test(test_device_chain), cmocka_unit_test(test_causes),     cmocka_unit_test(test_probe),
        cmocka_unit_test(test_mempress),    cmocka_unit_test(test_explain_env),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
