/* privdir.c — private directory life cycle (see privdir.h). Removal only ever unlinks names the engine
 * itself creates, inside a directory whose name matches our exact pattern, opened without following
 * symlinks. */
#include "privdir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "waldec.h"

#define PD_PREFIX "etcd-fio."
#define PD_KEPT "etcd-fio-kept."
#define PD_JOB_MAX 64

static void sanitize(char *out, size_t cap, const char *job)
{
    size_t n = 0;
    for (const char *p = job ? job : ""; *p && n + 1 < cap && n < PD_JOB_MAX; p++) {
        char c = *p;
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                 c == '-';
        out[n++] = ok ? c : '_';
    }
    out[n] = 0;
    if (!n)
        snprintf(out, cap, "job");
}

int privdir_create(privdir *pd, const char *parent, const char *job, pid_t pid, char *err, size_t errlen)
{
    char j[PD_JOB_MAX + 1];
    memset(pd, 0, sizeof *pd);
    pd->fd = -1;
    snprintf(pd->parent, sizeof pd->parent, "%s", parent && *parent ? parent : ".");
    sanitize(j, sizeof j, job);
    for (unsigned n = 0; n < 10000; n++) {
        snprintf(pd->name, sizeof pd->name, PD_PREFIX "%ld.%s.%u", (long)pid, j, n);
        snprintf(pd->path, sizeof pd->path, "%s/%s", pd->parent, pd->name);
        if (mkdir(pd->path, 0700) == 0) {
            pd->fd = open(pd->path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (pd->fd < 0) {
                int e = errno;
                snprintf(err, errlen, "open(%s): %s", pd->path, strerror(e));
                rmdir(pd->path);
                return -e;
            }
            return 0;
        }
        if (errno != EEXIST) {
            int e = errno;
            snprintf(err, errlen, "mkdir(%s): %s", pd->path, strerror(e));
            return -e;
        }
    }
    snprintf(err, errlen, "mkdir(%s): no free name", pd->path);
    return -EEXIST;
}

int privdir_own_file(const char *name)
{
    uint64_t a, b;
    if (waldec_parse_name(name, &a, &b) == 0)
        return 1;
    if (!strcmp(name, "0.tmp") || !strcmp(name, "1.tmp") || !strcmp(name, "db"))
        return 1;
    return 0;
}

/* Unlinks our files inside dfd (which it closes); 0 if the directory is now empty of them. */
static int empty_dir(int dfd)
{
    DIR *d = fdopendir(dfd);
    if (!d) {
        close(dfd);
        return -1;
    }
    int rc = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        if (!privdir_own_file(e->d_name) || unlinkat(dirfd(d), e->d_name, 0) != 0)
            rc = -1;
    }
    closedir(d);
    return rc;
}

int privdir_remove(privdir *pd)
{
    if (pd->fd < 0)
        return 0;
    int fd = pd->fd;
    pd->fd = -1;
    empty_dir(fd);
    if (rmdir(pd->path) != 0)
        return -errno;
    return 0;
}

int privdir_keep(privdir *pd)
{
    if (pd->fd >= 0)
        close(pd->fd);
    pd->fd = -1;
    char name[sizeof pd->name], path[sizeof pd->path];
    snprintf(name, sizeof name, PD_KEPT "%s", pd->name + strlen(PD_PREFIX));
    snprintf(path, sizeof path, "%s/%s", pd->parent, name);
    if (rename(pd->path, path) != 0)
        return -errno;
    memcpy(pd->name, name, sizeof name);
    memcpy(pd->path, path, sizeof path);
    return 0;
}

int privdir_match(const char *name, pid_t *pid)
{
    size_t pl = strlen(PD_PREFIX);
    if (strncmp(name, PD_PREFIX, pl))
        return 0;
    const char *p = name + pl;
    long v = 0;
    const char *s = p;
    while (*p >= '0' && *p <= '9' && p - s < 10)
        v = v * 10 + (*p++ - '0');
    if (p == s || *p != '.' || v <= 0)
        return 0;
    const char *job = ++p;
    while ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_' ||
           *p == '-')
        p++;
    /* the job part may itself hold dots-free text only; the last ".<n>" is the counter */
    if (p == job || p - job > PD_JOB_MAX || *p != '.')
        return 0;
    const char *n = ++p;
    while (*p >= '0' && *p <= '9')
        p++;
    if (p == n || *p || p - n > 5)
        return 0;
    *pid = (pid_t)v;
    return 1;
}

/* A pid is gone if kill() says so, or if it is only a zombie waiting for a parent that may never reap
 * it (its files are closed either way). */
static int pid_gone(pid_t pid)
{
    if (kill(pid, 0) != 0)
        return errno == ESRCH;
    char path[64], buf[256];
    snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return 0;
    buf[n] = 0;
    const char *rp = strrchr(buf, ')'); /* "pid (comm) S ...": comm may hold spaces or parens */
    return rp && (rp[1] == ' ') && (rp[2] == 'Z' || rp[2] == 'X');
}

int privdir_reap_stale(const char *parent)
{
    int pfd = open(parent && *parent ? parent : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (pfd < 0)
        return 0;
    DIR *d = fdopendir(pfd);
    if (!d) {
        close(pfd);
        return 0;
    }
    int reaped = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        pid_t pid;
        if (!privdir_match(e->d_name, &pid))
            continue;
        if (!pid_gone(pid))
            continue; /* alive (or not ours to judge) */
        struct stat st;
        if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISDIR(st.st_mode) ||
            st.st_uid != geteuid())
            continue;
        int dfd = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (dfd < 0)
            continue;
        empty_dir(dfd);
        if (unlinkat(dirfd(d), e->d_name, AT_REMOVEDIR) == 0)
            reaped++;
    }
    closedir(d);
    return reaped;
}
