/* SPDX-License-Identifier: GPL-2.0-or-later */
/* privdir_legacy.c — the reaper's proof that a private directory without a lock file, made by an engine from
 * before the locks, is ours and dead (privdir.h: privdir_legacy_dead). */
#include "privdir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* The proof that a named directory without a lock file, left by an engine from before the locks (which
 * named it etcd-fio.<pid>.<job>.<n> and judged liveness by that pid alone), is ours and dead:
 *   ours  every name in it is one the engine makes (privdir_own_file), each a regular file of our uid with
 *         no other name (never a hard link to someone's file), nothing else;
 *   dead  the pid of its name is gone here (or a zombie); no process visible here has a file of it open or
 *         it as its working directory (/proc/PID/fd, cwd); and neither it nor a file in it changed for
 *         PRIVDIR_LEGACY_QUIET_S (a live engine writes on every Save, also one in a pid namespace we cannot
 *         see into).
 * Anything unsure keeps it. */
#define PRIVDIR_LEGACY_QUIET_S 600

static int pid_gone(pid_t pid)
{
    if (kill(pid, 0) != 0)
        return errno == ESRCH;
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    const char *rp = strrchr(buf, ')'); /* "pid (comm) S ...": comm may hold spaces or parens */
    return rp && rp[1] == ' ' && rp[2] == 'Z';
}

/* 1 if some process visible here has a file under dir (a real path) open, or works in it; 1 also when
 * /proc cannot be read (unsure: alive). */
static int someone_inside(const char *dir)
{
    DIR *pd = opendir("/proc");
    if (!pd)
        return 1;
    size_t dl = strlen(dir);
    int found = 0;
    struct dirent *e;
    while (!found && (e = readdir(pd))) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        char p[300], l[4096];
        snprintf(p, sizeof p, "/proc/%s/cwd", e->d_name);
        ssize_t n = readlink(p, l, sizeof l - 1);
        if (n > 0 && (size_t)n >= dl && !strncmp(l, dir, dl) && ((size_t)n == dl || l[dl] == '/'))
            found = 1;
        snprintf(p, sizeof p, "/proc/%s/fd", e->d_name);
        DIR *fdd = found ? NULL : opendir(p);
        struct dirent *f;
        while (fdd && !found && (f = readdir(fdd))) {
            char fp[600];
            snprintf(fp, sizeof fp, "%s/%s", p, f->d_name);
            n = readlink(fp, l, sizeof l - 1);
            found = n > 0 && (size_t)n > dl && !strncmp(l, dir, dl) && l[dl] == '/';
        }
        if (fdd)
            closedir(fdd);
    }
    closedir(pd);
    return found;
}

int privdir_legacy_dead(const char *name, int dfd, const struct stat *dst)
{
    pid_t pid;
    if (!privdir_match(name, &pid) || !pid_gone(pid))
        return 0;
    time_t now = time(NULL), newest = dst->st_mtime; /* every write and every new name moves a mtime */
    int dup_fd = fcntl(dfd, F_DUPFD_CLOEXEC, 0);
    DIR *d = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
    if (!d) {
        if (dup_fd >= 0)
            close(dup_fd);
        return 0;
    }
    int ok = 1, files = 0;
    struct dirent *e;
    while (ok && (e = readdir(d))) {
        struct stat st;
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        files++;
        ok = privdir_own_file(e->d_name) && fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
             S_ISREG(st.st_mode) && st.st_uid == geteuid() && st.st_nlink == 1;
        if (ok && st.st_mtime > newest)
            newest = st.st_mtime;
    }
    closedir(d);
    if (!ok || !files || now - newest < PRIVDIR_LEGACY_QUIET_S) /* an empty one needs the mark (reap_one) */
        return 0;
    char fdp[64], real[4096];
    snprintf(fdp, sizeof fdp, "/proc/self/fd/%d", dfd);
    ssize_t n = readlink(fdp, real, sizeof real - 1);
    if (n <= 0 || real[0] != '/')
        return 0;
    real[n] = '\0';
    return !someone_inside(real);
}
