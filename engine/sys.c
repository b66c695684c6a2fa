/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sys.c — raw durability system calls and the interposer report (see sys.h). */
#include "sys.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The kernel's return is what syscall() hands back: -1 with errno, as libc's wrappers do. The 64-bit ABIs
 * pass off_t in one register; elsewhere the libc wrapper is used (it splits the argument correctly). */
int sys_fdatasync(int fd)
{
    return (int)syscall(SYS_fdatasync, fd);
}

int sys_fsync(int fd)
{
    return (int)syscall(SYS_fsync, fd);
}

int sys_fallocate(int fd, int mode, off_t offset, off_t len)
{
#if defined(SYS_fallocate) && defined(__LP64__)
    return (int)syscall(SYS_fallocate, fd, mode, (long)offset, (long)len);
#else
    return fallocate(fd, mode, offset, len);
#endif
}

int sys_ftruncate(int fd, off_t length)
{
#if defined(SYS_ftruncate) && defined(__LP64__)
    return (int)syscall(SYS_ftruncate, fd, (long)length);
#else
    return ftruncate(fd, length);
#endif
}

int sys_renameat2(int olddirfd, const char *oldpath, int newdirfd, const char *newpath, unsigned flags)
{
#ifdef SYS_renameat2
    return (int)syscall(SYS_renameat2, olddirfd, oldpath, newdirfd, newpath, flags);
#else
    if (flags) {
        errno = ENOSYS;
        return -1;
    }
    return (int)syscall(SYS_renameat, olddirfd, oldpath, newdirfd, newpath);
#endif
}

int sys_renameat(int olddirfd, const char *oldpath, int newdirfd, const char *newpath)
{
#ifdef SYS_renameat /* aarch64 has only renameat2 */
    return (int)syscall(SYS_renameat, olddirfd, oldpath, newdirfd, newpath);
#else
    return sys_renameat2(olddirfd, oldpath, newdirfd, newpath, 0);
#endif
}

int sys_die_with_parent(pid_t parent, int sig)
{
    if (prctl(PR_SET_PDEATHSIG, sig, 0, 0, 0) != 0)
        return -errno;
    if (parent > 0 && getppid() != parent)
        return -ESRCH;
    return 0;
}

int sys_is_forked_process(pid_t main_pid)
{
    pid_t pid = getpid();
    if ((pid_t)syscall(SYS_gettid) != pid)
        return 0;
    return main_pid <= 0 || main_pid != pid;
}

/* ---- the interposer report ---- */

typedef struct rep {
    char  *out;
    size_t len, used;
    int    n;
} rep;

static void put(rep *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(rep *r, const char *fmt, ...)
{
    if (r->used + 1 >= r->len)
        return;
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(r->out + r->used, r->len - r->used, fmt, ap);
    va_end(ap);
    if (k > 0)
        r->used = r->used + (size_t)k < r->len ? r->used + (size_t)k : r->len - 1;
}

static void finding(rep *r, const char *fmt, const char *a, const char *b)
{
    put(r, "%s", r->n++ ? "; " : "");
    put(r, fmt, a, b);
}

/* 1 if a sanitizer runtime is loaded under this name (a path or a soname). */
static int sanitizer_object(const char *name)
{
    void *h = dlopen(name, RTLD_LAZY | RTLD_NOLOAD);
    if (!h)
        return 0;
    int san = dlsym(h, "__asan_init") || dlsym(h, "__tsan_init") || dlsym(h, "__ubsan_handle_add_overflow");
    dlclose(h);
    return san;
}

/* The entries of a preload list (space or colon separated), sanitizer runtimes left out, into buf. */
static int list_entries(const char *list, char *buf, size_t len)
{
    int n = 0;
    size_t used = 0;
    buf[0] = '\0';
    char *copy = strdup(list), *save = NULL;
    if (!copy)
        return 0;
    for (char *t = strtok_r(copy, " :\t\n", &save); t; t = strtok_r(NULL, " :\t\n", &save)) {
        if (sanitizer_object(t))
            continue;
        int k = snprintf(buf + used, len - used, "%s%s", n++ ? " " : "", t);
        if (k < 0 || (size_t)k >= len - used)
            break;
        used += (size_t)k;
    }
    free(copy);
    return n;
}

static void env_list(rep *r, const char *var)
{
    const char *v = getenv(var);
    char buf[1024];
    if (v && list_entries(v, buf, sizeof buf))
        finding(r, "%s=%s", var, buf);
}

static void file_list(rep *r, const char *path)
{
    FILE *f = fopen(path, "re");
    if (!f)
        return;
    char text[2048], buf[1024];
    size_t k = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[k] = '\0';
    if (list_entries(text, buf, sizeof buf))
        finding(r, "%s: %s", path, buf);
}

/* Functions through which a library could fake durability or the data (eatmydata replaces the first
 * seven and open/open64), and syscall() itself, which the engine's own syncs go through. */
static const char *const watched[] = {
    "fsync",     "fdatasync",  "sync",      "syncfs",     "sync_file_range", "msync",  "fallocate",
    "fallocate64", "posix_fallocate", "posix_fallocate64", "ftruncate", "ftruncate64", "rename", "renameat",
    "renameat2", "open",       "open64",    "openat",     "openat64",        "creat",  "creat64",
    "write",     "pwrite",     "pwrite64",  "writev",     "pwritev",         "syscall", NULL,
};

static void symbols(rep *r)
{
    void *libc = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
    if (!libc)
        return; /* not glibc: nothing to compare with */
    /* Before glibc 2.34 libpthread.so.0 defines its own fsync, write, pwrite, open, msync, ... (the
     * cancellation points; glibc's nptl/Versions), found before libc's by every program linked with
     * -lpthread, fio included: glibc's, not an interposer. */
    void *pth = dlopen("libpthread.so.0", RTLD_LAZY | RTLD_NOLOAD);
    enum { MAXOBJ = 8 };
    const char *obj[MAXOBJ];
    char names[MAXOBJ][512];
    size_t nobj = 0;
    for (size_t i = 0; watched[i]; i++) {
        void *def = dlsym(RTLD_DEFAULT, watched[i]), *own = dlsym(libc, watched[i]);
        Dl_info di;
        if (!def || def == own || (pth && def == dlsym(pth, watched[i])) || !dladdr(def, &di) || !di.dli_fname)
            continue;
        const char *o = di.dli_fname[0] ? di.dli_fname : "the main program";
        if (di.dli_fname[0] && sanitizer_object(di.dli_fname))
            continue;
        size_t k = 0;
        while (k < nobj && strcmp(obj[k], o))
            k++;
        if (k == nobj) {
            if (nobj == MAXOBJ)
                continue;
            obj[nobj] = o;
            names[nobj++][0] = '\0';
        }
        size_t l = strlen(names[k]);
        snprintf(names[k] + l, sizeof names[k] - l, "%s%s", l ? " " : "", watched[i]);
    }
    dlclose(libc);
    if (pth)
        dlclose(pth);
    for (size_t k = 0; k < nobj; k++)
        finding(r, "%s interposes %s", obj[k], names[k]);
}

int sys_interposers(char *out, size_t len, const char *ld_so_preload)
{
    rep r = {out, len, 0, 0};
    if (!len)
        return 0;
    out[0] = '\0';
    env_list(&r, "LD_PRELOAD");
    env_list(&r, "LD_AUDIT");
    file_list(&r, ld_so_preload ? ld_so_preload : "/etc/ld.so.preload");
    symbols(&r);
    return r.n;
}
