/* SPDX-License-Identifier: GPL-2.0-or-later */
/* etcdwal_medium.c — what the job's directory is on, found once at init (statfs and mountinfo through
 * tools/fsinfo.c, a loop device followed to its backing file through sysfs by tools/fsdev.c: the same code
 * `etcd-fio check` uses, compiled into the engine on its own) and written into fio's output as the job's own
 * line, keyed by job name and pid like fio's job header "NAME: (groupid=…): err= 0: pid=P":
 *     etcdwal: NAME: pid=P: medium disk: ext4 on /dev/vda (253:0) mounted at /
 *     etcdwal: NAME: pid=P: medium not a disk: /dev/loop0 -> backing file /tmp/x.img on tmpfs …
 * On tmpfs and ramfs the job is refused: every sync there returns without reaching a disk. */
#include <stdlib.h>
#include <string.h>

#include "etcdwal_glue.h"
#include "fsinfo.h"

static int medium(struct thread_data *td, const char *dir, fsinfo *fi)
{
    char err[512], why[2048], desc[2048];
    if (fsinfo_lookup(dir, fi, 0, err, sizeof err) != 0) {
        say("etcdwal: %s: pid=%d: medium unknown: %s\n", job_name(td), (int)td->pid, err);
        return 0;
    }
    if (!strcmp(fi->fstype, "tmpfs") || !strcmp(fi->fstype, "ramfs")) {
        log_err("etcdwal: %s: pid=%d: medium not a disk: %s is on %s (memory): no sync there reaches a disk; "
                "give directory= on the disk etcd uses\n", job_name(td), (int)td->pid, fi->path, fi->fstype);
        return -1;
    }
    if (fsinfo_layer_reason(fi, why, sizeof why)) {
        say("etcdwal: %s: pid=%d: medium not a disk: %s is on %s: %s\n", job_name(td), (int)td->pid, fi->path,
            fi->fstype, why);
        return 0;
    }
    fsinfo_describe(fi, desc, sizeof desc);
    say("etcdwal: %s: pid=%d: medium disk: %s\n", job_name(td), (int)td->pid, desc);
    return 0;
}

/* The lookup's 9 KiB lives on the heap, not the job thread's stack, and not in a static: with thread=1
 * fio runs the jobs' inits at once, on threads of one process. */
int etcdwal_medium(struct thread_data *td, const char *dir)
{
    fsinfo *fi = calloc(1, sizeof *fi);
    if (!fi) {
        say("etcdwal: %s: pid=%d: medium unknown: out of memory\n", job_name(td), (int)td->pid);
        return 0;
    }
    int rc = medium(td, dir, fi);
    free(fi);
    return rc;
}
